// SPDX-License-Identifier: GPL-2.0
/*
 * The DFabric memory pool object (include/edm/pool.h): an edm device of type
 * POOL whose memory is 2 MiB Sections from the page allocator, its LPPU that
 * owns the pool core (dfabric/pool_core.c) and maps every Section into the FAS at
 * creation (the paper's bootstrap, 4.1), the per-compute-node allocators
 * that apply Sections in advance, and the return of Buffers the network
 * stack has let go of.
 *
 * Memory: each Section is alloc_pages_node(nid, __GFP_THISNODE, order 9)
 * when the user named a NUMA node (a CPU-less node is a CXL expander), else
 * order 9 from any node; then split_page(), so that every page has its own
 * reference count. Or the pool is on a pmem device (the pmem memory
 * provider: an fsdax namespace of an NVDIMM or a CXL pmem region), whose
 * pages the kernel's memmap already has, each idle at one reference (DAX
 * pages are), and the Sections are its 2 MiB blocks. A Buffer lent to the
 * stack (dfabric/pool_skb.c) is returned when all its pages are back to the
 * one reference the pool holds: the kernel frees skb memory by page
 * reference, never through a callback that the pool could hook (see
 * pool_skb.c).
 *
 * A pool freed while the stack still holds pages of its: RAM pages live on
 * with the stack's references and go back to the page allocator with them.
 * A pmem device's pages cannot (the device unmaps them when it is given
 * back), so its memory waits in a leftover until every page is idle; the
 * leftover holds the module (rmmod says it is in use), and the module's
 * exit waits for the last ones, saying so every 10 s, as a netdev's
 * unregistering waits for its references.
 *
 * Locking: lppu.lock (BH-safe) serializes every core call and protects the
 * lent map, the node table and the counters; a node's dc_lock nests inside
 * it. The reclaim work scans the lent map in slices, dropping the lock in
 * between. The pool is freed on its last kref: its device and each rack
 * using it hold one. Pages the stack still holds at that point live on
 * with the stack's references and go back to the page allocator with them;
 * a pmem pool's leftovers are on edm_mpool_leftovers (edm_mpool_left_lock).
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "edm/edm.h"
#include "edm/pool.h"
#include "edm/region.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define EDM_SEC_ORDER		(EDM_POOL_SECTION_SHIFT - PAGE_SHIFT)
#define EDM_SEC_PAGES		BIT(EDM_SEC_ORDER)
#define EDM_RECLAIM_SLICE	4096	/* lent-map bits scanned per lock hold */

/* Bytes of RAM held by all pools: together they may take half of the memory. */
static atomic64_t edm_pool_bytes = ATOMIC64_INIT(0);

/*
 * A pmem pool's memory after the pool: given back to its device once the
 * stack holds none of its pages (see the head comment).
 */
struct edm_mpool_leftover {
	struct list_head node;		/* edm_mpool_leftovers */
	struct edm_memprov prov;
	struct page *first;		/* the pool's first page; the rest follow */
	u32 npages;
	bool module_held;		/* it holds THIS_MODULE */
	char dev[EDM_POOL_DEV_LEN];
};

static DEFINE_MUTEX(edm_mpool_left_lock);
static LIST_HEAD(edm_mpool_leftovers);
static void edm_mpool_left_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(edm_mpool_left_dwork, edm_mpool_left_work);

void edm_mpool_get(struct edm_mpool *p)
{
	kref_get(&p->ref);
}

/* The first page of the Buffer @b names. */
struct page *edm_mpool_ref_page(struct edm_mpool *p, const struct edm_pool_buf *b)
{
	return p->sec[b->phys].first + (b->start >> PAGE_SHIFT);
}

/* The pool page the Buffer @b starts at: its index in the lent map. */
static u32 edm_mpool_buf_gpg(const struct edm_pool_buf *b)
{
	return b->phys * EDM_SEC_PAGES + (b->start >> PAGE_SHIFT);
}

