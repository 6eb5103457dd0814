/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DFabric's shared memory pool (paper 4.1), a kernel-agnostic core
 * (include/edm/core.h): Sections of 2 MB grouped in Regions of N consecutive
 * Sections of the fabric address space (FAS), Buffers of one size class per
 * Section, compute nodes (CNs) that apply Sections for a size class and a
 * location and allocate Buffers from them, and the check of every FAS
 * reference a node presents.
 *
 * A FAS reference is a u64: FAS Section number << 21 | byte offset in the
 * Section. The FAS table maps a FAS Section to a physical Section index,
 * which is the caller's (the kernel wrapper's page array, say).
 *
 * Every allocated Buffer has one holder, the node that may load and store it.
 * Passing a reference to another node moves the holding to it (the paper's
 * pass-by-reference, 4.3); the holder frees it back into the Section of the
 * node that applied the Section (the daemon of 4.1).
 *
 * The core never allocates: the caller sizes one block with edm_pool_size()
 * and hands it to edm_pool_init(). It takes no lock and reads no clock: the
 * caller serializes every call on one pool.
 */
#ifndef _EDM_POOL_CORE_H
#define _EDM_POOL_CORE_H

#include "edm/core.h"

enum {
	EDM_POOL_SECTION_SHIFT	= 21,		/* 2 MB, one huge page */
	EDM_POOL_SECTION_SIZE	= 1 << EDM_POOL_SECTION_SHIFT,
	EDM_POOL_DEFAULT_REGION	= 512,		/* Sections per Region, the paper's N */
	EDM_POOL_MAX_REGION	= 1 << 16,
	EDM_POOL_MIN_SHIFT	= 8,		/* smallest Buffer class: 256 B */
	EDM_POOL_MAX_SHIFT	= EDM_POOL_SECTION_SHIFT,	/* largest: a whole Section */
	EDM_POOL_DEFAULT_MIN_SHIFT = 8,		/* 256 B */
	EDM_POOL_DEFAULT_MAX_SHIFT = 16,	/* 64 KB, one GSO packet */
	EDM_POOL_MAX_CLASSES	= EDM_POOL_MAX_SHIFT - EDM_POOL_MIN_SHIFT + 1,
	EDM_POOL_MAX_NODES	= 255,		/* node ids fit a u8, 0xff is "none" */
	EDM_POOL_MAX_LOCS	= 16,		/* memory devices of different latency */
	EDM_POOL_MAX_SECTIONS	= 1 << 20,	/* 2 TB of pool */
	EDM_POOL_MAX_FAS	= 1 << 24,	/* FAS Sections: 32 TB of address space */
	EDM_POOL_DEFAULT_KEEP	= 1,		/* empty Sections a node keeps per list */
};

#define EDM_POOL_NONE		(~0U)		/* no Section, no node */
#define EDM_POOL_LOC_ANY	(~0U)		/* no location preference */

enum edm_pool_flags {
	EDM_POOL_F_STRICT	= 1 << 0,	/* only the named location, no fallback */
};

enum edm_pool_sec_state {
	EDM_POOL_SEC_UNMAPPED,		/* no Region maps it into the FAS yet */
	EDM_POOL_SEC_FREE,		/* the LPPU's, on its location's free list */
	EDM_POOL_SEC_APPLIED,		/* granted to a node */
};

/* Why a reference was refused, indexing edm_pool_stats.refused[]. */
enum edm_pool_refusal {
	EDM_POOL_REF_FAULT,		/* -EFAULT: no Section backs that FAS address */
	EDM_POOL_REF_FREE,		/* -ENOENT: Section not applied, or Buffer free */
	EDM_POOL_REF_DENIED,		/* -EACCES: another node holds the Buffer */
	EDM_POOL_REF_RANGE,		/* -ERANGE: ref + len runs past the Buffer */
	EDM_POOL_REF_INVAL,		/* -EINVAL: bad node, or len 0 */
	EDM_POOL_NR_REFUSALS,
};

struct edm_pool_cfg {
	u32 nsections;		/* physical Sections the caller backs, 1..EDM_POOL_MAX_SECTIONS */
	u32 region_sections;	/* N, 1..EDM_POOL_MAX_REGION */
	u32 max_regions;	/* FAS size is max_regions * N Sections */
	u32 nnodes;		/* compute nodes, 1..EDM_POOL_MAX_NODES */
	u32 nlocs;		/* locations, 1..EDM_POOL_MAX_LOCS */
	u32 min_shift;		/* Buffer classes are 2^min_shift .. 2^max_shift bytes */
	u32 max_shift;
	u32 keep;		/* empty Sections a node keeps per (class, location) */
	u32 node_quota;		/* Sections one node may hold, 0: no limit */
};

