// SPDX-License-Identifier: GPL-2.0
/*
 * `ip link add NAME type ndimm [peer PEER] [size SIZE] ...`: the ndimm
 * kind's rtnl_link_ops. IFLA_INFO_DATA holds NETDIMM_NEW's own attributes
 * (EDM_A_NETDIMM_*, one attribute space; the name is ip's IFLA_IFNAME), and
 * a creation takes the same path as NETDIMM_NEW (edm_netdimm_new()), so
 * both make the same object: an edm device in the netns's registry with its
 * netdev. Without data, as with `ip link add nd0 type ndimm`, the device
 * gets a 32 MiB zone and a peer named ndimm<N>, as a veth gets its peer.
 *
 * `ip link del` and the death of the netns the netdev is in delete the
 * device and its peer (dellink); so does NETDIMM_DEL. Every ndimm, made
 * either way, carries these ops, so `ip -d link show` prints its
 * parameters.
 *
 * Locking: every callback runs under RTNL; newlink and dellink take the
 * registry lock of the netns that owns the edm device inside it.
 */
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/name.h"
#include "edm/netlink.h"
#include "netdimm.h"

#define EDM_NETDIMM_LINK_SIZE	SZ_32M	/* the zone when `ip link add` gives none */

/* A free name ndimm<N> for a peer, in the netns and in its registry. */
static int edm_netdimm_peer_name(struct net *net, struct edm_net *en, char *buf)
{
	int i;

	for (i = 0; i < EDM_DEVS_PER_NET_MAX * 2; i++) {
		snprintf(buf, IFNAMSIZ, "ndimm%d", i);
		if (!__dev_get_by_name(net, buf) && !edm_dev_by_name(en, buf))
			return 0;
	}
	return -ENFILE;
}

static int edm_netdimm_newlink(struct net *src_net, struct net_device *netdev,
			       struct nlattr *tb[], struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	struct nlattr *none[EDM_A_NETDIMM_MAX + 1] = {};
	struct edm_netdimm_cfg cfg = { .size = EDM_NETDIMM_LINK_SIZE };
	struct net *net = dev_net(netdev);
	struct edm_net *en = edm_net(net);
	struct nlattr **a = data ?: none;
	char peer[IFNAMSIZ];
	struct edm_dev *dev;
	int err;

	if (strchr(netdev->name, '%')) {
		err = dev_alloc_name(netdev, netdev->name);
		if (err < 0)
			return err;
	}
	if (!edm_name_valid(netdev->name, strlen(netdev->name), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG(extack,
			       "an ndimm's name is [A-Za-z0-9_.-], starting with a letter or digit");
		return -EINVAL;
	}
	err = edm_netdimm_cfg_parse(a, netdev->name, &cfg, extack) ?:
	      edm_netdimm_cfg_lower(a, net, &cfg, extack);
	if (err)
		return err;

	mutex_lock(&en->lock);
	if (!cfg.peer_name && !cfg.lower) {
		err = edm_netdimm_peer_name(net, en, peer);
		if (err) {
			NL_SET_ERR_MSG(extack, "no free name for the peer: give one");
			goto out;
		}
		cfg.peer_name = peer;
	}
	dev = edm_netdimm_new(en, netdev->name, &cfg, netdev, extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out;
	}
	edm_netdimm_notify(dev, EDM_CMD_NETDIMM_NEW);
	if (dev->peer)
		edm_netdimm_notify(dev->peer, EDM_CMD_NETDIMM_NEW);
	err = 0;
out:
	mutex_unlock(&en->lock);
	dev_put(cfg.lower);
	return err;
}

static void edm_netdimm_dellink(struct net_device *netdev, struct list_head *head)
{
	struct edm_netdimm *nd = netdev_priv(netdev);
	struct edm_dev *dev = nd->edev, *peer;
	struct sk_buff *event[2] = {};
	struct edm_net *en;
	struct net *net;

	if (!dev)	/* went with its peer, already queued on @head */
		return;
	net = dev->net;
	en = edm_net(net);
	mutex_lock(&en->lock);
	peer = dev->peer;
	event[0] = edm_netdimm_event_msg(dev, EDM_CMD_NETDIMM_DEL);
	if (peer)
		event[1] = edm_netdimm_event_msg(peer, EDM_CMD_NETDIMM_DEL);
	edm_dev_destroy_queued(en, dev, head);
	mutex_unlock(&en->lock);
	if (event[0])
		edm_nl_notify(net, event[0]);
	if (event[1])
		edm_nl_notify(net, event[1]);
}

static size_t edm_netdimm_get_size(const struct net_device *netdev)
{
	return nla_total_size(sizeof(u32)) +		/* ID */
	       nla_total_size(IFNAMSIZ) +		/* PEER */
	       nla_total_size(sizeof(u32)) +		/* LOWER */
	       nla_total_size_64bit(sizeof(u64)) +	/* SIZE */
	       5 * nla_total_size(sizeof(u32)) +	/* POLL_US .. NUMA_NODE */
	       nla_total_size(0) + 5 * nla_total_size(sizeof(u32));	/* GEOM */
}

static int edm_netdimm_fill_info(struct sk_buff *skb, const struct net_device *netdev)
{
	const struct edm_netdimm *nd = netdev_priv(netdev);

	if (!nd->edev)	/* being unregistered: its parameters went with it */
		return 0;
	return edm_netdimm_put_cfg(skb, nd->edev, nd);
}

struct rtnl_link_ops edm_netdimm_link_ops = {
	.kind = "ndimm",
	.priv_size = sizeof(struct edm_netdimm),
	.setup = edm_netdimm_setup,
	.get_num_tx_queues = edm_netdimm_max_queues,
	.get_num_rx_queues = edm_netdimm_max_queues,
	.maxtype = EDM_A_NETDIMM_MAX,
	.policy = edm_netdimm_link_policy,
	.newlink = edm_netdimm_newlink,
	.dellink = edm_netdimm_dellink,
	.get_size = edm_netdimm_get_size,
	.fill_info = edm_netdimm_fill_info,
};

int edm_netdimm_link_init(void)
{
	return rtnl_link_register(&edm_netdimm_link_ops);
}

/* Deletes every ndimm left and waits until each is freed. */
void edm_netdimm_link_exit(void)
{
	rtnl_link_unregister(&edm_netdimm_link_ops);
}
