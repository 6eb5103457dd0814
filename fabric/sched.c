// SPDX-License-Identifier: GPL-2.0
/*
 * EDM's switch scheduler (paper 3.1.1, 3.1.2): priority PIM over per-pair
 * notification rings.
 *
 * What it owns: one block of caller memory laid out by sched_layout(). The
 * notification queue of destination d is the N rings [d][0..N-1], one per
 * source, each holding at most X messages in arrival order. That bounds the
 * queue at X*N by construction and keeps each pair in order (the paper
 * applies SRPT only across pairs, 3.1.1 property 5): a pair competes with the
 * message at its ring's head, so the head's remaining bytes (SRPT) or its
 * notification number (FCFS) is the pair's priority. Ties in remaining bytes
 * go to the older notification, as the hardware's ordered list keeps equal
 * ranks in insertion order, so no random choice is needed and every run is
 * deterministic.
 *
 * Each destination also keeps its nonempty pairs' sources sorted by that
 * priority (the paper's ordered list, 3.1.2). A PIM request is then the first
 * source in the list that is free; sources only get taken within a step, so
 * a per-destination cursor never moves back and all the iterations of one
 * step read each list at most once. A grant moves one pair in one list
 * (binary search and memmove), which stands in for the hardware's parallel
 * compare-and-shift.
 *
 * Time: the caller passes now in picoseconds (a 64 B chunk lasts 5.12 ns at
 * 100 Gb/s, which nanoseconds cannot hold). A grant of l bytes makes its
 * source's ingress link and its destination's egress link busy until
 * now + l/B; edm_sched_step() frees them when now has passed that point.
 *
 * Locking: none; the caller serializes every call on one scheduler.
 */
#include "edm/core.h"
#include "edm/sched.h"

enum {
	SCHED_WORD_BITS	= 64,
	SCHED_ALIGN	= 8,
	SCHED_NONE	= 0xffff,		/* no free source */
};

struct edm_sched_msg {
	u64 seq;		/* notification number: FCFS key, SRPT tiebreak */
	u32 remaining;		/* bytes not yet granted */
	u8 msg_id;
	u8 kind;		/* enum edm_sched_kind */
	u8 started;		/* a chunk was granted already */
	u8 pad;
};

static inline u32 sched_ctz(u64 v)
{
	return (u32)__builtin_ctzll(v);
}

static inline bool bit_test(const u64 *map, u32 bit)
{
	return map[bit / SCHED_WORD_BITS] & (1ULL << (bit % SCHED_WORD_BITS));
}

static inline void bit_set(u64 *map, u32 bit)
{
	map[bit / SCHED_WORD_BITS] |= 1ULL << (bit % SCHED_WORD_BITS);
}

static inline void bit_clear(u64 *map, u32 bit)
{
	map[bit / SCHED_WORD_BITS] &= ~(1ULL << (bit % SCHED_WORD_BITS));
}

static inline u32 map_words(u32 nports)
{
	return (nports + SCHED_WORD_BITS - 1) / SCHED_WORD_BITS;
}

/* Bits of word w that stand for real ports. */
static inline u64 map_valid(u32 nports, u32 w)
{
	u32 rest = nports - w * SCHED_WORD_BITS;

	return rest >= SCHED_WORD_BITS ? ~0ULL : (1ULL << rest) - 1;
}

/* Reserve bytes at *off; with base NULL only count them. */
static void *carve(u8 *base, size_t *off, size_t bytes)
{
	void *p = base ? base + *off : NULL;

	*off += (bytes + SCHED_ALIGN - 1) & ~(size_t)(SCHED_ALIGN - 1);
	return p;
}

static size_t sched_layout(struct edm_sched *s, u32 n, u32 x)
{
	size_t pairs = (size_t)n * n, words = map_words(n), off = 0;
	u8 *base = (u8 *)s;
	struct edm_sched dummy;

	if (!s)
		s = &dummy;
	carve(base, &off, sizeof(*s));
	s->msg = carve(base, &off, pairs * x * sizeof(*s->msg));
	s->head = carve(base, &off, pairs);
	s->count = carve(base, &off, pairs);
	s->order = carve(base, &off, pairs * sizeof(u16));
	s->len = carve(base, &off, n * sizeof(u16));
	s->has_demand = carve(base, &off, words * sizeof(u64));
	s->src_busy = carve(base, &off, words * sizeof(u64));
	s->dst_busy = carve(base, &off, words * sizeof(u64));
	s->held = carve(base, &off, words * sizeof(u64));
	s->src_until = carve(base, &off, n * sizeof(u64));
	s->dst_until = carve(base, &off, n * sizeof(u64));
	s->depth = carve(base, &off, n * sizeof(u32));
	s->depth_max = carve(base, &off, n * sizeof(u32));
	s->src_free = carve(base, &off, words * sizeof(u64));
	s->dst_todo = carve(base, &off, words * sizeof(u64));
	s->requested = carve(base, &off, words * sizeof(u64));
	s->req_dst = carve(base, &off, n * sizeof(u16));
	s->cursor = carve(base, &off, n * sizeof(u16));
	return off;
}

