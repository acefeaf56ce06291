/*
 * memops.c - stream memory operations: grStreamWaitValue32/64,
 * grStreamWriteValue32/64 and grStreamBatchMemOp, the driver's
 * cuStreamWaitValue*, cuStreamWriteValue* and cuStreamBatchMemOp on CPU
 * streams.
 *
 * On a CPU stream each operation is one small stream op that runs it
 * through the backend (backend/cpu/memop.c says how a wait waits); on a
 * GPU stream a call is one cuStreamBatchMemOp (backend/cuda/memop.c); on
 * a capturing stream each call becomes one batch memory operation node,
 * as CUDA 13 captures them.
 *
 * Invariant: every argument is checked before anything is queued or
 * recorded, so a refused call leaves the stream (and its capture) as it
 * was.
 */
#include "api.h"
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/memory.h"

#include <string.h>

/* Queues or records count checked operations on stream s. A batch holding
 * a write is a launch for grDebugLaunchBlocking; one of waits only is not,
 * as an unmet wait must not block its caller (often the thread that will
 * write the word). */
static grError_t memops_enqueue(const char *call, gr_stream *s, unsigned count,
                                const grStreamBatchMemOpParams *ops)
{
    grError_t err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams desc;
        memset(&desc, 0, sizeof desc);
        desc.type = grGraphNodeTypeBatchMemOp;
        desc.memOp.count = count;
        desc.memOp.paramArray = (grStreamBatchMemOpParams *)(uintptr_t)ops;
        return gr__capture_record(call, s, &desc);
    }
    if ((err = gr__capture_check_implicit(call, s)) != grSuccess)
        return err;
    bool writes = false;
    for (unsigned i = 0; i < count; i++)
        writes = writes || (ops[i].operation != grStreamMemOpWaitValue32 &&
                            ops[i].operation != grStreamMemOpWaitValue64);
    /* A CPU stream's words are host memory; a GPU stream's batch is the
     * driver's, which checks that the GPU reaches the words (its memory,
     * or host memory it maps). */
    for (unsigned i = 0; s->device == 0 && i < count; i++)
        if (ops[i].operation != grStreamMemOpBarrier && gr__api_gpu_of(ops[i].waitValue.address, NULL) != 0)
            return gr__fail(
                grErrorNotSupported,
                "%s: a CPU stream's memory operations run over host memory; the word %p (operation %u) "
                "is a GPU's memory (queue the operations on a stream of that GPU)",
                call, ops[i].waitValue.address, i);
    err = gr__stream_memops_dev(call, s, count, ops);
    return writes ? gr__launched(s, err) : err;
}

static grError_t memop(const char *call, grStream_t stream, void *addr, uint64_t value, unsigned flags,
                       bool wide, bool wait)
{
    size_t size = wide ? 8 : 4;
    gr_stream *s;
    if (addr == NULL)
        return gr__fail(grErrorInvalidValue, "%s: addr is NULL; pass the word to %s", call,
                        wait ? "wait on" : "write");
    if ((uintptr_t)addr % size != 0)
        return gr__fail(grErrorInvalidValue, "%s: addr %p is not aligned to %zu bytes", call, addr, size);
    /* The codes of CUDA 13's driver, probed on an H200: it refuses
     * NoMemoryBarrier (InvalidValue) and Flush (NotSupported: the device
     * cannot flush remote writes); graphrt's CPU device answers the same. */
    if (wait ? (flags & ~grStreamWaitValueFlush) > grStreamWaitValueNor : flags != grStreamWriteValueDefault)
        return gr__fail(grErrorInvalidValue,
                        wait ? "%s: flags 0x%x is not grStreamWaitValueGeq, Eq, And or Nor"
                             : "%s: flags 0x%x is not grStreamWriteValueDefault (NoMemoryBarrier is refused, "
                               "as CUDA 13 refuses it on an H200)",
                        call, flags);
    if (wait && (flags & grStreamWaitValueFlush))
        return gr__fail(grErrorNotSupported,
                        "%s: grStreamWaitValueFlush is not supported: the device cannot flush remote writes "
                        "(as an H200 answers under CUDA 13)",
                        call);
    grError_t err = gr__mem_check_range(call, addr, size, "word");
    if (err != grSuccess || (err = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return err;
    grStreamBatchMemOpParams op;
    memset(&op, 0, sizeof op);
    op.operation = wait ? (wide ? grStreamMemOpWaitValue64 : grStreamMemOpWaitValue32)
                        : (wide ? grStreamMemOpWriteValue64 : grStreamMemOpWriteValue32);
    op.waitValue.address = addr;
    if (wide)
        op.waitValue.value64 = value;
    else
        op.waitValue.value = (uint32_t)value;
    op.waitValue.flags = flags;
    return memops_enqueue(call, s, 1, &op);
}

GR_API grError_t grStreamWaitValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags)
{
    return memop("grStreamWaitValue32", stream, addr, value, flags, false, true);
}

GR_API grError_t grStreamWaitValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags)
{
    return memop("grStreamWaitValue64", stream, addr, value, flags, true, true);
}

GR_API grError_t grStreamWriteValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags)
{
    return memop("grStreamWriteValue32", stream, addr, value, flags, false, false);
}

GR_API grError_t grStreamWriteValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags)
{
    return memop("grStreamWriteValue64", stream, addr, value, flags, true, false);
}

GR_API grError_t grStreamBatchMemOp(grStream_t stream, unsigned int count,
                                    grStreamBatchMemOpParams *paramArray, unsigned int flags)
{
    static const char call[] = "grStreamBatchMemOp";
    gr_stream *s;
    grError_t err = gr__memop_check(call, count, paramArray, flags);
    if (err != grSuccess || (err = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return err;
    /* Nothing to queue or record, as CUDA 13 answers (probed); a capture
     * that was invalidated still says so. */
    if (count == 0)
        return gr__stream_capturing(s) ? gr__capture_check_active(call, s) : grSuccess;
    return memops_enqueue(call, s, count, paramArray);
}
