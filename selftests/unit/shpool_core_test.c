// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the shared pool core (dfabric/shpool_core.c), written from
 * the contract in include/edm/shpool_core.h and the error codes its
 * functions document. The hosts are views (struct edm_shp) of one
 * page-aligned heap range; a host dies by being abandoned, never by leave.
 *
 * The randomized test runs the core against a shadow of everything shared:
 * each slot's state word, each Buffer's holder word (gen << 32 | tag) and
 * each ring's queue, all compared after every step. The threaded test runs
 * one host a thread (also built with ThreadSanitizer, as
 * shpool_core_tsan_test): one host dies holding Buffers while the others
 * send to it, every survivor tries to reap it, and it comes back as a new
 * life that must refuse what was queued to the old one. An owner word a
 * Buffer (changed with relaxed atomics, so it adds no ordering TSan could
 * lean on) and a pattern carrying the sender's slot and a sequence number
 * show that no Buffer is used by two hosts at once or arrives altered.
 *
 * SHP_SEED=n in the environment replays the random tests.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "edm/shpool_core.h"

#ifdef __SANITIZE_THREAD__
/* The harness ends a test with _exit(), which skips TSan's exit code: stop at the first race. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1";
}
#define SHP_SLOW	4	/* fewer steps under TSan */
#else
#define SHP_SLOW	1
#endif

enum { PAGE = 4096, HDR = 16 };

static u8 *range_new(u64 size)
{
	void *p;

	if (posix_memalign(&p, PAGE, size))
		return NULL;
	memset(p, 0, size);		/* a blank range */
	return p;
}

static struct edm_shp_cfg cfg_small(u32 nhosts, u32 ring_size)
{
	struct edm_shp_cfg cfg = {
		.nhosts = nhosts, .buf_shift = EDM_SHP_MIN_BUF_SHIFT,
		.ring_size = ring_size, .lease_ms = EDM_SHP_MIN_LEASE_MS,
	};

	return cfg;
}

static unsigned int test_seed(void)
{
	const char *s = getenv("SHP_SEED");

	return s ? (unsigned int)strtoul(s, NULL, 0) : (unsigned int)time(NULL);
}

static u32 rnd(unsigned int *seed)
{
	return (u32)rand_r(seed) << 16 ^ (u32)rand_r(seed);
}

/* ---- what a sender writes into a Buffer: seq, src | len << 32, then words of seq ---- */

static u64 pat(u64 seq, u32 k)
{
	return (seq + 1) * 0x9e3779b97f4a7c15ULL ^ ((u64)k << 40 | k);
}

static u32 pay_len(u32 r, u32 bufsz)
{
	return HDR + 8 * (r % ((bufsz - HDR) / 8 + 1));
}

static void pay_fill(void *buf, u64 seq, u32 src, u32 len)
{
	u64 *w = buf;
	u32 k;

	w[0] = seq;
	w[1] = (u64)len << 32 | src;
	for (k = 2; k < len / 8; k++)
		w[k] = pat(seq, k);
}

/* 0 if @buf holds what pay_fill() wrote. */
static int pay_check(const void *buf, u64 seq, u32 src, u32 len)
{
	const u64 *w = buf;
	u32 k;

	if (w[0] != seq || w[1] != ((u64)len << 32 | src))
		return -1;
	for (k = 2; k < len / 8; k++)
		if (w[k] != pat(seq, k))
			return -1;
	return 0;
}

static u64 holder(const struct edm_shp *v, u32 b)
{
	return __atomic_load_n(&v->holder[b], __ATOMIC_RELAXED);
}

/* ---- configuration, format, open ---- */

TEST(cfg_check_bounds_every_field)
{
	struct edm_shp_cfg def, c;
	const u64 big = 64ULL << 20;	/* cfg_check only computes: no memory behind it */

	edm_shp_cfg_default(&def);
	EXPECT_EQ((u32)EDM_SHP_DEFAULT_HOSTS, def.nhosts);
	EXPECT_EQ((u32)EDM_SHP_DEFAULT_BUF_SHIFT, def.buf_shift);
	EXPECT_EQ((u32)EDM_SHP_DEFAULT_RING, def.ring_size);
	EXPECT_EQ((u32)EDM_SHP_DEFAULT_LEASE_MS, def.lease_ms);
	EXPECT_EQ(0, edm_shp_cfg_check(&def, big));

#define BAD(field, val) do { c = def; c.field = (val); \
	EXPECT_EQ(-EINVAL, edm_shp_cfg_check(&c, big)) TH_LOG(#field " = %u", (u32)(val)); \
} while (0)
#define GOOD(field, val) do { c = def; c.field = (val); \
	EXPECT_EQ(0, edm_shp_cfg_check(&c, big)) TH_LOG(#field " = %u", (u32)(val)); \
} while (0)
	BAD(nhosts, 0);
	BAD(nhosts, 1);
	BAD(nhosts, EDM_SHP_MAX_HOSTS + 1);
	BAD(nhosts, 0xffffffff);
	GOOD(nhosts, 2);
	GOOD(nhosts, EDM_SHP_MAX_HOSTS);
	BAD(buf_shift, 0);
	BAD(buf_shift, EDM_SHP_MIN_BUF_SHIFT - 1);
	BAD(buf_shift, EDM_SHP_MAX_BUF_SHIFT + 1);
	BAD(buf_shift, 64);
	GOOD(buf_shift, EDM_SHP_MIN_BUF_SHIFT);
	GOOD(buf_shift, EDM_SHP_MAX_BUF_SHIFT);
	BAD(ring_size, 0);
	BAD(ring_size, EDM_SHP_MIN_RING / 2);
	BAD(ring_size, EDM_SHP_MIN_RING - 1);
	BAD(ring_size, 12);			/* not a power of 2 */
	BAD(ring_size, 100);
	BAD(ring_size, EDM_SHP_MAX_RING - 1);
	BAD(ring_size, EDM_SHP_MAX_RING * 2);
	BAD(ring_size, 0x80000000);
	GOOD(ring_size, EDM_SHP_MIN_RING);
	GOOD(ring_size, 16);
	GOOD(ring_size, EDM_SHP_MAX_RING);
	BAD(lease_ms, 0);
	BAD(lease_ms, EDM_SHP_MIN_LEASE_MS - 1);
	BAD(lease_ms, EDM_SHP_MAX_LEASE_MS + 1);
	GOOD(lease_ms, EDM_SHP_MIN_LEASE_MS);
	GOOD(lease_ms, EDM_SHP_MAX_LEASE_MS);
#undef BAD
#undef GOOD

	/* Everything at its largest fits in a large range, and a u32 of Buffers caps. */
	c = (struct edm_shp_cfg){ EDM_SHP_MAX_HOSTS, EDM_SHP_MAX_BUF_SHIFT, EDM_SHP_MAX_RING,
				  EDM_SHP_MAX_LEASE_MS };
	EXPECT_EQ(0, edm_shp_cfg_check(&c, 1ULL << 40));
	c = cfg_small(2, 8);
	EXPECT_EQ(0, edm_shp_cfg_check(&c, 1ULL << 50));

	/* Too small: nothing, a page, or room for fewer than 2 Buffers a host. */
	c = cfg_small(4, 8);
	EXPECT_EQ(-ENOSPC, edm_shp_cfg_check(&c, 0));
	EXPECT_EQ(-ENOSPC, edm_shp_cfg_check(&c, PAGE));
	EXPECT_EQ(-ENOSPC, edm_shp_cfg_check(&c, 4 * PAGE));	/* 2 KiB Buffers: not 8 */
	EXPECT_EQ(-ENOSPC, edm_shp_cfg_check(&def, 1ULL << 20)); /* 64 KiB: not 16 + rings */
	EXPECT_EQ(0, edm_shp_cfg_check(&def, 2ULL << 20));
	EXPECT_EQ(0, edm_shp_cfg_check(&c, 64 * 1024));
	/* a bad field is reported as such, whatever the size */
	c.nhosts = 1;
	EXPECT_EQ(-EINVAL, edm_shp_cfg_check(&c, 0));
}

TEST(format_then_open_and_a_corrupt_superblock)
{
	struct edm_shp_cfg cfg = cfg_small(4, 8), bad;
	const u64 size = 128 * 1024;
	struct edm_shp_super *sb, good;
	struct edm_shp v, v2;
	u8 *base = range_new(size);
	const struct edm_shp_super *g;
	u64 end;

	ASSERT_NE(NULL, base);
	sb = (struct edm_shp_super *)base;
	EXPECT_EQ(-ENODATA, edm_shp_open(&v, base, size));

	/* A refused format writes nothing: the range stays blank. */
	bad = cfg;
	bad.nhosts = 1;
	EXPECT_EQ(-EINVAL, edm_shp_format(base, size, &bad));
	EXPECT_EQ(-ENOSPC, edm_shp_format(base, 2 * PAGE, &cfg));
	EXPECT_EQ(-ENODATA, edm_shp_open(&v, base, size));

	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&v, base, size));
	g = &v.geo;
	EXPECT_EQ(EDM_SHP_MAGIC, g->magic);
	EXPECT_EQ((u32)EDM_SHP_VERSION, g->version);
	EXPECT_EQ((u32)EDM_SHP_FMT_READY, g->fmt);
	EXPECT_EQ(size, g->size);
	EXPECT_EQ(4U, g->nhosts);
	EXPECT_EQ((u32)EDM_SHP_MIN_BUF_SHIFT, g->buf_shift);
	EXPECT_EQ(8U, g->ring_size);
	EXPECT_EQ((u32)EDM_SHP_MIN_LEASE_MS, g->lease_ms);
	EXPECT_EQ(0, memcmp(g, sb, sizeof(*g)));
	/* The regions are in order, apart, padded, and inside the range. */
	EXPECT_LE(sizeof(*sb), g->hosts_off);
	EXPECT_EQ(0ULL, g->hosts_off % EDM_SHP_LINE);
	EXPECT_LE(g->hosts_off + 4 * sizeof(struct edm_shp_host), g->rings_off);
	EXPECT_EQ(0ULL, g->rings_off % EDM_SHP_LINE);
	EXPECT_LE(sizeof(struct edm_shp_ring) + 8 * sizeof(struct edm_shp_desc), g->ring_bytes);
	EXPECT_EQ(0ULL, g->ring_bytes % EDM_SHP_LINE);
	EXPECT_LE(g->rings_off + 16 * g->ring_bytes, g->holder_off);
	EXPECT_EQ(0ULL, g->holder_off % 8);
	EXPECT_LE(g->holder_off + 8ULL * g->nbufs, g->bufs_off);
	EXPECT_EQ(0ULL, g->bufs_off % PAGE);
	EXPECT_LE(g->bufs_off + ((u64)g->nbufs << g->buf_shift), size);
	EXPECT_LE(8U, g->nbufs);
	/*
	 * Not much room left: the layout may leave 2 Buffers' worth unused
	 * here (it reserves a page for the alignment), not 3.
	 */
	end = ((g->holder_off + 8ULL * (g->nbufs + 3) + PAGE - 1) & ~(u64)(PAGE - 1)) +
	      ((u64)(g->nbufs + 3) << g->buf_shift);
	EXPECT_LT(size, end);
	TH_LOG("128 KiB, 4 hosts, 2 KiB Buffers, rings of 8: %u Buffers at %llu", g->nbufs,
	       (unsigned long long)g->bufs_off);
	/* The view points into the range; it is not joined. */
	EXPECT_EQ(base, v.base);
	EXPECT_EQ((void *)(base + g->hosts_off), (void *)v.hosts);
	EXPECT_EQ((void *)(base + g->holder_off), (void *)v.holder);
	EXPECT_EQ((void *)(base + g->rings_off), (void *)v.rings);
	EXPECT_EQ((void *)(base + g->bufs_off), edm_shp_buf(&v, 0));
	EXPECT_EQ((void *)(base + g->bufs_off + 2048), edm_shp_buf(&v, 1));
	EXPECT_EQ(2048U, edm_shp_buf_size(&v));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, v.slot);
	EXPECT_TRUE(edm_shp_fenced(&v));
	/* A mapping larger than the layout is fine; a smaller one is not. */
	EXPECT_EQ(0, edm_shp_open(&v2, base, size + PAGE));
	EXPECT_EQ(-EINVAL, edm_shp_open(&v2, base, size - 1));
	EXPECT_EQ(-EINVAL, edm_shp_open(&v2, base, 0));

	/* Formatted once only, whatever the second formatter wants. */
	good = *sb;
	EXPECT_EQ(-EEXIST, edm_shp_format(base, size, &cfg));
	bad = cfg_small(2, 16);
	EXPECT_EQ(-EEXIST, edm_shp_format(base, size, &bad));
	EXPECT_EQ(0, memcmp(&good, sb, sizeof(good)));

#define CORRUPT(field, val) do { \
	sb->field = (val); \
	EXPECT_EQ(-EINVAL, edm_shp_open(&v2, base, size)) TH_LOG("corrupt " #field); \
	*sb = good; } while (0)
	CORRUPT(magic, good.magic ^ 1);
	CORRUPT(magic, 0);
	CORRUPT(version, good.version + 1);
	CORRUPT(fmt, 7);
	CORRUPT(size, good.size + PAGE);	/* larger than mapped */
	CORRUPT(size, good.size - 16 * 1024);	/* fits fewer Buffers than it says */
	CORRUPT(size, 0);
	CORRUPT(nhosts, good.nhosts + 1);
	CORRUPT(nhosts, good.nhosts - 1);
	CORRUPT(nhosts, 1);
	CORRUPT(nhosts, 200);
	CORRUPT(buf_shift, good.buf_shift + 1);
	CORRUPT(buf_shift, 63);
	CORRUPT(nbufs, good.nbufs + 1);
	CORRUPT(nbufs, good.nbufs - 1);
	CORRUPT(nbufs, 0xffffffff);
	CORRUPT(ring_size, good.ring_size * 2);
	CORRUPT(ring_size, good.ring_size + 1);
	CORRUPT(ring_size, 0);
	CORRUPT(lease_ms, 0);
	CORRUPT(pad, 1);
	CORRUPT(hosts_off, good.hosts_off + EDM_SHP_LINE);
	CORRUPT(hosts_off, 0);
	CORRUPT(holder_off, good.holder_off + 8);
	CORRUPT(holder_off, size);
	CORRUPT(rings_off, good.rings_off + EDM_SHP_LINE);
	CORRUPT(ring_bytes, good.ring_bytes + EDM_SHP_LINE);
	CORRUPT(ring_bytes, 1ULL << 40);
	CORRUPT(bufs_off, good.bufs_off + PAGE);
	CORRUPT(bufs_off, good.bufs_off - PAGE);
	CORRUPT(bufs_off, 1ULL << 62);
#undef CORRUPT
	/* Being formatted: try again later. */
	sb->fmt = EDM_SHP_FMT_BUSY;
	EXPECT_EQ(-EAGAIN, edm_shp_open(&v2, base, size));
	*sb = good;
	EXPECT_EQ(0, edm_shp_open(&v2, base, size));
	free(base);
}

