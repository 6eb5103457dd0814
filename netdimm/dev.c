// SPDX-License-Identifier: GPL-2.0
/*
 * The ndimm device type: creation and destruction of a NetDIMM (its zone,
 * rings, netdev, polling agent and /dev/ndimm<i>), pairing two of them with
 * an emulated wire, and the netdev's open, stop and statistics.
 *
 * Creation and destruction run under RTNL and then the registry lock of
 * the netns that owns the edm device (NETDIMM_NEW/DEL, `ip link add/del`
 * in netdimm/link.c, a netns's exit). The peer pointers change under RTNL
 * and are read under RCU by the data path; teardown unpairs first and
 * waits a grace period, so no packet is in flight into a ring that is being
 * freed. What the netdev's data path uses (rings, zone, /dev/ndimm<i>) is
 * freed by its destructor, once the netdev is unregistered and unreferenced.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "netdimm.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* The counters of queue pairs [@from, @to), added to @sum. */
void edm_netdimm_queue_stats(struct edm_netdimm *nd, unsigned int from, unsigned int to,
			     struct edm_netdimm_stats *sum)
{
	for (; from < to; from++)
		edm_netdimm_stats_sum(nd->q[from].ctrs, sum);
}

void edm_netdimm_fill_stats(struct edm_netdimm *nd, struct edm_netdimm_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	edm_netdimm_queue_stats(nd, 0, nd->nq_max, sum);
	edm_netdimm_stats_sum(nd->zone->ctrs, sum);
	/* the clone engine counts picoseconds */
	sum->v[EDM_A_NDSTAT_CLONE_MODELED_NS] =
		div_u64(sum->v[EDM_A_NDSTAT_CLONE_MODELED_NS], 1000);	/* ps to ns */
}

static void edm_netdimm_carrier(struct edm_netdimm *nd)
{
	struct edm_netdimm *peer = rtnl_dereference(nd->peer);

	if (peer && netif_running(nd->netdev) && netif_running(peer->netdev)) {
		netif_carrier_on(nd->netdev);
		netif_carrier_on(peer->netdev);
	} else if (nd->lower && netif_running(nd->netdev)) {
		netif_carrier_on(nd->netdev);
	}
}

static int edm_netdimm_open(struct net_device *dev)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	edm_netdimm_queues_open(nd);
	netif_tx_start_all_queues(dev);
	edm_netdimm_carrier(nd);
	return 0;
}

static int edm_netdimm_stop(struct net_device *dev)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm *peer = rtnl_dereference(nd->peer);

	netif_carrier_off(dev);
	if (peer)
		netif_carrier_off(peer->netdev);
	netif_tx_disable(dev);
	edm_netdimm_queues_close(nd);
	return 0;
}

static void edm_netdimm_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm_stats sum = {};

	edm_netdimm_queue_stats(nd, 0, nd->nq_max, &sum);
	s->tx_packets = sum.v[EDM_A_NDSTAT_TX_PACKETS];
	s->tx_bytes = sum.v[EDM_A_NDSTAT_TX_BYTES];
	s->tx_dropped = sum.v[EDM_A_NDSTAT_TX_DROPS];
	s->rx_packets = sum.v[EDM_A_NDSTAT_RX_PACKETS];
	s->rx_bytes = sum.v[EDM_A_NDSTAT_RX_BYTES];
	s->rx_dropped = sum.v[EDM_A_NDSTAT_RX_DROPS];
}

static const struct net_device_ops edm_netdimm_netdev_ops = {
	.ndo_open = edm_netdimm_open,
	.ndo_stop = edm_netdimm_stop,
	.ndo_start_xmit = edm_netdimm_xmit,
	.ndo_features_check = edm_netdimm_features_check,
	.ndo_get_stats64 = edm_netdimm_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

#define EDM_NETDIMM_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM | NETIF_F_HIGHDMA | \
			    NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN)

void edm_netdimm_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &edm_netdimm_netdev_ops;
	dev->ethtool_ops = &edm_netdimm_ethtool_ops;
	edm_netdimm_qstats_init(dev);
	dev->features |= EDM_NETDIMM_FEATURES;
	dev->hw_features |= EDM_NETDIMM_FEATURES;
	dev->vlan_features |= EDM_NETDIMM_FEATURES;
	dev->max_mtu = EDM_NETDIMM_MTU_MAX;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;	/* nothing keys on it: as veth */
	eth_hw_addr_random(dev);
}

/* The queues go before the zone their rings are in. */
static void edm_netdimm_free_parts(struct edm_netdimm *nd)
{
	edm_netdimm_queues_fini(nd);
	if (!IS_ERR_OR_NULL(nd->zone))
		edm_netdimm_zone_destroy(nd->zone);
}

static int edm_netdimm_init_parts(struct edm_netdimm *nd, const struct edm_netdimm_cfg *cfg,
				  struct netlink_ext_ack *extack)
{
	nd->zone = edm_netdimm_zone_create(cfg->size, cfg->nid, &cfg->geom, extack);
	if (IS_ERR(nd->zone))
		return PTR_ERR(nd->zone);
	return edm_netdimm_queues_init(nd, extack);
}

