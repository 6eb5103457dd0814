// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl netdimm: create, show and delete NetDIMMs, and show their NETi
 * zones and counters.
 *
 * Every command but "del" prints NETDIMM_GET-shaped messages through one
 * printer, netdimm_print_msg(), which prints a view of the message: the
 * device, its zone, its counters. Text and JSON come from the same print_*()
 * calls; sizes are bytes in JSON and "64M" in text, the lower device is an
 * ifindex in JSON and a name in text.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_netdimm.h"
#include "print.h"

static const char *const rx_mode_names[] = {
	[EDM_NETDIMM_RX_UNSPEC]		= "unspec",
	[EDM_NETDIMM_RX_ZEROCOPY]	= "zerocopy",
	[EDM_NETDIMM_RX_CLONE]		= "clone",
};
_Static_assert(ARRAY_SIZE(rx_mode_names) == __EDM_NETDIMM_RX_CNT,
	       "rx_mode_names[] does not match enum edm_netdimm_rx_mode");

/* Command-line words of the EDM_A_NETDIMM_* attributes, for kernel errors. */
static const char *const nd_attr_words[] = {
	[EDM_A_NETDIMM_ID]		= "id",
	[EDM_A_NETDIMM_NAME]		= "name",
	[EDM_A_NETDIMM_SIZE]		= "size",
	[EDM_A_NETDIMM_PEER]		= "peer",
	[EDM_A_NETDIMM_LOWER]		= "lower",
	[EDM_A_NETDIMM_POLL_US]		= "poll-us",
	[EDM_A_NETDIMM_RX_MODE]		= "rx-mode",
	[EDM_A_NETDIMM_WIRE_MBPS]	= "wire-rate",
	[EDM_A_NETDIMM_WIRE_DELAY_NS]	= "wire-delay",
	[EDM_A_NETDIMM_GEOM]		= "geometry",
	[EDM_A_NETDIMM_IFINDEX]		= "ifindex",
	[EDM_A_NETDIMM_ZONE]		= "zone",
	[EDM_A_NETDIMM_STATS]		= "stats",
	[EDM_A_NETDIMM_NUMA_NODE]	= "node",
};
_Static_assert(ARRAY_SIZE(nd_attr_words) == __EDM_A_NETDIMM_CNT,
	       "nd_attr_words[] does not match the EDM_A_NETDIMM_* attributes");

static const struct edm_nl_attr_names nd_attrs = {
	.names = nd_attr_words,
	.count = ARRAY_SIZE(nd_attr_words),
};

/* u32 keywords of "add": top-level attributes or geometry (nested). */
struct nd_u32_arg {
	const char *word;
	int attr;
	bool geom;		/* in EDM_A_NETDIMM_GEOM */
	const char *zero;	/* a word also accepted for 0, or NULL */
};

static const struct nd_u32_arg nd_u32_args[] = {
	{ "poll-us",	EDM_A_NETDIMM_POLL_US,		false,	NULL },
	{ "wire-rate",	EDM_A_NETDIMM_WIRE_MBPS,	false,	"unlimited" },
	{ "wire-delay",	EDM_A_NETDIMM_WIRE_DELAY_NS,	false,	NULL },
	{ "node",	EDM_A_NETDIMM_NUMA_NODE,	false,	NULL },
	{ "row-bytes",	EDM_A_GEOM_ROW_BYTES,		true,	NULL },
	{ "devices",	EDM_A_GEOM_DEVICES,		true,	NULL },
	{ "banks",	EDM_A_GEOM_BANKS,		true,	NULL },
	{ "subarrays",	EDM_A_GEOM_SUBARRAYS,		true,	NULL },
	{ "rows",	EDM_A_GEOM_ROWS,		true,	NULL },
};

/* Geometry fields, as printed: JSON key and text word. */
struct nd_field {
	int attr;
	const char *key;
	const char *word;
};

