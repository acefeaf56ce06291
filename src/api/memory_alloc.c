/*
 * memory_alloc.c - the allocation calls beyond grMalloc and grMallocHost:
 * grMallocManaged, grMallocPitch, grMalloc3D, grHostAlloc and its two
 * queries (grHostGetDevicePointer, grHostGetFlags). Each is a grMalloc
 * or grMallocHost allocation (gr__api_alloc: checked, tracked, freed by
 * grFree / grFreeHost) plus, where CUDA reports something more, a note
 * in memory/hostreg.c.
 *
 * Invariants:
 *   - every argument is checked before anything is allocated, and an
 *     allocation whose note cannot be recorded is freed again before the
 *     call fails: a refused call leaves no memory behind;
 *   - on the CPU device all device memory is host memory and addresses
 *     are unified, so managed memory is device memory the host may use
 *     and a host allocation's device address is the pointer itself.
 */
#include "api.h"
#include "../backend/device.h"

/* Frees what gr__api_alloc returned when a later step of the call fails. */
static void undo_alloc(void *p, gr_mem_kind kind)
{
    if (kind == GR_MEM_HOST)
        (void)grFreeHost(p);
    else
        (void)grFree(p);
}

GR_API grError_t grMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    static const char call[] = "grMallocManaged";
    if (!devPtr)
        return gr__fail(grErrorInvalidValue,
                        "%s: the output pointer is NULL; pass the address of a void * that receives the "
                        "allocation",
                        call);
    if (size == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: size is 0; CUDA refuses managed allocations of 0 bytes (unlike grMalloc)", call);
    if (flags != grMemAttachGlobal && flags != grMemAttachHost)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x is not grMemAttachGlobal (0x1) or grMemAttachHost (0x2); managed "
                        "memory starts with one of those two associations",
                        call, flags);
    /* On a GPU the driver's managed memory (cuMemAllocManaged), which
     * the host and every GPU reach; on the CPU device memory is host
     * memory already. */
    int device = gr__device_current();
    void *p = NULL;
    grError_t err = device != 0 ? gr__api_alloc_managed(call, &p, size, flags, device)
                                : gr__api_alloc(call, &p, size, GR_MEM_DEVICE);
    if (err)
        return err;
    if (!gr__hostreg_note(p, size, flags, GR_HOSTREG_MANAGED)) {
        undo_alloc(p, GR_MEM_DEVICE);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory recording the allocation of %zu bytes",
                        call, size);
    }
    *devPtr = p;
    return grSuccess;
}

/* width rounded up to the pitch alignment; false on overflow. */
static bool pitch_of(size_t width, size_t *pitch)
{
    if (width > SIZE_MAX - (GR_PITCH_ALIGN - 1))
        return false;
    *pitch = (width + GR_PITCH_ALIGN - 1) / GR_PITCH_ALIGN * GR_PITCH_ALIGN;
    return true;
}

/* The pitched allocation of grMallocPitch and grMalloc3D: 'rows' rows of
 * width bytes, *pitch apart. */
static grError_t alloc_pitched(const char *call, void **out, size_t *pitch_out, size_t width, size_t rows)
{
    size_t pitch;
    if (width == 0 || rows == 0) {
        /* Nothing to allocate (but the capture mode still applies, as
         * grMalloc(0) checks it). */
        grError_t err = gr__api_alloc(call, out, 0, GR_MEM_DEVICE);
        if (err == grSuccess)
            *pitch_out = 0;
        return err;
    }
    if (!pitch_of(width, &pitch) || rows > SIZE_MAX / pitch)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: %zu rows of %zu bytes (rounded to a %u-byte pitch) do not fit in the address "
                        "space",
                        call, rows, width, GR_PITCH_ALIGN);
    grError_t err = gr__api_alloc(call, out, pitch * rows, GR_MEM_DEVICE);
    if (err == grSuccess)
        *pitch_out = pitch;
    return err;
}

GR_API grError_t grMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    static const char call[] = "grMallocPitch";
    if (!devPtr || !pitch)
        return gr__fail(grErrorInvalidValue, "%s: '%s' (an output pointer) is NULL", call,
                        !devPtr ? "devPtr" : "pitch");
    void *p = NULL;
    size_t pp = 0;
    grError_t err = alloc_pitched(call, &p, &pp, width, height);
    if (err)
        return err;
    *devPtr = p;
    *pitch = pp;
    return grSuccess;
}

