// SPDX-License-Identifier: GPL-2.0
/*
 * CXL stand-in: credit-based link-level flow control through an
 * input-queued switch, the mechanism the paper blames for CXL's collapse
 * under incast (section 4.3, Aurelia).
 *
 * Traffic moves in 68-byte flits of four 16-byte slots, so each slot costs
 * 17 bytes of wire time: a request is one slot per 16 bytes of RREQ, a
 * cache line of data is a header slot and four data slots (85 bytes), and a
 * write is answered by a one-slot completion. A host may send only into
 * credits: each switch ingress port has a buffer of --cxl-credits bytes
 * (4 KiB, above the credit loop's bandwidth-delay product so that one
 * sender alone runs at line rate), and the switch returns a packet's credits
 * one hop after the packet leaves it. Each ingress buffer is a FIFO whose
 * head waits for its egress; an idle egress serves the ingress ports
 * waiting for it first come first served. So an incast victim's egress
 * holds the heads of many ingress buffers, those fill, their hosts run out
 * of credits, and traffic to every other destination behind them stops:
 * head-of-line blocking. Hops are EDM's PHY (PCS, PMA/PMD, propagation);
 * a switch traversal costs --cxl-switch-ns (100 ns, the paper's section 2.2
 * figure for a CXL switch hop); hosts add nothing, as in Table 1.
 */
#include <stdlib.h>

#include "edmsim.h"

enum cxl_ev {
	CXL_EV_NIC_DONE,	/* a host */
	CXL_EV_SW_ARR,		/* a packet: its head can leave the ingress */
	CXL_EV_XFER_END,	/* a packet: out of the switch */
	CXL_EV_CREDIT,		/* a host, b bytes */
	CXL_EV_HOST_RX,		/* a packet */
};

enum cxl_kind {
	CXL_REQ,
	CXL_DATA,
	CXL_CMP,
};

enum { CXL_NONE = ~0U };

struct cxl_pkt {
	u32 msg;
	u32 bytes;
	u32 wire;
	u32 next;
	u16 src;
	u16 dst;
	u8 kind;
};

struct cxl_host {
	u32 head;
	u32 tail;
	u64 credits;
	bool busy;
};

struct cxl_ingress {
	u32 head;
	u32 tail;
	bool busy;		/* its head is crossing to the egress */
	bool waiting;		/* its head is in an egress's wait FIFO */
};

struct cxl_egress {
	u16 *wait;		/* ring of ingress ports, first come first served */
	u32 whead;
	u32 wn;
	bool busy;
};

struct cxl_fab {
	struct cxl_pkt *p;
	u32 np;
	u32 cap;
	u32 free;
	struct cxl_host *host;
	struct cxl_ingress *in;
	struct cxl_egress *out;
	u64 *busy;		/* [host] up, [nodes + host] down */
	u64 credit_stalls;	/* a host's head waited for credits */
	u64 hol_waits;		/* a head found its egress busy */
	u32 max_wait;		/* longest egress wait FIFO */
};

static inline u32 slots(u32 bytes)
{
	return (bytes + EDMSIM_CXL_SLOT - 1) / EDMSIM_CXL_SLOT;
}

static inline u32 line_bytes(u32 size, u32 k)
{
	u32 left = size - k * EDMSIM_CXL_LINE;

	return left < EDMSIM_CXL_LINE ? left : EDMSIM_CXL_LINE;
}

static inline u32 data_wire(u32 bytes)
{
	return (1 + slots(bytes)) * EDMSIM_CXL_SLOT_WIRE;
}

static inline u32 nlines(u32 size)
{
	return (size + EDMSIM_CXL_LINE - 1) / EDMSIM_CXL_LINE;
}

/* Packets from an idle host through an idle switch: the last one's arrival. */
static u64 oneway(const struct edmsim *s, u64 t, u32 size, u32 rreq)
{
	u64 host = t, egress = 0, arrive = t, w, ready;
	u32 n = rreq ? 1 : nlines(size), k;

	for (k = 0; k < n; k++) {
		w = s->phy.byte_ps * (rreq ? slots(rreq) * EDMSIM_CXL_SLOT_WIRE :
				      data_wire(line_bytes(size, k)));
		ready = host + s->phy.hop_ps + s->cfg.cxl_switch_ps;
		if (ready > egress)
			egress = ready;
		egress += w;
		arrive = egress + s->phy.hop_ps;
		host += w;
	}
	return arrive;
}

static u64 cxl_unloaded(const struct edmsim *s, const struct edmsim_msg *m)
{
	u64 t = m->arrive_ps;

	if (m->type == EDMSIM_READ)
		t = oneway(s, t, 0, m->rreq);
	return oneway(s, t, m->size, 0) - m->arrive_ps;
}

