/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NETi zones: the memory of one NetDIMM, its sub-array aware allocator, the
 * allocCache and the in-memory clone engine (NetDIMM paper, section 4.2.1).
 *
 * A zone is addressed by zone offset, the DIMM's own address space, to
 * which its DRAM geometry applies. In emulation it is built from 2 MiB
 * blocks of the page allocator, split into order-0 pages so that each page
 * has its own reference count: the zone holds one reference on every page
 * for its whole life, and a page it hands to the network stack or to a
 * user mapping is "lent" until its count falls back to one. genalloc does
 * the allocation; the geometry core picks the sub-array.
 */
#ifndef _EDM_NETDIMM_ZONE_H
#define _EDM_NETDIMM_ZONE_H

#include <linux/genalloc.h>
#include <linux/mm_types.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <uapi/linux/edm.h>

#include "edm/netdimm_geom.h"

enum {
	EDM_NETDIMM_CHUNK_ORDER = 9,	/* 2 MiB blocks: huge-page sized, easy to find */
	EDM_NETDIMM_CHUNK_SHIFT = EDM_NETDIMM_CHUNK_ORDER + PAGE_SHIFT,
	EDM_NETDIMM_CACHE_WAYS = 2,	/* allocCache pages per sub-array (paper) */
	EDM_NETDIMM_WORK_MS = 20,		/* background refill and reclaim period */
};

/* Counters, indexed like the EDM_A_NDSTAT_* attributes that report them. */
struct edm_netdimm_stats {
	u64 v[__EDM_A_NDSTAT_CNT];
};

#define edm_netdimm_stat_inc(ctrs, attr)	this_cpu_inc((ctrs)->v[attr])
#define edm_netdimm_stat_add(ctrs, attr, n)	this_cpu_add((ctrs)->v[attr], n)
void edm_netdimm_stats_sum(struct edm_netdimm_stats __percpu *ctrs, struct edm_netdimm_stats *sum);

struct edm_netdimm_zone;

/* One 2 MiB block of a zone, found from any of its pages' pfn. */
struct edm_netdimm_chunk {
	struct edm_netdimm_zone *zone;
	struct page *first;
	u32 idx;
};

/* allocCache entries of one sub-array: zone page numbers. */
struct edm_netdimm_zone_slot {
	u32 pg[EDM_NETDIMM_CACHE_WAYS];
	u8 n;
};

struct edm_netdimm_zone {
	u32 index;			/* the i of NET<i> */
	char name[16];
	int nid;
	u64 size;
	bool charged;			/* counted in the zones' memory total */
	u64 npages;
	u32 nchunks;
	struct edm_netdimm_geom geom;
	struct gen_pool *pool;		/* addresses: zone offset + PAGE_SIZE */
	struct edm_netdimm_chunk *chunks;

	spinlock_t lock;		/* protects lent, nlent, cache, low, ncached */
	unsigned long *lent;		/* pages lent out, by zone page number */
	u64 nlent;
	struct edm_netdimm_zone_slot *cache;	/* the allocCache, by sub-array ID */
	unsigned long *low;		/* sub-arrays whose slot needs a refill */
	u64 nslots, ncached;

	struct delayed_work work;	/* reclaim, then refill */
	struct work_struct refill;	/* refill only: kicked by the data path */
	struct edm_netdimm_stats __percpu *ctrs;
};

struct edm_netdimm_zone *edm_netdimm_zone_create(u64 size, int nid,
						 const struct edm_netdimm_geom *geom,
						 struct netlink_ext_ack *extack);
void edm_netdimm_zone_destroy(struct edm_netdimm_zone *z);

struct page *edm_netdimm_alloc_pages(struct edm_netdimm_zone *z, s64 hint, unsigned int order);
void edm_netdimm_free_pages(struct edm_netdimm_zone *z, struct page *page, unsigned int order);
void edm_netdimm_lend(struct edm_netdimm_zone *z, struct page *page);
bool edm_netdimm_owns(const struct edm_netdimm_zone *z, const struct page *page);
s64 edm_netdimm_page_off(const struct edm_netdimm_zone *z, const struct page *page);

void edm_netdimm_clone(struct edm_netdimm_zone *z, struct page *dst, u32 doff, struct page *src,
		       u32 soff, u32 len);

#endif /* _EDM_NETDIMM_ZONE_H */
