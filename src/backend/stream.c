/*
 * stream.c - the stream object every device shares (backend.h): its
 * header (backend.h), references and freeing, the handle's death, and
 * turning a public handle into a live stream. Each device frees its own
 * part: a device kind's through the device table, the CPU's queue, caches
 * and registry in cpu/stream.c (gr__cpu_stream_free).
 *
 * Invariant: a stream's memory is a shell (of dev_stream_shelf, or of
 * the CPU's shelf) for the life of the process (core.h), so that a dead
 * handle still reads as one (its magic) and never as another object.
 */
#include "cpu/stream_int.h"
#include "device.h"

#include <string.h>

/* Device kinds' stream objects, kept as dead shells once freed (core.h);
 * the CPU's have a shelf of their own (cpu/stream.c). */
static gr_shelf dev_stream_shelf = GR_SHELF_INIT(sizeof(gr_stream) + GR_DEV_STREAM_MAX);

void gr__stream_header_init(gr_stream *s, unsigned flags, unsigned user_flags, int device)
{
    static atomic_uint_fast64_t serials;
    s->magic = GR_MAGIC_STREAM;
    s->serial = gr_fetch_add_relaxed(&serials, 1) + 1;
    s->flags = flags;
    s->user_flags = user_flags;
    s->device = device;
    atomic_init(&s->refs, 1);
}

gr_stream *gr__stream_new_dev(size_t size, unsigned flags, unsigned user_flags, int device)
{
    gr_assert(size >= sizeof(gr_stream) && size <= sizeof(gr_stream) + GR_DEV_STREAM_MAX && device > 0);
    gr_stream *s = gr__shell_alloc(&dev_stream_shelf);
    if (!s)
        return NULL;
    memset(s, 0, size);
    gr__stream_header_init(s, flags, user_flags, device);
    return s;
}

static void stream_free(gr_stream *s)
{
    if (s->device == 0) {
        gr__cpu_stream_free(s);
        return;
    }
    gr__devkind()->stream_free(s);
    gr__mark_dead(&s->magic);
    gr__shell_retire(&dev_stream_shelf, s);
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
    if (s->device != 0) {
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
    grError_t e = (grError_t)gr_load_relaxed(&gr__cpu_stream(s)->sticky);
    return e ? gr__fail_again(e) : grSuccess;
}

grError_t gr__stream_default_dev(const char *call, int device, bool per_thread, gr_stream **out)
{
    if (device != 0)
        return gr__devkind()->stream_default(call, device, per_thread, out);
    return gr__cpu_stream_default(call, per_thread ? grStreamPerThread : grStreamLegacy, out);
}

/* A call queued on a device's stream: fn and its copied payload, run by
 * the device's host function, which frees the box. */
typedef struct call_box {
    gr_op_fn fn;
    _Alignas(16) unsigned char data[GR_OP_DATA_MAX];
} call_box;

static void call_box_run(void *arg)
{
    call_box *b = arg;
    b->fn(b->data);
    gr__free(b);
}

static GR_NOINLINE grError_t call_device(const char *call, gr_stream *s, gr_op_fn fn, const void *data,
                                         size_t size)
{
    call_box *b = gr__aligned_alloc(_Alignof(call_box), sizeof *b);
    if (!b)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
    b->fn = fn;
    memcpy(b->data, data, size);
    grError_t err = gr__devkind()->host_func(call, s, call_box_run, b);
    if (err != grSuccess)
        gr__free(b);
    return err;
}

grError_t gr__stream_call_dev(const char *call, gr_stream *s, gr_op_fn fn, const void *data, size_t size)
{
    /* The CPU's path keeps no frame: a jump to its enqueue. */
    if (GR_LIKELY(s->device == 0))
        return gr__stream_enqueue_call(call, s, fn, data, size);
    return call_device(call, s, fn, data, size);
}

/* The stream op of one memory operation on the CPU. */
static void memop_op(void *data)
{
    grStreamBatchMemOpParams op;
    memcpy(&op, data, sizeof op);
    gr__memop_run(&op);
}

grError_t gr__stream_memops_dev(const char *call, gr_stream *s, unsigned count,
                                const grStreamBatchMemOpParams *ops)
{
    grError_t err;
    if (s->device != 0)
        return gr__devkind()->stream_memops(call, s, count, ops);
    /* gr__stream_enqueue_call fails only on a capturing stream, which the
     * caller has diverted: the batch is queued whole. */
    for (unsigned i = 0; i < count; i++)
        if ((err = gr__stream_enqueue_call(call, s, memop_op, &ops[i], sizeof ops[i])) != grSuccess)
            return err;
    return grSuccess;
}

void gr__stream_wait_seq_dev(gr_stream *s, uint64_t seq)
{
    /* A device's stream counts no ops: waiting for all its work so far
     * covers its first seq. Its error stays for the next synchronisation. */
    if (s->device != 0)
        (void)gr__devkind()->stream_sync("a stream-ordered wait of a pool", s);
    else
        gr__stream_wait_for(s, seq);
}

uint64_t gr__stream_known_by_waits_dev(gr_stream *s, gr_stream *t)
{
    /* A device keeps no record of the waits queued on its streams. */
    if (s->device != 0 || t->device != 0)
        return 0;
    return gr__stream_known_by_waits(s, t);
}

bool gr__stream_follow_dev(gr_stream *s, gr_stream *t, uint64_t seq)
{
    if (GR_LIKELY(s->device == 0 && t->device == 0))
        return gr__stream_enqueue_wait(s, t, seq);
    /* As every wait that meets a device (docs/devices.md): the calling
     * thread waits at the call. */
    gr__stream_wait_seq_dev(t, seq);
    return true;
}
