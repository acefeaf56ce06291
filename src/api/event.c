/*
 * event.c - the event API: each entry point checks its arguments and the
 * capture rules, diverts to the capture module while a stream captures,
 * and otherwise asks the backend (backend.h); synchronising calls run the
 * pools' hook after their wait.
 */
#include "../backend/device.h"
#include "../backend/enqueue.h"
#include "../capture/capture.h"
#include "../memory/pool.h"

#include <string.h>

static grError_t check_event(const char *call, grEvent_t e)
{
    if (!gr__event_valid(e))
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: event %p is not a live event (NULL, destroyed, or not created by grEventCreate)",
                        call, GR_PTR(e));
    return grSuccess;
}

/* CUDA answers grErrorInvalidValue for an event whose latest record was
 * made in a capture that has ended. */
static grError_t check_not_ended_capture(const char *call, grEvent_t e)
{
    if (gr__capture_event_ended(e))
        return gr__fail(
            grErrorInvalidValue,
            "%s: event %p was last recorded inside a stream capture that has ended; such a record "
            "names graph nodes, not work: record the event again outside a capture",
            call, GR_PTR(e));
    return grSuccess;
}

GR_API grError_t grEventCreate(grEvent_t *event)
{
    if (!event)
        return gr__fail(grErrorInvalidValue, "grEventCreate: 'event' (the output pointer) is NULL");
    return grEventCreateWithFlags(event, grEventDefault);
}

GR_API grError_t grEventCreateWithFlags(grEvent_t *event, unsigned int flags)
{
    grEvent_t e;
    if (!event)
        return gr__fail(grErrorInvalidValue, "grEventCreateWithFlags: 'event' (the output pointer) is NULL");
    if (flags & ~(grEventBlockingSync | grEventDisableTiming))
        return gr__fail(grErrorInvalidValue,
                        "grEventCreateWithFlags: flags 0x%x has bits other than grEventBlockingSync and "
                        "grEventDisableTiming",
                        flags);
    int device = gr__device_current();
    if (device != 0)
        return gr__devkind()->event_create("grEventCreateWithFlags", device, flags, event);
    grError_t started = gr__device_start_dev("grEventCreateWithFlags", 0);
    if (started != grSuccess)
        return started;
    e = gr__event_create(flags);
    if (!e)
        return gr__fail(grErrorMemoryAllocation, "grEventCreateWithFlags: out of memory");
    *event = e;
    return grSuccess;
}

GR_API grError_t grEventDestroy(grEvent_t event)
{
    grError_t err = check_event("grEventDestroy", event);
    if (err)
        return err;
    gr__event_destroy(event);
    return grSuccess;
}

/* A capture's event record or wait node (the external flags). */
static grError_t capture_event_node(const char *call, gr_stream *s, grGraphNodeType t, grEvent_t e)
{
    grGraphNodeParams desc;
    memset(&desc, 0, sizeof desc);
    desc.type = t;
    if (t == grGraphNodeTypeEventRecord)
        desc.eventRecord.event = e;
    else
        desc.eventWait.event = e;
    return gr__capture_record(call, s, &desc);
}

/* The external flags outside a capture: CUDA 13 answers
 * grErrorIllegalState (docs/cuda13-probes.md). */
static grError_t not_capturing(const char *call, gr_stream *s, const char *flag)
{
    return gr__fail(
        grErrorIllegalState,
        "%s: %s is not capturing; %s makes an event node of a capture, so outside one pass flags 0", call,
        GR_STREAM_NAME(s), flag);
}

/* grEventRecord and grEventRecordWithFlags, naming 'call'. */
static grError_t event_record(const char *call, grEvent_t event, grStream_t stream, unsigned int flags)
{
    gr_stream *s = NULL;
    grError_t err = check_event(call, event);
    if (err)
        return err;
    err = gr__stream_from_handle(call, stream, &s);
    if (err)
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        if (flags & grEventRecordExternal)
            return capture_event_node(call, s, grGraphNodeTypeEventRecord, event);
        return gr__capture_event_record(call, event, s);
    }
    if (GR_UNLIKELY(flags & grEventRecordExternal))
        return not_capturing(call, s, "grEventRecordExternal");
    if ((err = gr__capture_check_implicit(call, s)))
        return err;
    if (GR_UNLIKELY(s->device != event->device))
        return gr__cross_record_refusal(call, event, s, stream);
    if (GR_UNLIKELY(s->device != 0))
        return gr__devkind()->event_record(call, event, s);
    return gr__event_record(call, event, s);
}

