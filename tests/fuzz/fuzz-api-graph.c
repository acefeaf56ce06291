/*
 * fuzz-api-graph.c - the API fuzzer's explicit graphs: the model of a
 * graph (nodes in creation order, each with its dependency and dependent
 * lists in edge order, child graphs as nested models), node parameters
 * valid and bad, every grGraph* building, editing and query call, clones
 * and child graphs.
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
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].type == grGraphNodeTypeGraph)
            set_depth(g->node[i].p.child, 1, g);
    return g;
}

static int height(const fa_graph *g)
{
    int h = 0;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && g->node[i].type == grGraphNodeTypeGraph) {
            int c = 1 + height(g->node[i].p.child);
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

static int pick_live(fa *f, const fa_graph *g)
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
        int ni = pick_live(f, g);
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

static void edge_remove_model(fa_graph *g, int a, int b)
{
    list_remove(g->node[a].succs, &g->node[a].nsuccs, b);
    list_remove(g->node[b].deps, &g->node[b].ndeps, a);
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
    while (n->ndeps)
        edge_remove_model(g, n->deps[0], i);
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

static void check_params(fa *f, fa_node *n);

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
    fa_ok(f, FA_CALL(f, grGraphGetEdges(g->h, NULL, NULL, &n)));
    if (n != nw)
        fa_fail(f, "graph %p: grGraphGetEdges counts %zu edges, the model %zu", (void *)g->h, n, nw);
    n = nw;
    fa_ok(f, FA_CALL(f, grGraphGetEdges(g->h, got, got2, &n)));
    check_list(f, g, "grGraphGetEdges (from)", got, n, want, nw);
    check_list(f, g, "grGraphGetEdges (to)", got2, n, want2, nw);
    /* A few nodes in detail. */
    for (int r = 0; r < 2; r++) {
        int i = pick_live(f, g);
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
        fa_ok(f, FA_CALL(f, grGraphNodeGetDependencies(nd->h, got, &n)));
        check_list(f, g, "grGraphNodeGetDependencies", got, n, want, nd->ndeps);
        for (int k = 0; k < nd->nsuccs; k++)
            want[k] = g->node[nd->succs[k]].h;
        n = 0;
        fa_ok(f, FA_CALL(f, grGraphNodeGetDependentNodes(nd->h, NULL, &n)));
        if (n != nd->nsuccs)
            fa_fail(f, "node %p: %zu dependents counted, the model %d", (void *)nd->h, n, nd->nsuccs);
        n = FA_NODES;
        fa_ok(f, FA_CALL(f, grGraphNodeGetDependentNodes(nd->h, got, &n)));
        check_list(f, g, "grGraphNodeGetDependentNodes", got, n, want, nd->nsuccs);
        check_params(f, nd);
    }
}

/* -------------------------------------------------------- node parameters */

static fa_kkind kernel_pick(fa *f, grKernel_t *h)
{
    for (int tries = 0; tries < 8; tries++) {
        int i = (int)fa_rand(f, FA_KERNELS);
        if (f->k[i].live) {
            *h = f->k[i].h;
            return f->k[i].kind;
        }
    }
    *h = NULL;
    return FK_NOP;
}

/* A grid and block that cover n elements. */
static void geometry(fa *f, uint32_t n, grDim3 *grid, grDim3 *block)
{
    static const unsigned bx[] = {1, 2, 8, 32, 64, 256};
    *block = GR_DIM3(bx[fa_rand(f, 6)], fa_pct(f, 20) ? 2 : 1, fa_pct(f, 10) ? 2 : 1);
    uint32_t t = block->x * block->y * block->z;
    uint32_t blocks = n ? (n + t - 1) / t : 1;
    if (blocks > 3 && fa_pct(f, 30))
        *grid = GR_DIM3((blocks + 1) / 2, 2, 1);
    else
        *grid = GR_DIM3(blocks, 1, 1);
}

