// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird benchmark (d): a key-value store on a hybrid log, as FASTER is
 * (Cowbird, SoCC '23, sections 7 and 8.1, Figure 9): N records of `size`
 * bytes, 8 B keys, found through a local hash index that holds each key's
 * log address. The log's tail (the last `local_pct` percent of N records)
 * is local memory, the rest ("cold") is remote, reached through one of:
 *
 *   local    everything in local memory: the ceiling
 *   cowbird  libcowbird (async_read / async_write, a poll group), served by
 *            the stand-in engine on another CPU or, in the VM, by edm's
 *            kernel engine on a fabric memory host's region (-k ID:KEY)
 *   uring    io_uring with SQPOLL on another CPU (read / write of a memfd)
 *   verbs    ibverbs RDMA READ / WRITE over Soft-RoCE (bench_verbs.h), the
 *            paper's asynchronous one-sided RDMA baseline
 *
 * One thread runs a YCSB-like mix: `read_pct` percent reads, the rest blind
 * updates (upserts), keys drawn uniformly or from YCSB's scrambled zipfian
 * (theta 0.99), all drawn before the timed run, the same for every
 * contender. A read of a key in the tail is done at once; one in the cold
 * part is issued into one of `window` buffers and the thread goes on, calling
 * poll without blocking every `poll_every` ops (as FASTER does on Cowbird).
 * An update appends a new version at the tail; when the tail is full, its
 * oldest quarter is written to the remote part (async writes, all waited
 * for) and the cold part grows by that much. Remote addresses are never
 * written twice, so a read in flight cannot see a later write.
 *
 * Every record carries its key, its version and a pattern made of both; a
 * read checks all three against the version the index had when the read
 * was issued (the shadow model), so a contender that returns a stale or
 * torn record fails the run ("bad" column). Prints one row per contender:
 * name, ops/s, ns/op, remote reads per op, the share of the time the thread
 * stalled on a full window, flushes, bad records.
 *
 * Usage: cowbird_kv [-s bytes] [-N records] [-n ops] [-r read_pct] [-u]
 *                   [-l local_pct] [-w window] [-p poll_every] [-c app_cpu]
 *                   [-C offload_cpu] [-e local,standin,kernel,uring,verbs]
 *                   [-k ID:KEY] [-D ibdev]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_engine.h"
#include "bench_util.h"
#include "bench_verbs.h"

#define MAX_WINDOW	256
#define WTAG		0x10000u	/* tags of writes: WTAG + piece */
#define PIECE		(16u << 10)	/* a flush writes pieces of this */
#define MAX_PIECES	8		/* in flight */

static unsigned int size = 64, window = 64, poll_every = 16, read_pct = 95, local_pct = 5;
static uint64_t nrec = 1u << 18, nops = 500000;
static bool uniform;
static int app_cpu, off_cpu = 1;
static const char *kernel_arg, *ib_dev;

/* ---- the remote part, behind one of four contenders ---- */

struct kv_io;

struct kv_ops {
	/* untimed set-up: len bytes at off, done when it returns */
	int (*fill)(struct kv_io *io, uint64_t off, const void *src, uint32_t len);
	/* -EAGAIN: no room now, take completions and try again */
	int (*read)(struct kv_io *io, uint64_t off, void *dst, uint32_t len, uint32_t tag);
	int (*write)(struct kv_io *io, uint64_t off, const void *src, uint32_t len, uint32_t tag);
	/* completed tags, without blocking; a negative errno on a failed op */
	int (*poll)(struct kv_io *io, uint32_t *tags, int max);
	void (*close)(struct kv_io *io);
};

struct kv_io {
	const struct kv_ops *ops;		/* NULL until open */
	const char *name;
	uint64_t cap;				/* bytes */
	/* cowbird */
	struct bench_engine e;
	int g;
	uint32_t of_slot[BENCH_ENTRIES];
	/* uring */
	struct io_uring ring;
	int fd;
	/* verbs, and local */
	struct bench_verbs v;
	unsigned char *region;
	uint32_t done[MAX_WINDOW + MAX_PIECES];
	int ndone;
};

static int cb_fill(struct kv_io *io, uint64_t off, const void *src, uint32_t len)
{
	return bench_engine_fill(&io->e, off, src, len);
}

static int cb_add(struct kv_io *io, int64_t id, uint32_t tag)
{
	if (id < 0)
		return (int)id;
	io->of_slot[COWBIRD_REQ_SEQ(id) % BENCH_ENTRIES] = tag;
	return cowbird_poll_add(io->e.cb, io->g, id);
}

static int cb_read(struct kv_io *io, uint64_t off, void *dst, uint32_t len, uint32_t tag)
{
	return cb_add(io, cowbird_async_read(io->e.cb, io->e.region_id, off, dst, len), tag);
}

static int cb_write(struct kv_io *io, uint64_t off, const void *src, uint32_t len, uint32_t tag)
{
	return cb_add(io, cowbird_async_write(io->e.cb, io->e.region_id, src, off, len), tag);
}

static int cb_poll(struct kv_io *io, uint32_t *tags, int max)
{
	struct cowbird_resp resp[MAX_WINDOW + MAX_PIECES];
	int n, i;

	n = cowbird_poll_wait(io->e.cb, io->g, resp, max, 0);
	/* a ring the engine stopped serving completes nothing more */
	if (!n && __atomic_load_n(&io->e.book->error, __ATOMIC_RELAXED))
		return -EPIPE;
	for (i = 0; i < n; i++) {
		if (resp[i].status != COWBIRD_ST_OK)
			return -EIO;
		tags[i] = io->of_slot[COWBIRD_REQ_SEQ(resp[i].req_id) % BENCH_ENTRIES];
	}
	return n;
}

static void cb_close(struct kv_io *io)
{
	bench_engine_close(&io->e);
}

static const struct kv_ops cb_ops = {
	.fill = cb_fill, .read = cb_read, .write = cb_write, .poll = cb_poll, .close = cb_close,
};

static int cb_open(struct kv_io *io, const char *kernel)
{
	int err = bench_engine_open(&io->e, kernel, io->cap, off_cpu);

	if (err)
		return err;
	io->g = cowbird_poll_create(io->e.cb);
	if (io->g < 0) {
		bench_engine_close(&io->e);
		return io->g;
	}
	io->name = kernel ? "cowbird-kernel" : "cowbird-stand-in";
	io->cap = io->e.region_size;
	io->ops = &cb_ops;
	return 0;
}

static int ur_fill(struct kv_io *io, uint64_t off, const void *src, uint32_t len)
{
	return pwrite(io->fd, src, len, off) == (ssize_t)len ? 0 : -EIO;
}

/* One read or write: its length and tag in the user data, submitted at once. */
static int ur_op(struct kv_io *io, bool wr, uint64_t off, void *buf, uint32_t len, uint32_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&io->ring);
	int ret;

	if (!sqe) {
		ret = io_uring_submit(&io->ring);
		if (ret < 0)
			return ret;
		sqe = io_uring_get_sqe(&io->ring);
		if (!sqe)
			return -EAGAIN;
	}
	if (wr)
		io_uring_prep_write(sqe, io->fd, buf, len, off);
	else
		io_uring_prep_read(sqe, io->fd, buf, len, off);
	io_uring_sqe_set_data64(sqe, (uint64_t)len << 32 | tag);
	ret = io_uring_submit(&io->ring);
	return ret < 0 ? ret : 0;
}

