/*
 * occupancy.c - what the driver says of a kernel's function on a GPU:
 * its attributes (cuFuncGetAttribute, one per field of
 * grFuncAttributes, as cudaFuncGetAttributes gathers them) and the
 * occupancy calculator (cuOccupancyMaxActiveBlocksPerMultiprocessor-
 * WithFlags, cuOccupancyAvailableDynamicSMemPerBlock, and where the
 * driver has them cuOccupancyMaxActiveClusters and
 * cuOccupancyMaxPotentialClusterSize). The function is the kernel's on
 * that device (gr__cuda_kernel_function: its image loaded there on first
 * use), in the device's primary context, made current first because the
 * occupancy calls read the context's device.
 */
#include "cuda_int.h"

#include <string.h>

/* k's function on 'device', with the device's context current. */
static grError_t function_of(const char *call, grKernel_t k, int device, CUfunction *f)
{
    CUresult r = gr__cuda_enter(device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", r);
    return gr__cuda_kernel_function(call, k, device, f);
}

static grError_t kernel_fail(const char *call, grKernel_t k, int device, const char *what, CUresult r)
{
    return gr__fail(gr__cu_error(r), "%s: kernel '%s': %s failed on device %d with %s", call, k->name, what,
                    device, gr__cu_error_name(r));
}

grError_t gr__cuda_func_attributes(const char *call, grKernel_t k, int device, grFuncAttributes *attr)
{
    CUfunction f = NULL;
    grError_t err = function_of(call, k, device, &f);
    if (err)
        return err;
    static const struct {
        int attr;
        bool cluster; /* a cluster attribute (CUDA 11.8) */
    } ask[] = {
        {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, false},
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, false},
        {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, false},
        {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, false},
        {CU_FUNC_ATTRIBUTE_NUM_REGS, false},
        {CU_FUNC_ATTRIBUTE_PTX_VERSION, false},
        {CU_FUNC_ATTRIBUTE_BINARY_VERSION, false},
        {CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, false},
        {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, false},
        {CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, false},
        {CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, true},
        {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, true},
        {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, true},
        {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, true},
        {CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, true},
        {CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, true},
    };
    int v[sizeof ask / sizeof ask[0]];
    for (size_t i = 0; i < sizeof ask / sizeof ask[0]; i++) {
        v[i] = 0;
        CUresult r = gr_cu.cuFuncGetAttribute(&v[i], ask[i].attr, f);
        /* A GPU without clusters may refuse their attributes: none set,
         * 0, as cudaFuncAttributes reads there. */
        if (r == CUDA_ERROR_INVALID_VALUE && ask[i].cluster) {
            v[i] = 0;
            continue;
        }
        if (r != CUDA_SUCCESS)
            return kernel_fail(call, k, device, "cuFuncGetAttribute", r);
    }
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = v[0];
    attr->sharedSizeBytes = (size_t)v[1];
    attr->constSizeBytes = (size_t)v[2];
    attr->localSizeBytes = (size_t)v[3];
    attr->numRegs = v[4];
    attr->ptxVersion = v[5];
    attr->binaryVersion = v[6];
    attr->cacheModeCA = v[7];
    attr->maxDynamicSharedSizeBytes = v[8];
    attr->preferredShmemCarveout = v[9];
    attr->clusterDimMustBeSet = v[10];
    attr->requiredClusterWidth = v[11];
    attr->requiredClusterHeight = v[12];
    attr->requiredClusterDepth = v[13];
    attr->nonPortableClusterSizeAllowed = v[14];
    attr->clusterSchedulingPolicyPreference = v[15];
    return grSuccess;
}

grError_t gr__cuda_occupancy_blocks(const char *call, grKernel_t k, int device, int block_size, size_t smem,
                                    unsigned flags, int *out)
{
    CUfunction f = NULL;
    grError_t err = function_of(call, k, device, &f);
    if (err)
        return err;
    /* graphrt's flags are CUDA's (CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE
     * is 1 too). */
    CUresult r = gr_cu.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(out, f, block_size, smem, flags);
    if (r != CUDA_SUCCESS)
        return kernel_fail(call, k, device, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", r);
    return grSuccess;
}

grError_t gr__cuda_occupancy_smem(const char *call, grKernel_t k, int device, int blocks, int block_size,
                                  size_t *out)
{
    CUfunction f = NULL;
    grError_t err = function_of(call, k, device, &f);
    if (err)
        return err;
    CUresult r = gr_cu.cuOccupancyAvailableDynamicSMemPerBlock(out, f, blocks, block_size);
    if (r != CUDA_SUCCESS)
        return kernel_fail(call, k, device, "cuOccupancyAvailableDynamicSMemPerBlock", r);
    return grSuccess;
}

/* At most this many of a configuration's attributes reach the driver:
 * those that change a cluster's occupancy. */
#define CLUSTER_ATTRS 8

grError_t gr__cuda_occupancy_clusters(const char *call, grKernel_t k, int device, const grLaunchConfig_t *cfg,
                                      bool potential, int *out)
{
    const char *what = potential ? "cuOccupancyMaxPotentialClusterSize" : "cuOccupancyMaxActiveClusters";
    CUresult (*fn)(int *, CUfunction, const CUlaunchConfig *) =
        potential ? gr_cu.cuOccupancyMaxPotentialClusterSize : gr_cu.cuOccupancyMaxActiveClusters;
    if (!fn)
        return gr__fail(grErrorCallRequiresNewerDriver,
                        "%s: the NVIDIA driver (version %d) lacks %s, which needs a driver of CUDA 11.8 or "
                        "later",
                        call, gr__cuda_driver_version(), what);
    CUfunction f = NULL;
    grError_t err = function_of(call, k, device, &f);
    if (err)
        return err;
    /* Only the cluster dimension and the cluster scheduling policy change
     * the answer; their values have CUDA's layout and ids. */
    CUlaunchAttribute attrs[CLUSTER_ATTRS];
    unsigned n = 0;
    for (unsigned i = 0; i < cfg->numAttrs && n < CLUSTER_ATTRS; i++) {
        int id = (int)cfg->attrs[i].id;
        if (id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
            id != CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
            continue;
        memset(&attrs[n], 0, sizeof attrs[n]);
        attrs[n].id = id;
        _Static_assert(sizeof attrs[n].value == sizeof cfg->attrs[i].val, "64-byte attribute values");
        memcpy(&attrs[n].value, &cfg->attrs[i].val, sizeof attrs[n].value);
        n++;
    }
    CUlaunchConfig c = {
        .gridDimX = cfg->gridDim.x,
        .gridDimY = cfg->gridDim.y,
        .gridDimZ = cfg->gridDim.z,
        .blockDimX = cfg->blockDim.x,
        .blockDimY = cfg->blockDim.y,
        .blockDimZ = cfg->blockDim.z,
        .sharedMemBytes = (unsigned)cfg->dynamicSmemBytes,
        .attrs = n ? attrs : NULL,
        .numAttrs = n,
    };
    CUresult r = fn(out, f, &c);
    if (r != CUDA_SUCCESS)
        return kernel_fail(call, k, device, what, r);
    return grSuccess;
}
