// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the shared pool's export slots (the edm_shp_x_* calls of
 * dfabric/shpool_core.c), written from the contract in
 * include/edm/shpool_core.h: an owner claims a slot and a run of Buffers,
 * offers it, an engine takes and answers it, and the slot and its Buffers
 * come back only when nobody can touch the area any more, whoever closes,
 * dies or sweeps first. Hosts are views of one heap range; a host dies by
 * being reaped (its slot goes FREE), never by leaving.
 *
 * The threaded test runs four hosts at once, each owner and engine and
 * sweeper, one of them dying now and then and coming back as a new life.
 * Owners fill their areas with a signature (their tag, the slot, a count);
 * engines check it on every step they serve and write only word 0. A
 * signature found wrong means an area was given to someone while another
 * still used it. At the end every slot and Buffer must be free again.
 * SHPX_SEED=n replays it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "edm/shpool_core.h"

enum { PAGE = 4096, SIZE = 256 * 1024 };

FIXTURE(xp) {
	u8 *base;
	struct edm_shp a, b, c, w;	/* owner, engine, a third host, a watcher */
};

FIXTURE_SETUP(xp)
{
	struct edm_shp_cfg cfg = {
		.nhosts = 4, .buf_shift = EDM_SHP_MIN_BUF_SHIFT,
		.ring_size = 8, .lease_ms = EDM_SHP_MIN_LEASE_MS,
	};
	void *p = NULL;

	ASSERT_EQ(0, posix_memalign(&p, PAGE, SIZE));
	memset(p, 0, SIZE);
	self->base = p;
	ASSERT_EQ(0, edm_shp_format(p, SIZE, &cfg));
	ASSERT_EQ(0, edm_shp_open(&self->a, p, SIZE));
	ASSERT_EQ(0, edm_shp_open(&self->b, p, SIZE));
	ASSERT_EQ(0, edm_shp_open(&self->c, p, SIZE));
	ASSERT_EQ(0, edm_shp_open(&self->w, p, SIZE));
	ASSERT_EQ(0, edm_shp_join(&self->a, "a", (const u8 *)"\2\0\0\0\0\1"));
	ASSERT_EQ(0, edm_shp_join(&self->b, "b", (const u8 *)"\2\0\0\0\0\2"));
	ASSERT_EQ(0, edm_shp_join(&self->c, "c", (const u8 *)"\2\0\0\0\0\3"));
	ASSERT_EQ(16U, self->w.geo.nxports);
}

FIXTURE_TEARDOWN(xp)
{
	free(self->base);
}

/* Buffers whose holder word carries export @i's tag. */
static u32 x_held(const struct edm_shp *v, u32 i)
{
	u32 b, n = 0;

	for (b = 0; b < v->geo.nbufs; b++)
		n += EDM_SHP_WTAG(v->holder[b]) == EDM_SHP_XTAG(i);
	return n;
}

static u32 free_bufs(const struct edm_shp *v)
{
	u32 b, n = 0;

	for (b = 0; b < v->geo.nbufs; b++)
		n += !EDM_SHP_WTAG(v->holder[b]);
	return n;
}

/* Owner @o claims an export for @e of @n Buffers and offers it. */
static u32 offer(struct __test_metadata *_metadata, struct edm_shp *o, const struct edm_shp *e,
		 u32 n)
{
	struct edm_shp_export *x;
	u32 i = ~0U, b = ~0U;

	EXPECT_EQ(0, edm_shp_x_claim(o, e->slot, n, &i, &b));
	if (i >= o->geo.nxports)
		return 0;
	x = edm_shp_x(o, i);
	EXPECT_EQ(b, x->buf);
	x->region_id = 7;
	x->region_key = 0x1234;
	x->nr_rings = 1;
	x->inst_id = 42;
	EXPECT_EQ(0, edm_shp_x_offer(o, i));
	return i;
}

