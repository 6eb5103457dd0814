// SPDX-License-Identifier: GPL-2.0
/*
 * A compute node's DRAM cache (DFabric 4.6) with its data: the index
 * (dfabric/pool_dcache.c) over local pages that hold the lines, filled from
 * the pool and written back to it by the index's own copies.
 *
 * What goes through it: a shared skb that arrives for the node (paper: the
 * bottom half reads it, then recv) is read into a line when the line can
 * hold the whole packet, and the skb is built on the line's pages instead
 * of the pool Buffer's: the stack and the receiving socket read local DRAM.
 * The line stays pinned (no victim, no flush) until the stack lets go of
 * every page of it; then the socket's read counts as a hit, the Buffer goes
 * back to the pool and the line is flushed (written back if dirty, dropped),
 * as kfree_shared_skb does. Packets shorter than min_len, longer than a
 * line, or finding every way of their set pinned are built on the pool
 * Buffer as without a cache. The sender's copy into a Buffer goes around the
 * cache (4.5): any line of the Buffer is written back and dropped first.
 *
 * A Buffer served from a line has an entry in the LPPU's lent_slot xarray:
 * the line's slot (xa_mk_value) while the node's cache owns the line's
 * pages, or the packet's first page in it once the cache is gone
 * (reconfigured, or its node deleted) with the stack still holding the
 * line: the entry then owns the packet's pages and puts them when they are
 * idle; the line's other pages go with the cache.
 *
 * Locking: the index and n->dcd under n->dc_lock, which nests inside the
 * pool's lppu.lock; lent_slot and the pinning of a line that is lent are
 * under lppu.lock, so a cache is torn down (under both) either before a
 * line is lent or with its entry there to take it over.
 */
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "edm/pool.h"

/* The lines' memory: slot s is the gran bytes at byte s << gran_shift. */
struct edm_pool_dcdata {
	struct edm_dcache_mem mem;	/* ctx: this */
	struct edm_mpool *pool;
	u32 gran_shift;
	u32 npages;
	u32 *slot_gpg;		/* [slots] the pool page a pinned slot's Buffer starts at */
	struct page *page[];	/* [npages], each with one reference of ours */
};

static void *edm_dc_pool_va(void *ctx, u64 ref)
{
	struct edm_pool_dcdata *d = ctx;
	struct edm_mpool *p = d->pool;
	u32 phys = edm_pool_fas_to_phys(p->lppu.core, ref);

	/* the bootstrap maps every Section: a Region's FAS always resolves */
	return page_address(p->sec[phys].first) + (ref & (EDM_POOL_SECTION_SIZE - 1));
}

static void *edm_dc_slot_va(void *ctx, u32 slot)
{
	struct edm_pool_dcdata *d = ctx;
	u64 byte = (u64)slot << d->gran_shift;

	return page_address(d->page[byte >> PAGE_SHIFT]) + offset_in_page(byte);
}

/*
 * Index in d->page of the first page of the Buffer at pool page @gpg in
 * the line at @slot (a line of 64 KiB may hold a Buffer of 4 KiB anywhere
 * in it; Sections are 2 MiB, so a Buffer's offset in its granule is its
 * offset in the pool modulo the granule).
 */
static u32 edm_dc_buf_page(const struct edm_pool_dcdata *d, u32 slot, u32 gpg)
{
	u64 gmask = (1ULL << d->gran_shift) - 1;

	return (((u64)slot << d->gran_shift) + (((u64)gpg << PAGE_SHIFT) & gmask)) >> PAGE_SHIFT;
}

static void edm_dc_data_free(struct edm_pool_dcdata *d)
{
	u32 i;

	if (!d)
		return;
	for (i = 0; i < d->npages; i++)
		if (d->page[i])
			put_page(d->page[i]);
	kvfree(d->slot_gpg);
	kvfree(d);
}

/* Local pages for sets * ways lines of 2^shift bytes, whole blocks split into pages. */
static struct edm_pool_dcdata *edm_dc_data_alloc(struct edm_mpool *p, u32 slots, u32 shift)
{
	u32 block = max_t(u32, 1U << shift, PAGE_SIZE), order = get_order(block);
	u64 bytes = max_t(u64, (u64)slots << shift, PAGE_SIZE);
	u32 npages = bytes >> PAGE_SHIFT, i, j;
	struct edm_pool_dcdata *d;

	d = kvzalloc(struct_size(d, page, npages), GFP_KERNEL);
	if (!d)
		return NULL;
	d->slot_gpg = kvcalloc(slots, sizeof(u32), GFP_KERNEL);
	d->mem = (struct edm_dcache_mem){
		.pool = edm_dc_pool_va, .slot = edm_dc_slot_va, .ctx = d,
	};
	d->pool = p;
	d->gran_shift = shift;
	d->npages = npages;
	if (!d->slot_gpg)
		goto fail;
	for (i = 0; i < npages; i += 1U << order) {
		struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);

		if (!page)
			goto fail;
		split_page(page, order);
		for (j = 0; j < 1U << order; j++)
			d->page[i + j] = page + j;
	}
	return d;
