// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl fabric: create, change, show and delete the nodes of the EDM
 * fabric (switches and hosts) and the links between their ports.
 *
 * Nodes are FABRIC_* messages, link ends FLINK_* messages; each kind has
 * one printer (fab_print_node(), fab_print_link()) used by every command,
 * by "monitor" and by the unit tests, and text and JSON come from the same
 * print_*() calls. A link end is written NODE:PORT in text and as the keys
 * node and port in JSON; sizes are bytes in JSON and "64M" in text; a bound
 * link's netdev is an ifindex in JSON and a name in text.
 *
 * Everything the command line can get wrong is caught here, before the
 * kernel is asked; value ranges are the kernel's to check (its message
 * names the attribute, and edmctl names the keyword).
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_fabric.h"
#include "obj_netdimm.h"
#include "print.h"
#include "stats.h"

/* Node kinds by device type; the other types are no fabric node. */
static const char *const kind_names[] = {
	[EDM_DEV_TYPE_FSWITCH]	= "switch",
	[EDM_DEV_TYPE_FHOST]	= "host",
	[EDM_DEV_TYPE_SHPOOL]	= NULL,		/* pools, racks, NIC and shared pools: no node */
};
_Static_assert(ARRAY_SIZE(kind_names) == __EDM_DEV_TYPE_CNT,
	       "kind_names[] does not match enum edm_dev_type");

/* Enums whose first value is a real one (no UNSPEC). */
static const char *const policy_names[] = {
	[EDM_FAB_POLICY_SRPT]	= "srpt",
	[EDM_FAB_POLICY_FCFS]	= "fcfs",
};
_Static_assert(ARRAY_SIZE(policy_names) == __EDM_FAB_POLICY_CNT,
	       "policy_names[] does not match enum edm_fab_policy");

static const char *const mux_names[] = {
	[EDM_FAB_MUX_FAIR]	= "fair",
	[EDM_FAB_MUX_STRICT]	= "strict",
	[EDM_FAB_MUX_NONE]	= "none",
};
_Static_assert(ARRAY_SIZE(mux_names) == __EDM_FAB_MUX_CNT,
	       "mux_names[] does not match enum edm_fab_mux");

static const char *const state_names[] = {
	[EDM_FLINK_UP]		= "up",
	[EDM_FLINK_DOWN]	= "down",
};
_Static_assert(ARRAY_SIZE(state_names) == __EDM_FLINK_STATE_CNT,
	       "state_names[] does not match enum edm_flink_state");

/* Command-line words of the attributes, for the kernel's errors. */
static const char *const fab_attr_words[] = {
	[EDM_A_FAB_ID]		= "id",
	[EDM_A_FAB_NAME]	= "name",
	[EDM_A_FAB_TYPE]	= "type",
	[EDM_A_FAB_PORTS]	= "ports",
	[EDM_A_FAB_SCHED_X]	= "x",
	[EDM_A_FAB_CHUNK]	= "chunk",
	[EDM_A_FAB_POLICY]	= "policy",
	[EDM_A_FAB_RATE_MBPS]	= "rate",
	[EDM_A_FAB_ADDR]	= "addr",
	[EDM_A_FAB_REGION_SIZE]	= "region",
	[EDM_A_FAB_TIMEOUT_MS]	= "timeout",
	[EDM_A_FAB_MINOR]	= "minor",
	[EDM_A_FAB_STATS]	= "stats",
	[EDM_A_FAB_REGION_KEYED] = "keyed",
	[EDM_A_FAB_TIMEOUT_MIN_US] = "timeout-min",
};
_Static_assert(ARRAY_SIZE(fab_attr_words) == __EDM_A_FAB_CNT,
	       "fab_attr_words[] does not match the EDM_A_FAB_* attributes");

static const struct edm_nl_attr_names fab_attrs = {
	.names = fab_attr_words,
	.count = ARRAY_SIZE(fab_attr_words),
};

static const char *const flink_attr_words[] = {
	[EDM_A_FLINK_NODE]		= "node",
	[EDM_A_FLINK_PORT]		= "port",
	[EDM_A_FLINK_PEER]		= "peer",
	[EDM_A_FLINK_PEER_PORT]		= "peer port",
	[EDM_A_FLINK_IFINDEX]		= "dev",
	[EDM_A_FLINK_RATE_MBPS]		= "rate",
	[EDM_A_FLINK_DELAY_NS]		= "delay",
	[EDM_A_FLINK_MUX]		= "mux",
	[EDM_A_FLINK_STATE]		= "state",
	[EDM_A_FLINK_SHERR_THRESHOLD]	= "sherr",
	[EDM_A_FLINK_CORRUPT]		= "corrupt",
	[EDM_A_FLINK_STATS]		= "stats",
	[EDM_A_FLINK_REASON]		= "reason",
	[EDM_A_FLINK_PEER_MAC]		= "peer-mac",
	[EDM_A_FLINK_BROADCAST]		= "broadcast",
};
_Static_assert(ARRAY_SIZE(flink_attr_words) == __EDM_A_FLINK_CNT,
	       "flink_attr_words[] does not match the EDM_A_FLINK_* attributes");

static const struct edm_nl_attr_names flink_attrs = {
	.names = flink_attr_words,
	.count = ARRAY_SIZE(flink_attr_words),
};

/* Counters in display order (stats.h); a node's message has those of its kind only. */