/* The whole life: claim, offer, take, answer, close, sweep. */
TEST_F(xp, offer_serve_close_sweep)
{
	struct edm_shp_export copy;
	u32 before = free_bufs(&self->w), i, k;
	u64 rs = 0;

	i = offer(_metadata, &self->a, &self->b, 5);
	EXPECT_EQ(5U, x_held(&self->w, i));
	EXPECT_EQ(before - 5, free_bufs(&self->w));
	/* the run starts on a page and is inside the pool */
	k = edm_shp_x(&self->w, i)->buf;
	EXPECT_EQ(0U, (u32)((uintptr_t)edm_shp_buf(&self->w, k) % PAGE));
	EXPECT_EQ(-EAGAIN, edm_shp_x_result(&self->a, i, &rs));
	/* only the target sees it */
	EXPECT_EQ(-ENOENT, edm_shp_x_next_offer(&self->c, 0));
	EXPECT_EQ((int)i, edm_shp_x_next_offer(&self->b, 0));
	EXPECT_EQ(0, edm_shp_x_take(&self->b, i, &copy));
	EXPECT_EQ(-EBUSY, edm_shp_x_take(&self->c, i, &copy));
	EXPECT_EQ(7, copy.region_id);
	EXPECT_EQ(0x1234ULL, copy.region_key);
	EXPECT_EQ(5U, copy.nbufs);
	EXPECT_EQ(42U, copy.inst_id);
	EXPECT_EQ(-ENOENT, edm_shp_x_next_offer(&self->b, 0));	/* taken */
	edm_shp_x_answer(&self->b, i, 0, 1 << 20);
	EXPECT_EQ(0, edm_shp_x_result(&self->a, i, &rs));
	EXPECT_EQ(1ULL << 20, rs);
	EXPECT_TRUE(edm_shp_x_wanted(&self->b, i, copy.word));

	/* served and open: nobody frees it */
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->c));
	edm_shp_x_close(&self->a, i);
	EXPECT_FALSE(edm_shp_x_wanted(&self->b, i, copy.word));
	/* closed but the engine has not let go */
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->a));
	EXPECT_EQ(5U, x_held(&self->w, i));
	edm_shp_x_ack(&self->b, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->c));
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->a));		/* once */
	EXPECT_EQ(0U, x_held(&self->w, i));
	EXPECT_EQ(before, free_bufs(&self->w));
	EXPECT_EQ(0ULL, edm_shp_x(&self->w, i)->word);
}

/* A refusal reaches the owner as the engine's errno. */
TEST_F(xp, refused)
{
	struct edm_shp_export copy;
	u32 i = offer(_metadata, &self->a, &self->b, 1);
	u64 rs;

	ASSERT_EQ(0, edm_shp_x_take(&self->b, i, &copy));
	edm_shp_x_answer(&self->b, i, -EACCES, 0);
	edm_shp_x_ack(&self->b, i);
	EXPECT_EQ(-EACCES, edm_shp_x_result(&self->a, i, &rs));
	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));
}

/* Closed before any engine came: the first sweep blocks engines and frees. */
TEST_F(xp, closed_before_taken_is_never_served)
{
	struct edm_shp_export copy;
	u32 before = free_bufs(&self->w);
	u32 i = offer(_metadata, &self->a, &self->b, 3);

	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(-ENOENT, edm_shp_x_next_offer(&self->b, 0));
	/* an engine that saw the offer before the close finds it stale */
	EXPECT_EQ(-ESTALE, edm_shp_x_take(&self->b, i, &copy));
	EXPECT_EQ(0U, edm_shp_x(&self->w, i)->engine);	/* undone */
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->c));	/* blocked, freed */
	EXPECT_EQ(before, free_bufs(&self->w));
	/* and late, on the freed slot: undone again, the slot stays usable */
	EXPECT_EQ(-ESTALE, edm_shp_x_take(&self->b, i, &copy));
	EXPECT_EQ(0U, edm_shp_x(&self->w, i)->engine);

	i = offer(_metadata, &self->a, &self->b, 3);
	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));	/* blocked, freed */
	EXPECT_EQ(before, free_bufs(&self->w));
	/* the slot's next offer is served as usual */
	i = offer(_metadata, &self->a, &self->b, 3);
	EXPECT_EQ((int)i, edm_shp_x_next_offer(&self->b, 0));
	EXPECT_EQ(0, edm_shp_x_take(&self->b, i, &copy));
	EXPECT_EQ(-EBUSY, edm_shp_x_take(&self->c, i, &copy));
}

