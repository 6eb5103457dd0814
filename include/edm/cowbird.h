/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cowbird inside edm.ko: an instance (one open /dev/cowbird bound to a
 * region) and the offload engine that serves instances.
 *
 * dev.c creates instances, maps their shared area and tears them down;
 * engine.c runs the kthreads that serve them with the ring and CC cores.
 *
 * Lifetime. An instance is refcounted: the file holds one reference, an
 * engine thread holds one while it looks at the instance. The shared area
 * (vmalloc_user) lives until the last reference, so a munmap or an exit
 * never leaves the engine writing freed memory. Teardown (file release):
 * unlink from the engine's list, mark dead, wait for the thread serving it
 * (serve_lock), stop every ring with EDEAD, drop the file's reference.
 *
 * Locking: serve_lock serializes everything touching the rings and the CC
 * state (one engine thread at a time per instance, as the cores require);
 * the engine's list has its own lock (engine.c).
 */
#ifndef _EDM_COWBIRD_H
#define _EDM_COWBIRD_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>

#include "edm/cowbird_cc.h"
#include "edm/cowbird_ring.h"

struct edm_fab_node;
struct edm_pool_region;
struct cowbird_rmt;
struct edm_shpool_x;
struct net;

/* Go-back-N state of one ring of a remote instance (remote.c). */
struct cowbird_rmt_ring {
	struct list_head ops;		/* handed out, not yet accounted: issue order */
	u32 seq;			/* next op's issue number */
	u32 gbn_seq;			/* in go-back-N: the first lost op */
	u32 out;			/* ops with the fabric */
	bool gbn;			/* going back: nothing new is sent */
};

/* The engine's view of one thread ring. */
struct cowbird_eng_ring {
	struct cowbird_ring r;
	u8 *req;			/* its request data buffer, in the shared area */
	u8 *resp;			/* its response data buffer */
	struct cowbird_rmt_ring rmt;	/* remote instances only */
};

enum {
	COWBIRD_RMT_SLOTS	= 256,		/* ops out at once per remote instance */
	COWBIRD_RMT_TRIES	= 4,		/* transmissions before TIMEOUT */
};

struct cowbird_rmt_stats {
	u64 sent;			/* transmissions the fabric took */
	u64 busy;			/* the via host's queue was full */
	u64 lost;			/* came back timed out or garbled */
	u64 gbn_rounds;			/* go-back-N episodes */
	u64 resent;			/* ops sent again by go-back-N */
	u64 timeouts;			/* ops ended TIMEOUT */
	u64 dispatch_timeouts;		/* ops ended DISPATCH_TIMEOUT */
};

struct cowbird_inst_stats {
	u64 passes;			/* engine passes over the instance */
	u64 rd_ops, wr_ops;		/* ops executed */
	u64 rd_bytes, wr_bytes;
	u64 op_errors;			/* ops ended with an error status */
};

struct cowbird_inst {
	struct kref ref;
	struct list_head node;		/* on the engine's list, its lock */
	u32 id;
	u16 region_id;			/* a memory node's fabric address, or a pool region's ID */
	u64 region_key;			/* the key presented at create */
	u64 dispatch_ns;		/* remote: create's dispatch_us; 0: the via's default */
	u64 region_size;
	struct edm_fab_node *host;	/* counted: the memory node; keeps the region */
	struct edm_pool_region *preg;	/* counted: or the pool region (host is NULL) */
	struct cowbird_rmt *rmt;	/* remote: ops go through the fabric, else NULL */
	void *area;			/* vmalloc_user, the shared mapping; or pool memory */
	struct edm_shpool_x *sx;	/* served in another kernel: our offer, else NULL */
	struct net *sx_net;		/* sx: counted, so the membership outlives us */
	bool imported;			/* served here for another kernel: area is pool memory */
	bool area_gone;			/* imported: the owner may have freed it */
	/* imported: asked before each pass; false once this kernel was reaped */
	bool (*area_ours)(const void *arg);
	const void *area_ours_arg;
	struct cowbird_layout lay;
	struct cowbird_eng_ring *rings;	/* lay.nr_rings */
	struct cowbird_req *reqs;	/* lay.nr_rings * lay.entries */
	struct cowbird_cc *cc;		/* the region, reads and writes apart */

