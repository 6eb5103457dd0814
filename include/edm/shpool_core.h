/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DFabric pool shared by several kernels (paper 3, 4.1-4.3), a
 * kernel-agnostic core (include/edm/core.h): the layout of one memory range
 * that every host maps (an ivshmem BAR or a CXL region), and the lock-free
 * protocol the hosts follow on it.
 *
 * Everything the hosts share is in the range, as offsets, never pointers:
 * a superblock, a host table, a holder word per Buffer and a ring per
 * ordered pair of hosts. Each host keeps a private view (struct edm_shp)
 * with its own pointers into its own mapping.
 *
 * Buffers have one size. A Buffer's holder word is gen << 32 | tag, tag 0
 * when free; a host's tag is epoch << 8 | (slot + 1), so a tag names one
 * life of one host. Allocating, passing and freeing are compare-and-swap
 * on that word; passing changes the tag to the receiver's and keeps gen,
 * allocating bumps gen, so a stale descriptor never matches again.
 *
 * A host joins by taking a free slot (state FREE -> JOINING -> LIVE, epoch
 * bumped) and beats while it lives. A host whose beat stops for the lease
 * is reaped by whichever survivor wins the LIVE -> DEAD swap: every Buffer
 * tagged with the dead life is freed, then the slot is FREE again. A sender
 * that passed a Buffer to a host that died meanwhile takes it back (or the
 * reaper has freed it: exactly one compare-and-swap wins).
 *
 * Ring (src, dst) has one producer (src) and one consumer (dst); each index
 * is written by one side only, published with release and read with
 * acquire. A descriptor carries the holder word the receiver must find; the
 * receiver refuses one that does not match (stale, or from a reaped life).
 *
 * A host that leaves gives its Buffers back itself (LIVE -> LEAVING ->
 * FREE); one whose receiver lent Buffers to its network stack may keep
 * those and stay LEAVING, beating, until it gives the last one back
 * (edm_shp_leave_keep(), _leave_end()); if its beat stops meanwhile, it is
 * reaped as a dead host is.
 *
 * A life that was reaped while it still runs (a stalled host) is fenced:
 * it allocates and takes nothing more, so it cannot keep a Buffer past its
 * reap or eat what is queued to the slot's next life.
 *
 * Exports (Cowbird across kernels). An owner claims an export slot, takes
 * a run of Buffers for an area that it maps and another host (the slot's
 * target) serves. The run's holder words carry the export's tag, not a
 * life's, so no reap frees them: the export is freed only once its owner
 * closed it or died AND nobody may still touch the area (no engine took
 * it, the engine acknowledged, or the engine's life is gone). Whoever sees
 * that first frees it (edm_shp_x_sweep(), one swap wins; a sweeper that
 * dies half way is finished by the next). The engine word goes 0 -> the
 * engine's tag (it serves) or 0 -> BLOCKED (nobody will): one swap
 * decides, so an owner never frees an area an engine starts on. A life
 * reaped while it still runs may still make plain stores into a slot that
 * was recycled meanwhile (its fields, an answer); the swaps on the state
 * word, and acks that name the engine, keep it from freeing or publishing
 * anything there.
 *
 * The core takes no lock and reads no clock. On one view, the producer side
 * (edm_shp_alloc(), _send(), _post()), the consumer side (edm_shp_take())
 * and the reaper (edm_shp_beat(), _reap()) may run concurrently, each
 * serialized with itself; edm_shp_free() and the readers (_room(),
 * _pending(), _held(), _fenced(), _find_mac()) may run anywhere. Joining
 * and leaving run alone, and edm_shp_set_mac() (one swap) apart from them.
 */
#ifndef _EDM_SHPOOL_CORE_H
#define _EDM_SHPOOL_CORE_H

#include "edm/core.h"

/*
 * Shared words: compare-and-swap (a full barrier, returning the old value),
 * plain loads and stores of one writer's words, release and acquire for
 * indices and states that publish what was written before them, and the
 * full fence a swap-then-check needs (see edm_shp_pass()).
 */
#ifdef __KERNEL__
#include <linux/atomic.h>
#include <asm/barrier.h>
#define edm_shp_cas64(p, o, n)		cmpxchg64(p, o, n)
#define edm_shp_cas32(p, o, n)		cmpxchg(p, o, n)
#define edm_shp_load(p)			READ_ONCE(*(p))
#define edm_shp_store(p, v)		WRITE_ONCE(*(p), v)
/* pairs with edm_shp_release() of the word's writer */
#define edm_shp_acquire(p)		smp_load_acquire(p)
/* pairs with edm_shp_acquire() of the word's readers */
#define edm_shp_release(p, v)		smp_store_release(p, v)
/* orders a swap before the load that checks whether a reaper raced it */
#define edm_shp_fence()			smp_mb()
#else
static inline u64 edm_shp_cas64(u64 *p, u64 o, u64 n)
{
	__atomic_compare_exchange_n(p, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return o;
}

static inline u32 edm_shp_cas32(u32 *p, u32 o, u32 n)
{
	__atomic_compare_exchange_n(p, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return o;
}

#define edm_shp_load(p)			__atomic_load_n(p, __ATOMIC_RELAXED)
#define edm_shp_store(p, v)		__atomic_store_n(p, v, __ATOMIC_RELAXED)
#define edm_shp_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define edm_shp_release(p, v)		__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define edm_shp_fence()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

#define EDM_SHP_MAGIC		0x314c504853444d45ULL	/* "EDMSHPL1" */

enum {
	EDM_SHP_VERSION		= 3,	/* 2: export slots; 3: frames in pages */
	EDM_SHP_MAX_HOSTS	= 16,
	EDM_SHP_DEFAULT_HOSTS	= 8,
	EDM_SHP_MIN_BUF_SHIFT	= 11,		/* 2 KiB: one MTU-sized frame */
	EDM_SHP_MAX_BUF_SHIFT	= 17,		/* 128 KiB */
	EDM_SHP_DEFAULT_BUF_SHIFT = 16,		/* 64 KiB: one GSO packet */
	EDM_SHP_MIN_RING	= 8,
	EDM_SHP_MAX_RING	= 4096,
	EDM_SHP_DEFAULT_RING	= 256,
	EDM_SHP_MIN_LEASE_MS	= 100,
	EDM_SHP_MAX_LEASE_MS	= 600000,
	EDM_SHP_DEFAULT_LEASE_MS = 3000,
	EDM_SHP_NAME_LEN	= 32,
	EDM_SHP_LINE		= 64,		/* what one index or entry is padded to */
	EDM_SHP_XPORTS_PER_HOST	= 4,		/* export slots: this many per host */
};

/*
 * A frame in a Buffer of a page or more: EDM_SHP_FRAME_HEADROOM bytes of
 * headroom, the frame's first EDM_SHP_FRAME_HEAD bytes, the rest of the
 * first 4 KiB page unused (a receiver that wraps the Buffer in an skb
 * keeps its skb_shared_info there), and the rest of the frame from the
 * second page on, so that no page but the first holds two parts of it.
 * In smaller Buffers the frame starts at offset 0. Fixed here, not taken
 * from a kernel's headers: kernels of different versions share the pool.
 */
enum {
	EDM_SHP_FRAME_PAGE	= 4096,
	EDM_SHP_FRAME_HEADROOM	= 64,
	EDM_SHP_FRAME_HEAD	= 3584,
};

/* The superblock's format word. */
enum edm_shp_fmt {
	EDM_SHP_FMT_BLANK,
	EDM_SHP_FMT_BUSY,			/* one host is writing the layout */
	EDM_SHP_FMT_READY,
};

/* A host slot's state, the low half of its state word; the high half is the epoch. */
enum edm_shp_hstate {
	EDM_SHP_H_FREE,
	EDM_SHP_H_JOINING,
	EDM_SHP_H_LIVE,
	EDM_SHP_H_DEAD,				/* a survivor is reclaiming its Buffers */
	EDM_SHP_H_LEAVING,			/* it is giving its Buffers back itself */
};

/* An export slot's state, the low half of its word; the high half is its owner's tag. */
enum edm_shp_xstate {
	EDM_SHP_X_FREE,
	EDM_SHP_X_CLAIMED,			/* its owner is taking Buffers and filling it */
	EDM_SHP_X_OFFERED,			/* for its target to serve */
	EDM_SHP_X_CLOSED,			/* its owner is done with it */
	EDM_SHP_X_FREEING,			/* a sweeper (the word's tag) frees its Buffers */
};

/* What an engine answered to an offer. */
enum edm_shp_xresult {
	EDM_SHP_XR_PENDING,
	EDM_SHP_XR_SERVED,
	EDM_SHP_XR_REFUSED,			/* error says why */
};

#define EDM_SHP_XW(state, owner)	((u64)(owner) << 32 | (state))
#define EDM_SHP_XW_STATE(w)		((u32)(w))
#define EDM_SHP_XW_OWNER(w)		((u32)((w) >> 32))
/* an export's holder tag: slot byte 0xff is no host's */
#define EDM_SHP_XTAG(i)			((u32)((i) + 1) << 8 | 0xff)
#define EDM_SHP_X_BLOCKED		0xffffffffU	/* engine word: nobody serves */

#define EDM_SHP_HW(state, epoch)	((u64)(epoch) << 32 | (state))
#define EDM_SHP_HW_STATE(w)		((u32)(w))
#define EDM_SHP_HW_EPOCH(w)		((u32)((w) >> 32))
#define EDM_SHP_TAG(slot, epoch)	((u32)(epoch) << 8 | ((slot) + 1))
#define EDM_SHP_TAG_SLOT(t)		(((t) & 0xff) - 1)
#define EDM_SHP_GEN(w)			((u32)((w) >> 32))
#define EDM_SHP_WTAG(w)			((u32)(w))

/* Offset 0 of the range. Written once, by the host that formats it. */
struct edm_shp_super {
	u64 magic;
	u32 version;
	u32 fmt;		/* enum edm_shp_fmt, swapped BLANK -> BUSY by the formatter */
	u64 size;		/* bytes of the range the layout fits in */
	u32 nhosts;
	u32 buf_shift;
	u32 nbufs;
	u32 ring_size;		/* descriptors per ring, a power of 2 */
	u32 lease_ms;		/* beats may stop this long before a host is reaped */
	u32 pad;
	u64 hosts_off;		/* struct edm_shp_host[nhosts] */
	u64 holder_off;		/* u64[nbufs] */
	u64 rings_off;		/* nhosts * nhosts rings of ring_bytes */
	u64 ring_bytes;
	u64 bufs_off;		/* nbufs << buf_shift bytes, page aligned */
	u64 xports_off;		/* struct edm_shp_export[nxports] */
	u32 nxports;		/* nhosts * EDM_SHP_XPORTS_PER_HOST */
	u32 pad2;
};

struct edm_shp_host {
	u64 state;		/* EDM_SHP_HW(state, epoch) */
	u64 beat;		/* bumped by the host while it lives */
	u64 reaped;		/* lives of this slot reaped by others */
	union {
		u8 mac[6];
		u64 mac_word;	/* mac and 2 bytes: swapped whole (edm_shp_set_mac()) */
	};
	char name[EDM_SHP_NAME_LEN];	/* NUL-terminated */
	u32 up;			/* 1 while its receive side runs (its netdev is up) */
	u8 pad2[EDM_SHP_LINE - 4];
};

/*
 * An export slot: an area of Buffers [buf, buf + nbufs) that its owner maps
 * and its target serves (a Cowbird instance: the create parameters follow).
 * The owner writes everything but engine, ack, result, error and
 * region_size, which are the engine's.
 */
struct edm_shp_export {
	u64 word;		/* EDM_SHP_XW(state, owner's tag) */
	u32 engine;		/* the serving life's tag, EDM_SHP_X_BLOCKED, or 0 */
	u32 ack;		/* engine: its tag once it touches the area no more */
	u32 target;		/* the host slot asked to serve */
	u32 buf;
	u32 nbufs;
	u32 result;		/* engine: enum edm_shp_xresult, released last */
	s32 error;		/* engine: why it refused, a negative errno */
	u32 inst_id;		/* the owner's name for it (its Cowbird instance) */
	u64 region_key;
	u64 region_size;	/* engine: with SERVED */
	u16 region_id;
	u16 nr_rings;
	u8 meta_order;
	u8 data_order;
	u8 pad[2];
	u8 pad2[2 * EDM_SHP_LINE - 64];
};

/* A descriptor: a Buffer passed from the ring's src to its dst. */
struct edm_shp_desc {
	u64 hw;			/* the holder word the receiver must find */
	u32 buf;
	u32 len;
	u8 meta[16];		/* the caller's (a virtio_net_hdr for frames) */
};

/* A ring's header; ring_size descriptors follow it. */
struct edm_shp_ring {
	u32 prod;		/* written by src only */
	u8 pad[EDM_SHP_LINE - 4];
	u32 cons;		/* written by dst only */
	u8 pad2[EDM_SHP_LINE - 4];
};

struct edm_shp_cfg {
	u32 nhosts;		/* 2 .. EDM_SHP_MAX_HOSTS */
	u32 buf_shift;
	u32 ring_size;
	u32 lease_ms;
};

/*
 * Counters of one view, private to its host. Each is written by one side
 * only: allocs .. ring_full by the producer, takes and refused by the
 * consumer, reaped_* by whoever reaps; frees are the caller's to count.
 */
struct edm_shp_stats {
	u64 allocs, no_buf, passes, taken_back, posts, ring_full;
	u64 takes, refused, reaped_hosts, reaped_bufs;
	u64 x_claimed, x_swept;
};

/* One host's view of a mapped range. */
struct edm_shp {
	u8 *base;
	u64 size;
	struct edm_shp_super *sb;	/* a copy checked at open is in geo */
	struct edm_shp_super geo;
	struct edm_shp_host *hosts;
	u64 *holder;
	u8 *rings;
	u8 *bufs;
	u32 slot;		/* EDM_SHP_MAX_HOSTS: not joined */
	u32 epoch;
	u32 tag;
	u32 cursor;		/* where the next allocation looks first */
	struct edm_shp_stats st;
};

void edm_shp_cfg_default(struct edm_shp_cfg *cfg);
int edm_shp_cfg_check(const struct edm_shp_cfg *cfg, u64 size);
int edm_shp_format(void *base, u64 size, const struct edm_shp_cfg *cfg);
int edm_shp_open(struct edm_shp *v, void *base, u64 size);

int edm_shp_join(struct edm_shp *v, const char *name, const u8 *mac);
bool edm_shp_fenced(const struct edm_shp *v);
void edm_shp_beat(struct edm_shp *v);
u32 edm_shp_leave(struct edm_shp *v);
u32 edm_shp_leave_keep(struct edm_shp *v, bool (*keep)(void *arg, u32 buf), void *arg);
bool edm_shp_leaving(const struct edm_shp *v);
u32 edm_shp_leave_end(struct edm_shp *v);
u32 edm_shp_reap(struct edm_shp *v, u32 slot, u64 state);
u64 edm_shp_host_state(const struct edm_shp *v, u32 slot);
u32 edm_shp_held(const struct edm_shp *v, u32 slot);
int edm_shp_find_mac(const struct edm_shp *v, const u8 *mac);
int edm_shp_set_mac(struct edm_shp *v, const u8 *old, const u8 *mac);
void edm_shp_set_up(struct edm_shp *v, bool up);
bool edm_shp_peer_up(const struct edm_shp *v, u32 slot);

int edm_shp_alloc(struct edm_shp *v, u32 *buf, u64 *hw);
void *edm_shp_buf(const struct edm_shp *v, u32 buf);
u32 edm_shp_buf_size(const struct edm_shp *v);
bool edm_shp_frame_paged(const struct edm_shp *v);
u32 edm_shp_frame_max(const struct edm_shp *v);
void edm_shp_frame_parts(const struct edm_shp *v, u32 len, u32 *off0, u32 *len0, u32 *off1);
int edm_shp_free(struct edm_shp *v, u32 buf, u64 hw);
int edm_shp_pass(struct edm_shp *v, u32 buf, u64 hw, u32 dst, u64 *new_hw);
int edm_shp_post(struct edm_shp *v, u32 dst, const struct edm_shp_desc *d);
int edm_shp_send(struct edm_shp *v, u32 dst, u32 buf, u64 hw, u32 len, const void *meta,
		 u32 meta_len);
int edm_shp_take(struct edm_shp *v, u32 src, struct edm_shp_desc *d);
u32 edm_shp_room(const struct edm_shp *v, u32 dst);
bool edm_shp_pending(const struct edm_shp *v, u32 src);

bool edm_shp_tag_live(const struct edm_shp *v, u32 tag);
struct edm_shp_export *edm_shp_x(const struct edm_shp *v, u32 i);
int edm_shp_x_claim(struct edm_shp *v, u32 target, u32 nbufs, u32 *xi, u32 *buf);
int edm_shp_x_offer(struct edm_shp *v, u32 i);
int edm_shp_x_result(const struct edm_shp *v, u32 i, u64 *region_size);
bool edm_shp_x_engine_lost(const struct edm_shp *v, u32 i);
void edm_shp_x_close(struct edm_shp *v, u32 i);
int edm_shp_x_next_offer(const struct edm_shp *v, u32 from);
int edm_shp_x_take(struct edm_shp *v, u32 i, struct edm_shp_export *copy);
void edm_shp_x_untake(struct edm_shp *v, u32 i);
void edm_shp_x_answer(struct edm_shp *v, u32 i, int err, u64 region_size);
bool edm_shp_x_wanted(const struct edm_shp *v, u32 i, u64 word);
void edm_shp_x_ack(struct edm_shp *v, u32 i);
u32 edm_shp_x_sweep(struct edm_shp *v);

#endif /* _EDM_SHPOOL_CORE_H */
