// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl shpool: this kernel's membership of pools shared with other
 * kernels (SHPOOL_*): a memory range every member maps (an ivshmem PCI
 * device), the host slots in it, and a netdev.
 *
 *   edmctl shpool join NAME dev PCI [ ifname IF ] [ hostname H ] [ hosts N ]
 *                      [ buf-shift N ] [ ring N ] [ lease-ms N ]
 *   edmctl shpool show [ NAME ] | hosts [ NAME ] | exports [ NAME ] | stats [ NAME ]
 *   edmctl shpool leave NAME
 *
 * One printer (sh_print()) serves every command, in one of four views:
 * the pool and its host table (show, join), the host table alone (hosts),
 * the export slots in use (exports: Cowbird instances across kernels), the
 * counters alone (stats). Text uses the command line's words ("dev",
 * "hosts"); JSON keys are the spec's attribute names ("device", "nhosts"),
 * the host slots are the "hosts" array, the counters "stats". Value ranges
 * are the kernel's to check.
 */
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_netdimm.h"
#include "obj_shpool.h"
#include "print.h"
#include "stats.h"

/* Longest PCI device name and hostname the kernel takes, NUL included. */
#define SH_DEVICE_LEN	32
#define SH_HOSTNAME_LEN	32

static const char *const state_names[] = {
	[EDM_SHPOOL_HOST_FREE]		= "free",
	[EDM_SHPOOL_HOST_JOINING]	= "joining",
	[EDM_SHPOOL_HOST_LIVE]		= "live",
	[EDM_SHPOOL_HOST_DEAD]		= "dead",
	[EDM_SHPOOL_HOST_LEAVING]	= "leaving",
};
_Static_assert(ARRAY_SIZE(state_names) == __EDM_SHPOOL_HOST_CNT,
	       "state_names[] does not match enum edm_shpool_host_state");

static const char *const xstate_names[] = {
	[EDM_SHPOOL_EXPORT_FREE]	= "free",
	[EDM_SHPOOL_EXPORT_CLAIMED]	= "claimed",
	[EDM_SHPOOL_EXPORT_OFFERED]	= "offered",
	[EDM_SHPOOL_EXPORT_CLOSED]	= "closed",
	[EDM_SHPOOL_EXPORT_FREEING]	= "freeing",
};
_Static_assert(ARRAY_SIZE(xstate_names) == __EDM_SHPOOL_EXPORT_CNT,
	       "xstate_names[] does not match enum edm_shpool_export_state");

static const char *const answer_names[] = {
	[EDM_SHPOOL_ANSWER_PENDING]	= "pending",
	[EDM_SHPOOL_ANSWER_SERVED]	= "served",
	[EDM_SHPOOL_ANSWER_REFUSED]	= "refused",
};
_Static_assert(ARRAY_SIZE(answer_names) == __EDM_SHPOOL_ANSWER_CNT,
	       "answer_names[] does not match enum edm_shpool_export_answer");

/* Command-line words of the attributes, for the kernel's errors. */
static const char *const sh_attr_words[] = {
	[EDM_A_SHPOOL_ID]		= "id",
	[EDM_A_SHPOOL_NAME]		= "name",
	[EDM_A_SHPOOL_DEVICE]		= "dev",
	[EDM_A_SHPOOL_IFNAME]		= "ifname",
	[EDM_A_SHPOOL_HOSTNAME]		= "hostname",
	[EDM_A_SHPOOL_NHOSTS]		= "hosts",
	[EDM_A_SHPOOL_BUF_SHIFT]	= "buf-shift",
	[EDM_A_SHPOOL_RING]		= "ring",
	[EDM_A_SHPOOL_LEASE_MS]		= "lease-ms",
	[EDM_A_SHPOOL_SIZE]		= "size",
	[EDM_A_SHPOOL_BUFS]		= "bufs",
	[EDM_A_SHPOOL_SLOT]		= "slot",
	[EDM_A_SHPOOL_EPOCH]		= "epoch",
	[EDM_A_SHPOOL_FORMATTED]	= "formatted",
	[EDM_A_SHPOOL_HOST]		= "host",
	[EDM_A_SHPOOL_STATS]		= "stats",
	[EDM_A_SHPOOL_EXPORT]		= "export",
};
_Static_assert(ARRAY_SIZE(sh_attr_words) == __EDM_A_SHPOOL_CNT,
	       "sh_attr_words[] does not match the EDM_A_SHPOOL_* attributes");

