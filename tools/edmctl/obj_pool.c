// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl pool and edmctl rack: DFabric memory pools (POOL_*), racks
 * (RACK_*) and their compute nodes (CN_*).
 *
 * Both objects are table driven: a command's keywords map to attributes
 * (struct kw), and a message is printed from a table of its fields (struct
 * field) and of its counters (struct field too), through the one printing
 * path of print.h, so text and JSON carry the same fields.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_netdimm.h"
#include "print.h"

enum kw_type { KW_U32, KW_SIZE, KW_STR, KW_PATH };

/* A pmem or DAX device's path, as the kernel takes it (EDM_A_POOL_DEV): 31 bytes at most. */
#define POOL_DEV_LEN	32

/* "word VALUE" on the command line is attribute attr of type type. */
struct kw {
	const char *word;
	int attr;
	enum kw_type type;
};

/* A field of a reply: key in JSON, " word %v" in text. */
struct field {
	int attr;
	const char *key;
	enum kw_type type;	/* KW_SIZE prints a u64 */
};

#define STAT_TB_MAX 64

static int parse_kw(int argc, char **argv, const struct kw *kws, struct nl_msg *msg,
		    uint64_t *seen, const char *obj)
{
	const struct kw *k;
	uint64_t v64;
	uint32_t v;

	for (k = kws; k->word; k++)
		if (!strcmp(k->word, *argv))
			break;
	if (!k->word)
		return unknown_arg(obj, *argv);
	if (need_arg(argc, argv))
		return -1;
	if (*seen & (1ULL << (k - kws)))
		return dup_arg(k->word);
	*seen |= 1ULL << (k - kws);
	switch (k->type) {
	case KW_U32:
		if (parse_u32(argv[1], &v))
			return edm_err("invalid %s \"%s\"", k->word, argv[1]);
		return nla_put_u32(msg, k->attr, v) < 0 ? -1 : 2;
	case KW_SIZE:
		if (netdimm_parse_size(argv[1], &v64))
			return edm_err("invalid %s \"%s\" (expected bytes, with an optional "
				       "K, M or G suffix)", k->word, argv[1]);
		return nla_put_u64(msg, k->attr, v64) < 0 ? -1 : 2;
	case KW_PATH:
		if (argv[1][0] != '/' || strlen(argv[1]) >= POOL_DEV_LEN)
			return edm_err("invalid %s \"%s\" (expected a device's path, at most %d bytes)",
				       k->word, argv[1], POOL_DEV_LEN - 1);
		return nla_put_string(msg, k->attr, argv[1]) < 0 ? -1 : 2;
	default:
		if (!*argv[1] || strlen(argv[1]) >= EDM_NAME_LEN)
			return edm_err("invalid %s \"%s\"", k->word, argv[1]);
		return nla_put_string(msg, k->attr, argv[1]) < 0 ? -1 : 2;
	}
}

/* All of argv as keywords into msg; 0, or -1 after printing why. */
static int parse_kws(int argc, char **argv, const struct kw *kws, struct nl_msg *msg,
		     const char *obj, void (*usage)(FILE *fp))
{
	uint64_t seen = 0;
	int n;

	while (argc > 0) {
		if (is_help(*argv)) {
			usage(stdout);
			exit(0);
		}
		n = parse_kw(argc, argv, kws, msg, &seen, obj);
		if (n < 0)
			return -1;
		argc -= n;
		argv += n;
	}
	return 0;
}

static bool get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a || nla_len(a) != sizeof(uint64_t))
		return false;
	memcpy(v, nla_data(a), sizeof(*v));
	return true;
}

