// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on DFabric racks and their compute nodes: RACK_NEW,
 * RACK_GET (do and dump), RACK_DEL (its CNs go with it); CN_NEW (a netdev),
 * CN_GET (do and dump, with counters), CN_SET (its DRAM cache) and CN_DEL.
 * Each runs under RTNL and its netns's registry lock, taken by the family's
 * pre_doit (EDM_NL_LOCK); a creation whose reply cannot be built is undone,
 * a SET that changed nothing sends no event. CN_NEW's checks and events
 * are shared with `ip link add ... type rackcn` (rack_link.c).
 */
#include <linux/netdevice.h>
#include <net/sock.h>

#include "edm/compat.h"
#include "edm/dev.h"
#include "edm/netlink.h"
#include "rack.h"

static struct netlink_range_validation edm_cn_gran_range = {
	.min = 1 << EDM_DCACHE_MIN_SHIFT,
	.max = 1 << EDM_DCACHE_MAX_SHIFT,
};

static struct netlink_range_validation edm_cn_region_range = {
	.max = EDM_POOL_MAX_FAS - 1,
};

static struct netlink_range_validation edm_cn_sets_range = {
	.max = EDM_DCACHE_MAX_SETS,
};

static const struct nla_policy edm_rack_new_policy[EDM_A_RACK_MAX + 1] = {
	[EDM_A_RACK_ID] = { .type = NLA_REJECT,
			    .reject_message = "device IDs are assigned by the kernel" },
	[EDM_A_RACK_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_RACK_POOL] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_RACK_CNS),
};

static const struct nla_policy edm_rack_sel_policy[EDM_A_RACK_MAX + 1] = {
	[EDM_A_RACK_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_RACK_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_RACK_POOL),
	EDM_REPLY_ONLY(EDM_A_RACK_CNS),
};

#define EDM_CN_DCACHE_POLICIES \
	[EDM_A_CN_DCACHE_REGION] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_cn_region_range), \
	[EDM_A_CN_DCACHE_SETS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_cn_sets_range), \
	[EDM_A_CN_DCACHE_WAYS] = NLA_POLICY_RANGE(NLA_U32, 1, EDM_DCACHE_MAX_WAYS), \
	[EDM_A_CN_DCACHE_GRAN] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_cn_gran_range), \
	[EDM_A_CN_DCACHE_MIN_LEN] = { .type = NLA_U32 }

/* `ip link add ... type rackcn`'s IFLA_INFO_DATA: CN_NEW's, less the name. */
const struct nla_policy edm_cn_link_policy[EDM_A_CN_MAX + 1] = {
	[EDM_A_CN_RACK] = EDM_NL_NAME_POLICY,
	[EDM_A_CN_NAME] = { .type = NLA_REJECT,
			    .reject_message = "the compute node's name is ip link's own" },
	EDM_REPLY_ONLY(EDM_A_CN_NODE),
	EDM_REPLY_ONLY(EDM_A_CN_IFINDEX),
	EDM_CN_DCACHE_POLICIES,
	EDM_REPLY_ONLY(EDM_A_CN_STATS),
};

static const struct nla_policy edm_cn_new_policy[EDM_A_CN_MAX + 1] = {
	[EDM_A_CN_RACK] = EDM_NL_NAME_POLICY,
	[EDM_A_CN_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_CN_NODE),
	EDM_REPLY_ONLY(EDM_A_CN_IFINDEX),
	EDM_CN_DCACHE_POLICIES,
	EDM_REPLY_ONLY(EDM_A_CN_STATS),
};

static const struct nla_policy edm_cn_set_policy[EDM_A_CN_MAX + 1] = {
	[EDM_A_CN_RACK] = EDM_NL_NAME_POLICY,
	[EDM_A_CN_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_CN_NODE),
	EDM_REPLY_ONLY(EDM_A_CN_IFINDEX),
	EDM_CN_DCACHE_POLICIES,
	EDM_REPLY_ONLY(EDM_A_CN_STATS),
};