static const struct edm_stat node_stats[] = {
	{ EDM_A_FSTAT_READS,          "reads",          "ops",    "reads" },
	{ EDM_A_FSTAT_WRITES,         "writes",         "ops",    "writes" },
	{ EDM_A_FSTAT_RMWS,           "rmws",           "ops",    "rmws" },
	{ EDM_A_FSTAT_READ_BYTES,     "read_bytes",     "ops",    "read-bytes" },
	{ EDM_A_FSTAT_WRITE_BYTES,    "write_bytes",    "ops",    "write-bytes" },
	{ EDM_A_FSTAT_ERRORS,         "errors",         "ops",    "errors" },
	{ EDM_A_FSTAT_TIMEOUTS,       "timeouts",       "ops",    "timeouts" },
	{ EDM_A_FSTAT_QUEUED,         "queued",         "msgs",   "queued" },
	{ EDM_A_FSTAT_INFLIGHT,       "inflight",       "msgs",   "inflight" },
	{ EDM_A_FSTAT_NOTIFS,         "notifs",         "msgs",   "notifs" },
	{ EDM_A_FSTAT_GRANTS_RX,      "grants_rx",      "msgs",   "grants-rx" },
	{ EDM_A_FSTAT_STRAY,          "stray",          "msgs",   "stray" },
	{ EDM_A_FSTAT_SERVED_READS,   "served_reads",   "served", "reads" },
	{ EDM_A_FSTAT_SERVED_WRITES,  "served_writes",  "served", "writes" },
	{ EDM_A_FSTAT_SERVED_RMWS,    "served_rmws",    "served", "rmws" },
	{ EDM_A_FSTAT_SERVED_ERRORS,  "served_errors",  "served", "errors" },
	{ EDM_A_FSTAT_SERVED_WRITE_CHUNKS, "served_write_chunks", "served", "write-chunks" },
	{ EDM_A_FSTAT_NACKS_KEY,      "nacks_key",      "nacks",  "key" },
	{ EDM_A_FSTAT_NACKS_RANGE,    "nacks_range",    "nacks",  "range" },
	{ EDM_A_FSTAT_NACKS_GONE,     "nacks_gone",     "nacks",  "gone" },
	{ EDM_A_FSTAT_FAILOVERS,      "failovers",      "path",   "failovers" },
	{ EDM_A_FSTAT_SCHED_NOTIFS,   "sched_notifs",   "sched",  "notifs" },
	{ EDM_A_FSTAT_SCHED_REJECTED, "sched_rejected", "sched",  "rejected" },
	{ EDM_A_FSTAT_GRANTS,         "grants",         "sched",  "grants" },
	{ EDM_A_FSTAT_GRANT_BYTES,    "grant_bytes",    "sched",  "grant-bytes" },
	{ EDM_A_FSTAT_MATCHINGS,      "matchings",      "pim",    "matchings" },
	{ EDM_A_FSTAT_ITERATIONS,     "iterations",     "pim",    "iterations" },
	{ EDM_A_FSTAT_ITER_MAX,       "iter_max",       "pim",    "iter-max" },
	{ EDM_A_FSTAT_MATCHING_MAX,   "matching_max",   "pim",    "matching-max" },
	{ EDM_A_FSTAT_DEPTH,          "depth",          "queue",  "depth" },
	{ EDM_A_FSTAT_DEPTH_MAX,      "depth_max",      "queue",  "depth-max" },
	{ EDM_A_FSTAT_FWD_MSGS,       "fwd_msgs",       "fwd",    "msgs" },
	{ EDM_A_FSTAT_FWD_FRAMES,     "fwd_frames",     "fwd",    "frames" },
	{ EDM_A_FSTAT_DROPS,          "drops",          "fwd",    "drops" },
	{ EDM_A_FSTAT_HOLDS,          "holds",          "fwd",    "holds" },
};
/* Every counter but UNSPEC and PAD; the unit tests check each is there once. */
_Static_assert(ARRAY_SIZE(node_stats) == __EDM_A_FSTAT_CNT - 2,
	       "node_stats[] does not match the EDM_A_FSTAT_* attributes");

static const struct edm_stat link_stats[] = {
	{ EDM_A_LSTAT_TX_BLOCKS,       "tx_blocks",       "tx",  "blocks" },
	{ EDM_A_LSTAT_TX_MEM_BLOCKS,   "tx_mem_blocks",   "tx",  "mem-blocks" },
	{ EDM_A_LSTAT_TX_FRAME_BLOCKS, "tx_frame_blocks", "tx",  "frame-blocks" },
	{ EDM_A_LSTAT_TX_BURSTS,       "tx_bursts",       "tx",  "bursts" },
	{ EDM_A_LSTAT_TX_DROPS,        "tx_drops",        "tx",  "drops" },
	{ EDM_A_LSTAT_TX_SPILLED,      "tx_spilled",      "tx",  "spilled" },
	{ EDM_A_LSTAT_TX_RESENT,       "tx_resent",       "llr", "resent" },
	{ EDM_A_LSTAT_TX_RTO,          "tx_rto",          "llr", "rto" },
	{ EDM_A_LSTAT_TX_ACKS,         "tx_acks",         "llr", "acks" },
	{ EDM_A_LSTAT_TX_NACKS,        "tx_nacks",        "llr", "nacks" },
	{ EDM_A_LSTAT_RX_DUPS,         "rx_dups",         "llr", "rx-dups" },
	{ EDM_A_LSTAT_SRTT_NS,         "srtt_ns",         "llr", "srtt-ns" },
	{ EDM_A_LSTAT_RX_BLOCKS,       "rx_blocks",       "rx",  "blocks" },
	{ EDM_A_LSTAT_RX_BURSTS,       "rx_bursts",       "rx",  "bursts" },
	{ EDM_A_LSTAT_RX_BAD,          "rx_bad",          "rx",  "bad" },
	{ EDM_A_LSTAT_SHERR,           "sherr",           "rx",  "sherr" },
	{ EDM_A_LSTAT_SEQ_GAPS,        "seq_gaps",        "rx",  "seq-gaps" },
	{ EDM_A_LSTAT_RX_FOREIGN,      "rx_foreign",      "rx",  "foreign" },
	{ EDM_A_LSTAT_PREEMPTIONS,     "preemptions",     "mux", "preemptions" },
	{ EDM_A_LSTAT_MEM_WAIT_MAX,    "mem_wait_max",    "mux", "mem-wait-max" },
	{ EDM_A_LSTAT_DOWN_EVENTS,     "down_events",     "",    "down-events" },
};
_Static_assert(ARRAY_SIZE(link_stats) == __EDM_A_LSTAT_CNT - 2,
	       "link_stats[] does not match the EDM_A_LSTAT_* attributes");

