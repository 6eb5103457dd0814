// SPDX-License-Identifier: GPL-2.0
/*
 * edmsim's tests, run by `make unit` with AddressSanitizer and UBSan: two
 * tiny cases worked out by hand, each model alone against its closed form,
 * EDM alone against the kernel's timing model, and short loaded runs of
 * every fabric checked for the invariants that make its numbers mean
 * something (nothing lost or delivered twice, nothing faster than alone,
 * one sender per destination under EDM, the same seed the same run).
 */
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
	ASSERT_EQ(0, edmsim_trace_write(&a, f, 640));
	fclose(f);
	ASSERT_EQ(0, edmsim_trace_read(&b, path, 640));
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
