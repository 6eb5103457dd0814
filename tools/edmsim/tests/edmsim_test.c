// SPDX-License-Identifier: GPL-2.0
/*
 * edmsim's tests, run by `make unit` with AddressSanitizer and UBSan: two
 * tiny cases worked out by hand, each model alone against its closed form,
 * EDM alone against the kernel's timing model, and short loaded runs of
 * every fabric checked for the invariants that make its numbers mean
 * something (nothing lost or delivered twice, nothing faster than alone,
 * one sender per destination under EDM, the same seed the same run).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "edmsim.h"

enum { NODES = 16 };

static void msg_add(struct edmsim_trace *t, u32 type, u32 src, u32 dst, u32 size, u64 at_ps)
{
	struct edmsim_msg m = {
		.flow_id = t->n, .type = type, .src = src, .dst = dst, .size = size,
		.rreq = type == EDMSIM_READ ? EDMSIM_RREQ_BYTES : 0, .arrive_ps = at_ps,
	};

	edmsim_trace_add(t, &m);
}

static struct edmsim_cfg cfg_for(const char *fabric, u32 nodes)
{
	struct edmsim_cfg cfg;

	edmsim_cfg_default(&cfg);
	cfg.fabric = edmsim_fabric_find(fabric);
	cfg.nodes = nodes;
	return cfg;
}

static u64 latency(const struct edmsim_trace *t, u32 i)
{
	return t->msg[i].done_ps - t->msg[i].arrive_ps;
}

/*
 * One 64 B read alone on EDM at 100 Gb/s, added up by hand from the paper:
 * the critical path has 26 clock cycles of 2.56 ns (requester TX 2; switch
 * identify 1, enqueue 2, one PIM iteration 3, send the RREQ on as the grant
 * 1; memory node RX 3, grant queue 4, TX data 3; switch forward 4;
 * requester RX 3) = 66.56 ns, four link crossings of PCS 5.12 + PMA 19 +
 * 10 propagation + PMA 19 + PCS 5.12 = 58.24 ns each = 232.96 ns, and the
 * RRES's seven blocks after its first at 0.64 ns = 4.48 ns. Total 304 ns:
 * Table 1's 299.52 ns plus the serialization Table 1 leaves out.
 */
TEST(edm_read_alone_by_hand)
{
	struct edmsim_cfg cfg = cfg_for("edm", NODES);
	struct edmsim_trace t = { 0 };
	struct edmsim_result r;

	msg_add(&t, EDMSIM_READ, 3, 7, 64, 1000000);
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	EXPECT_EQ(304000ULL, latency(&t, 0));
	edmsim_trace_free(&t);
}

/*
 * Two 64 B writes to one memory node, created at the same instant on hosts
 * 1 and 2. Alone, a write costs 25 cycles (writer TX 2; switch 1 + 2 + 3 +
 * build /G/ 1; writer RX grant 2, grant queue 4, TX data 3; switch forward
 * 4; memory RX 3) = 64 ns, four crossings 232.96 ns and seven more blocks
 * 4.48 ns: 301.44 ns. Both /N/ reach the scheduler together; with equal
 * remaining bytes the older notification (host 1's, created first in trace
 * order) wins, and host 2's grant waits until host 0's egress frees, 64 B at
 * 80 ps a byte = 5.12 ns later: 306.56 ns. Mean 304 ns.
 */
TEST(edm_two_writers_by_hand)
{
	struct edmsim_cfg cfg = cfg_for("edm", NODES);
	struct edmsim_trace t = { 0 };
	struct edmsim_result r;

	msg_add(&t, EDMSIM_WRITE, 1, 0, 64, 0);
	msg_add(&t, EDMSIM_WRITE, 2, 0, 64, 0);
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	EXPECT_EQ(301440ULL, latency(&t, 0));
	EXPECT_EQ(306560ULL, latency(&t, 1));
	EXPECT_EQ(0ULL, r.check.multi_sender);
	EXPECT_LT(303999.0, r.mean_ns[EDMSIM_C_WRITE] * 1000);
	EXPECT_GT(304001.0, r.mean_ns[EDMSIM_C_WRITE] * 1000);
	edmsim_trace_free(&t);
}

