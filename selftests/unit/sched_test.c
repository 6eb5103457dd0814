// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the switch scheduler core (fabric/sched.c). Expected
 * values come from the paper's rules (3.1.1, 3.1.2) worked by hand: link busy
 * times are bytes * 8 / rate, e.g. 256 B at 25 Gb/s is 81.92 ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kselftest_harness.h"
#include "edm/sched.h"

enum { PORTS = 8, GMAX = EDM_SCHED_MAX_PORTS };

static struct edm_sched *sched_new(u32 nports, u32 x, u32 chunk, u32 rate, u32 policy)
{
	struct edm_sched_cfg cfg = {
		.nports = nports, .x = x, .chunk = chunk, .rate_mbps = rate, .policy = policy,
	};
	void *mem = calloc(1, edm_sched_size(nports, x));

	if (!mem || edm_sched_init(mem, &cfg)) {
		free(mem);
		return NULL;
	}
	return mem;
}

static int notify(struct edm_sched *s, u32 port, u32 peer, u8 id, u32 kind, u32 bytes)
{
	struct edm_sched_notif n = {
		.port = port, .peer = peer, .msg_id = id, .kind = kind, .bytes = bytes,
	};

	return edm_sched_notify(s, &n);
}

/* A grant list with room for any matching. */
static struct edm_sched_grant g[GMAX];

FIXTURE(sched) {
	struct edm_sched *s;
};

FIXTURE_SETUP(sched)
{
	/* The paper's defaults: X = 3, 256 B chunks, SRPT; 25 Gb/s links. */
	self->s = sched_new(PORTS, 3, 256, 25000, EDM_SCHED_SRPT);
	ASSERT_NE(NULL, self->s);
}

FIXTURE_TEARDOWN(sched)
{
	free(self->s);
}

TEST(shape_and_config_are_checked)
{
	struct edm_sched_cfg cfg;

	EXPECT_EQ(0ULL, edm_sched_size(1, 3));
	EXPECT_EQ(0ULL, edm_sched_size(513, 3));
	EXPECT_EQ(0ULL, edm_sched_size(8, 0));
	EXPECT_EQ(0ULL, edm_sched_size(8, 17));
	EXPECT_NE(0ULL, edm_sched_size(512, 16));

	edm_sched_cfg_default(&cfg, 144);
	EXPECT_EQ(3U, cfg.x);
	EXPECT_EQ(256U, cfg.chunk);
	EXPECT_EQ((u32)EDM_SCHED_SRPT, cfg.policy);
	EXPECT_EQ(0, edm_sched_cfg_check(&cfg));
	cfg.chunk = 0;
	EXPECT_EQ(-EINVAL, edm_sched_cfg_check(&cfg));
	cfg.chunk = 65536;
	EXPECT_EQ(-EINVAL, edm_sched_cfg_check(&cfg));
	cfg.chunk = 256;
	cfg.rate_mbps = 30000;		/* 8e6 / 30000 ps per byte is not whole */
	EXPECT_EQ(-EINVAL, edm_sched_cfg_check(&cfg));
	cfg.rate_mbps = 0;
	EXPECT_EQ(-EINVAL, edm_sched_cfg_check(&cfg));
	cfg.rate_mbps = 400000;
	EXPECT_EQ(0, edm_sched_cfg_check(&cfg));
	cfg.policy = EDM_SCHED_NR_POLICIES;
	EXPECT_EQ(-EINVAL, edm_sched_cfg_check(&cfg));
}

