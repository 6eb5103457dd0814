// SPDX-License-Identifier: GPL-2.0
/*
 * The DRAM cache index (see include/edm/pool_dcache.h): tags, LRU and
 * counters of a set-associative cache of one Region's Buffers.
 *
 * What it owns: one block of caller memory, the header then sets * ways
 * lines. A line records its granule number (the whole of it, not only the
 * bits above the set index, so a victim's address is exact), a last-use stamp
 * from a per-cache clock, and valid, dirty and pinned bits. Lookup and fill
 * are O(ways); a flush is O(ways) per granule it covers, capped at one pass
 * over every line. With a struct edm_dcache_mem it also moves the data (a
 * granule per copy), through the caller's two address functions.
 *
 * Locking: none; the caller serializes every call on one cache.
 */
#include "edm/core.h"
#include "edm/pool_dcache.h"

struct edm_dcache_line {
	u64 gran;		/* granule number in the Region */
	u64 stamp;		/* clock at the last use */
	u8 valid;
	u8 dirty;
	u8 pinned;		/* lent by the caller: never a victim, never flushed */
};

static bool dcache_shape_ok(u32 sets, u32 ways)
{
	return sets && sets <= EDM_DCACHE_MAX_SETS && !(sets & (sets - 1)) &&
	       ways && ways <= EDM_DCACHE_MAX_WAYS;
}

size_t edm_dcache_size(u32 sets, u32 ways)
{
	if (!dcache_shape_ok(sets, ways))
		return 0;
	return sizeof(struct edm_dcache) + (size_t)sets * ways * sizeof(struct edm_dcache_line);
}

int edm_dcache_cfg_check(const struct edm_dcache_cfg *cfg)
{
	u64 gran = 1ULL << (cfg->gran_shift & 63);

	if (!dcache_shape_ok(cfg->sets, cfg->ways))
		return -EINVAL;
	if (cfg->gran_shift < EDM_DCACHE_MIN_SHIFT || cfg->gran_shift > EDM_DCACHE_MAX_SHIFT)
		return -EINVAL;
	if ((cfg->base & (gran - 1)) || !cfg->len || (cfg->len & (gran - 1)))
		return -EINVAL;
	if (cfg->base + cfg->len < cfg->base)
		return -EINVAL;
	return 0;
}

/* mem holds edm_dcache_size(cfg->sets, cfg->ways) bytes, 8-byte aligned. */
int edm_dcache_init(void *mem, const struct edm_dcache_cfg *cfg,
		    const struct edm_dcache_mem *data)
{
	struct edm_dcache *c = mem;
	u64 i, n;
	int err;

	err = edm_dcache_cfg_check(cfg);
	if (err)
		return err;
	c->cfg = *cfg;
	c->mem = data;
	c->set_mask = cfg->sets - 1;
	c->clock = 0;
	c->stats = (struct edm_dcache_stats){ 0 };
	c->line = (struct edm_dcache_line *)(c + 1);
	n = (u64)cfg->sets * cfg->ways;
	for (i = 0; i < n; i++)
		c->line[i] = (struct edm_dcache_line){ 0 };
	return 0;
}

static bool dcache_inside(const struct edm_dcache *c, u64 ref)
{
	return ref >= c->cfg.base && ref - c->cfg.base < c->cfg.len;
}

static inline u64 dcache_gran(const struct edm_dcache *c, u64 ref)
{
	return (ref - c->cfg.base) >> c->cfg.gran_shift;
}

static inline struct edm_dcache_line *dcache_set(const struct edm_dcache *c, u64 gran)
{
	return &c->line[(u64)(gran & c->set_mask) * c->cfg.ways];
}

/* The slot holding granule gran, or -ENOENT. */
static int dcache_find(const struct edm_dcache *c, u64 gran)
{
	const struct edm_dcache_line *set = dcache_set(c, gran);
	u32 w;

	for (w = 0; w < c->cfg.ways; w++)
		if (set[w].valid && set[w].gran == gran)
			return (set - c->line) + w;
	return -ENOENT;
}

static void dcache_touch(struct edm_dcache *c, u32 slot, bool write)
{
	c->line[slot].stamp = ++c->clock;
	if (write)
		c->line[slot].dirty = 1;
}

/* Hit: the slot, marked used (and dirty on a write). Miss: -ENOENT. */
int edm_dcache_lookup(struct edm_dcache *c, u64 ref, bool write)
{
	int slot;

	if (!dcache_inside(c, ref)) {
		c->stats.outside++;
		return -ERANGE;
	}
	slot = dcache_find(c, dcache_gran(c, ref));
	if (slot < 0) {
		c->stats.misses++;
		return slot;
	}
	c->stats.hits++;
	dcache_touch(c, slot, write);
	return slot;
}

