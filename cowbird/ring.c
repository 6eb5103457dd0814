// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird's ring protocol, engine side (Cowbird 4.2, 5.2 to 5.4, 6).
 *
 * What it owns: the engine-private state of one thread ring (struct
 * cowbird_ring) and its request table, one struct cowbird_req per entry
 * slot, both in caller memory. What it touches in the shared mapping: it
 * reads the library's half of the book and the entries, and writes the
 * completion records and the engine's half of the book. It never moves data:
 * it hands out ops with offsets it has checked, the caller copies the bytes.
 *
 * The pass an engine makes over a ring:
 *
 *   fetch      snapshot the book, check it, copy and check each ready entry
 *              in index order (a slot whose rw_type is still 0 stops the
 *              fetch: entries are consumed in order, as the switch's probe
 *              does in 5.2);
 *   next_op    hand out the next op of at most COWBIRD_OP_MAX bytes; reads
 *              are handed out in index order among reads, writes among
 *              writes, and a request waits while an older, unfinished request
 *              overlaps it and one of the two is a write (6: only the reads
 *              that need it pause; writes also wait for older overlapping
 *              reads and writes, so an asynchronous target cannot reorder
 *              them either);
 *   op_done    account an op's end and its status;
 *   complete   move the read and write progress over finished requests,
 *              write their completion records, and every `batch`
 *              completions (or when told to flush) publish the progress with
 *              one update of the engine's half of the book.
 *
 * Hostile user space: every user-written word is read once; checks run on
 * the copies; a bad entry is completed with an error status and the data
 * position stays in step whenever the entry's data reservation was sound; a
 * book that breaks the rules stops the ring for good (book.error). The
 * engine's own window (fetched minus completed) bounds the request table
 * whatever the book says.
 *
 * Locking: none; the caller serializes every call on one ring.
 */
#include "edm/core.h"
#include "edm/cowbird_ring.h"

static u32 page_round(u64 n)
{
	return (u32)((n + COWBIRD_PAGE_SIZE - 1) & ~(u64)(COWBIRD_PAGE_SIZE - 1));
}

