// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * The edm generic netlink family against bad input: every command with an
 * unknown, wrongly typed, oversized, reply-only or missing attribute must
 * fail with EINVAL and an extack message that points at the attribute,
 * and an unprivileged caller must get EPERM on every mutating command
 * while it can still read. The fabric commands also get requests that
 * are well formed but wrong (a switch attribute on a host, a port past
 * the last, a link to itself): each fails with a message pointing at the
 * attribute at fault, and makes nothing. Random messages are edm_fuzz's
 * (fuzz.sh).
 * Needs edm.ko loaded and root.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/edm.h>
#include <linux/genetlink.h>

#include "genl.h"
#include "kselftest_harness.h"

/* Where the first attribute of a request starts, for extack offsets. */
#define ATTR0_OFF ((int)(NLMSG_HDRLEN + GENL_HDRLEN))
#define LIST_MAX 16

FIXTURE(cmd) {
	struct genl_sock gs;
};

/* What one command accepts; the lists end at 0. */
FIXTURE_VARIANT(cmd) {
	uint8_t cmd;
	int dump;
	uint16_t maxattr;
	uint16_t u32s[LIST_MAX];
	uint16_t u64s[LIST_MAX];
	uint16_t strs[LIST_MAX];
	uint16_t nests[LIST_MAX];
	uint16_t reply_only[LIST_MAX];
	uint16_t required[LIST_MAX];	/* each is required on its own */
	uint32_t required_u32[LIST_MAX];	/* a valid value for required[i], if not 1 */
	int needs_one;			/* needs at least one attribute */
};

FIXTURE_VARIANT_ADD(cmd, version_get) {
	.cmd = EDM_CMD_VERSION_GET,
	.maxattr = EDM_A_INFO_MAX,
	.reply_only = { EDM_A_INFO_VERSION, EDM_A_INFO_ABI_VERSION,
			EDM_A_INFO_KERNEL_RELEASE, EDM_A_INFO_DEV_COUNT },
};

FIXTURE_VARIANT_ADD(cmd, dev_get) {
	.cmd = EDM_CMD_DEV_GET,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_ID },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, dev_dump) {
	.cmd = EDM_CMD_DEV_GET,
	.dump = 1,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_ID },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
};

FIXTURE_VARIANT_ADD(cmd, dev_new) {
	.cmd = EDM_CMD_DEV_NEW,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_ID },
	.required = { EDM_A_DEV_NAME, EDM_A_DEV_TYPE },
};

FIXTURE_VARIANT_ADD(cmd, dev_del) {
	.cmd = EDM_CMD_DEV_DEL,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_ID },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
	.needs_one = 1,
};

#define NETDIMM_NOT_SELECTORS						\
	EDM_A_NETDIMM_SIZE, EDM_A_NETDIMM_PEER, EDM_A_NETDIMM_LOWER,	\
	EDM_A_NETDIMM_POLL_US, EDM_A_NETDIMM_RX_MODE,			\
	EDM_A_NETDIMM_WIRE_MBPS, EDM_A_NETDIMM_WIRE_DELAY_NS,		\
	EDM_A_NETDIMM_GEOM, EDM_A_NETDIMM_IFINDEX, EDM_A_NETDIMM_ZONE,	\
	EDM_A_NETDIMM_STATS, EDM_A_NETDIMM_NUMA_NODE

FIXTURE_VARIANT_ADD(cmd, netdimm_get) {
	.cmd = EDM_CMD_NETDIMM_GET,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_ID },
	.strs = { EDM_A_NETDIMM_NAME },
	.reply_only = { NETDIMM_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, netdimm_dump) {
	.cmd = EDM_CMD_NETDIMM_GET,
	.dump = 1,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_ID },
	.strs = { EDM_A_NETDIMM_NAME },
	.reply_only = { NETDIMM_NOT_SELECTORS },
};

FIXTURE_VARIANT_ADD(cmd, netdimm_new) {
	.cmd = EDM_CMD_NETDIMM_NEW,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_LOWER, EDM_A_NETDIMM_POLL_US, EDM_A_NETDIMM_RX_MODE,
		  EDM_A_NETDIMM_WIRE_MBPS, EDM_A_NETDIMM_WIRE_DELAY_NS, EDM_A_NETDIMM_NUMA_NODE },
	.u64s = { EDM_A_NETDIMM_SIZE },
	.strs = { EDM_A_NETDIMM_NAME, EDM_A_NETDIMM_PEER },
	.nests = { EDM_A_NETDIMM_GEOM },
	.reply_only = { EDM_A_NETDIMM_ID, EDM_A_NETDIMM_IFINDEX, EDM_A_NETDIMM_ZONE,
			EDM_A_NETDIMM_STATS },
	.required = { EDM_A_NETDIMM_NAME, EDM_A_NETDIMM_SIZE },
};

FIXTURE_VARIANT_ADD(cmd, netdimm_del) {
	.cmd = EDM_CMD_NETDIMM_DEL,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_ID },
	.strs = { EDM_A_NETDIMM_NAME },
	.reply_only = { NETDIMM_NOT_SELECTORS },
	.needs_one = 1,
};

#define FAB_NOT_SELECTORS						\
	EDM_A_FAB_TYPE, EDM_A_FAB_PORTS, EDM_A_FAB_SCHED_X, EDM_A_FAB_CHUNK,	\
	EDM_A_FAB_POLICY, EDM_A_FAB_RATE_MBPS, EDM_A_FAB_ADDR,		\
	EDM_A_FAB_REGION_SIZE, EDM_A_FAB_TIMEOUT_MS, EDM_A_FAB_MINOR,	\
	EDM_A_FAB_STATS