/* Are all @npg pages from @page back to our one reference? */
static bool edm_pages_idle(const struct page *page, u32 npg)
{
	u32 i;

	for (i = 0; i < npg; i++)
		if (page_ref_count(page + i) != 1)
			return false;
	return true;
}

/*
 * The release of the paper's kfree_shared_skb (4.5) for a lent Buffer: if
 * the stack let go of it (of its pages, and of its DRAM cache line's if it
 * was read into one), its holder frees it and the line is flushed; @read:
 * the stack consumed it, so the receiving socket read the payload first.
 * Lock held; @gpg is the Buffer's first page.
 */
static bool edm_mpool_return_locked(struct edm_mpool *p, u32 gpg, bool read)
{
	struct edm_lppu *l = &p->lppu;
	u32 phys = gpg / EDM_SEC_PAGES, pi = gpg % EDM_SEC_PAGES;
	u32 size = edm_pool_class_size(l->core, edm_pool_sec_class(l->core, phys));
	u8 node = l->lent_node[gpg];
	struct page *line;
	u64 ref;

	lockdep_assert_held(&l->lock);
	if (!edm_pages_idle(p->sec[phys].first + pi, size >> PAGE_SHIFT))
		return false;
	line = edm_mpool_line_page(p, gpg, node);
	if (line && !edm_pages_idle(line, edm_shared_skb_pages(l->lent_len[gpg])))
		return false;
	ref = edm_pool_ref(edm_pool_sec_fas(l->core, phys), pi << PAGE_SHIFT);
	__clear_bit(gpg, l->lent);
	l->nlent--;
	l->reclaimed++;
	WARN_ON_ONCE(edm_pool_free(l->core, node, ref));
	edm_mpool_line_return(p, gpg, node, ref, size, read);
	return true;
}

/* kfree_shared_skb's fast path: the Buffer at FAS @ref, if it is idle now. */
bool edm_mpool_try_return(struct edm_mpool *p, u64 ref)
{
	u32 phys = edm_pool_fas_to_phys(p->lppu.core, ref), gpg;
	bool done = false;

	if (WARN_ON_ONCE(phys >= p->nsections))
		return false;
	gpg = phys * EDM_SEC_PAGES + ((ref & (EDM_POOL_SECTION_SIZE - 1)) >> PAGE_SHIFT);
	spin_lock_bh(&p->lppu.lock);
	if (test_bit(gpg, p->lppu.lent))
		done = edm_mpool_return_locked(p, gpg, false);
	spin_unlock_bh(&p->lppu.lock);
	return done;
}

/*
 * Node @n lends the Buffer @b at @ref, carrying a packet of @len bytes in
 * @span bytes of the shared skb layout, to the stack (lock held): read into
 * a DRAM cache line if the node's cache takes it, else as it is. Takes the
 * stack's reference on each page of the packet (the head's, dropped by
 * page_frag_free(), and one per fragment) and returns the first page.
 */
struct page *edm_mpool_lend_locked(struct edm_pool_node *n, const struct edm_pool_buf *b,
				   u64 ref, u32 len, u32 span)
{
	u32 gpg = edm_mpool_buf_gpg(b), i;
	struct edm_lppu *l = &n->pool->lppu;
	struct page *page;

	lockdep_assert_held(&l->lock);
	page = edm_pool_node_dcache_lend(n, ref, span, len, gpg) ?:
	       edm_mpool_ref_page(n->pool, b);
	for (i = 0; i < edm_shared_skb_pages(len); i++)
		get_page(page + i);
	if (!__test_and_set_bit(gpg, l->lent))
		l->nlent++;
	l->lent_node[gpg] = n->id;
	l->lent_len[gpg] = len;
	l->skbs++;
	return page;
}

/* No skb could be built on what edm_mpool_lend_locked() lent: the Buffer is @n's again. */
void edm_mpool_unlend(struct edm_pool_node *n, const struct edm_pool_buf *b, u64 ref,
		      struct page *page, u32 len)
{
	u32 gpg = edm_mpool_buf_gpg(b), i;
	struct edm_lppu *l = &n->pool->lppu;

