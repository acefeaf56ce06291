/*
 * cu_graph.h - the driver API's graph objects and calls that graphrt's
 * lowering uses (cuda/graph.c), declared from NVIDIA's published driver
 * API reference (CUDA Driver API, section Graph Management), at the CUDA
 * 12.0 ABI the loader asks cuGetProcAddress for: there cuGraphAddKernelNode
 * cuGraphKernelNodeSetParams and cuGraphExecKernelNodeSetParams are the
 * '_v2' entries taking CUDA_KERNEL_NODE_PARAMS_v2 (with 'kern' and 'ctx'),
 * and cuGraphExecUpdate the '_v2' one taking a result structure. Included by
 * cu_driver.h, whose table resolves GR_CU_GRAPH_FUNCTIONS with the rest
 * and GR_CU_COND_FUNCTIONS where the driver has them.
 * Private to the backend area.
 */
#ifndef GR_CU_GRAPH_H
#define GR_CU_GRAPH_H

typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUarray_st *CUarray;
typedef struct CUkern_st *CUkernel;
typedef unsigned long long CUgraphConditionalHandle;

/* CUDA_KERNEL_NODE_PARAMS_v2. */
typedef struct CUDA_KERNEL_NODE_PARAMS {
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
    CUkernel kern; /* used only when func is NULL */
    CUcontext ctx; /* ignored when func is set */
} CUDA_KERNEL_NODE_PARAMS;