void **fa_kargs(fa *f, const fa_params *p, fa_kargv *a, bool *bad, int *want)
{
    a->dptr = p->dst.raw;
    a->sptr = p->src.raw;
    a->n = p->n;
    a->v = p->v;
    memcpy(a->blob, p->blob, 64);
    if (p->kk == FK_XFORM) {
        a->argv[0] = &a->dptr;
        a->argv[1] = &a->sptr;
        a->argv[2] = &a->n;
        a->argv[3] = &a->v;
    } else if (p->kk == FK_BLOB) {
        a->argv[0] = &a->dptr;
        a->argv[1] = a->blob;
        a->argv[2] = &a->v;
    } else {
        a->argv[0] = &a->dptr;
        a->argv[1] = &a->n;
        a->argv[2] = &a->v;
    }
    int np = fa_kernel_nparams[p->kk];
    if (!np)
        return fa_pct(f, 50) ? NULL : a->argv;
    if (!*bad && bad && fa_pct(f, 3)) {
        *bad = true;
        *want = grErrorInvalidValue;
        if (fa_pct(f, 50))
            return NULL;
        a->argv[fa_rand(f, (uint32_t)np)] = NULL;
    } else if (!*bad && fa_allowed(f, FZ_ALLOW_KERNEL_PARAMS) && fa_pct(f, 2)) {
        /* The classic mistake: the values in place of their addresses. */
        *bad = true;
        *want = grErrorInvalidValue;
        a->argv[0] = a->dptr;
        a->argv[1] = (void *)(uintptr_t)(p->kk == FK_XFORM ? (uintptr_t)a->sptr : a->n);
    }
    return a->argv;
}

/* Parameters of an operation of 'type' (kernel, memcpy, memset, host) on
 * the memory the current context may use, sometimes with one defect:
 * *bad is set and *want is the error graphrt must return (-1: any). For
 * graph nodes (g != NULL) overruns are a known class. */