	spin_lock_bh(&l->lock);
	for (i = 0; i < edm_shared_skb_pages(len); i++)
		put_page(page + i);
	if (__test_and_clear_bit(gpg, l->lent))
		l->nlent--;
	l->skbs--;
	edm_mpool_line_return(n->pool, gpg, n->id, ref, b->size, false);
	spin_unlock_bh(&l->lock);
}

void edm_mpool_reclaim_soon(struct edm_mpool *p)
{
	if (!delayed_work_pending(&p->reclaim))
		schedule_delayed_work(&p->reclaim, msecs_to_jiffies(EDM_POOL_RECLAIM_MS));
}

/*
 * A node that went away while the stack had Buffers of its Sections keeps
 * its id until those Sections are empty and back with the LPPU.
 */
static void edm_mpool_bury(struct edm_mpool *p)
{
	struct edm_lppu *l = &p->lppu;
	unsigned long id;

	spin_lock_bh(&l->lock);
	for_each_set_bit(id, l->dead, EDM_POOL_NNODES) {
		edm_pool_node_flush(l->core, id);
		if (l->core->node[id].sections)
			continue;
		__clear_bit(id, l->dead);
		ida_free(&p->ids, id);
	}
	spin_unlock_bh(&l->lock);
}

/* Return every lent Buffer the stack is done with. */
static void edm_mpool_reclaim(struct edm_mpool *p)
{
	struct edm_lppu *l = &p->lppu;
	unsigned long gpg;
	u32 start;

	for (start = 0; start < p->npages; start += EDM_RECLAIM_SLICE) {
		u32 end = min_t(u32, start + EDM_RECLAIM_SLICE, p->npages);

		spin_lock_bh(&l->lock);
		gpg = start;
		for_each_set_bit_from(gpg, l->lent, end)
			edm_mpool_return_locked(p, gpg, true);
		spin_unlock_bh(&l->lock);
	}
	if (!bitmap_empty(l->dead, EDM_POOL_NNODES))
		edm_mpool_bury(p);
}

static void edm_mpool_reclaim_work(struct work_struct *work)
{
	struct edm_mpool *p = container_of(to_delayed_work(work), struct edm_mpool, reclaim);

	edm_mpool_reclaim(p);
	if (READ_ONCE(p->lppu.nlent) || !bitmap_empty(p->lppu.dead, EDM_POOL_NNODES))
		schedule_delayed_work(&p->reclaim, msecs_to_jiffies(EDM_POOL_RECLAIM_MS));
}

/*
 * alloc_shared_buffer (Table 2): a Buffer of at least @size bytes for node
 * @n at location @loc (EDM_POOL_LOC_ANY: anywhere), and its kernel address
 * in *@va (the CXL port's check passes trivially for a Buffer just handed
 * to @n, so it is resolved in the same critical section). An exhausted pool
 * first takes back what the stack let go of, then says -ENOMEM (counted).
 */
int edm_alloc_shared_buffer(struct edm_pool_node *n, u32 size, u32 loc, u64 *ref, void **va)
{
	struct edm_lppu *l = &n->pool->lppu;
	struct edm_pool_buf b;
	int err, tries;

	if (size > 1U << EDM_POOL_SKB_MAX_SHIFT)
		return -E2BIG;		/* Section-sized Buffers are for regions */
	for (tries = 0; tries < 2; tries++) {
		spin_lock_bh(&l->lock);
		err = edm_pool_alloc(l->core, n->id, size, loc, 0, ref);
		if (!err) {
			l->allocs++;
			if (WARN_ON_ONCE(edm_pool_ref_resolve(l->core, n->id, *ref, size, &b))) {
				edm_pool_free(l->core, n->id, *ref);
				err = -EFAULT;
			}
		}
		spin_unlock_bh(&l->lock);
		if (err != -ENOMEM || !READ_ONCE(l->nlent))
			break;
		edm_mpool_reclaim(n->pool);
	}
	if (!err)
		*va = page_address(n->pool->sec[b.phys].first) + b.off;
	trace_edm_pool_alloc(n->id, size, err ? 0 : *ref, err);
	return err;
}

