// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the DRAM cache index (dfabric/pool_dcache.c). The hand cases use
 * a Region at FAS Section 3 (0x600000), 2 KB granules, 4 sets of 2 ways:
 * granule g = (ref - 0x600000) / 2048 lives in set g % 4, slots 2 * set and
 * 2 * set + 1. A randomized test runs it against a plain LRU list per set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "edm/pool_dcache.h"

enum { BASE = 0x600000, G = 2048 };

static struct edm_dcache *dc_new(u32 sets, u32 ways, u32 min_len)
{
	struct edm_dcache_cfg cfg = {
		.base = BASE, .len = 512 * G, .sets = sets, .ways = ways, .gran_shift = 11,
		.min_len = min_len,
	};
	size_t sz = edm_dcache_size(sets, ways);
	void *mem = sz ? malloc(sz) : NULL;

	if (!mem)
		return NULL;
	memset(mem, 0x5a, sz);
	if (edm_dcache_init(mem, &cfg)) {
		free(mem);
		return NULL;
	}
	return mem;
}

static u64 gref(u32 g)
{
	return BASE + (u64)g * G;
}

FIXTURE(dc) {
	struct edm_dcache *c;
	struct edm_dcache_res res;
};

FIXTURE_SETUP(dc)
{
	self->c = dc_new(4, 2, 128);
	ASSERT_NE(NULL, self->c);
}

FIXTURE_TEARDOWN(dc)
{
	free(self->c);
}

TEST(config_is_checked)
{
	struct edm_dcache_cfg ok = {
		.base = BASE, .len = 4 * G, .sets = 4, .ways = 2, .gran_shift = 11,
	}, bad;

	EXPECT_EQ(0, edm_dcache_cfg_check(&ok));
	/* 4 sets * 2 ways of 24-byte lines (two u64, two u8, padded). */
	EXPECT_EQ(sizeof(struct edm_dcache) + 8 * 24, edm_dcache_size(4, 2));
	EXPECT_EQ(0ULL, edm_dcache_size(3, 2));
	EXPECT_EQ(0ULL, edm_dcache_size(0, 2));
	EXPECT_EQ(0ULL, edm_dcache_size(4, 0));
	EXPECT_EQ(0ULL, edm_dcache_size(4, 17));
	EXPECT_EQ(0ULL, edm_dcache_size(1 << 21, 1));
	bad = ok; bad.gran_shift = 5;
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
	bad = ok; bad.gran_shift = 22;
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
	bad = ok; bad.gran_shift = 75;		/* not taken modulo 64 */
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
	bad = ok; bad.base = BASE + 64;
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
	bad = ok; bad.len = 0;
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
	bad = ok; bad.len = G + 1;
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
	bad = ok; bad.base = ~0ULL << 11; bad.len = 2 * G;	/* wraps */
	EXPECT_EQ(-EINVAL, edm_dcache_cfg_check(&bad));
}

TEST_F(dc, fills_hit_and_evict_the_lru)
{
	struct edm_dcache *c = self->c;
	struct edm_dcache_res *r = &self->res;

	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(0) + 100, 1500, false, r));
	EXPECT_EQ(0U, r->slot);
	EXPECT_FALSE(r->evicted);
	EXPECT_EQ(EDM_DCACHE_HIT, edm_dcache_access(c, gref(0) + 2047, 1500, false, r));
	EXPECT_EQ(0U, r->slot);
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(1), 1500, false, r));
	EXPECT_EQ(2U, r->slot);				/* set 1, way 0 */
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(4), 1500, false, r));
	EXPECT_EQ(1U, r->slot);				/* set 0, way 1 */
	EXPECT_EQ(gref(4), edm_dcache_slot_ref(c, 1));
	/* Touch g0, so g4 is the LRU of set 0 and g8 replaces it. */
	EXPECT_EQ(0, edm_dcache_lookup(c, gref(0), false));
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(8), 1500, false, r));
	EXPECT_EQ(1U, r->slot);
	EXPECT_TRUE(r->evicted);
	EXPECT_FALSE(r->writeback);
	EXPECT_EQ(gref(4), r->victim);
	/* Now g0 is the older: g4 comes back in its place. */
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(4), 1500, false, r));
	EXPECT_EQ(0U, r->slot);
	EXPECT_EQ(gref(0), r->victim);
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(0), false));
	EXPECT_EQ(2ULL, c->stats.hits);
	EXPECT_EQ(6ULL, c->stats.misses);	/* 5 fills and the lookup of g0 */
	EXPECT_EQ(5ULL, c->stats.fills);
	EXPECT_EQ(2ULL, c->stats.evictions);
	EXPECT_EQ(3U, c->stats.valid);
	/* Inserting a cached granule only touches it. */
	EXPECT_EQ(2, edm_dcache_insert(c, gref(1), false, r));
	EXPECT_FALSE(r->evicted);
	EXPECT_EQ(5ULL, c->stats.fills);
}

