/*
 * clone.c - deep copies of graphs (grGraphClone, child-graph nodes) and
 * grGraphNodeFindInClone.
 *
 * Invariants of a clone: its nodes are created in the original's creation
 * order with the same seq and sink_seq numbers (and next_seq, sink_clock),
 * so its sinks pair in the original's order and seq still grows along
 * the list; every edge array holds the images of the original's entries in
 * the same order; clone->cloned_from_uid is the original's uid (never
 * its address, which a later graph may get), and its nodes with a seq
 * below clone->cloned_seq_end are the copies of the original's nodes of
 * the same seq. Cloning never writes to the
 * original (the original's nodes are looked up by seq, not marked), so it
 * may read a graph that other code is only reading.
 */
#include "graph.h"

#include "../memory/graphmem.h"

/* The clone of the node with 'seq' among map[0..n), sorted by seq; 'dense'
 * says the seqs are exactly 0..n-1 (no node ever destroyed), so the seq is
 * the index. */
static struct grGraphNode_st *image(struct grGraphNode_st **map, size_t n, bool dense, uint64_t seq)
{
    size_t lo = 0, hi = n;
    if (GR_LIKELY(dense))
        return map[seq];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (map[mid]->seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    gr_assert(lo < n && map[lo]->seq == seq);
    return map[lo];
}

/* Copies src's nodes into c in creation order, without edges, recording
 * each copy in map[i] and the original in its scratch (for
 * link_clone_edges). Returns false on failure: *err is grSuccess when it
 * ran out of memory (the caller reports it) or the error a params copy
 * already reported. Each node is linked before anything can fail, so a
 * failure leaves all of them to gr__graph_free. */
static bool clone_nodes(grGraph_t c, grGraph_t src, struct grGraphNode_st **map, grError_t *err)
{
    struct grGraphNode_st *sn, *cn;
    size_t i;
    *err = grSuccess;
    for (sn = src->first, i = 0; sn != NULL; sn = sn->next, i++) {
        cn = gr__graph_node_new(c, sn->ndeps);
        if (cn == NULL)
            return false;
        /* Linked right away, with no edges yet, so that a failure below
         * leaves it to gr__graph_free like the nodes before it. */
        cn->type = grGraphNodeTypeEmpty;
        cn->prev = c->last;
        if (c->last)
            c->last->next = cn;
        else
            c->first = cn;
        c->last = cn;
        c->nnodes++;
        if (!gr__node_reserve_edges(cn, sn->ndeps, sn->nsuccs))
            return false;
        if ((*err = gr__node_params_copy(sn->type, &cn->p, &sn->p)) != grSuccess)
            return false;
        if (sn->kattrs && !gr__node_attrs_copy(cn, sn))
            return false;
        cn->magic = GR_MAGIC_NODE;
        cn->type = sn->type;
        c->nmemops += cn->type == grGraphNodeTypeBatchMemOp;
        cn->seq = sn->seq;
        cn->dev1 = sn->dev1;
        cn->sink_seq = sn->sink_seq;
        cn->scratch = (uint64_t)(uintptr_t)sn; /* this walk's: the original */
        if (cn->type == grGraphNodeTypeGraph)
            cn->p.child->owner = cn;
        map[i] = cn;
    }
    return true;
}

/* Gives the n copies in map the original's edges and edge notes, mapped
 * through image(). Returns false when the notes' array cannot grow. */
static bool link_clone_edges(grGraph_t c, grGraph_t src, struct grGraphNode_st **map, size_t n, bool dense)
{
    struct grGraphNode_st *sn, *cn;
    size_t i, j;
    for (i = 0; i < n; i++) {
        sn = (struct grGraphNode_st *)(uintptr_t)map[i]->scratch;
        cn = map[i];
        for (j = 0; j < sn->ndeps; j++)
            cn->deps[j] = image(map, n, dense, sn->deps[j]->seq);
        for (j = 0; j < sn->nsuccs; j++)
            cn->succs[j] = image(map, n, dense, sn->succs[j]->seq);
        cn->ndeps = sn->ndeps;
        cn->nsuccs = sn->nsuccs;
    }
    c->nedges = src->nedges;
    if (src->nnotes) {
        if (!gr__edge_notes_reserve(c, src->nnotes))
            return false;
        for (i = 0; i < src->nnotes; i++)
            gr__edge_note_add(c, image(map, n, dense, src->notes[i].from->seq),
                              image(map, n, dense, src->notes[i].to->seq), &src->notes[i].data);
    }
    return true;
}

grError_t gr__graph_clone(grGraph_t src, grGraph_t *out)
{
    grGraph_t c;
    struct grGraphNode_st **map;
    size_t n = src->nnodes;
    grError_t err;
    /* seq grows strictly along the list from 0 up, so n nodes whose last
     * seq is n - 1 hold exactly the seqs 0..n-1. */
    bool dense = n == 0 || src->last->seq == n - 1;
    c = gr__graph_new();
    map = gr__calloc(n, sizeof *map);
    if (c == NULL || map == NULL) {
        gr__graph_free(c);
        gr__free(map);
        return gr__fail(grErrorMemoryAllocation, "out of memory cloning a graph of %zu nodes", n);
    }
    c->cloned_from_uid = src->uid;
    c->born_gen = src->born_gen; /* its nodes' values are the original's */
    /* The clone's nodes point into the same loaded buffers. */
    c->res = src->res;
    gr__file_res_retain(c->res);
    /* The clone holds references of the user objects the original holds
     * (CUDA: a clone copies them; a child-graph node's copy holds them). */
    if (!gr__urefs_append(&c->urefs, &src->urefs, 0))
        goto oom;
    c->cloned_seq_end = src->next_seq;
    c->dev_mask = src->dev_mask;
    c->next_seq = src->next_seq;
    c->sink_clock = src->sink_clock; /* sinks in the original's order */
    /* One slab chunk for the whole clone when it fits one. */
    c->slab_next = n;
    if (!clone_nodes(c, src, map, &err)) {
        if (err == grSuccess)
            goto oom;
        gr__graph_free(c);
        gr__free(map);
        return err;
    }
    if (!link_clone_edges(c, src, map, n, dense))
        goto oom;
    gr__free(map);
    *out = c;
    return grSuccess;
oom:
    gr__graph_free(c);
    gr__free(map);
    return gr__fail(grErrorMemoryAllocation, "out of memory cloning a graph of %zu nodes", n);
}

GR_API grError_t grGraphClone(grGraph_t *pGraphClone, grGraph_t originalGraph)
{
    static const char call[] = "grGraphClone";
    grError_t err;
    if (pGraphClone == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pGraphClone is NULL; pass where to store the clone", call);
    if ((err = gr__graph_check(call, originalGraph)) != grSuccess)
        return err;
    if (gr__graph_has_devupd(originalGraph))
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p holds device-updatable kernel nodes; such a graph cannot be cloned, as "
                        "in CUDA",
                        call, GR_PTR(originalGraph));
    if (gr__graph_has_conditional(originalGraph) || gr__graph_in_body(originalGraph))
        return gr__fail(
            grErrorNotSupported,
            "%s: graph %p %s; graphs with conditional nodes and their bodies cannot be cloned, as "
            "in CUDA",
            call, GR_PTR(originalGraph),
            gr__graph_in_body(originalGraph) ? "is a conditional node's body" : "has conditional nodes");
    if (gr__graphmem_has_nodes(originalGraph))
        return gr__fail(
            grErrorNotSupported,
            "%s: graph %p has memory allocation or free nodes; such a graph cannot be cloned, as in "
            "CUDA (build a second graph instead)",
            call, GR_PTR(originalGraph));
    if ((err = gr__graph_clone(originalGraph, pGraphClone)) != grSuccess)
        return gr__fail(err, "%s: out of memory cloning graph %p of %zu nodes", call, GR_PTR(originalGraph),
                        originalGraph->nnodes);
    gr_assert_expensive(gr__graph_is_valid(*pGraphClone));
    return grSuccess;
}

GR_API grError_t grGraphNodeFindInClone(grGraphNode_t *pNode, grGraphNode_t originalNode,
                                        grGraph_t clonedGraph)
{
    static const char call[] = "grGraphNodeFindInClone";
    grError_t err;
    struct grGraphNode_st *n;
    if (pNode == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pNode is NULL; pass where to store the node", call);
    if ((err = gr__node_check_at(call, originalNode, "originalNode", SIZE_MAX)) != grSuccess)
        return err;
    if ((err = gr__graph_check(call, clonedGraph)) != grSuccess)
        return err;
    if (clonedGraph->cloned_from_uid != originalNode->graph->uid)
        return gr__fail(
            grErrorInvalidValue,
            "%s: graph %p is not a clone of graph %p that holds originalNode (%s); pass the graph "
            "that grGraphClone made from it",
            call, GR_PTR(clonedGraph), GR_PTR(originalNode->graph), gr__node_label(originalNode));
    /* The clone's list is in seq order, its copies first. */
    if (originalNode->seq < clonedGraph->cloned_seq_end)
        for (n = clonedGraph->first; n != NULL && n->seq <= originalNode->seq; n = n->next)
            if (n->seq == originalNode->seq) {
                *pNode = n;
                return grSuccess;
            }
    return gr__fail(
        grErrorInvalidValue,
        "%s: the clone %p has no node cloned from %s (it was added to the original after the clone "
        "was made, or destroyed in the clone)",
        call, GR_PTR(clonedGraph), gr__node_label(originalNode));
}
