/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DRAM geometry of a NETi zone, a kernel-agnostic core (include/edm/core.h).
 *
 * A NetDIMM rank is @devices x8 DRAM devices working in lockstep; each has
 * @banks banks of @subarrays sub-arrays of @rows rows of @row_bytes bytes
 * (NetDIMM paper, Figure 9: 8, 16, 512, 128, 1 KiB). Zone offsets map to
 * the rank row-interleaved: one rank row (row_bytes * devices) per bank,
 * banks in turn, then the next row. So the pages of one bank and sub-array
 * recur every rank-row * banks bytes (128 KiB with the paper's numbers) for
 * rows * that (16 MiB), and a zone has banks * size / 16 MiB sub-arrays.
 *
 * All sizes are powers of two, so every mapping is shifts and masks.
 */
#ifndef _EDM_NETDIMM_GEOM_H
#define _EDM_NETDIMM_GEOM_H

#include "edm/core.h"

/* The paper's geometry, the default of every zone. */
enum {
	EDM_NETDIMM_ROW_BYTES = 1024,
	EDM_NETDIMM_DEVICES = 8,
	EDM_NETDIMM_BANKS = 16,
	EDM_NETDIMM_SUBARRAYS = 512,
	EDM_NETDIMM_ROWS = 128,
};

/* How a clone is done inside the DIMM (RowClone, via NetDIMM section 4.1). */
enum edm_netdimm_clone_mode {
	EDM_NETDIMM_FPM,		/* same bank and sub-array: two activations */
	EDM_NETDIMM_PSM,		/* same rank, another bank: over the chip bus */
	EDM_NETDIMM_PSM2,		/* same bank, another sub-array: two PSM hops */
	EDM_NETDIMM_GCM,		/* other rank or outside the zone: via the buffer */

	EDM_NETDIMM_CLONE_MODES
};

/*
 * Modeled time of cloning 4 KiB in each mode, in picoseconds: RowClone's
 * figures (Seshadri et al., MICRO 2013) for DDR3-1066, FPM 90 ns, PSM
 * 540 ns across banks and 1050 ns within a bank, and the ~1 us of a
 * copy through the memory channel that the NetDIMM paper quotes for GCM.
 */
enum {
	EDM_NETDIMM_FPM_PS_4K = 90000,
	EDM_NETDIMM_PSM_PS_4K = 540000,
	EDM_NETDIMM_PSM2_PS_4K = 1050000,
	EDM_NETDIMM_GCM_PS_4K = 1046000,
};

struct edm_netdimm_geom {
	u32 row_bytes, devices, banks, subarrays, rows;
	/* Derived by edm_netdimm_geom_init(). */
	u32 rank_row_shift;	/* log2(row_bytes * devices) */
	u32 bank_shift;		/* log2(banks) */
	u32 period_shift;	/* log2(rank row * banks): one row of every bank */
	u32 span_shift;		/* log2(period * rows): one sub-array of every bank */
	u32 rank_shift;		/* log2(span * subarrays): one rank */
};

/* Where an offset lies in the rank. */
struct edm_netdimm_loc {
	u64 rank;
	u32 bank, subarray, row;
};

int edm_netdimm_geom_init(struct edm_netdimm_geom *g, u32 row_bytes, u32 devices, u32 banks,
			  u32 subarrays, u32 rows, u32 page_shift);
void edm_netdimm_geom_locate(const struct edm_netdimm_geom *g, u64 off,
			     struct edm_netdimm_loc *loc);
u64 edm_netdimm_subarray_id(const struct edm_netdimm_geom *g, u64 off);
u64 edm_netdimm_subarray_count(const struct edm_netdimm_geom *g, u64 zone_size);
u64 edm_netdimm_subarray_pages(const struct edm_netdimm_geom *g, u32 page_shift);
u64 edm_netdimm_subarray_page(const struct edm_netdimm_geom *g, u64 id, u64 k, u32 page_shift);
u64 edm_netdimm_find_free(const struct edm_netdimm_geom *g, const unsigned long *map, u64 npages,
			  u64 base, u64 id, u32 page_shift);
enum edm_netdimm_clone_mode edm_netdimm_clone_mode(const struct edm_netdimm_geom *g, u64 dst,
						   u64 src);
u64 edm_netdimm_clone_cost_ps(enum edm_netdimm_clone_mode mode, u64 len);

#endif /* _EDM_NETDIMM_GEOM_H */
