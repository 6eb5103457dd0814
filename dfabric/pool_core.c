// SPDX-License-Identifier: GPL-2.0
/*
 * DFabric's memory pool core (see include/edm/pool_core.h): the FAS table,
 * the LPPU's free Sections per location, each node's Sections per (class,
 * location), Buffers within a Section, and the reference check.
 *
 * What it owns: one block of caller memory laid out by pool_layout(). Section
 * metadata is indexed by physical Section; a Section is on exactly one list
 * at a time, threaded through its next/prev indices: its location's free
 * list (the LPPU's), or the non-full list of the node it is applied to. A
 * full Section is on no list, so the head of a node's list always has a free
 * Buffer.
 *
 * A Section's Buffers are a two-level bitmap (bit set: free) with a summary
 * word per 64 map words, so finding a free Buffer is two count-trailing-zeros
 * after a scan of at most bufs_max / 4096 summary words (2 for 256 B
 * Buffers); each allocated Buffer has a one-byte holder. Every fast-path call
 * (alloc, free, pass, check) is O(1) in the pool's size; applying a Section
 * is O(map_words), at most 128, and searching for a location is O(nlocs).
 *
 * Locking: none. The caller serializes every call on one pool;
 * edm_pool_ref_resolve() only reads, so it may run under a reader lock of the
 * caller's (edm_pool_ref_check() also counts).
 */
#include "edm/core.h"
#include "edm/pool_core.h"

enum {
	POOL_ALIGN	= 8,
	POOL_WORD_BITS	= 64,
	POOL_NO_NODE	= 0xff,
};

struct edm_pool_section {
	u32 next;		/* list links, EDM_POOL_NONE when on no list */
	u32 prev;
	u32 fas;		/* FAS Section number, EDM_POOL_NONE if unmapped */
	u32 nfree;		/* free Buffers, when applied */
	u8 state;		/* enum edm_pool_sec_state */
	u8 owner;		/* node it is applied to, POOL_NO_NODE */
	u8 cls;			/* Buffer class, when applied */
	u8 loc;			/* location of its memory */
};

static inline u32 pool_ctz(u64 v)
{
	return (u32)__builtin_ctzll(v);
}

/* Reserve bytes at *off; with base NULL only count them. */
static void *carve(u8 *base, u64 *off, u64 bytes)
{
	void *p = base ? base + *off : NULL;

	*off += (bytes + POOL_ALIGN - 1) & ~(u64)(POOL_ALIGN - 1);
	return p;
}

static u32 pool_nclasses(const struct edm_pool_cfg *cfg)
{
	return cfg->max_shift - cfg->min_shift + 1;
}

static u32 pool_map_words(u32 bufs_max)
{
	return bufs_max < POOL_WORD_BITS ? 1 : bufs_max / POOL_WORD_BITS;
}

static u64 pool_layout(struct edm_pool *p, const struct edm_pool_cfg *cfg)
{
	u64 nsec = cfg->nsections, lists, off = 0;
	u32 bufs_max = 1U << (EDM_POOL_SECTION_SHIFT - cfg->min_shift);
	u32 words = pool_map_words(bufs_max);
	u32 sum = (words + POOL_WORD_BITS - 1) / POOL_WORD_BITS;
	struct edm_pool dummy;
	u8 *base = (u8 *)p;

	if (!p)
		p = &dummy;
	lists = (u64)cfg->nnodes * pool_nclasses(cfg) * cfg->nlocs;
	carve(base, &off, sizeof(*p));
	p->node = carve(base, &off, cfg->nnodes * sizeof(*p->node));
	p->sec = carve(base, &off, nsec * sizeof(*p->sec));
	p->fas = carve(base, &off, (u64)cfg->max_regions * cfg->region_sections * sizeof(u32));
	p->free_head = carve(base, &off, cfg->nlocs * sizeof(u32));
	p->list = carve(base, &off, lists * sizeof(u32));
	p->empty = carve(base, &off, lists * sizeof(u32));
	p->map = carve(base, &off, nsec * words * sizeof(u64));
	p->sum = carve(base, &off, nsec * sum * sizeof(u64));
	p->holder = carve(base, &off, nsec * bufs_max);
	return off;
}

