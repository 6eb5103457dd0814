// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_netdimm.c: "netdimm show|zone show|stats" of a
 * NetDIMM message, fields and attributes of a newer module, events, size
 * parsing and formatting, the counters' table; "unit netdimm-json" prints
 * "netdimm show -s" as JSON.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "obj_netdimm.h"
#include "print.h"

#include "unit.h"

static void put_geom(struct nl_msg *msg, int type)
{
	struct nlattr *nest = nla_nest_start(msg, type | NLA_F_NESTED);

	if (!nest ||
	    nla_put_u32(msg, EDM_A_GEOM_ROW_BYTES, 1024) ||
	    nla_put_u32(msg, EDM_A_GEOM_DEVICES, 8) ||
	    nla_put_u32(msg, EDM_A_GEOM_BANKS, 16) ||
	    nla_put_u32(msg, EDM_A_GEOM_SUBARRAYS, 512) ||
	    nla_put_u32(msg, EDM_A_GEOM_ROWS, 128))
		abort();
	nla_nest_end(msg, nest);
}

static void put_zone(struct nl_msg *msg)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_NETDIMM_ZONE | NLA_F_NESTED);

	/* The kernel pads u64s with EDM_A_ZONE_PAD: it must be ignored. */
	if (!nest || nla_put(msg, EDM_A_ZONE_PAD, 0, NULL) ||
	    nla_put_u32(msg, EDM_A_ZONE_INDEX, 0) ||
	    nla_put_string(msg, EDM_A_ZONE_NAME, "NET0"))
		abort();
	unit_put_u64_or_die(msg, EDM_A_ZONE_SIZE, 64 * MiB);
	unit_put_u64_or_die(msg, EDM_A_ZONE_FREE, 62 * MiB);
	unit_put_u64_or_die(msg, EDM_A_ZONE_LENT, 3);
	unit_put_u64_or_die(msg, EDM_A_ZONE_CACHED, 512);
	if (nla_put_u32(msg, EDM_A_ZONE_SUBARRAYS, 32) ||
	    nla_put_u32(msg, EDM_A_ZONE_NUMA_NODE, 0))
		abort();
	put_geom(msg, EDM_A_ZONE_GEOM);
	nla_nest_end(msg, nest);
}

/* Every counter, counter i (display order) = 100 + i; PAD first. */
static void put_stats(struct nl_msg *msg)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_NETDIMM_STATS | NLA_F_NESTED);
	unsigned int i;

	if (!nest || nla_put(msg, EDM_A_NDSTAT_PAD, 0, NULL))
		abort();
	for (i = 0; i < netdimm_stat_count(); i++)
		unit_put_u64_or_die(msg, netdimm_stat_attr(i), 100 + i);
	nla_nest_end(msg, nest);
}

/* A NETDIMM_GET reply for nd0, paired with nd1, as the kernel sends it. */
static struct nl_msg *netdimm_msg(uint8_t cmd)
{
	struct nl_msg *msg = unit_dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_NETDIMM_ID, 1) ||
	    nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd0") ||
	    nla_put_u32(msg, EDM_A_NETDIMM_IFINDEX, 5) ||
	    nla_put_string(msg, EDM_A_NETDIMM_PEER, "nd1") ||
	    nla_put(msg, EDM_A_NETDIMM_PAD, 0, NULL) ||
	    nla_put_u64(msg, EDM_A_NETDIMM_SIZE, 64 * MiB) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_POLL_US, 0) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_RX_MODE, EDM_NETDIMM_RX_ZEROCOPY) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_WIRE_MBPS, 0) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_WIRE_DELAY_NS, 0) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_NUMA_NODE, 0))
		abort();
	/* The zone's geometry at the top level too, as the kernel sends it. */
	put_geom(msg, EDM_A_NETDIMM_GEOM);
	put_zone(msg);
	put_stats(msg);
	return msg;
}