/* Free a Buffer @n holds and that no skb refers to. */
void edm_free_shared_buffer(struct edm_pool_node *n, u64 ref)
{
	struct edm_lppu *l = &n->pool->lppu;
	struct edm_pool_buf b;
	int err;

	spin_lock_bh(&l->lock);
	err = edm_pool_ref_resolve(l->core, n->id, ref, 1, &b);
	if (!err)
		err = edm_pool_free(l->core, n->id, ref);
	spin_unlock_bh(&l->lock);
	trace_edm_pool_free(n->id, ref);
	if (!err)
		edm_pool_node_dcache_flush(n, edm_pool_ref(ref >> EDM_POOL_SECTION_SHIFT, b.start),
					   b.size);
	WARN_ON_ONCE(err);
}

/* Pass-by-reference (4.3): @from hands [@ref, @ref + @len) to @to. */
int edm_pass_shared_buffer(struct edm_pool_node *from, struct edm_pool_node *to, u64 ref,
			   u32 len)
{
	struct edm_lppu *l = &from->pool->lppu;
	int err;

	spin_lock_bh(&l->lock);
	err = edm_pool_pass(l->core, from->id, to->id, ref, len);
	spin_unlock_bh(&l->lock);
	trace_edm_pool_pass(from->id, to->id, ref, len, err);
	return err;
}

void edm_mpool_info(struct edm_mpool *p, struct edm_mpool_info *info)
{
	struct edm_lppu *l = &p->lppu;
	u32 c;

	spin_lock_bh(&l->lock);
	info->nsections = p->nsections;
	info->nregions = l->core->nregions;
	info->region_sections = l->core->cfg.region_sections;
	info->keep = l->core->cfg.keep;
	info->node_quota = l->core->cfg.node_quota;
	info->core = l->core->stats;
	info->buffers = 0;
	for (c = 0; c < l->core->nclasses; c++)
		info->buffers += l->core->cls[c].in_use;
	info->allocs = l->allocs;
	info->nlent = l->nlent;
	info->skbs = l->skbs;
	info->reclaimed = l->reclaimed;
	spin_unlock_bh(&l->lock);
}

/* 1 if that changed something, else 0. */
int edm_mpool_set(struct edm_mpool *p, u32 keep, u32 node_quota)
{
	struct edm_pool_cfg *cfg = &p->lppu.core->cfg;
	int changed;

	spin_lock_bh(&p->lppu.lock);
	changed = cfg->keep != keep || cfg->node_quota != node_quota;
	cfg->keep = keep;
	cfg->node_quota = node_quota;
	spin_unlock_bh(&p->lppu.lock);
	return changed;
}

/* ---- compute nodes: the paper's daemon ---- */

/* Sections applied in advance (4.1): one per size class the shared skbs use. */
static int edm_pool_node_apply(struct edm_pool_node *n)
{
	static const u32 shifts[] = { PAGE_SHIFT, EDM_POOL_SKB_MAX_SHIFT };
	struct edm_lppu *l = &n->pool->lppu;
	int i, s = 0;

	spin_lock_bh(&l->lock);
	for (i = 0; i < ARRAY_SIZE(shifts) && s >= 0; i++)
		s = edm_pool_apply(l->core, n->id, edm_pool_class(l->core, 1U << shifts[i]),
				   EDM_POOL_LOC_MEM, 0);
	spin_unlock_bh(&l->lock);
	return s < 0 ? s : 0;
}

int edm_pool_node_init(struct edm_pool_node *n, struct edm_mpool *p,
		       struct netlink_ext_ack *extack)
{
	int id, err;