int edm_pool_cfg_check(const struct edm_pool_cfg *cfg)
{
	if (!cfg->nsections || cfg->nsections > EDM_POOL_MAX_SECTIONS)
		return -EINVAL;
	if (!cfg->region_sections || cfg->region_sections > EDM_POOL_MAX_REGION)
		return -EINVAL;
	if (!cfg->max_regions ||
	    (u64)cfg->max_regions * cfg->region_sections > EDM_POOL_MAX_FAS)
		return -EINVAL;
	if (!cfg->nnodes || cfg->nnodes > EDM_POOL_MAX_NODES)
		return -EINVAL;
	if (!cfg->nlocs || cfg->nlocs > EDM_POOL_MAX_LOCS)
		return -EINVAL;
	if (cfg->min_shift < EDM_POOL_MIN_SHIFT || cfg->max_shift > EDM_POOL_MAX_SHIFT ||
	    cfg->min_shift > cfg->max_shift)
		return -EINVAL;
	return 0;
}

/* Bytes of memory a pool of this configuration needs; 0 if it is invalid. */
size_t edm_pool_size(const struct edm_pool_cfg *cfg)
{
	u64 bytes;

	if (edm_pool_cfg_check(cfg))
		return 0;
	bytes = pool_layout(NULL, cfg);
	if (bytes != (size_t)bytes)
		return 0;
	return bytes;
}

void edm_pool_cfg_default(struct edm_pool_cfg *cfg, u32 nsections, u32 nnodes)
{
	u32 n = EDM_POOL_DEFAULT_REGION;

	cfg->nsections = nsections;
	cfg->region_sections = n;
	cfg->max_regions = nsections ? (nsections + n - 1) / n : 1;
	cfg->nnodes = nnodes;
	cfg->nlocs = 1;
	cfg->min_shift = EDM_POOL_DEFAULT_MIN_SHIFT;
	cfg->max_shift = EDM_POOL_DEFAULT_MAX_SHIFT;
	cfg->keep = EDM_POOL_DEFAULT_KEEP;
	cfg->node_quota = 0;
}

static void pool_fill32(u32 *a, u64 n, u32 v)
{
	u64 i;

	for (i = 0; i < n; i++)
		a[i] = v;
}

/*
 * mem holds edm_pool_size(cfg) bytes, 8-byte aligned, of any content; on
 * success it is a struct edm_pool with no Region mapped yet.
 */
int edm_pool_init(void *mem, const struct edm_pool_cfg *cfg)
{
	struct edm_pool *p = mem;
	u64 i, lists;
	int err;

	err = edm_pool_cfg_check(cfg);
	if (err)
		return err;
	for (i = 0; i < sizeof(*p); i++)
		((u8 *)p)[i] = 0;
	pool_layout(p, cfg);
	p->cfg = *cfg;
	p->nclasses = pool_nclasses(cfg);
	p->bufs_max = 1U << (EDM_POOL_SECTION_SHIFT - cfg->min_shift);
	p->map_words = pool_map_words(p->bufs_max);
	p->sum_words = (p->map_words + POOL_WORD_BITS - 1) / POOL_WORD_BITS;
	p->fas_sections = cfg->max_regions * cfg->region_sections;
	lists = (u64)cfg->nnodes * p->nclasses * cfg->nlocs;
	for (i = 0; i < cfg->nnodes; i++)
		p->node[i] = (struct edm_pool_node_stats){ 0 };
	for (i = 0; i < cfg->nsections; i++)
		p->sec[i] = (struct edm_pool_section){
			.next = EDM_POOL_NONE, .prev = EDM_POOL_NONE, .fas = EDM_POOL_NONE,
			.state = EDM_POOL_SEC_UNMAPPED, .owner = POOL_NO_NODE,
		};
	pool_fill32(p->fas, p->fas_sections, EDM_POOL_NONE);
	pool_fill32(p->free_head, cfg->nlocs, EDM_POOL_NONE);
	pool_fill32(p->list, lists, EDM_POOL_NONE);
	pool_fill32(p->empty, lists, 0);
	/* map, sum and holder are written when a Section is applied. */
	return 0;
}