static bool sched_shape_ok(u32 nports, u32 x)
{
	return nports >= 2 && nports <= EDM_SCHED_MAX_PORTS && x >= 1 && x <= EDM_SCHED_MAX_X;
}

/* Bytes of memory a scheduler of this shape needs; 0 if the shape is invalid. */
size_t edm_sched_size(u32 nports, u32 x)
{
	if (!sched_shape_ok(nports, x))
		return 0;
	return sched_layout(NULL, nports, x);
}

static bool sched_rate_ok(u32 rate_mbps)
{
	return rate_mbps && EDM_SCHED_PS_PER_MBYTE % rate_mbps == 0;
}

int edm_sched_cfg_check(const struct edm_sched_cfg *cfg)
{
	if (!sched_shape_ok(cfg->nports, cfg->x))
		return -EINVAL;
	if (!cfg->chunk || cfg->chunk > EDM_SCHED_MAX_CHUNK)
		return -EINVAL;
	if (!sched_rate_ok(cfg->rate_mbps) || cfg->policy >= EDM_SCHED_NR_POLICIES)
		return -EINVAL;
	return 0;
}

void edm_sched_cfg_default(struct edm_sched_cfg *cfg, u32 nports)
{
	cfg->nports = nports;
	cfg->x = EDM_SCHED_DEFAULT_X;
	cfg->chunk = EDM_SCHED_DEFAULT_CHUNK;
	cfg->rate_mbps = EDM_SCHED_DEFAULT_RATE;
	cfg->policy = EDM_SCHED_SRPT;
}

/*
 * mem holds edm_sched_size(cfg->nports, cfg->x) bytes, 8-byte aligned; on
 * success it is a struct edm_sched.
 */
int edm_sched_init(void *mem, const struct edm_sched_cfg *cfg)
{
	struct edm_sched *s = mem;
	int err;

	err = edm_sched_cfg_check(cfg);
	if (err)
		return err;
	memset(mem, 0, edm_sched_size(cfg->nports, cfg->x));
	sched_layout(s, cfg->nports, cfg->x);
	s->cfg = *cfg;
	s->words = map_words(cfg->nports);
	s->ps_per_byte = EDM_SCHED_PS_PER_MBYTE / cfg->rate_mbps;
	return 0;
}

int edm_sched_set_chunk(struct edm_sched *s, u32 chunk)
{
	if (!chunk || chunk > EDM_SCHED_MAX_CHUNK)
		return -EINVAL;
	s->cfg.chunk = chunk;
	return 0;
}

/* Applies to grants issued from now on; busy links keep their end time. */
int edm_sched_set_rate(struct edm_sched *s, u32 rate_mbps)
{
	if (!sched_rate_ok(rate_mbps))
		return -EINVAL;
	s->cfg.rate_mbps = rate_mbps;
	s->ps_per_byte = EDM_SCHED_PS_PER_MBYTE / rate_mbps;
	return 0;
}

static inline u32 pair_idx(const struct edm_sched *s, u32 src, u32 dst)
{
	return dst * s->cfg.nports + src;
}

static inline struct edm_sched_msg *pair_slot(const struct edm_sched *s, u32 p, u32 i)
{
	return &s->msg[p * s->cfg.x + (s->head[p] + i) % s->cfg.x];
}

static inline struct edm_sched_msg *pair_head(const struct edm_sched *s, u32 src, u32 dst)
{
	u32 p = pair_idx(s, src, dst);

	return &s->msg[p * s->cfg.x + s->head[p]];
}

/* Does message a go before message b? */
static inline bool msg_before(const struct edm_sched *s, const struct edm_sched_msg *a,
			      const struct edm_sched_msg *b)
{
	if (s->cfg.policy == EDM_SCHED_SRPT && a->remaining != b->remaining)
		return a->remaining < b->remaining;
	return a->seq < b->seq;
}

