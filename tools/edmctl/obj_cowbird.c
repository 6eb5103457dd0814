// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl cowbird: the Cowbird offload engine of edm.ko and its instances.
 * "show" prints the engine (one for the module, every netns shares it)
 * and the instances whose region is in this netns; "set" changes how the
 * engine probes idle rings and how many completions it batches.
 *
 * Text: "engine threads 1 instances 2 probe-max-us 1000 idle-spins 64
 * batch 16", then "instance 3 region 2 size 1M rings 4 entries 64 data 64K
 * batch 16" per instance, counters on indented lines with -s. JSON: one
 * object, {"engine": {...}, "instances": [{...}, ...]}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_cowbird.h"
#include "obj_netdimm.h"
#include "print.h"
#include "stats.h"

/* Command-line words of the attributes, for the kernel's errors. */
static const char *const cowbird_attr_words[] = {
	[EDM_A_COWBIRD_THREADS]		= "threads",
	[EDM_A_COWBIRD_CPU]		= "cpu",
	[EDM_A_COWBIRD_INSTANCES]	= "instances",
	[EDM_A_COWBIRD_PROBE_MAX_US]	= "probe-max-us",
	[EDM_A_COWBIRD_IDLE_SPINS]	= "idle-spins",
	[EDM_A_COWBIRD_BATCH]		= "batch",
	[EDM_A_COWBIRD_STATS]		= "stats",
};
_Static_assert(ARRAY_SIZE(cowbird_attr_words) == __EDM_A_COWBIRD_CNT,
	       "cowbird_attr_words[] does not match the EDM_A_COWBIRD_* attributes");

static const struct edm_nl_attr_names cowbird_attrs = {
	.names = cowbird_attr_words,
	.count = ARRAY_SIZE(cowbird_attr_words),
};

static const struct edm_stat engine_stats[] = {
	{ EDM_A_CBSTAT_PICKS,      "picks",      "", "picks" },
	{ EDM_A_CBSTAT_BUSY_SKIPS, "busy_skips", "", "busy-skips" },
	{ EDM_A_CBSTAT_SLEEPS,     "sleeps",     "", "sleeps" },
	{ EDM_A_CBSTAT_CREATED,    "created",    "", "created" },
	{ EDM_A_CBSTAT_DESTROYED,  "destroyed",  "", "destroyed" },
};
_Static_assert(ARRAY_SIZE(engine_stats) == __EDM_A_CBSTAT_CNT - 2,
	       "engine_stats[] does not match the EDM_A_CBSTAT_* attributes");

static const struct edm_stat inst_stats[] = {
	{ EDM_A_CBISTAT_PASSES,        "passes",        "ring",    "passes" },
	{ EDM_A_CBISTAT_FETCHED,       "fetched",       "ring",    "fetched" },
	{ EDM_A_CBISTAT_REJECTED,      "rejected",      "ring",    "rejected" },
	{ EDM_A_CBISTAT_OPS,           "ops",           "ring",    "ops" },
	{ EDM_A_CBISTAT_COMPLETED,     "completed",     "ring",    "completed" },
	{ EDM_A_CBISTAT_BATCHES,       "batches",       "ring",    "batches" },
	{ EDM_A_CBISTAT_RINGS_STOPPED, "rings_stopped", "ring",    "stopped" },
	{ EDM_A_CBISTAT_RD_BLOCKED,    "rd_blocked",    "blocked", "rd" },
	{ EDM_A_CBISTAT_WR_BLOCKED,    "wr_blocked",    "blocked", "wr" },
	{ EDM_A_CBISTAT_RD_OPS,        "rd_ops",        "rd",      "ops" },
	{ EDM_A_CBISTAT_RD_BYTES,      "rd_bytes",      "rd",      "bytes" },
	{ EDM_A_CBISTAT_WR_OPS,        "wr_ops",        "wr",      "ops" },
	{ EDM_A_CBISTAT_WR_BYTES,      "wr_bytes",      "wr",      "bytes" },
	{ EDM_A_CBISTAT_OP_ERRORS,     "op_errors",     "errors",  "ops" },
	{ EDM_A_CBISTAT_CC_ISSUED,     "cc_issued",     "cc",      "issued" },
	{ EDM_A_CBISTAT_CC_COMPLETED,  "cc_completed",  "cc",      "completed" },
	{ EDM_A_CBISTAT_CC_INCREASES,  "cc_increases",  "cc",      "increases" },
	{ EDM_A_CBISTAT_CC_DECREASES,  "cc_decreases",  "cc",      "decreases" },
	{ EDM_A_CBISTAT_CC_TIMEOUT_DECREASES, "cc_timeout_decreases", "cc", "timeout-decreases" },
	{ EDM_A_CBISTAT_CWND_LOCAL,    "cwnd_local",    "cc",      "cwnd-local" },
	{ EDM_A_CBISTAT_CWND_DST,      "cwnd_dst",      "cc",      "cwnd-dst" },
	{ EDM_A_CBISTAT_CWND_DST_WRITE, "cwnd_dst_write", "cc",    "cwnd-dst-write" },
};
_Static_assert(ARRAY_SIZE(inst_stats) == __EDM_A_CBISTAT_CNT - 2,
	       "inst_stats[] does not match the EDM_A_CBISTAT_* attributes");

