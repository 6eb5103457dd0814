// SPDX-License-Identifier: GPL-2.0
/*
 * The requester side of the EDM host stack (paper 3.2.1): the message queue
 * of the ops a host issues, per destination message ids, the message state
 * table, the answers to those ops, their completion and their timeouts.
 *
 * Writes are posted (the paper's): done when the last chunk leaves. An op
 * with EDM_FAB_OP_ACKED (Cowbird's, which must know a write landed) marks
 * its first and last chunk and asks for a WACK; the memory node checks the
 * chunks arrived back to back (a lost one breaks the run) and answers with
 * the write's end address, ungranted like a request: one block. The op ends
 * on the WACK, an incomplete one as -EPROTO, one past the region as -ERANGE,
 * none as -ETIMEDOUT. /dev/edm's writes ask for it unless posted.
 *
 * Timeouts follow the RTT (1RMA 6.1, TCP's estimator, RFC 6298). Per memory
 * node, the time from a request (or an acknowledged write's last chunk)
 * leaving to its first answer is a sample of SRTT and RTTVAR; the RTO is
 * the larger of 4 SRTT and SRTT + 4 RTTVAR, at least the host's
 * timeout_min_us and at most its timeout_ms (timeout_ms for a node not
 * measured yet). As TCP restarts its timer on every ack, an op times out
 * when neither it nor any op to its node has made progress (an answer, a
 * grant) for an RTO: ops queued behind each other at a busy node wait for
 * their turn. An op with no progress of its own for timeout_ms times out
 * whatever its node does. Cowbird's go-back-N resends at that timeout
 * (cowbird/remote.c).
 *
 * NACKs. Every request carries op->key; a memory node refuses a request with
 * a RERR (or the WACK of a refused write) whose reason becomes the op's
 * status: -EKEYREJECTED for a key that is not (or no longer) the region's,
 * -ERANGE outside the region, -ENXIO when the node serves no region.
 *
 * Order. Per destination, ops of one kind pipeline, but a read or RMW waits
 * until no write to that node is still sending, and a write until no read or
 * RMW is outstanding: with in-order links that makes each op see every op
 * issued before it.
 *
 * Locking: everything under node->lock. The API (submit, sync_op, probe)
 * takes it; edm_fab_host_complete() takes it to collect what completed and
 * calls done() after dropping it. The node's tick (when the next op times
 * out) and submitters kick the poll.
 */
#include <linux/completion.h>
#include <linux/slab.h>

#include "edm/compat.h"
#include "fab.h"
#include "trace.h"

enum edm_op_state {
	EDM_OPS_QUEUED,
	EDM_OPS_WAIT_GRANT,	/* write: /N/ sent */
	EDM_OPS_WAIT_RESP,	/* read, RMW: request sent */
	EDM_OPS_WAIT_ACK,	/* acknowledged write: every chunk sent */
};

struct edm_hdst {
	struct edm_fab_op *wr[EDM_HOST_IDS];
	struct edm_fab_op *rd[EDM_HOST_IDS];
	/* an id whose op timed out rests until then: a late answer finds no op */
	u64 wr_rest[EDM_HOST_IDS];
	u64 rd_rest[EDM_HOST_IDS];
	u8 wr_next, rd_next;
	u16 wr_busy, rd_busy;
	u64 region_size;		/* learnt by a probe */
	bool region_known;
	u64 srtt_ns, rttvar_ns;		/* valid once rtt_samples > 0 */
	u64 rtt_samples;
	u64 heard_ns;			/* an op to it last made progress */
};

static int edm_op_check(const struct edm_fab_host *h, const struct edm_fab_op *op)
{
	if (op->dst > EDM_FAB_ADDR_MAX || (op->flags & ~(EDM_FAB_OP_ACKED | EDM_FAB_OP_DISPATCH)))
		return -EINVAL;
	if (op->dst == h->addr)
		return -EINVAL;
	if (op->opcode == EDM_OP_PROBE)
		return 0;
	if (op->opcode > EDM_OP_MAX || op->addr >= EDM_FAB_REGION_MAX)
		return -EINVAL;
	if (edm_op_is_rmw(op->opcode))
		return op->len == 8 && IS_ALIGNED(op->addr, 8) ? 0 : -EINVAL;
	if (!op->len || op->len > EDM_OP_MAX_LEN || !op->buf)
		return -EINVAL;
	return 0;
}

