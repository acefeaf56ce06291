/*
 * graphrt/kernel.h - kernels, graphrt's form of __global__ functions, and their
 * launch: CUDA's "Execution Control".
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_KERNEL_H
#define GRAPHRT_MODULE_KERNEL_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Kernels (graphrt's form of __global__ functions)                        */
/* ====================================================================== */

/* What a kernel sees for the block it is called for. */
typedef struct grKernelCtx {
    grDim3 gridDim, blockDim, blockIdx;
    void *sharedMem; /* sharedMemBytes of per-block scratch (16-aligned) */
    unsigned worker; /* 1..workers: the worker thread running it; 0: an
                       * application thread running it while it waits */
    /* The executable whose launch runs the kernel: the top-level one for a
     * kernel of a child graph or of a conditional node's body; NULL for a
     * kernel launched on a stream (grLaunchKernel ...). graphrt's own:
     * CUDA's cudaGetCurrentGraphExec (graphrt_kernel.h's
     * gr_get_current_graph_exec()) names device graphs only, so it
     * answers NULL for every graph graphrt launches. */
    grGraphExec_t exec;
} grKernelCtx;

/* A kernel is called once per thread block. args[i] points to the value of
 * parameter i, as CUDA's kernelParams. */
typedef void (*grKernelFn)(const grKernelCtx *ctx, void **args);

/* Loops over the threads of the block: for every (tx, ty, tz) in blockDim. */
#define GR_FOR_THREADS(ctx, tx, ty, tz)                     \
    for (unsigned tz = 0; tz < (ctx)->blockDim.z; ++tz)     \
        for (unsigned ty = 0; ty < (ctx)->blockDim.y; ++ty) \
            for (unsigned tx = 0; tx < (ctx)->blockDim.x; ++tx)

/* Global x/y/z index of thread (tx, ty, tz) of the current block. */
#define GR_GLOBAL_X(ctx, tx) ((size_t)(ctx)->blockIdx.x * (ctx)->blockDim.x + (tx))
#define GR_GLOBAL_Y(ctx, ty) ((size_t)(ctx)->blockIdx.y * (ctx)->blockDim.y + (ty))
#define GR_GLOBAL_Z(ctx, tz) ((size_t)(ctx)->blockIdx.z * (ctx)->blockDim.z + (tz))

/* graphrt's own. Registers a kernel: fn is called once per block; 'name'
 * (copied; non-empty, unique among live kernels) identifies it in
 * diagnostics, DOT output and graph files; numParams (0..64) and
 * paramSizes[i] (1..4096 bytes each) say how many argument values a launch
 * copies and how large each is. Errors: grErrorInvalidValue (kernel, fn or
 * name NULL, name empty, numParams outside 0..64, paramSizes NULL with
 * numParams > 0, a size outside 1..4096, a live kernel of that name
 * exists), grErrorMemoryAllocation. Thread safety: any thread; the name is
 * looked up and registered in two steps, so two calls registering the same
 * name at the same moment may both succeed. */
GR_API grError_t grKernelCreate(grKernel_t *kernel, grKernelFn fn, const char *name, int numParams,
                                const size_t *paramSizes);

/* graphrt's own. Destroys a kernel; its name is free again at once.
 * Launches already queued and the graphs and executables that use it keep
 * it alive until they are done with it. Errors:
 * grErrorInvalidDeviceFunction (kernel NULL or not live).
 * Thread safety: any thread. */
GR_API grError_t grKernelDestroy(grKernel_t kernel);

/* The name a kernel was created with (*name points into the kernel and
 * stays valid while it lives, graphs and executables that use it
 * included). A stand-in kernel of a loaded graph file has the saved name.
 * Errors: grErrorInvalidValue (name NULL), grErrorInvalidDeviceFunction
 * (func NULL or not live). Thread safety: any thread. Mirrors
 * cudaFuncGetName (a grKernel_t in place of the function pointer). */
GR_API grError_t grFuncGetName(const char **name, grKernel_t func);

