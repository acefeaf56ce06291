/*
 * stream_attach.c - grStreamAttachMemAsync: CUDA's stream association of
 * managed memory, checked by CUDA's rules and otherwise a no-op. On the
 * CPU device every allocation is host memory that every stream and the
 * host reach at every moment, which is what each association
 * (grMemAttachGlobal, Host, Single) grants where the device has
 * concurrent managed access: there is nothing to change, and nothing is
 * queued, since an operation without effect has no observable place in
 * stream order. graphrt's allocations of the CPU play the part of
 * managed allocations, untracked host memory that of pageable system
 * memory (CUDA's two kinds of acceptable memory). On a GPU stream the
 * association is the driver's (cuStreamAttachMemAsync through the device
 * table), which answers for the memory; a GPU's managed memory
 * (grMallocManaged with a GPU current) is associated on a GPU's stream.
 */
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/memory.h"
#include "api.h"

/* The memory rules: devPtr is the start of an allocation and length 0 or
 * its size, or untracked host memory with length > 0 that reaches into
 * no allocation. */
static grError_t check_memory(const char *call, void *devPtr, size_t length)
{
    void *base = NULL;
    size_t size = 0;
    int gpu = gr__api_gpu_of(devPtr, NULL);
    if (gpu > 0 && !gr__hostreg_find(devPtr, GR_HOSTREG_MANAGED, NULL, NULL, NULL))
        return gr__fail(grErrorInvalidValue,
                        "%s: %p is device memory of device %d (a GPU), not managed memory (grMallocManaged)",
                        call, devPtr, gpu);
    if (gr__mem_lookup(devPtr, &base, &size, NULL)) {
        if (base != devPtr)
            return gr__fail(grErrorInvalidValue,
                            "%s: %p is %zu bytes into the allocation at %p; an association covers a whole "
                            "allocation, pass its start",
                            call, devPtr, (size_t)((char *)devPtr - (char *)base), base);
        if (length != 0 && length != size)
            return gr__fail(grErrorInvalidValue,
                            "%s: length %zu is neither 0 nor the size of the allocation at %p (%zu bytes); "
                            "an association covers a whole allocation",
                            call, length, base, size);
        return grSuccess;
    }
    if (length == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: %p is host memory graphrt did not allocate (pageable memory), for which length "
                        "must not be 0",
                        call, devPtr);
    return gr__mem_check_range(call, devPtr, length, "range");
}

GR_API grError_t grStreamAttachMemAsync(grStream_t stream, void *devPtr, size_t length, unsigned int flags)
{
    static const char call[] = "grStreamAttachMemAsync";
    gr_stream *s = NULL;
    grError_t e;
    if (!devPtr)
        return gr__fail(grErrorInvalidValue, "%s: devPtr is NULL; pass the memory to associate", call);
    if (flags != grMemAttachGlobal && flags != grMemAttachHost && flags != grMemAttachSingle)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x is not one of grMemAttachGlobal (1), grMemAttachHost (2) and "
                        "grMemAttachSingle (4)",
                        call, flags);
    if ((e = gr__stream_from_handle(call, stream, &s)))
        return e;
    if (flags == grMemAttachSingle && (s->flags & GR_STREAM_LEGACY))
        return gr__fail(grErrorInvalidValue,
                        "%s: grMemAttachSingle on the legacy stream, which is no single stream (CUDA refuses "
                        "it too); name a created stream, or use grMemAttachGlobal",
                        call);
    if ((e = check_memory(call, devPtr, length)))
        return e;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return gr__capture_refuse(call, s,
                                  "a memory association cannot be captured (no graph node represents it); "
                                  "make it before the capture begins");
    if (s->device == 0 && gr__api_gpu_of(devPtr, NULL) > 0)
        return gr__fail(grErrorNotSupported,
                        "%s: %p is a GPU's managed memory, which the driver associates: pass a stream of a "
                        "GPU, not of the CPU device",
                        call, devPtr);
    if ((e = gr__capture_check_implicit(call, s)) != grSuccess || s->device == 0)
        return e;
    return gr__devkind()->stream_attach(call, s, devPtr, length, flags);
}