TEST_F(sched, write_is_granted_chunk_by_chunk_after_l_over_b)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, notify(s, 1, 2, 7, EDM_SCHED_WRITE, 600));
	EXPECT_EQ(1U, edm_sched_depth(s, 2));

	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(1, g[0].src);
	EXPECT_EQ(2, g[0].dst);
	EXPECT_EQ(7, g[0].msg_id);
	EXPECT_EQ(EDM_SCHED_WRITE, g[0].kind);
	EXPECT_EQ(256U, g[0].bytes);
	EXPECT_EQ(EDM_SCHED_GRANT_FIRST, g[0].flags);
	/* 256 B * 8 / 25 Gb/s = 81.92 ns */
	EXPECT_EQ(81920ULL, edm_sched_busy_until(s, 1, false));
	EXPECT_EQ(81920ULL, edm_sched_busy_until(s, 2, true));
	EXPECT_EQ(81920ULL, edm_sched_next_release(s));

	EXPECT_EQ(0, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(0, edm_sched_step(s, 81919, g, GMAX));
	ASSERT_EQ(1, edm_sched_step(s, 81920, g, GMAX));
	EXPECT_EQ(256U, g[0].bytes);
	EXPECT_EQ(0, g[0].flags);
	ASSERT_EQ(1, edm_sched_step(s, 2 * 81920, g, GMAX));
	EXPECT_EQ(600U - 512U, g[0].bytes);
	EXPECT_EQ(EDM_SCHED_GRANT_LAST, g[0].flags);
	EXPECT_EQ(0U, edm_sched_depth(s, 2));
	EXPECT_EQ(1U, edm_sched_depth_max(s, 2));
	/* 88 B * 8 / 25 Gb/s = 28.16 ns after 163.84 ns */
	EXPECT_EQ(163840ULL + 28160ULL, edm_sched_next_release(s));
	EXPECT_EQ(0, edm_sched_step(s, 163840 + 28160, g, GMAX));
	EXPECT_EQ(~0ULL, edm_sched_next_release(s));
	EXPECT_EQ(3ULL, s->stats.grants);
	EXPECT_EQ(600ULL, s->stats.grant_bytes);
	EXPECT_EQ(1ULL, s->stats.messages_done);
}

/*
 * A held port gets no grant as destination or as source; the others go on,
 * and what waits for it is granted, in order, once it is let go.
 */
TEST_F(sched, held_port_gets_no_grant_until_let_go)
{
	struct edm_sched *s = self->s;
	u64 t = 0;
	int i;

	ASSERT_EQ(0, notify(s, 1, 2, 7, EDM_SCHED_WRITE, 256));	/* into 2 */
	ASSERT_EQ(0, notify(s, 2, 4, 8, EDM_SCHED_WRITE, 256));	/* out of 2 */
	ASSERT_EQ(0, notify(s, 3, 5, 9, EDM_SCHED_WRITE, 256));	/* not 2's */
	edm_sched_hold(s, 2, true);
	EXPECT_TRUE(edm_sched_held(s, 2));
	EXPECT_FALSE(edm_sched_held(s, 1));
	EXPECT_FALSE(edm_sched_held(s, 9999));	/* no such port: not held, no fault */
	edm_sched_hold(s, 9999, true);
	ASSERT_EQ(1, edm_sched_step(s, t, g, GMAX));
	EXPECT_EQ(3, g[0].src);
	EXPECT_EQ(5, g[0].dst);
	/* long after every link freed: still nothing while 2 is held */
	for (i = 0; i < 4; i++) {
		t += 1000000;
		EXPECT_EQ(0, edm_sched_step(s, t, g, GMAX));
	}
	EXPECT_EQ(1U, edm_sched_depth(s, 2));
	EXPECT_EQ(1U, edm_sched_depth(s, 4));
	edm_sched_hold(s, 2, false);
	EXPECT_FALSE(edm_sched_held(s, 2));
	ASSERT_EQ(2, edm_sched_step(s, t, g, GMAX));
	EXPECT_EQ(g[0].dst == 2 ? 1 : 2, g[0].src);
	EXPECT_EQ(g[1].dst == 2 ? 1 : 2, g[1].src);
	EXPECT_NE(g[0].dst, g[1].dst);
	EXPECT_EQ(0U, edm_sched_depth(s, 2) + edm_sched_depth(s, 4));
	EXPECT_EQ(3ULL, s->stats.grants);
}

TEST_F(sched, read_data_flows_from_memory_node_to_requester)
{
	struct edm_sched *s = self->s;

	/* An RREQ came in on port 3 for memory node 5. */
	ASSERT_EQ(0, notify(s, 3, 5, 9, EDM_SCHED_READ, 64));
	EXPECT_EQ(1U, edm_sched_depth(s, 3));
	EXPECT_EQ(0U, edm_sched_depth(s, 5));
	EXPECT_EQ(1U, edm_sched_pair_count(s, 5, 3));
	ASSERT_EQ(1, edm_sched_step(s, 1000, g, GMAX));
	EXPECT_EQ(5, g[0].src);
	EXPECT_EQ(3, g[0].dst);
	EXPECT_EQ(9, g[0].msg_id);
	EXPECT_EQ(EDM_SCHED_READ, g[0].kind);
	EXPECT_EQ(64U, g[0].bytes);
	EXPECT_EQ(EDM_SCHED_GRANT_FIRST | EDM_SCHED_GRANT_LAST, g[0].flags);
	EXPECT_EQ(1000ULL + 20480ULL, edm_sched_busy_until(s, 5, false));	/* 64 B: 20.48 ns */
}

