/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DFabric NIC pool (paper 4.2, 4.4): real netdevs (members) that carry
 * one rack's inter-rack traffic, an edm device of type NICPOOL bound to its
 * rack. It is a node of the rack's pool, like a compute node, so Buffers
 * pass to it and from it by reference.
 *
 * TX (dfabric/nicpool_tx.c): a compute node's frame to a MAC address that is
 * no CN of the rack, or a broadcast, is written into a Buffer once (by the
 * CN's xmit, as for a CN) and its descriptor goes to the NIC pool's node;
 * the CN's port engine passes the reference to the NIC pool, which wraps
 * the Buffer as a shared skb (no copy) and dev_queue_xmit()s it on a member
 * chosen per flowlet (flowlet mode) or per packet (spray mode) by queue
 * depth: qdisc backlog plus BQL bytes in flight.
 *
 * RX (dfabric/nicpool_rx.c): each member has an rx_handler. A frame is copied
 * once into a Buffer of the NIC pool's (the NIC's DMA into a pre-posted
 * Buffer), whose reference then passes to the compute node that has the
 * frame's destination IPv4 address (ARP: the target address; other
 * unicast: the destination MAC; broadcast and multicast: every CN) and is
 * posted on its RxQ. Spray frames are reordered first, per sending rack and
 * sequence space, in a bounded window of held Buffers.
 *
 * Locking:
 * - members[] and nmembers change under RTNL only (netlink also holds the
 *   registry lock, inside it; the netdev notifier does not); the data path
 *   reads members[] under RCU. A member leaves in this order: unpublish,
 *   unregister its rx_handler, synchronize_net(), drop the netdev reference
 *   and free it: no packet in flight can see it after that.
 * - rack->np is RCU for the rack's engines; np->rack is set for the NIC
 *   pool's life with its data path (members and rx), cleared only once all
 *   members are gone and a grace period passed (edm_nicpool_detach()).
 * - mode and gap are written under the registry lock and read with
 *   READ_ONCE(); the flowlet table is written racily by the engines of
 *   several CNs (a flow has one engine; colliding flows only share a slot).
 * - ro_lock (BH) protects the reorder contexts; it nests outside the RxQ
 *   lock of a CN (delivering a held packet posts it).
 */
#ifndef _EDM_NICPOOL_H
#define _EDM_NICPOOL_H

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>

#include "edm/pool.h"
#include "rack.h"

enum {
	EDM_NICPOOL_MEMBERS_MAX	= 8,
	EDM_NICPOOL_FLOWS		= 4096,		/* flowlet table slots, a power of two */
	EDM_NICPOOL_GAP_US_DEFAULT	= 500,
	EDM_NICPOOL_GAP_US_MAX	= 1000000,
	EDM_NICPOOL_ETH_P_SPRAY	= 0x88B5,	/* IEEE local experimental ethertype 1 */
	EDM_NICPOOL_BUCKETS		= 16,		/* sequence spaces per sender, by dst MAC */
	EDM_NICPOOL_WINDOW		= 128,		/* reorder window, a power of two */
	EDM_NICPOOL_RO_CTX		= 16,		/* reorder contexts: (sender, space) */
	EDM_NICPOOL_RO_TIMEOUT_US	= 2000,		/* a hole is waited for this long */
	EDM_NICPOOL_DEPTH_QUEUES	= 16,		/* TX queues looked at for a depth */
	EDM_NICPOOL_SLOT_MASK	= 0xff,		/* a member id's slot bits */
};

/* What a spray frame carries between the MAC addresses and the payload. */
struct edm_nicpool_hdr {
	__be32 seq;
	__be32 tag;		/* the sending NIC pool's rack tag */
	__be16 space;		/* its sequence space (a hash of the dst MAC) */
	__be16 proto;		/* the frame's own ethertype */
} __packed;

struct edm_nicpool_stats {
	u64 v[__EDM_A_NPSTAT_CNT];
};

struct edm_nicpool_member_stats {
	u64 v[__EDM_A_NPMEMBER_CNT];
};

struct edm_nicpool;