/* Room for the attributes of any nest printed here, and of any request's values. */
#define STAT_TB_MAX	EDM_STAT_TB_MAX
_Static_assert(EDM_A_FSTAT_MAX <= STAT_TB_MAX && EDM_A_LSTAT_MAX <= STAT_TB_MAX,
	       "STAT_TB_MAX too small");

unsigned int fabric_stat_count(void)
{
	return ARRAY_SIZE(node_stats);
}

int fabric_stat_attr(unsigned int i)
{
	return node_stats[i].attr;
}

const char *fabric_stat_key(unsigned int i)
{
	return node_stats[i].key;
}

unsigned int fabric_link_stat_count(void)
{
	return ARRAY_SIZE(link_stats);
}

int fabric_link_stat_attr(unsigned int i)
{
	return link_stats[i].attr;
}

const char *fabric_link_stat_key(unsigned int i)
{
	return link_stats[i].key;
}

static void fab_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl fabric show [ NAME ]\n"
		"       edmctl fabric stats [ NAME ]\n"
		"       edmctl fabric add switch NAME [ ports N ] [ x X ] [ chunk BYTES ]\n"
		"                                     [ policy POLICY ] [ rate MBIT ]\n"
		"       edmctl fabric add host NAME addr ADDR [ region SIZE [ keyed ] ]\n"
		"                                 [ ports 2 ] [ timeout MSEC ] [ timeout-min USEC ]\n"
		"       edmctl fabric del NAME\n"
		"       edmctl fabric set NAME [ policy POLICY ] [ chunk BYTES ]\n"
		"       edmctl fabric link show [ END ]\n"
		"       edmctl fabric link add END { peer END | dev IFNAME WHOM } [ LINKOPTS ]\n"
		"       edmctl fabric link del END\n"
		"       edmctl fabric link set END [ LINKOPTS ] [ corrupt N ]\n"
		"       edmctl fabric help\n"
		"where  END := NODE[:PORT] (port 0 when left out: a host's only port)\n"
		"       POLICY := { srpt | fcfs }\n"
		"       LINKOPTS := [ rate MBIT ] [ delay NSEC ] [ mux MUX ] [ sherr N ]\n"
		"       MUX := { fair | strict | none }\n"
		"       WHOM := { peer-mac LLADDR | broadcast }: the frames of a link on a\n"
		"       netdev go to LLADDR and only LLADDR's are taken; \"broadcast\" is for\n"
		"       a point-to-point wire: frames to and from anyone\n"
		"       SIZE := BYTES[ K | M | G ], a multiple of 4K, at most 1G\n"
		"       NAME and NODE are 1 to %d characters of [A-Za-z0-9_.-], starting\n"
		"       with a letter or a digit; ADDR is the switch port the host is on.\n"
		"\"show\" and \"link show\" print the counters too with -s. \"link show NODE\"\n"
		"lists every linked port of NODE. \"link set\" brings a link end that went\n"
		"down back up. Commands may be abbreviated; \"list\" and \"delete\" are aliases.\n",
		EDM_NAME_LEN - 1);
}

static void help_exit(void)
{
	fab_usage(stdout);
	exit(0);
}

/* ---- words ---- */

/* Enums of real values from 0 on: enum_from_word() never takes 0. */
static int word_value(const char *const *names, unsigned int n, const char *word,
		      uint32_t *v)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(names[i], word)) {
			*v = i;
			return 0;
		}
	}
	return -1;
}

static const char *value_word(const char *const *names, unsigned int n, uint32_t v,
			      char *buf, size_t len)
{
	if (v < n && names[v])
		return names[v];
	snprintf(buf, len, "unknown(%u)", v);
	return buf;
}

static int bad_word(const char *what, const char *word, const char *const *names,
		    unsigned int n)
{
	char list[128] = "";
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
	}
	return edm_err("unknown %s \"%s\", expected one of: %s", what, word, list);
}

int fabric_parse_region(const char *s, uint64_t *v)
{
	if (!strcmp(s, "0")) {
		*v = 0;
		return 0;
	}
	return netdimm_parse_size(s, v);
}

static int check_name(const char *what, const char *name)
{
	if (!*name)
		return edm_err("%s must not be empty", what);
	if (strlen(name) >= EDM_NAME_LEN)
		return edm_err("%s \"%s\" is too long (at most %d characters)",
			       what, name, EDM_NAME_LEN - 1);
	return 0;
}

int fabric_parse_end(const char *s, char *name, size_t len, uint32_t *port,
		     bool *has_port)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	*has_port = false;
	*port = 0;
	if (!n || (colon && parse_u32(colon + 1, port)))
		return edm_err("invalid link end \"%s\" (expected NODE[:PORT])", s);
	if (n >= EDM_NAME_LEN || n >= len)
		return edm_err("node name in \"%s\" is too long (at most %d characters)",
			       s, EDM_NAME_LEN - 1);
	memcpy(name, s, n);
	name[n] = '\0';
	*has_port = colon != NULL;
	return 0;
}

/* ---- printing ---- */

/* false if absent or of the wrong size */
static bool get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a || nla_len(a) != sizeof(uint64_t))
		return false;
	memcpy(v, nla_data(a), sizeof(*v));
	return true;
}

/* A byte count: a number in JSON, "64M" in text. */
static void print_size(const char *key, const char *word, uint64_t v)
{
	char buf[32];

	netdimm_fmt_size(buf, sizeof(buf), v);
	print_u64(PRINT_JSON, key, NULL, v);
	print_string(PRINT_FP, NULL, " %s", word);
	print_string(PRINT_FP, NULL, " %s", buf);
}

