/*
 * copy.c - grMemcpy, grMemcpyAsync, grMemset, grMemsetAsync: checked,
 * then queued as small stream operations that copy or set bytes when the
 * stream reaches them.
 *
 * Invariants:
 *   - every argument (direction, pointers, stream, bounds of tracked
 *     allocations) is checked before anything is queued, so a refused call
 *     leaves memory and the stream untouched;
 *   - the synchronous forms are the asynchronous ones on the legacy stream
 *     followed by a wait for that stream, which is what makes them wait for
 *     earlier legacy-stream work (and, through the legacy stream's implicit
 *     synchronisation, for blocking streams) as CUDA's do.
 */
#include "memory.h"

#include "../runtime/runtime.h"

#include <string.h>

void gr__mem_copy_op(void *data)
{
    gr_mem_copy_args a;
    memcpy(&a, data, sizeof a);
    /* CUDA leaves overlapping copies undefined; memmove makes them safe. */
    memmove(a.dst, a.src, a.count);
}

void gr__mem_set_op(void *data)
{
    gr_mem_set_args a;
    memcpy(&a, data, sizeof a);
    memset(a.dst, a.value, a.count);
}

static grError_t copy_check(const char *call, void *dst, const void *src, size_t count, grMemcpyKind kind)
{
    if ((unsigned)kind > (unsigned)grMemcpyDefault)
        return gr__fail(grErrorInvalidMemcpyDirection,
                        "%s: kind %d is not a grMemcpyKind; pass grMemcpyHostToHost, "
                        "HostToDevice, DeviceToHost, DeviceToDevice or grMemcpyDefault",
                        call, (int)kind);
    if (count > 0 && (!dst || !src))
        return gr__fail(grErrorInvalidValue,
                        "%s: the %s pointer is NULL for a copy of %zu bytes; pass valid "
                        "pointers or a count of 0",
                        call, !dst ? "destination" : "source", count);
    grError_t err = gr__mem_check_range(call, dst, count, "destination");
    if (err != grSuccess)
        return err;
    return gr__mem_check_range(call, src, count, "source");
}

static grError_t set_check(const char *call, void *dst, size_t count)
{
    if (count > 0 && !dst)
        return gr__fail(grErrorInvalidValue,
                        "%s: the destination pointer is NULL for a memset of %zu bytes; "
                        "pass a valid pointer or a count of 0",
                        call, count);
    return gr__mem_check_range(call, dst, count, "destination");
}

static grError_t copy_enqueue(const char *call, void *dst, const void *src, size_t count, grMemcpyKind kind,
                              grStream_t stream, gr_stream **out)
{
    gr_stream *s;
    grError_t err = copy_check(call, dst, src, count, kind);
    if (err != grSuccess)
        return err;
    err = gr__stream_from_handle(call, stream, &s);
    if (err != grSuccess)
        return err;
    *out = s;
    if (count == 0)
        return grSuccess;
    gr_mem_copy_args a = {.dst = dst, .src = src, .count = count, .kind = kind};
    return gr__stream_enqueue_call(call, s, gr__mem_copy_op, &a, sizeof a);
}

static grError_t set_enqueue(const char *call, void *dst, int value, size_t count, grStream_t stream,
                             gr_stream **out)
{
    gr_stream *s;
    grError_t err = set_check(call, dst, count);
    if (err != grSuccess)
        return err;
    err = gr__stream_from_handle(call, stream, &s);
    if (err != grSuccess)
        return err;
    *out = s;
    if (count == 0)
        return grSuccess;
    gr_mem_set_args a = {.dst = dst, .count = count, .value = (unsigned char)value};
    return gr__stream_enqueue_call(call, s, gr__mem_set_op, &a, sizeof a);
}

/* The synchronous forms' wait: a sticky asynchronous error of the legacy
 * stream is reported here, as CUDA reports it from the next sync call. */
static grError_t wait_legacy(gr_stream *s)
{
    grError_t err = gr__stream_sync(s);
    if (err != grSuccess)
        return gr__fail_again(err);
    return grSuccess;
}

GR_API grError_t grMemcpyAsync(void *dst, const void *src, size_t count, grMemcpyKind kind, grStream_t stream)
{
    gr_stream *s;
    return copy_enqueue("grMemcpyAsync", dst, src, count, kind, stream, &s);
}

GR_API grError_t grMemcpy(void *dst, const void *src, size_t count, grMemcpyKind kind)
{
    gr_stream *s;
    grError_t err = copy_enqueue("grMemcpy", dst, src, count, kind, NULL, &s);
    if (err != grSuccess || count == 0)
        return err;
    return wait_legacy(s);
}

GR_API grError_t grMemsetAsync(void *devPtr, int value, size_t count, grStream_t stream)
{
    gr_stream *s;
    return set_enqueue("grMemsetAsync", devPtr, value, count, stream, &s);
}

GR_API grError_t grMemset(void *devPtr, int value, size_t count)
{
    gr_stream *s;
    grError_t err = set_enqueue("grMemset", devPtr, value, count, NULL, &s);
    if (err != grSuccess || count == 0)
        return err;
    return wait_legacy(s);
}