/* EDM alone costs what edm.ko's timing model says, serialization on. */
TEST(edm_alone_is_the_kernel_timing_model)
{
	static const u32 sizes[] = { 8, 64, 200, 256 };
	struct edmsim_cfg cfg = cfg_for("edm", NODES);
	struct edm_timing_result tr;
	struct edm_timing_params p;
	struct edm_timing_op op;
	struct edmsim_result r;
	u32 i, type;

	ASSERT_EQ(0, edm_timing_params_init(&p, EDMSIM_RATE_MBPS));
	p.serialize = true;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (type = EDMSIM_READ; type <= EDMSIM_WRITE; type += 2) {
			struct edmsim_trace t = { 0 };

			memset(&op, 0, sizeof(op));
			op.kind = type == EDMSIM_READ ? EDM_TIMING_READ : EDM_TIMING_WRITE;
			op.bytes = sizes[i];
			ASSERT_EQ(0, edm_timing_model(&p, &op, &tr));
			msg_add(&t, type, 0, 1, sizes[i], 0);
			ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
			EXPECT_EQ(tr.total_ps, latency(&t, 0));
			edmsim_trace_free(&t);
		}
	}
}

/* Every model, alone, takes exactly its closed-form unloaded latency. */
TEST(every_fabric_alone_matches_its_closed_form)
{
	static const u32 sizes[] = { 64, 1000, 5000, 70000 };
	struct edmsim_result r;
	u32 f, i, type;

	for (f = 0; f < edmsim_nr_fabrics; f++) {
		struct edmsim_cfg cfg = cfg_for(edmsim_fabrics[f]->name, NODES);

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			for (type = EDMSIM_READ; type <= EDMSIM_WRITE; type += 2) {
				struct edmsim_trace t = { 0 };

				msg_add(&t, type, 5, 9, sizes[i], 12345 * 640);
				ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
				EXPECT_EQ(t.msg[0].unloaded_ps, latency(&t, 0)) {
					TH_LOG("%s type %u size %u", edmsim_fabrics[f]->name, type,
					       sizes[i]);
				}
				edmsim_trace_free(&t);
			}
		}
	}
}

static int gen(struct edmsim_trace *t, u32 wl, double load, u64 seed, u32 msgs,
	       const struct edmsim_cdf *cdf)
{
	struct edmsim_gen g;
	struct edmsim_phy phy;

	edmsim_gen_default(&g);
	g.workload = wl;
	g.nodes = NODES;
	g.msgs = msgs;
	g.load = load;
	g.read_frac = 0.5;
	g.seed = seed;
	g.fanin = 8;
	g.cdf = cdf;
	memset(t, 0, sizeof(*t));
	if (edmsim_phy_init(&phy, EDMSIM_RATE_MBPS))
		return -EINVAL;
	return edmsim_gen(&g, &phy, t);
}

FIXTURE(loaded) {
	struct edmsim_cdf cdf;
};

FIXTURE_VARIANT(loaded) {
	const char *fabric;
	u32 eth_buf;		/* 0: default */
	u32 pfc_xoff;
};

FIXTURE_VARIANT_ADD(loaded, edm) { .fabric = "edm" };
FIXTURE_VARIANT_ADD(loaded, edm_fcfs) { .fabric = "edm-fcfs" };
FIXTURE_VARIANT_ADD(loaded, eth) { .fabric = "eth" };
/* A buffer of two full frames: drops, timeouts and retransmissions. */
FIXTURE_VARIANT_ADD(loaded, eth_drops) { .fabric = "eth", .eth_buf = 2048 };
FIXTURE_VARIANT_ADD(loaded, pfc) { .fabric = "pfc" };
/* A pause threshold of one frame: pauses all the time. */
FIXTURE_VARIANT_ADD(loaded, pfc_pauses) { .fabric = "pfc", .pfc_xoff = 1600 };
FIXTURE_VARIANT_ADD(loaded, cxl) { .fabric = "cxl" };
FIXTURE_VARIANT_ADD(loaded, fastpass) { .fabric = "fastpass" };
FIXTURE_VARIANT_ADD(loaded, ird) { .fabric = "ird" };

FIXTURE_SETUP(loaded)
{
	ASSERT_EQ(0, edmsim_cdf_load(&self->cdf, "cdf/heavy.cdf"));
}

FIXTURE_TEARDOWN(loaded)
{
	edmsim_cdf_free(&self->cdf);
}

static void run_checked(struct __test_metadata *_metadata, const FIXTURE_VARIANT(loaded) *v,
			struct edmsim_trace *t, struct edmsim_result *r)
{
	struct edmsim_cfg cfg = cfg_for(v->fabric, NODES);
	u32 i;

