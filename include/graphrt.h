/*
 * graphrt.h - the CUDA Graph programming model as a C11 runtime.
 *
 * Every function is the CUDA runtime function of the same name with the
 * prefix 'cuda' replaced by 'gr', with the same parameters in the same order
 * and the same meaning (CUDA 12.x signatures), unless its comment says
 * otherwise. Types 'cudaX' are 'grX', enumerators 'cudaX' are 'grX'; numeric
 * values of enumerators need not match CUDA's. Every function returns
 * grError_t (grSuccess is 0), except the three that return strings
 * (grGetErrorName, grGetErrorString, grGetLastErrorDetail).
 *
 * Errors: a failing call returns its code, records it as the thread's last
 * error (grGetLastError) and sets a sentence for grGetLastErrorDetail() that
 * names the call, the object and the rule broken. A refused call changes
 * nothing, except where its comment says that it invalidates a capture. A
 * successful call leaves the last error alone, as in CUDA. The two queries
 * (grStreamQuery, grEventQuery) return grErrorNotReady without recording
 * it, as in CUDA. Each function's comment lists after "Errors:" every code
 * it can return, each with its conditions. Three families shared by many
 * functions are described once and named in those lists: "the stream
 * errors" (section Streams), "the capture errors of work" and "the mode
 * errors" (section Stream capture).
 *
 * Device 0 is the CPU of the host. Kernels are C functions called once per
 * thread block (see grKernelCreate); everything else keeps CUDA's meaning.
 *
 * Thread safety: streams, events, kernels, memory, memory pools, graph
 * memory, captures and executable graphs are internally synchronised: their
 * functions may be called from any thread at any time, unless a comment
 * says otherwise. Executables go beyond CUDA: launches, setters and
 * grGraphExecUpdate of one executable may run on several threads at once
 * (a change waits for the launches queued before it; see section Executable
 * graphs), where CUDA asks the application to serialise them. Graphs are
 * not internally synchronised, as in CUDA: a graph (a grGraph_t, its nodes,
 * and the child graphs its child-graph nodes own) must not be used by two
 * calls at the same time, even calls that only read it (queries,
 * grGraphClone, grGraphInstantiate, grGraphExecUpdate, grGraphDebugDotPrint:
 * some of them keep per-node scratch state in the graph): the application
 * serialises the calls that use one graph. Calls on different graphs may
 * run at the same time. The comment of each function that uses
 * a graph says so in a sentence "Thread safety: not with other calls on the
 * same graph". An executable keeps no reference to the graph it was
 * instantiated from, so calls on the two may run concurrently. Per-thread
 * state: the last error and its detail, the device (grSetDevice), the
 * capture mode (grThreadExchangeStreamCaptureMode) and the per-thread
 * default stream (grStreamPerThread). An object passed to a call must not
 * be destroyed concurrently with that call, and grDeviceReset must not run
 * concurrently with any other call.
 *
 * Destroyed handles: a stream, event, kernel, graph, executable or memory
 * pool handle used after its destruction is refused with the error its
 * function documents for a handle that is not live, never read after
 * free: the object's memory is kept for objects of the same kind. It is
 * reused once 64 more objects of that kind have been destroyed, so a
 * handle kept long after its destruction may then name a newer object,
 * as a CUDA handle may. A destroyed node handle is refused while its
 * graph lives (its memory stays in the graph); the node handles of a
 * destroyed graph must not be passed anywhere except, as keys, to the
 * setters of an executable instantiated from that graph (which never
 * dereference them), as in CUDA.
 */
#ifndef GRAPHRT_H
#define GRAPHRT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GR_BUILDING_LIBRARY) && defined(__GNUC__)
#define GR_API __attribute__((visibility("default")))
#else
#define GR_API
#endif

#define GRAPHRT_VERSION_MAJOR 0
#define GRAPHRT_VERSION_MINOR 1
#define GRAPHRT_VERSION_PATCH 0

/* ====================================================================== */
/* Errors                                                                 */
/* ====================================================================== */

/*
 * The error list: XX(name, CUDA name it mirrors, description). The enum,
 * grGetErrorName and grGetErrorString are all expanded from this one list.
 */
#define GR_ERROR_LIST(XX)                                                      \
    XX(grSuccess, "no error")                                                  \
    XX(grErrorInvalidValue, "invalid argument")                                \
    XX(grErrorMemoryAllocation, "out of memory")                               \
    XX(grErrorInitializationError, "initialization error")                     \
    XX(grErrorInvalidConfiguration, "invalid configuration argument")          \
    XX(grErrorInvalidDevicePointer, "invalid device pointer")                  \
    XX(grErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")     \
    XX(grErrorInvalidDevice, "invalid device ordinal")                         \
    XX(grErrorInvalidDeviceFunction, "invalid device function")                \
    XX(grErrorInvalidResourceHandle, "invalid resource handle")                \
    XX(grErrorIllegalState, "the operation cannot be performed in the "        \
                            "present state")                                   \
    XX(grErrorNotReady, "device not ready")                                    \
    XX(grErrorIllegalAddress, "an illegal memory access was encountered")      \
    XX(grErrorLaunchFailure, "unspecified launch failure")                     \
    XX(grErrorLaunchOutOfResources, "too many resources requested for "        \
                                    "launch")                                  \
    XX(grErrorNotSupported, "operation not supported")                         \
    XX(grErrorNotPermitted, "operation not permitted")                         \
    XX(grErrorStreamCaptureUnsupported, "operation not permitted when "        \
                                        "stream is capturing")                 \
    XX(grErrorStreamCaptureInvalidated, "operation failed due to a previous "  \
                                        "error during capture")                \
    XX(grErrorStreamCaptureMerge, "operation would result in a merge of "      \
                                  "separate capture sequences")                \
    XX(grErrorStreamCaptureUnmatched, "capture was not ended in the same "     \
                                      "stream as it began")                    \
    XX(grErrorStreamCaptureUnjoined, "capturing stream has unjoined work")     \
    XX(grErrorStreamCaptureIsolation, "dependency created on uncaptured "      \
                                      "work in another stream")                \
    XX(grErrorStreamCaptureImplicit, "operation would make the legacy "        \
                                     "stream depend on a capturing "           \
                                     "blocking stream")                        \
    XX(grErrorCapturedEvent, "operation not permitted on an event last "       \
                             "recorded in a capturing stream")                 \
    XX(grErrorStreamCaptureWrongThread, "attempt to terminate a thread-local " \
                                        "capture sequence from another "       \
                                        "thread")                              \
    XX(grErrorGraphExecUpdateFailure, "the graph update was not performed "    \
                                      "because it included changes which "     \
                                      "violated constraints specific to "      \
                                      "instantiated graph update")             \
    XX(grErrorLossyQuery, "a query of edges without room for their data "      \
                          "would lose non-default edge data")                  \
    XX(grErrorInvalidPitchValue, "invalid pitch argument")                     \
    XX(grErrorInvalidSymbol, "invalid device symbol")                          \
    XX(grErrorHostMemoryAlreadyRegistered, "part or all of the requested "     \
                                           "memory range is already mapped")   \
    XX(grErrorHostMemoryNotRegistered, "pointer does not correspond to a "     \
                                       "registered memory region")             \
    XX(grErrorUnsupportedLimit, "limit is not supported on this "              \
                                "architecture")                                \
    XX(grErrorCallRequiresNewerDriver, "API call is not supported in the "     \
                                       "installed CUDA driver")                \
    XX(grErrorUnknown, "unknown error")

typedef enum grError {
#define GR_ERROR_ENUM_(name, text) name,
    GR_ERROR_LIST(GR_ERROR_ENUM_)
#undef GR_ERROR_ENUM_
} grError_t;
typedef enum grError grError;

/* The enumerator's name ("grErrorInvalidValue"); "unrecognized error code"
 * for a value outside the list. A static string; never NULL. Mirrors
 * cudaGetErrorName. */
GR_API const char *grGetErrorName(grError_t error);

/* A short description of the code ("unrecognized error code" for a value
 * outside the list). A static string; never NULL. Mirrors
 * cudaGetErrorString. */
GR_API const char *grGetErrorString(grError_t error);

/* Returns the calling thread's last error and resets it to grSuccess; the
 * detail sentence is kept. Errors: none (the result is the last error, not
 * an error of this call). CUDA's asynchronous failures, reported by a
 * later synchronising call, do not occur on the CPU device (see section
 * Streams). Thread safety: the last error is per thread. Mirrors
 * cudaGetLastError. */
GR_API grError_t grGetLastError(void);

/* Returns the calling thread's last error without resetting it. Errors:
 * none (as grGetLastError). Thread safety: the last error is per thread.
 * Mirrors cudaPeekAtLastError. */
GR_API grError_t grPeekAtLastError(void);

/* graphrt's own: a sentence about the calling thread's most recent failure,
 * naming the call, the object and the rule broken, and what to do. The text
 * stays valid until the thread's next failing call; grGetLastError does not
 * clear it. Empty ("") when the thread has had no failure. Never NULL.
 * Thread safety: the detail is per thread. */
GR_API const char *grGetLastErrorDetail(void);

/* ====================================================================== */
/* Basic types                                                            */
/* ====================================================================== */

typedef struct grDim3 {
    unsigned int x, y, z;
} grDim3;
typedef struct grDim3 dim3_gr; /* spelling without the struct keyword */

/* A grDim3 literal: GR_DIM3(64, 1, 1). */
#define GR_DIM3(X, Y, Z) ((grDim3){(X), (Y), (Z)})

typedef struct grStream_st *grStream_t;
typedef struct grEvent_st *grEvent_t;
typedef struct grKernel_st *grKernel_t;
typedef struct grGraph_st *grGraph_t;
typedef struct grGraphNode_st *grGraphNode_t;
typedef struct grGraphExec_st *grGraphExec_t;
typedef struct grMemPool_st *grMemPool_t;

/* The legacy default stream (same as passing NULL) and the per-thread
 * default stream, as in CUDA. */
#define grStreamLegacy ((grStream_t)0x1)
#define grStreamPerThread ((grStream_t)0x2)

typedef enum grMemcpyKind {
    grMemcpyHostToHost = 0,
    grMemcpyHostToDevice = 1,
    grMemcpyDeviceToHost = 2,
    grMemcpyDeviceToDevice = 3,
    grMemcpyDefault = 4
} grMemcpyKind;

/* Host function called in stream or graph order (grLaunchHostFunc, host
 * nodes). It must not call graphrt functions that enqueue or synchronise,
 * as in CUDA. */
typedef void (*grHostFn_t)(void *userData);

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
    grDevAttrComputeCapabilityMajor,     /* the CPU: 0 */
    grDevAttrComputeCapabilityMinor,     /* the CPU: 0 */
    grDevAttrMaxThreadsPerMultiProcessor /* the CPU: 1024, a block's threads */
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
 * Streams). Mirrors cudaDeviceSynchronize. */
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
 * mapped to graphrt's. Mirrors cudaDeviceGetAttribute. */
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
 * grLimitPersistingL2CacheSize to). A GPU
 * is refused with grErrorNotSupported: the driver's cuCtxSetLimit is not
 * called by graphrt's CUDA backend (the detail says so). Errors:
 * grErrorInvalidValue (limit not a grLimit), grErrorUnsupportedLimit
 * (grLimitDevRuntimeSyncDepth),
 * grErrorNotSupported (a GPU is the current device). A refused call
 * changes nothing. Thread safety: any thread; the limits are the
 * device's, shared by every thread. Mirrors cudaDeviceSetLimit. */
GR_API grError_t grDeviceSetLimit(grLimit limit, size_t value);

/* Reads a limit of the current device into *pValue: the value last set,
 * else the CPU's default (grLimitStackSize 1024, grLimitPrintfFifoSize
 * 1048576, grLimitMallocHeapSize 8388608, grLimitDevRuntimePendingLaunchCount
 * 2048: CUDA's documented defaults or what current GPUs report; the L2
 * hints grLimitMaxL2FetchGranularity and grLimitPersistingL2CacheSize 0,
 * none). CUDA 13's grLimitPerBlockMemorySize is not offered. Errors:
 * grErrorInvalidValue (pValue NULL, limit not a grLimit),
 * grErrorUnsupportedLimit (grLimitDevRuntimeSyncDepth),
 * grErrorNotSupported (a GPU is the current device: cuCtxGetLimit is not
 * called). Thread safety: any thread. Mirrors cudaDeviceGetLimit. */
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
 * it whether set or not. A GPU is refused with grErrorNotSupported
 * (cuDevicePrimaryCtxSetFlags is not called by graphrt's CUDA backend).
 * Errors: grErrorInvalidValue (bits outside grDeviceMask, bits 0x20 or
 * 0x40, two schedule flags), grErrorNotSupported (a GPU). A refused call
 * changes nothing. Thread safety: any thread; the flags are the device's.
 * Mirrors cudaSetDeviceFlags. */
GR_API grError_t grSetDeviceFlags(unsigned int flags);

/* The flags of the calling thread's current device: those last set (0,
 * grDeviceScheduleAuto, until then), with grDeviceMapHost on the CPU.
 * Errors: grErrorInvalidValue (flags NULL), grErrorNotSupported (a GPU is
 * the current device). Thread safety: any thread. Mirrors
 * cudaGetDeviceFlags. */
GR_API grError_t grGetDeviceFlags(unsigned int *flags);

/* The flag of grInitDevice that makes it apply deviceFlags. */
#define grInitDeviceFlagsAreValid 0x01u

/* Initialises 'device' without making it current: the CPU's runtime
 * (its workers) is started, a GPU's primary context retained. With
 * grInitDeviceFlagsAreValid in flags, deviceFlags are then applied to the
 * device as grSetDeviceFlags applies them (and checked as it checks
 * them); without it deviceFlags is ignored, as in CUDA. Errors:
 * grErrorInvalidDevice (no such device), grErrorInvalidValue (flags with
 * other bits than grInitDeviceFlagsAreValid; deviceFlags refused as
 * grSetDeviceFlags refuses them), grErrorInitializationError (the
 * runtime could not start), grErrorNotSupported (deviceFlags given for a
 * GPU), a CUDA error mapped to graphrt's (a GPU's context). A refused
 * call changes nothing but may leave the device initialised. Thread
 * safety: any thread. Mirrors cudaInitDevice. */
GR_API grError_t grInitDevice(int device, unsigned int deviceFlags, unsigned int flags);

/* ====================================================================== */
/* Launch attributes                                                      */
/* ====================================================================== */

/*
 * Launch attributes: the settings of grLaunchKernelExC, of kernel nodes
 * (grGraphKernelNode*Attribute) and of streams (grStream*Attribute). IDs,
 * values and the union's layout mirror cudaLaunchAttributeID,
 * cudaLaunchAttributeValue and cudaLaunchAttribute of CUDA 13. graphrt
 * stores every attribute that CUDA accepts at a place and reads it back;
 * on the CPU only grLaunchAttributePriority has an effect (the order of
 * ready nodes of an executable instantiated with
 * grGraphInstantiateFlagUseNodePriority); the others steer GPU hardware
 * (caches, clusters, synchronisation domains) and are kept for reading
 * back and for grGraphExecUpdate's comparisons (docs/launch-attributes.md).
 */
typedef enum grAccessProperty {
    grAccessPropertyNormal = 0,
    grAccessPropertyStreaming = 1,
    grAccessPropertyPersisting = 2
} grAccessProperty;

typedef struct grAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    grAccessProperty hitProp;
    grAccessProperty missProp;
} grAccessPolicyWindow;

typedef enum grSynchronizationPolicy {
    grSyncPolicyAuto = 1,
    grSyncPolicySpin = 2,
    grSyncPolicyYield = 3,
    grSyncPolicyBlockingSync = 4
} grSynchronizationPolicy;

typedef enum grClusterSchedulingPolicy {
    grClusterSchedulingPolicyDefault = 0,
    grClusterSchedulingPolicySpread = 1,
    grClusterSchedulingPolicyLoadBalancing = 2
} grClusterSchedulingPolicy;

typedef enum grLaunchMemSyncDomain {
    grLaunchMemSyncDomainDefault = 0,
    grLaunchMemSyncDomainRemote = 1
} grLaunchMemSyncDomain;

typedef struct grLaunchMemSyncDomainMap {
    unsigned char default_;
    unsigned char remote;
} grLaunchMemSyncDomainMap;

/* Where each may be set: S streams, N kernel nodes, L launches
 * (grLaunchKernelExC; a captured launch gives its kernel node the N ones). */
typedef enum grLaunchAttributeID {
    grLaunchAttributeIgnore = 0,                            /* S N L: skipped */
    grLaunchAttributeAccessPolicyWindow = 1,                /* S N L */
    grLaunchAttributeCooperative = 2,                       /* N L */
    grLaunchAttributeSynchronizationPolicy = 3,             /* S */
    grLaunchAttributeClusterDimension = 4,                  /* N L */
    grLaunchAttributeClusterSchedulingPolicyPreference = 5, /* N L */
    grLaunchAttributeProgrammaticStreamSerialization = 6,   /* L */
    grLaunchAttributeProgrammaticEvent = 7,                 /* L */
    grLaunchAttributePriority = 8,                          /* S N L */
    grLaunchAttributeMemSyncDomainMap = 9,                  /* S N L */
    grLaunchAttributeMemSyncDomain = 10,                    /* S N L */
    grLaunchAttributePreferredClusterDimension = 11,        /* N L */
    grLaunchAttributeLaunchCompletionEvent = 12,            /* L */
    grLaunchAttributeDeviceUpdatableKernelNode = 13,        /* N L */
    grLaunchAttributePreferredSharedMemoryCarveout = 14,    /* N L */
    grLaunchAttributeNvlinkUtilCentricScheduling = 16       /* S N L */
} grLaunchAttributeID;

typedef union grLaunchAttributeValue {
    char pad[64];
    grAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    grSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    grClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        grEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    grLaunchMemSyncDomainMap memSyncDomainMap;
    grLaunchMemSyncDomain memSyncDomain;
    struct {
        unsigned int x, y, z;
    } preferredClusterDim;
    struct {
        grEvent_t event;
        int flags;
    } launchCompletionEvent;
    struct {
        int deviceUpdatable;
        void *devNode; /* always NULL in graphrt: no device-side graph updates */
    } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} grLaunchAttributeValue;

typedef struct grLaunchAttribute {
    grLaunchAttributeID id;
    char pad[8 - sizeof(grLaunchAttributeID)];
    grLaunchAttributeValue val;
} grLaunchAttribute;

/* The launch of grLaunchKernelExC. Mirrors cudaLaunchConfig_t. */
typedef struct grLaunchConfig_t {
    grDim3 gridDim;
    grDim3 blockDim;
    size_t dynamicSmemBytes;
    grStream_t stream;
    grLaunchAttribute *attrs; /* numAttrs entries; may be NULL when 0 */
    unsigned int numAttrs;
} grLaunchConfig_t;

/* Names CUDA gives the same IDs for streams and kernel nodes. */
typedef grLaunchAttributeID grStreamAttrID;
typedef grLaunchAttributeValue grStreamAttrValue;
typedef grLaunchAttributeID grKernelNodeAttrID;
typedef grLaunchAttributeValue grKernelNodeAttrValue;
#define grStreamAttributeAccessPolicyWindow grLaunchAttributeAccessPolicyWindow
#define grStreamAttributeSynchronizationPolicy grLaunchAttributeSynchronizationPolicy
#define grStreamAttributeMemSyncDomainMap grLaunchAttributeMemSyncDomainMap
#define grStreamAttributeMemSyncDomain grLaunchAttributeMemSyncDomain
#define grStreamAttributePriority grLaunchAttributePriority
#define grKernelNodeAttributeAccessPolicyWindow grLaunchAttributeAccessPolicyWindow
#define grKernelNodeAttributeCooperative grLaunchAttributeCooperative
#define grKernelNodeAttributePriority grLaunchAttributePriority
#define grKernelNodeAttributeClusterDimension grLaunchAttributeClusterDimension
#define grKernelNodeAttributeClusterSchedulingPolicyPreference \
    grLaunchAttributeClusterSchedulingPolicyPreference
#define grKernelNodeAttributeMemSyncDomainMap grLaunchAttributeMemSyncDomainMap
#define grKernelNodeAttributeMemSyncDomain grLaunchAttributeMemSyncDomain

/* ====================================================================== */
/* Streams                                                                */
/* ====================================================================== */

#define grStreamDefault 0x00u
#define grStreamNonBlocking 0x01u

/*
 * The stream errors: every function that takes a grStream_t may return
 * grErrorInvalidResourceHandle (a handle that is not a live stream:
 * destroyed, or not from grStreamCreate*), grErrorInitializationError (the
 * runtime could not start: a call naming NULL, grStreamLegacy,
 * grStreamPerThread or a handle that is not live starts it first) and
 * grErrorMemoryAllocation
 * (grStreamPerThread: out of memory creating the calling thread's default
 * stream). The "Errors:" lists below say "plus the stream errors" for these.
 *
 * Asynchronous errors: every operation is checked when it is issued, and
 * none fails once queued (a copy's ranges, for instance, are checked
 * against the allocations when it is queued), so no synchronising call ever
 * reports an asynchronous failure, where CUDA reports a kernel's fault at
 * the next one.
 */

/* Creates a blocking stream (ordered against the legacy default stream).
 * Errors: grErrorInvalidValue (stream NULL), grErrorInitializationError
 * (the runtime could not start), grErrorMemoryAllocation. Mirrors
 * cudaStreamCreate. */
GR_API grError_t grStreamCreate(grStream_t *stream);

/* Creates a stream of the calling thread's current device (on a GPU, a
 * CUstream of its primary context); grStreamNonBlocking exempts it from the
 * legacy stream's implicit synchronisation. Errors: grErrorInvalidValue
 * (stream NULL, flags with bits other than grStreamNonBlocking),
 * grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation; on a GPU, a CUDA error mapped to graphrt's.
 * Mirrors cudaStreamCreateWithFlags. */
GR_API grError_t grStreamCreateWithFlags(grStream_t *stream, unsigned int flags);

/* Destroys a stream. Returns at once; work already queued still completes,
 * then the stream's resources are released. Errors:
 * grErrorInvalidResourceHandle (a default stream: NULL, grStreamLegacy or
 * grStreamPerThread; a stream that is not live),
 * grErrorStreamCaptureUnsupported (the stream takes part in a capture,
 * having begun or joined it: end the capture first),
 * grErrorInitializationError (the runtime could not start). Deviation: CUDA
 * returns cudaSuccess for a stream that takes part in a capture. Mirrors
 * cudaStreamDestroy. */
GR_API grError_t grStreamDestroy(grStream_t stream);

/* Waits until all work queued on the stream has completed, running that
 * stream's work in the calling thread when no worker has started it.
 * Errors: grErrorStreamCaptureUnsupported (the stream takes part in a
 * capture, in any mode: that capture is invalidated),
 * grErrorStreamCaptureImplicit (the legacy stream, NULL or grStreamLegacy,
 * while a blocking stream takes part in a capture: the captures with a
 * blocking stream are invalidated); plus the mode errors and the stream
 * errors. Mirrors cudaStreamSynchronize. */
GR_API grError_t grStreamSynchronize(grStream_t stream);

/* grSuccess if all work on the stream has completed, grErrorNotReady
 * otherwise (not recorded as the last error, as in CUDA). Errors: as
 * grStreamSynchronize (a stream in a capture, the legacy stream while a
 * blocking stream captures, the mode errors, the stream errors). Mirrors
 * cudaStreamQuery. */
GR_API grError_t grStreamQuery(grStream_t stream);

/* Makes all work queued on 'stream' after this call wait for the work
 * captured by the event's most recent grEventRecord. An event never
 * recorded completes at once. A stream that is not capturing and waits
 * on an event recorded in a capture joins that capture (a fork); a
 * capturing stream waiting on an event of its own capture takes the
 * event's dependencies as well (a join). flags: grEventWaitDefault (0),
 * or grEventWaitExternal, which on a capturing stream adds an event wait
 * node instead of the fork/join rules (the launched graph waits there for
 * the event's latest record at the time the node runs); on a stream that
 * is not capturing it is refused with grErrorIllegalState, as CUDA 13
 * answers (docs/capture.md). Errors: grErrorInvalidValue (flags
 * with bits other than grEventWaitExternal; the event was last recorded in a
 * capture that has ended: a capturing stream's capture is invalidated),
 * grErrorInvalidResourceHandle (event not live),
 * grErrorStreamCaptureIsolation (a capturing stream waits on an event
 * recorded outside any capture: the capture is invalidated),
 * grErrorStreamCaptureMerge (the event was recorded in another capture:
 * both captures are invalidated), grErrorStreamCaptureUnsupported (the
 * legacy stream waits on an event recorded in a capture: that capture is
 * invalidated), grErrorMemoryAllocation; plus the capture errors of work
 * and the stream errors. Across devices: a GPU stream waits on a GPU event
 * of any GPU through the driver; between the CPU and a GPU the calling
 * thread waits for the event at the call (docs/devices.md). Mirrors
 * cudaStreamWaitEvent. */
GR_API grError_t grStreamWaitEvent(grStream_t stream, grEvent_t event, unsigned int flags);

/* Queues fn(userData) on the stream; it runs after all earlier work of the
 * stream and before all later work. On a capturing stream it adds a host
 * node instead. Errors: grErrorInvalidValue (fn NULL),
 * grErrorMemoryAllocation; plus the capture errors of work and the stream
 * errors. Mirrors cudaLaunchHostFunc. */
GR_API grError_t grLaunchHostFunc(grStream_t stream, grHostFn_t fn, void *userData);

/* How the device waits for a host function of grLaunchHostFunc_v2, with
 * CUDA's values (CUDA 13.2). Mirrors cudaHostTaskSyncMode. */
typedef enum grHostTaskSyncMode {
    grHostTaskBlocking = 0, /* the waiting side blocks until the function returns */
    grHostTaskSpinWait = 1  /* the waiting side spins: lower latency, busier */
} grHostTaskSyncMode;

