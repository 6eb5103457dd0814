/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Export slots of a shared pool (Documentation/pool.md, "Cowbird across
 * kernels"): a kernel (the owner) lends a run of pool Buffers to an
 * importer in another kernel of the pool, which serves what the owner's
 * users write there. dfabric/shpool_x.c moves the run and its answer
 * between kernels and knows nothing of what the run holds; an importer
 * (today Cowbird, cowbird/dev.c) registers its ops here, and only it
 * reads or writes the area's contents.
 *
 * The owner's side: edm_shpool_x_open() puts a run of Buffers for @size
 * bytes in an export slot, zeroed, offers it to a host slot and waits for
 * that kernel's importer to take it; edm_shpool_x_mmap() maps it for the
 * user until the area may no longer be ours (this kernel was reaped, or
 * the membership detached); edm_shpool_x_close() gives it up. The
 * importer's side: each membership's export work takes offers made to it
 * (->import), drops them once their owner closes or dies (->drop) and,
 * for our own offers, tells the importer when the kernel serving one died
 * (->engine_lost).
 */
#ifndef _EDM_SHPOOL_X_H
#define _EDM_SHPOOL_X_H

#include <linux/types.h>

struct net;
struct edm_shpool_x;
struct vm_area_struct;

/* What an export slot carries besides its run: the importer's own words. */
struct edm_shpool_x_params {
	u32 shpool;		/* owner: the membership's device ID */
	u32 via;		/* owner: the host slot asked to serve it */
	u16 region_id;		/* in the importer's netns */
	u64 region_key;
	u16 nr_rings;
	u8 meta_order;
	u8 data_order;
};

/* What the owner's side learns of an export (user mappings: edm_shpool_x_mmap()). */
struct edm_shpool_x_area {
	void *va;		/* this kernel's mapping */
	u64 region_size;	/* as the importer found it */
};

struct edm_shpool_x_ops {
	/*
	 * Serve @len bytes of pool memory at @area for the owner's instance
	 * @owner_id: an importer's handle, or an ERR_PTR whose errno the
	 * owner gets (-EAGAIN: not now, the slot is looked at again next
	 * run). Sets *@region_size. Before each pass over the area the
	 * importer asks @ours(@arg); once false (this kernel was reaped)
	 * it writes nothing more there, and ->drop follows soon.
	 */
	void *(*import)(struct net *net, void *area, u64 len, const struct edm_shpool_x_params *p,
			u32 owner_id, bool (*ours)(const void *arg), const void *arg,
			u64 *region_size);
	/* Stop serving; @area_gone: the owner may have freed it, write nothing there. */
	void (*drop)(void *handle, bool area_gone);
	/*
	 * Owner: the kernel serving the area of @owner (as given to
	 * edm_shpool_x_open()) died; tell its users. Never after the close.
	 */
	void (*engine_lost)(void *owner);
};

/*
 * One importer, registered before any membership exists (module init) and
 * unregistered after the last is gone (module exit). Without one, this
 * kernel refuses the offers made to it: the owner's open fails EOPNOTSUPP.
 */
void edm_shpool_x_register(const struct edm_shpool_x_ops *ops);
void edm_shpool_x_unregister(void);

int edm_shpool_x_open(struct net *net, const struct edm_shpool_x_params *p, u64 size,
		      u32 inst_id, void *owner, struct edm_shpool_x **xp,
		      struct edm_shpool_x_area *area);
void edm_shpool_x_close(struct edm_shpool_x *x);
/*
 * Map the area into @vma, whose file has an address space of its own
 * (the revoke zaps all of it): ENODEV once the area may not be ours.
 */
int edm_shpool_x_mmap(struct edm_shpool_x *x, struct vm_area_struct *vma);

#endif /* _EDM_SHPOOL_X_H */
