// SPDX-License-Identifier: GPL-2.0
/*
 * A shared pool's netdev: frames to another member are copied once into a
 * pool Buffer (laid out in pages, include/edm/shpool_core.h), which is
 * passed to that member and queued on the ring to it (the pass is the
 * pool's compare-and-swap on the Buffer's holder word).
 *
 * The receiver makes no copy of a frame longer than EDM_SHPOOL_RX_HEAD where
 * the memory has struct pages (a pmem or device-DAX device): the Buffer's
 * first page becomes the skb's head, each
 * further page one fragment, as the single-kernel rack does
 * (dfabric/pool_skb.c), and the Buffer is lent to the network stack until
 * every page it took is back at one reference; the reclaim work then frees
 * it. A page found still held when its Buffer comes in again (by an skb of
 * a life of ours that was reaped) is not lent twice: that frame is copied.
 * An ivshmem BAR has no struct pages: its receiver copies the frame out
 * and frees the Buffer at once.
 *
 * No member can interrupt another (no doorbell): the receive NAPI polls
 * the rings on an hrtimer: every EDM_SHPOOL_POLL_MIN_NS while frames came in
 * the last EDM_SHPOOL_POLL_SPIN polls (a request's answer comes soon),
 * then doubling up to EDM_SHPOOL_POLL_MAX_NS while idle.
 *
 * Locking: xmit runs under the TX lock (the view's one producer), the NAPI
 * is the view's one consumer (and ndo_stop, once the NAPI is off, drains
 * what came meanwhile); nothing else of ours. A member whose netdev is
 * down says so in the host table, and is passed nothing. A full ring stops the
 * queue, and the NAPI wakes it when every ring has room again. A MAC change
 * (under RTNL, like the join and the leave) swaps the slot's MAC word.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/mm.h>
#include <linux/virtio_net.h>

#include "rack.h"
#include "shpool.h"
#include "trace.h"

#define EDM_SHPOOL_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM | NETIF_F_HIGHDMA | \
			     NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN)
/*
 * Bytes of a copied frame in the skb's head; frames no longer are copied
 * even where they could be lent (copybreak): lending gives the stack a 4 KiB
 * page per frame, so a socket's receive buffer holds 16 times fewer 64-byte
 * datagrams, and copying so few bytes costs less than the page's round trip.
 */
#define EDM_SHPOOL_RX_HEAD	256

/*
 * May frames go to @slot? It must be live with its receive side up (its
 * netdev up), and not silent: a member that missed two beats (dead, most
 * likely) or left a non-empty ring untouched for two beats gets nothing
 * more, so its ring neither stops the queue toward everyone until its
 * lease runs out nor parks more Buffers of the pool.
 */
static bool edm_shpool_peer_ok(struct edm_shpool *sp, u32 slot)
{
	return !test_bit(slot, sp->silent) && edm_shp_peer_up(&sp->v, slot);
}

/* Room for one more frame on every ring to a member frames may go to? */
static bool edm_shpool_room(struct edm_shpool *sp)
{
	u32 i;

	for (i = 0; i < sp->v.geo.nhosts; i++)
		if (edm_shpool_peer_ok(sp, i) && !edm_shp_room(&sp->v, i))
			return false;
	return true;
}

