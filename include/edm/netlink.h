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

#include "edm/dev.h"

extern struct genl_family edm_genl_family;

enum edm_mcgrp {
	EDM_MCGRP_EVENTS_IDX,
};

/* What a name edm_name_valid() refuses is told. */
#define EDM_NL_NAME_INVALID "invalid name: use [A-Za-z0-9_.-], starting with a letter or digit"

/* The policy of an object's name. */
#define EDM_NL_NAME_POLICY { .type = NLA_NUL_STRING, .len = EDM_NAME_LEN - 1 }

/* A policy entry for an attribute that only replies carry. */
#define EDM_REPLY_ONLY(attr) \
	[attr] = { .type = NLA_REJECT, .reject_message = "reply-only attribute" }

/*
 * edm_nl_require_attr() - fail with a message when a required attribute is
 * absent from @attrs (a request's, or `ip link add`'s IFLA_INFO_DATA).
 * Evaluates to 0 when @attr is present, else -EINVAL with @extack naming
 * the missing attribute. A macro because NL_SET_ERR_MSG takes a literal.
 * edm_nl_require() is the same for a genl request.
 */
#define edm_nl_require_attr(attrs, extack, attr, msg) ({		\
	struct netlink_ext_ack *__ack = (extack);			\
	int __attr = (attr), __err = 0;					\
									\
	if (!(attrs)[__attr]) {						\
		NL_SET_ERR_MSG(__ack, msg);				\
		NL_SET_ERR_ATTR_MISS(__ack, NULL, __attr);		\
		__err = -EINVAL;					\
	}								\
	__err;								\
})

#define edm_nl_require(info, attr, msg) ({				\
	struct genl_info *__info = (info);				\
									\
	edm_nl_require_attr(__info->attrs, __info->extack, attr, msg);	\
})

struct edm_dev;
struct edm_net;

/*
 * A kind of device the family's commands address: the attributes that name
 * one in a request (by ID or by name), which devices are of the kind, and
 * how a message shows one. Each subsystem defines its kinds; the core
 * tables them by enum edm_nl_obj_id (core/netlink.c).
 */
struct edm_nl_obj {
	u16 id_attr;
	u16 name_attr;
	/* Is @dev of this kind? NULL: every device is. */
	bool (*is)(const struct edm_dev *dev);
	/* The extack message when the named device is of another kind. */
	const char *not_msg;
	int (*fill)(struct sk_buff *msg, const struct edm_dev *dev);
};

enum edm_nl_obj_id {
	EDM_NL_OBJ_NONE,
	EDM_NL_OBJ_DEV,
	EDM_NL_OBJ_NETDIMM,
	EDM_NL_OBJ_FABRIC,
	EDM_NL_OBJ_POOL,
	EDM_NL_OBJ_RACK,
	EDM_NL_OBJ_NICPOOL,
	EDM_NL_OBJ_SHPOOL,

	__EDM_NL_OBJ_CNT
};

extern const struct edm_nl_obj edm_dev_nl_obj;		/* core/dev_nl.c */
extern const struct edm_nl_obj edm_netdimm_nl_obj;	/* netdimm/nl.c */
extern const struct edm_nl_obj edm_fab_nl_obj;		/* fabric/nl.c */
extern const struct edm_nl_obj edm_pool_nl_obj;		/* dfabric/pool_nl.c */
extern const struct edm_nl_obj edm_rack_nl_obj;		/* dfabric/rack_nl.c */
extern const struct edm_nl_obj edm_nicpool_nl_obj;	/* dfabric/nicpool_nl.c */
extern const struct edm_nl_obj edm_shpool_nl_obj;	/* dfabric/shpool_nl.c */

/*
 * What the family's pre_doit does before a command's doit, from the
 * command's internal_flags (the devlink way): EDM_NL_LOCK takes the
 * registry lock of the caller's netns, held until post_doit;
 * EDM_NL_FIND(kind) also finds the device the request names, of that kind,
 * and fails the request with a message pointing at the attribute if there
 * is none; EDM_NL_NEW(kind) only names the kind, for edm_nl_created(). The
 * handler gets the netns and device from edm_nl_en() and edm_nl_dev();
 * pre_doit keeps the kind in user_ptr[0] for the shared handlers.
 */
#define EDM_NL_OBJ_MASK		0x0f
#define EDM_NL_LOCK		0x10
#define EDM_NL_DO_FIND		0x20
#define EDM_NL_FIND(kind)	(EDM_NL_LOCK | EDM_NL_DO_FIND | (kind))
#define EDM_NL_NEW(kind)	(EDM_NL_LOCK | (kind))

static inline struct edm_net *edm_nl_en(struct genl_info *info)
{
	return edm_net(genl_info_net(info));
}

