// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl nicpool: a rack's NIC pool (NICPOOL_*) and its members, the
 * netdevs that carry the rack's inter-rack traffic.
 *
 *   edmctl nicpool create NP rack RACK [ mode flowlet|spray ] [ flowlet-gap-us N ]
 *   edmctl nicpool add-nic NP DEV | del-nic NP DEV
 *   edmctl nicpool set NP [ mode flowlet|spray ] [ flowlet-gap-us N ]
 *   edmctl nicpool show [ NP ] | stats [ NP ] | delete NP
 *
 * One printer (np_print()) serves every command: text and JSON carry the
 * same fields, JSON keys being the spec's attribute names; a NIC pool's
 * members are the "nics" array, each with its counters under "stats".
 * Value ranges are the kernel's to check.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "print.h"
#include "stats.h"

static const char *const mode_names[] = {
	[EDM_NICPOOL_MODE_UNSPEC]	= NULL,
	[EDM_NICPOOL_MODE_FLOWLET]	= "flowlet",
	[EDM_NICPOOL_MODE_SPRAY]	= "spray",
};
_Static_assert(ARRAY_SIZE(mode_names) == __EDM_NICPOOL_MODE_CNT,
	       "mode_names[] does not match enum edm_nicpool_mode");

/* Command-line words of the attributes, for the kernel's errors. */
static const char *const np_attr_words[] = {
	[EDM_A_NICPOOL_ID]		= "id",
	[EDM_A_NICPOOL_NAME]		= "name",
	[EDM_A_NICPOOL_RACK]		= "rack",
	[EDM_A_NICPOOL_MODE]		= "mode",
	[EDM_A_NICPOOL_FLOWLET_GAP_US]	= "flowlet-gap-us",
	[EDM_A_NICPOOL_NIC]		= "nic",
	[EDM_A_NICPOOL_NODE]		= "node",
	[EDM_A_NICPOOL_TAG]		= "tag",
	[EDM_A_NICPOOL_MEMBERS]		= "members",
	[EDM_A_NICPOOL_MEMBER]		= "member",
	[EDM_A_NICPOOL_STATS]		= "stats",
};
_Static_assert(ARRAY_SIZE(np_attr_words) == __EDM_A_NICPOOL_CNT,
	       "np_attr_words[] does not match the EDM_A_NICPOOL_* attributes");

static const struct edm_nl_attr_names np_attrs = {
	.names = np_attr_words, .count = ARRAY_SIZE(np_attr_words),
};

static const struct edm_stat np_stats[] = {
	{ EDM_A_NPSTAT_TX_PACKETS,	"tx-packets",	   "tx", "packets" },
	{ EDM_A_NPSTAT_TX_BYTES,	"tx-bytes",	   "tx", "bytes" },
	{ EDM_A_NPSTAT_TX_DROPS,	"tx-drops",	   "tx", "drops" },
	{ EDM_A_NPSTAT_RX_PACKETS,	"rx-packets",	   "rx", "packets" },
	{ EDM_A_NPSTAT_RX_BYTES,	"rx-bytes",	   "rx", "bytes" },
	{ EDM_A_NPSTAT_RX_NO_DEST,	"rx-no-dest",	   "rx", "no-dest" },
	{ EDM_A_NPSTAT_RX_DROPS,	"rx-drops",	   "rx", "drops" },
	{ EDM_A_NPSTAT_RX_FLOODS,	"rx-floods",	   "rx", "floods" },
	{ EDM_A_NPSTAT_COPIES,		"copies",	   "rx", "copies" },
	{ EDM_A_NPSTAT_COPY_BYTES,	"copy-bytes",	   "rx", "copy-bytes" },
	{ EDM_A_NPSTAT_ENOMEM,		"enomem",	   "rx", "enomem" },
	{ EDM_A_NPSTAT_FLOWS_NEW,	"flows-new",	   "flows", "new" },
	{ EDM_A_NPSTAT_FLOWLET_MOVES,	"flowlet-moves",   "flows", "flowlet-moves" },
	{ EDM_A_NPSTAT_FLOWS_REHOMED,	"flows-rehomed",   "flows", "rehomed" },
	{ EDM_A_NPSTAT_FLOWLET_HOLDS,	"flowlet-holds",   "flows", "flowlet-holds" },
	{ EDM_A_NPSTAT_SPRAYED,		"sprayed",	   "spray", "sent" },
	{ EDM_A_NPSTAT_SEGMENTED,	"segmented",	   "spray", "segmented" },
	{ EDM_A_NPSTAT_REORDERED,	"reordered",	   "reorder", "held" },
	{ EDM_A_NPSTAT_LATE,		"late",		   "reorder", "late" },
	{ EDM_A_NPSTAT_DUPS,		"dups",		   "reorder", "dups" },
	{ EDM_A_NPSTAT_WINDOW_FLUSHES,	"window-flushes",  "reorder", "window-flushes" },
	{ EDM_A_NPSTAT_TIMEOUT_FLUSHES,	"timeout-flushes", "reorder", "timeout-flushes" },
};
_Static_assert(ARRAY_SIZE(np_stats) == __EDM_A_NPSTAT_CNT - 2,
	       "np_stats[] does not match the EDM_A_NPSTAT_* counters");

