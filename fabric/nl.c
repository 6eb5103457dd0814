// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on the EDM fabric's nodes: FABRIC_NEW, FABRIC_GET (do
 * and dump), FABRIC_DEL and FABRIC_SET on switches and hosts (the edm
 * devices of types FSWITCH and FHOST), and their events. Links are
 * fabric/link_nl.c's.
 *
 * Locking: each handler runs under its netns's registry lock, taken by the
 * family's pre_doit (EDM_NL_LOCK), and the fabric calls it makes expect it
 * held. A request either fully happens or leaves nothing behind: checks
 * come first, and a creation whose reply cannot be built is undone.
 */
#include <linux/sizes.h>

#include "edm/dev.h"
#include "edm/fabric.h"
#include "edm/netlink.h"
#include "edm/sched.h"
#include "fab.h"

/* Bounds past what an s16 policy bound holds (not const: the 6.1 API). */
static struct netlink_range_validation edm_fab_chunk_range = {
	.min = EDM_FAB_CHUNK_MIN,
	.max = EDM_FAB_CHUNK_MAX,
};

static struct netlink_range_validation edm_fab_rate_range = {
	.min = EDM_FAB_RATE_MIN,
	.max = EDM_FAB_RATE_MAX,
};

static struct netlink_range_validation edm_fab_timeout_range = {
	.min = 1,
	.max = EDM_FAB_TIMEOUT_MS_MAX,
};

static struct netlink_range_validation edm_fab_timeout_min_range = {
	.min = EDM_FAB_TIMEOUT_MIN_US_MIN,
	.max = EDM_FAB_TIMEOUT_MS_MAX * USEC_PER_MSEC,
};

static struct netlink_range_validation edm_fab_region_range = {
	.max = EDM_FAB_REGION_MAX,
};

#define EDM_FAB_FIXED(attr) \
	[attr] = { .type = NLA_REJECT, .reject_message = "fixed when the node was created" }

const struct nla_policy edm_fab_new_policy[EDM_A_FAB_MAX + 1] = {
	[EDM_A_FAB_ID] = { .type = NLA_REJECT,
			   .reject_message = "device IDs are assigned by the kernel" },
	[EDM_A_FAB_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_FAB_TYPE] = NLA_POLICY_RANGE(NLA_U32, EDM_DEV_TYPE_FSWITCH, EDM_DEV_TYPE_FHOST),
	[EDM_A_FAB_PORTS] = NLA_POLICY_RANGE(NLA_U32, 2, EDM_FAB_PORTS_MAX),
	[EDM_A_FAB_SCHED_X] = NLA_POLICY_RANGE(NLA_U32, 1, EDM_SCHED_MAX_X),
	[EDM_A_FAB_CHUNK] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_fab_chunk_range),
	[EDM_A_FAB_POLICY] = NLA_POLICY_MAX(NLA_U32, EDM_FAB_POLICY_MAX),
	[EDM_A_FAB_RATE_MBPS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_fab_rate_range),
	[EDM_A_FAB_ADDR] = NLA_POLICY_MAX(NLA_U32, EDM_FAB_ADDR_MAX),
	[EDM_A_FAB_REGION_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U64, &edm_fab_region_range),
	[EDM_A_FAB_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_fab_timeout_range),
	EDM_REPLY_ONLY(EDM_A_FAB_MINOR),
	EDM_REPLY_ONLY(EDM_A_FAB_STATS),
	[EDM_A_FAB_REGION_KEYED] = { .type = NLA_FLAG },
	[EDM_A_FAB_TIMEOUT_MIN_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_fab_timeout_min_range),
};

/* FABRIC_GET and FABRIC_DEL select a node by ID or by name. */
static const struct nla_policy edm_fab_sel_policy[EDM_A_FAB_MAX + 1] = {
	[EDM_A_FAB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_FAB_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_FAB_TYPE),
	EDM_REPLY_ONLY(EDM_A_FAB_PORTS),
	EDM_REPLY_ONLY(EDM_A_FAB_SCHED_X),
	EDM_REPLY_ONLY(EDM_A_FAB_CHUNK),
	EDM_REPLY_ONLY(EDM_A_FAB_POLICY),
	EDM_REPLY_ONLY(EDM_A_FAB_RATE_MBPS),
	EDM_REPLY_ONLY(EDM_A_FAB_ADDR),
	EDM_REPLY_ONLY(EDM_A_FAB_REGION_SIZE),
	EDM_REPLY_ONLY(EDM_A_FAB_TIMEOUT_MS),
	EDM_REPLY_ONLY(EDM_A_FAB_MINOR),
	EDM_REPLY_ONLY(EDM_A_FAB_STATS),
	EDM_REPLY_ONLY(EDM_A_FAB_REGION_KEYED),
	EDM_REPLY_ONLY(EDM_A_FAB_TIMEOUT_MIN_US),
};

