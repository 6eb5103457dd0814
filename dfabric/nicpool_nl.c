// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on DFabric NIC pools: NICPOOL_NEW (one per rack),
 * NICPOOL_GET (do and dump, with members and counters), NICPOOL_SET (mode,
 * flowlet gap), NICPOOL_DEL, and NICPOOL_NIC_ADD / _NIC_DEL for members.
 * Each runs under RTNL and its netns's registry lock, taken by the family's
 * pre_doit (EDM_NL_LOCK); a reply reads the members under RCU (the netdev
 * notifier removes them with RTNL alone). A creation whose
 * reply cannot be built is undone, a SET that changed nothing sends no
 * event.
 */
#include <linux/rtnetlink.h>
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/netlink.h"
#include "nicpool.h"

#define EDM_NICPOOL_MODE_POLICY \
	NLA_POLICY_RANGE(NLA_U32, EDM_NICPOOL_MODE_FLOWLET, EDM_NICPOOL_MODE_MAX)
#define EDM_NICPOOL_REJECT(attr, msg) \
	[attr] = { .type = NLA_REJECT, .reject_message = msg }

static struct netlink_range_validation edm_nicpool_gap_range = {
	.min = 1,
	.max = EDM_NICPOOL_GAP_US_MAX,
};

static const struct nla_policy edm_nicpool_new_policy[EDM_A_NICPOOL_MAX + 1] = {
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_ID, "device IDs are assigned by the kernel"),
	[EDM_A_NICPOOL_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_NICPOOL_RACK] = EDM_NL_NAME_POLICY,
	[EDM_A_NICPOOL_MODE] = EDM_NICPOOL_MODE_POLICY,
	[EDM_A_NICPOOL_FLOWLET_GAP_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_nicpool_gap_range),
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_NIC, "add members with NICPOOL_NIC_ADD"),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_NODE),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_TAG),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBERS),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBER),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_STATS),
};

/* NICPOOL_GET and NICPOOL_DEL select a NIC pool by ID or by name. */
static const struct nla_policy edm_nicpool_sel_policy[EDM_A_NICPOOL_MAX + 1] = {
	[EDM_A_NICPOOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_NICPOOL_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_NICPOOL_RACK),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MODE),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_FLOWLET_GAP_US),
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_NIC, "name members with NICPOOL_NIC_ADD or _DEL"),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_NODE),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_TAG),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBERS),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBER),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_STATS),
};

static const struct nla_policy edm_nicpool_set_policy[EDM_A_NICPOOL_MAX + 1] = {
	[EDM_A_NICPOOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_NICPOOL_NAME] = EDM_NL_NAME_POLICY,
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_RACK, "fixed when the NIC pool was created"),
	[EDM_A_NICPOOL_MODE] = EDM_NICPOOL_MODE_POLICY,
	[EDM_A_NICPOOL_FLOWLET_GAP_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_nicpool_gap_range),
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_NIC,
			   "add and remove members with NICPOOL_NIC_ADD and _DEL"),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_NODE),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_TAG),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBERS),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBER),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_STATS),
};

/* NICPOOL_NIC_ADD and _DEL: a NIC pool by ID or name, and a netdev. */
static const struct nla_policy edm_nicpool_nic_policy[EDM_A_NICPOOL_MAX + 1] = {
	[EDM_A_NICPOOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_NICPOOL_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_NICPOOL_RACK),
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_MODE, "change the mode with NICPOOL_SET"),
	EDM_NICPOOL_REJECT(EDM_A_NICPOOL_FLOWLET_GAP_US, "change the gap with NICPOOL_SET"),
	[EDM_A_NICPOOL_NIC] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	EDM_REPLY_ONLY(EDM_A_NICPOOL_NODE),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_TAG),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBERS),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_MEMBER),
	EDM_REPLY_ONLY(EDM_A_NICPOOL_STATS),
};

