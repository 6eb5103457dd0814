// SPDX-License-Identifier: GPL-2.0
/*
 * EDM fabric nodes: the two device types (host, switch), their lifetime and
 * the NAPI poll that runs each of them.
 *
 * A node is an edm device created and destroyed under its netns's registry
 * lock. Everything it does happens in its poll, under node->lock: bursts from
 * the inbox are decoded and handed to the host stack or the switch, the
 * kind's own work runs, and the ports' TX muxes are drained into bursts that
 * are sent once the lock is dropped. Other contexts (ioctls, timers, link
 * changes) only queue work and kick the NAPI.
 *
 * Teardown, in this order: mark dead and fail what is pending (no new work is
 * accepted), remove the links (after which nobody can deliver to us), stop
 * the NAPI, wait for link-down events in flight, unregister the host's
 * netdev, drop the registry's reference. Open /dev/edm<N> files keep the
 * memory until they close; nothing keeps the netns, whose exit destroys
 * its nodes.
 */
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "fab.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

u64 edm_fab_now_ns(void)
{
	return ktime_get_ns();
}

/* Run the node's poll soon; any context but hard IRQ. */
void edm_fab_node_kick(struct edm_fab_node *n)
{
	local_bh_disable();
	napi_schedule(&n->napi);
	local_bh_enable();
}

void edm_fab_port_rx(struct edm_fab_port *p, struct sk_buff *skb)
{
	struct edm_fab_node *n = p->node;

	if (unlikely(READ_ONCE(n->dead))) {
		kfree_skb(skb);
		return;
	}
	*(struct edm_fab_port **)skb->cb = p;
	skb_queue_tail(&n->inbox, skb);
	napi_schedule(&n->napi);
}

/* Returns when the ports' first retry is due (link-level retry), or U64_MAX. */
static u64 edm_fab_flush_ports(struct edm_fab_node *n)
{
	u64 due = U64_MAX;
	u32 i;

	for (i = 0; i < n->nports; i++)
		due = min(due, edm_fab_port_flush(&n->port[i]));
	return due;
}

/* Poll again when a retry or a timeout is due, unless the tick already fires sooner. */
static void edm_fab_tick_at(struct edm_fab_node *n, u64 due)
{
	ktime_t at;

	if (due == U64_MAX)
		return;
	at = ns_to_ktime(max(due, edm_fab_now_ns() + EDM_LLR_TICK_NS));
	if (!hrtimer_active(&n->tick) || ktime_before(at, hrtimer_get_expires(&n->tick)))
		hrtimer_start(&n->tick, at, HRTIMER_MODE_ABS_SOFT);
}

static int edm_fab_poll(struct napi_struct *napi, int budget)
{
	struct edm_fab_node *n = container_of(napi, struct edm_fab_node, napi);
	struct sk_buff_head out, up;
	struct sk_buff *skb;
	u64 due;
	int done = 0;

	while (done < budget && (skb = skb_dequeue(&n->inbox))) {
		spin_lock(&n->lock);
		edm_fab_port_rx_burst(edm_port_of_skb(skb), skb);
		spin_unlock(&n->lock);
		done++;
	}

	spin_lock(&n->lock);
	edm_fab_node_timers(n);
	if (n->kind == EDM_FAB_HOST)
		due = edm_fab_host_poll(n);
	else
		due = edm_fab_switch_poll(n);
	due = min(due, edm_fab_flush_ports(n));
	__skb_queue_head_init(&out);
	__skb_queue_head_init(&up);
	skb_queue_splice_init(&n->txq, &out);
	skb_queue_splice_init(&n->rxq, &up);
	spin_unlock(&n->lock);

	while ((skb = __skb_dequeue(&out)))
		edm_fab_port_xmit(edm_port_of_skb(skb), skb);
	if (n->kind == EDM_FAB_HOST)
		edm_fab_netdev_deliver(n, &up);

	if (n->kind == EDM_FAB_HOST)
		edm_fab_host_complete(n);
	edm_fab_tick_at(n, due);

	if (done < budget && napi_complete_done(napi, done)) {
		/* what came in after the last look */
		if (!skb_queue_empty_lockless(&n->inbox))
			napi_schedule(napi);
	}
	return done;
}

static enum hrtimer_restart edm_fab_tick(struct hrtimer *t)
{
	struct edm_fab_node *n = container_of(t, struct edm_fab_node, tick);

	napi_schedule(&n->napi);
	return HRTIMER_NORESTART;
}

static void edm_fab_node_release(struct kref *ref)
{
	struct edm_fab_node *n = container_of(ref, struct edm_fab_node, ref);
	u32 i;

	if (n->kind == EDM_FAB_HOST)
		edm_fab_host_free(n);
	else
		edm_fab_switch_free(n);
	for (i = 0; i < n->nports; i++)
		edm_fab_port_uninit(&n->port[i]);
	kfree(n->port);
	kvfree(n->scratch);
	kfree(n->napi_dev);
	kfree(n);
	edm_obj_put(EDM_OBJ_FABRIC);
}