/* A u32 attribute as "key":v in JSON and fmt in text, if present. */
static void print_u32_attr(const struct nlattr *a, const char *key, const char *fmt)
{
	uint32_t v;

	if (edm_nl_get_u32(a, &v))
		print_uint(PRINT_ANY, key, fmt, v);
}

static void print_enum_attr(const struct nlattr *a, const char *key, const char *fmt,
			    const char *const *names, unsigned int n)
{
	char buf[32];
	uint32_t v;

	if (edm_nl_get_u32(a, &v))
		print_string(PRINT_ANY, key, fmt, value_word(names, n, v, buf, sizeof(buf)));
}

/* "1: name sw0 type switch ports 16 x 3 chunk 256 policy srpt rate 25000". */
static void fab_print_node(struct nlattr **tb)
{
	const char *s;
	uint64_t v64;
	bool has_id;
	uint32_t v;

	has_id = edm_nl_get_u32(tb[EDM_A_FAB_ID], &v);
	if (has_id)
		print_uint(PRINT_ANY, "id", "%u:", v);
	s = edm_nl_get_str(tb[EDM_A_FAB_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", has_id ? " name %s" : "name %s", s);
	print_enum_attr(tb[EDM_A_FAB_TYPE], "type", " type %s", kind_names,
			ARRAY_SIZE(kind_names));
	print_u32_attr(tb[EDM_A_FAB_PORTS], "ports", " ports %u");
	print_u32_attr(tb[EDM_A_FAB_SCHED_X], "sched_x", " x %u");
	print_u32_attr(tb[EDM_A_FAB_CHUNK], "chunk", " chunk %u");
	print_enum_attr(tb[EDM_A_FAB_POLICY], "policy", " policy %s", policy_names,
			ARRAY_SIZE(policy_names));
	print_u32_attr(tb[EDM_A_FAB_RATE_MBPS], "rate_mbps", " rate %u");
	print_u32_attr(tb[EDM_A_FAB_ADDR], "addr", " addr %u");
	if (get_u64(tb[EDM_A_FAB_REGION_SIZE], &v64)) {
		print_size("region_size", "region", v64);
		/* a region's: "keyed" in text when it is, true or false in JSON */
		if (v64 && tb[EDM_A_FAB_REGION_KEYED])
			print_bool(PRINT_ANY, "keyed", " keyed", true);
		else if (v64)
			print_bool(PRINT_JSON, "keyed", NULL, false);
	}
	print_u32_attr(tb[EDM_A_FAB_TIMEOUT_MS], "timeout_ms", " timeout %u");
	print_u32_attr(tb[EDM_A_FAB_TIMEOUT_MIN_US], "timeout_min_us", " timeout-min %u");
	/* The minor in JSON, the device file in text. */
	if (edm_nl_get_u32(tb[EDM_A_FAB_MINOR], &v)) {
		print_uint(PRINT_JSON, "minor", NULL, v);
		print_uint(PRINT_FP, NULL, " cdev /dev/edm%u", v);
	}
}

int fabric_print_msg(struct nlmsghdr *nlh, enum fabric_view view, bool stats)
{
	struct nlattr *tb[EDM_A_FAB_MAX + 1];
	const char *s;

	if (edm_nl_parse(nlh, tb, EDM_A_FAB_MAX) < 0)
		return -1;
	if (view == FABRIC_VIEW_STATS) {
		s = edm_nl_get_str(tb[EDM_A_FAB_NAME]);
		if (s)
			print_string(PRINT_ANY, "name", "%s:", s);
		stats = true;
	} else {
		fab_print_node(tb);
	}
	if (stats)
		print_stat_nest(tb[EDM_A_FAB_STATS], node_stats, ARRAY_SIZE(node_stats));
	return 0;
}

int fabric_print_event(struct nlmsghdr *nlh)
{
	return fabric_print_msg(nlh, FABRIC_VIEW_SHOW, false);
}

static void print_ifindex(uint32_t ifindex)
{
	char name[IF_NAMESIZE];

	print_uint(PRINT_JSON, "ifindex", NULL, ifindex);
	/* In text the name, as "ip link" prints its "link". */
	if (if_indextoname(ifindex, name))
		print_string(PRINT_FP, NULL, " dev %s", name);
	else
		print_uint(PRINT_FP, NULL, " dev if%u", ifindex);
}

/* "peer-mac 52:54:00:12:34:56", "peer_mac" in JSON */
static void print_peer_mac(const struct nlattr *a)
{
	if (a && nla_len(a) == 6)
		print_mac(PRINT_ANY, "peer_mac", " peer-mac %s", nla_data(a));
}

/* "sw0:1 peer h1:0 rate 25000 delay 0 mux fair sherr 64 state up". */
static void fab_print_link(struct nlattr **tb)
{
	const char *s;
	uint32_t v;

	s = edm_nl_get_str(tb[EDM_A_FLINK_NODE]);
	if (s)
		print_string(PRINT_ANY, "node", "%s", s);
	print_u32_attr(tb[EDM_A_FLINK_PORT], "port", ":%u");
	s = edm_nl_get_str(tb[EDM_A_FLINK_PEER]);
	if (s) {
		print_string(PRINT_ANY, "peer", " peer %s", s);
		print_u32_attr(tb[EDM_A_FLINK_PEER_PORT], "peer_port", ":%u");
	}
	if (edm_nl_get_u32(tb[EDM_A_FLINK_IFINDEX], &v))
		print_ifindex(v);
	print_peer_mac(tb[EDM_A_FLINK_PEER_MAC]);
	if (tb[EDM_A_FLINK_BROADCAST])
		print_bool(PRINT_ANY, "broadcast", " broadcast", true);
	print_u32_attr(tb[EDM_A_FLINK_RATE_MBPS], "rate_mbps", " rate %u");
	print_u32_attr(tb[EDM_A_FLINK_DELAY_NS], "delay_ns", " delay %u");
	print_enum_attr(tb[EDM_A_FLINK_MUX], "mux", " mux %s", mux_names,
			ARRAY_SIZE(mux_names));
	print_u32_attr(tb[EDM_A_FLINK_SHERR_THRESHOLD], "sherr_threshold", " sherr %u");
	print_enum_attr(tb[EDM_A_FLINK_STATE], "state", " state %s", state_names,
			ARRAY_SIZE(state_names));
	s = edm_nl_get_str(tb[EDM_A_FLINK_REASON]);
	if (s)
		print_string(PRINT_ANY, "reason", " reason \"%s\"", s);
}

int fabric_link_print_msg(struct nlmsghdr *nlh, bool stats)
{
	struct nlattr *tb[EDM_A_FLINK_MAX + 1];

	if (edm_nl_parse(nlh, tb, EDM_A_FLINK_MAX) < 0)
		return -1;
	fab_print_link(tb);
	if (stats)
		print_stat_nest(tb[EDM_A_FLINK_STATS], link_stats, ARRAY_SIZE(link_stats));
	return 0;
}

int fabric_link_print_event(struct nlmsghdr *nlh)
{
	return fabric_link_print_msg(nlh, false);
}

/* ---- a list: an array in JSON, one entry each in text ---- */

struct fab_list {
	bool opened;
	bool link;		/* FLINK messages, else FABRIC ones */
	enum fabric_view view;
	bool stats;
};

static int fab_list_cb(struct nlmsghdr *nlh, void *arg)
{
	struct fab_list *l = arg;
	int ret;

	/* Opened on the first entry so a failed request prints nothing. */
	if (!l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	open_json_object(NULL);
	if (l->link)
		ret = fabric_link_print_msg(nlh, l->stats);
	else
		ret = fabric_print_msg(nlh, l->view, l->stats);
	close_json_object();
	if (ret < 0)
		edm_warn("ignoring a malformed fabric message");
	else
		print_nl();
	return 0;
}

static int fab_list_run(struct nl_msg *msg, struct fab_list *l)
{
	int ret;

	ret = edm_nl_talk(msg, l->link ? &flink_attrs : &fab_attrs, fab_list_cb, l);
	if (!ret && !l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	/* Close even on error: what was printed stays valid JSON. */
	if (l->opened)
		close_json_array(PRINT_JSON, NULL);
	return ret ? 1 : 0;
}

/* Send a request whose reply, if any, is not printed. */
static int fab_talk_quiet(struct nl_msg *msg, const struct edm_nl_attr_names *names)
{
	return edm_nl_talk(msg, names, NULL, NULL) ? 1 : 0;
}

/* ---- arguments ---- */

/* Values of u32 and enum keywords, by attribute; one attribute space per command. */
struct fab_vals {
	bool has[STAT_TB_MAX + 1];
	uint32_t v[STAT_TB_MAX + 1];
};

struct fab_kw {
	const char *word;
	int attr;
	const char *const *names;	/* an enum's words, or NULL for a number */
	unsigned int nnames;
};

#define KW_NUM(w, a)		{ w, a, NULL, 0 }
#define KW_ENUM(w, a, t)	{ w, a, t, ARRAY_SIZE(t) }

static const struct fab_kw switch_kws[] = {
	KW_NUM("ports", EDM_A_FAB_PORTS),
	KW_NUM("x", EDM_A_FAB_SCHED_X),
	KW_NUM("chunk", EDM_A_FAB_CHUNK),
	KW_ENUM("policy", EDM_A_FAB_POLICY, policy_names),
	KW_NUM("rate", EDM_A_FAB_RATE_MBPS),
};

static const struct fab_kw host_kws[] = {
	KW_NUM("addr", EDM_A_FAB_ADDR),
	KW_NUM("ports", EDM_A_FAB_PORTS),
	KW_NUM("timeout", EDM_A_FAB_TIMEOUT_MS),
	KW_NUM("timeout-min", EDM_A_FAB_TIMEOUT_MIN_US),
};

static const struct fab_kw set_kws[] = {
	KW_ENUM("policy", EDM_A_FAB_POLICY, policy_names),
	KW_NUM("chunk", EDM_A_FAB_CHUNK),
};

static const struct fab_kw link_kws[] = {
	KW_NUM("rate", EDM_A_FLINK_RATE_MBPS),
	KW_NUM("delay", EDM_A_FLINK_DELAY_NS),
	KW_ENUM("mux", EDM_A_FLINK_MUX, mux_names),
	KW_NUM("sherr", EDM_A_FLINK_SHERR_THRESHOLD),
};

static const struct fab_kw corrupt_kw = KW_NUM("corrupt", EDM_A_FLINK_CORRUPT);

static const struct fab_kw *kw_find(const struct fab_kw *kws, unsigned int n, const char *word)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kws[i].word, word))
			return &kws[i];
	return NULL;
}

/* "keyword VALUE" of @kw at argv into @vals: 2 (words used) or -1. */
static int kw_parse(int argc, char **argv, const struct fab_kw *kw, struct fab_vals *vals)
{
	if (need_arg(argc, argv))
		return -1;
	if (vals->has[kw->attr])
		return dup_arg(kw->word);
	if (kw->names) {
		if (word_value(kw->names, kw->nnames, argv[1], &vals->v[kw->attr]))
			return bad_word(kw->word, argv[1], kw->names, kw->nnames);
	} else if (parse_u32(argv[1], &vals->v[kw->attr])) {
		return edm_err("invalid %s \"%s\" (expected a number)", kw->word, argv[1]);
	}
	vals->has[kw->attr] = true;
	return 2;
}

static int put_vals(struct nl_msg *msg, const struct fab_vals *vals)
{
	int a;

	for (a = 0; a <= STAT_TB_MAX; a++)
		if (vals->has[a] && nla_put_u32(msg, a, vals->v[a]) < 0)
			return -1;
	return 0;
}

static int msg_too_long(struct nl_msg *msg)
{
	nlmsg_free(msg);
	return edm_err("netlink message too long"), 1;
}

/* "[ NAME ]" as the only argument of show and stats. */
static int parse_opt_name(int argc, char **argv, const char **name)
{
	*name = NULL;
	if (argc > 0 && is_help(*argv))
		help_exit();
	if (argc > 1) {
		if (is_help(argv[1]))
			help_exit();
		return unknown_arg("fabric", argv[1]);
	}
	if (argc == 1) {
		if (check_name("node name", *argv))
			return -1;
		*name = *argv;
	}
	return 0;
}

/* ---- node commands ---- */

static int fab_get(int argc, char **argv, enum fabric_view view)
{
	struct fab_list l = { .view = view, .stats = opts.stats > 0 };
	struct nl_msg *msg;
	const char *name;

	if (parse_opt_name(argc, argv, &name))
		return 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FABRIC_GET, name ? 0 : NLM_F_DUMP);
	if (!msg)
		return 1;
	if (name && nla_put_string(msg, EDM_A_FAB_NAME, name) < 0)
		return msg_too_long(msg);
	return fab_list_run(msg, &l);
}

