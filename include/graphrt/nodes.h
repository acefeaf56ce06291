/*
 * graphrt/nodes.h - graph nodes: every grGraphAdd*Node and the parameters of each
 * node kind (part of CUDA's "Graph Management").
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_NODES_H
#define GRAPHRT_MODULE_NODES_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * The node names the calling thread's current device (a captured kernel:
 * its stream's device), as CUDA's kernel node runs in the context current
 * when it was added; a graph whose nodes name two devices spans them
 * (grGraphInstantiate). Errors: those of every add, grErrorInvalidValue (pNodeParams NULL, extra
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
 * free nodes: move it with grGraphAddNode instead), grErrorMemoryAllocation
 * (the copy). Thread safety: not with
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
 * into it). A moved graph may hold memory allocation and free nodes (CUDA
 * 12.9), at any depth: the parent's executable maps them as its own, a
 * free node of a child's allocation may sit in the child or the parent
 * after the child-graph node, and the parent then keeps the rules of a
 * graph with memory nodes (see grGraphAddMemAllocNode). Such a move adds
 * the errors grErrorNotSupported (graph is a child graph or a conditional
 * body) and grErrorInvalidValue (a free node of the child frees an
 * allocation of graph that no dependency is ordered after; graph frees an
 * allocation of the child already). A refused move leaves the graph the
 * caller's. A moved graph later refused by
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
 * memory nodes (its own, or in a child graph moved into it) cannot be
 * cloned or embedded in a child-graph node but by a move
 * (grGraphChildGraphOwnershipMove), its nodes and edges cannot be
 * removed, and only one executable of it may exist at a time, as in CUDA.
 * Physical memory is shared between the allocations of one graph (moved
 * child graphs included) whose lifetimes do not overlap. Errors: those
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
 * this graph or of a child graph moved into it (or of another graph's
 * allocation it does not free). Errors:
 * those of every grGraphAdd*Node (see "Adding nodes" in section Graphs),
 * grErrorNotSupported (graph is owned by a child-graph node),
 * grErrorInvalidValue (an address no allocation node returned, an
 * allocation this graph frees already, one of this graph that is not
 * ordered before the free node (the free node must depend on the
 * allocation node, or on the child-graph node holding it), one of another
 * graph that that graph frees itself).
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
 * zero) when none was. For grLaunchAttributeDeviceUpdatableKernelNode,
 * devNode is the node's handle in the graph's live executable (NULL
 * before instantiation and after that executable's destruction; in a GPU
 * executable the driver's devNode, for the GPU's kernels). Errors: grErrorInvalidValue (hNode not live or not
 * a kernel node, value_out NULL, attr not an attribute of kernel nodes).
 * Thread safety: not with other calls on the node's graph. Mirrors
 * cudaGraphKernelNodeGetAttribute. */
GR_API grError_t grGraphKernelNodeGetAttribute(grGraphNode_t hNode, grKernelNodeAttrID attr,
                                               grKernelNodeAttrValue *value_out);

/* Sets a kernel node's launch attribute; grGraphKernelNodeSetParams keeps
 * the attributes. Values are checked (an access policy window's
 * hitRatio in [0, 1] and properties, a known cluster scheduling policy or
 * memory-sync domain, nvlinkUtilCentricScheduling 0 or 1) and stored; on
 * the CPU grLaunchAttributePriority (with
 * grGraphInstantiateFlagUseNodePriority: docs/launch-attributes.md) and
 * grLaunchAttributeCooperative (the node runs as grLaunchCooperativeKernel
 * runs its launch; instantiation refuses a grid larger than the CPU
 * device keeps co-resident with grErrorCooperativeLaunchTooLarge) change
 * anything; on a GPU the lowered node carries every attribute but the
 * device-updatable one (cuGraphKernelNodeSetAttribute at instantiation,
 * whose refusal is grGraphInstantiate's error).
 * grLaunchAttributeDeviceUpdatableKernelNode with deviceUpdatable != 0
 * makes the node device-updatable (docs/exec.md): its devNode is read
 * back after instantiation (the devNode given here is ignored).
 * Errors: grErrorInvalidValue (hNode not live or not a kernel node, value
 * NULL, attr not valid for kernel nodes, a value out of range),
 * grErrorMemoryAllocation; a refused call changes nothing.
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

/* Adds a batch memory operation node (grGraphNodeTypeBatchMemOp) running
 * nodeParams->count operations of nodeParams->paramArray in order (the
 * array is copied), after numDependencies nodes of pDependencies. The
 * operations are checked as grStreamBatchMemOp checks them; the node's
 * waits and writes run on the CPU as the stream's do
 * (docs/stream-memops.md says how a wait in a graph waits), and in an
 * executable of a GPU as the driver's batch memory operation node. Errors:
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

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_NODES_H */
