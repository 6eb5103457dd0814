// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the memory pool core (dfabric/pool_core.c). Geometry is worked by
 * hand: a FAS reference is section << 21 | offset, so FAS Section 5 starts
 * at 0xa00000; a 2 KB class has 1024 Buffers per 2 MB Section, 64 KB has 32.
 * The randomized test runs the core against the reference model in
 * pool_ref.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pool_ref.h"

enum { MB2 = 1 << 21 };

static struct edm_pool *pool_new(const struct edm_pool_cfg *cfg)
{
	size_t sz = edm_pool_size(cfg);
	void *mem = sz ? malloc(sz) : NULL;

	if (!mem)
		return NULL;
	memset(mem, 0xa5, sz);		/* init must not rely on zeroed memory */
	if (edm_pool_init(mem, cfg)) {
		free(mem);
		return NULL;
	}
	return mem;
}

/* 8 physical Sections, Regions of 4, 3 Regions of FAS, 3 nodes, 2 locations. */
static void cfg_small(struct edm_pool_cfg *cfg)
{
	edm_pool_cfg_default(cfg, 8, 3);
	cfg->region_sections = 4;
	cfg->max_regions = 3;
	cfg->nlocs = 2;
}

FIXTURE(pool) {
	struct edm_pool_cfg cfg;
	struct edm_pool *p;
};

/* Region 0: loc 0 on phys 4..7 (FAS 0..3); Region 1: loc 1 on phys 0..1 (FAS 4, 5). */
FIXTURE_SETUP(pool)
{
	cfg_small(&self->cfg);
	self->p = pool_new(&self->cfg);
	ASSERT_NE(NULL, self->p);
	ASSERT_EQ(0, edm_pool_region_add(self->p, 0, 4, 4));
	ASSERT_EQ(1, edm_pool_region_add(self->p, 1, 0, 2));
}

FIXTURE_TEARDOWN(pool)
{
	free(self->p);
}

TEST(config_is_checked_and_sized_by_hand)
{
	struct edm_pool_cfg cfg, bad;
	size_t want;

	edm_pool_cfg_default(&cfg, 1024, 4);
	EXPECT_EQ(512U, cfg.region_sections);
	EXPECT_EQ(2U, cfg.max_regions);
	EXPECT_EQ(8U, cfg.min_shift);
	EXPECT_EQ(16U, cfg.max_shift);
	EXPECT_EQ(1U, cfg.keep);
	EXPECT_EQ(0, edm_pool_cfg_check(&cfg));

	bad = cfg; bad.nsections = 0;
	EXPECT_EQ(0ULL, edm_pool_size(&bad));
	bad = cfg; bad.nsections = EDM_POOL_MAX_SECTIONS + 1;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.region_sections = 0;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.max_regions = 0;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.max_regions = (EDM_POOL_MAX_FAS / 512) + 1;	/* FAS too big */
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.max_regions = 0x80000000U;	/* * 512 wraps a u32 to 0 */
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.nnodes = 256;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.nlocs = 17;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.min_shift = 7;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.max_shift = 22;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));
	bad = cfg; bad.min_shift = 12; bad.max_shift = 11;
	EXPECT_EQ(-EINVAL, edm_pool_cfg_check(&bad));

	/*
	 * 4 Sections, Regions of 2, 2 Regions, 2 nodes, 1 location, 256 B..64 KB:
	 * 9 classes; 8192 Buffers a Section, so 128 map words and 2 summary
	 * words; a Section's metadata is 4 u32 + 4 u8 = 20 bytes.
	 */
	cfg = (struct edm_pool_cfg){ .nsections = 4, .region_sections = 2, .max_regions = 2,
				     .nnodes = 2, .nlocs = 1, .min_shift = 8, .max_shift = 16 };
	want = sizeof(struct edm_pool) + 2 * sizeof(struct edm_pool_node_stats) +
	       80 +			/* sections */
	       16 +			/* FAS table, 4 u32 */
	       8 +			/* free heads, 1 u32 rounded up */
	       72 + 72 +		/* 2 * 9 * 1 list heads and empty counts */
	       4 * 128 * 8 +		/* free bitmaps */
	       4 * 2 * 8 +		/* summaries */
	       4 * 8192;		/* holders */
	EXPECT_EQ(want, edm_pool_size(&cfg));
	/* 64 KB minimum: 32 Buffers, one map word, one summary word, 32 holders. */
	cfg.min_shift = 16;
	want = sizeof(struct edm_pool) + 2 * sizeof(struct edm_pool_node_stats) + 80 + 16 + 8 +
	       8 + 8 + 4 * 8 + 4 * 8 + 4 * 32;
	EXPECT_EQ(want, edm_pool_size(&cfg));
}