static const struct nd_field nd_geom_fields[] = {
	{ EDM_A_GEOM_ROW_BYTES,	"row_bytes",	"row-bytes" },
	{ EDM_A_GEOM_DEVICES,	"devices",	"devices" },
	{ EDM_A_GEOM_BANKS,	"banks",	"banks" },
	{ EDM_A_GEOM_SUBARRAYS,	"subarrays",	"subarrays" },
	{ EDM_A_GEOM_ROWS,	"rows",		"rows" },
};
_Static_assert(ARRAY_SIZE(nd_geom_fields) == EDM_A_GEOM_MAX,
	       "nd_geom_fields[] does not match the EDM_A_GEOM_* attributes");

/*
 * Counters in display order. Text prints one line per group ("tx packets 1
 * bytes 60 ..."); an empty group prints its words without a heading.
 */
struct nd_stat {
	int attr;
	const char *key;	/* JSON: the attribute name in lower_snake_case */
	const char *group;
	const char *word;
};

static const struct nd_stat nd_stats[] = {
	{ EDM_A_NDSTAT_TX_PACKETS,        "tx_packets",       "tx",     "packets" },
	{ EDM_A_NDSTAT_TX_BYTES,          "tx_bytes",         "tx",     "bytes" },
	{ EDM_A_NDSTAT_TX_FAST_PATH,      "tx_fast_path",     "tx",     "fast-path" },
	{ EDM_A_NDSTAT_TX_COPY_NEEDED,    "tx_copy_needed",   "tx",     "copy-needed" },
	{ EDM_A_NDSTAT_TX_SOCK_HINTS,     "tx_sock_hints",    "tx",     "sock-hints" },
	{ EDM_A_NDSTAT_TX_ZONE_FALLBACK,  "tx_zone_fallback", "tx",     "zone-fallback" },
	{ EDM_A_NDSTAT_TX_DROPS,          "tx_drops",         "tx",     "drops" },
	{ EDM_A_NDSTAT_RX_PACKETS,        "rx_packets",       "rx",     "packets" },
	{ EDM_A_NDSTAT_RX_BYTES,          "rx_bytes",         "rx",     "bytes" },
	{ EDM_A_NDSTAT_RX_ZEROCOPY,       "rx_zerocopy",      "rx",     "zerocopy" },
	{ EDM_A_NDSTAT_RX_CLONED,         "rx_cloned",        "rx",     "cloned" },
	{ EDM_A_NDSTAT_RX_ZONE_FALLBACK,  "rx_zone_fallback", "rx",     "zone-fallback" },
	{ EDM_A_NDSTAT_RX_DROPS,          "rx_drops",         "rx",     "drops" },
	{ EDM_A_NDSTAT_HOST_COPIES,       "host_copies",      "copies", "host" },
	{ EDM_A_NDSTAT_WIRE_COPIES,       "wire_copies",      "copies", "wire" },
	{ EDM_A_NDSTAT_ALLOC_SAME,        "alloc_same",       "alloc",  "same" },
	{ EDM_A_NDSTAT_ALLOC_OTHER,       "alloc_other",      "alloc",  "other" },
	{ EDM_A_NDSTAT_ALLOC_FAIL,        "alloc_fail",       "alloc",  "fail" },
	{ EDM_A_NDSTAT_CACHE_HITS,        "cache_hits",       "cache",  "hits" },
	{ EDM_A_NDSTAT_CACHE_MISSES,      "cache_misses",     "cache",  "misses" },
	{ EDM_A_NDSTAT_CACHE_REFILLS,     "cache_refills",    "cache",  "refills" },
	{ EDM_A_NDSTAT_CLONE_FPM,         "clone_fpm",        "clone",  "fpm" },
	{ EDM_A_NDSTAT_CLONE_PSM,         "clone_psm",        "clone",  "psm" },
	{ EDM_A_NDSTAT_CLONE_GCM,         "clone_gcm",        "clone",  "gcm" },
	{ EDM_A_NDSTAT_CLONE_BYTES,       "clone_bytes",      "clone",  "bytes" },
	{ EDM_A_NDSTAT_CLONE_MODELED_NS,  "clone_modeled_ns", "clone",  "modeled-ns" },
	{ EDM_A_NDSTAT_RECLAIMED,         "reclaimed",        "",       "reclaimed" },
	{ EDM_A_NDSTAT_POLLS,             "polls",            "",       "polls" },
	{ EDM_A_NDSTAT_RX_INLINE,         "rx_inline",        "",       "rx-inline" },
};
/* Every counter but UNSPEC and PAD; the unit tests check each is there once. */
_Static_assert(ARRAY_SIZE(nd_stats) == __EDM_A_NDSTAT_CNT - 2,
	       "nd_stats[] does not match the EDM_A_NDSTAT_* attributes");

