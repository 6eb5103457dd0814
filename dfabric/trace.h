/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the DFabric pool (system "edm_pool"): a rack compute
 * node's frames, each Buffer it puts on its TxQ for a node and each it
 * takes from its RxQ or loses before (edm_rack_cn_tx/rx); Table 2's calls as
 * the racks and the NIC pool make them, alloc_shared_buffer (with its
 * result), pass_shared_buffer (from one compute node's view to another's)
 * and free_shared_buffer; and the NIC pool's choice of a member for each
 * frame it sends out of the rack, and its receiving side's reordering of
 * sprayed frames. A compute node is named by its ID in the
 * pool, a Buffer by its reference, a member by its netdev. The shared pool
 * (across kernels): its netdev's frames to and from each member, each
 * renewal of this kernel's lease (its beat), and each member this kernel
 * reaps, by its slot. dfabric/pool.c creates them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM edm_pool

#if !defined(_EDM_TRACE_POOL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EDM_TRACE_POOL_H

#include <linux/tracepoint.h>

#include "edm/compat.h"

#define EDM_TRACE_NO_NODE	255	/* a frame with no destination */

/* @node: the destination (tx) or the sender (rx), EDM_TRACE_NO_NODE if none */
DECLARE_EVENT_CLASS(edm_rack_cn_frame,
	TP_PROTO(const char *dev, u32 node, u32 len, int err),
	TP_ARGS(dev, node, len, err),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, node)
		__field(u32, len)
		__field(int, err)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->node = node;
		__entry->len = len;
		__entry->err = err;
	),
	TP_printk("dev=%s node=%u len=%u err=%d", __get_str(dev), __entry->node, __entry->len,
		  __entry->err)
);

DEFINE_EVENT(edm_rack_cn_frame, edm_rack_cn_tx,
	TP_PROTO(const char *dev, u32 node, u32 len, int err),
	TP_ARGS(dev, node, len, err)
);

DEFINE_EVENT(edm_rack_cn_frame, edm_rack_cn_rx,
	TP_PROTO(const char *dev, u32 node, u32 len, int err),
	TP_ARGS(dev, node, len, err)
);

TRACE_EVENT(edm_pool_alloc,
	TP_PROTO(u32 node, u32 size, u64 ref, int err),
	TP_ARGS(node, size, ref, err),
	TP_STRUCT__entry(
		__field(u32, node)
		__field(u32, size)
		__field(u64, ref)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->node = node;
		__entry->size = size;
		__entry->ref = ref;
		__entry->err = err;
	),
	TP_printk("node=%u size=%u ref=0x%llx err=%d", __entry->node, __entry->size,
		  __entry->ref, __entry->err)
);

TRACE_EVENT(edm_pool_pass,
	TP_PROTO(u32 from, u32 to, u64 ref, u32 len, int err),
	TP_ARGS(from, to, ref, len, err),
	TP_STRUCT__entry(
		__field(u32, from)
		__field(u32, to)
		__field(u64, ref)
		__field(u32, len)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->from = from;
		__entry->to = to;
		__entry->ref = ref;
		__entry->len = len;
		__entry->err = err;
	),
	TP_printk("from=%u to=%u ref=0x%llx len=%u err=%d", __entry->from, __entry->to,
		  __entry->ref, __entry->len, __entry->err)
);

TRACE_EVENT(edm_pool_free,
	TP_PROTO(u32 node, u64 ref),
	TP_ARGS(node, ref),
	TP_STRUCT__entry(
		__field(u32, node)
		__field(u64, ref)
	),
	TP_fast_assign(
		__entry->node = node;
		__entry->ref = ref;
	),
	TP_printk("node=%u ref=0x%llx", __entry->node, __entry->ref)
);