static void edm_shpool_tx_one(struct edm_shpool *sp, struct sk_buff *skb, u32 dst)
{
	struct virtio_net_hdr vh;
	u32 buf;
	u32 off0, len0, off1;
	u64 hw;
	int err;
	u8 *p;

	BUILD_BUG_ON(sizeof(vh) > sizeof(((struct edm_shp_desc *)NULL)->meta));
	if (skb->len > edm_shp_frame_max(&sp->v) ||
	    virtio_net_hdr_from_skb(skb, &vh, true, false, 0) || edm_shp_alloc(&sp->v, &buf, &hw)) {
		trace_edm_shpool_tx(netdev_name(sp->netdev), dst, skb->len, -ENOBUFS);
		edm_shpool_stat(sp, EDM_A_SHSTAT_TX_NO_BUF, 1);
		return;
	}
	p = edm_shp_buf(&sp->v, buf);
	edm_shp_frame_parts(&sp->v, skb->len, &off0, &len0, &off1);
	skb_copy_bits(skb, 0, p + off0, len0);
	if (skb->len > len0)
		skb_copy_bits(skb, len0, p + off1, skb->len - len0);
	err = edm_shp_send(&sp->v, dst, buf, hw, skb->len, &vh, sizeof(vh));
	trace_edm_shpool_tx(netdev_name(sp->netdev), dst, skb->len, err);
	if (err) {
		if (err == -EHOSTDOWN)
			edm_shpool_stat(sp, EDM_A_SHSTAT_TX_HOST_DOWN, 1);
		if (!edm_shp_free(&sp->v, buf, hw))
			edm_shpool_stat(sp, EDM_A_SHSTAT_FREES, 1);
		return;
	}
	edm_shpool_stat(sp, EDM_A_SHSTAT_TX_PACKETS, 1);
	edm_shpool_stat(sp, EDM_A_SHSTAT_TX_BYTES, skb->len);
}

static netdev_tx_t edm_shpool_xmit(struct sk_buff *skb, struct net_device *nd)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	int dst;
	u32 i;

	/* fenced (reaped while alive): it has no one to send to */
	if (skb->len < ETH_HLEN || READ_ONCE(sp->fenced) || edm_shp_fenced(&sp->v)) {
		edm_shpool_stat(sp, EDM_A_SHSTAT_TX_NO_HOST, 1);
		goto out;
	}
	if (is_multicast_ether_addr(eth->h_dest)) {
		edm_shpool_stat(sp, EDM_A_SHSTAT_TX_FLOODS, 1);
		for (i = 0; i < sp->v.geo.nhosts; i++)
			if (edm_shpool_peer_ok(sp, i))
				edm_shpool_tx_one(sp, skb, i);
	} else {
		dst = edm_shp_find_mac(&sp->v, eth->h_dest);
		if (dst < 0 || !edm_shpool_peer_ok(sp, dst))
			edm_shpool_stat(sp, EDM_A_SHSTAT_TX_NO_HOST, 1);
		else
			edm_shpool_tx_one(sp, skb, dst);
	}
	if (!edm_shpool_room(sp))
		netif_stop_queue(nd);	/* the NAPI wakes it */
out:
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

/* ---- receive ---- */

/* The struct page of Buffer @buf's first page (zc only; also while lingering). */
static struct page *edm_shpool_buf_page(struct edm_shpool *sp, u32 buf)
{
	u64 off = (u8 *)edm_shp_buf(&sp->v, buf) - (u8 *)sp->prov.va;

	return pfn_to_page(PHYS_PFN(sp->prov.phys + off));
}

/*
 * Decide at join whether frames may be lent: the memory must have struct
 * pages of its own (a pgmap), one per 4 KiB page (not compound pages,
 * whose one count several Buffers would share: a device-DAX device of
 * 2 MiB alignment), in the direct map where the view maps it. Only then is
 * the lent map allocated (without it nothing is ever lent, and reclaim and
 * a leave find nothing to give back).
 */
void edm_shpool_zc_setup(struct edm_shpool *sp)
{
	struct page *page;

	sp->zc = false;
	if (!sp->prov.pgmap || PAGE_SIZE != EDM_SHP_FRAME_PAGE || !edm_shp_frame_paged(&sp->v))
		return;
	page = edm_shpool_buf_page(sp, 0);
	if (PageCompound(page) || page_address(page) != edm_shp_buf(&sp->v, 0))
		return;
	sp->lent = bitmap_zalloc(sp->v.geo.nbufs, GFP_KERNEL);
	sp->lent_hw = kvcalloc(sp->v.geo.nbufs, sizeof(*sp->lent_hw), GFP_KERNEL);
	sp->lent_pages = kvcalloc(sp->v.geo.nbufs, sizeof(*sp->lent_pages), GFP_KERNEL);
	sp->zc = sp->lent && sp->lent_hw && sp->lent_pages;
}