/* The owner dies while served: the engine lets go, then a sweep frees. */
TEST_F(xp, owner_dies)
{
	struct edm_shp_export copy;
	struct edm_shp a2;
	u32 before = free_bufs(&self->w);
	u32 i = offer(_metadata, &self->a, &self->b, 2);

	ASSERT_EQ(0, edm_shp_x_take(&self->b, i, &copy));
	edm_shp_x_answer(&self->b, i, 0, 4096);
	/* a reap frees the dead life's own Buffers, never the export's */
	edm_shp_reap(&self->c, self->a.slot, edm_shp_host_state(&self->c, self->a.slot));
	EXPECT_EQ(2U, x_held(&self->w, i));
	EXPECT_FALSE(edm_shp_x_wanted(&self->b, i, copy.word));
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->c));	/* the engine may still write */
	edm_shp_x_ack(&self->b, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->c));
	EXPECT_EQ(before, free_bufs(&self->w));

	/* dead before anyone took it: freed at once */
	ASSERT_EQ(0, edm_shp_open(&a2, self->base, SIZE));
	ASSERT_EQ(0, edm_shp_join(&a2, "a2", (const u8 *)"\2\0\0\0\0\4"));
	i = offer(_metadata, &a2, &self->b, 2);
	edm_shp_reap(&self->c, a2.slot, edm_shp_host_state(&self->c, a2.slot));
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->b));
	EXPECT_EQ(-ENOENT, edm_shp_x_next_offer(&self->b, 0));
	EXPECT_EQ(before, free_bufs(&self->w));
}

/* The engine dies while serving: the owner learns it, and its close frees. */
TEST_F(xp, engine_dies)
{
	struct edm_shp_export copy;
	u32 i = offer(_metadata, &self->a, &self->b, 2);
	u64 rs;

	ASSERT_EQ(0, edm_shp_x_take(&self->b, i, &copy));
	edm_shp_x_answer(&self->b, i, 0, 4096);
	EXPECT_FALSE(edm_shp_x_engine_lost(&self->a, i));
	edm_shp_reap(&self->c, self->b.slot, edm_shp_host_state(&self->c, self->b.slot));
	EXPECT_TRUE(edm_shp_x_engine_lost(&self->a, i));
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->c));	/* still its owner's */
	/* the reaped engine, still running, is fenced and cannot ack */
	EXPECT_FALSE(edm_shp_x_wanted(&self->b, i, copy.word));
	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));
	EXPECT_EQ(0U, x_held(&self->w, i));

	/* an offer to a target that is not live is answered by nobody */
	i = offer(_metadata, &self->a, &self->b, 1);
	EXPECT_EQ(-EHOSTDOWN, edm_shp_x_result(&self->a, i, &rs));
	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));
}

/* Claims: bad targets and sizes, no room, every slot taken. */
TEST_F(xp, claim_errors)
{
	u32 i, k, b, got[16];
	u64 hw;

	EXPECT_EQ(-EINVAL, edm_shp_x_claim(&self->a, self->a.slot, 1, &i, &b));
	EXPECT_EQ(-EINVAL, edm_shp_x_claim(&self->a, 4, 1, &i, &b));
	EXPECT_EQ(-EINVAL, edm_shp_x_claim(&self->a, self->b.slot, 0, &i, &b));
	EXPECT_EQ(-ENOTCONN, edm_shp_x_claim(&self->w, self->b.slot, 1, &i, &b));
	EXPECT_EQ(0, edm_shp_x_claim(&self->a, self->b.slot, self->w.geo.nbufs, &i, &b));
	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));
	EXPECT_EQ(0, edm_shp_alloc(&self->c, &k, &hw));	/* one Buffer is taken */
	EXPECT_EQ(-ENOMEM, edm_shp_x_claim(&self->a, self->b.slot, self->w.geo.nbufs, &i, &b));
	EXPECT_EQ(self->w.geo.nbufs - 1, free_bufs(&self->w));	/* all or nothing */
	EXPECT_EQ(0, edm_shp_free(&self->c, k, hw));
	for (k = 0; k < 16; k++)
		ASSERT_EQ(0, edm_shp_x_claim(&self->a, self->b.slot, 1, &got[k], &b));
	EXPECT_EQ(-EBUSY, edm_shp_x_claim(&self->a, self->b.slot, 1, &i, &b));
	/* a claim the owner never offered is freed by its close */
	for (k = 0; k < 16; k++)
		edm_shp_x_close(&self->a, got[k]);
	EXPECT_EQ(16U, edm_shp_x_sweep(&self->b));
	EXPECT_EQ(self->w.geo.nbufs, free_bufs(&self->w));
}

