// SPDX-License-Identifier: GPL-2.0
/*
 * The physical floor beside make bench's figures (issue 28): what the
 * machine itself costs for the two things every emulated path must do at
 * least once, measured natively.
 *
 *   cache-line round trip  two threads on two CPUs pass a token through
 *                          one cache line and back: the least a handoff
 *                          between a submitter and an engine can cost
 *   memcpy                 one copy of 64 B, 1500 B and 64 KiB, warm in
 *                          the cache: the least a copied payload costs
 *
 * Prints one JSON object. Each figure is the median of 9 runs.
 *
 *   floor [-c CPU_A,CPU_B] [-n ROUND_TRIPS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RUNS	9

struct pingpong {
	_Alignas(64) volatile uint64_t token;
	long n;
	int cpu;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	errno = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	return errno;
}

/* The far side: answer every odd token with the next even one. */
static void *pong(void *arg)
{
	struct pingpong *p = arg;
	uint64_t t;
	long i;

	if (pin(p->cpu))
		return (void *)1;
	for (i = 0; i < p->n; i++) {
		t = 2 * (uint64_t)i + 1;
		while (__atomic_load_n(&p->token, __ATOMIC_ACQUIRE) != t)
			__builtin_ia32_pause();
		__atomic_store_n(&p->token, t + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static double round_trip_ns(int a, int b, long n)
{
	static struct pingpong p;
	pthread_t t;
	uint64_t t0, t1, want;
	void *ret;
	long i;

	p.token = 0;
	p.n = n;
	p.cpu = b;
	/* both CPUs usable, or pong could not pin itself and we would wait forever */
	if (pin(b) || pin(a))
		return -1;
	errno = pthread_create(&t, NULL, pong, &p);
	if (errno)
		return -1;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		want = 2 * (uint64_t)i + 2;
		__atomic_store_n(&p.token, want - 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&p.token, __ATOMIC_ACQUIRE) != want)
			__builtin_ia32_pause();
	}
	t1 = now_ns();
	if (pthread_join(t, &ret) || ret)
		return -1;
	return (double)(t1 - t0) / n;
}

static double memcpy_ns(size_t size)
{
	static unsigned char src[65536], dst[65536];
	long n = size >= 65536 ? 20000 : 2000000, i;
	uint64_t t0;

	memset(src, 0x5a, sizeof(src));
	memcpy(dst, src, size);		/* warm */
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		memcpy(dst, src, size);
		/* the copy is used: the compiler may not drop or merge it */
		__asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
	}
	return (double)(now_ns() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 1500, 65536 };
	double rt[RUNS], mc[3][RUNS];
	int a = 0, b = 1, opt, i, k;
	long n = 200000;

	while ((opt = getopt(argc, argv, "c:n:")) != -1) {
		switch (opt) {
		case 'c':
			if (sscanf(optarg, "%d,%d", &a, &b) != 2 || a == b) {
				fprintf(stderr, "floor: -c wants two different CPUs, as 0,1\n");
				return 2;
			}
			break;
		case 'n':
			n = strtol(optarg, NULL, 0);
			if (n <= 0) {
				fprintf(stderr, "floor: -n wants a positive count\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: floor [-c CPU_A,CPU_B] [-n ROUND_TRIPS]\n");
			return 2;
		}
	}
	for (i = 0; i < RUNS; i++) {
		rt[i] = round_trip_ns(a, b, n);
		if (rt[i] < 0) {
			fprintf(stderr, "floor: cannot run on CPUs %d and %d: %s\n", a, b,
				strerror(errno));
			return 1;
		}
		for (k = 0; k < 3; k++)
			mc[k][i] = memcpy_ns(sizes[k]);
	}
	printf("{\"cpus\":[%d,%d],\"round_trips\":%ld,\"cacheline_rtt_ns\":%.1f,"
	       "\"memcpy_64_ns\":%.1f,\"memcpy_1500_ns\":%.1f,\"memcpy_65536_ns\":%.1f}\n",
	       a, b, n, median(rt), median(mc[0]), median(mc[1]), median(mc[2]));
	return 0;
}