FIXTURE_VARIANT_ADD(cmd, fabric_get) {
	.cmd = EDM_CMD_FABRIC_GET,
	.maxattr = EDM_A_FAB_MAX,
	.u32s = { EDM_A_FAB_ID },
	.strs = { EDM_A_FAB_NAME },
	.reply_only = { FAB_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, fabric_dump) {
	.cmd = EDM_CMD_FABRIC_GET,
	.dump = 1,
	.maxattr = EDM_A_FAB_MAX,
	.u32s = { EDM_A_FAB_ID },
	.strs = { EDM_A_FAB_NAME },
	.reply_only = { FAB_NOT_SELECTORS },
};

FIXTURE_VARIANT_ADD(cmd, fabric_new) {
	.cmd = EDM_CMD_FABRIC_NEW,
	.maxattr = EDM_A_FAB_MAX,
	.u32s = { EDM_A_FAB_TYPE, EDM_A_FAB_PORTS, EDM_A_FAB_SCHED_X, EDM_A_FAB_CHUNK,
		  EDM_A_FAB_POLICY, EDM_A_FAB_RATE_MBPS, EDM_A_FAB_ADDR, EDM_A_FAB_TIMEOUT_MS },
	.u64s = { EDM_A_FAB_REGION_SIZE },
	.strs = { EDM_A_FAB_NAME },
	.reply_only = { EDM_A_FAB_ID, EDM_A_FAB_MINOR, EDM_A_FAB_STATS },
	.required = { EDM_A_FAB_NAME, EDM_A_FAB_TYPE },
	.required_u32 = { 0, EDM_DEV_TYPE_FSWITCH },
};

FIXTURE_VARIANT_ADD(cmd, fabric_del) {
	.cmd = EDM_CMD_FABRIC_DEL,
	.maxattr = EDM_A_FAB_MAX,
	.u32s = { EDM_A_FAB_ID },
	.strs = { EDM_A_FAB_NAME },
	.reply_only = { FAB_NOT_SELECTORS },
	.needs_one = 1,
};

/* What a running switch cannot change is rejected like a reply-only attribute. */
FIXTURE_VARIANT_ADD(cmd, fabric_set) {
	.cmd = EDM_CMD_FABRIC_SET,
	.maxattr = EDM_A_FAB_MAX,
	.u32s = { EDM_A_FAB_ID, EDM_A_FAB_POLICY, EDM_A_FAB_CHUNK },
	.strs = { EDM_A_FAB_NAME },
	.reply_only = { EDM_A_FAB_TYPE, EDM_A_FAB_PORTS, EDM_A_FAB_SCHED_X, EDM_A_FAB_RATE_MBPS,
			EDM_A_FAB_ADDR, EDM_A_FAB_REGION_SIZE, EDM_A_FAB_TIMEOUT_MS,
			EDM_A_FAB_MINOR, EDM_A_FAB_STATS },
	.needs_one = 1,
};

#define FLINK_NOT_SELECTORS						\
	EDM_A_FLINK_PEER, EDM_A_FLINK_PEER_PORT, EDM_A_FLINK_IFINDEX,	\
	EDM_A_FLINK_RATE_MBPS, EDM_A_FLINK_DELAY_NS, EDM_A_FLINK_MUX,	\
	EDM_A_FLINK_STATE, EDM_A_FLINK_SHERR_THRESHOLD, EDM_A_FLINK_CORRUPT, \
	EDM_A_FLINK_STATS, EDM_A_FLINK_REASON

FIXTURE_VARIANT_ADD(cmd, flink_get) {
	.cmd = EDM_CMD_FLINK_GET,
	.maxattr = EDM_A_FLINK_MAX,
	.u32s = { EDM_A_FLINK_PORT },
	.strs = { EDM_A_FLINK_NODE },
	.reply_only = { FLINK_NOT_SELECTORS },
	.required = { EDM_A_FLINK_NODE },
};

FIXTURE_VARIANT_ADD(cmd, flink_dump) {
	.cmd = EDM_CMD_FLINK_GET,
	.dump = 1,
	.maxattr = EDM_A_FLINK_MAX,
	.u32s = { EDM_A_FLINK_PORT },
	.strs = { EDM_A_FLINK_NODE },
	.reply_only = { FLINK_NOT_SELECTORS },
};

FIXTURE_VARIANT_ADD(cmd, flink_new) {
	.cmd = EDM_CMD_FLINK_NEW,
	.maxattr = EDM_A_FLINK_MAX,
	.u32s = { EDM_A_FLINK_PORT, EDM_A_FLINK_PEER_PORT, EDM_A_FLINK_IFINDEX,
		  EDM_A_FLINK_RATE_MBPS, EDM_A_FLINK_DELAY_NS, EDM_A_FLINK_MUX,
		  EDM_A_FLINK_SHERR_THRESHOLD },
	.strs = { EDM_A_FLINK_NODE, EDM_A_FLINK_PEER },
	.reply_only = { EDM_A_FLINK_STATE, EDM_A_FLINK_CORRUPT, EDM_A_FLINK_STATS,
			EDM_A_FLINK_REASON },
	.required = { EDM_A_FLINK_NODE },
};

FIXTURE_VARIANT_ADD(cmd, flink_del) {
	.cmd = EDM_CMD_FLINK_DEL,
	.maxattr = EDM_A_FLINK_MAX,
	.u32s = { EDM_A_FLINK_PORT },
	.strs = { EDM_A_FLINK_NODE },
	.reply_only = { FLINK_NOT_SELECTORS },
	.required = { EDM_A_FLINK_NODE },
};

/* A link's ends are rejected like reply-only attributes: they cannot change. */
FIXTURE_VARIANT_ADD(cmd, flink_set) {
	.cmd = EDM_CMD_FLINK_SET,
	.maxattr = EDM_A_FLINK_MAX,
	.u32s = { EDM_A_FLINK_PORT, EDM_A_FLINK_RATE_MBPS, EDM_A_FLINK_DELAY_NS,
		  EDM_A_FLINK_MUX, EDM_A_FLINK_SHERR_THRESHOLD, EDM_A_FLINK_CORRUPT },
	.strs = { EDM_A_FLINK_NODE },
	.reply_only = { EDM_A_FLINK_PEER, EDM_A_FLINK_PEER_PORT, EDM_A_FLINK_IFINDEX,
			EDM_A_FLINK_STATE, EDM_A_FLINK_STATS, EDM_A_FLINK_REASON },
	.required = { EDM_A_FLINK_NODE },
};

/* EDM_CMD_FLINK_DOWN is an event: no request takes it, so it has no variant. */

#define POOL_NOT_SELECTORS						\
	EDM_A_POOL_SIZE, EDM_A_POOL_NUMA_NODE, EDM_A_POOL_REGION_SECTIONS,	\
	EDM_A_POOL_KEEP, EDM_A_POOL_NODE_QUOTA, EDM_A_POOL_SECTIONS,	\
	EDM_A_POOL_REGIONS, EDM_A_POOL_USERS, EDM_A_POOL_STATS

FIXTURE_VARIANT_ADD(cmd, pool_get) {
	.cmd = EDM_CMD_POOL_GET,
	.maxattr = EDM_A_POOL_MAX,
	.u32s = { EDM_A_POOL_ID },
	.strs = { EDM_A_POOL_NAME },
	.reply_only = { POOL_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, pool_dump) {
	.cmd = EDM_CMD_POOL_GET,
	.dump = 1,
	.maxattr = EDM_A_POOL_MAX,
	.u32s = { EDM_A_POOL_ID },
	.strs = { EDM_A_POOL_NAME },
	.reply_only = { POOL_NOT_SELECTORS },
};

FIXTURE_VARIANT_ADD(cmd, pool_new) {
	.cmd = EDM_CMD_POOL_NEW,
	.maxattr = EDM_A_POOL_MAX,
	.u32s = { EDM_A_POOL_NUMA_NODE, EDM_A_POOL_REGION_SECTIONS, EDM_A_POOL_KEEP,
		  EDM_A_POOL_NODE_QUOTA },
	.u64s = { EDM_A_POOL_SIZE },
	.strs = { EDM_A_POOL_NAME },
	.reply_only = { EDM_A_POOL_ID, EDM_A_POOL_SECTIONS, EDM_A_POOL_REGIONS,
			EDM_A_POOL_USERS, EDM_A_POOL_STATS },
	.required = { EDM_A_POOL_NAME, EDM_A_POOL_SIZE },
};

FIXTURE_VARIANT_ADD(cmd, pool_del) {
	.cmd = EDM_CMD_POOL_DEL,
	.maxattr = EDM_A_POOL_MAX,
	.u32s = { EDM_A_POOL_ID },
	.strs = { EDM_A_POOL_NAME },
	.reply_only = { POOL_NOT_SELECTORS },
	.needs_one = 1,
};

/* What a pool cannot change after creation is rejected like a reply-only attribute. */
FIXTURE_VARIANT_ADD(cmd, pool_set) {
	.cmd = EDM_CMD_POOL_SET,
	.maxattr = EDM_A_POOL_MAX,
	.u32s = { EDM_A_POOL_ID, EDM_A_POOL_KEEP, EDM_A_POOL_NODE_QUOTA },
	.strs = { EDM_A_POOL_NAME },
	.reply_only = { EDM_A_POOL_SIZE, EDM_A_POOL_NUMA_NODE, EDM_A_POOL_REGION_SECTIONS,
			EDM_A_POOL_SECTIONS, EDM_A_POOL_REGIONS, EDM_A_POOL_USERS,
			EDM_A_POOL_STATS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, rack_get) {
	.cmd = EDM_CMD_RACK_GET,
	.maxattr = EDM_A_RACK_MAX,
	.u32s = { EDM_A_RACK_ID },
	.strs = { EDM_A_RACK_NAME },
	.reply_only = { EDM_A_RACK_POOL, EDM_A_RACK_CNS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, rack_dump) {
	.cmd = EDM_CMD_RACK_GET,
	.dump = 1,
	.maxattr = EDM_A_RACK_MAX,
	.u32s = { EDM_A_RACK_ID },
	.strs = { EDM_A_RACK_NAME },
	.reply_only = { EDM_A_RACK_POOL, EDM_A_RACK_CNS },
};

FIXTURE_VARIANT_ADD(cmd, rack_new) {
	.cmd = EDM_CMD_RACK_NEW,
	.maxattr = EDM_A_RACK_MAX,
	.strs = { EDM_A_RACK_NAME, EDM_A_RACK_POOL },
	.reply_only = { EDM_A_RACK_ID, EDM_A_RACK_CNS },
	.required = { EDM_A_RACK_NAME, EDM_A_RACK_POOL },
};

FIXTURE_VARIANT_ADD(cmd, rack_del) {
	.cmd = EDM_CMD_RACK_DEL,
	.maxattr = EDM_A_RACK_MAX,
	.u32s = { EDM_A_RACK_ID },
	.strs = { EDM_A_RACK_NAME },
	.reply_only = { EDM_A_RACK_POOL, EDM_A_RACK_CNS },
	.needs_one = 1,
};

#define CN_DCACHE							\
	EDM_A_CN_DCACHE_REGION, EDM_A_CN_DCACHE_SETS, EDM_A_CN_DCACHE_WAYS,	\
	EDM_A_CN_DCACHE_GRAN, EDM_A_CN_DCACHE_MIN_LEN

/* A compute node is named by its rack and its name: both are required. */
FIXTURE_VARIANT_ADD(cmd, cn_get) {
	.cmd = EDM_CMD_CN_GET,
	.maxattr = EDM_A_CN_MAX,
	.strs = { EDM_A_CN_NAME, EDM_A_CN_RACK },
	.reply_only = { EDM_A_CN_NODE, EDM_A_CN_IFINDEX, CN_DCACHE, EDM_A_CN_STATS },
	.required = { EDM_A_CN_RACK, EDM_A_CN_NAME },
};

FIXTURE_VARIANT_ADD(cmd, cn_dump) {
	.cmd = EDM_CMD_CN_GET,
	.dump = 1,
	.maxattr = EDM_A_CN_MAX,
	.strs = { EDM_A_CN_NAME, EDM_A_CN_RACK },
	.reply_only = { EDM_A_CN_NODE, EDM_A_CN_IFINDEX, CN_DCACHE, EDM_A_CN_STATS },
};

FIXTURE_VARIANT_ADD(cmd, cn_new) {
	.cmd = EDM_CMD_CN_NEW,
	.maxattr = EDM_A_CN_MAX,
	.u32s = { CN_DCACHE },
	.strs = { EDM_A_CN_NAME, EDM_A_CN_RACK },
	.reply_only = { EDM_A_CN_NODE, EDM_A_CN_IFINDEX, EDM_A_CN_STATS },
	.required = { EDM_A_CN_RACK, EDM_A_CN_NAME },
};

FIXTURE_VARIANT_ADD(cmd, cn_del) {
	.cmd = EDM_CMD_CN_DEL,
	.maxattr = EDM_A_CN_MAX,
	.strs = { EDM_A_CN_NAME, EDM_A_CN_RACK },
	.reply_only = { EDM_A_CN_NODE, EDM_A_CN_IFINDEX, CN_DCACHE, EDM_A_CN_STATS },
	.required = { EDM_A_CN_RACK, EDM_A_CN_NAME },
};

FIXTURE_VARIANT_ADD(cmd, cn_set) {
	.cmd = EDM_CMD_CN_SET,
	.maxattr = EDM_A_CN_MAX,
	.u32s = { CN_DCACHE },
	.strs = { EDM_A_CN_NAME, EDM_A_CN_RACK },
	.reply_only = { EDM_A_CN_NODE, EDM_A_CN_IFINDEX, EDM_A_CN_STATS },
	.required = { EDM_A_CN_RACK, EDM_A_CN_NAME },
};

#define REGION_NOT_SELECTORS						\
	EDM_A_REGION_KIND, EDM_A_REGION_SIZE, EDM_A_REGION_KEY,		\
	EDM_A_REGION_KEY_GEN, EDM_A_REGION_STATS

FIXTURE_VARIANT_ADD(cmd, region_get) {
	.cmd = EDM_CMD_REGION_GET,
	.maxattr = EDM_A_REGION_MAX,
	.u32s = { EDM_A_REGION_ID },
	.strs = { EDM_A_REGION_OWNER },
	.reply_only = { REGION_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, region_dump) {
	.cmd = EDM_CMD_REGION_GET,
	.dump = 1,
	.maxattr = EDM_A_REGION_MAX,
	.u32s = { EDM_A_REGION_ID },
	.strs = { EDM_A_REGION_OWNER },
	.reply_only = { REGION_NOT_SELECTORS },
};

/* The key is the kernel's to draw: a request cannot carry one. */
FIXTURE_VARIANT_ADD(cmd, region_rekey) {
	.cmd = EDM_CMD_REGION_REKEY,
	.maxattr = EDM_A_REGION_MAX,
	.u32s = { EDM_A_REGION_ID },
	.strs = { EDM_A_REGION_OWNER },
	.reply_only = { REGION_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, cowbird_get) {
	.cmd = EDM_CMD_COWBIRD_GET,
	.maxattr = EDM_A_COWBIRD_MAX,
	.reply_only = { EDM_A_COWBIRD_THREADS, EDM_A_COWBIRD_CPU, EDM_A_COWBIRD_INSTANCES,
			EDM_A_COWBIRD_PROBE_MAX_US, EDM_A_COWBIRD_IDLE_SPINS,
			EDM_A_COWBIRD_BATCH, EDM_A_COWBIRD_STATS },
};

FIXTURE_VARIANT_ADD(cmd, cowbird_set) {
	.cmd = EDM_CMD_COWBIRD_SET,
	.maxattr = EDM_A_COWBIRD_MAX,
	.u32s = { EDM_A_COWBIRD_PROBE_MAX_US, EDM_A_COWBIRD_IDLE_SPINS, EDM_A_COWBIRD_BATCH },
	.reply_only = { EDM_A_COWBIRD_THREADS, EDM_A_COWBIRD_CPU, EDM_A_COWBIRD_INSTANCES,
			EDM_A_COWBIRD_STATS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, cowbird_inst_dump) {
	.cmd = EDM_CMD_COWBIRD_INST_GET,
	.dump = 1,
	.maxattr = EDM_A_CBINST_MAX,
	.reply_only = { EDM_A_CBINST_ID, EDM_A_CBINST_REGION_ID, EDM_A_CBINST_REGION_SIZE,
			EDM_A_CBINST_RINGS, EDM_A_CBINST_ENTRIES, EDM_A_CBINST_DATA_SIZE,
			EDM_A_CBINST_BATCH, EDM_A_CBINST_STATS },
};

/* A pool region is made in a pool (OWNER) of SIZE bytes; the ID may be chosen. */
FIXTURE_VARIANT_ADD(cmd, region_new) {
	.cmd = EDM_CMD_REGION_NEW,
	.maxattr = EDM_A_REGION_MAX,
	.u32s = { EDM_A_REGION_ID },
	.u64s = { EDM_A_REGION_SIZE },
	.strs = { EDM_A_REGION_OWNER },
	.reply_only = { EDM_A_REGION_KIND, EDM_A_REGION_KEY, EDM_A_REGION_KEY_GEN,
			EDM_A_REGION_STATS },
	.required = { EDM_A_REGION_OWNER, EDM_A_REGION_SIZE },
};

FIXTURE_VARIANT_ADD(cmd, region_del) {
	.cmd = EDM_CMD_REGION_DEL,
	.maxattr = EDM_A_REGION_MAX,
	.u32s = { EDM_A_REGION_ID },
	.strs = { EDM_A_REGION_OWNER },
	.reply_only = { REGION_NOT_SELECTORS },
	.needs_one = 1,
};

#define NICPOOL_REPLY_ONLY						\
	EDM_A_NICPOOL_NODE, EDM_A_NICPOOL_TAG, EDM_A_NICPOOL_MEMBERS,	\
	EDM_A_NICPOOL_MEMBER, EDM_A_NICPOOL_STATS

/* Members are named only by NIC_ADD and NIC_DEL: NIC is rejected elsewhere. */
FIXTURE_VARIANT_ADD(cmd, nicpool_get) {
	.cmd = EDM_CMD_NICPOOL_GET,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_ID },
	.strs = { EDM_A_NICPOOL_NAME },
	.reply_only = { EDM_A_NICPOOL_RACK, EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US,
			EDM_A_NICPOOL_NIC, NICPOOL_REPLY_ONLY },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, nicpool_dump) {
	.cmd = EDM_CMD_NICPOOL_GET,
	.dump = 1,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_ID },
	.strs = { EDM_A_NICPOOL_NAME },
	.reply_only = { EDM_A_NICPOOL_RACK, EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US,
			EDM_A_NICPOOL_NIC, NICPOOL_REPLY_ONLY },
};

FIXTURE_VARIANT_ADD(cmd, nicpool_new) {
	.cmd = EDM_CMD_NICPOOL_NEW,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US },
	.strs = { EDM_A_NICPOOL_NAME, EDM_A_NICPOOL_RACK },
	.reply_only = { EDM_A_NICPOOL_ID, EDM_A_NICPOOL_NIC, NICPOOL_REPLY_ONLY },
	.required = { EDM_A_NICPOOL_NAME, EDM_A_NICPOOL_RACK },
};

FIXTURE_VARIANT_ADD(cmd, nicpool_del) {
	.cmd = EDM_CMD_NICPOOL_DEL,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_ID },
	.strs = { EDM_A_NICPOOL_NAME },
	.reply_only = { EDM_A_NICPOOL_RACK, EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US,
			EDM_A_NICPOOL_NIC, NICPOOL_REPLY_ONLY },
	.needs_one = 1,
};

/* The rack a NIC pool serves is fixed: rejected like a reply-only attribute. */
FIXTURE_VARIANT_ADD(cmd, nicpool_set) {
	.cmd = EDM_CMD_NICPOOL_SET,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_ID, EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US },
	.strs = { EDM_A_NICPOOL_NAME },
	.reply_only = { EDM_A_NICPOOL_RACK, EDM_A_NICPOOL_NIC, NICPOOL_REPLY_ONLY },
	.needs_one = 1,
};

/* NIC, and the pool by ID or name; mode and gap are NICPOOL_SET's. */
FIXTURE_VARIANT_ADD(cmd, nicpool_nic_add) {
	.cmd = EDM_CMD_NICPOOL_NIC_ADD,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_ID },
	.strs = { EDM_A_NICPOOL_NAME, EDM_A_NICPOOL_NIC },
	.reply_only = { EDM_A_NICPOOL_RACK, EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US,
			NICPOOL_REPLY_ONLY },
	.required = { EDM_A_NICPOOL_NIC },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, nicpool_nic_del) {
	.cmd = EDM_CMD_NICPOOL_NIC_DEL,
	.maxattr = EDM_A_NICPOOL_MAX,
	.u32s = { EDM_A_NICPOOL_ID },
	.strs = { EDM_A_NICPOOL_NAME, EDM_A_NICPOOL_NIC },
	.reply_only = { EDM_A_NICPOOL_RACK, EDM_A_NICPOOL_MODE, EDM_A_NICPOOL_FLOWLET_GAP_US,
			NICPOOL_REPLY_ONLY },
	.required = { EDM_A_NICPOOL_NIC },
	.needs_one = 1,
};

FIXTURE_SETUP(cmd)
{
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME)) {
		TH_LOG("edm family not found: is edm.ko loaded?");
	}
}

