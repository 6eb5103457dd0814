// SPDX-License-Identifier: GPL-2.0
/*
 * EDM: hosts and a switch whose scheduler is edm.ko's own PIM core
 * (fabric/sched.c, linked unchanged), with every stage's delay taken
 * from the kernel's timing model (fabric/timing.c, Table 1).
 *
 * A read:  requester --RREQ--> switch (queued as the RRES's notification)
 *          --RREQ as the first grant--> memory node --RRES chunk--> switch
 *          --forwarded on the circuit--> requester.
 * A write: writer --/N/--> switch --/G/--> writer --WREQ chunk--> switch
 *          --forwarded--> memory node.
 * Later chunks of a message each get a /G/. Every stage costs its cycles from
 * sections 3.2.1 and 3.2.2, each link crossing one hop (PCS, PMA/PMD,
 * propagation, PMA/PMD, PCS), so a message alone pays exactly what
 * edm_timing_model() says with serialization on; the tests hold that.
 *
 * Links carry 8-byte blocks (blink.c): control blocks (/N/, /G/, RREQ) share
 * them with data and cut into a chunk at block granularity. The scheduler's
 * circuits count data only, so the blocks a chunk yields, like the extra
 * cycle and RREQ blocks a read's first chunk spends at the memory node, make
 * it late at its egress, where the next circuit's data waits for it; the run
 * reports those waits (down_data_wait_ns).
 *
 * The scheduler is stepped at every notification and at every link release
 * it reports (edm_sched_next_release()), in continuous time: matching
 * throughput is not limited. A grant leaves the switch one PIM iteration and
 * one grant cycle after its step, as in Table 1; -I charges every iteration
 * of the step instead. Hosts keep at most X messages per peer and direction
 * in the scheduler. A notification the core still refuses, because the other
 * host filled the pair (a pair's ring holds both the writer's WREQs and the
 * reader's RRESes), waits at the switch until the pair drains, counted as
 * parked.
 */
#include <stdlib.h>

#include "edmsim.h"
#include "blink.h"

enum edm_ev {
	EDM_EV_REQ_TX,		/* a host, b msg, c slot: /N/ or RREQ ready to send */
	EDM_EV_NOTIFY,		/* a host, b msg, c slot: at the scheduler's queue */
	EDM_EV_STEP,
	EDM_EV_GRANT_TX,	/* a data source, b msg, c chunk: grant leaves the switch */
	EDM_EV_DATA_TX,		/* a data source, b msg, c chunk: chunk ready at the host */
	EDM_EV_FORWARD,		/* a data destination, b msg, c chunk: at the egress */
	EDM_EV_DELIVER,		/* b msg, c chunk: last block handed to memory */
	EDM_EV_LINK_END,	/* a link: its transmission is over */
};

/* What a link does when a transmission of each kind starts on it. */
enum edm_tx {
	EDM_TX_REQ,		/* /N/ or RREQ, host -> switch */
	EDM_TX_GRANT,		/* /G/ or forwarded RREQ, switch -> data source */
	EDM_TX_DATA,		/* chunk, data source -> switch */
	EDM_TX_FORWARD,		/* chunk, switch -> data destination */
};

enum {
	EDM_NONE	= ~0U,
	EDM_CHUNK_BITS	= 16,		/* c = bytes | flags << 16 | kind << 24 */
};

struct edm_pairq {
	u32 head;		/* messages waiting for a slot, FIFO */
	u32 tail;
	u32 count;		/* slots in use: messages the scheduler holds */
};

struct edm_parked {
	u32 pair;		/* src * nodes + dst in the scheduler's terms */
	struct edm_sched_notif n;
};

