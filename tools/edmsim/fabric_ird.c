// SPDX-License-Identifier: GPL-2.0
/*
 * IRD: the paper's idealized receiver-driven protocol (pHost, NDP, Homa,
 * ExpressPass, dcPIM), on the same PHY-level links and cut-through switch
 * as EDM so that only the scheduling differs.
 *
 * Ideal parts: a receiver learns of a message the instant it is created
 * (zero-time notification), and credits are paced at the receiver's link
 * rate, which is ExpressPass's switch credit rate limiting done exactly.
 * Each receiver grants one chunk-sized credit per chunk time to the message
 * with the fewest bytes still to credit (SRPT), keeping at most one
 * bandwidth-delay product of credited bytes outstanding; each sender answers
 * the credit of its shortest message first. A read's first credit carries
 * the RREQ. What is not ideal is what the paper blames: a receiver cannot see
 * that a sender is busy answering other receivers, so its credits wait at
 * that sender while its own link idles, and data from several senders can
 * meet at its egress, where the switch queues it.
 */
#include <stdlib.h>

#include "edmsim.h"
#include "blink.h"
#include "pq.h"

enum ird_ev {
	IRD_EV_CREDIT,		/* a receiver: may issue its next credit */
	IRD_EV_CREDIT_TX,	/* a receiver, b msg, c credit: built, to the uplink */
	IRD_EV_CREDIT_FWD,	/* a sender: the credit at the switch */
	IRD_EV_SENDER_CREDIT,	/* a sender: the credit in its grant queue */
	IRD_EV_DATA_TX,		/* a sender, b msg, c credit: chunk ready */
	IRD_EV_SENDER_FREE,	/* a sender: may pick the next credit */
	IRD_EV_FORWARD,		/* a receiver: the chunk at its egress */
	IRD_EV_DELIVER,
	IRD_EV_LINK_END,
};

enum ird_tx {
	IRD_TX_CREDIT_UP,
	IRD_TX_CREDIT_DOWN,
	IRD_TX_DATA_UP,
	IRD_TX_DATA_DOWN,
};

enum { IRD_FIRST = 1 << 16 };	/* credit c = bytes | IRD_FIRST */

struct ird_rx {
	struct edmsim_pq flows;		/* key: bytes still to credit */
	u64 next_credit;		/* pacing: not before this */
	u64 outstanding;		/* credited, not yet received */
	bool armed;			/* an IRD_EV_CREDIT is pending */
};

struct ird_snd {
	struct edmsim_pq credits;	/* key: bytes the message has left to send */
	bool busy;
};

struct ird_fab {
	struct edmsim_blinks links;
	struct ird_rx *rx;
	struct ird_snd *tx;
	u32 *uncredited;		/* [msg] */
	u32 *sent;			/* [msg] */
	u64 window;			/* bytes a receiver may have credited and not received */
	u64 credits;
};

static inline u64 cyc(const struct edmsim *s, u32 n)
{
	return (u64)n * s->phy.cyc_ps;
}

static inline u32 receiver(const struct edmsim_msg *m)
{
	return m->type == EDMSIM_READ ? m->src : m->dst;
}

static inline u32 sender(const struct edmsim_msg *m)
{
	return m->type == EDMSIM_READ ? m->dst : m->src;
}

