// SPDX-License-Identifier: GPL-2.0
/*
 * NETi zones (netdimm/zone.h): building a zone from 2 MiB page blocks,
 * the sub-array aware allocator over genalloc, the allocCache, and the
 * lending of pages to the stack and to user mappings.
 *
 * Locking: genalloc is lock-free and callable from any context. zone->lock
 * (a BH-safe spinlock: the data path allocates in softirq) protects the
 * lent bitmap and the allocCache. The background work takes back lent
 * pages whose count fell to one and refills the cache; it is the only place
 * that returns lent pages, so a page is never freed twice. A cache hit
 * kicks a second work that only refills: queue_work() is a bit test while
 * it is pending, so the pops of one packet's pages cost one kick, where
 * rearming the delayed work cost a timer update per page.
 */
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "zone.h"

static DEFINE_IDA(edm_netdimm_ida);
/* Bytes held by all zones: together they may take half of the memory. */
static atomic64_t edm_netdimm_bytes = ATOMIC64_INIT(0);
/* pfn >> EDM_NETDIMM_CHUNK_ORDER -> struct edm_netdimm_chunk, for every zone. */
static DEFINE_XARRAY(edm_netdimm_pfns);

void edm_netdimm_stats_sum(struct edm_netdimm_stats __percpu *ctrs, struct edm_netdimm_stats *sum)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct edm_netdimm_stats *c = per_cpu_ptr(ctrs, cpu);

		for (i = 0; i < ARRAY_SIZE(sum->v); i++)
			sum->v[i] += READ_ONCE(c->v[i]);
	}
}

/*
 * genalloc's address of zone offset @off. Address 0 means failure, so the
 * addresses start one chunk up: an allocation aligned to its size in
 * addresses is aligned in offsets too, so one of a chunk or less never
 * spans two chunks, which need not be contiguous in memory.
 */
#define EDM_NETDIMM_ADDR_BIAS	BIT(EDM_NETDIMM_CHUNK_SHIFT)

static unsigned long edm_netdimm_addr(u64 off)
{
	return off + EDM_NETDIMM_ADDR_BIAS;
}

static struct page *edm_netdimm_page(const struct edm_netdimm_zone *z, u64 off)
{
	return z->chunks[off >> EDM_NETDIMM_CHUNK_SHIFT].first +
	       ((off & ((1UL << EDM_NETDIMM_CHUNK_SHIFT) - 1)) >> PAGE_SHIFT);
}

static const struct edm_netdimm_chunk *edm_netdimm_chunk_of(const struct page *page)
{
	return xa_load(&edm_netdimm_pfns, page_to_pfn(page) >> EDM_NETDIMM_CHUNK_ORDER);
}

bool edm_netdimm_owns(const struct edm_netdimm_zone *z, const struct page *page)
{
	const struct edm_netdimm_chunk *c = edm_netdimm_chunk_of(page);

	return c && c->zone == z;
}

/* The zone offset of @page, or -1 if it is not one of the zone's pages. */
s64 edm_netdimm_page_off(const struct edm_netdimm_zone *z, const struct page *page)
{
	const struct edm_netdimm_chunk *c = edm_netdimm_chunk_of(page);

	if (!c || c->zone != z)
		return -1;
	return ((u64)c->idx << EDM_NETDIMM_CHUNK_SHIFT) +
	       ((u64)(page_to_pfn(page) - page_to_pfn(c->first)) << PAGE_SHIFT);
}

struct edm_netdimm_want {
	const struct edm_netdimm_zone *zone;
	u64 id;
};

/* genalloc algorithm: a free page of the wanted sub-array in the zone. */
static unsigned long edm_netdimm_algo(unsigned long *map, unsigned long size, unsigned long start,
				      unsigned int nr, void *data, struct gen_pool *pool,
				   unsigned long start_addr)
{
	const struct edm_netdimm_want *w = data;

	return edm_netdimm_find_free(&w->zone->geom, map, size,
				     start_addr - EDM_NETDIMM_ADDR_BIAS, w->id, PAGE_SHIFT);
}

