/*
 * graphrt/graph.h - graphs: CUDA's "Graph Management" without its node adders and
 * node parameters (nodes.h) and executables (exec.h): node kinds and
 * parameter structures, graphs, edges, queries, user objects, cloning,
 * identities and DOT output.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_GRAPH_H
#define GRAPHRT_MODULE_GRAPH_H

#include "types.h"
#include "memory.h"
#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Graphs                                                                 */
/* ====================================================================== */

/*
 * The node kinds, one entry each: X(Suffix, value, name, word) stands for
 * grGraphNodeType<Suffix>, whose value is CUDA's (cudaGraphNodeType);
 * 'name' is what grGraphNodeTypeName returns, the words error details and
 * DOT output use; 'word' is the kind's one word in graph files
 * (docs/graph-files.md) and in the graphrt tool's output. The enum below
 * and every table of kinds expand this one list. BatchMemOp is the
 * driver's CU_GRAPH_NODE_TYPE_BATCH_MEM_OP (the runtime's enum has no
 * value 12): stream memory operations (docs/stream-memops.md);
 * Conditional: docs/conditional.md; Collective (graphrt's own kind, no
 * CUDA value): docs/collectives.md. graphrt's own (CUDA has no such list).
 */
#define GR_GRAPH_NODE_TYPE_LIST(X)              \
    X(Kernel, 0, "kernel", "kernel")            \
    X(Memcpy, 1, "memcpy", "memcpy")            \
    X(Memset, 2, "memset", "memset")            \
    X(Host, 3, "host", "host")                  \
    X(Graph, 4, "child graph", "graph")         \
    X(Empty, 5, "empty", "empty")               \
    X(WaitEvent, 6, "event wait", "wait")       \
    X(EventRecord, 7, "event record", "record") \
    X(MemAlloc, 10, "mem alloc", "alloc")       \
    X(MemFree, 11, "mem free", "free")          \
    X(BatchMemOp, 12, "batch mem op", "memop")  \
    X(Conditional, 13, "conditional", "cond")   \
    X(Collective, 14, "collective", "coll")

typedef enum grGraphNodeType {
#define GR_GRAPH_NODE_TYPE_ENUM_(suffix, value, name, word) grGraphNodeType##suffix = value,
    GR_GRAPH_NODE_TYPE_LIST(GR_GRAPH_NODE_TYPE_ENUM_)
#undef GR_GRAPH_NODE_TYPE_ENUM_
    grGraphNodeTypeCount
} grGraphNodeType;

/* The name of a node kind, from GR_GRAPH_NODE_TYPE_LIST: "kernel",
 * "child graph", "event wait", ... (the words of error details and DOT
 * output); "unknown" for a value that names no kind. The string is
 * static. Errors: none (it returns no error code and leaves the last
 * error alone). Thread safety: any thread. graphrt's own (CUDA has no
 * name function for cudaGraphNodeType). */
GR_API const char *grGraphNodeTypeName(grGraphNodeType type);

/* The word of a node kind in graph files and in the graphrt tool's
 * output (GR_GRAPH_NODE_TYPE_LIST's last column: "kernel", "graph",
 * "wait", ...), or "unknown" for a value that names no kind (which no
 * graph file holds). Not a library function but the list's one
 * expansion into words, inline here so that the library's graph files
 * and the tool (which uses this header only) share it. Errors: none.
 * Thread safety: any thread. graphrt's own. */
static inline const char *grGraphNodeTypeWord_(grGraphNodeType type)
{
    switch (type) {
#define GR_GRAPH_NODE_TYPE_WORD_(suffix, value, name, word) \
    case grGraphNodeType##suffix:                           \
        return word;
        GR_GRAPH_NODE_TYPE_LIST(GR_GRAPH_NODE_TYPE_WORD_)
#undef GR_GRAPH_NODE_TYPE_WORD_
    case grGraphNodeTypeCount:
        break;
    }
    return "unknown";
}

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
        grCollectiveNodeParams collective; /* graphrt's own */
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
 * trigger, or when they have all begun: the lowering gives the driver
 * the edge's data where it has CUDA 12.3's cuGraphAddDependencies, else
 * a full edge); on the CPU it orders v after u's completion, a schedule
 * the GPU could also run (docs/graphs.md). Values and layout mirror
 * cudaGraphEdgeData and its enums.
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
 * not 0), grErrorMemoryAllocation.
 * Thread safety: any thread. Mirrors cudaGraphCreate. */
GR_API grError_t grGraphCreate(grGraph_t *graph, unsigned int flags);

/* Destroys a graph and its nodes. Executables instantiated from it are not
 * affected. Errors: grErrorInvalidValue (graph NULL or not live, a graph
 * owned by a child-graph node, which dies with its node),
 * grErrorIllegalState (a capture in progress builds the graph: end it
 * first). Thread safety:
 * not with other calls on the same graph. Mirrors cudaGraphDestroy. */
GR_API grError_t grGraphDestroy(grGraph_t graph);

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
 * graph for a node in one. Errors: grErrorInvalidValue (hNode not live,
 * phGraph NULL). Thread safety: any thread, as the ids above. Mirrors
 * cudaGraphNodeGetContainingGraph. */
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

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_GRAPH_H */
