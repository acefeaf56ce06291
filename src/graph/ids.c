/*
 * ids.c - the identity calls of CUDA 13.1: a graph's id (its uid), a
 * node's local id (its creation number) and tools id, the graph holding
 * a node. The executable's id is the exec layer's (exec/launch.c).
 */
#include "graph.h"

/* CUDA's ids are 32 bits wide: the low 32 of graphrt's. */
static unsigned id32(uint64_t v)
{
    return (unsigned)(v & 0xffffffffu);
}

GR_API grError_t grGraphGetId(grGraph_t hGraph, unsigned int *graphId)
{
    grError_t err = gr__graph_check("grGraphGetId", hGraph);
    if (err)
        return err;
    if (!graphId)
        return gr__fail(grErrorInvalidValue, "grGraphGetId: graphId (the output pointer) is NULL");
    *graphId = id32(hGraph->uid);
    return grSuccess;
}

/* hNode live and out not NULL. */
static grError_t node_query(const char *call, grGraphNode_t hNode, const void *out, const char *name)
{
    grError_t err = gr__node_check(call, hNode);
    if (err)
        return err;
    if (!out)
        return gr__fail(grErrorInvalidValue, "%s: %s (the output pointer) is NULL", call, name);
    return grSuccess;
}

GR_API grError_t grGraphNodeGetLocalId(grGraphNode_t hNode, unsigned int *nodeId)
{
    grError_t err = node_query("grGraphNodeGetLocalId", hNode, nodeId, "nodeId");
    if (err)
        return err;
    *nodeId = id32(hNode->seq);
    return grSuccess;
}

GR_API grError_t grGraphNodeGetToolsId(grGraphNode_t hNode, unsigned long long *toolsNodeId)
{
    grError_t err = node_query("grGraphNodeGetToolsId", hNode, toolsNodeId, "toolsNodeId");
    if (err)
        return err;
    *toolsNodeId = (unsigned long long)id32(hNode->graph->uid) << 32 | id32(hNode->seq);
    return grSuccess;
}

GR_API grError_t grGraphNodeGetContainingGraph(grGraphNode_t hNode, grGraph_t *phGraph)
{
    grError_t err = node_query("grGraphNodeGetContainingGraph", hNode, phGraph, "phGraph");
    if (err)
        return err;
    *phGraph = hNode->graph;
    return grSuccess;
}
