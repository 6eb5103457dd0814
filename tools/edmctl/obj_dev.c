// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl dev: show, add and delete edm devices.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_dev.h"
#include "print.h"

static const char *const dev_type_names[] = {
	[EDM_DEV_TYPE_UNSPEC]	= "unspec",
	[EDM_DEV_TYPE_NULL]	= "null",
	[EDM_DEV_TYPE_NETDIMM]	= "netdimm",
	[EDM_DEV_TYPE_FSWITCH]	= "fabric-switch",
	[EDM_DEV_TYPE_FHOST]	= "fabric-host",
	[EDM_DEV_TYPE_POOL]	= "pool",
	[EDM_DEV_TYPE_RACK]	= "rack",
	[EDM_DEV_TYPE_NICPOOL]	= "nicpool",
	[EDM_DEV_TYPE_SHPOOL]	= "shpool",
};
_Static_assert(ARRAY_SIZE(dev_type_names) == __EDM_DEV_TYPE_CNT,
	       "dev_type_names[] does not match enum edm_dev_type");

/* The types "dev add" creates: a NetDIMM needs "netdimm add" (a size). */
static const char *const dev_add_type_names[] = {
	[EDM_DEV_TYPE_UNSPEC]	= "unspec",
	[EDM_DEV_TYPE_NULL]	= "null",
};

/* Command-line words of the EDM_A_DEV_* attributes, for kernel errors. */
static const char *const dev_attr_words[] = {
	[EDM_A_DEV_ID]		= "id",
	[EDM_A_DEV_NAME]	= "name",
	[EDM_A_DEV_TYPE]	= "type",
};
_Static_assert(ARRAY_SIZE(dev_attr_words) == __EDM_A_DEV_CNT,
	       "dev_attr_words[] does not match the EDM_A_DEV_* attributes");

static const struct edm_nl_attr_names dev_attrs = {
	.names = dev_attr_words,
	.count = ARRAY_SIZE(dev_attr_words),
};

static void dev_usage(FILE *fp)
{
	char types[256];

	enum_join(types, sizeof(types), dev_add_type_names,
		  ARRAY_SIZE(dev_add_type_names), " | ");
	fprintf(fp,
		"Usage: edmctl dev show [ id ID | name NAME ]\n"
		"       edmctl dev add name NAME type TYPE\n"
		"       edmctl dev del { id ID | name NAME }\n"
		"       edmctl dev help\n"
		"where  TYPE := { %s }\n"
		"       ID is a device id (1 or more); NAME is 1 to %d characters\n"
		"       of [A-Za-z0-9_.-], starting with a letter or a digit\n"
		"Commands may be abbreviated; \"list\" and \"delete\" are aliases.\n"
		"NetDIMMs are listed here too; \"edmctl netdimm\" creates them.\n",
		types, EDM_NAME_LEN - 1);
}

int dev_parse(struct nlmsghdr *nlh, struct edm_dev *d)
{
	struct nlattr *tb[EDM_A_DEV_MAX + 1];

	memset(d, 0, sizeof(*d));
	if (edm_nl_parse(nlh, tb, EDM_A_DEV_MAX) < 0)
		return -1;
	d->has_id = edm_nl_get_u32(tb[EDM_A_DEV_ID], &d->id);
	d->name = edm_nl_get_str(tb[EDM_A_DEV_NAME]);
	d->has_type = edm_nl_get_u32(tb[EDM_A_DEV_TYPE], &d->type);
	return 0;
}

void dev_print(const struct edm_dev *d)
{
	char buf[32];

	if (d->has_id)
		print_uint(PRINT_ANY, "id", "%u:", d->id);
	if (d->name)
		print_string(PRINT_ANY, "name", d->has_id ? " name %s" : "name %s",
			     d->name);
	if (d->has_type)
		print_string(PRINT_ANY, "type", " type %s",
			     enum_to_word(dev_type_names,
					  ARRAY_SIZE(dev_type_names),
					  d->type, buf, sizeof(buf)));
}

int dev_print_msg(struct nlmsghdr *nlh)
{
	struct edm_dev d;

	if (dev_parse(nlh, &d) < 0)
		return -1;
	dev_print(&d);
	return 0;
}

/* ---- a list of devices: an array in JSON, one line each in text ---- */

struct dev_list {
	bool opened;
};

static int dev_list_cb(struct nlmsghdr *nlh, void *arg)
{
	struct dev_list *l = arg;
	struct edm_dev d;

	if (dev_parse(nlh, &d) < 0) {
		edm_warn("ignoring a malformed device message");
		return 0;
	}
	/* Opened on the first device so a failed request prints nothing. */
	if (!l->opened) {
		open_json_array(PRINT_JSON, NULL);
		l->opened = true;
	}
	open_json_object(NULL);
	dev_print(&d);
	close_json_object();
	print_nl();
	return 0;
}