static void print_fields(struct nlattr **tb, const struct field *f)
{
	char buf[64], fmt[64];
	const char *sep = "";
	const char *s;
	uint64_t v64;
	uint32_t v;

	for (; f->key; f++) {
		snprintf(fmt, sizeof(fmt), "%s%s %%s", sep, f->key);
		if (f->type == KW_STR && (s = edm_nl_get_str(tb[f->attr]))) {
			print_string(PRINT_ANY, f->key, fmt, s);
		} else if (f->type == KW_U32 && edm_nl_get_u32(tb[f->attr], &v)) {
			snprintf(fmt, sizeof(fmt), "%s%s %%u", sep, f->key);
			print_uint(PRINT_ANY, f->key, fmt, v);
		} else if (f->type == KW_SIZE && get_u64(tb[f->attr], &v64)) {
			netdimm_fmt_size(buf, sizeof(buf), v64);
			print_string(PRINT_FP, NULL, fmt, buf);
			print_u64(PRINT_JSON, f->key, NULL, v64);
		} else {
			continue;
		}
		sep = " ";
	}
}

static void print_stats(struct nlattr *nest, const struct field *f)
{
	struct nlattr *tb[STAT_TB_MAX + 1];
	char fmt[64];
	uint64_t v;

	if (!nest || nla_parse_nested(tb, STAT_TB_MAX, nest, NULL))
		return;
	open_json_object("stats");
	print_string(PRINT_FP, NULL, "%s", "\n   ");
	for (; f->key; f++) {
		if (!get_u64(tb[f->attr], &v))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%" PRIu64, f->key);
		print_u64(PRINT_ANY, f->key, fmt, v);
	}
	close_json_object();
}

/* ---- a list of replies: a JSON array, a text line each ---- */

struct list {
	int maxattr;
	const struct field *fields;
	int stats_attr;
	const struct field *stats;
	bool show_stats;
	bool opened;
};

static int list_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[STAT_TB_MAX + 1];
	struct list *l = arg;

	if (edm_nl_parse(nlh, tb, l->maxattr) < 0)
		return 0;
	if (!l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	open_json_object(NULL);
	print_fields(tb, l->fields);
	if (l->show_stats)
		print_stats(tb[l->stats_attr], l->stats);
	close_json_object();
	print_nl();
	return 0;
}

static int list_run(struct nl_msg *msg, struct list *l, const struct edm_nl_attr_names *names)
{
	int ret = edm_nl_talk(msg, names, list_cb, l);

	if (!ret && !l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	if (l->opened)
		close_json_array(PRINT_JSON, NULL);
	return ret ? 1 : 0;
}

/* "help" where a keyword goes (from argv[first], every other word) prints usage. */
static void help_scan(int argc, char **argv, int first, void (*usage)(FILE *fp))
{
	int i;

	for (i = first; i < argc; i += 2) {
		if (is_help(argv[i])) {
			usage(stdout);
			exit(0);
		}
	}
}

/* A request of cmd with argv's keywords, its replies printed by l. */
static int request(uint8_t cmd, int flags, int argc, char **argv, const struct kw *kws,
		   struct list *l, const struct edm_nl_attr_names *names, const char *obj,
		   void (*usage)(FILE *fp))
{
	struct nl_msg *msg;

	help_scan(argc, argv, 0, usage);
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(cmd, flags);
	if (!msg)
		return 1;
	if (parse_kws(argc, argv, kws, msg, obj, usage)) {
		nlmsg_free(msg);
		return 1;
	}
	if (!l)
		return edm_nl_talk(msg, names, NULL, NULL) ? 1 : 0;
	return list_run(msg, l, names);
}

/* "NAME" first, as attribute attr; then the keywords. */
static int request_named(uint8_t cmd, int argc, char **argv, int attr, const struct kw *kws,
			 struct list *l, const struct edm_nl_attr_names *names, const char *obj,
			 void (*usage)(FILE *fp), bool need)
{
	struct nl_msg *msg;

	if (argc > 0 && is_help(*argv)) {
		usage(stdout);
		exit(0);
	}
	if (argc < 1) {
		if (need)
			return edm_err("a name is required, try \"edmctl %s help\"", obj), 1;
		return request(cmd, NLM_F_DUMP, 0, argv, kws, l, names, obj, usage);
	}
	if (!**argv || strlen(*argv) >= EDM_NAME_LEN)
		return edm_err("invalid name \"%s\"", *argv), 1;
	help_scan(argc, argv, 1, usage);
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(cmd, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, attr, *argv) < 0 ||
	    parse_kws(argc - 1, argv + 1, kws, msg, obj, usage)) {
		nlmsg_free(msg);
		return 1;
	}
	if (!l)
		return edm_nl_talk(msg, names, NULL, NULL) ? 1 : 0;
	return list_run(msg, l, names);
}