static int edm_nicpool_put_stats(struct sk_buff *msg, int attr, const u64 *v, int cnt, int pad)
{
	struct nlattr *nest = nla_nest_start(msg, attr);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = pad + 1; i < cnt; i++)
		if (nla_put_u64_64bit(msg, i, v[i], pad))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_nicpool_put_member(struct sk_buff *msg, struct edm_nicpool_member *m)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_NICPOOL_MEMBER);
	struct edm_nicpool_member_stats s;
	int i;

	if (!nest)
		return -EMSGSIZE;
	edm_nicpool_member_stats(m, &s);
	if (nla_put_u32(msg, EDM_A_NPMEMBER_IFINDEX, READ_ONCE(m->dev->ifindex)) ||
	    nla_put_string(msg, EDM_A_NPMEMBER_NAME, m->dev->name))
		return -EMSGSIZE;
	for (i = EDM_A_NPMEMBER_TX_PACKETS; i < __EDM_A_NPMEMBER_CNT; i++)
		if (nla_put_u64_64bit(msg, i, s.v[i], EDM_A_NPMEMBER_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_nicpool_put_members(struct sk_buff *msg, struct edm_nicpool *np)
{
	struct edm_nicpool_member *m;
	int i, err = 0;

	rcu_read_lock();
	for (i = 0; i < EDM_NICPOOL_MEMBERS_MAX && !err; i++) {
		m = rcu_dereference(np->members[i]);
		if (m)
			err = edm_nicpool_put_member(msg, m);
	}
	rcu_read_unlock();
	return err;
}

static int edm_nicpool_fill(struct sk_buff *msg, const struct edm_dev *dev)
{
	struct edm_nicpool *np = edm_nicpool_of(dev);
	struct edm_nicpool_stats s;

	edm_nicpool_stats(np, &s);
	if (nla_put_u32(msg, EDM_A_NICPOOL_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_NICPOOL_NAME, dev->name) ||
	    (np->rack && nla_put_string(msg, EDM_A_NICPOOL_RACK, np->rack->edev->name)) ||
	    nla_put_u32(msg, EDM_A_NICPOOL_MODE, READ_ONCE(np->mode)) ||
	    nla_put_u32(msg, EDM_A_NICPOOL_FLOWLET_GAP_US,
			div_u64(READ_ONCE(np->gap_ns), NSEC_PER_USEC)) ||
	    (np->rack && nla_put_u32(msg, EDM_A_NICPOOL_NODE, np->pn.id)) ||
	    nla_put_u32(msg, EDM_A_NICPOOL_TAG, np->tag) ||
	    nla_put_u32(msg, EDM_A_NICPOOL_MEMBERS, READ_ONCE(np->nmembers)) ||
	    edm_nicpool_put_members(msg, np) ||
	    edm_nicpool_put_stats(msg, EDM_A_NICPOOL_STATS, s.v, __EDM_A_NPSTAT_CNT,
				  EDM_A_NPSTAT_PAD))
		return -EMSGSIZE;
	return 0;
}

static bool edm_nicpool_is(const struct edm_dev *dev)
{
	return dev->type == EDM_DEV_TYPE_NICPOOL;
}

const struct edm_nl_obj edm_nicpool_nl_obj = {
	.id_attr = EDM_A_NICPOOL_ID,
	.name_attr = EDM_A_NICPOOL_NAME,
	.is = edm_nicpool_is,
	.not_msg = "not a NIC pool",
	.fill = edm_nicpool_fill,
};

/* The rack RACK names, which must have no NIC pool yet; registry lock held. */
static struct edm_rack *edm_nicpool_rack(struct edm_net *en, struct genl_info *info)
{
	struct nlattr *name = info->attrs[EDM_A_NICPOOL_RACK];
	struct edm_dev *dev = edm_dev_find(en, NULL, name, info->extack);
	struct edm_rack *rack;

	lockdep_assert_held(&en->lock);
	if (IS_ERR(dev))
		return ERR_CAST(dev);
	if (dev->type != EDM_DEV_TYPE_RACK) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "not a rack");
		return ERR_PTR(-ENODEV);
	}
	rack = edm_rack_of(dev);
	if (rcu_access_pointer(rack->np)) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "the rack has a NIC pool already");
		return ERR_PTR(-EEXIST);
	}
	return rack;
}

static int edm_nicpool_chk_new(struct genl_info *info, struct edm_nicpool_cfg *cfg)
{
	struct nlattr **a = info->attrs;
	int err;

	err = edm_nl_require(info, EDM_A_NICPOOL_NAME, "missing NIC pool name") ?:
	      edm_nl_require(info, EDM_A_NICPOOL_RACK, "missing rack: a NIC pool serves one") ?:
	      edm_nl_chk_name(info, EDM_A_NICPOOL_NAME);
	if (err)
		return err;
	cfg->mode = a[EDM_A_NICPOOL_MODE] ? nla_get_u32(a[EDM_A_NICPOOL_MODE]) :
					    EDM_NICPOOL_MODE_FLOWLET;
	cfg->gap_us = a[EDM_A_NICPOOL_FLOWLET_GAP_US] ?
		      nla_get_u32(a[EDM_A_NICPOOL_FLOWLET_GAP_US]) : EDM_NICPOOL_GAP_US_DEFAULT;
	return 0;
}

