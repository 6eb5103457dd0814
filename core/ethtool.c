// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool helpers shared by the netdev kinds (include/edm/ethtool.h).
 * Pure functions over the caller's table, counters and sizes; no locking.
 */
#include <linux/string.h>

#include "edm/ethtool.h"

int edm_eth_sset_count(int sset, int n)
{
	return sset == ETH_SS_STATS ? n : -EOPNOTSUPP;
}

void edm_eth_strings(u32 sset, const struct edm_eth_stat *t, int n, u8 *buf)
{
	int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < n; i++)
		memcpy(buf + i * ETH_GSTRING_LEN, t[i].name, ETH_GSTRING_LEN);
}

void edm_eth_values(const struct edm_eth_stat *t, int n, const u64 *v, u64 *data)
{
	int i;

	for (i = 0; i < n; i++)
		data[i] = v[t[i].attr];
}

void edm_eth_rings_fixed(struct ethtool_ringparam *rp, u32 rx, u32 tx)
{
	rp->rx_max_pending = rx;
	rp->rx_pending = rx;
	rp->tx_max_pending = tx;
	rp->tx_pending = tx;
}

void edm_eth_get_one_channel(struct net_device *dev, struct ethtool_channels *ch)
{
	ch->max_combined = 1;
	ch->combined_count = 1;
}