/* Checks a create request's in-fields; changes nothing. */
int cowbird_layout_check(const struct cowbird_create *c)
{
	if (c->abi_version != COWBIRD_ABI_VERSION)
		return -EPROTO;
	if ((c->flags & ~(COWBIRD_CREATE_FABRIC | COWBIRD_CREATE_SHPOOL)) || c->pad1 || c->rsvd1)
		return -EINVAL;
	if (c->dispatch_us > (c->flags & COWBIRD_CREATE_FABRIC ? COWBIRD_DISPATCH_US_MAX : 0))
		return -EINVAL;
	if ((c->flags & COWBIRD_CREATE_FABRIC) && (c->flags & COWBIRD_CREATE_SHPOOL))
		return -EINVAL;
	if (!(c->flags & (COWBIRD_CREATE_FABRIC | COWBIRD_CREATE_SHPOOL)) && c->via)
		return -EINVAL;
	/* a membership is an edm device: IDs start at 1 */
	if (!(c->flags & COWBIRD_CREATE_SHPOOL) != !c->shpool)
		return -EINVAL;
	if (!c->nr_rings || c->nr_rings > COWBIRD_MAX_RINGS)
		return -EINVAL;
	if (c->meta_order < COWBIRD_META_ORDER_MIN || c->meta_order > COWBIRD_META_ORDER_MAX)
		return -EINVAL;
	if (c->data_order < COWBIRD_DATA_ORDER_MIN || c->data_order > COWBIRD_DATA_ORDER_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Lays out a checked create request's mapping: the books first, then each
 * ring's entries, completion records and two data buffers, page aligned.
 * Fills the request's out-fields but instance_id and region_size.
 */
void cowbird_layout_fill(struct cowbird_create *c, struct cowbird_layout *l)
{
	u32 entries = 1U << c->meta_order;
	u32 meta = page_round((u64)entries * sizeof(struct cowbird_meta));
	u32 cq = page_round((u64)entries * sizeof(struct cowbird_cqe));

	l->nr_rings = c->nr_rings;
	l->entries = entries;
	l->data_size = 1U << c->data_order;
	l->pad = 0;
	l->book_off = 0;
	l->ring_off = page_round((u64)c->nr_rings * sizeof(struct cowbird_book));
	l->meta_off = 0;
	l->cq_off = meta;
	l->req_off = meta + cq;
	l->resp_off = l->req_off + l->data_size;
	l->ring_stride = (u64)l->resp_off + l->data_size;
	l->mmap_size = l->ring_off + l->ring_stride * c->nr_rings;

	c->pad1 = 0;
	c->mmap_size = l->mmap_size;
	c->book_off = l->book_off;
	c->ring_off = l->ring_off;
	c->ring_stride = l->ring_stride;
	c->meta_off = l->meta_off;
	c->cq_off = l->cq_off;
	c->req_off = l->req_off;
	c->resp_off = l->resp_off;
}

static bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

int cowbird_ring_init(struct cowbird_ring *r, const struct cowbird_ring_cfg *cfg)
{
	if (!cfg->book || !cfg->meta || !cfg->cq || !cfg->reqs)
		return -EINVAL;
	if (!is_pow2(cfg->entries) || cfg->entries < (1U << COWBIRD_META_ORDER_MIN) ||
	    cfg->entries > (1U << COWBIRD_META_ORDER_MAX))
		return -EINVAL;
	if (!is_pow2(cfg->data_size) || cfg->data_size < (1U << COWBIRD_DATA_ORDER_MIN) ||
	    cfg->data_size > (1U << COWBIRD_DATA_ORDER_MAX))
		return -EINVAL;
	if (!cfg->batch || cfg->batch > COWBIRD_BATCH_MAX)
		return -EINVAL;

	memset(r, 0, sizeof(*r));
	memset(cfg->reqs, 0, cowbird_ring_reqs_size(cfg->entries));
	r->book = cfg->book;
	r->meta = cfg->meta;
	r->cq = cfg->cq;
	r->reqs = cfg->reqs;
	r->region_size = cfg->region_size;
	r->entries = cfg->entries;
	r->mask = cfg->entries - 1;
	r->data_size = cfg->data_size;
	r->batch = cfg->batch;
	r->region_id = cfg->region_id;
	return 0;
}

/* Reads the library's half of the book once: head before tail, so head <= tail. */
/*
 * Tail first, then head. Head only frees what the engine completed, which it
 * fetched below some tail it saw before this one, so a head read later can
 * never pass this tail. Read the other way round, a stale head and a fresh
 * tail (producers refilled what the library freed in between) look more
 * than a ring apart, and an honest ring would be stopped.
 */
static void cowbird_ring_snapshot(const struct cowbird_book *b, struct cowbird_snap *s)
{
	s->tail = cowbird_load_acquire(&b->tail);
	s->head = cowbird_load_acquire(&b->head);
}

static u32 oldest(u32 a, u32 b)
{
	return cowbird_before(a, b) ? a : b;
}

/*
 * Checks a snapshot against what the engine knows; 0 or the enum
 * cowbird_ring_error it breaks. The head may not pass what the book says is
 * complete, the tail may not fall behind what was fetched nor run more than
 * a ring ahead of the head, and the data tail likewise.
 */
static int cowbird_ring_check_snap(const struct cowbird_ring *r, const struct cowbird_snap *s)
{
	u32 t = COWBIRD_POS_IDX(s->tail), h = COWBIRD_POS_IDX(s->head);
	u32 dt = COWBIRD_POS_DATA(s->tail), dh = COWBIRD_POS_DATA(s->head);

	if (t - r->cursor > r->entries || t - h > r->entries)
		return COWBIRD_RING_ETAIL;
	if (cowbird_before(oldest(r->pub_rd_done, r->pub_wr_done), h))
		return COWBIRD_RING_EHEAD;
	if (dt - r->dpos > r->data_size || dt - dh > r->data_size)
		return COWBIRD_RING_EDATA;
	return 0;
}

/*
 * Checks one entry (a private copy) fetched at index, against the ring's
 * geometry and the data tail of the last snapshot; fills req; returns an
 * enum cowbird_status. *dpos is the data position the entry's payload is
 * placed from: it moves past the payload once the entry's type, length and
 * local address are sound, so a later entry stays in step even when this one
 * fails its region checks. Changes nothing else.
 */
u16 cowbird_entry_check(const struct cowbird_ring *r, const struct cowbird_meta *e, u32 index,
			struct cowbird_req *req, u32 *dpos)
{
	u32 place, local;
	u64 remote;

	memset(req, 0, sizeof(*req));
	req->index = index;
	req->length = e->length;
	req->rw_type = e->rw_type == COWBIRD_RW_READ ? COWBIRD_RW_READ : COWBIRD_RW_WRITE;
	if (e->rw_type != COWBIRD_RW_READ && e->rw_type != COWBIRD_RW_WRITE)
		return COWBIRD_ST_EINVAL;
	req->fetched_rw_type = (u8)e->rw_type;
	if (e->index != index || e->pad)
		return COWBIRD_ST_EINVAL;
	if (!e->length || e->length > r->data_size / 2)
		return COWBIRD_ST_EINVAL;

	place = cowbird_data_place(*dpos, e->length, r->data_size);
	if (cowbird_before(r->dtail, place + e->length))
		return COWBIRD_ST_EFAULT;	/* payload not reserved */
	local = e->rw_type == COWBIRD_RW_READ ? (u32)e->resp_addr : (u32)e->req_addr;
	if ((e->rw_type == COWBIRD_RW_READ ? e->resp_addr : e->req_addr) != local ||
	    local != (place & (r->data_size - 1)))
		return COWBIRD_ST_EFAULT;
	*dpos = place + e->length;
	req->buf_off = local;

	if (e->region_id != r->region_id)
		return COWBIRD_ST_EACCES;
	remote = e->rw_type == COWBIRD_RW_READ ? e->req_addr : e->resp_addr;
	if (remote > r->region_size || e->length > r->region_size - remote)
		return COWBIRD_ST_EFAULT;
	req->region_off = remote;
	return COWBIRD_ST_OK;
}

/* Copies the entry at a slot, rw_type first (acquire), each field once. */
static bool entry_copy(const struct cowbird_meta *m, struct cowbird_meta *e)
{
	e->rw_type = cowbird_load_acquire(&m->rw_type);
	if (e->rw_type == COWBIRD_RW_EMPTY)
		return false;
	e->region_id = COWBIRD_READ_ONCE(m->region_id);
	e->length = COWBIRD_READ_ONCE(m->length);
	e->req_addr = COWBIRD_READ_ONCE(m->req_addr);
	e->resp_addr = COWBIRD_READ_ONCE(m->resp_addr);
	e->index = COWBIRD_READ_ONCE(m->index);
	e->pad = COWBIRD_READ_ONCE(m->pad);
	return true;
}

/* Sets the ring's sticky error and tells the library; the ring is not served again. */
void cowbird_ring_fail(struct cowbird_ring *r, u32 error)
{
	if (r->error || !error)
		return;
	r->error = error;
	cowbird_store_release(&r->book->error, error);
}

/*
 * Fetches up to max ready entries. Returns how many, or -EPROTO when the
 * book broke the rules (now or before).
 */
int cowbird_ring_fetch(struct cowbird_ring *r, u32 max, u64 now)
{
	struct cowbird_snap s;
	struct cowbird_meta e;
	u32 tail, n = 0;
	int err;

	if (r->error)
		return -EPROTO;
	cowbird_ring_snapshot(r->book, &s);
	err = cowbird_ring_check_snap(r, &s);
	if (err) {
		cowbird_ring_fail(r, err);
		return -EPROTO;
	}
	tail = COWBIRD_POS_IDX(s.tail);
	r->dtail = COWBIRD_POS_DATA(s.tail);

	while (n < max && r->cursor != tail &&
	       r->cursor - oldest(r->rd_done, r->wr_done) < r->entries) {
		struct cowbird_req *req = &r->reqs[r->cursor & r->mask];
		u16 st;

		if (!entry_copy(&r->meta[r->cursor & r->mask], &e))
			break;
		st = cowbird_entry_check(r, &e, r->cursor, req, &r->dpos);
		req->status = st;
		req->fetched_ns = now;
		req->state = st == COWBIRD_ST_OK ? COWBIRD_REQ_ACTIVE : COWBIRD_REQ_DONE;
		if (st != COWBIRD_ST_OK)
			r->stats.rejected++;
		r->cursor++;
		r->stats.fetched++;
		n++;
	}
	return n;
}

static bool overlap(const struct cowbird_req *a, const struct cowbird_req *b)
{
	return a->region_off < b->region_off + b->length &&
	       b->region_off < a->region_off + a->length;
}

/* Whether an older unfinished request overlapping req forbids issuing it now. */
static bool blocked(const struct cowbird_ring *r, const struct cowbird_req *req)
{
	u32 i;

	for (i = oldest(r->rd_done, r->wr_done); i != req->index; i++) {
		const struct cowbird_req *o = &r->reqs[i & r->mask];

		if (o->state != COWBIRD_REQ_ACTIVE)
			continue;
		if ((o->rw_type == COWBIRD_RW_WRITE || req->rw_type == COWBIRD_RW_WRITE) &&
		    overlap(o, req))
			return true;
	}
	return false;
}

/* The oldest request of a type at or after *next that still has bytes to hand out. */
static struct cowbird_req *next_of(struct cowbird_ring *r, u32 *next, u16 type)
{
	if (cowbird_before(*next, oldest(r->rd_done, r->wr_done)))
		*next = oldest(r->rd_done, r->wr_done);
	for (; *next != r->cursor; (*next)++) {
		struct cowbird_req *req = &r->reqs[*next & r->mask];

		if (req->rw_type == type && req->state == COWBIRD_REQ_ACTIVE &&
		    req->issued < req->length)
			return req;
	}
	return NULL;
}

static void op_fill(struct cowbird_ring *r, struct cowbird_req *req, u64 now,
		    struct cowbird_op *op)
{
	u32 len = req->length - req->issued;

	if (len > COWBIRD_OP_MAX)
		len = COWBIRD_OP_MAX;
	if (!req->issued)
		req->issue_delay_ns = now - req->fetched_ns;
	op->region_off = req->region_off + req->issued;
	op->buf_off = req->buf_off + req->issued;
	op->length = len;
	op->index = req->index;
	op->rw_type = req->rw_type;
	op->pad = 0;
	req->issued += len;
	r->stats.ops++;
}

/*
 * Hands out the next op: of the oldest read and the oldest write that have
 * bytes left, the older one that may go, of a direction in @dirs
 * (COWBIRD_DIR_*: the engine's windows are per direction). A request's
 * first op checks for conflicts with every older request, issued or not, so
 * passing over the other direction's older request is as safe as passing
 * over a blocked one; its later ops cannot conflict anew, as no older
 * request can appear. Returns false when nothing may go now.
 */
bool cowbird_ring_next_op_dirs(struct cowbird_ring *r, u64 now, u32 dirs, struct cowbird_op *op)
{
	struct cowbird_req *rd, *wr, *cand[2];
	int i;

	if (r->error)
		return false;
	rd = next_of(r, &r->rd_next, COWBIRD_RW_READ);
	wr = next_of(r, &r->wr_next, COWBIRD_RW_WRITE);
	if (rd && wr && cowbird_before(wr->index, rd->index)) {
		cand[0] = wr;
		cand[1] = rd;
	} else {
		cand[0] = rd ? rd : wr;
		cand[1] = rd ? wr : NULL;
	}
	for (i = 0; i < 2 && cand[i]; i++) {
		if (!(dirs & BIT(cand[i]->rw_type)))
			continue;
		if (!cand[i]->issued && blocked(r, cand[i])) {
			if (cand[i]->rw_type == COWBIRD_RW_READ)
				r->stats.rd_blocked++;
			else
				r->stats.wr_blocked++;
			continue;
		}
		op_fill(r, cand[i], now, op);
		return true;
	}
	return false;
}

/* The next op of either direction. */
bool cowbird_ring_next_op(struct cowbird_ring *r, u64 now, struct cowbird_op *op)
{
	return cowbird_ring_next_op_dirs(r, now, COWBIRD_DIRS_ALL, op);
}

/*
 * Accounts the end of an op handed out by next_op. The request keeps its
 * first failure. Returns -EINVAL for an op this ring did not hand out.
 */
int cowbird_ring_op_done(struct cowbird_ring *r, const struct cowbird_op *op, u16 status,
			 u64 now)
{
	struct cowbird_req *req = &r->reqs[op->index & r->mask];

	if (req->index != op->index || req->state != COWBIRD_REQ_ACTIVE ||
	    op->length > req->issued - req->done || status > COWBIRD_ST_MAX)
		return -EINVAL;
	if (status != COWBIRD_ST_OK && req->status == COWBIRD_ST_OK)
		req->status = status;
	req->done += op->length;
	if (req->done == req->length) {
		req->state = COWBIRD_REQ_DONE;
		req->total_delay_ns = now - req->fetched_ns;
	}
	return 0;
}

static void cqe_write(struct cowbird_ring *r, const struct cowbird_req *req)
{
	struct cowbird_cqe *c = &r->cq[req->index & r->mask];

	COWBIRD_WRITE_ONCE(c->index, req->index);
	COWBIRD_WRITE_ONCE(c->status, req->status);
	COWBIRD_WRITE_ONCE(c->rw_type, (u16)req->fetched_rw_type);
	COWBIRD_WRITE_ONCE(c->length, req->status == COWBIRD_ST_OK ? req->length : 0);
	COWBIRD_WRITE_ONCE(c->pad, 0);
	COWBIRD_WRITE_ONCE(c->issue_delay_ns, req->issue_delay_ns);
	COWBIRD_WRITE_ONCE(c->total_delay_ns, req->total_delay_ns);
	r->stats.completed++;
	r->unpublished++;
}

/* Moves one type's progress over finished requests, writing their records. */
static void advance(struct cowbird_ring *r, u32 *done, u16 type)
{
	for (; *done != r->cursor; (*done)++) {
		const struct cowbird_req *req = &r->reqs[*done & r->mask];

		if (req->rw_type != type)
			continue;
		if (req->state != COWBIRD_REQ_DONE)
			break;
		cqe_write(r, req);
	}
}

/*
 * Moves progress and publishes it when `batch` completions are waiting, or
 * when flush is set and any are: the records first, then the counters with
 * release semantics, all in the engine's half of the book. Returns how many
 * completions it published.
 */
u32 cowbird_ring_complete(struct cowbird_ring *r, bool flush)
{
	struct cowbird_book *b = r->book;
	u32 n;

	advance(r, &r->rd_done, COWBIRD_RW_READ);
	advance(r, &r->wr_done, COWBIRD_RW_WRITE);
	if (!r->unpublished || (r->unpublished < r->batch && !flush))
		return 0;

	COWBIRD_WRITE_ONCE(b->consumed, r->cursor);
	cowbird_store_release(&b->rd_done, r->rd_done);
	cowbird_store_release(&b->wr_done, r->wr_done);
	r->pub_rd_done = r->rd_done;
	r->pub_wr_done = r->wr_done;
	r->stats.batches++;
	COWBIRD_WRITE_ONCE(b->batches, r->stats.batches);
	n = r->unpublished;
	r->unpublished = 0;
	return n;
}

/* Entries fetched and not yet complete (or behind one that is not). */
u32 cowbird_ring_inflight(const struct cowbird_ring *r)
{
	return r->cursor - oldest(r->rd_done, r->wr_done);
}
