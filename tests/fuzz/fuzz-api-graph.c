/*
 * fuzz-api-graph.c - the API fuzzer's explicit graphs: the model of a
 * graph (nodes in creation order, each with its dependency and dependent
 * lists in edge order, child graphs as nested models), every grGraph*
 * building, editing and query call, clones and child graphs (the node
 * parameters and their getters and setters are in fuzz-api-params.c).
 *
 * What the model insists on (graphs.md, graphrt.h): queries list nodes in
 * creation order, roots in creation order, edges grouped by source in
 * creation order and, per source, in the order they were added; the
 * two-call pattern NULLs the rest of a longer array; a refused edit
 * changes nothing, which fa_graph_verify checks after every refusal.
 */
#include "fuzz-api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ------------------------------------------------------------ graph models */

fa_graph *fa_graph_new(fa *f, grGraph_t h, int depth, fa_graph *parent)
{
    fa_graph *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    g->h = h;
    g->live = true;
    g->uid = ++f->uid_next;
    g->depth = depth;
    g->parent = parent;
    g->capture = -1;
    for (int i = 0; i < FA_NODES; i++)
        g->clone_map[i] = -1;
    return g;
}

void fa_graph_free_model(fa *f, fa_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].type == grGraphNodeTypeGraph)
            fa_graph_free_model(f, g->node[i].p.child);
    free(g);
}

static void set_depth(fa_graph *g, int depth, fa_graph *parent)
{
    g->depth = depth;
    g->parent = parent;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && g->node[i].type == grGraphNodeTypeGraph)
            set_depth(g->node[i].p.child, depth + 1, g);
}

/* A copy of the live nodes of src, compacted, edges in the same order:
 * what grGraphClone and a child-graph node make. Node handles are not
 * known yet. */
fa_graph *fa_graph_copy(fa *f, const fa_graph *src)
{
    fa_graph *g = fa_graph_new(f, NULL, 0, NULL);
    int map[FA_NODES];
    for (int i = 0; i < src->nn; i++) {
        map[i] = -1;
        if (!src->node[i].live)
            continue;
        map[i] = g->nn;
        fa_node *n = &g->node[g->nn++];
        *n = src->node[i];
        n->h = NULL;
        if (n->type == grGraphNodeTypeGraph)
            n->p.child = fa_graph_copy(f, src->node[i].p.child);
    }
    for (int i = 0; i < g->nn; i++) {
        fa_node *n = &g->node[i];
        for (int k = 0; k < n->ndeps; k++)
            n->deps[k] = (uint8_t)map[n->deps[k]];
        for (int k = 0; k < n->nsuccs; k++)
            n->succs[k] = (uint8_t)map[n->succs[k]];
    }
    g->nlive = g->nn;
    g->nedges = src->nedges;
    g->nmem = src->nmem;
    g->sink_clock = src->sink_clock; /* the nodes keep their sink_seq */
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].type == grGraphNodeTypeGraph)
            set_depth(g->node[i].p.child, 1, g);
    return g;
}

int fa_graph_height(const fa_graph *g)
{
    int h = 0;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && g->node[i].type == grGraphNodeTypeGraph) {
            int c = 1 + fa_graph_height(g->node[i].p.child);
            if (c > h)
                h = c;
        }
    return h;
}

void fa_graph_learn_handles(fa *f, fa_graph *g)
{
    grGraphNode_t nodes[FA_NODES + 1];
    size_t n = FA_NODES + 1;
    fa_ok(f, FA_CALL(f, grGraphGetNodes(g->h, nodes, &n)));
    if (n != (size_t)g->nlive)
        fa_fail(f, "graph %p has %zu nodes, the model %d", (void *)g->h, n, g->nlive);
    size_t k = 0;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live)
            g->node[i].h = nodes[k++];
}

/* The handle of a child graph, fetched and checked once. */
static bool child_handle(fa *f, fa_graph *parent, int ni)
{
    fa_node *n = &parent->node[ni];
    fa_graph *c = n->p.child;
    grGraph_t h = NULL;
    if (!n->h)
        return false;
    fa_ok(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n->h, &h)));
    if (c->h && c->h != h)
        fa_fail(f, "grGraphChildGraphNodeGetGraph gave %p, earlier %p", (void *)h, (void *)c->h);
    if (!h)
        fa_fail(f, "grGraphChildGraphNodeGetGraph gave NULL");
    if (!c->h) {
        c->h = h;
        fa_graph_learn_handles(f, c);
    }
    return true;
}

int fa_pick_live(fa *f, const fa_graph *g)
{
    if (g->nlive == 0)
        return -1;
    for (int tries = 0; tries < 20; tries++) {
        int i = (int)fa_rand(f, (uint32_t)g->nn);
        if (g->node[i].live)
            return i;
    }
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live)
            return i;
    return -1;
}

fa_graph *fa_pick_graph(fa *f, bool top_only, bool for_edit)
{
    (void)for_edit;
    int s = (int)fa_rand(f, FA_GRAPHS);
    fa_graph *g = f->g[s];
    if (!g || g->capture >= 0)
        return NULL;
    /* Now and then a child graph: editable like any graph but for
     * memory nodes and destruction. */
    while (!top_only && fa_pct(f, 25)) {
        int ni = fa_pick_live(f, g);
        if (ni < 0 || g->node[ni].type != grGraphNodeTypeGraph)
            break;
        if (!child_handle(f, g, ni))
            break;
        g = g->node[ni].p.child;
    }
    return g;
}

static bool reaches(const fa_graph *g, int a, int b)
{
    uint8_t seen[FA_NODES] = {0}, stack[FA_NODES];
    int top = 0;
    stack[top++] = (uint8_t)a;
    seen[a] = 1;
    while (top) {
        int x = stack[--top];
        if (x == b)
            return true;
        for (int k = 0; k < g->node[x].nsuccs; k++) {
            int y = g->node[x].succs[k];
            if (!seen[y]) {
                seen[y] = 1;
                stack[top++] = (uint8_t)y;
            }
        }
    }
    return false;
}

static void edge_add_model(fa_graph *g, int a, int b)
{
    g->node[a].succs[g->node[a].nsuccs++] = (uint8_t)b;
    g->node[b].deps[g->node[b].ndeps++] = (uint8_t)a;
    g->nedges++;
}

static void list_remove(uint8_t *v, uint8_t *n, int x)
{
    int k = 0;
    for (int i = 0; i < *n; i++)
        if (v[i] != x)
            v[k++] = v[i];
    *n = (uint8_t)k;
}

/* As graphrt (and CUDA) remove an edge: a's successors keep their order,
 * b's last dependency takes a's place; a left without successors becomes
 * a sink now. */
