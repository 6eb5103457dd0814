/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of the memory pool core (dfabric/pool_core.c), written apart
 * from it and as plainly as possible: arrays of ints, a holder per Buffer,
 * linear scans, and FAS arithmetic by division and multiplication instead of
 * shifts and masks. pool_core_test.c and fuzz_pool.c drive the core and this
 * model with the same operations and compare every result, every Section's
 * state and every counter after each one.
 *
 * Where the core may choose (which free Buffer, which of several candidate
 * Sections), the model accepts any choice the rules allow, then follows it.
 */
#ifndef _EDM_POOL_REF_H
#define _EDM_POOL_REF_H

#include <stdio.h>
#include <stdlib.h>

#include "edm/pool_core.h"

#ifndef REF_CHECK
#define REF_CHECK(c) do {							\
	if (!(c)) {								\
		fprintf(stderr, "pool_ref.h:%d: %s\n", __LINE__, #c);		\
		abort();							\
	}									\
} while (0)
#endif

enum {
	REF_MAXSEC	= 16,
	REF_MAXFAS	= 64,
	REF_MAXBUF	= 8192,		/* 2 MB / 256 B */
	REF_MAXNODES	= 8,
	REF_SECTION	= 2097152,
};

struct ref_sec {
	int state;			/* enum edm_pool_sec_state */
	int owner, cls, loc;
	long fas;
	int used;			/* Buffers allocated */
	short holder[REF_MAXBUF];	/* -1: free */
};

struct ref_pool {
	struct edm_pool_cfg cfg;
	int nregions;
	long fas[REF_MAXFAS];		/* physical Section or -1 */
	struct ref_sec sec[REF_MAXSEC];
	u64 held[REF_MAXNODES];
	u64 enomem;
};

static inline void ref_init(struct ref_pool *m, const struct edm_pool_cfg *cfg)
{
	int i, j;

	REF_CHECK(cfg->nsections <= REF_MAXSEC && cfg->nnodes <= REF_MAXNODES);
	REF_CHECK((u64)cfg->max_regions * cfg->region_sections <= REF_MAXFAS);
	m->cfg = *cfg;
	m->nregions = 0;
	m->enomem = 0;
	for (i = 0; i < REF_MAXFAS; i++)
		m->fas[i] = -1;
	for (i = 0; i < REF_MAXSEC; i++) {
		m->sec[i].state = EDM_POOL_SEC_UNMAPPED;
		m->sec[i].owner = -1;
		m->sec[i].fas = -1;
		m->sec[i].used = 0;
		for (j = 0; j < REF_MAXBUF; j++)
			m->sec[i].holder[j] = -1;
	}
	for (i = 0; i < REF_MAXNODES; i++)
		m->held[i] = 0;
}

static inline u64 ref_bufsize(const struct ref_pool *m, int cls)
{
	u64 b = 1;
	u32 i;

	for (i = 0; i < m->cfg.min_shift + (u32)cls; i++)
		b *= 2;
	return b;
}

static inline int ref_nbufs(const struct ref_pool *m, int cls)
{
	return (int)(REF_SECTION / ref_bufsize(m, cls));
}

static inline int ref_region_add(struct ref_pool *m, u32 loc, u32 first, u32 count)
{
	u32 i;

	if (loc >= m->cfg.nlocs || !count || count > m->cfg.region_sections)
		return -EINVAL;
	if ((u64)first + count > m->cfg.nsections)
		return -EINVAL;
	if ((u32)m->nregions >= m->cfg.max_regions)
		return -ENOSPC;
	for (i = 0; i < count; i++)
		if (m->sec[first + i].state != EDM_POOL_SEC_UNMAPPED)
			return -EEXIST;
	for (i = 0; i < count; i++) {
		long f = (long)m->nregions * m->cfg.region_sections + i;

		m->fas[f] = first + i;
		m->sec[first + i].fas = f;
		m->sec[first + i].loc = loc;
		m->sec[first + i].state = EDM_POOL_SEC_FREE;
	}
	return m->nregions++;
}

static inline int ref_node_sections(const struct ref_pool *m, int node)
{
	int s, n = 0;

	for (s = 0; s < (int)m->cfg.nsections; s++)
		n += m->sec[s].state == EDM_POOL_SEC_APPLIED && m->sec[s].owner == node;
	return n;
}

