/*
 * device.c - the device API: device 0 is the CPU (its "multiprocessors"
 * are the worker threads), devices 1..N the NVIDIA GPUs the driver
 * reports (backend/cuda). Above every area: a reset takes down, in order,
 * the backend (after its work), the pools and the allocations.
 */
#include "api.h"
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/memory.h"
#include "../memory/pool.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Refuses a device number that names no device, saying what exists. */
static grError_t check_device(const char *call, int device)
{
    if (gr__device_exists(device))
        return grSuccess;
    int gpus = gr__gpu_count();
    if (gpus == 0)
        return gr__fail(grErrorInvalidDevice,
                        "%s: device %d does not exist; graphrt has one device, 0 (the CPU): %s", call, device,
                        gr__gpu_absence());
    return gr__fail(grErrorInvalidDevice,
                    "%s: device %d does not exist; the devices are 0 (the CPU) and 1..%d (the GPUs, CUDA "
                    "devices 0..%d)",
                    call, device, gpus, gpus - 1);
}

GR_API grError_t grGetDeviceCount(int *count)
{
    if (!count)
        return gr__fail(grErrorInvalidValue, "grGetDeviceCount: 'count' (the output pointer) is NULL");
    *count = 1 + gr__gpu_count();
    return grSuccess;
}

GR_API grError_t grSetDevice(int device)
{
    grError_t err = check_device("grSetDevice", device);
    if (err)
        return err;
    gr__device_select(device);
    return grSuccess;
}

GR_API grError_t grGetDevice(int *device)
{
    if (!device)
        return gr__fail(grErrorInvalidValue, "grGetDevice: 'device' (the output pointer) is NULL");
    *device = gr__device_current();
    return grSuccess;
}

GR_API grError_t grDeviceSynchronize(void)
{
    grError_t e;
    int device = gr__device_current();
    if (device == 0 && (e = gr__device_start_dev("grDeviceSynchronize", 0)) != grSuccess)
        return e;
    if ((e = gr__capture_check_unsafe("grDeviceSynchronize", GR_UNSAFE_DEVICE_SYNC, NULL, NULL)))
        return e;
    uint64_t t0 = gr__tracing() ? gr__trace_clock() : 0;
    e = gr__device_sync_dev("grDeviceSynchronize", device);
    if (GR_UNLIKELY(t0))
        gr__trace_emit(GR_TR_SYNC, "grDeviceSynchronize", t0, gr__trace_clock(), 0, 0, 0, 0);
    gr__pool_on_sync();
    return e;
}

GR_API grError_t grDeviceReset(void)
{
    int device = gr__device_current();
    gr__device_reset_dev("grDeviceReset", device);
    gr__api_peer_reset(device);
    if (device != 0) {
        gr__mem_reset_device(device);
        return grSuccess;
    }
    gr__pool_reset_all();
    gr__hostreg_reset();
    gr__mem_reset();
    gr__api_limits_reset();
    gr__big_release_cache();
    return grSuccess;
}

/* The CPU's model name from /proc/cpuinfo, or "CPU". */
static void cpu_name(char *out, size_t n)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(out, n, "CPU");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, n, "%s", colon);
        break;
    }
    fclose(f);
}

static size_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t total;
    if (pages <= 0 || page <= 0 || gr__mul_overflow((size_t)pages, (size_t)page, &total))
        return 0;
    return total;
}

