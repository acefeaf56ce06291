/*
 * graphrt/exec.h - executable graphs: instantiation, launch, the executable
 * node setters and update (part of CUDA's "Graph Management").
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_EXEC_H
#define GRAPHRT_MODULE_EXEC_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * A graph whose kernel nodes name one device, or none, is compiled for the
 * current device; one whose kernel nodes name two devices or more is
 * partitioned into a part per device, joined by waits on words in pinned
 * host memory, and launched on a CPU stream only (docs/devices.md, "Graphs
 * that span devices": such a graph holds kernel, memset, memcpy, host,
 * empty, event record, event wait and child graph nodes only, a child
 * graph's nodes naming one device; every exec setter and
 * grGraphExecUpdate change its nodes in their parts, a node never moving
 * to another device's part).
 * Errors: grErrorInvalidValue (pGraphExec NULL; graph NULL or not live;
 * flags with unknown bits, grGraphInstantiateFlagUpload, or
 * AutoFreeOnLaunch with DeviceLaunch; a graph with a cycle, with a detail
 * naming the nodes; a memcpy or memset node whose range now overruns a
 * graphrt allocation, allocations having changed since the node got it; a
 * conditional handle no node uses, a node type a conditional node's body
 * may not hold; on a GPU, a batch memory operation's word that is not the
 * GPU's memory or pinned or registered host memory:
 * docs/stream-memops.md), grErrorNotSupported (grGraphInstantiateFlagDeviceLaunch;
 * a graph with memory allocation nodes, or with conditional nodes, of
 * which an executable exists already (CUDA 13's code for both); a body on
 * its own; a graph that spans devices holding another kind of node),
 * grErrorCallRequiresNewerDriver (on a GPU, conditional nodes
 * with a driver older than CUDA 12.3: docs/conditional.md; batch memory
 * operation nodes with one older than CUDA 11.7),
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
 * executable: docs/conditional.md), and so does one of a graph that spans
 * devices (its parts' memory goes then: docs/devices.md). Errors: grErrorInvalidValue (graphExec
 * not live).
 * Thread safety: any thread. Mirrors cudaGraphExecDestroy. */
GR_API grError_t grGraphExecDestroy(grGraphExec_t graphExec);

/* Queues one run of the executable on the stream, as one stream operation.
 * A launch of an executable still running from an earlier launch starts
 * after it. Errors: grErrorInvalidValue (graphExec not live; a memcpy or
 * memset node whose range now overruns a graphrt allocation, allocations
 * having changed since it was checked; with graph memory, an allocation
 * made by the previous launch that is still allocated, without
 * grGraphInstantiateFlagAutoFreeOnLaunch, or an allocation of another
 * graph that a free node frees and that is not allocated now; an
 * executable of a graph that spans devices on a stream of a GPU: it is
 * launched on a CPU stream, docs/devices.md), the error with which a GPU
 * part of such an executable failed to launch in an earlier launch,
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
 * Thread safety: any thread.
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
 * another parameter layout).
 * Thread safety: as the other setters. Mirrors cudaGraphExecKernelNodeSetParams. */
GR_API grError_t grGraphExecKernelNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grKernelNodeParams *pNodeParams);

/* Sets a memcpy node's copy. Errors: those of every setter,
 * grErrorInvalidMemcpyDirection (kind not a grMemcpyKind),
 * grErrorInvalidValue (dst or src NULL with count > 0; a range refused as
 * grMemcpy refuses one; count 0: disable the node instead; dst or src of
 * another memory type, device or host, than the node's).
 * Thread safety: as the other setters. Mirrors
 * cudaGraphExecMemcpyNodeSetParams1D. */
GR_API grError_t grGraphExecMemcpyNodeSetParams1D(grGraphExec_t hGraphExec, grGraphNode_t node, void *dst,
                                                  const void *src, size_t count, grMemcpyKind kind);

/* Sets a memset node's parameters. Errors: those of every setter,
 * grErrorInvalidValue (pNodeParams refused as grGraphAddMemsetNode refuses
 * it; width 0: disable the node instead; a 2D memset, height > 1, that
 * changes anything but dst and value; a 1D memset that would become 2D).
 * Thread safety: as the other setters.
 * Mirrors cudaGraphExecMemsetNodeSetParams. */
GR_API grError_t grGraphExecMemsetNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemsetParams *pNodeParams);

/* Sets a host node's function and user data. Errors: those of every
 * setter, grErrorInvalidValue (pNodeParams NULL, fn NULL).
 * Thread safety: as the other setters. Mirrors
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
 * which, as docs/exec.md lists; CUDA 13's code), grErrorNotSupported
 * (childGraph has memory allocation or free nodes, at any depth: update
 * the executable with grGraphExecUpdate instead), grErrorMemoryAllocation.
 * Thread safety: as the other setters for the
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
 * Thread safety: as the other setters.
 * Mirror cudaGraphExecEventRecordNodeSetEvent /
 * cudaGraphExecEventWaitNodeSetEvent. */
GR_API grError_t grGraphExecEventRecordNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                    grEvent_t event);
GR_API grError_t grGraphExecEventWaitNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                  grEvent_t event);

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

