// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird benchmark (a): compute-side cost per op of a remote read and its
 * completion, libcowbird (async_read + poll_add + poll_wait) with the
 * user-space stand-in engine on another CPU, against liburing
 * (prep_read + submit + reap) with SQPOLL on another CPU, reading the same
 * number of bytes at random offsets of a region of the same size (a memfd
 * for io_uring).
 *
 * Each batch of `depth` ops runs in three phases on the app thread:
 *   issue     cowbird: async_read + poll_add; io_uring: get_sqe + prep_read,
 *             then io_uring_submit once;
 *   wait      until all `depth` completions are there, consuming nothing
 *             (not counted: the offload's latency, not compute-side work);
 *   reap      cowbird: poll_wait (copies the bytes out); io_uring:
 *             peek_batch_cqe + cq_advance.
 * It reports per op: user-space instructions of issue + reap
 * (perf_event_open, PERF_COUNT_HW_INSTRUCTIONS, when the machine has a PMU;
 * else "unavailable"), ns of issue + reap, wall ns, and for io_uring the CPU
 * time of its SQPOLL kernel thread per op, which is compute-node CPU too
 * (Cowbird's engine runs elsewhere; the stand-in's thread is not counted).
 *
 * Usage: cowbird_bench [-n ops] [-d depth] [-s bytes] [-c app_cpu] [-C offload_cpu]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cowbird.h"
#include "standin.h"

#define REGION		(64u << 20)
#define MAX_DEPTH	256

struct result {
	double instr;		/* per op, < 0: unavailable */
	double cpu_ns;		/* issue + reap, per op */
	double issue_ns;	/* issue alone, per op */
	double wall_ns;		/* per op */
	double offload_ns;	/* io_uring: SQPOLL thread CPU per op */
};

static unsigned int ops = 200000, depth = 32, size = 64;
static int app_cpu = 0, off_cpu = 1;
static int perf_fd = -1;
static char perf_why[128] = "not tried";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void perf_open(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1, .exclude_hv = 1,
		.disabled = 1,
	};

	perf_fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (perf_fd < 0)
		snprintf(perf_why, sizeof(perf_why), "perf_event_open: %s", strerror(errno));
}

static void perf_on(void)
{
	if (perf_fd >= 0)
		ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void perf_off(void)
{
	if (perf_fd >= 0)
		ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
}

static uint64_t perf_take(void)
{
	uint64_t v = 0;

	if (perf_fd < 0 || read(perf_fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	ioctl(perf_fd, PERF_EVENT_IOC_RESET, 0);
	return v;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Instructions of toggling the counter around an empty phase, to subtract. */
static double perf_overhead(void)
{
	unsigned int i;

	if (perf_fd < 0)
		return 0;
	perf_take();
	for (i = 0; i < 1000; i++) {
		perf_on();
		perf_off();
	}
	return (double)perf_take() / 1000;
}

static int bench_cowbird(struct result *res)
{
	struct cowbird_standin_cfg c = {
		.region_size = REGION, .region_id = 1, .nr_rings = 1, .meta_order = 10,
		.data_order = 20, .batch = 16, .cpu = off_cpu,
	};
	static struct cowbird_resp resp[MAX_DEPTH];
	static unsigned char buf[MAX_DEPTH][4096];
	struct cowbird_standin *sd;
	const struct cowbird_book *book;
	double ovh = perf_overhead();
	uint64_t s = 42, cpu = 0, issue = 0, instr = 0, t0, t, wall;
	struct cowbird *cb;
	unsigned int done, i;
	int64_t last = 0;
	int g, err;

	c.region = malloc(REGION);
	if (!c.region)
		return -ENOMEM;
	memset(c.region, 0x5a, REGION);
	err = cowbird_standin_create(&c, &sd);
	if (!err)
		err = cowbird_attach(cowbird_standin_info(sd), cowbird_standin_base(sd), &cb);
	if (err)
		return err;
	book = (const struct cowbird_book *)((char *)cowbird_standin_base(sd) +
					     cowbird_standin_info(sd)->book_off);
	g = cowbird_poll_create(cb);
	cowbird_standin_start(sd);
	perf_take();
	wall = now_ns();
	for (done = 0; done < ops; done += depth) {
		t0 = now_ns();
		perf_on();
		for (i = 0; i < depth; i++) {
			last = cowbird_async_read(cb, 1, rnd(&s) % (REGION - size), buf[i], size);
			cowbird_poll_add(cb, g, last);
		}
		perf_off();
		t = now_ns();
		cpu += t - t0;
		issue += t - t0;
		/* wait, consuming nothing: the engine's read progress passes the last id */
		while ((int32_t)(__atomic_load_n(&book->rd_done, __ATOMIC_ACQUIRE) -
				 COWBIRD_REQ_SEQ(last)) <= 0)
			__builtin_ia32_pause();
		t0 = now_ns();
		perf_on();
		i = 0;
		while (i < depth)
			i += cowbird_poll_wait(cb, g, resp + i, depth - i, -1);
		perf_off();
		cpu += now_ns() - t0;
		instr += perf_take() - (uint64_t)(2 * ovh);
	}
	wall = now_ns() - wall;
	if (buf[0][0] != 0x5a)
		fprintf(stderr, "cowbird: wrong data\n");
	res->instr = perf_fd >= 0 ? (double)instr / done : -1;
	res->cpu_ns = (double)cpu / done;
	res->issue_ns = (double)issue / done;
	res->wall_ns = (double)wall / done;
	res->offload_ns = 0;
	cowbird_standin_destroy(sd);
	cowbird_close(cb);
	free(c.region);
	return 0;
}

/* CPU ns of this process's io_uring SQPOLL thread ("iou-sqp-<pid>"). */
static uint64_t sqpoll_cpu_ns(void)
{
	char path[288], name[64];
	struct dirent *d;
	uint64_t ns = 0;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f) || strncmp(name, "iou-sqp", 7)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", d->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%lu", &ns) != 1)
				ns = 0;
			fclose(f);
		}
	}
	if (dir)
		closedir(dir);
	return ns;
}