/* An invalid way of the set, else its least recently used unpinned one, else -EBUSY. */
static int dcache_victim(const struct edm_dcache *c, u64 gran)
{
	const struct edm_dcache_line *set = dcache_set(c, gran);
	int best = -1;
	u32 w;

	for (w = 0; w < c->cfg.ways; w++) {
		if (!set[w].valid)
			return (set - c->line) + w;
		if (!set[w].pinned && (best < 0 || set[w].stamp < set[best].stamp))
			best = w;
	}
	return best < 0 ? -EBUSY : (set - c->line) + best;
}

static inline u64 dcache_line_ref(const struct edm_dcache *c, const struct edm_dcache_line *l)
{
	return c->cfg.base + (l->gran << c->cfg.gran_shift);
}

/* Copy a dirty line back to the pool; it stays valid, now clean. */
static void dcache_writeback(struct edm_dcache *c, u32 slot)
{
	struct edm_dcache_line *l = &c->line[slot];

	if (!l->dirty)
		return;
	if (c->mem)
		memcpy(c->mem->pool(c->mem->ctx, dcache_line_ref(c, l)),
		       c->mem->slot(c->mem->ctx, slot), 1UL << c->cfg.gran_shift);
	c->stats.writebacks++;
	l->dirty = 0;
}

/* Read the line's granule afresh from the pool. */
static void dcache_fill(struct edm_dcache *c, u32 slot)
{
	if (c->mem)
		memcpy(c->mem->slot(c->mem->ctx, slot),
		       c->mem->pool(c->mem->ctx, dcache_line_ref(c, &c->line[slot])),
		       1UL << c->cfg.gran_shift);
	c->stats.fills++;
}

/*
 * Fill the granule ref lies in, evicting a victim if the set is full: a
 * dirty victim is written back (res->writeback says so), then the granule
 * is read into the slot. A granule already cached is only touched. -EBUSY:
 * every way of the set is pinned, nothing changed.
 */
int edm_dcache_insert(struct edm_dcache *c, u64 ref, bool write, struct edm_dcache_res *res)
{
	struct edm_dcache_line *l;
	u64 gran;
	int slot;

	if (!dcache_inside(c, ref)) {
		c->stats.outside++;
		return -ERANGE;
	}
	gran = dcache_gran(c, ref);
	*res = (struct edm_dcache_res){ 0 };
	slot = dcache_find(c, gran);
	if (slot >= 0) {
		res->slot = slot;
		dcache_touch(c, slot, write);
		return slot;
	}
	slot = dcache_victim(c, gran);
	if (slot < 0) {
		c->stats.busy++;
		return slot;
	}
	l = &c->line[slot];
	if (l->valid) {
		res->evicted = true;
		res->writeback = l->dirty;
		res->victim = dcache_line_ref(c, l);
		c->stats.evictions++;
		dcache_writeback(c, slot);
	} else {
		c->stats.valid++;
	}
	l->gran = gran;
	l->valid = 1;
	l->dirty = 0;
	dcache_fill(c, slot);
	res->slot = slot;
	dcache_touch(c, slot, write);
	return slot;
}

/* One access of len bytes at ref: lookup, and fill on a miss. */
int edm_dcache_access(struct edm_dcache *c, u64 ref, u32 len, bool write,
		      struct edm_dcache_res *res)
{
	int slot;

	if (!dcache_inside(c, ref)) {
		c->stats.outside++;
		return -ERANGE;
	}
	if (len < c->cfg.min_len) {
		c->stats.bypassed++;
		return EDM_DCACHE_BYPASS;
	}
	slot = edm_dcache_lookup(c, ref, write);
	if (slot >= 0) {
		*res = (struct edm_dcache_res){ .slot = slot };
		return EDM_DCACHE_HIT;
	}
	slot = edm_dcache_insert(c, ref, write, res);
	return slot < 0 ? slot : EDM_DCACHE_MISS;
}

/* Write a line back if dirty and drop it; false if it is pinned (kept). */
static bool dcache_drop(struct edm_dcache *c, struct edm_dcache_line *l)
{
	if (l->pinned)
		return false;
	c->stats.flushed++;
	c->stats.flushed_dirty += l->dirty;
	dcache_writeback(c, l - c->line);
	c->stats.valid--;
	*l = (struct edm_dcache_line){ 0 };
	return true;
}

/*
 * Drop the granule ref lies in, written back first if *dirty; returns its
 * slot, -ENOENT if it was not cached, -EBUSY if it is pinned.
 */