/* The number of parameters a kernel was created with (CUDA 13.1). Errors:
 * grErrorInvalidValue (paramCount NULL), grErrorInvalidDeviceFunction
 * (func NULL or not live). Thread safety: any thread. Mirrors
 * cudaFuncGetParamCount (a grKernel_t in place of the function pointer). */
GR_API grError_t grFuncGetParamCount(grKernel_t func, size_t *paramCount);

/* Function attributes (grFuncSetAttribute): CUDA's cudaFuncAttribute
 * values, and graphrt's own for the CPU. */
typedef enum grFuncAttribute {
    grFuncAttributeMaxDynamicSharedMemorySize = 8,
    grFuncAttributePreferredSharedMemoryCarveout = 9,
    /* graphrt's own: the bytes of stack each thread of a GR_KERNEL_SYNC
     * kernel's blocks gets on the CPU (its fiber's stack), from 16 KiB
     * (smaller values are raised to it) to 64 MiB, rounded up to pages;
     * 0 restores the default, 64 KiB. Other kernels ignore it. */
    grFuncAttributeCpuStackSize = 0x10000
} grFuncAttribute;

/* Sets an attribute of a kernel's function. On the CPU only
 * grFuncAttributeCpuStackSize changes anything, for every kernel created
 * from the same GR_KERNEL_SYNC function (CUDA's attributes belong to the
 * function too); MaxDynamicSharedMemorySize, from 0 to the CPU device's
 * sharedMemPerBlockOptin (232448 bytes), is the most dynamic shared
 * memory a launch or kernel node of the kernel may take on every device
 * (48 KiB until set, as in CUDA), and PreferredSharedMemoryCarveout, from
 * -1 to 100, a hint. On GPUs those
 * two are given to the kernel's function (cuFuncSetAttribute) on every
 * GPU where its image is loaded, and at each later load, so that
 * grFuncGetAttributes there reads them back. Errors:
 * grErrorInvalidDeviceFunction (func NULL or not live),
 * grErrorInvalidValue (an unknown attribute, a value out of range), on a
 * GPU the driver's refusal (CUDA's error; the value is kept for the
 * CPU). Thread safety: any thread; launches already running keep the old
 * value. Mirrors cudaFuncSetAttribute (a grKernel_t in place of the
 * function pointer). */
GR_API grError_t grFuncSetAttribute(grKernel_t func, grFuncAttribute attr, int value);

/* graphrt's own. Attaches a GPU image to a kernel, so that it also runs on
 * GPU devices: 'image' is a CUDA module image (PTX text, cubin or fatbin,
 * as cuModuleLoadData takes; graphrt keeps the pointer, so the image must
 * outlive the kernel: an embedded array does), 'entry' (copied) the name
 * of its extern "C" __global__ function, whose parameters are the kernel's
 * in order. The image is loaded on each GPU at the kernel's first launch
 * there, and a failure to load it is that launch's error. A kernel without
 * an image launched on a GPU stream fails with
 * grErrorInvalidDeviceFunction, the detail naming the kernel. The
 * single-source way to get both functions is graphrt_kernel.h's GR_KERNEL
 * with CMake's graphrt_add_cuda_kernels (docs/devices.md). Works without
 * a GPU too (the image is then never loaded). Errors:
 * grErrorInvalidDeviceFunction (kernel not live), grErrorInvalidValue
 * (image NULL, entry NULL or empty, an image attached already),
 * grErrorMemoryAllocation. Thread safety: any thread; attach before
 * launching on a GPU. Mirrors cuModuleLoadData + cuModuleGetFunction. */
GR_API grError_t grKernelSetImage(grKernel_t kernel, const void *image, const char *entry);

