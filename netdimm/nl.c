// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on NetDIMMs: NETDIMM_NEW (a device, or a pair joined by
 * an emulated wire), NETDIMM_GET (do and dump, with zone and counters) and
 * NETDIMM_DEL. Each runs under its netns's registry lock, taken by the
 * family's pre_doit (EDM_NL_LOCK); a creation whose reply cannot be built is
 * undone.
 */
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/name.h"
#include "edm/netlink.h"
#include "netdimm.h"

/* Powers of two, checked when the geometry is built. */
static const struct nla_policy edm_geom_policy[EDM_A_GEOM_MAX + 1] = {
	[EDM_A_GEOM_ROW_BYTES] = NLA_POLICY_RANGE(NLA_U32, 256, 16384),
	[EDM_A_GEOM_DEVICES] = NLA_POLICY_RANGE(NLA_U32, 1, 64),
	[EDM_A_GEOM_BANKS] = NLA_POLICY_RANGE(NLA_U32, 1, 256),
	[EDM_A_GEOM_SUBARRAYS] = NLA_POLICY_RANGE(NLA_U32, 1, 16384),
	[EDM_A_GEOM_ROWS] = NLA_POLICY_RANGE(NLA_U32, 1, 16384),
};

/* Bounds past what an s16 policy bound holds (not const: the 6.1 API). */
static struct netlink_range_validation edm_netdimm_size_range = {
	.min = EDM_NETDIMM_SIZE_MIN,
	.max = EDM_NETDIMM_SIZE_MAX,
};

static struct netlink_range_validation edm_netdimm_poll_range = {
	.max = EDM_NETDIMM_POLL_US_MAX,
};

static struct netlink_range_validation edm_netdimm_mbps_range = {
	.max = EDM_NETDIMM_WIRE_MBPS_MAX,
};

static struct netlink_range_validation edm_netdimm_delay_range = {
	.max = EDM_NETDIMM_WIRE_DELAY_MAX,
};

/* What a new device takes, from NETDIMM_NEW or from `ip link add`. */
#define EDM_NETDIMM_CFG_POLICIES \
	[EDM_A_NETDIMM_ID] = { .type = NLA_REJECT, \
			       .reject_message = "device IDs are assigned by the kernel" }, \
	[EDM_A_NETDIMM_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U64, &edm_netdimm_size_range), \
	[EDM_A_NETDIMM_PEER] = EDM_NL_NAME_POLICY, \
	[EDM_A_NETDIMM_LOWER] = NLA_POLICY_MIN(NLA_U32, 1), \
	[EDM_A_NETDIMM_POLL_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_netdimm_poll_range), \
	[EDM_A_NETDIMM_RX_MODE] = NLA_POLICY_RANGE(NLA_U32, EDM_NETDIMM_RX_ZEROCOPY, \
						   EDM_NETDIMM_RX_MAX), \
	[EDM_A_NETDIMM_WIRE_MBPS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_netdimm_mbps_range), \
	[EDM_A_NETDIMM_WIRE_DELAY_NS] = NLA_POLICY_FULL_RANGE(NLA_U32, \
							      &edm_netdimm_delay_range), \
	[EDM_A_NETDIMM_GEOM] = NLA_POLICY_NESTED(edm_geom_policy), \
	EDM_REPLY_ONLY(EDM_A_NETDIMM_IFINDEX), \
	EDM_REPLY_ONLY(EDM_A_NETDIMM_ZONE), \
	EDM_REPLY_ONLY(EDM_A_NETDIMM_STATS), \
	[EDM_A_NETDIMM_NUMA_NODE] = NLA_POLICY_MAX(NLA_U32, EDM_NETDIMM_NODE_MAX)

static const struct nla_policy edm_netdimm_new_policy[EDM_A_NETDIMM_MAX + 1] = {
	EDM_NETDIMM_CFG_POLICIES,
	[EDM_A_NETDIMM_NAME] = EDM_NL_NAME_POLICY,
};