/* grLaunchHostFunc with a sync mode: queues fn(userData) on the stream,
 * run after all earlier work of the stream and before all later work; on
 * a capturing stream it adds a host node. syncMode (a grHostTaskSyncMode)
 * only steers how the device waits for the function, never when it runs
 * or what it sees: on the CPU the function runs on a worker that the
 * stream's next work waits for either way, so both modes run alike; on a
 * GPU stream it goes to the driver as grLaunchHostFunc does
 * (cuLaunchHostFunc; the driver's own _v2 is not called, so the mode is
 * not passed on), and a captured host node does not keep the mode (its
 * parameters are grHostNodeParams). Errors: grErrorInvalidValue (fn NULL,
 * syncMode not a grHostTaskSyncMode), grErrorMemoryAllocation; plus the
 * capture errors of work and the stream errors. A refused call queues
 * nothing. Thread safety: any thread. Mirrors cudaLaunchHostFunc_v2
 * (CUDA 13.2). */
GR_API grError_t grLaunchHostFunc_v2(grStream_t stream, grHostFn_t fn, void *userData, unsigned int syncMode);

/* The callback of grStreamAddCallback: the stream handle as passed to it
 * (NULL, grStreamLegacy or grStreamPerThread stay what they were), the
 * stream's status and the user's pointer. Mirrors cudaStreamCallback_t. */
typedef void (*grStreamCallback_t)(grStream_t stream, grError_t status, void *userData);

/* Queues callback(stream, status, userData) on the stream: CUDA's older
 * form of grLaunchHostFunc, run the same way (after all earlier work of
 * the stream, before all later work, exactly once). status is the
 * stream's sticky asynchronous error when the callback runs, else
 * grSuccess; no operation of a CPU stream fails once queued, so it is
 * grSuccess there. Unlike grLaunchHostFunc it cannot be captured, as in
 * CUDA: on a capturing stream the capture is invalidated and nothing is
 * queued. On a GPU stream it goes to the driver as grLaunchHostFunc does
 * (cuLaunchHostFunc), so status is grSuccess and, after a device fault,
 * the callback does not run (CUDA's cudaStreamAddCallback would run it
 * with the error). Errors: grErrorInvalidValue (callback NULL, flags not
 * 0), grErrorStreamCaptureUnsupported (the stream is capturing: its
 * capture is invalidated), grErrorStreamCaptureInvalidated (its capture
 * was invalidated already), grErrorStreamCaptureImplicit (the legacy
 * stream while a blocking stream captures), grErrorMemoryAllocation;
 * plus the stream errors. A refused call queues nothing. Thread safety:
 * any thread. Mirrors cudaStreamAddCallback. */
GR_API grError_t grStreamAddCallback(grStream_t stream, grStreamCallback_t callback, void *userData,
                                     unsigned int flags);

/* The flags of grStreamAttachMemAsync, with CUDA's values. Mirror
 * cudaMemAttachGlobal, cudaMemAttachHost and cudaMemAttachSingle. */
#define grMemAttachGlobal 0x01u
#define grMemAttachHost 0x02u
#define grMemAttachSingle 0x04u

/* CUDA's stream association of managed memory, checked and otherwise a
 * no-op: on the CPU device every allocation is reachable by the host and
 * by every stream at every moment, which is what each of the three
 * associations grants on a device with concurrent managed access, so
 * there is nothing to change and nothing is queued (taking effect in
 * stream order is unobservable). devPtr is either inside one of
 * graphrt's allocations on the CPU (grMalloc, grMallocHost,
 * grMallocAsync, graph memory), which then plays the part of a managed
 * allocation: devPtr must be its start and length 0 or its whole size
 * (a pool block's is its class size, so pass 0), or untracked host
 * memory, which plays the part of pageable system memory: length must
 * not be 0 and the range must not reach into an allocation. flags is
 * exactly one of grMemAttachGlobal, grMemAttachHost, grMemAttachSingle;
 * grMemAttachSingle on the legacy stream (NULL, grStreamLegacy) is
 * refused, as in CUDA. On a capturing stream the capture is invalidated
 * (no graph node represents an association; docs/capture.md).
 * Errors: grErrorInvalidValue (devPtr NULL, flags not one of the three,
 * grMemAttachSingle on the legacy stream, devPtr inside an allocation
 * but not its start, a length other than 0 or the allocation's size,
 * length 0 for untracked memory, a range that reaches into an
 * allocation, memory of a GPU), grErrorNotSupported (a GPU stream:
 * graphrt allocates no managed memory on GPUs),
 * grErrorStreamCaptureUnsupported (the stream is capturing: its capture
 * is invalidated), grErrorStreamCaptureInvalidated (its capture was
 * invalidated already), grErrorStreamCaptureImplicit (the legacy stream
 * while a blocking stream captures); plus the stream errors. Thread
 * safety: any thread. Mirrors cudaStreamAttachMemAsync (in C, without
 * CUDA's C++ default arguments). */
GR_API grError_t grStreamAttachMemAsync(grStream_t stream, void *devPtr, size_t length, unsigned int flags);

/* The flags the stream was created with (0 for the default streams).
 * Errors: grErrorInvalidValue (flags NULL); plus the stream errors. Mirrors
 * cudaStreamGetFlags. */
GR_API grError_t grStreamGetFlags(grStream_t stream, unsigned int *flags);

/* Creates a stream as grStreamCreateWithFlags, with a priority: a lower
 * number is a higher priority, and a value outside the device's range
 * (grDeviceGetStreamPriorityRange) is clamped into it, as in CUDA. On the
 * CPU the priority is stored, reported by grStreamGetPriority, and given
 * to the kernel nodes a capture of the stream records (their
 * grLaunchAttributePriority, which an executable instantiated with
 * grGraphInstantiateFlagUseNodePriority honours); the workers run eager
 * work of every stream alike. On a GPU it is the driver's
 * (cuStreamCreateWithPriority). Errors: as grStreamCreateWithFlags.
 * Thread safety: any thread. Mirrors cudaStreamCreateWithPriority. */
GR_API grError_t grStreamCreateWithPriority(grStream_t *stream, unsigned int flags, int priority);

/* The current device's stream priorities: *leastPriority the lowest
 * priority (the default, 0) and *greatestPriority the highest; either
 * pointer may be NULL. The CPU's range is [-5, 0] (greatest -5, least 0),
 * the range CUDA reports on current GPUs; a GPU's is the driver's.
 * Errors: on a GPU, a CUDA error mapped to graphrt's. Thread safety: any
 * thread. Mirrors cudaDeviceGetStreamPriorityRange. */
GR_API grError_t grDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);

/* The stream's priority (clamped; 0 for the default streams). Errors:
 * grErrorInvalidValue (priority NULL); plus the stream errors. Thread
 * safety: any thread. Mirrors cudaStreamGetPriority. */
GR_API grError_t grStreamGetPriority(grStream_t hStream, int *priority);

/* A number unique to the stream in the process, never reused (the
 * default streams have theirs). Errors: grErrorInvalidValue (streamId
 * NULL); plus the stream errors. Thread safety: any thread. Mirrors
 * cudaStreamGetId. */
GR_API grError_t grStreamGetId(grStream_t hStream, unsigned long long *streamId);

/* The device the stream belongs to (0 for the CPU, 1..N for GPUs; the
 * default streams NULL and grStreamLegacy name the current device's).
 * Errors: grErrorInvalidValue (device NULL); plus the stream errors.
 * Thread safety: any thread. Mirrors cudaStreamGetDevice. */
GR_API grError_t grStreamGetDevice(grStream_t hStream, int *device);

/* A stream attribute (the grLaunchAttributeID values valid for streams:
 * AccessPolicyWindow, SynchronizationPolicy, Priority, MemSyncDomainMap,
 * MemSyncDomain, NvlinkUtilCentricScheduling): the value last set, else
 * its default (zero; SynchronizationPolicy grSyncPolicyAuto; Priority the
 * stream's). Errors: grErrorInvalidValue (value_out NULL, attr not valid
 * for streams); plus the stream errors. Thread safety: any thread.
 * Mirrors cudaStreamGetAttribute. */
GR_API grError_t grStreamGetAttribute(grStream_t hStream, grStreamAttrID attr, grStreamAttrValue *value_out);

/* Sets a stream attribute for the work issued after the call. Checked
 * and stored; Priority is clamped and becomes the stream's priority (see
 * grStreamCreateWithPriority); the others steer GPU hardware and change
 * nothing on the CPU, nor (not passed to the driver) on a GPU stream.
 * Errors: grErrorInvalidValue (value NULL, attr not valid for streams, a
 * value out of range: a refused call changes nothing); plus the stream
 * errors. Thread safety: any thread. Mirrors cudaStreamSetAttribute. */
GR_API grError_t grStreamSetAttribute(grStream_t hStream, grStreamAttrID attr,
                                      const grStreamAttrValue *value);

/* Gives dst every stream attribute of src (priority included). Errors:
 * grErrorInvalidValue (streams of different devices); plus the stream
 * errors. Thread safety: any thread. Mirrors cudaStreamCopyAttributes. */
GR_API grError_t grStreamCopyAttributes(grStream_t dst, grStream_t src);

/* ====================================================================== */
/* Events                                                                 */
/* ====================================================================== */

#define grEventDefault 0x00u
#define grEventBlockingSync 0x01u
#define grEventDisableTiming 0x02u

/* Flags of grEventRecordWithFlags and grStreamWaitEvent. Mirror
 * cudaEventRecordDefault/External and cudaEventWaitDefault/External. */
#define grEventRecordDefault 0x00u
#define grEventRecordExternal 0x01u
#define grEventWaitDefault 0x00u
#define grEventWaitExternal 0x01u

/* Creates an event with default flags. Errors: grErrorInvalidValue (event
 * NULL), grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation. Mirrors cudaEventCreate. */
GR_API grError_t grEventCreate(grEvent_t *event);

/* Creates an event. grEventDisableTiming makes grEventElapsedTime refuse it
 * (records take no timestamp). grEventBlockingSync is accepted; waiting
 * threads always help run the work they wait for, then sleep. Errors:
 * grErrorInvalidValue (event NULL, flags with bits other than
 * grEventBlockingSync and grEventDisableTiming), grErrorInitializationError
 * (the runtime could not start), grErrorMemoryAllocation. Mirrors
 * cudaEventCreateWithFlags. */
GR_API grError_t grEventCreateWithFlags(grEvent_t *event, unsigned int flags);

/* Captures in the event the work queued on the stream so far. Re-recording
 * makes the event refer to the new record only. On a capturing stream the
 * event names the stream's place in the capture instead (no node is added),
 * for grStreamWaitEvent to fork and join. An event belongs to the device
 * current at its creation and is recorded on streams of that device only.
 * Errors: grErrorInvalidResourceHandle (event not live; stream of another
 * device), grErrorMemoryAllocation; plus the capture errors of work and the
 * stream errors. Mirrors cudaEventRecord. */
GR_API grError_t grEventRecord(grEvent_t event, grStream_t stream);

/* grEventRecord with flags: grEventRecordDefault (0) is grEventRecord;
 * grEventRecordExternal on a capturing stream adds an event record node
 * for the event (depending on the stream's current work, as any captured
 * operation: the launched graph records the event, for waiters outside
 * the graph), and leaves the event's role in the capture as it was (it
 * does not become a fork or join point). Errors: grErrorInvalidValue
 * (flags with bits other than grEventRecordExternal), grErrorIllegalState
 * (grEventRecordExternal on a stream that is not capturing, as CUDA 13
 * answers: nothing recorded); otherwise those of
 * grEventRecord, and of captured work for a capture's record node.
 * Thread safety: as grEventRecord. Mirrors cudaEventRecordWithFlags
 * (docs/capture.md). */
GR_API grError_t grEventRecordWithFlags(grEvent_t event, grStream_t stream, unsigned int flags);

/* grSuccess if the work of the event's latest record has completed (or it
 * was never recorded), grErrorNotReady otherwise (not recorded as the last
 * error, as in CUDA). Errors: grErrorInvalidResourceHandle (event not
 * live), grErrorCapturedEvent (the latest record was made in a capture in
 * progress, in any mode: that capture is invalidated), grErrorInvalidValue
 * (the latest record was made in a capture that has ended: record the event
 * again outside a capture); plus the mode errors. Mirrors cudaEventQuery. */
GR_API grError_t grEventQuery(grEvent_t event);

/* Waits until the work of the event's latest record has completed. Errors:
 * as grEventQuery, without grErrorNotReady (grErrorInvalidResourceHandle,
 * grErrorCapturedEvent, grErrorInvalidValue, the mode errors). Mirrors
 * cudaEventSynchronize. */
GR_API grError_t grEventSynchronize(grEvent_t event);

/* Milliseconds between two completed records. An event recorded by an
 * event record node of a graph holds the time its launch ended. Errors:
 * grErrorInvalidValue (ms NULL; either event was last recorded in a capture
 * that has ended), grErrorInvalidResourceHandle (either event not live,
 * created with grEventDisableTiming, or never recorded), grErrorNotReady
 * (either record has not completed; recorded as the last error, with a
 * detail naming the event: unlike the queries, this call is not a poll).
 * Not refused by the capture modes. Mirrors cudaEventElapsedTime. */
GR_API grError_t grEventElapsedTime(float *ms, grEvent_t start, grEvent_t end);

/* Destroys the event. Returns at once; a pending record still completes,
 * and the graph nodes and executables that name the event keep it alive.
 * Errors: grErrorInvalidResourceHandle (event not live). Mirrors
 * cudaEventDestroy. */
GR_API grError_t grEventDestroy(grEvent_t event);

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
 * grErrorInvalidDeviceFunction (kernel NULL or not live). */
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
 * mapped to graphrt's, CUDA's name in the detail. Mirrors cudaLaunchKernel
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

/* ====================================================================== */
/* Memory                                                                 */
/* ====================================================================== */

/* Allocates 'size' bytes (256-aligned) of the calling thread's current
 * device (on a GPU, cuMemAlloc), tracked by graphrt, so that copies and
 * memsets that run past its end are refused. size 0 gives NULL and
 * grSuccess, as in CUDA. Potentially unsafe during capture (see
 * grStreamCaptureMode), even for size 0. Errors: grErrorInvalidValue
 * (devPtr NULL), grErrorMemoryAllocation (more than the host's physical
 * memory, or the host cannot provide it; on a GPU, the driver's
 * CUDA_ERROR_OUT_OF_MEMORY, named in the detail); plus the mode errors.
 * Mirrors cudaMalloc. */
GR_API grError_t grMalloc(void **devPtr, size_t size);

/* Frees a grMalloc allocation after the device is idle, as in CUDA. Memory
 * from grMallocAsync / grMallocFromPoolAsync, and a graph allocation that
 * outlived its launch, are freed the same way, as cudaFree frees them. NULL
 * is a no-op. Potentially unsafe during capture (see grStreamCaptureMode).
 * Errors: grErrorInvalidValue (a pointer no graphrt allocator returned,
 * freed already, inside an allocation instead of at its base, from
 * grMallocHost, a graph allocation that is not allocated now, or freed by
 * another thread while this call waited; nothing is freed),
 * grErrorInitializationError (pool memory: the runtime could not start),
 * grErrorMemoryAllocation (a block of a destroyed pool: out of memory
 * queuing its release); plus the mode errors. Mirrors cudaFree. */
GR_API grError_t grFree(void *devPtr);

/* Allocates host memory, tracked as grMalloc's is; size 0 gives NULL.
 * Where a GPU exists it is pinned (cuMemHostAlloc, portable to every
 * GPU), as CUDA's; otherwise plain memory.
 * Potentially unsafe during capture (see grStreamCaptureMode). Errors: as
 * grMalloc (grErrorInvalidValue for ptr NULL, grErrorMemoryAllocation, the
 * mode errors). Mirrors cudaMallocHost. */
GR_API grError_t grMallocHost(void **ptr, size_t size);

/* Frees grMallocHost memory after the device is idle. NULL is a no-op.
 * Potentially unsafe during capture (see grStreamCaptureMode). Errors:
 * grErrorInvalidValue (a pointer grMallocHost did not return, freed
 * already, inside an allocation instead of at its base, or freed by another
 * thread while this call waited; nothing is freed); plus the mode errors.
 * Mirrors cudaFreeHost. */
GR_API grError_t grFreeHost(void *ptr);

/* Copies count bytes; synchronises like CUDA's (waits for the legacy
 * stream's work first), except that a copy of 0 bytes does not wait. Any
 * grMemcpyKind is accepted: the direction comes from the pointers (a host
 * copy on the CPU; the driver's copy where GPU memory is involved, see
 * docs/devices.md). Not refused by the
 * capture modes. Errors: grErrorInvalidMemcpyDirection (kind not a
 * grMemcpyKind), grErrorInvalidValue (dst or src NULL with count > 0; a
 * range that wraps around the address space, runs past the end of a
 * graphrt allocation, or starts outside the allocations and reaches into
 * one), grErrorStreamCaptureImplicit (a blocking stream takes part in a
 * capture: the captures with a blocking stream are invalidated),
 * grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation. Mirrors cudaMemcpy. */
GR_API grError_t grMemcpy(void *dst, const void *src, size_t count, grMemcpyKind kind);

/* Queues a copy on the stream; on a capturing stream it adds a memcpy node
 * instead (none for 0 bytes). Errors: grErrorInvalidMemcpyDirection and
 * grErrorInvalidValue as grMemcpy, grErrorMemoryAllocation; plus the
 * capture errors of work (of which a copy of 0 bytes can return only
 * grErrorStreamCaptureInvalidated) and the stream errors. Mirrors
 * cudaMemcpyAsync. */
GR_API grError_t grMemcpyAsync(void *dst, const void *src, size_t count, grMemcpyKind kind,
                               grStream_t stream);

/* Sets count bytes to (unsigned char)value, synchronously (as grMemcpy:
 * after the legacy stream's work; 0 bytes do not wait). Not refused by
 * the capture modes. Errors: grErrorInvalidValue (devPtr NULL with
 * count > 0; a range refused as grMemcpy refuses one),
 * grErrorStreamCaptureImplicit (as grMemcpy), grErrorInitializationError
 * (the runtime could not start), grErrorMemoryAllocation. Mirrors
 * cudaMemset. */
GR_API grError_t grMemset(void *devPtr, int value, size_t count);

/* Queues a memset on the stream; on a capturing stream it adds a memset
 * node instead (none for 0 bytes). Errors: grErrorInvalidValue as grMemset,
 * grErrorMemoryAllocation; plus the capture errors of work (of which a
 * memset of 0 bytes can return only grErrorStreamCaptureInvalidated) and
 * the stream errors. Mirrors cudaMemsetAsync. */
GR_API grError_t grMemsetAsync(void *devPtr, int value, size_t count, grStream_t stream);

/* Free and total memory of the calling thread's current device, in bytes.
 * On the CPU (device 0): the host's memory as /proc/meminfo tells it
 * (MemAvailable, which counts reclaimable caches as free, and MemTotal),
 * or sysconf's available and physical pages where /proc is not mounted;
 * the figures are the system's, not a limit set on the process (cgroups,
 * ulimit). On a GPU: the driver's cuMemGetInfo in that device's primary
 * context. *freeBytes <= *totalBytes. Errors: grErrorInvalidValue (either
 * NULL; nothing is written), grErrorNotSupported (the host's memory cannot
 * be read), grErrorCallRequiresNewerDriver (the driver lacks
 * cuMemGetInfo_v2), a CUDA error mapped to
 * graphrt's with CUDA's name in the detail. Thread safety: any thread.
 * Mirrors cudaMemGetInfo. */
GR_API grError_t grMemGetInfo(size_t *freeBytes, size_t *totalBytes);

/* The kinds of memory grPointerGetAttributes tells apart (CUDA's
 * cudaMemoryType, same values). */
typedef enum grMemoryType {
    grMemoryTypeUnregistered = 0, /* host memory graphrt and the driver do not know */
    grMemoryTypeHost = 1,         /* grMallocHost, or host memory the driver pinned */
    grMemoryTypeDevice = 2,       /* grMalloc, pools, graph allocations, cuMemAlloc */
    grMemoryTypeManaged = 3       /* the driver's managed memory (cudaMallocManaged) */
} grMemoryType;

/* The device number grPointerGetAttributes gives unregistered memory
 * (CUDA's cudaInvalidDeviceId). */
#define grInvalidDeviceId (-2)

/* What grPointerGetAttributes tells of a pointer: CUDA's
 * cudaPointerAttributes fields, with graphrt's device numbers (0 the CPU,
 * 1..N the GPUs). */
typedef struct grPointerAttributes {
    grMemoryType type;
    int device;          /* where the memory lives or was allocated */
    void *devicePointer; /* the address a device uses, or NULL */
    void *hostPointer;   /* the address the host uses, or NULL */
} grPointerAttributes;

/* Fills *attributes for ptr, which may point anywhere inside an
 * allocation (the pointers returned are ptr itself: addresses are unified).
 *   - graphrt's allocations, known to its tracker: grMalloc, a pool
 *     (grMallocAsync, grMallocFromPoolAsync) or a graph allocation is
 *     grMemoryTypeDevice, device the one it was allocated on; a GPU's has
 *     devicePointer ptr and hostPointer NULL; the CPU's (device 0) is host
 *     memory, so hostPointer is ptr too (CUDA has no such device).
 *     grMallocHost memory is grMemoryTypeHost with both pointers ptr and
 *     device 0 when it is plain memory, or 1 (the first GPU, whose context
 *     holds graphrt's pinned memory) when it is pinned (grHostAlloc's
 *     too); grMallocManaged memory is grMemoryTypeManaged of device 0;
 *   - a range registered with grHostRegister is grMemoryTypeHost of
 *     device 0 with both pointers ptr;
 *   - other pointers, once a GPU is in use, are asked of the driver
 *     (cuPointerGetAttribute): device, pinned (grMemoryTypeHost) or managed
 *     memory it knows, with its device and aliases;
 *   - anything else, NULL included, is grMemoryTypeUnregistered with
 *     device grInvalidDeviceId, devicePointer NULL and hostPointer ptr:
 *     grSuccess, as CUDA 11 and later answer (older CUDA returned
 *     cudaErrorInvalidValue).
 * Memory freed since is what its address now is: usually unregistered.
 * Errors: grErrorInvalidValue (attributes NULL). Thread safety: any thread;
 * the answer describes the allocation live during the call. Mirrors
 * cudaPointerGetAttributes. */
GR_API grError_t grPointerGetAttributes(grPointerAttributes *attributes, const void *ptr);

/* The flags of grMallocManaged (grMemAttachGlobal and grMemAttachHost,
 * defined with grStreamAttachMemAsync above). */

/* Allocates 'size' bytes of managed memory: memory the host and every
 * device reach through the same pointer. On the CPU (device 0) all device
 * memory is host memory, so managed memory is a grMalloc allocation
 * (256-aligned, tracked, freed with grFree or grFreeAsync, reported by
 * grPointerGetAttributes as grMemoryTypeManaged of device 0, usable by
 * grStreamAttachMemAsync). flags: grMemAttachGlobal (any stream may use
 * it) or grMemAttachHost (CUDA: devices without concurrent managed access
 * need grStreamAttachMemAsync first; the CPU has concurrent access, so it
 * changes nothing). Unlike grMalloc, size 0 is refused, as in CUDA.
 * Potentially unsafe during capture, as grMalloc. A GPU as the current
 * device is refused with grErrorNotSupported (cuMemAllocManaged is not
 * called by graphrt's CUDA backend). Errors: grErrorInvalidValue (devPtr
 * NULL, size 0, flags not exactly one of the two), grErrorNotSupported (a
 * GPU), grErrorMemoryAllocation (as grMalloc); plus the mode errors.
 * Thread safety: any thread. Mirrors cudaMallocManaged (in C, without
 * CUDA's C++ default for flags). */
GR_API grError_t grMallocManaged(void **devPtr, size_t size, unsigned int flags);

/* The flags of grHostAlloc and grHostGetFlags, with CUDA's values. */
#define grHostAllocDefault 0x00u
#define grHostAllocPortable 0x01u
#define grHostAllocMapped 0x02u
#define grHostAllocWriteCombined 0x04u

/* Allocates 'size' bytes of host memory as grMallocHost does (pinned by
 * the driver where a GPU exists, plain memory otherwise; tracked; freed
 * with grFreeHost), remembering 'flags' for grHostGetFlags. Every flag
 * is accepted and has its effect on a system with unified addressing,
 * which graphrt's is: the memory is portable to every device and mapped
 * (grHostGetDevicePointer gives its device address, the pointer itself);
 * write-combining is a hint for PCIe transfers that the CPU device
 * ignores. size 0 gives NULL, as grMallocHost. Potentially unsafe during
 * capture. Errors: grErrorInvalidValue (pHost NULL, flags with bits
 * outside the four), grErrorMemoryAllocation; plus the mode errors.
 * Thread safety: any thread. Mirrors cudaHostAlloc. */
GR_API grError_t grHostAlloc(void **pHost, size_t size, unsigned int flags);

/* The device address of mapped host memory: pHost inside a grHostAlloc or
 * grMallocHost allocation, or inside a range registered with
 * grHostRegister. Addresses are unified, so *pDevice is pHost itself, as
 * CUDA returns where every device can use host pointers for registered
 * memory. Errors: grErrorInvalidValue (pDevice NULL, flags not 0, pHost
 * in no such allocation or range: plain host memory, grMalloc memory).
 * Thread safety: any thread. Mirrors cudaHostGetDevicePointer. */
GR_API grError_t grHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);

/* The flags of the host allocation holding pHost: what grHostAlloc was
 * given; grMallocHost memory reports grHostAllocDefault (CUDA's
 * cudaMallocHost is cudaHostAlloc with the default flags). Errors:
 * grErrorInvalidValue (pFlags NULL, pHost in no grHostAlloc or
 * grMallocHost allocation). Thread safety: any thread. Mirrors
 * cudaHostGetFlags. */
