/*
 * capture.h - the seam between the enqueue paths and stream capture.
 *
 * Every public call that queues work tests gr__stream_capturing(s) right
 * after resolving its stream and, if true, hands the work to the capture
 * module as a node description instead of queuing it. Every call that CUDA
 * calls "potentially unsafe" during capture (synchronisation, queries,
 * synchronous allocation and copies) asks gr__capture_check_unsafe first,
 * which costs one relaxed load while no capture is active anywhere.
 */
#ifndef GR_CAPTURE_H
#define GR_CAPTURE_H

#include "../runtime/event.h"

/* Number of captures in progress in the process (any mode). */
extern atomic_int gr__captures_active;

static inline bool gr__capture_any(void)
{
    return atomic_load_explicit(&gr__captures_active, memory_order_relaxed) != 0;
}

static inline bool gr__stream_capturing(gr_stream *s)
{
    return atomic_load_explicit(&s->capture, memory_order_acquire) != NULL;
}

/* Records one operation issued to capturing stream s as a node of the
 * capture's graph, depending on the stream's current capture dependencies.
 * desc->kernel.kernelParams points at the caller's argument values (copied
 * here). Returns the error of an invalidated capture, with its detail. */
grError_t gr__capture_record(const char *call, gr_stream *s, const grGraphNodeParams *desc);

/* grEventRecord(e, s) with s capturing: e now names s's current capture
 * dependencies. */
grError_t gr__capture_event_record(const char *call, grEvent_t e, gr_stream *s);

/* grStreamWaitEvent(s, e) where s is capturing or e was last recorded in a
 * capture (the fork/join rules). */
grError_t gr__capture_wait_event(const char *call, gr_stream *s, grEvent_t e);

/* What a potentially unsafe call is, for the mode rules. */
typedef enum gr_unsafe_kind {
    GR_UNSAFE_STREAM_SYNC,
    GR_UNSAFE_STREAM_QUERY,
    GR_UNSAFE_EVENT_SYNC,
    GR_UNSAFE_EVENT_QUERY,
    GR_UNSAFE_DEVICE_SYNC,
    GR_UNSAFE_MALLOC,
    GR_UNSAFE_FREE,
    GR_UNSAFE_SYNC_COPY
} gr_unsafe_kind;

/* Decides whether 'call' is allowed given the captures in progress, their
 * modes and the calling thread (s / e: the stream or event it concerns, or
 * NULL). On refusal returns the CUDA error (and invalidates the captures
 * CUDA invalidates) with a detail. */
grError_t gr__capture_check_unsafe_slow(const char *call, gr_unsafe_kind kind, gr_stream *s, grEvent_t e);
static inline grError_t gr__capture_check_unsafe(const char *call, gr_unsafe_kind kind, gr_stream *s, grEvent_t e)
{
    return GR_UNLIKELY(gr__capture_any()) ? gr__capture_check_unsafe_slow(call, kind, s, e) : grSuccess;
}

/* Work queued (not captured) on stream s while captures are in progress:
 * refuses what would make the legacy stream depend on a capturing blocking
 * stream or the reverse (grErrorStreamCaptureImplicit). */
grError_t gr__capture_check_implicit_slow(const char *call, gr_stream *s);
static inline grError_t gr__capture_check_implicit(const char *call, gr_stream *s)
{
    return GR_UNLIKELY(gr__capture_any()) ? gr__capture_check_implicit_slow(call, s) : grSuccess;
}

#endif /* GR_CAPTURE_H */
