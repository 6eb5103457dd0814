/* SPDX-License-Identifier: GPL-2.0 */
/*
 * edmsim: a discrete-event simulator of one rack (hosts, links, one switch)
 * that compares EDM's in-switch scheduler with other fabrics.
 *
 * What this header owns: the types every part shares. A run (struct edmsim)
 * holds one configuration, one trace of messages, an event heap ordered by
 * (time, insertion number) so that a seed always gives the same run, and one
 * fabric model behind struct edmsim_fabric. Time is integer picoseconds
 * throughout, like the kernel's scheduler and timing cores, which EDM's model
 * links unchanged. Single-threaded: a sweep runs separate processes.
 */
#ifndef _EDMSIM_H
#define _EDMSIM_H

#include <stdio.h>

#include "edm/core.h"
#include "edm/sched.h"
#include "edm/timing.h"

enum edmsim_defaults {
	EDMSIM_NODES		= 144,		/* the paper's rack (4.3) */
	EDMSIM_RATE_MBPS	= 100000,	/* 100 Gb/s links */
	EDMSIM_MSG_BYTES	= 64,
	EDMSIM_RREQ_BYTES	= 8,
	EDMSIM_MSGS		= 100000,	/* messages per generated run */
	EDMSIM_REQ_BYTES	= 8,		/* the request counted in the offered load */
	EDMSIM_SEED		= 1,
	EDMSIM_HORIZON_US	= 2000,		/* simulated time allowed after the last arrival */
	EDMSIM_FANIN		= 16,
	/* Ethernet (Table 1's raw Ethernet column; frames per IEEE 802.3) */
	EDMSIM_ETH_L2_PS	= 400000,	/* layer 2 forwarding */
	EDMSIM_ETH_MAC_CYC	= 3,		/* 7.68 ns at the 2.56 ns clock */
	EDMSIM_ETH_PCS_CYC	= 3,
	EDMSIM_ETH_MTU		= 1500,
	EDMSIM_ETH_HDR		= 18,		/* MAC header 14 + FCS 4 */
	EDMSIM_ETH_MIN_FRAME	= 64,
	EDMSIM_ETH_GAP		= 20,		/* preamble 8 + inter-frame gap 12 */
	EDMSIM_ETH_MEMHDR	= 8,		/* address or tag in front of the data */
	EDMSIM_ETH_BUF		= 65536,	/* egress buffer per port, bytes */
	EDMSIM_ETH_RTO_NS	= 10000,
	EDMSIM_PFC_XOFF		= 16384,	/* per ingress port, bytes */
	EDMSIM_PFC_XON		= 14336,
	/* CXL stand-in: 68 B flits of four 16 B slots */
	EDMSIM_CXL_SLOT		= 16,
	EDMSIM_CXL_SLOT_WIRE	= 17,
	EDMSIM_CXL_LINE		= 64,		/* data moves in cache lines */
	EDMSIM_CXL_SWITCH_NS	= 100,		/* per switch traversal (paper 2.2) */
	EDMSIM_CXL_CREDITS	= 4096,		/* ingress buffer per port, bytes */
};

/* Message types as the authors' trace format writes them. */
enum edmsim_type {
	EDMSIM_READ	= 1,
	EDMSIM_WRITE	= 3,
};

enum edmsim_class {
	EDMSIM_C_READ,
	EDMSIM_C_WRITE,
	EDMSIM_NR_CLASSES,
};

/* The flows the authors' statistics count: a read is a request and a reply. */
enum edmsim_art_kind {
	EDMSIM_ART_WRITE,
	EDMSIM_ART_REQUEST,
	EDMSIM_ART_REPLY,
	EDMSIM_NR_ART,
};

struct edmsim_msg {
	u64 arrive_ps;		/* when it enters its initiator's queue */
	u64 done_ps;		/* last byte delivered */
	u64 unloaded_ps;	/* alone in this fabric */
	u64 req_done_ps;	/* read: its request reached the memory node (0: not kept) */
	u32 flow_id;		/* as in the trace */
	u32 size;		/* data bytes: RRES or WREQ */
	u32 rreq;		/* read: request bytes; write: 0 */
	u32 delivered;		/* data bytes handed to the destination */
	u32 next;		/* queue link, owned by the fabric */
	u16 src;		/* initiator: requester of a read, writer of a write */
	u16 dst;		/* memory node */
	u8 type;		/* enum edmsim_type */
	u8 done;
	u8 started;		/* its data has begun to leave its source */
};

/*
 * Column order of a read's two sizes in a trace file. The authors'
 * simulator reads (request bytes, reply bytes); edmsim before it learnt that
 * wrote (reply bytes, request bytes).
 */
