// SPDX-License-Identifier: GPL-2.0
/*
 * ndimm transmit, Algorithm 1's TX half. A packet whose payload already
 * lies in the zone (pages a user mapped from /dev/ndimm<i> and sent with
 * MSG_ZEROCOPY) takes the fast path: the descriptor carries the headers
 * inline and points at those pages. Any other packet is COPY_NEEDED: it is
 * copied into zone buffers, placed on the sub-array its socket used last
 * (the socket's remembered zone). A full zone falls back to ordinary pages.
 * Then the emulated NIC puts it on the wire, to the peer's RX queue of the
 * same index (modulo its count), and the queue's polling agent cleans the
 * descriptor later, completing it for BQL.
 *
 * Runs under the TX queue's lock: its TX ring's only producer. The wire's
 * clock (wire_free_ns), which every queue shares, is under wire_lock.
 */
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <net/sock.h>

#include "netdimm.h"
#include "trace.h"

static bool edm_netdimm_tx_fast(const struct edm_netdimm *nd, const struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	int i;

	if (skb_headlen(skb) > EDM_NETDIMM_INLINE || !si->nr_frags || skb_has_frag_list(skb))
		return false;
	for (i = 0; i < si->nr_frags; i++)
		if (!edm_netdimm_owns(nd->zone, skb_frag_page(&si->frags[i])) ||
		    skb_frag_off(&si->frags[i]) + skb_frag_size(&si->frags[i]) > PAGE_SIZE)
			return false;
	return true;
}

static void edm_netdimm_tx_borrow(struct edm_netdimm_desc *d, const struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	int i;

	d->inline_len = skb_headlen(skb);
	memcpy(d->hdr, skb->data, d->inline_len);
	for (i = 0; i < si->nr_frags; i++) {
		const skb_frag_t *f = &si->frags[i];

		d->seg[i].page = skb_frag_page(f);
		d->seg[i].off = skb_frag_off(f);
		d->seg[i].len = skb_frag_size(f);
		get_page(d->seg[i].page);
	}
	d->nseg = si->nr_frags;
	d->flags = EDM_NETDIMM_D_FOREIGN;
}

/* COPY_NEEDED for a small packet (an ACK, a ping-pong message): into the
 * descriptor itself, which is zone memory too. No buffer page to take from
 * the allocCache and give back: for packets this small that bookkeeping,
 * not the copy, is what costs.
 */
static bool edm_netdimm_tx_inline(struct edm_netdimm_queue *q, struct edm_netdimm_desc *d,
				  const struct sk_buff *skb)
{
	if (skb->len > EDM_NETDIMM_INLINE || skb_copy_bits(skb, 0, d->hdr, skb->len))
		return false;
	d->inline_len = skb->len;
	d->nseg = 0;
	d->flags = 0;
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_COPY_NEEDED);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_HOST_COPIES);
	return true;
}

/* COPY_NEEDED: the packet's bytes into zone pages, or, if the zone is out
 * of pages, into ordinary ones. The first page goes where the socket's
 * last one went; the rest take the allocCache of the sub-arrays in turn,
 * so a 64 KiB packet never empties one sub-array's two cached pages and
 * falls back to a search. False if no memory at all.
 */
static bool edm_netdimm_tx_copy(struct edm_netdimm_queue *q, struct edm_netdimm_desc *d,
				struct sk_buff *skb)
{
	struct edm_netdimm *nd = q->nd;
	bool fallback = false;
	u32 pos = 0;
	s64 hint;

	if (edm_netdimm_tx_inline(q, d, skb))
		return true;
	hint = skb->sk ? edm_netdimm_sock_hint(nd, skb->sk) : -1;
	if (hint >= 0)
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_SOCK_HINTS);
	d->inline_len = 0;
	d->nseg = 0;
	d->flags = 0;
	while (pos < skb->len) {
		u32 n = min_t(u32, skb->len - pos, PAGE_SIZE);
		struct page *page = NULL;

		if (!fallback)
			page = edm_netdimm_alloc_pages(nd->zone,
						       pos ? edm_netdimm_next_hint(nd) : hint, 0);
		if (!page) {
			fallback = true;
			page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
			if (!page)
				goto err;
		} else if (!pos) {
			hint = edm_netdimm_page_off(nd->zone, page);
		}
		d->seg[d->nseg].page = page;
		d->seg[d->nseg].off = 0;
		d->seg[d->nseg].len = n;
		d->nseg++;
		if (skb_copy_bits(skb, pos, page_address(page), n))
			goto err;
		pos += n;
	}
	if (fallback)
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_ZONE_FALLBACK);
	if (skb->sk && hint >= 0)
		edm_netdimm_sock_remember(nd, skb->sk, hint);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_COPY_NEEDED);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_HOST_COPIES);
	return true;