static int fab_show(int argc, char **argv)
{
	return fab_get(argc, argv, FABRIC_VIEW_SHOW);
}

static int fab_stats(int argc, char **argv)
{
	return fab_get(argc, argv, FABRIC_VIEW_STATS);
}

struct fab_new {
	uint32_t type;		/* EDM_DEV_TYPE_FSWITCH or _FHOST */
	const char *name;
	struct fab_vals vals;
	bool has_region;
	uint64_t region;
	bool keyed;
};

/* A keyword of the other kind of node gets its own message. */
static int fab_wrong_kind(const struct fab_new *nf, const char *word)
{
	bool host = nf->type == EDM_DEV_TYPE_FHOST;

	if (host && kw_find(switch_kws, ARRAY_SIZE(switch_kws), word))
		return edm_err("\"%s\" is a switch option, not for a host", word);
	if (!host && (kw_find(host_kws, ARRAY_SIZE(host_kws), word) || !strcmp(word, "region") ||
		      !strcmp(word, "keyed")))
		return edm_err("\"%s\" is a host option, not for a switch", word);
	return unknown_arg("fabric", word);
}

static int fab_new_word(int argc, char **argv, struct fab_new *nf)
{
	bool host = nf->type == EDM_DEV_TYPE_FHOST;
	const struct fab_kw *kw;

	if (host && !strcmp(*argv, "region")) {
		if (need_arg(argc, argv))
			return -1;
		if (nf->has_region)
			return dup_arg("region");
		if (fabric_parse_region(argv[1], &nf->region))
			return edm_err("invalid region \"%s\" (expected bytes with an optional "
				       "K, M or G suffix)", argv[1]);
		nf->has_region = true;
		return 2;
	}
	if (host && !strcmp(*argv, "keyed")) {
		if (nf->keyed)
			return dup_arg("keyed");
		nf->keyed = true;
		return 1;
	}
	kw = host ? kw_find(host_kws, ARRAY_SIZE(host_kws), *argv) :
		    kw_find(switch_kws, ARRAY_SIZE(switch_kws), *argv);
	if (kw)
		return kw_parse(argc, argv, kw, &nf->vals);
	if (is_help(*argv))
		help_exit();
	return fab_wrong_kind(nf, *argv);
}