static void edge_remove_model(fa_graph *g, int a, int b)
{
    fa_node *nb = &g->node[b];
    list_remove(g->node[a].succs, &g->node[a].nsuccs, b);
    for (int k = 0; k < nb->ndeps; k++)
        if (nb->deps[k] == a) {
            nb->deps[k] = nb->deps[--nb->ndeps];
            break;
        }
    if (g->node[a].nsuccs == 0)
        g->node[a].sink_seq = g->sink_clock++;
    g->nedges--;
}

static bool has_edge(const fa_graph *g, int a, int b)
{
    for (int k = 0; k < g->node[a].nsuccs; k++)
        if (g->node[a].succs[k] == b)
            return true;
    return false;
}

int fa_node_add_model(fa *f, fa_graph *g, uint8_t type, const fa_params *p, const uint8_t *deps, int ndeps)
{
    (void)f;
    int i = g->nn++;
    fa_node *n = &g->node[i];
    memset(n, 0, sizeof *n);
    n->type = type;
    n->live = true;
    n->sink_seq = g->sink_clock++;
    if (p)
        n->p = *p;
    for (int k = 0; k < ndeps; k++)
        edge_add_model(g, deps[k], i);
    g->nlive++;
    if (type == grGraphNodeTypeMemAlloc || type == grGraphNodeTypeMemFree)
        g->nmem++;
    return i;
}

static void node_destroy_model(fa *f, fa_graph *g, int i)
{
    fa_node *n = &g->node[i];
    /* The dependencies in their order: those left without successors
     * become sinks in that order. */
    uint8_t deps[FA_NODES];
    int ndeps = n->ndeps;
    memcpy(deps, n->deps, (size_t)ndeps);
    for (int k = 0; k < ndeps; k++)
        edge_remove_model(g, deps[k], i);
    while (n->nsuccs)
        edge_remove_model(g, i, n->succs[0]);
    if (n->type == grGraphNodeTypeGraph) {
        fa_graph_free_model(f, n->p.child);
        n->p.child = NULL;
    }
    n->live = false;
    g->nlive--;
}

/* --------------------------------------------------------- verification */

static const char *tname(int t)
{
    static const char *const names[] = {"kernel", "memcpy", "memset", "host", "graph", "empty",
                                        "wait",   "record", "?8",     "?9",   "alloc", "free"};
    return t >= 0 && t < 12 ? names[t] : "?";
}

static void check_list(fa *f, fa_graph *g, const char *what, const grGraphNode_t *got, size_t n,
                       const grGraphNode_t *want, size_t nw)
{
    if (n != nw)
        fa_fail(f, "graph %p: %s lists %zu nodes, the model %zu", (void *)g->h, what, n, nw);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fa_fail(f, "graph %p: %s entry %zu is %p, the model says %p", (void *)g->h, what, i,
                    (void *)got[i], (void *)want[i]);
}

/* Everything the queries show of g equals the model. */
void fa_graph_verify(fa *f, fa_graph *g)
{
    grGraphNode_t got[FA_NODES * FA_NODES + 4], got2[FA_NODES * FA_NODES + 4];
    grGraphNode_t want[FA_NODES * FA_NODES], want2[FA_NODES * FA_NODES];
    size_t n, nw = 0;
    if (!g->h)
        return;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live) {
            if (!g->node[i].h)
                fa_graph_learn_handles(f, g);
            want[nw++] = g->node[i].h;
        }
    /* Count, then a longer array (the rest must come back NULL). */
    n = 12345;
    fa_ok(f, FA_CALL(f, grGraphGetNodes(g->h, NULL, &n)));
    if (n != nw)
        fa_fail(f, "graph %p: grGraphGetNodes counts %zu nodes, the model %zu", (void *)g->h, n, nw);
    n = nw + 2;
    for (size_t i = 0; i < n; i++)
        got[i] = (grGraphNode_t)(void *)f;
    fa_ok(f, FA_CALL(f, grGraphGetNodes(g->h, got, &n)));
    check_list(f, g, "grGraphGetNodes", got, n, want, nw);
    if (got[nw] != NULL || got[nw + 1] != NULL)
        fa_fail(f, "graph %p: grGraphGetNodes left the rest of a longer array non-NULL", (void *)g->h);
    if (nw > 1) {
        /* A shorter array gets a prefix. */
        n = nw - 1;
        fa_ok(f, FA_CALL(f, grGraphGetNodes(g->h, got, &n)));
        check_list(f, g, "grGraphGetNodes (short array)", got, n, want, nw - 1);
    }
    /* Roots. */
    nw = 0;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && g->node[i].ndeps == 0)
            want[nw++] = g->node[i].h;
    n = nw + 1;
    fa_ok(f, FA_CALL(f, grGraphGetRootNodes(g->h, got, &n)));
    check_list(f, g, "grGraphGetRootNodes", got, n, want, nw);
    /* Edges. */
    nw = 0;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live)
            for (int k = 0; k < g->node[i].nsuccs; k++) {
                want[nw] = g->node[i].h;
                want2[nw++] = g->node[g->node[i].succs[k]].h;
            }
    if (nw != (size_t)g->nedges)
        fa_fail(f, "model bug: graph has %d edges, lists %zu", g->nedges, nw);
    n = 0;
    fa_ok(f, FA_CALL(f, grGraphGetEdges(g->h, NULL, NULL, NULL, &n)));
    if (n != nw)
        fa_fail(f, "graph %p: grGraphGetEdges counts %zu edges, the model %zu", (void *)g->h, n, nw);
    n = nw;
    fa_ok(f, FA_CALL(f, grGraphGetEdges(g->h, got, got2, NULL, &n)));
    check_list(f, g, "grGraphGetEdges (from)", got, n, want, nw);
    check_list(f, g, "grGraphGetEdges (to)", got2, n, want2, nw);
    /* A few nodes in detail. */
    for (int r = 0; r < 2; r++) {
        int i = fa_pick_live(f, g);
        if (i < 0)
            break;
        fa_node *nd = &g->node[i];
        grGraphNodeType t = grGraphNodeTypeCount;
        fa_ok(f, FA_CALL(f, grGraphNodeGetType(nd->h, &t)));
        if ((int)t != nd->type)
            fa_fail(f, "node %p is a %s node, the model says %s", (void *)nd->h, tname((int)t),
                    tname(nd->type));
        for (int k = 0; k < nd->ndeps; k++)
            want[k] = g->node[nd->deps[k]].h;
        n = FA_NODES;
        fa_ok(f, FA_CALL(f, grGraphNodeGetDependencies(nd->h, got, NULL, &n)));
        check_list(f, g, "grGraphNodeGetDependencies", got, n, want, nd->ndeps);
        for (int k = 0; k < nd->nsuccs; k++)
            want[k] = g->node[nd->succs[k]].h;
        n = 0;
        fa_ok(f, FA_CALL(f, grGraphNodeGetDependentNodes(nd->h, NULL, NULL, &n)));
        if (n != nd->nsuccs)
            fa_fail(f, "node %p: %zu dependents counted, the model %d", (void *)nd->h, n, nd->nsuccs);
        n = FA_NODES;
        fa_ok(f, FA_CALL(f, grGraphNodeGetDependentNodes(nd->h, got, NULL, &n)));
        check_list(f, g, "grGraphNodeGetDependentNodes", got, n, want, nd->nsuccs);
        fa_check_node_params(f, nd);
    }
}

