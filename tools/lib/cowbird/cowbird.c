// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcowbird: the compute-node side of Cowbird (Cowbird 4.1 to 4.3).
 *
 * What it owns: the mapping of one instance (rings, books, data buffers, see
 * <linux/cowbird.h>), a private shadow of every entry slot (where a read's
 * bytes go, where its payload ends, its completion once reaped), and the
 * poll groups.
 *
 * Threads and locking:
 *   - issuing (async_read, async_write) is lock-free: a thread picks its ring
 *     once (round robin over threads), reserves an entry and its bytes with
 *     one compare-and-swap on the ring's book.tail, fills the slot's shadow,
 *     its payload and the entry, and stores rw_type last with release;
 *   - reaping a ring (copying finished reads out of the response buffer,
 *     freeing slots in order, publishing book.head) is done by whichever
 *     thread polls, under the ring's try-lock `reaping`: a thread that finds
 *     it taken moves on, as the holder does the work;
 *   - a slot's shadow `tag` (the entry index and the slot's state) is the one
 *     word the reaper, poll_add, poll_remove and cowbird_done race on; each
 *     moves it with compare-and-swap, so exactly one of them consumes the
 *     completion;
 *   - each poll group has a spin lock over its ready list and its count of
 *     members in flight; the reaper takes it to deliver.
 *
 * Every issued request's completion is consumed exactly once: delivered to a
 * poll group (the group's ready list then holds the copy), or claimed by
 * cowbird_done(). A slot is freed (book.head moved past it) only once it is
 * complete *and* consumed, and head moves in order, so an unconsumed
 * completion holds back the reuse of every later slot; a ring held that way
 * says -EAGAIN. Hence a completion can never be lost by arriving before
 * poll_add: its slot, resp included, waits for it.
 *
 * The engine is trusted: its records and counters are used as read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cowbird.h"

#define load_acq(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define load_rlx(p)		__atomic_load_n(p, __ATOMIC_RELAXED)
#define store_rel(p, v)		__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define store_rlx(p, v)		__atomic_store_n(p, v, __ATOMIC_RELAXED)
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

/*
 * A slot's state, the low half of its tag (the high half is the entry index):
 *   PENDING  -> group + 1	poll_add before the completion is reaped
 *   PENDING  -> REAPED	the reaper filled resp; nobody asked for it yet
 *   PENDING  -> CONSUMED	cowbird_done() claimed a complete, unreaped write
 *   group+1  -> PENDING	poll_remove before delivery
 *   group+1  -> CONSUMED	the reaper delivered it to the group
 *   REAPED   -> CONSUMED	poll_add delivered it, or cowbird_done() claimed it
 * Only a CONSUMED slot is freed, and only while complete.
 */
enum {
	TAG_PENDING	= 0,		/* in flight or unreaped, in no group */
	TAG_CONSUMED	= 0xfffffffeu,	/* completion consumed: the slot may be freed */
	TAG_REAPED	= 0xffffffffu,	/* completion in the shadow's resp, unconsumed */
	SPINS_BEFORE_YIELD = 64,
};

struct cb_slot {
	uint64_t tag;		/* index << 32 | state: TAG_* or group + 1 */
	void *dest;		/* read: where the bytes go */
	uint32_t place;		/* offset of the payload in its data buffer */
	uint32_t data_end;	/* data position after the payload */
	uint32_t length;
	uint16_t rw_type;
	uint16_t pad;
	struct cowbird_resp resp;
};

struct cb_ring {
	struct cowbird_book *book;
	struct cowbird_meta *meta;
	struct cowbird_cqe *cq;
	uint8_t *req;
	uint8_t *resp;
	struct cb_slot *slots;
	uint32_t mask;
	uint32_t nr;		/* this ring's number */
	/* Reaper state, protected by reaping. */
	int reaping;
	uint32_t rd_copied;	/* every read below is delivered */
	uint32_t wr_seen;	/* every write below is delivered */
	uint32_t free;		/* entries freed, as book.head */
	uint32_t dfree;		/* data freed, as book.head */
} __attribute__((aligned(64)));

/*
 * Under lock: ready[head, nready) waits for poll_wait; pending members are
 * in flight. poll_add keeps (nready - head) + pending <= cap, so delivery
 * never allocates and cannot fail.
 */
struct cb_group {
	int lock;		/* protects all below but used */
	int used;
	int pending;		/* members added, not yet delivered (read unlocked) */
	int pad;
	struct cowbird_resp *ready;
	uint32_t head, nready, cap;
} __attribute__((aligned(64)));

struct cowbird {
	uint8_t *base;
	uint64_t map_size;
	uint64_t region_size;
	int fd;			/* -1 when attached */
	uint32_t nr_rings;
	uint32_t entries;
	uint32_t data_size;
	uint16_t region_id;
	struct cb_ring *rings;
	struct cb_group groups[COWBIRD_MAX_GROUPS];
};

static uint32_t next_thread;
static __thread uint32_t my_thread;	/* 0: not yet numbered */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void spin_lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (load_rlx(l))
			cpu_relax();
}

