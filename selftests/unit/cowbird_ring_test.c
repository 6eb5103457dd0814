// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of Cowbird's ring core (cowbird/ring.c): the mapping's
 * layout, the check of hostile entries and books, cutting into 4 KB ops,
 * the read/write range check with per-type order, and batched completions.
 * Expected values are worked by hand from the ABI's rules (uapi/linux/
 * cowbird.h): a ring of 16 entries, data buffers of 4096 bytes, a region of
 * 65536 bytes.
 */
#include <stdlib.h>
#include <string.h>

/* The harness compares expected and seen as given: literals against u32s. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"
#include "edm/cowbird_ring.h"

enum { ENTRIES = 16, DATA = 4096, REGION = 65536, RID = 3 };

struct rig {
	struct cowbird_create c;
	struct cowbird_layout l;
	unsigned char *map;
	struct cowbird_book *book;
	struct cowbird_meta *meta;
	struct cowbird_cqe *cq;
	struct cowbird_ring r;
	struct cowbird_req reqs[ENTRIES];
	u32 idx, dpos;		/* the producer's tail */
};

static int rig_init_order(struct rig *g, u32 batch, u8 data_order)
{
	struct cowbird_ring_cfg rc;

	memset(&g->c, 0, sizeof(g->c));
	g->c.abi_version = COWBIRD_ABI_VERSION;
	g->c.nr_rings = 1;
	g->c.meta_order = 4;
	g->c.data_order = data_order;
	g->c.region_id = RID;
	if (cowbird_layout_check(&g->c))
		return -1;
	cowbird_layout_fill(&g->c, &g->l);
	g->map = calloc(1, g->l.mmap_size);
	g->book = (struct cowbird_book *)(g->map + g->l.book_off);
	g->meta = (struct cowbird_meta *)(g->map + g->l.ring_off + g->l.meta_off);
	g->cq = (struct cowbird_cqe *)(g->map + g->l.ring_off + g->l.cq_off);
	g->idx = g->dpos = 0;
	rc = (struct cowbird_ring_cfg){
		.book = g->book, .meta = g->meta, .cq = g->cq, .reqs = g->reqs,
		.region_size = REGION, .entries = ENTRIES, .data_size = g->l.data_size,
		.batch = batch, .region_id = RID,
	};
	return cowbird_ring_init(&g->r, &rc);
}

static int rig_init(struct rig *g, u32 batch)
{
	return rig_init_order(g, batch, 12);
}

/* Produces an entry as libcowbird does; returns its index. */
static u32 put(struct rig *g, u16 type, u64 remote, u32 len)
{
	struct cowbird_meta *m = &g->meta[g->idx & (ENTRIES - 1)];
	u32 place = cowbird_data_place(g->dpos, len, DATA);

	m->region_id = RID;
	m->length = len;
	m->index = g->idx;
	m->pad = 0;
	m->req_addr = type == COWBIRD_RW_READ ? remote : place & (DATA - 1);
	m->resp_addr = type == COWBIRD_RW_READ ? place & (DATA - 1) : remote;
	m->rw_type = type;
	g->dpos = place + len;
	g->book->tail = COWBIRD_POS(g->idx + 1, g->dpos);
	return g->idx++;
}

/* Frees everything the engine published, as the reaper does. */
static void reap_all(struct rig *g)
{
	u32 lim = g->book->rd_done, i;

	if (cowbird_before(g->book->wr_done, lim))
		lim = g->book->wr_done;
	for (i = COWBIRD_POS_IDX(g->book->head); i != lim; i++)
		g->meta[i & (ENTRIES - 1)].rw_type = 0;
	g->book->head = COWBIRD_POS(lim, g->dpos);
}

static bool op(struct rig *g, struct cowbird_op *o)
{
	return cowbird_ring_next_op(&g->r, 0, o);
}

