// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the NETi zone geometry (netdimm/geom.c). Expected values
 * come from the NetDIMM paper's Figure 9 and its text ("pages on a same
 * bank and sub-array are spaced every 128KB", "8K distinct sub-arrays"
 * per rank), or from brute force over a small geometry.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "edm/netdimm_geom.h"

#define PG 12
#define KiB 1024ULL
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)

static struct edm_netdimm_geom paper(void)
{
	struct edm_netdimm_geom g;

	if (edm_netdimm_geom_init(&g, 1024, 8, 16, 512, 128, PG))
		abort();
	return g;
}

TEST(paper_geometry_recurs_every_128k)
{
	struct edm_netdimm_geom g = paper();
	u64 id = edm_netdimm_subarray_id(&g, 0);
	u64 off;

	/* Same bank and sub-array every 128 KiB, for the 128 rows. */
	for (off = 0; off < 128 * 128 * KiB; off += 128 * KiB)
		EXPECT_EQ(id, edm_netdimm_subarray_id(&g, off));
	/* The 8 KiB rank row holds two pages of one bank... */
	EXPECT_EQ(id, edm_netdimm_subarray_id(&g, 4 * KiB));
	/* ...and the next rank row is the next bank. */
	EXPECT_NE(id, edm_netdimm_subarray_id(&g, 8 * KiB));
	/* Past 128 rows (16 MiB) comes the next sub-array. */
	EXPECT_NE(id, edm_netdimm_subarray_id(&g, 16 * MiB));
	/* 512 sub-arrays x 16 banks = 8K sub-arrays in an 8 GiB rank. */
	EXPECT_EQ(8192ULL, edm_netdimm_subarray_count(&g, 8 * GiB));
	EXPECT_EQ(256ULL, edm_netdimm_subarray_pages(&g, PG));	/* 128 rows of 2 pages */
}

TEST(locate_matches_figure_9)
{
	struct edm_netdimm_geom g = paper();
	struct edm_netdimm_loc l;

	edm_netdimm_geom_locate(&g, 3 * 8 * KiB + 5 * 128 * KiB + 7 * 16 * MiB + 8 * GiB, &l);
	EXPECT_EQ(1ULL, l.rank);
	EXPECT_EQ(3U, l.bank);
	EXPECT_EQ(5U, l.row);
	EXPECT_EQ(7U, l.subarray);
}

TEST(clone_modes_follow_rowclone)
{
	struct edm_netdimm_geom g = paper();

	EXPECT_EQ((int)EDM_NETDIMM_FPM, (int)edm_netdimm_clone_mode(&g, 0, 128 * KiB));
	EXPECT_EQ((int)EDM_NETDIMM_FPM, (int)edm_netdimm_clone_mode(&g, 4 * KiB, 0));
	EXPECT_EQ((int)EDM_NETDIMM_PSM, (int)edm_netdimm_clone_mode(&g, 0, 8 * KiB));
	EXPECT_EQ((int)EDM_NETDIMM_PSM2, (int)edm_netdimm_clone_mode(&g, 0, 16 * MiB));
	EXPECT_EQ((int)EDM_NETDIMM_GCM, (int)edm_netdimm_clone_mode(&g, 0, 8 * GiB));
	/* 4 KiB costs the per-page figure; 64 B is one line of 64. */
	EXPECT_EQ(90000ULL, edm_netdimm_clone_cost_ps(EDM_NETDIMM_FPM, 4096));
	EXPECT_EQ(1046000ULL, edm_netdimm_clone_cost_ps(EDM_NETDIMM_GCM, 4096));
	EXPECT_EQ(540000ULL / 64, edm_netdimm_clone_cost_ps(EDM_NETDIMM_PSM, 1));
	EXPECT_EQ(2ULL * 1050000, edm_netdimm_clone_cost_ps(EDM_NETDIMM_PSM2, 8192));
}

