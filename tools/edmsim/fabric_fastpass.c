// SPDX-License-Identifier: GPL-2.0
/*
 * Fastpass-like: a central arbiter on its own server port, whose link runs
 * at the hosts' rate (100 Gb/s), and which decides instantly.
 *
 * Each message sends one request block to the arbiter; the arbiter answers
 * the data source with one allocation block (carrying the RREQ for a read).
 * The arbiter keeps, for every host link, the time up to which it has
 * already allotted it, and gives a message one contiguous transfer at the
 * earliest time the source's uplink and the destination's downlink are both
 * free, first come first served; the allocation names that start time and
 * the source sends then, so allotted data never meets other data in the
 * switch. It decides when the allocation leaves its link, with everything
 * it knows at that moment: solving the matching takes no time, as the paper
 * grants Fastpass. What it cannot escape is its own link: every message's
 * request and allocation cross it, one block each way, so it carries as
 * many messages as one host link has block slots, whatever the rack's size.
 * Links and switch are EDM's PHY-level ones (blink.c); the arbiter is a
 * host whose request handling costs an RREQ's 3 cycles in and 2 out.
 */
#include <stdlib.h>

#include "edmsim.h"
#include "blink.h"

enum fp_ev {
	FP_EV_REQ_TX,		/* a host, b msg: request built */
	FP_EV_REQ_FWD,		/* b msg: request at the switch, to the arbiter */
	FP_EV_ARB,		/* b msg: request at the arbiter */
	FP_EV_ALLOC_TX,		/* b msg: allocation built */
	FP_EV_ALLOC_FWD,	/* a data source, b msg: allocation at the switch */
	FP_EV_DATA_TX,		/* a data source, b msg: time to send */
	FP_EV_FORWARD,		/* a data destination, b msg, c bytes */
	FP_EV_DELIVER,
	FP_EV_LINK_END,
};

enum fp_tx {
	FP_TX_REQ,		/* host -> switch */
	FP_TX_REQ_ARB,		/* switch -> arbiter */
	FP_TX_ALLOC,		/* arbiter -> switch: the decision is made here */
	FP_TX_ALLOC_HOST,	/* switch -> data source */
	FP_TX_DATA,
	FP_TX_FORWARD,
};

struct fp_fab {
	struct edmsim_blinks links;	/* hosts' up, hosts' down, arbiter up, down */
	u64 *up_res;			/* [host] uplink allotted up to */
	u64 *down_res;			/* [host] downlink, in source start time */
	u64 *start;			/* [msg] allotted start at the source */
	u32 arb_up;
	u32 arb_down;
};

static inline u64 cyc(const struct edmsim *s, u32 n)
{
	return (u64)n * s->phy.cyc_ps;
}

static inline u32 data_src(const struct edmsim_msg *m)
{
	return m->type == EDMSIM_READ ? m->dst : m->src;
}

static inline u32 data_dst(const struct edmsim_msg *m)
{
	return m->type == EDMSIM_READ ? m->src : m->dst;
}

static inline u32 alloc_blocks(const struct edmsim_msg *m)
{
	return m->type == EDMSIM_READ ? edmsim_blocks(m->rreq) : 1;
}

static u32 total_blocks(const struct edmsim *s, u32 size)
{
	u32 blocks = 0, len;

	for (; size; size -= len) {
		len = size < s->cfg.chunk ? size : s->cfg.chunk;
		blocks += edmsim_blocks(len);
	}
	return blocks;
}

/* From the allocation leaving the arbiter to the source's first data block. */
static u64 alloc_to_data(const struct edmsim *s, const struct edmsim_msg *m)
{
	u64 t = 2 * s->phy.hop_ps + (alloc_blocks(m) - 1) * s->phy.blk_ps;

	t += cyc(s, EDM_TIMING_CYC_SW_FORWARD + EDM_TIMING_CYC_HOST_GRANT_Q +
		 EDM_TIMING_CYC_HOST_TX_DATA);
	return t + cyc(s, m->type == EDMSIM_READ ? EDM_TIMING_CYC_HOST_RX_REQ :
						   EDM_TIMING_CYC_HOST_RX_GRANT);
}