/* ---- pool ---- */

static const char *const pool_attr_words[] = {
	[EDM_A_POOL_ID]			= "id",
	[EDM_A_POOL_NAME]		= "name",
	[EDM_A_POOL_SIZE]		= "size",
	[EDM_A_POOL_NUMA_NODE]		= "node",
	[EDM_A_POOL_REGION_SECTIONS]	= "region-sections",
	[EDM_A_POOL_KEEP]		= "keep",
	[EDM_A_POOL_NODE_QUOTA]		= "quota",
	[EDM_A_POOL_SECTIONS]		= "sections",
	[EDM_A_POOL_REGIONS]		= "regions",
	[EDM_A_POOL_USERS]		= "users",
	[EDM_A_POOL_STATS]		= "stats",
	[EDM_A_POOL_DEV]		= "dev",
};
_Static_assert(ARRAY_SIZE(pool_attr_words) == __EDM_A_POOL_CNT,
	       "pool_attr_words[] does not match the EDM_A_POOL_* attributes");

static const struct edm_nl_attr_names pool_attrs = {
	.names = pool_attr_words, .count = ARRAY_SIZE(pool_attr_words),
};

static const struct kw pool_new_kws[] = {
	{ "size", EDM_A_POOL_SIZE, KW_SIZE },
	{ "node", EDM_A_POOL_NUMA_NODE, KW_U32 },
	{ "dev", EDM_A_POOL_DEV, KW_PATH },
	{ "region-sections", EDM_A_POOL_REGION_SECTIONS, KW_U32 },
	{ "keep", EDM_A_POOL_KEEP, KW_U32 },
	{ "quota", EDM_A_POOL_NODE_QUOTA, KW_U32 },
	{ NULL, 0, 0 },
};

static const struct kw pool_set_kws[] = {
	{ "keep", EDM_A_POOL_KEEP, KW_U32 },
	{ "quota", EDM_A_POOL_NODE_QUOTA, KW_U32 },
	{ NULL, 0, 0 },
};

static const struct kw no_kws[] = { { NULL, 0, 0 } };

static const struct field pool_fields[] = {
	{ EDM_A_POOL_ID, "id", KW_U32 },
	{ EDM_A_POOL_NAME, "name", KW_STR },
	{ EDM_A_POOL_SIZE, "size", KW_SIZE },
	{ EDM_A_POOL_NUMA_NODE, "node", KW_U32 },
	{ EDM_A_POOL_DEV, "dev", KW_STR },
	{ EDM_A_POOL_SECTIONS, "sections", KW_U32 },
	{ EDM_A_POOL_REGIONS, "regions", KW_U32 },
	{ EDM_A_POOL_REGION_SECTIONS, "region-sections", KW_U32 },
	{ EDM_A_POOL_KEEP, "keep", KW_U32 },
	{ EDM_A_POOL_NODE_QUOTA, "quota", KW_U32 },
	{ EDM_A_POOL_USERS, "users", KW_U32 },
	{ 0, NULL, 0 },
};

static const struct field pool_name_field[] = {
	{ EDM_A_POOL_NAME, "name", KW_STR },
	{ 0, NULL, 0 },
};

