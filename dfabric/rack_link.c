// SPDX-License-Identifier: GPL-2.0
/*
 * `ip link add NAME type rackcn [rack RACK] [dcache-sets N ...]`: the rack
 * compute node's rtnl_link_ops. IFLA_INFO_DATA holds CN_NEW's own
 * attributes (EDM_A_CN_*, one attribute space; the name is ip's
 * IFLA_IFNAME), and a creation takes CN_NEW's path (edm_rack_cn_create()),
 * so both make the same CN. The rack is looked up in the namespace ip runs
 * in; without RACK, the namespace must have exactly one rack.
 *
 * `ip link del` and the death of the namespace the netdev is in delete the
 * CN (dellink); so does CN_DEL, and the rack's end. Every CN, made either
 * way, carries these ops, so `ip -d link show` prints its rack, node id
 * and DRAM cache.
 *
 * Locking: every callback runs under RTNL; newlink and dellink take the
 * registry lock of the rack's namespace inside it.
 */
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/name.h"
#include "edm/netlink.h"
#include "rack.h"

/* The one rack of @en, or an error saying there is none or more than one. */
static struct edm_rack *edm_cn_link_only_rack(struct edm_net *en,
					      struct netlink_ext_ack *extack)
{
	struct edm_dev *dev, *found = NULL;
	unsigned long id;

	xa_for_each(&en->devs, id, dev) {
		if (dev->type != EDM_DEV_TYPE_RACK)
			continue;
		if (found) {
			NL_SET_ERR_MSG(extack,
				       "this namespace has several racks: say which (rack NAME)");
			return ERR_PTR(-EINVAL);
		}
		found = dev;
	}
	if (!found) {
		NL_SET_ERR_MSG(extack, "this namespace has no rack (edmctl rack create)");
		return ERR_PTR(-ENODEV);
	}
	return edm_rack_of(found);
}

static int edm_cn_newlink(struct net *src_net, struct net_device *netdev,
			  struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	struct nlattr *none[EDM_A_CN_MAX + 1] = {};
	struct edm_net *en = edm_net(src_net);
	struct nlattr **a = data ?: none;
	struct edm_rack_dc_cfg dc;
	struct edm_rack_cn *cn;
	struct edm_rack *rack;
	int err;

	if (strchr(netdev->name, '%')) {
		err = dev_alloc_name(netdev, netdev->name);
		if (err < 0)
			return err;
	}
	if (!edm_name_valid(netdev->name, strlen(netdev->name), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG(extack,
			       "a compute node's name is [A-Za-z0-9_.-], starting with a letter or digit");
		return -EINVAL;
	}
	err = edm_cn_dc_parse(a, &dc, extack);
	if (err)
		return err;

	mutex_lock(&en->lock);
	rack = a[EDM_A_CN_RACK] ? edm_cn_rack_named(en, a[EDM_A_CN_RACK], extack) :
				  edm_cn_link_only_rack(en, extack);
	if (IS_ERR(rack)) {
		err = PTR_ERR(rack);
		goto out;
	}
	cn = edm_rack_cn_create(rack, netdev->name, &dc, netdev, extack);
	if (IS_ERR(cn)) {
		err = PTR_ERR(cn);
		goto out;
	}
	en->gen++;	/* dumps see the change */
	edm_cn_notify(cn, EDM_CMD_CN_NEW);
	err = 0;
out:
	mutex_unlock(&en->lock);
	return err;
}

static void edm_cn_dellink(struct net_device *netdev, struct list_head *head)
{
	struct edm_rack_cn *cn = netdev_priv(netdev);
	struct edm_rack *rack = cn->rack;
	struct net *net = rack->edev->net;
	struct edm_net *en = edm_net(net);
	struct sk_buff *event;

	mutex_lock(&en->lock);
	if (rcu_access_pointer(rack->cn[cn->pn.id]) != cn) {	/* already going */
		mutex_unlock(&en->lock);
		return;
	}
	event = edm_cn_event_msg(cn, EDM_CMD_CN_DEL);
	edm_rack_cn_destroy_queued(cn, head);
	en->gen++;
	mutex_unlock(&en->lock);
	if (event)
		edm_nl_notify(net, event);
}

static size_t edm_cn_get_size(const struct net_device *netdev)
{
	return nla_total_size(EDM_NAME_LEN) +		/* RACK */
	       6 * nla_total_size(sizeof(u32));		/* NODE, DCACHE_* */
}

static int edm_cn_fill_info(struct sk_buff *skb, const struct net_device *netdev)
{
	return edm_cn_put_cfg(skb, netdev_priv(netdev));
}

struct rtnl_link_ops edm_rack_cn_link_ops = {
	.kind = "rackcn",
	.priv_size = sizeof(struct edm_rack_cn),
	.setup = edm_rack_cn_setup,
	.maxtype = EDM_A_CN_MAX,
	.policy = edm_cn_link_policy,
	.newlink = edm_cn_newlink,
	.dellink = edm_cn_dellink,
	.get_size = edm_cn_get_size,
	.fill_info = edm_cn_fill_info,
};

int edm_rack_cn_link_init(void)
{
	return rtnl_link_register(&edm_rack_cn_link_ops);
}

/* Deletes every CN left and waits until each is freed. */
void edm_rack_cn_link_exit(void)
{
	rtnl_link_unregister(&edm_rack_cn_link_ops);
}