/* A range whose superblock is blank but whose rest is garbage formats clean. */
TEST(format_clears_what_it_lays_out)
{
	struct edm_shp_cfg cfg = cfg_small(3, 16);
	const u64 size = 96 * 1024;
	u8 *base = range_new(size);
	struct edm_shp v, w;
	u32 s, b, n = 0;
	u64 hw;

	ASSERT_NE(NULL, base);
	memset(base + sizeof(struct edm_shp_super), 0xa5, size - sizeof(struct edm_shp_super));
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&w, base, size));
	for (s = 0; s < 3; s++) {
		EXPECT_EQ(0ULL, edm_shp_host_state(&w, s));
		EXPECT_EQ(0U, edm_shp_held(&w, s));
	}
	for (b = 0; b < w.geo.nbufs; b++)
		EXPECT_EQ(0ULL, holder(&w, b));
	ASSERT_EQ(0, edm_shp_open(&v, base, size));
	ASSERT_EQ(0, edm_shp_join(&v, "a", (const u8 *)"\2\0\0\0\0\1"));
	for (s = 0; s < 3; s++)
		EXPECT_FALSE(edm_shp_pending(&v, s));
	while (!edm_shp_alloc(&v, &b, &hw))
		n++;
	EXPECT_EQ(w.geo.nbufs, n);
	EXPECT_EQ(n, edm_shp_held(&w, v.slot));
	EXPECT_EQ(n, edm_shp_leave(&v));
	free(base);
}

/* ---- hosts ---- */

static void mac_of(u8 *mac, u32 i)
{
	static const u8 m[6] = { 0x02, 0xed, 0x00, 0x00, 0x00, 0x00 };

	memcpy(mac, m, 6);
	mac[5] = (u8)i;
}

TEST(join_leave_rejoin_and_reap)
{
	struct edm_shp_cfg cfg = cfg_small(4, 8);
	const u64 size = 64 * 1024;
	u8 *base = range_new(size), mac[6];
	struct edm_shp v[6], w;
	char name[48];
	u32 i, seen = 0, s1, e1, t1, s2;
	u64 st, beat;

	ASSERT_NE(NULL, base);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&w, base, size));
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, edm_shp_open(&v[i], base, size));
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "host%u", i);
		mac_of(mac, i);
		ASSERT_EQ(0, edm_shp_join(&v[i], name, mac));
		ASSERT_LT(v[i].slot, 4U);
		EXPECT_EQ(0U, seen & 1U << v[i].slot);		/* distinct slots */
		seen |= 1U << v[i].slot;
		EXPECT_NE(0U, v[i].epoch);
		EXPECT_EQ(EDM_SHP_TAG(v[i].slot, v[i].epoch), v[i].tag);
		EXPECT_EQ(v[i].slot, (u32)EDM_SHP_TAG_SLOT(v[i].tag));
		EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_LIVE, v[i].epoch),
			  edm_shp_host_state(&w, v[i].slot));
		EXPECT_FALSE(edm_shp_fenced(&v[i]));
		EXPECT_STREQ(name, v[i].hosts[v[i].slot].name);
		EXPECT_EQ(0, memcmp(mac, v[i].hosts[v[i].slot].mac, 6));
		EXPECT_EQ(0U, edm_shp_held(&w, v[i].slot));
	}
	/* One more than nhosts. */
	mac_of(mac, 4);
	EXPECT_EQ(-EBUSY, edm_shp_join(&v[4], "host4", mac));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, v[4].slot);
	EXPECT_TRUE(edm_shp_fenced(&v[4]));
	/* A view has one slot. */
	s1 = v[0].slot;
	EXPECT_EQ(-EALREADY, edm_shp_join(&v[0], "again", mac));
	EXPECT_EQ(s1, v[0].slot);

	/* Find a live peer by MAC, never oneself. */
	mac_of(mac, 2);
	EXPECT_EQ((int)v[2].slot, edm_shp_find_mac(&v[0], mac));
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&v[2], mac));
	mac_of(mac, 9);
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&v[0], mac));

	/* Beats bump the host's beat. */
	beat = v[1].hosts[v[1].slot].beat;
	edm_shp_beat(&v[1]);
	edm_shp_beat(&v[1]);
	EXPECT_EQ(beat + 2, v[1].hosts[v[1].slot].beat);

	/* Leave: the slot is FREE, the view fenced, the MAC gone; a rejoin is a new life. */
	s1 = v[1].slot;
	e1 = v[1].epoch;
	t1 = v[1].tag;
	EXPECT_EQ(0U, edm_shp_leave(&v[1]));
	EXPECT_EQ((u32)EDM_SHP_H_FREE, EDM_SHP_HW_STATE(edm_shp_host_state(&w, s1)));
	EXPECT_TRUE(edm_shp_fenced(&v[1]));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, v[1].slot);
	mac_of(mac, 1);
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&v[0], mac));
	EXPECT_EQ(0U, edm_shp_leave(&v[1]));			/* twice: nothing */
	mac_of(mac, 4);
	ASSERT_EQ(0, edm_shp_join(&v[4], "host4", mac));
	EXPECT_EQ(s1, v[4].slot);				/* the only free one */
	EXPECT_NE(e1, v[4].epoch);
	EXPECT_NE(t1, v[4].tag);
	EXPECT_EQ((int)s1, edm_shp_find_mac(&v[0], mac));
	EXPECT_EQ(-EBUSY, edm_shp_join(&v[1], "host1", mac));

	/* Reap a live host: it is fenced, its slot FREE; only one reap counts. */
	s2 = v[2].slot;
	st = edm_shp_host_state(&w, s2);
	EXPECT_EQ(0ULL, v[2].hosts[s2].reaped);
	EXPECT_EQ(0U, edm_shp_reap(&v[0], s2, st));
	EXPECT_TRUE(edm_shp_fenced(&v[2]));
	EXPECT_FALSE(edm_shp_fenced(&v[0]));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_FREE, EDM_SHP_HW_EPOCH(st)), edm_shp_host_state(&w, s2));
	EXPECT_EQ(1ULL, v[0].hosts[s2].reaped);
	EXPECT_EQ(1ULL, v[0].st.reaped_hosts);
	EXPECT_EQ(0U, edm_shp_reap(&v[3], s2, st));
	EXPECT_EQ(1ULL, v[0].hosts[s2].reaped);
	EXPECT_EQ(0ULL, v[3].st.reaped_hosts);
	/* Not oneself, not a FREE slot, not past the table. */
	st = edm_shp_host_state(&w, v[0].slot);
	EXPECT_EQ(0U, edm_shp_reap(&v[0], v[0].slot, st));
	EXPECT_FALSE(edm_shp_fenced(&v[0]));
	EXPECT_EQ(0U, edm_shp_reap(&v[0], s2, edm_shp_host_state(&w, s2)));
	EXPECT_EQ(0U, edm_shp_reap(&v[0], 4, EDM_SHP_HW(EDM_SHP_H_LIVE, 1)));
	EXPECT_EQ(0U, edm_shp_reap(&v[0], EDM_SHP_MAX_HOSTS, EDM_SHP_HW(EDM_SHP_H_LIVE, 1)));
	/* A stale word does not reap the next life of the slot. */
	st = EDM_SHP_HW(EDM_SHP_H_LIVE, v[2].epoch);
	mac_of(mac, 5);
	ASSERT_EQ(0, edm_shp_join(&v[5], "host5", mac));
	EXPECT_EQ(s2, v[5].slot);
	EXPECT_EQ(0U, edm_shp_reap(&v[0], s2, st));
	EXPECT_FALSE(edm_shp_fenced(&v[5]));
	/* The fenced host leaves (gives nothing back) and cannot come back while full. */
	EXPECT_EQ(0U, edm_shp_leave(&v[2]));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_LIVE, v[5].epoch), edm_shp_host_state(&w, s2));
	EXPECT_EQ(-EBUSY, edm_shp_join(&v[2], "host2", mac));

	/* A long name is cut and terminated. */
	EXPECT_EQ(0U, edm_shp_leave(&v[3]));
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	ASSERT_EQ(0, edm_shp_join(&v[3], name, mac));
	EXPECT_EQ(0, v[3].hosts[v[3].slot].name[EDM_SHP_NAME_LEN - 1]);
	EXPECT_EQ(0, strncmp(name, v[3].hosts[v[3].slot].name, EDM_SHP_NAME_LEN - 1));

	/* The epoch never repeats 0 nor outgrows the tag when it wraps. */
	s1 = v[3].slot;
	EXPECT_EQ(0U, edm_shp_leave(&v[3]));
	v[3].hosts[s1].state = EDM_SHP_HW(EDM_SHP_H_FREE, 0xffffff);
	ASSERT_EQ(0, edm_shp_join(&v[3], "wrap", mac));
	EXPECT_NE(0U, v[3].epoch);
	EXPECT_NE(0xffffffU, v[3].epoch);
	EXPECT_EQ(s1, (u32)EDM_SHP_TAG_SLOT(v[3].tag));
	EXPECT_EQ(v[3].epoch, v[3].tag >> 8);
	free(base);
}

/*
 * A view that is not joined (never, or no more) owns nothing: every call on
 * it fails or does nothing, and none writes the range.
 */
TEST(unjoined_view_touches_nothing)
{
	struct edm_shp_cfg cfg = cfg_small(2, 8);
	const u64 size = 64 * 1024;
	u8 *base = range_new(size), *snap = malloc(size);
	struct edm_shp a, u;
	struct edm_shp_desc d = { 0 };
	u64 hw, nw, w0;
	u32 b, n = 0, s, round;

	ASSERT_NE(NULL, base);
	ASSERT_NE(NULL, snap);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&a, base, size));
	ASSERT_EQ(0, edm_shp_open(&u, base, size));
	ASSERT_EQ(0, edm_shp_join(&a, "a", (const u8 *)"\2\0\0\0\0\1"));
	/* Hold half the Buffers, every one full of a distinct pattern. */
	for (b = 0; b < a.geo.nbufs; b++)
		pay_fill(edm_shp_buf(&a, b), b * 77 + 5, b, 2048);
	while (n < a.geo.nbufs / 2 && !edm_shp_alloc(&a, &b, &hw))
		n++;
	w0 = holder(&a, a.geo.nbufs - 1);
	EXPECT_EQ(0U, EDM_SHP_WTAG(w0));

	for (round = 0; round < 2; round++) {
		memcpy(snap, base, size);
		edm_shp_beat(&u);
		EXPECT_EQ(0, memcmp(snap, base, size))
			TH_LOG("round %u: beat wrote the range", round);
		EXPECT_NE(0, edm_shp_alloc(&u, &b, &hw));
		EXPECT_NE(0, edm_shp_free(&u, a.geo.nbufs - 1, w0));
		EXPECT_NE(0, edm_shp_pass(&u, a.geo.nbufs - 1, w0, a.slot, &nw));
		EXPECT_NE(0, edm_shp_send(&u, a.slot, a.geo.nbufs - 1, w0, 64, NULL, 0));
		EXPECT_NE(0, edm_shp_post(&u, a.slot, &d));
		EXPECT_NE(0, edm_shp_take(&u, a.slot, &d));
		for (s = 0; s < 2; s++) {
			EXPECT_FALSE(edm_shp_pending(&u, s))
				TH_LOG("round %u: pending(%u)", round, s);
			EXPECT_EQ(0U, edm_shp_room(&u, s));
		}
		EXPECT_EQ(0U, edm_shp_leave(&u));
		EXPECT_TRUE(edm_shp_fenced(&u));
		EXPECT_EQ(0, memcmp(snap, base, size))
			TH_LOG("round %u: a call wrote the range", round);
		EXPECT_EQ(0ULL, u.st.passes);
		/* a second life, then unjoined again */
		ASSERT_EQ(0, edm_shp_join(&u, "u", (const u8 *)"\2\0\0\0\0\2"));
		EXPECT_EQ(0U, edm_shp_leave(&u));
	}
	EXPECT_EQ(n, edm_shp_leave(&a));
	free(snap);
	free(base);
}

/* ---- Buffers and rings, by hand ---- */

struct three {
	u8 *base;
	u64 size;
	struct edm_shp a, b, w;	/* two hosts and a watcher that never joins */
	u32 nbufs, free_slot;
};

FIXTURE(shp) {
	struct three t;
};

/* 3 slots, 2 hosts joined: the third slot stays FREE. */
FIXTURE_SETUP(shp)
{
	struct edm_shp_cfg cfg = cfg_small(3, 8);
	struct three *t = &self->t;
	u32 s;

	t->size = 128 * 1024;
	t->base = range_new(t->size);
	ASSERT_NE(NULL, t->base);
	ASSERT_EQ(0, edm_shp_format(t->base, t->size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&t->a, t->base, t->size));
	ASSERT_EQ(0, edm_shp_open(&t->b, t->base, t->size));
	ASSERT_EQ(0, edm_shp_open(&t->w, t->base, t->size));
	ASSERT_EQ(0, edm_shp_join(&t->a, "a", (const u8 *)"\2\0\0\0\0\1"));
	ASSERT_EQ(0, edm_shp_join(&t->b, "b", (const u8 *)"\2\0\0\0\0\2"));
	t->nbufs = t->w.geo.nbufs;
	ASSERT_LE(24U, t->nbufs);
	for (s = 0; s < 3; s++)
		if (s != t->a.slot && s != t->b.slot)
			t->free_slot = s;
}

FIXTURE_TEARDOWN(shp)
{
	free(self->t.base);
}

/* Alloc a Buffer and fill it with @seq's pattern of @len bytes. */
static u32 alloc_fill(struct __test_metadata *_metadata, struct edm_shp *v, u64 seq, u32 len,
		      u64 *hw)
{
	u64 before[256];
	u32 b = ~0U, i;

	for (i = 0; i < v->geo.nbufs && i < 256; i++)
		before[i] = holder(v, i);
	EXPECT_EQ(0, edm_shp_alloc(v, &b, hw));
	if (b >= v->geo.nbufs || b >= 256)
		return 0;
	EXPECT_EQ(0U, EDM_SHP_WTAG(before[b]));
	EXPECT_EQ((u64)(EDM_SHP_GEN(before[b]) + 1) << 32 | v->tag, *hw);	/* gen bumped */
	EXPECT_EQ(*hw, holder(v, b));
	pay_fill(edm_shp_buf(v, b), seq, v->slot, len);
	return b;
}

