/*
 * device.c - what the device API asks of a GPU: properties, attributes,
 * a device-wide wait. (Device numbers and the current device are the
 * neutral backend/device.c's.)
 */
#include "cuda_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int attr_of(int device, CUdevice_attribute a)
{
    int v = 0;
    if (gr_cu.cuDeviceGetAttribute(&v, a, gr__gpus[device - 1].dev) != CUDA_SUCCESS)
        return 0;
    return v;
}

grError_t gr__cuda_properties(const char *call, int device, grDeviceProp *prop)
{
    CUdevice dev = gr__gpus[device - 1].dev;
    CUresult r;
    memset(prop, 0, sizeof *prop);
    if ((r = gr_cu.cuDeviceGetName(prop->name, (int)sizeof prop->name, dev)) != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuDeviceGetName", r);
    if ((r = gr_cu.cuDeviceTotalMem(&prop->totalGlobalMem, dev)) != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuDeviceTotalMem", r);
    prop->multiProcessorCount = attr_of(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    prop->major = attr_of(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    prop->minor = attr_of(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    prop->warpSize = attr_of(device, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->maxThreadsPerBlock = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    prop->maxThreadsDim[0] = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    prop->maxThreadsDim[1] = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    prop->maxThreadsDim[2] = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    prop->maxGridSize[0] = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    prop->maxGridSize[1] = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    prop->maxGridSize[2] = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    prop->sharedMemPerBlock = (size_t)attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->sharedMemPerBlockOptin =
        (size_t)attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    prop->clockRate = attr_of(device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    prop->l2CacheSize = attr_of(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    prop->maxThreadsPerMultiProcessor = attr_of(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    prop->concurrentKernels = attr_of(device, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
    prop->unifiedAddressing = attr_of(device, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
    prop->memoryPoolsSupported = attr_of(device, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
    prop->isCpu = 0;
    return grSuccess;
}

grError_t gr__cuda_attribute(const char *call, int device, grDeviceAttr attr, int *value)
{
    static const struct {
        grDeviceAttr gr;
        CUdevice_attribute cu;
    } map[] = {
        {grDevAttrMaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
        {grDevAttrMaxBlockDimX, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X},
        {grDevAttrMaxBlockDimY, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y},
        {grDevAttrMaxBlockDimZ, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z},
        {grDevAttrMaxGridDimX, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X},
        {grDevAttrMaxGridDimY, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y},
        {grDevAttrMaxGridDimZ, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z},
        {grDevAttrMaxSharedMemoryPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
        {grDevAttrWarpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE},
        {grDevAttrMultiProcessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {grDevAttrConcurrentKernels, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS},
        {grDevAttrMemoryPoolsSupported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED},
        {grDevAttrComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        {grDevAttrComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        {grDevAttrMaxThreadsPerMultiProcessor, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {grDevAttrCooperativeLaunch, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH},
        {grDevAttrMaxSharedMemoryPerBlockOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].gr == attr) {
            CUresult r = gr_cu.cuDeviceGetAttribute(value, map[i].cu, gr__gpus[device - 1].dev);
            return r ? gr__cu_fail(call, device, "cuDeviceGetAttribute", r) : grSuccess;
        }
    return gr__fail(grErrorInvalidValue, "%s: attribute %d is not a grDeviceAttr", call, (int)attr);
}

grError_t gr__cuda_device_sync(const char *call, int device)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuCtxSynchronize();
    return r ? gr__cu_fail(call, device, "cuCtxSynchronize", r) : grSuccess;
}
