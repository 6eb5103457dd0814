// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on DFabric memory pools: POOL_NEW, POOL_GET (do and
 * dump, with the LPPU's counters), POOL_SET (keep, node quota) and
 * POOL_DEL, refused while a rack uses the pool. Each runs under its netns's
 * registry lock, as the device commands do; a creation whose reply cannot
 * be built is undone, a SET that changed nothing sends no event.
 */
#include <linux/sizes.h>
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/name.h"
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

#define EDM_POOL_NAME_POLICY { .type = NLA_NUL_STRING, .len = EDM_NAME_LEN - 1 }
#define EDM_POOL_FIXED(attr) \
	[attr] = { .type = NLA_REJECT, .reject_message = "fixed when the pool was created" }

const struct nla_policy edm_pool_new_policy[EDM_A_POOL_MAX + 1] = {
	[EDM_A_POOL_ID] = { .type = NLA_REJECT,
			    .reject_message = "device IDs are assigned by the kernel" },
	[EDM_A_POOL_NAME] = EDM_POOL_NAME_POLICY,
	[EDM_A_POOL_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U64, &edm_pool_size_range),
	[EDM_A_POOL_NUMA_NODE] = NLA_POLICY_MAX(NLA_U32, EDM_POOL_NUMA_MAX),
	[EDM_A_POOL_REGION_SECTIONS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_pool_region_range),
	[EDM_A_POOL_KEEP] = NLA_POLICY_MAX(NLA_U32, 64),
	[EDM_A_POOL_NODE_QUOTA] = { .type = NLA_U32 },
	EDM_REPLY_ONLY(EDM_A_POOL_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_REGIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_USERS),
	EDM_REPLY_ONLY(EDM_A_POOL_STATS),
};

/* POOL_GET and POOL_DEL select a pool by ID or by name. */
const struct nla_policy edm_pool_sel_policy[EDM_A_POOL_MAX + 1] = {
	[EDM_A_POOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_POOL_NAME] = EDM_POOL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_POOL_SIZE),
	EDM_REPLY_ONLY(EDM_A_POOL_NUMA_NODE),
	EDM_REPLY_ONLY(EDM_A_POOL_REGION_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_KEEP),
	EDM_REPLY_ONLY(EDM_A_POOL_NODE_QUOTA),
	EDM_REPLY_ONLY(EDM_A_POOL_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_REGIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_USERS),
	EDM_REPLY_ONLY(EDM_A_POOL_STATS),
};

const struct nla_policy edm_pool_set_policy[EDM_A_POOL_MAX + 1] = {
	[EDM_A_POOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_POOL_NAME] = EDM_POOL_NAME_POLICY,
	EDM_POOL_FIXED(EDM_A_POOL_SIZE),
	EDM_POOL_FIXED(EDM_A_POOL_NUMA_NODE),
	EDM_POOL_FIXED(EDM_A_POOL_REGION_SECTIONS),
	[EDM_A_POOL_KEEP] = NLA_POLICY_MAX(NLA_U32, 64),
	[EDM_A_POOL_NODE_QUOTA] = { .type = NLA_U32 },
	EDM_REPLY_ONLY(EDM_A_POOL_SECTIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_REGIONS),
	EDM_REPLY_ONLY(EDM_A_POOL_USERS),
	EDM_REPLY_ONLY(EDM_A_POOL_STATS),
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
	    edm_pool_put_stats(msg, &pi))
		return -EMSGSIZE;
	return 0;
}

/* A pool by ID or name: any other device is "not a pool". */
static struct edm_dev *edm_pool_find(struct edm_net *en, struct genl_info *info)
{
	struct nlattr *id = info->attrs[EDM_A_POOL_ID], *name = info->attrs[EDM_A_POOL_NAME];
	struct edm_dev *dev = edm_dev_find(en, id, name, info->extack);

	if (!IS_ERR(dev) && dev->type != EDM_DEV_TYPE_POOL) {
		NL_SET_ERR_MSG_ATTR(info->extack, id ?: name, "not a pool");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

int edm_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return edm_nl_dev_get_reply(info, EDM_CMD_POOL_GET, edm_pool_find, edm_pool_fill);
}

static bool edm_pool_dump_match(const struct edm_dev *dev, struct nlattr **attrs)
{
	if (dev->type != EDM_DEV_TYPE_POOL)
		return false;
	if (attrs[EDM_A_POOL_ID] && nla_get_u32(attrs[EDM_A_POOL_ID]) != dev->id)
		return false;
	if (attrs[EDM_A_POOL_NAME] && strcmp(nla_data(attrs[EDM_A_POOL_NAME]), dev->name))
		return false;
	return true;
}

int edm_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return edm_nl_dev_dump(skb, cb, EDM_CMD_POOL_GET, edm_pool_dump_match, edm_pool_fill);
}

