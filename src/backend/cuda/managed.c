/*
 * managed.c - GPU managed memory and the settings of a GPU's primary
 * context: cuMemAllocManaged, the hints (cuMemAdvise and
 * cuMemPrefetchAsync in CUDA 12.2's form with a CUmemLocation, optional:
 * a driver without them refuses with grErrorCallRequiresNewerDriver),
 * cuMemRangeGetAttribute, cuStreamAttachMemAsync, the context's limits
 * (cuCtxSetLimit / cuCtxGetLimit) and flags (cuDevicePrimaryCtxSetFlags /
 * cuDevicePrimaryCtxGetState), and host memory registered with the driver
 * (cuMemHostRegister, cuMemHostGetDevicePointer).
 *
 * Invariant: graphrt's numbers for devices are CUDA's ordinals plus one;
 * every location and device id crossing this file is turned over here
 * (loc_of going down, id_of coming back), never above. grLimit, the
 * device flags, grMemAttach* and grHostRegister* have the driver's values,
 * so those pass unchanged.
 */
#include "cuda_int.h"

#include <string.h>

_Static_assert(grMemAttachGlobal == CU_MEM_ATTACH_GLOBAL && grMemAttachHost == CU_MEM_ATTACH_HOST &&
                   grMemAttachSingle == CU_MEM_ATTACH_SINGLE,
               "grMemAttach* are the driver's flags");
_Static_assert(grHostRegisterPortable == CU_MEMHOSTREGISTER_PORTABLE &&
                   grHostRegisterMapped == CU_MEMHOSTREGISTER_DEVICEMAP &&
                   grHostRegisterIoMemory == CU_MEMHOSTREGISTER_IOMEMORY &&
                   grHostRegisterReadOnly == CU_MEMHOSTREGISTER_READ_ONLY,
               "grHostRegister* are the driver's flags");
_Static_assert((int)grLimitStackSize == CU_LIMIT_STACK_SIZE &&
                   (int)grLimitPrintfFifoSize == CU_LIMIT_PRINTF_FIFO_SIZE &&
                   (int)grLimitMallocHeapSize == CU_LIMIT_MALLOC_HEAP_SIZE &&
                   (int)grLimitDevRuntimeSyncDepth == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH &&
                   (int)grLimitDevRuntimePendingLaunchCount == CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT &&
                   (int)grLimitMaxL2FetchGranularity == CU_LIMIT_MAX_L2_FETCH_GRANULARITY &&
                   (int)grLimitPersistingL2CacheSize == CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
               "grLimit is CUlimit");
_Static_assert(grDeviceScheduleSpin == CU_CTX_SCHED_SPIN && grDeviceScheduleYield == CU_CTX_SCHED_YIELD &&
                   grDeviceScheduleBlockingSync == CU_CTX_SCHED_BLOCKING_SYNC &&
                   grDeviceScheduleMask == CU_CTX_SCHED_MASK && grDeviceMapHost == CU_CTX_MAP_HOST &&
                   grDeviceLmemResizeToMax == CU_CTX_LMEM_RESIZE_TO_MAX &&
                   grDeviceSyncMemops == CU_CTX_SYNC_MEMOPS,
               "the device flags are the primary context's");
_Static_assert((int)grMemLocationTypeHost == CU_MEM_LOCATION_TYPE_HOST &&
                   (int)grMemLocationTypeDevice == CU_MEM_LOCATION_TYPE_DEVICE &&
                   (int)grMemLocationTypeHostNuma == CU_MEM_LOCATION_TYPE_HOST_NUMA &&
                   (int)grMemLocationTypeHostNumaCurrent == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
               "a location type the driver answers is graphrt's");

/* graphrt's location as the driver's: {Device, 0} (the CPU device) is
 * the host. The advice that ignores its location (read-mostly, and the
 * unsets) comes unchecked: a device that does not exist is passed as the
 * host, which the driver ignores as well. */
static CUmemLocation loc_of(grMemLocation loc)
{
    CUmemLocation cu;
    memset(&cu, 0, sizeof cu);
    switch ((int)loc.type) {
    case grMemLocationTypeDevice: {
        bool gpu = loc.id > 0 && loc.id <= gr__cuda_count();
        cu.type = gpu ? CU_MEM_LOCATION_TYPE_DEVICE : CU_MEM_LOCATION_TYPE_HOST;
        cu.id = gpu ? (int)gr__gpus[loc.id - 1].dev : 0;
        break;
    }
    case grMemLocationTypeHostNuma:
        cu.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
        cu.id = loc.id;
        break;
    case grMemLocationTypeHostNumaCurrent:
        cu.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
        break;
    default:
        cu.type = CU_MEM_LOCATION_TYPE_HOST;
        break;
    }
    return cu;
}

/* A device id of the driver's answer as graphrt's. */
static int id_of(int cu)
{
    if (cu == GR_CU_DEVICE_CPU)
        return grCpuDeviceId;
    for (int d = 1; d <= gr__cuda_count(); d++)
        if (gr__gpus[d - 1].dev == cu)
            return d;
    return grInvalidDeviceId;
}

grError_t gr__cuda_managed_alloc(const char *call, int device, size_t size, unsigned flags, void **out)
{
    CUdeviceptr d = 0;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemAllocManaged(&d, size, flags);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemAllocManaged", r);
    *out = (void *)(uintptr_t)d;
    return grSuccess;
}