static int ur_read(struct kv_io *io, uint64_t off, void *dst, uint32_t len, uint32_t tag)
{
	return ur_op(io, false, off, dst, len, tag);
}

static int ur_write(struct kv_io *io, uint64_t off, const void *src, uint32_t len, uint32_t tag)
{
	return ur_op(io, true, off, (void *)src, len, tag);
}

static int ur_poll(struct kv_io *io, uint32_t *tags, int max)
{
	struct io_uring_cqe *cqe[MAX_WINDOW + MAX_PIECES];
	unsigned int n, i;

	n = io_uring_peek_batch_cqe(&io->ring, cqe, max);
	for (i = 0; i < n; i++) {
		uint64_t d = io_uring_cqe_get_data64(cqe[i]);

		if (cqe[i]->res != (int)(d >> 32))
			return cqe[i]->res < 0 ? cqe[i]->res : -EIO;
		tags[i] = (uint32_t)d;
	}
	io_uring_cq_advance(&io->ring, n);
	return n;
}

static void ur_close(struct kv_io *io)
{
	io_uring_queue_exit(&io->ring);
	close(io->fd);
}

static const struct kv_ops ur_ops = {
	.fill = ur_fill, .read = ur_read, .write = ur_write, .poll = ur_poll, .close = ur_close,
};

