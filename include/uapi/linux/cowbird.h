/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * cowbird: the user-space ABI of /dev/cowbird, edm's Cowbird offload engine.
 *
 * An application reaches remote memory with nothing but stores to its own
 * memory (Cowbird, SoCC '23, sections 4.2 and 4.3): requests go into rings in
 * a shared mapping, an engine in the kernel finds and executes them, and
 * completions come back as progress counters and completion records in the
 * same mapping. tools/lib/cowbird (libcowbird) is the intended user of this
 * header; Documentation/cowbird.md describes the protocol.
 *
 * Setup: open /dev/cowbird, COWBIRD_IOC_CREATE once per open file (binds the
 * instance to a region, presenting its key, and sizes the rings), then mmap
 * mmap_size bytes at offset 0, MAP_SHARED (else EINVAL; PROT_EXEC is EPERM,
 * as on /dev/edm<N>). The mapping holds, at the offsets the ioctl returns:
 *
 *   book_off                  nr_rings struct cowbird_book, one per thread ring
 *   ring_off + r*ring_stride  thread ring r:
 *     + meta_off              (1 << meta_order) struct cowbird_meta
 *     + cq_off                (1 << meta_order) struct cowbird_cqe
 *     + req_off               request data buffer, 1 << data_order bytes
 *     + resp_off              response data buffer, 1 << data_order bytes
 *
 * Every part starts on a page boundary. Values are never renumbered and
 * structs only grow at their end, behind a new COWBIRD_ABI_VERSION.
 *
 * Trust model and index ownership. The mapping is user memory: the engine
 * trusts none of it. It snapshots a book once per pass, copies each entry
 * before checking it, never reads an entry twice, and checks every field
 * (rw_type, index, region_id, length, both addresses) before it moves one
 * byte; it writes only into the response data buffer, the completion records
 * and the engine half of the book, and only at places it computed itself.
 * A bad entry gets an error completion; a book that breaks the rules below
 * stops the ring (book.error). User space trusts the engine.
 *
 *   field          written by      read by   meaning
 *   book.tail      producers       engine    reserved up to (entry, data)
 *   book.head      library reaper  engine    freed up to (entry, data)
 *   meta[i]        its producer    engine    rw_type last, store-release
 *   meta[i].rw_type=0  reaper      producer  slot free again
 *   cq[i]          engine          reaper    before rd_done/wr_done pass i
 *   resp data      engine          reaper    before rd_done passes the read
 *   book.consumed, rd_done, wr_done, error, batches: engine, store-release
 *
 * Positions. book.tail and book.head each pack two free-running 32-bit
 * counters into one __u64 (COWBIRD_POS): the entry index and the data
 * position, so one compare-and-swap reserves an entry and its bytes
 * together and entries and payloads are in the same order. The data position
 * counts bytes of one position space that both data buffers share: a read
 * takes its response bytes at position p of the response data buffer, a
 * write its payload at position p of the request data buffer. A payload never
 * wraps: if it does not fit before the end of the buffer, the reservation
 * skips to the next start (cowbird_data_place()), and the engine computes the
 * same place. A payload is at most half a data buffer, so an empty buffer
 * always takes it, padding included. Indices are masked with the ring size; all compares are
 * modular (differences as __s32).
 *
 * Rules the engine enforces on a snapshot (else book.error is set):
 *   head <= consumed <= tail and tail - head <= 1 << meta_order (entries),
 *   data tail - data head <= 1 << data_order.
 */
#ifndef _UAPI_LINUX_COWBIRD_H
#define _UAPI_LINUX_COWBIRD_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define COWBIRD_ABI_VERSION	1
#define COWBIRD_DEV_NAME	"cowbird"	/* /dev/cowbird */

#define COWBIRD_MAX_RINGS	64
#define COWBIRD_META_ORDER_MIN	4	/* 16 entries per ring */
#define COWBIRD_META_ORDER_MAX	15	/* 32768 entries per ring */
#define COWBIRD_DATA_ORDER_MIN	12	/* 4 KB per data buffer */
#define COWBIRD_DATA_ORDER_MAX	24	/* 16 MB per data buffer */
#define COWBIRD_OP_MAX		4096	/* the engine cuts transfers into ops of this size */

/* One __u64 holding an entry index (low half) and a data position (high half). */
#define COWBIRD_POS(idx, data)	((__u64)(__u32)(idx) | ((__u64)(__u32)(data) << 32))
#define COWBIRD_POS_IDX(pos)	((__u32)(pos))
#define COWBIRD_POS_DATA(pos)	((__u32)((pos) >> 32))

/*
 * Where a payload of len bytes (1 <= len <= size / 2) reserved at data
 * position pos starts, in a buffer of size bytes (a power of two): at pos, or
 * at the start of the next lap when it would wrap. The reservation ends at
 * cowbird_data_place(...) + len.
 */
static __inline__ __u32 cowbird_data_place(__u32 pos, __u32 len, __u32 size)
{
	if ((pos & (size - 1)) + len > size)
		return (pos | (size - 1)) + 1;
	return pos;
}

/* meta.rw_type; 0 marks a slot that holds no request yet. */
enum cowbird_rw_type {
	COWBIRD_RW_EMPTY,
	COWBIRD_RW_READ,	/* region [req_addr, +length) -> resp data at resp_addr */
	COWBIRD_RW_WRITE,	/* req data at req_addr -> region [resp_addr, +length) */
};

/*
 * A request metadata entry: the fields of the paper's Table 3, plus the
 * entry's own index so the engine can tell a stale or misplaced entry.
 * Addresses are byte offsets: in the region for the remote side, in this
 * ring's data buffer for the local side (which must be the place computed by
 * cowbird_data_place()). The producer fills every other field, then stores
 * rw_type with release semantics.
 *
 * Layout (32 bytes, two entries per cache line):
 *   0 rw_type  2 region_id  4 length  8 req_addr  16 resp_addr  24 index  28 pad
 */
struct cowbird_meta {
	__u16 rw_type;		/* enum cowbird_rw_type, written last */
	__u16 region_id;	/* the instance's region */
	__u32 length;		/* bytes, 1 .. half a data buffer */
	__u64 req_addr;		/* read: region offset; write: request data offset */
	__u64 resp_addr;	/* read: response data offset; write: region offset */
	__u32 index;		/* free-running entry index (book.tail's half) */
	__u32 pad;		/* 0 */
};

/* Completion status, as 1RMA's op outcomes (1RMA, SIGCOMM '20, 4.5). */
enum cowbird_status {
	COWBIRD_ST_OK,
	/*
	 * The target refused the op: its memory node no longer takes the key
	 * (rekeyed while the op was out) or serves no region. 1RMA's NACK
	 * also covers a target shedding load; none does yet.
	 */
	COWBIRD_ST_NACK,
	COWBIRD_ST_DISPATCH_TIMEOUT,	/* local congestion: not dispatched in time */
	COWBIRD_ST_TIMEOUT,		/* no answer in time (loss, failure) */
	COWBIRD_ST_EACCES,		/* region id or key does not match (rekeyed) */
	COWBIRD_ST_EFAULT,		/* address or length outside the region or buffer */
	COWBIRD_ST_EINVAL,		/* malformed entry: rw_type, index, length */

	__COWBIRD_ST_CNT,
	COWBIRD_ST_MAX = __COWBIRD_ST_CNT - 1
};

/*
 * A completion record, one per entry slot, written by the engine before the
 * progress counter of the entry's type passes it. Delays are measured by the
 * engine: issue_delay from fetching the entry to dispatching its first op
 * (local congestion), total_delay from fetching it to its last op's end.
 *
 * Layout (32 bytes):
 *   0 index  4 status  6 rw_type  8 length  12 pad  16 issue_delay_ns
 *   24 total_delay_ns
 */
struct cowbird_cqe {
	__u32 index;		/* the entry's index */
	__u16 status;		/* enum cowbird_status */
	__u16 rw_type;		/* as fetched; EMPTY if unknown */
	__u32 length;		/* bytes transferred */
	__u32 pad;
	__u64 issue_delay_ns;
	__u64 total_delay_ns;
};

/* book.error: why the engine stopped serving a ring. */
enum cowbird_ring_error {
	COWBIRD_RING_OK,
	COWBIRD_RING_ETAIL,	/* tail moved backwards or beyond head + size */
	COWBIRD_RING_EHEAD,	/* head moved backwards or beyond what was completed */
	COWBIRD_RING_EDATA,	/* data tail beyond data head + buffer size */
	COWBIRD_RING_EDEAD,	/* the instance is going away */
};

/*
 * The bookkeeping block of one thread ring: all heads, tails and progress
 * counters in two cache lines, one per writer, so the engine reads the
 * library's half or writes its own half at once (Cowbird 4.2, "Bookkeeping").
 *
 * Layout (128 bytes):
 *   0 tail  8 head  16..63 reserved
 *   64 consumed  68 rd_done  72 wr_done  76 error  80 batches  88..127 reserved
 */
struct cowbird_book {
	/* Written by the library. */
	__u64 tail;		/* COWBIRD_POS: entries and data reserved */
	__u64 head;		/* COWBIRD_POS: entries and data freed */
	__u64 user_rsvd[6];
	/* Written by the engine. */
	__u32 consumed;		/* entries fetched */
	__u32 rd_done;		/* every read at an index below this is complete */
	__u32 wr_done;		/* every write at an index below this is complete */
	__u32 error;		/* enum cowbird_ring_error; sticky */
	__u64 batches;		/* completion batches published */
	__u64 eng_rsvd[5];
};

/*
 * COWBIRD_IOC_CREATE: bind this open file to a region and size its rings.
 * In-fields are checked (every reserved or pad field must be 0); out-fields
 * describe the mapping. Errors: EINVAL (a field, or COWBIRD_CREATE_FABRIC
 * with a pool region), EPROTO (abi_version), ENOENT (no such region, or no
 * host at via), EACCES (wrong key), EBUSY (already created), ENOMEM.
 *
 * The region is in the caller's network namespace: a memory node's, named by
 * its fabric address (below 512), or a CXL pool region, named by its ID (512
 * and up; edmctl region create pool). Without flags the engine copies to and
 * from it directly (a local memory node, or the pool's memory). With
 * COWBIRD_CREATE_FABRIC it reaches a memory node's region through the EDM
 * fabric: every op is a fabric read or write issued by the host at fabric
 * address via, and lost ops are retried go-back-N.
 *
 * With COWBIRD_CREATE_SHPOOL the instance is served by the Cowbird engine of
 * another kernel that shares a pool with this one (Documentation/pool.md):
 * shpool is this kernel's membership (its edm device ID, edmctl shpool
 * show), via the engine's host slot in the pool (edmctl shpool hosts), and
 * the region is looked up, with its key, in that kernel's membership's
 * network namespace. The mapping is pool memory; this kernel's CPUs do no
 * engine work for it. Further errors: ENODEV (no such membership),
 * EHOSTDOWN (no live host at via, or it went away before answering),
 * ETIMEDOUT (it did not answer), E2BIG (the mapping would not fit the
 * pool's free Buffers), EBUSY (every export slot is taken). If the engine's
 * kernel dies later, every ring stops with COWBIRD_RING_EDEAD. If this
 * kernel is reaped (it stalled past its lease) or loses the pool under
 * the instance (its device unbound), the mapping is taken away: touching
 * it is SIGBUS, and mmap is ENODEV.
 *
 * dispatch_us (COWBIRD_CREATE_FABRIC only, else 0): an op the via host has
 * not put on the wire this long after it was handed over ends
 * COWBIRD_ST_DISPATCH_TIMEOUT (1RMA 4.5: local congestion) and cuts the
 * local congestion window to a tenth. 0: twice the via host's longest op
 * timeout (its timeout_ms: an op may wait behind a lost one of the other
 * kind, Documentation/cowbird.md); 1RMA's NIC uses 10. At most
 * COWBIRD_DISPATCH_US_MAX. A kernel older than the field
 * says EINVAL to a nonzero value.
 *
 * Layout (104 bytes):
 *   0 abi_version  4 flags  8 region_key  16 region_id  18 nr_rings
 *   20 meta_order  21 data_order  22 via  24 instance_id  28 pad1
 *   32 region_size  40 mmap_size  48 book_off  56 ring_off  64 ring_stride
 *   72 meta_off  76 cq_off  80 req_off  84 resp_off  88 shpool  92 dispatch_us
 *   96 rsvd1
 */
#define COWBIRD_CREATE_FABRIC	(1U << 0)	/* through the EDM fabric, from host via */
#define COWBIRD_CREATE_SHPOOL	(1U << 1)	/* served by host slot via of pool shpool */
#define COWBIRD_DISPATCH_US_MAX	1000000		/* dispatch_us: one second */

struct cowbird_create {
	/* in */
	__u32 abi_version;	/* COWBIRD_ABI_VERSION */
	__u32 flags;		/* COWBIRD_CREATE_* */
	__u64 region_key;	/* the region's current key */
	__u16 region_id;
	__u16 nr_rings;		/* 1 .. COWBIRD_MAX_RINGS */
	__u8 meta_order;	/* log2 entries per ring */
	__u8 data_order;	/* log2 bytes of each data buffer */
	__u16 via;		/* COWBIRD_CREATE_FABRIC: the issuing host's address; else 0 */
	/* out */
	__u32 instance_id;
	__u32 pad1;
	__u64 region_size;	/* bytes addressable in the region */
	__u64 mmap_size;
	__u64 book_off;		/* book r at book_off + r * sizeof(struct cowbird_book) */
	__u64 ring_off;		/* ring r at ring_off + r * ring_stride */
	__u64 ring_stride;
	__u32 meta_off;		/* within a ring */
	__u32 cq_off;
	__u32 req_off;
	__u32 resp_off;
	__u32 shpool;		/* COWBIRD_CREATE_SHPOOL: the membership's device ID; else 0 */
	__u32 dispatch_us;	/* in; COWBIRD_CREATE_FABRIC: see above; else 0 */
	__u64 rsvd1;
};

#define COWBIRD_IOC_MAGIC	0xCB
#define COWBIRD_IOC_CREATE	_IOWR(COWBIRD_IOC_MAGIC, 1, struct cowbird_create)

#endif /* _UAPI_LINUX_COWBIRD_H */