static const struct field pool_stats[] = {
	{ EDM_A_PSTAT_SECTIONS_FREE, "sections-free", 0 },
	{ EDM_A_PSTAT_BUFFERS, "buffers", 0 },
	{ EDM_A_PSTAT_ALLOCS, "allocs", 0 },
	{ EDM_A_PSTAT_ENOMEM, "enomem", 0 },
	{ EDM_A_PSTAT_PASSES, "passes", 0 },
	{ EDM_A_PSTAT_CHECKED, "checked", 0 },
	{ EDM_A_PSTAT_REFUSED, "refused", 0 },
	{ EDM_A_PSTAT_LENT, "lent", 0 },
	{ EDM_A_PSTAT_SKBS, "skbs", 0 },
	{ EDM_A_PSTAT_RECLAIMED, "reclaimed", 0 },
	{ 0, NULL, 0 },
};

static void pool_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl pool show [ NAME ]\n"
		"       edmctl pool stats [ NAME ]\n"
		"       edmctl pool create NAME size SIZE [ node NODE | dev DEV ]\n"
		"                          [ region-sections N ] [ keep K ] [ quota Q ]\n"
		"       edmctl pool set NAME [ keep K ] [ quota Q ]\n"
		"       edmctl pool delete NAME\n"
		"       edmctl pool help\n"
		"where  SIZE is bytes, a multiple of 2M, with an optional K, M or G suffix;\n"
		"       NODE is the NUMA node that backs the pool (only it), default any;\n"
		"       DEV a device that backs it instead: a pmem device in fsdax mode\n"
		"       (/dev/pmem0) or a device-DAX device with align 4096 (/dev/dax0.0),\n"
		"       from an NVDIMM's namespace or a CXL region;\n"
		"       N is Sections per Region (default 512); K empty Sections a compute\n"
		"       node keeps per size class (default 1); Q Sections a node may hold\n"
		"       (default 0: no limit). \"show\" prints the counters too with -s.\n");
}

static struct list pool_list(bool stats)
{
	return (struct list){
		.maxattr = EDM_A_POOL_MAX, .fields = stats ? pool_name_field : pool_fields,
		.stats_attr = EDM_A_POOL_STATS, .stats = pool_stats,
		.show_stats = stats || opts.stats > 0,
	};
}

static int pool_show(int argc, char **argv)
{
	struct list l = pool_list(false);

	return request_named(EDM_CMD_POOL_GET, argc, argv, EDM_A_POOL_NAME, no_kws, &l,
			     &pool_attrs, "pool", pool_usage, false);
}

static int pool_stats_cmd(int argc, char **argv)
{
	struct list l = pool_list(true);

	return request_named(EDM_CMD_POOL_GET, argc, argv, EDM_A_POOL_NAME, no_kws, &l,
			     &pool_attrs, "pool", pool_usage, false);
}

static int pool_create(int argc, char **argv)
{
	struct list l = pool_list(false);

	return request_named(EDM_CMD_POOL_NEW, argc, argv, EDM_A_POOL_NAME, pool_new_kws, &l,
			     &pool_attrs, "pool", pool_usage, true);
}

static int pool_set(int argc, char **argv)
{
	return request_named(EDM_CMD_POOL_SET, argc, argv, EDM_A_POOL_NAME, pool_set_kws, NULL,
			     &pool_attrs, "pool", pool_usage, true);
}

static int pool_delete(int argc, char **argv)
{
	return request_named(EDM_CMD_POOL_DEL, argc, argv, EDM_A_POOL_NAME, no_kws, NULL,
			     &pool_attrs, "pool", pool_usage, true);
}

static const struct edm_cmd pool_cmds[] = {
	{ "show",	pool_show },
	{ "list",	pool_show },
	{ "stats",	pool_stats_cmd },
	{ "create",	pool_create },
	{ "add",	pool_create },
	{ "set",	pool_set },
	{ "delete",	pool_delete },
	{ "del",	pool_delete },
	{ NULL,		NULL },
};

const struct edm_object obj_pool = {
	.name	= "pool",
	.usage	= pool_usage,
	.cmds	= pool_cmds,
	.dflt	= pool_show,
};