static inline struct edm_dev *edm_nl_dev(struct genl_info *info)
{
	return info->user_ptr[1];
}

/* A subsystem's commands: core/netlink.c joins them into the family's table. */
struct edm_nl_ops {
	const struct genl_ops *ops;
	unsigned int n_ops;
};

extern const struct edm_nl_ops edm_dev_nl_ops;		/* core/dev_nl.c */
extern const struct edm_nl_ops edm_netdimm_nl_ops;	/* netdimm/nl.c */
extern const struct edm_nl_ops edm_fab_nl_ops;	/* fabric/nl.c */
extern const struct edm_nl_ops edm_flink_nl_ops;	/* fabric/link_nl.c */
extern const struct edm_nl_ops edm_pool_nl_ops;		/* dfabric/pool_nl.c */
extern const struct edm_nl_ops edm_rack_nl_ops;		/* dfabric/rack_nl.c */
extern const struct edm_nl_ops edm_nicpool_nl_ops;	/* dfabric/nicpool_nl.c */
extern const struct edm_nl_ops edm_shpool_nl_ops;	/* dfabric/shpool_nl.c */
extern const struct edm_nl_ops edm_cowbird_nl_ops;	/* cowbird/nl.c */
extern const struct edm_nl_ops edm_region_nl_ops;	/* cowbird/region_nl.c */

/* The device of kind @obj that @info names, or an ERR_PTR, with a message; under the lock. */
struct edm_dev *edm_nl_find(struct genl_info *info, const struct edm_nl_obj *obj);

/* A GET of one device of the command's kind, and a dump of them: shared handlers. */
int edm_nl_obj_get_doit(struct sk_buff *skb, struct genl_info *info);
int edm_nl_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/*
 * A dump's messages: edm_nl_dump_hdr() puts the next one's header (NULL if
 * the skb is full) and flags it if the dump spans a change (cb->seq);
 * edm_nl_dump_end() ends it, or cancels it and gives -EMSGSIZE if filling
 * it failed (@err); edm_nl_dump_done() is what the dumpit returns when its
 * loop stopped with @err.
 */
void *edm_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd);
int edm_nl_dump_end(struct sk_buff *skb, void *hdr, int err);
int edm_nl_dump_done(struct sk_buff *skb, int err);

/*
 * A dump over every device of the caller's netns, under its registry lock,
 * in ID order from cb->args[0]: @one puts the messages it has for @dev from
 * its own cursor cb->args[1] (0 for a device not begun), and leaves it 0
 * when done with @dev or returns -EMSGSIZE, the cursor where to go on, when
 * the skb is full. cb->seq carries the registry generation, so a dump that
 * spans a change is flagged NLM_F_DUMP_INTR.
 */
int edm_nl_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
		     int (*one)(struct sk_buff *skb, struct netlink_callback *cb,
				struct edm_dev *dev));

/* The name attribute @attr of @info, checked against edm_name_valid(). */
int edm_nl_chk_name(struct genl_info *info, int attr);

/*
 * Under the registry lock: reply to a creation with @dev, as the command's
 * kind shows it, and announce it; if the reply cannot be built the
 * creation is undone (-ENOMEM).
 */
int edm_nl_created(struct genl_info *info, struct edm_dev *dev);
/* Under the registry lock: delete @dev and announce it (the event is built first). */
int edm_nl_deleted(struct genl_info *info, struct edm_dev *dev);
/*
 * The same, for any caller: the event @cmd as @obj shows @dev, the netdevs
 * unregistered at once or queued on @kill (an rtnl_link_ops dellink's).
 */
void edm_nl_dev_destroy_notify(struct edm_net *en, struct edm_dev *dev, struct list_head *kill,
			       const struct edm_nl_obj *obj, u8 cmd);

void *edm_nl_put_hdr(struct sk_buff *msg, struct genl_info *info, u8 cmd);
struct sk_buff *edm_nl_msg_new(struct genl_info *info, u8 cmd, size_t size, void **hdr);
struct sk_buff *edm_nl_msg_end(struct sk_buff *msg, void *hdr, int err);
struct sk_buff *edm_nl_dev_msg(const struct edm_dev *dev, struct genl_info *info, u8 cmd,
			       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev));

/* Announce @dev, @fill'ed, on the events group of its netns (nothing if no memory). */
void edm_nl_dev_notify(const struct edm_dev *dev, u8 cmd,
		       int (*fill)(struct sk_buff *msg, const struct edm_dev *dev));

/* Send @skb, a complete message, to the events group of @net. */
void edm_nl_notify(struct net *net, struct sk_buff *skb);

#endif /* _EDM_NETLINK_H */