FIXTURE_TEARDOWN(cmd)
{
	genl_close(&self->gs);
}

/* Send one message made of @ab; expect EINVAL with a message. */
static int send_bad(struct __test_metadata *_metadata, struct genl_sock *gs,
		    const FIXTURE_VARIANT(cmd) *v, const struct attrbuf *ab, const char *what)
{
	int err = genl_request(gs, v->cmd, v->dump, ab, NULL, NULL);

	EXPECT_EQ(-EINVAL, err) {
		TH_LOG("%s: got %d (%s)", what, err, gs->errmsg);
	}
	EXPECT_NE('\0', gs->errmsg[0]) {
		TH_LOG("%s: no extack message", what);
	}
	return err;
}

/* A single bad attribute: the extack offset must point at it. */
static void send_bad_attr(struct __test_metadata *_metadata, struct genl_sock *gs,
			  const FIXTURE_VARIANT(cmd) *v, uint16_t type, const void *data,
			  size_t len, const char *what)
{
	struct attrbuf ab = {};

	ab_put(&ab, type, data, len);
	if (send_bad(_metadata, gs, v, &ab, what) == -EINVAL)
		EXPECT_EQ(ATTR0_OFF, gs->erroff) {
			TH_LOG("%s (attr %u): extack offset %d", what, type, gs->erroff);
		}
}

TEST_F(cmd, unknown_attribute)
{
	uint32_t v32 = 1;

	send_bad_attr(_metadata, &self->gs, variant, variant->maxattr + 1, &v32, 4, "maxattr+1");
	send_bad_attr(_metadata, &self->gs, variant, 0x3fff, &v32, 4, "type 0x3fff");
	send_bad_attr(_metadata, &self->gs, variant, 0, &v32, 4, "type 0 (unspec)");
}

TEST_F(cmd, wrongly_typed_attribute)
{
	const char nonul[4] = { 'a', 'b', 'c', 'd' };
	uint32_t v32 = 1;
	int i, len;

	for (i = 0; variant->u32s[i]; i++)
		for (len = 0; len < 4; len++)
			send_bad_attr(_metadata, &self->gs, variant, variant->u32s[i], &v32, len,
				      "short u32");
	for (i = 0; variant->strs[i]; i++) {
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], nonul, 4,
			      "string without NUL");
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], nonul, 0,
			      "empty string attribute");
	}
	for (i = 0; variant->u64s[i]; i++)
		for (len = 0; len < 8; len += 4)
			send_bad_attr(_metadata, &self->gs, variant, variant->u64s[i], &v32, len,
				      "short u64");
	for (i = 0; variant->nests[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->nests[i], &v32, 0,
			      "a nest without NLA_F_NESTED");
	for (i = 0; variant->u32s[i]; i++) {
		uint32_t v = 1 | NLA_F_NESTED;	/* payload does not matter */

		send_bad_attr(_metadata, &self->gs, variant, variant->u32s[i] | NLA_F_NESTED, &v, 4,
			      "NLA_F_NESTED on a u32");
	}
}

TEST_F(cmd, oversized_attribute)
{
	static char big[4000];
	uint64_t v64 = 1;
	int i;

	memset(big, 'a', sizeof(big) - 1);
	uint64_t v128[2] = { 1, 1 };

	for (i = 0; variant->u32s[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->u32s[i], &v64, 8,
			      "8-byte u32");
	for (i = 0; variant->u64s[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->u64s[i], v128, 16,
			      "16-byte u64");
	for (i = 0; variant->strs[i]; i++) {
		char name[EDM_NAME_LEN + 1];

		memset(name, 'a', EDM_NAME_LEN);
		name[EDM_NAME_LEN] = '\0';	/* one character too many */
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], name, sizeof(name),
			      "name of EDM_NAME_LEN characters");
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], big, sizeof(big),
			      "4000-byte string");
	}
}

