// SPDX-License-Identifier: GPL-2.0
/*
 * The rack device type and its compute nodes (dfabric/rack.h): a rack
 * holds its pool; each CN gets a node id and Sections in the pool, a TxQ and
 * an RxQ in pool memory, two NAPI contexts and a netdev.
 *
 * Creation and destruction run under RTNL and then the registry lock of
 * the rack's netns (netlink, `ip link`: dfabric/rack_link.c, a netns's
 * exit). A CN is published in rack->cn[] once its netdev is registered and
 * unpublished before it is unregistered; its netdev's ndo_uninit, after
 * the grace period unregistering waits, frees its rings, pool node and
 * memory: no engine can post on its RxQ any more then. The rack outlives
 * its CNs' netdevs: it can go only under RTNL, which unregistering holds.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "edm/edm.h"
#include "nicpool.h"
#include "rack.h"

#define EDM_RACK_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM | NETIF_F_HIGHDMA | \
			   NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN)

void edm_rack_cn_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &edm_rack_cn_netdev_ops;
	dev->ethtool_ops = &edm_rack_cn_ethtool_ops;
	dev->features |= EDM_RACK_FEATURES;
	dev->hw_features |= EDM_RACK_FEATURES;
	dev->vlan_features |= EDM_RACK_FEATURES;
	dev->max_mtu = EDM_RACK_MTU_MAX;
	/* the engines look destinations up by the address each time: as a switch learns */
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	eth_hw_addr_random(dev);
}

struct edm_rack_cn *edm_rack_cn_find(struct edm_rack *rack, const char *name)
{
	struct edm_rack_cn *cn;
	int i;

	for (i = 0; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference_raw(rack->cn[i]);
		if (cn && !strcmp(cn->name, name))
			return cn;
	}
	return NULL;
}

void edm_rack_cn_stats(struct edm_rack_cn *cn, struct edm_rack_cn_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct edm_rack_cn_stats *c = per_cpu_ptr(cn->ctrs, cpu);

		for (i = 0; i < ARRAY_SIZE(sum->v); i++)
			sum->v[i] += READ_ONCE(c->v[i]);
	}
}

/* Its counters, and its node's in the pool and in the DRAM cache: what
 * netlink and ethtool -S report.
 */
void edm_rack_cn_all_stats(struct edm_rack_cn *cn, struct edm_rack_cn_stats *s)
{
	struct edm_pool_node_stats ns;
	struct edm_dcache_stats dcs;

	edm_rack_cn_stats(cn, s);
	edm_pool_node_stats(&cn->pn, &ns, &dcs);
	s->v[EDM_A_CNSTAT_SECTIONS] = ns.sections;
	s->v[EDM_A_CNSTAT_BUFFERS] = ns.held;
	s->v[EDM_A_CNSTAT_REFUSED] += ns.refused;
	s->v[EDM_A_CNSTAT_DCACHE_HITS] = dcs.hits;
	s->v[EDM_A_CNSTAT_DCACHE_MISSES] = dcs.misses;
	s->v[EDM_A_CNSTAT_DCACHE_BYPASSED] = dcs.bypassed;
	s->v[EDM_A_CNSTAT_DCACHE_EVICTIONS] = dcs.evictions;
	s->v[EDM_A_CNSTAT_DCACHE_FLUSHED] = dcs.flushed;
	s->v[EDM_A_CNSTAT_DCACHE_WRITEBACKS] = dcs.writebacks;
	s->v[EDM_A_CNSTAT_DCACHE_BUSY] = dcs.busy;
	s->v[EDM_A_CNSTAT_DCACHE_LENT] = dcs.pinned;
	s->v[EDM_A_CNSTAT_DCACHE_HANDED_OVER] = dcs.handed;
}

/* A TxQ or RxQ: its descriptors in a Buffer of the CN's in the pool. */
static int edm_rack_ring_init(struct edm_rack_cn *cn, struct edm_rack_ring *r)
{
	u32 bytes = EDM_RACK_RING * sizeof(struct edm_rack_desc);
	int err;

	spin_lock_init(&r->lock);
	err = edm_alloc_shared_buffer(&cn->pn, bytes, EDM_POOL_LOC_MEM, &r->ref,
				      (void **)&r->desc);
	if (err)
		return err;
	memset(r->desc, 0, bytes);
	return 0;
}

static void edm_rack_ring_fini(struct edm_rack_cn *cn, struct edm_rack_ring *r)
{
	if (r->desc)
		edm_free_shared_buffer(&cn->pn, r->ref);
	r->desc = NULL;
}

static void edm_rack_cn_free_parts(struct edm_rack_cn *cn)
{
	edm_rack_ring_fini(cn, &cn->rxq);
	edm_rack_ring_fini(cn, &cn->txq);
	edm_pool_node_fini(&cn->pn);
	free_percpu(cn->ctrs);
}

static int edm_rack_cn_init_parts(struct edm_rack_cn *cn, const struct edm_rack_dc_cfg *dc,
				  struct netlink_ext_ack *extack)
{
	int err;

	cn->ctrs = alloc_percpu(struct edm_rack_cn_stats);
	if (!cn->ctrs)
		return -ENOMEM;
	err = edm_pool_node_init(&cn->pn, cn->rack->pool, extack);
	if (err) {
		free_percpu(cn->ctrs);
		return err;
	}
	err = edm_rack_ring_init(cn, &cn->txq) ?: edm_rack_ring_init(cn, &cn->rxq);
	if (err) {
		NL_SET_ERR_MSG(extack, "the pool has no room for the node's queues");
		goto err_parts;
	}
	if (dc->sets) {
		err = edm_pool_node_dcache_set(&cn->pn, dc->region, dc->sets, dc->ways, dc->gran,
					       dc->min_len, extack);
		if (err)
			goto err_parts;
	}
	return 0;

err_parts:
	edm_rack_cn_free_parts(cn);
	return err;
}