TEST_F(shp, alloc_free_and_refused_frees)
{
	struct three *t = &self->t;
	u64 hw, hw2, w;
	u32 x, y, n = 0;

	x = alloc_fill(_metadata, &t->a, 1, 64, &hw);
	EXPECT_EQ(1U, edm_shp_held(&t->w, t->a.slot));
	EXPECT_EQ(0U, edm_shp_held(&t->w, t->b.slot));
	/* Not the holder, a forged word, a stale gen, a bad index: refused, nothing changes. */
	EXPECT_NE(0, edm_shp_free(&t->b, x, hw));
	EXPECT_EQ(-EPERM, edm_shp_free(&t->b, x, (u64)EDM_SHP_GEN(hw) << 32 | t->b.tag));
	EXPECT_EQ(-EPERM, edm_shp_free(&t->a, x, hw - (1ULL << 32)));
	EXPECT_EQ(-EPERM, edm_shp_free(&t->a, x, hw + (1ULL << 32)));
	EXPECT_NE(0, edm_shp_free(&t->a, t->nbufs, hw));
	EXPECT_NE(0, edm_shp_free(&t->a, 0xffffffff, hw));
	EXPECT_EQ(hw, holder(&t->w, x));
	EXPECT_EQ(0, edm_shp_free(&t->a, x, hw));
	w = holder(&t->w, x);
	EXPECT_EQ(0U, EDM_SHP_WTAG(w));
	EXPECT_EQ(EDM_SHP_GEN(hw), EDM_SHP_GEN(w));			/* free keeps gen */
	EXPECT_EQ(-EPERM, edm_shp_free(&t->a, x, hw));			/* twice */
	EXPECT_EQ(w, holder(&t->w, x));
	EXPECT_EQ(0U, edm_shp_held(&t->w, t->a.slot));
	/* Every Buffer once, then none; a free one comes back with a new gen. */
	y = alloc_fill(_metadata, &t->a, 2, 64, &hw2);
	for (n = 1; !edm_shp_alloc(&t->b, &x, &hw); n++)
		;
	EXPECT_EQ(t->nbufs, n);
	EXPECT_EQ(-ENOMEM, edm_shp_alloc(&t->a, &x, &hw));
	EXPECT_EQ(1ULL, t->a.st.no_buf);
	EXPECT_EQ(n - 1, edm_shp_held(&t->w, t->b.slot));
	EXPECT_EQ(0, edm_shp_free(&t->a, y, hw2));
	x = alloc_fill(_metadata, &t->a, 3, 64, &hw);
	EXPECT_EQ(y, x);
	EXPECT_EQ(EDM_SHP_GEN(hw2) + 1, EDM_SHP_GEN(hw));
	EXPECT_EQ(-EPERM, edm_shp_free(&t->a, y, hw2));			/* the old life of y */
	EXPECT_EQ(n - 1, edm_shp_leave(&t->b));
	EXPECT_EQ(1U, edm_shp_leave(&t->a));
	for (x = 0; x < t->nbufs; x++)
		EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&t->w, x)));
}

/* keep(): the Buffers whose bit is set in the u64 at @arg */
static bool keep_bits(void *arg, u32 buf)
{
	return buf < 64 && (*(u64 *)arg >> buf & 1);
}

/*
 * A host whose stack still holds Buffers it received leaves keeping them:
 * the rest go back, its slot stays LEAVING (passed nothing, found by no
 * MAC, still beating) until it frees the kept ones or ends the leave.
 */
TEST_F(shp, a_leave_keeps_what_the_stack_holds)
{
	struct three *t = &self->t;
	struct edm_shp_desc d;
	struct edm_shp c;
	u32 x[3], own, s, i, btag;
	u64 hw, ohw, keep = 0, beat;
	u8 mac[6];

	for (i = 0; i < 3; i++) {
		x[i] = alloc_fill(_metadata, &t->a, 200 + i, 64, &hw);
		ASSERT_EQ(0, edm_shp_send(&t->a, t->b.slot, x[i], hw, 64, NULL, 0));
		ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
		ASSERT_EQ(x[i], d.buf);
	}
	own = alloc_fill(_metadata, &t->b, 210, 64, &ohw);
	ASSERT_EQ(4U, edm_shp_held(&t->w, t->b.slot));
	keep = 1ULL << x[0] | 1ULL << x[2];
	s = t->b.slot;
	btag = t->b.tag;
	memcpy(mac, t->b.hosts[s].mac, sizeof(mac));
	/* x[1] and its own go back; x[0] and x[2] stay b's */
	EXPECT_EQ(2U, edm_shp_leave_keep(&t->b, keep_bits, &keep));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_LEAVING, t->b.epoch), edm_shp_host_state(&t->w, s));
	EXPECT_EQ(s, t->b.slot);
	EXPECT_TRUE(edm_shp_leaving(&t->b));
	EXPECT_TRUE(edm_shp_fenced(&t->b));
	EXPECT_FALSE(edm_shp_leaving(&t->a));
	EXPECT_EQ(2U, edm_shp_held(&t->w, s));
	EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&t->w, x[1])));
	EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&t->w, own)));
	EXPECT_EQ(t->b.tag, EDM_SHP_WTAG(holder(&t->w, x[0])));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&t->b, x[2]), 202, t->a.slot, 64));
	/* nobody passes to it or finds it; it takes and allocates nothing */
	EXPECT_FALSE(edm_shp_peer_up(&t->a, s));
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&t->a, mac));
	EXPECT_NE(0, edm_shp_alloc(&t->b, &own, &ohw));
	/* it beats, so a survivor that watches beats has no reason to reap it */
	beat = t->b.hosts[s].beat;
	edm_shp_beat(&t->b);
	EXPECT_EQ(beat + 1, t->b.hosts[s].beat);
	/* a kept Buffer comes back; ending frees the other and the slot */
	EXPECT_EQ(0, edm_shp_free(&t->b, x[0], holder(&t->w, x[0])));
	EXPECT_EQ(1U, edm_shp_leave_end(&t->b));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_FREE, t->b.epoch), edm_shp_host_state(&t->w, s));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, t->b.slot);
	EXPECT_FALSE(edm_shp_leaving(&t->b));
	EXPECT_EQ(0U, edm_shp_leave_end(&t->b));		/* twice: nothing */
	for (i = 0; i < t->nbufs; i++)
		EXPECT_NE(btag, EDM_SHP_WTAG(holder(&t->w, i)));

	/* Nothing kept: the same as a leave. */
	ASSERT_EQ(0, edm_shp_join(&t->b, "b", mac));
	x[0] = alloc_fill(_metadata, &t->b, 220, 64, &hw);
	keep = 0;
	EXPECT_EQ(1U, edm_shp_leave_keep(&t->b, keep_bits, &keep));
	EXPECT_EQ((u32)EDM_SHP_H_FREE, EDM_SHP_HW_STATE(edm_shp_host_state(&t->w, s)));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, t->b.slot);

	/* A leaving host that stops beating is reaped like a dead one, kept Buffers too. */
	ASSERT_EQ(0, edm_shp_join(&t->b, "b", mac));
	s = t->b.slot;
	x[0] = alloc_fill(_metadata, &t->b, 230, 64, &hw);
	x[1] = alloc_fill(_metadata, &t->b, 231, 64, &hw);
	keep = 1ULL << x[0];
	EXPECT_EQ(1U, edm_shp_leave_keep(&t->b, keep_bits, &keep));
	EXPECT_EQ(1U, edm_shp_reap(&t->a, s, edm_shp_host_state(&t->w, s)));
	EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&t->w, x[0])));
	EXPECT_EQ((u32)EDM_SHP_H_FREE, EDM_SHP_HW_STATE(edm_shp_host_state(&t->w, s)));
	EXPECT_FALSE(edm_shp_leaving(&t->b));
	/* its late end changes nothing of the slot's next life */
	ASSERT_EQ(0, edm_shp_open(&c, t->base, t->size));
	ASSERT_EQ(0, edm_shp_join(&c, "c", mac));
	EXPECT_EQ(s, c.slot);
	EXPECT_NE(0, edm_shp_free(&t->b, x[0], holder(&t->w, x[0])));
	EXPECT_EQ(0U, edm_shp_leave_end(&t->b));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, t->b.slot);
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_LIVE, c.epoch), edm_shp_host_state(&t->w, s));
	EXPECT_EQ(0U, edm_shp_leave(&c));

	/* A fenced life keeps nothing and just forgets its slot. */
	ASSERT_EQ(0, edm_shp_join(&t->b, "b", mac));
	s = t->b.slot;
	x[0] = alloc_fill(_metadata, &t->b, 240, 64, &hw);
	EXPECT_EQ(1U, edm_shp_reap(&t->a, s, edm_shp_host_state(&t->w, s)));
	keep = ~0ULL;
	EXPECT_EQ(0U, edm_shp_leave_keep(&t->b, keep_bits, &keep));
	EXPECT_EQ((u32)EDM_SHP_MAX_HOSTS, t->b.slot);
	EXPECT_EQ((u32)EDM_SHP_H_FREE, EDM_SHP_HW_STATE(edm_shp_host_state(&t->w, s)));
	EXPECT_EQ(0U, edm_shp_leave(&t->a));
	for (i = 0; i < t->nbufs; i++)
		EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&t->w, i)));
}

/*
 * Frames in Buffers of a page or more: headroom, the first part in the
 * first page, the rest from the second; smaller Buffers from offset 0.
 */
TEST(frames_in_pages)
{
	struct edm_shp_cfg cfg = cfg_small(2, 8);
	const u64 size = 1 << 20;
	u8 *base = range_new(size);
	u32 off0, len0, off1;
	struct edm_shp v;

	ASSERT_NE(NULL, base);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&v, base, size));
	EXPECT_FALSE(edm_shp_frame_paged(&v));
	EXPECT_EQ(2048U, edm_shp_frame_max(&v));
	edm_shp_frame_parts(&v, 1500, &off0, &len0, &off1);
	EXPECT_EQ(0U, off0);
	EXPECT_EQ(1500U, len0);
	memset(base, 0, size);
	cfg.buf_shift = 16;
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&v, base, size));
	EXPECT_TRUE(edm_shp_frame_paged(&v));
	/* every Buffer starts on a page of the range */
	EXPECT_EQ(0UL, (unsigned long)((u8 *)edm_shp_buf(&v, 1) - base) % (unsigned long)PAGE);
	EXPECT_EQ(65536U - 4096 + 3584, edm_shp_frame_max(&v));
	edm_shp_frame_parts(&v, 60, &off0, &len0, &off1);
	EXPECT_EQ(64U, off0);
	EXPECT_EQ(60U, len0);
	edm_shp_frame_parts(&v, 3584, &off0, &len0, &off1);
	EXPECT_EQ(3584U, len0);
	edm_shp_frame_parts(&v, 9000, &off0, &len0, &off1);
	EXPECT_EQ(64U, off0);
	EXPECT_EQ(3584U, len0);
	EXPECT_EQ(4096U, off1);
	/* the first part ends where a page's end can still hold an skb's shared info */
	EXPECT_LE(64U + 3584 + 448, 4096U);
	memset(base, 0, size);
	cfg.buf_shift = 12;
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&v, base, size));
	EXPECT_TRUE(edm_shp_frame_paged(&v));
	EXPECT_EQ(3584U, edm_shp_frame_max(&v));
	free(base);
}

TEST_F(shp, send_take_intact_and_refusals)
{
	struct three *t = &self->t;
	u8 meta[16], meta2[17] = { 0 };
	struct edm_shp_desc d;
	u64 hw, nw;
	u32 x, y, i;

	for (i = 0; i < 16; i++)
		meta[i] = (u8)(0xc0 + i);
	x = alloc_fill(_metadata, &t->a, 100, 1024, &hw);
	EXPECT_FALSE(edm_shp_pending(&t->b, t->a.slot));
	EXPECT_EQ(-EAGAIN, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(0, edm_shp_send(&t->a, t->b.slot, x, hw, 1024, meta, 16));
	/* b holds it from the pass on, with the same gen. */
	EXPECT_EQ((u64)EDM_SHP_GEN(hw) << 32 | t->b.tag, holder(&t->w, x));
	EXPECT_EQ(0U, edm_shp_held(&t->w, t->a.slot));
	EXPECT_EQ(1U, edm_shp_held(&t->w, t->b.slot));
	/* a gave it away: it cannot free or send it any more */
	EXPECT_EQ(-EPERM, edm_shp_free(&t->a, x, hw));
	EXPECT_EQ(-EPERM, edm_shp_send(&t->a, t->b.slot, x, hw, 64, NULL, 0));
	EXPECT_TRUE(edm_shp_pending(&t->b, t->a.slot));
	EXPECT_FALSE(edm_shp_pending(&t->a, t->b.slot));
	ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(x, d.buf);
	EXPECT_EQ(1024U, d.len);
	EXPECT_EQ(holder(&t->w, x), d.hw);
	EXPECT_EQ(0, memcmp(meta, d.meta, 16));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&t->b, x), 100, t->a.slot, 1024));
	EXPECT_FALSE(edm_shp_pending(&t->b, t->a.slot));
	EXPECT_EQ(-EAGAIN, edm_shp_take(&t->b, t->a.slot, &d));
	/* b sends it back on: same Buffer, same gen, to a. */
	EXPECT_EQ(0, edm_shp_send(&t->b, t->a.slot, x, d.hw, 0, NULL, 0));
	ASSERT_EQ(0, edm_shp_take(&t->a, t->b.slot, &d));
	EXPECT_EQ(hw, d.hw);
	EXPECT_EQ(0U, d.len);
	EXPECT_EQ(0, edm_shp_free(&t->a, x, d.hw));

	/* Refused sends leave the Buffer with the sender and queue nothing. */
	x = alloc_fill(_metadata, &t->a, 101, 64, &hw);
	EXPECT_EQ(-EINVAL, edm_shp_send(&t->a, t->a.slot, x, hw, 64, NULL, 0));
	EXPECT_EQ(-EHOSTDOWN, edm_shp_send(&t->a, t->free_slot, x, hw, 64, NULL, 0));
	EXPECT_EQ(-EINVAL, edm_shp_send(&t->a, 3, x, hw, 64, NULL, 0));
	EXPECT_EQ(-EINVAL, edm_shp_send(&t->a, EDM_SHP_MAX_HOSTS, x, hw, 64, NULL, 0));
	EXPECT_EQ(-EINVAL, edm_shp_send(&t->a, t->b.slot, x, hw, 2049, NULL, 0));
	EXPECT_EQ(-EINVAL, edm_shp_send(&t->a, t->b.slot, x, hw, 64, meta2, 17));
	EXPECT_EQ(-EHOSTDOWN, edm_shp_pass(&t->a, x, hw, t->free_slot, &nw));
	EXPECT_EQ(-EINVAL, edm_shp_pass(&t->a, x, hw, t->a.slot, &nw));
	EXPECT_EQ(hw, holder(&t->w, x));
	EXPECT_EQ(1U, edm_shp_held(&t->w, t->a.slot));
	for (i = 0; i < 3; i++)
		EXPECT_FALSE(edm_shp_pending(&t->b, i));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&t->a, x), 101, t->a.slot, 64));

	/* Pass then post is a send. */
	EXPECT_EQ(0, edm_shp_pass(&t->a, x, hw, t->b.slot, &nw));
	EXPECT_EQ((u64)EDM_SHP_GEN(hw) << 32 | t->b.tag, nw);
	EXPECT_EQ(nw, holder(&t->w, x));
	memset(&d, 0, sizeof(d));
	d.hw = nw;
	d.buf = x;
	d.len = 64;
	memcpy(d.meta, meta, 16);
	EXPECT_EQ(0, edm_shp_post(&t->a, t->b.slot, &d));
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(nw, d.hw);
	EXPECT_EQ(x, d.buf);
	EXPECT_EQ(0, memcmp(meta, d.meta, 16));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&t->b, x), 101, t->a.slot, 64));

	/* Garbage on the ring is consumed and refused; it hands b nothing. */
	y = alloc_fill(_metadata, &t->a, 102, 64, &hw);
	d = (struct edm_shp_desc){ .hw = nw, .buf = t->nbufs, .len = 64 };
	EXPECT_EQ(0, edm_shp_post(&t->a, t->b.slot, &d));
	/* the wrong gen */
	d = (struct edm_shp_desc){ .hw = nw + (1ULL << 32), .buf = x, .len = 64 };
	EXPECT_EQ(0, edm_shp_post(&t->a, t->b.slot, &d));
	/* too long */
	d = (struct edm_shp_desc){ .hw = nw, .buf = x, .len = 2049 };
	EXPECT_EQ(0, edm_shp_post(&t->a, t->b.slot, &d));
	d = (struct edm_shp_desc){ .hw = hw, .buf = y, .len = 64 };	/* a's, not b's */
	EXPECT_EQ(0, edm_shp_post(&t->a, t->b.slot, &d));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(-ESTALE, edm_shp_take(&t->b, t->a.slot, &d)) TH_LOG("garbage %u", i);
	}
	EXPECT_EQ(-EAGAIN, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(4ULL, t->b.st.refused);
	EXPECT_EQ(1U, edm_shp_held(&t->w, t->b.slot));	/* x, still */
	EXPECT_EQ(1U, edm_shp_held(&t->w, t->a.slot));	/* y, still */
	EXPECT_EQ(0, edm_shp_free(&t->b, x, nw));
	EXPECT_EQ(0, edm_shp_free(&t->a, y, hw));
}

