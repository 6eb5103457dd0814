// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool for ndimm: driver info and `ethtool -S`, the same counters that
 * `edmctl netdimm stats` shows, named per queue (one TX and one RX queue)
 * and per zone; `ethtool -g` and `-l`: its two rings of fixed size, one
 * queue each way. Reads per-CPU counters; no locking.
 */
#include "edm/ethtool.h"

#include "netdimm.h"

static const struct edm_eth_stat edm_netdimm_stat_names[] = {
	{ "tx0_packets", EDM_A_NDSTAT_TX_PACKETS },
	{ "tx0_bytes", EDM_A_NDSTAT_TX_BYTES },
	{ "tx0_fast_path", EDM_A_NDSTAT_TX_FAST_PATH },
	{ "tx0_copy_needed", EDM_A_NDSTAT_TX_COPY_NEEDED },
	{ "tx0_sock_hints", EDM_A_NDSTAT_TX_SOCK_HINTS },
	{ "tx0_zone_fallback", EDM_A_NDSTAT_TX_ZONE_FALLBACK },
	{ "tx0_drops", EDM_A_NDSTAT_TX_DROPS },
	{ "rx0_packets", EDM_A_NDSTAT_RX_PACKETS },
	{ "rx0_bytes", EDM_A_NDSTAT_RX_BYTES },
	{ "rx0_zerocopy", EDM_A_NDSTAT_RX_ZEROCOPY },
	{ "rx0_cloned", EDM_A_NDSTAT_RX_CLONED },
	{ "rx0_zone_fallback", EDM_A_NDSTAT_RX_ZONE_FALLBACK },
	{ "rx0_drops", EDM_A_NDSTAT_RX_DROPS },
	{ "host_copies", EDM_A_NDSTAT_HOST_COPIES },
	{ "wire_copies", EDM_A_NDSTAT_WIRE_COPIES },
	{ "rx0_inline", EDM_A_NDSTAT_RX_INLINE },
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

static void edm_netdimm_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct edm_netdimm *nd = netdev_priv(dev);

	strscpy(info->driver, "edm-ndimm", sizeof(info->driver));
	strscpy(info->version, EDM_VERSION, sizeof(info->version));
	strscpy(info->bus_info, nd->zone->name, sizeof(info->bus_info));
	info->n_stats = ARRAY_SIZE(edm_netdimm_stat_names);
}

static int edm_netdimm_get_sset_count(struct net_device *dev, int sset)
{
	return edm_eth_sset_count(sset, ARRAY_SIZE(edm_netdimm_stat_names));
}

static void edm_netdimm_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	edm_eth_strings(sset, edm_netdimm_stat_names, ARRAY_SIZE(edm_netdimm_stat_names), buf);
}

static void edm_netdimm_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats,
					  u64 *data)
{
	struct edm_netdimm *nd = netdev_priv(dev);
	struct edm_netdimm_stats sum;

	edm_netdimm_fill_stats(nd, &sum);
	edm_eth_values(edm_netdimm_stat_names, ARRAY_SIZE(edm_netdimm_stat_names), sum.v, data);
}

/* The rings have EDM_NETDIMM_RING descriptors, fixed when the zone is made. */
static void edm_netdimm_get_ringparam(struct net_device *dev, struct ethtool_ringparam *rp,
				      struct kernel_ethtool_ringparam *krp,
				      struct netlink_ext_ack *extack)
{
	edm_eth_rings_fixed(rp, EDM_NETDIMM_RING, EDM_NETDIMM_RING);
}

const struct ethtool_ops edm_netdimm_ethtool_ops = {
	.get_drvinfo = edm_netdimm_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = edm_netdimm_get_sset_count,
	.get_strings = edm_netdimm_get_strings,
	.get_ethtool_stats = edm_netdimm_get_ethtool_stats,
	.get_ringparam = edm_netdimm_get_ringparam,
	.get_channels = edm_eth_get_one_channel,
};
