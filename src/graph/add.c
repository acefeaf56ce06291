/*
 * add.c - the grGraphAdd*Node entry points and the generic grGraphAddNode.
 *
 * Each one checks, in order, the out-pointer, the graph, the dependencies
 * and the parameters, builds the stored parameters (which may allocate or
 * retain), and only then inserts the node; a failure at any step releases
 * what the earlier steps took, so a refused call leaves the graph and the
 * caller's objects as they were.
 */
#include "graph.h"
#include "../backend/plan.h"

#include "../backend/device.h"
#include "../memory/graphmem.h"

#include <string.h>

/* The checks every add starts with. */
static grError_t add_begin(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                           size_t ndeps)
{
    grError_t err;
    if (out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pGraphNode is NULL; pass where to store the new node",
                        call);
    if ((err = gr__graph_check(call, g)) != grSuccess)
        return err;
    return gr__graph_check_deps(call, g, deps, ndeps);
}

/* Inserts the node; on failure releases the stored parameters. */
static grError_t add_finish(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                            size_t ndeps, grGraphNodeType t, gr_node_params *p)
{
    grError_t err = gr__graph_insert_node(call, g, deps, ndeps, t, p, out);
    if (err != grSuccess)
        gr__node_params_free(t, p);
    return err;
}

static grError_t add_kernel(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                            size_t ndeps, const grKernelNodeParams *kp)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__node_kernel_params_make(call, kp, &p.kernel)) != grSuccess)
        return err;
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeKernel, &p);
}

static grError_t add_memcpy(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                            size_t ndeps, void *dst, const void *src, size_t count, grMemcpyKind kind)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__node_memcpy_params_check(call, dst, src, count, kind)) != grSuccess)
        return err;
    p.memcpy = (gr_memcpy_node){dst, src, count, kind, NULL};
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeMemcpy, &p);
}

/* A memcpy node of 3D parameters (grGraphAddMemcpyNode, grGraphAddNode). */
static grError_t add_memcpy_3d(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                               size_t ndeps, const grMemcpyNodeParams *generic, const grMemcpy3DParms *c)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    err = generic ? gr__node_memcpy_from_3d(call, generic, &p.memcpy)
                  : gr__memcpy_node_make(call, "pCopyParams", c, &p.memcpy);
    if (err != grSuccess)
        return err;
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeMemcpy, &p);
}

static grError_t add_memset(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                            size_t ndeps, const grMemsetParams *mp)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__node_memset_params_check(call, mp)) != grSuccess)
        return err;
    p.memset = *mp;
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeMemset, &p);
}

static grError_t add_host(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                          size_t ndeps, const grHostNodeParams *hp)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__node_host_params_check(call, hp)) != grSuccess)
        return err;
    p.host = *hp;
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeHost, &p);
}

static grError_t add_empty(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                           size_t ndeps)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeEmpty, &p);
}

grError_t gr__child_conditional_check(const char *call, grGraph_t g, grGraph_t child)
{
    if (gr__graph_has_conditional(child))
        return gr__fail(grErrorNotSupported,
                        "%s: childGraph %p has conditional nodes; such a graph cannot be embedded in a "
                        "child-graph node, as in CUDA: add its nodes to graph %p itself",
                        call, GR_PTR(child), GR_PTR(g));
    if (child->owner != NULL && child->owner->type == grGraphNodeTypeConditional)
        return gr__fail(grErrorNotSupported,
                        "%s: childGraph %p is a body of %s; a body cannot be embedded in a child-graph node, "
                        "as in CUDA",
                        call, GR_PTR(child), gr__node_label(child->owner));
    return grSuccess;
}

/* The checks of a moved child (grGraphChildGraphOwnershipMove) beyond a
 * cloned one's: the graph becomes the node's, so it must be nobody's yet
 * and must not be capturing. */
static grError_t move_check(const char *call, grGraph_t child)
{
    grError_t err;
    if (child->owner != NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: childGraph %p belongs to %s already; a graph can be moved into one node only "
                        "(clone it with grGraphChildGraphOwnershipClone instead)",
                        call, GR_PTR(child), gr__node_label(child->owner));
    if ((err = gr__graph_check_not_capturing(call, child)) != grSuccess)
        return err;
    return grSuccess;
}

