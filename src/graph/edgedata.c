/*
 * edgedata.c - the data of non-default edges (grGraphEdgeData).
 *
 * Almost every edge is a default one (a full dependency, data all zero),
 * so edges stay bare pointers in the nodes' arrays and the few others are
 * noted in a side table of their graph: 'notes', searched linearly. The
 * table only grows with programmatic edges, which join kernel nodes, so
 * it stays short; graphs without them never allocate it.
 *
 * Invariant: every note names an existing edge of its graph whose data is
 * not the default, and no edge has two notes.
 */
#include "graph.h"
#include "../backend/plan.h"

grError_t gr__edge_data_check(const char *call, const struct grGraphNode_st *from, grGraphNodeType to_type,
                              const grGraphEdgeData *d, const char *arg, size_t i)
{
    for (size_t k = 0; k < sizeof d->reserved; k++)
        if (d->reserved[k] != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: %s[%zu].reserved[%zu] is %u; the reserved bytes must be 0", call, arg, i, k,
                            d->reserved[k]);
    if (d->to_port != 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s[%zu].to_port is %u; no node type defines an incoming port, so it must be 0",
                        call, arg, i, d->to_port);
    if (d->type > grGraphDependencyTypeProgrammatic)
        return gr__fail(grErrorInvalidValue, "%s: %s[%zu].type is %u, not a grGraphDependencyType", call, arg,
                        i, d->type);
    if (d->from_port > grGraphKernelNodePortLaunchCompletion)
        return gr__fail(grErrorInvalidValue, "%s: %s[%zu].from_port is %u, not a grGraphKernelNodePort", call,
                        arg, i, d->from_port);
    if (gr__edge_data_is_default(d))
        return grSuccess;
    if (from->type != grGraphNodeTypeKernel)
        return gr__fail(
            grErrorInvalidValue,
            "%s: %s[%zu] is non-default edge data (type %u, from_port %u) on an edge from %s; only "
            "kernel nodes have ports and programmatic edges",
            call, arg, i, d->type, d->from_port, gr__node_label(from));
    if (d->type == grGraphDependencyTypeProgrammatic) {
        if (to_type != grGraphNodeTypeKernel)
            return gr__fail(grErrorInvalidValue,
                            "%s: %s[%zu] is a programmatic edge from %s to a %s node; a programmatic edge "
                            "joins two kernel nodes",
                            call, arg, i, gr__node_label(from), gr__node_type_name(to_type));
        if (d->from_port == grGraphKernelNodePortDefault)
            return gr__fail(grErrorInvalidValue,
                            "%s: %s[%zu] is a programmatic edge with from_port 0; use "
                            "grGraphKernelNodePortProgrammatic or grGraphKernelNodePortLaunchCompletion",
                            call, arg, i);
    } else if (d->from_port == grGraphKernelNodePortProgrammatic) {
        return gr__fail(grErrorInvalidValue,
                        "%s: %s[%zu] has from_port grGraphKernelNodePortProgrammatic on a default edge; that "
                        "port needs type grGraphDependencyTypeProgrammatic",
                        call, arg, i);
    }
    return grSuccess;
}

bool gr__edge_notes_reserve(grGraph_t g, size_t more)
{
    size_t need, cap;
    if (gr__add_overflow(g->nnotes, more, &need))
        return false;
    if (need <= g->capnotes)
        return true;
    cap = g->capnotes ? g->capnotes : 4;
    while (cap < need)
        cap *= 2;
    gr_edge_note *p = gr__realloc(g->notes, cap * sizeof *p);
    if (p == NULL)
        return false;
    g->notes = p;
    g->capnotes = cap;
    return true;
}

void gr__edge_note_add(grGraph_t g, struct grGraphNode_st *from, struct grGraphNode_st *to,
                       const grGraphEdgeData *d)
{
    if (gr__edge_data_is_default(d))
        return;
    gr_assert(g->nnotes < g->capnotes);
    g->notes[g->nnotes++] = (gr_edge_note){from, to, *d};
}

grGraphEdgeData gr__edge_data_of(const struct grGraph_st *g, const struct grGraphNode_st *from,
                                 const struct grGraphNode_st *to)
{
    for (size_t i = 0; i < g->nnotes; i++)
        if (g->notes[i].from == from && g->notes[i].to == to)
            return g->notes[i].data;
    return (grGraphEdgeData){0};
}

void gr__edge_note_drop(grGraph_t g, const struct grGraphNode_st *from, const struct grGraphNode_st *to)
{
    for (size_t i = 0; i < g->nnotes; i++)
        if (g->notes[i].from == from && g->notes[i].to == to) {
            memmove(g->notes + i, g->notes + i + 1, (g->nnotes - i - 1) * sizeof *g->notes);
            g->nnotes--;
            return;
        }
}

void gr__edge_notes_drop_node(grGraph_t g, const struct grGraphNode_st *n)
{
    size_t w = 0;
    for (size_t i = 0; i < g->nnotes; i++)
        if (g->notes[i].from != n && g->notes[i].to != n)
            g->notes[w++] = g->notes[i];
    g->nnotes = w;
}

bool gr__node_has_edge_notes(const struct grGraph_st *g, const struct grGraphNode_st *n)
{
    for (size_t i = 0; i < g->nnotes; i++)
        if (g->notes[i].from == n || g->notes[i].to == n)
            return true;
    return false;
}

/* The graph layer's side of the edge data seam (backend/plan.h,
 * gr__edges_hook): g's notes, then its child graphs'. */
static void graph_edges(const struct grGraph_st *g, gr_edges_visit visit, void *ctx)
{
    for (size_t i = 0; i < g->nnotes; i++)
        visit(ctx, g->notes[i].from->scratch, g->notes[i].to->scratch, &g->notes[i].data);
    const struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (g, n)
        if (n->type == grGraphNodeTypeGraph)
            graph_edges(n->p.child, visit, ctx);
}

static void edges_each(const void *node, bool inside, gr_edges_visit visit, void *ctx)
{
    const struct grGraphNode_st *n = node;
    graph_edges(inside ? n->p.child : n->graph, visit, ctx);
}

/* Filled before main whenever this module is linked in: a program
 * without it notes no edge data, and a NULL hook says so. */
__attribute__((constructor)) static void register_edges_hook(void)
{
    gr__edges_hook = edges_each;
}