	id = ida_alloc_range(&p->ids, EDM_POOL_LPPU_NODE + 1, EDM_POOL_NNODES - 1, GFP_KERNEL);
	if (id < 0) {
		NL_SET_ERR_MSG(extack, "the pool has no node id left");
		return id == -ENOSPC ? -ENOSPC : id;
	}
	memset(n, 0, sizeof(*n));
	n->pool = p;
	n->id = id;
	spin_lock_init(&n->dc_lock);
	err = edm_pool_node_apply(n);
	if (err) {
		NL_SET_ERR_MSG(extack, "the pool has no free Section for the node");
		spin_lock_bh(&p->lppu.lock);
		edm_pool_node_flush(p->lppu.core, id);
		spin_unlock_bh(&p->lppu.lock);
		ida_free(&p->ids, id);
		return err;
	}
	edm_mpool_get(p);
	spin_lock_bh(&p->lppu.lock);
	p->lppu.nodes[id] = n;
	spin_unlock_bh(&p->lppu.lock);
	return 0;
}

/*
 * A node goes away. Buffers of its that the stack still holds pass to the
 * LPPU, which frees them when the stack lets go; everything else it holds
 * is freed, and its empty Sections go back.
 */
void edm_pool_node_fini(struct edm_pool_node *n)
{
	struct edm_mpool *p = n->pool;
	struct edm_lppu *l = &p->lppu;
	unsigned long gpg;
	bool buried;

	edm_pool_node_dcache_fini(n);
	edm_mpool_reclaim(p);
	spin_lock_bh(&l->lock);
	for_each_set_bit(gpg, l->lent, p->npages) {
		u32 phys = gpg / EDM_SEC_PAGES, pi = gpg % EDM_SEC_PAGES;
		u32 size = edm_pool_class_size(l->core, edm_pool_sec_class(l->core, phys));

		if (l->lent_node[gpg] != n->id)
			continue;
		WARN_ON_ONCE(edm_pool_pass(l->core, n->id, EDM_POOL_LPPU_NODE,
					   edm_pool_ref(edm_pool_sec_fas(l->core, phys),
							pi << PAGE_SHIFT), size));
		l->lent_node[gpg] = EDM_POOL_LPPU_NODE;
	}
	l->nodes[n->id] = NULL;
	edm_pool_node_flush(l->core, n->id);
	buried = !l->core->node[n->id].sections;
	if (!buried)
		__set_bit(n->id, l->dead);
	spin_unlock_bh(&l->lock);
	if (buried)
		ida_free(&p->ids, n->id);
	else
		schedule_delayed_work(&p->reclaim, msecs_to_jiffies(EDM_POOL_RECLAIM_MS));
	edm_mpool_put(p);
}

void edm_pool_node_stats(struct edm_pool_node *n, struct edm_pool_node_stats *ns,
			 struct edm_dcache_stats *dcs)
{
	spin_lock_bh(&n->pool->lppu.lock);
	*ns = n->pool->lppu.core->node[n->id];
	spin_unlock_bh(&n->pool->lppu.lock);
	spin_lock_bh(&n->dc_lock);
	*dcs = n->dc_old;
	if (n->dc) {
		dcs->hits += n->dc->stats.hits;
		dcs->misses += n->dc->stats.misses;
		dcs->bypassed += n->dc->stats.bypassed;
		dcs->evictions += n->dc->stats.evictions;
		dcs->flushed += n->dc->stats.flushed;
		dcs->writebacks += n->dc->stats.writebacks;
		dcs->busy += n->dc->stats.busy;
		dcs->handed += n->dc->stats.handed;
		dcs->pinned = n->dc->stats.pinned;
	}
	spin_unlock_bh(&n->dc_lock);
}

/* ---- the pool device ---- */

static void edm_mpool_sections_free(struct edm_mpool *p)
{
	u32 i, j;

	if (p->prov.ops)
		return;		/* the device's pages: edm_mpool_leave() */
	for (i = 0; i < p->nsections && p->sec[i].first; i++)
		for (j = 0; j < EDM_SEC_PAGES; j++)
			put_page(p->sec[i].first + j);	/* pages the stack holds live on */
}

/* Pages of the leftover @lo that the stack still holds. */
static u32 edm_mpool_left_held(const struct edm_mpool_leftover *lo)
{
	u32 i, n = 0;

	for (i = 0; i < lo->npages; i++)
		n += page_ref_count(lo->first + i) != 1;
	return n;
}

/*
 * Give back the memory of every leftover the stack is done with; @say:
 * name those still waiting. Whether any is left.
 */
