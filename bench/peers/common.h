/* common.h - peer-bench's harness, shared by the peers of this folder and by
 * bench/bench_graph.c, so that graphrt's rows come from the same shapes, task
 * body, validation and timing loop as the peers'. Two hooks, unused by the
 * peers: if ANCH_ROW_HOOK(rt, threads, g, build_ns, sorted_times, reps) is
 * defined, run_one calls it with the row's data just before printing it
 * (bench_graph.c uses it to write the row to JSON as well); the CSV line is
 * printed only where ANCH_ROW_CSV (default 1) is true, so that bench_graph
 * can print its rows as a table instead.
 *
 * The shared harness for the CPU task-graph anchor benchmarks.
 *
 * Every runtime benchmark includes this header exactly once (it defines
 * static functions and globals) and fills in a bench_ops table:
 *   init(threads)      -> runtime context (thread pool / executor / ...)
 *   build(ctx, graph)  -> runtime-specific graph handle      (timed: "build")
 *   replay(handle)     -> run the whole graph once, blocking  (timed: "replay")
 *   destroy(handle), fini(ctx)
 * Optionally loop(handle, n, times) replaces the default timing loop (used by
 * OpenMP variants that keep one parallel region open around all replays).
 *
 * Graph shapes (node ids are already a topological order, edges go low->high):
 *   chain  N : 0 -> 1 -> ... -> N-1
 *   fan    W : root(0) -> W independent tasks (1..W) -> sink(W+1)   (W+2 tasks)
 *   rand   N : node i has min(4,i) distinct predecessors drawn uniformly from
 *              [max(0,i-64), i-1], fixed seed (xorshift64*, seed 42)
 *
 * Task body: bench_task(i) is a noinline function that increments a per-task
 * volatile counter (non-atomic: one writer per replay, replays are ordered).
 * A validation replay (not timed) records a global sequence number per task and
 * checks every edge u->v ran u before v; after timing, every counter must
 * equal the number of replays.  Any failure aborts with exit code 2.
 *
 * Output: one CSV line per (runtime, threads, shape):
 *   rt,threads,shape,param,tasks,build_ns,replay_med_ns,replay_min_ns,replay_p90_ns,reps
 */
#ifndef ANCHORS_COMMON_H
#define ANCHORS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ANCH_CAST(T, x) ((T)(x)) /* valid in C and C++ */
#ifndef ANCH_ROW_CSV
#define ANCH_ROW_CSV 1
#endif

typedef struct {
    int n;                 /* number of tasks */
    int *pred_off, *pred;  /* CSR predecessors, pred_off has n+1 entries */
    int *succ_off, *succ;  /* CSR successors */
    int nsrc, *src;        /* tasks without predecessors */
    const char *shape;
    int param;
} graph_t;

/* ---------------------------------------------------------------- task body */
static volatile unsigned *g_count;   /* per-task run counter */
static int g_validate;               /* set only during the validation replay */
static unsigned *g_seq;              /* validation: global order of execution */
static unsigned g_seq_next;

#if defined(__GNUC__)
#define ANCH_NOINLINE __attribute__((noinline, unused))
#define ANCH_UNUSED __attribute__((unused))
#else
#define ANCH_NOINLINE
#define ANCH_UNUSED
#endif

static ANCH_NOINLINE void bench_task(int i)
{
    if (__builtin_expect(g_validate, 0))
        g_seq[i] = __atomic_fetch_add(&g_seq_next, 1u, __ATOMIC_SEQ_CST);
    g_count[i] = g_count[i] + 1u;
}

/* ------------------------------------------------------------------ timing */
static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *ANCH_CAST(const uint64_t *, a), y = *ANCH_CAST(const uint64_t *, b);
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------- generators */
static void *xmalloc(size_t sz)
{
    void *p = malloc(sz ? sz : 1);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    return p;
}

/* builds successor CSR and source list from the predecessor CSR */
static void graph_finish(graph_t *g)
{
    int n = g->n, i, k;
    int ne = g->pred_off[n];
    int *cnt = ANCH_CAST(int *, calloc((size_t)n + 1, sizeof(int)));
    g->succ_off = ANCH_CAST(int *, xmalloc(sizeof(int) * ((size_t)n + 1)));
    g->succ = ANCH_CAST(int *, xmalloc(sizeof(int) * (size_t)ne));
    for (i = 0; i < ne; i++) cnt[g->pred[i]]++;
    g->succ_off[0] = 0;
    for (i = 0; i < n; i++) g->succ_off[i + 1] = g->succ_off[i] + cnt[i];
    memset(cnt, 0, sizeof(int) * ((size_t)n + 1));
    for (i = 0; i < n; i++)
        for (k = g->pred_off[i]; k < g->pred_off[i + 1]; k++) {
            int p = g->pred[k];
            g->succ[g->succ_off[p] + cnt[p]++] = i;
        }
    free(cnt);
    g->nsrc = 0;
    g->src = ANCH_CAST(int *, xmalloc(sizeof(int) * (size_t)n));
    for (i = 0; i < n; i++)
        if (g->pred_off[i] == g->pred_off[i + 1]) g->src[g->nsrc++] = i;
}