/* CN_GET and CN_DEL: a node by rack and name (a dump: filtered by either, if given). */
static const struct nla_policy edm_cn_sel_policy[EDM_A_CN_MAX + 1] = {
	[EDM_A_CN_RACK] = EDM_NL_NAME_POLICY,
	[EDM_A_CN_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_CN_NODE),
	EDM_REPLY_ONLY(EDM_A_CN_IFINDEX),
	EDM_REPLY_ONLY(EDM_A_CN_DCACHE_REGION),
	EDM_REPLY_ONLY(EDM_A_CN_DCACHE_SETS),
	EDM_REPLY_ONLY(EDM_A_CN_DCACHE_WAYS),
	EDM_REPLY_ONLY(EDM_A_CN_DCACHE_GRAN),
	EDM_REPLY_ONLY(EDM_A_CN_DCACHE_MIN_LEN),
	EDM_REPLY_ONLY(EDM_A_CN_STATS),
};

/* ---- racks ---- */

static int edm_rack_fill(struct sk_buff *msg, const struct edm_dev *dev)
{
	struct edm_rack *rack = edm_rack_of(dev);
	struct edm_dev *pool = rack->pool->edev;

	if (nla_put_u32(msg, EDM_A_RACK_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_RACK_NAME, dev->name) ||
	    (pool && nla_put_string(msg, EDM_A_RACK_POOL, pool->name)) ||
	    nla_put_u32(msg, EDM_A_RACK_CNS, rack->ncn))
		return -EMSGSIZE;
	return 0;
}

static bool edm_rack_is(const struct edm_dev *dev)
{
	return dev->type == EDM_DEV_TYPE_RACK;
}

const struct edm_nl_obj edm_rack_nl_obj = {
	.id_attr = EDM_A_RACK_ID,
	.name_attr = EDM_A_RACK_NAME,
	.is = edm_rack_is,
	.not_msg = "not a rack",
	.fill = edm_rack_fill,
};

static int edm_nl_rack_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct edm_rack_cfg cfg = {};
	struct edm_dev *dev;
	int err;

	err = edm_nl_require(info, EDM_A_RACK_NAME, "missing rack name") ?:
	      edm_nl_require(info, EDM_A_RACK_POOL, "missing pool: a rack shares one") ?:
	      edm_nl_chk_name(info, EDM_A_RACK_NAME);
	if (err)
		return err;
	cfg.pool = edm_pool_find_name(en, nla_data(info->attrs[EDM_A_RACK_POOL]));
	if (!cfg.pool) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[EDM_A_RACK_POOL],
				    "no such pool in this netns");
		return -ENODEV;
	}
	dev = edm_dev_create(en, nla_data(info->attrs[EDM_A_RACK_NAME]), EDM_DEV_TYPE_RACK,
			     &cfg, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return edm_nl_created(info, dev);
}

static int edm_nl_rack_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);

	if (rcu_access_pointer(edm_rack_of(dev)->np)) {
		NL_SET_ERR_MSG(info->extack,
			       "the rack has a NIC pool: delete the NIC pool first");
		return -EBUSY;
	}
	return edm_nl_deleted(info, dev);
}

/* ---- compute nodes ---- */

