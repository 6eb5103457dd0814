// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_monitor.c: device events in text and JSON, an
 * event command edmctl does not know.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/genl/genl.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_cowbird.h"
#include "obj_dev.h"
#include "obj_fabric.h"
#include "obj_netdimm.h"
#include "obj_region.h"
#include "print.h"

#include "unit.h"

void test_monitor(void)
{
	struct nl_msg *msg;

	msg = dev_msg(EDM_CMD_DEV_NEW);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor new text", monitor_one(msg, false),
	       "dev new 1: name dev0 type null backend soft\n");
	expect("monitor new json", monitor_one(msg, true),
	       "{\"object\":\"dev\",\"event\":\"new\",\"id\":1,\"name\":\"dev0\","
	       "\"type\":\"null\",\"backend\":\"soft\"}\n");
	nlmsg_free(msg);

	msg = dev_msg(EDM_CMD_DEV_DEL);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor del text", monitor_one(msg, false),
	       "dev del 1: name dev0 type null backend soft\n");
	nlmsg_free(msg);

	/* An event command we do not know is skipped silently. */
	msg = dev_msg(EDM_CMD_MAX + 5);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor unknown cmd", monitor_one(msg, false), "");
	expect("monitor unknown cmd json", monitor_one(msg, true), "");
	nlmsg_free(msg);
}
