/*
 * topo.c - topological order of a graph's nodes (Kahn's algorithm), used by
 * instantiation, analysis and graph memory, the priority frontier of the
 * walk, and the naming of a cycle should one ever exist.
 *
 * The walk (gr__graph_kahn, graph.h) is one loop with two frontiers. The
 * FIFO threads its queue through the nodes' 'scratch', which first holds
 * each node's count of dependencies not yet emitted, so the sort needs no
 * allocation and runs in O(V + E); its result is deterministic: roots in
 * creation order, then every node at the moment its last dependency is
 * emitted, successors visited in edge order. The priority frontier (here)
 * is a binary heap ordered by the caller's 'before', O((V + E) log V).
 *
 * Invariant: a node enters the frontier exactly once, when its count
 * reaches zero; the heap's top runs before (or ties with) every other.
 */
#include "graph.h"

#include <stdio.h>

#define ON_WALK (1ull << 63)

void gr__topo_heap_push(gr_topo_heap *q, struct grGraphNode_st *x)
{
    struct grGraphNode_st **h = q->h;
    size_t i = q->n++;
    while (i > 0 && q->before(x, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

struct grGraphNode_st *gr__topo_heap_pop(gr_topo_heap *q)
{
    struct grGraphNode_st **h = q->h, *top = h[0], *x = h[--q->n];
    size_t i = 0, n = q->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && q->before(h[c + 1], h[c]))
            c++;
        if (!q->before(h[c], x))
            break;
        h[i] = h[c];
        i = c;
    }
    if (n)
        h[i] = x;
    return top;
}

/* The first dependency of n that is also left unemitted. */
static struct grGraphNode_st *left_dep(const struct grGraphNode_st *n)
{
    size_t i;
    for (i = 0; i < n->ndeps; i++)
        if (n->deps[i]->scratch != 0)
            return n->deps[i];
    return NULL;
}

/* Names a cycle among the nodes left with unmet dependencies: each has a
 * dependency also left, so walking dependencies from any of them comes
 * back to a node already on the walk, which lies on a cycle. */
static void name_cycle(grGraph_t g)
{
    struct grGraphNode_st *n, *start, *path[16];
    char buf[640];
    size_t len = 0, count = 0, k;
    int r;
    for (n = g->first; n != NULL && n->scratch == 0; n = n->next)
        ;
    while (n != NULL && !(n->scratch & ON_WALK)) {
        n->scratch |= ON_WALK;
        n = left_dep(n);
    }
    if (!GR_ALWAYS(n != NULL)) {
        gr__fail(grErrorInvalidValue, "graph %p has a cycle; remove one of its edges", GR_PTR(g));
        return;
    }
    /* path[k] is k dependency steps back from start: edges run
     * path[k + 1] -> path[k], so the cycle prints backwards. */
    start = n;
    do {
        if (count < 16)
            path[count] = n;
        count++;
        n = left_dep(n);
    } while (n != start && n != NULL);
    r = snprintf(buf, sizeof buf, "%s", gr__node_label(start));
    len = r > 0 ? (size_t)r : 0;
    if (count > 16 && len < sizeof buf) {
        r = snprintf(buf + len, sizeof buf - len, " -> ... (%zu more)", count - 16);
        len += r > 0 ? (size_t)r : 0;
    }
    for (k = (count < 16 ? count : 16); k-- > 0 && len < sizeof buf;) {
        r = snprintf(buf + len, sizeof buf - len, " -> %s", gr__node_label(path[k]));
        len += r > 0 ? (size_t)r : 0;
    }
    gr__fail(grErrorInvalidValue, "graph %p has a cycle: %s; remove one of its edges", GR_PTR(g), buf);
}

/* What the sort collects: the nodes in the order visited. */
typedef struct sort_ctx {
    struct grGraphNode_st **order;
    size_t n;
} sort_ctx;

static bool append(void *ctx, struct grGraphNode_st *n)
{
    sort_ctx *x = ctx;
    x->order[x->n++] = n;
    n->scratch = 0; /* visited: name_cycle tells them from those left */
    return true;
}

bool gr__graph_topo_sort(grGraph_t g, struct grGraphNode_st **order)
{
    sort_ctx x = {order, 0};
    if (gr__graph_kahn(g, NULL, append, &x) == g->nnodes)
        return true;
    name_cycle(g);
    return false;
}
