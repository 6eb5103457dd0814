// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool for the shared pool's netdev: driver info (bus-info names the
 * ivshmem device joined) and `ethtool -S`, every counter `edmctl shpool
 * show -s` has, under the same names with underscores; `ethtool -g`: the
 * pool's ring size (each ring from one member to another has it) and
 * `-l`: one queue each way. Reads the per-CPU counters and the view's; no
 * locking.
 */
#include "edm/ethtool.h"

#include "shpool.h"

static const struct edm_eth_stat edm_shpool_stat_names[] = {
	{ "tx_packets", EDM_A_SHSTAT_TX_PACKETS },
	{ "tx_bytes", EDM_A_SHSTAT_TX_BYTES },
	{ "tx_no_host", EDM_A_SHSTAT_TX_NO_HOST },
	{ "tx_no_buf", EDM_A_SHSTAT_TX_NO_BUF },
	{ "tx_ring_full", EDM_A_SHSTAT_TX_RING_FULL },
	{ "tx_host_down", EDM_A_SHSTAT_TX_HOST_DOWN },
	{ "tx_floods", EDM_A_SHSTAT_TX_FLOODS },
	{ "rx_packets", EDM_A_SHSTAT_RX_PACKETS },
	{ "rx_bytes", EDM_A_SHSTAT_RX_BYTES },
	{ "rx_refused", EDM_A_SHSTAT_RX_REFUSED },
	{ "rx_drops", EDM_A_SHSTAT_RX_DROPS },
	{ "rx_zerocopy", EDM_A_SHSTAT_RX_ZEROCOPY },
	{ "rx_copied", EDM_A_SHSTAT_RX_COPIED },
	{ "rx_small", EDM_A_SHSTAT_RX_SMALL },
	{ "rx_returned", EDM_A_SHSTAT_RX_RETURNED },
	{ "allocs", EDM_A_SHSTAT_ALLOCS },
	{ "frees", EDM_A_SHSTAT_FREES },
	{ "taken_back", EDM_A_SHSTAT_TAKEN_BACK },
	{ "reaped_hosts", EDM_A_SHSTAT_REAPED_HOSTS },
	{ "reaped_bufs", EDM_A_SHSTAT_REAPED_BUFS },
	{ "polls", EDM_A_SHSTAT_POLLS },
	{ "idle_polls", EDM_A_SHSTAT_IDLE_POLLS },
	{ "fenced", EDM_A_SHSTAT_FENCED },
	{ "x_offered", EDM_A_SHSTAT_X_OFFERED },
	{ "x_served", EDM_A_SHSTAT_X_SERVED },
	{ "x_refused", EDM_A_SHSTAT_X_REFUSED },
	{ "x_dropped", EDM_A_SHSTAT_X_DROPPED },
	{ "x_lost", EDM_A_SHSTAT_X_LOST },
	{ "x_freed", EDM_A_SHSTAT_X_FREED },
	{ "x_revoked", EDM_A_SHSTAT_X_REVOKED },
};

static void edm_shpool_get_drvinfo(struct net_device *nd, struct ethtool_drvinfo *info)
{
	struct edm_shpool *sp = edm_shpool_nd(nd);

	strscpy(info->driver, "edm-shpool", sizeof(info->driver));
	strscpy(info->version, EDM_VERSION, sizeof(info->version));
	strscpy(info->bus_info, sp->device, sizeof(info->bus_info));
	info->n_stats = ARRAY_SIZE(edm_shpool_stat_names);
}

static int edm_shpool_get_sset_count(struct net_device *nd, int sset)
{
	/* every counter after the pad is named */
	BUILD_BUG_ON(ARRAY_SIZE(edm_shpool_stat_names) !=
		     __EDM_A_SHSTAT_CNT - EDM_A_SHSTAT_PAD - 1);
	return edm_eth_sset_count(sset, ARRAY_SIZE(edm_shpool_stat_names));
}

static void edm_shpool_get_strings(struct net_device *nd, u32 sset, u8 *buf)
{
	edm_eth_strings(sset, edm_shpool_stat_names, ARRAY_SIZE(edm_shpool_stat_names), buf);
}

static void edm_shpool_get_ethtool_stats(struct net_device *nd, struct ethtool_stats *stats,
					 u64 *data)
{
	struct edm_shpool_stats sum;

	edm_shpool_stats(edm_shpool_nd(nd), &sum);
	edm_eth_values(edm_shpool_stat_names, ARRAY_SIZE(edm_shpool_stat_names), sum.v, data);
}

static void edm_shpool_get_ringparam(struct net_device *nd, struct ethtool_ringparam *rp,
				     struct kernel_ethtool_ringparam *krp,
				     struct netlink_ext_ack *extack)
{
	u32 n = edm_shpool_nd(nd)->v.geo.ring_size;

	edm_eth_rings_fixed(rp, n, n);
}

const struct ethtool_ops edm_shpool_ethtool_ops = {
	.get_drvinfo = edm_shpool_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = edm_shpool_get_sset_count,
	.get_strings = edm_shpool_get_strings,
	.get_ethtool_stats = edm_shpool_get_ethtool_stats,
	.get_ringparam = edm_shpool_get_ringparam,
	.get_channels = edm_eth_get_one_channel,
};
