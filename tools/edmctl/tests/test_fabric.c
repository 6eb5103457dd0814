// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_fabric.c: "fabric show|stats" of a switch and a
 * host, "fabric link show" of a link end, events, the counters' tables,
 * link end and region size parsing; "unit fabric-json" prints them as JSON.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "obj_fabric.h"
#include "print.h"

#include "unit.h"

/* A FABRIC_GET reply for switch sw0, as the kernel sends it. */
static struct nl_msg *fab_switch_msg(uint8_t cmd)
{
	struct nl_msg *msg = unit_dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_FAB_ID, 1) ||
	    nla_put_string(msg, EDM_A_FAB_NAME, "sw0") ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FSWITCH) ||
	    nla_put_u32(msg, EDM_A_FAB_PORTS, 16) ||
	    nla_put_u32(msg, EDM_A_FAB_SCHED_X, 3) ||
	    nla_put_u32(msg, EDM_A_FAB_CHUNK, 256) ||
	    nla_put_u32(msg, EDM_A_FAB_POLICY, EDM_FAB_POLICY_SRPT) ||
	    nla_put_u32(msg, EDM_A_FAB_RATE_MBPS, 25000))
		abort();
	/* as the kernel sends them: SCHED_NOTIFS..DROPS, then the appended one */
	unit_put_counters_and(msg, EDM_A_FAB_STATS, EDM_A_FSTAT_SCHED_NOTIFS, EDM_A_FSTAT_DROPS,
			      EDM_A_FSTAT_HOLDS, EDM_A_FSTAT_HOLDS, 1000);
	return msg;
}

/* Host h0: address 1, a 64 MiB keyed region, /dev/edm0. */
static struct nl_msg *fab_host_msg(uint8_t cmd)
{
	struct nl_msg *msg = unit_dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_FAB_ID, 2) ||
	    nla_put_string(msg, EDM_A_FAB_NAME, "h0") ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FHOST) ||
	    nla_put_u32(msg, EDM_A_FAB_ADDR, 1) ||
	    nla_put(msg, EDM_A_FAB_PAD, 0, NULL) ||
	    nla_put_u64(msg, EDM_A_FAB_REGION_SIZE, 64 * MiB) ||
	    nla_put_u32(msg, EDM_A_FAB_TIMEOUT_MS, 100) ||
	    nla_put_u32(msg, EDM_A_FAB_TIMEOUT_MIN_US, 25000) ||
	    nla_put_u32(msg, EDM_A_FAB_MINOR, 0) ||
	    nla_put_flag(msg, EDM_A_FAB_REGION_KEYED))
		abort();
	/* as the kernel sends them: READS..SERVED_ERRORS, then the appended ones */
	unit_put_counters_and(msg, EDM_A_FAB_STATS, EDM_A_FSTAT_READS, EDM_A_FSTAT_SERVED_ERRORS,
			      EDM_A_FSTAT_SERVED_WRITE_CHUNKS, EDM_A_FSTAT_FAILOVERS, 1000);
	return msg;
}

/* The link end sw0:1, emulated, to h1:0. */
static struct nl_msg *flink_msg(uint8_t cmd)
{
	struct nl_msg *msg = unit_dev_msg(cmd);

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
	unit_put_counters(msg, EDM_A_FLINK_STATS, EDM_A_LSTAT_TX_BLOCKS, EDM_A_LSTAT_TX_SPILLED,
			  2000);
	return msg;
}