static const struct edm_nl_attr_names sh_attrs = {
	.names = sh_attr_words, .count = ARRAY_SIZE(sh_attr_words),
};

static const struct edm_stat sh_stats[] = {
	{ EDM_A_SHSTAT_TX_PACKETS,	"tx-packets",	"tx", "packets" },
	{ EDM_A_SHSTAT_TX_BYTES,	"tx-bytes",	"tx", "bytes" },
	{ EDM_A_SHSTAT_TX_NO_HOST,	"tx-no-host",	"tx", "no-host" },
	{ EDM_A_SHSTAT_TX_NO_BUF,	"tx-no-buf",	"tx", "no-buf" },
	{ EDM_A_SHSTAT_TX_RING_FULL,	"tx-ring-full",	"tx", "ring-full" },
	{ EDM_A_SHSTAT_TX_HOST_DOWN,	"tx-host-down",	"tx", "host-down" },
	{ EDM_A_SHSTAT_TX_FLOODS,	"tx-floods",	"tx", "floods" },
	{ EDM_A_SHSTAT_RX_PACKETS,	"rx-packets",	"rx", "packets" },
	{ EDM_A_SHSTAT_RX_BYTES,	"rx-bytes",	"rx", "bytes" },
	{ EDM_A_SHSTAT_RX_REFUSED,	"rx-refused",	"rx", "refused" },
	{ EDM_A_SHSTAT_RX_DROPS,	"rx-drops",	"rx", "drops" },
	{ EDM_A_SHSTAT_RX_ZEROCOPY,	"rx-zerocopy",	"rx", "zerocopy" },
	{ EDM_A_SHSTAT_RX_COPIED,	"rx-copied",	"rx", "copied" },
	{ EDM_A_SHSTAT_RX_SMALL,	"rx-small",	"rx", "small" },
	{ EDM_A_SHSTAT_RX_RETURNED,	"rx-returned",	"rx", "returned" },
	{ EDM_A_SHSTAT_ALLOCS,		"allocs",	"buffers", "allocs" },
	{ EDM_A_SHSTAT_FREES,		"frees",	"buffers", "frees" },
	{ EDM_A_SHSTAT_TAKEN_BACK,	"taken-back",	"buffers", "taken-back" },
	{ EDM_A_SHSTAT_REAPED_HOSTS,	"reaped-hosts",	"reaped", "hosts" },
	{ EDM_A_SHSTAT_REAPED_BUFS,	"reaped-bufs",	"reaped", "bufs" },
	{ EDM_A_SHSTAT_POLLS,		"polls",	"", "polls" },
	{ EDM_A_SHSTAT_IDLE_POLLS,	"idle-polls",	"", "idle-polls" },
	{ EDM_A_SHSTAT_FENCED,		"fenced",	"", "fenced" },
	{ EDM_A_SHSTAT_X_OFFERED,	"x-offered",	"cowbird", "offered" },
	{ EDM_A_SHSTAT_X_SERVED,	"x-served",	"cowbird", "served" },
	{ EDM_A_SHSTAT_X_REFUSED,	"x-refused",	"cowbird", "refused" },
	{ EDM_A_SHSTAT_X_DROPPED,	"x-dropped",	"cowbird", "dropped" },
	{ EDM_A_SHSTAT_X_LOST,		"x-lost",	"cowbird", "lost" },
	{ EDM_A_SHSTAT_X_FREED,		"x-freed",	"cowbird", "freed" },
	{ EDM_A_SHSTAT_X_REVOKED,	"x-revoked",	"cowbird", "revoked" },
};
_Static_assert(ARRAY_SIZE(sh_stats) == __EDM_A_SHSTAT_CNT - 2,
	       "sh_stats[] does not match the EDM_A_SHSTAT_* counters");

