/*
 * analyze_int.h - the flat form of a graph that grGraphAnalyze's passes
 * share (analyze.c builds it, analyze_forkjoin.c reads it).
 *
 * Nodes are numbered in a topological order (order[i] is node i, and
 * every node's 'scratch' holds its number while the analysis runs), so an
 * edge always goes from a lower number to a higher one. Edges are copied
 * into CSR arrays of those numbers, in each node's edge order.
 */
#ifndef GR_GRAPH_ANALYZE_INT_H
#define GR_GRAPH_ANALYZE_INT_H

#include "../graph.h"

typedef struct gr_shape {
    grGraph_t g;
    size_t n, m;
    struct grGraphNode_st **order; /* n nodes, topological order */
    size_t *succ_off;              /* n + 1 offsets into succ */
    size_t *succ;                  /* m successor numbers */
    unsigned char *redundant;      /* m gr_edge_kind values, parallel to succ */
} gr_shape;

typedef enum gr_edge_kind {
    GR_EDGE_NEEDED = 0,
    GR_EDGE_REDUNDANT,       /* a finding */
    GR_EDGE_REDUNDANT_STREAM /* redundant, along one captured stream's order */
} gr_edge_kind;

/* The number of node n in the shape's order. */
static inline size_t gr__shape_index(const struct grGraphNode_st *n)
{
    return (size_t)n->scratch;
}

/* Finds the serialised fork-joins among the redundant edges of s into
 * r->serialisedJoins (count and details). False when out of memory. */
bool gr__analyze_forkjoins(const gr_shape *s, grGraphAnalysis *r);

/* Frees what one finding owns. */
void gr__analyze_forkjoin_free(grGraphSerialisedJoin *j);

#endif /* GR_GRAPH_ANALYZE_INT_H */
