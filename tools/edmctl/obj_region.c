// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl region: the memory regions Cowbird instances bind to. Show them,
 * read and rotate their keys, make one (in a pool, or as sugar for a fabric
 * memory host that serves a region) and delete a pool's.
 *
 * A region is named by its ID (a fabric host's region has the host's
 * address) and, where several regions of the netns share an ID, by its
 * owner too. Keys are u64 secrets: the kernel puts them in a reply only for
 * CAP_NET_ADMIN, and edmctl prints them as "0x" and 16 hex digits in text
 * and JSON alike (a JSON number would lose bits in most parsers).
 *
 * One printer (region_print_msg()) serves every command, the monitor and
 * the unit tests. Value ranges are the kernel's to check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_fabric.h"
#include "obj_netdimm.h"
#include "obj_region.h"
#include "print.h"
#include "stats.h"

/* The fabric's addresses: what a region ID of kind fabric can be. */
#define REGION_FAB_ADDRS	512

static const char *const kind_names[] = {
	[EDM_REGION_KIND_UNSPEC]	= NULL,
	[EDM_REGION_KIND_FABRIC]	= "fabric",
	[EDM_REGION_KIND_POOL]		= "pool",
};
_Static_assert(ARRAY_SIZE(kind_names) == __EDM_REGION_KIND_CNT,
	       "kind_names[] does not match enum edm_region_kind");

/* Command-line words of the attributes, for the kernel's errors. */
static const char *const region_attr_words[] = {
	[EDM_A_REGION_ID]	= "id",
	[EDM_A_REGION_KIND]	= "kind",
	[EDM_A_REGION_OWNER]	= "owner",
	[EDM_A_REGION_SIZE]	= "size",
	[EDM_A_REGION_KEY]	= "key",
	[EDM_A_REGION_KEY_GEN]	= "key-gen",
	[EDM_A_REGION_STATS]	= "stats",
};
_Static_assert(ARRAY_SIZE(region_attr_words) == __EDM_A_REGION_CNT,
	       "region_attr_words[] does not match the EDM_A_REGION_* attributes");

static const struct edm_nl_attr_names region_attrs = {
	.names = region_attr_words,
	.count = ARRAY_SIZE(region_attr_words),
};

/* "region create" is a FABRIC_NEW: its attributes by the words of create. */
static const char *const create_attr_words[] = {
	[EDM_A_FAB_NAME]	= "name",
	[EDM_A_FAB_ADDR]	= "addr",
	[EDM_A_FAB_REGION_SIZE]	= "size",
};

static const struct edm_nl_attr_names create_attrs = {
	.names = create_attr_words,
	.count = ARRAY_SIZE(create_attr_words),
};

/* "region create pool" is a REGION_NEW. */
static const char *const pool_attr_words[] = {
	[EDM_A_REGION_ID]	= "id",
	[EDM_A_REGION_OWNER]	= "pool",
	[EDM_A_REGION_SIZE]	= "size",
};

static const struct edm_nl_attr_names pool_attrs = {
	.names = pool_attr_words,
	.count = ARRAY_SIZE(pool_attr_words),
};

static const struct edm_stat region_stats[] = {
	{ EDM_A_RSTAT_READS,         "reads",         "io",     "reads" },
	{ EDM_A_RSTAT_WRITES,        "writes",        "io",     "writes" },
	{ EDM_A_RSTAT_READ_BYTES,    "read_bytes",    "io",     "read-bytes" },
	{ EDM_A_RSTAT_WRITE_BYTES,   "write_bytes",   "io",     "write-bytes" },
	{ EDM_A_RSTAT_ACCESS_ERRORS, "access_errors", "errors", "access" },
	{ EDM_A_RSTAT_RANGE_ERRORS,  "range_errors",  "errors", "range" },
};
_Static_assert(ARRAY_SIZE(region_stats) == __EDM_A_RSTAT_CNT - 2,
	       "region_stats[] does not match the EDM_A_RSTAT_* attributes");

unsigned int region_stat_count(void)
{
	return ARRAY_SIZE(region_stats);
}

int region_stat_attr(unsigned int i)
{
	return region_stats[i].attr;
}

const char *region_stat_key(unsigned int i)
{
	return region_stats[i].key;
}

