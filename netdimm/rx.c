// SPDX-License-Identifier: GPL-2.0
/*
 * ndimm receive, Algorithm 1's RX half and its polling agent.
 *
 * The wire (the sender's xmit, or the lower device's receive path) copies
 * a packet into buffers of the receiver's zone, as the NIC's DMA would,
 * and posts a descriptor on the receiver's RX ring. The polling agent,
 * NAPI, takes descriptors whose time on the wire has passed and builds an
 * skb: the first 64 bytes, the header line nCache holds, go to the skb's
 * head; the payload stays in the zone page as a fragment (zerocopy mode)
 * or is cloned next to the receive buffer (clone mode). Zone pages given to
 * the stack are lent: the zone takes them back when the stack lets go.
 *
 * Each queue pair has its own RX ring and NAPI. An RX ring's producers
 * serialize on its lock and check rx_closed under RCU first; its NAPI is
 * the only consumer.
 */
#include <linux/etherdevice.h>
#include <linux/mm.h>

#include "netdimm.h"
#include "trace.h"

/* Bytes [pos, pos + n) of the packet a descriptor or an skb carries. */
static void edm_netdimm_src_copy(const struct edm_netdimm_desc *d, const struct sk_buff *skb,
				 u32 skb_off, u32 pos, u8 *to, u32 n)
{
	u16 i;

	if (skb) {
		WARN_ON_ONCE(skb_copy_bits(skb, skb_off + pos, to, n));
		return;
	}
	if (pos < d->inline_len) {
		u32 k = min_t(u32, n, d->inline_len - pos);

		memcpy(to, d->hdr + pos, k);
		to += k;
		n -= k;
		pos = 0;
	} else {
		pos -= d->inline_len;
	}
	for (i = 0; i < d->nseg && n; i++) {
		const struct edm_netdimm_seg *s = &d->seg[i];
		u32 k;

		if (pos >= s->len) {
			pos -= s->len;
			continue;
		}
		k = min_t(u32, n, s->len - pos);
		memcpy_from_page(to, s->page, s->off + pos, k);
		to += k;
		n -= k;
		pos = 0;
	}
}

/* An RX buffer page: the next sub-array's allocCache entry, else any page. */
static struct page *edm_netdimm_rx_page(struct edm_netdimm *to, bool *fallback)
{
	struct page *page = NULL;

	if (!*fallback)
		page = edm_netdimm_alloc_pages(to->zone, edm_netdimm_next_hint(to), 0);
	if (!page) {
		*fallback = true;
		page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
	}
	return page;
}

/* A hint on the next sub-array in turn: spreads buffers over the allocCache. */
s64 edm_netdimm_next_hint(struct edm_netdimm *nd)
{
	struct edm_netdimm_zone *z = nd->zone;
	u64 id = (u64)atomic64_inc_return(&nd->cursor) % z->nslots;

	return edm_netdimm_subarray_page(&z->geom, id, 0, PAGE_SHIFT);
}

/* The wire's end, under RCU: copy @len bytes into @to's zone and post them
 * on its RX queue @rxq (modulo its count), a small packet into the
 * descriptor itself. -ENOBUFS when that ring has no free descriptor or
 * there is no memory at all; -ENETDOWN while @to's rings change.
 */
int edm_netdimm_wire_deliver(struct edm_netdimm *to, unsigned int rxq,
			     const struct edm_netdimm_desc *src, const struct sk_buff *skb,
			     u32 skb_off, u32 len, const struct virtio_net_hdr *vh, u64 due_ns)
{
	struct edm_netdimm_queue *q;
	struct edm_netdimm_ring *r;
	bool fallback = false;
	struct edm_netdimm_desc *d;
	u32 pos = 0;
	int err = 0;

	if (DIV_ROUND_UP(len, PAGE_SIZE) > EDM_NETDIMM_SEGS)
		return -EMSGSIZE;
	/* acquire: pairs with edm_netdimm_reconfigure()'s release of the new rings */
	if (smp_load_acquire(&to->rx_closed)) {
		edm_netdimm_stat_inc(to->q[0].ctrs, EDM_A_NDSTAT_RX_DROPS);
		return -ENETDOWN;
	}
	q = &to->q[rxq % READ_ONCE(to->nq)];
	r = &q->rx;
	spin_lock(&r->lock);
	/* acquire: the consumer is done with the slot before we reuse it */
	if (r->prod - smp_load_acquire(&r->cons) >= r->size) {
		trace_edm_ndimm_drop(netdev_name(to->netdev), true, q->idx, len,
				     "receive ring full");
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_DROPS);
		err = -ENOBUFS;
		goto out;
	}
	d = edm_netdimm_slot(r, r->prod);
	d->nseg = 0;
	d->flags = 0;
	d->inline_len = 0;
	d->len = len;
	d->vh = *vh;
	d->due_ns = due_ns;
	if (len <= EDM_NETDIMM_INLINE) {
		edm_netdimm_src_copy(src, skb, skb_off, 0, d->hdr, len);
		d->inline_len = len;
		pos = len;
	}
	while (pos < len) {
		u32 n = min_t(u32, len - pos, PAGE_SIZE);
		struct page *page = edm_netdimm_rx_page(to, &fallback);

		if (!page) {
			edm_netdimm_desc_release(to, d);
			trace_edm_ndimm_drop(netdev_name(to->netdev), true, q->idx, len,
					     "no memory");
			edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_DROPS);
			err = -ENOBUFS;
			goto out;
		}
		d->seg[d->nseg++] = (struct edm_netdimm_seg){ .page = page, .len = n };
		edm_netdimm_src_copy(src, skb, skb_off, pos, page_address(page), n);
		pos += n;
	}
	if (fallback)
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_ZONE_FALLBACK);
	/* release: the descriptor is complete before NAPI can see it */
	smp_store_release(&r->prod, r->prod + 1);