/* The CPU device's value of attr; false if attr is not a grDeviceAttr. */
static bool cpu_attribute(grDeviceAttr attr, int *value)
{
    switch (attr) {
    case grDevAttrMaxThreadsPerBlock:
    case grDevAttrMaxBlockDimX:
    case grDevAttrMaxBlockDimY:
    case grDevAttrMaxThreadsPerMultiProcessor:
        *value = 1024;
        return true;
    case grDevAttrMaxBlockDimZ:
        *value = 64;
        return true;
    case grDevAttrMaxGridDimX:
        *value = 0x7fffffff;
        return true;
    case grDevAttrMaxGridDimY:
    case grDevAttrMaxGridDimZ:
        *value = 65535;
        return true;
    case grDevAttrMaxSharedMemoryPerBlock:
        *value = (int)GR_MAX_SHARED_MEM;
        return true;
    case grDevAttrMaxSharedMemoryPerBlockOptin:
        *value = (int)GR_MAX_SHARED_MEM_OPTIN;
        return true;
    case grDevAttrWarpSize:
        *value = 1;
        return true;
    case grDevAttrMultiProcessorCount:
        /* The caller has started the CPU device: this cannot fail. */
        (void)gr__device_processors("grDeviceGetAttribute", 0, value);
        return true;
    case grDevAttrConcurrentKernels:
    case grDevAttrMemoryPoolsSupported:
    case grDevAttrCooperativeLaunch:
        *value = 1;
        return true;
    case grDevAttrComputeCapabilityMajor:
    case grDevAttrComputeCapabilityMinor:
        *value = 0;
        return true;
    }
    return false;
}

GR_API grError_t grGetDeviceProperties(grDeviceProp *prop, int device)
{
    grError_t err;
    if (!prop)
        return gr__fail(grErrorInvalidValue, "grGetDeviceProperties: 'prop' (the output pointer) is NULL");
    if ((err = check_device("grGetDeviceProperties", device)))
        return err;
    if (device != 0)
        return gr__devkind()->properties("grGetDeviceProperties", device, prop);
    grError_t started = gr__device_start_dev("grGetDeviceProperties", 0);
    if (started != grSuccess)
        return started;
    memset(prop, 0, sizeof *prop);
    cpu_name(prop->name, sizeof prop->name);
    prop->totalGlobalMem = physical_memory();
    prop->sharedMemPerBlock = GR_MAX_SHARED_MEM;
    prop->sharedMemPerBlockOptin = GR_MAX_SHARED_MEM_OPTIN;
    cpu_attribute(grDevAttrMultiProcessorCount, &prop->multiProcessorCount);
    cpu_attribute(grDevAttrWarpSize, &prop->warpSize);
    cpu_attribute(grDevAttrMaxThreadsPerBlock, &prop->maxThreadsPerBlock);
    cpu_attribute(grDevAttrMaxBlockDimX, &prop->maxThreadsDim[0]);
    cpu_attribute(grDevAttrMaxBlockDimY, &prop->maxThreadsDim[1]);
    cpu_attribute(grDevAttrMaxBlockDimZ, &prop->maxThreadsDim[2]);
    cpu_attribute(grDevAttrMaxGridDimX, &prop->maxGridSize[0]);
    cpu_attribute(grDevAttrMaxGridDimY, &prop->maxGridSize[1]);
    cpu_attribute(grDevAttrMaxGridDimZ, &prop->maxGridSize[2]);
    cpu_attribute(grDevAttrMaxThreadsPerMultiProcessor, &prop->maxThreadsPerMultiProcessor);
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    prop->l2CacheSize = l2 > 0 && l2 < 0x7fffffff ? (int)l2 : 0;
    prop->concurrentKernels = 1;
    prop->unifiedAddressing = 1;
    prop->memoryPoolsSupported = 1;
    prop->isCpu = 1;
    return grSuccess;
}

GR_API grError_t grDeviceGetAttribute(int *value, grDeviceAttr attr, int device)
{
    grError_t err;
    if (!value)
        return gr__fail(grErrorInvalidValue, "grDeviceGetAttribute: 'value' (the output pointer) is NULL");
    if ((err = check_device("grDeviceGetAttribute", device)))
        return err;
    if (device != 0)
        return gr__devkind()->attribute("grDeviceGetAttribute", device, attr, value);
    grError_t started = gr__device_start_dev("grDeviceGetAttribute", 0);
    if (started != grSuccess)
        return started;
    if (cpu_attribute(attr, value))
        return grSuccess;
    return gr__fail(grErrorInvalidValue, "grDeviceGetAttribute: attribute %d is not a grDeviceAttr",
                    (int)attr);
}
