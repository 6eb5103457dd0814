/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the EDM fabric (fabric/, fabric/eth.c): the node, port, link
 * and host structures behind include/edm/fabric.h, and the calls between
 * node.c, link.c, mux.c, the host stack (host.c, requester.c, responder.c,
 * region.c) and switch.c.
 *
 * Locking. node->lock (a BH spinlock) protects everything of a node and its
 * ports but port->link, which is RCU: written under the registry lock and
 * both nodes' locks, read under RCU by senders. A node never holds another
 * node's lock: output to a peer goes through the peer's inbox.
 */
#ifndef _EDM_FAB_H
#define _EDM_FAB_H

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/netlink.h>

#include "edm/fabric.h"
#include "edm/sched.h"

struct edm_fab_host;
struct edm_fab_switch;
struct edm_fab_link;

enum {
	EDM_MUX_FIFO_BLOCKS	= 32768,	/* memory blocks a port may hold */
	/* and past that, in its spill list: a switch port's forwarded runs */
	EDM_MUX_SPILL_BLOCKS	= 4 * EDM_MUX_FIFO_BLOCKS,
	/* a switch holds a port back (no grant) while this many wait in it */
	EDM_MUX_HOLD_BLOCKS	= EDM_MUX_FIFO_BLOCKS / 2,
	EDM_FRAME_MAX		= 9018,		/* jumbo frame + FCS room */
	EDM_FRAMES_QLEN		= 256,		/* frames waiting at a port */
	EDM_RUN_MAX		= EDM_PCS_MSG_MAX / 8 + 3,	/* blocks of a longest message */
	EDM_FAB_NAPI_BUDGET	= 64,		/* bursts per poll */
	EDM_FAB_ETH_MIN_MTU	= 1280,
	EDM_LLR_WINDOW		= 128,		/* bursts sent and not yet acknowledged */
	EDM_LLR_RTO_FLAT	= 5,		/* timeouts in a row before they double */
};

/*
 * Link-level retry on a bound netdev. Each end measures the link's RTT, one
 * burst at a time to the ack that covers it (not a burst sent again), as
 * TCP does (SRTT, RTTVAR), and its retry timeout (RTO) is SRTT + 4 RTTVAR
 * between EDM_LLR_RTO_MIN_NS and EDM_LLR_RTO_NS, or twice SRTT when that is
 * more (EDM_LLR_RTO_NS until measured). A gap waits EDM_LLR_NACK_NS for a late burst before the
 * receiver counts it (seq_gaps) and asks for it again (a veth hands frames
 * sent from two CPUs to two backlogs, which may run late under load: a wait
 * the RTT says nothing about), then again each RTO; a sender with no acknowledgment for an
 * RTO sends again what it holds; after EDM_LLR_RTO_FLAT such timeouts in a
 * row each next one is twice as long, up to EDM_LLR_RTO_MAX_NS, and with no
 * acknowledgment for EDM_LLR_GIVEUP_NS it drops what it holds and starts a
 * new epoch. The node polls when the first of these is due, at least
 * EDM_LLR_TICK_NS later.
 */
#define EDM_LLR_NACK_NS		(5 * NSEC_PER_MSEC)
#define EDM_LLR_RTO_MIN_NS	(1 * NSEC_PER_MSEC)
#define EDM_LLR_RTO_NS		(20 * NSEC_PER_MSEC)
#define EDM_LLR_RTO_MAX_NS	(640 * NSEC_PER_MSEC)
#define EDM_LLR_GIVEUP_NS	(2640 * NSEC_PER_MSEC)
#define EDM_LLR_TICK_NS		(200 * NSEC_PER_USEC)

#define EDM_FAB_SCRAMBLE_SEED	0x3ffffffffffffffULL

/* The TX side of a port: memory blocks and frame blocks share the link. */
struct edm_mux {
	struct edm_pcs_block *mem;	/* FIFO of whole memory messages */
	u32 mem_head, mem_tail;		/* free-running, masked */
	u32 mem_wait;			/* frame blocks sent while mem waited */
	struct sk_buff_head frames;	/* frames to send */
	struct sk_buff *frame;		/* the frame being sent */
	u32 frame_blk, frame_nblk;	/* its next block, its block count */
	bool mem_turn;			/* fair: a memory message goes next */
	bool in_msg;			/* inside an /MS/../MT/ run */
	/* runs put while the FIFO had no room, oldest first: they go in first */
	struct list_head spill;
	u32 spill_blocks;
};