TEST(rejects_bad_geometry)
{
	struct edm_netdimm_geom g;

	EXPECT_EQ(-EINVAL, edm_netdimm_geom_init(&g, 1000, 8, 16, 512, 128, PG));
	EXPECT_EQ(-EINVAL, edm_netdimm_geom_init(&g, 1024, 0, 16, 512, 128, PG));
	EXPECT_EQ(-EINVAL, edm_netdimm_geom_init(&g, 1024, 8, 12, 512, 128, PG));
	/* A rank row smaller than a page would split pages across banks. */
	EXPECT_EQ(-ERANGE, edm_netdimm_geom_init(&g, 256, 8, 16, 512, 128, PG));
	EXPECT_EQ(0, edm_netdimm_geom_init(&g, 512, 8, 16, 512, 128, PG));
}

/* A small geometry where brute force over every page is cheap. */
FIXTURE(small) {
	struct edm_netdimm_geom g;
	u64 size, pages;
};

FIXTURE_SETUP(small)
{
	/* Rank row 8 KiB (2 pages), 4 banks, 8 sub-arrays of 4 rows: 1 MiB. */
	ASSERT_EQ(0, edm_netdimm_geom_init(&self->g, 2048, 4, 4, 8, 4, PG));
	self->size = 1 * MiB;
	self->pages = self->size >> PG;
}

FIXTURE_TEARDOWN(small)
{
}

TEST_F(small, enumeration_covers_every_page_once)
{
	u64 n = edm_netdimm_subarray_pages(&self->g, PG);
	u64 ids = edm_netdimm_subarray_count(&self->g, self->size);
	char *seen = calloc(self->pages, 1);
	u64 id, k;

	ASSERT_NE(NULL, seen);
	ASSERT_EQ(32ULL, ids);
	ASSERT_EQ(8ULL, n);
	for (id = 0; id < ids; id++) {
		for (k = 0; k < n; k++) {
			u64 off = edm_netdimm_subarray_page(&self->g, id, k, PG);

			ASSERT_LT(off, self->size);
			ASSERT_EQ(id, edm_netdimm_subarray_id(&self->g, off));
			ASSERT_EQ(0, (int)seen[off >> PG]);
			seen[off >> PG] = 1;
			if (k)	/* increasing, so the search may stop early */
				ASSERT_GT(off, edm_netdimm_subarray_page(&self->g, id, k - 1, PG));
		}
	}
	for (k = 0; k < self->pages; k++)
		ASSERT_EQ(1, (int)seen[k]);
	free(seen);
}

static void set_bit_ul(unsigned long *map, u64 i)
{
	map[i / (8 * sizeof(long))] |= 1UL << (i % (8 * sizeof(long)));
}

/*
 * Allocate every page through the sub-array search, asking for the sub-array
 * of a rotating hint, in chunks as genalloc presents them: while a sub-array
 * has a free page the search finds it (hit rate 100%), it never returns a
 * used page, and it reports "none" exactly when the sub-array is full.
 */
TEST_F(small, search_hits_while_the_subarray_has_room)
{
	const u64 chunk = 64;	/* pages per chunk: 256 KiB */
	u64 nchunks = self->pages / chunk, ids, hits = 0, misses = 0, left[64] = { 0 };
	unsigned long *map = calloc(self->pages / 64 + 1, sizeof(long));
	u64 i, c;

	ASSERT_NE(NULL, map);
	ids = edm_netdimm_subarray_count(&self->g, self->size);
	for (i = 0; i < self->pages; i++)
		left[edm_netdimm_subarray_id(&self->g, i << PG)]++;
	for (i = 0; i < 2 * self->pages; i++) {
		u64 id = (i * 7) % ids, found = self->pages;

		for (c = 0; c < nchunks && found == self->pages; c++) {
			u64 r = edm_netdimm_find_free(&self->g, map + c * chunk / 64, chunk,
						   (c * chunk) << PG, id, PG);

			if (r < chunk)
				found = c * chunk + r;
		}
		if (left[id]) {
			ASSERT_LT(found, self->pages);
			ASSERT_EQ(id, edm_netdimm_subarray_id(&self->g, found << PG));
			ASSERT_EQ(0UL, (map[found / 64] >> (found % 64)) & 1UL);
			set_bit_ul(map, found);
			left[id]--;
			hits++;
		} else {
			ASSERT_EQ(self->pages, found);
			misses++;
		}
	}
	EXPECT_EQ(self->pages, hits);
	EXPECT_EQ(self->pages, misses);
	free(map);
}

TEST_HARNESS_MAIN
