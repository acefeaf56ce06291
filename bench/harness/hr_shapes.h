/*
 * hr_shapes.h - the graph shapes every benchmark replays, generated once:
 * graphrt's bench_graph, the grain programs and every peer runtime build
 * their graphs from these, so that a row of one compares with a row of
 * another task for task and edge for edge.
 *
 *   chain   N : 0 -> 1 -> ... -> N-1
 *   fan     W : root(0) -> W independent tasks (1..W) -> sink(W+1)  (W+2 tasks)
 *   rand    N : task i has min(deg, i) distinct predecessors drawn uniformly
 *               from [max(0, i-window), i-1] (xorshift64*, fixed seed)
 *   layered L : L layers of W; every task of layer l > 0 has deg distinct
 *               predecessors drawn uniformly from layer l-1 (fixed seed)
 *
 * Invariants: task ids are a topological order (every edge goes from a lower
 * id to a higher one); pred_off/succ_off are CSR offsets with n+1 entries,
 * pred and succ list the same edges in both directions; src lists the tasks
 * without predecessors. The seeds are fixed, so a shape is the same graph
 * in every program and every run. Valid C and C++.
 */
#ifndef HR_SHAPES_H
#define HR_SHAPES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hr_time.h"

typedef struct graph_t {
    int n;                /* number of tasks */
    int *pred_off, *pred; /* CSR predecessors, pred_off has n+1 entries */
    int *succ_off, *succ; /* CSR successors */
    int nsrc, *src;       /* tasks without predecessors */
    const char *shape;
    int param;
} graph_t;

static HR_UNUSED void *hr_xmalloc(size_t sz)
{
    void *p = malloc(sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", sz);
        exit(1);
    }
    return p;
}

/* Builds the successor CSR and the source list from the predecessor CSR. */
static void hr_graph_finish(graph_t *g)
{
    int n = g->n, i, k;
    int ne = g->pred_off[n];
    int *cnt = HR_CAST(int *, calloc((size_t)n + 1, sizeof(int)));
    g->succ_off = HR_CAST(int *, hr_xmalloc(sizeof(int) * ((size_t)n + 1)));
    g->succ = HR_CAST(int *, hr_xmalloc(sizeof(int) * (size_t)ne));
    for (i = 0; i < ne; i++)
        cnt[g->pred[i]]++;
    g->succ_off[0] = 0;
    for (i = 0; i < n; i++)
        g->succ_off[i + 1] = g->succ_off[i] + cnt[i];
    memset(cnt, 0, sizeof(int) * ((size_t)n + 1));
    for (i = 0; i < n; i++)
        for (k = g->pred_off[i]; k < g->pred_off[i + 1]; k++) {
            int p = g->pred[k];
            g->succ[g->succ_off[p] + cnt[p]++] = i;
        }
    free(cnt);
    g->nsrc = 0;
    g->src = HR_CAST(int *, hr_xmalloc(sizeof(int) * (size_t)n));
    for (i = 0; i < n; i++)
        if (g->pred_off[i] == g->pred_off[i + 1])
            g->src[g->nsrc++] = i;
}

static graph_t *hr_graph_new(const char *shape, int param, int n, size_t max_edges)
{
    graph_t *g = HR_CAST(graph_t *, calloc(1, sizeof(graph_t)));
    if (!g)
        exit(1);
    g->n = n;
    g->shape = shape;
    g->param = param;
    g->pred_off = HR_CAST(int *, hr_xmalloc(sizeof(int) * ((size_t)n + 1)));
    g->pred = HR_CAST(int *, hr_xmalloc(sizeof(int) * max_edges));
    return g;
}

static HR_UNUSED graph_t *gen_chain(int N)
{
    graph_t *g = hr_graph_new("chain", N, N, (size_t)N);
    int i, e = 0;
    for (i = 0; i < N; i++) {
        g->pred_off[i] = e;
        if (i > 0)
            g->pred[e++] = i - 1;
    }
    g->pred_off[N] = e;
    hr_graph_finish(g);
    return g;
}

static HR_UNUSED graph_t *gen_fan(int W)
{
    graph_t *g = hr_graph_new("fan", W, W + 2, 2 * (size_t)W);
    int i, e = 0;
    g->pred_off[0] = 0;
    for (i = 1; i <= W; i++) {
        g->pred_off[i] = e;
        g->pred[e++] = 0;
    }
    g->pred_off[W + 1] = e;
    for (i = 1; i <= W; i++)
        g->pred[e++] = i;
    g->pred_off[W + 2] = e;
    hr_graph_finish(g);
    return g;
}