err:
	edm_netdimm_desc_release(nd, d);
	return false;
}

/* When the emulated wire hands @len bytes to the receiver: after the bytes
 * before them and their own serialization at wire_mbps, plus the wire's
 * latency. 0 (at once) on an ideal wire.
 */
static u64 edm_netdimm_wire_due(struct edm_netdimm *nd, u32 len)
{
	u64 now, start, ser = 0;

	if (!nd->wire_mbps && !nd->wire_delay_ns)
		return 0;
	if (nd->wire_mbps)
		ser = div_u64((u64)len * 8000, nd->wire_mbps);
	now = ktime_get_ns();
	spin_lock(&nd->wire_lock);
	start = max(now, nd->wire_free_ns);
	nd->wire_free_ns = start + ser;
	spin_unlock(&nd->wire_lock);
	return start + ser + nd->wire_delay_ns;
}

/* The emulated NIC: put the descriptor posted on TX queue @q on the wire. */
static int edm_netdimm_wire_tx(struct edm_netdimm_queue *q, struct edm_netdimm_desc *d)
{
	struct edm_netdimm *nd = q->nd, *peer;
	int err = -ENOTCONN;

	rcu_read_lock();
	peer = rcu_dereference(nd->peer);
	if (peer && !netif_running(peer->netdev))
		err = -ENETDOWN;
	else if (peer)
		err = edm_netdimm_wire_deliver(peer, q->idx, d, NULL, 0, d->len, &d->vh,
					       edm_netdimm_wire_due(nd, d->len));
	else if (READ_ONCE(nd->lower))
		err = edm_netdimm_lower_xmit(nd, d);
	rcu_read_unlock();
	return err;
}

/* The peer's RX ring that our TX queue @idx feeds, or NULL. Under RCU. */
static struct edm_netdimm_ring *edm_netdimm_peer_rx(struct edm_netdimm *peer, unsigned int idx)
{
	unsigned int n = READ_ONCE(peer->nq);

	return n ? &peer->q[idx % n].rx : NULL;
}

/* Room for one more packet: in TX queue @q's ring and in the peer's RX ring it feeds. */
static bool edm_netdimm_can_send(struct edm_netdimm_queue *q)
{
	struct edm_netdimm_ring *rx;
	struct edm_netdimm *peer;
	bool ok = true;

	if (edm_netdimm_ring_free(&q->tx) < 2)
		return false;
	rcu_read_lock();
	peer = rcu_dereference(q->nd->peer);
	if (peer) {
		rx = edm_netdimm_peer_rx(peer, q->idx);
		ok = !rx || edm_netdimm_ring_free(rx) >= 2;
	}
	rcu_read_unlock();
	return ok;
}

/* Stop the queue when the next packet may not fit; recheck against a racing wake. */
static void edm_netdimm_maybe_stop(struct edm_netdimm_queue *q, struct netdev_queue *txq)
{
	if (edm_netdimm_can_send(q))
		return;
	netif_tx_stop_queue(txq);
	smp_mb();	/* pairs with the consumers' wake check */
	if (edm_netdimm_can_send(q))
		netif_tx_start_queue(txq);
}

