/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pool shared with other kernels (Documentation/pool.md, "Sharing a pool
 * between kernels"): this kernel's membership (an edm device of type
 * SHPOOL), the memory device it maps, and the netdev whose frames travel
 * to the other members as Buffers passed through the pool. The layout and
 * protocol are the kernel-agnostic core's (include/edm/shpool_core.h).
 *
 * Memory: a PCI driver binds ivshmem devices (dfabric/shpool.c) and keeps
 * them on a list; a join takes one (exclusive) and maps its BAR 2
 * write-back.
 *
 * Locking: edm_shmem_lock (a mutex) protects the device list, each
 * device's user and a membership's attachment (mem, netdev), and nests
 * inside RTNL and the registry lock. The data path runs with no
 * lock of ours: xmit is serialized by the netdev's TX lock (the view's one
 * producer), receive by NAPI (its one consumer); the beat work is the only
 * one that reaps. All three stop before the membership detaches: the
 * netdev is closed (NAPI and its timer stopped) before it is unregistered,
 * at once or in `ip link del`'s batch, and the work is cancelled.
 *
 * Lifetime: a membership is counted (ref): its edm device holds one
 * reference, its netdev another, dropped by the netdev's destructor, so
 * the NAPI and counters it points to outlive a netdev that is unregistered
 * after the membership is gone. A membership that leaves while the network
 * stack still holds Buffers it lent keeps the memory (and its slot, LEAVING)
 * and one more reference until they are back (dfabric/shpool.c, "lingering").
 */
#ifndef _EDM_SHPOOL_H
#define _EDM_SHPOOL_H

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/workqueue.h>

#include "edm/dev.h"
#include "edm/memprov.h"
#include "edm/shpool_core.h"

enum {
	EDM_SHPOOL_POLL_MIN_NS	= 20 * NSEC_PER_USEC,	/* poll this soon after traffic */
	EDM_SHPOOL_POLL_MAX_NS	= 1 * NSEC_PER_MSEC,	/* back off to this when idle */
	EDM_SHPOOL_POLL_SPIN	= 16,			/* idle polls before backing off */
	EDM_SHPOOL_BEATS	= 8,			/* beats per lease */
	EDM_SHPOOL_DEV_LEN	= 32,
	EDM_SHPOOL_XWORK_MS	= 10,			/* export work period */
	EDM_SHPOOL_RECLAIM_MS	= 4,			/* lent Buffers are looked at this often */
};

/* An ivshmem device the driver bound. */
struct edm_shmem {
	struct list_head node;		/* edm_shmem_lock */
	struct pci_dev *pdev;
	phys_addr_t start;
	u64 len;
	struct edm_shpool *user;	/* edm_shmem_lock */
};

struct edm_shpool_stats {
	u64 v[__EDM_A_SHSTAT_CNT];
};

struct edm_shpool {
	struct kref ref;
	struct edm_dev *edev;
	char device[EDM_SHPOOL_DEV_LEN];	/* the PCI name or pmem path it joined with */
	char hostname[EDM_SHP_NAME_LEN];
	struct edm_memprov prov;	/* the memory, while attached */
	struct edm_memprov *mem;	/* edm_shmem_lock; &prov, NULL once detached */
	struct edm_shmem *shm;		/* edm_shmem_lock; the ivshmem device, if one */
	struct list_head pmem_node;	/* edm_shmem_lock; on a pmem device: listed */
	void *va;			/* prov.va: mapped write-back */
	struct edm_shp v;		/* this kernel's view of the pool */
	bool formatted;			/* this join wrote the layout */
	struct net_device *netdev;	/* edm_shmem_lock; NULL once detached */
	struct napi_struct napi;
	struct hrtimer poll_timer;	/* the doorbell we do not have */
	u64 poll_ns;			/* NAPI: the next poll's delay */
	u32 idle;			/* NAPI: polls in a row that found nothing */
	u32 rx_next;			/* NAPI: the peer polled first */
	struct delayed_work beat;
	unsigned long beat_jiffies;	/* beat period */
	/* beat work: what it last saw of each slot, and when that changed */
	u64 seen_state[EDM_SHP_MAX_HOSTS];
	u64 seen_beat[EDM_SHP_MAX_HOSTS];
	unsigned long seen_at[EDM_SHP_MAX_HOSTS];
	bool fenced;			/* beat work: found itself reaped */
	/* beat work: slots that missed two beats, read by xmit and the NAPI */
	DECLARE_BITMAP(silent, EDM_SHP_MAX_HOSTS);
	struct edm_shpool_stats __percpu *ctrs;
	/*
	 * Receiving without a copy (shpool_net.c): where the memory has struct
	 * pages, a frame goes up in its own Buffer, lent to the network stack
	 * until every page the skb took is idle again (back at one reference).
	 * The NAPI lends (writes hw and pages, then sets the bit), the reclaim
	 * work gives back (reads them, clears the bit, frees the Buffer).
	 */
	bool zc;			/* frames may be lent (set at join) */
	unsigned long *lent;		/* a bit per Buffer of the pool */
	u64 *lent_hw;			/* its holder word when lent */
	u8 *lent_pages;			/* how many of its pages the skb took */
	atomic_t nlent;
	struct delayed_work reclaim;
	/* left with Buffers still lent: on edm_shpool_lingering until they are back */
	struct list_head linger_node;
	bool module_held;
	/* exports: Cowbird instances across kernels (shpool_x.c) */
	struct mutex xlock;		/* the lists below and the view's export calls */
	struct list_head xowned;	/* struct edm_shpool_x: this kernel's offers */
	struct list_head ximports;	/* struct edm_shpool_imp: what our engine serves */
	struct delayed_work xwork;
	/* xlock; read with READ_ONCE */
	u64 x_offered, x_served, x_refused, x_dropped, x_lost, x_revoked;
};