/*
 * edm_rack_cn_create() - a CN of @rack named @name. @netdev: the netdev
 * `ip link add` allocated (with our setup and its name), or NULL to
 * allocate one in the rack's netns; on failure, `ip link add` frees its
 * own. RTNL and the registry lock held.
 */
struct edm_rack_cn *edm_rack_cn_create(struct edm_rack *rack, const char *name,
				       const struct edm_rack_dc_cfg *dc,
				       struct net_device *netdev,
				       struct netlink_ext_ack *extack)
{
	bool ours = !netdev;
	struct edm_rack_cn *cn;
	int err;

	ASSERT_RTNL();
	if (edm_rack_cn_find(rack, name)) {
		NL_SET_ERR_MSG(extack, "the rack has a compute node of that name");
		return ERR_PTR(-EEXIST);
	}
	if (ours) {
		netdev = alloc_netdev(sizeof(*cn), name, NET_NAME_USER, edm_rack_cn_setup);
		if (!netdev)
			return ERR_PTR(-ENOMEM);
		dev_net_set(netdev, rack->edev->net);
	}
	netdev->rtnl_link_ops = &edm_rack_cn_link_ops;
	cn = netdev_priv(netdev);
	cn->rack = rack;
	cn->netdev = netdev;
	strscpy(cn->name, name, sizeof(cn->name));
	netif_napi_add(netdev, &cn->engine, edm_rack_engine_poll);
	netif_napi_add(netdev, &cn->rx, edm_rack_rx_poll);
	err = edm_rack_cn_init_parts(cn, dc, extack);
	if (err)
		goto err_napi;
	err = register_netdevice(netdev);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot register the netdev (name taken?)");
		goto err_parts;
	}
	/* from here on, unregistering frees everything (edm_rack_cn_uninit) */
	cn->live = true;
	netdev->needs_free_netdev = true;
	netif_carrier_off(netdev);
	rcu_assign_pointer(rack->cn[cn->pn.id], cn);
	rack->ncn++;
	edm_obj_get(EDM_OBJ_CN);
	netdev_dbg(netdev, "compute node %u of rack %s created\n", cn->pn.id, rack->edev->name);
	return cn;

err_parts:
	edm_rack_cn_free_parts(cn);
err_napi:
	netif_napi_del(&cn->rx);
	netif_napi_del(&cn->engine);
	if (ours)
		free_netdev(netdev);
	return ERR_PTR(err);
}

/*
 * Teardown, under RTNL and the registry lock, in this order: unpublish, so
 * no xmit or engine finds the CN any more; unregister the netdev, at once
 * or on @kill (`ip link del`'s and a dying netns's batch). Unregistering
 * stops it (both NAPIs off, the rings drained, no xmit left in flight),
 * waits a grace period for engines that found it before, and calls
 * edm_rack_cn_uninit().
 */
void edm_rack_cn_destroy_queued(struct edm_rack_cn *cn, struct list_head *kill)
{
	struct edm_rack *rack = cn->rack;

	ASSERT_RTNL();
	RCU_INIT_POINTER(rack->cn[cn->pn.id], NULL);
	rack->ncn--;
	unregister_netdevice_queue(cn->netdev, kill);
}

void edm_rack_cn_destroy(struct edm_rack_cn *cn)
{
	edm_rack_cn_destroy_queued(cn, NULL);
}

/*
 * The netdev's ndo_uninit: drain what engines posted before the grace
 * period, then the queues, the pool node (Buffers the stack still has
 * pass to the LPPU) and the memory. The netdev itself is freed when RTNL
 * is released and its last reference is gone.
 */
void edm_rack_cn_uninit(struct net_device *netdev)
{
	struct edm_rack_cn *cn = netdev_priv(netdev);

	if (!cn->live)	/* registration failed: the creator undoes it */
		return;
	cn->live = false;
	edm_rack_cn_drain(cn);
	edm_rack_cn_free_parts(cn);
	netif_napi_del(&cn->rx);
	netif_napi_del(&cn->engine);
	netdev_dbg(netdev, "compute node destroyed\n");
	edm_obj_put(EDM_OBJ_CN);
}

static int edm_rack_create(struct edm_dev *edev, const void *arg, struct netlink_ext_ack *extack)
{
	const struct edm_rack_cfg *cfg = arg;
	struct edm_rack *rack;

	if (!cfg) {
		NL_SET_ERR_MSG(extack, "create racks with RACK_NEW (edmctl rack create)");
		return -EOPNOTSUPP;
	}
	rack = kzalloc(sizeof(*rack), GFP_KERNEL);
	if (!rack)
		return -ENOMEM;
	rack->edev = edev;
	rack->pool = cfg->pool;
	edm_mpool_get(rack->pool);
	rack->pool->users++;
	edev->type_priv = rack;
	return 0;
}

static void edm_rack_destroy(struct edm_dev *edev)
{
	struct edm_rack *rack = edm_rack_of(edev);
	struct edm_nicpool *np = rcu_dereference_protected(rack->np, true);
	struct edm_rack_cn *cn;
	int i;

	/* only when its netns goes (RACK_DEL refuses): the NIC pool stays, without a rack */
	if (np)
		edm_nicpool_detach(np);
	for (i = 0; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference_protected(rack->cn[i], true);
		if (cn)
			edm_rack_cn_destroy(cn);
	}
	rack->pool->users--;
	edm_mpool_put(rack->pool);
	kfree(rack);
}

const struct edm_dev_type_ops edm_rack_dev_type = {
	.name = "rack",
	.create = edm_rack_create,
	.destroy = edm_rack_destroy,
};