TEST_F(shp, ring_full_fifo_and_stale_after_rejoin)
{
	struct three *t = &self->t;
	struct edm_shp_desc d;
	u32 x[9], i, b, sent = 0;
	u64 hw[9], nw;

	for (i = 0; i < 9; i++)
		x[i] = alloc_fill(_metadata, &t->a, 200 + i, 16 + 8 * i, &hw[i]);
	EXPECT_EQ(8U, edm_shp_room(&t->a, t->b.slot));
	EXPECT_EQ(8U, edm_shp_room(&t->a, t->free_slot));	/* room, not liveness */
	EXPECT_EQ(0U, edm_shp_room(&t->a, 3));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, edm_shp_send(&t->a, t->b.slot, x[i], hw[i], 16 + 8 * i, &i, 4));
		EXPECT_EQ(7 - i, edm_shp_room(&t->a, t->b.slot));
	}
	EXPECT_EQ(8U, edm_shp_room(&t->b, t->a.slot));
	/* The ring holds ring_size: the next is refused and stays a's. */
	EXPECT_EQ(-ENOSPC, edm_shp_send(&t->a, t->b.slot, x[8], hw[8], 80, NULL, 0));
	EXPECT_EQ(hw[8], holder(&t->w, x[8]));
	EXPECT_EQ(1U, edm_shp_held(&t->w, t->a.slot));
	EXPECT_EQ(8U, edm_shp_held(&t->w, t->b.slot));
	d = (struct edm_shp_desc){ .hw = 1, .buf = 0 };
	EXPECT_EQ(-ENOSPC, edm_shp_post(&t->a, t->b.slot, &d));
	/* The other direction is a ring of its own. */
	EXPECT_FALSE(edm_shp_pending(&t->a, t->b.slot));
	/* One taken: room for one; first in, first out. */
	ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(x[0], d.buf);
	EXPECT_EQ(1U, edm_shp_room(&t->a, t->b.slot));
	EXPECT_EQ(0, edm_shp_free(&t->b, d.buf, d.hw));
	EXPECT_EQ(0, edm_shp_send(&t->a, t->b.slot, x[8], hw[8], 80, &i, 4));
	b = alloc_fill(_metadata, &t->a, 299, 16, &nw);
	EXPECT_EQ(-ENOSPC, edm_shp_send(&t->a, t->b.slot, b, nw, 16, NULL, 0));
	EXPECT_EQ(0, edm_shp_free(&t->a, b, nw));
	for (i = 1; i < 9; i++) {
		ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
		EXPECT_EQ(x[i], d.buf);
		EXPECT_EQ(16 + 8 * i, d.len);
		EXPECT_EQ(0, pay_check(edm_shp_buf(&t->b, d.buf), 200 + i, t->a.slot, d.len));
		EXPECT_EQ(0, edm_shp_free(&t->b, d.buf, d.hw));
	}
	EXPECT_EQ(-EAGAIN, edm_shp_take(&t->b, t->a.slot, &d));
	/* Many laps of the ring. */
	for (i = 0; i < 100; i++) {
		b = alloc_fill(_metadata, &t->a, 300 + i, 32, &hw[0]);
		ASSERT_EQ(0, edm_shp_send(&t->a, t->b.slot, b, hw[0], 32, NULL, 0));
		ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
		EXPECT_EQ(b, d.buf);
		EXPECT_EQ(0, pay_check(edm_shp_buf(&t->b, b), 300 + i, t->a.slot, 32));
		EXPECT_EQ(0, edm_shp_free(&t->b, d.buf, d.hw));
	}

	/*
	 * b leaves with 3 queued to it and one it took: all 4 are given back.
	 * Its next life refuses the 3 and is handed none of them.
	 */
	for (i = 0; i < 4; i++) {
		x[i] = alloc_fill(_metadata, &t->a, 400 + i, 64, &hw[i]);
		EXPECT_EQ(0, edm_shp_send(&t->a, t->b.slot, x[i], hw[i], 64, NULL, 0));
	}
	ASSERT_EQ(0, edm_shp_take(&t->b, t->a.slot, &d));
	x[4] = alloc_fill(_metadata, &t->a, 404, 64, &hw[4]);	/* a's own: untouched */
	/* one more passed without a descriptor: b holds it too */
	x[5] = alloc_fill(_metadata, &t->a, 405, 64, &hw[5]);
	EXPECT_EQ(0, edm_shp_pass(&t->a, x[5], hw[5], t->b.slot, &nw));
	EXPECT_EQ(5U, edm_shp_held(&t->w, t->b.slot));
	EXPECT_EQ(5U, edm_shp_leave(&t->b));
	for (i = 0; i < 6; i++)
		if (i != 4)
			EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&t->w, x[i])));
	EXPECT_EQ(hw[4], holder(&t->w, x[4]));
	ASSERT_EQ(0, edm_shp_join(&t->b, "b", (const u8 *)"\2\0\0\0\0\2"));
	for (i = 1; i < 4; i++) {
		EXPECT_EQ(-ESTALE, edm_shp_take(&t->b, t->a.slot, &d)) TH_LOG("stale %u", i);
	}
	EXPECT_EQ(-EAGAIN, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(0U, edm_shp_held(&t->w, t->b.slot));
	/* Even once a reallocated the same Buffers and sent them again. */
	for (i = 0; i < 8; i++) {
		x[i] = alloc_fill(_metadata, &t->a, 500 + i, 64, &hw[i]);
		EXPECT_EQ(0, edm_shp_send(&t->a, t->b.slot, x[i], hw[i], 64, NULL, 0));
	}
	EXPECT_EQ(8U, edm_shp_held(&t->w, t->b.slot));
	EXPECT_EQ(8U, edm_shp_leave(&t->b));
	ASSERT_EQ(0, edm_shp_join(&t->b, "b", (const u8 *)"\2\0\0\0\0\2"));
	/* a takes every free Buffer, those 8 among them: b is still handed none. */
	for (sent = 1; !edm_shp_alloc(&t->a, &b, &nw); sent++)
		EXPECT_NE(0, edm_shp_free(&t->b, b, nw));
	EXPECT_EQ(t->nbufs, sent);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(-ESTALE, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(-EAGAIN, edm_shp_take(&t->b, t->a.slot, &d));
	EXPECT_EQ(0U, edm_shp_held(&t->w, t->b.slot));
	EXPECT_EQ(t->nbufs, edm_shp_held(&t->w, t->a.slot));
	EXPECT_EQ(t->nbufs, edm_shp_leave(&t->a));
}

/* ---- death ---- */

/*
 * A life reaped while it still runs (a stalled host) is fenced: it
 * allocates nothing more (that Buffer would be lost for good) and takes
 * nothing queued to the slot's next life.
 */
TEST(a_reaped_life_that_still_runs_is_fenced)
{
	struct edm_shp_cfg cfg = cfg_small(2, 8);
	const u64 size = 64 * 1024;
	u8 *base = range_new(size), mac[6];
	struct edm_shp a, b, c, w;
	struct edm_shp_desc d;
	u32 x, i, nfree = 0;
	u64 hw;

	ASSERT_NE(NULL, base);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&a, base, size));
	ASSERT_EQ(0, edm_shp_open(&b, base, size));
	ASSERT_EQ(0, edm_shp_open(&c, base, size));
	ASSERT_EQ(0, edm_shp_open(&w, base, size));
	mac_of(mac, 1);
	ASSERT_EQ(0, edm_shp_join(&a, "a", mac));
	mac_of(mac, 2);
	ASSERT_EQ(0, edm_shp_join(&b, "b", mac));
	edm_shp_reap(&a, b.slot, edm_shp_host_state(&a, b.slot));
	EXPECT_TRUE(edm_shp_fenced(&b));
	EXPECT_EQ(-ENOTCONN, edm_shp_alloc(&b, &x, &hw));
	for (i = 0; i < w.geo.nbufs; i++)
		nfree += !EDM_SHP_WTAG(w.holder[i]);
	EXPECT_EQ(w.geo.nbufs, nfree);		/* the refused allocation kept nothing */

	/* the slot's next life gets what is queued to it, the old one nothing */
	mac_of(mac, 3);
	ASSERT_EQ(0, edm_shp_join(&c, "c", mac));
	ASSERT_EQ(b.slot, c.slot);
	ASSERT_EQ(0, edm_shp_alloc(&a, &x, &hw));
	ASSERT_EQ(0, edm_shp_send(&a, c.slot, x, hw, 64, NULL, 0));
	EXPECT_EQ(-ENOTCONN, edm_shp_take(&b, a.slot, &d));
	EXPECT_EQ(0, edm_shp_take(&c, a.slot, &d));
	EXPECT_EQ(x, d.buf);
	EXPECT_EQ(0, edm_shp_free(&c, d.buf, d.hw));
	edm_shp_leave(&c);
	edm_shp_leave(&a);
	free(base);
}

/*
 * A live host changes its MAC: peers find it by the new one at once, never
 * by the old. A change that does not start from the slot's MAC, or from a
 * life that was reaped (even after its slot's next life joined), writes
 * nothing.
 */
TEST(a_live_mac_change)
{
	struct edm_shp_cfg cfg = cfg_small(2, 8);
	const u64 size = 64 * 1024;
	u8 *base = range_new(size), m1[6], m2[6], m3[6], m9[6];
	struct edm_shp a, b, c;
	u64 word;

	ASSERT_NE(NULL, base);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&a, base, size));
	ASSERT_EQ(0, edm_shp_open(&b, base, size));
	ASSERT_EQ(0, edm_shp_open(&c, base, size));
	mac_of(m1, 1);
	mac_of(m2, 2);
	mac_of(m3, 3);
	mac_of(m9, 9);
	ASSERT_EQ(0, edm_shp_join(&a, "a", m1));
	ASSERT_EQ(0, edm_shp_join(&b, "b", m2));

	EXPECT_EQ(0, edm_shp_set_mac(&b, m2, m9));
	EXPECT_EQ((int)b.slot, edm_shp_find_mac(&a, m9));
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&a, m2));
	EXPECT_EQ(0, memcmp(m9, a.hosts[b.slot].mac, 6));
	/* from a MAC the slot does not have: nothing changes */
	EXPECT_EQ(-ENOTCONN, edm_shp_set_mac(&b, m2, m3));
	EXPECT_EQ((int)b.slot, edm_shp_find_mac(&a, m9));
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&a, m3));
	/* back, and a view that never joined changes nothing */
	EXPECT_EQ(0, edm_shp_set_mac(&b, m9, m2));
	EXPECT_EQ(-ENOTCONN, edm_shp_set_mac(&c, m2, m3));
	EXPECT_EQ((int)b.slot, edm_shp_find_mac(&a, m2));

	/* b is reaped while it still runs; c takes the slot with m3 */
	edm_shp_reap(&a, b.slot, edm_shp_host_state(&a, b.slot));
	EXPECT_EQ(-ENOTCONN, edm_shp_set_mac(&b, m2, m9));
	ASSERT_EQ(0, edm_shp_join(&c, "c", m3));
	ASSERT_EQ(b.slot, c.slot);
	word = a.hosts[c.slot].mac_word;
	EXPECT_EQ(-ENOTCONN, edm_shp_set_mac(&b, m2, m9));
	EXPECT_EQ(word, a.hosts[c.slot].mac_word);
	EXPECT_EQ((int)c.slot, edm_shp_find_mac(&a, m3));
	EXPECT_EQ(-ENOENT, edm_shp_find_mac(&a, m9));
	edm_shp_leave(&c);
	edm_shp_leave(&a);
	free(base);
}

/* A host says whether its receive side runs; only a live other host's counts. */
TEST_F(shp, up_is_published)
{
	struct three *t = &self->t;

	EXPECT_FALSE(edm_shp_peer_up(&t->a, t->b.slot));	/* not yet */
	edm_shp_set_up(&t->b, true);
	EXPECT_TRUE(edm_shp_peer_up(&t->a, t->b.slot));
	EXPECT_FALSE(edm_shp_peer_up(&t->b, t->b.slot));	/* never itself */
	EXPECT_FALSE(edm_shp_peer_up(&t->a, t->free_slot));
	edm_shp_set_up(&t->b, false);
	EXPECT_FALSE(edm_shp_peer_up(&t->a, t->b.slot));
}

