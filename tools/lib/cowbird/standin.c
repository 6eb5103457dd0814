// SPDX-License-Identifier: GPL-2.0
/*
 * A user-space stand-in for edm's Cowbird engine (see standin.h). It does
 * per pass what the kernel engine's kthread does: for each ring, fetch with
 * the ring core, let the congestion-control core gate each op, execute ops
 * against the local region with memcpy, account them, and publish
 * completions every `batch` of them and at the end of the pass.
 *
 * write_lag holds each write op in flight for that many passes before its
 * bytes land, as an asynchronous target would, so the ring core's range
 * check (a read waits for an older overlapping write) is what keeps
 * read-after-write correct, not the stand-in's own order.
 *
 * Locking: one thread serves every ring: the engine thread between start and
 * stop, otherwise whoever calls cowbird_standin_poll().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "edm/cowbird_cc.h"
#include "edm/cowbird_ring.h"
#include "standin.h"

enum { LAG_MAX = 64, IDLE_YIELD = 256, IDLE_SLEEP = 4096 };

struct sd_lag {
	struct cowbird_op op;
	u32 left;
};

struct sd_ring {
	struct cowbird_ring r;
	u8 *req;
	u8 *resp;
	struct sd_lag lag[LAG_MAX];
	u32 nlag;
};

struct cowbird_standin {
	struct cowbird_standin_cfg cfg;
	struct cowbird_create info;
	struct cowbird_layout lay;
	u8 *base;
	struct sd_ring *rings;
	struct cowbird_cc *cc;
	pthread_t thread;
	int running;		/* atomic: the engine thread runs */
	u64 passes;
};

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int rings_init(struct cowbird_standin *sd)
{
	u32 i;

	for (i = 0; i < sd->lay.nr_rings; i++) {
		u8 *rb = sd->base + sd->lay.ring_off + i * sd->lay.ring_stride;
		struct cowbird_ring_cfg rc = {
			.book = (struct cowbird_book *)(sd->base + sd->lay.book_off) + i,
			.meta = (struct cowbird_meta *)(rb + sd->lay.meta_off),
			.cq = (struct cowbird_cqe *)(rb + sd->lay.cq_off),
			.reqs = calloc(sd->lay.entries, sizeof(struct cowbird_req)),
			.region_size = sd->cfg.region_size,
			.entries = sd->lay.entries,
			.data_size = sd->lay.data_size,
			.batch = sd->cfg.batch ? sd->cfg.batch : COWBIRD_BATCH_DEFAULT,
			.region_id = sd->cfg.region_id,
		};
		int err;

		sd->rings[i].req = rb + sd->lay.req_off;
		sd->rings[i].resp = rb + sd->lay.resp_off;
		if (!rc.reqs)
			return -ENOMEM;
		err = cowbird_ring_init(&sd->rings[i].r, &rc);
		if (err) {
			free(rc.reqs);
			return err;
		}
	}
	return 0;
}

int cowbird_standin_create(const struct cowbird_standin_cfg *cfg, struct cowbird_standin **sdp)
{
	struct cowbird_cc_cfg ccc = {
		.target_local_ns = 10000, .target_remote_ns = 10000, .rtt_ns = 1000,
		.cwnd_init = 16 * COWBIRD_CC_ONE, .cwnd_min = COWBIRD_CC_ONE / 64,
		.cwnd_max = 1024 * COWBIRD_CC_ONE,
	};
	struct cowbird_standin *sd;
	int err;

	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return -ENOMEM;
	sd->cfg = *cfg;
	sd->info.abi_version = COWBIRD_ABI_VERSION;
	sd->info.region_key = cfg->region_key;
	sd->info.region_id = cfg->region_id;
	sd->info.nr_rings = cfg->nr_rings;
	sd->info.meta_order = cfg->meta_order;
	sd->info.data_order = cfg->data_order;
	err = cowbird_layout_check(&sd->info);
	if (err || !cfg->region || cfg->write_lag > 1000000)
		goto err_sd;
	cowbird_layout_fill(&sd->info, &sd->lay);
	sd->info.instance_id = 1;
	sd->info.region_size = cfg->region_size;

	err = -ENOMEM;
	sd->base = aligned_alloc(COWBIRD_PAGE_SIZE, sd->lay.mmap_size);
	sd->rings = calloc(sd->lay.nr_rings, sizeof(*sd->rings));
	sd->cc = malloc(cowbird_cc_size(1));
	if (!sd->base || !sd->rings || !sd->cc)
		goto err_mem;
	memset(sd->base, 0, sd->lay.mmap_size);
	err = cowbird_cc_init(sd->cc, &ccc, 1);
	if (err)
		goto err_mem;
	err = rings_init(sd);
	if (err)
		goto err_mem;
	*sdp = sd;
	return 0;
err_mem:
	cowbird_standin_destroy(sd);
	return err;
err_sd:
	free(sd);
	return err ? err : -EINVAL;
}

const struct cowbird_create *cowbird_standin_info(const struct cowbird_standin *sd)
{
	return &sd->info;
}

