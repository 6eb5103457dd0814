// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the hardware timing model (fabric/timing.c). The
 * expected rows are typed from the EDM column of the paper's Table 1, in ps.
 */
#include "kselftest_harness.h"
#include "edm/timing.h"

struct paper_row {
	u32 row;
	u32 count;
	u32 unit_ps;
	u64 extra_ps;
};

/* Table 1, EDM Read: 2x5.12+12.8, 4x5.12+28.16, 2x5.12+25.6, 8x19, 4x10. */
static const struct paper_row table1_read[] = {
	{ EDM_TIMING_ROW_COMPUTE_PCS,	2, 5120, 12800 },
	{ EDM_TIMING_ROW_SWITCH_PCS,	4, 5120, 28160 },
	{ EDM_TIMING_ROW_MEMORY_PCS,	2, 5120, 25600 },
	{ EDM_TIMING_ROW_PMA_PMD,	8, 19000, 0 },
	{ EDM_TIMING_ROW_PROPAGATION,	4, 10000, 0 },
};

/* Table 1, EDM Write: 3x5.12+28.16, 4x5.12+28.16, 5.12+7.68, 8x19, 4x10. */
static const struct paper_row table1_write[] = {
	{ EDM_TIMING_ROW_COMPUTE_PCS,	3, 5120, 28160 },
	{ EDM_TIMING_ROW_SWITCH_PCS,	4, 5120, 28160 },
	{ EDM_TIMING_ROW_MEMORY_PCS,	1, 5120, 7680 },
	{ EDM_TIMING_ROW_PMA_PMD,	8, 19000, 0 },
	{ EDM_TIMING_ROW_PROPAGATION,	4, 10000, 0 },
};

static u64 model(const struct edm_timing_params *p, u32 kind, u32 bytes,
		 struct edm_timing_result *r)
{
	struct edm_timing_op op = { .kind = kind, .bytes = bytes };

	if (edm_timing_model(p, &op, r))
		return 0;
	return r->total_ps;
}

static u64 stack_ps(const struct edm_timing_result *r)
{
	return r->row[EDM_TIMING_ROW_COMPUTE_PCS].total_ps +
	       r->row[EDM_TIMING_ROW_SWITCH_PCS].total_ps +
	       r->row[EDM_TIMING_ROW_MEMORY_PCS].total_ps;
}

static void check_rows(struct __test_metadata *_metadata, const struct edm_timing_result *r,
		       const struct paper_row *want, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		const struct edm_timing_row *got = &r->row[want[i].row];

		EXPECT_EQ(want[i].count, got->count) {
			TH_LOG("row %s", edm_timing_row_name(want[i].row));
		}
		EXPECT_EQ(want[i].unit_ps, got->unit_ps) {
			TH_LOG("row %s", edm_timing_row_name(want[i].row));
		}
		EXPECT_EQ(want[i].extra_ps, got->extra_ps) {
			TH_LOG("row %s", edm_timing_row_name(want[i].row));
		}
	}
}

FIXTURE(timing) {
	struct edm_timing_params p;
	struct edm_timing_result r;
};

FIXTURE_SETUP(timing)
{
	ASSERT_EQ(0, edm_timing_params_init(&self->p, 25000));
}

FIXTURE_TEARDOWN(timing)
{
}

TEST_F(timing, paper_parameters_at_25g)
{
	EXPECT_EQ(2560U, self->p.cycle_ps);
	EXPECT_EQ(19000U, self->p.pma_ps);
	EXPECT_EQ(10000U, self->p.prop_ps);
	EXPECT_FALSE(self->p.serialize);
}

TEST_F(timing, read_64b_is_299_52_ns_itemized_as_table_1)
{
	EXPECT_EQ(299520ULL, model(&self->p, EDM_TIMING_READ, 64, &self->r));
	check_rows(_metadata, &self->r, table1_read, ARRAY_SIZE(table1_read));
	EXPECT_EQ(107520ULL, stack_ps(&self->r));		/* "Network Stack Latency" */
	EXPECT_EQ(0ULL, self->r.row[EDM_TIMING_ROW_SERIALIZATION].total_ps);
	EXPECT_EQ(0ULL, self->r.row[EDM_TIMING_ROW_SCHED_WAIT].total_ps);
}