TEST(a_dead_host_is_reaped_once_and_its_slot_reused)
{
	struct edm_shp_cfg cfg = cfg_small(4, 8);
	const u64 size = 128 * 1024;
	u8 *base = range_new(size);
	struct edm_shp a, b, c, d, w;
	struct edm_shp_desc dd;
	u32 xa, xb[2], xc, xd[4], xto[3], xdc, i, ds, n;
	u64 ha, hb[2], hc, hd[4], hto[3], hdc, seen, keep[128];

	ASSERT_NE(NULL, base);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&w, base, size));
	ASSERT_EQ(0, edm_shp_open(&a, base, size));
	ASSERT_EQ(0, edm_shp_open(&b, base, size));
	ASSERT_EQ(0, edm_shp_open(&c, base, size));
	ASSERT_EQ(0, edm_shp_open(&d, base, size));
	ASSERT_EQ(0, edm_shp_join(&a, "a", (const u8 *)"\2\0\0\0\0\1"));
	ASSERT_EQ(0, edm_shp_join(&b, "b", (const u8 *)"\2\0\0\0\0\2"));
	ASSERT_EQ(0, edm_shp_join(&c, "c", (const u8 *)"\2\0\0\0\0\3"));
	ASSERT_EQ(0, edm_shp_join(&d, "d", (const u8 *)"\2\0\0\0\0\4"));
	ASSERT_LE(16U, w.geo.nbufs);
	ds = d.slot;

	/* d holds 4 and takes one of a's 2; b sends it 1; d sends c one (c holds it). */
	xa = alloc_fill(_metadata, &a, 1, 512, &ha);
	xb[0] = alloc_fill(_metadata, &b, 2, 512, &hb[0]);
	xb[1] = alloc_fill(_metadata, &b, 3, 512, &hb[1]);
	xc = alloc_fill(_metadata, &c, 4, 512, &hc);
	for (i = 0; i < 4; i++)
		xd[i] = alloc_fill(_metadata, &d, 10 + i, 512, &hd[i]);
	for (i = 0; i < 3; i++) {
		xto[i] = alloc_fill(_metadata, i < 2 ? &a : &b, 20 + i, 512, &hto[i]);
		EXPECT_EQ(0, edm_shp_send(i < 2 ? &a : &b, ds, xto[i], hto[i], 512, NULL, 0));
	}
	ASSERT_EQ(0, edm_shp_take(&d, a.slot, &dd));
	EXPECT_EQ(xto[0], dd.buf);
	xdc = alloc_fill(_metadata, &d, 30, 512, &hdc);
	EXPECT_EQ(0, edm_shp_send(&d, c.slot, xdc, hdc, 512, NULL, 0));
	EXPECT_EQ(7U, edm_shp_held(&w, ds));
	for (i = 0; i < w.geo.nbufs; i++)
		keep[i] = holder(&w, i);

	/* d dies: no leave. b reaps the life it saw. */
	seen = edm_shp_host_state(&w, ds);
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_LIVE, d.epoch), seen);
	EXPECT_FALSE(edm_shp_fenced(&d));
	EXPECT_EQ(7U, edm_shp_reap(&b, ds, seen));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_FREE, d.epoch), edm_shp_host_state(&w, ds));
	EXPECT_EQ(0U, edm_shp_held(&w, ds));
	EXPECT_TRUE(edm_shp_fenced(&d));
	EXPECT_EQ(1ULL, b.st.reaped_hosts);
	EXPECT_EQ(7ULL, b.st.reaped_bufs);
	EXPECT_EQ(1ULL, w.hosts[ds].reaped);
	for (i = 0; i < w.geo.nbufs; i++) {
		if (EDM_SHP_WTAG(keep[i]) == d.tag) {
			EXPECT_EQ((u64)EDM_SHP_GEN(keep[i]) << 32, holder(&w, i))
				TH_LOG("Buffer %u", i);
		} else {
			EXPECT_EQ(keep[i], holder(&w, i)) TH_LOG("Buffer %u", i);
		}
	}
	/* The others' Buffers, and the one d passed c before dying, are intact. */
	EXPECT_EQ(0, pay_check(edm_shp_buf(&w, xa), 1, a.slot, 512));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&w, xb[0]), 2, b.slot, 512));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&w, xb[1]), 3, b.slot, 512));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&w, xc), 4, c.slot, 512));
	EXPECT_EQ(1U, edm_shp_held(&w, a.slot));
	EXPECT_EQ(2U, edm_shp_held(&w, b.slot));
	EXPECT_EQ(2U, edm_shp_held(&w, c.slot));
	ASSERT_EQ(0, edm_shp_take(&c, ds, &dd));
	EXPECT_EQ(xdc, dd.buf);
	EXPECT_EQ(0, pay_check(edm_shp_buf(&c, xdc), 30, ds, 512));
	EXPECT_EQ(0, edm_shp_free(&c, dd.buf, dd.hw));
	/* Once only. */
	EXPECT_EQ(0U, edm_shp_reap(&c, ds, seen));
	EXPECT_EQ(0U, edm_shp_reap(&b, ds, seen));
	EXPECT_EQ(0ULL, c.st.reaped_hosts);
	EXPECT_EQ(1ULL, w.hosts[ds].reaped);
	/* Its Buffers are free for all; sends to it are refused and kept. */
	EXPECT_EQ(-EHOSTDOWN, edm_shp_send(&a, ds, xa, ha, 512, NULL, 0));
	EXPECT_EQ(ha, holder(&w, xa));

	/* d comes back: a new life in the same slot refuses what was queued to the old one. */
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(0, edm_shp_open(&d, base, size));
	ASSERT_EQ(0, edm_shp_join(&d, "d", (const u8 *)"\2\0\0\0\0\4"));
	EXPECT_EQ(ds, d.slot);
	EXPECT_EQ(-ESTALE, edm_shp_take(&d, a.slot, &dd));
	EXPECT_EQ(-ESTALE, edm_shp_take(&d, b.slot, &dd));
	EXPECT_EQ(-EAGAIN, edm_shp_take(&d, a.slot, &dd));
	EXPECT_EQ(-EAGAIN, edm_shp_take(&d, b.slot, &dd));
	EXPECT_EQ(0U, edm_shp_held(&w, ds));
	EXPECT_EQ(0, edm_shp_send(&a, ds, xa, ha, 512, NULL, 0));
	ASSERT_EQ(0, edm_shp_take(&d, a.slot, &dd));
	EXPECT_EQ(0, pay_check(edm_shp_buf(&d, xa), 1, a.slot, 512));
	EXPECT_EQ(1U, edm_shp_held(&w, ds));

	/* A reaper that died half way (the slot left DEAD) is finished by the next. */
	xd[0] = alloc_fill(_metadata, &d, 40, 64, &hd[0]);
	seen = EDM_SHP_HW(EDM_SHP_H_DEAD, d.epoch);
	d.hosts[ds].state = seen;
	EXPECT_EQ(2U, edm_shp_held(&w, ds));
	EXPECT_TRUE(edm_shp_fenced(&d));
	EXPECT_EQ(2U, edm_shp_reap(&c, ds, seen));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_FREE, d.epoch), edm_shp_host_state(&w, ds));
	EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&w, xa)));
	EXPECT_EQ(0U, EDM_SHP_WTAG(holder(&w, xd[0])));

	/* So is a host that died leaving, and one that died joining. */
	EXPECT_EQ(0U, edm_shp_leave(&d));
	ASSERT_EQ(0, edm_shp_join(&d, "d", (const u8 *)"\2\0\0\0\0\4"));
	xd[0] = alloc_fill(_metadata, &d, 41, 64, &hd[0]);
	seen = EDM_SHP_HW(EDM_SHP_H_LEAVING, d.epoch);
	d.hosts[ds].state = seen;
	EXPECT_EQ(1U, edm_shp_reap(&a, ds, seen));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_FREE, d.epoch), edm_shp_host_state(&w, ds));
	seen = EDM_SHP_HW(EDM_SHP_H_JOINING, d.epoch + 1);
	d.hosts[ds].state = seen;
	EXPECT_EQ(0U, edm_shp_reap(&a, ds, seen));
	EXPECT_EQ(EDM_SHP_HW(EDM_SHP_H_FREE, d.epoch + 1), edm_shp_host_state(&w, ds));

	/* Everyone else leaves: everything is free. */
	EXPECT_EQ(0U, edm_shp_leave(&a));	/* xa went to d's second life, reaped */
	EXPECT_EQ(2U, edm_shp_leave(&b));
	EXPECT_EQ(1U, edm_shp_leave(&c));
	for (n = 0, i = 0; i < w.geo.nbufs; i++)
		n += !EDM_SHP_WTAG(holder(&w, i));
	EXPECT_EQ(w.geo.nbufs, n);
	free(base);
}

/* ---- the shadow model ---- */

enum { M_MAXB = 128, M_MAXM = 6, M_MAXH = 4, M_RING = 16 };

struct mring {
	struct edm_shp_desc q[M_RING];
	u32 head, n;
};

struct mtotals {
	u64 allocs, enomem, frees, bad_frees, sends, hostdown, nospc, bad_sends, passes, orphans,
	    takes, stale, empty, leaves, kept_leaves, left_bufs, joins, ebusy, deaths, reaps,
	    reaped_bufs, fenced_live;
};

struct model {
	u8 *base;
	u64 size;
	u32 nhosts, nm, nbufs, rsize, bufsz;
	unsigned int seed;
	struct edm_shp w;			/* a watcher: opened, never joined */
	struct edm_shp m[M_MAXM];		/* the machines */
	bool dead[M_MAXM];			/* abandoned, its life not reaped yet */
	u64 dead_word[M_MAXM];
	u64 sw[M_MAXH];				/* each slot's state word */
	u64 hw[M_MAXB];				/* each Buffer's holder word */
	int known[M_MAXB];			/* the machine that took or allocated it */
	u64 seq[M_MAXB];			/* its contents while not free */
	u32 src[M_MAXB], len[M_MAXB];
	struct mring ring[M_MAXH][M_MAXH];
	u64 next_seq;
	struct mtotals t;
};

static bool m_live(const struct model *M, u32 s)
{
	return EDM_SHP_HW_STATE(M->sw[s]) == EDM_SHP_H_LIVE;
}

static u32 m_tag(const struct model *M, u32 s)
{
	return EDM_SHP_TAG(s, EDM_SHP_HW_EPOCH(M->sw[s]));
}

static bool m_joined(const struct model *M, u32 i)
{
	return M->m[i].slot < M->nhosts && !M->dead[i];
}

/* Free every Buffer tagged @tag in the shadow; how many. */
static u32 m_free_tagged(struct model *M, u32 tag)
{
	u32 b, n = 0;

	for (b = 0; b < M->nbufs; b++) {
		if (EDM_SHP_WTAG(M->hw[b]) != tag)
			continue;
		M->hw[b] = (u64)EDM_SHP_GEN(M->hw[b]) << 32;
		M->known[b] = -1;
		n++;
	}
	return n;
}

static u32 m_count(const struct model *M, u32 tag)
{
	u32 b, n = 0;

	for (b = 0; b < M->nbufs; b++)
		n += EDM_SHP_WTAG(M->hw[b]) == tag;
	return n;
}

static int m_pick_known(struct model *M, u32 i)
{
	u32 b, n = 0, k;

	for (b = 0; b < M->nbufs; b++)
		n += M->known[b] == (int)i;
	if (!n)
		return -1;
	k = rnd(&M->seed) % n;
	for (b = 0; b < M->nbufs; b++)
		if (M->known[b] == (int)i && !k--)
			return b;
	return -1;
}

static void m_fill(struct model *M, u32 b, u32 slot)
{
	M->seq[b] = ++M->next_seq;
	M->src[b] = slot;
	M->len[b] = pay_len(rnd(&M->seed), M->bufsz);
	pay_fill(edm_shp_buf(&M->w, b), M->seq[b], slot, M->len[b]);
}

/* Everything shared, against the shadow. */
static void m_check(struct __test_metadata *_metadata, struct model *M, u32 step, bool all)
{
	u32 s, b, i;

	for (s = 0; s < M->nhosts; s++) {
		u32 n = EDM_SHP_HW_STATE(M->sw[s]) == EDM_SHP_H_FREE ? 0 : m_count(M, m_tag(M, s));

		ASSERT_EQ(M->sw[s], edm_shp_host_state(&M->w, s))
			TH_LOG("step %u slot %u", step, s);
		ASSERT_EQ(n, edm_shp_held(&M->w, s)) TH_LOG("step %u held(%u)", step, s);
	}
	for (b = 0; b < M->nbufs; b++) {
		ASSERT_EQ(M->hw[b], holder(&M->w, b)) TH_LOG("step %u Buffer %u", step, b);
		if (!all || !EDM_SHP_WTAG(M->hw[b]))
			continue;
		ASSERT_EQ(0, pay_check(edm_shp_buf(&M->w, b), M->seq[b], M->src[b], M->len[b]))
			TH_LOG("step %u Buffer %u altered", step, b);
	}
	for (i = 0; i < M->nm; i++) {
		if (!m_joined(M, i))
			continue;
		ASSERT_FALSE(edm_shp_fenced(&M->m[i])) TH_LOG("step %u machine %u", step, i);
		for (s = 0; s < M->nhosts; s++) {
			ASSERT_EQ(M->ring[s][M->m[i].slot].n != 0, !!edm_shp_pending(&M->m[i], s))
				TH_LOG("step %u machine %u pending(%u)", step, i, s);
			ASSERT_EQ(M->rsize - M->ring[M->m[i].slot][s].n, edm_shp_room(&M->m[i], s))
				TH_LOG("step %u machine %u room(%u)", step, i, s);
		}
		ASSERT_EQ(0U, edm_shp_room(&M->m[i], M->nhosts));
	}
}

static void m_alloc(struct __test_metadata *_metadata, struct model *M, u32 i)
{
	struct edm_shp *v = &M->m[i];
	u32 b, any = 0;
	u64 hw;
	int rc;

	for (b = 0; b < M->nbufs; b++)
		any += !EDM_SHP_WTAG(M->hw[b]);
	rc = edm_shp_alloc(v, &b, &hw);
	if (!any) {
		ASSERT_EQ(-ENOMEM, rc);
		M->t.enomem++;
		return;
	}
	ASSERT_EQ(0, rc);
	ASSERT_LT(b, M->nbufs);
	ASSERT_EQ(0U, EDM_SHP_WTAG(M->hw[b])) TH_LOG("Buffer %u allocated twice", b);
	ASSERT_EQ((u64)(u32)(EDM_SHP_GEN(M->hw[b]) + 1) << 32 | m_tag(M, v->slot), hw);
	M->hw[b] = hw;
	M->known[b] = i;
	m_fill(M, b, v->slot);
	M->t.allocs++;
}

static void m_free(struct __test_metadata *_metadata, struct model *M, u32 i)
{
	struct edm_shp *v = &M->m[i];
	int b = m_pick_known(M, i);

	if (b < 0) {
		m_alloc(_metadata, M, i);
		return;
	}
	ASSERT_EQ(0, pay_check(edm_shp_buf(v, b), M->seq[b], M->src[b], M->len[b]));
	memset(edm_shp_buf(v, b), 0, HDR);
	ASSERT_EQ(0, edm_shp_free(v, b, M->hw[b]));
	M->hw[b] = (u64)EDM_SHP_GEN(M->hw[b]) << 32;
	M->known[b] = -1;
	M->t.frees++;
}

/* Free what one may not: another's, a forged or stale word, a bad index. */
static void m_bad_free(struct __test_metadata *_metadata, struct model *M, u32 i)
{
	struct edm_shp *v = &M->m[i];
	u32 b = rnd(&M->seed) % (M->nbufs + 1), tag = m_tag(M, v->slot), r = rnd(&M->seed) % 3;
	u64 hw;
	int rc;

	if (b == M->nbufs) {
		ASSERT_NE(0, edm_shp_free(v, b, (u64)1 << 32 | tag));
		return;
	}
	hw = r == 0 ? M->hw[b] :				/* as the holder has it */
	     r == 1 ? (u64)EDM_SHP_GEN(M->hw[b]) << 32 | tag :	/* forged: mine */
		      M->hw[b] - (1ULL << 32);			/* a past gen */
	rc = edm_shp_free(v, b, hw);
	if (EDM_SHP_WTAG(hw) == tag && M->hw[b] == hw) {
		/* it is mine by its holder word (passed to me, not taken yet): freeing works */
		ASSERT_EQ(0, rc);
		M->hw[b] = (u64)EDM_SHP_GEN(hw) << 32;
		M->known[b] = -1;
		M->t.frees++;
		return;
	}
	if (EDM_SHP_WTAG(hw) == tag) {
		ASSERT_EQ(-EPERM, rc) TH_LOG("free %u as %llx, holder %llx", b,
					     (unsigned long long)hw, (unsigned long long)M->hw[b]);
	} else {
		ASSERT_TRUE(rc == -EPERM || rc == -EINVAL) TH_LOG("free of another's: %d", rc);
	}
	M->t.bad_frees++;
}

static void m_push(struct model *M, u32 src, u32 dst, const struct edm_shp_desc *d)
{
	struct mring *r = &M->ring[src][dst];

	r->q[(r->head + r->n) % M->rsize] = *d;
	r->n++;
}

