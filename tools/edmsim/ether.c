// SPDX-License-Identifier: GPL-2.0
/*
 * Ethernet frames through an output-queued store-and-forward switch, as in
 * Table 1's raw Ethernet column: per endpoint a MAC and a PCS pass (3 + 3
 * cycles), PMA/PMD and propagation per hop, 400 ns of layer 2 forwarding,
 * and no transport stack. A read is an RREQ frame answered with the data;
 * a write is its data frames, answered with an ACK once whole (the ACK is
 * what lets a lossy fabric retransmit). A message's data goes in frames of
 * up to 1492 data bytes behind an 8-byte memory header; a frame costs its
 * wire time (header 14, FCS 4, preamble 8, gap 12, at least 64 B framed).
 *
 * Each host NIC is one FIFO (the head-of-line blocking PFC is known for);
 * each egress port is a FIFO too, whose backlog at any instant is its
 * remaining busy time. Receivers keep a bitmap of the frames they got, so a
 * retransmitted frame is never delivered twice. Memory nodes answer an RREQ
 * at once (Table 1 counts no memory access time for any fabric).
 */
#include <stdlib.h>

#include "ether.h"

enum { ETHER_NONE = ~0U, ETHER_PAYLOAD = EDMSIM_ETH_MTU - EDMSIM_ETH_MEMHDR };

static u32 wire_bytes(u32 payload)
{
	u32 frame = payload + EDMSIM_ETH_HDR;

	return (frame < EDMSIM_ETH_MIN_FRAME ? EDMSIM_ETH_MIN_FRAME : frame) + EDMSIM_ETH_GAP;
}

static inline u32 nframes(u32 size)
{
	return (size + ETHER_PAYLOAD - 1) / ETHER_PAYLOAD;
}

static inline u32 frame_bytes(u32 size, u32 k)
{
	u32 left = size - k * ETHER_PAYLOAD;

	return left < ETHER_PAYLOAD ? left : ETHER_PAYLOAD;
}

/* A message's frames from an idle host through an idle switch: last arrival. */
static u64 oneway(const struct edmsim *s, u64 t, u32 size, u32 rreq)
{
	u64 host = t, egress = 0, arrive = t, w, ready;
	u32 n = rreq ? 1 : nframes(size), k;

	for (k = 0; k < n; k++) {
		w = s->phy.byte_ps * (rreq ? wire_bytes(rreq) :
				      wire_bytes(frame_bytes(size, k) + EDMSIM_ETH_MEMHDR));
		ready = host + w + s->phy.eth_hop_ps + EDMSIM_ETH_L2_PS;
		if (ready > egress)
			egress = ready;
		egress += w;
		arrive = egress + s->phy.eth_hop_ps;
		host += w;
	}
	return arrive;
}

u64 ether_unloaded(const struct edmsim *s, const struct edmsim_msg *m)
{
	u64 t = m->arrive_ps;

	if (m->type == EDMSIM_READ)
		t = oneway(s, t, 0, m->rreq);
	return oneway(s, t, m->size, 0) - m->arrive_ps;
}

static u32 frame_new(struct ether *e, u32 mi, u32 kind, u32 src, u32 dst, u32 idx, u32 bytes,
		     u32 wire)
{
	struct ether_frame *fr;
	u32 i;

	if (e->free != ETHER_NONE) {
		i = e->free;
		e->free = e->fr[i].next;
	} else {
		if (e->nfr == e->cap) {
			e->cap = e->cap ? 2 * e->cap : 4096;
			e->fr = realloc(e->fr, e->cap * sizeof(*e->fr));
			if (!e->fr) {
				fprintf(stderr, "edmsim: out of memory for frames\n");
				exit(2);
			}
		}
		i = e->nfr++;
	}
	fr = &e->fr[i];
	fr->msg = mi;
	fr->kind = kind;
	fr->src = src;
	fr->dst = dst;
	fr->idx = idx;
	fr->bytes = bytes;
	fr->wire = wire;
	fr->next = ETHER_NONE;
	return i;
}

static void frame_free(struct ether *e, u32 i)
{
	e->fr[i].next = e->free;
	e->free = i;
}