void fa_params_fill(fa *f, fa_graph *g, uint8_t type, fa_params *p, bool *bad, int *want)
{
    bool graph = g != NULL;
    bool inject = fa_pct(f, 12);
    memset(p, 0, sizeof *p);
    p->dst.blk = p->src.blk = -1;
    p->hc = (int)fa_rand(f, FA_HOSTC);
    switch (type) {
    case grGraphNodeTypeKernel: {
        p->kk = kernel_pick(f, &p->kh);
        if (!p->kh) {
            *bad = true;
            *want = grErrorInvalidDeviceFunction;
            p->grid = p->block = GR_DIM3(1, 1, 1);
            return;
        }
        uint32_t len = 4 * (1 + fa_rand(f, 64));
        if (p->kk == FK_BLOB)
            len = 64;
        p->dst = fa_pick_range(f, &len, 4, false);
        if (p->kk == FK_BLOB && len < 64) {
            p->dst = fa_ref_of(f, 0, 0); /* the plain block is large enough */
            len = 64;
        }
        p->n = len / 4;
        if (p->kk == FK_XFORM) {
            uint32_t l2 = len;
            p->src = fa_pick_range(f, &l2, 4, false);
            if (l2 < len) {
                p->n = l2 / 4;
                len = l2;
            }
            /* Elements run in parallel: a source overlapping the
             * destination at another offset races inside the kernel
             * (the model says unknown; TSan rightly reports it). */
            if (f->race_free && p->src.blk == p->dst.blk && p->src.off != p->dst.off &&
                p->src.off < p->dst.off + 4 * p->n && p->dst.off < p->src.off + 4 * p->n)
                p->src = p->dst;
        }
        p->v = (uint32_t)fz_next(&f->r);
        for (int i = 0; i < 64; i++)
            p->blob[i] = (uint8_t)fz_next(&f->r);
        geometry(f, p->n, &p->grid, &p->block);
        p->shmem = fa_pct(f, 20) ? fa_rand(f, 48 * 1024 + 1) : 0;
        if (p->kk == FK_NOP)
            p->n = 0;
        if (!inject)
            return;
        switch (fa_rand(f, 7)) {
        case 0:
            p->kh = NULL;
            *want = grErrorInvalidDeviceFunction;
            break;
        case 1:
            if (f->dead_kernel && fa_allowed(f, FZ_ALLOW_DESTROYED)) {
                p->kh = f->dead_kernel;
                *want = grErrorInvalidDeviceFunction;
            } else {
                p->kh = (grKernel_t)(void *)f->fake; /* not a kernel */
                *want = grErrorInvalidDeviceFunction;
            }
            break;
        case 2:
            p->block = fa_pct(f, 50) ? GR_DIM3(0, 1, 1) : GR_DIM3(1025, 1, 1);
            *want = grErrorInvalidConfiguration;
            break;
        case 3:
            p->block = fa_pct(f, 50) ? GR_DIM3(64, 32, 1) : GR_DIM3(1, 1, 65);
            *want = grErrorInvalidConfiguration;
            break;
        case 4:
            p->grid = fa_pct(f, 50) ? GR_DIM3(1, 0, 1) : GR_DIM3(1, 1, 65536);
            *want = grErrorInvalidConfiguration;
            break;
        case 5:
            p->shmem = 48 * 1024 + 1 + fa_rand(f, 1000);
            *want = grErrorInvalidValue;
            break;
        default:
            p->grid = GR_DIM3(0x80000000u, 1, 1);
            *want = grErrorInvalidConfiguration;
            break;
        }
        *bad = true;
        return;
    }
    case grGraphNodeTypeMemcpy: {
        uint32_t len = fa_pct(f, 5) ? 0 : 1 + fa_rand(f, 700);
        bool over = inject && fa_pct(f, 40) && (!graph || fa_allowed(f, FZ_ALLOW_NODE_OVERRUN));
        bool over_src = over && fa_pct(f, 50);
        uint32_t l1 = len, l2 = len;
        p->dst = fa_pick_range(f, &l1, 1, over && !over_src);
        p->src = fa_pick_range(f, &l2, 1, over_src);
        p->count = over ? (over_src ? l2 : l1) : (l1 < l2 ? l1 : l2);
        p->ckind = (grMemcpyKind)fa_rand(f, 5);
        over = over && fa_ref_overruns(f, over_src ? &p->src : &p->dst, p->count);
        if (!over && p->count > (l1 < l2 ? l1 : l2))
            p->count = l1 < l2 ? l1 : l2;
        snprintf(
            f->why, sizeof f->why,
            "copy of %u bytes, dst block %d +%u (%u bytes, kind %d), src block %d +%u (%u bytes, kind %d)%s",
            p->count, p->dst.blk, p->dst.off, f->b[p->dst.blk].size, (int)f->b[p->dst.blk].kind, p->src.blk,
            p->src.off, f->b[p->src.blk].size, (int)f->b[p->src.blk].kind,
            over ? (over_src ? ", src overruns" : ", dst overruns") : "");
        if (over && p->count) {
            *bad = true;
            *want = grErrorInvalidValue;
            return;
        }
        if (!inject || over)
            return;
        switch (fa_rand(f, 3)) {
        case 0:
            p->ckind = (grMemcpyKind)(5 + fa_rand(f, 100));
            *want = grErrorInvalidMemcpyDirection;
            break;
        case 1:
            if (p->count == 0)
                return;
            p->dst = (fa_ref){-1, 0, 0, NULL};
            *want = grErrorInvalidValue;
            break;
        default:
            if (p->count == 0)
                return;
            p->src = (fa_ref){-1, 0, 0, NULL};
            *want = grErrorInvalidValue;
            break;
        }
        *bad = true;
        return;
    }
    case grGraphNodeTypeMemset: {
        static const uint32_t es[] = {1, 2, 4};
        bool over = inject && fa_pct(f, 40) && (!graph || fa_allowed(f, FZ_ALLOW_NODE_OVERRUN));
        p->esize = graph ? es[fa_rand(f, 3)] : 1;
        p->height = graph && fa_pct(f, 25) ? 2 + fa_rand(f, 2) : 1;
        p->value = (uint32_t)fz_next(&f->r);
        if (!graph)
            p->value &= 0xff;
        uint32_t row = p->esize * (1 + fa_rand(f, 128));
        p->pitch = p->height > 1 ? row + p->esize * fa_rand(f, 16) : (fa_pct(f, 30) ? fa_rand(f, 64) : 0);
        uint32_t span = p->height > 1 ? (uint32_t)(p->pitch * (p->height - 1)) + row : row;
        if (!graph && fa_pct(f, 5))
            span = row = 0;
        uint32_t len = span;
        p->dst = fa_pick_range(f, &len, p->esize, over);
        if (len < span) {
            /* A small block: one row that fits. */
            p->height = 1;
            row = len / p->esize * p->esize;
            p->pitch = 0;
        }
        p->width = row / p->esize;
        if (over) {
            if (p->height == 1)
                p->width = len / p->esize;
            uint32_t extent =
                (uint32_t)(p->height > 1 ? p->pitch * (p->height - 1) : 0) + (uint32_t)(p->width * p->esize);
            if (p->width && fa_ref_overruns(f, &p->dst, extent)) {
                *bad = true;
                *want = grErrorInvalidValue;
                snprintf(f->why, sizeof f->why,
                         "memset of %zu x %zu x %u (pitch %zu) overruns block %d at +%u", p->width, p->height,
                         p->esize, p->pitch, p->dst.blk, p->dst.off);
                return;
            }
            /* Not past the end after all (the plain block): a valid one. */
            uint32_t l = extent;
            p->dst = fa_pick_range(f, &l, p->esize, false);
            if (l < extent) {
                p->height = 1;
                p->width = l / p->esize;
            }
            return;
        }
        if (!inject)
            return;
        switch (fa_rand(f, graph ? 5 : 1)) {
        case 0:
            if (p->width == 0)
                return;
            p->dst = (fa_ref){-1, 0, 0, NULL};
            *want = grErrorInvalidValue;
            break;
        case 1:
            p->esize = fa_pct(f, 50) ? 3 : 8;
            *want = grErrorInvalidValue;
            break;
        case 2:
            p->height = 0;
            *want = grErrorInvalidValue;
            break;
        case 3:
            if (p->esize == 1)
                return;
            p->dst.raw = (uint8_t *)p->dst.raw + 1;
            p->dst.off += 1;
            *want = grErrorInvalidValue;
            break;
        default:
            if (p->width * p->esize <= 1)
                return;
            p->height = 2;
            p->pitch = p->width * p->esize - 1;
            *want = grErrorInvalidValue;
            break;
        }
        *bad = true;
        return;
    }
    case grGraphNodeTypeHost:
        if (inject) {
            *bad = true;
            *want = grErrorInvalidValue;
        }
        return;
    default:
        return;
    }
}

