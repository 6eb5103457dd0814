/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * edm: the user-space ABI of edm.ko.
 *
 * Generic netlink family "edm". Documentation/netlink/specs/edm.yaml is the
 * source of truth; selftests/edm/spec_check.py keeps this header, the spec
 * and the kernel's policies in agreement. Values are never renumbered: new
 * commands and attributes are appended before the __MAX markers.
 *
 * Each message kind has its own attribute space, as ethtool's netlink does:
 * EDM_A_INFO_* for the version reply, EDM_A_DEV_* for device messages,
 * EDM_A_NETDIMM_* for NetDIMM messages (with nests EDM_A_GEOM_*,
 * EDM_A_ZONE_* and EDM_A_NDSTAT_*), EDM_A_FAB_* for EDM fabric nodes (with
 * the nest EDM_A_FSTAT_*), EDM_A_FLINK_* for their links (with the nest
 * EDM_A_LSTAT_*), EDM_A_POOL_* for DFabric pools (with the nest
 * EDM_A_PSTAT_*), EDM_A_RACK_* for racks, EDM_A_CN_* for their compute
 * nodes (with the nest EDM_A_CNSTAT_*), EDM_A_REGION_* for memory regions
 * (with the nest EDM_A_RSTAT_*), EDM_A_COWBIRD_* for the Cowbird engine
 * (with the nest EDM_A_CBSTAT_*) and EDM_A_CBINST_* for its instances (with
 * the nest EDM_A_CBISTAT_*), EDM_A_NICPOOL_* for NIC pools (with the nests
 * EDM_A_NPSTAT_* and EDM_A_NPMEMBER_*).
 *
 * The ioctls of /dev/edm<N>, one per fabric host, are at the end. Their
 * structs, and cowbird.h's, never move a field: each one's layout comment
 * is pinned by include/edm/uapi_layout.h, which fails the build of edm.ko
 * and of make unit (64- and 32-bit) when they disagree. How they grow:
 *  - struct edm_submit, edm_reap, edm_target and edm_key may gain fields
 *    at their end. The command number carries the caller's struct size (_IOWR
 *    sizes it), so a program built against a later header passes a longer
 *    struct: the module takes it when the bytes it does not know are zero,
 *    and answers -E2BIG when they are not; a struct shorter than the first
 *    version is no command of ours (-ENOTTY). Outputs stay where they are.
 *  - struct edm_op and struct edm_cqe, array elements, never change size:
 *    an op's new meaning comes with a new EDM_OP_F_* flag.
 *  - Flags a module does not know, and nonzero pads, are -EINVAL.
 */
#ifndef _UAPI_LINUX_EDM_H
#define _UAPI_LINUX_EDM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EDM_GENL_NAME		"edm"
#define EDM_GENL_VERSION	1
#define EDM_MCGRP_EVENTS	"events"

/* Longest device name, terminating NUL included. */
#define EDM_NAME_LEN		16

enum edm_dev_type {
	EDM_DEV_TYPE_UNSPEC,
	/* A device that carries no traffic: exercises the registry. */
	EDM_DEV_TYPE_NULL,
	/* A NetDIMM: a netdev whose rings and buffers live in its NETi zone. */
	EDM_DEV_TYPE_NETDIMM,
	/* An EDM switch: PHY ports and the PIM memory scheduler. */
	EDM_DEV_TYPE_FSWITCH,
	/* An EDM host: one PHY port, a requester and optionally a memory node. */
	EDM_DEV_TYPE_FHOST,
	/* A DFabric memory pool: Sections, Regions, Buffers and its LPPU. */
	EDM_DEV_TYPE_POOL,
	/* A DFabric rack: compute nodes passing references into a pool. */
	EDM_DEV_TYPE_RACK,
	/* A DFabric NIC pool: netdevs carrying a rack's inter-rack traffic. */
	EDM_DEV_TYPE_NICPOOL,
	/* This kernel's membership of a pool shared with other kernels. */
	EDM_DEV_TYPE_SHPOOL,

	__EDM_DEV_TYPE_CNT,
	EDM_DEV_TYPE_MAX = __EDM_DEV_TYPE_CNT - 1
};

enum {
	EDM_A_INFO_UNSPEC,
	EDM_A_INFO_VERSION,		/* string: module version */
	EDM_A_INFO_ABI_VERSION,		/* u32: EDM_GENL_VERSION */
	EDM_A_INFO_KERNEL_RELEASE,	/* string: uname -r of the running kernel */
	EDM_A_INFO_DEV_COUNT,		/* u32: devices in the caller's netns */

	__EDM_A_INFO_CNT,
	EDM_A_INFO_MAX = __EDM_A_INFO_CNT - 1
};

enum {
	EDM_A_DEV_UNSPEC,
	EDM_A_DEV_ID,			/* u32, assigned by the kernel, >= 1 */
	EDM_A_DEV_NAME,			/* string, [a-zA-Z0-9_.-], < EDM_NAME_LEN */
	EDM_A_DEV_TYPE,			/* u32: enum edm_dev_type */

	__EDM_A_DEV_CNT,
	EDM_A_DEV_MAX = __EDM_A_DEV_CNT - 1
};

/* Where a NetDIMM's received payload ends up. */
enum edm_netdimm_rx_mode {
	EDM_NETDIMM_RX_UNSPEC,
	/* The payload stays in the zone page it arrived in: no copy. */
	EDM_NETDIMM_RX_ZEROCOPY,
	/* The payload is cloned next to the receive buffer (Algorithm 1). */
	EDM_NETDIMM_RX_CLONE,

	__EDM_NETDIMM_RX_CNT,
	EDM_NETDIMM_RX_MAX = __EDM_NETDIMM_RX_CNT - 1
};

/*
 * NetDIMM messages; also the IFLA_INFO_DATA of the rtnetlink kind "ndimm"
 * (`ip link add NAME type ndimm`), which takes SIZE, PEER, LOWER, POLL_US,
 * RX_MODE, WIRE_MBPS, WIRE_DELAY_NS, GEOM and NUMA_NODE, and reports those
 * and ID (the name is IFLA_IFNAME).
 */
enum {
	EDM_A_NETDIMM_UNSPEC,
	EDM_A_NETDIMM_PAD,
	EDM_A_NETDIMM_ID,		/* u32: its edm device ID */
	EDM_A_NETDIMM_NAME,		/* string: device and netdev name */
	EDM_A_NETDIMM_SIZE,		/* u64: zone bytes, a multiple of 2 MiB */
	EDM_A_NETDIMM_PEER,		/* string: the other end of a pair */
	EDM_A_NETDIMM_LOWER,		/* u32: ifindex of the netdev it rides on */
	EDM_A_NETDIMM_POLL_US,		/* u32: polling agent period, 0: interrupts */
	EDM_A_NETDIMM_RX_MODE,		/* u32: enum edm_netdimm_rx_mode */
	EDM_A_NETDIMM_WIRE_MBPS,	/* u32: wire rate, 0: unlimited */
	EDM_A_NETDIMM_WIRE_DELAY_NS,	/* u32: wire one-way latency */
	EDM_A_NETDIMM_GEOM,		/* nest: EDM_A_GEOM_* */
	EDM_A_NETDIMM_IFINDEX,		/* u32: reply only */
	EDM_A_NETDIMM_ZONE,		/* nest: EDM_A_ZONE_*, reply only */
	EDM_A_NETDIMM_STATS,		/* nest: EDM_A_NDSTAT_*, reply only */
	EDM_A_NETDIMM_NUMA_NODE,	/* u32: node the zone is taken from */

	__EDM_A_NETDIMM_CNT,
	EDM_A_NETDIMM_MAX = __EDM_A_NETDIMM_CNT - 1
};