unsigned int netdimm_stat_count(void)
{
	return ARRAY_SIZE(nd_stats);
}

int netdimm_stat_attr(unsigned int i)
{
	return nd_stats[i].attr;
}

const char *netdimm_stat_key(unsigned int i)
{
	return nd_stats[i].key;
}

static void nd_usage(FILE *fp)
{
	char modes[128];

	enum_join(modes, sizeof(modes), rx_mode_names,
		  ARRAY_SIZE(rx_mode_names), " | ");
	fprintf(fp,
		"Usage: edmctl netdimm show [ SELECTOR ]\n"
		"       edmctl netdimm add [ name ] NAME size SIZE [ peer PEER | lower DEV ]\n"
		"                          [ poll-us USEC ] [ rx-mode RXMODE ]\n"
		"                          [ wire-rate { MBIT | unlimited } ] [ wire-delay NSEC ]\n"
		"                          [ node NODE ] [ GEOMETRY ]\n"
		"       edmctl netdimm del SELECTOR\n"
		"       edmctl netdimm zone show [ SELECTOR ]\n"
		"       edmctl netdimm stats [ SELECTOR ]\n"
		"       edmctl netdimm help\n"
		"where  SELECTOR := { [ name ] NAME | id ID }\n"
		"       SIZE := BYTES[ K | M | G ] (binary units: 64M is 64 MiB)\n"
		"       RXMODE := { %s }\n"
		"       GEOMETRY := [ row-bytes N ] [ devices N ] [ banks N ]\n"
		"                   [ subarrays N ] [ rows N ]\n"
		"       NAME and PEER are 1 to %d characters of [A-Za-z0-9_.-], starting\n"
		"       with a letter or a digit; DEV is a network device's name.\n"
		"\"show\" prints the counters too with -s; \"del\" also deletes the peer.\n"
		"Commands may be abbreviated; \"list\" and \"delete\" are aliases.\n",
		modes, EDM_NAME_LEN - 1);
}

static void help_exit(void)
{
	nd_usage(stdout);
	exit(0);
}

/* ---- sizes ---- */

int netdimm_parse_size(const char *s, uint64_t *v)
{
	unsigned long long val;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	val = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	default:
		break;
	}
	if (shift)
		end++;
	if (*end || !val || val > (UINT64_MAX >> shift))
		return -1;
	*v = (uint64_t)val << shift;
	return 0;
}

