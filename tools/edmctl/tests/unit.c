// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests: no kernel module needed. Messages are built with
 * libnl the way the kernel would send them and fed to edmctl's parsers and
 * printers; the output is compared byte for byte.
 *
 *   tests/unit            run the tests, exit 1 on any failure
 *   tests/unit json       print tricky JSON documents (for a JSON parser)
 *   tests/unit fabric-json
 *                         print "fabric show -s" of a switch and a host and
 *                         "fabric link show -s" of a link end as JSON
 *                         (cli.sh holds their keys to the uapi header)
 *   tests/unit netdimm-json
 *                         print "netdimm show -s" of a full message as JSON
 *                         (cli.sh holds its keys to the uapi header)
 *   tests/unit cowbird-json
 *                         print "region show -s" and "cowbird show -s" of full
 *                         messages as JSON (cli.sh holds their keys to the
 *                         uapi header)
 *   tests/unit monitor    edm_nl_monitor() on nlctrl's "notify" group until
 *                         SIGINT/SIGTERM (cli.sh checks it exits 0)
 *
 * The request/reply machinery (sequence checks, ACKs, dumps, kernel errors
 * with extended ACK) is tested live against the kernel's own "nlctrl"
 * family, which every kernel has.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/genl/genl.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_cowbird.h"
#include "obj_dev.h"
#include "obj_fabric.h"
#include "obj_netdimm.h"
#include "obj_region.h"
#include "print.h"

int monitor_print_event(struct nlmsghdr *nlh);

#define FAMILY	0x1234

static int failures;
static int checks;

static char *buf;
static size_t buflen;
static FILE *mem;

static void capture_start(bool json, bool pretty)
{
	mem = open_memstream(&buf, &buflen);
	if (!mem)
		abort();
	print_init(json, pretty, mem);
}

/* Returns the captured text; valid until the next capture_start(). */
static const char *capture_end(void)
{
	static char *last;

	fclose(mem);
	mem = NULL;
	print_init(false, false, NULL);
	free(last);
	last = buf;
	return buf;
}

static void expect(const char *what, const char *got, const char *want)
{
	checks++;
	if (strcmp(got, want)) {
		failures++;
		fprintf(stderr, "FAIL %s\n  got:  \"%s\"\n  want: \"%s\"\n",
			what, got, want);
	}
}

static struct nl_msg *dev_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 0, FAMILY, 0, 0, cmd, EDM_GENL_VERSION))
		abort();
	return msg;
}

static void put_dev(struct nl_msg *msg, uint32_t id, const char *name,
		    uint32_t type, uint32_t backend)
{
	if (nla_put_u32(msg, EDM_A_DEV_ID, id) ||
	    nla_put_string(msg, EDM_A_DEV_NAME, name) ||
	    nla_put_u32(msg, EDM_A_DEV_TYPE, type) ||
	    nla_put_u32(msg, EDM_A_DEV_BACKEND, backend))
		abort();
}

/* One device as "dev show" prints it: array of one. */
static const char *show_one(struct nl_msg *msg, bool json, bool pretty)
{
	struct edm_dev d;

	capture_start(json, pretty);
	open_json_array(PRINT_JSON, NULL);
	if (dev_parse(nlmsg_hdr(msg), &d) == 0) {
		open_json_object(NULL);
		dev_print(&d);
		close_json_object();
		print_nl();
	}
	close_json_array(PRINT_JSON, NULL);
	return capture_end();
}

static void test_dev_basic(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_DEV_GET);

	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("dev text", show_one(msg, false, false),
	       "1: name dev0 type null backend soft\n");
	expect("dev json", show_one(msg, true, false),
	       "[{\"id\":1,\"name\":\"dev0\",\"type\":\"null\",\"backend\":\"soft\"}]\n");
	expect("dev json pretty", show_one(msg, true, true),
	       "[\n"
	       "    {\n"
	       "        \"id\": 1,\n"
	       "        \"name\": \"dev0\",\n"
	       "        \"type\": \"null\",\n"
	       "        \"backend\": \"soft\"\n"
	       "    }\n"
	       "]\n");
	nlmsg_free(msg);
}

static void test_dev_forward_compat(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_DEV_GET);
	struct nlattr *nest;
	uint64_t big = 42;

	/* Unknown attributes before, between and after the known ones. */
	if (nla_put_u32(msg, EDM_A_DEV_MAX + 1, 7) ||
	    nla_put(msg, 200, 3, "abc") ||
	    nla_put(msg, EDM_A_DEV_MAX + 7, 0, NULL))
		abort();
	put_dev(msg, 3, "x", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	nest = nla_nest_start(msg, (EDM_A_DEV_MAX + 2) | NLA_F_NESTED);
	if (!nest || nla_put_u64(msg, 1, big))
		abort();
	nla_nest_end(msg, nest);
	expect("unknown attrs ignored", show_one(msg, false, false),
	       "3: name x type null backend soft\n");
	nlmsg_free(msg);

	/* Unknown enum values (a newer module) print, never crash. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	put_dev(msg, 4, "y", 77, 0xffffffffu);
	expect("unknown enums text", show_one(msg, false, false),
	       "4: name y type unknown(77) backend unknown(4294967295)\n");
	expect("unknown enums json", show_one(msg, true, false),
	       "[{\"id\":4,\"name\":\"y\",\"type\":\"unknown(77)\","
	       "\"backend\":\"unknown(4294967295)\"}]\n");
	nlmsg_free(msg);

	/* Wrong sizes and an unterminated string are treated as absent. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	if (nla_put_u32(msg, EDM_A_DEV_ID, 5) ||
	    nla_put(msg, EDM_A_DEV_NAME, 3, "abc") ||
	    nla_put_u64(msg, EDM_A_DEV_TYPE, 1) ||
	    nla_put_u8(msg, EDM_A_DEV_BACKEND, 1))
		abort();
	expect("malformed attrs text", show_one(msg, false, false), "5:\n");
	expect("malformed attrs json", show_one(msg, true, false),
	       "[{\"id\":5}]\n");
	nlmsg_free(msg);

	/* No attributes at all. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	expect("no attrs json", show_one(msg, true, false), "[{}]\n");
	nlmsg_free(msg);
}

static void test_truncated(void)
{
	struct nlmsghdr hdr = {
		.nlmsg_len = NLMSG_HDRLEN,	/* no genl header */
		.nlmsg_type = FAMILY,
	};
	struct edm_dev d;

	checks++;
	if (dev_parse(&hdr, &d) != -1) {
		failures++;
		fprintf(stderr, "FAIL truncated message accepted\n");
	}
}