	if (v->eth_buf)
		cfg.eth_buf = v->eth_buf;
	if (v->pfc_xoff) {
		cfg.pfc_xoff = v->pfc_xoff;
		cfg.pfc_xon = v->pfc_xoff / 2;
	}
	ASSERT_EQ(0, edmsim_run(&cfg, t, NULL, NULL, r));
	EXPECT_EQ(0ULL, r->check.incomplete);
	EXPECT_EQ(0ULL, r->check.dup_bytes);
	EXPECT_EQ(0ULL, r->check.below_unloaded);
	EXPECT_EQ(0ULL, r->check.multi_sender);
	for (i = 0; i < t->n; i++) {
		if (t->msg[i].delivered != t->msg[i].size || !t->msg[i].done) {
			EXPECT_EQ(t->msg[i].size, t->msg[i].delivered);
			break;
		}
		if (latency(t, i) < t->msg[i].unloaded_ps) {
			EXPECT_LE(t->msg[i].unloaded_ps, latency(t, i));
			break;
		}
	}
}

/* 64 B all-to-all, half reads, at a load that saturates Ethernet. */
TEST_F(loaded, all2all_invariants)
{
	struct edmsim_trace t;
	struct edmsim_result r;

	ASSERT_EQ(0, gen(&t, EDMSIM_WL_ALL2ALL, 0.6, 7, 3000, NULL));
	run_checked(_metadata, variant, &t, &r);
	edmsim_trace_free(&t);
}

/* Bursts of 8 onto one victim: where drops, pauses and credits bite. */
TEST_F(loaded, incast_invariants)
{
	struct edmsim_trace t;
	struct edmsim_result r;

	ASSERT_EQ(0, gen(&t, EDMSIM_WL_INCAST, 0.5, 11, 3000, NULL));
	run_checked(_metadata, variant, &t, &r);
	edmsim_trace_free(&t);
}

/* Heavy-tailed sizes: multi-chunk, multi-frame, multi-line messages. */
TEST_F(loaded, heavy_tailed_invariants)
{
	struct edmsim_trace t;
	struct edmsim_result r;

	ASSERT_EQ(0, gen(&t, EDMSIM_WL_ALL2ALL, 0.5, 13, 800, &self->cdf));
	run_checked(_metadata, variant, &t, &r);
	edmsim_trace_free(&t);
}

/* The same seed gives the same run; another seed another run. */
TEST_F(loaded, same_seed_same_output)
{
	struct edmsim_trace t;
	struct edmsim_result r1, r2, r3;

	ASSERT_EQ(0, gen(&t, EDMSIM_WL_ALL2ALL, 0.5, 21, 1000, NULL));
	run_checked(_metadata, variant, &t, &r1);
	run_checked(_metadata, variant, &t, &r2);
	edmsim_trace_free(&t);
	EXPECT_EQ(r1.digest, r2.digest);
	EXPECT_EQ(r1.events, r2.events);
	EXPECT_EQ(0, memcmp(r1.norm_mean, r2.norm_mean, sizeof(r1.norm_mean)));
	ASSERT_EQ(0, gen(&t, EDMSIM_WL_ALL2ALL, 0.5, 22, 1000, NULL));
	run_checked(_metadata, variant, &t, &r3);
	edmsim_trace_free(&t);
	EXPECT_NE(r1.digest, r3.digest);
}

/* A written trace reads back as the same flows. */
TEST(trace_round_trip)
{
	struct edmsim_trace a, b = { 0 };
	char path[] = "/tmp/edmsim_test_XXXXXX";
	FILE *f;
	int fd;
	u32 i;

	ASSERT_EQ(0, gen(&a, EDMSIM_WL_INCAST, 0.4, 3, 500, NULL));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, edmsim_trace_write(&a, f, 640, EDMSIM_ORDER_ARTIFACT));
	fclose(f);
	ASSERT_EQ(0, edmsim_trace_read(&b, path, 640, EDMSIM_ORDER_ARTIFACT));
	unlink(path);
	ASSERT_EQ(a.n, b.n);
	for (i = 0; i < a.n; i++) {
		EXPECT_EQ(a.msg[i].flow_id, b.msg[i].flow_id);
		EXPECT_EQ(a.msg[i].type, b.msg[i].type);
		EXPECT_EQ(a.msg[i].src, b.msg[i].src);
		EXPECT_EQ(a.msg[i].dst, b.msg[i].dst);
		EXPECT_EQ(a.msg[i].size, b.msg[i].size);
		EXPECT_EQ(a.msg[i].rreq, b.msg[i].rreq);
		EXPECT_EQ(a.msg[i].arrive_ps, b.msg[i].arrive_ps);
	}
	edmsim_trace_free(&a);
	edmsim_trace_free(&b);
}

