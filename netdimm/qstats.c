// SPDX-License-Identifier: GPL-2.0
/*
 * An ndimm's per-queue statistics in the netdev netlink family (qstats-get,
 * 6.10 and later; include/edm/compat.h makes this a no-op on 6.1), and the
 * link from its queues to the NAPI that serves them (queue-get, 6.8 and
 * later). A NetDIMM has one TX and one RX ring, queue 0 of each direction,
 * so a queue's counters are the device's own, those of ndo_get_stats64 and
 * ethtool -S; with no history off the live queues, the base stats are zero.
 * Reads per-CPU counters; no locking. The NAPI links change under RTNL.
 */
#include "edm/compat.h"
#include "netdimm.h"

static void edm_netdimm_qstats_rx(struct net_device *dev, int idx,
				  struct netdev_queue_stats_rx *rx)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm_stats sum = {};

	edm_netdimm_stats_sum(nd->ctrs, &sum);
	rx->packets = sum.v[EDM_A_NDSTAT_RX_PACKETS];
	rx->bytes = sum.v[EDM_A_NDSTAT_RX_BYTES];
	rx->hw_drops = sum.v[EDM_A_NDSTAT_RX_DROPS];
}

static void edm_netdimm_qstats_tx(struct net_device *dev, int idx,
				  struct netdev_queue_stats_tx *tx)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm_stats sum = {};

	edm_netdimm_stats_sum(nd->ctrs, &sum);
	tx->packets = sum.v[EDM_A_NDSTAT_TX_PACKETS];
	tx->bytes = sum.v[EDM_A_NDSTAT_TX_BYTES];
	tx->hw_drops = sum.v[EDM_A_NDSTAT_TX_DROPS];
}

/* Zero, but reported: the device's totals are exactly its queues' sums. */
static void edm_netdimm_qstats_base(struct net_device *dev, struct netdev_queue_stats_rx *rx,
				    struct netdev_queue_stats_tx *tx)
{
	rx->packets = 0;
	rx->bytes = 0;
	rx->hw_drops = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->hw_drops = 0;
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

/* Under RTNL: queue 0 of each direction is served by @napi, or by none (NULL). */
void edm_netdimm_queues_napi(struct net_device *dev, struct napi_struct *napi)
{
	ASSERT_RTNL();
	netif_queue_set_napi(dev, 0, NETDEV_QUEUE_TYPE_RX, napi);
	netif_queue_set_napi(dev, 0, NETDEV_QUEUE_TYPE_TX, napi);
}
