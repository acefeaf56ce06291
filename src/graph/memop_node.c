/*
 * memop_node.c - batch memory operation nodes (grGraphNodeTypeBatchMemOp,
 * the driver's CU_GRAPH_NODE_TYPE_BATCH_MEM_OP): the checks every batch of
 * stream memory operations passes (grStreamBatchMemOp, captured waits and
 * writes, the node's add and setters), the stored copy of the operations,
 * and the node's entry points.
 *
 * Invariants:
 *   - a stored operation holds its member's fields only, the rest of the
 *     union zero (alias included), so that copies, comparisons and graph
 *     files see the same bytes whatever the caller left in the union;
 *   - a refused call changes nothing: everything is checked, then copied,
 *     then the old operations are freed.
 */
#include "graph.h"
#include "../memory/memory.h"

#include <string.h>

const char *gr__memop_op_name(int op)
{
    switch (op) {
    case grStreamMemOpWaitValue32:
        return "wait32";
    case grStreamMemOpWriteValue32:
        return "write32";
    case grStreamMemOpFlushRemoteWrites:
        return "flush";
    case grStreamMemOpWaitValue64:
        return "wait64";
    case grStreamMemOpWriteValue64:
        return "write64";
    case grStreamMemOpBarrier:
        return "barrier";
    default:
        return NULL;
    }
}

/* A wait's or write's word: not NULL, aligned to its size, inside an
 * allocation graphrt knows of when it is one. */
static grError_t check_word(const char *call, unsigned i, const void *addr, size_t size)
{
    if (addr == NULL)
        return gr__fail(grErrorInvalidValue, "%s: paramArray[%u].address is NULL; pass the word", call, i);
    if ((uintptr_t)addr % size != 0)
        return gr__fail(grErrorInvalidValue, "%s: paramArray[%u].address %p is not aligned to %zu bytes",
                        call, i, addr, size);
    return gr__mem_check_range(call, addr, size, "word");
}

/* The codes of CUDA 13's driver, probed on an H200: it refuses a write's
 * NoMemoryBarrier (InvalidValue) and a wait's Flush (NotSupported: the
 * device cannot flush remote writes); graphrt's CPU device answers the
 * same. */
static grError_t check_op(const char *call, unsigned i, const grStreamBatchMemOpParams *op)
{
    switch (op->operation) {
    case grStreamMemOpWaitValue32:
    case grStreamMemOpWaitValue64: {
        unsigned f = op->waitValue.flags;
        if ((f & ~grStreamWaitValueFlush) > grStreamWaitValueNor)
            return gr__fail(grErrorInvalidValue,
                            "%s: paramArray[%u].flags 0x%x is not grStreamWaitValueGeq, Eq, And or Nor", call,
                            i, f);
        if (f & grStreamWaitValueFlush)
            return gr__fail(
                grErrorNotSupported,
                "%s: paramArray[%u] has grStreamWaitValueFlush, which is not supported: the device "
                "cannot flush remote writes (as an H200 answers under CUDA 13)",
                call, i);
        return check_word(call, i, op->waitValue.address, op->operation == grStreamMemOpWaitValue64 ? 8 : 4);
    }
    case grStreamMemOpWriteValue32:
    case grStreamMemOpWriteValue64:
        if (op->writeValue.flags != grStreamWriteValueDefault)
            return gr__fail(
                grErrorInvalidValue,
                "%s: paramArray[%u].flags 0x%x is not grStreamWriteValueDefault (NoMemoryBarrier is "
                "refused, as CUDA 13 refuses it on an H200)",
                call, i, op->writeValue.flags);
        return check_word(call, i, op->writeValue.address,
                          op->operation == grStreamMemOpWriteValue64 ? 8 : 4);
    case grStreamMemOpFlushRemoteWrites:
        return gr__fail(grErrorNotSupported,
                        "%s: paramArray[%u] is grStreamMemOpFlushRemoteWrites, which is not supported: the "
                        "device cannot flush remote writes (as an H200 answers under CUDA 13)",
                        call, i);
    case grStreamMemOpBarrier:
        if (op->memoryBarrier.flags > grStreamMemoryBarrierTypeGpu)
            return gr__fail(grErrorInvalidValue,
                            "%s: paramArray[%u].flags 0x%x is not grStreamMemoryBarrierTypeSys or Gpu", call,
                            i, op->memoryBarrier.flags);
        return grSuccess;
    }
    return gr__fail(grErrorInvalidValue,
                    "%s: paramArray[%u].operation %d is not a grStreamBatchMemOpType (wait32 1, write32 2, "
                    "wait64 4, write64 5, barrier 6)",
                    call, i, (int)op->operation);
}