/* ---------------------------------------------------- the add operations */

static grGraphNodeType gtype(uint8_t t)
{
    return (grGraphNodeType)t;
}

static grEvent_t pick_event_handle(fa *f, bool waitn)
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
        int i = pick_live(f, g);
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

static void add_node(fa *f)
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
        } else if (g->depth + 1 + height(child) > FA_DEPTH && !fa_allowed(f, FZ_ALLOW_DEEP_NESTING)) {
            return;
        }
        if (!child->h)
            return;
        break;
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        ev = pick_event_handle(f, type == grGraphNodeTypeWaitEvent);
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
                ap.poolProps.location.id = 1;
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
        } else if (!m->used || m->g != g || !deps_reach(g, deps, nd, m->node) || fa_graph_frees(g, m->ptr)) {
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
            snprintf(f->why, sizeof f->why, "free of gm %d (%s, own graph %d, freed in graph %d, reach %d)",
                     gi, m->used ? "used" : "unused", m->g == g, m->freed_in_graph,
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
            int oi = o ? pick_live(f, o) : -1;
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
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
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
            if (!bad && fa_pct(f, 10)) {
                bad = true;
                if (fa_pct(f, 50)) {
                    gp.memcpy.copyParams.extent.height = 2;
                    want = grErrorNotSupported;
                } else {
                    gp.memcpy.flags = 1;
                    want = grErrorInvalidValue;
                }
            }
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
        } else {
            err =
                FA_CALL(f, grGraphAddMemcpyNode1D(pout, gh, pd, npd, p.dst.raw, p.src.raw, p.count, p.ckind));
        }
        break;
    case grGraphNodeTypeMemset: {
        grMemsetParams mp = {p.dst.raw, p.pitch, p.value, p.esize, p.width, p.height};
        if (generic) {
            gp.memset = mp;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
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
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
        } else {
            err = FA_CALL(f, grGraphAddHostNode(pout, gh, pd, npd, &hp));
        }
        break;
    }
    case grGraphNodeTypeEmpty:
        if (generic)
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
        else
            err = FA_CALL(f, grGraphAddEmptyNode(pout, gh, pd, npd));
        break;
    case grGraphNodeTypeGraph:
        if (generic) {
            gp.graph.graph = child->h;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
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
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
        } else if (type == grGraphNodeTypeEventRecord) {
            err = FA_CALL(f, grGraphAddEventRecordNode(pout, gh, pd, npd, ev));
        } else {
            err = FA_CALL(f, grGraphAddEventWaitNode(pout, gh, pd, npd, ev));
        }
        break;
    case grGraphNodeTypeMemAlloc:
        if (generic) {
            gp.alloc = ap;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
            ap.dptr = gp.alloc.dptr;
        } else {
            err = FA_CALL(f, grGraphAddMemAllocNode(pout, gh, pd, npd, &ap));
        }
        break;
    case grGraphNodeTypeMemFree:
        if (generic) {
            gp.free.dptr = p.dst.raw;
            err = FA_CALL(f, grGraphAddNode(pout, gh, pd, npd, &gp));
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
        fi[k] = pick_live(f, g);
        ti[k] = pick_live(f, g);
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
            int oi = o ? pick_live(f, o) : -1;
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
        err = FA_CALL(f, grGraphAddDependencies(g->h, from, to, 0)); /* nothing to add */
    else if (!bad && fa_pct(f, 3)) {
        bad = true;
        err = FA_CALL(f, grGraphAddDependencies(g->h, NULL, to, (size_t)n));
    } else {
        err = FA_CALL(f, grGraphAddDependencies(gh, from, to, (size_t)n));
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
        int a = pick_live(f, g);
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
        int a = pick_live(f, g), b = pick_live(f, g);
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
    grError_t err = FA_CALL(f, grGraphRemoveDependencies(g->h, from, to, (size_t)k));
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
    int i = g ? pick_live(f, g) : -1;
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

/* --------------------------------------------------------- params get/set */

static void check_params(fa *f, fa_node *n)
{
    const fa_params *p = &n->p;
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        grKernelNodeParams kp;
        memset(&kp, 0xa5, sizeof kp);
        fa_ok(f, FA_CALL(f, grGraphKernelNodeGetParams(n->h, &kp)));
        if (kp.func != p->kh || memcmp(&kp.gridDim, &p->grid, sizeof p->grid) ||
            memcmp(&kp.blockDim, &p->block, sizeof p->block) || kp.sharedMemBytes != p->shmem || kp.extra)
            fa_fail(f,
                    "grGraphKernelNodeGetParams of %p: func/grid/block/shmem/extra differ from what was set",
                    (void *)n->h);
        int np = fa_kernel_nparams[p->kk];
        if (np && !kp.kernelParams)
            fa_fail(f, "grGraphKernelNodeGetParams: kernelParams NULL for a kernel with %d parameters", np);
        if (np) {
            void *d = *(void **)kp.kernelParams[0];
            bool ok = d == p->dst.raw;
            if (p->kk == FK_XFORM)
                ok = ok && *(void **)kp.kernelParams[1] == p->src.raw &&
                     *(uint32_t *)kp.kernelParams[2] == p->n && *(uint32_t *)kp.kernelParams[3] == p->v;
            else if (p->kk == FK_BLOB)
                ok = ok && memcmp(kp.kernelParams[1], p->blob, 64) == 0 &&
                     *(uint32_t *)kp.kernelParams[2] == p->v;
            else
                ok = ok && *(uint32_t *)kp.kernelParams[1] == p->n && *(uint32_t *)kp.kernelParams[2] == p->v;
            if (!ok)
                fa_fail(f,
                        "grGraphKernelNodeGetParams of %p: the argument values differ from the ones copied",
                        (void *)n->h);
        }
        break;
    }
    case grGraphNodeTypeMemcpy: {
        grMemcpy3DParms m;
        memset(&m, 0xa5, sizeof m);
        fa_ok(f, FA_CALL(f, grGraphMemcpyNodeGetParams(n->h, &m)));
        if (m.dstPtr.ptr != p->dst.raw || m.srcPtr.ptr != p->src.raw || m.extent.width != p->count ||
            m.extent.height != 1 || m.extent.depth != 1 || m.kind != p->ckind || m.srcPos.x || m.dstPos.x)
            fa_fail(
                f,
                "grGraphMemcpyNodeGetParams of %p: %p <- %p, %zu x %zu x %zu, kind %d; set: %p <- %p, %u, %d",
                (void *)n->h, m.dstPtr.ptr, m.srcPtr.ptr, m.extent.width, m.extent.height, m.extent.depth,
                (int)m.kind, p->dst.raw, p->src.raw, p->count, (int)p->ckind);
        break;
    }
    case grGraphNodeTypeMemset: {
        grMemsetParams m;
        memset(&m, 0xa5, sizeof m);
        fa_ok(f, FA_CALL(f, grGraphMemsetNodeGetParams(n->h, &m)));
        if (m.dst != p->dst.raw || m.value != p->value || m.elementSize != p->esize || m.width != p->width ||
            m.height != p->height || (p->height > 1 && m.pitch != p->pitch))
            fa_fail(
                f,
                "grGraphMemsetNodeGetParams of %p: dst %p value 0x%x es %u %zu x %zu pitch %zu; set: %p 0x%x "
                "%u %zu x %zu pitch %zu",
                (void *)n->h, m.dst, m.value, m.elementSize, m.width, m.height, m.pitch, p->dst.raw, p->value,
                p->esize, p->width, p->height, p->pitch);
        break;
    }
    case grGraphNodeTypeHost: {
        grHostNodeParams h;
        memset(&h, 0xa5, sizeof h);
        fa_ok(f, FA_CALL(f, grGraphHostNodeGetParams(n->h, &h)));
        if (h.userData != &f->hc[p->hc] || (h.fn != fa_host_count && h.fn != fa_host_other))
            fa_fail(f, "grGraphHostNodeGetParams of %p: fn/userData differ from what was set", (void *)n->h);
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        grEvent_t e = NULL;
        if (n->type == grGraphNodeTypeEventRecord)
            fa_ok(f, FA_CALL(f, grGraphEventRecordNodeGetEvent(n->h, &e)));
        else
            fa_ok(f, FA_CALL(f, grGraphEventWaitNodeGetEvent(n->h, &e)));
        if (e != p->eh)
            fa_fail(f, "event node %p holds event %p, set to %p", (void *)n->h, (void *)e, (void *)p->eh);
        break;
    }
    case grGraphNodeTypeMemAlloc: {
        grMemAllocNodeParams a;
        memset(&a, 0xa5, sizeof a);
        fa_ok(f, FA_CALL(f, grGraphMemAllocNodeGetParams(n->h, &a)));
        if (a.dptr != p->dst.raw || a.bytesize != p->count ||
            a.poolProps.allocType != grMemAllocationTypePinned)
            fa_fail(f,
                    "grGraphMemAllocNodeGetParams of %p: %p, %zu bytes; the node was made for %p, %u bytes",
                    (void *)n->h, a.dptr, a.bytesize, p->dst.raw, p->count);
        break;
    }
    case grGraphNodeTypeMemFree: {
        void *d = NULL;
        fa_ok(f, FA_CALL(f, grGraphMemFreeNodeGetParams(n->h, &d)));
        if (d != p->dst.raw)
            fa_fail(f, "grGraphMemFreeNodeGetParams of %p: %p, made for %p", (void *)n->h, d, p->dst.raw);
        break;
    }
    default:
        break;
    }
}

/* Getters of the wrong node type, and NULL outputs. */
static void wrong_getter(fa *f, fa_node *n)
{
    grKernelNodeParams kp;
    grMemsetParams mp;
    grHostNodeParams hp;
    grMemcpy3DParms cp;
    grEvent_t e;
    grGraph_t cg;
    switch (fa_rand(f, 6)) {
    case 0:
        if (n->type != grGraphNodeTypeKernel)
            fa_bad(f, FA_CALL(f, grGraphKernelNodeGetParams(n->h, &kp)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphKernelNodeGetParams(n->h, NULL)), grErrorInvalidValue);
        break;
    case 1:
        if (n->type != grGraphNodeTypeMemset)
            fa_bad(f, FA_CALL(f, grGraphMemsetNodeGetParams(n->h, &mp)), grErrorInvalidValue);
        break;
    case 2:
        if (n->type != grGraphNodeTypeHost)
            fa_bad(f, FA_CALL(f, grGraphHostNodeGetParams(n->h, &hp)), grErrorInvalidValue);
        break;
    case 3:
        if (n->type != grGraphNodeTypeMemcpy)
            fa_bad(f, FA_CALL(f, grGraphMemcpyNodeGetParams(n->h, &cp)), grErrorInvalidValue);
        break;
    case 4:
        if (n->type != grGraphNodeTypeEventRecord)
            fa_bad(f, FA_CALL(f, grGraphEventRecordNodeGetEvent(n->h, &e)), grErrorInvalidValue);
        break;
    default:
        if (n->type != grGraphNodeTypeGraph)
            fa_bad(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n->h, &cg)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n->h, NULL)), grErrorInvalidValue);
        break;
    }
}

