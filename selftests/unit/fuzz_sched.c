// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: random notify / step / time / flush / reconfigure
 * sequences against the switch scheduler (fabric/sched.c), checked
 * after every call against a shadow model written independently (plain
 * arrays, linear scans, busy times from bytes * 8 / rate):
 *
 *  - notify returns what the rules say (EINVAL, ENOSPC past X, EEXIST);
 *  - a grant goes to the pair's oldest message, for min(chunk, remaining)
 *    bytes, with the right FIRST/LAST flags, on links free at that time;
 *  - no port is in two grants of one step, nor granted while busy;
 *  - never more than X per pair, never more than X*N per destination;
 *  - policy: a granted (s, d) is not beaten by any (s', d) whose s' was
 *    free before the step and is still unmatched after it;
 *  - the matching is maximal: after a step every pair with demand has its
 *    source or its destination busy;
 *  - every byte of every message is granted exactly once: at the end the
 *    run is drained and every accepted byte is either granted or flushed.
 */
#include <stdlib.h>
#include <string.h>

#include "edm/sched.h"

enum { MAXP = 16, MAXX = 4, GMAX = EDM_SCHED_MAX_PORTS };

struct smsg {
	u64 seq;
	u32 total;
	u32 remaining;
	u8 id;
	u8 kind;
};

struct shadow {
	u32 n, x, chunk, rate, policy;
	u64 seq;
	struct smsg q[MAXP][MAXP][MAXX];	/* [src][dst], oldest first */
	u32 cnt[MAXP][MAXP];
	u64 src_until[MAXP], dst_until[MAXP];
	bool held[MAXP];			/* edm_sched_hold() */
	u64 accepted, granted, flushed;		/* bytes */
};

static struct shadow sh;
static struct edm_sched_grant g[GMAX];

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static bool before(const struct smsg *a, const struct smsg *b)
{
	if (sh.policy == EDM_SCHED_SRPT && a->remaining != b->remaining)
		return a->remaining < b->remaining;
	return a->seq < b->seq;
}

static int shadow_notify(u32 port, u32 peer, u8 id, u32 kind, u32 bytes)
{
	u32 src, dst, i;

	if (port >= sh.n || peer >= sh.n || port == peer || kind >= EDM_SCHED_NR_KINDS || !bytes)
		return -EINVAL;
	src = kind == EDM_SCHED_WRITE ? port : peer;
	dst = kind == EDM_SCHED_WRITE ? peer : port;
	if (sh.cnt[src][dst] >= sh.x)
		return -ENOSPC;
	for (i = 0; i < sh.cnt[src][dst]; i++) {
		bool old_wr = sh.q[src][dst][i].kind == EDM_SCHED_WRITE;
		bool new_wr = kind == EDM_SCHED_WRITE;

		if (sh.q[src][dst][i].id == id && old_wr == new_wr)
			return -EEXIST;
	}
	sh.q[src][dst][sh.cnt[src][dst]++] = (struct smsg){
		.seq = sh.seq++, .total = bytes, .remaining = bytes, .id = id, .kind = kind,
	};
	sh.accepted += bytes;
	return 0;
}

static void check_depths(struct edm_sched *s)
{
	u32 a, b, d, total = 0;

	for (b = 0; b < sh.n; b++) {
		d = 0;
		for (a = 0; a < sh.n; a++) {
			CHECK(sh.cnt[a][b] <= sh.x);
			CHECK(edm_sched_pair_count(s, a, b) == sh.cnt[a][b]);
			d += sh.cnt[a][b];
		}
		CHECK(edm_sched_depth(s, b) == d);
		CHECK(d <= sh.x * sh.n);
		CHECK(edm_sched_depth_max(s, b) >= d);
		total += d;
	}
	CHECK(s->stats.depth == total);
}

/* One grant against the shadow as it was before the step. */
static void check_grant(const struct edm_sched_grant *gr, u64 now, bool *sused, bool *dused)
{
	const struct smsg *m;
	u32 len;

	CHECK(gr->src < sh.n && gr->dst < sh.n && gr->src != gr->dst);
	CHECK(!sused[gr->src] && !dused[gr->dst]);
	CHECK(!sh.held[gr->src] && !sh.held[gr->dst]);
	CHECK(sh.src_until[gr->src] <= now && sh.dst_until[gr->dst] <= now);
	sused[gr->src] = true;
	dused[gr->dst] = true;
	CHECK(sh.cnt[gr->src][gr->dst] > 0);
	m = &sh.q[gr->src][gr->dst][0];
	len = m->remaining < sh.chunk ? m->remaining : sh.chunk;
	CHECK(gr->msg_id == m->id && gr->kind == m->kind && gr->bytes == len);
	CHECK(!!(gr->flags & EDM_SCHED_GRANT_FIRST) == (m->remaining == m->total));
	CHECK(!!(gr->flags & EDM_SCHED_GRANT_LAST) == (m->remaining == len));
}

/* No pair (s', d) with s' free before and unmatched after beats a grant. */
static void check_policy(const struct edm_sched_grant *gr, u64 now, const bool *sused)
{
	const struct smsg *win = &sh.q[gr->src][gr->dst][0];
	u32 a;

	for (a = 0; a < sh.n; a++) {
		if (a == gr->src || sused[a] || sh.held[a] || sh.src_until[a] > now ||
		    !sh.cnt[a][gr->dst])
			continue;
		CHECK(!before(&sh.q[a][gr->dst][0], win));
	}
}

static void apply_grant(struct edm_sched *s, const struct edm_sched_grant *gr, u64 now)
{
	struct smsg *q = sh.q[gr->src][gr->dst];
	u32 *cnt = &sh.cnt[gr->src][gr->dst];
	u64 until = now + (u64)gr->bytes * 8000000 / sh.rate;

	q[0].remaining -= gr->bytes;
	sh.granted += gr->bytes;
	if (!q[0].remaining) {
		memmove(q, q + 1, (*cnt - 1) * sizeof(*q));
		(*cnt)--;
	}
	sh.src_until[gr->src] = until;
	sh.dst_until[gr->dst] = until;
	CHECK(edm_sched_busy_until(s, gr->src, false) == until);
	CHECK(edm_sched_busy_until(s, gr->dst, true) == until);
}

static int do_step(struct edm_sched *s, u64 now)
{
	bool sused[MAXP] = {}, dused[MAXP] = {};
	u32 a, b;
	int n, i;

	n = edm_sched_step(s, now, g, GMAX);
	CHECK(n >= 0 && (u32)n <= sh.n);
	for (i = 0; i < n; i++)
		check_grant(&g[i], now, sused, dused);
	for (i = 0; i < n; i++)
		check_policy(&g[i], now, sused);
	for (i = 0; i < n; i++)
		apply_grant(s, &g[i], now);
	/* Maximal: every pair with demand is blocked (or held) at one end. */
	for (a = 0; a < sh.n; a++)
		for (b = 0; b < sh.n; b++)
			if (sh.cnt[a][b])
				CHECK(sh.src_until[a] > now || sh.dst_until[b] > now ||
				      sh.held[a] || sh.held[b]);
	check_depths(s);
	return n;
}

static u32 shadow_flush(u32 port)
{
	u32 a, i, n = 0;

	if (port >= sh.n)
		return 0;
	for (a = 0; a < sh.n; a++) {
		for (i = 0; i < sh.cnt[port][a]; i++)
			sh.flushed += sh.q[port][a][i].remaining;
		for (i = 0; i < sh.cnt[a][port]; i++)
			sh.flushed += sh.q[a][port][i].remaining;
		n += sh.cnt[port][a] + sh.cnt[a][port];
		sh.cnt[port][a] = 0;
		sh.cnt[a][port] = 0;
	}
	return n;
}

static const u32 rates[] = { 10000, 25000, 100000, 400000 };

static void reconfigure(struct edm_sched *s, const u8 *b)
{
	u32 port = b[2] % (sh.n + 1);

	switch (b[1] % 4) {
	case 3:
		/* a port past the last is ignored */
		edm_sched_hold(s, port, b[3] & 1);
		if (port < sh.n)
			sh.held[port] = b[3] & 1;
		CHECK(edm_sched_held(s, port) == (port < sh.n && sh.held[port]));
		break;
	case 0:
		CHECK(edm_sched_set_policy(s, b[2] % 3) == (b[2] % 3 < 2 ? 0 : -EINVAL));
		if (b[2] % 3 < 2)
			sh.policy = b[2] % 3;
		break;
	case 1:
		CHECK(edm_sched_set_chunk(s, b[2] * 4) == (b[2] ? 0 : -EINVAL));
		if (b[2])
			sh.chunk = b[2] * 4;
		break;
	default:
		CHECK(edm_sched_set_rate(s, rates[b[2] % 4]) == 0);
		sh.rate = rates[b[2] % 4];
		break;
	}
}

/* Let every busy link free up and grant until nothing is left. */
static void drain(struct edm_sched *s, u64 now)
{
	u32 a, b, left;
	u64 next;

	for (a = 0; a < sh.n; a++) {
		edm_sched_hold(s, a, false);
		sh.held[a] = false;
	}
	for (;;) {
		do_step(s, now);
		left = 0;
		for (a = 0; a < sh.n; a++)
			for (b = 0; b < sh.n; b++)
				left += sh.cnt[a][b];
		next = edm_sched_next_release(s);
		if (!left)
			break;
		/* Demand left means some link is busy (maximality), so next is real. */
		CHECK(next != ~0ULL && next > now);
		now = next;
	}
	CHECK(s->stats.depth == 0);
	CHECK(sh.accepted == sh.granted + sh.flushed);
	CHECK(s->stats.grant_bytes == sh.granted);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct edm_sched_cfg cfg;
	struct edm_sched *s;
	u64 now = 0;
	size_t i;
	int rc;

	if (size < 5)
		return 0;
	memset(&sh, 0, sizeof(sh));
	sh.n = 2 + data[0] % (MAXP - 1);
	sh.x = 1 + data[1] % MAXX;
	sh.chunk = 16 + (data[2] | data[3] << 8) % 700;
	sh.policy = data[4] & 1;
	sh.rate = rates[(data[4] >> 1) % 4];
	cfg = (struct edm_sched_cfg){
		.nports = sh.n, .x = sh.x, .chunk = sh.chunk, .rate_mbps = sh.rate,
		.policy = sh.policy,
	};
	/* An exact-size heap block, so ASan sees any access past it. */
	s = malloc(edm_sched_size(sh.n, sh.x));
	if (!s)
		return 0;
	CHECK(edm_sched_init(s, &cfg) == 0);
	for (i = 5; i + 5 <= size; i += 5) {
		const u8 *b = data + i;

		switch (b[0] % 8) {
		case 0: case 1: case 2: {
			struct edm_sched_notif n = {
				.port = b[1] % (sh.n + 1), .peer = b[2] % (sh.n + 1),
				.msg_id = b[3] >> 3, .kind = b[3] % 4,
				.bytes = b[4] ? b[4] * 11U : 0,
			};

			rc = shadow_notify(n.port, n.peer, n.msg_id, n.kind, n.bytes);
			CHECK(edm_sched_notify(s, &n) == rc);
			check_depths(s);
			break;
		}
		case 3: case 4:
			now += (u64)(b[1] | b[2] << 8) * 50;
			do_step(s, now);
			break;
		case 5:
			do_step(s, now);
			break;
		case 6:
			CHECK(edm_sched_flush_port(s, b[1] % (sh.n + 1)) ==
			      shadow_flush(b[1] % (sh.n + 1)));
			check_depths(s);
			break;
		default:
			reconfigure(s, b);
			break;
		}
	}
	drain(s, now);
	free(s);
	return 0;
}
