/*
 * graphrt/device.h - devices: CUDA's "Device Management".
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_DEVICE_H
#define GRAPHRT_MODULE_DEVICE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Device                                                                 */
/* ====================================================================== */

typedef enum grDeviceAttr {
    grDevAttrMaxThreadsPerBlock = 1,
    grDevAttrMaxBlockDimX,
    grDevAttrMaxBlockDimY,
    grDevAttrMaxBlockDimZ,
    grDevAttrMaxGridDimX,
    grDevAttrMaxGridDimY,
    grDevAttrMaxGridDimZ,
    grDevAttrMaxSharedMemoryPerBlock,
    grDevAttrWarpSize,
    grDevAttrMultiProcessorCount, /* worker threads of the CPU device */
    grDevAttrConcurrentKernels,
    grDevAttrMemoryPoolsSupported,
    grDevAttrComputeCapabilityMajor,      /* the CPU: 0 */
    grDevAttrComputeCapabilityMinor,      /* the CPU: 0 */
    grDevAttrMaxThreadsPerMultiProcessor, /* the CPU: 1024, a block's threads */
    grDevAttrCooperativeLaunch,           /* the CPU: 1 (grLaunchCooperativeKernel) */
    /* The most dynamic shared memory a kernel may opt in to per block
     * (grFuncSetAttribute's MaxDynamicSharedMemorySize): the CPU 232448
     * (227 KiB, an H100's), a GPU the driver's. */
    grDevAttrMaxSharedMemoryPerBlockOptin
} grDeviceAttr;

/* What grGetDeviceProperties tells of a device: CUDA's cudaDeviceProp
 * fields of the same names, those graphrt knows for both kinds of device.
 * For the CPU (device 0): name is /proc/cpuinfo's model name,
 * multiProcessorCount the worker threads, totalGlobalMem the physical
 * RAM, major.minor 0.0, warpSize 1, and isCpu 1. */
typedef struct grDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int multiProcessorCount;
    int major, minor; /* compute capability */
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate; /* kHz; 0 where unknown */
    int l2CacheSize;
    int maxThreadsPerMultiProcessor;
    int concurrentKernels;
    int unifiedAddressing;
    int memoryPoolsSupported;
    int isCpu; /* graphrt's own: 1 for the CPU device, 0 for a GPU */
    /* The most a kernel may opt in to (grDevAttrMaxSharedMemoryPerBlockOptin):
     * the CPU 232448 bytes, a GPU the driver's. */
    size_t sharedMemPerBlockOptin;
} grDeviceProp;

/* Number of devices: 1 (the CPU, device 0) plus the NVIDIA GPUs the
 * driver reports (devices 1..N, in CUDA's order: device d is CUDA device
 * d - 1). The driver is loaded at run time (libcuda.so.1); without one, or
 * with GRAPHRT_CUDA=0, the count is 1 (docs/devices.md). Errors:
 * grErrorInvalidValue (count NULL). Thread safety: any thread. Mirrors
 * cudaGetDeviceCount (whose count has no CPU). */
GR_API grError_t grGetDeviceCount(int *count);

/* Selects the calling thread's device: later streams, events, grMalloc
 * and the default streams (NULL, grStreamLegacy, grStreamPerThread) are
 * that device's. A thread starts on the device GRAPHRT_DEVICE names
 * ("cpu", "cuda:K" for the K-th GPU, or a device number), else 0, the CPU.
 * Errors: grErrorInvalidDevice (device outside 0..count-1; the detail says
 * why GPUs are missing). Thread safety: the device is per thread. Mirrors
 * cudaSetDevice (note: device 0 is the CPU here; grSetDevice(1) picks the
 * first GPU). */
GR_API grError_t grSetDevice(int device);

/* The calling thread's device. Errors: grErrorInvalidValue (device NULL).
 * Thread safety: the device is per thread. Mirrors cudaGetDevice. */
GR_API grError_t grGetDevice(int *device);

/* Fills *prop with what graphrt knows of 'device' (see grDeviceProp).
 * Errors: grErrorInvalidValue (prop NULL), grErrorInvalidDevice (no such
 * device), a CUDA error mapped to graphrt's with CUDA's name in the
 * detail. Thread safety: any thread. Mirrors cudaGetDeviceProperties. */
