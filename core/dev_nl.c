// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on devices: DEV_GET (do and dump), DEV_NEW, DEV_DEL, and
 * the events they send. Each handler runs under its netns's registry lock,
 * taken by the family's pre_doit (EDM_NL_LOCK), and a request either fully
 * happens or leaves nothing behind: a creation whose reply cannot be built
 * is undone.
 */
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/netlink.h"

/* DEV_GET and DEV_DEL select a device by ID or by name. */
static const struct nla_policy edm_dev_sel_policy[EDM_A_DEV_MAX + 1] = {
	[EDM_A_DEV_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_DEV_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_DEV_TYPE),
};

static const struct nla_policy edm_dev_new_policy[EDM_A_DEV_MAX + 1] = {
	[EDM_A_DEV_ID] = { .type = NLA_REJECT,
			   .reject_message = "device IDs are assigned by the kernel" },
	[EDM_A_DEV_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_DEV_TYPE] = NLA_POLICY_RANGE(NLA_U32, EDM_DEV_TYPE_NULL, EDM_DEV_TYPE_MAX),
};

static int edm_dev_fill_attrs(struct sk_buff *msg, const struct edm_dev *dev)
{
	if (nla_put_u32(msg, EDM_A_DEV_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_DEV_NAME, dev->name) ||
	    nla_put_u32(msg, EDM_A_DEV_TYPE, dev->type))
		return -EMSGSIZE;
	return 0;
}

static struct sk_buff *edm_dev_msg(const struct edm_dev *dev, struct genl_info *info, u8 cmd)
{
	return edm_nl_dev_msg(dev, info, cmd, edm_dev_fill_attrs);
}

const struct edm_nl_obj edm_dev_nl_obj = {
	.id_attr = EDM_A_DEV_ID,
	.name_attr = EDM_A_DEV_NAME,
	.fill = edm_dev_fill_attrs,
};

static int edm_dev_chk_new(struct genl_info *info)
{
	int err;

	err = edm_nl_require(info, EDM_A_DEV_NAME, "missing device name");
	if (err)
		return err;
	err = edm_nl_require(info, EDM_A_DEV_TYPE, "missing device type");
	if (err)
		return err;
	return edm_nl_chk_name(info, EDM_A_DEV_NAME);
}

static int edm_nl_dev_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev;
	int err;

	err = edm_dev_chk_new(info);
	if (err)
		return err;
	dev = edm_dev_create(edm_nl_en(info), nla_data(info->attrs[EDM_A_DEV_NAME]),
			     nla_get_u32(info->attrs[EDM_A_DEV_TYPE]), NULL, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return edm_nl_created(info, dev);
}

static int edm_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);
	struct sk_buff *peer_event = NULL;

	if (dev->peer)	/* a pair goes together */
		peer_event = edm_dev_msg(dev->peer, NULL, EDM_CMD_DEV_DEL);
	edm_nl_deleted(info, dev);
	if (peer_event)
		edm_nl_notify(genl_info_net(info), peer_event);
	return 0;
}

static const struct genl_ops edm_dev_genl_ops[] = {
	{
		.cmd = EDM_CMD_DEV_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_dev_sel_policy,
		.maxattr = EDM_A_DEV_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_DEV),
	},
	{
		.cmd = EDM_CMD_DEV_NEW,
		.doit = edm_nl_dev_new_doit,
		.policy = edm_dev_new_policy,
		.maxattr = EDM_A_DEV_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_DEV),
	},
	{
		.cmd = EDM_CMD_DEV_DEL,
		.doit = edm_nl_dev_del_doit,
		.policy = edm_dev_sel_policy,
		.maxattr = EDM_A_DEV_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_DEV),
	},
};

const struct edm_nl_ops edm_dev_nl_ops = {
	.ops = edm_dev_genl_ops,
	.n_ops = ARRAY_SIZE(edm_dev_genl_ops),
};