static s64 edm_netdimm_take(struct edm_netdimm_zone *z, u64 id)
{
	struct edm_netdimm_want w = { .zone = z, .id = id };
	unsigned long addr;

	addr = gen_pool_alloc_algo(z->pool, PAGE_SIZE, edm_netdimm_algo, &w);
	return addr ? (s64)(addr - EDM_NETDIMM_ADDR_BIAS) : -1;
}

static s64 edm_netdimm_cache_pop(struct edm_netdimm_zone *z, u64 id)
{
	struct edm_netdimm_zone_slot *s = &z->cache[id];
	s64 off = -1;

	spin_lock_bh(&z->lock);
	if (s->n) {
		off = (u64)s->pg[--s->n] << PAGE_SHIFT;
		z->ncached--;
		set_bit(id, z->low);
	}
	spin_unlock_bh(&z->lock);
	return off;
}

static void edm_netdimm_zone_kick(struct edm_netdimm_zone *z)
{
	queue_work(system_wq, &z->refill);
}

/*
 * Best effort on the hint's sub-array: the allocCache first, then a search
 * of the zone; failing that any page of the zone. NULL when the zone is
 * full: the caller falls back to ordinary memory and counts it.
 */
struct page *edm_netdimm_alloc_pages(struct edm_netdimm_zone *z, s64 hint, unsigned int order)
{
	struct genpool_data_align align = { .align = PAGE_SIZE << order };
	unsigned long addr;
	s64 off = -1;

	if (!order && hint >= 0 && hint < z->size) {
		u64 id = edm_netdimm_subarray_id(&z->geom, hint);

		off = edm_netdimm_cache_pop(z, id);
		if (off >= 0) {
			edm_netdimm_stat_inc(z->ctrs, EDM_A_NDSTAT_CACHE_HITS);
			edm_netdimm_zone_kick(z);
		} else {
			edm_netdimm_stat_inc(z->ctrs, EDM_A_NDSTAT_CACHE_MISSES);
			off = edm_netdimm_take(z, id);
		}
		if (off >= 0) {
			edm_netdimm_stat_inc(z->ctrs, EDM_A_NDSTAT_ALLOC_SAME);
			return edm_netdimm_page(z, off);
		}
	}
	if (WARN_ON_ONCE(order > EDM_NETDIMM_CHUNK_ORDER))
		return NULL;
	addr = gen_pool_alloc_algo(z->pool, PAGE_SIZE << order, gen_pool_first_fit_align, &align);
	if (!addr) {
		edm_netdimm_stat_inc(z->ctrs, EDM_A_NDSTAT_ALLOC_FAIL);
		/* lent pages may be ready to come back */
		mod_delayed_work(system_wq, &z->work, 0);
		return NULL;
	}
	if (hint >= 0)
		edm_netdimm_stat_inc(z->ctrs, EDM_A_NDSTAT_ALLOC_OTHER);
	return edm_netdimm_page(z, addr - EDM_NETDIMM_ADDR_BIAS);
}

void edm_netdimm_free_pages(struct edm_netdimm_zone *z, struct page *page, unsigned int order)
{
	s64 off = edm_netdimm_page_off(z, page);

	if (WARN_ON_ONCE(off < 0))
		return;
	gen_pool_free(z->pool, edm_netdimm_addr(off), PAGE_SIZE << order);
}

/*
 * @page, allocated from @z, now has holders other than the zone (the caller
 * took their references). The background work frees it when they are gone.
 */
void edm_netdimm_lend(struct edm_netdimm_zone *z, struct page *page)
{
	s64 off = edm_netdimm_page_off(z, page);

	if (WARN_ON_ONCE(off < 0))
		return;
	spin_lock_bh(&z->lock);
	if (!__test_and_set_bit(off >> PAGE_SHIFT, z->lent))
		z->nlent++;
	spin_unlock_bh(&z->lock);
	/* the background work comes back for it (no-op while it is queued) */
	schedule_delayed_work(&z->work, msecs_to_jiffies(EDM_NETDIMM_WORK_MS));
}