/* ---- rack ---- */

static const char *const rack_attr_words[] = {
	[EDM_A_RACK_ID]		= "id",
	[EDM_A_RACK_NAME]	= "name",
	[EDM_A_RACK_POOL]	= "pool",
	[EDM_A_RACK_CNS]	= "cns",
};
_Static_assert(ARRAY_SIZE(rack_attr_words) == __EDM_A_RACK_CNT,
	       "rack_attr_words[] does not match the EDM_A_RACK_* attributes");

static const struct edm_nl_attr_names rack_attrs = {
	.names = rack_attr_words, .count = ARRAY_SIZE(rack_attr_words),
};

static const char *const cn_attr_words[] = {
	[EDM_A_CN_RACK]			= "rack",
	[EDM_A_CN_NAME]			= "name",
	[EDM_A_CN_NODE]			= "node",
	[EDM_A_CN_IFINDEX]		= "ifindex",
	[EDM_A_CN_DCACHE_REGION]	= "dcache-region",
	[EDM_A_CN_DCACHE_SETS]		= "dcache-sets",
	[EDM_A_CN_DCACHE_WAYS]		= "dcache-ways",
	[EDM_A_CN_DCACHE_GRAN]		= "dcache-gran",
	[EDM_A_CN_DCACHE_MIN_LEN]	= "dcache-min-len",
	[EDM_A_CN_STATS]		= "stats",
};
_Static_assert(ARRAY_SIZE(cn_attr_words) == __EDM_A_CN_CNT,
	       "cn_attr_words[] does not match the EDM_A_CN_* attributes");

static const struct edm_nl_attr_names cn_attrs = {
	.names = cn_attr_words, .count = ARRAY_SIZE(cn_attr_words),
};

static const struct kw rack_new_kws[] = {
	{ "pool", EDM_A_RACK_POOL, KW_STR },
	{ NULL, 0, 0 },
};

static const struct kw cn_kws[] = {
	{ "dcache-region", EDM_A_CN_DCACHE_REGION, KW_U32 },
	{ "dcache-sets", EDM_A_CN_DCACHE_SETS, KW_U32 },
	{ "dcache-ways", EDM_A_CN_DCACHE_WAYS, KW_U32 },
	{ "dcache-gran", EDM_A_CN_DCACHE_GRAN, KW_U32 },
	{ "dcache-min-len", EDM_A_CN_DCACHE_MIN_LEN, KW_U32 },
	{ NULL, 0, 0 },
};

static const struct kw cn_sel_kws[] = {
	{ "rack", EDM_A_CN_RACK, KW_STR },
	{ NULL, 0, 0 },
};

static const struct field rack_fields[] = {
	{ EDM_A_RACK_ID, "id", KW_U32 },
	{ EDM_A_RACK_NAME, "name", KW_STR },
	{ EDM_A_RACK_POOL, "pool", KW_STR },
	{ EDM_A_RACK_CNS, "cns", KW_U32 },
	{ 0, NULL, 0 },
};

static const struct field cn_fields[] = {
	{ EDM_A_CN_RACK, "rack", KW_STR },
	{ EDM_A_CN_NAME, "name", KW_STR },
	{ EDM_A_CN_NODE, "node", KW_U32 },
	{ EDM_A_CN_IFINDEX, "ifindex", KW_U32 },
	{ EDM_A_CN_DCACHE_REGION, "dcache-region", KW_U32 },
	{ EDM_A_CN_DCACHE_SETS, "dcache-sets", KW_U32 },
	{ EDM_A_CN_DCACHE_WAYS, "dcache-ways", KW_U32 },
	{ EDM_A_CN_DCACHE_GRAN, "dcache-gran", KW_U32 },
	{ EDM_A_CN_DCACHE_MIN_LEN, "dcache-min-len", KW_U32 },
	{ 0, NULL, 0 },
};