static int dev_list_run(struct nl_msg *msg)
{
	struct dev_list l = { .opened = false };
	int ret;

	ret = edm_nl_talk(msg, &dev_attrs, dev_list_cb, &l);
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

struct dev_sel {
	bool has_id;
	uint32_t id;
	const char *name;
};

static int check_name(const char *name)
{
	if (!*name)
		return edm_err("device name must not be empty");
	if (strlen(name) >= EDM_NAME_LEN)
		return edm_err("device name \"%s\" is too long (at most %d characters)",
			       name, EDM_NAME_LEN - 1);
	return 0;
}

/*
 * "id ID" or "name NAME" at argv: 2 (words used), 0 (not a selector) or
 * -1 (error, printed).
 */
static int parse_sel(int argc, char **argv, struct dev_sel *s)
{
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
		if (s->name)
			return dup_arg("name");
		if (check_name(argv[1]))
			return -1;
		s->name = argv[1];
		return 2;
	}
	return 0;
}

static int put_sel(struct nl_msg *msg, const struct dev_sel *s)
{
	if (s->has_id && nla_put_u32(msg, EDM_A_DEV_ID, s->id) < 0)
		return -1;
	if (s->name && nla_put_string(msg, EDM_A_DEV_NAME, s->name) < 0)
		return -1;
	return 0;
}

static void help_exit(void)
{
	dev_usage(stdout);
	exit(0);
}

/* Parse "{ id ID | name NAME }" as the only arguments. */
static int parse_sel_only(int argc, char **argv, struct dev_sel *s)
{
	int n;

	while (argc > 0) {
		if (is_help(*argv))
			help_exit();
		n = parse_sel(argc, argv, s);
		if (n < 0)
			return -1;
		if (!n)
			return unknown_arg("dev", *argv);
		argc -= n;
		argv += n;
	}
	if (s->has_id && s->name)
		return edm_err("\"id\" and \"name\" are mutually exclusive");
	return 0;
}

/* ---- commands ---- */

static int dev_show(int argc, char **argv)
{
	struct dev_sel s = { .has_id = false };
	struct nl_msg *msg;
	bool one;

	if (parse_sel_only(argc, argv, &s))
		return 1;
	one = s.has_id || s.name;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_DEV_GET, one ? 0 : NLM_F_DUMP);
	if (!msg)
		return 1;
	if (put_sel(msg, &s)) {
		nlmsg_free(msg);
		return edm_err("netlink message too long"), 1;
	}
	return dev_list_run(msg);
}

static int dev_add(int argc, char **argv)
{
	struct dev_sel s = { .has_id = false };
	uint32_t type = 0;
	bool has_type = false;
	struct nl_msg *msg;
	int n;

	while (argc > 0) {
		if (is_help(*argv))
			help_exit();
		if (!strcmp(*argv, "name")) {
			n = parse_sel(argc, argv, &s);
			if (n < 0)
				return 1;
		} else if (!strcmp(*argv, "type")) {
			if (argc > 1 && !strcmp(argv[1], "netdimm"))
				return edm_err("a NetDIMM needs a size: create it with "
					       "\"edmctl netdimm add\""), 1;
			if (parse_enum_arg(argc, argv, "device type", dev_add_type_names,
					   ARRAY_SIZE(dev_add_type_names), &has_type, &type))
				return 1;
			n = 2;
		} else {
			return unknown_arg("dev", *argv), 1;
		}
		argc -= n;
		argv += n;
	}
	if (!s.name)
		return edm_err("\"name\" is required, try \"edmctl dev help\""), 1;
	if (!has_type)
		return edm_err("\"type\" is required, try \"edmctl dev help\""), 1;

	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_DEV_NEW, 0);
	if (!msg)
		return 1;
	if (put_sel(msg, &s) ||
	    nla_put_u32(msg, EDM_A_DEV_TYPE, type) < 0) {
		nlmsg_free(msg);
		return edm_err("netlink message too long"), 1;
	}
	return dev_list_run(msg);
}

static int dev_del(int argc, char **argv)
{
	struct dev_sel s = { .has_id = false };
	struct nl_msg *msg;

	if (parse_sel_only(argc, argv, &s))
		return 1;
	if (!s.has_id && !s.name)
		return edm_err("\"id\" or \"name\" is required, try \"edmctl dev help\""), 1;
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_DEV_DEL, 0);
	if (!msg)
		return 1;
	if (put_sel(msg, &s)) {
		nlmsg_free(msg);
		return edm_err("netlink message too long"), 1;
	}
	/* A reply, if the kernel sends one, is not printed. */
	return edm_nl_talk(msg, &dev_attrs, NULL, NULL) ? 1 : 0;
}

static const struct edm_cmd dev_cmds[] = {
	{ "show",	dev_show },
	{ "list",	dev_show },
	{ "add",	dev_add },
	{ "del",	dev_del },
	{ "delete",	dev_del },
	{ NULL,		NULL },
};

const struct edm_object obj_dev = {
	.name	= "dev",
	.usage	= dev_usage,
	.cmds	= dev_cmds,
	.dflt	= dev_show,
};
