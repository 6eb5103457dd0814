/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DFabric's CXL-attached DRAM cache (paper 4.6), the index of it, a
 * kernel-agnostic core (include/edm/core.h): a set-associative cache of the
 * Buffers of one configured Region of the FAS, one line per granule (the
 * Buffer size), with its tags kept apart from the data as the paper's card
 * keeps them on chip.
 *
 * A line is granule g of the Region (g = (ref - base) >> gran_shift); it
 * lives in set g % sets, in any of its ways; the victim is an invalid way,
 * else the least recently used that is not pinned. Accesses shorter than
 * min_len bypass the cache (the paper's filter for SYN and ACK sized
 * packets).
 *
 * The data: given a struct edm_dcache_mem, the core moves the bytes itself,
 * between the caller's pool memory and its local slots (granule bytes per
 * slot). A fill copies the granule from the pool into the slot, a dirty
 * victim is copied back first, a flush or evict writes a dirty line back
 * before dropping it. edm_dcache_read() and edm_dcache_write() are the
 * loads and stores of a compute node through its port: a hit is served
 * from the slot; a store either allocates and dirties the line (write-back)
 * or goes around it to the pool (write-around, the stack's policy, 4.5),
 * updating a line that is there. edm_dcache_fill_pin() reads a granule
 * afresh into a line that then stays until edm_dcache_unpin(): the caller
 * lends the slot (a received packet's skb is built on it). Without a mem,
 * the index alone is kept (the hand tests of the tags use that).
 *
 * No allocation, no clock, no lock: the caller sizes the memory with
 * edm_dcache_size() and serializes every call on one cache.
 */
#ifndef _EDM_POOL_DCACHE_H
#define _EDM_POOL_DCACHE_H

#include "edm/core.h"

enum {
	EDM_DCACHE_MAX_SETS	= 1 << 20,
	EDM_DCACHE_MAX_WAYS	= 16,
	EDM_DCACHE_MIN_SHIFT	= 6,		/* a cache line */
	EDM_DCACHE_MAX_SHIFT	= 21,		/* a Section */
};

/* What edm_dcache_access() did. */
enum edm_dcache_result {
	EDM_DCACHE_HIT,
	EDM_DCACHE_MISS,		/* filled; res says what was evicted */
	EDM_DCACHE_BYPASS,		/* shorter than min_len: not cached */
};

struct edm_dcache_cfg {
	u64 base;		/* FAS reference of the Region's first byte, granule aligned */
	u64 len;		/* bytes of FAS cached, a multiple of the granule */
	u32 sets;		/* a power of two, 1..EDM_DCACHE_MAX_SETS */
	u32 ways;		/* 1..EDM_DCACHE_MAX_WAYS */
	u32 gran_shift;		/* granule, the Buffer size: 2^6 .. 2^21 bytes */
	u32 min_len;		/* shorter accesses bypass the cache */
};

/*
 * The data's two homes, for the core to copy between: the kernel address of
 * the granule at FAS reference ref (granule aligned) in pool memory, and of
 * slot's granule bytes of local memory.
 */
struct edm_dcache_mem {
	void *(*pool)(void *ctx, u64 ref);
	void *(*slot)(void *ctx, u32 slot);
	void *ctx;
};

struct edm_dcache_stats {
	u64 hits;
	u64 misses;
	u64 fills;		/* granules copied from the pool into a line */
	u64 evictions;		/* valid lines replaced by a fill */
	u64 writebacks;		/* dirty lines copied back: victims, flushes, evicts */
	u64 flushed;		/* lines invalidated by flush or evict */
	u64 flushed_dirty;	/* of them dirty */
	u64 bypassed;
	u64 outside;		/* accesses outside the Region */
	u64 around;		/* stores that went around to the pool */
	u64 busy;		/* fills refused: every way of the set pinned */
	u64 handed;		/* pinned lines whose slot the caller gave away */
	u32 valid;		/* valid lines now */
	u32 pinned;		/* of them pinned now */
};

/* A fill's outcome: the slot to fill, and the line it displaced. */
struct edm_dcache_res {
	u32 slot;		/* set * ways + way */
	bool evicted;		/* a valid line was replaced */
	bool writeback;		/* and it was dirty */
	u64 victim;		/* FAS reference of the replaced granule */
};

struct edm_dcache_line;

struct edm_dcache {
	struct edm_dcache_cfg cfg;
	const struct edm_dcache_mem *mem;	/* NULL: tags only */
	u32 set_mask;
	u64 clock;			/* LRU stamps */
	struct edm_dcache_stats stats;
	struct edm_dcache_line *line;	/* [sets][ways] */
};

size_t edm_dcache_size(u32 sets, u32 ways);
int edm_dcache_cfg_check(const struct edm_dcache_cfg *cfg);
int edm_dcache_init(void *mem, const struct edm_dcache_cfg *cfg,
		    const struct edm_dcache_mem *data);
int edm_dcache_lookup(struct edm_dcache *c, u64 ref, bool write);
int edm_dcache_insert(struct edm_dcache *c, u64 ref, bool write, struct edm_dcache_res *res);
int edm_dcache_access(struct edm_dcache *c, u64 ref, u32 len, bool write,
		      struct edm_dcache_res *res);
int edm_dcache_evict(struct edm_dcache *c, u64 ref, bool *dirty);
u32 edm_dcache_flush(struct edm_dcache *c, u64 ref, u64 len);
u32 edm_dcache_flush_all(struct edm_dcache *c);
u64 edm_dcache_slot_ref(const struct edm_dcache *c, u32 slot);
int edm_dcache_read(struct edm_dcache *c, u64 ref, void *dst, u32 len);
int edm_dcache_write(struct edm_dcache *c, u64 ref, const void *src, u32 len, bool around);
int edm_dcache_fill_pin(struct edm_dcache *c, u64 ref);
void edm_dcache_unpin(struct edm_dcache *c, u32 slot);
int edm_dcache_hand_over(struct edm_dcache *c, u32 slot);
bool edm_dcache_pinned(const struct edm_dcache *c, u32 slot);

#endif /* _EDM_POOL_DCACHE_H */