GR_API grError_t grHostGetFlags(unsigned int *pFlags, void *pHost);

/* The flags of grHostRegister, with CUDA's values. */
#define grHostRegisterDefault 0x00u
#define grHostRegisterPortable 0x01u
#define grHostRegisterMapped 0x02u
#define grHostRegisterIoMemory 0x04u
#define grHostRegisterReadOnly 0x08u

/* Registers [ptr, ptr + size), host memory the application allocated, as
 * pinned host memory: from now on grPointerGetAttributes reports it as
 * grMemoryTypeHost and grHostGetDevicePointer gives its device address
 * (the pointer itself). On the CPU device nothing else changes (every
 * device reaches host memory already); where GPUs exist the range is not
 * page-locked with the driver (cuMemHostRegister is not called by
 * graphrt's CUDA backend), so copies to and from a GPU stay those of
 * pageable memory: correct, at pageable speed. grHostRegisterIoMemory
 * (memory-mapped I/O of another PCIe device) is refused with
 * grErrorNotSupported: graphrt cannot map device I/O space. Errors:
 * grErrorInvalidValue (ptr NULL, size 0, flags outside the four, a range
 * that wraps, or reaches into memory graphrt allocated other than
 * grMallocHost / grHostAlloc memory), grErrorHostMemoryAlreadyRegistered
 * (the range overlaps a registered range, or lies in grMallocHost /
 * grHostAlloc memory, which is pinned already), grErrorNotSupported
 * (grHostRegisterIoMemory), grErrorMemoryAllocation (no memory to record
 * the range). A refused call registers nothing. Thread safety: any
 * thread. Mirrors cudaHostRegister. */
GR_API grError_t grHostRegister(void *ptr, size_t size, unsigned int flags);

/* Unregisters the range grHostRegister registered at ptr (its start).
 * Errors: grErrorInvalidValue (ptr NULL), grErrorHostMemoryNotRegistered
 * (no range registered starts at ptr). Thread safety: any thread.
 * Mirrors cudaHostUnregister. */
GR_API grError_t grHostUnregister(void *ptr);

/* ====================================================================== */
/* Stream-ordered memory pools                                            */
/* ====================================================================== */

/* Managed is named so that the location-based pool functions can answer
 * it (grErrorNotSupported: graphrt has no managed memory). */
typedef enum grMemAllocationType {
    grMemAllocationTypeInvalid = 0,
    grMemAllocationTypePinned = 1,
    grMemAllocationTypeManaged = 2
} grMemAllocationType;

typedef enum grMemAllocationHandleType {
    grMemHandleTypeNone = 0
} grMemAllocationHandleType;

/* A location is a device: {grMemLocationTypeDevice, d} with graphrt's
 * numbering (0 the CPU, 1..N the GPUs). CUDA's host locations are named
 * (with CUDA's values) so that the functions taking a location can answer
 * them: graphrt has no host pools (the CPU's pool is device 0's). */
typedef enum grMemLocationType {
    grMemLocationTypeInvalid = 0,
    grMemLocationTypeNone = 0,
    grMemLocationTypeDevice = 1,
    grMemLocationTypeHost = 2,
    grMemLocationTypeHostNuma = 3,
    grMemLocationTypeHostNumaCurrent = 4
} grMemLocationType;

typedef struct grMemLocation {
    grMemLocationType type;
    int id;
} grMemLocation;

typedef enum grMemAccessFlags {
    grMemAccessFlagsProtNone = 0,
    grMemAccessFlagsProtRead = 1,
    grMemAccessFlagsProtReadWrite = 3
} grMemAccessFlags;

typedef struct grMemAccessDesc {
    grMemLocation location;
    grMemAccessFlags flags;
} grMemAccessDesc;

typedef struct grMemPoolProps {
    grMemAllocationType allocType;         /* grMemAllocationTypePinned */
    grMemAllocationHandleType handleTypes; /* grMemHandleTypeNone */
    grMemLocation location;                /* {Device, 0} */
    void *win32SecurityAttributes;         /* unused, must be NULL */
    size_t maxSize;                        /* 0: no limit */
    unsigned short usage;
    unsigned char reserved[54];
} grMemPoolProps;

typedef enum grMemPoolAttr {
    grMemPoolReuseFollowEventDependencies = 1, /* int */
    grMemPoolReuseAllowOpportunistic,          /* int */
    grMemPoolReuseAllowInternalDependencies,   /* int */
    grMemPoolAttrReleaseThreshold,             /* uint64_t */
    grMemPoolAttrReservedMemCurrent,           /* uint64_t, read only */
    grMemPoolAttrReservedMemHigh,              /* uint64_t, set to 0 resets */
    grMemPoolAttrUsedMemCurrent,               /* uint64_t, read only */
    grMemPoolAttrUsedMemHigh,                  /* uint64_t, set to 0 resets */
    /* Properties of the pool, read only (CUDA 13's values): */
    grMemPoolAttrAllocationType = 9,      /* grMemAllocationType */
    grMemPoolAttrExportHandleTypes = 10,  /* grMemAllocationHandleType */
    grMemPoolAttrLocationId = 11,         /* int: the device */
    grMemPoolAttrLocationType = 12,       /* grMemLocationType */
    grMemPoolAttrMaxPoolSize = 13,        /* uint64_t: maxSize, 0 for no limit */
    grMemPoolAttrHwDecompressEnabled = 14 /* int: 0 (no decompression engine) */
} grMemPoolAttr;

/* ====================================================================== */
/* Stream-ordered memory pools and graph memory                           */
/* ====================================================================== */

/*
 * A pool hands out memory in stream order: grMallocAsync returns the
 * address at once, and the memory may be used by work queued after the
 * call on that stream (or ordered after it by events); grFreeAsync gives
 * it back once the work queued before it on its stream has run. A block
 * freed on stream A is handed to an allocation on another stream B only
 * when that is safe: B's work follows the free through event waits
 * (grMemPoolReuseFollowEventDependencies), A's work up to the free has
 * already completed (grMemPoolReuseAllowOpportunistic), or the pool makes
 * B wait for it (grMemPoolReuseAllowInternalDependencies). All three are
 * on by default, as in CUDA. Blocks come in size classes (four per power
 * of two, at least 256 bytes, 256-aligned); the pool's counters and the
 * bounds checks of copies use the class size. Freed blocks are poisoned
 * for AddressSanitizer from the moment their free takes effect.
 * docs/memory-pools.md has the concepts, an example and the deviations.
 *
 * Thread safety: every function of this section may be called from any
 * thread, and one pool may be used by many threads and streams at once,
 * except the functions of graph allocation and free nodes
 * (grGraphAddMemAllocNode, grGraphAddMemFreeNode,
 * grGraphMemAllocNodeGetParams, grGraphMemFreeNodeGetParams), which use a
 * graph and follow the rule of graphs: not with other calls on the same
 * graph.
 */

/* Creates a pool. poolProps: allocType grMemAllocationTypePinned,
 * handleTypes grMemHandleTypeNone, location {grMemLocationTypeDevice, d}
 * for an existing device d (0: the CPU, a pool of graphrt's own; a GPU:
 * one of the driver's pools, cuMemPoolCreate), win32SecurityAttributes
 * NULL, reserved bytes 0, maxSize 0 for no limit or the most bytes the
 * pool may reserve. Attributes start as CUDA's: every reuse policy on,
 * release threshold 0. Errors: grErrorInvalidValue (memPool or poolProps
 * NULL, another allocType, a location type other than
 * grMemLocationTypeDevice, a location.id that names no device (CUDA 13's
 * code for it), win32SecurityAttributes not NULL, a reserved byte not 0),
 * grErrorNotSupported (handleTypes other than grMemHandleTypeNone),
 * grErrorMemoryAllocation; on a GPU, the driver's errors.
 * Mirrors cudaMemPoolCreate. */
GR_API grError_t grMemPoolCreate(grMemPool_t *memPool, const grMemPoolProps *poolProps);

/* Destroys a pool. Blocks still allocated stay valid and go back to the
 * OS when freed; the handle is refused from now on. Destroying the device's
 * current pool makes the default pool current. Errors: grErrorInvalidValue
 * (memPool NULL or not live, the default pool, which cannot be destroyed).
 * Mirrors cudaMemPoolDestroy. Deviation, on the CPU: returns after the
 * frees already queued into the pool have taken effect, where CUDA (and a
 * GPU's pool) returns at once. */
GR_API grError_t grMemPoolDestroy(grMemPool_t memPool);

/* The device's default pool (made on first use; a GPU's is the driver's
 * default pool of the device). Errors: grErrorInvalidValue (memPool
 * NULL), grErrorInvalidDevice (device names no device),
 * grErrorMemoryAllocation (creating the default pool). Mirrors
 * cudaDeviceGetDefaultMemPool. */
GR_API grError_t grDeviceGetDefaultMemPool(grMemPool_t *memPool, int device);

/* Makes memPool the pool grMallocAsync allocates from on the device's
 * streams, for every thread (on a GPU, cuDeviceSetMemPool). Errors:
 * grErrorInvalidDevice (device names no device), grErrorInvalidValue
 * (memPool NULL or not live, or a pool of another device). Mirrors
 * cudaDeviceSetMemPool. */
GR_API grError_t grDeviceSetMemPool(int device, grMemPool_t memPool);

/* The pool grMallocAsync allocates from (the default pool unless
 * grDeviceSetMemPool chose another). Errors: as
 * grDeviceGetDefaultMemPool. Mirrors cudaDeviceGetMemPool. */
GR_API grError_t grDeviceGetMemPool(grMemPool_t *memPool, int device);

/*
 * The location-based forms of the three above (CUDA 13). location names
 * a device, {grMemLocationTypeDevice, d} (d: 0 the CPU, 1..N a GPU), and
 * type is grMemAllocationTypePinned, the only kind of pool graphrt has;
 * they then act as grDeviceGetDefaultMemPool, grDeviceGetMemPool and
 * grDeviceSetMemPool on device d. What CUDA accepts but graphrt lacks is
 * grErrorNotSupported: type grMemAllocationTypeManaged (with a location
 * CUDA accepts for it: None, Device, Host, HostNuma), and the host
 * locations grMemLocationTypeHost and grMemLocationTypeHostNuma with
 * grMemAllocationTypePinned (graphrt has no host pools). What CUDA refuses
 * is grErrorInvalidValue: another type, or another location type (None,
 * HostNumaCurrent, any other value) with grMemAllocationTypePinned. A
 * refused call changes nothing. Thread safety: any thread.
 */

/* The default pool of the location's device for allocations of 'type'.
 * Errors: grErrorInvalidValue (memPool or location NULL; a type or
 * location CUDA refuses; location->id naming no device, CUDA 13's code),
 * grErrorNotSupported (managed memory, a host location; CUDA 13 has
 * them), grErrorMemoryAllocation (creating the default pool); on a GPU,
 * the driver's errors. Mirrors cudaMemGetDefaultMemPool. */
GR_API grError_t grMemGetDefaultMemPool(grMemPool_t *memPool, grMemLocation *location,
                                        grMemAllocationType type);

/* The current pool of the location's device (its default pool unless
 * grMemSetMemPool or grDeviceSetMemPool chose another). Errors: as
 * grMemGetDefaultMemPool. Mirrors cudaMemGetMemPool. */
GR_API grError_t grMemGetMemPool(grMemPool_t *memPool, grMemLocation *location, grMemAllocationType type);

/* Makes memPool the current pool of the location's device, as
 * grDeviceSetMemPool(location->id, memPool). The location must be the
 * pool's own. Errors: grErrorInvalidValue (location NULL; a type or
 * location CUDA refuses; memPool NULL or not live; a pool whose location
 * is not 'location'; location->id naming no device), grErrorNotSupported
 * (managed memory, a host location); on a GPU, the driver's errors.
 * Mirrors cudaMemSetMemPool. */
GR_API grError_t grMemSetMemPool(grMemLocation *location, grMemAllocationType type, grMemPool_t memPool);

/* Allocates size bytes from the device's current pool, in stream order.
 * The address is returned at once; the memory may be used by work queued
 * on hStream after this call, or ordered after it. size 0 gives NULL and
 * grSuccess, as grMalloc. On a capturing stream it adds a memory
 * allocation node to the capture's graph and returns the node's address
 * (an allocation of the capturing stream's device). Errors: grErrorInvalidValue (devPtr NULL), grErrorMemoryAllocation (more
 * than 2^47 bytes, the host or the pool's maxSize cannot provide it, out of
 * memory queuing the pool's wait for another stream's free; on a capturing
 * stream, no address space left to reserve); plus the capture errors of
 * work and the stream errors. Mirrors cudaMallocAsync. */
GR_API grError_t grMallocAsync(void **devPtr, size_t size, grStream_t hStream);

/* As grMallocAsync, from memPool, which must be a pool of the stream's
 * device (a difference: CUDA also takes another device's pool). On a
 * capturing stream the node's memory is graph memory, as grMallocAsync's,
 * whatever memPool. Errors: as grMallocAsync, plus grErrorInvalidValue
 * (memPool NULL or not live, or a pool of another device than the
 * stream's). Mirrors cudaMallocFromPoolAsync. */
GR_API grError_t grMallocFromPoolAsync(void **ptr, size_t size, grMemPool_t memPool, grStream_t stream);

/* Frees memory from grMallocAsync / grMallocFromPoolAsync (or from a
 * graph allocation node whose graph did not free it) in stream order: the
 * memory may be reused once the work queued on hStream before this call
 * has run. grMalloc memory is freed too, as CUDA 13 does: it is no longer
 * graphrt memory from this call on, and goes back when the stream reaches
 * the free. NULL is a no-op (the stream is still checked). On a capturing
 * stream it adds a memory free node, whose rules are those of
 * grGraphAddMemFreeNode. Errors: grErrorInvalidValue (a pointer that is
 * not the base of a live pool or grMalloc allocation: freed already, never
 * allocated, grMallocHost memory, inside a block; a graph allocation that
 * is not allocated now; on a capturing stream, a pointer that
 * grGraphAddMemFreeNode refuses for the capture's graph, which leaves the
 * capture valid; nothing is freed), grErrorMemoryAllocation; plus the
 * capture errors of work and the stream errors. Mirrors cudaFreeAsync. */
GR_API grError_t grFreeAsync(void *devPtr, grStream_t hStream);

/* Gives unused memory of the pool back to the OS until it reserves at
 * most minBytesToKeep bytes, or no more can be given back: blocks whose
 * frees have not taken effect yet, and allocated blocks, stay (a GPU's
 * pool: cuMemPoolTrimTo). Errors: grErrorInvalidValue (memPool NULL or
 * not live). Mirrors cudaMemPoolTrimTo. */
GR_API grError_t grMemPoolTrimTo(grMemPool_t memPool, size_t minBytesToKeep);

/* Sets an attribute; value points to an int (the reuse policies: 0 off,
 * else on) or a uint64_t (the others). grMemPoolAttrReleaseThreshold: at
 * each synchronisation (stream, event or device synchronize, grFree) the
 * pool gives back to the OS the unused memory above this many reserved
 * bytes. The high-water marks can only be reset, by setting 0 (they then
 * equal the current value); the current values and the pool's properties
 * (grMemPoolAttrAllocationType to grMemPoolAttrHwDecompressEnabled) are
 * read only, as CUDA 13 documents them. Errors: grErrorInvalidValue
 * (memPool NULL or not live, value NULL, a current value or a property,
 * a high-water mark set to anything but 0, attr not a grMemPoolAttr). A
 * GPU's pool keeps its attributes in the driver
 * (cuMemPoolSetAttribute / cuMemPoolGetAttribute, after the same checks).
 * Mirrors cudaMemPoolSetAttribute. */
GR_API grError_t grMemPoolSetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value);

/* Reads an attribute into *value (of the type its enumerator names).
 * Reserved memory is what the pool holds from the OS, used memory what is
 * allocated from it (both in class sizes). The properties: allocation
 * type grMemAllocationTypePinned, export handle types grMemHandleTypeNone,
 * location {grMemLocationTypeDevice, the pool's device},
 * grMemPoolAttrMaxPoolSize the maxSize the pool was created with (0: no
 * limit; the default pool has none), grMemPoolAttrHwDecompressEnabled 0.
 * A GPU's pool answers them through the driver, which needs CUDA 13's
 * (an older driver's refusal is passed on). Errors: grErrorInvalidValue
 * (memPool NULL or not live, value NULL, attr not a grMemPoolAttr). Mirrors
 * cudaMemPoolGetAttribute. */
GR_API grError_t grMemPoolGetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value);

/* Sets which devices may reach the pool's memory: each descriptor gives
 * one device location, {grMemLocationTypeDevice, d}, its access flags
 * (grMemAccessFlagsProtNone, ProtRead or ProtReadWrite). The pool's own
 * device always has read-write access, which cannot be revoked, as in
 * CUDA: a descriptor giving it less is refused, one giving it read-write
 * changes nothing. Descriptors apply in order (a later one for the same
 * device wins). The flags of another device are stored and reported by
 * grMemPoolGetAccess; they change no access on the CPU, where every
 * device of graphrt's pools is host memory. A pool of a GPU hands the
 * descriptors of other GPUs to the driver (cuMemPoolSetAccess, which
 * maps the pool's memory for them or refuses, e.g. without peer
 * capability) and stores the CPU's. All descriptors are checked before
 * any applies: a refused call changes nothing (a GPU pool's driver
 * refusal leaves the CPU's flags as they were). count 0 does nothing.
 * Errors (CUDA 13's codes, tests/probes/memory.cu): grErrorInvalidValue
 * (memPool NULL or not live, descList NULL with count > 0, a location type
 * other than grMemLocationTypeDevice, flags not one of the three),
 * grErrorInvalidDevice (no access for the pool's own device; a location id
 * naming no device), grErrorNotSupported (read-only access for the pool's
 * own device; a host location); on a GPU, the driver's errors. Thread safety: any thread; concurrent calls
 * on one pool apply each descriptor whole. Mirrors cudaMemPoolSetAccess. */
GR_API grError_t grMemPoolSetAccess(grMemPool_t memPool, const grMemAccessDesc *descList, size_t count);

/* The access the pool grants the location's device: read-write for the
 * pool's own device, else the flags grMemPoolSetAccess last set
 * (grMemAccessFlagsProtNone until then; for another GPU of a GPU pool,
 * the driver's answer, cuMemPoolGetAccess). A host location is answered
 * as CUDA 13 answers it for a GPU's pool, no access, and with read-write
 * for a CPU pool (host memory). Errors: grErrorInvalidValue (flags or
 * location NULL, memPool NULL or not live, another location type than
 * device and host, location->id naming no device: CUDA 13's code); on a
 * GPU, the driver's errors. Thread safety: any
 * thread. Mirrors cudaMemPoolGetAccess. */
GR_API grError_t grMemPoolGetAccess(grMemAccessFlags *flags, grMemPool_t memPool, grMemLocation *location);

/* Defined with the other node parameters below (repeating a typedef is
 * valid C11). */
typedef struct grMemAllocNodeParams grMemAllocNodeParams;

/* The attributes of the memory of graph allocation nodes. Mirrors
 * cudaGraphMemAttributeType. */
typedef enum grGraphMemAttributeType {
    grGraphMemAttrUsedMemCurrent = 0,     /* uint64_t, read only */
    grGraphMemAttrUsedMemHigh = 1,        /* uint64_t, set to 0 resets */
    grGraphMemAttrReservedMemCurrent = 2, /* uint64_t, read only */
    grGraphMemAttrReservedMemHigh = 3     /* uint64_t, set to 0 resets */
} grGraphMemAttributeType;

/* Adds a memory allocation node. nodeParams: poolProps with allocType
 * grMemAllocationTypePinned, handleTypes grMemHandleTypeNone, location
 * {grMemLocationTypeDevice, d} for an existing device d (0, the CPU, or a
 * GPU 1..N: the allocation's device) and win32SecurityAttributes NULL (the
 * rest is not read), accessDescs / accessDescCount describing device d
 * with read-write access only (or none), bytesize > 0. An executable maps
 * allocations of its own device only (docs/devices.md on GPUs: there the
 * range is rounded to the device's granularity). The address is fixed now
 * and returned in nodeParams->dptr; the memory is valid from this node to
 * the free node that frees it, in graph order, in every launch; if the
 * graph does not free it, it stays valid after the launch until
 * grFreeAsync, grFree or another graph's free node frees it. A graph with
 * memory nodes cannot be cloned or embedded in a child-graph node, its
 * nodes and edges cannot be removed, and only one executable of it may
 * exist at a time, as in CUDA. Physical memory is shared between the
 * allocations of one graph whose lifetimes do not overlap. Errors: those
 * of every grGraphAdd*Node (see "Adding nodes" in section Graphs),
 * grErrorInvalidValue (nodeParams NULL, another allocType, a location that
 * is not an existing device, win32SecurityAttributes not NULL, bytesize 0,
 * more than one access descriptor or one that is not device d with
 * grMemAccessFlagsProtReadWrite), grErrorNotSupported (handleTypes other
 * than grMemHandleTypeNone; graph is owned by a child-graph node),
 * grErrorMemoryAllocation (bytesize above 2^47, no address space left to
 * reserve it; on a GPU, the driver's errors of cuMemAddressReserve).
 * Thread safety: not with other calls on the same graph. Mirrors
 * cudaGraphAddMemAllocNode. */
GR_API grError_t grGraphAddMemAllocNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                        const grGraphNode_t *pDependencies, size_t numDependencies,
                                        grMemAllocNodeParams *nodeParams);

/* Adds a memory free node for dptr, the address of an allocation node of
 * this graph (or of another graph's allocation it does not free). Errors:
 * those of every grGraphAdd*Node (see "Adding nodes" in section Graphs),
 * grErrorNotSupported (graph is owned by a child-graph node),
 * grErrorInvalidValue (an address no allocation node returned, an
 * allocation this graph frees already, one of this graph that is not
 * ordered before the free node (the free node must depend on the
 * allocation node), one of another graph that that graph frees itself).
 * Thread safety: not with other calls on the same graph. Mirrors
 * cudaGraphAddMemFreeNode. */
GR_API grError_t grGraphAddMemFreeNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                       const grGraphNode_t *pDependencies, size_t numDependencies,
                                       void *dptr);

/* The parameters of an allocation node (dptr included; accessDescs points
 * into the node and stays valid while it lives). Errors:
 * grErrorInvalidValue (node NULL, destroyed, not a node or not an
 * allocation node; params_out NULL). Thread safety: not with other calls on
 * the node's graph. Mirrors cudaGraphMemAllocNodeGetParams. */
GR_API grError_t grGraphMemAllocNodeGetParams(grGraphNode_t node, grMemAllocNodeParams *params_out);

/* The address a free node frees, written to *(void **)dptr_out. Errors:
 * grErrorInvalidValue (node NULL, destroyed, not a node or not a free
 * node; dptr_out NULL). Thread safety: not with other calls on the node's
 * graph. Mirrors cudaGraphMemFreeNodeGetParams. */
GR_API grError_t grGraphMemFreeNodeGetParams(grGraphNode_t node, void *dptr_out);

/* Gives the physical memory of graph allocations that no executable needs
 * (executables destroyed, allocations freed) back to the OS or the driver:
 * that of destroyed executables a stream still holds, whatever their
 * device. Errors: grErrorInvalidDevice (device names no device). Mirrors
 * cudaDeviceGraphMemTrim. */
GR_API grError_t grDeviceGraphMemTrim(int device);

/* Reads an attribute of graph memory into *value (a uint64_t): used memory
 * is what live graph allocations occupy, reserved memory the physical
 * memory held for the device's executables. Errors: grErrorInvalidDevice
 * (device names no device), grErrorInvalidValue (value NULL, attr not a
 * grGraphMemAttributeType). Mirrors cudaDeviceGetGraphMemAttribute. */
GR_API grError_t grDeviceGetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value);

/* Resets a high-water mark (value points to a uint64_t 0); the current
 * values are read only. Errors: grErrorInvalidDevice (device names no
 * device), grErrorInvalidValue (value NULL, attr not a high-water mark,
 * *value not 0). Mirrors cudaDeviceSetGraphMemAttribute. */
GR_API grError_t grDeviceSetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value);

/* ====================================================================== */
/* Graphs                                                                 */
/* ====================================================================== */

typedef enum grGraphNodeType {
    grGraphNodeTypeKernel = 0,
    grGraphNodeTypeMemcpy = 1,
    grGraphNodeTypeMemset = 2,
    grGraphNodeTypeHost = 3,
    grGraphNodeTypeGraph = 4,
    grGraphNodeTypeEmpty = 5,
    grGraphNodeTypeWaitEvent = 6,
    grGraphNodeTypeEventRecord = 7,
    grGraphNodeTypeMemAlloc = 10,
    grGraphNodeTypeMemFree = 11,
    /* The driver's CU_GRAPH_NODE_TYPE_BATCH_MEM_OP (the runtime's enum has
     * no value 12): stream memory operations (docs/stream-memops.md). */
    grGraphNodeTypeBatchMemOp = 12,
    grGraphNodeTypeConditional = 13, /* docs/conditional.md */
    grGraphNodeTypeCount
} grGraphNodeType;

/* Parameters of a kernel node. Mirrors cudaKernelNodeParams; func is a
 * grKernel_t and 'extra' must be NULL. */
typedef struct grKernelNodeParams {
    grKernel_t func;
    grDim3 gridDim;
    grDim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
} grKernelNodeParams;

/* Parameters of a memset node. Mirrors cudaMemsetParams: height rows of
 * width elements of elementSize (1, 2 or 4) bytes, rows pitch bytes apart,
 * each element set to value. */
typedef struct grMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
} grMemsetParams;

/* Parameters of a host node. Mirrors cudaHostNodeParams. */
typedef struct grHostNodeParams {
    grHostFn_t fn;
    void *userData;
} grHostNodeParams;

typedef struct grPos {
    size_t x, y, z;
} grPos;

typedef struct grExtent {
    size_t width, height, depth;
} grExtent;

