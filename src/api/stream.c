/*
 * stream.c - the stream API: each entry point checks its arguments and
 * the capture rules, diverts to the capture module while the stream
 * captures, and otherwise asks the backend (backend.h); a synchronising
 * call runs the pools' hook after its wait.
 */
#include "../backend/device.h"
#include "../backend/enqueue.h"
#include "../capture/capture.h"
#include "../memory/pool.h"

#include <string.h>

GR_API grError_t grStreamCreate(grStream_t *stream)
{
    if (!stream)
        return gr__fail(grErrorInvalidValue, "grStreamCreate: 'stream' (the output pointer) is NULL");
    return grStreamCreateWithFlags(stream, grStreamDefault);
}

/* grStreamCreateWithFlags and grStreamCreateWithPriority, naming 'call'. */
static grError_t stream_create(const char *call, grStream_t *stream, unsigned int flags, int priority)
{
    gr_stream *s = NULL;
    if (!stream)
        return gr__fail(grErrorInvalidValue, "%s: 'stream' (the output pointer) is NULL", call);
    if (flags & ~grStreamNonBlocking)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x has bits other than grStreamDefault (0) and grStreamNonBlocking (1)",
                        call, flags);
    grError_t err = gr__stream_create_dev(call, gr__device_current(), flags, priority, &s);
    if (err)
        return err;
    *stream = (grStream_t)s;
    return grSuccess;
}

GR_API grError_t grStreamCreateWithFlags(grStream_t *stream, unsigned int flags)
{
    return stream_create("grStreamCreateWithFlags", stream, flags, 0);
}

GR_API grError_t grStreamCreateWithPriority(grStream_t *stream, unsigned int flags, int priority)
{
    return stream_create("grStreamCreateWithPriority", stream, flags, priority);
}

GR_API grError_t grStreamDestroy(grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t e;
    if (stream == NULL || stream == grStreamLegacy || stream == grStreamPerThread)
        return gr__fail(
            grErrorInvalidResourceHandle,
            "grStreamDestroy: the default streams (NULL, grStreamLegacy, grStreamPerThread) cannot be "
            "destroyed");
    e = gr__stream_from_handle("grStreamDestroy", stream, &s);
    if (e)
        return e;
    if (gr__stream_capturing(s))
        return gr__fail(grErrorStreamCaptureUnsupported,
                        "grStreamDestroy: %s is capturing; end the capture with grStreamEndCapture first",
                        GR_STREAM_NAME(s));
    gr__stream_destroy(s);
    return grSuccess;
}

GR_API grError_t grStreamSynchronize(grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t e = gr__stream_from_handle("grStreamSynchronize", stream, &s);
    if (e)
        return e;
    if ((e = gr__capture_check_unsafe("grStreamSynchronize", GR_UNSAFE_STREAM_SYNC, s, NULL)))
        return e;
    if (s->device != 0) {
        e = gr__devkind()->stream_sync("grStreamSynchronize", s);
        gr__pool_on_sync();
        return e;
    }
    uint64_t t0 = gr__tracing() ? gr__trace_clock() : 0;
    e = gr__stream_sync_dev("grStreamSynchronize", s);
    if (GR_UNLIKELY(t0))
        gr__trace_emit(GR_TR_SYNC, "grStreamSynchronize", t0, gr__trace_clock(), s->serial, 0, 0, 0);
    gr__pool_on_sync();
    return e;
}

GR_API grError_t grStreamQuery(grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t e = gr__stream_from_handle("grStreamQuery", stream, &s);
    if (e)
        return e;
    if ((e = gr__capture_check_unsafe("grStreamQuery", GR_UNSAFE_STREAM_QUERY, s, NULL)))
        return e;
    return gr__stream_query_dev("grStreamQuery", s);
}

GR_API grError_t grStreamGetFlags(grStream_t stream, unsigned int *flags)
{
    gr_stream *s = NULL;
    grError_t e;
    if (!flags)
        return gr__fail(grErrorInvalidValue, "grStreamGetFlags: 'flags' (the output pointer) is NULL");
    e = gr__stream_from_handle("grStreamGetFlags", stream, &s);
    if (e)
        return e;
    *flags = s->user_flags;
    return grSuccess;
}

GR_API grError_t grLaunchHostFunc(grStream_t stream, grHostFn_t fn, void *userData)
{
    gr_stream *s = NULL;
    grError_t e;
    if (!fn)
        return gr__fail(grErrorInvalidValue, "grLaunchHostFunc: 'fn' is NULL; pass the host function to run");
    e = gr__stream_from_handle("grLaunchHostFunc", stream, &s);
    if (e)
        return e;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams d;
        memset(&d, 0, sizeof d);
        d.type = grGraphNodeTypeHost;
        d.host = (grHostNodeParams){fn, userData};
        return gr__capture_record("grLaunchHostFunc", s, &d);
    }
    if ((e = gr__capture_check_implicit("grLaunchHostFunc", s)))
        return e;
    if (GR_UNLIKELY(s->device != 0))
        return gr__launched(s, gr__devkind()->host_func("grLaunchHostFunc", s, fn, userData));
    return gr__launched(s, gr__stream_enqueue_host("grLaunchHostFunc", s, fn, userData));
}

/* ------------------------------------------------ grStreamAddCallback */

/* A callback queued on a CPU stream: the op's payload (no allocation). */
typedef struct stream_callback {
    grStreamCallback_t fn;
    grStream_t handle; /* as the caller named the stream */
    void *user;
    gr_stream *s; /* alive while the op is queued on it */
} stream_callback;
_Static_assert(sizeof(stream_callback) <= GR_OP_DATA_MAX, "a callback is queued by value");

static void callback_op(void *data)
{
    const stream_callback *cb = data;
    cb->fn(cb->handle, gr__stream_sticky(cb->s), cb->user);
}

/* On a GPU stream the driver runs a host function: the record is
 * allocated and freed by the trampoline. */
static void callback_gpu_trampoline(void *data)
{
    stream_callback cb = *(stream_callback *)data;
    gr__free(data);
    cb.fn(cb.handle, grSuccess, cb.user);
}

GR_API grError_t grStreamAddCallback(grStream_t stream, grStreamCallback_t callback, void *userData,
                                     unsigned int flags)
{
    static const char call[] = "grStreamAddCallback";
    gr_stream *s = NULL;
    grError_t e;
    if (!callback)
        return gr__fail(grErrorInvalidValue, "%s: 'callback' is NULL; pass the function to call", call);
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%x; it is reserved and must be 0", call, flags);
    e = gr__stream_from_handle(call, stream, &s);
    if (e)
        return e;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return gr__capture_refuse(call, s,
                                  "a stream callback cannot be captured (CUDA refuses it too); use "
                                  "grLaunchHostFunc, which adds a host node");
    if ((e = gr__capture_check_implicit(call, s)))
        return e;
    stream_callback cb = {callback, stream, userData, s};
    if (GR_UNLIKELY(s->device != 0)) {
        stream_callback *rec = gr__malloc(sizeof *rec);
        if (!rec)
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        *rec = cb;
        e = gr__devkind()->host_func(call, s, callback_gpu_trampoline, rec);
        if (e)
            gr__free(rec);
        return gr__launched(s, e);
    }
    return gr__launched(s, gr__stream_call_dev(call, s, callback_op, &cb, sizeof cb));
}
