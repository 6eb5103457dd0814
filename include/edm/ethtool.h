/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ethtool -S` from a table of (name, counter index) pairs: what every edm
 * netdev kind with counters does with its own table and its own sum of
 * counters; and `ethtool -g` and `-l` for kinds whose rings have a fixed
 * size and one queue each way (core/ethtool.c). No state, no locking.
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

/* -g: @rx and @tx descriptors per ring, which is also the most there can be */
void edm_eth_rings_fixed(struct ethtool_ringparam *rp, u32 rx, u32 tx);
/* -l: one queue pair, one interrupt (NAPI) serving it */
void edm_eth_get_one_channel(struct net_device *dev, struct ethtool_channels *ch);

#endif /* _EDM_ETHTOOL_H */
