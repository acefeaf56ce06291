/*
 * memnodes.c - graph memory, the graph layer's part: CUDA's rules for
 * where a free node may go (its allocation node in the same graph must
 * reach it; an allocation another graph frees cannot be freed again).
 */
#include "graph.h"
#include "../memory/graphmem.h"

#include <stdlib.h>

/* True if 'to' is reachable from 'from' along edges (from == to counts). */
bool gr__graph_reaches(const struct grGraphNode_st *from, const struct grGraphNode_st *to, size_t limit)
{
    /* Iterative DFS with an explicit stack; 'limit' bounds it by the
     * number of nodes, visited marks live in a small open hash set. */
    size_t cap = 16, n = 0, hcap = 64;
    while (hcap < 2 * limit + 2)
        hcap *= 2;
    const struct grGraphNode_st **stack = malloc(cap * sizeof *stack);
    const struct grGraphNode_st **seen = calloc(hcap, sizeof *seen);
    bool found = false;
    if (!stack || !seen)
        goto out;
    stack[n++] = from;
    while (n && !found) {
        const struct grGraphNode_st *x = stack[--n];
        if (x == to) {
            found = true;
            break;
        }
        size_t h = ((uintptr_t)x >> 4) & (hcap - 1);
        while (seen[h] && seen[h] != x)
            h = (h + 1) & (hcap - 1);
        if (seen[h])
            continue;
        seen[h] = x;
        for (size_t i = 0; i < x->nsuccs; i++) {
            if (n == cap) {
                const struct grGraphNode_st **ns = realloc(stack, 2 * cap * sizeof *ns);
                if (!ns)
                    goto out;
                stack = ns;
                cap *= 2;
            }
            stack[n++] = x->succs[i];
        }
    }
out:
    free(stack);
    free(seen);
    return found;
}

void gr__graphmem_free_node_removed(grGraph_t g, void *dptr)
{
    if (gr__graphmem_find_node(g, true, dptr, NULL))
        gr__graphmem_note_free(dptr, false);
}

bool gr__graphmem_has_nodes(grGraph_t g)
{
    return g->nmemnodes != 0 || g->nchildmem != 0;
}

struct grGraphNode_st *gr__graphmem_find_node(grGraph_t g, bool alloc, const void *dptr,
                                              struct grGraphNode_st **top)
{
    grGraphNodeType t = alloc ? grGraphNodeTypeMemAlloc : grGraphNodeTypeMemFree;
    for (struct grGraphNode_st *n = g->first; n; n = n->next) {
        struct grGraphNode_st *found = NULL;
        if (n->type == t && (alloc ? n->p.alloc.dptr : n->p.free.dptr) == dptr)
            found = n;
        else if (n->type == grGraphNodeTypeGraph && gr__graphmem_has_nodes(n->p.child))
            found = gr__graphmem_find_node(n->p.child, alloc, dptr, NULL);
        if (found) {
            if (top)
                *top = n;
            return found;
        }
    }
    return NULL;
}

/* Fills c with x and the child-graph nodes holding it, innermost first;
 * returns how many (the last one is a node of the top-level graph). */
static size_t holders(const struct grGraphNode_st *x, const struct grGraphNode_st **c)
{
    size_t k = 0;
    for (; x && k < GR_GRAPH_MAX_NEST + 2; x = x->graph->owner)
        c[k++] = x;
    return k;
}

bool gr__graphmem_ordered(const struct grGraphNode_st *from, const struct grGraphNode_st *to)
{
    const struct grGraphNode_st *f[GR_GRAPH_MAX_NEST + 2], *t[GR_GRAPH_MAX_NEST + 2];
    size_t i = holders(from, f), j = holders(to, t);
    /* Down from the top while both are inside the same child-graph node. */
    while (i > 0 && j > 0 && f[i - 1] == t[j - 1]) {
        i--;
        j--;
    }
    if (i == 0 || j == 0 || f[i - 1]->graph != t[j - 1]->graph)
        return false; /* one holds the other, or two hierarchies: no order */
    return gr__graph_reaches(f[i - 1], t[j - 1], f[i - 1]->graph->nnodes);
}