/* A list of one, as "netdimm show|zone show|stats" prints it. */
static const char *nd_one(struct nl_msg *msg, enum netdimm_view view,
			  bool stats, bool json)
{
	unit_capture_start(json, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	if (netdimm_print_msg(nlmsg_hdr(msg), view, stats))
		print_string(PRINT_ANY, "malformed", "%s", "malformed");
	close_json_object();
	print_nl();
	close_json_array(PRINT_JSON, NULL);
	return unit_capture_end();
}

#define ND_LINE "1: name nd0 ifindex 5 peer nd1 size 64M poll-us 0 rx-mode zerocopy " \
		"wire-rate unlimited wire-delay 0 node 0"
#define ND_ZONE "zone index 0 name NET0 size 64M free 62M lent 3 cached 512 " \
		"subarrays 32 node 0\n" \
		"    geometry row-bytes 1024 devices 8 banks 16 subarrays 512 rows 128"
#define ND_STATS_TEXT \
	"\n    tx packets 100 bytes 101 fast-path 102 copy-needed 103 sock-hints 104" \
	" zone-fallback 105 drops 106" \
	"\n    rx packets 107 bytes 108 zerocopy 109 cloned 110 zone-fallback 111" \
	" drops 112" \
	"\n    copies host 113 wire 114" \
	"\n    alloc same 115 other 116 fail 117" \
	"\n    cache hits 118 misses 119 refills 120" \
	"\n    clone fpm 121 psm 122 gcm 123 bytes 124 modeled-ns 125" \
	"\n    reclaimed 126 polls 127 rx-inline 128"
#define ND_JSON_DEV "\"id\":1,\"name\":\"nd0\",\"ifindex\":5,\"peer\":\"nd1\"," \
		"\"size\":67108864,\"poll_us\":0,\"rx_mode\":\"zerocopy\",\"wire_mbps\":0," \
		"\"wire_delay_ns\":0,\"numa_node\":0"
#define ND_JSON_ZONE "\"zone\":{\"index\":0,\"name\":\"NET0\",\"size\":67108864," \
		"\"free\":65011712,\"lent\":3,\"cached\":512,\"subarrays\":32," \
		"\"numa_node\":0,\"geometry\":{\"row_bytes\":1024,\"devices\":8," \
		"\"banks\":16,\"subarrays\":512,\"rows\":128}}"
#define ND_JSON_STATS "\"stats\":{\"tx_packets\":100,\"tx_bytes\":101," \
		"\"tx_fast_path\":102,\"tx_copy_needed\":103,\"tx_sock_hints\":104," \
		"\"tx_zone_fallback\":105,\"tx_drops\":106,\"rx_packets\":107," \
		"\"rx_bytes\":108,\"rx_zerocopy\":109,\"rx_cloned\":110," \
		"\"rx_zone_fallback\":111,\"rx_drops\":112,\"host_copies\":113," \
		"\"wire_copies\":114,\"alloc_same\":115,\"alloc_other\":116," \
		"\"alloc_fail\":117,\"cache_hits\":118,\"cache_misses\":119," \
		"\"cache_refills\":120,\"clone_fpm\":121,\"clone_psm\":122," \
		"\"clone_gcm\":123,\"clone_bytes\":124,\"clone_modeled_ns\":125," \
		"\"reclaimed\":126,\"polls\":127,\"rx_inline\":128}"

void test_netdimm_views(void)
{
	struct nl_msg *msg = netdimm_msg(EDM_CMD_NETDIMM_GET);

	unit_expect("netdimm show text", nd_one(msg, NETDIMM_VIEW_SHOW, false, false),
		    ND_LINE "\n    " ND_ZONE "\n");
	unit_expect("netdimm show json", nd_one(msg, NETDIMM_VIEW_SHOW, false, true),
		    "[{" ND_JSON_DEV "," ND_JSON_ZONE "}]\n");
	unit_expect("netdimm show -s text", nd_one(msg, NETDIMM_VIEW_SHOW, true, false),
		    ND_LINE "\n    " ND_ZONE ND_STATS_TEXT "\n");
	unit_expect("netdimm show -s json", nd_one(msg, NETDIMM_VIEW_SHOW, true, true),
		    "[{" ND_JSON_DEV "," ND_JSON_ZONE "," ND_JSON_STATS "}]\n");
	unit_expect("netdimm zone text", nd_one(msg, NETDIMM_VIEW_ZONE, false, false),
		    "nd0: " ND_ZONE "\n");
	unit_expect("netdimm zone json", nd_one(msg, NETDIMM_VIEW_ZONE, false, true),
		    "[{\"name\":\"nd0\"," ND_JSON_ZONE "}]\n");
	unit_expect("netdimm stats text", nd_one(msg, NETDIMM_VIEW_STATS, false, false),
		    "nd0:" ND_STATS_TEXT "\n");
	unit_expect("netdimm stats json", nd_one(msg, NETDIMM_VIEW_STATS, false, true),
		    "[{\"name\":\"nd0\"," ND_JSON_STATS "}]\n");
	nlmsg_free(msg);
}

void test_netdimm_fields(void)
{
	struct nl_msg *msg = unit_dev_msg(EDM_CMD_NETDIMM_GET);
	struct nlattr *nest;

	/* A lone device on a lower netdev that is not here; clone mode. */
	if (nla_put_u32(msg, EDM_A_NETDIMM_ID, 2) ||
	    nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd2") ||
	    nla_put_u32(msg, EDM_A_NETDIMM_LOWER, 0x7ffffff0) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_POLL_US, 50) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_RX_MODE, EDM_NETDIMM_RX_CLONE) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_WIRE_MBPS, 100000) ||
	    nla_put_u32(msg, EDM_A_NETDIMM_WIRE_DELAY_NS, 2000))
		abort();
	unit_expect("netdimm lower text", nd_one(msg, NETDIMM_VIEW_SHOW, true, false),
		    "2: name nd2 lower if2147483632 poll-us 50 rx-mode clone "
		    "wire-rate 100000 wire-delay 2000\n");
	unit_expect("netdimm lower json", nd_one(msg, NETDIMM_VIEW_SHOW, true, true),
		    "[{\"id\":2,\"name\":\"nd2\",\"lower\":2147483632,\"poll_us\":50,"
		    "\"rx_mode\":\"clone\",\"wire_mbps\":100000,\"wire_delay_ns\":2000}]\n");
	nlmsg_free(msg);

	/* Unknown enum values, attributes and counters (a newer module). */
	msg = unit_dev_msg(EDM_CMD_NETDIMM_GET);
	if (nla_put_u32(msg, EDM_A_NETDIMM_MAX + 1, 7) ||
	    nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd3") ||
	    nla_put_u32(msg, EDM_A_NETDIMM_RX_MODE, 9))
		abort();
	nest = nla_nest_start(msg, EDM_A_NETDIMM_STATS | NLA_F_NESTED);
	if (!nest || nla_put_u64(msg, EDM_A_NDSTAT_MAX + 1, 1) ||
	    nla_put_u64(msg, EDM_A_NDSTAT_POLLS, 4) ||
	    nla_put_u32(msg, EDM_A_NDSTAT_TX_PACKETS, 1))	/* wrong size */
		abort();
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, EDM_A_NETDIMM_ZONE | NLA_F_NESTED);
	if (!nest || nla_put_u32(msg, EDM_A_ZONE_MAX + 3, 1) ||
	    nla_put_u32(msg, EDM_A_ZONE_SIZE, 1))		/* wrong size */
		abort();
	nla_nest_end(msg, nest);
	unit_expect("netdimm unknown text", nd_one(msg, NETDIMM_VIEW_SHOW, true, false),
		    "name nd3 rx-mode unknown(9)\n    zone\n    polls 4\n");
	unit_expect("netdimm unknown json", nd_one(msg, NETDIMM_VIEW_SHOW, true, true),
		    "[{\"name\":\"nd3\",\"rx_mode\":\"unknown(9)\",\"zone\":{},"
		    "\"stats\":{\"polls\":4}}]\n");
	nlmsg_free(msg);

	/* A zone whose contents are truncated prints what it holds: nothing. */
	msg = unit_dev_msg(EDM_CMD_NETDIMM_GET);
	if (nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd4") ||
	    nla_put(msg, EDM_A_NETDIMM_ZONE, 6, "\x10\x00\x01\x00zz"))
		abort();
	unit_expect("netdimm bad nest", nd_one(msg, NETDIMM_VIEW_ZONE, false, true),
		    "[{\"name\":\"nd4\",\"zone\":{}}]\n");
	nlmsg_free(msg);
}