static void sh_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl shpool show [ NAME ]\n"
		"       edmctl shpool hosts [ NAME ]\n"
		"       edmctl shpool exports [ NAME ]\n"
		"       edmctl shpool stats [ NAME ]\n"
		"       edmctl shpool join NAME dev DEV [ ifname IF ] [ hostname H ] [ hosts N ]\n"
		"                   [ buf-shift S ] [ ring R ] [ lease-ms MS ]\n"
		"       edmctl shpool leave NAME\n"
		"       edmctl shpool help\n"
		"where  DEV is the memory the members share: an ivshmem device's PCI name,\n"
		"       as in /sys/bus/pci/devices (e.g. 0000:00:10.0), or the path of a\n"
		"       pmem device in fsdax mode (e.g. /dev/pmem0); IF the netdev to create\n"
		"       (default shp%%d); H how the other members see this kernel (default\n"
		"       its hostname). The join that finds the memory blank formats it with\n"
		"       N host slots (2..16, default 8), Buffers of 2^S bytes (11..17, default\n"
		"       16), rings of R descriptors (a power of two, 8..4096, default 256)\n"
		"       and a lease of MS milliseconds (100..600000, default 3000): a member\n"
		"       silent that long is reaped. Later joins read them from the memory\n"
		"       (and refuse another value).\n"
		"       \"leave\" gives this kernel's Buffers back and frees its slot.\n"
		"       \"show\" marks this kernel's slot with \"*\", and prints the counters\n"
		"       too with -s. \"exports\" lists the export slots in use: Cowbird\n"
		"       instances one member maps (owner) and another's engine serves.\n");
}

/* ---- printing ---- */

enum sh_view {
	SH_VIEW_SHOW,		/* the pool and its host table (the counters with -s) */
	SH_VIEW_HOSTS,		/* the name and the host table */
	SH_VIEW_STATS,		/* the name and the counters */
	SH_VIEW_EXPORTS,	/* the name and the export slots in use */
};

struct sh_print {
	enum sh_view view;
	bool stats;
	bool opened;
};

static void sh_print_mac(const struct nlattr *a)
{
	if (a && nla_len(a) == 6)
		print_mac(PRINT_ANY, "mac", "%-17s ", nla_data(a));
}

/* One row of the host table: "  * 0    live     1      edm-vm0  52:54:...  3  0". */
static void sh_print_host(struct nlattr *nest)
{
	struct nlattr *tb[EDM_A_SHHOST_MAX + 1];
	const char *s;
	char buf[32];
	uint64_t v64;
	uint32_t v;
	bool self;

	if (nla_parse_nested(tb, EDM_A_SHHOST_MAX, nest, NULL))
		return;
	self = tb[EDM_A_SHHOST_SELF] != NULL;
	open_json_object(NULL);
	print_string(PRINT_FP, NULL, "%s", self ? "\n  * " : "\n    ");
	if (edm_nl_get_u32(tb[EDM_A_SHHOST_SLOT], &v))
		print_uint(PRINT_ANY, "slot", "%-4u ", v);
	if (edm_nl_get_u32(tb[EDM_A_SHHOST_STATE], &v))
		print_string(PRINT_ANY, "state", "%-8s ",
			     enum_to_word(state_names, ARRAY_SIZE(state_names), v, buf,
					  sizeof(buf)));
	if (edm_nl_get_u32(tb[EDM_A_SHHOST_EPOCH], &v))
		print_uint(PRINT_ANY, "epoch", "%-6u ", v);
	s = edm_nl_get_str(tb[EDM_A_SHHOST_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", "%-16s ", *s ? s : "-");
	sh_print_mac(tb[EDM_A_SHHOST_MAC]);
	if (edm_nl_get_u32(tb[EDM_A_SHHOST_HELD], &v))
		print_uint(PRINT_ANY, "held", "%-8u ", v);
	if (edm_nl_get_u64(tb[EDM_A_SHHOST_REAPED], &v64))
		print_u64(PRINT_ANY, "reaped", "%" PRIu64, v64);
	print_bool(PRINT_JSON, "self", NULL, self);
	close_json_object();
}

/*
 * The nests of type @type in @nlh, as the JSON array @key, one row each by
 * @row; the text header @head only when there is a row.
 */
static void sh_print_table(struct nlmsghdr *nlh, int type, const char *key, const char *head,
			   void (*row)(struct nlattr *nest))
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *a;
	bool any = false;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem)
		any |= nla_type(a) == type;
	if (any)
		print_string(PRINT_FP, NULL, "%s", head);
	open_json_array(PRINT_JSON, key);
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem)
		if (nla_type(a) == type)
			row(a);
	close_json_array(PRINT_JSON, NULL);
}

static void sh_print_hosts(struct nlmsghdr *nlh)
{
	char head[128];

	/* The columns of sh_print_host()'s rows. */
	snprintf(head, sizeof(head), "\n    %-4s %-8s %-6s %-16s %-17s %-8s %s", "slot",
		 "state", "epoch", "name", "mac", "held", "reaped");
	sh_print_table(nlh, EDM_A_SHPOOL_HOST, "hosts", head, sh_print_host);
}

