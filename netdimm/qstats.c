// SPDX-License-Identifier: GPL-2.0
/*
 * An ndimm's per-queue statistics in the netdev netlink family (qstats-get,
 * 6.10 and later; include/edm/compat.h makes this a no-op on 6.1), and the
 * link from its queues to the NAPI that serves them (queue-get, 6.8 and
 * later). Queue i of each direction is queue pair i's ring (netdimm/queues.c),
 * whose counters ethtool -S shows as tx<i>_* and rx<i>_*; the base stats
 * are the counters of the pairs no longer in use, so that base and queues
 * add up to the device's totals. Reads per-CPU counters; the queue count is
 * stable under RTNL, which the family holds. The NAPI links change under
 * RTNL.
 */
#include "edm/compat.h"
#include "netdimm.h"

static void edm_netdimm_fill_rx(const struct edm_netdimm_stats *sum,
				struct netdev_queue_stats_rx *rx)
{
	rx->packets = sum->v[EDM_A_NDSTAT_RX_PACKETS];
	rx->bytes = sum->v[EDM_A_NDSTAT_RX_BYTES];
	rx->hw_drops = sum->v[EDM_A_NDSTAT_RX_DROPS];
}

static void edm_netdimm_fill_tx(const struct edm_netdimm_stats *sum,
				struct netdev_queue_stats_tx *tx)
{
	tx->packets = sum->v[EDM_A_NDSTAT_TX_PACKETS];
	tx->bytes = sum->v[EDM_A_NDSTAT_TX_BYTES];
	tx->hw_drops = sum->v[EDM_A_NDSTAT_TX_DROPS];
}

static void edm_netdimm_qstats_rx(struct net_device *dev, int idx,
				  struct netdev_queue_stats_rx *rx)
{
	struct edm_netdimm_stats sum = {};

	edm_netdimm_queue_stats(netdev_priv(dev), idx, idx + 1, &sum);
	edm_netdimm_fill_rx(&sum, rx);
}

static void edm_netdimm_qstats_tx(struct net_device *dev, int idx,
				  struct netdev_queue_stats_tx *tx)
{
	struct edm_netdimm_stats sum = {};

	edm_netdimm_queue_stats(netdev_priv(dev), idx, idx + 1, &sum);
	edm_netdimm_fill_tx(&sum, tx);
}

/* What the queue pairs beyond those in use counted before ethtool -L. */
static void edm_netdimm_qstats_base(struct net_device *dev, struct netdev_queue_stats_rx *rx,
				    struct netdev_queue_stats_tx *tx)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm_stats sum = {};

	edm_netdimm_queue_stats(nd, nd->nq, nd->nq_max, &sum);
	edm_netdimm_fill_rx(&sum, rx);
	edm_netdimm_fill_tx(&sum, tx);
}

static const struct netdev_stat_ops edm_netdimm_stat_ops = {
	.get_queue_stats_rx = edm_netdimm_qstats_rx,
	.get_queue_stats_tx = edm_netdimm_qstats_tx,
	.get_base_stats = edm_netdimm_qstats_base,
};

void edm_netdimm_qstats_init(struct net_device *dev)
{
	edm_netdev_set_stat_ops(dev, &edm_netdimm_stat_ops);
}

/* Under RTNL: queue i of each direction is served by pair i's NAPI (@on) or by none. */
void edm_netdimm_queues_napi(struct edm_netdimm *nd, bool on)
{
	unsigned int i;

	ASSERT_RTNL();
	for (i = 0; i < nd->nq; i++) {
		struct napi_struct *napi = on ? &nd->q[i].napi : NULL;

		netif_queue_set_napi(nd->netdev, i, NETDEV_QUEUE_TYPE_RX, napi);
		netif_queue_set_napi(nd->netdev, i, NETDEV_QUEUE_TYPE_TX, napi);
	}
}
