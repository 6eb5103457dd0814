// SPDX-License-Identifier: GPL-2.0
/*
 * The shared skb APIs of DFabric (paper Table 2, 4.5); each compute node's
 * DRAM cache (4.6) around them is dfabric/pool_dc.c.
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
 * With a DRAM cache, the packet may be read into a cache line and the skb
 * built on the line's pages in the same layout (pool_dc.c); the Buffer is
 * lent all the same and comes back when the line's pages are idle.
 *
 * Locking: the pool's lppu.lock inside the calls into dfabric/pool.c.
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

/* Pages a packet of @len bytes takes in the shared skb layout: the head and one per fragment. */
u32 edm_shared_skb_pages(u32 len)
{
	return DIV_ROUND_UP(edm_shared_skb_span(len), PAGE_SIZE);
}

/*
 * The sender's one copy: @skb's bytes into node @n's Buffer at @ref, mapped
 * at @buf, in the shared skb layout. It goes around @n's DRAM cache (4.5).
 */
void edm_shared_skb_fill(struct edm_pool_node *n, u64 ref, void *buf, const struct sk_buff *skb)
{
	u32 head = min_t(u32, skb->len, EDM_SKB_HEAD_LEN);

	edm_pool_node_dcache_around(n, ref, edm_shared_skb_span(skb->len));
	WARN_ON_ONCE(skb_copy_bits(skb, 0, buf + EDM_SKB_HEADROOM, head));
	if (skb->len > head)
		WARN_ON_ONCE(skb_copy_bits(skb, head, buf + PAGE_SIZE, skb->len - head));
}

/* The pages after the head: one fragment each, each with the reference lent for it. */
static void edm_shared_skb_frags(struct sk_buff *skb, struct page *page, u32 rest)
{
	int i = 0;

	while (rest) {
		u32 n = min_t(u32, rest, PAGE_SIZE);

		skb_add_rx_frag(skb, i++, ++page, 0, n, PAGE_SIZE);
		rest -= n;
	}
}

/*
 * build_shared_skb (Table 2): an skb whose data is the Buffer at @ref,
 * holding a packet of @len bytes in the shared skb layout, no copy (or the
 * DRAM cache line it was read into). Node @n must hold the Buffer (its
 * mapping table is checked); it keeps holding it until the stack lets go,
 * then the pool frees it. NULL if the reference is refused or no skb could
 * be had (the Buffer is still @n's then).
 */
struct sk_buff *edm_build_shared_skb(struct edm_pool_node *n, struct napi_struct *napi,
				     u64 ref, u32 len)
{
	struct edm_lppu *l = &n->pool->lppu;
	u32 span = edm_shared_skb_span(len);
	struct page *page = NULL;
	struct edm_pool_buf b = {};
	struct sk_buff *skb;
	int err = -EMSGSIZE;

	spin_lock_bh(&l->lock);
	if (span)
		err = edm_pool_ref_check(l->core, n->id, ref, span);
	if (!err)
		err = edm_pool_ref_resolve(l->core, n->id, ref, span, &b);
	if (!err && b.off == b.start && b.size >= PAGE_SIZE)
		page = edm_mpool_lend_locked(n, &b, ref, len, span);
	spin_unlock_bh(&l->lock);
	if (!page)
		return NULL;
	skb = napi ? napi_build_skb(page_address(page), PAGE_SIZE) :
		     build_skb(page_address(page), PAGE_SIZE);
	if (!skb) {
		edm_mpool_unlend(n, &b, ref, page, len);
		return NULL;
	}
	skb_reserve(skb, EDM_SKB_HEADROOM);
	skb_put(skb, min_t(u32, len, EDM_SKB_HEAD_LEN));
	if (len > EDM_SKB_HEAD_LEN)
		edm_shared_skb_frags(skb, page, len - EDM_SKB_HEAD_LEN);
	edm_mpool_reclaim_soon(n->pool);
	return skb;
}

/*
 * kfree_shared_skb (Table 2): free a shared skb that node @n built on the
 * Buffer at @ref and, if that was the last use of the Buffer, give it back
 * and flush its DRAM cache lines now rather than at the next reclaim. Only
 * for skbs from edm_build_shared_skb() that the stack never saw.
 */
void edm_kfree_shared_skb(struct edm_pool_node *n, struct sk_buff *skb, u64 ref)
{
	kfree_skb(skb);
	edm_mpool_try_return(n->pool, ref);
}
