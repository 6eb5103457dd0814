// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on devices: DEV_GET (do and dump), DEV_NEW, DEV_DEL, and
 * the events they send. Each handler takes its netns's registry lock around
 * lookup and change, and a request either fully happens or leaves nothing
 * behind: a creation whose reply cannot be built is undone.
 */
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/name.h"
#include "edm/netlink.h"

/* DEV_GET and DEV_DEL select a device by ID or by name. */
const struct nla_policy edm_dev_sel_policy[EDM_A_DEV_MAX + 1] = {
	[EDM_A_DEV_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = EDM_NAME_LEN - 1 },
	EDM_REPLY_ONLY(EDM_A_DEV_TYPE),
	EDM_REPLY_ONLY(EDM_A_DEV_BACKEND),
};

const struct nla_policy edm_dev_new_policy[EDM_A_DEV_MAX + 1] = {
	[EDM_A_DEV_ID] = { .type = NLA_REJECT,
			   .reject_message = "device IDs are assigned by the kernel" },
	[EDM_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = EDM_NAME_LEN - 1 },
	[EDM_A_DEV_TYPE] = NLA_POLICY_RANGE(NLA_U32, EDM_DEV_TYPE_NULL, EDM_DEV_TYPE_MAX),
	[EDM_A_DEV_BACKEND] = NLA_POLICY_RANGE(NLA_U32, EDM_BACKEND_SOFT, EDM_BACKEND_MAX),
};

static int edm_dev_fill_attrs(struct sk_buff *msg, const struct edm_dev *dev)
{
	if (nla_put_u32(msg, EDM_A_DEV_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_DEV_NAME, dev->name) ||
	    nla_put_u32(msg, EDM_A_DEV_TYPE, dev->type) ||
	    nla_put_u32(msg, EDM_A_DEV_BACKEND, dev->backend->id))
		return -EMSGSIZE;
	return 0;
}

static struct sk_buff *edm_dev_msg(const struct edm_dev *dev, struct genl_info *info, u8 cmd)
{
	return edm_nl_dev_msg(dev, info, cmd, edm_dev_fill_attrs);
}

static void edm_dev_notify(const struct edm_dev *dev, u8 cmd)
{
	edm_nl_dev_notify(dev, cmd, edm_dev_fill_attrs);
}

/* Any device by ID or name. */
static struct edm_dev *edm_dev_find_info(struct edm_net *en, struct genl_info *info)
{
	return edm_dev_find(en, info->attrs[EDM_A_DEV_ID], info->attrs[EDM_A_DEV_NAME],
			    info->extack);
}

int edm_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return edm_nl_dev_get_reply(info, EDM_CMD_DEV_GET, edm_dev_find_info, edm_dev_fill_attrs);
}

static bool edm_dev_dump_match(const struct edm_dev *dev, struct nlattr **attrs)
{
	if (attrs[EDM_A_DEV_ID] && nla_get_u32(attrs[EDM_A_DEV_ID]) != dev->id)
		return false;
	if (attrs[EDM_A_DEV_NAME] && strcmp(nla_data(attrs[EDM_A_DEV_NAME]), dev->name))
		return false;
	return true;
}

int edm_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return edm_nl_dev_dump(skb, cb, EDM_CMD_DEV_GET, edm_dev_dump_match, edm_dev_fill_attrs);
}

static int edm_dev_chk_new(struct genl_info *info)
{
	struct nlattr *name = info->attrs[EDM_A_DEV_NAME];
	int err;

	err = edm_nl_require(info, EDM_A_DEV_NAME, "missing device name");
	if (err)
		return err;
	err = edm_nl_require(info, EDM_A_DEV_TYPE, "missing device type");
	if (err)
		return err;
	if (!edm_name_valid(nla_data(name), strlen(nla_data(name)), EDM_NAME_LEN - 1)) {
		NL_SET_ERR_MSG_ATTR(info->extack, name,
				    "invalid name: use [A-Za-z0-9_.-], starting with a letter or digit");
		return -EINVAL;
	}
	return 0;
}

int edm_nl_dev_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	enum edm_backend backend = EDM_BACKEND_UNSPEC;
	struct sk_buff *reply;
	struct edm_dev *dev;
	int err;

	err = edm_dev_chk_new(info);
	if (err)
		return err;
	if (info->attrs[EDM_A_DEV_BACKEND])
		backend = nla_get_u32(info->attrs[EDM_A_DEV_BACKEND]);

	mutex_lock(&en->lock);
	dev = edm_dev_create(en, nla_data(info->attrs[EDM_A_DEV_NAME]),
			     nla_get_u32(info->attrs[EDM_A_DEV_TYPE]), backend, NULL, info->extack);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		return PTR_ERR(dev);
	}
	reply = edm_dev_msg(dev, info, EDM_CMD_DEV_NEW);
	if (!reply) {
		edm_dev_destroy(en, dev);
		mutex_unlock(&en->lock);
		return -ENOMEM;
	}
	edm_dev_notify(dev, EDM_CMD_DEV_NEW);
	mutex_unlock(&en->lock);
	return genlmsg_reply(reply, info);
}

int edm_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	struct sk_buff *event, *peer_event = NULL;
	struct edm_dev *dev;

	mutex_lock(&en->lock);
	dev = edm_dev_find(en, info->attrs[EDM_A_DEV_ID], info->attrs[EDM_A_DEV_NAME],
			   info->extack);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		return PTR_ERR(dev);
	}
	event = edm_dev_msg(dev, NULL, EDM_CMD_DEV_DEL);
	if (dev->peer)	/* a pair goes together */
		peer_event = edm_dev_msg(dev->peer, NULL, EDM_CMD_DEV_DEL);
	edm_dev_destroy(en, dev);
	mutex_unlock(&en->lock);
	if (event)
		edm_nl_notify(genl_info_net(info), event);
	if (peer_event)
		edm_nl_notify(genl_info_net(info), peer_event);
	return 0;
}