/* Lists are circular through next/prev; *head is the first or NONE. */
static void lst_add(struct edm_pool *p, u32 *head, u32 s, bool tail)
{
	struct edm_pool_section *n = &p->sec[s], *h;

	if (*head == EDM_POOL_NONE) {
		n->next = s;
		n->prev = s;
		*head = s;
		return;
	}
	h = &p->sec[*head];
	n->next = *head;
	n->prev = h->prev;
	p->sec[h->prev].next = s;
	h->prev = s;
	if (!tail)
		*head = s;
}

static void lst_del(struct edm_pool *p, u32 *head, u32 s)
{
	struct edm_pool_section *n = &p->sec[s];

	if (n->next == s) {
		*head = EDM_POOL_NONE;
	} else {
		p->sec[n->prev].next = n->next;
		p->sec[n->next].prev = n->prev;
		if (*head == s)
			*head = n->next;
	}
	n->next = EDM_POOL_NONE;
	n->prev = EDM_POOL_NONE;
}

static inline u32 list_idx(const struct edm_pool *p, u32 node, u32 cls, u32 loc)
{
	return (node * p->nclasses + cls) * p->cfg.nlocs + loc;
}

static inline u32 sec_shift(const struct edm_pool *p, const struct edm_pool_section *s)
{
	return p->cfg.min_shift + s->cls;
}

static inline u32 sec_nbufs(const struct edm_pool *p, const struct edm_pool_section *s)
{
	return 1U << (EDM_POOL_SECTION_SHIFT - sec_shift(p, s));
}

/*
 * Maps the next Region of the FAS onto physical Sections phys_first ..
 * phys_first + count - 1 at location loc (the LPPU's bootstrap, 4.1). A
 * Region may be partly backed (count < N): the rest of its FAS stays a hole.
 * Returns the Region's index.
 */
int edm_pool_region_add(struct edm_pool *p, u32 loc, u32 phys_first, u32 count)
{
	u32 r = p->nregions, i, f;

	if (loc >= p->cfg.nlocs || !count || count > p->cfg.region_sections)
		return -EINVAL;
	if ((u64)phys_first + count > p->cfg.nsections)
		return -EINVAL;
	if (r >= p->cfg.max_regions)
		return -ENOSPC;
	for (i = 0; i < count; i++)
		if (p->sec[phys_first + i].state != EDM_POOL_SEC_UNMAPPED)
			return -EEXIST;
	f = r * p->cfg.region_sections;
	for (i = 0; i < count; i++) {
		struct edm_pool_section *s = &p->sec[phys_first + i];

		p->fas[f + i] = phys_first + i;
		s->fas = f + i;
		s->loc = loc;
		s->state = EDM_POOL_SEC_FREE;
		lst_add(p, &p->free_head[loc], phys_first + i, true);
	}
	p->nregions++;
	p->stats.sections_mapped += count;
	p->stats.sections_free += count;
	return r;
}

/* The smallest class whose Buffers hold size bytes. */
int edm_pool_class(const struct edm_pool *p, u64 size)
{
	u32 shift = p->cfg.min_shift;

	if (!size)
		return -EINVAL;
	if (size > (1ULL << p->cfg.max_shift))
		return -E2BIG;
	if (size > (1ULL << shift))
		shift = 64 - (u32)__builtin_clzll(size - 1);
	return shift - p->cfg.min_shift;
}

u32 edm_pool_class_size(const struct edm_pool *p, u32 cls)
{
	return cls < p->nclasses ? 1U << (p->cfg.min_shift + cls) : 0;
}