static const struct edm_stat member_stats[] = {
	{ EDM_A_NPMEMBER_TX_PACKETS,	"tx-packets",	"tx", "packets" },
	{ EDM_A_NPMEMBER_TX_BYTES,	"tx-bytes",	"tx", "bytes" },
	{ EDM_A_NPMEMBER_TX_DROPS,	"tx-drops",	"tx", "drops" },
	{ EDM_A_NPMEMBER_FLOWS,		"flows",	"tx", "flows" },
	{ EDM_A_NPMEMBER_FLOWS_MOVED,	"flows-moved",	"tx", "flows-moved" },
	{ EDM_A_NPMEMBER_DEPTH,		"depth",	"tx", "depth" },
	{ EDM_A_NPMEMBER_DEPTH_MAX,	"depth-max",	"tx", "depth-max" },
	{ EDM_A_NPMEMBER_RX_PACKETS,	"rx-packets",	"rx", "packets" },
	{ EDM_A_NPMEMBER_RX_BYTES,	"rx-bytes",	"rx", "bytes" },
};
_Static_assert(ARRAY_SIZE(member_stats) == __EDM_A_NPMEMBER_CNT - 4,
	       "member_stats[] does not match the EDM_A_NPMEMBER_* counters");

static void np_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl nicpool show [ NAME ]\n"
		"       edmctl nicpool stats [ NAME ]\n"
		"       edmctl nicpool create NAME rack RACK [ mode MODE ] [ flowlet-gap-us N ]\n"
		"       edmctl nicpool set NAME [ mode MODE ] [ flowlet-gap-us N ]\n"
		"       edmctl nicpool add-nic NAME DEV\n"
		"       edmctl nicpool del-nic NAME DEV\n"
		"       edmctl nicpool delete NAME\n"
		"       edmctl nicpool help\n"
		"where  MODE := { flowlet | spray } (default flowlet): per flow, moving only\n"
		"       after an idle gap of N microseconds (default 500), or per packet with\n"
		"       a sequence number that the receiving rack (edm) reorders;\n"
		"       DEV is a netdev of this netns, up, Ethernet, that becomes a member.\n"
		"       A rack has one NIC pool. \"show\" prints the counters too with -s.\n");
}

/* ---- printing ---- */

struct np_print {
	bool stats;
	bool opened;
};

static void np_print_member(struct nlattr *nest, bool stats)
{
	struct nlattr *tb[EDM_A_NPMEMBER_MAX + 1];
	const char *name;
	uint32_t v;

	if (nla_parse_nested(tb, EDM_A_NPMEMBER_MAX, nest, NULL))
		return;
	open_json_object(NULL);
	print_string(PRINT_FP, NULL, "%s", "\n    nic");
	name = edm_nl_get_str(tb[EDM_A_NPMEMBER_NAME]);
	if (name)
		print_string(PRINT_ANY, "name", " %s", name);
	if (edm_nl_get_u32(tb[EDM_A_NPMEMBER_IFINDEX], &v))
		print_uint(PRINT_ANY, "ifindex", " ifindex %u", v);
	if (stats)
		print_stat_nest(nest, member_stats, ARRAY_SIZE(member_stats));
	close_json_object();
}

static void np_print_members(struct nlmsghdr *nlh, bool stats)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *a;
	int rem;

	open_json_array(PRINT_JSON, "nics");
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem)
		if (nla_type(a) == EDM_A_NICPOOL_MEMBER)
			np_print_member(a, stats);
	close_json_array(PRINT_JSON, NULL);
}

