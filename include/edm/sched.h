/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EDM's in-switch memory traffic scheduler (paper section 3.1): demand
 * notifications in per-destination priority queues, and priority PIM
 * iterations that turn them into grants of one chunk each.
 *
 * A kernel-agnostic core: the switch in edm.ko, the unit tests, the fuzzer and
 * edmsim link this one source. It never allocates, never reads a clock and
 * takes no lock: the caller sizes the memory with edm_sched_size(), passes
 * model time in picoseconds, and serializes all calls on one scheduler.
 */
#ifndef _EDM_SCHED_H
#define _EDM_SCHED_H

#include "edm/core.h"

enum {
	EDM_SCHED_MAX_PORTS	= 512,		/* 9-bit destination in /N/ and /G/ */
	EDM_SCHED_MAX_X		= 16,		/* active notifications per pair */
	EDM_SCHED_DEFAULT_X	= 3,		/* the paper's best value (4.3) */
	EDM_SCHED_DEFAULT_CHUNK	= 256,		/* bytes */
	EDM_SCHED_MAX_CHUNK	= 65535,	/* 16-bit chunk field of /G/ */
	EDM_SCHED_DEFAULT_RATE	= 25000,	/* Mb/s, the prototype's 25 GbE */
	EDM_SCHED_PS_PER_MBYTE	= 8000000,	/* ps per byte at 1 Mb/s */
	EDM_SCHED_ITER_HIST	= 16,		/* last bucket counts >= 15 iterations */
};

enum edm_sched_policy {
	EDM_SCHED_SRPT,		/* smallest remaining bytes first (default) */
	EDM_SCHED_FCFS,		/* oldest notification first */
	EDM_SCHED_NR_POLICIES,
};

/*
 * What a notification stands for, which decides the data direction:
 * an /N/ for a WREQ announces data from the notifying port to its peer; an
 * RREQ or RMWREQ is the implicit notification of an RRES flowing the other
 * way, from the memory node (the request's destination) to the requester.
 */
enum edm_sched_kind {
	EDM_SCHED_WRITE,
	EDM_SCHED_READ,
	EDM_SCHED_RMW,
	EDM_SCHED_NR_KINDS,
};

enum edm_sched_grant_flags {
	EDM_SCHED_GRANT_FIRST	= 1 << 0,	/* READ/RMW: forward the buffered request */
	EDM_SCHED_GRANT_LAST	= 1 << 1,	/* the message's last chunk */
};

struct edm_sched_cfg {
	u32 nports;		/* 2..EDM_SCHED_MAX_PORTS, fixed at init */
	u32 x;			/* 1..EDM_SCHED_MAX_X, fixed at init */
	u32 chunk;		/* 1..EDM_SCHED_MAX_CHUNK bytes */
	u32 rate_mbps;	/* must divide EDM_SCHED_PS_PER_MBYTE: 10G..1.6T */
	u32 policy;		/* enum edm_sched_policy */
};

struct edm_sched_notif {
	u16 port;		/* switch port the /N/, RREQ or RMWREQ came in on */
	u16 peer;		/* the message's destination port */
	u8 msg_id;		/* the notifier's id for the message to peer */
	u8 kind;		/* enum edm_sched_kind */
	u32 bytes;		/* WREQ size, or bytes the RRES will carry */
};

/* One chunk to send: the caller turns it into a /G/ or forwards the RREQ. */
struct edm_sched_grant {
	u16 src;		/* port that sends the chunk */
	u16 dst;		/* port that receives it */
	u8 msg_id;
	u8 kind;		/* enum edm_sched_kind */
	u8 flags;		/* enum edm_sched_grant_flags */
	u32 bytes;		/* min(chunk, remaining) */
};

struct edm_sched_stats {
	u64 notifications;	/* accepted */
	u64 rejected;		/* notify calls refused, any reason */
	u64 grants;
	u64 grant_bytes;
	u64 messages_done;
	u64 flushed;		/* messages dropped by edm_sched_flush_port() */
	u64 matchings;		/* steps that granted at least one chunk */
	u64 iterations;		/* PIM iterations summed over matchings */
	u32 iterations_max;
	u32 matching_max;	/* most grants in one matching */
	u64 iter_hist[EDM_SCHED_ITER_HIST];
	u32 depth;		/* notifications queued, all ports */
	u32 depth_max;
};

struct edm_sched_msg;

/* Opaque to callers but for its size; read it through the functions below. */
struct edm_sched {
	struct edm_sched_cfg cfg;
	u32 words;			/* u64 words of a port bitmap */
	u32 ps_per_byte;		/* 8e6 / rate_mbps, exact */
	u64 seq;			/* notification order, FCFS key and tiebreak */
	struct edm_sched_stats stats;
	struct edm_sched_msg *msg;	/* [dst][src][x] per-pair rings */
	u8 *head;			/* [dst][src] ring head */
	u8 *count;			/* [dst][src] ring occupancy */
	u16 *order;			/* [dst][len] sources of nonempty pairs, by priority */
	u16 *len;			/* [dst] */
	u64 *has_demand;		/* [words] dst with a nonempty queue */
	u64 *src_busy;			/* [words] */
	u64 *dst_busy;			/* [words] */
	u64 *held;			/* [words] held back by the caller: no grant */
	u64 *src_until;			/* [port] end of the ingress link's busy time */
	u64 *dst_until;			/* [port] end of the egress link's busy time */
	u32 *depth;			/* [dst] queued notifications */
	u32 *depth_max;			/* [dst] */
	/* scratch of one step */
	u64 *src_free;			/* [words] neither busy nor matched */
	u64 *dst_todo;			/* [words] free, unmatched, may find a source */
	u64 *requested;			/* [words] sources that got a request */
	u16 *req_dst;			/* [src] best requesting destination */
	u16 *cursor;			/* [dst] list entries known not free */
};

size_t edm_sched_size(u32 nports, u32 x);
int edm_sched_cfg_check(const struct edm_sched_cfg *cfg);
void edm_sched_cfg_default(struct edm_sched_cfg *cfg, u32 nports);
int edm_sched_init(void *mem, const struct edm_sched_cfg *cfg);
int edm_sched_set_policy(struct edm_sched *s, u32 policy);
int edm_sched_set_chunk(struct edm_sched *s, u32 chunk);
int edm_sched_set_rate(struct edm_sched *s, u32 rate_mbps);

int edm_sched_notify(struct edm_sched *s, const struct edm_sched_notif *n);
int edm_sched_step(struct edm_sched *s, u64 now_ps, struct edm_sched_grant *grants, u32 max);
u64 edm_sched_next_release(const struct edm_sched *s);
void edm_sched_hold(struct edm_sched *s, u32 port, bool hold);
bool edm_sched_held(const struct edm_sched *s, u32 port);
u32 edm_sched_flush_port(struct edm_sched *s, u32 port);

u32 edm_sched_depth(const struct edm_sched *s, u32 dst);
u32 edm_sched_depth_max(const struct edm_sched *s, u32 dst);
u32 edm_sched_pair_count(const struct edm_sched *s, u32 src, u32 dst);
u64 edm_sched_busy_until(const struct edm_sched *s, u32 port, bool egress);
u64 edm_sched_busy_ps(const struct edm_sched *s, u32 bytes);

#endif /* _EDM_SCHED_H */