grError_t gr__memop_check(const char *call, unsigned count, const grStreamBatchMemOpParams *ops,
                          unsigned flags)
{
    if (flags != 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x is not 0 (no batch flags exist; CUDA 13 refuses them "
                        "too)",
                        call, flags);
    if (count > GR_BATCH_MEM_OP_MAX)
        return gr__fail(grErrorInvalidValue, "%s: count %u is above %u operations (the driver's limit)", call,
                        count, GR_BATCH_MEM_OP_MAX);
    if (count > 0 && ops == NULL)
        return gr__fail(grErrorInvalidValue, "%s: paramArray is NULL with count %u; pass the operations",
                        call, count);
    /* The array is read before anything else: a pointer that is not one
     * (another member of a grGraphNodeParams union read as memOp, a
     * count where the array belongs) is refused instead of faulting
     * here. An array on the caller's stack passes in two compares; any
     * other costs a probe (about a microsecond). */
    size_t bytes = (size_t)count * sizeof *ops;
    if (count > 0 && (uintptr_t)ops % _Alignof(grStreamBatchMemOpParams) != 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: paramArray %p is not aligned to %zu bytes, as an array of "
                        "grStreamBatchMemOpParams is",
                        call, (const void *)ops, (size_t) _Alignof(grStreamBatchMemOpParams));
    if (count > 0 && !gr__on_own_stack(ops, bytes) && !gr__probe_readable(ops, bytes))
        return gr__fail(grErrorInvalidValue,
                        "%s: paramArray %p does not point to %u readable grStreamBatchMemOpParams (%zu "
                        "bytes); pass the address of the operations' array",
                        call, (const void *)ops, count, bytes);
    for (unsigned i = 0; i < count; i++) {
        grError_t err = check_op(call, i, &ops[i]);
        if (err != grSuccess)
            return err;
    }
    return grSuccess;
}

/* op with its member's fields only. */
static void normalise(grStreamBatchMemOpParams *dst, const grStreamBatchMemOpParams *op)
{
    memset(dst, 0, sizeof *dst);
    dst->operation = op->operation;
    switch (op->operation) {
    case grStreamMemOpWaitValue32:
    case grStreamMemOpWriteValue32:
        /* waitValue and writeValue share their layout. */
        dst->waitValue.address = op->waitValue.address;
        dst->waitValue.value = op->waitValue.value;
        dst->waitValue.flags = op->waitValue.flags;
        return;
    case grStreamMemOpWaitValue64:
    case grStreamMemOpWriteValue64:
        dst->waitValue.address = op->waitValue.address;
        dst->waitValue.value64 = op->waitValue.value64;
        dst->waitValue.flags = op->waitValue.flags;
        return;
    case grStreamMemOpFlushRemoteWrites:
    case grStreamMemOpBarrier:
        dst->memoryBarrier.flags = op->memoryBarrier.flags;
        return;
    }
}

grError_t gr__memop_params_make(const char *call, unsigned count, const grStreamBatchMemOpParams *ops,
                                unsigned flags, gr_memop_params *out)
{
    grError_t err = gr__memop_check(call, count, ops, flags);
    if (err != grSuccess)
        return err;
    out->ops = NULL;
    out->count = count;
    if (count == 0)
        return grSuccess;
    if (!(out->ops = gr__malloc(count * sizeof *out->ops)))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory copying %u operations", call, count);
    for (unsigned i = 0; i < count; i++)
        normalise(&out->ops[i], &ops[i]);
    return grSuccess;
}

bool gr__memop_params_copy(gr_memop_params *dst, const gr_memop_params *src)
{
    dst->count = src->count;
    dst->ops = NULL;
    if (src->count == 0)
        return true;
    if (!(dst->ops = gr__malloc(src->count * sizeof *dst->ops)))
        return false;
    memcpy(dst->ops, src->ops, src->count * sizeof *dst->ops);
    return true;
}

void gr__memop_params_free(gr_memop_params *p)
{
    gr__free(p->ops);
    p->ops = NULL;
    p->count = 0;
}

/* The node's parameters from nodeParams: checked (count 0 refused, as a
 * node must do something), then copied. */
static grError_t node_params_make(const char *call, const grBatchMemOpNodeParams *np, gr_memop_params *out)
{
    if (np == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams is NULL; pass the operations", call);
    if (np->count == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->count is 0; a batch memory operation node holds at least one "
                        "operation",
                        call);
    return gr__memop_params_make(call, np->count, np->paramArray, np->flags, out);
}

grError_t gr__graph_add_memop(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                              size_t ndeps, const grBatchMemOpNodeParams *np)
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
    if ((err = node_params_make(call, np, &p.memop)) != grSuccess)
        return err;
    err = gr__graph_insert_node(call, g, deps, ndeps, grGraphNodeTypeBatchMemOp, &p, out);
    if (err != grSuccess)
        gr__memop_params_free(&p.memop);
    return err;
}

GR_API grError_t grGraphAddBatchMemOpNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          const grBatchMemOpNodeParams *nodeParams)
{
    return gr__graph_add_memop("grGraphAddBatchMemOpNode", pGraphNode, graph, pDependencies, numDependencies,
                               nodeParams);
}

