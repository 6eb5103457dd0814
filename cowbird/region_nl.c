// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on memory regions, what a Cowbird instance binds to:
 * REGION_GET (do and dump), REGION_REKEY, and REGION_NEW and REGION_DEL
 * for pool regions. A region is found among the devices of the caller's
 * netns: the local region of a fabric memory host (EDM_REGION_KIND_FABRIC,
 * its ID the host's fabric address, its owner the host), or a pool's
 * (EDM_REGION_KIND_POOL, IDs from EDM_REGION_POOL_ID_MIN, unique in the
 * netns, its owner the pool). Several fabrics in one netns may reuse an
 * address, so a request names a region by ID, by owner or by both, and an
 * ID that names several is refused. A region that is not there is ENODEV,
 * as every unknown object of the family.
 *
 * Keys are secrets. A GET reply carries EDM_A_REGION_KEY only when the
 * requester has CAP_NET_ADMIN over the netns (netlink_net_capable() on the
 * request), a REKEY reply always (the command needs admin), an event never.
 *
 * Locking: each handler runs under its netns's registry lock, taken by the
 * family's pre_doit (EDM_NL_LOCK), around lookup, change and the messages
 * it builds; a region's own fields are read and changed under its host's
 * node->lock (fabric/region.c) or its own lock (dfabric/pool_region.c). A
 * change either happens with its reply and event built, or not at all: the
 * messages are allocated first.
 */
#include <net/sock.h>

#include "edm/compat.h"
#include "edm/dev.h"
#include "edm/fabric.h"
#include "edm/netlink.h"
#include "edm/pool.h"
#include "edm/region.h"

/* Not const: the 6.1 API. */
static struct netlink_range_validation edm_region_id_range = {
	.max = U16_MAX,
};

/* REGION_GET and REGION_REKEY select a region by ID, owner, or both. */
static const struct nla_policy edm_region_sel_policy[EDM_A_REGION_MAX + 1] = {
	[EDM_A_REGION_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_region_id_range),
	EDM_REPLY_ONLY(EDM_A_REGION_KIND),
	[EDM_A_REGION_OWNER] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_REGION_SIZE),
	EDM_REPLY_ONLY(EDM_A_REGION_KEY),
	EDM_REPLY_ONLY(EDM_A_REGION_KEY_GEN),
	EDM_REPLY_ONLY(EDM_A_REGION_STATS),
};

/*
 * REGION_NEW: a pool region, in the pool OWNER, of SIZE bytes, maybe at ID.
 * The policy of an attribute is one per attribute set (the spec's), so the
 * pool's ID range and the size's bounds are checked by the handler.
 */
static const struct nla_policy edm_region_new_policy[EDM_A_REGION_MAX + 1] = {
	[EDM_A_REGION_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_region_id_range),
	EDM_REPLY_ONLY(EDM_A_REGION_KIND),
	[EDM_A_REGION_OWNER] = EDM_NL_NAME_POLICY,
	[EDM_A_REGION_SIZE] = { .type = NLA_U64 },
	EDM_REPLY_ONLY(EDM_A_REGION_KEY),
	EDM_REPLY_ONLY(EDM_A_REGION_KEY_GEN),
	EDM_REPLY_ONLY(EDM_A_REGION_STATS),
};

/* A region as seen under the registry lock: its owner and a snapshot. */
struct edm_region {
	const struct edm_dev *owner;
	u32 kind;			/* enum edm_region_kind */
	struct edm_pool_region *preg;	/* a pool region, else NULL */
	struct edm_region_info ri;
};

/*
 * Under the registry lock: @dev's first region at index *@sub or past it,
 * into @r, and *@sub its index (a pool's region: its ID; a host has one,
 * index 0). False when there is none.
 */