static int edm_cn_put_stats(struct sk_buff *msg, struct edm_rack_cn *cn)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_CN_STATS);
	struct edm_rack_cn_stats s;
	int i;

	if (!nest)
		return -EMSGSIZE;
	edm_rack_cn_all_stats(cn, &s);
	for (i = EDM_A_CNSTAT_PAD + 1; i < __EDM_A_CNSTAT_CNT; i++)
		if (nla_put_u64_64bit(msg, i, s.v[i], EDM_A_CNSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_cn_put_dcache(struct sk_buff *msg, struct edm_rack_cn *cn)
{
	struct edm_dcache_cfg c;
	u32 region;
	bool on;

	spin_lock_bh(&cn->pn.dc_lock);
	on = cn->pn.dc;
	c = cn->pn.dc_cfg;
	region = cn->pn.dc_region;
	spin_unlock_bh(&cn->pn.dc_lock);
	if (!on)
		return nla_put_u32(msg, EDM_A_CN_DCACHE_SETS, 0);
	if (nla_put_u32(msg, EDM_A_CN_DCACHE_REGION, region) ||
	    nla_put_u32(msg, EDM_A_CN_DCACHE_SETS, c.sets) ||
	    nla_put_u32(msg, EDM_A_CN_DCACHE_WAYS, c.ways) ||
	    nla_put_u32(msg, EDM_A_CN_DCACHE_GRAN, 1U << c.gran_shift) ||
	    nla_put_u32(msg, EDM_A_CN_DCACHE_MIN_LEN, c.min_len))
		return -EMSGSIZE;
	return 0;
}

/* Its rack, node id and DRAM cache: also `ip -d link show`'s (RTNL held). */
int edm_cn_put_cfg(struct sk_buff *msg, struct edm_rack_cn *cn)
{
	if (nla_put_string(msg, EDM_A_CN_RACK, cn->rack->edev->name) ||
	    nla_put_u32(msg, EDM_A_CN_NODE, cn->pn.id) ||
	    edm_cn_put_dcache(msg, cn))
		return -EMSGSIZE;
	return 0;
}

static int edm_cn_fill(struct sk_buff *msg, struct edm_rack_cn *cn)
{
	if (nla_put_string(msg, EDM_A_CN_NAME, cn->name) ||
	    nla_put_u32(msg, EDM_A_CN_IFINDEX, READ_ONCE(cn->netdev->ifindex)) ||
	    edm_cn_put_cfg(msg, cn) ||
	    edm_cn_put_stats(msg, cn))
		return -EMSGSIZE;
	return 0;
}

static struct sk_buff *edm_cn_msg(struct edm_rack_cn *cn, struct genl_info *info, u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	msg = edm_nl_msg_new(info, cmd, NLMSG_DEFAULT_SIZE, &hdr);
	return msg ? edm_nl_msg_end(msg, hdr, edm_cn_fill(msg, cn)) : NULL;
}

struct sk_buff *edm_cn_event_msg(struct edm_rack_cn *cn, u8 cmd)
{
	return edm_cn_msg(cn, NULL, cmd);
}

void edm_cn_notify(struct edm_rack_cn *cn, u8 cmd)
{
	struct sk_buff *msg = edm_cn_msg(cn, NULL, cmd);

	if (msg)
		edm_nl_notify(cn->rack->edev->net, msg);
}

/* The rack @name names (an EDM_A_CN_RACK); registry lock held. */
struct edm_rack *edm_cn_rack_named(struct edm_net *en, struct nlattr *name,
				   struct netlink_ext_ack *extack)
{
	struct edm_dev *dev;

	lockdep_assert_held(&en->lock);
	dev = edm_dev_find(en, NULL, name, extack);
	if (IS_ERR(dev))
		return ERR_CAST(dev);
	if (dev->type != EDM_DEV_TYPE_RACK) {
		NL_SET_ERR_MSG_ATTR(extack, name, "not a rack");
		return ERR_PTR(-ENODEV);
	}
	return edm_rack_of(dev);
}

static struct edm_rack *edm_cn_rack(struct edm_net *en, struct genl_info *info)
{
	int err = edm_nl_require(info, EDM_A_CN_RACK, "missing rack name");

	return err ? ERR_PTR(err) : edm_cn_rack_named(en, info->attrs[EDM_A_CN_RACK],
						      info->extack);
}

/* Both names are required before the rack is looked up: without one, EINVAL names it. */
static struct edm_rack_cn *edm_cn_find(struct edm_net *en, struct genl_info *info)
{
	struct edm_rack *rack;
	struct edm_rack_cn *cn;
	int err;

	err = edm_nl_require(info, EDM_A_CN_RACK, "missing rack name") ?:
	      edm_nl_require(info, EDM_A_CN_NAME, "missing compute node name");
	if (err)
		return ERR_PTR(err);
	rack = edm_cn_rack(en, info);
	if (IS_ERR(rack))
		return ERR_CAST(rack);
	cn = edm_rack_cn_find(rack, nla_data(info->attrs[EDM_A_CN_NAME]));
	if (!cn) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[EDM_A_CN_NAME],
				    "no such compute node in the rack");
		return ERR_PTR(-ENODEV);
	}
	return cn;
}

