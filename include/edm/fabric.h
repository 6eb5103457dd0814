/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The EDM fabric inside edm.ko: nodes (hosts and switches), their PHY ports,
 * the links between ports, the host stack's op API and the transports that
 * carry blocks (emulated wires, or Ethernet frames of ethertype 0x88B5).
 *
 * Blocks travel in bursts: an skb whose data is a struct edm_burst_hdr and
 * then up to EDM_BURST_BLOCKS blocks in the PCS wire form (66 bytes per eight
 * blocks, payloads scrambled). The same skb is queued on an emulated wire or,
 * behind an Ethernet header, sent on a netdev.
 *
 * Execution. Every node has a NAPI instance on a dummy netdev. Arriving
 * bursts go to the node's inbox (an skb queue) and schedule the NAPI; the
 * poll decodes them under the node's lock, runs the host stack or the switch,
 * and flushes what the ports' TX muxes produced. So all of a node's state is
 * touched under node->lock (BH), and no node calls into another directly.
 *
 * Lifetime. Nodes are edm devices (EDM_DEV_TYPE_FHOST, _FSWITCH) created and
 * destroyed under the netns registry lock. A node is refcounted: /dev/edm<N>
 * files and in-flight timers hold references, and a destroyed node is marked
 * dead (ops fail with ENODEV) until the last reference goes.
 */
#ifndef _EDM_FABRIC_H
#define _EDM_FABRIC_H

#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <uapi/linux/edm.h>

#include "edm/pcs.h"
#include "edm/region.h"
#include "edm/timing.h"

struct edm_dev;
struct edm_fab_node;
struct edm_fab_port;

#define EDM_FAB_ETHERTYPE	0x88B5	/* IEEE 802 local experimental 1 */
#define EDM_BURST_BLOCKS	256	/* blocks per burst at most */
#define EDM_FAB_ADDR_MAX	511	/* 9-bit fabric address */
#define EDM_FAB_PORTS_MAX	512
#define EDM_FAB_DEFAULT_PORTS	16
#define EDM_FAB_HOST_PORTS_MAX	2	/* the second: to a standby switch */
#define EDM_FAB_DEFAULT_TIMEOUT_MS 100
#define EDM_FAB_TIMEOUT_MS_MAX	60000
#define EDM_FAB_TIMEOUT_MIN_US_MIN 100
#define EDM_FAB_REGION_MAX	BIT_ULL(30)
#define EDM_FAB_RATE_MIN	1000
#define EDM_FAB_RATE_MAX	400000
#define EDM_FAB_DELAY_MAX_NS	10000000
#define EDM_FAB_DEFAULT_RATE	25000
#define EDM_FAB_CHUNK_MIN	8
#define EDM_FAB_CHUNK_MAX	(EDM_PCS_MSG_MAX - 16)	/* a WREQ chunk, its address and key */

/*
 * The head of every burst, big endian on the wire. On a link bound to a
 * netdev, each end keeps what it sent until the other end acknowledges it
 * (ack: the next seq it expects) and sends it again from the first one
 * missing when told (EDM_BURST_NACK) or when no acknowledgment came in time
 * (link-level retry, fabric/link.c). A burst of no blocks carries only an
 * acknowledgment, and takes no sequence number. epoch changes each time
 * the sender's end is reset (its link made anew, set up after going down)
 * or gives up on what it holds: the receiver takes the next burst as the
 * first of a new sequence.
 */
struct edm_burst_hdr {
	__be32 seq;		/* per port, counting on across resets */
	__be32 ack;		/* EDM_BURST_ACK: the next seq the sender expects */
	__be16 nblocks;		/* 0 (an acknowledgment alone) or 1..EDM_BURST_BLOCKS */
	u8 flags;		/* EDM_BURST_* */
	u8 epoch;
} __packed;

#define EDM_BURST_ACK		0x01	/* ack is valid */
#define EDM_BURST_NACK		0x02	/* and what follows it is missing: send it again */

/* Link parameters, as EDM_A_FLINK_* set them. */
struct edm_fab_link_cfg {
	u32 rate_mbps;
	u32 delay_ns;
	u32 mux;		/* enum edm_fab_mux */
	u32 sherr_threshold;
};

