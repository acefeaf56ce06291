/*
 * analyze.c - grGraphAnalyze: a graph's shape (levels and their widths, a
 * critical path, components) and the findings that make a legal graph
 * slow: redundant edges, detached nodes and (analyze_forkjoin.c)
 * serialised fork-joins.
 *
 * Every pass runs over the flat form of analyze_int.h. The redundant
 * edges take the only super-linear pass: for a block of target nodes at a
 * time, each node gets the bit set of the block's nodes it reaches,
 * computed in reverse topological order as the union of its successors'
 * sets; an edge u -> v is redundant when v is in the set of another
 * successor of u. With blocks as wide as 64 MiB of sets allows, that is
 * O(V * E / 64) word operations and bounded memory for any graph size.
 *
 * Nothing here changes the graph but the nodes' 'scratch' (graph.h).
 */
#include "analyze_int.h"

#include <math.h>
#include <string.h>

/* Memory for the reachability sets of one block of targets. */
#define GR_ANALYZE_SETS_BYTES ((size_t)64 << 20)

static void shape_free(gr_shape *s)
{
    gr__free(s->order);
    gr__free(s->succ_off);
    gr__free(s->succ);
    gr__free(s->redundant);
}

static bool shape_build(grGraph_t g, gr_shape *s)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->n = g->nnodes;
    s->m = g->nedges;
    s->order = gr__malloc((s->n ? s->n : 1) * sizeof *s->order);
    s->succ_off = gr__malloc((s->n + 1) * sizeof *s->succ_off);
    s->succ = gr__malloc((s->m ? s->m : 1) * sizeof *s->succ);
    s->redundant = gr__calloc(s->m ? s->m : 1, sizeof *s->redundant);
    if (!s->order || !s->succ_off || !s->succ || !s->redundant)
        return false;
    /* Graphs are acyclic after every public call, so the sort succeeds. */
    bool sorted = gr__graph_topo_sort(g, s->order);
    gr_assert(sorted);
    (void)sorted;
    for (size_t i = 0; i < s->n; i++)
        s->order[i]->scratch = i;
    size_t e = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct grGraphNode_st *u = s->order[i];
        s->succ_off[i] = e;
        for (size_t k = 0; k < u->nsuccs; k++)
            s->succ[e++] = gr__shape_index(u->succs[k]);
    }
    s->succ_off[s->n] = e;
    return true;
}

/* Levels, widths and a critical path (costliest by cost[], or longest in
 * nodes when cost is NULL; cost is in topological order). */
static bool shape_levels(const gr_shape *s, const double *cost, grGraphAnalysis *r)
{
    size_t n = s->n;
    if (n == 0)
        return true;
    size_t *level = gr__malloc(n * sizeof *level);
    double *best = gr__malloc(n * sizeof *best);
    size_t *prev = gr__malloc(n * sizeof *prev);
    bool ok = level && best && prev;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            level[i] = 0;
            best[i] = 0;
            prev[i] = SIZE_MAX;
        }
        /* Forward over the order: every predecessor of i is done first,
         * so pushing i's values to its successors finishes them in time. */
        size_t deepest = 0, end = 0;
        for (size_t i = 0; i < n; i++) {
            best[i] += cost ? cost[i] : 1.0;
            if (level[i] > deepest)
                deepest = level[i];
            if (best[i] > best[end])
                end = i;
            for (size_t e = s->succ_off[i]; e < s->succ_off[i + 1]; e++) {
                size_t v = s->succ[e];
                if (level[i] + 1 > level[v])
                    level[v] = level[i] + 1;
                if (prev[v] == SIZE_MAX || best[i] > best[v]) {
                    best[v] = best[i];
                    prev[v] = i;
                }
            }
        }
        r->depth = r->numLevels = deepest + 1;
        r->levelWidths = gr__calloc(r->numLevels, sizeof *r->levelWidths);
        size_t len = 0;
        for (size_t i = end; i != SIZE_MAX; i = prev[i])
            len++;
        r->criticalPath = gr__malloc(len * sizeof *r->criticalPath);
        ok = r->levelWidths && r->criticalPath;
        if (ok) {
            for (size_t i = 0; i < n; i++)
                if (++r->levelWidths[level[i]] > r->maxWidth)
                    r->maxWidth = r->levelWidths[level[i]];
            r->averageWidth = (double)n / (double)r->depth;
            r->numCriticalPath = len;
            for (size_t i = end; i != SIZE_MAX; i = prev[i])
                r->criticalPath[--len] = s->order[i];
            r->criticalPathCost = cost ? best[end] : 0.0;
        }
    }
    gr__free(level);
    gr__free(best);
    gr__free(prev);
    return ok;
}

