// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird's congestion control: 1RMA Algorithm 1 (1RMA 6), applied to the
 * local window with issue_delay and to each destination's window with
 * remote_delay = total_delay - issue_delay.
 *
 * On an op's completion with status OK, each window takes one step:
 *
 *   delay < target:  cwnd += AI / cwnd  (cwnd >= 1)  or  cwnd += AI  (< 1),
 *                    capped at CWND_MAX;
 *   otherwise, at most once per RTT:
 *                    cwnd *= max(1 - beta * (delay - target) / delay, MD),
 *                    floored at CWND_MIN.
 *
 * DISPATCH_TIMEOUT cuts the local window, TIMEOUT and NACK the destination's,
 * to TIMEOUT_DECR times itself, again at most once per RTT. Access errors
 * (EACCES, EFAULT, EINVAL) say nothing about congestion and move no window.
 * The more restrictive window rules: an op may go while both windows have
 * room. A window of one op or more bounds the ops in flight, which at one
 * op per RTT each gives 1RMA's issue rate, OpSize * CWND / RTT; a window
 * below one op still lets one op out, and then paces ops RTT / cwnd apart,
 * which keeps that rate where a count cannot.
 *
 * Fixed point: windows in 1/65536 op (u32), products in u64, divisions
 * through cc_div() so 32-bit kernels get div64_u64. Every result rounds down.
 *
 * Locking: none; the caller serializes every call on one struct cowbird_cc.
 */
#include "edm/core.h"
#include "edm/cowbird_cc.h"

#ifdef __KERNEL__
#include <linux/math64.h>
static u64 cc_div(u64 n, u64 d)
{
	return div64_u64(n, d);
}
#else
static u64 cc_div(u64 n, u64 d)
{
	return n / d;
}
#endif

int cowbird_cc_init(struct cowbird_cc *cc, const struct cowbird_cc_cfg *cfg, u32 ndst)
{
	u32 i;

	if (!ndst || ndst > COWBIRD_CC_MAX_DESTS || !cfg->rtt_ns)
		return -EINVAL;
	if (!cfg->cwnd_min || cfg->cwnd_min > cfg->cwnd_max ||
	    cfg->cwnd_init < cfg->cwnd_min || cfg->cwnd_init > cfg->cwnd_max)
		return -EINVAL;

	memset(cc, 0, cowbird_cc_size(ndst));
	cc->cfg = *cfg;
	cc->ndst = ndst;
	cc->local.cwnd = cfg->cwnd_init;
	for (i = 0; i < ndst; i++)
		cc->dst[i].cwnd = cfg->cwnd_init;
	return 0;
}

static bool may_decrease(const struct cowbird_cc_win *w, const struct cowbird_cc_cfg *cfg,
			 u64 now)
{
	return !w->decreased || now - w->last_decrease_ns >= cfg->rtt_ns;
}

static void decreased(struct cowbird_cc_win *w, const struct cowbird_cc_cfg *cfg, u64 now)
{
	if (w->cwnd < cfg->cwnd_min)
		w->cwnd = cfg->cwnd_min;
	w->decreased = 1;
	w->last_decrease_ns = now;
}

/*
 * One step of Algorithm 1 on a successful op: delay against target.
 * Returns the new window.
 */
u32 cowbird_cc_on_delay(struct cowbird_cc_win *w, const struct cowbird_cc_cfg *cfg, u64 delay,
			u32 target, u64 now)
{
	u64 cwnd = w->cwnd, cut, factor;

	if (delay < target) {
		if (cwnd >= COWBIRD_CC_ONE)
			cwnd += cc_div((u64)COWBIRD_CC_AI << COWBIRD_CC_SHIFT, cwnd);
		else
			cwnd += COWBIRD_CC_AI;
		w->cwnd = cwnd < cfg->cwnd_max ? (u32)cwnd : cfg->cwnd_max;
		return w->cwnd;
	}
	if (!may_decrease(w, cfg, now) || !delay)
		return w->cwnd;
	/* beta * (delay - target) / delay, in 1/ONE; below ONE since target >= 0 */
	cut = cc_div((u64)COWBIRD_CC_BETA_NUM * COWBIRD_CC_ONE * (delay - target),
		     (u64)COWBIRD_CC_BETA_DEN * delay);
	factor = COWBIRD_CC_ONE - cut;
	if (factor < COWBIRD_CC_MD)
		factor = COWBIRD_CC_MD;
	w->cwnd = (u32)((cwnd * factor) >> COWBIRD_CC_SHIFT);
	decreased(w, cfg, now);
	return w->cwnd;
}