static bool edm_mpool_left_scan(bool say)
{
	struct edm_mpool_leftover *lo, *tmp;
	bool left = false;
	u32 held;

	mutex_lock(&edm_mpool_left_lock);
	list_for_each_entry_safe(lo, tmp, &edm_mpool_leftovers, node) {
		held = edm_mpool_left_held(lo);
		if (held) {
			if (say)
				pr_notice("pool memory on %s: waiting for the network stack to give back %u pages\n",
					  lo->dev, held);
			left = true;
			continue;
		}
		list_del(&lo->node);
		edm_memprov_release(&lo->prov);
		if (lo->module_held)
			module_put(THIS_MODULE);
		kfree(lo);
	}
	mutex_unlock(&edm_mpool_left_lock);
	return left;
}

static void edm_mpool_left_work(struct work_struct *work)
{
	if (edm_mpool_left_scan(false))
		schedule_delayed_work(&edm_mpool_left_dwork, msecs_to_jiffies(EDM_POOL_LEFT_MS));
}

/*
 * A pmem pool goes: its memory goes back to the device now if the stack
 * holds none of it, else once it does (a leftover, holding the module).
 */
static void edm_mpool_leave(struct edm_mpool *p)
{
	struct edm_mpool_leftover *lo;

	lo = kzalloc(sizeof(*lo), GFP_KERNEL | __GFP_NOFAIL);
	lo->prov = p->prov;
	lo->first = p->sec[0].first;
	lo->npages = p->npages;
	strscpy(lo->dev, p->dev, sizeof(lo->dev));
	p->prov = (struct edm_memprov){};	/* the leftover releases it */
	/* fails while the module goes: its exit waits then (edm_mpool_exit()) */
	lo->module_held = try_module_get(THIS_MODULE);
	mutex_lock(&edm_mpool_left_lock);
	list_add_tail(&lo->node, &edm_mpool_leftovers);
	mutex_unlock(&edm_mpool_left_lock);
	if (edm_mpool_left_scan(false))
		schedule_delayed_work(&edm_mpool_left_dwork, msecs_to_jiffies(EDM_POOL_LEFT_MS));
}

int edm_mpool_init(void)
{
	return 0;
}

/* The registry is gone, with every pool: wait for their leftovers. */
void edm_mpool_exit(void)
{
	edm_exit_wait(&edm_mpool_left_dwork, edm_mpool_left_scan, EDM_POOL_LEFT_MS);
}

static void edm_mpool_free(struct edm_mpool *p)
{
	if (p->sec)
		edm_mpool_sections_free(p);
	if (p->prov.ops && p->sec && p->sec[0].first)
		edm_mpool_leave(p);
	edm_memprov_release(&p->prov);	/* a create that failed before its Sections */
	kvfree(p->sec);
	kvfree(p->lppu.core);
	if (p->lppu.lent_len)
		edm_mpool_lines_free(p);
	bitmap_free(p->lppu.lent);
	kvfree(p->lppu.lent_node);
	kvfree(p->lppu.lent_len);
	ida_destroy(&p->ids);
	xa_destroy(&p->regions);
	if (p->charged)
		atomic64_sub(p->size, &edm_pool_bytes);
	kfree(p);
}

static void edm_mpool_release(struct kref *ref)
{
	struct edm_mpool *p = container_of(ref, struct edm_mpool, ref);

	cancel_delayed_work_sync(&p->reclaim);
	edm_mpool_reclaim(p);
	pr_debug("pool destroyed, %llu Buffers still held by the stack\n", p->lppu.nlent);
	edm_mpool_free(p);
	edm_obj_put(EDM_OBJ_POOL);
}

void edm_mpool_put(struct edm_mpool *p)
{
	kref_put(&p->ref, edm_mpool_release);
}