static inline bool ref_quota_ok(const struct ref_pool *m, int node)
{
	return !m->cfg.node_quota || ref_node_sections(m, node) < (int)m->cfg.node_quota;
}

static inline bool ref_has_free_at(const struct ref_pool *m, int loc)
{
	int s;

	for (s = 0; s < (int)m->cfg.nsections; s++)
		if (m->sec[s].state == EDM_POOL_SEC_FREE && m->sec[s].loc == loc)
			return true;
	return false;
}

static inline bool ref_has_partial_at(const struct ref_pool *m, int node, int cls, int loc)
{
	int s;

	for (s = 0; s < (int)m->cfg.nsections; s++) {
		const struct ref_sec *x = &m->sec[s];

		if (x->state == EDM_POOL_SEC_APPLIED && x->owner == node && x->cls == cls &&
		    x->loc == loc && x->used < ref_nbufs(m, cls))
			return true;
	}
	return false;
}

/* Where may a request look? kind 'p': a node's non-full Section, 'f': a free one. */
struct ref_choice {
	int err;
	char kind;
	int loc;		/* -1: any location */
};

static inline int ref_class(const struct ref_pool *m, u64 size)
{
	int c;

	if (!size)
		return -EINVAL;
	for (c = 0; c <= (int)(m->cfg.max_shift - m->cfg.min_shift); c++)
		if (size <= ref_bufsize(m, c))
			return c;
	return -E2BIG;
}

/* What an alloc (with_partial) or an apply must pick, per the rules of 4.1. */
static inline struct ref_choice ref_choose(const struct ref_pool *m, int node, int cls, u32 loc,
					  u32 flags, bool with_partial)
{
	struct ref_choice c = { 0, 0, -1 };
	bool quota = ref_quota_ok(m, node);
	int l;

	if (loc != EDM_POOL_LOC_ANY) {
		if (with_partial && ref_has_partial_at(m, node, cls, loc))
			return (struct ref_choice){ 0, 'p', (int)loc };
		if (quota && ref_has_free_at(m, loc))
			return (struct ref_choice){ 0, 'f', (int)loc };
		if (flags & EDM_POOL_F_STRICT) {
			c.err = -ENOMEM;
			return c;
		}
	}
	for (l = 0; with_partial && l < (int)m->cfg.nlocs; l++)
		if (ref_has_partial_at(m, node, cls, l))
			return (struct ref_choice){ 0, 'p', -1 };
	for (l = 0; l < (int)m->cfg.nlocs; l++)
		if (quota && ref_has_free_at(m, l))
			return (struct ref_choice){ 0, 'f', -1 };
	c.err = -ENOMEM;
	return c;
}

/* The core applied Section s: was that allowed? Then follow it. */
static inline void ref_take_section(struct ref_pool *m, int s, int node, int cls,
				    const struct ref_choice *c)
{
	struct ref_sec *x = &m->sec[s];

	REF_CHECK(c->kind == 'f' && x->state == EDM_POOL_SEC_FREE);
	REF_CHECK(c->loc < 0 || x->loc == c->loc);
	x->state = EDM_POOL_SEC_APPLIED;
	x->owner = node;
	x->cls = cls;
	x->used = 0;
}

static inline int ref_apply(struct ref_pool *m, struct edm_pool *p, u32 node, u32 cls, u32 loc,
			    u32 flags)
{
	struct ref_choice c;
	int got;

	got = edm_pool_apply(p, node, cls, loc, flags);
	if (node >= m->cfg.nnodes || cls > m->cfg.max_shift - m->cfg.min_shift ||
	    (loc != EDM_POOL_LOC_ANY && loc >= m->cfg.nlocs)) {
		REF_CHECK(got == -EINVAL);
		return got;
	}
	c = ref_choose(m, node, cls, loc, flags, false);
	if (c.err) {
		REF_CHECK(got == c.err);
		m->enomem++;
		return got;
	}
	REF_CHECK(got >= 0 && got < (int)m->cfg.nsections);
	ref_take_section(m, got, node, cls, &c);
	return got;
}