/* CUDA_MEMCPY3D_v2: a 1D copy sets WidthInBytes and Height = Depth = 1. */
typedef struct CUDA_MEMCPY3D {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType; /* CU_MEMORYTYPE_* */
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

/* CUDA_MEMSET_NODE_PARAMS_v1. */
typedef struct CUDA_MEMSET_NODE_PARAMS {
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize; /* 1, 2 or 4 */
    size_t width, height;
} CUDA_MEMSET_NODE_PARAMS;

/* CUDA_HOST_NODE_PARAMS_v1. */
typedef struct CUDA_HOST_NODE_PARAMS {
    CUhostFn fn;
    void *userData;
} CUDA_HOST_NODE_PARAMS;

/* CUDA_BATCH_MEM_OP_NODE_PARAMS_v1, what cuGraphAddBatchMemOpNode and its
 * setters take: the operations (copied by the driver) run in context
 * 'ctx'; flags 0. */
typedef struct CUDA_BATCH_MEM_OP_NODE_PARAMS {
    CUcontext ctx;
    unsigned int count;
    CUstreamBatchMemOpParams *paramArray;
    unsigned int flags;
} CUDA_BATCH_MEM_OP_NODE_PARAMS;

/* CUgraphExecUpdateResultInfo_v1 (cuGraphExecUpdate's '_v2' entry, the
 * one at the 12.0 ABI). */
typedef struct CUgraphExecUpdateResultInfo {
    int result; /* CUgraphExecUpdateResult */
    CUgraphNode errorNode;
    CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

/* CUDA_CONDITIONAL_NODE_PARAMS (CUDA 12.3). */
typedef struct CUDA_CONDITIONAL_NODE_PARAMS {
    CUgraphConditionalHandle handle;
    int type;             /* CU_GRAPH_COND_TYPE_*: IF 0, WHILE 1, SWITCH 2 (graphrt's values) */
    unsigned int size;    /* bodies */
    CUgraph *phGraph_out; /* the driver's bodies, owned by the node */
    CUcontext ctx;
} CUDA_CONDITIONAL_NODE_PARAMS;

/* CUgraphNodeParams (cuGraphAddNode), of which graphrt fills only the
 * conditional member: 256 bytes, the unused ones zero. */
typedef struct CUgraphNodeParams {
    int type; /* CUgraphNodeType */
    int reserved0[3];
    union {
        long long reserved1[29];
        CUDA_CONDITIONAL_NODE_PARAMS conditional;
    };
    long long reserved2;
} CUgraphNodeParams;

enum {
    CU_GRAPH_NODE_TYPE_GRAPH = 4,
    CU_GRAPH_NODE_TYPE_CONDITIONAL = 13,
    CU_GRAPH_COND_ASSIGN_DEFAULT = 1
};

/* CUgraphInstantiate_flags. */
enum {
    CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH = 1,
    CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD = 2,
    CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH = 4,
    CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY = 8
};

/* CUlaunchAttributeValue (CUkernelNodeAttrValue): 64 bytes. The members
 * of the attributes graphrt passes on have the layout of
 * grLaunchAttributeValue's (types.h mirrors the runtime's union, whose
 * layout is the driver's), so graphrt copies the 64 bytes (kernel.c,
 * gr__cuda_launch_attrs); 'cooperative' is named for the nodes it sets
 * alone, and the device-updatable node's, whose devNode the driver
 * answers. */
typedef union CUlaunchAttributeValue {
    char pad[64];
    int cooperative;
    struct {
        int deviceUpdatable;
        void *devNode; /* CUgraphDeviceNode: an output */
    } deviceUpdatableKernelNode;
} CUlaunchAttributeValue;
/* CUlaunchAttributeID: the values of grLaunchAttributeID. */
enum {
    CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
    CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1,
    CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
    CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY = 3,
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
    CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT = 7,
    CU_LAUNCH_ATTRIBUTE_PRIORITY = 8,
    CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP = 9,
    CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN = 10,
    CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11,
    CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT = 12,
    CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE = 13,
    CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 14,
    CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING = 16
};

/* CUlaunchAttribute and CUlaunchConfig: cuLaunchKernelEx's, which the
 * cluster occupancy calls read too. */
typedef struct CUlaunchAttribute {
    int id; /* CUlaunchAttributeID */
    char pad[8 - sizeof(int)];
    CUlaunchAttributeValue value;
} CUlaunchAttribute;
typedef struct CUlaunchConfig {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;

#define GR_CU_GRAPH_FUNCTIONS(X)                                                                            \
    X(cuGraphCreate, (CUgraph * phGraph, unsigned int flags))                                               \
    X(cuGraphDestroy, (CUgraph hGraph))                                                                     \
    X(cuGraphAddKernelNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,    \
                             size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams))            \
    X(cuGraphAddMemcpyNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,    \
                             size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx))       \
    X(cuGraphAddMemsetNode,                                                                                 \
      (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies,  \
       const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx))                                         \
    X(cuGraphAddHostNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,      \
                           size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams))                \
    X(cuGraphAddEmptyNode,                                                                                  \
      (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies)) \
    X(cuGraphAddEventRecordNode, (CUgraphNode * phGraphNode, CUgraph hGraph,                                \
                                  const CUgraphNode *dependencies, size_t numDependencies, CUevent event))  \
    X(cuGraphAddEventWaitNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, \
                                size_t numDependencies, CUevent event))                                     \
    X(cuGraphInstantiateWithFlags, (CUgraphExec * phGraphExec, CUgraph hGraph, unsigned long long flags))   \
    X(cuGraphExecDestroy, (CUgraphExec hGraphExec))                                                         \
    X(cuGraphLaunch, (CUgraphExec hGraphExec, CUstream hStream))                                            \
    X(cuGraphUpload, (CUgraphExec hGraphExec, CUstream hStream))                                            \
    X(cuGraphExecKernelNodeSetParams,                                                                       \
      (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams))               \
    X(cuGraphExecMemcpyNodeSetParams,                                                                       \
      (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D *copyParams, CUcontext ctx))          \
    X(cuGraphExecMemsetNodeSetParams, (CUgraphExec hGraphExec, CUgraphNode hNode,                           \
                                       const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx))         \
    X(cuGraphExecHostNodeSetParams,                                                                         \
      (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams))                 \
    X(cuGraphExecEventRecordNodeSetEvent, (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event))       \
    X(cuGraphExecEventWaitNodeSetEvent, (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event))         \
    X(cuGraphNodeSetEnabled, (CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled))           \
    X(cuGraphKernelNodeSetParams, (CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams))           \
    X(cuGraphKernelNodeSetAttribute, (CUgraphNode hNode, int attr, const CUlaunchAttributeValue *value))    \
    X(cuGraphKernelNodeGetAttribute, (CUgraphNode hNode, int attr, CUlaunchAttributeValue *value_out))      \
    X(cuGraphMemcpyNodeSetParams, (CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams))                     \
    X(cuGraphMemsetNodeSetParams, (CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams))           \
    X(cuGraphHostNodeSetParams, (CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams))               \
    X(cuGraphEventRecordNodeSetEvent, (CUgraphNode hNode, CUevent event))                                   \
    X(cuGraphEventWaitNodeSetEvent, (CUgraphNode hNode, CUevent event))                                     \
    X(cuGraphExecUpdate, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo * resultInfo))