static grError_t newer_driver(const char *call, const char *what)
{
    return gr__fail(grErrorCallRequiresNewerDriver,
                    "%s: the NVIDIA driver (version %d) lacks %s with a CUmemLocation (%s_v2), which needs "
                    "a driver of CUDA 12.2 or later",
                    call, gr__cuda_driver_version(), what, what);
}

grError_t gr__cuda_mem_advise(const char *call, int device, const void *p, size_t count, int advice,
                              grMemLocation loc)
{
    if (!gr_cu.cuMemAdvise)
        return newer_driver(call, "cuMemAdvise");
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemAdvise(gr__cu_ptr(p), count, advice, loc_of(loc));
    return r ? gr__cu_fail(call, device, "cuMemAdvise", r) : grSuccess;
}

grError_t gr__cuda_mem_prefetch(const char *call, gr_stream *s, const void *p, size_t count,
                                grMemLocation loc)
{
    if (!gr_cu.cuMemPrefetchAsync)
        return newer_driver(call, "cuMemPrefetchAsync");
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemPrefetchAsync(gr__cu_ptr(p), count, loc_of(loc), 0, gr__cuda_stream(s)->cu);
    return r ? gr__cu_fail(call, s->device, "cuMemPrefetchAsync", r) : grSuccess;
}

grError_t gr__cuda_range_attribute(const char *call, int device, const void *p, size_t count, int attr,
                                   void *data, size_t size)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemRangeGetAttribute(data, size, attr, gr__cu_ptr(p), count);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemRangeGetAttribute", r);
    int *v = data;
    switch (attr) {
    case grMemRangeAttributePreferredLocation:
    case grMemRangeAttributeLastPrefetchLocation:
        *v = id_of(*v);
        break;
    case grMemRangeAttributeAccessedBy:
        for (size_t i = 0; i < size / sizeof(int); i++)
            v[i] = id_of(v[i]);
        break;
    case grMemRangeAttributePreferredLocationId:
    case grMemRangeAttributeLastPrefetchLocationId: {
        /* A device location's id is an ordinal; the type tells which. */
        int type = 0;
        int tattr = attr == grMemRangeAttributePreferredLocationId
                        ? grMemRangeAttributePreferredLocationType
                        : grMemRangeAttributeLastPrefetchLocationType;
        r = gr_cu.cuMemRangeGetAttribute(&type, sizeof type, tattr, gr__cu_ptr(p), count);
        if (r != CUDA_SUCCESS)
            return gr__cu_fail(call, device, "cuMemRangeGetAttribute", r);
        if (type == CU_MEM_LOCATION_TYPE_DEVICE)
            *v = id_of(*v);
        break;
    }
    default:
        /* Read-mostly and the location types: the driver's values are
         * graphrt's. */
        break;
    }
    return grSuccess;
}

grError_t gr__cuda_stream_attach(const char *call, gr_stream *s, void *p, size_t length, unsigned flags)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamAttachMemAsync(gr__cuda_stream(s)->cu, gr__cu_ptr(p), length, flags);
    return r ? gr__cu_fail(call, s->device, "cuStreamAttachMemAsync", r) : grSuccess;
}

grError_t gr__cuda_limit(const char *call, int device, int limit, size_t *value, bool set)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = set ? gr_cu.cuCtxSetLimit(limit, *value) : gr_cu.cuCtxGetLimit(value, limit);
    return r ? gr__cu_fail(call, device, set ? "cuCtxSetLimit" : "cuCtxGetLimit", r) : grSuccess;
}

grError_t gr__cuda_device_flags(const char *call, int device, unsigned *flags, bool set)
{
    /* The primary context's flags apply when it is (re)created and, since
     * CUDA 11.0, to an active one too; no context need be current. */
    CUdevice dev = gr__gpus[device - 1].dev;
    int active = 0;
    CUresult r = set ? gr_cu.cuDevicePrimaryCtxSetFlags(dev, *flags)
                     : gr_cu.cuDevicePrimaryCtxGetState(dev, flags, &active);
    return r ? gr__cu_fail(call, device, set ? "cuDevicePrimaryCtxSetFlags" : "cuDevicePrimaryCtxGetState", r)
             : grSuccess;
}

grError_t gr__cuda_host_register(const char *call, void *p, size_t size, unsigned flags)
{
    /* As pinned memory (memory.c), the range belongs to the first GPU's
     * context and is portable and mapped for every GPU: with unified
     * addressing CUDA maps registered memory whatever the flags. */
    CUresult r = gr__cuda_enter(1);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemHostRegister(p, size,
                                    flags | CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
    return r ? gr__cu_fail(call, 1, "cuMemHostRegister", r) : grSuccess;
}

grError_t gr__cuda_host_unregister(const char *call, void *p)
{
    CUresult r = gr__cuda_enter(1);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemHostUnregister(p);
    return r ? gr__cu_fail(call, 1, "cuMemHostUnregister", r) : grSuccess;
}

grError_t gr__cuda_host_device_pointer(const char *call, int device, void *p, void **out)
{
    CUdeviceptr d = 0;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemHostGetDevicePointer(&d, p, 0);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemHostGetDevicePointer", r);
    *out = (void *)(uintptr_t)d;
    return grSuccess;
}