/* `ip link add ... type ndimm`'s IFLA_INFO_DATA: NETDIMM_NEW's, less the name. */
const struct nla_policy edm_netdimm_link_policy[EDM_A_NETDIMM_MAX + 1] = {
	EDM_NETDIMM_CFG_POLICIES,
	[EDM_A_NETDIMM_NAME] = { .type = NLA_REJECT,
				 .reject_message = "the device's name is ip link's own" },
};

/* NETDIMM_GET and NETDIMM_DEL select a device by ID or by name. */
static const struct nla_policy edm_netdimm_sel_policy[EDM_A_NETDIMM_MAX + 1] = {
	[EDM_A_NETDIMM_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_NETDIMM_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_NETDIMM_SIZE),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_PEER),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_LOWER),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_POLL_US),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_RX_MODE),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_WIRE_MBPS),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_WIRE_DELAY_NS),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_GEOM),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_IFINDEX),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_ZONE),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_STATS),
	EDM_REPLY_ONLY(EDM_A_NETDIMM_NUMA_NODE),
};

static int edm_netdimm_put_geom(struct sk_buff *msg, int attr, const struct edm_netdimm_geom *g)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	if (!nest ||
	    nla_put_u32(msg, EDM_A_GEOM_ROW_BYTES, g->row_bytes) ||
	    nla_put_u32(msg, EDM_A_GEOM_DEVICES, g->devices) ||
	    nla_put_u32(msg, EDM_A_GEOM_BANKS, g->banks) ||
	    nla_put_u32(msg, EDM_A_GEOM_SUBARRAYS, g->subarrays) ||
	    nla_put_u32(msg, EDM_A_GEOM_ROWS, g->rows))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_netdimm_put_zone(struct sk_buff *msg, struct edm_netdimm_zone *z)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_NETDIMM_ZONE);
	u64 lent, cached, avail;

	/* one snapshot: pages move between genalloc and the cache under the lock */
	spin_lock_bh(&z->lock);
	avail = gen_pool_avail(z->pool);
	lent = z->nlent;
	cached = z->ncached;
	spin_unlock_bh(&z->lock);
	if (!nest ||
	    nla_put_u32(msg, EDM_A_ZONE_INDEX, z->index) ||
	    nla_put_string(msg, EDM_A_ZONE_NAME, z->name) ||
	    nla_put_u64_64bit(msg, EDM_A_ZONE_SIZE, z->size, EDM_A_ZONE_PAD) ||
	    nla_put_u64_64bit(msg, EDM_A_ZONE_FREE, avail, EDM_A_ZONE_PAD) ||
	    nla_put_u64_64bit(msg, EDM_A_ZONE_LENT, lent, EDM_A_ZONE_PAD) ||
	    nla_put_u64_64bit(msg, EDM_A_ZONE_CACHED, cached, EDM_A_ZONE_PAD) ||
	    nla_put_u32(msg, EDM_A_ZONE_SUBARRAYS, z->nslots) ||
	    nla_put_u32(msg, EDM_A_ZONE_NUMA_NODE, z->nid) ||
	    edm_netdimm_put_geom(msg, EDM_A_ZONE_GEOM, &z->geom))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_netdimm_put_stats(struct sk_buff *msg, struct edm_netdimm *nd)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_NETDIMM_STATS);
	struct edm_netdimm_stats sum;
	int i;

	if (!nest)
		return -EMSGSIZE;
	edm_netdimm_fill_stats(nd, &sum);
	for (i = EDM_A_NDSTAT_PAD + 1; i < __EDM_A_NDSTAT_CNT; i++)
		if (nla_put_u64_64bit(msg, i, sum.v[i], EDM_A_NDSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * What @nd was made with, and its ID once it has one: also `ip -d link
 * show`'s, which may ask while @dev is being made (RTNL held either way).
 */
int edm_netdimm_put_cfg(struct sk_buff *msg, const struct edm_dev *dev,
			const struct edm_netdimm *nd)
{
	u32 lower = READ_ONCE(nd->lower_ifindex);

	if ((dev->id && nla_put_u32(msg, EDM_A_NETDIMM_ID, dev->id)) ||
	    (dev->peer && nla_put_string(msg, EDM_A_NETDIMM_PEER, dev->peer->name)) ||
	    (lower && nla_put_u32(msg, EDM_A_NETDIMM_LOWER, lower)) ||
	    nla_put_u64_64bit(msg, EDM_A_NETDIMM_SIZE, nd->zone->size, EDM_A_NETDIMM_PAD) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_POLL_US, nd->poll_us) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_RX_MODE, nd->rx_mode) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_WIRE_MBPS, nd->wire_mbps) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_WIRE_DELAY_NS, nd->wire_delay_ns) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_NUMA_NODE, nd->zone->nid) ||
	    edm_netdimm_put_geom(msg, EDM_A_NETDIMM_GEOM, &nd->zone->geom))
		return -EMSGSIZE;
	return 0;
}