/* Can the pool take the device's page at @pfn: a struct page, DAX's, idle, its own? */
static int edm_mpool_dev_page_ok(unsigned long pfn, struct netlink_ext_ack *extack)
{
	struct page *page = pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;

	if (!page || !is_zone_device_page(page)) {
		NL_SET_ERR_MSG(extack,
			       "the device's memory has no struct pages (fsdax -M mem or dev)");
		return -EINVAL;
	}
	if (PageCompound(page)) {
		NL_SET_ERR_MSG(extack,
			       "the DAX device's pages are larger than 4 KiB: give it an align of 4096");
		return -EINVAL;
	}
	if (page_ref_count(page) != 1) {
		NL_SET_ERR_MSG(extack, "the device's pages are in use");
		return -EBUSY;
	}
	return 0;
}

/* The pmem or DAX device at @path, in 2 MiB blocks: its memory must start on one. */
static int edm_mpool_sections_dev(struct edm_mpool *p, const char *path,
				  struct netlink_ext_ack *extack)
{
	unsigned long pfn;
	u32 i, j;
	int err;

	err = edm_memprov_get(&p->prov, path, p->size, extack);
	if (err)
		return err;
	strscpy(p->dev, path, sizeof(p->dev));
	if (!IS_ALIGNED(p->prov.phys, EDM_POOL_SECTION_SIZE)) {
		NL_SET_ERR_MSG(extack, "the device's memory does not start on a 2 MiB boundary");
		return -EINVAL;
	}
	if (p->size > p->prov.len) {
		NL_SET_ERR_MSG(extack, "the device has less memory than the pool's size");
		return -ENOSPC;
	}
	for (i = 0; i < p->nsections; i++) {
		pfn = PHYS_PFN(p->prov.phys) + (unsigned long)i * EDM_SEC_PAGES;
		for (j = 0; j < EDM_SEC_PAGES; j++) {
			err = edm_mpool_dev_page_ok(pfn + j, extack);
			if (err)
				return err;
		}
		p->sec[i].first = pfn_to_page(pfn);
	}
	p->nid = page_to_nid(p->sec[0].first);
	return 0;
}

/* 2 MiB blocks from node @nid (only there if the user named it), split into pages. */
static int edm_mpool_sections_alloc(struct edm_mpool *p, bool node_asked,
				    struct netlink_ext_ack *extack)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY;
	u32 i;

	if (node_asked)
		gfp |= __GFP_THISNODE;	/* the node the user asked for, or nothing */
	for (i = 0; i < p->nsections; i++) {
		struct page *page = alloc_pages_node(p->nid, gfp, EDM_SEC_ORDER);

		if (!page) {
			if (node_asked)
				NL_SET_ERR_MSG(extack,
					       "not enough free 2 MiB blocks on that NUMA node");
			else
				NL_SET_ERR_MSG(extack, "not enough free 2 MiB blocks for the pool");
			return -ENOMEM;
		}
		split_page(page, EDM_SEC_ORDER);
		p->sec[i].first = page;
	}
	if (!node_asked)
		p->nid = page_to_nid(p->sec[0].first);	/* where the first block landed */
	return 0;
}

/* The LPPU's bootstrap (4.1): the core, and every Section mapped into the FAS. */
static int edm_mpool_core_init(struct edm_mpool *p, const struct edm_mpool_cfg *cfg)
{
	struct edm_pool_cfg pc;
	u32 r, n;
	int err;

	edm_pool_cfg_default(&pc, p->nsections, EDM_POOL_NNODES);
	pc.region_sections = cfg->region_sections ?: EDM_POOL_DEFAULT_REGION;
	pc.max_regions = DIV_ROUND_UP(p->nsections, pc.region_sections);
	pc.max_shift = EDM_POOL_SECTION_SHIFT;	/* shared skbs, and whole Sections for regions */
	pc.keep = cfg->keep;
	pc.node_quota = cfg->node_quota;
	p->lppu.core = kvzalloc(edm_pool_size(&pc), GFP_KERNEL);
	if (!p->lppu.core)
		return -ENOMEM;
	err = edm_pool_init(p->lppu.core, &pc);
	for (r = 0; !err && r < pc.max_regions; r++) {
		n = min(pc.region_sections, p->nsections - r * pc.region_sections);
		err = edm_pool_region_add(p->lppu.core, EDM_POOL_LOC_MEM, r * pc.region_sections,
					  n);
		err = err < 0 ? err : 0;
	}
	return err;
}

