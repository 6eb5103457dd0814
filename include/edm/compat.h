/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where edm meets the differences between the kernels it
 * builds for: Debian's 6.1 and 6.12 LTS lines (Kbuild refuses others, see
 * scripts/krel.sh). The code is written for the newer kernel's API; each
 * entry below gives that API to the older kernel, names the release that
 * changed it, and is keyed on LINUX_VERSION_CODE. No other file tests the
 * kernel version. Include it where one of these names is used. Only 6.1
 * and 6.12 are built and tested here: on a kernel between them
 * (EDM_ANY_KERNEL=1) a boundary below may prove a release off.
 */
#ifndef _EDM_COMPAT_H
#define _EDM_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>

/*
 * 6.2 split genetlink ops into do and dump halves (struct genl_split_ops);
 * the family's pre_doit and post_doit get the half that runs. Before, they
 * got the whole struct genl_ops, which has the same cmd and internal_flags.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define genl_split_ops genl_ops
#endif

/*
 * The attributes a dump request carried, parsed with its policy. 6.6 moved
 * them from struct genl_dumpit_info into the struct genl_info it embeds
 * (genl_info_dump()).
 */
static inline struct nlattr **edm_genl_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * 6.3 made vma->vm_flags read-only outside the mm and gave drivers
 * vm_flags_set() and vm_flags_clear(), called with mmap_lock held for
 * writing, as an ->mmap() handler is.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 6.12 moved the unaligned accessors (get_unaligned_be64() and friends)
 * from <asm/unaligned.h> to <linux/unaligned.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.5 moved skb_gso_segment() and the other GSO helpers from
 * <linux/netdevice.h> to <net/gso.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#include <net/gso.h>
#endif

/*
 * In a tracepoint's TP_fast_assign: copy @src, the string its __string()
 * field @dst was sized from. 6.10 dropped __assign_str()'s second
 * argument (the field remembers its source); before, it had to be given.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define edm_trace_assign_str(dst, src) __assign_str(dst)
#else
#define edm_trace_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * A netdev's per-queue statistics in the netdev netlink family (qstats-get):
 * struct netdev_stat_ops (dev->stat_ops) came in 6.9, and the drop counters
 * edm fills in 6.10. Before, there is nowhere to report them: the types
 * below carry what edm fills, and edm_netdev_set_stat_ops() does nothing.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#include <net/netdev_queues.h>

static inline void edm_netdev_set_stat_ops(struct net_device *dev,
					   const struct netdev_stat_ops *ops)
{
	dev->stat_ops = ops;
}
#else
struct netdev_queue_stats_rx {
	u64 bytes;
	u64 packets;
	u64 hw_drops;
};

struct netdev_queue_stats_tx {
	u64 bytes;
	u64 packets;
	u64 hw_drops;
};

struct netdev_stat_ops {
	void (*get_queue_stats_rx)(struct net_device *dev, int idx,
				   struct netdev_queue_stats_rx *stats);
	void (*get_queue_stats_tx)(struct net_device *dev, int idx,
				   struct netdev_queue_stats_tx *stats);
	void (*get_base_stats)(struct net_device *dev, struct netdev_queue_stats_rx *rx,
			       struct netdev_queue_stats_tx *tx);
};

static inline void edm_netdev_set_stat_ops(struct net_device *dev,
					   const struct netdev_stat_ops *ops)
{
}
#endif

/*
 * Which NAPI serves a queue, shown by the netdev family's queue-get: 6.8
 * added netif_queue_set_napi() (called under RTNL). Before, nothing shows
 * it and the call does nothing.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
enum netdev_queue_type {
	NETDEV_QUEUE_TYPE_RX,
	NETDEV_QUEUE_TYPE_TX,
};

static inline void netif_queue_set_napi(struct net_device *dev, unsigned int queue_index,
					enum netdev_queue_type type, struct napi_struct *napi)
{
}
#endif

/*
 * 6.7 tells a DAX device's holder before the device goes
 * (dax_holder_notify_failure() with MF_MEM_PRE_REMOVE, from kill_dax()).
 * Before, no notice came: a flag that is never set.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#define MF_MEM_PRE_REMOVE	0
#endif

/*
 * 6.9 opens a block device as a file: bdev_file_open_by_path() claims it
 * for a holder, file_bdev() gives the block device and bdev_fput() yields
 * the claim at once and puts the file. Before, blkdev_get_by_path() and
 * blkdev_put() with FMODE_EXCL did the same on the block device itself.
 * struct edm_bdev holds what the running kernel's open returned.
 */
#include <linux/blkdev.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
struct edm_bdev {
	struct file *file;
};

static inline int edm_bdev_open_excl(struct edm_bdev *b, const char *path, void *holder)
{
	b->file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);
	return PTR_ERR_OR_ZERO(b->file);
}

static inline struct block_device *edm_bdev_get(const struct edm_bdev *b)
{
	return file_bdev(b->file);
}

static inline void edm_bdev_close(struct edm_bdev *b)
{
	bdev_fput(b->file);
}
#else
#define EDM_BDEV_MODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

struct edm_bdev {
	struct block_device *bdev;
};

static inline int edm_bdev_open_excl(struct edm_bdev *b, const char *path, void *holder)
{
	b->bdev = blkdev_get_by_path(path, EDM_BDEV_MODE, holder);
	return PTR_ERR_OR_ZERO(b->bdev);
}

static inline struct block_device *edm_bdev_get(const struct edm_bdev *b)
{
	return b->bdev;
}

static inline void edm_bdev_close(struct edm_bdev *b)
{
	blkdev_put(b->bdev, EDM_BDEV_MODE);
}
#endif

#endif /* _EDM_COMPAT_H */