static int edm_netdimm_fill(struct sk_buff *msg, const struct edm_dev *dev)
{
	struct edm_netdimm *nd = edm_netdimm_of(dev);

	if (nla_put_string(msg, EDM_A_NETDIMM_NAME, dev->name) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_IFINDEX, nd->netdev->ifindex) ||
	    edm_netdimm_put_cfg(msg, dev, nd) ||
	    edm_netdimm_put_zone(msg, nd->zone) ||
	    edm_netdimm_put_stats(msg, nd))
		return -EMSGSIZE;
	return 0;
}

static struct sk_buff *edm_netdimm_msg(const struct edm_dev *dev, struct genl_info *info, u8 cmd)
{
	return edm_nl_dev_msg(dev, info, cmd, edm_netdimm_fill);
}

struct sk_buff *edm_netdimm_event_msg(const struct edm_dev *dev, u8 cmd)
{
	return edm_netdimm_msg(dev, NULL, cmd);
}

void edm_netdimm_notify(const struct edm_dev *dev, u8 cmd)
{
	edm_nl_dev_notify(dev, cmd, edm_netdimm_fill);
}

static bool edm_netdimm_is(const struct edm_dev *dev)
{
	return dev->type == EDM_DEV_TYPE_NETDIMM;
}

const struct edm_nl_obj edm_netdimm_nl_obj = {
	.id_attr = EDM_A_NETDIMM_ID,
	.name_attr = EDM_A_NETDIMM_NAME,
	.is = edm_netdimm_is,
	.not_msg = "not a NetDIMM",
	.fill = edm_netdimm_fill,
};

static int edm_netdimm_parse_geom(struct nlattr **a, struct edm_netdimm_cfg *cfg,
				  struct netlink_ext_ack *extack)
{
	u32 v[EDM_A_GEOM_MAX + 1] = {
		[EDM_A_GEOM_ROW_BYTES] = EDM_NETDIMM_ROW_BYTES,
		[EDM_A_GEOM_DEVICES] = EDM_NETDIMM_DEVICES,
		[EDM_A_GEOM_BANKS] = EDM_NETDIMM_BANKS,
		[EDM_A_GEOM_SUBARRAYS] = EDM_NETDIMM_SUBARRAYS,
		[EDM_A_GEOM_ROWS] = EDM_NETDIMM_ROWS,
	};
	struct nlattr *tb[EDM_A_GEOM_MAX + 1], *nest = a[EDM_A_NETDIMM_GEOM];
	int i, err;

	if (nest) {
		err = nla_parse_nested(tb, EDM_A_GEOM_MAX, nest, edm_geom_policy, extack);
		if (err)
			return err;
		for (i = 1; i <= EDM_A_GEOM_MAX; i++) {
			if (!tb[i])
				continue;
			v[i] = nla_get_u32(tb[i]);
			if (!is_power_of_2(v[i])) {
				NL_SET_ERR_MSG_ATTR(extack, tb[i], "must be a power of two");
				return -EINVAL;
			}
		}
	}
	err = edm_netdimm_geom_init(&cfg->geom, v[EDM_A_GEOM_ROW_BYTES],
				    v[EDM_A_GEOM_DEVICES], v[EDM_A_GEOM_BANKS],
				    v[EDM_A_GEOM_SUBARRAYS], v[EDM_A_GEOM_ROWS], PAGE_SHIFT);
	if (err)
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a rank row (row bytes x devices) must hold a whole page");
	return err;
}