/* ---------------------------------------------------- the add operations */

static grGraphNodeType gtype(uint8_t t)
{
    return (grGraphNodeType)t;
}

grEvent_t fa_pick_event_handle(fa *f, bool waitn)
{
    for (int tries = 0; tries < 8; tries++) {
        int e = (int)fa_rand(f, FA_EVENTS);
        if (f->ev[e].live && f->ev[e].waitn == waitn)
            return f->ev[e].h;
    }
    return NULL;
}

/* The nodes a new node depends on: distinct live nodes of g. */
static int pick_deps(fa *f, fa_graph *g, uint8_t *deps)
{
    int n = (int)fa_rand(f, 4);
    int k = 0;
    for (int tries = 0; tries < 8 && k < n; tries++) {
        int i = fa_pick_live(f, g);
        if (i < 0)
            break;
        bool dup = false;
        for (int j = 0; j < k; j++)
            dup |= deps[j] == i;
        if (!dup)
            deps[k++] = (uint8_t)i;
    }
    return k;
}

static fa_graph *other_graph(fa *f, fa_graph *not_this)
{
    for (int tries = 0; tries < 6; tries++) {
        fa_graph *o = f->g[fa_rand(f, FA_GRAPHS)];
        if (o && o != not_this && o->capture < 0 && o->nlive > 0)
            return o;
    }
    return NULL;
}

static bool within(const fa_graph *g, const fa_graph *anc)
{
    for (const fa_graph *x = g; x; x = x->parent)
        if (x == anc)
            return true;
    return false;
}

static int gmem_new(fa *f, void *ptr, size_t size, fa_graph *g, int node)
{
    /* A new reservation at an address means the old one is gone. */
    for (int i = 0; i < FA_GMEM; i++)
        if (f->gm[i].used && f->gm[i].ptr == ptr)
            f->gm[i].used = false;
    for (int i = 0; i < FA_GMEM; i++)
        if (!f->gm[i].used) {
            f->gm[i] = (fa_gmem){
                .used = true, .ptr = ptr, .size = size, .g = g, .node = node, .alloc_by = -1, .exec = -1};
            return i;
        }
    return -1;
}

/* Whether a live free node of g frees ptr already. */
bool fa_graph_frees(const fa_graph *g, const void *ptr)
{
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && g->node[i].type == grGraphNodeTypeMemFree && g->node[i].p.dst.raw == ptr)
            return true;
    return false;
}

/* Allocations of graph g that a free node in g may free: its own
 * allocations not freed yet whose alloc node the deps reach. */
static bool deps_reach(const fa_graph *g, const uint8_t *deps, int nd, int target)
{
    for (int k = 0; k < nd; k++)
        if (deps[k] == target || reaches(g, target, deps[k]))
            return true;
    return false;
}

