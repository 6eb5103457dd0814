// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory clone engine, edm_netdimm_clone() (the paper's
 * neti_clone()): picks the RowClone mode that the geometry allows for each
 * page-sized piece (FPM within a sub-array, PSM within a rank, GCM
 * otherwise or when one side is outside the zone),
 * counts it, and adds its modeled DRAM time. The bytes themselves move by
 * memcpy: no dmaengine memcpy channel is wired up yet. Lock-free: per-CPU
 * counters only.
 */
#include <linux/highmem.h>
#include <linux/mm.h>

#include "zone.h"

static void edm_netdimm_clone_count(struct edm_netdimm_zone *z,
				    enum edm_netdimm_clone_mode mode, u32 len)
{
	static const int attr[EDM_NETDIMM_CLONE_MODES] = {
		[EDM_NETDIMM_FPM] = EDM_A_NDSTAT_CLONE_FPM,
		[EDM_NETDIMM_PSM] = EDM_A_NDSTAT_CLONE_PSM,
		[EDM_NETDIMM_PSM2] = EDM_A_NDSTAT_CLONE_PSM,
		[EDM_NETDIMM_GCM] = EDM_A_NDSTAT_CLONE_GCM,
	};

	edm_netdimm_stat_inc(z->ctrs, attr[mode]);
	edm_netdimm_stat_add(z->ctrs, EDM_A_NDSTAT_CLONE_BYTES, len);
	/* kept in picoseconds; reported in nanoseconds */
	edm_netdimm_stat_add(z->ctrs, EDM_A_NDSTAT_CLONE_MODELED_NS,
			     edm_netdimm_clone_cost_ps(mode, len));
}

void edm_netdimm_clone(struct edm_netdimm_zone *z, struct page *dst, u32 doff, struct page *src,
		       u32 soff, u32 len)
{
	while (len) {
		u32 n = min3(len, (u32)PAGE_SIZE - (doff & ~PAGE_MASK),
			     (u32)PAGE_SIZE - (soff & ~PAGE_MASK));
		struct page *d = dst + (doff >> PAGE_SHIFT);
		struct page *s = src + (soff >> PAGE_SHIFT);
		s64 doffz = edm_netdimm_page_off(z, d);
		s64 soffz = edm_netdimm_page_off(z, s);
		enum edm_netdimm_clone_mode mode = EDM_NETDIMM_GCM;

		if (doffz >= 0 && soffz >= 0)
			mode = edm_netdimm_clone_mode(&z->geom, doffz, soffz);
		edm_netdimm_clone_count(z, mode, n);
		memcpy_page(d, doff & ~PAGE_MASK, s, soff & ~PAGE_MASK, n);
		doff += n;
		soff += n;
		len -= n;
	}
}