static grError_t add_child(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                           size_t ndeps, grGraph_t child, bool move)
{
    gr_node_params p, src;
    grError_t err;
    memset(&p, 0, sizeof p);
    memset(&src, 0, sizeof src);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if (child == NULL)
        return gr__fail(grErrorInvalidValue, "%s: childGraph is NULL; pass the graph to embed", call);
    if ((err = gr__graph_check(call, child)) != grSuccess)
        return err;
    if (child == g)
        return gr__fail(grErrorInvalidValue,
                        "%s: childGraph is graph %p itself; a graph cannot contain itself (clone it first "
                        "with grGraphClone to embed a copy)",
                        call, GR_PTR(g));
    if (gr__graph_within(g, child))
        return gr__fail(grErrorInvalidValue,
                        "%s: graph %p is nested inside childGraph %p (through %s); a graph cannot "
                        "contain a graph that contains it",
                        call, GR_PTR(g), GR_PTR(child), gr__node_label(g->owner));
    /* CUDA 12.9: a graph with memory nodes is embedded only by a move. */
    bool mem = gr__graphmem_has_nodes(child);
    if (mem && !move)
        return gr__fail(grErrorNotSupported,
                        "%s: childGraph %p has memory allocation or free nodes; such a graph cannot be "
                        "embedded in a child-graph node by cloning, as in CUDA: move it "
                        "(grGraphChildGraphOwnershipMove with grGraphAddNode) or add its nodes to graph %p "
                        "itself",
                        call, GR_PTR(child), GR_PTR(g));
    if (move && (err = move_check(call, child)) != grSuccess)
        return err;
    if ((err = gr__child_conditional_check(call, g, child)) != grSuccess)
        return err;
    if (mem && (err = gr__graphmem_check_move(call, g, deps, ndeps, child)) != grSuccess)
        return err;
    unsigned depth = gr__graph_nest_depth(g) + 1 + gr__graph_nest_height(child);
    if (depth > GR_GRAPH_MAX_NEST)
        return gr__fail(grErrorInvalidValue,
                        "%s: embedding childGraph %p in graph %p would nest child graphs %u levels deep; "
                        "grGraphInstantiate takes at most %u levels",
                        call, GR_PTR(child), GR_PTR(g), depth, GR_GRAPH_MAX_NEST);
    if (move) {
        /* The node takes childGraph itself (the insertion makes the node its
         * owner); if the node cannot be added, nothing is freed: the graph
         * stays the caller's. */
        p.child = child;
        if ((err = gr__graph_insert_node(call, g, deps, ndeps, grGraphNodeTypeGraph, &p, out)) == grSuccess)
            child->moved = true;
        return err;
    }
    /* The node embeds a clone: the caller keeps and may change childGraph. */
    src.child = child;
    if ((err = gr__node_params_copy(grGraphNodeTypeGraph, &p, &src)) != grSuccess)
        return err;
    return add_finish(call, out, g, deps, ndeps, grGraphNodeTypeGraph, &p);
}

static grError_t add_event(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                           size_t ndeps, grGraphNodeType t, grEvent_t e)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__node_event_check(call, e)) != grSuccess)
        return err;
    gr__event_retain(e);
    p.event = e;
    return add_finish(call, out, g, deps, ndeps, t, &p);
}

/* CUDA: a cloned child graph (from grGraphChildGraphNodeGetGraph) may hold
 * no memory node, and a moved one gets no more after the move. */
static grError_t refuse_in_child(const char *call, grGraph_t g)
{
    if (g->owner->type == grGraphNodeTypeConditional)
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p is a body of %s; a body may hold no memory allocation or free node "
                        "(CUDA refuses the graph at instantiation, graphrt when the node is added)",
                        call, GR_PTR(g), gr__node_label(g->owner));
    return gr__fail(
        grErrorNotSupported,
        "%s: graph %p is the child graph of %s; no memory allocation or free node may be added to a "
        "child graph, as in CUDA (a graph moved into a child-graph node gets its memory nodes "
        "before the move): add the node to the parent graph",
        call, GR_PTR(g), gr__node_label(g->owner));
}