static void op_add_node(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, true);
    if (!g || g->nn >= FA_NODES)
        return;
    static const uint8_t types[] = {
        grGraphNodeTypeKernel,    grGraphNodeTypeKernel,   grGraphNodeTypeMemcpy,
        grGraphNodeTypeMemset,    grGraphNodeTypeHost,     grGraphNodeTypeEmpty,
        grGraphNodeTypeEmpty,     grGraphNodeTypeGraph,    grGraphNodeTypeEventRecord,
        grGraphNodeTypeWaitEvent, grGraphNodeTypeMemAlloc, grGraphNodeTypeMemFree};
    uint8_t type = types[fa_rand(f, sizeof types)];
    uint8_t deps[FA_NODES];
    int nd = pick_deps(f, g, deps);
    grGraphNode_t dh[FA_NODES + 2];
    for (int k = 0; k < nd; k++)
        dh[k] = g->node[deps[k]].h;
    fa_params p;
    bool bad = false, foreign_free = false;
    int want = -1;
    fa_graph *child = NULL;
    grEvent_t ev = NULL;
    grMemAllocNodeParams ap;
    grMemAccessDesc acc = {{grMemLocationTypeDevice, 0}, grMemAccessFlagsProtReadWrite};
    memset(&p, 0, sizeof p);
    memset(&ap, 0, sizeof ap);
    p.dst.blk = p.src.blk = -1;
    f->ctx_sid = -1;
    switch (type) {
    case grGraphNodeTypeKernel:
    case grGraphNodeTypeMemcpy:
    case grGraphNodeTypeMemset:
    case grGraphNodeTypeHost:
        fa_params_fill(f, g, type, &p, &bad, &want);
        break;
    case grGraphNodeTypeGraph:
        child = other_graph(f, NULL);
        if (!child)
            return;
        if (child == g || within(g, child)) {
            bad = true;
            want = grErrorInvalidValue;
        } else if (child->nmem) {
            bad = true;
            want = grErrorNotSupported;
        } else if (g->depth + 1 + fa_graph_height(child) > FA_DEPTH) {
            return; /* the model's graphs nest this deep at most (deep_nesting goes further) */
        }
        if (!child->h)
            return;
        break;
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        ev = fa_pick_event_handle(f, type == grGraphNodeTypeWaitEvent);
        if (!ev || fa_pct(f, 8)) {
            ev = fa_pct(f, 50) || !f->dead_event || !fa_allowed(f, FZ_ALLOW_DESTROYED) ? NULL : f->dead_event;
            bad = true;
            want = grErrorInvalidResourceHandle;
        }
        p.eh = ev;
        break;
    case grGraphNodeTypeMemAlloc:
        if (f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS) && f->thread != 0)
            return;
        ap.poolProps.allocType = grMemAllocationTypePinned;
        ap.poolProps.location.type = grMemLocationTypeDevice;
        ap.bytesize = 1 + fa_rand(f, 8192);
        if (fa_pct(f, 50)) {
            ap.accessDescs = &acc;
            ap.accessDescCount = 1;
        }
        if (g->depth > 0) {
            bad = true;
            want = grErrorNotSupported;
        } else if (fa_pct(f, 10)) {
            bad = true;
            switch (fa_rand(f, 4)) {
            case 0:
                ap.bytesize = 0;
                want = -1;
                break;
            case 1:
                ap.poolProps.allocType = grMemAllocationTypeInvalid;
                want = grErrorInvalidValue;
                break;
            case 2:
                ap.poolProps.location.id = FA_NO_DEVICE;
                want = grErrorInvalidValue;
                break;
            default:
                acc.location.id = 3;
                ap.accessDescs = &acc;
                ap.accessDescCount = 1;
                want = -1;
                break;
            }
        }
        break;
    case grGraphNodeTypeMemFree: {
        if (f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS) && f->thread != 0)
            return;
        /* Free one of g's allocations, ordered after its alloc node. */
        int gi = (int)fa_rand(f, FA_GMEM);
        fa_gmem *m = &f->gm[gi];
        if (g->depth > 0) {
            bad = true;
            want = grErrorNotSupported;
            p.dst.raw = m->used ? m->ptr : f->plain;
        } else if (!m->used || m->g != g || !deps_reach(g, deps, nd, m->node) || fa_graph_frees(g, m->ptr) ||
                   m->freed_elsewhere) {
            if (m->used && m->g != g && !fa_graph_frees(g, m->ptr)) {
                /* Another graph's allocation: allowed when that graph
                 * does not free it itself, which the model does not
                 * always know (see capture-rollback-free): either. */
                p.dst.raw = m->ptr;
                p.gm = gi;
                foreign_free = true;
                break;
            }
            bad = true;
            want = grErrorInvalidValue;
            p.dst.raw = m->used ? m->ptr : f->plain + 8;
            snprintf(f->why, sizeof f->why,
                     "free of gm %d (%s, own graph %d, freed in graph %d, freed elsewhere %d, reach %d)", gi,
                     m->used ? "used" : "unused", m->g == g, m->freed_in_graph, m->freed_elsewhere,
                     m->used && deps_reach(g, deps, nd, m->node));
        } else {
            p.dst.raw = m->ptr;
            p.gm = gi;
        }
        break;
    }
    default:
        break;
    }
    /* Defects of the call itself, when the parameters are fine. */
    grGraphNode_t out = NULL, *pout = &out;
    grGraph_t gh = g->h;
    const grGraphNode_t *pd = nd ? dh : NULL;
    size_t npd = (size_t)nd;
    int defect = -1;
    if (!bad && fa_pct(f, 10)) {
        bad = true;
        want = grErrorInvalidValue;
        switch (defect = (int)fa_rand(f, 7)) {
        case 0:
            pout = NULL;
            break;
        case 1:
            gh = NULL;
            break;
        case 2:
            pd = NULL;
            npd = 1 + fa_rand(f, 3);
            break;
        case 3:
            dh[nd] = NULL;
            pd = dh;
            npd = (size_t)nd + 1;
            break;
        case 4:
            if (!nd)
                return;
            dh[nd] = dh[fa_rand(f, (uint32_t)nd)]; /* a duplicate */
            pd = dh;
            npd = (size_t)nd + 1;
            break;
        case 5: {
            fa_graph *o = other_graph(f, g);
            int oi = o ? fa_pick_live(f, o) : -1;
            if (oi < 0 || !o->node[oi].h)
                return;
            dh[nd] = o->node[oi].h; /* a node of another graph */
            pd = dh;
            npd = (size_t)nd + 1;
            break;
        }
        default:
            if (!f->dead_node || f->dead_node_g != g)
                return;
            dh[nd] = f->dead_node;
            pd = dh;
            npd = (size_t)nd + 1;
            break;
        }
    }
    bool generic = fa_pct(f, 30);
    grError_t err = grSuccess;
    fa_kargv ka;
    grGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = gtype(type);
    switch (type) {
    case grGraphNodeTypeKernel: {
        void **args = fa_kargs(f, &p, &ka, &bad, &want);
        grKernelNodeParams kp = {p.kh, p.grid, p.block, p.shmem, args, NULL};
        if (!bad && fa_pct(f, 3)) {
            kp.extra = (void **)&ka;
            bad = true;
            want = grErrorInvalidValue;
        }
        if (generic) {
            gp.kernel = kp;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else {
            err = FA_CALL(f, grGraphAddKernelNode(pout, gh, pd, npd, &kp));
        }
        break;
    }
    case grGraphNodeTypeMemcpy:
        if (generic) {
            gp.memcpy.copyParams.dstPtr.ptr = p.dst.raw;
            gp.memcpy.copyParams.srcPtr.ptr = p.src.raw;
            gp.memcpy.copyParams.extent = (grExtent){p.count, 1, 1};
            gp.memcpy.copyParams.kind = p.ckind;
            if (!bad && p.count == 0) { /* an empty copy node: CUDA 13 refuses it */
                bad = true;
                want = grErrorInvalidValue;
            } else if (!bad && fa_pct(f, 10)) {
                bad = true;
                if (fa_pct(f, 50)) {
                    /* Two rows whose pitch (0) is below their width. */
                    gp.memcpy.copyParams.extent.height = 2;
                    want = grErrorInvalidPitchValue;
                } else {
                    gp.memcpy.flags = 1;
                    want = grErrorInvalidValue;
                }
            }
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else {
            err =
                FA_CALL(f, grGraphAddMemcpyNode1D(pout, gh, pd, npd, p.dst.raw, p.src.raw, p.count, p.ckind));
        }
        break;
    case grGraphNodeTypeMemset: {
        grMemsetParams mp = {p.dst.raw, p.pitch, p.value, p.esize, p.width, p.height};
        if (generic) {
            gp.memset = mp;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else if (!bad && fa_pct(f, 3)) {
            bad = true;
            want = grErrorInvalidValue;
            err = FA_CALL(f, grGraphAddMemsetNode(pout, gh, pd, npd, NULL));
        } else {
            err = FA_CALL(f, grGraphAddMemsetNode(pout, gh, pd, npd, &mp));
        }
        break;
    }
    case grGraphNodeTypeHost: {
        grHostNodeParams hp = {bad ? NULL : fa_pct(f, 50) ? fa_host_count : fa_host_other, &f->hc[p.hc]};
        if (generic) {
            gp.host = hp;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else {
            err = FA_CALL(f, grGraphAddHostNode(pout, gh, pd, npd, &hp));
        }
        break;
    }
    case grGraphNodeTypeEmpty:
        if (generic)
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        else
            err = FA_CALL(f, grGraphAddEmptyNode(pout, gh, pd, npd));
        break;
    case grGraphNodeTypeGraph:
        if (generic) {
            gp.graph.graph = child->h;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else {
            err = FA_CALL(f, grGraphAddChildGraphNode(pout, gh, pd, npd, child->h));
        }
        break;
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        if (generic) {
            if (type == grGraphNodeTypeEventRecord)
                gp.eventRecord.event = ev;
            else
                gp.eventWait.event = ev;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else if (type == grGraphNodeTypeEventRecord) {
            err = FA_CALL(f, grGraphAddEventRecordNode(pout, gh, pd, npd, ev));
        } else {
            err = FA_CALL(f, grGraphAddEventWaitNode(pout, gh, pd, npd, ev));
        }
        break;
    case grGraphNodeTypeMemAlloc:
        if (generic) {
            gp.alloc = ap;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
            ap.dptr = gp.alloc.dptr;
        } else {
            err = FA_CALL(f, grGraphAddMemAllocNode(pout, gh, pd, npd, &ap));
        }
        break;
    case grGraphNodeTypeMemFree:
        if (generic) {
            gp.free.dptr = p.dst.raw;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, NULL, npd, &gp));
        } else {
            err = FA_CALL(f, grGraphAddMemFreeNode(pout, gh, pd, npd, p.dst.raw));
        }
        break;
    default:
        break;
    }
    if (type == grGraphNodeTypeMemFree && !bad &&
        (foreign_free || (!f->gm[p.gm].g && f->gm[p.gm].exec < 0))) {
        /* A destroyed executable may or may not still hold the allocation. */
        if (!fa_either(f, err))
            return;
        bad = false;
    } else if (bad) {
        if (!f->why[0])
            snprintf(f->why, sizeof f->why, "a %s node with %d dependencies, call defect %d, generic %d",
                     tname(type), nd, defect, generic);
        fa_bad(f, err, want);
        fa_graph_verify(f, g);
        return;
    }
    f->why[0] = '\0';
    if (err != grSuccess || type != grGraphNodeTypeMemFree)
        fa_ok(f, err);
    if (!out)
        fa_fail(f, "a successful add left the node NULL");
    int ni;
    switch (type) {
    case grGraphNodeTypeGraph:
        p.child = fa_graph_copy(f, child);
        ni = fa_node_add_model(f, g, type, &p, deps, nd);
        set_depth(p.child, g->depth + 1, g);
        break;
    case grGraphNodeTypeMemAlloc:
        if (!ap.dptr)
            fa_fail(f, "an allocation node got no address");
        ni = fa_node_add_model(f, g, type, &p, deps, nd);
        g->node[ni].p.gm = gmem_new(f, ap.dptr, ap.bytesize, g, ni);
        g->node[ni].p.dst.raw = ap.dptr;
        g->node[ni].p.count = (uint32_t)ap.bytesize;
        break;
    case grGraphNodeTypeMemFree:
        ni = fa_node_add_model(f, g, type, &p, deps, nd);
        if (f->gm[p.gm].g == g)
            f->gm[p.gm].freed_in_graph = true;
        else
            f->gm[p.gm].freed_elsewhere = true;
        break;
    default:
        ni = fa_node_add_model(f, g, type, &p, deps, nd);
        break;
    }
    g->node[ni].h = out;
    if (fa_pct(f, 10))
        fa_graph_verify(f, g);
}

/* ------------------------------------------------------------------ edges */

static bool mem_graph(const fa_graph *g)
{
    return g->nmem > 0;
}

static void add_edges(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, true);
    if (!g || g->nlive < 2)
        return;
    int n = 1 + (int)fa_rand(f, 3);
    grGraphNode_t from[4], to[4];
    int fi[4], ti[4];
    bool bad = false;
    int want = grErrorInvalidValue;
    for (int k = 0; k < n; k++) {
        fi[k] = fa_pick_live(f, g);
        ti[k] = fa_pick_live(f, g);
        from[k] = g->node[fi[k]].h;
        to[k] = g->node[ti[k]].h;
    }
    /* Whether the model accepts the whole list, edge by edge as if the
     * earlier ones were added. */
    fa_graph *tmp = malloc(sizeof *tmp);
    if (!tmp)
        abort();
    memcpy(tmp, g, sizeof *tmp);
    for (int k = 0; k < n && !bad; k++) {
        if (fi[k] == ti[k] || has_edge(tmp, fi[k], ti[k]) || reaches(tmp, ti[k], fi[k]))
            bad = true;
        else
            edge_add_model(tmp, fi[k], ti[k]);
    }
    free(tmp);
    grGraph_t gh = g->h;
    if (!bad && fa_pct(f, 10)) {
        bad = true;
        switch (fa_rand(f, 4)) {
        case 0:
            gh = NULL;
            break;
        case 1:
            from[fa_rand(f, (uint32_t)n)] = NULL;
            break;
        case 2: {
            fa_graph *o = other_graph(f, g);
            int oi = o ? fa_pick_live(f, o) : -1;
            if (oi < 0 || !o->node[oi].h)
                return;
            to[fa_rand(f, (uint32_t)n)] = o->node[oi].h;
            break;
        }
        default:
            if (!f->dead_node || f->dead_node_g != g)
                return;
            from[fa_rand(f, (uint32_t)n)] = f->dead_node;
            break;
        }
    }
    grError_t err;
    if (!bad && fa_pct(f, 3))
        err = FA_CALL(f, grGraphAddDependencies(g->h, from, to, NULL, 0)); /* nothing to add */
    else if (!bad && fa_pct(f, 3)) {
        bad = true;
        err = FA_CALL(f, grGraphAddDependencies(g->h, NULL, to, NULL, (size_t)n));
    } else {
        err = FA_CALL(f, grGraphAddDependencies(gh, from, to, NULL, (size_t)n));
        if (!bad)
            for (int k = 0; k < n; k++)
                edge_add_model(g, fi[k], ti[k]);
    }
    if (bad) {
        fa_bad(f, err, want);
        fa_graph_verify(f, g);
        return;
    }
    fa_ok(f, err);
    if (fa_pct(f, 10))
        fa_graph_verify(f, g);
}

static void remove_edges(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, true);
    if (!g || g->nedges == 0)
        return;
    int n = 1 + (int)fa_rand(f, 2);
    grGraphNode_t from[3], to[3];
    int fi[3], ti[3];
    int k = 0;
    for (int tries = 0; tries < 10 && k < n; tries++) {
        int a = fa_pick_live(f, g);
        if (a < 0 || g->node[a].nsuccs == 0)
            continue;
        int b = g->node[a].succs[fa_rand(f, g->node[a].nsuccs)];
        bool dup = false;
        for (int j = 0; j < k; j++)
            dup |= fi[j] == a && ti[j] == b;
        if (dup)
            continue;
        fi[k] = a;
        ti[k] = b;
        from[k] = g->node[a].h;
        to[k] = g->node[b].h;
        k++;
    }
    if (!k)
        return;
    bool bad = false;
    int want = grErrorInvalidValue;
    if (mem_graph(g)) {
        bad = true;
        want = grErrorNotSupported;
    } else if (fa_pct(f, 15)) {
        /* An edge that does not exist refuses the whole call. */
        int a = fa_pick_live(f, g), b = fa_pick_live(f, g);
        if (has_edge(g, a, b))
            return;
        from[k] = g->node[a].h;
        to[k] = g->node[b].h;
        k++;
        bad = true;
    } else if (fa_pct(f, 5) && k >= 1) {
        /* The same edge twice in one call. */
        from[k] = from[0];
        to[k] = to[0];
        k++;
        bad = true;
    }
    grError_t err = FA_CALL(f, grGraphRemoveDependencies(g->h, from, to, NULL, (size_t)k));
    if (bad) {
        fa_bad(f, err, want);
        fa_graph_verify(f, g);
        return;
    }
    fa_ok(f, err);
    for (int j = 0; j < k; j++)
        edge_remove_model(g, fi[j], ti[j]);
    if (fa_pct(f, 10))
        fa_graph_verify(f, g);
}

static void destroy_node(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, true);
    int i = g ? fa_pick_live(f, g) : -1;
    if (i < 0) {
        if (fa_pct(f, 30))
            fa_bad(f, FA_CALL(f, grGraphDestroyNode(NULL)), grErrorInvalidValue);
        return;
    }
    if (mem_graph(g)) {
        fa_bad(f, FA_CALL(f, grGraphDestroyNode(g->node[i].h)), grErrorNotSupported);
        fa_graph_verify(f, g);
        return;
    }
    fa_ok(f, FA_CALL(f, grGraphDestroyNode(g->node[i].h)));
    f->dead_node = g->node[i].h;
    f->dead_node_g = g;
    node_destroy_model(f, g, i);
    if (fa_pct(f, 30))
        fa_bad(f, FA_CALL(f, grGraphDestroyNode(f->dead_node)), grErrorInvalidValue);
    if (fa_pct(f, 20))
        fa_graph_verify(f, g);
}