static void spin_unlock(int *l)
{
	store_rel(l, 0);
}

static inline bool before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline struct cb_ring *my_ring(struct cowbird *cb)
{
	if (unlikely(!my_thread))
		my_thread = __atomic_add_fetch(&next_thread, 1, __ATOMIC_RELAXED);
	return &cb->rings[(my_thread - 1) % cb->nr_rings];
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- poll groups ---- */

/* Makes room for one more completion, in flight or ready; under g->lock. */
static int group_reserve(struct cb_group *g)
{
	uint32_t need = g->nready - g->head + (uint32_t)g->pending + 1, cap;
	struct cowbird_resp *n;

	if (need <= g->cap)
		return 0;
	cap = g->cap ? g->cap * 2 : 64;
	if (cap < need)
		cap = need;
	n = realloc(g->ready, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	g->ready = n;
	g->cap = cap;
	return 0;
}

/* Under g->lock, with room reserved by group_reserve(). */
static void group_push(struct cb_group *g, const struct cowbird_resp *r)
{
	if (g->nready == g->cap) {
		memmove(g->ready, g->ready + g->head, (g->nready - g->head) * sizeof(*r));
		g->nready -= g->head;
		g->head = 0;
	}
	g->ready[g->nready++] = *r;
}

/*
 * The reaper found slot idx complete, resp filled: hands it to the group
 * that asked for it (consumed), or leaves it REAPED for a later poll_add or
 * cowbird_done (the release publishes resp to them). A slot claimed already
 * (CONSUMED) needs nothing.
 */
static void deliver(struct cowbird *cb, struct cb_slot *s, uint32_t idx)
{
	uint64_t want = (uint64_t)idx << 32, cur = load_acq(&s->tag);
	struct cb_group *g;

	for (;;) {
		uint32_t st = (uint32_t)cur;

		if (st == TAG_CONSUMED || st == TAG_REAPED || (cur >> 32) != idx)
			return;		/* the last cannot happen: the slot is ours */
		if (st == TAG_PENDING) {
			if (__atomic_compare_exchange_n(&s->tag, &cur, want | TAG_REAPED, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return;
			continue;
		}
		/* In group st - 1: deliver under its lock, so poll_remove sees either. */
		g = &cb->groups[st - 1];
		spin_lock(&g->lock);
		if (__atomic_compare_exchange_n(&s->tag, &cur, want | TAG_CONSUMED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			group_push(g, &s->resp);
			store_rel(&g->pending, g->pending - 1);
			spin_unlock(&g->lock);
			return;
		}
		spin_unlock(&g->lock);
	}
}

static void resp_fill(struct cowbird *cb, struct cb_ring *r, struct cb_slot *s, uint32_t idx)
{
	const struct cowbird_cqe *c = &r->cq[idx & r->mask];

	s->resp.req_id = COWBIRD_REQ_ID(s->rw_type, r->nr, cb->region_id, idx);
	s->resp.status = c->status;
	s->resp.rw_type = s->rw_type;
	s->resp.length = c->length;
	s->resp.issue_delay_ns = c->issue_delay_ns;
	s->resp.total_delay_ns = c->total_delay_ns;
	if (c->index != idx && s->resp.status == COWBIRD_ST_OK)
		s->resp.status = COWBIRD_ST_EINVAL;	/* engine bug: say so */
}

/*
 * Reaps one ring: delivers every read the engine finished (copying its bytes
 * out) and every finished write, then frees slots in order while each is
 * finished and consumed, and publishes the new head. Returns without waiting
 * if another thread reaps.
 */
static void reap(struct cowbird *cb, struct cb_ring *r)
{
	uint32_t rd, wr, lim, i, free0;

	if (load_rlx(&r->reaping) || __atomic_exchange_n(&r->reaping, 1, __ATOMIC_ACQUIRE))
		return;
	rd = load_acq(&r->book->rd_done);
	wr = load_acq(&r->book->wr_done);

	for (i = r->rd_copied; i != rd; i++) {
		struct cb_slot *s = &r->slots[i & r->mask];

		if (s->rw_type != COWBIRD_RW_READ)
			continue;
		resp_fill(cb, r, s, i);
		if (s->resp.status == COWBIRD_ST_OK)
			memcpy(s->dest, r->resp + s->place, s->length);
		deliver(cb, s, i);
	}
	store_rel(&r->rd_copied, rd);

	for (i = r->wr_seen; i != wr; i++) {
		struct cb_slot *s = &r->slots[i & r->mask];

		if (s->rw_type == COWBIRD_RW_READ)
			continue;
		resp_fill(cb, r, s, i);
		deliver(cb, s, i);
	}
	r->wr_seen = wr;

	/* Shadows past both counters may be being written by a producer. */
	lim = before(rd, wr) ? wr : rd;
	free0 = r->free;
	for (i = r->free; before(i, lim); i++) {
		struct cb_slot *s = &r->slots[i & r->mask];

		if (!before(i, s->rw_type == COWBIRD_RW_READ ? rd : wr))
			break;
		/* Not consumed yet: it, and all after it, wait (head is in order). */
		if (load_acq(&s->tag) != ((uint64_t)i << 32 | TAG_CONSUMED))
			break;
		store_rlx(&r->meta[i & r->mask].rw_type, COWBIRD_RW_EMPTY);
		r->dfree = s->data_end;
	}
	if (i != free0) {
		r->free = i;
		store_rel(&r->book->head, COWBIRD_POS(r->free, r->dfree));
	}
	store_rel(&r->reaping, 0);
}

/* ---- issuing ---- */

/* Reserves an entry and len bytes; the entry's index, or -EAGAIN when full. */
static int64_t reserve(struct cowbird *cb, struct cb_ring *r, uint32_t len, uint32_t *place,
		       uint32_t *end)
{
	uint64_t tail = load_rlx(&r->book->tail), head;
	uint32_t idx;

	do {
		head = load_acq(&r->book->head);
		idx = COWBIRD_POS_IDX(tail);
		if (idx - COWBIRD_POS_IDX(head) >= cb->entries)
			return -EAGAIN;
		*place = cowbird_data_place(COWBIRD_POS_DATA(tail), len, cb->data_size);
		*end = *place + len;
		if (*end - COWBIRD_POS_DATA(head) > cb->data_size)
			return -EAGAIN;
	} while (!__atomic_compare_exchange_n(&r->book->tail, &tail, COWBIRD_POS(idx + 1, *end),
					      true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return idx;
}

static int64_t issue(struct cowbird *cb, uint16_t type, uint16_t region_id, uint64_t remote,
		     void *local, uint32_t len)
{
	struct cb_ring *r = my_ring(cb);
	struct cowbird_meta *m;
	struct cb_slot *s;
	uint32_t place, end, idx;
	int64_t ret;

	if (unlikely(region_id != cb->region_id || !len || len > cb->data_size / 2))
		return -EINVAL;
	if (unlikely(remote > cb->region_size || len > cb->region_size - remote))
		return -EFAULT;

	ret = reserve(cb, r, len, &place, &end);
	if (unlikely(ret < 0)) {
		reap(cb, r);
		ret = reserve(cb, r, len, &place, &end);
		if (ret < 0)
			return load_rlx(&r->book->error) ? -EPIPE : ret;
	}
	idx = (uint32_t)ret;
	place &= cb->data_size - 1;

	s = &r->slots[idx & r->mask];
	s->dest = local;
	s->place = place;
	s->data_end = end;
	s->length = len;
	s->rw_type = type;
	store_rlx(&s->tag, (uint64_t)idx << 32 | TAG_PENDING);

	m = &r->meta[idx & r->mask];
	m->region_id = region_id;
	m->length = len;
	m->index = idx;
	m->pad = 0;
	if (type == COWBIRD_RW_WRITE) {
		memcpy(r->req + place, local, len);
		m->req_addr = place;
		m->resp_addr = remote;
	} else {
		m->req_addr = remote;
		m->resp_addr = place;
	}
	store_rel(&m->rw_type, type);
	return COWBIRD_REQ_ID(type, r->nr, region_id, idx);
}

int64_t cowbird_async_read(struct cowbird *cb, uint16_t region_id, uint64_t src, void *dest,
			   uint32_t length)
{
	return issue(cb, COWBIRD_RW_READ, region_id, src, dest, length);
}

int64_t cowbird_async_write(struct cowbird *cb, uint16_t region_id, const void *src,
			    uint64_t dest, uint32_t length)
{
	return issue(cb, COWBIRD_RW_WRITE, region_id, dest, (void *)src, length);
}

/* ---- completions ---- */

static struct cb_ring *id_ring(struct cowbird *cb, int64_t id)
{
	uint16_t type = COWBIRD_REQ_TYPE(id);

	if (id < 0 || (type != COWBIRD_RW_READ && type != COWBIRD_RW_WRITE) ||
	    COWBIRD_REQ_RING(id) >= cb->nr_rings || COWBIRD_REQ_REGION(id) != cb->region_id ||
	    ((uint64_t)id >> 58))
		return NULL;
	return &cb->rings[COWBIRD_REQ_RING(id)];
}

static int id_done(struct cb_ring *r, int64_t id)
{
	uint32_t seq = COWBIRD_REQ_SEQ(id);

	if (COWBIRD_REQ_TYPE(id) == COWBIRD_RW_READ)
		return before(seq, load_acq(&r->rd_copied));
	return before(seq, load_acq(&r->book->wr_done));
}

/*
 * 1 once req_id is complete (a read's bytes in dest), else 0. A complete
 * request in no group is claimed: its completion is consumed here and its
 * slot may be reused. Asking again later still says 1; a request in a group
 * is left to the group.
 */
int cowbird_done(struct cowbird *cb, int64_t req_id)
{
	struct cb_ring *r = id_ring(cb, req_id);
	uint32_t seq = COWBIRD_REQ_SEQ(req_id);
	uint64_t want = (uint64_t)seq << 32, cur;
	struct cb_slot *s;

	if (!r)
		return -EINVAL;
	if (!id_done(r, req_id)) {
		reap(cb, r);
		if (!id_done(r, req_id))
			return 0;
	}
	s = &r->slots[seq & r->mask];
	cur = load_acq(&s->tag);
	/*
	 * Complete: PENDING (a write the reaper has not seen yet) or REAPED
	 * becomes CONSUMED; anything else is consumed or a group's already.
	 */
	while ((cur >> 32) == seq &&
	       ((uint32_t)cur == TAG_PENDING || (uint32_t)cur == TAG_REAPED))
		if (__atomic_compare_exchange_n(&s->tag, &cur, want | TAG_CONSUMED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	return 1;
}

static struct cb_group *group_get(struct cowbird *cb, int poll_id)
{
	if (poll_id < 0 || poll_id >= COWBIRD_MAX_GROUPS || !load_acq(&cb->groups[poll_id].used))
		return NULL;
	return &cb->groups[poll_id];
}

int cowbird_poll_create(struct cowbird *cb)
{
	int i, zero;

	for (i = 0; i < COWBIRD_MAX_GROUPS; i++) {
		zero = 0;
		if (__atomic_compare_exchange_n(&cb->groups[i].used, &zero, 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return i;
	}
	return -EMFILE;
}

/*
 * Frees a group with no member in flight. Completions delivered to it and
 * not yet returned by poll_wait are dropped: they were consumed already.
 */
int cowbird_poll_destroy(struct cowbird *cb, int poll_id)
{
	struct cb_group *g = group_get(cb, poll_id);

	if (!g)
		return -EINVAL;
	spin_lock(&g->lock);
	if (g->pending) {
		spin_unlock(&g->lock);
		return -EBUSY;
	}
	free(g->ready);
	g->ready = NULL;
	g->head = g->nready = g->cap = 0;
	spin_unlock(&g->lock);
	store_rel(&g->used, 0);
	return 0;
}

/*
 * Adds a request to a group, which then consumes its completion: at once if
 * it is already reaped (its slot waits for it, however long ago it
 * completed), else when the reaper finds it. -ENOENT: consumed already, or
 * never issued.
 */
int cowbird_poll_add(struct cowbird *cb, int poll_id, int64_t req_id)
{
	struct cb_group *g = group_get(cb, poll_id);
	struct cb_ring *r = id_ring(cb, req_id);
	uint32_t seq = COWBIRD_REQ_SEQ(req_id);
	uint64_t want = (uint64_t)seq << 32, cur;
	struct cowbird_resp resp;
	struct cb_slot *s;
	int ret;

	if (!g || !r)
		return -EINVAL;
	s = &r->slots[seq & r->mask];
	spin_lock(&g->lock);
	ret = group_reserve(g);
	if (ret)
		goto out;
	cur = load_acq(&s->tag);
	for (;;) {
		if ((cur >> 32) != seq || (uint32_t)cur == TAG_CONSUMED) {
			ret = -ENOENT;
			break;
		}
		if ((uint32_t)cur == TAG_PENDING) {
			if (__atomic_compare_exchange_n(&s->tag, &cur,
							want | (uint32_t)(poll_id + 1), false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				store_rel(&g->pending, g->pending + 1);
				break;
			}
			continue;
		}
		if ((uint32_t)cur != TAG_REAPED) {
			ret = -EBUSY;	/* in a group, maybe this one */
			break;
		}
		/* Reaped: resp is stable until the slot is consumed, by us or another. */
		resp = s->resp;
		if (__atomic_compare_exchange_n(&s->tag, &cur, want | TAG_CONSUMED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			group_push(g, &resp);
			break;
		}
	}
out:
	spin_unlock(&g->lock);
	return ret;
}

/*
 * Takes a request off a group. Not delivered yet: it is in no group again
 * and still to be consumed (poll_add, cowbird_done). Delivered and not yet
 * returned by poll_wait: its completion is dropped, as consumed.
 */
int cowbird_poll_remove(struct cowbird *cb, int poll_id, int64_t req_id)
{
	struct cb_group *g = group_get(cb, poll_id);
	struct cb_ring *r = id_ring(cb, req_id);
	uint32_t seq = COWBIRD_REQ_SEQ(req_id), i;
	uint64_t want = (uint64_t)seq << 32, cur;
	int ret = -ENOENT;

	if (!g || !r)
		return -EINVAL;
	cur = want | (uint32_t)(poll_id + 1);
	spin_lock(&g->lock);
	if (__atomic_compare_exchange_n(&r->slots[seq & r->mask].tag, &cur, want | TAG_PENDING,
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		store_rel(&g->pending, g->pending - 1);
		spin_unlock(&g->lock);
		return 0;
	}
	/* Already delivered: take it off the ready list. */
	for (i = g->head; i < g->nready; i++) {
		if (g->ready[i].req_id == req_id) {
			memmove(&g->ready[i], &g->ready[i + 1],
				(g->nready - i - 1) * sizeof(g->ready[0]));
			g->nready--;
			ret = 0;
			break;
		}
	}
	spin_unlock(&g->lock);
	return ret;
}

/*
 * A hint, read without the lock: a push that moves the list (group_push)
 * may make it read 0 with completions ready, so "empty" is confirmed under
 * the lock (group_idle).
 */
static uint32_t group_ready(struct cb_group *g)
{
	return load_rlx(&g->nready) - load_rlx(&g->head);
}

/* Nothing in flight and nothing ready. */
static bool group_idle(struct cb_group *g)
{
	bool idle;

	if (load_acq(&g->pending))
		return false;
	spin_lock(&g->lock);
	idle = !g->pending && g->head == g->nready;
	spin_unlock(&g->lock);
	return idle;
}

static uint32_t group_take(struct cb_group *g, struct cowbird_resp *out, uint32_t max)
{
	uint32_t n;

	if (!group_ready(g))
		return 0;
	spin_lock(&g->lock);
	n = g->nready - g->head;
	if (n > max)
		n = max;
	memcpy(out, &g->ready[g->head], n * sizeof(*out));
	g->head += n;
	spin_unlock(&g->lock);
	return n;
}

static bool any_ring_error(struct cowbird *cb)
{
	uint32_t i;

	for (i = 0; i < cb->nr_rings; i++)
		if (load_rlx(&cb->rings[i].book->error))
			return true;
	return false;
}

/*
 * Waits until max_ret completions of the group are returned, timeout_us
 * passes (0: do not wait, < 0: no limit), or the group has nothing left in
 * flight. Returns how many, or -EPIPE if it found none and the engine stopped
 * serving a ring.
 */
int cowbird_poll_wait(struct cowbird *cb, int poll_id, struct cowbird_resp *resps, int max_ret,
		      int timeout_us)
{
	struct cb_group *g = group_get(cb, poll_id);
	uint64_t deadline = 0;
	uint32_t n = 0, i, spins = 0;

	if (!g || max_ret < 0)
		return -EINVAL;
	if (timeout_us > 0)
		deadline = now_ns() + (uint64_t)timeout_us * 1000;
	while (n < (uint32_t)max_ret) {
		for (i = 0; i < cb->nr_rings; i++)
			reap(cb, &cb->rings[i]);
		i = group_take(g, resps + n, max_ret - n);
		n += i;
		if (n == (uint32_t)max_ret || !timeout_us)
			break;
		if (group_idle(g))
			break;
		if (!i && any_ring_error(cb) && !n)
			return -EPIPE;
		if (timeout_us > 0 && now_ns() >= deadline)
			break;
		if (i) {
			spins = 0;
		} else if (++spins < SPINS_BEFORE_YIELD) {
			cpu_relax();
		} else {
			spins = 0;
			sched_yield();
		}
	}
	return n;
}

/* ---- setup ---- */

int cowbird_attach(const struct cowbird_create *info, void *base, struct cowbird **cbp)
{
	uint32_t entries, data, i;
	struct cowbird *cb;

	if (!info || !base || !info->nr_rings || info->nr_rings > COWBIRD_MAX_RINGS ||
	    info->meta_order < COWBIRD_META_ORDER_MIN || info->meta_order > COWBIRD_META_ORDER_MAX ||
	    info->data_order < COWBIRD_DATA_ORDER_MIN || info->data_order > COWBIRD_DATA_ORDER_MAX)
		return -EINVAL;
	entries = 1u << info->meta_order;
	data = 1u << info->data_order;

	cb = aligned_alloc(64, sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	memset(cb, 0, sizeof(*cb));
	cb->rings = aligned_alloc(64, info->nr_rings * sizeof(*cb->rings));
	if (!cb->rings) {
		free(cb);
		return -ENOMEM;
	}
	memset(cb->rings, 0, info->nr_rings * sizeof(*cb->rings));
	cb->base = base;
	cb->map_size = info->mmap_size;
	cb->region_size = info->region_size;
	cb->fd = -1;
	cb->nr_rings = info->nr_rings;
	cb->entries = entries;
	cb->data_size = data;
	cb->region_id = info->region_id;

	for (i = 0; i < cb->nr_rings; i++) {
		struct cb_ring *r = &cb->rings[i];
		uint8_t *rb = cb->base + info->ring_off + i * info->ring_stride;

		r->book = (struct cowbird_book *)(cb->base + info->book_off) + i;
		r->meta = (struct cowbird_meta *)(rb + info->meta_off);
		r->cq = (struct cowbird_cqe *)(rb + info->cq_off);
		r->req = rb + info->req_off;
		r->resp = rb + info->resp_off;
		r->mask = entries - 1;
		r->nr = i;
		r->slots = calloc(entries, sizeof(*r->slots));
		if (!r->slots)
			goto err;
		r->free = COWBIRD_POS_IDX(load_acq(&r->book->head));
		r->dfree = COWBIRD_POS_DATA(load_acq(&r->book->head));
		r->rd_copied = r->free;
		r->wr_seen = r->free;
	}
	*cbp = cb;
	return 0;
err:
	while (i--)
		free(cb->rings[i].slots);
	free(cb->rings);
	free(cb);
	return -ENOMEM;
}

int cowbird_open(const struct cowbird_attr *attr, struct cowbird **cbp)
{
	struct cowbird_create c = {
		.abi_version = COWBIRD_ABI_VERSION,
		.region_key = attr->region_key,
		.region_id = attr->region_id,
		.flags = attr->flags,
		.via = attr->via,
		.shpool = attr->shpool,
		.nr_rings = attr->nr_rings,
		.meta_order = attr->meta_order ? attr->meta_order : 8,
		.data_order = attr->data_order ? attr->data_order : 20,
	};
	void *base;
	long cpus;
	int fd, err;

	if (!c.nr_rings) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		c.nr_rings = cpus < 1 ? 1 : cpus > COWBIRD_MAX_RINGS ? COWBIRD_MAX_RINGS : cpus;
	}
	fd = open(attr->dev ? attr->dev : "/dev/" COWBIRD_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, COWBIRD_IOC_CREATE, &c)) {
		err = -errno;
		goto err_fd;
	}
	base = mmap(NULL, c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto err_fd;
	}
	err = cowbird_attach(&c, base, cbp);
	if (err)
		goto err_map;
	(*cbp)->fd = fd;
	return 0;
err_map:
	munmap(base, c.mmap_size);
err_fd:
	close(fd);
	return err;
}

/*
 * Completions not consumed are dropped with everything else; the library
 * touches no dest buffer after this returns (reads are copied out by reaps).
 */
void cowbird_close(struct cowbird *cb)
{
	uint32_t i;

	if (!cb)
		return;
	for (i = 0; i < cb->nr_rings; i++)
		free(cb->rings[i].slots);
	for (i = 0; i < COWBIRD_MAX_GROUPS; i++)
		free(cb->groups[i].ready);
	if (cb->fd >= 0) {
		munmap(cb->base, cb->map_size);
		close(cb->fd);
	}
	free(cb->rings);
	free(cb);
}