TEST(layout_by_hand)
{
	struct cowbird_create c = {
		.abi_version = COWBIRD_ABI_VERSION, .nr_rings = 2, .meta_order = 4,
		.data_order = 12,
	};
	struct cowbird_layout l;

	ASSERT_EQ(0, cowbird_layout_check(&c));
	cowbird_layout_fill(&c, &l);
	/* books 2 * 128 -> one page; entries 16 * 32 and records 16 * 32 -> a page each */
	EXPECT_EQ(4096, c.ring_off);
	EXPECT_EQ(0, c.meta_off);
	EXPECT_EQ(4096, c.cq_off);
	EXPECT_EQ(8192, c.req_off);
	EXPECT_EQ(12288, c.resp_off);
	EXPECT_EQ(16384, c.ring_stride);
	EXPECT_EQ(4096 + 2 * 16384, c.mmap_size);
	EXPECT_EQ(16, l.entries);
	EXPECT_EQ(4096, l.data_size);

	c.meta_order = 15;
	c.data_order = 24;
	c.nr_rings = COWBIRD_MAX_RINGS;
	cowbird_layout_fill(&c, &l);
	/* 32768 * 32 = 1 MB each; + 2 * 16 MB */
	EXPECT_EQ(2ull * 1048576 + 2ull * 16777216, c.ring_stride);
	EXPECT_EQ(8192 + 64 * c.ring_stride, c.mmap_size);
}

TEST(create_rejects)
{
	struct cowbird_create ok = {
		.abi_version = COWBIRD_ABI_VERSION, .nr_rings = 1, .meta_order = 4,
		.data_order = 12,
	}, c;

	c = ok; c.abi_version = 2;		EXPECT_EQ(-EPROTO, cowbird_layout_check(&c));
	c = ok; c.flags = 4;			EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.flags = COWBIRD_CREATE_SHPOOL; c.via = 1; c.shpool = 3;
	EXPECT_EQ(0, cowbird_layout_check(&c));
	c.flags |= COWBIRD_CREATE_FABRIC;	EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.shpool = 3;			EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.flags = COWBIRD_CREATE_SHPOOL; c.via = 1;
	EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));	/* no membership */
	c = ok; c.flags = COWBIRD_CREATE_FABRIC; c.shpool = 3;
	EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	/* a dispatch bound is the fabric target's alone, and at most one second */
	c = ok; c.dispatch_us = 1;		EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.flags = COWBIRD_CREATE_SHPOOL; c.via = 1; c.shpool = 3; c.dispatch_us = 10;
	EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.flags = COWBIRD_CREATE_FABRIC; c.via = 1; c.dispatch_us = 10;
	EXPECT_EQ(0, cowbird_layout_check(&c));
	c.dispatch_us = COWBIRD_DISPATCH_US_MAX;	EXPECT_EQ(0, cowbird_layout_check(&c));
	c.dispatch_us = COWBIRD_DISPATCH_US_MAX + 1;
	EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.pad1 = 1;			EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.via = 1;			EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.flags = COWBIRD_CREATE_FABRIC; c.via = 1;
	EXPECT_EQ(0, cowbird_layout_check(&c));
	c = ok; c.rsvd1 = 1;			EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.nr_rings = 0;			EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.nr_rings = 65;		EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.meta_order = 3;		EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.meta_order = 16;		EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.data_order = 11;		EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok; c.data_order = 25;		EXPECT_EQ(-EINVAL, cowbird_layout_check(&c));
	c = ok;					EXPECT_EQ(0, cowbird_layout_check(&c));
}

TEST(data_place)
{
	EXPECT_EQ(100, cowbird_data_place(100, 200, 4096));
	EXPECT_EQ(3996, cowbird_data_place(3996, 100, 4096));	/* ends exactly at 4096 */
	EXPECT_EQ(4096, cowbird_data_place(3997, 100, 4096));	/* would wrap: next lap */
	EXPECT_EQ(8192, cowbird_data_place(4097, 4096, 4096));
	EXPECT_EQ(0, cowbird_data_place(0xfffffff0u, 32, 4096));	/* 2^32 wraps to 0 */
	EXPECT_EQ(0xfffffff0u, cowbird_data_place(0xfffffff0u, 16, 4096));
}

FIXTURE(ring) {
	struct rig g;
};