static void test_json_escape(void)
{
	const char *s;

	capture_start(true, false);
	open_json_object(NULL);
	print_string(PRINT_ANY, "q", "%s", "a\"b\\c/d");
	print_string(PRINT_ANY, "ctl", "%s", "\n\t\r\b\f\x01\x1f\x7f");
	print_string(PRINT_ANY, "utf8", "%s", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	print_string(PRINT_ANY, "bad", "%s", "\xff\xc3(\xe0\x80\x80\xed\xa0\x80\xf4\x90\x80\x80x");
	print_string(PRINT_ANY, "k\"ey", "%s", "");
	print_string(PRINT_ANY, "null", "%s", NULL);
	print_uint(PRINT_ANY, "u", "%u", 4294967295u);
	print_u64(PRINT_ANY, "u64", "%llu", 18446744073709551615ull);
	print_int(PRINT_ANY, "i", "%d", -5);
	print_bool(PRINT_ANY, "b", "%s", true);
	print_string(PRINT_FP, "textonly", "%s", "nope");
	open_json_array(PRINT_JSON, "arr");
	print_uint(PRINT_ANY, NULL, "%u", 1);
	open_json_object(NULL);
	close_json_object();
	open_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
	s = capture_end();
	expect("json escaping", s,
	       "{\"q\":\"a\\\"b\\\\c/d\","
	       "\"ctl\":\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\","
	       "\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
	       "\"bad\":\"\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
	       "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdx\","
	       "\"k\\\"ey\":\"\","
	       "\"null\":null,"
	       "\"u\":4294967295,"
	       "\"u64\":18446744073709551615,"
	       "\"i\":-5,"
	       "\"b\":true,"
	       "\"arr\":[1,{},[]]}\n");

	/* Text mode ignores JSON-only output. */
	capture_start(false, false);
	open_json_object(NULL);
	print_string(PRINT_JSON, "j", "%s", "nope");
	print_string(PRINT_ANY, "k", "k %s", "v");
	close_json_object();
	print_nl();
	expect("text mode", capture_end(), "k v\n");

	/* Empty array, pretty. */
	capture_start(true, true);
	open_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	expect("empty array pretty", capture_end(), "[]\n");

	/* A device name with quotes, through the device printer. */
	{
		struct nl_msg *msg = dev_msg(EDM_CMD_DEV_GET);

		put_dev(msg, 9, "a\"b\\c", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
		expect("dev name escaped", show_one(msg, true, false),
		       "[{\"id\":9,\"name\":\"a\\\"b\\\\c\",\"type\":\"null\",\"backend\":\"soft\"}]\n");
		nlmsg_free(msg);
	}
}

static const char *monitor_one(struct nl_msg *msg, bool json)
{
	capture_start(json, false);
	monitor_print_event(nlmsg_hdr(msg));
	return capture_end();
}

static void test_monitor(void)
{
	struct nl_msg *msg;

	msg = dev_msg(EDM_CMD_DEV_NEW);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor new text", monitor_one(msg, false),
	       "dev new 1: name dev0 type null backend soft\n");
	expect("monitor new json", monitor_one(msg, true),
	       "{\"object\":\"dev\",\"event\":\"new\",\"id\":1,\"name\":\"dev0\","
	       "\"type\":\"null\",\"backend\":\"soft\"}\n");
	nlmsg_free(msg);

	msg = dev_msg(EDM_CMD_DEV_DEL);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor del text", monitor_one(msg, false),
	       "dev del 1: name dev0 type null backend soft\n");
	nlmsg_free(msg);

	/* An event command we do not know is skipped silently. */
	msg = dev_msg(EDM_CMD_MAX + 5);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor unknown cmd", monitor_one(msg, false), "");
	expect("monitor unknown cmd json", monitor_one(msg, true), "");
	nlmsg_free(msg);
}

/* ---- netdimm ---- */

#define MiB	(1ULL << 20)

static void put_u64_or_die(struct nl_msg *msg, int type, uint64_t v)
{
	if (nla_put_u64(msg, type, v))
		abort();
}

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
	put_u64_or_die(msg, EDM_A_ZONE_SIZE, 64 * MiB);
	put_u64_or_die(msg, EDM_A_ZONE_FREE, 62 * MiB);
	put_u64_or_die(msg, EDM_A_ZONE_LENT, 3);
	put_u64_or_die(msg, EDM_A_ZONE_CACHED, 512);
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
		put_u64_or_die(msg, netdimm_stat_attr(i), 100 + i);
	nla_nest_end(msg, nest);
}

/* A NETDIMM_GET reply for nd0, paired with nd1, as the kernel sends it. */
static struct nl_msg *netdimm_msg(uint8_t cmd)
{
	struct nl_msg *msg = dev_msg(cmd);

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
	capture_start(json, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	if (netdimm_print_msg(nlmsg_hdr(msg), view, stats))
		print_string(PRINT_ANY, "malformed", "%s", "malformed");
	close_json_object();
	print_nl();
	close_json_array(PRINT_JSON, NULL);
	return capture_end();
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

static void test_netdimm_views(void)
{
	struct nl_msg *msg = netdimm_msg(EDM_CMD_NETDIMM_GET);

	expect("netdimm show text", nd_one(msg, NETDIMM_VIEW_SHOW, false, false),
	       ND_LINE "\n    " ND_ZONE "\n");
	expect("netdimm show json", nd_one(msg, NETDIMM_VIEW_SHOW, false, true),
	       "[{" ND_JSON_DEV "," ND_JSON_ZONE "}]\n");
	expect("netdimm show -s text", nd_one(msg, NETDIMM_VIEW_SHOW, true, false),
	       ND_LINE "\n    " ND_ZONE ND_STATS_TEXT "\n");
	expect("netdimm show -s json", nd_one(msg, NETDIMM_VIEW_SHOW, true, true),
	       "[{" ND_JSON_DEV "," ND_JSON_ZONE "," ND_JSON_STATS "}]\n");
	expect("netdimm zone text", nd_one(msg, NETDIMM_VIEW_ZONE, false, false),
	       "nd0: " ND_ZONE "\n");
	expect("netdimm zone json", nd_one(msg, NETDIMM_VIEW_ZONE, false, true),
	       "[{\"name\":\"nd0\"," ND_JSON_ZONE "}]\n");
	expect("netdimm stats text", nd_one(msg, NETDIMM_VIEW_STATS, false, false),
	       "nd0:" ND_STATS_TEXT "\n");
	expect("netdimm stats json", nd_one(msg, NETDIMM_VIEW_STATS, false, true),
	       "[{\"name\":\"nd0\"," ND_JSON_STATS "}]\n");
	nlmsg_free(msg);
}

static void test_netdimm_fields(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_NETDIMM_GET);
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
	expect("netdimm lower text", nd_one(msg, NETDIMM_VIEW_SHOW, true, false),
	       "2: name nd2 lower if2147483632 poll-us 50 rx-mode clone "
	       "wire-rate 100000 wire-delay 2000\n");
	expect("netdimm lower json", nd_one(msg, NETDIMM_VIEW_SHOW, true, true),
	       "[{\"id\":2,\"name\":\"nd2\",\"lower\":2147483632,\"poll_us\":50,"
	       "\"rx_mode\":\"clone\",\"wire_mbps\":100000,\"wire_delay_ns\":2000}]\n");
	nlmsg_free(msg);

	/* Unknown enum values, attributes and counters (a newer module). */
	msg = dev_msg(EDM_CMD_NETDIMM_GET);
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
	expect("netdimm unknown text", nd_one(msg, NETDIMM_VIEW_SHOW, true, false),
	       "name nd3 rx-mode unknown(9)\n    zone\n    polls 4\n");
	expect("netdimm unknown json", nd_one(msg, NETDIMM_VIEW_SHOW, true, true),
	       "[{\"name\":\"nd3\",\"rx_mode\":\"unknown(9)\",\"zone\":{},"
	       "\"stats\":{\"polls\":4}}]\n");
	nlmsg_free(msg);

	/* A zone whose contents are truncated prints what it holds: nothing. */
	msg = dev_msg(EDM_CMD_NETDIMM_GET);
	if (nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd4") ||
	    nla_put(msg, EDM_A_NETDIMM_ZONE, 6, "\x10\x00\x01\x00zz"))
		abort();
	expect("netdimm bad nest", nd_one(msg, NETDIMM_VIEW_ZONE, false, true),
	       "[{\"name\":\"nd4\",\"zone\":{}}]\n");
	nlmsg_free(msg);
}

static void test_netdimm_monitor(void)
{
	struct nl_msg *msg = netdimm_msg(EDM_CMD_NETDIMM_NEW);

	expect("monitor netdimm new text", monitor_one(msg, false),
	       "netdimm new " ND_LINE "\n");
	expect("monitor netdimm new json", monitor_one(msg, true),
	       "{\"object\":\"netdimm\",\"event\":\"new\"," ND_JSON_DEV "}\n");
	nlmsg_free(msg);

	msg = dev_msg(EDM_CMD_NETDIMM_DEL);
	if (nla_put_u32(msg, EDM_A_NETDIMM_ID, 1) ||
	    nla_put_string(msg, EDM_A_NETDIMM_NAME, "nd0"))
		abort();
	expect("monitor netdimm del text", monitor_one(msg, false),
	       "netdimm del 1: name nd0\n");
	nlmsg_free(msg);

	/* "dev show" names the type of a NetDIMM. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	put_dev(msg, 1, "nd0", EDM_DEV_TYPE_NETDIMM, EDM_BACKEND_SOFT);
	expect("dev netdimm type", show_one(msg, false, false),
	       "1: name nd0 type netdimm backend soft\n");
	nlmsg_free(msg);
}

static void expect_size(const char *s, int want_ret, uint64_t want)
{
	uint64_t v = 0;
	int ret = netdimm_parse_size(s, &v);

	checks++;
	if (ret != want_ret || (!ret && v != want)) {
		failures++;
		fprintf(stderr, "FAIL size \"%s\": ret %d value %llu\n", s, ret,
			(unsigned long long)v);
	}
}

static void test_netdimm_sizes(void)
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
	expect("fmt 64M", b, "64M");
	netdimm_fmt_size(b, sizeof(b), 3 * MiB / 2);
	expect("fmt 1536K", b, "1536K");
	netdimm_fmt_size(b, sizeof(b), 64ULL << 30);
	expect("fmt 64G", b, "64G");
	netdimm_fmt_size(b, sizeof(b), 4097);
	expect("fmt 4097", b, "4097");
	netdimm_fmt_size(b, sizeof(b), 0);
	expect("fmt 0", b, "0");
	netdimm_fmt_size(b, sizeof(b), UINT64_MAX);
	expect("fmt max", b, "18446744073709551615");
}

/* The counters' table names each EDM_A_NDSTAT_* once, with distinct keys. */
static void test_netdimm_stat_table(void)
{
	int seen[EDM_A_NDSTAT_MAX + 1] = { 0 };
	unsigned int i, j;
	int a;

	for (i = 0; i < netdimm_stat_count(); i++) {
		a = netdimm_stat_attr(i);
		checks++;
		if (a <= EDM_A_NDSTAT_PAD || a > EDM_A_NDSTAT_MAX || seen[a]++) {
			failures++;
			fprintf(stderr, "FAIL stat table: attribute %d\n", a);
		}
		for (j = 0; j < i; j++) {
			checks++;
			if (!strcmp(netdimm_stat_key(i), netdimm_stat_key(j))) {
				failures++;
				fprintf(stderr, "FAIL stat table: key %s twice\n",
					netdimm_stat_key(i));
			}
		}
	}
	for (a = EDM_A_NDSTAT_PAD + 1; a <= EDM_A_NDSTAT_MAX; a++) {
		checks++;
		if (seen[a] != 1) {
			failures++;
			fprintf(stderr, "FAIL stat table: attribute %d missing\n", a);
		}
	}
}

static int emit_netdimm_json(void)
{
	struct nl_msg *msg = netdimm_msg(EDM_CMD_NETDIMM_GET);

	fputs(nd_one(msg, NETDIMM_VIEW_SHOW, true, true), stdout);
	nlmsg_free(msg);
	capture_start(false, false);
	capture_end();
	free(buf);
	return 0;
}

/* ---- extended ACK ---- */

static const char *const words[] = { NULL, "id", "name", "type", "backend" };
static const struct edm_nl_attr_names names = { words, ARRAY_SIZE(words) };

static struct nl_msg *err_msg(int error, bool capped, const char *text,
			      int miss)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + 12),
		.nlmsg_type = FAMILY,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	struct nlmsgerr e = { .error = error, .msg = req };
	char echo[GENL_HDRLEN + 12];
	struct nl_msg *msg;
	int flags = 0;

