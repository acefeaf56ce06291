/*
 * graphrt.h - the CUDA Graph programming model as a C11 runtime.
 *
 * Every function is the CUDA runtime function of the same name with the
 * prefix 'cuda' replaced by 'gr', with the same parameters in the same order
 * and the same meaning (CUDA 12.x signatures), unless its comment says
 * otherwise. Types 'cudaX' are 'grX', enumerators 'cudaX' are 'grX'; numeric
 * values of enumerators need not match CUDA's. Every function returns
 * grError_t; grSuccess is 0.
 *
 * Errors: a failing call returns its code, records it as the thread's last
 * error (grGetLastError) and sets a sentence for grGetLastErrorDetail() that
 * names the call, the object and the rule broken. A refused call changes
 * nothing. A successful call leaves the last error alone, as in CUDA.
 *
 * Device 0 is the CPU of the host. Kernels are C functions called once per
 * thread block (see grKernelCreate); everything else keeps CUDA's meaning.
 *
 * Thread safety: every function may be called from any thread at any time,
 * unless its comment says otherwise. Objects passed to a call must not be
 * destroyed concurrently with that call.
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
    XX(grErrorUnknown, "unknown error")

typedef enum grError {
#define GR_ERROR_ENUM_(name, text) name,
    GR_ERROR_LIST(GR_ERROR_ENUM_)
#undef GR_ERROR_ENUM_
} grError_t;
typedef enum grError grError;

/* The enumerator's name ("grErrorInvalidValue"); "unrecognized error code"
 * for a value outside the list. Mirrors cudaGetErrorName. */
GR_API const char *grGetErrorName(grError_t error);

/* A short description of the code. Mirrors cudaGetErrorString. */
GR_API const char *grGetErrorString(grError_t error);

/* Returns the calling thread's last error and resets it to grSuccess.
 * Asynchronous failures are reported by the next synchronising call on the
 * stream they happened in. Mirrors cudaGetLastError. */
GR_API grError_t grGetLastError(void);

/* Returns the calling thread's last error without resetting it. Mirrors
 * cudaPeekAtLastError. */
GR_API grError_t grPeekAtLastError(void);

/* graphrt's own: a sentence about the calling thread's most recent failure,
 * naming the call, the object and the rule broken, and what to do. The text
 * stays valid until the thread's next failing call. Empty ("") when the
 * thread has had no failure. Never NULL. */
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
    grDevAttrMemoryPoolsSupported
} grDeviceAttr;

/* Number of devices: always 1 (the CPU). Mirrors cudaGetDeviceCount. */
GR_API grError_t grGetDeviceCount(int *count);

/* Selects the calling thread's device. Only 0 exists; anything else returns
 * grErrorInvalidDevice. Mirrors cudaSetDevice. */
GR_API grError_t grSetDevice(int device);

/* The calling thread's device (0). Mirrors cudaGetDevice. */
GR_API grError_t grGetDevice(int *device);

/* Waits until all work issued to all streams has completed. The waiting
 * thread runs ready work instead of sleeping. Returns the first sticky
 * asynchronous error, if any. Refused during a Global or ThreadLocal
 * capture as in CUDA. Mirrors cudaDeviceSynchronize. */
GR_API grError_t grDeviceSynchronize(void);

/* Waits for all work, then destroys every stream (their handles become
 * invalid) and frees every grMalloc / grMallocHost allocation still alive,
 * and stops the workers; the next call starts a fresh runtime (re-reading
 * GRAPHRT_WORKERS). Deviation: kernels, events, graphs and executables are
 * host objects and stay valid (CUDA destroys them); destroy them yourself.
 * Must not race with other graphrt calls. Mirrors cudaDeviceReset. */
GR_API grError_t grDeviceReset(void);

/* Reads a device attribute of device 0. grDevAttrMultiProcessorCount is the
 * number of worker threads (env GRAPHRT_WORKERS, default: online cores).
 * Mirrors cudaDeviceGetAttribute. */
GR_API grError_t grDeviceGetAttribute(int *value, grDeviceAttr attr, int device);

/* ====================================================================== */
/* Streams                                                                */
/* ====================================================================== */

#define grStreamDefault 0x00u
#define grStreamNonBlocking 0x01u

/* Creates a blocking stream (ordered against the legacy default stream).
 * Mirrors cudaStreamCreate. */
GR_API grError_t grStreamCreate(grStream_t *stream);

/* Creates a stream; grStreamNonBlocking exempts it from the legacy stream's
 * implicit synchronisation. Other flag bits: grErrorInvalidValue. Mirrors
 * cudaStreamCreateWithFlags. */
GR_API grError_t grStreamCreateWithFlags(grStream_t *stream, unsigned int flags);