/* Take back lent pages whose last outside reference is gone. */
static void edm_netdimm_reclaim(struct edm_netdimm_zone *z)
{
	unsigned long pg;
	u64 n = 0;

	spin_lock_bh(&z->lock);
	for_each_set_bit(pg, z->lent, z->npages) {
		if (page_ref_count(edm_netdimm_page(z, (u64)pg << PAGE_SHIFT)) != 1)
			continue;
		__clear_bit(pg, z->lent);
		z->nlent--;
		gen_pool_free(z->pool, edm_netdimm_addr((u64)pg << PAGE_SHIFT), PAGE_SIZE);
		n++;
	}
	/* Sub-arrays given up as used up may have pages again. */
	for (pg = 0; n && pg < z->nslots; pg++)
		if (z->cache[pg].n < EDM_NETDIMM_CACHE_WAYS)
			set_bit(pg, z->low);
	spin_unlock_bh(&z->lock);
	edm_netdimm_stat_add(z->ctrs, EDM_A_NDSTAT_RECLAIMED, n);
}

/*
 * One page into sub-array @id's slot; false once it is full or used up.
 * The page moves from genalloc to the slot under zone->lock, so a reader
 * of free + cached under the lock never sees it in neither place.
 */
static bool edm_netdimm_refill_one(struct edm_netdimm_zone *z, unsigned long id)
{
	bool more = false;
	s64 off;

	spin_lock_bh(&z->lock);
	if (z->cache[id].n == EDM_NETDIMM_CACHE_WAYS)
		goto done;
	off = edm_netdimm_take(z, id);
	if (off < 0)		/* the sub-array is used up */
		goto done;
	z->cache[id].pg[z->cache[id].n++] = off >> PAGE_SHIFT;
	z->ncached++;
	edm_netdimm_stat_inc(z->ctrs, EDM_A_NDSTAT_CACHE_REFILLS);
	more = z->cache[id].n < EDM_NETDIMM_CACHE_WAYS;
done:
	if (!more)
		clear_bit(id, z->low);
	spin_unlock_bh(&z->lock);
	return more;
}

/* Top up every allocCache slot that an allocation emptied. */
static void edm_netdimm_refill(struct edm_netdimm_zone *z)
{
	unsigned long id;

	for_each_set_bit(id, z->low, z->nslots) {
		while (edm_netdimm_refill_one(z, id))
			;
		cond_resched();
	}
}

static void edm_netdimm_work(struct work_struct *work)
{
	struct edm_netdimm_zone *z =
		container_of(to_delayed_work(work), struct edm_netdimm_zone, work);

	edm_netdimm_reclaim(z);
	edm_netdimm_refill(z);
	if (z->nlent)
		schedule_delayed_work(&z->work, msecs_to_jiffies(EDM_NETDIMM_WORK_MS));
}

static void edm_netdimm_refill_work(struct work_struct *work)
{
	edm_netdimm_refill(container_of(work, struct edm_netdimm_zone, refill));
}

/* Forget a leaked allocation so the pool can go (after a WARN). */
static void edm_netdimm_chunk_clear(struct gen_pool *pool, struct gen_pool_chunk *chunk, void *data)
{
	size_t size = chunk->end_addr - chunk->start_addr + 1;

	bitmap_zero(chunk->bits, size >> pool->min_alloc_order);
	atomic_long_set(&chunk->avail, size);
}