/* DRAM geometry of a NETi zone (NetDIMM paper, Figure 9), powers of two. */
enum {
	EDM_A_GEOM_UNSPEC,
	EDM_A_GEOM_ROW_BYTES,		/* u32: bytes per row of one device */
	EDM_A_GEOM_DEVICES,		/* u32: devices per rank */
	EDM_A_GEOM_BANKS,		/* u32: banks per device */
	EDM_A_GEOM_SUBARRAYS,		/* u32: sub-arrays per bank */
	EDM_A_GEOM_ROWS,		/* u32: rows per sub-array */

	__EDM_A_GEOM_CNT,
	EDM_A_GEOM_MAX = __EDM_A_GEOM_CNT - 1
};

enum {
	EDM_A_ZONE_UNSPEC,
	EDM_A_ZONE_PAD,
	EDM_A_ZONE_INDEX,		/* u32: the i of NET<i> and /dev/ndimm<i> */
	EDM_A_ZONE_NAME,		/* string: "NET<i>" */
	EDM_A_ZONE_SIZE,		/* u64: bytes */
	EDM_A_ZONE_FREE,		/* u64: bytes not allocated */
	EDM_A_ZONE_LENT,		/* u64: pages lent to the stack or user maps */
	EDM_A_ZONE_CACHED,		/* u64: pages held by the allocCache */
	EDM_A_ZONE_SUBARRAYS,		/* u32: distinct sub-arrays the zone spans */
	EDM_A_ZONE_NUMA_NODE,		/* u32: node the zone came from */
	EDM_A_ZONE_GEOM,		/* nest: EDM_A_GEOM_* */

	__EDM_A_ZONE_CNT,
	EDM_A_ZONE_MAX = __EDM_A_ZONE_CNT - 1
};

/* NetDIMM counters, all u64. */
enum {
	EDM_A_NDSTAT_UNSPEC,
	EDM_A_NDSTAT_PAD,
	EDM_A_NDSTAT_TX_PACKETS,
	EDM_A_NDSTAT_TX_BYTES,
	EDM_A_NDSTAT_TX_FAST_PATH,	/* payload already in the zone */
	EDM_A_NDSTAT_TX_COPY_NEEDED,	/* payload copied into a zone buffer */
	EDM_A_NDSTAT_TX_SOCK_HINTS,	/* copies placed by the socket's zone hint */
	EDM_A_NDSTAT_TX_ZONE_FALLBACK,	/* zone full: sent from ordinary pages */
	EDM_A_NDSTAT_TX_DROPS,
	EDM_A_NDSTAT_RX_PACKETS,
	EDM_A_NDSTAT_RX_BYTES,
	EDM_A_NDSTAT_RX_ZEROCOPY,	/* payload left in the zone page */
	EDM_A_NDSTAT_RX_CLONED,		/* payload cloned next to the buffer */
	EDM_A_NDSTAT_RX_ZONE_FALLBACK,	/* zone full: received into ordinary pages */
	EDM_A_NDSTAT_RX_DROPS,
	EDM_A_NDSTAT_HOST_COPIES,	/* payload copies made by the host CPU */
	EDM_A_NDSTAT_WIRE_COPIES,	/* copies standing for the NIC's DMA */
	EDM_A_NDSTAT_ALLOC_SAME,	/* allocations on the hint's sub-array */
	EDM_A_NDSTAT_ALLOC_OTHER,	/* allocations elsewhere in the zone */
	EDM_A_NDSTAT_ALLOC_FAIL,	/* allocations the zone could not serve */
	EDM_A_NDSTAT_CACHE_HITS,	/* allocCache hits */
	EDM_A_NDSTAT_CACHE_MISSES,
	EDM_A_NDSTAT_CACHE_REFILLS,	/* pages put back by the background refill */
	EDM_A_NDSTAT_RECLAIMED,		/* lent pages returned to the zone */
	EDM_A_NDSTAT_CLONE_FPM,
	EDM_A_NDSTAT_CLONE_PSM,
	EDM_A_NDSTAT_CLONE_GCM,
	EDM_A_NDSTAT_CLONE_BYTES,
	EDM_A_NDSTAT_CLONE_MODELED_NS,	/* modeled in-DRAM copy time */
	EDM_A_NDSTAT_POLLS,		/* polling agent and NAPI passes */
	EDM_A_NDSTAT_RX_INLINE,		/* small packets carried in the descriptor */

	__EDM_A_NDSTAT_CNT,
	EDM_A_NDSTAT_MAX = __EDM_A_NDSTAT_CNT - 1
};

/* How the scheduler of an EDM switch orders notifications. */
enum edm_fab_policy {
	EDM_FAB_POLICY_SRPT,		/* shortest remaining message first */
	EDM_FAB_POLICY_FCFS,		/* oldest notification first */

	__EDM_FAB_POLICY_CNT,
	EDM_FAB_POLICY_MAX = __EDM_FAB_POLICY_CNT - 1
};

/* How a PHY port's transmit multiplexer shares the link. */
enum edm_fab_mux {
	EDM_FAB_MUX_FAIR,		/* memory messages and frame blocks alternate */
	EDM_FAB_MUX_STRICT,		/* memory first, frames in what is left */
	EDM_FAB_MUX_NONE,		/* no preemption: whole frames (a baseline) */

	__EDM_FAB_MUX_CNT,
	EDM_FAB_MUX_MAX = __EDM_FAB_MUX_CNT - 1
};

/* Fabric nodes: switches (EDM_DEV_TYPE_FSWITCH) and hosts (EDM_DEV_TYPE_FHOST). */
enum {
	EDM_A_FAB_UNSPEC,
	EDM_A_FAB_PAD,
	EDM_A_FAB_ID,			/* u32: its edm device ID */
	EDM_A_FAB_NAME,			/* string */
	EDM_A_FAB_TYPE,			/* u32: EDM_DEV_TYPE_FSWITCH or _FHOST */
	EDM_A_FAB_PORTS,		/* u32: switch ports, 2..512; host: 1 or 2 (a standby) */
	EDM_A_FAB_SCHED_X,		/* u32: active notifications per pair, 1..16 */
	EDM_A_FAB_CHUNK,		/* u32: grant size in bytes, 8..65535 */
	EDM_A_FAB_POLICY,		/* u32: enum edm_fab_policy */
	EDM_A_FAB_RATE_MBPS,		/* u32: port rate the scheduler assumes */
	EDM_A_FAB_ADDR,			/* u32: host: its switch port, 0..511 */
	EDM_A_FAB_REGION_SIZE,		/* u64: host: bytes it serves, 0: none */
	EDM_A_FAB_TIMEOUT_MS,		/* u32: host: the longest op timeout */
	EDM_A_FAB_MINOR,		/* u32: host: the N of /dev/edm<N>, reply only */
	EDM_A_FAB_STATS,		/* nest: EDM_A_FSTAT_*, reply only */
	/*
	 * flag: host with a region: it serves only requests that carry the
	 * region's key (EDM_A_REGION_KEY; /dev/edm's EDM_IOC_KEY); without
	 * it, every request
	 */
	EDM_A_FAB_REGION_KEYED,
	/*
	 * u32: host: the shortest op timeout, in us, default a quarter of
	 * TIMEOUT_MS. An op times out at four measured RTTs to its memory
	 * node (or SRTT + 4 RTTVAR, the larger), at least this and at most
	 * TIMEOUT_MS; TIMEOUT_MS until measured
	 */
	EDM_A_FAB_TIMEOUT_MIN_US,

	__EDM_A_FAB_CNT,
	EDM_A_FAB_MAX = __EDM_A_FAB_CNT - 1
};