TEST_F(pool, size_classes_are_powers_of_two)
{
	struct edm_pool *p = self->p;

	EXPECT_EQ(9U, p->nclasses);
	EXPECT_EQ(-EINVAL, edm_pool_class(p, 0));
	EXPECT_EQ(0, edm_pool_class(p, 1));
	EXPECT_EQ(0, edm_pool_class(p, 256));
	EXPECT_EQ(1, edm_pool_class(p, 257));
	EXPECT_EQ(3, edm_pool_class(p, 1500));	/* an Ethernet frame: 2 KB */
	EXPECT_EQ(3, edm_pool_class(p, 2048));
	EXPECT_EQ(8, edm_pool_class(p, 65536));
	EXPECT_EQ(-E2BIG, edm_pool_class(p, 65537));
	EXPECT_EQ(-E2BIG, edm_pool_class(p, ~0ULL));
	EXPECT_EQ(256U, edm_pool_class_size(p, 0));
	EXPECT_EQ(65536U, edm_pool_class_size(p, 8));
	EXPECT_EQ(0U, edm_pool_class_size(p, 9));
}

TEST_F(pool, regions_number_the_fas)
{
	struct edm_pool *p = self->p;

	EXPECT_EQ(6U, p->stats.sections_mapped);
	EXPECT_EQ(6U, p->stats.sections_free);
	/* Region 0 is FAS 0..3 on phys 4..7, Region 1 FAS 4..5 on phys 0..1. */
	EXPECT_EQ(4U, edm_pool_fas_to_phys(p, 0));
	EXPECT_EQ(7U, edm_pool_fas_to_phys(p, 3ULL * MB2 + MB2 - 1));
	EXPECT_EQ(0U, edm_pool_fas_to_phys(p, 4ULL * MB2));
	EXPECT_EQ(1U, edm_pool_fas_to_phys(p, 0xa00000 + 100));
	EXPECT_EQ(0xa00064ULL, edm_pool_ref(5, 100));
	EXPECT_EQ(5U, edm_pool_sec_fas(p, 1));
	EXPECT_EQ(1U, edm_pool_sec_loc(p, 1));
	EXPECT_EQ(0U, edm_pool_sec_loc(p, 4));
	/* FAS 6 and 7 are the hole of the partly backed Region 1. */
	EXPECT_EQ(EDM_POOL_NONE, edm_pool_fas_to_phys(p, 6ULL * MB2));
	/* Region 2 (FAS 8..11) is not mapped yet, FAS 12 is past the FAS. */
	EXPECT_EQ(EDM_POOL_NONE, edm_pool_fas_to_phys(p, 8ULL * MB2));
	EXPECT_EQ(EDM_POOL_NONE, edm_pool_fas_to_phys(p, 12ULL * MB2));
	/* FAS 2^32 + 5 would alias FAS 5 if the number were cut to 32 bits. */
	EXPECT_EQ(EDM_POOL_NONE, edm_pool_fas_to_phys(p, (1ULL << 53) + 0xa00000));
	EXPECT_EQ(EDM_POOL_NONE, edm_pool_fas_to_phys(p, ~0ULL));
	EXPECT_EQ((u32)EDM_POOL_SEC_UNMAPPED, edm_pool_sec_state(p, 2));

	EXPECT_EQ(-EEXIST, edm_pool_region_add(p, 0, 1, 2));	/* phys 1 is mapped */
	EXPECT_EQ(-EINVAL, edm_pool_region_add(p, 0, 7, 2));	/* past phys 7 */
	EXPECT_EQ(-EINVAL, edm_pool_region_add(p, 0, ~0U, 2));	/* would wrap */
	EXPECT_EQ(-EINVAL, edm_pool_region_add(p, 0, 2, 5));	/* more than N */
	EXPECT_EQ(-EINVAL, edm_pool_region_add(p, 0, 2, 0));
	EXPECT_EQ(-EINVAL, edm_pool_region_add(p, 2, 2, 2));	/* no location 2 */
	EXPECT_EQ(6U, p->stats.sections_mapped);
	EXPECT_EQ(2, edm_pool_region_add(p, 0, 2, 2));
	EXPECT_EQ(3U, edm_pool_fas_to_phys(p, 9ULL * MB2));
	EXPECT_EQ(-ENOSPC, edm_pool_region_add(p, 0, 2, 2));	/* 3 Regions max */
}

