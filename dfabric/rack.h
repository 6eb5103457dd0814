/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DFabric rack (paper 3, 4.3): compute nodes (CNs) sharing one memory
 * pool, each a netdev that may live in a netns of its own, passing
 * references instead of bytes.
 *
 * TX (the CN's driver) copies the skb once into a pool Buffer in the shared
 * skb layout (the copy a socket write makes into the pool in the paper),
 * and writes a descriptor {src, dst, reference, length} into the CN's TxQ.
 * The port engine (the paper's per-port ASIC, a NAPI context of the
 * sending CN) takes descriptors off the TxQ, passes the reference to the
 * destination node (the pool checks that the source holds it), posts the
 * descriptor on the destination's RxQ and raises its receive NAPI (the
 * interrupt). RX wraps the reference with build_shared_skb: no copy.
 *
 * The TxQ and RxQ descriptor arrays live in pool memory, in a Buffer of the
 * CN's (paper 4.2: virt_queues are stored in the memory pool); their
 * indices live in the CN's private memory, as the Virt-Queue Manager keeps
 * head and tail (4.7). Each ring has one consumer (the engine for a TxQ,
 * the receive NAPI for an RxQ); a TxQ has one producer (xmit, under the
 * netdev's TX lock), an RxQ many (the engines of every port), serialized
 * by rxq.lock. Indices are published with release and read with acquire.
 *
 * Control: CNs are added and removed under the registry lock of the rack's
 * netns and RTNL; rack->cn[] is RCU for the data path (indexed by the CN's
 * node id in the pool), and a removed CN is freed after a grace period.
 */
#ifndef _EDM_RACK_H
#define _EDM_RACK_H

#include <linux/netdevice.h>
#include <linux/virtio_net.h>

#include "edm/dev.h"
#include "edm/pool.h"

enum {
	EDM_RACK_RING		= 256,	/* descriptors per TxQ and RxQ */
	EDM_RACK_MTU_MAX	= 9000,
};

/* A TxQ or RxQ entry, in pool memory (paper Figure 5). */
struct edm_rack_desc {
	u64 ref;			/* FAS reference of the Buffer */
	u32 len;			/* packet bytes, in the shared skb layout */
	u8 src, dst;			/* node ids in the pool */
	u8 pad[2];
	struct virtio_net_hdr vh;	/* GSO and checksum state, as virtio */
	u8 pad2[6];
};

struct edm_rack_ring {
	struct edm_rack_desc *desc;	/* EDM_RACK_RING entries, in pool memory */
	u64 ref;			/* the Buffer holding them */
	u32 prod;			/* next to fill; written by producers */
	u32 cons;			/* next to take; written by the consumer */
	spinlock_t lock;		/* RxQ: serializes producers, and up */
};

struct edm_rack_cn_stats {
	u64 v[__EDM_A_CNSTAT_CNT];
};

struct edm_rack;

struct edm_rack_cn {
	struct edm_rack *rack;
	struct net_device *netdev;
	char name[EDM_NAME_LEN];	/* the CN's, its netdev's at creation */
	struct edm_pool_node pn;	/* its allocator in the pool */
	struct edm_rack_ring txq, rxq;
	bool up;			/* rxq.lock: the RxQ takes descriptors */
	bool live;			/* RTNL: registered, parts to free at uninit */
	struct napi_struct engine;	/* the port's ASIC: TxQ to destination RxQs */
	struct napi_struct rx;		/* the CN's receive interrupt */
	struct edm_rack_cn_stats __percpu *ctrs;
	struct rcu_head rcu;
};

struct edm_nicpool;

struct edm_rack {
	struct edm_dev *edev;
	struct edm_mpool *pool;		/* referenced, and counted in its users */
	struct edm_rack_cn __rcu *cn[EDM_POOL_NNODES];	/* by node id in the pool */
	u32 ncn;			/* registry lock */
	/* its NIC pool, if any: where frames for MACs outside the rack go */
	struct edm_nicpool __rcu *np;
};

struct edm_rack_cfg {
	struct edm_mpool *pool;
};

/* DRAM cache parameters of a CN, as netlink gives them. */
struct edm_rack_dc_cfg {
	u32 region, sets, ways, gran, min_len;
};

static inline struct edm_rack *edm_rack_of(const struct edm_dev *dev)
{
	return dev->type_priv;
}

static inline void edm_cn_stat_add(struct edm_rack_cn *cn, int i, u64 v)
{
	this_cpu_add(cn->ctrs->v[i], v);
}

/* dfabric/rack.c */
struct edm_rack_cn *edm_rack_cn_find(struct edm_rack *rack, const char *name);
struct edm_rack_cn *edm_rack_cn_create(struct edm_rack *rack, const char *name,
				       const struct edm_rack_dc_cfg *dc,
				       struct net_device *netdev,
				       struct netlink_ext_ack *extack);
void edm_rack_cn_destroy(struct edm_rack_cn *cn);
void edm_rack_cn_destroy_queued(struct edm_rack_cn *cn, struct list_head *kill);
void edm_rack_cn_uninit(struct net_device *netdev);
void edm_rack_cn_setup(struct net_device *dev);

/* dfabric/rack_nl.c: shared with rack_link.c */
extern const struct nla_policy edm_cn_link_policy[];
int edm_cn_dc_parse(struct nlattr **a, struct edm_rack_dc_cfg *dc,
		    struct netlink_ext_ack *extack);
struct edm_rack *edm_cn_rack_named(struct edm_net *en, struct nlattr *name,
				   struct netlink_ext_ack *extack);
int edm_cn_put_cfg(struct sk_buff *msg, struct edm_rack_cn *cn);
struct sk_buff *edm_cn_event_msg(struct edm_rack_cn *cn, u8 cmd);
void edm_cn_notify(struct edm_rack_cn *cn, u8 cmd);

/* dfabric/rack_link.c: `ip link add NAME type rackcn rack RACK` */
extern struct rtnl_link_ops edm_rack_cn_link_ops;
void edm_rack_cn_stats(struct edm_rack_cn *cn, struct edm_rack_cn_stats *sum);
void edm_rack_cn_all_stats(struct edm_rack_cn *cn, struct edm_rack_cn_stats *s);

/* dfabric/rack_cn.c */
extern const struct net_device_ops edm_rack_cn_netdev_ops;
extern const struct ethtool_ops edm_rack_cn_ethtool_ops;	/* rack_ethtool.c */
int edm_rack_engine_poll(struct napi_struct *napi, int budget);
int edm_rack_rx_poll(struct napi_struct *napi, int budget);
void edm_rack_cn_drain(struct edm_rack_cn *cn);
struct edm_rack_cn *edm_rack_by_mac(struct edm_rack *rack, const u8 *addr,
				    struct edm_rack_cn *self);
int edm_rack_post(struct edm_pool_node *from, struct edm_rack_cn *to,
		  const struct edm_rack_desc *d);
/* GSO and checksum state of a frame in a shared skb (data at its MAC header). */
int edm_rack_skb_offloads(struct sk_buff *skb, const struct virtio_net_hdr *vh);

#endif /* _EDM_RACK_H */
