// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird benchmark (a): compute-side cost per op of a remote read and its
 * completion. libcowbird (async_read + poll_add + poll_wait) served by the
 * user-space stand-in engine on another CPU ("cowbird/stand-in") or by
 * edm's kernel engine on a fabric memory host's region ("cowbird/kernel",
 * in the VM), against liburing (prep_read + submit + reap) with SQPOLL on
 * another CPU ("io_uring/sqpoll", a memfd of the same size). Every op reads
 * `size` bytes at a random offset. cowbird_verbs.c is the ibverbs contender.
 *
 * Each batch of `depth` ops runs in three phases on the app thread:
 *   issue     cowbird: async_read + poll_add; io_uring: get_sqe + prep_read,
 *             then io_uring_submit once;
 *   wait      until all `depth` completions are there, consuming nothing
 *             (not counted: the offload's latency, not compute-side work);
 *   reap      cowbird: poll_wait (copies the bytes out); io_uring:
 *             peek_batch_cqe + cq_advance.
 * Per op it prints (bench_util.h's row): user-space instructions of issue +
 * reap (n/a without a PMU), ns of issue + reap, ns of issue, wall ns, and
 * for io_uring the CPU of its SQPOLL kernel thread, which is compute-node
 * CPU too (Cowbird's engine stands for an offload elsewhere: not counted).
 *
 * "cowbird/shpool" (-x ID:KEY:SHPOOL:VIA) is libcowbird served by the
 * kernel engine of another guest through a shared pool (Documentation/
 * pool.md, "Cowbird across kernels"): the paper's Spot VM.
 *
 * With -O the helper column is, for every row, the CPU this machine spent
 * outside the app thread per op (all CPUs' busy time in /proc/stat less
 * the app thread's own): the kernel engine's thread, io_uring's SQPOLL
 * thread, the stand-in's thread, softirqs, everything. That is the
 * compute node's CPU the offload did not save.
 *
 * Usage: cowbird_bench [-n ops] [-d depth] [-s bytes] [-c app_cpu]
 *                      [-C offload_cpu] [-e standin,kernel,shpool,uring]
 *                      [-k ID:KEY] [-x ID:KEY:SHPOOL:VIA] [-O]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench_engine.h"
#include "bench_util.h"

#define REGION		(64u << 20)
#define MAX_DEPTH	256

static unsigned int ops = 200000, depth = 32, size = 64;
static int app_cpu, off_cpu = 1;
static bool other_cpu;		/* -O: helper = this machine's CPU outside the app thread */
static unsigned char buf[MAX_DEPTH][4096];

/* Accumulates one batch's phases. */
struct tally {
	uint64_t cpu, issue, instr;
	double ovh;
};

static void result_fill(struct bench_result *r, const struct tally *t, uint64_t wall,
			unsigned int done)
{
	r->instr = bench_perf_ok() ? (double)t->instr / done : -1;
	r->cpu_ns = (double)t->cpu / done;
	r->issue_ns = (double)t->issue / done;
	r->wall_ns = (double)wall / done;
	r->helper_ns = -1;
}

/* Busy ns of every CPU together, from /proc/stat's first line. */
static uint64_t sys_busy_ns(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n = 0;

	if (f) {
		n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]);
		fclose(f);
	}
	if (n != 8)
		return 0;
	/* user nice system (idle iowait) irq softirq steal, in clock ticks */
	return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * (1000000000ull / sysconf(_SC_CLK_TCK));
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

struct other {
	uint64_t busy, self;
};

static void other_start(struct other *o)
{
	o->busy = sys_busy_ns();
	o->self = thread_cpu_ns();
}

/* -O: this machine's CPU per op outside the app thread, since other_start(). */
static void other_end(const struct other *o, struct bench_result *r, unsigned int done)
{
	double busy = (double)(sys_busy_ns() - o->busy), self = (double)(thread_cpu_ns() - o->self);

	if (other_cpu && done)
		r->helper_ns = busy > self ? (busy - self) / done : 0;
}

/* One batch: issue, wait on the engine's progress, reap. */
static int cowbird_batch(struct bench_engine *e, int g, uint64_t *s, struct tally *t)
{
	static struct cowbird_resp resp[MAX_DEPTH];
	uint64_t span = e->region_size - size, t0, t1;
	int64_t last = 0;
	unsigned int i;
	int n = 0;

	t0 = bench_now_ns();
	bench_perf_on();
	for (i = 0; i < depth && last >= 0; i++) {
		last = cowbird_async_read(e->cb, e->region_id, bench_rnd(s) % span, buf[i], size);
		if (last >= 0)
			cowbird_poll_add(e->cb, g, last);
	}
	bench_perf_off();
	t1 = bench_now_ns();
	if (last < 0)
		return (int)last;
	t->cpu += t1 - t0;
	t->issue += t1 - t0;
	while (!bench_engine_read_done(e, last))
		__builtin_ia32_pause();
	t0 = bench_now_ns();
	bench_perf_on();
	for (i = 0; i < depth; i += n) {
		n = cowbird_poll_wait(e->cb, g, resp + i, depth - i, -1);
		if (n < 0)
			break;
	}
	bench_perf_off();
	t->cpu += bench_now_ns() - t0;
	t->instr += bench_perf_take() - (uint64_t)(2 * t->ovh);
	if (n < 0)
		return n;
	for (i = 0; i < depth; i++)
		if (resp[i].status != COWBIRD_ST_OK || resp[i].length != size)
			return -EIO;
	return 0;
}

static int bench_cowbird(const char *kernel, struct bench_result *res)
{
	struct tally t = { .ovh = bench_perf_overhead() };
	struct bench_engine e;
	unsigned int done;
	uint64_t s = 42, wall;
	int g, err;

	struct other o;

	err = bench_engine_open(&e, kernel, REGION, off_cpu);
	if (err)
		return err;
	g = cowbird_poll_create(e.cb);
	bench_perf_take();
	other_start(&o);
	wall = bench_now_ns();
	for (done = 0; done < ops && !err; done += depth)
		err = cowbird_batch(&e, g, &s, &t);
	wall = bench_now_ns() - wall;
	if (!err && !kernel && buf[0][0] != 0x5a)
		err = -EIO;
	result_fill(res, &t, wall, done);
	other_end(&o, res, done);
	bench_engine_close(&e);
	return err;
}

/* CPU ns of this process's io_uring SQPOLL thread ("iou-sqp-<pid>"). */
static uint64_t sqpoll_cpu_ns(void)
{
	char path[288], name[64];
	DIR *dir = opendir("/proc/self/task");
	unsigned long long ns = 0;
	struct dirent *d;
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
			if (fscanf(f, "%llu", &ns) != 1)
				ns = 0;
			fclose(f);
		}
	}
	if (dir)
		closedir(dir);
	return ns;
}

static int uring_batch(struct io_uring *ring, uint64_t *s, struct tally *t)
{
	struct io_uring_cqe *cqes[MAX_DEPTH];
	unsigned int i, n;
	uint64_t t0, t1;
	int err = 0;

	t0 = bench_now_ns();
	bench_perf_on();
	for (i = 0; i < depth; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_read(sqe, 0, buf[i], size, bench_rnd(s) % (REGION - size));
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = i;
	}
	io_uring_submit(ring);
	bench_perf_off();
	t1 = bench_now_ns();
	t->cpu += t1 - t0;
	t->issue += t1 - t0;
	while (io_uring_cq_ready(ring) < depth)
		__builtin_ia32_pause();
	t0 = bench_now_ns();
	bench_perf_on();
	n = io_uring_peek_batch_cqe(ring, cqes, depth);
	for (i = 0; i < n; i++)
		if (cqes[i]->res != (int)size)
			err = -EIO;
	io_uring_cq_advance(ring, n);
	bench_perf_off();
	t->cpu += bench_now_ns() - t0;
	t->instr += bench_perf_take() - (uint64_t)(2 * t->ovh);
	return err;
}

static int uring_setup(struct io_uring *ring, int *fdp)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SQPOLL | (off_cpu >= 0 ? IORING_SETUP_SQ_AFF : 0),
		.sq_thread_cpu = off_cpu >= 0 ? off_cpu : 0, .sq_thread_idle = 2000,
	};
	int fd = memfd_create("cowbird-bench", 0), err;
	char *fill;

	if (fd < 0 || ftruncate(fd, REGION))
		return -errno;
	fill = mmap(NULL, REGION, PROT_WRITE, MAP_SHARED, fd, 0);
	if (fill == MAP_FAILED)
		return -errno;
	memset(fill, 0x5a, REGION);
	munmap(fill, REGION);
	*fdp = fd;
	err = io_uring_queue_init_params(MAX_DEPTH * 2, ring, &p);
	if (!err)
		err = io_uring_register_files(ring, &fd, 1);
	return err;
}

