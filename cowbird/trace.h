/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of Cowbird's engine (system "edm_cowbird"): the requests it
 * fetches from an instance's ring, each op it completes, local or over the
 * fabric, with its 1RMA status (enum cowbird_status: 0 OK), and each NACK
 * a memory node answered a fabric op with, and why. An
 * instance is named by its ID, as `edmctl cowbird show` lists it.
 * cowbird/engine.c creates them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM edm_cowbird

#if !defined(_EDM_TRACE_COWBIRD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EDM_TRACE_COWBIRD_H

#include <linux/tracepoint.h>

TRACE_EVENT(edm_cowbird_fetch,
	TP_PROTO(u32 inst, u32 ring, int got),
	TP_ARGS(inst, ring, got),
	TP_STRUCT__entry(
		__field(u32, inst)
		__field(u32, ring)
		__field(int, got)
	),
	TP_fast_assign(
		__entry->inst = inst;
		__entry->ring = ring;
		__entry->got = got;
	),
	TP_printk("inst=%u ring=%u got=%d", __entry->inst, __entry->ring, __entry->got)
);

TRACE_EVENT(edm_cowbird_op_done,
	TP_PROTO(u32 inst, bool write, u64 region_off, u32 length, u16 status, bool remote),
	TP_ARGS(inst, write, region_off, length, status, remote),
	TP_STRUCT__entry(
		__field(u32, inst)
		__field(bool, write)
		__field(u64, region_off)
		__field(u32, length)
		__field(u16, status)
		__field(bool, remote)
	),
	TP_fast_assign(
		__entry->inst = inst;
		__entry->write = write;
		__entry->region_off = region_off;
		__entry->length = length;
		__entry->status = status;
		__entry->remote = remote;
	),
	TP_printk("inst=%u %s region_off=0x%llx length=%u status=%u%s", __entry->inst,
		  __entry->write ? "write" : "read", __entry->region_off, __entry->length,
		  __entry->status, __entry->remote ? " remote" : "")
);

/* A fabric op refused by its memory node: reason "key" (rekeyed) or "gone" (no region). */
TRACE_EVENT(edm_cowbird_nack,
	TP_PROTO(u32 inst, u32 ring, bool write, u64 region_off, u32 length, bool key),
	TP_ARGS(inst, ring, write, region_off, length, key),
	TP_STRUCT__entry(
		__field(u32, inst)
		__field(u32, ring)
		__field(bool, write)
		__field(u64, region_off)
		__field(u32, length)
		__field(bool, key)
	),
	TP_fast_assign(
		__entry->inst = inst;
		__entry->ring = ring;
		__entry->write = write;
		__entry->region_off = region_off;
		__entry->length = length;
		__entry->key = key;
	),
	TP_printk("inst=%u ring=%u %s region_off=0x%llx length=%u reason=%s", __entry->inst,
		  __entry->ring, __entry->write ? "write" : "read", __entry->region_off,
		  __entry->length, __entry->key ? "key" : "gone")
);

#endif /* _EDM_TRACE_COWBIRD_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
