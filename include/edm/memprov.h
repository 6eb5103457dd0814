/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory providers: memory that edm maps but does not take from the page
 * allocator, lent to one user at a time (a shared pool membership today).
 * A provider lends one physically contiguous range, mapped write-back in
 * the kernel; a user maps it into processes by inserting its pfns, and the
 * network stack never holds its pages, so a receiver copies out of it.
 * Both providers are cache coherent: nothing needs flushing.
 *
 *   ivshmem  a QEMU ivshmem-plain BAR bound by edm's PCI driver, named by
 *            its PCI name (dfabric/shpool.c);
 *   pmem     a persistent-memory block device with DAX, named by its path:
 *            an fsdax namespace of an NVDIMM, of a CXL pmem region or of
 *            memmap= (core/memprov_pmem.c). It is claimed for the user,
 *            so a second user (or a DAX file system) gets EBUSY.
 *
 * A device can go while lent (ivshmem unplugged or unbound; a pmem
 * namespace unbound, of which 6.7 and later give notice first): the
 * provider's user is told and stops using the range, then releases it,
 * before the device unmaps it. For pmem that is the hook registered with
 * edm_memprov_pmem_set_gone(), called with the lending's id (mp->id, never
 * reused), which the user looks up among its own lendings under its own
 * lock: the lending may be over already. 6.1 gives no notice: unbind a
 * namespace in use there and the user touches unmapped memory, as a DAX
 * file system would.
 *
 * The user serializes its calls on one provider; the pmem provider's list
 * of lent devices has a mutex of its own, never held across the hook.
 */
#ifndef _EDM_MEMPROV_H
#define _EDM_MEMPROV_H

#include <linux/types.h>

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
	void *priv;
};

/* The pmem block device at @path, claimed for this lending. */
int edm_memprov_pmem_get(struct edm_memprov *mp, const char *path,
			 struct netlink_ext_ack *extack);
/* Set once at init, before any get; NULL at exit, after the last release. */
void edm_memprov_pmem_set_gone(void (*gone)(u64 id));

static inline bool edm_memprov_is_path(const char *name)
{
	return name[0] == '/';
}

static inline void edm_memprov_release(struct edm_memprov *mp)
{
	if (mp->ops)
		mp->ops->release(mp);
	mp->ops = NULL;
	mp->va = NULL;
}

#endif /* _EDM_MEMPROV_H */