/* DISPATCH_TIMEOUT on the local window, TIMEOUT or NACK on a destination's. */
u32 cowbird_cc_on_timeout(struct cowbird_cc_win *w, const struct cowbird_cc_cfg *cfg, u64 now)
{
	if (!may_decrease(w, cfg, now))
		return w->cwnd;
	w->cwnd /= COWBIRD_CC_DECR_DEN;
	decreased(w, cfg, now);
	return w->cwnd;
}

/* The more restrictive of the local window and dst's. */
u32 cowbird_cc_window(const struct cowbird_cc *cc, u32 dst)
{
	u32 l = cc->local.cwnd, d = cc->dst[dst].cwnd;

	return l < d ? l : d;
}

/* Ops a window lets out at once: its whole part, at least one. */
static u32 ops(u32 cwnd)
{
	u32 n = cwnd >> COWBIRD_CC_SHIFT;

	return n ? n : 1;
}

bool cowbird_cc_may_issue(const struct cowbird_cc *cc, u32 dst, u64 now)
{
	const struct cowbird_cc_win *d;

	if (dst >= cc->ndst)
		return false;
	d = &cc->dst[dst];
	return cc->local.inflight < ops(cc->local.cwnd) && d->inflight < ops(d->cwnd) &&
	       (s64)(now - d->next_issue_ns) >= 0;
}

void cowbird_cc_on_issue(struct cowbird_cc *cc, u32 dst, u64 now)
{
	struct cowbird_cc_win *d;
	u32 win;

	if (dst >= cc->ndst)
		return;
	d = &cc->dst[dst];
	cc->local.inflight++;
	d->inflight++;
	win = cowbird_cc_window(cc, dst);
	if (win < COWBIRD_CC_ONE)
		d->next_issue_ns = now + cc_div((u64)cc->cfg.rtt_ns << COWBIRD_CC_SHIFT, win);
	cc->stats.issued++;
}

static void stat_step(struct cowbird_cc *cc, u32 before, u32 after)
{
	if (after > before)
		cc->stats.increases++;
	else if (after < before)
		cc->stats.decreases++;
}

void cowbird_cc_on_complete(struct cowbird_cc *cc, u32 dst, u16 status, u64 issue_delay_ns,
			    u64 total_delay_ns, u64 now)
{
	u64 remote = total_delay_ns > issue_delay_ns ? total_delay_ns - issue_delay_ns : 0;
	struct cowbird_cc_win *d;
	u32 before;

	if (dst >= cc->ndst)
		return;
	d = &cc->dst[dst];
	if (cc->local.inflight)
		cc->local.inflight--;
	if (d->inflight)
		d->inflight--;
	cc->stats.completed++;

	switch (status) {
	case COWBIRD_ST_OK:
		before = cc->local.cwnd;
		stat_step(cc, before, cowbird_cc_on_delay(&cc->local, &cc->cfg, issue_delay_ns,
							  cc->cfg.target_local_ns, now));
		before = d->cwnd;
		stat_step(cc, before, cowbird_cc_on_delay(d, &cc->cfg, remote,
							  cc->cfg.target_remote_ns, now));
		break;
	case COWBIRD_ST_DISPATCH_TIMEOUT:
		before = cc->local.cwnd;
		if (cowbird_cc_on_timeout(&cc->local, &cc->cfg, now) < before)
			cc->stats.timeout_decreases++;
		break;
	case COWBIRD_ST_TIMEOUT:
	case COWBIRD_ST_NACK:
		before = d->cwnd;
		if (cowbird_cc_on_timeout(d, &cc->cfg, now) < before)
			cc->stats.timeout_decreases++;
		break;
	default:
		break;
	}
}