static void region_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl region show [ SELECTOR ]\n"
		"       edmctl region key SELECTOR\n"
		"       edmctl region rekey SELECTOR\n"
		"       edmctl region create NAME size SIZE [ addr ADDR ]\n"
		"       edmctl region create pool POOL size PSIZE [ id ID ]\n"
		"       edmctl region del SELECTOR\n"
		"       edmctl region help\n"
		"where  SELECTOR := { ID [ owner NAME ] | owner NAME }\n"
		"       SIZE := BYTES[ K | M | G ], a multiple of 4K, at most 1G\n"
		"       PSIZE := BYTES[ K | M | G ], rounded up to 2M Sections\n"
		"ID is the region's id (a fabric host's region has the host's address),\n"
		"NAME its owner, needed where several regions share an id. \"show\" prints\n"
		"the key to CAP_NET_ADMIN only, and the counters with -s. \"key\" prints the\n"
		"key alone and needs CAP_NET_ADMIN; \"rekey\" draws a new key and prints it:\n"
		"Cowbird instances opened with the old key get EACCES on every op, the data\n"
		"stays. \"create\" makes a fabric memory host NAME serving SIZE bytes at\n"
		"ADDR (default the lowest address no host has) and shows its region; delete\n"
		"it with \"edmctl fabric del NAME\". \"create pool\" makes a region of POOL's\n"
		"2M Sections, zeroed, with id ID (512 or more, default the lowest free) and\n"
		"prints it with its key; \"del\" deletes a pool region (instances bound to\n"
		"it get EACCES from then on). Commands may be abbreviated; \"list\" is an\n"
		"alias of \"show\".\n");
}

static void help_exit(void)
{
	region_usage(stdout);
	exit(0);
}

/* ---- printing ---- */

static void key_str(char *buf, size_t len, uint64_t key)
{
	snprintf(buf, len, "0x%016" PRIx64, key);
}

/* "2: kind fabric owner mem0 size 1M key-gen 0 key 0x0123456789abcdef". */
static void region_print(struct nlattr **tb)
{
	char buf[32];
	const char *s;
	uint64_t v64;
	bool has_id;
	uint32_t v;

	has_id = edm_nl_get_u32(tb[EDM_A_REGION_ID], &v);
	if (has_id)
		print_uint(PRINT_ANY, "id", "%u:", v);
	if (edm_nl_get_u32(tb[EDM_A_REGION_KIND], &v))
		print_string(PRINT_ANY, "kind", " kind %s",
			     enum_to_word(kind_names, ARRAY_SIZE(kind_names), v, buf,
					  sizeof(buf)));
	s = edm_nl_get_str(tb[EDM_A_REGION_OWNER]);
	if (s)
		print_string(PRINT_ANY, "owner", " owner %s", s);
	if (edm_nl_get_u64(tb[EDM_A_REGION_SIZE], &v64)) {
		netdimm_fmt_size(buf, sizeof(buf), v64);
		print_u64(PRINT_JSON, "size", NULL, v64);
		print_string(PRINT_FP, NULL, " size %s", buf);
	}
	if (edm_nl_get_u32(tb[EDM_A_REGION_KEY_GEN], &v))
		print_uint(PRINT_ANY, "key_gen", " key-gen %u", v);
	if (edm_nl_get_u64(tb[EDM_A_REGION_KEY], &v64)) {
		key_str(buf, sizeof(buf), v64);
		print_string(PRINT_ANY, "key", " key %s", buf);
	}
}

int region_print_msg(struct nlmsghdr *nlh, bool stats)
{
	struct nlattr *tb[EDM_A_REGION_MAX + 1];

	if (edm_nl_parse(nlh, tb, EDM_A_REGION_MAX) < 0)
		return -1;
	region_print(tb);
	if (stats)
		print_stat_nest(tb[EDM_A_REGION_STATS], region_stats, ARRAY_SIZE(region_stats));
	return 0;
}

int region_print_event(struct nlmsghdr *nlh)
{
	return region_print_msg(nlh, false);
}

/* ---- a list: an array in JSON, one entry each in text ---- */

struct region_list {
	bool opened;
	bool stats;
	bool key_only;		/* "key" and "rekey": the key, alone in text */
	bool no_key;		/* a reply without a key came */
};

