// SPDX-License-Identifier: GPL-2.0
/*
 * PFC: lossless Ethernet. The same hosts and output-queued switch as raw
 * Ethernet (ether.c), but the buffer never overflows: the switch counts the
 * bytes it holds from each ingress port, and when they pass --pfc-xoff
 * (16 KiB) it sends that host a PAUSE, which stops the host's NIC after its
 * current frame; below --pfc-xon (14 KiB) a RESUME lets it go. A pause takes
 * one minimum frame and one hop to arrive. No frame is ever dropped, so
 * there are no timeouts; the price is head-of-line blocking, since a paused
 * NIC holds back frames for every destination behind the one that filled
 * the switch. It stands for the paper's PFC baseline without DCQCN's rate
 * control, which reacts over many round trips and cannot help messages of
 * one frame.
 */
#include <stdlib.h>

#include "ether.h"

enum { PFC_EV_PAUSE = ETHER_EV_POLICY };

struct pfc_pol {
	u64 *ingress;		/* [host] bytes from it held in the switch */
	bool *paused;		/* [host] the switch's last word to it was PAUSE */
	u64 pauses;
	u64 max_ingress;
	u64 max_backlog;
};

static u64 pause_delay(const struct edmsim *s)
{
	return (EDMSIM_ETH_MIN_FRAME + EDMSIM_ETH_GAP) * s->phy.byte_ps + s->phy.eth_hop_ps;
}

static void pfc_tell(struct edmsim *s, struct pfc_pol *p, u32 h, bool pause)
{
	p->paused[h] = pause;
	p->pauses += pause;
	edmsim_push(s, s->now + pause_delay(s), PFC_EV_PAUSE, h, pause, 0);
}

static void pfc_rx(struct edmsim *s, struct ether *e, const struct ether_frame *fr)
{
	struct pfc_pol *p = e->pol_priv;

	p->ingress[fr->src] += fr->wire;
	if (p->ingress[fr->src] > p->max_ingress)
		p->max_ingress = p->ingress[fr->src];
	if (!p->paused[fr->src] && p->ingress[fr->src] > s->cfg.pfc_xoff)
		pfc_tell(s, p, fr->src, true);
}

static bool pfc_admit(struct edmsim *s, struct ether *e, const struct ether_frame *fr)
{
	struct pfc_pol *p = e->pol_priv;
	u64 backlog = ether_egress_bytes(s, e, fr->dst) + fr->wire;

	if (backlog > p->max_backlog)
		p->max_backlog = backlog;
	return true;
}

static void pfc_tx_end(struct edmsim *s, struct ether *e, const struct ether_frame *fr)
{
	struct pfc_pol *p = e->pol_priv;

	p->ingress[fr->src] -= fr->wire;
	if (p->paused[fr->src] && p->ingress[fr->src] < s->cfg.pfc_xon)
		pfc_tell(s, p, fr->src, false);
}

static void pfc_event(struct edmsim *s, struct ether *e, const struct edmsim_ev *ev)
{
	if (ev->kind != PFC_EV_PAUSE)
		return;
	e->nic[ev->a].paused = ev->b;
	ether_nic_kick(s, e, ev->a);
}

static const struct ether_policy pfc_policy = {
	.needs_tx_end = true,
	.rx = pfc_rx,
	.admit = pfc_admit,
	.tx_end = pfc_tx_end,
	.event = pfc_event,
};

static int pfc_init(struct edmsim *s)
{
	struct ether *e = edmsim_zalloc(1, sizeof(*e));
	struct pfc_pol *p = edmsim_zalloc(1, sizeof(*p));

	ether_init(s, e, &pfc_policy);
	p->ingress = edmsim_zalloc(s->cfg.nodes, sizeof(*p->ingress));
	p->paused = edmsim_zalloc(s->cfg.nodes, sizeof(*p->paused));
	e->pol_priv = p;
	return 0;
}

static void pfc_fini(struct edmsim *s)
{
	struct ether *e = s->priv;
	struct pfc_pol *p = e->pol_priv;

	ether_fini(s, e);
	free(p->ingress);
	free(p->paused);
	free(p);
	free(e);
	s->priv = NULL;
}

static void pfc_report(const struct edmsim *s, FILE *f)
{
	const struct ether *e = s->priv;
	const struct pfc_pol *p = e->pol_priv;

	fprintf(f, " frames=%llu pauses=%llu max_ingress=%llu max_egress_backlog=%llu",
		(unsigned long long)e->frames, (unsigned long long)p->pauses,
		(unsigned long long)p->max_ingress, (unsigned long long)p->max_backlog);
}

const struct edmsim_fabric edmsim_fab_pfc = {
	.name = "pfc",
	.stands_for = "PFC lossless Ethernet: per-ingress pause thresholds, no drops (PFC+DCQCN)",
	.init = pfc_init,
	.fini = pfc_fini,
	.arrive = ether_arrive,
	.event = ether_event,
	.unloaded = ether_unloaded,
	.report = pfc_report,
};
