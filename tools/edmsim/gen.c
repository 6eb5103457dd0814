// SPDX-License-Identifier: GPL-2.0
/*
 * Workload generators: Poisson arrivals from a seeded generator, written as
 * a trace so that a generated run and a run of the written trace are the
 * same run (arrivals are rounded to whole timeslots in both).
 *
 * Offered load: each message counts its data bytes plus its request (the
 * RREQ's bytes for a read, one 8-byte block for a write: the /N/ of EDM, the
 * header of the others). With N nodes, link rate B and that mean M, the
 * arrival rate is load * N * B / M. For 64 B messages, load 0.9 puts 0.8 of
 * each link's capacity in data; the fabric's own overheads come on top, so
 * an Ethernet frame of 64 B needs 110 bytes of wire time and Ethernet
 * saturates long before 0.9 (the paper's section 2 argument).
 * With data_load set, the load counts data bytes only, as the EDM authors'
 * generator does (their label "0.9" is 0.90 of each link in data).
 *
 * all2all: source uniform, destination uniform among the others.
 * incast:  a share of the load in bursts, each of fanin messages (of
 *          burst_size bytes if set) at the same timeslot converging on one
 *          victim's downlink (writes to it, or reads by it from fanin memory
 *          nodes); the rest all2all.
 */
#include <math.h>
#include <stdlib.h>

#include "edmsim.h"

/* splitmix64: small, fast, and good enough for arrivals and choices. */
u64 edmsim_rng_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
double edmsim_rng_unit(u64 *state)
{
	return (edmsim_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

static u32 rng_below(u64 *state, u32 n)
{
	return (u32)(edmsim_rng_unit(state) * n);
}

static double rng_exp(u64 *state, double rate)
{
	return -log(1.0 - edmsim_rng_unit(state)) / rate;
}

void edmsim_gen_default(struct edmsim_gen *g)
{
	memset(g, 0, sizeof(*g));
	g->workload = EDMSIM_WL_ALL2ALL;
	g->nodes = EDMSIM_NODES;
	g->msgs = EDMSIM_MSGS;
	g->size = EDMSIM_MSG_BYTES;
	g->rreq = EDMSIM_RREQ_BYTES;
	g->fanin = EDMSIM_FANIN;
	g->load = 0.5;
	g->read_frac = 1.0;
	g->incast_share = 0.5;
	g->seed = EDMSIM_SEED;
}

static double mean_bytes(const struct edmsim_gen *g, bool burst)
{
	double data = burst && g->burst_size ? g->burst_size : g->cdf ? g->cdf->mean : g->size;

	if (g->data_load)
		return data;
	return data + g->read_frac * g->rreq + (1 - g->read_frac) * EDMSIM_REQ_BYTES;
}

static int gen_check(const struct edmsim_gen *g)
{
	if (g->nodes < 2 || g->nodes > EDM_SCHED_MAX_PORTS || !g->msgs)
		return -EINVAL;
	if (!(g->load > 0 && g->load <= 1) || g->read_frac < 0 || g->read_frac > 1)
		return -EINVAL;
	if (!g->size || !g->rreq || g->rreq > EDM_SCHED_MAX_CHUNK || g->burst_size > (1U << 30))
		return -EINVAL;
	if (g->workload == EDMSIM_WL_INCAST &&
	    (!g->fanin || g->fanin >= g->nodes || g->incast_share <= 0 || g->incast_share > 1))
		return -EINVAL;
	return 0;
}

struct gen_state {
	const struct edmsim_gen *g;
	struct edmsim_trace *t;
	u64 slot_ps;
	u64 rng;
	u16 *perm;		/* incast: senders drawn without replacement */
};

static int gen_one(struct gen_state *st, double t_ps, u32 src, u32 dst, bool burst)
{
	const struct edmsim_gen *g = st->g;
	struct edmsim_msg m;

	memset(&m, 0, sizeof(m));
	m.flow_id = st->t->n;
	m.type = edmsim_rng_unit(&st->rng) < g->read_frac ? EDMSIM_READ : EDMSIM_WRITE;
	m.src = src;
	m.dst = dst;
	m.size = g->cdf ? edmsim_cdf_sample(g->cdf, edmsim_rng_unit(&st->rng)) : g->size;
	if (burst && g->burst_size)
		m.size = g->burst_size;
	m.rreq = m.type == EDMSIM_READ ? g->rreq : 0;
	m.arrive_ps = (u64)(t_ps / st->slot_ps) * st->slot_ps;
	return edmsim_trace_add(st->t, &m);
}

static int gen_pair(struct gen_state *st, double t_ps)
{
	u32 src = rng_below(&st->rng, st->g->nodes);
	u32 dst = rng_below(&st->rng, st->g->nodes - 1);

	return gen_one(st, t_ps, src, dst >= src ? dst + 1 : dst, false);
}

/* fanin distinct peers of a random victim, all at t_ps. */
static int gen_burst(struct gen_state *st, double t_ps)
{
	const struct edmsim_gen *g = st->g;
	u32 victim = rng_below(&st->rng, g->nodes), i, j, n = 0;
	int err = 0;
	u16 peer;

	for (i = 0; i < g->nodes; i++)
		if (i != victim)
			st->perm[n++] = i;
	for (i = 0; !err && i < g->fanin && st->t->n < g->msgs; i++) {
		j = i + rng_below(&st->rng, n - i);
		peer = st->perm[j];

		st->perm[j] = st->perm[i];
		st->perm[i] = peer;
		err = gen_one(st, t_ps, victim, peer, true);
		/* A write converges on the victim: turn it around. */
		if (!err && st->t->msg[st->t->n - 1].type == EDMSIM_WRITE) {
			st->t->msg[st->t->n - 1].src = peer;
			st->t->msg[st->t->n - 1].dst = victim;
		}
	}
	return err;
}

int edmsim_gen(const struct edmsim_gen *g, const struct edmsim_phy *phy, struct edmsim_trace *t)
{
	struct gen_state st = { .g = g, .t = t, .slot_ps = phy->blk_ps, .rng = g->seed };
	double rate, t_pair = 0, t_burst = 0, r_pair, r_burst = 0;
	int err;

	err = gen_check(g);
	if (err)
		return err;
	/* bytes per ps over the whole rack, split between the two processes */
	rate = g->load * g->nodes / phy->byte_ps;
	r_pair = rate / mean_bytes(g, false);
	if (g->workload == EDMSIM_WL_INCAST) {
		r_pair = rate * (1 - g->incast_share) / mean_bytes(g, false);
		r_burst = rate * g->incast_share / mean_bytes(g, true) / g->fanin;
		st.perm = edmsim_zalloc(g->nodes, sizeof(*st.perm));
		t_burst = rng_exp(&st.rng, r_burst);
	}
	t_pair = r_pair > 0 ? rng_exp(&st.rng, r_pair) : INFINITY;
	while (!err && t->n < g->msgs) {
		if (r_burst > 0 && t_burst < t_pair) {
			err = gen_burst(&st, t_burst);
			t_burst += rng_exp(&st.rng, r_burst);
		} else {
			err = gen_pair(&st, t_pair);
			t_pair += rng_exp(&st.rng, r_pair);
		}
	}
	free(st.perm);
	if (!err && t->nodes < g->nodes)
		t->nodes = g->nodes;
	return err;
}