TEST_F(sched, at_most_x_active_per_pair)
{
	struct edm_sched *s = self->s;

	/* Pair 4 -> 1: two WREQs from 4 and one RRES for an RREQ from 1. */
	EXPECT_EQ(0, notify(s, 4, 1, 0, EDM_SCHED_WRITE, 100));
	EXPECT_EQ(0, notify(s, 4, 1, 1, EDM_SCHED_WRITE, 100));
	EXPECT_EQ(0, notify(s, 1, 4, 0, EDM_SCHED_READ, 100));
	EXPECT_EQ(-ENOSPC, notify(s, 4, 1, 2, EDM_SCHED_WRITE, 100));
	EXPECT_EQ(-ENOSPC, notify(s, 1, 4, 1, EDM_SCHED_RMW, 8));
	EXPECT_EQ(3U, edm_sched_pair_count(s, 4, 1));
	/* The other direction and other pairs are separate. */
	EXPECT_EQ(0, notify(s, 1, 4, 5, EDM_SCHED_WRITE, 100));
	EXPECT_EQ(0, notify(s, 5, 1, 5, EDM_SCHED_WRITE, 100));
	EXPECT_EQ(4U, edm_sched_depth(s, 1));
	EXPECT_EQ(2ULL, s->stats.rejected);
}

TEST(queue_bound_is_x_times_n)
{
	struct edm_sched *s = sched_new(PORTS, 3, 256, 25000, EDM_SCHED_SRPT);
	u32 src, i;

	ASSERT_NE(NULL, s);
	for (src = 1; src < PORTS; src++)
		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, notify(s, src, 0, i, EDM_SCHED_WRITE, 64));
	for (src = 1; src < PORTS; src++)
		EXPECT_EQ(-ENOSPC, notify(s, src, 0, 3, EDM_SCHED_WRITE, 64));
	EXPECT_EQ(3U * (PORTS - 1U), edm_sched_depth(s, 0));
	EXPECT_EQ(3U * (PORTS - 1U), s->stats.depth_max);
	free(s);
}

TEST_F(sched, duplicate_ids_per_direction_are_refused)
{
	struct edm_sched *s = self->s;

	EXPECT_EQ(0, notify(s, 2, 6, 1, EDM_SCHED_WRITE, 64));
	EXPECT_EQ(-EEXIST, notify(s, 2, 6, 1, EDM_SCHED_WRITE, 64));
	/* An RRES to 6 for 6's RREQ id 1 shares the pair 2 -> 6, not the id space. */
	EXPECT_EQ(0, notify(s, 6, 2, 1, EDM_SCHED_READ, 64));
	EXPECT_EQ(-EEXIST, notify(s, 6, 2, 1, EDM_SCHED_RMW, 8));
}

TEST_F(sched, bad_notifications_are_refused)
{
	struct edm_sched *s = self->s;

	EXPECT_EQ(-EINVAL, notify(s, 2, 2, 0, EDM_SCHED_WRITE, 64));
	EXPECT_EQ(-EINVAL, notify(s, PORTS, 2, 0, EDM_SCHED_WRITE, 64));
	EXPECT_EQ(-EINVAL, notify(s, 2, PORTS, 0, EDM_SCHED_READ, 64));
	EXPECT_EQ(-EINVAL, notify(s, 2, 3, 0, EDM_SCHED_NR_KINDS, 64));
	EXPECT_EQ(-EINVAL, notify(s, 2, 3, 0, EDM_SCHED_WRITE, 0));
	EXPECT_EQ(5ULL, s->stats.rejected);
	EXPECT_EQ(0ULL, s->stats.notifications);
	EXPECT_EQ(0U, s->stats.depth);
	EXPECT_EQ(-EINVAL, edm_sched_step(s, 0, g, PORTS - 1));
}

TEST_F(sched, srpt_grants_smallest_remaining_first)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, notify(s, 1, 0, 0, EDM_SCHED_WRITE, 1000));
	ASSERT_EQ(0, notify(s, 2, 0, 0, EDM_SCHED_WRITE, 100));
	ASSERT_EQ(0, notify(s, 3, 0, 0, EDM_SCHED_WRITE, 500));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(2, g[0].src);
	/* 100 B lasts 32 ns; then 500 B (256 chunk) beats 1000 B. */
	ASSERT_EQ(1, edm_sched_step(s, 32000, g, GMAX));
	EXPECT_EQ(3, g[0].src);
	/* 244 B left of it still beats 1000 B: SRPT uses remaining bytes. */
	ASSERT_EQ(1, edm_sched_step(s, 32000 + 81920, g, GMAX));
	EXPECT_EQ(3, g[0].src);
	EXPECT_EQ(244U, g[0].bytes);
}