/* request: TX 2, hop, switch 4, hop, arbiter 3 + 2; then allocation and data */
static u64 fp_unloaded(const struct edmsim *s, const struct edmsim_msg *m)
{
	u64 t = 2 * s->phy.hop_ps + alloc_to_data(s, m) + 2 * s->phy.hop_ps;

	t += cyc(s, EDM_TIMING_CYC_HOST_TX_REQ + EDM_TIMING_CYC_SW_FORWARD +
		 EDM_TIMING_CYC_HOST_RX_REQ + EDM_TIMING_CYC_HOST_TX_REQ +
		 EDM_TIMING_CYC_SW_FORWARD + EDM_TIMING_CYC_HOST_RX_DATA);
	return t + (total_blocks(s, m->size) - 1) * s->phy.blk_ps;
}

static void fp_arrive(struct edmsim *s, u32 mi)
{
	edmsim_push(s, s->now + cyc(s, EDM_TIMING_CYC_HOST_TX_REQ), FP_EV_REQ_TX, s->msg[mi].src,
		    mi, 0);
}

/* First come first served: the earliest common free time of both links. */
static void allocate(struct edmsim *s, struct fp_fab *f, u32 mi)
{
	const struct edmsim_msg *m = &s->msg[mi];
	u32 src = data_src(m), dst = data_dst(m);
	u64 t = s->now + alloc_to_data(s, m);

	if (f->up_res[src] > t)
		t = f->up_res[src];
	if (f->down_res[dst] > t)
		t = f->down_res[dst];
	f->start[mi] = t;
	t += total_blocks(s, m->size) * s->phy.blk_ps;
	f->up_res[src] = t;
	f->down_res[dst] = t;
}

static void fp_tx_start(struct edmsim *s, u32 link, const struct edmsim_tx *tx)
{
	struct fp_fab *f = s->priv;
	const struct edmsim_msg *m = &s->msg[tx->b];
	u64 tail = (tx->blocks - 1) * s->phy.blk_ps, t = s->now + s->phy.hop_ps, ready;

	switch (tx->kind) {
	case FP_TX_REQ:
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_FORWARD), FP_EV_REQ_FWD, 0, tx->b, 0);
		break;
	case FP_TX_REQ_ARB:
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_HOST_RX_REQ), FP_EV_ARB, 0, tx->b, 0);
		break;
	case FP_TX_ALLOC:
		allocate(s, f, tx->b);
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_FORWARD), FP_EV_ALLOC_FWD, data_src(m),
			    tx->b, 0);
		break;
	case FP_TX_ALLOC_HOST:
		/* Late if the allocation queued on the way; never early. */
		ready = t + tail;
		ready += cyc(s, EDM_TIMING_CYC_HOST_GRANT_Q + EDM_TIMING_CYC_HOST_TX_DATA);
		ready += cyc(s, m->type == EDMSIM_READ ? EDM_TIMING_CYC_HOST_RX_REQ :
							 EDM_TIMING_CYC_HOST_RX_GRANT);
		edmsim_push(s, ready > f->start[tx->b] ? ready : f->start[tx->b], FP_EV_DATA_TX,
			    tx->a, tx->b, 0);
		break;
	case FP_TX_DATA:
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_FORWARD), FP_EV_FORWARD, data_dst(m),
			    tx->b, tx->c);
		break;
	case FP_TX_FORWARD:
		edmsim_push(s, t + tail + cyc(s, EDM_TIMING_CYC_HOST_RX_DATA), FP_EV_DELIVER,
			    tx->a, tx->b, tx->c);
		break;
	}
	(void)link;
}

/* The whole message, chunk by chunk, back to back on the source's uplink. */
static void data_tx(struct edmsim *s, struct fp_fab *f, const struct edmsim_ev *ev)
{
	u32 left = s->msg[ev->b].size, len;

	for (; left; left -= len) {
		len = left < s->cfg.chunk ? left : s->cfg.chunk;
		edmsim_blink_send(s, &f->links, ev->a, EDMSIM_PRIO_DATA, edmsim_blocks(len),
				  FP_TX_DATA, ev->a, ev->b, len);
	}
}