static const struct field cn_name_fields[] = {
	{ EDM_A_CN_RACK, "rack", KW_STR },
	{ EDM_A_CN_NAME, "name", KW_STR },
	{ 0, NULL, 0 },
};

static const struct field cn_stats[] = {
	{ EDM_A_CNSTAT_TX_PACKETS, "tx-packets", 0 },
	{ EDM_A_CNSTAT_TX_BYTES, "tx-bytes", 0 },
	{ EDM_A_CNSTAT_RX_PACKETS, "rx-packets", 0 },
	{ EDM_A_CNSTAT_RX_BYTES, "rx-bytes", 0 },
	{ EDM_A_CNSTAT_COPIES, "copies", 0 },
	{ EDM_A_CNSTAT_COPY_BYTES, "copy-bytes", 0 },
	{ EDM_A_CNSTAT_FORWARDED, "forwarded", 0 },
	{ EDM_A_CNSTAT_TX_DROPS, "tx-drops", 0 },
	{ EDM_A_CNSTAT_RX_DROPS, "rx-drops", 0 },
	{ EDM_A_CNSTAT_ENOMEM, "enomem", 0 },
	{ EDM_A_CNSTAT_REFUSED, "refused", 0 },
	{ EDM_A_CNSTAT_SECTIONS, "sections", 0 },
	{ EDM_A_CNSTAT_BUFFERS, "buffers", 0 },
	{ EDM_A_CNSTAT_DCACHE_HITS, "dcache-hits", 0 },
	{ EDM_A_CNSTAT_DCACHE_MISSES, "dcache-misses", 0 },
	{ EDM_A_CNSTAT_DCACHE_BYPASSED, "dcache-bypassed", 0 },
	{ EDM_A_CNSTAT_DCACHE_EVICTIONS, "dcache-evictions", 0 },
	{ EDM_A_CNSTAT_DCACHE_FLUSHED, "dcache-flushed", 0 },
	{ EDM_A_CNSTAT_DCACHE_WRITEBACKS, "dcache-writebacks", 0 },
	{ EDM_A_CNSTAT_DCACHE_BUSY, "dcache-busy", 0 },
	{ EDM_A_CNSTAT_DCACHE_LENT, "dcache-lent", 0 },
	{ EDM_A_CNSTAT_DCACHE_HANDED_OVER, "dcache-handed-over", 0 },
	{ 0, NULL, 0 },
};

static void rack_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl rack show [ NAME ]\n"
		"       edmctl rack create NAME pool POOL\n"
		"       edmctl rack delete NAME\n"
		"       edmctl rack add-cn RACK NAME [ DCACHE ]\n"
		"       edmctl rack del-cn RACK NAME\n"
		"       edmctl rack set RACK cn NAME DCACHE\n"
		"       edmctl rack cn-show [ rack RACK ]\n"
		"       edmctl rack stats [ rack RACK ]\n"
		"       edmctl rack help\n"
		"where  DCACHE := [ dcache-sets S ] [ dcache-ways W ] [ dcache-gran BYTES ]\n"
		"                 [ dcache-region R ] [ dcache-min-len BYTES ]\n"
		"       a compute node NAME is a netdev of that name; S is a power of two,\n"
		"       0 (the default) for no DRAM cache. \"stats\" prints every compute\n"
		"       node's counters, \"cn-show\" their settings (and counters with -s).\n");
}

static int rack_show(int argc, char **argv)
{
	struct list l = { .maxattr = EDM_A_RACK_MAX, .fields = rack_fields };

	return request_named(EDM_CMD_RACK_GET, argc, argv, EDM_A_RACK_NAME, no_kws, &l,
			     &rack_attrs, "rack", rack_usage, false);
}

static int rack_create(int argc, char **argv)
{
	struct list l = { .maxattr = EDM_A_RACK_MAX, .fields = rack_fields };

	return request_named(EDM_CMD_RACK_NEW, argc, argv, EDM_A_RACK_NAME, rack_new_kws, &l,
			     &rack_attrs, "rack", rack_usage, true);
}