/* Decode a reference the long way. */
static inline int ref_resolve(const struct ref_pool *m, u32 node, u64 ref, u32 len, int *ps,
			      int *pidx)
{
	u64 fs = ref / REF_SECTION, off = ref % REF_SECTION, bs;
	const struct ref_sec *x;
	long s;
	int idx;

	if (node >= m->cfg.nnodes || !len)
		return -EINVAL;
	if (fs >= (u64)m->cfg.max_regions * m->cfg.region_sections || m->fas[fs] < 0)
		return -EFAULT;
	s = m->fas[fs];
	x = &m->sec[s];
	if (x->state != EDM_POOL_SEC_APPLIED)
		return -ENOENT;
	bs = ref_bufsize(m, x->cls);
	idx = (int)(off / bs);
	if (x->holder[idx] < 0)
		return -ENOENT;
	if (x->holder[idx] != (int)node)
		return -EACCES;
	if (off + len > (idx + 1) * bs)
		return -ERANGE;
	*ps = (int)s;
	*pidx = idx;
	return 0;
}

static inline int ref_alloc(struct ref_pool *m, struct edm_pool *p, u32 node, u64 size, u32 loc,
			    u32 flags, u64 *out)
{
	struct ref_choice c;
	int cls, got, s, idx;
	u64 ref = ~0ULL, bs;
	struct ref_sec *x;

	got = edm_pool_alloc(p, node, size, loc, flags, &ref);
	if (node >= m->cfg.nnodes || (loc != EDM_POOL_LOC_ANY && loc >= m->cfg.nlocs)) {
		REF_CHECK(got == -EINVAL);
		return got;
	}
	cls = ref_class(m, size);
	if (cls < 0) {
		REF_CHECK(got == cls);
		return got;
	}
	c = ref_choose(m, node, cls, loc, flags, true);
	if (c.err) {
		REF_CHECK(got == c.err);
		m->enomem++;
		return got;
	}
	REF_CHECK(got == 0);
	REF_CHECK(ref / REF_SECTION < REF_MAXFAS && m->fas[ref / REF_SECTION] >= 0);
	s = (int)m->fas[ref / REF_SECTION];
	x = &m->sec[s];
	if (c.kind == 'f' && x->state == EDM_POOL_SEC_FREE) {
		ref_take_section(m, s, node, cls, &c);
	} else {
		/* An existing Section of the node's, of the class, where allowed. */
		REF_CHECK(c.kind == 'p');
		REF_CHECK(x->state == EDM_POOL_SEC_APPLIED && x->owner == (int)node);
		REF_CHECK(x->cls == cls && (c.loc < 0 || x->loc == c.loc));
	}
	bs = ref_bufsize(m, cls);
	REF_CHECK(ref % bs == 0);
	idx = (int)(ref % REF_SECTION / bs);
	REF_CHECK(x->holder[idx] < 0);
	x->holder[idx] = (short)node;
	x->used++;
	m->held[node]++;
	*out = ref;
	return 0;
}

static inline int ref_empties(const struct ref_pool *m, int owner, int cls, int loc)
{
	int s, n = 0;

	for (s = 0; s < (int)m->cfg.nsections; s++) {
		const struct ref_sec *x = &m->sec[s];

		n += x->state == EDM_POOL_SEC_APPLIED && x->owner == owner && x->cls == cls &&
		     x->loc == loc && !x->used;
	}
	return n;
}

static inline void ref_put(struct ref_pool *m, int s, int idx, u32 keep)
{
	struct ref_sec *x = &m->sec[s];

	m->held[x->holder[idx]]--;
	x->holder[idx] = -1;
	x->used--;
	if (!x->used && ref_empties(m, x->owner, x->cls, x->loc) > (int)keep) {
		x->state = EDM_POOL_SEC_FREE;
		x->owner = -1;
	}
}

static inline int ref_free(struct ref_pool *m, struct edm_pool *p, u32 node, u64 ref)
{
	int got = edm_pool_free(p, node, ref), want, s, idx;

	want = ref_resolve(m, node, ref, 1, &s, &idx);
	REF_CHECK(got == want);
	if (!want)
		ref_put(m, s, idx, m->cfg.keep);
	return got;
}

static inline int ref_pass(struct ref_pool *m, struct edm_pool *p, u32 from, u32 to, u64 ref,
			   u32 len)
{
	int got = edm_pool_pass(p, from, to, ref, len), want, s, idx;

	want = to >= m->cfg.nnodes ? -EINVAL : ref_resolve(m, from, ref, len, &s, &idx);
	REF_CHECK(got == want);
	if (!want) {
		m->sec[s].holder[idx] = (short)to;
		m->held[from]--;
		m->held[to]++;
	}
	return got;
}

