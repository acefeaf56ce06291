/*
 * occupancy.c - what a kernel's function reports (its attributes, its
 * parameters' layout) and the occupancy calculator, on the CPU device.
 *
 * The CPU device's occupancy follows from how it runs blocks: a
 * multiprocessor is a worker, which runs one block at a time, so one
 * block of any size a launch accepts is active per multiprocessor; the
 * cooperative limit (coop.c, gr__coop_max_blocks) is that times the
 * workers, and every answer here agrees with it. With a GPU current the
 * checks below are graphrt's, the answers the device's (the device
 * table's func_attributes and occupancy_*: on a GPU the driver's
 * cuFuncGetAttribute and cuOccupancy* for the kernel's function there).
 * A parameter's layout is the kernel's, whatever the device.
 */
#include "../backend/device.h"
#include "graphrt_kernel.h"

#include <string.h>

/* The portable cluster size of CUDA (without
 * cudaFuncAttributeNonPortableClusterSizeAllowed). */
#define GR_CLUSTER_PORTABLE 8

static grError_t check_func(const char *call, grKernel_t func)
{
    if (!gr__kernel_valid(func))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "%s: kernel %p is not a live kernel (NULL, destroyed, or not from grKernelCreate)",
                        call, GR_PTR(func));
    return grSuccess;
}

/* Starts the calling thread's device; *device gets it (0: the CPU,
 * whose answers are this file's; >= 1: the device table's). */
static grError_t current_device(const char *call, int *device)
{
    *device = gr__device_current();
    return gr__device_start_dev(call, *device);
}

/* Whether a block of func with 'threads' threads and 'smem' bytes of
 * dynamic shared memory can run on the CPU device: as a launch, at most
 * func's MaxDynamicSharedMemorySize. */
static bool block_fits(grKernel_t func, uint64_t threads, size_t smem)
{
    return threads >= 1 && threads <= 1024 && smem <= (size_t)gr_load_relaxed(&func->max_dyn_smem);
}

GR_API grError_t grFuncGetAttributes(grFuncAttributes *attr, grKernel_t func)
{
    static const char call[] = "grFuncGetAttributes";
    grError_t err;
    int device;
    if (!attr)
        return gr__fail(grErrorInvalidValue, "%s: 'attr' (the output pointer) is NULL", call);
    if ((err = check_func(call, func)) || (err = current_device(call, &device)))
        return err;
    memset(attr, 0, sizeof *attr);
    if (device != 0)
        return gr__devkind()->func_attributes(call, func, device, attr);
    if (func->kinfo) {
        /* As grKernelBlockRunThreads sizes the fibers' stacks. */
        unsigned want = __atomic_load_n(&func->kinfo->stack_bytes, __ATOMIC_RELAXED);
        size_t size = want ? want : 64u * 1024u;
        size = size < 16u * 1024u ? 16u * 1024u : size;
        attr->localSizeBytes = (size + 4095u) & ~(size_t)4095u;
    }
    attr->maxThreadsPerBlock = 1024;
    attr->maxDynamicSharedSizeBytes = gr_load_relaxed(&func->max_dyn_smem);
    attr->preferredShmemCarveout = gr_load_relaxed(&func->carveout);
    return grSuccess;
}

GR_API grError_t grFuncGetParamInfo(grKernel_t func, size_t paramIndex, size_t *paramOffset,
                                    size_t *paramSize)
{
    static const char call[] = "grFuncGetParamInfo";
    grError_t err;
    if (!paramOffset)
        return gr__fail(grErrorInvalidValue, "%s: 'paramOffset' (the output pointer) is NULL", call);
    if ((err = check_func(call, func)))
        return err;
    if (paramIndex >= (size_t)func->nparams)
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s' has %d parameter(s); paramIndex %zu is past the last", call,
                        func->name, func->nparams, paramIndex);
    *paramOffset = func->offsets[paramIndex];
    if (paramSize)
        *paramSize = func->sizes[paramIndex];
    return grSuccess;
}

static grError_t max_active(const char *call, int *numBlocks, grKernel_t func, int blockSize, size_t smem,
                            unsigned flags)
{
    grError_t err;
    int device;
    if (!numBlocks)
        return gr__fail(grErrorInvalidValue, "%s: 'numBlocks' (the output pointer) is NULL", call);
    if ((err = check_func(call, func)))
        return err;
    if (blockSize <= 0)
        return gr__fail(grErrorInvalidValue, "%s: kernel '%s': blockSize %d is not positive", call,
                        func->name, blockSize);
    if (flags & ~(unsigned)grOccupancyDisableCachingOverride)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x: only grOccupancyDefault and grOccupancyDisableCachingOverride exist",
                        call, flags);
    if ((err = current_device(call, &device)))
        return err;
    if (device != 0)
        return gr__devkind()->occupancy_blocks(call, func, device, blockSize, smem, flags, numBlocks);
    *numBlocks = block_fits(func, (uint64_t)blockSize, smem) ? 1 : 0;
    return grSuccess;
}