FIXTURE_SETUP(ring)
{
	ASSERT_EQ(0, rig_init(&self->g, 4));
}

FIXTURE_TEARDOWN(ring)
{
	free(self->g.map);
}

/* A fresh, sound entry at index 0 with data at 0, checked against a data tail of 4096. */
static struct cowbird_meta good(u16 type, u64 remote, u32 len)
{
	struct cowbird_meta e = {
		.rw_type = type, .region_id = RID, .length = len, .index = 0,
	};

	if (type == COWBIRD_RW_READ)
		e.req_addr = remote;
	else
		e.resp_addr = remote;
	return e;
}

static u16 check(struct rig *g, struct cowbird_meta e, u32 *dpos, struct cowbird_req *req)
{
	g->r.dtail = DATA;
	*dpos = 0;
	return cowbird_entry_check(&g->r, &e, 0, req, dpos);
}

TEST_F(ring, hostile_entries)
{
	struct cowbird_req req;
	struct cowbird_meta e;
	u32 dpos;

	e = good(COWBIRD_RW_READ, 100, 50);
	EXPECT_EQ(COWBIRD_ST_OK, check(&self->g, e, &dpos, &req));
	EXPECT_EQ(50, dpos);
	EXPECT_EQ(100, req.region_off);
	EXPECT_EQ(0, req.buf_off);

	e.rw_type = 3;		EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	EXPECT_EQ(0, dpos);
	EXPECT_EQ(COWBIRD_RW_WRITE, req.rw_type);	/* unknown types count as writes */
	EXPECT_EQ(COWBIRD_RW_EMPTY, req.fetched_rw_type);
	e.rw_type = 0xffff;	EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	e = good(COWBIRD_RW_READ, 100, 50);
	e.index = 16;		EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	e.index = 0;
	e.pad = 1;		EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	e.pad = 0;
	e.length = 0;		EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	e.length = DATA / 2 + 1;	EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	e.length = DATA + 1;	EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	e.length = 0xffffffff;	EXPECT_EQ(COWBIRD_ST_EINVAL, check(&self->g, e, &dpos, &req));
	EXPECT_EQ(0, dpos);

	/* The local address must be the place the engine computes, high bits clear. */
	e = good(COWBIRD_RW_READ, 100, 50);
	e.resp_addr = 64;	EXPECT_EQ(COWBIRD_ST_EFAULT, check(&self->g, e, &dpos, &req));
	e.resp_addr = 1ull << 32;
	EXPECT_EQ(COWBIRD_ST_EFAULT, check(&self->g, e, &dpos, &req));
	e = good(COWBIRD_RW_WRITE, 100, 50);
	e.req_addr = 4096;	EXPECT_EQ(COWBIRD_ST_EFAULT, check(&self->g, e, &dpos, &req));
	EXPECT_EQ(0, dpos);

	/* Payload not reserved: data tail short of the end. */
	e = good(COWBIRD_RW_WRITE, 100, 50);
	self->g.r.dtail = 49;
	dpos = 0;
	EXPECT_EQ(COWBIRD_ST_EFAULT, cowbird_entry_check(&self->g.r, &e, 0, &req, &dpos));

	/* Region checks come after the data position moved: dpos stays in step. */
	e = good(COWBIRD_RW_READ, 100, 50);
	e.region_id = RID + 1;	EXPECT_EQ(COWBIRD_ST_EACCES, check(&self->g, e, &dpos, &req));
	EXPECT_EQ(50, dpos);
	e = good(COWBIRD_RW_READ, REGION - 49, 50);
	EXPECT_EQ(COWBIRD_ST_EFAULT, check(&self->g, e, &dpos, &req));
	EXPECT_EQ(50, dpos);
	e = good(COWBIRD_RW_READ, REGION - 50, 50);
	EXPECT_EQ(COWBIRD_ST_OK, check(&self->g, e, &dpos, &req));
	e = good(COWBIRD_RW_WRITE, ~0ull - 8, 50);	/* remote + length overflows */
	EXPECT_EQ(COWBIRD_ST_EFAULT, check(&self->g, e, &dpos, &req));
	e = good(COWBIRD_RW_WRITE, REGION + 1, 1);
	EXPECT_EQ(COWBIRD_ST_EFAULT, check(&self->g, e, &dpos, &req));
}