	struct mutex serve_lock;	/* protects rings, cc, stats and dead */
	bool dead;			/* torn down: never served again */
	struct cowbird_inst_stats stats;
	u64 net_cookie;			/* netns of the creator (and of its region) */
};

void cowbird_inst_put(struct cowbird_inst *inst);

/*
 * An instance's destination windows, one per direction as 1RMA keeps them
 * (6: reads inbound, writes outbound), beside the local window.
 */
enum {
	COWBIRD_CC_DST_READ,
	COWBIRD_CC_DST_WRITE,
	COWBIRD_CC_NDST,
};

static inline u32 cowbird_cc_dst(u16 rw_type)
{
	return rw_type == COWBIRD_RW_WRITE ? COWBIRD_CC_DST_WRITE : COWBIRD_CC_DST_READ;
}

/* The directions (COWBIRD_DIR_*) whose windows let an op go now. */
static inline u32 cowbird_cc_dirs(const struct cowbird_cc *cc, u64 now)
{
	return (cowbird_cc_may_issue(cc, COWBIRD_CC_DST_READ, now) ? COWBIRD_DIR_READ : 0) |
	       (cowbird_cc_may_issue(cc, COWBIRD_CC_DST_WRITE, now) ? COWBIRD_DIR_WRITE : 0);
}

/* engine.c */
int edm_cowbird_engine_init(void);
void edm_cowbird_engine_exit(void);
int cowbird_engine_add(struct cowbird_inst *inst);
void cowbird_engine_del(struct cowbird_inst *inst);
u32 cowbird_engine_batch(void);
void cowbird_engine_account(struct cowbird_inst *inst, const struct cowbird_op *op, u16 st);

/* remote.c: the EDM fabric target */
int cowbird_rmt_init(struct cowbird_inst *inst, struct edm_fab_node *via);
void cowbird_rmt_free(struct cowbird_inst *inst);
void cowbird_rmt_pass(struct cowbird_inst *inst);
u32 cowbird_rmt_ring_pass(struct cowbird_inst *inst, struct cowbird_eng_ring *er);
void cowbird_rmt_drain(struct cowbird_inst *inst);
void cowbird_rmt_get_stats(const struct cowbird_inst *inst, struct cowbird_rmt_stats *s);

/* dev.c: the subsystem (misc device, debugfs, engine) */

/*
 * engine.c, for netlink (cowbird/nl.c): the engine's parameters and
 * counters, and snapshots of instances. The engine is one for the module;
 * instances are shown in the netns they were created in (net_cookie).
 */
enum {
	COWBIRD_PROBE_MAX_US_MIN	= 2,
	COWBIRD_PROBE_MAX_US_MAX	= 1000000,
	COWBIRD_IDLE_SPINS_MAX		= 1000000,
};

struct cowbird_engine_info {
	u32 threads;
	int cpu;			/* the CPU the threads are pinned to, or -1 */
	u32 instances;			/* all netns */
	u32 probe_max_us;
	u32 idle_spins;
	u32 batch;			/* of new instances */
	u64 picks, busy_skips, sleeps, created, destroyed;
};

struct cowbird_inst_info {
	u32 id;
	u16 region_id;
	u64 region_size;
	u32 rings, entries, data_size;
	u32 batch;
	u32 rings_stopped;
	struct cowbird_inst_stats inst;
	struct cowbird_ring_stats ring;	/* summed over its rings */
	struct cowbird_cc_stats cc;
	u32 cwnd_local, cwnd_dst, cwnd_dst_write;
};

void cowbird_engine_info(struct cowbird_engine_info *info);
/*
 * Sets the parameters given (NULL: unchanged), in their ranges above and
 * 1..COWBIRD_BATCH_MAX; a batch applies to the rings of every instance too.
 * True when a parameter changed.
 */
bool cowbird_engine_set(const u32 *probe_max_us, const u32 *idle_spins, const u32 *batch);
/* Changes with every instance created or destroyed, for dumps. */
u32 cowbird_engine_gen(void);
/* The instance of netns @net_cookie with the lowest ID >= @from; -ENOENT if none. */
int cowbird_engine_inst_info(u64 net_cookie, u32 from, struct cowbird_inst_info *info);

#endif /* _EDM_COWBIRD_H */