/*
 * Pass the frame of @d up in its own Buffer: the first page is the skb's
 * head (the frame's first part after the headroom, skb_shared_info at the
 * page's end), each further page one fragment, and each page the skb uses
 * gets a reference of the stack's (the head's is dropped by
 * page_frag_free()). Every such page must be idle first: at one reference.
 * NULL: copy it instead.
 */
static struct sk_buff *edm_shpool_rx_lend(struct edm_shpool *sp, const struct edm_shp_desc *d)
{
	struct page *page = edm_shpool_buf_page(sp, d->buf);
	u32 off0, len0, off1, npages, i, n;
	struct sk_buff *skb;

	BUILD_BUG_ON(EDM_SHP_FRAME_HEADROOM + EDM_SHP_FRAME_HEAD +
		     SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) > EDM_SHP_FRAME_PAGE);
	edm_shp_frame_parts(&sp->v, d->len, &off0, &len0, &off1);
	npages = 1 + DIV_ROUND_UP(d->len - len0, PAGE_SIZE);
	if (npages - 1 > MAX_SKB_FRAGS || test_bit(d->buf, sp->lent))
		return NULL;
	for (i = 0; i < npages; i++)
		if (page_ref_count(page + i) != 1)
			return NULL;
	for (i = 0; i < npages; i++)
		get_page(page + i);
	skb = napi_build_skb(page_address(page), PAGE_SIZE);
	if (!skb) {
		for (i = 0; i < npages; i++)
			put_page(page + i);
		return NULL;
	}
	skb_reserve(skb, off0);
	skb_put(skb, len0);
	for (i = 1, n = d->len - len0; i < npages; i++, n -= min_t(u32, n, PAGE_SIZE))
		skb_add_rx_frag(skb, i - 1, page + i, 0, min_t(u32, n, PAGE_SIZE), PAGE_SIZE);
	sp->lent_hw[d->buf] = d->hw;
	sp->lent_pages[d->buf] = npages;
	smp_mb__before_atomic();	/* hw and pages before the bit: edm_shpool_reclaim() */
	set_bit(d->buf, sp->lent);
	atomic_inc(&sp->nlent);
	if (!delayed_work_pending(&sp->reclaim))
		queue_delayed_work(system_power_efficient_wq, &sp->reclaim,
				   msecs_to_jiffies(EDM_SHPOOL_RECLAIM_MS));
	return skb;
}

/* A copy of the frame of @d, from its two parts. */
static struct sk_buff *edm_shpool_rx_copy_skb(struct edm_shpool *sp, const struct edm_shp_desc *d)
{
	const u8 *p = edm_shp_buf(&sp->v, d->buf);
	u32 len = d->len, head = min_t(u32, len, EDM_SHPOOL_RX_HEAD);
	u32 off0, len0, off1;
	struct sk_buff *skb;
	int err;