static bool region_has_key(struct nlmsghdr *nlh)
{
	struct nlattr *tb[EDM_A_REGION_MAX + 1];
	uint64_t key;

	return !edm_nl_parse(nlh, tb, EDM_A_REGION_MAX) &&
	       edm_nl_get_u64(tb[EDM_A_REGION_KEY], &key);
}

/* The key alone in text; in JSON the region's id, owner, key_gen and key. */
static int region_print_key(struct nlmsghdr *nlh)
{
	struct nlattr *tb[EDM_A_REGION_MAX + 1];
	char buf[32];
	const char *s;
	uint64_t key;
	uint32_t v;

	if (edm_nl_parse(nlh, tb, EDM_A_REGION_MAX) < 0 ||
	    !edm_nl_get_u64(tb[EDM_A_REGION_KEY], &key))
		return -1;
	if (edm_nl_get_u32(tb[EDM_A_REGION_ID], &v))
		print_uint(PRINT_JSON, "id", NULL, v);
	s = edm_nl_get_str(tb[EDM_A_REGION_OWNER]);
	if (s)
		print_string(PRINT_JSON, "owner", NULL, s);
	if (edm_nl_get_u32(tb[EDM_A_REGION_KEY_GEN], &v))
		print_uint(PRINT_JSON, "key_gen", NULL, v);
	key_str(buf, sizeof(buf), key);
	print_string(PRINT_ANY, "key", "%s", buf);
	return 0;
}