/* Send (or pass, then maybe post) one of mine, or a forged one, to @to or any slot. */
static void m_send(struct __test_metadata *_metadata, struct model *M, u32 i, u32 how, int to)
{
	struct edm_shp *v = &M->m[i];
	u32 me = v->slot, dst = rnd(&M->seed) % 16 ? rnd(&M->seed) % M->nhosts : M->nhosts;
	u32 tag = m_tag(M, me);

	if (to >= 0)
		dst = to;
	struct edm_shp_desc d = { 0 };
	int b = m_pick_known(M, i), want, rc;
	u32 meta_len = rnd(&M->seed) % 17, len;
	bool full;
	u64 hw, nw = 0;

	if (how == 2 || b < 0) {
		/* forged: any Buffer, as if mine */
		b = rnd(&M->seed) % M->nbufs;
		hw = (u64)EDM_SHP_GEN(M->hw[b]) << 32 | tag;
	} else {
		hw = M->hw[b];
		if (rnd(&M->seed) & 1)
			m_fill(M, b, me);
	}
	len = rnd(&M->seed) & 1 ? M->len[b] : rnd(&M->seed) % (M->bufsz + 1);
	full = dst < M->nhosts && M->ring[me][dst].n == M->rsize;
	if (dst >= M->nhosts || dst == me)
		want = -EINVAL;
	else if (!m_live(M, dst))
		want = -EHOSTDOWN;
	else if (full && how != 1)
		want = -ENOSPC;
	else if (M->hw[b] != hw)
		want = -EPERM;
	else
		want = 0;
	d.buf = b;
	d.len = len;
	memcpy(d.meta, &M->seq[b], 8);
	if (how == 1) {
		rc = edm_shp_pass(v, b, hw, dst, &nw);
	} else {
		rc = edm_shp_send(v, dst, b, hw, len, d.meta, meta_len);
		memset(d.meta + meta_len, 0, sizeof(d.meta) - meta_len);
	}
	if (want == -EHOSTDOWN && full && rc == -ENOSPC)
		want = -ENOSPC;		/* to a dead host's full ring: either will do */
	ASSERT_EQ(want, rc) TH_LOG("%s %d from slot %u to %u", how == 1 ? "pass" : "send", b, me,
				   dst);
	switch (rc) {
	case 0:
		break;
	case -EHOSTDOWN:
		M->t.hostdown++;
		return;
	case -ENOSPC:
		M->t.nospc++;
		return;
	default:
		M->t.bad_sends++;	/* -EINVAL, -EPERM */
		return;
	}
	d.hw = (u64)EDM_SHP_GEN(hw) << 32 | m_tag(M, dst);
	M->hw[b] = d.hw;
	M->known[b] = -1;
	if (how != 1) {
		m_push(M, me, dst, &d);
		M->t.sends++;
		return;
	}
	ASSERT_EQ(d.hw, nw);
	M->t.passes++;
	if (rnd(&M->seed) % 4 == 0) {
		M->t.orphans++;		/* passed, never posted: dst holds it unknowing */
		return;
	}
	rc = edm_shp_post(v, dst, &d);
	if (full) {
		ASSERT_EQ(-ENOSPC, rc);
		M->t.orphans++;
		return;
	}
	ASSERT_EQ(0, rc);
	m_push(M, me, dst, &d);
}

static void m_take(struct __test_metadata *_metadata, struct model *M, u32 i)
{
	struct edm_shp *v = &M->m[i];
	u32 me = v->slot, src = rnd(&M->seed) % M->nhosts;
	struct mring *r = &M->ring[src][me];
	struct edm_shp_desc d, e;
	int rc;

	memset(&d, 0x5a, sizeof(d));
	rc = edm_shp_take(v, src, &d);
	if (!r->n) {
		ASSERT_EQ(-EAGAIN, rc);
		M->t.empty++;
		return;
	}
	e = r->q[r->head];
	r->head = (r->head + 1) % M->rsize;
	r->n--;
	if (EDM_SHP_WTAG(e.hw) != m_tag(M, me) || M->hw[e.buf] != e.hw) {
		ASSERT_EQ(-ESTALE, rc) TH_LOG("slot %u took Buffer %u as %llx, holder %llx", me,
					      e.buf, (unsigned long long)e.hw,
					      (unsigned long long)M->hw[e.buf]);
		M->t.stale++;
		return;
	}
	ASSERT_EQ(0, rc);
	ASSERT_EQ(0, memcmp(&e, &d, sizeof(d)))
		TH_LOG("slot %u from %u: not what was posted", me, src);
	ASSERT_EQ(0, pay_check(edm_shp_buf(v, e.buf), M->seq[e.buf], M->src[e.buf], M->len[e.buf]))
		TH_LOG("Buffer %u altered on its way", e.buf);
	M->known[e.buf] = i;
	M->t.takes++;
}

/* keep(): the Buffers whose bit in the salt at @arg is set */
static bool m_keep(void *arg, u32 buf)
{
	return *(u32 *)arg >> (buf % 32) & 1;
}

/*
 * A leave, or half the time one that keeps some Buffers (as if the stack
 * held them): the rest are freed, the slot stays LEAVING and beats, every
 * other kept one is freed by itself, and the end frees what is left.
 */
static void m_leave(struct __test_metadata *_metadata, struct model *M, u32 i)
{
	struct edm_shp *v = &M->m[i];
	u32 s = v->slot, tag = m_tag(M, s), n = m_count(M, tag), salt, kept = 0, b, k;
	u64 beat;

	if (rnd(&M->seed) % 2) {
		ASSERT_EQ(n, edm_shp_leave(v));
		goto left;
	}
	salt = rnd(&M->seed);
	for (b = 0; b < M->nbufs; b++)
		kept += EDM_SHP_WTAG(M->hw[b]) == tag && m_keep(&salt, b);
	ASSERT_EQ(n - kept, edm_shp_leave_keep(v, m_keep, &salt));
	if (!kept)
		goto left;
	ASSERT_EQ(EDM_SHP_HW(EDM_SHP_H_LEAVING, EDM_SHP_HW_EPOCH(M->sw[s])),
		  edm_shp_host_state(&M->w, s));
	ASSERT_TRUE(edm_shp_leaving(v));
	ASSERT_EQ(kept, edm_shp_held(&M->w, s));
	ASSERT_FALSE(edm_shp_peer_up(&M->w, s));
	beat = edm_shp_load(&M->w.hosts[s].beat);
	edm_shp_beat(v);
	ASSERT_EQ(beat + 1, edm_shp_load(&M->w.hosts[s].beat));
	for (b = 0, k = 0; b < M->nbufs; b++) {
		if (EDM_SHP_WTAG(M->hw[b]) != tag)
			continue;
		if (!m_keep(&salt, b)) {	/* freed by the leave */
			M->hw[b] = (u64)EDM_SHP_GEN(M->hw[b]) << 32;
			M->known[b] = -1;
			continue;
		}
		if (k++ % 2)
			continue;
		ASSERT_EQ(0, edm_shp_free(v, b, M->hw[b]));
		M->hw[b] = (u64)EDM_SHP_GEN(M->hw[b]) << 32;
		M->known[b] = -1;
		kept--;
	}
	for (b = 0; b < M->nbufs; b++)
		ASSERT_EQ(M->hw[b], edm_shp_load(&M->w.holder[b])) TH_LOG("Buffer %u", b);
	ASSERT_EQ(kept, edm_shp_leave_end(v));
	n = kept;
	M->t.kept_leaves++;
left:
	ASSERT_EQ(n, m_free_tagged(M, tag));
	M->sw[s] = EDM_SHP_HW(EDM_SHP_H_FREE, EDM_SHP_HW_EPOCH(M->sw[s]));
	ASSERT_EQ(M->sw[s], edm_shp_host_state(&M->w, s));
	ASSERT_TRUE(edm_shp_fenced(v));
	ASSERT_FALSE(edm_shp_leaving(v));
	M->t.leaves++;
	M->t.left_bufs += n;
}

static void m_join(struct __test_metadata *_metadata, struct model *M, u32 i)
{
	struct edm_shp *v = &M->m[i];
	u32 s, any = 0, epoch;
	u8 mac[6];
	int rc;

	for (s = 0; s < M->nhosts; s++)
		any += EDM_SHP_HW_STATE(M->sw[s]) == EDM_SHP_H_FREE;
	mac_of(mac, i);
	rc = edm_shp_join(v, "m", mac);
	if (!any) {
		ASSERT_EQ(-EBUSY, rc);
		M->t.ebusy++;
		return;
	}
	ASSERT_EQ(0, rc);
	s = v->slot;
	ASSERT_LT(s, M->nhosts);
	ASSERT_EQ((u32)EDM_SHP_H_FREE, EDM_SHP_HW_STATE(M->sw[s])) TH_LOG("joined a taken slot");
	epoch = EDM_SHP_HW_EPOCH(M->sw[s]) + 1;
	ASSERT_EQ(epoch, v->epoch);
	M->sw[s] = EDM_SHP_HW(EDM_SHP_H_LIVE, epoch);
	ASSERT_EQ(m_tag(M, s), v->tag);
	ASSERT_FALSE(edm_shp_fenced(v));
	M->t.joins++;
}

/* @r reaps the life of @i's slot: @i is dead, or alive and about to learn it was fenced. */
static void m_reap(struct __test_metadata *_metadata, struct model *M, struct edm_shp *r,
		   u32 i)
{
	u32 s = M->m[i].slot, tag = m_tag(M, s), n = m_count(M, tag);
	u64 seen = M->dead[i] ? M->dead_word[i] : edm_shp_host_state(&M->w, s);

	ASSERT_EQ(M->sw[s], seen);
	ASSERT_EQ(n, edm_shp_reap(r, s, seen));
	ASSERT_EQ(n, m_free_tagged(M, tag));
	M->sw[s] = EDM_SHP_HW(EDM_SHP_H_FREE, EDM_SHP_HW_EPOCH(seen));
	ASSERT_TRUE(edm_shp_fenced(&M->m[i]));
	ASSERT_EQ(0U, edm_shp_reap(r, s, seen));
	M->t.reaps++;
	M->t.reaped_bufs += n;
	if (M->dead[i]) {
		/* it reboots */
		memset(&M->m[i], 0xee, sizeof(M->m[i]));
		ASSERT_EQ(0, edm_shp_open(&M->m[i], M->base, M->size));
		M->dead[i] = false;
	} else {
		/* it sees it was fenced and leaves: there is nothing left to give back */
		ASSERT_EQ(0U, edm_shp_leave(&M->m[i]));
		M->t.fenced_live++;
	}
}

static int m_pick(struct model *M, int live)
{
	u32 i, n = 0, k;

	for (i = 0; i < M->nm; i++)
		n += live == 1 ? m_joined(M, i) : live == 0 ? !m_joined(M, i) && !M->dead[i] :
			M->dead[i];
	if (!n)
		return -1;
	k = rnd(&M->seed) % n;
	for (i = 0; i < M->nm; i++) {
		bool ok = live == 1 ? m_joined(M, i) : live == 0 ? !m_joined(M, i) && !M->dead[i] :
			  M->dead[i];

		if (ok && !k--)
			return i;
	}
	return -1;
}

static void model_run(struct __test_metadata *_metadata, struct model *M,
		      const struct edm_shp_cfg *cfg, u32 nm, u64 size, u32 steps)
{
	u32 step, i;
	int a, x;

	M->size = size;
	M->base = range_new(size);
	ASSERT_NE(NULL, M->base);
	ASSERT_EQ(0, edm_shp_format(M->base, size, cfg));
	ASSERT_EQ(0, edm_shp_open(&M->w, M->base, size));
	M->nhosts = cfg->nhosts;
	M->rsize = cfg->ring_size;
	M->nm = nm;
	M->nbufs = M->w.geo.nbufs;
	M->bufsz = edm_shp_buf_size(&M->w);
	ASSERT_LE(M->nhosts, (u32)M_MAXH);
	ASSERT_LE(M->rsize, (u32)M_RING);
	ASSERT_LE(M->nbufs, (u32)M_MAXB);
	ASSERT_LE(nm, (u32)M_MAXM);
	for (i = 0; i < M->nbufs; i++)
		M->known[i] = -1;
	for (i = 0; i < nm; i++)
		ASSERT_EQ(0, edm_shp_open(&M->m[i], M->base, size));
	for (step = 0; step < steps; step++) {
		u32 op = rnd(&M->seed) % 100;

		a = m_pick(M, 1);
		if (a < 0 && (x = m_pick(M, 2)) >= 0 && op & 1) {
			m_reap(_metadata, M, &M->w, x);	/* no one alive: an outsider reaps */
		} else if (op < 4 || a < 0) {
			x = m_pick(M, 0);
			if (x >= 0)
				m_join(_metadata, M, x);
		} else if (op < 25) {
			m_alloc(_metadata, M, a);
		} else if (op < 38) {
			m_free(_metadata, M, a);
		} else if (op < 42) {
			m_bad_free(_metadata, M, a);
		} else if (op < 59) {
			m_send(_metadata, M, a, 0, -1);
		} else if (op < 60) {
			/* a burst to one host: more than its ring holds, if it is not taking */
			x = rnd(&M->seed) % M->nhosts;
			for (i = 0; i <= M->rsize; i++) {
				m_alloc(_metadata, M, a);
				m_send(_metadata, M, a, 0, x);
			}
		} else if (op < 64) {
			m_send(_metadata, M, a, 1 + (op & 1), -1);	/* pass, or forged */
		} else if (op < 90) {
			m_take(_metadata, M, a);
		} else if (op < 92) {
			m_leave(_metadata, M, a);
		} else if (op < 93) {
			M->dead[a] = true;			/* dies: abandons its view */
			M->dead_word[a] = edm_shp_host_state(&M->w, M->m[a].slot);
			M->t.deaths++;
		} else if (op < 97) {
			x = m_pick(M, 2);
			if (x >= 0)
				m_reap(_metadata, M, &M->m[a], x);
		} else if (op < 98) {
			x = m_pick(M, 1);			/* a live one, taken for dead */
			if (x >= 0 && x != a)
				m_reap(_metadata, M, &M->m[a], x);
		} else {
			edm_shp_beat(&M->m[a]);
		}
		m_check(_metadata, M, step, step % 64 == 0);
	}
	/* The living leave, the dead are reaped: everything is free. */
	for (i = 0; i < nm; i++)
		if (m_joined(M, i))
			m_leave(_metadata, M, i);
	for (i = 0; i < nm; i++)
		if (M->dead[i])
			m_reap(_metadata, M, &M->w, i);
	m_check(_metadata, M, step, true);
	for (i = 0; i < M->nbufs; i++)
		ASSERT_EQ(0U, EDM_SHP_WTAG(holder(&M->w, i)));
	free(M->base);
}