unsigned int cowbird_stat_count(void)
{
	return ARRAY_SIZE(engine_stats);
}

int cowbird_stat_attr(unsigned int i)
{
	return engine_stats[i].attr;
}

const char *cowbird_stat_key(unsigned int i)
{
	return engine_stats[i].key;
}

unsigned int cowbird_inst_stat_count(void)
{
	return ARRAY_SIZE(inst_stats);
}

int cowbird_inst_stat_attr(unsigned int i)
{
	return inst_stats[i].attr;
}

const char *cowbird_inst_stat_key(unsigned int i)
{
	return inst_stats[i].key;
}

static void cowbird_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl cowbird show\n"
		"       edmctl cowbird set [ probe-max-us USEC ] [ idle-spins N ] [ batch N ]\n"
		"       edmctl cowbird help\n"
		"\"show\" prints the engine, one for the module and shared by every network\n"
		"namespace, and the instances (open /dev/cowbird files) whose region is in\n"
		"this one; with -s their counters too. \"set\" needs CAP_NET_ADMIN: USEC,\n"
		"2 to 1000000, is the longest sleep between probes of idle rings; N of\n"
		"idle-spins, 0 to 1000000, the empty probes in a row before the engine\n"
		"sleeps; N of batch, 1 to 1024, the completions per book update, for every\n"
		"instance from now on. Commands may be abbreviated; \"list\" is an alias of\n"
		"\"show\".\n");
}

/* ---- printing ---- */

static void print_u32_attr(const struct nlattr *a, const char *key, const char *fmt)
{
	uint32_t v;

	if (edm_nl_get_u32(a, &v))
		print_uint(PRINT_ANY, key, fmt, v);
}

/* A byte count: a number in JSON, "64K" in text after @word. */
static void print_size(const struct nlattr *a, const char *key, const char *word)
{
	char buf[32];
	uint64_t v;

	if (edm_nl_get_u64(a, &v)) {
		netdimm_fmt_size(buf, sizeof(buf), v);
	} else {
		uint32_t v32;

		if (!edm_nl_get_u32(a, &v32))
			return;
		v = v32;
		netdimm_fmt_size(buf, sizeof(buf), v);
	}
	print_u64(PRINT_JSON, key, NULL, v);
	print_string(PRINT_FP, NULL, " %s", word);
	print_string(PRINT_FP, NULL, " %s", buf);
}

/* "engine threads 1 cpu 1 instances 2 probe-max-us 1000 idle-spins 64 batch 16". */
int cowbird_print_engine(struct nlmsghdr *nlh, bool stats)
{
	struct nlattr *tb[EDM_A_COWBIRD_MAX + 1];

	if (edm_nl_parse(nlh, tb, EDM_A_COWBIRD_MAX) < 0)
		return -1;
	print_string(PRINT_FP, NULL, "%s", "engine");
	print_u32_attr(tb[EDM_A_COWBIRD_THREADS], "threads", " threads %u");
	print_u32_attr(tb[EDM_A_COWBIRD_CPU], "cpu", " cpu %u");
	print_u32_attr(tb[EDM_A_COWBIRD_INSTANCES], "instances", " instances %u");
	print_u32_attr(tb[EDM_A_COWBIRD_PROBE_MAX_US], "probe_max_us", " probe-max-us %u");
	print_u32_attr(tb[EDM_A_COWBIRD_IDLE_SPINS], "idle_spins", " idle-spins %u");
	print_u32_attr(tb[EDM_A_COWBIRD_BATCH], "batch", " batch %u");
	if (stats)
		print_stat_nest(tb[EDM_A_COWBIRD_STATS], engine_stats, ARRAY_SIZE(engine_stats));
	return 0;
}

int cowbird_print_event(struct nlmsghdr *nlh)
{
	return cowbird_print_engine(nlh, false);
}

/* "instance 3 region 2 size 1M rings 4 entries 64 data 64K batch 16". */
int cowbird_print_inst(struct nlmsghdr *nlh, bool stats)
{
	struct nlattr *tb[EDM_A_CBINST_MAX + 1];

	if (edm_nl_parse(nlh, tb, EDM_A_CBINST_MAX) < 0)
		return -1;
	print_u32_attr(tb[EDM_A_CBINST_ID], "id", "instance %u");
	print_u32_attr(tb[EDM_A_CBINST_REGION_ID], "region_id", " region %u");
	print_size(tb[EDM_A_CBINST_REGION_SIZE], "region_size", "size");
	print_u32_attr(tb[EDM_A_CBINST_RINGS], "rings", " rings %u");
	print_u32_attr(tb[EDM_A_CBINST_ENTRIES], "entries", " entries %u");
	print_size(tb[EDM_A_CBINST_DATA_SIZE], "data_size", "data");
	print_u32_attr(tb[EDM_A_CBINST_BATCH], "batch", " batch %u");
	if (stats)
		print_stat_nest(tb[EDM_A_CBINST_STATS], inst_stats, ARRAY_SIZE(inst_stats));
	return 0;
}

