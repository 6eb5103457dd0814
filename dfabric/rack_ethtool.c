// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool for a rack's compute-node netdev: driver info (bus-info names
 * the rack and the pool) and `ethtool -S`, every counter `edmctl rack
 * stats` has for the CN, under the same names with underscores. Takes the
 * pool node's and the DRAM cache's locks as the netlink reply does.
 * `ethtool -g` and `-l`: its TxQ and RxQ, of fixed size, one each way.
 */
#include "edm/ethtool.h"

#include "edm/edm.h"
#include "rack.h"

static const struct edm_eth_stat edm_cn_stat_names[] = {
	{ "tx_packets", EDM_A_CNSTAT_TX_PACKETS },
	{ "tx_bytes", EDM_A_CNSTAT_TX_BYTES },
	{ "rx_packets", EDM_A_CNSTAT_RX_PACKETS },
	{ "rx_bytes", EDM_A_CNSTAT_RX_BYTES },
	{ "copies", EDM_A_CNSTAT_COPIES },
	{ "copy_bytes", EDM_A_CNSTAT_COPY_BYTES },
	{ "forwarded", EDM_A_CNSTAT_FORWARDED },
	{ "tx_drops", EDM_A_CNSTAT_TX_DROPS },
	{ "rx_drops", EDM_A_CNSTAT_RX_DROPS },
	{ "enomem", EDM_A_CNSTAT_ENOMEM },
	{ "refused", EDM_A_CNSTAT_REFUSED },
	{ "sections", EDM_A_CNSTAT_SECTIONS },
	{ "buffers", EDM_A_CNSTAT_BUFFERS },
	{ "dcache_hits", EDM_A_CNSTAT_DCACHE_HITS },
	{ "dcache_misses", EDM_A_CNSTAT_DCACHE_MISSES },
	{ "dcache_bypassed", EDM_A_CNSTAT_DCACHE_BYPASSED },
	{ "dcache_evictions", EDM_A_CNSTAT_DCACHE_EVICTIONS },
	{ "dcache_flushed", EDM_A_CNSTAT_DCACHE_FLUSHED },
	{ "dcache_writebacks", EDM_A_CNSTAT_DCACHE_WRITEBACKS },
	{ "dcache_busy", EDM_A_CNSTAT_DCACHE_BUSY },
	{ "dcache_lent", EDM_A_CNSTAT_DCACHE_LENT },
	{ "dcache_handed_over", EDM_A_CNSTAT_DCACHE_HANDED_OVER },
};

static void edm_cn_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct edm_rack_cn *cn = netdev_priv(dev);

	strscpy(info->driver, "edm-rack", sizeof(info->driver));
	strscpy(info->version, EDM_VERSION, sizeof(info->version));
	snprintf(info->bus_info, sizeof(info->bus_info), "rack %s", cn->rack->edev->name);
	info->n_stats = ARRAY_SIZE(edm_cn_stat_names);
}

static int edm_cn_get_sset_count(struct net_device *dev, int sset)
{
	/* every counter after the pad is named */
	BUILD_BUG_ON(ARRAY_SIZE(edm_cn_stat_names) != __EDM_A_CNSTAT_CNT - EDM_A_CNSTAT_PAD - 1);
	return edm_eth_sset_count(sset, ARRAY_SIZE(edm_cn_stat_names));
}

static void edm_cn_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	edm_eth_strings(sset, edm_cn_stat_names, ARRAY_SIZE(edm_cn_stat_names), buf);
}

static void edm_cn_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats,
				     u64 *data)
{
	struct edm_rack_cn_stats sum;

	edm_rack_cn_all_stats(netdev_priv(dev), &sum);
	edm_eth_values(edm_cn_stat_names, ARRAY_SIZE(edm_cn_stat_names), sum.v, data);
}

static void edm_cn_get_ringparam(struct net_device *dev, struct ethtool_ringparam *rp,
				 struct kernel_ethtool_ringparam *krp,
				 struct netlink_ext_ack *extack)
{
	edm_eth_rings_fixed(rp, EDM_RACK_RING, EDM_RACK_RING);
}

const struct ethtool_ops edm_rack_cn_ethtool_ops = {
	.get_drvinfo = edm_cn_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = edm_cn_get_sset_count,
	.get_strings = edm_cn_get_strings,
	.get_ethtool_stats = edm_cn_get_ethtool_stats,
	.get_ringparam = edm_cn_get_ringparam,
	.get_channels = edm_eth_get_one_channel,
};
