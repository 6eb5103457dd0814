// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_shpool.so: iproute2's plug-in for the shpool kind, this kernel's
 * membership of a pool shared with other kernels (Documentation/pool.md),
 * so that
 *
 *   ip link add shp0 type shpool dev 0000:00:10.0 name rack0
 *   ip -d link show shp0
 *
 * pass and print its parameters (IFLA_INFO_DATA holds SHPOOL_JOIN's own
 * attributes, EDM_A_SHPOOL_*). A join needs its device, which ip cannot
 * pass without the plug-in.
 */
#include <linux/edm.h>

#include "iplink.h"

static const struct iplink_u32_opt shpool_u32s[] = {
	{ "nhosts", "nhosts", "nhosts %u ", EDM_A_SHPOOL_NHOSTS },
	{ "buf-shift", "buf_shift", "buf-shift %u ", EDM_A_SHPOOL_BUF_SHIFT },
	{ "ring", "ring", "ring %u ", EDM_A_SHPOOL_RING },
	{ "lease-ms", "lease_ms", "lease-ms %u ", EDM_A_SHPOOL_LEASE_MS },
	{ NULL, "slot", "slot %u ", EDM_A_SHPOOL_SLOT },
	{ NULL, "epoch", "epoch %u ", EDM_A_SHPOOL_EPOCH },
};

static const struct {
	const char *opt, *json, *fmt;
	int attr, max;
} shpool_strs[] = {
	{ "name", "name", "name %s ", EDM_A_SHPOOL_NAME, EDM_NAME_LEN },
	{ "dev", "device", "dev %s ", EDM_A_SHPOOL_DEVICE, 32 },
	{ "hostname", "hostname", "hostname %s ", EDM_A_SHPOOL_HOSTNAME, 32 },
};

static void shpool_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link add NAME type shpool dev DEVICE [ name MEMBERSHIP ]\n"
		"		[ hostname HOST ] [ nhosts N ] [ buf-shift S ] [ ring R ]\n"
		"		[ lease-ms MS ]\n"
		"\n"
		"dev is the shared memory: an ivshmem device's PCI name (edm binds it), or the\n"
		"path of a pmem device in fsdax mode (/dev/pmem0). The membership is named\n"
		"as the netdev unless name says. The format options apply when this join\n"
		"formats the pool, and must match the pool's otherwise.\n");
}

static int shpool_parse_opt(struct link_util *lu, int argc, char **argv, struct nlmsghdr *n)
{
	size_t i;

	(void)lu;
	for (; argc > 0; argc -= 2, argv += 2) {
		const char *key = argv[0], *arg = argc > 1 ? argv[1] : NULL;
		int err;

		if (iplink_opt_start("shpool", key, arg, shpool_usage))
			return -1;
		for (i = 0; i < IPLINK_N(shpool_strs); i++)
			if (!strcmp(key, shpool_strs[i].opt))
				break;
		if (i < IPLINK_N(shpool_strs)) {
			if (strlen(arg) >= (size_t)shpool_strs[i].max)
				return iplink_bad("shpool", key, arg);
			addattr_l(n, IPLINK_MSG_MAX, shpool_strs[i].attr, arg, strlen(arg) + 1);
			continue;
		}
		err = iplink_put_u32("shpool", shpool_u32s, IPLINK_N(shpool_u32s), key, arg, n);
		if (err > 0)
			return iplink_unknown("shpool", key, shpool_usage);
		if (err)
			return -1;
	}
	return 0;
}

static void shpool_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	size_t i;

	(void)lu, (void)f;
	if (!tb)
		return;
	for (i = 0; i < IPLINK_N(shpool_strs); i++)
		if (tb[shpool_strs[i].attr])
			print_color_string(PRINT_ANY, COLOR_NONE, shpool_strs[i].json,
					   shpool_strs[i].fmt, RTA_DATA(tb[shpool_strs[i].attr]));
	iplink_print_u32s(shpool_u32s, IPLINK_N(shpool_u32s), tb);
}

static void shpool_print_help(struct link_util *lu, int argc, char **argv, FILE *f)
{
	(void)lu, (void)argc, (void)argv;
	shpool_usage(f);
}

struct link_util shpool_link_util = {
	.id = "shpool",
	.maxattr = EDM_A_SHPOOL_MAX,
	.parse_opt = shpool_parse_opt,
	.print_opt = shpool_print_opt,
	.print_help = shpool_print_help,
};