static int ur_open(struct kv_io *io)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF,
		.sq_thread_cpu = off_cpu, .sq_thread_idle = 1000,
	};
	int err;

	io->fd = memfd_create("cowbird_kv", 0);
	if (io->fd < 0)
		return -errno;
	if (ftruncate(io->fd, io->cap)) {
		close(io->fd);
		return -errno;
	}
	err = io_uring_queue_init_params(2 * (MAX_WINDOW + MAX_PIECES), &io->ring, &p);
	if (err) {
		close(io->fd);
		return err;
	}
	io->name = "io_uring-sqpoll";
	io->ops = &ur_ops;
	return 0;
}

/*
 * verbs: the region is this process's memory, reached through rxe; reads
 * land in, and flushes go from, the one registered buffer area of run()
 */
static int vb_fill(struct kv_io *io, uint64_t off, const void *src, uint32_t len)
{
	memcpy(io->region + off, src, len);
	return 0;
}

static int vb_post(struct kv_io *io, enum ibv_wr_opcode op, uint64_t off, const void *buf,
		   uint32_t len, uint32_t tag, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = tag, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .wr.rdma.rkey = io->v.rmr->rkey,
		.wr.rdma.remote_addr = (uintptr_t)io->region + off,
	}, *bad;

	return -ibv_post_send(io->v.qa, &wr, &bad);
}

static int vb_read(struct kv_io *io, uint64_t off, void *dst, uint32_t len, uint32_t tag)
{
	return vb_post(io, IBV_WR_RDMA_READ, off, dst, len, tag, io->v.lmr);
}

static int vb_write(struct kv_io *io, uint64_t off, const void *src, uint32_t len, uint32_t tag)
{
	return vb_post(io, IBV_WR_RDMA_WRITE, off, src, len, tag, io->v.lmr);
}

static int vb_poll(struct kv_io *io, uint32_t *tags, int max)
{
	struct ibv_wc wc[MAX_WINDOW + MAX_PIECES];
	int n, i;

	n = ibv_poll_cq(io->v.cq, max, wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "cowbird_kv: verbs: %s\n", ibv_wc_status_str(wc[i].status));
			return -EIO;
		}
		tags[i] = (uint32_t)wc[i].wr_id;
	}
	return n < 0 ? -EIO : n;
}

static void vb_close(struct kv_io *io)
{
	bench_verbs_close(&io->v);
	free(io->region);
}

/* local: reads and writes are copies, complete at once */
static int lo_read(struct kv_io *io, uint64_t off, void *dst, uint32_t len, uint32_t tag)
{
	memcpy(dst, io->region + off, len);
	io->done[io->ndone++] = tag;
	return 0;
}

static int lo_write(struct kv_io *io, uint64_t off, const void *src, uint32_t len, uint32_t tag)
{
	memcpy(io->region + off, src, len);
	io->done[io->ndone++] = tag;
	return 0;
}

static int lo_poll(struct kv_io *io, uint32_t *tags, int max)
{
	int n = io->ndone < max ? io->ndone : max;

	memcpy(tags, io->done, n * sizeof(*tags));
	memmove(io->done, io->done + n, (io->ndone - n) * sizeof(*tags));
	io->ndone -= n;
	return n;
}

static void lo_close(struct kv_io *io)
{
	free(io->region);
}

static const struct kv_ops lo_ops = {
	.fill = vb_fill, .read = lo_read, .write = lo_write, .poll = lo_poll, .close = lo_close,
};