struct edm_fab {
	struct edm_sched *sched;
	struct edm_sched_grant *grants;
	struct edmsim_blinks links;	/* [host] host -> switch, [nodes + host] back */
	struct edm_pairq *pq;		/* [host][peer][class] */
	u32 *slot;			/* [host][peer][class][x]: message index */
	u64 *src_end;			/* end of the last grant's window, per port */
	u64 *dst_end;
	struct edm_parked *parked;
	u32 nparked;
	u32 parked_cap;
	u64 step_at;			/* the pending step, ~0 if none */
	u64 epoch_ps;			/* steps only at its multiples, 0: any time */
	u64 parked_total;
	u64 sched_wait_ps;		/* notification to first grant */
	u64 *notified;			/* [msg] when its notification was queued */
};

static inline u32 chunk_pack(const struct edm_sched_grant *g)
{
	return g->bytes | (u32)g->flags << EDM_CHUNK_BITS | (u32)g->kind << 24;
}

static inline u32 chunk_bytes(u32 c)
{
	return c & ((1U << EDM_CHUNK_BITS) - 1);
}

static inline u32 chunk_flags(u32 c)
{
	return (c >> EDM_CHUNK_BITS) & 0xff;
}

static inline u32 chunk_kind(u32 c)
{
	return c >> 24;
}

static inline u32 msg_class(const struct edmsim_msg *m)
{
	return m->type == EDMSIM_READ ? EDMSIM_C_READ : EDMSIM_C_WRITE;
}

static inline u32 pq_idx(const struct edmsim *s, u32 host, u32 peer, u32 cls)
{
	return (host * s->cfg.nodes + peer) * EDMSIM_NR_CLASSES + cls;
}

static inline u64 cyc(const struct edmsim *s, u32 n)
{
	return (u64)n * s->phy.cyc_ps;
}

/* Control blocks preempt data unless --ctrl-fifo queues them behind it. */
static inline u32 ctrl_prio(const struct edmsim *s)
{
	return s->cfg.ctrl_fifo ? EDMSIM_PRIO_DATA : EDMSIM_PRIO_CTRL;
}

/* Alone in the fabric; see the file comment and timing.c for the sums. */
static u64 edm_unloaded(const struct edmsim *s, const struct edmsim_msg *m)
{
	u32 blocks = 0, left = m->size, len;
	u64 t;

	for (; left; left -= len) {
		len = left < s->cfg.chunk ? left : s->cfg.chunk;
		blocks += edmsim_blocks(len);
	}
	t = 4 * s->phy.hop_ps + (blocks - 1) * s->phy.blk_ps;
	t += cyc(s, EDM_TIMING_CYC_HOST_TX_REQ + EDM_TIMING_CYC_SW_IDENTIFY +
		 EDM_TIMING_CYC_SW_ENQUEUE + EDM_TIMING_CYC_SW_PIM_ITER + EDM_TIMING_CYC_SW_GRANT +
		 EDM_TIMING_CYC_HOST_GRANT_Q + EDM_TIMING_CYC_HOST_TX_DATA +
		 EDM_TIMING_CYC_SW_FORWARD + EDM_TIMING_CYC_HOST_RX_DATA);
	if (m->type == EDMSIM_READ)
		return t + cyc(s, EDM_TIMING_CYC_HOST_RX_REQ) +
		       (edmsim_blocks(m->rreq) - 1) * s->phy.blk_ps;
	return t + cyc(s, EDM_TIMING_CYC_HOST_RX_GRANT);
}

static void request_step(struct edmsim *s, struct edm_fab *f, u64 t)
{
	if (f->epoch_ps)
		t = (t + f->epoch_ps - 1) / f->epoch_ps * f->epoch_ps;
	if (t >= f->step_at)
		return;
	f->step_at = t;
	edmsim_push(s, t, EDM_EV_STEP, 0, 0, 0);
}

/* Move waiting messages of (host, peer, cls) into free slots. */
static void pair_send(struct edmsim *s, struct edm_fab *f, u32 host, u32 peer, u32 cls)
{
	struct edm_pairq *q = &f->pq[pq_idx(s, host, peer, cls)];
	u32 *slot = &f->slot[pq_idx(s, host, peer, cls) * s->cfg.x];
	u32 mi, id;

	while (q->head != EDM_NONE && q->count < s->cfg.x) {
		mi = q->head;
		q->head = s->msg[mi].next;
		if (q->head == EDM_NONE)
			q->tail = EDM_NONE;
		for (id = 0; slot[id] != EDM_NONE; id++)
			;
		slot[id] = mi;
		q->count++;
		edmsim_push(s, s->now + cyc(s, EDM_TIMING_CYC_HOST_TX_REQ), EDM_EV_REQ_TX, host,
			    mi, id);
	}
}

