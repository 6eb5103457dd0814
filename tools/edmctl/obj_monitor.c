// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl monitor: print the events of the "events" multicast group.
 *
 * Text: "dev new 1: name dev0 type null", one line per event.
 * JSON: one object per line, {"object":"dev","event":"new","id":1,...}.
 * NetDIMM events print the device's own fields, as "netdimm show" prints
 * its first line: "netdimm new 1: name nd0 ifindex 5 peer nd1 size 64M ...".
 * Fabric events print a node as "fabric show" does ("fabric new 1: name sw0
 * type switch ...") or a link end as "fabric link show" does ("fabric-link
 * new sw0:1 peer h1:0 ..."); a link end that went down says why
 * ("fabric-link down sw0:1 state down reason "sync header errors"").
 * A region that was rekeyed prints as "region show" does, without its key
 * ("region rekey 2: kind fabric owner mem0 size 1M key-gen 1"); a change of
 * the Cowbird engine as "cowbird show" prints the engine ("cowbird set
 * engine threads 1 ... batch 8"). Shared pools print a reaped member
 * ("shpool reap 1: name cb0 slot 1 state free epoch 1 host vm0 reaped 1",
 * "self" when it is this kernel) and an instance of this kernel's that
 * stopped ("shpool export-down 1: name cb0 index 0 instance 3 region 2
 * owner 0 target 1 down revoked").
 * Events the table does not know (newer modules) are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_dev.h"
#include "obj_fabric.h"
#include "obj_cowbird.h"
#include "obj_netdimm.h"
#include "obj_region.h"
#include "obj_shpool.h"
#include "print.h"

struct monitor_event {
	uint8_t cmd;
	const char *object;
	const char *event;
	int (*print)(struct nlmsghdr *nlh);	/* fields only */
};

static const struct monitor_event events[] = {
	{ EDM_CMD_DEV_NEW,	"dev",	"new",	dev_print_msg },
	{ EDM_CMD_DEV_DEL,	"dev",	"del",	dev_print_msg },
	{ EDM_CMD_NETDIMM_NEW,	"netdimm", "new", netdimm_print_event },
	{ EDM_CMD_NETDIMM_DEL,	"netdimm", "del", netdimm_print_event },
	{ EDM_CMD_FABRIC_NEW,	"fabric", "new", fabric_print_event },
	{ EDM_CMD_FABRIC_DEL,	"fabric", "del", fabric_print_event },
	{ EDM_CMD_FABRIC_SET,	"fabric", "set", fabric_print_event },
	{ EDM_CMD_FLINK_NEW,	"fabric-link", "new", fabric_link_print_event },
	{ EDM_CMD_FLINK_DEL,	"fabric-link", "del", fabric_link_print_event },
	{ EDM_CMD_FLINK_SET,	"fabric-link", "set", fabric_link_print_event },
	{ EDM_CMD_FLINK_DOWN,	"fabric-link", "down", fabric_link_print_event },
	{ EDM_CMD_REGION_REKEY,	"region", "rekey", region_print_event },
	{ EDM_CMD_REGION_NEW,	"region", "new", region_print_event },
	{ EDM_CMD_REGION_DEL,	"region", "del", region_print_event },
	{ EDM_CMD_COWBIRD_SET,	"cowbird", "set", cowbird_print_event },
	{ EDM_CMD_SHPOOL_REAP,	"shpool", "reap", shpool_print_event },
	{ EDM_CMD_SHPOOL_EXPORT_DOWN, "shpool", "export-down", shpool_print_event },
};

struct monitor {
	uint32_t count;		/* stop after this many events; 0: never */
	uint32_t seen;
};

static void monitor_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmctl monitor [ count N ]\n"
		"       edmctl monitor help\n"
		"Prints device events (\"dev new ...\", \"dev del ...\",\n"
		"\"netdimm new ...\", \"netdimm del ...\"), fabric node events\n"
		"(\"fabric new|del|set ...\"), link events (\"fabric-link\n"
		"new|del|set|down ...\"), region rekeys (\"region rekey ...\", never\n"
		"with the key), Cowbird engine changes (\"cowbird set ...\") and shared\n"
		"pool events (\"shpool reap ...\", \"shpool export-down ...\") as they\n"
		"arrive, until interrupted or, with \"count N\", after N events.\n");
}

/*
 * Print one event; 1 if printed, 0 if not an event we know. Not static:
 * the unit tests call it.
 */
int monitor_print_event(struct nlmsghdr *nlh);
int monitor_print_event(struct nlmsghdr *nlh)
{
	const struct monitor_event *ev = NULL;
	struct nlattr *tb[1];
	unsigned int i;
	uint8_t cmd;

	if (edm_nl_parse(nlh, tb, 0) < 0)
		return 0;
	cmd = edm_nl_cmd(nlh);
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		if (events[i].cmd == cmd) {
			ev = &events[i];
			break;
		}
	}
	if (!ev)
		return 0;

	open_json_object(NULL);
	print_string(PRINT_ANY, "object", "%s", ev->object);
	print_string(PRINT_ANY, "event", " %s ", ev->event);
	if (ev->print(nlh) < 0)
		print_string(PRINT_FP, NULL, "%s", "(malformed)");
	close_json_object();
	print_nl();
	return 1;
}

static int monitor_cb(struct nlmsghdr *nlh, void *arg)
{
	struct monitor *m = arg;

	if (!monitor_print_event(nlh))
		return 0;
	fflush(stdout);
	if (m->count && ++m->seen >= m->count)
		return 1;
	return 0;
}

static int monitor_run(int argc, char **argv)
{
	struct monitor m = { .count = 0 };
	bool has_count = false;

	while (argc > 0) {
		if (is_help(*argv)) {
			monitor_usage(stdout);
			return 0;
		}
		if (!strcmp(*argv, "count")) {
			if (need_arg(argc, argv))
				return 1;
			if (has_count)
				return dup_arg("count"), 1;
			if (parse_u32(argv[1], &m.count) || !m.count)
				return edm_err("invalid count \"%s\" (expected 1 or more)",
					       argv[1]), 1;
			has_count = true;
			argc -= 2;
			argv += 2;
			continue;
		}
		return unknown_arg("monitor", *argv), 1;
	}

	/* Events must reach a pipe as they happen. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (edm_nl_open())
		return 1;
	return edm_nl_monitor(EDM_MCGRP_EVENTS, monitor_cb, &m) ? 1 : 0;
}

const struct edm_object obj_monitor = {
	.name	= "monitor",
	.usage	= monitor_usage,
	.cmds	= NULL,
	.dflt	= monitor_run,
};