/* RTT and timeouts */

static u64 edm_rto_max_ns(const struct edm_fab_host *h)
{
	return (u64)h->node->cfg.timeout_ms * NSEC_PER_MSEC;
}

/* How long an op to @d waits for its next answer or grant. */
static u64 edm_rto_ns(const struct edm_fab_host *h, const struct edm_hdst *d)
{
	u64 lo = (u64)h->node->cfg.timeout_min_us * NSEC_PER_USEC;

	if (!d || !d->rtt_samples)
		return edm_rto_max_ns(h);
	return clamp(max(4 * d->srtt_ns, d->srtt_ns + 4 * d->rttvar_ns), lo, edm_rto_max_ns(h));
}

/* A first answer to op came now: a sample of its node's RTT. */
static void edm_rtt_sample(struct edm_fab_host *h, struct edm_fab_op *op, u64 now)
{
	struct edm_hdst *d = h->dst[op->dst];
	u64 r = now - op->sent_ns;

	edm_rtt_update(&d->srtt_ns, &d->rttvar_ns, r, !d->rtt_samples);
	d->rtt_samples++;
	trace_edm_fab_rtt(h->node->name, op->dst, r, d->srtt_ns, d->rttvar_ns, edm_rto_ns(h, d));
}

/*
 * The default dispatch bound: twice the longest op timeout. An op may wait
 * for one of the other kind to its node, which ends within one timeout even
 * when lost, and then for its own kind's ids, resting for one more after a
 * loss; waiting longer than that is congestion here.
 */
static u64 edm_dispatch_ns(const struct edm_fab_host *h)
{
	return 2 * edm_rto_max_ns(h);
}

/* When an op still queued times out: ten times the longest timeout from @from. */
static u64 edm_queued_deadline(const struct edm_fab_host *h, u64 from)
{
	return from + edm_rto_max_ns(h) * 10;
}

/* op made progress now: an answer or grant came for it. */
static void edm_op_heard(struct edm_fab_host *h, struct edm_fab_op *op, u64 now)
{
	op->active_ns = now;
	h->dst[op->dst]->heard_ns = now;
}

/* When issued op times out unless it or another op to its node moves. */
static u64 edm_op_due(const struct edm_fab_host *h, const struct edm_fab_op *op)
{
	const struct edm_hdst *d = h->dst[op->dst];

	return min(op->active_ns + edm_rto_max_ns(h),
		   max(op->active_ns, d->heard_ns) + edm_rto_ns(h, d));
}

/* Completion */

static void edm_op_model(struct edm_fab_port *p, struct edm_fab_op *op)
{
	struct edm_timing_params tp;
	struct edm_timing_result r;
	struct edm_timing_op t = {
		.kind = op->opcode == EDM_OP_WRITE ? EDM_TIMING_WRITE :
			edm_op_is_rmw(op->opcode) ? EDM_TIMING_RMW : EDM_TIMING_READ,
		.bytes = op->len ? op->len : 8,
	};

	if (edm_timing_params_init(&tp, p->cfg.rate_mbps) || edm_timing_model(&tp, &t, &r))
		op->model_ns = 0;
	else
		op->model_ns = div_u64(r.total_ps, 1000);
}

/*
 * Frees op's message id. The answer to an op that timed out may still be on
 * its way (its request waited in the switch, or a chunk of it was lost and
 * the rest comes): its id rests for one more timeout, so that answer finds
 * no op, counted as stray, instead of the next op given the id.
 */