static int edm_nl_nicpool_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct edm_nicpool_cfg cfg = {};
	struct edm_dev *dev;
	int err;

	err = edm_nicpool_chk_new(info, &cfg);
	if (err)
		return err;
	cfg.rack = edm_nicpool_rack(en, info);
	if (IS_ERR(cfg.rack))
		return PTR_ERR(cfg.rack);
	dev = edm_dev_create(en, nla_data(info->attrs[EDM_A_NICPOOL_NAME]),
			     EDM_DEV_TYPE_NICPOOL, &cfg, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return edm_nl_created(info, dev);
}

static int edm_nl_nicpool_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return edm_nl_deleted(info, edm_nl_dev(info));
}

static int edm_nl_nicpool_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);
	struct edm_nicpool *np = edm_nicpool_of(dev);
	struct nlattr **a = info->attrs;
	bool mod = false;
	u64 gap;
	u32 mode;

	mode = a[EDM_A_NICPOOL_MODE] ? nla_get_u32(a[EDM_A_NICPOOL_MODE]) : np->mode;
	gap = a[EDM_A_NICPOOL_FLOWLET_GAP_US] ?
	      (u64)nla_get_u32(a[EDM_A_NICPOOL_FLOWLET_GAP_US]) * NSEC_PER_USEC : np->gap_ns;
	if (mode != np->mode) {
		WRITE_ONCE(np->mode, mode);
		mod = true;
	}
	if (gap != np->gap_ns) {
		WRITE_ONCE(np->gap_ns, gap);
		mod = true;
	}
	if (mod)
		edm_nl_dev_notify(dev, EDM_CMD_NICPOOL_SET, edm_nicpool_fill);
	return 0;
}

/*
 * NIC_ADD and NIC_DEL: @op on the NIC pool and the netdev NIC names. The
 * NIC is required before the pool is looked up, so a request without one
 * is told so whatever pool it names.
 */
static int edm_nicpool_nic_cmd(struct genl_info *info, u8 cmd,
			       int (*op)(struct edm_nicpool *np, struct net_device *nd,
					 struct netlink_ext_ack *extack))
{
	struct nlattr *nic = info->attrs[EDM_A_NICPOOL_NIC];
	struct net_device *nd;
	struct edm_dev *dev;
	int err;

	err = edm_nl_require(info, EDM_A_NICPOOL_NIC, "missing NIC: a netdev name");
	if (err)
		return err;
	dev = edm_nl_find(info, &edm_nicpool_nl_obj);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	nd = __dev_get_by_name(genl_info_net(info), nla_data(nic));
	if (nd) {
		err = op(edm_nicpool_of(dev), nd, info->extack);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, nic, "no such netdev in this netns");
		err = -ENODEV;
	}
	if (!err)
		edm_nl_dev_notify(dev, cmd, edm_nicpool_fill);
	return err;
}

static int edm_nl_nicpool_nic_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return edm_nicpool_nic_cmd(info, EDM_CMD_NICPOOL_NIC_ADD, edm_nicpool_nic_add);
}

static int edm_nl_nicpool_nic_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return edm_nicpool_nic_cmd(info, EDM_CMD_NICPOOL_NIC_DEL, edm_nicpool_nic_del);
}

static const struct genl_ops edm_nicpool_genl_ops[] = {
	{
		.cmd = EDM_CMD_NICPOOL_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_nicpool_sel_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_NICPOOL),
	},
	{
		.cmd = EDM_CMD_NICPOOL_NEW,
		.doit = edm_nl_nicpool_new_doit,
		.policy = edm_nicpool_new_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_NICPOOL),
	},
	{
		.cmd = EDM_CMD_NICPOOL_DEL,
		.doit = edm_nl_nicpool_del_doit,
		.policy = edm_nicpool_sel_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_NICPOOL),
	},
	{
		.cmd = EDM_CMD_NICPOOL_SET,
		.doit = edm_nl_nicpool_set_doit,
		.policy = edm_nicpool_set_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_NICPOOL),
	},
	{
		.cmd = EDM_CMD_NICPOOL_NIC_ADD,
		.doit = edm_nl_nicpool_nic_add_doit,
		.policy = edm_nicpool_nic_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_NICPOOL_NIC_DEL,
		.doit = edm_nl_nicpool_nic_del_doit,
		.policy = edm_nicpool_nic_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
};

const struct edm_nl_ops edm_nicpool_nl_ops = {
	.ops = edm_nicpool_genl_ops,
	.n_ops = ARRAY_SIZE(edm_nicpool_genl_ops),
};
