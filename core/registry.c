// SPDX-License-Identifier: GPL-2.0
/*
 * The device registry: per network namespace, an xarray of devices keyed by
 * ID, with names unique within the netns.
 *
 * Locking: edm_net.lock protects the xarray, the count and the generation.
 * Every create, destroy and lookup runs under it; a device found under the
 * lock stays valid until the lock is dropped. Creation and destruction also
 * hold RTNL, taken before it, since most devices own netdevs. A netns going
 * away destroys its devices in the pernet exit hook, after its last socket
 * is gone and after `ip link`'s kinds (rtnl_link_ops) have deleted theirs,
 * so no request can race with that teardown.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netns/generic.h>

#include "edm/dev.h"
#include "edm/edm.h"

static unsigned int edm_net_id __read_mostly;

struct edm_net *edm_net(const struct net *net)
{
	return net_generic(net, edm_net_id);
}

/* The device named @name, or NULL; registry lock held. */
struct edm_dev *edm_dev_by_name(struct edm_net *en, const char *name)
{
	struct edm_dev *dev;
	unsigned long id;

	lockdep_assert_held(&en->lock);
	xa_for_each(&en->devs, id, dev)
		if (!strcmp(dev->name, name))
			return dev;
	return NULL;
}

struct edm_dev *edm_dev_find(struct edm_net *en, const struct nlattr *id,
			     const struct nlattr *name, struct netlink_ext_ack *extack)
{
	struct edm_dev *dev;

	lockdep_assert_held(&en->lock);
	if (id && name) {
		NL_SET_ERR_MSG_ATTR(extack, name, "give a device ID or a name, not both");
		return ERR_PTR(-EINVAL);
	}
	if (!id && !name) {
		NL_SET_ERR_MSG(extack, "missing device: give its ID or its name");
		return ERR_PTR(-EINVAL);
	}
	dev = id ? xa_load(&en->devs, nla_get_u32(id)) : edm_dev_by_name(en, nla_data(name));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, id ?: name, "no such device");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

/* Validate a creation request without changing anything. */
static int edm_dev_chk_create(struct edm_net *en, const char *name,
			      struct netlink_ext_ack *extack)
{
	if (en->ndevs >= EDM_DEVS_PER_NET_MAX) {
		NL_SET_ERR_MSG(extack, "too many devices in this network namespace");
		return -ENOSPC;
	}
	if (edm_dev_by_name(en, name)) {
		NL_SET_ERR_MSG(extack, "device name already in use");
		return -EEXIST;
	}
	return 0;
}

struct edm_dev *edm_dev_create(struct edm_net *en, const char *name, enum edm_dev_type type,
			       const void *cfg, struct netlink_ext_ack *extack)
{
	const struct edm_dev_type_ops *type_ops;
	struct edm_dev *dev;
	int err;

	lockdep_assert_held(&en->lock);
	ASSERT_RTNL();
	err = edm_dev_chk_create(en, name, extack);
	if (err)
		return ERR_PTR(err);
	type_ops = edm_dev_type_ops(type);
	if (!type_ops) {
		NL_SET_ERR_MSG(extack, "device type not built into this module");
		return ERR_PTR(-EOPNOTSUPP);
	}

	if (edm_fault_should_fail(EDM_OBJ_DEV)) {
		NL_SET_ERR_MSG(extack, "device creation failed (injected fault)");
		return ERR_PTR(-ENOMEM);
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	dev->type = type;
	dev->type_ops = type_ops;
	dev->net = en->net;

	err = type_ops->create(dev, cfg, extack);
	if (err)
		goto err_free;
	/* Publish last: lookups never see a half-made device. */
	err = xa_alloc_cyclic(&en->devs, &dev->id, dev, XA_LIMIT(1, INT_MAX), &en->next_id,
			      GFP_KERNEL);
	if (err < 0)
		goto err_type;

	en->ndevs++;
	en->gen++;
	edm_obj_get(EDM_OBJ_DEV);
	pr_debug("dev %u (%s) created\n", dev->id, dev->name);
	return dev;

err_type:
	type_ops->destroy(dev);
err_free:
	kfree(dev);
	return ERR_PTR(err);
}

/*
 * Destroys @dev and, if it is one end of a pair, the other end too. Their
 * netdevs are unregistered at once, or queued on @kill (an rtnl_link_ops
 * dellink's list) when it is not NULL.
 */
void edm_dev_destroy_queued(struct edm_net *en, struct edm_dev *dev, struct list_head *kill)
{
	struct edm_dev *peer = dev->peer;

	lockdep_assert_held(&en->lock);
	ASSERT_RTNL();
	dev->kill = kill;
	if (peer) {
		peer->peer = NULL;
		dev->peer = NULL;
	}
	xa_erase(&en->devs, dev->id);
	en->ndevs--;
	en->gen++;
	dev->type_ops->destroy(dev);
	pr_debug("dev %u (%s) destroyed\n", dev->id, dev->name);
	kfree(dev);
	edm_obj_put(EDM_OBJ_DEV);
	if (peer)
		edm_dev_destroy_queued(en, peer, kill);
}

void edm_dev_destroy(struct edm_net *en, struct edm_dev *dev)
{
	edm_dev_destroy_queued(en, dev, NULL);
}

static int __net_init edm_net_init(struct net *net)
{
	struct edm_net *en = edm_net(net);

	en->net = net;
	mutex_init(&en->lock);
	en->gen = 1;	/* nonzero: dumps check it against 0 */
	xa_init_flags(&en->devs, XA_FLAGS_ALLOC1);
	return 0;
}

static void __net_exit edm_net_exit(struct net *net)
{
	struct edm_net *en = edm_net(net);
	struct edm_dev *dev;
	unsigned long id;

	rtnl_lock();
	mutex_lock(&en->lock);
	xa_for_each(&en->devs, id, dev)
		edm_dev_destroy(en, dev);
	mutex_unlock(&en->lock);
	rtnl_unlock();
	xa_destroy(&en->devs);
	mutex_destroy(&en->lock);
}

static struct pernet_operations edm_net_ops = {
	.init = edm_net_init,
	.exit = edm_net_exit,
	.id = &edm_net_id,
	.size = sizeof(struct edm_net),
};

int edm_registry_init(void)
{
	return register_pernet_subsys(&edm_net_ops);
}

void edm_registry_exit(void)
{
	unregister_pernet_subsys(&edm_net_ops);
}