static inline bool carries_rreq(const struct edmsim_msg *m, u32 c)
{
	return m->type == EDMSIM_READ && (c & IRD_FIRST);
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

/* credit (2) + switch (4) + grant queue and data (2 or 3, 4, 3) + switch (4) + RX (3) */
static u64 ird_unloaded(const struct edmsim *s, const struct edmsim_msg *m)
{
	u64 t = 4 * s->phy.hop_ps + (total_blocks(s, m->size) - 1) * s->phy.blk_ps;

	t += cyc(s, EDM_TIMING_CYC_HOST_TX_REQ + 2 * EDM_TIMING_CYC_SW_FORWARD +
		 EDM_TIMING_CYC_HOST_GRANT_Q + EDM_TIMING_CYC_HOST_TX_DATA +
		 EDM_TIMING_CYC_HOST_RX_DATA);
	if (m->type == EDMSIM_READ)
		return t + cyc(s, EDM_TIMING_CYC_HOST_RX_REQ) +
		       (edmsim_blocks(m->rreq) - 1) * s->phy.blk_ps;
	return t + cyc(s, EDM_TIMING_CYC_HOST_RX_GRANT);
}

static void rx_kick(struct edmsim *s, struct ird_fab *f, u32 r)
{
	struct ird_rx *rx = &f->rx[r];

	if (rx->armed || !rx->flows.n || rx->outstanding >= f->window)
		return;
	rx->armed = true;
	edmsim_push(s, s->now > rx->next_credit ? s->now : rx->next_credit, IRD_EV_CREDIT, r, 0, 0);
}

static void ird_arrive(struct edmsim *s, u32 mi)
{
	struct ird_fab *f = s->priv;
	const struct edmsim_msg *m = &s->msg[mi];

	f->uncredited[mi] = m->size;
	edmsim_pq_push(&f->rx[receiver(m)].flows, m->size, mi, 0);
	rx_kick(s, f, receiver(m));
}

/* SRPT at the receiver: a chunk of credit for its shortest message. */
static void rx_credit(struct edmsim *s, struct ird_fab *f, u32 r)
{
	struct ird_rx *rx = &f->rx[r];
	const struct edmsim_pqe *top = edmsim_pq_top(&rx->flows);
	u32 mi, len, c;

	rx->armed = false;
	if (!top)
		return;
	mi = top->a;
	len = f->uncredited[mi] < s->cfg.chunk ? f->uncredited[mi] : s->cfg.chunk;
	if (rx->outstanding + len > f->window)
		return;		/* a delivery re-arms it */
	c = len | (f->uncredited[mi] == s->msg[mi].size ? IRD_FIRST : 0);
	f->uncredited[mi] -= len;
	edmsim_pq_pop(&rx->flows);
	if (f->uncredited[mi])
		edmsim_pq_push(&rx->flows, f->uncredited[mi], mi, 0);
	rx->outstanding += len;
	rx->next_credit = s->now + edmsim_blocks(len) * s->phy.blk_ps;
	f->credits++;
	edmsim_push(s, s->now + cyc(s, EDM_TIMING_CYC_HOST_TX_REQ), IRD_EV_CREDIT_TX, r, mi, c);
	rx_kick(s, f, r);
}

static void credit_blocks_send(struct edmsim *s, struct ird_fab *f, u32 link, u32 kind,
			       const struct edmsim_ev *ev)
{
	const struct edmsim_msg *m = &s->msg[ev->b];
	u32 blocks = carries_rreq(m, ev->c) ? edmsim_blocks(m->rreq) : 1;

	edmsim_blink_send(s, &f->links, link, EDMSIM_PRIO_CTRL, blocks, kind, ev->a, ev->b, ev->c);
}

/* The sender answers its shortest message's credit. */
static void tx_pick(struct edmsim *s, struct ird_fab *f, u32 snd)
{
	struct ird_snd *tx = &f->tx[snd];
	const struct edmsim_pqe *top = edmsim_pq_top(&tx->credits);
	u32 mi, c;

	if (!top) {
		tx->busy = false;
		return;
	}
	mi = top->a;
	c = top->b;
	edmsim_pq_pop(&tx->credits);
	tx->busy = true;
	f->sent[mi] += c & (IRD_FIRST - 1);
	edmsim_push(s, s->now + cyc(s, EDM_TIMING_CYC_HOST_TX_DATA), IRD_EV_DATA_TX, snd, mi, c);
}

static void sender_credit(struct edmsim *s, struct ird_fab *f, const struct edmsim_ev *ev)
{
	struct ird_snd *tx = &f->tx[ev->a];

	edmsim_pq_push(&tx->credits, s->msg[ev->b].size - f->sent[ev->b], ev->b, ev->c);
	if (!tx->busy)
		tx_pick(s, f, ev->a);
}

static void deliver(struct edmsim *s, struct ird_fab *f, const struct edmsim_ev *ev)
{
	u32 len = ev->c & (IRD_FIRST - 1);

	edmsim_deliver(s, ev->b, len);
	f->rx[ev->a].outstanding -= len;
	rx_kick(s, f, ev->a);
}

static void ird_tx_start(struct edmsim *s, u32 link, const struct edmsim_tx *tx)
{
	const struct edmsim_msg *m = &s->msg[tx->b];
	u64 tail = (tx->blocks - 1) * s->phy.blk_ps, t = s->now + s->phy.hop_ps, dur;

	switch (tx->kind) {
	case IRD_TX_CREDIT_UP:
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_FORWARD), IRD_EV_CREDIT_FWD, sender(m),
			    tx->b, tx->c);
		break;
	case IRD_TX_CREDIT_DOWN:
		if (carries_rreq(m, tx->c))
			edmsim_req_done(s, tx->b, t + tail);
		t += tail + cyc(s, EDM_TIMING_CYC_HOST_GRANT_Q);
		t += cyc(s, carries_rreq(m, tx->c) ? EDM_TIMING_CYC_HOST_RX_REQ :
						     EDM_TIMING_CYC_HOST_RX_GRANT);
		edmsim_push(s, t, IRD_EV_SENDER_CREDIT, tx->a, tx->b, tx->c);
		break;
	case IRD_TX_DATA_UP:
		edmsim_started(s, tx->b);
		/* The next chunk's TX pipeline overlaps this one's last blocks. */
		dur = tx->blocks * s->phy.blk_ps;
		if (dur > cyc(s, EDM_TIMING_CYC_HOST_TX_DATA))
			dur -= cyc(s, EDM_TIMING_CYC_HOST_TX_DATA);
		else
			dur = 0;
		edmsim_push(s, s->now + dur, IRD_EV_SENDER_FREE, tx->a, 0, 0);
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_FORWARD), IRD_EV_FORWARD, receiver(m),
			    tx->b, tx->c);
		break;
	case IRD_TX_DATA_DOWN:
		edmsim_push(s, t + tail + cyc(s, EDM_TIMING_CYC_HOST_RX_DATA), IRD_EV_DELIVER,
			    tx->a, tx->b, tx->c);
		break;
	}
}