int edm_dcache_evict(struct edm_dcache *c, u64 ref, bool *dirty)
{
	int slot;

	if (!dcache_inside(c, ref))
		return -ERANGE;
	slot = dcache_find(c, dcache_gran(c, ref));
	if (slot < 0)
		return slot;
	*dirty = c->line[slot].dirty;
	if (!dcache_drop(c, &c->line[slot]))
		return -EBUSY;
	return slot;
}

/*
 * kfree_shared_skb's flush (4.6): write back and invalidate every line of
 * [ref, ref + len) that lies in the Region, but for pinned ones (the caller
 * unpins first what it frees). Returns the lines dropped.
 */
u32 edm_dcache_flush(struct edm_dcache *c, u64 ref, u64 len)
{
	u64 lo = ref, hi = ref + len, g, g_end, n;
	u32 dropped = 0;
	int slot;

	if (!len || hi < ref)
		hi = len ? ~0ULL : ref;
	if (lo < c->cfg.base)
		lo = c->cfg.base;
	if (hi > c->cfg.base + c->cfg.len)
		hi = c->cfg.base + c->cfg.len;
	if (lo >= hi)
		return 0;
	g = dcache_gran(c, lo);
	g_end = dcache_gran(c, hi - 1) + 1;
	n = (u64)c->cfg.sets * c->cfg.ways;
	if (g_end - g > n) {
		/* More granules than lines: one pass over the lines is cheaper. */
		for (n = 0; n < (u64)c->cfg.sets * c->cfg.ways; n++) {
			struct edm_dcache_line *l = &c->line[n];

			if (l->valid && l->gran >= g && l->gran < g_end)
				dropped += dcache_drop(c, l);
		}
		return dropped;
	}
	for (; g < g_end; g++) {
		slot = dcache_find(c, g);
		if (slot >= 0)
			dropped += dcache_drop(c, &c->line[slot]);
	}
	return dropped;
}

u32 edm_dcache_flush_all(struct edm_dcache *c)
{
	return edm_dcache_flush(c, c->cfg.base, c->cfg.len);
}

/* FAS reference of the granule in slot, or ~0 if the slot is invalid. */
u64 edm_dcache_slot_ref(const struct edm_dcache *c, u32 slot)
{
	const struct edm_dcache_line *l;

	if ((u64)slot >= (u64)c->cfg.sets * c->cfg.ways)
		return ~0ULL;
	l = &c->line[slot];
	return l->valid ? dcache_line_ref(c, l) : ~0ULL;
}

/* ---- the data: loads and stores through the cache ---- */

/*
 * Split [ref, ref + len) at granule ends and call one(c, ref, off, n, arg)
 * for each piece; stops at the first error. -ERANGE unless the whole range
 * lies in the Region.
 */
static int dcache_pieces(struct edm_dcache *c, u64 ref, u32 len,
			 int (*one)(struct edm_dcache *c, u64 ref, u32 off, u32 n, void *arg),
			 void *arg)
{
	u64 gsz = 1ULL << c->cfg.gran_shift;
	u32 off = 0;
	int err;

	if (!c->mem || !len || !dcache_inside(c, ref) || !dcache_inside(c, ref + len - 1) ||
	    ref + len - 1 < ref) {
		c->stats.outside++;
		return -ERANGE;
	}
	while (off < len) {
		u64 at = ref + off, room = gsz - (at & (gsz - 1));
		u32 n = len - off < room ? len - off : (u32)room;

		err = one(c, at, off, n, arg);
		if (err < 0)
			return err;
		off += n;
	}
	return 0;
}

static inline void *dcache_slot_at(struct edm_dcache *c, u32 slot, u64 ref)
{
	return c->mem->slot(c->mem->ctx, slot) + (ref & ((1ULL << c->cfg.gran_shift) - 1));
}

static inline void *dcache_pool_at(struct edm_dcache *c, u64 ref)
{
	u64 mask = (1ULL << c->cfg.gran_shift) - 1;

	return c->mem->pool(c->mem->ctx, ref & ~mask) + (ref & mask);
}

struct dcache_io {
	void *buf;
	u32 len;		/* the whole access's, for the min_len filter */
	bool around;
};

/*
 * The line a piece of an access goes through: the one that holds it, else
 * one allocated for it (a fill), else -ENOENT (the pool): a store around
 * the cache, an access shorter than min_len, or a set of pinned lines.
 */
