/*
 * copy2d.c - pitched copies and memsets: grMemcpy2D(Async),
 * grMemcpy3D(Async), grMemset2D(Async), grMemset3D(Async).
 *
 * A pitched region is described once (gr_region, memory/region.c: base,
 * width bytes per row, height rows per slice, depth slices, row and slice
 * pitch) and checked once there: pitches against the width (with the
 * codes CUDA 13 answers, probed on an H200), the whole span against the
 * address space, then every row against graphrt's tracked allocations.
 *
 * Invariants:
 *   - every argument is checked before anything is queued or recorded, so
 *     a refused call leaves memory, the stream and a capture untouched;
 *   - a region whose rows are contiguous on both sides is one 1D range
 *     and takes the 1D path of api/memory.c (GPU memory and streams
 *     included, capture as a 1D memcpy node); other regions are captured
 *     as one memcpy node keeping the 3D parameters, run through the driver
 *     where a GPU is involved, and else are queued as one stream operation
 *     per slice (a 3D region with evenly spaced slices is one 2D
 *     operation), each copying row by row;
 *   - captured memsets become one memset node (rows evenly spaced) or are
 *     refused with grErrorNotSupported before anything is recorded.
 */
#include "api.h"
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/memory.h"

#include <string.h>

/* The payload of one queued 2D operation (a memset has src NULL). */
typedef struct gr_rows_args {
    char *dst;
    const char *src;
    size_t width, height, dpitch, spitch;
    unsigned char value;
} gr_rows_args;

_Static_assert(sizeof(gr_rows_args) <= GR_OP_DATA_MAX, "a rows operation is queued by value");

static void rows_op(void *data)
{
    gr_rows_args a;
    memcpy(&a, data, sizeof a);
    for (size_t r = 0; r < a.height; r++) {
        if (a.src)
            memmove(a.dst + r * a.dpitch, a.src + r * a.spitch, a.width); /* rows may overlap */
        else
            memset(a.dst + r * a.dpitch, a.value, a.width);
    }
}

static size_t region_bytes(const gr_region *g)
{
    return g->width * g->height * g->depth;
}

static grError_t kind_check(const char *call, grMemcpyKind kind)
{
    if ((unsigned)kind > (unsigned)grMemcpyDefault)
        return gr__fail(grErrorInvalidMemcpyDirection,
                        "%s: kind %d is not a grMemcpyKind; pass grMemcpyHostToHost, "
                        "HostToDevice, DeviceToHost, DeviceToDevice or grMemcpyDefault",
                        call, (int)kind);
    return grSuccess;
}

/* The GPU a pitched operation that is not one contiguous copy runs on
 * through the driver (0: on the CPU stream): s's device for a GPU stream;
 * for a CPU stream touching a GPU's memory, that GPU, at once on its
 * legacy stream once s's earlier work has run, as api/memory.c does for
 * 1D copies. */
static grError_t gpu_device(gr_stream *s, const void *dst, const void *src, int *device)
{
    *device = s->device != 0 ? s->device : gr__api_gpu_of(dst, src);
    if (*device != 0 && s->device == 0) {
        grError_t err = gr__stream_sync_dev("a 2D copy or memset", s);
        if (err)
            return gr__fail_again(err);
    }
    return grSuccess;
}

/* The region on GPU 'device' through the driver: on s for a GPU stream,
 * else on the device's legacy stream, waited for. src NULL: a memset. */
static grError_t gpu_region(const char *call, gr_stream *s, int device, const gr_region *d,
                            const gr_region *src, unsigned char value)
{
    gr_stream *gs = s->device != 0 ? s : NULL;
    if (src) {
        gr_copy_side ds = {d->base, d->pitch, d->rows}, ss = {src->base, src->pitch, src->rows};
        return gr__devkind()->copy_pitched(call, gs, device, &ds, &ss, d->width, d->height, d->depth);
    }
    bool even = gr__region_even(d);
    for (size_t z = 0; z < (even ? 1 : d->depth); z++) {
        size_t nrows = even ? d->height * d->depth : d->height;
        grError_t err = gr__devkind()->fill_2d(call, gs, device, d->base + z * d->slice,
                                               nrows > 1 ? d->pitch : d->width, value, d->width, nrows);
        if (err != grSuccess)
            return err;
    }
    return grSuccess;
}

/* Queues the region as 2D operations, one per slice unless the slices
 * are evenly spaced on both sides. src NULL: a memset of 'value'. */
