// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: hostile user space against Cowbird's ring core
 * (cowbird/ring.c). The input drives a producer that writes sound
 * entries, raw entries with any field values, and any book words, and an
 * engine that fetches, hands out ops, ends them in any order with any status,
 * and publishes. Checked after every step, against a shadow written
 * independently (a reference entry checker in 64-bit arithmetic):
 *
 *  - every fetched entry gets the reference verdict, and only accepted
 *    entries produce ops;
 *  - every op lies inside the region and inside the data buffer, is at most
 *    COWBIRD_OP_MAX bytes, and a request's ops tile it in order;
 *  - a request's first op goes only when no older unfinished request
 *    overlaps it with a write on either side, and reads (and writes) start
 *    in index order;
 *  - published progress never goes back nor past what was fetched, every
 *    request below it is finished, and its record says so;
 *  - a broken book stops the ring for good.
 * The mapping's parts are separate exact-size allocations, so ASan sees any
 * stray access.
 */
#include <stdlib.h>
#include <string.h>

#include "edm/cowbird_ring.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

enum { MAXE = 64, RID = 5 };

struct sreq {
	u64 off;
	u32 len, buf, issued, done;
	u16 type, status;
	bool live;		/* fetched, not finished */
	bool started;
};

static struct {
	const u8 *p;
	size_t n;
} in;

static u64 take(unsigned int bytes)
{
	u64 v = 0;

	while (bytes--) {
		v = v << 8 | (in.n ? *in.p : 0);
		if (in.n) {
			in.p++;
			in.n--;
		}
	}
	return v;
}

/* The reference verdict, written from the ABI's rules, not from ring.c. */
static u16 ref_check(const struct cowbird_meta *e, u32 index, u32 *dpos, u32 dtail, u32 dsize,
		     u64 rsize, struct sreq *s)
{
	u64 pos = *dpos, local, remote, place;

	if (e->rw_type != COWBIRD_RW_READ && e->rw_type != COWBIRD_RW_WRITE)
		return COWBIRD_ST_EINVAL;
	if (e->index != index || e->pad || e->length < 1 || e->length > dsize / 2)
		return COWBIRD_ST_EINVAL;
	place = (pos % dsize) + e->length > dsize ? pos - pos % dsize + dsize : pos;
	if ((s32)(dtail - (u32)(place + e->length)) < 0)
		return COWBIRD_ST_EFAULT;
	local = e->rw_type == COWBIRD_RW_READ ? e->resp_addr : e->req_addr;
	if (local != place % dsize)
		return COWBIRD_ST_EFAULT;
	*dpos = (u32)(place + e->length);
	s->buf = (u32)local;
	if (e->region_id != RID)
		return COWBIRD_ST_EACCES;
	remote = e->rw_type == COWBIRD_RW_READ ? e->req_addr : e->resp_addr;
	if ((unsigned __int128)remote + e->length > rsize)
		return COWBIRD_ST_EFAULT;
	s->off = remote;
	return COWBIRD_ST_OK;
}

struct world {
	struct cowbird_ring r;
	struct cowbird_book *book;
	struct cowbird_meta *meta;
	struct cowbird_cqe *cq;
	struct cowbird_req *reqs;
	u32 entries, dsize;
	u64 rsize;
	u32 ptail, pdata;		/* the sound producer's view */
	u32 fetched, sdpos;		/* the shadow's cursor and data position */
	u32 pub_rd, pub_wr;
	struct sreq s[MAXE];
	struct cowbird_op out[MAXE * 4];
	u32 nout;
};

static void produce_sound(struct world *w)
{
	u16 type = take(1) & 1 ? COWBIRD_RW_READ : COWBIRD_RW_WRITE;
	u32 len = 1 + take(2) % (w->dsize / 2), place, head = COWBIRD_POS_IDX(w->book->head);
	struct cowbird_meta *m;

	if (w->ptail - head >= w->entries)
		return;
	place = cowbird_data_place(w->pdata, len, w->dsize);
	if (place + len - COWBIRD_POS_DATA(w->book->head) > w->dsize)
		return;
	m = &w->meta[w->ptail & (w->entries - 1)];
	m->region_id = RID;
	m->length = len;
	m->index = w->ptail;
	m->pad = 0;
	m->req_addr = type == COWBIRD_RW_READ ? take(3) % w->rsize : place % w->dsize;
	m->resp_addr = type == COWBIRD_RW_READ ? place % w->dsize : take(3) % w->rsize;
	m->rw_type = type;
	w->pdata = place + len;
	w->book->tail = COWBIRD_POS(++w->ptail, w->pdata);
}