static graph_t *gen_chain(int N)
{
    graph_t *g = ANCH_CAST(graph_t *, calloc(1, sizeof(graph_t)));
    int i;
    g->n = N; g->shape = "chain"; g->param = N;
    g->pred_off = ANCH_CAST(int *, xmalloc(sizeof(int) * ((size_t)N + 1)));
    g->pred = ANCH_CAST(int *, xmalloc(sizeof(int) * (size_t)N));
    g->pred_off[0] = 0;
    for (i = 0; i < N; i++) {
        g->pred_off[i + 1] = g->pred_off[i];
        if (i > 0) g->pred[g->pred_off[i + 1]++] = i - 1;
    }
    graph_finish(g);
    return g;
}

static graph_t *gen_fan(int W)
{
    graph_t *g = ANCH_CAST(graph_t *, calloc(1, sizeof(graph_t)));
    int n = W + 2, i, e = 0;
    g->n = n; g->shape = "fan"; g->param = W;
    g->pred_off = ANCH_CAST(int *, xmalloc(sizeof(int) * ((size_t)n + 1)));
    g->pred = ANCH_CAST(int *, xmalloc(sizeof(int) * (2 * (size_t)W)));
    g->pred_off[0] = 0;
    for (i = 1; i <= W; i++) { g->pred_off[i] = e; g->pred[e++] = 0; }
    g->pred_off[W + 1] = e;
    for (i = 1; i <= W; i++) g->pred[e++] = i;
    g->pred_off[W + 2] = e;
    graph_finish(g);
    return g;
}

static uint64_t xs_state;
static uint64_t xs_next(void)
{
    xs_state ^= xs_state >> 12; xs_state ^= xs_state << 25; xs_state ^= xs_state >> 27;
    return xs_state * 0x2545F4914F6CDD1Dull;
}

static graph_t *gen_rand(int N, int deg, int window, uint64_t seed)
{
    graph_t *g = ANCH_CAST(graph_t *, calloc(1, sizeof(graph_t)));
    int i, e = 0;
    xs_state = seed ? seed : 1;
    g->n = N; g->shape = "rand"; g->param = N;
    g->pred_off = ANCH_CAST(int *, xmalloc(sizeof(int) * ((size_t)N + 1)));
    g->pred = ANCH_CAST(int *, xmalloc(sizeof(int) * (size_t)N * (size_t)deg));
    for (i = 0; i < N; i++) {
        int lo = i - window < 0 ? 0 : i - window;
        int avail = i - lo, want = deg < avail ? deg : avail, got = 0;
        g->pred_off[i] = e;
        while (got < want) {
            int p = lo + (int)(xs_next() % (uint64_t)avail), k, dup = 0;
            for (k = g->pred_off[i]; k < e; k++) if (g->pred[k] == p) dup = 1;
            if (!dup) { g->pred[e++] = p; got++; }
        }
    }
    g->pred_off[N] = e;
    graph_finish(g);
    return g;
}

static void graph_free(graph_t *g)
{
    free(g->pred_off); free(g->pred); free(g->succ_off); free(g->succ); free(g->src); free(g);
}

/* ----------------------------------------------------------------- driver */
typedef struct {
    const char *name;
    int has_build;                                   /* 0: no separate build (OpenMP) */
    void *(*init)(int threads);
    void *(*build)(void *ctx, const graph_t *g);
    void (*replay)(void *h);
    void (*destroy)(void *h);
    void (*fini)(void *ctx);
    /* optional: run 1 validation replay, then nwarm + n timed replays, filling times[n] */
    void (*loop)(void *h, int nwarm, int n, uint64_t *times, void (*validate_hook)(int phase));
} bench_ops;

static const graph_t *g_cur_graph;

static void validate_begin(const graph_t *g)
{
    int i;
    for (i = 0; i < g->n; i++) g_seq[i] = 0xffffffffu;
    g_seq_next = 0;
    __atomic_store_n(&g_validate, 1, __ATOMIC_SEQ_CST);
}