/* Fabric node counters, all u64; a host or a switch fills its own. */
enum {
	EDM_A_FSTAT_UNSPEC,
	EDM_A_FSTAT_PAD,
	/* host, as a requester */
	EDM_A_FSTAT_READS,		/* completed read ops */
	EDM_A_FSTAT_WRITES,
	EDM_A_FSTAT_RMWS,
	EDM_A_FSTAT_READ_BYTES,
	EDM_A_FSTAT_WRITE_BYTES,
	EDM_A_FSTAT_ERRORS,		/* ops completed with an error */
	EDM_A_FSTAT_TIMEOUTS,		/* ops whose memory node never answered */
	EDM_A_FSTAT_QUEUED,		/* ops waiting for a message id */
	EDM_A_FSTAT_INFLIGHT,		/* ops with a message id */
	EDM_A_FSTAT_NOTIFS,		/* /N/ blocks sent */
	EDM_A_FSTAT_GRANTS_RX,		/* /G/ blocks received */
	EDM_A_FSTAT_STRAY,		/* blocks or messages matching nothing */
	/* host, as a memory node: ops; chunks of writes apart (at the end) */
	EDM_A_FSTAT_SERVED_READS,
	EDM_A_FSTAT_SERVED_WRITES,
	EDM_A_FSTAT_SERVED_RMWS,
	EDM_A_FSTAT_SERVED_ERRORS,	/* requests outside the region or malformed */
	/* switch */
	EDM_A_FSTAT_SCHED_NOTIFS,	/* notifications the scheduler accepted */
	EDM_A_FSTAT_SCHED_REJECTED,
	EDM_A_FSTAT_GRANTS,
	EDM_A_FSTAT_GRANT_BYTES,
	EDM_A_FSTAT_MATCHINGS,
	EDM_A_FSTAT_ITERATIONS,		/* PIM iterations summed over matchings */
	EDM_A_FSTAT_ITER_MAX,
	EDM_A_FSTAT_MATCHING_MAX,	/* most grants in one matching */
	EDM_A_FSTAT_DEPTH,		/* notifications queued now */
	EDM_A_FSTAT_DEPTH_MAX,
	EDM_A_FSTAT_FWD_MSGS,		/* memory messages forwarded on a circuit */
	EDM_A_FSTAT_FWD_FRAMES,		/* Ethernet frames switched */
	EDM_A_FSTAT_DROPS,		/* anything the switch could not forward */
	/* host, as a memory node */
	EDM_A_FSTAT_SERVED_WRITE_CHUNKS,	/* stored write chunks (a write is 1 or more) */
	/* requests refused (NACKed; a posted write's chunk dropped), by reason */
	EDM_A_FSTAT_NACKS_KEY,		/* a key that is not (or no longer) the region's */
	EDM_A_FSTAT_NACKS_RANGE,	/* outside the region */
	EDM_A_FSTAT_NACKS_GONE,		/* the node serves no region */
	/* host with two ports: times it moved to the other (a standby switch) */
	EDM_A_FSTAT_FAILOVERS,
	/* switch: times it held a port back from its scheduler (egress backed up) */
	EDM_A_FSTAT_HOLDS,

	__EDM_A_FSTAT_CNT,
	EDM_A_FSTAT_MAX = __EDM_A_FSTAT_CNT - 1
};

/* State of a fabric link end. */
enum edm_flink_state {
	EDM_FLINK_UP,
	EDM_FLINK_DOWN,			/* disabled: sync-header errors or peer gone */

	__EDM_FLINK_STATE_CNT,
	EDM_FLINK_STATE_MAX = __EDM_FLINK_STATE_CNT - 1
};

/*
 * Fabric links, named by one end: NODE and PORT. An emulated link joins it to
 * PEER's PEER_PORT in the same netns; a bound one carries its blocks in
 * frames of ethertype 0x88B5 over the netdev IFINDEX, sent to PEER_MAC and
 * accepted only from it, or, with BROADCAST (a point-to-point wire only),
 * sent to the broadcast address and accepted from anyone. A bound link
 * needs exactly one of the two.
 */
enum {
	EDM_A_FLINK_UNSPEC,
	EDM_A_FLINK_PAD,
	EDM_A_FLINK_NODE,		/* string: fabric node name */
	EDM_A_FLINK_PORT,		/* u32: port on it (hosts have port 0) */
	EDM_A_FLINK_PEER,		/* string: the other node (emulated link) */
	EDM_A_FLINK_PEER_PORT,		/* u32 */
	EDM_A_FLINK_IFINDEX,		/* u32: netdev; with PEER_MAC or BROADCAST */
	EDM_A_FLINK_RATE_MBPS,		/* u32: 1000..400000 */
	EDM_A_FLINK_DELAY_NS,		/* u32: propagation delay, <= 10 ms */
	EDM_A_FLINK_MUX,		/* u32: enum edm_fab_mux */
	EDM_A_FLINK_STATE,		/* u32: enum edm_flink_state */
	EDM_A_FLINK_SHERR_THRESHOLD,	/* u32: bad sync headers that disable it, 0: never */
	EDM_A_FLINK_CORRUPT,		/* u32: set only: spoil the next N blocks' headers */
	EDM_A_FLINK_STATS,		/* nest: EDM_A_LSTAT_*, reply only */
	EDM_A_FLINK_REASON,		/* string: why it went down, FLINK_DOWN only */
	EDM_A_FLINK_PEER_MAC,		/* binary, 6 bytes: bound: the only sender accepted */
	EDM_A_FLINK_BROADCAST,		/* flag: bound: send to and accept from anyone */

	__EDM_A_FLINK_CNT,
	EDM_A_FLINK_MAX = __EDM_A_FLINK_CNT - 1
};

/* Counters of one link end, all u64. */
enum {
	EDM_A_LSTAT_UNSPEC,
	EDM_A_LSTAT_PAD,
	EDM_A_LSTAT_TX_BLOCKS,
	EDM_A_LSTAT_RX_BLOCKS,
	EDM_A_LSTAT_TX_MEM_BLOCKS,	/* /MS/../MT/, /MST/, /N/, /G/ */
	EDM_A_LSTAT_TX_FRAME_BLOCKS,	/* /S/ /D/ /T/ */
	EDM_A_LSTAT_TX_BURSTS,		/* groups of blocks handed to the wire */
	EDM_A_LSTAT_RX_BURSTS,
	EDM_A_LSTAT_PREEMPTIONS,	/* memory messages sent inside a frame */
	EDM_A_LSTAT_MEM_WAIT_MAX,	/* most frame blocks a memory message waited */
	EDM_A_LSTAT_SHERR,		/* bad sync headers received */
	EDM_A_LSTAT_RX_BAD,		/* blocks the decoder rejected */
	EDM_A_LSTAT_SEQ_GAPS,		/* bound: bursts missed (lost or late), asked again */
	EDM_A_LSTAT_TX_DROPS,
	EDM_A_LSTAT_DOWN_EVENTS,
	EDM_A_LSTAT_RX_FOREIGN,		/* frames dropped: not from the peer or to another */
	EDM_A_LSTAT_TX_RESENT,		/* bursts sent again (link-level retry) */
	EDM_A_LSTAT_TX_RTO,		/* times an ack did not come in time */
	EDM_A_LSTAT_TX_ACKS,		/* acks sent without blocks */
	EDM_A_LSTAT_TX_NACKS,		/* gaps asked for again */
	EDM_A_LSTAT_RX_DUPS,		/* bursts received again, dropped */
	EDM_A_LSTAT_SRTT_NS,		/* link-level retry's smoothed RTT, 0: not measured */
	EDM_A_LSTAT_TX_SPILLED,		/* memory blocks queued past the port's FIFO */

	__EDM_A_LSTAT_CNT,
	EDM_A_LSTAT_MAX = __EDM_A_LSTAT_CNT - 1
};

/*
 * DFabric memory pools (EDM_DEV_TYPE_POOL): 2 MiB Sections from a NUMA node
 * (a CPU-less node is how a CXL memory expander appears) or from any
 * memory, grouped in Regions of the fabric address space (FAS).
 */
