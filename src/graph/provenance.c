/*
 * provenance.c - what a captured graph remembers of its capture: the
 * stream behind each node (lanes) and the event waits behind the edges
 * between streams, for grGraphAnalyze to name the calls that chained two
 * branches.
 *
 * Cost: a captured operation stores its lane in its node (a word the node
 * had as padding) and tests one flag of its stream; only a fork, a join or
 * another cross-stream wait allocates and appends a note here (a capture
 * that never forks has numbered lanes and nothing else). Everything is best effort
 * (graph.h): out of memory, the graph knows less and nothing fails.
 */
#include "graph.h"

#include <string.h>

static gr_graph_prov *prov_get(grGraph_t g)
{
    if (!g->prov)
        g->prov = gr__calloc(1, sizeof *g->prov);
    return g->prov;
}

uint32_t gr__prov_lane_new(grGraph_t g)
{
    if (g->lanes_used == UINT32_MAX)
        return 0;
    return ++g->lanes_used;
}

void gr__prov_lane_name(grGraph_t g, uint32_t lane, uint64_t capture_id, const void *stream)
{
    gr_graph_prov *pv = prov_get(g);
    if (!pv || lane == 0)
        return;
    if (pv->nlanes == pv->caplanes) {
        uint32_t cap = pv->caplanes ? 2 * pv->caplanes : 4;
        gr_lane *l = pv->caplanes < UINT32_MAX / 2 ? gr__realloc(pv->lanes, (size_t)cap * sizeof *l) : NULL;
        if (!l)
            return;
        pv->lanes = l;
        pv->caplanes = cap;
    }
    pv->lanes[pv->nlanes++] = (gr_lane){lane, capture_id, stream};
}

bool gr__prov_wait_add(grGraph_t g, const gr_wait_note *note)
{
    gr_graph_prov *pv = prov_get(g);
    if (!pv)
        return false;
    if (pv->nwaits == pv->capwaits) {
        size_t cap = pv->capwaits ? 2 * pv->capwaits : 8;
        gr_wait_note *w = gr__realloc(pv->waits, cap * sizeof *w);
        if (!w)
            return false;
        pv->waits = w;
        pv->capwaits = cap;
    }
    struct grGraphNode_st **named = NULL;
    if (note->nnamed) {
        named = gr__malloc(note->nnamed * sizeof *named);
        if (!named)
            return false;
        memcpy(named, note->named, note->nnamed * sizeof *named);
    }
    gr_wait_note *w = &pv->waits[pv->nwaits++];
    *w = *note;
    w->named = named;
    w->target = NULL;
    return true;
}

void gr__prov_wait_target(grGraph_t g, uint32_t lane, struct grGraphNode_st *node)
{
    gr_graph_prov *pv = g->prov;
    if (!pv)
        return;
    /* The waits since the lane's previous node are the latest of its
     * notes; older ones have their target already. */
    for (size_t i = pv->nwaits; i-- > 0;) {
        gr_wait_note *w = &pv->waits[i];
        if (w->wait_lane != lane)
            continue;
        if (w->target)
            break;
        w->target = node;
    }
}

const gr_wait_note *gr__prov_edge_cause(grGraph_t g, const struct grGraphNode_st *from,
                                        const struct grGraphNode_st *to)
{
    gr_graph_prov *pv = g->prov;
    if (!pv)
        return NULL;
    for (size_t i = pv->nwaits; i-- > 0;) {
        const gr_wait_note *w = &pv->waits[i];
        if (w->target != to)
            continue;
        for (size_t k = 0; k < w->nnamed; k++)
            if (w->named[k] == from)
                return w;
    }
    return NULL;
}

const void *gr__prov_node_stream(grGraph_t g, const struct grGraphNode_st *n)
{
    gr_graph_prov *pv = g->prov;
    if (!pv || n->lane == 0)
        return NULL;
    /* A graph has a lane per stream of each capture into it: few. */
    for (uint32_t i = 0; i < pv->nlanes; i++)
        if (pv->lanes[i].lane == n->lane)
            return pv->lanes[i].stream;
    return NULL;
}

void gr__prov_free(grGraph_t g)
{
    gr_graph_prov *pv = g->prov;
    if (!pv)
        return;
    for (size_t i = 0; i < pv->nwaits; i++)
        gr__free(pv->waits[i].named);
    gr__free(pv->waits);
    gr__free(pv->lanes);
    gr__free(pv);
    g->prov = NULL;
}