struct edm_fab_node *edm_fab_node_get(struct edm_fab_node *n)
{
	kref_get(&n->ref);
	return n;
}

void edm_fab_node_put(struct edm_fab_node *n)
{
	if (n)
		kref_put(&n->ref, edm_fab_node_release);
}

struct edm_fab_node *edm_fab_node_of(const struct edm_dev *dev)
{
	if (dev->type != EDM_DEV_TYPE_FHOST && dev->type != EDM_DEV_TYPE_FSWITCH)
		return NULL;
	return dev->type_priv;
}

const char *edm_fab_node_name(const struct edm_fab_node *n)
{
	return n->name;
}

bool edm_fab_node_is_host(const struct edm_fab_node *n)
{
	return n->kind == EDM_FAB_HOST;
}

u32 edm_fab_node_nports(const struct edm_fab_node *n)
{
	return n->nports;
}

void edm_fab_node_info(struct edm_fab_node *n, struct edm_fab_node_info *info)
{
	memset(info, 0, sizeof(*info));
	info->is_host = n->kind == EDM_FAB_HOST;
	spin_lock_bh(&n->lock);
	info->cfg = n->cfg;
	if (info->is_host)
		edm_fab_host_stats(n, &info->stats);
	else
		edm_fab_switch_stats(n, &info->stats);
	spin_unlock_bh(&n->lock);
	info->minor = info->is_host ? edm_fab_host_minor(n) : -1;
}

static int edm_fab_cfg_check(enum edm_fab_kind kind, struct edm_fab_node_cfg *cfg,
			     struct netlink_ext_ack *extack)
{
	struct edm_sched_cfg sc;

	if (kind == EDM_FAB_HOST) {
		if (cfg->addr > EDM_FAB_ADDR_MAX) {
			NL_SET_ERR_MSG(extack, "host address must be 0..511");
			return -ERANGE;
		}
		if (cfg->region_size > EDM_FAB_REGION_MAX ||
		    !IS_ALIGNED(cfg->region_size, PAGE_SIZE)) {
			NL_SET_ERR_MSG(extack, "region size: a multiple of 4 KiB, at most 1 GiB");
			return -EINVAL;
		}
		if (!cfg->nports)
			cfg->nports = 1;
		if (cfg->nports > EDM_FAB_HOST_PORTS_MAX) {
			NL_SET_ERR_MSG(extack, "a host has 1 or 2 ports");
			return -ERANGE;
		}
		if (!cfg->timeout_ms)
			cfg->timeout_ms = EDM_FAB_DEFAULT_TIMEOUT_MS;
		if (cfg->timeout_ms > EDM_FAB_TIMEOUT_MS_MAX) {
			NL_SET_ERR_MSG(extack, "timeout must be at most 60000 ms");
			return -ERANGE;
		}
		if (!cfg->timeout_min_us)
			cfg->timeout_min_us = max(cfg->timeout_ms * USEC_PER_MSEC / 4,
						  (u32)EDM_FAB_TIMEOUT_MIN_US_MIN);
		if (cfg->timeout_min_us < EDM_FAB_TIMEOUT_MIN_US_MIN ||
		    cfg->timeout_min_us > cfg->timeout_ms * USEC_PER_MSEC) {
			NL_SET_ERR_MSG(extack, "timeout-min: 100 us up to timeout");
			return -ERANGE;
		}
		return 0;
	}
	if (!cfg->nports)
		cfg->nports = EDM_FAB_DEFAULT_PORTS;
	if (!cfg->x)
		cfg->x = EDM_SCHED_DEFAULT_X;
	if (!cfg->chunk)
		cfg->chunk = EDM_SCHED_DEFAULT_CHUNK;
	if (!cfg->rate_mbps)
		cfg->rate_mbps = EDM_FAB_DEFAULT_RATE;
	sc.nports = cfg->nports;
	sc.x = cfg->x;
	sc.chunk = cfg->chunk;
	sc.rate_mbps = cfg->rate_mbps;
	sc.policy = cfg->policy;
	if (cfg->chunk < EDM_FAB_CHUNK_MIN || cfg->chunk > EDM_FAB_CHUNK_MAX ||
	    edm_sched_cfg_check(&sc)) {
		NL_SET_ERR_MSG(extack,
			       "switch needs 2..512 ports, x 1..16, chunk 8..65519 and a rate dividing 8 Tb/s");
		return -EINVAL;
	}
	return 0;
}