enum {
	EDM_A_POOL_UNSPEC,
	EDM_A_POOL_PAD,
	EDM_A_POOL_ID,			/* u32: its edm device ID */
	EDM_A_POOL_NAME,		/* string */
	EDM_A_POOL_SIZE,		/* u64: bytes, a multiple of 2 MiB */
	EDM_A_POOL_NUMA_NODE,		/* u32: the node backing it; absent: any */
	EDM_A_POOL_REGION_SECTIONS,	/* u32: Sections per Region, default 512 */
	EDM_A_POOL_KEEP,		/* u32: empty Sections a node keeps per class */
	EDM_A_POOL_NODE_QUOTA,		/* u32: Sections one node may hold, 0: no limit */
	EDM_A_POOL_SECTIONS,		/* u32: Sections backing it, reply only */
	EDM_A_POOL_REGIONS,		/* u32: Regions mapped in the FAS, reply only */
	EDM_A_POOL_USERS,		/* u32: racks using it, reply only */
	EDM_A_POOL_STATS,		/* nest: EDM_A_PSTAT_*, reply only */
	EDM_A_POOL_DEV,			/* string: a pmem device's path backing it; absent: RAM */

	__EDM_A_POOL_CNT,
	EDM_A_POOL_MAX = __EDM_A_POOL_CNT - 1
};

/* Pool counters, all u64. */
enum {
	EDM_A_PSTAT_UNSPEC,
	EDM_A_PSTAT_PAD,
	EDM_A_PSTAT_SECTIONS_FREE,	/* the LPPU's, not applied to a node */
	EDM_A_PSTAT_BUFFERS,		/* Buffers allocated now */
	EDM_A_PSTAT_ALLOCS,		/* alloc_shared_buffer calls that succeeded */
	EDM_A_PSTAT_ENOMEM,		/* ... that found the pool exhausted */
	EDM_A_PSTAT_PASSES,		/* references passed between nodes */
	EDM_A_PSTAT_CHECKED,		/* references the mapping tables accepted */
	EDM_A_PSTAT_REFUSED,		/* ... and refused, any reason */
	EDM_A_PSTAT_LENT,		/* Buffers the network stack holds now */
	EDM_A_PSTAT_SKBS,		/* build_shared_skb calls that succeeded */
	EDM_A_PSTAT_RECLAIMED,		/* lent Buffers back after the stack let go */

	__EDM_A_PSTAT_CNT,
	EDM_A_PSTAT_MAX = __EDM_A_PSTAT_CNT - 1
};

/* DFabric racks (EDM_DEV_TYPE_RACK): compute nodes sharing one pool. */
enum {
	EDM_A_RACK_UNSPEC,
	EDM_A_RACK_ID,			/* u32: its edm device ID */
	EDM_A_RACK_NAME,		/* string */
	EDM_A_RACK_POOL,		/* string: the pool's name, same netns */
	EDM_A_RACK_CNS,			/* u32: compute nodes, reply only */

	__EDM_A_RACK_CNT,
	EDM_A_RACK_MAX = __EDM_A_RACK_CNT - 1
};

/*
 * A compute node of a rack, named by RACK and NAME; its netdev is created
 * with the same name and may be moved to any netns. Its DRAM cache caches
 * Region DCACHE_REGION of the pool: DCACHE_SETS (a power of two, 0: no
 * cache) x DCACHE_WAYS lines of DCACHE_GRAN bytes each.
 */
enum {
	EDM_A_CN_UNSPEC,
	EDM_A_CN_PAD,
	EDM_A_CN_RACK,			/* string: the rack's name */
	EDM_A_CN_NAME,			/* string: node and netdev name */
	EDM_A_CN_NODE,			/* u32: its node id in the pool, reply only */
	EDM_A_CN_IFINDEX,		/* u32: its netdev, reply only */
	EDM_A_CN_DCACHE_REGION,		/* u32 */
	EDM_A_CN_DCACHE_SETS,		/* u32: a power of two, 0: no cache */
	EDM_A_CN_DCACHE_WAYS,		/* u32: 1..16 */
	EDM_A_CN_DCACHE_GRAN,		/* u32: bytes per line, a power of two */
	EDM_A_CN_DCACHE_MIN_LEN,	/* u32: shorter accesses bypass the cache */
	EDM_A_CN_STATS,			/* nest: EDM_A_CNSTAT_*, reply only */

	__EDM_A_CN_CNT,
	EDM_A_CN_MAX = __EDM_A_CN_CNT - 1
};

/* Compute node counters, all u64. */
enum {
	EDM_A_CNSTAT_UNSPEC,
	EDM_A_CNSTAT_PAD,
	EDM_A_CNSTAT_TX_PACKETS,
	EDM_A_CNSTAT_TX_BYTES,
	EDM_A_CNSTAT_RX_PACKETS,
	EDM_A_CNSTAT_RX_BYTES,
	EDM_A_CNSTAT_COPIES,		/* packets copied into a pool Buffer */
	EDM_A_CNSTAT_COPY_BYTES,
	EDM_A_CNSTAT_FORWARDED,		/* descriptors its port engine moved */
	EDM_A_CNSTAT_TX_DROPS,		/* no such destination, or its RxQ full */
	EDM_A_CNSTAT_RX_DROPS,
	EDM_A_CNSTAT_ENOMEM,		/* the pool had no Buffer */
	EDM_A_CNSTAT_REFUSED,		/* references its mapping table refused */
	EDM_A_CNSTAT_SECTIONS,		/* Sections applied to it now */
	EDM_A_CNSTAT_BUFFERS,		/* Buffers it holds now */
	EDM_A_CNSTAT_DCACHE_HITS,	/* packets the socket read from a cache line */
	EDM_A_CNSTAT_DCACHE_MISSES,	/* packets read into a line as they came */
	EDM_A_CNSTAT_DCACHE_BYPASSED,	/* shorter than min-len, or longer than a line */
	EDM_A_CNSTAT_DCACHE_EVICTIONS,
	EDM_A_CNSTAT_DCACHE_FLUSHED,	/* lines dropped by kfree_shared_skb */
	EDM_A_CNSTAT_DCACHE_WRITEBACKS,	/* dirty lines written back to the pool */
	EDM_A_CNSTAT_DCACHE_BUSY,	/* every way of the set lent: read from the pool */
	EDM_A_CNSTAT_DCACHE_LENT,	/* lines the stack holds now */
	EDM_A_CNSTAT_DCACHE_HANDED_OVER,	/* lent lines given to the pool as the cache went */

	__EDM_A_CNSTAT_CNT,
	EDM_A_CNSTAT_MAX = __EDM_A_CNSTAT_CNT - 1
};

/* Where a region's memory is. */
enum edm_region_kind {
	EDM_REGION_KIND_UNSPEC,
	/* The local region a fabric memory host serves; its ID is the host's address. */
	EDM_REGION_KIND_FABRIC,
	/*
	 * Whole 2 MiB Sections of a CXL memory pool, made by REGION_NEW; its
	 * ID is EDM_REGION_POOL_ID_MIN or more, its owner the pool.
	 */
	EDM_REGION_KIND_POOL,

	__EDM_REGION_KIND_CNT,
	EDM_REGION_KIND_MAX = __EDM_REGION_KIND_CNT - 1
};

/* Pool regions take IDs from here up: below are the fabric's host addresses. */
#define EDM_REGION_POOL_ID_MIN	512
#define EDM_REGION_POOL_ID_MAX	65535

/*
 * Memory regions: what a Cowbird instance binds to (COWBIRD_IOC_CREATE's
 * region_id and region_key), each in a netns. A region is named by its ID,
 * and also by OWNER where several regions of a netns share an ID. KEY is in
 * a GET reply only for a requester with CAP_NET_ADMIN in the netns, in a
 * REKEY reply, and never in an event.
 */
