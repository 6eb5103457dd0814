// SPDX-License-Identifier: GPL-2.0
/*
 * EDM over Ethernet: a fabric port bound to a netdev sends its bursts of
 * blocks as frames of the IEEE local experimental ethertype 0x88B5 and
 * receives them through a packet_type handler registered for that netdev
 * alone. The burst header carries a sequence number, so a lost frame shows
 * up as a gap on the receiving port.
 *
 * Frames go to the peer's MAC address, and only frames from it (addressed
 * to this netdev or broadcast) are taken: on a bridge or a switched segment,
 * another host neither receives the memory traffic (once the bridge has
 * learnt both ends) nor has its frames decoded; each frame refused counts
 * as rx_foreign. A link made with the broadcast opt-in, for a
 * point-to-point wire (a veth, a guest NIC on a socket network), sends to
 * the broadcast address and takes frames from anyone, as a PHY link does.
 * A host that forges its source address is beyond what this stops.
 *
 * Locking: a bind is made and dropped under the fabric's link mutex (and the
 * list of binds also has a spinlock, for lockdep's sake kept innermost); the
 * receive handler runs under RCU and only queues the skb on the port's node.
 * A netdev notifier drops the links of a netdev that goes away.
 */
#include <linux/etherdevice.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "edm/edm.h"
#include "edm/fabric.h"
#include "fab.h"

struct edm_fab_eth_bind {
	struct packet_type pt;
	struct net_device *dev;
	netdevice_tracker tracker;
	struct edm_fab_port *port;
	struct list_head list;		/* on edm_fab_eth_binds */
	u8 peer[ETH_ALEN];		/* the peer's address, or broadcast */
	bool broadcast;			/* the opt-in: to and from anyone */
	atomic64_t rx_foreign;		/* frames refused */
};

/*
 * Is @skb, a frame received on @b's netdev, one @b takes? Addressed to the
 * netdev or to everyone (a peer may have the broadcast opt-in) and, unless
 * @b has it too, from the peer.
 */
static bool edm_fab_eth_from_peer(const struct edm_fab_eth_bind *b, const struct sk_buff *skb)
{
	if (skb->pkt_type == PACKET_OTHERHOST)
		return false;
	return b->broadcast || ether_addr_equal(eth_hdr(skb)->h_source, b->peer);
}

static LIST_HEAD(edm_fab_eth_binds);	/* under edm_fab_eth_lock */
static DEFINE_SPINLOCK(edm_fab_eth_lock);

static int edm_fab_eth_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt,
			   struct net_device *orig_dev)
{
	struct edm_fab_eth_bind *b = container_of(pt, struct edm_fab_eth_bind, pt);

	if (skb->pkt_type == PACKET_LOOPBACK)
		goto drop;
	if (!edm_fab_eth_from_peer(b, skb)) {
		atomic64_inc(&b->rx_foreign);
		goto drop;
	}
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (skb_linearize(skb))
		goto drop;
	edm_fab_port_rx(b->port, skb);
	return NET_RX_SUCCESS;
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

struct edm_fab_eth_bind *edm_fab_eth_bind(struct edm_fab_port *p, struct net_device *dev,
					  const u8 *peer_mac)
{
	struct edm_fab_eth_bind *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	b->port = p;
	b->dev = dev;
	b->broadcast = !peer_mac;
	ether_addr_copy(b->peer, peer_mac ?: dev->broadcast);
	atomic64_set(&b->rx_foreign, 0);
	netdev_hold(dev, &b->tracker, GFP_KERNEL);
	b->pt.type = htons(EDM_FAB_ETHERTYPE);
	b->pt.dev = dev;
	b->pt.func = edm_fab_eth_rcv;
	spin_lock(&edm_fab_eth_lock);
	list_add(&b->list, &edm_fab_eth_binds);
	spin_unlock(&edm_fab_eth_lock);
	dev_add_pack(&b->pt);
	return b;
}

void edm_fab_eth_unbind(struct edm_fab_eth_bind *b)
{
	spin_lock(&edm_fab_eth_lock);
	list_del(&b->list);
	spin_unlock(&edm_fab_eth_lock);
	dev_remove_pack(&b->pt);	/* waits for edm_fab_eth_rcv() */
	netdev_put(b->dev, &b->tracker);
	kfree(b);
}

/* The netdev, the peer and the refused frames, over what @info has. */
void edm_fab_eth_info(const struct edm_fab_eth_bind *b, struct edm_fab_link_info *info)
{
	info->ifindex = b->dev->ifindex;
	info->broadcast = b->broadcast;
	if (!b->broadcast)
		ether_addr_copy(info->peer_mac, b->peer);
	info->stats.rx_foreign = atomic64_read(&b->rx_foreign);
}

/* Takes the burst; headroom for the Ethernet header was reserved. */
int edm_fab_eth_xmit(struct edm_fab_eth_bind *b, struct sk_buff *skb)
{
	struct net_device *dev = b->dev;

	if (!(dev->flags & IFF_UP) || skb->len > dev->mtu) {
		kfree_skb(skb);
		return -ENETDOWN;
	}
	skb->dev = dev;
	skb->protocol = htons(EDM_FAB_ETHERTYPE);
	skb_reset_network_header(skb);
	if (dev_hard_header(skb, dev, EDM_FAB_ETHERTYPE, b->peer, dev->dev_addr, skb->len) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	return dev_queue_xmit(skb) == NET_XMIT_SUCCESS ? 0 : -ENOBUFS;
}

static struct edm_fab_port *edm_fab_eth_port_of(struct net_device *dev)
{
	struct edm_fab_port *p = NULL;
	struct edm_fab_eth_bind *b;

	spin_lock(&edm_fab_eth_lock);
	list_for_each_entry(b, &edm_fab_eth_binds, list) {
		if (b->dev == dev) {
			p = b->port;
			break;
		}
	}
	spin_unlock(&edm_fab_eth_lock);
	return p;
}

static int edm_fab_eth_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct edm_fab_port *p;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	/* binds come and go under the link mutex: p stays valid while we hold it */
	mutex_lock(&edm_fab_link_mutex);
	while ((p = edm_fab_eth_port_of(dev)))
		edm_fab_link_lost(p);
	mutex_unlock(&edm_fab_link_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block edm_fab_eth_notifier = {
	.notifier_call = edm_fab_eth_event,
};

int edm_fab_eth_init(void)
{
	return register_netdevice_notifier(&edm_fab_eth_notifier);
}

void edm_fab_eth_exit(void)
{
	unregister_netdevice_notifier(&edm_fab_eth_notifier);
}