/* ---- show ---- */

struct cowbird_show {
	bool stats;
	bool engine;		/* the engine was printed */
};

static int engine_cb(struct nlmsghdr *nlh, void *arg)
{
	struct cowbird_show *cs = arg;

	if (cs->engine)
		return 0;
	open_json_object(NULL);		/* the whole answer, closed by cowbird_show() */
	open_json_object("engine");
	if (cowbird_print_engine(nlh, cs->stats) < 0)
		print_string(PRINT_FP, NULL, "%s", " (malformed)");
	close_json_object();
	print_nl();
	cs->engine = true;
	return 0;
}

static int inst_cb(struct nlmsghdr *nlh, void *arg)
{
	struct cowbird_show *cs = arg;
	int ret;

	open_json_object(NULL);
	ret = cowbird_print_inst(nlh, cs->stats);
	close_json_object();
	if (ret < 0)
		edm_warn("ignoring a malformed instance message");
	else
		print_nl();
	return 0;
}

static int cowbird_show(int argc, char **argv)
{
	struct cowbird_show cs = { .stats = opts.stats > 0 };
	struct nl_msg *msg;
	int ret;

	if (argc > 0) {
		if (is_help(*argv)) {
			cowbird_usage(stdout);
			return 0;
		}
		return unknown_arg("cowbird", *argv), 1;
	}
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_COWBIRD_GET, 0);
	if (!msg)
		return 1;
	/* The engine first; on failure nothing was printed. */
	ret = edm_nl_talk(msg, &cowbird_attrs, engine_cb, &cs);
	if (ret || !cs.engine)
		return 1;
	msg = edm_nl_req(EDM_CMD_COWBIRD_INST_GET, NLM_F_DUMP);
	open_json_array(PRINT_JSON, "instances");
	ret = msg ? edm_nl_talk(msg, NULL, inst_cb, &cs) : -1;
	/* Close even on error: what was printed stays valid JSON. */
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
	return ret ? 1 : 0;
}

/* ---- set ---- */

struct cowbird_kw {
	const char *word;
	int attr;
};

static const struct cowbird_kw set_kws[] = {
	{ "probe-max-us",	EDM_A_COWBIRD_PROBE_MAX_US },
	{ "idle-spins",		EDM_A_COWBIRD_IDLE_SPINS },
	{ "batch",		EDM_A_COWBIRD_BATCH },
};

static int cowbird_set(int argc, char **argv)
{
	bool has[ARRAY_SIZE(set_kws)] = { false };
	uint32_t v[ARRAY_SIZE(set_kws)];
	struct nl_msg *msg;
	unsigned int i;
	bool any = false;

	for (; argc > 0; argc -= 2, argv += 2) {
		if (is_help(*argv)) {
			cowbird_usage(stdout);
			return 0;
		}
		for (i = 0; i < ARRAY_SIZE(set_kws) && strcmp(set_kws[i].word, *argv); i++)
			;
		if (i == ARRAY_SIZE(set_kws))
			return unknown_arg("cowbird", *argv), 1;
		if (need_arg(argc, argv))
			return 1;
		if (has[i])
			return dup_arg(*argv), 1;
		if (parse_u32(argv[1], &v[i]))
			return edm_err("invalid %s \"%s\" (expected a number)", *argv, argv[1]), 1;
		has[i] = any = true;
	}
	if (!any)
		return edm_err("nothing to set: give \"probe-max-us\", \"idle-spins\" or "
			       "\"batch\""), 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_COWBIRD_SET, 0);
	if (!msg)
		return 1;
	for (i = 0; i < ARRAY_SIZE(set_kws); i++) {
		if (has[i] && nla_put_u32(msg, set_kws[i].attr, v[i]) < 0) {
			nlmsg_free(msg);
			return edm_err("netlink message too long"), 1;
		}
	}
	return edm_nl_talk(msg, &cowbird_attrs, NULL, NULL) ? 1 : 0;
}

static const struct edm_cmd cowbird_cmds[] = {
	{ "show",	cowbird_show },
	{ "list",	cowbird_show },
	{ "set",	cowbird_set },
	{ NULL,		NULL },
};

const struct edm_object obj_cowbird = {
	.name	= "cowbird",
	.usage	= cowbird_usage,
	.cmds	= cowbird_cmds,
	.dflt	= cowbird_show,
};
