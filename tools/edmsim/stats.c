// SPDX-License-Identifier: GPL-2.0
/*
 * What a run reports: latency normalized to the fabric's own unloaded
 * latency (mean and p99, reads and writes apart), message completion time
 * normalized to the ideal, and the two summary lines of the EDM authors'
 * simulator, "Avg flow completion time" in timeslots and "Avg slowdown".
 *
 * A message's expected time alone in the network, in timeslots (one 8-byte
 * block time, 0.64 ns at 100 Gb/s), is its unloaded latency on the fabric,
 * which every model computes in closed form and which the tests check
 * against a one-message run:
 *
 *   expected = ceil(size / 8) + 4 * prop / slot + overhead
 *
 * where overhead is what the message pays alone besides its data blocks and
 * four one-hop propagation delays: the request (RREQ blocks, or /N/ and /G/),
 * the PHY and switch pipeline, and each later chunk's wait for its grant.
 * slowdown = max(1, fct / expected); both averaged over completed messages.
 *
 * The authors' own definition (their simulator's end-of-run statistics),
 * which edmsim reports beside its own so that their golden values can be
 * compared like for like. Every write is a flow; a read is two flows, its
 * request (from its start until the request is whole at the memory node)
 * and its reply (from one timeslot after that until the last byte is back).
 * With B = 8, P = propagation in whole timeslots (16 at 100 Gb/s), C the
 * chunk and integer division as they write it:
 *
 *   write of S:         S/B + 4P + min(4C, S)/B + (S > C ? 4P : 0)
 *   request Q, reply R: Q/B + 4P + (R > C ? R/B + 4P : 0) + (Q > C ? 4P : 0)
 *   reply R:            R/B + 2P + (R > C ? (R/C + 1) * C/B + request - R/B : 0)
 *
 * a fixed formula, not the flow's latency alone in either simulator.
 */
#include <math.h>
#include <stdlib.h>

#include "edmsim.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least 99% of values at or below. */
static double p99(double *v, u32 n)
{
	u32 rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (u32)ceil(0.99 * n);
	return v[rank ? rank - 1 : 0];
}

double edmsim_expected_slots(const struct edmsim_phy *phy, const struct edmsim_msg *m)
{
	return (double)m->unloaded_ps / phy->blk_ps;
}

struct art_acc {
	double fct, sd;
	u32 n;
};

static void art_add(struct art_acc *a, double fct, double expected)
{
	a->fct += fct;
	a->sd += fct > expected ? fct / expected : 1.0;
	a->n++;
}

static void art_expected(const struct edmsim *s, const struct edmsim_msg *m, double *req,
			 double *rep)
{
	u32 p = (u32)((s->phy.tp.prop_ps + s->phy.blk_ps / 2) / s->phy.blk_ps);
	u32 b = EDM_TIMING_BLOCK_BYTES, c = s->cfg.chunk, q = m->rreq, r = m->size;
	u32 e;

	if (m->type == EDMSIM_WRITE) {
		*req = r / b + 4 * p + (r < 4 * c ? r : 4 * c) / b + (r > c ? 4 * p : 0);
		*rep = 0;
		return;
	}
	e = q / b + 4 * p + (r > c ? r / b + 4 * p : 0) + (q > c ? 4 * p : 0);
	*req = e;
	*rep = r / b + 2 * p + (r > c ? (r / c + 1) * c / b + e - r / b : 0);
}

/* The authors' Avg flow completion time and Avg slowdown, see above. */
static void art_compute(const struct edmsim *s, struct edmsim_result *r)
{
	struct art_acc a = { 0 }, k[EDMSIM_NR_ART] = { 0 };
	double req, rep, blk = s->phy.blk_ps, fct;
	double delay[EDMSIM_NR_CLASSES] = { 0 };
	u32 i, c, nc[EDMSIM_NR_CLASSES] = { 0 };

	r->art_ok = true;
	for (i = 0; i < s->nmsg; i++) {
		const struct edmsim_msg *m = &s->msg[i];

		r->art_flows += m->type == EDMSIM_READ ? 2 : 1;
		art_expected(s, m, &req, &rep);
		if (m->type == EDMSIM_WRITE) {
			if (m->done) {
				fct = (m->done_ps - m->arrive_ps) / blk;
				art_add(&a, fct, req);
				art_add(&k[EDMSIM_ART_WRITE], fct, req);
			}
		} else if (m->req_done_ps) {
			fct = (m->req_done_ps - m->arrive_ps) / blk;
			art_add(&a, fct, req);
			art_add(&k[EDMSIM_ART_REQUEST], fct, req);
			if (m->done) {
				fct = (m->done_ps - m->req_done_ps) / blk - 1;
				art_add(&a, fct, rep);
				art_add(&k[EDMSIM_ART_REPLY], fct, rep);
			}
		} else if (m->done) {
			r->art_ok = false;
		}
		if (!m->done)
			continue;
		c = m->type == EDMSIM_READ ? EDMSIM_C_READ : EDMSIM_C_WRITE;
		delay[c] += (double)(m->done_ps - m->arrive_ps) - m->unloaded_ps;
		nc[c]++;
	}
	for (c = 0; c < EDMSIM_NR_CLASSES; c++)
		r->art_delay_ns[c] = nc[c] ? delay[c] / nc[c] / 1000 : 0;
	for (c = 0; c < EDMSIM_NR_ART; c++)
		r->art_kind_slowdown[c] = k[c].n ? k[c].sd / k[c].n : 0;
	r->art_done = a.n;
	if (a.n) {
		r->art_fct_slots = a.fct / a.n;
		r->art_slowdown = a.sd / a.n;
	}
}