TEST_F(timing, write_64b_is_296_96_ns_itemized_as_table_1)
{
	EXPECT_EQ(296960ULL, model(&self->p, EDM_TIMING_WRITE, 64, &self->r));
	check_rows(_metadata, &self->r, table1_write, ARRAY_SIZE(table1_write));
	EXPECT_EQ(104960ULL, stack_ps(&self->r));
}

TEST_F(timing, rmw_takes_the_read_path)
{
	EXPECT_EQ(299520ULL, model(&self->p, EDM_TIMING_RMW, 8, &self->r));
}

TEST_F(timing, serialization_adds_the_blocks_after_the_first)
{
	/* Off, as in Table 1: size does not change the figure. */
	EXPECT_EQ(299520ULL, model(&self->p, EDM_TIMING_READ, 4096, &self->r));
	self->p.serialize = true;
	/* 64 B = 8 blocks, 7 after the first, 2.56 ns each; the 8 B RREQ is 1 block. */
	EXPECT_EQ(299520ULL + 7ULL * 2560ULL, model(&self->p, EDM_TIMING_READ, 64, &self->r));
	EXPECT_EQ(7U, self->r.row[EDM_TIMING_ROW_SERIALIZATION].count);
	/* 65 B needs a 9th block. */
	EXPECT_EQ(296960ULL + 8ULL * 2560ULL, model(&self->p, EDM_TIMING_WRITE, 65, &self->r));
}

TEST_F(timing, other_link_rates)
{
	/* 100 GbE bundles 25 Gb/s lanes: same 2.56 ns clock, 0.64 ns blocks. */
	ASSERT_EQ(0, edm_timing_params_init(&self->p, 100000));
	EXPECT_EQ(2560U, self->p.cycle_ps);
	EXPECT_EQ(640U, self->p.block_ps);
	EXPECT_EQ(299520ULL, model(&self->p, EDM_TIMING_READ, 64, &self->r));
	self->p.serialize = true;
	EXPECT_EQ(299520ULL + 7ULL * 640ULL, model(&self->p, EDM_TIMING_READ, 64, &self->r));

	/*
	 * 10 GbE: a 6.4 ns clock. A read is 8 PCS passes of 2 cycles plus
	 * 5 + 11 + 10 EDM cycles = 42 cycles = 268.8 ns, + 152 + 40 ns.
	 */
	ASSERT_EQ(0, edm_timing_params_init(&self->p, 10000));
	EXPECT_EQ(6400U, self->p.cycle_ps);
	EXPECT_EQ(268800ULL + 152000ULL + 40000ULL, model(&self->p, EDM_TIMING_READ, 64, &self->r));

	EXPECT_EQ(-EINVAL, edm_timing_params_init(&self->p, 0));
	EXPECT_EQ(-EINVAL, edm_timing_params_init(&self->p, 30000));
}

TEST_F(timing, load_adds_pim_iterations_and_queueing)
{
	struct edm_timing_op op = {
		.kind = EDM_TIMING_WRITE, .bytes = 64, .pim_iters = 3, .sched_wait_ps = 1000,
	};

	/* Two more 3-cycle iterations: 6 x 2.56 ns. */
	ASSERT_EQ(0, edm_timing_model(&self->p, &op, &self->r));
	EXPECT_EQ(296960ULL + 15360ULL + 1000ULL, self->r.total_ps);
	EXPECT_EQ(1000ULL, self->r.row[EDM_TIMING_ROW_SCHED_WAIT].total_ps);
}

TEST_F(timing, bad_ops_are_refused)
{
	struct edm_timing_op op = { .kind = EDM_TIMING_NR_OPS, .bytes = 64 };

	EXPECT_EQ(-EINVAL, edm_timing_model(&self->p, &op, &self->r));
	op.kind = EDM_TIMING_READ;
	op.bytes = 0;
	EXPECT_EQ(-EINVAL, edm_timing_model(&self->p, &op, &self->r));
}

TEST(row_names)
{
	u32 i, j;

	for (i = 0; i < EDM_TIMING_NR_ROWS; i++) {
		ASSERT_NE(NULL, edm_timing_row_name(i));
		for (j = 0; j < i; j++)
			EXPECT_NE(0, strcmp(edm_timing_row_name(i), edm_timing_row_name(j)));
	}
	EXPECT_EQ(NULL, edm_timing_row_name(EDM_TIMING_NR_ROWS));
}

TEST_HARNESS_MAIN