/* A corrupt run is refused by the engine, never served. */
TEST_F(xp, corrupt_run)
{
	struct edm_shp_export copy;
	u32 i = offer(_metadata, &self->a, &self->b, 2);
	u32 saved = edm_shp_x(&self->w, i)->nbufs;

	edm_shp_x(&self->w, i)->nbufs = self->w.geo.nbufs + 1;
	EXPECT_EQ(-EINVAL, edm_shp_x_take(&self->b, i, &copy));
	edm_shp_x(&self->w, i)->nbufs = saved;
	edm_shp_x_answer(&self->b, i, -EINVAL, 0);
	edm_shp_x_ack(&self->b, i);
	edm_shp_x_close(&self->a, i);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));
	EXPECT_EQ(self->w.geo.nbufs, free_bufs(&self->w));
}

/* A sweeper that dies half way (FREEING names it) is finished by another. */
TEST_F(xp, a_dead_sweeper_is_finished)
{
	u32 before = free_bufs(&self->w);
	u32 i = offer(_metadata, &self->a, &self->b, 3);
	struct edm_shp_export *x = edm_shp_x(&self->w, i);

	edm_shp_x_close(&self->a, i);
	x->engine = EDM_SHP_X_BLOCKED;
	/* c swapped to FREEING and died before freeing anything */
	x->word = EDM_SHP_XW(EDM_SHP_X_FREEING, self->c.tag);
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->b));	/* c is live: its job */
	edm_shp_reap(&self->b, self->c.slot, edm_shp_host_state(&self->b, self->c.slot));
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->b));
	EXPECT_EQ(0ULL, x->word);
	EXPECT_EQ(before, free_bufs(&self->w));
}

/* An ack counts only from the engine the slot has: a stale life's does not. */
TEST_F(xp, a_stale_ack_does_not_count)
{
	struct edm_shp_export copy;
	u32 i = offer(_metadata, &self->a, &self->b, 2);
	struct edm_shp_export *x = edm_shp_x(&self->w, i);

	ASSERT_EQ(0, edm_shp_x_take(&self->b, i, &copy));
	edm_shp_x_answer(&self->b, i, 0, 4096);
	edm_shp_x_close(&self->a, i);
	x->ack = self->c.tag;			/* an old engine of the slot, late */
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->a));
	edm_shp_x_ack(&self->c, i);		/* not its engine: ignored */
	EXPECT_EQ(self->c.tag, x->ack);
	EXPECT_EQ(0U, edm_shp_x_sweep(&self->a));
	edm_shp_x_ack(&self->b, i);
	EXPECT_EQ(self->b.tag, x->ack);
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->a));
	/* and an answer from a life that is not the slot's engine is dropped */
	i = offer(_metadata, &self->a, &self->b, 1);
	edm_shp_x_answer(&self->c, i, 0, 4096);
	EXPECT_EQ((u32)EDM_SHP_XR_PENDING, edm_shp_x(&self->w, i)->result);
}

/* An owner reaped between claim and offer cannot publish; a sweep frees the claim. */
TEST_F(xp, offer_after_reap_fails)
{
	u32 before = free_bufs(&self->w), i, b;

	ASSERT_EQ(0, edm_shp_x_claim(&self->a, self->b.slot, 4, &i, &b));
	edm_shp_reap(&self->c, self->a.slot, edm_shp_host_state(&self->c, self->a.slot));
	EXPECT_EQ(-ENOTCONN, edm_shp_x_offer(&self->a, i));
	EXPECT_EQ(-ENOENT, edm_shp_x_next_offer(&self->b, 0));
	EXPECT_EQ(1U, edm_shp_x_sweep(&self->b));
	EXPECT_EQ(before, free_bufs(&self->w));
}

/* ---- many hosts at once ---- */

#ifdef __SANITIZE_THREAD__
#define SHPX_SLOW	4
#else
#define SHPX_SLOW	1
#endif

static u32 rnd32(unsigned int *seed)
{
	return (u32)rand_r(seed) << 16 ^ (u32)rand_r(seed);
}

enum { TH = 4, STEPS = 20000, MAXX = 3, DEATHS_MIN = 4 };

struct xrec {			/* an export a thread owns or serves */
	u32 i, n, buf;
	u64 word;
	u64 sig;
};

struct th {
	pthread_t t;
	int nr;
	u8 *base;
	struct edm_shp v;
	unsigned int seed;
	struct xrec own[MAXX], srv[4 * MAXX];
	int nown, nsrv;
	u32 deaths, offers, served, bad, freed;
	char why[160];
	volatile int *dead;	/* per slot: set by a dying host for the others to reap */
};

