// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird's EDM fabric target: an instance whose region lives on a memory
 * node reached through the fabric. The engine turns each op the ring core
 * hands out into an asynchronous fabric op of a compute host (the "via"
 * host), straight between the region and the ring's data buffers, and
 * accounts it when the fabric says it is done.
 *
 * Go-back-N. Ops of a ring are kept in issue order. When one comes back
 * lost (timed out, or its answer was garbled), the ring stops issuing, lets
 * every op still out come back, and then sends again, in order, the lost op
 * and every op issued after it, whatever their own outcome; ops issued before
 * it are accounted as they ended. An op lost COWBIRD_RMT_TRIES times ends
 * with COWBIRD_ST_TIMEOUT. Resending is safe: ops that overlap where one of
 * them writes are never out together (the ring core's range check), and a
 * request is not complete until its ops are accounted.
 *
 * Dispatch (1RMA 4.5, 6.1). An op must enter service within the instance's
 * dispatch bound (create's dispatch_us; by default twice the via host's
 * longest op timeout, fabric/requester.c) or it ends
 * COWBIRD_ST_DISPATCH_TIMEOUT, which cuts the local window to a tenth and is
 * not resent. Service starts when the via host puts the op on the wire: the
 * host ends one still queued at the bound with -EBUSY (EDM_FAB_OP_DISPATCH).
 * An op the via host cannot even take (its queue is full) stays unsent, is
 * offered again on the next pass, and ends the same way once the bound has
 * passed since its first offer.
 *
 * Keys are checked when an op is issued, against the memory node's current
 * key: after a rekey, every new op ends with EACCES. Each op also carries
 * the key to the memory node, which checks it again (fabric/responder.c):
 * an op already out when the region is rekeyed, or whose region went away,
 * is refused there and ends with NACK, which is not congestion and moves no
 * window.
 *
 * Context and locking. The fabric calls cowbird_rmt_done() in BH; it only
 * pushes the op on the instance's lock-free done list and drops the count
 * of ops out. Everything else runs in an engine thread under the
 * instance's serve_lock; a ring's sends of one pass run with BH off, so the
 * via host takes them in one poll. Teardown waits until no op is out (each ends
 * within the via host's timeout), so the fabric never writes into a freed
 * mapping.
 */
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait_bit.h>

#include "edm/cowbird.h"
#include "edm/fabric.h"
#include "trace.h"

/* One op of a remote instance, a slot of its table. */
struct cowbird_rop {
	struct edm_fab_op fop;		/* owned by the fabric while state is OUT */
	struct cowbird_op cop;		/* what the ring core handed out */
	struct list_head list;		/* free list, or its ring's issue-order list */
	struct llist_node done_node;	/* on rmt->done between BH and the engine */
	struct cowbird_inst *inst;
	u64 first_ns;			/* when it was first offered to the fabric */
	u32 seq;			/* issue order in its ring */
	u16 ring;
	u8 state;			/* enum cowbird_rop_state */
	u8 tries;			/* transmissions so far */
};

/* The remote side of an instance. */
struct cowbird_rmt {
	struct edm_fab_node *via;	/* counted: the host that issues the ops */
	struct llist_head done;		/* ops the fabric gave back, from BH */
	atomic_t out;			/* ops with the fabric */
	struct list_head free;		/* free slots */
	u32 nfree;
	struct cowbird_rmt_stats stats;
	struct cowbird_rop rops[];	/* COWBIRD_RMT_SLOTS */
};

enum cowbird_rop_state {
	COWBIRD_ROP_UNSENT,		/* handed out, not (yet again) taken by the fabric */
	COWBIRD_ROP_OUT,		/* with the fabric */
	COWBIRD_ROP_BACK,		/* returned; fop.status says how */
};

/* Status of a fabric op's end; *lost when go-back-N should resend it. */
static u16 cowbird_rmt_status(int err, bool *lost)
{
	*lost = false;
	switch (err) {
	case 0:
		return COWBIRD_ST_OK;
	case -ETIMEDOUT:
	case -EPROTO:
		*lost = true;
		return COWBIRD_ST_TIMEOUT;
	case -ERANGE:
	case -EINVAL:
		return COWBIRD_ST_EFAULT;
	case -EKEYREJECTED:
	case -ENXIO:
		return COWBIRD_ST_NACK;		/* the memory node refused it */
	case -EBUSY:
		return COWBIRD_ST_DISPATCH_TIMEOUT;	/* the via host never issued it */
	default:			/* -ENODEV: the via host is gone */
		return COWBIRD_ST_TIMEOUT;
	}
}

/* BH: the fabric is done with an op. */
static void cowbird_rmt_done(struct edm_fab_op *fop)
{
	struct cowbird_rop *rop = container_of(fop, struct cowbird_rop, fop);
	struct cowbird_rmt *rmt = rop->inst->rmt;

	llist_add(&rop->done_node, &rmt->done);
	/* last touch of the instance: teardown may free it once this reads 0 */
	if (atomic_dec_and_test(&rmt->out))
		wake_up_var(&rmt->out);
}

static void cowbird_rop_free(struct cowbird_rmt *rmt, struct cowbird_rop *rop)
{
	list_move(&rop->list, &rmt->free);
	rmt->nfree++;
}

/* Ends an op for the ring core and the counters; frees its slot. */
static void cowbird_rop_end(struct cowbird_inst *inst, struct cowbird_rop *rop, u16 st, u64 now)
{
	struct cowbird_eng_ring *er = &inst->rings[rop->ring];

	cowbird_ring_op_done(&er->r, &rop->cop, st, now);
	cowbird_engine_account(inst, &rop->cop, st);
	if (st == COWBIRD_ST_TIMEOUT)
		inst->rmt->stats.timeouts++;
	else if (st == COWBIRD_ST_DISPATCH_TIMEOUT)
		inst->rmt->stats.dispatch_timeouts++;
	cowbird_rop_free(inst->rmt, rop);
}

/* Gives an op to the fabric: 0, -EAGAIN (try later) or a final status > 0. */
static int cowbird_rop_send(struct cowbird_inst *inst, struct cowbird_rop *rop, u64 now)
{
	struct cowbird_eng_ring *er = &inst->rings[rop->ring];
	struct cowbird_rmt *rmt = inst->rmt;
	bool write = rop->cop.rw_type == COWBIRD_RW_WRITE;
	int err;

	if (edm_fab_host_region_check(inst->host, inst->region_key))
		return COWBIRD_ST_EACCES;
	if (rop->cop.buf_off > inst->lay.data_size ||
	    rop->cop.length > inst->lay.data_size - rop->cop.buf_off)
		return COWBIRD_ST_EFAULT;	/* the core checked; never trust a bug there */

	rop->fop = (struct edm_fab_op) {
		.opcode = write ? EDM_OP_WRITE : EDM_OP_READ,
		.dst = inst->region_id,
		.addr = rop->cop.region_off,
		.len = rop->cop.length,
		.buf = (write ? er->req : er->resp) + rop->cop.buf_off,
		.key = inst->region_key,
		.done = cowbird_rmt_done,
		/* know a write landed, or resend it */
		.flags = (write ? EDM_FAB_OP_ACKED : 0) | EDM_FAB_OP_DISPATCH,
		.dispatch_ns = inst->dispatch_ns,
	};
	if (!rop->tries)
		rop->first_ns = now;
	atomic_inc(&rmt->out);
	rop->state = COWBIRD_ROP_OUT;
	err = edm_fab_host_submit(rmt->via, &rop->fop);
	if (!err) {
		rop->tries++;
		cowbird_cc_on_issue(inst->cc, cowbird_cc_dst(rop->cop.rw_type), now);
		rmt->stats.sent++;
		return 0;
	}
	rop->state = COWBIRD_ROP_UNSENT;
	atomic_dec(&rmt->out);		/* never reached the fabric: no done() */
	if (err == -EAGAIN) {
		rmt->stats.busy++;
		if (now - rop->first_ns < (inst->dispatch_ns ?: edm_fab_host_dispatch_ns(rmt->via)))
			return -EAGAIN;
		return COWBIRD_ST_DISPATCH_TIMEOUT;
	}
	return err == -ERANGE || err == -EINVAL ? COWBIRD_ST_EFAULT : COWBIRD_ST_TIMEOUT;
}

/*
 * 1RMA's issue delay of an op (6): its wait in the via host's queue, from
 * the submit until it first left for the wire; the whole op if it never
 * left. Not the request's wait in the ring for a window: that wait is the
 * window's own doing, and fed back to the local window it cut it again,
 * down to its floor (a quarter op: one op every 800 us). Not a write's
 * wait for its grant either: that is the switch's, a remote delay.
 */
static u64 cowbird_rop_issue_ns(const struct edm_fab_op *fop)
{
	if (!fop->issued_ns || fop->issued_ns < fop->start_ns)
		return fop->lat_ns;
	return min(fop->issued_ns - fop->start_ns, fop->lat_ns);
}

/* Takes what the fabric returned; called first in every pass. */
static void cowbird_rmt_reap(struct cowbird_inst *inst, u64 now)
{
	struct cowbird_rmt *rmt = inst->rmt;
	struct llist_node *list = llist_reverse_order(llist_del_all(&rmt->done));
	struct cowbird_rop *rop, *tmp;

	llist_for_each_entry_safe(rop, tmp, list, done_node) {
		struct cowbird_eng_ring *er = &inst->rings[rop->ring];
		struct cowbird_rmt_ring *rr = &er->rmt;
		bool lost;
		u16 st = cowbird_rmt_status(rop->fop.status, &lost);

		rop->state = COWBIRD_ROP_BACK;
		rr->out--;
		if (st == COWBIRD_ST_NACK)
			trace_edm_cowbird_nack(inst->id, rop->ring,
					       rop->cop.rw_type == COWBIRD_RW_WRITE,
					       rop->cop.region_off, rop->cop.length,
					       rop->fop.status == -EKEYREJECTED);
		/* a refusal is no sign of congestion: the window sees it as EACCES */
		cowbird_cc_on_complete(inst->cc, cowbird_cc_dst(rop->cop.rw_type),
				       st == COWBIRD_ST_NACK ? COWBIRD_ST_EACCES : st,
				       cowbird_rop_issue_ns(&rop->fop), rop->fop.lat_ns, now);
		if (lost) {
			rmt->stats.lost++;
			if (!rr->gbn || cowbird_before(rop->seq, rr->gbn_seq))
				rr->gbn_seq = rop->seq;
			if (!rr->gbn)
				rmt->stats.gbn_rounds++;
			rr->gbn = true;
		} else if (!rr->gbn) {
			cowbird_rop_end(inst, rop, st, now);
		}
	}
}

/*
 * A ring in go-back-N whose ops are all back: account those before the
 * first loss, resend that one and everything after it in order.
 */
static void cowbird_rmt_rewind(struct cowbird_inst *inst, struct cowbird_rmt_ring *rr, u64 now)
{
	struct cowbird_rop *rop, *tmp;

	list_for_each_entry_safe(rop, tmp, &rr->ops, list) {
		bool lost;
		u16 st = cowbird_rmt_status(rop->fop.status, &lost);

		if (rop->state != COWBIRD_ROP_BACK)
			continue;		/* unsent: goes out in order anyway */
		if (cowbird_before(rop->seq, rr->gbn_seq)) {
			cowbird_rop_end(inst, rop, st, now);
		} else if (lost && rop->tries >= COWBIRD_RMT_TRIES) {
			cowbird_rop_end(inst, rop, COWBIRD_ST_TIMEOUT, now);
		} else {
			rop->state = COWBIRD_ROP_UNSENT;
			inst->rmt->stats.resent++;
		}
	}
	rr->gbn = false;
}

/* Hands the fabric what a ring may send now; how many ops it handled. */
static u32 cowbird_rmt_ring_send(struct cowbird_inst *inst, struct cowbird_eng_ring *er,
				 u64 now)
{
	struct cowbird_rmt_ring *rr = &er->rmt;
	struct cowbird_rmt *rmt = inst->rmt;
	struct cowbird_ring *r = &er->r;
	struct cowbird_rop *rop, *tmp;
	u32 n = 0, dirs;

	/* first what is unsent, oldest first: order on the wire is issue order */
	list_for_each_entry_safe(rop, tmp, &rr->ops, list) {
		int st;

		if (rop->state != COWBIRD_ROP_UNSENT)
			continue;
		if (!cowbird_cc_may_issue(inst->cc, cowbird_cc_dst(rop->cop.rw_type), now))
			return n;
		st = cowbird_rop_send(inst, rop, now);
		if (st == -EAGAIN)
			return n;
		if (st > 0)
			cowbird_rop_end(inst, rop, st, now);
		else
			rr->out++;
		n++;
	}
	while (rmt->nfree && (dirs = cowbird_cc_dirs(inst->cc, now))) {
		int st;

		rop = list_first_entry(&rmt->free, struct cowbird_rop, list);
		if (!cowbird_ring_next_op_dirs(r, now, dirs, &rop->cop))
			break;
		list_move_tail(&rop->list, &rr->ops);
		rmt->nfree--;
		rop->seq = rr->seq++;
		rop->ring = er - inst->rings;
		rop->tries = 0;
		rop->state = COWBIRD_ROP_UNSENT;
		st = cowbird_rop_send(inst, rop, now);
		if (st > 0)
			cowbird_rop_end(inst, rop, st, now);
		else if (!st)
			rr->out++;
		n++;
		if (st == -EAGAIN)
			break;
	}
	return n;
}

/* One pass over one ring of a remote instance; a measure of the work found. */
u32 cowbird_rmt_ring_pass(struct cowbird_inst *inst, struct cowbird_eng_ring *er)
{
	struct cowbird_rmt_ring *rr = &er->rmt;
	struct cowbird_ring *r = &er->r;
	u64 now = ktime_get_ns();
	u32 n = 0;
	int got;

	got = cowbird_ring_fetch(r, r->entries, now);
	if (got)
		trace_edm_cowbird_fetch(inst->id, er - inst->rings, got);
	if (rr->gbn && !rr->out)
		cowbird_rmt_rewind(inst, rr, now);
	if (!rr->gbn) {
		/*
		 * With BH off, the via host's poll runs once, at
		 * local_bh_enable(), with every op of the pass in its queue:
		 * the requests leave in shared bursts, as /dev/edm's batches
		 * do (fabric/cdev.c), instead of each one crossing the
		 * fabric before the next is queued.
		 */
		local_bh_disable();
		n = cowbird_rmt_ring_send(inst, er, now);
		local_bh_enable();
	}
	cowbird_ring_complete(r, true);
	return n + max(got, 0) + cowbird_ring_inflight(r);
}

/* Serves the done list; the engine calls it before the ring passes. */
void cowbird_rmt_pass(struct cowbird_inst *inst)
{
	cowbird_rmt_reap(inst, ktime_get_ns());
}

void cowbird_rmt_get_stats(const struct cowbird_inst *inst, struct cowbird_rmt_stats *s)
{
	*s = inst->rmt->stats;
}

/* Teardown: the instance is dead; wait for the fabric to give every op back. */
void cowbird_rmt_drain(struct cowbird_inst *inst)
{
	wait_var_event(&inst->rmt->out, !atomic_read(&inst->rmt->out));
}

/* Takes over the reference on @via, also on failure. */
int cowbird_rmt_init(struct cowbird_inst *inst, struct edm_fab_node *via)
{
	struct cowbird_rmt *rmt;
	u32 i;

	rmt = kzalloc(struct_size(rmt, rops, COWBIRD_RMT_SLOTS), GFP_KERNEL_ACCOUNT);
	if (!rmt) {
		edm_fab_node_put(via);
		return -ENOMEM;
	}
	rmt->via = via;
	INIT_LIST_HEAD(&rmt->free);
	init_llist_head(&rmt->done);
	atomic_set(&rmt->out, 0);
	for (i = 0; i < COWBIRD_RMT_SLOTS; i++) {
		rmt->rops[i].inst = inst;
		list_add_tail(&rmt->rops[i].list, &rmt->free);
	}
	rmt->nfree = COWBIRD_RMT_SLOTS;
	for (i = 0; i < inst->lay.nr_rings; i++)
		INIT_LIST_HEAD(&inst->rings[i].rmt.ops);
	inst->rmt = rmt;
	return 0;
}

/* After cowbird_rmt_drain(), or when no op was ever sent. */
void cowbird_rmt_free(struct cowbird_inst *inst)
{
	if (!inst->rmt)
		return;
	edm_fab_node_put(inst->rmt->via);
	kfree(inst->rmt);
	inst->rmt = NULL;
}
