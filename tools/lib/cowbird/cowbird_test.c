// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of libcowbird against the user-space stand-in engine,
 * which serves the rings with the kernel engine's own cores
 * (cowbird/ring.c, cc.c):
 *
 *  - data integrity: 8 threads on 4 rings (two producers per ring, so tail
 *    reservations race) write and read random ranges of their own slice of
 *    the region, each read checked against a shadow copy taken when it was
 *    issued, and the whole region checked against the shadows at the end;
 *  - read-after-write: with writes held in flight by the stand-in, a read
 *    right after an overlapping write must return the written bytes;
 *  - a full ring says -EAGAIN (entries full, data full), and works again
 *    once the engine runs;
 *  - poll groups: add after completion, remove, bad ids, timeouts;
 *  - a ring whose tail moved backwards is stopped and polls say -EPIPE;
 *  - no completion is lost for arriving before poll_add: deterministically
 *    (complete, reap, wrap the ring from another thread, then add), and with
 *    8 threads that dawdle between issuing and adding;
 *  - every way of consuming a completion frees its slot, and an unconsumed
 *    one holds the ring (cowbird_done, poll_remove, poll_destroy, close).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cowbird.h"
#include "standin.h"

enum {
	REGION	= 1 << 20,
	THREADS	= 8,
	SLICE	= REGION / THREADS,
	OPS	= 20000,
	MAXLEN	= 3 * COWBIRD_OP_MAX + 100,	/* cut into four ops */
	DEPTH	= 16,
	RID	= 7,
};

struct env {
	struct cowbird_standin *sd;
	struct cowbird *cb;
	unsigned char *region;
};

static int env_up(struct env *e, uint16_t rings, uint8_t meta, uint8_t data, uint32_t lag,
		  bool start)
{
	struct cowbird_standin_cfg c = {
		.region_size = REGION, .region_id = RID, .region_key = 0x5eed,
		.nr_rings = rings, .meta_order = meta, .data_order = data,
		.batch = 4, .write_lag = lag, .cpu = -1,
	};
	int err;

	e->region = calloc(1, REGION);
	if (!e->region)
		return -ENOMEM;
	c.region = e->region;
	err = cowbird_standin_create(&c, &e->sd);
	if (err)
		return err;
	err = cowbird_attach(cowbird_standin_info(e->sd), cowbird_standin_base(e->sd), &e->cb);
	if (err)
		return err;
	return start ? cowbird_standin_start(e->sd) : 0;
}

