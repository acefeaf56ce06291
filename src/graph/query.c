/*
 * query.c - read-only questions about a graph: its nodes, roots and edges,
 * a node's type, dependencies and dependents.
 *
 * Every list follows CUDA's two-call pattern: with a NULL array the count
 * is stored; otherwise min(capacity, count) entries are written, the rest
 * of the caller's capacity is set to NULL, and the capacity argument is
 * set to the number written. Orders are deterministic: nodes in creation
 * order, edges grouped by their 'from' node in creation order and then in
 * the order they were added, dependencies and dependents in edge order.
 */
#include "graph.h"

static grError_t count_null(const char *call, const char *arg)
{
    return gr__fail(grErrorInvalidValue, "%s: %s is NULL; pass where to read and store the count", call, arg);
}

/* Writes list[0..count) into out[0..*cap) by the two-call pattern. */
static void put_list(struct grGraphNode_st *const *list, size_t count, grGraphNode_t *out, size_t *cap)
{
    size_t i, w;
    if (out == NULL) {
        *cap = count;
        return;
    }
    w = count < *cap ? count : *cap;
    for (i = 0; i < w; i++)
        out[i] = list[i];
    for (; i < *cap; i++)
        out[i] = NULL;
    *cap = w;
}

GR_API grError_t grGraphGetNodes(grGraph_t graph, grGraphNode_t *nodes, size_t *numNodes)
{
    static const char call[] = "grGraphGetNodes";
    grError_t err = gr__graph_check(call, graph);
    struct grGraphNode_st *n;
    size_t i = 0, cap;
    if (err != grSuccess)
        return err;
    if (numNodes == NULL)
        return count_null(call, "numNodes");
    if (nodes == NULL) {
        *numNodes = graph->nnodes;
        return grSuccess;
    }
    cap = *numNodes;
    for (n = graph->first; n != NULL && i < cap; n = n->next)
        nodes[i++] = n;
    *numNodes = i;
    for (; i < cap; i++)
        nodes[i] = NULL;
    return grSuccess;
}

GR_API grError_t grGraphGetRootNodes(grGraph_t graph, grGraphNode_t *pRootNodes, size_t *pNumRootNodes)
{
    static const char call[] = "grGraphGetRootNodes";
    grError_t err = gr__graph_check(call, graph);
    struct grGraphNode_st *n;
    size_t i = 0, cap;
    if (err != grSuccess)
        return err;
    if (pNumRootNodes == NULL)
        return count_null(call, "pNumRootNodes");
    cap = pRootNodes == NULL ? SIZE_MAX : *pNumRootNodes;
    for (n = graph->first; n != NULL && i < cap; n = n->next) {
        if (n->ndeps == 0) {
            if (pRootNodes != NULL)
                pRootNodes[i] = n;
            i++;
        }
    }
    *pNumRootNodes = i;
    if (pRootNodes != NULL)
        for (; i < cap; i++)
            pRootNodes[i] = NULL;
    return grSuccess;
}

GR_API grError_t grGraphGetEdges(grGraph_t graph, grGraphNode_t *from, grGraphNode_t *to, size_t *numEdges)
{
    static const char call[] = "grGraphGetEdges";
    grError_t err = gr__graph_check(call, graph);
    struct grGraphNode_st *n;
    size_t i = 0, j, cap;
    if (err != grSuccess)
        return err;
    if (numEdges == NULL)
        return count_null(call, "numEdges");
    if ((from == NULL) != (to == NULL))
        return gr__fail(grErrorInvalidValue,
                        "%s: %s is NULL but %s is not; pass both arrays, or both NULL to get the count", call,
                        from == NULL ? "from" : "to", from == NULL ? "to" : "from");
    if (from == NULL) {
        *numEdges = graph->nedges;
        return grSuccess;
    }
    cap = *numEdges;
    for (n = graph->first; n != NULL && i < cap; n = n->next) {
        for (j = 0; j < n->nsuccs && i < cap; j++) {
            from[i] = n;
            to[i] = n->succs[j];
            i++;
        }
    }
    *numEdges = i;
    for (; i < cap; i++)
        from[i] = to[i] = NULL;
    return grSuccess;
}

GR_API grError_t grGraphNodeGetType(grGraphNode_t node, grGraphNodeType *pType)
{
    static const char call[] = "grGraphNodeGetType";
    grError_t err = gr__node_check(call, node);
    if (err != grSuccess)
        return err;
    if (pType == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pType is NULL; pass where to store the type", call);
    *pType = node->type;
    return grSuccess;
}

GR_API grError_t grGraphNodeGetDependencies(grGraphNode_t node, grGraphNode_t *pDependencies,
                                            size_t *pNumDependencies)
{
    static const char call[] = "grGraphNodeGetDependencies";
    grError_t err = gr__node_check(call, node);
    if (err != grSuccess)
        return err;
    if (pNumDependencies == NULL)
        return count_null(call, "pNumDependencies");
    put_list(node->deps, node->ndeps, pDependencies, pNumDependencies);
    return grSuccess;
}

GR_API grError_t grGraphNodeGetDependentNodes(grGraphNode_t node, grGraphNode_t *pDependentNodes,
                                              size_t *pNumDependentNodes)
{
    static const char call[] = "grGraphNodeGetDependentNodes";
    grError_t err = gr__node_check(call, node);
    if (err != grSuccess)
        return err;
    if (pNumDependentNodes == NULL)
        return count_null(call, "pNumDependentNodes");
    put_list(node->succs, node->nsuccs, pDependentNodes, pNumDependentNodes);
    return grSuccess;
}
