// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_fhost.so: iproute2's plug-in for the fhost kind, an EDM fabric host
 * (Documentation/fabric.md), so that
 *
 *   ip link add cn type fhost addr 1 timeout 200
 *   ip link add mn type fhost addr 2 region 64M keyed
 *   ip -d link show mn
 *
 * pass and print its parameters (IFLA_INFO_DATA holds FABRIC_NEW's own
 * attributes, EDM_A_FAB_*). A host needs an address, which ip cannot pass
 * without the plug-in.
 */
#include <inttypes.h>
#include <linux/edm.h>

#include "iplink.h"

static const struct iplink_u32_opt fhost_u32s[] = {
	{ "addr", "addr", "addr %u ", EDM_A_FAB_ADDR },
	{ "ports", "ports", "ports %u ", EDM_A_FAB_PORTS },
	{ "timeout", "timeout_ms", "timeout %u ", EDM_A_FAB_TIMEOUT_MS },
	{ "timeout-min", "timeout_min_us", "timeout-min %u ", EDM_A_FAB_TIMEOUT_MIN_US },
	{ NULL, "minor", "cdev /dev/edm%u ", EDM_A_FAB_MINOR },
};

static void fhost_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link add NAME type fhost addr ADDR [ region BYTES[K|M|G] [ keyed ] ]\n"
		"		[ ports 1|2 ] [ timeout MS ] [ timeout-min US ]\n"
		"\n"
		"ADDR is the host's fabric address (0..511), its switch port. ports 2 adds a\n"
		"port to a standby switch. timeout is the longest op timeout, timeout-min the\n"
		"shortest (default: a quarter of timeout).\n");
}

static int fhost_parse_opt(struct link_util *lu, int argc, char **argv, struct nlmsghdr *n)
{
	uint64_t sz;
	int step;

	(void)lu;
	for (; argc > 0; argc -= step, argv += step) {
		const char *key = argv[0], *arg = argc > 1 ? argv[1] : NULL;
		int err;

		step = 1;	/* a flag */
		if (!strcmp(key, "keyed")) {
			addattr_l(n, IPLINK_MSG_MAX, EDM_A_FAB_REGION_KEYED, NULL, 0);
			continue;
		}
		step = 2;	/* an option and its value */
		if (iplink_opt_start("fhost", key, arg, fhost_usage))
			return -1;
		if (!strcmp(key, "region")) {
			if (iplink_size(arg, &sz))
				return iplink_bad("fhost", "region size", arg);
			addattr64(n, IPLINK_MSG_MAX, EDM_A_FAB_REGION_SIZE, sz);
			continue;
		}
		err = iplink_put_u32("fhost", fhost_u32s, IPLINK_N(fhost_u32s), key, arg, n);
		if (err > 0)
			return iplink_unknown("fhost", key, fhost_usage);
		if (err)
			return -1;
	}
	return 0;
}

static void fhost_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	(void)lu, (void)f;
	if (!tb)
		return;
	iplink_print_u32s(fhost_u32s, IPLINK_N(fhost_u32s), tb);
	if (tb[EDM_A_FAB_REGION_SIZE]) {
		uint64_t sz;

		memcpy(&sz, RTA_DATA(tb[EDM_A_FAB_REGION_SIZE]), sizeof(sz));
		print_color_u64(PRINT_ANY, COLOR_NONE, "region_size", "region %" PRIu64 " ", sz);
	}
	if (tb[EDM_A_FAB_REGION_KEYED])
		print_color_string(PRINT_ANY, COLOR_NONE, "region_keyed", "%s ", "keyed");
}

static void fhost_print_help(struct link_util *lu, int argc, char **argv, FILE *f)
{
	(void)lu, (void)argc, (void)argv;
	fhost_usage(f);
}

struct link_util fhost_link_util = {
	.id = "fhost",
	.maxattr = EDM_A_FAB_MAX,
	.parse_opt = fhost_parse_opt,
	.print_opt = fhost_print_opt,
	.print_help = fhost_print_help,
};
