// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl version: versions of the module, its ABI, the kernel and edmctl.
 */
#include <stdlib.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "print.h"

static void version_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl version [ show ]\n"
		"       edmctl version help\n"
		"Prints the module version, its ABI version, the kernel release,\n"
		"the number of devices and edmctl's own version.\n");
}

static int version_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[EDM_A_INFO_MAX + 1];
	bool *printed = arg;
	const char *s;
	uint32_t v;

	if (*printed)
		return 0;
	if (edm_nl_parse(nlh, tb, EDM_A_INFO_MAX) < 0) {
		edm_warn("ignoring a malformed version message");
		return 0;
	}
	/* Printed here: the strings live in the message. */
	open_json_object(NULL);
	s = edm_nl_get_str(tb[EDM_A_INFO_VERSION]);
	if (s)
		print_string(PRINT_ANY, "module_version", "module version: %s\n", s);
	if (edm_nl_get_u32(tb[EDM_A_INFO_ABI_VERSION], &v))
		print_uint(PRINT_ANY, "abi_version", "abi version: %u\n", v);
	s = edm_nl_get_str(tb[EDM_A_INFO_KERNEL_RELEASE]);
	if (s)
		print_string(PRINT_ANY, "kernel_release", "kernel release: %s\n", s);
	if (edm_nl_get_u32(tb[EDM_A_INFO_DEV_COUNT], &v))
		print_uint(PRINT_ANY, "dev_count", "device count: %u\n", v);
	print_string(PRINT_ANY, "edmctl_version", "edmctl version: %s\n",
		     EDMCTL_VERSION);
	close_json_object();
	*printed = true;
	return 0;
}

static int version_show(int argc, char **argv)
{
	struct nl_msg *msg;
	bool printed = false;

	if (argc > 0) {
		if (is_help(*argv)) {
			version_usage(stdout);
			return 0;
		}
		return unknown_arg("version", *argv), 1;
	}
	if (edm_nl_open())
		return 1;
	msg = edm_nl_req(EDM_CMD_VERSION_GET, 0);
	if (!msg)
		return 1;
	if (edm_nl_talk(msg, NULL, version_cb, &printed))
		return 1;
	if (!printed)
		return edm_err("no reply to the version request"), 1;
	return 0;
}

static const struct edm_cmd version_cmds[] = {
	{ "show",	version_show },
	{ NULL,		NULL },
};

const struct edm_object obj_version = {
	.name	= "version",
	.usage	= version_usage,
	.cmds	= version_cmds,
	.dflt	= version_show,
};
