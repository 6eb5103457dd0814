// SPDX-License-Identifier: GPL-2.0
/*
 * The device-DAX memory provider (include/edm/memprov.h): a character
 * device /dev/daxX.Y, the kernel's way of handing out a CXL region, a pmem
 * namespace in devdax mode, memmap= or soft-reserved memory whole.
 *
 * Device-DAX has no in-kernel interface but mmap(), so the provider uses
 * that, in the context of the process asking (a netlink request): it opens
 * the path, maps the device shared into that process for a moment, pins the
 * pages to learn their pfns (each must follow the last, one range), takes
 * the device's dev_pagemap (edm_memprov_hold(): the device's unbind then
 * waits for the release), and unpins and unmaps again. What the provider
 * lends is the first physically contiguous range of the device, at most
 * as long as its caller asked, mapped write-back in the direct map as
 * device memory with struct pages is.
 *
 * The path must name a device of the dax bus before the provider opens it
 * (opening just any character device can have effects: a watchdog's starts
 * it): the bus is told by sysfs, /sys/dev/char/MAJ:MIN/subsystem, since the
 * kernel exports nothing that names it.
 *
 * Device-DAX has no claim of its own: the provider keeps a list of the
 * devices it lends, so that a second user gets EBUSY. A process that maps
 * the device itself is not stopped, as with any raw device.
 *
 * Locking: edm_devdax_lock protects that list; the map and the pinning run
 * without it, under the caller's mmap lock only (taken by vm_mmap() and
 * pin_user_pages_fast()).
 */
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "edm/memprov.h"

#define EDM_DEVDAX_PIN		512		/* pages pinned per call */
#define EDM_DEVDAX_WINDOW	BIT_ULL(40)	/* the longest device taken */

struct edm_devdax {
	struct list_head node;		/* edm_devdax_list */
	dev_t rdev;
};

static DEFINE_MUTEX(edm_devdax_lock);
static LIST_HEAD(edm_devdax_list);

/* Give the device back for another lending. */
static void edm_devdax_unclaim(struct edm_devdax *dd)
{
	mutex_lock(&edm_devdax_lock);
	list_del(&dd->node);
	mutex_unlock(&edm_devdax_lock);
	kfree(dd);
}

static void edm_devdax_release(struct edm_memprov *mp)
{
	edm_devdax_unclaim(mp->priv);
	mp->priv = NULL;
}

static const struct edm_memprov_ops edm_devdax_ops = {
	.kind = "devdax",
	.release = edm_devdax_release,
};

/* Is character device @rdev on the dax bus? */
static int edm_devdax_chk(dev_t rdev, struct netlink_ext_ack *extack)
{
	char sys[48];
	struct path p;
	bool dax;
	int err;

	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/subsystem", MAJOR(rdev), MINOR(rdev));
	err = kern_path(sys, LOOKUP_FOLLOW, &p);
	if (err) {
		NL_SET_ERR_MSG(extack, "that path is no DAX device (no such device in /sys)");
		return -ENODEV;
	}
	dax = !strcmp(p.dentry->d_name.name, "dax") &&
	      !strcmp(p.dentry->d_parent->d_name.name, "bus");
	path_put(&p);
	if (!dax) {
		NL_SET_ERR_MSG(extack, "that path is no DAX device (not on the dax bus)");
		return -ENODEV;
	}
	return 0;
}

/* Take @rdev for this lending, unless another has it. */
static int edm_devdax_claim(struct edm_devdax *dd, dev_t rdev, struct netlink_ext_ack *extack)
{
	struct edm_devdax *o;
	int err = 0;

	mutex_lock(&edm_devdax_lock);
	list_for_each_entry(o, &edm_devdax_list, node) {
		if (o->rdev == rdev) {
			NL_SET_ERR_MSG(extack, "that DAX device is in use (joined already)");
			err = -EBUSY;
			break;
		}
	}
	if (!err) {
		dd->rdev = rdev;
		list_add_tail(&dd->node, &edm_devdax_list);
	}
	mutex_unlock(&edm_devdax_lock);
	return err;
}

/*
 * Pin up to @max bytes of the mapping at @addr, a chunk at a time, each
 * page at the pfn after the last one; stop where the device or the range
 * ends. The pfn of the first page in *@pfn0; the bytes found.
 */
