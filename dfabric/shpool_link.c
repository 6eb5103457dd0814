// SPDX-License-Identifier: GPL-2.0
/*
 * `ip link add NAME type shpool dev PCI [name MEMBERSHIP] [hostname H]
 * [nhosts N] [buf-shift S] [ring R] [lease-ms MS]`: the shared pool
 * netdev's rtnl_link_ops. IFLA_INFO_DATA holds SHPOOL_JOIN's own
 * attributes (EDM_A_SHPOOL_*, one attribute space; the netdev's name is
 * ip's, the membership's is NAME or else the netdev's), and a creation
 * takes SHPOOL_JOIN's path (edm_dev_create() with the netdev rtnl
 * allocated), so both make the same membership. Without the ip plug-in
 * (tools/iplink) ip cannot pass the device, which a join needs: the extack
 * says so.
 *
 * `ip link del` and the death of the netns the netdev is in leave the pool
 * (dellink), as SHPOOL_LEAVE does, but they cannot be refused: Cowbird
 * instances of this kernel that use the pool lose their mappings, as when
 * the ivshmem device is unbound under them. Every shared pool's netdev,
 * made either way, carries these ops, so `ip -d link show` prints its
 * membership.
 *
 * Locking: every callback runs under RTNL; newlink and dellink take the
 * registry lock of the netns that holds the membership inside it.
 * fill_info takes nothing (it is called while a detach holds
 * edm_shmem_lock): it reads what is fixed at the join.
 */
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/name.h"
#include "edm/netlink.h"
#include "shpool.h"

static int edm_shpool_newlink(struct net *src_net, struct net_device *netdev,
			      struct nlattr *tb[], struct nlattr *data[],
			      struct netlink_ext_ack *extack)
{
	struct nlattr *none[EDM_A_SHPOOL_MAX + 1] = {};
	struct net *net = dev_net(netdev);
	struct edm_net *en = edm_net(net);
	struct nlattr **a = data ?: none;
	struct edm_shpool_cfg cfg = {};
	struct edm_dev *dev;
	const char *name;
	int err;

	if (strchr(netdev->name, '%')) {
		err = dev_alloc_name(netdev, netdev->name);
		if (err < 0)
			return err;
	}
	if (a[EDM_A_SHPOOL_IFNAME] || a[EDM_A_SHPOOL_ID]) {
		NL_SET_ERR_MSG(extack, "the netdev's name is ip's, the ID the kernel's");
		return -EINVAL;
	}
	name = a[EDM_A_SHPOOL_NAME] ? nla_data(a[EDM_A_SHPOOL_NAME]) : netdev->name;
	if (!edm_name_valid(name, strlen(name), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG(extack,
			       "a membership's name is [A-Za-z0-9_.-], starting with a letter or digit");
		return -EINVAL;
	}
	err = edm_shpool_cfg_parse(a, &cfg, extack);
	if (err)
		return err;
	cfg.netdev = netdev;

	mutex_lock(&en->lock);
	dev = edm_dev_create(en, name, EDM_DEV_TYPE_SHPOOL, &cfg, extack);
	if (!IS_ERR(dev))
		edm_nl_dev_notify(dev, EDM_CMD_SHPOOL_JOIN, edm_shpool_nl_obj.fill);
	mutex_unlock(&en->lock);
	return PTR_ERR_OR_ZERO(dev);
}

static void edm_shpool_dellink(struct net_device *netdev, struct list_head *head)
{
	struct edm_shpool *sp = edm_shpool_nd(netdev);
	struct edm_dev *dev;
	struct edm_net *en;

	/* RTNL, held here, is held by every destroy: sp->edev cannot go meanwhile */
	dev = READ_ONCE(sp->edev);
	if (!dev || !sp->netdev)	/* left already, or detached by an unbind */
		return;
	en = edm_net(dev->net);
	mutex_lock(&en->lock);
	edm_nl_dev_destroy_notify(en, dev, head, &edm_shpool_nl_obj, EDM_CMD_SHPOOL_LEAVE);
	mutex_unlock(&en->lock);
}

static size_t edm_shpool_get_size(const struct net_device *netdev)
{
	return nla_total_size(EDM_NAME_LEN) +		/* NAME */
	       nla_total_size(EDM_SHPOOL_DEV_LEN) +	/* DEVICE */
	       nla_total_size(EDM_SHP_NAME_LEN) +	/* HOSTNAME */
	       6 * nla_total_size(sizeof(u32));		/* NHOSTS .. LEASE_MS, SLOT, EPOCH */
}

static int edm_shpool_fill_info(struct sk_buff *skb, const struct net_device *netdev)
{
	const struct edm_shpool *sp = edm_shpool_nd(netdev);
	const struct edm_shp_super *g = &sp->v.geo;
	const struct edm_dev *dev = READ_ONCE(sp->edev);

	if (!dev || !sp->netdev)	/* left: its membership went with it */
		return 0;
	if (nla_put_string(skb, EDM_A_SHPOOL_NAME, dev->name) ||
	    nla_put_string(skb, EDM_A_SHPOOL_DEVICE, sp->device) ||
	    nla_put_string(skb, EDM_A_SHPOOL_HOSTNAME, sp->hostname) ||
	    nla_put_u32(skb, EDM_A_SHPOOL_NHOSTS, g->nhosts) ||
	    nla_put_u32(skb, EDM_A_SHPOOL_BUF_SHIFT, g->buf_shift) ||
	    nla_put_u32(skb, EDM_A_SHPOOL_RING, g->ring_size) ||
	    nla_put_u32(skb, EDM_A_SHPOOL_LEASE_MS, g->lease_ms) ||
	    nla_put_u32(skb, EDM_A_SHPOOL_SLOT, sp->v.slot) ||
	    nla_put_u32(skb, EDM_A_SHPOOL_EPOCH, sp->v.epoch))
		return -EMSGSIZE;
	return 0;
}

struct rtnl_link_ops edm_shpool_link_ops = {
	.kind = "shpool",
	.priv_size = sizeof(struct edm_shpool *),
	.setup = edm_shpool_setup,
	.maxtype = EDM_A_SHPOOL_MAX,
	.policy = edm_shpool_join_policy,
	.newlink = edm_shpool_newlink,
	.dellink = edm_shpool_dellink,
	.get_size = edm_shpool_get_size,
	.fill_info = edm_shpool_fill_info,
};

int edm_shpool_link_init(void)
{
	return rtnl_link_register(&edm_shpool_link_ops);
}

/* Leaves with every membership left (its netdev) and waits until each netdev is freed. */
void edm_shpool_link_exit(void)
{
	rtnl_link_unregister(&edm_shpool_link_ops);
}