static const struct kv_ops vb_ops = {
	.fill = vb_fill, .read = vb_read, .write = vb_write, .poll = vb_poll, .close = vb_close,
};

/* ---- the store ---- */

struct ent {
	uint64_t key;
	uint64_t addr;		/* log address, in records */
	uint64_t ver;
};

struct kv {
	struct ent *idx;
	uint64_t mask;
	unsigned char *tail;	/* local: log addresses [head, end), at addr % ntail */
	uint64_t ntail, head, end;
	struct kv_io *io;
	/* reads in flight */
	unsigned int nfree;
	uint16_t free[MAX_WINDOW];
	uint64_t fkey[MAX_WINDOW], fver[MAX_WINDOW];
	unsigned char *buf;	/* window read buffers, then MAX_PIECES flush pieces */
	bool pbusy[MAX_PIECES];	/* a flush piece in flight: its buffer is not ours */
	bool rbusy[MAX_WINDOW];	/* a read in flight into that buffer */
	uint64_t moved_ns;	/* when a completion last came in */
	/* results */
	uint64_t bad, remote, flushes, stall_ns;
};

#define KV_STUCK_NS	(10 * 1000000000ull)	/* ops out and nothing back this long: fail */

static uint64_t key_of(uint64_t i)
{
	uint64_t z = i + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	/* 0 marks an empty index slot; bit 63 is kv_plan()'s */
	return (z ^ (z >> 31)) >> 1 | 1;
}

static struct ent *lookup(const struct kv *kv, uint64_t key)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) >> 17 & kv->mask;

	while (kv->idx[h].key != key && kv->idx[h].key)
		h = (h + 1) & kv->mask;
	return &kv->idx[h];
}

static void record_fill(unsigned char *rec, uint64_t key, uint64_t ver)
{
	uint64_t w[512];
	unsigned int j;

	w[0] = key;
	w[1] = ver;
	for (j = 2; j < size / 8; j++)
		w[j] = key * j ^ ver;
	memcpy(rec, w, size);
}

static void record_check(struct kv *kv, const unsigned char *rec, uint64_t key, uint64_t ver)
{
	uint64_t w[512];
	unsigned int j;
	bool ok;

	memcpy(w, rec, size);
	ok = w[0] == key && w[1] == ver;
	for (j = 2; j < size / 8 && ok; j++)
		ok = w[j] == (key * j ^ ver);
	kv->bad += !ok;
}

static unsigned char *tail_rec(const struct kv *kv, uint64_t addr)
{
	return kv->tail + (addr % kv->ntail) * size;
}

/*
 * Takes completions: reads are checked and their buffers freed, flush
 * pieces counted down in *pieces (only a flush has any in flight).
 */
static int kv_complete(struct kv *kv, unsigned int *pieces)
{
	uint32_t tags[MAX_WINDOW + MAX_PIECES];
	int n, i;

	n = kv->io->ops->poll(kv->io, tags, MAX_WINDOW + MAX_PIECES);
	if (n > 0) {
		kv->moved_ns = bench_now_ns();
	} else if (!n && (kv->nfree < window || (pieces && *pieces)) &&
		   bench_now_ns() - kv->moved_ns > KV_STUCK_NS) {
		fprintf(stderr, "cowbird_kv: %s: nothing completed in 10 s\n", kv->io->name);
		return -ETIMEDOUT;
	}
	for (i = 0; i < n; i++) {
		uint32_t t = tags[i];

		if (t >= WTAG) {
			if (!pieces || !*pieces || t - WTAG >= MAX_PIECES || !kv->pbusy[t - WTAG])
				return -EPROTO;
			kv->pbusy[t - WTAG] = false;
			--*pieces;
			continue;
		}
		if (t >= window || !kv->rbusy[t])
			return -EPROTO;	/* a completion for no read of ours */
		kv->rbusy[t] = false;
		record_check(kv, kv->buf + (size_t)t * size, kv->fkey[t], kv->fver[t]);
		kv->free[kv->nfree++] = t;
	}
	return n;
}