void test_netdimm_monitor(void)
{
	struct nl_msg *msg = netdimm_msg(EDM_CMD_NETDIMM_NEW);

	unit_expect("monitor netdimm new text", unit_monitor_one(msg, false),
		    "netdimm new " ND_LINE "\n");
	unit_expect("monitor netdimm new json", unit_monitor_one(msg, true),
		    "{\"object\":\"netdimm\",\"event\":\"new\"," ND_JSON_DEV "}\n");
	nlmsg_free(msg);

	msg = unit_dev_msg(EDM_CMD_NETDIMM_DEL);
	if (nla_put_u32(msg, EDM_A_NETDIMM_ID, 1) ||
	    nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd0"))
		abort();
	unit_expect("monitor netdimm del text", unit_monitor_one(msg, false),
		    "netdimm del 1: name nd0\n");
	nlmsg_free(msg);

	/* "dev show" names the type of a NetDIMM. */
	msg = unit_dev_msg(EDM_CMD_DEV_GET);
	unit_put_dev(msg, 1, "nd0", EDM_DEV_TYPE_NETDIMM);
	unit_expect("dev netdimm type", unit_show_one(msg, false, false),
		    "1: name nd0 type netdimm\n");
	nlmsg_free(msg);
}

static void expect_size(const char *s, int want_ret, uint64_t want)
{
	uint64_t v = 0;
	int ret = netdimm_parse_size(s, &v);

	unit_checks++;
	if (ret != want_ret || (!ret && v != want)) {
		unit_failures++;
		fprintf(stderr, "FAIL size \"%s\": ret %d value %llu\n", s, ret,
			(unsigned long long)v);
	}
}

void test_netdimm_sizes(void)
{
	static const char *const bad[] = {
		"", "0", "0K", "3X", "-1", "+1", " 1", "1 ", "1.5G", "1MB", "1KiB",
		"M", "1T", "0x10", "18446744073709551616", "17179869184G",
		"18014398509481984K",
	};
	char b[32];
	unsigned int i;

	expect_size("1", 0, 1);
	expect_size("4097", 0, 4097);
	expect_size("64M", 0, 64 * MiB);
	expect_size("64m", 0, 64 * MiB);
	expect_size("4k", 0, 4096);
	expect_size("2G", 0, 2048 * MiB);
	expect_size("17179869183G", 0, 17179869183ULL << 30);
	expect_size("18446744073709551615", 0, UINT64_MAX);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		expect_size(bad[i], -1, 0);

	netdimm_fmt_size(b, sizeof(b), 64 * MiB);
	unit_expect("fmt 64M", b, "64M");
	netdimm_fmt_size(b, sizeof(b), 3 * MiB / 2);
	unit_expect("fmt 1536K", b, "1536K");
	netdimm_fmt_size(b, sizeof(b), 64ULL << 30);
	unit_expect("fmt 64G", b, "64G");
	netdimm_fmt_size(b, sizeof(b), 4097);
	unit_expect("fmt 4097", b, "4097");
	netdimm_fmt_size(b, sizeof(b), 0);
	unit_expect("fmt 0", b, "0");
	netdimm_fmt_size(b, sizeof(b), UINT64_MAX);
	unit_expect("fmt max", b, "18446744073709551615");
}

/* The counters' table names each EDM_A_NDSTAT_* once, with distinct keys. */
void test_netdimm_stat_table(void)
{
	int seen[EDM_A_NDSTAT_MAX + 1] = { 0 };
	unsigned int i, j;
	int a;

	for (i = 0; i < netdimm_stat_count(); i++) {
		a = netdimm_stat_attr(i);
		unit_checks++;
		if (a <= EDM_A_NDSTAT_PAD || a > EDM_A_NDSTAT_MAX || seen[a]++) {
			unit_failures++;
			fprintf(stderr, "FAIL stat table: attribute %d\n", a);
		}
		for (j = 0; j < i; j++) {
			unit_checks++;
			if (!strcmp(netdimm_stat_key(i), netdimm_stat_key(j))) {
				unit_failures++;
				fprintf(stderr, "FAIL stat table: key %s twice\n",
					netdimm_stat_key(i));
			}
		}
	}
	for (a = EDM_A_NDSTAT_PAD + 1; a <= EDM_A_NDSTAT_MAX; a++) {
		unit_checks++;
		if (seen[a] != 1) {
			unit_failures++;
			fprintf(stderr, "FAIL stat table: attribute %d missing\n", a);
		}
	}
}

int emit_netdimm_json(void)
{
	struct nl_msg *msg = netdimm_msg(EDM_CMD_NETDIMM_GET);

	fputs(nd_one(msg, NETDIMM_VIEW_SHOW, true, true), stdout);
	nlmsg_free(msg);
	unit_capture_free();
	return 0;
}
