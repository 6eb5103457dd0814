// SPDX-License-Identifier: GPL-2.0
/*
 * The ibverbs contender's device, CQ, QPs and memory regions
 * (bench_verbs.h).
 */
#include <errno.h>
#include <string.h>

#include "bench_verbs.h"

static struct ibv_context *dev_open(const char *dev_name)
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
static int gid_find(struct bench_verbs *v)
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

static struct ibv_qp *qp_new(struct bench_verbs *v, unsigned int max_wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = max_wr, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(v->pd, &a);
}

/* RESET -> INIT -> RTR -> RTS, connected to dest_qpn on our own GID. */
static int qp_connect(struct bench_verbs *v, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
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

int bench_verbs_open(struct bench_verbs *v, const char *dev, unsigned int max_wr,
		     void *lbuf, size_t lsize, void *region, size_t rsize)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int err;

	v->ctx = dev_open(dev);
	if (!v->ctx)
		return -ENODEV;
	if (ibv_query_device(v->ctx, &da) || ibv_query_port(v->ctx, 1, &pa))
		return -EIO;
	if (pa.state != IBV_PORT_ACTIVE)
		return -ENETDOWN;
	v->mtu = pa.active_mtu;
	v->rd_atom = da.max_qp_rd_atom < (int)max_wr ? da.max_qp_rd_atom : (int)max_wr;
	if (da.max_qp_init_rd_atom < v->rd_atom)
		v->rd_atom = da.max_qp_init_rd_atom;
	err = gid_find(v);
	if (err)
		return err;
	v->pd = ibv_alloc_pd(v->ctx);
	v->cq = v->pd ? ibv_create_cq(v->ctx, 2 * max_wr, NULL, NULL, 0) : NULL;
	if (!v->cq)
		return -ENOMEM;
	v->lmr = ibv_reg_mr(v->pd, lbuf, lsize, IBV_ACCESS_LOCAL_WRITE);
	v->rmr = v->lmr ? ibv_reg_mr(v->pd, region, rsize, IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE) : NULL;
	v->qa = v->rmr ? qp_new(v, max_wr) : NULL;
	v->qb = v->qa ? qp_new(v, max_wr) : NULL;
	if (!v->qb)
		return -errno ? -errno : -ENOMEM;
	err = qp_connect(v, v->qa, v->qb->qp_num);
	return err ? err : qp_connect(v, v->qb, v->qa->qp_num);
}

void bench_verbs_close(struct bench_verbs *v)
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
	memset(v, 0, sizeof(*v));
}