static void produce_raw(struct world *w)
{
	struct cowbird_meta *m = &w->meta[take(1) % w->entries];

	m->rw_type = take(1) % 4;
	m->region_id = take(1) % 2 ? RID : take(2);
	m->length = take(1) % 2 ? take(2) : take(4);
	m->req_addr = take(1) % 2 ? take(2) : take(8);
	m->resp_addr = take(1) % 2 ? take(2) : take(8);
	m->index = take(1) % 2 ? w->ptail : take(4);
	m->pad = take(1) % 8 ? 0 : 1;
}

static void scribble(struct world *w)
{
	u64 v = take(1) % 2 ? COWBIRD_POS(w->ptail + take(1) % 3 - 1, w->pdata + take(1)) : take(8);

	if (take(1) % 2)
		w->book->tail = v;
	else
		w->book->head = v;
}

static void fetch(struct world *w)
{
	u32 before = w->r.cursor, dtail, i;
	u64 tail = w->book->tail;
	bool was_err = w->r.error;
	struct cowbird_meta copy[MAXE];
	int n;

	memcpy(copy, w->meta, w->entries * sizeof(*copy));
	n = cowbird_ring_fetch(&w->r, 1 + take(1) % w->entries, 7);
	if (was_err)
		CHECK(n == -EPROTO);
	if (n < 0) {
		CHECK(n == -EPROTO && w->r.error && w->book->error == w->r.error);
		return;
	}
	CHECK(w->r.cursor == before + n);
	dtail = COWBIRD_POS_DATA(tail);
	for (i = before; i != w->r.cursor; i++) {
		struct sreq *s = &w->s[i & (w->entries - 1)];
		const struct cowbird_meta *e = &copy[i & (w->entries - 1)];

		CHECK(!s->live);
		memset(s, 0, sizeof(*s));
		s->type = e->rw_type == COWBIRD_RW_READ ? COWBIRD_RW_READ : COWBIRD_RW_WRITE;
		s->len = e->length;
		s->status = ref_check(e, i, &w->sdpos, dtail, w->dsize, w->rsize, s);
		s->live = s->status == COWBIRD_ST_OK;
		CHECK(w->reqs[i & (w->entries - 1)].status == s->status);
	}
	CHECK(w->sdpos == w->r.dpos);
}

static bool conflicts(const struct sreq *a, const struct sreq *b)
{
	return (a->type == COWBIRD_RW_WRITE || b->type == COWBIRD_RW_WRITE) &&
	       a->off < b->off + b->len && b->off < a->off + a->len;
}

static void next_op(struct world *w)
{
	struct cowbird_op *o = &w->out[w->nout];
	struct sreq *s;
	u32 i;

	if (w->nout == MAXE * 4 || !cowbird_ring_next_op(&w->r, 9, o))
		return;
	CHECK(o->length >= 1 && o->length <= COWBIRD_OP_MAX);
	CHECK(o->region_off + o->length <= w->rsize);
	CHECK((u64)o->buf_off + o->length <= w->dsize);
	CHECK(!cowbird_before(o->index, w->r.cursor - w->entries) &&
	      cowbird_before(o->index, w->r.cursor));
	s = &w->s[o->index & (w->entries - 1)];
	CHECK(s->live && s->type == o->rw_type);
	CHECK(o->region_off == s->off + s->issued && o->buf_off == s->buf + s->issued);
	if (!s->started) {
		for (i = w->r.cursor - w->entries; i != o->index; i++) {
			const struct sreq *t = &w->s[i & (w->entries - 1)];

			if (!t->live)
				continue;
			CHECK(!conflicts(t, s));
			CHECK(t->type != s->type || t->started);
		}
	}
	s->started = true;
	s->issued += o->length;
	CHECK(s->issued <= s->len);
	w->nout++;
}

