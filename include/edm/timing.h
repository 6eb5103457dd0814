/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EDM's hardware timing model: the latency an op would take on the paper's
 * PHY pipeline (section 3.2 cycle counts), itemized as the rows of Table 1.
 *
 * A kernel-agnostic core shared by edm.ko (the modeled latency of each
 * completed op), the unit tests and edmsim. Integer picoseconds throughout;
 * pure functions, no state, no locking.
 */
#ifndef _EDM_TIMING_H
#define _EDM_TIMING_H

#include "edm/core.h"

/* Pipeline stages in clock cycles (paper 3.2.1, 3.2.2, Table 1). */
enum edm_timing_cycles {
	/* One pass through the PCS for an EDM block: scrambler and gearbox. */
	EDM_TIMING_CYC_PCS		= 2,
	/* Host: read the message queue, create the /N/ or RREQ block. */
	EDM_TIMING_CYC_HOST_TX_REQ	= 2,
	/* Host: take a grant off the grant queue, across RX and TX clocks. */
	EDM_TIMING_CYC_HOST_GRANT_Q	= 4,
	/* Host: state table, data buffer, create an RRES/WREQ data block. */
	EDM_TIMING_CYC_HOST_TX_DATA	= 3,
	/* Host: parse a received /G/, add it to the grant queue. */
	EDM_TIMING_CYC_HOST_RX_GRANT	= 2,
	/* Host: as a /G/ (2), plus 1 to hand an RREQ to the memory controller. */
	EDM_TIMING_CYC_HOST_RX_REQ	= 3,
	/* Host: parse an RRES/WREQ block, extract the address, deliver it. */
	EDM_TIMING_CYC_HOST_RX_DATA	= 3,
	/* Switch: block-type check of an /N/ or RREQ. */
	EDM_TIMING_CYC_SW_IDENTIFY	= 1,
	/* Switch: insert into the notification priority queue. */
	EDM_TIMING_CYC_SW_ENQUEUE	= 2,
	/* Switch: one priority PIM iteration (request, grant, mark busy). */
	EDM_TIMING_CYC_SW_PIM_ITER	= 3,
	/* Switch: build the /G/ block (or send the buffered RREQ on). */
	EDM_TIMING_CYC_SW_GRANT		= 1,
	/* Switch: forward a granted message's blocks, RX to TX clock domain. */
	EDM_TIMING_CYC_SW_FORWARD	= 4,
};

enum edm_timing_defaults {
	EDM_TIMING_LANE_MBPS		= 25000,	/* fastest lane; wider links bundle lanes */
	EDM_TIMING_PS_PER_BLOCK_MBPS	= 64000000,	/* ps for a block's 64 bits at 1 Mb/s */
	EDM_TIMING_PMA_PS		= 19000,	/* PMA/PMD + transceiver, per crossing */
	EDM_TIMING_PROP_PS		= 10000,	/* propagation, per hop */
	EDM_TIMING_REQ_BYTES		= 8,		/* RREQ size of the paper's testbed */
	EDM_TIMING_BLOCK_BYTES		= 8,
};

enum edm_timing_op_kind {
	EDM_TIMING_READ,
	EDM_TIMING_WRITE,
	EDM_TIMING_RMW,
	EDM_TIMING_NR_OPS,
};

/* The rows of Table 1 that are not zero for EDM, then the model's own. */
enum edm_timing_row_id {
	EDM_TIMING_ROW_COMPUTE_PCS,	/* Ethernet PHY (PCS) at the compute node */
	EDM_TIMING_ROW_SWITCH_PCS,	/* Ethernet PHY (PCS) at the switch */
	EDM_TIMING_ROW_MEMORY_PCS,	/* Ethernet PHY (PCS) at the memory node */
	EDM_TIMING_ROW_PMA_PMD,		/* Ethernet PHY (PMA+PMD) + transceiver */
	EDM_TIMING_ROW_PROPAGATION,
	EDM_TIMING_ROW_SERIALIZATION,	/* blocks after each message's first; not in Table 1 */
	EDM_TIMING_ROW_SCHED_WAIT,	/* time queued behind other traffic; 0 unloaded */
	EDM_TIMING_NR_ROWS,
};

struct edm_timing_params {
	u32 rate_mbps;		/* link rate */
	u32 cycle_ps;		/* PCS clock: 2560 at 25 GbE */
	u32 block_ps;		/* one 66b block on the wire at rate_mbps */
	u32 pma_ps;		/* per PHY crossing */
	u32 prop_ps;		/* per hop */
	bool serialize;		/* add the serialization row (Table 1 leaves it out) */
};

struct edm_timing_op {
	u32 kind;		/* enum edm_timing_op_kind */
	u32 bytes;		/* data: RRES or WREQ payload */
	u32 req_bytes;		/* RREQ/RMWREQ size; 0 means EDM_TIMING_REQ_BYTES */
	u32 pim_iters;		/* on the critical path; 0 means 1 (unloaded) */
	u64 sched_wait_ps;	/* queueing measured by the scheduler, if any */
};

/* A row as Table 1 prints it: count x unit + extra. */
struct edm_timing_row {
	u32 count;		/* PCS passes, PHY crossings or hops */
	u32 unit_ps;
	u32 extra_cycles;	/* EDM logic, in clock cycles */
	u64 extra_ps;
	u64 total_ps;
};

struct edm_timing_result {
	struct edm_timing_row row[EDM_TIMING_NR_ROWS];
	u64 total_ps;
};

int edm_timing_params_init(struct edm_timing_params *p, u32 rate_mbps);
int edm_timing_model(const struct edm_timing_params *p, const struct edm_timing_op *op,
		     struct edm_timing_result *r);
const char *edm_timing_row_name(u32 row);

#endif /* _EDM_TIMING_H */