TEST_F(dc, dirty_victims_are_written_back)
{
	struct edm_dcache *c = self->c;
	struct edm_dcache_res *r = &self->res;
	bool dirty;

	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(2), 1500, true, r));
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(6), 1500, false, r));
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(10), 1500, false, r));
	EXPECT_TRUE(r->writeback);
	EXPECT_EQ(gref(2), r->victim);
	EXPECT_EQ(1ULL, c->stats.writebacks);
	/* A write hit dirties; evicting it says so. */
	EXPECT_EQ(EDM_DCACHE_HIT, edm_dcache_access(c, gref(6), 1500, true, r));
	EXPECT_EQ(r->slot, (u32)edm_dcache_evict(c, gref(6) + 5, &dirty));
	EXPECT_TRUE(dirty);
	EXPECT_EQ(-ENOENT, edm_dcache_evict(c, gref(6), &dirty));
	EXPECT_EQ(-ERANGE, edm_dcache_evict(c, BASE - 1, &dirty));
	EXPECT_EQ(1ULL, c->stats.flushed_dirty);
	EXPECT_EQ(1U, c->stats.valid);
}

TEST_F(dc, small_packets_and_foreign_refs_bypass)
{
	struct edm_dcache *c = self->c;
	struct edm_dcache_res *r = &self->res;

	EXPECT_EQ(EDM_DCACHE_BYPASS, edm_dcache_access(c, gref(0), 66, false, r));	/* an ACK */
	EXPECT_EQ(EDM_DCACHE_BYPASS, edm_dcache_access(c, gref(0), 127, false, r));
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(0), 128, false, r));
	EXPECT_EQ(2ULL, c->stats.bypassed);
	EXPECT_EQ(-ERANGE, edm_dcache_access(c, BASE - 1, 1500, false, r));
	EXPECT_EQ(-ERANGE, edm_dcache_access(c, gref(512), 1500, false, r));
	EXPECT_EQ(-ERANGE, edm_dcache_lookup(c, ~0ULL, false));
	EXPECT_EQ(-ERANGE, edm_dcache_insert(c, 0, false, r));
	EXPECT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(511) + G - 1, 1500, false, r));
	EXPECT_EQ(4ULL, c->stats.outside);
	EXPECT_EQ(~0ULL, edm_dcache_slot_ref(c, 8));
}

TEST_F(dc, flush_drops_exactly_the_buffer)
{
	struct edm_dcache *c = self->c;
	struct edm_dcache_res *r = &self->res;
	u32 g;

	for (g = 0; g < 8; g++)
		ASSERT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(g), 1500, g == 3, r));
	/* A 4 KB Buffer over granules 2 and 3, found by any byte range in it. */
	EXPECT_EQ(2U, edm_dcache_flush(c, gref(2) + 2047, 2));
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(2), false));
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(3), false));
	EXPECT_LE(0, edm_dcache_lookup(c, gref(1), false));
	EXPECT_LE(0, edm_dcache_lookup(c, gref(4), false));
	EXPECT_EQ(1ULL, c->stats.flushed_dirty);
	EXPECT_EQ(0U, edm_dcache_flush(c, gref(2), 0));
	EXPECT_EQ(0U, edm_dcache_flush(c, BASE - 4 * G, 4 * G));	/* ends at the Region */
	EXPECT_EQ(1U, edm_dcache_flush(c, BASE - 4 * G, 4 * G + 1));
	/* A length that wraps is clamped, and the many-granule path is taken. */
	EXPECT_EQ(5U, edm_dcache_flush(c, gref(1), ~0ULL));
	EXPECT_EQ(0U, c->stats.valid);
	for (g = 0; g < 8; g++)
		ASSERT_EQ(EDM_DCACHE_MISS, edm_dcache_access(c, gref(g * 3), 1500, false, r));
	EXPECT_EQ(8U, edm_dcache_flush_all(c));
	EXPECT_EQ(16ULL, c->stats.flushed);
}

