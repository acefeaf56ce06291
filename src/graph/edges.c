/*
 * edges.c - grGraphAddDependencies and grGraphRemoveDependencies (with
 * their edge data).
 *
 * Adding edges is all or nothing: every edge is checked on its own first
 * (live nodes of the graph, no self edge), edge slots are reserved so that
 * linking cannot fail, then edges are linked one by one, each after a check
 * that it is new (not in the graph, not earlier in the same call) and that
 * no path leads from its 'to' back to its 'from'; a failing edge unlinks
 * the ones linked before it, in reverse order, which restores every edge
 * array exactly. The reachability check is a BFS over successors, O(V + E)
 * per edge, skipped when 'from' has no dependencies or 'to' no dependents
 * (then no path can close a cycle), which is the common case while a graph
 * is built front to back.
 *
 * Edge data: a non-default edge is checked with the others and noted in
 * the graph's side table once every edge is linked (room reserved first);
 * an edge is removed when the caller names its data, or passes no data.
 *
 * Invariant kept: the graph is acyclic after every call.
 */
#include "graph.h"

#include "../memory/graphmem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks edge i's endpoints on their own. */
static grError_t check_edge(const char *call, grGraph_t g, const grGraphNode_t *from, const grGraphNode_t *to,
                            size_t i)
{
    grError_t err;
    if ((err = gr__node_check_at(call, from[i], "from", i)) != grSuccess)
        return err;
    if ((err = gr__node_check_at(call, to[i], "to", i)) != grSuccess)
        return err;
    if (from[i]->graph != g)
        return gr__fail(
            grErrorInvalidValue,
            "%s: from[%zu] (%s) belongs to graph %p, not to graph %p; edges join nodes of one graph", call, i,
            gr__node_label(from[i]), GR_PTR(from[i]->graph), GR_PTR(g));
    if (to[i]->graph != g)
        return gr__fail(
            grErrorInvalidValue,
            "%s: to[%zu] (%s) belongs to graph %p, not to graph %p; edges join nodes of one graph", call, i,
            gr__node_label(to[i]), GR_PTR(to[i]->graph), GR_PTR(g));
    if (from[i] == to[i])
        return gr__fail(grErrorInvalidValue,
                        "%s: edge %zu goes from %s to itself; a node cannot depend on itself", call, i,
                        gr__node_label(from[i]));
    return grSuccess;
}

static bool edge_exists(const struct grGraphNode_st *from, const struct grGraphNode_st *to)
{
    size_t i;
    /* Scan the shorter of the two mirror arrays. */
    if (from->nsuccs <= to->ndeps) {
        for (i = 0; i < from->nsuccs; i++)
            if (from->succs[i] == to)
                return true;
    } else {
        for (i = 0; i < to->ndeps; i++)
            if (to->deps[i] == from)
                return true;
    }
    return false;
}

/* BFS state for the reachability check, allocated on first need. */
typedef struct bfs {
    struct grGraphNode_st **queue; /* nnodes entries */
    size_t *parent;                /* index in queue of the node that reached it */
} bfs;

/* Appends formatted text to buf[0..cap) at *len, truncating quietly. */
GR_PRINTF(4, 5) static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...);

static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int r;
    if (*len >= cap)
        return;
    va_start(ap, fmt);
    r = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (r > 0)
        *len += (size_t)r;
}

/*
 * Looks for a path from 'start' to 'target' along successor edges. If one
 * exists, writes into 'cycle' the cycle that the edge target -> start would
 * close ("A -> B -> ... -> A", long paths elided in the middle) and returns
 * true.
 */
static bool reaches(grGraph_t g, bfs *b, struct grGraphNode_st *start, const struct grGraphNode_st *target,
                    char *cycle, size_t cap)
{
    struct grGraphNode_st *n;
    size_t head, tail = 0, i, k, m, pos, step, len = 0;
    uint32_t epoch = gr__graph_visit_begin(g);
    b->queue[tail] = start;
    b->parent[tail++] = SIZE_MAX;
    gr__node_visit(start, epoch);
    for (head = 0; head < tail; head++) {
        n = b->queue[head];
        for (i = 0; i < n->nsuccs; i++) {
            struct grGraphNode_st *s = n->succs[i];
            if (s == target)
                goto found;
            if (gr__node_visit(s, epoch)) {
                b->queue[tail] = s;
                b->parent[tail++] = head;
            }
        }
    }
    return false;
found:
    /* The path is start ... queue[head]: m nodes, reachable only backwards
     * through 'parent', so the node at position pos is found by walking
     * m - 1 - pos steps back (only a few positions are printed). */
    m = 0;
    for (k = head; k != SIZE_MAX; k = b->parent[k])
        m++;
    append(cycle, cap, &len, "%s", gr__node_label(target));
    for (pos = 0; pos < m; pos++) {
        if (m > 8 && pos == 6) {
            append(cycle, cap, &len, " -> ... (%zu more)", m - 7);
            pos = m - 1;
        }
        k = head;
        for (step = 0; step < m - 1 - pos; step++)
            k = b->parent[k];
        append(cycle, cap, &len, " -> %s", gr__node_label(b->queue[k]));
    }
    append(cycle, cap, &len, " -> %s", gr__node_label(target));
    return true;
}