/* Destroys a stream. Returns at once; work already queued still completes,
 * then the stream's resources are released. The default streams cannot be
 * destroyed (grErrorInvalidResourceHandle). Mirrors cudaStreamDestroy. */
GR_API grError_t grStreamDestroy(grStream_t stream);

/* Waits until all work queued on the stream has completed, running that
 * stream's work in the calling thread when no worker has started it.
 * Returns the stream's sticky asynchronous error, if any. Mirrors
 * cudaStreamSynchronize. */
GR_API grError_t grStreamSynchronize(grStream_t stream);

/* grSuccess if all work on the stream has completed, grErrorNotReady
 * otherwise (not recorded as the last error, as in CUDA). Mirrors
 * cudaStreamQuery. */
GR_API grError_t grStreamQuery(grStream_t stream);

/* Makes all work queued on 'stream' after this call wait for the work
 * captured by the event's most recent grEventRecord. An event never
 * recorded completes at once. flags must be 0. Mirrors cudaStreamWaitEvent. */
GR_API grError_t grStreamWaitEvent(grStream_t stream, grEvent_t event, unsigned int flags);

/* Queues fn(userData) on the stream; it runs after all earlier work of the
 * stream and before all later work. Mirrors cudaLaunchHostFunc. */
GR_API grError_t grLaunchHostFunc(grStream_t stream, grHostFn_t fn, void *userData);

/* The flags the stream was created with. Mirrors cudaStreamGetFlags. */
GR_API grError_t grStreamGetFlags(grStream_t stream, unsigned int *flags);

/* ====================================================================== */
/* Events                                                                 */
/* ====================================================================== */

#define grEventDefault 0x00u
#define grEventBlockingSync 0x01u
#define grEventDisableTiming 0x02u

/* Creates an event with default flags. Mirrors cudaEventCreate. */
GR_API grError_t grEventCreate(grEvent_t *event);

/* Creates an event. grEventDisableTiming makes grEventElapsedTime refuse it
 * (records take no timestamp). grEventBlockingSync is accepted; waiting
 * threads always help run the work they wait for, then sleep. Other bits:
 * grErrorInvalidValue. Mirrors cudaEventCreateWithFlags. */
GR_API grError_t grEventCreateWithFlags(grEvent_t *event, unsigned int flags);

/* Captures in the event the work queued on the stream so far. Re-recording
 * makes the event refer to the new record only. Mirrors cudaEventRecord. */
GR_API grError_t grEventRecord(grEvent_t event, grStream_t stream);

/* grSuccess if the work of the event's latest record has completed (or it
 * was never recorded), grErrorNotReady otherwise. Mirrors cudaEventQuery. */
GR_API grError_t grEventQuery(grEvent_t event);

/* Waits until the work of the event's latest record has completed. Mirrors
 * cudaEventSynchronize. */
GR_API grError_t grEventSynchronize(grEvent_t event);

/* Milliseconds between two completed records. grErrorNotReady if either
 * has not completed (recorded as the last error, with a detail naming the
 * event: unlike the queries, this call is not a poll),
 * grErrorInvalidResourceHandle if either was created with
 * grEventDisableTiming or never recorded. An event recorded by an event
 * record node of a graph holds the time its launch ended. Mirrors
 * cudaEventElapsedTime. */
GR_API grError_t grEventElapsedTime(float *ms, grEvent_t start, grEvent_t end);

/* Destroys the event. Returns at once; a pending record still completes.
 * Mirrors cudaEventDestroy. */
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
 * copies and how large each is. */
GR_API grError_t grKernelCreate(grKernel_t *kernel, grKernelFn fn, const char *name, int numParams,
                                const size_t *paramSizes);

/* Destroys a kernel. Launches already queued and graphs that use it keep it
 * alive until they are done with it. */
GR_API grError_t grKernelDestroy(grKernel_t kernel);

/* Queues a launch of 'kernel' over grid x block on the stream. args has one
 * pointer per parameter, to its value; the values are copied before the
 * call returns, so args and what it points to may change right after.
 * Errors: grErrorInvalidDeviceFunction (NULL or destroyed kernel),
 * grErrorInvalidConfiguration (a zero or too large grid or block
 * dimension: block x,y <= 1024, z <= 64, x*y*z <= 1024; grid x < 2^31,
 * y,z <= 65535), grErrorInvalidValue (args NULL with parameters, a NULL
 * element, sharedMem > 48 KiB). Mirrors cudaLaunchKernel with a grKernel_t
 * in place of the function pointer. */
GR_API grError_t grLaunchKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                size_t sharedMem, grStream_t stream);

/* ====================================================================== */
/* Memory                                                                 */
/* ====================================================================== */

/* Allocates 'size' bytes (256-aligned) tracked by graphrt, so that copies
 * and memsets that run past its end are refused. size 0 gives NULL and
 * grSuccess, as in CUDA. Refused during a Global/ThreadLocal capture.
 * Mirrors cudaMalloc. */
