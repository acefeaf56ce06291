/*
 * node_run.c - the out-of-line parts of running a plan's nodes on the CPU
 * (node_run.h holds the common bodies inline): conditional nodes, whose
 * bodies run nested in the node; the reset of conditional handles as a
 * launch starts; a node's run while tracing.
 *
 * Invariants: those of node_run.h; a conditional body's nodes run in its
 * plan's order, with no countdown, so nothing here touches a launch's
 * per-launch state.
 */
#include "node_run.h"

#include <string.h>

GR_NOINLINE void gr__node_memset(const grMemsetParams *m)
{
    /* No bytes in a row: nothing to write, however many rows (a height of
     * SIZE_MAX would otherwise loop for ever). */
    if (m->width == 0)
        return;
    for (size_t r = 0; r < m->height; r++) {
        unsigned char *row = (unsigned char *)m->dst + r * m->pitch;
        switch (m->elementSize) {
        case 1:
            memset(row, (int)(m->value & 0xffu), m->width);
            break;
        case 2: {
            uint16_t v = (uint16_t)m->value;
            for (size_t i = 0; i < m->width; i++)
                memcpy(row + 2 * i, &v, 2);
            break;
        }
        default: {
            uint32_t v = m->value;
            for (size_t i = 0; i < m->width; i++)
                memcpy(row + 4 * i, &v, 4);
            break;
        }
        }
    }
}

/* Runs a conditional node's body plan front to back on this thread (its
 * order is topological), as a launch run in order does: a conditional node
 * is one task, its bodies nested inside it. An iteration costs the body's
 * nodes and this loop, nothing else: no allocation, no countdown. */
static void run_body_plan(gr_plan *p, grKernelCtx *ctx)
{
    gr_pnode *nodes = p->nodes;
    for (uint32_t i = 0; i + 1 < p->nnodes; i++)
        gr__node_run(&nodes[i], ctx);
}

/* The value is read with a relaxed load: whoever set it (a kernel before
 * the node, or in the body) happened before, through the launch's
 * countdowns or this thread's own order. */
GR_NOINLINE void gr__node_run_conditional(const gr_pnode *n, grKernelCtx *ctx)
{
    const gr_cond_plan *c = n->u.cond;
    _Atomic uint32_t *value = &c->slot->value;
    uint32_t v;
    switch (c->type) {
    case grGraphCondTypeIf:
        v = gr_load_relaxed(value);
        if (v)
            run_body_plan(c->bodies[0], ctx);
        else if (c->nbodies == 2)
            run_body_plan(c->bodies[1], ctx);
        return;
    case grGraphCondTypeWhile:
        while (gr_load_relaxed(value))
            run_body_plan(c->bodies[0], ctx);
        return;
    case grGraphCondTypeSwitch:
        v = gr_load_relaxed(value);
        if (v < c->nbodies)
            run_body_plan(c->bodies[v], ctx);
        return;
    default:
        return;
    }
}

/* Resets the handles that ask for it to their defaults, as each launch
 * starts (grGraphCondAssignDefault). */
GR_NOINLINE void gr__plan_reset_conditionals(const gr_plan *p)
{
    for (uint32_t i = 0; i < p->ncond_slots; i++) {
        gr_cond_slot *s = p->cond_slots[i];
        if (s->flags & grGraphCondAssignDefault)
            gr_store_relaxed(&s->value, s->defval);
    }
}

/* The name a node's trace event carries: its kernel's, or its type's. */
static const char *node_name(const gr_pnode *n)
{
    if (!n->enabled)
        return "disabled";
    switch (n->type) {
    case grGraphNodeTypeKernel:
        return n->u.kern.k->name;
    case grGraphNodeTypeMemcpy:
        return "memcpy";
    case grGraphNodeTypeMemset:
        return "memset";
    case grGraphNodeTypeHost:
        return "host function";
    case grGraphNodeTypeWaitEvent:
        return "event wait";
    case grGraphNodeTypeEventRecord:
        return "event record";
    case grGraphNodeTypeConditional:
        return "conditional";
    case grGraphNodeTypeCollective:
        return gr__coll_op_name(n->u.coll->p.op);
    default:
        return "empty";
    }
}

/* run_body while tracing: the node's span, on the running worker. One
 * clock read per node (a read costs 15-30 ns on a VM): the span starts at
 * *clock, where the thread's previous span ended (or the launch began),
 * and *clock becomes its end, so a span also holds what the thread did
 * between the two nodes (the previous node's recording, the countdown).
 * Out of line, so that a replay without tracing pays only the branch
 * that chooses it. */
GR_NOINLINE void gr__node_run_traced(gr_pnode *n, grKernelCtx *ctx, const gr_plan *p, uint64_t *clock)
{
    gr__node_run(n, ctx);
    uint64_t t1 = gr__trace_clock();
    gr__trace_emit(GR_TR_NODE, node_name(n), *clock, t1, (uintptr_t)ctx->exec, p->runs, n->index,
                   ctx->worker);
    *clock = t1;
}