/* Sets the operations that node's copy in hGraphExec runs from its next
 * launch on (launches queued before run the old ones). As in CUDA, only
 * the addresses, values and flags of the operations may change: the count
 * and each operation's type must stay those the executable was built
 * with. Errors: grErrorInvalidValue (hGraphExec not live; node not a batch
 * memory operation node of the graph it was instantiated from, or a
 * node of a child graph; a different count or operation type; what
 * grGraphAddBatchMemOpNode refuses; on a GPU, a word that is not the
 * GPU's memory or pinned or registered host memory), grErrorNotSupported
 * (as there), and on a GPU the driver's cuGraphExecBatchMemOpNodeSetParams
 * errors, which change nothing. Thread safety: any thread; launches
 * of the executable are ordered around the change (as the other
 * grGraphExec*SetParams). Mirrors the driver's
 * cuGraphExecBatchMemOpNodeSetParams. */
GR_API grError_t grGraphExecBatchMemOpNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    const grBatchMemOpNodeParams *nodeParams);

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

/* ---------------------------------------- device-updatable kernel nodes */
/*
 * A kernel node with grLaunchAttributeDeviceUpdatableKernelNode
 * (deviceUpdatable != 0) is device-updatable: once its graph is
 * instantiated, a kernel of that executable may change the node's
 * argument bytes, grid and enabled state through the node's
 * grGraphDeviceNode_t (grGraphKernelNodeGetAttribute's devNode), with the
 * calls below, which graphrt_kernel.h names gr_graph_kernel_node_set_param
 * and so on (CUDA's device functions under nvcc). The rules, each with
 * its source, are in docs/exec.md ("Device-updatable kernel nodes"):
 *   - a graph with such nodes has one executable at a time; on a GPU
 *     the node is lowered device-updatable and devNode is the driver's
 *     handle, for the GPU's kernels (CUDA's device functions) only: the
 *     calls below take graphrt's handles, and giving them a GPU's is
 *     undefined;
 *   - an update made while launch N runs applies from the next launch of
 *     the executable on (N + 1), before any of its nodes runs, never to
 *     the launch that made it; updates persist from launch to launch;
 *   - grGraphExecKernelNodeSetParams and grGraphNodeSetEnabled on such a
 *     node give it the host's values back: device-side updates made
 *     before the setter are dropped, and grGraphNodeGetEnabled reports
 *     the host's value;
 *   - grGraphClone of a graph, grGraphDestroyNode of such a node,
 *     grGraphExecUpdate of such an executable are refused.
 * Thread safety of the calls below: any thread, concurrently with each
 * other and with the executable's launches (one lock per executable);
 * they are meant for kernels of the executable's launches. A devNode is
 * valid while its executable lives: using it after grGraphExecDestroy
 * (and its last launch) is undefined, as a destroyed handle in CUDA.
 */

/* Writes 'size' bytes from value at byte 'offset' of node's argument
 * block, for the executable's next launch. The block is the kernel's
 * parameters packed in order, each aligned to the smallest power of two
 * not below its size, at most 16 (grKernelCreate's packing; CUDA aligns
 * to the parameter's type, which gives the same offsets for scalars and
 * pointers). Errors: grErrorInvalidValue (node NULL or not a devNode
 * handle, value NULL with size > 0, offset + size past the block).
 * Thread safety: any thread, kernels of the executable's launches
 * included. Mirrors the device function cudaGraphKernelNodeSetParam. */
GR_API grError_t grGraphKernelNodeSetParam(grGraphDeviceNode_t node, size_t offset, const void *value,
                                           size_t size);

/* Enables (enable != 0) or disables the node from the executable's next
 * launch on. Errors: grErrorInvalidValue (node NULL or not a devNode
 * handle). Thread safety: any thread, kernels of the executable's
 * launches included. Mirrors the device function
 * cudaGraphKernelNodeSetEnabled. */
GR_API grError_t grGraphKernelNodeSetEnabled(grGraphDeviceNode_t node, int enable);

/* Sets the node's grid from the executable's next launch on (the block
 * stays). Errors: grErrorInvalidValue (node NULL or not a devNode
 * handle, a dimension 0, y or z above 65535). Thread safety: any
 * thread, kernels of the executable's launches included. Mirrors the
 * device function cudaGraphKernelNodeSetGridDim. */
GR_API grError_t grGraphKernelNodeSetGridDim(grGraphDeviceNode_t node, grDim3 gridDim);

/* Applies updateCount updates in order, as the three calls above; all are
 * checked before any is made, so a refused call changes nothing. Errors:
 * grErrorInvalidValue (updates NULL with updateCount > 0, a field that is
 * not a grGraphKernelNodeField or is Invalid, and the three calls'
 * errors). Thread safety: any thread, kernels of the executable's
 * launches included; each update is staged under its executable's lock,
 * so updates of one call to several executables are not one atomic step.
 * Mirrors the device function cudaGraphKernelNodeUpdatesApply. */
GR_API grError_t grGraphKernelNodeUpdatesApply(const grGraphKernelNodeUpdate *updates, size_t updateCount);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_EXEC_H */