static void unlink_last(const grGraphNode_t *from, const grGraphNode_t *to, size_t n)
{
    /* Reverse order: each pop removes the entry appended last. */
    while (n-- > 0) {
        from[n]->nsuccs--;
        to[n]->ndeps--;
    }
}

/* Grows each node's successor (then dependency) array once for the n new
 * edges, counting in 'scratch'; false when out of memory (the arrays
 * grown so far only have room to spare). */
static bool reserve_new_edges(const grGraphNode_t *from, const grGraphNode_t *to, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        from[i]->scratch = 0;
    for (i = 0; i < n; i++)
        from[i]->scratch++;
    for (i = 0; i < n; i++) {
        if (from[i]->scratch != 0 && !gr__node_reserve_edges(from[i], 0, (size_t)from[i]->scratch))
            return false;
        from[i]->scratch = 0;
    }
    for (i = 0; i < n; i++)
        to[i]->scratch = 0;
    for (i = 0; i < n; i++)
        to[i]->scratch++;
    for (i = 0; i < n; i++) {
        if (to[i]->scratch != 0 && !gr__node_reserve_edges(to[i], (size_t)to[i]->scratch, 0))
            return false;
        to[i]->scratch = 0;
    }
    return true;
}

static grError_t add_edges_oom(const char *call, size_t n)
{
    return gr__fail(grErrorMemoryAllocation, "%s: out of memory adding %zu edges; nothing was added", call,
                    n);
}

/* Appends the n edges (arrays reserved), refusing a duplicate or one that
 * would close a cycle; on refusal the edges appended so far come off
 * again, so the graph is as before. */
static grError_t link_new_edges(const char *call, grGraph_t graph, const grGraphNode_t *from,
                                const grGraphNode_t *to, size_t n)
{
    size_t i, j;
    bfs b = {NULL, NULL};
    char cycle[640];
    for (i = 0; i < n; i++) {
        if (edge_exists(from[i], to[i])) {
            for (j = 0; j < i; j++)
                if (from[j] == from[i] && to[j] == to[i])
                    break;
            unlink_last(from, to, i);
            gr__free(b.queue);
            gr__free(b.parent);
            if (j < i)
                return gr__fail(grErrorInvalidValue,
                                "%s: edges %zu and %zu are both %s -> %s; list each edge once", call, j, i,
                                gr__node_label(from[i]), gr__node_label(to[i]));
            return gr__fail(grErrorInvalidValue, "%s: edge %zu (%s -> %s) already exists; nothing was added",
                            call, i, gr__node_label(from[i]), gr__node_label(to[i]));
        }
        if (from[i]->ndeps > 0 && to[i]->nsuccs > 0) {
            if (b.queue == NULL) {
                b.queue = gr__malloc(graph->nnodes * sizeof *b.queue);
                b.parent = gr__malloc(graph->nnodes * sizeof *b.parent);
                if (b.queue == NULL || b.parent == NULL) {
                    unlink_last(from, to, i);
                    gr__free(b.queue);
                    gr__free(b.parent);
                    return add_edges_oom(call, n);
                }
            }
            if (reaches(graph, &b, to[i], from[i], cycle, sizeof cycle)) {
                unlink_last(from, to, i);
                gr__free(b.queue);
                gr__free(b.parent);
                return gr__fail(grErrorInvalidValue,
                                "%s: edge %zu (%s -> %s) would close the cycle %s; a graph must stay "
                                "acyclic, so drop this edge or one on that path (nothing was added)",
                                call, i, gr__node_label(from[i]), gr__node_label(to[i]), cycle);
            }
        }
        from[i]->succs[from[i]->nsuccs++] = to[i];
        to[i]->deps[to[i]->ndeps++] = from[i];
    }
    gr__free(b.queue);
    gr__free(b.parent);
    return grSuccess;
}

/* The start both edge calls share: the graph checked, nothing to do for
 * n == 0, the graph noted as edited, and the two arrays present. The edit
 * is noted before the remaining checks: a refused call only costs the
 * next update of an executable its full comparison. */
static grError_t edge_call_begin(const char *call, grGraph_t graph, const grGraphNode_t *from,
                                 const grGraphNode_t *to, size_t n)
{
    grError_t err;
    if ((err = gr__graph_check(call, graph)) != grSuccess || n == 0)
        return err;
    gr__graph_edited(graph);
    if (from == NULL || to == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s is NULL but numDependencies is %zu; pass two arrays of %zu nodes", call,
                        from == NULL ? "from" : "to", n, n);
    return grSuccess;
}