struct edm_fab_port {
	struct edm_fab_node *node;
	u32 index;
	struct edm_fab_link __rcu *link;	/* NULL: not linked */
	u32 state;			/* enum edm_flink_state */
	struct edm_fab_link_cfg cfg;
	struct edm_fab_link_stats stats;
	struct edm_mux mux;
	struct edm_pcs_scr scr_tx, scr_rx;
	struct edm_pcs_sherr sherr;
	u32 corrupt;			/* blocks whose headers to spoil */
	u32 tx_seq, rx_seq;
	bool rx_seq_valid;
	u8 tx_epoch, rx_epoch;
	/*
	 * Link-level retry (bound links only): the bursts sent and not yet
	 * acknowledged, in sequence order, and when the oldest was last sent
	 * or acknowledged progress was made.
	 */
	bool llr;
	bool ack_due;			/* bursts taken since our last ack */
	struct sk_buff_head replay;
	u64 rto_from_ns;
	u64 ack_from_ns;		/* replay waits for an ack since */
	u32 rto_count;			/* timeouts in a row with no ack */
	/* the first burst of replay when it was last sent again, if it was */
	u32 resent_head;
	bool resent;
	/* the RTT: one burst timed at a time, to the ack that covers it */
	bool rtt_timing;
	u32 rtt_seq;
	u64 rtt_sent_ns;
	u64 rttvar_ns;			/* with stats.srtt_ns, once that is nonzero */
	/*
	 * Bursts that came after a missing one, in sequence order: a netdev may
	 * deliver a link's frames out of order, or lose one. The gap is asked
	 * for again (NACK) once it waited EDM_LLR_NACK_NS, and then each
	 * EDM_LLR_RTO_NS.
	 */
	struct sk_buff_head held;
	u64 held_since_ns;		/* when the gap at rx_seq began to wait */
	u64 nack_at_ns;			/* when it was last asked for; 0: not yet */
	u64 free_at_ns;			/* pacing: when the wire is free */
	u32 burst_max;			/* blocks per burst on this link */
	/* receive side: a decoder for hosts and for the switch's frames */
	struct edm_pcs_dec dec;
	u8 *dec_frame, *dec_msg;
	/* switch: the memory run being received, forwarded whole */
	struct edm_pcs_block *run;
	u32 run_len;
	bool in_run;
	bool run_drop;
	struct work_struct down_work;	/* tells netlink the link went down */
};

/* A link: two ends, emulated (peer ports) or one end bound to a netdev. */
/* One direction of an emulated wire: the bursts on their way, delivered by its timer. */
struct edm_wire {
	struct sk_buff_head q;
	struct hrtimer timer;
	struct edm_fab_link *link;
	int dir;			/* sent by link->end[dir] */
};

struct edm_fab_link {
	struct edm_fab_port *end[2];	/* end[1] NULL when bound */
	struct edm_fab_eth_bind *eth;	/* bound: the netdev transport */
	struct edm_wire wire[2];	/* emulated: delayed delivery */
	struct rcu_head rcu;
};

enum edm_fab_kind {
	EDM_FAB_HOST,
	EDM_FAB_SWITCH,
};

struct edm_fab_node {
	struct kref ref;
	struct edm_dev *dev;		/* NULL once destroyed */
	struct net *net;		/* not counted: used only until destroyed */
	char name[EDM_NAME_LEN];
	enum edm_fab_kind kind;
	bool dead;			/* destroyed: ops fail, rx drops */
	spinlock_t lock;		/* protects all below but the inbox */
	struct sk_buff_head inbox;	/* bursts received, its own lock */
	struct sk_buff_head txq;	/* bursts built by a poll, sent after it */
	struct sk_buff_head rxq;	/* host: frames for its netdev, same */
	struct net_device *ndev;	/* host: its netdev (fabric/netdev.c) */
	struct edm_pcs_block *scratch;	/* EDM_BURST_BLOCKS, one burst in or out */
	struct net_device *napi_dev;	/* dummy netdev for the NAPI */
	struct napi_struct napi;
	struct hrtimer tick;		/* polls when a retry or an op's timeout is due */
	u32 nports;
	struct edm_fab_port *port;	/* [nports] */
	struct edm_fab_node_cfg cfg;
	union {
		struct edm_fab_host *host;
		struct edm_fab_switch *sw;
	};
};

