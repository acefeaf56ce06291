/*
 * memop.c - batch memory operation nodes in an executable: what may
 * change (grGraphExecBatchMemOpNodeSetParams, grGraphExecUpdate) and the
 * setter.
 *
 * As in CUDA, an executable's batch memory operation node keeps its count
 * and the type of each operation for life; addresses, values and flags
 * change. So the plan's array is written in place and never reallocated,
 * and whether a plan node waits (the plan's order and way, see
 * exec/plan_build.c) never changes. On a GPU the driver's node is told
 * first (the device's exec_set_memop), then the plan is written, so that
 * a refusal by the driver changes nothing.
 */
#include "exec.h"
#include "../backend/device.h"

#include <string.h>

int gr__exec_memop_mismatch(const gr_pnode *pn, unsigned count, const grStreamBatchMemOpParams *ops)
{
    if (count != pn->u.memop.count)
        return -2;
    for (unsigned i = 0; i < count; i++)
        if (ops[i].operation != pn->u.memop.ops[i].operation)
            return (int)i;
    return -1;
}

GR_API grError_t grGraphExecBatchMemOpNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    const grBatchMemOpNodeParams *nodeParams)
{
    static const char call[] = "grGraphExecBatchMemOpNodeSetParams";
    gr_pnode *pn = NULL;
    /* A graph that spans devices: the node's part's setter (exec/span.c). */
    if (GR_UNLIKELY(gr__exec_check(call, hGraphExec) == grSuccess && hGraphExec->span != NULL))
        return gr__exec_span_memop(call, hGraphExec, node, nodeParams);
    grError_t err = gr__exec_find_typed(call, hGraphExec, node, grGraphNodeTypeBatchMemOp, &pn);
    if (err)
        return err;
    if (nodeParams == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the operations", call);
    if ((err = gr__memop_check(call, nodeParams->count, nodeParams->paramArray, nodeParams->flags)))
        return err;
    int bad = gr__exec_memop_mismatch(pn, nodeParams->count, nodeParams->paramArray);
    if (bad == -2)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->count is %u where the executable's node has %u operations; as in "
                        "CUDA, an executable's node keeps its count (instantiate again instead)",
                        call, nodeParams->count, pn->u.memop.count);
    if (bad >= 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: paramArray[%d] is a %s operation where the executable's node has a %s; as in "
                        "CUDA, an executable's node keeps the type of each operation",
                        call, bad, gr__memop_op_name((int)nodeParams->paramArray[bad].operation),
                        gr__memop_op_name((int)pn->u.memop.ops[bad].operation));
    /* The stored form: the caller's operations normalised (checked, so
     * only running out of memory fails). */
    if ((err = gr__exec_check_memop_devmem(call, "the node", nodeParams->count, nodeParams->paramArray,
                                           gr__exec_device(hGraphExec))))
        return err;
    gr_memop_params m;
    if ((err = gr__memop_params_make(call, nodeParams->count, nodeParams->paramArray, 0, &m)))
        return err;
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, node, pn);
    if (GR_UNLIKELY(hGraphExec->gpu != NULL))
        err = gr__devkind()->exec_set_memop(call, hGraphExec->gpu, pn->index, m.count, m.ops);
    if (!err)
        memcpy(pn->u.memop.ops, m.ops, m.count * sizeof *m.ops);
    gr__exec_write_end(hGraphExec);
    gr__memop_params_free(&m);
    return err;
}