GR_API grError_t grMalloc(void **devPtr, size_t size);

/* Frees a grMalloc allocation after the device is idle, as in CUDA. NULL is
 * a no-op. A pointer graphrt did not allocate (or freed already):
 * grErrorInvalidValue, nothing freed. Mirrors cudaFree. */
GR_API grError_t grFree(void *devPtr);

/* Allocates host memory (tracked as grMalloc). Mirrors cudaMallocHost. */
GR_API grError_t grMallocHost(void **ptr, size_t size);

/* Frees grMallocHost memory. Mirrors cudaFreeHost. */
GR_API grError_t grFreeHost(void *ptr);

/* Copies count bytes; synchronises like CUDA's (waits for the legacy
 * stream's work first). Any grMemcpyKind is accepted; every kind is a host
 * copy. A range that runs past a graphrt allocation: grErrorInvalidValue.
 * Mirrors cudaMemcpy. */
GR_API grError_t grMemcpy(void *dst, const void *src, size_t count, grMemcpyKind kind);

/* Queues a copy on the stream. Mirrors cudaMemcpyAsync. */
GR_API grError_t grMemcpyAsync(void *dst, const void *src, size_t count, grMemcpyKind kind,
                               grStream_t stream);

/* Sets count bytes to (unsigned char)value, synchronously. Mirrors
 * cudaMemset. */
GR_API grError_t grMemset(void *devPtr, int value, size_t count);

/* Queues a memset on the stream. Mirrors cudaMemsetAsync. */
GR_API grError_t grMemsetAsync(void *devPtr, int value, size_t count, grStream_t stream);

/* ====================================================================== */
/* Stream-ordered memory pools                                            */
/* ====================================================================== */

typedef enum grMemAllocationType {
    grMemAllocationTypeInvalid = 0,
    grMemAllocationTypePinned = 1
} grMemAllocationType;

typedef enum grMemAllocationHandleType {
    grMemHandleTypeNone = 0
} grMemAllocationHandleType;

typedef enum grMemLocationType {
    grMemLocationTypeInvalid = 0,
    grMemLocationTypeDevice = 1
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
    grMemPoolAttrUsedMemHigh                   /* uint64_t, set to 0 resets */
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
 * Thread safety: every function may be called from any thread; one pool
 * may be used by many threads and streams at once.
 */

/* Creates a pool. poolProps: allocType grMemAllocationTypePinned,
 * handleTypes grMemHandleTypeNone (others: grErrorNotSupported), location
 * {grMemLocationTypeDevice, 0} (another id: grErrorInvalidDevice), maxSize
 * 0 for no limit or the most bytes the pool may reserve. Attributes start
 * as CUDA's: every reuse policy on, release threshold 0. Mirrors
 * cudaMemPoolCreate. */
GR_API grError_t grMemPoolCreate(grMemPool_t *memPool, const grMemPoolProps *poolProps);

/* Destroys a pool. Blocks still allocated stay valid and go back to the
 * OS when freed; the handle is refused from now on (grErrorInvalidValue).
 * Destroying the device's current pool makes the default pool current.
 * The default pool cannot be destroyed (grErrorInvalidValue). Mirrors
 * cudaMemPoolDestroy. Deviation: returns after the frees already queued
 * into the pool have taken effect, where CUDA returns at once. */
GR_API grError_t grMemPoolDestroy(grMemPool_t memPool);

/* The device's default pool (device must be 0: grErrorInvalidDevice).
 * Mirrors cudaDeviceGetDefaultMemPool. */
GR_API grError_t grDeviceGetDefaultMemPool(grMemPool_t *memPool, int device);

/* Makes memPool the pool grMallocAsync allocates from on the device.
 * Mirrors cudaDeviceSetMemPool. */
GR_API grError_t grDeviceSetMemPool(int device, grMemPool_t memPool);

/* The pool grMallocAsync allocates from (the default pool unless
 * grDeviceSetMemPool chose another). Mirrors cudaDeviceGetMemPool. */
GR_API grError_t grDeviceGetMemPool(grMemPool_t *memPool, int device);

/* Allocates size bytes from the device's current pool, in stream order.
 * The address is returned at once; the memory may be used by work queued
 * on hStream after this call, or ordered after it. size 0 gives NULL and
 * grSuccess, as grMalloc. On a capturing stream it adds a memory
 * allocation node to the capture's graph and returns the node's address.
 * Errors: grErrorInvalidValue (devPtr NULL), grErrorInvalidResourceHandle
 * (stream not live), grErrorMemoryAllocation (the host or the pool's
 * maxSize cannot provide it). Mirrors cudaMallocAsync. */
GR_API grError_t grMallocAsync(void **devPtr, size_t size, grStream_t hStream);

/* As grMallocAsync, from memPool (a destroyed pool: grErrorInvalidValue).
 * Mirrors cudaMallocFromPoolAsync. */
GR_API grError_t grMallocFromPoolAsync(void **ptr, size_t size, grMemPool_t memPool, grStream_t stream);

/* Frees memory from grMallocAsync / grMallocFromPoolAsync (or from a
 * graph allocation node whose graph did not free it) in stream order: the
 * memory may be reused once the work queued on hStream before this call
 * has run. NULL is a no-op. A pointer that is not the base of a live pool
 * allocation (freed already, never allocated, grMalloc memory, inside a
 * block): grErrorInvalidValue, nothing freed. On a capturing stream it
 * adds a memory free node. Mirrors cudaFreeAsync. */
GR_API grError_t grFreeAsync(void *devPtr, grStream_t hStream);

/* Gives unused memory of the pool back to the OS until it reserves at
 * most minBytesToKeep bytes, or no more can be given back: blocks whose
 * frees have not taken effect yet, and allocated blocks, stay. Mirrors
 * cudaMemPoolTrimTo. */
GR_API grError_t grMemPoolTrimTo(grMemPool_t memPool, size_t minBytesToKeep);

/* Sets an attribute; value points to an int (the reuse policies: 0 off,
 * else on) or a uint64_t (the others). grMemPoolAttrReleaseThreshold: at
 * each synchronisation (stream, event or device synchronize, grFree) the
 * pool gives back to the OS the unused memory above this many reserved
 * bytes. The high-water marks can only be reset, by setting 0 (they then
 * equal the current value); the current values are read only
 * (grErrorInvalidValue). Mirrors cudaMemPoolSetAttribute. */
GR_API grError_t grMemPoolSetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value);