TEST(randomized_against_a_shadow)
{
	static const struct { u32 nhosts, ring, nm; u64 size; } shapes[] = {
		{ 4, 8, 5, 128 * 1024 },	/* ~55 Buffers: 5 machines for 4 slots */
		{ 3, 16, 4, 64 * 1024 },	/* ~20 Buffers: out of them often */
		{ 2, 8, 3, 40 * 1024 },		/* the fewest: 2 hosts, ~14 Buffers */
	};
	unsigned int seed = test_seed();
	struct mtotals t = { 0 };
	struct model *M;
	u32 round;

	for (round = 0; round < 6; round++) {
		struct edm_shp_cfg cfg = cfg_small(shapes[round % 3].nhosts,
						   shapes[round % 3].ring);

		M = calloc(1, sizeof(*M));
		ASSERT_NE(NULL, M);
		M->seed = seed + round;
		TH_LOG("round %u seed %u", round, M->seed);
		model_run(_metadata, M, &cfg, shapes[round % 3].nm, shapes[round % 3].size,
			  20000 / SHP_SLOW);
#define ADD(f) t.f += M->t.f
		ADD(allocs); ADD(enomem); ADD(frees); ADD(bad_frees); ADD(sends); ADD(hostdown);
		ADD(nospc); ADD(bad_sends); ADD(passes); ADD(orphans); ADD(takes); ADD(stale);
		ADD(empty); ADD(leaves); ADD(kept_leaves); ADD(left_bufs); ADD(joins); ADD(ebusy); ADD(deaths);
		ADD(reaps); ADD(reaped_bufs); ADD(fenced_live);
#undef ADD
		free(M);
	}
	TH_LOG("allocs %llu enomem %llu frees %llu bad %llu sends %llu hostdown %llu nospc %llu "
	       "bad %llu passes %llu orphans %llu takes %llu stale %llu empty %llu",
	       (unsigned long long)t.allocs, (unsigned long long)t.enomem,
	       (unsigned long long)t.frees, (unsigned long long)t.bad_frees,
	       (unsigned long long)t.sends, (unsigned long long)t.hostdown,
	       (unsigned long long)t.nospc, (unsigned long long)t.bad_sends,
	       (unsigned long long)t.passes, (unsigned long long)t.orphans,
	       (unsigned long long)t.takes, (unsigned long long)t.stale,
	       (unsigned long long)t.empty);
	TH_LOG("leaves %llu (%llu keeping, %llu Buffers) joins %llu ebusy %llu deaths %llu "
	       "reaps %llu (%llu Buffers) fenced live %llu",
	       (unsigned long long)t.leaves, (unsigned long long)t.kept_leaves,
	       (unsigned long long)t.left_bufs,
	       (unsigned long long)t.joins, (unsigned long long)t.ebusy,
	       (unsigned long long)t.deaths, (unsigned long long)t.reaps,
	       (unsigned long long)t.reaped_bufs, (unsigned long long)t.fenced_live);
	/* The runs reached the paths that matter. */
	EXPECT_LT(5000ULL / SHP_SLOW, t.allocs);
	EXPECT_LT(2000ULL / SHP_SLOW, t.sends);
	EXPECT_LT(2000ULL / SHP_SLOW, t.takes);
	EXPECT_LT(100ULL / SHP_SLOW, t.stale);
	EXPECT_LT(100ULL / SHP_SLOW, t.hostdown);
	EXPECT_LT(100ULL / SHP_SLOW, t.nospc);
	EXPECT_LT(100ULL / SHP_SLOW, t.enomem);
	EXPECT_LT(100ULL / SHP_SLOW, t.ebusy);
	EXPECT_LT(50ULL / SHP_SLOW, t.reaps);
	EXPECT_LT(50ULL / SHP_SLOW, t.reaped_bufs);
	EXPECT_LT(50ULL / SHP_SLOW, t.left_bufs);
	EXPECT_LT(20ULL / SHP_SLOW, t.kept_leaves);
	EXPECT_LT(20ULL / SHP_SLOW, t.fenced_live);
	EXPECT_LT(50ULL / SHP_SLOW, t.orphans);
}

/* ---- threads: one host each ---- */

enum { C_HOSTS = 4, C_HOLD = 4 };

struct conc {
	u8 *base;
	u64 size;
	u32 nbufs, bufsz;
	u32 *owner;			/* who uses each Buffer now: thread + 1, or 0 */
	pthread_barrier_t bar;
	u64 next_seq;
	int errors;
	int died;			/* release: the dying host stopped (its lease ran out) */
	u32 dead_slot, dead_held;
	bool dead_queued;	/* something was queued to it when it died */
	u64 dead_word;
	u64 reaped;			/* Buffers that reap() freed, all survivors together */
};

struct thr {
	struct conc *c;
	pthread_t th;
	u32 id, ops, die_at;
	bool dies;
	unsigned int seed;
	u64 allocs, enomem, frees, sends, hostdown, nospc, takes, refused;
	u64 reaped_hosts, reaped_bufs, reborn_refused, taken_back;
};

#define C_FAIL(c, fmt, ...) do {						\
	if (__atomic_fetch_add(&(c)->errors, 1, __ATOMIC_RELAXED) < 10)		\
		fprintf(stderr, "# %s:%d: " fmt "\n", __func__, __LINE__, ##__VA_ARGS__); \
} while (0)

struct held {
	u32 buf;
	u64 hw, seq;
	u32 len;
};

/* Relaxed: the owner words must not order anything the core should. */
static void c_own(struct thr *t, u32 b)
{
	u32 was = 0;

	if (!__atomic_compare_exchange_n(&t->c->owner[b], &was, t->id + 1, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		C_FAIL(t->c, "host %u got Buffer %u while host %u uses it", t->id, b, was - 1);
}

static void c_disown(struct thr *t, u32 b)
{
	u32 was = t->id + 1;

	if (!__atomic_compare_exchange_n(&t->c->owner[b], &was, 0, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		C_FAIL(t->c, "host %u gives Buffer %u that host %u uses", t->id, b, was - 1);
}

static void c_free(struct thr *t, struct edm_shp *v, u32 b, u64 hw)
{
	int rc;

	memset(edm_shp_buf(v, b), 0, HDR);	/* a late reader would see a wrong seq */
	c_disown(t, b);
	rc = edm_shp_free(v, b, hw);
	if (rc)
		C_FAIL(t->c, "host %u: free(%u) = %d", t->id, b, rc);
	else
		t->frees++;
}

/* Send @h to a random peer with a new seq; on a refusal it is still ours: free it. */
static void c_send(struct thr *t, struct edm_shp *v, const struct held *h)
{
	struct conc *c = t->c;
	u64 seq = __atomic_add_fetch(&c->next_seq, 1, __ATOMIC_RELAXED);
	u32 len = pay_len(rnd(&t->seed), c->bufsz), dst;
	u8 meta[16];
	int rc;

	if (pay_check(edm_shp_buf(v, h->buf), h->seq, v->slot, h->len))
		C_FAIL(c, "host %u: Buffer %u altered while held", t->id, h->buf);
	do
		dst = rnd(&t->seed) % C_HOSTS;
	while (dst == v->slot);
	pay_fill(edm_shp_buf(v, h->buf), seq, v->slot, len);
	memcpy(meta, &seq, 8);
	memcpy(meta + 8, &t->id, 4);
	memcpy(meta + 12, &len, 4);
	c_disown(t, h->buf);
	rc = edm_shp_send(v, dst, h->buf, h->hw, len, meta, sizeof(meta));
	if (!rc) {
		t->sends++;
		return;
	}
	c_own(t, h->buf);
	if (rc == -EHOSTDOWN)
		t->hostdown++;
	else if (rc == -ENOSPC)
		t->nospc++, sched_yield();
	else
		C_FAIL(c, "host %u: send(%u) to %u = %d", t->id, h->buf, dst, rc);
	if (pay_check(edm_shp_buf(v, h->buf), seq, v->slot, len))
		C_FAIL(c, "host %u: Buffer %u altered by a refused send", t->id, h->buf);
	c_free(t, v, h->buf, h->hw);
}

/* Take one from @src: check it and free it. -EAGAIN when empty. */
static int c_take(struct thr *t, struct edm_shp *v, u32 src, u64 *last)
{
	struct conc *c = t->c;
	struct edm_shp_desc d;
	u64 seq;
	int rc = edm_shp_take(v, src, &d);

	if (rc == -EAGAIN)
		return rc;
	if (rc == -ESTALE) {
		t->refused++;
		return 0;
	}
	if (rc) {
		C_FAIL(c, "host %u: take from %u = %d", t->id, src, rc);
		return rc;
	}
	t->takes++;
	if (d.buf >= c->nbufs || d.len > c->bufsz || EDM_SHP_WTAG(d.hw) != v->tag) {
		C_FAIL(c, "host %u: took Buffer %u len %u as %llx", t->id, d.buf, d.len,
		       (unsigned long long)d.hw);
		return -EINVAL;
	}
	c_own(t, d.buf);
	memcpy(&seq, d.meta, 8);
	if (pay_check(edm_shp_buf(v, d.buf), seq, src, d.len))
		C_FAIL(c, "host %u: Buffer %u from %u seq %llu arrived altered", t->id, d.buf, src,
		       (unsigned long long)seq);
	if (seq <= last[src])
		C_FAIL(c, "host %u: from %u seq %llu after %llu", t->id, src,
		       (unsigned long long)seq, (unsigned long long)last[src]);
	last[src] = seq;
	c_free(t, v, d.buf, d.hw);
	return 0;
}

/* A survivor that learns of the death reaps the life it was told of, once. */
static void c_reap(struct thr *t, struct edm_shp *v, bool *done)
{
	struct conc *c = t->c;
	u32 n;

	if (*done || !__atomic_load_n(&c->died, __ATOMIC_ACQUIRE))
		return;
	n = edm_shp_reap(v, c->dead_slot, c->dead_word);
	__atomic_fetch_add(&c->reaped, n, __ATOMIC_RELAXED);
	*done = true;
}

static bool c_join(struct thr *t, struct edm_shp *v)
{
	struct timespec t0, t1;
	u8 mac[6];
	int rc;

	if (edm_shp_open(v, t->c->base, t->c->size)) {
		C_FAIL(t->c, "host %u: open", t->id);
		return false;
	}
	mac_of(mac, t->id);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = edm_shp_join(v, "t", mac)) == -EBUSY) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 10)
			break;
		sched_yield();
	}
	if (rc)
		C_FAIL(t->c, "host %u: join = %d", t->id, rc);
	return !rc;
}

/*
 * The dying host takes all that is queued to it, so that its rings have
 * room and the others keep passing it Buffers while it is reaped; it makes
 * sure it holds a Buffer and has one queued to it, then stops for good. It
 * waits to be reaped, and comes back as a new life of the same slot.
 */
static bool c_die(struct thr *t, struct edm_shp *v, struct held *held, u32 *nheld, u64 *last)
{
	struct conc *c = t->c;
	struct timespec t0, t1;
	u32 k, s, old_epoch = v->epoch;
	bool queued = false;
	u64 st;

	for (s = 0; s < C_HOSTS; s++)
		if (s != v->slot)
			while (c_take(t, v, s, last) != -EAGAIN)
				;
	if (t->refused)
		C_FAIL(c, "host %u: refused %llu before dying", t->id,
		       (unsigned long long)t->refused);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (!*nheld && !edm_shp_alloc(v, &held[0].buf, &held[0].hw)) {
			t->allocs++;
			c_own(t, held[0].buf);
			held[0].seq = 0;
			held[0].len = HDR;
			pay_fill(edm_shp_buf(v, held[0].buf), 0, v->slot, HDR);
			*nheld = 1;
		}
		for (s = 0; s < C_HOSTS; s++)
			queued |= edm_shp_pending(v, s);
		edm_shp_beat(v);
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((!queued || !*nheld) && t1.tv_sec - t0.tv_sec < 5);
	for (k = 0; k < *nheld; k++)
		c_disown(t, held[k].buf);	/* the reaper frees them: anyone may get them */
	c->dead_slot = v->slot;
	c->dead_held = *nheld;
	c->dead_queued = queued;
	c->dead_word = edm_shp_host_state(v, v->slot);
	if (c->dead_word != EDM_SHP_HW(EDM_SHP_H_LIVE, v->epoch))
		C_FAIL(c, "host %u: not live when dying", t->id);
	*nheld = 0;
	__atomic_store_n(&c->died, 1, __ATOMIC_RELEASE);

	/* Dead. Some survivor reaps the life; then the host boots again. */
	do {
		sched_yield();
		st = edm_shp_host_state(v, c->dead_slot);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (EDM_SHP_HW_STATE(st) != EDM_SHP_H_FREE && t1.tv_sec - t0.tv_sec < 15);
	if (st != EDM_SHP_HW(EDM_SHP_H_FREE, old_epoch)) {
		C_FAIL(c, "host %u: slot %u not reaped: %llx", t->id, c->dead_slot,
		       (unsigned long long)st);
		return false;
	}
	if (!edm_shp_fenced(v))
		C_FAIL(c, "host %u: reaped but not fenced", t->id);
	memset(v, 0xee, sizeof(*v));
	if (!c_join(t, v))
		return false;
	if (v->slot != c->dead_slot || v->epoch == old_epoch)
		C_FAIL(c, "host %u: came back in slot %u epoch %u", t->id, v->slot, v->epoch);
	t->reborn_refused = t->refused;		/* from here, refusals are the new life's */
	return true;
}

static void *c_host(void *arg)
{
	struct thr *t = arg;
	struct conc *c = t->c;
	struct held held[C_HOLD];
	u64 last[C_HOSTS] = { 0 };
	struct timespec t0, t1;
	bool reaped = false, ok;
	struct edm_shp v;
	u32 op, s, nheld = 0, k;

	ok = c_join(t, &v);
	pthread_barrier_wait(&c->bar);
	for (op = 0; ok && op < t->ops; op++) {
		struct held h;

		if (t->dies && op == t->die_at) {
			ok = c_die(t, &v, held, &nheld, last);
			reaped = true;
			if (!ok)
				break;
		}
		edm_shp_beat(&v);
		if (!t->dies)
			c_reap(t, &v, &reaped);
		for (s = 0; s < C_HOSTS; s++)
			if (s != v.slot)
				for (k = 0; k < 2 && !c_take(t, &v, s, last); k++)
					;
		if (edm_shp_alloc(&v, &h.buf, &h.hw)) {
			t->enomem++;
			sched_yield();		/* let the others take and free */
			continue;
		}
		t->allocs++;
		c_own(t, h.buf);
		h.seq = rnd(&t->seed);
		h.len = pay_len(rnd(&t->seed), c->bufsz);
		pay_fill(edm_shp_buf(&v, h.buf), h.seq, v.slot, h.len);
		if (nheld < C_HOLD && rnd(&t->seed) % 4 == 0) {
			held[nheld++] = h;
			continue;
		}
		if (nheld && rnd(&t->seed) % 2) {	/* send the oldest held one, keep this */
			c_send(t, &v, &held[0]);
			memmove(held, held + 1, (nheld - 1) * sizeof(*held));
			held[nheld - 1] = h;
			continue;
		}
		c_send(t, &v, &h);
	}
	/* Survivors wait for the death and reap; nobody sends from here. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ok && !reaped) {
		c_reap(t, &v, &reaped);
		for (s = 0; s < C_HOSTS; s++)
			if (s != v.slot)
				c_take(t, &v, s, last);
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 15) {
			C_FAIL(c, "host %u: no death seen", t->id);
			break;
		}
	}
	pthread_barrier_wait(&c->bar);
	/* Drain: every descriptor posted is taken or refused. */
	for (s = 0; ok && s < C_HOSTS; s++)
		if (s != v.slot)
			while (c_take(t, &v, s, last) != -EAGAIN)
				;
	for (k = 0; k < nheld; k++) {
		if (pay_check(edm_shp_buf(&v, held[k].buf), held[k].seq, v.slot, held[k].len))
			C_FAIL(c, "host %u: Buffer %u altered while held", t->id, held[k].buf);
		c_free(t, &v, held[k].buf, held[k].hw);
	}
	pthread_barrier_wait(&c->bar);
	if (ok) {
		t->reaped_hosts = v.st.reaped_hosts;
		t->reaped_bufs = v.st.reaped_bufs;
		t->taken_back = v.st.taken_back;
		k = edm_shp_leave(&v);
		if (k)
			C_FAIL(c, "host %u: left holding %u", t->id, k);
	}
	if (t->dies)
		t->reborn_refused = t->refused - t->reborn_refused;
	return NULL;
}

struct ctotals {
	u64 allocs, enomem, sends, hostdown, nospc, takes, refused, taken_back, reaped;
	double secs;
};

/* One run: C_HOSTS threads, one host each; the one @seed picks dies and comes back. */
static void conc_run(struct __test_metadata *_metadata, unsigned int seed, u32 ops,
		     struct ctotals *tot)
{
	struct edm_shp_cfg cfg = cfg_small(C_HOSTS, 8);
	struct thr t[C_HOSTS];
	struct conc c = { 0 };
	u64 allocs = 0, frees = 0, sends = 0, takes = 0, refused = 0, hosts = 0, rbufs = 0;
	struct timespec t0, t1;
	struct edm_shp w;
	u32 i, b, nfree = 0, dying = seed % C_HOSTS;

	c.size = 96 * 1024;
	c.base = range_new(c.size);
	ASSERT_NE(NULL, c.base);
	ASSERT_EQ(0, edm_shp_format(c.base, c.size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&w, c.base, c.size));
	c.nbufs = w.geo.nbufs;
	c.bufsz = edm_shp_buf_size(&w);
	c.owner = calloc(c.nbufs, sizeof(*c.owner));
	ASSERT_NE(NULL, c.owner);
	ASSERT_EQ(0, pthread_barrier_init(&c.bar, NULL, C_HOSTS));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < C_HOSTS; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].c = &c;
		t[i].id = i;
		t[i].seed = seed * 7919 + i;
		t[i].ops = ops;
		t[i].dies = i == dying;
		t[i].die_at = ops / 8 + rnd(&t[i].seed) % (ops / 4);
		ASSERT_EQ(0, pthread_create(&t[i].th, NULL, c_host, &t[i]));
	}
	for (i = 0; i < C_HOSTS; i++)
		pthread_join(t[i].th, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tot->secs += (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < C_HOSTS; i++) {
		allocs += t[i].allocs;
		frees += t[i].frees;
		sends += t[i].sends;
		takes += t[i].takes;
		refused += t[i].refused;
		hosts += t[i].reaped_hosts;
		rbufs += t[i].reaped_bufs;
		tot->hostdown += t[i].hostdown;
		tot->nospc += t[i].nospc;
		tot->enomem += t[i].enomem;
		tot->taken_back += t[i].taken_back;
		if (i != dying) {
			EXPECT_EQ(0ULL, t[i].refused) TH_LOG("host %u refused", i);
		}
	}
	tot->allocs += allocs;
	tot->sends += sends;
	tot->takes += takes;
	tot->refused += refused;
	tot->reaped += c.reaped;
	TH_LOG("seed %u: host %u died at op %u holding %u; reaped %llu Buffers, its new life "
	       "refused %llu", seed, dying, t[dying].die_at, c.dead_held,
	       (unsigned long long)c.reaped, (unsigned long long)t[dying].reborn_refused);
	EXPECT_EQ(0, c.errors);
	/* Exactly one survivor won the reap; it freed what the dead life held or was sent. */
	EXPECT_EQ(1ULL, hosts);
	EXPECT_EQ(1ULL, w.hosts[c.dead_slot].reaped);
	EXPECT_EQ(c.reaped, rbufs);
	EXPECT_LE(1U, c.dead_held);
	/* something was queued to it, unless the others were starved for the 5 s it waited */
	if (c.dead_queued) {
		EXPECT_LT((u64)c.dead_held, c.reaped);
	}
	EXPECT_EQ(c.dead_held + t[dying].reborn_refused, c.reaped);
	/* Every Buffer allocated was freed once; every descriptor posted taken or refused. */
	EXPECT_EQ(allocs, frees + c.reaped);
	EXPECT_EQ(sends, takes + refused);
	/* All left: every slot and every holder word is free. */
	for (i = 0; i < C_HOSTS; i++) {
		EXPECT_EQ((u32)EDM_SHP_H_FREE, EDM_SHP_HW_STATE(edm_shp_host_state(&w, i)));
		EXPECT_EQ(0U, edm_shp_held(&w, i));
	}
	for (b = 0; b < c.nbufs; b++) {
		nfree += !EDM_SHP_WTAG(holder(&w, b));
		EXPECT_EQ(0U, c.owner[b]);
	}
	EXPECT_EQ(c.nbufs, nfree);
	pthread_barrier_destroy(&c.bar);
	free(c.owner);
	free(c.base);
}