static u64 *area(struct th *h, u32 buf)
{
	return edm_shp_buf(&h->v, buf);
}

/* Words 1.. of an area of @n Buffers hold @sig + k; word 0 is the engine's. */
static void sig_fill(struct th *h, u32 buf, u32 n, u64 sig)
{
	u64 *w = area(h, buf), k, nw = (u64)n * edm_shp_buf_size(&h->v) / 8;

	for (k = 1; k < nw; k++)
		__atomic_store_n(&w[k], sig + k, __ATOMIC_RELAXED);
}

static int sig_ok(struct th *h, u32 buf, u32 n, u64 sig)
{
	u64 *w = area(h, buf), k, nw = (u64)n * edm_shp_buf_size(&h->v) / 8;

	for (k = 1; k < nw; k++)
		if (__atomic_load_n(&w[k], __ATOMIC_RELAXED) != sig + k)
			return 0;
	return 1;
}

static void th_bad(struct th *h, const char *what, u32 i)
{
	if (!h->bad++)
		snprintf(h->why, sizeof(h->why), "host %d: %s (export %u)", h->nr, what, i);
}

static void own_step(struct th *h)
{
	struct xrec *x;
	u32 target, i, b, n;
	u64 rs;
	int k, err;

	if (h->nown && rnd32(&h->seed) % 2) {
		k = rnd32(&h->seed) % h->nown;
		x = &h->own[k];
		if (!sig_ok(h, x->buf, x->n, x->sig))
			th_bad(h, "an owner's area changed under it", x->i);
		err = edm_shp_x_result(&h->v, x->i, &rs);
		if (err == -EAGAIN && rnd32(&h->seed) % 4)
			return;
		edm_shp_x_close(&h->v, x->i);
		h->own[k] = h->own[--h->nown];
		return;
	}
	if (h->nown == MAXX)
		return;
	target = rnd32(&h->seed) % TH;
	n = 1 + rnd32(&h->seed) % 3;
	if (edm_shp_x_claim(&h->v, target, n, &i, &b))
		return;
	x = &h->own[h->nown++];
	*x = (struct xrec){ .i = i, .n = n, .buf = b,
			    .sig = (u64)h->v.tag << 32 | (u64)i << 24 | (h->offers & 0xffff) << 8 };
	sig_fill(h, b, n, x->sig);
	edm_shp_x(&h->v, i)->inst_id = (u32)(x->sig >> 8);	/* the engine checks with it */
	edm_shp_x(&h->v, i)->region_key = x->sig;
	if (edm_shp_x_offer(&h->v, i)) {
		edm_shp_x_close(&h->v, i);
		h->nown--;
		return;
	}
	h->offers++;
}

static void srv_step(struct th *h)
{
	struct edm_shp_export copy;
	int i, k;

	for (k = 0; k < h->nsrv; k++) {
		struct xrec *x = &h->srv[k];

		if (!edm_shp_x_wanted(&h->v, x->i, x->word)) {
			edm_shp_x_ack(&h->v, x->i);
			h->srv[k--] = h->srv[--h->nsrv];
			continue;
		}
		/* serving: the owner's words are as it wrote them, ours is word 0 */
		if (!sig_ok(h, x->buf, x->n, x->sig))
			th_bad(h, "an area changed under its engine", x->i);
		__atomic_store_n(area(h, x->buf), (u64)h->v.tag, __ATOMIC_RELAXED);
	}
	i = edm_shp_x_next_offer(&h->v, 0);
	if (i < 0 || h->nsrv == 4 * MAXX)
		return;
	if (edm_shp_x_take(&h->v, i, &copy))
		return;
	edm_shp_x_answer(&h->v, i, 0, 4096);
	h->srv[h->nsrv++] = (struct xrec){ .i = i, .n = copy.nbufs, .buf = copy.buf,
					   .word = copy.word, .sig = copy.region_key };
	h->served++;
}