/* A frame its message's initiator sends: the RREQ, or a write's data. */
static inline bool initiator_frame(const struct edmsim *s, const struct ether_frame *fr)
{
	return fr->kind != ETHER_ACK && fr->src == s->msg[fr->msg].src;
}

static void nic_start(struct edmsim *s, struct ether *e, u32 h)
{
	struct ether_nic *nic = &e->nic[h];
	u32 i = nic->head;
	const struct ether_frame *fr = &e->fr[i];
	u64 w = fr->wire * s->phy.byte_ps, rx = s->now + w + s->phy.eth_hop_ps;

	nic->head = fr->next;
	if (nic->head == ETHER_NONE)
		nic->tail = ETHER_NONE;
	if (initiator_frame(s, fr))
		e->txq[fr->msg]--;
	nic->busy = true;
	e->busy[h] += w;
	e->frames++;
	edmsim_push(s, s->now + w, ETHER_EV_NIC_DONE, h, 0, 0);
	if (e->pol->rx)
		edmsim_push(s, rx, ETHER_EV_SW_RX, i, 0, 0);
	else
		edmsim_push(s, rx + EDMSIM_ETH_L2_PS, ETHER_EV_SW_ENQ, i, 0, 0);
}

void ether_nic_kick(struct edmsim *s, struct ether *e, u32 h)
{
	struct ether_nic *nic = &e->nic[h];

	if (!nic->busy && !nic->paused && nic->head != ETHER_NONE)
		nic_start(s, e, h);
}

static void nic_queue(struct edmsim *s, struct ether *e, u32 i)
{
	struct ether_nic *nic = &e->nic[e->fr[i].src];

	if (initiator_frame(s, &e->fr[i]))
		e->txq[e->fr[i].msg]++;
	if (nic->tail == ETHER_NONE)
		nic->head = i;
	else
		e->fr[nic->tail].next = i;
	nic->tail = i;
	ether_nic_kick(s, e, e->fr[i].src);
}

static void send_data(struct edmsim *s, struct ether *e, u32 mi, u32 src, u32 dst)
{
	u32 size = s->msg[mi].size, n = nframes(size), k, bytes;

	for (k = 0; k < n; k++) {
		bytes = frame_bytes(size, k);
		nic_queue(s, e, frame_new(e, mi, ETHER_DATA, src, dst, k, bytes,
					  wire_bytes(bytes + EDMSIM_ETH_MEMHDR)));
	}
}

/* The message's first transmission, or a retransmission of all of it. */
void ether_send_msg(struct edmsim *s, struct ether *e, u32 mi)
{
	const struct edmsim_msg *m = &s->msg[mi];

	if (m->type == EDMSIM_READ)
		nic_queue(s, e, frame_new(e, mi, ETHER_RREQ, m->src, m->dst, 0, 0,
					  wire_bytes(m->rreq)));
	else
		send_data(s, e, mi, m->src, m->dst);
}

void ether_arrive(struct edmsim *s, u32 mi)
{
	struct ether *e = s->priv;

	if (e->pol->start)
		e->pol->start(s, e, mi);
	ether_send_msg(s, e, mi);
}

/* Bytes queued or on the wire at an egress port right now. */
u64 ether_egress_bytes(const struct edmsim *s, const struct ether *e, u32 port)
{
	u64 free_at = e->egress[port].free_at;

	return free_at > s->now ? (free_at - s->now) / s->phy.byte_ps : 0;
}

static void sw_enqueue(struct edmsim *s, struct ether *e, u32 i)
{
	const struct ether_frame *fr = &e->fr[i];
	u64 w = fr->wire * s->phy.byte_ps, start;

	if (e->pol->admit && !e->pol->admit(s, e, fr)) {
		frame_free(e, i);
		return;
	}
	start = edmsim_link_send(&e->egress[fr->dst], s->now, w);
	e->busy[s->cfg.nodes + fr->dst] += w;
	if (e->pol->needs_tx_end)
		edmsim_push(s, start + w, ETHER_EV_TX_END, i, 0, 0);
	edmsim_push(s, start + w + s->phy.eth_hop_ps, ETHER_EV_HOST_RX, i, 0, 0);
}