/* Free bits for Buffers 0 .. nbufs - 1, none beyond; summary to match. */
static void sec_map_init(struct edm_pool *p, u32 s, u32 nbufs)
{
	u64 *map = p->map + (u64)s * p->map_words;
	u64 *sum = p->sum + (u64)s * p->sum_words;
	u32 full = nbufs / POOL_WORD_BITS, i;

	for (i = 0; i < p->map_words; i++)
		map[i] = i < full ? ~0ULL : 0;
	if (!full)
		map[0] = (1ULL << nbufs) - 1;
	for (i = 0; i < p->sum_words; i++)
		sum[i] = 0;
	for (i = 0; i < (full ? full : 1); i += POOL_WORD_BITS) {
		u32 left = (full ? full : 1) - i;

		sum[i / POOL_WORD_BITS] = left >= POOL_WORD_BITS ? ~0ULL : (1ULL << left) - 1;
	}
}

/* Grant the LPPU's first free Section at loc to node, for class cls. */
static int pool_apply_at(struct edm_pool *p, u32 node, u32 cls, u32 loc)
{
	struct edm_pool_node_stats *ns = &p->node[node];
	u32 s = p->free_head[loc], l;
	struct edm_pool_section *sec;

	if (s == EDM_POOL_NONE)
		return -ENOMEM;
	if (p->cfg.node_quota && ns->sections >= p->cfg.node_quota)
		return -ENOMEM;
	sec = &p->sec[s];
	lst_del(p, &p->free_head[loc], s);
	sec->state = EDM_POOL_SEC_APPLIED;
	sec->owner = node;
	sec->cls = cls;
	sec->nfree = sec_nbufs(p, sec);
	sec_map_init(p, s, sec->nfree);
	l = list_idx(p, node, cls, loc);
	/* Behind the partly used ones: those fill first, so empties can go back. */
	lst_add(p, &p->list[l], s, true);
	p->empty[l]++;
	p->stats.sections_free--;
	p->cls[cls].sections++;
	ns->sections++;
	ns->applied++;
	if (ns->sections > ns->sections_max)
		ns->sections_max = ns->sections;
	return s;
}

static void pool_release(struct edm_pool *p, u32 s)
{
	struct edm_pool_section *sec = &p->sec[s];
	u32 l = list_idx(p, sec->owner, sec->cls, sec->loc);

	lst_del(p, &p->list[l], s);
	p->empty[l]--;
	p->node[sec->owner].sections--;
	p->node[sec->owner].released++;
	p->cls[sec->cls].sections--;
	sec->state = EDM_POOL_SEC_FREE;
	sec->owner = POOL_NO_NODE;
	/* At the head: the next node to apply gets a Section warm in cache. */
	lst_add(p, &p->free_head[sec->loc], s, false);
	p->stats.sections_free++;
}

static int pool_enomem(struct edm_pool *p, u32 node)
{
	p->stats.enomem++;
	p->node[node].enomem++;
	return -ENOMEM;
}

/*
 * The daemon's pre-application (4.1): grant node a Section of class cls at
 * loc, or, unless EDM_POOL_F_STRICT, at any other location. Returns the
 * physical Section index.
 */
int edm_pool_apply(struct edm_pool *p, u32 node, u32 cls, u32 loc, u32 flags)
{
	u32 i, n = p->cfg.nlocs;
	int s;

	if (node >= p->cfg.nnodes || cls >= p->nclasses)
		return -EINVAL;
	if (loc != EDM_POOL_LOC_ANY && loc >= n)
		return -EINVAL;
	if (loc != EDM_POOL_LOC_ANY) {
		s = pool_apply_at(p, node, cls, loc);
		if (s >= 0 || (flags & EDM_POOL_F_STRICT))
			return s >= 0 ? s : pool_enomem(p, node);
	}
	for (i = 0; i < n; i++) {
		if (i == loc)
			continue;
		s = pool_apply_at(p, node, cls, i);
		if (s >= 0)
			return s;
	}
	return pool_enomem(p, node);
}

/* Take the first free Buffer of Section s, which has one. */
static u32 sec_take(struct edm_pool *p, u32 s)
{
	u64 *map = p->map + (u64)s * p->map_words;
	u64 *sum = p->sum + (u64)s * p->sum_words;
	u32 w = 0, mw, bit;

	while (!sum[w])
		w++;
	mw = w * POOL_WORD_BITS + pool_ctz(sum[w]);
	bit = pool_ctz(map[mw]);
	map[mw] &= map[mw] - 1;
	if (!map[mw])
		sum[w] &= ~(1ULL << (mw % POOL_WORD_BITS));
	return mw * POOL_WORD_BITS + bit;
}