/* Data bytes of the trace over what the hosts' links carry in its span. */
static double data_load(const struct edmsim *s)
{
	u64 first, last, bytes = 0;
	u32 i;

	if (!s->nmsg)
		return 0;
	first = s->msg[s->order[0]].arrive_ps;
	last = s->msg[s->order[s->nmsg - 1]].arrive_ps + s->phy.blk_ps;
	for (i = 0; i < s->nmsg; i++)
		bytes += s->msg[i].size;
	return (double)bytes * s->phy.byte_ps / ((double)s->cfg.nodes * (last - first));
}

static double link_util(const struct edmsim *s)
{
	u64 first, last, span, best = 0;
	u32 i;

	if (!s->link_busy || s->nmsg < 2)
		return 0;
	first = s->msg[s->order[0]].arrive_ps;
	last = s->msg[s->order[s->nmsg - 1]].arrive_ps;
	span = last - first;
	for (i = 0; span && i < s->nlinks; i++)
		if (s->link_busy[i] > best)
			best = s->link_busy[i];
	return span ? (double)best / span : 0;
}

struct class_acc {
	double lat, unl;
	double *ratio;
	u32 n;
};

void edmsim_result_compute(const struct edmsim *s, struct edmsim_result *r)
{
	struct class_acc acc[EDMSIM_NR_CLASSES] = { 0 };
	double *all = edmsim_zalloc(s->nmsg, sizeof(*all));
	double fct, exp_slots, fct_sum = 0, sd_sum = 0, ratio_sum = 0;
	u32 i, c, nall = 0;

	memset(r, 0, sizeof(*r));
	for (c = 0; c < EDMSIM_NR_CLASSES; c++)
		acc[c].ratio = edmsim_zalloc(s->nmsg, sizeof(double));
	for (i = 0; i < s->nmsg; i++) {
		const struct edmsim_msg *m = &s->msg[i];
		u64 lat = m->done_ps - m->arrive_ps;

		if (!m->done)
			continue;
		c = m->type == EDMSIM_READ ? EDMSIM_C_READ : EDMSIM_C_WRITE;
		acc[c].lat += lat;
		acc[c].unl += m->unloaded_ps;
		acc[c].ratio[acc[c].n++] = (double)lat / m->unloaded_ps;
		all[nall++] = (double)lat / m->unloaded_ps;
		ratio_sum += (double)lat / m->unloaded_ps;
		fct = (double)lat / s->phy.blk_ps;
		exp_slots = edmsim_expected_slots(&s->phy, m);
		fct_sum += fct;
		sd_sum += fct > exp_slots ? fct / exp_slots : 1.0;
	}
	for (c = 0; c < EDMSIM_NR_CLASSES; c++) {
		r->n[c] = acc[c].n;
		if (acc[c].n) {
			r->unloaded_ns[c] = acc[c].unl / acc[c].n / 1000;
			r->mean_ns[c] = acc[c].lat / acc[c].n / 1000;
			r->norm_mean[c] = acc[c].lat / acc[c].unl;
			r->norm_p99[c] = p99(acc[c].ratio, acc[c].n);
		}
		free(acc[c].ratio);
	}
	if (nall) {
		r->mct_mean = ratio_sum / nall;
		r->mct_p99 = p99(all, nall);
		r->fct_slots = fct_sum / nall;
		r->slowdown = sd_sum / nall;
	}
	free(all);
	art_compute(s, r);
	r->data_load = data_load(s);
	r->util = link_util(s);
	r->events = s->events;
	r->digest = s->digest;
	r->check = s->check;
}

