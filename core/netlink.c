// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "edm": its command table, joined at init from
 * the subsystems' own tables, the version command, the shared pre_doit and
 * post_doit (registry lock and lookup of the named device, from each
 * command's internal_flags), the shared GET and dump of a device of a kind,
 * and the helpers every command uses.
 *
 * Policies are per command (ethtool style), each over that message's own
 * attribute space, and strict: resv_start_op stays 0, unknown and
 * reply-only attributes are rejected with a message. Mutating commands
 * carry GENL_ADMIN_PERM, checked against the caller's netns. Handlers run
 * serialized under genl_mutex; a command flagged EDM_NL_LOCK also holds
 * RTNL and then its netns's registry lock (en->lock) from pre_doit to
 * post_doit. RTNL comes first everywhere (here, in `ip link` and in a
 * netns's exit), so a device kind's rtnl_link_ops and ethtool_ops may take
 * the registry lock and our handlers may make and unmake netdevs.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/utsname.h>

#include <net/sock.h>

#include "edm/compat.h"
#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/name.h"
#include "edm/netlink.h"

void edm_nl_notify(struct net *net, struct sk_buff *skb)
{
	genlmsg_multicast_netns(&edm_genl_family, net, skb, 0, EDM_MCGRP_EVENTS_IDX, GFP_KERNEL);
}

/* The header of a reply to @info, or of an event when @info is NULL; NULL if no room. */
void *edm_nl_put_hdr(struct sk_buff *msg, struct genl_info *info, u8 cmd)
{
	if (info)
		return genlmsg_put_reply(msg, info, &edm_genl_family, 0, cmd);
	return genlmsg_put(msg, 0, 0, &edm_genl_family, 0, cmd);
}

/*
 * edm_nl_msg_new() - a new message of @cmd with room for @size bytes, a reply
 * to @info or an event; its header in *@hdr. NULL when out of memory. The
 * caller fills it and hands the result to edm_nl_msg_end().
 */
struct sk_buff *edm_nl_msg_new(struct genl_info *info, u8 cmd, size_t size, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = edm_nl_put_hdr(msg, info, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Ends @msg if filling it went well (@err 0) and returns it; else frees it: NULL. */
struct sk_buff *edm_nl_msg_end(struct sk_buff *msg, void *hdr, int err)
{
	if (err) {
		nlmsg_free(msg);
		return NULL;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

/*
 * A reply (with @info) or event (without) message of command @cmd about
 * @dev, its attributes put by @fill; NULL on allocation failure.
 */
struct sk_buff *edm_nl_dev_msg(const struct edm_dev *dev, struct genl_info *info, u8 cmd,
			       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev))
{
	struct sk_buff *msg;
	void *hdr;

	msg = edm_nl_msg_new(info, cmd, NLMSG_DEFAULT_SIZE, &hdr);
	return msg ? edm_nl_msg_end(msg, hdr, fill(msg, dev)) : NULL;
}

void edm_nl_dev_notify(const struct edm_dev *dev, u8 cmd,
		       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev))
{
	struct sk_buff *msg = edm_nl_dev_msg(dev, NULL, cmd, fill);

	if (msg)
		edm_nl_notify(dev->net, msg);
}

/* The kinds of device, by enum edm_nl_obj_id; NULL where a kind is not built in. */
static const struct edm_nl_obj *const edm_nl_objs[__EDM_NL_OBJ_CNT] = {
	[EDM_NL_OBJ_DEV] = &edm_dev_nl_obj,
#if IS_ENABLED(CONFIG_EDM_NETDIMM)
	[EDM_NL_OBJ_NETDIMM] = &edm_netdimm_nl_obj,
#endif
#if IS_ENABLED(CONFIG_EDM_FABRIC)
	[EDM_NL_OBJ_FABRIC] = &edm_fab_nl_obj,
#endif
#if IS_ENABLED(CONFIG_EDM_DFABRIC)
	[EDM_NL_OBJ_POOL] = &edm_pool_nl_obj,
	[EDM_NL_OBJ_RACK] = &edm_rack_nl_obj,
	[EDM_NL_OBJ_NICPOOL] = &edm_nicpool_nl_obj,
	[EDM_NL_OBJ_SHPOOL] = &edm_shpool_nl_obj,
#endif
};

static const struct edm_nl_obj *edm_nl_obj_of(u8 internal_flags)
{
	return edm_nl_objs[internal_flags & EDM_NL_OBJ_MASK];
}

/* Like NL_SET_ERR_MSG_ATTR, for a message that is not a literal at the call. */
static void edm_nl_set_err(struct netlink_ext_ack *extack, const struct nlattr *attr,
			   const char *msg)
{
	if (!extack)
		return;
	do_trace_netlink_extack(msg);
	extack->_msg = msg;
	extack->bad_attr = attr;
}

struct edm_dev *edm_nl_find(struct genl_info *info, const struct edm_nl_obj *obj)
{
	struct nlattr *id = info->attrs[obj->id_attr], *name = info->attrs[obj->name_attr];
	struct edm_dev *dev = edm_dev_find(edm_nl_en(info), id, name, info->extack);

	if (!IS_ERR(dev) && obj->is && !obj->is(dev)) {
		edm_nl_set_err(info->extack, id ?: name, obj->not_msg);
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

static int edm_nl_pre_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
			   struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	const struct edm_nl_obj *obj = edm_nl_obj_of(ops->internal_flags);
	struct edm_dev *dev;

	info->user_ptr[0] = (void *)obj;	/* for edm_nl_info_obj() */
	info->user_ptr[1] = NULL;
	if (!(ops->internal_flags & EDM_NL_LOCK))
		return 0;
	rtnl_lock();
	mutex_lock(&en->lock);
	if (!(ops->internal_flags & EDM_NL_DO_FIND))
		return 0;
	dev = edm_nl_find(info, obj);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		rtnl_unlock();
		return PTR_ERR(dev);
	}
	info->user_ptr[1] = dev;
	return 0;
}

static void edm_nl_post_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
			     struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);

	if (ops->internal_flags & EDM_NL_LOCK) {
		mutex_unlock(&en->lock);
		rtnl_unlock();	/* netdevs unregistered meanwhile are freed here */
	}
}

/* The kind of device the command of @info addresses, as pre_doit found it. */
static const struct edm_nl_obj *edm_nl_info_obj(struct genl_info *info)
{
	return info->user_ptr[0];
}

int edm_nl_obj_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct edm_nl_obj *obj = edm_nl_info_obj(info);
	struct sk_buff *msg;

	lockdep_assert_held(&edm_nl_en(info)->lock);
	msg = edm_nl_dev_msg(edm_nl_dev(info), info, info->genlhdr->cmd, obj->fill);
	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

static bool edm_nl_obj_match(const struct edm_nl_obj *obj, const struct edm_dev *dev,
			     struct nlattr **attrs)
{
	if (obj->is && !obj->is(dev))
		return false;
	if (attrs[obj->id_attr] && nla_get_u32(attrs[obj->id_attr]) != dev->id)
		return false;
	if (attrs[obj->name_attr] && strcmp(nla_data(attrs[obj->name_attr]), dev->name))
		return false;
	return true;
}

void *edm_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				&edm_genl_family, NLM_F_MULTI, cmd);

	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

int edm_nl_dump_end(struct sk_buff *skb, void *hdr, int err)
{
	if (err) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int edm_nl_dump_done(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;	/* full: the next call goes on */
	return err ?: skb->len;
}

int edm_nl_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
		     int (*one)(struct sk_buff *skb, struct netlink_callback *cb,
				struct edm_dev *dev))
{
	struct edm_net *en = edm_net(sock_net(skb->sk));
	struct edm_dev *dev;
	unsigned long id;
	int err = 0;

	mutex_lock(&en->lock);
	cb->seq = en->gen;
	xa_for_each_start(&en->devs, id, dev, cb->args[0]) {
		if (id != cb->args[0])
			cb->args[1] = 0;	/* a device not begun: from its start */
		cb->args[0] = id;
		err = one(skb, cb, dev);
		if (err)
			break;
		cb->args[0] = id + 1;
	}
	mutex_unlock(&en->lock);
	return edm_nl_dump_done(skb, err);
}

/* One message for @dev if it is of the command's kind and the request selects it. */
static int edm_nl_obj_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			       struct edm_dev *dev)
{
	const struct genl_dumpit_info *di = genl_dumpit_info(cb);
	const struct edm_nl_obj *obj = edm_nl_obj_of(di->op.internal_flags);
	void *hdr;

	if (!edm_nl_obj_match(obj, dev, edm_genl_dump_attrs(cb)))
		return 0;
	hdr = edm_nl_dump_hdr(skb, cb, di->op.cmd);
	return hdr ? edm_nl_dump_end(skb, hdr, obj->fill(skb, dev)) : -EMSGSIZE;
}