/* Reads an attribute into *value (int or uint64_t, as above). Reserved
 * memory is what the pool holds from the OS, used memory what is
 * allocated from it (both in class sizes). Mirrors cudaMemPoolGetAttribute. */
GR_API grError_t grMemPoolGetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value);

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

/* Adds a memory allocation node. nodeParams: poolProps as for
 * grMemPoolCreate, accessDescs / accessDescCount describing device 0 only
 * (or none), bytesize > 0. The address is fixed now and returned in
 * nodeParams->dptr; the memory is valid from this node to the free node
 * that frees it, in graph order, in every launch; if the graph does not
 * free it, it stays valid after the launch until grFreeAsync, grFree or
 * another graph's free node frees it. A graph with memory nodes cannot be
 * cloned or embedded in a child-graph node, and only one executable of it
 * may exist at a time, as in CUDA. Physical memory is shared between the
 * allocations of one graph whose lifetimes do not overlap. Mirrors
 * cudaGraphAddMemAllocNode. */
GR_API grError_t grGraphAddMemAllocNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                        const grGraphNode_t *pDependencies, size_t numDependencies,
                                        grMemAllocNodeParams *nodeParams);

/* Adds a memory free node for dptr, the address of an allocation node of
 * this graph (or of another graph's allocation it does not free).
 * Errors: grErrorInvalidValue for an address no allocation node returned,
 * an allocation this graph frees already, or one that is not ordered
 * before the free node (the free node must depend on the allocation node).
 * Mirrors cudaGraphAddMemFreeNode. */
GR_API grError_t grGraphAddMemFreeNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                       const grGraphNode_t *pDependencies, size_t numDependencies,
                                       void *dptr);

/* The parameters of an allocation node (dptr included; accessDescs points
 * into the node and stays valid while it lives). Mirrors
 * cudaGraphMemAllocNodeGetParams. */
GR_API grError_t grGraphMemAllocNodeGetParams(grGraphNode_t node, grMemAllocNodeParams *params_out);

/* The address a free node frees. Mirrors cudaGraphMemFreeNodeGetParams. */
GR_API grError_t grGraphMemFreeNodeGetParams(grGraphNode_t node, void *dptr_out);

/* Gives the physical memory of graph allocations that no executable needs
 * (executables destroyed, allocations freed) back to the OS. Mirrors
 * cudaDeviceGraphMemTrim. */
GR_API grError_t grDeviceGraphMemTrim(int device);

/* Reads an attribute of graph memory into *value (a uint64_t): used memory
 * is what live graph allocations occupy, reserved memory the physical
 * memory held for executables. Mirrors cudaDeviceGetGraphMemAttribute. */
GR_API grError_t grDeviceGetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value);

/* Resets a high-water mark (value points to a uint64_t 0); the current
 * values are read only (grErrorInvalidValue). Mirrors
 * cudaDeviceSetGraphMemAttribute. */
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

/* What grGraphMemcpyNodeGetParams reports (graphrt's copies are 1D: extent
 * {count, 1, 1}, positions 0). Mirrors cudaMemcpy3DParms without arrays. */