static void validate_end(const graph_t *g, const char *rt)
{
    int i, k;
    __atomic_store_n(&g_validate, 0, __ATOMIC_SEQ_CST);
    if (g_seq_next != (unsigned)g->n) {
        fprintf(stderr, "%s %s/%d: validation ran %u tasks, expected %d\n", rt, g->shape, g->param, g_seq_next, g->n);
        exit(2);
    }
    for (i = 0; i < g->n; i++)
        for (k = g->pred_off[i]; k < g->pred_off[i + 1]; k++)
            if (g_seq[g->pred[k]] >= g_seq[i]) {
                fprintf(stderr, "%s %s/%d: edge %d->%d violated\n", rt, g->shape, g->param, g->pred[k], i);
                exit(2);
            }
}

/* phase 0: before validation replay, 1: after it */
static const char *g_cur_rt;
static void validate_hook(int phase)
{
    if (phase == 0) validate_begin(g_cur_graph); else validate_end(g_cur_graph, g_cur_rt);
}

static int reps_for(int tasks)
{
    int r = 1000000 / tasks;
    if (r < 50) r = 50;
    if (r > 2000) r = 2000;
    return r;
}

static void run_one(const bench_ops *ops, void *ctx, int threads, graph_t *g)
{
    int reps = reps_for(g->n), nwarm = reps / 10 < 5 ? 5 : reps / 10, i;
    uint64_t *t = ANCH_CAST(uint64_t *, xmalloc(sizeof(uint64_t) * (size_t)reps));
    uint64_t t0, t1, build_ns;
    void *h;
    g_count = ANCH_CAST(volatile unsigned *, calloc((size_t)g->n, sizeof(unsigned)));
    g_seq = ANCH_CAST(unsigned *, calloc((size_t)g->n, sizeof(unsigned)));
    g_cur_graph = g; g_cur_rt = ops->name;

    t0 = now_ns();
    h = ops->build(ctx, g);
    t1 = now_ns();
    build_ns = t1 - t0;

    if (ops->loop) {
        ops->loop(h, nwarm, reps, t, validate_hook);
    } else {
        validate_begin(g);
        ops->replay(h);
        validate_end(g, ops->name);
        for (i = 0; i < nwarm; i++) ops->replay(h);
        for (i = 0; i < reps; i++) {
            t0 = now_ns();
            ops->replay(h);
            t1 = now_ns();
            t[i] = t1 - t0;
        }
    }
    for (i = 0; i < g->n; i++)
        if (g_count[i] != (unsigned)(1 + nwarm + reps)) {
            fprintf(stderr, "%s %s/%d: task %d ran %u times, expected %d\n", ops->name, g->shape, g->param,
                    i, g_count[i], 1 + nwarm + reps);
            exit(2);
        }
    ops->destroy(h);
    qsort(t, (size_t)reps, sizeof(uint64_t), cmp_u64);
#ifdef ANCH_ROW_HOOK
    ANCH_ROW_HOOK(ops->name, threads, g, ops->has_build ? build_ns : 0, t, reps);
#endif
    if (ANCH_ROW_CSV)
        printf("%s,%d,%s,%d,%d,%s%llu,%llu,%llu,%llu,%d\n", ops->name, threads, g->shape, g->param, g->n,
           ops->has_build ? "" : "-", ops->has_build ? (unsigned long long)build_ns : 0ull,
           (unsigned long long)t[reps / 2], (unsigned long long)t[0],
           (unsigned long long)t[(reps * 9) / 10], reps);
    fflush(stdout);
    free(t);
    free(ANCH_CAST(void *, ANCH_CAST(uintptr_t, g_count))); /* drop volatile */
    free(g_seq);
}

/* usage: bench_X [threads ...]   (default: 1 2) */
static ANCH_UNUSED int bench_main(int argc, char **argv, const bench_ops *ops)
{
    static const int sizes[4] = {10, 100, 1000, 10000};
    int tlist[16], nt = 0, a, s;
    for (a = 1; a < argc && nt < 16; a++) tlist[nt++] = atoi(argv[a]);
    if (nt == 0) { tlist[0] = 1; tlist[1] = 2; nt = 2; }
    for (a = 0; a < nt; a++) {
        int threads = tlist[a];
        void *ctx = ops->init(threads);
        for (s = 0; s < 4; s++) { graph_t *g = gen_chain(sizes[s]); run_one(ops, ctx, threads, g); graph_free(g); }
        for (s = 0; s < 4; s++) { graph_t *g = gen_fan(sizes[s]);   run_one(ops, ctx, threads, g); graph_free(g); }
        { graph_t *g = gen_rand(10000, 4, 64, 42); run_one(ops, ctx, threads, g); graph_free(g); }
        ops->fini(ctx);
    }
    return 0;
}

#endif
