/*
 * plan_attrs.c - the kernel nodes with launch attributes, and the edges
 * with data between kernel nodes, of an executable being instantiated,
 * found for a device's lowering (gr__plan_kattrs, gr__plan_edges,
 * plan.h): the top-level plan's through the executable's node and edge
 * tables, a conditional body's through its plan's node table, the nodes
 * inlined from child graphs (and a body's own) through the plan index
 * the build left in their 'scratch'. The graph layer reads the
 * attributes and the edges' data (gr__kattrs_hook, gr__edges_hook).
 *
 * Invariant: the conditional nodes are numbered in the order a lowering
 * meets them (the plan's nodes in order, a conditional node's bodies, in
 * order and depth first, before the plan's next node), which is the
 * order of make_conds and add_cond in cuda/graph.c.
 */
#include "plan.h"

typedef void (*at_visit)(void *ctx, gr_kattr_at at, const grLaunchAttribute *attrs, unsigned n);

/* One graph node's visit: where it sits ('at', with the plan index of
 * 'node' itself) and where to send what the hook finds. */
typedef struct walk {
    at_visit visit;
    void *ctx;
    const void *node;
    gr_kattr_at at;
} walk;

static void found(void *ctx, const void *node, uint64_t scratch, const grLaunchAttribute *attrs, unsigned n)
{
    walk *w = ctx;
    gr_kattr_at at = w->at;
    /* A node inlined from a child graph: its plan index is the one the
     * build left in its scratch. */
    if (node != w->node)
        at.pindex = (uint32_t)(scratch >> 32);
    w->visit(w->ctx, at, attrs, n);
}

static void node_attrs(walk *w, const void *node, uint32_t pindex)
{
    w->node = node;
    w->at.pindex = pindex;
    gr__kattrs_hook(node, found, w);
}

bool gr__plan_each_body(const gr_plan *p, uint32_t *next,
                        bool (*visit)(void *ctx, uint32_t cond, uint32_t b, const gr_cond_plan *c), void *ctx)
{
    for (uint32_t i = 0; i + 1 < p->nnodes; i++) {
        if (p->nodes[i].type != grGraphNodeTypeConditional)
            continue;
        const gr_cond_plan *c = p->nodes[i].u.cond;
        uint32_t cond = ++*next;
        for (uint32_t b = 0; b < c->nbodies; b++)
            if (visit(ctx, cond, b, c) || gr__plan_each_body(c->bodies[b], next, visit, ctx))
                return true;
    }
    return false;
}

/* The graph nodes of body b of conditional node c. */
static bool body_attrs(void *ctx, uint32_t cond, uint32_t b, const gr_cond_plan *c)
{
    walk *w = ctx;
    w->at.cond = cond;
    w->at.body = b;
    for (uint32_t k = c->first[b]; k < c->first[b + 1]; k++)
        node_attrs(w, c->nodes[k].node, c->nodes[k].pindex);
    return false;
}

void gr__plan_kattrs(const struct grGraphExec_st *e, at_visit visit, void *ctx)
{
    if (gr__kattrs_hook == NULL)
        return;
    walk w = {visit, ctx, NULL, {0, 0, 0}};
    for (uint32_t o = 0; o < e->norig; o++)
        if (e->orig[o].type == grGraphNodeTypeKernel || e->orig[o].type == grGraphNodeTypeGraph)
            node_attrs(&w, e->orig[o].node, e->orig[o].pindex);
    uint32_t next = 0;
    gr__plan_each_body(&e->plan, &next, body_attrs, &w);
}

/* ----------------------------------------------------------- edge data */

typedef void (*edge_visit)(void *ctx, gr_kattr_at at, uint32_t from, const grGraphEdgeData *d);

typedef struct ewalk {
    edge_visit visit;
    void *ctx;
    const gr_plan *p; /* the plan of the graph walked */
    gr_kattr_at at;
} ewalk;

static bool kernel_at(const gr_plan *p, uint32_t i)
{
    return i + 1 < p->nnodes && p->nodes[i].type == grGraphNodeTypeKernel;
}

/* An edge of a graph inlined in w->p (its ends' plan indices in their
 * scratch: the 'out' node of 'from' in the low half, the 'in' node of
 * 'to' in the high half). */
static void edge_found(void *ctx, uint64_t from_scratch, uint64_t to_scratch, const grGraphEdgeData *d)
{
    ewalk *w = ctx;
    uint32_t from = (uint32_t)from_scratch, to = (uint32_t)(to_scratch >> 32);
    if (!kernel_at(w->p, from) || !kernel_at(w->p, to))
        return;
    gr_kattr_at at = w->at;
    at.pindex = to;
    w->visit(w->ctx, at, from, d);
}

/* The edges of body b of conditional node c (through any of its graph
 * nodes: the hook walks the graph that node is in). */
static bool body_edges(void *ctx, uint32_t cond, uint32_t b, const gr_cond_plan *c)
{
    ewalk *w = ctx;
    if (c->first[b] < c->first[b + 1]) {
        w->p = c->bodies[b];
        w->at.cond = cond;
        w->at.body = b;
        gr__edges_hook(c->nodes[c->first[b]].node, false, edge_found, w);
    }
    return false;
}

void gr__plan_edges(const struct grGraphExec_st *e, edge_visit visit, void *ctx)
{
    if (gr__edges_hook == NULL)
        return;
    const gr_plan *p = &e->plan;
    /* The top level's, from the executable's notes: its nodes' scratch
     * may serve other walks after the build (graph memory's). */
    for (uint32_t k = 0; k < e->norig_notes; k++) {
        const gr_orig_note *n = &e->orig_notes[k];
        uint32_t from = e->orig[e->orig_deps[e->orig[n->to].dep_begin + n->dep]].pindex;
        uint32_t to = e->orig[n->to].pindex;
        if (kernel_at(p, from) && kernel_at(p, to))
            visit(ctx, (gr_kattr_at){0, 0, to}, from, &n->data);
    }
    ewalk w = {visit, ctx, p, {0, 0, 0}};
    for (uint32_t o = 0; o < e->norig; o++)
        if (e->orig[o].type == grGraphNodeTypeGraph)
            gr__edges_hook(e->orig[o].node, true, edge_found, &w);
    uint32_t next = 0;
    gr__plan_each_body(p, &next, body_edges, &w);
}