static void edm_netdimm_chunks_free(struct edm_netdimm_zone *z)
{
	u32 i, j;

	for (i = 0; i < z->nchunks; i++) {
		struct edm_netdimm_chunk *c = &z->chunks[i];

		if (!c->first)
			break;
		xa_erase(&edm_netdimm_pfns, page_to_pfn(c->first) >> EDM_NETDIMM_CHUNK_ORDER);
	}
	synchronize_rcu();	/* no lookup still holds a chunk */
	for (i = 0; i < z->nchunks && z->chunks[i].first; i++)
		for (j = 0; j < (1U << EDM_NETDIMM_CHUNK_ORDER); j++)
			put_page(z->chunks[i].first + j);	/* lent ones live on */
}

/*
 * Blocks of 2 MiB from the page allocator on node @nid, each split into
 * order-0 pages. A module cannot reserve contiguous ranges the way
 * alloc_contig_pages() does; 2 MiB blocks are what the buddy allocator
 * hands out reliably, and every geometry boundary the allocator cares
 * about (a 128 KiB period) falls inside one block.
 */
static int edm_netdimm_chunks_alloc(struct edm_netdimm_zone *z, struct netlink_ext_ack *extack)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY;
	u32 i;
	int err;

	if (z->nid != NUMA_NO_NODE)
		gfp |= __GFP_THISNODE;	/* the node the user asked for, or nothing */

	for (i = 0; i < z->nchunks; i++) {
		struct edm_netdimm_chunk *c = &z->chunks[i];
		struct page *page = alloc_pages_node(z->nid, gfp, EDM_NETDIMM_CHUNK_ORDER);

		if (!page) {
			NL_SET_ERR_MSG(extack, "not enough free 2 MiB blocks for the zone");
			return -ENOMEM;
		}
		split_page(page, EDM_NETDIMM_CHUNK_ORDER);
		c->zone = z;
		c->first = page;
		c->idx = i;
		if (z->nid == NUMA_NO_NODE)
			z->nid = page_to_nid(page);	/* where the first block landed */
		err = xa_insert(&edm_netdimm_pfns, page_to_pfn(page) >> EDM_NETDIMM_CHUNK_ORDER, c,
				GFP_KERNEL);
		if (err) {
			/* freed with the others: it is already in the table or not */
			NL_SET_ERR_MSG(extack, "cannot register the zone's memory");
			return err;
		}
	}
	/*
	 * One genalloc chunk for the whole zone: genalloc manages zone offsets,
	 * which are contiguous even though the blocks behind them are not (each
	 * block's pages are in z->chunks, so genalloc's phys is unused). One
	 * chunk keeps every allocation and free from walking a list of blocks.
	 */
	err = gen_pool_add_owner(z->pool, edm_netdimm_addr(0), 0, z->size, z->nid, NULL);
	if (err)
		NL_SET_ERR_MSG(extack, "cannot register the zone's memory");
	return err;
}

/* Two pages of every sub-array, as the paper's driver does at start. */
static void edm_netdimm_cache_fill(struct edm_netdimm_zone *z)
{
	bitmap_fill(z->low, z->nslots);
	edm_netdimm_refill(z);
}

static void edm_netdimm_zone_free(struct edm_netdimm_zone *z)
{
	if (z->pool)
		gen_pool_destroy(z->pool);
	free_percpu(z->ctrs);
	bitmap_free(z->low);
	bitmap_free(z->lent);
	kvfree(z->cache);
	kvfree(z->chunks);
	if (z->index != U32_MAX)
		ida_free(&edm_netdimm_ida, z->index);
	if (z->charged)
		atomic64_sub(z->size, &edm_netdimm_bytes);
	kfree(z);
}

struct edm_netdimm_zone *edm_netdimm_zone_create(u64 size, int nid,
						 const struct edm_netdimm_geom *geom,
						 struct netlink_ext_ack *extack)
{
	struct edm_netdimm_zone *z;
	int err = -ENOMEM;
	int id;