TEST_F(cmd, reply_only_attribute)
{
	uint32_t v32 = 1;
	int i;

	for (i = 0; variant->reply_only[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->reply_only[i], &v32, 4,
			      "reply-only attribute");
}

TEST_F(cmd, trailing_bytes)
{
	struct attrbuf ab = {};

	ab.len = 3;	/* less than an attribute header */
	memset(ab.data, 0xff, 3);
	send_bad(_metadata, &self->gs, variant, &ab, "3 stray bytes");
}

static int listed(const uint16_t *list, uint16_t type)
{
	int i;

	for (i = 0; list[i]; i++)
		if (list[i] == type)
			return 1;
	return 0;
}

/* Valid values for a command's required attributes, except @skip. */
static void put_required(struct attrbuf *ab, const FIXTURE_VARIANT(cmd) *v, uint16_t skip)
{
	int i;

	for (i = 0; v->required[i]; i++) {
		uint16_t type = v->required[i];
		uint64_t size = 8 << 20;

		if (type == skip)
			continue;
		if (listed(v->strs, type))	/* a name, of the object or of its parent */
			ab_put_str(ab, type, "missing0");
		else if (type == v->u64s[0])
			ab_put(ab, type, &size, sizeof(size));
		else
			ab_put_u32(ab, type, v->required_u32[i] ?: 1);
	}
}

TEST_F(cmd, missing_attribute)
{
	struct attrbuf ab = {};
	int i, err;

	for (i = 0; variant->required[i]; i++) {
		memset(&ab, 0, sizeof(ab));
		put_required(&ab, variant, variant->required[i]);
		if (send_bad(_metadata, &self->gs, variant, &ab, "required attribute left out"))
			EXPECT_EQ(variant->required[i], self->gs.misstype);
	}
	if (variant->needs_one) {
		send_bad(_metadata, &self->gs, variant, NULL, "no attribute at all");
	} else if (!variant->required[0]) {
		/* Nothing is required: the bare request must succeed. */
		err = genl_request(&self->gs, variant->cmd, variant->dump, NULL, NULL, NULL);
		EXPECT_EQ(0, err) {
			TH_LOG("bare request: %d (%s)", err, self->gs.errmsg);
		}
	}
}

/* A device created for a test, by name. */
static uint32_t dev_new(struct genl_sock *gs, const char *name, int *err);

static void id_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_DEV_ID);

	if (a)
		*(uint32_t *)arg = *(const uint32_t *)((const char *)a + NLA_HDRLEN);
}

static uint32_t dev_new(struct genl_sock *gs, const char *name, int *err)
{
	struct attrbuf ab = {};
	uint32_t id = 0;

	ab_put_str(&ab, EDM_A_DEV_NAME, name);
	ab_put_u32(&ab, EDM_A_DEV_TYPE, EDM_DEV_TYPE_NULL);
	*err = genl_request(gs, EDM_CMD_DEV_NEW, 0, &ab, id_cb, &id);
	return id;
}

static int dev_del(struct genl_sock *gs, uint32_t id)
{
	struct attrbuf ab = {};

	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	return genl_request(gs, EDM_CMD_DEV_DEL, 0, &ab, NULL, NULL);
}

struct id_set {
	int n;
	uint32_t ids[8192];
};

static void collect_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	struct id_set *set = arg;
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_DEV_ID);

	if (a && set->n < (int)(sizeof(set->ids) / sizeof(set->ids[0])))
		set->ids[set->n++] = *(const uint32_t *)((const char *)a + NLA_HDRLEN);
}

static void dev_del_all(struct __test_metadata *_metadata, struct genl_sock *gs)
{
	static struct id_set set;
	int i;

	set.n = 0;
	ASSERT_EQ(0, genl_request(gs, EDM_CMD_DEV_GET, 1, NULL, collect_cb, &set));
	for (i = 0; i < set.n; i++)
		EXPECT_EQ(0, dev_del(gs, set.ids[i]));
}

FIXTURE(edm) {
	struct genl_sock gs;
};

FIXTURE_SETUP(edm)
{
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	dev_del_all(_metadata, &self->gs);
}

FIXTURE_TEARDOWN(edm)
{
	genl_close(&self->gs);
}

TEST_F(edm, device_lifecycle)
{
	struct attrbuf ab = {};
	uint32_t id, id2 = 0;
	int err;

	id = dev_new(&self->gs, "life0", &err);
	ASSERT_EQ(0, err);
	ASSERT_NE(0U, id);

	ab_put_str(&ab, EDM_A_DEV_NAME, "life0");
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_DEV_GET, 0, &ab, id_cb, &id2));
	EXPECT_EQ(id, id2);

	dev_new(&self->gs, "life0", &err);
	EXPECT_EQ(-EEXIST, err);
	EXPECT_NE('\0', self->gs.errmsg[0]);

	dev_new(&self->gs, "bad/name", &err);
	EXPECT_EQ(-EINVAL, err);
	EXPECT_NE('\0', self->gs.errmsg[0]);
	dev_new(&self->gs, "-dash", &err);
	EXPECT_EQ(-EINVAL, err);

	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	ab_put_str(&ab, EDM_A_DEV_NAME, "life0");
	EXPECT_EQ(-EINVAL, genl_request(&self->gs, EDM_CMD_DEV_GET, 0, &ab, NULL, NULL));
	EXPECT_NE('\0', self->gs.errmsg[0]);

	EXPECT_EQ(0, dev_del(&self->gs, id));
	EXPECT_EQ(-ENODEV, dev_del(&self->gs, id));
	EXPECT_NE('\0', self->gs.errmsg[0]);
	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	EXPECT_EQ(-ENODEV, genl_request(&self->gs, EDM_CMD_DEV_GET, 0, &ab, NULL, NULL));
}

TEST_F(edm, out_of_range_values)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_DEV_NAME, "range0");
	ab_put_u32(&ab, EDM_A_DEV_TYPE, EDM_DEV_TYPE_MAX + 1);
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_DEV_NEW, 0, &ab, NULL, NULL));
	EXPECT_NE('\0', self->gs.errmsg[0]);

	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_DEV_NAME, "range0");
	ab_put_u32(&ab, EDM_A_DEV_TYPE, EDM_DEV_TYPE_NULL);
	ab_put_u32(&ab, EDM_A_DEV_BACKEND, 0);
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_DEV_NEW, 0, &ab, NULL, NULL));

	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_DEV_ID, 0);
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_DEV_DEL, 0, &ab, NULL, NULL));
}

/* A dump larger than one message buffer returns every device once. */
TEST_F(edm, dump_spans_messages)
{
	static struct id_set set;
	const int n = 300;
	char name[EDM_NAME_LEN];
	int i, j, err;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "many%d", i);
		dev_new(&self->gs, name, &err);
		ASSERT_EQ(0, err);
	}
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_DEV_GET, 1, NULL, collect_cb, &set));
	EXPECT_EQ(n, set.n);
	for (i = 0; i < set.n; i++)
		for (j = i + 1; j < set.n; j++)
			ASSERT_NE(set.ids[i], set.ids[j]);
	dev_del_all(_metadata, &self->gs);
}

/* ---- the EDM fabric ---- */

/* The attributes of the last reply message, for the checks that follow. */
struct reply {
	size_t len;
	unsigned char data[8192];
};

static void reply_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	struct reply *r = arg;

	r->len = len < sizeof(r->data) ? len : sizeof(r->data);
	memcpy(r->data, attrs, r->len);
}

static const struct nlattr *reply_attr(const struct reply *r, uint16_t type)
{
	return genl_attr((const struct nlattr *)r->data, r->len, type);
}

/* The u32 @type of the reply, or ~0 if it has none. */
static uint32_t reply_u32(const struct reply *r, uint16_t type)
{
	const struct nlattr *a = reply_attr(r, type);
	uint32_t v = ~0U;

	if (a && a->nla_len == NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static uint64_t reply_u64(const struct reply *r, uint16_t type)
{
	const struct nlattr *a = reply_attr(r, type);
	uint64_t v = ~0ULL;

	if (a && a->nla_len == NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static const char *reply_str(const struct reply *r, uint16_t type)
{
	const struct nlattr *a = reply_attr(r, type);

	return a ? (const char *)a + NLA_HDRLEN : "";
}

/* Is counter @stat in the reply's stats nest @nest? */
static int reply_has_stat(const struct reply *r, uint16_t nest, uint16_t stat)
{
	const struct nlattr *a = reply_attr(r, nest);

	return a && genl_attr((const struct nlattr *)((const char *)a + NLA_HDRLEN),
			      a->nla_len - NLA_HDRLEN, stat) != NULL;
}

/* Where NLMSGERR_ATTR_OFFS points for the attribute put next into @ab. */
static int next_off(const struct attrbuf *ab)
{
	return ATTR0_OFF + (int)ab->len;
}

static int fab_switch(struct genl_sock *gs, const char *name, uint32_t ports, struct reply *r)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	ab_put_u32(&ab, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FSWITCH);
	ab_put_u32(&ab, EDM_A_FAB_PORTS, ports);
	return genl_request(gs, EDM_CMD_FABRIC_NEW, 0, &ab, r ? reply_cb : NULL, r);
}

static int fab_host(struct genl_sock *gs, const char *name, uint32_t addr, uint64_t region,
		    struct reply *r)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	ab_put_u32(&ab, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FHOST);
	ab_put_u32(&ab, EDM_A_FAB_ADDR, addr);
	if (region)
		ab_put(&ab, EDM_A_FAB_REGION_SIZE, &region, sizeof(region));
	return genl_request(gs, EDM_CMD_FABRIC_NEW, 0, &ab, r ? reply_cb : NULL, r);
}

static int fab_by_name(struct genl_sock *gs, uint8_t cmd, const char *name, struct reply *r)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	return genl_request(gs, cmd, 0, &ab, r ? reply_cb : NULL, r);
}

/* An emulated link @node:@port -- @peer:@peer_port. */
static int flink_emu(struct genl_sock *gs, const char *node, uint32_t port, const char *peer,
		     uint32_t peer_port, struct reply *r)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FLINK_NODE, node);
	ab_put_u32(&ab, EDM_A_FLINK_PORT, port);
	ab_put_str(&ab, EDM_A_FLINK_PEER, peer);
	ab_put_u32(&ab, EDM_A_FLINK_PEER_PORT, peer_port);
	return genl_request(gs, EDM_CMD_FLINK_NEW, 0, &ab, r ? reply_cb : NULL, r);
}

/* FLINK_GET (or DEL, dump) of @node, and of @port unless it is -1. */
static int flink_req(struct genl_sock *gs, uint8_t cmd, int dump, const char *node, int port,
		     struct reply *r)
{
	struct attrbuf ab = {};

	if (node)
		ab_put_str(&ab, EDM_A_FLINK_NODE, node);
	if (port >= 0)
		ab_put_u32(&ab, EDM_A_FLINK_PORT, port);
	return genl_request(gs, cmd, dump, &ab, r ? reply_cb : NULL, r);
}

