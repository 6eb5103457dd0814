// SPDX-License-Identifier: GPL-2.0
/*
 * Recovery after a loss, as an application of /dev/edm sees it: reads of
 * LEN bytes from one memory node, one at a time; every EVERY-th read, the
 * SPOIL command (edmctl spoiling the memory node's next blocks) runs just
 * before it is submitted, so that read's answer is lost. A read that ends
 * -ETIMEDOUT is submitted again, as the application would, until it
 * succeeds. The recovery of a loss is the time from the lost read's first
 * submission to its success: the host's op timeout plus one read.
 *
 *   recovery -d /dev/edmN -t DST [-l LEN] [-n LOSSES] [-e EVERY] -- SPOIL...
 *
 * Prints one line of key=value pairs: reads, losses seen, timeouts, the
 * recovery's p50 and max, a plain read's p50 (all in us), and reads/s.
 * Exits 1 if a read fails in any other way or a loss was never seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/edm.h>

extern char **environ;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* One read, start to finish: its completion status, or -errno. */
static int read_once(int fd, uint16_t dst, void *buf, uint32_t len)
{
	struct edm_op op = { .dst = dst, .len = len, .buf = (uintptr_t)buf,
			     .opcode = EDM_OP_READ };
	struct edm_submit s = { .ops = (uintptr_t)&op, .nr = 1 };
	struct edm_cqe cqe;
	struct edm_reap r = { .cqes = (uintptr_t)&cqe, .max = 1, .min = 1,
			      .timeout_ms = 120000 };

	if (ioctl(fd, EDM_IOC_SUBMIT, &s))
		return -errno;
	if (ioctl(fd, EDM_IOC_REAP, &r))
		return -errno;
	return r.nr == 1 ? cqe.status : -ETIME;
}

static int spoil(char **argv)
{
	int st;
	pid_t pid;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t p50(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	uint32_t len = 64, losses = 20, every = 50, i, j, timeouts = 0;
	uint64_t *rec, *lat, t0, t, start, max = 0;
	size_t nlat = 0, nrec = 0;
	char buf[4096];
	int dst = -1, fd, err, c;

	while ((c = getopt(argc, argv, "d:t:l:n:e:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 't':
			dst = atoi(optarg);
			break;
		case 'l':
			len = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			losses = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			every = strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (!dev || dst < 0 || optind >= argc || !len || len > sizeof(buf) || !losses || !every)
		goto usage;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	rec = calloc(losses, sizeof(*rec));
	lat = calloc((size_t)losses * every, sizeof(*lat));
	if (!rec || !lat)
		return 1;
	start = now_ns();
	for (i = 0; i < losses; i++) {
		for (j = 0; j < every; j++) {
			bool lossy = j == every - 1;

			if (lossy && spoil(argv + optind)) {
				fprintf(stderr, "recovery: the spoil command failed\n");
				return 1;
			}
			t0 = now_ns();
			while ((err = read_once(fd, dst, buf, len)) == -ETIMEDOUT)
				timeouts++;
			t = now_ns() - t0;
			if (err) {
				fprintf(stderr, "recovery: read: %s\n", strerror(-err));
				return 1;
			}
			if (!lossy) {
				lat[nlat++] = t;
			} else {
				rec[nrec++] = t;
				max = t > max ? t : max;
			}
		}
	}
	t = now_ns() - start;
	printf("reads=%zu losses=%u timeouts=%u recovery_p50_us=%llu recovery_max_us=%llu "
	       "read_p50_us=%llu reads_per_s=%llu\n", nlat + nrec, losses, timeouts,
	       (unsigned long long)p50(rec, nrec) / 1000, (unsigned long long)max / 1000,
	       (unsigned long long)p50(lat, nlat) / 1000,
	       (unsigned long long)((nlat + nrec) * 1000000000ull / t));
	if (timeouts < losses) {
		fprintf(stderr, "recovery: %u losses spoiled, %u timeouts seen\n", losses, timeouts);
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: recovery -d /dev/edmN -t DST [-l LEN] [-n LOSSES] [-e EVERY]"
		" -- SPOIL...\n");
	return 2;
}