/* The DRAM cache request over @dc; sets 0 turns it off. */
static void edm_cn_get_dc(struct nlattr **a, struct edm_rack_dc_cfg *dc)
{
	if (a[EDM_A_CN_DCACHE_REGION])
		dc->region = nla_get_u32(a[EDM_A_CN_DCACHE_REGION]);
	if (a[EDM_A_CN_DCACHE_SETS])
		dc->sets = nla_get_u32(a[EDM_A_CN_DCACHE_SETS]);
	if (a[EDM_A_CN_DCACHE_WAYS])
		dc->ways = nla_get_u32(a[EDM_A_CN_DCACHE_WAYS]);
	if (a[EDM_A_CN_DCACHE_GRAN])
		dc->gran = nla_get_u32(a[EDM_A_CN_DCACHE_GRAN]);
	if (a[EDM_A_CN_DCACHE_MIN_LEN])
		dc->min_len = nla_get_u32(a[EDM_A_CN_DCACHE_MIN_LEN]);
}

static int edm_cn_chk_dc(struct nlattr **a, const struct edm_rack_dc_cfg *dc,
			 struct netlink_ext_ack *extack)
{
	if (dc->sets && !is_power_of_2(dc->sets)) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_CN_DCACHE_SETS], "sets must be a power of two");
		return -EINVAL;
	}
	if (!is_power_of_2(dc->gran)) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_CN_DCACHE_GRAN], "gran must be a power of two");
		return -EINVAL;
	}
	return 0;
}

static const struct edm_rack_dc_cfg edm_cn_dc_default = {
	.ways = 4, .gran = 4096, .min_len = 256,
};

/* A new CN's DRAM cache from @a, over the defaults; checked. */
int edm_cn_dc_parse(struct nlattr **a, struct edm_rack_dc_cfg *dc,
		    struct netlink_ext_ack *extack)
{
	*dc = edm_cn_dc_default;
	edm_cn_get_dc(a, dc);
	return edm_cn_chk_dc(a, dc, extack);
}

static int edm_nl_cn_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct edm_rack_dc_cfg dc;
	struct edm_rack_cn *cn;
	struct sk_buff *reply;
	struct edm_rack *rack;
	int err;

	err = edm_nl_require(info, EDM_A_CN_NAME, "missing compute node name") ?:
	      edm_nl_chk_name(info, EDM_A_CN_NAME) ?:
	      edm_cn_dc_parse(info->attrs, &dc, info->extack);
	if (err)
		return err;
	rack = edm_cn_rack(en, info);
	if (IS_ERR(rack))
		return PTR_ERR(rack);
	cn = edm_rack_cn_create(rack, nla_data(info->attrs[EDM_A_CN_NAME]), &dc, NULL,
				info->extack);
	if (IS_ERR(cn))
		return PTR_ERR(cn);
	reply = edm_cn_msg(cn, info, EDM_CMD_CN_NEW);
	if (!reply) {
		edm_rack_cn_destroy(cn);
		return -ENOMEM;
	}
	en->gen++;	/* dumps see the change */
	edm_cn_notify(cn, EDM_CMD_CN_NEW);
	return genlmsg_reply(reply, info);
}

static int edm_nl_cn_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct edm_rack_cn *cn;
	struct sk_buff *event;

	cn = edm_cn_find(en, info);
	if (IS_ERR(cn))
		return PTR_ERR(cn);
	event = edm_cn_msg(cn, NULL, EDM_CMD_CN_DEL);
	edm_rack_cn_destroy(cn);
	en->gen++;
	if (event)
		edm_nl_notify(genl_info_net(info), event);
	return 0;
}

static int edm_nl_cn_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_rack_dc_cfg dc, was;
	struct edm_rack_cn *cn;
	struct edm_pool_node *n;
	int err;

	cn = edm_cn_find(edm_nl_en(info), info);
	if (IS_ERR(cn))
		return PTR_ERR(cn);
	n = &cn->pn;
	spin_lock_bh(&n->dc_lock);
	was = (struct edm_rack_dc_cfg){
		.region = n->dc_region, .sets = n->dc ? n->dc_cfg.sets : 0,
		.ways = n->dc ? n->dc_cfg.ways : edm_cn_dc_default.ways,
		.gran = n->dc ? 1U << n->dc_cfg.gran_shift : edm_cn_dc_default.gran,
		.min_len = n->dc ? n->dc_cfg.min_len : edm_cn_dc_default.min_len,
	};
	spin_unlock_bh(&n->dc_lock);
	dc = was;
	edm_cn_get_dc(info->attrs, &dc);
	err = edm_cn_chk_dc(info->attrs, &dc, info->extack);
	if (err || !memcmp(&dc, &was, sizeof(dc)))
		return err;
	err = edm_pool_node_dcache_set(n, dc.region, dc.sets, dc.ways, dc.gran, dc.min_len,
				       info->extack);
	if (!err)
		edm_cn_notify(cn, EDM_CMD_CN_SET);
	return err;
}

