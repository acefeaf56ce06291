/*
 * memop.c - stream memory operations on a GPU stream: graphrt's checked
 * operations handed to the driver's cuStreamBatchMemOp, one call per
 * batch (a single grStreamWaitValue32 is a batch of one); the conversion
 * is also what the batch memory operation nodes of a lowered graph take
 * (graph.c).
 *
 * Invariant: graphrt's grStreamBatchMemOpParams and the driver's
 * CUstreamBatchMemOpParams agree in size and in the offsets of every
 * field copied (checked below at compile time), so a conversion is a
 * field-by-field copy with the pointer turned into a CUdeviceptr.
 */
#include "cuda_int.h"

#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(CUstreamBatchMemOpParams) == sizeof(grStreamBatchMemOpParams),
               "the driver's operation and graphrt's have one size");
_Static_assert(offsetof(CUstreamBatchMemOpParams, waitValue.address) ==
                   offsetof(grStreamBatchMemOpParams, waitValue.address),
               "address at the driver's offset");
_Static_assert(offsetof(CUstreamBatchMemOpParams, waitValue.value64) ==
                   offsetof(grStreamBatchMemOpParams, waitValue.value64),
               "value at the driver's offset");
_Static_assert(offsetof(CUstreamBatchMemOpParams, waitValue.flags) ==
                   offsetof(grStreamBatchMemOpParams, waitValue.flags),
               "flags at the driver's offset");

CUstreamBatchMemOpParams *gr__cuda_memops_convert(const grStreamBatchMemOpParams *ops, unsigned count,
                                                  CUstreamBatchMemOpParams *inl)
{
    CUstreamBatchMemOpParams *cu = inl;
    if (count > GR_CU_MEMOPS_INLINE && !(cu = gr__malloc(count * sizeof *cu)))
        return NULL;
    for (unsigned i = 0; i < count; i++) {
        const grStreamBatchMemOpParams *op = &ops[i];
        memset(&cu[i], 0, sizeof cu[i]);
        cu[i].operation = (int)op->operation;
        if (op->operation == grStreamMemOpBarrier) {
            cu[i].memoryBarrier.flags = op->memoryBarrier.flags;
            continue;
        }
        cu[i].waitValue.address = (CUdeviceptr)(uintptr_t)op->waitValue.address;
        if (op->operation == grStreamMemOpWaitValue64 || op->operation == grStreamMemOpWriteValue64)
            cu[i].waitValue.value64 = op->waitValue.value64;
        else
            cu[i].waitValue.value = op->waitValue.value;
        cu[i].waitValue.flags = op->waitValue.flags;
    }
    return cu;
}

grError_t gr__cuda_stream_memops(const char *call, gr_stream *s, unsigned count,
                                 const grStreamBatchMemOpParams *ops)
{
    CUstreamBatchMemOpParams inl[GR_CU_MEMOPS_INLINE];
    CUstreamBatchMemOpParams *cu = gr__cuda_memops_convert(ops, count, inl);
    if (!cu)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory converting %u operations", call, count);
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamBatchMemOp(gr__cuda_stream(s)->cu, count, cu, 0);
    if (cu != inl)
        gr__free(cu);
    return r ? gr__cu_fail(call, s->device, "cuStreamBatchMemOp", r) : grSuccess;
}
