/*
 * node_params.c - grGraphExecNodeSetParams: the generic setter of an
 * executable's node, which checks the node and its type once and hands
 * the type's member of grGraphNodeParams to that type's own setter
 * (setters.c, update.c), so that CUDA's limits on changing an executable
 * stay in one place, the GPU's driver-side update included.
 */
#include "exec.h"

GR_API grError_t grGraphExecNodeSetParams(grGraphExec_t graphExec, grGraphNode_t node,
                                          grGraphNodeParams *nodeParams)
{
    static const char call[] = "grGraphExecNodeSetParams";
    grError_t err;
    if ((err = gr__exec_check(call, graphExec)))
        return err;
    if (nodeParams == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the node's type and parameters",
                        call);
    gr_pnode *pn = NULL;
    grGraphNodeType type;
    if (GR_UNLIKELY(graphExec->span != NULL)) {
        /* The node's kind from its part; the per-kind setter forwards. */
        gr_span_node sn;
        if ((err = gr__exec_span_node(call, graphExec, node, &sn)))
            return err;
        type = sn.type;
    } else {
        type = gr__exec_find_node(graphExec, node, &pn);
    }
    if (type == grGraphNodeTypeCount)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is not a top-level node of the graph executable %p was instantiated "
                        "from, nor a node of its conditional nodes' bodies (nodes inside child graphs "
                        "change through their child-graph node)",
                        call, GR_PTR(node), GR_PTR(graphExec));
    if (nodeParams->type != type)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->type is %d (%s) but node %p is a %s node; the type must match the "
                        "node's",
                        call, (int)nodeParams->type, gr__node_type_name(nodeParams->type), GR_PTR(node),
                        gr__node_type_name(type));
    switch (type) {
    case grGraphNodeTypeKernel:
        return grGraphExecKernelNodeSetParams(graphExec, node, &nodeParams->kernel);
    case grGraphNodeTypeMemcpy:
        return gr__exec_set_memcpy_3d(graphExec, node, &nodeParams->memcpy, NULL);
    case grGraphNodeTypeMemset:
        return grGraphExecMemsetNodeSetParams(graphExec, node, &nodeParams->memset);
    case grGraphNodeTypeHost:
        return grGraphExecHostNodeSetParams(graphExec, node, &nodeParams->host);
    case grGraphNodeTypeGraph:
        /* A child graph of another shape: grErrorGraphExecUpdateFailure,
         * as CUDA 13 answers both calls (probes nodeapi.cu, memory.cu). */
        if ((err = gr__graph_check(call, nodeParams->graph.graph)))
            return err;
        return grGraphExecChildGraphNodeSetParams(graphExec, node, nodeParams->graph.graph);
    case grGraphNodeTypeEmpty:
        return grSuccess;
    case grGraphNodeTypeWaitEvent:
        return grGraphExecEventWaitNodeSetEvent(graphExec, node, nodeParams->eventWait.event);
    case grGraphNodeTypeEventRecord:
        return grGraphExecEventRecordNodeSetEvent(graphExec, node, nodeParams->eventRecord.event);
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
        return gr__fail(
            grErrorNotSupported,
            "%s: node %p is a memory %s node, whose parameters cannot change in an executable, as "
            "in CUDA",
            call, GR_PTR(node), type == grGraphNodeTypeMemAlloc ? "allocation" : "free");
    case grGraphNodeTypeConditional:
        return gr__fail(grErrorNotSupported,
                        "%s: node %p is a conditional node, whose parameters cannot change in an "
                        "executable, as in CUDA 13 (change its bodies' nodes and call grGraphExecUpdate)",
                        call, GR_PTR(node));
    case grGraphNodeTypeBatchMemOp:
        return grGraphExecBatchMemOpNodeSetParams(graphExec, node, &nodeParams->memOp);
    case grGraphNodeTypeCollective:
        return grGraphExecCollectiveNodeSetParams(graphExec, node, &nodeParams->collective);
    case grGraphNodeTypeCount:
        break;
    }
    return gr__fail(grErrorInvalidValue, "%s: node %p has no parameters to set", call, GR_PTR(node));
}