static int region_list_cb(struct nlmsghdr *nlh, void *arg)
{
	struct region_list *l = arg;
	int ret;

	/* Without CAP_NET_ADMIN a GET has no key: "key" then fails, printing nothing. */
	if (l->key_only && !region_has_key(nlh)) {
		l->no_key = true;
		return 0;
	}
	/* Opened on the first entry so a failed request prints nothing. */
	if (!l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	open_json_object(NULL);
	if (l->key_only)
		ret = region_print_key(nlh);
	else
		ret = region_print_msg(nlh, l->stats);
	close_json_object();
	if (ret < 0)
		edm_warn("ignoring a malformed region message");
	else
		print_nl();
	return 0;
}

/* Sends @msg (its attributes named by @names in errors), prints the replies. */
static int region_list_talk(struct nl_msg *msg, const struct edm_nl_attr_names *names,
			    struct region_list *l)
{
	int ret;

	ret = edm_nl_talk(msg, names, region_list_cb, l);
	if (!ret && !l->opened && !l->no_key) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	/* Close even on error: what was printed stays valid JSON. */
	if (l->opened)
		close_json_array(PRINT_JSON, NULL);
	if (!ret && l->no_key)
		return edm_err("%s: only CAP_NET_ADMIN in the region's network namespace sees "
			       "its key", strerror(EPERM)), 1;
	return ret ? 1 : 0;
}

static int region_list_run(struct nl_msg *msg, struct region_list *l)
{
	return region_list_talk(msg, &region_attrs, l);
}

/* ---- arguments ---- */

struct region_sel {
	bool has_id;
	uint32_t id;
	const char *owner;
};

static int check_owner(const char *name)
{
	if (!*name)
		return edm_err("owner name must not be empty");
	if (strlen(name) >= EDM_NAME_LEN)
		return edm_err("owner name \"%s\" is too long (at most %d characters)", name,
			       EDM_NAME_LEN - 1);
	return 0;
}

/* SELECTOR: "ID", "owner NAME", both, in any order. */
static int region_parse_sel(int argc, char **argv, struct region_sel *sel, bool required)
{
	memset(sel, 0, sizeof(*sel));
	while (argc > 0) {
		if (is_help(*argv))
			help_exit();
		if (!strcmp(*argv, "owner")) {
			if (need_arg(argc, argv))
				return -1;
			if (sel->owner)
				return dup_arg("owner");
			if (check_owner(argv[1]))
				return -1;
			sel->owner = argv[1];
			argc -= 2;
			argv += 2;
			continue;
		}
		if (*argv[0] >= '0' && *argv[0] <= '9') {
			if (sel->has_id)
				return unknown_arg("region", *argv);
			if (parse_u32(*argv, &sel->id))
				return edm_err("invalid region id \"%s\"", *argv);
			sel->has_id = true;
			argc--;
			argv++;
			continue;
		}
		return unknown_arg("region", *argv);
	}
	if (required && !sel->has_id && !sel->owner)
		return edm_err("a region id or \"owner NAME\" is required, try \"edmctl region "
			       "help\"");
	return 0;
}

static int msg_too_long(struct nl_msg *msg)
{
	nlmsg_free(msg);
	return edm_err("netlink message too long"), 1;
}

static int put_sel(struct nl_msg *msg, const struct region_sel *sel)
{
	if (sel->has_id && nla_put_u32(msg, EDM_A_REGION_ID, sel->id) < 0)
		return -1;
	if (sel->owner && nla_put_string(msg, EDM_A_REGION_OWNER, sel->owner) < 0)
		return -1;
	return 0;
}

/* ---- commands ---- */

/* A request @cmd for the region SELECTOR names (any, unless @required); NULL on error. */
static struct nl_msg *region_sel_msg(int argc, char **argv, uint8_t cmd, int flags,
				     bool required)
{
	struct region_sel sel;
	struct nl_msg *msg;

	if (region_parse_sel(argc, argv, &sel, required) || edm_nl_open())
		return NULL;
	msg = edm_nl_req(cmd, flags);
	if (msg && put_sel(msg, &sel)) {
		msg_too_long(msg);
		return NULL;
	}
	return msg;
}

/* A dump, filtered by the selector if one is given: never ambiguous. */
static int region_show(int argc, char **argv)
{
	struct region_list l = { .stats = opts.stats > 0 };
	struct nl_msg *msg = region_sel_msg(argc, argv, EDM_CMD_REGION_GET, NLM_F_DUMP, false);

	return msg ? region_list_run(msg, &l) : 1;
}

/* "key" (a GET) and "rekey": one region, its key alone. */
static int region_key_cmd(int argc, char **argv, uint8_t cmd)
{
	struct region_list l = { .key_only = true };
	struct nl_msg *msg = region_sel_msg(argc, argv, cmd, 0, true);

	return msg ? region_list_run(msg, &l) : 1;
}

static int region_key(int argc, char **argv)
{
	return region_key_cmd(argc, argv, EDM_CMD_REGION_GET);
}

static int region_rekey(int argc, char **argv)
{
	return region_key_cmd(argc, argv, EDM_CMD_REGION_REKEY);
}

struct region_new {
	const char *name;
	uint64_t size;
	bool has_size;
	uint32_t addr;
	bool has_addr;
};

/*
 * NAME size SIZE [ WORD N ]: WORD is "addr" (a fabric host) or "id" (a pool
 * region), whose N goes to rn->addr; @what names NAME in the message.
 */
static int region_parse_new(int argc, char **argv, struct region_new *rn, const char *word,
			    const char *what)
{
	if (!argc || is_help(*argv)) {
		if (argc)
			help_exit();
		return edm_err("\"create\" needs %s, try \"edmctl region help\"", what);
	}
	if (check_owner(*argv))
		return -1;
	rn->name = *argv;
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		if (is_help(*argv))
			help_exit();
		if (strcmp(*argv, "size") && strcmp(*argv, word))
			return unknown_arg("region", *argv);
		if (need_arg(argc, argv))
			return -1;
		if (!strcmp(*argv, "size")) {
			if (rn->has_size)
				return dup_arg("size");
			if (netdimm_parse_size(argv[1], &rn->size))
				return edm_err("invalid size \"%s\" (expected bytes with an "
					       "optional K, M or G suffix)", argv[1]);
			rn->has_size = true;
		} else {
			if (rn->has_addr)
				return dup_arg(word);
			if (parse_u32(argv[1], &rn->addr))
				return edm_err("invalid %s \"%s\" (expected a number)", word,
					       argv[1]);
			rn->has_addr = true;
		}
	}
	if (!rn->has_size)
		return edm_err("\"size\" is required: the region's bytes");
	return 0;
}

