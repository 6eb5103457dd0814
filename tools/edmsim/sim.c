// SPDX-License-Identifier: GPL-2.0
/*
 * One simulation run: the event loop and what every fabric model shares.
 *
 * The loop merges two ordered streams, the trace's arrivals (sorted once)
 * and the event heap, so arrivals never sit in the heap. A fabric model sees
 * two calls, arrive() and event(), and reports finished bytes through
 * edmsim_deliver(), which is where the run checks that no byte is delivered
 * twice and that no message beats its own unloaded latency. A run that still
 * has open messages at its horizon stops and counts them as incomplete; with
 * --stop-at-last-start it stops, as the EDM authors' simulator does, when
 * the models that mark starts (edmsim_started()) have started every message.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edmsim.h"

extern const struct edmsim_fabric edmsim_fab_edm, edmsim_fab_edm_fcfs, edmsim_fab_eth,
	edmsim_fab_pfc, edmsim_fab_cxl, edmsim_fab_fastpass, edmsim_fab_ird;

const struct edmsim_fabric *const edmsim_fabrics[] = {
	&edmsim_fab_edm, &edmsim_fab_edm_fcfs, &edmsim_fab_eth, &edmsim_fab_pfc,
	&edmsim_fab_cxl, &edmsim_fab_fastpass, &edmsim_fab_ird,
};

const u32 edmsim_nr_fabrics = ARRAY_SIZE(edmsim_fabrics);

enum {
	PROGRESS_EVERY	= 1 << 16,	/* events between clock reads */
	PROGRESS_AFTER	= 3,		/* seconds before the first progress line */
};

static const u64 fnv_offset = 0xcbf29ce484222325ULL;	/* 64-bit FNV-1a */
static const u64 fnv_prime = 0x100000001b3ULL;

void edmsim_cfg_default(struct edmsim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nodes = EDMSIM_NODES;
	cfg->rate_mbps = EDMSIM_RATE_MBPS;
	cfg->chunk = EDM_SCHED_DEFAULT_CHUNK;
	cfg->x = EDM_SCHED_DEFAULT_X;
	cfg->policy = EDM_SCHED_SRPT;
	cfg->horizon_ps = (u64)EDMSIM_HORIZON_US * 1000000;
	cfg->eth_buf = EDMSIM_ETH_BUF;
	cfg->eth_rto_ps = (u64)EDMSIM_ETH_RTO_NS * 1000;
	cfg->pfc_xoff = EDMSIM_PFC_XOFF;
	cfg->pfc_xon = EDMSIM_PFC_XON;
	cfg->cxl_credits = EDMSIM_CXL_CREDITS;
	cfg->cxl_switch_ps = (u64)EDMSIM_CXL_SWITCH_NS * 1000;
}

/* Delays come from the kernel's timing model, so both agree on Table 1. */
int edmsim_phy_init(struct edmsim_phy *phy, u32 rate_mbps)
{
	int err;

	if (!rate_mbps || EDM_SCHED_PS_PER_MBYTE % rate_mbps)
		return -EINVAL;
	err = edm_timing_params_init(&phy->tp, rate_mbps);
	if (err)
		return err;
	phy->tp.serialize = true;
	phy->blk_ps = phy->tp.block_ps;
	phy->cyc_ps = phy->tp.cycle_ps;
	phy->byte_ps = EDM_SCHED_PS_PER_MBYTE / rate_mbps;
	phy->hop_ps = 2 * (EDM_TIMING_CYC_PCS * phy->cyc_ps + phy->tp.pma_ps) + phy->tp.prop_ps;
	phy->eth_side_ps = (EDMSIM_ETH_MAC_CYC + EDMSIM_ETH_PCS_CYC) * phy->cyc_ps;
	phy->eth_hop_ps = 2 * (phy->eth_side_ps + phy->tp.pma_ps) + phy->tp.prop_ps;
	return 0;
}