void netdimm_fmt_size(char *buf, size_t len, uint64_t v)
{
	static const struct {
		unsigned int shift;
		char unit;
	} units[] = { { 30, 'G' }, { 20, 'M' }, { 10, 'K' } };
	unsigned int i;

	for (i = 0; v && i < ARRAY_SIZE(units); i++) {
		if (!(v & ((1ULL << units[i].shift) - 1))) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> units[i].shift,
				 units[i].unit);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
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

/* A nest's attributes into tb[0..maxtype]; false if absent or malformed. */
static bool get_nest(struct nlattr *a, struct nlattr **tb, int maxtype)
{
	return a && nla_parse_nested(tb, maxtype, a, NULL) == 0;
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

static void nd_print_geom(struct nlattr *geom)
{
	struct nlattr *tb[EDM_A_GEOM_MAX + 1];
	unsigned int i;
	uint32_t v;

	if (!get_nest(geom, tb, EDM_A_GEOM_MAX))
		return;
	open_json_object("geometry");
	print_string(PRINT_FP, NULL, "%s", "\n    geometry");
	for (i = 0; i < ARRAY_SIZE(nd_geom_fields); i++) {
		if (!edm_nl_get_u32(tb[nd_geom_fields[i].attr], &v))
			continue;
		print_string(PRINT_FP, NULL, " %s", nd_geom_fields[i].word);
		print_uint(PRINT_ANY, nd_geom_fields[i].key, " %u", v);
	}
	close_json_object();
}

/* sep: text before the "zone" word (a line break, or a space). */
static void nd_print_zone(struct nlattr *zone, const char *sep)
{
	struct nlattr *tb[EDM_A_ZONE_MAX + 1];
	const char *s;
	uint64_t v64;
	uint32_t v;

	if (!get_nest(zone, tb, EDM_A_ZONE_MAX))
		return;
	open_json_object("zone");
	print_string(PRINT_FP, NULL, "%szone", sep);
	if (edm_nl_get_u32(tb[EDM_A_ZONE_INDEX], &v))
		print_uint(PRINT_ANY, "index", " index %u", v);
	s = edm_nl_get_str(tb[EDM_A_ZONE_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", " name %s", s);
	if (get_u64(tb[EDM_A_ZONE_SIZE], &v64))
		print_size("size", "size", v64);
	if (get_u64(tb[EDM_A_ZONE_FREE], &v64))
		print_size("free", "free", v64);
	/* Pages, not bytes. */
	if (get_u64(tb[EDM_A_ZONE_LENT], &v64))
		print_u64(PRINT_ANY, "lent", " lent %" PRIu64, v64);
	if (get_u64(tb[EDM_A_ZONE_CACHED], &v64))
		print_u64(PRINT_ANY, "cached", " cached %" PRIu64, v64);
	if (edm_nl_get_u32(tb[EDM_A_ZONE_SUBARRAYS], &v))
		print_uint(PRINT_ANY, "subarrays", " subarrays %u", v);
	if (edm_nl_get_u32(tb[EDM_A_ZONE_NUMA_NODE], &v))
		print_uint(PRINT_ANY, "numa_node", " node %u", v);
	nd_print_geom(tb[EDM_A_ZONE_GEOM]);
	close_json_object();
}

static void nd_print_stats(struct nlattr *stats)
{
	struct nlattr *tb[EDM_A_NDSTAT_MAX + 1];
	const char *group = NULL;
	unsigned int i;
	bool space;
	uint64_t v;

	if (!get_nest(stats, tb, EDM_A_NDSTAT_MAX))
		return;
	open_json_object("stats");
	for (i = 0; i < ARRAY_SIZE(nd_stats); i++) {
		const struct nd_stat *st = &nd_stats[i];

		if (!get_u64(tb[st->attr], &v))
			continue;
		space = true;
		if (!group || strcmp(group, st->group)) {
			/* A new text line: "    tx packets 1", "    polls 3". */
			print_string(PRINT_FP, NULL, "\n    %s", st->group);
			space = *st->group;
			group = st->group;
		}
		print_string(PRINT_FP, NULL, space ? " %s" : "%s", st->word);
		print_u64(PRINT_ANY, st->key, " %" PRIu64, v);
	}
	close_json_object();
}

static void nd_print_lower(uint32_t ifindex)
{
	char name[IF_NAMESIZE];

	print_uint(PRINT_JSON, "lower", NULL, ifindex);
	/* In text the name, as "ip link" prints its "link". */
	if (if_indextoname(ifindex, name))
		print_string(PRINT_FP, NULL, " lower %s", name);
	else
		print_uint(PRINT_FP, NULL, " lower if%u", ifindex);
}

/* The device's own fields: "1: name nd0 ifindex 5 peer nd1 size 64M ...". */
static void nd_print_dev(struct nlattr **tb)
{
	char buf[32];
	const char *s;
	uint64_t v64;
	bool has_id;
	uint32_t v;

	has_id = edm_nl_get_u32(tb[EDM_A_NETDIMM_ID], &v);
	if (has_id)
		print_uint(PRINT_ANY, "id", "%u:", v);
	s = edm_nl_get_str(tb[EDM_A_NETDIMM_NAME]);
	if (s)
		print_string(PRINT_ANY, "name", has_id ? " name %s" : "name %s", s);
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_IFINDEX], &v))
		print_uint(PRINT_ANY, "ifindex", " ifindex %u", v);
	s = edm_nl_get_str(tb[EDM_A_NETDIMM_PEER]);
	if (s)
		print_string(PRINT_ANY, "peer", " peer %s", s);
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_LOWER], &v))
		nd_print_lower(v);
	/* The zone's size, as "add" takes it; the zone prints it too. */
	if (get_u64(tb[EDM_A_NETDIMM_SIZE], &v64))
		print_size("size", "size", v64);
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_POLL_US], &v))
		print_uint(PRINT_ANY, "poll_us", " poll-us %u", v);
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_RX_MODE], &v))
		print_string(PRINT_ANY, "rx_mode", " rx-mode %s",
			     enum_to_word(rx_mode_names, ARRAY_SIZE(rx_mode_names),
					  v, buf, sizeof(buf)));
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_WIRE_MBPS], &v)) {
		print_uint(PRINT_JSON, "wire_mbps", NULL, v);
		if (v)
			print_uint(PRINT_FP, NULL, " wire-rate %u", v);
		else
			print_string(PRINT_FP, NULL, " wire-rate %s", "unlimited");
	}
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_WIRE_DELAY_NS], &v))
		print_uint(PRINT_ANY, "wire_delay_ns", " wire-delay %u", v);
	if (edm_nl_get_u32(tb[EDM_A_NETDIMM_NUMA_NODE], &v))
		print_uint(PRINT_ANY, "numa_node", " node %u", v);
}