static void env_down(struct env *e)
{
	cowbird_standin_destroy(e->sd);
	cowbird_close(e->cb);
	free(e->region);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct worker {
	struct env *e;
	int nr;
	int ops;
	bool late;		/* sometimes sleep between issuing and poll_add */
	unsigned char shadow[SLICE];
	long bad, errors, reads, writes;
};

struct pending {
	int64_t id;
	unsigned char *buf;		/* read target */
	unsigned char *expect;		/* shadow bytes when the read was issued */
	uint32_t len;
};

/* Waits for one completion of group g and checks it against the pending set. */
static void reap_one(struct worker *w, int g, struct pending *p, int *np)
{
	struct cowbird_resp r;
	int i, n;

	n = cowbird_poll_wait(w->e->cb, g, &r, 1, -1);
	if (n != 1) {
		w->errors++;
		return;
	}
	for (i = 0; i < *np; i++)
		if (p[i].id == r.req_id)
			break;
	if (i == *np || r.status != COWBIRD_ST_OK || r.length != p[i].len) {
		w->errors++;
		return;
	}
	if (p[i].buf) {
		if (memcmp(p[i].buf, p[i].expect, p[i].len))
			w->bad++;
		free(p[i].buf);
		free(p[i].expect);
	}
	p[i] = p[--*np];
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct cowbird *cb = w->e->cb;
	uint64_t s = 0x9e3779b97f4a7c15ull * (w->nr + 1), base = (uint64_t)w->nr * SLICE;
	struct pending p[DEPTH];
	unsigned char src[MAXLEN];
	int g = cowbird_poll_create(cb), np = 0, i;

	if (g < 0) {
		w->errors++;
		return NULL;
	}
	for (i = 0; i < w->ops && !w->errors; i++) {
		uint32_t len = 1 + rnd(&s) % (rnd(&s) % 4 ? 256 : MAXLEN);
		uint64_t off = rnd(&s) % (SLICE - len);
		int64_t id;

		if (np == DEPTH)
			reap_one(w, g, p, &np);
		if (np == DEPTH)
			break;		/* reap_one failed */
		if (rnd(&s) % 2) {
			for (uint32_t k = 0; k < len; k++)
				src[k] = (unsigned char)rnd(&s);
			do {
				id = cowbird_async_write(cb, RID, src, base + off, len);
				if (id == -EAGAIN && np)
					reap_one(w, g, p, &np);
			} while (id == -EAGAIN && !w->errors);
			memcpy(w->shadow + off, src, len);
			p[np] = (struct pending){ .id = id, .len = len };
			w->writes++;
		} else {
			unsigned char *buf = malloc(len), *expect = malloc(len);

			memcpy(expect, w->shadow + off, len);
			do {
				id = cowbird_async_read(cb, RID, base + off, buf, len);
				if (id == -EAGAIN && np)
					reap_one(w, g, p, &np);
			} while (id == -EAGAIN && !w->errors);
			p[np] = (struct pending){ .id = id, .buf = buf, .expect = expect, .len = len };
			w->reads++;
		}
		/*
		 * Let the request complete, be reaped and the ring (64 entries) wrap
		 * under the other producer meanwhile: 20 ms is some hundreds of its ops.
		 */
		if (w->late && id >= 0 && !(rnd(&s) % 256))
			usleep(20000);
		if (id < 0 || cowbird_poll_add(cb, g, id)) {
			w->errors++;
			break;
		}
		np++;
	}
	while (np && !w->errors)
		reap_one(w, g, p, &np);
	cowbird_poll_destroy(cb, g);
	return NULL;
}

static void run_workers(struct __test_metadata *_metadata, int ops, bool late)
{
	static struct worker w[THREADS];
	pthread_t t[THREADS];
	struct cowbird_standin_stats st;
	struct env e;
	int i;

	ASSERT_EQ(0, env_up(&e, 4, 6, 16, 0, true));
	memset(w, 0, sizeof(w));
	for (i = 0; i < THREADS; i++) {
		w[i].e = &e;
		w[i].nr = i;
		w[i].ops = ops;
		w[i].late = late;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, work, &w[i]));
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	cowbird_standin_stop(e.sd);
	cowbird_standin_stats(e.sd, &st);
	for (i = 0; i < THREADS; i++) {
		EXPECT_EQ(0, w[i].errors) TH_LOG("worker %d", i);
		EXPECT_EQ(0, w[i].bad);
		EXPECT_EQ(ops, w[i].reads + w[i].writes);
		EXPECT_EQ(0, memcmp(e.region + i * SLICE, w[i].shadow, SLICE));
	}
	EXPECT_EQ(THREADS * ops, st.completed);
	EXPECT_EQ(0, st.rejected);
	EXPECT_GT(st.ops, st.completed);	/* long transfers were cut */
	EXPECT_LT(st.batches, st.completed);	/* completions were batched */
	env_down(&e);
}

TEST(integrity_8_threads_shadow)
{
	run_workers(_metadata, OPS, false);
}

/* The same, with threads that often add a request long after it completed. */
TEST(integrity_8_threads_late_add)
{
	run_workers(_metadata, OPS / 8, true);
}

/* A read issued right after an overlapping write sees it, though the write lingers. */
TEST(read_after_write)
{
	struct cowbird_standin_stats st;
	unsigned char w[6000], r[6000];
	struct cowbird_resp resp[2];
	struct env e;
	int g, i, n;

	ASSERT_EQ(0, env_up(&e, 1, 6, 16, 50, true));
	g = cowbird_poll_create(e.cb);
	ASSERT_LE(0, g);
	for (i = 0; i < 200; i++) {
		uint32_t len = 1 + (i * 37) % sizeof(w), off = (i * 4099) % (REGION - len);
		uint32_t roff = off + len / 3, rlen = len - len / 3;
		int64_t wid, rid;

		memset(w, i + 1, len);
		wid = cowbird_async_write(e.cb, RID, w, off, len);
		rid = cowbird_async_read(e.cb, RID, roff, r, rlen);
		ASSERT_LE(0, wid);
		ASSERT_LE(0, rid);
		ASSERT_EQ(0, cowbird_poll_add(e.cb, g, wid));
		ASSERT_EQ(0, cowbird_poll_add(e.cb, g, rid));
		n = cowbird_poll_wait(e.cb, g, resp, 2, 2000000);
		ASSERT_EQ(2, n);
		ASSERT_EQ(COWBIRD_ST_OK, resp[0].status);
		ASSERT_EQ(COWBIRD_ST_OK, resp[1].status);
		ASSERT_EQ(0, memcmp(r, w, rlen)) TH_LOG("iteration %d: stale read", i);
	}
	cowbird_standin_stop(e.sd);
	cowbird_standin_stats(e.sd, &st);
	EXPECT_GT(st.rd_blocked, 0);	/* the range check did the work */
	env_down(&e);
}