TEST_F(pool, alloc_takes_buffers_in_order_from_the_preferred_location)
{
	struct edm_pool *p = self->p;
	struct edm_pool_buf b;
	u64 r0, r1, r2;

	/* Location 1's first free Section is phys 0, FAS 4 (0x800000). */
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 1500, 1, 0, &r0));
	EXPECT_EQ(0x800000ULL, r0);
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 2000, 1, 0, &r1));
	EXPECT_EQ(0x800800ULL, r1);
	ASSERT_EQ(0, edm_pool_ref_resolve(p, 0, r1 + 5, 10, &b));
	EXPECT_EQ(0U, b.phys);
	EXPECT_EQ(2048U, b.start);
	EXPECT_EQ(2048U, b.size);
	EXPECT_EQ(2053U, b.off);
	EXPECT_EQ(0U, edm_pool_sec_owner(p, 0));
	EXPECT_EQ(3U, edm_pool_sec_class(p, 0));
	EXPECT_EQ(1022U, edm_pool_sec_nfree(p, 0));
	/* Another class gets its own Section; location 0's first is phys 4, FAS 0. */
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 64, 0, 0, &r2));
	EXPECT_EQ(0ULL, r2);
	EXPECT_EQ(0U, edm_pool_sec_class(p, 4));
	EXPECT_EQ(2U, p->node[0].sections);
	EXPECT_EQ(2ULL, p->cls[3].in_use);
	EXPECT_EQ(1ULL, p->cls[0].in_use);
	EXPECT_EQ(3ULL, p->node[0].held);
	EXPECT_EQ(4U, p->stats.sections_free);
	/* A preference for location 0 applies a new Section there... */
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 2048, 0, 0, &r2));
	EXPECT_EQ(1U * MB2, r2);				/* FAS 1, phys 5 */
	/* ...and with no preference the node's existing Sections come first. */
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 2048, EDM_POOL_LOC_ANY, 0, &r2));
	EXPECT_EQ(3U, p->node[0].sections);
	EXPECT_EQ(-EINVAL, edm_pool_alloc(p, 3, 2048, 0, 0, &r2));
	EXPECT_EQ(-EINVAL, edm_pool_alloc(p, 0, 2048, 2, 0, &r2));
	EXPECT_EQ(-EINVAL, edm_pool_alloc(p, 0, 0, 0, 0, &r2));
	EXPECT_EQ(-E2BIG, edm_pool_alloc(p, 0, 65537, 0, 0, &r2));
}

