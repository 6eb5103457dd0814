/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DFabric's memory pool in the kernel (paper 4.1 and 4.5): the pool object
 * (an edm device of type POOL) with its 2 MiB Sections from a NUMA node or
 * from a pmem device (a memory provider, include/edm/memprov.h), its
 * LPPU owning the kernel-agnostic pool core (include/edm/pool_core.h), the
 * per-compute-node allocators (the paper's daemon, struct edm_pool_node)
 * and the shared skb APIs of Table 2 (dfabric/pool_skb.c).
 *
 * Node ids: 0 is the LPPU itself (it holds the Buffers of a node that went
 * away while the network stack still had them); compute nodes get 1 ..
 * EDM_POOL_NNODES - 1.
 *
 * Locking: lppu.lock, a BH-safe spinlock, serializes every call into the
 * core (it takes no lock of its own) and protects the lent map; the data
 * path allocates and frees in softirq. A node's dc_lock protects its DRAM
 * cache (index and lines, dfabric/pool_dc.c) and nests inside lppu.lock.
 * The pool lives while its edm device or a rack holds a reference (kref);
 * users is under the registry lock of the pool's netns.
 */
#ifndef _EDM_POOL_H
#define _EDM_POOL_H

#include <linux/kref.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "edm/dev.h"
#include "edm/memprov.h"
#include "edm/pool_core.h"
#include "edm/pool_dcache.h"

enum {
	EDM_POOL_NNODES		= 64,	/* node ids per pool: the LPPU and 63 CNs */
	EDM_POOL_LPPU_NODE	= 0,
	EDM_POOL_LOC_MEM	= 0,	/* the one location: the pool's memory */
	/* A shared skb is whole pages: up to 64 KB of GSO packet, head and 16 frags. */
	EDM_POOL_SKB_MAX_SHIFT	= 17,
	EDM_POOL_RECLAIM_MS	= 4,	/* the stack's Buffers are looked at this often */
	EDM_POOL_LEFT_MS	= 100,	/* and a gone pmem pool's pages, this often */
	EDM_POOL_NUMA_MAX	= 1023,
	EDM_POOL_DEV_LEN	= 32,	/* a pmem device's path, NUL included */
};

/* A node's DRAM cache lines (sets x ways x gran bytes of local pages) at most. */
#define EDM_DCACHE_DATA_MAX	SZ_64M

#define EDM_POOL_SIZE_MIN	SZ_4M
#define EDM_POOL_SIZE_MAX	(64ULL << 30)

/*
 * One Section: a 2 MiB block from the page allocator, split into pages, or
 * of a pmem device's memory, whose pages the device's memmap has already.
 */
struct edm_pool_sec {
	struct page *first;
};

/* The paper's LPPU: it owns the pool (and, later, the NIC pool). */
struct edm_lppu {
	spinlock_t lock;	/* BH-safe; protects core, lent, lent_node, nodes, counters */
	struct edm_pool *core;
	unsigned long *lent;	/* [npages] set: a Buffer starting there is lent to the stack */
	u8 *lent_node;		/* [npages] the node holding a lent Buffer */
	u32 *lent_len;		/* [npages] the packet length it carries */
	/* page -> the DRAM cache line a lent Buffer was read into (pool_dc.c) */
	struct xarray lent_slot;
	struct edm_pool_node *nodes[EDM_POOL_NNODES];	/* for the flush on reclaim */
	/* ids of nodes gone while Sections of theirs held Buffers the stack had */
	DECLARE_BITMAP(dead, EDM_POOL_NNODES);
	u64 nlent, allocs, skbs, reclaimed;
};

struct edm_mpool {
	struct kref ref;
	struct edm_dev *edev;	/* registry lock; NULL once the device is deleted */
	struct edm_lppu lppu;
	int nid;		/* NUMA node it came from, NUMA_NO_NODE: any */
	bool charged;
	u64 size;
	u32 nsections;
	u32 npages;
	struct edm_pool_sec *sec;	/* [nsections] */
	struct ida ids;		/* compute node ids */
	u32 users;		/* racks using it; registry lock */
	struct xarray regions;	/* ID -> struct edm_pool_region; registry lock */
	struct delayed_work reclaim;
	/* on a pmem device: its memory and path; else prov.ops is NULL */
	struct edm_memprov prov;
	char dev[EDM_POOL_DEV_LEN];
};

/* A compute node's allocator in the pool: the paper's per-CN daemon. */
struct edm_pool_node {
	struct edm_mpool *pool;	/* referenced */
	u32 id;
	spinlock_t dc_lock;	/* BH-safe; protects dc and dc_cfg, inside lppu.lock */
	struct edm_dcache *dc;	/* its DRAM cache index, NULL: none */
	struct edm_pool_dcdata *dcd;	/* and the lines' pages */
	struct edm_dcache_cfg dc_cfg;
	u32 dc_region;
	struct edm_dcache_stats dc_old;	/* counters of caches it had before */
};

struct edm_mpool_cfg {
	u64 size;
	int nid;		/* NUMA_NO_NODE: any node */
	const char *dev;	/* a pmem device's path, or NULL: RAM */
	u32 region_sections;
	u32 keep;
	u32 node_quota;
};

/* Counters and geometry for netlink, read under the LPPU lock. */
struct edm_mpool_info {
	u32 nsections, nregions, region_sections, keep, node_quota;
	struct edm_pool_stats core;
	u64 buffers, allocs, nlent, skbs, reclaimed;
};

static inline struct edm_mpool *edm_mpool_of(const struct edm_dev *dev)
{
	return dev->type_priv;
}

void edm_mpool_get(struct edm_mpool *p);
void edm_mpool_put(struct edm_mpool *p);
void edm_mpool_info(struct edm_mpool *p, struct edm_mpool_info *info);
int edm_mpool_set(struct edm_mpool *p, u32 keep, u32 node_quota);

/* The per-node allocator. */
int edm_pool_node_init(struct edm_pool_node *n, struct edm_mpool *p,
		       struct netlink_ext_ack *extack);
void edm_pool_node_fini(struct edm_pool_node *n);
void edm_pool_node_stats(struct edm_pool_node *n, struct edm_pool_node_stats *ns,
			 struct edm_dcache_stats *dcs);

/* The node's DRAM cache (dfabric/pool_dc.c). */
struct edm_pool_dcdata;
int edm_pool_node_dcache_set(struct edm_pool_node *n, u32 region, u32 sets, u32 ways,
			     u32 gran, u32 min_len, struct netlink_ext_ack *extack);
void edm_pool_node_dcache_fini(struct edm_pool_node *n);
void edm_pool_node_dcache_flush(struct edm_pool_node *n, u64 ref, u64 len);
void edm_pool_node_dcache_around(struct edm_pool_node *n, u64 ref, u32 len);
struct page *edm_pool_node_dcache_lend(struct edm_pool_node *n, u64 ref, u32 span, u32 len,
				       u32 gpg);
struct page *edm_mpool_line_page(struct edm_mpool *p, u32 gpg, u32 node);
void edm_mpool_line_return(struct edm_mpool *p, u32 gpg, u32 node, u64 ref, u32 size,
			   bool read);
void edm_mpool_lines_free(struct edm_mpool *p);

/* Table 2 of the paper, and what a driver needs around it (dfabric/pool.c, dfabric/pool_skb.c). */
int edm_alloc_shared_buffer(struct edm_pool_node *n, u32 size, u32 loc, u64 *ref, void **va);
void edm_free_shared_buffer(struct edm_pool_node *n, u64 ref);
int edm_pass_shared_buffer(struct edm_pool_node *from, struct edm_pool_node *to, u64 ref,
			   u32 len);
u32 edm_shared_skb_span(u32 len);
u32 edm_shared_skb_pages(u32 len);
void edm_shared_skb_fill(struct edm_pool_node *n, u64 ref, void *buf, const struct sk_buff *skb);
struct sk_buff *edm_build_shared_skb(struct edm_pool_node *n, struct napi_struct *napi,
				     u64 ref, u32 len);
void edm_kfree_shared_skb(struct edm_pool_node *n, struct sk_buff *skb, u64 ref);

struct edm_net;
struct edm_mpool *edm_pool_find_name(struct edm_net *en, const char *name);

/* dfabric/pool.c, for dfabric/pool_skb.c */
struct page *edm_mpool_ref_page(struct edm_mpool *p, const struct edm_pool_buf *b);
struct page *edm_mpool_lend_locked(struct edm_pool_node *n, const struct edm_pool_buf *b,
				   u64 ref, u32 len, u32 span);
void edm_mpool_unlend(struct edm_pool_node *n, const struct edm_pool_buf *b, u64 ref,
		      struct page *page, u32 len);
void edm_mpool_reclaim_soon(struct edm_mpool *p);
bool edm_mpool_try_return(struct edm_mpool *p, u64 ref);

#endif /* _EDM_POOL_H */