struct edm_nicpool_member {
	struct edm_nicpool *np;
	struct net_device *dev;		/* held while a member */
	netdevice_tracker tracker;
	u32 id;				/* slot | generation << 8: what flowlets name */
	u32 depth, depth_max;		/* queue bytes when last chosen, and the most */
	struct edm_nicpool_member_stats __percpu *ctrs;
};

/* A flowlet: the member a flow (hash) is on, and when it was last seen. */
struct edm_nicpool_flow {
	u32 owner;			/* a member's id, 0: none */
	u64 last_ns;
};

/* A held spray packet: its Buffer's descriptor, ready for the CN. */
struct edm_nicpool_held {
	struct edm_rack_desc d;
	bool valid;
};

/* The packets of one (sender tag, sequence space), in sequence order. */
struct edm_nicpool_reorder {
	u32 tag;
	u16 space;
	bool used;
	u32 next;			/* the sequence number delivered next */
	u32 nheld;
	struct edm_nicpool_held win[EDM_NICPOOL_WINDOW];
};

struct edm_nicpool {
	struct edm_dev *edev;
	struct edm_rack *rack;		/* NULL once detached: see the header */
	struct edm_pool_node pn;	/* its node in the rack's pool */
	u32 tag;			/* random: names this rack in spray headers */
	u32 mode;			/* enum edm_nicpool_mode */
	u64 gap_ns;
	struct edm_nicpool_member __rcu *members[EDM_NICPOOL_MEMBERS_MAX];
	u32 nmembers;			/* RTNL */
	u32 gen;			/* RTNL: member generations */
	atomic_t rr;			/* rotates ties between members */
	atomic_t seq[EDM_NICPOOL_BUCKETS];	/* spray sequence numbers, per space */
	struct edm_nicpool_flow *flows;	/* [EDM_NICPOOL_FLOWS] */
	spinlock_t ro_lock;		/* BH; protects ro[] and the timer's arming */
	struct edm_nicpool_reorder *ro;	/* [EDM_NICPOOL_RO_CTX] */
	struct hrtimer ro_timer;	/* flushes holes that take too long */
	struct edm_nicpool_stats __percpu *ctrs;
};

struct edm_nicpool_cfg {
	struct edm_rack *rack;
	u32 mode;
	u32 gap_us;
};

static inline struct edm_nicpool *edm_nicpool_of(const struct edm_dev *dev)
{
	return dev->type_priv;
}

static inline void edm_nicpool_stat_add(struct edm_nicpool *np, int i, u64 v)
{
	this_cpu_add(np->ctrs->v[i], v);
}

static inline void edm_nicpool_mstat_add(struct edm_nicpool_member *m, int i, u64 v)
{
	this_cpu_add(m->ctrs->v[i], v);
}

/* dfabric/nicpool.c */
void edm_nicpool_detach(struct edm_nicpool *np);
int edm_nicpool_nic_add(struct edm_nicpool *np, struct net_device *dev,
			struct netlink_ext_ack *extack);
int edm_nicpool_nic_del(struct edm_nicpool *np, struct net_device *dev,
			struct netlink_ext_ack *extack);
void edm_nicpool_stats(struct edm_nicpool *np, struct edm_nicpool_stats *sum);
void edm_nicpool_member_stats(struct edm_nicpool_member *m, struct edm_nicpool_member_stats *sum);

/*
 * dfabric/nicpool_tx.c: the engine of @cn hands descriptor @d to the NIC pool
 * (RCU held). 0, or -EACCES if the pool refused the pass (Buffer freed).
 */
int edm_nicpool_xmit(struct edm_nicpool *np, struct edm_rack_cn *cn,
		     const struct edm_rack_desc *d);

/* dfabric/nicpool_rx.c */
rx_handler_result_t edm_nicpool_handle_frame(struct sk_buff **pskb);
enum hrtimer_restart edm_nicpool_ro_timer(struct hrtimer *t);
void edm_nicpool_ro_flush_all(struct edm_nicpool *np);

#endif /* _EDM_NICPOOL_H */
