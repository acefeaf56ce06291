/*
 * device.c - the device API: device 0 is the CPU, its "multiprocessors"
 * are the worker threads. Above every area: a reset takes down, in order,
 * the backend (after its work), the pools and the allocations.
 */
#include "../capture/capture.h"
#include "../memory/memory.h"
#include "../memory/pool.h"

static _Thread_local int tls_device;

GR_API grError_t grGetDeviceCount(int *count)
{
    if (!count)
        return gr__fail(grErrorInvalidValue, "grGetDeviceCount: 'count' (the output pointer) is NULL");
    *count = 1;
    return grSuccess;
}

GR_API grError_t grSetDevice(int device)
{
    if (device != 0)
        return gr__fail(grErrorInvalidDevice,
                        "grSetDevice: device %d does not exist; graphrt has one device, 0 (the CPU)", device);
    tls_device = device;
    return grSuccess;
}

GR_API grError_t grGetDevice(int *device)
{
    if (!device)
        return gr__fail(grErrorInvalidValue, "grGetDevice: 'device' (the output pointer) is NULL");
    *device = tls_device;
    return grSuccess;
}

GR_API grError_t grDeviceSynchronize(void)
{
    grError_t e;
    if (!gr__device_start())
        return gr__fail(grErrorInitializationError,
                        "grDeviceSynchronize: the graphrt runtime could not start");
    if ((e = gr__capture_check_unsafe("grDeviceSynchronize", GR_UNSAFE_DEVICE_SYNC, NULL, NULL)))
        return e;
    uint64_t t0 = gr__tracing() ? gr__trace_clock() : 0;
    gr__device_sync_all();
    if (GR_UNLIKELY(t0))
        gr__trace_emit(GR_TR_SYNC, "grDeviceSynchronize", t0, gr__trace_clock(), 0, 0, 0, 0);
    gr__pool_on_sync();
    return grSuccess;
}

GR_API grError_t grDeviceReset(void)
{
    gr__device_stop();
    gr__pool_reset_all();
    gr__mem_reset();
    gr__big_release_cache();
    return grSuccess;
}

GR_API grError_t grDeviceGetAttribute(int *value, grDeviceAttr attr, int device)
{
    if (!value)
        return gr__fail(grErrorInvalidValue, "grDeviceGetAttribute: 'value' (the output pointer) is NULL");
    if (device != 0)
        return gr__fail(grErrorInvalidDevice, "grDeviceGetAttribute: device %d does not exist; only device 0",
                        device);
    if (!gr__device_start())
        return gr__fail(grErrorInitializationError,
                        "grDeviceGetAttribute: the graphrt runtime could not start");
    switch (attr) {
    case grDevAttrMaxThreadsPerBlock:
        *value = 1024;
        return grSuccess;
    case grDevAttrMaxBlockDimX:
    case grDevAttrMaxBlockDimY:
        *value = 1024;
        return grSuccess;
    case grDevAttrMaxBlockDimZ:
        *value = 64;
        return grSuccess;
    case grDevAttrMaxGridDimX:
        *value = 0x7fffffff;
        return grSuccess;
    case grDevAttrMaxGridDimY:
    case grDevAttrMaxGridDimZ:
        *value = 65535;
        return grSuccess;
    case grDevAttrMaxSharedMemoryPerBlock:
        *value = (int)GR_MAX_SHARED_MEM;
        return grSuccess;
    case grDevAttrWarpSize:
        *value = 1;
        return grSuccess;
    case grDevAttrMultiProcessorCount:
        *value = (int)gr__worker_count();
        return grSuccess;
    case grDevAttrConcurrentKernels:
    case grDevAttrMemoryPoolsSupported:
        *value = 1;
        return grSuccess;
    }
    return gr__fail(grErrorInvalidValue, "grDeviceGetAttribute: attribute %d is not a grDeviceAttr",
                    (int)attr);
}