/* --------------------------------------------------- create, destroy, clone */

int fa_free_graph_slot(fa *f)
{
    for (int i = 0; i < FA_GRAPHS; i++)
        if (!f->g[i])
            return i;
    return -1;
}

static void graph_create(fa *f)
{
    int s = fa_free_graph_slot(f);
    grGraph_t h = NULL;
    if (s < 0 || fa_pct(f, 10)) {
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grGraphCreate(NULL, 0)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphCreate(&h, 1u + fa_rand(f, 100))), grErrorInvalidValue);
        return;
    }
    fa_ok(f, FA_CALL(f, grGraphCreate(&h, 0)));
    f->g[s] = fa_graph_new(f, h, 0, NULL);
}

static void graph_destroy_slot(fa *f, int s)
{
    fa_graph *g = f->g[s];
    fa_ok(f, FA_CALL(f, grGraphDestroy(g->h)));
    if (f->dead_node_g && within(f->dead_node_g, g)) {
        f->dead_node = NULL;
        f->dead_node_g = NULL;
    }
    /* Its allocations live on in its executable, if any. */
    for (int i = 0; i < FA_GMEM; i++)
        if (f->gm[i].used && f->gm[i].g == g) {
            f->gm[i].g = NULL;
            if (f->gm[i].exec < 0 && f->gm[i].alloc_by != -3)
                f->gm[i].used = false;
        }
    f->dead_graph = g->h;
    fa_graph_free_model(f, g);
    f->g[s] = NULL;
}

