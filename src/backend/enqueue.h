/*
 * enqueue.h - the eager enqueues on a CPU stream (a kernel launch, a host
 * function, an event record), inline for the entry points that call them
 * (api/): the hot paths of eager work, which a call between the entry
 * point and the backend makes up to a tenth slower (two frames' worth of
 * saved registers and spilled arguments). The one header above the CPU
 * backend that sees its op layout; a GPU backend dispatches before it.
 */
#ifndef GR_ENQUEUE_H
#define GR_ENQUEUE_H

#include "cpu/event.h"
#include "stream_order.h"

#include <string.h>

/* Queues an eager launch of k (checked by the caller) on s (not
 * capturing), its argument values copied now, cooperative (coop.c) if
 * 'coop'; fails only when out of memory, with a detail naming 'call'. */
static inline grError_t gr__stream_enqueue_kernel(const char *call, gr_stream *s, grKernel_t kernel,
                                                  const grDim3 *grid, const grDim3 *block, size_t sharedMem,
                                                  void **args, bool coop)
{
    gr_runtime *rt;
    gr_op *op;
    void *heap = NULL;
    if (kernel->argbytes > GR_OP_DATA_MAX) {
        heap = gr__aligned_alloc(16, kernel->argbytes);
        if (!heap)
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory copying the arguments of '%s'", call,
                            kernel->name);
        gr__kernel_pack(kernel, args, heap, NULL);
    }
    rt = gr__runtime_get();
    op = gr__stream_lock_slot(rt, s);
    if (!op) {
        gr__free(heap);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
    }
    op->kind = GR_OP_KERNEL;
    op->shmem = (uint32_t)sharedMem;
    op->coop = coop;
    op->u.kern.k = kernel;
    op->drop = gr__stream_cache_kernel_locked(s, kernel);
    op->u.kern.grid = *grid;
    op->u.kern.block = *block;
    if (heap) {
        op->heap_args = 1;
        memcpy(op->data, &heap, sizeof heap);
    } else {
        op->heap_args = 0;
        gr__kernel_pack(kernel, args, op->data, NULL);
    }
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}

/* Queues fn(userData) on s (not capturing); fails only when out of
 * memory, with a detail naming 'call'. */
static inline grError_t gr__stream_enqueue_host(const char *call, gr_stream *s, grHostFn_t fn, void *userData)
{
    gr_runtime *rt = gr__runtime_get();
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (!op)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
    op->kind = GR_OP_HOST;
    op->u.host.fn = fn;
    op->u.host.user = userData;
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}

/* Records e at the tail of s (not capturing); fails only when out of
 * memory, with a detail naming 'call'. */
static inline grError_t gr__event_record(const char *call, grEvent_t e, gr_stream *s)
{
    gr_runtime *rt = gr__runtime_get();
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (!op)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
    gr__event_record_locked(e, s, op);
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}

#endif /* GR_ENQUEUE_H */