static bool edm_region_at(const struct edm_dev *dev, unsigned long *sub, struct edm_region *r)
{
	struct edm_fab_node *n;

	lockdep_assert_held(&edm_net(dev->net)->lock);
	r->owner = dev;
	r->preg = NULL;
	if (dev->type == EDM_DEV_TYPE_POOL) {
		r->preg = edm_pool_region_next(edm_mpool_of(dev), sub);
		if (!r->preg)
			return false;
		r->kind = EDM_REGION_KIND_POOL;
		edm_pool_region_info(r->preg, &r->ri);
		return true;
	}
	n = edm_fab_node_of(dev);
	r->kind = EDM_REGION_KIND_FABRIC;
	return !*sub && n && edm_fab_node_is_host(n) && !edm_fab_host_region_info(n, &r->ri);
}

/* Under the registry lock: @r again, after a change. */
static void edm_region_refresh(struct edm_region *r)
{
	if (r->preg)
		edm_pool_region_info(r->preg, &r->ri);
	else
		WARN_ON_ONCE(edm_fab_host_region_info(edm_fab_node_of(r->owner), &r->ri));
}

/* Does @r fit the ID and owner of a request (either may be absent)? */
static bool edm_region_match(const struct edm_region *r, struct nlattr **attrs)
{
	struct nlattr *id = attrs[EDM_A_REGION_ID], *owner = attrs[EDM_A_REGION_OWNER];

	if (id && nla_get_u32(id) != r->ri.addr)
		return false;
	if (owner && strcmp(nla_data(owner), r->owner->name))
		return false;
	return true;
}

static int edm_region_not_found(struct genl_info *info)
{
	struct nlattr *id = info->attrs[EDM_A_REGION_ID];
	struct nlattr *owner = info->attrs[EDM_A_REGION_OWNER];

	if (id && owner)
		NL_SET_ERR_MSG_ATTR(info->extack, owner, "no region with this id and owner");
	else if (id)
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no region with this id");
	else
		NL_SET_ERR_MSG_ATTR(info->extack, owner, "this device owns no region");
	return -ENODEV;
}

/* Under the registry lock: the one region @info names, into @r. */
static int edm_region_find(struct edm_net *en, struct genl_info *info, struct edm_region *r)
{
	struct nlattr *id = info->attrs[EDM_A_REGION_ID];
	struct edm_region cur;
	struct edm_dev *dev;
	unsigned long i, sub;
	bool found = false;

	lockdep_assert_held(&en->lock);
	if (!id && !info->attrs[EDM_A_REGION_OWNER]) {
		NL_SET_ERR_MSG(info->extack, "missing region: give its id or its owner");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, EDM_A_REGION_ID);
		return -EINVAL;
	}
	xa_for_each(&en->devs, i, dev) {
		for (sub = 0; edm_region_at(dev, &sub, &cur); sub++) {
			if (!edm_region_match(&cur, info->attrs))
				continue;
			if (found && id) {
				/* an ID alone: owner and ID name one region */
				NL_SET_ERR_MSG_ATTR(info->extack, id,
						    "several regions have this id: name the owner too");
				return -EINVAL;
			}
			if (found) {
				/* an owner alone: a pool with several regions */
				NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[EDM_A_REGION_OWNER],
						    "the owner has several regions: name the id too");
				return -EINVAL;
			}
			*r = cur;
			found = true;
		}
	}
	return found ? 0 : edm_region_not_found(info);
}