GR_API grError_t grGetDeviceProperties(grDeviceProp *prop, int device);

/* Waits until all work issued to the calling thread's current device has
 * completed: on the CPU, all streams' (the waiting thread runs ready work
 * instead of sleeping); on a GPU, that device's (cuCtxSynchronize).
 * Refused while any capture is in progress, whatever its mode and the
 * calling thread's, as in CUDA. Errors: grErrorInitializationError (the
 * runtime could not start), grErrorStreamCaptureUnsupported (a capture is
 * in progress: every capture in progress is invalidated); on a GPU, the
 * device's asynchronous error mapped to graphrt's, CUDA's name in the
 * detail. The CPU has no asynchronous error to report (see section
 * Streams).
 * Thread safety: any thread. Mirrors cudaDeviceSynchronize. */
GR_API grError_t grDeviceSynchronize(void);

/* Waits for all work, then destroys every stream (their handles become
 * invalid), destroys every memory pool with the blocks it holds (their
 * handles become invalid; a new default pool is made when one is next
 * needed), frees every grMalloc / grMallocHost allocation still alive,
 * gives the memory kept for plans back to the system, and stops the
 * workers; the next call starts a fresh runtime (re-reading
 * GRAPHRT_WORKERS). Errors: none; it always returns grSuccess. Deviation:
 * kernels, events, graphs and executables are host objects and stay valid
 * (CUDA destroys them); destroy them yourself. This is the reset of the
 * CPU (device 0); where the current device is a GPU, grDeviceReset waits
 * for that GPU's work and frees the grMalloc allocations of that GPU only
 * (its streams, events, primary context and graph allocations, which are
 * their graphs' and executables', stay: docs/devices.md).
 * Thread safety: must not run concurrently with any other graphrt call.
 * Mirrors cudaDeviceReset. */
GR_API grError_t grDeviceReset(void);

/* Reads a device attribute of any device. On the CPU (device 0)
 * grDevAttrMultiProcessorCount is the number of worker threads (env
 * GRAPHRT_WORKERS, 1 to 1024; default, and for a value outside that range:
 * the cores of the process's affinity mask, as taskset limits it, else the
 * online cores); on a GPU every attribute is the driver's
 * (cuDeviceGetAttribute). Errors: grErrorInvalidValue (value NULL, attr
 * not a grDeviceAttr), grErrorInvalidDevice (no such device),
 * grErrorInitializationError (the runtime could not start), a CUDA error
 * mapped to graphrt's.
 * Thread safety: any thread. Mirrors cudaDeviceGetAttribute. */
GR_API grError_t grDeviceGetAttribute(int *value, grDeviceAttr attr, int device);

/* The CUDA version whose runtime API graphrt mirrors, encoded as CUDA
 * encodes versions (1000 * major + 10 * minor): GR_CUDA_API_VERSION, 13000
 * for CUDA 13.0. graphrt has no CUDA runtime of its own to report, and
 * does not need the CUDA toolkit; this is the API its calls follow.
 * Errors: grErrorInvalidValue (runtimeVersion NULL). Thread safety: any
 * thread. Mirrors cudaRuntimeGetVersion. */
#define GR_CUDA_API_VERSION 13000
GR_API grError_t grRuntimeGetVersion(int *runtimeVersion);

/* Where graphrt shows a GPU (grGetDeviceCount above 1): the latest CUDA
 * version the installed NVIDIA driver supports, as its cuDriverGetVersion
 * reports it (1000 * major + 10 * minor, e.g. 13000). Where it shows none
 * (no driver, libcuda.so.1 not found; a driver that offers no GPU; GPUs
 * disabled with GRAPHRT_CUDA=0): GR_CUDA_API_VERSION, the CUDA version
 * whose API the CPU device implements. Errors: grErrorInvalidValue
 * (driverVersion NULL). Thread safety: any thread. Mirrors
 * cudaDriverGetVersion. Deviation: CUDA answers 0 without a driver; a
 * program that gates a feature on the driver's version (conditional
 * nodes need 12030) would then skip everything on the CPU device, which
 * is the driver here and has every call of the API it mirrors. */
GR_API grError_t grDriverGetVersion(int *driverVersion);

/* The limits of grDeviceSetLimit / grDeviceGetLimit, with CUDA's values.
 * Mirrors cudaLimit. */