/* Entries run out at 2^meta_order, data at 2^data_order bytes: -EAGAIN, then fine again. */
TEST(full_ring_eagain)
{
	static unsigned char buf[16384];
	struct cowbird_resp resp[64];
	int64_t id, ids[16];
	struct env e;
	int g, i, n = 0;

	ASSERT_EQ(0, env_up(&e, 1, 4, 16, 0, false));
	g = cowbird_poll_create(e.cb);
	for (i = 0; i < 16; i++) {
		ids[i] = cowbird_async_write(e.cb, RID, buf, i * 8, 8);
		ASSERT_LE(0, ids[i]);
	}
	EXPECT_EQ(-EAGAIN, cowbird_async_write(e.cb, RID, buf, 0, 8));
	EXPECT_EQ(-EAGAIN, cowbird_async_read(e.cb, RID, 0, buf, 8));

	/* Complete and reaped, but not consumed: the ring stays full. */
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, g, resp, 64, 0));
	EXPECT_EQ(-EAGAIN, cowbird_async_write(e.cb, RID, buf, 0, 8));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(1, cowbird_done(e.cb, ids[i]));	/* consumes */

	/*
	 * The engine drains it and a poll reaps it: data head and tail at 128.
	 * Three 16 KB payloads fit before the buffer's end; a fourth would wrap
	 * to the next lap and overrun the head; 16000 bytes still fit before the
	 * end, after which even 300 bytes would wrap.
	 */
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, g, resp, 64, 0));
	for (i = 0; i < 4; i++) {
		id = cowbird_async_write(e.cb, RID, buf, 0, i < 3 ? sizeof(buf) : 16000);
		ASSERT_LE(0, id);
		ASSERT_EQ(0, cowbird_poll_add(e.cb, g, id));
		if (i == 2)
			EXPECT_EQ(-EAGAIN, cowbird_async_write(e.cb, RID, buf, 0, sizeof(buf)));
	}
	EXPECT_EQ(-EAGAIN, cowbird_async_read(e.cb, RID, 0, buf, 300));
	id = cowbird_async_read(e.cb, RID, 0, buf, 255);
	EXPECT_LE(0, id);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, id));
	ASSERT_EQ(0, cowbird_standin_start(e.sd));
	while (n < 5) {
		int got = cowbird_poll_wait(e.cb, g, resp + n, 5 - n, 1000000);

		ASSERT_LT(0, got);
		n += got;
	}
	EXPECT_LE(0, cowbird_async_write(e.cb, RID, buf, 0, sizeof(buf)));
	env_down(&e);
}

