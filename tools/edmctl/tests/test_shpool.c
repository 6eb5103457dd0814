// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_shpool.c: the shared pool's events, a member
 * reaped and an export that stopped, and one that is malformed.
 */

#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "unit.h"

/* Shared pool events: a member reaped (this kernel, "self"), an export that stopped. */
void test_shpool_monitor(void)
{
	struct nl_msg *msg = unit_dev_msg(EDM_CMD_SHPOOL_REAP);
	struct nlattr *nest;

	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, 3) || nla_put_string(msg, EDM_A_SHPOOL_NAME, "cb0"))
		abort();
	nest = nla_nest_start(msg, EDM_A_SHPOOL_HOST);
	if (!nest || nla_put_u32(msg, EDM_A_SHHOST_SLOT, 1) ||
	    nla_put_u32(msg, EDM_A_SHHOST_STATE, EDM_SHPOOL_HOST_FREE) ||
	    nla_put_u32(msg, EDM_A_SHHOST_EPOCH, 2) ||
	    nla_put_string(msg, EDM_A_SHHOST_NAME, "vm0") ||
	    nla_put_u64(msg, EDM_A_SHHOST_REAPED, 1) ||
	    nla_put_flag(msg, EDM_A_SHHOST_SELF))
		abort();
	nla_nest_end(msg, nest);
	unit_expect("monitor shpool reap text", unit_monitor_one(msg, false),
		    "shpool reap 3: name cb0 slot 1 state free epoch 2 host vm0 reaped 1 self\n");
	unit_expect("monitor shpool reap json", unit_monitor_one(msg, true),
		    "{\"object\":\"shpool\",\"event\":\"reap\",\"id\":3,\"name\":\"cb0\",\"slot\":1,"
		    "\"state\":\"free\",\"epoch\":2,\"host\":\"vm0\",\"reaped\":1,\"self\":true}\n");
	nlmsg_free(msg);

	msg = unit_dev_msg(EDM_CMD_SHPOOL_EXPORT_DOWN);
	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, 3) || nla_put_string(msg, EDM_A_SHPOOL_NAME, "cb0"))
		abort();
	nest = nla_nest_start(msg, EDM_A_SHPOOL_EXPORT);
	if (!nest || nla_put_u32(msg, EDM_A_SHEXP_INDEX, 0) ||
	    nla_put_u32(msg, EDM_A_SHEXP_OWNER, 1) ||
	    nla_put_u32(msg, EDM_A_SHEXP_TARGET, 0) ||
	    nla_put_u32(msg, EDM_A_SHEXP_INSTANCE, 7) ||
	    nla_put_u32(msg, EDM_A_SHEXP_REGION, 2) ||
	    nla_put_u32(msg, EDM_A_SHEXP_DOWN, EDM_SHPOOL_DOWN_REVOKED))
		abort();
	nla_nest_end(msg, nest);
	unit_expect("monitor shpool export-down text", unit_monitor_one(msg, false),
		    "shpool export-down 3: name cb0 index 0 instance 7 region 2 owner 1 target 0 "
		    "down revoked\n");
	nlmsg_free(msg);

	/* no host and no export: malformed, said so */
	msg = unit_dev_msg(EDM_CMD_SHPOOL_REAP);
	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, 3))
		abort();
	unit_expect("monitor shpool malformed", unit_monitor_one(msg, false),
		    "shpool reap 3:(malformed)\n");
	nlmsg_free(msg);
}