/* The tail's oldest quarter to the remote part; waits for every piece. */
static int kv_flush(struct kv *kv)
{
	uint64_t from = kv->head, n = kv->ntail / 4, done = 0, len, at;
	unsigned char *pb = kv->buf + (size_t)MAX_WINDOW * size;
	unsigned int inflight = 0, slot;
	int err = 0;

	if ((kv->head + n) * size > kv->io->cap)
		return -ENOSPC;
	kv->moved_ns = bench_now_ns();
	while (done < n && err >= 0) {
		if (inflight == MAX_PIECES) {
			err = kv_complete(kv, &inflight);
			continue;
		}
		/* pieces may complete in any order: a free buffer */
		for (slot = 0; kv->pbusy[slot]; slot++)
			;
		len = (n - done) * size < PIECE ? (n - done) * size : PIECE;
		len -= len % size;
		/* never across the tail's wrap */
		at = (from + done) % kv->ntail;
		if ((at + len / size) > kv->ntail)
			len = (kv->ntail - at) * size;
		memcpy(pb + (size_t)slot * PIECE, kv->tail + at * size, len);
		err = kv->io->ops->write(kv->io, (from + done) * size, pb + (size_t)slot * PIECE,
				    (uint32_t)len, WTAG + slot);
		if (err == -EAGAIN) {
			err = kv_complete(kv, &inflight);
			continue;
		}
		if (err)
			break;
		kv->pbusy[slot] = true;
		inflight++;
		done += len / size;
	}
	while (inflight && err >= 0)
		err = kv_complete(kv, &inflight);
	if (err < 0)
		return err;
	kv->head += n;
	kv->flushes++;
	return 0;
}

static int kv_read(struct kv *kv, const struct ent *en)
{
	uint64_t t0;
	uint16_t b;
	int err;

	if (en->addr >= kv->head) {
		record_check(kv, tail_rec(kv, en->addr), en->key, en->ver);
		return 0;
	}
	if (!kv->nfree) {
		t0 = bench_now_ns();
		do {
			err = kv_complete(kv, NULL);
			if (err < 0)
				return err;
		} while (!kv->nfree);
		kv->stall_ns += bench_now_ns() - t0;
	}
	b = kv->free[--kv->nfree];
	kv->fkey[b] = en->key;
	kv->fver[b] = en->ver;
	kv->rbusy[b] = true;
	kv->remote++;
	/* no key is 0: a read that completes without its data fails the check */
	memset(kv->buf + (size_t)b * size, 0, 8);
	if (kv->nfree == window - 1)
		kv->moved_ns = bench_now_ns();	/* the first op out: the clock starts */
	while ((err = kv->io->ops->read(kv->io, en->addr * size, kv->buf + (size_t)b * size, size,
				   b)) == -EAGAIN)
		if ((err = kv_complete(kv, NULL)) < 0)
			return err;
	return err;
}

static int kv_update(struct kv *kv, struct ent *en)
{
	int err;

	if (kv->end - kv->head == kv->ntail) {
		err = kv_flush(kv);
		if (err)
			return err;
	}
	en->ver++;
	en->addr = kv->end++;
	record_fill(tail_rec(kv, en->addr), en->key, en->ver);
	return 0;
}

/* Index, then records 0..N-1 at log addresses 0..N-1: the cold ones remote. */
static int kv_build(struct kv *kv, struct kv_io *io)
{
	static unsigned char stage[256 << 10];
	uint64_t i, staged = 0;
	int err = 0;

	memset(kv, 0, sizeof(*kv));
	kv->io = io;
	kv->mask = 1;
	while (kv->mask < 2 * nrec)
		kv->mask <<= 1;
	kv->idx = calloc(kv->mask, sizeof(*kv->idx));
	kv->mask--;
	kv->ntail = nrec * local_pct / 100;
	kv->ntail -= kv->ntail % 4;
	if (kv->ntail < 4)
		kv->ntail = 4;
	kv->tail = malloc(kv->ntail * size);
	kv->head = nrec > kv->ntail ? nrec - kv->ntail : 0;
	kv->end = nrec;
	if (!kv->idx || !kv->tail)
		return -ENOMEM;
	if (kv->head * size > io->cap)
		return -EFBIG;
	for (i = 0; i < nrec && !err; i++) {
		struct ent *en = lookup(kv, key_of(i));

		en->key = key_of(i);
		en->addr = i;
		if (i >= kv->head) {
			record_fill(tail_rec(kv, i), en->key, 0);
			continue;
		}
		record_fill(stage + staged, en->key, 0);
		staged += size;
		if (staged + size > sizeof(stage) || i + 1 == kv->head) {
			err = io->ops->fill(io, (i + 1) * size - staged, stage, staged);
			staged = 0;
		}
	}
	for (i = 0; i < window; i++)
		kv->free[kv->nfree++] = i;
	return err;
}