static grError_t add_mem_alloc(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                               size_t ndeps, grMemAllocNodeParams *ap)
{
    gr_node_params p;
    grError_t err;
    void *dptr = NULL;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if (ap == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the allocation's parameters",
                        call);
    if (g->owner != NULL)
        return refuse_in_child(call, g);
    const grMemPoolProps *pp = &ap->poolProps;
    if (pp->allocType != grMemAllocationTypePinned)
        return gr__fail(
            grErrorInvalidValue,
            "%s: nodeParams->poolProps.allocType is %d; only grMemAllocationTypePinned is supported", call,
            (int)pp->allocType);
    if (pp->location.type != grMemLocationTypeDevice || !gr__device_exists(pp->location.id))
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->poolProps.location is {%d, %d}; pass {grMemLocationTypeDevice, d} "
                        "for an existing device d (0, the CPU, or a GPU 1..%d)",
                        call, (int)pp->location.type, pp->location.id, gr__gpu_count());
    if (pp->handleTypes != grMemHandleTypeNone)
        return gr__fail(grErrorNotSupported,
                        "%s: nodeParams->poolProps.handleTypes is %d; only grMemHandleTypeNone is supported",
                        call, (int)pp->handleTypes);
    if (pp->win32SecurityAttributes)
        return gr__fail(
            grErrorInvalidValue,
            "%s: nodeParams->poolProps.win32SecurityAttributes is %p; it is for grMemHandleTypeWin32 "
            "handles only and must be NULL otherwise",
            call, pp->win32SecurityAttributes);
    if ((err = gr__graphmem_reserve(call, pp->location.id, ap->bytesize, ap->accessDescs, ap->accessDescCount,
                                    &dptr)) != grSuccess)
        return err;
    p.alloc = *ap;
    p.alloc.dptr = dptr;
    /* Graph memory keeps the access descriptor; the caller's array may go. */
    p.alloc.accessDescs = NULL;
    /* On failure add_finish releases the parameters, and so the range. */
    if ((err = add_finish(call, out, g, deps, ndeps, grGraphNodeTypeMemAlloc, &p)) != grSuccess)
        return err;
    ap->dptr = dptr;
    return grSuccess;
}

static grError_t add_mem_free(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                              size_t ndeps, void *dptr)
{
    gr_node_params p;
    grError_t err;
    bool own = false;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if (g->owner != NULL)
        return refuse_in_child(call, g);
    if ((err = gr__graphmem_check_free(call, g, deps, ndeps, dptr, &own)) != grSuccess)
        return err;
    p.free.dptr = dptr;
    p.free.foreign = !own;
    if ((err = add_finish(call, out, g, deps, ndeps, grGraphNodeTypeMemFree, &p)) != grSuccess)
        return err;
    if (own)
        gr__graphmem_note_free(dptr, true);
    return grSuccess;
}

GR_API grError_t grGraphAddMemAllocNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                        const grGraphNode_t *pDependencies, size_t numDependencies,
                                        grMemAllocNodeParams *nodeParams)
{
    return add_mem_alloc("grGraphAddMemAllocNode", pGraphNode, graph, pDependencies, numDependencies,
                         nodeParams);
}

GR_API grError_t grGraphAddMemFreeNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                       const grGraphNode_t *pDependencies, size_t numDependencies, void *dptr)
{
    return add_mem_free("grGraphAddMemFreeNode", pGraphNode, graph, pDependencies, numDependencies, dptr);
}

GR_API grError_t grGraphAddKernelNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grKernelNodeParams *pNodeParams)
{
    return add_kernel("grGraphAddKernelNode", pGraphNode, graph, pDependencies, numDependencies, pNodeParams);
}