static int bench_uring(struct bench_result *res)
{
	struct tally t = { .ovh = bench_perf_overhead() };
	uint64_t s = 42, wall, sq0;
	struct io_uring ring;
	unsigned int done;
	int fd = -1, err;

	err = uring_setup(&ring, &fd);
	if (err)
		return err;
	struct other o;

	usleep(10000);
	sq0 = sqpoll_cpu_ns();
	bench_perf_take();
	other_start(&o);
	wall = bench_now_ns();
	for (done = 0; done < ops && !err; done += depth)
		err = uring_batch(&ring, &s, &t);
	wall = bench_now_ns() - wall;
	result_fill(res, &t, wall, done);
	res->helper_ns = (double)(sqpoll_cpu_ns() - sq0) / done;
	other_end(&o, res, done);
	io_uring_queue_exit(&ring);
	close(fd);
	if (!err && buf[0][0] != 0x5a)
		err = -EIO;
	return err;
}

/* The report's name of contender @which (-k @kernel: "ID:KEY@VIA" goes through the fabric). */
static const char *row_name(const char *which, const char *kernel)
{
	if (!strcmp(which, "uring"))
		return "io_uring/sqpoll";
	if (*which == 'k')
		return strchr(kernel, '@') ? "cowbird/fabric" : "cowbird/kernel";
	if (*which == 's' && which[1] == 'h')
		return "cowbird/shpool";
	return "cowbird/stand-in";
}