/*
 * edm_netdimm_cfg_parse() - a creation's parameters from @a (attributes of
 * NETDIMM_NEW, or of `ip link add ... type ndimm`'s IFLA_INFO_DATA: one
 * attribute space), checked before anything is made. @name is the new
 * device's; cfg->size holds the default when @a has no size.
 */
int edm_netdimm_cfg_parse(struct nlattr **a, const char *name, struct edm_netdimm_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	if (a[EDM_A_NETDIMM_SIZE])
		cfg->size = nla_get_u64(a[EDM_A_NETDIMM_SIZE]);
	if (!IS_ALIGNED(cfg->size, 1UL << EDM_NETDIMM_CHUNK_SHIFT)) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_NETDIMM_SIZE],
				    "zone size must be a multiple of 2 MiB");
		return -EINVAL;
	}
	if (a[EDM_A_NETDIMM_PEER] && a[EDM_A_NETDIMM_LOWER]) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_NETDIMM_LOWER],
				    "a NetDIMM has a peer or a lower device, not both");
		return -EINVAL;
	}
	if (a[EDM_A_NETDIMM_PEER]) {
		const char *peer = nla_data(a[EDM_A_NETDIMM_PEER]);

		if (!edm_name_valid(peer, strlen(peer), EDM_NAME_LEN - 1)) {
			NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_NETDIMM_PEER], EDM_NL_NAME_INVALID);
			return -EINVAL;
		}
		if (!strcmp(peer, name)) {
			NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_NETDIMM_PEER],
					    "the peer needs a name of its own");
			return -EINVAL;
		}
		cfg->peer_name = peer;
	}
	cfg->nid = NUMA_NO_NODE;
	if (a[EDM_A_NETDIMM_NUMA_NODE]) {
		cfg->nid = nla_get_u32(a[EDM_A_NETDIMM_NUMA_NODE]);
		if (cfg->nid >= MAX_NUMNODES || !node_online(cfg->nid)) {
			NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_NETDIMM_NUMA_NODE],
					    "no such NUMA node online");
			return -EINVAL;
		}
	}
	if (a[EDM_A_NETDIMM_POLL_US])
		cfg->poll_us = nla_get_u32(a[EDM_A_NETDIMM_POLL_US]);
	if (a[EDM_A_NETDIMM_WIRE_MBPS])
		cfg->wire_mbps = nla_get_u32(a[EDM_A_NETDIMM_WIRE_MBPS]);
	if (a[EDM_A_NETDIMM_WIRE_DELAY_NS])
		cfg->wire_delay_ns = nla_get_u32(a[EDM_A_NETDIMM_WIRE_DELAY_NS]);
	cfg->rx_mode = EDM_NETDIMM_RX_ZEROCOPY;
	if (a[EDM_A_NETDIMM_RX_MODE])
		cfg->rx_mode = nla_get_u32(a[EDM_A_NETDIMM_RX_MODE]);
	return edm_netdimm_parse_geom(a, cfg, extack);
}

/* The lower device @a names in @net, referenced into cfg->lower; none is fine. */
int edm_netdimm_cfg_lower(struct nlattr **a, struct net *net, struct edm_netdimm_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *attr = a[EDM_A_NETDIMM_LOWER];

	if (!attr)
		return 0;
	cfg->lower = dev_get_by_index(net, nla_get_u32(attr));
	if (!cfg->lower) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such lower device in this netns");
		return -ENODEV;
	}
	return 0;
}