typedef enum grLimit {
    grLimitStackSize = 0x00,                    /* bytes of stack per GPU thread */
    grLimitPrintfFifoSize = 0x01,               /* bytes of the device printf buffer */
    grLimitMallocHeapSize = 0x02,               /* bytes of the device malloc heap */
    grLimitDevRuntimeSyncDepth = 0x03,          /* device-runtime sync depth */
    grLimitDevRuntimePendingLaunchCount = 0x04, /* device-runtime pending launches */
    grLimitMaxL2FetchGranularity = 0x05,        /* L2 fetch granularity, 0..128 bytes */
    grLimitPersistingL2CacheSize = 0x06         /* bytes of persisting L2 cache */
} grLimit;

/* Sets a limit of the calling thread's current device, as CUDA's
 * cudaDeviceSetLimit does for the current device's context. The CPU
 * (device 0) stores each limit and reports it with grDeviceGetLimit;
 * none of them bounds anything there (a CPU kernel's blocks run on the
 * workers' own stacks, printf is the C library's, kernels have no device
 * heap): they are kept so that code written for CUDA runs unchanged and
 * reads back what it set. The CPU's values are CUDA's documented rules
 * for a device of compute capability 9.0 or later:
 * grLimitDevRuntimeSyncDepth is refused with grErrorUnsupportedLimit
 * (CUDA: "not supported on devices of compute capability 9.0 or
 * higher"), grLimitMaxL2FetchGranularity is clamped to 0..128 (CUDA: "a
 * performance hint ... ignored or clamped"), and the others accept any
 * value (the CPU has no L2 carve-out to round
 * grLimitPersistingL2CacheSize to). With a GPU current the limit is set
 * in its primary context by the driver (cuCtxSetLimit, grLimit having
 * CUlimit's values), after the same checks and clamp; the driver rounds
 * and refuses as it does for CUDA (grDeviceGetLimit reads its answer).
 * Errors: grErrorInvalidValue (limit not a grLimit),
 * grErrorUnsupportedLimit (grLimitDevRuntimeSyncDepth), on a GPU the
 * driver's error mapped to graphrt's. A refused call changes nothing.
 * Thread safety: any thread; the limits are the device's, shared by
 * every thread. Mirrors cudaDeviceSetLimit. */
GR_API grError_t grDeviceSetLimit(grLimit limit, size_t value);

/* Reads a limit of the current device into *pValue: the value last set,
 * else the CPU's default (grLimitStackSize 1024, grLimitPrintfFifoSize
 * 1048576, grLimitMallocHeapSize 8388608, grLimitDevRuntimePendingLaunchCount
 * 2048: CUDA's documented defaults or what current GPUs report; the L2
 * hints grLimitMaxL2FetchGranularity and grLimitPersistingL2CacheSize 0,
 * none); with a GPU current the driver's value (cuCtxGetLimit in the
 * primary context). CUDA 13's cudaLimitPerBlockMemorySize is not offered
 * (docs/coverage.md says why).
 * Errors: grErrorInvalidValue (pValue NULL, limit not a grLimit),
 * grErrorUnsupportedLimit (grLimitDevRuntimeSyncDepth), on a GPU the
 * driver's error mapped to graphrt's. Thread safety: any thread. Mirrors
 * cudaDeviceGetLimit. */
GR_API grError_t grDeviceGetLimit(size_t *pValue, grLimit limit);

/* The flags of grSetDeviceFlags, grGetDeviceFlags and grInitDevice, with
 * CUDA's values. The schedule flags say how a thread that waits for the
 * device (a synchronize call) waits; at most one of them is set. */
#define grDeviceScheduleAuto 0x00u
#define grDeviceScheduleSpin 0x01u
#define grDeviceScheduleYield 0x02u
#define grDeviceScheduleBlockingSync 0x04u
#define grDeviceBlockingSync 0x04u /* CUDA's deprecated name of ScheduleBlockingSync */
#define grDeviceScheduleMask 0x07u
#define grDeviceMapHost 0x08u
#define grDeviceLmemResizeToMax 0x10u
#define grDeviceSyncMemops 0x80u
#define grDeviceMask 0xffu

