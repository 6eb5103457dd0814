/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ethtool -S` from a table of (name, counter index) pairs: what every edm
 * netdev kind with counters does with its own table and its own sum of
 * counters (core/ethtool.c). No state, no locking.
 */
#ifndef _EDM_ETHTOOL_H
#define _EDM_ETHTOOL_H

#include <linux/ethtool.h>

struct edm_eth_stat {
	char name[ETH_GSTRING_LEN];
	int attr;		/* index into the kind's array of counters */
};

/* ETH_SS_STATS: @n; any other set: -EOPNOTSUPP */
int edm_eth_sset_count(int sset, int n);
void edm_eth_strings(u32 sset, const struct edm_eth_stat *t, int n, u8 *buf);
/* data[i] = v[t[i].attr] */
void edm_eth_values(const struct edm_eth_stat *t, int n, const u64 *v, u64 *data);

#endif /* _EDM_ETHTOOL_H */
