// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on DFabric memory pools: POOL_NEW, POOL_GET (do and
 * dump, with the LPPU's counters), POOL_SET (keep, node quota) and
 * POOL_DEL, refused while a rack uses the pool. Each runs under its netns's
 * registry lock, taken by the family's pre_doit (EDM_NL_LOCK); a creation
 * whose reply cannot be built is undone, a SET that changed nothing sends
 * no event.
 */
#include <linux/sizes.h>
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/netlink.h"
#include "edm/pool.h"

/* Bounds past what an s16 policy bound holds (not const: the 6.1 API). */
static struct netlink_range_validation edm_pool_size_range = {
	.min = EDM_POOL_SIZE_MIN,
	.max = EDM_POOL_SIZE_MAX,
};

static struct netlink_range_validation edm_pool_region_range = {
	.min = 1,
	.max = EDM_POOL_MAX_REGION,
};

#define EDM_POOL_FIXED(attr) \
	[attr] = { .type = NLA_REJECT, .reject_message = "fixed when the pool was created" }

static const struct nla_policy edm_pool_new_policy[EDM_A_POOL_MAX + 1] = {
	[EDM_A_POOL_ID] = { .type = NLA_REJECT,
			    .reject_message = "device IDs are assigned by the kernel" },
	[EDM_A_POOL_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_POOL_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U64, &edm_pool_size_range),
	[EDM_A_POOL_NUMA_NODE] = NLA_POLICY_MAX(NLA_U32, EDM_POOL_NUMA_MAX),
	[EDM_A_POOL_REGION_SECTIONS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_pool_region_range),
	[EDM_A_POOL_KEEP] = NLA_POLICY_MAX(NLA_U32, 64),
	[EDM_A_POOL_NODE_QUOTA] = { .type = NLA_U32 },
	EDM_REPLY_ONLY(EDM_A_POOL_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_REGIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_USERS),
	EDM_REPLY_ONLY(EDM_A_POOL_STATS),
	[EDM_A_POOL_DEV] = { .type = NLA_NUL_STRING, .len = EDM_POOL_DEV_LEN - 1 },
};

/* POOL_GET and POOL_DEL select a pool by ID or by name. */
static const struct nla_policy edm_pool_sel_policy[EDM_A_POOL_MAX + 1] = {
	[EDM_A_POOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_POOL_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_POOL_SIZE),
	EDM_REPLY_ONLY(EDM_A_POOL_NUMA_NODE),
	EDM_REPLY_ONLY(EDM_A_POOL_REGION_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_KEEP),
	EDM_REPLY_ONLY(EDM_A_POOL_NODE_QUOTA),
	EDM_REPLY_ONLY(EDM_A_POOL_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_REGIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_USERS),
	EDM_REPLY_ONLY(EDM_A_POOL_STATS),
	EDM_REPLY_ONLY(EDM_A_POOL_DEV),
};

static const struct nla_policy edm_pool_set_policy[EDM_A_POOL_MAX + 1] = {
	[EDM_A_POOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_POOL_NAME] = EDM_NL_NAME_POLICY,
	EDM_POOL_FIXED(EDM_A_POOL_SIZE),
	EDM_POOL_FIXED(EDM_A_POOL_NUMA_NODE),
	EDM_POOL_FIXED(EDM_A_POOL_REGION_SECTIONS),
	[EDM_A_POOL_KEEP] = NLA_POLICY_MAX(NLA_U32, 64),
	[EDM_A_POOL_NODE_QUOTA] = { .type = NLA_U32 },
	EDM_REPLY_ONLY(EDM_A_POOL_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_REGIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_USERS),
	EDM_REPLY_ONLY(EDM_A_POOL_STATS),
	EDM_POOL_FIXED(EDM_A_POOL_DEV),
};