void *cowbird_standin_base(const struct cowbird_standin *sd)
{
	return sd->base;
}

static void op_exec(struct cowbird_standin *sd, struct sd_ring *s, const struct cowbird_op *op)
{
	u8 *region = sd->cfg.region;

	if (op->rw_type == COWBIRD_RW_READ)
		memcpy(s->resp + op->buf_off, region + op->region_off, op->length);
	else
		memcpy(region + op->region_off, s->req + op->buf_off, op->length);
}

static void op_end(struct cowbird_standin *sd, struct sd_ring *s, const struct cowbird_op *op,
		   u64 now)
{
	cowbird_ring_op_done(&s->r, op, COWBIRD_ST_OK, now);
	cowbird_cc_on_complete(sd->cc, 0, COWBIRD_ST_OK, 0, 0, now);
	cowbird_ring_complete(&s->r, false);
}

/* Lands the lagged writes whose time has come, oldest first. */
static void lag_age(struct cowbird_standin *sd, struct sd_ring *s, u64 now)
{
	u32 i, j = 0;

	for (i = 0; i < s->nlag; i++) {
		if (--s->lag[i].left) {
			s->lag[j++] = s->lag[i];
			continue;
		}
		op_exec(sd, s, &s->lag[i].op);
		op_end(sd, s, &s->lag[i].op, now);
	}
	s->nlag = j;
}

static u32 ring_pass(struct cowbird_standin *sd, struct sd_ring *s, u64 now)
{
	struct cowbird_op op;
	u32 n = 0;
	int got;

	got = cowbird_ring_fetch(&s->r, s->r.entries, now);
	lag_age(sd, s, now);
	while (s->nlag < LAG_MAX && cowbird_cc_may_issue(sd->cc, 0, now) &&
	       cowbird_ring_next_op(&s->r, now, &op)) {
		cowbird_cc_on_issue(sd->cc, 0, now);
		n++;
		if (op.rw_type == COWBIRD_RW_WRITE && sd->cfg.write_lag) {
			s->lag[s->nlag].op = op;
			s->lag[s->nlag++].left = sd->cfg.write_lag;
			continue;
		}
		op_exec(sd, s, &op);
		op_end(sd, s, &op, now);
	}
	cowbird_ring_complete(&s->r, true);
	return n + (got > 0 ? got : 0) + s->nlag;
}

/* One pass over every ring; returns a measure of the work found (0: idle). */
unsigned int cowbird_standin_poll(struct cowbird_standin *sd)
{
	u64 now = now_ns();
	u32 i, n = 0;

	for (i = 0; i < sd->lay.nr_rings; i++)
		n += ring_pass(sd, &sd->rings[i], now);
	__atomic_add_fetch(&sd->passes, 1, __ATOMIC_RELAXED);
	return n;
}

/* Probes fast while there is work, backs off to yielding, then sleeping. */
static void *engine(void *arg)
{
	struct cowbird_standin *sd = arg;
	u32 idle = 0;

	if (sd->cfg.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(sd->cfg.cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (__atomic_load_n(&sd->running, __ATOMIC_ACQUIRE)) {
		if (cowbird_standin_poll(sd)) {
			idle = 0;
		} else if (++idle > IDLE_SLEEP) {
			usleep(50);
		} else if (idle > IDLE_YIELD) {
			sched_yield();
		}
	}
	return NULL;
}

int cowbird_standin_start(struct cowbird_standin *sd)
{
	if (__atomic_exchange_n(&sd->running, 1, __ATOMIC_ACQ_REL))
		return -EBUSY;
	if (pthread_create(&sd->thread, NULL, engine, sd)) {
		__atomic_store_n(&sd->running, 0, __ATOMIC_RELEASE);
		return -EAGAIN;
	}
	return 0;
}

void cowbird_standin_stop(struct cowbird_standin *sd)
{
	if (!__atomic_exchange_n(&sd->running, 0, __ATOMIC_ACQ_REL))
		return;
	pthread_join(sd->thread, NULL);
}

void cowbird_standin_stats(const struct cowbird_standin *sd, struct cowbird_standin_stats *st)
{
	u32 i;

	memset(st, 0, sizeof(*st));
	st->passes = __atomic_load_n(&sd->passes, __ATOMIC_RELAXED);
	for (i = 0; i < sd->lay.nr_rings; i++) {
		const struct cowbird_ring_stats *rs = &sd->rings[i].r.stats;

		st->fetched += rs->fetched;
		st->rejected += rs->rejected;
		st->ops += rs->ops;
		st->completed += rs->completed;
		st->batches += rs->batches;
		st->rd_blocked += rs->rd_blocked;
		st->wr_blocked += rs->wr_blocked;
	}
}

void cowbird_standin_destroy(struct cowbird_standin *sd)
{
	u32 i;

	if (!sd)
		return;
	cowbird_standin_stop(sd);
	if (sd->rings)
		for (i = 0; i < sd->lay.nr_rings; i++)
			free(sd->rings[i].r.reqs);
	free(sd->rings);
	free(sd->cc);
	free(sd->base);
	free(sd);
}
