// SPDX-License-Identifier: GPL-2.0
/*
 * The shared skb APIs of DFabric (paper Table 2, 4.5) and each compute
 * node's DRAM cache (4.6) around them.
 *
 * Why pages and not a destructor: Linux frees an skb's data by page
 * reference. A head built with build_skb() is freed with page_frag_free(),
 * fragments with put_page(), and along the way GRO and TCP's receive queue
 * coalescing turn heads into fragments of other skbs, clones share them and
 * taps copy them. skb->destructor cannot stand in: a socket replaces it
 * (skb_set_owner_r() orphans the skb first) and it runs before the data is
 * released; a zerocopy ubuf_info would be honoured, but the receive path
 * copies such skbs (skb_orphan_frags_rx()) before a socket gets them, which
 * is the copy this pool exists to avoid. So the pool splits its Sections
 * into pages, lends the stack a reference on each page a shared skb uses,
 * and takes the Buffer back when every one of its pages is down to the
 * pool's own reference (dfabric/pool.c's reclaim, and kfree_shared_skb at once).
 *
 * The layout that makes this exact: a shared skb's Buffer is whole pages
 * (class >= PAGE_SIZE). Its first page is the skb's head: NET_SKB_PAD of
 * headroom, the first bytes of the packet, and skb_shared_info at the end
 * of the page; the rest of the packet follows from the second page on, and
 * each further page is one fragment. No fragment crosses a page, so every
 * holder of any part of the packet holds a reference on the page it uses,
 * wherever the stack moves it. The sender writes the packet in this layout
 * when it makes its one copy (edm_shared_skb_fill()); [ref, ref + span)
 * is what the mapping tables check.
 *
 * The DRAM cache (4.6) sees the accesses the paper's analysis of TCP/IP
 * names: the bottom half reads the headers (the head's first line, at
 * build time), the recv call reads the payload (modelled when the stack
 * lets go of the Buffer, which is after the socket copied it out), and the
 * Buffer is flushed as it is freed. Stores go around the cache (4.5), and
 * packets shorter than min_len bypass it. Only the tag index is kept: the
 * CPU loads the pool directly, so a fill moves no data and the counters
 * say what the card would do.
 *
 * Locking: the pool's lppu.lock inside the calls into dfabric/pool.c; the DRAM
 * cache under its node's dc_lock, which nests inside lppu.lock.
 */
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/vmalloc.h>

#include "edm/pool.h"

#define EDM_SKB_HEADROOM	NET_SKB_PAD
/* Packet bytes the head page holds. */
#define EDM_SKB_HEAD_LEN	(PAGE_SIZE - SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) - \
				 EDM_SKB_HEADROOM)

/* Bytes of Buffer a packet of @len takes in the shared skb layout, 0 if too long. */
u32 edm_shared_skb_span(u32 len)
{
	u32 rest;

	if (len <= EDM_SKB_HEAD_LEN)
		return PAGE_SIZE;
	rest = len - EDM_SKB_HEAD_LEN;
	if (DIV_ROUND_UP(rest, PAGE_SIZE) > MAX_SKB_FRAGS)
		return 0;
	return PAGE_SIZE + rest;
}

/* The sender's one copy: @skb's bytes into @buf, in the shared skb layout. */
void edm_shared_skb_fill(void *buf, const struct sk_buff *skb)
{
	u32 head = min_t(u32, skb->len, EDM_SKB_HEAD_LEN);

	WARN_ON_ONCE(skb_copy_bits(skb, 0, buf + EDM_SKB_HEADROOM, head));
	if (skb->len > head)
		WARN_ON_ONCE(skb_copy_bits(skb, head, buf + PAGE_SIZE, skb->len - head));
}

/* The pages after the head: one fragment each, each with its own reference. */
static void edm_shared_skb_frags(struct sk_buff *skb, struct page *page, u32 rest)
{
	int i = 0;

	while (rest) {
		u32 n = min_t(u32, rest, PAGE_SIZE);

		get_page(++page);
		skb_add_rx_frag(skb, i++, page, 0, n, PAGE_SIZE);
		rest -= n;
	}
}

/*
 * build_shared_skb (Table 2): an skb whose data is the Buffer at @ref,
 * holding a packet of @len bytes in the shared skb layout, no copy. Node @n
 * must hold the Buffer (its mapping table is checked); it keeps holding it
 * until the stack lets go, then the pool frees it. NULL if the reference is
 * refused or no skb could be had (the Buffer is still @n's then).
 */
