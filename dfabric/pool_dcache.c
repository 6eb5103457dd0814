// SPDX-License-Identifier: GPL-2.0
/*
 * The DRAM cache index (see include/edm/pool_dcache.h): tags, LRU and
 * counters of a set-associative cache of one Region's Buffers.
 *
 * What it owns: one block of caller memory, the header then sets * ways
 * lines. A line records its granule number (the whole of it, not only the
 * bits above the set index, so a victim's address is exact), a last-use stamp
 * from a per-cache clock, and valid and dirty bits. Lookup and fill are
 * O(ways); a flush is O(ways) per granule it covers, capped at one pass over
 * every line.
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
int edm_dcache_init(void *mem, const struct edm_dcache_cfg *cfg)
{
	struct edm_dcache *c = mem;
	u64 i, n;
	int err;

	err = edm_dcache_cfg_check(cfg);
	if (err)
		return err;
	c->cfg = *cfg;
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

/* An invalid way of the set, else its least recently used. */
static u32 dcache_victim(const struct edm_dcache *c, u64 gran)
{
	const struct edm_dcache_line *set = dcache_set(c, gran);
	u32 w, best = 0;

	for (w = 0; w < c->cfg.ways; w++) {
		if (!set[w].valid)
			return (set - c->line) + w;
		if (set[w].stamp < set[best].stamp)
			best = w;
	}
	return (set - c->line) + best;
}

/*
 * Fill the granule ref lies in, evicting a victim if the set is full; the
 * caller writes the victim back if res->writeback, then reads the Buffer
 * into the slot. A granule already cached is only touched.
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
	l = &c->line[slot];
	if (l->valid) {
		res->evicted = true;
		res->writeback = l->dirty;
		res->victim = c->cfg.base + (l->gran << c->cfg.gran_shift);
		c->stats.evictions++;
		c->stats.writebacks += l->dirty;
	} else {
		c->stats.valid++;
	}
	l->gran = gran;
	l->valid = 1;
	l->dirty = 0;
	c->stats.fills++;
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
	edm_dcache_insert(c, ref, write, res);
	return EDM_DCACHE_MISS;
}

static void dcache_drop(struct edm_dcache *c, struct edm_dcache_line *l)
{
	c->stats.flushed++;
	c->stats.flushed_dirty += l->dirty;
	c->stats.valid--;
	*l = (struct edm_dcache_line){ 0 };
}

/*
 * Drop the granule ref lies in; returns its slot (the caller writes it back
 * if *dirty) or -ENOENT if it was not cached.
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
	dcache_drop(c, &c->line[slot]);
	return slot;
}

/*
 * kfree_shared_skb's flush (4.6): invalidate every line of [ref, ref + len)
 * that lies in the Region. The Buffer is being freed, so dirty lines are
 * dropped, not written back (counted in flushed_dirty); a caller that needs
 * the data evicts granule by granule instead. Returns the lines dropped.
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

			if (l->valid && l->gran >= g && l->gran < g_end) {
				dcache_drop(c, l);
				dropped++;
			}
		}
		return dropped;
	}
	for (; g < g_end; g++) {
		slot = dcache_find(c, g);
		if (slot >= 0) {
			dcache_drop(c, &c->line[slot]);
			dropped++;
		}
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
	return l->valid ? c->cfg.base + (l->gran << c->cfg.gran_shift) : ~0ULL;
}