/* Bad entries complete with their status, in their type's order; good ones still run. */
TEST_F(ring, bad_entries_complete_with_errors)
{
	struct rig *g = &self->g;
	struct cowbird_op o;
	u32 a, b, c;

	a = put(g, COWBIRD_RW_READ, 0, 8);
	b = put(g, COWBIRD_RW_READ, REGION, 8);		/* out of the region */
	c = put(g, COWBIRD_RW_WRITE, 8, 8);
	g->meta[c].region_id = 9;			/* not the instance's region */
	put(g, COWBIRD_RW_READ, 16, 8);
	ASSERT_EQ(4, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_EQ(2, g->r.stats.rejected);
	ASSERT_TRUE(op(g, &o));
	EXPECT_EQ(a, o.index);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	ASSERT_TRUE(op(g, &o));
	EXPECT_EQ(3, o.index);
	EXPECT_EQ(16, o.region_off);
	EXPECT_EQ(24, o.buf_off);			/* three 8-byte payloads before it */
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	EXPECT_FALSE(op(g, &o));
	EXPECT_EQ(4, cowbird_ring_complete(&g->r, true));
	EXPECT_EQ(4, g->book->rd_done);
	EXPECT_EQ(4, g->book->wr_done);
	EXPECT_EQ(COWBIRD_ST_OK, g->cq[a].status);
	EXPECT_EQ(COWBIRD_ST_EFAULT, g->cq[b].status);
	EXPECT_EQ(0, g->cq[b].length);
	EXPECT_EQ(COWBIRD_ST_EACCES, g->cq[c].status);
	EXPECT_EQ(COWBIRD_RW_WRITE, g->cq[c].rw_type);
	EXPECT_EQ(8, g->cq[3].length);
	EXPECT_EQ(3, g->cq[3].index);
}

TEST_F(ring, tail_backwards_is_fatal)
{
	struct rig *g = &self->g;
	struct cowbird_op o;

	put(g, COWBIRD_RW_WRITE, 0, 8);
	put(g, COWBIRD_RW_WRITE, 8, 8);
	ASSERT_EQ(2, cowbird_ring_fetch(&g->r, 100, 0));
	g->book->tail = COWBIRD_POS(1, 16);
	EXPECT_EQ(-EPROTO, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_EQ(COWBIRD_RING_ETAIL, g->book->error);
	g->book->tail = COWBIRD_POS(2, 16);		/* sticky */
	EXPECT_EQ(-EPROTO, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_FALSE(op(g, &o));
}

TEST_F(ring, tail_beyond_head_plus_size)
{
	self->g.book->tail = COWBIRD_POS(ENTRIES + 1, 0);
	EXPECT_EQ(-EPROTO, cowbird_ring_fetch(&self->g.r, 100, 0));
	EXPECT_EQ(COWBIRD_RING_ETAIL, self->g.book->error);
}

TEST_F(ring, tail_exactly_head_plus_size)
{
	struct rig *g = &self->g;
	int i;

	for (i = 0; i < ENTRIES; i++)
		put(g, COWBIRD_RW_READ, 0, 1);
	EXPECT_EQ(ENTRIES, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_EQ(0, g->book->error);
}

TEST_F(ring, head_beyond_completed)
{
	struct rig *g = &self->g;

	put(g, COWBIRD_RW_WRITE, 0, 8);
	ASSERT_EQ(1, cowbird_ring_fetch(&g->r, 100, 0));
	g->book->head = COWBIRD_POS(1, 8);		/* frees what is not done */
	EXPECT_EQ(-EPROTO, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_EQ(COWBIRD_RING_EHEAD, g->book->error);
}

TEST_F(ring, data_tail_beyond_buffer)
{
	self->g.book->tail = COWBIRD_POS(0, DATA + 1);
	EXPECT_EQ(-EPROTO, cowbird_ring_fetch(&self->g.r, 100, 0));
	EXPECT_EQ(COWBIRD_RING_EDATA, self->g.book->error);
}

/* rw_type 0 stops the fetch there, even with entries behind it ready. */
TEST_F(ring, fetch_stops_at_unfilled_slot)
{
	struct rig *g = &self->g;

	put(g, COWBIRD_RW_READ, 0, 8);
	put(g, COWBIRD_RW_READ, 0, 8);
	put(g, COWBIRD_RW_READ, 0, 8);
	g->meta[1].rw_type = 0;
	EXPECT_EQ(1, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_EQ(0, cowbird_ring_fetch(&g->r, 100, 0));
	g->meta[1].rw_type = COWBIRD_RW_READ;
	EXPECT_EQ(2, cowbird_ring_fetch(&g->r, 100, 0));
	EXPECT_EQ(0, g->r.stats.rejected);
}

/* Delays: fetched at 50, first ops at 70 and 71, ended at 100. */
TEST_F(ring, delays)
{
	struct rig *g = &self->g;
	struct cowbird_op o[3];
	int i;

	put(g, COWBIRD_RW_WRITE, 1000, 1000);		/* data 0..1000 */
	put(g, COWBIRD_RW_READ, 20000, 2000);		/* data 1000..3000 */
	ASSERT_EQ(2, cowbird_ring_fetch(&g->r, 100, 50));
	for (i = 0; i < 2; i++)
		ASSERT_TRUE(cowbird_ring_next_op(&g->r, 70 + i, &o[i]));
	EXPECT_FALSE(op(g, &o[2]));
	EXPECT_EQ(1000, o[0].length);
	EXPECT_EQ(0, o[0].buf_off);
	EXPECT_EQ(1000, o[1].buf_off);
	EXPECT_EQ(2000, o[1].length);
	EXPECT_EQ(20000, o[1].region_off);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o[i], COWBIRD_ST_OK, 100));
	EXPECT_EQ(2, cowbird_ring_complete(&g->r, true));
	EXPECT_EQ(20, g->cq[0].issue_delay_ns);
	EXPECT_EQ(21, g->cq[1].issue_delay_ns);
	EXPECT_EQ(50, g->cq[1].total_delay_ns);
}

TEST(cut_10000_bytes)
{
	struct rig g;
	struct cowbird_op o;
	u32 want[] = { 4096, 4096, 1808 }, i;

	ASSERT_EQ(0, rig_init_order(&g, 1, 15));	/* 32 KB data buffers */
	put(&g, COWBIRD_RW_WRITE, 30000, 10000);
	ASSERT_EQ(1, cowbird_ring_fetch(&g.r, 100, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(cowbird_ring_next_op(&g.r, 0, &o));
		EXPECT_EQ(want[i], o.length);
		EXPECT_EQ(30000 + i * 4096, o.region_off);
		EXPECT_EQ(i * 4096, o.buf_off);
		ASSERT_EQ(0, cowbird_ring_op_done(&g.r, &o, i == 1 ? COWBIRD_ST_TIMEOUT :
						  COWBIRD_ST_OK, 0));
		EXPECT_EQ(i < 2 ? 0 : 1, cowbird_ring_complete(&g.r, false));
	}
	EXPECT_FALSE(cowbird_ring_next_op(&g.r, 0, &o));
	EXPECT_EQ(COWBIRD_ST_TIMEOUT, g.cq[0].status);	/* the first failure sticks */
	EXPECT_EQ(1, g.book->wr_done);
	EXPECT_EQ(-EINVAL, cowbird_ring_op_done(&g.r, &o, COWBIRD_ST_OK, 0));
	free(g.map);
}

/*
 * W0 writes [100, 200); R1 reads [150, 160): it waits for W0. R2 reads
 * [300, 310), overlapping nothing, but reads keep their order: it waits
 * behind R1. W3 writes [155, 156), overlapping R1: it waits too (WAR), while
 * W4 at [1000, 1010) goes ahead of both reads.
 */
TEST_F(ring, range_check_and_per_type_order)
{
	struct rig *g = &self->g;
	struct cowbird_op w0, o, r1;

	put(g, COWBIRD_RW_WRITE, 100, 100);
	put(g, COWBIRD_RW_READ, 150, 10);
	put(g, COWBIRD_RW_READ, 300, 10);
	put(g, COWBIRD_RW_WRITE, 155, 1);
	put(g, COWBIRD_RW_WRITE, 1000, 10);
	ASSERT_EQ(5, cowbird_ring_fetch(&g->r, 100, 0));

	ASSERT_TRUE(op(g, &w0));
	EXPECT_EQ(0, w0.index);
	/* W3 overlaps R1 (older, unfinished) and W0: it waits, so W4 may not pass it. */
	EXPECT_FALSE(op(g, &o));
	EXPECT_GT(g->r.stats.rd_blocked, 0);
	EXPECT_GT(g->r.stats.wr_blocked, 0);

	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &w0, COWBIRD_ST_OK, 0));
	ASSERT_TRUE(op(g, &r1));
	EXPECT_EQ(1, r1.index);
	ASSERT_TRUE(op(g, &o));
	EXPECT_EQ(2, o.index);				/* R2: reads do not wait for reads */
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	EXPECT_FALSE(op(g, &o));			/* W3 still waits for R1 */
	/* R2 is done but R1 is not: read progress stays at 1; writes at 3. */
	cowbird_ring_complete(&g->r, true);
	EXPECT_EQ(1, g->book->rd_done);
	EXPECT_EQ(3, g->book->wr_done);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &r1, COWBIRD_ST_OK, 0));
	ASSERT_TRUE(op(g, &o));
	EXPECT_EQ(3, o.index);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	ASSERT_TRUE(op(g, &o));
	EXPECT_EQ(4, o.index);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	cowbird_ring_complete(&g->r, true);
	EXPECT_EQ(5, g->book->rd_done);
	EXPECT_EQ(5, g->book->wr_done);
	EXPECT_EQ(0, cowbird_ring_inflight(&g->r));
}

/*
 * Per-direction windows: with only writes allowed, the older read is passed
 * over and a younger write goes, unless it overlaps the read (the range check
 * holds whatever the directions); nothing of a direction left out is handed
 * out; passing over is not counted as blocked.
 */
TEST_F(ring, next_op_by_direction)
{
	struct rig *g = &self->g;
	struct cowbird_op o;

	put(g, COWBIRD_RW_READ, 0, 10);
	put(g, COWBIRD_RW_WRITE, 5, 10);	/* overlaps R0 */
	put(g, COWBIRD_RW_WRITE, 500, 10);
	ASSERT_EQ(3, cowbird_ring_fetch(&g->r, 100, 0));

	EXPECT_FALSE(cowbird_ring_next_op_dirs(&g->r, 0, 0, &o));
	/* W1 overlaps the older R0, and W2 may not pass W1 */
	EXPECT_FALSE(cowbird_ring_next_op_dirs(&g->r, 0, COWBIRD_DIR_WRITE, &o));
	EXPECT_EQ(0, g->r.stats.rd_blocked);
	ASSERT_TRUE(cowbird_ring_next_op_dirs(&g->r, 0, COWBIRD_DIR_READ, &o));
	EXPECT_EQ(0, o.index);
	EXPECT_FALSE(cowbird_ring_next_op_dirs(&g->r, 0, COWBIRD_DIR_READ, &o));
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	ASSERT_TRUE(cowbird_ring_next_op_dirs(&g->r, 0, COWBIRD_DIR_WRITE, &o));
	EXPECT_EQ(1, o.index);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));

	/* a read behind a write of another place goes first when only reads may */
	put(g, COWBIRD_RW_READ, 900, 10);
	ASSERT_EQ(1, cowbird_ring_fetch(&g->r, 100, 0));
	ASSERT_TRUE(cowbird_ring_next_op_dirs(&g->r, 0, COWBIRD_DIR_READ, &o));
	EXPECT_EQ(3, o.index);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	ASSERT_TRUE(cowbird_ring_next_op_dirs(&g->r, 0, COWBIRD_DIRS_ALL, &o));
	EXPECT_EQ(2, o.index);
	ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
	cowbird_ring_complete(&g->r, true);
	EXPECT_EQ(4, g->book->rd_done);
	EXPECT_EQ(4, g->book->wr_done);
	EXPECT_EQ(0, cowbird_ring_inflight(&g->r));
}