/* @ab must fail with @err and a message; @off: the extack offset, or -1. */
static void expect_bad(struct __test_metadata *_metadata, struct genl_sock *gs, uint8_t cmd,
		       const struct attrbuf *ab, int err, int off, const char *what)
{
	int ret = genl_request(gs, cmd, 0, ab, NULL, NULL);

	EXPECT_EQ(err, ret) {
		TH_LOG("%s: got %d (%s)", what, ret, gs->errmsg);
	}
	EXPECT_NE('\0', gs->errmsg[0]) {
		TH_LOG("%s: no extack message", what);
	}
	if (off >= 0)
		EXPECT_EQ(off, gs->erroff) {
			TH_LOG("%s: extack offset %d, want %d (%s)", what, gs->erroff, off,
			       gs->errmsg);
		}
}

TEST_F(edm, fabric_nodes)
{
	struct reply r = {};
	struct attrbuf ab = {};
	int err;

	ASSERT_EQ(0, fab_switch(&self->gs, "sw0", 4, &r)) {
		TH_LOG("switch: %s", self->gs.errmsg);
	}
	EXPECT_STREQ("sw0", reply_str(&r, EDM_A_FAB_NAME));
	EXPECT_EQ((uint32_t)EDM_DEV_TYPE_FSWITCH, reply_u32(&r, EDM_A_FAB_TYPE));
	EXPECT_EQ(4U, reply_u32(&r, EDM_A_FAB_PORTS));
	/* The defaults the issue names: X 3, chunk 256 B, SRPT. */
	EXPECT_EQ(3U, reply_u32(&r, EDM_A_FAB_SCHED_X));
	EXPECT_EQ(256U, reply_u32(&r, EDM_A_FAB_CHUNK));
	EXPECT_EQ((uint32_t)EDM_FAB_POLICY_SRPT, reply_u32(&r, EDM_A_FAB_POLICY));
	EXPECT_TRUE(reply_has_stat(&r, EDM_A_FAB_STATS, EDM_A_FSTAT_GRANTS));
	EXPECT_FALSE(reply_has_stat(&r, EDM_A_FAB_STATS, EDM_A_FSTAT_READS));
	EXPECT_EQ(NULL, reply_attr(&r, EDM_A_FAB_ADDR));

	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, fab_host(&self->gs, "h0", 1, 8192, &r)) {
		TH_LOG("host: %s", self->gs.errmsg);
	}
	EXPECT_EQ((uint32_t)EDM_DEV_TYPE_FHOST, reply_u32(&r, EDM_A_FAB_TYPE));
	EXPECT_EQ(1U, reply_u32(&r, EDM_A_FAB_ADDR));
	EXPECT_EQ(8192ULL, reply_u64(&r, EDM_A_FAB_REGION_SIZE));
	EXPECT_EQ(100U, reply_u32(&r, EDM_A_FAB_TIMEOUT_MS));
	EXPECT_NE(~0U, reply_u32(&r, EDM_A_FAB_MINOR));
	EXPECT_TRUE(reply_has_stat(&r, EDM_A_FAB_STATS, EDM_A_FSTAT_READS));
	EXPECT_FALSE(reply_has_stat(&r, EDM_A_FAB_STATS, EDM_A_FSTAT_GRANTS));
	EXPECT_EQ(NULL, reply_attr(&r, EDM_A_FAB_PORTS));

	/* The dump lists fabric nodes only; a null device is not one. */
	dev_new(&self->gs, "null0", &err);
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_FABRIC_GET, 1, NULL, NULL, NULL));
	EXPECT_EQ(2, self->gs.nmsgs);
	ab_put_str(&ab, EDM_A_FAB_NAME, "null0");
	expect_bad(_metadata, &self->gs, EDM_CMD_FABRIC_GET, &ab, -ENODEV, ATTR0_OFF,
		   "a null device is no fabric node");

	/* Set: the switch's policy and chunk, and only a switch's. */
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FAB_NAME, "sw0");
	ab_put_u32(&ab, EDM_A_FAB_POLICY, EDM_FAB_POLICY_FCFS);
	ab_put_u32(&ab, EDM_A_FAB_CHUNK, 512);
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_FABRIC_SET, 0, &ab, NULL, NULL)) {
		TH_LOG("set: %s", self->gs.errmsg);
	}
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_GET, "sw0", &r));
	EXPECT_EQ((uint32_t)EDM_FAB_POLICY_FCFS, reply_u32(&r, EDM_A_FAB_POLICY));
	EXPECT_EQ(512U, reply_u32(&r, EDM_A_FAB_CHUNK));
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FAB_NAME, "h0");
	ab_put_u32(&ab, EDM_A_FAB_POLICY, EDM_FAB_POLICY_FCFS);
	expect_bad(_metadata, &self->gs, EDM_CMD_FABRIC_SET, &ab, -EINVAL, ATTR0_OFF,
		   "a host has no scheduler to set");

	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "sw0", NULL));
	EXPECT_EQ(-ENODEV, fab_by_name(&self->gs, EDM_CMD_FABRIC_GET, "sw0", NULL));
	EXPECT_EQ(-ENODEV, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "sw0", NULL));
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "h0", NULL));
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_FABRIC_GET, 1, NULL, NULL, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);
}

/* One FABRIC_NEW whose attribute at @off (-1: none) is bad. */
struct fab_bad {
	const char *what;
	uint32_t type;
	uint16_t attr;		/* the bad attribute, put last; 0: none */
	uint64_t value;
	int err;
	int misstype;		/* -1, or the attribute reported missing */
};

TEST_F(edm, fabric_bad_nodes)
{
	static const struct fab_bad bad[] = {
		{ "ports on a host", EDM_DEV_TYPE_FHOST, EDM_A_FAB_PORTS, 4, -EINVAL, -1 },
		{ "policy on a host", EDM_DEV_TYPE_FHOST, EDM_A_FAB_POLICY, 0, -EINVAL, -1 },
		{ "addr on a switch", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_ADDR, 1, -EINVAL, -1 },
		{ "region on a switch", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_REGION_SIZE, 4096,
		  -EINVAL, -1 },
		{ "timeout on a switch", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_TIMEOUT_MS, 5, -EINVAL, -1 },
		{ "region not a multiple of 4 KiB", EDM_DEV_TYPE_FHOST, EDM_A_FAB_REGION_SIZE, 4097,
		  -EINVAL, -1 },
		{ "region over 1 GiB", EDM_DEV_TYPE_FHOST, EDM_A_FAB_REGION_SIZE, 2ULL << 30,
		  -ERANGE, -1 },
		{ "1 port", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_PORTS, 1, -ERANGE, -1 },
		{ "513 ports", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_PORTS, 513, -ERANGE, -1 },
		{ "x 0", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_SCHED_X, 0, -ERANGE, -1 },
		{ "x 17", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_SCHED_X, 17, -ERANGE, -1 },
		{ "chunk 7", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_CHUNK, 7, -ERANGE, -1 },
		{ "chunk 65536", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_CHUNK, 65536, -ERANGE, -1 },
		{ "policy 2", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_POLICY, 2, -ERANGE, -1 },
		{ "rate 999", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_RATE_MBPS, 999, -ERANGE, -1 },
		{ "rate 400001", EDM_DEV_TYPE_FSWITCH, EDM_A_FAB_RATE_MBPS, 400001, -ERANGE, -1 },
		{ "addr 512", EDM_DEV_TYPE_FHOST, EDM_A_FAB_ADDR, 512, -ERANGE, -1 },
		{ "timeout 0", EDM_DEV_TYPE_FHOST, EDM_A_FAB_TIMEOUT_MS, 0, -ERANGE, -1 },
		{ "timeout 60001", EDM_DEV_TYPE_FHOST, EDM_A_FAB_TIMEOUT_MS, 60001, -ERANGE, -1 },
		{ "a null device", EDM_DEV_TYPE_NULL, 0, 0, -ERANGE, -1 },
		{ "a host with no address", EDM_DEV_TYPE_FHOST, 0, 0, -EINVAL, EDM_A_FAB_ADDR },
	};
	struct attrbuf ab;
	unsigned int i;
	int off;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct fab_bad *b = &bad[i];

		memset(&ab, 0, sizeof(ab));
		ab_put_str(&ab, EDM_A_FAB_NAME, "bad0");
		off = b->type == EDM_DEV_TYPE_NULL ? next_off(&ab) : -1;
		ab_put_u32(&ab, EDM_A_FAB_TYPE, b->type);
		/* A host's address first, unless the address is what is bad. */
		if (b->type == EDM_DEV_TYPE_FHOST && b->attr && b->attr != EDM_A_FAB_ADDR)
			ab_put_u32(&ab, EDM_A_FAB_ADDR, 1);
		if (b->attr) {
			off = next_off(&ab);
			if (b->attr == EDM_A_FAB_REGION_SIZE)
				ab_put(&ab, b->attr, &b->value, sizeof(b->value));
			else
				ab_put_u32(&ab, b->attr, (uint32_t)b->value);
		}
		expect_bad(_metadata, &self->gs, EDM_CMD_FABRIC_NEW, &ab, b->err,
			   b->misstype < 0 ? off : -1, b->what);
		if (b->misstype >= 0)
			EXPECT_EQ(b->misstype, self->gs.misstype) {
				TH_LOG("%s: missing attribute %d", b->what, self->gs.misstype);
			}
	}
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FAB_NAME, "bad/name");
	ab_put_u32(&ab, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FSWITCH);
	expect_bad(_metadata, &self->gs, EDM_CMD_FABRIC_NEW, &ab, -EINVAL, ATTR0_OFF, "bad name");

	/* Nothing of the above was made; a name in use is refused. */
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_FABRIC_GET, 1, NULL, NULL, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);
	ASSERT_EQ(0, fab_switch(&self->gs, "sw0", 4, NULL));
	EXPECT_EQ(-EEXIST, fab_host(&self->gs, "sw0", 1, 0, NULL));
	EXPECT_NE('\0', self->gs.errmsg[0]);

	/* What a running switch cannot change is refused, pointing at it. */
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FAB_NAME, "sw0");
	off = next_off(&ab);
	ab_put_u32(&ab, EDM_A_FAB_PORTS, 8);
	expect_bad(_metadata, &self->gs, EDM_CMD_FABRIC_SET, &ab, -EINVAL, off, "set ports");
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FAB_NAME, "sw0");
	off = next_off(&ab);
	ab_put_u32(&ab, EDM_A_FAB_CHUNK, 4);
	expect_bad(_metadata, &self->gs, EDM_CMD_FABRIC_SET, &ab, -ERANGE, off, "set chunk 4");
}

