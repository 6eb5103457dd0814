// SPDX-License-Identifier: GPL-2.0
/*
 * An ndimm's queue pairs and rings: how many pairs are in use (ethtool -l
 * and -L: one per CPU by default, up to one per possible CPU and at most
 * EDM_NETDIMM_QUEUES_MAX) and how many descriptors each TX and RX ring has
 * (ethtool -g and -G); which CPU sends on which pair (XPS: the online CPUs
 * in turn); the start and stop of the queues' polling agents.
 *
 * A change runs under RTNL. The new rings are made in the zone first, so a
 * zone without room for them changes nothing. Then the device closes:
 * tx_closed keeps its polling agents and its peer's from waking a TX
 * queue, rx_closed keeps producers out of the RX rings, and after a grace
 * period the TX queues stop (no xmit is in a ring after that) and the
 * polling agents too. The old TX rings are cleaned (their packets are on
 * the wire already); what waits in the old RX rings moves to the new ones,
 * oldest first, RX queue i's to queue i modulo the new count, and only
 * what no longer fits is dropped and counted. The new rings go in, the
 * device opens, and its TX queues and the peer's start again.
 */
#include <linux/cpumask.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "netdimm.h"
#include "trace.h"

unsigned int edm_netdimm_max_queues(void)
{
	return clamp_t(unsigned int, num_possible_cpus(), 1, EDM_NETDIMM_QUEUES_MAX);
}

/* Zone bytes a queue pair's two rings take. */
static u64 edm_netdimm_pair_bytes(u32 tx_size, u32 rx_size)
{
	size_t d = sizeof(struct edm_netdimm_desc);

	return (PAGE_SIZE << get_order(tx_size * d)) + (PAGE_SIZE << get_order(rx_size * d));
}

/* XPS: the k-th online CPU sends on pair k modulo the count. A failure
 * (no memory) leaves the stack's choice by flow hash, which also works.
 */
static void edm_netdimm_set_xps(struct edm_netdimm *nd)
{
	cpumask_var_t mask;
	unsigned int i, k;
	int cpu;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return;
	for (i = 0; i < nd->nq; i++) {
		cpumask_clear(mask);
		k = 0;
		for_each_online_cpu(cpu)
			if (k++ % nd->nq == i)
				cpumask_set_cpu(cpu, mask);
		if (netif_set_xps_queue(nd->netdev, mask, i))
			netdev_dbg(nd->netdev, "no XPS map for queue %u\n", i);
	}
	free_cpumask_var(mask);
}

/*
 * The queues of a new device, before its netdev is registered: one pair
 * per online CPU, fewer if their rings would take more than a quarter of
 * the zone. On failure the caller's edm_netdimm_queues_fini() cleans up.
 */
