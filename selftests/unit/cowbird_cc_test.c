// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of Cowbird's congestion control core (cowbird/cc.c),
 * 1RMA's Algorithm 1 in 1/65536-op fixed point. Every expected window is
 * worked by hand, rounding down:
 *   AI at 1 op:    65536 + 16384                       = 81920
 *   AI at 1.25:    81920 + 16384 * 65536 / 81920       = 81920 + 13107 = 95027
 *   AI at 0.5:     32768 + 16384                       = 49152
 *   MD at 10 ops, target 1000, delay 2000:
 *                  cut = 4 * 65536 * 1000 / (5 * 2000) = 26214
 *                  10 * (65536 - 26214)                = 393220
 *   MD bounded, delay 100000: cut = 51904, 65536 - 51904 < 32768: halves
 *   TIMEOUT_DECR:  655360 / 10                         = 65536
 */
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"
#include "edm/cowbird_cc.h"

enum { ONE = COWBIRD_CC_ONE, RTT = 10000, T_LOCAL = 1000, T_REMOTE = 2000 };

static const struct cowbird_cc_cfg cfg = {
	.target_local_ns = T_LOCAL, .target_remote_ns = T_REMOTE, .rtt_ns = RTT,
	.cwnd_init = 10 * ONE, .cwnd_min = ONE / 64, .cwnd_max = 100 * ONE,
};

static struct cowbird_cc_win win(u32 cwnd)
{
	return (struct cowbird_cc_win){ .cwnd = cwnd };
}

TEST(additive_increase)
{
	struct cowbird_cc_win w = win(ONE);

	EXPECT_EQ(81920, cowbird_cc_on_delay(&w, &cfg, 999, T_LOCAL, 0));
	EXPECT_EQ(95027, cowbird_cc_on_delay(&w, &cfg, 0, T_LOCAL, 0));
	w = win(ONE / 2);
	EXPECT_EQ(49152, cowbird_cc_on_delay(&w, &cfg, 10, T_LOCAL, 0));
	w = win(100 * ONE - 1);				/* capped at CWND_MAX */
	EXPECT_EQ(100 * ONE, cowbird_cc_on_delay(&w, &cfg, 10, T_LOCAL, 0));
	EXPECT_EQ(100 * ONE, cowbird_cc_on_delay(&w, &cfg, 10, T_LOCAL, 0));
	/*
	 * Ten increases from 1 op, each 0.25 / cwnd: 1.25, 1.45, 1.62, 1.77,
	 * 1.91, 2.04, 2.16, 2.28, 2.39, 2.50 (less the roundings down).
	 */
	w = win(ONE);
	for (int i = 0; i < 10; i++)
		cowbird_cc_on_delay(&w, &cfg, 0, T_LOCAL, 0);
	EXPECT_LT(2 * ONE + ONE * 49 / 100, w.cwnd);
	EXPECT_GE(2 * ONE + ONE / 2, w.cwnd);
}

TEST(multiplicative_decrease)
{
	struct cowbird_cc_win w = win(10 * ONE);

	EXPECT_EQ(393220, cowbird_cc_on_delay(&w, &cfg, 2000, T_LOCAL, 5));
	/* At most once per RTT: not at 5 + RTT - 1, again at 5 + RTT. */
	EXPECT_EQ(393220, cowbird_cc_on_delay(&w, &cfg, 100000, T_LOCAL, 5 + RTT - 1));
	EXPECT_EQ(196610, cowbird_cc_on_delay(&w, &cfg, 100000, T_LOCAL, 5 + RTT));
	/* delay == target is not below it: a decrease, by zero. */
	w = win(10 * ONE);
	EXPECT_EQ(10 * ONE, cowbird_cc_on_delay(&w, &cfg, T_LOCAL, T_LOCAL, 0));
	EXPECT_EQ(1, w.decreased);
	/* Floored at CWND_MIN. */
	w = win(ONE / 64 + 1);
	EXPECT_EQ(ONE / 64, cowbird_cc_on_delay(&w, &cfg, 1000000, T_LOCAL, 0));
	/* A zero target and zero delay do not divide by zero. */
	w = win(ONE);
	EXPECT_EQ(ONE, cowbird_cc_on_delay(&w, &cfg, 0, 0, 0));
}

TEST(timeout_decrease)
{
	struct cowbird_cc_win w = win(10 * ONE);

	EXPECT_EQ(ONE, cowbird_cc_on_timeout(&w, &cfg, 100));
	EXPECT_EQ(ONE, cowbird_cc_on_timeout(&w, &cfg, 100 + RTT - 1));
	EXPECT_EQ(ONE / 10, cowbird_cc_on_timeout(&w, &cfg, 100 + RTT));
	EXPECT_EQ(ONE / 64, cowbird_cc_on_timeout(&w, &cfg, 100 + 2 * RTT));
}

FIXTURE(cc) {
	struct cowbird_cc *cc;
};

FIXTURE_SETUP(cc)
{
	self->cc = calloc(1, cowbird_cc_size(2));
	ASSERT_EQ(0, cowbird_cc_init(self->cc, &cfg, 2));
}

FIXTURE_TEARDOWN(cc)
{
	free(self->cc);
}