static void edm_op_unslot(struct edm_fab_host *h, struct edm_fab_op *op, int status)
{
	struct edm_hdst *d = h->dst[op->dst];
	u64 rest = 0;

	if (op->state == EDM_OPS_QUEUED || !d)
		return;
	if (status == -ETIMEDOUT)
		rest = edm_fab_now_ns() + edm_rto_max_ns(h);
	if (op->id < EDM_HOST_RD_ID0) {
		d->wr[op->id] = NULL;
		d->wr_rest[op->id] = rest;
		d->wr_busy--;
	} else {
		d->rd[op->id - EDM_HOST_RD_ID0] = NULL;
		d->rd_rest[op->id - EDM_HOST_RD_ID0] = rest;
		d->rd_busy--;
	}
}

void edm_op_finish(struct edm_fab_host *h, struct edm_fab_op *op, int status)
{
	lockdep_assert_held(&h->node->lock);
	edm_op_unslot(h, op, status);
	list_move_tail(&op->list, &h->completed);
	h->nops--;
	op->status = status;
	op->lat_ns = edm_fab_now_ns() - op->start_ns;
	if (status) {
		h->st[status == -ETIMEDOUT ? EDM_A_FSTAT_TIMEOUTS : EDM_A_FSTAT_ERRORS]++;
		trace_edm_fab_op_done(h->node->name, op, status, op->lat_ns, 0);
		return;
	}
	op->bytes = op->opcode == EDM_OP_PROBE ? 0 : op->len;
	edm_op_model(edm_host_port(h), op);
	trace_edm_fab_op_done(h->node->name, op, 0, op->lat_ns, op->model_ns);
	switch (op->opcode) {
	case EDM_OP_READ:
		h->st[EDM_A_FSTAT_READS]++;
		h->st[EDM_A_FSTAT_READ_BYTES] += op->len;
		break;
	case EDM_OP_WRITE:
		h->st[EDM_A_FSTAT_WRITES]++;
		h->st[EDM_A_FSTAT_WRITE_BYTES] += op->len;
		break;
	case EDM_OP_PROBE:
		break;
	default:
		h->st[EDM_A_FSTAT_RMWS]++;
	}
}

/* Call done() for what the poll completed; without the lock. */
void edm_fab_host_complete(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_fab_op *op, *tmp;
	LIST_HEAD(done);

	spin_lock_bh(&n->lock);
	list_splice_init(&h->completed, &done);
	spin_unlock_bh(&n->lock);
	list_for_each_entry_safe(op, tmp, &done, list) {
		list_del_init(&op->list);
		op->done(op);
	}
}

/* Issue */

static struct edm_hdst *edm_hdst_get(struct edm_fab_host *h, u32 dst)
{
	if (!h->dst[dst])
		h->dst[dst] = kzalloc(sizeof(*h->dst[dst]), GFP_ATOMIC);
	return h->dst[dst];
}

/* A free id, or -1; then *wake is when the first resting one is free, if earlier. */
static int edm_id_take(struct edm_fab_op **slot, const u64 *rest, u8 *next, u16 *busy,
		       u64 *wake)
{
	u64 now = edm_fab_now_ns();
	u32 i, id;

	if (*busy >= EDM_HOST_IDS)
		return -1;
	for (i = 0; i < EDM_HOST_IDS; i++) {
		id = (*next + i) % EDM_HOST_IDS;
		if (slot[id])
			continue;
		if (rest[id] <= now) {
			*next = id + 1;
			(*busy)++;
			return id;
		}
		*wake = min(*wake, rest[id]);
	}
	return -1;
}

static u32 edm_mux_need(const struct edm_fab_op *op)
{
	if (op->opcode == EDM_OP_WRITE)
		return 1;
	return edm_pcs_msg_nblocks(edm_op_is_rmw(op->opcode) ? EDM_RMWREQ_BYTES : EDM_RREQ_BYTES);
}