static void set_params(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, true);
    int i = g ? pick_live(f, g) : -1;
    if (i < 0)
        return;
    fa_node *n = &g->node[i];
    if (fa_pct(f, 25)) {
        check_params(f, n);
        return;
    }
    if (fa_pct(f, 15)) {
        wrong_getter(f, n);
        return;
    }
    fa_params p;
    bool bad = false;
    int want = -1;
    grError_t err;
    f->ctx_sid = -1;
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        fa_kargv ka;
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        void **args = fa_kargs(f, &p, &ka, &bad, &want);
        grKernelNodeParams kp = {p.kh, p.grid, p.block, p.shmem, args, NULL};
        if (bad && fa_pct(f, 10)) {
            want = grErrorInvalidValue; /* checked first */
            err = FA_CALL(f, grGraphKernelNodeSetParams(n->h, NULL));
        } else {
            err = FA_CALL(f, grGraphKernelNodeSetParams(n->h, &kp));
        }
        break;
    }
    case grGraphNodeTypeMemcpy:
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        err = FA_CALL(f, grGraphMemcpyNodeSetParams1D(n->h, p.dst.raw, p.src.raw, p.count, p.ckind));
        break;
    case grGraphNodeTypeMemset: {
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        grMemsetParams mp = {p.dst.raw, p.pitch, p.value, p.esize, p.width, p.height};
        err = FA_CALL(f, grGraphMemsetNodeSetParams(n->h, &mp));
        break;
    }
    case grGraphNodeTypeHost: {
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        grHostNodeParams hp = {bad ? NULL : fa_pct(f, 50) ? fa_host_count : fa_host_other, &f->hc[p.hc]};
        err = FA_CALL(f, grGraphHostNodeSetParams(n->h, bad && fa_pct(f, 30) ? NULL : &hp));
        want = grErrorInvalidValue;
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        p = n->p;
        p.eh = pick_event_handle(f, n->type == grGraphNodeTypeWaitEvent);
        if (!p.eh || fa_pct(f, 10)) {
            p.eh = NULL;
            bad = true;
            want = grErrorInvalidResourceHandle;
        }
        if (n->type == grGraphNodeTypeEventRecord)
            err = FA_CALL(f, grGraphEventRecordNodeSetEvent(n->h, p.eh));
        else
            err = FA_CALL(f, grGraphEventWaitNodeSetEvent(n->h, p.eh));
        break;
    }
    default:
        /* A setter of another type. */
        p = n->p;
        bad = true;
        want = grErrorInvalidValue;
        err = FA_CALL(f, grGraphHostNodeSetParams(n->h, &(grHostNodeParams){fa_host_count, &f->hc[0]}));
        break;
    }
    if (bad) {
        fa_bad(f, err, want);
        check_params(f, n);
        return;
    }
    fa_ok(f, err);
    n->p = p;
    if (fa_pct(f, 30))
        check_params(f, n);
}