static int edm_region_put_stats(struct sk_buff *msg, const struct edm_region_info *ri)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_REGION_STATS);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = EDM_A_RSTAT_PAD + 1; i <= EDM_A_RSTAT_MAX; i++)
		if (nla_put_u64_64bit(msg, i, ri->stats[i], EDM_A_RSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* The region's attributes; its key only if @key. */
static int edm_region_fill(struct sk_buff *msg, const struct edm_region *r, bool key)
{
	const struct edm_region_info *ri = &r->ri;

	if (nla_put_u32(msg, EDM_A_REGION_ID, ri->addr) ||
	    nla_put_u32(msg, EDM_A_REGION_KIND, r->kind) ||
	    nla_put_string(msg, EDM_A_REGION_OWNER, r->owner->name) ||
	    nla_put_u64_64bit(msg, EDM_A_REGION_SIZE, ri->size, EDM_A_REGION_PAD) ||
	    nla_put_u32(msg, EDM_A_REGION_KEY_GEN, ri->key_gen) ||
	    (key && nla_put_u64_64bit(msg, EDM_A_REGION_KEY, ri->key, EDM_A_REGION_PAD)) ||
	    edm_region_put_stats(msg, ri))
		return -EMSGSIZE;
	return 0;
}

/* Into @msg, empty: a reply to @info (or an event, without) about @r. */
static int edm_region_put(struct sk_buff *msg, const struct edm_region *r,
			  struct genl_info *info, u8 cmd, bool key)
{
	void *hdr = edm_nl_put_hdr(msg, info, cmd);

	if (!hdr || edm_region_fill(msg, r, key))
		return -EMSGSIZE;
	genlmsg_end(msg, hdr);
	return 0;
}

static int edm_nl_region_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool key = netlink_net_capable(skb, CAP_NET_ADMIN);
	struct edm_region r;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = edm_region_find(edm_nl_en(info), info, &r) ?:
	      edm_region_put(msg, &r, info, EDM_CMD_REGION_GET, key);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* The regions of @dev from index cb->args[1] on that the request's ID and owner fit. */
static int edm_region_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			       struct edm_dev *dev)
{
	bool key = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	struct nlattr **attrs = edm_genl_dump_attrs(cb);
	struct edm_region r;
	unsigned long sub;

	for (sub = cb->args[1]; edm_region_at(dev, &sub, &r); sub++) {
		void *hdr;

		if (!edm_region_match(&r, attrs))
			continue;
		hdr = edm_nl_dump_hdr(skb, cb, EDM_CMD_REGION_GET);
		if (!hdr || edm_nl_dump_end(skb, hdr, edm_region_fill(skb, &r, key))) {
			cb->args[1] = sub;
			return -EMSGSIZE;
		}
	}
	cb->args[1] = 0;
	return 0;
}

/*
 * Every region of the netns that the request's ID and owner (if any) fit,
 * by device and region index in it; the registry generation flags a dump
 * that spans a change.
 */
static int edm_nl_region_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return edm_nl_dump_devs(skb, cb, edm_region_dump_dev);
}

/*
 * A new key for the region, in the reply; the event says the region was
 * rekeyed (its new key_gen) and nothing of the key.
 */
static int edm_nl_region_rekey_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct sk_buff *reply, *event;
	struct edm_region r;
	int err;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	event = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply || !event) {
		err = -ENOMEM;
		goto err_free;
	}
	err = edm_region_find(en, info, &r);
	if (err)
		goto err_free;
	/* Neither can fail: the region is alive under the registry lock. */
	if (r.preg)
		edm_pool_region_rekey(r.preg);
	else
		err = edm_fab_host_rekey(edm_fab_node_of(r.owner));
	if (err)
		goto err_free;
	edm_region_refresh(&r);
	err = edm_region_put(reply, &r, info, EDM_CMD_REGION_REKEY, true) ?:
	      edm_region_put(event, &r, NULL, EDM_CMD_REGION_REKEY, false);
	if (err)
		goto err_free;
	edm_nl_notify(genl_info_net(info), event);
	return genlmsg_reply(reply, info);

err_free:
	nlmsg_free(reply);
	nlmsg_free(event);
	return err ?: -ENODEV;
}

/* Under the registry lock: whether a pool region of the netns has @id. */
static bool edm_region_id_used(struct edm_net *en, u32 id)
{
	struct edm_dev *dev;
	unsigned long i;

	lockdep_assert_held(&en->lock);
	xa_for_each(&en->devs, i, dev)
		if (dev->type == EDM_DEV_TYPE_POOL && xa_load(&edm_mpool_of(dev)->regions, id))
			return true;
	return false;
}

/* Under the registry lock: the ID @info asks for, or the lowest free one. */
static int edm_region_new_id(struct edm_net *en, struct genl_info *info, u32 *id)
{
	struct nlattr *attr = info->attrs[EDM_A_REGION_ID];

	lockdep_assert_held(&en->lock);
	if (attr) {
		*id = nla_get_u32(attr);
		if (*id < EDM_REGION_POOL_ID_MIN) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "pool region ids are 512 and up: below are the fabric's");
			return -ERANGE;
		}
		if (!edm_region_id_used(en, *id))
			return 0;
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "a region of this netns has this id");
		return -EEXIST;
	}
	for (*id = EDM_REGION_POOL_ID_MIN; *id <= EDM_REGION_POOL_ID_MAX; (*id)++)
		if (!edm_region_id_used(en, *id))
			return 0;
	NL_SET_ERR_MSG(info->extack, "this netns has no region id left");
	return -ENOSPC;
}