/* Queues a launch of 'kernel' over grid x block on the stream. args has one
 * pointer per parameter, to its value; the values are copied before the
 * call returns, so args and what it points to may change right after. On a
 * capturing stream it adds a kernel node instead. Errors:
 * grErrorInvalidDeviceFunction (NULL or destroyed kernel),
 * grErrorInvalidConfiguration (a zero or too large grid or block
 * dimension: block x,y <= 1024, z <= 64, x*y*z <= 1024; grid x < 2^31,
 * y,z <= 65535), grErrorInvalidValue (args NULL with parameters; an element
 * that is NULL, points into device or pool memory, or does not point to
 * readable memory: the value of a parameter passed where its address
 * belongs; sharedMem above the kernel's MaxDynamicSharedMemorySize, 48 KiB
 * unless grFuncSetAttribute raised it), grErrorMemoryAllocation; plus the
 * capture errors of work and the stream errors. On a GPU stream the kernel's GPU
 * image runs (grKernelSetImage): grErrorInvalidDeviceFunction without one,
 * the detail naming the kernel; a CUDA error of loading or launching it
 * mapped to graphrt's, CUDA's name in the detail.
 * Thread safety: any thread. Mirrors cudaLaunchKernel
 * with a grKernel_t in place of the function pointer. */
GR_API grError_t grLaunchKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                size_t sharedMem, grStream_t stream);

/* grLaunchKernel with a configuration (grid, block, dynamic shared
 * memory, stream) and launch attributes: config->attrs[0..numAttrs) are
 * checked first (an ID not valid for launches, a value out of range;
 * a later entry of an ID overrides an earlier one). On a capturing
 * stream the kernel node gets the attributes valid for kernel nodes,
 * after the stream's priority when that is not 0 (as CUDA records it);
 * otherwise the kernel runs as grLaunchKernel runs it, but that a
 * nonzero Cooperative makes it the launch of grLaunchCooperativeKernel
 * (on a GPU too, grErrorCooperativeLaunchTooLarge included); the other
 * attributes change nothing on the CPU; ProgrammaticEvent and
 * LaunchCompletionEvent record their event on the stream right after the
 * kernel (on a GPU they may trigger earlier: recording at completion is
 * the latest valid moment); on a GPU stream the other attributes (but
 * the device-updatable node's) are given to the driver, whose
 * cuLaunchKernelEx runs the launch and checks them
 * (docs/launch-attributes.md). Errors:
 * grErrorCooperativeLaunchTooLarge (as grLaunchCooperativeKernel),
 * grErrorCallRequiresNewerDriver (on a GPU, a driver without
 * cuLaunchKernelEx, before CUDA 11.8, for attributes other than
 * Cooperative), on a GPU the driver's refusal of an attribute (CUDA's
 * error, the detail naming cuLaunchKernelEx), grErrorInvalidValue (config
 * NULL, attrs NULL with numAttrs > 0, an attribute refused as above, its
 * index named in the detail), grErrorInvalidResourceHandle (an event
 * attribute naming an event that is not live), grErrorNotSupported (an
 * event attribute on a capturing stream, or a device-updatable kernel
 * node: nothing recorded, the capture unchanged), and those of
 * grLaunchKernel (kernel, configuration, args, the capture errors of
 * work, the stream errors). Thread safety: as grLaunchKernel. Mirrors
 * cudaLaunchKernelExC with a grKernel_t in place of the function
 * pointer. */
GR_API grError_t grLaunchKernelExC(const grLaunchConfig_t *config, grKernel_t kernel, void **args);

/* Queues a cooperative launch of 'kernel': grLaunchKernel with every
 * block of the grid co-resident, so that its threads may wait for each
 * other across blocks with graphrt_kernel.h's gr_grid_sync (CUDA's
 * cooperative_groups::this_grid().sync()). The grid may have at most
 * grOccupancyMaxActiveBlocksPerMultiprocessor x
 * grDevAttrMultiProcessorCount blocks: on the CPU device 1 x the
 * workers, each block running on a thread of its own (the launching
 * thread runs the first, the launch starts one for each other block, a
 * cost of a quarter of a millisecond and more a launch: docs/kernels.md). On a capturing
 * stream it adds a kernel node with grLaunchAttributeCooperative. On a
 * GPU stream cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE runs
 * the kernel's image (cuLaunchCooperativeKernel where the driver has no
 * cuLaunchKernelEx). Errors:
 * grErrorCooperativeLaunchTooLarge (a larger grid on the CPU device, the
 * detail giving both sizes; on a GPU the driver's check), and those of
 * grLaunchKernel. A failure to start the blocks' threads is a kernel
 * fault (grErrorLaunchOutOfResources, sticky, at the next
 * synchronisation). Thread safety: as grLaunchKernel. Mirrors
 * cudaLaunchCooperativeKernel with a grKernel_t in place of the function
 * pointer; grLaunchKernelExC with grLaunchAttributeCooperative set to 1
 * is the same launch. */