struct edm_shpool_cfg {
	const char *device;
	const char *ifname;		/* NULL: shp%d */
	const char *hostname;		/* NULL: the uts nodename */
	struct edm_shp_cfg fmt;		/* if this join formats the pool */
	u32 fmt_given;			/* BIT(EDM_A_SHPOOL_*) of fmt's fields given */
	struct net_device *netdev;	/* allocated by `ip link add`, or NULL */
};

static inline struct edm_shpool *edm_shpool_of(const struct edm_dev *dev)
{
	return dev->type_priv;
}

static inline void edm_shpool_stat(struct edm_shpool *sp, int i, u64 v)
{
	this_cpu_add(sp->ctrs->v[i], v);
}

/* The shared pool behind its netdev (the netdev's private area holds a pointer). */
static inline struct edm_shpool *edm_shpool_nd(const struct net_device *nd)
{
	return *(struct edm_shpool **)netdev_priv(nd);
}

/* dfabric/shpool.c */
extern struct mutex edm_shmem_lock;
extern bool edm_shpool_stall;		/* debugfs test knob: the works pause */
void edm_shpool_stats(struct edm_shpool *sp, struct edm_shpool_stats *sum);
void edm_shpool_put(struct edm_shpool *sp);

/* dfabric/shpool_nl.c: events to the netns's "events" group */
void edm_shpool_notify_reap(struct edm_shpool *sp, u32 slot);
void edm_shpool_notify_xdown(struct edm_shpool *sp, u32 xi, u32 inst_id, u32 region, u32 target,
			     enum edm_shpool_export_down why);

/* dfabric/shpool_ethtool.c */
extern const struct ethtool_ops edm_shpool_ethtool_ops;

/* dfabric/shpool_x.c */
void edm_shpool_x_init(struct edm_shpool *sp);
void edm_shpool_x_start(struct edm_shpool *sp);
void edm_shpool_x_detach(struct edm_shpool *sp);
bool edm_shpool_x_busy(struct edm_shpool *sp);

/* dfabric/shpool_nl.c, for `ip link add` (dfabric/shpool_link.c) */
extern const struct nla_policy edm_shpool_join_policy[EDM_A_SHPOOL_MAX + 1];
int edm_shpool_cfg_parse(struct nlattr **a, struct edm_shpool_cfg *cfg,
			 struct netlink_ext_ack *extack);

/* dfabric/shpool_link.c */
extern struct rtnl_link_ops edm_shpool_link_ops;

/* dfabric/shpool_net.c */
void edm_shpool_setup(struct net_device *nd);
struct net_device *edm_shpool_netdev_alloc(struct edm_shpool *sp, const char *ifname,
					   struct net_device *given);
void edm_shpool_netdev_registered(struct net_device *nd);
void edm_shpool_netdev_free(struct net_device *nd, bool ours);
void edm_shpool_zc_setup(struct edm_shpool *sp);
u32 edm_shpool_reclaim(struct edm_shpool *sp);
bool edm_shpool_keep_lent(void *arg, u32 buf);
extern bool edm_shpool_rx_copy;		/* debugfs test knob: copy every frame */

#endif /* _EDM_SHPOOL_H */