/* "nd0:" heading the zone and stats views. */
static void nd_print_name(struct nlattr **tb)
{
	const char *s = edm_nl_get_str(tb[EDM_A_NETDIMM_NAME]);

	if (s)
		print_string(PRINT_ANY, "name", "%s:", s);
}

static void nd_print(struct nlattr **tb, enum netdimm_view view, bool stats)
{
	switch (view) {
	case NETDIMM_VIEW_SHOW:
		nd_print_dev(tb);
		nd_print_zone(tb[EDM_A_NETDIMM_ZONE], "\n    ");
		if (stats)
			nd_print_stats(tb[EDM_A_NETDIMM_STATS]);
		break;
	case NETDIMM_VIEW_EVENT:
		nd_print_dev(tb);
		break;
	case NETDIMM_VIEW_ZONE:
		nd_print_name(tb);
		nd_print_zone(tb[EDM_A_NETDIMM_ZONE], " ");
		break;
	case NETDIMM_VIEW_STATS:
		nd_print_name(tb);
		nd_print_stats(tb[EDM_A_NETDIMM_STATS]);
		break;
	}
}

int netdimm_print_msg(struct nlmsghdr *nlh, enum netdimm_view view, bool stats)
{
	struct nlattr *tb[EDM_A_NETDIMM_MAX + 1];

	if (edm_nl_parse(nlh, tb, EDM_A_NETDIMM_MAX) < 0)
		return -1;
	nd_print(tb, view, stats);
	return 0;
}

int netdimm_print_event(struct nlmsghdr *nlh)
{
	return netdimm_print_msg(nlh, NETDIMM_VIEW_EVENT, false);
}

/* ---- a list of NetDIMMs: an array in JSON, one entry each in text ---- */

struct nd_list {
	bool opened;
	enum netdimm_view view;
	bool stats;
};

static int nd_list_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[EDM_A_NETDIMM_MAX + 1];
	struct nd_list *l = arg;

	if (edm_nl_parse(nlh, tb, EDM_A_NETDIMM_MAX) < 0) {
		edm_warn("ignoring a malformed NetDIMM message");
		return 0;
	}
	/* Opened on the first device so a failed request prints nothing. */
	if (!l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	open_json_object(NULL);
	nd_print(tb, l->view, l->stats);
	close_json_object();
	print_nl();
	return 0;
}