	if (capped || !error)
		flags |= NLM_F_CAPPED;
	if (text || miss >= 0)
		flags |= NLM_F_ACK_TLVS;
	msg = nlmsg_alloc_simple(NLMSG_ERROR, flags);
	if (!msg || nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO))
		abort();
	if (!(flags & NLM_F_CAPPED)) {
		/* The echoed request's payload; its bytes look like TLVs. */
		memset(echo, 0x08, sizeof(echo));
		if (nlmsg_append(msg, echo, sizeof(echo), NLMSG_ALIGNTO))
			abort();
	}
	if (text && nla_put_string(msg, NLMSGERR_ATTR_MSG, text))
		abort();
	if (miss >= 0 && nla_put_u32(msg, NLMSGERR_ATTR_MISS_TYPE, miss))
		abort();
	return msg;
}

/*
 * An error about an echoed request of two attributes, name "ab" then a u32
 * type; NLMSGERR_ATTR_OFFS points into the second one.
 */
static struct nl_msg *err_msg_offs(const char *text, uint32_t into)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
		struct nlattr a1;
		char name[4];
		struct nlattr a2;
		uint32_t v;
	} __attribute__((packed)) req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.a1 = { .nla_len = NLA_HDRLEN + 3, .nla_type = EDM_A_DEV_NAME },
		.name = "ab",
		.a2 = { .nla_len = NLA_HDRLEN + 4, .nla_type = EDM_A_DEV_TYPE },
		.v = 7,
	};
	int error = -EINVAL;
	struct nl_msg *msg;

	msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_ACK_TLVS);
	if (!msg || nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO) ||
	    nlmsg_append(msg, &req, sizeof(req), NLMSG_ALIGNTO) ||
	    nla_put_string(msg, NLMSGERR_ATTR_MSG, text) ||
	    nla_put_u32(msg, NLMSGERR_ATTR_OFFS, offsetof(typeof(req), a2) + into))
		abort();
	return msg;
}

static const char *report(struct nl_msg *msg, int *ret)
{
	capture_start(false, false);
	*ret = edm_nl_report_err(mem, nlmsg_hdr(msg), &names);
	nlmsg_free(msg);
	return capture_end();
}

static void test_extack(void)
{
	int ret;

	expect("extack msg capped",
	       report(err_msg(-EINVAL, true, "device name in use", -1), &ret),
	       "Error: device name in use.\n");
	checks++;
	if (ret != -EINVAL) {
		failures++;
		fprintf(stderr, "FAIL extack return %d\n", ret);
	}
	expect("extack msg echoed request",
	       report(err_msg(-EEXIST, false, "exists", -1), &ret),
	       "Error: exists.\n");
	expect("extack msg with period",
	       report(err_msg(-EEXIST, true, "Already there.", -1), &ret),
	       "Error: Already there.\n");
	expect("no extack",
	       report(err_msg(-ENODEV, true, NULL, -1), &ret),
	       "Error: No such device.\n");
	expect("no extack echoed",
	       report(err_msg(-EPERM, false, NULL, -1), &ret),
	       "Error: Operation not permitted.\n");
	expect("missing attribute",
	       report(err_msg(-EINVAL, true, NULL, EDM_A_DEV_NAME), &ret),
	       "Error: Invalid argument (missing attribute \"name\").\n");
	expect("missing unknown attribute",
	       report(err_msg(-EINVAL, true, NULL, 99), &ret),
	       "Error: Invalid argument (missing attribute 99).\n");
	expect("empty message",
	       report(err_msg(-EINVAL, true, "", -1), &ret),
	       "Error: Invalid argument.\n");
	expect("generic policy message names the attribute",
	       report(err_msg_offs("integer out of range", 0), &ret),
	       "Error: integer out of range (attribute \"type\").\n");
	expect("offset inside the attribute names it too",
	       report(err_msg_offs("integer out of range", NLA_HDRLEN), &ret),
	       "Error: integer out of range (attribute \"type\").\n");
	expect("the family's own message is left as is",
	       report(err_msg_offs("invalid device type", 0), &ret),
	       "Error: invalid device type.\n");
	expect("offset past the request names nothing",
	       report(err_msg_offs("integer out of range", 64), &ret),
	       "Error: integer out of range.\n");
	expect("ack no warning", report(err_msg(0, true, NULL, -1), &ret), "");
	expect("ack warning",
	       report(err_msg(0, true, "deprecated attribute", -1), &ret),
	       "Warning: deprecated attribute.\n");

	/* NLMSG_DONE of a failed dump. */
	{
		int error = -ENOBUFS;
		struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE,
						NLM_F_MULTI | NLM_F_ACK_TLVS);

		if (!msg || nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO) ||
		    nla_put_string(msg, NLMSGERR_ATTR_MSG, "dump failed"))
			abort();
		capture_start(false, false);
		ret = edm_nl_report_done(mem, nlmsg_hdr(msg), &names);
		nlmsg_free(msg);
		expect("dump done error", capture_end(), "Error: dump failed.\n");
		checks++;
		if (ret != -ENOBUFS) {
			failures++;
			fprintf(stderr, "FAIL done return %d\n", ret);
		}
	}
	/* A clean NLMSG_DONE. */
	{
		int zero = 0;
		struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);

		if (!msg || nlmsg_append(msg, &zero, sizeof(zero), NLMSG_ALIGNTO))
			abort();
		capture_start(false, false);
		ret = edm_nl_report_done(mem, nlmsg_hdr(msg), &names);
		nlmsg_free(msg);
		expect("dump done clean", capture_end(), "");
	}
}

