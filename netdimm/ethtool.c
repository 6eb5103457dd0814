// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool for ndimm: driver info; `ethtool -S`, the device's totals, which
 * are the counters `edmctl netdimm stats` shows, then each queue pair's
 * own (tx<i>_*, rx<i>_*) for every pair that has been in use; `ethtool -l`
 * and `-L`, the queue pairs (combined channels); `ethtool -g` and `-G`, the
 * descriptors per TX and RX ring, rounded up to a power of two.
 * Every callback runs under RTNL, which keeps the queue count stable
 * between -S's count, names and values.
 */
#include "edm/ethtool.h"

#include "netdimm.h"

static const struct edm_eth_stat edm_netdimm_stat_names[] = {
	{ "tx_packets", EDM_A_NDSTAT_TX_PACKETS },
	{ "tx_bytes", EDM_A_NDSTAT_TX_BYTES },
	{ "tx_fast_path", EDM_A_NDSTAT_TX_FAST_PATH },
	{ "tx_copy_needed", EDM_A_NDSTAT_TX_COPY_NEEDED },
	{ "tx_sock_hints", EDM_A_NDSTAT_TX_SOCK_HINTS },
	{ "tx_zone_fallback", EDM_A_NDSTAT_TX_ZONE_FALLBACK },
	{ "tx_drops", EDM_A_NDSTAT_TX_DROPS },
	{ "rx_packets", EDM_A_NDSTAT_RX_PACKETS },
	{ "rx_bytes", EDM_A_NDSTAT_RX_BYTES },
	{ "rx_zerocopy", EDM_A_NDSTAT_RX_ZEROCOPY },
	{ "rx_cloned", EDM_A_NDSTAT_RX_CLONED },
	{ "rx_zone_fallback", EDM_A_NDSTAT_RX_ZONE_FALLBACK },
	{ "rx_drops", EDM_A_NDSTAT_RX_DROPS },
	{ "host_copies", EDM_A_NDSTAT_HOST_COPIES },
	{ "wire_copies", EDM_A_NDSTAT_WIRE_COPIES },
	{ "rx_inline", EDM_A_NDSTAT_RX_INLINE },
	{ "polls", EDM_A_NDSTAT_POLLS },
	{ "zone_alloc_same_subarray", EDM_A_NDSTAT_ALLOC_SAME },
	{ "zone_alloc_other_subarray", EDM_A_NDSTAT_ALLOC_OTHER },
	{ "zone_alloc_fail", EDM_A_NDSTAT_ALLOC_FAIL },
	{ "zone_cache_hits", EDM_A_NDSTAT_CACHE_HITS },
	{ "zone_cache_misses", EDM_A_NDSTAT_CACHE_MISSES },
	{ "zone_cache_refills", EDM_A_NDSTAT_CACHE_REFILLS },
	{ "zone_reclaimed", EDM_A_NDSTAT_RECLAIMED },
	{ "clone_fpm", EDM_A_NDSTAT_CLONE_FPM },
	{ "clone_psm", EDM_A_NDSTAT_CLONE_PSM },
	{ "clone_gcm", EDM_A_NDSTAT_CLONE_GCM },
	{ "clone_bytes", EDM_A_NDSTAT_CLONE_BYTES },
	{ "clone_modeled_ns", EDM_A_NDSTAT_CLONE_MODELED_NS },
};

/* A queue pair's own counters; pair i names tx_packets tx<i>_packets. */
static const struct edm_eth_stat edm_netdimm_queue_names[] = {
	{ "tx_packets", EDM_A_NDSTAT_TX_PACKETS },
	{ "tx_bytes", EDM_A_NDSTAT_TX_BYTES },
	{ "tx_drops", EDM_A_NDSTAT_TX_DROPS },
	{ "rx_packets", EDM_A_NDSTAT_RX_PACKETS },
	{ "rx_bytes", EDM_A_NDSTAT_RX_BYTES },
	{ "rx_drops", EDM_A_NDSTAT_RX_DROPS },
	{ "rx_polls", EDM_A_NDSTAT_POLLS },
};

#define EDM_NETDIMM_NDEV	ARRAY_SIZE(edm_netdimm_stat_names)
#define EDM_NETDIMM_NQ		ARRAY_SIZE(edm_netdimm_queue_names)