/* Local from issue_delay, remote from total - issue: each against its own target. */
TEST_F(cc, local_and_remote_windows)
{
	struct cowbird_cc *cc = self->cc;

	/* issue 500 < 1000: local AI; remote 5500 - 500 = 5000 >= 2000: MD,
	 * cut = 4 * 65536 * 3000 / 25000 = 31457, factor 34079 > 32768.
	 */
	cowbird_cc_on_issue(cc, 1, 0);
	cowbird_cc_on_complete(cc, 1, COWBIRD_ST_OK, 500, 5500, 10);
	EXPECT_EQ(10 * ONE + 1638, cc->local.cwnd);	/* 16384 * 65536 / 655360 */
	EXPECT_EQ(10 * 34079, cc->dst[1].cwnd);
	EXPECT_EQ(10 * ONE, cc->dst[0].cwnd);
	EXPECT_EQ(10 * 34079, cowbird_cc_window(cc, 1));
	EXPECT_EQ(10 * ONE, cowbird_cc_window(cc, 0));
	EXPECT_EQ(0, cc->local.inflight);
	EXPECT_EQ(0, cc->dst[1].inflight);
}

TEST_F(cc, failures_hit_their_window_only)
{
	struct cowbird_cc *cc = self->cc;

	cowbird_cc_on_complete(cc, 0, COWBIRD_ST_DISPATCH_TIMEOUT, 0, 0, 0);
	EXPECT_EQ(ONE, cc->local.cwnd);
	EXPECT_EQ(10 * ONE, cc->dst[0].cwnd);
	cowbird_cc_on_complete(cc, 0, COWBIRD_ST_TIMEOUT, 0, 0, 0);
	EXPECT_EQ(ONE, cc->dst[0].cwnd);
	cowbird_cc_on_complete(cc, 1, COWBIRD_ST_NACK, 0, 0, 0);
	EXPECT_EQ(ONE, cc->dst[1].cwnd);
	EXPECT_EQ(ONE, cc->local.cwnd);
	cowbird_cc_on_complete(cc, 1, COWBIRD_ST_EACCES, 0, 0, 5 * RTT);
	cowbird_cc_on_complete(cc, 1, COWBIRD_ST_EFAULT, 0, 0, 5 * RTT);
	EXPECT_EQ(ONE, cc->dst[1].cwnd);
	EXPECT_EQ(ONE, cc->local.cwnd);
	EXPECT_EQ(3, cc->stats.timeout_decreases);
}

TEST_F(cc, window_gates_issue)
{
	struct cowbird_cc *cc = self->cc;
	int i;

	cc->dst[0].cwnd = 2 * ONE + ONE / 2;		/* 2.5 ops: two in flight */
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(cowbird_cc_may_issue(cc, 0, 0));
		cowbird_cc_on_issue(cc, 0, 0);
	}
	EXPECT_FALSE(cowbird_cc_may_issue(cc, 0, 0));
	EXPECT_TRUE(cowbird_cc_may_issue(cc, 1, 0));	/* another destination */
	EXPECT_FALSE(cowbird_cc_may_issue(cc, 2, 0));	/* no such destination */
	cc->local.cwnd = 2 * ONE;			/* the local window binds too */
	EXPECT_FALSE(cowbird_cc_may_issue(cc, 1, 0));
	cowbird_cc_on_complete(cc, 0, COWBIRD_ST_EACCES, 0, 0, 0);
	EXPECT_TRUE(cowbird_cc_may_issue(cc, 0, 0));
}

/* Below one op: one in flight, and ops paced RTT / cwnd apart (here 2 RTT). */
TEST_F(cc, pacing_below_one_op)
{
	struct cowbird_cc *cc = self->cc;

	cc->dst[0].cwnd = ONE / 2;
	ASSERT_TRUE(cowbird_cc_may_issue(cc, 0, 1000));
	cowbird_cc_on_issue(cc, 0, 1000);
	EXPECT_FALSE(cowbird_cc_may_issue(cc, 0, 1001));
	cowbird_cc_on_complete(cc, 0, COWBIRD_ST_EACCES, 0, 0, 1002);
	EXPECT_FALSE(cowbird_cc_may_issue(cc, 0, 1000 + 2 * RTT - 1));
	EXPECT_TRUE(cowbird_cc_may_issue(cc, 0, 1000 + 2 * RTT));
}

TEST(init_rejects)
{
	struct cowbird_cc *cc = calloc(1, cowbird_cc_size(COWBIRD_CC_MAX_DESTS + 1));
	struct cowbird_cc_cfg c;

	c = cfg;	EXPECT_EQ(0, cowbird_cc_init(cc, &c, 1));
	c = cfg;	EXPECT_EQ(-EINVAL, cowbird_cc_init(cc, &c, 0));
	c = cfg;	EXPECT_EQ(-EINVAL, cowbird_cc_init(cc, &c, COWBIRD_CC_MAX_DESTS + 1));
	c = cfg; c.rtt_ns = 0;		EXPECT_EQ(-EINVAL, cowbird_cc_init(cc, &c, 1));
	c = cfg; c.cwnd_min = 0;	EXPECT_EQ(-EINVAL, cowbird_cc_init(cc, &c, 1));
	c = cfg; c.cwnd_init = 101 * ONE;	EXPECT_EQ(-EINVAL, cowbird_cc_init(cc, &c, 1));
	c = cfg; c.cwnd_min = 200 * ONE;	EXPECT_EQ(-EINVAL, cowbird_cc_init(cc, &c, 1));
	free(cc);
}

TEST_HARNESS_MAIN
