/*
 * stream.c - the stream object every device shares (backend.h): its
 * allocation, references and freeing, the handle's death, and turning a
 * public handle into a live stream. Each kind frees its own part: a GPU
 * kind's 'gpu' through the device table, the CPU queue, caches and
 * registry through cpu/stream.c (every stream has the queue's first
 * segment, which the object header holds).
 *
 * Invariant: a stream's memory is a shell of stream_shelf for the life of
 * the process (core.h), so that a dead handle still reads as one (its
 * magic) and never as another object.
 */
#include "cpu/stream_int.h"
#include "device.h"

#include <string.h>

/* Stream objects, kept as dead shells once freed (core.h). */
static gr_shelf stream_shelf = GR_SHELF_INIT(sizeof(gr_stream));

gr_stream *gr__stream_new(unsigned flags, unsigned user_flags)
{
    gr_stream *s = gr__shell_alloc(&stream_shelf);
    gr_seg *seg = gr__aligned_alloc(GR_CACHELINE, sizeof *seg);
    if (!s || !seg) {
        if (s) {
            s->magic = GR_MAGIC_DEAD;
            gr__shell_retire(&stream_shelf, s);
        }
        gr__free(seg);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    memset(seg, 0, sizeof *seg);
    static atomic_uint_fast64_t serials;
    s->magic = GR_MAGIC_STREAM;
    s->serial = gr_fetch_add_relaxed(&serials, 1) + 1;
    s->flags = flags;
    s->user_flags = user_flags;
    atomic_init(&s->refs, 1);
    s->tail_seg = s->head_seg = seg;
    return s;
}

static void stream_free(gr_stream *s)
{
    if (s->gpu)
        gr__devkind()->stream_free(s->gpu);
    gr__cpu_stream_fini(s);
    gr__mark_dead(&s->magic);
    gr__shell_retire(&stream_shelf, s);
}

void gr__stream_retain(gr_stream *s)
{
    gr_fetch_add_relaxed(&s->refs, 1);
}

void gr__stream_release(gr_stream *s)
{
    if (gr_fetch_sub_acq_rel(&s->refs, 1) == 1)
        stream_free(s);
}

gr_stream *gr__stream_new_gpu(unsigned flags, unsigned user_flags, int device, struct gr_dev_stream *gpu)
{
    gr_stream *s = gr__stream_new(flags, user_flags);
    if (s) {
        s->device = device;
        s->gpu = gpu;
    }
    return s;
}

grError_t gr__stream_from_handle_slow(const char *call, grStream_t h, gr_stream **out)
{
    /* The default streams are the current device's. */
    if (h == NULL || h == grStreamLegacy || h == grStreamPerThread) {
        int device = gr__device_current();
        if (device != 0)
            return gr__devkind()->stream_default(call, device, h == grStreamPerThread, out);
    }
    if (h == NULL || h == grStreamLegacy || h == grStreamPerThread)
        return gr__cpu_stream_default(call, h, out);
    if (GR_UNLIKELY(!gr__device_start()))
        return gr__fail(grErrorInitializationError,
                        "%s: the graphrt runtime could not start (out of memory or "
                        "threads)",
                        call);
    gr_stream *s = (gr_stream *)h;
    if (GR_UNLIKELY(s->magic != GR_MAGIC_STREAM))
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: stream %p is not a live stream (destroyed, or not created by grStreamCreate)",
                        call, GR_PTR(h));
    *out = s;
    return grSuccess;
}

void gr__stream_destroy(gr_stream *s)
{
    if (s->gpu) {
        /* Nothing of the CPU's holds it: the handle's reference is the
         * last but those of events recorded on it. */
        s->magic = GR_MAGIC_DEAD;
        s->handle_dead = true;
        gr__stream_release(s);
        return;
    }
    gr__cpu_stream_kill(s);
}

grError_t gr__stream_create_dev(const char *call, int device, unsigned flags, int priority, gr_stream **out)
{
    gr_stream *s = NULL;
    if (device != 0)
        return gr__devkind()->stream_create(call, device, flags, priority, out);
    grError_t err = gr__stream_create(flags, &s);
    if (err == grErrorInitializationError)
        return gr__fail(err, "%s: the graphrt runtime could not start", call);
    if (err)
        return gr__fail(err, "%s: out of memory", call);
    s->priority = gr__cpu_stream_priority_clamp(priority);
    *out = s;
    return grSuccess;
}

grError_t gr__stream_query_dev(const char *call, gr_stream *s)
{
    if (s->device != 0)
        return gr__devkind()->stream_query(call, s);
    if (!gr__stream_idle(s))
        return grErrorNotReady;
    grError_t e = (grError_t)gr_load_relaxed(&s->sticky);
    return e ? gr__fail_again(e) : grSuccess;
}