struct sk_buff *edm_build_shared_skb(struct edm_pool_node *n, struct napi_struct *napi,
				     u64 ref, u32 len)
{
	struct edm_lppu *l = &n->pool->lppu;
	u32 span = edm_shared_skb_span(len);
	struct edm_pool_buf b = {};
	struct sk_buff *skb;
	struct page *page;
	int err = -EMSGSIZE;

	spin_lock_bh(&l->lock);
	if (span)
		err = edm_pool_ref_check(l->core, n->id, ref, span);
	if (!err)
		err = edm_pool_ref_resolve(l->core, n->id, ref, span, &b);
	spin_unlock_bh(&l->lock);
	if (err || b.off != b.start || b.size < PAGE_SIZE)
		return NULL;
	page = edm_mpool_ref_page(n->pool, &b);
	get_page(page);		/* the head's, dropped by page_frag_free() */
	skb = napi ? napi_build_skb(page_address(page), PAGE_SIZE) :
		     build_skb(page_address(page), PAGE_SIZE);
	if (!skb) {
		put_page(page);
		return NULL;
	}
	skb_reserve(skb, EDM_SKB_HEADROOM);
	skb_put(skb, min_t(u32, len, EDM_SKB_HEAD_LEN));
	if (len > EDM_SKB_HEAD_LEN)
		edm_shared_skb_frags(skb, page, len - EDM_SKB_HEAD_LEN);
	edm_mpool_lend(n->pool, n->id, &b, len);
	/* the bottom half reads the headers: the head's first line */
	edm_pool_node_dcache_read(n, ref + EDM_SKB_HEADROOM, 1, len);
	return skb;
}

/*
 * kfree_shared_skb (Table 2): free a shared skb and, if that was the last
 * use of its Buffer, give the Buffer back and flush its DRAM cache lines now
 * rather than at the next reclaim. Only for skbs from edm_build_shared_skb()
 * that the stack never saw.
 */
void edm_kfree_shared_skb(struct sk_buff *skb)
{
	struct page *page = virt_to_page(skb->head);
	const struct edm_pool_sec *sec = edm_mpool_sec_of(page);

	kfree_skb(skb);
	if (!WARN_ON_ONCE(!sec))
		edm_mpool_try_return(sec->pool, sec->idx, page - sec->first);
}

/* ---- the DRAM cache of a compute node (4.6) ---- */

/*
 * Cache Region @region of the pool with @sets x @ways lines of @gran bytes
 * (sets 0: no cache). The old index's counters are kept. The index only
 * models the card: the CPU loads the pool directly, so a fill moves no data
 * and the counters say what the card would have done.
 */
int edm_pool_node_dcache_set(struct edm_pool_node *n, u32 region, u32 sets, u32 ways,
			     u32 gran, u32 min_len, struct netlink_ext_ack *extack)
{
	u64 rbytes = (u64)n->pool->lppu.core->cfg.region_sections << EDM_POOL_SECTION_SHIFT;
	struct edm_dcache_cfg cfg = {
		.base = region * rbytes, .len = rbytes, .sets = sets, .ways = ways,
		.gran_shift = gran ? ilog2(gran) : 0, .min_len = min_len,
	};
	struct edm_dcache *c = NULL, *old;
	int err;

	if (region >= n->pool->lppu.core->nregions) {
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
		c = kvzalloc(edm_dcache_size(sets, ways), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		edm_dcache_init(c, &cfg);
	}
	spin_lock_bh(&n->dc_lock);
	old = n->dc;
	if (old) {
		n->dc_old.hits += old->stats.hits;
		n->dc_old.misses += old->stats.misses;
		n->dc_old.bypassed += old->stats.bypassed;
		n->dc_old.evictions += old->stats.evictions;
		n->dc_old.flushed += old->stats.flushed;
	}
	n->dc = c;
	n->dc_cfg = cfg;
	n->dc_region = region;
	spin_unlock_bh(&n->dc_lock);
	kvfree(old);
	return 0;
}

/*
 * Node @n loads [@ref, @ref + @span) of a packet of @len bytes: one access
 * per granule, or one bypass for a packet shorter than min_len (the
 * paper's filter for SYN and ACK sized packets). Stores never allocate:
 * the stack writes these Buffers around the cache (4.5).
 */
void edm_pool_node_dcache_read(struct edm_pool_node *n, u64 ref, u32 span, u32 len)
{
	struct edm_dcache_res res;
	u64 g, end = ref + span;
	u32 shift;

	if (!READ_ONCE(n->dc))
		return;
	spin_lock_bh(&n->dc_lock);
	if (n->dc && len < n->dc->cfg.min_len) {
		edm_dcache_access(n->dc, ref, len, false, &res);
	} else if (n->dc) {
		shift = n->dc->cfg.gran_shift;
		for (g = ref; g < end; g = ((g >> shift) + 1) << shift)
			edm_dcache_access(n->dc, g, len, false, &res);
	}
	spin_unlock_bh(&n->dc_lock);
}

/* kfree_shared_skb's flush: drop the lines of a Buffer being freed. */
void edm_pool_node_dcache_flush(struct edm_pool_node *n, u64 ref, u64 len)
{
	if (!READ_ONCE(n->dc))
		return;
	spin_lock_bh(&n->dc_lock);
	if (n->dc)
		edm_dcache_flush(n->dc, ref, len);
	spin_unlock_bh(&n->dc_lock);
}