enum {
	EDM_A_REGION_UNSPEC,
	EDM_A_REGION_PAD,
	EDM_A_REGION_ID,		/* u32, 0..65535: a fabric host's address, or a pool's */
	EDM_A_REGION_KIND,		/* u32: enum edm_region_kind, reply only */
	EDM_A_REGION_OWNER,		/* string: the device that owns it */
	EDM_A_REGION_SIZE,		/* u64: bytes; REGION_NEW rounds it up to Sections */
	EDM_A_REGION_KEY,		/* u64: what an instance presents, reply only */
	EDM_A_REGION_KEY_GEN,		/* u32: rekeys so far, reply only */
	EDM_A_REGION_STATS,		/* nest: EDM_A_RSTAT_*, reply only */

	__EDM_A_REGION_CNT,
	EDM_A_REGION_MAX = __EDM_A_REGION_CNT - 1
};

/* Accesses to a region through its key (Cowbird instances), all u64. */
enum {
	EDM_A_RSTAT_UNSPEC,
	EDM_A_RSTAT_PAD,
	EDM_A_RSTAT_READS,
	EDM_A_RSTAT_WRITES,
	EDM_A_RSTAT_READ_BYTES,
	EDM_A_RSTAT_WRITE_BYTES,
	EDM_A_RSTAT_ACCESS_ERRORS,	/* refused: a key that is not (or no longer) its */
	EDM_A_RSTAT_RANGE_ERRORS,	/* refused: outside the region */

	__EDM_A_RSTAT_CNT,
	EDM_A_RSTAT_MAX = __EDM_A_RSTAT_CNT - 1
};

/* The Cowbird offload engine: one for the module, shared by every netns. */
enum {
	EDM_A_COWBIRD_UNSPEC,
	EDM_A_COWBIRD_PAD,
	EDM_A_COWBIRD_THREADS,		/* u32: engine threads, reply only */
	EDM_A_COWBIRD_CPU,		/* u32: CPU they are pinned to (absent: none), reply only */
	EDM_A_COWBIRD_INSTANCES,	/* u32: instances served, all netns, reply only */
	EDM_A_COWBIRD_PROBE_MAX_US,	/* u32: longest sleep between idle probes */
	EDM_A_COWBIRD_IDLE_SPINS,	/* u32: empty probes in a row before sleeping */
	EDM_A_COWBIRD_BATCH,		/* u32: completions per book update */
	EDM_A_COWBIRD_STATS,		/* nest: EDM_A_CBSTAT_*, reply only */

	__EDM_A_COWBIRD_CNT,
	EDM_A_COWBIRD_MAX = __EDM_A_COWBIRD_CNT - 1
};

/* Engine counters, all u64. */
enum {
	EDM_A_CBSTAT_UNSPEC,
	EDM_A_CBSTAT_PAD,
	EDM_A_CBSTAT_PICKS,		/* instances taken to serve */
	EDM_A_CBSTAT_BUSY_SKIPS,	/* taken by another thread */
	EDM_A_CBSTAT_SLEEPS,
	EDM_A_CBSTAT_CREATED,		/* instances created */
	EDM_A_CBSTAT_DESTROYED,

	__EDM_A_CBSTAT_CNT,
	EDM_A_CBSTAT_MAX = __EDM_A_CBSTAT_CNT - 1
};

/* A Cowbird instance (one open /dev/cowbird). Replies only. */
enum {
	EDM_A_CBINST_UNSPEC,
	EDM_A_CBINST_PAD,
	EDM_A_CBINST_ID,		/* u32: COWBIRD_IOC_CREATE's instance_id */
	EDM_A_CBINST_REGION_ID,		/* u32: EDM_A_REGION_ID of its region */
	EDM_A_CBINST_REGION_SIZE,	/* u64 */
	EDM_A_CBINST_RINGS,		/* u32: thread rings */
	EDM_A_CBINST_ENTRIES,		/* u32: entries per ring */
	EDM_A_CBINST_DATA_SIZE,		/* u32: bytes of each data buffer */
	EDM_A_CBINST_BATCH,		/* u32: completions per book update */
	EDM_A_CBINST_STATS,		/* nest: EDM_A_CBISTAT_* */

	__EDM_A_CBINST_CNT,
	EDM_A_CBINST_MAX = __EDM_A_CBINST_CNT - 1
};

/* Counters of one instance, all u64: its rings' summed, and its CC state's. */
enum {
	EDM_A_CBISTAT_UNSPEC,
	EDM_A_CBISTAT_PAD,
	EDM_A_CBISTAT_PASSES,		/* engine passes over the instance */
	EDM_A_CBISTAT_FETCHED,		/* entries fetched */
	EDM_A_CBISTAT_REJECTED,		/* entries that failed their checks */
	EDM_A_CBISTAT_OPS,		/* ops handed out */
	EDM_A_CBISTAT_COMPLETED,	/* entries completed */
	EDM_A_CBISTAT_BATCHES,		/* book updates published */
	EDM_A_CBISTAT_RD_BLOCKED,	/* times the next read had to wait */
	EDM_A_CBISTAT_WR_BLOCKED,
	EDM_A_CBISTAT_RINGS_STOPPED,	/* rings a bad book stopped */
	EDM_A_CBISTAT_RD_OPS,		/* ops executed */
	EDM_A_CBISTAT_RD_BYTES,
	EDM_A_CBISTAT_WR_OPS,
	EDM_A_CBISTAT_WR_BYTES,
	EDM_A_CBISTAT_OP_ERRORS,	/* ops ended with an error status */
	EDM_A_CBISTAT_CC_ISSUED,
	EDM_A_CBISTAT_CC_COMPLETED,
	EDM_A_CBISTAT_CC_INCREASES,
	EDM_A_CBISTAT_CC_DECREASES,
	EDM_A_CBISTAT_CC_TIMEOUT_DECREASES,
	EDM_A_CBISTAT_CWND_LOCAL,	/* window, in 1/65536 op */
	EDM_A_CBISTAT_CWND_DST,		/* the region's window for reads (inbound) */
	EDM_A_CBISTAT_CWND_DST_WRITE,	/* and for writes (outbound) */

	__EDM_A_CBISTAT_CNT,
	EDM_A_CBISTAT_MAX = __EDM_A_CBISTAT_CNT - 1
};

/* How a NIC pool spreads a rack's outgoing traffic over its members. */
enum edm_nicpool_mode {
	EDM_NICPOOL_MODE_UNSPEC,
	/* Per flow; a flow moves only after an idle gap: no reordering, any peer. */
	EDM_NICPOOL_MODE_FLOWLET,
	/* Per packet, with a sequence number; the peer rack (edm) reorders. */
	EDM_NICPOOL_MODE_SPRAY,

	__EDM_NICPOOL_MODE_CNT,
	EDM_NICPOOL_MODE_MAX = __EDM_NICPOOL_MODE_CNT - 1
};

/*
 * DFabric NIC pools (EDM_DEV_TYPE_NICPOOL): one per rack, its members real
 * netdevs of the same netns. NIC names a member in NIC_ADD and NIC_DEL;
 * replies carry a MEMBER nest per member.
 */