typedef struct grMemcpy3DParms {
    grPos srcPos;
    grPitchedPtr srcPtr;
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

typedef struct grChildGraphNodeParams {
    grGraph_t graph;
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
    };
    long long reserved2;
} grGraphNodeParams;

/* Creates an empty graph. flags must be 0. Mirrors cudaGraphCreate. */
GR_API grError_t grGraphCreate(grGraph_t *graph, unsigned int flags);

/* Destroys a graph and its nodes. Executables instantiated from it are not
 * affected. A graph owned by a child-graph node cannot be destroyed
 * (grErrorInvalidValue). Mirrors cudaGraphDestroy. */
GR_API grError_t grGraphDestroy(grGraph_t graph);

/*
 * Adding nodes. Every grGraphAdd*Node takes:
 *   pGraphNode       receives the new node
 *   graph            the graph to add it to
 *   pDependencies    numDependencies nodes of 'graph' it depends on (may be
 *                    NULL when numDependencies is 0); duplicates refused
 * Parameters are copied, so the caller's structures may change right after.
 * Errors: grErrorInvalidValue with a detail naming the argument and node.
 */

/* Adds a kernel node. The argument values are copied from kernelParams.
 * Mirrors cudaGraphAddKernelNode. */
GR_API grError_t grGraphAddKernelNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grKernelNodeParams *pNodeParams);

/* Adds a 1D copy node. Mirrors cudaGraphAddMemcpyNode1D. */
GR_API grError_t grGraphAddMemcpyNode1D(grGraphNode_t *pGraphNode, grGraph_t graph,
                                        const grGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                        const void *src, size_t count, grMemcpyKind kind);

/* Adds a memset node. Mirrors cudaGraphAddMemsetNode. */
GR_API grError_t grGraphAddMemsetNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grMemsetParams *pMemsetParams);

/* Adds a host node. userData is the caller's pointer, not copied. Mirrors
 * cudaGraphAddHostNode. */
GR_API grError_t grGraphAddHostNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                    const grGraphNode_t *pDependencies, size_t numDependencies,
                                    const grHostNodeParams *pNodeParams);

/* Adds a node that does nothing (a join point). Mirrors
 * cudaGraphAddEmptyNode. */
GR_API grError_t grGraphAddEmptyNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                     const grGraphNode_t *pDependencies, size_t numDependencies);

/* Adds a node that runs a copy of childGraph (cloned now). Mirrors
 * cudaGraphAddChildGraphNode. */
GR_API grError_t grGraphAddChildGraphNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          grGraph_t childGraph);

/* Adds a node that records 'event' when its dependencies complete. Mirrors
 * cudaGraphAddEventRecordNode. */
GR_API grError_t grGraphAddEventRecordNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                           const grGraphNode_t *pDependencies, size_t numDependencies,
                                           grEvent_t event);

/* Adds a node that waits for the event's latest record at the time the
 * node runs. Mirrors cudaGraphAddEventWaitNode. */
GR_API grError_t grGraphAddEventWaitNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                         const grGraphNode_t *pDependencies, size_t numDependencies,
                                         grEvent_t event);

/* Adds a node of any type described by nodeParams (type tag + union).
 * For an alloc node nodeParams->alloc.dptr is set. Mirrors cudaGraphAddNode
 * (CUDA 12.3 form without edge data). */
GR_API grError_t grGraphAddNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                const grGraphNode_t *pDependencies, size_t numDependencies,
                                grGraphNodeParams *nodeParams);

/* Adds edges from[i] -> to[i]. All are checked first (NULL, other graph,
 * self edge, duplicate, already present, would make a cycle); if any fails
 * none is added. Mirrors cudaGraphAddDependencies. */
GR_API grError_t grGraphAddDependencies(grGraph_t graph, const grGraphNode_t *from, const grGraphNode_t *to,
                                        size_t numDependencies);

/* Removes edges from[i] -> to[i]; an edge that does not exist refuses the
 * whole call. Mirrors cudaGraphRemoveDependencies. */
GR_API grError_t grGraphRemoveDependencies(grGraph_t graph, const grGraphNode_t *from,
                                           const grGraphNode_t *to, size_t numDependencies);

/* Removes a node and its edges. Mirrors cudaGraphDestroyNode. */
GR_API grError_t grGraphDestroyNode(grGraphNode_t node);

/* Two-call pattern: with nodes NULL, *numNodes receives the count; else up
 * to *numNodes nodes are written (in creation order) and *numNodes is set
 * to the number written. Mirrors cudaGraphGetNodes. */
GR_API grError_t grGraphGetNodes(grGraph_t graph, grGraphNode_t *nodes, size_t *numNodes);

/* The nodes without dependencies; two-call pattern. Mirrors
 * cudaGraphGetRootNodes. */
GR_API grError_t grGraphGetRootNodes(grGraph_t graph, grGraphNode_t *pRootNodes, size_t *pNumRootNodes);

