// SPDX-License-Identifier: GPL-2.0
/*
 * A rack compute node's data path (dfabric/rack.h): xmit writes a
 * Buffer and a TxQ descriptor, the port engine moves descriptors to the
 * destination's RxQ passing the reference, and the receive NAPI wraps each
 * reference in a shared skb.
 *
 * Copies: xmit copies the packet's bytes into a pool Buffer once per
 * destination (one for unicast; a broadcast or multicast frame goes to
 * every other CN of the rack and needs a Buffer for each, since a passed
 * reference is exclusive). Nothing else copies packet data; COPIES counts
 * every one of them.
 *
 * Tracepoints (dfabric/trace.h): edm_rack_cn_tx for each Buffer put on
 * the TxQ (or a frame with nowhere to go), edm_rack_cn_rx for each taken
 * from the RxQ or lost on the way to it.
 *
 * Locking: see rack.h. xmit runs under the netdev's TX lock (one TxQ
 * producer); the engine and the receive NAPI are each their ring's only
 * consumer; engines post on an RxQ under its lock, which also guards
 * cn->up so that a stopped CN's RxQ stays empty once drained.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "nicpool.h"
#include "rack.h"
#include "trace.h"

static struct edm_rack_desc *edm_rack_slot(struct edm_rack_ring *r, u32 i)
{
	return &r->desc[i & (EDM_RACK_RING - 1)];
}

static u32 edm_rack_ring_used(struct edm_rack_ring *r)
{
	/* acquire: the consumer is done with a slot before we reuse it */
	return r->prod - smp_load_acquire(&r->cons);
}

static bool edm_rack_ring_ready(struct edm_rack_ring *r)
{
	/* acquire: pairs with edm_rack_ring_publish() */
	return r->cons != smp_load_acquire(&r->prod);
}

static void edm_rack_ring_publish(struct edm_rack_ring *r)
{
	/* release: the descriptor is complete before the consumer sees it */
	smp_store_release(&r->prod, r->prod + 1);
}

/* The consumer takes the next descriptor and gives its slot back. */
static void edm_rack_ring_take(struct edm_rack_ring *r, struct edm_rack_desc *d)
{
	*d = *edm_rack_slot(r, r->cons);
	/* release: our copy of the slot is made before a producer reuses it */
	smp_store_release(&r->cons, r->cons + 1);
}

/* A Buffer the ring or a drop leaves with @cn: give it back. */
static void edm_rack_drop_buf(struct edm_rack_cn *cn, const struct edm_rack_desc *d)
{
	edm_free_shared_buffer(&cn->pn, d->ref);
}

/* ---- transmit ---- */

/* The CN with MAC address @addr in @rack, other than @self; RCU. */
struct edm_rack_cn *edm_rack_by_mac(struct edm_rack *rack, const u8 *addr,
				    struct edm_rack_cn *self)
{
	struct edm_rack_cn *cn;
	int i;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	for (i = 0; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference(rack->cn[i]);
		if (cn && cn != self && ether_addr_equal(cn->netdev->dev_addr, addr))
			return cn;
	}
	return NULL;
}

/* The one copy: @skb into a new Buffer, and a TxQ descriptor toward node @dst. */
static int __edm_rack_tx_one(struct edm_rack_cn *cn, struct sk_buff *skb, u8 dst)
{
	struct edm_rack_ring *r = &cn->txq;
	u32 span = edm_shared_skb_span(skb->len);
	struct edm_rack_desc *d;
	void *buf;
	u64 ref;
	int err;

	if (!span || edm_rack_ring_used(r) >= EDM_RACK_RING)
		return -ENOBUFS;
	err = edm_alloc_shared_buffer(&cn->pn, span, EDM_POOL_LOC_MEM, &ref, &buf);
	if (err) {
		if (err == -ENOMEM)
			edm_cn_stat_add(cn, EDM_A_CNSTAT_ENOMEM, 1);
		return err;
	}
	d = edm_rack_slot(r, r->prod);
	if (virtio_net_hdr_from_skb(skb, &d->vh, true, false, 0)) {
		edm_free_shared_buffer(&cn->pn, ref);
		return -EINVAL;
	}
	edm_shared_skb_fill(&cn->pn, ref, buf, skb);	/* written around the DRAM cache */
	edm_cn_stat_add(cn, EDM_A_CNSTAT_COPIES, 1);
	edm_cn_stat_add(cn, EDM_A_CNSTAT_COPY_BYTES, skb->len);
	d->ref = ref;
	d->len = skb->len;
	d->src = cn->pn.id;
	d->dst = dst;
	edm_rack_ring_publish(r);
	return 0;
}

