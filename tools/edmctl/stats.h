/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: counters, one table per nest of u64 counters (a node's, a link
 * end's, a region's, the Cowbird engine's and an instance's), and the one
 * printer that shows any of them in text and JSON.
 */
#ifndef EDMCTL_STATS_H
#define EDMCTL_STATS_H

#include <netlink/attr.h>

/*
 * Counters in display order. Text prints one line per group ("ops reads 1
 * writes 2 ..."); an empty group prints its words without a heading.
 * JSON prints "stats": {key: value, ...}. A counter the message does not
 * carry is left out.
 */
struct edm_stat {
	int attr;
	const char *key;	/* JSON: the attribute name in lower_snake_case */
	const char *group;
	const char *word;
};

/* The highest counter attribute any table may name. */
#define EDM_STAT_TB_MAX	63

/* The counters of the nest @nest (may be NULL: nothing is printed). */
void print_stat_nest(struct nlattr *nest, const struct edm_stat *table, unsigned int n);

#endif /* EDMCTL_STATS_H */
