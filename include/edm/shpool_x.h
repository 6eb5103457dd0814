/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cowbird across kernels over a shared pool (Documentation/pool.md,
 * "Cowbird across kernels"): what /dev/cowbird (cowbird/dev.c) asks of a
 * pool membership (dfabric/shpool_x.c), and what the membership's export
 * work asks of the Cowbird engine.
 *
 * The compute side: edm_shpool_x_open() puts an instance's mapping in a
 * run of pool Buffers and offers it to a host slot, waiting for that
 * kernel's engine to take it; edm_shpool_x_mmap() maps it for the user
 * until the area may no longer be ours (this kernel was reaped, or the
 * membership detached); edm_shpool_x_close() gives it up. The engine
 * side: each membership's export work takes offers made to it, builds an
 * engine instance over the pool memory (cowbird_import()), and drops it
 * (cowbird_import_drop()) once its owner closes or dies.
 */
#ifndef _EDM_SHPOOL_X_H
#define _EDM_SHPOOL_X_H

#include <linux/types.h>

struct net;
struct cowbird_create;
struct cowbird_inst;
struct edm_shpool_x;
struct vm_area_struct;

/* What the owner's side learns of an export (user mappings: edm_shpool_x_mmap()). */
struct edm_shpool_x_area {
	void *va;		/* this kernel's mapping */
	u64 region_size;	/* as the engine found it */
};

int edm_shpool_x_open(struct net *net, const struct cowbird_create *c, u64 size, u32 inst_id,
		      struct edm_shpool_x **xp, struct edm_shpool_x_area *area);
void edm_shpool_x_close(struct edm_shpool_x *x);
/*
 * Map the area into @vma, whose file has an address space of its own
 * (the revoke zaps all of it): ENODEV once the area may not be ours.
 */
int edm_shpool_x_mmap(struct edm_shpool_x *x, struct vm_area_struct *vma);

/*
 * cowbird/dev.c: an engine instance over @area for a checked request, or an
 * ERR_PTR; the engine skips its passes while @ours(@arg) says the area may
 * no longer be ours (it is dropped soon after).
 */
struct cowbird_inst *cowbird_import(struct net *net, void *area, u64 len,
				    struct cowbird_create *c, u32 owner_id,
				    bool (*ours)(const void *arg), const void *arg);
/* @area_gone: the owner may have freed the area; write nothing more there */
void cowbird_import_drop(struct cowbird_inst *inst, bool area_gone);

#endif /* _EDM_SHPOOL_X_H */