static int edm_nl_cn_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_rack_cn *cn;
	struct sk_buff *msg;

	cn = edm_cn_find(edm_nl_en(info), info);
	if (IS_ERR(cn))
		return PTR_ERR(cn);
	msg = edm_cn_msg(cn, info, EDM_CMD_CN_GET);
	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

/* The CNs of one rack (only the one named @name, if not NULL) from slot cb->args[1] on. */
static int edm_cn_dump_rack(struct sk_buff *skb, struct netlink_callback *cb,
			    struct edm_rack *rack, const struct nlattr *name)
{
	struct edm_rack_cn *cn;
	void *hdr;
	u32 i;

	for (i = cb->args[1]; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference_raw(rack->cn[i]);
		if (!cn || (name && strcmp(nla_data(name), cn->name)))
			continue;
		hdr = edm_nl_dump_hdr(skb, cb, EDM_CMD_CN_GET);
		if (!hdr || edm_nl_dump_end(skb, hdr, edm_cn_fill(skb, cn)))
			goto full;
	}
	cb->args[1] = 0;
	return 0;
full:
	cb->args[1] = i;
	return -EMSGSIZE;
}

/* The CNs @dev has, if it is a rack the request selects (RACK, if given). */
static int edm_cn_dump_dev(struct sk_buff *skb, struct netlink_callback *cb, struct edm_dev *dev)
{
	struct nlattr **attrs = edm_genl_dump_attrs(cb);
	struct nlattr *only = attrs[EDM_A_CN_RACK];

	if (dev->type != EDM_DEV_TYPE_RACK || (only && strcmp(nla_data(only), dev->name)))
		return 0;
	return edm_cn_dump_rack(skb, cb, edm_rack_of(dev), attrs[EDM_A_CN_NAME]);
}

/*
 * Every CN of every rack of the netns (of RACK only, and named NAME only,
 * if given). The registry generation, which CN changes bump too, flags
 * interrupted dumps.
 */
static int edm_nl_cn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return edm_nl_dump_devs(skb, cb, edm_cn_dump_dev);
}

static const struct genl_ops edm_rack_genl_ops[] = {
	{
		.cmd = EDM_CMD_RACK_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_rack_sel_policy,
		.maxattr = EDM_A_RACK_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_RACK),
	},
	{
		.cmd = EDM_CMD_RACK_NEW,
		.doit = edm_nl_rack_new_doit,
		.policy = edm_rack_new_policy,
		.maxattr = EDM_A_RACK_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_RACK),
	},
	{
		.cmd = EDM_CMD_RACK_DEL,
		.doit = edm_nl_rack_del_doit,
		.policy = edm_rack_sel_policy,
		.maxattr = EDM_A_RACK_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_RACK),
	},
	{
		.cmd = EDM_CMD_CN_GET,
		.doit = edm_nl_cn_get_doit,
		.dumpit = edm_nl_cn_get_dumpit,
		.policy = edm_cn_sel_policy,
		.maxattr = EDM_A_CN_MAX,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_CN_NEW,
		.doit = edm_nl_cn_new_doit,
		.policy = edm_cn_new_policy,
		.maxattr = EDM_A_CN_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_CN_DEL,
		.doit = edm_nl_cn_del_doit,
		.policy = edm_cn_sel_policy,
		.maxattr = EDM_A_CN_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_CN_SET,
		.doit = edm_nl_cn_set_doit,
		.policy = edm_cn_set_policy,
		.maxattr = EDM_A_CN_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
};

const struct edm_nl_ops edm_rack_nl_ops = {
	.ops = edm_rack_genl_ops,
	.n_ops = ARRAY_SIZE(edm_rack_genl_ops),
};