/* Batch 4: ten completions are published at 4 and 8; the flush publishes 2. */
TEST_F(ring, batching)
{
	struct rig *g = &self->g;
	struct cowbird_op o;
	u32 pub[10], i;

	for (i = 0; i < 10; i++)
		put(g, COWBIRD_RW_READ, i * 8, 8);
	ASSERT_EQ(10, cowbird_ring_fetch(&g->r, 100, 0));
	for (i = 0; i < 10; i++) {
		ASSERT_TRUE(op(g, &o));
		ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
		pub[i] = cowbird_ring_complete(&g->r, false);
		EXPECT_EQ(i == 3 || i == 7 ? 4 : 0, pub[i]);
		EXPECT_EQ(i < 3 ? 0 : i < 7 ? 4 : 8, g->book->rd_done);
	}
	EXPECT_EQ(2, g->book->batches);
	EXPECT_EQ(2, cowbird_ring_complete(&g->r, true));
	EXPECT_EQ(10, g->book->rd_done);
	EXPECT_EQ(10, g->book->consumed);
	EXPECT_EQ(3, g->book->batches);
	EXPECT_EQ(0, cowbird_ring_complete(&g->r, true));	/* nothing new */
}

/* Around the ring many times: indices and data positions wrap, nothing goes astray. */
TEST_F(ring, laps)
{
	struct rig *g = &self->g;
	struct cowbird_op o;
	u32 i, n = 0;

	for (i = 0; i < 1000; i++) {
		u32 len = 1 + (i * 7919) % (DATA / 2);

		if (COWBIRD_POS_IDX(g->book->tail) - COWBIRD_POS_IDX(g->book->head) == ENTRIES ||
		    cowbird_data_place(g->dpos, len, DATA) + len - COWBIRD_POS_DATA(g->book->head) >
		    DATA) {
			ASSERT_LE(0, cowbird_ring_fetch(&g->r, 100, 0));
			while (op(g, &o)) {
				ASSERT_GE(DATA, o.buf_off + o.length);
				ASSERT_GE(REGION, o.region_off + o.length);
				ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
				n++;
			}
			cowbird_ring_complete(&g->r, true);
			reap_all(g);
			i--;
			continue;
		}
		put(g, i % 3 ? COWBIRD_RW_READ : COWBIRD_RW_WRITE, (i * 131) % (REGION - len), len);
	}
	ASSERT_LE(0, cowbird_ring_fetch(&g->r, 100, 0));
	while (op(g, &o)) {
		ASSERT_EQ(0, cowbird_ring_op_done(&g->r, &o, COWBIRD_ST_OK, 0));
		n++;
	}
	cowbird_ring_complete(&g->r, true);
	EXPECT_EQ(1000, g->r.stats.completed);
	EXPECT_EQ(0, g->r.stats.rejected);
	EXPECT_EQ(0, g->book->error);
	EXPECT_EQ(1000, g->book->rd_done);
	EXPECT_EQ(1000, n);
}

TEST(init_rejects)
{
	struct cowbird_book b;
	struct cowbird_meta m[16];
	struct cowbird_cqe c[16];
	struct cowbird_req q[16];
	struct cowbird_ring r;
	struct cowbird_ring_cfg ok = {
		.book = &b, .meta = m, .cq = c, .reqs = q, .region_size = 1, .entries = 16,
		.data_size = 4096, .batch = 1,
	}, cfg;

	cfg = ok; EXPECT_EQ(0, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.entries = 24;		EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.entries = 8;		EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.data_size = 2048;		EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.data_size = 5000;		EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.batch = 0;		EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.batch = COWBIRD_BATCH_MAX + 1;
	EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
	cfg = ok; cfg.reqs = NULL;		EXPECT_EQ(-EINVAL, cowbird_ring_init(&r, &cfg));
}

TEST_HARNESS_MAIN