static grError_t memop_node(const char *call, grGraphNode_t node)
{
    grError_t err = gr__node_check(call, node);
    if (err != grSuccess)
        return err;
    if (node->type != grGraphNodeTypeBatchMemOp)
        return gr__fail(grErrorInvalidValue, "%s: node is %s, not a %s node; call the function of its type",
                        call, gr__node_label(node), gr__node_type_name(grGraphNodeTypeBatchMemOp));
    return grSuccess;
}

GR_API grError_t grGraphBatchMemOpNodeGetParams(grGraphNode_t node, grBatchMemOpNodeParams *nodeParams_out)
{
    static const char call[] = "grGraphBatchMemOpNodeGetParams";
    grError_t err = memop_node(call, node);
    if (err != grSuccess)
        return err;
    if (nodeParams_out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams_out is NULL; pass where to store the parameters",
                        call);
    memset(nodeParams_out, 0, sizeof *nodeParams_out);
    nodeParams_out->count = node->p.memop.count;
    nodeParams_out->paramArray = node->p.memop.ops;
    return grSuccess;
}

GR_API grError_t grGraphBatchMemOpNodeSetParams(grGraphNode_t node, const grBatchMemOpNodeParams *nodeParams)
{
    static const char call[] = "grGraphBatchMemOpNodeSetParams";
    gr_memop_params p;
    grError_t err = memop_node(call, node);
    if (err != grSuccess)
        return err;
    if ((err = node_params_make(call, nodeParams, &p)) != grSuccess)
        return err;
    gr__memop_params_free(&node->p.memop);
    node->p.memop = p;
    gr__graph_edited(node->graph);
    return grSuccess;
}

bool gr__memop_has_wait(const gr_memop_params *m)
{
    for (unsigned i = 0; i < m->count; i++)
        if (m->ops[i].operation == grStreamMemOpWaitValue32 ||
            m->ops[i].operation == grStreamMemOpWaitValue64)
            return true;
    return false;
}