out:
	spin_unlock(&r->lock);
	if (!err && !to->poll_us)
		napi_schedule(&q->napi);
	return err;
}

/* Clone mode: the payload into a page on the receive buffer's sub-array. */
static struct page *edm_netdimm_rx_clone(struct edm_netdimm *nd, struct edm_netdimm_seg *s)
{
	s64 off = edm_netdimm_page_off(nd->zone, s->page);
	struct page *page;

	if (off < 0)
		return NULL;	/* an ordinary fallback page: hand it over as is */
	page = edm_netdimm_alloc_pages(nd->zone, off, 0);
	if (!page)
		return NULL;
	edm_netdimm_clone(nd->zone, page, s->off, s->page, s->off, s->len);
	return page;
}

enum {
	EDM_NETDIMM_RX_LENT = BIT(0),	/* a zone page went up as it arrived */
	EDM_NETDIMM_RX_CLONED = BIT(1),	/* a zone page went up as a clone */
};

/* Give a segment's page to @skb as a fragment; the descriptor lets go of it. */
static unsigned int edm_netdimm_rx_frag(struct edm_netdimm *nd, struct sk_buff *skb,
					struct edm_netdimm_seg *s, u32 skip)
{
	struct page *page = s->page, *clone = NULL;
	unsigned int how = 0;

	if (nd->rx_mode == EDM_NETDIMM_RX_CLONE) {
		clone = edm_netdimm_rx_clone(nd, s);
		if (clone) {
			edm_netdimm_free_pages(nd->zone, page, 0);
			page = clone;
		}
	}
	if (edm_netdimm_owns(nd->zone, page)) {
		get_page(page);		/* the skb's; the zone keeps its own */
		edm_netdimm_lend(nd->zone, page);
		how = clone ? EDM_NETDIMM_RX_CLONED : EDM_NETDIMM_RX_LENT;
	}
	/* an ordinary page: its only reference moves to the skb */
	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, s->off + skip, s->len - skip,
			PAGE_SIZE);
	s->page = NULL;
	return how;
}

/* virtio_net_hdr_to_skb() wants the checksum field in the skb's head. */
static int edm_netdimm_rx_offloads(struct sk_buff *skb, const struct virtio_net_hdr *vh)
{
	if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM &&
	    !pskb_may_pull(skb, __virtio16_to_cpu(true, vh->csum_start) +
			   __virtio16_to_cpu(true, vh->csum_offset) + sizeof(__sum16)))
		return -EINVAL;
	return virtio_net_hdr_to_skb(skb, vh, true);
}

/* The skb for a descriptor: its head line, and the payload as fragments. */
static struct sk_buff *edm_netdimm_rx_build(struct edm_netdimm_queue *q,
					    struct edm_netdimm_desc *d, unsigned int *how)
{
	u32 line = min_t(u32, d->len, EDM_NETDIMM_HDR_LINE);
	struct edm_netdimm *nd = q->nd;
	struct sk_buff *skb;
	u16 i;

	if (d->inline_len) {	/* a small packet: all of it is the head */
		skb = napi_alloc_skb(&q->napi, d->inline_len);
		if (skb)
			skb_put_data(skb, d->hdr, d->inline_len);
		d->inline_len = 0;
		return skb;
	}
	skb = napi_alloc_skb(&q->napi, EDM_NETDIMM_HDR_LINE);
	if (!skb)
		return NULL;
	memcpy_from_page(skb_put(skb, line), d->seg[0].page, d->seg[0].off, line);
	for (i = 0; i < d->nseg; i++) {
		u32 skip = i ? 0 : line;

		if (d->seg[i].len > skip)
			*how |= edm_netdimm_rx_frag(nd, skb, &d->seg[i], skip);
	}
	return skb;
}

