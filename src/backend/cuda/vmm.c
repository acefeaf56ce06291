/*
 * vmm.c - the driver's virtual memory management for graph memory on a
 * GPU: an allocation node's address range is reserved when the node is
 * added (cuMemAddressReserve), and an executable maps the ranges of its
 * allocations onto one physical allocation of the device (cuMemCreate,
 * cuMemMap, cuMemSetAccess), as the memory and exec layers do with mmap
 * and a memfd on the CPU. Sizes and offsets are multiples of the device's
 * granularity (gr__cuda_vmm_granularity), which the callers round to.
 */
#include "cuda_int.h"

#include <string.h>

static CUdeviceptr dptr(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

/* A pinned allocation on GPU 'device', reachable by no other process. */
static CUmemAllocationProp device_prop(int device)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = gr__gpus[device - 1].dev;
    return prop;
}

grError_t gr__cuda_vmm_granularity(const char *call, int device, size_t *out)
{
    CUmemAllocationProp prop = device_prop(device);
    size_t g = 0;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemGetAllocationGranularity", r);
    if (g == 0 || (g & (g - 1)) != 0)
        return gr__fail(grErrorUnknown,
                        "%s: the driver gave a granularity of %zu bytes on device %d, not a power of two",
                        call, g, device);
    *out = g;
    return grSuccess;
}

grError_t gr__cuda_vmm_reserve(const char *call, int device, size_t size, size_t align, void **out)
{
    CUdeviceptr p = 0;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemAddressReserve(&p, size, align, 0, 0);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemAddressReserve", r);
    *out = (void *)(uintptr_t)p;
    return grSuccess;
}

void gr__cuda_vmm_unreserve(int device, void *p, size_t size)
{
    /* Nothing to report to: the range is lost to the process at worst. */
    if (gr__cuda_enter(device) == CUDA_SUCCESS)
        (void)gr_cu.cuMemAddressFree(dptr(p), size);
}

grError_t gr__cuda_vmm_create(const char *call, int device, size_t size, uint64_t *out)
{
    CUmemAllocationProp prop = device_prop(device);
    CUmemGenericAllocationHandle h = 0;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemCreate(&h, size, &prop, 0);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemCreate", r);
    *out = h;
    return grSuccess;
}

void gr__cuda_vmm_release(int device, uint64_t handle)
{
    if (gr__cuda_enter(device) == CUDA_SUCCESS)
        (void)gr_cu.cuMemRelease(handle);
}

grError_t gr__cuda_vmm_map(const char *call, int device, void *p, size_t size, uint64_t handle, size_t offset)
{
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = gr__gpus[device - 1].dev;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CUresult r = gr__cuda_enter(device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", r);
    if ((r = gr_cu.cuMemMap(dptr(p), size, offset, handle, 0)) != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemMap", r);
    if ((r = gr_cu.cuMemSetAccess(dptr(p), size, &access, 1)) != CUDA_SUCCESS) {
        (void)gr_cu.cuMemUnmap(dptr(p), size);
        return gr__cu_fail(call, device, "cuMemSetAccess", r);
    }
    return grSuccess;
}

grError_t gr__cuda_vmm_quiesce(const char *call, int device)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuCtxSynchronize();
    return r ? gr__cu_fail(call, device, "cuCtxSynchronize", r) : grSuccess;
}

void gr__cuda_vmm_unmap(int device, void *p, size_t size)
{
    if (gr__cuda_enter(device) == CUDA_SUCCESS)
        (void)gr_cu.cuMemUnmap(dptr(p), size);
}