int edmsim_fabric_find(const char *name)
{
	u32 i;

	for (i = 0; i < edmsim_nr_fabrics; i++)
		if (!strcmp(name, edmsim_fabrics[i]->name))
			return i;
	return -ENOENT;
}

void *edmsim_zalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "edmsim: out of memory (%zu x %zu bytes)\n", n, size);
		exit(2);
	}
	return p;
}

u32 edmsim_blocks(u32 bytes)
{
	return (bytes + EDM_TIMING_BLOCK_BYTES - 1) / EDM_TIMING_BLOCK_BYTES;
}

/* Send dur_ps worth of blocks at now or when the link frees; returns the start. */
u64 edmsim_link_send(struct edmsim_link *l, u64 now, u64 dur_ps)
{
	u64 start = now > l->free_at ? now : l->free_at;

	l->free_at = start + dur_ps;
	return start;
}

void edmsim_push(struct edmsim *s, u64 t, u32 kind, u32 a, u32 b, u32 c)
{
	struct edmsim_ev ev = { .t = t, .kind = kind, .a = a, .b = b, .c = c };

	edmsim_heap_push(&s->heap, &ev);
}

static void digest_add(u64 *h, u64 v)
{
	u32 i;

	for (i = 0; i < 8; i++) {
		*h ^= (v >> (8 * i)) & 0xff;
		*h *= fnv_prime;
	}
}

/* bytes of message mi reached its destination at s->now. */
void edmsim_deliver(struct edmsim *s, u32 mi, u32 bytes)
{
	struct edmsim_msg *m = &s->msg[mi];

	if (m->done) {
		s->check.dup_bytes += bytes;
		return;
	}
	if (m->delivered + (u64)bytes > m->size) {
		s->check.dup_bytes += m->delivered + (u64)bytes - m->size;
		bytes = m->size - m->delivered;
	}
	m->delivered += bytes;
	if (m->delivered < m->size)
		return;
	m->done = 1;
	m->done_ps = s->now;
	s->ndone++;
	if (s->now - m->arrive_ps < m->unloaded_ps)
		s->check.below_unloaded++;
	digest_add(&s->digest, mi);
	digest_add(&s->digest, m->done_ps);
}

/* Read mi's request is whole at its memory node at t (the authors' RREQ flow ends). */
void edmsim_req_done(struct edmsim *s, u32 mi, u64 t)
{
	if (!s->msg[mi].req_done_ps)
		s->msg[mi].req_done_ps = t;
}

/* Message mi's data begins to leave its source (the authors' "flow started"). */
void edmsim_started(struct edmsim *s, u32 mi)
{
	if (s->msg[mi].started)
		return;
	s->msg[mi].started = 1;
	s->nstarted++;
}

/*
 * The authors' simulator moves blocks hop by hop with propagation only; it
 * has no PCS, PMA/PMD or switch pipeline. --bare-phy takes those out of
 * every stage (the cycle cost becomes 0 and a hop is its propagation).
 */
static void phy_bare(struct edmsim_phy *phy)
{
	phy->cyc_ps = 0;
	phy->hop_ps = phy->tp.prop_ps;
	phy->eth_side_ps = 0;
	phy->eth_hop_ps = phy->tp.prop_ps;
}

static const struct edmsim_msg *sort_base;