GR_API grError_t grEventRecord(grEvent_t event, grStream_t stream)
{
    return event_record("grEventRecord", event, stream, grEventRecordDefault);
}

GR_API grError_t grEventRecordWithFlags(grEvent_t event, grStream_t stream, unsigned int flags)
{
    if (flags & ~(unsigned)grEventRecordExternal)
        return gr__fail(grErrorInvalidValue,
                        "grEventRecordWithFlags: flags 0x%x has bits other than grEventRecordExternal (0x1)",
                        flags);
    return event_record("grEventRecordWithFlags", event, stream, flags);
}

GR_API grError_t grEventQuery(grEvent_t event)
{
    grError_t err = check_event("grEventQuery", event);
    if (err)
        return err;
    if ((err = gr__capture_check_unsafe("grEventQuery", GR_UNSAFE_EVENT_QUERY, NULL, event)) ||
        (err = check_not_ended_capture("grEventQuery", event)))
        return err;
    return gr__event_query_dev("grEventQuery", event);
}

GR_API grError_t grEventSynchronize(grEvent_t event)
{
    grError_t err = check_event("grEventSynchronize", event);
    if (err)
        return err;
    if ((err = gr__capture_check_unsafe("grEventSynchronize", GR_UNSAFE_EVENT_SYNC, NULL, event)) ||
        (err = check_not_ended_capture("grEventSynchronize", event)))
        return err;
    if (event->device != 0) {
        err = gr__devkind()->event_sync("grEventSynchronize", event);
        gr__pool_on_sync();
        return err;
    }
    uint64_t t0 = gr__tracing() ? gr__trace_clock() : 0;
    err = gr__event_sync_dev("grEventSynchronize", event);
    if (GR_UNLIKELY(t0))
        gr__trace_emit(GR_TR_SYNC, "grEventSynchronize", t0, gr__trace_clock(), 0, 0, 0, 0);
    gr__pool_on_sync();
    return err;
}

GR_API grError_t grEventElapsedTime(float *ms, grEvent_t start, grEvent_t end)
{
    static const char call[] = "grEventElapsedTime";
    grError_t err;
    if (!ms)
        return gr__fail(grErrorInvalidValue, "grEventElapsedTime: 'ms' (the output pointer) is NULL");
    if ((err = check_event(call, start)) || (err = check_event(call, end)) ||
        (err = check_not_ended_capture(call, start)) || (err = check_not_ended_capture(call, end)))
        return err;
    return gr__event_elapsed_dev(call, ms, start, end);
}

GR_API grError_t grStreamWaitEvent(grStream_t stream, grEvent_t event, unsigned int flags)
{
    gr_stream *s = NULL;
    grError_t err;
    if (flags & ~(unsigned)grEventWaitExternal)
        return gr__fail(grErrorInvalidValue,
                        "grStreamWaitEvent: flags 0x%x has bits other than grEventWaitExternal (0x1)", flags);
    if ((err = check_event("grStreamWaitEvent", event)))
        return err;
    if ((err = gr__stream_from_handle("grStreamWaitEvent", stream, &s)))
        return err;
    if (GR_UNLIKELY(flags & grEventWaitExternal))
        return gr__stream_capturing(s)
                   ? capture_event_node("grStreamWaitEvent", s, grGraphNodeTypeWaitEvent, event)
                   : not_capturing("grStreamWaitEvent", s, "grEventWaitExternal");
    if (GR_UNLIKELY(gr__stream_capturing(s) || event->capture))
        return gr__capture_wait_event("grStreamWaitEvent", s, event);
    if ((err = gr__capture_check_implicit("grStreamWaitEvent", s)))
        return err;
    return gr__stream_wait_event_dev("grStreamWaitEvent", s, event);
}
