// SPDX-License-Identifier: GPL-2.0
/*
 * edmsim bench: how fast the simulator and the scheduler core run here.
 *
 * Matching cost: edm_sched_step() on 144 and 512 ports, (a) once from idle
 * with every pair holding X notifications, as the unit test measures with
 * sanitizers on, and (b) in steady state, where every pair always has
 * demand and each step follows a chunk time that frees every link, so each
 * step builds a new maximal matching. Events per second: one run per
 * fabric of the Figure 8a mix at load 0.5, and EDM's reads at 0.9.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum {
	BENCH_COLD_ROUNDS	= 5,
	BENCH_STEADY_NS		= 200000000,	/* time spent per port count */
	BENCH_HUGE		= 1 << 30,	/* a message that never runs out */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct edm_sched *sched_new(u32 nports)
{
	struct edm_sched_cfg cfg;
	void *mem;

	edm_sched_cfg_default(&cfg, nports);
	cfg.rate_mbps = EDMSIM_RATE_MBPS;
	mem = aligned_alloc(8, (edm_sched_size(nports, cfg.x) + 7) & ~(size_t)7);
	if (!mem || edm_sched_init(mem, &cfg)) {
		free(mem);
		return NULL;
	}
	return mem;
}

static int fill(struct edm_sched *s, u32 nports, u32 per_pair, u64 *rng, bool huge)
{
	struct edm_sched_notif n = { .kind = EDM_SCHED_WRITE };
	u32 a, b, i;

	for (a = 0; a < nports; a++) {
		for (b = 0; b < nports; b++) {
			for (i = 0; a != b && i < per_pair; i++) {
				n.port = a;
				n.peer = b;
				n.msg_id = i;
				n.bytes = huge ? BENCH_HUGE : 64 + edmsim_rng_next(rng) % 4096;
				if (edm_sched_notify(s, &n))
					return -EINVAL;
			}
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of BENCH_COLD_ROUNDS, after one round that warms the caches. */
static int matching_cold(u32 nports, struct edm_sched_grant *g)
{
	double t[BENCH_COLD_ROUNDS + 1], start;
	u64 iters = 0, rng = 1;
	struct edm_sched *s;
	int n = 0;
	u32 r;

	for (r = 0; r <= BENCH_COLD_ROUNDS; r++) {
		s = sched_new(nports);
		if (!s || fill(s, nports, EDM_SCHED_DEFAULT_X, &rng, false)) {
			free(s);
			return -ENOMEM;
		}
		start = now_s();
		n = edm_sched_step(s, 0, g, nports);
		t[r] = now_s() - start;
		if (r)
			iters += s->stats.iterations;
		free(s);
	}
	qsort(t + 1, BENCH_COLD_ROUNDS, sizeof(t[0]), cmp_double);
	printf("  %3u ports, from idle, %u notifications queued: %.0f ns, %.1f iterations, "
	       "%d grants\n", nports, nports * (nports - 1) * EDM_SCHED_DEFAULT_X,
	       t[1 + BENCH_COLD_ROUNDS / 2] * 1e9, (double)iters / BENCH_COLD_ROUNDS, n);
	return 0;
}

static int matching_steady(u32 nports, struct edm_sched_grant *g)
{
	struct edm_sched *s = sched_new(nports);
	u64 now = 0, rng = 1, steps = 0, grants = 0, iters;
	double t0, t;

	if (!s || fill(s, nports, 1, &rng, true)) {
		free(s);
		return -ENOMEM;
	}
	edm_sched_step(s, now, g, nports);
	iters = s->stats.iterations;
	t0 = now_s();
	do {
		now += edm_sched_busy_ps(s, EDM_SCHED_DEFAULT_CHUNK);
		grants += edm_sched_step(s, now, g, nports);
		steps++;
		t = now_s();
	} while ((t - t0) * 1e9 < BENCH_STEADY_NS);
	printf("  %3u ports, steady state, every link freed each step: %.0f ns per matching, "
	       "%.2f iterations, %.1f grants (%llu matchings)\n", nports, (t - t0) / steps * 1e9,
	       (double)(s->stats.iterations - iters) / steps, (double)grants / steps,
	       (unsigned long long)steps);
	free(s);
	return 0;
}

static int events_rate(struct edmsim_opts *o, u32 fab, double load, double reads)
{
	struct edmsim_cfg cfg = o->cfg;
	struct edmsim_gen g = o->gen;
	struct edmsim_result r;
	struct edmsim_trace t;
	struct edmsim_phy phy;
	int err;

	g.load = load;
	g.read_frac = reads;
	cfg.fabric = fab;
	cfg.progress = false;
	memset(&t, 0, sizeof(t));
	err = edmsim_phy_init(&phy, cfg.rate_mbps);
	if (!err)
		err = edmsim_gen(&g, &phy, &t);
	if (!err)
		err = edmsim_run(&cfg, &t, NULL, NULL, &r);
	edmsim_trace_free(&t);
	if (err)
		return err;
	printf("  %-9s %s load %.1f, %u msgs: %llu events in %.3f s, %.2f Mevents/s\n",
	       edmsim_fabrics[fab]->name, reads == 1 ? "reads" : "mix", load, g.msgs,
	       (unsigned long long)r.events, r.wall_s, r.events / r.wall_s / 1e6);
	return 0;
}

int edmsim_bench_main(int argc, char **argv)
{
	struct edm_sched_grant *g = edmsim_zalloc(EDM_SCHED_MAX_PORTS, sizeof(*g));
	struct edmsim_opts o;
	int err = 0;
	u32 f;

	if (edmsim_opts_parse(&o, argc, argv) || optind != argc) {
		free(g);
		edmsim_opts_free(&o);
		return 1;
	}
	printf("maximal matching (fabric/sched.c, X=3, 256 B chunks, SRPT):\n");
	err = matching_cold(144, g) ?: matching_cold(512, g) ?: matching_steady(144, g) ?:
	      matching_steady(512, g);
	printf("simulated events per second (%u nodes):\n", o.cfg.nodes);
	for (f = 0; !err && f < edmsim_nr_fabrics; f++)
		err = events_rate(&o, f, 0.5, 0.5);
	if (!err)
		err = events_rate(&o, 0, 0.9, 1);
	free(g);
	edmsim_opts_free(&o);
	return err ? 1 : 0;
}
