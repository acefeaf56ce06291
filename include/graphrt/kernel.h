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
 * function too); MaxDynamicSharedMemorySize is accepted up to 48 KiB and
 * PreferredSharedMemoryCarveout from -1 to 100, as hints. Errors:
 * grErrorInvalidDeviceFunction (func NULL or not live),
 * grErrorInvalidValue (an unknown attribute, a value out of range).
 * Thread safety: any thread; launches already running keep the old
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
 * belongs; sharedMem > 48 KiB), grErrorMemoryAllocation; plus the capture
 * errors of work and the stream errors. On a GPU stream the kernel's GPU
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
 * otherwise the kernel runs as grLaunchKernel runs it: on the CPU the
 * attributes change nothing; ProgrammaticEvent and LaunchCompletionEvent
 * record their event on the stream right after the kernel (on a GPU they
 * may trigger earlier: recording at completion is the latest valid
 * moment); on a GPU stream the other attributes are not passed to the
 * driver (docs/launch-attributes.md). Errors: grErrorInvalidValue (config
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

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_KERNEL_H */