/* "add { switch | host } NAME ...": the kind, the name, then keywords. */
static int fab_parse_new(int argc, char **argv, struct fab_new *nf)
{
	int n;

	if (!argc || is_help(*argv)) {
		if (argc)
			help_exit();
		return edm_err("\"add\" needs \"switch\" or \"host\", try \"edmctl fabric help\"");
	}
	if (!strcmp(*argv, "switch"))
		nf->type = EDM_DEV_TYPE_FSWITCH;
	else if (!strcmp(*argv, "host"))
		nf->type = EDM_DEV_TYPE_FHOST;
	else
		return edm_err("unknown node kind \"%s\", expected one of: switch, host", *argv);
	if (argc < 2)
		return edm_err("\"%s\" needs a name", *argv);
	if (is_help(argv[1]))
		help_exit();
	if (check_name("node name", argv[1]))
		return -1;
	nf->name = argv[1];
	for (argc -= 2, argv += 2; argc > 0; argc -= n, argv += n) {
		n = fab_new_word(argc, argv, nf);
		if (n < 0)
			return -1;
	}
	if (nf->type == EDM_DEV_TYPE_FHOST && !nf->vals.has[EDM_A_FAB_ADDR])
		return edm_err("a host needs \"addr ADDR\", the switch port it is on");
	if (nf->keyed && !nf->region)
		return edm_err("\"keyed\" needs a region (\"region SIZE\")");
	return 0;
}

static int fab_add(int argc, char **argv)
{
	struct fab_list l = { .view = FABRIC_VIEW_SHOW };
	struct fab_new nf;
	struct nl_msg *msg;

	memset(&nf, 0, sizeof(nf));
	if (fab_parse_new(argc, argv, &nf))
		return 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FABRIC_NEW, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_FAB_NAME, nf.name) < 0 ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, nf.type) < 0 ||
	    put_vals(msg, &nf.vals) ||
	    (nf.has_region && nla_put_u64(msg, EDM_A_FAB_REGION_SIZE, nf.region) < 0) ||
	    (nf.keyed && nla_put_flag(msg, EDM_A_FAB_REGION_KEYED) < 0))
		return msg_too_long(msg);
	return fab_list_run(msg, &l);
}

/* "NAME" as the one argument; *name is set. */
static int parse_one_name(int argc, char **argv, const char **name)
{
	if (argc > 0 && is_help(*argv))
		help_exit();
	if (!argc)
		return edm_err("a node name is required, try \"edmctl fabric help\"");
	if (check_name("node name", *argv))
		return -1;
	*name = *argv;
	return 0;
}