static void sec_put(struct edm_pool *p, u32 s, u32 idx)
{
	u64 *map = p->map + (u64)s * p->map_words;
	u64 *sum = p->sum + (u64)s * p->sum_words;
	u32 mw = idx / POOL_WORD_BITS;

	map[mw] |= 1ULL << (idx % POOL_WORD_BITS);
	sum[mw / POOL_WORD_BITS] |= 1ULL << (mw % POOL_WORD_BITS);
}

static bool sec_is_free(const struct edm_pool *p, u32 s, u32 idx)
{
	const u64 *map = p->map + (u64)s * p->map_words;

	return (map[idx / POOL_WORD_BITS] >> (idx % POOL_WORD_BITS)) & 1;
}

static u64 pool_alloc_from(struct edm_pool *p, u32 node, u32 s)
{
	struct edm_pool_section *sec = &p->sec[s];
	u32 l = list_idx(p, sec->owner, sec->cls, sec->loc);
	u32 idx;

	if (sec->nfree == sec_nbufs(p, sec))
		p->empty[l]--;
	idx = sec_take(p, s);
	if (!--sec->nfree)
		lst_del(p, &p->list[l], s);
	p->holder[(u64)s * p->bufs_max + idx] = node;
	p->cls[sec->cls].in_use++;
	p->cls[sec->cls].allocs++;
	p->node[node].held++;
	p->node[node].allocs++;
	return edm_pool_ref(sec->fas, idx << sec_shift(p, sec));
}

/* A Section of node's for cls at loc with a free Buffer: the list's head. */
static u32 pool_partial(const struct edm_pool *p, u32 node, u32 cls, u32 loc)
{
	return p->list[list_idx(p, node, cls, loc)];
}

/*
 * The paper's alloc_shared_buffer (Table 2), steps 1) and 2) of 4.1: the
 * class that fits size, then a Section of the node's at the preferred
 * location, applying one if it has none; failing that, unless
 * EDM_POOL_F_STRICT, the node's Sections elsewhere, then new ones elsewhere.
 * With EDM_POOL_LOC_ANY every location is equal. On success *ref is the
 * Buffer's FAS reference and the node holds it.
 */
int edm_pool_alloc(struct edm_pool *p, u32 node, u64 size, u32 loc, u32 flags, u64 *ref)
{
	u32 i, n = p->cfg.nlocs, s;
	int cls, r;

	if (node >= p->cfg.nnodes || (loc != EDM_POOL_LOC_ANY && loc >= n))
		return -EINVAL;
	cls = edm_pool_class(p, size);
	if (cls < 0)
		return cls;
	if (loc != EDM_POOL_LOC_ANY) {
		s = pool_partial(p, node, cls, loc);
		if (s == EDM_POOL_NONE) {
			r = pool_apply_at(p, node, cls, loc);
			s = r < 0 ? EDM_POOL_NONE : (u32)r;
		}
		if (s != EDM_POOL_NONE)
			goto found;
		if (flags & EDM_POOL_F_STRICT)
			return pool_enomem(p, node);
	}
	for (i = 0; i < n; i++) {
		s = pool_partial(p, node, cls, i);
		if (s != EDM_POOL_NONE)
			goto found;
	}
	for (i = 0; i < n; i++) {
		r = pool_apply_at(p, node, cls, i);
		if (r >= 0) {
			s = r;
			goto found;
		}
	}
	return pool_enomem(p, node);
found:
	*ref = pool_alloc_from(p, node, s);
	return 0;
}

u64 edm_pool_ref(u32 fas_section, u32 off)
{
	return (u64)fas_section << EDM_POOL_SECTION_SHIFT | (off & (EDM_POOL_SECTION_SIZE - 1));
}

/* Physical Section of a FAS reference, EDM_POOL_NONE if nothing backs it. */
u32 edm_pool_fas_to_phys(const struct edm_pool *p, u64 ref)
{
	u64 f = ref >> EDM_POOL_SECTION_SHIFT;

	/* Compare all 43 bits: a u32 cast here would alias refs 2^53 apart. */
	if (f >= p->fas_sections)
		return EDM_POOL_NONE;
	return p->fas[f];
}