	edm_shp_frame_parts(&sp->v, len, &off0, &len0, &off1);
	if (len <= EDM_SHPOOL_RX_HEAD * 4) {
		skb = napi_alloc_skb(&sp->napi, len);
		if (skb) {
			skb_put_data(skb, p + off0, len0);
			skb_put_data(skb, p + off1, len - len0);
		}
		return skb;
	}
	skb = alloc_skb_with_frags(head, len - head, PAGE_ALLOC_COSTLY_ORDER, &err, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_put(skb, head);
	skb->data_len = len - head;
	skb->len = len;
	if (skb_store_bits(skb, 0, p + off0, len0) ||
	    skb_store_bits(skb, len0, p + off1, len - len0)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * Give back every lent Buffer whose pages the stack let go of: each is
 * freed in the pool (a life of ours that was reaped frees nothing: the
 * Buffer is no longer ours). Any context but the NAPI's own lending may
 * run it, one at a time. Buffers still lent.
 */
u32 edm_shpool_reclaim(struct edm_shpool *sp)
{
	unsigned long b;
	u32 i, n;
	u64 hw;

	if (!sp->lent)
		return 0;
	for_each_set_bit(b, sp->lent, sp->v.geo.nbufs) {
		struct page *page = edm_shpool_buf_page(sp, b);

		smp_rmb();	/* the bit before hw and pages: edm_shpool_rx_lend() */
		n = READ_ONCE(sp->lent_pages[b]);
		for (i = 0; i < n; i++)
			if (page_ref_count(page + i) != 1)
				break;
		if (i < n)
			continue;
		/* the bit goes first: once freed, the Buffer may come in again at once */
		hw = READ_ONCE(sp->lent_hw[b]);
		clear_bit(b, sp->lent);
		atomic_dec(&sp->nlent);
		if (!edm_shp_free(&sp->v, b, hw))
			edm_shpool_stat(sp, EDM_A_SHSTAT_FREES, 1);
		edm_shpool_stat(sp, EDM_A_SHSTAT_RX_RETURNED, 1);
	}
	return atomic_read(&sp->nlent);
}

/* For edm_shp_leave_keep(): is Buffer @buf lent? */
bool edm_shpool_keep_lent(void *arg, u32 buf)
{
	struct edm_shpool *sp = arg;

	return sp->lent && test_bit(buf, sp->lent);
}

static void edm_shpool_rx_one(struct edm_shpool *sp, u32 src, const struct edm_shp_desc *d)
{
	struct virtio_net_hdr vh;
	struct sk_buff *skb = NULL;
	bool lent = false;

	memcpy(&vh, d->meta, sizeof(vh));
	if (d->len >= ETH_HLEN && d->len <= edm_shp_frame_max(&sp->v)) {
		if (sp->zc && d->len > EDM_SHPOOL_RX_HEAD && !READ_ONCE(edm_shpool_rx_copy))
			skb = edm_shpool_rx_lend(sp, d);
		lent = !!skb;
		if (!skb)
			skb = edm_shpool_rx_copy_skb(sp, d);
	}
	if (lent)
		edm_shpool_stat(sp, EDM_A_SHSTAT_RX_ZEROCOPY, 1);
	else if (skb)
		edm_shpool_stat(sp, d->len > EDM_SHPOOL_RX_HEAD ? EDM_A_SHSTAT_RX_COPIED :
				EDM_A_SHSTAT_RX_SMALL, 1);
	if (!lent && !edm_shp_free(&sp->v, d->buf, d->hw))
		edm_shpool_stat(sp, EDM_A_SHSTAT_FREES, 1);
	if (!skb || edm_rack_skb_offloads(skb, &vh)) {
		trace_edm_shpool_rx(netdev_name(sp->netdev), src, d->len,
				    skb || d->len < ETH_HLEN || d->len > edm_shp_frame_max(&sp->v) ?
				    -EINVAL : -ENOMEM);
		kfree_skb(skb);
		edm_shpool_stat(sp, EDM_A_SHSTAT_RX_DROPS, 1);
		return;
	}
	trace_edm_shpool_rx(netdev_name(sp->netdev), src, d->len, 0);
	skb->protocol = eth_type_trans(skb, sp->netdev);
	edm_shpool_stat(sp, EDM_A_SHSTAT_RX_PACKETS, 1);
	edm_shpool_stat(sp, EDM_A_SHSTAT_RX_BYTES, d->len);
	napi_gro_receive(&sp->napi, skb);
}

static int edm_shpool_poll(struct napi_struct *napi, int budget)
{
	struct edm_shpool *sp = container_of(napi, struct edm_shpool, napi);
	u32 n = sp->v.geo.nhosts, k, src;
	struct edm_shp_desc d;
	int done = 0, err;

	edm_shpool_stat(sp, EDM_A_SHSTAT_POLLS, 1);
	for (k = 0; k < n && done < budget; k++) {
		src = (sp->rx_next + k) % n;
		if (src == sp->v.slot)
			continue;
		while (done < budget) {
			err = edm_shp_take(&sp->v, src, &d);
			if (err && err != -ESTALE)
				break;		/* empty, or this life was reaped */
			if (!err)
				edm_shpool_rx_one(sp, src, &d);
			done++;		/* a refusal is work too: garbage cannot keep us here */
		}
	}
	sp->rx_next = (sp->rx_next + 1) % n;
	if (netif_queue_stopped(sp->netdev) && edm_shpool_room(sp))
		netif_wake_queue(sp->netdev);
	if (done == budget)
		return done;
	if (done) {
		sp->idle = 0;
		sp->poll_ns = EDM_SHPOOL_POLL_MIN_NS;
	} else {
		edm_shpool_stat(sp, EDM_A_SHSTAT_IDLE_POLLS, 1);
		if (++sp->idle > EDM_SHPOOL_POLL_SPIN)
			sp->poll_ns = min_t(u64, sp->poll_ns * 2, EDM_SHPOOL_POLL_MAX_NS);
	}
	if (napi_complete_done(napi, done))
		hrtimer_start(&sp->poll_timer, ns_to_ktime(sp->poll_ns), HRTIMER_MODE_REL);
	return done;
}

static enum hrtimer_restart edm_shpool_poll_timer(struct hrtimer *t)
{
	struct edm_shpool *sp = container_of(t, struct edm_shpool, poll_timer);

	napi_schedule(&sp->napi);
	return HRTIMER_NORESTART;
}

/* ---- the netdev ---- */

static int edm_shpool_open(struct net_device *nd)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);

	sp->poll_ns = EDM_SHPOOL_POLL_MIN_NS;
	sp->idle = 0;
	napi_enable(&sp->napi);
	napi_schedule(&sp->napi);
	edm_shp_set_up(&sp->v, true);
	/* the beat work turns the carrier off when it finds us fenced */
	if (!READ_ONCE(sp->fenced))
		netif_carrier_on(nd);
	netif_start_queue(nd);
	return 0;
}

/* Free what was queued to us while the NAPI is off: nobody else takes it. */
static void edm_shpool_drain(struct edm_shpool *sp)
{
	struct edm_shp_desc d;
	u32 src, n;
	int err;

	for (src = 0; src < sp->v.geo.nhosts; src++) {
		if (src == sp->v.slot)
			continue;
		for (n = 0; n < sp->v.geo.ring_size; n++) {
			err = edm_shp_take(&sp->v, src, &d);
			if (err && err != -ESTALE)
				break;
			if (!err && !edm_shp_free(&sp->v, d.buf, d.hw))
				edm_shpool_stat(sp, EDM_A_SHSTAT_FREES, 1);
			if (!err)
				edm_shpool_stat(sp, EDM_A_SHSTAT_RX_DROPS, 1);
		}
	}
}

static int edm_shpool_stop(struct net_device *nd)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);

	netif_carrier_off(nd);
	netif_tx_disable(nd);
	edm_shp_set_up(&sp->v, false);		/* senders pass us nothing more */
	napi_disable(&sp->napi);
	hrtimer_cancel(&sp->poll_timer);	/* a NAPI schedule now finds it disabled */
	edm_shpool_drain(sp);
	return 0;
}

