/*
 * cu_driver.h - the part of the CUDA driver API that graphrt's CUDA backend
 * calls, declared here from NVIDIA's published driver API reference (CUDA
 * Driver API, sections Error Handling, Initialization, Device Management,
 * Primary Context Management, Context Management, Module Management,
 * Memory Management, Unified Addressing, Virtual Memory Management, Stream
 * Ordered Memory Allocator, Stream Management, Event Management, Execution
 * Control, Driver Entry Point Access), so that
 * graphrt builds without the CUDA toolkit. Private to the backend area.
 *
 * Every function is reached through the table 'gr_cu' (loader.c), filled
 * with cuGetProcAddress by base name at the ABI version noted beside each
 * member ("v12000": the signature as of CUDA 12.0, which 12.x and 13.x
 * keep; cuGetProcAddress picks the matching _v2/_v3 entry, e.g.
 * cuMemAlloc_v2). Only what graphrt uses is declared; the enumerators
 * carry the values the reference gives them.
 */
#ifndef GR_CU_DRIVER_H
#define GR_CU_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2 */
typedef uint64_t cuuint64_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef void (*CUhostFn)(void *userData);

/* CUresult values graphrt names or maps (cudaError_enum). */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_INVALID_SOURCE = 300,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_ILLEGAL_STATE = 401,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_NOT_PERMITTED = 800,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
    CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
    CUDA_ERROR_CAPTURED_EVENT = 907,
    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
    CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
    CUDA_ERROR_UNKNOWN = 999
};

/* CUdevice_attribute values graphrt reads. */
typedef enum CUdevice_attribute {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115
} CUdevice_attribute;

/* CUpointer_attribute / CUmemorytype values graphrt reads. */
enum {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
};
enum {
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_MEMORYTYPE_ARRAY = 3,
    CU_MEMORYTYPE_UNIFIED = 4
};

/* Flags (CUstream_flags, CUevent_flags, cuMemHostAlloc's, CUevent_wait_flags). */
enum {
    CU_STREAM_DEFAULT = 0,
    CU_STREAM_NON_BLOCKING = 1
};
enum {
    CU_EVENT_DEFAULT = 0,
    CU_EVENT_BLOCKING_SYNC = 1,
    CU_EVENT_DISABLE_TIMING = 2
};
enum {
    CU_MEMHOSTALLOC_PORTABLE = 1
};
/* cuMemHostRegister's flags (the values of grHostRegister's). */
enum {
    CU_MEMHOSTREGISTER_PORTABLE = 0x01,
    CU_MEMHOSTREGISTER_DEVICEMAP = 0x02,
    CU_MEMHOSTREGISTER_IOMEMORY = 0x04,
    CU_MEMHOSTREGISTER_READ_ONLY = 0x08
};
/* CUmemAttach_flags (cuMemAllocManaged, cuStreamAttachMemAsync): the
 * values of grMemAttachGlobal, Host and Single. */
enum {
    CU_MEM_ATTACH_GLOBAL = 0x1,
    CU_MEM_ATTACH_HOST = 0x2,
    CU_MEM_ATTACH_SINGLE = 0x4
};
/* CUlimit, the limits of cuCtxSetLimit (the values of grLimit). */
enum {
    CU_LIMIT_STACK_SIZE = 0x00,
    CU_LIMIT_PRINTF_FIFO_SIZE = 0x01,
    CU_LIMIT_MALLOC_HEAP_SIZE = 0x02,
    CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 0x03,
    CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 0x04,
    CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 0x05,
    CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
};
/* CUctx_flags, a primary context's flags (the values of grSetDeviceFlags'). */
enum {
    CU_CTX_SCHED_SPIN = 0x01,
    CU_CTX_SCHED_YIELD = 0x02,
    CU_CTX_SCHED_BLOCKING_SYNC = 0x04,
    CU_CTX_SCHED_MASK = 0x07,
    CU_CTX_MAP_HOST = 0x08,
    CU_CTX_LMEM_RESIZE_TO_MAX = 0x10,
    CU_CTX_SYNC_MEMOPS = 0x80
};
/* The device ids of CUmem_range_attribute's answers that name no GPU. */
enum {
    GR_CU_DEVICE_CPU = -1,
    GR_CU_DEVICE_INVALID = -2
};