static void test_words(void)
{
	static const char *const w[] = { "unspec", "null", NULL, "soft" };
	uint32_t v = 0;
	char b[32];

	checks += 5;
	if (enum_from_word(w, ARRAY_SIZE(w), "null", &v) || v != 1)
		failures++, fprintf(stderr, "FAIL enum null\n");
	if (!enum_from_word(w, ARRAY_SIZE(w), "unspec", &v))
		failures++, fprintf(stderr, "FAIL enum unspec accepted\n");
	if (enum_from_word(w, ARRAY_SIZE(w), "soft", &v) || v != 3)
		failures++, fprintf(stderr, "FAIL enum soft\n");
	if (parse_u32("4294967295", &v) || v != 4294967295u)
		failures++, fprintf(stderr, "FAIL u32 max\n");
	if (!parse_u32("4294967296", &v) || !parse_u32("-1", &v) ||
	    !parse_u32("", &v) || !parse_u32("1x", &v) || !parse_u32(" 1", &v))
		failures++, fprintf(stderr, "FAIL u32 junk accepted\n");
	enum_join(b, sizeof(b), w, ARRAY_SIZE(w), " | ");
	expect("enum_join", b, "null | soft");
	expect("enum_to_word", enum_to_word(w, ARRAY_SIZE(w), 2, b, sizeof(b)),
	       "unknown(2)");
}

/* ---- live: the kernel's nlctrl family ---- */

static int saved_stderr = -1;
static FILE *err_file;

static void err_capture_start(void)
{
	fflush(stderr);
	err_file = tmpfile();
	if (!err_file)
		abort();
	saved_stderr = dup(2);
	dup2(fileno(err_file), 2);
}

static const char *err_capture_end(void)
{
	static char text[4096];
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	rewind(err_file);
	n = fread(text, 1, sizeof(text) - 1, err_file);
	text[n] = '\0';
	fclose(err_file);
	return text;
}

static int count_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int *count = arg;

	if (edm_nl_parse(nlh, tb, CTRL_ATTR_MAX) == 0 &&
	    edm_nl_get_str(tb[CTRL_ATTR_FAMILY_NAME]))
		(*count)++;
	return 0;
}

static void expect_int(const char *what, int got, int want)
{
	checks++;
	if (got != want) {
		failures++;
		fprintf(stderr, "FAIL %s: got %d, want %d\n", what, got, want);
	}
}

static void test_live_nlctrl(void)
{
	struct nl_msg *msg;
	const char *err;
	int count, ret;

	edm_nl_set_family_name("nlctrl");
	if (edm_nl_open()) {
		fprintf(stderr, "note: no generic netlink here, live tests skipped\n");
		return;
	}

	/* A dump: several replies, then NLMSG_DONE. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl dump ret", ret, 0);
	checks++;
	if (count < 1) {
		failures++;
		fprintf(stderr, "FAIL nlctrl dump: %d families\n", count);
	}

	/* A do request: one reply, then the ACK. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl do ret", ret, 0);
	expect_int("nlctrl do replies", count, 1);

	/* Two requests on one socket: sequence numbers keep them apart. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl second do", ret + count, 1);

	/* A kernel error, printed as "Error: ...". */
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "edmctl-nosuch");
	err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = err_capture_end();
	expect_int("nlctrl ENOENT", ret, -ENOENT);
	checks++;
	if (strncmp(err, "Error: ", 7) || err[strlen(err) - 1] != '\n') {
		failures++;
		fprintf(stderr, "FAIL nlctrl ENOENT message: \"%s\"\n", err);
	}

	/* A policy error: the kernel's extack message is printed. */
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME,
		       "a-name-much-longer-than-genl-namsiz");
	err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = err_capture_end();
	checks++;
	if (ret >= 0 || strncmp(err, "Error: ", 7) ||
	    !strcmp(err, "Error: Invalid argument.\n")) {
		failures++;
		fprintf(stderr, "FAIL nlctrl policy error: ret %d \"%s\"\n",
			ret, err);
	} else {
		printf("unit: kernel policy error printed as: %s", err);
	}

	/* An unknown command. */
	msg = edm_nl_req(250, 0);
	err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = err_capture_end();
	expect_int("nlctrl unknown command", ret, -EOPNOTSUPP);
	expect("nlctrl unknown command message", err,
	       "Error: Operation not supported.\n");

	edm_nl_close();
	edm_nl_set_family_name(EDM_GENL_NAME);
}

/* ---- fabric ---- */

/* Counter attribute a of a node = 1000 + a, of a link end = 2000 + a. */
static void put_counters(struct nl_msg *msg, int nest_type, int first, int last, int base)
{
	struct nlattr *nest = nla_nest_start(msg, nest_type | NLA_F_NESTED);
	int a;

	/* The kernel pads u64s with the nest's PAD: it must be ignored. */
	if (!nest || nla_put(msg, EDM_A_FSTAT_PAD, 0, NULL))
		abort();
	for (a = first; a <= last; a++)
		put_u64_or_die(msg, a, base + a);
	nla_nest_end(msg, nest);
}

/* A FABRIC_GET reply for switch sw0, as the kernel sends it. */
static struct nl_msg *fab_switch_msg(uint8_t cmd)
{
	struct nl_msg *msg = dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_FAB_ID, 1) ||
	    nla_put_string(msg, EDM_A_FAB_NAME, "sw0") ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FSWITCH) ||
	    nla_put_u32(msg, EDM_A_FAB_PORTS, 16) ||
	    nla_put_u32(msg, EDM_A_FAB_SCHED_X, 3) ||
	    nla_put_u32(msg, EDM_A_FAB_CHUNK, 256) ||
	    nla_put_u32(msg, EDM_A_FAB_POLICY, EDM_FAB_POLICY_SRPT) ||
	    nla_put_u32(msg, EDM_A_FAB_RATE_MBPS, 25000))
		abort();
	put_counters(msg, EDM_A_FAB_STATS, EDM_A_FSTAT_SCHED_NOTIFS, EDM_A_FSTAT_DROPS, 1000);
	return msg;
}

/* Host h0: address 1, a 64 MiB region, /dev/edm0. */
static struct nl_msg *fab_host_msg(uint8_t cmd)
{
	struct nl_msg *msg = dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_FAB_ID, 2) ||
	    nla_put_string(msg, EDM_A_FAB_NAME, "h0") ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FHOST) ||
	    nla_put_u32(msg, EDM_A_FAB_ADDR, 1) ||
	    nla_put(msg, EDM_A_FAB_PAD, 0, NULL) ||
	    nla_put_u64(msg, EDM_A_FAB_REGION_SIZE, 64 * MiB) ||
	    nla_put_u32(msg, EDM_A_FAB_TIMEOUT_MS, 100) ||
	    nla_put_u32(msg, EDM_A_FAB_MINOR, 0))
		abort();
	put_counters(msg, EDM_A_FAB_STATS, EDM_A_FSTAT_READS, EDM_A_FSTAT_SERVED_ERRORS, 1000);
	return msg;
}

/* The link end sw0:1, emulated, to h1:0. */
static struct nl_msg *flink_msg(uint8_t cmd)
{
	struct nl_msg *msg = dev_msg(cmd);

	if (nla_put_string(msg, EDM_A_FLINK_NODE, "sw0") ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, 1) ||
	    nla_put_string(msg, EDM_A_FLINK_PEER, "h1") ||
	    nla_put_u32(msg, EDM_A_FLINK_PEER_PORT, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_RATE_MBPS, 25000) ||
	    nla_put_u32(msg, EDM_A_FLINK_DELAY_NS, 10) ||
	    nla_put_u32(msg, EDM_A_FLINK_MUX, EDM_FAB_MUX_FAIR) ||
	    nla_put_u32(msg, EDM_A_FLINK_SHERR_THRESHOLD, 64) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, EDM_FLINK_UP))
		abort();
	put_counters(msg, EDM_A_FLINK_STATS, EDM_A_LSTAT_TX_BLOCKS, EDM_A_LSTAT_DOWN_EVENTS, 2000);
	return msg;
}