/* FABRIC_SET: a switch, by ID or name, and what a running switch can change. */
static const struct nla_policy edm_fab_set_policy[EDM_A_FAB_MAX + 1] = {
	[EDM_A_FAB_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_FAB_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_FAB_CHUNK] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_fab_chunk_range),
	[EDM_A_FAB_POLICY] = NLA_POLICY_MAX(NLA_U32, EDM_FAB_POLICY_MAX),
	EDM_FAB_FIXED(EDM_A_FAB_TYPE),
	EDM_FAB_FIXED(EDM_A_FAB_PORTS),
	EDM_FAB_FIXED(EDM_A_FAB_SCHED_X),
	EDM_FAB_FIXED(EDM_A_FAB_RATE_MBPS),
	EDM_FAB_FIXED(EDM_A_FAB_ADDR),
	EDM_FAB_FIXED(EDM_A_FAB_REGION_SIZE),
	EDM_FAB_FIXED(EDM_A_FAB_TIMEOUT_MS),
	EDM_REPLY_ONLY(EDM_A_FAB_MINOR),
	EDM_REPLY_ONLY(EDM_A_FAB_STATS),
	EDM_FAB_FIXED(EDM_A_FAB_REGION_KEYED),
	EDM_FAB_FIXED(EDM_A_FAB_TIMEOUT_MIN_US),
};

bool edm_fab_is_node(const struct edm_dev *dev)
{
	return dev->type == EDM_DEV_TYPE_FSWITCH || dev->type == EDM_DEV_TYPE_FHOST;
}

/* Whether a node of this kind keeps counter @i (an EDM_A_FSTAT_*). */
static bool edm_fab_stat_kept(bool is_host, int i)
{
	if (is_host)
		return (i >= EDM_A_FSTAT_READS && i <= EDM_A_FSTAT_SERVED_ERRORS) ||
		       (i >= EDM_A_FSTAT_SERVED_WRITE_CHUNKS && i <= EDM_A_FSTAT_FAILOVERS);
	return (i >= EDM_A_FSTAT_SCHED_NOTIFS && i <= EDM_A_FSTAT_DROPS) || i == EDM_A_FSTAT_HOLDS;
}

static int edm_fab_put_stats(struct sk_buff *msg, const struct edm_fab_node_info *ni)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_FAB_STATS);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = EDM_A_FSTAT_READS; i <= EDM_A_FSTAT_MAX; i++)
		if (edm_fab_stat_kept(ni->is_host, i) &&
		    nla_put_u64_64bit(msg, i, ni->stats.v[i], EDM_A_FSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int edm_fab_put_host(struct sk_buff *msg, const struct edm_fab_node_info *ni)
{
	const struct edm_fab_node_cfg *c = &ni->cfg;

	if ((c->nports > 1 && nla_put_u32(msg, EDM_A_FAB_PORTS, c->nports)) ||
	    nla_put_u32(msg, EDM_A_FAB_ADDR, c->addr) ||
	    nla_put_u64_64bit(msg, EDM_A_FAB_REGION_SIZE, c->region_size, EDM_A_FAB_PAD) ||
	    nla_put_u32(msg, EDM_A_FAB_TIMEOUT_MS, c->timeout_ms) ||
	    nla_put_u32(msg, EDM_A_FAB_TIMEOUT_MIN_US, c->timeout_min_us) ||
	    (c->keyed && nla_put_flag(msg, EDM_A_FAB_REGION_KEYED)) ||
	    (ni->minor >= 0 && nla_put_u32(msg, EDM_A_FAB_MINOR, ni->minor)))
		return -EMSGSIZE;
	return 0;
}

static int edm_fab_put_switch(struct sk_buff *msg, const struct edm_fab_node_info *ni)
{
	const struct edm_fab_node_cfg *c = &ni->cfg;

	if (nla_put_u32(msg, EDM_A_FAB_PORTS, c->nports) ||
	    nla_put_u32(msg, EDM_A_FAB_SCHED_X, c->x) ||
	    nla_put_u32(msg, EDM_A_FAB_CHUNK, c->chunk) ||
	    nla_put_u32(msg, EDM_A_FAB_POLICY, c->policy) ||
	    nla_put_u32(msg, EDM_A_FAB_RATE_MBPS, c->rate_mbps))
		return -EMSGSIZE;
	return 0;
}

static int edm_fab_fill(struct sk_buff *msg, const struct edm_dev *dev)
{
	struct edm_fab_node_info ni;

	edm_fab_node_info(edm_fab_node_of(dev), &ni);
	if (nla_put_u32(msg, EDM_A_FAB_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_FAB_NAME, dev->name) ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, dev->type) ||
	    (ni.is_host ? edm_fab_put_host(msg, &ni) : edm_fab_put_switch(msg, &ni)) ||
	    edm_fab_put_stats(msg, &ni))
		return -EMSGSIZE;
	return 0;
}

static void edm_fab_notify(const struct edm_dev *dev, u8 cmd)
{
	edm_nl_dev_notify(dev, cmd, edm_fab_fill);
}

const struct edm_nl_obj edm_fab_nl_obj = {
	.id_attr = EDM_A_FAB_ID,
	.name_attr = EDM_A_FAB_NAME,
	.is = edm_fab_is_node,
	.not_msg = "not a fabric node",
	.fill = edm_fab_fill,
};

/* Attributes of one kind of node only, and the kind they belong to (PORTS: both). */
static const int edm_fab_switch_attrs[] = {
	EDM_A_FAB_SCHED_X, EDM_A_FAB_CHUNK, EDM_A_FAB_POLICY, EDM_A_FAB_RATE_MBPS,
};

static const int edm_fab_host_attrs[] = {
	EDM_A_FAB_ADDR, EDM_A_FAB_REGION_SIZE, EDM_A_FAB_TIMEOUT_MS, EDM_A_FAB_REGION_KEYED,
	EDM_A_FAB_TIMEOUT_MIN_US,
};

/* The first attribute of @list that @a carries, or NULL. */
static struct nlattr *edm_fab_first_of(struct nlattr **a, const int *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[list[i]])
			return a[list[i]];
	return NULL;
}