static int fab_del(int argc, char **argv)
{
	struct nl_msg *msg;
	const char *name;

	if (parse_one_name(argc, argv, &name))
		return 1;
	if (argc > 1) {
		if (is_help(argv[1]))
			help_exit();
		return unknown_arg("fabric", argv[1]), 1;
	}
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FABRIC_DEL, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_FAB_NAME, name) < 0)
		return msg_too_long(msg);
	return fab_talk_quiet(msg, &fab_attrs);
}

static int fab_set(int argc, char **argv)
{
	const struct fab_kw *kw;
	struct fab_vals vals;
	struct nl_msg *msg;
	const char *name;
	int n;

	memset(&vals, 0, sizeof(vals));
	if (parse_one_name(argc, argv, &name))
		return 1;
	for (argc--, argv++; argc > 0; argc -= n, argv += n) {
		kw = kw_find(set_kws, ARRAY_SIZE(set_kws), *argv);
		if (!kw) {
			if (is_help(*argv))
				help_exit();
			if (kw_find(switch_kws, ARRAY_SIZE(switch_kws), *argv))
				return edm_err("\"%s\" is fixed when a switch is created", *argv), 1;
			return unknown_arg("fabric", *argv), 1;
		}
		n = kw_parse(argc, argv, kw, &vals);
		if (n < 0)
			return 1;
	}
	if (!vals.has[EDM_A_FAB_POLICY] && !vals.has[EDM_A_FAB_CHUNK])
		return edm_err("nothing to set: give \"policy\" or \"chunk\""), 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FABRIC_SET, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_FAB_NAME, name) < 0 || put_vals(msg, &vals))
		return msg_too_long(msg);
	return fab_talk_quiet(msg, &fab_attrs);
}

/* ---- link commands ---- */

struct fab_end {
	char name[EDM_NAME_LEN];
	uint32_t port;
	bool has_port;
};

/* "END" as the first argument of a link command. */
static int parse_first_end(int argc, char **argv, struct fab_end *e)
{
	if (argc > 0 && is_help(*argv))
		help_exit();
	if (!argc)
		return edm_err("a link end NODE[:PORT] is required, try \"edmctl fabric help\"");
	return fabric_parse_end(*argv, e->name, sizeof(e->name), &e->port, &e->has_port);
}

static int put_end(struct nl_msg *msg, const struct fab_end *e, int node_attr, int port_attr)
{
	if (nla_put_string(msg, node_attr, e->name) < 0)
		return -1;
	if (e->has_port && nla_put_u32(msg, port_attr, e->port) < 0)
		return -1;
	return 0;
}

static int link_show(int argc, char **argv)
{
	struct fab_list l = { .link = true, .stats = opts.stats > 0 };
	struct fab_end e = { .has_port = false };
	struct nl_msg *msg;
	bool one;

	if (argc > 0 && parse_first_end(argc, argv, &e))
		return 1;
	if (argc > 1) {
		if (is_help(argv[1]))
			help_exit();
		return unknown_arg("fabric", argv[1]), 1;
	}
	/* NODE:PORT is one link end; NODE alone, every linked port of NODE. */
	one = argc > 0 && e.has_port;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FLINK_GET, one ? 0 : NLM_F_DUMP);
	if (!msg)
		return 1;
	if (argc > 0 && put_end(msg, &e, EDM_A_FLINK_NODE, EDM_A_FLINK_PORT))
		return msg_too_long(msg);
	return fab_list_run(msg, &l);
}

struct link_args {
	struct fab_end end;
	bool has_peer;
	struct fab_end peer;
	const char *dev;
	uint32_t ifindex;
	bool has_mac;
	uint8_t mac[6];
	bool broadcast;
	struct fab_vals vals;
};