GR_API grError_t grLaunchCooperativeKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                           size_t sharedMem, grStream_t stream);

/* A kernel's attributes (grFuncGetAttributes), CUDA's cudaFuncAttributes
 * field for field; on the CPU device as commented, on a GPU the driver's
 * (cuFuncGetAttribute of the kernel's function there). */
typedef struct grFuncAttributes {
    size_t sharedSizeBytes;                /* static shared memory: 0 on the CPU, where
                             * GR_SHARED arrays are the compiler's
                             * thread-local storage, unseen by the
                             * runtime */
    size_t constSizeBytes;                 /* 0 on the CPU */
    size_t localSizeBytes;                 /* per thread: on the CPU the fiber stack of a
                             * GR_KERNEL_SYNC kernel's threads, else 0 */
    int maxThreadsPerBlock;                /* 1024 on the CPU */
    int numRegs;                           /* 0 on the CPU */
    int ptxVersion;                        /* 0 on the CPU */
    int binaryVersion;                     /* 0 on the CPU */
    int cacheModeCA;                       /* 0 on the CPU */
    int maxDynamicSharedSizeBytes;         /* 48 KiB, or what grFuncSetAttribute set (up to the optin) */
    int preferredShmemCarveout;            /* -1 (no preference), or as set */
    int clusterDimMustBeSet;               /* 0 on the CPU */
    int requiredClusterWidth;              /* 0 on the CPU */
    int requiredClusterHeight;             /* 0 on the CPU */
    int requiredClusterDepth;              /* 0 on the CPU */
    int clusterSchedulingPolicyPreference; /* 0 on the CPU */
    int nonPortableClusterSizeAllowed;     /* 0 on the CPU */
    int reserved[16];
} grFuncAttributes;

/* The attributes of a kernel's function on the current device (the CPU
 * device's values are those commented at grFuncAttributes; on a GPU the
 * driver's for the kernel's image, loaded there on first use, as a
 * launch loads it). Errors: grErrorInvalidValue (attr NULL),
 * grErrorInvalidDeviceFunction (func NULL or not live; on a GPU, a
 * kernel without a GPU image, as its launch there), on a GPU the
 * driver's errors. Thread safety: any thread. Mirrors
 * cudaFuncGetAttributes (a grKernel_t in place of the function
 * pointer). */
GR_API grError_t grFuncGetAttributes(grFuncAttributes *attr, grKernel_t func);

/* The offset and size of parameter paramIndex in the kernel's argument
 * buffer, whatever the current device (no image needed): graphrt's layout, each parameter at an offset aligned to its
 * size (up to 16 bytes), in order, as the kernel was created with it
 * (a GPU's layout aligns a struct to its members instead, so a struct
 * parameter's offset may differ there). paramSize may be NULL. Errors:
 * grErrorInvalidValue (paramOffset NULL, paramIndex not below the
 * kernel's number of parameters), grErrorInvalidDeviceFunction (func
 * NULL or not live). Thread safety: any thread. Mirrors
 * cudaFuncGetParamInfo (a grKernel_t in place of the function
 * pointer). */
GR_API grError_t grFuncGetParamInfo(grKernel_t func, size_t paramIndex, size_t *paramOffset,
                                    size_t *paramSize);

/* Flags of grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, CUDA's
 * values. */
#define grOccupancyDefault 0x00
#define grOccupancyDisableCachingOverride 0x01