/* A switch's attributes on a host, or a host's on a switch, are refused by name. */
static int edm_fab_chk_kind(struct nlattr **a, bool is_host, struct netlink_ext_ack *extack)
{
	struct nlattr *bad;

	if (is_host)
		bad = edm_fab_first_of(a, edm_fab_switch_attrs, ARRAY_SIZE(edm_fab_switch_attrs));
	else
		bad = edm_fab_first_of(a, edm_fab_host_attrs, ARRAY_SIZE(edm_fab_host_attrs));
	if (bad && is_host)
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "a host takes no sched-x, chunk, policy or rate-mbps");
	else if (bad)
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "a switch takes no addr, region-size, timeouts or keyed");
	if (bad)
		return -EINVAL;
	if (is_host)
		return edm_nl_require_attr(a, extack, EDM_A_FAB_ADDR, "missing host address");
	return 0;
}

static u32 edm_fab_get_u32(struct nlattr **a, int attr)
{
	return a[attr] ? nla_get_u32(a[attr]) : 0;
}

/*
 * A node's creation parameters from FABRIC_NEW's attributes (or `ip link
 * add`'s, a host's): everything that can be checked before making anything.
 */
int edm_fab_cfg_parse(struct nlattr **a, bool is_host, struct edm_fab_node_cfg *cfg,
		      struct netlink_ext_ack *extack)
{
	int err;

	err = edm_fab_chk_kind(a, is_host, extack);
	if (err)
		return err;
	if (a[EDM_A_FAB_REGION_SIZE]) {
		cfg->region_size = nla_get_u64(a[EDM_A_FAB_REGION_SIZE]);
		if (!IS_ALIGNED(cfg->region_size, SZ_4K)) {
			NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_FAB_REGION_SIZE],
					    "region size must be a multiple of 4 KiB");
			return -EINVAL;
		}
	}
	/* 0 is "the default" in every field the request left out. */
	cfg->nports = edm_fab_get_u32(a, EDM_A_FAB_PORTS);
	if (cfg->nports > EDM_FAB_HOST_PORTS_MAX && is_host) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_FAB_PORTS],
				    "a host has 1 port, or 2: the second to a standby switch");
		return -ERANGE;
	}
	cfg->x = edm_fab_get_u32(a, EDM_A_FAB_SCHED_X);
	cfg->chunk = edm_fab_get_u32(a, EDM_A_FAB_CHUNK);
	cfg->policy = edm_fab_get_u32(a, EDM_A_FAB_POLICY);
	cfg->rate_mbps = edm_fab_get_u32(a, EDM_A_FAB_RATE_MBPS);
	cfg->addr = edm_fab_get_u32(a, EDM_A_FAB_ADDR);
	cfg->timeout_ms = edm_fab_get_u32(a, EDM_A_FAB_TIMEOUT_MS);
	cfg->timeout_min_us = edm_fab_get_u32(a, EDM_A_FAB_TIMEOUT_MIN_US);
	if (cfg->timeout_min_us > (u64)(cfg->timeout_ms ?: EDM_FAB_DEFAULT_TIMEOUT_MS) *
				  USEC_PER_MSEC) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_FAB_TIMEOUT_MIN_US],
				    "the shortest timeout is longer than the longest (timeout)");
		return -ERANGE;
	}
	cfg->keyed = nla_get_flag(a[EDM_A_FAB_REGION_KEYED]);
	if (cfg->keyed && !cfg->region_size) {
		NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_FAB_REGION_KEYED],
				    "only a host with a region can be keyed");
		return -EINVAL;
	}
	return 0;
}