/* "peer-mac LLADDR" or "broadcast" at argv: 2 or 1, 0 if neither, -1. */
static int link_whom(int argc, char **argv, struct link_args *la)
{
	unsigned int m[6];
	char end;
	int i;

	if (!strcmp(*argv, "broadcast")) {
		if (la->broadcast)
			return dup_arg(*argv);
		la->broadcast = true;
		return 1;
	}
	if (strcmp(*argv, "peer-mac"))
		return 0;
	if (need_arg(argc, argv))
		return -1;
	if (la->has_mac)
		return dup_arg(*argv);
	if (sscanf(argv[1], "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5], &end) != 6 || strlen(argv[1]) != 17)
		return edm_err("\"%s\" is not a MAC address (xx:xx:xx:xx:xx:xx)", argv[1]);
	for (i = 0; i < 6; i++)
		la->mac[i] = m[i];
	la->has_mac = true;
	return 2;
}

/* "peer END" or "dev IFNAME" at argv: 2, 0 if neither, -1. */
static int link_other_end(int argc, char **argv, struct link_args *la)
{
	bool peer = !strcmp(*argv, "peer");

	if (!peer && strcmp(*argv, "dev"))
		return 0;
	if (need_arg(argc, argv))
		return -1;
	if ((peer && la->has_peer) || (!peer && la->dev))
		return dup_arg(*argv);
	if (!peer) {
		la->dev = argv[1];
		return 2;
	}
	if (fabric_parse_end(argv[1], la->peer.name, sizeof(la->peer.name), &la->peer.port,
			     &la->peer.has_port))
		return -1;
	la->has_peer = true;
	return 2;
}

/* "add END ..." or "set END ...": the end, then keywords. */
static int link_parse(int argc, char **argv, struct link_args *la, bool add)
{
	const struct fab_kw *kw;
	int n;

	if (parse_first_end(argc, argv, &la->end))
		return -1;
	for (argc--, argv++; argc > 0; argc -= n, argv += n) {
		kw = kw_find(link_kws, ARRAY_SIZE(link_kws), *argv);
		if (!kw && !add && !strcmp(*argv, corrupt_kw.word))
			kw = &corrupt_kw;
		if (kw) {
			n = kw_parse(argc, argv, kw, &la->vals);
		} else {
			n = add ? link_other_end(argc, argv, la) : 0;
			if (!n && add)
				n = link_whom(argc, argv, la);
			if (!n && is_help(*argv))
				help_exit();
			if (!n && !add && (!strcmp(*argv, "peer") || !strcmp(*argv, "dev") ||
					   !strcmp(*argv, "peer-mac") || !strcmp(*argv, "broadcast")))
				return edm_err("a link's ends are fixed: delete it and add it again");
			if (!n)
				return unknown_arg("fabric", *argv);
		}
		if (n < 0)
			return -1;
	}
	if (!add)
		return 0;
	if (la->has_peer && la->dev)
		return edm_err("\"peer\" and \"dev\" are mutually exclusive: a link has one "
			       "other end");
	if (!la->has_peer && !la->dev)
		return edm_err("a link needs \"peer NODE[:PORT]\" or \"dev IFNAME\"");
	if (la->has_peer && !strcmp(la->peer.name, la->end.name))
		return edm_err("a node cannot be linked to itself");
	if (la->dev) {
		/* In the namespace of -n, which main() has entered. */
		la->ifindex = if_nametoindex(la->dev);
		if (!la->ifindex)
			return edm_err("cannot find network device \"%s\"", la->dev);
	}
	if (la->has_peer && (la->has_mac || la->broadcast))
		return edm_err("\"%s\" is for a link on a netdev", la->has_mac ? "peer-mac" :
			       "broadcast");
	if (la->has_mac && la->broadcast)
		return edm_err("\"peer-mac\" and \"broadcast\" are mutually exclusive");
	if (la->dev && !la->has_mac && !la->broadcast)
		return edm_err("a link on a netdev needs \"peer-mac LLADDR\" (the peer's address) "
			       "or \"broadcast\" (a point-to-point wire)");
	return 0;
}

static int link_add(int argc, char **argv)
{
	struct fab_list l = { .link = true };
	struct link_args la;
	struct nl_msg *msg;

	memset(&la, 0, sizeof(la));
	if (link_parse(argc, argv, &la, true))
		return 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FLINK_NEW, 0);
	if (!msg)
		return 1;
	if (put_end(msg, &la.end, EDM_A_FLINK_NODE, EDM_A_FLINK_PORT) ||
	    (la.has_peer && put_end(msg, &la.peer, EDM_A_FLINK_PEER, EDM_A_FLINK_PEER_PORT)) ||
	    (la.dev && nla_put_u32(msg, EDM_A_FLINK_IFINDEX, la.ifindex) < 0) ||
	    (la.has_mac && nla_put(msg, EDM_A_FLINK_PEER_MAC, 6, la.mac) < 0) ||
	    (la.broadcast && nla_put_flag(msg, EDM_A_FLINK_BROADCAST) < 0) ||
	    put_vals(msg, &la.vals))
		return msg_too_long(msg);
	return fab_list_run(msg, &l);
}

static int link_set(int argc, char **argv)
{
	struct link_args la;
	struct nl_msg *msg;

	memset(&la, 0, sizeof(la));
	if (link_parse(argc, argv, &la, false))
		return 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FLINK_SET, 0);
	if (!msg)
		return 1;
	if (put_end(msg, &la.end, EDM_A_FLINK_NODE, EDM_A_FLINK_PORT) ||
	    put_vals(msg, &la.vals))
		return msg_too_long(msg);
	return fab_talk_quiet(msg, &flink_attrs);
}

static int link_del(int argc, char **argv)
{
	struct fab_end e = { .has_port = false };
	struct nl_msg *msg;

	if (parse_first_end(argc, argv, &e))
		return 1;
	if (argc > 1) {
		if (is_help(argv[1]))
			help_exit();
		return unknown_arg("fabric", argv[1]), 1;
	}
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_FLINK_DEL, 0);
	if (!msg)
		return 1;
	if (put_end(msg, &e, EDM_A_FLINK_NODE, EDM_A_FLINK_PORT))
		return msg_too_long(msg);
	return fab_talk_quiet(msg, &flink_attrs);
}

static const struct edm_cmd link_cmds[] = {
	{ "show",	link_show },
	{ "list",	link_show },
	{ "add",	link_add },
	{ "del",	link_del },
	{ "delete",	link_del },
	{ "set",	link_set },
	{ NULL,		NULL },
};

/*
 * "link COMMAND ...": a command word, or a unique prefix of one (aliases
 * share a function); no word is "link show".
 */
static int fab_link(int argc, char **argv)
{
	const struct edm_cmd *c, *found = NULL;
	bool ambiguous = false;
	size_t len;

	if (!argc)
		return link_show(0, argv);
	if (is_help(*argv))
		help_exit();
	len = strlen(*argv);
	for (c = link_cmds; len && c->name; c++) {
		if (!strcmp(c->name, *argv)) {
			found = c;
			ambiguous = false;
			break;
		}
		if (strncmp(c->name, *argv, len))
			continue;
		if (found && found->fn != c->fn)
			ambiguous = true;
		if (!found)
			found = c;
	}
	if (!found || ambiguous) {
		fprintf(stderr, "Command \"%s\" %s, try \"edmctl fabric help\".\n", *argv,
			ambiguous ? "is ambiguous" : "not found");
		return 1;
	}
	return found->fn(argc - 1, argv + 1);
}

static const struct edm_cmd fab_cmds[] = {
	{ "show",	fab_show },
	{ "list",	fab_show },
	{ "stats",	fab_stats },
	{ "add",	fab_add },
	{ "del",	fab_del },
	{ "delete",	fab_del },
	{ "set",	fab_set },
	{ "link",	fab_link },
	{ NULL,		NULL },
};

const struct edm_object obj_fabric = {
	.name	= "fabric",
	.usage	= fab_usage,
	.cmds	= fab_cmds,
	.dflt	= fab_show,
};
