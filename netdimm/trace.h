/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the NetDIMM netdev (system "edm_ndimm"): each packet the
 * transmit path puts on the wire (by the fast path or a copy, and what the
 * wire said), each packet the receive NAPI hands to the stack (how its
 * payload got there), and each packet dropped before either, with the
 * reason. A device is named by its netdev, a queue by its index.
 * netdimm/dev.c creates them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM edm_ndimm

#if !defined(_EDM_TRACE_NDIMM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EDM_TRACE_NDIMM_H

#include <linux/tracepoint.h>

#include "edm/compat.h"

/* err: 0 on the wire, else why the wire lost it (-ENETDOWN: the peer is down) */
TRACE_EVENT(edm_ndimm_tx,
	TP_PROTO(const char *dev, u32 queue, u32 len, bool fast, int err),
	TP_ARGS(dev, queue, len, fast, err),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, queue)
		__field(u32, len)
		__field(bool, fast)
		__field(int, err)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->queue = queue;
		__entry->len = len;
		__entry->fast = fast;
		__entry->err = err;
	),
	TP_printk("dev=%s queue=%u len=%u path=%s err=%d", __get_str(dev), __entry->queue,
		  __entry->len,
		  __entry->fast ? "fast" : "copy", __entry->err)
);

/* how: inline (in the descriptor), cloned (in-memory clone), zerocopy (zone pages lent) */
TRACE_EVENT(edm_ndimm_rx,
	TP_PROTO(const char *dev, u32 queue, u32 len, const char *how),
	TP_ARGS(dev, queue, len, how),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, queue)
		__field(u32, len)
		__string(how, how)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->queue = queue;
		__entry->len = len;
		edm_trace_assign_str(how, how);
	),
	TP_printk("dev=%s queue=%u len=%u how=%s", __get_str(dev), __entry->queue, __entry->len,
		  __get_str(how))
);

TRACE_EVENT(edm_ndimm_drop,
	TP_PROTO(const char *dev, bool rx, u32 queue, u32 len, const char *why),
	TP_ARGS(dev, rx, queue, len, why),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(bool, rx)
		__field(u32, queue)
		__field(u32, len)
		__string(why, why)
	),
	TP_fast_assign(
		edm_trace_assign_str(dev, dev);
		__entry->rx = rx;
		__entry->queue = queue;
		__entry->len = len;
		edm_trace_assign_str(why, why);
	),
	TP_printk("dev=%s dir=%s queue=%u len=%u why=%s", __get_str(dev),
		  __entry->rx ? "rx" : "tx", __entry->queue, __entry->len, __get_str(why))
);

#endif /* _EDM_TRACE_NDIMM_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