static int by_arrival(const void *a, const void *b)
{
	u32 i = *(const u32 *)a, j = *(const u32 *)b;
	u64 ti = sort_base[i].arrive_ps, tj = sort_base[j].arrive_ps;

	if (ti != tj)
		return ti < tj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run_setup(struct edmsim *s, const struct edmsim_cfg *cfg, struct edmsim_trace *t)
{
	u32 i;
	int err;

	s->cfg = *cfg;
	if (t->nodes > cfg->nodes)
		s->cfg.nodes = t->nodes;
	err = edmsim_phy_init(&s->phy, cfg->rate_mbps);
	if (err)
		return err;
	if (cfg->bare_phy)
		phy_bare(&s->phy);
	s->fab = edmsim_fabrics[cfg->fabric];
	if (cfg->stop_at_start && !s->fab->marks) {
		fprintf(stderr, "edmsim: %s: --stop-at-last-start works with edm, edm-fcfs, ird\n",
			s->fab->name);
		return -EOPNOTSUPP;
	}
	s->msg = t->msg;
	s->nmsg = t->n;
	s->order = edmsim_zalloc(t->n, sizeof(*s->order));
	for (i = 0; i < t->n; i++) {
		s->order[i] = i;
		s->msg[i].delivered = 0;
		s->msg[i].done = 0;
		s->msg[i].done_ps = 0;
		s->msg[i].req_done_ps = 0;
		s->msg[i].started = 0;
		s->msg[i].next = 0;
	}
	sort_base = s->msg;
	qsort(s->order, t->n, sizeof(*s->order), by_arrival);
	s->digest = fnv_offset;
	err = edmsim_heap_init(&s->heap);
	if (err)
		return err;
	err = s->fab->init(s);
	if (err)
		return err;
	for (i = 0; i < t->n; i++)
		s->msg[i].unloaded_ps = s->fab->unloaded(s, &s->msg[i]);
	s->end_ps = (t->n ? s->msg[s->order[t->n - 1]].arrive_ps : 0) + s->cfg.horizon_ps;
	return 0;
}

static void progress(struct edmsim *s, double t0, double *last, bool final)
{
	double now = wall_now();

	if (!s->cfg.progress || now - t0 < PROGRESS_AFTER)
		return;
	if (!final && now - *last < 1)
		return;
	*last = now;
	fprintf(stderr, "\r%s: %u/%u messages done, %.1f us simulated, %.1f Mevents/s%s",
		s->label ? s->label : s->fab->name, s->ndone, s->nmsg, s->now / 1e6,
		s->events / (now - t0) / 1e6, final ? "\n" : "");
	fflush(stderr);
}

/* Whichever comes first: the next arrival or the heap's top. */
static bool run_one(struct edmsim *s)
{
	struct edmsim_ev ev;
	u64 ta = ~0ULL;
	u32 mi = 0;

	if (s->next_arrival < s->nmsg) {
		mi = s->order[s->next_arrival];
		ta = s->msg[mi].arrive_ps;
	}
	if (ta == ~0ULL && !s->heap.n)
		return false;
	if (ta != ~0ULL && (!s->heap.n || ta <= s->heap.ev[0].t)) {
		s->now = ta;
		s->next_arrival++;
		s->fab->arrive(s, mi);
	} else {
		edmsim_heap_pop(&s->heap, &ev);
		s->now = ev.t;
		s->fab->event(s, &ev);
	}
	s->events++;
	return true;
}

int edmsim_run(const struct edmsim_cfg *cfg, struct edmsim_trace *t, const char *label,
	       FILE *out, struct edmsim_result *r)
{
	double t0 = wall_now(), last = t0;
	struct edmsim s;
	int err;

	memset(&s, 0, sizeof(s));
	s.label = label;
	err = run_setup(&s, cfg, t);
	if (err)
		goto out;
	while (s.ndone < s.nmsg && run_one(&s)) {
		if (s.cfg.stop_at_start && s.nstarted == s.nmsg) {
			s.stop_ps = s.now;
			break;
		}
		if (s.events % PROGRESS_EVERY)
			continue;
		progress(&s, t0, &last, false);
		if (s.now > s.end_ps)
			break;
	}
	progress(&s, t0, &last, true);
	s.check.incomplete = s.nmsg - s.ndone;
	edmsim_result_compute(&s, r);
	r->wall_s = wall_now() - t0;
	if (out)
		edmsim_result_print(&s, r, out);
	if (s.cfg.dump)
		err = edmsim_result_dump(&s, s.cfg.dump);
	s.fab->fini(&s);
out:
	edmsim_heap_free(&s.heap);
	free(s.order);
	return err;
}
