/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cowbird's ring protocol, engine side (Cowbird 4.2, 5.2, 5.3, 6): the
 * mapping's layout, the snapshot of a thread ring's book, the check of every
 * entry, the read/write range check that keeps per-type order and
 * read-after-write, cutting transfers into ops of at most COWBIRD_OP_MAX
 * bytes, and publishing completions in batches with one book update.
 *
 * A kernel-agnostic core: the engine in edm.ko, the unit tests, the fuzzer
 * and libcowbird's user-space stand-in link this one source. It never
 * allocates, never reads a clock and takes no lock: the caller passes the
 * shared memory's parts and a request table sized by cowbird_ring_reqs_size(),
 * passes time in nanoseconds, and serializes all calls on one ring (one
 * engine thread serves a ring at a time). The shared memory may change under
 * it at any moment; the core reads each user-written word once, through
 * cowbird_load_acquire() or COWBIRD_READ_ONCE(), and decides on the copies.
 */
#ifndef _EDM_COWBIRD_RING_H
#define _EDM_COWBIRD_RING_H

#include "edm/core.h"
#include <uapi/linux/cowbird.h>

#ifdef __KERNEL__
#include <asm/barrier.h>
#include <linux/compiler.h>
/* Pairs a reader of user-published words with the writer's release. */
#define cowbird_load_acquire(p)		smp_load_acquire(p)
/* Publishes the engine's records before the counters that cover them. */
#define cowbird_store_release(p, v)	smp_store_release(p, v)
#define COWBIRD_READ_ONCE(x)		READ_ONCE(x)
#define COWBIRD_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
#else
#define cowbird_load_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define cowbird_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define COWBIRD_READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define COWBIRD_WRITE_ONCE(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#endif

enum {
	COWBIRD_PAGE_SIZE	= 4096,	/* layout granule: every part page aligned */
	COWBIRD_BATCH_DEFAULT	= 16,	/* BATCH_SIZE: completions per book update */
	COWBIRD_BATCH_MAX	= 1024,
};

/* What the engine knows about the mapping of one instance. */
struct cowbird_layout {
	u32 nr_rings;
	u32 entries;		/* per ring, a power of two */
	u32 data_size;		/* bytes of each data buffer, a power of two */
	u32 pad;
	u64 mmap_size;
	u64 book_off;
	u64 ring_off;
	u64 ring_stride;
	u32 meta_off, cq_off, req_off, resp_off;
};

/* A thread ring's book, as read once. */
struct cowbird_snap {
	u64 tail;
	u64 head;
};

/* Engine-private state of one fetched entry. */
enum cowbird_req_state {
	COWBIRD_REQ_FREE,	/* not fetched */
	COWBIRD_REQ_ACTIVE,	/* fetched, ops outstanding or to issue */
	COWBIRD_REQ_DONE,	/* every byte done, or failed its checks */
};

struct cowbird_req {
	u64 region_off;		/* checked: region_off + length <= region_size */
	u64 fetched_ns;
	u64 issue_delay_ns;	/* fetch to first dispatch */
	u64 total_delay_ns;	/* fetch to last op's end */
	u32 buf_off;		/* checked: in this ring's data buffer */
	u32 length;
	u32 index;
	u32 issued;		/* bytes handed out as ops */
	u32 done;		/* bytes whose ops ended */
	u16 rw_type;		/* READ or WRITE (progress class of a bad entry) */
	u16 status;		/* enum cowbird_status: the first failure */
	u8 state;		/* enum cowbird_req_state */
	u8 fetched_rw_type;	/* what the entry said, EMPTY if unknown */
	u16 pad;
};

/* One op of at most COWBIRD_OP_MAX bytes for the caller to execute. */
struct cowbird_op {
	u64 region_off;
	u32 buf_off;		/* in the request (write) or response (read) buffer */
	u32 length;
	u32 index;		/* the entry it belongs to */
	u16 rw_type;
	u16 pad;
};

struct cowbird_ring_stats {
	u64 fetched;		/* entries fetched */
	u64 rejected;		/* entries that failed their checks */
	u64 ops;		/* ops handed out */
	u64 completed;		/* entries completed */
	u64 batches;		/* book updates published */
	u64 rd_blocked;		/* next_op calls where the next read had to wait */
	u64 wr_blocked;		/* same for the next write */
};

/* What the caller hands to cowbird_ring_init(). */
struct cowbird_ring_cfg {
	struct cowbird_book *book;	/* the parts of the shared mapping */
	struct cowbird_meta *meta;
	struct cowbird_cqe *cq;
	struct cowbird_req *reqs;	/* cowbird_ring_reqs_size(entries), zeroed */
	u64 region_size;
	u32 entries;
	u32 data_size;
	u32 batch;			/* 1..COWBIRD_BATCH_MAX */
	u16 region_id;
};

struct cowbird_ring {
	struct cowbird_book *book;
	struct cowbird_meta *meta;
	struct cowbird_cqe *cq;
	struct cowbird_req *reqs;
	u64 region_size;
	u32 entries;
	u32 mask;
	u32 data_size;
	u32 batch;
	u32 cursor;		/* next entry index to fetch */
	u32 dpos;		/* data position after the last fetched entry */
	u32 dtail;		/* data tail of the last snapshot */
	u32 rd_done;		/* internal progress: reads below are complete */
	u32 wr_done;
	u32 rd_next;		/* oldest read that may still have ops to issue */
	u32 wr_next;
	u32 pub_rd_done;	/* what the book says */
	u32 pub_wr_done;
	u32 unpublished;	/* completions not yet in the book */
	u32 error;		/* enum cowbird_ring_error, sticky */
	u16 region_id;
	struct cowbird_ring_stats stats;
};

/* Index/position compares: a before b in a window of less than 2^31. */
static inline bool cowbird_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

int cowbird_layout_check(const struct cowbird_create *c);
void cowbird_layout_fill(struct cowbird_create *c, struct cowbird_layout *l);

static inline size_t cowbird_ring_reqs_size(u32 entries)
{
	return (size_t)entries * sizeof(struct cowbird_req);
}

int cowbird_ring_init(struct cowbird_ring *r, const struct cowbird_ring_cfg *cfg);
u16 cowbird_entry_check(const struct cowbird_ring *r, const struct cowbird_meta *e, u32 index,
			struct cowbird_req *req, u32 *dpos);
int cowbird_ring_fetch(struct cowbird_ring *r, u32 max, u64 now);
/* Directions for cowbird_ring_next_op_dirs(): BIT(rw_type) of each. */
#define COWBIRD_DIR_READ	BIT(COWBIRD_RW_READ)
#define COWBIRD_DIR_WRITE	BIT(COWBIRD_RW_WRITE)
#define COWBIRD_DIRS_ALL	(COWBIRD_DIR_READ | COWBIRD_DIR_WRITE)

bool cowbird_ring_next_op(struct cowbird_ring *r, u64 now, struct cowbird_op *op);
bool cowbird_ring_next_op_dirs(struct cowbird_ring *r, u64 now, u32 dirs, struct cowbird_op *op);
int cowbird_ring_op_done(struct cowbird_ring *r, const struct cowbird_op *op, u16 status,
			 u64 now);
u32 cowbird_ring_complete(struct cowbird_ring *r, bool flush);
u32 cowbird_ring_inflight(const struct cowbird_ring *r);
void cowbird_ring_fail(struct cowbird_ring *r, u32 error);

#endif /* _EDM_COWBIRD_RING_H */
