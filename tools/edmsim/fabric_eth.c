// SPDX-License-Identifier: GPL-2.0
/*
 * Raw Ethernet: Table 1's raw Ethernet stack (MAC and PHY, no transport)
 * through an output-queued store-and-forward switch with 400 ns forwarding
 * and a finite buffer per egress port (--eth-buf, 64 KiB), which drops a
 * frame that does not fit (drop tail). Loss is repaired end to end by a
 * timeout: the initiator sends the whole message again (the RREQ of a read,
 * every frame of a write) when it has not finished --rto-ns (10 us) after
 * sending (a timer that fires while the message still waits in its own NIC
 * queue just starts again), the only recourse for single-frame memory
 * messages (paper 2.4). It stands for the paper's sender-driven baselines,
 * DCTCP and pFabric, without their congestion control: the paper finds the
 * two equal on single-packet flows, and both react only after queues build.
 * The frame machinery is ether.c.
 */
#include <stdlib.h>

#include "ether.h"

enum { ETH_EV_RTO = ETHER_EV_POLICY };

struct eth_pol {
	u64 drops;
	u64 retx;		/* messages sent again */
	u64 max_backlog;	/* bytes at one egress port */
};

static void eth_start(struct edmsim *s, struct ether *e, u32 mi)
{
	edmsim_push(s, s->now + s->cfg.eth_rto_ps, ETH_EV_RTO, mi, 0, 0);
}

static bool eth_admit(struct edmsim *s, struct ether *e, const struct ether_frame *fr)
{
	struct eth_pol *p = e->pol_priv;
	u64 backlog = ether_egress_bytes(s, e, fr->dst);

	if (backlog + fr->wire > s->cfg.eth_buf) {
		p->drops++;
		return false;
	}
	if (backlog + fr->wire > p->max_backlog)
		p->max_backlog = backlog + fr->wire;
	return true;
}

/* Not finished from the initiator's side: a read's data, a write's ACK. */
static void eth_rto(struct edmsim *s, struct ether *e, u32 mi)
{
	struct eth_pol *p = e->pol_priv;
	const struct edmsim_msg *m = &s->msg[mi];

	if (m->type == EDMSIM_READ ? m->done : e->acked[mi])
		return;
	/* Still in its own NIC's queue: the clock starts when it leaves. */
	if (!e->txq[mi]) {
		p->retx++;
		ether_send_msg(s, e, mi);
	}
	ether_send_msg(s, e, mi);
	edmsim_push(s, s->now + s->cfg.eth_rto_ps, ETH_EV_RTO, mi, 0, 0);
}

static void eth_event(struct edmsim *s, struct ether *e, const struct edmsim_ev *ev)
{
	if (ev->kind == ETH_EV_RTO)
		eth_rto(s, e, ev->a);
}

static const struct ether_policy eth_policy = {
	.start = eth_start,
	.admit = eth_admit,
	.event = eth_event,
};

static int eth_init(struct edmsim *s)
{
	struct ether *e = edmsim_zalloc(1, sizeof(*e));

	ether_init(s, e, &eth_policy);
	e->pol_priv = edmsim_zalloc(1, sizeof(struct eth_pol));
	return 0;
}

static void eth_fini(struct edmsim *s)
{
	struct ether *e = s->priv;

	ether_fini(s, e);
	free(e->pol_priv);
	free(e);
	s->priv = NULL;
}

static void eth_report(const struct edmsim *s, FILE *f)
{
	const struct ether *e = s->priv;
	const struct eth_pol *p = e->pol_priv;

	fprintf(f, " frames=%llu drops=%llu retransmitted_msgs=%llu dup_frames=%llu"
		" max_egress_backlog=%llu", (unsigned long long)e->frames,
		(unsigned long long)p->drops, (unsigned long long)p->retx,
		(unsigned long long)e->dup_frames, (unsigned long long)p->max_backlog);
}

const struct edmsim_fabric edmsim_fab_eth = {
	.name = "eth",
	.stands_for = "raw Ethernet, drop-tail output-queued switch and timeouts (DCTCP, pFabric)",
	.init = eth_init,
	.fini = eth_fini,
	.arrive = ether_arrive,
	.event = ether_event,
	.unloaded = ether_unloaded,
	.report = eth_report,
};