static int np_print(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[EDM_A_NICPOOL_MAX + 1];
	struct np_print *p = arg;
	const char *s;
	char buf[32];
	uint32_t v;

	if (edm_nl_parse(nlh, tb, EDM_A_NICPOOL_MAX) < 0)
		return 0;
	if (!p->opened) {
		open_json_array(PRINT_JSON, NULL);
		p->opened = true;
	}
	open_json_object(NULL);
	s = edm_nl_get_str(tb[EDM_A_NICPOOL_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", "%s:", s);
	if (edm_nl_get_u32(tb[EDM_A_NICPOOL_ID], &v))
		print_uint(PRINT_ANY, "id", " id %u", v);
	s = edm_nl_get_str(tb[EDM_A_NICPOOL_RACK]);
	if (s)
		print_string(PRINT_ANY, "rack", " rack %s", s);
	if (edm_nl_get_u32(tb[EDM_A_NICPOOL_MODE], &v))
		print_string(PRINT_ANY, "mode", " mode %s",
			     enum_to_word(mode_names, ARRAY_SIZE(mode_names), v, buf,
					  sizeof(buf)));
	if (edm_nl_get_u32(tb[EDM_A_NICPOOL_FLOWLET_GAP_US], &v))
		print_uint(PRINT_ANY, "flowlet-gap-us", " flowlet-gap-us %u", v);
	if (edm_nl_get_u32(tb[EDM_A_NICPOOL_NODE], &v))
		print_uint(PRINT_ANY, "node", " node %u", v);
	if (edm_nl_get_u32(tb[EDM_A_NICPOOL_TAG], &v)) {
		snprintf(buf, sizeof(buf), "0x%08x", v);
		print_string(PRINT_ANY, "tag", " tag %s", buf);
	}
	if (edm_nl_get_u32(tb[EDM_A_NICPOOL_MEMBERS], &v))
		print_uint(PRINT_ANY, "members", " members %u", v);
	if (p->stats)
		print_stat_nest(tb[EDM_A_NICPOOL_STATS], np_stats, ARRAY_SIZE(np_stats));
	np_print_members(nlh, p->stats);
	close_json_object();
	print_nl();
	return 0;
}

static int np_talk(struct nl_msg *msg, bool reply, bool stats)
{
	struct np_print p = { .stats = stats };
	int ret;

	if (!reply)
		return edm_nl_talk(msg, &np_attrs, NULL, NULL) ? 1 : 0;
	ret = edm_nl_talk(msg, &np_attrs, np_print, &p);
	if (!ret && !p.opened) {
		open_json_array(PRINT_JSON, NULL);
		p.opened = true;
	}
	if (p.opened)
		close_json_array(PRINT_JSON, NULL);
	return ret ? 1 : 0;
}

/* ---- requests ---- */

static int bad_name(const char *what, const char *s, size_t max)
{
	if (*s && strlen(s) < max)
		return 0;
	return edm_err("invalid %s \"%s\"", what, s);
}

/* "help" anywhere a word goes prints the usage. */
static void help_scan(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			np_usage(stdout);
			exit(0);
		}
	}
}

/* The keywords of create (with_rack) and set into @msg; 0 or -1 (printed). */
static int np_parse_kws(int argc, char **argv, struct nl_msg *msg, bool with_rack)
{
	bool seen_mode = false, seen_gap = false, seen_rack = false;
	uint32_t v;

	for (; argc > 0; argc -= 2, argv += 2) {
		if (!strcmp(*argv, "mode")) {
			if (parse_enum_arg(argc, argv, "mode", mode_names, ARRAY_SIZE(mode_names),
					   &seen_mode, &v) ||
			    nla_put_u32(msg, EDM_A_NICPOOL_MODE, v) < 0)
				return -1;
		} else if (!strcmp(*argv, "flowlet-gap-us")) {
			if (need_arg(argc, argv))
				return -1;
			if (seen_gap)
				return dup_arg(*argv);
			seen_gap = true;
			if (parse_u32(argv[1], &v))
				return edm_err("invalid flowlet-gap-us \"%s\"", argv[1]);
			if (nla_put_u32(msg, EDM_A_NICPOOL_FLOWLET_GAP_US, v) < 0)
				return -1;
		} else if (with_rack && !strcmp(*argv, "rack")) {
			if (need_arg(argc, argv))
				return -1;
			if (seen_rack)
				return dup_arg(*argv);
			seen_rack = true;
			if (bad_name("rack", argv[1], EDM_NAME_LEN) ||
			    nla_put_string(msg, EDM_A_NICPOOL_RACK, argv[1]) < 0)
				return -1;
		} else {
			return unknown_arg("nicpool", *argv);
		}
	}
	return 0;
}