int edm_netdimm_queues_init(struct edm_netdimm *nd, struct netlink_ext_ack *extack)
{
	struct net_device *dev = nd->netdev;
	unsigned int i, n;
	int err;

	nd->nq_max = min3(dev->num_tx_queues, dev->num_rx_queues,
			  (unsigned int)EDM_NETDIMM_QUEUES_MAX);
	nd->q = kcalloc(nd->nq_max, sizeof(*nd->q), GFP_KERNEL);
	nd->ctrs = __alloc_percpu(nd->nq_max * sizeof(struct edm_netdimm_stats),
				  __alignof__(struct edm_netdimm_stats));
	if (!nd->q || !nd->ctrs)
		return -ENOMEM;
	spin_lock_init(&nd->wire_lock);
	for (i = 0; i < nd->nq_max; i++) {
		struct edm_netdimm_queue *q = &nd->q[i];

		q->nd = nd;
		q->idx = i;
		q->ctrs = nd->ctrs + i;
		spin_lock_init(&q->rx.lock);
		hrtimer_init(&q->poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		q->poll_timer.function = edm_netdimm_poll_timer;
		hrtimer_init(&q->wire_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
		q->wire_timer.function = edm_netdimm_wire_timer;
		netif_napi_add(dev, &q->napi, edm_netdimm_poll);
	}
	nd->tx_size = EDM_NETDIMM_RING;
	nd->rx_size = EDM_NETDIMM_RING;
	n = min(num_online_cpus(), nd->nq_max);
	while (n > 1 && n * edm_netdimm_pair_bytes(nd->tx_size, nd->rx_size) > nd->zone->size / 4)
		n--;
	for (i = 0; i < n; i++) {
		err = edm_netdimm_ring_init(nd, &nd->q[i].tx, nd->tx_size) ?:
		      edm_netdimm_ring_init(nd, &nd->q[i].rx, nd->rx_size);
		if (err) {
			NL_SET_ERR_MSG(extack, "zone too small for the descriptor rings");
			return err;
		}
	}
	nd->nq = n;
	nd->nq_seen = n;
	err = netif_set_real_num_queues(dev, n, n);
	if (!err)
		edm_netdimm_set_xps(nd);
	return err;
}

/* The netdev's destructor, or a failed creation: rings, NAPIs, counters. */
void edm_netdimm_queues_fini(struct edm_netdimm *nd)
{
	unsigned int i;

	for (i = 0; nd->q && i < nd->nq_max; i++) {
		edm_netdimm_ring_fini(nd, &nd->q[i].rx);
		edm_netdimm_ring_fini(nd, &nd->q[i].tx);
		netif_napi_del(&nd->q[i].napi);
	}
	kfree(nd->q);
	nd->q = NULL;
	free_percpu(nd->ctrs);
	nd->ctrs = NULL;
}

/* Under RTNL: start the polling agents of the queues in use. */
void edm_netdimm_queues_open(struct edm_netdimm *nd)
{
	unsigned int i;

	for (i = 0; i < nd->nq; i++) {
		struct edm_netdimm_queue *q = &nd->q[i];

		napi_enable(&q->napi);
		if (nd->poll_us)
			hrtimer_start(&q->poll_timer,
				      ns_to_ktime((u64)nd->poll_us * NSEC_PER_USEC),
				      HRTIMER_MODE_REL);
	}
	edm_netdimm_queues_napi(nd, true);
	for (i = 0; i < nd->nq; i++)
		napi_schedule(&nd->q[i].napi);	/* what arrived while we were down */
}

/* Under RTNL, the TX queues stopped: stop the polling agents, clean the TX rings. */
void edm_netdimm_queues_close(struct edm_netdimm *nd)
{
	unsigned int i;

	edm_netdimm_queues_napi(nd, false);
	for (i = 0; i < nd->nq; i++) {
		struct edm_netdimm_queue *q = &nd->q[i];

		napi_disable(&q->napi);		/* first: a poll may arm wire_timer */
		hrtimer_cancel(&q->poll_timer);
		hrtimer_cancel(&q->wire_timer);
		edm_netdimm_tx_clean(q, false);
	}
}

static void edm_netdimm_rings_free(struct edm_netdimm *nd, struct edm_netdimm_ring *tx,
				   struct edm_netdimm_ring *rx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		edm_netdimm_ring_fini(nd, &rx[i]);
		edm_netdimm_ring_fini(nd, &tx[i]);
	}
	kfree(tx);
	kfree(rx);
}

/* What waits in RX queue @q's old ring, into the new rings @rx (@n of them). */
static void edm_netdimm_rx_move(struct edm_netdimm_queue *q, struct edm_netdimm_ring *rx,
				unsigned int n)
{
	struct edm_netdimm_ring *o = &q->rx, *to = &rx[q->idx % n];

	for (; o->cons != o->prod; o->cons++) {
		struct edm_netdimm_desc *d = edm_netdimm_slot(o, o->cons);

		if (to->prod - to->cons < to->size) {
			*edm_netdimm_slot(to, to->prod++) = *d;
			d->nseg = 0;
			continue;
		}
		trace_edm_ndimm_drop(netdev_name(q->nd->netdev), true, q->idx, d->len,
				     "rings resized");
		edm_netdimm_stat_inc(q->ctrs, EDM_A_NDSTAT_RX_DROPS);
		edm_netdimm_desc_release(q->nd, d);
	}
}

int edm_netdimm_reconfigure(struct edm_netdimm *nd, unsigned int nq, u32 tx_size, u32 rx_size,
			    struct netlink_ext_ack *extack)
{
	struct net_device *dev = nd->netdev;
	bool up = netif_running(dev);
	struct edm_netdimm_ring *tx, *rx;
	struct edm_netdimm *peer;
	unsigned int i, old = nd->nq;
	int err = -ENOMEM;

	ASSERT_RTNL();
	if (nq == nd->nq && tx_size == nd->tx_size && rx_size == nd->rx_size)
		return 0;
	tx = kcalloc(nq, sizeof(*tx), GFP_KERNEL);
	rx = kcalloc(nq, sizeof(*rx), GFP_KERNEL);
	for (i = 0; tx && rx && i < nq; i++) {
		err = edm_netdimm_ring_init(nd, &tx[i], tx_size) ?:
		      edm_netdimm_ring_init(nd, &rx[i], rx_size);
		if (err)
			break;
	}
	if (!tx || !rx || err) {
		NL_SET_ERR_MSG(extack, "the NETi zone has no room for these rings");
		edm_netdimm_rings_free(nd, tx, rx, tx && rx ? nq : 0);
		return -ENOMEM;
	}

	/* No poll or peer wakes a TX queue, and no producer is in an RX ring,
	 * after the grace period; no xmit is in a TX ring after the disable.
	 */
	WRITE_ONCE(nd->tx_closed, true);
	WRITE_ONCE(nd->rx_closed, true);
	synchronize_net();
	if (up) {
		netif_tx_disable(dev);
		edm_netdimm_queues_close(nd);
	}
	err = netif_set_real_num_queues(dev, nq, nq);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot set the netdev's queue count");
		edm_netdimm_rings_free(nd, tx, rx, nq);
		goto open;
	}
	for (i = 0; i < old; i++) {
		struct edm_netdimm_queue *q = &nd->q[i];

		edm_netdimm_tx_clean(q, false);
		edm_netdimm_rx_move(q, rx, nq);
		edm_netdimm_ring_fini(nd, &q->tx);
		edm_netdimm_ring_fini(nd, &q->rx);
		netdev_tx_reset_queue(netdev_get_tx_queue(dev, i));
	}
	for (i = 0; i < nq; i++) {
		nd->q[i].tx = tx[i];
		nd->q[i].rx = rx[i];
		spin_lock_init(&nd->q[i].rx.lock);
	}
	kfree(tx);
	kfree(rx);
	WRITE_ONCE(nd->nq, nq);
	nd->nq_seen = max(nd->nq_seen, nq);
	nd->tx_size = tx_size;
	nd->rx_size = rx_size;
	edm_netdimm_set_xps(nd);

open:
	/* release: the rings and the count before a producer sees RX open */
	smp_store_release(&nd->rx_closed, false);
	WRITE_ONCE(nd->tx_closed, false);
	if (up) {
		edm_netdimm_queues_open(nd);
		netif_tx_wake_all_queues(dev);
	}
	rcu_read_lock();
	peer = rcu_dereference(nd->peer);
	if (peer)
		edm_netdimm_wake_txqs(peer, -1);
	rcu_read_unlock();
	return err;
}
