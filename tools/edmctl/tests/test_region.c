// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_region.c: "region show" with and without stats
 * and key, a newer module's kind, the rekey event, the counters' table.
 */

#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "obj_region.h"

#include "unit.h"

#define REGION_LINE "2: kind fabric owner mem0 size 1M key-gen 3"
#define REGION_KEY " key 0xfedcba9876543210"
#define REGION_STATS_TEXT \
	"\n    io reads 3002 writes 3003 read-bytes 3004 write-bytes 3005" \
	"\n    errors access 3006 range 3007"
#define REGION_JSON "\"id\":2,\"kind\":\"fabric\",\"owner\":\"mem0\",\"size\":1048576," \
	"\"key_gen\":3"
#define REGION_JSON_KEY ",\"key\":\"0xfedcba9876543210\""
#define REGION_JSON_STATS "\"stats\":{\"reads\":3002,\"writes\":3003,\"read_bytes\":3004," \
	"\"write_bytes\":3005,\"access_errors\":3006,\"range_errors\":3007}"

void test_region(void)
{
	struct nl_msg *msg = unit_region_msg(EDM_CMD_REGION_GET, false);

	unit_expect("region text", unit_cb_one(msg, CB_REGION, false, false), REGION_LINE "\n");
	unit_expect("region json", unit_cb_one(msg, CB_REGION, false, true),
		    "[{" REGION_JSON "}]\n");
	unit_expect("region -s text", unit_cb_one(msg, CB_REGION, true, false),
		    REGION_LINE REGION_STATS_TEXT "\n");
	unit_expect("region -s json", unit_cb_one(msg, CB_REGION, true, true),
		    "[{" REGION_JSON "," REGION_JSON_STATS "}]\n");
	nlmsg_free(msg);

	/* With the key (CAP_NET_ADMIN): a hex string, all 64 bits, in both outputs. */
	msg = unit_region_msg(EDM_CMD_REGION_GET, true);
	unit_expect("region key text", unit_cb_one(msg, CB_REGION, false, false),
		    REGION_LINE REGION_KEY "\n");
	unit_expect("region key json", unit_cb_one(msg, CB_REGION, false, true),
		    "[{" REGION_JSON REGION_JSON_KEY "}]\n");
	nlmsg_free(msg);

	/* A newer module's kind; a key of the wrong size is no key. */
	msg = unit_dev_msg(EDM_CMD_REGION_GET);
	if (nla_put_u32(msg, EDM_A_REGION_ID, 700) ||
	    nla_put_u32(msg, EDM_A_REGION_KIND, 9) ||
	    nla_put_u32(msg, EDM_A_REGION_KEY, 1) ||
	    nla_put_u32(msg, EDM_A_REGION_MAX + 1, 1))
		abort();
	unit_expect("region unknown json", unit_cb_one(msg, CB_REGION, true, true),
		    "[{\"id\":700,\"kind\":\"unknown(9)\"}]\n");
	nlmsg_free(msg);

	/* The rekey event: what the kernel sends has no key, and none is printed. */
	msg = unit_region_msg(EDM_CMD_REGION_REKEY, false);
	unit_expect("monitor region rekey text", unit_monitor_one(msg, false),
		    "region rekey " REGION_LINE "\n");
	unit_expect("monitor region rekey json", unit_monitor_one(msg, true),
		    "{\"object\":\"region\",\"event\":\"rekey\"," REGION_JSON "}\n");
	nlmsg_free(msg);

	unit_check_stat_table("region stat", region_stat_count(), region_stat_attr, region_stat_key,
			      EDM_A_RSTAT_PAD + 1, EDM_A_RSTAT_MAX);
}