static void slot_release(struct edmsim *s, struct edm_fab *f, u32 host, u32 peer, u32 cls,
			 u32 id)
{
	u32 i = pq_idx(s, host, peer, cls);

	f->slot[i * s->cfg.x + id] = EDM_NONE;
	f->pq[i].count--;
	pair_send(s, f, host, peer, cls);
}

static void edm_arrive(struct edmsim *s, u32 mi)
{
	struct edm_fab *f = s->priv;
	struct edmsim_msg *m = &s->msg[mi];
	struct edm_pairq *q = &f->pq[pq_idx(s, m->src, m->dst, msg_class(m))];

	m->next = EDM_NONE;
	if (q->tail == EDM_NONE)
		q->head = mi;
	else
		s->msg[q->tail].next = mi;
	q->tail = mi;
	pair_send(s, f, m->src, m->dst, msg_class(m));
}

static void req_tx(struct edmsim *s, struct edm_fab *f, const struct edmsim_ev *ev)
{
	const struct edmsim_msg *m = &s->msg[ev->b];
	u32 blocks = m->type == EDMSIM_READ ? edmsim_blocks(m->rreq) : 1;

	edmsim_blink_send(s, &f->links, ev->a, ctrl_prio(s), blocks, EDM_TX_REQ, ev->a, ev->b,
			  ev->c);
}

static void park(struct edm_fab *f, u32 pair, const struct edm_sched_notif *n)
{
	if (f->nparked == f->parked_cap) {
		f->parked_cap = f->parked_cap ? 2 * f->parked_cap : 64;
		f->parked = realloc(f->parked, f->parked_cap * sizeof(*f->parked));
		if (!f->parked) {
			fprintf(stderr, "edmsim: out of memory for parked notifications\n");
			exit(2);
		}
	}
	f->parked[f->nparked].pair = pair;
	f->parked[f->nparked++].n = *n;
	f->parked_total++;
}

static void notify(struct edmsim *s, struct edm_fab *f, const struct edmsim_ev *ev)
{
	const struct edmsim_msg *m = &s->msg[ev->b];
	struct edm_sched_notif n = {
		.port = m->src, .peer = m->dst, .msg_id = ev->c, .bytes = m->size,
		.kind = m->type == EDMSIM_READ ? EDM_SCHED_READ : EDM_SCHED_WRITE,
	};
	u32 pair = m->type == EDMSIM_READ ? m->dst * s->cfg.nodes + m->src :
					    m->src * s->cfg.nodes + m->dst;
	int err = edm_sched_notify(f->sched, &n);

	f->notified[ev->b] = s->now;
	if (err == -ENOSPC) {
		park(f, pair, &n);
		return;
	}
	if (err) {
		fprintf(stderr, "edmsim: scheduler refused flow %u: %d\n", m->flow_id, err);
		exit(2);
	}
	request_step(s, f, s->now);
}

/* The pair (src, dst) lost a message: its parked notifications go in order. */
static void unpark(struct edm_fab *f, u32 pair)
{
	u32 i, j = 0;
	bool full = false;

	for (i = 0; i < f->nparked; i++) {
		if (!full && f->parked[i].pair == pair) {
			if (!edm_sched_notify(f->sched, &f->parked[i].n))
				continue;
			full = true;
		}
		f->parked[j++] = f->parked[i];
	}
	f->nparked = j;
}

static u32 grant_msg(const struct edmsim *s, const struct edm_fab *f,
		     const struct edm_sched_grant *g)
{
	bool read = g->kind != EDM_SCHED_WRITE;
	u32 host = read ? g->dst : g->src, peer = read ? g->src : g->dst;

	return f->slot[pq_idx(s, host, peer, read ? EDMSIM_C_READ : EDMSIM_C_WRITE) *
		       s->cfg.x + g->msg_id];
}

