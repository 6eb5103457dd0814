// SPDX-License-Identifier: GPL-2.0
/*
 * The EDM host stack (paper 3.2.1): a requester's message queue, per
 * destination message ids, the message state table and the grant queue; and
 * a memory node serving its region (reads, writes, compare-and-swap,
 * fetch-and-add and swap on 8-byte words, executed here and so atomic).
 *
 * Messages (payloads little endian):
 *   /N/ {dest, id, size}       a WREQ of size bytes wants to go to dest
 *   WREQ {addr:48 | flags:16, data}  one granted chunk of a write
 *   RREQ {addr:48 | len:16}    read len bytes (len 0: the region size)
 *   RMWREQ {addr:48 | op:8, arg0:8, arg1:8}
 *   RRES {data}                one granted chunk of the answer
 *   RERR {errno code:1}        the request was refused
 *   WACK {end:48 | ok:16}      an acknowledged write arrived whole (or not)
 * Ids 0..127 are writes, 128..255 reads and RMWs: a /G/ a host receives is
 * for its own write or for a request it serves, and the id tells which.
 *
 * Writes are posted (the paper's): done when the last chunk leaves. An op
 * with EDM_FAB_OP_ACKED (Cowbird's, which must know a write landed) marks
 * its first and last chunk and asks for a WACK; the memory node checks the
 * chunks arrived back to back (a lost one breaks the run) and answers with
 * the write's end address, ungranted like a request: one block. The op ends
 * on the WACK, an incomplete one as -EPROTO, none as -ETIMEDOUT.
 *
 * Order. Per destination, ops of one kind pipeline, but a read or RMW waits
 * until no write to that node is still sending, and a write until no read or
 * RMW is outstanding: with in-order links that makes each op see every op
 * issued before it.
 *
 * Locking: everything under node->lock; done() callbacks run in the poll
 * after the lock is dropped. A timer (timeouts) and submitters kick the poll.
 */
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <asm/unaligned.h>

#include "fab.h"
#include "trace.h"

enum {
	EDM_HOST_IDS		= 128,		/* per kind and destination */
	EDM_HOST_RD_ID0		= 128,
	EDM_HOST_GQ		= 1024,		/* grant queue entries */
	EDM_HOST_INFLIGHT_MAX	= 8192,		/* queued + in flight, per host */
	EDM_KIND_RERR		= EDM_PCS_NR_KINDS,
	EDM_KIND_WACK,
	EDM_RERR_RANGE		= 1,
	EDM_RERR_INVAL		= 2,
	EDM_OP_PROBE		= 0xff,		/* internal: region size */
};

enum edm_op_state {
	EDM_OPS_QUEUED,
	EDM_OPS_WAIT_GRANT,	/* write: /N/ sent */
	EDM_OPS_WAIT_RESP,	/* read, RMW: request sent */
	EDM_OPS_WAIT_ACK,	/* acknowledged write: every chunk sent */
};

/* WREQ address word: the chunk's address and, for acknowledged writes, flags. */
#define EDM_WREQ_ADDR_MASK	(BIT_ULL(48) - 1)
#define EDM_WREQ_FIRST		BIT_ULL(63)
#define EDM_WREQ_LAST		BIT_ULL(62)
#define EDM_WREQ_ACK		BIT_ULL(61)

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
};

/*
 * A request this memory node is answering. Nothing is read or changed before
 * the request's grant: see edm_host_serve_chunk().
 */
struct edm_served {
	u64 addr;
	u32 len;
	u32 sent;
	u8 err;				/* EDM_RERR_*, 0: none */
	u8 rmw;				/* an RMW's opcode until it runs, 0: none */
	bool value;			/* answer with @val, not region bytes */
	u64 val;
	u64 arg0, arg1;			/* the RMW's operands */
};

struct edm_gq_ent {
	u16 dest;
	u8 id;
	u32 size;
};