static int nd_list_run(struct nl_msg *msg, enum netdimm_view view)
{
	struct nd_list l = { .view = view, .stats = opts.stats > 0 };
	int ret;

	ret = edm_nl_talk(msg, &nd_attrs, nd_list_cb, &l);
	if (!ret && !l.opened) {
		open_json_array(PRINT_JSON, NULL);
		l.opened = true;
	}
	/* Close even on error: what was printed stays valid JSON. */
	if (l.opened)
		close_json_array(PRINT_JSON, NULL);
	return ret ? 1 : 0;
}

/* ---- arguments ---- */

static int check_name(const char *what, const char *name)
{
	if (!*name)
		return edm_err("%s must not be empty", what);
	if (strlen(name) >= EDM_NAME_LEN)
		return edm_err("%s \"%s\" is too long (at most %d characters)",
			       what, name, EDM_NAME_LEN - 1);
	return 0;
}

struct nd_sel {
	bool has_id;
	uint32_t id;
	const char *name;
};

/*
 * "name NAME" or "id ID" at argv, or a bare NAME when first is set (the
 * first word, unless it is "help"): words used, 0 if none, -1 on error.
 */
static int parse_sel_word(int argc, char **argv, bool first, struct nd_sel *s)
{
	const char *name;
	int n;

	if (!strcmp(*argv, "id")) {
		if (need_arg(argc, argv))
			return -1;
		if (s->has_id)
			return dup_arg("id");
		if (parse_u32(argv[1], &s->id) || !s->id)
			return edm_err("invalid device id \"%s\"", argv[1]);
		s->has_id = true;
		return 2;
	}
	if (!strcmp(*argv, "name")) {
		if (need_arg(argc, argv))
			return -1;
		name = argv[1];
		n = 2;
	} else if (first && strcmp(*argv, "help")) {
		name = *argv;
		n = 1;
	} else {
		return 0;
	}
	if (s->name)
		return dup_arg("name");
	if (check_name("device name", name))
		return -1;
	s->name = name;
	return n;
}

/* "[ SELECTOR ]" as the only arguments; required: one must be given. */
static int parse_sel(int argc, char **argv, struct nd_sel *s, bool required)
{
	bool first = true;
	int n;

	while (argc > 0) {
		n = parse_sel_word(argc, argv, first, s);
		if (n < 0)
			return -1;
		if (!n) {
			if (is_help(*argv))
				help_exit();
			return unknown_arg("netdimm", *argv);
		}
		argc -= n;
		argv += n;
		first = false;
	}
	if (s->has_id && s->name)
		return edm_err("\"id\" and \"name\" are mutually exclusive");
	if (required && !s->has_id && !s->name)
		return edm_err("a device name or \"id ID\" is required, "
			       "try \"edmctl netdimm help\"");
	return 0;
}

static int put_sel(struct nl_msg *msg, const struct nd_sel *s)
{
	if (s->has_id && nla_put_u32(msg, EDM_A_NETDIMM_ID, s->id) < 0)
		return -1;
	if (s->name && nla_put_string(msg, EDM_A_NETDIMM_NAME, s->name) < 0)
		return -1;
	return 0;
}

struct nd_new {
	const char *name;
	const char *peer;
	const char *lower;		/* a netdev name, resolved after parsing */
	uint32_t lower_ifindex;
	bool has_size, has_rx_mode;
	uint64_t size;
	uint32_t rx_mode;
	bool has_u32[ARRAY_SIZE(nd_u32_args)];
	uint32_t u32[ARRAY_SIZE(nd_u32_args)];
};

/* A keyword with a u32 value: words used (2), 0 if not one, -1 on error. */
static int parse_u32_arg(int argc, char **argv, struct nd_new *nd)
{
	const struct nd_u32_arg *a;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nd_u32_args); i++) {
		a = &nd_u32_args[i];
		if (strcmp(*argv, a->word))
			continue;
		if (need_arg(argc, argv))
			return -1;
		if (nd->has_u32[i])
			return dup_arg(a->word);
		if (a->zero && !strcmp(argv[1], a->zero))
			nd->u32[i] = 0;
		else if (parse_u32(argv[1], &nd->u32[i]))
			return edm_err("invalid %s \"%s\" (expected a number%s%s)",
				       a->word, argv[1], a->zero ? " or " : "",
				       a->zero ? a->zero : "");
		nd->has_u32[i] = true;
		return 2;
	}
	return 0;
}

