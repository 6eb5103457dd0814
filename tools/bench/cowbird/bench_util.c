// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks' shared helpers (bench_util.h): a clock in ns, xorshift64,
 * pinning, and PERF_COUNT_HW_INSTRUCTIONS through perf_event_open. Without
 * a PMU (a VM without a virtual PMU, QEMU's TCG) the counter cannot be
 * opened: every instruction figure is then "n/a", never an estimate.
 *
 * The clock is the TSC, scaled by a rate measured once against
 * CLOCK_MONOTONIC: where the kernel's clocksource is HPET (a TCG guest
 * marks its TSC unstable), every clock_gettime is an emulated device read
 * of microseconds, which would swamp the per-op figures. The TSCs of two
 * CPUs need not agree, so the timing thread must stay on one CPU
 * (bench_pin first). Single-threaded: the counter belongs to the caller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "bench_util.h"

static int perf_fd = -1;
static char perf_why[128] = "not tried";
static double ns_per_tick;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The TSC's rate over 50 ms of CLOCK_MONOTONIC. */
static void tsc_calibrate(void)
{
	uint64_t m0 = mono_ns(), t0 = __rdtsc(), m1;

	do
		m1 = mono_ns();
	while (m1 - m0 < 50000000);
	ns_per_tick = (double)(m1 - m0) / (double)(__rdtsc() - t0);
}

uint64_t bench_now_ns(void)
{
	if (!ns_per_tick)
		tsc_calibrate();
	return (uint64_t)((double)__rdtsc() * ns_per_tick);
}

uint64_t bench_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "# pinning to CPU %d: %s\n", cpu, strerror(errno));
}

void bench_perf_open(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1, .exclude_hv = 1,
		.disabled = 1,
	};

	perf_fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (perf_fd < 0)
		snprintf(perf_why, sizeof(perf_why), "no PMU counter (perf_event_open: %s)",
			 strerror(errno));
}

int bench_perf_ok(void)
{
	return perf_fd >= 0;
}

const char *bench_perf_why(void)
{
	return perf_fd >= 0 ? "user-space, app thread, issue + reap" : perf_why;
}

void bench_perf_on(void)
{
	if (perf_fd >= 0)
		ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
}

void bench_perf_off(void)
{
	if (perf_fd >= 0)
		ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
}

uint64_t bench_perf_take(void)
{
	uint64_t v = 0;

	if (perf_fd < 0 || read(perf_fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	ioctl(perf_fd, PERF_EVENT_IOC_RESET, 0);
	return v;
}

double bench_perf_overhead(void)
{
	unsigned int i;

	if (perf_fd < 0)
		return 0;
	bench_perf_take();
	for (i = 0; i < 1000; i++) {
		bench_perf_on();
		bench_perf_off();
	}
	return (double)bench_perf_take() / 1000;
}

/* ns per call of clock() */
static double clock_cost_ns(uint64_t (*clock)(void))
{
	uint64_t t0 = bench_now_ns();
	unsigned int i;

	for (i = 0; i < 1000; i++)
		clock();
	return (double)(bench_now_ns() - t0) / 1000;
}

void bench_notes(const char *program)
{
	struct utsname u;

	uname(&u);
	printf("# %s: kernel %s, %ld CPUs, timing by TSC (%.0f ns a read; clock_gettime %.0f ns)",
	       program, u.release, sysconf(_SC_NPROCESSORS_ONLN), clock_cost_ns(bench_now_ns),
	       clock_cost_ns(mono_ns));
	if (perf_fd >= 0 || strcmp(perf_why, "not tried"))
		printf("; instructions: %s", bench_perf_why());
	printf("\n");
}

void bench_row(const char *name, const struct bench_result *r)
{
	char in[32] = "n/a", hp[32] = "-";

	if (r->instr >= 0)
		snprintf(in, sizeof(in), "%.1f", r->instr);
	if (r->helper_ns >= 0)
		snprintf(hp, sizeof(hp), "%.1f", r->helper_ns);
	printf("%-18s %10s %12.1f %10.1f %10.1f %12s\n", name, in, r->cpu_ns, r->issue_ns,
	       r->wall_ns, hp);
}