static inline struct edm_fab_port *edm_port_of_skb(struct sk_buff *skb)
{
	return *(struct edm_fab_port **)skb->cb;
}

/* node.c */
void edm_fab_node_kick(struct edm_fab_node *n);
u64 edm_fab_now_ns(void);

/* link.c; link changes hold edm_fab_link_mutex (innermost but for node->lock) */
extern struct mutex edm_fab_link_mutex;
void edm_fab_port_xmit(struct edm_fab_port *p, struct sk_buff *skb);
void edm_fab_link_lost(struct edm_fab_port *p);
int edm_fab_port_init(struct edm_fab_node *n, struct edm_fab_port *p, u32 index);
void edm_fab_port_uninit(struct edm_fab_port *p);
void edm_fab_node_unlink_all(struct edm_fab_node *n);
void edm_fab_port_rx_burst(struct edm_fab_port *p, struct sk_buff *skb);
void edm_fab_node_timers(struct edm_fab_node *n);
u64 edm_fab_port_flush(struct edm_fab_port *p);
bool edm_fab_port_up(const struct edm_fab_port *p);

/* fabric/netdev.c */
struct edm_fab_ndev {
	struct edm_fab_node *node;	/* counted once registered */
};

void edm_fab_ndev_setup(struct net_device *dev);
int edm_fab_netdev_create(struct edm_fab_node *n, struct net_device *dev);
void edm_fab_netdev_destroy(struct edm_fab_node *n, struct list_head *kill);
extern struct rtnl_link_ops edm_fab_host_link_ops;	/* fabric/host_link.c */
void edm_fab_netdev_rx(struct edm_fab_node *n, const u8 *frame, u32 len);
void edm_fab_netdev_deliver(struct edm_fab_node *n, struct sk_buff_head *q);
void edm_fab_netdev_carrier(struct edm_fab_node *n, bool up);
extern const struct ethtool_ops edm_fab_ethtool_ops;	/* fabric/ethtool.c */

/* mux.c */
int edm_mux_init(struct edm_mux *m);
void edm_mux_uninit(struct edm_mux *m);
u32 edm_mux_space(const struct edm_mux *m);
u32 edm_mux_backlog(const struct edm_mux *m);
int edm_mux_put_msg(struct edm_fab_port *p, const struct edm_pcs_msg_hdr *hdr, const u8 *payload);
int edm_mux_put_blocks(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n);
int edm_mux_put_ng(struct edm_fab_port *p, bool grant, const struct edm_pcs_ng *ng);
int edm_mux_put_frame(struct edm_fab_port *p, struct sk_buff *skb);
bool edm_mux_pending(const struct edm_mux *m);
u32 edm_mux_pull(struct edm_fab_port *p, struct edm_pcs_block *out, u32 max);
void edm_mux_purge(struct edm_mux *m);

/*
 * host.c (complete: requester.c): the node kind's hooks. rx, poll and stats
 * are called under node->lock; create, stop, free and complete without it.
 */
int edm_fab_host_create(struct edm_fab_node *n);
void edm_fab_host_stop(struct edm_fab_node *n);
void edm_fab_host_free(struct edm_fab_node *n);
void edm_fab_host_complete(struct edm_fab_node *n);
void edm_fab_host_rx(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n);
u64 edm_fab_host_poll(struct edm_fab_node *n);
void edm_fab_host_stats(struct edm_fab_node *n, struct edm_fab_node_stats *st);

/*
 * The host stack's state, shared by host.c (hooks, grant queue, lifetime),
 * requester.c (the ops a host issues), responder.c (a memory node serving
 * its region) and region.c (the region's key, the list of regions). All of
 * it under node->lock.
 */
enum {
	EDM_HOST_IDS		= 128,		/* per kind and destination */
	EDM_HOST_RD_ID0		= 128,
	EDM_HOST_GQ		= 1024,		/* grant queue entries */
	EDM_HOST_INFLIGHT_MAX	= 8192,		/* queued + in flight, per host */
	EDM_KIND_RERR		= EDM_PCS_NR_KINDS,
	EDM_KIND_WACK,
	EDM_RERR_RANGE		= 1,		/* outside the region */
	EDM_RERR_INVAL		= 2,		/* not a request this node serves */
	EDM_RERR_KEY		= 3,		/* a key that is not (or no longer) the region's */
	EDM_RERR_GONE		= 4,		/* the node serves no region */
	EDM_OP_PROBE		= 0xff,		/* internal: region size */
};