GR_API grError_t grMalloc3D(grPitchedPtr *pitchedDevPtr, grExtent extent)
{
    static const char call[] = "grMalloc3D";
    if (!pitchedDevPtr)
        return gr__fail(grErrorInvalidValue, "%s: 'pitchedDevPtr' (the output pointer) is NULL", call);
    size_t rows = extent.height;
    if (extent.depth != 0 && rows > SIZE_MAX / extent.depth)
        return gr__fail(grErrorMemoryAllocation, "%s: %zu slices of %zu rows do not fit in the address space",
                        call, extent.depth, extent.height);
    rows *= extent.depth;
    void *p = NULL;
    size_t pitch = 0;
    grError_t err = alloc_pitched(call, &p, &pitch, extent.width, rows);
    if (err)
        return err;
    *pitchedDevPtr = make_grPitchedPtr(p, pitch, extent.width, extent.height);
    return grSuccess;
}

#define HOST_ALLOC_FLAGS (grHostAllocPortable | grHostAllocMapped | grHostAllocWriteCombined)

GR_API grError_t grHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    static const char call[] = "grHostAlloc";
    if (!pHost)
        return gr__fail(grErrorInvalidValue,
                        "%s: the output pointer is NULL; pass the address of a void * that receives the "
                        "allocation",
                        call);
    if (flags & ~HOST_ALLOC_FLAGS)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x has bits other than grHostAllocPortable, grHostAllocMapped and "
                        "grHostAllocWriteCombined (0x7)",
                        call, flags);
    void *p = NULL;
    grError_t err = gr__api_alloc(call, &p, size, GR_MEM_HOST);
    if (err)
        return err;
    if (p && !gr__hostreg_note(p, size, flags, GR_HOSTREG_ALLOC)) {
        undo_alloc(p, GR_MEM_HOST);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory recording the allocation of %zu bytes",
                        call, size);
    }
    *pHost = p;
    return grSuccess;
}

/* Whether p lies in host memory CUDA maps for devices: a grMallocHost or
 * grHostAlloc allocation, or a registered range. */
static bool mapped_host(const void *p)
{
    gr_mem_kind kind;
    int owner;
    if (gr__mem_describe(p, &kind, &owner))
        return kind == GR_MEM_HOST;
    return gr__hostreg_find(p, GR_HOSTREG_REGISTERED, NULL, NULL, NULL);
}

GR_API grError_t grHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    static const char call[] = "grHostGetDevicePointer";
    if (!pDevice)
        return gr__fail(grErrorInvalidValue, "%s: 'pDevice' (the output pointer) is NULL", call);
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%x; CUDA requires 0", call, flags);
    if (!pHost || !mapped_host(pHost))
        return gr__fail(grErrorInvalidValue,
                        "%s: %p is not in host memory from grHostAlloc or grMallocHost, nor in a range "
                        "registered with grHostRegister; only such memory has a device address",
                        call, pHost);
    /* On a GPU the driver's mapping (with unified addressing the same
     * address, which the driver confirms); on the CPU the pointer. */
    int device = gr__device_current();
    if (device != 0)
        return gr__devkind()->host_device_pointer(call, device, pHost, pDevice);
    *pDevice = pHost;
    return grSuccess;
}

GR_API grError_t grHostGetFlags(unsigned int *pFlags, void *pHost)
{
    static const char call[] = "grHostGetFlags";
    gr_mem_kind kind;
    int owner;
    void *base;
    unsigned flags = grHostAllocDefault;
    if (!pFlags)
        return gr__fail(grErrorInvalidValue, "%s: 'pFlags' (the output pointer) is NULL", call);
    if (!pHost || !gr__mem_describe(pHost, &kind, &owner) || kind != GR_MEM_HOST)
        return gr__fail(grErrorInvalidValue,
                        "%s: %p is not in an allocation of grHostAlloc or grMallocHost; only those have "
                        "host allocation flags",
                        call, pHost);
    /* grMallocHost memory has no note: the default flags. */
    if (!gr__mem_lookup(pHost, &base, NULL, NULL) ||
        !gr__hostreg_find(base, GR_HOSTREG_ALLOC, NULL, NULL, &flags))
        flags = grHostAllocDefault;
    *pFlags = flags;
    return grSuccess;
}
