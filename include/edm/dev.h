/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Devices: the registry of edm devices in each network namespace, and the
 * device types.
 *
 * Every device belongs to one netns and is found there by ID or by name.
 * A device's type says what it is (a NetDIMM, a fabric host or switch, a
 * pool, a rack...). Every type runs in software; where memory that is not
 * the page allocator's backs one, a memory provider gives it
 * (include/edm/memprov.h), and that is where hardware joins.
 */
#ifndef _EDM_DEV_H
#define _EDM_DEV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <net/netlink.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <uapi/linux/edm.h>

struct edm_dev;

/* What a device type does at creation and destruction. */
struct edm_dev_type_ops {
	const char *name;
	/* @cfg: the type's own creation parameters, NULL from DEV_NEW */
	int (*create)(struct edm_dev *dev, const void *cfg, struct netlink_ext_ack *extack);
	void (*destroy)(struct edm_dev *dev);
};

struct edm_dev {
	u32 id;
	char name[EDM_NAME_LEN];
	enum edm_dev_type type;
	const struct edm_dev_type_ops *type_ops;
	struct net *net;		/* not counted: the netns owns us */
	void *type_priv;
	struct edm_dev *peer;		/* the other end of a pair, same netns */
	struct list_head *kill;		/* RTNL: where destroy queues netdevs, or NULL */
};

/* Per network namespace state. */
struct edm_net {
	struct net *net;
	struct mutex lock;		/* protects devs, ndevs and gen */
	struct xarray devs;		/* ID -> struct edm_dev */
	u32 ndevs;
	u32 next_id;			/* cursor for cyclic ID allocation */
	unsigned int gen;		/* bumped on each change, for dumps */
};

/* Devices per netns, a bound on what one user can make the kernel hold. */
#define EDM_DEVS_PER_NET_MAX	4096

struct edm_net *edm_net(const struct net *net);

/*
 * lockdep: the registry lock of @net is held. Unlike lockdep_assert_held(),
 * it evaluates nothing without lockdep (edm_net() is a call).
 */
#define edm_registry_assert_held(net) \
	lockdep_assert(lockdep_is_held(&edm_net(net)->lock) != LOCK_STATE_NOT_HELD)

struct edm_dev *edm_dev_by_name(struct edm_net *en, const char *name);
struct edm_dev *edm_dev_find(struct edm_net *en, const struct nlattr *id,
			     const struct nlattr *name, struct netlink_ext_ack *extack);
struct edm_dev *edm_dev_create(struct edm_net *en, const char *name, enum edm_dev_type type,
			       const void *cfg, struct netlink_ext_ack *extack);
void edm_dev_destroy(struct edm_net *en, struct edm_dev *dev);
void edm_dev_destroy_queued(struct edm_net *en, struct edm_dev *dev, struct list_head *kill);

const struct edm_dev_type_ops *edm_dev_type_ops(enum edm_dev_type type);

/* The device types, each defined by its subsystem, tabled in core/dev_types.c. */
extern const struct edm_dev_type_ops edm_netdimm_dev_type;	/* netdimm/dev.c */
extern const struct edm_dev_type_ops edm_fswitch_dev_type;	/* fabric/node.c */
extern const struct edm_dev_type_ops edm_fhost_dev_type;	/* fabric/node.c */
extern const struct edm_dev_type_ops edm_pool_dev_type;		/* dfabric/pool.c */
extern const struct edm_dev_type_ops edm_rack_dev_type;		/* dfabric/rack.c */
extern const struct edm_dev_type_ops edm_nicpool_dev_type;	/* dfabric/nicpool.c */
extern const struct edm_dev_type_ops edm_shpool_dev_type;	/* dfabric/shpool.c */

#endif /* _EDM_DEV_H */