struct edm_fab_host {
	struct edm_fab_node *node;
	u32 addr;
	struct edm_hdst *dst[EDM_FAB_ADDR_MAX + 1];
	struct list_head queue;		/* message queue: not yet issued */
	struct list_head inflight;	/* issued, oldest first */
	struct list_head completed;	/* for done(), outside the lock */
	u32 nops;
	struct edm_gq_ent gq[EDM_HOST_GQ];
	u32 gq_head, gq_tail;
	struct xarray served;		/* (src << 8 | id) -> edm_served */
	struct xarray wruns;		/* (src << 8 | id) -> acked write's next address */
	u8 *region;
	u64 region_size;
	u64 region_key;			/* what a Cowbird instance must present */
	u32 region_key_gen;		/* rekeys so far */
	u64 region_st[__EDM_A_RSTAT_CNT];	/* accesses through the key */
	struct list_head regions;	/* on edm_fab_regions while the host lives */
	struct timer_list timer;
	bool stopped;
	u8 *wbuf;			/* a WREQ payload being built */
	u64 st[__EDM_A_FSTAT_CNT];
	int minor;
	void *cdev;
};

static struct edm_fab_host *to_host(const struct edm_fab_node *n)
{
	return n->host;
}

static bool edm_op_is_rmw(u32 opcode)
{
	return opcode == EDM_OP_CAS || opcode == EDM_OP_FADD || opcode == EDM_OP_SWAP;
}

