/*
 * host_register.c - grHostRegister and grHostUnregister: application
 * memory registered as pinned host memory. The CPU device reaches all
 * host memory already, so registering changes what graphrt reports of
 * the range (grPointerGetAttributes, grHostGetDevicePointer), not how it
 * is used; the ranges are kept in memory/hostreg.c. Where GPUs exist the
 * range is also registered with the device kind (the driver's
 * cuMemHostRegister: page-locked and mapped for every GPU), so that
 * copies between it and a GPU run at pinned speed.
 *
 * Invariants: a range is checked whole (flags, bounds, overlap with
 * graphrt's allocations and with registered ranges) before it is
 * recorded, and a range the device refuses is forgotten again before the
 * call fails, so a refused call registers nothing.
 */
#include "api.h"
#include "../backend/device.h"

#define REGISTER_FLAGS \
    (grHostRegisterPortable | grHostRegisterMapped | grHostRegisterIoMemory | grHostRegisterReadOnly)

GR_API grError_t grHostRegister(void *ptr, size_t size, unsigned int flags)
{
    static const char call[] = "grHostRegister";
    void *base;
    size_t asize;
    gr_mem_kind kind;
    if (!ptr || size == 0)
        return gr__fail(grErrorInvalidValue, "%s: %s; pass the start and size of the host range to register",
                        call, !ptr ? "ptr is NULL" : "size is 0");
    if (flags & ~REGISTER_FLAGS)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x has bits other than grHostRegisterPortable, Mapped, IoMemory and "
                        "ReadOnly (0xf)",
                        call, flags);
    if (flags & grHostRegisterIoMemory)
        return gr__fail(grErrorNotSupported,
                        "%s: grHostRegisterIoMemory registers I/O memory of another PCIe device, which "
                        "graphrt cannot map",
                        call);
    if ((uintptr_t)ptr > UINTPTR_MAX - size)
        return gr__fail(grErrorInvalidValue,
                        "%s: the range of %zu bytes at %p wraps around the address space", call, size, ptr);
    /* Memory graphrt allocated: pinned host memory is registered already;
     * device memory (the CPU's too) is not host memory to register. A
     * range starting inside an allocation is found by the lookup, one
     * reaching into an allocation from outside by the range check. */
    bool inside = gr__mem_lookup(ptr, &base, &asize, &kind);
    if (!inside && !gr__mem_range_ok(ptr, size, &base, &asize))
        inside = base != NULL && gr__mem_lookup(base, NULL, NULL, &kind);
    if (inside && kind == GR_MEM_HOST)
        return gr__fail(grErrorHostMemoryAlreadyRegistered,
                        "%s: the range at %p reaches into pinned host memory from grMallocHost / grHostAlloc "
                        "(the block at %p of %zu bytes), which is registered already",
                        call, ptr, base, asize);
    if (inside)
        return gr__fail(grErrorInvalidValue,
                        "%s: the range at %p of %zu bytes reaches into graphrt device memory (the block at "
                        "%p of %zu bytes); register host memory the application allocated",
                        call, ptr, size, base, asize);
    switch (gr__hostreg_register(ptr, size, flags)) {
    case GR_HOSTREG_OK: {
        grError_t err =
            gr__gpu_count() > 0 ? gr__devkind()->host_register(call, ptr, size, flags) : grSuccess;
        if (err != grSuccess)
            (void)gr__hostreg_unregister(ptr);
        return err;
    }
    case GR_HOSTREG_OVERLAP:
        return gr__fail(grErrorHostMemoryAlreadyRegistered,
                        "%s: part of the range at %p of %zu bytes is registered already; unregister it "
                        "first",
                        call, ptr, size);
    case GR_HOSTREG_NOMEM:
        break;
    }
    return gr__fail(grErrorMemoryAllocation, "%s: out of memory recording the range", call);
}

GR_API grError_t grHostUnregister(void *ptr)
{
    static const char call[] = "grHostUnregister";
    if (!ptr)
        return gr__fail(grErrorInvalidValue, "%s: ptr is NULL; pass the start of a registered range", call);
    if (!gr__hostreg_unregister(ptr))
        return gr__fail(grErrorHostMemoryNotRegistered,
                        "%s: no range registered with grHostRegister starts at %p (never registered, "
                        "unregistered already, or not its start)",
                        call, ptr);
    return gr__gpu_count() > 0 ? gr__devkind()->host_unregister(call, ptr) : grSuccess;
}