TEST(poll_groups)
{
	unsigned char b[64], rb[32] = { 0 };
	struct cowbird_resp resp[4];
	int64_t a, c, d;
	struct env e;
	int g, h;

	ASSERT_EQ(0, env_up(&e, 2, 6, 14, 0, false));
	g = cowbird_poll_create(e.cb);
	h = cowbird_poll_create(e.cb);
	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	ASSERT_NE(g, h);
	memset(b, 0xab, sizeof(b));
	a = cowbird_async_write(e.cb, RID, b, 100, sizeof(b));
	c = cowbird_async_read(e.cb, RID, 100, rb, 32);
	ASSERT_LE(0, a);
	ASSERT_LE(0, c);
	EXPECT_EQ(COWBIRD_RW_WRITE, COWBIRD_REQ_TYPE(a));
	EXPECT_EQ(COWBIRD_RW_READ, COWBIRD_REQ_TYPE(c));
	EXPECT_EQ(RID, COWBIRD_REQ_REGION(a));
	EXPECT_EQ(COWBIRD_REQ_SEQ(a) + 1, COWBIRD_REQ_SEQ(c));

	/* Bad ids and groups. */
	EXPECT_EQ(-EINVAL, cowbird_poll_add(e.cb, g, -1));
	EXPECT_EQ(-EINVAL, cowbird_poll_add(e.cb, 63, a));
	EXPECT_EQ(-EINVAL, cowbird_poll_add(e.cb, g, COWBIRD_REQ_ID(1, 9, RID, 0)));
	EXPECT_EQ(-EINVAL, cowbird_poll_add(e.cb, g, COWBIRD_REQ_ID(1, 0, RID + 1, 0)));
	EXPECT_EQ(-ENOENT, cowbird_poll_add(e.cb, g, a + 1000));
	EXPECT_EQ(-EINVAL, cowbird_async_read(e.cb, RID + 1, 0, b, 8));
	EXPECT_EQ(-EINVAL, cowbird_async_read(e.cb, RID, 0, b, 0));
	EXPECT_EQ(-EFAULT, cowbird_async_read(e.cb, RID, REGION - 4, b, 8));

	/* In one group, not two; removed, it is not reported. */
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, a));
	EXPECT_EQ(-EBUSY, cowbird_poll_add(e.cb, h, a));
	EXPECT_EQ(0, cowbird_poll_remove(e.cb, g, a));
	EXPECT_EQ(0, cowbird_poll_add(e.cb, h, a));
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, h, resp, 4, 0));	/* engine idle */
	EXPECT_EQ(0, cowbird_done(e.cb, a));
	EXPECT_EQ(-EBUSY, cowbird_poll_destroy(e.cb, h));

	cowbird_standin_poll(e.sd);
	EXPECT_EQ(1, cowbird_done(e.cb, a));		/* h's: not claimed */
	EXPECT_EQ(1, cowbird_poll_wait(e.cb, h, resp, 4, 1000));	/* reaps, copies */
	EXPECT_EQ(a, resp[0].req_id);
	EXPECT_EQ(sizeof(b), resp[0].length);
	/* Added after it was reaped: delivered at once, with its record. */
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, c));
	EXPECT_EQ(1, cowbird_poll_wait(e.cb, g, resp, 4, 0));
	EXPECT_EQ(c, resp[0].req_id);
	EXPECT_EQ(COWBIRD_RW_READ, resp[0].rw_type);
	EXPECT_EQ(32, resp[0].length);
	EXPECT_EQ(0xab, rb[0]);
	EXPECT_EQ(0xab, rb[31]);
	/* Consumed once: never delivered again; still complete. */
	EXPECT_EQ(-ENOENT, cowbird_poll_add(e.cb, g, c));
	EXPECT_EQ(-ENOENT, cowbird_poll_add(e.cb, h, a));
	EXPECT_EQ(1, cowbird_done(e.cb, c));
	EXPECT_EQ(1, cowbird_done(e.cb, a));
	/* Delivered and removed before it was waited for: dropped. */
	d = cowbird_async_write(e.cb, RID, b, 200, 8);
	ASSERT_LE(0, d);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, d));
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, h, resp, 4, 0));	/* reaps: d to g */
	EXPECT_EQ(0, cowbird_poll_remove(e.cb, g, d));
	EXPECT_EQ(-ENOENT, cowbird_poll_remove(e.cb, g, d));
	EXPECT_EQ(-ENOENT, cowbird_poll_add(e.cb, g, d));
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, g, resp, 4, 1000));
	EXPECT_EQ(0, cowbird_poll_destroy(e.cb, h));
	env_down(&e);
}

/* The engine trusts no book: a tail moved backwards stops the ring. */
TEST(tail_backwards_stops_ring)
{
	struct cowbird_book *book;
	struct cowbird_resp resp;
	unsigned char b[8] = { 0 };
	struct env e;
	int64_t id;
	int g;

	ASSERT_EQ(0, env_up(&e, 1, 4, 12, 0, false));
	book = (struct cowbird_book *)((char *)cowbird_standin_base(e.sd) +
				       cowbird_standin_info(e.sd)->book_off);
	g = cowbird_poll_create(e.cb);
	id = cowbird_async_write(e.cb, RID, b, 0, sizeof(b));
	ASSERT_LE(0, id);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, id));
	cowbird_standin_poll(e.sd);
	ASSERT_EQ(1, cowbird_poll_wait(e.cb, g, &resp, 1, 0));
	__atomic_store_n(&book->tail, 0, __ATOMIC_RELEASE);	/* hostile */
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(COWBIRD_RING_ETAIL, book->error);
	book->tail = COWBIRD_POS(1, 8);				/* put back: stays stopped */
	id = cowbird_async_write(e.cb, RID, b, 0, sizeof(b));
	ASSERT_LE(0, id);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, id));
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(-EPIPE, cowbird_poll_wait(e.cb, g, &resp, 1, 1000));
	env_down(&e);
}