static u64 edm_devdax_walk(unsigned long addr, u64 max, unsigned long *pfn0, struct page **pages)
{
	u64 done = 0;
	int i, n;

	while (done < max) {
		n = min_t(u64, EDM_DEVDAX_PIN, (max - done) >> PAGE_SHIFT);
		n = pin_user_pages_fast(addr + done, n, FOLL_WRITE, pages);
		if (n <= 0)
			break;
		if (!done)
			*pfn0 = page_to_pfn(pages[0]);
		for (i = 0; i < n; i++)
			if (page_to_pfn(pages[i]) != *pfn0 + (done >> PAGE_SHIFT) + i)
				break;
		unpin_user_pages(pages, n);
		done += (u64)i << PAGE_SHIFT;
		if (i < n)
			break;
	}
	return done;
}

/* Map the device in the caller's process and find its first range. */
static int edm_devdax_find(struct edm_memprov *mp, struct file *f, u64 want,
			   struct netlink_ext_ack *extack)
{
	unsigned long addr, pfn0 = 0;
	struct page **pages;
	u64 len, window;
	int err;

	if (!current->mm) {
		NL_SET_ERR_MSG(extack, "a DAX device is taken in a process's context only");
		return -EINVAL;
	}
	pages = kmalloc_array(EDM_DEVDAX_PIN, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	window = want ?: EDM_DEVDAX_WINDOW;
	addr = vm_mmap(f, 0, window, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	if (IS_ERR_VALUE(addr)) {
		err = (int)addr;
		if (err == -ENOMEM)
			NL_SET_ERR_MSG(extack, "no room in this process to map that DAX device");
		else
			NL_SET_ERR_MSG(extack,
				       "cannot map that DAX device (its alignment is above 2 MiB?)");
		goto out;
	}
	len = edm_devdax_walk(addr, window, &pfn0, pages);
	vm_munmap(addr, window);
	err = -ENODEV;
	if (!len) {
		NL_SET_ERR_MSG(extack,
			       "that path is no DAX device (no memory pages in its mapping)");
		goto out;
	}
	if (!pfn_valid(pfn0) || !is_zone_device_page(pfn_to_page(pfn0))) {
		NL_SET_ERR_MSG(extack,
			       "that path is no DAX device (its memory is not device memory)");
		goto out;
	}
	*mp = (struct edm_memprov){
		.ops = &edm_devdax_ops,
		.va = page_address(pfn_to_page(pfn0)),
		.phys = PFN_PHYS(pfn0),
		.len = len,
	};
	err = 0;
out:
	kfree(pages);
	return err;
}

int edm_memprov_devdax_get(struct edm_memprov *mp, const char *path, dev_t rdev, u64 want,
			   struct netlink_ext_ack *extack)
{
	struct edm_devdax *dd;
	struct file *f;
	int err;

	if (!capable(CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(extack, "taking a DAX device takes CAP_SYS_ADMIN");
		return -EPERM;
	}
	err = edm_devdax_chk(rdev, extack);
	if (err)
		return err;
	dd = kzalloc(sizeof(*dd), GFP_KERNEL);
	if (!dd)
		return -ENOMEM;
	f = filp_open(path, O_RDWR | O_LARGEFILE | O_NOCTTY, 0);
	if (IS_ERR(f)) {
		NL_SET_ERR_MSG(extack, "cannot open that DAX device");
		err = PTR_ERR(f);
		goto err_free;
	}
	if (!S_ISCHR(file_inode(f)->i_mode) || file_inode(f)->i_rdev != rdev) {
		NL_SET_ERR_MSG(extack, "that path changed while it was being opened");
		err = -ENODEV;
		goto err_close;
	}
	err = edm_devdax_claim(dd, rdev, extack);
	if (err)
		goto err_close;
	err = edm_devdax_find(mp, f, want, extack);
	if (err)
		goto err_unclaim;
	mp->priv = dd;
	err = edm_memprov_hold(mp, true, extack);
	if (err)
		goto err_unclaim;
	fput(f);
	return 0;

err_unclaim:
	mp->ops = NULL;
	fput(f);
	edm_devdax_unclaim(dd);
	return err;
err_close:
	fput(f);
err_free:
	kfree(dd);
	return err;
}
