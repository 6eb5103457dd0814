// SPDX-License-Identifier: GPL-2.0-only
/*
 * link_ndimm.so: iproute2's plug-in for the ndimm kind, so that
 *
 *   ip link add nd0 type ndimm peer nd1 size 32M poll-us 0 rx-mode zerocopy
 *   ip -d link show nd0
 *
 * pass and print the kind's parameters (IFLA_INFO_DATA holds NETDIMM_NEW's
 * own attributes, EDM_A_NETDIMM_*; Documentation/netdimm.md). ip(8) loads
 * it from its library directory (IP_LIB_DIR, or /usr/lib/<triplet>/ip on
 * Debian) and calls it through struct link_util.
 *
 * Without the plug-in, `ip link add nd0 type ndimm` still works and takes
 * the defaults.
 */
#include <inttypes.h>

#include <linux/edm.h>

#include "iplink.h"

static const char *const rx_modes[] = {
	[EDM_NETDIMM_RX_ZEROCOPY] = "zerocopy",
	[EDM_NETDIMM_RX_CLONE] = "clone",
};

static const struct iplink_u32_opt ndimm_u32s[] = {
	{ "poll-us", "poll_us", "poll-us %u ", EDM_A_NETDIMM_POLL_US },
	{ "wire-mbps", "wire_mbps", "wire-mbps %u ", EDM_A_NETDIMM_WIRE_MBPS },
	{ "wire-delay-ns", "wire_delay_ns", "wire-delay-ns %u ", EDM_A_NETDIMM_WIRE_DELAY_NS },
	{ "numa-node", "numa_node", "numa-node %u ", EDM_A_NETDIMM_NUMA_NODE },
};

static void ndimm_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link add NAME type ndimm [ peer PEER | lower DEV ] [ size BYTES[K|M|G] ]\n"
		"		[ poll-us US ] [ rx-mode { zerocopy | clone } ]\n"
		"		[ wire-mbps MBPS ] [ wire-delay-ns NS ] [ numa-node NODE ]\n"
		"\n"
		"Without peer or lower, the device gets a peer named ndimm<N>.\n"
		"The zone size is a multiple of 2M, 4M at least; 32M when not given.\n");
}

static int ndimm_parse_opt(struct link_util *lu, int argc, char **argv, struct nlmsghdr *n)
{
	uint32_t u;
	uint64_t sz;

	(void)lu;
	for (; argc > 0; argc -= 2, argv += 2) {
		const char *key = argv[0], *arg = argc > 1 ? argv[1] : NULL;
		int err;

		if (iplink_opt_start("ndimm", key, arg, ndimm_usage))
			return -1;
		if (!strcmp(key, "peer")) {
			if (strlen(arg) >= 16)
				return iplink_bad("ndimm", "peer name", arg);
			addattr_l(n, IPLINK_MSG_MAX, EDM_A_NETDIMM_PEER, arg, strlen(arg) + 1);
		} else if (!strcmp(key, "lower")) {
			u = ll_name_to_index(arg);
			if (!u)
				return iplink_bad("ndimm", "lower device", arg);
			addattr32(n, IPLINK_MSG_MAX, EDM_A_NETDIMM_LOWER, u);
		} else if (!strcmp(key, "size")) {
			if (iplink_size(arg, &sz))
				return iplink_bad("ndimm", "size", arg);
			addattr64(n, IPLINK_MSG_MAX, EDM_A_NETDIMM_SIZE, sz);
		} else if (!strcmp(key, "rx-mode")) {
			for (u = 1; u <= EDM_NETDIMM_RX_MAX; u++)
				if (rx_modes[u] && !strcmp(arg, rx_modes[u]))
					break;
			if (u > EDM_NETDIMM_RX_MAX)
				return iplink_bad("ndimm", "rx-mode", arg);
			addattr32(n, IPLINK_MSG_MAX, EDM_A_NETDIMM_RX_MODE, u);
		} else {
			err = iplink_put_u32("ndimm", ndimm_u32s, IPLINK_N(ndimm_u32s), key, arg, n);
			if (err > 0)
				return iplink_unknown("ndimm", key, ndimm_usage);
			if (err)
				return -1;
		}
	}
	return 0;
}

static void ndimm_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	(void)lu, (void)f;
	if (!tb)
		return;
	if (tb[EDM_A_NETDIMM_ID])
		print_color_uint(PRINT_ANY, COLOR_NONE, "edm_id", "edm-id %u ",
				 iplink_get_u32(tb[EDM_A_NETDIMM_ID]));
	if (tb[EDM_A_NETDIMM_PEER])
		print_color_string(PRINT_ANY, COLOR_NONE, "peer", "peer %s ",
				   RTA_DATA(tb[EDM_A_NETDIMM_PEER]));
	if (tb[EDM_A_NETDIMM_LOWER])
		print_color_uint(PRINT_ANY, COLOR_NONE, "lower", "lower-ifindex %u ",
				 iplink_get_u32(tb[EDM_A_NETDIMM_LOWER]));
	if (tb[EDM_A_NETDIMM_SIZE]) {
		uint64_t sz;

		memcpy(&sz, RTA_DATA(tb[EDM_A_NETDIMM_SIZE]), sizeof(sz));
		print_color_u64(PRINT_ANY, COLOR_NONE, "size", "size %" PRIu64 " ", sz);
	}
	if (tb[EDM_A_NETDIMM_RX_MODE]) {
		uint32_t m = iplink_get_u32(tb[EDM_A_NETDIMM_RX_MODE]);

		print_color_string(PRINT_ANY, COLOR_NONE, "rx_mode", "rx-mode %s ",
				   m <= EDM_NETDIMM_RX_MAX && rx_modes[m] ? rx_modes[m] : "?");
	}
	iplink_print_u32s(ndimm_u32s, IPLINK_N(ndimm_u32s), tb);
}

static void ndimm_print_help(struct link_util *lu, int argc, char **argv, FILE *f)
{
	(void)lu, (void)argc, (void)argv;
	ndimm_usage(f);
}

struct link_util ndimm_link_util = {
	.id = "ndimm",
	.maxattr = EDM_A_NETDIMM_MAX,
	.parse_opt = ndimm_parse_opt,
	.print_opt = ndimm_print_opt,
	.print_help = ndimm_print_help,
};