enum { SMALL = 16 };	/* entries of the rings below (meta_order 4) */

/*
 * Issues writes on the ring, each consumed at once by cowbird_done after the
 * stand-in ran, until one fails or 2 * SMALL went through: without a slot
 * held by an unconsumed completion, that is two laps of the ring.
 */
struct lapper {
	struct env *e;
	int group;		/* >= 0: consume by this poll group instead */
	int ok;
	int64_t err;
};

static void *lap(void *arg)
{
	struct lapper *l = arg;
	static unsigned char b[8];
	struct cowbird_resp r;

	for (l->ok = 0, l->err = 0; l->ok < 2 * SMALL; l->ok++) {
		int64_t id = cowbird_async_write(l->e->cb, RID, b, 512, sizeof(b));

		if (id < 0) {
			l->err = id;
			break;
		}
		if (l->group >= 0 && cowbird_poll_add(l->e->cb, l->group, id)) {
			l->err = -EPROTO;
			break;
		}
		cowbird_standin_poll(l->e->sd);
		if (l->group >= 0 ? cowbird_poll_wait(l->e->cb, l->group, &r, 1, 0) != 1 ||
				    r.req_id != id :
				    cowbird_done(l->e->cb, id) != 1) {
			l->err = -EPROTO;
			break;
		}
	}
	return NULL;
}

static int laps(struct env *e, int group, int64_t *err)
{
	struct lapper l = { .e = e, .group = group };
	pthread_t t;

	if (pthread_create(&t, NULL, lap, &l))
		return -1;
	pthread_join(t, NULL);
	*err = l.err;
	return l.ok;
}

/*
 * The race between issuing and poll_add, made deterministic: a read and a
 * write complete and are reaped before anyone adds them to a group, then
 * another thread issues on the same ring (consuming its own) enough to wrap
 * it. Their slots must still hold them: the wrap stops at -EAGAIN, and the
 * late poll_add delivers both, the read's bytes in place. Before the fix
 * the wrap went through and poll_add said -ENOENT.
 */
TEST(completion_before_poll_add)
{
	unsigned char wb[16], rb[32] = { 0 };
	struct cowbird_resp resp[2];
	int64_t wid, rid, err;
	struct env e;
	int g, h, i;

	ASSERT_EQ(0, env_up(&e, 1, 4, 16, 0, false));
	g = cowbird_poll_create(e.cb);
	h = cowbird_poll_create(e.cb);
	ASSERT_LE(0, g);
	ASSERT_LE(0, h);
	memset(e.region + 64, 0x5c, sizeof(rb));
	memset(wb, 0x77, sizeof(wb));
	wid = cowbird_async_write(e.cb, RID, wb, 4096, sizeof(wb));
	rid = cowbird_async_read(e.cb, RID, 64, rb, sizeof(rb));
	ASSERT_LE(0, wid);
	ASSERT_LE(0, rid);
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, h, resp, 2, 0));	/* reaps both */
	EXPECT_EQ(0x5c, rb[0]);

	/* Another producer laps the ring: it stops where our slots are. */
	EXPECT_EQ(SMALL - 2, laps(&e, h, &err));
	EXPECT_EQ(-EAGAIN, err);

	memset(rb, 0, sizeof(rb));	/* copied out once, when reaped: stays 0 */
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, rid));
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, wid));
	ASSERT_EQ(2, cowbird_poll_wait(e.cb, g, resp, 2, 0));
	EXPECT_EQ(rid, resp[0].req_id);
	EXPECT_EQ(COWBIRD_ST_OK, resp[0].status);
	EXPECT_EQ(sizeof(rb), resp[0].length);
	EXPECT_EQ(wid, resp[1].req_id);
	EXPECT_EQ(COWBIRD_ST_OK, resp[1].status);
	EXPECT_EQ(sizeof(wb), resp[1].length);
	EXPECT_EQ(0x77, e.region[4096]);
	for (i = 0; i < (int)sizeof(rb); i++)
		EXPECT_EQ(0, rb[i]);

	/* Consumed: the ring laps freely again. */
	EXPECT_EQ(2 * SMALL, laps(&e, h, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, cowbird_poll_destroy(e.cb, g));
	EXPECT_EQ(0, cowbird_poll_destroy(e.cb, h));
	env_down(&e);
}