static grError_t rows_enqueue(const char *call, gr_stream *s, const gr_region *d, const gr_region *src,
                              unsigned char value)
{
    bool even = gr__region_even(d) && (!src || gr__region_even(src));
    size_t ops = even ? 1 : d->depth;
    for (size_t z = 0; z < ops; z++) {
        gr_rows_args a = {
            .dst = d->base + z * d->slice,
            .src = src ? src->base + z * src->slice : NULL,
            .width = d->width,
            .height = even ? d->height * d->depth : d->height,
            .dpitch = d->pitch,
            .spitch = src ? src->pitch : 0,
            .value = value,
        };
        grError_t err = gr__launched(s, gr__stream_call_dev(call, s, rows_op, &a, sizeof a));
        if (err != grSuccess)
            return err;
    }
    return grSuccess;
}

/* The copy of extent dst->width x height x depth from src to dst, which
 * 'given' describes as the caller gave it (what a captured memcpy node
 * keeps). */
static grError_t copy_region(const char *call, const gr_region *dst, const gr_region *src,
                             const grMemcpy3DParms *given, grStream_t stream, bool sync)
{
    grMemcpyKind kind = given->kind;
    gr_stream *s;
    grError_t err = kind_check(call, kind);
    if (err != grSuccess)
        return err;
    if (gr__region_empty(dst))
        return gr__stream_from_handle(call, stream, &s);
    if ((err = gr__region_check(call, dst, "destination")) != grSuccess ||
        (err = gr__region_check(call, src, "source")) != grSuccess)
        return err;
    if (gr__region_linear(dst) && gr__region_linear(src)) {
        err = gr__api_copy_enqueue(call, dst->base, src->base, region_bytes(dst), kind, stream, sync, &s);
        return err == grSuccess && sync ? gr__api_wait_legacy(call, s) : err;
    }
    if ((err = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return err;
    if (sync && (err = gr__capture_check_unsafe(call, GR_UNSAFE_SYNC_COPY, s, NULL)) != grSuccess)
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams n;
        memset(&n, 0, sizeof n);
        n.type = grGraphNodeTypeMemcpy;
        n.memcpy.copyParams = *given;
        return gr__capture_record(call, s, &n);
    }
    int device;
    if ((err = gr__capture_check_implicit(call, s)) != grSuccess ||
        (err = gpu_device(s, dst->base, src->base, &device)) != grSuccess)
        return err;
    err = device ? gpu_region(call, s, device, dst, src, 0) : rows_enqueue(call, s, dst, src, 0);
    if (err != grSuccess)
        return err;
    return sync ? gr__api_wait_legacy(call, s) : grSuccess;
}

static grError_t set_region(const char *call, const gr_region *d, int value, grStream_t stream, bool sync)
{
    gr_stream *s;
    grError_t err = gr__stream_from_handle(call, stream, &s);
    if (err != grSuccess || gr__region_empty(d))
        return err;
    if ((err = gr__region_check(call, d, "destination")) != grSuccess)
        return err;
    if (sync && (err = gr__capture_check_unsafe(call, GR_UNSAFE_SYNC_COPY, s, NULL)) != grSuccess)
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        if (!gr__region_even(d))
            return gr__fail(grErrorNotSupported,
                            "%s: a memset of %zu slices whose slice pitch %zu is not pitch %zu x height %zu "
                            "cannot be one memset node; set each slice with grMemset2DAsync (the capture "
                            "goes on without it)",
                            call, d->depth, d->slice, d->pitch, d->height);
        grGraphNodeParams n;
        memset(&n, 0, sizeof n);
        n.type = grGraphNodeTypeMemset;
        n.memset = (grMemsetParams){.dst = d->base,
                                    .pitch = d->height * d->depth > 1 ? d->pitch : 0,
                                    .value = (unsigned char)value,
                                    .elementSize = 1,
                                    .width = d->width,
                                    .height = d->height * d->depth};
        return gr__capture_record(call, s, &n);
    }
    int device;
    if ((err = gr__capture_check_implicit(call, s)) != grSuccess ||
        (err = gpu_device(s, d->base, NULL, &device)) != grSuccess)
        return err;
    err = device ? gpu_region(call, s, device, d, NULL, (unsigned char)value)
                 : rows_enqueue(call, s, d, NULL, (unsigned char)value);
    if (err != grSuccess)
        return err;
    return sync ? gr__api_wait_legacy(call, s) : grSuccess;
}

/* ------------------------------------------------------------------ 2D */