/* --------------------------------------------------- create, destroy, clone */

static int free_graph_slot(fa *f)
{
    for (int i = 0; i < FA_GRAPHS; i++)
        if (!f->g[i])
            return i;
    return -1;
}

static void graph_create(fa *f)
{
    int s = free_graph_slot(f);
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
    int ni = pick_live(f, g);
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
    int s = free_graph_slot(f);
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

static fa_graph *graph_by_uid(fa *f, uint64_t uid)
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
    fa_graph *o = graph_by_uid(f, c->clone_of);
    if (!o || o->capture >= 0)
        return;
    int i = pick_live(f, o);
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
            fa_bad(f, FA_CALL(f, grGraphNodeGetDependencies(f->dead_node, NULL, &n)), grErrorInvalidValue);
        break;
    case 2: {
        fa_graph *g = fa_pick_graph(f, false, false);
        int i = g ? pick_live(f, g) : -1;
        if (i >= 0)
            fa_bad(f, FA_CALL(f, grGraphNodeGetDependentNodes(g->node[i].h, NULL, NULL)),
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
        int i = g ? pick_live(f, g) : -1;
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
    /* Adding a level walks the levels above (the enclosing-graph check):
     * a hundred thousand cost seconds; the stack overflow (deep-nesting)
     * shows from about 60,000 on a default 8 MiB stack. */
    int depth = 20000 + (int)fa_rand(f, 80000);
    fa_ok(f, FA_CALL(f, grGraphCreate(&top, 0)));
    fa_ok(f, FA_CALL(f, grGraphCreate(&empty, 0)));
    g = top;
    for (int d = 0; d < depth; d++) {
        fa_ok(f, FA_CALL(f, grGraphAddChildGraphNode(&n, g, NULL, 0, empty)));
        fa_ok(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n, &g)));
        atomic_fetch_add_explicit(&f->c->progress, 1, memory_order_relaxed);
    }
    fa_ok(f, FA_CALL(f, grGraphAddEmptyNode(&n, g, NULL, 0)));
    grGraphExec_t x;
    grGraph_t c;
    fa_ok(f, FA_CALL(f, grGraphClone(&c, top)));
    /* Instantiation may refuse the depth (more than 64 is refused with a
     * detail); it must not crash. */
    if (fa_either(f, FA_CALL(f, grGraphInstantiate(&x, top, 0)))) {
        fa_ok(f, FA_CALL(f, grGraphLaunch(x, grStreamPerThread)));
        fa_ok(f, FA_CALL(f, grStreamSynchronize(grStreamPerThread)));
        fa_ok(f, FA_CALL(f, grGraphExecDestroy(x)));
        fa_synced_stream(f, FA_SID_PT);
    }
    fa_ok(f, FA_CALL(f, grGraphDestroy(c)));
    fa_ok(f, FA_CALL(f, grGraphDestroy(top)));
    fa_ok(f, FA_CALL(f, grGraphDestroy(empty)));
}

void fa_graph_step(fa *f)
{
    uint32_t k = fa_rand(f, 100);
    if (k < 8)
        graph_create(f);
    else if (k < 12)
        graph_destroy(f);
    else if (k < 45)
        add_node(f);
    else if (k < 55)
        add_edges(f);
    else if (k < 60)
        remove_edges(f);
    else if (k < 64)
        destroy_node(f);
    else if (k < 77)
        set_params(f);
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

void fa_mark_stale_refs(fa *f)
{
    /* Staleness is computed when it matters (fa_graph_refs_live at
     * launch), so a free needs no walk here. */
    (void)f;
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
