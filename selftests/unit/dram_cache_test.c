// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the DRAM cache (dfabric/pool_dcache.c). The hand cases use
 * a Region at FAS Section 3 (0x600000), 2 KB granules, 4 sets of 2 ways:
 * granule g = (ref - 0x600000) / 2048 lives in set g % 4, slots 2 * set and
 * 2 * set + 1. A randomized test runs the index against a plain LRU list
 * per set; the data tests give it pool memory and slots and check every
 * byte against a shadow of what the CPU stored.
 */
#include <assert.h>
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
	if (edm_dcache_init(mem, &cfg, NULL)) {
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
	/* 4 sets * 2 ways of 24-byte lines (two u64, three u8, padded). */
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
						wbs += t->dirty[q];	/* written back */
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

/* ---- the data ---- */

enum { RLEN = 512 * G };	/* the Region's bytes */

/* Pool memory for the Region, local slots, and what the CPU stored (the truth). */
struct dmem {
	struct edm_dcache_mem ops;
	unsigned char *pool, *slots, *truth;
	struct edm_dcache *c;
	u32 nslots;
};

static void *dmem_pool(void *ctx, u64 ref)
{
	struct dmem *m = ctx;

	assert(ref >= BASE && ref + G <= BASE + RLEN && !(ref % G));
	return m->pool + (ref - BASE);
}

static void *dmem_slot(void *ctx, u32 slot)
{
	struct dmem *m = ctx;

	assert(slot < m->nslots);
	return m->slots + (size_t)slot * G;
}

static int dmem_new(struct dmem *m, u32 sets, u32 ways, u32 min_len, unsigned int *seed)
{
	struct edm_dcache_cfg cfg = {
		.base = BASE, .len = RLEN, .sets = sets, .ways = ways, .gran_shift = 11,
		.min_len = min_len,
	};
	u32 i;

	m->ops = (struct edm_dcache_mem){ .pool = dmem_pool, .slot = dmem_slot, .ctx = m };
	m->nslots = sets * ways;
	m->pool = malloc(RLEN);
	m->truth = malloc(RLEN);
	m->slots = malloc((size_t)m->nslots * G);
	m->c = malloc(edm_dcache_size(sets, ways));
	if (!m->pool || !m->truth || !m->slots || !m->c)
		return -1;
	for (i = 0; i < RLEN; i++)
		m->pool[i] = m->truth[i] = rand_r(seed);
	memset(m->slots, 0xee, (size_t)m->nslots * G);
	return edm_dcache_init(m->c, &cfg, &m->ops);
}

static void dmem_free(struct dmem *m)
{
	free(m->pool);
	free(m->truth);
	free(m->slots);
	free(m->c);
}

/*
 * Every byte is where the cache says: a cached granule's truth is in its
 * slot, any other's in the pool. Returns the first granule that is wrong, or -1.
 */
static int dmem_wrong(const struct dmem *m)
{
	static bool cached[512];
	u32 s, g;

	memset(cached, 0, sizeof(cached));
	for (s = 0; s < m->nslots; s++) {
		u64 ref = edm_dcache_slot_ref(m->c, s);

		if (ref == ~0ULL)
			continue;
		g = (ref - BASE) / G;
		if (memcmp(m->slots + (size_t)s * G, m->truth + (size_t)g * G, G))
			return g;
		cached[g] = true;
	}
	for (g = 0; g < 512; g++)
		if (!cached[g] && memcmp(m->pool + (size_t)g * G, m->truth + (size_t)g * G, G))
			return g;
	return -1;
}

TEST(data_fill_hit_writeback_and_flush)
{
	unsigned int seed = 1;
	unsigned char buf[3 * G], want[3 * G];
	struct dmem m;
	int slot;

	ASSERT_EQ(0, dmem_new(&m, 4, 2, 128, &seed));
	struct edm_dcache *c = m.c;

	/* A load fills the line and is served from it: change the pool under it. */
	ASSERT_EQ(0, edm_dcache_read(c, gref(1) + 100, buf, 1000));
	EXPECT_EQ(0, memcmp(buf, m.truth + G + 100, 1000));
	EXPECT_EQ(1ULL, c->stats.fills);
	m.pool[G + 100] ^= 0xff;
	ASSERT_EQ(0, edm_dcache_read(c, gref(1) + 100, buf, 1));
	EXPECT_EQ(m.truth[G + 100], buf[0]);
	EXPECT_EQ(1ULL, c->stats.hits);
	m.pool[G + 100] ^= 0xff;

	/* A write-back store dirties a line; the pool is old until it goes. */
	memset(want, 0xab, sizeof(want));
	ASSERT_EQ(0, edm_dcache_write(c, gref(5) + 2000, want, 200, false));
	memcpy(m.truth + 5 * G + 2000, want, 200);	/* 48 bytes in 5, 152 in 6 */
	EXPECT_NE(0, memcmp(m.pool + 5 * G + 2000, want, 48));
	EXPECT_EQ(-1, dmem_wrong(&m));
	/* granules 9 and 13 share set 1 with 5: 5 is the LRU victim, written back */
	ASSERT_EQ(0, edm_dcache_read(c, gref(9), buf, G));
	ASSERT_EQ(0, edm_dcache_read(c, gref(13), buf, G));
	EXPECT_EQ(0, memcmp(m.pool + 5 * G + 2000, want, 48));
	EXPECT_EQ(1ULL, c->stats.writebacks);
	EXPECT_EQ(-1, dmem_wrong(&m));

	/* Write-around: no line for it; a line that has it is updated, stays clean. */
	ASSERT_EQ(0, edm_dcache_write(c, gref(20), want, 200, true));
	memcpy(m.truth + 20 * G, want, 200);
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(20), false));
	ASSERT_EQ(0, edm_dcache_write(c, gref(9) + 10, want, 200, true));
	memcpy(m.truth + 9 * G + 10, want, 200);
	EXPECT_EQ(2ULL, c->stats.around);
	EXPECT_EQ(-1, dmem_wrong(&m));
	EXPECT_EQ(1ULL, c->stats.writebacks);

	/* The flush writes a dirty line back and drops it. */
	ASSERT_EQ(0, edm_dcache_write(c, gref(2), want, G, false));
	memcpy(m.truth + 2 * G, want, G);
	EXPECT_EQ(1U, edm_dcache_flush(c, gref(2), G));
	EXPECT_EQ(0, memcmp(m.pool + 2 * G, want, G));
	EXPECT_EQ(-1, dmem_wrong(&m));

	/* Loads shorter than min_len do not allocate; a line that is there serves them. */
	ASSERT_EQ(0, edm_dcache_read(c, gref(30), buf, 66));
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(30), false));
	EXPECT_EQ(0, memcmp(buf, m.truth + 30 * G, 66));

	/* A pinned line is no victim; a full set of them sends loads to the pool. */
	slot = edm_dcache_fill_pin(c, gref(3));
	ASSERT_LE(0, slot);
	EXPECT_EQ(0, memcmp(m.slots + (size_t)slot * G, m.truth + 3 * G, G));
	ASSERT_LE(0, edm_dcache_fill_pin(c, gref(7)));
	EXPECT_EQ(-EBUSY, edm_dcache_fill_pin(c, gref(7)));
	ASSERT_EQ(0, edm_dcache_read(c, gref(11), buf, G));
	EXPECT_EQ(0, memcmp(buf, m.truth + 11 * G, G));
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(11), false));
	EXPECT_EQ(2ULL, c->stats.busy);
	EXPECT_EQ(0U, edm_dcache_flush(c, gref(3), G));
	bool dirty;

	EXPECT_EQ(-EBUSY, edm_dcache_evict(c, gref(3), &dirty));
	/* a store around a pinned line reaches it */
	ASSERT_EQ(0, edm_dcache_write(c, gref(3), want, 64, true));
	memcpy(m.truth + 3 * G, want, 64);
	EXPECT_EQ(0, memcmp(m.slots + (size_t)slot * G, m.truth + 3 * G, G));
	EXPECT_EQ(2U, c->stats.pinned);
	edm_dcache_unpin(c, slot);
	EXPECT_EQ(1U, c->stats.pinned);
	EXPECT_EQ(1U, edm_dcache_flush(c, gref(3), G));
	/* A lent line given away goes, counted; an unpinned slot cannot be. */
	slot = edm_dcache_slot_ref(c, 6) == gref(7) ? 6 : 7;
	ASSERT_EQ(gref(7), edm_dcache_slot_ref(c, slot));
	EXPECT_EQ(0, edm_dcache_hand_over(c, slot));
	EXPECT_EQ(-ENOENT, edm_dcache_hand_over(c, slot));
	EXPECT_EQ(-ENOENT, edm_dcache_lookup(c, gref(7), false));
	EXPECT_EQ(1ULL, c->stats.handed);
	EXPECT_EQ(0U, c->stats.pinned);

	/* Outside the Region, or wrapping: refused, nothing copied. */
	EXPECT_EQ(-ERANGE, edm_dcache_read(c, gref(511) + 1, buf, G));
	EXPECT_EQ(-ERANGE, edm_dcache_write(c, BASE - 1, buf, 2, false));
	EXPECT_EQ(-ERANGE, edm_dcache_read(c, gref(0), buf, 0));
	EXPECT_EQ(-ERANGE, edm_dcache_fill_pin(c, BASE + RLEN));
	EXPECT_EQ(-1, dmem_wrong(&m));
	dmem_free(&m);
}