static void graph_destroy(fa *f)
{
    int s = (int)fa_rand(f, FA_GRAPHS);
    fa_graph *g = f->g[s];
    if (!g || g->capture >= 0) {
        switch (fa_rand(f, 3)) {
        case 0:
            fa_bad(f, FA_CALL(f, grGraphDestroy(NULL)), grErrorInvalidValue);
            break;
        case 1:
            fa_bad(f, FA_CALL(f, grGraphDestroy((grGraph_t)(void *)f->fake)), grErrorInvalidValue);
            break;
        default:
            if (f->dead_graph && fa_allowed(f, FZ_ALLOW_DESTROYED))
                fa_bad(f, FA_CALL(f, grGraphDestroy(f->dead_graph)), grErrorInvalidValue);
            break;
        }
        return;
    }
    /* A child graph cannot be destroyed. */
    int ni = fa_pick_live(f, g);
    if (ni >= 0 && g->node[ni].type == grGraphNodeTypeGraph && fa_pct(f, 50) && child_handle(f, g, ni)) {
        fa_bad(f, FA_CALL(f, grGraphDestroy(g->node[ni].p.child->h)), grErrorInvalidValue);
        fa_graph_verify(f, g->node[ni].p.child);
        return;
    }
    graph_destroy_slot(f, s);
}

static void graph_clone(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, false);
    int s = fa_free_graph_slot(f);
    grGraph_t h = NULL;
    if (!g)
        return;
    if (s < 0 || fa_pct(f, 8)) {
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grGraphClone(NULL, g->h)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphClone(&h, NULL)), grErrorInvalidValue);
        return;
    }
    if (mem_graph(g)) {
        fa_bad(f, FA_CALL(f, grGraphClone(&h, g->h)), grErrorNotSupported);
        return;
    }
    fa_ok(f, FA_CALL(f, grGraphClone(&h, g->h)));
    fa_graph *c = fa_graph_copy(f, g);
    c->h = h;
    c->clone_of = g->uid;
    c->clone_nn = g->nn;
    int k = 0;
    for (int i = 0; i < g->nn; i++)
        c->clone_map[i] = g->node[i].live ? k++ : -1;
    f->g[s] = c;
    fa_graph_learn_handles(f, c);
    if (fa_pct(f, 30))
        fa_graph_verify(f, c);
}

fa_graph *fa_graph_by_uid(fa *f, uint64_t uid)
{
    for (int i = 0; i < FA_GRAPHS; i++)
        if (f->g[i] && f->g[i]->uid == uid)
            return f->g[i];
    return NULL;
}