GR_API grError_t grOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, grKernel_t func, int blockSize,
                                                             size_t dynamicSMemSize)
{
    return max_active("grOccupancyMaxActiveBlocksPerMultiprocessor", numBlocks, func, blockSize,
                      dynamicSMemSize, 0);
}

GR_API grError_t grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, grKernel_t func,
                                                                      int blockSize, size_t dynamicSMemSize,
                                                                      unsigned int flags)
{
    return max_active("grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", numBlocks, func, blockSize,
                      dynamicSMemSize, flags);
}

GR_API grError_t grOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, grKernel_t func,
                                                         int numBlocks, int blockSize)
{
    static const char call[] = "grOccupancyAvailableDynamicSMemPerBlock";
    grError_t err;
    int device;
    if (!dynamicSmemSize)
        return gr__fail(grErrorInvalidValue, "%s: 'dynamicSmemSize' (the output pointer) is NULL", call);
    if ((err = check_func(call, func)))
        return err;
    if (numBlocks <= 0 || blockSize <= 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s': numBlocks %d and blockSize %d must be positive", call, func->name,
                        numBlocks, blockSize);
    if ((err = current_device(call, &device)))
        return err;
    if (device != 0)
        return gr__devkind()->occupancy_smem(call, func, device, numBlocks, blockSize, dynamicSmemSize);
    /* What a launch of func may take: its MaxDynamicSharedMemorySize. */
    *dynamicSmemSize = numBlocks == 1 && blockSize <= 1024 ? (size_t)gr_load_relaxed(&func->max_dyn_smem) : 0;
    return grSuccess;
}

/* The cluster calls: graphrt's checks, then the device's answer in *out
 * (with 'potential' the largest cluster size, else the most active
 * clusters) where a GPU is current; on the CPU *cluster gets the
 * configuration's cluster size in blocks, *fits whether its blocks can
 * run, and *out is left to the caller. */
static grError_t cluster_config(const char *call, int *out, grKernel_t func, const grLaunchConfig_t *cfg,
                                bool potential, uint64_t *cluster, bool *fits, bool *answered)
{
    grError_t err;
    int device;
    *answered = false;
    if (!out)
        return gr__fail(grErrorInvalidValue, "%s: the output pointer is NULL", call);
    if ((err = check_func(call, func)))
        return err;
    if (!cfg)
        return gr__fail(grErrorInvalidValue, "%s: 'launchConfig' is NULL", call);
    if (cfg->numAttrs && !cfg->attrs)
        return gr__fail(grErrorInvalidValue, "%s: launchConfig->attrs is NULL but numAttrs is %u", call,
                        cfg->numAttrs);
    if (!cfg->blockDim.x || !cfg->blockDim.y || !cfg->blockDim.z)
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s': launchConfig->blockDim (%u, %u, %u) has a zero", call, func->name,
                        cfg->blockDim.x, cfg->blockDim.y, cfg->blockDim.z);
    *cluster = 1;
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        if (cfg->attrs[i].id != grLaunchAttributeClusterDimension)
            continue;
        const grLaunchAttributeValue *v = &cfg->attrs[i].val;
        if (!v->clusterDim.x || !v->clusterDim.y || !v->clusterDim.z)
            return gr__fail(grErrorInvalidValue,
                            "%s: launchConfig->attrs[%u]: cluster dimension (%u, %u, %u) has a zero", call, i,
                            v->clusterDim.x, v->clusterDim.y, v->clusterDim.z);
        *cluster = (uint64_t)v->clusterDim.x * v->clusterDim.y * v->clusterDim.z;
    }
    if ((err = current_device(call, &device)))
        return err;
    if (device != 0) {
        *answered = true;
        return gr__devkind()->occupancy_clusters(call, func, device, cfg, potential, out);
    }
    *fits = block_fits(func, (uint64_t)cfg->blockDim.x * cfg->blockDim.y * cfg->blockDim.z,
                       cfg->dynamicSmemBytes);
    return grSuccess;
}

GR_API grError_t grOccupancyMaxActiveClusters(int *numClusters, grKernel_t func,
                                              const grLaunchConfig_t *launchConfig)
{
    uint64_t cluster;
    bool fits, answered;
    grError_t err = cluster_config("grOccupancyMaxActiveClusters", numClusters, func, launchConfig, false,
                                   &cluster, &fits, &answered);
    if (err || answered)
        return err;
    *numClusters = fits ? (int)(gr__coop_max_blocks() / cluster) : 0;
    return grSuccess;
}

GR_API grError_t grOccupancyMaxPotentialClusterSize(int *clusterSize, grKernel_t func,
                                                    const grLaunchConfig_t *launchConfig)
{
    uint64_t cluster;
    bool fits, answered;
    grError_t err = cluster_config("grOccupancyMaxPotentialClusterSize", clusterSize, func, launchConfig,
                                   true, &cluster, &fits, &answered);
    if (err || answered)
        return err;
    unsigned max = gr__coop_max_blocks();
    *clusterSize = fits ? (int)(max < GR_CLUSTER_PORTABLE ? max : GR_CLUSTER_PORTABLE) : 0;
    return grSuccess;
}