/* A list of one, as "fabric show|stats" and "fabric link show" print it. */
static const char *fab_one(struct nl_msg *msg, bool link, enum fabric_view view,
			   bool stats, bool json)
{
	int ret;

	unit_capture_start(json, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	ret = link ? fabric_link_print_msg(nlmsg_hdr(msg), stats) :
		     fabric_print_msg(nlmsg_hdr(msg), view, stats);
	if (ret)
		print_string(PRINT_ANY, "malformed", "%s", "malformed");
	close_json_object();
	print_nl();
	close_json_array(PRINT_JSON, NULL);
	return unit_capture_end();
}

#define SW_LINE "1: name sw0 type switch ports 16 x 3 chunk 256 policy srpt rate 25000"
#define SW_STATS_TEXT \
	"\n    sched notifs 1018 rejected 1019 grants 1020 grant-bytes 1021" \
	"\n    pim matchings 1022 iterations 1023 iter-max 1024 matching-max 1025" \
	"\n    queue depth 1026 depth-max 1027" \
	"\n    fwd msgs 1028 frames 1029 drops 1030 holds 1036"
#define SW_JSON "\"id\":1,\"name\":\"sw0\",\"type\":\"switch\",\"ports\":16,\"sched_x\":3," \
	"\"chunk\":256,\"policy\":\"srpt\",\"rate_mbps\":25000"
#define SW_JSON_STATS "\"stats\":{\"sched_notifs\":1018,\"sched_rejected\":1019," \
	"\"grants\":1020,\"grant_bytes\":1021,\"matchings\":1022,\"iterations\":1023," \
	"\"iter_max\":1024,\"matching_max\":1025,\"depth\":1026,\"depth_max\":1027," \
	"\"fwd_msgs\":1028,\"fwd_frames\":1029,\"drops\":1030,\"holds\":1036}"
#define HOST_LINE "2: name h0 type host addr 1 region 64M keyed timeout 100 timeout-min 25000" \
	" cdev /dev/edm0"
#define HOST_STATS_TEXT \
	"\n    ops reads 1002 writes 1003 rmws 1004 read-bytes 1005 write-bytes 1006" \
	" errors 1007 timeouts 1008" \
	"\n    msgs queued 1009 inflight 1010 notifs 1011 grants-rx 1012 stray 1013" \
	"\n    served reads 1014 writes 1015 rmws 1016 errors 1017 write-chunks 1031" \
	"\n    nacks key 1032 range 1033 gone 1034" \
	"\n    path failovers 1035"
#define HOST_JSON "\"id\":2,\"name\":\"h0\",\"type\":\"host\",\"addr\":1," \
	"\"region_size\":67108864,\"keyed\":true,\"timeout_ms\":100,\"timeout_min_us\":25000," \
	"\"minor\":0"
#define HOST_JSON_STATS "\"stats\":{\"reads\":1002,\"writes\":1003,\"rmws\":1004," \
	"\"read_bytes\":1005,\"write_bytes\":1006,\"errors\":1007,\"timeouts\":1008," \
	"\"queued\":1009,\"inflight\":1010,\"notifs\":1011,\"grants_rx\":1012," \
	"\"stray\":1013,\"served_reads\":1014,\"served_writes\":1015," \
	"\"served_rmws\":1016,\"served_errors\":1017,\"served_write_chunks\":1031," \
	"\"nacks_key\":1032,\"nacks_range\":1033,\"nacks_gone\":1034,\"failovers\":1035}"
#define LINK_LINE "sw0:1 peer h1:0 rate 25000 delay 10 mux fair sherr 64 state up"
#define LINK_STATS_TEXT \
	"\n    tx blocks 2002 mem-blocks 2004 frame-blocks 2005 bursts 2006 drops 2013" \
	" spilled 2022" \
	"\n    llr resent 2016 rto 2017 acks 2018 nacks 2019 rx-dups 2020 srtt-ns 2021" \
	"\n    rx blocks 2003 bursts 2007 bad 2011 sherr 2010 seq-gaps 2012 foreign 2015" \
	"\n    mux preemptions 2008 mem-wait-max 2009" \
	"\n    down-events 2014"
#define LINK_JSON "\"node\":\"sw0\",\"port\":1,\"peer\":\"h1\",\"peer_port\":0," \
	"\"rate_mbps\":25000,\"delay_ns\":10,\"mux\":\"fair\",\"sherr_threshold\":64," \
	"\"state\":\"up\""
#define LINK_JSON_STATS "\"stats\":{\"tx_blocks\":2002,\"tx_mem_blocks\":2004," \
	"\"tx_frame_blocks\":2005,\"tx_bursts\":2006,\"tx_drops\":2013,\"tx_spilled\":2022," \
	"\"tx_resent\":2016," \
	"\"tx_rto\":2017,\"tx_acks\":2018,\"tx_nacks\":2019,\"rx_dups\":2020,\"srtt_ns\":2021," \
	"\"rx_blocks\":2003," \
	"\"rx_bursts\":2007,\"rx_bad\":2011,\"sherr\":2010,\"seq_gaps\":2012,\"rx_foreign\":2015," \
	"\"preemptions\":2008,\"mem_wait_max\":2009,\"down_events\":2014}"

void test_fabric_nodes(void)
{
	struct nl_msg *msg = fab_switch_msg(EDM_CMD_FABRIC_GET);

	unit_expect("fabric switch text", fab_one(msg, false, FABRIC_VIEW_SHOW, false, false),
		    SW_LINE "\n");
	unit_expect("fabric switch json", fab_one(msg, false, FABRIC_VIEW_SHOW, false, true),
		    "[{" SW_JSON "}]\n");
	unit_expect("fabric switch -s text", fab_one(msg, false, FABRIC_VIEW_SHOW, true, false),
		    SW_LINE SW_STATS_TEXT "\n");
	unit_expect("fabric switch -s json", fab_one(msg, false, FABRIC_VIEW_SHOW, true, true),
		    "[{" SW_JSON "," SW_JSON_STATS "}]\n");
	unit_expect("fabric switch stats text",
		    fab_one(msg, false, FABRIC_VIEW_STATS, false, false),
		    "sw0:" SW_STATS_TEXT "\n");
	unit_expect("fabric switch stats json", fab_one(msg, false, FABRIC_VIEW_STATS, false, true),
		    "[{\"name\":\"sw0\"," SW_JSON_STATS "}]\n");
	nlmsg_free(msg);

	msg = fab_host_msg(EDM_CMD_FABRIC_GET);
	unit_expect("fabric host text", fab_one(msg, false, FABRIC_VIEW_SHOW, false, false),
		    HOST_LINE "\n");
	unit_expect("fabric host json", fab_one(msg, false, FABRIC_VIEW_SHOW, false, true),
		    "[{" HOST_JSON "}]\n");
	unit_expect("fabric host -s text", fab_one(msg, false, FABRIC_VIEW_SHOW, true, false),
		    HOST_LINE HOST_STATS_TEXT "\n");
	unit_expect("fabric host stats json", fab_one(msg, false, FABRIC_VIEW_STATS, false, true),
		    "[{\"name\":\"h0\"," HOST_JSON_STATS "}]\n");
	nlmsg_free(msg);

	/* Unknown kinds and policies, a region of no round size, no stats nest. */
	msg = unit_dev_msg(EDM_CMD_FABRIC_GET);
	if (nla_put_string(msg, EDM_A_FAB_NAME, "n3") ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_NETDIMM) ||
	    nla_put_u32(msg, EDM_A_FAB_POLICY, 7) ||
	    nla_put_u64(msg, EDM_A_FAB_REGION_SIZE, 4097) ||
	    nla_put_u32(msg, EDM_A_FAB_MAX + 1, 1) ||
	    nla_put_u64(msg, EDM_A_FAB_CHUNK, 1))	/* wrong size */
		abort();
	unit_expect("fabric unknown text", fab_one(msg, false, FABRIC_VIEW_SHOW, true, false),
		    "name n3 type unknown(2) policy unknown(7) region 4097\n");
	unit_expect("fabric unknown json", fab_one(msg, false, FABRIC_VIEW_SHOW, true, true),
		    "[{\"name\":\"n3\",\"type\":\"unknown(2)\",\"policy\":\"unknown(7)\","
		    "\"region_size\":4097,\"keyed\":false}]\n");
	nlmsg_free(msg);
}

