// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl: control tool for edm.ko.
 *
 *   edmctl [ OPTIONS ] OBJECT { COMMAND | help }
 *
 * Adding an object: write obj_<name>.c exporting a struct edm_object and
 * add it to objects[] below (and to the Makefile).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_cowbird.h"
#include "obj_fabric.h"
#include "obj_netdimm.h"
#include "obj_region.h"
#include "print.h"

static const struct edm_object *const objects[] = {
	&obj_version,
	&obj_dev,
	&obj_netdimm,
	&obj_fabric,
	&obj_pool,
	&obj_rack,
	&obj_nicpool,
	&obj_shpool,
	&obj_region,
	&obj_cowbird,
	&obj_monitor,
};

static void usage(FILE *fp)
{
	unsigned int i;

	fprintf(fp,
		"Usage: edmctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       edmctl help [ OBJECT ]\n"
		"       edmctl { -V | --version }\n"
		"where  OBJECT := {");
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		fprintf(fp, " %s%s", objects[i]->name,
			i + 1 < ARRAY_SIZE(objects) ? " |" : "");
	fprintf(fp,
		" }\n"
		"       OPTIONS := { -j | --json } [ { -p | --pretty } ] |\n"
		"                  { -s | --stats } |\n"
		"                  { -n | --netns } NAME |\n"
		"                  { -V | --version } | { -h | --help }\n"
		"Options:\n"
		"  -j, --json         print JSON\n"
		"  -p, --pretty       indent the JSON output (with -j)\n"
		"  -s, --stats        print statistics where the object has any\n"
		"  -n, --netns NAME   switch to network namespace NAME (as \"ip -n\")\n"
		"  -V, --version      print edmctl's version and exit\n"
		"  -h, --help         print this help and exit\n"
		"Objects and commands may be abbreviated to a unique prefix.\n"
		"Try \"edmctl OBJECT help\" for the commands of an object.\n");
}

/* 0 found, -1 unknown, -2 ambiguous. *help set for "help" or a prefix. */
static int find_object(const char *word, const struct edm_object **obj,
		       bool *help)
{
	size_t len = strlen(word);
	unsigned int i;
	int found = 0;

	*obj = NULL;
	*help = false;
	if (!len)
		return -1;
	if (!strcmp(word, "help")) {
		*help = true;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(objects); i++) {
		if (!strcmp(objects[i]->name, word)) {
			*obj = objects[i];
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(objects); i++) {
		if (!strncmp(objects[i]->name, word, len)) {
			*obj = objects[i];
			found++;
		}
	}
	if (is_help(word)) {
		*help = true;
		found++;
	}
	if (found > 1)
		return -2;
	return found ? 0 : -1;
}

/* Same for commands; entries with the same fn are aliases. */
static int find_cmd(const struct edm_cmd *cmds, const char *word,
		    const struct edm_cmd **cmd, bool *help)
{
	size_t len = strlen(word);
	const struct edm_cmd *c;
	bool ambiguous = false;

	*cmd = NULL;
	*help = false;
	if (!len)
		return -1;
	if (!strcmp(word, "help")) {
		*help = true;
		return 0;
	}
	for (c = cmds; c->name; c++) {
		if (!strcmp(c->name, word)) {
			*cmd = c;
			return 0;
		}
	}
	for (c = cmds; c->name; c++) {
		if (strncmp(c->name, word, len))
			continue;
		if (*cmd && (*cmd)->fn != c->fn)
			ambiguous = true;
		if (!*cmd)
			*cmd = c;
	}
	if (is_help(word)) {
		if (*cmd)
			ambiguous = true;
		*help = true;
	}
	if (ambiguous)
		return -2;
	return *cmd || *help ? 0 : -1;
}

static int run_object(const struct edm_object *obj, int argc, char **argv)
{
	const struct edm_cmd *cmd;
	bool help;
	int ret;

	if (!obj->cmds) {
		if (argc > 0 && !strcmp(*argv, "help")) {
			obj->usage(stdout);
			return 0;
		}
		return obj->dflt(argc, argv);
	}
	if (!argc)
		return obj->dflt(0, argv);
	ret = find_cmd(obj->cmds, *argv, &cmd, &help);
	if (ret == -2) {
		fprintf(stderr, "Command \"%s\" is ambiguous, try \"edmctl %s help\".\n",
			*argv, obj->name);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "Command \"%s\" not found, try \"edmctl %s help\".\n",
			*argv, obj->name);
		return 1;
	}
	if (help) {
		obj->usage(stdout);
		return 0;
	}
	return cmd->fn(argc - 1, argv + 1);
}

static int do_help(int argc, char **argv)
{
	const struct edm_object *obj;
	bool help;

	if (!argc) {
		usage(stdout);
		return 0;
	}
	if (find_object(*argv, &obj, &help) || help) {
		if (help) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "Object \"%s\" is unknown, try \"edmctl help\".\n",
			*argv);
		return 1;
	}
	obj->usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "pretty",	no_argument,		NULL, 'p' },
		{ "stats",	no_argument,		NULL, 's' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	const struct edm_object *obj;
	bool help;
	int c, ret;

	opterr = 0;
	/* '+': options end at the object word, as in "ip". */
	while ((c = getopt_long(argc, argv, "+:jpsn:Vh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.pretty = true;
			break;
		case 's':
			opts.stats++;
			break;
		case 'n':
			if (opts.netns) {
				edm_err("option \"-n\" given twice");
				return 1;
			}
			opts.netns = optarg;
			break;
		case 'V':
			printf("edmctl %s\n", EDMCTL_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			edm_err("option \"%s\" needs an argument", argv[optind - 1]);
			return 1;
		default:
			if (optopt)
				fprintf(stderr, "Option \"-%c\" is unknown, try \"edmctl -h\".\n",
					optopt);
			else
				fprintf(stderr, "Option \"%s\" is unknown, try \"edmctl -h\".\n",
					argv[optind - 1]);
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		usage(stderr);
		return 1;
	}

	print_init(opts.json, opts.pretty, stdout);

	ret = find_object(*argv, &obj, &help);
	if (ret == -2) {
		fprintf(stderr, "Object \"%s\" is ambiguous, try \"edmctl help\".\n",
			*argv);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "Object \"%s\" is unknown, try \"edmctl help\".\n",
			*argv);
		return 1;
	}
	if (help)
		return do_help(argc - 1, argv + 1);

	if (opts.netns && edm_nl_netns_switch(opts.netns))
		return 1;

	ret = run_object(obj, argc - 1, argv + 1);
	edm_nl_close();

	if (fflush(stdout) == EOF || ferror(stdout)) {
		edm_err("cannot write to standard output: %s", strerror(errno));
		return 1;
	}
	return ret ? 1 : 0;
}
