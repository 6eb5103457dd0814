/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory providers: memory that edm maps but does not take from the page
 * allocator, lent to one user at a time (a pool or a shared pool
 * membership). A provider lends one physically contiguous range, mapped
 * write-back in the kernel; a user maps it into processes by inserting its
 * pfns, and where the range has struct pages (ZONE_DEVICE, @pgmap set) a
 * local pool or a shared pool's receiver lends those pages to the network
 * stack. Every provider is cache coherent: nothing needs flushing.
 *
 *   ivshmem  a QEMU ivshmem-plain BAR bound by edm's PCI driver, named by
 *            its PCI name (dfabric/shpool.c);
 *   pmem     a persistent-memory block device with DAX, named by its path:
 *            an fsdax namespace of an NVDIMM, of a CXL pmem region or of
 *            memmap= (core/memprov_pmem.c). It is claimed for the user,
 *            so a second user (or a DAX file system) gets EBUSY;
 *   devdax   a device-DAX character device, named by its path: a CXL
 *            region's, a devdax namespace's (core/memprov_devdax.c).
 *
 * edm_memprov_get() takes a path and picks pmem or devdax by the kind of
 * file there (core/memprov.c).
 *
 * A device can go while lent (ivshmem unplugged or unbound; a namespace or
 * DAX device unbound). Where the range has struct pages the lending holds
 * the device's dev_pagemap, so the device's unbind waits for the release
 * before it unmaps the memory: the memory never goes from under a user.
 * A user can be told first, and then leave by itself: ivshmem's remove,
 * and on 6.7 and later a pmem namespace's unbind (MF_MEM_PRE_REMOVE): the
 * hook registered with edm_memprov_pmem_set_gone(), called with the
 * lending's id (mp->id, never reused), which the user looks up among its
 * own lendings under its own lock, since the lending may be over already.
 * A device-DAX unbind, and 6.1's pmem unbind, give no notice: they wait
 * until the user releases the range (a pool is destroyed, a member
 * leaves).
 *
 * The user serializes its calls on one provider; the pmem and devdax
 * providers' lists of lent devices have a mutex each, never held across
 * the hook.
 */
#ifndef _EDM_MEMPROV_H
#define _EDM_MEMPROV_H

#include <linux/types.h>

struct dev_pagemap;
struct edm_memprov;
struct netlink_ext_ack;

struct edm_memprov_ops {
	const char *kind;
	/* Give the range back: the user no longer maps it anywhere. */
	void (*release)(struct edm_memprov *mp);
};

struct edm_memprov {
	const struct edm_memprov_ops *ops;	/* NULL: nothing lent */
	void *va;				/* the kernel's mapping */
	phys_addr_t phys;			/* of va: pfns for user mappings */
	u64 len;
	u64 id;					/* pmem: this lending's, unique */
	struct dev_pagemap *pgmap;		/* held: the range's struct pages */
	void *priv;
};

/*
 * The pmem or device-DAX device at @path: at most @want bytes of it (0:
 * all). Takes CAP_SYS_ADMIN, and a device-DAX device the caller's process
 * context (its memory is found through an mmap() there).
 */
int edm_memprov_get(struct edm_memprov *mp, const char *path, u64 want,
		    struct netlink_ext_ack *extack);

/* The pmem block device at @path, claimed for this lending. */
int edm_memprov_pmem_get(struct edm_memprov *mp, const char *path,
			 struct netlink_ext_ack *extack);
/* Set once at init, before any get; NULL at exit, after the last release. */
void edm_memprov_pmem_set_gone(void (*gone)(u64 id));
/* @rdev: the character device edm_memprov_get() found at @path */
int edm_memprov_devdax_get(struct edm_memprov *mp, const char *path, dev_t rdev, u64 want,
			   struct netlink_ext_ack *extack);
/*
 * For a provider: hold the dev_pagemap of the range's struct pages, if it
 * has some (@need: it must). Every page of the range must be in it.
 */
int edm_memprov_hold(struct edm_memprov *mp, bool need, struct netlink_ext_ack *extack);
void edm_memprov_release(struct edm_memprov *mp);

static inline bool edm_memprov_is_path(const char *name)
{
	return name[0] == '/';
}

#endif /* _EDM_MEMPROV_H */
