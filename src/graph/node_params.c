/*
 * node_params.c - grGraphNodeSetParams: the generic setter of a graph
 * node, which hands each node type's member of grGraphNodeParams to that
 * type's own setter, so that every rule about a type's parameters stays
 * in one place (params.c, add.c). The one type without a setter of its
 * own, the child-graph node, gets a copy of the graph as
 * grGraphAddChildGraphNode would embed it.
 */
#include "graph.h"

#include <string.h>

/* Replaces a child-graph node's graph with a copy of 'child', checked as
 * grGraphAddChildGraphNode checks one. The old graph (and the user-object
 * references it holds) goes once the copy is made. */
static grError_t set_child(const char *call, struct grGraphNode_st *node, grGraph_t child)
{
    grGraph_t g = node->graph;
    gr_node_params p, src;
    grError_t err;
    if ((err = gr__graph_check(call, child)) != grSuccess)
        return err;
    if (gr__graph_within(g, child))
        return gr__fail(grErrorInvalidValue,
                        "%s: %s belongs to graph %p, which is childGraph %p or nested inside it; a graph "
                        "cannot contain a graph that contains it",
                        call, gr__node_label(node), GR_PTR(g), GR_PTR(child));
    if (gr__graphmem_has_nodes(child))
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p has memory allocation or free nodes; such a graph cannot be embedded "
                        "in a child-graph node, as in CUDA",
                        call, GR_PTR(child));
    /* Its memory nodes would go with the old graph: CUDA removes no
     * memory node from a graph. */
    if (gr__graphmem_has_nodes(node->p.child))
        return gr__fail(grErrorNotSupported,
                        "%s: %s holds a moved graph with memory allocation or free nodes; the nodes of a "
                        "graph with memory nodes cannot be removed, as in CUDA",
                        call, gr__node_label(node));
    if ((err = gr__child_conditional_check(call, g, child)) != grSuccess)
        return err;
    unsigned depth = gr__graph_nest_depth(g) + 1 + gr__graph_nest_height(child);
    if (depth > GR_GRAPH_MAX_NEST)
        return gr__fail(grErrorInvalidValue,
                        "%s: embedding graph %p in %s would nest child graphs %u levels deep; "
                        "grGraphInstantiate takes at most %u levels",
                        call, GR_PTR(child), gr__node_label(node), depth, GR_GRAPH_MAX_NEST);
    memset(&p, 0, sizeof p);
    memset(&src, 0, sizeof src);
    src.child = child;
    /* The copy first: child may be the node's own graph. */
    if ((err = gr__node_params_copy(grGraphNodeTypeGraph, &p, &src)) != grSuccess)
        return gr__fail(err, "%s: out of memory copying graph %p", call, GR_PTR(child));
    gr__uobj_inline_begin(); /* the old graph's user objects, as grGraphDestroy */
    gr__node_params_free(grGraphNodeTypeGraph, &node->p);
    gr__uobj_inline_end();
    node->p.child = p.child;
    node->p.child->owner = node;
    gr__graph_edited(g);
    return grSuccess;
}

