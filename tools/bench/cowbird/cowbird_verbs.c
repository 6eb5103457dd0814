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

#define MAX_DEPTH	256
#define SLOT		4096

struct verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* both QPs': only the requester's reads complete */
	struct ibv_qp *qa, *qb;		/* qa reads from qb's side */
	struct ibv_mr *lmr, *rmr;
	unsigned char *lbuf, *region;
	union ibv_gid gid;
	int gid_index, rd_atom;
	enum ibv_mtu mtu;
};

static unsigned int ops = 200000, depth = 32, size = 64;
static size_t region_size = 64u << 20;
static int app_cpu;
static const char *dev_name;

static struct ibv_context *dev_open(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; l && l[i] && !ctx; i++)
		if (!dev_name || !strcmp(ibv_get_device_name(l[i]), dev_name))
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

/* Port 1's RoCE v2 GID of an IPv4 address (::ffff:a.b.c.d). */
static int gid_find(struct verbs *v)
{
	static const unsigned char v4[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_gid_entry t[64];
	ssize_t n, i;

	n = ibv_query_gid_table(v->ctx, t, 64, 0);
	for (i = 0; i < n; i++)
		if (t[i].port_num == 1 && t[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(t[i].gid.raw, v4, sizeof(v4))) {
			v->gid = t[i].gid;
			v->gid_index = t[i].gid_index;
			return 0;
		}
	return n < 0 ? (int)n : -ENOENT;
}

static struct ibv_qp *qp_new(struct verbs *v)
{
	struct ibv_qp_init_attr a = {
		.send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = MAX_DEPTH, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(v->pd, &a);
}

/* RESET -> INIT -> RTR -> RTS, connected to dest_qpn on our own GID. */
static int qp_connect(struct verbs *v, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	if (err)
		return -err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = v->mtu;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = v->rd_atom;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = v->gid;
	a.ah_attr.grh.sgid_index = v->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return -err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = v->rd_atom;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	return -err;
}

static int verbs_setup(struct verbs *v)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int err;

	v->ctx = dev_open();
	if (!v->ctx)
		return -ENODEV;
	if (ibv_query_device(v->ctx, &da) || ibv_query_port(v->ctx, 1, &pa))
		return -EIO;
	if (pa.state != IBV_PORT_ACTIVE)
		return -ENETDOWN;
	v->mtu = pa.active_mtu;
	v->rd_atom = da.max_qp_rd_atom < (int)depth ? da.max_qp_rd_atom : (int)depth;
	if (da.max_qp_init_rd_atom < v->rd_atom)
		v->rd_atom = da.max_qp_init_rd_atom;
	err = gid_find(v);
	if (err)
		return err;
	v->lbuf = aligned_alloc(SLOT, MAX_DEPTH * SLOT);
	v->region = aligned_alloc(SLOT, region_size);
	if (!v->lbuf || !v->region)
		return -ENOMEM;
	memset(v->lbuf, 0, MAX_DEPTH * SLOT);
	memset(v->region, 0x5a, region_size);
	v->pd = ibv_alloc_pd(v->ctx);
	v->cq = v->pd ? ibv_create_cq(v->ctx, 2 * MAX_DEPTH, NULL, NULL, 0) : NULL;
	if (!v->cq)
		return -ENOMEM;
	v->lmr = ibv_reg_mr(v->pd, v->lbuf, MAX_DEPTH * SLOT, IBV_ACCESS_LOCAL_WRITE);
	v->rmr = ibv_reg_mr(v->pd, v->region, region_size,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	v->qa = v->rmr ? qp_new(v) : NULL;
	v->qb = v->qa ? qp_new(v) : NULL;
	if (!v->qb)
		return -errno ? -errno : -ENOMEM;
	err = qp_connect(v, v->qa, v->qb->qp_num);
	return err ? err : qp_connect(v, v->qb, v->qa->qp_num);
}

static void verbs_teardown(struct verbs *v)
{
	if (v->qa)
		ibv_destroy_qp(v->qa);
	if (v->qb)
		ibv_destroy_qp(v->qb);
	if (v->lmr)
		ibv_dereg_mr(v->lmr);
	if (v->rmr)
		ibv_dereg_mr(v->rmr);
	if (v->cq)
		ibv_destroy_cq(v->cq);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
	free(v->lbuf);
	free(v->region);
}

static int issue(struct verbs *v, uint64_t *s)
{
	struct ibv_sge sge = { .length = size, .lkey = v->lmr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED, .wr.rdma.rkey = v->rmr->rkey,
	}, *bad;
	unsigned int i;
	int err;

	for (i = 0; i < depth; i++) {
		sge.addr = (uintptr_t)(v->lbuf + i * SLOT);
		wr.wr_id = i;
		wr.wr.rdma.remote_addr = (uintptr_t)v->region + bench_rnd(s) % (region_size - size);
		err = ibv_post_send(v->qa, &wr, &bad);
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
		n = ibv_poll_cq(v->cq, depth - got, wc);
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
		       ibv_get_device_name(v.ctx->device), v.gid_index, v.rd_atom);
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