TEST_F(sched, fcfs_grants_oldest_first)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, edm_sched_set_policy(s, EDM_SCHED_FCFS));
	ASSERT_EQ(0, notify(s, 1, 0, 0, EDM_SCHED_WRITE, 1000));
	ASSERT_EQ(0, notify(s, 2, 0, 0, EDM_SCHED_WRITE, 100));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(1, g[0].src);
	EXPECT_EQ(-EINVAL, edm_sched_set_policy(s, EDM_SCHED_NR_POLICIES));
}

TEST_F(sched, policy_change_reorders_queued_messages)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, notify(s, 1, 0, 0, EDM_SCHED_WRITE, 1000));
	ASSERT_EQ(0, notify(s, 2, 0, 0, EDM_SCHED_WRITE, 100));
	ASSERT_EQ(0, notify(s, 3, 4, 0, EDM_SCHED_WRITE, 900));
	ASSERT_EQ(0, notify(s, 5, 4, 0, EDM_SCHED_WRITE, 90));
	ASSERT_EQ(0, edm_sched_set_policy(s, EDM_SCHED_FCFS));
	ASSERT_EQ(2, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(1, g[0].src);
	EXPECT_EQ(3, g[1].src);
}

TEST_F(sched, srpt_ties_go_to_the_older_notification)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, notify(s, 5, 0, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(0, notify(s, 3, 0, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(5, g[0].src);
}

TEST_F(sched, pairs_stay_in_order)
{
	struct edm_sched *s = self->s;

	/* Pair 1 -> 0 competes with its head (1000 B), not its 10 B second. */
	ASSERT_EQ(0, notify(s, 1, 0, 0, EDM_SCHED_WRITE, 1000));
	ASSERT_EQ(0, notify(s, 1, 0, 1, EDM_SCHED_WRITE, 10));
	ASSERT_EQ(0, notify(s, 2, 0, 0, EDM_SCHED_WRITE, 500));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(2, g[0].src);
}

TEST_F(sched, source_accepts_its_best_request_and_pim_iterates)
{
	struct edm_sched *s = self->s;

	/*
	 * Iteration 1: destination 1 requests source 0 (100 < 200 B) and
	 * destination 2 requests source 0 (50 B); source 0 accepts 2 (50 B).
	 * Iteration 2: destination 1 is left with source 3.
	 */
	ASSERT_EQ(0, notify(s, 0, 1, 0, EDM_SCHED_WRITE, 100));
	ASSERT_EQ(0, notify(s, 0, 2, 0, EDM_SCHED_WRITE, 50));
	ASSERT_EQ(0, notify(s, 3, 1, 0, EDM_SCHED_WRITE, 200));
	ASSERT_EQ(2, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(0, g[0].src);
	EXPECT_EQ(2, g[0].dst);
	EXPECT_EQ(3, g[1].src);
	EXPECT_EQ(1, g[1].dst);
	EXPECT_EQ(1ULL, s->stats.matchings);
	EXPECT_EQ(2ULL, s->stats.iterations);
	EXPECT_EQ(2U, s->stats.iterations_max);
	EXPECT_EQ(1ULL, s->stats.iter_hist[2]);
	EXPECT_EQ(2U, s->stats.matching_max);
}

TEST_F(sched, busy_ports_make_messages_ineligible)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, notify(s, 1, 2, 0, EDM_SCHED_WRITE, 256));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	/* Source 1 and destination 2 are busy until 81.92 ns. */
	ASSERT_EQ(0, notify(s, 1, 3, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(0, notify(s, 4, 2, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(0, notify(s, 5, 6, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(1, edm_sched_step(s, 1000, g, GMAX));
	EXPECT_EQ(5, g[0].src);
	ASSERT_EQ(2, edm_sched_step(s, 81920, g, GMAX));
}

TEST_F(sched, full_demand_gives_a_maximal_matching)
{
	struct edm_sched *s = self->s;
	bool src_used[PORTS] = {}, dst_used[PORTS] = {};
	u32 a, b, i;
	int n;

	for (a = 0; a < PORTS; a++)
		for (b = 0; b < PORTS; b++)
			if (a != b)
				ASSERT_EQ(0, notify(s, a, b, 0, EDM_SCHED_WRITE, 64 + a * 8 + b));
	n = edm_sched_step(s, 0, g, GMAX);
	ASSERT_GE(n, PORTS - 1);
	for (i = 0; i < (u32)n; i++) {
		src_used[g[i].src] = true;
		dst_used[g[i].dst] = true;
	}
	/* Only a port's own pair can be left: every other pair is blocked. */
	for (a = 0; a < PORTS; a++)
		for (b = 0; b < PORTS; b++)
			if (a != b)
				EXPECT_TRUE(src_used[a] || dst_used[b]);
}

TEST_F(sched, flush_drops_a_ports_messages)
{
	struct edm_sched *s = self->s;

	ASSERT_EQ(0, notify(s, 1, 2, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(0, notify(s, 2, 3, 0, EDM_SCHED_WRITE, 64));
	ASSERT_EQ(0, notify(s, 4, 2, 0, EDM_SCHED_READ, 64));	/* 2 -> 4 */
	ASSERT_EQ(0, notify(s, 4, 5, 0, EDM_SCHED_WRITE, 64));
	EXPECT_EQ(3U, edm_sched_flush_port(s, 2));
	EXPECT_EQ(1U, s->stats.depth);
	EXPECT_EQ(0U, edm_sched_depth(s, 2));
	EXPECT_EQ(0U, edm_sched_depth(s, 4));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(4, g[0].src);
	EXPECT_EQ(5, g[0].dst);
}

TEST_F(sched, rate_and_chunk_apply_to_new_grants)
{
	struct edm_sched *s = self->s;

	EXPECT_EQ(-EINVAL, edm_sched_set_rate(s, 0));
	EXPECT_EQ(-EINVAL, edm_sched_set_chunk(s, 0));
	ASSERT_EQ(0, edm_sched_set_rate(s, 100000));
	ASSERT_EQ(0, edm_sched_set_chunk(s, 64));
	EXPECT_EQ(5120ULL, edm_sched_busy_ps(s, 64));	/* 64 B at 100 Gb/s: 5.12 ns */
	ASSERT_EQ(0, notify(s, 1, 2, 0, EDM_SCHED_WRITE, 100));
	ASSERT_EQ(1, edm_sched_step(s, 0, g, GMAX));
	EXPECT_EQ(64U, g[0].bytes);
	EXPECT_EQ(5120ULL, edm_sched_busy_until(s, 2, true));
	ASSERT_EQ(0, edm_sched_set_rate(s, 10000));
	ASSERT_EQ(1, edm_sched_step(s, 5120, g, GMAX));
	EXPECT_EQ(36U, g[0].bytes);
	/* 10 Gb/s: 0.8 ns per byte */
	EXPECT_EQ(5120ULL + 36ULL * 800ULL, edm_sched_busy_until(s, 2, true));
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Not an assertion on speed: prints the cost of one maximal matching from
 * idle with every pair holding X notifications, for issue #8's report.
 */
static void matching_cost(struct __test_metadata *_metadata, u32 nports)
{
	enum { ROUNDS = 5 };
	u64 t, total = 0, iters = 0;
	u32 r, a, b, i, seed = 1;
	struct edm_sched *s;
	int n = 0;

	for (r = 0; r < ROUNDS; r++) {
		s = sched_new(nports, 3, 256, 100000, EDM_SCHED_SRPT);
		ASSERT_NE(NULL, s);
		for (a = 0; a < nports; a++)
			for (b = 0; b < nports; b++)
				for (i = 0; a != b && i < 3; i++) {
					seed = seed * 1103515245 + 12345;
					ASSERT_EQ(0, notify(s, a, b, i, EDM_SCHED_WRITE,
							    64 + (seed >> 16) % 4096));
				}
		t = now_ns();
		n = edm_sched_step(s, 0, g, GMAX);
		total += now_ns() - t;
		iters += s->stats.iterations;
		ASSERT_GE(n, (int)nports - 1);
		free(s);
	}
	printf("# %u ports: maximal matching %llu ns (sanitizers on), %.1f iterations, %d grants\n",
	       nports, (unsigned long long)(total / ROUNDS), (double)iters / ROUNDS, n);
	fflush(stdout);
}

TEST(matching_cost_144_and_512_ports)
{
	matching_cost(_metadata, 144);
	matching_cost(_metadata, 512);
}

TEST_HARNESS_MAIN