static inline int ref_check(struct ref_pool *m, struct edm_pool *p, u32 node, u64 ref, u32 len)
{
	struct edm_pool_buf b;
	int got = edm_pool_ref_check(p, node, ref, len), want, s = 0, idx = 0;

	want = ref_resolve(m, node, ref, len, &s, &idx);
	REF_CHECK(got == want);
	REF_CHECK(edm_pool_ref_resolve(p, node, ref, len, &b) == want);
	if (!want) {
		u64 bs = ref_bufsize(m, m->sec[s].cls);

		REF_CHECK(b.phys == (u32)s && b.size == bs && b.start == idx * bs);
		REF_CHECK(b.off == ref % REF_SECTION);
	}
	return got;
}

static inline u32 ref_flush(struct ref_pool *m, struct edm_pool *p, u32 node)
{
	u32 got = edm_pool_node_flush(p, node), n = 0;
	int s, i;

	if (node >= m->cfg.nnodes) {
		REF_CHECK(got == 0);
		return got;
	}
	for (s = 0; s < (int)m->cfg.nsections; s++) {
		struct ref_sec *x = &m->sec[s];

		for (i = 0; x->state == EDM_POOL_SEC_APPLIED && i < ref_nbufs(m, x->cls); i++) {
			if (x->holder[i] != (int)node)
				continue;
			ref_put(m, s, i, x->owner == (int)node ? 0 : m->cfg.keep);
			n++;
		}
	}
	for (s = 0; s < (int)m->cfg.nsections; s++) {
		struct ref_sec *x = &m->sec[s];

		if (x->state == EDM_POOL_SEC_APPLIED && x->owner == (int)node && !x->used) {
			x->state = EDM_POOL_SEC_FREE;
			x->owner = -1;
		}
	}
	REF_CHECK(got == n);
	return got;
}

/* Every Section's state and every counter agree with the model. */
static inline void ref_compare(const struct ref_pool *m, const struct edm_pool *p)
{
	u64 in_use[EDM_POOL_MAX_CLASSES] = { 0 };
	u32 secs[EDM_POOL_MAX_CLASSES] = { 0 };
	u32 nfree = 0, mapped = 0, n;
	int s, c;

	for (s = 0; s < (int)m->cfg.nsections; s++) {
		const struct ref_sec *x = &m->sec[s];

		REF_CHECK(edm_pool_sec_state(p, s) == (u32)x->state);
		mapped += x->state != EDM_POOL_SEC_UNMAPPED;
		nfree += x->state == EDM_POOL_SEC_FREE;
		if (x->state != EDM_POOL_SEC_UNMAPPED) {
			REF_CHECK(edm_pool_sec_fas(p, s) == (u32)x->fas);
			REF_CHECK(edm_pool_sec_loc(p, s) == (u32)x->loc);
		}
		if (x->state != EDM_POOL_SEC_APPLIED) {
			REF_CHECK(edm_pool_sec_owner(p, s) == EDM_POOL_NONE);
			continue;
		}
		REF_CHECK(edm_pool_sec_owner(p, s) == (u32)x->owner);
		REF_CHECK(edm_pool_sec_class(p, s) == (u32)x->cls);
		REF_CHECK(edm_pool_sec_nfree(p, s) == (u32)(ref_nbufs(m, x->cls) - x->used));
		in_use[x->cls] += x->used;
		secs[x->cls]++;
	}
	REF_CHECK(p->stats.sections_free == nfree && p->stats.sections_mapped == mapped);
	REF_CHECK(p->stats.enomem == m->enomem);
	for (c = 0; c < (int)p->nclasses; c++)
		REF_CHECK(p->cls[c].in_use == in_use[c] && p->cls[c].sections == secs[c]);
	for (n = 0; n < m->cfg.nnodes; n++) {
		REF_CHECK(p->node[n].held == m->held[n]);
		REF_CHECK(p->node[n].sections == (u32)ref_node_sections(m, n));
		REF_CHECK(p->node[n].sections <= p->node[n].sections_max);
		REF_CHECK(!m->cfg.node_quota || p->node[n].sections <= m->cfg.node_quota);
		REF_CHECK(p->node[n].applied - p->node[n].released == p->node[n].sections);
	}
}