static void edm_req_put(struct edm_fab_host *h, struct edm_fab_op *op)
{
	struct edm_fab_port *p = edm_host_port(h);
	struct edm_pcs_msg_hdr hdr = {
		.dest = op->dst, .src = h->addr, .id = op->id,
	};
	__le64 pl[EDM_RMWREQ_BYTES / 8];

	if (edm_op_is_rmw(op->opcode)) {
		hdr.kind = EDM_PCS_RMWREQ;
		hdr.len = EDM_RMWREQ_BYTES;
		pl[0] = cpu_to_le64(edm_rmwreq_word(op->addr, op->opcode));
		pl[1] = cpu_to_le64(op->arg0);
		pl[2] = cpu_to_le64(op->arg1);
	} else {
		hdr.kind = EDM_PCS_RREQ;
		hdr.len = EDM_RREQ_BYTES;
		pl[0] = cpu_to_le64(edm_rreq_word(op->addr,
						  op->opcode == EDM_OP_PROBE ? 0 : op->len));
	}
	/* the key is a request's last word */
	pl[hdr.len / 8 - 1] = cpu_to_le64(op->key);
	edm_mux_put_msg(p, &hdr, (const u8 *)pl);
}

/* Can op go now without overtaking an op of the other kind? */
static int edm_op_issue(struct edm_fab_host *h, struct edm_fab_op *op, u64 *wake)
{
	struct edm_fab_port *p = edm_host_port(h);
	struct edm_pcs_ng ng;
	struct edm_hdst *d;
	u64 now;
	int id;

	d = edm_hdst_get(h, op->dst);
	if (!d || edm_mux_space(&p->mux) < edm_mux_need(op))
		return -EAGAIN;
	if (op->opcode == EDM_OP_WRITE) {
		if (d->rd_busy)
			return -EAGAIN;
		id = edm_id_take(d->wr, d->wr_rest, &d->wr_next, &d->wr_busy, wake);
		if (id < 0)
			return -EAGAIN;
		d->wr[id] = op;
		op->id = id;
		ng.dest = op->dst;
		ng.id = id;
		ng.size = op->len;
		edm_mux_put_ng(p, false, &ng);
		h->st[EDM_A_FSTAT_NOTIFS]++;
		op->state = EDM_OPS_WAIT_GRANT;
	} else {
		if (d->wr_busy)
			return -EAGAIN;
		id = edm_id_take(d->rd, d->rd_rest, &d->rd_next, &d->rd_busy, wake);
		if (id < 0)
			return -EAGAIN;
		d->rd[id] = op;
		op->id = EDM_HOST_RD_ID0 + id;
		edm_req_put(h, op);
		op->state = EDM_OPS_WAIT_RESP;
	}
	now = edm_fab_now_ns();
	if (!op->issued_ns)
		op->issued_ns = now;
	op->sent_ns = now;
	op->active_ns = now;
	list_move_tail(&op->list, &h->inflight);
	trace_edm_fab_op_issue(h->node->name, op, h->addr, op->dst, op->id);
	*wake = min(*wake, edm_op_due(h, op));
	return 0;
}

/*
 * The message queue: oldest first, never past a blocked op to the same node.
 * Returns when an op waiting only for a resting id can go or an op it
 * issued is due (the node's tick polls then), or U64_MAX.
 */
u64 edm_host_issue(struct edm_fab_host *h)
{
	DECLARE_BITMAP(blocked, EDM_FAB_ADDR_MAX + 1);
	struct edm_fab_op *op, *tmp;
	u64 wake = U64_MAX;

	lockdep_assert_held(&h->node->lock);
	if (!edm_fab_port_up(edm_host_port(h)))
		return U64_MAX;
	bitmap_zero(blocked, EDM_FAB_ADDR_MAX + 1);
	list_for_each_entry_safe(op, tmp, &h->queue, list) {
		if (test_bit(op->dst, blocked))
			continue;
		if (edm_op_issue(h, op, &wake))
			__set_bit(op->dst, blocked);
	}
	return wake;
}

/* Grants: send a write's chunk */