/* A keyword with a string value: words used (2), 0 if not one, -1. */
static int parse_str_arg(int argc, char **argv, struct nd_new *nd)
{
	const char **dst;

	if (!strcmp(*argv, "name"))
		dst = &nd->name;
	else if (!strcmp(*argv, "peer"))
		dst = &nd->peer;
	else if (!strcmp(*argv, "lower"))
		dst = &nd->lower;
	else
		return 0;
	if (need_arg(argc, argv))
		return -1;
	if (*dst)
		return dup_arg(*argv);
	if (dst == &nd->name && check_name("device name", argv[1]))
		return -1;
	if (dst == &nd->peer && check_name("peer name", argv[1]))
		return -1;
	*dst = argv[1];
	return 2;
}

static int parse_new_word(int argc, char **argv, bool first, struct nd_new *nd)
{
	int n;

	if (!strcmp(*argv, "size")) {
		if (need_arg(argc, argv))
			return -1;
		if (nd->has_size)
			return dup_arg("size");
		if (netdimm_parse_size(argv[1], &nd->size))
			return edm_err("invalid size \"%s\" (expected bytes, 1 or more, "
				       "with an optional K, M or G suffix)", argv[1]);
		nd->has_size = true;
		return 2;
	}
	if (!strcmp(*argv, "rx-mode")) {
		if (parse_enum_arg(argc, argv, "rx mode", rx_mode_names,
				   ARRAY_SIZE(rx_mode_names), &nd->has_rx_mode,
				   &nd->rx_mode))
			return -1;
		return 2;
	}
	n = parse_str_arg(argc, argv, nd);
	if (!n)
		n = parse_u32_arg(argc, argv, nd);
	if (n)
		return n;
	/* "add NAME ...": a bare first word is the name. */
	if (first && strcmp(*argv, "help")) {
		if (check_name("device name", *argv))
			return -1;
		nd->name = *argv;
		return 1;
	}
	return 0;
}

/* Checks across keywords; resolves the lower device. */
static int check_new(struct nd_new *nd)
{
	if (!nd->name)
		return edm_err("a device name is required, try \"edmctl netdimm help\"");
	if (!nd->has_size)
		return edm_err("\"size\" is required, try \"edmctl netdimm help\"");
	if (nd->peer && nd->lower)
		return edm_err("\"peer\" and \"lower\" are mutually exclusive: "
			       "a NetDIMM has one wire");
	if (nd->peer && !strcmp(nd->peer, nd->name))
		return edm_err("the peer needs a name of its own, not \"%s\"", nd->name);
	if (nd->lower) {
		/* In the namespace of -n, which main() has entered. */
		nd->lower_ifindex = if_nametoindex(nd->lower);
		if (!nd->lower_ifindex)
			return edm_err("cannot find network device \"%s\"", nd->lower);
	}
	return 0;
}

static int put_new(struct nl_msg *msg, const struct nd_new *nd)
{
	struct nlattr *geom = NULL;
	unsigned int i;

	if (nla_put_string(msg, EDM_A_NETDIMM_NAME, nd->name) < 0 ||
	    nla_put_u64(msg, EDM_A_NETDIMM_SIZE, nd->size) < 0 ||
	    (nd->peer && nla_put_string(msg, EDM_A_NETDIMM_PEER, nd->peer) < 0) ||
	    (nd->lower && nla_put_u32(msg, EDM_A_NETDIMM_LOWER, nd->lower_ifindex) < 0) ||
	    (nd->has_rx_mode && nla_put_u32(msg, EDM_A_NETDIMM_RX_MODE, nd->rx_mode) < 0))
		return -1;
	for (i = 0; i < ARRAY_SIZE(nd_u32_args); i++) {
		if (!nd->has_u32[i] || nd_u32_args[i].geom)
			continue;
		if (nla_put_u32(msg, nd_u32_args[i].attr, nd->u32[i]) < 0)
			return -1;
	}
	for (i = 0; i < ARRAY_SIZE(nd_u32_args); i++) {
		if (!nd->has_u32[i] || !nd_u32_args[i].geom)
			continue;
		if (!geom)
			geom = edm_nl_nest_start(msg, EDM_A_NETDIMM_GEOM);
		if (!geom || nla_put_u32(msg, nd_u32_args[i].attr, nd->u32[i]) < 0)
			return -1;
	}
	if (geom)
		edm_nl_nest_end(msg, geom);
	return 0;
}

