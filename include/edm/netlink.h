/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family "edm": shared helpers for the parts that own
 * commands. Command handlers run under genl_mutex (no parallel_ops), so
 * they are serialized against each other; objects they touch still take
 * their own locks, since netns teardown runs without genl_mutex.
 */
#ifndef _EDM_NETLINK_H
#define _EDM_NETLINK_H

#include <net/genetlink.h>

extern struct genl_family edm_genl_family;

enum edm_mcgrp {
	EDM_MCGRP_EVENTS_IDX,
};

/* What a name edm_name_valid() refuses is told. */
#define EDM_NL_NAME_INVALID "invalid name: use [A-Za-z0-9_.-], starting with a letter or digit"

/* A policy entry for an attribute that only replies carry. */
#define EDM_REPLY_ONLY(attr) \
	[attr] = { .type = NLA_REJECT, .reject_message = "reply-only attribute" }

/*
 * edm_nl_require() - fail with a message when a required attribute is absent.
 * Evaluates to 0 when @attr is present, else -EINVAL with extack naming the
 * missing attribute. A macro because NL_SET_ERR_MSG takes a literal.
 */
#define edm_nl_require(info, attr, msg) ({				\
	struct genl_info *__info = (info);				\
	int __attr = (attr), __err = 0;					\
									\
	if (!__info->attrs[__attr]) {					\
		NL_SET_ERR_MSG(__info->extack, msg);			\
		NL_SET_ERR_ATTR_MISS(__info->extack, NULL, __attr);	\
		__err = -EINVAL;					\
	}								\
	__err;								\
})

struct edm_dev;

void *edm_nl_put_hdr(struct sk_buff *msg, struct genl_info *info, u8 cmd);
struct sk_buff *edm_nl_msg_new(struct genl_info *info, u8 cmd, size_t size, void **hdr);
struct sk_buff *edm_nl_msg_end(struct sk_buff *msg, void *hdr, int err);
struct sk_buff *edm_nl_dev_msg(const struct edm_dev *dev, struct genl_info *info, u8 cmd,
			       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev));

struct edm_net;

/* GET of one device: @find it under the registry lock, reply with its @fill. */
int edm_nl_dev_get_reply(struct genl_info *info, u8 cmd,
			 struct edm_dev *(*find)(struct edm_net *en, struct genl_info *info),
			 int (*fill)(struct sk_buff *msg, const struct edm_dev *dev));

/* Announce @dev, @fill'ed, on the events group of its netns (nothing if no memory). */
void edm_nl_dev_notify(const struct edm_dev *dev, u8 cmd,
		       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev));

int edm_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		    bool (*match)(const struct edm_dev *dev, struct nlattr **attrs),
		    int (*fill)(struct sk_buff *msg, const struct edm_dev *dev));

/* Send @skb, a complete message, to the events group of @net. */
void edm_nl_notify(struct net *net, struct sk_buff *skb);

/* Device commands, in core/dev_nl.c. */
int edm_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_dev_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy edm_dev_sel_policy[];
extern const struct nla_policy edm_dev_new_policy[];

/* NetDIMM commands, in netdimm/nl.c. */
int edm_nl_netdimm_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_netdimm_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_netdimm_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_netdimm_del_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy edm_netdimm_new_policy[];
extern const struct nla_policy edm_netdimm_sel_policy[];

/* EDM fabric commands, in fabric/nl.c. */
int edm_nl_fabric_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_fabric_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_fabric_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_fabric_del_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_fabric_set_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_flink_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_flink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_flink_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_flink_del_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_flink_set_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy edm_fab_new_policy[];
extern const struct nla_policy edm_fab_sel_policy[];
extern const struct nla_policy edm_fab_set_policy[];
extern const struct nla_policy edm_flink_new_policy[];
extern const struct nla_policy edm_flink_sel_policy[];
extern const struct nla_policy edm_flink_set_policy[];

/* DFabric pools, in dfabric/pool_nl.c; racks and compute nodes, in dfabric/rack_nl.c. */
int edm_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_pool_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_pool_del_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_pool_set_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_rack_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_rack_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_rack_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_rack_del_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_cn_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_cn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_cn_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_cn_del_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_cn_set_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy edm_pool_new_policy[];
extern const struct nla_policy edm_pool_sel_policy[];
extern const struct nla_policy edm_pool_set_policy[];
extern const struct nla_policy edm_rack_new_policy[];
extern const struct nla_policy edm_rack_sel_policy[];
extern const struct nla_policy edm_cn_new_policy[];
extern const struct nla_policy edm_cn_sel_policy[];
extern const struct nla_policy edm_cn_set_policy[];
/* DFabric NIC pools, in dfabric/nicpool_nl.c. */
int edm_nl_nicpool_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_nicpool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_nicpool_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_nicpool_del_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_nicpool_set_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_nicpool_nic_add_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_nicpool_nic_del_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy edm_nicpool_new_policy[];
extern const struct nla_policy edm_nicpool_sel_policy[];
extern const struct nla_policy edm_nicpool_set_policy[];
extern const struct nla_policy edm_nicpool_nic_policy[];

/* Memory regions, in cowbird/region_nl.c. */
int edm_nl_region_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_region_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int edm_nl_region_rekey_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_region_new_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_region_del_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy edm_region_sel_policy[];
extern const struct nla_policy edm_region_new_policy[];

/* The Cowbird engine and its instances, in cowbird/nl.c. */
int edm_nl_cowbird_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_cowbird_set_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_cowbird_inst_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
extern const struct nla_policy edm_cowbird_get_policy[];
extern const struct nla_policy edm_cowbird_set_policy[];
extern const struct nla_policy edm_cbinst_get_policy[];

#endif /* _EDM_NETLINK_H */