/*
 * Does [ref, ref + len) lie inside one allocated Buffer that node holds? On
 * success fills buf (if not NULL) with where the bytes are. Reads only.
 */
int edm_pool_ref_resolve(const struct edm_pool *p, u32 node, u64 ref, u32 len,
			 struct edm_pool_buf *buf)
{
	const struct edm_pool_section *sec;
	u32 s, off, shift, idx, in;

	if (node >= p->cfg.nnodes || !len)
		return -EINVAL;
	s = edm_pool_fas_to_phys(p, ref);
	if (s == EDM_POOL_NONE)
		return -EFAULT;
	sec = &p->sec[s];
	if (sec->state != EDM_POOL_SEC_APPLIED)
		return -ENOENT;
	off = ref & (EDM_POOL_SECTION_SIZE - 1);
	shift = sec_shift(p, sec);
	idx = off >> shift;
	if (sec_is_free(p, s, idx))
		return -ENOENT;
	if (p->holder[(u64)s * p->bufs_max + idx] != node)
		return -EACCES;
	in = off & ((1U << shift) - 1);
	/* Both sides below 2^32 and no sum: nothing to wrap. */
	if (len > (1U << shift) - in)
		return -ERANGE;
	if (buf) {
		buf->phys = s;
		buf->start = idx << shift;
		buf->size = 1U << shift;
		buf->off = off;
	}
	return 0;
}

static u32 pool_refusal(int err)
{
	switch (err) {
	case -EFAULT:
		return EDM_POOL_REF_FAULT;
	case -ENOENT:
		return EDM_POOL_REF_FREE;
	case -EACCES:
		return EDM_POOL_REF_DENIED;
	case -ERANGE:
		return EDM_POOL_REF_RANGE;
	default:
		return EDM_POOL_REF_INVAL;
	}
}

static int pool_refused(struct edm_pool *p, u32 node, int err)
{
	p->stats.refused[pool_refusal(err)]++;
	if (node < p->cfg.nnodes)
		p->node[node].refused++;
	return err;
}

/* The CXL port's check (4.1 Discussion), counted: 0 or why not. */
int edm_pool_ref_check(struct edm_pool *p, u32 node, u64 ref, u32 len)
{
	int err = edm_pool_ref_resolve(p, node, ref, len, NULL);

	if (err)
		return pool_refused(p, node, err);
	p->stats.checked++;
	return 0;
}

/*
 * Pass-by-reference (4.3): from hands the Buffer holding [ref, ref + len) to
 * to, and loses access to it. The Buffer stays in the Section of the node
 * that applied it; to frees it there.
 */
int edm_pool_pass(struct edm_pool *p, u32 from, u32 to, u64 ref, u32 len)
{
	struct edm_pool_buf b;
	int err;

	if (to >= p->cfg.nnodes)
		return pool_refused(p, from, -EINVAL);
	err = edm_pool_ref_resolve(p, from, ref, len, &b);
	if (err)
		return pool_refused(p, from, err);
	p->holder[(u64)b.phys * p->bufs_max + (b.start >> sec_shift(p, &p->sec[b.phys]))] = to;
	p->node[from].held--;
	p->node[from].passed_out++;
	p->node[to].held++;
	p->node[to].passed_in++;
	p->stats.passes++;
	return 0;
}

/*
 * Put Buffer idx of Section s back. A Section that was full rejoins its
 * owner's list; one that becomes empty goes behind the partly used ones, or
 * back to the LPPU when its owner keeps enough empty ones already.
 */