/* gr__graphmem_check_move's walk of c, at any depth. */
static grError_t check_move_in(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                               grGraph_t c)
{
    grError_t err = grSuccess;
    for (struct grGraphNode_st *n = c->first; n && !err; n = n->next) {
        struct grGraphNode_st *top = NULL;
        if (n->type == grGraphNodeTypeGraph && gr__graphmem_has_nodes(n->p.child)) {
            err = check_move_in(call, g, deps, ndeps, n->p.child);
        } else if (n->type == grGraphNodeTypeMemAlloc) {
            const struct grGraphNode_st *f = gr__graphmem_find_node(g, false, n->p.alloc.dptr, NULL);
            if (f)
                err = gr__fail(grErrorInvalidValue,
                               "%s: graph %p frees allocation %p of childGraph %p already (%s), and that "
                               "free node cannot depend on the child-graph node being added; free the "
                               "allocation after it instead",
                               call, GR_PTR(g), n->p.alloc.dptr, GR_PTR(c), gr__node_label(f));
        } else if (n->type == grGraphNodeTypeMemFree &&
                   gr__graphmem_find_node(g, true, n->p.free.dptr, &top)) {
            bool ordered = false;
            for (size_t i = 0; i < ndeps && !ordered; i++)
                ordered = gr__graph_reaches(top, deps[i], g->nnodes);
            if (!ordered)
                err = gr__fail(grErrorInvalidValue,
                               "%s: childGraph %p frees allocation %p of graph %p (%s), so the child-graph "
                               "node must depend (directly or not) on %s; add that dependency",
                               call, GR_PTR(c), n->p.free.dptr, GR_PTR(g), gr__node_label(n),
                               gr__node_label(top));
        }
    }
    return err;
}

grError_t gr__graphmem_check_move(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                  grGraph_t child)
{
    if (g->owner != NULL)
        return gr__fail(grErrorNotSupported,
                        "%s: childGraph %p has memory allocation or free nodes and graph %p is %s of %s; "
                        "such a graph is moved into a top-level graph only (CUDA: no memory node may be "
                        "added to a child graph or a conditional body)",
                        call, GR_PTR(child), GR_PTR(g),
                        g->owner->type == grGraphNodeTypeConditional ? "a body" : "the child graph",
                        gr__node_label(g->owner));
    return check_move_in(call, g, deps, ndeps, child);
}

grError_t gr__graphmem_check_free(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                  void *dptr, bool *own)
{
    bool elsewhere = false, foreign = false;
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(dptr);
    if (m) {
        elsewhere = m->freed_in_graph;
        foreign = m->freed_elsewhere;
    }
    gr__gmem_unlock();
    if (!m)
        return gr__fail(grErrorInvalidValue,
                        "%s: dptr %p was not returned by a graph allocation node; a free node frees the "
                        "address of an allocation node (free other memory with grFreeAsync or grFree)",
                        call, dptr);
    /* The allocation node may sit in a moved child graph: then the node
     * of g holding it is what the free node must follow. */
    struct grGraphNode_st *alloc = NULL, *top = NULL;
    const struct grGraphNode_st *twice = gr__graphmem_find_node(g, false, dptr, NULL);
    if (twice)
        return gr__fail(grErrorInvalidValue, "%s: allocation %p is freed already in this graph by %s", call,
                        dptr, gr__node_label(twice));
    alloc = gr__graphmem_find_node(g, true, dptr, &top);
    if (alloc && foreign)
        return gr__fail(grErrorInvalidValue,
                        "%s: allocation %p was given a free node in another graph; once another graph got "
                        "one, its own graph cannot free it (as in CUDA 13, also after that node is gone): "
                        "free it with grFreeAsync, grFree or the other graph's free node",
                        call, dptr);
    if (alloc) {
        bool ordered = false;
        for (size_t i = 0; i < ndeps && !ordered; i++)
            ordered = gr__graph_reaches(top, deps[i], g->nnodes);
        if (!ordered)
            return gr__fail(grErrorInvalidValue,
                            "%s: the free node of %p must depend (directly or not) on its %s%s%s; add that "
                            "dependency",
                            call, dptr, gr__node_label(alloc), top != alloc ? ", held by " : "",
                            top != alloc ? gr__node_label(top) : "");
    } else if (elsewhere) {
        return gr__fail(grErrorInvalidValue,
                        "%s: allocation %p belongs to another graph, which frees it itself; an allocation "
                        "freed in its own graph cannot be freed anywhere else",
                        call, dptr);
    }
    *own = alloc != NULL;
    if (!alloc) {
        /* The node-to-be's reference: its parameters' release drops it
         * (gr__node_params_free), on a failed add too. */
        gr__gmem_lock();
        m = gr__gmem_find_locked(dptr);
        bool gone = m == NULL || (m->freed_in_graph && !elsewhere);
        if (!gone) {
            m->foreign_frees++;
            m->freed_elsewhere = true;
            m->refs++;
        }
        gr__gmem_unlock();
        if (gone)
            return gr__fail(grErrorInvalidValue, "%s: allocation %p went away while its free node was added",
                            call, dptr);
    }
    return grSuccess;
}