TEST_F(edm, fabric_links)
{
	struct attrbuf ab = {};
	struct reply r = {};

	ASSERT_EQ(0, fab_switch(&self->gs, "sw0", 4, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "h0", 1, 0, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "h1", 2, 4096, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "h2", 3, 0, NULL));

	ASSERT_EQ(0, flink_emu(&self->gs, "sw0", 1, "h0", 0, &r)) {
		TH_LOG("link: %s", self->gs.errmsg);
	}
	EXPECT_STREQ("sw0", reply_str(&r, EDM_A_FLINK_NODE));
	EXPECT_EQ(1U, reply_u32(&r, EDM_A_FLINK_PORT));
	EXPECT_STREQ("h0", reply_str(&r, EDM_A_FLINK_PEER));
	EXPECT_EQ(0U, reply_u32(&r, EDM_A_FLINK_PEER_PORT));
	EXPECT_EQ((uint32_t)EDM_FLINK_UP, reply_u32(&r, EDM_A_FLINK_STATE));
	EXPECT_EQ((uint32_t)EDM_FAB_MUX_FAIR, reply_u32(&r, EDM_A_FLINK_MUX));
	EXPECT_EQ(NULL, reply_attr(&r, EDM_A_FLINK_IFINDEX));
	EXPECT_TRUE(reply_has_stat(&r, EDM_A_FLINK_STATS, EDM_A_LSTAT_SHERR));

	/* The other direction of naming, with every parameter. */
	ab_put_str(&ab, EDM_A_FLINK_NODE, "h1");
	ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0");
	ab_put_u32(&ab, EDM_A_FLINK_PEER_PORT, 2);
	ab_put_u32(&ab, EDM_A_FLINK_RATE_MBPS, 10000);
	ab_put_u32(&ab, EDM_A_FLINK_DELAY_NS, 100);
	ab_put_u32(&ab, EDM_A_FLINK_MUX, EDM_FAB_MUX_STRICT);
	ab_put_u32(&ab, EDM_A_FLINK_SHERR_THRESHOLD, 8);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_FLINK_NEW, 0, &ab, reply_cb, &r)) {
		TH_LOG("link h1: %s", self->gs.errmsg);
	}
	EXPECT_EQ(0U, reply_u32(&r, EDM_A_FLINK_PORT));
	EXPECT_EQ(10000U, reply_u32(&r, EDM_A_FLINK_RATE_MBPS));
	EXPECT_EQ(100U, reply_u32(&r, EDM_A_FLINK_DELAY_NS));
	EXPECT_EQ((uint32_t)EDM_FAB_MUX_STRICT, reply_u32(&r, EDM_A_FLINK_MUX));
	EXPECT_EQ(8U, reply_u32(&r, EDM_A_FLINK_SHERR_THRESHOLD));

	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "h0", -1, &r));
	EXPECT_STREQ("sw0", reply_str(&r, EDM_A_FLINK_PEER));
	EXPECT_EQ(1U, reply_u32(&r, EDM_A_FLINK_PEER_PORT));

	/* The dump: every linked end, of a node, of one port. */
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 1, NULL, -1, NULL));
	EXPECT_EQ(4, self->gs.nmsgs);
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 1, "sw0", -1, NULL));
	EXPECT_EQ(2, self->gs.nmsgs);
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 1, "sw0", 2, NULL));
	EXPECT_EQ(1, self->gs.nmsgs);
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 1, "h2", -1, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);

	/* A linked port takes no second link. */
	EXPECT_GT(0, flink_emu(&self->gs, "sw0", 1, "h2", 0, NULL));
	EXPECT_NE('\0', self->gs.errmsg[0]);

	/* Set changes this end, and a set of nothing is fine. */
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FLINK_NODE, "sw0");
	ab_put_u32(&ab, EDM_A_FLINK_PORT, 1);
	ab_put_u32(&ab, EDM_A_FLINK_RATE_MBPS, 100000);
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_FLINK_SET, 0, &ab, NULL, NULL)) {
		TH_LOG("set: %s", self->gs.errmsg);
	}
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "sw0", 1, &r));
	EXPECT_EQ(100000U, reply_u32(&r, EDM_A_FLINK_RATE_MBPS));
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_SET, 0, "sw0", 1, NULL));

	/* Deleting one end deletes the link: both ends are free again. */
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_DEL, 0, "h0", -1, NULL));
	EXPECT_EQ(-ENODEV, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "sw0", 1, NULL));
	EXPECT_EQ(-ENODEV, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "h0", -1, NULL));
	EXPECT_EQ(0, flink_emu(&self->gs, "sw0", 1, "h2", 0, NULL)) {
		TH_LOG("relink: %s", self->gs.errmsg);
	}

	/* A node's links go with it. */
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "sw0", NULL));
	EXPECT_EQ(-ENODEV, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "h1", -1, NULL));
	EXPECT_EQ(-ENODEV, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "h2", -1, NULL));
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 1, NULL, -1, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);

	/* FLINK_DOWN is an event: no request takes it. */
	EXPECT_EQ(-EOPNOTSUPP, genl_request(&self->gs, EDM_CMD_FLINK_DOWN, 0, NULL, NULL, NULL));
}

TEST_F(edm, fabric_bad_links)
{
	struct attrbuf ab;
	int err, off;

	ASSERT_EQ(0, fab_switch(&self->gs, "sw0", 4, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "h0", 1, 0, NULL));
	dev_new(&self->gs, "null0", &err);
	ASSERT_EQ(0, err);

#define BAD_LINK(cmd, errno_, what, ...) do {					\
		memset(&ab, 0, sizeof(ab));					\
		off = -1;							\
		__VA_ARGS__;							\
		expect_bad(_metadata, &self->gs, cmd, &ab, errno_, off, what);	\
	} while (0)
#define AT(put) (off = next_off(&ab), put)

	BAD_LINK(EDM_CMD_FLINK_NEW, -EINVAL, "a peer and a netdev",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_IFINDEX, 1)));
	BAD_LINK(EDM_CMD_FLINK_NEW, -EINVAL, "no other end",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0"));
	EXPECT_EQ(EDM_A_FLINK_PEER, self->gs.misstype);
	BAD_LINK(EDM_CMD_FLINK_NEW, -EINVAL, "no node",
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0"));
	EXPECT_EQ(EDM_A_FLINK_NODE, self->gs.misstype);
	BAD_LINK(EDM_CMD_FLINK_NEW, -EINVAL, "a peer port without a peer",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_u32(&ab, EDM_A_FLINK_IFINDEX, 1);
		 AT(ab_put_u32(&ab, EDM_A_FLINK_PEER_PORT, 1)));
	BAD_LINK(EDM_CMD_FLINK_NEW, -EINVAL, "linked to itself",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "sw0");
		 ab_put_u32(&ab, EDM_A_FLINK_PORT, 1);
		 AT(ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0")));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ENODEV, "no such node",
		 AT(ab_put_str(&ab, EDM_A_FLINK_NODE, "nosuch"));
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0"));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ENODEV, "a null device is no node",
		 AT(ab_put_str(&ab, EDM_A_FLINK_NODE, "null0"));
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0"));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ENODEV, "no such peer",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 AT(ab_put_str(&ab, EDM_A_FLINK_PEER, "nosuch")));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ERANGE, "switch port 4 of 4",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_PORT, 4));
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "h0"));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ERANGE, "host port 1",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_PORT, 1));
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0"));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ERANGE, "peer port 9 of 4",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_PEER_PORT, 9)));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ENODEV, "no such netdev",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_IFINDEX, 0x7ffffff0)));
	BAD_LINK(EDM_CMD_FLINK_NEW, -EINVAL, "loopback is no Ethernet",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_u32(&ab, EDM_A_FLINK_IFINDEX, 1));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ERANGE, "rate 999",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_RATE_MBPS, 999)));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ERANGE, "delay over 10 ms",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_DELAY_NS, 10000001)));
	BAD_LINK(EDM_CMD_FLINK_NEW, -ERANGE, "mux 3",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "h0");
		 ab_put_str(&ab, EDM_A_FLINK_PEER, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_MUX, 3)));
	/* Nothing above made a link. */
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 1, NULL, -1, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);

	/* An end that is not linked: the port, or the node if no port is given. */
	BAD_LINK(EDM_CMD_FLINK_GET, -ENODEV, "get an unlinked port",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_PORT, 3)));
	BAD_LINK(EDM_CMD_FLINK_DEL, -ENODEV, "delete an unlinked end",
		 AT(ab_put_str(&ab, EDM_A_FLINK_NODE, "h0")));
	BAD_LINK(EDM_CMD_FLINK_SET, -ENODEV, "set an unlinked end",
		 AT(ab_put_str(&ab, EDM_A_FLINK_NODE, "h0"));
		 ab_put_u32(&ab, EDM_A_FLINK_RATE_MBPS, 10000));
	BAD_LINK(EDM_CMD_FLINK_GET, -ERANGE, "get port 4 of 4",
		 ab_put_str(&ab, EDM_A_FLINK_NODE, "sw0");
		 AT(ab_put_u32(&ab, EDM_A_FLINK_PORT, 4)));
#undef AT
#undef BAD_LINK
}

/* ---- DFabric compute nodes ---- */

/* A CN command with RACK and NAME, each left out when NULL. */
static int cn_req(struct genl_sock *gs, uint8_t cmd, int dump, const char *rack, const char *name)
{
	struct attrbuf ab = {};

	if (rack)
		ab_put_str(&ab, EDM_A_CN_RACK, rack);
	if (name)
		ab_put_str(&ab, EDM_A_CN_NAME, name);
	return genl_request(gs, cmd, dump, &ab, NULL, NULL);
}

/*
 * A compute node is named by its rack and its name: a request without the
 * name is EINVAL naming it, whether the rack exists or not. A dump takes
 * either as a filter.
 */