/*
 * A new MAC address, up or down (as a veth's): the pool routes each frame
 * by the MAC in its member's slot, so the slot's changes first, in one
 * swap (edm_shp_set_mac()); peers send to the new one from their next
 * frame, and frames on their way to the old one are dropped as for a
 * host that went away. Under RTNL; -ENOTCONN when this kernel was reaped.
 */
static int edm_shpool_set_mac(struct net_device *nd, void *p)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);
	const struct sockaddr *sa = p;
	int err;

	err = eth_prepare_mac_addr_change(nd, p);
	if (err)
		return err;
	err = edm_shp_set_mac(&sp->v, nd->dev_addr, (const u8 *)sa->sa_data);
	if (err)
		return err;
	eth_commit_mac_addr_change(nd, p);
	return 0;
}

static void edm_shpool_get_stats64(struct net_device *nd, struct rtnl_link_stats64 *s)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);
	struct edm_shpool_stats sum;

	edm_shpool_stats(sp, &sum);
	s->tx_packets = sum.v[EDM_A_SHSTAT_TX_PACKETS];
	s->tx_bytes = sum.v[EDM_A_SHSTAT_TX_BYTES];
	s->tx_dropped = sum.v[EDM_A_SHSTAT_TX_NO_HOST] + sum.v[EDM_A_SHSTAT_TX_NO_BUF] +
			sum.v[EDM_A_SHSTAT_TX_RING_FULL] + sum.v[EDM_A_SHSTAT_TX_HOST_DOWN];
	s->rx_packets = sum.v[EDM_A_SHSTAT_RX_PACKETS];
	s->rx_bytes = sum.v[EDM_A_SHSTAT_RX_BYTES];
	s->rx_dropped = sum.v[EDM_A_SHSTAT_RX_DROPS] + sum.v[EDM_A_SHSTAT_RX_REFUSED];
}

