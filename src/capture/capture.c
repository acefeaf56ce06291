/*
 * capture.c - stream capture.
 *
 * No public call begins a capture yet, so gr__captures_active stays 0 and
 * the functions below are never reached; they refuse clearly if they are.
 */
#include "capture.h"

atomic_int gr__captures_active;

grError_t gr__capture_record(const char *call, gr_stream *s, const grGraphNodeParams *desc)
{
    (void)desc;
    return gr__fail(grErrorStreamCaptureUnsupported, "%s: stream %p: stream capture is not available", call,
                    GR_PTR(s));
}

grError_t gr__capture_event_record(const char *call, grEvent_t e, gr_stream *s)
{
    (void)e;
    return gr__fail(grErrorStreamCaptureUnsupported, "%s: stream %p: stream capture is not available", call,
                    GR_PTR(s));
}

grError_t gr__capture_wait_event(const char *call, gr_stream *s, grEvent_t e)
{
    (void)e;
    return gr__fail(grErrorStreamCaptureUnsupported, "%s: stream %p: stream capture is not available", call,
                    GR_PTR(s));
}

grError_t gr__capture_check_unsafe_slow(const char *call, gr_unsafe_kind kind, gr_stream *s, grEvent_t e)
{
    (void)call;
    (void)kind;
    (void)s;
    (void)e;
    return grSuccess;
}

grError_t gr__capture_check_implicit_slow(const char *call, gr_stream *s)
{
    (void)call;
    (void)s;
    return grSuccess;
}