/* Virtual memory management (graph memory on a GPU, vmm.c): the handle of
 * a physical allocation, where memory is and who may reach it. */
typedef unsigned long long CUmemGenericAllocationHandle;
typedef enum CUmemAllocationType {
    CU_MEM_ALLOCATION_TYPE_PINNED = 1
} CUmemAllocationType;
typedef enum CUmemAllocationHandleType {
    CU_MEM_HANDLE_TYPE_NONE = 0
} CUmemAllocationHandleType;
typedef enum CUmemLocationType {
    CU_MEM_LOCATION_TYPE_INVALID = 0,
    CU_MEM_LOCATION_TYPE_DEVICE = 1,
    CU_MEM_LOCATION_TYPE_HOST = 2,
    CU_MEM_LOCATION_TYPE_HOST_NUMA = 3,
    CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 4
} CUmemLocationType;
typedef enum CUmemAccess_flags {
    CU_MEM_ACCESS_FLAGS_PROT_NONE = 0,
    CU_MEM_ACCESS_FLAGS_PROT_READ = 1,
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
} CUmemAccess_flags;
typedef enum CUmemAllocationGranularity_flags {
    CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0
} CUmemAllocationGranularity_flags;
typedef struct CUmemLocation {
    CUmemLocationType type;
    int id; /* the device ordinal */
} CUmemLocation;
typedef struct CUmemAllocationProp {
    CUmemAllocationType type;
    CUmemAllocationHandleType requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;
/* CUmemPoolProps_v1 (stream-ordered pools, pool.c). */
typedef struct CUmemPoolProps {
    CUmemAllocationType allocType;
    CUmemAllocationHandleType handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;
typedef struct CUmemAccessDesc {
    CUmemLocation location;
    CUmemAccess_flags flags;
} CUmemAccessDesc;

/* The special stream handles (cuda.h's CU_STREAM_LEGACY and
 * CU_STREAM_PER_THREAD). */
#define GR_CU_STREAM_LEGACY ((CUstream)0x1)
#define GR_CU_STREAM_PER_THREAD ((CUstream)0x2)

/* cuGetProcAddress: CUdriverProcAddress_flags and the query result. */
enum {
    CU_GET_PROC_ADDRESS_DEFAULT = 0
};
typedef enum CUdriverProcAddressQueryResult {
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
} CUdriverProcAddressQueryResult;

/* One operation of cuStreamBatchMemOp (CUstreamBatchMemOpParams_v1, 48
 * bytes; the write's member has the wait's layout, the flush's the
 * barrier's). graphrt's grStreamBatchMemOpParams has the same offsets on
 * a 64-bit host (cuda/memop.c checks them). */
typedef union CUstreamBatchMemOpParams {
    int operation; /* CUstreamBatchMemOpType */
    struct {
        int operation;
        CUdeviceptr address;
        union {
            uint32_t value;
            uint64_t value64;
        };
        unsigned int flags;
        CUdeviceptr alias;
    } waitValue;
    struct {
        int operation;
        unsigned int flags;
    } memoryBarrier;
    uint64_t pad[6];
} CUstreamBatchMemOpParams;

/* CUfunction_attribute: what cuFuncGetAttribute answers, one per field
 * of cudaFuncAttributes. */
enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
    CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
    CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
    CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15
};

/* The CUDA version whose ABI graphrt asks cuGetProcAddress for. */
#define GR_CU_ABI_VERSION 12000

/* cuGetProcAddress as exported by libcuda.so.1 under the name
 * cuGetProcAddress_v2 (CUDA 12.0 and later). */
typedef CUresult (*gr_cuGetProcAddress_v2)(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                           CUdriverProcAddressQueryResult *symbolStatus);
/* ... and under the name cuGetProcAddress (CUDA 11.3 to 11.8). */
typedef CUresult (*gr_cuGetProcAddress_v1)(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);

#include "cu_graph.h"

/*
 * The driver's entry points graphrt uses. X(name, return, parameters):
 * the member is 'name', resolved by that base name at GR_CU_ABI_VERSION
 * (the signatures below are those of CUDA 12.0's reference).
 */
#define GR_CU_FUNCTIONS(X)                                                                                 \
    X(cuInit, (unsigned int flags))                                                                        \
    X(cuGetErrorName, (CUresult error, const char **pStr))                                                 \
    X(cuGetErrorString, (CUresult error, const char **pStr))                                               \
    X(cuDeviceGetCount, (int *count))                                                                      \
    X(cuDeviceGet, (CUdevice * device, int ordinal))                                                       \
    X(cuDeviceGetName, (char *name, int len, CUdevice dev))                                                \
    X(cuDeviceTotalMem, (size_t * bytes, CUdevice dev))                                                    \
    X(cuDeviceGetAttribute, (int *pi, CUdevice_attribute attrib, CUdevice dev))                            \
    X(cuDevicePrimaryCtxRetain, (CUcontext * pctx, CUdevice dev))                                          \
    X(cuCtxSetCurrent, (CUcontext ctx))                                                                    \
    X(cuCtxSynchronize, (void))                                                                            \
    X(cuDeviceCanAccessPeer, (int *canAccessPeer, CUdevice dev, CUdevice peerDev))                         \
    X(cuCtxEnablePeerAccess, (CUcontext peerContext, unsigned int Flags))                                  \
    X(cuCtxDisablePeerAccess, (CUcontext peerContext))                                                     \
    X(cuModuleLoadData, (CUmodule * module, const void *image))                                            \
    X(cuModuleUnload, (CUmodule hmod))                                                                     \
    X(cuModuleGetFunction, (CUfunction * hfunc, CUmodule hmod, const char *name))                          \
    X(cuMemAlloc, (CUdeviceptr * dptr, size_t bytesize))                                                   \
    X(cuMemFree, (CUdeviceptr dptr))                                                                       \
    X(cuMemHostAlloc, (void **pp, size_t bytesize, unsigned int Flags))                                    \
    X(cuMemAllocManaged, (CUdeviceptr * dptr, size_t bytesize, unsigned int flags))                        \
    X(cuMemRangeGetAttribute,                                                                              \
      (void *data, size_t dataSize, int attribute, CUdeviceptr devPtr, size_t count))                      \
    X(cuStreamAttachMemAsync, (CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags))     \
    X(cuMemHostRegister, (void *p, size_t bytesize, unsigned int Flags))                                   \
    X(cuMemHostUnregister, (void *p))                                                                      \
    X(cuMemHostGetDevicePointer, (CUdeviceptr * pdptr, void *p, unsigned int Flags))                       \
    X(cuCtxSetLimit, (int limit, size_t value))                                                            \
    X(cuCtxGetLimit, (size_t * pvalue, int limit))                                                         \
    X(cuDevicePrimaryCtxSetFlags, (CUdevice dev, unsigned int flags))                                      \
    X(cuDevicePrimaryCtxGetState, (CUdevice dev, unsigned int *flags, int *active))                        \
    X(cuMemFreeHost, (void *p))                                                                            \
    X(cuPointerGetAttribute, (void *data, int attribute, CUdeviceptr ptr))                                 \
    X(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream))               \
    X(cuMemsetD8Async, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream))              \
    X(cuMemcpy3DAsync, (const CUDA_MEMCPY3D *pCopy, CUstream hStream))                                     \
    X(cuMemsetD2D8Async, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,          \
                          size_t Height, CUstream hStream))                                                \
    X(cuMemAllocAsync, (CUdeviceptr * dptr, size_t bytesize, CUstream hStream))                            \
    X(cuMemFreeAsync, (CUdeviceptr dptr, CUstream hStream))                                                \
    X(cuMemAllocFromPoolAsync, (CUdeviceptr * dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)) \
    X(cuMemPoolCreate, (CUmemoryPool * pool, const CUmemPoolProps *poolProps))                             \
    X(cuMemPoolDestroy, (CUmemoryPool pool))                                                               \
    X(cuMemPoolTrimTo, (CUmemoryPool pool, size_t minBytesToKeep))                                         \
    X(cuMemPoolSetAttribute, (CUmemoryPool pool, int attr, void *value))                                   \
    X(cuMemPoolGetAttribute, (CUmemoryPool pool, int attr, void *value))                                   \
    X(cuDeviceGetDefaultMemPool, (CUmemoryPool * pool, CUdevice dev))                                      \
    X(cuDeviceSetMemPool, (CUdevice dev, CUmemoryPool pool))                                               \
    X(cuMemPoolSetAccess, (CUmemoryPool pool, const CUmemAccessDesc *map, size_t count))                   \
    X(cuMemPoolGetAccess, (CUmemAccess_flags * flags, CUmemoryPool memPool, CUmemLocation * location))     \
    X(cuMemGetAllocationGranularity,                                                                       \
      (size_t * granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option))    \
    X(cuMemAddressReserve,                                                                                 \
      (CUdeviceptr * ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags))      \
    X(cuMemAddressFree, (CUdeviceptr ptr, size_t size))                                                    \
    X(cuMemCreate, (CUmemGenericAllocationHandle * handle, size_t size, const CUmemAllocationProp *prop,   \
                    unsigned long long flags))                                                             \
    X(cuMemRelease, (CUmemGenericAllocationHandle handle))                                                 \
    X(cuMemMap, (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,         \
                 unsigned long long flags))                                                                \
    X(cuMemUnmap, (CUdeviceptr ptr, size_t size))                                                          \
    X(cuMemSetAccess, (CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count))           \
    X(cuStreamCreateWithPriority, (CUstream * phStream, unsigned int flags, int priority))                 \
    X(cuCtxGetStreamPriorityRange, (int *leastPriority, int *greatestPriority))                            \
    X(cuStreamDestroy, (CUstream hStream))                                                                 \
    X(cuStreamSynchronize, (CUstream hStream))                                                             \
    X(cuStreamQuery, (CUstream hStream))                                                                   \
    X(cuStreamWaitEvent, (CUstream hStream, CUevent hEvent, unsigned int Flags))                           \
    X(cuLaunchHostFunc, (CUstream hStream, CUhostFn fn, void *userData))                                   \
    X(cuStreamBatchMemOp,                                                                                  \
      (CUstream hStream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags))    \
    X(cuEventCreate, (CUevent * phEvent, unsigned int Flags))                                              \
    X(cuEventDestroy, (CUevent hEvent))                                                                    \
    X(cuEventRecord, (CUevent hEvent, CUstream hStream))                                                   \
    X(cuEventQuery, (CUevent hEvent))                                                                      \
    X(cuEventSynchronize, (CUevent hEvent))                                                                \
    X(cuEventElapsedTime, (float *pMilliseconds, CUevent hStart, CUevent hEnd))                            \
    X(cuLaunchKernel, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,  \
                       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,             \
                       unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra))  \
    X(cuLaunchCooperativeKernel,                                                                           \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,  \
       unsigned int bz, unsigned int shmem, CUstream hStream, void **kernelParams))                        \
    X(cuFuncGetAttribute, (int *pi, int attrib, CUfunction hfunc))                                         \
    X(cuFuncSetAttribute, (CUfunction hfunc, int attrib, int value))                                       \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,                                                \
      (int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags))        \
    X(cuOccupancyAvailableDynamicSMemPerBlock,                                                             \
      (size_t * dynamicSmemSize, CUfunction func, int numBlocks, int blockSize))                           \
    GR_CU_GRAPH_FUNCTIONS(X)