/* The devices of the command's kind that the request's ID or name (if any) select. */
int edm_nl_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return edm_nl_dump_devs(skb, cb, edm_nl_obj_dump_dev);
}

int edm_nl_chk_name(struct genl_info *info, int attr)
{
	const char *name = nla_data(info->attrs[attr]);

	if (!edm_name_valid(name, strlen(name), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr], EDM_NL_NAME_INVALID);
		return -EINVAL;
	}
	return 0;
}

int edm_nl_created(struct genl_info *info, struct edm_dev *dev)
{
	const struct edm_nl_obj *obj = edm_nl_info_obj(info);
	u8 cmd = info->genlhdr->cmd;
	struct sk_buff *reply;

	lockdep_assert_held(&edm_nl_en(info)->lock);
	reply = edm_nl_dev_msg(dev, info, cmd, obj->fill);
	if (!reply) {
		edm_dev_destroy(edm_nl_en(info), dev);
		return -ENOMEM;
	}
	edm_nl_dev_notify(dev, cmd, obj->fill);
	return genlmsg_reply(reply, info);
}

void edm_nl_dev_destroy_notify(struct edm_net *en, struct edm_dev *dev, struct list_head *kill,
			       const struct edm_nl_obj *obj, u8 cmd)
{
	struct sk_buff *event;

	lockdep_assert_held(&en->lock);
	event = edm_nl_dev_msg(dev, NULL, cmd, obj->fill);
	edm_dev_destroy_queued(en, dev, kill);
	if (event)
		edm_nl_notify(en->net, event);
}