/* The most blocks of 'func' of blockSize threads and dynamicSMemSize
 * bytes of dynamic shared memory that one multiprocessor of the current
 * device runs at once. On the CPU device a multiprocessor is a worker,
 * which runs one block at a time: 1, or 0 where such a block cannot run
 * (blockSize over 1024, dynamicSMemSize over the kernel's
 * MaxDynamicSharedMemorySize, 48 KiB unless raised). So the largest
 * cooperative grid (grLaunchCooperativeKernel) is this times
 * grDevAttrMultiProcessorCount. On a GPU the driver's answer for the
 * kernel's image (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags).
 * Errors: grErrorInvalidValue (numBlocks NULL, blockSize 0 or negative,
 * checked on every device), grErrorInvalidDeviceFunction (func NULL or
 * not live; on a GPU, a kernel without a GPU image), on a GPU the
 * driver's errors. Thread safety: any thread. Mirrors
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor. */
GR_API grError_t grOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, grKernel_t func, int blockSize,
                                                             size_t dynamicSMemSize);

/* grOccupancyMaxActiveBlocksPerMultiprocessor with flags:
 * grOccupancyDefault or grOccupancyDisableCachingOverride (which changes
 * nothing on the CPU). Errors: grErrorInvalidValue (another flag), and
 * those of grOccupancyMaxActiveBlocksPerMultiprocessor. Thread safety:
 * any thread. Mirrors
 * cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags. */
GR_API grError_t grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, grKernel_t func,
                                                                      int blockSize, size_t dynamicSMemSize,
                                                                      unsigned int flags);

/* The most dynamic shared memory a block of 'func' of blockSize threads
 * may have for numBlocks such blocks to be active on one multiprocessor
 * at once. On the CPU device: the kernel's MaxDynamicSharedMemorySize
 * (48 KiB unless raised) for numBlocks 1, 0 for more (a worker runs one
 * block at a time) or for blockSize over 1024; on a GPU
 * the driver's (cuOccupancyAvailableDynamicSMemPerBlock). Errors:
 * grErrorInvalidValue (dynamicSmemSize NULL, numBlocks or blockSize 0 or
 * negative), grErrorInvalidDeviceFunction (func NULL or not live; on a
 * GPU, a kernel without a GPU image), on a GPU the driver's errors.
 * Thread safety: any thread. Mirrors
 * cudaOccupancyAvailableDynamicSMemPerBlock. */
GR_API grError_t grOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, grKernel_t func,
                                                         int numBlocks, int blockSize);

/* The most clusters of the launch configuration's cluster size
 * (grLaunchAttributeClusterDimension in launchConfig->attrs, 1 x 1 x 1
 * without it) that can be active at once. The CPU device has no cluster
 * hardware: its answer is the cooperative limit (1 x
 * grDevAttrMultiProcessorCount blocks) divided by the cluster's blocks,
 * rounded down, or 0 where a block of the configuration cannot run. On a
 * GPU the driver's (cuOccupancyMaxActiveClusters, given the
 * configuration's grid, block, dynamic shared memory, cluster dimension
 * and cluster scheduling policy; the driver wants a cluster dimension
 * unless the kernel was compiled with one). Errors: grErrorInvalidValue
 * (numClusters or launchConfig NULL, attrs NULL with numAttrs > 0, a
 * zero block or cluster dimension), grErrorCallRequiresNewerDriver (on
 * a GPU, a driver without the call: before CUDA 11.8), and the others of
 * grOccupancyMaxActiveBlocksPerMultiprocessor. Thread safety: any
 * thread. Mirrors cudaOccupancyMaxActiveClusters. */
GR_API grError_t grOccupancyMaxActiveClusters(int *numClusters, grKernel_t func,
                                              const grLaunchConfig_t *launchConfig);

/* The largest cluster size (blocks) a launch of the configuration could
 * have with at least one cluster active. On the CPU device: the portable
 * maximum, 8, or the cooperative limit where that is smaller, 0 where a
 * block of the configuration cannot run; on a GPU the driver's
 * (cuOccupancyMaxPotentialClusterSize). Errors: as
 * grOccupancyMaxActiveClusters (clusterSize in place of numClusters).
 * Thread safety: any thread. Mirrors
 * cudaOccupancyMaxPotentialClusterSize. */
GR_API grError_t grOccupancyMaxPotentialClusterSize(int *clusterSize, grKernel_t func,
                                                    const grLaunchConfig_t *launchConfig);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_KERNEL_H */
