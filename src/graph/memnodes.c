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
    for (struct grGraphNode_st *n = g->first; n; n = n->next)
        if (n->type == grGraphNodeTypeMemAlloc && n->p.alloc.dptr == dptr) {
            gr__graphmem_note_free(dptr, false);
            return;
        }
}

bool gr__graphmem_has_nodes(grGraph_t g)
{
    return g->nmemnodes != 0;
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
    struct grGraphNode_st *alloc = NULL;
    for (struct grGraphNode_st *n = g->first; n; n = n->next) {
        if (n->type == grGraphNodeTypeMemFree && n->p.free.dptr == dptr)
            return gr__fail(grErrorInvalidValue, "%s: allocation %p is freed already in this graph by %s",
                            call, dptr, gr__node_label(n));
        if (n->type == grGraphNodeTypeMemAlloc && n->p.alloc.dptr == dptr)
            alloc = n;
    }
    if (alloc && foreign)
        return gr__fail(grErrorInvalidValue,
                        "%s: allocation %p was given a free node in another graph; once another graph got "
                        "one, its own graph cannot free it (as in CUDA 13, also after that node is gone): "
                        "free it with grFreeAsync, grFree or the other graph's free node",
                        call, dptr);
    if (alloc) {
        bool ordered = false;
        for (size_t i = 0; i < ndeps && !ordered; i++)
            ordered = gr__graph_reaches(alloc, deps[i], g->nnodes);
        if (!ordered)
            return gr__fail(grErrorInvalidValue,
                            "%s: the free node of %p must depend (directly or not) on its %s; add that "
                            "dependency",
                            call, dptr, gr__node_label(alloc));
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
