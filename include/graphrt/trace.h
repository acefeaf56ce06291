/*
 * graphrt/trace.h - traces, graphrt's own.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_TRACE_H
#define GRAPHRT_MODULE_TRACE_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Debugging: traces, debug modes, baked values (graphrt's own)           */
/* ====================================================================== */

/*
 * Tracing records every graph launch run, every graph node (its kernel
 * name or node type, its plan index, the launch it belongs to, the worker
 * that ran it), every eager stream operation, capture begins and ends and
 * the waits of synchronising calls, and writes them as a Chrome
 * trace-event JSON file (open it in https://ui.perfetto.dev or
 * chrome://tracing; docs/debugging.md). Each thread records into a ring
 * of its own, of GRAPHRT_TRACE_EVENTS events (default 65536, 64 bytes
 * each); when one is full its oldest events are dropped, and the file
 * says how many ("droppedEvents"). Setting GRAPHRT_TRACE=path.json traces
 * from the runtime's first start to the process's exit. Tracing off costs
 * a load and a branch per launch and per stream operation.
 */

/* graphrt's own. Starts tracing to the file at 'path' (written by
 * grTraceStop, or at process exit if grTraceStop is not called); the
 * file is created or truncated now, so that a bad path fails here.
 * flags: 0. Errors: grErrorInvalidValue (path NULL or empty, flags not 0,
 * the file cannot be opened: the detail gives the system's reason),
 * grErrorIllegalState (tracing already), grErrorMemoryAllocation. Thread
 * safety: any thread. */
GR_API grError_t grTraceStart(const char *path, unsigned int flags);

/* graphrt's own. Stops tracing and writes the events recorded since
 * grTraceStart to its file; events of work still running are those
 * recorded so far. Errors: grErrorIllegalState (not tracing),
 * grErrorUnknown (the file could not be written: the detail says why).
 * Thread safety: any thread; events recorded by other threads while it
 * runs are kept or dropped whole. */
GR_API grError_t grTraceStop(void);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_TRACE_H */