fail:
	edm_dc_data_free(d);
	return NULL;
}

/*
 * The node's cache goes (lppu.lock and dc_lock held): every line that is
 * lent to the stack passes to its lent_slot entry, which will put the
 * packet's pages once idle; the pages of those lines past the packet, and
 * every other line's, are ours to free (edm_dc_data_free() after the locks).
 */
static void edm_dc_orphan_locked(struct edm_pool_node *n)
{
	struct edm_lppu *l = &n->pool->lppu;
	struct edm_pool_dcdata *d = n->dcd;
	u32 slots, s, keep, first;

	lockdep_assert_held(&l->lock);
	if (!n->dc || !d)
		return;
	slots = n->dc->cfg.sets * n->dc->cfg.ways;
	for (s = 0; s < slots && n->dc->stats.pinned; s++) {
		u32 gpg = d->slot_gpg[s], i;

		if (!edm_dcache_pinned(n->dc, s))
			continue;
		first = edm_dc_buf_page(d, s, gpg);
		keep = edm_shared_skb_pages(l->lent_len[gpg]);
		/* replaces the entry: no allocation */
		xa_store(&l->lent_slot, gpg, d->page[first], GFP_ATOMIC);
		edm_dcache_hand_over(n->dc, s);
		for (i = 0; i < keep; i++)
			d->page[first + i] = NULL;	/* the entry's now */
	}
}

/*
 * Cache Region @region of the pool with @sets x @ways lines of @gran bytes
 * (sets 0: no cache), in local pages. The old cache's counters are kept;
 * its lines are written back, and those the stack holds are handed over.
 */
int edm_pool_node_dcache_set(struct edm_pool_node *n, u32 region, u32 sets, u32 ways,
			     u32 gran, u32 min_len, struct netlink_ext_ack *extack)
{
	struct edm_lppu *l = &n->pool->lppu;
	u64 rbytes = (u64)l->core->cfg.region_sections << EDM_POOL_SECTION_SHIFT;
	struct edm_dcache_cfg cfg = {
		.base = region * rbytes, .len = rbytes, .sets = sets, .ways = ways,
		.gran_shift = gran ? ilog2(gran) : 0, .min_len = min_len,
	};
	struct edm_pool_dcdata *d = NULL, *old_d;
	struct edm_dcache *c = NULL, *old;
	int err;

	if (region >= l->core->nregions) {
		NL_SET_ERR_MSG(extack, "the pool has no such Region");
		return -ERANGE;
	}
	if (sets) {
		err = edm_dcache_cfg_check(&cfg);
		if (err) {
			NL_SET_ERR_MSG(extack,
				       "sets must be a power of two, ways 1..16, gran 64..2M");
			return err;
		}
		if (((u64)sets * ways) << cfg.gran_shift > EDM_DCACHE_DATA_MAX) {
			NL_SET_ERR_MSG(extack,
				       "the DRAM cache's lines (sets x ways x gran) take 64 MiB at most");
			return -E2BIG;
		}
		c = kvzalloc(edm_dcache_size(sets, ways), GFP_KERNEL);
		d = c ? edm_dc_data_alloc(n->pool, sets * ways, cfg.gran_shift) : NULL;
		if (!d) {
			kvfree(c);
			return -ENOMEM;
		}
		edm_dcache_init(c, &cfg, &d->mem);
	}
	spin_lock_bh(&l->lock);
	spin_lock(&n->dc_lock);
	old = n->dc;
	old_d = n->dcd;
	if (old) {
		edm_dc_orphan_locked(n);
		edm_dcache_flush_all(old);	/* written back while the pool is there */
		n->dc_old.hits += old->stats.hits;
		n->dc_old.misses += old->stats.misses;
		n->dc_old.bypassed += old->stats.bypassed;
		n->dc_old.evictions += old->stats.evictions;
		n->dc_old.flushed += old->stats.flushed;
		n->dc_old.writebacks += old->stats.writebacks;
		n->dc_old.busy += old->stats.busy;
		n->dc_old.handed += old->stats.handed;
	}
	n->dc = c;
	n->dcd = d;
	n->dc_cfg = cfg;
	n->dc_region = region;
	spin_unlock(&n->dc_lock);
	spin_unlock_bh(&l->lock);
	kvfree(old);
	edm_dc_data_free(old_d);
	return 0;
}

/* The node goes: its cache with it, lines the stack holds handed over. */
void edm_pool_node_dcache_fini(struct edm_pool_node *n)
{
	edm_pool_node_dcache_set(n, 0, 0, 0, 0, 0, NULL);
}

/*
 * A Buffer at pool page @gpg arrives for node @n with a packet of @len
 * bytes (@span of them in the shared skb layout) at @ref (lppu.lock held):
 * if the cache can hold it, read it into a line, pin the line and note it
 * in lent_slot. Returns the Buffer's first page in the line, or NULL: use
 * the Buffer's own. A line lends one Buffer at a time.
 */