/*
 * A pool region: whole Sections of the pool OWNER, SIZE bytes rounded up,
 * at ID or the lowest free one. The reply carries its key.
 */
static int edm_nl_region_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct nlattr *owner = info->attrs[EDM_A_REGION_OWNER];
	struct sk_buff *reply, *event;
	struct edm_region r = {};
	struct edm_dev *dev;
	u32 id;
	int err;

	err = edm_nl_require(info, EDM_A_REGION_OWNER, "missing owner: the pool to make it in") ?:
	      edm_nl_require(info, EDM_A_REGION_SIZE, "missing region size");
	if (err)
		return err;
	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	event = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply || !event) {
		err = -ENOMEM;
		goto err_free;
	}
	dev = edm_dev_find(en, NULL, owner, info->extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto err_free;
	}
	if (dev->type != EDM_DEV_TYPE_POOL) {
		NL_SET_ERR_MSG_ATTR(info->extack, owner, "regions are made in pools: not a pool");
		err = -EOPNOTSUPP;
		goto err_free;
	}
	err = edm_region_new_id(en, info, &id) ?:
	      edm_pool_region_create(edm_mpool_of(dev), id,
				     nla_get_u64(info->attrs[EDM_A_REGION_SIZE]), &r.preg,
				     info->extack);
	if (err)
		goto err_free;
	r.owner = dev;
	r.kind = EDM_REGION_KIND_POOL;
	edm_region_refresh(&r);
	en->gen++;
	err = edm_region_put(reply, &r, info, EDM_CMD_REGION_NEW, true) ?:
	      edm_region_put(event, &r, NULL, EDM_CMD_REGION_NEW, false);
	if (err) {
		edm_pool_region_delete(r.preg);
		goto err_free;
	}
	edm_nl_notify(genl_info_net(info), event);
	return genlmsg_reply(reply, info);

err_free:
	nlmsg_free(reply);
	nlmsg_free(event);
	return err;
}

/* A pool region goes: instances bound to it get EACCES from then on. */
static int edm_nl_region_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct sk_buff *event;
	struct edm_region r;
	int err;

	event = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!event)
		return -ENOMEM;
	err = edm_region_find(en, info, &r);
	if (!err && !r.preg) {
		NL_SET_ERR_MSG(info->extack,
			       "a fabric host's region goes with the host: delete the host");
		err = -EOPNOTSUPP;
	}
	err = err ?: edm_region_put(event, &r, NULL, EDM_CMD_REGION_DEL, false);
	if (err) {
		nlmsg_free(event);
		return err;
	}
	edm_pool_region_delete(r.preg);
	en->gen++;
	edm_nl_notify(genl_info_net(info), event);
	return 0;
}

static const struct genl_ops edm_region_genl_ops[] = {
	{
		.cmd = EDM_CMD_REGION_GET,
		.doit = edm_nl_region_get_doit,
		.dumpit = edm_nl_region_get_dumpit,
		.policy = edm_region_sel_policy,
		.maxattr = EDM_A_REGION_MAX,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_REGION_REKEY,
		.doit = edm_nl_region_rekey_doit,
		.policy = edm_region_sel_policy,
		.maxattr = EDM_A_REGION_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_REGION_NEW,
		.doit = edm_nl_region_new_doit,
		.policy = edm_region_new_policy,
		.maxattr = EDM_A_REGION_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_REGION_DEL,
		.doit = edm_nl_region_del_doit,
		.policy = edm_region_sel_policy,
		.maxattr = EDM_A_REGION_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
};

const struct edm_nl_ops edm_region_nl_ops = {
	.ops = edm_region_genl_ops,
	.n_ops = ARRAY_SIZE(edm_region_genl_ops),
};
