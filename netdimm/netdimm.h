/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ndimm netdev: a soft-emulated NetDIMM (NetDIMM paper, section 4.2.2,
 * Algorithm 1) whose descriptor rings and packet buffers live in its NETi
 * zone. Two devices are joined by an emulated wire (peer mode, like veth)
 * or one rides on a real netdev (lower mode) so two machines can talk.
 *
 * The device has up to one queue pair per CPU (ethtool -L), each a TX ring,
 * an RX ring and a polling agent of its own. The emulated NIC moves a
 * packet over the wire when it is posted, inside the sender's xmit (its
 * "DMA": a copy into buffers of the receiver's zone): TX queue i of one
 * peer feeds RX queue i (modulo the receiver's count) of the other, as
 * veth does; a frame from a lower device goes to the RX queue its flow
 * hashes to (RSS). A queue's polling agent, NAPI driven by an hrtimer
 * every poll_us, or kicked by the sender in interrupt mode, cleans its
 * transmitted descriptors and builds its received skbs.
 *
 * Locking: a TX ring has one producer (xmit, under its TX queue's lock)
 * and one consumer (its NAPI). An RX ring has many producers (the peer's
 * xmits or the lower device's receive path), serialized by its lock, and
 * one consumer (its NAPI). Indices are published with release/acquire.
 * The peer pointer is RCU, changed under RTNL; the lower device is set
 * under RTNL. The queue count and the rings change under RTNL only
 * (netdimm/queues.c): no waker may start a TX queue (tx_closed) and no
 * producer may post (rx_closed), both read under RCU, and a grace period
 * is waited out before the queues stop.
 */
#ifndef _EDM_NETDIMM_H
#define _EDM_NETDIMM_H

#include <linux/hrtimer.h>
#include <linux/miscdevice.h>
#include <linux/netdevice.h>
#include <linux/rhashtable-types.h>
#include <linux/sizes.h>
#include <linux/virtio_net.h>

#include "edm/dev.h"
#include "zone.h"

enum {
	EDM_NETDIMM_RING = 256,		/* descriptors per ring, by default */
	EDM_NETDIMM_RING_MIN = 64,
	EDM_NETDIMM_RING_MAX = 4096,	/* sizes are powers of two */
	EDM_NETDIMM_QUEUES_MAX = 16,	/* queue pairs at most, one per CPU */
	EDM_NETDIMM_SEGS = MAX_SKB_FRAGS + 2,	/* buffers per descriptor */
	EDM_NETDIMM_INLINE = 128,		/* bytes a descriptor holds inline */
	EDM_NETDIMM_HDR_LINE = 64,	/* RX bytes copied to the skb head (nCache) */
	EDM_NETDIMM_MTU_MAX = 9000,
	EDM_NETDIMM_ETHERTYPE = 0x88B6,	/* IEEE local experimental 2 */
	EDM_NETDIMM_SOCKS_MAX = 4096,	/* sockets remembered per device */
	EDM_NETDIMM_SOCK_AGE_MS = 10000,
};

#define EDM_NETDIMM_SIZE_MIN		SZ_4M
#define EDM_NETDIMM_SIZE_MAX		(64ULL << 30)
#define EDM_NETDIMM_POLL_US_MAX		100000
#define EDM_NETDIMM_WIRE_MBPS_MAX	400000
#define EDM_NETDIMM_WIRE_DELAY_MAX	10000000
#define EDM_NETDIMM_NODE_MAX		1023

/* A buffer of a descriptor. */
struct edm_netdimm_seg {
	struct page *page;
	u32 off, len;
};

enum {
	EDM_NETDIMM_D_FOREIGN = BIT(0),	/* segments hold outside references */
};

/*
 * A descriptor, in zone memory. The emulation keeps struct page pointers
 * where hardware would keep bus addresses.
 */
struct edm_netdimm_desc {
	u64 due_ns;			/* RX: when the wire delivers it */
	u32 len;
	u16 nseg, flags;
	struct virtio_net_hdr vh;	/* GSO and checksum state, as virtio */
	u8 inline_len;
	u8 hdr[EDM_NETDIMM_INLINE];	/* TX fast path: the headers */
	struct edm_netdimm_seg seg[EDM_NETDIMM_SEGS];
};

struct edm_netdimm_ring {
	struct edm_netdimm_desc *desc;	/* size entries in the zone */
	struct page *pages;
	unsigned int order;
	u32 size;			/* a power of two */
	u32 prod;			/* next to fill; written by producers */
	u32 cons;			/* next to take; written by the consumer */
	spinlock_t lock;		/* serializes RX producers */
};

struct edm_netdimm;

/* A queue pair: TX queue i and RX queue i, and the polling agent of both. */
struct edm_netdimm_queue {
	struct edm_netdimm *nd;
	unsigned int idx;
	struct edm_netdimm_ring tx, rx;
	struct napi_struct napi;
	struct hrtimer poll_timer;	/* the polling agent */
	struct hrtimer wire_timer;	/* interrupt mode: a delayed delivery */
	struct edm_netdimm_stats __percpu *ctrs;	/* this queue's counters */
};

struct edm_netdimm_cdev;

struct edm_netdimm {
	struct edm_dev *edev;		/* RTNL; NULL once destroyed */
	struct net_device *netdev;
	struct edm_netdimm_zone *zone;
	struct edm_netdimm __rcu *peer;
	struct net_device *lower;	/* RTNL; holds a reference */
	struct packet_type ptype;	/* lower mode receive */
	netdevice_tracker lower_tracker;
	struct list_head lower_node;	/* RTNL; on the bound-lowers list */
	u32 lower_ifindex;		/* for reports; 0: none */

	u32 poll_us, wire_mbps, wire_delay_ns;
	enum edm_netdimm_rx_mode rx_mode;
	spinlock_t wire_lock;		/* the TX queues share one wire */
	u64 wire_free_ns;		/* next time the wire is idle; under wire_lock */
	atomic64_t cursor;		/* spreads buffers over sub-arrays */

	unsigned int nq;		/* queue pairs in use; RTNL, READ_ONCE */
	unsigned int nq_max;		/* queue pairs the netdev has */
	unsigned int nq_seen;		/* the most ever in use: ethtool -S shows them */
	u32 tx_size, rx_size;		/* descriptors per ring; RTNL */
	bool rx_closed;			/* no producer may post: the rings change */
	bool tx_closed;			/* nothing may wake a TX queue: the rings change */
	struct edm_netdimm_queue *q;	/* nq_max of them */

	struct rhashtable socks;	/* socket cookie -> its zone hint */
	atomic_t nsocks;
	struct delayed_work sock_gc;

	struct edm_netdimm_cdev *cdev;	/* /dev/ndimm<i> */
	struct edm_netdimm_stats __percpu *ctrs;	/* nq_max of them: q[i].ctrs */
};

struct edm_netdimm_cfg {
	u64 size;
	const char *peer_name;
	struct net_device *netdev;	/* allocated by `ip link add`, or NULL */
	struct net_device *lower;	/* referenced by the caller */
	u32 poll_us, wire_mbps, wire_delay_ns;
	enum edm_netdimm_rx_mode rx_mode;
	int nid;
	struct edm_netdimm_geom geom;
};

static inline struct edm_netdimm *edm_netdimm_of(const struct edm_dev *dev)
{
	return dev->type_priv;
}

/* dev.c */
void edm_netdimm_queue_stats(struct edm_netdimm *nd, unsigned int from, unsigned int to,
			     struct edm_netdimm_stats *sum);
void edm_netdimm_fill_stats(struct edm_netdimm *nd, struct edm_netdimm_stats *sum);
void edm_netdimm_pair(struct edm_dev *a, struct edm_dev *b);
void edm_netdimm_setup(struct net_device *dev);

/* nl.c: creation shared with link.c, and events */
int edm_netdimm_cfg_parse(struct nlattr **a, const char *name, struct edm_netdimm_cfg *cfg,
			  struct netlink_ext_ack *extack);
int edm_netdimm_cfg_lower(struct nlattr **a, struct net *net, struct edm_netdimm_cfg *cfg,
			  struct netlink_ext_ack *extack);
struct edm_dev *edm_netdimm_new(struct edm_net *en, const char *name,
				struct edm_netdimm_cfg *cfg, struct net_device *netdev,
				struct netlink_ext_ack *extack);
void edm_netdimm_notify(const struct edm_dev *dev, u8 cmd);
struct sk_buff *edm_netdimm_event_msg(const struct edm_dev *dev, u8 cmd);
int edm_netdimm_put_cfg(struct sk_buff *msg, const struct edm_dev *dev,
			const struct edm_netdimm *nd);

extern const struct nla_policy edm_netdimm_link_policy[];

/* link.c: `ip link add NAME type ndimm` */
extern struct rtnl_link_ops edm_netdimm_link_ops;

/* ring.c */
int edm_netdimm_ring_init(struct edm_netdimm *nd, struct edm_netdimm_ring *r, u32 size);
void edm_netdimm_ring_fini(struct edm_netdimm *nd, struct edm_netdimm_ring *r);
void edm_netdimm_desc_release(struct edm_netdimm *nd, struct edm_netdimm_desc *d);
u32 edm_netdimm_ring_free(const struct edm_netdimm_ring *r);

static inline struct edm_netdimm_desc *edm_netdimm_slot(struct edm_netdimm_ring *r, u32 i)
{
	return &r->desc[i & (r->size - 1)];
}

/* queues.c: queue pairs and ring sizes (ethtool -l/-L, -g/-G) */
int edm_netdimm_queues_init(struct edm_netdimm *nd, struct netlink_ext_ack *extack);
void edm_netdimm_queues_fini(struct edm_netdimm *nd);
void edm_netdimm_queues_open(struct edm_netdimm *nd);
void edm_netdimm_queues_close(struct edm_netdimm *nd);
int edm_netdimm_reconfigure(struct edm_netdimm *nd, unsigned int nq, u32 tx_size, u32 rx_size,
			    struct netlink_ext_ack *extack);
unsigned int edm_netdimm_max_queues(void);

/* qstats.c: the netdev family's per-queue view (6.10+; nothing on 6.1) */
void edm_netdimm_qstats_init(struct net_device *dev);
void edm_netdimm_queues_napi(struct edm_netdimm *nd, bool on);

/* tx.c */
netdev_tx_t edm_netdimm_xmit(struct sk_buff *skb, struct net_device *dev);
int edm_netdimm_tx_clean(struct edm_netdimm_queue *q, bool wake);
void edm_netdimm_wake_txqs(struct edm_netdimm *nd, int rxq);
netdev_features_t edm_netdimm_features_check(struct sk_buff *skb, struct net_device *dev,
					     netdev_features_t features);

/* rx.c */
int edm_netdimm_poll(struct napi_struct *napi, int budget);
enum hrtimer_restart edm_netdimm_poll_timer(struct hrtimer *t);
enum hrtimer_restart edm_netdimm_wire_timer(struct hrtimer *t);
int edm_netdimm_wire_deliver(struct edm_netdimm *to, unsigned int rxq,
			     const struct edm_netdimm_desc *src, const struct sk_buff *skb,
			     u32 skb_off, u32 len, const struct virtio_net_hdr *vh, u64 due_ns);
s64 edm_netdimm_next_hint(struct edm_netdimm *nd);

/* lower.c */
int edm_netdimm_lower_attach(struct edm_netdimm *nd, struct net_device *lower);
void edm_netdimm_lower_detach(struct edm_netdimm *nd);
int edm_netdimm_lower_xmit(struct edm_netdimm *nd, struct edm_netdimm_desc *d);

/* sock.c */
int edm_netdimm_socks_init(struct edm_netdimm *nd);
void edm_netdimm_socks_fini(struct edm_netdimm *nd);
s64 edm_netdimm_sock_hint(struct edm_netdimm *nd, struct sock *sk);
void edm_netdimm_sock_remember(struct edm_netdimm *nd, struct sock *sk, s64 off);

/* cdev.c */
int edm_netdimm_cdev_create(struct edm_netdimm *nd);
void edm_netdimm_cdev_destroy(struct edm_netdimm *nd);

/* ethtool.c */
extern const struct ethtool_ops edm_netdimm_ethtool_ops;

#endif /* _EDM_NETDIMM_H */
