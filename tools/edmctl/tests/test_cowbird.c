// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_cowbird.c: "cowbird show" of the engine and of an
 * instance, the engine's event, the counters' tables; "unit cowbird-json"
 * prints "region show -s" and "cowbird show -s" as JSON.
 */

#include <stdio.h>
#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "obj_cowbird.h"

#include "unit.h"

/* The engine: 1 thread on CPU 1, 2 instances; counters 4000 + a. */
static struct nl_msg *cowbird_msg(uint8_t cmd)
{
	struct nl_msg *msg = unit_dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_COWBIRD_THREADS, 1) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_CPU, 1) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_INSTANCES, 2) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_PROBE_MAX_US, 1000) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_IDLE_SPINS, 64) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_BATCH, 16))
		abort();
	unit_put_counters(msg, EDM_A_COWBIRD_STATS, EDM_A_CBSTAT_PICKS, EDM_A_CBSTAT_DESTROYED,
			  4000);
	return msg;
}

/* Instance 3 on region 2: 4 rings of 64 entries, 64 KiB buffers; counters 5000 + a. */
static struct nl_msg *cbinst_msg(void)
{
	struct nl_msg *msg = unit_dev_msg(EDM_CMD_COWBIRD_INST_GET);

	if (nla_put_u32(msg, EDM_A_CBINST_ID, 3) ||
	    nla_put_u32(msg, EDM_A_CBINST_REGION_ID, 2) ||
	    nla_put_u64(msg, EDM_A_CBINST_REGION_SIZE, MiB) ||
	    nla_put_u32(msg, EDM_A_CBINST_RINGS, 4) ||
	    nla_put_u32(msg, EDM_A_CBINST_ENTRIES, 64) ||
	    nla_put_u32(msg, EDM_A_CBINST_DATA_SIZE, 65536) ||
	    nla_put_u32(msg, EDM_A_CBINST_BATCH, 16))
		abort();
	unit_put_counters(msg, EDM_A_CBINST_STATS, EDM_A_CBISTAT_PASSES,
			  EDM_A_CBISTAT_CWND_DST_WRITE, 5000);
	return msg;
}

#define ENGINE_LINE "engine threads 1 cpu 1 instances 2 probe-max-us 1000 idle-spins 64 batch 16"
#define ENGINE_STATS_TEXT \
	"\n    picks 4002 busy-skips 4003 sleeps 4004 created 4005 destroyed 4006"
#define ENGINE_JSON "\"threads\":1,\"cpu\":1,\"instances\":2,\"probe_max_us\":1000," \
	"\"idle_spins\":64,\"batch\":16"
#define INST_LINE "instance 3 region 2 size 1M rings 4 entries 64 data 64K batch 16"
#define INST_STATS_TEXT \
	"\n    ring passes 5002 fetched 5003 rejected 5004 ops 5005 completed 5006" \
	" batches 5007 stopped 5010" \
	"\n    blocked rd 5008 wr 5009" \
	"\n    rd ops 5011 bytes 5012" \
	"\n    wr ops 5013 bytes 5014" \
	"\n    errors ops 5015" \
	"\n    cc issued 5016 completed 5017 increases 5018 decreases 5019" \
	" timeout-decreases 5020 cwnd-local 5021 cwnd-dst 5022 cwnd-dst-write 5023"
#define INST_JSON "\"id\":3,\"region_id\":2,\"region_size\":1048576,\"rings\":4," \
	"\"entries\":64,\"data_size\":65536,\"batch\":16"

void test_cowbird(void)
{
	struct nl_msg *msg = cowbird_msg(EDM_CMD_COWBIRD_GET);

	unit_expect("engine text", unit_cb_one(msg, CB_ENGINE, false, false), ENGINE_LINE "\n");
	unit_expect("engine -s text", unit_cb_one(msg, CB_ENGINE, true, false),
		    ENGINE_LINE ENGINE_STATS_TEXT "\n");
	unit_expect("engine json", unit_cb_one(msg, CB_ENGINE, false, true),
		    "[{" ENGINE_JSON "}]\n");
	nlmsg_free(msg);

	msg = cowbird_msg(EDM_CMD_COWBIRD_SET);
	unit_expect("monitor cowbird set text", unit_monitor_one(msg, false),
		    "cowbird set " ENGINE_LINE "\n");
	unit_expect("monitor cowbird set json", unit_monitor_one(msg, true),
		    "{\"object\":\"cowbird\",\"event\":\"set\"," ENGINE_JSON "}\n");
	nlmsg_free(msg);

	/* Threads not pinned: no cpu. */
	msg = unit_dev_msg(EDM_CMD_COWBIRD_GET);
	if (nla_put_u32(msg, EDM_A_COWBIRD_THREADS, 2) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_BATCH, 1))
		abort();
	unit_expect("engine unpinned text", unit_cb_one(msg, CB_ENGINE, true, false),
		    "engine threads 2 batch 1\n");
	nlmsg_free(msg);

	msg = cbinst_msg();
	unit_expect("instance text", unit_cb_one(msg, CB_INST, false, false), INST_LINE "\n");
	unit_expect("instance -s text", unit_cb_one(msg, CB_INST, true, false),
		    INST_LINE INST_STATS_TEXT "\n");
	unit_expect("instance json", unit_cb_one(msg, CB_INST, false, true), "[{" INST_JSON "}]\n");
	nlmsg_free(msg);

	unit_check_stat_table("cowbird stat", cowbird_stat_count(), cowbird_stat_attr,
			      cowbird_stat_key, EDM_A_CBSTAT_PAD + 1, EDM_A_CBSTAT_MAX);
	unit_check_stat_table("instance stat", cowbird_inst_stat_count(), cowbird_inst_stat_attr,
			      cowbird_inst_stat_key, EDM_A_CBISTAT_PAD + 1, EDM_A_CBISTAT_MAX);
}

/* "region show -s" with a key, "cowbird show -s"'s engine and instance, as JSON. */
int emit_cowbird_json(void)
{
	struct nl_msg *msgs[3] = {
		unit_region_msg(EDM_CMD_REGION_GET, true), cowbird_msg(EDM_CMD_COWBIRD_GET),
		cbinst_msg(),
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		fputs(unit_cb_one(msgs[i], i, true, true), stdout);
		nlmsg_free(msgs[i]);
	}
	unit_capture_free();
	return 0;
}