TEST_F(pool, exhaustion_is_enomem_and_changes_nothing)
{
	struct edm_pool *p = self->p;
	u64 refs[32 * 6], r;
	u32 i;

	/* 64 KB Buffers: 32 per Section, 6 Sections mapped. */
	for (i = 0; i < 32 * 6; i++)
		ASSERT_EQ(0, edm_pool_alloc(p, i % 3, 65536, EDM_POOL_LOC_ANY, 0, &refs[i]));
	EXPECT_EQ(0U, p->stats.sections_free);
	EXPECT_EQ(-ENOMEM, edm_pool_alloc(p, 0, 65536, EDM_POOL_LOC_ANY, 0, &r));
	EXPECT_EQ(-ENOMEM, edm_pool_alloc(p, 1, 256, 0, 0, &r));
	EXPECT_EQ(-ENOMEM, edm_pool_apply(p, 2, 0, EDM_POOL_LOC_ANY, 0));
	EXPECT_EQ(3ULL, p->stats.enomem);
	EXPECT_EQ(1ULL, p->node[0].enomem);
	EXPECT_EQ(1ULL, p->node[2].enomem);
	EXPECT_EQ(192ULL, p->cls[8].in_use);
	EXPECT_EQ(6U, p->cls[8].sections);
	/* Every Buffer is still where it was, held by whom it was. */
	for (i = 0; i < 32 * 6; i++) {
		EXPECT_EQ(0, edm_pool_ref_check(p, i % 3, refs[i], 65536));
		EXPECT_EQ(-EACCES, edm_pool_ref_check(p, (i + 1) % 3, refs[i], 1));
	}
	/* One free makes room again, in the Section it came from. */
	ASSERT_EQ(0, edm_pool_free(p, 1, refs[7]));
	ASSERT_EQ(0, edm_pool_alloc(p, 1, 65536, EDM_POOL_LOC_ANY, 0, &r));
	EXPECT_EQ(refs[7], r);
}

TEST_F(pool, strict_location_and_quota)
{
	struct edm_pool *p = self->p;
	u64 r;
	u32 i;

	/* Location 1 has 2 Sections of 32 x 64 KB. */
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, edm_pool_alloc(p, 0, 65536, 1, EDM_POOL_F_STRICT, &r));
	EXPECT_EQ(-ENOMEM, edm_pool_alloc(p, 0, 65536, 1, EDM_POOL_F_STRICT, &r));
	EXPECT_EQ(-ENOMEM, edm_pool_apply(p, 1, 0, 1, EDM_POOL_F_STRICT));
	/* Without STRICT it falls back to location 0. */
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 65536, 1, 0, &r));
	EXPECT_EQ(0ULL, r);			/* FAS 0, phys 4 */
	EXPECT_EQ(0U, edm_pool_sec_loc(p, 4));
	EXPECT_EQ(5, edm_pool_apply(p, 1, 0, 1, 0));	/* phys 5, location 0 */
	EXPECT_EQ(2ULL, p->stats.enomem);

	/* A quota of 2 Sections per node. */
	p->cfg.node_quota = 2;
	EXPECT_EQ(-ENOMEM, edm_pool_apply(p, 0, 1, 0, 0));	/* node 0 holds 3 */
	EXPECT_EQ(6, edm_pool_apply(p, 1, 1, 0, 0));
	EXPECT_EQ(-ENOMEM, edm_pool_alloc(p, 1, 4096, 0, 0, &r));
	EXPECT_EQ(0, edm_pool_alloc(p, 2, 4096, 0, 0, &r));
	EXPECT_EQ(-EINVAL, edm_pool_apply(p, 0, 9, 0, 0));
	EXPECT_EQ(-EINVAL, edm_pool_apply(p, 3, 0, 0, 0));
}

/*
 * Node 1 fills a 2 KB Section (FAS 4), keeps Buffer 1, frees 0 and 2..1022,
 * and passes 1023, the Section's last, to node 0.
 */