/* At most one sender per destination (and one destination per source). */
static void grant_check(struct edmsim *s, struct edm_fab *f, const struct edm_sched_grant *g)
{
	u64 end = s->now + (u64)g->bytes * s->phy.byte_ps;

	if (s->now < f->dst_end[g->dst] || s->now < f->src_end[g->src])
		s->check.multi_sender++;
	f->dst_end[g->dst] = end;
	f->src_end[g->src] = end;
}

static void step(struct edmsim *s, struct edm_fab *f)
{
	u64 iters = f->sched->stats.iterations, issue, next;
	const struct edm_sched_grant *g;
	int n, i;

	n = edm_sched_step(f->sched, s->now, f->grants, s->cfg.nodes);
	iters = f->sched->stats.iterations - iters;
	if (!s->cfg.charge_iters || !iters)
		iters = 1;
	issue = s->now + cyc(s, iters * EDM_TIMING_CYC_SW_PIM_ITER + EDM_TIMING_CYC_SW_GRANT);
	for (i = 0; i < n; i++) {
		g = &f->grants[i];
		grant_check(s, f, g);
		if (g->flags & EDM_SCHED_GRANT_FIRST)
			f->sched_wait_ps += s->now - f->notified[grant_msg(s, f, g)];
		edmsim_push(s, issue, EDM_EV_GRANT_TX, g->src, grant_msg(s, f, g), chunk_pack(g));
		if (g->flags & EDM_SCHED_GRANT_LAST && f->nparked)
			unpark(f, g->src * s->cfg.nodes + g->dst);
	}
	if (!f->sched->stats.depth)
		return;
	next = edm_sched_next_release(f->sched);
	if (next != ~0ULL)
		request_step(s, f, next > s->now ? next : s->now + 1);
}

static inline bool is_rreq(u32 c)
{
	return chunk_kind(c) != EDM_SCHED_WRITE && chunk_flags(c) & EDM_SCHED_GRANT_FIRST;
}

/* The /G/, or the RREQ that stands for the response's first grant. */
static void grant_tx(struct edmsim *s, struct edm_fab *f, const struct edmsim_ev *ev)
{
	u32 blocks = is_rreq(ev->c) ? edmsim_blocks(s->msg[ev->b].rreq) : 1;

	edmsim_blink_send(s, &f->links, s->cfg.nodes + ev->a, ctrl_prio(s), blocks,
			  EDM_TX_GRANT, ev->a, ev->b, ev->c);
}

static u32 slot_of(const struct edmsim *s, const struct edm_fab *f, u32 mi)
{
	const struct edmsim_msg *m = &s->msg[mi];
	const u32 *slot = &f->slot[pq_idx(s, m->src, m->dst, msg_class(m)) * s->cfg.x];
	u32 id;

	for (id = 0; slot[id] != mi; id++)
		;
	return id;
}

/* A chunk is ready at its source: the grant has been through the host. */
static void data_tx(struct edmsim *s, struct edm_fab *f, const struct edmsim_ev *ev)
{
	const struct edmsim_msg *m = &s->msg[ev->b];

	edmsim_blink_send(s, &f->links, ev->a, EDMSIM_PRIO_DATA, edmsim_blocks(chunk_bytes(ev->c)),
			  EDM_TX_DATA, ev->a, ev->b, ev->c);
	/* The writer's last /G/: the scheduler dropped the message already. */
	if (m->type == EDMSIM_WRITE && chunk_flags(ev->c) & EDM_SCHED_GRANT_LAST)
		slot_release(s, f, m->src, m->dst, EDMSIM_C_WRITE, slot_of(s, f, ev->b));
}