/* A list of one, as "fabric show|stats" and "fabric link show" print it. */
static const char *fab_one(struct nl_msg *msg, bool link, enum fabric_view view,
			   bool stats, bool json)
{
	int ret;

	capture_start(json, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	ret = link ? fabric_link_print_msg(nlmsg_hdr(msg), stats) :
		     fabric_print_msg(nlmsg_hdr(msg), view, stats);
	if (ret)
		print_string(PRINT_ANY, "malformed", "%s", "malformed");
	close_json_object();
	print_nl();
	close_json_array(PRINT_JSON, NULL);
	return capture_end();
}

#define SW_LINE "1: name sw0 type switch ports 16 x 3 chunk 256 policy srpt rate 25000"
#define SW_STATS_TEXT \
	"\n    sched notifs 1018 rejected 1019 grants 1020 grant-bytes 1021" \
	"\n    pim matchings 1022 iterations 1023 iter-max 1024 matching-max 1025" \
	"\n    queue depth 1026 depth-max 1027" \
	"\n    fwd msgs 1028 frames 1029 drops 1030"
#define SW_JSON "\"id\":1,\"name\":\"sw0\",\"type\":\"switch\",\"ports\":16,\"sched_x\":3," \
	"\"chunk\":256,\"policy\":\"srpt\",\"rate_mbps\":25000"
#define SW_JSON_STATS "\"stats\":{\"sched_notifs\":1018,\"sched_rejected\":1019," \
	"\"grants\":1020,\"grant_bytes\":1021,\"matchings\":1022,\"iterations\":1023," \
	"\"iter_max\":1024,\"matching_max\":1025,\"depth\":1026,\"depth_max\":1027," \
	"\"fwd_msgs\":1028,\"fwd_frames\":1029,\"drops\":1030}"
#define HOST_LINE "2: name h0 type host addr 1 region 64M timeout 100 cdev /dev/edm0"
#define HOST_STATS_TEXT \
	"\n    ops reads 1002 writes 1003 rmws 1004 read-bytes 1005 write-bytes 1006" \
	" errors 1007 timeouts 1008" \
	"\n    msgs queued 1009 inflight 1010 notifs 1011 grants-rx 1012 stray 1013" \
	"\n    served reads 1014 writes 1015 rmws 1016 errors 1017"
#define HOST_JSON "\"id\":2,\"name\":\"h0\",\"type\":\"host\",\"addr\":1," \
	"\"region_size\":67108864,\"timeout_ms\":100,\"minor\":0"
#define HOST_JSON_STATS "\"stats\":{\"reads\":1002,\"writes\":1003,\"rmws\":1004," \
	"\"read_bytes\":1005,\"write_bytes\":1006,\"errors\":1007,\"timeouts\":1008," \
	"\"queued\":1009,\"inflight\":1010,\"notifs\":1011,\"grants_rx\":1012," \
	"\"stray\":1013,\"served_reads\":1014,\"served_writes\":1015," \
	"\"served_rmws\":1016,\"served_errors\":1017}"
#define LINK_LINE "sw0:1 peer h1:0 rate 25000 delay 10 mux fair sherr 64 state up"
#define LINK_STATS_TEXT \
	"\n    tx blocks 2002 mem-blocks 2004 frame-blocks 2005 bursts 2006 drops 2013" \
	"\n    rx blocks 2003 bursts 2007 bad 2011 sherr 2010 seq-gaps 2012" \
	"\n    mux preemptions 2008 mem-wait-max 2009" \
	"\n    down-events 2014"
#define LINK_JSON "\"node\":\"sw0\",\"port\":1,\"peer\":\"h1\",\"peer_port\":0," \
	"\"rate_mbps\":25000,\"delay_ns\":10,\"mux\":\"fair\",\"sherr_threshold\":64," \
	"\"state\":\"up\""
#define LINK_JSON_STATS "\"stats\":{\"tx_blocks\":2002,\"tx_mem_blocks\":2004," \
	"\"tx_frame_blocks\":2005,\"tx_bursts\":2006,\"tx_drops\":2013,\"rx_blocks\":2003," \
	"\"rx_bursts\":2007,\"rx_bad\":2011,\"sherr\":2010,\"seq_gaps\":2012," \
	"\"preemptions\":2008,\"mem_wait_max\":2009,\"down_events\":2014}"

static void test_fabric_nodes(void)
{
	struct nl_msg *msg = fab_switch_msg(EDM_CMD_FABRIC_GET);

	expect("fabric switch text", fab_one(msg, false, FABRIC_VIEW_SHOW, false, false),
	       SW_LINE "\n");
	expect("fabric switch json", fab_one(msg, false, FABRIC_VIEW_SHOW, false, true),
	       "[{" SW_JSON "}]\n");
	expect("fabric switch -s text", fab_one(msg, false, FABRIC_VIEW_SHOW, true, false),
	       SW_LINE SW_STATS_TEXT "\n");
	expect("fabric switch -s json", fab_one(msg, false, FABRIC_VIEW_SHOW, true, true),
	       "[{" SW_JSON "," SW_JSON_STATS "}]\n");
	expect("fabric switch stats text", fab_one(msg, false, FABRIC_VIEW_STATS, false, false),
	       "sw0:" SW_STATS_TEXT "\n");
	expect("fabric switch stats json", fab_one(msg, false, FABRIC_VIEW_STATS, false, true),
	       "[{\"name\":\"sw0\"," SW_JSON_STATS "}]\n");
	nlmsg_free(msg);

	msg = fab_host_msg(EDM_CMD_FABRIC_GET);
	expect("fabric host text", fab_one(msg, false, FABRIC_VIEW_SHOW, false, false),
	       HOST_LINE "\n");
	expect("fabric host json", fab_one(msg, false, FABRIC_VIEW_SHOW, false, true),
	       "[{" HOST_JSON "}]\n");
	expect("fabric host -s text", fab_one(msg, false, FABRIC_VIEW_SHOW, true, false),
	       HOST_LINE HOST_STATS_TEXT "\n");
	expect("fabric host stats json", fab_one(msg, false, FABRIC_VIEW_STATS, false, true),
	       "[{\"name\":\"h0\"," HOST_JSON_STATS "}]\n");
	nlmsg_free(msg);

	/* Unknown kinds and policies, a region of no round size, no stats nest. */
	msg = dev_msg(EDM_CMD_FABRIC_GET);
	if (nla_put_string(msg, EDM_A_FAB_NAME, "n3") ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_NETDIMM) ||
	    nla_put_u32(msg, EDM_A_FAB_POLICY, 7) ||
	    nla_put_u64(msg, EDM_A_FAB_REGION_SIZE, 4097) ||
	    nla_put_u32(msg, EDM_A_FAB_MAX + 1, 1) ||
	    nla_put_u64(msg, EDM_A_FAB_CHUNK, 1))	/* wrong size */
		abort();
	expect("fabric unknown text", fab_one(msg, false, FABRIC_VIEW_SHOW, true, false),
	       "name n3 type unknown(2) policy unknown(7) region 4097\n");
	expect("fabric unknown json", fab_one(msg, false, FABRIC_VIEW_SHOW, true, true),
	       "[{\"name\":\"n3\",\"type\":\"unknown(2)\",\"policy\":\"unknown(7)\","
	       "\"region_size\":4097}]\n");
	nlmsg_free(msg);
}