/* Records the flags of the calling thread's current device, overwriting
 * earlier ones, as CUDA 13 does for an initialised device (it no longer
 * answers cudaErrorSetOnActiveProcess). flags: at most one schedule flag
 * (grDeviceScheduleAuto, Spin, Yield or BlockingSync) or'ed with any of
 * grDeviceMapHost, grDeviceLmemResizeToMax, grDeviceSyncMemops. On the
 * CPU (device 0) the flags are stored and reported by grGetDeviceFlags;
 * how a synchronising thread waits does not change: it runs the work it
 * waits for, then waits as the workers do (a short spin, then a sleep),
 * which is what Auto means (docs/devices.md). grDeviceMapHost is implied
 * on the CPU (host memory is the device's), so grGetDeviceFlags reports
 * it whether set or not. With a GPU current the flags are its primary
 * context's (cuDevicePrimaryCtxSetFlags; the bits are CUDA's CU_CTX_*
 * values), which the driver applies to a running context too.
 * Errors: grErrorInvalidValue (bits outside grDeviceMask, bits 0x20 or
 * 0x40, two schedule flags), on a GPU the driver's error mapped to
 * graphrt's. A refused call changes nothing. Thread safety: any thread; the flags are the device's.
 * Mirrors cudaSetDeviceFlags. */
GR_API grError_t grSetDeviceFlags(unsigned int flags);

/* The flags of the calling thread's current device: those last set (0,
 * grDeviceScheduleAuto, until then), with grDeviceMapHost on the CPU.
 * With a GPU current, its primary context's flags
 * (cuDevicePrimaryCtxGetState) with grDeviceMapHost added (host memory is
 * mapped in every context under unified addressing). Errors:
 * grErrorInvalidValue (flags NULL), on a GPU the driver's error mapped to
 * graphrt's. Thread safety: any thread. Mirrors cudaGetDeviceFlags. */
GR_API grError_t grGetDeviceFlags(unsigned int *flags);

/* The flag of grInitDevice that makes it apply deviceFlags. */
#define grInitDeviceFlagsAreValid 0x01u

/* Initialises 'device' without making it current: the CPU's runtime
 * (its workers) is started, a GPU's primary context retained. With
 * grInitDeviceFlagsAreValid in flags, deviceFlags are then applied to the
 * device as grSetDeviceFlags applies them (and checked as it checks
 * them; a GPU's before its primary context starts); without it
 * deviceFlags is ignored, as in CUDA. Errors:
 * grErrorInvalidDevice (no such device), grErrorInvalidValue (flags with
 * other bits than grInitDeviceFlagsAreValid; deviceFlags refused as
 * grSetDeviceFlags refuses them), grErrorInitializationError (the
 * runtime could not start), a CUDA error mapped to graphrt's (a GPU's
 * flags or context). A refused
 * call changes nothing but may leave the device initialised. Thread
 * safety: any thread. Mirrors cudaInitDevice. */
GR_API grError_t grInitDevice(int device, unsigned int deviceFlags, unsigned int flags);

/* Answers in *device the device whose properties best match *prop. CUDA
 * documents no rule beyond "best match"; graphrt's is the compute
 * capability (prop->major, prop->minor; the other fields are not read): a
 * device of at least that capability wins over one below it, then the
 * closest capability, then the lowest number. The CPU device is 0.0, so a
 * GPU's capability picks a GPU where one exists (else device 0) and a
 * zeroed grDeviceProp picks device 0. The current device is not changed.
 * Errors: grErrorInvalidValue (device or prop NULL); a GPU's properties
 * error, as grGetDeviceProperties. Thread safety: any thread. Mirrors
 * cudaChooseDevice. */
GR_API grError_t grChooseDevice(int *device, const grDeviceProp *prop);

/* Sets the devices to try, in priority order, for threads that have not
 * chosen one (grSetDevice): every graphrt device works, so such a thread
 * starts on device_arr[0] (instead of GRAPHRT_DEVICE's, else 0); len 0
 * goes back to that default. Threads that have a device keep it. Errors:
 * grErrorInvalidValue (len negative, device_arr NULL with len not 0, len
 * above the number of devices), grErrorInvalidDevice (an entry names no
 * device). A refused call changes nothing. Thread safety: any thread; the
 * list is the process's. Mirrors cudaSetValidDevices. */
GR_API grError_t grSetValidDevices(int *device_arr, int len);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_DEVICE_H */
