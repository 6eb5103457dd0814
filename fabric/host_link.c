// SPDX-License-Identifier: GPL-2.0
/*
 * `ip link add NAME type fhost addr A [region SIZE [keyed]] [ports 2]
 * [timeout MS] [timeout-min US]`: the fabric host's rtnl_link_ops.
 * IFLA_INFO_DATA holds FABRIC_NEW's own attributes (EDM_A_FAB_*, one
 * attribute space; the name is ip's IFLA_IFNAME and the type is implied),
 * and a creation takes FABRIC_NEW's path (edm_dev_create() with the netdev
 * rtnl allocated), so both make the same host: an edm device in the
 * netns's registry with its /dev/edm<N> and its netdev. Without the ip
 * plug-in (tools/iplink) ip cannot pass ADDR, which a host needs: the
 * extack says so.
 *
 * `ip link del` and the death of the netns the netdev is in delete the host
 * (dellink), as FABRIC_DEL does; its links go with it, each announced. Every
 * host's netdev, made either way, carries these ops, so `ip -d link show`
 * prints its address, region and timeouts.
 *
 * Locking: every callback runs under RTNL; newlink and dellink take the
 * registry lock of the netns that holds the host inside it.
 */
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/name.h"
#include "edm/netlink.h"
#include "fab.h"

static int edm_fab_host_newlink(struct net *src_net, struct net_device *netdev,
				struct nlattr *tb[], struct nlattr *data[],
				struct netlink_ext_ack *extack)
{
	struct nlattr *none[EDM_A_FAB_MAX + 1] = {};
	struct edm_fab_node_cfg cfg = {};
	struct net *net = dev_net(netdev);
	struct edm_net *en = edm_net(net);
	struct nlattr **a = data ?: none;
	struct edm_dev *dev;
	int err;

	if (strchr(netdev->name, '%')) {
		err = dev_alloc_name(netdev, netdev->name);
		if (err < 0)
			return err;
	}
	if (!edm_name_valid(netdev->name, strlen(netdev->name), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG(extack,
			       "a host's name is [A-Za-z0-9_.-], starting with a letter or digit");
		return -EINVAL;
	}
	if (a[EDM_A_FAB_NAME] || a[EDM_A_FAB_TYPE] || a[EDM_A_FAB_ID]) {
		NL_SET_ERR_MSG(extack, "the name is ip's, the type fhost, the ID the kernel's");
		return -EINVAL;
	}
	err = edm_fab_cfg_parse(a, true, &cfg, extack);
	if (err)
		return err;
	cfg.netdev = netdev;

	mutex_lock(&en->lock);
	dev = edm_dev_create(en, netdev->name, EDM_DEV_TYPE_FHOST, &cfg, extack);
	if (!IS_ERR(dev))
		edm_nl_dev_notify(dev, EDM_CMD_FABRIC_NEW, edm_fab_nl_obj.fill);
	mutex_unlock(&en->lock);
	return PTR_ERR_OR_ZERO(dev);
}

static void edm_fab_host_dellink(struct net_device *netdev, struct list_head *head)
{
	struct edm_fab_node *n = ((struct edm_fab_ndev *)netdev_priv(netdev))->node;
	struct edm_dev *dev;
	struct edm_net *en;

	/* RTNL, held here, is held by every destroy: n->dev cannot go meanwhile */
	dev = READ_ONCE(n->dev);
	if (!dev)		/* already destroyed, its netdev queued */
		return;
	en = edm_net(dev->net);
	mutex_lock(&en->lock);
	edm_flink_notify_node(dev, EDM_CMD_FLINK_DEL);
	edm_nl_dev_destroy_notify(en, dev, head, &edm_fab_nl_obj, EDM_CMD_FABRIC_DEL);
	mutex_unlock(&en->lock);
}

static size_t edm_fab_host_get_size(const struct net_device *netdev)
{
	return 5 * nla_total_size(sizeof(u32)) +	/* PORTS, ADDR, TIMEOUT_*, MINOR */
	       nla_total_size_64bit(sizeof(u64)) +	/* REGION_SIZE */
	       nla_total_size(0);			/* REGION_KEYED */
}

static int edm_fab_host_fill_info(struct sk_buff *skb, const struct net_device *netdev)
{
	struct edm_fab_node *n = ((struct edm_fab_ndev *)netdev_priv(netdev))->node;
	struct edm_fab_node_info ni;

	edm_fab_node_info(n, &ni);
	return edm_fab_put_host(skb, &ni);
}

struct rtnl_link_ops edm_fab_host_link_ops = {
	.kind = "fhost",
	.priv_size = sizeof(struct edm_fab_ndev),
	.setup = edm_fab_ndev_setup,
	.maxtype = EDM_A_FAB_MAX,
	.policy = edm_fab_new_policy,
	.newlink = edm_fab_host_newlink,
	.dellink = edm_fab_host_dellink,
	.get_size = edm_fab_host_get_size,
	.fill_info = edm_fab_host_fill_info,
};

int edm_fab_host_link_init(void)
{
	return rtnl_link_register(&edm_fab_host_link_ops);
}

/* Deletes every host left (with its netdev) and waits until each netdev is freed. */
void edm_fab_host_link_exit(void)
{
	rtnl_link_unregister(&edm_fab_host_link_ops);
}