static void test_fabric_links(void)
{
	struct nl_msg *msg = flink_msg(EDM_CMD_FLINK_GET);

	expect("link text", fab_one(msg, true, FABRIC_VIEW_SHOW, false, false), LINK_LINE "\n");
	expect("link json", fab_one(msg, true, FABRIC_VIEW_SHOW, false, true),
	       "[{" LINK_JSON "}]\n");
	expect("link -s text", fab_one(msg, true, FABRIC_VIEW_SHOW, true, false),
	       LINK_LINE LINK_STATS_TEXT "\n");
	expect("link -s json", fab_one(msg, true, FABRIC_VIEW_SHOW, true, true),
	       "[{" LINK_JSON "," LINK_JSON_STATS "}]\n");
	nlmsg_free(msg);

	/* Bound to a netdev that is not here: its ifindex in text too. */
	msg = dev_msg(EDM_CMD_FLINK_GET);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "h0") ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_IFINDEX, 0x7ffffff0) ||
	    nla_put_u32(msg, EDM_A_FLINK_RATE_MBPS, 10000) ||
	    nla_put_u32(msg, EDM_A_FLINK_DELAY_NS, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_MUX, EDM_FAB_MUX_STRICT) ||
	    nla_put_u32(msg, EDM_A_FLINK_SHERR_THRESHOLD, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, EDM_FLINK_DOWN))
		abort();
	expect("bound link text", fab_one(msg, true, FABRIC_VIEW_SHOW, true, false),
	       "h0:0 dev if2147483632 rate 10000 delay 0 mux strict sherr 0 state down\n");
	expect("bound link json", fab_one(msg, true, FABRIC_VIEW_SHOW, true, true),
	       "[{\"node\":\"h0\",\"port\":0,\"ifindex\":2147483632,\"rate_mbps\":10000,"
	       "\"delay_ns\":0,\"mux\":\"strict\",\"sherr_threshold\":0,\"state\":\"down\"}]\n");
	nlmsg_free(msg);

	/* A newer module's mux and state, and a counter we do not know. */
	msg = dev_msg(EDM_CMD_FLINK_GET);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "sw1") ||
	    nla_put_u32(msg, EDM_A_FLINK_MUX, 3) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, 2))
		abort();
	put_counters(msg, EDM_A_FLINK_STATS, EDM_A_LSTAT_MAX + 1, EDM_A_LSTAT_MAX + 1, 0);
	expect("link unknown json", fab_one(msg, true, FABRIC_VIEW_SHOW, true, true),
	       "[{\"node\":\"sw1\",\"mux\":\"unknown(3)\",\"state\":\"unknown(2)\","
	       "\"stats\":{}}]\n");
	nlmsg_free(msg);
}

static void test_fabric_monitor(void)
{
	struct nl_msg *msg = fab_switch_msg(EDM_CMD_FABRIC_NEW);

	/* Events print the node's own fields, never its counters. */
	expect("monitor fabric new text", monitor_one(msg, false), "fabric new " SW_LINE "\n");
	expect("monitor fabric new json", monitor_one(msg, true),
	       "{\"object\":\"fabric\",\"event\":\"new\"," SW_JSON "}\n");
	nlmsg_free(msg);

	msg = fab_host_msg(EDM_CMD_FABRIC_DEL);
	expect("monitor fabric del text", monitor_one(msg, false), "fabric del " HOST_LINE "\n");
	nlmsg_free(msg);

	msg = fab_switch_msg(EDM_CMD_FABRIC_SET);
	expect("monitor fabric set text", monitor_one(msg, false), "fabric set " SW_LINE "\n");
	nlmsg_free(msg);

	msg = flink_msg(EDM_CMD_FLINK_NEW);
	expect("monitor link new text", monitor_one(msg, false),
	       "fabric-link new " LINK_LINE "\n");
	expect("monitor link new json", monitor_one(msg, true),
	       "{\"object\":\"fabric-link\",\"event\":\"new\"," LINK_JSON "}\n");
	nlmsg_free(msg);

	msg = flink_msg(EDM_CMD_FLINK_DEL);
	expect("monitor link del text", monitor_one(msg, false),
	       "fabric-link del " LINK_LINE "\n");
	nlmsg_free(msg);

	msg = flink_msg(EDM_CMD_FLINK_SET);
	expect("monitor link set text", monitor_one(msg, false),
	       "fabric-link set " LINK_LINE "\n");
	nlmsg_free(msg);

	/* A link end that went down, and why: what FLINK_DOWN carries. */
	msg = dev_msg(EDM_CMD_FLINK_DOWN);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "sw0") ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, 3) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, EDM_FLINK_DOWN) ||
	    nla_put_string(msg, EDM_A_FLINK_REASON, "sync header errors"))
		abort();
	expect("monitor link down text", monitor_one(msg, false),
	       "fabric-link down sw0:3 state down reason \"sync header errors\"\n");
	expect("monitor link down json", monitor_one(msg, true),
	       "{\"object\":\"fabric-link\",\"event\":\"down\",\"node\":\"sw0\",\"port\":3,"
	       "\"state\":\"down\",\"reason\":\"sync header errors\"}\n");
	nlmsg_free(msg);
}

/* A counters' table names each attribute of first..last once, with distinct keys. */
static void check_stat_table(const char *what, unsigned int n, int (*attr)(unsigned int),
			     const char *(*key)(unsigned int), int first, int last)
{
	int seen[64] = { 0 };
	unsigned int i, j;
	int a;

	for (i = 0; i < n; i++) {
		a = attr(i);
		checks++;
		if (a < first || a > last || seen[a]++) {
			failures++;
			fprintf(stderr, "FAIL %s table: attribute %d\n", what, a);
		}
		for (j = 0; j < i; j++) {
			checks++;
			if (!strcmp(key(i), key(j))) {
				failures++;
				fprintf(stderr, "FAIL %s table: key %s twice\n", what, key(i));
			}
		}
	}
	for (a = first; a <= last; a++) {
		checks++;
		if (seen[a] != 1) {
			failures++;
			fprintf(stderr, "FAIL %s table: attribute %d missing\n", what, a);
		}
	}
}

static void test_fabric_stat_tables(void)
{
	check_stat_table("fabric stat", fabric_stat_count(), fabric_stat_attr, fabric_stat_key,
			 EDM_A_FSTAT_PAD + 1, EDM_A_FSTAT_MAX);
	check_stat_table("link stat", fabric_link_stat_count(), fabric_link_stat_attr,
			 fabric_link_stat_key, EDM_A_LSTAT_PAD + 1, EDM_A_LSTAT_MAX);
}

static void expect_end(const char *s, int want_ret, const char *want_name, uint32_t want_port,
		       bool want_has_port)
{
	char name[EDM_NAME_LEN] = "";
	uint32_t port = 99;
	bool has_port = false;
	int ret;

	err_capture_start();
	ret = fabric_parse_end(s, name, sizeof(name), &port, &has_port);
	err_capture_end();
	checks++;
	if (ret != want_ret || (!ret && (strcmp(name, want_name) || port != want_port ||
					 has_port != want_has_port))) {
		failures++;
		fprintf(stderr, "FAIL link end \"%s\": ret %d name %s port %u has_port %d\n", s,
			ret, name, port, has_port);
	}
}

static void test_fabric_parse(void)
{
	static const char *const bad_ends[] = {
		"", ":", ":1", "sw0:", "sw0:x", "sw0:-1", "sw0:1:2", "sw0: 1",
		"sw0:4294967296", "0123456789abcdef", "0123456789abcdef:1",
	};
	static const char *const bad_regions[] = {
		"", "-1", "0K", "1T", "1.5M", "x", "00x",
	};
	unsigned int i;
	uint64_t v;
	int ret;

	expect_end("sw0", 0, "sw0", 0, false);
	expect_end("sw0:0", 0, "sw0", 0, true);
	expect_end("sw0:511", 0, "sw0", 511, true);
	expect_end("0123456789abcde:7", 0, "0123456789abcde", 7, true);
	for (i = 0; i < ARRAY_SIZE(bad_ends); i++)
		expect_end(bad_ends[i], -1, NULL, 0, false);

	checks += 4;
	if (fabric_parse_region("0", &v) || v != 0)
		failures++, fprintf(stderr, "FAIL region 0\n");
	if (fabric_parse_region("4k", &v) || v != 4096)
		failures++, fprintf(stderr, "FAIL region 4k\n");
	if (fabric_parse_region("1m", &v) || v != MiB)
		failures++, fprintf(stderr, "FAIL region 1m\n");
	if (fabric_parse_region("1G", &v) || v != 1024 * MiB)
		failures++, fprintf(stderr, "FAIL region 1G\n");
	for (i = 0; i < ARRAY_SIZE(bad_regions); i++) {
		ret = fabric_parse_region(bad_regions[i], &v);
		checks++;
		if (!ret) {
			failures++;
			fprintf(stderr, "FAIL region \"%s\" accepted\n", bad_regions[i]);
		}
	}
}