static u64 setup_edges(struct edm_pool *p, u64 *last)
{
	u64 r;
	u32 i;

	for (i = 0; i < 1024; i++)
		if (edm_pool_alloc(p, 1, 2048, 1, 0, &r))
			return 0;
	*last = r;
	for (r = 0x800000; r < *last; r += 2048)
		if (r != 0x800800 && edm_pool_free(p, 1, r))
			return 0;
	if (edm_pool_pass(p, 1, 0, *last, 2048))
		return 0;
	return 0x800800;
}

TEST_F(pool, reference_check_edges)
{
	struct edm_pool *p = self->p;
	u64 last, b = setup_edges(p, &last);

	ASSERT_EQ(0x800800ULL, b);
	ASSERT_EQ(0x800000ULL + MB2 - 2048, last);
	/* Inside: the first byte, all of it, the last byte. */
	EXPECT_EQ(0, edm_pool_ref_check(p, 1, b, 1));
	EXPECT_EQ(0, edm_pool_ref_check(p, 1, b, 2048));
	EXPECT_EQ(0, edm_pool_ref_check(p, 1, b + 2047, 1));
	EXPECT_EQ(0, edm_pool_ref_check(p, 1, b + 1000, 1048));
	/* One byte past the end, however it is reached. */
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 1, b, 2049));
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 1, b + 2047, 2));
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 1, b + 1, 2048));
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 1, b + 1000, 1049));
	/* A length that wraps a 32-bit off + len to 1047 must not pass. */
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 1, b + 1000, 0xffffffffU));
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 1, b + 1000, 0xffffffffU - 2000 + 1));
	/* Neighbours: the freed Buffer before, the free one after. */
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 1, b - 1, 1));
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 1, b - 2048, 1));
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 1, b + 2048, 1));
	/* Another node's Buffer, and node 0's own at the Section's end. */
	EXPECT_EQ(-EACCES, edm_pool_ref_check(p, 0, b, 1));
	EXPECT_EQ(-EACCES, edm_pool_ref_check(p, 2, b + 2047, 1));
	EXPECT_EQ(0, edm_pool_ref_check(p, 0, last + 2047, 1));
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 0, last + 2047, 2));
	/* The next FAS Section, 5, is mapped but not applied to anyone. */
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 0, last + 2048, 1));
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 0, 5ULL * MB2 + MB2 - 1, 1));
	/* FAS 6 is the hole of the partly backed Region 1. */
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 0, 6ULL * MB2, 1));
	/* Bad node, empty length. */
	EXPECT_EQ(-EINVAL, edm_pool_ref_check(p, 3, b, 1));
	EXPECT_EQ(-EINVAL, edm_pool_ref_check(p, 1, b, 0));
	/* Overflow of section * size: each would alias b if cut or wrapped. */
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 1, b + (1ULL << 53), 1));
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 1, b + (1ULL << 63), 1));
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 1, b + (12ULL << 21), 1));
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 1, ~0ULL, 1));
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 1, 0xffffffffffe00000ULL + 0x800, 1));

	EXPECT_EQ(5ULL, p->stats.checked);
	EXPECT_EQ(7ULL, p->stats.refused[EDM_POOL_REF_RANGE]);
	EXPECT_EQ(5ULL, p->stats.refused[EDM_POOL_REF_FREE]);
	EXPECT_EQ(2ULL, p->stats.refused[EDM_POOL_REF_DENIED]);
	EXPECT_EQ(6ULL, p->stats.refused[EDM_POOL_REF_FAULT]);
	EXPECT_EQ(2ULL, p->stats.refused[EDM_POOL_REF_INVAL]);

	/* A freed Buffer is refused, and cannot be freed again. */
	ASSERT_EQ(0, edm_pool_free(p, 1, b + 100));
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 1, b, 1));
	EXPECT_EQ(-ENOENT, edm_pool_free(p, 1, b));
	EXPECT_EQ(-ENOENT, edm_pool_pass(p, 1, 0, b, 1));
}

