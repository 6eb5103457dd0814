/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions, what a Cowbird instance binds to with a key: a fabric
 * memory host's local region (fabric/region.c) or a pool region
 * (dfabric/pool_region.c), both shown and rekeyed by cowbird/region_nl.c.
 *
 * A pool region is whole 2 MiB Sections of a pool, held by a node id of its
 * own in the pool (as a compute node holds its Buffers), so every reference
 * it uses is checked against that node's mapping like any other. The pool
 * keeps its regions in an xarray by ID, changed and walked under the
 * registry lock of the pool's netns. A region is counted (kref): a bound
 * Cowbird instance keeps it, and it keeps the pool; a deleted region is
 * dead (every access EACCES) and goes with its last reference.
 *
 * Locking: r->lock (a spinlock, never taken in BH) protects key, key_gen,
 * dead and the counters, and is held across each copy, so a copy is atomic
 * against a rekey and against other copies.
 */
#ifndef _EDM_REGION_H
#define _EDM_REGION_H

#include <linux/kref.h>
#include <linux/spinlock.h>
#include <uapi/linux/edm.h>

/* What netlink shows of a region, either kind. */
struct edm_region_info {
	u32 addr;			/* its ID: a host's fabric address, or the pool's */
	u64 size;
	u64 key;
	u32 key_gen;			/* rekeys so far */
	u64 stats[__EDM_A_RSTAT_CNT];	/* indexed by EDM_A_RSTAT_*; 0 = unused */
};

struct edm_mpool;
struct netlink_ext_ack;

struct edm_pool_region {
	struct kref ref;
	struct edm_mpool *pool;		/* referenced */
	u32 node;			/* its node id in the pool, holding the Sections */
	u32 id;
	u32 nsec;
	u64 size;			/* nsec Sections */
	spinlock_t lock;
	bool dead;
	u64 key;
	u32 key_gen;
	u64 stats[__EDM_A_RSTAT_CNT];
	u64 *refs;			/* [nsec] FAS references of its Sections */
	u8 **va;			/* [nsec] their kernel addresses */
};

/* dfabric/pool_region.c; create, delete and lookups under the registry lock */
int edm_pool_region_create(struct edm_mpool *p, u32 id, u64 size,
			   struct edm_pool_region **out, struct netlink_ext_ack *extack);
void edm_pool_region_delete(struct edm_pool_region *r);
void edm_pool_regions_delete(struct edm_mpool *p);
struct edm_pool_region *edm_pool_region_next(struct edm_mpool *p, unsigned long *id);
void edm_pool_region_get(struct edm_pool_region *r);
void edm_pool_region_put(struct edm_pool_region *r);

/* any context that may sleep, with a reference */
int edm_pool_region_io(struct edm_pool_region *r, u64 key, u64 off, void *buf, u32 len,
		       bool write);
void edm_pool_region_rekey(struct edm_pool_region *r);
void edm_pool_region_info(struct edm_pool_region *r, struct edm_region_info *ri);

#endif /* _EDM_REGION_H */
