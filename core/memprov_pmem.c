// SPDX-License-Identifier: GPL-2.0
/*
 * The pmem memory provider (include/edm/memprov.h): a persistent-memory
 * block device whose namespace is in fsdax mode, found by path, claimed
 * exclusively, and mapped through its DAX device (dax_direct_access()) as
 * one range. The pmem driver maps the namespace write-back already; the
 * range is what follows the namespace's info block, the same in every
 * kernel that shares the memory (two guests on one NVDIMM backing file).
 *
 * A namespace unbound while lent (through sysfs: ndctl disable-namespace
 * refuses while the claim holds) tells its holder first on 6.7 and later
 * (MF_MEM_PRE_REMOVE): the gone hook runs, and its user detaches and
 * releases. 6.1 gives no notice. Either way a namespace with struct pages
 * (fsdax, -M mem or dev) waits in its unbind for the release, since the
 * lending holds its dev_pagemap (memprov.h).
 *
 * The claim's holder (of the block device and of its DAX device) is the
 * lending's own struct edm_pmem, alive exactly as long as the claim: a
 * user's pointer would not do, as a new user may get the address of one
 * whose memory is still claimed (a pool's leftover, dfabric/pool.c).
 *
 * Locking: edm_pmem_lock protects the list of lent devices, which the
 * notice looks its lending up in; it is dropped before the hook runs, which
 * takes its user's locks and may release (taking edm_pmem_lock again).
 */
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/dax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "edm/compat.h"
#include "edm/memprov.h"

struct edm_pmem {
	struct list_head node;		/* edm_pmem_list */
	struct edm_bdev bdev;
	struct dax_device *dax;
	u64 id;
};

static DEFINE_MUTEX(edm_pmem_lock);
static LIST_HEAD(edm_pmem_list);
static u64 edm_pmem_ids;		/* edm_pmem_lock */
static void (*edm_pmem_gone)(u64 id);

void edm_memprov_pmem_set_gone(void (*gone)(u64 id))
{
	edm_pmem_gone = gone;
}

/*
 * The DAX device's notices: before the namespace goes (6.7 and later),
 * the holder's user detaches. Memory failures are left to the kernel's
 * default handling (EOPNOTSUPP).
 */
static int edm_pmem_notify(struct dax_device *dax, u64 off, u64 len, int mf_flags)
{
	struct edm_pmem *pm;
	u64 id = 0;

	if (!(mf_flags & MF_MEM_PRE_REMOVE) || !edm_pmem_gone)
		return -EOPNOTSUPP;
	mutex_lock(&edm_pmem_lock);
	list_for_each_entry(pm, &edm_pmem_list, node)
		if (pm->dax == dax)
			id = pm->id;
	mutex_unlock(&edm_pmem_lock);
	if (id)
		edm_pmem_gone(id);
	return 0;
}

static const struct dax_holder_operations edm_pmem_holder_ops = {
	.notify_failure = edm_pmem_notify,
};

static void edm_pmem_release(struct edm_memprov *mp)
{
	struct edm_pmem *pm = mp->priv;

	mutex_lock(&edm_pmem_lock);
	list_del(&pm->node);
	mutex_unlock(&edm_pmem_lock);
	fs_put_dax(pm->dax, pm);
	edm_bdev_close(&pm->bdev);
	kfree(pm);
	mp->priv = NULL;
}

static const struct edm_memprov_ops edm_pmem_ops = {
	.kind = "pmem",
	.release = edm_pmem_release,
};

static int edm_pmem_open_err(int err, struct netlink_ext_ack *extack)
{
	switch (err) {
	case -EBUSY:
		NL_SET_ERR_MSG(extack, "that block device is in use (joined already, or mounted)");
		break;
	case -ENOTBLK:
	case -ENOENT:
	case -ENXIO:
	case -ENODEV:
		NL_SET_ERR_MSG(extack, "no block device at that path");
		err = -ENODEV;
		break;
	default:
		NL_SET_ERR_MSG(extack, "cannot open that block device");
	}
	return err;
}

int edm_memprov_pmem_get(struct edm_memprov *mp, const char *path,
			 struct netlink_ext_ack *extack)
{
	struct block_device *bdev;
	struct edm_pmem *pm;
	u64 start = 0, len;
	long npages, avail;
	void *va;
	pfn_t pfn;
	int err, id;

	/* raw memory that other kernels share: as much as opening the device for writing */
	if (!capable(CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(extack, "joining persistent memory takes CAP_SYS_ADMIN");
		return -EPERM;
	}
	pm = kzalloc(sizeof(*pm), GFP_KERNEL);
	if (!pm)
		return -ENOMEM;
	err = edm_bdev_open_excl(&pm->bdev, path, pm);
	if (err) {
		kfree(pm);
		return edm_pmem_open_err(err, extack);
	}
	bdev = edm_bdev_get(&pm->bdev);
	pm->dax = fs_dax_get_by_bdev(bdev, &start, pm, &edm_pmem_holder_ops);
	if (!pm->dax) {
		NL_SET_ERR_MSG(extack,
			       "that block device has no DAX: put its namespace in fsdax mode");
		err = -EOPNOTSUPP;
		goto err_close;
	}
	len = bdev_nr_bytes(bdev);
	npages = len >> PAGE_SHIFT;
	if (len < SZ_1M) {
		NL_SET_ERR_MSG(extack, "that device has less than 1 MiB of memory");
		err = -ENOSPC;
		goto err_put;
	}
	if (!PAGE_ALIGNED(start)) {
		NL_SET_ERR_MSG(extack, "that partition does not start on a page boundary");
		err = -EINVAL;
		goto err_put;
	}
	id = dax_read_lock();
	avail = dax_direct_access(pm->dax, PHYS_PFN(start), npages, DAX_ACCESS, &va, &pfn);
	dax_read_unlock(id);
	if (avail < npages) {
		NL_SET_ERR_MSG(extack, "the device's memory is not one range the kernel maps");
		err = avail < 0 ? (int)avail : -ENXIO;
		goto err_put;
	}
	*mp = (struct edm_memprov){
		.ops = &edm_pmem_ops,
		.va = va,
		.phys = pfn_t_to_phys(pfn),
		.len = len,
		.priv = pm,
	};
	err = edm_memprov_hold(mp, false, extack);
	if (err) {
		mp->ops = NULL;
		goto err_put;
	}
	mutex_lock(&edm_pmem_lock);
	pm->id = ++edm_pmem_ids;
	mp->id = pm->id;
	list_add_tail(&pm->node, &edm_pmem_list);
	mutex_unlock(&edm_pmem_lock);
	return 0;

err_put:
	fs_put_dax(pm->dax, pm);
err_close:
	edm_bdev_close(&pm->bdev);
	kfree(pm);
	return err;
}
