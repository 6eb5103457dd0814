// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool for a fabric host's netdev: driver info (bus-info names the
 * host's /dev/edm<N>) and `ethtool -S`, the host's counters as `edmctl
 * fabric show` names them, with underscores; `ethtool -l`, one queue pair
 * served by the node's poll, and `-g`, the port's queue of frames waiting
 * for the wire (there is no RX ring: a frame comes up as the PHY decodes
 * it). The counters are read under
 * the node lock (edm_fab_node_info()); ethtool runs under RTNL, while the
 * netdev is registered, so the node is alive (it unregisters the netdev
 * before it goes).
 */
#include "edm/edm.h"
#include "edm/ethtool.h"
#include "fab.h"

static const struct edm_eth_stat edm_fab_host_stat_names[] = {
	{ "reads", EDM_A_FSTAT_READS },
	{ "writes", EDM_A_FSTAT_WRITES },
	{ "rmws", EDM_A_FSTAT_RMWS },
	{ "read_bytes", EDM_A_FSTAT_READ_BYTES },
	{ "write_bytes", EDM_A_FSTAT_WRITE_BYTES },
	{ "errors", EDM_A_FSTAT_ERRORS },
	{ "timeouts", EDM_A_FSTAT_TIMEOUTS },
	{ "queued", EDM_A_FSTAT_QUEUED },
	{ "inflight", EDM_A_FSTAT_INFLIGHT },
	{ "notifs", EDM_A_FSTAT_NOTIFS },
	{ "grants_rx", EDM_A_FSTAT_GRANTS_RX },
	{ "stray", EDM_A_FSTAT_STRAY },
	{ "served_reads", EDM_A_FSTAT_SERVED_READS },
	{ "served_writes", EDM_A_FSTAT_SERVED_WRITES },
	{ "served_rmws", EDM_A_FSTAT_SERVED_RMWS },
	{ "served_errors", EDM_A_FSTAT_SERVED_ERRORS },
	{ "served_write_chunks", EDM_A_FSTAT_SERVED_WRITE_CHUNKS },
	{ "nacks_key", EDM_A_FSTAT_NACKS_KEY },
	{ "nacks_range", EDM_A_FSTAT_NACKS_RANGE },
	{ "nacks_gone", EDM_A_FSTAT_NACKS_GONE },
	{ "failovers", EDM_A_FSTAT_FAILOVERS },
};

static struct edm_fab_node *edm_fab_ndev_node(struct net_device *dev)
{
	return ((struct edm_fab_ndev *)netdev_priv(dev))->node;
}

static void edm_fab_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "edm-fabric", sizeof(info->driver));
	strscpy(info->version, EDM_VERSION, sizeof(info->version));
	snprintf(info->bus_info, sizeof(info->bus_info), "edm%d",
		 edm_fab_host_minor(edm_fab_ndev_node(dev)));
	info->n_stats = ARRAY_SIZE(edm_fab_host_stat_names);
}

static int edm_fab_get_sset_count(struct net_device *dev, int sset)
{
	return edm_eth_sset_count(sset, ARRAY_SIZE(edm_fab_host_stat_names));
}

static void edm_fab_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	edm_eth_strings(sset, edm_fab_host_stat_names, ARRAY_SIZE(edm_fab_host_stat_names), buf);
}

static void edm_fab_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats,
				      u64 *data)
{
	struct edm_fab_node_info ni;

	edm_fab_node_info(edm_fab_ndev_node(dev), &ni);
	edm_eth_values(edm_fab_host_stat_names, ARRAY_SIZE(edm_fab_host_stat_names),
		       ni.stats.v, data);
}

static void edm_fab_get_ringparam(struct net_device *dev, struct ethtool_ringparam *rp,
				  struct kernel_ethtool_ringparam *krp,
				  struct netlink_ext_ack *extack)
{
	rp->tx_max_pending = EDM_FRAMES_QLEN;
	rp->tx_pending = EDM_FRAMES_QLEN;
}

const struct ethtool_ops edm_fab_ethtool_ops = {
	.get_drvinfo = edm_fab_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = edm_fab_get_sset_count,
	.get_strings = edm_fab_get_strings,
	.get_ethtool_stats = edm_fab_get_ethtool_stats,
	.get_ringparam = edm_fab_get_ringparam,
	.get_channels = edm_eth_get_one_channel,
};