/* The model: per set, granules in use order, most recent last. */
struct lru_set {
	u64 g[EDM_DCACHE_MAX_WAYS];
	bool dirty[EDM_DCACHE_MAX_WAYS];
	u32 n;
};

static int lru_find(const struct lru_set *s, u64 g)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (s->g[i] == g)
			return i;
	return -1;
}

static void lru_move_last(struct lru_set *s, u32 i)
{
	u64 g = s->g[i];
	bool d = s->dirty[i];

	memmove(&s->g[i], &s->g[i + 1], (s->n - i - 1) * sizeof(s->g[0]));
	memmove(&s->dirty[i], &s->dirty[i + 1], (s->n - i - 1) * sizeof(s->dirty[0]));
	s->g[s->n - 1] = g;
	s->dirty[s->n - 1] = d;
}

static void lru_drop(struct lru_set *s, u32 i)
{
	lru_move_last(s, i);
	s->n--;
}

TEST(randomized_against_an_lru_model)
{
	unsigned int seed = (unsigned int)time(NULL);
	static struct lru_set sets[64];
	struct edm_dcache_res r;
	u32 sn, ways, i, round;

	TH_LOG("seed %u", seed);
	for (round = 0; round < 8; round++) {
		struct edm_dcache *c;
		u64 hits = 0, wbs = 0;

		sn = 1U << (round % 7);
		ways = 1 + round * 2 % 16;
		c = dc_new(sn, ways, 64);
		ASSERT_NE(NULL, c);
		memset(sets, 0, sizeof(sets));
		for (i = 0; i < 50000; i++) {
			u32 op = rand_r(&seed) % 10, g = rand_r(&seed) % (4 * sn * ways + 1) % 512;
			bool w = rand_r(&seed) & 1;
			struct lru_set *s = &sets[g % sn];
			int k = lru_find(s, g), got;

			if (op < 8) {
				got = edm_dcache_access(c, gref(g), 1500, w, &r);
				ASSERT_EQ(k >= 0 ? EDM_DCACHE_HIT : EDM_DCACHE_MISS, got);
				if (k >= 0) {
					hits++;
					s->dirty[k] |= w;
					lru_move_last(s, k);
					continue;
				}
				ASSERT_EQ(s->n == ways, r.evicted);
				if (s->n == ways) {
					ASSERT_EQ(gref(s->g[0]), r.victim);
					ASSERT_EQ(s->dirty[0], r.writeback);
					wbs += s->dirty[0];
					lru_drop(s, 0);
				}
				s->g[s->n] = g;
				s->dirty[s->n++] = w;
				ASSERT_EQ(gref(g), edm_dcache_slot_ref(c, r.slot));
				ASSERT_EQ(g % sn, r.slot / ways);
			} else {
				u32 n = 1 + rand_r(&seed) % 3, j, want = 0;

				/* Flush n granules from g, a Buffer of n granules. */
				for (j = 0; j < n; j++) {
					struct lru_set *t = &sets[(g + j) % sn];
					int q = lru_find(t, g + j);

					if (q >= 0 && g + j < 512) {
						lru_drop(t, q);
						want++;
					}
				}
				ASSERT_EQ(want, edm_dcache_flush(c, gref(g), (u64)n * G));
			}
		}
		ASSERT_EQ(hits, c->stats.hits);
		ASSERT_EQ(wbs, c->stats.writebacks);
		EXPECT_LT(0ULL, hits);
		free(c);
	}
}

TEST_HARNESS_MAIN
