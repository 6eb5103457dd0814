/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ibverbs contender's setup, shared by cowbird_verbs.c and
 * cowbird_kv.c: one device (Soft-RoCE in the VM), one CQ, and two RC QPs
 * connected to each other through port 1's RoCE v2 GID of an IPv4
 * address, so that rxe loops the packets back without a wire. qa is the
 * requester: its RDMA READs and WRITEs go to qb's side, the registered
 * "remote" region. The caller owns both buffers.
 */
#ifndef _COWBIRD_BENCH_VERBS_H
#define _COWBIRD_BENCH_VERBS_H

#include <infiniband/verbs.h>
#include <stddef.h>

struct bench_verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* both QPs': only the requester's ops complete */
	struct ibv_qp *qa, *qb;		/* qa reads and writes qb's side */
	struct ibv_mr *lmr, *rmr;	/* the local buffer, the region */
	union ibv_gid gid;
	int gid_index, rd_atom;		/* rd_atom: reads in flight per QP */
	enum ibv_mtu mtu;
};

/*
 * Opens device dev (NULL: the first), registers lbuf (local writes) and
 * region (remote reads and writes), and connects the QPs, each with room
 * for max_wr send WRs and at most max_wr reads in flight (less if the
 * device allows fewer). Returns 0 or a negative errno; bench_verbs_close()
 * undoes whatever was done either way.
 */
int bench_verbs_open(struct bench_verbs *v, const char *dev, unsigned int max_wr,
		     void *lbuf, size_t lsize, void *region, size_t rsize);
void bench_verbs_close(struct bench_verbs *v);

#endif /* _COWBIRD_BENCH_VERBS_H */