/* A chunk's first block reached its egress. */
static void forward(struct edmsim *s, struct edm_fab *f, const struct edmsim_ev *ev)
{
	edmsim_blink_send(s, &f->links, s->cfg.nodes + ev->a, EDMSIM_PRIO_DATA,
			  edmsim_blocks(chunk_bytes(ev->c)), EDM_TX_FORWARD, ev->a, ev->b, ev->c);
}

/* A transmission starts on a link: what it leads to, from this instant. */
static void edm_tx_start(struct edmsim *s, u32 link, const struct edmsim_tx *tx)
{
	const struct edmsim_msg *m = &s->msg[tx->b];
	u64 tail = (tx->blocks - 1) * s->phy.blk_ps, t = s->now + s->phy.hop_ps;

	switch (tx->kind) {
	case EDM_TX_REQ:
		/* The first block carries destination and size: queue it on arrival. */
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_IDENTIFY + EDM_TIMING_CYC_SW_ENQUEUE),
			    EDM_EV_NOTIFY, tx->a, tx->b, tx->c);
		break;
	case EDM_TX_GRANT:
		if (is_rreq(tx->c))
			edmsim_req_done(s, tx->b, t + tail);
		t += tail + cyc(s, EDM_TIMING_CYC_HOST_GRANT_Q + EDM_TIMING_CYC_HOST_TX_DATA);
		t += cyc(s, is_rreq(tx->c) ? EDM_TIMING_CYC_HOST_RX_REQ :
					     EDM_TIMING_CYC_HOST_RX_GRANT);
		edmsim_push(s, t, EDM_EV_DATA_TX, tx->a, tx->b, tx->c);
		break;
	case EDM_TX_DATA:
		edmsim_started(s, tx->b);
		edmsim_push(s, t + cyc(s, EDM_TIMING_CYC_SW_FORWARD), EDM_EV_FORWARD,
			    m->type == EDMSIM_READ ? m->src : m->dst, tx->b, tx->c);
		break;
	case EDM_TX_FORWARD:
		edmsim_push(s, t + tail + cyc(s, EDM_TIMING_CYC_HOST_RX_DATA), EDM_EV_DELIVER,
			    tx->a, tx->b, tx->c);
		break;
	}
}

static void deliver(struct edmsim *s, struct edm_fab *f, const struct edmsim_ev *ev)
{
	const struct edmsim_msg *m = &s->msg[ev->b];

	edmsim_deliver(s, ev->b, chunk_bytes(ev->c));
	if (m->done && m->type == EDMSIM_READ)
		slot_release(s, f, m->src, m->dst, EDMSIM_C_READ, slot_of(s, f, ev->b));
}

static void edm_event(struct edmsim *s, const struct edmsim_ev *ev)
{
	struct edm_fab *f = s->priv;

	switch (ev->kind) {
	case EDM_EV_REQ_TX:
		req_tx(s, f, ev);
		break;
	case EDM_EV_NOTIFY:
		notify(s, f, ev);
		break;
	case EDM_EV_STEP:
		if (ev->t != f->step_at)
			break;		/* superseded by an earlier step */
		f->step_at = ~0ULL;
		step(s, f);
		break;
	case EDM_EV_GRANT_TX:
		grant_tx(s, f, ev);
		break;
	case EDM_EV_DATA_TX:
		data_tx(s, f, ev);
		break;
	case EDM_EV_FORWARD:
		forward(s, f, ev);
		break;
	case EDM_EV_DELIVER:
		deliver(s, f, ev);
		break;
	case EDM_EV_LINK_END:
		edmsim_blink_end(s, &f->links, ev);
		break;
	}
}