/* The edges as from[i] -> to[i]; two-call pattern. Mirrors cudaGraphGetEdges
 * (CUDA 12 form). */
GR_API grError_t grGraphGetEdges(grGraph_t graph, grGraphNode_t *from, grGraphNode_t *to, size_t *numEdges);

/* The node's type. Mirrors cudaGraphNodeGetType. */
GR_API grError_t grGraphNodeGetType(grGraphNode_t node, grGraphNodeType *pType);

/* The node's dependencies; two-call pattern. Mirrors
 * cudaGraphNodeGetDependencies (CUDA 12 form). */
GR_API grError_t grGraphNodeGetDependencies(grGraphNode_t node, grGraphNode_t *pDependencies,
                                            size_t *pNumDependencies);

/* The nodes that depend on this one; two-call pattern. Mirrors
 * cudaGraphNodeGetDependentNodes (CUDA 12 form). */
GR_API grError_t grGraphNodeGetDependentNodes(grGraphNode_t node, grGraphNode_t *pDependentNodes,
                                              size_t *pNumDependentNodes);

/* Kernel node parameters. Get returns kernelParams pointing into the
 * node's own copy of the values (valid until the node changes); Set copies
 * new values. Mirror cudaGraphKernelNodeGetParams / SetParams. */
GR_API grError_t grGraphKernelNodeGetParams(grGraphNode_t node, grKernelNodeParams *pNodeParams);
GR_API grError_t grGraphKernelNodeSetParams(grGraphNode_t node, const grKernelNodeParams *pNodeParams);

/* Copy node parameters. Mirror cudaGraphMemcpyNodeGetParams /
 * cudaGraphMemcpyNodeSetParams1D. */
GR_API grError_t grGraphMemcpyNodeGetParams(grGraphNode_t node, grMemcpy3DParms *pNodeParams);
GR_API grError_t grGraphMemcpyNodeSetParams1D(grGraphNode_t node, void *dst, const void *src, size_t count,
                                              grMemcpyKind kind);

/* Memset node parameters. Mirror cudaGraphMemsetNodeGetParams / SetParams. */
GR_API grError_t grGraphMemsetNodeGetParams(grGraphNode_t node, grMemsetParams *pNodeParams);
GR_API grError_t grGraphMemsetNodeSetParams(grGraphNode_t node, const grMemsetParams *pNodeParams);

/* Host node parameters. Mirror cudaGraphHostNodeGetParams / SetParams. */
GR_API grError_t grGraphHostNodeGetParams(grGraphNode_t node, grHostNodeParams *pNodeParams);
GR_API grError_t grGraphHostNodeSetParams(grGraphNode_t node, const grHostNodeParams *pNodeParams);

/* The graph embedded in a child-graph node (owned by the node; it may be
 * queried and its nodes' parameters changed, not destroyed). Mirrors
 * cudaGraphChildGraphNodeGetGraph. */
GR_API grError_t grGraphChildGraphNodeGetGraph(grGraphNode_t node, grGraph_t *pGraph);

/* Event of an event record / wait node. Mirror
 * cudaGraphEventRecordNodeGetEvent and friends. */
GR_API grError_t grGraphEventRecordNodeGetEvent(grGraphNode_t node, grEvent_t *event_out);
GR_API grError_t grGraphEventRecordNodeSetEvent(grGraphNode_t node, grEvent_t event);
GR_API grError_t grGraphEventWaitNodeGetEvent(grGraphNode_t node, grEvent_t *event_out);
GR_API grError_t grGraphEventWaitNodeSetEvent(grGraphNode_t node, grEvent_t event);

/* Copies a graph: same nodes (parameters copied), same edges. Mirrors
 * cudaGraphClone. */
GR_API grError_t grGraphClone(grGraph_t *pGraphClone, grGraph_t originalGraph);

/* The node of clonedGraph that was cloned from originalNode. Mirrors
 * cudaGraphNodeFindInClone. */
GR_API grError_t grGraphNodeFindInClone(grGraphNode_t *pNode, grGraphNode_t originalNode,
                                        grGraph_t clonedGraph);

/* Flags of grGraphDebugDotPrint. */
#define grGraphDebugDotFlagsVerbose (1u << 0)

/* Writes the graph as Graphviz DOT to 'path': one box per node labelled
 * with its type and key parameters (all parameters with
 * grGraphDebugDotFlagsVerbose), child graphs as clusters. Mirrors
 * cudaGraphDebugDotPrint. */
GR_API grError_t grGraphDebugDotPrint(grGraph_t graph, const char *path, unsigned int flags);

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
 * docs/capture.md.
 *
 * Capture sequences are safe to use from several threads (each capture
 * has its own lock), but a stream must not be issued work by one thread
 * while another ends its capture, as in CUDA.
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