TRACE_EVENT(edm_nicpool_tx,
	TP_PROTO(const char *member, u32 len, u32 depth, int rc),
	TP_ARGS(member, len, depth, rc),
	TP_STRUCT__entry(
		__string(member, member)
		__field(u32, len)
		__field(u32, depth)
		__field(int, rc)
	),
	TP_fast_assign(
		edm_trace_assign_str(member, member);
		__entry->len = len;
		__entry->depth = depth;
		__entry->rc = rc;
	),
	TP_printk("member=%s len=%u depth=%u rc=%d", __get_str(member), __entry->len,
		  __entry->depth, __entry->rc)
);

/*
 * A sprayed frame at the receiving NIC pool's reorder stage: "in order",
 * "held" (ahead of a hole), "late" (behind, given up), "dup", "window"
 * (too far ahead: what was held goes up); and "timeout", the holes of a
 * context given up (@seq is then its next expected number).
 */
TRACE_EVENT(edm_nicpool_reorder,
	TP_PROTO(const char *np, u32 tag, u32 seq, u32 next, const char *what),
	TP_ARGS(np, tag, seq, next, what),
	TP_STRUCT__entry(
		__string(np, np)
		__field(u32, tag)
		__field(u32, seq)
		__field(u32, next)
		__string(what, what)
	),
	TP_fast_assign(
		edm_trace_assign_str(np, np);
		__entry->tag = tag;
		__entry->seq = seq;
		__entry->next = next;
		edm_trace_assign_str(what, what);
	),
	TP_printk("np=%s tag=0x%x seq=%u next=%u what=%s", __get_str(np), __entry->tag,
		  __entry->seq, __entry->next, __get_str(what))
);

/*
 * The shared pool's netdev: a frame to member @slot (err 0: queued on the
 * ring to it; -ENOBUFS: no Buffer or too long; else what the pass said),
 * and a frame taken from member @slot's ring (err 0: up the stack).
 */
DECLARE_EVENT_CLASS(edm_shpool_frame,
	TP_PROTO(const char *dev, u32 slot, u32 len, int err),
	TP_ARGS(dev, slot, len, err),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, slot)
		__field(u32, len)
		__field(int, err)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->slot = slot;
		__entry->len = len;
		__entry->err = err;
	),
	TP_printk("dev=%s slot=%u len=%u err=%d", __get_str(dev), __entry->slot, __entry->len,
		  __entry->err)
);

DEFINE_EVENT(edm_shpool_frame, edm_shpool_tx,
	TP_PROTO(const char *dev, u32 slot, u32 len, int err),
	TP_ARGS(dev, slot, len, err)
);

DEFINE_EVENT(edm_shpool_frame, edm_shpool_rx,
	TP_PROTO(const char *dev, u32 slot, u32 len, int err),
	TP_ARGS(dev, slot, len, err)
);

TRACE_EVENT(edm_shpool_lease,
	TP_PROTO(const char *dev, u32 slot, u32 epoch, u64 beat),
	TP_ARGS(dev, slot, epoch, beat),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, slot)
		__field(u32, epoch)
		__field(u64, beat)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->slot = slot;
		__entry->epoch = epoch;
		__entry->beat = beat;
	),
	TP_printk("dev=%s slot=%u epoch=%u beat=%llu", __get_str(dev), __entry->slot,
		  __entry->epoch, __entry->beat)
);

TRACE_EVENT(edm_shpool_reap,
	TP_PROTO(const char *dev, u32 slot, u32 epoch, u32 silent_ms, u32 freed),
	TP_ARGS(dev, slot, epoch, silent_ms, freed),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, slot)
		__field(u32, epoch)
		__field(u32, silent_ms)
		__field(u32, freed)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->slot = slot;
		__entry->epoch = epoch;
		__entry->silent_ms = silent_ms;
		__entry->freed = freed;
	),
	TP_printk("dev=%s slot=%u epoch=%u silent_ms=%u freed=%u", __get_str(dev),
		  __entry->slot, __entry->epoch, __entry->silent_ms, __entry->freed)
);

#endif /* _EDM_TRACE_POOL_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