static int edm_init_policy(struct edmsim *s, u32 policy)
{
	struct edm_sched_cfg cfg = {
		.nports = s->cfg.nodes, .x = s->cfg.x, .chunk = s->cfg.chunk,
		.rate_mbps = s->cfg.rate_mbps, .policy = policy,
	};
	size_t pairs = (size_t)s->cfg.nodes * s->cfg.nodes * EDMSIM_NR_CLASSES, i;
	struct edm_fab *f;
	int err;

	err = edm_sched_cfg_check(&cfg);
	if (err) {
		fprintf(stderr, "edmsim: EDM needs 2..%d nodes, x 1..%d, chunk 1..%d\n",
			EDM_SCHED_MAX_PORTS, EDM_SCHED_MAX_X, EDM_SCHED_MAX_CHUNK);
		return err;
	}
	f = edmsim_zalloc(1, sizeof(*f));
	f->sched = aligned_alloc(8, (edm_sched_size(cfg.nports, cfg.x) + 7) & ~(size_t)7);
	if (!f->sched || edm_sched_init(f->sched, &cfg)) {
		free(f->sched);
		free(f);
		return -ENOMEM;
	}
	f->grants = edmsim_zalloc(cfg.nports, sizeof(*f->grants));
	edmsim_blinks_init(&f->links, 2 * cfg.nports, cfg.nports, EDM_EV_LINK_END, edm_tx_start);
	f->src_end = edmsim_zalloc(cfg.nports, sizeof(*f->src_end));
	f->dst_end = edmsim_zalloc(cfg.nports, sizeof(*f->dst_end));
	f->pq = edmsim_zalloc(pairs, sizeof(*f->pq));
	f->slot = edmsim_zalloc(pairs * cfg.x, sizeof(*f->slot));
	for (i = 0; i < pairs; i++) {
		f->pq[i].head = EDM_NONE;
		f->pq[i].tail = EDM_NONE;
	}
	for (i = 0; i < pairs * cfg.x; i++)
		f->slot[i] = EDM_NONE;
	f->step_at = ~0ULL;
	f->epoch_ps = s->cfg.sched_epoch_ps ? s->cfg.sched_epoch_ps :
		      s->cfg.sched_slots ? s->phy.blk_ps : 0;
	f->notified = edmsim_zalloc(s->nmsg, sizeof(*f->notified));
	s->priv = f;
	s->link_busy = f->links.busy;
	s->nlinks = 2 * cfg.nports;
	return 0;
}

static int edm_init(struct edmsim *s)
{
	return edm_init_policy(s, s->cfg.policy);
}

static int edm_init_fcfs(struct edmsim *s)
{
	return edm_init_policy(s, EDM_SCHED_FCFS);
}

static void edm_fini(struct edmsim *s)
{
	struct edm_fab *f = s->priv;

	free(f->sched);
	free(f->grants);
	edmsim_blinks_free(&f->links);
	free(f->src_end);
	free(f->dst_end);
	free(f->pq);
	free(f->slot);
	free(f->parked);
	free(f->notified);
	free(f);
	s->priv = NULL;
}

static void edm_report(const struct edmsim *s, FILE *out)
{
	const struct edm_fab *f = s->priv;
	const struct edm_sched_stats *st = &f->sched->stats;

	fprintf(out, " matchings=%llu iters_mean=%.2f iters_max=%u depth_max=%u parked=%llu"
		" sched_wait_ns=%.3f", (unsigned long long)st->matchings,
		st->matchings ? (double)st->iterations / st->matchings : 0, st->iterations_max,
		st->depth_max, (unsigned long long)f->parked_total,
		f->sched_wait_ps / 1e3 / (s->nmsg ? s->nmsg : 1));
	edmsim_blinks_report(&f->links, s->nmsg, out);
}

const struct edmsim_fabric edmsim_fab_edm = {
	.name = "edm",
	.stands_for = "EDM, the module's PIM scheduler (SRPT unless -p fcfs)",
	.init = edm_init,
	.fini = edm_fini,
	.arrive = edm_arrive,
	.event = edm_event,
	.unloaded = edm_unloaded,
	.marks = true,
	.report = edm_report,
};

const struct edmsim_fabric edmsim_fab_edm_fcfs = {
	.name = "edm-fcfs",
	.stands_for = "EDM with the FCFS policy",
	.init = edm_init_fcfs,
	.fini = edm_fini,
	.arrive = edm_arrive,
	.event = edm_event,
	.unloaded = edm_unloaded,
	.marks = true,
	.report = edm_report,
};