/* Which "potentially unsafe" calls (grMalloc, grFree, grMallocHost,
 * grStreamSynchronize, grStreamQuery, grEventSynchronize, grEventQuery on
 * work outside the capture) are refused while captures are in progress.
 * A thread is refused them when its own mode (grThreadExchangeStream-
 * CaptureMode, default Global) is not Relaxed and either it began a
 * capture that is not Relaxed, or its mode is Global and another thread
 * began a Global capture. A refused call returns
 * grErrorStreamCaptureUnsupported and invalidates the captures that
 * forbade it. Also: a capture begun in Global or ThreadLocal mode must be
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

/* Begins capturing 'stream' into a new graph in the given mode. Errors:
 * grErrorInvalidValue (mode not a grStreamCaptureMode),
 * grErrorInvalidResourceHandle (stream not live),
 * grErrorStreamCaptureUnsupported (the legacy stream: NULL or
 * grStreamLegacy; grStreamPerThread may be captured),
 * grErrorIllegalState (the stream already takes part in a capture, even
 * an invalidated one). Mirrors cudaStreamBeginCapture. */
GR_API grError_t grStreamBeginCapture(grStream_t stream, grStreamCaptureMode mode);

/* As grStreamBeginCapture, but the captured nodes are added to the
 * existing 'graph', the first of them depending on dependencies[0..
 * numDependencies) (nodes of 'graph'). grStreamEndCapture then returns
 * 'graph' itself. Errors as grStreamBeginCapture, plus
 * grErrorInvalidValue for a graph that is not live, owned by a child-graph
 * node, or dependencies that are not distinct live nodes of it. Mirrors
 * cudaStreamBeginCaptureToGraph (CUDA 12.3 form, without edge data).
 * Deviation: if the capture fails (invalidated, unjoined), the nodes it
 * added are removed and the graph is left as it was, where CUDA leaves the
 * graph unusable. */
GR_API grError_t grStreamBeginCaptureToGraph(grStream_t stream, grGraph_t graph,
                                             const grGraphNode_t *dependencies, size_t numDependencies,
                                             grStreamCaptureMode mode);

/* Ends the capture begun on 'stream' and returns the graph in *pGraph
 * (the caller owns it; with grStreamBeginCaptureToGraph, the graph given
 * there). Every stream that joined the capture leaves it, whatever the
 * result. Errors: grErrorInvalidValue (pGraph NULL),
 * grErrorIllegalState (the stream is not capturing; *pGraph untouched),
 * grErrorStreamCaptureUnmatched (the stream joined a capture begun on
 * another stream; that capture is invalidated and not ended),
 * grErrorStreamCaptureWrongThread (a Global or ThreadLocal capture ended
 * by another thread; the capture ends, *pGraph = NULL),
 * grErrorStreamCaptureInvalidated (an illegal call invalidated the
 * capture; it ends, *pGraph = NULL, and the detail names the FIRST call
 * that invalidated it), grErrorStreamCaptureUnjoined (a stream that joined
 * has work the capturing stream never waited for; the capture ends,
 * *pGraph = NULL). Cost: linear in the streams and events of the capture,
 * plus one pass over the nodes when a forked stream must be checked for
 * being joined. Mirrors cudaStreamEndCapture. */
GR_API grError_t grStreamEndCapture(grStream_t stream, grGraph_t *pGraph);

/* *pCaptureStatus: whether the stream takes part in a capture. Errors:
 * grErrorInvalidValue (pCaptureStatus NULL), grErrorStreamCaptureImplicit
 * (the legacy stream while a blocking stream captures: using it would
 * make it depend on the capture). Never refused by the capture modes.
 * Mirrors cudaStreamIsCapturing. */
GR_API grError_t grStreamIsCapturing(grStream_t stream, grStreamCaptureStatus *pCaptureStatus);

/* The capture state of the stream: *captureStatus_out (required), and,
 * only when it is grStreamCaptureStatusActive, each non-NULL optional
 * output: *id_out a process-unique id of the capture (shared by every
 * stream in it, never reused), *graph_out the graph being built (owned by
 * the capture: do not destroy it), *dependencies_out / *numDependencies_out
 * the nodes the next captured operation on this stream will depend on
 * (the array stays valid until the next operation on the stream). Errors:
 * grErrorInvalidValue (captureStatus_out NULL), grErrorStreamCaptureImplicit
 * (as grStreamIsCapturing). Mirrors cudaStreamGetCaptureInfo (CUDA 12
 * form, without edge data). */
GR_API grError_t grStreamGetCaptureInfo(grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, grGraph_t *graph_out,
                                        const grGraphNode_t **dependencies_out, size_t *numDependencies_out);