TEST_F(pool, pass_by_reference_moves_the_holding)
{
	struct edm_pool *p = self->p;
	u64 r;

	ASSERT_EQ(0, edm_pool_alloc(p, 0, 9000, 0, 0, &r));	/* 16 KB class */
	EXPECT_EQ(0, edm_pool_pass(p, 0, 2, r + 14, 9000));
	EXPECT_EQ(-EACCES, edm_pool_ref_check(p, 0, r, 1));
	EXPECT_EQ(0, edm_pool_ref_check(p, 2, r, 16384));
	/* The sender no longer may pass or free it. */
	EXPECT_EQ(-EACCES, edm_pool_pass(p, 0, 1, r, 1));
	EXPECT_EQ(-EACCES, edm_pool_free(p, 0, r));
	/* Refused passes leave the holder alone. */
	EXPECT_EQ(-EINVAL, edm_pool_pass(p, 2, 3, r, 1));
	EXPECT_EQ(-ERANGE, edm_pool_pass(p, 2, 1, r + 1, 16384));
	EXPECT_EQ(-EINVAL, edm_pool_pass(p, 2, 1, r, 0));
	EXPECT_EQ(0, edm_pool_ref_check(p, 2, r, 1));
	EXPECT_EQ(0ULL, p->node[0].held);
	EXPECT_EQ(1ULL, p->node[2].held);
	EXPECT_EQ(1ULL, p->node[0].passed_out);
	EXPECT_EQ(1ULL, p->node[2].passed_in);
	EXPECT_EQ(1ULL, p->stats.passes);
	/* Back and forth, then the receiver frees it into node 0's Section. */
	EXPECT_EQ(0, edm_pool_pass(p, 2, 1, r, 1));
	EXPECT_EQ(0, edm_pool_free(p, 1, r));
	EXPECT_EQ(0U, edm_pool_sec_owner(p, 4));
	EXPECT_EQ(128U, edm_pool_sec_nfree(p, 4));
	EXPECT_EQ(0ULL, p->cls[6].in_use);
	EXPECT_EQ(1ULL, p->node[1].frees);
}

TEST_F(pool, empty_sections_go_back_past_keep)
{
	struct edm_pool *p = self->p;
	u64 a[32], b;
	u32 i;

	/* Node 0 fills one 64 KB Section (phys 4), then starts another (phys 5). */
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, edm_pool_alloc(p, 0, 65536, 0, 0, &a[i]));
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 65536, 0, 0, &b));
	EXPECT_EQ(1ULL * MB2, b);
	/* Emptying phys 5 keeps it (keep = 1)... */
	ASSERT_EQ(0, edm_pool_free(p, 0, b));
	EXPECT_EQ((u32)EDM_POOL_SEC_APPLIED, edm_pool_sec_state(p, 5));
	/* ...and a full Section rejoins the list ahead of the empty one. */
	ASSERT_EQ(0, edm_pool_free(p, 0, a[3]));
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 65536, 0, 0, &b));
	EXPECT_EQ(a[3], b);
	/* Emptying phys 4 too makes two empties: phys 4 goes back to the LPPU. */
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, edm_pool_free(p, 0, a[i]));
	EXPECT_EQ((u32)EDM_POOL_SEC_FREE, edm_pool_sec_state(p, 4));
	EXPECT_EQ((u32)EDM_POOL_SEC_APPLIED, edm_pool_sec_state(p, 5));
	EXPECT_EQ(1U, p->node[0].sections);
	EXPECT_EQ(2U, p->node[0].sections_max);
	EXPECT_EQ(1ULL, p->node[0].released);
	/* With keep = 0 the last free gives the Section back at once. */
	p->cfg.keep = 0;
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 65536, 0, 0, &b));
	ASSERT_EQ(0, edm_pool_free(p, 0, b));
	EXPECT_EQ(0U, p->node[0].sections);
	EXPECT_EQ(6U, p->stats.sections_free);
}

