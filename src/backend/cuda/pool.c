/*
 * pool.c - graphrt's memory pools on a GPU: a pool whose location is a
 * GPU is one of the driver's stream-ordered pools (cuMemPoolCreate), the
 * device's default pool is the driver's (cuDeviceGetDefaultMemPool), and
 * allocation, trimming and attributes are the driver's calls. The memory
 * layer keeps the pool objects and checks the arguments (memory/pool.c).
 */
#include "cuda_int.h"

#include <string.h>

static CUmemoryPool cu_pool(void *pool)
{
    return (CUmemoryPool)pool;
}

grError_t gr__cuda_pool_create(const char *call, int device, size_t max_size, void **out)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = gr__gpus[device - 1].dev;
    props.maxSize = max_size;
    CUmemoryPool p = NULL;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemPoolCreate(&p, &props);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemPoolCreate", r);
    *out = p;
    return grSuccess;
}

void gr__cuda_pool_destroy(int device, void *pool)
{
    /* The driver releases what is still allocated once it is freed;
     * nothing to report to. */
    if (gr__cuda_enter(device) == CUDA_SUCCESS)
        (void)gr_cu.cuMemPoolDestroy(cu_pool(pool));
}

grError_t gr__cuda_pool_default(const char *call, int device, void **out)
{
    CUmemoryPool p = NULL;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuDeviceGetDefaultMemPool(&p, gr__gpus[device - 1].dev);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuDeviceGetDefaultMemPool", r);
    *out = p;
    return grSuccess;
}

grError_t gr__cuda_pool_set_current(const char *call, int device, void *pool)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuDeviceSetMemPool(gr__gpus[device - 1].dev, cu_pool(pool));
    return r ? gr__cu_fail(call, device, "cuDeviceSetMemPool", r) : grSuccess;
}

grError_t gr__cuda_pool_alloc(const char *call, gr_stream *s, void *pool, size_t size, void **out)
{
    CUdeviceptr d = 0;
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemAllocFromPoolAsync(&d, size, cu_pool(pool), gr__cuda_stream(s)->cu);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, s->device, "cuMemAllocFromPoolAsync", r);
    *out = (void *)(uintptr_t)d;
    return grSuccess;
}

grError_t gr__cuda_pool_trim(const char *call, int device, void *pool, size_t keep)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemPoolTrimTo(cu_pool(pool), keep);
    return r ? gr__cu_fail(call, device, "cuMemPoolTrimTo", r) : grSuccess;
}

grError_t gr__cuda_pool_attribute(const char *call, int device, void *pool, int attr, void *value, bool set)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = set ? gr_cu.cuMemPoolSetAttribute(cu_pool(pool), attr, value)
                : gr_cu.cuMemPoolGetAttribute(cu_pool(pool), attr, value);
    return r ? gr__cu_fail(call, device, set ? "cuMemPoolSetAttribute" : "cuMemPoolGetAttribute", r)
             : grSuccess;
}

grError_t gr__cuda_pool_set_access(const char *call, int device, void *pool, const int *gpus,
                                   const int *flags, size_t n)
{
    CUmemAccessDesc map[GR_MAX_GPUS];
    if (GR_NEVER(n > GR_MAX_GPUS))
        return gr__fail(grErrorInvalidValue, "%s: more descriptors than GPUs", call);
    for (size_t i = 0; i < n; i++) {
        map[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        map[i].location.id = gr__gpus[gpus[i] - 1].dev;
        map[i].flags = (CUmemAccess_flags)flags[i];
    }
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemPoolSetAccess(cu_pool(pool), map, n);
    return r ? gr__cu_fail(call, device, "cuMemPoolSetAccess", r) : grSuccess;
}

grError_t gr__cuda_pool_get_access(const char *call, int device, void *pool, int gpu, int *flags)
{
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, gr__gpus[gpu - 1].dev};
    CUmemAccess_flags f = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemPoolGetAccess(&f, cu_pool(pool), &loc);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemPoolGetAccess", r);
    *flags = (int)f;
    return grSuccess;
}