enum {
	EDM_A_NICPOOL_UNSPEC,
	EDM_A_NICPOOL_PAD,
	EDM_A_NICPOOL_ID,		/* u32: its edm device ID */
	EDM_A_NICPOOL_NAME,		/* string */
	EDM_A_NICPOOL_RACK,		/* string: the rack's name, same netns */
	EDM_A_NICPOOL_MODE,		/* u32: enum edm_nicpool_mode, default flowlet */
	EDM_A_NICPOOL_FLOWLET_GAP_US,	/* u32: idle time before a flow may move */
	EDM_A_NICPOOL_NIC,		/* string: a member netdev's name */
	EDM_A_NICPOOL_NODE,		/* u32: its node id in the rack's pool, reply only */
	EDM_A_NICPOOL_TAG,		/* u32: its rack tag in spray headers, reply only */
	EDM_A_NICPOOL_MEMBERS,		/* u32: member count, reply only */
	EDM_A_NICPOOL_MEMBER,		/* nest: EDM_A_NPMEMBER_*, one per member, reply only */
	EDM_A_NICPOOL_STATS,		/* nest: EDM_A_NPSTAT_*, reply only */

	__EDM_A_NICPOOL_CNT,
	EDM_A_NICPOOL_MAX = __EDM_A_NICPOOL_CNT - 1
};

/* A member of a NIC pool. Replies only; counters are u64. */
enum {
	EDM_A_NPMEMBER_UNSPEC,
	EDM_A_NPMEMBER_PAD,
	EDM_A_NPMEMBER_IFINDEX,		/* u32 */
	EDM_A_NPMEMBER_NAME,		/* string: its netdev's name */
	EDM_A_NPMEMBER_TX_PACKETS,
	EDM_A_NPMEMBER_TX_BYTES,
	EDM_A_NPMEMBER_TX_DROPS,	/* refused by the member's qdisc or driver */
	EDM_A_NPMEMBER_RX_PACKETS,
	EDM_A_NPMEMBER_RX_BYTES,
	EDM_A_NPMEMBER_FLOWS,		/* flows (flowlets) placed on it */
	EDM_A_NPMEMBER_FLOWS_MOVED,	/* flows that left it after an idle gap */
	EDM_A_NPMEMBER_DEPTH,		/* queue depth, bytes, when last chosen */
	EDM_A_NPMEMBER_DEPTH_MAX,	/* deepest queue it was chosen with */

	__EDM_A_NPMEMBER_CNT,
	EDM_A_NPMEMBER_MAX = __EDM_A_NPMEMBER_CNT - 1
};

/* NIC pool counters, all u64. */
enum {
	EDM_A_NPSTAT_UNSPEC,
	EDM_A_NPSTAT_PAD,
	EDM_A_NPSTAT_TX_PACKETS,	/* handed to a member */
	EDM_A_NPSTAT_TX_BYTES,
	EDM_A_NPSTAT_TX_DROPS,		/* no member up, no encapsulation, a member refused */
	EDM_A_NPSTAT_RX_PACKETS,	/* posted to a compute node's RxQ */
	EDM_A_NPSTAT_RX_BYTES,
	EDM_A_NPSTAT_RX_NO_DEST,	/* no compute node has that address */
	EDM_A_NPSTAT_RX_DROPS,		/* no Buffer, RxQ full, bad frame */
	EDM_A_NPSTAT_RX_FLOODS,		/* broadcast frames given to every node */
	EDM_A_NPSTAT_COPIES,		/* received frames copied into a Buffer (the DMA) */
	EDM_A_NPSTAT_COPY_BYTES,
	EDM_A_NPSTAT_ENOMEM,		/* the pool had no Buffer */
	EDM_A_NPSTAT_FLOWS_NEW,		/* flows placed for the first time */
	EDM_A_NPSTAT_FLOWLET_MOVES,	/* flows moved to another member after a gap */
	EDM_A_NPSTAT_FLOWS_REHOMED,	/* flows moved off a member that left or went down */
	EDM_A_NPSTAT_SPRAYED,		/* packets sent with a sequence number */
	EDM_A_NPSTAT_SEGMENTED,		/* GSO packets cut up in software to spray */
	EDM_A_NPSTAT_REORDERED,		/* held until the packets before them came */
	EDM_A_NPSTAT_LATE,		/* came after the window had moved past them */
	EDM_A_NPSTAT_DUPS,		/* a sequence number already held */
	EDM_A_NPSTAT_WINDOW_FLUSHES,	/* a packet too far ahead flushed the window */
	EDM_A_NPSTAT_TIMEOUT_FLUSHES,	/* held packets given up waiting for a hole */
	EDM_A_NPSTAT_FLOWLET_HOLDS,	/* idle for the gap, kept: its member still queued */

	__EDM_A_NPSTAT_CNT,
	EDM_A_NPSTAT_MAX = __EDM_A_NPSTAT_CNT - 1
};

/* A host slot's state in a shared pool, as every member sees it. */
enum edm_shpool_host_state {
	EDM_SHPOOL_HOST_FREE,
	EDM_SHPOOL_HOST_JOINING,
	EDM_SHPOOL_HOST_LIVE,
	EDM_SHPOOL_HOST_DEAD,		/* a survivor is reclaiming its Buffers */
	EDM_SHPOOL_HOST_LEAVING,	/* it is giving its Buffers back */

	__EDM_SHPOOL_HOST_CNT,
	EDM_SHPOOL_HOST_MAX = __EDM_SHPOOL_HOST_CNT - 1
};

/* An export slot's state: a Cowbird instance one kernel maps and another serves. */
enum edm_shpool_export_state {
	EDM_SHPOOL_EXPORT_FREE,
	EDM_SHPOOL_EXPORT_CLAIMED,	/* its owner is filling it */
	EDM_SHPOOL_EXPORT_OFFERED,	/* to its target's engine (served once answered) */
	EDM_SHPOOL_EXPORT_CLOSED,	/* its owner is done; freed once the engine let go */
	EDM_SHPOOL_EXPORT_FREEING,

	__EDM_SHPOOL_EXPORT_CNT,
	EDM_SHPOOL_EXPORT_MAX = __EDM_SHPOOL_EXPORT_CNT - 1
};

/* What the target's engine answered. */
enum edm_shpool_export_answer {
	EDM_SHPOOL_ANSWER_PENDING,
	EDM_SHPOOL_ANSWER_SERVED,
	EDM_SHPOOL_ANSWER_REFUSED,

	__EDM_SHPOOL_ANSWER_CNT,
	EDM_SHPOOL_ANSWER_MAX = __EDM_SHPOOL_ANSWER_CNT - 1
};

/* Why an instance of this kernel's stopped (EDM_CMD_SHPOOL_EXPORT_DOWN). */
enum edm_shpool_export_down {
	EDM_SHPOOL_DOWN_ENGINE_GONE,	/* its engine's kernel died: its rings stopped */
	EDM_SHPOOL_DOWN_REVOKED,	/* this kernel was reaped or detached: mapping gone */

	__EDM_SHPOOL_DOWN_CNT,
	EDM_SHPOOL_DOWN_MAX = __EDM_SHPOOL_DOWN_CNT - 1
};

/*
 * Shared pools (EDM_DEV_TYPE_SHPOOL): this kernel joined to a memory range
 * that other kernels map too (an ivshmem device, PCI name in DEVICE), with
 * a netdev whose frames travel to the other members as Buffers passed
 * through the range. The first to join formats the range with NHOSTS,
 * BUF_SHIFT, RING and LEASE_MS; later ones read them from it.
 */