/* YCSB's scrambled zipfian over [0, n): Gray et al.'s generator, theta 0.99 */
struct zipf {
	double theta, zetan, alpha, eta;
	uint64_t n;
};

static void zipf_init(struct zipf *z, uint64_t n)
{
	double zeta2 = 1 + pow(0.5, 0.99);
	uint64_t i;

	z->n = n;
	z->theta = 0.99;
	z->zetan = 0;
	for (i = 1; i <= n; i++)
		z->zetan += 1 / pow((double)i, z->theta);
	z->alpha = 1 / (1 - z->theta);
	z->eta = (1 - pow(2.0 / n, 1 - z->theta)) / (1 - zeta2 / z->zetan);
}

static uint64_t zipf_next(const struct zipf *z, uint64_t *s)
{
	double u = (bench_rnd(s) >> 11) * (1.0 / 9007199254740992.0), uz = u * z->zetan;
	uint64_t r;

	if (uz < 1)
		r = 0;
	else if (uz < 1 + pow(0.5, z->theta))
		r = 1;
	else
		r = (uint64_t)(z->n * pow(z->eta * u - z->eta + 1, z->alpha));
	if (r >= z->n)
		r = z->n - 1;
	return key_of(r ^ 0x5bd1e995) % z->n;	/* scrambled: hot keys spread over the log */
}

/*
 * The run's keys, drawn before it starts (as FASTER's YCSB driver loads
 * them from a file): bit 63 set for an update.
 */
static uint64_t *kv_plan(const struct zipf *z)
{
	uint64_t *plan = malloc(nops * sizeof(*plan)), s = 42, op, k;

	for (op = 0; plan && op < nops; op++) {
		k = key_of(uniform ? bench_rnd(&s) % nrec : zipf_next(z, &s));
		plan[op] = k;
		if (bench_rnd(&s) % 100 >= read_pct)
			plan[op] |= 1ull << 63;
	}
	return plan;
}

static int kv_run(struct kv *kv, const uint64_t *plan, double *secs)
{
	uint64_t op, t0;
	struct ent *en;
	int err = 0;

	t0 = bench_now_ns();
	for (op = 0; op < nops && err >= 0; op++) {
		en = lookup(kv, plan[op] & ~(1ull << 63));
		if (!(plan[op] >> 63))
			err = kv_read(kv, en);
		else
			err = kv_update(kv, en);
		if (!(op % poll_every) && err >= 0)
			err = kv_complete(kv, NULL);
	}
	while (kv->nfree < window && err >= 0)
		err = kv_complete(kv, NULL);
	*secs = (double)(bench_now_ns() - t0) / 1e9;
	return err < 0 ? err : 0;
}

static int io_open(struct kv_io *io, const char *which, unsigned char **bufs)
{
	size_t bsz = (size_t)MAX_WINDOW * size + MAX_PIECES * PIECE;
	int err;

	memset(io, 0, sizeof(*io));
	io->cap = nrec * size * 2;	/* the remote part's room; a kernel region has its own */
	*bufs = aligned_alloc(4096, (bsz + 4095) & ~(size_t)4095);
	if (!*bufs)
		return -ENOMEM;
	if (!strcmp(which, "standin") || !strcmp(which, "kernel"))
		return cb_open(io, *which == 'k' ? kernel_arg : NULL);
	if (!strcmp(which, "uring"))
		return ur_open(io);
	io->region = aligned_alloc(4096, io->cap);
	if (!io->region)
		return -ENOMEM;
	io->ops = &lo_ops;
	io->name = "local";
	if (!strcmp(which, "local"))
		return 0;
	if (strcmp(which, "verbs"))
		return -EINVAL;
	io->ops = &vb_ops;
	io->name = "ibverbs-rxe";
	err = bench_verbs_open(&io->v, ib_dev, MAX_WINDOW + MAX_PIECES, *bufs, bsz, io->region,
			       io->cap);
	return err;
}