/* A request of @cmd naming NAME (argv[0]), or a dump when there is none and !need. */
static struct nl_msg *np_req(uint8_t cmd, int argc, char **argv, bool need)
{
	struct nl_msg *msg;

	help_scan(argc, argv);
	if (argc < 1 && need) {
		edm_err("a NIC pool name is required, try \"edmctl nicpool help\"");
		return NULL;
	}
	if (argc >= 1 && bad_name("name", argv[0], EDM_NAME_LEN))
		return NULL;
	if (edm_nl_open())
		return NULL;
	msg = edm_nl_req(cmd, argc < 1 ? NLM_F_DUMP : 0);
	if (msg && argc >= 1 && nla_put_string(msg, EDM_A_NICPOOL_NAME, argv[0]) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int np_get(int argc, char **argv, bool stats)
{
	struct nl_msg *msg;

	if (argc > 1)
		return unknown_arg("nicpool", argv[1]), 1;
	msg = np_req(EDM_CMD_NICPOOL_GET, argc, argv, false);
	return msg ? np_talk(msg, true, stats) : 1;
}

static int np_show(int argc, char **argv)
{
	return np_get(argc, argv, opts.stats > 0);
}

static int np_stats_cmd(int argc, char **argv)
{
	return np_get(argc, argv, true);
}

/* The keywords checked before the kernel is asked (it may not be there). */
static int np_check_kws(int argc, char **argv, bool with_rack)
{
	struct nl_msg *dry = nlmsg_alloc();
	int err;

	if (!dry)
		return -1;
	help_scan(argc, argv);
	err = argc > 0 ? np_parse_kws(argc - 1, argv + 1, dry, with_rack) : 0;
	nlmsg_free(dry);
	return err;
}

static int np_create(int argc, char **argv)
{
	struct nl_msg *msg;

	if (np_check_kws(argc, argv, true))
		return 1;
	msg = np_req(EDM_CMD_NICPOOL_NEW, argc, argv, true);
	if (!msg)
		return 1;
	if (np_parse_kws(argc - 1, argv + 1, msg, true)) {
		nlmsg_free(msg);
		return 1;
	}
	return np_talk(msg, true, false);
}

static int np_set(int argc, char **argv)
{
	struct nl_msg *msg;

	if (np_check_kws(argc, argv, false))
		return 1;
	msg = np_req(EDM_CMD_NICPOOL_SET, argc, argv, true);
	if (!msg)
		return 1;
	if (np_parse_kws(argc - 1, argv + 1, msg, false)) {
		nlmsg_free(msg);
		return 1;
	}
	return np_talk(msg, false, false);
}

static int np_delete(int argc, char **argv)
{
	struct nl_msg *msg;

	if (argc > 1)
		return unknown_arg("nicpool", argv[1]), 1;
	msg = np_req(EDM_CMD_NICPOOL_DEL, argc, argv, true);
	return msg ? np_talk(msg, false, false) : 1;
}

/* "NAME DEV": a member goes in or out. */
static int np_nic(uint8_t cmd, int argc, char **argv)
{
	struct nl_msg *msg;

	help_scan(argc, argv);
	if (argc != 2)
		return edm_err("a NIC pool name and a netdev are required, "
			       "try \"edmctl nicpool help\""), 1;
	if (bad_name("netdev", argv[1], EDM_NAME_LEN))
		return 1;
	msg = np_req(cmd, 1, argv, true);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_NICPOOL_NIC, argv[1]) < 0) {
		nlmsg_free(msg);
		return 1;
	}
	return np_talk(msg, false, false);
}

static int np_add_nic(int argc, char **argv)
{
	return np_nic(EDM_CMD_NICPOOL_NIC_ADD, argc, argv);
}

static int np_del_nic(int argc, char **argv)
{
	return np_nic(EDM_CMD_NICPOOL_NIC_DEL, argc, argv);
}

static const struct edm_cmd np_cmds[] = {
	{ "show",	np_show },
	{ "list",	np_show },
	{ "stats",	np_stats_cmd },
	{ "create",	np_create },
	{ "add",	np_create },
	{ "set",	np_set },
	{ "add-nic",	np_add_nic },
	{ "del-nic",	np_del_nic },
	{ "delete",	np_delete },
	{ "del",	np_delete },
	{ NULL,		NULL },
};

const struct edm_object obj_nicpool = {
	.name	= "nicpool",
	.usage	= np_usage,
	.cmds	= np_cmds,
	.dflt	= np_show,
};