void edm_host_write_chunk(struct edm_fab_host *h, const struct edm_gq_ent *g)
{
	struct edm_hdst *d = h->dst[g->dest];
	struct edm_fab_op *op = d ? d->wr[g->id] : NULL;
	struct edm_pcs_msg_hdr hdr;
	u64 word, now;
	u32 n;

	lockdep_assert_held(&h->node->lock);
	/* a grant from a switch we left: its op was issued again on ours */
	if (!op || op->state != EDM_OPS_WAIT_GRANT || g->port != h->active) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	n = min3(g->size, op->len - op->progress, (u32)EDM_FAB_CHUNK_MAX);
	/* first and last tell the memory node where a write begins and ends */
	word = (op->addr + op->progress) | (op->progress ? 0 : EDM_WREQ_FIRST) |
	       (op->progress + n == op->len ? EDM_WREQ_LAST : 0);
	if (op->flags & EDM_FAB_OP_ACKED)
		word |= EDM_WREQ_ACK;
	put_unaligned_le64(word, h->wbuf);
	put_unaligned_le64(op->key, h->wbuf + 8);
	memcpy(h->wbuf + EDM_WREQ_HDR_BYTES, (u8 *)op->buf + op->progress, n);
	hdr = (struct edm_pcs_msg_hdr){
		.dest = g->dest, .src = h->addr, .id = g->id, .kind = EDM_PCS_WREQ,
		.len = EDM_WREQ_HDR_BYTES + n,
	};
	if (edm_mux_put_msg(edm_host_port(h), &hdr, h->wbuf))
		return;		/* lost like on a wire; the write times out */
	op->progress += n;
	now = edm_fab_now_ns();
	edm_op_heard(h, op, now);
	if (op->progress != op->len)
		return;
	if (!(op->flags & EDM_FAB_OP_ACKED)) {
		edm_op_finish(h, op, 0);	/* posted: nothing acknowledges it */
		return;
	}
	op->state = EDM_OPS_WAIT_ACK;
	op->sent_ns = now;
}

/* Answers to this host's ops */

static struct edm_fab_op *edm_host_resp_op(struct edm_fab_host *h,
					   const struct edm_pcs_msg_hdr *hdr)
{
	struct edm_hdst *d = h->dst[hdr->src];

	/* an answer through a switch we left is for an op issued again since */
	if (!d || hdr->id < EDM_HOST_RD_ID0 || h->rx_port != edm_host_port(h))
		return NULL;
	return d->rd[hdr->id - EDM_HOST_RD_ID0];
}

void edm_host_rx_rres(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl)
{
	struct edm_fab_op *op = edm_host_resp_op(h, hdr);
	u64 now = edm_fab_now_ns();

	lockdep_assert_held(&h->node->lock);
	if (!op) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	if (!op->progress)
		edm_rtt_sample(h, op, now);
	edm_op_heard(h, op, now);
	if (op->opcode != EDM_OP_READ) {
		if (hdr->len != EDM_VALUE_BYTES) {
			edm_op_finish(h, op, -EPROTO);
			return;
		}
		op->result = get_unaligned_le64(pl);
		if (op->opcode == EDM_OP_PROBE) {
			h->dst[op->dst]->region_size = op->result;
			h->dst[op->dst]->region_known = true;
		}
		edm_op_finish(h, op, 0);
		return;
	}
	if (hdr->len > op->len - op->progress) {
		edm_op_finish(h, op, -EPROTO);
		return;
	}
	memcpy((u8 *)op->buf + op->progress, pl, hdr->len);
	op->progress += hdr->len;
	if (op->progress == op->len)
		edm_op_finish(h, op, 0);
}

/* The status of an op the memory node refused (NACKed) with @code, an EDM_RERR_*. */
static int edm_nack_errno(u8 code)
{
	switch (code) {
	case EDM_RERR_RANGE:
		return -ERANGE;
	case EDM_RERR_KEY:
		return -EKEYREJECTED;
	case EDM_RERR_GONE:
		return -ENXIO;
	default:
		return -EINVAL;
	}
}

void edm_host_rx_rerr(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl)
{
	struct edm_fab_op *op = edm_host_resp_op(h, hdr);
	u64 now;

	lockdep_assert_held(&h->node->lock);
	if (!op) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	now = edm_fab_now_ns();
	if (!op->progress)
		edm_rtt_sample(h, op, now);
	edm_op_heard(h, op, now);
	edm_op_finish(h, op, edm_nack_errno(hdr->len == 1 ? pl[0] : 0));
}