void test_fabric_links(void)
{
	struct nl_msg *msg = flink_msg(EDM_CMD_FLINK_GET);

	unit_expect("link text", fab_one(msg, true, FABRIC_VIEW_SHOW, false, false),
		    LINK_LINE "\n");
	unit_expect("link json", fab_one(msg, true, FABRIC_VIEW_SHOW, false, true),
		    "[{" LINK_JSON "}]\n");
	unit_expect("link -s text", fab_one(msg, true, FABRIC_VIEW_SHOW, true, false),
		    LINK_LINE LINK_STATS_TEXT "\n");
	unit_expect("link -s json", fab_one(msg, true, FABRIC_VIEW_SHOW, true, true),
		    "[{" LINK_JSON "," LINK_JSON_STATS "}]\n");
	nlmsg_free(msg);

	/* Bound to a netdev that is not here: its ifindex in text too. */
	msg = unit_dev_msg(EDM_CMD_FLINK_GET);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "h0") ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_IFINDEX, 0x7ffffff0) ||
	    nla_put(msg, EDM_A_FLINK_PEER_MAC, 6, "\x02\x00\x5e\xab\xcd\xef") ||
	    nla_put_u32(msg, EDM_A_FLINK_RATE_MBPS, 10000) ||
	    nla_put_u32(msg, EDM_A_FLINK_DELAY_NS, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_MUX, EDM_FAB_MUX_STRICT) ||
	    nla_put_u32(msg, EDM_A_FLINK_SHERR_THRESHOLD, 0) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, EDM_FLINK_DOWN))
		abort();
	unit_expect("bound link text", fab_one(msg, true, FABRIC_VIEW_SHOW, true, false),
		    "h0:0 dev if2147483632 peer-mac 02:00:5e:ab:cd:ef rate 10000 delay 0 mux strict "
		    "sherr 0 state down\n");
	unit_expect("bound link json", fab_one(msg, true, FABRIC_VIEW_SHOW, true, true),
		    "[{\"node\":\"h0\",\"port\":0,\"ifindex\":2147483632,"
		    "\"peer_mac\":\"02:00:5e:ab:cd:ef\",\"rate_mbps\":10000,"
		    "\"delay_ns\":0,\"mux\":\"strict\",\"sherr_threshold\":0,\"state\":\"down\"}]\n");
	nlmsg_free(msg);

	/* Bound with the broadcast opt-in; a MAC of the wrong length is not printed. */
	msg = unit_dev_msg(EDM_CMD_FLINK_GET);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "h0") ||
	    nla_put_u32(msg, EDM_A_FLINK_IFINDEX, 0x7ffffff0) ||
	    nla_put(msg, EDM_A_FLINK_PEER_MAC, 5, "\x02\x00\x5e\xab\xcd") ||
	    nla_put_flag(msg, EDM_A_FLINK_BROADCAST))
		abort();
	unit_expect("broadcast link text", fab_one(msg, true, FABRIC_VIEW_SHOW, false, false),
		    "h0 dev if2147483632 broadcast\n");
	unit_expect("broadcast link json", fab_one(msg, true, FABRIC_VIEW_SHOW, false, true),
		    "[{\"node\":\"h0\",\"ifindex\":2147483632,\"broadcast\":true}]\n");
	nlmsg_free(msg);

	/* A newer module's mux and state, and a counter we do not know. */
	msg = unit_dev_msg(EDM_CMD_FLINK_GET);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "sw1") ||
	    nla_put_u32(msg, EDM_A_FLINK_MUX, 3) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, 2))
		abort();
	unit_put_counters(msg, EDM_A_FLINK_STATS, EDM_A_LSTAT_MAX + 1, EDM_A_LSTAT_MAX + 1, 0);
	unit_expect("link unknown json", fab_one(msg, true, FABRIC_VIEW_SHOW, true, true),
		    "[{\"node\":\"sw1\",\"mux\":\"unknown(3)\",\"state\":\"unknown(2)\","
		    "\"stats\":{}}]\n");
	nlmsg_free(msg);
}

