/*
 * coll_node.c - collective nodes in the graph (docs/collectives.md):
 * grGraphAddCollectiveNode and the node's getter and setter. The node
 * stores its parameters checked (backend/comm.c's gr__coll_check) and
 * holds a reference of its communicator, given back when the node dies
 * or its parameters are replaced.
 *
 * Invariant: a live collective node's p.coll passed gr__coll_check and
 * p.coll.comm is retained by the node.
 */
#include "graph.h"
#include "../backend/comm.h"

#include <string.h>

grError_t gr__coll_params_make(const char *call, const grCollectiveNodeParams *in,
                               grCollectiveNodeParams *out)
{
    if (in == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the collective's parameters",
                        call);
    grError_t err = gr__coll_check(call, in);
    if (err != grSuccess)
        return err;
    *out = *in;
    gr__comm_retain(out->comm);
    return grSuccess;
}

void gr__coll_params_copy(grCollectiveNodeParams *dst, const grCollectiveNodeParams *src)
{
    *dst = *src;
    gr__comm_retain(dst->comm);
}

void gr__coll_params_free(grCollectiveNodeParams *p)
{
    if (p->comm)
        gr__comm_release(p->comm);
    p->comm = NULL;
}

grError_t gr__graph_add_coll(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                             size_t ndeps, const grCollectiveNodeParams *np)
{
    gr_node_params p;
    grError_t err;
    memset(&p, 0, sizeof p);
    if (out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pGraphNode is NULL; pass where to store the new node",
                        call);
    if ((err = gr__graph_check(call, g)) != grSuccess ||
        (err = gr__graph_check_deps(call, g, deps, ndeps)) != grSuccess)
        return err;
    if ((err = gr__coll_params_make(call, np, &p.coll)) != grSuccess)
        return err;
    err = gr__graph_insert_node(call, g, deps, ndeps, grGraphNodeTypeCollective, &p, out);
    if (err != grSuccess)
        gr__coll_params_free(&p.coll);
    return err;
}

GR_API grError_t grGraphAddCollectiveNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          const grCollectiveNodeParams *nodeParams)
{
    return gr__graph_add_coll("grGraphAddCollectiveNode", pGraphNode, graph, pDependencies, numDependencies,
                              nodeParams);
}

static grError_t coll_node(const char *call, grGraphNode_t node)
{
    grError_t err = gr__node_check(call, node);
    if (err != grSuccess)
        return err;
    if (node->type != grGraphNodeTypeCollective)
        return gr__fail(grErrorInvalidValue, "%s: node is %s, not a %s node; call the function of its type",
                        call, gr__node_label(node), gr__node_type_name(grGraphNodeTypeCollective));
    return grSuccess;
}

GR_API grError_t grGraphCollectiveNodeGetParams(grGraphNode_t node, grCollectiveNodeParams *nodeParams)
{
    static const char call[] = "grGraphCollectiveNodeGetParams";
    grError_t err = coll_node(call, node);
    if (err != grSuccess)
        return err;
    if (nodeParams == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass where to store the parameters",
                        call);
    *nodeParams = node->p.coll;
    return grSuccess;
}

GR_API grError_t grGraphCollectiveNodeSetParams(grGraphNode_t node, const grCollectiveNodeParams *nodeParams)
{
    static const char call[] = "grGraphCollectiveNodeSetParams";
    grCollectiveNodeParams p;
    grError_t err = coll_node(call, node);
    if (err != grSuccess)
        return err;
    if ((err = gr__coll_params_make(call, nodeParams, &p)) != grSuccess)
        return err;
    gr__coll_params_free(&node->p.coll);
    node->p.coll = p;
    gr__graph_edited(node->graph);
    return grSuccess;
}