/*
 * Entry points a driver may lack, resolved at GR_CU_ABI_VERSION and left
 * NULL where it does (loader.c); the calls that need them refuse with
 * grErrorCallRequiresNewerDriver. The launch with attributes and the
 * cluster occupancy calls (CUDA 11.8), stream capture and child graph
 * nodes (a collective node's lowering, below) and the batch memory
 * operation nodes' (CUDA 11.7, cu_graph.h).
 */
#define GR_CU_OPT_FUNCTIONS(X)                                                                               \
    X(cuLaunchKernelEx, (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra))     \
    X(cuOccupancyMaxActiveClusters, (int *numClusters, CUfunction func, const CUlaunchConfig *config))       \
    X(cuOccupancyMaxPotentialClusterSize, (int *clusterSize, CUfunction func, const CUlaunchConfig *config)) \
    GR_CU_CAPTURE_FUNCTIONS(X)                                                                               \
    GR_CU_MEMOP_NODE_FUNCTIONS(X)

/* Stream capture and child graph nodes: what a collective node's lowering
 * uses (nccl.c captures the NCCL call into a graph that becomes a child
 * graph node). cuStreamBeginCapture at GR_CU_ABI_VERSION is the _v2 form,
 * with a capture mode. */
enum {
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2
};
#define GR_CU_CAPTURE_FUNCTIONS(X)                                                                           \
    X(cuStreamBeginCapture, (CUstream hStream, int mode))                                                    \
    X(cuStreamEndCapture, (CUstream hStream, CUgraph * phGraph))                                             \
    X(cuGraphAddChildGraphNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, \
                                 size_t numDependencies, CUgraph childGraph))                                \
    X(cuGraphExecChildGraphNodeSetParams, (CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph))   \
    X(cuGraphGetNodes, (CUgraph hGraph, CUgraphNode * nodes, size_t * numNodes))                             \
    X(cuGraphNodeGetType, (CUgraphNode hNode, int *type))

