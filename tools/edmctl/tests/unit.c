// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests: no kernel module needed. Messages are built with
 * libnl the way the kernel would send them and fed to edmctl's parsers and
 * printers; the output is compared byte for byte.
 *
 *   tests/unit            run the tests, exit 1 on any failure
 *   tests/unit json       print tricky JSON documents (for a JSON parser)
 *   tests/unit netdimm-json
 *                         print "netdimm show -s" of a full message as JSON
 *                         (cli.sh holds its keys to the uapi header)
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
#include "obj_dev.h"
#include "obj_netdimm.h"
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
	test_live_nlctrl();

	capture_start(false, false);	/* frees the last capture */
	capture_end();
	free(buf);
	printf("unit: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