void test_fabric_monitor(void)
{
	struct nl_msg *msg = fab_switch_msg(EDM_CMD_FABRIC_NEW);

	/* Events print the node's own fields, never its counters. */
	unit_expect("monitor fabric new text", unit_monitor_one(msg, false),
		    "fabric new " SW_LINE "\n");
	unit_expect("monitor fabric new json", unit_monitor_one(msg, true),
		    "{\"object\":\"fabric\",\"event\":\"new\"," SW_JSON "}\n");
	nlmsg_free(msg);

	msg = fab_host_msg(EDM_CMD_FABRIC_DEL);
	unit_expect("monitor fabric del text", unit_monitor_one(msg, false),
		    "fabric del " HOST_LINE "\n");
	nlmsg_free(msg);

	msg = fab_switch_msg(EDM_CMD_FABRIC_SET);
	unit_expect("monitor fabric set text", unit_monitor_one(msg, false),
		    "fabric set " SW_LINE "\n");
	nlmsg_free(msg);

	msg = flink_msg(EDM_CMD_FLINK_NEW);
	unit_expect("monitor link new text", unit_monitor_one(msg, false),
		    "fabric-link new " LINK_LINE "\n");
	unit_expect("monitor link new json", unit_monitor_one(msg, true),
		    "{\"object\":\"fabric-link\",\"event\":\"new\"," LINK_JSON "}\n");
	nlmsg_free(msg);

	msg = flink_msg(EDM_CMD_FLINK_DEL);
	unit_expect("monitor link del text", unit_monitor_one(msg, false),
		    "fabric-link del " LINK_LINE "\n");
	nlmsg_free(msg);

	msg = flink_msg(EDM_CMD_FLINK_SET);
	unit_expect("monitor link set text", unit_monitor_one(msg, false),
		    "fabric-link set " LINK_LINE "\n");
	nlmsg_free(msg);

	/* A link end that went down, and why: what FLINK_DOWN carries. */
	msg = unit_dev_msg(EDM_CMD_FLINK_DOWN);
	if (nla_put_string(msg, EDM_A_FLINK_NODE, "sw0") ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, 3) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, EDM_FLINK_DOWN) ||
	    nla_put_string(msg, EDM_A_FLINK_REASON, "sync header errors"))
		abort();
	unit_expect("monitor link down text", unit_monitor_one(msg, false),
		    "fabric-link down sw0:3 state down reason \"sync header errors\"\n");
	unit_expect("monitor link down json", unit_monitor_one(msg, true),
		    "{\"object\":\"fabric-link\",\"event\":\"down\",\"node\":\"sw0\",\"port\":3,"
		    "\"state\":\"down\",\"reason\":\"sync header errors\"}\n");
	nlmsg_free(msg);
}

