// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: random alloc / free / pass / check / apply / flush
 * sequences against the memory pool core (dfabric/pool_core.c), each checked
 * against the reference model in pool_ref.h: every return value, every
 * Section's state, owner, class and free count, and every counter, after
 * every call. The first bytes pick the pool's shape (Sections, Region size,
 * nodes, locations, classes, keep, quota) and its Regions; then each 8 bytes
 * are one operation. The pool block is an exact-size heap block of garbage,
 * so ASan sees any access past it and init must write all it reads.
 */
#include <stdlib.h>
#include <string.h>

#include "pool_ref.h"

static struct ref_pool m;

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct edm_pool_cfg cfg;
	struct edm_pool *p;
	size_t i, sz;
	u32 r, first;

	if (size < 8)
		return 0;
	cfg.nsections = 1 + data[0] % 12;
	cfg.region_sections = 1 + data[1] % 6;
	cfg.max_regions = 1 + data[2] % 4;
	while ((u64)cfg.max_regions * cfg.region_sections > REF_MAXFAS)
		cfg.max_regions--;
	cfg.nnodes = 1 + data[3] % REF_MAXNODES;
	cfg.nlocs = 1 + data[4] % 3;
	cfg.min_shift = 8 + data[5] % 14;
	cfg.max_shift = cfg.min_shift + data[6] % (22 - cfg.min_shift);
	cfg.keep = data[7] % 3;
	cfg.node_quota = data[7] >> 6;
	sz = edm_pool_size(&cfg);
	if (!sz)
		abort();
	p = malloc(sz);
	if (!p)
		return 0;
	memset(p, data[0], sz);
	if (edm_pool_init(p, &cfg))
		abort();
	ref_init(&m, &cfg);
	/* Regions: as many as fit, from the following bytes' shapes. */
	first = 0;
	for (r = 0, i = 8; r < cfg.max_regions + 1 && i + 2 <= size; r++, i += 2) {
		u32 count = 1 + data[i] % cfg.region_sections, loc = data[i + 1] % (cfg.nlocs + 1);

		if (data[i + 1] & 0x80)
			first = data[i + 1] % cfg.nsections;	/* maybe overlapping */
		if (ref_region_add(&m, loc, first, count) !=
		    edm_pool_region_add(p, loc, first, count))
			abort();
		first += count;
		if (first >= cfg.nsections)
			break;
	}
	ref_compare(&m, p);
	for (i += 2; i + 8 <= size; i += 8)
		ref_step(&m, p, data + i);
	for (r = 0; r < cfg.nnodes; r++)
		ref_flush(&m, p, r);
	ref_compare(&m, p);
	free(p);
	return 0;
}