static int edm_pool_put_stats(struct sk_buff *msg, const struct edm_mpool_info *pi)
{
	const u64 v[] = {
		[EDM_A_PSTAT_SECTIONS_FREE] = pi->core.sections_free,
		[EDM_A_PSTAT_BUFFERS] = pi->buffers,
		[EDM_A_PSTAT_ALLOCS] = pi->allocs,
		[EDM_A_PSTAT_ENOMEM] = pi->core.enomem,
		[EDM_A_PSTAT_PASSES] = pi->core.passes,
		[EDM_A_PSTAT_CHECKED] = pi->core.checked,
		[EDM_A_PSTAT_REFUSED] = pi->core.refused[EDM_POOL_REF_FAULT] +
					pi->core.refused[EDM_POOL_REF_FREE] +
					pi->core.refused[EDM_POOL_REF_DENIED] +
					pi->core.refused[EDM_POOL_REF_RANGE] +
					pi->core.refused[EDM_POOL_REF_INVAL],
		[EDM_A_PSTAT_LENT] = pi->nlent,
		[EDM_A_PSTAT_SKBS] = pi->skbs,
		[EDM_A_PSTAT_RECLAIMED] = pi->reclaimed,
	};
	struct nlattr *nest = nla_nest_start(msg, EDM_A_POOL_STATS);
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(v) != __EDM_A_PSTAT_CNT);
	if (!nest)
		return -EMSGSIZE;
	for (i = EDM_A_PSTAT_PAD + 1; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(msg, i, v[i], EDM_A_PSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_pool_fill(struct sk_buff *msg, const struct edm_dev *dev)
{
	struct edm_mpool *p = edm_mpool_of(dev);
	struct edm_mpool_info pi;

	edm_mpool_info(p, &pi);
	if (nla_put_u32(msg, EDM_A_POOL_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_POOL_NAME, dev->name) ||
	    nla_put_u64_64bit(msg, EDM_A_POOL_SIZE, p->size, EDM_A_POOL_PAD) ||
	    nla_put_u32(msg, EDM_A_POOL_NUMA_NODE, p->nid) ||
	    nla_put_u32(msg, EDM_A_POOL_REGION_SECTIONS, pi.region_sections) ||
	    nla_put_u32(msg, EDM_A_POOL_KEEP, pi.keep) ||
	    nla_put_u32(msg, EDM_A_POOL_NODE_QUOTA, pi.node_quota) ||
	    nla_put_u32(msg, EDM_A_POOL_SECTIONS, pi.nsections) ||
	    nla_put_u32(msg, EDM_A_POOL_REGIONS, pi.nregions) ||
	    nla_put_u32(msg, EDM_A_POOL_USERS, p->users) ||
	    (p->dev[0] && nla_put_string(msg, EDM_A_POOL_DEV, p->dev)) ||
	    edm_pool_put_stats(msg, &pi))
		return -EMSGSIZE;
	return 0;
}

static bool edm_pool_is(const struct edm_dev *dev)
{
	return dev->type == EDM_DEV_TYPE_POOL;
}

const struct edm_nl_obj edm_pool_nl_obj = {
	.id_attr = EDM_A_POOL_ID,
	.name_attr = EDM_A_POOL_NAME,
	.is = edm_pool_is,
	.not_msg = "not a pool",
	.fill = edm_pool_fill,
};

static int edm_pool_chk_new(struct genl_info *info, struct edm_mpool_cfg *cfg)
{
	struct nlattr **a = info->attrs;
	int err;

	err = edm_nl_require(info, EDM_A_POOL_NAME, "missing pool name") ?:
	      edm_nl_require(info, EDM_A_POOL_SIZE, "missing pool size") ?:
	      edm_nl_chk_name(info, EDM_A_POOL_NAME);
	if (err)
		return err;
	cfg->size = nla_get_u64(a[EDM_A_POOL_SIZE]);
	if (!IS_ALIGNED(cfg->size, EDM_POOL_SECTION_SIZE)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_POOL_SIZE],
				    "pool size must be a multiple of 2 MiB (a Section)");
		return -EINVAL;
	}
	cfg->nid = NUMA_NO_NODE;
	if (a[EDM_A_POOL_NUMA_NODE])
		cfg->nid = nla_get_u32(a[EDM_A_POOL_NUMA_NODE]);
	if (a[EDM_A_POOL_DEV]) {
		cfg->dev = nla_data(a[EDM_A_POOL_DEV]);
		if (!edm_memprov_is_path(cfg->dev)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_POOL_DEV],
					    "dev is a pmem or DAX device's path, e.g. /dev/pmem0");
			return -EINVAL;
		}
	}
	if (a[EDM_A_POOL_REGION_SECTIONS])
		cfg->region_sections = nla_get_u32(a[EDM_A_POOL_REGION_SECTIONS]);
	cfg->keep = EDM_POOL_DEFAULT_KEEP;
	if (a[EDM_A_POOL_KEEP])
		cfg->keep = nla_get_u32(a[EDM_A_POOL_KEEP]);
	if (a[EDM_A_POOL_NODE_QUOTA])
		cfg->node_quota = nla_get_u32(a[EDM_A_POOL_NODE_QUOTA]);
	return 0;
}