static int edm_rack_tx_one(struct edm_rack_cn *cn, struct sk_buff *skb, u8 dst)
{
	int err = __edm_rack_tx_one(cn, skb, dst);

	trace_edm_rack_cn_tx(netdev_name(cn->netdev), dst, skb->len, err);
	return err;
}

/* The rack's NIC pool, if it has one with members; RCU. */
static struct edm_nicpool *edm_rack_np(struct edm_rack *rack)
{
	struct edm_nicpool *np = rcu_dereference(rack->np);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	return np && READ_ONCE(np->nmembers) ? np : NULL;
}

/* Every other CN of the rack, and the NIC pool (so that ARP crosses racks),
 * gets its own Buffer; 0 if any took it.
 */
static int edm_rack_tx_flood(struct edm_rack_cn *cn, struct sk_buff *skb)
{
	struct edm_nicpool *np = edm_rack_np(cn->rack);
	struct edm_rack *rack = cn->rack;
	struct edm_rack_cn *to;
	int i, err = -ENODEV;

	for (i = 0; i < EDM_POOL_NNODES; i++) {
		to = rcu_dereference(rack->cn[i]);
		if (to && to != cn && !edm_rack_tx_one(cn, skb, to->pn.id))
			err = 0;
	}
	if (np && !edm_rack_tx_one(cn, skb, np->pn.id))
		err = 0;
	return err;
}

/* A unicast frame: to the CN with its MAC, else out of the rack. */
static int edm_rack_tx_unicast(struct edm_rack_cn *cn, struct sk_buff *skb, const u8 *dest)
{
	struct edm_rack_cn *to = edm_rack_by_mac(cn->rack, dest, cn);
	struct edm_nicpool *np;

	if (to)
		return edm_rack_tx_one(cn, skb, to->pn.id);
	np = edm_rack_np(cn->rack);
	if (np)
		return edm_rack_tx_one(cn, skb, np->pn.id);
	trace_edm_rack_cn_tx(netdev_name(cn->netdev), EDM_TRACE_NO_NODE, skb->len, -ENODEV);
	return -ENODEV;
}

static void edm_rack_maybe_stop(struct edm_rack_cn *cn)
{
	if (edm_rack_ring_used(&cn->txq) < EDM_RACK_RING - 1)
		return;
	netif_stop_queue(cn->netdev);
	/* the engine wakes us after taking: we see the room, or it sees us stopped */
	smp_mb();
	if (edm_rack_ring_used(&cn->txq) < EDM_RACK_RING - 1)
		netif_start_queue(cn->netdev);
}

static netdev_tx_t edm_rack_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct edm_rack_cn *cn = netdev_priv(dev);
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	u32 len = skb->len;
	int err;

	rcu_read_lock();
	if (len < ETH_HLEN)
		err = -EINVAL;
	else if (is_multicast_ether_addr(eth->h_dest))
		err = edm_rack_tx_flood(cn, skb);
	else
		err = edm_rack_tx_unicast(cn, skb, eth->h_dest);
	rcu_read_unlock();
	if (err) {
		edm_cn_stat_add(cn, EDM_A_CNSTAT_TX_DROPS, 1);
		dev_kfree_skb_any(skb);
	} else {
		edm_cn_stat_add(cn, EDM_A_CNSTAT_TX_PACKETS, 1);
		edm_cn_stat_add(cn, EDM_A_CNSTAT_TX_BYTES, len);
		dev_consume_skb_any(skb);
		napi_schedule(&cn->engine);
	}
	edm_rack_maybe_stop(cn);
	return NETDEV_TX_OK;
}

/* ---- the port engine ---- */

/* Pass @d's Buffer from node @from to @to and post it on @to's RxQ, then
 * raise @to's receive NAPI (the interrupt); RCU held. 0 when posted; else
 * the Buffer is given back: -EACCES, the pool refused the pass (still
 * @from's), or -ENOBUFS, @to is down or its RxQ full (counted in @to).
 */