static u32 pkt_new(struct cxl_fab *f, u32 mi, u32 kind, u32 src, u32 dst, u32 bytes, u32 wire)
{
	u32 i;

	if (f->free != CXL_NONE) {
		i = f->free;
		f->free = f->p[i].next;
	} else {
		if (f->np == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 4096;
			f->p = realloc(f->p, f->cap * sizeof(*f->p));
			if (!f->p) {
				fprintf(stderr, "edmsim: out of memory for packets\n");
				exit(2);
			}
		}
		i = f->np++;
	}
	f->p[i] = (struct cxl_pkt){
		.msg = mi, .kind = kind, .src = src, .dst = dst, .bytes = bytes, .wire = wire,
		.next = CXL_NONE,
	};
	return i;
}

static void host_kick(struct edmsim *s, struct cxl_fab *f, u32 h)
{
	struct cxl_host *hs = &f->host[h];
	const struct cxl_pkt *p;
	u64 w;
	u32 i;

	if (hs->busy || hs->head == CXL_NONE)
		return;
	i = hs->head;
	p = &f->p[i];
	if (hs->credits < p->wire) {
		f->credit_stalls++;
		return;			/* a credit return kicks it again */
	}
	hs->head = p->next;
	if (hs->head == CXL_NONE)
		hs->tail = CXL_NONE;
	hs->credits -= p->wire;
	hs->busy = true;
	w = p->wire * s->phy.byte_ps;
	f->busy[h] += w;
	edmsim_push(s, s->now + w, CXL_EV_NIC_DONE, h, 0, 0);
	edmsim_push(s, s->now + s->phy.hop_ps + s->cfg.cxl_switch_ps, CXL_EV_SW_ARR, i, 0, 0);
}

static void host_queue(struct edmsim *s, struct cxl_fab *f, u32 i)
{
	struct cxl_host *hs = &f->host[f->p[i].src];

	if (hs->tail == CXL_NONE)
		hs->head = i;
	else
		f->p[hs->tail].next = i;
	hs->tail = i;
	host_kick(s, f, f->p[i].src);
}

static void send_data(struct edmsim *s, struct cxl_fab *f, u32 mi, u32 src, u32 dst)
{
	u32 size = s->msg[mi].size, n = nlines(size), k, bytes;

	for (k = 0; k < n; k++) {
		bytes = line_bytes(size, k);
		host_queue(s, f, pkt_new(f, mi, CXL_DATA, src, dst, bytes, data_wire(bytes)));
	}
}

static void cxl_arrive(struct edmsim *s, u32 mi)
{
	struct cxl_fab *f = s->priv;
	const struct edmsim_msg *m = &s->msg[mi];

	if (m->type == EDMSIM_READ)
		host_queue(s, f, pkt_new(f, mi, CXL_REQ, m->src, m->dst, 0,
					 slots(m->rreq) * EDMSIM_CXL_SLOT_WIRE));
	else
		send_data(s, f, mi, m->src, m->dst);
}

static void xfer_start(struct edmsim *s, struct cxl_fab *f, u32 in)
{
	u32 i = f->in[in].head;
	const struct cxl_pkt *p = &f->p[i];
	u64 w = p->wire * s->phy.byte_ps;

	f->in[in].busy = true;
	f->out[p->dst].busy = true;
	f->busy[s->cfg.nodes + p->dst] += w;
	edmsim_push(s, s->now + w, CXL_EV_XFER_END, i, 0, 0);
	edmsim_push(s, s->now + w + s->phy.hop_ps, CXL_EV_HOST_RX, i, 0, 0);
}

/* The ingress port's head asks for its egress. */
static void head_request(struct edmsim *s, struct cxl_fab *f, u32 in)
{
	struct cxl_ingress *ig = &f->in[in];
	struct cxl_egress *eg;

	if (ig->busy || ig->waiting || ig->head == CXL_NONE)
		return;
	eg = &f->out[f->p[ig->head].dst];
	if (!eg->busy) {
		xfer_start(s, f, in);
		return;
	}
	f->hol_waits++;
	ig->waiting = true;
	eg->wait[(eg->whead + eg->wn++) % s->cfg.nodes] = in;
	if (eg->wn > f->max_wait)
		f->max_wait = eg->wn;
}

static void sw_arrive(struct edmsim *s, struct cxl_fab *f, u32 i)
{
	struct cxl_ingress *ig = &f->in[f->p[i].src];

	if (ig->tail == CXL_NONE)
		ig->head = i;
	else
		f->p[ig->tail].next = i;
	ig->tail = i;
	head_request(s, f, f->p[i].src);
}