static void fp_event(struct edmsim *s, const struct edmsim_ev *ev)
{
	struct fp_fab *f = s->priv;
	const struct edmsim_msg *m = &s->msg[ev->b];
	u32 n = s->cfg.nodes;

	switch (ev->kind) {
	case FP_EV_REQ_TX:
		edmsim_blink_send(s, &f->links, ev->a, EDMSIM_PRIO_CTRL, 1, FP_TX_REQ, ev->a, ev->b,
				  0);
		break;
	case FP_EV_REQ_FWD:
		edmsim_blink_send(s, &f->links, f->arb_down, EDMSIM_PRIO_CTRL, 1, FP_TX_REQ_ARB, 0,
				  ev->b, 0);
		break;
	case FP_EV_ARB:
		edmsim_push(s, s->now + cyc(s, EDM_TIMING_CYC_HOST_TX_REQ), FP_EV_ALLOC_TX, 0,
			    ev->b, 0);
		break;
	case FP_EV_ALLOC_TX:
		edmsim_blink_send(s, &f->links, f->arb_up, EDMSIM_PRIO_CTRL, alloc_blocks(m),
				  FP_TX_ALLOC, 0, ev->b, 0);
		break;
	case FP_EV_ALLOC_FWD:
		edmsim_blink_send(s, &f->links, n + ev->a, EDMSIM_PRIO_CTRL, alloc_blocks(m),
				  FP_TX_ALLOC_HOST, ev->a, ev->b, 0);
		break;
	case FP_EV_DATA_TX:
		data_tx(s, f, ev);
		break;
	case FP_EV_FORWARD:
		edmsim_blink_send(s, &f->links, n + ev->a, EDMSIM_PRIO_DATA, edmsim_blocks(ev->c),
				  FP_TX_FORWARD, ev->a, ev->b, ev->c);
		break;
	case FP_EV_DELIVER:
		edmsim_deliver(s, ev->b, ev->c);
		break;
	case FP_EV_LINK_END:
		edmsim_blink_end(s, &f->links, ev);
		break;
	}
}

static int fp_init(struct edmsim *s)
{
	u32 n = s->cfg.nodes;
	struct fp_fab *f;

	f = edmsim_zalloc(1, sizeof(*f));
	f->arb_up = 2 * n;
	f->arb_down = 2 * n + 1;
	edmsim_blinks_init(&f->links, 2 * n + 2, n, FP_EV_LINK_END, fp_tx_start);
	f->up_res = edmsim_zalloc(n, sizeof(*f->up_res));
	f->down_res = edmsim_zalloc(n, sizeof(*f->down_res));
	f->start = edmsim_zalloc(s->nmsg, sizeof(*f->start));
	s->priv = f;
	s->link_busy = f->links.busy;
	s->nlinks = 2 * n;
	return 0;
}

static void fp_fini(struct edmsim *s)
{
	struct fp_fab *f = s->priv;

	edmsim_blinks_free(&f->links);
	free(f->up_res);
	free(f->down_res);
	free(f->start);
	free(f);
	s->priv = NULL;
}

static void fp_report(const struct edmsim *s, FILE *out)
{
	const struct fp_fab *f = s->priv;
	u64 span = s->nmsg ? s->msg[s->order[s->nmsg - 1]].arrive_ps -
			     s->msg[s->order[0]].arrive_ps : 0;

	fprintf(out, " arbiter_link_load=%.2f",
		span ? (double)f->links.busy[f->arb_down] / span : 0);
	edmsim_blinks_report(&f->links, s->nmsg, out);
}

const struct edmsim_fabric edmsim_fab_fastpass = {
	.name = "fastpass",
	.stands_for = "Fastpass: central arbiter on a 100 Gb/s server link, instant decisions",
	.init = fp_init,
	.fini = fp_fini,
	.arrive = fp_arrive,
	.event = fp_event,
	.unloaded = fp_unloaded,
	.report = fp_report,
};
