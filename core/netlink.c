// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "edm": its command table, the version command
 * and the helpers every command uses.
 *
 * Policies are per command (ethtool style), each over that message's own
 * attribute space, and strict: resv_start_op stays 0, unknown and
 * reply-only attributes are rejected with a message. Mutating commands
 * carry GENL_ADMIN_PERM, checked against the caller's netns. Handlers run
 * serialized under genl_mutex.
 */
#include <linux/module.h>
#include <linux/utsname.h>

#include <net/sock.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/netlink.h"

void edm_nl_notify(struct net *net, struct sk_buff *skb)
{
	genlmsg_multicast_netns(&edm_genl_family, net, skb, 0, EDM_MCGRP_EVENTS_IDX, GFP_KERNEL);
}

/*
 * edm_nl_dev_dump() - a dump of the devices of the caller's netns that @match
 * accepts, each a @cmd message filled by @fill. It resumes at ID cb->args[0];
 * cb->seq carries the registry generation, so a dump that spans a change is
 * flagged NLM_F_DUMP_INTR.
 */
int edm_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		    bool (*match)(const struct edm_dev *dev, struct nlattr **attrs),
		    int (*fill)(struct sk_buff *msg, const struct edm_dev *dev))
{
	struct nlattr **attrs = genl_dumpit_info(cb)->attrs;
	struct edm_net *en = edm_net(sock_net(skb->sk));
	struct edm_dev *dev;
	unsigned long id;
	int err = 0;

	mutex_lock(&en->lock);
	cb->seq = en->gen;
	xa_for_each_start(&en->devs, id, dev, cb->args[0]) {
		void *hdr;

		if (!match(dev, attrs))
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &edm_genl_family, NLM_F_MULTI, cmd);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		if (fill(skb, dev)) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = id + 1;
	}
	mutex_unlock(&en->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
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

int edm_nl_dev_get_reply(struct genl_info *info, u8 cmd,
			 struct edm_dev *(*find)(struct edm_net *en, struct genl_info *info),
			 int (*fill)(struct sk_buff *msg, const struct edm_dev *dev))
{
	struct edm_net *en = edm_net(genl_info_net(info));
	struct sk_buff *msg;
	struct edm_dev *dev;

	mutex_lock(&en->lock);
	dev = find(en, info);
	if (IS_ERR(dev)) {
		mutex_unlock(&en->lock);
		return PTR_ERR(dev);
	}
	msg = edm_nl_dev_msg(dev, info, cmd, fill);
	mutex_unlock(&en->lock);
	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

void edm_nl_dev_notify(const struct edm_dev *dev, u8 cmd,
		       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev))
{
	struct sk_buff *msg = edm_nl_dev_msg(dev, NULL, cmd, fill);

	if (msg)
		edm_nl_notify(dev->net, msg);
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

static const struct genl_ops edm_genl_ops[] = {
	{
		.cmd = EDM_CMD_VERSION_GET,
		.doit = edm_nl_version_doit,
		.policy = edm_version_policy,
		.maxattr = EDM_A_INFO_MAX,
	},
	{
		.cmd = EDM_CMD_DEV_GET,
		.doit = edm_nl_dev_get_doit,
		.dumpit = edm_nl_dev_get_dumpit,
		.policy = edm_dev_sel_policy,
		.maxattr = EDM_A_DEV_MAX,
	},
	{
		.cmd = EDM_CMD_DEV_NEW,
		.doit = edm_nl_dev_new_doit,
		.policy = edm_dev_new_policy,
		.maxattr = EDM_A_DEV_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_DEV_DEL,
		.doit = edm_nl_dev_del_doit,
		.policy = edm_dev_sel_policy,
		.maxattr = EDM_A_DEV_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NETDIMM_GET,
		.doit = edm_nl_netdimm_get_doit,
		.dumpit = edm_nl_netdimm_get_dumpit,
		.policy = edm_netdimm_sel_policy,
		.maxattr = EDM_A_NETDIMM_MAX,
	},
	{
		.cmd = EDM_CMD_NETDIMM_NEW,
		.doit = edm_nl_netdimm_new_doit,
		.policy = edm_netdimm_new_policy,
		.maxattr = EDM_A_NETDIMM_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NETDIMM_DEL,
		.doit = edm_nl_netdimm_del_doit,
		.policy = edm_netdimm_sel_policy,
		.maxattr = EDM_A_NETDIMM_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_FABRIC_GET,
		.doit = edm_nl_fabric_get_doit,
		.dumpit = edm_nl_fabric_get_dumpit,
		.policy = edm_fab_sel_policy,
		.maxattr = EDM_A_FAB_MAX,
	},
	{
		.cmd = EDM_CMD_FABRIC_NEW,
		.doit = edm_nl_fabric_new_doit,
		.policy = edm_fab_new_policy,
		.maxattr = EDM_A_FAB_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_FABRIC_DEL,
		.doit = edm_nl_fabric_del_doit,
		.policy = edm_fab_sel_policy,
		.maxattr = EDM_A_FAB_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_FABRIC_SET,
		.doit = edm_nl_fabric_set_doit,
		.policy = edm_fab_set_policy,
		.maxattr = EDM_A_FAB_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_FLINK_GET,
		.doit = edm_nl_flink_get_doit,
		.dumpit = edm_nl_flink_get_dumpit,
		.policy = edm_flink_sel_policy,
		.maxattr = EDM_A_FLINK_MAX,
	},
	{
		.cmd = EDM_CMD_FLINK_NEW,
		.doit = edm_nl_flink_new_doit,
		.policy = edm_flink_new_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_FLINK_DEL,
		.doit = edm_nl_flink_del_doit,
		.policy = edm_flink_sel_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_FLINK_SET,
		.doit = edm_nl_flink_set_doit,
		.policy = edm_flink_set_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	/* EDM_CMD_FLINK_DOWN is an event only: no request takes it. */
	{
		.cmd = EDM_CMD_POOL_GET,
		.doit = edm_nl_pool_get_doit,
		.dumpit = edm_nl_pool_get_dumpit,
		.policy = edm_pool_sel_policy,
		.maxattr = EDM_A_POOL_MAX,
	},
	{
		.cmd = EDM_CMD_POOL_NEW,
		.doit = edm_nl_pool_new_doit,
		.policy = edm_pool_new_policy,
		.maxattr = EDM_A_POOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_POOL_DEL,
		.doit = edm_nl_pool_del_doit,
		.policy = edm_pool_sel_policy,
		.maxattr = EDM_A_POOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_POOL_SET,
		.doit = edm_nl_pool_set_doit,
		.policy = edm_pool_set_policy,
		.maxattr = EDM_A_POOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_RACK_GET,
		.doit = edm_nl_rack_get_doit,
		.dumpit = edm_nl_rack_get_dumpit,
		.policy = edm_rack_sel_policy,
		.maxattr = EDM_A_RACK_MAX,
	},
	{
		.cmd = EDM_CMD_RACK_NEW,
		.doit = edm_nl_rack_new_doit,
		.policy = edm_rack_new_policy,
		.maxattr = EDM_A_RACK_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_RACK_DEL,
		.doit = edm_nl_rack_del_doit,
		.policy = edm_rack_sel_policy,
		.maxattr = EDM_A_RACK_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_CN_GET,
		.doit = edm_nl_cn_get_doit,
		.dumpit = edm_nl_cn_get_dumpit,
		.policy = edm_cn_sel_policy,
		.maxattr = EDM_A_CN_MAX,
	},
	{
		.cmd = EDM_CMD_CN_NEW,
		.doit = edm_nl_cn_new_doit,
		.policy = edm_cn_new_policy,
		.maxattr = EDM_A_CN_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_CN_DEL,
		.doit = edm_nl_cn_del_doit,
		.policy = edm_cn_sel_policy,
		.maxattr = EDM_A_CN_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_CN_SET,
		.doit = edm_nl_cn_set_doit,
		.policy = edm_cn_set_policy,
		.maxattr = EDM_A_CN_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_REGION_GET,
		.doit = edm_nl_region_get_doit,
		.dumpit = edm_nl_region_get_dumpit,
		.policy = edm_region_sel_policy,
		.maxattr = EDM_A_REGION_MAX,
	},
	{
		.cmd = EDM_CMD_REGION_REKEY,
		.doit = edm_nl_region_rekey_doit,
		.policy = edm_region_sel_policy,
		.maxattr = EDM_A_REGION_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_COWBIRD_GET,
		.doit = edm_nl_cowbird_get_doit,
		.policy = edm_cowbird_get_policy,
		.maxattr = EDM_A_COWBIRD_MAX,
	},
	{
		.cmd = EDM_CMD_COWBIRD_SET,
		.doit = edm_nl_cowbird_set_doit,
		.policy = edm_cowbird_set_policy,
		.maxattr = EDM_A_COWBIRD_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_COWBIRD_INST_GET,
		.dumpit = edm_nl_cowbird_inst_get_dumpit,
		.policy = edm_cbinst_get_policy,
		.maxattr = EDM_A_CBINST_MAX,
	},
	{
		.cmd = EDM_CMD_REGION_NEW,
		.doit = edm_nl_region_new_doit,
		.policy = edm_region_new_policy,
		.maxattr = EDM_A_REGION_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_REGION_DEL,
		.doit = edm_nl_region_del_doit,
		.policy = edm_region_sel_policy,
		.maxattr = EDM_A_REGION_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NICPOOL_GET,
		.doit = edm_nl_nicpool_get_doit,
		.dumpit = edm_nl_nicpool_get_dumpit,
		.policy = edm_nicpool_sel_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
	},
	{
		.cmd = EDM_CMD_NICPOOL_NEW,
		.doit = edm_nl_nicpool_new_doit,
		.policy = edm_nicpool_new_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NICPOOL_DEL,
		.doit = edm_nl_nicpool_del_doit,
		.policy = edm_nicpool_sel_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NICPOOL_SET,
		.doit = edm_nl_nicpool_set_doit,
		.policy = edm_nicpool_set_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NICPOOL_NIC_ADD,
		.doit = edm_nl_nicpool_nic_add_doit,
		.policy = edm_nicpool_nic_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_NICPOOL_NIC_DEL,
		.doit = edm_nl_nicpool_nic_del_doit,
		.policy = edm_nicpool_nic_policy,
		.maxattr = EDM_A_NICPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group edm_genl_mcgrps[] = {
	[EDM_MCGRP_EVENTS_IDX] = { .name = EDM_MCGRP_EVENTS },
};

struct genl_family edm_genl_family __ro_after_init = {
	.name = EDM_GENL_NAME,
	.version = EDM_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = edm_genl_ops,
	.n_ops = ARRAY_SIZE(edm_genl_ops),
	.mcgrps = edm_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(edm_genl_mcgrps),
};

int edm_genl_init(void)
{
	return genl_register_family(&edm_genl_family);
}

void edm_genl_exit(void)
{
	genl_unregister_family(&edm_genl_family);
}

MODULE_ALIAS_GENL_FAMILY(EDM_GENL_NAME);
