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
 * EDM_A_ZONE_* and EDM_A_NDSTAT_*).
 */
#ifndef _UAPI_LINUX_EDM_H
#define _UAPI_LINUX_EDM_H

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

	__EDM_DEV_TYPE_CNT,
	EDM_DEV_TYPE_MAX = __EDM_DEV_TYPE_CNT - 1
};

enum edm_backend {
	EDM_BACKEND_UNSPEC,
	/* Software emulation: used whenever no hardware is present. */
	EDM_BACKEND_SOFT,

	__EDM_BACKEND_CNT,
	EDM_BACKEND_MAX = __EDM_BACKEND_CNT - 1
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
	EDM_A_DEV_BACKEND,		/* u32: enum edm_backend */

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

enum {
	EDM_CMD_UNSPEC,
	EDM_CMD_VERSION_GET,		/* do: reply carries EDM_A_INFO_* */
	EDM_CMD_DEV_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_DEV_NEW,		/* admin; also the created event */
	EDM_CMD_DEV_DEL,		/* admin; also the deleted event */
	EDM_CMD_NETDIMM_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_NETDIMM_NEW,		/* admin; also the created event */
	EDM_CMD_NETDIMM_DEL,		/* admin; deletes a pair; deleted event */

	__EDM_CMD_CNT,
	EDM_CMD_MAX = __EDM_CMD_CNT - 1
};

#endif /* _UAPI_LINUX_EDM_H */