static grError_t copy_2d(const char *call, void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, grMemcpyKind kind, grStream_t stream, bool sync)
{
    gr_region d = {dst, width, height, 1, dpitch, 0, height};
    gr_region s = {(char *)(uintptr_t)src, width, height, 1, spitch, 0, height};
    /* CUDA 13 (probed on an H200): a pitch below the width is
     * InvalidPitchValue for several rows, InvalidValue for one row unless
     * the pitch is 0 (accepted); nothing is checked for an empty copy. */
    if (width > 0 && height > 0 && (width > dpitch || width > spitch)) {
        bool d_bad = width > dpitch && (height > 1 || dpitch != 0);
        bool s_bad = width > spitch && (height > 1 || spitch != 0);
        if (d_bad || s_bad)
            return gr__fail(height > 1 ? grErrorInvalidPitchValue : grErrorInvalidValue,
                            "%s: width %zu is greater than %s %zu; a pitch is the distance between rows, "
                            "at least their width (0 for a single row)",
                            call, width, d_bad ? "dpitch" : "spitch", d_bad ? dpitch : spitch);
    }
    grMemcpy3DParms given;
    memset(&given, 0, sizeof given);
    given.srcPtr = (grPitchedPtr){(void *)(uintptr_t)src, spitch, width, height};
    given.dstPtr = (grPitchedPtr){dst, dpitch, width, height};
    given.extent = (grExtent){width, height, 1};
    given.kind = kind;
    return copy_region(call, &d, &s, &given, stream, sync);
}

GR_API grError_t grMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, grMemcpyKind kind)
{
    return copy_2d("grMemcpy2D", dst, dpitch, src, spitch, width, height, kind, NULL, true);
}

GR_API grError_t grMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t height, grMemcpyKind kind, grStream_t stream)
{
    return copy_2d("grMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream, false);
}

static grError_t set_2d(const char *call, void *p, size_t pitch, int value, size_t width, size_t height,
                        grStream_t stream, bool sync)
{
    gr_region d = {p, width, height, 1, pitch, 0, height};
    /* CUDA 13 (probed): InvalidValue, and only with several rows. */
    if (width > 0 && height > 1 && pitch < width)
        return gr__fail(
            grErrorInvalidValue,
            "%s: pitch %zu is smaller than the width %zu; a pitch is the distance between rows, at "
            "least their width",
            call, pitch, width);
    return set_region(call, &d, value, stream, sync);
}

GR_API grError_t grMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return set_2d("grMemset2D", devPtr, pitch, value, width, height, NULL, true);
}

GR_API grError_t grMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                 grStream_t stream)
{
    return set_2d("grMemset2DAsync", devPtr, pitch, value, width, height, stream, false);
}

/* ------------------------------------------------------------------ 3D */

grError_t gr__api_copy_3d(const char *call, const grMemcpy3DParms *p, grStream_t stream, bool sync)
{
    gr_region d, s;
    grError_t err;
    if (p == NULL)
        return gr__fail(grErrorInvalidValue, "%s: p is NULL; pass the copy's parameters", call);
    if (p->srcArray || p->dstArray)
        return gr__fail(grErrorInvalidValue,
                        "%s: p->%s is not NULL; graphrt has no CUDA arrays, copy between pitched pointers "
                        "(srcPtr, dstPtr) instead",
                        call, p->srcArray ? "srcArray" : "dstArray");
    if ((err = gr__region_3d(call, "destination", p->dstPtr, p->dstPos, p->extent, false, &d)) != grSuccess ||
        (err = gr__region_3d(call, "source", p->srcPtr, p->srcPos, p->extent, false, &s)) != grSuccess)
        return err;
    return copy_region(call, &d, &s, p, stream, sync);
}

GR_API grError_t grMemcpy3D(const grMemcpy3DParms *p)
{
    return gr__api_copy_3d("grMemcpy3D", p, NULL, true);
}

GR_API grError_t grMemcpy3DAsync(const grMemcpy3DParms *p, grStream_t stream)
{
    return gr__api_copy_3d("grMemcpy3DAsync", p, stream, false);
}

static grError_t set_3d(const char *call, grPitchedPtr p, int value, grExtent e, grStream_t stream, bool sync)
{
    gr_region d;
    grError_t err = gr__region_3d(call, "destination", p, (grPos){0, 0, 0}, e, true, &d);
    if (err != grSuccess)
        return err;
    return set_region(call, &d, value, stream, sync);
}

GR_API grError_t grMemset3D(grPitchedPtr pitchedDevPtr, int value, grExtent extent)
{
    return set_3d("grMemset3D", pitchedDevPtr, value, extent, NULL, true);
}

GR_API grError_t grMemset3DAsync(grPitchedPtr pitchedDevPtr, int value, grExtent extent, grStream_t stream)
{
    return set_3d("grMemset3DAsync", pitchedDevPtr, value, extent, stream, false);
}