TEST_F(pool, node_flush_frees_what_it_holds)
{
	struct edm_pool *p = self->p;
	u64 mine[3], theirs, lent;
	u32 i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, edm_pool_alloc(p, 0, 4096, 0, 0, &mine[i]));
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 4096, 0, 0, &lent));
	ASSERT_EQ(0, edm_pool_pass(p, 0, 1, lent, 1));
	ASSERT_EQ(0, edm_pool_alloc(p, 1, 4096, 1, 0, &theirs));
	ASSERT_EQ(0, edm_pool_pass(p, 1, 0, theirs, 1));
	/* A pre-applied, unused Section (the daemon's, 4.1). */
	ASSERT_EQ(5, edm_pool_apply(p, 0, 2, 0, 0));
	EXPECT_EQ(4U, edm_pool_node_flush(p, 0));
	EXPECT_EQ(0ULL, p->node[0].held);
	EXPECT_EQ(1ULL, p->node[1].held);
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 0, mine[0], 1));
	EXPECT_EQ(-ENOENT, edm_pool_ref_check(p, 0, theirs, 1));
	EXPECT_EQ(0, edm_pool_ref_check(p, 1, lent, 4096));
	/* phys 4 still holds node 1's Buffer; the empty phys 5 went back. */
	EXPECT_EQ(0U, edm_pool_sec_owner(p, 4));
	EXPECT_EQ((u32)EDM_POOL_SEC_FREE, edm_pool_sec_state(p, 5));
	EXPECT_EQ(1U, p->node[0].sections);
	/* Node 1's Section emptied by the flush stays its own (keep = 1). */
	EXPECT_EQ(1U, edm_pool_sec_owner(p, 0));
	EXPECT_EQ(0U, edm_pool_node_flush(p, 3));
	/* When node 1 frees the lent Buffer, phys 4 is empty, kept for node 0. */
	ASSERT_EQ(0, edm_pool_free(p, 1, lent));
	EXPECT_EQ(0U, edm_pool_sec_owner(p, 4));
	EXPECT_EQ(0ULL, p->cls[4].in_use);
}

TEST(whole_section_buffers)
{
	struct edm_pool_cfg cfg;
	struct edm_pool *p;
	u64 r0, r1, r;

	edm_pool_cfg_default(&cfg, 2, 1);
	cfg.min_shift = 20;
	cfg.max_shift = 21;
	cfg.keep = 0;
	p = pool_new(&cfg);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, edm_pool_region_add(p, 0, 0, 2));
	ASSERT_EQ(0, edm_pool_alloc(p, 0, MB2, 0, 0, &r0));
	ASSERT_EQ(0, edm_pool_alloc(p, 0, MB2 - 1, 0, 0, &r1));
	EXPECT_EQ(0ULL, r0);
	EXPECT_EQ((u64)MB2, r1);
	EXPECT_EQ(-ENOMEM, edm_pool_alloc(p, 0, 1, 0, 0, &r));
	EXPECT_EQ(0, edm_pool_ref_check(p, 0, r1, MB2));
	EXPECT_EQ(-ERANGE, edm_pool_ref_check(p, 0, r1 + 1, MB2));
	EXPECT_EQ(-EFAULT, edm_pool_ref_check(p, 0, r1 + MB2, 1));
	ASSERT_EQ(0, edm_pool_free(p, 0, r0 + MB2 - 1));
	EXPECT_EQ(1U, p->stats.sections_free);
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 300000, 0, 0, &r));	/* a 1 MB Buffer */
	EXPECT_EQ(0ULL, r);
	ASSERT_EQ(0, edm_pool_alloc(p, 0, 300000, 0, 0, &r));
	EXPECT_EQ(1ULL << 20, r);
	free(p);
}

