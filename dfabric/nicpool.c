// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC pool device type and its members (dfabric/nicpool.h): a NIC
 * pool is a node of its rack's pool, published as rack->np so the rack's
 * compute nodes send frames for the outside to it; its members are netdevs
 * with our rx_handler, in promiscuous mode (they receive for every compute
 * node's MAC), each holding a reference on its netdev.
 *
 * Members come and go under RTNL: NICPOOL_NIC_ADD and _DEL (which also hold
 * the registry lock, inside RTNL) and the netdev notifier, which lets a
 * member go when its netdev is unregistered or leaves the netns. A leaving
 * member is unpublished, its rx_handler unregistered (a grace period:
 * netdev_rx_handler_unregister() ends with synchronize_net()), and only
 * then is its netdev reference dropped and the member freed; flows on it
 * move to the other members on their next packet (nicpool_tx.c).
 *
 * The NIC pool goes in this order (edm_nicpool_detach(): its deletion, or
 * its rack's): members out, rack->np cleared and a grace period (no engine
 * hands it a Buffer any more), the reorder timer cancelled, what reorder
 * still holds delivered, its pool node released (Buffers the stack still
 * has pass to the LPPU).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>

#include "edm/edm.h"
#include "nicpool.h"

void edm_nicpool_stats(struct edm_nicpool *np, struct edm_nicpool_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct edm_nicpool_stats *c = per_cpu_ptr(np->ctrs, cpu);

		for (i = 0; i < ARRAY_SIZE(sum->v); i++)
			sum->v[i] += READ_ONCE(c->v[i]);
	}
}

void edm_nicpool_member_stats(struct edm_nicpool_member *m, struct edm_nicpool_member_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct edm_nicpool_member_stats *c = per_cpu_ptr(m->ctrs, cpu);

		for (i = 0; i < ARRAY_SIZE(sum->v); i++)
			sum->v[i] += READ_ONCE(c->v[i]);
	}
	sum->v[EDM_A_NPMEMBER_DEPTH] = READ_ONCE(m->depth);
	sum->v[EDM_A_NPMEMBER_DEPTH_MAX] = READ_ONCE(m->depth_max);
}

/* ---- members ---- */

/* The member @dev is, if it is one of any NIC pool; RTNL. */
static struct edm_nicpool_member *edm_nicpool_member_of(const struct net_device *dev)
{
	ASSERT_RTNL();
	if (rtnl_dereference(dev->rx_handler) != edm_nicpool_handle_frame)
		return NULL;
	return rtnl_dereference(dev->rx_handler_data);
}

/* Can @dev become a member of @np? Changes nothing. */
static int edm_nicpool_chk_nic(struct edm_nicpool *np, struct net_device *dev,
			       struct netlink_ext_ack *extack)
{
	struct edm_nicpool_member *m = edm_nicpool_member_of(dev);

	if (!np->rack) {
		NL_SET_ERR_MSG(extack, "the NIC pool's rack is gone");
		return -ENODEV;
	}
	if (m && m->np == np) {
		NL_SET_ERR_MSG(extack, "the netdev is a member of this NIC pool already");
		return -EEXIST;
	}
	if (m) {
		NL_SET_ERR_MSG(extack, "the netdev is a member of another NIC pool");
		return -EBUSY;
	}
	if (dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "the loopback device cannot be a member");
		return -EINVAL;
	}
	if (dev->netdev_ops == &edm_rack_cn_netdev_ops) {
		NL_SET_ERR_MSG(extack, "a compute node's netdev cannot be a member");
		return -EINVAL;
	}
	if (dev->type != ARPHRD_ETHER || dev->addr_len != ETH_ALEN) {
		NL_SET_ERR_MSG(extack, "the netdev is not an Ethernet device");
		return -EINVAL;
	}
	if (netdev_is_rx_handler_busy(dev)) {
		NL_SET_ERR_MSG(extack,
			       "the netdev has another rx handler (a bridge or bond port?)");
		return -EBUSY;
	}
	if (!(dev->flags & IFF_UP)) {
		NL_SET_ERR_MSG(extack, "the netdev is down");
		return -ENETDOWN;
	}
	if (np->nmembers >= EDM_NICPOOL_MEMBERS_MAX) {
		NL_SET_ERR_MSG(extack, "the NIC pool has 8 members, the most it takes");
		return -ENOSPC;
	}
	return 0;
}

static int edm_nicpool_free_slot(struct edm_nicpool *np)
{
	int i;

	for (i = 0; i < EDM_NICPOOL_MEMBERS_MAX; i++)
		if (!rtnl_dereference(np->members[i]))
			return i;
	return -ENOSPC;
}

int edm_nicpool_nic_add(struct edm_nicpool *np, struct net_device *dev,
			struct netlink_ext_ack *extack)
{
	struct edm_nicpool_member *m;
	int slot, err;

	ASSERT_RTNL();
	err = edm_nicpool_chk_nic(np, dev, extack);
	if (err)
		return err;
	slot = edm_nicpool_free_slot(np);
	if (WARN_ON_ONCE(slot < 0))
		return slot;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->ctrs = alloc_percpu(struct edm_nicpool_member_stats);
	if (!m->ctrs) {
		err = -ENOMEM;
		goto err_free;
	}
	m->np = np;
	m->dev = dev;
	/* a generation in the id: a flowlet never follows a slot's next member */
	np->gen = (np->gen + 1) & 0xffffff ?: 1;
	m->id = slot | np->gen << 8;
	err = dev_set_promiscuity(dev, 1);
	if (err)
		goto err_free;
	err = netdev_rx_handler_register(dev, edm_nicpool_handle_frame, m);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot take the netdev's receive path");
		goto err_promisc;
	}
	netdev_hold(dev, &m->tracker, GFP_KERNEL);
	rcu_assign_pointer(np->members[slot], m);
	WRITE_ONCE(np->nmembers, np->nmembers + 1);
	netdev_dbg(dev, "member of NIC pool %s\n", np->edev->name);
	return 0;