static size_t uf_find(size_t *parent, size_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Roots, sinks, components and the nodes outside the largest one (ties:
 * the component of the first node created). */
static bool shape_components(const gr_shape *s, grGraphAnalysis *r)
{
    size_t n = s->n;
    if (n == 0)
        return true;
    size_t *parent = gr__malloc(n * sizeof *parent);
    size_t *size = gr__calloc(n, sizeof *size);
    bool ok = parent && size;
    if (ok) {
        for (size_t i = 0; i < n; i++)
            parent[i] = i;
        for (size_t i = 0; i < n; i++) {
            const struct grGraphNode_st *u = s->order[i];
            r->numRoots += u->ndeps == 0;
            r->numSinks += u->nsuccs == 0;
            for (size_t e = s->succ_off[i]; e < s->succ_off[i + 1]; e++) {
                size_t a = uf_find(parent, i), b = uf_find(parent, s->succ[e]);
                if (a != b)
                    parent[a] = b;
            }
        }
        for (size_t i = 0; i < n; i++)
            if (size[uf_find(parent, i)]++ == 0)
                r->numComponents++;
        size_t biggest = SIZE_MAX;
        struct grGraphNode_st *u;
        GR_GRAPH_FOR_EACH_NODE (s->g, u) {
            size_t c = uf_find(parent, gr__shape_index(u));
            if (biggest == SIZE_MAX || size[c] > size[biggest])
                biggest = c;
        }
        r->numDetachedNodes = n - size[biggest];
        if (r->numDetachedNodes) {
            r->detachedNodes = gr__malloc(r->numDetachedNodes * sizeof *r->detachedNodes);
            ok = r->detachedNodes != NULL;
            size_t k = 0;
            if (ok)
                GR_GRAPH_FOR_EACH_NODE (s->g, u)
                    if (uf_find(parent, gr__shape_index(u)) != biggest)
                        r->detachedNodes[k++] = u;
        }
    }
    gr__free(parent);
    gr__free(size);
    return ok;
}

/* True if u -> v follows one captured stream's order. Capture makes such
 * an edge redundant whenever a stream joins branches it forked without
 * work of its own in between (its previous node stays a dependency of the
 * join); that is the normal shape of a fork-join, so it is counted apart
 * from the findings. */
static bool along_stream(const struct grGraphNode_st *u, const struct grGraphNode_st *v)
{
    return u->lane != 0 && u->lane == v->lane;
}

/* Marks s->redundant (see the file comment). */
static bool shape_redundant(gr_shape *s)
{
    size_t n = s->n;
    if (n == 0 || s->m == 0)
        return true;
    size_t words = GR_ANALYZE_SETS_BYTES / sizeof(uint64_t) / n;
    if (words == 0)
        words = 1;
    if (words > (n + 63) / 64)
        words = (n + 63) / 64;
    uint64_t *sets = gr__malloc(n * words * sizeof *sets);
    uint64_t *t = gr__malloc(words * sizeof *t);
    bool ok = sets && t;
    for (size_t b0 = 0; ok && b0 < n; b0 += 64 * words) {
        size_t b1 = b0 + 64 * words < n ? b0 + 64 * words : n;
        /* Nodes numbered b1 and above reach no node of the block. */
        for (size_t u = b1; u-- > 0;) {
            memset(t, 0, words * sizeof *t);
            for (size_t e = s->succ_off[u]; e < s->succ_off[u + 1]; e++) {
                size_t v = s->succ[e];
                if (v < b1) {
                    const uint64_t *sv = sets + v * words;
                    for (size_t w = 0; w < words; w++)
                        t[w] |= sv[w];
                }
            }
            uint64_t *su = sets + u * words;
            memcpy(su, t, words * sizeof *t);
            for (size_t e = s->succ_off[u]; e < s->succ_off[u + 1]; e++) {
                size_t v = s->succ[e];
                if (v < b0 || v >= b1)
                    continue;
                size_t bit = v - b0;
                if ((t[bit / 64] >> (bit % 64)) & 1u)
                    s->redundant[e] =
                        along_stream(s->order[u], s->order[v]) ? GR_EDGE_REDUNDANT_STREAM : GR_EDGE_REDUNDANT;
                su[bit / 64] |= (uint64_t)1 << (bit % 64);
            }
        }
    }
    gr__free(sets);
    gr__free(t);
    return ok;
}

/* The redundant edges into r, in creation order of their sources. */
static bool list_redundant(const gr_shape *s, grGraphAnalysis *r)
{
    size_t count = 0;
    for (size_t e = 0; e < s->m; e++) {
        count += s->redundant[e] == GR_EDGE_REDUNDANT;
        r->numRedundantStreamEdges += s->redundant[e] == GR_EDGE_REDUNDANT_STREAM;
    }
    if (count == 0)
        return true;
    r->redundantEdges = gr__malloc(count * sizeof *r->redundantEdges);
    if (!r->redundantEdges)
        return false;
    struct grGraphNode_st *u;
    size_t k = 0;
    GR_GRAPH_FOR_EACH_NODE (s->g, u) {
        size_t i = gr__shape_index(u);
        for (size_t e = s->succ_off[i]; e < s->succ_off[i + 1]; e++)
            if (s->redundant[e] == GR_EDGE_REDUNDANT)
                r->redundantEdges[k++] = (grGraphAnalysisEdge){u, s->order[s->succ[e]]};
    }
    r->numRedundantEdges = k;
    return true;
}

static bool from_capture(grGraph_t g)
{
    struct grGraphNode_st *u;
    if (g->lanes_used == 0)
        return false;
    GR_GRAPH_FOR_EACH_NODE (g, u)
        if (u->lane != 0)
            return true;
    return false;
}

static grError_t analyze(const char *call, grGraph_t graph, grGraphAnalysis *report, unsigned int flags,
                         const double *costs, size_t ncosts)
{
    grError_t err;
    if ((err = gr__graph_check(call, graph)))
        return err;
    if (report == NULL)
        return gr__fail(grErrorInvalidValue, "%s: report is NULL", call);
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags %#x are not 0 (no flags are defined)", call, flags);
    if (costs && ncosts != graph->nnodes)
        return gr__fail(grErrorInvalidValue,
                        "%s: numNodeCosts is %zu but the graph has %zu nodes (one cost per node, in the "
                        "order grGraphGetNodes lists them)",
                        call, ncosts, graph->nnodes);
    for (size_t i = 0; costs && i < ncosts; i++)
        if (!isfinite(costs[i]) || costs[i] < 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: nodeCosts[%zu] is %g; a cost must be finite and not negative", call, i,
                            costs[i]);
    grGraphAnalysis r;
    gr_shape s;
    double *cost = NULL;
    memset(&r, 0, sizeof r);
    r.graph = graph;
    bool ok = shape_build(graph, &s);
    if (ok && costs) {
        /* Costs come in creation order; the passes want them by number. */
        cost = gr__malloc((s.n ? s.n : 1) * sizeof *cost);
        ok = cost != NULL;
        struct grGraphNode_st *u;
        size_t k = 0;
        if (ok)
            GR_GRAPH_FOR_EACH_NODE (graph, u)
                cost[gr__shape_index(u)] = costs[k++];
    }
    if (ok) {
        r.numNodes = s.n;
        r.numEdges = s.m;
        r.fromCapture = from_capture(graph);
        ok = shape_levels(&s, cost, &r) && shape_components(&s, &r) && shape_redundant(&s) &&
             list_redundant(&s, &r) && gr__analyze_forkjoins(&s, &r);
    }
    gr__free(cost);
    shape_free(&s);
    if (!ok) {
        grGraphAnalysisDestroy(&r);
        memset(report, 0, sizeof *report);
        return gr__fail(grErrorMemoryAllocation,
                        "%s: out of memory analysing a graph of %zu nodes and %zu "
                        "edges",
                        call, graph->nnodes, graph->nedges);
    }
    *report = r;
    return grSuccess;
}

GR_API grError_t grGraphAnalyze(grGraph_t graph, grGraphAnalysis *report, unsigned int flags)
{
    return analyze("grGraphAnalyze", graph, report, flags, NULL, 0);
}

GR_API grError_t grGraphAnalyzeWithCosts(grGraph_t graph, grGraphAnalysis *report, unsigned int flags,
                                         const double *nodeCosts, size_t numNodeCosts)
{
    if (nodeCosts == NULL)
        return gr__fail(grErrorInvalidValue, "grGraphAnalyzeWithCosts: nodeCosts is NULL");
    return analyze("grGraphAnalyzeWithCosts", graph, report, flags, nodeCosts, numNodeCosts);
}

GR_API grError_t grGraphAnalysisDestroy(grGraphAnalysis *report)
{
    if (report == NULL)
        return gr__fail(grErrorInvalidValue, "grGraphAnalysisDestroy: report is NULL");
    gr__free(report->levelWidths);
    gr__free(report->criticalPath);
    gr__free(report->redundantEdges);
    gr__free(report->detachedNodes);
    for (size_t i = 0; i < report->numSerialisedJoins; i++)
        gr__analyze_forkjoin_free(&report->serialisedJoins[i]);
    gr__free(report->serialisedJoins);
    memset(report, 0, sizeof *report);
    return grSuccess;
}