struct edm_fab_link_stats {
	u64 tx_blocks;
	u64 rx_blocks;
	u64 tx_mem_blocks;
	u64 tx_frame_blocks;
	u64 tx_bursts;
	u64 rx_bursts;
	u64 preemptions;
	u64 mem_wait_max;
	u64 sherr;
	u64 rx_bad;
	u64 seq_gaps;
	u64 tx_drops;
	u64 down_events;
	u64 rx_foreign;		/* bound: frames not from the peer or to another */
	/* link-level retry, bound links only */
	u64 tx_resent;		/* bursts sent again */
	u64 tx_rto;		/* times no ack came in time */
	u64 tx_acks;		/* acks sent alone */
	u64 tx_nacks;		/* gaps asked for again */
	u64 rx_dups;		/* bursts received again, dropped */
	u64 srtt_ns;		/* smoothed RTT of bursts to their acks, 0: none yet */
	u64 tx_spilled;		/* memory blocks that waited past the port's FIFO */
};

/* What a link end says about itself (netlink FLINK_GET). */
struct edm_fab_link_info {
	bool linked;
	char peer[EDM_NAME_LEN];	/* emulated: the other node, else "" */
	u32 peer_port;
	int ifindex;			/* bound: the netdev, else 0 */
	u8 peer_mac[ETH_ALEN];		/* bound, not broadcast: the only sender */
	bool broadcast;			/* bound: to and from anyone */
	u32 state;			/* enum edm_flink_state */
	struct edm_fab_link_cfg cfg;
	struct edm_fab_link_stats stats;
};

/*
 * An op of the host stack. The caller fills the first block and owns the op
 * and buf until done() is called, exactly once, in BH context.
 */
#define EDM_FAB_OP_ACKED	BIT(0)	/* write: done when the memory node says it landed */
#define EDM_FAB_OP_DISPATCH	BIT(1)	/* ends -EBUSY if not issued within dispatch_ns */

struct edm_fab_op {
	u32 opcode;		/* enum edm_op_code */
	u32 dst;		/* memory node address */
	u64 addr;		/* offset in its region */
	u32 len;		/* 1..EDM_OP_MAX_LEN; RMW ops 8 */
	void *buf;		/* kernel memory: write source, read target */
	u64 arg0, arg1;
	u64 key;		/* the region's key, carried to the memory node */
	void (*done)(struct edm_fab_op *op);
	void *priv;
	u32 flags;		/* EDM_FAB_OP_* */
	u64 dispatch_ns;	/* EDM_FAB_OP_DISPATCH: 0 is twice the host's timeout_ms */

	/* filled at completion */
	int status;		/* 0 or -errno */
	u32 bytes;
	u64 result;		/* RMW: old value; region probe: its size */
	u64 lat_ns;
	u64 model_ns;

	/* the host stack's */
	struct list_head list;
	u64 start_ns;		/* submitted */
	u64 issued_ns;		/* first left the queue for the wire, 0: not yet */
	u64 sent_ns;		/* when what it waits for was asked */
	u64 active_ns;		/* issued: when it last made progress */
	u64 deadline_ns;	/* queued: when it times out */
	u32 progress;		/* bytes sent (write) or received (read) */
	u8 id;
	u8 state;
};

/* Creation parameters of a node: the cfg of its type's create(). */
struct edm_fab_node_cfg {
	/* switch */
	u32 nports;		/* 0: EDM_FAB_DEFAULT_PORTS */
	u32 x;			/* 0: EDM_SCHED_DEFAULT_X */
	u32 chunk;		/* 0: EDM_SCHED_DEFAULT_CHUNK */
	u32 policy;		/* enum edm_fab_policy */
	u32 rate_mbps;		/* 0: EDM_FAB_DEFAULT_RATE */
	/* host */
	u32 addr;		/* its switch port */
	u64 region_size;	/* bytes served, 0: none */
	u32 timeout_ms;		/* 0: EDM_FAB_DEFAULT_TIMEOUT_MS */
	u32 timeout_min_us;	/* 0: a quarter of timeout_ms */
	bool keyed;		/* its region serves only requests with its key */
	struct net_device *netdev;	/* host: allocated by `ip link add`, or NULL */
};

struct edm_fab_node_stats {
	u64 v[__EDM_A_FSTAT_CNT];	/* indexed by EDM_A_FSTAT_*; 0 = unused */
};

/* What a node says about itself (netlink FABRIC_GET). */
struct edm_fab_node_info {
	bool is_host;
	struct edm_fab_node_cfg cfg;	/* current values, defaults filled in */
	int minor;			/* host: N of /dev/edm<N> */
	struct edm_fab_node_stats stats;
};

void edm_fab_node_info(struct edm_fab_node *n, struct edm_fab_node_info *info);
int edm_fab_switch_set(struct edm_fab_node *sw, const u32 *policy, const u32 *chunk,
		       struct netlink_ext_ack *extack);

