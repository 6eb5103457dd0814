// SPDX-License-Identifier: GPL-2.0
/*
 * NETi zone geometry (see include/edm/netdimm_geom.h), a kernel-agnostic core:
 * maps zone offsets to bank and sub-array, enumerates the pages of one
 * sub-array, and classifies and costs clones. Pure functions, no locking.
 */
#include "edm/netdimm_geom.h"

static bool edm_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

static u32 edm_log2(u64 v)
{
	u32 n = 0;

	while (v >>= 1)
		n++;
	return n;
}

/*
 * A rank row must hold whole pages (a page never straddles two banks) and
 * a rank must fit the 64-bit offset space with room to spare.
 */
int edm_netdimm_geom_init(struct edm_netdimm_geom *g, u32 row_bytes, u32 devices, u32 banks,
			  u32 subarrays, u32 rows, u32 page_shift)
{
	if (!edm_pow2(row_bytes) || !edm_pow2(devices) || !edm_pow2(banks) ||
	    !edm_pow2(subarrays) || !edm_pow2(rows))
		return -EINVAL;
	g->row_bytes = row_bytes;
	g->devices = devices;
	g->banks = banks;
	g->subarrays = subarrays;
	g->rows = rows;
	g->rank_row_shift = edm_log2(row_bytes) + edm_log2(devices);
	if (g->rank_row_shift < page_shift)
		return -ERANGE;
	g->bank_shift = edm_log2(banks);
	g->period_shift = g->rank_row_shift + g->bank_shift;
	g->span_shift = g->period_shift + edm_log2(rows);
	g->rank_shift = g->span_shift + edm_log2(subarrays);
	if (g->rank_shift > 48)
		return -ERANGE;
	return 0;
}

void edm_netdimm_geom_locate(const struct edm_netdimm_geom *g, u64 off, struct edm_netdimm_loc *loc)
{
	loc->rank = off >> g->rank_shift;
	loc->bank = (off >> g->rank_row_shift) & (g->banks - 1);
	loc->row = (off >> g->period_shift) & (g->rows - 1);
	loc->subarray = (off >> g->span_shift) & (g->subarrays - 1);
}

/*
 * A zone-wide sub-array number, dense from 0: the span index (rank and
 * sub-array together) times the banks, plus the bank.
 */
u64 edm_netdimm_subarray_id(const struct edm_netdimm_geom *g, u64 off)
{
	u64 bank = (off >> g->rank_row_shift) & (g->banks - 1);

	return ((off >> g->span_shift) << g->bank_shift) | bank;
}

/*
 * Distinct sub-arrays that offsets [0, zone_size) touch; their IDs are
 * exactly 0 .. count - 1. A zone smaller than one period reaches only
 * the first banks.
 */
u64 edm_netdimm_subarray_count(const struct edm_netdimm_geom *g, u64 zone_size)
{
	u64 rank_row = 1ULL << g->rank_row_shift;
	u64 span = 1ULL << g->span_shift;

	if (zone_size < (1ULL << g->period_shift))
		return (zone_size + rank_row - 1) >> g->rank_row_shift;
	return ((zone_size + span - 1) >> g->span_shift) << g->bank_shift;
}

/* Pages of one sub-array: every row of it, each a rank row of pages. */
u64 edm_netdimm_subarray_pages(const struct edm_netdimm_geom *g, u32 page_shift)
{
	return (u64)g->rows << (g->rank_row_shift - page_shift);
}

/* Offset of page @k (< edm_netdimm_subarray_pages()) of sub-array @id. */
u64 edm_netdimm_subarray_page(const struct edm_netdimm_geom *g, u64 id, u64 k, u32 page_shift)
{
	u32 per_row_shift = g->rank_row_shift - page_shift;
	u64 span = id >> g->bank_shift;
	u64 bank = id & (g->banks - 1);
	u64 row = k >> per_row_shift;
	u64 in_row = k & ((1ULL << per_row_shift) - 1);

	return (span << g->span_shift) | (row << g->period_shift) |
	       (bank << g->rank_row_shift) | (in_row << page_shift);
}

/*
 * The first free page of sub-array @id among @npages pages starting at zone
 * offset @base, whose use bitmap is @map (bit i set: page base + i in use).
 * Returns its index from @base, or @npages if the sub-array has no free
 * page there. This is the search of the sub-array aware allocator; the
 * kernel calls it as a genalloc algorithm, one chunk at a time.
 */
u64 edm_netdimm_find_free(const struct edm_netdimm_geom *g, const unsigned long *map, u64 npages,
			  u64 base, u64 id, u32 page_shift)
{
	const u32 bpl = 8 * sizeof(unsigned long);
	u64 n = edm_netdimm_subarray_pages(g, page_shift);
	u64 end = base + (npages << page_shift);
	u64 k;

	/* Most chunks hold none of the sub-array's pages: say so at once. */
	if (edm_netdimm_subarray_page(g, id, n - 1, page_shift) < base ||
	    edm_netdimm_subarray_page(g, id, 0, page_shift) >= end)
		return npages;
	for (k = 0; k < n; k++) {
		u64 off = edm_netdimm_subarray_page(g, id, k, page_shift);
		u64 i;

		if (off < base)
			continue;
		if (off >= end)
			break;
		i = (off - base) >> page_shift;
		if (!((map[i / bpl] >> (i % bpl)) & 1))
			return i;
	}
	return npages;
}

enum edm_netdimm_clone_mode edm_netdimm_clone_mode(const struct edm_netdimm_geom *g, u64 dst,
						   u64 src)
{
	struct edm_netdimm_loc d, s;

	edm_netdimm_geom_locate(g, dst, &d);
	edm_netdimm_geom_locate(g, src, &s);
	if (d.rank != s.rank)
		return EDM_NETDIMM_GCM;
	if (d.bank != s.bank)
		return EDM_NETDIMM_PSM;
	return d.subarray == s.subarray ? EDM_NETDIMM_FPM : EDM_NETDIMM_PSM2;
}

/* Modeled time of cloning @len bytes, in whole 64-byte lines. */
u64 edm_netdimm_clone_cost_ps(enum edm_netdimm_clone_mode mode, u64 len)
{
	static const u64 per_4k[EDM_NETDIMM_CLONE_MODES] = {
		[EDM_NETDIMM_FPM] = EDM_NETDIMM_FPM_PS_4K,
		[EDM_NETDIMM_PSM] = EDM_NETDIMM_PSM_PS_4K,
		[EDM_NETDIMM_PSM2] = EDM_NETDIMM_PSM2_PS_4K,
		[EDM_NETDIMM_GCM] = EDM_NETDIMM_GCM_PS_4K,
	};
	u64 lines = (len + 63) >> 6;

	if (mode >= EDM_NETDIMM_CLONE_MODES)
		mode = EDM_NETDIMM_GCM;
	return (per_4k[mode] * lines) >> 6;
}