/*
 * Random loads, stores of both kinds, pins, unpins, flushes and evicts over
 * several shapes, each load checked against the truth, and every byte
 * checked to be where the cache says every so often; at the end every pin
 * is let go, the Region flushed, and the pool must equal the truth.
 */
TEST(data_randomized_against_the_truth)
{
	unsigned int seed = (unsigned int)time(NULL);
	static unsigned char buf[3 * G], src[3 * G];
	u32 round, i;

	TH_LOG("seed %u", seed);
	for (round = 0; round < 6; round++) {
		u32 sets = 1U << (round % 4), ways = 1 + round % 4, npin = 0;
		int pins[64];
		struct dmem m;

		ASSERT_EQ(0, dmem_new(&m, sets, ways, 256, &seed));
		for (i = 0; i < 20000; i++) {
			u32 op = rand_r(&seed) % 16, g = rand_r(&seed) % (3 * sets * ways + 2);
			u32 off = rand_r(&seed) % G, len = 1 + rand_r(&seed) % (2 * G);
			u64 ref = gref(g) + off;
			int slot, k;

			if ((u64)g * G + off + len > RLEN)
				continue;
			if (op < 6) {
				ASSERT_EQ(0, edm_dcache_read(m.c, ref, buf, len));
				ASSERT_EQ(0, memcmp(buf, m.truth + g * G + off, len));
			} else if (op < 11) {
				for (k = 0; k < (int)len; k++)
					src[k] = rand_r(&seed);
				ASSERT_EQ(0, edm_dcache_write(m.c, ref, src, len, op < 8));
				memcpy(m.truth + g * G + off, src, len);
			} else if (op < 13 && npin < 64) {
				slot = edm_dcache_fill_pin(m.c, gref(g));
				if (slot >= 0) {
					ASSERT_EQ(0, memcmp(m.slots + (size_t)slot * G,
							    m.truth + g * G, G));
					pins[npin++] = slot;
				} else {
					ASSERT_EQ(-EBUSY, slot);
				}
			} else if (op < 14 && npin) {
				k = rand_r(&seed) % npin;
				edm_dcache_unpin(m.c, pins[k]);
				pins[k] = pins[--npin];
			} else if (op < 15) {
				edm_dcache_flush(m.c, gref(g), (u64)(1 + rand_r(&seed) % 3) * G);
			} else {
				bool dirty;

				slot = edm_dcache_evict(m.c, ref, &dirty);
				ASSERT_TRUE(slot >= 0 || slot == -ENOENT || slot == -EBUSY);
			}
			if (i % 500 == 0)
				ASSERT_EQ(-1, dmem_wrong(&m));
		}
		ASSERT_EQ(npin, m.c->stats.pinned);
		while (npin)
			edm_dcache_unpin(m.c, pins[--npin]);
		edm_dcache_flush_all(m.c);
		ASSERT_EQ(0U, m.c->stats.valid);
		ASSERT_EQ(0, memcmp(m.pool, m.truth, RLEN));
		EXPECT_LT(0ULL, m.c->stats.hits);
		EXPECT_LT(0ULL, m.c->stats.writebacks);
		EXPECT_LT(0ULL, m.c->stats.around);
		dmem_free(&m);
	}
}

TEST_HARNESS_MAIN