/* One line per flow, in trace order, for a side-by-side with other tools. */
int edmsim_result_dump(const struct edmsim *s, const char *path)
{
	FILE *f = fopen(path, "w");
	const struct edmsim_msg *m;
	double fct, exp_slots;
	u32 i;

	if (!f) {
		fprintf(stderr, "edmsim: %s: cannot create\n", path);
		return -EIO;
	}
	fprintf(f, "flow_id,type,src,dst,size_bytes,start_timeslot,fct_slots,expected_slots,"
		"slowdown,latency_ns,unloaded_ns,request_slots\n");
	for (i = 0; i < s->nmsg; i++) {
		m = &s->msg[i];
		fprintf(f, "%u,%u,%u,%u,%u,%llu", m->flow_id, m->type, m->src, m->dst, m->size,
			(unsigned long long)(m->arrive_ps / s->phy.blk_ps));
		if (!m->done) {
			fprintf(f, ",,,,,,\n");
			continue;
		}
		fct = (double)(m->done_ps - m->arrive_ps) / s->phy.blk_ps;
		exp_slots = edmsim_expected_slots(&s->phy, m);
		fprintf(f, ",%.3f,%.3f,%.4f,%.3f,%.3f,", fct, exp_slots,
			fct > exp_slots ? fct / exp_slots : 1.0, (m->done_ps - m->arrive_ps) / 1e3,
			m->unloaded_ps / 1e3);
		if (m->req_done_ps)
			fprintf(f, "%.3f", (double)(m->req_done_ps - m->arrive_ps) / s->phy.blk_ps);
		fputc('\n', f);
	}
	return fclose(f) ? -EIO : 0;
}

static void class_print(const struct edmsim_result *r, u32 c, FILE *f)
{
	if (!r->n[c])
		return;
	fprintf(f, "%s: n=%u unloaded=%.2fns mean=%.2fns norm_mean=%.3f norm_p99=%.3f\n",
		c == EDMSIM_C_READ ? "read" : "write", r->n[c], r->unloaded_ns[c], r->mean_ns[c],
		r->norm_mean[c], r->norm_p99[c]);
}

void edmsim_result_print(const struct edmsim *s, const struct edmsim_result *r, FILE *f)
{
	class_print(r, EDMSIM_C_READ, f);
	class_print(r, EDMSIM_C_WRITE, f);
	fprintf(f, "mct: mean=%.3f p99=%.3f (completion time / alone in this fabric)\n",
		r->mct_mean, r->mct_p99);
	fprintf(f, "Avg flow completion time: %0.3f\n", r->fct_slots);
	fprintf(f, "Avg slowdown: %0.3f\n", r->slowdown);
	if (r->art_ok) {
		fprintf(f, "authors: flows=%u completed=%u avg_fct=%.3f avg_slowdown=%.3f",
			r->art_flows, r->art_done, r->art_fct_slots, r->art_slowdown);
		fprintf(f, " (write=%.3f request=%.3f reply=%.3f) delay_ns read=%.2f write=%.2f\n",
			r->art_kind_slowdown[EDMSIM_ART_WRITE],
			r->art_kind_slowdown[EDMSIM_ART_REQUEST],
			r->art_kind_slowdown[EDMSIM_ART_REPLY],
			r->art_delay_ns[EDMSIM_C_READ], r->art_delay_ns[EDMSIM_C_WRITE]);
	} else {
		fprintf(f, "authors: n/a (this model does not mark when a read's request lands)\n");
	}
	fprintf(f, "load: data=%.3f (data bytes / host links' capacity over the arrivals)\n",
		r->data_load);
	if (s->stop_ps)
		fprintf(f, "stopped: at %.3f ns, the last message's start; %u open, not counted\n",
			s->stop_ps / 1e3, s->nmsg - s->ndone);
	fprintf(f, "checks: dup_bytes=%llu below_unloaded=%llu multi_sender=%llu incomplete=%llu\n",
		(unsigned long long)r->check.dup_bytes,
		(unsigned long long)r->check.below_unloaded,
		(unsigned long long)r->check.multi_sender,
		(unsigned long long)r->check.incomplete);
	fprintf(f, "fabric:");
	if (s->fab->report)
		s->fab->report(s, f);
	fprintf(f, " util=%.3f digest=%016llx\n", r->util, (unsigned long long)r->digest);
	fprintf(f, "speed: %llu events in %.3f s, %.2f Mevents/s\n",
		(unsigned long long)r->events, r->wall_s,
		r->wall_s > 0 ? r->events / r->wall_s / 1e6 : 0);
}