/* One export slot: "    0     offered  1     0      0      served   2     1      2". */
static void sh_print_export(struct nlattr *nest)
{
	static const struct {
		int attr;
		const char *key;
		const char *fmt;
	} cols[] = {
		{ EDM_A_SHEXP_INDEX,	"index",	"\n    %-5u " },
		{ EDM_A_SHEXP_OWNER,	"owner",	"%-5u " },
		{ EDM_A_SHEXP_TARGET,	"target",	"%-6u " },
		{ EDM_A_SHEXP_ENGINE,	"engine",	"%-6u " },
		{ EDM_A_SHEXP_BUFS,	"bufs",		"%-5u " },
		{ EDM_A_SHEXP_INSTANCE,	"instance",	"%-8u " },
		{ EDM_A_SHEXP_REGION,	"region",	"%-6u " },
	};
	struct nlattr *tb[EDM_A_SHEXP_MAX + 1];
	char buf[32];
	uint32_t v;
	size_t i;

	if (nla_parse_nested(tb, EDM_A_SHEXP_MAX, nest, NULL))
		return;
	open_json_object(NULL);
	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		if (edm_nl_get_u32(tb[cols[i].attr], &v))
			print_uint(PRINT_ANY, cols[i].key, cols[i].fmt, v);
		else if (cols[i].attr == EDM_A_SHEXP_ENGINE)
			print_string(PRINT_FP, NULL, "%-6s ", "-");
	}
	if (edm_nl_get_u32(tb[EDM_A_SHEXP_STATE], &v))
		print_string(PRINT_ANY, "state", "%-8s ",
			     enum_to_word(xstate_names, ARRAY_SIZE(xstate_names), v, buf,
					  sizeof(buf)));
	if (edm_nl_get_u32(tb[EDM_A_SHEXP_ANSWER], &v))
		print_string(PRINT_ANY, "answer", "%s",
			     enum_to_word(answer_names, ARRAY_SIZE(answer_names), v, buf,
					  sizeof(buf)));
	if (edm_nl_get_u32(tb[EDM_A_SHEXP_ERRNO], &v)) {
		print_uint(PRINT_JSON, "errno", NULL, v);
		print_string(PRINT_FP, NULL, " (%s)", strerror((int)v));
	}
	close_json_object();
}

static const char *const down_names[] = {
	[EDM_SHPOOL_DOWN_ENGINE_GONE]	= "engine-gone",
	[EDM_SHPOOL_DOWN_REVOKED]	= "revoked",
};
_Static_assert(ARRAY_SIZE(down_names) == __EDM_SHPOOL_DOWN_CNT,
	       "down_names[] does not match enum edm_shpool_export_down");

/* The monitor's line for an event's host (SHPOOL_REAP). */
static int sh_print_event_host(struct nlattr *nest)
{
	struct nlattr *tb[EDM_A_SHHOST_MAX + 1];
	char buf[32];
	const char *s;
	uint64_t v64;
	uint32_t v;

	if (nla_parse_nested(tb, EDM_A_SHHOST_MAX, nest, NULL) ||
	    !edm_nl_get_u32(tb[EDM_A_SHHOST_SLOT], &v))
		return -1;
	print_uint(PRINT_ANY, "slot", " slot %u", v);
	if (edm_nl_get_u32(tb[EDM_A_SHHOST_STATE], &v))
		print_string(PRINT_ANY, "state", " state %s",
			     enum_to_word(state_names, ARRAY_SIZE(state_names), v, buf,
					  sizeof(buf)));
	if (edm_nl_get_u32(tb[EDM_A_SHHOST_EPOCH], &v))
		print_uint(PRINT_ANY, "epoch", " epoch %u", v);
	s = edm_nl_get_str(tb[EDM_A_SHHOST_NAME]);
	if (s)
		print_string(PRINT_ANY, "host", " host %s", *s ? s : "-");
	if (edm_nl_get_u64(tb[EDM_A_SHHOST_REAPED], &v64))
		print_u64(PRINT_ANY, "reaped", " reaped %" PRIu64, v64);
	print_bool(PRINT_ANY, "self", tb[EDM_A_SHHOST_SELF] ? " self" : "",
		   tb[EDM_A_SHHOST_SELF] != NULL);
	return 0;
}

