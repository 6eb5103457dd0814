/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the EDM fabric (system "edm_fab"): an op's life in the host
 * stack (submit, issue, done), every burst a port sends or receives, the
 * switch's grants and what a memory node serves. Together with the net
 * tracepoints they say where an op's time goes, hop by hop; see
 * tools/bench/edm-hops.sh. fabric/node.c creates them.
 *
 * An op is named by its address (%p, hashed but stable for a boot), a
 * message on the wire by (src, dst, id).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM edm_fab

#if !defined(_EDM_TRACE_FAB_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EDM_TRACE_FAB_H

#include <linux/tracepoint.h>

#include "edm/compat.h"

TRACE_EVENT(edm_fab_op_submit,
	TP_PROTO(const char *node, const void *op, u32 opcode, u32 dst, u64 addr, u32 len),
	TP_ARGS(node, op, opcode, dst, addr, len),
	TP_STRUCT__entry(
		__string(node, node)
		__field(const void *, op)
		__field(u32, opcode)
		__field(u32, dst)
		__field(u64, addr)
		__field(u32, len)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->op = op;
		__entry->opcode = opcode;
		__entry->dst = dst;
		__entry->addr = addr;
		__entry->len = len;
	),
	TP_printk("node=%s op=%p opcode=%u dst=%u addr=0x%llx len=%u", __get_str(node),
		  __entry->op, __entry->opcode, __entry->dst, __entry->addr, __entry->len)
);

TRACE_EVENT(edm_fab_op_issue,
	TP_PROTO(const char *node, const void *op, u32 src, u32 dst, u32 id),
	TP_ARGS(node, op, src, dst, id),
	TP_STRUCT__entry(
		__string(node, node)
		__field(const void *, op)
		__field(u32, src)
		__field(u32, dst)
		__field(u32, id)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->op = op;
		__entry->src = src;
		__entry->dst = dst;
		__entry->id = id;
	),
	TP_printk("node=%s op=%p src=%u dst=%u id=%u", __get_str(node), __entry->op,
		  __entry->src, __entry->dst, __entry->id)
);

TRACE_EVENT(edm_fab_op_done,
	TP_PROTO(const char *node, const void *op, int status, u64 lat_ns, u64 model_ns),
	TP_ARGS(node, op, status, lat_ns, model_ns),
	TP_STRUCT__entry(
		__string(node, node)
		__field(const void *, op)
		__field(int, status)
		__field(u64, lat_ns)
		__field(u64, model_ns)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->op = op;
		__entry->status = status;
		__entry->lat_ns = lat_ns;
		__entry->model_ns = model_ns;
	),
	TP_printk("node=%s op=%p status=%d lat_ns=%llu model_ns=%llu", __get_str(node),
		  __entry->op, __entry->status, __entry->lat_ns, __entry->model_ns)
);

/* A host moved to another port: its standby switch. */
TRACE_EVENT(edm_fab_failover,
	TP_PROTO(const char *node, u32 from, u32 to),
	TP_ARGS(node, from, to),
	TP_STRUCT__entry(
		__string(node, node)
		__field(u32, from)
		__field(u32, to)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("node=%s from_port=%u to_port=%u", __get_str(node), __entry->from, __entry->to)
);

/* An RTT sample to a memory node, and the estimate and op timeout after it. */
TRACE_EVENT(edm_fab_rtt,
	TP_PROTO(const char *node, u32 dst, u64 sample_ns, u64 srtt_ns, u64 rttvar_ns, u64 rto_ns),
	TP_ARGS(node, dst, sample_ns, srtt_ns, rttvar_ns, rto_ns),
	TP_STRUCT__entry(
		__string(node, node)
		__field(u32, dst)
		__field(u64, sample_ns)
		__field(u64, srtt_ns)
		__field(u64, rttvar_ns)
		__field(u64, rto_ns)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->dst = dst;
		__entry->sample_ns = sample_ns;
		__entry->srtt_ns = srtt_ns;
		__entry->rttvar_ns = rttvar_ns;
		__entry->rto_ns = rto_ns;
	),
	TP_printk("node=%s dst=%u sample_ns=%llu srtt_ns=%llu rttvar_ns=%llu rto_ns=%llu",
		  __get_str(node), __entry->dst, __entry->sample_ns, __entry->srtt_ns,
		  __entry->rttvar_ns, __entry->rto_ns)
);

DECLARE_EVENT_CLASS(edm_fab_burst,
	TP_PROTO(const char *node, u32 port, u32 seq, u32 nblocks),
	TP_ARGS(node, port, seq, nblocks),
	TP_STRUCT__entry(
		__string(node, node)
		__field(u32, port)
		__field(u32, seq)
		__field(u32, nblocks)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->port = port;
		__entry->seq = seq;
		__entry->nblocks = nblocks;
	),
	TP_printk("node=%s port=%u seq=%u nblocks=%u", __get_str(node), __entry->port,
		  __entry->seq, __entry->nblocks)
);

/* A burst built from the port's TX mux, before it goes to the wire. */
DEFINE_EVENT(edm_fab_burst, edm_fab_burst_tx,
	TP_PROTO(const char *node, u32 port, u32 seq, u32 nblocks),
	TP_ARGS(node, port, seq, nblocks)
);

/* A burst taken from the node's inbox by its poll. */
DEFINE_EVENT(edm_fab_burst, edm_fab_burst_rx,
	TP_PROTO(const char *node, u32 port, u32 seq, u32 nblocks),
	TP_ARGS(node, port, seq, nblocks)
);

DECLARE_EVENT_CLASS(edm_fab_msg,
	TP_PROTO(const char *node, u32 src, u32 dst, u32 id, u32 bytes),
	TP_ARGS(node, src, dst, id, bytes),
	TP_STRUCT__entry(
		__string(node, node)
		__field(u32, src)
		__field(u32, dst)
		__field(u32, id)
		__field(u32, bytes)
	),
	TP_fast_assign(
		edm_trace_assign_str(node, node);
		__entry->src = src;
		__entry->dst = dst;
		__entry->id = id;
		__entry->bytes = bytes;
	),
	TP_printk("node=%s src=%u dst=%u id=%u bytes=%u", __get_str(node), __entry->src,
		  __entry->dst, __entry->id, __entry->bytes)
);

/* The switch grants port src a chunk of message id for port dst. */
DEFINE_EVENT(edm_fab_msg, edm_fab_grant,
	TP_PROTO(const char *node, u32 src, u32 dst, u32 id, u32 bytes),
	TP_ARGS(node, src, dst, id, bytes)
);

/* A memory node takes a request of host src: RREQ, RMWREQ or a write. */
DEFINE_EVENT(edm_fab_msg, edm_fab_serve,
	TP_PROTO(const char *node, u32 src, u32 dst, u32 id, u32 bytes),
	TP_ARGS(node, src, dst, id, bytes)
);

#endif /* _EDM_TRACE_FAB_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
