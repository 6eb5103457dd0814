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

static const struct {
	const char *opt, *json, *fmt;
	int attr;
} rackcn_u32s[] = {
	{ "dcache-region", "dcache_region", "dcache-region %u ", EDM_A_CN_DCACHE_REGION },
	{ "dcache-sets", "dcache_sets", "dcache-sets %u ", EDM_A_CN_DCACHE_SETS },
	{ "dcache-ways", "dcache_ways", "dcache-ways %u ", EDM_A_CN_DCACHE_WAYS },
	{ "dcache-gran", "dcache_gran", "dcache-gran %u ", EDM_A_CN_DCACHE_GRAN },
	{ "dcache-min-len", "dcache_min_len", "dcache-min-len %u ", EDM_A_CN_DCACHE_MIN_LEN },
};

#define RACKCN_NU32 (sizeof(rackcn_u32s) / sizeof(rackcn_u32s[0]))

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
	uint32_t u;
	size_t i;

	(void)lu;
	for (; argc > 0; argc--, argv++) {
		const char *key = argv[0], *arg = argc > 1 ? argv[1] : NULL;

		if (!strcmp(key, "help")) {
			rackcn_usage(stdout);
			exit(0);
		}
		if (!arg) {
			fprintf(stderr, "Error: rackcn: \"%s\" needs a value\n", key);
			return -1;
		}
		if (!strcmp(key, "rack")) {
			if (strlen(arg) >= EDM_NAME_LEN)
				return iplink_bad("rackcn", "rack name", arg);
			addattr_l(n, IPLINK_MSG_MAX, EDM_A_CN_RACK, arg, strlen(arg) + 1);
		} else {
			for (i = 0; i < RACKCN_NU32; i++)
				if (!strcmp(key, rackcn_u32s[i].opt))
					break;
			if (i == RACKCN_NU32) {
				fprintf(stderr, "Error: rackcn: unknown option \"%s\"\n", key);
				rackcn_usage(stderr);
				return -1;
			}
			if (iplink_u32(arg, &u))
				return iplink_bad("rackcn", key, arg);
			addattr32(n, IPLINK_MSG_MAX, rackcn_u32s[i].attr, u);
		}
		argc--, argv++;
	}
	return 0;
}

static void rackcn_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	size_t i;

	(void)lu, (void)f;
	if (!tb)
		return;
	if (tb[EDM_A_CN_RACK])
		print_color_string(PRINT_ANY, COLOR_NONE, "rack", "rack %s ",
				   RTA_DATA(tb[EDM_A_CN_RACK]));
	if (tb[EDM_A_CN_NODE])
		print_color_uint(PRINT_ANY, COLOR_NONE, "node", "node %u ",
				 iplink_get_u32(tb[EDM_A_CN_NODE]));
	for (i = 0; i < RACKCN_NU32; i++)
		if (tb[rackcn_u32s[i].attr])
			print_color_uint(PRINT_ANY, COLOR_NONE, rackcn_u32s[i].json,
					 rackcn_u32s[i].fmt,
					 iplink_get_u32(tb[rackcn_u32s[i].attr]));
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