/* The monitor's line for an event's export (SHPOOL_EXPORT_DOWN). */
static int sh_print_event_export(struct nlattr *nest)
{
	static const struct { int attr; const char *key; const char *fmt; } cols[] = {
		{ EDM_A_SHEXP_INDEX,	"index",	" index %u" },
		{ EDM_A_SHEXP_INSTANCE,	"instance",	" instance %u" },
		{ EDM_A_SHEXP_REGION,	"region",	" region %u" },
		{ EDM_A_SHEXP_OWNER,	"owner",	" owner %u" },
		{ EDM_A_SHEXP_TARGET,	"target",	" target %u" },
	};
	struct nlattr *tb[EDM_A_SHEXP_MAX + 1];
	char buf[32];
	uint32_t v;
	size_t i;

	if (nla_parse_nested(tb, EDM_A_SHEXP_MAX, nest, NULL) ||
	    !edm_nl_get_u32(tb[EDM_A_SHEXP_INDEX], &v))
		return -1;
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		if (edm_nl_get_u32(tb[cols[i].attr], &v))
			print_uint(PRINT_ANY, cols[i].key, cols[i].fmt, v);
	if (edm_nl_get_u32(tb[EDM_A_SHEXP_DOWN], &v))
		print_string(PRINT_ANY, "down", " down %s",
			     enum_to_word(down_names, ARRAY_SIZE(down_names), v, buf,
					  sizeof(buf)));
	return 0;
}

int shpool_print_event(struct nlmsghdr *nlh)
{
	struct nlattr *tb[EDM_A_SHPOOL_MAX + 1];
	const char *s;
	uint32_t id;

	if (edm_nl_parse(nlh, tb, EDM_A_SHPOOL_MAX) < 0 ||
	    !edm_nl_get_u32(tb[EDM_A_SHPOOL_ID], &id))
		return -1;
	print_uint(PRINT_ANY, "id", "%u:", id);
	s = edm_nl_get_str(tb[EDM_A_SHPOOL_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", " name %s", s);
	if (tb[EDM_A_SHPOOL_HOST])
		return sh_print_event_host(tb[EDM_A_SHPOOL_HOST]);
	if (tb[EDM_A_SHPOOL_EXPORT])
		return sh_print_event_export(tb[EDM_A_SHPOOL_EXPORT]);
	return -1;
}

static void sh_print_exports(struct nlmsghdr *nlh)
{
	char head[128];

	/* The columns of sh_print_export()'s rows. */
	snprintf(head, sizeof(head), "\n    %-5s %-5s %-6s %-6s %-5s %-8s %-6s %-8s %s", "index",
		 "owner", "target", "engine", "bufs", "instance", "region", "state", "answer");
	sh_print_table(nlh, EDM_A_SHPOOL_EXPORT, "exports", head, sh_print_export);
}

/* The pool's own fields: two text lines, its membership and the range. */
static void sh_print_pool(struct nlattr **tb)
{
	const char *s;
	char buf[32];
	uint64_t v64;
	uint32_t v;

	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_ID], &v))
		print_uint(PRINT_ANY, "id", " id %u", v);
	s = edm_nl_get_str(tb[EDM_A_SHPOOL_DEVICE]);
	if (s)
		print_string(PRINT_ANY, "device", " dev %s", s);
	s = edm_nl_get_str(tb[EDM_A_SHPOOL_IFNAME]);
	if (s)
		print_string(PRINT_ANY, "ifname", " ifname %s", s);
	s = edm_nl_get_str(tb[EDM_A_SHPOOL_HOSTNAME]);
	if (s)
		print_string(PRINT_ANY, "hostname", " hostname %s", s);
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_SLOT], &v))
		print_uint(PRINT_ANY, "slot", " slot %u", v);
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_EPOCH], &v))
		print_uint(PRINT_ANY, "epoch", " epoch %u", v);
	if (tb[EDM_A_SHPOOL_FORMATTED])
		print_string(PRINT_FP, NULL, "%s", " formatted");
	print_bool(PRINT_JSON, "formatted", NULL, tb[EDM_A_SHPOOL_FORMATTED] != NULL);

	/* the range: absent once the PCI device went away */
	if (!tb[EDM_A_SHPOOL_SIZE])
		return;
	print_string(PRINT_FP, NULL, "%s", "\n   ");
	if (edm_nl_get_u64(tb[EDM_A_SHPOOL_SIZE], &v64)) {
		netdimm_fmt_size(buf, sizeof(buf), v64);
		print_string(PRINT_FP, NULL, " size %s", buf);
		print_u64(PRINT_JSON, "size", NULL, v64);
	}
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_BUFS], &v))
		print_uint(PRINT_ANY, "bufs", " bufs %u", v);
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_NHOSTS], &v))
		print_uint(PRINT_ANY, "nhosts", " hosts %u", v);
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_BUF_SHIFT], &v))
		print_uint(PRINT_ANY, "buf-shift", " buf-shift %u", v);
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_RING], &v))
		print_uint(PRINT_ANY, "ring", " ring %u", v);
	if (edm_nl_get_u32(tb[EDM_A_SHPOOL_LEASE_MS], &v))
		print_uint(PRINT_ANY, "lease-ms", " lease-ms %u", v);
}