static int edm_nl_pool_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_mpool_cfg cfg = {};
	struct edm_dev *dev;
	int err;

	err = edm_pool_chk_new(info, &cfg);
	if (err)
		return err;
	dev = edm_dev_create(edm_nl_en(info), nla_data(info->attrs[EDM_A_POOL_NAME]),
			     EDM_DEV_TYPE_POOL, &cfg, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return edm_nl_created(info, dev);
}

static int edm_nl_pool_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);

	if (edm_mpool_of(dev)->users) {
		NL_SET_ERR_MSG(info->extack, "the pool is in use by a rack: delete the rack first");
		return -EBUSY;
	}
	if (!xa_empty(&edm_mpool_of(dev)->regions)) {
		NL_SET_ERR_MSG(info->extack, "the pool has regions: delete them first");
		return -EBUSY;
	}
	return edm_nl_deleted(info, dev);
}

static int edm_nl_pool_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);
	struct edm_mpool *p = edm_mpool_of(dev);
	struct nlattr **a = info->attrs;
	struct edm_mpool_info pi;
	u32 keep, quota;

	edm_mpool_info(p, &pi);
	keep = a[EDM_A_POOL_KEEP] ? nla_get_u32(a[EDM_A_POOL_KEEP]) : pi.keep;
	quota = a[EDM_A_POOL_NODE_QUOTA] ? nla_get_u32(a[EDM_A_POOL_NODE_QUOTA]) : pi.node_quota;
	if (edm_mpool_set(p, keep, quota))
		edm_nl_dev_notify(dev, EDM_CMD_POOL_SET, edm_pool_fill);
	return 0;
}

static const struct genl_ops edm_pool_genl_ops[] = {
	{
		.cmd = EDM_CMD_POOL_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_pool_sel_policy,
		.maxattr = EDM_A_POOL_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_POOL),
	},
	{
		.cmd = EDM_CMD_POOL_NEW,
		.doit = edm_nl_pool_new_doit,
		.policy = edm_pool_new_policy,
		.maxattr = EDM_A_POOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_POOL),
	},
	{
		.cmd = EDM_CMD_POOL_DEL,
		.doit = edm_nl_pool_del_doit,
		.policy = edm_pool_sel_policy,
		.maxattr = EDM_A_POOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_POOL),
	},
	{
		.cmd = EDM_CMD_POOL_SET,
		.doit = edm_nl_pool_set_doit,
		.policy = edm_pool_set_policy,
		.maxattr = EDM_A_POOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_POOL),
	},
};

const struct edm_nl_ops edm_pool_nl_ops = {
	.ops = edm_pool_genl_ops,
	.n_ops = ARRAY_SIZE(edm_pool_genl_ops),
};

/* For racks: the pool named @name in @en, NULL if there is none. Registry lock held. */
struct edm_mpool *edm_pool_find_name(struct edm_net *en, const char *name)
{
	struct edm_dev *dev;
	unsigned long id;

	lockdep_assert_held(&en->lock);
	xa_for_each(&en->devs, id, dev)
		if (dev->type == EDM_DEV_TYPE_POOL && !strcmp(dev->name, name))
			return edm_mpool_of(dev);
	return NULL;
}
