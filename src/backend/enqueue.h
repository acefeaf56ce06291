/*
 * enqueue.h - the eager enqueue of a kernel launch on a CPU stream,
 * inline for the entry point that calls it (api/kernel.c): the hot path
 * of every eager launch, which a call between the entry point and the
 * backend would make a tenth slower (two frames' worth of saved registers
 * and spilled arguments). The one header above the CPU backend that sees
 * its op layout; a GPU backend's launch dispatches before it.
 */
#ifndef GR_ENQUEUE_H
#define GR_ENQUEUE_H

#include "cpu/stream_int.h"

#include <string.h>

/* Queues an eager launch of k (checked by the caller) on s (not
 * capturing), its argument values copied now; fails only when out of
 * memory, with a detail naming 'call'. */
static inline grError_t gr__stream_enqueue_kernel(const char *call, gr_stream *s, grKernel_t kernel,
                                                  const grDim3 *grid, const grDim3 *block, size_t sharedMem,
                                                  void **args)
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

#endif /* GR_ENQUEUE_H */