/* The netdev's destructor: the parts its data path used. No RTNL. */
static void edm_netdimm_free(struct net_device *netdev)
{
	struct edm_netdimm *nd = netdev_priv(netdev);

	edm_netdimm_cdev_destroy(nd);
	edm_netdimm_socks_fini(nd);
	edm_netdimm_free_parts(nd);
	netdev_dbg(netdev, "destroyed\n");
}

/*
 * @cfg->netdev is the netdev `ip link add` allocated (with our setup and
 * its name), or NULL to allocate one here; on failure, `ip link add` frees
 * its own.
 */
static int edm_netdimm_create(struct edm_dev *edev, const void *arg, struct netlink_ext_ack *extack)
{
	const struct edm_netdimm_cfg *cfg = arg;
	struct net_device *netdev;
	struct edm_netdimm *nd;
	int err;

	if (!cfg) {
		NL_SET_ERR_MSG(extack, "create NetDIMMs with NETDIMM_NEW (edmctl netdimm add)");
		return -EOPNOTSUPP;
	}
	ASSERT_RTNL();
	netdev = cfg->netdev;
	if (!netdev) {
		netdev = alloc_netdev_mq(sizeof(*nd), edev->name, NET_NAME_USER, edm_netdimm_setup,
					 edm_netdimm_max_queues());
		if (!netdev)
			return -ENOMEM;
		dev_net_set(netdev, edev->net);
	}
	netdev->rtnl_link_ops = &edm_netdimm_link_ops;
	nd = netdev_priv(netdev);
	nd->edev = edev;
	nd->netdev = netdev;
	nd->poll_us = cfg->poll_us;
	nd->wire_mbps = cfg->wire_mbps;
	nd->wire_delay_ns = cfg->wire_delay_ns;
	nd->rx_mode = cfg->rx_mode;
	INIT_LIST_HEAD(&nd->lower_node);

	err = edm_netdimm_init_parts(nd, cfg, extack);
	if (err)
		goto err_parts;
	err = edm_netdimm_socks_init(nd);
	if (err)
		goto err_parts;
	err = edm_netdimm_cdev_create(nd);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot register /dev/ndimm<i>");
		goto err_socks;
	}
	err = register_netdevice(netdev);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot register the netdev (name taken?)");
		goto err_cdev;
	}
	netif_carrier_off(netdev);
	/* from here on, unregistering frees everything */
	netdev->priv_destructor = edm_netdimm_free;
	netdev->needs_free_netdev = true;
	if (cfg->lower) {
		err = edm_netdimm_lower_attach(nd, cfg->lower);
		if (err) {
			NL_SET_ERR_MSG(extack,
				       "lower device must be Ethernet with room for our header");
			nd->edev = NULL;	/* not made: edm_dev_create() frees it */
			unregister_netdevice(netdev);
			return err;
		}
	}
	edev->type_priv = nd;
	netdev_dbg(netdev, "created on zone %s\n", nd->zone->name);
	return 0;

err_cdev:
	edm_netdimm_cdev_destroy(nd);
err_socks:
	edm_netdimm_socks_fini(nd);
err_parts:
	edm_netdimm_free_parts(nd);
	if (!cfg->netdev)
		free_netdev(netdev);
	return err;
}

/* Join two ndimms with a wire: each one's xmit posts on the other's RX ring. */
void edm_netdimm_pair(struct edm_dev *a, struct edm_dev *b)
{
	struct edm_netdimm *na = edm_netdimm_of(a), *nb = edm_netdimm_of(b);

	ASSERT_RTNL();
	rcu_assign_pointer(na->peer, nb);
	rcu_assign_pointer(nb->peer, na);
	edm_netdimm_carrier(na);
	a->peer = b;
	b->peer = a;
}

/* Teardown, under RTNL, in this order: unpair, so the peer stops posting
 * into our rings, and wait for its xmits in flight; unbind the lower
 * device; unregister the netdev, at once or on edev->kill (`ip link del`
 * and a netns's exit unregister in batches). Its stop takes it down; its
 * destructor frees the misc device (whose open files keep only a stub),
 * the rings, the zone and the memory when its last reference is gone.
 */
static void edm_netdimm_destroy(struct edm_dev *edev)
{
	struct edm_netdimm *nd = edm_netdimm_of(edev);
	struct edm_netdimm *peer;

	ASSERT_RTNL();
	peer = rtnl_dereference(nd->peer);
	if (peer) {
		RCU_INIT_POINTER(peer->peer, NULL);
		RCU_INIT_POINTER(nd->peer, NULL);
		netif_carrier_off(peer->netdev);
	}
	synchronize_net();
	edm_netdimm_lower_detach(nd);
	nd->edev = NULL;	/* gone with this call; dellink checks it */
	unregister_netdevice_queue(nd->netdev, edev->kill);
}

const struct edm_dev_type_ops edm_netdimm_dev_type = {
	.name = "netdimm",
	.create = edm_netdimm_create,
	.destroy = edm_netdimm_destroy,
};
