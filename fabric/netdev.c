// SPDX-License-Identifier: GPL-2.0
/*
 * The netdev of a fabric host: ordinary Ethernet frames over the EDM PHY.
 * Its frames share the host's link with memory traffic block by block (the
 * TX mux in mux.c), cross the switch store-and-forward, and come up at the
 * other host as received frames. It carries the name of its fabric node.
 *
 * Its rtnl_link_ops (fabric/host_link.c) are set however the host was made,
 * so `ip -d link` shows the host and `ip link del` deletes it. The netdev
 * holds a reference on its node: `ip link del` and a netns's exit
 * unregister it in a batch after the node was destroyed, and its xmit may
 * run until then (it finds the node dead and drops).
 *
 * Locking: xmit queues the frame on the port's mux under the node lock and
 * kicks the node's poll; frames received by the poll wait on node->rxq and
 * go up the stack after the poll drops the lock, so the stack may send from
 * its receive path without meeting our lock.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "fab.h"

static netdev_tx_t edm_fab_ndev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct edm_fab_node *n = ((struct edm_fab_ndev *)netdev_priv(dev))->node;
	struct edm_fab_port *p;
	u32 len = skb->len;
	int err = -ENETDOWN;

	spin_lock(&n->lock);
	p = edm_host_port(to_host(n));
	if (!n->dead && edm_fab_port_up(p))
		err = edm_mux_put_frame(p, skb);
	else
		kfree_skb(skb);
	if (!err && skb_queue_len(&p->mux.frames) >= EDM_FRAMES_QLEN - 1)
		netif_stop_queue(dev);
	spin_unlock(&n->lock);
	if (err) {
		dev->stats.tx_dropped++;
		return NETDEV_TX_OK;
	}
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += len;
	napi_schedule(&n->napi);
	return NETDEV_TX_OK;
}

static const struct net_device_ops edm_fab_ndev_ops = {
	.ndo_start_xmit = edm_fab_ndev_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* The netdev's last reference is gone: so is its reference on the node. */
static void edm_fab_ndev_destructor(struct net_device *dev)
{
	edm_fab_node_put(((struct edm_fab_ndev *)netdev_priv(dev))->node);
}

void edm_fab_ndev_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &edm_fab_ndev_ops;
	dev->ethtool_ops = &edm_fab_ethtool_ops;
	dev->needs_free_netdev = false;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = EDM_FRAME_MAX - ETH_HLEN - VLAN_HLEN;
	/* the switch learns a source address from each frame: it may change */
	dev->priv_flags |= IFF_NO_QUEUE | IFF_LIVE_ADDR_CHANGE;
	eth_hw_addr_random(dev);
}

/*
 * Registers the host's netdev: @dev when `ip link add` allocated it, else
 * one of our own. On failure the caller (or rtnl, for @dev) frees it.
 */
int edm_fab_netdev_create(struct edm_fab_node *n, struct net_device *dev)
{
	bool ours = !dev;
	int err;

	if (ours) {
		dev = alloc_netdev(sizeof(struct edm_fab_ndev), n->name, NET_NAME_USER,
				   edm_fab_ndev_setup);
		if (!dev)
			return -ENOMEM;
		dev_net_set(dev, n->net);
	}
	((struct edm_fab_ndev *)netdev_priv(dev))->node = n;
	dev->rtnl_link_ops = &edm_fab_host_link_ops;
	ASSERT_RTNL();
	err = register_netdevice(dev);
	if (err) {
		if (ours)
			free_netdev(dev);
		return err;
	}
	netif_carrier_off(dev);
	/* from here on, unregistering frees it, and it holds the node */
	dev->priv_destructor = edm_fab_ndev_destructor;
	dev->needs_free_netdev = true;
	edm_fab_node_get(n);
	n->ndev = dev;
	return 0;
}

/*
 * After the node's poll is stopped: nothing delivers to the netdev then.
 * Under RTNL; unregistered at once, or on @kill (the batch of `ip link del`
 * and of a netns's exit), and freed once its last reference is gone.
 */
void edm_fab_netdev_destroy(struct edm_fab_node *n, struct list_head *kill)
{
	if (!n->ndev)
		return;
	ASSERT_RTNL();
	__skb_queue_purge(&n->rxq);	/* a lockless queue: the node lock guards it */
	unregister_netdevice_queue(n->ndev, kill);
	n->ndev = NULL;
}

/* Under the node lock: a frame the decoder completed. */
void edm_fab_netdev_rx(struct edm_fab_node *n, const u8 *frame, u32 len)
{
	struct net_device *dev = n->ndev;
	struct sk_buff *skb;

	lockdep_assert_held(&n->lock);
	if (!dev || len < ETH_HLEN)
		return;
	skb = netdev_alloc_skb_ip_align(dev, len);
	if (!skb) {
		dev->stats.rx_dropped++;
		return;
	}
	skb_put_data(skb, frame, len);
	skb->protocol = eth_type_trans(skb, dev);
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	__skb_queue_tail(&n->rxq, skb);
}

/* From the poll, without the node lock. */
void edm_fab_netdev_deliver(struct edm_fab_node *n, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		netif_receive_skb(skb);
	if (n->ndev && netif_queue_stopped(n->ndev) &&
	    skb_queue_len_lockless(&n->port[READ_ONCE(to_host(n)->active)].mux.frames) <
	    EDM_FRAMES_QLEN / 2)
		netif_wake_queue(n->ndev);
}

void edm_fab_netdev_carrier(struct edm_fab_node *n, bool up)
{
	if (!n->ndev)
		return;
	if (up)
		netif_carrier_on(n->ndev);
	else
		netif_carrier_off(n->ndev);
}
