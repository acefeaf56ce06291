/*
 * coll.c - collective nodes in executables (docs/collectives.md): the
 * instantiate step that checks the ranks' collective sequences and makes
 * each node's persistent request, the executable's setter, and the
 * update of one node's parameters.
 *
 * On a GPU the node is the device kind's (NCCL's call captured into the
 * driver's graph at lowering): here its communicator is checked to be of
 * that GPU, and the setter gives the device the new parameters first.
 *
 * Instantiate is collective over every communicator the graph uses: for
 * each, in the order of their first collective node in the plan, the
 * ranks compare their sequences of collectives (op, datatype, redop,
 * root, count: a mismatch fails instantiate on every rank, naming the
 * first collective that differs, instead of hanging a launch), then each
 * node's request is made in plan order, which is the order the plan runs
 * them in (plan_build.c chains the collective nodes of a communicator).
 *
 * Invariant: a plan's collective node holds a prepared request for the
 * parameters it holds (or none on a one-rank communicator).
 */
#include "exec.h"
#include "../backend/comm.h"
#include "../backend/device.h"

#include <string.h>

static gr_coll_sig sig_of(const grCollectiveNodeParams *p)
{
    gr_coll_sig s;
    memset(&s, 0, sizeof s);
    s.op = (uint32_t)p->op;
    s.datatype = (uint32_t)p->datatype;
    s.redop = (uint32_t)p->redop;
    s.root = p->root;
    s.count = p->count;
    /* Point-to-point: the peer differs by rank (rank 0 sends to 1, rank 1
     * receives from 0): compared as 'some point-to-point of count'. */
    if (p->op == grCollSend || p->op == grCollRecv) {
        s.op = grCollSend;
        s.root = 0;
    }
    return s;
}

/* Checks the sequence of communicator c (its first node at plan index
 * 'first'): every rank takes part. */
static grError_t check_comm(const char *call, gr_plan *p, grComm_t c, uint32_t first)
{
    uint32_t n = 0;
    for (uint32_t i = first; i < p->nnodes; i++)
        n += p->nodes[i].type == grGraphNodeTypeCollective && p->nodes[i].u.coll->p.comm == c;
    gr_coll_sig *sig = gr__malloc((size_t)n * sizeof *sig);
    if (!sig)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    uint32_t *where = gr__malloc((size_t)n * sizeof *where);
    if (!where) {
        gr__free(sig);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    uint32_t k = 0;
    for (uint32_t i = first; i < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeCollective && p->nodes[i].u.coll->p.comm == c) {
            where[k] = i;
            sig[k++] = sig_of(&p->nodes[i].u.coll->p);
        }
    uint32_t pos;
    grError_t err = gr__comm_check_sequence(call, c, sig, n, &pos);
    if (err && pos != UINT32_MAX && pos < n)
        gr__inst_fault.pindex = where[pos];
    gr__free(sig);
    gr__free(where);
    return err;
}

grError_t gr__exec_coll_instantiate(const char *call, gr_plan *p, int device)
{
    grError_t err;
    for (uint32_t i = 0; i < p->nnodes; i++) {
        if (p->nodes[i].type != grGraphNodeTypeCollective)
            continue;
        grComm_t c = p->nodes[i].u.coll->p.comm;
        if ((err = gr__comm_check_live(call, c)) ||
            (err = gr__comm_check_device(call, c, device, "the executable's"))) {
            gr__inst_fault.pindex = i;
            return err;
        }
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = p->nodes[j].type == grGraphNodeTypeCollective && p->nodes[j].u.coll->p.comm == c;
        if (!seen && (err = check_comm(call, p, c, i)))
            return err;
    }
    for (uint32_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeCollective &&
            (err = gr__coll_prepare(call, p->nodes[i].u.coll))) {
            gr__inst_fault.pindex = i;
            return err;
        }
    return grSuccess;
}

void gr__exec_coll_apply(gr_pnode *pn, const grCollectiveNodeParams *np)
{
    if (memcmp(&pn->u.coll->p, np, sizeof *np) != 0)
        gr__coll_replace(pn->u.coll, np);
}

GR_API grError_t grGraphExecCollectiveNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    const grCollectiveNodeParams *nodeParams)
{
    static const char call[] = "grGraphExecCollectiveNodeSetParams";
    gr_pnode *pn = NULL;
    grError_t err;
    if (GR_UNLIKELY(gr__exec_valid(hGraphExec) && hGraphExec->span != NULL)) {
        /* The node's copy in its communicator's part, which keeps the
         * request; the part's own checks (same operation and
         * communicator: the same part). */
        gr_span_node sn;
        if ((err = gr__exec_check(call, hGraphExec)) ||
            (err = gr__exec_span_node_typed(call, hGraphExec, node, grGraphNodeTypeCollective, "collective",
                                            &sn)))
            return err;
        if (sn.hold)
            gr__exec_write_begin(sn.hold);
        err = grGraphExecCollectiveNodeSetParams(sn.exec, sn.clone, nodeParams);
        if (sn.hold)
            gr__exec_write_end(sn.hold);
        return err;
    }
    err = gr__exec_find_typed(call, hGraphExec, node, grGraphNodeTypeCollective, &pn);
    if (err)
        return err;
    if (nodeParams == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the collective's parameters",
                        call);
    if ((err = gr__coll_check(call, nodeParams)))
        return err;
    const grCollectiveNodeParams *old = &pn->u.coll->p;
    if (nodeParams->op != old->op || nodeParams->comm != old->comm)
        return gr__fail(grErrorInvalidValue,
                        "%s: the executable's node is a %s on communicator %p; nodeParams asks a %s on "
                        "communicator %p: an executable's collective node keeps its operation and "
                        "communicator (instantiate again instead)",
                        call, gr__coll_op_name(old->op), GR_PTR(old->comm), gr__coll_op_name(nodeParams->op),
                        GR_PTR(nodeParams->comm));
    /* The device first: a refusal there changes nothing. */
    if (hGraphExec->gpu && (err = gr__devkind()->exec_set_coll(call, hGraphExec->gpu, pn->index, nodeParams)))
        return err;
    gr_coll_run fresh = {*nodeParams, NULL};
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, node, pn);
    err = gr__coll_prepare(call, &fresh);
    if (!err) {
        gr__coll_unprepare(pn->u.coll);
        pn->u.coll->p = fresh.p;
        pn->u.coll->req = fresh.req;
    }
    gr__exec_write_end(hGraphExec);
    return err;
}