/* "fabric show -s" and "fabric link show -s" of full messages, as JSON. */
static int emit_fabric_json(void)
{
	struct nl_msg *msgs[3] = {
		fab_switch_msg(EDM_CMD_FABRIC_GET), fab_host_msg(EDM_CMD_FABRIC_GET),
		flink_msg(EDM_CMD_FLINK_GET),
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		fputs(fab_one(msgs[i], i == 2, FABRIC_VIEW_SHOW, true, true), stdout);
		nlmsg_free(msgs[i]);
	}
	capture_start(false, false);
	capture_end();
	free(buf);
	return 0;
}

/* ---- regions and Cowbird ---- */

/* Region 2 of mem0, 1 MiB, rekeyed 3 times; its key if @key; counters 3000 + a. */
static struct nl_msg *region_msg(uint8_t cmd, bool key)
{
	struct nl_msg *msg = dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_REGION_ID, 2) ||
	    nla_put_u32(msg, EDM_A_REGION_KIND, EDM_REGION_KIND_FABRIC) ||
	    nla_put_string(msg, EDM_A_REGION_OWNER, "mem0") ||
	    nla_put(msg, EDM_A_REGION_PAD, 0, NULL) ||
	    nla_put_u64(msg, EDM_A_REGION_SIZE, MiB) ||
	    nla_put_u32(msg, EDM_A_REGION_KEY_GEN, 3) ||
	    (key && nla_put_u64(msg, EDM_A_REGION_KEY, 0xfedcba9876543210ULL)))
		abort();
	put_counters(msg, EDM_A_REGION_STATS, EDM_A_RSTAT_READS, EDM_A_RSTAT_RANGE_ERRORS, 3000);
	return msg;
}

/* The engine: 1 thread on CPU 1, 2 instances; counters 4000 + a. */
static struct nl_msg *cowbird_msg(uint8_t cmd)
{
	struct nl_msg *msg = dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_COWBIRD_THREADS, 1) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_CPU, 1) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_INSTANCES, 2) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_PROBE_MAX_US, 1000) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_IDLE_SPINS, 64) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_BATCH, 16))
		abort();
	put_counters(msg, EDM_A_COWBIRD_STATS, EDM_A_CBSTAT_PICKS, EDM_A_CBSTAT_DESTROYED, 4000);
	return msg;
}

/* Instance 3 on region 2: 4 rings of 64 entries, 64 KiB buffers; counters 5000 + a. */
static struct nl_msg *cbinst_msg(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_COWBIRD_INST_GET);

	if (nla_put_u32(msg, EDM_A_CBINST_ID, 3) ||
	    nla_put_u32(msg, EDM_A_CBINST_REGION_ID, 2) ||
	    nla_put_u64(msg, EDM_A_CBINST_REGION_SIZE, MiB) ||
	    nla_put_u32(msg, EDM_A_CBINST_RINGS, 4) ||
	    nla_put_u32(msg, EDM_A_CBINST_ENTRIES, 64) ||
	    nla_put_u32(msg, EDM_A_CBINST_DATA_SIZE, 65536) ||
	    nla_put_u32(msg, EDM_A_CBINST_BATCH, 16))
		abort();
	put_counters(msg, EDM_A_CBINST_STATS, EDM_A_CBISTAT_PASSES, EDM_A_CBISTAT_CWND_DST, 5000);
	return msg;
}

enum cb_kind { CB_REGION, CB_ENGINE, CB_INST };

/* One entry as "region show" or "cowbird show" prints it, in an array. */
static const char *cb_one(struct nl_msg *msg, enum cb_kind kind, bool stats, bool json)
{
	int ret;

	capture_start(json, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	if (kind == CB_REGION)
		ret = region_print_msg(nlmsg_hdr(msg), stats);
	else if (kind == CB_ENGINE)
		ret = cowbird_print_engine(nlmsg_hdr(msg), stats);
	else
		ret = cowbird_print_inst(nlmsg_hdr(msg), stats);
	if (ret)
		print_string(PRINT_ANY, "malformed", "%s", "malformed");
	close_json_object();
	print_nl();
	close_json_array(PRINT_JSON, NULL);
	return capture_end();
}

#define REGION_LINE "2: kind fabric owner mem0 size 1M key-gen 3"
#define REGION_KEY " key 0xfedcba9876543210"
#define REGION_STATS_TEXT \
	"\n    io reads 3002 writes 3003 read-bytes 3004 write-bytes 3005" \
	"\n    errors access 3006 range 3007"
#define REGION_JSON "\"id\":2,\"kind\":\"fabric\",\"owner\":\"mem0\",\"size\":1048576," \
	"\"key_gen\":3"
#define REGION_JSON_KEY ",\"key\":\"0xfedcba9876543210\""
#define REGION_JSON_STATS "\"stats\":{\"reads\":3002,\"writes\":3003,\"read_bytes\":3004," \
	"\"write_bytes\":3005,\"access_errors\":3006,\"range_errors\":3007}"
#define ENGINE_LINE "engine threads 1 cpu 1 instances 2 probe-max-us 1000 idle-spins 64 batch 16"
#define ENGINE_STATS_TEXT \
	"\n    picks 4002 busy-skips 4003 sleeps 4004 created 4005 destroyed 4006"
#define ENGINE_JSON "\"threads\":1,\"cpu\":1,\"instances\":2,\"probe_max_us\":1000," \
	"\"idle_spins\":64,\"batch\":16"
#define INST_LINE "instance 3 region 2 size 1M rings 4 entries 64 data 64K batch 16"
#define INST_STATS_TEXT \
	"\n    ring passes 5002 fetched 5003 rejected 5004 ops 5005 completed 5006" \
	" batches 5007 stopped 5010" \
	"\n    blocked rd 5008 wr 5009" \
	"\n    rd ops 5011 bytes 5012" \
	"\n    wr ops 5013 bytes 5014" \
	"\n    errors ops 5015" \
	"\n    cc issued 5016 completed 5017 increases 5018 decreases 5019" \
	" timeout-decreases 5020 cwnd-local 5021 cwnd-dst 5022"
#define INST_JSON "\"id\":3,\"region_id\":2,\"region_size\":1048576,\"rings\":4," \
	"\"entries\":64,\"data_size\":65536,\"batch\":16"

static void test_region(void)
{
	struct nl_msg *msg = region_msg(EDM_CMD_REGION_GET, false);

	expect("region text", cb_one(msg, CB_REGION, false, false), REGION_LINE "\n");
	expect("region json", cb_one(msg, CB_REGION, false, true), "[{" REGION_JSON "}]\n");
	expect("region -s text", cb_one(msg, CB_REGION, true, false),
	       REGION_LINE REGION_STATS_TEXT "\n");
	expect("region -s json", cb_one(msg, CB_REGION, true, true),
	       "[{" REGION_JSON "," REGION_JSON_STATS "}]\n");
	nlmsg_free(msg);

	/* With the key (CAP_NET_ADMIN): a hex string, all 64 bits, in both outputs. */
	msg = region_msg(EDM_CMD_REGION_GET, true);
	expect("region key text", cb_one(msg, CB_REGION, false, false),
	       REGION_LINE REGION_KEY "\n");
	expect("region key json", cb_one(msg, CB_REGION, false, true),
	       "[{" REGION_JSON REGION_JSON_KEY "}]\n");
	nlmsg_free(msg);

	/* A newer module's kind; a key of the wrong size is no key. */
	msg = dev_msg(EDM_CMD_REGION_GET);
	if (nla_put_u32(msg, EDM_A_REGION_ID, 700) ||
	    nla_put_u32(msg, EDM_A_REGION_KIND, 9) ||
	    nla_put_u32(msg, EDM_A_REGION_KEY, 1) ||
	    nla_put_u32(msg, EDM_A_REGION_MAX + 1, 1))
		abort();
	expect("region unknown json", cb_one(msg, CB_REGION, true, true),
	       "[{\"id\":700,\"kind\":\"unknown(9)\"}]\n");
	nlmsg_free(msg);

	/* The rekey event: what the kernel sends has no key, and none is printed. */
	msg = region_msg(EDM_CMD_REGION_REKEY, false);
	expect("monitor region rekey text", monitor_one(msg, false),
	       "region rekey " REGION_LINE "\n");
	expect("monitor region rekey json", monitor_one(msg, true),
	       "{\"object\":\"region\",\"event\":\"rekey\"," REGION_JSON "}\n");
	nlmsg_free(msg);

	check_stat_table("region stat", region_stat_count(), region_stat_attr, region_stat_key,
			 EDM_A_RSTAT_PAD + 1, EDM_A_RSTAT_MAX);
}

/* Shared pool events: a member reaped (this kernel, "self"), an export that stopped. */
static void test_shpool_monitor(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_SHPOOL_REAP);
	struct nlattr *nest;

	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, 3) || nla_put_string(msg, EDM_A_SHPOOL_NAME, "cb0"))
		abort();
	nest = nla_nest_start(msg, EDM_A_SHPOOL_HOST);
	if (!nest || nla_put_u32(msg, EDM_A_SHHOST_SLOT, 1) ||
	    nla_put_u32(msg, EDM_A_SHHOST_STATE, EDM_SHPOOL_HOST_FREE) ||
	    nla_put_u32(msg, EDM_A_SHHOST_EPOCH, 2) ||
	    nla_put_string(msg, EDM_A_SHHOST_NAME, "vm0") ||
	    nla_put_u64(msg, EDM_A_SHHOST_REAPED, 1) ||
	    nla_put_flag(msg, EDM_A_SHHOST_SELF))
		abort();
	nla_nest_end(msg, nest);
	expect("monitor shpool reap text", monitor_one(msg, false),
	       "shpool reap 3: name cb0 slot 1 state free epoch 2 host vm0 reaped 1 self\n");
	expect("monitor shpool reap json", monitor_one(msg, true),
	       "{\"object\":\"shpool\",\"event\":\"reap\",\"id\":3,\"name\":\"cb0\",\"slot\":1,"
	       "\"state\":\"free\",\"epoch\":2,\"host\":\"vm0\",\"reaped\":1,\"self\":true}\n");
	nlmsg_free(msg);

	msg = dev_msg(EDM_CMD_SHPOOL_EXPORT_DOWN);
	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, 3) || nla_put_string(msg, EDM_A_SHPOOL_NAME, "cb0"))
		abort();
	nest = nla_nest_start(msg, EDM_A_SHPOOL_EXPORT);
	if (!nest || nla_put_u32(msg, EDM_A_SHEXP_INDEX, 0) ||
	    nla_put_u32(msg, EDM_A_SHEXP_OWNER, 1) ||
	    nla_put_u32(msg, EDM_A_SHEXP_TARGET, 0) ||
	    nla_put_u32(msg, EDM_A_SHEXP_INSTANCE, 7) ||
	    nla_put_u32(msg, EDM_A_SHEXP_REGION, 2) ||
	    nla_put_u32(msg, EDM_A_SHEXP_DOWN, EDM_SHPOOL_DOWN_REVOKED))
		abort();
	nla_nest_end(msg, nest);
	expect("monitor shpool export-down text", monitor_one(msg, false),
	       "shpool export-down 3: name cb0 index 0 instance 7 region 2 owner 1 target 0 "
	       "down revoked\n");
	nlmsg_free(msg);

	/* no host and no export: malformed, said so */
	msg = dev_msg(EDM_CMD_SHPOOL_REAP);
	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, 3))
		abort();
	expect("monitor shpool malformed", monitor_one(msg, false),
	       "shpool reap 3:(malformed)\n");
	nlmsg_free(msg);
}