struct page *edm_pool_node_dcache_lend(struct edm_pool_node *n, u64 ref, u32 span, u32 len,
				       u32 gpg)
{
	struct edm_lppu *l = &n->pool->lppu;
	struct page *page = NULL;
	struct edm_dcache *c;
	int slot;

	lockdep_assert_held(&l->lock);
	if (!READ_ONCE(n->dc))
		return NULL;
	spin_lock(&n->dc_lock);
	c = n->dc;
	if (!c)
		goto out;
	if (len < c->cfg.min_len || c->cfg.gran_shift < PAGE_SHIFT ||
	    (ref & ((1ULL << c->cfg.gran_shift) - 1)) + span > 1ULL << c->cfg.gran_shift) {
		c->stats.bypassed++;	/* too short, or longer than a line */
		goto out;
	}
	slot = edm_dcache_fill_pin(c, ref);
	if (slot < 0)
		goto out;
	if (xa_err(xa_store(&l->lent_slot, gpg, xa_mk_value(slot), GFP_ATOMIC))) {
		edm_dcache_unpin(c, slot);
		goto out;
	}
	n->dcd->slot_gpg[slot] = gpg;
	page = n->dcd->page[edm_dc_buf_page(n->dcd, slot, gpg)];
out:
	spin_unlock(&n->dc_lock);
	return page;
}

/* The line of the Buffer at @gpg (lppu.lock held): its first page, or NULL if it has none. */
struct page *edm_mpool_line_page(struct edm_mpool *p, u32 gpg, u32 node)
{
	struct edm_lppu *l = &p->lppu;
	void *e = xa_load(&l->lent_slot, gpg);
	struct edm_pool_node *n;

	lockdep_assert_held(&l->lock);
	if (!e || !xa_is_value(e))
		return e;
	n = l->nodes[node];
	if (WARN_ON_ONCE(!n || !n->dcd))
		return NULL;
	return n->dcd->page[edm_dc_buf_page(n->dcd, xa_to_value(e), gpg)];
}

/*
 * The stack let go of the Buffer at @gpg, of node @node, at FAS @ref (its
 * pages and its line's are idle; lppu.lock held). A line of the node's
 * cache: the socket's read of the payload was a hit (@read), then the line
 * is unpinned and flushed; a line handed over: its pages are put. Then any
 * line of the Buffer is flushed, as kfree_shared_skb does.
 */
void edm_mpool_line_return(struct edm_mpool *p, u32 gpg, u32 node, u64 ref, u32 size,
			   bool read)
{
	struct edm_lppu *l = &p->lppu;
	struct edm_pool_node *n = l->nodes[node];
	void *e = xa_erase(&l->lent_slot, gpg);
	u32 i;

	lockdep_assert_held(&l->lock);
	if (e && !xa_is_value(e)) {
		struct page *page = e;

		for (i = 0; i < edm_shared_skb_pages(l->lent_len[gpg]); i++)
			put_page(page + i);
		e = NULL;
	}
	if (!n)
		return;
	spin_lock(&n->dc_lock);
	if (n->dc && e) {
		if (read && edm_dcache_lookup(n->dc, ref, false) < 0)
			WARN_ON_ONCE(1);	/* a pinned line cannot have gone */
		edm_dcache_unpin(n->dc, xa_to_value(e));
	}
	if (n->dc)
		edm_dcache_flush(n->dc, ref, size);
	spin_unlock(&n->dc_lock);
}

/* The pool goes: lines handed over whose pages the stack still held. */
void edm_mpool_lines_free(struct edm_mpool *p)
{
	struct edm_lppu *l = &p->lppu;
	unsigned long gpg;
	void *e;
	u32 i;

	xa_for_each(&l->lent_slot, gpg, e) {
		if (WARN_ON_ONCE(xa_is_value(e)))
			continue;
		for (i = 0; i < edm_shared_skb_pages(l->lent_len[gpg]); i++)
			put_page((struct page *)e + i);	/* pages the stack holds live on */
	}
	xa_destroy(&l->lent_slot);
}

/*
 * Node @n is about to store [@ref, @ref + @len) around its cache (the
 * sender's copy into a Buffer, 4.5): a line of it is written back and
 * dropped first, so the pool has the newest bytes and no line is stale.
 */
void edm_pool_node_dcache_around(struct edm_pool_node *n, u64 ref, u32 len)
{
	if (!READ_ONCE(n->dc))
		return;
	spin_lock_bh(&n->dc_lock);
	if (n->dc) {
		edm_dcache_flush(n->dc, ref, len);
		n->dc->stats.around++;
	}
	spin_unlock_bh(&n->dc_lock);
}

/* Drop (writing back) every line of a Buffer being freed. */
void edm_pool_node_dcache_flush(struct edm_pool_node *n, u64 ref, u64 len)
{
	if (!READ_ONCE(n->dc))
		return;
	spin_lock_bh(&n->dc_lock);
	if (n->dc)
		edm_dcache_flush(n->dc, ref, len);
	spin_unlock_bh(&n->dc_lock);
}
