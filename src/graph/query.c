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
 * An edgeData array receives each listed edge's data; without one, a list
 * that would hold a non-default edge is refused (grErrorLossyQuery).
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

/* The refusal of a list without room for the edge data of its edges. */
static grError_t lossy(const char *call, const char *what, const char *arg)
{
    return gr__fail(grErrorLossyQuery,
                    "%s: %s has edges with non-default data (programmatic edges) and %s is NULL; pass an "
                    "edgeData array to receive their data, as in CUDA",
                    call, what, arg);
}

GR_API grError_t grGraphGetEdges(grGraph_t graph, grGraphNode_t *from, grGraphNode_t *to,
                                 grGraphEdgeData *edgeData, size_t *numEdges)
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
    if (from == NULL && edgeData != NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: edgeData is given but from and to are NULL; pass all three arrays, or none to "
                        "get the count",
                        call);
    if (from == NULL) {
        *numEdges = graph->nedges;
        return grSuccess;
    }
    if (edgeData == NULL && graph->nnotes)
        return lossy(call, "the graph", "edgeData");
    cap = *numEdges;
    for (n = graph->first; n != NULL && i < cap; n = n->next) {
        for (j = 0; j < n->nsuccs && i < cap; j++) {
            from[i] = n;
            to[i] = n->succs[j];
            if (edgeData)
                edgeData[i] = graph->nnotes ? gr__edge_data_of(graph, n, n->succs[j]) : (grGraphEdgeData){0};
            i++;
        }
    }
    *numEdges = i;
    for (; i < cap; i++) {
        from[i] = to[i] = NULL;
        if (edgeData)
            edgeData[i] = (grGraphEdgeData){0};
    }
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

GR_API const char *grGraphNodeTypeName(grGraphNodeType type)
{
    switch (type) {
#define NAME_CASE(suffix, value, name, word) \
    case grGraphNodeType##suffix:            \
        return name;
        GR_GRAPH_NODE_TYPE_LIST(NAME_CASE)
#undef NAME_CASE
    case grGraphNodeTypeCount:
        break;
    }
    return "unknown";
}

grGraphNodeType gr__node_type_from_word(const char *word)
{
#define FROM_WORD(suffix, value, name, w) \
    if (strcmp(word, w) == 0)             \
        return grGraphNodeType##suffix;
    GR_GRAPH_NODE_TYPE_LIST(FROM_WORD)
#undef FROM_WORD
    return grGraphNodeTypeCount;
}

/* A node's dependencies (deps true) or dependents, with their edge data. */
static grError_t node_list(const char *call, grGraphNode_t node, bool deps, grGraphNode_t *out,
                           grGraphEdgeData *edgeData, size_t *cap, const char *outarg, const char *caparg)
{
    grError_t err = gr__node_check(call, node);
    struct grGraphNode_st *const *list;
    size_t count, i;
    if (err != grSuccess)
        return err;
    if (cap == NULL)
        return count_null(call, caparg);
    if (out == NULL && edgeData != NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: edgeData is given but %s is NULL; pass both arrays, or neither to get the count",
                        call, outarg);
    list = deps ? node->deps : node->succs;
    count = deps ? node->ndeps : node->nsuccs;
    if (out != NULL && edgeData == NULL && node->graph->nnotes &&
        gr__node_has_edge_notes(node->graph, node)) {
        for (i = 0; i < count; i++) {
            grGraphEdgeData d = deps ? gr__edge_data_of(node->graph, list[i], node)
                                     : gr__edge_data_of(node->graph, node, list[i]);
            if (!gr__edge_data_is_default(&d))
                return lossy(call, gr__node_label(node), "edgeData");
        }
    }
    size_t room = *cap;
    put_list(list, count, out, cap);
    if (out != NULL && edgeData != NULL) {
        for (i = *cap; i < room; i++)
            edgeData[i] = (grGraphEdgeData){0};
        for (i = 0; i < *cap; i++)
            edgeData[i] = !node->graph->nnotes ? (grGraphEdgeData){0}
                          : deps               ? gr__edge_data_of(node->graph, list[i], node)
                                               : gr__edge_data_of(node->graph, node, list[i]);
    }
    return grSuccess;
}

GR_API grError_t grGraphNodeGetDependencies(grGraphNode_t node, grGraphNode_t *pDependencies,
                                            grGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    return node_list("grGraphNodeGetDependencies", node, true, pDependencies, edgeData, pNumDependencies,
                     "pDependencies", "pNumDependencies");
}

GR_API grError_t grGraphNodeGetDependentNodes(grGraphNode_t node, grGraphNode_t *pDependentNodes,
                                              grGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
    return node_list("grGraphNodeGetDependentNodes", node, false, pDependentNodes, edgeData,
                     pNumDependentNodes, "pDependentNodes", "pNumDependentNodes");
}