/* CUgraphEdgeData: the layout of grGraphEdgeData (8 bytes). */
typedef struct CUgraphEdgeData {
    unsigned char from_port, to_port, type, reserved[5];
} CUgraphEdgeData;

/* The entry points of conditional nodes, resolved at the CUDA 12.3 ABI
 * (GR_CU_COND_ABI_VERSION), where cuGraphAddNode is the '_v2' entry with
 * edge data; a driver without them keeps its GPUs, and instantiating a
 * graph with conditional nodes for them is refused (cuda/graph.c). At
 * that ABI cuGraphAddDependencies is the '_v2' entry with edge data too,
 * which lowers programmatic edges; a driver without it gets full edges
 * in their place. Capture into an existing graph and the capture's
 * dependencies (cuStreamGetCaptureInfo's '_v3' at that ABI) capture an
 * NCCL call straight into a GPU's graph where the driver refuses it as a
 * child graph (nccl.c). */
#define GR_CU_COND_ABI_VERSION 12030
#define GR_CU_COND_FUNCTIONS(X)                                                                             \
    X(cuGraphConditionalHandleCreate, (CUgraphConditionalHandle * pHandle_out, CUgraph hGraph,              \
                                       CUcontext ctx, unsigned int defaultLaunchValue, unsigned int flags)) \
    X(cuGraphAddNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,          \
                       const void *dependencyData, size_t numDependencies, CUgraphNodeParams *nodeParams))  \
    X(cuGraphAddDependencies, (CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,              \
                               const CUgraphEdgeData *edgeData, size_t numDependencies))                    \
    X(cuStreamBeginCaptureToGraph,                                                                          \
      (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,                                   \
       const CUgraphEdgeData *dependencyData, size_t numDependencies, int mode))                            \
    X(cuStreamGetCaptureInfo, (CUstream hStream, int *captureStatus_out, unsigned long long *id_out,        \
                               CUgraph *graph_out, const CUgraphNode **dependencies_out,                    \
                               const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out))

/* The entry points of batch memory operation nodes (CUDA 11.7: the
 * toolkit's cudaTypedefs.h names them PFN_cuGraphAddBatchMemOpNode_v11070
 * and so on), resolved with cu_driver.h's optional ones; a driver without
 * them keeps its GPUs, and a graph with such nodes is refused for them
 * (cuda/graph.c). */
#define GR_CU_MEMOP_NODE_FUNCTIONS(X)                                                                        \
    X(cuGraphAddBatchMemOpNode, (CUgraphNode * phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, \
                                 size_t numDependencies, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams))   \
    X(cuGraphBatchMemOpNodeSetParams, (CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams))  \
    X(cuGraphExecBatchMemOpNodeSetParams,                                                                    \
      (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams))

#endif /* GR_CU_GRAPH_H */