GR_API grError_t grGraphAddMemcpyNode1D(grGraphNode_t *pGraphNode, grGraph_t graph,
                                        const grGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                        const void *src, size_t count, grMemcpyKind kind)
{
    return add_memcpy("grGraphAddMemcpyNode1D", pGraphNode, graph, pDependencies, numDependencies, dst, src,
                      count, kind);
}

GR_API grError_t grGraphAddMemsetNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grMemsetParams *pMemsetParams)
{
    return add_memset("grGraphAddMemsetNode", pGraphNode, graph, pDependencies, numDependencies,
                      pMemsetParams);
}

GR_API grError_t grGraphAddHostNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                    const grGraphNode_t *pDependencies, size_t numDependencies,
                                    const grHostNodeParams *pNodeParams)
{
    return add_host("grGraphAddHostNode", pGraphNode, graph, pDependencies, numDependencies, pNodeParams);
}

GR_API grError_t grGraphAddEmptyNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                     const grGraphNode_t *pDependencies, size_t numDependencies)
{
    return add_empty("grGraphAddEmptyNode", pGraphNode, graph, pDependencies, numDependencies);
}

GR_API grError_t grGraphAddChildGraphNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          grGraph_t childGraph)
{
    return add_child("grGraphAddChildGraphNode", pGraphNode, graph, pDependencies, numDependencies,
                     childGraph, false);
}

GR_API grError_t grGraphAddEventRecordNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                           const grGraphNode_t *pDependencies, size_t numDependencies,
                                           grEvent_t event)
{
    return add_event("grGraphAddEventRecordNode", pGraphNode, graph, pDependencies, numDependencies,
                     grGraphNodeTypeEventRecord, event);
}

GR_API grError_t grGraphAddEventWaitNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                         const grGraphNode_t *pDependencies, size_t numDependencies,
                                         grEvent_t event)
{
    return add_event("grGraphAddEventWaitNode", pGraphNode, graph, pDependencies, numDependencies,
                     grGraphNodeTypeWaitEvent, event);
}

/* A conditional node: its body graphs are made here and handed out in
 * cp->phGraph_out once the node exists. */
static grError_t add_conditional(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                                 size_t ndeps, grConditionalNodeParams *cp)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if ((err = add_begin(call, out, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__cond_params_make(call, g, cp, &p.cond)) != grSuccess)
        return err;
    if ((err = add_finish(call, out, g, deps, ndeps, grGraphNodeTypeConditional, &p)) != grSuccess)
        return err;
    (*out)->p.cond.slot->node = *out;
    cp->phGraph_out = (*out)->p.cond.bodies;
    return grSuccess;
}

/* The stored copy of a generic memcpy description (grGraphAddNode's,
 * grGraphNodeSetParams'). */
grError_t gr__node_memcpy_from_3d(const char *call, const grMemcpyNodeParams *mp, gr_memcpy_node *out)
{
    if (mp->flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams->memcpy.flags is %d but must be 0", call,
                        mp->flags);
    return gr__memcpy_node_make(call, "nodeParams->memcpy.copyParams", &mp->copyParams, out);
}

GR_API grError_t grGraphAddMemcpyNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                      const grGraphNode_t *pDependencies, size_t numDependencies,
                                      const grMemcpy3DParms *pCopyParams)
{
    return add_memcpy_3d("grGraphAddMemcpyNode", pGraphNode, graph, pDependencies, numDependencies, NULL,
                         pCopyParams);
}