/* Marks the address of every fabric host of the netns in @arg. */
static int region_used_addr_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[EDM_A_FAB_MAX + 1];
	bool *used = arg;
	uint32_t type, addr;

	if (edm_nl_parse(nlh, tb, EDM_A_FAB_MAX) < 0)
		return 0;
	if (edm_nl_get_u32(tb[EDM_A_FAB_TYPE], &type) && type == EDM_DEV_TYPE_FHOST &&
	    edm_nl_get_u32(tb[EDM_A_FAB_ADDR], &addr) && addr < REGION_FAB_ADDRS)
		used[addr] = true;
	return 0;
}

/* The lowest address no fabric host of the netns has. */
static int region_free_addr(uint32_t *addr)
{
	bool used[REGION_FAB_ADDRS] = { false };
	struct nl_msg *msg;
	uint32_t a;

	msg = edm_nl_req(EDM_CMD_FABRIC_GET, NLM_F_DUMP);
	if (!msg)
		return -1;
	if (edm_nl_talk(msg, NULL, region_used_addr_cb, used))
		return -1;
	for (a = 0; a < REGION_FAB_ADDRS; a++) {
		if (!used[a]) {
			*addr = a;
			return 0;
		}
	}
	return edm_err("every fabric address has a host: give \"addr ADDR\"");
}

/* "pool POOL size SIZE [ id ID ]": a REGION_NEW, the region with its key. */
static int region_create_pool(int argc, char **argv)
{
	struct region_list l = { .opened = false };
	struct region_new rn = { .name = NULL };
	struct nl_msg *msg;

	if (region_parse_new(argc - 1, argv + 1, &rn, "id", "a pool"))
		return 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_REGION_NEW, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_REGION_OWNER, rn.name) < 0 ||
	    nla_put_u64(msg, EDM_A_REGION_SIZE, rn.size) < 0 ||
	    (rn.has_addr && nla_put_u32(msg, EDM_A_REGION_ID, rn.addr) < 0))
		return msg_too_long(msg);
	return region_list_talk(msg, &pool_attrs, &l);
}

/*
 * A fabric memory host serving the region, then the region with its key;
 * or, as "create pool POOL ...", a pool region ("create pool size ..." is
 * a host named pool).
 */
static int region_create(int argc, char **argv)
{
	struct region_list l = { .opened = false };
	struct region_new rn = { .name = NULL };
	struct region_sel sel;
	struct nl_msg *msg;

	if (argc >= 2 && !strcmp(argv[0], "pool") && strcmp(argv[1], "size"))
		return region_create_pool(argc, argv);
	if (region_parse_new(argc, argv, &rn, "addr", "a name"))
		return 1;
	if (edm_nl_open())
		return 1;
	if (!rn.has_addr && region_free_addr(&rn.addr))
		return 1;
	msg = edm_nl_req(EDM_CMD_FABRIC_NEW, 0);
	if (!msg)
		return 1;
	if (nla_put_string(msg, EDM_A_FAB_NAME, rn.name) < 0 ||
	    nla_put_u32(msg, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FHOST) < 0 ||
	    nla_put_u32(msg, EDM_A_FAB_ADDR, rn.addr) < 0 ||
	    nla_put_u64(msg, EDM_A_FAB_REGION_SIZE, rn.size) < 0)
		return msg_too_long(msg);
	if (edm_nl_talk(msg, &create_attrs, NULL, NULL))
		return 1;
	sel = (struct region_sel){ .has_id = true, .id = rn.addr, .owner = rn.name };
	msg = edm_nl_req(EDM_CMD_REGION_GET, 0);
	if (!msg)
		return 1;
	if (put_sel(msg, &sel))
		return msg_too_long(msg);
	return region_list_run(msg, &l);
}

/* A pool region goes. */
static int region_del(int argc, char **argv)
{
	struct nl_msg *msg = region_sel_msg(argc, argv, EDM_CMD_REGION_DEL, 0, true);

	return msg && !edm_nl_talk(msg, &region_attrs, NULL, NULL) ? 0 : 1;
}

static const struct edm_cmd region_cmds[] = {
	{ "show",	region_show },
	{ "list",	region_show },
	{ "key",	region_key },
	{ "rekey",	region_rekey },
	{ "create",	region_create },
	{ "del",	region_del },
	{ "delete",	region_del },
	{ NULL,		NULL },
};

const struct edm_object obj_region = {
	.name	= "region",
	.usage	= region_usage,
	.cmds	= region_cmds,
	.dflt	= region_show,
};