static void find_in_clone(fa *f)
{
    fa_graph *c = f->g[fa_rand(f, FA_GRAPHS)];
    grGraphNode_t out = NULL;
    if (!c || !c->clone_of || c->capture >= 0)
        return;
    fa_graph *o = fa_graph_by_uid(f, c->clone_of);
    if (!o || o->capture >= 0)
        return;
    int i = fa_pick_live(f, o);
    if (i < 0)
        return;
    if (fa_pct(f, 10)) {
        fa_bad(f, FA_CALL(f, grGraphNodeFindInClone(NULL, o->node[i].h, c->h)), grErrorInvalidValue);
        return;
    }
    if (fa_pct(f, 10)) {
        /* Not a clone of that graph: the original itself. */
        fa_bad(f, FA_CALL(f, grGraphNodeFindInClone(&out, o->node[i].h, o->h)), grErrorInvalidValue);
        return;
    }
    grError_t err = FA_CALL(f, grGraphNodeFindInClone(&out, o->node[i].h, c->h));
    int ci = i < c->clone_nn ? c->clone_map[i] : -1;
    if (ci < 0 || !c->node[ci].live) {
        fa_bad(f, err, grErrorInvalidValue);
        return;
    }
    fa_ok(f, err);
    if (out != c->node[ci].h)
        fa_fail(f, "grGraphNodeFindInClone gave %p, the clone's copy is %p", (void *)out,
                (void *)c->node[ci].h);
}

static void dot_print(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, false);
    char path[128];
    if (!g)
        return;
    snprintf(path, sizeof path, "/tmp/fuzz-api-%d-%u.dot", (int)getpid(), f->thread);
    switch (fa_rand(f, 4)) {
    case 0:
        fa_bad(f, FA_CALL(f, grGraphDebugDotPrint(g->h, NULL, 0)), grErrorInvalidValue);
        break;
    case 1:
        fa_bad(f, FA_CALL(f, grGraphDebugDotPrint(g->h, "/nonexistent-dir/for/sure/g.dot", 0)), -1);
        break;
    default:
        fa_ok(f,
              FA_CALL(f, grGraphDebugDotPrint(g->h, path, fa_pct(f, 50) ? grGraphDebugDotFlagsVerbose : 0)));
        unlink(path);
        break;
    }
}

/* The number of nodes on the longest path of g's model ending at node i
 * (memo[i] 0: not yet known). */
static int model_depth(const fa_graph *g, int i, int *memo)
{
    if (memo[i])
        return memo[i];
    int best = 0;
    for (int k = 0; k < g->node[i].ndeps; k++) {
        int d = model_depth(g, g->node[i].deps[k], memo);
        if (d > best)
            best = d;
    }
    return memo[i] = best + 1;
}

/* True if b is reachable from a without the edge a -> b. */
static bool reaches_around(const fa_graph *g, int a, int b)
{
    for (int k = 0; k < g->node[a].nsuccs; k++) {
        int s = g->node[a].succs[k];
        if (s != b && reaches(g, s, b))
            return true;
    }
    return false;
}

/* grGraphAnalyze of the first graph whose handle the model knows, checked
 * against the model: counts, levels and depth, and (for a graph with no
 * captured node, whose findings follow the shape alone) every redundant
 * edge. Draws no random number, so saved seeds replay as before. */
static void analyze_check(fa *f)
{
    fa_graph *g = NULL;
    for (int s = 0; s < FA_GRAPHS && !g; s++)
        if (f->g[s] && f->g[s]->live && f->g[s]->h && f->g[s]->capture < 0)
            g = f->g[s];
    if (!g)
        return;
    grGraphAnalysis r;
    fa_bad(f, FA_CALL(f, grGraphAnalyze(g->h, &r, 2)), grErrorInvalidValue);
    fa_ok(f, FA_CALL(f, grGraphAnalyze(g->h, &r, 0)));
    g->scratch_used = true;
    int memo[FA_NODES] = {0}, roots = 0, sinks = 0, depth = 0;
    size_t widths = 0, redundant = 0;
    for (int i = 0; i < g->nn; i++) {
        if (!g->node[i].live)
            continue;
        roots += g->node[i].ndeps == 0;
        sinks += g->node[i].nsuccs == 0;
        int d = model_depth(g, i, memo);
        depth = d > depth ? d : depth;
        for (int k = 0; k < g->node[i].nsuccs; k++)
            redundant += reaches_around(g, i, g->node[i].succs[k]);
    }
    for (size_t l = 0; l < r.numLevels; l++)
        widths += r.levelWidths[l];
    if (r.numNodes != (size_t)g->nlive || r.numEdges != (size_t)g->nedges || r.numRoots != (size_t)roots ||
        r.numSinks != (size_t)sinks || r.depth != (size_t)depth || r.numCriticalPath != (size_t)depth ||
        widths != (size_t)g->nlive)
        fa_fail(
            f,
            "grGraphAnalyze: %zu nodes, %zu edges, %zu roots, %zu sinks, depth %zu, path %zu, widths %zu; "
            "the model has %d, %d, %d, %d, %d",
            r.numNodes, r.numEdges, r.numRoots, r.numSinks, r.depth, r.numCriticalPath, widths, g->nlive,
            g->nedges, roots, sinks, depth);
    if (!r.fromCapture && r.numRedundantEdges != redundant)
        fa_fail(f, "grGraphAnalyze: %zu redundant edges, the model has %zu", r.numRedundantEdges, redundant);
    fa_ok(f, FA_CALL(f, grGraphAnalysisDestroy(&r)));
}

/* Calls on nodes with bad handles. */
static void node_misuse(fa *f)
{
    grGraphNodeType t;
    size_t n = 0;
    grGraphNode_t out;
    switch (fa_rand(f, 5)) {
    case 0:
        fa_bad(f, FA_CALL(f, grGraphNodeGetType(NULL, &t)), grErrorInvalidValue);
        break;
    case 1:
        if (f->dead_node)
            fa_bad(f, FA_CALL(f, grGraphNodeGetDependencies(f->dead_node, NULL, NULL, &n)),
                   grErrorInvalidValue);
        break;
    case 2: {
        fa_graph *g = fa_pick_graph(f, false, false);
        int i = g ? fa_pick_live(f, g) : -1;
        if (i >= 0)
            fa_bad(f, FA_CALL(f, grGraphNodeGetDependentNodes(g->node[i].h, NULL, NULL, NULL)),
                   grErrorInvalidValue);
        break;
    }
    case 3:
        /* A graph where a node belongs, and the reverse. */
        if (f->g[0] && f->g[0]->capture < 0)
            fa_bad(f, FA_CALL(f, grGraphNodeGetType((grGraphNode_t)(void *)f->g[0]->h, &t)),
                   grErrorInvalidValue);
        break;
    default: {
        fa_graph *g = fa_pick_graph(f, false, false);
        int i = g ? fa_pick_live(f, g) : -1;
        if (i >= 0) {
            fa_bad(f, FA_CALL(f, grGraphGetNodes((grGraph_t)(void *)g->node[i].h, NULL, &n)),
                   grErrorInvalidValue);
            fa_bad(f, FA_CALL(f, grGraphAddEmptyNode(&out, (grGraph_t)(void *)g->node[i].h, NULL, 0)),
                   grErrorInvalidValue);
        }
        if (f->dead_graph && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grGraphGetNodes(f->dead_graph, NULL, &n)), grErrorInvalidValue);
        break;
    }
    }
}