/*
 * The memory messages' payloads, the one definition of their layout. Each
 * begins with a little-endian 64-bit word whose bits 47..0 are an address
 * in the memory node's region; every request then carries the key of the
 * region it asks for (0 from an issuer that has none), which a keyed
 * region checks (responder.c):
 *
 *   RREQ   16 bytes: the word, bits 63..48 the length (0: a probe, answered
 *           with the region's size); the key
 *   RMWREQ 32 bytes: the word, bits 55..48 the opcode; arg0, arg1; the key
 *   WREQ   16 + chunk bytes: the word, the FIRST, LAST and ACK bits below;
 *           the key; then the chunk
 *   RRES    the bytes read; for an RMW or a probe an 8-byte value
 *   WACK    8 bytes: the word (the end of the write it answers), WHOLE
 *           when every chunk arrived back to back, RANGE when its last
 *           chunk fell outside the region (nothing past it was stored),
 *           KEY when its last chunk was refused for its key, GONE when the
 *           node serves no region
 *   RERR    1 byte: EDM_RERR_*, the memory node's NACK
 */
#define EDM_MSG_ADDR_MASK	GENMASK_ULL(47, 0)
#define EDM_MSG_KEY_BYTES	8
#define EDM_RREQ_BYTES		(8 + EDM_MSG_KEY_BYTES)
#define EDM_RMWREQ_BYTES	(24 + EDM_MSG_KEY_BYTES)
#define EDM_WREQ_HDR_BYTES	(8 + EDM_MSG_KEY_BYTES)
#define EDM_VALUE_BYTES		8	/* an RMW's old value, a probe's size, a WACK */

static_assert(EDM_FAB_CHUNK_MAX + EDM_WREQ_HDR_BYTES <= EDM_PCS_MSG_MAX);

#define EDM_WREQ_FIRST		BIT_ULL(63)
#define EDM_WREQ_LAST		BIT_ULL(62)
#define EDM_WREQ_ACK		BIT_ULL(61)
#define EDM_WREQ_FLAGS		(EDM_WREQ_FIRST | EDM_WREQ_LAST | EDM_WREQ_ACK)

#define EDM_WACK_WHOLE		BIT_ULL(48)
#define EDM_WACK_RANGE		BIT_ULL(49)
#define EDM_WACK_KEY		BIT_ULL(50)
#define EDM_WACK_GONE		BIT_ULL(51)

/*
 * The entry at @key of @xa, an XA_FLAGS_ALLOC array, and its slot emptied
 * but kept: NULL stored there is a reserved entry, which xa_load() reads as
 * NULL. xa_erase() instead freed a node whenever the last id in it finished
 * and allocated it again for the next: the per-message tables (a memory
 * node's served requests, a switch's waiting ones) paid that on every op.
 * Their key spaces are small (ids are 8 bits), so the kept slots are few.
 */
static inline void *edm_xa_take(struct xarray *xa, unsigned long key)
{
	void *old = xa_load(xa, key);

	if (old)	/* the slot exists: nothing to allocate, nothing can fail */
		xa_store(xa, key, NULL, GFP_ATOMIC);
	return old;
}

static inline u64 edm_msg_addr(u64 word)
{
	return word & EDM_MSG_ADDR_MASK;
}

static inline u64 edm_rreq_word(u64 addr, u32 len)
{
	return addr | (u64)(u16)len << 48;
}

static inline u32 edm_rreq_len(u64 word)
{
	return word >> 48;
}

static inline u64 edm_rmwreq_word(u64 addr, u8 opcode)
{
	return addr | (u64)opcode << 48;
}

static inline u8 edm_rmwreq_op(u64 word)
{
	return word >> 48;
}

struct edm_hdst;

struct edm_gq_ent {
	u16 dest;
	u8 id;
	u8 port;			/* the port it came on */
	u32 size;
};