static void xfer_end(struct edmsim *s, struct cxl_fab *f, u32 i)
{
	u32 in = f->p[i].src, out = f->p[i].dst, next;
	struct cxl_ingress *ig = &f->in[in];
	struct cxl_egress *eg = &f->out[out];

	ig->head = f->p[i].next;
	if (ig->head == CXL_NONE)
		ig->tail = CXL_NONE;
	ig->busy = false;
	eg->busy = false;
	edmsim_push(s, s->now + s->phy.hop_ps, CXL_EV_CREDIT, in, f->p[i].wire, 0);
	if (eg->wn) {
		next = eg->wait[eg->whead];
		eg->whead = (eg->whead + 1) % s->cfg.nodes;
		eg->wn--;
		f->in[next].waiting = false;
		xfer_start(s, f, next);
	}
	head_request(s, f, in);
}

static void host_rx(struct edmsim *s, struct cxl_fab *f, u32 i)
{
	struct cxl_pkt p = f->p[i];
	const struct edmsim_msg *m = &s->msg[p.msg];

	f->p[i].next = f->free;
	f->free = i;
	if (p.kind == CXL_REQ) {
		send_data(s, f, p.msg, p.dst, p.src);
	} else if (p.kind == CXL_DATA) {
		edmsim_deliver(s, p.msg, p.bytes);
		if (m->type == EDMSIM_WRITE && m->done)
			host_queue(s, f, pkt_new(f, p.msg, CXL_CMP, p.dst, p.src, 0,
						 EDMSIM_CXL_SLOT_WIRE));
	}
}

static void cxl_event(struct edmsim *s, const struct edmsim_ev *ev)
{
	struct cxl_fab *f = s->priv;

	switch (ev->kind) {
	case CXL_EV_NIC_DONE:
		f->host[ev->a].busy = false;
		host_kick(s, f, ev->a);
		break;
	case CXL_EV_SW_ARR:
		sw_arrive(s, f, ev->a);
		break;
	case CXL_EV_XFER_END:
		xfer_end(s, f, ev->a);
		break;
	case CXL_EV_CREDIT:
		f->host[ev->a].credits += ev->b;
		host_kick(s, f, ev->a);
		break;
	case CXL_EV_HOST_RX:
		host_rx(s, f, ev->a);
		break;
	}
}

static int cxl_init(struct edmsim *s)
{
	u32 n = s->cfg.nodes, i;
	struct cxl_fab *f;

	if (s->cfg.cxl_credits < data_wire(EDMSIM_CXL_LINE)) {
		fprintf(stderr, "edmsim: --cxl-credits must hold one cache line (%u bytes)\n",
			data_wire(EDMSIM_CXL_LINE));
		return -EINVAL;
	}
	f = edmsim_zalloc(1, sizeof(*f));
	f->free = CXL_NONE;
	f->host = edmsim_zalloc(n, sizeof(*f->host));
	f->in = edmsim_zalloc(n, sizeof(*f->in));
	f->out = edmsim_zalloc(n, sizeof(*f->out));
	f->busy = edmsim_zalloc(2 * n, sizeof(*f->busy));
	for (i = 0; i < n; i++) {
		f->host[i].head = CXL_NONE;
		f->host[i].tail = CXL_NONE;
		f->host[i].credits = s->cfg.cxl_credits;
		f->in[i].head = CXL_NONE;
		f->in[i].tail = CXL_NONE;
		f->out[i].wait = edmsim_zalloc(n, sizeof(*f->out[i].wait));
	}
	s->priv = f;
	s->link_busy = f->busy;
	s->nlinks = 2 * n;
	return 0;
}

static void cxl_fini(struct edmsim *s)
{
	struct cxl_fab *f = s->priv;
	u32 i;

	for (i = 0; i < s->cfg.nodes; i++)
		free(f->out[i].wait);
	free(f->out);
	free(f->in);
	free(f->host);
	free(f->busy);
	free(f->p);
	free(f);
	s->priv = NULL;
}

static void cxl_report(const struct edmsim *s, FILE *out)
{
	const struct cxl_fab *f = s->priv;

	fprintf(out, " credit_stalls=%llu hol_waits=%llu max_egress_waiters=%u",
		(unsigned long long)f->credit_stalls, (unsigned long long)f->hol_waits,
		f->max_wait);
}

const struct edmsim_fabric edmsim_fab_cxl = {
	.name = "cxl",
	.stands_for = "CXL: credit-based link-level flow control, input-queued switch",
	.init = cxl_init,
	.fini = cxl_fini,
	.arrive = cxl_arrive,
	.event = cxl_event,
	.unloaded = cxl_unloaded,
	.report = cxl_report,
};