static int edm_mpool_charge(struct edm_mpool *p, struct netlink_ext_ack *extack)
{
	if (atomic64_add_return(p->size, &edm_pool_bytes) > (totalram_pages() << PAGE_SHIFT) / 2) {
		atomic64_sub(p->size, &edm_pool_bytes);
		NL_SET_ERR_MSG(extack, "pools may take at most half of the machine's memory");
		return -ERANGE;
	}
	p->charged = true;
	return 0;
}

static int edm_mpool_chk_node(int nid, struct netlink_ext_ack *extack)
{
	if (nid == NUMA_NO_NODE)
		return 0;
	if (nid >= MAX_NUMNODES || !node_state(nid, N_MEMORY)) {
		NL_SET_ERR_MSG(extack, "that NUMA node has no memory");
		return -ENODEV;
	}
	return 0;
}

static int edm_mpool_create(struct edm_dev *edev, const void *arg, struct netlink_ext_ack *extack)
{
	const struct edm_mpool_cfg *cfg = arg;
	struct edm_mpool *p;
	int err;

	if (!cfg) {
		NL_SET_ERR_MSG(extack, "create pools with POOL_NEW (edmctl pool create)");
		return -EOPNOTSUPP;
	}
	err = edm_mpool_chk_node(cfg->nid, extack);
	if (err)
		return err;
	if (cfg->dev && cfg->nid != NUMA_NO_NODE) {
		NL_SET_ERR_MSG(extack, "a pool on a pmem device is on the device's NUMA node");
		return -EINVAL;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	kref_init(&p->ref);
	spin_lock_init(&p->lppu.lock);
	ida_init(&p->ids);
	xa_init(&p->regions);
	xa_init(&p->lppu.lent_slot);
	INIT_DELAYED_WORK(&p->reclaim, edm_mpool_reclaim_work);
	p->size = cfg->size;
	p->nid = cfg->nid;
	p->nsections = cfg->size >> EDM_POOL_SECTION_SHIFT;
	p->npages = p->nsections * EDM_SEC_PAGES;
	err = cfg->dev ? 0 : edm_mpool_charge(p, extack);
	if (err)
		goto err_free;
	err = -ENOMEM;
	p->sec = kvcalloc(p->nsections, sizeof(*p->sec), GFP_KERNEL);
	p->lppu.lent = bitmap_zalloc(p->npages, GFP_KERNEL);
	p->lppu.lent_node = kvzalloc(p->npages, GFP_KERNEL);
	p->lppu.lent_len = kvcalloc(p->npages, sizeof(u32), GFP_KERNEL);
	if (!p->sec || !p->lppu.lent || !p->lppu.lent_node || !p->lppu.lent_len)
		goto err_free;
	err = cfg->dev ? edm_mpool_sections_dev(p, cfg->dev, extack) :
			 edm_mpool_sections_alloc(p, cfg->nid != NUMA_NO_NODE, extack);
	if (err)
		goto err_free;
	err = edm_mpool_core_init(p, cfg);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot build the pool's FAS");
		goto err_free;
	}
	p->edev = edev;
	edev->type_priv = p;
	edm_obj_get(EDM_OBJ_POOL);
	pr_debug("pool %s created: %u Sections on node %d%s%s\n", edev->name, p->nsections, p->nid,
		 cfg->dev ? ", pmem " : "", cfg->dev ?: "");
	return 0;

err_free:
	edm_mpool_free(p);
	return err;
}

/* The device goes; racks using the pool keep it until they go too. */
static void edm_mpool_destroy(struct edm_dev *edev)
{
	struct edm_mpool *p = edm_mpool_of(edev);

	edm_pool_regions_delete(p);
	p->edev = NULL;
	edm_mpool_put(p);
}

const struct edm_dev_type_ops edm_pool_dev_type = {
	.name = "pool",
	.create = edm_mpool_create,
	.destroy = edm_mpool_destroy,
};
