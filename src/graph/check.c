/*
 * check.c - gr__graph_is_valid, the checker of graph.h's invariants (in
 * the manner of Lua's ltests.c and mimalloc's mi_*_is_valid): the
 * creation-order list, the slab, the mirrored edge arrays, acyclicity and
 * the ownership of child graphs. Called through gr_assert_expensive after
 * the public calls that change a graph's structure, so only GR_DEBUG=3
 * builds run it; release builds compile the calls away.
 *
 * It costs O(V + E) per graph and child graph and allocates one array of
 * V pointers (no allocation: the acyclicity part is skipped). It writes
 * the nodes' 'scratch' and 'visit' (as every walk may, graph.h), nothing
 * else.
 */
#include "graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Reports the broken invariant and returns false (the caller's
 * gr_assert_expensive then aborts, naming the checker). */
GR_PRINTF(2, 3) static bool broken(grGraph_t g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "graphrt: graph %p breaks an invariant of graph.h: ", (void *)g);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return false;
}

/* A mix of an edge's two ends, summed over both copies of every edge:
 * the sums from the successor arrays and from the dependency arrays agree
 * when the copies mirror each other (a mismatch escapes with negligible
 * chance). */
static uint64_t edge_mix(const void *from, const void *to)
{
    uint64_t x = (uint64_t)(uintptr_t)from * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)to;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

/* The creation-order list and the slab name the same nodes, all of g. */
static bool check_list(grGraph_t g)
{
    const struct grGraphNode_st *prev = NULL;
    size_t count = 0;
    for (const struct grGraphNode_st *n = g->first; n != NULL; prev = n, n = n->next) {
        if (++count > g->nnodes)
            return broken(g, "the creation-order list has more than nnodes (%zu) nodes", g->nnodes);
        if (n->magic != GR_MAGIC_NODE)
            return broken(g, "node %p on the creation-order list is not a live node", (const void *)n);
        if (n->graph != g)
            return broken(g, "node %p on its creation-order list belongs to graph %p", (const void *)n,
                          (void *)n->graph);
        if (n->prev != prev)
            return broken(g, "node %p's prev link is not the node before it", (const void *)n);
        if (prev != NULL && n->seq <= prev->seq)
            return broken(g, "node %p's seq %llu does not follow its predecessor's %llu", (const void *)n,
                          (unsigned long long)n->seq, (unsigned long long)prev->seq);
        if (n->seq >= g->next_seq)
            return broken(g, "node %p's seq %llu is not below next_seq %llu", (const void *)n,
                          (unsigned long long)n->seq, (unsigned long long)g->next_seq);
    }
    if (count != g->nnodes)
        return broken(g, "the creation-order list has %zu nodes, nnodes says %zu", count, g->nnodes);
    if (g->last != prev)
        return broken(g, "'last' is not the list's last node");
    size_t slab = 0, mem = 0, memops = 0, childmem = 0;
    struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        slab++;
        mem += n->type == grGraphNodeTypeMemAlloc || n->type == grGraphNodeTypeMemFree;
        memops += n->type == grGraphNodeTypeBatchMemOp;
        if (n->type == grGraphNodeTypeGraph)
            childmem += n->p.child->nmemnodes + n->p.child->nchildmem;
    }
    if (slab != g->nnodes)
        return broken(g, "the slab holds %zu live nodes, nnodes says %zu", slab, g->nnodes);
    if (memops != g->nmemops)
        return broken(g, "%zu batch memory operation nodes, nmemops says %zu", memops, g->nmemops);
    if (mem != g->nmemnodes)
        return broken(g, "%zu memory alloc and free nodes, nmemnodes says %zu", mem, g->nmemnodes);
    if (childmem != g->nchildmem)
        return broken(g, "%zu memory nodes in its child graphs, nchildmem says %zu", childmem, g->nchildmem);
    return true;
}

/* Every edge is stored twice, between live nodes of g, without duplicates
 * or self edges, and nedges counts them. */