/* Die holding what it holds (it forgets it all), be reaped, join as a new life. */
static void die_and_return(struct th *h)
{
	struct edm_shp reaper;
	u32 slot = h->v.slot;

	h->nown = h->nsrv = 0;
	if (edm_shp_open(&reaper, h->base, SIZE))
		th_bad(h, "cannot open", slot);
	edm_shp_reap(&reaper, slot, edm_shp_host_state(&reaper, slot));
	if (EDM_SHP_HW_STATE(edm_shp_host_state(&reaper, slot)) == EDM_SHP_H_LIVE)
		th_bad(h, "still live after its reap", slot);
	if (edm_shp_open(&h->v, h->base, SIZE) ||
	    edm_shp_join(&h->v, "again", (const u8 *)"\2\0\0\0\0\11"))
		th_bad(h, "cannot join again", slot);
	h->deaths++;
}

static void *th_run(void *arg)
{
	struct th *h = arg;
	u32 k;

	for (k = 0; k < STEPS / SHPX_SLOW && !h->bad; k++) {
		/* besides at random, host 0 dies at least DEATHS_MIN times a run */
		if (h->nr == 0 && k % (STEPS / SHPX_SLOW / DEATHS_MIN) == STEPS / SHPX_SLOW / 8) {
			die_and_return(h);
			continue;
		}
		switch (rnd32(&h->seed) % 8) {
		case 0: case 1: case 2:
			own_step(h);
			break;
		case 3: case 4: case 5:
			srv_step(h);
			break;
		case 6:
			h->freed += edm_shp_x_sweep(&h->v);
			break;
		default:
			if (h->nr == 0 && rnd32(&h->seed) % 100 == 0)
				die_and_return(h);
		}
	}
	/* the end: close what we own */
	while (h->nown)
		edm_shp_x_close(&h->v, h->own[--h->nown].i);
	return NULL;
}

TEST(hosts_at_once_own_serve_sweep_and_die)
{
	const char *env = getenv("SHPX_SEED");
	unsigned int seed = env ? strtoul(env, NULL, 0) : (unsigned int)time(NULL);
	struct edm_shp_cfg cfg = {
		.nhosts = TH, .buf_shift = EDM_SHP_MIN_BUF_SHIFT,
		.ring_size = 8, .lease_ms = EDM_SHP_MIN_LEASE_MS,
	};
	struct th h[TH] = {};
	u32 k, nfree = 0, deaths = 0, offers = 0, served = 0, freed = 0, round;
	struct edm_shp w;
	void *p = NULL;
	u8 *base;

	ASSERT_EQ(0, posix_memalign(&p, PAGE, SIZE));
	base = memset(p, 0, SIZE);
	ASSERT_EQ(0, edm_shp_format(base, SIZE, &cfg));
	ASSERT_EQ(0, edm_shp_open(&w, base, SIZE));
	for (k = 0; k < TH; k++) {
		h[k].nr = k;
		h[k].base = base;
		h[k].seed = seed * 31 + k;
		ASSERT_EQ(0, edm_shp_open(&h[k].v, base, SIZE));
		ASSERT_EQ(0, edm_shp_join(&h[k].v, "h", (const u8 *)"\2\0\0\0\0\1"));
	}
	for (k = 0; k < TH; k++)
		ASSERT_EQ(0, pthread_create(&h[k].t, NULL, th_run, &h[k]));
	for (k = 0; k < TH; k++)
		pthread_join(h[k].t, NULL);
	for (k = 0; k < TH; k++) {
		EXPECT_EQ(0U, h[k].bad) TH_LOG("seed %u: %s", seed, h[k].why);
		deaths += h[k].deaths;
		offers += h[k].offers;
		served += h[k].served;
	}
	/* engines let go of what was closed; then the sweeps free everything */
	for (round = 0; round < 3; round++) {
		for (k = 0; k < TH; k++)
			srv_step(&h[k]);
		for (k = 0; k < TH; k++)
			freed += edm_shp_x_sweep(&h[k].v);
	}
	for (k = 0; k < TH; k++)
		freed += h[k].freed;
	for (k = 0; k < w.geo.nxports; k++)
		EXPECT_EQ(0ULL, edm_shp_x(&w, k)->word) TH_LOG("seed %u: slot %u", seed, k);
	for (k = 0; k < w.geo.nbufs; k++)
		nfree += !EDM_SHP_WTAG(w.holder[k]);
	EXPECT_EQ(w.geo.nbufs, nfree) TH_LOG("seed %u", seed);
	TH_LOG("seed %u: %u offers, %u taken by engines, %u slots freed, host 0 died %u times",
	       seed, offers, served, freed, deaths);
	EXPECT_LT(0U, served);
	EXPECT_LE((u32)DEATHS_MIN, deaths);
	free(base);
}

TEST_HARNESS_MAIN