/* Every way a completion is consumed frees its slot; until then it holds the ring. */
TEST(consume_paths)
{
	static unsigned char b[64];
	struct cowbird_resp resp[4];
	int64_t id, id2, err;
	struct env e;
	int g, h, k;

	ASSERT_EQ(0, env_up(&e, 1, 4, 16, 0, false));
	g = cowbird_poll_create(e.cb);
	h = cowbird_poll_create(e.cb);
	ASSERT_LE(0, g);
	ASSERT_LE(0, h);

	/* cowbird_done alone: it claims, so the ring laps; asking again says 1. */
	EXPECT_EQ(2 * SMALL, laps(&e, -1, &err));
	EXPECT_EQ(0, err);
	id = cowbird_async_read(e.cb, RID, 0, b, 8);
	ASSERT_LE(0, id);
	EXPECT_EQ(0, cowbird_done(e.cb, id));		/* engine idle */
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(1, cowbird_done(e.cb, id));
	EXPECT_EQ(1, cowbird_done(e.cb, id));
	EXPECT_EQ(-ENOENT, cowbird_poll_add(e.cb, g, id));
	EXPECT_EQ(2 * SMALL, laps(&e, -1, &err));

	/* Complete and never consumed: holds the ring until claimed, however late. */
	id = cowbird_async_write(e.cb, RID, b, 0, 8);
	ASSERT_LE(0, id);
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(SMALL - 1, laps(&e, -1, &err));
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(1, cowbird_done(e.cb, id));
	EXPECT_EQ(2 * SMALL, laps(&e, -1, &err));

	/* Removed before delivery: still owed, holds the ring until added again. */
	id = cowbird_async_write(e.cb, RID, b, 0, 8);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, id));
	EXPECT_EQ(0, cowbird_poll_remove(e.cb, g, id));
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, g, resp, 4, 0));
	EXPECT_EQ(SMALL - 1, laps(&e, -1, &err));
	EXPECT_EQ(-EAGAIN, err);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, h, id));
	ASSERT_EQ(1, cowbird_poll_wait(e.cb, h, resp, 4, 0));
	EXPECT_EQ(id, resp[0].req_id);
	EXPECT_EQ(2 * SMALL, laps(&e, -1, &err));

	/* Delivered, then removed: dropped, and that consumed it. */
	id = cowbird_async_write(e.cb, RID, b, 0, 8);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, g, id));
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, h, resp, 4, 0));	/* reaps: to g */
	EXPECT_EQ(0, cowbird_poll_remove(e.cb, g, id));
	EXPECT_EQ(1, cowbird_done(e.cb, id));
	EXPECT_EQ(2 * SMALL, laps(&e, -1, &err));
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, g, resp, 4, 0));

	/* A group in flight cannot go; once delivered, destroying it drops them. */
	k = cowbird_poll_create(e.cb);
	ASSERT_LE(0, k);
	id = cowbird_async_write(e.cb, RID, b, 0, 8);
	id2 = cowbird_async_read(e.cb, RID, 0, b, 8);
	ASSERT_LE(0, id);
	ASSERT_LE(0, id2);
	ASSERT_EQ(0, cowbird_poll_add(e.cb, k, id));
	ASSERT_EQ(0, cowbird_poll_add(e.cb, k, id2));
	EXPECT_EQ(-EBUSY, cowbird_poll_destroy(e.cb, k));
	cowbird_standin_poll(e.sd);
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, h, resp, 4, 0));	/* reaps: to k */
	EXPECT_EQ(0, cowbird_poll_destroy(e.cb, k));
	EXPECT_EQ(2 * SMALL, laps(&e, -1, &err));

	/* Closed with one unconsumed and one in flight: nothing leaks (ASan). */
	ASSERT_LE(0, cowbird_async_write(e.cb, RID, b, 0, 8));
	cowbird_standin_poll(e.sd);
	ASSERT_LE(0, cowbird_async_read(e.cb, RID, 0, b, 8));
	EXPECT_EQ(0, cowbird_poll_wait(e.cb, h, resp, 4, 0));
	env_down(&e);
}

TEST_HARNESS_MAIN
