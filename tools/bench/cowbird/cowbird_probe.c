// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird benchmark (b): the paper's hash index probe (Cowbird, SoCC '23,
 * sections 1 and 8.1, Figures 1 and 8a-b). N records of `size` bytes (8 or
 * 64), keyed by a 64-bit key, are found through a local hash index (open
 * addressing, linear probing, half full). A share of them (95%) lives in
 * "remote" memory, a region read through libcowbird, the rest (5%) in
 * local memory. One thread probes uniformly random keys: it looks the key
 * up in the index; a local record is checked at once; a remote one is read
 * with cowbird_async_read into one of `window` buffers and added to a poll
 * group, and the thread goes on with the next probes while it is in
 * flight, calling poll_wait without blocking every `poll_every` probes and
 * checking the records that arrived (as FASTER does on Cowbird, section 7).
 * The same loop over the same keys with every record local is the baseline.
 *
 * Checking a record: its first word must be its key; its last word goes
 * into a checksum, which is the same for every run of one size (the same
 * keys, the same contents), so the remote runs are checked against local.
 *
 * Remote records are written into the region through the rings first
 * (untimed). The region is the stand-in's (in this process) or a fabric
 * memory host's through /dev/cowbird and the kernel engine (-k ID:KEY).
 * Prints one row per run: name, probes/s, ns/probe, remote share, the
 * share of the time the thread stalled with `window` reads in flight (the
 * engine, not the thread, was the limit), checksum, bad records.
 *
 * Usage: cowbird_probe [-s bytes] [-N records] [-n probes] [-w window]
 *                      [-p poll_every] [-r remote_percent] [-c app_cpu]
 *                      [-C engine_cpu] [-e local,standin,kernel] [-k ID:KEY]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_engine.h"
#include "bench_util.h"

#define REMOTE		(1ull << 63)
#define MAX_WINDOW	256
#define STAGE		(256u << 10)	/* remote records are written in pieces of this */

struct ent {
	uint64_t key;
	uint64_t loc;		/* REMOTE | region offset, or local offset */
};

struct table {
	struct ent *idx;
	uint64_t mask;
	unsigned char *local;
	uint64_t nremote;
};

struct run {
	uint64_t sum, bad, remote;
	uint64_t stall_ns;	/* waiting for a free buffer: the window was full */
	double secs;
};

static unsigned int size = 64, window = 64, poll_every = 16, remote_pct = 95;
static uint64_t nrec = 1u << 20, probes = 1000000;
static int app_cpu, eng_cpu = 1;

static uint64_t key_of(uint64_t i)
{
	uint64_t z = i + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31)) | 1;	/* 0 marks an empty index slot */
}

static struct ent *lookup(const struct table *t, uint64_t key)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) >> 17 & t->mask;

	while (t->idx[h].key != key && t->idx[h].key)
		h = (h + 1) & t->mask;
	return &t->idx[h];
}

static void record_fill(unsigned char *rec, uint64_t key)
{
	uint64_t w[512];
	unsigned int j;

	for (j = 0; j < size / 8; j++)
		w[j] = key ^ j;
	memcpy(rec, w, size);
}

static void record_check(const unsigned char *rec, uint64_t key, struct run *r)
{
	uint64_t first, last;

	memcpy(&first, rec, 8);
	memcpy(&last, rec + size - 8, 8);
	r->bad += first != key;
	r->sum += last;
}

/* Index and records; remote ones written to the engine's region. */
static int table_build(struct table *t, struct bench_engine *e)
{
	static unsigned char stage[STAGE];
	uint64_t i, key, nlocal = 0, staged = 0, pct = e ? remote_pct : 0;
	int err = 0;

	t->mask = 1;
	while (t->mask < 2 * nrec)
		t->mask <<= 1;
	t->idx = calloc(t->mask, sizeof(*t->idx));
	t->local = malloc(nrec * size);
	t->mask--;
	t->nremote = 0;
	if (!t->idx || !t->local)
		return -ENOMEM;
	for (i = 0; i < nrec && !err; i++) {
		struct ent *en;

		key = key_of(i);
		en = lookup(t, key);
		en->key = key;
		if ((key >> 32) % 100 >= pct) {
			en->loc = nlocal++ * size;
			record_fill(t->local + en->loc, key);
			continue;
		}
		en->loc = REMOTE | t->nremote++ * size;
		if ((t->nremote * size) > e->region_size)
			return -ENOSPC;
		record_fill(stage + staged, key);
		staged += size;
		if (staged + size > STAGE) {
			err = bench_engine_fill(e, t->nremote * size - staged, stage, staged);
			staged = 0;
		}
	}
	if (staged && !err)
		err = bench_engine_fill(e, t->nremote * size - staged, stage, staged);
	return err;
}

static void table_free(struct table *t)
{
	free(t->idx);
	free(t->local);
}

/* In-flight reads: buffers, their keys, and ring slot -> buffer. */
struct flight {
	struct bench_engine *e;
	int g;
	unsigned int nfree;
	uint16_t free[MAX_WINDOW];
	uint16_t of_slot[BENCH_ENTRIES];
	uint64_t key[MAX_WINDOW];
	unsigned char buf[MAX_WINDOW][4096];
};