/*
 * The managed-memory hints with a CUmemLocation (CUDA 12.2's cuMemAdvise_v2
 * and cuMemPrefetchAsync_v2, which CUDA 13 names without the suffix),
 * resolved by base name at GR_CU_MANAGED_ABI_VERSION and left NULL where
 * the driver lacks them: grMemAdvise and the prefetches of GPU managed
 * memory then refuse with grErrorCallRequiresNewerDriver.
 */
#define GR_CU_MANAGED_ABI_VERSION 12020
#define GR_CU_MANAGED_FUNCTIONS(X)                                                         \
    X(cuMemAdvise, (CUdeviceptr devPtr, size_t count, int advice, CUmemLocation location)) \
    X(cuMemPrefetchAsync,                                                                  \
      (CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream))

/* The table of entry points, filled once by the loader; a driver that
 * lacks one of GR_CU_FUNCTIONS leaves the process without GPUs (loader.c). */
typedef struct gr_cu_table {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): a declarator, not an expression */
#define GR_CU_MEMBER(name, params) CUresult(*name) params;
    GR_CU_FUNCTIONS(GR_CU_MEMBER)
    GR_CU_COND_FUNCTIONS(GR_CU_MEMBER)    /* NULL where the driver lacks them */
    GR_CU_OPT_FUNCTIONS(GR_CU_MEMBER)     /* likewise */
    GR_CU_MANAGED_FUNCTIONS(GR_CU_MEMBER) /* likewise */
#undef GR_CU_MEMBER
} gr_cu_table;

extern gr_cu_table gr_cu;

#endif /* GR_CU_DRIVER_H */