int edm_nl_deleted(struct genl_info *info, struct edm_dev *dev)
{
	edm_nl_dev_destroy_notify(edm_nl_en(info), dev, NULL, edm_nl_info_obj(info),
				  info->genlhdr->cmd);
	return 0;
}

static const struct nla_policy edm_version_policy[EDM_A_INFO_MAX + 1] = {
	EDM_REPLY_ONLY(EDM_A_INFO_VERSION),
	EDM_REPLY_ONLY(EDM_A_INFO_ABI_VERSION),
	EDM_REPLY_ONLY(EDM_A_INFO_KERNEL_RELEASE),
	EDM_REPLY_ONLY(EDM_A_INFO_DEV_COUNT),
};

static int edm_nl_version_fill(struct sk_buff *msg, struct net *net)
{
	struct edm_net *en = edm_net(net);
	u32 ndevs;

	mutex_lock(&en->lock);
	ndevs = en->ndevs;
	mutex_unlock(&en->lock);

	if (nla_put_string(msg, EDM_A_INFO_VERSION, EDM_VERSION) ||
	    nla_put_u32(msg, EDM_A_INFO_ABI_VERSION, EDM_GENL_VERSION) ||
	    nla_put_string(msg, EDM_A_INFO_KERNEL_RELEASE, init_utsname()->release) ||
	    nla_put_u32(msg, EDM_A_INFO_DEV_COUNT, ndevs))
		return -EMSGSIZE;
	return 0;
}

static int edm_nl_version_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &edm_genl_family, 0, EDM_CMD_VERSION_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}
	err = edm_nl_version_fill(msg, genl_info_net(info));
	if (err)
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static const struct genl_ops edm_core_genl_ops[] = {
	{
		.cmd = EDM_CMD_VERSION_GET,
		.doit = edm_nl_version_doit,
		.policy = edm_version_policy,
		.maxattr = EDM_A_INFO_MAX,
	},
};

static const struct edm_nl_ops edm_core_nl_ops = {
	.ops = edm_core_genl_ops,
	.n_ops = ARRAY_SIZE(edm_core_genl_ops),
};

/*
 * The subsystems' commands, in the family's table in this order. A command
 * of a subsystem left out of the build is not in the family: a request of
 * it fails with EOPNOTSUPP, as any unknown command.
 */
static const struct edm_nl_ops *const edm_nl_parts[] = {
	&edm_core_nl_ops,
	&edm_dev_nl_ops,
#if IS_ENABLED(CONFIG_EDM_NETDIMM)
	&edm_netdimm_nl_ops,
#endif
#if IS_ENABLED(CONFIG_EDM_FABRIC)
	&edm_fab_nl_ops,
	&edm_flink_nl_ops,
#endif
#if IS_ENABLED(CONFIG_EDM_DFABRIC)
	&edm_pool_nl_ops,
	&edm_rack_nl_ops,
	&edm_nicpool_nl_ops,
	&edm_shpool_nl_ops,
#endif
#if IS_ENABLED(CONFIG_EDM_COWBIRD)
	&edm_region_nl_ops,
	&edm_cowbird_nl_ops,
#endif
};

static const struct genl_multicast_group edm_genl_mcgrps[] = {
	[EDM_MCGRP_EVENTS_IDX] = { .name = EDM_MCGRP_EVENTS },
};

struct genl_family edm_genl_family __ro_after_init = {
	.name = EDM_GENL_NAME,
	.version = EDM_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.pre_doit = edm_nl_pre_doit,
	.post_doit = edm_nl_post_doit,
	.mcgrps = edm_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(edm_genl_mcgrps),
};

/* Joins the subsystems' tables into the family's, which is theirs until exit. */
int edm_genl_init(void)
{
	struct genl_ops *ops, *op;
	unsigned int i, n = 0;
	int err;

	for (i = 0; i < ARRAY_SIZE(edm_nl_parts); i++)
		n += edm_nl_parts[i]->n_ops;
	ops = kcalloc(n, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0, op = ops; i < ARRAY_SIZE(edm_nl_parts); i++) {
		memcpy(op, edm_nl_parts[i]->ops, edm_nl_parts[i]->n_ops * sizeof(*op));
		op += edm_nl_parts[i]->n_ops;
	}
	edm_genl_family.ops = ops;
	edm_genl_family.n_ops = n;
	err = genl_register_family(&edm_genl_family);
	if (err)
		kfree(ops);
	return err;
}

void edm_genl_exit(void)
{
	genl_unregister_family(&edm_genl_family);
	kfree(edm_genl_family.ops);
}

MODULE_ALIAS_GENL_FAMILY(EDM_GENL_NAME);
