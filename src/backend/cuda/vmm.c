/*
 * vmm.c - the driver's virtual memory management for graph memory on a
 * GPU: an allocation node's address range is reserved when the node is
 * added (cuMemAddressReserve), and an executable maps the ranges of its
 * allocations onto one physical allocation of the device (cuMemCreate,
 * cuMemMap, cuMemSetAccess), as the memory and exec layers do with mmap
 * and a memfd on the CPU. Sizes and offsets are multiples of the device's
 * granularity (gr__cuda_vmm_granularity), which the callers round to.
 *
 * The reserved ranges are listed here (gr__cuda_vmm_device): the driver
 * knows nothing of a reserved range until it is mapped, and a copy whose
 * operand the driver does not know is taken for host memory, which the
 * driver then touches from the CPU (a crash, not an error).
 *
 * Invariants: 'ranges' lists every range reserved and not yet freed, and
 * is guarded by its lock; 'ranges.count' is read without it only to skip
 * the search while there is none.
 */
#include "cuda_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct vmm_range {
    uintptr_t base;
    size_t size;
    int device;
} vmm_range;

static struct {
    pthread_mutex_t lock;
    vmm_range *r;
    size_t cap;
    _Atomic size_t count;
} ranges = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Lists a reserved range; false when out of memory. */
static bool ranges_add(uintptr_t base, size_t size, int device)
{
    bool ok = true;
    pthread_mutex_lock(&ranges.lock);
    size_t n = gr_load_relaxed(&ranges.count);
    if (n == ranges.cap) {
        size_t cap = ranges.cap ? 2 * ranges.cap : 16;
        vmm_range *r = realloc(ranges.r, cap * sizeof *r);
        if (r) {
            ranges.r = r;
            ranges.cap = cap;
        } else {
            ok = false;
        }
    }
    if (ok) {
        ranges.r[n] = (vmm_range){base, size, device};
        gr_store_release(&ranges.count, n + 1);
    }
    pthread_mutex_unlock(&ranges.lock);
    return ok;
}

static void ranges_remove(uintptr_t base)
{
    pthread_mutex_lock(&ranges.lock);
    size_t n = gr_load_relaxed(&ranges.count);
    for (size_t i = 0; i < n; i++)
        if (ranges.r[i].base == base) {
            ranges.r[i] = ranges.r[n - 1];
            gr_store_release(&ranges.count, n - 1);
            break;
        }
    pthread_mutex_unlock(&ranges.lock);
}

int gr__cuda_vmm_device(const void *p)
{
    if (gr_load_acquire(&ranges.count) == 0)
        return 0;
    uintptr_t a = (uintptr_t)p;
    int device = 0;
    pthread_mutex_lock(&ranges.lock);
    size_t n = gr_load_relaxed(&ranges.count);
    for (size_t i = 0; i < n && !device; i++)
        if (a - ranges.r[i].base < ranges.r[i].size)
            device = ranges.r[i].device;
    pthread_mutex_unlock(&ranges.lock);
    return device;
}

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
    if (!ranges_add((uintptr_t)p, size, device)) {
        (void)gr_cu.cuMemAddressFree(p, size);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    *out = (void *)(uintptr_t)p;
    return grSuccess;
}

void gr__cuda_vmm_unreserve(int device, void *p, size_t size)
{
    ranges_remove((uintptr_t)p);
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