enum {
	EDM_A_SHPOOL_UNSPEC,
	EDM_A_SHPOOL_PAD,
	EDM_A_SHPOOL_ID,		/* u32: its edm device ID */
	EDM_A_SHPOOL_NAME,		/* string */
	EDM_A_SHPOOL_DEVICE,		/* string: the memory's PCI device, e.g. 0000:00:10.0 */
	EDM_A_SHPOOL_IFNAME,		/* string: its netdev; default shp%d */
	EDM_A_SHPOOL_HOSTNAME,		/* string: how other members see it; default uts name */
	EDM_A_SHPOOL_NHOSTS,		/* u32: host slots, if this join formats */
	EDM_A_SHPOOL_BUF_SHIFT,		/* u32: log2 of the Buffer size, if this join formats */
	EDM_A_SHPOOL_RING,		/* u32: descriptors per ring, if this join formats */
	EDM_A_SHPOOL_LEASE_MS,		/* u32: silence before a host is reaped, if formats */
	EDM_A_SHPOOL_SIZE,		/* u64: bytes of the range, reply only */
	EDM_A_SHPOOL_BUFS,		/* u32: Buffers in the range, reply only */
	EDM_A_SHPOOL_SLOT,		/* u32: this kernel's host slot, reply only */
	EDM_A_SHPOOL_EPOCH,		/* u32: its life in that slot, reply only */
	EDM_A_SHPOOL_FORMATTED,		/* flag: this join formatted the range, reply only */
	EDM_A_SHPOOL_HOST,		/* nest: EDM_A_SHHOST_*, a slot in use or reaped; reply */
	EDM_A_SHPOOL_STATS,		/* nest: EDM_A_SHSTAT_*, reply only */
	EDM_A_SHPOOL_EXPORT,		/* nest: EDM_A_SHEXP_*, an export slot in use; reply */

	__EDM_A_SHPOOL_CNT,
	EDM_A_SHPOOL_MAX = __EDM_A_SHPOOL_CNT - 1
};

/* A host slot of a shared pool, as this kernel sees it. Replies only. */
enum {
	EDM_A_SHHOST_UNSPEC,
	EDM_A_SHHOST_PAD,
	EDM_A_SHHOST_SLOT,		/* u32 */
	EDM_A_SHHOST_STATE,		/* u32: enum edm_shpool_host_state */
	EDM_A_SHHOST_EPOCH,		/* u32 */
	EDM_A_SHHOST_NAME,		/* string: its hostname */
	EDM_A_SHHOST_MAC,		/* binary, 6 bytes: its netdev's address */
	EDM_A_SHHOST_HELD,		/* u32: Buffers it holds */
	EDM_A_SHHOST_REAPED,		/* u64: lives of this slot reaped by survivors */
	EDM_A_SHHOST_SELF,		/* flag: this kernel */

	__EDM_A_SHHOST_CNT,
	EDM_A_SHHOST_MAX = __EDM_A_SHHOST_CNT - 1
};

/* An export slot of a shared pool in use (EDM_A_SHPOOL_EXPORT), as this kernel sees it. */
enum {
	EDM_A_SHEXP_UNSPEC,
	EDM_A_SHEXP_PAD,
	EDM_A_SHEXP_INDEX,		/* u32: the slot */
	EDM_A_SHEXP_STATE,		/* u32: enum edm_shpool_export_state */
	EDM_A_SHEXP_OWNER,		/* u32: the host slot of the kernel that maps it */
	EDM_A_SHEXP_TARGET,		/* u32: the host slot asked to serve it */
	EDM_A_SHEXP_ENGINE,		/* u32: the host slot serving it; absent if none */
	EDM_A_SHEXP_ANSWER,		/* u32: enum edm_shpool_export_answer */
	EDM_A_SHEXP_ERRNO,		/* u32: why it was refused, a positive errno */
	EDM_A_SHEXP_BUFS,		/* u32: Buffers of its area */
	EDM_A_SHEXP_INSTANCE,		/* u32: the owner's Cowbird instance ID */
	EDM_A_SHEXP_REGION,		/* u32: the region it reaches, in the engine's kernel */
	EDM_A_SHEXP_DOWN,		/* u32: enum edm_shpool_export_down, event only */

	__EDM_A_SHEXP_CNT,
	EDM_A_SHEXP_MAX = __EDM_A_SHEXP_CNT - 1
};

/* Shared pool counters of this kernel, all u64. */
enum {
	EDM_A_SHSTAT_UNSPEC,
	EDM_A_SHSTAT_PAD,
	EDM_A_SHSTAT_TX_PACKETS,	/* frames passed to another member */
	EDM_A_SHSTAT_TX_BYTES,
	EDM_A_SHSTAT_TX_NO_HOST,	/* no live member has that address */
	EDM_A_SHSTAT_TX_NO_BUF,		/* the pool had no free Buffer */
	EDM_A_SHSTAT_TX_RING_FULL,	/* the ring to that member was full */
	EDM_A_SHSTAT_TX_HOST_DOWN,	/* the member died as the Buffer was passed */
	EDM_A_SHSTAT_TX_FLOODS,		/* broadcast frames, one Buffer per member */
	EDM_A_SHSTAT_RX_PACKETS,
	EDM_A_SHSTAT_RX_BYTES,
	EDM_A_SHSTAT_RX_REFUSED,	/* descriptors whose Buffer was not ours as they said */
	EDM_A_SHSTAT_RX_DROPS,		/* no skb, or bad offload state */
	EDM_A_SHSTAT_ALLOCS,		/* Buffers taken from the pool */
	EDM_A_SHSTAT_FREES,		/* Buffers given back */
	EDM_A_SHSTAT_TAKEN_BACK,	/* passed to a member that died, taken back */
	EDM_A_SHSTAT_REAPED_HOSTS,	/* dead members this kernel reclaimed */
	EDM_A_SHSTAT_REAPED_BUFS,	/* their Buffers it freed */
	EDM_A_SHSTAT_POLLS,		/* receive polls (no doorbell: polling) */
	EDM_A_SHSTAT_IDLE_POLLS,	/* polls that found nothing */
	EDM_A_SHSTAT_FENCED,		/* times this kernel found itself reaped */
	EDM_A_SHSTAT_X_OFFERED,		/* Cowbird instances this kernel offered */
	EDM_A_SHSTAT_X_SERVED,		/* offers this kernel's engine took */
	EDM_A_SHSTAT_X_REFUSED,		/* offers it answered with an error */
	EDM_A_SHSTAT_X_DROPPED,		/* instances it stopped serving */
	EDM_A_SHSTAT_X_LOST,		/* our instances whose engine died */
	EDM_A_SHSTAT_X_FREED,		/* export slots this kernel freed */
	EDM_A_SHSTAT_X_REVOKED,		/* our instances whose mappings were taken away */
	EDM_A_SHSTAT_RX_ZEROCOPY,	/* frames passed up in their own Buffer, no copy */
	EDM_A_SHSTAT_RX_COPIED,		/* frames copied out of their Buffer */
	EDM_A_SHSTAT_RX_SMALL,		/* frames of <= 256 bytes, copied on any memory */
	EDM_A_SHSTAT_RX_RETURNED,	/* Buffers of those back from the network stack */

	__EDM_A_SHSTAT_CNT,
	EDM_A_SHSTAT_MAX = __EDM_A_SHSTAT_CNT - 1
};