static int edm_netdimm_nstats(const struct edm_netdimm *nd)
{
	return EDM_NETDIMM_NDEV + nd->nq_seen * EDM_NETDIMM_NQ;
}

static void edm_netdimm_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	strscpy(info->driver, "edm-ndimm", sizeof(info->driver));
	strscpy(info->version, EDM_VERSION, sizeof(info->version));
	strscpy(info->bus_info, nd->zone->name, sizeof(info->bus_info));
	info->n_stats = edm_netdimm_nstats(nd);
}

static int edm_netdimm_get_sset_count(struct net_device *dev, int sset)
{
	return edm_eth_sset_count(sset, edm_netdimm_nstats(netdev_priv(dev)));
}

static void edm_netdimm_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	unsigned int i, j;

	if (sset != ETH_SS_STATS)
		return;
	edm_eth_strings(sset, edm_netdimm_stat_names, EDM_NETDIMM_NDEV, buf);
	buf += EDM_NETDIMM_NDEV * ETH_GSTRING_LEN;
	for (i = 0; i < nd->nq_seen; i++)
		for (j = 0; j < EDM_NETDIMM_NQ; j++, buf += ETH_GSTRING_LEN)
			snprintf(buf, ETH_GSTRING_LEN, "%.2s%u%s", edm_netdimm_queue_names[j].name,
				 i, edm_netdimm_queue_names[j].name + 2);
}

static void edm_netdimm_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats,
					  u64 *data)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm_stats sum;
	unsigned int i;

	edm_netdimm_fill_stats(nd, &sum);
	edm_eth_values(edm_netdimm_stat_names, EDM_NETDIMM_NDEV, sum.v, data);
	data += EDM_NETDIMM_NDEV;
	for (i = 0; i < nd->nq_seen; i++, data += EDM_NETDIMM_NQ) {
		memset(&sum, 0, sizeof(sum));
		edm_netdimm_queue_stats(nd, i, i + 1, &sum);
		edm_eth_values(edm_netdimm_queue_names, EDM_NETDIMM_NQ, sum.v, data);
	}
}

static void edm_netdimm_get_ringparam(struct net_device *dev, struct ethtool_ringparam *rp,
				      struct kernel_ethtool_ringparam *krp,
				      struct netlink_ext_ack *extack)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	rp->rx_max_pending = EDM_NETDIMM_RING_MAX;
	rp->tx_max_pending = EDM_NETDIMM_RING_MAX;
	rp->rx_pending = nd->rx_size;
	rp->tx_pending = nd->tx_size;
}

/* The core has checked the sizes against the maxima and refused mini and jumbo rings. */
static int edm_netdimm_set_ringparam(struct net_device *dev, struct ethtool_ringparam *rp,
				     struct kernel_ethtool_ringparam *krp,
				     struct netlink_ext_ack *extack)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	BUILD_BUG_ON(EDM_NETDIMM_RING_MIN != 64);
	if (rp->rx_pending < EDM_NETDIMM_RING_MIN || rp->tx_pending < EDM_NETDIMM_RING_MIN) {
		NL_SET_ERR_MSG(extack, "a ring has 64 descriptors at least");
		return -EINVAL;
	}
	return edm_netdimm_reconfigure(nd, nd->nq, roundup_pow_of_two(rp->tx_pending),
				       roundup_pow_of_two(rp->rx_pending), extack);
}

static void edm_netdimm_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	ch->max_combined = nd->nq_max;
	ch->combined_count = nd->nq;
}

/* Queue pairs only: the core has checked the counts against the maxima. */
static int edm_netdimm_set_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	if (!ch->combined_count || ch->rx_count || ch->tx_count || ch->other_count)
		return -EINVAL;
	return edm_netdimm_reconfigure(nd, ch->combined_count, nd->tx_size, nd->rx_size, NULL);
}

const struct ethtool_ops edm_netdimm_ethtool_ops = {
	.get_drvinfo = edm_netdimm_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = edm_netdimm_get_sset_count,
	.get_strings = edm_netdimm_get_strings,
	.get_ethtool_stats = edm_netdimm_get_ethtool_stats,
	.get_ringparam = edm_netdimm_get_ringparam,
	.set_ringparam = edm_netdimm_set_ringparam,
	.get_channels = edm_netdimm_get_channels,
	.set_channels = edm_netdimm_set_channels,
};