static void pool_put(struct edm_pool *p, u32 s, u32 idx, u32 keep)
{
	struct edm_pool_section *sec = &p->sec[s];
	u32 l = list_idx(p, sec->owner, sec->cls, sec->loc);
	u32 nbufs = sec_nbufs(p, sec);
	bool was_full = !sec->nfree;

	sec_put(p, s, idx);
	p->node[p->holder[(u64)s * p->bufs_max + idx]].held--;
	p->cls[sec->cls].in_use--;
	if (++sec->nfree < nbufs) {
		if (was_full)
			lst_add(p, &p->list[l], s, false);
		return;
	}
	if (!was_full)
		lst_del(p, &p->list[l], s);
	lst_add(p, &p->list[l], s, true);
	if (++p->empty[l] > keep)
		pool_release(p, s);
}

/*
 * The paper's buffer release (kfree_shared_skb, 4.3 "Data buffer
 * deallocation"): the holder frees the Buffer that ref points into.
 */
int edm_pool_free(struct edm_pool *p, u32 node, u64 ref)
{
	struct edm_pool_buf b;
	int err;

	err = edm_pool_ref_resolve(p, node, ref, 1, &b);
	if (err)
		return pool_refused(p, node, err);
	p->node[node].frees++;
	pool_put(p, b.phys, b.start >> sec_shift(p, &p->sec[b.phys]), p->cfg.keep);
	return 0;
}

/*
 * A node goes away: free every Buffer it holds, wherever it is, and give
 * back its empty Sections. Its Sections that still hold Buffers passed to
 * other nodes stay applied to it until those are freed. O(pool): a slow
 * path. Returns the Buffers freed.
 */
u32 edm_pool_node_flush(struct edm_pool *p, u32 node)
{
	u32 s, idx, n = 0, c, l;

	if (node >= p->cfg.nnodes)
		return 0;
	for (s = 0; s < p->cfg.nsections; s++) {
		struct edm_pool_section *sec = &p->sec[s];
		u32 nbufs;

		if (sec->state != EDM_POOL_SEC_APPLIED)
			continue;
		nbufs = sec_nbufs(p, sec);
		for (idx = 0; idx < nbufs && sec->state == EDM_POOL_SEC_APPLIED; idx++) {
			if (sec_is_free(p, s, idx) ||
			    p->holder[(u64)s * p->bufs_max + idx] != node)
				continue;
			pool_put(p, s, idx, sec->owner == node ? 0 : p->cfg.keep);
			n++;
		}
	}
	for (c = 0; c < p->nclasses; c++) {
		for (l = 0; l < p->cfg.nlocs; l++) {
			u32 li = list_idx(p, node, c, l);

			/* A list is partly used Sections, then the empty ones. */
			while (p->empty[li]) {
				s = p->sec[p->list[li]].prev;
				if (p->sec[s].nfree != sec_nbufs(p, &p->sec[s]))
					break;
				pool_release(p, s);
			}
		}
	}
	return n;
}

u32 edm_pool_sec_state(const struct edm_pool *p, u32 phys)
{
	return phys < p->cfg.nsections ? p->sec[phys].state : EDM_POOL_SEC_UNMAPPED;
}

u32 edm_pool_sec_owner(const struct edm_pool *p, u32 phys)
{
	if (phys >= p->cfg.nsections || p->sec[phys].state != EDM_POOL_SEC_APPLIED)
		return EDM_POOL_NONE;
	return p->sec[phys].owner;
}

u32 edm_pool_sec_class(const struct edm_pool *p, u32 phys)
{
	if (phys >= p->cfg.nsections || p->sec[phys].state != EDM_POOL_SEC_APPLIED)
		return EDM_POOL_NONE;
	return p->sec[phys].cls;
}

u32 edm_pool_sec_loc(const struct edm_pool *p, u32 phys)
{
	if (phys >= p->cfg.nsections || p->sec[phys].state == EDM_POOL_SEC_UNMAPPED)
		return EDM_POOL_NONE;
	return p->sec[phys].loc;
}

u32 edm_pool_sec_fas(const struct edm_pool *p, u32 phys)
{
	return phys < p->cfg.nsections ? p->sec[phys].fas : EDM_POOL_NONE;
}

u32 edm_pool_sec_nfree(const struct edm_pool *p, u32 phys)
{
	if (phys >= p->cfg.nsections || p->sec[phys].state != EDM_POOL_SEC_APPLIED)
		return 0;
	return p->sec[phys].nfree;
}
