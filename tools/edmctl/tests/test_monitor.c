// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_monitor.c: device events in text and JSON, an
 * event command edmctl does not know.
 */

#include <netlink/msg.h>

#include <linux/edm.h>

#include "unit.h"

void test_monitor(void)
{
	struct nl_msg *msg;

	msg = unit_dev_msg(EDM_CMD_DEV_NEW);
	unit_put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL);
	unit_expect("monitor new text", unit_monitor_one(msg, false),
		    "dev new 1: name dev0 type null\n");
	unit_expect("monitor new json", unit_monitor_one(msg, true),
		    "{\"object\":\"dev\",\"event\":\"new\",\"id\":1,\"name\":\"dev0\","
		    "\"type\":\"null\"}\n");
	nlmsg_free(msg);

	msg = unit_dev_msg(EDM_CMD_DEV_DEL);
	unit_put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL);
	unit_expect("monitor del text", unit_monitor_one(msg, false),
		    "dev del 1: name dev0 type null\n");
	nlmsg_free(msg);

	/* An event command we do not know is skipped silently. */
	msg = unit_dev_msg(EDM_CMD_MAX + 5);
	unit_put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL);
	unit_expect("monitor unknown cmd", unit_monitor_one(msg, false), "");
	unit_expect("monitor unknown cmd json", unit_monitor_one(msg, true), "");
	nlmsg_free(msg);
}