TEST_F(edm, compute_node_selectors)
{
	uint64_t size = 16 << 20;	/* 8 Sections: room for two nodes */
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_POOL_NAME, "cnp0");
	ab_put(&ab, EDM_A_POOL_SIZE, &size, sizeof(size));
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_POOL_NEW, 0, &ab, NULL, NULL)) {
		TH_LOG("pool: %s", self->gs.errmsg);
	}
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_RACK_NAME, "cnr0");
	ab_put_str(&ab, EDM_A_RACK_POOL, "cnp0");
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_RACK_NEW, 0, &ab, NULL, NULL)) {
		TH_LOG("rack: %s", self->gs.errmsg);
	}
	ASSERT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_NEW, 0, "cnr0", "cnc0")) {
		TH_LOG("cn: %s", self->gs.errmsg);
	}
	ASSERT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_NEW, 0, "cnr0", "cnc1")) {
		TH_LOG("cn: %s", self->gs.errmsg);
	}

	EXPECT_EQ(-EINVAL, cn_req(&self->gs, EDM_CMD_CN_GET, 0, "cnr0", NULL));
	EXPECT_EQ(EDM_A_CN_NAME, self->gs.misstype);
	EXPECT_EQ(-EINVAL, cn_req(&self->gs, EDM_CMD_CN_GET, 0, "cnr9", NULL));
	EXPECT_EQ(EDM_A_CN_NAME, self->gs.misstype);
	EXPECT_EQ(-EINVAL, cn_req(&self->gs, EDM_CMD_CN_DEL, 0, "cnr9", NULL));
	EXPECT_EQ(EDM_A_CN_NAME, self->gs.misstype);
	EXPECT_EQ(-EINVAL, cn_req(&self->gs, EDM_CMD_CN_SET, 0, "cnr9", NULL));
	EXPECT_EQ(EDM_A_CN_NAME, self->gs.misstype);
	EXPECT_EQ(-EINVAL, cn_req(&self->gs, EDM_CMD_CN_GET, 0, NULL, "cnc0"));
	EXPECT_EQ(EDM_A_CN_RACK, self->gs.misstype);
	EXPECT_EQ(-ENODEV, cn_req(&self->gs, EDM_CMD_CN_GET, 0, "cnr9", "cnc0"));
	EXPECT_EQ(-ENODEV, cn_req(&self->gs, EDM_CMD_CN_GET, 0, "cnr0", "cnc9"));
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 0, "cnr0", "cnc1"));

	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, NULL, NULL));
	EXPECT_EQ(2, self->gs.nmsgs);
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, "cnr0", NULL));
	EXPECT_EQ(2, self->gs.nmsgs);
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, "cnr9", NULL));
	EXPECT_EQ(0, self->gs.nmsgs);
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, NULL, "cnc1"));
	EXPECT_EQ(1, self->gs.nmsgs);
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, "cnr0", "cnc0"));
	EXPECT_EQ(1, self->gs.nmsgs);
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, "cnr0", "cnc9"));
	EXPECT_EQ(0, self->gs.nmsgs);

	/* The rack takes its nodes with it; then the pool can go. */
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_RACK_NAME, "cnr0");
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_RACK_DEL, 0, &ab, NULL, NULL));
	EXPECT_EQ(0, cn_req(&self->gs, EDM_CMD_CN_GET, 1, NULL, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_POOL_NAME, "cnp0");
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_POOL_DEL, 0, &ab, NULL, NULL)) {
		TH_LOG("pool del: %s", self->gs.errmsg);
	}
}

/* ---- memory regions and the Cowbird engine ---- */

/* REGION_GET or REGION_REKEY of the region @id (-1: none) of @owner (NULL: none). */
static int region_req(struct genl_sock *gs, uint8_t cmd, int dump, int64_t id, const char *owner,
		      struct reply *r)
{
	struct attrbuf ab = {};

	if (id >= 0)
		ab_put_u32(&ab, EDM_A_REGION_ID, (uint32_t)id);
	if (owner)
		ab_put_str(&ab, EDM_A_REGION_OWNER, owner);
	return genl_request(gs, cmd, dump, &ab, r ? reply_cb : NULL, r);
}

/* Does every message of a dump lack, or carry, attribute @type? */
struct dump_check {
	uint16_t type;
	int with, without;
};

static void dump_check_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	struct dump_check *d = arg;

	if (genl_attr(attrs, len, d->type))
		d->with++;
	else
		d->without++;
}

TEST_F(edm, regions)
{
	struct dump_check dc = { .type = EDM_A_REGION_KEY };
	struct attrbuf ab = {};
	struct reply r = {};
	uint64_t key, key2;

	/* Two fabrics in one netns may reuse an address: rg0 and rg2 both have 5. */
	ASSERT_EQ(0, fab_host(&self->gs, "rg0", 5, 65536, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "rg1", 6, 8192, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "rg2", 5, 4096, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "rg3", 7, 0, NULL));

	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 0, 6, NULL, &r)) {
		TH_LOG("get: %s", self->gs.errmsg);
	}
	EXPECT_EQ(6U, reply_u32(&r, EDM_A_REGION_ID));
	EXPECT_EQ((uint32_t)EDM_REGION_KIND_FABRIC, reply_u32(&r, EDM_A_REGION_KIND));
	EXPECT_STREQ("rg1", reply_str(&r, EDM_A_REGION_OWNER));
	EXPECT_EQ(8192ULL, reply_u64(&r, EDM_A_REGION_SIZE));
	EXPECT_EQ(0U, reply_u32(&r, EDM_A_REGION_KEY_GEN));
	EXPECT_TRUE(reply_has_stat(&r, EDM_A_REGION_STATS, EDM_A_RSTAT_ACCESS_ERRORS));
	/* Root has CAP_NET_ADMIN: the key is there. */
	key = reply_u64(&r, EDM_A_REGION_KEY);
	EXPECT_NE(NULL, reply_attr(&r, EDM_A_REGION_KEY));

	/* By owner; by both; an id that names two regions needs the owner. */
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 0, -1, "rg2", &r));
	EXPECT_EQ(5U, reply_u32(&r, EDM_A_REGION_ID));
	EXPECT_EQ(4096ULL, reply_u64(&r, EDM_A_REGION_SIZE));
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 0, 5, "rg0", &r));
	EXPECT_EQ(65536ULL, reply_u64(&r, EDM_A_REGION_SIZE));
	ab_put_u32(&ab, EDM_A_REGION_ID, 5);
	expect_bad(_metadata, &self->gs, EDM_CMD_REGION_GET, &ab, -EINVAL, ATTR0_OFF,
		   "id 5 names two regions");
	expect_bad(_metadata, &self->gs, EDM_CMD_REGION_REKEY, &ab, -EINVAL, ATTR0_OFF,
		   "rekey of id 5 names two regions");
	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_REGION_ID, 9);
	expect_bad(_metadata, &self->gs, EDM_CMD_REGION_GET, &ab, -ENODEV, ATTR0_OFF,
		   "no region 9");
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_REGION_OWNER, "rg3");
	expect_bad(_metadata, &self->gs, EDM_CMD_REGION_GET, &ab, -ENODEV, ATTR0_OFF,
		   "a host without a region");
	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_REGION_ID, 6);
	ab_put_str(&ab, EDM_A_REGION_OWNER, "rg0");
	expect_bad(_metadata, &self->gs, EDM_CMD_REGION_REKEY, &ab, -ENODEV, ATTR0_OFF + 8,
		   "id and owner of two different regions");
	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_REGION_ID, 65536);
	expect_bad(_metadata, &self->gs, EDM_CMD_REGION_GET, &ab, -ERANGE, ATTR0_OFF,
		   "id past 65535");

	/* The dump: the three regions, each with its key; filtered by id. */
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_REGION_GET, 1, NULL, dump_check_cb, &dc));
	EXPECT_EQ(3, dc.with);
	EXPECT_EQ(0, dc.without);
	EXPECT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 1, 5, NULL, NULL));
	EXPECT_EQ(2, self->gs.nmsgs);
	EXPECT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 1, 9, NULL, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);

	/* Rekey: a new key in the reply, the generation counts, GET agrees. */
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_REKEY, 0, 6, NULL, &r)) {
		TH_LOG("rekey: %s", self->gs.errmsg);
	}
	key2 = reply_u64(&r, EDM_A_REGION_KEY);
	EXPECT_NE(NULL, reply_attr(&r, EDM_A_REGION_KEY));
	EXPECT_NE(key, key2);
	EXPECT_EQ(1U, reply_u32(&r, EDM_A_REGION_KEY_GEN));
	EXPECT_STREQ("rg1", reply_str(&r, EDM_A_REGION_OWNER));
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_REKEY, 0, -1, "rg1", &r));
	EXPECT_EQ(2U, reply_u32(&r, EDM_A_REGION_KEY_GEN));
	key = reply_u64(&r, EDM_A_REGION_KEY);
	EXPECT_NE(key, key2);
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 0, 6, NULL, &r));
	EXPECT_EQ(key, reply_u64(&r, EDM_A_REGION_KEY));
	EXPECT_EQ(2U, reply_u32(&r, EDM_A_REGION_KEY_GEN));
	/* The other regions were not touched. */
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 0, 5, "rg0", &r));
	EXPECT_EQ(0U, reply_u32(&r, EDM_A_REGION_KEY_GEN));

	/* A deleted host's region is gone. */
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "rg1", NULL));
	EXPECT_EQ(-ENODEV, region_req(&self->gs, EDM_CMD_REGION_GET, 0, 6, NULL, NULL));
	EXPECT_EQ(-ENODEV, region_req(&self->gs, EDM_CMD_REGION_REKEY, 0, 6, NULL, NULL));
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "rg0", NULL));
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "rg2", NULL));
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "rg3", NULL));
}

/* The engine's three parameters, from a COWBIRD_GET reply. */
static void cowbird_params(struct __test_metadata *_metadata, struct genl_sock *gs,
			   uint32_t *probe, uint32_t *spins, uint32_t *batch)
{
	struct reply r = {};

	ASSERT_EQ(0, genl_request(gs, EDM_CMD_COWBIRD_GET, 0, NULL, reply_cb, &r));
	*probe = reply_u32(&r, EDM_A_COWBIRD_PROBE_MAX_US);
	*spins = reply_u32(&r, EDM_A_COWBIRD_IDLE_SPINS);
	*batch = reply_u32(&r, EDM_A_COWBIRD_BATCH);
}

static int cowbird_set(struct genl_sock *gs, uint32_t probe, uint32_t spins, uint32_t batch)
{
	struct attrbuf ab = {};

	ab_put_u32(&ab, EDM_A_COWBIRD_PROBE_MAX_US, probe);
	ab_put_u32(&ab, EDM_A_COWBIRD_IDLE_SPINS, spins);
	ab_put_u32(&ab, EDM_A_COWBIRD_BATCH, batch);
	return genl_request(gs, EDM_CMD_COWBIRD_SET, 0, &ab, NULL, NULL);
}