static void ird_event(struct edmsim *s, const struct edmsim_ev *ev)
{
	struct ird_fab *f = s->priv;
	u32 n = s->cfg.nodes, len = ev->c & (IRD_FIRST - 1);

	switch (ev->kind) {
	case IRD_EV_CREDIT:
		rx_credit(s, f, ev->a);
		break;
	case IRD_EV_CREDIT_TX:
		credit_blocks_send(s, f, ev->a, IRD_TX_CREDIT_UP, ev);
		break;
	case IRD_EV_CREDIT_FWD:
		credit_blocks_send(s, f, n + ev->a, IRD_TX_CREDIT_DOWN, ev);
		break;
	case IRD_EV_SENDER_CREDIT:
		sender_credit(s, f, ev);
		break;
	case IRD_EV_DATA_TX:
		edmsim_blink_send(s, &f->links, ev->a, EDMSIM_PRIO_DATA, edmsim_blocks(len),
				  IRD_TX_DATA_UP, ev->a, ev->b, ev->c);
		break;
	case IRD_EV_SENDER_FREE:
		tx_pick(s, f, ev->a);
		break;
	case IRD_EV_FORWARD:
		edmsim_blink_send(s, &f->links, n + ev->a, EDMSIM_PRIO_DATA, edmsim_blocks(len),
				  IRD_TX_DATA_DOWN, ev->a, ev->b, ev->c);
		break;
	case IRD_EV_DELIVER:
		deliver(s, f, ev);
		break;
	case IRD_EV_LINK_END:
		edmsim_blink_end(s, &f->links, ev);
		break;
	}
}

static int ird_init(struct edmsim *s)
{
	struct edmsim_msg one = { .type = EDMSIM_WRITE, .size = s->cfg.chunk };
	u32 n = s->cfg.nodes;
	struct ird_fab *f;

	f = edmsim_zalloc(1, sizeof(*f));
	edmsim_blinks_init(&f->links, 2 * n, n, IRD_EV_LINK_END, ird_tx_start);
	f->rx = edmsim_zalloc(n, sizeof(*f->rx));
	f->tx = edmsim_zalloc(n, sizeof(*f->tx));
	f->uncredited = edmsim_zalloc(s->nmsg, sizeof(*f->uncredited));
	f->sent = edmsim_zalloc(s->nmsg, sizeof(*f->sent));
	/* One bandwidth-delay product from credit to data, plus the chunk in hand. */
	f->window = ird_unloaded(s, &one) / s->phy.byte_ps + s->cfg.chunk;
	s->priv = f;
	s->link_busy = f->links.busy;
	s->nlinks = 2 * n;
	return 0;
}

static void ird_fini(struct edmsim *s)
{
	struct ird_fab *f = s->priv;
	u32 i;

	for (i = 0; i < s->cfg.nodes; i++) {
		edmsim_pq_free(&f->rx[i].flows);
		edmsim_pq_free(&f->tx[i].credits);
	}
	edmsim_blinks_free(&f->links);
	free(f->rx);
	free(f->tx);
	free(f->uncredited);
	free(f->sent);
	free(f);
	s->priv = NULL;
}

static void ird_report(const struct edmsim *s, FILE *out)
{
	const struct ird_fab *f = s->priv;

	fprintf(out, " window=%llu credits=%llu", (unsigned long long)f->window,
		(unsigned long long)f->credits);
	edmsim_blinks_report(&f->links, s->nmsg, out);
}

const struct edmsim_fabric edmsim_fab_ird = {
	.name = "ird",
	.stands_for = "IRD: idealized receiver-driven SRPT (pHost, NDP, Homa, ExpressPass)",
	.init = ird_init,
	.fini = ird_fini,
	.arrive = ird_arrive,
	.event = ird_event,
	.unloaded = ird_unloaded,
	.marks = true,
	.report = ird_report,
};