/* grGraphAddNode without edge data. */
static grError_t add_node(const char *call, grGraphNode_t *pGraphNode, grGraph_t graph,
                          const grGraphNode_t *pDependencies, size_t numDependencies,
                          grGraphNodeParams *nodeParams)
{
    grError_t err;
    if (nodeParams == NULL) {
        if ((err = add_begin(call, pGraphNode, graph, pDependencies, numDependencies)) != grSuccess)
            return err;
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the node's type and parameters",
                        call);
    }
    switch (nodeParams->type) {
    case grGraphNodeTypeKernel:
        return add_kernel(call, pGraphNode, graph, pDependencies, numDependencies, &nodeParams->kernel);
    case grGraphNodeTypeMemcpy:
        return add_memcpy_3d(call, pGraphNode, graph, pDependencies, numDependencies, &nodeParams->memcpy,
                             NULL);
    case grGraphNodeTypeMemset:
        return add_memset(call, pGraphNode, graph, pDependencies, numDependencies, &nodeParams->memset);
    case grGraphNodeTypeHost:
        return add_host(call, pGraphNode, graph, pDependencies, numDependencies, &nodeParams->host);
    case grGraphNodeTypeGraph:
        /* Every value but Move clones, as CUDA 13 answers (ownership 2
         * was accepted: tests/probes/nodeapi.cu). */
        return add_child(call, pGraphNode, graph, pDependencies, numDependencies, nodeParams->graph.graph,
                         nodeParams->graph.ownership == grGraphChildGraphOwnershipMove);
    case grGraphNodeTypeEmpty:
        return add_empty(call, pGraphNode, graph, pDependencies, numDependencies);
    case grGraphNodeTypeWaitEvent:
        return add_event(call, pGraphNode, graph, pDependencies, numDependencies, grGraphNodeTypeWaitEvent,
                         nodeParams->eventWait.event);
    case grGraphNodeTypeEventRecord:
        return add_event(call, pGraphNode, graph, pDependencies, numDependencies, grGraphNodeTypeEventRecord,
                         nodeParams->eventRecord.event);
    case grGraphNodeTypeMemAlloc:
        return add_mem_alloc(call, pGraphNode, graph, pDependencies, numDependencies, &nodeParams->alloc);
    case grGraphNodeTypeMemFree:
        return add_mem_free(call, pGraphNode, graph, pDependencies, numDependencies, nodeParams->free.dptr);
    case grGraphNodeTypeConditional:
        return add_conditional(call, pGraphNode, graph, pDependencies, numDependencies,
                               &nodeParams->conditional);
    case grGraphNodeTypeBatchMemOp:
        return gr__graph_add_memop(call, pGraphNode, graph, pDependencies, numDependencies,
                                   &nodeParams->memOp);
    case grGraphNodeTypeCollective:
        return gr__graph_add_coll(call, pGraphNode, graph, pDependencies, numDependencies,
                                  &nodeParams->collective);
    case grGraphNodeTypeCount:
        break;
    }
    if ((err = add_begin(call, pGraphNode, graph, pDependencies, numDependencies)) != grSuccess)
        return err;
    return gr__fail(grErrorInvalidValue, "%s: nodeParams->type %d is not a grGraphNodeType", call,
                    (int)nodeParams->type);
}

GR_API grError_t grGraphAddNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                const grGraphNode_t *pDependencies, const grGraphEdgeData *dependencyData,
                                size_t numDependencies, grGraphNodeParams *nodeParams)
{
    static const char call[] = "grGraphAddNode";
    grError_t err;
    size_t i, nnotes = 0;
    if (dependencyData != NULL && numDependencies > 0 && nodeParams != NULL) {
        /* The data is checked once the dependencies are, and room for its
         * notes is made before the node exists, so that noting it cannot
         * fail once the node was added. */
        if ((err = add_begin(call, pGraphNode, graph, pDependencies, numDependencies)) != grSuccess)
            return err;
        for (i = 0; i < numDependencies; i++) {
            if ((err = gr__edge_data_check(call, pDependencies[i], nodeParams->type, &dependencyData[i],
                                           "dependencyData", i)) != grSuccess)
                return err;
            nnotes += !gr__edge_data_is_default(&dependencyData[i]);
        }
        if (nnotes && !gr__edge_notes_reserve(graph, nnotes))
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory noting %zu edges' data", call,
                            nnotes);
    }
    if ((err = add_node(call, pGraphNode, graph, pDependencies, numDependencies, nodeParams)) != grSuccess)
        return err;
    for (i = 0; nnotes && i < numDependencies; i++)
        gr__edge_note_add(graph, pDependencies[i], *pGraphNode, &dependencyData[i]);
    return grSuccess;
}