/* First time for this frame? Single-frame messages need no bitmap. */
static bool rx_new(struct ether *e, const struct edmsim_msg *m, const struct ether_frame *fr)
{
	u32 n = nframes(m->size);
	u64 *map;

	if (n == 1)
		return !m->done;
	if (!e->rxmap[fr->msg])
		e->rxmap[fr->msg] = edmsim_zalloc((n + 63) / 64, sizeof(u64));
	map = e->rxmap[fr->msg];
	if (map[fr->idx / 64] & (1ULL << (fr->idx % 64)))
		return false;
	map[fr->idx / 64] |= 1ULL << (fr->idx % 64);
	return true;
}

static void host_rx_data(struct edmsim *s, struct ether *e, const struct ether_frame *fr)
{
	const struct edmsim_msg *m = &s->msg[fr->msg];
	bool fresh = rx_new(e, m, fr);

	if (fresh)
		edmsim_deliver(s, fr->msg, fr->bytes);
	else
		e->dup_frames++;
	if (m->type != EDMSIM_WRITE || !m->done)
		return;
	/* Whole now: ACK it; again when a retransmission's last frame comes. */
	if (fresh || fr->idx == nframes(m->size) - 1)
		nic_queue(s, e, frame_new(e, fr->msg, ETHER_ACK, m->dst, m->src, 0, 0,
					  wire_bytes(EDMSIM_ETH_MEMHDR)));
}

static void host_rx(struct edmsim *s, struct ether *e, u32 i)
{
	struct ether_frame fr = e->fr[i];

	frame_free(e, i);
	switch (fr.kind) {
	case ETHER_RREQ:
		send_data(s, e, fr.msg, fr.dst, fr.src);
		break;
	case ETHER_DATA:
		host_rx_data(s, e, &fr);
		break;
	case ETHER_ACK:
		e->acked[fr.msg] = 1;
		break;
	}
}

void ether_event(struct edmsim *s, const struct edmsim_ev *ev)
{
	struct ether *e = s->priv;

	switch (ev->kind) {
	case ETHER_EV_NIC_DONE:
		e->nic[ev->a].busy = false;
		ether_nic_kick(s, e, ev->a);
		break;
	case ETHER_EV_SW_RX:
		e->pol->rx(s, e, &e->fr[ev->a]);
		edmsim_push(s, s->now + EDMSIM_ETH_L2_PS, ETHER_EV_SW_ENQ, ev->a, 0, 0);
		break;
	case ETHER_EV_SW_ENQ:
		sw_enqueue(s, e, ev->a);
		break;
	case ETHER_EV_TX_END:
		e->pol->tx_end(s, e, &e->fr[ev->a]);
		break;
	case ETHER_EV_HOST_RX:
		host_rx(s, e, ev->a);
		break;
	default:
		e->pol->event(s, e, ev);
		break;
	}
}

int ether_init(struct edmsim *s, struct ether *e, const struct ether_policy *pol)
{
	u32 n = s->cfg.nodes, i;

	memset(e, 0, sizeof(*e));
	e->pol = pol;
	e->free = ETHER_NONE;
	e->nic = edmsim_zalloc(n, sizeof(*e->nic));
	for (i = 0; i < n; i++) {
		e->nic[i].head = ETHER_NONE;
		e->nic[i].tail = ETHER_NONE;
	}
	e->egress = edmsim_zalloc(n, sizeof(*e->egress));
	e->busy = edmsim_zalloc(2 * n, sizeof(*e->busy));
	e->rxmap = edmsim_zalloc(s->nmsg, sizeof(*e->rxmap));
	e->acked = edmsim_zalloc(s->nmsg, sizeof(*e->acked));
	e->txq = edmsim_zalloc(s->nmsg, sizeof(*e->txq));
	s->priv = e;
	s->link_busy = e->busy;
	s->nlinks = 2 * n;
	return 0;
}

void ether_fini(struct edmsim *s, struct ether *e)
{
	u32 i;

	for (i = 0; i < s->nmsg; i++)
		free(e->rxmap[i]);
	free(e->rxmap);
	free(e->acked);
	free(e->txq);
	free(e->fr);
	free(e->nic);
	free(e->egress);
	free(e->busy);
}
