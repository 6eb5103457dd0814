// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_rackcn.so: iproute2's plug-in for the rackcn kind, a DFabric rack's
 * compute node (Documentation/pool.md), so that
 *
 *   ip link add cna type rackcn rack r0 dcache-sets 64
 *   ip -d link show cna
 *
 * pass and print its parameters (IFLA_INFO_DATA holds CN_NEW's own
 * attributes, EDM_A_CN_*). Without the plug-in, `ip link add cna type
 * rackcn` still works when the namespace has one rack, and the CN has no
 * DRAM cache.
 */
#include <linux/edm.h>

#include "iplink.h"

static const struct iplink_u32_opt rackcn_u32s[] = {
	{ "dcache-region", "dcache_region", "dcache-region %u ", EDM_A_CN_DCACHE_REGION },
	{ "dcache-sets", "dcache_sets", "dcache-sets %u ", EDM_A_CN_DCACHE_SETS },
	{ "dcache-ways", "dcache_ways", "dcache-ways %u ", EDM_A_CN_DCACHE_WAYS },
	{ "dcache-gran", "dcache_gran", "dcache-gran %u ", EDM_A_CN_DCACHE_GRAN },
	{ "dcache-min-len", "dcache_min_len", "dcache-min-len %u ", EDM_A_CN_DCACHE_MIN_LEN },
};

static void rackcn_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link add NAME type rackcn [ rack RACK ]\n"
		"		[ dcache-region N ] [ dcache-sets N ] [ dcache-ways N ]\n"
		"		[ dcache-gran BYTES ] [ dcache-min-len BYTES ]\n"
		"\n"
		"Without rack, the namespace's only rack. dcache-sets 0 (the default): no DRAM cache.\n");
}

static int rackcn_parse_opt(struct link_util *lu, int argc, char **argv, struct nlmsghdr *n)
{
	(void)lu;
	for (; argc > 0; argc -= 2, argv += 2) {
		const char *key = argv[0], *arg = argc > 1 ? argv[1] : NULL;
		int err;

		if (iplink_opt_start("rackcn", key, arg, rackcn_usage))
			return -1;
		if (!strcmp(key, "rack")) {
			if (strlen(arg) >= EDM_NAME_LEN)
				return iplink_bad("rackcn", "rack name", arg);
			addattr_l(n, IPLINK_MSG_MAX, EDM_A_CN_RACK, arg, strlen(arg) + 1);
			continue;
		}
		err = iplink_put_u32("rackcn", rackcn_u32s, IPLINK_N(rackcn_u32s), key, arg, n);
		if (err > 0)
			return iplink_unknown("rackcn", key, rackcn_usage);
		if (err)
			return -1;
	}
	return 0;
}

static void rackcn_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	(void)lu, (void)f;
	if (!tb)
		return;
	if (tb[EDM_A_CN_RACK])
		print_color_string(PRINT_ANY, COLOR_NONE, "rack", "rack %s ",
				   RTA_DATA(tb[EDM_A_CN_RACK]));
	if (tb[EDM_A_CN_NODE])
		print_color_uint(PRINT_ANY, COLOR_NONE, "node", "node %u ",
				 iplink_get_u32(tb[EDM_A_CN_NODE]));
	iplink_print_u32s(rackcn_u32s, IPLINK_N(rackcn_u32s), tb);
}

static void rackcn_print_help(struct link_util *lu, int argc, char **argv, FILE *f)
{
	(void)lu, (void)argc, (void)argv;
	rackcn_usage(f);
}

struct link_util rackcn_link_util = {
	.id = "rackcn",
	.maxattr = EDM_A_CN_MAX,
	.parse_opt = rackcn_parse_opt,
	.print_opt = rackcn_print_opt,
	.print_help = rackcn_print_help,
};