static int bench_uring(struct result *res)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SQPOLL | (off_cpu >= 0 ? IORING_SETUP_SQ_AFF : 0),
		.sq_thread_cpu = off_cpu >= 0 ? off_cpu : 0, .sq_thread_idle = 2000,
	};
	static unsigned char buf[MAX_DEPTH][4096];
	struct io_uring_cqe *cqes[MAX_DEPTH];
	double ovh = perf_overhead();
	uint64_t s = 42, cpu = 0, issue = 0, instr = 0, t0, t, wall, sq0;
	unsigned int done, i, n;
	struct io_uring ring;
	int fd, err;
	char *fill;

	fd = memfd_create("cowbird-bench", 0);
	if (fd < 0 || ftruncate(fd, REGION))
		return -errno;
	fill = mmap(NULL, REGION, PROT_WRITE, MAP_SHARED, fd, 0);
	if (fill == MAP_FAILED)
		return -errno;
	memset(fill, 0x5a, REGION);
	munmap(fill, REGION);
	err = io_uring_queue_init_params(MAX_DEPTH * 2, &ring, &p);
	if (err)
		return err;
	err = io_uring_register_files(&ring, &fd, 1);
	if (err)
		return err;
	usleep(10000);
	sq0 = sqpoll_cpu_ns();
	perf_take();
	wall = now_ns();
	for (done = 0; done < ops; done += depth) {
		t0 = now_ns();
		perf_on();
		for (i = 0; i < depth; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, 0, buf[i], size, rnd(&s) % (REGION - size));
			sqe->flags |= IOSQE_FIXED_FILE;
			sqe->user_data = i;
		}
		io_uring_submit(&ring);
		perf_off();
		t = now_ns();
		cpu += t - t0;
		issue += t - t0;
		while (io_uring_cq_ready(&ring) < depth)
			__builtin_ia32_pause();
		t0 = now_ns();
		perf_on();
		n = io_uring_peek_batch_cqe(&ring, cqes, depth);
		for (i = 0; i < n; i++)
			if (cqes[i]->res != (int)size)
				err = -EIO;
		io_uring_cq_advance(&ring, n);
		perf_off();
		cpu += now_ns() - t0;
		instr += perf_take() - (uint64_t)(2 * ovh);
	}
	wall = now_ns() - wall;
	res->offload_ns = (double)(sqpoll_cpu_ns() - sq0) / done;
	res->instr = perf_fd >= 0 ? (double)instr / done : -1;
	res->cpu_ns = (double)cpu / done;
	res->issue_ns = (double)issue / done;
	res->wall_ns = (double)wall / done;
	io_uring_queue_exit(&ring);
	close(fd);
	if (buf[0][0] != 0x5a)
		err = -EIO;
	return err;
}

static void row(const char *name, const struct result *r)
{
	char in[32] = "unavailable";

	if (r->instr >= 0)
		snprintf(in, sizeof(in), "%.1f", r->instr);
	printf("%-22s %12s %14.1f %10.1f %10.1f %16.1f\n", name, in, r->cpu_ns, r->issue_ns,
	       r->wall_ns, r->offload_ns);
}

int main(int argc, char **argv)
{
	struct result cb, ur;
	int opt, err;

	while ((opt = getopt(argc, argv, "n:d:s:c:C:")) != -1) {
		switch (opt) {
		case 'n': ops = strtoul(optarg, NULL, 0); break;
		case 'd': depth = strtoul(optarg, NULL, 0); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'c': app_cpu = atoi(optarg); break;
		case 'C': off_cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n ops] [-d depth] [-s bytes] [-c cpu] [-C cpu]\n",
				argv[0]);
			return 2;
		}
	}
	if (!depth || depth > MAX_DEPTH || !size || size > 4096 || ops < depth) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	ops -= ops % depth;
	pin(app_cpu);
	perf_open();

	err = bench_cowbird(&cb);
	if (err) {
		fprintf(stderr, "cowbird: %s\n", strerror(-err));
		return 1;
	}
	err = bench_uring(&ur);
	if (err) {
		fprintf(stderr, "io_uring: %s\n", strerror(-err));
		return 1;
	}
	printf("# %u ops of %u B, depth %u, app on CPU %d, offload on CPU %d\n", ops, size,
	       depth, app_cpu, off_cpu);
	printf("# instructions: %s\n", perf_fd >= 0 ? "user-space, app thread, issue + reap" :
	       perf_why);
	printf("%-22s %12s %14s %10s %10s %16s\n", "contender", "instr/op", "issue+reap ns",
	       "issue ns", "wall ns", "sqpoll-cpu ns");
	row("cowbird (stand-in)", &cb);
	row("io_uring SQPOLL", &ur);
	if (cb.instr > 0 && ur.instr > 0)
		printf("ratio instr cowbird/io_uring (app thread): %.3f (target <= 0.2)\n",
		       cb.instr / ur.instr);
	else
		printf("ratio instr: unavailable (%s)\n", perf_why);
	printf("ratio app-thread ns cowbird/io_uring: %.3f\n", cb.cpu_ns / ur.cpu_ns);
	printf("ratio compute-side ns cowbird/(io_uring app + sqpoll thread): %.3f\n",
	       cb.cpu_ns / (ur.cpu_ns + ur.offload_ns));
	return 0;
}