int edm_rack_post(struct edm_pool_node *from, struct edm_rack_cn *to,
		  const struct edm_rack_desc *d)
{
	u32 span = edm_shared_skb_span(d->len);
	struct edm_rack_ring *r = &to->rxq;
	bool posted = false;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	if (edm_pass_shared_buffer(from, &to->pn, d->ref, span)) {
		edm_free_shared_buffer(from, d->ref);
		return -EACCES;
	}
	spin_lock(&r->lock);
	if (to->up && edm_rack_ring_used(r) < EDM_RACK_RING) {
		*edm_rack_slot(r, r->prod) = *d;
		edm_rack_ring_publish(r);
		posted = true;
	}
	spin_unlock(&r->lock);
	if (!posted) {
		edm_cn_stat_add(to, EDM_A_CNSTAT_RX_DROPS, 1);
		trace_edm_rack_cn_rx(netdev_name(to->netdev), d->src, d->len, -ENOBUFS);
		edm_rack_drop_buf(to, d);
		return -ENOBUFS;
	}
	napi_schedule(&to->rx);
	return 0;
}

/* Split transaction (4.3 step 3): @cn's engine hands one descriptor's
 * reference to the destination, a CN of the rack or its NIC pool (4.4).
 */
static void edm_rack_forward(struct edm_rack_cn *cn, const struct edm_rack_desc *d)
{
	struct edm_nicpool *np;
	struct edm_rack_cn *to;
	int err = -ENODEV;

	rcu_read_lock();
	np = rcu_dereference(cn->rack->np);
	if (np && d->dst == np->pn.id) {
		err = edm_nicpool_xmit(np, cn, d);
	} else {
		to = rcu_dereference(cn->rack->cn[d->dst]);
		if (to)
			err = edm_rack_post(&cn->pn, to, d);
		else
			edm_rack_drop_buf(cn, d);
	}
	rcu_read_unlock();
	if (!err)
		edm_cn_stat_add(cn, EDM_A_CNSTAT_FORWARDED, 1);
	else if (err == -EACCES)
		edm_cn_stat_add(cn, EDM_A_CNSTAT_REFUSED, 1);
	else if (err == -ENODEV)
		edm_cn_stat_add(cn, EDM_A_CNSTAT_TX_DROPS, 1);
}

int edm_rack_engine_poll(struct napi_struct *napi, int budget)
{
	struct edm_rack_cn *cn = container_of(napi, struct edm_rack_cn, engine);
	struct edm_rack_ring *r = &cn->txq;
	struct edm_rack_desc d;
	int done = 0;

	while (done < budget && edm_rack_ring_ready(r)) {
		edm_rack_ring_take(r, &d);
		edm_rack_forward(cn, &d);
		done++;
	}
	if (done) {
		/* pairs with edm_rack_maybe_stop(): it sees the room, or we see it stopped */
		smp_mb();
		if (netif_queue_stopped(cn->netdev))
			netif_wake_queue(cn->netdev);
	}
	if (done < budget && napi_complete_done(napi, done) && edm_rack_ring_ready(r))
		napi_schedule(napi);
	return done;
}

/* ---- receive ---- */

/* virtio_net_hdr_to_skb() wants the checksum field in the skb's head. */
int edm_rack_skb_offloads(struct sk_buff *skb, const struct virtio_net_hdr *vh)
{
	int err;

	if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM &&
	    !pskb_may_pull(skb, __virtio16_to_cpu(true, vh->csum_start) +
			   __virtio16_to_cpu(true, vh->csum_offset) + sizeof(__sum16)))
		return -EINVAL;
	err = virtio_net_hdr_to_skb(skb, vh, true);
	/* a frame the NIC pool received with its checksum checked (or GRO'd) */
	if (!err && vh->flags & VIRTIO_NET_HDR_F_DATA_VALID)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	return err;
}

