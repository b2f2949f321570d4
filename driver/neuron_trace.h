/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: tracepoints (TRACE_SYSTEM neuron, docs/debugfs.md). Only
 * numbers, never a pointer or a string: the events are the same on every
 * kernel we build on (no __string()/__assign_str(), whose arguments
 * changed in 6.10). Devices are named by their minor (N of /dev/neuronN),
 * jobs by the seqno of their fence: per NC, one sequence for the DMA
 * queue and one for the execution queue, both counting from 1.
 *
 * The trace points are made in neuron_trace.c (CREATE_TRACE_POINTS). This
 * module is built out of tree: TRACE_INCLUDE_PATH is ".", found through
 * the -I of driver/ that Kbuild gives neuron_trace.o.
 */
#ifndef _NEURON_TRACE_DEFS
#define _NEURON_TRACE_DEFS
/*
 * Reasons of an NC reset (neuron_nc_reset): the codes of the netlink
 * event NEURON_EVENT_NC_RESET (uapi/neuron_netlink.h), same values.
 */
#ifndef NEURON_RESET_DMA_ERROR
#define NEURON_RESET_DMA_ERROR		1	/* its DMA queue reported an error */
#define NEURON_RESET_DMA_HANG		2	/* its DMA queue stopped progressing */
#define NEURON_RESET_EXEC_TIMEOUT	3	/* an execution overran its timeout */
#endif
#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM neuron

#if !defined(_NEURON_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NEURON_TRACE_H

#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

TRACE_EVENT(neuron_dma_submit,
	    TP_PROTO(u32 dev, u32 nc, u64 seqno, u64 bytes),
	    TP_ARGS(dev, nc, seqno, bytes),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, nc)
			     __field(u64, seqno)
			     __field(u64, bytes)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->nc = nc;
			   __entry->seqno = seqno;
			   __entry->bytes = bytes;),
	    TP_printk("dev=%u nc=%u seqno=%llu bytes=%llu", __entry->dev,
		      __entry->nc, __entry->seqno, __entry->bytes)
);

TRACE_EVENT(neuron_dma_complete,
	    TP_PROTO(u32 dev, u32 nc, u64 seqno, int error),
	    TP_ARGS(dev, nc, seqno, error),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, nc)
			     __field(u64, seqno)
			     __field(int, error)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->nc = nc;
			   __entry->seqno = seqno;
			   __entry->error = error;),
	    TP_printk("dev=%u nc=%u seqno=%llu error=%d", __entry->dev,
		      __entry->nc, __entry->seqno, __entry->error)
);

TRACE_EVENT(neuron_exec_submit,
	    TP_PROTO(u32 dev, u32 nc, u64 seqno),
	    TP_ARGS(dev, nc, seqno),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, nc)
			     __field(u64, seqno)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->nc = nc;
			   __entry->seqno = seqno;),
	    TP_printk("dev=%u nc=%u seqno=%llu", __entry->dev, __entry->nc,
		      __entry->seqno)
);

/*
 * @started: when the core got it (ktime_get_ns()), 0 if it never ran
 * (duration_ns 0).
 */
TRACE_EVENT(neuron_exec_complete,
	    TP_PROTO(u32 dev, u32 nc, u64 seqno, u32 status, u64 started),
	    TP_ARGS(dev, nc, seqno, status, started),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, nc)
			     __field(u64, seqno)
			     __field(u32, status)
			     __field(u64, duration_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->nc = nc;
			   __entry->seqno = seqno;
			   __entry->status = status;
			   /* Computed only when the event is on. */
			   __entry->duration_ns = started ?
			   ktime_get_ns() - started : 0;),
	    TP_printk("dev=%u nc=%u seqno=%llu status=%u duration_ns=%llu",
		      __entry->dev, __entry->nc, __entry->seqno, __entry->status,
		      __entry->duration_ns)
);

/*
 * The driver never reads notification entries (userspace does): the
 * event is the device moving a queue's head (or breaking the rules), as
 * the driver sees it at the interrupt or in NOTIFY_WAIT.
 */
TRACE_EVENT(neuron_notify,
	    TP_PROTO(u32 dev, u32 nc, u32 type, u32 qhead, u32 qtail, u32 overflow,
		     int error),
	    TP_ARGS(dev, nc, type, qhead, qtail, overflow, error),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, nc)
			     __field(u32, type)
			     __field(u32, head)
			     __field(u32, tail)
			     __field(u32, overflow)
			     __field(int, error)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->nc = nc;
			   __entry->type = type;
			   __entry->head = qhead;
			   __entry->tail = qtail;
			   __entry->overflow = overflow;
			   __entry->error = error;),
	    TP_printk("dev=%u nc=%u type=%u head=%u tail=%u overflow=%u error=%d",
		      __entry->dev, __entry->nc, __entry->type, __entry->head,
		      __entry->tail, __entry->overflow, __entry->error)
);

TRACE_EVENT(neuron_nc_reset,
	    TP_PROTO(u32 dev, u32 nc, u32 reason),
	    TP_ARGS(dev, nc, reason),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, nc)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->nc = nc;
			   __entry->reason = reason;),
	    TP_printk("dev=%u nc=%u reason=%s", __entry->dev, __entry->nc,
		      __print_symbolic(__entry->reason,
				       { NEURON_RESET_DMA_ERROR, "dma_error" },
				       { NEURON_RESET_DMA_HANG, "dma_hang" },
				       { NEURON_RESET_EXEC_TIMEOUT, "exec_timeout" }))
);

#endif /* _NEURON_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE neuron_trace
#include <trace/define_trace.h>