enum edmsim_trace_order {
	EDMSIM_ORDER_ARTIFACT,
	EDMSIM_ORDER_EDMSIM,
	EDMSIM_NR_ORDERS,
};

struct edmsim_trace {
	struct edmsim_msg *msg;
	u32 n;
	u32 cap;
	u32 nodes;		/* one more than the largest port named */
};

enum edmsim_workload {
	EDMSIM_WL_ALL2ALL,
	EDMSIM_WL_INCAST,
	EDMSIM_NR_WL,
};

struct edmsim_cdf {
	u32 n;
	u32 *size;		/* bytes, increasing */
	double *p;		/* cumulative probability, nondecreasing, last 1 */
	double mean;
};

struct edmsim_gen {
	u32 workload;		/* enum edmsim_workload */
	u32 nodes;
	u32 msgs;
	u32 size;		/* fixed size when no CDF */
	u32 rreq;
	u32 fanin;		/* incast senders per burst */
	u32 burst_size;		/* incast message size; 0: as the others */
	double load;		/* offered load, see gen.c */
	bool data_load;		/* load counts data bytes only, as the authors' */
	double read_frac;
	double incast_share;	/* share of the load in incast bursts */
	u64 seed;
	const struct edmsim_cdf *cdf;
};

struct edmsim_cfg {
	u32 fabric;		/* index into edmsim_fabrics[] */
	u32 nodes;
	u32 rate_mbps;
	u32 chunk;		/* EDM and IRD grant/credit size */
	u32 x;			/* EDM active notifications per pair */
	u32 policy;		/* enum edm_sched_policy */
	bool charge_iters;	/* EDM: every PIM iteration on the critical path */
	/* The EDM authors' simulator's choices, one at a time (see README) */
	bool bare_phy;		/* no PHY or switch pipeline: propagation and blocks only */
	bool sched_slots;	/* EDM: the scheduler runs at 8-byte timeslot boundaries */
	u64 sched_epoch_ps;	/* EDM: ... or at multiples of this (0: when needed) */
	bool ctrl_fifo;		/* EDM: control blocks wait behind data, no preemption */
	bool stop_at_start;	/* stop when the last message has started sending */
	bool progress;
	u64 horizon_ps;
	u32 eth_buf;
	u64 eth_rto_ps;
	u32 pfc_xoff;
	u32 pfc_xon;
	u32 cxl_credits;
	u64 cxl_switch_ps;
	const char *dump;	/* per-flow results to this CSV file */
};

/* The physical constants every model derives its delays from (timing.c). */
struct edmsim_phy {
	struct edm_timing_params tp;
	u64 blk_ps;		/* one 8-byte block on the wire: the trace's timeslot */
	u64 cyc_ps;		/* PCS clock */
	u64 byte_ps;
	u64 hop_ps;		/* PCS + PMA out, propagation, PMA + PCS in */
	u64 eth_side_ps;	/* MAC + PCS of one Ethernet endpoint */
	u64 eth_hop_ps;		/* side + PMA, propagation, PMA + side */
};

struct edmsim_ev {
	u64 t;
	u64 seq;		/* insertion number: ties go first-in first-out */
	u32 kind;		/* the fabric's own event kinds */
	u32 a;
	u32 b;
	u32 c;
};

struct edmsim_heap {
	struct edmsim_ev *ev;
	u32 n;
	u32 cap;
	u64 seq;
};

/* One direction of a link as a FIFO of reservations: when it frees up. */
struct edmsim_link {
	u64 free_at;
};

struct edmsim_check {
	u64 dup_bytes;		/* delivered beyond a message's size */
	u64 below_unloaded;	/* finished faster than alone */
	u64 multi_sender;	/* EDM: two grants overlap on a destination */
	u64 incomplete;		/* not done when the run ended */
};

struct edmsim;

struct edmsim_fabric {
	const char *name;
	const char *stands_for;
	int (*init)(struct edmsim *s);
	void (*fini)(struct edmsim *s);
	/* Message mi enters its initiator at s->now. */
	void (*arrive)(struct edmsim *s, u32 mi);
	void (*event)(struct edmsim *s, const struct edmsim_ev *ev);
	/* Latency of m alone in this fabric, in ps. */
	u64 (*unloaded)(const struct edmsim *s, const struct edmsim_msg *m);
	/* Calls edmsim_req_done() and edmsim_started() (the authors' metric) */
	bool marks;
	/* Fabric counters as "key=value" words. */
	void (*report)(const struct edmsim *s, FILE *f);
};