/* Some FAS reference of a held Buffer, or any address if none is held. */
static inline u64 ref_pick(const struct ref_pool *m, u32 pick, int *holder)
{
	int s, i, k = 0, want;
	int total = 0;

	for (s = 0; s < (int)m->cfg.nsections; s++)
		total += m->sec[s].state == EDM_POOL_SEC_APPLIED ? m->sec[s].used : 0;
	*holder = -1;
	if (!total)
		return (u64)pick * 4099;
	want = (int)(pick % (u32)total);
	for (s = 0; s < (int)m->cfg.nsections; s++) {
		const struct ref_sec *x = &m->sec[s];

		if (x->state != EDM_POOL_SEC_APPLIED)
			continue;
		for (i = 0; i < ref_nbufs(m, x->cls); i++) {
			if (x->holder[i] < 0)
				continue;
			if (k++ == want) {
				*holder = x->holder[i];
				return (u64)x->fas * REF_SECTION + (u64)i * ref_bufsize(m, x->cls);
			}
		}
	}
	return 0;
}

/*
 * One random operation from 8 bytes, against both; checks and compares.
 * The reference picked is mostly a held Buffer's, moved to its edges.
 */
static inline void ref_step(struct ref_pool *m, struct edm_pool *p, const u8 *b)
{
	u32 node = b[1] % (m->cfg.nnodes + 1), to = b[2] % (m->cfg.nnodes + 1);
	u32 loc = b[3] % (m->cfg.nlocs + 2), len, pick = b[4] | b[5] << 8;
	u64 ref, bs;
	int holder;

	if (loc == m->cfg.nlocs + 1)
		loc = EDM_POOL_LOC_ANY;
	ref = ref_pick(m, pick, &holder);
	if (holder >= 0 && (b[6] & 3))
		node = (u32)holder;	/* mostly the holder presents it */
	bs = 256;
	if (holder >= 0)
		bs = ref_bufsize(m, m->sec[m->fas[ref / REF_SECTION]].cls);
	switch (b[7] % 8) {
	case 0:
		ref += bs - 1;
		break;
	case 1:		/* the next Buffer */
		ref += bs;
		break;
	case 2:		/* the previous one */
		ref -= 1;
		break;
	case 3:		/* aliases if truncated to 32 bits */
		ref += (u64)1 << 53;
		break;
	case 4:
		ref += b[6] * 7;
		break;
	default:
		break;
	}
	switch (b[6] >> 5) {
	case 0:
		len = 0;
		break;
	case 1:
		len = ~0U;
		break;
	case 2:		/* exactly to the end */
		len = (u32)(bs - ref % bs);
		break;
	case 3:		/* one past */
		len = (u32)(bs - ref % bs + 1);
		break;
	default:
		len = 1 + b[5] % 64;
		break;
	}
	switch (b[0] % 12) {
	case 0: case 1: case 2: {
		static const u64 sizes[] = { 1500, 4096, 65536, 1500, 1, 255, 256, 257,
					     1024, 2048, 9000, 65537, 0, 2097152, 2097153, 300 };
		u32 k = b[5] % 16;
		u64 out;

		/* Mostly a few common classes, so Sections fill and drain. */
		ref_alloc(m, p, node, sizes[b[4] & 1 ? k % 3 : k] << (b[4] % 5 ? 0 : b[4] % 7),
			  loc, b[6] & 0x10 ? EDM_POOL_F_STRICT : 0, &out);
		break;
	}
	case 3: case 4: case 5:
		/* Mostly a good free, so the pool drains as well as it fills. */
		if (holder >= 0 && (b[7] & 0x30))
			ref_free(m, p, (u32)holder, ref_pick(m, pick, &holder) + (b[4] % 2));
		else
			ref_free(m, p, node, ref);
		break;
	case 6: case 7:
		ref_pass(m, p, node, to, ref, len);
		break;
	case 8: case 9:
		ref_check(m, p, node, ref, len);
		break;
	case 10:
		ref_apply(m, p, node, b[5] % (p->nclasses + 1), loc,
			  b[6] & 0x10 ? EDM_POOL_F_STRICT : 0);
		break;
	default:
		if (b[5] == 0)
			ref_flush(m, p, node);
		else
			ref_check(m, p, node, ref, len);
		break;
	}
	ref_compare(m, p);
}

#endif /* _EDM_POOL_REF_H */