struct model_totals {
	u64 allocs, frees, passes, checked, refused, enomem, released;
};

/* Random operations against the reference model, several shapes. */
static void model_run(struct __test_metadata *_metadata, const struct edm_pool_cfg *cfg,
		      const u32 (*regions)[3], u32 nregions, unsigned int seed, u32 steps,
		      struct model_totals *t)
{
	static struct ref_pool m;
	struct edm_pool *p = pool_new(cfg);
	u32 i, k;
	u8 b[8];

	ASSERT_NE(NULL, p);
	ref_init(&m, cfg);
	for (i = 0; i < nregions; i++)
		ASSERT_EQ(ref_region_add(&m, regions[i][0], regions[i][1], regions[i][2]),
			  edm_pool_region_add(p, regions[i][0], regions[i][1], regions[i][2]));
	ref_compare(&m, p);
	for (i = 0; i < steps; i++) {
		for (k = 0; k < 8; k++)
			b[k] = (u8)rand_r(&seed);
		ref_step(&m, p, b);
	}
	for (i = 0; i < cfg->nnodes; i++) {
		t->allocs += p->node[i].allocs;
		t->frees += p->node[i].frees;
		t->released += p->node[i].released;
	}
	t->passes += p->stats.passes;
	t->checked += p->stats.checked;
	t->refused += p->stats.refused[EDM_POOL_REF_DENIED] + p->stats.refused[EDM_POOL_REF_RANGE];
	t->enomem += p->stats.enomem;
	/* Flushing every node frees everything, leaving only kept Sections. */
	for (i = 0; i < cfg->nnodes; i++)
		ref_flush(&m, p, i);
	ref_compare(&m, p);
	for (i = 0; i < p->nclasses; i++)
		EXPECT_EQ(0ULL, p->cls[i].in_use);
	free(p);
}

TEST(randomized_against_the_model)
{
	static const u32 two_locs[][3] = { { 0, 4, 4 }, { 1, 0, 2 }, { 0, 2, 2 } };
	static const u32 one_region[][3] = { { 0, 0, 3 } };
	unsigned int seed = (unsigned int)time(NULL);
	struct model_totals t = { 0 };
	struct edm_pool_cfg cfg;
	u32 round;

	for (round = 0; round < 6; round++) {
		unsigned int s = seed + round;

		TH_LOG("round %u seed %u", round, s);
		cfg_small(&cfg);
		cfg.keep = round % 3;
		cfg.node_quota = round == 4 ? 2 : 0;
		if (round & 1) {
			cfg.min_shift = 12;
			cfg.max_shift = 21;
		}
		model_run(_metadata, &cfg, two_locs, 3, s, 20000, &t);
		/* A tiny pool: exhaustion all the time. */
		edm_pool_cfg_default(&cfg, 3, 2);
		cfg.region_sections = 4;
		cfg.min_shift = 15;
		cfg.max_shift = 18;
		cfg.keep = round % 2;
		model_run(_metadata, &cfg, one_region, 1, s, 20000, &t);
	}
	/* The runs reached the paths that matter, not only the refusals. */
	TH_LOG("allocs %llu frees %llu passes %llu checked %llu refused %llu enomem %llu released %llu",
	       (unsigned long long)t.allocs, (unsigned long long)t.frees,
	       (unsigned long long)t.passes, (unsigned long long)t.checked,
	       (unsigned long long)t.refused, (unsigned long long)t.enomem,
	       (unsigned long long)t.released);
	EXPECT_LT(5000ULL, t.allocs);
	EXPECT_LT(2000ULL, t.frees);
	EXPECT_LT(1000ULL, t.passes);
	EXPECT_LT(1000ULL, t.checked);
	EXPECT_LT(500ULL, t.refused);
	EXPECT_LT(100ULL, t.enomem);
	EXPECT_LT(100ULL, t.released);
}

TEST_HARNESS_MAIN