err_promisc:
	dev_set_promiscuity(dev, -1);
err_free:
	free_percpu(m->ctrs);
	kfree(m);
	return err;
}

/* @m leaves: see the header for the order. RTNL held. */
static void edm_nicpool_member_remove(struct edm_nicpool *np, struct edm_nicpool_member *m)
{
	struct net_device *dev = m->dev;

	ASSERT_RTNL();
	RCU_INIT_POINTER(np->members[m->id & EDM_NICPOOL_SLOT_MASK], NULL);
	WRITE_ONCE(np->nmembers, np->nmembers - 1);
	netdev_rx_handler_unregister(dev);	/* ends with synchronize_net() */
	dev_set_promiscuity(dev, -1);
	netdev_dbg(dev, "left NIC pool %s\n", np->edev->name);
	netdev_put(dev, &m->tracker);
	free_percpu(m->ctrs);
	kfree(m);
}

int edm_nicpool_nic_del(struct edm_nicpool *np, struct net_device *dev,
			struct netlink_ext_ack *extack)
{
	struct edm_nicpool_member *m = edm_nicpool_member_of(dev);

	ASSERT_RTNL();
	if (!m || m->np != np) {
		NL_SET_ERR_MSG(extack, "the netdev is not a member of this NIC pool");
		return -ENOENT;
	}
	edm_nicpool_member_remove(np, m);
	return 0;
}

static int edm_nicpool_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct edm_nicpool_member *m;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	m = edm_nicpool_member_of(dev);
	if (m)
		edm_nicpool_member_remove(m->np, m);
	return NOTIFY_DONE;
}

static struct notifier_block edm_nicpool_notifier = {
	.notifier_call = edm_nicpool_netdev_event,
};

int edm_nicpool_notifier_init(void)
{
	return register_netdevice_notifier(&edm_nicpool_notifier);
}

void edm_nicpool_notifier_exit(void)
{
	unregister_netdevice_notifier(&edm_nicpool_notifier);
}

/* ---- the device type ---- */

/* The data path of @np goes, in the order the header gives; registry lock. */
void edm_nicpool_detach(struct edm_nicpool *np)
{
	struct edm_rack *rack = np->rack;
	struct edm_nicpool_member *m;
	int i;

	edm_registry_assert_held(np->edev->net);
	ASSERT_RTNL();
	if (!rack)
		return;
	for (i = 0; i < EDM_NICPOOL_MEMBERS_MAX; i++) {
		m = rtnl_dereference(np->members[i]);
		if (m)
			edm_nicpool_member_remove(np, m);
	}
	RCU_INIT_POINTER(rack->np, NULL);
	synchronize_net();
	hrtimer_cancel(&np->ro_timer);
	edm_nicpool_ro_flush_all(np);
	np->rack = NULL;
	edm_pool_node_fini(&np->pn);
	pr_debug("NIC pool %s detached from its rack\n", np->edev->name);
}

static void edm_nicpool_free(struct edm_nicpool *np)
{
	kvfree(np->ro);
	kvfree(np->flows);
	free_percpu(np->ctrs);
	kfree(np);
}

static int edm_nicpool_create(struct edm_dev *edev, const void *arg,
			      struct netlink_ext_ack *extack)
{
	const struct edm_nicpool_cfg *cfg = arg;
	struct edm_nicpool *np;
	int err;

	if (!cfg) {
		NL_SET_ERR_MSG(extack, "create NIC pools with NICPOOL_NEW (edmctl nicpool create)");
		return -EOPNOTSUPP;
	}
	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return -ENOMEM;
	np->ctrs = alloc_percpu(struct edm_nicpool_stats);
	np->flows = kvcalloc(EDM_NICPOOL_FLOWS, sizeof(*np->flows), GFP_KERNEL);
	np->ro = kvcalloc(EDM_NICPOOL_RO_CTX, sizeof(*np->ro), GFP_KERNEL);
	if (!np->ctrs || !np->flows || !np->ro) {
		err = -ENOMEM;
		goto err_free;
	}
	err = edm_pool_node_init(&np->pn, cfg->rack->pool, extack);
	if (err)
		goto err_free;
	np->edev = edev;
	np->rack = cfg->rack;
	np->mode = cfg->mode;
	np->gap_ns = (u64)cfg->gap_us * NSEC_PER_USEC;
	np->tag = get_random_u32();
	spin_lock_init(&np->ro_lock);
	hrtimer_init(&np->ro_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	np->ro_timer.function = edm_nicpool_ro_timer;
	edev->type_priv = np;
	rcu_assign_pointer(cfg->rack->np, np);
	edm_obj_get(EDM_OBJ_NICPOOL);
	return 0;

err_free:
	edm_nicpool_free(np);
	return err;
}

static void edm_nicpool_destroy(struct edm_dev *edev)
{
	struct edm_nicpool *np = edm_nicpool_of(edev);

	edm_nicpool_detach(np);
	edm_nicpool_free(np);
	edm_obj_put(EDM_OBJ_NICPOOL);
}

const struct edm_dev_type_ops edm_nicpool_dev_type = {
	.name = "nicpool",
	.create = edm_nicpool_create,
	.destroy = edm_nicpool_destroy,
};