static int trace_from(struct edmsim_trace *t, const char *text, u32 order)
{
	char path[] = "/tmp/edmsim_test_XXXXXX";
	int fd = mkstemp(path), err;
	FILE *f;

	if (fd < 0)
		return -EIO;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	memset(t, 0, sizeof(*t));
	err = edmsim_trace_read(t, path, 640, order);
	unlink(path);
	return err;
}

/*
 * The authors' reader takes a read as "request bytes, reply bytes" (their
 * generator writes 16,64); edmsim's old order was the reverse. The same
 * line read both ways, and each order written back as it was read.
 */
TEST(trace_orders)
{
	static const char line[] = "0,1,4,9,16,64,3\n1,3,9,4,200,-1,5\n";
	struct edmsim_trace t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	u32 o;

	ASSERT_EQ(0, trace_from(&t, line, EDMSIM_ORDER_ARTIFACT));
	ASSERT_EQ(2U, t.n);
	EXPECT_EQ(16U, t.msg[0].rreq);
	EXPECT_EQ(64U, t.msg[0].size);
	EXPECT_EQ(1920ULL, t.msg[0].arrive_ps);
	EXPECT_EQ(200U, t.msg[1].size);
	EXPECT_EQ(0U, t.msg[1].rreq);
	edmsim_trace_free(&t);
	ASSERT_EQ(0, trace_from(&t, line, EDMSIM_ORDER_EDMSIM));
	EXPECT_EQ(64U, t.msg[0].rreq);
	EXPECT_EQ(16U, t.msg[0].size);
	EXPECT_EQ(200U, t.msg[1].size);
	edmsim_trace_free(&t);
	for (o = 0; o < EDMSIM_NR_ORDERS; o++) {
		ASSERT_EQ(0, trace_from(&t, line, o));
		f = open_memstream(&buf, &len);
		ASSERT_NE(NULL, f);
		ASSERT_EQ(0, edmsim_trace_write(&t, f, 640, o));
		fclose(f);
		EXPECT_STREQ(line, buf);
		free(buf);
		buf = NULL;
		edmsim_trace_free(&t);
	}
	/* A request must fit a notification; in the wrong order it does not. */
	EXPECT_EQ(-EINVAL, trace_from(&t, "0,1,4,9,16,100000,3\n", EDMSIM_ORDER_EDMSIM));
	edmsim_trace_free(&t);
	EXPECT_EQ(0, trace_from(&t, "0,1,4,9,16,100000,3\n", EDMSIM_ORDER_ARTIFACT));
	EXPECT_EQ(100000U, t.msg[0].size);
	edmsim_trace_free(&t);
}

/* Four 64 B writes from hosts 1-4 to host 0, all at time 0. */
static void four_writers(struct edmsim_trace *t)
{
	u32 i;

	memset(t, 0, sizeof(*t));
	for (i = 1; i <= 4; i++)
		msg_add(t, EDMSIM_WRITE, i, 0, 64, 0);
}

/*
 * The authors' metric on traces worked out by hand, with --bare-phy (hops of
 * 10 ns propagation, no pipeline cycles) at 100 Gb/s, timeslot 0.64 ns,
 * P = round(10 / 0.64) = 16 slots.
 *
 * Four 64 B writes from hosts 1-4 to host 0 at once. Alone a write takes
 * /N/ up (10 ns), /G/ down (10), the first data block up and down (20) and
 * seven more blocks (4.48): 44.48 ns = 69.5 slots. The scheduler grants one
 * writer at a time, each 64 B circuit 5.12 ns = 8 slots after the last:
 * 69.5, 77.5, 85.5, 93.5 slots. Their expected time is a fixed 8 + 4P + 8 =
 * 80 slots, so the slowdowns are 1, 1, 85.5/80 and 93.5/80: mean 1.059375,
 * mean FCT 81.5 slots.
 *
 * One 64 B read with a 16 B request, alone: its request (two blocks) goes up
 * (10 ns), is forwarded as the grant (10 ns) and is whole one block later:
 * 20.64 ns = 32.25 slots, against 16/8 + 4P = 66. The reply leaves at once
 * and lands 10 + 10 + 4.48 ns later, 45.12 ns after the start; the authors
 * start its clock one slot after the request landed: 37.25 slots against
 * 64/8 + 2P = 40. Two flows, slowdown 1 each, mean FCT 34.75 slots.
 */