static int run(const char *which, const uint64_t *plan)
{
	unsigned char *bufs = NULL;
	char name[40];
	struct kv_io io;
	struct kv kv;
	double secs = 0;
	int err;

	err = io_open(&io, which, &bufs);
	if (!err) {
		err = kv_build(&kv, &io);
		kv.buf = bufs;
		if (!err)
			err = kv_run(&kv, plan, &secs);
		free(kv.idx);
		free(kv.tail);
	}
	if (io.ops)
		io.ops->close(&io);
	free(bufs);
	if (err) {
		fprintf(stderr, "cowbird_kv: %s: %s%s\n", which, strerror(-err),
			err == -ENOSPC ? " (the log outgrew the remote part: -r or -n lower)" :
			err == -EFBIG ? " (the remote part is too small for -N records)" : "");
		return 1;
	}
	snprintf(name, sizeof(name), "%s/%uB", io.name, size);
	printf("%-26s %12.0f %10.1f %8.3f %8.1f%% %8llu %6llu\n", name, nops / secs,
	       secs * 1e9 / nops, (double)kv.remote / nops, kv.stall_ns / secs / 1e7,
	       (unsigned long long)kv.flushes, (unsigned long long)kv.bad);
	fflush(stdout);
	return kv.bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	char *list = strdup("local,standin,uring"), *w, *save;
	struct zipf z = {};
	uint64_t *plan;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "s:N:n:r:ul:w:p:c:C:e:k:D:")) != -1) {
		switch (opt) {
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'N':
			nrec = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nops = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			read_pct = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			uniform = true;
			break;
		case 'l':
			local_pct = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			poll_every = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			app_cpu = atoi(optarg);
			break;
		case 'C':
			off_cpu = atoi(optarg);
			break;
		case 'e':
			free(list);
			list = strdup(optarg);
			break;
		case 'k':
			kernel_arg = optarg;
			break;
		case 'D':
			ib_dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-s bytes] [-N records] [-n ops] [-r read%%] [-u]"
				" [-l local%%] [-w window] [-p poll_every] [-c cpu] [-C cpu]"
				" [-e local,standin,kernel,uring,verbs] [-k ID:KEY] [-D ibdev]\n",
				argv[0]);
			return 2;
		}
	}
	if (size < 16 || size > 4096 || size % 8 || PIECE % size || !window ||
	    window > MAX_WINDOW || !poll_every || read_pct > 100 || !local_pct ||
	    local_pct > 100 || nrec < 16 || !nops || !list || (strstr(list, "kernel") && !kernel_arg)) {
		fprintf(stderr, "cowbird_kv: bad arguments (kernel needs -k ID:KEY)\n");
		return 2;
	}
	bench_pin(app_cpu);
	bench_notes("cowbird_kv");
	if (!uniform)
		zipf_init(&z, nrec);
	printf("# cowbird_kv: %llu records of %u B, %u%% of them in the local tail, %llu ops, %u%%"
	       " reads, keys %s; %u reads in flight at most, poll every %u ops, app on CPU %d,"
	       " offload on CPU %d\n", (unsigned long long)nrec, size, local_pct,
	       (unsigned long long)nops, read_pct, uniform ? "uniform" : "zipfian 0.99", window,
	       poll_every, app_cpu, off_cpu);
	fflush(stdout);
	plan = kv_plan(&z);
	if (!plan) {
		fprintf(stderr, "cowbird_kv: no memory for %llu keys\n", (unsigned long long)nops);
		return 1;
	}
	for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
		rc |= run(w, plan);
	free(plan);
	free(list);
	return rc;
}