/* Where m goes in dst's list: the first entry not before it. */
static u32 list_find(const struct edm_sched *s, u32 dst, const struct edm_sched_msg *m)
{
	const u16 *order = s->order + dst * s->cfg.nports;
	u32 lo = 0, hi = s->len[dst], mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (msg_before(s, pair_head(s, order[mid], dst), m))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keys are unique (notification numbers are), so the place is exact. */
static void list_insert(struct edm_sched *s, u32 src, u32 dst)
{
	u16 *order = s->order + dst * s->cfg.nports;
	u32 i = list_find(s, dst, pair_head(s, src, dst));

	memmove(order + i + 1, order + i, (s->len[dst] - i) * sizeof(*order));
	order[i] = src;
	s->len[dst]++;
}

static void list_remove(struct edm_sched *s, u32 dst, u32 i)
{
	u16 *order = s->order + dst * s->cfg.nports;

	s->len[dst]--;
	memmove(order + i, order + i + 1, (s->len[dst] - i) * sizeof(*order));
}

/* The lists are sorted by the policy's key: sort them again. */
int edm_sched_set_policy(struct edm_sched *s, u32 policy)
{
	u32 dst, src;

	if (policy >= EDM_SCHED_NR_POLICIES)
		return -EINVAL;
	if (policy == s->cfg.policy)
		return 0;
	s->cfg.policy = policy;
	for (dst = 0; dst < s->cfg.nports; dst++) {
		s->len[dst] = 0;
		for (src = 0; src < s->cfg.nports; src++)
			if (s->count[pair_idx(s, src, dst)])
				list_insert(s, src, dst);
	}
	return 0;
}

static inline bool kind_is_response(u32 kind)
{
	return kind != EDM_SCHED_WRITE;
}

static int notify_check(const struct edm_sched *s, const struct edm_sched_notif *n,
			u32 src, u32 dst)
{
	u32 p, i;

	if (n->port >= s->cfg.nports || n->peer >= s->cfg.nports || n->port == n->peer)
		return -EINVAL;
	if (n->kind >= EDM_SCHED_NR_KINDS || !n->bytes)
		return -EINVAL;
	p = pair_idx(s, src, dst);
	if (s->count[p] >= s->cfg.x)
		return -ENOSPC;
	/* A WREQ's id and an RRES's id come from different hosts' spaces. */
	for (i = 0; i < s->count[p]; i++) {
		const struct edm_sched_msg *m = pair_slot(s, p, i);

		if (m->msg_id == n->msg_id &&
		    kind_is_response(m->kind) == kind_is_response(n->kind))
			return -EEXIST;
	}
	return 0;
}

static void depth_add(struct edm_sched *s, u32 dst, int delta)
{
	s->depth[dst] += delta;
	s->stats.depth += delta;
	if (s->depth[dst] > s->depth_max[dst])
		s->depth_max[dst] = s->depth[dst];
	if (s->stats.depth > s->stats.depth_max)
		s->stats.depth_max = s->stats.depth;
	if (s->depth[dst])
		bit_set(s->has_demand, dst);
	else
		bit_clear(s->has_demand, dst);
}

/*
 * Queue a demand notification: an /N/ for a WREQ, or an RREQ/RMWREQ standing
 * for its RRES. -ENOSPC when the pair already has X active notifications,
 * -EEXIST when the pair holds the same message id for the same direction.
 */
int edm_sched_notify(struct edm_sched *s, const struct edm_sched_notif *n)
{
	bool resp = n->kind != EDM_SCHED_WRITE;
	u32 src = resp ? n->peer : n->port;
	u32 dst = resp ? n->port : n->peer;
	struct edm_sched_msg *m;
	u32 p;
	int err;

	err = notify_check(s, n, src, dst);
	if (err) {
		s->stats.rejected++;
		return err;
	}
	p = pair_idx(s, src, dst);
	m = pair_slot(s, p, s->count[p]);
	m->seq = s->seq++;
	m->remaining = n->bytes;
	m->msg_id = n->msg_id;
	m->kind = n->kind;
	m->started = 0;
	if (!s->count[p]++)
		list_insert(s, src, dst);
	depth_add(s, dst, 1);
	s->stats.notifications++;
	return 0;
}

static void release_map(u64 *busy, const u64 *until, u32 words, u64 now)
{
	u32 w, port;
	u64 bits;

	for (w = 0; w < words; w++) {
		for (bits = busy[w]; bits; bits &= bits - 1) {
			port = w * SCHED_WORD_BITS + sched_ctz(bits);
			if (until[port] <= now)
				bit_clear(busy, port);
		}
	}
}

/* The highest-priority free source with a message to dst; SCHED_NONE if none. */
static u32 best_src(struct edm_sched *s, u32 dst)
{
	const u16 *order = s->order + dst * s->cfg.nports;
	u16 *cur = &s->cursor[dst];

	for (; *cur < s->len[dst]; (*cur)++)
		if (bit_test(s->src_free, order[*cur]))
			return order[*cur];
	return SCHED_NONE;
}

/* PIM step 1: every free destination requests its best free source. */
static bool pim_request(struct edm_sched *s)
{
	u32 w, dst, src, cur;
	bool any = false;
	u64 bits;

	memset(s->requested, 0, s->words * sizeof(u64));
	for (w = 0; w < s->words; w++) {
		for (bits = s->dst_todo[w]; bits; bits &= bits - 1) {
			dst = w * SCHED_WORD_BITS + sched_ctz(bits);
			src = best_src(s, dst);
			if (src == SCHED_NONE) {
				/* Sources only get taken within a step: it stays so. */
				bit_clear(s->dst_todo, dst);
				continue;
			}
			any = true;
			if (bit_test(s->requested, src)) {
				cur = s->req_dst[src];
				if (!msg_before(s, pair_head(s, src, dst), pair_head(s, src, cur)))
					continue;
			}
			bit_set(s->requested, src);
			s->req_dst[src] = dst;
		}
	}
	return any;
}

/* The caller takes the pair off dst's list first. */
static void pair_pop(struct edm_sched *s, u32 src, u32 dst)
{
	u32 p = pair_idx(s, src, dst);
	u32 next = s->head[p] + 1U;

	s->head[p] = next == s->cfg.x ? 0 : next;
	s->count[p]--;
	depth_add(s, dst, -1);
}

/* Grant one chunk of the pair's head message and make both links busy. */
static void grant_one(struct edm_sched *s, u32 src, u32 dst, u64 now,
		      struct edm_sched_grant *g)
{
	struct edm_sched_msg *m = pair_head(s, src, dst);
	u32 len = m->remaining < s->cfg.chunk ? m->remaining : s->cfg.chunk;
	u64 until = now + (u64)len * s->ps_per_byte;

	g->src = src;
	g->dst = dst;
	g->msg_id = m->msg_id;
	g->kind = m->kind;
	g->bytes = len;
	g->flags = m->started ? 0 : EDM_SCHED_GRANT_FIRST;
	/* dst requested src from where its cursor stopped. */
	list_remove(s, dst, s->cursor[dst]);
	m->started = 1;
	m->remaining -= len;
	if (!m->remaining) {
		g->flags |= EDM_SCHED_GRANT_LAST;
		s->stats.messages_done++;
		pair_pop(s, src, dst);
	}
	if (s->count[pair_idx(s, src, dst)])
		list_insert(s, src, dst);
	s->src_until[src] = until;
	s->dst_until[dst] = until;
	bit_set(s->src_busy, src);
	bit_set(s->dst_busy, dst);
	s->stats.grants++;
	s->stats.grant_bytes += len;
}

/* PIM steps 2 and 3: every requested source accepts its best destination. */
static u32 pim_accept(struct edm_sched *s, u64 now, struct edm_sched_grant *g)
{
	u32 w, src, dst, n = 0;
	u64 bits;

	for (w = 0; w < s->words; w++) {
		for (bits = s->requested[w]; bits; bits &= bits - 1) {
			src = w * SCHED_WORD_BITS + sched_ctz(bits);
			dst = s->req_dst[src];
			grant_one(s, src, dst, now, &g[n++]);
			bit_clear(s->src_free, src);
			bit_clear(s->dst_todo, dst);
		}
	}
	return n;
}

static void match_stats(struct edm_sched *s, u32 iters, u32 n)
{
	if (!n)
		return;
	s->stats.matchings++;
	s->stats.iterations += iters;
	if (iters > s->stats.iterations_max)
		s->stats.iterations_max = iters;
	if (n > s->stats.matching_max)
		s->stats.matching_max = n;
	s->stats.iter_hist[iters < EDM_SCHED_ITER_HIST ? iters : EDM_SCHED_ITER_HIST - 1]++;
}

/*
 * Free the links whose chunk has gone by at now, then run PIM iterations
 * until no free destination finds a free source: the result extends the
 * chunks in flight to a maximal matching. grants must have room for nports
 * entries; returns how many it filled, or -EINVAL.
 */
int edm_sched_step(struct edm_sched *s, u64 now_ps, struct edm_sched_grant *grants, u32 max)
{
	u32 w, iters = 0, n = 0;

	if (max < s->cfg.nports)
		return -EINVAL;
	release_map(s->src_busy, s->src_until, s->words, now_ps);
	release_map(s->dst_busy, s->dst_until, s->words, now_ps);
	for (w = 0; w < s->words; w++) {
		s->src_free[w] = ~(s->src_busy[w] | s->held[w]) & map_valid(s->cfg.nports, w);
		s->dst_todo[w] = s->has_demand[w] & ~(s->dst_busy[w] | s->held[w]);
	}
	memset(s->cursor, 0, s->cfg.nports * sizeof(*s->cursor));
	while (pim_request(s)) {
		iters++;
		n += pim_accept(s, now_ps, grants + n);
	}
	match_stats(s, iters, n);
	return n;
}

/* When the next busy link frees up; ~0 if none is busy. */
u64 edm_sched_next_release(const struct edm_sched *s)
{
	u64 next = ~0ULL, bits;
	u32 w, port;

	for (w = 0; w < s->words; w++) {
		for (bits = s->src_busy[w]; bits; bits &= bits - 1) {
			port = w * SCHED_WORD_BITS + sched_ctz(bits);
			if (s->src_until[port] < next)
				next = s->src_until[port];
		}
		for (bits = s->dst_busy[w]; bits; bits &= bits - 1) {
			port = w * SCHED_WORD_BITS + sched_ctz(bits);
			if (s->dst_until[port] < next)
				next = s->dst_until[port];
		}
	}
	return next;
}

/*
 * Hold a port back, or let it go. The paper's switch grants a chunk when
 * both links are free at the line rate; a port whose egress drains slower
 * than that (a software link, a lossy one that retries) would queue
 * without bound. A held port gets no grant, neither to send a chunk nor to
 * receive one, until the caller lets it go; its notifications wait in
 * their queues. No release time is kept: the caller polls a held port.
 */
void edm_sched_hold(struct edm_sched *s, u32 port, bool hold)
{
	if (port >= s->cfg.nports)
		return;
	if (hold)
		bit_set(s->held, port);
	else
		bit_clear(s->held, port);
}

bool edm_sched_held(const struct edm_sched *s, u32 port)
{
	return port < s->cfg.nports && bit_test(s->held, port);
}

static u32 pair_flush(struct edm_sched *s, u32 src, u32 dst)
{
	const u16 *order = s->order + dst * s->cfg.nports;
	u32 n = s->count[pair_idx(s, src, dst)], i;

	if (!n)
		return 0;
	for (i = 0; order[i] != src; i++)
		;
	list_remove(s, dst, i);
	for (i = 0; i < n; i++)
		pair_pop(s, src, dst);
	return n;
}

/*
 * Drop every queued message from or to port (its link went down); chunks in
 * flight keep their links busy until they end. Returns messages dropped.
 */
u32 edm_sched_flush_port(struct edm_sched *s, u32 port)
{
	u32 other, n = 0;

	if (port >= s->cfg.nports)
		return 0;
	for (other = 0; other < s->cfg.nports; other++) {
		n += pair_flush(s, port, other);
		n += pair_flush(s, other, port);
	}
	s->stats.flushed += n;
	return n;
}

u32 edm_sched_depth(const struct edm_sched *s, u32 dst)
{
	return dst < s->cfg.nports ? s->depth[dst] : 0;
}

u32 edm_sched_depth_max(const struct edm_sched *s, u32 dst)
{
	return dst < s->cfg.nports ? s->depth_max[dst] : 0;
}

u32 edm_sched_pair_count(const struct edm_sched *s, u32 src, u32 dst)
{
	if (src >= s->cfg.nports || dst >= s->cfg.nports)
		return 0;
	return s->count[pair_idx(s, src, dst)];
}

/* End of the last chunk granted on the port's ingress (or egress) link. */
u64 edm_sched_busy_until(const struct edm_sched *s, u32 port, bool egress)
{
	if (port >= s->cfg.nports)
		return 0;
	return egress ? s->dst_until[port] : s->src_until[port];
}

/* l/B: how long a chunk of bytes keeps its links busy, in ps. */
u64 edm_sched_busy_ps(const struct edm_sched *s, u32 bytes)
{
	return (u64)bytes * s->ps_per_byte;
}