/* deep-nesting: a chain of child graphs tens of thousands deep, built in
 * place (each level adds a child-graph node to the graph embedded one
 * level up, so a level costs one clone of an empty graph), then cloned,
 * instantiated (refused past 64 levels), launched and destroyed. Nothing
 * of the model takes part. */
static void deep_nesting(fa *f)
{
    grGraph_t top = NULL, empty = NULL, g;
    grGraphNode_t n;
    /* Nests up to FA_MAX_NEST levels are accepted (as many as
     * instantiation takes); the level past it is refused at add time,
     * and so is embedding a graph whose nest would grow past it. Before
     * that bound a few thousand levels overflowed the stack in clone. */
    int depth = 1 + (int)fa_rand(f, FA_MAX_NEST + 8);
    fa_ok(f, FA_CALL(f, grGraphCreate(&top, 0)));
    fa_ok(f, FA_CALL(f, grGraphCreate(&empty, 0)));
    g = top;
    for (int d = 0; d < depth; d++) {
        grError_t e = FA_CALL(f, grGraphAddChildGraphNode(&n, g, NULL, 0, empty));
        if (d >= FA_MAX_NEST) {
            fa_bad(f, e, grErrorInvalidValue);
            break;
        }
        fa_ok(f, e);
        fa_ok(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n, &g)));
        atomic_fetch_add_explicit(&f->c->progress, 1, memory_order_relaxed);
    }
    if (depth > 1) {
        /* A deep nest embedded one level further down is refused too. */
        grGraph_t outer;
        fa_ok(f, FA_CALL(f, grGraphCreate(&outer, 0)));
        grError_t e = FA_CALL(f, grGraphAddChildGraphNode(&n, outer, NULL, 0, top));
        if (depth >= FA_MAX_NEST)
            fa_bad(f, e, grErrorInvalidValue);
        else
            fa_ok(f, e);
        fa_ok(f, FA_CALL(f, grGraphDestroy(outer)));
    }
    fa_ok(f, FA_CALL(f, grGraphAddEmptyNode(&n, g, NULL, 0)));
    grGraphExec_t x;
    grGraph_t c;
    fa_ok(f, FA_CALL(f, grGraphClone(&c, top)));
    /* Instantiation may refuse the depth (more than 64 is refused with a
     * detail); it must not crash. */
    if (fa_either(f, FA_CALL(f, grGraphInstantiate(&x, top, 0)))) {
        /* Replayed on this thread's stream unless it captures or may not
         * be synchronised now. */
        if (fa_capture_of(f, FA_SID_PT) < 0 && !fa_unsafe(f, FU_STREAM_SYNC, FA_SID_PT, -1, false)) {
            fa_ok(f, FA_CALL(f, grGraphLaunch(x, grStreamPerThread)));
            fa_ok(f, FA_CALL(f, grStreamSynchronize(grStreamPerThread)));
            fa_synced_stream(f, FA_SID_PT);
        }
        fa_ok(f, FA_CALL(f, grGraphExecDestroy(x)));
    }
    fa_ok(f, FA_CALL(f, grGraphDestroy(c)));
    fa_ok(f, FA_CALL(f, grGraphDestroy(top)));
    fa_ok(f, FA_CALL(f, grGraphDestroy(empty)));
    /* Up to a hundred and thirty graphs died here (every level, twice):
     * the destroyed graph kept earlier may have been reused since. */
    f->dead_graph = NULL;
}

void fa_graph_step(fa *f)
{
    uint32_t k = fa_rand(f, 100);
    if (k < 8)
        graph_create(f);
    else if (k < 12)
        graph_destroy(f);
    else if (k < 45)
        op_add_node(f);
    else if (k < 55)
        add_edges(f);
    else if (k < 60)
        remove_edges(f);
    else if (k < 64)
        destroy_node(f);
    else if (k < 77)
        fa_params_step(f);
    else if (k < 80)
        graph_clone(f);
    else if (k < 83)
        find_in_clone(f);
    else if (k < 93) {
        fa_graph *g = fa_pick_graph(f, false, false);
        if (g)
            fa_graph_verify(f, g);
    } else if (k < 97)
        node_misuse(f);
    else if (k < 98 && fa_pct(f, 10))
        dot_print(f);
    else if (k == 98)
        analyze_check(f);
    else if (k == 99 && fa_allowed(f, FZ_ALLOW_DEEP_NESTING) && fa_pct(f, 2))
        deep_nesting(f);
}

bool fa_graph_refs_live(fa *f, const fa_graph *g)
{
    for (int i = 0; i < g->nn; i++) {
        const fa_node *n = &g->node[i];
        if (!n->live)
            continue;
        switch (n->type) {
        case grGraphNodeTypeKernel:
            if (fa_kernel_nparams[n->p.kk] && !fa_ref_live(f, &n->p.dst))
                return false;
            if (n->p.kk == FK_XFORM && !fa_ref_live(f, &n->p.src))
                return false;
            break;
        case grGraphNodeTypeMemcpy:
            if (n->p.count && (!fa_ref_live(f, &n->p.dst) || !fa_ref_live(f, &n->p.src)))
                return false;
            break;
        case grGraphNodeTypeMemset:
            if (n->p.width && !fa_ref_live(f, &n->p.dst))
                return false;
            break;
        case grGraphNodeTypeGraph:
            if (!fa_graph_refs_live(f, n->p.child))
                return false;
            break;
        default:
            break;
        }
    }
    return true;
}

void fa_graph_teardown(fa *f)
{
    for (int s = 0; s < FA_GRAPHS; s++)
        if (f->g[s]) {
            if (f->g[s]->capture >= 0)
                continue;
            graph_destroy_slot(f, s);
        }
    for (int s = 0; s < FA_GRAPHS; s++)
        if (f->g[s]) {
            fa_graph_free_model(f, f->g[s]);
            f->g[s] = NULL;
        }
}