/* ---- commands ---- */

static int nd_get(int argc, char **argv, enum netdimm_view view)
{
	struct nd_sel s = { .has_id = false };
	struct nl_msg *msg;
	bool one;

	if (parse_sel(argc, argv, &s, false))
		return 1;
	one = s.has_id || s.name;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_NETDIMM_GET, one ? 0 : NLM_F_DUMP);
	if (!msg)
		return 1;
	if (put_sel(msg, &s)) {
		nlmsg_free(msg);
		return edm_err("netlink message too long"), 1;
	}
	return nd_list_run(msg, view);
}

static int nd_show(int argc, char **argv)
{
	return nd_get(argc, argv, NETDIMM_VIEW_SHOW);
}

static int nd_stats_cmd(int argc, char **argv)
{
	return nd_get(argc, argv, NETDIMM_VIEW_STATS);
}

/* A non-empty prefix of word. */
static bool prefix_of(const char *s, const char *word)
{
	size_t len = strlen(s);

	return len && !strncmp(s, word, len);
}

/* "zone [ show [ SELECTOR ] ]": zones have one command for now. */
static int nd_zone(int argc, char **argv)
{
	if (argc > 0) {
		if (is_help(*argv))
			help_exit();
		if (!prefix_of(*argv, "show") && !prefix_of(*argv, "list")) {
			fprintf(stderr, "Command \"%s\" not found, try \"edmctl netdimm help\".\n",
				*argv);
			return 1;
		}
		argc--;
		argv++;
	}
	return nd_get(argc, argv, NETDIMM_VIEW_ZONE);
}

static int nd_add(int argc, char **argv)
{
	struct nd_new nd = { .name = NULL };
	struct nl_msg *msg;
	bool first = true;
	int n;

	while (argc > 0) {
		n = parse_new_word(argc, argv, first, &nd);
		if (n < 0)
			return 1;
		if (!n) {
			if (is_help(*argv))
				help_exit();
			return unknown_arg("netdimm", *argv), 1;
		}
		argc -= n;
		argv += n;
		first = false;
	}
	if (check_new(&nd))
		return 1;

	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_NETDIMM_NEW, 0);
	if (!msg)
		return 1;
	if (put_new(msg, &nd)) {
		nlmsg_free(msg);
		return edm_err("netlink message too long"), 1;
	}
	return nd_list_run(msg, NETDIMM_VIEW_SHOW);
}

static int nd_del(int argc, char **argv)
{
	struct nd_sel s = { .has_id = false };
	struct nl_msg *msg;

	if (parse_sel(argc, argv, &s, true))
		return 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_NETDIMM_DEL, 0);
	if (!msg)
		return 1;
	if (put_sel(msg, &s)) {
		nlmsg_free(msg);
		return edm_err("netlink message too long"), 1;
	}
	/* A reply, if the kernel sends one, is not printed. */
	return edm_nl_talk(msg, &nd_attrs, NULL, NULL) ? 1 : 0;
}

static const struct edm_cmd nd_cmds[] = {
	{ "show",	nd_show },
	{ "list",	nd_show },
	{ "add",	nd_add },
	{ "del",	nd_del },
	{ "delete",	nd_del },
	{ "zone",	nd_zone },
	{ "stats",	nd_stats_cmd },
	{ NULL,		NULL },
};

const struct edm_object obj_netdimm = {
	.name	= "netdimm",
	.usage	= nd_usage,
	.cmds	= nd_cmds,
	.dflt	= nd_show,
};