static int rack_delete(int argc, char **argv)
{
	return request_named(EDM_CMD_RACK_DEL, argc, argv, EDM_A_RACK_NAME, no_kws, NULL,
			     &rack_attrs, "rack", rack_usage, true);
}

/* "RACK NAME" first, then the keywords. */
static int cn_request(uint8_t cmd, int argc, char **argv, const struct kw *kws, bool reply)
{
	struct list l = { .maxattr = EDM_A_CN_MAX, .fields = cn_fields };
	struct nl_msg *msg;
	int i;

	help_scan(argc, argv, 0, rack_usage);
	help_scan(argc, argv, 1, rack_usage);
	if (argc < 2)
		return edm_err("a rack and a compute node name are required, "
			       "try \"edmctl rack help\""), 1;
	for (i = 0; i < 2; i++)
		if (!*argv[i] || strlen(argv[i]) >= EDM_NAME_LEN)
			return edm_err("invalid name \"%s\"", argv[i]), 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(cmd, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_CN_RACK, argv[0]) < 0 ||
	    nla_put_string(msg, EDM_A_CN_NAME, argv[1]) < 0 ||
	    parse_kws(argc - 2, argv + 2, kws, msg, "rack", rack_usage)) {
		nlmsg_free(msg);
		return 1;
	}
	if (!reply)
		return edm_nl_talk(msg, &cn_attrs, NULL, NULL) ? 1 : 0;
	return list_run(msg, &l, &cn_attrs);
}

static int rack_add_cn(int argc, char **argv)
{
	return cn_request(EDM_CMD_CN_NEW, argc, argv, cn_kws, true);
}

static int rack_del_cn(int argc, char **argv)
{
	return cn_request(EDM_CMD_CN_DEL, argc, argv, no_kws, false);
}

/* "set RACK cn NAME ...": the words after RACK reordered for cn_request(). */
static int rack_set(int argc, char **argv)
{
	char *words[2];

	if (argc > 0 && is_help(*argv)) {
		rack_usage(stdout);
		exit(0);
	}
	if (argc < 3 || strcmp(argv[1], "cn"))
		return edm_err("usage: edmctl rack set RACK cn NAME DCACHE"), 1;
	words[0] = argv[0];
	words[1] = argv[2];
	argv[1] = words[0];
	argv[2] = words[1];
	return cn_request(EDM_CMD_CN_SET, argc - 1, argv + 1, cn_kws, false);
}

static int rack_cn_get(int argc, char **argv, bool stats)
{
	struct list l = {
		.maxattr = EDM_A_CN_MAX, .fields = stats ? cn_name_fields : cn_fields,
		.stats_attr = EDM_A_CN_STATS, .stats = cn_stats,
		.show_stats = stats || opts.stats > 0,
	};

	return request(EDM_CMD_CN_GET, NLM_F_DUMP, argc, argv, cn_sel_kws, &l, &cn_attrs, "rack",
		       rack_usage);
}

static int rack_cn_show(int argc, char **argv)
{
	return rack_cn_get(argc, argv, false);
}

static int rack_stats(int argc, char **argv)
{
	return rack_cn_get(argc, argv, true);
}

static const struct edm_cmd rack_cmds[] = {
	{ "show",	rack_show },
	{ "list",	rack_show },
	{ "create",	rack_create },
	{ "add",	rack_create },
	{ "delete",	rack_delete },
	{ "del",	rack_delete },
	{ "add-cn",	rack_add_cn },
	{ "del-cn",	rack_del_cn },
	{ "set",	rack_set },
	{ "cn-show",	rack_cn_show },
	{ "stats",	rack_stats },
	{ NULL,		NULL },
};

const struct edm_object obj_rack = {
	.name	= "rack",
	.usage	= rack_usage,
	.cmds	= rack_cmds,
	.dflt	= rack_show,
};