static int edm_op_check(const struct edm_fab_host *h, const struct edm_fab_op *op)
{
	if (op->dst > EDM_FAB_ADDR_MAX || (op->flags & ~EDM_FAB_OP_ACKED))
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
		rest = edm_fab_now_ns() + (u64)h->node->cfg.timeout_ms * NSEC_PER_MSEC;
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

static void edm_op_finish(struct edm_fab_host *h, struct edm_fab_op *op, int status)
{
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
	edm_op_model(&h->node->port[0], op);
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

static int edm_id_take(struct edm_fab_op **slot, const u64 *rest, u8 *next, u16 *busy)
{
	u64 now = edm_fab_now_ns();
	u32 i, id;

	if (*busy >= EDM_HOST_IDS)
		return -1;
	for (i = 0; i < EDM_HOST_IDS; i++) {
		id = (*next + i) % EDM_HOST_IDS;
		if (!slot[id] && rest[id] <= now) {
			*next = id + 1;
			(*busy)++;
			return id;
		}
	}
	return -1;
}

static u32 edm_mux_need(const struct edm_fab_op *op)
{
	if (op->opcode == EDM_OP_WRITE)
		return 1;
	return edm_pcs_msg_nblocks(edm_op_is_rmw(op->opcode) ? 24 : 8);
}

static void edm_req_put(struct edm_fab_host *h, struct edm_fab_op *op)
{
	struct edm_fab_port *p = &h->node->port[0];
	struct edm_pcs_msg_hdr hdr = {
		.dest = op->dst, .src = h->addr, .id = op->id,
	};
	__le64 pl[3];

	if (edm_op_is_rmw(op->opcode)) {
		hdr.kind = EDM_PCS_RMWREQ;
		hdr.len = 24;
		pl[0] = cpu_to_le64(op->addr | (u64)op->opcode << 48);
		pl[1] = cpu_to_le64(op->arg0);
		pl[2] = cpu_to_le64(op->arg1);
	} else {
		hdr.kind = EDM_PCS_RREQ;
		hdr.len = 8;
		pl[0] = cpu_to_le64(op->addr |
				    (u64)(op->opcode == EDM_OP_PROBE ? 0 : op->len) << 48);
	}
	edm_mux_put_msg(p, &hdr, (const u8 *)pl);
}

/* Can op go now without overtaking an op of the other kind? */
static int edm_op_issue(struct edm_fab_host *h, struct edm_fab_op *op)
{
	struct edm_fab_port *p = &h->node->port[0];
	struct edm_pcs_ng ng;
	struct edm_hdst *d;
	int id;

	d = edm_hdst_get(h, op->dst);
	if (!d || edm_mux_space(&p->mux) < edm_mux_need(op))
		return -EAGAIN;
	if (op->opcode == EDM_OP_WRITE) {
		if (d->rd_busy)
			return -EAGAIN;
		id = edm_id_take(d->wr, d->wr_rest, &d->wr_next, &d->wr_busy);
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
		id = edm_id_take(d->rd, d->rd_rest, &d->rd_next, &d->rd_busy);
		if (id < 0)
			return -EAGAIN;
		d->rd[id] = op;
		op->id = EDM_HOST_RD_ID0 + id;
		edm_req_put(h, op);
		op->state = EDM_OPS_WAIT_RESP;
	}
	op->deadline_ns = edm_fab_now_ns() + (u64)h->node->cfg.timeout_ms * NSEC_PER_MSEC;
	list_move_tail(&op->list, &h->inflight);
	trace_edm_fab_op_issue(h->node->name, op, h->addr, op->dst, op->id);
	return 0;
}

/* The message queue: oldest first, never past a blocked op to the same node. */
static void edm_host_issue(struct edm_fab_host *h)
{
	DECLARE_BITMAP(blocked, EDM_FAB_ADDR_MAX + 1);
	struct edm_fab_op *op, *tmp;

	if (!edm_fab_port_up(&h->node->port[0]))
		return;
	bitmap_zero(blocked, EDM_FAB_ADDR_MAX + 1);
	list_for_each_entry_safe(op, tmp, &h->queue, list) {
		if (test_bit(op->dst, blocked))
			continue;
		if (edm_op_issue(h, op))
			__set_bit(op->dst, blocked);
	}
}

/* Grants: send a write's chunk, or a served request's answer */

static void edm_host_write_chunk(struct edm_fab_host *h, const struct edm_gq_ent *g)
{
	struct edm_hdst *d = h->dst[g->dest];
	struct edm_fab_op *op = d ? d->wr[g->id] : NULL;
	struct edm_pcs_msg_hdr hdr;
	u64 word;
	u32 n;

	if (!op || op->state != EDM_OPS_WAIT_GRANT) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	n = min3(g->size, op->len - op->progress, (u32)EDM_FAB_CHUNK_MAX);
	word = op->addr + op->progress;
	if (op->flags & EDM_FAB_OP_ACKED)
		word |= EDM_WREQ_ACK | (op->progress ? 0 : EDM_WREQ_FIRST) |
			(op->progress + n == op->len ? EDM_WREQ_LAST : 0);
	put_unaligned_le64(word, h->wbuf);
	memcpy(h->wbuf + 8, (u8 *)op->buf + op->progress, n);
	hdr = (struct edm_pcs_msg_hdr){
		.dest = g->dest, .src = h->addr, .id = g->id, .kind = EDM_PCS_WREQ, .len = 8 + n,
	};
	if (edm_mux_put_msg(&h->node->port[0], &hdr, h->wbuf))
		return;		/* lost like on a wire; the write times out */
	op->progress += n;
	if (op->progress != op->len)
		return;
	if (!(op->flags & EDM_FAB_OP_ACKED)) {
		edm_op_finish(h, op, 0);	/* posted: nothing acknowledges it */
		return;
	}
	op->state = EDM_OPS_WAIT_ACK;
	op->deadline_ns = edm_fab_now_ns() + (u64)h->node->cfg.timeout_ms * NSEC_PER_MSEC;
}

/* Runs a served RMW on its word, under node->lock: atomic against every access. */
static void edm_host_rmw_run(struct edm_fab_host *h, struct edm_served *s)
{
	/* words are little endian, as on the wire */
	__le64 *word = (__le64 *)(h->region + s->addr);

	s->value = true;
	s->val = le64_to_cpu(*word);
	if (s->rmw == EDM_OP_CAS) {
		if (s->val == s->arg0)
			*word = cpu_to_le64(s->arg1);
	} else if (s->rmw == EDM_OP_FADD) {
		*word = cpu_to_le64(s->val + s->arg0);
	} else {
		*word = cpu_to_le64(s->arg0);
	}
	s->rmw = 0;
	h->st[EDM_A_FSTAT_SERVED_RMWS]++;
}

/*
 * One granted chunk of a served request's answer. The region is read, and an
 * RMW run, only here, when the grant arrives: the switch grants a pair's
 * messages one after the other in the order they were issued, so a READ and
 * an RMW (or two RMWs) from one requester act on the region in that order.
 * Running an RMW when its request arrived would let it overtake a READ
 * issued before it whose grants were still queued.
 */
static void edm_host_serve_chunk(struct edm_fab_host *h, const struct edm_gq_ent *g)
{
	unsigned long key = (unsigned long)g->dest << 8 | g->id;
	struct edm_served *s = xa_load(&h->served, key);
	struct edm_pcs_msg_hdr hdr = { .dest = g->dest, .src = h->addr, .id = g->id };
	__le64 val;
	u8 code;
	u32 n;

	if (!s) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	if (s->err) {
		code = s->err;
		hdr.kind = EDM_KIND_RERR;
		hdr.len = 1;
		edm_mux_put_msg(&h->node->port[0], &hdr, &code);
		s->sent = s->len;
	} else if (s->value || s->rmw) {
		if (s->rmw)
			edm_host_rmw_run(h, s);
		val = cpu_to_le64(s->val);
		hdr.kind = EDM_PCS_RRES;
		hdr.len = 8;
		if (!edm_mux_put_msg(&h->node->port[0], &hdr, (u8 *)&val))
			s->sent = s->len;
	} else {
		n = min(g->size, s->len - s->sent);
		hdr.kind = EDM_PCS_RRES;
		hdr.len = n;
		if (!edm_mux_put_msg(&h->node->port[0], &hdr, h->region + s->addr + s->sent))
			s->sent += n;
	}
	if (s->sent == s->len) {
		xa_erase(&h->served, key);
		kfree(s);
	}
}

static void edm_host_grants(struct edm_fab_host *h)
{
	struct edm_fab_port *p = &h->node->port[0];
	struct edm_gq_ent *g;

	while (h->gq_head != h->gq_tail) {
		/* room for the largest chunk this grant may ask */
		g = &h->gq[h->gq_head % EDM_HOST_GQ];
		if (edm_mux_space(&p->mux) < edm_pcs_msg_nblocks(min_t(u32, g->size + 8,
								       EDM_PCS_MSG_MAX)))
			return;
		h->gq_head++;
		if (g->id < EDM_HOST_RD_ID0)
			edm_host_write_chunk(h, g);
		else
			edm_host_serve_chunk(h, g);
	}
}

/* Receive */

static void edm_host_served_new(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
				struct edm_served *s)
{
	unsigned long key = (unsigned long)hdr->src << 8 | hdr->id;
	struct edm_served *old;

	old = xa_store(&h->served, key, s, GFP_ATOMIC);
	if (xa_is_err(old)) {
		kfree(s);
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	kfree(old);	/* a request whose answer was never granted */
}

static bool edm_region_ok(const struct edm_fab_host *h, u64 addr, u64 len)
{
	return h->region && addr <= h->region_size && len <= h->region_size - addr;
}

static void edm_host_rx_rreq(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			     const u8 *pl)
{
	struct edm_served *s;
	u64 w, addr;
	u32 len;

	if (hdr->id < EDM_HOST_RD_ID0 || hdr->len != 8) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return;
	w = get_unaligned_le64(pl);
	addr = w & GENMASK_ULL(47, 0);
	len = w >> 48;
	if (!len) {
		s->value = true;
		s->val = h->region_size;
		s->len = 8;
	} else if (!edm_region_ok(h, addr, len)) {
		s->err = EDM_RERR_RANGE;
		s->len = 1;
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
	} else {
		s->addr = addr;
		s->len = len;
		h->st[EDM_A_FSTAT_SERVED_READS]++;
	}
	edm_host_served_new(h, hdr, s);
}

/* Kept until its grant, which runs it (edm_host_serve_chunk()). */
static void edm_host_rx_rmw(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			    const u8 *pl)
{
	struct edm_served *s;
	u64 w, addr;
	u32 op;

	if (hdr->id < EDM_HOST_RD_ID0 || hdr->len != 24) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return;
	w = get_unaligned_le64(pl);
	addr = w & GENMASK_ULL(47, 0);
	op = (w >> 48) & 0xff;
	s->len = 8;
	if (!edm_op_is_rmw(op) || !IS_ALIGNED(addr, 8) || !edm_region_ok(h, addr, 8)) {
		s->err = edm_op_is_rmw(op) ? EDM_RERR_RANGE : EDM_RERR_INVAL;
		s->len = 1;
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		edm_host_served_new(h, hdr, s);
		return;
	}
	s->addr = addr;
	s->rmw = op;
	s->arg0 = get_unaligned_le64(pl + 8);
	s->arg1 = get_unaligned_le64(pl + 16);
	edm_host_served_new(h, hdr, s);
}

/*
 * Follows an acknowledged write's chunks: each must start where the last
 * ended. On its last chunk, answers with a WACK carrying the end address
 * and whether the run was whole (a lost chunk breaks it: the sender resends).
 */
static void edm_host_wrun(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, u64 word,
			  u64 end)
{
	unsigned long key = (unsigned long)hdr->src << 8 | hdr->id;
	u64 start = word & EDM_WREQ_ADDR_MASK;
	struct edm_pcs_msg_hdr ack = {
		.dest = hdr->src, .src = h->addr, .id = hdr->id, .kind = EDM_KIND_WACK, .len = 8,
	};
	void *next = xa_load(&h->wruns, key);
	bool whole;
	__le64 pl;

	if (word & EDM_WREQ_FIRST)
		whole = true;
	else
		whole = next && xa_to_value(next) == start;
	if (!(word & EDM_WREQ_LAST)) {
		/* a broken run stays broken: 0 is never a next address (chunks are not empty) */
		if (xa_is_err(xa_store(&h->wruns, key, xa_mk_value(whole ? end : 0), GFP_ATOMIC)))
			h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	xa_erase(&h->wruns, key);
	pl = cpu_to_le64(end | (u64)whole << 48);
	if (edm_mux_put_msg(&h->node->port[0], &ack, (const u8 *)&pl))
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;	/* the sender times out and resends */
}

static void edm_host_rx_wreq(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			     const u8 *pl)
{
	u64 addr, word;
	u32 n;

	if (hdr->len < 8) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	word = get_unaligned_le64(pl);
	addr = word & EDM_WREQ_ADDR_MASK;
	n = hdr->len - 8;
	if ((word & ~EDM_WREQ_ADDR_MASK & ~(EDM_WREQ_FIRST | EDM_WREQ_LAST | EDM_WREQ_ACK)) ||
	    !edm_region_ok(h, addr, n)) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	memcpy(h->region + addr, pl + 8, n);
	h->st[EDM_A_FSTAT_SERVED_WRITES]++;
	if (word & EDM_WREQ_ACK)
		edm_host_wrun(h, hdr, word, addr + n);
}

static struct edm_fab_op *edm_host_resp_op(struct edm_fab_host *h,
					   const struct edm_pcs_msg_hdr *hdr)
{
	struct edm_hdst *d = h->dst[hdr->src];

	if (!d || hdr->id < EDM_HOST_RD_ID0)
		return NULL;
	return d->rd[hdr->id - EDM_HOST_RD_ID0];
}

static void edm_host_rx_rres(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			     const u8 *pl)
{
	struct edm_fab_op *op = edm_host_resp_op(h, hdr);

	if (!op) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	if (op->opcode != EDM_OP_READ) {
		if (hdr->len != 8) {
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

static void edm_host_rx_rerr(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			     const u8 *pl)
{
	struct edm_fab_op *op = edm_host_resp_op(h, hdr);

	if (!op) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	edm_op_finish(h, op, hdr->len == 1 && pl[0] == EDM_RERR_RANGE ? -ERANGE : -EINVAL);
}

/* An acknowledged write's answer: done when it names this write's end and says whole. */
static void edm_host_rx_wack(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			     const u8 *pl)
{
	struct edm_hdst *d = h->dst[hdr->src];
	struct edm_fab_op *op = d && hdr->id < EDM_HOST_RD_ID0 ? d->wr[hdr->id] : NULL;
	u64 w;

	if (!op || op->state != EDM_OPS_WAIT_ACK || hdr->len != 8) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	w = get_unaligned_le64(pl);
	if ((w & EDM_WREQ_ADDR_MASK) != op->addr + op->len) {
		h->st[EDM_A_FSTAT_STRAY]++;	/* an older write's late answer */
		return;
	}
	edm_op_finish(h, op, w >> 48 == 1 ? 0 : -EPROTO);
}

static void edm_host_rx_msg(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			    const u8 *pl)
{
	if (hdr->dest != h->addr) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	if (hdr->kind != EDM_PCS_RRES && hdr->kind != EDM_KIND_RERR &&
	    hdr->kind != EDM_KIND_WACK)
		trace_edm_fab_serve(h->node->name, hdr->src, hdr->dest, hdr->id, hdr->len);
	switch (hdr->kind) {
	case EDM_PCS_RREQ:
		edm_host_rx_rreq(h, hdr, pl);
		break;
	case EDM_PCS_RMWREQ:
		edm_host_rx_rmw(h, hdr, pl);
		break;
	case EDM_PCS_WREQ:
		edm_host_rx_wreq(h, hdr, pl);
		break;
	case EDM_PCS_RRES:
		edm_host_rx_rres(h, hdr, pl);
		break;
	case EDM_KIND_RERR:
		edm_host_rx_rerr(h, hdr, pl);
		break;
	case EDM_KIND_WACK:
		edm_host_rx_wack(h, hdr, pl);
		break;
	default:
		h->st[EDM_A_FSTAT_STRAY]++;
	}
}

static void edm_host_rx_grant(struct edm_fab_host *h, const struct edm_pcs_ng *ng)
{
	struct edm_gq_ent *g;

	h->st[EDM_A_FSTAT_GRANTS_RX]++;
	if (h->gq_tail - h->gq_head >= EDM_HOST_GQ) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	g = &h->gq[h->gq_tail++ % EDM_HOST_GQ];
	g->dest = ng->dest;
	g->id = ng->id;
	g->size = ng->size;
}

void edm_fab_host_rx(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n)
{
	struct edm_fab_host *h = to_host(p->node);
	struct edm_pcs_event ev;
	u32 i;

	for (i = 0; i < n; i++) {
		if (edm_pcs_dec_block(&p->dec, &b[i], &ev)) {
			p->stats.rx_bad++;
			continue;
		}
		switch (ev.type) {
		case EDM_PCS_EV_MSG:
			edm_host_rx_msg(h, &ev.hdr, p->dec.msg);
			break;
		case EDM_PCS_EV_GRANT:
			edm_host_rx_grant(h, &ev.ng);
			break;
		case EDM_PCS_EV_FRAME:
			edm_fab_netdev_rx(p->node, p->dec.frame, ev.len);
			break;
		case EDM_PCS_EV_NOTIFY:
			h->st[EDM_A_FSTAT_STRAY]++;
			break;
		default:
			break;
		}
	}
}

/* Timeouts: the paper's NULL response when a memory node is gone */

/*
 * An op has the timeout from the moment its request leaves; one still queued
 * (its node busy, or the link down) has ten times that from submission.
 */
static void edm_host_expire(struct edm_fab_host *h, u64 now)
{
	struct edm_fab_op *op, *tmp;

	list_for_each_entry_safe(op, tmp, &h->inflight, list)
		if (op->deadline_ns <= now)
			edm_op_finish(h, op, -ETIMEDOUT);
	list_for_each_entry_safe(op, tmp, &h->queue, list)
		if (op->deadline_ns <= now)
			edm_op_finish(h, op, -ETIMEDOUT);
}

static void edm_host_timer(struct timer_list *t)
{
	struct edm_fab_host *h = from_timer(h, t, timer);

	edm_fab_node_kick(h->node);
}

static void edm_host_arm(struct edm_fab_host *h)
{
	u32 ms = max(h->node->cfg.timeout_ms / 4, 1U);

	if ((!list_empty(&h->inflight) || !list_empty(&h->queue)) && !h->stopped &&
	    !timer_pending(&h->timer))
		mod_timer(&h->timer, jiffies + msecs_to_jiffies(ms));
}

void edm_fab_host_poll(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);

	edm_host_grants(h);
	edm_host_issue(h);
	edm_host_expire(h, edm_fab_now_ns());
	edm_host_arm(h);
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
	op->deadline_ns = op->start_ns + (u64)n->cfg.timeout_ms * NSEC_PER_MSEC * 10;
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
		list_add_tail(&op->list, &h->queue);
		h->nops++;
	}
	spin_unlock_bh(&n->lock);
	if (!err)
		edm_fab_node_kick(n);
	return err;
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

u32 edm_fab_host_addr(const struct edm_fab_node *n)
{
	return to_host(n)->addr;
}

int edm_fab_host_minor(const struct edm_fab_node *n)
{
	return to_host(n)->minor;
}

void edm_fab_host_set_cdev(struct edm_fab_node *n, void *cdev, int minor)
{
	to_host(n)->cdev = cdev;
	to_host(n)->minor = minor;
}

void *edm_fab_host_cdev(const struct edm_fab_node *n)
{
	return to_host(n)->cdev;
}

void edm_fab_host_stats(struct edm_fab_node *n, struct edm_fab_node_stats *st)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_fab_op *op;
	u64 q = 0, f = 0;

	lockdep_assert_held(&n->lock);
	memcpy(st->v, h->st, sizeof(st->v));
	list_for_each_entry(op, &h->queue, list)
		q++;
	list_for_each_entry(op, &h->inflight, list)
		f++;
	st->v[EDM_A_FSTAT_QUEUED] = q;
	st->v[EDM_A_FSTAT_INFLIGHT] = f;
}

/*
 * The local region for Cowbird (cowbird/). A region is named by its
 * host's fabric address and proven by its key; the key lives under
 * node->lock, which every access through it takes, so a rekey cuts off
 * every instance at once (cowbird/region_nl.c).
 */

/*
 * Every host with a region, for the root-only debugfs file that lists those
 * of every netns with their keys (netlink shows each netns its own). A
 * spinlock, BH: the last node reference may go in BH. Order:
 * edm_fab_regions_lock, node->lock.
 */
static LIST_HEAD(edm_fab_regions);
static DEFINE_SPINLOCK(edm_fab_regions_lock);	/* protects edm_fab_regions */

/* One line per live region: netns inode, fabric address, host name, size, key. */
void edm_fab_regions_show(struct seq_file *m)
{
	struct edm_fab_host *h;

	spin_lock_bh(&edm_fab_regions_lock);
	list_for_each_entry(h, &edm_fab_regions, regions) {
		struct edm_fab_node *n = h->node;

		spin_lock(&n->lock);
		if (!n->dead)
			seq_printf(m, "%u %u %s %llu 0x%016llx\n", n->net->ns.inum, h->addr,
				   n->name, h->region_size, h->region_key);
		spin_unlock(&n->lock);
	}
	spin_unlock_bh(&edm_fab_regions_lock);
}

/* 0 when @n serves a region at fabric address @addr; its size and key. */
int edm_fab_host_region(struct edm_fab_node *n, u32 addr, u64 *size, u64 *key)
{
	struct edm_fab_host *h = to_host(n);
	int err = -ENOENT;

	spin_lock_bh(&n->lock);
	if (!n->dead && h->addr == addr && h->region) {
		*size = h->region_size;
		*key = h->region_key;
		err = 0;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/* Under node->lock: whether @key opens @n's region; a refusal is counted. */
static bool edm_region_key_ok(struct edm_fab_node *n, u64 key)
{
	struct edm_fab_host *h = to_host(n);

	lockdep_assert_held(&n->lock);
	if (!n->dead && h->region && h->region_key == key)
		return true;
	h->region_st[EDM_A_RSTAT_ACCESS_ERRORS]++;
	return false;
}

/*
 * Copies len bytes between the region at off and buf, under node->lock so
 * the copy is atomic against the fabric's own reads, writes and RMWs.
 * -EACCES when the key is no longer the region's or the host is gone. The
 * caller has checked off and len against the size edm_fab_host_region()
 * gave, which never changes.
 */
int edm_fab_host_region_io(struct edm_fab_node *n, u64 key, u64 off, void *buf, u32 len,
			   bool write)
{
	struct edm_fab_host *h = to_host(n);
	int err = 0;

	spin_lock_bh(&n->lock);
	if (!edm_region_key_ok(n, key)) {
		err = -EACCES;
	} else if (off > h->region_size || len > h->region_size - off) {
		err = -EFAULT;
		h->region_st[EDM_A_RSTAT_RANGE_ERRORS]++;
	} else if (write) {
		memcpy(h->region + off, buf, len);
		h->region_st[EDM_A_RSTAT_WRITES]++;
		h->region_st[EDM_A_RSTAT_WRITE_BYTES] += len;
	} else {
		memcpy(buf, h->region + off, len);
		h->region_st[EDM_A_RSTAT_READS]++;
		h->region_st[EDM_A_RSTAT_READ_BYTES] += len;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/*
 * For an op that reaches the region some other way (Cowbird's fabric target):
 * 0 when @key is still the region's, else -EACCES, counted like a refused copy.
 */
int edm_fab_host_region_check(struct edm_fab_node *n, u64 key)
{
	bool ok;

	spin_lock_bh(&n->lock);
	ok = edm_region_key_ok(n, key);
	spin_unlock_bh(&n->lock);
	return ok ? 0 : -EACCES;
}

/* 0 and what netlink shows of @n's region, or -ENOENT when it serves none. */
int edm_fab_host_region_info(struct edm_fab_node *n, struct edm_region_info *ri)
{
	struct edm_fab_host *h = to_host(n);
	int err = -ENOENT;

	spin_lock_bh(&n->lock);
	if (!n->dead && h->region) {
		ri->addr = h->addr;
		ri->size = h->region_size;
		ri->key = h->region_key;
		ri->key_gen = h->region_key_gen;
		BUILD_BUG_ON(sizeof(ri->stats) != sizeof(h->region_st));
		memcpy(ri->stats, h->region_st, sizeof(ri->stats));
		err = 0;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/*
 * Draws a new key for @n's region, never the old one, and counts the rekey;
 * the region's bytes are not touched. From the moment node->lock is dropped
 * every access with the old key fails with -EACCES. -ENOENT without a region.
 */
int edm_fab_host_rekey(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	int err = -ENOENT;
	u64 key;

	spin_lock_bh(&n->lock);
	if (!n->dead && h->region) {
		do {
			key = get_random_u64();
		} while (key == h->region_key);
		h->region_key = key;
		h->region_key_gen++;
		err = 0;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/* Lifetime */

int edm_fab_host_create(struct edm_fab_node *n)
{
	struct edm_fab_host *h;

	h = kvzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->wbuf = kvmalloc(EDM_PCS_MSG_MAX, GFP_KERNEL);
	if (!h->wbuf)
		goto err;
	if (n->cfg.region_size) {
		h->region = vzalloc(n->cfg.region_size);
		if (!h->region)
			goto err;
		h->region_size = n->cfg.region_size;
		h->region_key = get_random_u64();
	}
	h->node = n;
	h->addr = n->cfg.addr;
	h->minor = -1;
	INIT_LIST_HEAD(&h->queue);
	INIT_LIST_HEAD(&h->inflight);
	INIT_LIST_HEAD(&h->completed);
	xa_init(&h->served);
	xa_init(&h->wruns);
	timer_setup(&h->timer, edm_host_timer, 0);
	INIT_LIST_HEAD(&h->regions);
	if (h->region) {
		spin_lock_bh(&edm_fab_regions_lock);
		list_add_tail(&h->regions, &edm_fab_regions);
		spin_unlock_bh(&edm_fab_regions_lock);
	}
	n->host = h;
	return 0;
err:
	kvfree(h->wbuf);
	kvfree(h);
	return -ENOMEM;
}

/* Fail every op with ENODEV; the caller runs edm_fab_host_complete(). */
void edm_fab_host_stop(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_fab_op *op, *tmp;

	spin_lock_bh(&n->lock);
	h->stopped = true;
	list_for_each_entry_safe(op, tmp, &h->queue, list)
		edm_op_finish(h, op, -ENODEV);
	list_for_each_entry_safe(op, tmp, &h->inflight, list)
		edm_op_finish(h, op, -ENODEV);
	spin_unlock_bh(&n->lock);
	del_timer_sync(&h->timer);
}

void edm_fab_host_free(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_served *s;
	unsigned long key;
	u32 i;

	if (!h)
		return;
	spin_lock_bh(&edm_fab_regions_lock);
	list_del(&h->regions);
	spin_unlock_bh(&edm_fab_regions_lock);
	xa_for_each(&h->served, key, s)
		kfree(s);
	xa_destroy(&h->served);
	xa_destroy(&h->wruns);
	for (i = 0; i <= EDM_FAB_ADDR_MAX; i++)
		kfree(h->dst[i]);
	vfree(h->region);
	kvfree(h->wbuf);
	kvfree(h);
}