typedef struct grPitchedPtr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
} grPitchedPtr;

/* CUDA arrays (cudaArray_t) are not part of graphrt: the type exists so
 * that grMemcpy3DParms keeps CUDA's fields; every call refuses a non-NULL
 * array with grErrorInvalidValue and a detail. */
typedef struct grArray_st *grArray_t;

/* A pitched copy: extent.width bytes per row, extent.height rows per
 * slice, extent.depth slices; a pitched pointer's rows are 'pitch' bytes
 * apart and its slices pitch * ysize bytes apart; a position is (byte,
 * row, slice). What grGraphMemcpyNodeGetParams reports: the parameters
 * as given for a node made from 3D parameters, and for a 1D copy extent
 * {count, 1, 1}, pitched pointers {ptr, count, count, 1} and positions 0.
 * Mirrors cudaMemcpy3DParms; srcArray and dstArray must be NULL. */
typedef struct grMemcpy3DParms {
    grArray_t srcArray;
    grPos srcPos;
    grPitchedPtr srcPtr;
    grArray_t dstArray;
    grPos dstPos;
    grPitchedPtr dstPtr;
    grExtent extent;
    grMemcpyKind kind;
} grMemcpy3DParms;

/* Parameters of a memory allocation node. Mirrors cudaMemAllocNodeParams:
 * dptr is set by grGraphAddMemAllocNode. */
typedef struct grMemAllocNodeParams {
    grMemPoolProps poolProps;
    const grMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;
} grMemAllocNodeParams;

typedef struct grMemFreeNodeParams {
    void *dptr;
} grMemFreeNodeParams;

/* How a child-graph node added with grGraphAddNode holds its graph
 * (CUDA 12.9). Clone: the node embeds a copy and the caller keeps the
 * graph (what grGraphAddChildGraphNode does). Move: the node takes the
 * graph itself, which from then on belongs to the node: it dies with it,
 * cannot be destroyed, instantiated, used by grGraphExecUpdate or
 * embedded elsewhere, and cannot get memory allocation or free nodes
 * (grGraphChildGraphNodeGetGraph returns it). Invalid: what a query
 * reports, so that queried parameters are not taken for a request to
 * clone or move. Mirrors cudaGraphChildGraphNodeOwnership (same values). */
typedef enum grGraphChildGraphNodeOwnership {
    grGraphChildGraphOwnershipClone = 0,
    grGraphChildGraphOwnershipMove = 1,
    grGraphChildGraphOwnershipInvalid = -1
} grGraphChildGraphNodeOwnership;

/* Mirrors cudaChildGraphNodeParams (CUDA 12.9: with 'ownership'). */
typedef struct grChildGraphNodeParams {
    grGraph_t graph;
    grGraphChildGraphNodeOwnership ownership;
} grChildGraphNodeParams;

typedef struct grEventRecordNodeParams {
    grEvent_t event;
} grEventRecordNodeParams;

typedef struct grEventWaitNodeParams {
    grEvent_t event;
} grEventWaitNodeParams;

typedef struct grMemcpyNodeParams {
    int flags;
    int reserved[3];
    grMemcpy3DParms copyParams;
} grMemcpyNodeParams;

/*
 * Conditional nodes (docs/conditional.md): a node that runs one of its
 * body graphs, or none, or one repeatedly, as a 32-bit value decides when
 * the node runs. The value lives in a conditional handle, made for a graph
 * by grGraphConditionalHandleCreate and set by grGraphSetConditional from
 * the graph's kernels (or host code) before the node runs.
 */

/* A conditional handle: an opaque 64-bit value, as in CUDA. Mirrors
 * cudaGraphConditionalHandle. */
typedef unsigned long long grGraphConditionalHandle;

/* Flags of grGraphConditionalHandleCreate. grGraphCondAssignDefault: the
 * handle's value is reset to its default at the start of every launch.
 * Mirrors cudaGraphCondAssignDefault. */
enum {
    grGraphCondAssignDefault = 1
};

/* What a conditional node does with its handle's value v. Mirrors
 * cudaGraphConditionalNodeType. */
typedef enum grGraphConditionalNodeType {
    grGraphCondTypeIf = 0,     /* v != 0: body 0; v == 0: body 1 if size is 2 */
    grGraphCondTypeWhile = 1,  /* body 0 again and again while v != 0 (tested first) */
    grGraphCondTypeSwitch = 2, /* body v if v < size, else none */
} grGraphConditionalNodeType;

/* The most bodies a SWITCH node has (its size). CUDA documents no limit
 * ("any value greater than zero"; 1000 was accepted); graphrt makes every
 * body graph when the node is added, so a size near UINT_MAX would take
 * the process's memory: larger sizes are refused with grErrorInvalidValue.
 * Graph files hold at most as many. graphrt's own. */
#define GR_COND_SWITCH_MAX 65536u

/* The parameters of a conditional node (grGraphAddNode with type
 * grGraphNodeTypeConditional). handle: from grGraphConditionalHandleCreate
 * for this graph or another graph of its nest (a body, the graph that
 * holds a body), used by no other node. size: bodies, 1 for WHILE, 1
 * or 2 for IF, 1 to GR_COND_SWITCH_MAX for SWITCH. phGraph_out: set by grGraphAddNode to
 * an array of 'size' empty body graphs, owned by the node (valid while it
 * lives; fill them with grGraphAdd*Node or grStreamBeginCaptureToGraph).
 * Mirrors cudaConditionalNodeParams (without ctx: graphrt has one context
 * per device). */
typedef struct grConditionalNodeParams {
    grGraphConditionalHandle handle;
    grGraphConditionalNodeType type;
    unsigned int size;
    grGraph_t *phGraph_out;
} grConditionalNodeParams;

/* The operations of grStreamBatchMemOp and batch memory operation nodes.
 * Values of the driver's CUstreamBatchMemOpType. FlushRemoteWrites is
 * refused with grErrorNotSupported (a device that cannot flush remote
 * writes, as an H200 answers); Barrier is a full memory fence on the CPU. */
typedef enum grStreamBatchMemOpType {
    grStreamMemOpWaitValue32 = 1,
    grStreamMemOpWriteValue32 = 2,
    grStreamMemOpFlushRemoteWrites = 3,
    grStreamMemOpWaitValue64 = 4,
    grStreamMemOpWriteValue64 = 5,
    grStreamMemOpBarrier = 6
} grStreamBatchMemOpType;

/* Scopes of a grStreamMemOpBarrier (CU_STREAM_MEMORY_BARRIER_TYPE_*):
 * both are a full fence on the CPU. */
#define grStreamMemoryBarrierTypeSys 0x0u
#define grStreamMemoryBarrierTypeGpu 0x1u

/* One stream memory operation: 'operation' selects the member. Mirrors the
 * driver's CUstreamBatchMemOpParams (same size and offsets on 64-bit
 * hosts), with a pointer for the CUdeviceptr address. waitValue: wait
 * until the 32-bit ('value') or 64-bit ('value64') word at address meets
 * the condition in flags (grStreamWaitValueGeq, Eq, And, Nor), as
 * grStreamWaitValue32/64; writeValue: write it, flags
 * grStreamWriteValueDefault, as grStreamWriteValue32/64; memoryBarrier:
 * flags a grStreamMemoryBarrierType*. 'alias' is the driver's own field:
 * ignored, and stored as NULL. Zero the whole union before filling it. */
typedef union grStreamBatchMemOpParams {
    grStreamBatchMemOpType operation;
    struct grStreamMemOpWaitValueParams {
        grStreamBatchMemOpType operation;
        void *address;
        union {
            uint32_t value;
            uint64_t value64;
        };
        unsigned int flags;
        void *alias;
    } waitValue;
    struct grStreamMemOpWriteValueParams {
        grStreamBatchMemOpType operation;
        void *address;
        union {
            uint32_t value;
            uint64_t value64;
        };
        unsigned int flags;
        void *alias;
    } writeValue;
    struct grStreamMemOpFlushRemoteWritesParams {
        grStreamBatchMemOpType operation;
        unsigned int flags;
    } flushRemoteWrites;
    struct grStreamMemOpMemoryBarrierParams {
        grStreamBatchMemOpType operation;
        unsigned int flags;
    } memoryBarrier;
    uint64_t pad[6];
} grStreamBatchMemOpParams;

/* The most operations one batch holds: the driver documents count as
 * "less than 256". */
#define GR_BATCH_MEM_OP_MAX 255u

/* The parameters of a batch memory operation node: 'count' operations of
 * paramArray, run in order (copied when the node is added or set). flags
 * must be 0. ctx is the driver's context: graphrt has one per device, so it
 * is ignored and read back as NULL. Mirrors the driver's
 * CUDA_BATCH_MEM_OP_NODE_PARAMS (_v2, the same layout). */
typedef struct grBatchMemOpNodeParams {
    void *ctx;
    unsigned int count;
    grStreamBatchMemOpParams *paramArray;
    unsigned int flags;
} grBatchMemOpNodeParams;

/* The generic node description of grGraphAddNode. Mirrors
 * cudaGraphNodeParams: 'type' selects the union member. */
typedef struct grGraphNodeParams {
    grGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        grKernelNodeParams kernel;
        grMemcpyNodeParams memcpy;
        grMemsetParams memset;
        grHostNodeParams host;
        grChildGraphNodeParams graph;
        grEventWaitNodeParams eventWait;
        grEventRecordNodeParams eventRecord;
        grMemAllocNodeParams alloc;
        grMemFreeNodeParams free;
        /* grGraphNodeTypeBatchMemOp: the driver's CUgraphNodeParams
         * member of that name (the runtime's has none). */
        grBatchMemOpNodeParams memOp;
        grConditionalNodeParams conditional;
    };
    long long reserved2;
} grGraphNodeParams;

/*
 * Edge data: every edge u -> v of a graph carries a grGraphEdgeData; an
 * all-zero one (the default, what a NULL edgeData array means) is an
 * ordinary full dependency: v starts after u has completed. A non-default
 * edge is a programmatic one, which exists between two kernel nodes only:
 * type grGraphDependencyTypeProgrammatic with from_port
 * grGraphKernelNodePortProgrammatic or grGraphKernelNodePortLaunchCompletion.
 * On a GPU such an edge lets v start before u completes (when u's blocks
 * trigger, or when they have all begun); on the CPU it orders v after u's
 * completion, a schedule the GPU could also run (docs/graphs.md). Values
 * and layout mirror cudaGraphEdgeData and its enums.
 */
typedef enum grGraphDependencyType {
    grGraphDependencyTypeDefault = 0,     /* a full dependency */
    grGraphDependencyTypeProgrammatic = 1 /* kernel -> kernel, with a
                                              programmatic or launch-
                                              completion from_port */
} grGraphDependencyType;

#define grGraphKernelNodePortDefault 0          /* the kernel completed */
#define grGraphKernelNodePortProgrammatic 1     /* its blocks triggered */
#define grGraphKernelNodePortLaunchCompletion 2 /* its blocks all began */

typedef struct grGraphEdgeData {
    unsigned char from_port; /* a grGraphKernelNodePort* of the 'from' node */
    unsigned char to_port;   /* 0: no node type defines another */
    unsigned char type;      /* a grGraphDependencyType */
    unsigned char reserved[5];
} grGraphEdgeData;

/*
 * Thread safety of graphs: a graph is not internally synchronised, as in
 * CUDA. Every function of this section but grGraphCreate uses a graph (the
 * one it takes, or the graph a node it takes was added to; a child graph,
 * from grGraphChildGraphNodeGetGraph, is part of the graph that owns its
 * node) and must not run concurrently with another call that uses the same
 * graph, on any thread, even when both only read it. Calls on different
 * graphs may run at the same time. A "node not live" below is a node
 * handle that is NULL, was destroyed (grGraphDestroyNode), or is not a
 * node.
 */

/* Creates an empty graph. Errors: grErrorInvalidValue (graph NULL, flags
 * not 0), grErrorMemoryAllocation. Mirrors cudaGraphCreate. */
GR_API grError_t grGraphCreate(grGraph_t *graph, unsigned int flags);

/* Destroys a graph and its nodes. Executables instantiated from it are not
 * affected. Errors: grErrorInvalidValue (graph NULL or not live, a graph
 * owned by a child-graph node, which dies with its node),
 * grErrorIllegalState (a capture in progress builds the graph: end it
 * first). Thread safety:
 * not with other calls on the same graph. Mirrors cudaGraphDestroy. */
GR_API grError_t grGraphDestroy(grGraph_t graph);

/*
 * Adding nodes. Every grGraphAdd*Node takes:
 *   pGraphNode       receives the new node
 *   graph            the graph to add it to
 *   pDependencies    numDependencies nodes of 'graph' it depends on (may be
 *                    NULL when numDependencies is 0); duplicates refused
 * Parameters are copied, so the caller's structures may change right after.
 * Errors of every grGraphAdd*Node, each with a detail naming the argument
 * and the node: grErrorInvalidValue (pGraphNode NULL; graph NULL or not
 * live; pDependencies NULL with numDependencies > 0; a dependency that is
 * not live, belongs to another graph or is listed twice),
 * grErrorMemoryAllocation (the node or its edges); each function lists the
 * errors of its parameters besides these. Thread safety: not with other
 * calls on the same graph.
 */

/* Adds a kernel node. The argument values are copied from kernelParams.
 * Errors: those of every add, grErrorInvalidValue (pNodeParams NULL, extra
 * not NULL, sharedMemBytes or kernelParams refused as grLaunchKernel
 * refuses sharedMem and args), grErrorInvalidDeviceFunction (func NULL or
 * not live), grErrorInvalidConfiguration (gridDim or blockDim refused as
 * grLaunchKernel refuses them), grErrorMemoryAllocation (copying the
 * argument values). Thread safety: not with other calls on the same graph.
 * Mirrors cudaGraphAddKernelNode. */
GR_API grError_t grGraphAddKernelNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grKernelNodeParams *pNodeParams);

/* Adds a 1D copy node. Errors: those of every add,
 * grErrorInvalidMemcpyDirection (kind not a grMemcpyKind),
 * grErrorInvalidValue (dst or src NULL with count > 0, a range refused as
 * grMemcpy refuses one). Thread safety: not with other calls on the same
 * graph. Mirrors cudaGraphAddMemcpyNode1D. */
GR_API grError_t grGraphAddMemcpyNode1D(grGraphNode_t *pGraphNode, grGraph_t graph,
                                        const grGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                        const void *src, size_t count, grMemcpyKind kind);

/* Adds a memset node. Errors: those of every add, grErrorInvalidValue
 * (pMemsetParams NULL; dst NULL; elementSize not 1, 2 or 4; height 0; dst
 * not aligned to elementSize; with height > 1, a pitch smaller than a row
 * or not a multiple of elementSize; a size that overflows; a range refused
 * as grMemcpy refuses one). Thread safety: not with other calls on the
 * same graph. Mirrors cudaGraphAddMemsetNode. */
GR_API grError_t grGraphAddMemsetNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grMemsetParams *pMemsetParams);

/* Adds a host node. userData is the caller's pointer, not copied. Errors:
 * those of every add, grErrorInvalidValue (pNodeParams NULL, fn NULL).
 * Thread safety: not with other calls on the same graph. Mirrors
 * cudaGraphAddHostNode. */
GR_API grError_t grGraphAddHostNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                    const grGraphNode_t *pDependencies, size_t numDependencies,
                                    const grHostNodeParams *pNodeParams);

/* Adds a node that does nothing (a join point). Errors: those of every add.
 * Thread safety: not with other calls on the same graph. Mirrors
 * cudaGraphAddEmptyNode. */
GR_API grError_t grGraphAddEmptyNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                     const grGraphNode_t *pDependencies, size_t numDependencies);

/* Adds a node that runs a copy of childGraph (cloned now). Errors: those of
 * every add, grErrorInvalidValue (childGraph NULL or not live, graph
 * itself, a graph that graph is nested in, nesting child graphs more than
 * 64 levels deep), grErrorNotSupported (childGraph has memory allocation or
 * free nodes), grErrorMemoryAllocation (the copy). Thread safety: not with
 * other calls on graph or on childGraph. Mirrors
 * cudaGraphAddChildGraphNode. */
GR_API grError_t grGraphAddChildGraphNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          grGraph_t childGraph);

/* Adds a node that records 'event' when its dependencies complete. Errors:
 * those of every add, grErrorInvalidResourceHandle (event NULL or not
 * live). Thread safety: not with other calls on the same graph. Mirrors
 * cudaGraphAddEventRecordNode. */
GR_API grError_t grGraphAddEventRecordNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                           const grGraphNode_t *pDependencies, size_t numDependencies,
                                           grEvent_t event);

/* Adds a node that waits for the event's latest record at the time the
 * node runs. Errors: those of every add, grErrorInvalidResourceHandle
 * (event NULL or not live). Thread safety: not with other calls on the
 * same graph. Mirrors cudaGraphAddEventWaitNode. */
GR_API grError_t grGraphAddEventWaitNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                         const grGraphNode_t *pDependencies, size_t numDependencies,
                                         grEvent_t event);

/* Adds a node of any type described by nodeParams (type tag + union).
 * For an alloc node nodeParams->alloc.dptr is set. For a conditional node
 * (grGraphNodeTypeConditional) nodeParams->conditional.phGraph_out is set
 * to the node's body graphs; the rules of bodies (the node types they may
 * hold: kernel, empty, memcpy, memset, child graph and conditional nodes;
 * the others are added but refused by grGraphInstantiate, as in CUDA;
 * memory nodes are refused when added) are in docs/conditional.md; a
 * conditional node's errors: grErrorInvalidValue (handle not live, made
 * for a graph of another nest, or used by another node; type not a
 * grGraphConditionalNodeType; size not allowed for the type, a SWITCH's
 * above GR_COND_SWITCH_MAX),
 * grErrorNotSupported (graph is a child graph's). A child-graph node
 * (grGraphNodeTypeGraph) clones graph.graph as grGraphAddChildGraphNode
 * does unless graph.ownership is grGraphChildGraphOwnershipMove (any
 * other value clones, as CUDA 13 answers); with Move the node takes the
 * graph itself (see grGraphChildGraphNodeOwnership), and its errors are
 * grGraphAddChildGraphNode's plus grErrorInvalidValue (the graph belongs
 * to a node already), grErrorStreamCaptureUnsupported (a capture records
 * into it), grErrorNotSupported (it holds memory allocation or free
 * nodes, which CUDA 12.9 moves and graphrt does not yet); a refused move
 * leaves the graph the caller's. A moved graph later refused by
 * grGraphInstantiate, grGraphInstantiateWithFlags / WithParams and
 * grGraphExecUpdate gives grErrorNotSupported, and by grGraphDestroy
 * grErrorInvalidValue (CUDA 13's code, tests/probes/nodeapi.cu). A memcpy is
 * memcpy.copyParams, taken as grGraphAddMemcpyNode takes its 3D
 * parameters (2D and 3D copies included). Errors: those of the
 * grGraphAdd*Node of the type (grGraphAddMemcpyNode for a memcpy,
 * grGraphAddMemAllocNode and grGraphAddMemFreeNode for the memory
 * nodes), grErrorInvalidValue (nodeParams NULL, type not a node type,
 * memcpy.flags not 0). Thread
 * safety: not with other calls on the same graph. dependencyData: NULL
 * (every edge default) or numDependencies entries, the data of the edge
 * from pDependencies[i] to the new node, each checked as
 * grGraphAddDependencies checks edge data (grErrorInvalidValue). Mirrors
 * cudaGraphAddNode (CUDA 13 form). */
GR_API grError_t grGraphAddNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                const grGraphNode_t *pDependencies, const grGraphEdgeData *dependencyData,
                                size_t numDependencies, grGraphNodeParams *nodeParams);

/* Creates a conditional handle for 'graph': the value one conditional
 * node of graph's nest (graph, its bodies, the graph whose body it is)
 * tests; instantiating a graph with a handle no node uses fails, as in
 * CUDA. defaultLaunchValue: with flags grGraphCondAssignDefault, the value
 * every launch starts with; without the flag it is ignored (as in CUDA):
 * an executable starts from 0 and a value persists from launch to launch.
 * flags: 0 or grGraphCondAssignDefault. The handle lives as long as the
 * graph and the executables using it. Errors: grErrorInvalidValue
 * (pHandle_out NULL, graph not live, unknown flags),
 * grErrorMemoryAllocation. Thread safety: not with other calls on the same
 * graph. Mirrors cudaGraphConditionalHandleCreate (CUDA 12.3; without ctx). */
GR_API grError_t grGraphConditionalHandleCreate(grGraphConditionalHandle *pHandle_out, grGraph_t graph,
                                                unsigned int defaultLaunchValue, unsigned int flags);

/* Sets the value of a conditional handle in the executable running now:
 * called from a kernel's CPU body (or a host function) of a launch, the
 * value is what the conditional nodes after it read (a WHILE body sets it
 * to 0 to end the loop). Called outside a launch, it sets the value the
 * next launch starts with (unless grGraphCondAssignDefault resets it).
 * On a GPU the value lives on the device, set by the kernels with CUDA's
 * cudaGraphSetConditional on the handle they take as an argument
 * (docs/conditional.md); this function does not reach it.
 * Errors: grErrorInvalidValue (handle 0, not from
 * grGraphConditionalHandleCreate, or its graph and executables are all
 * gone; a made-up number that is not a readable address is not detected
 * here, which would cost a system call per iteration: grGraphAddNode
 * does detect it). Thread safety: any thread; the value is one relaxed 32-bit store,
 * ordered before the nodes that depend on the caller by the graph's edges.
 * Mirrors cudaGraphSetConditional, a device function in CUDA: in graphrt
 * a C function that returns an error. */
GR_API grError_t grGraphSetConditional(grGraphConditionalHandle handle, unsigned int value);

/* An execution context (CUDA 13: a device's primary context or a green
 * context). graphrt has one context per device and no handle for it: the
 * only execution context it accepts is NULL, "the current one". Mirrors
 * cudaExecutionContext_t. */
typedef struct grExecutionContext_st *grExecutionContext_t;

/* grGraphConditionalHandleCreate with CUDA 13's execution context: ctx
 * NULL uses the current context, as CUDA does, and is then exactly
 * grGraphConditionalHandleCreate(pHandle_out, graph, defaultLaunchValue,
 * flags). Errors: those of grGraphConditionalHandleCreate, plus
 * grErrorNotSupported (ctx not NULL: graphrt has no execution context
 * handles; nothing is created). Thread safety: not with other calls on
 * the same graph. Mirrors cudaGraphConditionalHandleCreate_v2 (CUDA 13,
 * after 13.0). */
GR_API grError_t grGraphConditionalHandleCreate_v2(grGraphConditionalHandle *pHandle_out, grGraph_t graph,
                                                   grExecutionContext_t ctx, unsigned int defaultLaunchValue,
                                                   unsigned int flags);

/* Adds edges from[i] -> to[i] with data edgeData[i] (edgeData NULL: all
 * default). All are checked first; if any fails none is added.
 * numDependencies 0 does nothing. Errors: grErrorInvalidValue (graph NULL
 * or not live; from or to NULL with numDependencies > 0; a node that is
 * not live or belongs to another graph; a self edge; an edge listed twice
 * or already present, whatever its data; an edge that would close a
 * cycle, which the detail names; edge data with reserved bytes or to_port
 * not 0, an unknown type or from_port, a non-default edge from a node that
 * is not a kernel node, a programmatic edge to a node that is not a kernel
 * node or with from_port grGraphKernelNodePortDefault, from_port
 * grGraphKernelNodePortProgrammatic on a default edge),
 * grErrorMemoryAllocation. Thread safety: not with other calls on the same
 * graph. Mirrors cudaGraphAddDependencies (CUDA 13 form). */
GR_API grError_t grGraphAddDependencies(grGraph_t graph, const grGraphNode_t *from, const grGraphNode_t *to,
                                        const grGraphEdgeData *edgeData, size_t numDependencies);

/* Removes edges from[i] -> to[i] whose data is edgeData[i] (edgeData
 * NULL: whatever their data, as CUDA 13 does); if any is refused none is
 * removed.
 * numDependencies 0 does nothing. Errors: grErrorInvalidValue (graph NULL
 * or not live; from or to NULL with numDependencies > 0; a node that is not
 * live or belongs to another graph; a self edge; an edge that does not
 * exist, exists with other data, or is listed twice), grErrorNotSupported
 * (the graph has memory allocation or free nodes, as in CUDA),
 * grErrorMemoryAllocation. Thread safety: not with other calls on the same
 * graph. Mirrors cudaGraphRemoveDependencies (CUDA 13 form). */
GR_API grError_t grGraphRemoveDependencies(grGraph_t graph, const grGraphNode_t *from,
                                           const grGraphNode_t *to, const grGraphEdgeData *edgeData,
                                           size_t numDependencies);

/* Removes a node and its edges; a child-graph node's graph goes with it.
 * Errors: grErrorInvalidValue (node not live), grErrorNotSupported (the
 * node's graph has memory allocation or free nodes, as in CUDA),
 * grErrorIllegalState (a capture in progress builds the node's graph). Thread
 * safety: not with other calls on the node's graph. Mirrors
 * cudaGraphDestroyNode. */
GR_API grError_t grGraphDestroyNode(grGraphNode_t node);

/* Two-call pattern: with nodes NULL, *numNodes receives the count; else up
 * to *numNodes nodes are written (in creation order), the rest of the
 * array is set to NULL, and *numNodes is set to the number written.
 * Errors: grErrorInvalidValue (graph NULL or not live, numNodes NULL).
 * Thread safety: not with other calls on the same graph. Mirrors
 * cudaGraphGetNodes. */
GR_API grError_t grGraphGetNodes(grGraph_t graph, grGraphNode_t *nodes, size_t *numNodes);

/* The nodes without dependencies; two-call pattern. Errors:
 * grErrorInvalidValue (graph NULL or not live, pNumRootNodes NULL). Thread
 * safety: not with other calls on the same graph. Mirrors
 * cudaGraphGetRootNodes. */