TEST_F(edm, cowbird_engine)
{
	static const struct {
		uint16_t attr;
		uint32_t value;
	} bad[] = {
		{ EDM_A_COWBIRD_PROBE_MAX_US, 1 }, { EDM_A_COWBIRD_PROBE_MAX_US, 1000001 },
		{ EDM_A_COWBIRD_IDLE_SPINS, 1000001 }, { EDM_A_COWBIRD_BATCH, 0 },
		{ EDM_A_COWBIRD_BATCH, 1025 },
	};
	uint32_t probe, spins, batch, p, s, b;
	struct reply r = {};
	unsigned int i;

	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_COWBIRD_GET, 0, NULL, reply_cb, &r));
	EXPECT_LE(1U, reply_u32(&r, EDM_A_COWBIRD_THREADS));
	EXPECT_NE(~0U, reply_u32(&r, EDM_A_COWBIRD_INSTANCES));
	EXPECT_TRUE(reply_has_stat(&r, EDM_A_COWBIRD_STATS, EDM_A_CBSTAT_PICKS));
	EXPECT_TRUE(reply_has_stat(&r, EDM_A_COWBIRD_STATS, EDM_A_CBSTAT_DESTROYED));
	cowbird_params(_metadata, &self->gs, &probe, &spins, &batch);
	EXPECT_EQ(16U, batch);

	/* Out of range: refused with the attribute named, and nothing changes. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct attrbuf ab = {};

		ab_put_u32(&ab, EDM_A_COWBIRD_BATCH, 8);
		ab_put_u32(&ab, bad[i].attr, bad[i].value);
		expect_bad(_metadata, &self->gs, EDM_CMD_COWBIRD_SET, &ab, -ERANGE, ATTR0_OFF + 8,
			   "out-of-range engine parameter");
	}
	cowbird_params(_metadata, &self->gs, &p, &s, &b);
	EXPECT_EQ(probe, p);
	EXPECT_EQ(spins, s);
	EXPECT_EQ(batch, b);

	/* The ends of each range are taken; then the old values go back. */
	EXPECT_EQ(0, cowbird_set(&self->gs, 2, 0, 1));
	cowbird_params(_metadata, &self->gs, &p, &s, &b);
	EXPECT_EQ(2U, p);
	EXPECT_EQ(0U, s);
	EXPECT_EQ(1U, b);
	EXPECT_EQ(0, cowbird_set(&self->gs, 1000000, 1000000, 1024));
	cowbird_params(_metadata, &self->gs, &p, &s, &b);
	EXPECT_EQ(1000000U, p);
	EXPECT_EQ(1000000U, s);
	EXPECT_EQ(1024U, b);
	EXPECT_EQ(0, cowbird_set(&self->gs, probe, spins, batch));
	cowbird_params(_metadata, &self->gs, &p, &s, &b);
	EXPECT_EQ(probe, p);
	EXPECT_EQ(batch, b);

	/* No instance here, so the dump is empty. */
	EXPECT_EQ(0, genl_request(&self->gs, EDM_CMD_COWBIRD_INST_GET, 1, NULL, NULL, NULL));
	EXPECT_EQ(0, self->gs.nmsgs);
}

/*
 * As uid 65534, without CAP_NET_ADMIN: regions read, but no key in a GET
 * or a dump; rekey and the engine's set fail with EPERM. 0 when all holds.
 */
static int unprivileged_region_checks(void)
{
	struct dump_check dc = { .type = EDM_A_REGION_KEY };
	struct genl_sock gs;
	struct reply r = {};
	struct attrbuf ab = {};
	int bad = 0;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 100;
	if (genl_open(&gs, EDM_GENL_NAME))
		return 101;
	bad |= (region_req(&gs, EDM_CMD_REGION_GET, 0, 3, NULL, &r) != 0) << 0;
	bad |= (reply_attr(&r, EDM_A_REGION_KEY) != NULL) << 1;
	bad |= (reply_u32(&r, EDM_A_REGION_ID) != 3 || reply_u64(&r, EDM_A_REGION_SIZE) != 4096)
	       << 2;
	bad |= (genl_request(&gs, EDM_CMD_REGION_GET, 1, NULL, dump_check_cb, &dc) != 0 ||
		dc.with != 0 || dc.without != 1) << 3;
	bad |= (region_req(&gs, EDM_CMD_REGION_REKEY, 0, 3, NULL, NULL) != -EPERM) << 4;
	ab_put_u32(&ab, EDM_A_COWBIRD_BATCH, 4);
	bad |= (genl_request(&gs, EDM_CMD_COWBIRD_SET, 0, &ab, NULL, NULL) != -EPERM) << 5;
	bad |= (genl_request(&gs, EDM_CMD_COWBIRD_GET, 0, NULL, NULL, NULL) != 0) << 6;
	bad |= (genl_request(&gs, EDM_CMD_COWBIRD_INST_GET, 1, NULL, NULL, NULL) != 0) << 7;
	genl_close(&gs);
	return bad;
}

TEST_F(edm, region_keys_need_admin)
{
	struct reply r = {};
	uint32_t probe, spins, batch;
	int status;
	pid_t pid;

	ASSERT_EQ(0, fab_host(&self->gs, "key0", 3, 4096, NULL));
	cowbird_params(_metadata, &self->gs, &probe, &spins, &batch);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged_region_checks());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	/*
	 * Bits: 0 get failed, 1 it had the key, 2 it was wrong; 3 the dump failed
	 * or had a key; 4 rekey, 5 cowbird set not EPERM; 6 cowbird get, 7 the
	 * instance dump failed.
	 */
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Nothing changed: no rekey, the engine as it was. */
	ASSERT_EQ(0, region_req(&self->gs, EDM_CMD_REGION_GET, 0, 3, NULL, &r));
	EXPECT_EQ(0U, reply_u32(&r, EDM_A_REGION_KEY_GEN));
	cowbird_params(_metadata, &self->gs, &probe, &spins, &batch);
	EXPECT_EQ(16U, batch);
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "key0", NULL));
}

/* As uid 65534: 0 when every mutating command fails with EPERM and reads work. */
static int unprivileged_checks(uint32_t id)
{
	static struct id_set set;
	uint64_t size = 4 << 20;
	struct genl_sock gs;
	struct attrbuf ab = {};
	int err, bad = 0;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 100;
	if (genl_open(&gs, EDM_GENL_NAME))
		return 101;
	dev_new(&gs, "unpriv0", &err);
	bad |= (err != -EPERM) << 0;
	bad |= (dev_del(&gs, id) != -EPERM) << 1;
	/* Reading still works, and shows that nothing changed. */
	bad |= (genl_request(&gs, EDM_CMD_VERSION_GET, 0, NULL, NULL, NULL) != 0) << 2;
	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	bad |= (genl_request(&gs, EDM_CMD_DEV_GET, 0, &ab, NULL, NULL) != 0) << 3;
	bad |= (genl_request(&gs, EDM_CMD_DEV_GET, 1, NULL, collect_cb, &set) != 0) << 4;
	bad |= (set.n != 3) << 5;	/* priv0, and the fabric nodes priv1 and priv2 */
	/* NetDIMMs: creating and deleting need CAP_NET_ADMIN, reading does not. */
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_NETDIMM_NAME, "unpriv1");
	ab_put(&ab, EDM_A_NETDIMM_SIZE, &size, sizeof(size));
	bad |= (genl_request(&gs, EDM_CMD_NETDIMM_NEW, 0, &ab, NULL, NULL) != -EPERM) << 6;
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_NETDIMM_NAME, "unpriv1");
	bad |= (genl_request(&gs, EDM_CMD_NETDIMM_DEL, 0, &ab, NULL, NULL) != -EPERM) << 7;
	bad |= (genl_request(&gs, EDM_CMD_NETDIMM_GET, 1, NULL, NULL, NULL) != 0) << 8;
	/* The fabric: every change needs CAP_NET_ADMIN, reading does not. */
	bad |= (fab_switch(&gs, "unpriv2", 4, NULL) != -EPERM) << 9;
	bad |= (fab_by_name(&gs, EDM_CMD_FABRIC_DEL, "priv1", NULL) != -EPERM) << 10;
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_FAB_NAME, "priv1");
	ab_put_u32(&ab, EDM_A_FAB_CHUNK, 64);
	bad |= (genl_request(&gs, EDM_CMD_FABRIC_SET, 0, &ab, NULL, NULL) != -EPERM) << 11;
	bad |= (flink_emu(&gs, "priv1", 0, "priv2", 0, NULL) != -EPERM) << 12;
	bad |= (flink_req(&gs, EDM_CMD_FLINK_DEL, 0, "priv1", 1, NULL) != -EPERM) << 13;
	bad |= (flink_req(&gs, EDM_CMD_FLINK_SET, 0, "priv1", 1, NULL) != -EPERM) << 14;
	bad |= (genl_request(&gs, EDM_CMD_FABRIC_GET, 1, NULL, NULL, NULL) != 0 ||
		gs.nmsgs != 2) << 15;
	bad |= (flink_req(&gs, EDM_CMD_FLINK_GET, 1, NULL, -1, NULL) != 0 ||
		gs.nmsgs != 2) << 16;
	genl_close(&gs);
	return bad;
}

TEST_F(edm, unprivileged_gets_eperm_and_can_read)
{
	int err, status;
	uint32_t id;
	pid_t pid;

	id = dev_new(&self->gs, "priv0", &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, fab_switch(&self->gs, "priv1", 4, NULL));
	ASSERT_EQ(0, fab_host(&self->gs, "priv2", 1, 0, NULL));
	ASSERT_EQ(0, flink_emu(&self->gs, "priv1", 1, "priv2", 0, NULL));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged_checks(id));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	/*
	 * Bits: 0 new, 1 del not EPERM; 2 version, 3 get, 4 dump failed; 5 changed;
	 * 6 netdimm new, 7 netdimm del not EPERM; 8 netdimm dump failed;
	 * 9..14 fabric new, del, set, link new, del, set not EPERM; 15, 16
	 * fabric and link dumps failed or changed.
	 */
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, flink_req(&self->gs, EDM_CMD_FLINK_GET, 0, "priv2", -1, NULL));
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "priv1", NULL));
	EXPECT_EQ(0, fab_by_name(&self->gs, EDM_CMD_FABRIC_DEL, "priv2", NULL));
	EXPECT_EQ(0, dev_del(&self->gs, id));
}

TEST_HARNESS_MAIN