/* An acknowledged write's answer: done when it names this write's end and says whole. */
void edm_host_rx_wack(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl)
{
	struct edm_hdst *d = h->dst[hdr->src];
	struct edm_fab_op *op = d && hdr->id < EDM_HOST_RD_ID0 &&
				h->rx_port == edm_host_port(h) ? d->wr[hdr->id] : NULL;
	u64 w, now;

	lockdep_assert_held(&h->node->lock);
	if (!op || op->state != EDM_OPS_WAIT_ACK || hdr->len != EDM_VALUE_BYTES) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	w = get_unaligned_le64(pl);
	if (edm_msg_addr(w) != op->addr + op->len) {
		h->st[EDM_A_FSTAT_STRAY]++;	/* an older write's late answer */
		return;
	}
	now = edm_fab_now_ns();
	edm_rtt_sample(h, op, now);
	edm_op_heard(h, op, now);
	if (w & EDM_WACK_RANGE)
		edm_op_finish(h, op, -ERANGE);
	else if (w & EDM_WACK_KEY)
		edm_op_finish(h, op, -EKEYREJECTED);
	else if (w & EDM_WACK_GONE)
		edm_op_finish(h, op, -ENXIO);
	else
		edm_op_finish(h, op, w & EDM_WACK_WHOLE ? 0 : -EPROTO);
}

/* Timeouts: the paper's NULL response when a memory node is gone */

/*
 * An issued op times out as the head comment says; one still queued (its
 * node busy, or the link down) has ten times the longest from submission,
 * or ends -EBUSY at its dispatch bound if it was never issued. Returns
 * when the next op is due, or U64_MAX: the node's tick polls then; sets
 * *rested if an issued op timed out (its id rests).
 */
u64 edm_host_expire(struct edm_fab_host *h, u64 now, bool *rested)
{
	struct edm_fab_op *op, *tmp;
	u64 due = U64_MAX, at;

	lockdep_assert_held(&h->node->lock);
	list_for_each_entry_safe(op, tmp, &h->inflight, list) {
		at = edm_op_due(h, op);
		if (at <= now) {
			edm_op_finish(h, op, -ETIMEDOUT);
			*rested = true;
		} else {
			due = min(due, at);
		}
	}
	list_for_each_entry_safe(op, tmp, &h->queue, list) {
		if (op->deadline_ns > now)
			due = min(due, op->deadline_ns);
		else if (op->flags & EDM_FAB_OP_DISPATCH && !op->sent_ns)
			edm_op_finish(h, op, -EBUSY);	/* never issued */
		else
			edm_op_finish(h, op, -ETIMEDOUT);
	}
	return due;
}

/*
 * Failover to a standby switch (EDM 3.3). A host with two ports issues its
 * ops on the first that is up, and stays there until it goes down. What
 * was on its way through the old switch is gone with it: ops issued there
 * are issued again on the new port, in their order and ahead of the queue,
 * except RMWs, which may have run at the memory node and are not run
 * twice: they end -ENETRESET. A write is sent again whole (the bytes it
 * wrote are the same); a read from its start. An answer or grant for our
 * ops that still comes on the old port (the link came back) is dropped as
 * stray, so their ids are free at once. As a memory node, a host answers
 * each request on the port it came on, whatever port its own ops use, and
 * drops the requests that came on the old port (their grants would have
 * come from the old switch; their requesters issue them again).
 */