static void op_done(struct world *w)
{
	u32 k = take(1) % (w->nout ? w->nout : 1);
	u16 st = take(1) % 8 ? COWBIRD_ST_OK : take(1) % (COWBIRD_ST_MAX + 1);
	struct sreq *s;

	if (!w->nout)
		return;
	s = &w->s[w->out[k].index & (w->entries - 1)];
	CHECK(!cowbird_ring_op_done(&w->r, &w->out[k], st, 11));
	if (st != COWBIRD_ST_OK && s->status == COWBIRD_ST_OK)
		s->status = st;
	s->done += w->out[k].length;
	if (s->done == s->len)
		s->live = false;
	w->out[k] = w->out[--w->nout];
	CHECK(cowbird_ring_op_done(&w->r, &(struct cowbird_op){ .index = w->r.cursor + 1 },
				   COWBIRD_ST_OK, 0) == -EINVAL);
}

static void publish(struct world *w)
{
	u32 rd, wr, i;

	cowbird_ring_complete(&w->r, take(1) % 2);
	rd = w->book->rd_done;
	wr = w->book->wr_done;
	CHECK(!cowbird_before(rd, w->pub_rd) && !cowbird_before(wr, w->pub_wr));
	CHECK(!cowbird_before(w->r.cursor, rd) && !cowbird_before(w->r.cursor, wr));
	for (i = w->pub_rd; i != rd; i++) {
		const struct sreq *s = &w->s[i & (w->entries - 1)];

		if (s->type == COWBIRD_RW_READ)
			CHECK(!s->live && w->cq[i & (w->entries - 1)].status == s->status &&
			      w->cq[i & (w->entries - 1)].index == i);
	}
	for (i = w->pub_wr; i != wr; i++) {
		const struct sreq *s = &w->s[i & (w->entries - 1)];

		if (s->type == COWBIRD_RW_WRITE)
			CHECK(!s->live && w->cq[i & (w->entries - 1)].status == s->status);
	}
	w->pub_rd = rd;
	w->pub_wr = wr;
}

/* The library's reaper: frees what is published, clears rw_type, moves head. */
static void reap(struct world *w)
{
	u32 lim = cowbird_before(w->pub_rd, w->pub_wr) ? w->pub_rd : w->pub_wr;
	u32 h = COWBIRD_POS_IDX(w->book->head);

	if (!cowbird_before(h, lim) || cowbird_before(w->ptail, lim) || lim - h > w->entries)
		return;
	for (; h != lim; h++)
		w->meta[h & (w->entries - 1)].rw_type = 0;
	/* Data: all of it once everything is free, else keep the old head. */
	w->book->head = COWBIRD_POS(lim, lim == w->ptail ? w->pdata :
				    COWBIRD_POS_DATA(w->book->head));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct world w;
	struct cowbird_ring_cfg rc;
	int steps;

	in.p = data;
	in.n = size;
	memset(&w, 0, sizeof(w));
	w.entries = 1u << (4 + take(1) % 3);
	w.dsize = 1u << (12 + take(1) % 3);
	w.rsize = 1 + take(3);
	w.book = calloc(1, sizeof(*w.book));
	w.meta = calloc(w.entries, sizeof(*w.meta));
	w.cq = calloc(w.entries, sizeof(*w.cq));
	w.reqs = calloc(w.entries, sizeof(*w.reqs));
	rc = (struct cowbird_ring_cfg){
		.book = w.book, .meta = w.meta, .cq = w.cq, .reqs = w.reqs,
		.region_size = w.rsize, .entries = w.entries, .data_size = w.dsize,
		.batch = 1 + take(1) % 8, .region_id = RID,
	};
	CHECK(!cowbird_ring_init(&w.r, &rc));

	for (steps = 0; in.n && steps < 4096; steps++) {
		switch (take(1) % 16) {
		case 0 ... 4:	produce_sound(&w); break;
		case 5:		produce_raw(&w); break;
		case 6:		scribble(&w); break;
		case 7 ... 8:	fetch(&w); break;
		case 9 ... 11:	next_op(&w); break;
		case 12 ... 13:	op_done(&w); break;
		case 14:	publish(&w); break;
		default:	reap(&w); break;
		}
		if (w.r.error)
			CHECK(w.book->error == w.r.error);
	}
	free(w.book);
	free(w.meta);
	free(w.cq);
	free(w.reqs);
	return 0;
}