/*
 * edm_netdimm_new() - the device @name of @cfg and, with a peer name, its
 * peer joined to it by a wire: NETDIMM_NEW's and `ip link add`'s one path.
 * @netdev: the netdev `ip link add` allocated for @name, or NULL. RTNL and
 * the registry lock held.
 */
struct edm_dev *edm_netdimm_new(struct edm_net *en, const char *name,
				struct edm_netdimm_cfg *cfg, struct net_device *netdev,
				struct netlink_ext_ack *extack)
{
	struct edm_dev *dev, *peer;

	cfg->netdev = netdev;
	dev = edm_dev_create(en, name, EDM_DEV_TYPE_NETDIMM, cfg, extack);
	cfg->netdev = NULL;
	if (IS_ERR(dev) || !cfg->peer_name)
		return dev;
	peer = edm_dev_create(en, cfg->peer_name, EDM_DEV_TYPE_NETDIMM, cfg, extack);
	if (IS_ERR(peer)) {
		edm_dev_destroy(en, dev);
		return peer;
	}
	edm_netdimm_pair(dev, peer);
	return dev;
}

static int edm_nl_netdimm_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_netdimm_cfg cfg = {};
	struct nlattr **a = info->attrs;
	struct edm_dev *dev;
	struct sk_buff *reply;
	int err;

	err = edm_nl_require(info, EDM_A_NETDIMM_NAME, "missing NetDIMM name") ?:
	      edm_nl_require(info, EDM_A_NETDIMM_SIZE, "missing zone size") ?:
	      edm_nl_chk_name(info, EDM_A_NETDIMM_NAME) ?:
	      edm_netdimm_cfg_parse(a, nla_data(a[EDM_A_NETDIMM_NAME]), &cfg, info->extack) ?:
	      edm_netdimm_cfg_lower(a, genl_info_net(info), &cfg, info->extack);
	if (err)
		return err;
	dev = edm_netdimm_new(edm_nl_en(info), nla_data(a[EDM_A_NETDIMM_NAME]), &cfg, NULL,
			      info->extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out;
	}
	reply = edm_netdimm_msg(dev, info, EDM_CMD_NETDIMM_NEW);
	if (!reply) {
		edm_dev_destroy(edm_nl_en(info), dev);	/* and its peer */
		err = -ENOMEM;
		goto out;
	}
	edm_netdimm_notify(dev, EDM_CMD_NETDIMM_NEW);
	if (dev->peer)
		edm_netdimm_notify(dev->peer, EDM_CMD_NETDIMM_NEW);
	dev_put(cfg.lower);
	return genlmsg_reply(reply, info);

out:
	dev_put(cfg.lower);
	return err;
}

static int edm_nl_netdimm_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);
	struct sk_buff *peer_event = NULL;

	if (dev->peer)	/* a pair goes together */
		peer_event = edm_netdimm_msg(dev->peer, NULL, EDM_CMD_NETDIMM_DEL);
	edm_nl_deleted(info, dev);
	if (peer_event)
		edm_nl_notify(genl_info_net(info), peer_event);
	return 0;
}

static const struct genl_ops edm_netdimm_genl_ops[] = {
	{
		.cmd = EDM_CMD_NETDIMM_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_netdimm_sel_policy,
		.maxattr = EDM_A_NETDIMM_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_NETDIMM),
	},
	{
		.cmd = EDM_CMD_NETDIMM_NEW,
		.doit = edm_nl_netdimm_new_doit,
		.policy = edm_netdimm_new_policy,
		.maxattr = EDM_A_NETDIMM_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_NETDIMM),
	},
	{
		.cmd = EDM_CMD_NETDIMM_DEL,
		.doit = edm_nl_netdimm_del_doit,
		.policy = edm_netdimm_sel_policy,
		.maxattr = EDM_A_NETDIMM_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_NETDIMM),
	},
};

const struct edm_nl_ops edm_netdimm_nl_ops = {
	.ops = edm_netdimm_genl_ops,
	.n_ops = ARRAY_SIZE(edm_netdimm_genl_ops),
};