GR_API grError_t grGraphGetRootNodes(grGraph_t graph, grGraphNode_t *pRootNodes, size_t *pNumRootNodes);

/* The edges as from[i] -> to[i] with data edgeData[i] (optional; the
 * entries past the count are zeroed like from and to); two-call pattern
 * (from, to and edgeData all NULL for the count). Errors:
 * grErrorInvalidValue (graph NULL or not live, numEdges NULL, only one of
 * from and to NULL, edgeData without from and to), grErrorLossyQuery
 * (edgeData NULL while the graph has a non-default edge; nothing
 * written). Thread safety: not with other calls on the same graph.
 * Mirrors cudaGraphGetEdges (CUDA 13 form). */
GR_API grError_t grGraphGetEdges(grGraph_t graph, grGraphNode_t *from, grGraphNode_t *to,
                                 grGraphEdgeData *edgeData, size_t *numEdges);

/* The node's type. Errors: grErrorInvalidValue (node not live, pType
 * NULL). Thread safety: not with other calls on the node's graph. Mirrors
 * cudaGraphNodeGetType. */
GR_API grError_t grGraphNodeGetType(grGraphNode_t node, grGraphNodeType *pType);

/* The node's dependencies, with the data of their edges in edgeData
 * (optional); two-call pattern. Errors: grErrorInvalidValue (node not
 * live, pNumDependencies NULL, edgeData without pDependencies),
 * grErrorLossyQuery (pDependencies given, edgeData NULL, and an edge into
 * the node has non-default data; nothing written). Thread safety: not
 * with other calls on the node's graph. Mirrors
 * cudaGraphNodeGetDependencies (CUDA 13 form). */
GR_API grError_t grGraphNodeGetDependencies(grGraphNode_t node, grGraphNode_t *pDependencies,
                                            grGraphEdgeData *edgeData, size_t *pNumDependencies);

/* The nodes that depend on this one, with the data of their edges in
 * edgeData (optional); two-call pattern. Errors: grErrorInvalidValue
 * (node not live, pNumDependentNodes NULL, edgeData without
 * pDependentNodes), grErrorLossyQuery (pDependentNodes given, edgeData
 * NULL, and an edge out of the node has non-default data; nothing
 * written). Thread safety: not with other calls on the node's graph.
 * Mirrors cudaGraphNodeGetDependentNodes (CUDA 13 form). */
GR_API grError_t grGraphNodeGetDependentNodes(grGraphNode_t node, grGraphNode_t *pDependentNodes,
                                              grGraphEdgeData *edgeData, size_t *pNumDependentNodes);

/*
 * Node parameters. The errors of every Get and Set below:
 * grErrorInvalidValue (node not live or not of the function's type; for a
 * Get, a NULL output pointer), besides those a Set lists for its
 * parameters. Thread safety: not with other calls on the node's graph.
 */

/* Kernel node parameters. Get returns kernelParams pointing into the
 * node's own copy of the values (valid until the node changes); Set copies
 * new values. Errors: those of every Get and Set (see above); for Set also
 * those grGraphAddKernelNode lists for pNodeParams (grErrorInvalidValue,
 * grErrorInvalidDeviceFunction, grErrorInvalidConfiguration,
 * grErrorMemoryAllocation). Thread safety: not with other calls on the
 * node's graph. Mirror cudaGraphKernelNodeGetParams / SetParams. */
GR_API grError_t grGraphKernelNodeGetParams(grGraphNode_t node, grKernelNodeParams *pNodeParams);
GR_API grError_t grGraphKernelNodeSetParams(grGraphNode_t node, const grKernelNodeParams *pNodeParams);

/* A kernel node's launch attribute 'attr' (see grLaunchAttributeID for
 * the IDs valid on kernel nodes): the value last set, or the default (all
 * zero) when none was. Errors: grErrorInvalidValue (hNode not live or not
 * a kernel node, value_out NULL, attr not an attribute of kernel nodes).
 * Thread safety: not with other calls on the node's graph. Mirrors
 * cudaGraphKernelNodeGetAttribute. */
GR_API grError_t grGraphKernelNodeGetAttribute(grGraphNode_t hNode, grKernelNodeAttrID attr,
                                               grKernelNodeAttrValue *value_out);

/* Sets a kernel node's launch attribute; grGraphKernelNodeSetParams keeps
 * the attributes. Values are checked (an access policy window's
 * hitRatio in [0, 1] and properties, a known cluster scheduling policy or
 * memory-sync domain, nvlinkUtilCentricScheduling 0 or 1) and stored; on
 * the CPU only grLaunchAttributePriority changes anything (with
 * grGraphInstantiateFlagUseNodePriority: docs/launch-attributes.md).
 * Errors: grErrorInvalidValue (hNode not live or not a kernel node, value
 * NULL, attr not valid for kernel nodes, a value out of range),
 * grErrorNotSupported (deviceUpdatable set: graphrt has no device-side
 * updates), grErrorMemoryAllocation; a refused call changes nothing.
 * Thread safety: not with other calls on the node's graph. Mirrors
 * cudaGraphKernelNodeSetAttribute. */
GR_API grError_t grGraphKernelNodeSetAttribute(grGraphNode_t hNode, grKernelNodeAttrID attr,
                                               const grKernelNodeAttrValue *value);

/* Gives kernel node hDst every launch attribute of kernel node hSrc (the
 * unset ones back to their defaults). Errors: grErrorInvalidValue (either
 * not live or not a kernel node), grErrorMemoryAllocation (hDst
 * unchanged). Thread safety: not with other calls on either node's graph.
 * Mirrors cudaGraphKernelNodeCopyAttributes. */
GR_API grError_t grGraphKernelNodeCopyAttributes(grGraphNode_t hDst, grGraphNode_t hSrc);

/* Copy node parameters. Get reports the 3D parameters the node was given
 * (grGraphAddMemcpyNode, grGraphMemcpyNodeSetParams, grGraphAddNode, a
 * captured 2D or 3D copy whose rows are not contiguous), as CUDA does,
 * else the 1D copy: extent {count, 1, 1}, pitched pointers {ptr, count,
 * count, 1}, positions 0. Set1D makes the node a 1D copy. Errors: those
 * of every Get and Set (see above); for Set also those
 * grGraphAddMemcpyNode1D lists for its copy
 * (grErrorInvalidMemcpyDirection, grErrorInvalidValue). Thread safety: not
 * with other calls on the node's graph. Mirror cudaGraphMemcpyNodeGetParams
 * / cudaGraphMemcpyNodeSetParams1D. */
GR_API grError_t grGraphMemcpyNodeGetParams(grGraphNode_t node, grMemcpy3DParms *pNodeParams);
GR_API grError_t grGraphMemcpyNodeSetParams1D(grGraphNode_t node, void *dst, const void *src, size_t count,
                                              grMemcpyKind kind);

/* Memset node parameters. Errors: those of every Get and Set (see above);
 * for Set also those grGraphAddMemsetNode lists for pMemsetParams
 * (grErrorInvalidValue). Thread safety: not with other calls on the node's
 * graph. Mirror cudaGraphMemsetNodeGetParams / SetParams. */
GR_API grError_t grGraphMemsetNodeGetParams(grGraphNode_t node, grMemsetParams *pNodeParams);
GR_API grError_t grGraphMemsetNodeSetParams(grGraphNode_t node, const grMemsetParams *pNodeParams);

/* Host node parameters. Errors: those of every Get and Set (see above);
 * for Set also grErrorInvalidValue (pNodeParams NULL, fn NULL). Thread
 * safety: not with other calls on the node's graph. Mirror
 * cudaGraphHostNodeGetParams / SetParams. */
GR_API grError_t grGraphHostNodeGetParams(grGraphNode_t node, grHostNodeParams *pNodeParams);
GR_API grError_t grGraphHostNodeSetParams(grGraphNode_t node, const grHostNodeParams *pNodeParams);

/* The graph embedded in a child-graph node (owned by the node; it may be
 * queried and its nodes' parameters changed, not destroyed). Errors:
 * grErrorInvalidValue (node not live or not a child-graph node, pGraph
 * NULL). Thread safety: not with other calls on the node's graph; the
 * child graph is part of that graph, so calls on the two are serialised
 * together. Mirrors cudaGraphChildGraphNodeGetGraph. */
GR_API grError_t grGraphChildGraphNodeGetGraph(grGraphNode_t node, grGraph_t *pGraph);

/* Event of an event record / wait node. Errors: those of every Get and
 * Set (see above); for the Sets also grErrorInvalidResourceHandle (event
 * NULL or not live). Thread safety: not with other calls on the node's
 * graph. Mirror cudaGraphEventRecordNodeGetEvent and friends. */
GR_API grError_t grGraphEventRecordNodeGetEvent(grGraphNode_t node, grEvent_t *event_out);
GR_API grError_t grGraphEventRecordNodeSetEvent(grGraphNode_t node, grEvent_t event);
GR_API grError_t grGraphEventWaitNodeGetEvent(grGraphNode_t node, grEvent_t *event_out);
GR_API grError_t grGraphEventWaitNodeSetEvent(grGraphNode_t node, grEvent_t event);

/* Sets the parameters of a node of any type from the generic description
 * of grGraphAddNode: nodeParams->type must be the node's type, and the
 * union member of that type is applied as the node type's own setter
 * applies it (grGraphKernelNodeSetParams, grGraphMemcpyNodeSetParams
 * from memcpy.copyParams, with memcpy.flags 0,
 * grGraphMemsetNodeSetParams, grGraphHostNodeSetParams, the event nodes'
 * SetEvent); a child-graph node gets a copy of nodeParams->graph.graph,
 * checked as grGraphAddChildGraphNode checks a graph; an empty node has
 * nothing to set. The detail of a refusal by a type's rule names that
 * type's setter. Errors: grErrorInvalidValue (node not live; nodeParams
 * NULL; reserved0 or reserved2 not zero, as CUDA 13 refuses them;
 * nodeParams->type not the node's type), grErrorNotSupported (a
 * memory allocation or free node, as in CUDA), else those of the type's
 * setter. Thread safety: not with other calls on the node's graph.
 * Mirrors cudaGraphNodeSetParams. */
GR_API grError_t grGraphNodeSetParams(grGraphNode_t node, grGraphNodeParams *nodeParams);

/* A node's type and parameters in the generic form (CUDA 13.2), from the
 * node type's own getter: *nodeParams is zeroed, 'type' set, and the
 * type's member filled as that getter fills it (an empty node: nothing
 * more). Pointers in it (a kernel's argument array, a conditional node's
 * phGraph_out, its body graphs, a batch node's operations) point into the
 * node and stay valid while the node lives and its parameters do not
 * change; do not write through them. A conditional node gives its handle,
 * type, size and bodies; a child-graph node its graph and ownership
 * grGraphChildGraphOwnershipInvalid (the graph is the node's), as the
 * driver reports it. Errors: grErrorInvalidValue (node NULL or not
 * live, nodeParams NULL), and the type's getter's. *nodeParams is left
 * alone on failure. Thread safety: not with calls that change the node's
 * graph. Mirrors cudaGraphNodeGetParams. */
GR_API grError_t grGraphNodeGetParams(grGraphNode_t node, grGraphNodeParams *nodeParams);

/* ---------------------------------------------------------- user objects
 *
 * A user object ties a resource's lifetime to graphs: a reference count
 * and a destructor, destroy(ptr), run once when the count reaches zero.
 * References are held by the application (from grUserObjectCreate and
 * grUserObjectRetain), by graphs (grGraphRetainUserObject), by the copies
 * of a graph (grGraphClone and child-graph nodes copy its references),
 * and by executables (each takes the references of its graph and of the
 * graphs nested in it at instantiation, and keeps them until it is
 * destroyed and its launches in flight are over; grGraphExecUpdate and
 * grGraphExecChildGraphNodeSetParams replace them with the new graph's).
 * As in CUDA (measured by a CUDA 13 probe), a destructor runs on the
 * calling thread before the call returns when the count reaches zero in
 * grUserObjectRelease, grGraphReleaseUserObject, grGraphDestroy,
 * grGraphDestroyNode, grGraphNodeSetParams (a child graph replaced),
 * grGraphExecDestroy of an executable with no launch in flight,
 * grGraphExecUpdate and the child-graph setters; when the last reference
 * goes behind a launch in flight, on graphrt's destructor thread (one at
 * a time, in order). Either way no graphrt lock is held, and no graphrt
 * call waits for a destructor (grUserObjectNoDestructorSync). CUDA
 * forbids CUDA calls in a destructor; graphrt allows graphrt calls there
 * (one that blocks delays the destructors queued after it), but portable
 * code signals another thread instead. docs/user-objects.md.
 */
typedef struct grUserObject_st *grUserObject_t;

/* Flags of grUserObjectCreate: the only one, and required, as in CUDA. */
typedef enum grUserObjectFlags {
    grUserObjectNoDestructorSync = 0x1 /* no graphrt call waits for the destructor */
} grUserObjectFlags;

/* Flags of grGraphRetainUserObject. */
typedef enum grUserObjectRetainFlags {
    grGraphUserObjectMove = 0x1 /* the caller's references move to the graph */
} grUserObjectRetainFlags;

/* Creates a user object with initialRefcount references, owned by the
 * caller; destroy(ptr) runs once the last reference is released. Errors:
 * grErrorInvalidValue (object_out NULL, destroy NULL, initialRefcount 0,
 * flags other than grUserObjectNoDestructorSync), grErrorMemoryAllocation
 * (also when the destructor thread cannot be started). Thread safety: any
 * thread. Mirrors cudaUserObjectCreate. */
GR_API grError_t grUserObjectCreate(grUserObject_t *object_out, void *ptr, grHostFn_t destroy,
                                    unsigned int initialRefcount, unsigned int flags);

/* Takes count more references for the caller. Errors: grErrorInvalidValue
 * (object not live: NULL, its count already reached zero, or not a user
 * object; count 0; a count that would pass 2^62). Thread safety: any
 * thread. Mirrors cudaUserObjectRetain. */
GR_API grError_t grUserObjectRetain(grUserObject_t object, unsigned int count);

/* Gives back count of the caller's references; the last one runs the
 * destructor before the call returns. Errors: grErrorInvalidValue (object not live; count 0;
 * count above the references left, where CUDA's behaviour is undefined:
 * nothing is released). Thread safety: any thread. Mirrors
 * cudaUserObjectRelease. */
GR_API grError_t grUserObjectRelease(grUserObject_t object, unsigned int count);

/* Gives graph count references of object: new ones, or with flags
 * grGraphUserObjectMove the caller's own (which it no longer holds).
 * Errors: grErrorInvalidValue (graph not live; object not live; count 0;
 * flags other than 0 and grGraphUserObjectMove; a move of more references
 * than the object has; a count that would pass 2^62),
 * grErrorMemoryAllocation. Thread safety: not with other calls on
 * the graph. Mirrors cudaGraphRetainUserObject. */
GR_API grError_t grGraphRetainUserObject(grGraph_t graph, grUserObject_t object, unsigned int count,
                                         unsigned int flags);

/* Releases count of the references graph holds of object. Errors:
 * grErrorInvalidValue (graph not live; object not live; count 0; count
 * above the references the graph holds: nothing is released). Thread
 * safety: not with other calls on the graph. Mirrors
 * cudaGraphReleaseUserObject. */
GR_API grError_t grGraphReleaseUserObject(grGraph_t graph, grUserObject_t object, unsigned int count);

/* Copies a graph: same nodes (parameters copied), same edges. Errors:
 * grErrorInvalidValue (pGraphClone NULL, originalGraph NULL or not live),
 * grErrorNotSupported (originalGraph has memory allocation or free nodes,
 * as in CUDA), grErrorMemoryAllocation. Thread safety: not with other calls
 * on originalGraph. Mirrors cudaGraphClone. */
GR_API grError_t grGraphClone(grGraph_t *pGraphClone, grGraph_t originalGraph);

/* The node of clonedGraph that was cloned from originalNode. A clone knows
 * its original by the graph's identity, not its address: a graph created
 * after the original was destroyed is never its original, even at the
 * same address. Errors:
 * grErrorInvalidValue (pNode NULL; originalNode not live; clonedGraph NULL,
 * not live, or not a clone of originalNode's graph; no node of clonedGraph
 * was cloned from originalNode: it was added after the clone was made, or
 * its copy was destroyed). Thread safety: not with other calls on
 * clonedGraph or on originalNode's graph. Mirrors
 * cudaGraphNodeFindInClone. */
GR_API grError_t grGraphNodeFindInClone(grGraphNode_t *pNode, grGraphNode_t originalNode,
                                        grGraph_t clonedGraph);

/* Identity (CUDA 13.1). A graph's id and an executable's are numbers no
 * other graph or executable of the process gets, from 1, given when it is
 * made (a clone or a loaded graph gets a new one); a node's local id is
 * its creation number in its graph, the '#N' of graphrt's details and the
 * 'n<N>' of its DOT names, never reused in that graph; the local id and
 * the id of the graph holding the node (its containing graph) together
 * name the node, and so does its tools id alone: the graph id in the high
 * 32 bits, the local id in the low 32. Ids are unsigned int, as CUDA's:
 * past 2^32 graphs they wrap. Errors: grErrorInvalidValue (a NULL output
 * pointer; a graph, node or executable NULL or not live). Thread safety:
 * any thread. Mirror cudaGraphGetId, cudaGraphExecGetId,
 * cudaGraphNodeGetLocalId, cudaGraphNodeGetToolsId and
 * cudaGraphNodeGetContainingGraph. */
GR_API grError_t grGraphGetId(grGraph_t hGraph, unsigned int *graphId);
GR_API grError_t grGraphExecGetId(grGraphExec_t hGraphExec, unsigned int *graphId);
GR_API grError_t grGraphNodeGetLocalId(grGraphNode_t hNode, unsigned int *nodeId);
GR_API grError_t grGraphNodeGetToolsId(grGraphNode_t hNode, unsigned long long *toolsNodeId);
/* The graph holding hNode: a child graph's or a conditional body's own
 * graph for a node in one. */
GR_API grError_t grGraphNodeGetContainingGraph(grGraphNode_t hNode, grGraph_t *phGraph);

/* Flags of grGraphDebugDotPrint, with CUDA's values (cudaGraphDebugDotFlags). */
#define grGraphDebugDotFlagsVerbose (1u << 0)
#define grGraphDebugDotFlagsKernelNodeParams (1u << 2)
#define grGraphDebugDotFlagsMemcpyNodeParams (1u << 3)
#define grGraphDebugDotFlagsMemsetNodeParams (1u << 4)
#define grGraphDebugDotFlagsHostNodeParams (1u << 5)
#define grGraphDebugDotFlagsEventNodeParams (1u << 6)
#define grGraphDebugDotFlagsExtSemasSignalNodeParams (1u << 7)
#define grGraphDebugDotFlagsExtSemasWaitNodeParams (1u << 8)
#define grGraphDebugDotFlagsKernelNodeAttributes (1u << 9)
#define grGraphDebugDotFlagsHandles (1u << 10)
#define grGraphDebugDotFlagsConditionalNodeParams (1u << 15)

/* Writes the graph as Graphviz DOT to 'path': one box per node labelled
 * with its type and key parameters, child graphs as clusters.
 * grGraphDebugDotFlagsVerbose shows every parameter of every node; a
 * per-type flag (KernelNodeParams, MemcpyNodeParams, MemsetNodeParams,
 * HostNodeParams, EventNodeParams, ConditionalNodeParams) shows them for
 * the nodes of its types (KernelNodeAttributes for kernel nodes too);
 * grGraphDebugDotFlagsHandles adds each node's handle. The two external
 * semaphore flags are accepted and show nothing (graphrt has no such
 * nodes). Errors: grErrorInvalidValue (graph NULL or not live, path NULL,
 * flags with a bit that is not one of these, the file cannot be opened
 * or written: the detail gives the system's reason). Thread safety: not with other calls on
 * the same graph. Mirrors cudaGraphDebugDotPrint. */
GR_API grError_t grGraphDebugDotPrint(grGraph_t graph, const char *path, unsigned int flags);

/* ====================================================================== */
/* Pitched (2D and 3D) copies and memsets (docs/memory.md)                */
/* ====================================================================== */

/* The constructors of CUDA's make_cudaPitchedPtr, make_cudaExtent and
 * make_cudaPos. */
static inline grPitchedPtr make_grPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    grPitchedPtr r = {d, p, xsz, ysz};
    return r;
}

static inline grExtent make_grExtent(size_t w, size_t h, size_t d)
{
    grExtent r = {w, h, d};
    return r;
}

static inline grPos make_grPos(size_t x, size_t y, size_t z)
{
    grPos r = {x, y, z};
    return r;
}

/* Allocates at least width * height bytes of the current device's memory
 * as a pitched 2D array: rows *pitch bytes apart, *pitch the width
 * rounded up to a multiple of GR_PITCH_ALIGN (512: CUDA documents only
 * a pitch of at least width that keeps rows aligned; 512 is graphrt's
 * choice, what current GPUs' cudaMallocPitch pads narrow rows to), so
 * that every row starts aligned. On a GPU the memory comes from the
 * driver's cuMemAlloc, as grMalloc's (cuMemAllocPitch is not called). The
 * memory is a grMalloc allocation of *pitch * height bytes (freed with
 * grFree). A width or height of 0 allocates nothing: *devPtr NULL,
 * *pitch 0 and grSuccess, as grMalloc(0) (CUDA documents no rule for it).
 * Potentially unsafe during capture, as grMalloc. Errors:
 * grErrorInvalidValue (devPtr or pitch NULL), grErrorMemoryAllocation
 * (as grMalloc, or pitch * height overflows); plus the mode errors.
 * Thread safety: any thread. Mirrors cudaMallocPitch. */
#define GR_PITCH_ALIGN 512u
GR_API grError_t grMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);

/* Allocates a pitched 3D array of extent.depth slices of extent.height
 * rows of extent.width bytes: *pitchedDevPtr is {ptr, pitch, width,
 * height}, rows pitch bytes apart (as grMallocPitch) and slices pitch *
 * height bytes apart, the layout grMemcpy3D and grMemset3D take. An
 * extent with a 0 member gives {NULL, 0, width, height} and grSuccess.
 * Potentially unsafe during capture. Errors: grErrorInvalidValue
 * (pitchedDevPtr NULL), grErrorMemoryAllocation (as grMalloc, or the size
 * overflows); plus the mode errors. Thread safety: any thread. Mirrors
 * cudaMalloc3D. */
GR_API grError_t grMalloc3D(grPitchedPtr *pitchedDevPtr, grExtent extent);

/* How a copy of a batch reads its source. Mirrors cudaMemcpySrcAccessOrder
 * (CUDA's values): Stream, the source is read in stream order;
 * DuringApiCall, it may be read before the call returns (and must not be
 * touched by earlier work of the stream); Any, it may be read any time
 * until the copy completes. */
typedef enum grMemcpySrcAccessOrder {
    grMemcpySrcAccessOrderInvalid = 0,
    grMemcpySrcAccessOrderStream = 1,
    grMemcpySrcAccessOrderDuringApiCall = 2,
    grMemcpySrcAccessOrderAny = 3,
    grMemcpySrcAccessOrderMax = 0x7fffffff
} grMemcpySrcAccessOrder;

/* The flags of grMemcpyAttributes (CUDA's values). Mirrors
 * cudaMemcpyFlags. */
#define grMemcpyFlagDefault 0x0u
#define grMemcpyFlagPreferOverlapWithCompute 0x1u

/* The attributes of some copies of a batch. The location hints matter to
 * CUDA for managed memory only; graphrt checks their type (Invalid,
 * Device or Host, as cudaMemLocation) and otherwise ignores them. Mirrors
 * cudaMemcpyAttributes. */
typedef struct grMemcpyAttributes {
    grMemcpySrcAccessOrder srcAccessOrder;
    grMemLocation srcLocHint;
    grMemLocation dstLocHint;
    unsigned int flags;
} grMemcpyAttributes;

/* Queues 'count' copies on the stream: sizes[i] bytes from srcs[i] to
 * dsts[i]. The batch as a whole is in stream order; its copies run in no
 * particular order among themselves (copies that overlap give undefined
 * bytes, as in CUDA). Every copy has attributes: attrs[k] applies to the
 * copies from attrsIdxs[k] to the next entry's first copy (or the last);
 * attrsIdxs[0] must be 0, the entries strictly increasing and below
 * count, numAttrs between 1 and count. Every copy is checked (as
 * grMemcpyAsync checks one, grMemcpyDefault direction) before any is
 * queued: a refused batch queues nothing. On the CPU device the copies
 * are queued on the stream in order; on a GPU stream each goes to the
 * driver as grMemcpyAsync's does (cuMemcpyAsync; the driver's
 * cuMemcpyBatchAsync is not called). On a capturing stream the batch
 * adds one memcpy node per copy, each depending on the one before
 * (CUDA 13.3 records one batch memcpy node, a node type graphrt does not
 * have; the chain is one of the orders that node may run its copies in).
 * Errors: grErrorInvalidValue (count 0, dsts / srcs / sizes / attrs /
 * attrsIdxs NULL, a size of 0, a NULL pointer, a copy refused as
 * grMemcpyAsync refuses one; numAttrs 0 or above count, attrsIdxs[0] not
 * 0, entries not strictly increasing or not below count, a
 * srcAccessOrder that is not Stream, DuringApiCall or Any, flags other
 * than grMemcpyFlagPreferOverlapWithCompute, a location hint of another
 * type; the legacy default stream, NULL or grStreamLegacy, which CUDA
 * refuses for batches), grErrorMemoryAllocation; plus the capture errors
 * of work and the stream errors. Thread safety: any thread. Mirrors
 * cudaMemcpyBatchAsync (CUDA 13's form, without failIdx, as CUDA 13.0's
 * cuda_runtime_api.h declares it). */
GR_API grError_t grMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                    size_t count, grMemcpyAttributes *attrs, size_t *attrsIdxs,
                                    size_t numAttrs, grStream_t hStream);