struct edm_pool_node_stats {
	u32 sections;		/* applied to it now */
	u32 sections_max;
	u64 applied;		/* Sections granted, ever */
	u64 released;		/* Sections given back to the LPPU */
	u64 held;		/* Buffers it holds now */
	u64 allocs;
	u64 frees;		/* Buffers it freed (it held them) */
	u64 enomem;
	u64 passed_out;
	u64 passed_in;
	u64 refused;		/* references it presented that were refused */
};

struct edm_pool_class_stats {
	u64 in_use;		/* Buffers allocated now */
	u32 sections;		/* Sections of this class applied now */
	u64 allocs;
};

struct edm_pool_stats {
	u32 sections_mapped;	/* in the FAS */
	u32 sections_free;	/* mapped, not applied */
	u64 enomem;
	u64 passes;
	u64 checked;		/* references accepted by edm_pool_ref_check() */
	u64 refused[EDM_POOL_NR_REFUSALS];
};

/* Where an accepted reference lies, for the wrapper to reach the bytes. */
struct edm_pool_buf {
	u32 phys;		/* physical Section index */
	u32 start;		/* Buffer's first byte, offset in the Section */
	u32 size;		/* Buffer size */
	u32 off;		/* the reference's offset in the Section */
};

struct edm_pool_section;

/* Opaque to callers but for its size and stats; use the functions below. */
struct edm_pool {
	struct edm_pool_cfg cfg;
	u32 nclasses;
	u32 bufs_max;			/* Buffers of a Section of the smallest class */
	u32 map_words;			/* u64 words of one Section's free bitmap */
	u32 sum_words;			/* u64 words of its summary */
	u32 fas_sections;		/* max_regions * N */
	u32 nregions;			/* Regions mapped so far */
	struct edm_pool_stats stats;
	struct edm_pool_class_stats cls[EDM_POOL_MAX_CLASSES];
	struct edm_pool_node_stats *node;	/* [nnodes] */
	struct edm_pool_section *sec;	/* [nsections], by physical index */
	u32 *fas;			/* [fas_sections] physical index or EDM_POOL_NONE */
	u32 *free_head;			/* [nlocs] the LPPU's free Sections */
	u32 *list;			/* [nnodes][nclasses][nlocs] non-full Sections */
	u32 *empty;			/* [same] how many of them are empty */
	u64 *map;			/* [nsections][map_words] bit set: Buffer free */
	u64 *sum;			/* [nsections][sum_words] bit set: map word not 0 */
	u8 *holder;			/* [nsections][bufs_max] node holding a Buffer */
};

size_t edm_pool_size(const struct edm_pool_cfg *cfg);
void edm_pool_cfg_default(struct edm_pool_cfg *cfg, u32 nsections, u32 nnodes);
int edm_pool_cfg_check(const struct edm_pool_cfg *cfg);
int edm_pool_init(void *mem, const struct edm_pool_cfg *cfg);
int edm_pool_region_add(struct edm_pool *p, u32 loc, u32 phys_first, u32 count);

int edm_pool_class(const struct edm_pool *p, u64 size);
u32 edm_pool_class_size(const struct edm_pool *p, u32 cls);
int edm_pool_apply(struct edm_pool *p, u32 node, u32 cls, u32 loc, u32 flags);
int edm_pool_alloc(struct edm_pool *p, u32 node, u64 size, u32 loc, u32 flags, u64 *ref);
int edm_pool_free(struct edm_pool *p, u32 node, u64 ref);
int edm_pool_pass(struct edm_pool *p, u32 from, u32 to, u64 ref, u32 len);
int edm_pool_ref_check(struct edm_pool *p, u32 node, u64 ref, u32 len);
int edm_pool_ref_resolve(const struct edm_pool *p, u32 node, u64 ref, u32 len,
			 struct edm_pool_buf *buf);
u32 edm_pool_node_flush(struct edm_pool *p, u32 node);

u64 edm_pool_ref(u32 fas_section, u32 off);
u32 edm_pool_fas_to_phys(const struct edm_pool *p, u64 ref);
u32 edm_pool_sec_state(const struct edm_pool *p, u32 phys);
u32 edm_pool_sec_owner(const struct edm_pool *p, u32 phys);
u32 edm_pool_sec_class(const struct edm_pool *p, u32 phys);
u32 edm_pool_sec_loc(const struct edm_pool *p, u32 phys);
u32 edm_pool_sec_fas(const struct edm_pool *p, u32 phys);
u32 edm_pool_sec_nfree(const struct edm_pool *p, u32 phys);

#endif /* _EDM_POOL_CORE_H */