void test_fabric_stat_tables(void)
{
	unit_check_stat_table("fabric stat", fabric_stat_count(), fabric_stat_attr, fabric_stat_key,
			      EDM_A_FSTAT_PAD + 1, EDM_A_FSTAT_MAX);
	unit_check_stat_table("link stat", fabric_link_stat_count(), fabric_link_stat_attr,
			      fabric_link_stat_key, EDM_A_LSTAT_PAD + 1, EDM_A_LSTAT_MAX);
}

static void expect_end(const char *s, int want_ret, const char *want_name, uint32_t want_port,
		       bool want_has_port)
{
	char name[EDM_NAME_LEN] = "";
	uint32_t port = 99;
	bool has_port = false;
	int ret;

	unit_err_capture_start();
	ret = fabric_parse_end(s, name, sizeof(name), &port, &has_port);
	unit_err_capture_end();
	unit_checks++;
	if (ret != want_ret || (!ret && (strcmp(name, want_name) || port != want_port ||
					 has_port != want_has_port))) {
		unit_failures++;
		fprintf(stderr, "FAIL link end \"%s\": ret %d name %s port %u has_port %d\n", s,
			ret, name, port, has_port);
	}
}

void test_fabric_parse(void)
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

	unit_checks += 4;
	if (fabric_parse_region("0", &v) || v != 0)
		unit_failures++, fprintf(stderr, "FAIL region 0\n");
	if (fabric_parse_region("4k", &v) || v != 4096)
		unit_failures++, fprintf(stderr, "FAIL region 4k\n");
	if (fabric_parse_region("1m", &v) || v != MiB)
		unit_failures++, fprintf(stderr, "FAIL region 1m\n");
	if (fabric_parse_region("1G", &v) || v != 1024 * MiB)
		unit_failures++, fprintf(stderr, "FAIL region 1G\n");
	for (i = 0; i < ARRAY_SIZE(bad_regions); i++) {
		ret = fabric_parse_region(bad_regions[i], &v);
		unit_checks++;
		if (!ret) {
			unit_failures++;
			fprintf(stderr, "FAIL region \"%s\" accepted\n", bad_regions[i]);
		}
	}
}

/* "fabric show -s" and "fabric link show -s" of full messages, as JSON. */
int emit_fabric_json(void)
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
	unit_capture_free();
	return 0;
}