TEST(authors_metric_by_hand)
{
	struct edmsim_cfg cfg = cfg_for("edm", NODES);
	struct edmsim_trace t;
	struct edmsim_result r;

	cfg.bare_phy = true;
	four_writers(&t);
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	EXPECT_TRUE(r.art_ok);
	EXPECT_EQ(4U, r.art_flows);
	EXPECT_EQ(4U, r.art_done);
	EXPECT_EQ(59840ULL, latency(&t, 3));
	EXPECT_LT(fabs(r.art_slowdown - 1.059375), 1e-9);
	EXPECT_LT(fabs(r.art_fct_slots - 81.5), 1e-9);
	/* mean latency 52.16 ns against 44.48 alone */
	EXPECT_LT(fabs(r.art_delay_ns[EDMSIM_C_WRITE] - 7.68), 1e-9);
	edmsim_trace_free(&t);

	ASSERT_EQ(0, trace_from(&t, "0,1,3,7,16,64,0\n", EDMSIM_ORDER_ARTIFACT));
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	EXPECT_EQ(2U, r.art_flows);
	EXPECT_EQ(2U, r.art_done);
	EXPECT_EQ(20640ULL, t.msg[0].req_done_ps);
	EXPECT_EQ(45120ULL, latency(&t, 0));
	EXPECT_LT(fabs(r.art_fct_slots - 34.75), 1e-9);
	EXPECT_LT(fabs(r.art_slowdown - 1.0), 1e-9);
	edmsim_trace_free(&t);
}

/*
 * The authors' run ends when the last message starts sending: with four
 * writers to one host, the fourth starts at its grant, 3 x 8 slots after the
 * first (whose data leaves at 20 ns); none has finished then, so nothing is
 * counted, as their simulator counts nothing for such a trace. With
 * --sched-slots the scheduler waits for the slot boundary after the /N/s
 * land (10 ns -> 10.24 ns), and every later grant stays on the slot grid.
 */
TEST(stop_at_last_start)
{
	struct edmsim_cfg cfg = cfg_for("edm", NODES);
	struct edmsim_trace t;
	struct edmsim_result r;
	u32 i;

	cfg.bare_phy = true;
	cfg.stop_at_start = true;
	four_writers(&t);
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	EXPECT_EQ(4ULL, r.check.incomplete);
	EXPECT_EQ(0U, r.art_done);
	EXPECT_EQ(4U, r.art_flows);
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(t.msg[i].started);
	cfg.stop_at_start = false;
	cfg.sched_slots = true;
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	EXPECT_EQ(44480ULL + 240, latency(&t, 0));
	EXPECT_EQ(59840ULL + 240, latency(&t, 3));
	cfg.fabric = edmsim_fabric_find("eth");
	cfg.stop_at_start = true;
	EXPECT_EQ(-EOPNOTSUPP, edmsim_run(&cfg, &t, NULL, NULL, &r));
	edmsim_trace_free(&t);
}

/*
 * --sched-epoch-ps: the scheduler runs only at multiples of the epoch. The
 * four writers' /N/s land at 10 ns (--bare-phy); the first step waits for
 * 20.48 ns, and each 64 B circuit (5.12 ns) ends between epochs, so the next
 * writer is granted one epoch later: 44.48 + 10.48 + k * 20.48 ns.
 */
TEST(sched_epoch)
{
	struct edmsim_cfg cfg = cfg_for("edm", NODES);
	struct edmsim_trace t;
	struct edmsim_result r;
	u32 i;

	cfg.bare_phy = true;
	cfg.sched_epoch_ps = 20480;
	four_writers(&t);
	ASSERT_EQ(0, edmsim_run(&cfg, &t, NULL, NULL, &r));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(54960ULL + i * 20480, latency(&t, i));
	EXPECT_EQ(0ULL, r.check.multi_sender);
	edmsim_trace_free(&t);
}

/* The CDF file: quantiles land where the file says, in 8-byte blocks. */
TEST(cdf_quantiles)
{
	struct edmsim_cdf c;

	ASSERT_EQ(0, edmsim_cdf_load(&c, "cdf/heavy.cdf"));
	EXPECT_EQ(64U, edmsim_cdf_sample(&c, 0));
	EXPECT_EQ(65536U, edmsim_cdf_sample(&c, 1 - 1e-12));
	/* The median sits between the points 91 (0.321) and 128 (0.5335). */
	EXPECT_LT(91U, edmsim_cdf_sample(&c, 0.5));
	EXPECT_GE(128U, edmsim_cdf_sample(&c, 0.5));
	EXPECT_EQ(0U, edmsim_cdf_sample(&c, 0.5) % 8);
	edmsim_cdf_free(&c);
}

TEST_HARNESS_MAIN