static void edm_rack_rx_one(struct edm_rack_cn *cn, const struct edm_rack_desc *d)
{
	struct sk_buff *skb;

	skb = edm_build_shared_skb(&cn->pn, &cn->rx, d->ref, d->len);
	if (!skb) {
		edm_cn_stat_add(cn, EDM_A_CNSTAT_RX_DROPS, 1);
		trace_edm_rack_cn_rx(netdev_name(cn->netdev), d->src, d->len, -ENOMEM);
		edm_rack_drop_buf(cn, d);
		return;
	}
	if (edm_rack_skb_offloads(skb, &d->vh)) {
		edm_kfree_shared_skb(&cn->pn, skb, d->ref);
		edm_cn_stat_add(cn, EDM_A_CNSTAT_RX_DROPS, 1);
		trace_edm_rack_cn_rx(netdev_name(cn->netdev), d->src, d->len, -EINVAL);
		return;
	}
	trace_edm_rack_cn_rx(netdev_name(cn->netdev), d->src, d->len, 0);
	skb->protocol = eth_type_trans(skb, cn->netdev);
	edm_cn_stat_add(cn, EDM_A_CNSTAT_RX_PACKETS, 1);
	edm_cn_stat_add(cn, EDM_A_CNSTAT_RX_BYTES, d->len);
	napi_gro_receive(&cn->rx, skb);
}

int edm_rack_rx_poll(struct napi_struct *napi, int budget)
{
	struct edm_rack_cn *cn = container_of(napi, struct edm_rack_cn, rx);
	struct edm_rack_ring *r = &cn->rxq;
	struct edm_rack_desc d;
	int done = 0;

	while (done < budget && edm_rack_ring_ready(r)) {
		edm_rack_ring_take(r, &d);
		edm_rack_rx_one(cn, &d);
		done++;
	}
	if (done < budget && napi_complete_done(napi, done) && edm_rack_ring_ready(r))
		napi_schedule(napi);
	return done;
}

/* ---- the netdev ---- */

/* Give back the Buffers of descriptors still queued; both NAPIs are off. */
void edm_rack_cn_drain(struct edm_rack_cn *cn)
{
	struct edm_rack_ring *r;

	r = &cn->txq;
	for (; r->cons != r->prod; r->cons++)
		edm_rack_drop_buf(cn, edm_rack_slot(r, r->cons));
	r = &cn->rxq;
	spin_lock_bh(&r->lock);
	for (; r->cons != r->prod; r->cons++)
		edm_rack_drop_buf(cn, edm_rack_slot(r, r->cons));
	spin_unlock_bh(&r->lock);
}

static int edm_rack_cn_open(struct net_device *dev)
{
	struct edm_rack_cn *cn = netdev_priv(dev);

	napi_enable(&cn->engine);
	napi_enable(&cn->rx);
	spin_lock_bh(&cn->rxq.lock);
	cn->up = true;
	spin_unlock_bh(&cn->rxq.lock);
	netif_carrier_on(dev);
	netif_start_queue(dev);
	return 0;
}

static int edm_rack_cn_stop(struct net_device *dev)
{
	struct edm_rack_cn *cn = netdev_priv(dev);

	netif_carrier_off(dev);
	netif_tx_disable(dev);
	spin_lock_bh(&cn->rxq.lock);
	cn->up = false;		/* engines post here no more */
	spin_unlock_bh(&cn->rxq.lock);
	napi_disable(&cn->engine);
	napi_disable(&cn->rx);
	edm_rack_cn_drain(cn);
	return 0;
}

static void edm_rack_cn_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct edm_rack_cn *cn = netdev_priv(dev);
	struct edm_rack_cn_stats sum;

	edm_rack_cn_stats(cn, &sum);
	s->tx_packets = sum.v[EDM_A_CNSTAT_TX_PACKETS];
	s->tx_bytes = sum.v[EDM_A_CNSTAT_TX_BYTES];
	s->tx_dropped = sum.v[EDM_A_CNSTAT_TX_DROPS];
	s->rx_packets = sum.v[EDM_A_CNSTAT_RX_PACKETS];
	s->rx_bytes = sum.v[EDM_A_CNSTAT_RX_BYTES];
	s->rx_dropped = sum.v[EDM_A_CNSTAT_RX_DROPS];
}

const struct net_device_ops edm_rack_cn_netdev_ops = {
	.ndo_uninit = edm_rack_cn_uninit,
	.ndo_open = edm_rack_cn_open,
	.ndo_stop = edm_rack_cn_stop,
	.ndo_start_xmit = edm_rack_xmit,
	.ndo_get_stats64 = edm_rack_cn_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};