enum {
	EDM_CMD_UNSPEC,
	EDM_CMD_VERSION_GET,		/* do: reply carries EDM_A_INFO_* */
	EDM_CMD_DEV_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_DEV_NEW,		/* admin; also the created event */
	EDM_CMD_DEV_DEL,		/* admin; also the deleted event */
	EDM_CMD_NETDIMM_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_NETDIMM_NEW,		/* admin; also the created event */
	EDM_CMD_NETDIMM_DEL,		/* admin; deletes a pair; deleted event */
	EDM_CMD_FABRIC_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_FABRIC_NEW,		/* admin; also the created event */
	EDM_CMD_FABRIC_DEL,		/* admin; deletes its links too; event */
	EDM_CMD_FABRIC_SET,		/* admin: switch policy, chunk; event */
	EDM_CMD_FLINK_GET,		/* do (by NODE and PORT) and dump */
	EDM_CMD_FLINK_NEW,		/* admin; also the created event */
	EDM_CMD_FLINK_DEL,		/* admin; also the deleted event */
	EDM_CMD_FLINK_SET,		/* admin: rate, delay, mux, corrupt; event */
	EDM_CMD_FLINK_DOWN,		/* event only: a link end was disabled */
	EDM_CMD_POOL_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_POOL_NEW,		/* admin; also the created event */
	EDM_CMD_POOL_DEL,		/* admin; refused while a rack uses it; event */
	EDM_CMD_POOL_SET,		/* admin: keep, node-quota; event if changed */
	EDM_CMD_RACK_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_RACK_NEW,		/* admin; also the created event */
	EDM_CMD_RACK_DEL,		/* admin; deletes its compute nodes; event */
	EDM_CMD_CN_GET,			/* do (by RACK and NAME) and dump */
	EDM_CMD_CN_NEW,			/* admin; a netdev per node; event */
	EDM_CMD_CN_DEL,			/* admin; also the deleted event */
	EDM_CMD_CN_SET,			/* admin: its DRAM cache; event if changed */
	EDM_CMD_REGION_GET,		/* do (by ID and/or OWNER) and dump */
	EDM_CMD_REGION_REKEY,		/* admin: the new key in the reply; event, no key */
	EDM_CMD_COWBIRD_GET,		/* do: the engine's parameters and counters */
	EDM_CMD_COWBIRD_SET,		/* admin: probe_max_us, idle_spins, batch; event */
	EDM_CMD_COWBIRD_INST_GET,	/* dump: instances on regions of the netns */
	EDM_CMD_REGION_NEW,		/* admin: a pool region (OWNER, SIZE, ID); event */
	EDM_CMD_REGION_DEL,		/* admin: a pool region (ID and/or OWNER); event */
	EDM_CMD_NICPOOL_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_NICPOOL_NEW,		/* admin; also the created event */
	EDM_CMD_NICPOOL_DEL,		/* admin; its members are let go; event */
	EDM_CMD_NICPOOL_SET,		/* admin: mode, flowlet gap; event if changed */
	EDM_CMD_NICPOOL_NIC_ADD,	/* admin: NIC becomes a member; event */
	EDM_CMD_NICPOOL_NIC_DEL,	/* admin: NIC leaves, its flows move; event */
	EDM_CMD_SHPOOL_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_SHPOOL_JOIN,		/* admin: join (format if blank); created event */
	EDM_CMD_SHPOOL_LEAVE,		/* admin: give Buffers back, leave; deleted event */
	EDM_CMD_SHPOOL_REAP,		/* event only: we reaped a member, or were reaped */
	EDM_CMD_SHPOOL_EXPORT_DOWN,	/* event only: an instance of ours stopped */

	__EDM_CMD_CNT,
	EDM_CMD_MAX = __EDM_CMD_CNT - 1
};

/*
 * /dev/edm<N>: the ops of fabric host N. Submit a batch, reap completions
 * (poll() says when there are some), or map a window of a memory node's
 * region: a page fault fetches the page over the fabric, and msync() or
 * munmap() writes dirty pages back.
 */
#define EDM_IOC_MAGIC		0xED
#define EDM_OP_MAX_LEN		65535	/* 16-bit size of /N/ */
#define EDM_OP_BATCH_MAX	256	/* ops per submit or reap call */

enum edm_op_code {
	EDM_OP_READ,			/* len bytes at addr into buf */
	EDM_OP_WRITE,			/* len bytes of buf to addr */
	EDM_OP_CAS,			/* 8 bytes at addr: if == arg0, set arg1 */
	EDM_OP_FADD,			/* 8 bytes at addr += arg0 */
	EDM_OP_SWAP,			/* 8 bytes at addr = arg0 */

	__EDM_OP_CNT,
	EDM_OP_MAX = __EDM_OP_CNT - 1
};

/*
 * One op. RMW ops take len 8 and an 8-byte aligned addr; buf is unused.
 * A WRITE completes when the memory node acknowledged every chunk; one
 * that lost a chunk on the way completes with -EPROTO (nothing of it is
 * known to have landed whole: write it again), one never acknowledged with
 * -ETIMEDOUT. With EDM_OP_F_POSTED it completes when its last chunk left
 * the host, as the EDM paper's writes do: nothing then reports a loss.
 * An op the memory node refuses (NACKs) completes with -EKEYREJECTED (its
 * region is keyed and the op's key, EDM_IOC_KEY, is not, or no longer, the
 * region's), -ERANGE (outside the region) or -ENXIO (the node serves no
 * region); a posted write it refuses is dropped there and counted.
 * Layout (48 bytes): 0 user_data  8 addr  16 buf  24 arg0  32 arg1  40 len
 *   44 dst  46 opcode  47 flags
 */
#define EDM_OP_F_POSTED		0x01	/* WRITE only: done when sent, not acknowledged */

struct edm_op {
	__u64 user_data;		/* returned in the completion */
	__u64 addr;			/* offset in the memory node's region */
	__u64 buf;			/* user pointer: write source, read target */
	__u64 arg0;
	__u64 arg1;
	__u32 len;			/* 1..EDM_OP_MAX_LEN */
	__u16 dst;			/* the memory node's address */
	__u8 opcode;			/* enum edm_op_code */
	__u8 flags;			/* EDM_OP_F_*, other bits 0 */
};

/* Layout (40 bytes): 0 user_data  8 result  16 lat_ns  24 model_ns  32 status  36 bytes */
struct edm_cqe {
	__u64 user_data;
	__u64 result;			/* RMW: the word's old value */
	__u64 lat_ns;			/* measured, submit to completion */
	__u64 model_ns;			/* modeled hardware latency (timing model) */
	__s32 status;			/* 0 or a negative errno */
	__u32 bytes;			/* bytes read or written */
};

/* Layout (16 bytes): 0 ops  8 nr  12 done */
struct edm_submit {
	__u64 ops;			/* user pointer to nr struct edm_op */
	__u32 nr;			/* 1..EDM_OP_BATCH_MAX */
	__u32 done;			/* out: ops accepted, in order (0 if none) */
};

/* Layout (24 bytes): 0 cqes  8 max  12 min  16 timeout_ms  20 nr */
struct edm_reap {
	__u64 cqes;			/* user pointer to room for max struct edm_cqe */
	__u32 max;			/* 1..EDM_OP_BATCH_MAX */
	__u32 min;			/* wait until this many, 0: don't wait */
	__u32 timeout_ms;		/* bound on the wait */
	__u32 nr;			/* out: completions copied */
};

/*
 * Bind the mmap window to a memory node; reports its region size.
 * Layout (16 bytes): 0 dst  2 pad0  4 pad1  8 size
 */
struct edm_target {
	__u16 dst;
	__u16 pad0;
	__u32 pad1;			/* must be 0 */
	__u64 size;			/* out */
};

/*
 * Set the key this file's ops, and its mmap window, present to memory node
 * dst: its region's EDM_A_REGION_KEY. Until then, and with key 0, the file
 * presents none, which only a region that is not keyed serves (fabric
 * host's EDM_A_FAB_REGION_KEYED). A keyed region refuses an op without its
 * key: the op completes with -EKEYREJECTED, and so do those still in flight
 * when the region is rekeyed.
 * Layout (16 bytes): 0 dst  2 pad0  4 pad1  8 key
 */
struct edm_key {
	__u16 dst;
	__u16 pad0;			/* must be 0 */
	__u32 pad1;			/* must be 0 */
	__u64 key;
};

#define EDM_IOC_SUBMIT		_IOWR(EDM_IOC_MAGIC, 1, struct edm_submit)
#define EDM_IOC_REAP		_IOWR(EDM_IOC_MAGIC, 2, struct edm_reap)
#define EDM_IOC_TARGET		_IOWR(EDM_IOC_MAGIC, 3, struct edm_target)
#define EDM_IOC_KEY		_IOWR(EDM_IOC_MAGIC, 4, struct edm_key)

#endif /* _UAPI_LINUX_EDM_H */