GR_API grError_t grGraphNodeSetParams(grGraphNode_t node, grGraphNodeParams *nodeParams)
{
    static const char call[] = "grGraphNodeSetParams";
    grError_t err;
    if ((err = gr__node_check(call, node)) != grSuccess)
        return err;
    if (nodeParams == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the node's type and parameters",
                        call);
    /* CUDA asks for the reserved fields to be zero, and refuses them
     * otherwise (a CUDA 13 probe measured it). */
    if (nodeParams->reserved0[0] || nodeParams->reserved0[1] || nodeParams->reserved0[2] ||
        nodeParams->reserved2)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->reserved0 or reserved2 is not zero; zero the whole struct before "
                        "filling it",
                        call);
    if (nodeParams->type != node->type)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->type is %d (%s) but %s is a %s node; the type must match the node's",
                        call, (int)nodeParams->type, gr__node_type_name(nodeParams->type),
                        gr__node_label(node), gr__node_type_name(node->type));
    switch (node->type) {
    case grGraphNodeTypeKernel:
        return grGraphKernelNodeSetParams(node, &nodeParams->kernel);
    case grGraphNodeTypeMemcpy: {
        gr_memcpy_node m; /* a refusal names the type's setter, as for the others */
        if ((err = gr__node_memcpy_from_3d("grGraphMemcpyNodeSetParams", &nodeParams->memcpy, &m)) !=
            grSuccess)
            return err;
        gr__memcpy_node_replace(node, &m);
        return grSuccess;
    }
    case grGraphNodeTypeMemset:
        return grGraphMemsetNodeSetParams(node, &nodeParams->memset);
    case grGraphNodeTypeHost:
        return grGraphHostNodeSetParams(node, &nodeParams->host);
    case grGraphNodeTypeGraph:
        return set_child(call, node, nodeParams->graph.graph);
    case grGraphNodeTypeEmpty:
        return grSuccess;
    case grGraphNodeTypeWaitEvent:
        return grGraphEventWaitNodeSetEvent(node, nodeParams->eventWait.event);
    case grGraphNodeTypeEventRecord:
        return grGraphEventRecordNodeSetEvent(node, nodeParams->eventRecord.event);
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
        return gr__fail(grErrorNotSupported,
                        "%s: %s is a memory %s node, whose parameters cannot change once added, as in CUDA "
                        "(build the graph again instead)",
                        call, gr__node_label(node),
                        node->type == grGraphNodeTypeMemAlloc ? "allocation" : "free");
    case grGraphNodeTypeConditional:
        return gr__fail(grErrorNotSupported,
                        "%s: %s is a conditional node, whose parameters cannot change once added, as in "
                        "CUDA 13 (add its bodies' nodes through the graphs it handed out)",
                        call, gr__node_label(node));
    case grGraphNodeTypeBatchMemOp:
        return grGraphBatchMemOpNodeSetParams(node, &nodeParams->memOp);
    case grGraphNodeTypeCollective:
        return grGraphCollectiveNodeSetParams(node, &nodeParams->collective);
    case grGraphNodeTypeCount:
        break;
    }
    return gr__fail(grErrorInvalidValue, "%s: %s has no parameters to set", call, gr__node_label(node));
}

GR_API grError_t grGraphNodeGetParams(grGraphNode_t node, grGraphNodeParams *nodeParams)
{
    static const char call[] = "grGraphNodeGetParams";
    grError_t err;
    if ((err = gr__node_check(call, node)) != grSuccess)
        return err;
    if (nodeParams == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams (the output pointer) is NULL", call);
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = node->type;
    /* Each type's own getter: its rules and pointers (into the node's
     * memory, valid while the node lives and its parameters stay) hold. */
    switch (node->type) {
    case grGraphNodeTypeKernel:
        err = grGraphKernelNodeGetParams(node, &p.kernel);
        break;
    case grGraphNodeTypeMemcpy:
        err = grGraphMemcpyNodeGetParams(node, &p.memcpy.copyParams);
        break;
    case grGraphNodeTypeMemset:
        err = grGraphMemsetNodeGetParams(node, &p.memset);
        break;
    case grGraphNodeTypeHost:
        err = grGraphHostNodeGetParams(node, &p.host);
        break;
    case grGraphNodeTypeGraph:
        err = grGraphChildGraphNodeGetGraph(node, &p.graph.graph);
        /* The graph is the node's: a query says neither clone nor move,
         * as the driver's does (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID). */
        p.graph.ownership = grGraphChildGraphOwnershipInvalid;
        break;
    case grGraphNodeTypeWaitEvent:
        err = grGraphEventWaitNodeGetEvent(node, &p.eventWait.event);
        break;
    case grGraphNodeTypeEventRecord:
        err = grGraphEventRecordNodeGetEvent(node, &p.eventRecord.event);
        break;
    case grGraphNodeTypeMemAlloc:
        err = grGraphMemAllocNodeGetParams(node, &p.alloc);
        break;
    case grGraphNodeTypeMemFree:
        err = grGraphMemFreeNodeGetParams(node, &p.free.dptr);
        break;
    case grGraphNodeTypeBatchMemOp:
        err = grGraphBatchMemOpNodeGetParams(node, &p.memOp);
        break;
    case grGraphNodeTypeCollective:
        err = grGraphCollectiveNodeGetParams(node, &p.collective);
        break;
    case grGraphNodeTypeConditional:
        p.conditional.handle = (grGraphConditionalHandle)(uintptr_t)node->p.cond.slot;
        p.conditional.type = node->p.cond.type;
        p.conditional.size = node->p.cond.nbodies;
        p.conditional.phGraph_out = node->p.cond.bodies; /* the node's own array */
        break;
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeCount:
        break;
    }
    if (err == grSuccess)
        *nodeParams = p;
    return err;
}