/* xorshift64*: the shapes' one random source, reseeded by each generator. */
static uint64_t hr_xs_state;
static uint64_t hr_xs_next(void)
{
    hr_xs_state ^= hr_xs_state >> 12;
    hr_xs_state ^= hr_xs_state << 25;
    hr_xs_state ^= hr_xs_state >> 27;
    return hr_xs_state * 0x2545F4914F6CDD1Dull;
}

/* Appends a predecessor drawn from [lo, lo + avail) unless task i has it. */
static int hr_add_pred(graph_t *g, int i, int *e, int lo, int avail)
{
    int p = lo + (int)(hr_xs_next() % (uint64_t)avail), k;
    for (k = g->pred_off[i]; k < *e; k++)
        if (g->pred[k] == p)
            return 0;
    g->pred[(*e)++] = p;
    return 1;
}

static HR_UNUSED graph_t *gen_rand(int N, int deg, int window, uint64_t seed)
{
    graph_t *g = hr_graph_new("rand", N, N, (size_t)N * (size_t)deg);
    int i, e = 0;
    hr_xs_state = seed ? seed : 1;
    for (i = 0; i < N; i++) {
        int lo = i - window < 0 ? 0 : i - window;
        int avail = i - lo, want = deg < avail ? deg : avail, got = 0;
        g->pred_off[i] = e;
        while (got < want)
            got += hr_add_pred(g, i, &e, lo, avail);
    }
    g->pred_off[N] = e;
    hr_graph_finish(g);
    return g;
}

static HR_UNUSED graph_t *gen_layered(int L, int W, int deg, uint64_t seed)
{
    graph_t *g = hr_graph_new("layered", L, L * W, (size_t)L * (size_t)W * (size_t)deg);
    int i, e = 0;
    hr_xs_state = seed ? seed : 1;
    for (i = 0; i < L * W; i++) {
        int l = i / W, got = 0;
        g->pred_off[i] = e;
        while (l > 0 && got < deg)
            got += hr_add_pred(g, i, &e, (l - 1) * W, W);
    }
    g->pred_off[L * W] = e;
    hr_graph_finish(g);
    return g;
}

static HR_UNUSED void graph_free(graph_t *g)
{
    free(g->pred_off);
    free(g->pred);
    free(g->succ_off);
    free(g->succ);
    free(g->src);
    free(g);
}

/* The longest path, in tasks (the critical path). */
static HR_UNUSED int graph_depth(const graph_t *g)
{
    int *d = HR_CAST(int *, calloc((size_t)g->n, sizeof(int))), i, k, best = 0;
    for (i = 0; i < g->n; i++) {
        int m = 0;
        for (k = g->pred_off[i]; k < g->pred_off[i + 1]; k++)
            if (d[g->pred[k]] > m)
                m = d[g->pred[k]];
        d[i] = m + 1;
        if (d[i] > best)
            best = d[i];
    }
    free(d);
    return best;
}

/* The overhead sweep: chain and fan of 10 to 10,000, rand of 10,000. */
#define HR_OVERHEAD_SHAPES 9
static HR_UNUSED graph_t *hr_overhead_shape(int k)
{
    static const int sizes[4] = {10, 100, 1000, 10000};
    if (k < 4)
        return gen_chain(sizes[k]);
    if (k < 8)
        return gen_fan(sizes[k - 4]);
    return gen_rand(10000, 4, 64, 42);
}

/* The grain sweep's shapes by name: chain (100), fan64, fan1024, rand
 * (10,000 tasks; 2,000 at grains of 100 us and more), layered (20 x 64,
 * 3 predecessors); NULL for another name. */
static HR_UNUSED graph_t *hr_grain_shape(const char *name, double grain_us)
{
    if (!strcmp(name, "chain"))
        return gen_chain(100);
    if (!strcmp(name, "fan64"))
        return gen_fan(64);
    if (!strcmp(name, "fan1024"))
        return gen_fan(1024);
    if (!strcmp(name, "rand"))
        return gen_rand(grain_us >= 100 ? 2000 : 10000, 4, 64, 42);
    if (!strcmp(name, "layered"))
        return gen_layered(20, 64, 3, 7);
    return NULL;
}

#endif /* HR_SHAPES_H */
