// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird across kernels, the compute side (run by cowbird_guests.sh in
 * the guest whose application maps the rings; another guest's engine
 * serves them through a shared pool). Written from <linux/cowbird.h>,
 * cowbird.3 and Documentation/pool.md.
 *
 *   cowbird_xguest errors SHPOOL VIA REGION KEY FREE_SLOT OWN_SLOT
 *	every create refusal the header promises, each with its errno
 *   cowbird_xguest shadow SHPOOL VIA REGION KEY THREADS OPS
 *	THREADS threads on two rings, each on its own slice of the region:
 *	the slice written whole, then OPS random reads and writes of 1 B ..
 *	6 KB (reads checked against a shadow of what was written, so read
 *	after write goes through the engine's range check), then the slice
 *	read back whole. Prints ops, wall and this process's CPU per op.
 *   cowbird_xguest refused SHPOOL VIA REGION KEY ERRNO -
 *	a create must fail with ERRNO (a number)
 *   cowbird_xguest until-dead SHPOOL VIA REGION KEY MARK SECONDS
 *	reads with 32 in flight; creates MARK once 1000 completed, then
 *	must see the library say EPIPE (the engine's kernel died) within
 *	SECONDS; every read before it must be right.
 *   cowbird_xguest revoked SHPOOL VIA REGION KEY MARK GO
 *	maps an instance itself (open, COWBIRD_IOC_CREATE, mmap), writes
 *	and reads back a word through it, creates MARK and waits for GO
 *	(the script stalls this kernel past its lease meanwhile, so that
 *	the others reap it). Then the mapping must be gone: a load from it
 *	is SIGBUS, and a new mmap of the file is ENODEV.
 *   cowbird_xguest rekeyed SHPOOL VIA REGION KEY MARK NEWKEY
 *	opens an instance and writes a word through it, creates MARK and
 *	waits for the file NEWKEY (the engine's kernel rekeys the region
 *	meanwhile and sends the new key). Then a write and a read through
 *	the open instance must each end COWBIRD_ST_EACCES, a create with KEY
 *	must say EACCES, and an instance opened with the new key must read
 *	the word unchanged.
 *
 * Exit 0 when every check held; messages on stderr say what did not.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/cowbird.h>

#include "cowbird.h"

#define SLICE		(64u << 10)	/* each thread's part of the region */
#define MAXLEN		6000u		/* under half of a 16 KB data buffer */
#define DEPTH		32
#define WAIT_US		(20 * 1000 * 1000)

static struct cowbird_attr attr;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static int parse_attr(char **argv)
{
	attr.flags = COWBIRD_CREATE_SHPOOL;
	attr.shpool = strtoul(argv[0], NULL, 0);
	attr.via = strtoul(argv[1], NULL, 0);
	attr.region_id = strtoul(argv[2], NULL, 0);
	attr.region_key = strtoull(argv[3], NULL, 0);
	attr.nr_rings = 2;
	attr.meta_order = 6;
	attr.data_order = 14;
	return 0;
}

/* ---- errors ---- */

static int expect_open(const char *what, const struct cowbird_attr *a, int want)
{
	struct cowbird *cb = NULL;
	int err = cowbird_open(a, &cb);

	if (!err)
		cowbird_close(cb);
	if (err == want)
		return 0;
	fprintf(stderr, "%s: got %d (%s), want %d (%s)\n", what, err, strerror(-err), want,
		strerror(-want));
	return 1;
}

static int do_errors(char **argv)
{
	struct cowbird_attr a;
	int bad = 0;

	parse_attr(argv);
	a = attr;
	a.region_key ^= 1;
	bad += expect_open("wrong key", &a, -EACCES);
	a = attr;
	a.region_id = attr.region_id + 100;
	bad += expect_open("no such region there", &a, -ENOENT);
	a = attr;
	a.via = strtoul(argv[4], NULL, 0);
	bad += expect_open("a free host slot", &a, -EHOSTDOWN);
	a.via = strtoul(argv[5], NULL, 0);
	bad += expect_open("our own slot", &a, -EHOSTDOWN);
	a.via = 99;
	bad += expect_open("a slot past the table", &a, -EHOSTDOWN);
	a = attr;
	a.shpool = 0xfffff;
	bad += expect_open("no such membership", &a, -ENODEV);
	a = attr;
	a.nr_rings = 64;
	a.data_order = 20;
	bad += expect_open("bigger than the pool", &a, -E2BIG);
	a = attr;
	a.flags |= COWBIRD_CREATE_FABRIC;
	bad += expect_open("FABRIC and SHPOOL", &a, -EINVAL);
	a = attr;
	a.flags = 0;
	bad += expect_open("a membership without SHPOOL", &a, -EINVAL);
	/* and after all that, a good one still works */
	bad += expect_open("the good one", &attr, 0);
	return bad ? 1 : 0;
}

/* ---- shadow ---- */

struct pending {
	int64_t id;
	unsigned char *buf, *expect;
	uint32_t len;
};

struct worker {
	pthread_t th;
	struct cowbird *cb;
	int nr;
	long ops, done;
	unsigned char *shadow;
	long errors, bad;
	int why;
};

static void reap_one(struct worker *w, int g, struct pending *p, int *np)
{
	struct cowbird_resp r;
	int i, n = cowbird_poll_wait(w->cb, g, &r, 1, WAIT_US);

	if (n != 1 || r.status) {
		if (!w->errors++)
			w->why = n != 1 ? n : r.status;
		return;
	}
	for (i = 0; i < *np && p[i].id != r.req_id; i++)
		;
	if (i == *np) {
		w->errors++;
		return;
	}
	if (p[i].buf && memcmp(p[i].buf, p[i].expect, p[i].len))
		w->bad++;
	free(p[i].buf);
	free(p[i].expect);
	p[i] = p[--*np];
	w->done++;
}

/* Issue one op (a read into a fresh buffer checked against the shadow, or a write). */
static void op(struct worker *w, int g, struct pending *p, int *np, bool rd, uint64_t off,
	       const unsigned char *src, uint32_t len)
{
	uint64_t base = (uint64_t)w->nr * SLICE;
	unsigned char *buf = NULL, *expect = NULL;
	int64_t id;

	if (*np == DEPTH)
		reap_one(w, g, p, np);
	if (rd) {
		buf = malloc(len);
		expect = malloc(len);
		memcpy(expect, w->shadow + off, len);
	}
	do {
		id = rd ? cowbird_async_read(w->cb, attr.region_id, base + off, buf, len) :
			  cowbird_async_write(w->cb, attr.region_id, src, base + off, len);
		if (id == -EAGAIN && *np)
			reap_one(w, g, p, np);
	} while (id == -EAGAIN && !w->errors);
	if (!rd)
		memcpy(w->shadow + off, src, len);
	if (id < 0 || cowbird_poll_add(w->cb, g, id)) {
		if (!w->errors++)
			w->why = (int)id;
		free(buf);
		free(expect);
		return;
	}
	p[(*np)++] = (struct pending){ .id = id, .buf = buf, .expect = expect, .len = len };
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t s = 0x9e3779b97f4a7c15ull * (w->nr + 1);
	static __thread unsigned char src[MAXLEN];
	struct pending p[DEPTH];
	int g = cowbird_poll_create(w->cb), np = 0;
	uint64_t off;
	long i;

	if (g < 0) {
		w->errors++;
		return NULL;
	}
	/* the slice, whole: from here on the shadow is what the region holds */
	for (off = 0; off < SLICE && !w->errors; off += 4096) {
		for (uint32_t k = 0; k < 4096; k++)
			src[k] = (unsigned char)rnd(&s);
		op(w, g, p, &np, false, off, src, 4096);
	}
	for (i = 0; i < w->ops && !w->errors; i++) {
		uint32_t len = 1 + rnd(&s) % (rnd(&s) % 4 ? 256 : MAXLEN);
		bool rd = rnd(&s) % 2;

		off = rnd(&s) % (SLICE - len);
		if (!rd)
			for (uint32_t k = 0; k < len; k++)
				src[k] = (unsigned char)rnd(&s);
		op(w, g, p, &np, rd, off, src, len);
	}
	for (off = 0; off < SLICE && !w->errors; off += 4096)
		op(w, g, p, &np, true, off, NULL, 4096);
	while (np && !w->errors)
		reap_one(w, g, p, &np);
	cowbird_poll_destroy(w->cb, g);
	return NULL;
}

static int do_shadow(char **argv)
{
	int nthreads = atoi(argv[4]), i, err, bad = 0;
	long ops = atol(argv[5]), done = 0;
	struct worker *w = calloc(nthreads, sizeof(*w));
	struct cowbird *cb;
	double t0, c0, t, c;

	parse_attr(argv);
	err = cowbird_open(&attr, &cb);
	if (err) {
		fprintf(stderr, "cowbird_open: %s\n", strerror(-err));
		return 1;
	}
	t0 = now_s();
	c0 = cpu_s();
	for (i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .cb = cb, .nr = i, .ops = ops,
					.shadow = calloc(1, SLICE) };
		pthread_create(&w[i].th, NULL, work, &w[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].errors || w[i].bad) {
			fprintf(stderr, "thread %d: %ld errors (first %d), %ld reads wrong\n", i,
				w[i].errors, w[i].why, w[i].bad);
			bad++;
		}
		done += w[i].done;
		free(w[i].shadow);
	}
	t = now_s() - t0;
	c = cpu_s() - c0;
	cowbird_close(cb);
	printf("%ld ops by %d threads: %.0f ns wall, %.0f ns of this process's CPU per op\n",
	       done, nthreads, t * 1e9 / done, c * 1e9 / done);
	free(w);
	return bad ? 1 : 0;
}

/* ---- until-dead ---- */

static int do_until_dead(char **argv)
{
	const char *mark = argv[4];
	double limit = atof(argv[5]), t_mark = 0;
	static unsigned char bufs[DEPTH][64];
	struct cowbird *cb;
	int g, n = 0, err;
	long done = 0;
	int64_t id;

	parse_attr(argv);
	err = cowbird_open(&attr, &cb);
	if (err) {
		fprintf(stderr, "cowbird_open: %s\n", strerror(-err));
		return 1;
	}
	g = cowbird_poll_create(cb);
	/* a known word at 0, so every read can be checked */
	id = cowbird_async_write(cb, attr.region_id, "until-dead", 0, 10);
	if (id < 0 || cowbird_poll_add(cb, g, id)) {
		fprintf(stderr, "first write: %lld\n", (long long)id);
		return 1;
	}
	n = 1;
	for (;;) {
		struct cowbird_resp r[DEPTH];
		int k, got;

		while (n < DEPTH) {
			id = cowbird_async_read(cb, attr.region_id, 0, bufs[n], 10);
			if (id == -EAGAIN)
				break;
			if (id == -EPIPE)
				goto dead;
			if (id < 0 || cowbird_poll_add(cb, g, id)) {
				fprintf(stderr, "read: %lld\n", (long long)id);
				return 1;
			}
			n++;
		}
		got = cowbird_poll_wait(cb, g, r, DEPTH, 100 * 1000);
		if (got == -EPIPE)
			goto dead;
		if (got < 0) {
			fprintf(stderr, "poll_wait: %s\n", strerror(-got));
			return 1;
		}
		for (k = 0; k < got; k++) {
			if (r[k].status) {
				fprintf(stderr, "a completion with status %u\n", r[k].status);
				return 1;
			}
		}
		n -= got;
		done += got;
		/* at rest (reads are copied out while polling): every buffer holds the word */
		if (done >= 1000 && !t_mark) {
			for (k = 1; k < DEPTH; k++) {
				if (memcmp(bufs[k], "until-dead", 10)) {
					fprintf(stderr, "read %d: wrong bytes\n", k);
					return 1;
				}
			}
			close(open(mark, O_CREAT | O_WRONLY, 0644));
			t_mark = now_s();
			fprintf(stderr, "%ld ops done, marked\n", done);
		}
		if (t_mark && now_s() - t_mark > limit) {
			fprintf(stderr, "no EPIPE %.0f s after the mark (%ld ops done)\n", limit,
				done);
			return 1;
		}
	}
dead:
	if (!t_mark) {
		fprintf(stderr, "EPIPE before the mark, after %ld ops\n", done);
		return 1;
	}
	printf("EPIPE %.1f s after the mark; %ld ops done before\n", now_s() - t_mark, done);
	cowbird_close(cb);
	return 0;
}

/* ---- revoked ---- */

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* One write and a read of it back, each waited for (10 s). */
static int write_read(struct cowbird *cb, const char *word, size_t len)
{
	char back[64] = "";
	struct cowbird_resp r;
	int64_t id[2];
	int g = cowbird_poll_create(cb), i, got;

	id[0] = cowbird_async_write(cb, attr.region_id, word, 0, len);
	id[1] = cowbird_async_read(cb, attr.region_id, 0, back, len);
	for (i = 0; i < 2; i++) {
		if (id[i] < 0 || cowbird_poll_add(cb, g, id[i])) {
			fprintf(stderr, "request %d: %lld\n", i, (long long)id[i]);
			return 1;
		}
	}
	for (i = 0; i < 2; i += got) {
		got = cowbird_poll_wait(cb, g, &r, 1, 10 * 1000 * 1000);
		if (got <= 0 || r.status) {
			fprintf(stderr, "poll_wait: %d, status %u\n", got, got > 0 ? r.status : 0);
			return 1;
		}
	}
	cowbird_poll_destroy(cb, g);
	if (memcmp(back, word, len)) {
		fprintf(stderr, "read back %.*s, wrote %s\n", (int)len, back, word);
		return 1;
	}
	return 0;
}

static int do_revoked(char **argv)
{
	const char *mark = argv[4], *go = argv[5];
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct cowbird_create c = {
		.abi_version = COWBIRD_ABI_VERSION,
	};
	volatile unsigned char *base;
	struct cowbird *cb;
	double deadline;
	void *again;
	int fd, err;

	parse_attr(argv);
	c.flags = attr.flags;
	c.shpool = attr.shpool;
	c.via = attr.via;
	c.region_id = attr.region_id;
	c.region_key = attr.region_key;
	c.nr_rings = attr.nr_rings;
	c.meta_order = attr.meta_order;
	c.data_order = attr.data_order;
	fd = open("/dev/" COWBIRD_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, COWBIRD_IOC_CREATE, &c)) {
		perror("create");
		return 1;
	}
	base = mmap(NULL, c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	err = cowbird_attach(&c, (void *)base, &cb);
	if (err) {
		fprintf(stderr, "cowbird_attach: %s\n", strerror(-err));
		return 1;
	}
	if (write_read(cb, "revoked", 7))
		return 1;
	close(open(mark, O_CREAT | O_WRONLY, 0644));
	deadline = now_s() + 300;
	while (access(go, F_OK)) {
		if (now_s() > deadline) {
			fprintf(stderr, "never told to go on\n");
			return 1;
		}
		usleep(50 * 1000);
	}
	sigaction(SIGBUS, &sa, NULL);
	if (!sigsetjmp(bus_jmp, 1)) {
		unsigned char b = base[0];

		fprintf(stderr, "a load from the mapping gave %u, not SIGBUS\n", b);
		return 1;
	}
	again = mmap(NULL, c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (again != MAP_FAILED || errno != ENODEV) {
		fprintf(stderr, "mmap again: %s, want ENODEV\n",
			again == MAP_FAILED ? strerror(errno) : "mapped");
		return 1;
	}
	printf("the mapping is gone: SIGBUS, and mmap says ENODEV\n");
	/* the library would touch the rings: unmap and close without it */
	munmap((void *)base, c.mmap_size);
	close(fd);
	return 0;
}

/* One op, waited for (10 s): its status, or -1. */
static int one_op(struct cowbird *cb, bool rd, void *buf, size_t len)
{
	struct cowbird_resp r;
	int g = cowbird_poll_create(cb), got;
	int64_t id = rd ? cowbird_async_read(cb, attr.region_id, 0, buf, len) :
			  cowbird_async_write(cb, attr.region_id, buf, 0, len);

	if (g < 0 || id < 0 || cowbird_poll_add(cb, g, id))
		return -1;
	got = cowbird_poll_wait(cb, g, &r, 1, 10 * 1000 * 1000);
	cowbird_poll_destroy(cb, g);
	return got == 1 ? r.status : -1;
}

static int do_rekeyed(char **argv)
{
	const char *mark = argv[4], *newkey = argv[5], word[] = "before the rekey";
	char junk[sizeof(word)] = "after the rekey!", back[sizeof(word)] = "";
	struct cowbird *cb, *fresh;
	struct cowbird_attr a;
	double deadline;
	int st, bad = 0;
	FILE *f;

	parse_attr(argv);
	if (cowbird_open(&attr, &cb) || write_read(cb, word, sizeof(word)))
		return 1;
	close(open(mark, O_CREAT | O_WRONLY, 0644));
	a = attr;
	deadline = now_s() + 300;
	for (;;) {
		f = fopen(newkey, "r");
		if (f && fscanf(f, "%" SCNx64, &a.region_key) == 1)
			break;
		if (f)
			fclose(f);
		f = NULL;
		if (now_s() > deadline) {
			fprintf(stderr, "no new key came\n");
			return 1;
		}
		usleep(50 * 1000);
	}
	fclose(f);
	st = one_op(cb, false, junk, sizeof(junk));
	if (st != COWBIRD_ST_EACCES) {
		fprintf(stderr, "a write with the old key: status %d, want EACCES\n", st);
		bad = 1;
	}
	st = one_op(cb, true, back, sizeof(back));
	if (st != COWBIRD_ST_EACCES) {
		fprintf(stderr, "a read with the old key: status %d, want EACCES\n", st);
		bad = 1;
	}
	cowbird_close(cb);
	bad |= expect_open("the old key", &attr, -EACCES);
	if (cowbird_open(&a, &fresh)) {
		fprintf(stderr, "the new key opens nothing\n");
		return 1;
	}
	st = one_op(fresh, true, back, sizeof(back));
	if (st != COWBIRD_ST_OK || memcmp(back, word, sizeof(word))) {
		fprintf(stderr, "the new key read status %d: %.*s\n", st, (int)sizeof(back), back);
		bad = 1;
	}
	cowbird_close(fresh);
	if (!bad)
		printf("after the rekey: the old key's write and read EACCES, its create EACCES, "
		       "the new key reads the bytes unchanged\n");
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[1], "refused")) {
		parse_attr(argv + 2);
		return expect_open("refused", &attr, -atoi(argv[6]));
	}
	if (argc == 8 && !strcmp(argv[1], "errors"))
		return do_errors(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "shadow"))
		return do_shadow(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "until-dead"))
		return do_until_dead(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "revoked"))
		return do_revoked(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "rekeyed"))
		return do_rekeyed(argv + 2);
	fprintf(stderr, "usage: see the header of cowbird_xguest.c\n");
	return 2;
}