TEST(threads_one_host_each_one_dies)
{
	unsigned int seed = test_seed();
	struct ctotals tot = { 0 };
	u32 round;

	for (round = 0; round < 4; round++)
		conc_run(_metadata, seed + round, 30000 / SHP_SLOW, &tot);
	TH_LOG("%.2f s: allocs %llu enomem %llu sends %llu hostdown %llu (taken back %llu) "
	       "nospc %llu takes %llu refused %llu reaped %llu", tot.secs,
	       (unsigned long long)tot.allocs, (unsigned long long)tot.enomem,
	       (unsigned long long)tot.sends, (unsigned long long)tot.hostdown,
	       (unsigned long long)tot.taken_back, (unsigned long long)tot.nospc,
	       (unsigned long long)tot.takes, (unsigned long long)tot.refused,
	       (unsigned long long)tot.reaped);
	EXPECT_LT(40000ULL / SHP_SLOW, tot.takes);
	EXPECT_LT(0ULL, tot.nospc);
}

/*
 * A sender passes Buffers to a host that is reaped and joins again, over
 * and over, as fast as both can: each pass either lands with a life of the
 * receiver (and that life's reap frees it) or fails with the Buffer still
 * the sender's. Taken back or freed by the reaper: exactly one side wins.
 */
struct race {
	u8 *base;
	u64 size;
	struct edm_shp s;		/* the sender's, joined before it starts */
	u32 dslot;
	int stop, errors;
	u64 allocs, frees, passed, down, reaped, taken_back, enomem;
};

static void *race_sender(void *arg)
{
	struct race *r = arg;
	struct edm_shp s = r->s;
	u64 hw, nw;
	u32 b;
	int rc;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (edm_shp_alloc(&s, &b, &hw)) {
			r->enomem++;
			sched_yield();
			continue;
		}
		r->allocs++;
		rc = edm_shp_pass(&s, b, hw, r->dslot, &nw);
		if (!rc) {
			r->passed++;
			continue;
		}
		if (rc != -EHOSTDOWN || holder(&s, b) != hw) {
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			fprintf(stderr, "# pass = %d, Buffer %u %llx, was %llx\n", rc, b,
				(unsigned long long)holder(&s, b), (unsigned long long)hw);
			continue;
		}
		r->down++;
		if (edm_shp_free(&s, b, hw))
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		else
			r->frees++;
	}
	r->taken_back = s.st.taken_back;
	if (edm_shp_leave(&s))
		__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
	return NULL;
}

TEST(a_pass_racing_a_reap)
{
	struct edm_shp_cfg cfg = cfg_small(3, 8);
	struct race r = { .size = 64 * 1024 };
	struct edm_shp rp, d, w;
	struct timespec t0, t1;
	pthread_t th;
	u32 i, k, n = 0;

	r.base = range_new(r.size);
	ASSERT_NE(NULL, r.base);
	ASSERT_EQ(0, edm_shp_format(r.base, r.size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&w, r.base, r.size));
	ASSERT_EQ(0, edm_shp_open(&rp, r.base, r.size));
	ASSERT_EQ(0, edm_shp_join(&rp, "r", (const u8 *)"\2\0\0\0\0\2"));
	ASSERT_EQ(0, edm_shp_open(&r.s, r.base, r.size));
	ASSERT_EQ(0, edm_shp_join(&r.s, "s", (const u8 *)"\2\0\0\0\0\1"));
	ASSERT_EQ(0, edm_shp_open(&d, r.base, r.size));
	ASSERT_EQ(0, edm_shp_join(&d, "d", (const u8 *)"\2\0\0\0\0\3"));
	r.dslot = d.slot;
	ASSERT_EQ(0, pthread_create(&th, NULL, race_sender, &r));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 100000 / SHP_SLOW; i++) {
		/* the life of d lasts a little while: the sender passes it some */
		for (k = 0; k < (i * 37) % 4096; k++)
			__atomic_load_n(&r.stop, __ATOMIC_RELAXED);
		r.reaped += edm_shp_reap(&rp, d.slot, EDM_SHP_HW(EDM_SHP_H_LIVE, d.epoch));
		ASSERT_EQ(0, edm_shp_open(&d, r.base, r.size));
		ASSERT_EQ(0, edm_shp_join(&d, "d", (const u8 *)"\2\0\0\0\0\3"));
		ASSERT_EQ(r.dslot, d.slot);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec > 1000000000LL)
			break;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	r.reaped += edm_shp_leave(&d);
	TH_LOG("%u lives of d: allocs %llu passed %llu (reaped %llu) host down %llu (taken back "
	       "%llu) enomem %llu", i, (unsigned long long)r.allocs, (unsigned long long)r.passed,
	       (unsigned long long)r.reaped, (unsigned long long)r.down,
	       (unsigned long long)r.taken_back, (unsigned long long)r.enomem);
	EXPECT_EQ(0, r.errors);
	EXPECT_EQ(r.allocs, r.frees + r.passed);
	EXPECT_EQ(r.passed, r.reaped);
	EXPECT_LT(0ULL, r.down);
	EXPECT_EQ(0U, edm_shp_leave(&rp));
	for (i = 0; i < w.geo.nbufs; i++)
		n += !EDM_SHP_WTAG(holder(&w, i));
	EXPECT_EQ(w.geo.nbufs, n);
	free(r.base);
}

/*
 * The rings alone, with no Buffer changing hands to order anything: two
 * hosts each post a stream of descriptors to the other and take the
 * other's, producer and consumer of one view in two threads (the header
 * lets post and take run concurrently). Each descriptor names the one
 * Buffer the receiver holds, with a sequence number in len and meta: all
 * must arrive, once, in order, whole.
 */
struct spsc {
	struct edm_shp *v;
	u32 peer, buf, n;
	u64 hw;
	int *errors;
	u64 full, empty;
};

static void *spsc_post(void *arg)
{
	struct spsc *p = arg;
	struct edm_shp_desc d = { .hw = p->hw, .buf = p->buf };
	u64 seq;
	u32 i;
	int rc;

	for (i = 1; i <= p->n; i++) {
		seq = (u64)i << 32 | i;
		d.len = i % 2048;
		memcpy(d.meta, &seq, 8);
		memcpy(d.meta + 8, &seq, 8);
		while ((rc = edm_shp_post(p->v, p->peer, &d)) == -ENOSPC) {
			if (++p->full % 16 == 0)
				sched_yield();
		}
		if (rc) {
			__atomic_fetch_add(p->errors, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

static void *spsc_take(void *arg)
{
	struct spsc *p = arg;
	struct edm_shp_desc d;
	u64 seq, seq2;
	u32 i;
	int rc;

	for (i = 1; i <= p->n; i++) {
		while ((rc = edm_shp_take(p->v, p->peer, &d)) == -EAGAIN) {
			if (++p->empty % 16 == 0)
				sched_yield();
		}
		memcpy(&seq, d.meta, 8);
		memcpy(&seq2, d.meta + 8, 8);
		if (rc || d.hw != p->hw || d.buf != p->buf || d.len != i % 2048 ||
		    seq != ((u64)i << 32 | i) || seq2 != seq) {
			if (__atomic_fetch_add(p->errors, 1, __ATOMIC_RELAXED) < 5)
				fprintf(stderr, "# take %u: rc %d buf %u len %u seq %llx/%llx\n", i,
					rc, d.buf, d.len, (unsigned long long)seq,
					(unsigned long long)seq2);
			if (rc)
				break;
		}
	}
	return NULL;
}

TEST(rings_alone_under_threads)
{
	struct edm_shp_cfg cfg = cfg_small(2, 8);
	const u64 size = 64 * 1024;
	u8 *base = range_new(size);
	struct edm_shp a, b;
	struct spsc p[4];	/* a posts x to b, b takes it; b posts y to a, a takes it */
	pthread_t th[4];
	u64 ha, hb, xa, xb;
	u32 x, y, i;
	int errors = 0;

	ASSERT_NE(NULL, base);
	ASSERT_EQ(0, edm_shp_format(base, size, &cfg));
	ASSERT_EQ(0, edm_shp_open(&a, base, size));
	ASSERT_EQ(0, edm_shp_open(&b, base, size));
	ASSERT_EQ(0, edm_shp_join(&a, "a", (const u8 *)"\2\0\0\0\0\1"));
	ASSERT_EQ(0, edm_shp_join(&b, "b", (const u8 *)"\2\0\0\0\0\2"));
	/* b holds x, a holds y: each passed by the other */
	ASSERT_EQ(0, edm_shp_alloc(&a, &x, &ha));
	ASSERT_EQ(0, edm_shp_pass(&a, x, ha, b.slot, &xb));
	ASSERT_EQ(0, edm_shp_alloc(&b, &y, &hb));
	ASSERT_EQ(0, edm_shp_pass(&b, y, hb, a.slot, &xa));
	p[0] = (struct spsc){ .v = &a, .peer = b.slot, .buf = x, .hw = xb };
	p[1] = (struct spsc){ .v = &b, .peer = a.slot, .buf = x, .hw = xb };
	p[2] = (struct spsc){ .v = &b, .peer = a.slot, .buf = y, .hw = xa };
	p[3] = (struct spsc){ .v = &a, .peer = b.slot, .buf = y, .hw = xa };
	for (i = 0; i < 4; i++) {
		p[i].n = 50000 / SHP_SLOW;
		p[i].errors = &errors;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, i & 1 ? spsc_take : spsc_post, &p[i]));
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%u each way: full %llu/%llu empty %llu/%llu", p[0].n,
	       (unsigned long long)p[0].full, (unsigned long long)p[2].full,
	       (unsigned long long)p[1].empty, (unsigned long long)p[3].empty);
	EXPECT_EQ(0, errors);
	EXPECT_EQ((u64)p[0].n, a.st.posts);
	EXPECT_EQ((u64)p[0].n, a.st.takes);
	EXPECT_EQ((u64)p[0].n, b.st.posts);
	EXPECT_EQ((u64)p[0].n, b.st.takes);
	EXPECT_EQ(-EAGAIN, edm_shp_take(&a, b.slot, &(struct edm_shp_desc){ 0 }));
	EXPECT_EQ(8U, edm_shp_room(&a, b.slot));
	EXPECT_EQ(1U, edm_shp_leave(&a));
	EXPECT_EQ(1U, edm_shp_leave(&b));
	free(base);
}

TEST_HARNESS_MAIN