	if (atomic64_add_return(size, &edm_netdimm_bytes) > (totalram_pages() << PAGE_SHIFT) / 2) {
		atomic64_sub(size, &edm_netdimm_bytes);
		NL_SET_ERR_MSG(extack, "NETi zones may take at most half of the machine's memory");
		return ERR_PTR(-ERANGE);
	}
	z = kzalloc(sizeof(*z), GFP_KERNEL);
	if (!z) {
		atomic64_sub(size, &edm_netdimm_bytes);
		return ERR_PTR(-ENOMEM);
	}
	z->charged = true;
	z->index = U32_MAX;
	z->size = size;
	z->npages = size >> PAGE_SHIFT;
	z->nchunks = size >> EDM_NETDIMM_CHUNK_SHIFT;
	z->nid = nid;
	z->geom = *geom;
	z->nslots = edm_netdimm_subarray_count(geom, size);
	spin_lock_init(&z->lock);
	INIT_DELAYED_WORK(&z->work, edm_netdimm_work);
	INIT_WORK(&z->refill, edm_netdimm_refill_work);

	id = ida_alloc(&edm_netdimm_ida, GFP_KERNEL);
	if (id < 0) {
		err = id;
		goto err_free;
	}
	z->index = id;
	snprintf(z->name, sizeof(z->name), "NET%u", z->index);
	z->chunks = kvcalloc(z->nchunks, sizeof(*z->chunks), GFP_KERNEL);
	z->cache = kvcalloc(z->nslots, sizeof(*z->cache), GFP_KERNEL);
	z->lent = bitmap_zalloc(z->npages, GFP_KERNEL);
	z->low = bitmap_zalloc(z->nslots, GFP_KERNEL);
	z->ctrs = alloc_percpu(struct edm_netdimm_stats);
	z->pool = gen_pool_create(PAGE_SHIFT, nid);
	if (!z->chunks || !z->cache || !z->lent || !z->low || !z->ctrs || !z->pool)
		goto err_free;
	err = edm_netdimm_chunks_alloc(z, extack);
	if (err)
		goto err_chunks;
	edm_netdimm_cache_fill(z);
	pr_debug("zone %s created: %llu MiB on node %d, %llu sub-arrays\n", z->name,
		 size >> 20, nid, z->nslots);
	return z;

err_chunks:
	gen_pool_destroy(z->pool);	/* nothing allocated from it yet */
	z->pool = NULL;
	edm_netdimm_chunks_free(z);
err_free:
	edm_netdimm_zone_free(z);
	return ERR_PTR(err);
}

/*
 * The zone's users (rings, buffers, mappings) are gone; pages still lent
 * to sockets keep their own references and are freed when those go.
 */
void edm_netdimm_zone_destroy(struct edm_netdimm_zone *z)
{
	unsigned long pg;
	u64 i, held = 0;

	cancel_delayed_work_sync(&z->work);
	cancel_work_sync(&z->refill);
	for_each_set_bit(pg, z->lent, z->npages) {
		gen_pool_free(z->pool, edm_netdimm_addr((u64)pg << PAGE_SHIFT), PAGE_SIZE);
		if (page_ref_count(edm_netdimm_page(z, (u64)pg << PAGE_SHIFT)) != 1)
			held++;
	}
	for (i = 0; i < z->nslots; i++)
		while (z->cache[i].n)
			gen_pool_free(z->pool,
				      edm_netdimm_addr((u64)z->cache[i].pg[--z->cache[i].n] <<
						       PAGE_SHIFT), PAGE_SIZE);
	if (WARN(gen_pool_avail(z->pool) != z->size, "zone %s: %llu bytes never freed\n",
		 z->name, z->size - (u64)gen_pool_avail(z->pool)))
		gen_pool_for_each_chunk(z->pool, edm_netdimm_chunk_clear, NULL);
	gen_pool_destroy(z->pool);
	z->pool = NULL;
	edm_netdimm_chunks_free(z);
	pr_debug("zone %s destroyed, %llu pages still held by their users\n", z->name, held);
	edm_netdimm_zone_free(z);
}