static int run(const char *which, const char *kernel, const char *shpool)
{
	struct bench_result r;
	int err;

	if (!strcmp(which, "standin") || !strcmp(which, "kernel"))
		err = bench_cowbird(*which == 'k' ? kernel : NULL, &r);
	else if (!strcmp(which, "shpool"))
		err = bench_cowbird(shpool, &r);
	else if (!strcmp(which, "uring"))
		err = bench_uring(&r);
	else
		err = -EINVAL;
	if (err) {
		fprintf(stderr, "cowbird_bench: %s: %s\n", which, strerror(-err));
		return 1;
	}
	bench_row(row_name(which, kernel), &r);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	char *list = strdup("standin,uring"), *kernel = NULL, *shpool = NULL, *w, *save;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "n:d:s:c:C:e:k:x:O")) != -1) {
		switch (opt) {
		case 'n':
			ops = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			depth = strtoul(optarg, NULL, 0);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			app_cpu = atoi(optarg);
			break;
		case 'C':
			off_cpu = atoi(optarg);
			break;
		case 'e':
			free(list); list = strdup(optarg);
			break;
		case 'k':
			kernel = optarg;
			break;
		case 'x':
			shpool = optarg;
			break;
		case 'O':
			other_cpu = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n ops] [-d depth] [-s bytes] [-c cpu] [-C cpu]"
				" [-e standin,kernel,shpool,uring] [-k ID:KEY[@VIA]]"
				" [-x ID:KEY:SHPOOL:VIA] [-O]\n", argv[0]);
			return 2;
		}
	}
	if (!depth || depth > MAX_DEPTH || !size || size > 4096 || ops < depth || !list ||
	    (strstr(list, "kernel") && !kernel) || (strstr(list, "shpool") && !shpool)) {
		fprintf(stderr, "cowbird_bench: bad arguments (kernel needs -k ID:KEY, shpool"
			" -x ID:KEY:SHPOOL:VIA)\n");
		return 2;
	}
	ops -= ops % depth;
	bench_pin(app_cpu);
	bench_perf_open();
	bench_notes("cowbird_bench");
	printf("# cowbird_bench: %u ops of %u B, depth %u, app on CPU %d, offload on CPU %d\n",
	       ops, size, depth, app_cpu, off_cpu);
	fflush(stdout);
	for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
		rc |= run(w, kernel, shpool);
	free(list);
	return rc;
}