static int edm_pool_chk_new(struct genl_info *info, struct edm_mpool_cfg *cfg)
{
	struct nlattr **a = info->attrs;
	const char *name;
	int err;

	err = edm_nl_require(info, EDM_A_POOL_NAME, "missing pool name") ?:
	      edm_nl_require(info, EDM_A_POOL_SIZE, "missing pool size");
	if (err)
		return err;
	name = nla_data(a[EDM_A_POOL_NAME]);
	if (!edm_name_valid(name, strlen(name), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_POOL_NAME], EDM_NL_NAME_INVALID);
		return -EINVAL;
	}
	cfg->size = nla_get_u64(a[EDM_A_POOL_SIZE]);
	if (!IS_ALIGNED(cfg->size, EDM_POOL_SECTION_SIZE)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_POOL_SIZE],
				    "pool size must be a multiple of 2 MiB (a Section)");
		return -EINVAL;
	}
	cfg->nid = NUMA_NO_NODE;
	if (a[EDM_A_POOL_NUMA_NODE])
		cfg->nid = nla_get_u32(a[EDM_A_POOL_NUMA_NODE]);
	if (a[EDM_A_POOL_REGION_SECTIONS])
		cfg->region_sections = nla_get_u32(a[EDM_A_POOL_REGION_SECTIONS]);
	cfg->keep = EDM_POOL_DEFAULT_KEEP;
	if (a[EDM_A_POOL_KEEP])
		cfg->keep = nla_get_u32(a[EDM_A_POOL_KEEP]);
	if (a[EDM_A_POOL_NODE_QUOTA])
		cfg->node_quota = nla_get_u32(a[EDM_A_POOL_NODE_QUOTA]);
	return 0;
}

int edm_nl_pool_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	struct edm_mpool_cfg cfg = {};
	struct sk_buff *reply;
	struct edm_dev *dev;
	int err;

	err = edm_pool_chk_new(info, &cfg);
	if (err)
		return err;
	mutex_lock(&en->lock);
	dev = edm_dev_create(en, nla_data(info->attrs[EDM_A_POOL_NAME]), EDM_DEV_TYPE_POOL,
			     EDM_BACKEND_UNSPEC, &cfg, info->extack);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		return PTR_ERR(dev);
	}
	reply = edm_nl_dev_msg(dev, info, EDM_CMD_POOL_NEW, edm_pool_fill);
	if (!reply) {
		edm_dev_destroy(en, dev);
		mutex_unlock(&en->lock);
		return -ENOMEM;
	}
	edm_nl_dev_notify(dev, EDM_CMD_POOL_NEW, edm_pool_fill);
	mutex_unlock(&en->lock);
	return genlmsg_reply(reply, info);
}

int edm_nl_pool_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	struct sk_buff *event;
	struct edm_dev *dev;

	mutex_lock(&en->lock);
	dev = edm_pool_find(en, info);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		return PTR_ERR(dev);
	}
	if (edm_mpool_of(dev)->users) {
		mutex_unlock(&en->lock);
		NL_SET_ERR_MSG(info->extack, "the pool is in use by a rack: delete the rack first");
		return -EBUSY;
	}
	if (!xa_empty(&edm_mpool_of(dev)->regions)) {
		mutex_unlock(&en->lock);
		NL_SET_ERR_MSG(info->extack, "the pool has regions: delete them first");
		return -EBUSY;
	}
	event = edm_nl_dev_msg(dev, NULL, EDM_CMD_POOL_DEL, edm_pool_fill);
	edm_dev_destroy(en, dev);
	mutex_unlock(&en->lock);
	if (event)
		edm_nl_notify(genl_info_net(info), event);
	return 0;
}

int edm_nl_pool_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	struct nlattr **a = info->attrs;
	struct edm_mpool_info pi;
	struct edm_mpool *p;
	struct edm_dev *dev;
	u32 keep, quota;

	mutex_lock(&en->lock);
	dev = edm_pool_find(en, info);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		return PTR_ERR(dev);
	}
	p = edm_mpool_of(dev);
	edm_mpool_info(p, &pi);
	keep = a[EDM_A_POOL_KEEP] ? nla_get_u32(a[EDM_A_POOL_KEEP]) : pi.keep;
	quota = a[EDM_A_POOL_NODE_QUOTA] ? nla_get_u32(a[EDM_A_POOL_NODE_QUOTA]) : pi.node_quota;
	if (edm_mpool_set(p, keep, quota))
		edm_nl_dev_notify(dev, EDM_CMD_POOL_SET, edm_pool_fill);
	mutex_unlock(&en->lock);
	return 0;
}

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