/* Wake @nd's stopped TX queues that feed the peer's RX queue @rxq (-1: all) and have room. */
void edm_netdimm_wake_txqs(struct edm_netdimm *nd, int rxq)
{
	unsigned int i, n = READ_ONCE(nd->nq), pn = 1;
	struct edm_netdimm *peer;

	if (READ_ONCE(nd->tx_closed))	/* its rings are changing */
		return;
	rcu_read_lock();
	peer = rcu_dereference(nd->peer);
	if (peer)
		pn = max(READ_ONCE(peer->nq), 1U);
	rcu_read_unlock();
	smp_mb();	/* pairs with edm_netdimm_maybe_stop() */
	for (i = 0; i < n; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(nd->netdev, i);

		if ((rxq < 0 || i % pn == rxq) && netif_tx_queue_stopped(txq) &&
		    edm_netdimm_can_send(&nd->q[i]))
			netif_tx_wake_queue(txq);
	}
}

netdev_tx_t edm_netdimm_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	u16 qi = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, qi);
	struct edm_netdimm_queue *q = &nd->q[qi];
	struct edm_netdimm_desc *d;
	u32 len = skb->len;
	const char *why;
	bool fast;
	int err;

	if (unlikely(!edm_netdimm_ring_free(&q->tx))) {
		netif_tx_stop_queue(txq);	/* the polling agent wakes it */
		return NETDEV_TX_BUSY;
	}
	d = edm_netdimm_slot(&q->tx, q->tx.prod);
	d->len = len;
	why = "a GSO type the header cannot carry";
	if (virtio_net_hdr_from_skb(skb, &d->vh, true, false, 0))
		goto drop;
	fast = edm_netdimm_tx_fast(nd, skb);
	why = "no memory";
	if (fast) {
		edm_netdimm_tx_borrow(d, skb);
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_FAST_PATH);
	} else if (!edm_netdimm_tx_copy(q, d, skb)) {
		goto drop;
	}
	err = edm_netdimm_wire_tx(q, d);
	trace_edm_ndimm_tx(netdev_name(dev), qi, len, fast, err);
	if (err)	/* no wire, or the receiver had no room: lost on the wire */
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_DROPS);
	else
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_WIRE_COPIES);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_PACKETS);
	edm_netdimm_stat_add(q->ctrs, EDM_A_NDSTAT_TX_BYTES, len);
	netdev_tx_sent_queue(txq, len);
	/* release: the descriptor is complete before the cleaner sees it */
	smp_store_release(&q->tx.prod, q->tx.prod + 1);
	edm_netdimm_maybe_stop(q, txq);
	dev_consume_skb_any(skb);
	if (!nd->poll_us)
		napi_schedule(&q->napi);
	return NETDEV_TX_OK;

drop:
	trace_edm_ndimm_drop(netdev_name(dev), false, qi, len, why);
	edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_TX_DROPS);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/*
 * Clean queue @q's transmitted descriptors and complete them for BQL; the
 * polling agent (@wake) then wakes the queue if it has room again, unless
 * the device's rings are changing (tx_closed).
 */
int edm_netdimm_tx_clean(struct edm_netdimm_queue *q, bool wake)
{
	struct netdev_queue *txq = netdev_get_tx_queue(q->nd->netdev, q->idx);
	u32 prod = smp_load_acquire(&q->tx.prod);	/* pairs with xmit's release */
	unsigned int pkts = 0, bytes = 0;
	u32 cons = q->tx.cons;

	for (; cons != prod; cons++) {
		struct edm_netdimm_desc *d = edm_netdimm_slot(&q->tx, cons);

		bytes += d->len;
		pkts++;
		edm_netdimm_desc_release(q->nd, d);
	}
	/* release: the slots are free again for xmit */
	smp_store_release(&q->tx.cons, cons);
	if (pkts)
		netdev_tx_completed_queue(txq, pkts, bytes);
	if (!wake || READ_ONCE(q->nd->tx_closed))
		return pkts;
	smp_mb();	/* pairs with edm_netdimm_maybe_stop() */
	if (netif_tx_queue_stopped(txq) && edm_netdimm_can_send(q))
		netif_tx_wake_queue(txq);
	return pkts;
}

/* Lower mode carries no GSO: frames must fit the lower device's MTU. */
netdev_features_t edm_netdimm_features_check(struct sk_buff *skb, struct net_device *dev,
					     netdev_features_t features)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	if (READ_ONCE(nd->lower))
		features &= ~NETIF_F_GSO_MASK;
	return features;
}