struct edm_fab_host {
	struct edm_fab_node *node;
	u32 addr;
	struct edm_hdst *dst[EDM_FAB_ADDR_MAX + 1];
	struct list_head queue;		/* message queue: not yet issued */
	struct list_head inflight;	/* issued, oldest first */
	struct list_head completed;	/* for done(), outside the lock */
	u32 nops;
	struct edm_gq_ent gq[EDM_HOST_GQ];
	u32 gq_head, gq_tail;
	/* (src << 8 | id) -> edm_served, -> an acked write's next address;
	 * XA_FLAGS_ALLOC, emptied by edm_xa_take() (at most 64K slots)
	 */
	struct xarray served;
	struct xarray wruns;
	u8 *region;
	u64 region_size;
	u64 region_key;			/* what a request must present when keyed */
	bool region_keyed;		/* the fabric's requests must carry region_key */
	u32 region_key_gen;		/* rekeys so far */
	u64 region_st[__EDM_A_RSTAT_CNT];	/* accesses through the key */
	struct list_head regions;	/* on edm_fab_regions while the host lives */
	bool stopped;
	u32 active;			/* the port its ops use; another after a failover */
	struct edm_fab_port *rx_port;	/* the port of the message being handled */
	u8 *wbuf;			/* a WREQ payload being built */
	u64 st[__EDM_A_FSTAT_CNT];
	int minor;
	void *cdev;
};

/*
 * RFC 6298's smoothing of an RTT sample @r into @srtt and @rttvar (@first:
 * the first sample); for a host's memory nodes and a bound link's bursts.
 */
static inline void edm_rtt_update(u64 *srtt, u64 *rttvar, u64 r, bool first)
{
	u64 err;

	if (first) {
		*srtt = r;
		*rttvar = r / 2;
		return;
	}
	err = r > *srtt ? r - *srtt : *srtt - r;
	*rttvar = *rttvar - *rttvar / 4 + err / 4;
	*srtt = *srtt - *srtt / 8 + r / 8;
}

static inline struct edm_fab_host *to_host(const struct edm_fab_node *n)
{
	return n->host;
}

/* The port a host sends on: port 0, or its standby's after a failover. */
static inline struct edm_fab_port *edm_host_port(const struct edm_fab_host *h)
{
	return &h->node->port[h->active];
}

static inline bool edm_op_is_rmw(u32 opcode)
{
	return opcode == EDM_OP_CAS || opcode == EDM_OP_FADD || opcode == EDM_OP_SWAP;
}

/* requester.c, under node->lock */
void edm_op_finish(struct edm_fab_host *h, struct edm_fab_op *op, int status);
u64 edm_host_issue(struct edm_fab_host *h);
void edm_host_write_chunk(struct edm_fab_host *h, const struct edm_gq_ent *g);
void edm_host_rx_rres(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl);
void edm_host_rx_rerr(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl);
void edm_host_rx_wack(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl);
u64 edm_host_expire(struct edm_fab_host *h, u64 now, bool *rested);
void edm_host_pick(struct edm_fab_host *h);

/* responder.c, under node->lock */
void edm_host_serve_chunk(struct edm_fab_host *h, const struct edm_gq_ent *g);
void edm_host_rx_rreq(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl);
void edm_host_rx_rmw(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl);
void edm_host_rx_wreq(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl);
void edm_host_serve_reset(struct edm_fab_host *h, u32 port);

/* region.c: the list of regions, without node->lock */
void edm_fab_regions_add(struct edm_fab_host *h);
void edm_fab_regions_del(struct edm_fab_host *h);

/* switch.c */
int edm_fab_switch_create(struct edm_fab_node *n);
void edm_fab_switch_stop(struct edm_fab_node *n);
void edm_fab_switch_free(struct edm_fab_node *n);
void edm_fab_switch_rx(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n);
u64 edm_fab_switch_poll(struct edm_fab_node *n);
void edm_fab_switch_port_down(struct edm_fab_node *n, u32 port);
void edm_fab_switch_stats(struct edm_fab_node *n, struct edm_fab_node_stats *st);

/* fabric/nl.c and fabric/link_nl.c, the netlink commands; under the registry lock */
bool edm_fab_is_node(const struct edm_dev *dev);
void edm_flink_notify_node(struct edm_dev *dev, u8 cmd);

/* fabric/nl.c, for `ip link add` (fabric/host_link.c) */
struct edm_fab_node_info;
extern const struct nla_policy edm_fab_new_policy[EDM_A_FAB_MAX + 1];
int edm_fab_cfg_parse(struct nlattr **a, bool is_host, struct edm_fab_node_cfg *cfg,
		      struct netlink_ext_ack *extack);
int edm_fab_put_host(struct sk_buff *msg, const struct edm_fab_node_info *ni);

#endif /* _EDM_FAB_H */