static int sh_print(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[EDM_A_SHPOOL_MAX + 1];
	struct sh_print *p = arg;
	const char *s;

	if (edm_nl_parse(nlh, tb, EDM_A_SHPOOL_MAX) < 0)
		return 0;
	if (!p->opened) {
		open_json_array(PRINT_JSON, NULL);
		p->opened = true;
	}
	open_json_object(NULL);
	s = edm_nl_get_str(tb[EDM_A_SHPOOL_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", "%s:", s);
	if (p->view == SH_VIEW_SHOW)
		sh_print_pool(tb);
	if (p->view == SH_VIEW_STATS || (p->view == SH_VIEW_SHOW && p->stats))
		print_stat_nest(tb[EDM_A_SHPOOL_STATS], sh_stats, ARRAY_SIZE(sh_stats));
	if (p->view == SH_VIEW_SHOW || p->view == SH_VIEW_HOSTS)
		sh_print_hosts(nlh);
	if (p->view == SH_VIEW_EXPORTS)
		sh_print_exports(nlh);
	close_json_object();
	print_nl();
	return 0;
}

static int sh_talk(struct nl_msg *msg, struct sh_print *p)
{
	int ret;

	if (!p)
		return edm_nl_talk(msg, &sh_attrs, NULL, NULL) ? 1 : 0;
	ret = edm_nl_talk(msg, &sh_attrs, sh_print, p);
	if (!ret && !p->opened) {
		open_json_array(PRINT_JSON, NULL);
		p->opened = true;
	}
	if (p->opened)
		close_json_array(PRINT_JSON, NULL);
	return ret ? 1 : 0;
}

/* ---- requests ---- */

/* A string of 1 .. max - 1 characters, or an error. */
static int bad_str(const char *what, const char *s, size_t max)
{
	if (*s && strlen(s) < max)
		return 0;
	return edm_err("invalid %s \"%s\"", what, s);
}

/* "help" as NAME or where a keyword goes (every other word after NAME). */
static void help_scan(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i = i ? i + 2 : 1) {
		if (is_help(argv[i])) {
			sh_usage(stdout);
			exit(0);
		}
	}
}

/* join's keywords, "dev" required, into @msg; 0 or -1 (printed). */
static int sh_parse_join(int argc, char **argv, struct nl_msg *msg)
{
	static const struct {
		const char *word;
		int attr;
		size_t max;		/* a string of fewer characters; 0: a u32 */
	} kws[] = {
		{ "dev",	EDM_A_SHPOOL_DEVICE,	SH_DEVICE_LEN },
		{ "ifname",	EDM_A_SHPOOL_IFNAME,	IFNAMSIZ },
		{ "hostname",	EDM_A_SHPOOL_HOSTNAME,	SH_HOSTNAME_LEN },
		{ "hosts",	EDM_A_SHPOOL_NHOSTS,	0 },
		{ "buf-shift",	EDM_A_SHPOOL_BUF_SHIFT,	0 },
		{ "ring",	EDM_A_SHPOOL_RING,	0 },
		{ "lease-ms",	EDM_A_SHPOOL_LEASE_MS,	0 },
	};
	bool seen[ARRAY_SIZE(kws)] = { false };
	unsigned int k;
	uint32_t v;

	for (; argc > 0; argc -= 2, argv += 2) {
		for (k = 0; k < ARRAY_SIZE(kws); k++)
			if (!strcmp(kws[k].word, *argv))
				break;
		if (k == ARRAY_SIZE(kws))
			return unknown_arg("shpool", *argv);
		if (need_arg(argc, argv))
			return -1;
		if (seen[k])
			return dup_arg(*argv);
		seen[k] = true;
		if (kws[k].max) {
			if (!*argv[1] || strlen(argv[1]) >= kws[k].max)
				return edm_err("invalid %s \"%s\" (expected 1 to %zu characters)",
					       kws[k].word, argv[1], kws[k].max - 1);
			if (nla_put_string(msg, kws[k].attr, argv[1]) < 0)
				return -1;
			continue;
		}
		if (parse_u32(argv[1], &v))
			return edm_err("invalid %s \"%s\"", kws[k].word, argv[1]);
		if (nla_put_u32(msg, kws[k].attr, v) < 0)
			return -1;
	}
	if (!seen[0])
		return edm_err("\"dev\" is required, try \"edmctl shpool help\"");
	return 0;
}

/* A request of @cmd naming NAME (argv[0]), or a dump when there is none and !need. */
static struct nl_msg *sh_req(uint8_t cmd, int argc, char **argv, bool need)
{
	struct nl_msg *msg;

	if (argc < 1 && need) {
		edm_err("a shared pool name is required, try \"edmctl shpool help\"");
		return NULL;
	}
	if (argc >= 1 && bad_str("name", argv[0], EDM_NAME_LEN))
		return NULL;
	if (edm_nl_open())
		return NULL;
	msg = edm_nl_req(cmd, argc < 1 ? NLM_F_DUMP : 0);
	if (msg && argc >= 1 && nla_put_string(msg, EDM_A_SHPOOL_NAME, argv[0]) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int sh_get(int argc, char **argv, enum sh_view view)
{
	struct sh_print p = { .view = view, .stats = opts.stats > 0 };
	struct nl_msg *msg;

	help_scan(argc, argv);
	if (argc > 1)
		return unknown_arg("shpool", argv[1]), 1;
	msg = sh_req(EDM_CMD_SHPOOL_GET, argc, argv, false);
	return msg ? sh_talk(msg, &p) : 1;
}

static int sh_show(int argc, char **argv)
{
	return sh_get(argc, argv, SH_VIEW_SHOW);
}

static int sh_hosts(int argc, char **argv)
{
	return sh_get(argc, argv, SH_VIEW_HOSTS);
}

static int sh_exports(int argc, char **argv)
{
	return sh_get(argc, argv, SH_VIEW_EXPORTS);
}

static int sh_stats_cmd(int argc, char **argv)
{
	return sh_get(argc, argv, SH_VIEW_STATS);
}

static int sh_join(int argc, char **argv)
{
	struct sh_print p = { .view = SH_VIEW_SHOW };
	struct nl_msg *dry, *msg;
	int err;

	help_scan(argc, argv);
	if (argc < 1)
		return edm_err("a shared pool name is required, try \"edmctl shpool help\""), 1;
	/* Every word checked before the kernel is asked (it may not be there). */
	if (bad_str("name", argv[0], EDM_NAME_LEN))
		return 1;
	dry = nlmsg_alloc();
	if (!dry)
		return edm_err("out of memory"), 1;
	err = sh_parse_join(argc - 1, argv + 1, dry);
	nlmsg_free(dry);
	if (err)
		return 1;
	msg = sh_req(EDM_CMD_SHPOOL_JOIN, argc, argv, true);
	if (!msg)
		return 1;
	if (sh_parse_join(argc - 1, argv + 1, msg)) {
		nlmsg_free(msg);
		return 1;
	}
	return sh_talk(msg, &p);
}

static int sh_leave(int argc, char **argv)
{
	struct nl_msg *msg;

	help_scan(argc, argv);
	if (argc > 1)
		return unknown_arg("shpool", argv[1]), 1;
	msg = sh_req(EDM_CMD_SHPOOL_LEAVE, argc, argv, true);
	return msg ? sh_talk(msg, NULL) : 1;
}

static const struct edm_cmd sh_cmds[] = {
	{ "show",	sh_show },
	{ "list",	sh_show },
	{ "hosts",	sh_hosts },
	{ "exports",	sh_exports },
	{ "stats",	sh_stats_cmd },
	{ "join",	sh_join },
	{ "leave",	sh_leave },
	{ NULL,		NULL },
};

const struct edm_object obj_shpool = {
	.name	= "shpool",
	.usage	= sh_usage,
	.cmds	= sh_cmds,
	.dflt	= sh_show,
};