static const struct net_device_ops edm_shpool_netdev_ops = {
	.ndo_open = edm_shpool_open,
	.ndo_stop = edm_shpool_stop,
	.ndo_start_xmit = edm_shpool_xmit,
	.ndo_get_stats64 = edm_shpool_get_stats64,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_mac_address = edm_shpool_set_mac,
};

void edm_shpool_setup(struct net_device *nd)
{
	ether_setup(nd);
	nd->netdev_ops = &edm_shpool_netdev_ops;
	nd->ethtool_ops = &edm_shpool_ethtool_ops;
	nd->features |= EDM_SHPOOL_FEATURES;
	nd->hw_features |= EDM_SHPOOL_FEATURES;
	nd->vlan_features |= EDM_SHPOOL_FEATURES;
	nd->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	eth_hw_addr_random(nd);
}

/* The netdev's last reference is gone: so is its reference on the membership. */
static void edm_shpool_ndev_destructor(struct net_device *nd)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);

	netif_napi_del(&sp->napi);	/* free_netdev() would, after sp may be gone */
	edm_shpool_put(sp);
}

/*
 * Sized for the pool's Buffers, which the view must know already: @given
 * (allocated by `ip link add`) or a new one. Every shared pool's netdev
 * carries the shpool link ops, however it was made.
 */
struct net_device *edm_shpool_netdev_alloc(struct edm_shpool *sp, const char *ifname,
					   struct net_device *given)
{
	u32 frame = min_t(u32, edm_shp_frame_max(&sp->v), GSO_LEGACY_MAX_SIZE);
	struct net_device *nd = given;

	if (!nd) {
		nd = alloc_netdev(sizeof(sp), ifname ?: "shp%d",
				  ifname ? NET_NAME_USER : NET_NAME_ENUM, edm_shpool_setup);
		if (!nd)
			return ERR_PTR(-ENOMEM);
		dev_net_set(nd, sp->edev->net);
	}
	*(struct edm_shpool **)netdev_priv(nd) = sp;
	nd->rtnl_link_ops = &edm_shpool_link_ops;
	nd->max_mtu = frame - ETH_HLEN - VLAN_HLEN;
	if (nd->mtu > nd->max_mtu)
		nd->mtu = nd->max_mtu;
	netif_set_tso_max_size(nd, frame - ETH_HLEN - VLAN_HLEN);
	netif_napi_add(nd, &sp->napi, edm_shpool_poll);
	hrtimer_init(&sp->poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	sp->poll_timer.function = edm_shpool_poll_timer;
	return nd;
}

/*
 * Registered: from now on unregistering frees it, and it holds the
 * membership until then. Under RTNL.
 */
void edm_shpool_netdev_registered(struct net_device *nd)
{
	kref_get(&edm_shpool_nd(nd)->ref);
	nd->priv_destructor = edm_shpool_ndev_destructor;
	nd->needs_free_netdev = true;
}

/* Never registered: ours to free; `ip link add`'s is rtnl's (@ours false). */
void edm_shpool_netdev_free(struct net_device *nd, bool ours)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);

	netif_napi_del(&sp->napi);
	if (ours)
		free_netdev(nd);
}