/* Everything about a creation request that can be checked before making anything. */
static int edm_fab_chk_new(struct genl_info *info, struct edm_fab_node_cfg *cfg)
{
	int err;

	err = edm_nl_require(info, EDM_A_FAB_NAME, "missing node name") ?:
	      edm_nl_require(info, EDM_A_FAB_TYPE, "missing node type (fswitch or fhost)");
	if (err)
		return err;
	err = edm_nl_chk_name(info, EDM_A_FAB_NAME);
	if (err)
		return err;
	return edm_fab_cfg_parse(info->attrs,
				 nla_get_u32(info->attrs[EDM_A_FAB_TYPE]) == EDM_DEV_TYPE_FHOST,
				 cfg, info->extack);
}

static int edm_nl_fabric_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_fab_node_cfg cfg = {};
	struct edm_dev *dev;
	int err;

	err = edm_fab_chk_new(info, &cfg);
	if (err)
		return err;
	dev = edm_dev_create(edm_nl_en(info), nla_data(info->attrs[EDM_A_FAB_NAME]),
			     nla_get_u32(info->attrs[EDM_A_FAB_TYPE]), &cfg, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return edm_nl_created(info, dev);
}

static int edm_nl_fabric_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);

	/* Its links go with it: say so for each end, then for the node. */
	edm_flink_notify_node(dev, EDM_CMD_FLINK_DEL);
	return edm_nl_deleted(info, dev);
}

static int edm_nl_fabric_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 new_policy = 0, new_chunk = 0, old_policy, old_chunk;
	struct nlattr *policy = info->attrs[EDM_A_FAB_POLICY];
	struct nlattr *chunk = info->attrs[EDM_A_FAB_CHUNK];
	struct edm_dev *dev = edm_nl_dev(info);
	struct edm_fab_node_info ni;
	struct edm_fab_node *sw;
	int err;

	if (dev->type != EDM_DEV_TYPE_FSWITCH) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[EDM_A_FAB_ID] ?:
				    info->attrs[EDM_A_FAB_NAME],
				    "not a switch: only a switch has settings to change");
		return -EINVAL;
	}
	sw = edm_fab_node_of(dev);
	edm_fab_node_info(sw, &ni);
	old_policy = ni.cfg.policy;
	old_chunk = ni.cfg.chunk;
	if (policy)
		new_policy = nla_get_u32(policy);
	if (chunk)
		new_chunk = nla_get_u32(chunk);
	err = edm_fab_switch_set(sw, policy ? &new_policy : NULL, chunk ? &new_chunk : NULL,
				 info->extack);
	if (err)
		return err;
	/* A set that changed nothing is no event. */
	edm_fab_node_info(sw, &ni);
	if (ni.cfg.policy != old_policy || ni.cfg.chunk != old_chunk)
		edm_fab_notify(dev, EDM_CMD_FABRIC_SET);
	return 0;
}

static const struct genl_ops edm_fabric_genl_ops[] = {
	{
		.cmd = EDM_CMD_FABRIC_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_fab_sel_policy,
		.maxattr = EDM_A_FAB_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_FABRIC),
	},
	{
		.cmd = EDM_CMD_FABRIC_NEW,
		.doit = edm_nl_fabric_new_doit,
		.policy = edm_fab_new_policy,
		.maxattr = EDM_A_FAB_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_FABRIC),
	},
	{
		.cmd = EDM_CMD_FABRIC_DEL,
		.doit = edm_nl_fabric_del_doit,
		.policy = edm_fab_sel_policy,
		.maxattr = EDM_A_FAB_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_FABRIC),
	},
	{
		.cmd = EDM_CMD_FABRIC_SET,
		.doit = edm_nl_fabric_set_doit,
		.policy = edm_fab_set_policy,
		.maxattr = EDM_A_FAB_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_FABRIC),
	},
};

const struct edm_nl_ops edm_fab_nl_ops = {
	.ops = edm_fabric_genl_ops,
	.n_ops = ARRAY_SIZE(edm_fabric_genl_ops),
};