static void test_cowbird(void)
{
	struct nl_msg *msg = cowbird_msg(EDM_CMD_COWBIRD_GET);

	expect("engine text", cb_one(msg, CB_ENGINE, false, false), ENGINE_LINE "\n");
	expect("engine -s text", cb_one(msg, CB_ENGINE, true, false),
	       ENGINE_LINE ENGINE_STATS_TEXT "\n");
	expect("engine json", cb_one(msg, CB_ENGINE, false, true), "[{" ENGINE_JSON "}]\n");
	nlmsg_free(msg);

	msg = cowbird_msg(EDM_CMD_COWBIRD_SET);
	expect("monitor cowbird set text", monitor_one(msg, false),
	       "cowbird set " ENGINE_LINE "\n");
	expect("monitor cowbird set json", monitor_one(msg, true),
	       "{\"object\":\"cowbird\",\"event\":\"set\"," ENGINE_JSON "}\n");
	nlmsg_free(msg);

	/* Threads not pinned: no cpu. */
	msg = dev_msg(EDM_CMD_COWBIRD_GET);
	if (nla_put_u32(msg, EDM_A_COWBIRD_THREADS, 2) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_BATCH, 1))
		abort();
	expect("engine unpinned text", cb_one(msg, CB_ENGINE, true, false),
	       "engine threads 2 batch 1\n");
	nlmsg_free(msg);

	msg = cbinst_msg();
	expect("instance text", cb_one(msg, CB_INST, false, false), INST_LINE "\n");
	expect("instance -s text", cb_one(msg, CB_INST, true, false),
	       INST_LINE INST_STATS_TEXT "\n");
	expect("instance json", cb_one(msg, CB_INST, false, true), "[{" INST_JSON "}]\n");
	nlmsg_free(msg);

	check_stat_table("cowbird stat", cowbird_stat_count(), cowbird_stat_attr,
			 cowbird_stat_key, EDM_A_CBSTAT_PAD + 1, EDM_A_CBSTAT_MAX);
	check_stat_table("instance stat", cowbird_inst_stat_count(), cowbird_inst_stat_attr,
			 cowbird_inst_stat_key, EDM_A_CBISTAT_PAD + 1, EDM_A_CBISTAT_MAX);
}

/* "region show -s" with a key, "cowbird show -s"'s engine and instance, as JSON. */
static int emit_cowbird_json(void)
{
	struct nl_msg *msgs[3] = {
		region_msg(EDM_CMD_REGION_GET, true), cowbird_msg(EDM_CMD_COWBIRD_GET),
		cbinst_msg(),
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		fputs(cb_one(msgs[i], i, true, true), stdout);
		nlmsg_free(msgs[i]);
	}
	capture_start(false, false);
	capture_end();
	free(buf);
	return 0;
}

static int monitor_nlctrl(void)
{
	int ret;

	edm_nl_set_family_name("nlctrl");
	if (edm_nl_open())
		return 1;
	printf("ready\n");
	fflush(stdout);
	ret = edm_nl_monitor("notify", NULL, NULL);
	edm_nl_close();
	printf("stopped %d\n", ret);
	return ret ? 1 : 0;
}

/* Documents for an external JSON parser: every tricky case at once. */
static int emit_json(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_DEV_NEW);
	int pretty;

	put_dev(msg, 7, "q\"uo\\te\n\x01\xff", 99, EDM_BACKEND_SOFT);
	for (pretty = 0; pretty < 2; pretty++) {
		print_init(true, pretty, stdout);
		fputs(show_one(msg, true, pretty), stdout);
		print_init(true, pretty, stdout);
		monitor_print_event(nlmsg_hdr(msg));
	}
	nlmsg_free(msg);
	capture_start(false, false);
	capture_end();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "json"))
		return emit_json();
	if (argc > 1 && !strcmp(argv[1], "monitor"))
		return monitor_nlctrl();
	if (argc > 1 && !strcmp(argv[1], "netdimm-json"))
		return emit_netdimm_json();
	if (argc > 1 && !strcmp(argv[1], "fabric-json"))
		return emit_fabric_json();
	if (argc > 1 && !strcmp(argv[1], "cowbird-json"))
		return emit_cowbird_json();

	test_dev_basic();
	test_dev_forward_compat();
	test_truncated();
	test_json_escape();
	test_monitor();
	test_netdimm_views();
	test_netdimm_fields();
	test_netdimm_monitor();
	test_netdimm_sizes();
	test_netdimm_stat_table();
	test_extack();
	test_words();
	test_fabric_nodes();
	test_fabric_links();
	test_fabric_monitor();
	test_fabric_stat_tables();
	test_fabric_parse();
	test_region();
	test_cowbird();
	test_shpool_monitor();
	test_live_nlctrl();

	capture_start(false, false);	/* frees the last capture */
	capture_end();
	free(buf);
	printf("unit: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