/*
 * Netlink events (fabric/nl.c). Called in process context with the
 * registry lock not held; a link end that went down says why.
 */
void edm_fab_nl_link_down(struct net *net, const char *node, u32 port, const char *why);

/* Node lookup and references (fabric/node.c) */
struct edm_fab_node *edm_fab_node_of(const struct edm_dev *dev);
struct edm_fab_node *edm_fab_node_get(struct edm_fab_node *n);
void edm_fab_node_put(struct edm_fab_node *n);
const char *edm_fab_node_name(const struct edm_fab_node *n);
bool edm_fab_node_is_host(const struct edm_fab_node *n);
u32 edm_fab_node_nports(const struct edm_fab_node *n);

/* Host stack (fabric/requester.c: ops; fabric/host.c: addr, minor, cdev) */
int edm_fab_host_submit(struct edm_fab_node *host, struct edm_fab_op *op);
u64 edm_fab_host_dispatch_ns(struct edm_fab_node *host);
int edm_fab_host_probe(struct edm_fab_node *host, u32 dst, u64 *size);
int edm_fab_host_sync_op(struct edm_fab_node *host, struct edm_fab_op *op);
u32 edm_fab_host_addr(const struct edm_fab_node *host);
int edm_fab_host_minor(const struct edm_fab_node *host);
/* the local region for Cowbird, named by address, proven by key (fabric/region.c) */
int edm_fab_host_region(struct edm_fab_node *host, u32 addr, u64 *size, u64 *key);
int edm_fab_host_region_io(struct edm_fab_node *host, u64 key, u64 off, void *buf, u32 len,
			   bool write);

/* What netlink shows of a host's region (cowbird/region_nl.c). */
int edm_fab_host_region_info(struct edm_fab_node *host, struct edm_region_info *ri);
int edm_fab_host_rekey(struct edm_fab_node *host);
int edm_fab_host_region_check(struct edm_fab_node *host, u64 key);
struct seq_file;
void edm_fab_regions_show(struct seq_file *m);
/* for cdev.c: its per-host state and the N of /dev/edm<N> */
void edm_fab_host_set_cdev(struct edm_fab_node *host, void *cdev, int minor);
void *edm_fab_host_cdev(const struct edm_fab_node *host);

/* Links (fabric/link.c), under the registry lock */
int edm_fab_link_emu(struct edm_fab_node *a, u32 pa, struct edm_fab_node *b, u32 pb,
		     const struct edm_fab_link_cfg *cfg, struct netlink_ext_ack *extack);
int edm_fab_link_bind(struct edm_fab_node *n, u32 port, struct net_device *dev,
		      const u8 *peer_mac, const struct edm_fab_link_cfg *cfg,
		      struct netlink_ext_ack *extack);
int edm_fab_link_del(struct edm_fab_node *n, u32 port, struct netlink_ext_ack *extack);
int edm_fab_link_set(struct edm_fab_node *n, u32 port, const struct edm_fab_link_cfg *cfg,
		     u32 corrupt, struct netlink_ext_ack *extack);
int edm_fab_link_info(struct edm_fab_node *n, u32 port, struct edm_fab_link_info *info);
void edm_fab_link_cfg_default(struct edm_fab_link_cfg *cfg);

/*
 * EDM over Ethernet (fabric/eth.c): a port bound to a netdev sends bursts
 * behind an Ethernet header to its peer's address (NULL peer_mac: the
 * broadcast address) and receives, through a packet_type handler
 * registered for that one netdev, only the peer's frames (any, broadcast).
 */
struct edm_fab_eth_bind;
struct edm_fab_eth_bind *edm_fab_eth_bind(struct edm_fab_port *p, struct net_device *dev,
					  const u8 *peer_mac);
void edm_fab_eth_unbind(struct edm_fab_eth_bind *b);
int edm_fab_eth_xmit(struct edm_fab_eth_bind *b, struct sk_buff *burst);
void edm_fab_eth_info(const struct edm_fab_eth_bind *b, struct edm_fab_link_info *info);

/* Delivery of a received burst to a port; any context, takes the skb. */
void edm_fab_port_rx(struct edm_fab_port *p, struct sk_buff *burst);

/*
 * /dev/edm<N> (fabric/cdev.c). add() at host creation, del() at its
 * destruction while the node still holds the registry's reference (an open()
 * may take one until del() returns); process context.
 */
int edm_fab_cdev_add(struct edm_fab_node *host);
void edm_fab_cdev_del(struct edm_fab_node *host);

#endif /* _EDM_FABRIC_H */