/* One copy with attributes: grMemcpyBatchAsync of a single copy (CUDA
 * documents the attributes by reference to the batch), with the same
 * checks, GPU lowering and capture (one memcpy node). Errors: as
 * grMemcpyBatchAsync (attr NULL, size 0, dst or src NULL, a copy refused
 * as grMemcpyAsync refuses one, the attribute's rules, the legacy
 * stream), grErrorMemoryAllocation; plus the capture errors of work and
 * the stream errors. Thread safety: any thread. Mirrors
 * cudaMemcpyWithAttributesAsync (CUDA 13). */
GR_API grError_t grMemcpyWithAttributesAsync(void *dst, const void *src, size_t size,
                                             grMemcpyAttributes *attr, grStream_t stream);

/* Copies height rows of width bytes from src (rows spitch bytes apart) to
 * dst (rows dpitch bytes apart), synchronously as grMemcpy (after the
 * legacy stream's work). width or height 0 copies nothing (success, no
 * wait). The rows are copied one by one; overlapping rows are undefined in
 * CUDA (graphrt copies each row as memmove). The region, from its first
 * row's start to its last row's end, is bounds-checked as grMemcpy checks
 * a range (the detail names the row at fault where a row runs past its
 * allocation). Potentially unsafe during
 * capture as grMemcpy; on a capturing stream a copy is recorded only when
 * it is one contiguous range (see grMemcpy2DAsync). A contiguous copy is
 * grMemcpy's; another one on a GPU stream, or touching a GPU's memory, is
 * the driver's cuMemcpy3DAsync (cuMemsetD2D8Async for the memsets below).
 * The codes are CUDA 13's, probed on an H200 (docs/memory.md). Errors:
 * grErrorInvalidMemcpyDirection (kind not a grMemcpyKind),
 * grErrorInvalidPitchValue (height > 1 and width greater than dpitch or
 * spitch), grErrorInvalidValue (one row and a pitch neither 0 nor at least
 * width; dst or src NULL with a copy to do; a region that overflows the
 * address space; a row outside the allocations); plus grMemcpy's capture
 * and stream errors.
 * Thread safety: any thread. Mirrors cudaMemcpy2D. */
GR_API grError_t grMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, grMemcpyKind kind);

/* grMemcpy2D queued on a stream. On a capturing stream, a copy whose rows
 * are contiguous on both sides (pitches equal to width, or height 1)
 * becomes a 1D memcpy node; any other copy becomes one memcpy node whose
 * grGraphMemcpyNodeGetParams gives srcPtr {src, spitch, width, height},
 * dstPtr {dst, dpitch, width, height} and extent {width, height, 1}
 * (an empty copy records nothing). Errors: as grMemcpy2D, plus grMemcpyAsync's capture and
 * stream errors. Thread safety: any thread. Mirrors cudaMemcpy2DAsync. */
GR_API grError_t grMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t height, grMemcpyKind kind, grStream_t stream);

/* A 3D copy of p->extent (width bytes, height rows, depth slices) from
 * p->srcPtr at p->srcPos to p->dstPtr at p->dstPos, synchronously as
 * grMemcpy. A pitched pointer's slices are pitch * ysize bytes apart;
 * xsize is not used. A zero extent copies nothing. The codes are CUDA
 * 13's, probed on an H200. Errors: grErrorInvalidPitchValue (with more
 * than one row, a pitch smaller than the width; with depth > 1, a ysize
 * smaller than the height), grErrorInvalidValue (p NULL; srcArray or
 * dstArray not NULL: arrays are not part of graphrt; a NULL ptr with a
 * copy to do; one row and a pitch neither 0 nor at least the width;
 * pos.x + width beyond the pitch; depth 1 and a ysize neither 0 nor at
 * least the height; a row outside the allocations),
 * grErrorInvalidMemcpyDirection; plus grMemcpy's capture and stream
 * errors. Thread safety: any thread. Mirrors cudaMemcpy3D. */
GR_API grError_t grMemcpy3D(const grMemcpy3DParms *p);

/* grMemcpy3D queued on a stream; captured as grMemcpy2DAsync captures (a
 * contiguous copy becomes a 1D memcpy node, any other one memcpy node
 * whose grGraphMemcpyNodeGetParams gives *p back). Errors: as grMemcpy3D plus the capture and stream
 * errors. Thread safety: any thread. Mirrors cudaMemcpy3DAsync. */
GR_API grError_t grMemcpy3DAsync(const grMemcpy3DParms *p, grStream_t stream);

/* Sets height rows of width bytes, rows pitch bytes apart, to
 * (unsigned char)value, synchronously as grMemset. width or height 0 sets
 * nothing; with one row the pitch is not checked. Errors:
 * grErrorInvalidValue (height > 1 and a pitch smaller than width, the code
 * CUDA 13 answers (probed); devPtr NULL with bytes to set; a row outside
 * the allocations); plus grMemset's capture and stream errors. Thread
 * safety: any thread. Mirrors cudaMemset2D. */
GR_API grError_t grMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);

/* grMemset2D queued on a stream; on a capturing stream it adds a memset
 * node of height rows (elementSize 1). Errors: as grMemset2D plus
 * grMemsetAsync's capture and stream errors. Thread safety: any thread.
 * Mirrors cudaMemset2DAsync. */
GR_API grError_t grMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                 grStream_t stream);

/* Sets extent (width bytes, height rows, depth slices) of pitchedDevPtr
 * (rows pitch bytes apart, slices pitch * ysize bytes apart) to
 * (unsigned char)value, synchronously as grMemset. A zero extent sets
 * nothing. Errors: grErrorInvalidValue (each as CUDA 13 answers, probed:
 * ptr NULL with bytes to set; a pitch smaller than width with more than
 * one row; a ysize smaller than height; a row outside the allocations);
 * plus grMemset's capture and stream errors. Thread safety: any thread.
 * Mirrors cudaMemset3D. */
GR_API grError_t grMemset3D(grPitchedPtr pitchedDevPtr, int value, grExtent extent);

/* grMemset3D queued on a stream; on a capturing stream it adds one memset
 * node when its rows are evenly spaced (depth 1, or ysize equal to
 * height), and is refused with grErrorNotSupported otherwise (the capture
 * is left as it was). Errors: as grMemset3D plus the capture and stream
 * errors. Thread safety: any thread. Mirrors cudaMemset3DAsync. */
GR_API grError_t grMemset3DAsync(grPitchedPtr pitchedDevPtr, int value, grExtent extent, grStream_t stream);

/* Adds a memcpy node described by 3D parameters: a 1D, 2D or 3D copy of
 * extent.width bytes x height rows x depth slices, as grMemcpy3D copies
 * it (rows are copied one by one, the bytes between them left alone).
 * The node keeps the parameters as given (grGraphMemcpyNodeGetParams
 * reports them). Checked as grMemcpy3D checks them, with its codes, and
 * every row of each side must lie inside one graphrt allocation or
 * outside all of them (checked again at instantiation and launch when
 * allocations changed since). Errors: those of every add,
 * grErrorInvalidValue (pCopyParams NULL, srcArray or dstArray not NULL,
 * an extent with a zero dimension as CUDA 13 refuses it, a NULL ptr, one
 * row and a pitch neither 0 nor at least the width, pos.x + width beyond
 * the pitch, depth 1 and a ysize neither 0 nor at least the height, a
 * row outside the allocations: the detail names the first such row),
 * grErrorInvalidPitchValue (with more than one row, a pitch smaller than
 * the width; with depth > 1, a ysize smaller than the height),
 * grErrorInvalidMemcpyDirection, grErrorMemoryAllocation. Thread safety:
 * not with other calls on the same graph. Mirrors
 * cudaGraphAddMemcpyNode. */
GR_API grError_t grGraphAddMemcpyNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grMemcpy3DParms *pCopyParams);

/* Sets a memcpy node's copy from 3D parameters, with the rules and errors
 * of grGraphAddMemcpyNode (besides those of every Set). Thread safety: not
 * with other calls on the node's graph. Mirrors
 * cudaGraphMemcpyNodeSetParams. */
GR_API grError_t grGraphMemcpyNodeSetParams(grGraphNode_t node, const grMemcpy3DParms *pNodeParams);

/* Sets an executable memcpy node's copy from 3D parameters: the rules of
 * grGraphAddMemcpyNode, then those of grGraphExecMemcpyNodeSetParams1D
 * (with its errors: the memory types of both sides stay those the node
 * was instantiated with, as in CUDA). As CUDA's documentation says, the
 * node's copy and the new one must both be 1D (an extent of one row and
 * one slice): grErrorInvalidValue otherwise (a 2D or 3D copy changes only
 * through a new executable). The graph's node is not changed. Thread safety: as the other
 * exec setters. Mirrors cudaGraphExecMemcpyNodeSetParams. */
GR_API grError_t grGraphExecMemcpyNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemcpy3DParms *pNodeParams);

/* ====================================================================== */
/* Symbols (graphrt's form of __device__ globals; docs/memory.md)         */
/* ====================================================================== */

/*
 * A symbol is a C object the program registers under its address: the
 * address is what CUDA's symbol argument is (the __device__ variable), and
 * every symbol call looks the address up among the registered ones (its
 * start, exactly). A symbol lives in host memory; on a GPU the program
 * would use a module global, which graphrt does not load.
 */

/* Registers the 'size' bytes at 'symbol' (a global, or any memory that
 * outlives its registration) under an optional name (copied; NULL: none),
 * which details quote. Errors: grErrorInvalidValue (symbol NULL, size 0, a
 * range that wraps, a range overlapping a registered symbol),
 * grErrorMemoryAllocation. Thread safety: any thread. graphrt's own (CUDA
 * registers symbols through the compiler's generated code). */
GR_API grError_t grRegisterSymbol(const void *symbol, size_t size, const char *name);

/* Forgets a registered symbol; copies already queued or captured keep its
 * address. Errors: grErrorInvalidSymbol (not registered). Thread safety:
 * any thread. graphrt's own. */
GR_API grError_t grUnregisterSymbol(const void *symbol);

/* The address (the symbol itself) and size of a registered symbol.
 * Errors: grErrorInvalidValue (devPtr or size NULL), grErrorInvalidSymbol
 * (symbol not registered). Thread safety: any thread. Mirror
 * cudaGetSymbolAddress / cudaGetSymbolSize. */
GR_API grError_t grGetSymbolAddress(void **devPtr, const void *symbol);
GR_API grError_t grGetSymbolSize(size_t *size, const void *symbol);

/* Copies count bytes from src to symbol + offset, synchronously as
 * grMemcpy. kind: grMemcpyHostToDevice (CUDA's default),
 * grMemcpyDeviceToDevice or grMemcpyDefault. Errors: grErrorInvalidSymbol
 * (symbol not registered), grErrorInvalidValue (count > 0 and offset + count beyond the
 * symbol's size; src NULL with count > 0; a source range refused as
 * grMemcpy refuses one), grErrorInvalidMemcpyDirection (another kind);
 * plus grMemcpy's errors. Thread safety: any thread. Mirrors
 * cudaMemcpyToSymbol. */
GR_API grError_t grMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                  grMemcpyKind kind);

/* Copies count bytes from symbol + offset to dst, synchronously as
 * grMemcpy. kind: grMemcpyDeviceToHost (CUDA's default),
 * grMemcpyDeviceToDevice or grMemcpyDefault. Errors: as grMemcpyToSymbol
 * with dst for src. Mirrors cudaMemcpyFromSymbol. */
GR_API grError_t grMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                    grMemcpyKind kind);

/* grMemcpyToSymbol / grMemcpyFromSymbol queued on a stream (a memcpy node
 * on a capturing stream). Errors: as the synchronous forms plus
 * grMemcpyAsync's capture and stream errors. Mirror
 * cudaMemcpyToSymbolAsync / cudaMemcpyFromSymbolAsync. */
GR_API grError_t grMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                       grMemcpyKind kind, grStream_t stream);
GR_API grError_t grMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                         grMemcpyKind kind, grStream_t stream);

/* Memcpy nodes to and from a symbol: 1D copy nodes whose symbol side is
 * symbol + offset, resolved when the call is made (a later
 * grUnregisterSymbol does not change the node; GetParams reports the
 * address). Errors: those of grMemcpyToSymbol / FromSymbol for the symbol,
 * offset and kind, then those of grGraphAddMemcpyNode1D,
 * grGraphMemcpyNodeSetParams1D or grGraphExecMemcpyNodeSetParams1D (whose
 * name the detail then gives). Thread safety: as those calls. Mirror
 * cudaGraphAddMemcpyNodeToSymbol, cudaGraphAddMemcpyNodeFromSymbol,
 * cudaGraphMemcpyNodeSetParamsToSymbol / FromSymbol and
 * cudaGraphExecMemcpyNodeSetParamsToSymbol / FromSymbol. */
GR_API grError_t grGraphAddMemcpyNodeToSymbol(grGraphNode_t *pGraphNode, grGraph_t graph,
                                              const grGraphNode_t *pDependencies, size_t numDependencies,
                                              const void *symbol, const void *src, size_t count,
                                              size_t offset, grMemcpyKind kind);
GR_API grError_t grGraphAddMemcpyNodeFromSymbol(grGraphNode_t *pGraphNode, grGraph_t graph,
                                                const grGraphNode_t *pDependencies, size_t numDependencies,
                                                void *dst, const void *symbol, size_t count, size_t offset,
                                                grMemcpyKind kind);
GR_API grError_t grGraphMemcpyNodeSetParamsToSymbol(grGraphNode_t node, const void *symbol, const void *src,
                                                    size_t count, size_t offset, grMemcpyKind kind);
GR_API grError_t grGraphMemcpyNodeSetParamsFromSymbol(grGraphNode_t node, void *dst, const void *symbol,
                                                      size_t count, size_t offset, grMemcpyKind kind);
GR_API grError_t grGraphExecMemcpyNodeSetParamsToSymbol(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                        const void *symbol, const void *src, size_t count,
                                                        size_t offset, grMemcpyKind kind);
GR_API grError_t grGraphExecMemcpyNodeSetParamsFromSymbol(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                          void *dst, const void *symbol, size_t count,
                                                          size_t offset, grMemcpyKind kind);

/* ====================================================================== */
/* Stream memory operations (graphrt's own; docs/stream-memops.md)        */
/* ====================================================================== */

/* Conditions of grStreamWaitValue32/64 (the driver's
 * CU_STREAM_WAIT_VALUE_*, same values): Geq waits until
 * (int32_t)(*addr - value) >= 0 (int64_t for 64 bits: a cyclic comparison),
 * Eq until *addr == value, And until (*addr & value) != 0, Nor until
 * ~(*addr | value) != 0. Flush (or'ed in) is refused with
 * grErrorNotSupported, as CUDA 13 refuses it on an H200 (a device that
 * cannot flush remote writes). */
#define grStreamWaitValueGeq 0x0u
#define grStreamWaitValueEq 0x1u
#define grStreamWaitValueAnd 0x2u
#define grStreamWaitValueNor 0x3u
#define grStreamWaitValueFlush (1u << 30)

/* Flags of grStreamWriteValue32/64 (CU_STREAM_WRITE_VALUE_*): Default
 * writes with a full barrier (earlier work's writes are visible first).
 * NoMemoryBarrier is refused with grErrorInvalidValue, as CUDA 13's driver
 * refuses it on an H200. */
#define grStreamWriteValueDefault 0x0u
#define grStreamWriteValueNoMemoryBarrier 0x1u

/* Queues a wait: the stream's later work runs once the 32-bit (64-bit)
 * word at addr meets the condition in flags. The word is read atomically;
 * other threads should store it atomically too (C11 atomics or
 * __atomic_store_n). The stream's thread spins briefly, then runs other
 * work while it waits (a worker runs other streams' work and graph nodes
 * it can take), then sleeps: a grStreamWriteValue32/64 wakes it at once,
 * a store by other means is noticed within about a millisecond (polled).
 * So a write queued on another stream runs even when the waiting thread
 * is the only worker; a write queued behind the wait on its own stream
 * never does. A wait never satisfied blocks the stream
 * for good, as in CUDA: grStreamSynchronize on it does not return;
 * grStreamDestroy does. Errors: grErrorInvalidValue (addr NULL, not
 * aligned to 4 (8) bytes, or refused as grMemcpy refuses a range; flags
 * not a condition), grErrorNotSupported (Flush; a GPU's memory on a CPU
 * stream), grErrorMemoryAllocation; plus the stream errors, and on a GPU
 * stream the driver's (cuStreamBatchMemOp runs it there, and refuses a
 * word the GPU cannot reach). On a capturing stream
 * the call adds a batch memory operation node holding the one operation
 * (grGraphNodeTypeBatchMemOp, as CUDA 13 captures it). Thread safety:
 * any thread. graphrt's own, mirroring the driver's cuStreamWaitValue32 /
 * cuStreamWaitValue64. */
GR_API grError_t grStreamWaitValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags);
GR_API grError_t grStreamWaitValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags);

/* Queues an atomic write of value to the 32-bit (64-bit) word at addr, in
 * stream order, waking the grStreamWaitValue32/64 waits that sleep.
 * Errors: grErrorInvalidValue (addr as grStreamWaitValue32 checks it;
 * flags other than Default), grErrorNotSupported and
 * the others as grStreamWaitValue32. Thread safety: any thread. graphrt's
 * own, mirroring cuStreamWriteValue32 / cuStreamWriteValue64. */
GR_API grError_t grStreamWriteValue32(grStream_t stream, void *addr, uint32_t value, unsigned int flags);
GR_API grError_t grStreamWriteValue64(grStream_t stream, void *addr, uint64_t value, unsigned int flags);

/* Queues count operations of paramArray (grStreamBatchMemOpParams) on
 * the stream, in array order, each as grStreamWaitValue32/64 or
 * grStreamWriteValue32/64 queues it (a grStreamMemOpBarrier: a full
 * memory fence). All operations are checked before any is queued. On a
 * capturing stream the batch becomes one batch memory operation node
 * holding a copy of the array (count 0 records nothing).
 * Errors: grErrorInvalidValue (flags not 0; count above
 * GR_BATCH_MEM_OP_MAX; paramArray NULL with count > 0, or not aligned to
 * an array of grStreamBatchMemOpParams, or not count readable elements,
 * which graphrt asks the kernel without reading them; an operation code
 * unknown; an operation's address or flags refused as the single calls
 * refuse them; a barrier's flags not a grStreamMemoryBarrierType*),
 * grErrorNotSupported (grStreamMemOpFlushRemoteWrites or
 * grStreamWaitValueFlush, as an H200 answers; a GPU's memory on a CPU
 * stream), plus the stream and capture errors, and on a GPU stream the
 * driver's (the batch is one cuStreamBatchMemOp there). count 0 succeeds and queues nothing, as in CUDA 13.
 * Thread safety: any thread. graphrt's own, mirroring the driver's
 * cuStreamBatchMemOp. */
GR_API grError_t grStreamBatchMemOp(grStream_t stream, unsigned int count,
                                    grStreamBatchMemOpParams *paramArray, unsigned int flags);

/* Adds a batch memory operation node (grGraphNodeTypeBatchMemOp) running
 * nodeParams->count operations of nodeParams->paramArray in order (the
 * array is copied), after numDependencies nodes of pDependencies. The
 * operations are checked as grStreamBatchMemOp checks them; the node's
 * waits and writes run on the CPU as the stream's do
 * (docs/stream-memops.md says how a wait in a graph waits). Errors:
 * grErrorInvalidValue (pGraphNode or nodeParams NULL, count 0, and what
 * grStreamBatchMemOp refuses), grErrorNotSupported (as there),
 * grErrorMemoryAllocation, plus the graph and dependency errors. Thread
 * safety: as other graph edits (one thread per graph). graphrt's own,
 * mirroring the driver's cuGraphAddBatchMemOpNode. */
GR_API grError_t grGraphAddBatchMemOpNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          const grBatchMemOpNodeParams *nodeParams);

/* Reads a batch memory operation node's parameters: ctx NULL, count,
 * flags, and paramArray pointing at the node's own array (valid until the
 * node's parameters change or the node is destroyed; do not write it), as
 * the driver hands out its own. Errors: grErrorInvalidValue (node not a
 * live batch memory operation node, nodeParams_out NULL). Thread safety:
 * as other graph reads. Mirrors the driver's
 * cuGraphBatchMemOpNodeGetParams. */
GR_API grError_t grGraphBatchMemOpNodeGetParams(grGraphNode_t node, grBatchMemOpNodeParams *nodeParams_out);

/* Replaces a batch memory operation node's operations with a copy of
 * nodeParams' (checked as grGraphAddBatchMemOpNode checks them; any count
 * and operations). Executables instantiated before keep theirs. Errors:
 * those of grGraphBatchMemOpNodeGetParams and grGraphAddBatchMemOpNode;
 * a refused call leaves the node as it was. Thread safety: as other graph
 * edits. Mirrors the driver's cuGraphBatchMemOpNodeSetParams. */
GR_API grError_t grGraphBatchMemOpNodeSetParams(grGraphNode_t node, const grBatchMemOpNodeParams *nodeParams);

/* Sets the operations that node's copy in hGraphExec runs from its next
 * launch on (launches queued before run the old ones). As in CUDA, only
 * the addresses, values and flags of the operations may change: the count
 * and each operation's type must stay those the executable was built
 * with. Errors: grErrorInvalidValue (hGraphExec not live; node not a batch
 * memory operation node of the graph it was instantiated from, or a
 * node of a child graph; a different count or operation type; what
 * grGraphAddBatchMemOpNode refuses), grErrorNotSupported (as there; an
 * executable instantiated on a GPU). Thread safety: any thread; launches
 * of the executable are ordered around the change (as the other
 * grGraphExec*SetParams). Mirrors the driver's
 * cuGraphExecBatchMemOpNodeSetParams. */
GR_API grError_t grGraphExecBatchMemOpNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    const grBatchMemOpNodeParams *nodeParams);

/* ====================================================================== */
/* Graph files (graphrt's own; docs/graph-files.md)                       */
/* ====================================================================== */

/*
 * A graph file is a versioned, line-oriented text form of a graph: every
 * node with its parameters, the edges in order, child graphs nested.
 * Kernels and host functions appear by name (the names of grKernelCreate
 * and grHostFnRegister), memory as symbolic buffers with sizes and
 * offsets, events as symbolic events. The same graph saved twice gives the
 * same bytes. The format is specified in docs/graph-files.md.
 */

/* Registers host function fn under 'name' (copied; 1..256 bytes, unique
 * among registered host functions; a function has one name), so that
 * graph files can name it: a host node of fn is saved as "host NAME" and
 * loaded back as fn. userData is the userData a loaded host node gets
 * where the saved node had that same pointer (saved as the word
 * 'registered'). Errors: grErrorInvalidValue (fn NULL, name NULL, empty
 * or too long, the name or the function registered already),
 * grErrorMemoryAllocation. Thread safety: any thread. graphrt's own (CUDA
 * has no names for host functions). */
GR_API grError_t grHostFnRegister(grHostFn_t fn, const char *name, void *userData);

/* Takes fn off the registry of host functions; graphs already loaded keep
 * it. Errors: grErrorInvalidValue (fn not registered). Thread safety: any
 * thread. graphrt's own. */
GR_API grError_t grHostFnUnregister(grHostFn_t fn);

/* Writes graph as a graph file to 'path' (created or truncated); the
 * same graph always gives the same bytes. flags must be 0. Pointers in
 * kernel arguments, copies, memsets and host userData that point into
 * graphrt allocations (grMalloc, grMallocHost, pools) are saved as buffers
 * with offsets, pointers into the memory of the graph's allocation nodes
 * as offsets from those nodes; other kernel argument bytes by value; the
 * memory of a copy or memset that graphrt did not allocate as a host
 * buffer of its own; a host userData that is none of these and not the
 * function's registered userData by value (meaningful only in this
 * process). Conditional nodes are saved with their bodies, their handles
 * as declarations (default value, flags), and a kernel argument equal to
 * a live handle of the graph's nest as that handle's name. Errors: grErrorInvalidValue (graph NULL or not live, path
 * NULL, flags not 0, a host node whose function is not registered with
 * grHostFnRegister, the file cannot be written: the detail gives the node
 * or the system's reason), grErrorNotSupported (a free node of another
 * graph's allocation), grErrorMemoryAllocation. Thread safety: not with
 * other calls on the same graph. graphrt's own. */
GR_API grError_t grGraphSaveToFile(grGraph_t graph, const char *path, unsigned int flags);

/* Flags of grGraphLoadFromFile. */
/* Resolves every kernel and host function to a built-in stand-in instead
 * of the registered ones: kernels of the saved parameter layout whose
 * blocks do nothing (or spin, see grGraphSetStandInWork), host functions
 * that do the same, so that any graph file can be instantiated and
 * replayed without the program that made it. */
#define grGraphLoadStandIns (1u << 0)

/* Reads a graph file into a new graph (*graph). Kernels resolve to the
 * live kernels of those names (of the saved parameter sizes) and host
 * functions to the registered ones, unless grGraphLoadStandIns is given.
 * Buffers are allocated (grMalloc or grMallocHost as saved, contents
 * zero), events created and conditional handles made for the new graph
 * (kernel arguments naming one get its value); the loaded graph owns
 * them, with its clones and the executables instantiated from them: they
 * are freed when the last of those is destroyed (destroy them before grDeviceReset, which
 * frees all memory). Errors: grErrorInvalidValue (graph or path NULL,
 * flags unknown, the file cannot be opened or read (a directory: "cannot
 * read 'PATH': Is a directory"), a malformed or truncated file,
 * an unknown version, a kernel or host function name that is not
 * registered, a kernel whose parameter sizes differ from the saved ones:
 * the detail reads "PATH:LINE: what is wrong"), grErrorMemoryAllocation.
 * On failure *graph is untouched and nothing is left allocated. Thread
 * safety: any thread. graphrt's own. */
GR_API grError_t grGraphLoadFromFile(grGraph_t *graph, const char *path, unsigned int flags);