/* Changes the set of nodes the next captured operation on the stream
 * depends on: flags grStreamAddCaptureDependencies adds dependencies
 * (duplicates ignored), grStreamSetCaptureDependencies replaces the set
 * (an empty set makes the next node a root). Errors: grErrorInvalidValue
 * (other flags, dependencies NULL with numDependencies > 0, a node that is
 * not a live node of the capture's graph; the capture stays valid),
 * grErrorIllegalState (the stream is not capturing),
 * grErrorStreamCaptureInvalidated (its capture was invalidated). Mirrors
 * cudaStreamUpdateCaptureDependencies (CUDA 12 form). */
GR_API grError_t grStreamUpdateCaptureDependencies(grStream_t stream, grGraphNode_t *dependencies,
                                                   size_t numDependencies, unsigned int flags);

/* Sets the calling thread's capture mode to *mode and returns the previous
 * one in *mode (the usual pattern: exchange to Relaxed around a call that
 * is known safe, then exchange back). Errors: grErrorInvalidValue (mode
 * NULL, or *mode not a grStreamCaptureMode). Mirrors
 * cudaThreadExchangeStreamCaptureMode. Deviation: CUDA accepts an invalid
 * *mode and returns cudaSuccess; graphrt refuses it and keeps the
 * thread's mode. */
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

/* Compiles the graph into an executable. The executable owns copies of
 * everything it needs: the graph may be changed or destroyed right after.
 * Refuses (grErrorInvalidValue, detail naming the nodes) a graph with a
 * cycle. flags: the grGraphInstantiateFlag* bits (DeviceLaunch:
 * grErrorNotSupported). Mirrors cudaGraphInstantiate (CUDA 12 form). */
GR_API grError_t grGraphInstantiate(grGraphExec_t *pGraphExec, grGraph_t graph, unsigned long long flags);

/* Same as grGraphInstantiate. Mirrors cudaGraphInstantiateWithFlags. */
GR_API grError_t grGraphInstantiateWithFlags(grGraphExec_t *pGraphExec, grGraph_t graph,
                                             unsigned long long flags);

/* Destroys an executable; a launch still queued or running completes
 * first. Mirrors cudaGraphExecDestroy. */
GR_API grError_t grGraphExecDestroy(grGraphExec_t graphExec);

/* Queues one run of the executable on the stream, as one stream operation.
 * A launch of an executable still running from an earlier launch starts
 * after it. Mirrors cudaGraphLaunch. */
GR_API grError_t grGraphLaunch(grGraphExec_t graphExec, grStream_t stream);

/* Prepares the executable for launch (nothing to do on the CPU; checks
 * handles and stream order). Mirrors cudaGraphUpload. */
GR_API grError_t grGraphUpload(grGraphExec_t graphExec, grStream_t stream);

/*
 * In-place updates of an executable. 'node' is a node of the graph the
 * executable was instantiated from (it may have been destroyed since, as
 * in CUDA, the executable remembers it). The change applies to launches
 * issued after the call, never to one already queued or running.
 */
GR_API grError_t grGraphExecKernelNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grKernelNodeParams *pNodeParams);
GR_API grError_t grGraphExecMemcpyNodeSetParams1D(grGraphExec_t hGraphExec, grGraphNode_t node, void *dst,
                                                  const void *src, size_t count, grMemcpyKind kind);
GR_API grError_t grGraphExecMemsetNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemsetParams *pNodeParams);
GR_API grError_t grGraphExecHostNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                              const grHostNodeParams *pNodeParams);
/* childGraph must have the topology of the node's graph at instantiation. */
GR_API grError_t grGraphExecChildGraphNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    grGraph_t childGraph);
GR_API grError_t grGraphExecEventRecordNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                    grEvent_t event);
GR_API grError_t grGraphExecEventWaitNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                  grEvent_t event);

/* Disables (isEnabled 0) or re-enables a kernel, memcpy or memset node of
 * the executable (other types: grErrorInvalidValue, as in CUDA); a disabled
 * node runs as an empty node. Mirror cudaGraphNodeSetEnabled /
 * cudaGraphNodeGetEnabled. */
GR_API grError_t grGraphNodeSetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode, unsigned int isEnabled);
GR_API grError_t grGraphNodeGetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                       unsigned int *isEnabled);

/* Applies the parameters of hGraph, which must have the topology of the
 * executable's graph, to the executable in place. Nodes are paired as CUDA
 * pairs them: sink nodes in creation order, then each pair's dependencies
 * in edge order. On failure returns
 * grErrorGraphExecUpdateFailure, fills resultInfo (result, errorNode,
 * errorFromNode) and leaves the executable exactly as it was. Mirrors
 * cudaGraphExecUpdate (CUDA 12 form). */
GR_API grError_t grGraphExecUpdate(grGraphExec_t hGraphExec, grGraph_t hGraph,
                                   grGraphExecUpdateResultInfo *resultInfo);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_H */