static void edm_netdimm_rx_one(struct edm_netdimm_queue *q, struct edm_netdimm_desc *d)
{
	const char *what = "copied";	/* ordinary pages: the zone was full */
	struct edm_netdimm *nd = q->nd;
	unsigned int how = 0;
	struct sk_buff *skb;

	skb = edm_netdimm_rx_build(q, d, &how);
	if (!skb) {
		what = "no memory for an skb";
		goto drop;
	}
	edm_netdimm_desc_release(nd, d);	/* what the skb did not take */
	if (edm_netdimm_rx_offloads(skb, &d->vh)) {
		kfree_skb(skb);
		what = "bad offload header";
		goto count_drop;
	}
	if (!skb_shinfo(skb)->nr_frags) {
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_INLINE);
		what = "inline";
	} else if (how & EDM_NETDIMM_RX_CLONED) {
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_CLONED);
		what = "cloned";
	} else if (how & EDM_NETDIMM_RX_LENT) {
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_ZEROCOPY);
		what = "zerocopy";
	}
	trace_edm_ndimm_rx(netdev_name(nd->netdev), q->idx, d->len, what);
	skb->protocol = eth_type_trans(skb, nd->netdev);
	skb_record_rx_queue(skb, q->idx);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_PACKETS);
	edm_netdimm_stat_add(q->ctrs, EDM_A_NDSTAT_RX_BYTES, d->len);
	napi_gro_receive(&q->napi, skb);
	return;

drop:
	edm_netdimm_desc_release(nd, d);
count_drop:
	trace_edm_ndimm_drop(netdev_name(nd->netdev), true, q->idx, d->len, what);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_DROPS);
}

/* Let the peer's TX queues that feed RX queue @q send again once it has room. */
static void edm_netdimm_wake_peer(struct edm_netdimm_queue *q)
{
	struct edm_netdimm *peer;

	rcu_read_lock();
	peer = rcu_dereference(q->nd->peer);
	if (peer)
		edm_netdimm_wake_txqs(peer, q->idx);
	rcu_read_unlock();
}

static int edm_netdimm_rx(struct edm_netdimm_queue *q, int budget, u64 *next_due)
{
	struct edm_netdimm_ring *r = &q->rx;
	u32 prod = smp_load_acquire(&r->prod);	/* pairs with the wire's release */
	u64 now = 0;
	int done = 0;

	while (done < budget && r->cons != prod) {
		struct edm_netdimm_desc *d = edm_netdimm_slot(r, r->cons);

		if (d->due_ns) {
			if (!now)
				now = ktime_get_ns();
			if (d->due_ns > now) {
				*next_due = d->due_ns;
				break;
			}
		}
		edm_netdimm_rx_one(q, d);
		/* release: we are done with the slot; producers may reuse it */
		smp_store_release(&r->cons, r->cons + 1);
		done++;
	}
	if (done)
		edm_netdimm_wake_peer(q);
	return done;
}

int edm_netdimm_poll(struct napi_struct *napi, int budget)
{
	struct edm_netdimm_queue *q = container_of(napi, struct edm_netdimm_queue, napi);
	u64 next_due = 0;
	int done;

	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_POLLS);
	edm_netdimm_tx_clean(q, true);
	done = edm_netdimm_rx(q, budget, &next_due);
	if (done < budget && napi_complete_done(napi, done)) {
		/* interrupt mode: what we left must still be seen */
		if (!q->nd->poll_us) {
			if (next_due)
				hrtimer_start(&q->wire_timer, ns_to_ktime(next_due),
					      HRTIMER_MODE_ABS);
			else if (READ_ONCE(q->rx.prod) != q->rx.cons ||
				 READ_ONCE(q->tx.prod) != q->tx.cons)
				napi_schedule(napi);
		}
	}
	return done;
}

/* A queue's polling agent: look at its rings every poll_us. */
enum hrtimer_restart edm_netdimm_poll_timer(struct hrtimer *t)
{
	struct edm_netdimm_queue *q = container_of(t, struct edm_netdimm_queue, poll_timer);

	napi_schedule(&q->napi);
	hrtimer_forward_now(t, ns_to_ktime((u64)q->nd->poll_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

enum hrtimer_restart edm_netdimm_wire_timer(struct hrtimer *t)
{
	struct edm_netdimm_queue *q = container_of(t, struct edm_netdimm_queue, wire_timer);

	napi_schedule(&q->napi);
	return HRTIMER_NORESTART;
}
