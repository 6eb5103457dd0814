// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird benchmark (a), the ibverbs contender ("ibverbs/rxe"): per op one
 * ibv_post_send of a signaled 64 B (-s) RDMA READ at a random offset of a
 * registered region, and its completion from ibv_poll_cq. Meant for
 * Soft-RoCE in the VM (tools/bench/cowbird/cowbird-guest.sh): two RC QPs on
 * one device connected to each other through the device's own RoCE v2 GID,
 * so rxe loops the packets back without a wire.
 *
 * Batches of `depth` ops, phases as in cowbird_bench.c: issue (depth
 * ibv_post_send calls, one WR each), then poll. ibv_poll_cq consumes what
 * it returns, so waiting and reaping cannot be told apart from outside:
 * every poll call is timed and the calls that returned completions are the
 * reap (one clock read each), the empty ones the wait.
 *
 * What it measures with rxe: the provider's ibv_post_send writes the WQE
 * into the mapped send queue and rings the doorbell with a system call, in
 * which rxe (6.1) runs the requester, and often the loopback responder and
 * completer, in the caller's context. So the issue ns include the RNIC's
 * work done in software: an upper bound for verbs on a hardware RNIC, whose
 * doorbell is an MMIO store.
 *
 * Usage: cowbird_verbs [-n ops] [-d depth] [-s bytes] [-c app_cpu]
 *                      [-D device] [-r region_bytes]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "bench_verbs.h"

#define MAX_DEPTH	256
#define SLOT		4096

struct verbs {
	struct bench_verbs b;
	unsigned char *lbuf, *region;
};

static unsigned int ops = 200000, depth = 32, size = 64;
static size_t region_size = 64u << 20;
static int app_cpu;
static const char *dev_name;

/* The benchmark's buffers, then the device (bench_verbs.c). */
static int verbs_setup(struct verbs *v)
{
	v->lbuf = aligned_alloc(SLOT, MAX_DEPTH * SLOT);
	v->region = aligned_alloc(SLOT, region_size);
	if (!v->lbuf || !v->region)
		return -ENOMEM;
	memset(v->lbuf, 0, MAX_DEPTH * SLOT);
	memset(v->region, 0x5a, region_size);
	return bench_verbs_open(&v->b, dev_name, depth, v->lbuf, MAX_DEPTH * SLOT, v->region,
				region_size);
}

static void verbs_teardown(struct verbs *v)
{
	bench_verbs_close(&v->b);
	free(v->lbuf);
	free(v->region);
}

static int issue(struct verbs *v, uint64_t *s)
{
	struct ibv_sge sge = { .length = size, .lkey = v->b.lmr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED, .wr.rdma.rkey = v->b.rmr->rkey,
	}, *bad;
	unsigned int i;
	int err;

	for (i = 0; i < depth; i++) {
		sge.addr = (uintptr_t)(v->lbuf + i * SLOT);
		wr.wr_id = i;
		wr.wr.rdma.remote_addr = (uintptr_t)v->region + bench_rnd(s) % (region_size - size);
		err = ibv_post_send(v->b.qa, &wr, &bad);
		if (err)
			return -err;
	}
	return 0;
}

/* Polls until depth completions; only calls that returned some count. */
static int reap(struct verbs *v, uint64_t *cpu, uint64_t *instr, double ovh)
{
	struct ibv_wc wc[MAX_DEPTH];
	unsigned int got = 0;
	uint64_t t0, t1, in;
	int n, i;

	while (got < depth) {
		t0 = bench_now_ns();
		bench_perf_on();
		n = ibv_poll_cq(v->b.cq, depth - got, wc);
		bench_perf_off();
		t1 = bench_now_ns();
		in = bench_perf_take();
		if (n < 0)
			return -EIO;
		if (!n)
			continue;
		*cpu += t1 - t0;
		*instr += in - (uint64_t)ovh;
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS)
				continue;
			fprintf(stderr, "cowbird_verbs: %s\n", ibv_wc_status_str(wc[i].status));
			return -EIO;
		}
		got += n;
	}
	return 0;
}

static int bench(struct verbs *v, struct bench_result *r)
{
	uint64_t s = 42, cpu = 0, issue_ns = 0, instr = 0, t0, wall;
	double ovh = bench_perf_overhead();
	unsigned int done;
	int err = 0;

	bench_perf_take();
	wall = bench_now_ns();
	for (done = 0; done < ops && !err; done += depth) {
		t0 = bench_now_ns();
		bench_perf_on();
		err = issue(v, &s);
		bench_perf_off();
		t0 = bench_now_ns() - t0;
		cpu += t0;
		issue_ns += t0;
		instr += bench_perf_take() - (uint64_t)ovh;
		if (!err)
			err = reap(v, &cpu, &instr, ovh);
	}
	wall = bench_now_ns() - wall;
	r->instr = bench_perf_ok() ? (double)instr / done : -1;
	r->cpu_ns = (double)cpu / done;
	r->issue_ns = (double)issue_ns / done;
	r->wall_ns = (double)wall / done;
	r->helper_ns = -1;
	if (!err && v->lbuf[0] != 0x5a)
		err = -EIO;
	return err;
}

int main(int argc, char **argv)
{
	struct verbs v = {};
	struct bench_result r;
	int opt, err;

	while ((opt = getopt(argc, argv, "n:d:s:c:D:r:")) != -1) {
		switch (opt) {
		case 'n':
			ops = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			depth = strtoul(optarg, NULL, 0);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			app_cpu = atoi(optarg);
			break;
		case 'D':
			dev_name = optarg;
			break;
		case 'r':
			region_size = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ops] [-d depth] [-s bytes] [-c cpu]"
				" [-D device] [-r region_bytes]\n", argv[0]);
			return 2;
		}
	}
	if (!depth || depth > MAX_DEPTH || !size || size > SLOT || ops < depth ||
	    region_size <= SLOT) {
		fprintf(stderr, "cowbird_verbs: bad arguments\n");
		return 2;
	}
	ops -= ops % depth;
	bench_pin(app_cpu);
	bench_perf_open();
	bench_notes("cowbird_verbs");
	err = verbs_setup(&v);
	if (!err) {
		printf("# cowbird_verbs: %u ops of %u B, depth %u, app on CPU %d; %s, GID index %d,"
		       " %d reads in flight per QP\n", ops, size, depth, app_cpu,
		       ibv_get_device_name(v.b.ctx->device), v.b.gid_index, v.b.rd_atom);
		printf("# cowbird_verbs: one ibv_post_send per op; with rxe each is a system call"
		       " doing the RNIC's work in software (a hardware RNIC's is user space and"
		       " an MMIO doorbell)\n");
		fflush(stdout);
		err = bench(&v, &r);
	}
	if (err) {
		fprintf(stderr, "cowbird_verbs: %s\n", strerror(-err));
		verbs_teardown(&v);
		return 1;
	}
	bench_row("ibverbs/rxe", &r);
	verbs_teardown(&v);
	return 0;
}