static int dcache_line_for(struct edm_dcache *c, u64 ref, const struct dcache_io *io, bool write)
{
	struct edm_dcache_res res;
	int slot = dcache_find(c, dcache_gran(c, ref));

	if (slot >= 0) {
		c->stats.hits++;
		dcache_touch(c, slot, write && !io->around);
		return slot;
	}
	if (io->around)
		return -ENOENT;
	if (io->len < c->cfg.min_len) {
		c->stats.bypassed++;
		return -ENOENT;
	}
	c->stats.misses++;
	return edm_dcache_insert(c, ref, write, &res);
}

static int dcache_read_one(struct edm_dcache *c, u64 ref, u32 off, u32 n, void *arg)
{
	struct dcache_io *io = arg;
	int slot = dcache_line_for(c, ref, io, false);

	memcpy(io->buf + off, slot >= 0 ? dcache_slot_at(c, slot, ref) : dcache_pool_at(c, ref), n);
	return 0;
}

/*
 * A load of len bytes at ref: a cached granule is served from its line; a
 * missing one is filled (evicting as needed) and served from it, unless the
 * load is shorter than min_len or every way is pinned: then it comes from
 * the pool as it is, uncached. -ERANGE unless it lies in the Region.
 */
int edm_dcache_read(struct edm_dcache *c, u64 ref, void *dst, u32 len)
{
	struct dcache_io io = { .buf = dst, .len = len };

	return dcache_pieces(c, ref, len, dcache_read_one, &io);
}

static int dcache_write_one(struct edm_dcache *c, u64 ref, u32 off, u32 n, void *arg)
{
	struct dcache_io *io = arg;
	int slot = dcache_line_for(c, ref, io, true);

	if (slot >= 0)
		memcpy(dcache_slot_at(c, slot, ref), io->buf + off, n);
	if (slot < 0 || io->around)
		memcpy(dcache_pool_at(c, ref), io->buf + off, n);
	if (io->around)
		c->stats.around++;
	return 0;
}

/*
 * A store of len bytes at ref. Write-back (around false): the line is
 * allocated (filled first, the store may cover part of it) and dirtied; the
 * pool has the bytes once it is written back. Write-around: the bytes go to
 * the pool, and to a line that holds the granule already, whose dirty bit
 * stays as it was; no line is allocated. Short stores and a set of pinned
 * lines go to the pool. -ERANGE unless it lies in the Region.
 */
int edm_dcache_write(struct edm_dcache *c, u64 ref, const void *src, u32 len, bool around)
{
	struct dcache_io io = { .buf = (void *)src, .len = len, .around = around };

	return dcache_pieces(c, ref, len, dcache_write_one, &io);
}

/*
 * A granule that arrives to be lent: read afresh into a line (a line that
 * held it is written back first if dirty, then refilled, as the pool may
 * have newer bytes around it), which is pinned until edm_dcache_unpin(): it
 * is no victim and no flush drops it. Counted as a miss. Returns the slot,
 * -ERANGE outside the Region, -EBUSY if every way is pinned (the granule
 * among them: it is lent already).
 */
int edm_dcache_fill_pin(struct edm_dcache *c, u64 ref)
{
	struct edm_dcache_res res;
	int slot;

	if (!dcache_inside(c, ref)) {
		c->stats.outside++;
		return -ERANGE;
	}
	slot = dcache_find(c, dcache_gran(c, ref));
	if (slot >= 0 && c->line[slot].pinned) {
		c->stats.busy++;
		return -EBUSY;
	}
	if (slot >= 0) {
		dcache_writeback(c, slot);
		dcache_fill(c, slot);
		dcache_touch(c, slot, false);
	} else {
		slot = edm_dcache_insert(c, ref, false, &res);
		if (slot < 0)
			return slot;
	}
	c->stats.misses++;
	c->line[slot].pinned = 1;
	c->stats.pinned++;
	return slot;
}

void edm_dcache_unpin(struct edm_dcache *c, u32 slot)
{
	if ((u64)slot >= (u64)c->cfg.sets * c->cfg.ways || !c->line[slot].pinned)
		return;
	c->line[slot].pinned = 0;
	c->stats.pinned--;
}

/*
 * The caller gives a pinned line's slot memory away (the cache is going
 * and the slot is still lent): the line is unpinned, written back if
 * dirty and dropped, and counted. -ENOENT if the slot is not pinned.
 */
int edm_dcache_hand_over(struct edm_dcache *c, u32 slot)
{
	if (!edm_dcache_pinned(c, slot))
		return -ENOENT;
	edm_dcache_unpin(c, slot);
	dcache_drop(c, &c->line[slot]);
	c->stats.handed++;
	return 0;
}

bool edm_dcache_pinned(const struct edm_dcache *c, u32 slot)
{
	return (u64)slot < (u64)c->cfg.sets * c->cfg.ways && c->line[slot].pinned;
}