static int edm_fab_node_create(struct edm_dev *dev, enum edm_fab_kind kind, const void *cfg,
			       struct netlink_ext_ack *extack)
{
	struct net_device *ndev;
	struct edm_fab_node *n;
	u32 i;
	int err;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	if (cfg)
		n->cfg = *(const struct edm_fab_node_cfg *)cfg;
	ndev = n->cfg.netdev;		/* `ip link add`'s; n->ndev once registered */
	n->cfg.netdev = NULL;
	n->kind = kind;
	err = edm_fab_cfg_check(kind, &n->cfg, extack);
	if (err)
		goto err_free;
	kref_init(&n->ref);
	n->dev = dev;
	n->net = dev->net;
	strscpy(n->name, dev->name, sizeof(n->name));
	spin_lock_init(&n->lock);
	skb_queue_head_init(&n->inbox);
	__skb_queue_head_init(&n->txq);
	__skb_queue_head_init(&n->rxq);
	hrtimer_init(&n->tick, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	n->tick.function = edm_fab_tick;
	n->nports = n->cfg.nports;

	err = -ENOMEM;
	n->napi_dev = kzalloc(sizeof(*n->napi_dev), GFP_KERNEL);
	n->port = kcalloc(n->nports, sizeof(*n->port), GFP_KERNEL);
	n->scratch = kvmalloc_array(EDM_BURST_BLOCKS, sizeof(*n->scratch), GFP_KERNEL);
	if (!n->napi_dev || !n->port || !n->scratch)
		goto err_net;
	for (i = 0; i < n->nports; i++) {
		err = edm_fab_port_init(n, &n->port[i], i);
		if (err)
			goto err_ports;
	}
	err = kind == EDM_FAB_HOST ? edm_fab_host_create(n) : edm_fab_switch_create(n);
	if (err)
		goto err_ports;

	init_dummy_netdev(n->napi_dev);
	netif_napi_add(n->napi_dev, &n->napi, edm_fab_poll);
	napi_enable(&n->napi);
	edm_obj_get(EDM_OBJ_FABRIC);
	dev->type_priv = n;

	if (kind == EDM_FAB_HOST) {
		err = edm_fab_netdev_create(n, ndev);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot register the host's netdev (name taken?)");
			goto err_napi;
		}
		err = edm_fab_cdev_add(n);
		if (err) {
			NL_SET_ERR_MSG(extack, "could not register /dev/edm<N>");
			goto err_napi;
		}
	}
	pr_debug("fabric %s %s created\n", kind == EDM_FAB_HOST ? "host" : "switch", n->name);
	return 0;

err_napi:
	dev->type_priv = NULL;
	napi_disable(&n->napi);
	netif_napi_del(&n->napi);
	edm_fab_netdev_destroy(n, NULL);
	edm_fab_node_put(n);
	return err;

err_ports:
	while (i--)
		edm_fab_port_uninit(&n->port[i]);
err_net:
	kvfree(n->scratch);
	kfree(n->port);
	kfree(n->napi_dev);
err_free:
	kfree(n);
	return err;
}

static void edm_fab_node_destroy(struct edm_dev *dev)
{
	struct edm_fab_node *n = dev->type_priv;
	u32 i;

	if (!n)
		return;
	/* 1. No new work: ops fail with ENODEV from here on. */
	spin_lock_bh(&n->lock);
	WRITE_ONCE(n->dead, true);
	n->dev = NULL;
	spin_unlock_bh(&n->lock);
	if (n->kind == EDM_FAB_HOST) {
		edm_fab_cdev_del(n);
		edm_fab_host_stop(n);
	} else {
		edm_fab_switch_stop(n);
	}
	/* 2. Nobody can deliver to us once the links are gone. */
	edm_fab_node_unlink_all(n);
	/* 3. The poll is the last user of the ports' queues. */
	napi_disable(&n->napi);
	hrtimer_cancel(&n->tick);	/* after: the poll arms it */
	netif_napi_del(&n->napi);
	skb_queue_purge(&n->inbox);
	/*
	 * 4. A link-down event still to be sent is the last user of n->net,
	 * which the node does not pin: the netns destroys its nodes before
	 * it goes, so a node cannot keep a deleted netns alive.
	 */
	for (i = 0; i < n->nports; i++)
		if (cancel_work_sync(&n->port[i].down_work))
			edm_fab_node_put(n);
	if (n->kind == EDM_FAB_HOST) {
		edm_fab_netdev_destroy(n, dev->kill);
		edm_fab_host_complete(n);
	}
	dev->type_priv = NULL;
	pr_debug("fabric node %s destroyed\n", n->name);
	edm_fab_node_put(n);
}

static int edm_fhost_create(struct edm_dev *dev, const void *cfg, struct netlink_ext_ack *extack)
{
	return edm_fab_node_create(dev, EDM_FAB_HOST, cfg, extack);
}

static int edm_fswitch_create(struct edm_dev *dev, const void *cfg,
			      struct netlink_ext_ack *extack)
{
	return edm_fab_node_create(dev, EDM_FAB_SWITCH, cfg, extack);
}

const struct edm_dev_type_ops edm_fhost_dev_type = {
	.name = "fabric-host",
	.create = edm_fhost_create,
	.destroy = edm_fab_node_destroy,
};

const struct edm_dev_type_ops edm_fswitch_dev_type = {
	.name = "fabric-switch",
	.create = edm_fswitch_create,
	.destroy = edm_fab_node_destroy,
};