static void edm_host_failover(struct edm_fab_host *h, u32 to)
{
	struct edm_fab_op *op, *tmp;
	u64 now = edm_fab_now_ns();
	u32 from = h->active;
	LIST_HEAD(again);

	trace_edm_fab_failover(h->node->name, from, to);
	edm_mux_purge(&edm_host_port(h)->mux);
	WRITE_ONCE(h->active, to);
	h->st[EDM_A_FSTAT_FAILOVERS]++;
	list_for_each_entry_safe(op, tmp, &h->inflight, list) {
		if (edm_op_is_rmw(op->opcode)) {
			edm_op_finish(h, op, -ENETRESET);
			continue;
		}
		edm_op_unslot(h, op, 0);	/* old answers: on the old port, dropped */
		op->state = EDM_OPS_QUEUED;
		op->progress = 0;
		op->deadline_ns = edm_queued_deadline(h, now);
		list_move_tail(&op->list, &again);
	}
	list_splice(&again, &h->queue);
	edm_host_serve_reset(h, from);
	edm_fab_netdev_carrier(h->node, true);
}

/* Under the node lock: move to another port if ours is down and one is up. */
void edm_host_pick(struct edm_fab_host *h)
{
	struct edm_fab_node *n = h->node;
	u32 i;

	lockdep_assert_held(&n->lock);
	if (n->nports < 2 || edm_fab_port_up(edm_host_port(h)))
		return;
	for (i = 0; i < n->nports; i++)
		if (i != h->active && edm_fab_port_up(&n->port[i])) {
			edm_host_failover(h, i);
			return;
		}
}

/* API */

int edm_fab_host_submit(struct edm_fab_node *n, struct edm_fab_op *op)
{
	struct edm_fab_host *h;
	int err;

	if (!edm_fab_node_is_host(n))
		return -EINVAL;
	h = to_host(n);
	err = edm_op_check(h, op);
	if (err)
		return err;
	op->progress = 0;
	op->status = 0;
	op->bytes = 0;
	op->result = 0;
	op->model_ns = 0;
	op->state = EDM_OPS_QUEUED;
	op->start_ns = edm_fab_now_ns();
	trace_edm_fab_op_submit(n->name, op, op->opcode, op->dst, op->addr, op->len);
	op->deadline_ns = edm_queued_deadline(h, op->start_ns);
	op->issued_ns = 0;
	op->sent_ns = 0;
	spin_lock_bh(&n->lock);
	if (n->dead || h->stopped) {
		err = -ENODEV;
	} else if (h->nops >= EDM_HOST_INFLIGHT_MAX) {
		err = -EAGAIN;
	} else if (op->opcode == EDM_OP_WRITE && h->dst[op->dst] &&
		   h->dst[op->dst]->region_known &&
		   !(op->addr <= h->dst[op->dst]->region_size &&
		     op->len <= h->dst[op->dst]->region_size - op->addr)) {
		err = -ERANGE;
	} else {
		if (op->flags & EDM_FAB_OP_DISPATCH)
			op->deadline_ns = op->start_ns + (op->dispatch_ns ?: edm_dispatch_ns(h));
		list_add_tail(&op->list, &h->queue);
		h->nops++;
	}
	spin_unlock_bh(&n->lock);
	if (!err)
		edm_fab_node_kick(n);
	return err;
}

/* The dispatch bound of @n's ops that ask for one without saying how long. */
u64 edm_fab_host_dispatch_ns(struct edm_fab_node *n)
{
	return edm_fab_node_is_host(n) ? edm_dispatch_ns(to_host(n)) : 0;
}

static void edm_sync_done(struct edm_fab_op *op)
{
	complete(op->priv);
}

/* Wait, uninterruptibly: the timeout bounds it and op lives on our stack. */
int edm_fab_host_sync_op(struct edm_fab_node *n, struct edm_fab_op *op)
{
	DECLARE_COMPLETION_ONSTACK(done);
	int err;

	op->done = edm_sync_done;
	op->priv = &done;
	err = edm_fab_host_submit(n, op);
	if (err)
		return err;
	wait_for_completion(&done);
	return op->status;
}

int edm_fab_host_probe(struct edm_fab_node *n, u32 dst, u64 *size)
{
	struct edm_fab_op op = { .opcode = EDM_OP_PROBE, .dst = dst };
	int err;

	err = edm_fab_host_sync_op(n, &op);
	if (!err)
		*size = op.result;
	return err;
}