struct edmsim_result {
	u32 n[EDMSIM_NR_CLASSES];
	double unloaded_ns[EDMSIM_NR_CLASSES];	/* mean over the class */
	double mean_ns[EDMSIM_NR_CLASSES];
	double norm_mean[EDMSIM_NR_CLASSES];	/* mean latency / mean unloaded */
	double norm_p99[EDMSIM_NR_CLASSES];	/* p99 of latency / unloaded */
	double mct_mean;			/* mean of latency / unloaded, all */
	double mct_p99;
	double fct_slots;			/* the authors' average FCT */
	double slowdown;			/* the authors' Avg slowdown */
	/* The same two lines as the authors' simulator defines them (stats.c) */
	bool art_ok;				/* every completed read kept req_done_ps */
	u32 art_flows;				/* flows it counts: a read is two */
	u32 art_done;
	double art_fct_slots;
	double art_slowdown;
	double art_kind_slowdown[EDMSIM_NR_ART];
	double art_delay_ns[EDMSIM_NR_CLASSES];	/* mean latency - unloaded */
	double data_load;			/* the trace's data bytes / capacity */
	double util;				/* busiest host link, busy / span */
	u64 events;
	u64 digest;				/* FNV-1a of every completion */
	double wall_s;
	struct edmsim_check check;
};

struct edmsim {
	struct edmsim_cfg cfg;
	struct edmsim_phy phy;
	const struct edmsim_fabric *fab;
	void *priv;			/* the fabric's state */
	struct edmsim_msg *msg;
	u32 nmsg;
	u32 *order;			/* message indices by arrival */
	u32 next_arrival;
	u32 ndone;
	u32 nstarted;
	u64 stop_ps;			/* --stop-at-last-start: when it stopped */
	u64 now;
	u64 end_ps;			/* stop here if messages are still open */
	struct edmsim_heap heap;
	struct edmsim_check check;
	u64 events;
	u64 digest;
	u64 *link_busy;			/* [host link] ps busy, kept by the fabric */
	u32 nlinks;
	const char *label;		/* progress line prefix */
};

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

extern const struct edmsim_fabric *const edmsim_fabrics[];
extern const u32 edmsim_nr_fabrics;

/* sim.c */
void edmsim_cfg_default(struct edmsim_cfg *cfg);
int edmsim_phy_init(struct edmsim_phy *phy, u32 rate_mbps);
int edmsim_fabric_find(const char *name);
int edmsim_run(const struct edmsim_cfg *cfg, struct edmsim_trace *t, const char *label,
	       FILE *out, struct edmsim_result *r);
void edmsim_push(struct edmsim *s, u64 t, u32 kind, u32 a, u32 b, u32 c);
void edmsim_deliver(struct edmsim *s, u32 mi, u32 bytes);
void edmsim_req_done(struct edmsim *s, u32 mi, u64 t);
void edmsim_started(struct edmsim *s, u32 mi);
u64 edmsim_link_send(struct edmsim_link *l, u64 now, u64 dur_ps);
void *edmsim_zalloc(size_t n, size_t size);
u32 edmsim_blocks(u32 bytes);

/* event.c */
int edmsim_heap_init(struct edmsim_heap *h);
void edmsim_heap_free(struct edmsim_heap *h);
void edmsim_heap_push(struct edmsim_heap *h, const struct edmsim_ev *ev);
void edmsim_heap_pop(struct edmsim_heap *h, struct edmsim_ev *ev);

/* stats.c */
void edmsim_result_compute(const struct edmsim *s, struct edmsim_result *r);
void edmsim_result_print(const struct edmsim *s, const struct edmsim_result *r, FILE *f);
int edmsim_result_dump(const struct edmsim *s, const char *path);
double edmsim_expected_slots(const struct edmsim_phy *phy, const struct edmsim_msg *m);

/* trace.c */
int edmsim_trace_add(struct edmsim_trace *t, const struct edmsim_msg *m);
int edmsim_trace_read(struct edmsim_trace *t, const char *path, u64 slot_ps, u32 order);
int edmsim_trace_write(const struct edmsim_trace *t, FILE *f, u64 slot_ps, u32 order);
void edmsim_trace_free(struct edmsim_trace *t);

/* cdf.c */
int edmsim_cdf_load(struct edmsim_cdf *c, const char *path);
void edmsim_cdf_free(struct edmsim_cdf *c);
u32 edmsim_cdf_sample(const struct edmsim_cdf *c, double u);

/* gen.c */
void edmsim_gen_default(struct edmsim_gen *g);
int edmsim_gen(const struct edmsim_gen *g, const struct edmsim_phy *phy, struct edmsim_trace *t);
u64 edmsim_rng_next(u64 *state);
double edmsim_rng_unit(u64 *state);

/* sweep.c and bench.c: the subcommands beyond a single run */
int edmsim_sweep_main(int argc, char **argv);
int edmsim_bench_main(int argc, char **argv);

#endif /* _EDMSIM_H */
