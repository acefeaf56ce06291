/*
 * node_run.h - running one node of a plan on the CPU (node_run.c): the
 * body of each node kind, apart from how a launch orders and spreads the
 * nodes (launch.c). The common bodies are static inline here, so that a
 * launch's loops (launch.c) call a single-block kernel directly, with no
 * call between the loop and the kernel; the rare ones (conditional nodes,
 * traced runs) are out of line in node_run.c.
 *
 * Invariants:
 *   - running a node touches the node and what its parameters point at,
 *     never the launch's countdowns or stacks (launch.c's);
 *   - a disabled node runs nothing;
 *   - a conditional node's bodies run front to back on the thread that
 *     runs the node (their plans' order is topological).
 */
#ifndef GR_NODE_RUN_H
#define GR_NODE_RUN_H

#include "../plan.h"
#include "../comm.h"
#include "stream_int.h"

#include <string.h>

/* A memset node's body: rows of elementSize-byte values (1, 2 or 4); out
 * of line (node_run.c), as the compiler kept it when the bodies and the
 * launch loops shared a file, so that the loops stay as compact. */
void gr__node_memset(const grMemsetParams *m);

/* An event wait node's body: waits for the event's latest record. */
static inline void gr__node_wait_event(const gr_pnode *n)
{
    gr_stream *s = NULL;
    uint64_t seq;
    gr__event_latest(n->u.event, &s, &seq);
    if (!s)
        return;
    /* A record this launch made (its record nodes are applied when it is
     * queued: launch_queue.c, record_events), or a later one on the same stream, is
     * work queued after this node: waiting for it would wait for the
     * launch itself. What the wait orders after is then everything before
     * the launch on its stream, which has run already. */
    const gr_plan *p = gr__pnode_plan(n);
    if (!(s == p->run_stream && seq >= p->run_done))
        gr__stream_wait_for_ex(s, seq, !p->waits_alone);
    gr__stream_release(s);
}

/* The context of single-block kernels run by worker w for a launch of
 * executable e: the fields that stay the same from node to node, set once
 * per run of nodes. A conditional node's bodies run with the context of
 * the node and a child graph's nodes are the parent plan's, so their
 * kernels see the top-level executable as well. */
static inline void gr__node_ctx_init(grKernelCtx *ctx, gr_worker *w, grGraphExec_t e)
{
    ctx->blockIdx = (grDim3){0, 0, 0};
    ctx->sharedMem = NULL;
    ctx->worker = w->index;
    ctx->exec = e;
}

/* Runs conditional node n's body chosen by its handle's value
 * (node_run.c); ctx is the caller's. */
void gr__node_run_conditional(const gr_pnode *n, grKernelCtx *ctx);

/* Runs node n; ctx is the caller's gr__node_ctx_init'ed context. Single-block
 * kernels, the usual node, are tested first: a direct call. */
static inline void gr__node_run(gr_pnode *n, grKernelCtx *ctx)
{
    if (GR_UNLIKELY(!n->enabled))
        return;
    if (GR_LIKELY(n->type == grGraphNodeTypeKernel && n->krun == GR_KRUN_ONE)) {
        ctx->gridDim = n->u.kern.grid;
        ctx->blockDim = n->u.kern.block;
        ctx->sharedMem = n->shmem ? gr__kernel_scratch(n->shmem) : NULL;
        n->u.kern.k->fn(ctx, n->u.kern.argv);
        return;
    }
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        gr_kernel_call c = {n->u.kern.k,    n->u.kern.grid,          n->u.kern.block, n->shmem,
                            n->u.kern.argv, n->krun == GR_KRUN_COOP, ctx->exec};
        gr__kernel_run(&c);
        return;
    }
    case grGraphNodeTypeHost:
        n->u.host.fn(n->u.host.userData);
        return;
    case grGraphNodeTypeMemcpy:
        if (GR_UNLIKELY(n->u.copy.pitched))
            gr__pnode_copy_pitched(n);
        else if (n->u.copy.p.count)
            memmove(n->u.copy.p.dst, n->u.copy.p.src, n->u.copy.p.count);
        return;
    case grGraphNodeTypeMemset:
        gr__node_memset(&n->u.memset);
        return;
    case grGraphNodeTypeWaitEvent:
        gr__node_wait_event(n);
        return;
    case grGraphNodeTypeConditional:
        gr__node_run_conditional(n, ctx);
        return;
    case grGraphNodeTypeBatchMemOp:
        for (uint32_t i = 0; i < n->u.memop.count; i++)
            gr__memop_run_ex(&n->u.memop.ops[i], !gr__pnode_plan(n)->waits_alone);
        return;
    case grGraphNodeTypeCollective:
        gr__coll_run(n->u.coll); /* blocks this thread until it completes */
        return;
    default: /* empty, enter/leave of child graphs, event record */
        return;
    }
}

/* gr__node_run while tracing: also emits the node's span, which starts at
 * *clock and ends now; *clock becomes its end (node_run.c). p is n's plan,
 * a launch of the executable that holds it. */
void gr__node_run_traced(gr_pnode *n, grKernelCtx *ctx, const gr_plan *p, uint64_t *clock);

/* Resets the conditional handles of p that ask for it to their defaults,
 * as each launch starts (grGraphCondAssignDefault). */
void gr__plan_reset_conditionals(const gr_plan *p);

#endif /* GR_NODE_RUN_H */
