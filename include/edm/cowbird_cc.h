/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cowbird's congestion control: 1RMA's delay-based AIMD windows (1RMA,
 * SIGCOMM '20, section 6, Algorithm 1), one window per destination for
 * remote congestion and one local window, in fixed point.
 *
 * A kernel-agnostic core (see edm/core.h): no floating point, no clock, no
 * allocation, no lock. The caller sizes the memory with cowbird_cc_size(),
 * passes time in nanoseconds and serializes all calls on one struct
 * cowbird_cc (the engine thread that issues the ops).
 *
 * Windows count ops of at most COWBIRD_OP_MAX bytes, in units of
 * 1/COWBIRD_CC_ONE op, so windows below one op (paced) are expressible. The
 * constants are exact rationals: AI = 1/4, MD = 1/2, beta = 4/5,
 * TIMEOUT_DECR = 1/10.
 */
#ifndef _EDM_COWBIRD_CC_H
#define _EDM_COWBIRD_CC_H

#include "edm/core.h"
#include <uapi/linux/cowbird.h>

enum {
	COWBIRD_CC_SHIFT	= 16,
	COWBIRD_CC_ONE		= 1 << COWBIRD_CC_SHIFT,	/* one op */
	COWBIRD_CC_AI		= COWBIRD_CC_ONE / 4,		/* AI = 0.25 */
	COWBIRD_CC_MD		= COWBIRD_CC_ONE / 2,		/* MD = 0.5 */
	COWBIRD_CC_BETA_NUM	= 4,				/* beta = 0.8 */
	COWBIRD_CC_BETA_DEN	= 5,
	COWBIRD_CC_DECR_DEN	= 10,				/* TIMEOUT_DECR = 0.1 */
	COWBIRD_CC_MAX_DESTS	= 4096,
};

struct cowbird_cc_cfg {
	u32 target_local_ns;	/* TARGET_DELAY for issue_delay */
	u32 target_remote_ns;	/* target for remote_delay = total - issue */
	u32 rtt_ns;		/* at most one decrease per RTT; pacing period */
	u32 cwnd_init;		/* in 1/COWBIRD_CC_ONE ops */
	u32 cwnd_min;		/* CWND_MIN, > 0 */
	u32 cwnd_max;		/* CWND_MAX (so windows stay below 65536 ops) */
};

struct cowbird_cc_win {
	u32 cwnd;		/* in 1/COWBIRD_CC_ONE ops */
	u32 inflight;		/* ops issued, not completed */
	u64 last_decrease_ns;
	u64 next_issue_ns;	/* pacing below one op: earliest next issue */
	u32 decreased;		/* a decrease happened (last_decrease_ns is valid) */
	u32 pad;
};

struct cowbird_cc_stats {
	u64 issued;
	u64 completed;
	u64 increases;
	u64 decreases;		/* delay-based multiplicative decreases */
	u64 timeout_decreases;	/* TIMEOUT_DECR cuts */
};

struct cowbird_cc {
	struct cowbird_cc_cfg cfg;
	u32 ndst;
	u32 pad;
	struct cowbird_cc_stats stats;
	struct cowbird_cc_win local;
	struct cowbird_cc_win dst[];	/* ndst of them */
};

static inline size_t cowbird_cc_size(u32 ndst)
{
	return sizeof(struct cowbird_cc) + (size_t)ndst * sizeof(struct cowbird_cc_win);
}

int cowbird_cc_init(struct cowbird_cc *cc, const struct cowbird_cc_cfg *cfg, u32 ndst);
u32 cowbird_cc_on_delay(struct cowbird_cc_win *w, const struct cowbird_cc_cfg *cfg, u64 delay,
			u32 target, u64 now);
u32 cowbird_cc_on_timeout(struct cowbird_cc_win *w, const struct cowbird_cc_cfg *cfg, u64 now);
u32 cowbird_cc_window(const struct cowbird_cc *cc, u32 dst);
bool cowbird_cc_may_issue(const struct cowbird_cc *cc, u32 dst, u64 now);
void cowbird_cc_on_issue(struct cowbird_cc *cc, u32 dst, u64 now);
void cowbird_cc_on_complete(struct cowbird_cc *cc, u32 dst, u16 status, u64 issue_delay_ns,
			    u64 total_delay_ns, u64 now);

#endif /* _EDM_COWBIRD_CC_H */