GR_API grError_t grGraphAddDependencies(grGraph_t graph, const grGraphNode_t *from, const grGraphNode_t *to,
                                        const grGraphEdgeData *edgeData, size_t numDependencies)
{
    static const char call[] = "grGraphAddDependencies";
    grError_t err;
    size_t i, n = numDependencies, nnotes = 0;
    if ((err = edge_call_begin(call, graph, from, to, n)) != grSuccess || n == 0)
        return err;
    for (i = 0; i < n; i++)
        if ((err = check_edge(call, graph, from, to, i)) != grSuccess)
            return err;
    if (edgeData != NULL) {
        for (i = 0; i < n; i++) {
            if ((err = gr__edge_data_check(call, from[i], to[i]->type, &edgeData[i], "edgeData", i)) !=
                grSuccess)
                return err;
            nnotes += !gr__edge_data_is_default(&edgeData[i]);
        }
        if (nnotes && !gr__edge_notes_reserve(graph, nnotes))
            return add_edges_oom(call, n);
    }
    if (!reserve_new_edges(from, to, n))
        return add_edges_oom(call, n);
    if ((err = link_new_edges(call, graph, from, to, n)) != grSuccess)
        return err;
    graph->nedges += n;
    for (i = 0; nnotes && i < n; i++)
        gr__edge_note_add(graph, from[i], to[i], &edgeData[i]);
    gr__graph_assert_valid(graph);
    return grSuccess;
}

/* An edge of a RemoveDependencies call, sortable to find duplicates. */
typedef struct edge_ref {
    uintptr_t from, to;
    size_t index;
} edge_ref;

static int edge_ref_cmp(const void *a, const void *b)
{
    const edge_ref *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

GR_API grError_t grGraphRemoveDependencies(grGraph_t graph, const grGraphNode_t *from,
                                           const grGraphNode_t *to, const grGraphEdgeData *edgeData,
                                           size_t numDependencies)
{
    static const char call[] = "grGraphRemoveDependencies";
    grError_t err;
    size_t i, n = numDependencies;
    edge_ref *refs;
    if ((err = edge_call_begin(call, graph, from, to, n)) != grSuccess || n == 0)
        return err;
    for (i = 0; i < n; i++) {
        if ((err = check_edge(call, graph, from, to, i)) != grSuccess)
            return err;
        if (!edge_exists(from[i], to[i]))
            return gr__fail(grErrorInvalidValue,
                            "%s: edge %zu (%s -> %s) does not exist; nothing was removed", call, i,
                            gr__node_label(from[i]), gr__node_label(to[i]));
        /* NULL edgeData names each edge whatever its data, as CUDA 13
         * removes a programmatic edge given NULL (docs/cuda13-probes.md). */
        grGraphEdgeData have = gr__edge_data_of(graph, from[i], to[i]);
        grGraphEdgeData want = edgeData ? edgeData[i] : have;
        if (memcmp(&have, &want, sizeof have) != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: edge %zu (%s -> %s) exists with edge data (type %u, from_port %u) but the "
                            "call names (type %u, from_port %u); pass the edge's own data (nothing was "
                            "removed)",
                            call, i, gr__node_label(from[i]), gr__node_label(to[i]), have.type,
                            have.from_port, want.type, want.from_port);
    }
    /* CUDA: edges fix the lifetimes of graph allocations. */
    if (gr__graphmem_has_nodes(graph))
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p has memory allocation or free nodes; edges of such a graph cannot be "
                        "removed, as in CUDA (build the graph again instead)",
                        call, GR_PTR(graph));
    if (n > 1) {
        refs = gr__malloc(n * sizeof *refs);
        if (refs == NULL)
            return gr__fail(grErrorMemoryAllocation,
                            "%s: out of memory checking %zu edges; nothing was removed", call, n);
        for (i = 0; i < n; i++)
            refs[i] = (edge_ref){(uintptr_t)from[i], (uintptr_t)to[i], i};
        qsort(refs, n, sizeof *refs, edge_ref_cmp);
        for (i = 1; i < n; i++) {
            if (refs[i].from == refs[i - 1].from && refs[i].to == refs[i - 1].to) {
                size_t a = refs[i - 1].index, b = refs[i].index;
                gr__free(refs);
                return gr__fail(grErrorInvalidValue,
                                "%s: edges %zu and %zu are both %s -> %s; list each edge once (nothing was "
                                "removed)",
                                call, a, b, gr__node_label(from[b]), gr__node_label(to[b]));
            }
        }
        gr__free(refs);
    }
    for (i = 0; i < n; i++)
        gr__edge_unlink(from[i], to[i]);
    graph->nedges -= n;
    gr__graph_assert_valid(graph);
    return grSuccess;
}