static bool check_edges(grGraph_t g)
{
    struct grGraphNode_st *n;
    uint64_t mix_succ = 0, mix_dep = 0;
    size_t nsucc = 0, ndep = 0;
    GR_GRAPH_FOR_EACH_NODE (g, n)
        n->scratch = 0; /* incoming edges seen from the successor side */
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->ndeps > n->capdeps || n->nsuccs > n->capsuccs)
            return broken(g, "node %p has more edges than room (%zu/%u deps, %zu/%u succs)", (void *)n,
                          n->ndeps, n->capdeps, n->nsuccs, n->capsuccs);
        uint32_t epoch = gr__graph_visit_begin(g);
        for (size_t i = 0; i < n->nsuccs; i++) {
            struct grGraphNode_st *s = n->succs[i];
            if (s == n)
                return broken(g, "node %p is its own successor", (void *)n);
            if (s == NULL || s->magic != GR_MAGIC_NODE || s->graph != g)
                return broken(g, "node %p's successor %p is not a live node of the graph", (void *)n,
                              (void *)s);
            if (!gr__node_visit(s, epoch))
                return broken(g, "node %p lists successor %p twice", (void *)n, (void *)s);
            s->scratch++;
            mix_succ += edge_mix(n, s);
        }
        nsucc += n->nsuccs;
        for (size_t i = 0; i < n->ndeps; i++) {
            const struct grGraphNode_st *d = n->deps[i];
            if (d == NULL || d->magic != GR_MAGIC_NODE || d->graph != g)
                return broken(g, "node %p's dependency %p is not a live node of the graph", (void *)n,
                              (const void *)d);
            mix_dep += edge_mix(d, n);
        }
        ndep += n->ndeps;
    }
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->scratch != n->ndeps)
            return broken(g, "node %p has %zu dependencies, but %llu nodes list it as a successor", (void *)n,
                          n->ndeps, (unsigned long long)n->scratch);
    }
    if (nsucc != g->nedges || ndep != g->nedges)
        return broken(g, "nedges is %zu, the successor arrays hold %zu edges, the dependency arrays %zu",
                      g->nedges, nsucc, ndep);
    if (mix_succ != mix_dep)
        return broken(g, "the dependency arrays do not mirror the successor arrays");
    return true;
}

/* Kahn's algorithm: every node is emitted (scratch: dependencies not yet
 * emitted). */
static bool check_acyclic(grGraph_t g)
{
    if (g->nnodes == 0)
        return true;
    struct grGraphNode_st **stack = malloc(g->nnodes * sizeof *stack), *n;
    if (stack == NULL)
        return true; /* no room to check: not a broken invariant */
    size_t top = 0, emitted = 0;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        n->scratch = n->ndeps;
        if (n->ndeps == 0)
            stack[top++] = n;
    }
    while (top > 0) {
        n = stack[--top];
        emitted++;
        for (size_t i = 0; i < n->nsuccs; i++)
            if (--n->succs[i]->scratch == 0)
                stack[top++] = n->succs[i];
    }
    free(stack);
    if (emitted != g->nnodes)
        return broken(g, "it has a cycle (%zu of %zu nodes in no topological order)", g->nnodes - emitted,
                      g->nnodes);
    return true;
}

/* Child graphs and conditional bodies are owned by their node. */
static bool check_owned(grGraph_t g)
{
    struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->type == grGraphNodeTypeGraph) {
            grGraph_t c = n->p.child;
            if (c == NULL || c->magic != GR_MAGIC_GRAPH || c->owner != n)
                return broken(g, "child graph %p of node %p is not a live graph owned by the node", (void *)c,
                              (void *)n);
        } else if (n->type == grGraphNodeTypeConditional) {
            for (unsigned b = 0; b < n->p.cond.nbodies; b++) {
                grGraph_t c = n->p.cond.bodies[b];
                if (c == NULL || c->magic != GR_MAGIC_GRAPH || c->owner != n)
                    return broken(g, "body %u of conditional node %p is not a live graph owned by the node",
                                  b, (void *)n);
            }
        }
    }
    return true;
}

bool gr__graph_is_valid(grGraph_t g)
{
    if (g == NULL || g->magic != GR_MAGIC_GRAPH)
        return broken(g, "it is not a live graph");
    if (g->owner != NULL && (g->owner->magic != GR_MAGIC_NODE))
        return broken(g, "its owner node %p is not a live node", (void *)g->owner);
    if (!check_list(g) || !check_edges(g) || !check_acyclic(g) || !check_owned(g))
        return false;
    struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->type == grGraphNodeTypeGraph && !gr__graph_is_valid(n->p.child))
            return false;
        if (n->type == grGraphNodeTypeConditional)
            for (unsigned b = 0; b < n->p.cond.nbodies; b++)
                if (!gr__graph_is_valid(n->p.cond.bodies[b]))
                    return false;
    }
    return true;
}