/* Sets how long the node of a stand-in runs from now on: every stand-in
 * kernel node spins nsPerNode nanoseconds spread over its blocks, every
 * stand-in host node nsPerNode (0, the default: they return at once).
 * Process-wide. Errors: none (grSuccess). Thread safety: any thread
 * (atomic). graphrt's own. */
GR_API grError_t grGraphSetStandInWork(unsigned long long nsPerNode);

/* ====================================================================== */
/* Graph analysis (graphrt's own)                                         */
/* ====================================================================== */

/*
 * grGraphAnalyze reads a graph's shape and reports what makes a legal graph
 * slow or wrong: its critical path and width, edges that change nothing,
 * nodes cut off from the rest, and joins whose "parallel" branches are
 * chained to each other (the serialised fork-join). docs/analysis.md
 * explains each figure and finding. A graph captured from streams also
 * remembers which grStreamWaitEvent made each edge between streams, so a
 * serialised join names the event and the two calls that chained its
 * branches. The analysis covers the graph's own nodes: a child-graph node
 * counts as one node. The report names nodes by handle, so print it
 * (grGraphAnalysisPrint) while its graph lives.
 */

/* An edge from -> to. */
typedef struct grGraphAnalysisEdge {
    grGraphNode_t from, to;
} grGraphAnalysisEdge;

/* The capture calls behind an edge between two streams of a capture:
 * grEventRecord(event, recordStream) then grStreamWaitEvent(waitStream,
 * event). Calls are numbered from 1 in the order the capture saw its
 * calls (operations, records and waits on all its streams). The handles are
 * the values they had then; they may have been destroyed since. */
typedef struct grGraphCaptureCause {
    unsigned long long captureId; /* as grStreamGetCaptureInfo reported it */
    grEvent_t event;
    grStream_t recordStream;
    unsigned long long recordCall;
    grStream_t waitStream;
    unsigned long long waitCall;
} grGraphCaptureCause;

/* A serialised fork-join: 'join' depends on the last nodes of two branches
 * that were meant to run side by side, but the second branch depends on
 * the first through the edge 'link', so they run one after the other (and
 * the edge from the first branch's last node to 'join' is redundant).
 * Each branch lists its nodes in order: for a captured graph, the nodes
 * its stream captured; otherwise the chain of single-edge nodes ending at
 * the join's dependency. In a captured graph a redundant edge into a join
 * is a serialised fork-join when the path that implies it crosses from
 * one stream to another; a graph built by hand does not say which
 * branches were meant to run side by side, so there a redundant edge
 * p -> join is one when p reaches some but not all of the join's other
 * dependencies (one that reaches all is where they start: a shortcut). */
typedef struct grGraphSerialisedJoin {
    grGraphNode_t join;
    grGraphNode_t *firstBranch; /* numFirstBranch nodes, the last one a dependency of join */
    size_t numFirstBranch;
    grGraphNode_t *secondBranch; /* numSecondBranch nodes, the last one a dependency of join */
    size_t numSecondBranch;
    grStream_t firstStream, secondStream; /* the streams that captured them, or NULL */
    grGraphAnalysisEdge link;             /* link.to is secondBranch[0] */
    int hasCause;                         /* nonzero: 'cause' made 'link' */
    grGraphCaptureCause cause;
} grGraphSerialisedJoin;

/* The report of grGraphAnalyze. Arrays are owned by the report and freed
 * by grGraphAnalysisDestroy; NULL when empty. */
typedef struct grGraphAnalysis {
    grGraph_t graph; /* the graph analysed */
    size_t numNodes, numEdges, numRoots, numSinks;
    /* Levels: a node's level is the number of nodes on the longest path
     * from a root to it, less one; 'depth' is the number of levels, i.e.
     * the nodes on a critical path. levelWidths[i] is the number of nodes
     * on level i (numLevels == depth). */
    size_t depth;
    size_t *levelWidths;
    size_t numLevels;
    size_t maxWidth;     /* the widest level's width */
    double averageWidth; /* numNodes / depth (0 for an empty graph) */
    /* A critical path, root to sink: the longest in nodes, or with costs
     * (grGraphAnalyzeWithCosts) the costliest, whose cost is
     * criticalPathCost (0 without costs). */
    grGraphNode_t *criticalPath;
    size_t numCriticalPath;
    double criticalPathCost;
    /* Weakly connected components (0 for an empty graph). */
    size_t numComponents;
    /* Findings. Redundant edges: u -> v where v is also reachable from u
     * by another path, in u's creation order then edge order; except the
     * edges along one captured stream's order (u and v recorded by the
     * same stream), which capture makes whenever a stream joins branches
     * it forked without work of its own in between: those are only
     * counted, in numRedundantStreamEdges. */
    grGraphAnalysisEdge *redundantEdges;
    size_t numRedundantEdges;
    size_t numRedundantStreamEdges;
    /* Nodes outside the largest component: no root of the rest of the
     * graph reaches them and they lead to none of its sinks. Creation
     * order. */
    grGraphNode_t *detachedNodes;
    size_t numDetachedNodes;
    /* Serialised fork-joins, joins in creation order: at most
     * GR_GRAPH_ANALYSIS_MAX_JOINS, found by at most 16 times as many
     * searches of the graph (each shows among the redundant edges too,
     * which are all listed). */
    grGraphSerialisedJoin *serialisedJoins;
    size_t numSerialisedJoins;
    int fromCapture; /* nonzero: some nodes were captured and carry where they came from */
    /* Room for later figures; zero. */
    uint64_t reserved[8];
} grGraphAnalysis;

/* The most serialised fork-joins a report details. */
#define GR_GRAPH_ANALYSIS_MAX_JOINS 64u

/* Analyses 'graph' into *report (overwritten: it owns nothing before the
 * call; release it with grGraphAnalysisDestroy). Runs in O(V * E / 64)
 * word operations for the redundant edges, within 64 MiB of reachability
 * sets, and O(V + E) for the rest; the graph is not changed. Errors:
 * grErrorInvalidValue (graph NULL or not live, report NULL, flags not 0;
 * *report untouched), grErrorMemoryAllocation (*report zeroed). Thread
 * safety: not with other calls on the same graph. graphrt's own. */
GR_API grError_t grGraphAnalyze(grGraph_t graph, grGraphAnalysis *report, unsigned int flags);

/* grGraphAnalyze with a cost per node (e.g. measured times): nodeCosts[i]
 * is the cost of the i-th node in the order grGraphGetNodes lists them
 * (creation order), numNodeCosts the graph's node count. The critical path
 * is then the costliest path, and criticalPathCost its cost. Errors: those
 * of grGraphAnalyze, and grErrorInvalidValue (nodeCosts NULL, numNodeCosts
 * not the node count, a cost negative or not finite). Thread safety: as
 * grGraphAnalyze. graphrt's own. */
GR_API grError_t grGraphAnalyzeWithCosts(grGraph_t graph, grGraphAnalysis *report, unsigned int flags,
                                         const double *nodeCosts, size_t numNodeCosts);

/* Frees the arrays of a report of grGraphAnalyze and zeroes it (a zeroed
 * report may be destroyed again). Errors: grErrorInvalidValue (report
 * NULL). Thread safety: not with other calls on the same report.
 * graphrt's own. */
GR_API grError_t grGraphAnalysisDestroy(grGraphAnalysis *report);

/* Flags of grGraphAnalysisPrint. */
#define grGraphAnalysisPrintFindingsOnly (1u << 0) /* only the findings, nothing if none */

/* Writes a report as text to 'stream': the figures, then each
 * finding on lines of its own, nodes named as "kernel node #3 'blur'"
 * (type, creation number, kernel name); with
 * grGraphAnalysisPrintFindingsOnly only the findings, each line starting
 * "graphrt: analysis: ". The report's graph must still live. Errors:
 * grErrorInvalidValue (report or stream NULL, flags other than
 * grGraphAnalysisPrintFindingsOnly, a write failed). Thread safety: not
 * with other calls on the report's graph. graphrt's own. */
GR_API grError_t grGraphAnalysisPrint(const grGraphAnalysis *report, FILE *stream, unsigned int flags);

/* ====================================================================== */
/* Stream capture                                                         */
/* ====================================================================== */

/*
 * Between grStreamBeginCapture and grStreamEndCapture, work issued to the
 * capturing stream is recorded as nodes of a graph instead of running:
 * kernel launches, grMemcpyAsync, grMemsetAsync and host functions become
 * nodes depending on the stream's previous work. grEventRecord on a
 * capturing stream followed by grStreamWaitEvent on another stream makes
 * that stream join the capture (fork); waiting back on an event recorded
 * in it joins it again. Every stream that joined must be joined back
 * before the capture ends. The rules, each with its source, are listed in
 * docs/capture.md. A blocking stream is one not created with
 * grStreamNonBlocking (grStreamPerThread included); the legacy stream
 * synchronises with blocking streams, so it must not be used while one of
 * them takes part in a capture.
 *
 * The capture errors of work: a call that issues work to a stream
 * (grLaunchKernel, grMemcpyAsync, grMemsetAsync, grLaunchHostFunc,
 * grEventRecord, grStreamWaitEvent, grMallocAsync, grMallocFromPoolAsync,
 * grFreeAsync, grGraphLaunch) may also return, when the stream takes part
 * in a capture, grErrorStreamCaptureInvalidated (the capture was
 * invalidated earlier: nothing is recorded, and the detail names the first
 * call that invalidated it) and grErrorMemoryAllocation (out of memory
 * recording the node), and, when it does not, grErrorStreamCaptureImplicit
 * (the stream is the legacy stream, NULL or grStreamLegacy, and a blocking
 * stream takes part in a capture: the captures with a blocking stream are
 * invalidated).
 *
 * The mode errors: a potentially unsafe call (see grStreamCaptureMode) that
 * the captures in progress forbid to the calling thread returns
 * grErrorStreamCaptureUnsupported and invalidates the captures that forbade
 * it.
 *
 * Thread safety: work may be issued to the streams of a capture from any
 * thread, whatever the modes (each capture has its own lock); the modes
 * decide only which threads are refused the potentially unsafe calls and
 * which thread may end the capture. grStreamEndCapture must not run
 * concurrently with another call that uses a stream of that capture or an
 * event recorded in it (work issued to the stream, as CUDA asks too, a
 * wait on the event, grStreamGetCaptureInfo,
 * grStreamUpdateCaptureDependencies, a second end), and two
 * grStreamBeginCapture* calls on one stream must not run at the same time
 * (both could succeed). Every captured operation adds a node
 * to the capture's graph, so while the capture is in progress that graph
 * (the graph_out of grStreamGetCaptureInfo, or the graph given to
 * grStreamBeginCaptureToGraph) must not be used by other calls
 * concurrently with work issued to the capture, and must not be destroyed.
 */

/* What grStreamIsCapturing / grStreamGetCaptureInfo report. Mirrors
 * cudaStreamCaptureStatus. */
typedef enum grStreamCaptureStatus {
    grStreamCaptureStatusNone = 0,       /* not capturing */
    grStreamCaptureStatusActive = 1,     /* capturing */
    grStreamCaptureStatusInvalidated = 2 /* capturing, but an illegal call
                                            invalidated the capture: only
                                            grStreamEndCapture is useful */
} grStreamCaptureStatus;

/* Which "potentially unsafe" calls (grMalloc, grMallocHost, grFree,
 * grFreeHost, grStreamSynchronize and grStreamQuery of a stream that takes
 * part in no capture, grEventSynchronize and grEventQuery of an event not
 * last recorded in a capture) are refused while captures are in progress.
 * A thread is refused them when its own mode (grThreadExchangeStream-
 * CaptureMode, default Global) is not Relaxed and either it began a
 * capture that is not Relaxed, or its mode is Global and another thread
 * began a Global capture. A refused call returns
 * grErrorStreamCaptureUnsupported and invalidates the captures that
 * forbade it (the mode errors). grDeviceSynchronize, and synchronising or
 * querying a stream or an event of a capture in progress, are refused in
 * every mode (see their comments); grMemcpy and grMemset are allowed in
 * every mode. Also: a capture begun in Global or ThreadLocal mode must be
 * ended by the thread that began it. Mirrors cudaStreamCaptureMode. */
typedef enum grStreamCaptureMode {
    grStreamCaptureModeGlobal = 0,
    grStreamCaptureModeThreadLocal = 1,
    grStreamCaptureModeRelaxed = 2
} grStreamCaptureMode;

/* Flags of grStreamUpdateCaptureDependencies. Mirrors
 * cudaStreamUpdateCaptureDependenciesFlags. */
typedef enum grStreamUpdateCaptureDependenciesFlags {
    grStreamAddCaptureDependencies = 0x0, /* add to the current set */
    grStreamSetCaptureDependencies = 0x1  /* replace the current set */
} grStreamUpdateCaptureDependenciesFlags;

/* Begins capturing 'stream' into a new graph in the given mode (see
 * grStreamCaptureMode for what the mode forbids, and to which threads).
 * Errors: grErrorInvalidValue (mode not a grStreamCaptureMode),
 * grErrorStreamCaptureUnsupported (the legacy stream: NULL or
 * grStreamLegacy; grStreamPerThread may be captured),
 * grErrorIllegalState (the stream already takes part in a capture, even
 * an invalidated one), grErrorMemoryAllocation; plus the stream errors.
 * Thread safety: any thread; not concurrently with another
 * grStreamBeginCapture* on the same stream. Mirrors
 * cudaStreamBeginCapture. */
GR_API grError_t grStreamBeginCapture(grStream_t stream, grStreamCaptureMode mode);

/* As grStreamBeginCapture, but the captured nodes are added to the
 * existing 'graph', the first of them depending on dependencies[0..
 * numDependencies) (nodes of 'graph') through edges with the data
 * dependencyData[i] (NULL: default; a programmatic edge from a kernel
 * node is checked as grGraphAddDependencies checks it, and against the
 * first captured node when it is recorded). grStreamEndCapture then returns
 * 'graph' itself. Errors: as grStreamBeginCapture, plus
 * grErrorInvalidValue (graph NULL or not live, or owned by a child-graph
 * node; dependencies NULL with numDependencies > 0, or not distinct live
 * nodes of graph; numDependencies above 2^32 - 1), grErrorIllegalState
 * (another capture in progress builds graph: one capture at a time may;
 * until it ends the graph cannot be destroyed or lose nodes either).
 * Thread safety: as grStreamBeginCapture; until the capture ends, the
 * graph is written by every operation captured into it (see the section's
 * thread safety). Errors also: grErrorInvalidValue (edge data refused).
 * Mirrors cudaStreamBeginCaptureToGraph (CUDA 13 form).
 * Deviation: if the capture fails (invalidated,
 * unjoined, ended by the wrong thread), every node added to the graph
 * since the capture began is removed with its edges, so that a graph used
 * by the capture alone is left as it was, where CUDA leaves the graph
 * unusable. */
GR_API grError_t grStreamBeginCaptureToGraph(grStream_t stream, grGraph_t graph,
                                             const grGraphNode_t *dependencies,
                                             const grGraphEdgeData *dependencyData, size_t numDependencies,
                                             grStreamCaptureMode mode);

/* Re-capture (CUDA 13.3): capture the same stream code again into the
 * graph it built, so that the graph keeps its nodes and only their
 * parameters change (docs/capture.md, "Re-capture").
 *
 * What the callback of grStreamBeginRecaptureToGraph is told about a node
 * whose re-captured parameters differ from the graph's. Mirrors
 * cudaGraphRecaptureStatus (CUgraphRecaptureStatus). */
typedef enum grGraphRecaptureStatus {
    /* grGraphExecUpdate can apply the change to an executable. */
    grGraphRecaptureStatusEligibleForUpdate = 0,
    /* It cannot (an executable would refuse it with
     * grGraphExecUpdateErrorParametersChanged or AttributesChanged: a
     * copy's memory types or a 2D/3D copy, a 2D memset's shape, a batch
     * node's count or operation types, a kernel node's cooperative
     * attribute); the graph still takes it. */
    grGraphRecaptureStatusIneligibleForUpdate = 1,
    /* The node could not be re-captured; the re-capture fails whatever
     * the callback returns. graphrt never reports it: writing a node's
     * new parameters cannot fail. */
    grGraphRecaptureStatusError = 2
} grGraphRecaptureStatus;

/* Called, on the thread that issued the work, for each re-captured
 * operation whose parameters differ from those of the node it matches
 * (kernel function, dimensions, shared memory, argument values, launch
 * attributes; copy, memset, host function, event, batch operations).
 * data: the userData given; node: the graph's node; originalParams: its
 * parameters now (as grGraphNodeGetParams gives them); recaptureParams:
 * the operation just issued (a kernel's kernelParams point at the
 * caller's argument values). Both are valid only during the call. Return
 * grSuccess to take the new parameters into the node (it is then written
 * and, for grGraphExecUpdate, marked changed); any other value fails the
 * re-capture at once: the call that issued the work returns that value,
 * the node keeps its parameters, and the capture is invalidated. The
 * callback must not issue work to the capture's streams or end the
 * capture. Mirrors cudaGraphRecaptureCallback_t. */
typedef grError_t (*grGraphRecaptureCallback_t)(void *data, grGraphNode_t node,
                                                const grGraphNodeParams *originalParams,
                                                const grGraphNodeParams *recaptureParams,
                                                grGraphRecaptureStatus status);

/* Mirrors cudaGraphRecaptureCallbackData. */
typedef struct grGraphRecaptureCallbackData {
    grGraphRecaptureCallback_t callbackFunc; /* NULL: differences are taken silently */
    void *userData;                          /* passed to callbackFunc as 'data' */
} grGraphRecaptureCallbackData;

/*
 * Begins a re-capture on 'stream' into 'graph', a graph the same stream
 * code built before (by capture, or by hand with node types capture
 * makes). The work issued then is matched, operation by operation, with
 * the graph's nodes in creation order instead of adding nodes: the k-th
 * node-making operation (kernel launch, copy, memset, host function,
 * external event record or wait, batch memory operation, allocation,
 * free) must be of the k-th node's type and depend on exactly that
 * node's dependencies (with the same edge data); an allocation must ask
 * for the same size and pool properties, and gets the node's address
 * back; a free must free the node's address. Any other mismatch - a
 * topology mismatch, an allocation or free mismatch, or more operations
 * than nodes - fails the call that issued the work at once with
 * grErrorStreamCaptureInvalidated and invalidates the capture (as any
 * illegal call does: later work fails the same way, grStreamEndCapture
 * ends it without a graph). Every other parameter difference goes to
 * callbackData->callbackFunc (see grGraphRecaptureCallback_t), or, with
 * no callback, is written into the node. grStreamEndCapture then fails
 * with grErrorStreamCaptureInvalidated if fewer operations were captured
 * than the graph has nodes (or if nodes were added to the graph by hand
 * meanwhile), and otherwise returns 'graph' itself with the nodes that
 * changed noted, so that grGraphExecUpdate of an executable of this graph
 * writes only them (docs/capture.md).
 *
 * Everything else is as for grStreamBeginCapture: modes, fork and join
 * through events (each stream's work matches the nodes it made), the
 * unsafe calls, grStreamGetCaptureInfo (which names 'graph'). The user
 * objects the graph holds are released when the call succeeds, as CUDA
 * does; a re-capture may retain them again.
 *
 * Errors: grErrorInvalidValue (graph NULL or not live, or owned by a
 * child-graph node; mode not a grStreamCaptureMode),
 * grErrorStreamCaptureUnsupported (the legacy stream), grErrorIllegalState
 * (the stream takes part in a capture already, or another capture builds
 * 'graph'), grErrorMemoryAllocation; plus the stream errors. A refused
 * call changes nothing. Thread safety: as grStreamBeginCaptureToGraph;
 * the callback runs with no graphrt lock held.
 * Mirrors cudaStreamBeginRecaptureToGraph (CUDA 13.3).
 * Deviation: where CUDA leaves a graph whose re-capture failed "in an
 * undefined state", graphrt leaves a valid graph: its nodes and edges as
 * they were (a node added by hand meanwhile is removed), each node with
 * its old parameters or the new ones taken before the failure.
 */
GR_API grError_t grStreamBeginRecaptureToGraph(grStream_t stream, grStreamCaptureMode mode, grGraph_t graph,
                                               grGraphRecaptureCallbackData *callbackData);

/* Ends the capture begun on 'stream' and returns the graph in *pGraph
 * (the caller owns it; with grStreamBeginCaptureToGraph, the graph given
 * there). pGraph may be NULL for a capture begun with
 * grStreamBeginCaptureToGraph, whose graph the caller already holds: the
 * capture ends the same way, its nodes stay in that graph, and nothing is
 * written (NVIDIA's graphConditionalNodes sample ends a capture into a
 * conditional node's body so). Every stream that joined the capture
 * leaves it, whatever the result, unless the call is refused before the
 * capture ends (grErrorInvalidValue, grErrorIllegalState,
 * grErrorStreamCaptureUnmatched, grErrorMemoryAllocation, the stream
 * errors). Where a failure below sets *pGraph = NULL, a NULL pGraph gets
 * nothing. Errors: grErrorInvalidValue (pGraph NULL, and the stream is
 * not capturing, or its capture was begun by grStreamBeginCapture, or the
 * stream is not valid),
 * grErrorIllegalState (the stream is not capturing; *pGraph untouched),
 * grErrorStreamCaptureUnmatched (the stream joined a capture begun on
 * another stream; that capture is invalidated and not ended),
 * grErrorStreamCaptureWrongThread (a Global or ThreadLocal capture ended
 * by another thread; the capture ends, *pGraph = NULL),
 * grErrorStreamCaptureInvalidated (an illegal call invalidated the
 * capture; it ends, *pGraph = NULL, and the detail names the FIRST call
 * that invalidated it; also a re-capture that made fewer operations than
 * its graph has nodes, or whose graph got a node by hand meanwhile,
 * which is removed: see grStreamBeginRecaptureToGraph),
 * grErrorStreamCaptureUnjoined (a stream that joined
 * has work the capturing stream never waited for; the capture ends,
 * *pGraph = NULL), grErrorMemoryAllocation (out of memory checking that
 * the forked streams were joined; the capture stays in progress); plus the
 * stream errors. Cost: linear in the streams and events of the capture,
 * plus one pass over the nodes when a forked stream must be checked for
 * being joined. Thread safety: a Global or ThreadLocal capture must be
 * ended by the thread that began it (grErrorStreamCaptureWrongThread
 * above), a Relaxed one may be ended by any thread; not concurrently with
 * other calls that use the capture's streams or events (see the section's
 * thread safety). Mirrors cudaStreamEndCapture. */
GR_API grError_t grStreamEndCapture(grStream_t stream, grGraph_t *pGraph);

/* *pCaptureStatus: whether the stream takes part in a capture. Errors:
 * grErrorInvalidValue (pCaptureStatus NULL), grErrorStreamCaptureImplicit
 * (the legacy stream while a blocking stream captures: using it would
 * make it depend on the capture; nothing is invalidated); plus the stream
 * errors. Never refused by the capture modes. Thread safety: any thread;
 * not concurrently with grStreamEndCapture of the stream's capture.
 * Mirrors cudaStreamIsCapturing. */
GR_API grError_t grStreamIsCapturing(grStream_t stream, grStreamCaptureStatus *pCaptureStatus);

/* The capture state of the stream: *captureStatus_out (required), and,
 * only when it is grStreamCaptureStatusActive, each non-NULL optional
 * output: *id_out a process-unique id of the capture (shared by every
 * stream in it, never reused), *graph_out the graph being built (owned by
 * the capture: do not destroy it), *dependencies_out / *numDependencies_out
 * the nodes the next captured operation on this stream will depend on
 * (the array stays valid until the next operation on the stream),
 * *edgeData_out the data of the edges from those dependencies to the
 * next node (default, unless set by grStreamUpdateCaptureDependencies or
 * grStreamBeginCaptureToGraph; valid as long as the dependencies array).
 * Errors: grErrorInvalidValue (captureStatus_out NULL, edgeData_out
 * without dependencies_out), grErrorLossyQuery (dependencies_out given,
 * edgeData_out NULL, and a dependency's data is not the default),
 * grErrorStreamCaptureImplicit
 * (as grStreamIsCapturing); plus the stream errors. Never refused by the
 * capture modes. Thread safety: any thread; not concurrently with
 * grStreamEndCapture of the stream's capture; *graph_out is written by
 * every operation captured into it (see the section's thread safety).
 * Mirrors cudaStreamGetCaptureInfo (CUDA 13 form). */
GR_API grError_t grStreamGetCaptureInfo(grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, grGraph_t *graph_out,
                                        const grGraphNode_t **dependencies_out,
                                        const grGraphEdgeData **edgeData_out, size_t *numDependencies_out);

/* Changes the set of nodes the next captured operation on the stream
 * depends on: flags grStreamAddCaptureDependencies adds dependencies
 * (duplicates ignored), grStreamSetCaptureDependencies replaces the set
 * (an empty set makes the next node a root). Errors: grErrorInvalidValue
 * (other flags, dependencies NULL with numDependencies > 0, numDependencies
 * above 2^32 - 1, a node that is not a live node of the capture's graph;
 * the capture stays valid), grErrorIllegalState (the stream is not
 * capturing), grErrorStreamCaptureInvalidated (its capture was
 * invalidated), grErrorMemoryAllocation; plus the stream errors. Thread
 * safety: any thread; not concurrently with grStreamEndCapture of the
 * stream's capture. dependencyData: NULL (default edges) or the data of
 * the edges from dependencies[i] to the next captured node, checked as
 * grGraphAddDependencies checks edge data (grErrorInvalidValue, the
 * capture unchanged), and again against that node when it is recorded (a
 * programmatic edge to a node that is not a kernel node: that operation
 * is refused with grErrorInvalidValue, the capture unchanged); nodes
 * already in the set keep their data. Mirrors
 * cudaStreamUpdateCaptureDependencies (CUDA 13 form). */
