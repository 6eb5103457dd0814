// SPDX-License-Identifier: GPL-2.0
/*
 * `ethtool -S` helpers shared by the netdev kinds (include/edm/ethtool.h).
 * Pure functions over the caller's table and counters; no locking.
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