/* Checks what arrived; returns how many or a negative errno. */
static int complete(struct flight *f, struct run *r)
{
	struct cowbird_resp resp[MAX_WINDOW];
	int n, i;

	n = cowbird_poll_wait(f->e->cb, f->g, resp, MAX_WINDOW, 0);
	for (i = 0; i < n; i++) {
		uint16_t b = f->of_slot[COWBIRD_REQ_SEQ(resp[i].req_id) % BENCH_ENTRIES];

		if (resp[i].status != COWBIRD_ST_OK)
			return -EIO;
		record_check(f->buf[b], f->key[b], r);
		f->free[f->nfree++] = b;
	}
	return n;
}

static int remote_read(struct flight *f, const struct ent *en, struct run *r)
{
	uint64_t t0;
	uint16_t b;
	int64_t id;
	int err;

	if (!f->nfree) {
		t0 = bench_now_ns();
		do {
			err = complete(f, r);
			if (err < 0)
				return err;
		} while (!f->nfree);
		r->stall_ns += bench_now_ns() - t0;
	}
	b = f->free[--f->nfree];
	f->key[b] = en->key;
	id = cowbird_async_read(f->e->cb, f->e->region_id, en->loc & ~REMOTE, f->buf[b], size);
	if (id < 0)
		return (int)id;
	f->of_slot[COWBIRD_REQ_SEQ(id) % BENCH_ENTRIES] = b;
	r->remote++;
	return cowbird_poll_add(f->e->cb, f->g, id);
}

static int probe_loop(const struct table *t, struct flight *f, struct run *r)
{
	uint64_t s = 42, p, t0;
	struct ent *en;
	int err = 0;

	t0 = bench_now_ns();
	for (p = 0; p < probes && err >= 0; p++) {
		en = lookup(t, key_of(bench_rnd(&s) % nrec));
		if (en->loc & REMOTE)
			err = remote_read(f, en, r);
		else
			record_check(t->local + en->loc, en->key, r);
		if (f && !(p % poll_every) && err >= 0)
			err = complete(f, r);
	}
	while (f && f->nfree < window && err >= 0)
		err = complete(f, r);
	r->secs = (double)(bench_now_ns() - t0) / 1e9;
	return err < 0 ? err : 0;
}

static int probe(const char *which, const char *kernel, struct run *r)
{
	static struct flight f;
	struct bench_engine e;
	struct table t = {};
	unsigned int i;
	int err;

	memset(r, 0, sizeof(*r));
	if (!strcmp(which, "local")) {
		err = table_build(&t, NULL);
		if (!err)
			err = probe_loop(&t, NULL, r);
		table_free(&t);
		return err;
	}
	err = bench_engine_open(&e, *which == 'k' ? kernel : NULL,
				(uint64_t)nrec * size, eng_cpu);
	if (err)
		return err;
	err = table_build(&t, &e);
	f.e = &e;
	f.g = cowbird_poll_create(e.cb);
	for (f.nfree = 0, i = 0; i < window; i++)
		f.free[f.nfree++] = i;
	if (!err)
		err = f.g < 0 ? f.g : probe_loop(&t, &f, r);
	table_free(&t);
	bench_engine_close(&e);
	return err;
}

static int run(const char *which, const char *kernel)
{
	char name[32];
	struct run r;
	int err;

	if (strcmp(which, "local") && strcmp(which, "standin") && strcmp(which, "kernel"))
		err = -EINVAL;
	else
		err = probe(which, kernel, &r);
	if (err) {
		fprintf(stderr, "cowbird_probe: %s: %s\n", which, strerror(-err));
		return 1;
	}
	snprintf(name, sizeof(name), "%s/%uB", !strcmp(which, "local") ? "local" :
		 *which == 'k' ? "cowbird-kernel" : "cowbird-stand-in", size);
	printf("%-22s %12.0f %10.1f %8.1f%% %8.1f%% %18llx %6llu\n", name, probes / r.secs,
	       r.secs * 1e9 / probes, 100.0 * r.remote / probes, r.stall_ns / r.secs / 1e7,
	       (unsigned long long)r.sum, (unsigned long long)r.bad);
	fflush(stdout);
	return r.bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	char *list = strdup("local,standin"), *kernel = NULL, *w, *save;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "s:N:n:w:p:r:c:C:e:k:")) != -1) {
		switch (opt) {
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'N':
			nrec = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			probes = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			poll_every = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			remote_pct = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			app_cpu = atoi(optarg);
			break;
		case 'C':
			eng_cpu = atoi(optarg);
			break;
		case 'e':
			free(list); list = strdup(optarg);
			break;
		case 'k':
			kernel = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-s bytes] [-N records] [-n probes] [-w window]"
				" [-p poll_every] [-r remote%%] [-c cpu] [-C cpu]"
				" [-e local,standin,kernel] [-k ID:KEY]\n", argv[0]);
			return 2;
		}
	}
	if (size < 8 || size > 4096 || size % 8 || !window || window > MAX_WINDOW ||
	    !poll_every || remote_pct > 100 || !nrec || !probes || !list ||
	    (strstr(list, "kernel") && !kernel)) {
		fprintf(stderr, "cowbird_probe: bad arguments (kernel needs -k ID:KEY)\n");
		return 2;
	}
	bench_pin(app_cpu);
	bench_notes("cowbird_probe");
	printf("# cowbird_probe: %llu records of %u B, %u%% remote, %llu probes, %u reads in"
	       " flight at most, poll_wait every %u probes, app on CPU %d, engine on CPU %d\n",
	       (unsigned long long)nrec, size, remote_pct, (unsigned long long)probes, window,
	       poll_every, app_cpu, eng_cpu);
	fflush(stdout);
	for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
		rc |= run(w, kernel);
	free(list);
	return rc;
}