GR_API grError_t grStreamUpdateCaptureDependencies(grStream_t stream, grGraphNode_t *dependencies,
                                                   const grGraphEdgeData *dependencyData,
                                                   size_t numDependencies, unsigned int flags);

/* Sets the calling thread's capture mode to *mode and returns the previous
 * one in *mode (the usual pattern: exchange to Relaxed around a call that
 * is known safe, then exchange back). Errors: grErrorInvalidValue (mode
 * NULL, or *mode not a grStreamCaptureMode). Mirrors
 * cudaThreadExchangeStreamCaptureMode. Deviation: CUDA accepts an invalid
 * *mode and returns cudaSuccess; graphrt refuses it and keeps the
 * thread's mode. Thread safety: the mode is per thread; it affects only
 * the calling thread's potentially unsafe calls. */
GR_API grError_t grThreadExchangeStreamCaptureMode(grStreamCaptureMode *mode);

/* ====================================================================== */
/* Executable graphs                                                      */
/* ====================================================================== */

#define grGraphInstantiateFlagAutoFreeOnLaunch 1ull
#define grGraphInstantiateFlagUpload 2ull
#define grGraphInstantiateFlagDeviceLaunch 4ull
#define grGraphInstantiateFlagUseNodePriority 8ull

typedef enum grGraphExecUpdateResult {
    grGraphExecUpdateSuccess = 0,
    grGraphExecUpdateError = 1,
    grGraphExecUpdateErrorTopologyChanged = 2,
    grGraphExecUpdateErrorNodeTypeChanged = 3,
    grGraphExecUpdateErrorFunctionChanged = 4,
    grGraphExecUpdateErrorParametersChanged = 5,
    grGraphExecUpdateErrorNotSupported = 6,
    grGraphExecUpdateErrorUnsupportedFunctionChange = 7,
    grGraphExecUpdateErrorAttributesChanged = 8
} grGraphExecUpdateResult;

typedef struct grGraphExecUpdateResultInfo {
    grGraphExecUpdateResult result;
    grGraphNode_t errorNode;
    grGraphNode_t errorFromNode;
} grGraphExecUpdateResultInfo;

/*
 * Thread safety of executables: every function of this section may be
 * called from any thread, and one executable may be launched, changed by
 * the setters below, enabled and disabled, and updated by
 * grGraphExecUpdate on several threads at once, which CUDA does not allow.
 * A change first waits until no launch of the executable is queued or
 * running, then changes the plan; a launch issued meanwhile on another
 * thread waits for the change and runs the new parameters (docs/exec.md,
 * "Setters and updates wait"). Because a change waits, it must not be made
 * from a host function of the same executable, nor while one of its
 * launches waits for something the calling thread has yet to do (an event
 * it will record): it would wait forever. The functions that read a graph
 * (grGraphInstantiate*, grGraphExecUpdate, grGraphExecChildGraphNodeSetParams)
 * follow the rule of graphs for that graph: not with other calls on it. An
 * executable whose handle is not live (NULL, destroyed, or not from
 * grGraphInstantiate) is refused by every function with
 * grErrorInvalidValue.
 */

/* Compiles the graph into an executable. The executable owns copies of
 * everything it needs: the graph may be changed or destroyed right after.
 * flags: the grGraphInstantiateFlag* bits but grGraphInstantiateFlagUpload
 * (which comes with its stream, through grGraphInstantiateWithParams, as
 * in CUDA 13); grGraphInstantiateFlagUseNodePriority makes
 * the plan prefer, among nodes whose dependencies are met, the kernel node
 * of higher priority (grLaunchAttributePriority, a lower number, clamped
 * to [-5, 0]; ties in creation order): the plan's order and the lists of
 * nodes each completion makes ready follow it (docs/launch-attributes.md;
 * as in CUDA, priorities count only with this flag); and
 * grGraphInstantiateFlagAutoFreeOnLaunch makes each launch free the graph
 * allocations that the previous launch left allocated, as in CUDA.
 * Errors: grErrorInvalidValue (pGraphExec NULL; graph NULL or not live;
 * flags with unknown bits, grGraphInstantiateFlagUpload, or
 * AutoFreeOnLaunch with DeviceLaunch; a graph with a cycle, with a detail
 * naming the nodes; a memcpy or memset node whose range now overruns a
 * graphrt allocation, allocations having changed since the node got it; a
 * conditional handle no node uses, a node type a conditional node's body
 * may not hold), grErrorNotSupported (grGraphInstantiateFlagDeviceLaunch;
 * a graph with memory allocation nodes, or with conditional nodes, of
 * which an executable exists already (CUDA 13's code for both); a body on
 * its own), grErrorCallRequiresNewerDriver (on a GPU, conditional nodes
 * with a driver older than CUDA 12.3: docs/conditional.md),
 * grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation (the plan, or the graph memory it maps). Thread
 * safety: not with other calls on the same graph, another instantiation of
 * it included. Mirrors cudaGraphInstantiate (CUDA 12 form; graphrt.hpp
 * adds for C++ the 5-argument CUDA 11 form and the default flags 0). */
GR_API grError_t grGraphInstantiate(grGraphExec_t *pGraphExec, grGraph_t graph, unsigned long long flags);

/* Same as grGraphInstantiate. Errors: as grGraphInstantiate. Thread
 * safety: as grGraphInstantiate. Mirrors cudaGraphInstantiateWithFlags. */
GR_API grError_t grGraphInstantiateWithFlags(grGraphExec_t *pGraphExec, grGraph_t graph,
                                             unsigned long long flags);

/* Why an instantiation failed (grGraphInstantiateParams.result_out).
 * Mirrors cudaGraphInstantiateResult. */
typedef enum grGraphInstantiateResult {
    grGraphInstantiateSuccess = 0,
    grGraphInstantiateError = 1,            /* any failure not listed below */
    grGraphInstantiateInvalidStructure = 2, /* the graph's shape: a cycle, child graphs nested too deep */
    grGraphInstantiateNodeOperationNotSupported = 3,   /* CUDA: device launch of an unsupported node */
    grGraphInstantiateMultipleDevicesNotSupported = 4, /* CUDA: device launch across devices */
    grGraphInstantiateConditionalHandleUnused = 5      /* a conditional handle no node uses */
} grGraphInstantiateResult;

/* The parameters and results of grGraphInstantiateWithParams. Mirrors
 * cudaGraphInstantiateParams. */
typedef struct grGraphInstantiateParams {
    unsigned long long flags;            /* grGraphInstantiateFlag* bits */
    grStream_t uploadStream;             /* with grGraphInstantiateFlagUpload */
    grGraphNode_t errNode_out;           /* set: the node at fault, or NULL */
    grGraphInstantiateResult result_out; /* set: the outcome */
} grGraphInstantiateParams;

/* Instantiates as grGraphInstantiate with instantiateParams->flags, then,
 * with grGraphInstantiateFlagUpload, uploads the executable on
 * uploadStream as grGraphUpload does (on the CPU a check of the stream:
 * there is nothing to prepare; on a GPU the driver's upload). On return
 * result_out says how it went and errNode_out names the node at fault when
 * one is (a node on or after a cycle, a memcpy or memset node whose range
 * overruns its allocation or lies in another device's memory (for a node
 * inside a child graph: the top-level child-graph node), else NULL (a
 * second executable of a graph with memory nodes too, as CUDA 13 leaves
 * it); the detail names the node at fault in every case. Errors: those of
 * grGraphInstantiate, grErrorInvalidValue (instantiateParams NULL, left
 * untouched), and with grGraphInstantiateFlagUpload those of grGraphUpload
 * for uploadStream, and grErrorStreamCaptureUnsupported for a stream that
 * captures (the capture is invalidated, as by a launch into it); no
 * executable is made then. Thread safety: as grGraphInstantiate.
 * Mirrors cudaGraphInstantiateWithParams. */
GR_API grError_t grGraphInstantiateWithParams(grGraphExec_t *pGraphExec, grGraph_t graph,
                                              grGraphInstantiateParams *instantiateParams);

/* The grGraphInstantiateFlag* bits the executable was instantiated with
 * that change how it launches: grGraphInstantiateFlagAutoFreeOnLaunch
 * (and DeviceLaunch, which graphrt refuses). Upload and UseNodePriority
 * are accepted at instantiation but read back as 0, as CUDA 13 reports
 * them (probe). Errors: grErrorInvalidValue (graphExec not live, flags
 * NULL). Thread safety: any thread. Mirrors cudaGraphExecGetFlags. */
GR_API grError_t grGraphExecGetFlags(grGraphExec_t graphExec, unsigned long long *flags);

/* Destroys an executable. Returns at once; a launch still queued or running
 * completes first, and the executable's memory is released after it.
 * Deviation: an executable with conditional nodes waits for its launches
 * in flight before returning (its handles then serve the graph's next
 * executable: docs/conditional.md). Errors: grErrorInvalidValue (graphExec
 * not live). Mirrors cudaGraphExecDestroy. */
GR_API grError_t grGraphExecDestroy(grGraphExec_t graphExec);

/* Queues one run of the executable on the stream, as one stream operation.
 * A launch of an executable still running from an earlier launch starts
 * after it. Errors: grErrorInvalidValue (graphExec not live; a memcpy or
 * memset node whose range now overruns a graphrt allocation, allocations
 * having changed since it was checked; with graph memory, an allocation
 * made by the previous launch that is still allocated, without
 * grGraphInstantiateFlagAutoFreeOnLaunch, or an allocation of another
 * graph that a free node frees and that is not allocated now),
 * grErrorStreamCaptureUnsupported (the stream takes part in a capture: an
 * executable cannot be launched into a capture, as in CUDA, and the capture
 * is invalidated), grErrorMemoryAllocation; plus the capture errors of work
 * and the stream errors. Thread safety: any thread, concurrently with other
 * launches and changes of the same executable (see the section). Mirrors
 * cudaGraphLaunch. */
GR_API grError_t grGraphLaunch(grGraphExec_t graphExec, grStream_t stream);

/* Prepares the executable for launch: there is nothing to do on the CPU,
 * so it only checks the two handles (not the capture rules). Errors:
 * grErrorInvalidValue (graphExec not live); plus the stream errors.
 * Mirrors cudaGraphUpload. */
GR_API grError_t grGraphUpload(grGraphExec_t graphExec, grStream_t stream);

/*
 * In-place updates of an executable. 'node' is a node of the graph the
 * executable was instantiated from (it may have been destroyed since, as
 * in CUDA, the executable remembers it). The change applies to launches
 * issued after the call, never to one already queued or running. The
 * parameters are checked as the graph API's setters check them, plus
 * CUDA's limits on changing an executable; a refused call changes nothing.
 * 'node' may also be a node of a conditional node's body, at any depth
 * (CUDA 13 accepts it); the nodes named are always those of the graph the
 * executable was instantiated from, also after grGraphExecUpdate.
 * Errors of every setter: grErrorInvalidValue (hGraphExec not live; node
 * neither a top-level node of the executable's graph nor a node of one of
 * its conditional nodes' bodies (a node inside a child graph is changed
 * through grGraphExecChildGraphNodeSetParams), or a node of another type
 * than the setter's), grErrorNotSupported (a node of a body of an
 * executable on a GPU, whose bodies change through grGraphExecUpdate),
 * besides the errors each one lists.
 * The node handle is only a key: the setters never use the graph. Thread
 * safety: any thread, concurrently with launches and other changes of the
 * same executable; each setter first waits until no launch of it is queued
 * or running (see the section's thread safety for what that forbids).
 */

/* Sets a kernel node's parameters; the argument values are copied, and
 * the kernel itself may change, even to one of another parameter list.
 * Errors: those of every setter, grErrorInvalidValue (pNodeParams NULL,
 * extra not NULL, sharedMemBytes or kernelParams refused as grLaunchKernel
 * refuses sharedMem and args), grErrorInvalidDeviceFunction (func NULL or
 * not live), grErrorInvalidConfiguration (gridDim or blockDim refused as
 * grLaunchKernel refuses them), grErrorMemoryAllocation (a kernel with
 * another parameter layout). Mirrors cudaGraphExecKernelNodeSetParams. */
GR_API grError_t grGraphExecKernelNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grKernelNodeParams *pNodeParams);

/* Sets a memcpy node's copy. Errors: those of every setter,
 * grErrorInvalidMemcpyDirection (kind not a grMemcpyKind),
 * grErrorInvalidValue (dst or src NULL with count > 0; a range refused as
 * grMemcpy refuses one; count 0: disable the node instead; dst or src of
 * another memory type, device or host, than the node's). Mirrors
 * cudaGraphExecMemcpyNodeSetParams1D. */
GR_API grError_t grGraphExecMemcpyNodeSetParams1D(grGraphExec_t hGraphExec, grGraphNode_t node, void *dst,
                                                  const void *src, size_t count, grMemcpyKind kind);

/* Sets a memset node's parameters. Errors: those of every setter,
 * grErrorInvalidValue (pNodeParams refused as grGraphAddMemsetNode refuses
 * it; width 0: disable the node instead; a 2D memset, height > 1, that
 * changes anything but dst and value; a 1D memset that would become 2D).
 * Mirrors cudaGraphExecMemsetNodeSetParams. */
GR_API grError_t grGraphExecMemsetNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemsetParams *pNodeParams);

/* Sets a host node's function and user data. Errors: those of every
 * setter, grErrorInvalidValue (pNodeParams NULL, fn NULL). Mirrors
 * cudaGraphExecHostNodeSetParams. */
GR_API grError_t grGraphExecHostNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                              const grHostNodeParams *pNodeParams);

/* Changes the nodes inlined for the top-level child-graph node 'node' to
 * the parameters of childGraph, which must have the topology, node types
 * and node order of the node's graph at instantiation; each node may change
 * as grGraphExecUpdate lets it. Errors: grErrorInvalidValue (hGraphExec
 * not live; childGraph NULL or not live; node not a top-level node, or not
 * a child-graph node), grErrorGraphExecUpdateFailure (childGraph does not
 * match, or a node changes in a way an update refuses: the detail says
 * which, as docs/exec.md lists; CUDA 13's code), grErrorMemoryAllocation. Thread safety: as the other setters for the
 * executable; not with other calls on childGraph. Mirrors
 * cudaGraphExecChildGraphNodeSetParams. */
GR_API grError_t grGraphExecChildGraphNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    grGraph_t childGraph);

/* Sets the parameters of a node of any type in the executable, from the
 * generic description of grGraphAddNode: nodeParams->type must be the
 * node's type (as instantiated), and the union member is applied by the
 * type's own setter, with its checks and CUDA's limits
 * (grGraphExecKernelNodeSetParams, grGraphExecMemcpyNodeSetParams from
 * memcpy.copyParams, with memcpy.flags 0,
 * grGraphExecMemsetNodeSetParams, grGraphExecHostNodeSetParams,
 * grGraphExecChildGraphNodeSetParams, the event nodes' SetEvent); an
 * empty node has nothing to set. Errors: those of every setter,
 * grErrorInvalidValue (nodeParams NULL; nodeParams->type not the node's
 * type), grErrorNotSupported (a memory allocation or free node, as in
 * CUDA), grErrorGraphExecUpdateFailure (a child graph that
 * grGraphExecChildGraphNodeSetParams refuses, as CUDA 13 answers here),
 * else those of the type's setter, whose name the detail of its refusal
 * carries. Thread safety: as the other setters. Mirrors
 * cudaGraphExecNodeSetParams. */
GR_API grError_t grGraphExecNodeSetParams(grGraphExec_t graphExec, grGraphNode_t node,
                                          grGraphNodeParams *nodeParams);

/* Sets the event of an event record / wait node. Errors of both: those of
 * every setter, grErrorInvalidResourceHandle (event NULL or not live).
 * Mirror cudaGraphExecEventRecordNodeSetEvent /
 * cudaGraphExecEventWaitNodeSetEvent. */
GR_API grError_t grGraphExecEventRecordNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                    grEvent_t event);
GR_API grError_t grGraphExecEventWaitNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                  grEvent_t event);

/* Disables (isEnabled 0) or re-enables a kernel, memcpy or memset node of
 * the executable; a disabled node runs as an empty node. Get reads the
 * state without waiting for launches. Errors of both: grErrorInvalidValue
 * (hGraphExec not live; hNode neither a top-level node of the
 * executable's graph nor a node of one of its conditional nodes' bodies,
 * which CUDA 13 accepts too; a node of another type, as in CUDA, a
 * conditional node included; for Get, isEnabled NULL); for Set,
 * grErrorNotSupported (a node of a body of an executable on a GPU).
 * Thread safety: as the setters above (Set waits for the launches queued
 * before it, Get does not, except for a body's node, whose plan an update
 * may replace: Get waits as Set does). Mirror cudaGraphNodeSetEnabled /
 * cudaGraphNodeGetEnabled. */
GR_API grError_t grGraphNodeSetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode, unsigned int isEnabled);
GR_API grError_t grGraphNodeGetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                       unsigned int *isEnabled);

/* Applies the parameters of hGraph, which must have the topology of the
 * executable's graph, to the executable in place. Nodes are paired as CUDA
 * 13 pairs them (docs/exec.md): the sink nodes, compared in number first,
 * in the order each last became a sink, latest first; then, breadth first,
 * each pair's dependencies position by position. On failure fills resultInfo (result, errorNode,
 * errorFromNode) and leaves the executable exactly as it was. Errors:
 * grErrorInvalidValue (resultInfo NULL, left untouched; hGraphExec or
 * hGraph NULL or not live, result grGraphExecUpdateError),
 * grErrorGraphExecUpdateFailure (a pairing or parameter rule broken:
 * result says which and errorNode / errorFromNode where, as docs/exec.md
 * lists; an edge pairs only with an edge of the same grGraphEdgeData,
 * else TopologyChanged; a top-level kernel node whose cooperative
 * attribute changes, or, with grGraphInstantiateFlagUseNodePriority, whose
 * priority attribute changes: AttributesChanged; memory allocation nodes
 * whose allocations another executable maps: NotSupported). With memory
 * nodes the executable maps hGraph's allocations from then on and gives
 * the old graph's back, as CUDA 13 does (docs/memory-pools.md).
 * grErrorMemoryAllocation (result grGraphExecUpdateError). Thread
 * safety: any thread for the executable (see the section); not with other
 * calls on hGraph. Mirrors cudaGraphExecUpdate (CUDA 12 form). */
GR_API grError_t grGraphExecUpdate(grGraphExec_t hGraphExec, grGraph_t hGraph,
                                   grGraphExecUpdateResultInfo *resultInfo);

/* ====================================================================== */
/* Debugging: traces, debug modes, baked values (graphrt's own)           */
/* ====================================================================== */

/*
 * Tracing records every graph launch run, every graph node (its kernel
 * name or node type, its plan index, the launch it belongs to, the worker
 * that ran it), every eager stream operation, capture begins and ends and
 * the waits of synchronising calls, and writes them as a Chrome
 * trace-event JSON file (open it in https://ui.perfetto.dev or
 * chrome://tracing; docs/debugging.md). Each thread records into a ring
 * of its own, of GRAPHRT_TRACE_EVENTS events (default 65536, 64 bytes
 * each); when one is full its oldest events are dropped, and the file
 * says how many ("droppedEvents"). Setting GRAPHRT_TRACE=path.json traces
 * from the runtime's first start to the process's exit. Tracing off costs
 * a load and a branch per launch and per stream operation.
 */

/* graphrt's own. Starts tracing to the file at 'path' (written by
 * grTraceStop, or at process exit if grTraceStop is not called); the
 * file is created or truncated now, so that a bad path fails here.
 * flags: 0. Errors: grErrorInvalidValue (path NULL or empty, flags not 0,
 * the file cannot be opened: the detail gives the system's reason),
 * grErrorIllegalState (tracing already), grErrorMemoryAllocation. Thread
 * safety: any thread. */
GR_API grError_t grTraceStart(const char *path, unsigned int flags);

/* graphrt's own. Stops tracing and writes the events recorded since
 * grTraceStart to its file; events of work still running are those
 * recorded so far. Errors: grErrorIllegalState (not tracing),
 * grErrorUnknown (the file could not be written: the detail says why).
 * Thread safety: any thread; events recorded by other threads while it
 * runs are kept or dropped whole. */
GR_API grError_t grTraceStop(void);

/* Debug modes (grSetDebugFlags). */
/* Every launch (kernels, graphs, async copies and memsets, host
 * functions) waits for the work of its stream before returning, and
 * returns the stream's sticky error: an error surfaces at the call that
 * caused it, and a kernel that crashes usually does so on the launching
 * thread, inside the launching call. Also GRAPHRT_LAUNCH_BLOCKING=1. */
#define grDebugLaunchBlocking (1u << 0)
/* Every grGraphLaunch checks the addresses baked into the executable:
 * each 8-byte word of a kernel node's arguments, each copy's and memset's
 * range and each host node's user data that points into graphrt memory
 * freed since (grFree, grFreeHost, grFreeAsync) makes the
 * launch fail with grErrorIllegalAddress and a detail naming the node and
 * the freed allocation; so does a copy or memset range that no longer
 * fits its allocation. Nodes disabled with grGraphNodeSetEnabled are not
 * looked at. Also GRAPHRT_CHECK=1. */
#define grDebugCheckLaunches (1u << 1)

/* graphrt's own. Sets the debug modes (the grDebug* bits; 0 turns them
 * off), replacing what GRAPHRT_LAUNCH_BLOCKING and GRAPHRT_CHECK set.
 * Errors: grErrorInvalidValue (unknown bits). Thread safety: any thread;
 * launches issued concurrently may or may not see the change. */
GR_API grError_t grSetDebugFlags(unsigned int flags);

/* graphrt's own. The debug modes on now. Errors: grErrorInvalidValue
 * (flags NULL). Thread safety: any thread. */
GR_API grError_t grGetDebugFlags(unsigned int *flags);

/* What a value baked into an executable's node is. */
typedef enum grBakedKind {
    grBakedPlain = 0,      /* not in graphrt memory: a scalar, or a host address outside its allocations */
    grBakedAllocation = 1, /* points into a live graphrt allocation (allocBase, allocSize, allocOffset) */
    grBakedFreedAllocation = 2 /* points into a graphrt allocation freed since: stale */
} grBakedKind;

/* Which field of the node holds the value. */
typedef enum grBakedField {
    grBakedKernelArg = 0,    /* a kernel argument (param, offset) */
    grBakedCopyDst = 1,      /* a memcpy node's destination (extent: the bytes it spans) */
    grBakedCopySrc = 2,      /* a memcpy node's source (extent: the bytes it spans) */
    grBakedMemsetDst = 3,    /* a memset node's destination (extent: the bytes it spans) */
    grBakedHostFn = 4,       /* a host node's function */
    grBakedHostUserData = 5, /* a host node's user data */
    grBakedMemOpAddress = 6  /* a batch memory operation's word (param: the operation's index; extent: 4
                              * or 8) */
} grBakedField;

/* One value baked into a node of an executable. */
typedef struct grBakedValue {
    unsigned int node;        /* the plan node: its position in the executable's topological order (child
                               * graphs inlined), as launch check details and traces name nodes */
    grGraphNodeType nodeType; /* grGraphNodeTypeKernel, Memcpy, Memset, Host or BatchMemOp */
    grGraphNode_t graphNode;  /* the top-level node of the instantiated graph that is, or contains, this
                               * node: a key only (it may be destroyed) */
    const char *kernel; /* kernel nodes: the kernel's name (valid while the executable lives), else NULL */
    grBakedField field;
    int param;           /* grBakedKernelArg: the parameter's index; grBakedMemOpAddress: the
                          * operation's; else -1 */
    unsigned int offset; /* grBakedKernelArg: the value's byte offset in the parameter (a multiple of 8) */
    unsigned int size;   /* bytes of the value: 8, or the parameter's size when smaller */
    unsigned long long value; /* the bytes, little-endian, zero-extended (an address: the address) */
    size_t extent; /* copies, memsets and memory operations: the bytes accessed from 'value'; else 0 */
    grBakedKind kind;
    void *allocBase;     /* grBakedAllocation, grBakedFreedAllocation: the allocation; else NULL */
    size_t allocSize;    /* its size in bytes */
    size_t allocOffset;  /* value - allocBase */
    const char *freedBy; /* grBakedFreedAllocation: "grFree", "grFreeHost", "grFreeAsync" (a block
                          * its pool keeps) or "its memory pool" (given back to the system) */
} grBakedValue;

/* graphrt's own. Lists the values baked into the executable's kernel,
 * memcpy, memset, host and batch memory operation nodes: each kernel
 * argument, 8 bytes at a time (a parameter of fewer bytes as one value),
 * each copy's destination and source, each memset's destination, each
 * host node's function and user data, each memory operation's word, in
 * plan order, classified against graphrt's allocations now; the
 * values of a conditional node's bodies are listed with the conditional
 * node (its plan position and graph node), body after body.
 * With values NULL, *count receives the number of values; otherwise up
 * to *count are written and *count receives the number written. Pointers
 * into allocations freed long ago (more than 1024 frees back) read as
 * grBakedPlain, and into a freed allocation whose address was handed out
 * again as grBakedAllocation. Errors: grErrorInvalidValue (exec not live, count NULL),
 * grErrorMemoryAllocation. Thread safety: any thread; it reads the plan
 * under the executable's lock, between changes of other threads, and
 * never waits for launches. */
GR_API grError_t grGraphExecGetBakedValues(grGraphExec_t exec, grBakedValue *values, size_t *count);

/* graphrt's own. Prints grGraphExecGetBakedValues' list to 'out', one
 * line per value ("node 3 kernel 'blur' args[2]+0 = 0x7f.. -> 16 bytes
 * into the allocation at 0x7f.. of 4096 bytes"), stale values marked
 * "STALE". Errors: grErrorInvalidValue (exec not live, out NULL),
 * grErrorMemoryAllocation, grErrorUnknown (a write failed). Thread
 * safety: as grGraphExecGetBakedValues. */
GR_API grError_t grGraphExecPrintBakedValues(grGraphExec_t exec, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_H */
