/* grain.h - harness for the task-grain benchmarks: the graph shapes of
 * bench/peers/common.h with a task body that does a calibrated amount of
 * CPU work.
 *
 * Every runtime benchmark includes this header exactly once (it defines
 * static functions and globals) and fills in a bench_ops table:
 *   init(threads)      -> runtime context (thread pool / executor / ...)
 *   build(ctx, graph)  -> runtime-specific graph handle      (timed: "build")
 *   replay(handle)     -> run the whole graph once, blocking  (timed: "replay")
 *   destroy(handle), fini(ctx)
 * Optionally loop(handle, validate, nwarm, n, times) replaces the default
 * timing loop (OpenMP "persist" keeps one parallel region open around all
 * replays); it must call tally_reset() and cpu_mark(0) right before the
 * first timed replay and cpu_mark(1) right after the last.
 *
 * Graph shapes (node ids are a topological order, edges go low->high):
 *   chain   N : 0 -> 1 -> ... -> N-1                                 (N = 100)
 *   fan     W : root -> W independent tasks -> sink (W+2 tasks)   (W = 64, 1024)
 *   rand    N : node i has min(4,i) distinct predecessors drawn uniformly
 *               from [max(0,i-64), i-1], xorshift64*, seed 42
 *               (N = 10000; 2000 at grains of 100 us and more)
 *   layered L : L layers of 64 nodes; every node of layer l > 0 depends on 3
 *               distinct nodes of layer l-1 drawn uniformly (seed 7) (L = 20)
 *
 * Task body: bench_task(i) (noinline) runs grain_work(): g_iters steps of a
 * 64-bit LCG, x = x * a + c, a serial dependency chain of an integer
 * multiply and an add that the compiler cannot shorten (an empty asm keeps
 * x in a register each step), touching no memory; the result goes to a
 * per-task slot. g_iters = grain_us * iterations per microsecond, measured
 * once (calibrate(): best of 9 runs of 2^22 steps on one thread, after
 * 200 ms of warm-up); a run script measures it once and hands the same
 * value to every binary through GRAIN_IPUS. Then the per-task counter is
 * incremented (as in bench/peers/common.h) and the calling thread's own tally.
 *
 * Validation (untimed, as in bench/peers/common.h): one replay records the global
 * execution order and checks every edge; after timing, every counter must
 * equal the number of replays run. A failure aborts with exit code 2.
 *
 * Timing per (runtime, threads, shape, grain): build once; one validation
 * replay; one timed pilot replay (est); nwarm = max(3, min(48, 150 ms / est))
 * warm-up replays; reps = clamp(GRAIN_BUDGET_MS (default 250) / est, 11, 1000)
 * timed replays, each between two CLOCK_MONOTONIC reads.
 *
 * Output: one CSV line per (runtime, threads, shape, grain):
 *   rt,threads,shape,param,grain_us,tasks,build_ns,replay_med_ns,replay_min_ns,
 *   replay_p90_ns,replay_mean_ns,reps,cpu_ns_per_replay,eff_threads
 * cpu_ns_per_replay: process user+system CPU time over the timed replays,
 * per replay (spinning idle workers count too). eff_threads: over the timed
 * replays, (sum of tasks run per thread)^2 / sum of squares, the number of
 * threads that ran the tasks weighted by their share (1 = one thread ran
 * everything).
 */
#ifndef GRAIN_H
#define GRAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#define ANCH_CAST(T, x) ((T)(x)) /* valid in C and C++ */

typedef struct {
    int n;                 /* number of tasks */
    int *pred_off, *pred;  /* CSR predecessors, pred_off has n+1 entries */
    int *succ_off, *succ;  /* CSR successors */
    int nsrc, *src;        /* tasks without predecessors */
    const char *shape;
    int param;
} graph_t;

#if defined(__GNUC__)
#define ANCH_NOINLINE __attribute__((noinline, unused))
#define ANCH_UNUSED __attribute__((unused))
#else
#define ANCH_NOINLINE
#define ANCH_UNUSED
#endif

/* ------------------------------------------------------------ the work */
static ANCH_UNUSED inline uint64_t grain_work(uint64_t x, uint64_t iters)
{
    uint64_t k;
    for (k = 0; k < iters; k++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double g_ipus;          /* LCG steps per microsecond */
static uint64_t g_iters;       /* steps per task at the current grain */

/* Measures g_ipus on the calling thread. */
static ANCH_UNUSED double calibrate(void)
{
    const uint64_t iters = 1ull << 22;
    uint64_t t0 = now_ns(), best = ~0ull, sink = 1;
    int r;
    while (now_ns() - t0 < 200000000ull) sink = grain_work(sink, 100000); /* clock up */
    for (r = 0; r < 9; r++) {
        uint64_t a = now_ns();
        sink = grain_work(sink, iters);
        uint64_t b = now_ns();
        if (b - a < best) best = b - a;
    }
    if (sink == 42) fprintf(stderr, "#\n"); /* keeps sink alive */
    return (double)iters * 1000.0 / (double)best;
}

static void grain_setup(void)
{
    const char *s = getenv("GRAIN_IPUS");
    if (s && *s) g_ipus = atof(s);
    if (!(g_ipus > 0)) g_ipus = calibrate();
}

static uint64_t iters_for(double grain_us) { return (uint64_t)(grain_us * g_ipus + 0.5); }

/* ---------------------------------------------------------------- task body */
static volatile unsigned *g_count;   /* per-task run counter */
static uint64_t *g_sink;             /* per-task result of the work */
static int g_validate;               /* set only during the validation replay */
static unsigned *g_seq;              /* validation: global order of execution */
static unsigned g_seq_next;

/* Per-thread tally of tasks run (one cache line each). */
#define TALLY_MAX 256
typedef struct { volatile uint64_t n; char pad[56]; } tally_t;
static tally_t g_tally[TALLY_MAX];
static int g_ntally;
static __thread int t_tally = -1;

static ANCH_NOINLINE void bench_task(int i)
{
    int id;
    if (__builtin_expect(g_validate, 0))
        g_seq[i] = __atomic_fetch_add(&g_seq_next, 1u, __ATOMIC_SEQ_CST);
    if (g_iters) g_sink[i] = grain_work((uint64_t)i + 1u, g_iters);
    g_count[i] = g_count[i] + 1u;
    id = t_tally;
    if (__builtin_expect(id < 0, 0))
        id = t_tally = __atomic_fetch_add(&g_ntally, 1, __ATOMIC_RELAXED) % TALLY_MAX;
    g_tally[id].n = g_tally[id].n + 1u;
}

static ANCH_UNUSED void tally_reset(void)
{
    int i;
    for (i = 0; i < TALLY_MAX; i++) g_tally[i].n = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static double tally_eff(void)
{
    double s = 0, q = 0;
    int i;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (i = 0; i < TALLY_MAX; i++) { double v = (double)g_tally[i].n; s += v; q += v * v; }
    return q > 0 ? s * s / q : 0;
}

static uint64_t cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}
static uint64_t g_cpu[2];
static ANCH_UNUSED void cpu_mark(int k) { g_cpu[k] = cpu_ns(); }

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

/* L layers of width W; each node of layer l > 0 has deg distinct
 * predecessors in layer l-1. */
static graph_t *gen_layered(int L, int W, int deg, uint64_t seed)
{
    graph_t *g = ANCH_CAST(graph_t *, calloc(1, sizeof(graph_t)));
    int N = L * W, i, e = 0;
    xs_state = seed ? seed : 1;
    g->n = N; g->shape = "layered"; g->param = L;
    g->pred_off = ANCH_CAST(int *, xmalloc(sizeof(int) * ((size_t)N + 1)));
    g->pred = ANCH_CAST(int *, xmalloc(sizeof(int) * (size_t)N * (size_t)deg));
    for (i = 0; i < N; i++) {
        int l = i / W, got = 0;
        g->pred_off[i] = e;
        if (l == 0) continue;
        while (got < deg) {
            int p = (l - 1) * W + (int)(xs_next() % (uint64_t)W), k, dup = 0;
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

/* longest path in tasks (critical path length) */
static ANCH_UNUSED int graph_depth(const graph_t *g)
{
    int *d = ANCH_CAST(int *, calloc((size_t)g->n, sizeof(int))), i, k, best = 0;
    for (i = 0; i < g->n; i++) {
        int m = 0;
        for (k = g->pred_off[i]; k < g->pred_off[i + 1]; k++) if (d[g->pred[k]] > m) m = d[g->pred[k]];
        d[i] = m + 1;
        if (d[i] > best) best = d[i];
    }
    free(d);
    return best;
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
    /* optional: if validate, run 1 validation replay (hook 0 before, 1 after);
     * then nwarm + n timed replays, filling times[n] */
    void (*loop)(void *h, int validate, int nwarm, int n, uint64_t *times, void (*hook)(int phase));
} bench_ops;

static const graph_t *g_cur_graph;
static const char *g_cur_rt;

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

static void validate_hook(int phase)
{
    if (phase == 0) validate_begin(g_cur_graph); else validate_end(g_cur_graph, g_cur_rt);
}

static double env_double(const char *name, double dflt)
{
    const char *s = getenv(name);
    return s && *s ? atof(s) : dflt;
}

static void do_loop(const bench_ops *ops, void *h, int validate, int nwarm, int n, uint64_t *t)
{
    int i;
    if (ops->loop) { ops->loop(h, validate, nwarm, n, t, validate_hook); return; }
    if (validate) { validate_begin(g_cur_graph); ops->replay(h); validate_end(g_cur_graph, ops->name); }
    for (i = 0; i < nwarm; i++) ops->replay(h);
    tally_reset();
    cpu_mark(0);
    for (i = 0; i < n; i++) {
        uint64_t t0 = now_ns();
        ops->replay(h);
        t[i] = now_ns() - t0;
    }
    cpu_mark(1);
}

/* The timing policy of a cell (see the top of the file): from the pilot
 * replay's time, how many warm-up and timed replays to run. */
static void plan_reps(uint64_t pilot_ns, int *nwarm, int *reps)
{
    double budget = env_double("GRAIN_BUDGET_MS", 250) * 1e6;
    double est = (double)(pilot_ns ? pilot_ns : 1);
    *reps = (int)(budget / est);
    if (*reps < 11) *reps = 11;
    if (*reps > 1000) *reps = 1000;
    *nwarm = (int)(150e6 / est);
    if (*nwarm > 48) *nwarm = 48;
    if (*nwarm < 3) *nwarm = 3;
}

/* Prints a cell's CSV row from its reps replay times t (sorted here). */
static void print_row(const char *rt, int threads, const char *shape, int param, double grain_us, int tasks,
                      int has_build, uint64_t build_ns, uint64_t *t, int reps, uint64_t cpu, double eff)
{
    uint64_t sum = 0;
    int i;
    for (i = 0; i < reps; i++) sum += t[i];
    qsort(t, (size_t)reps, sizeof(uint64_t), cmp_u64);
    printf("%s,%d,%s,%d,%g,%d,%s%llu,%llu,%llu,%llu,%llu,%d,%llu,%.2f\n", rt, threads, shape, param, grain_us,
           tasks, has_build ? "" : "-", has_build ? (unsigned long long)build_ns : 0ull,
           (unsigned long long)t[reps / 2], (unsigned long long)t[0], (unsigned long long)t[(reps * 9) / 10],
           (unsigned long long)(sum / (uint64_t)reps), reps, (unsigned long long)cpu, eff);
    fflush(stdout);
}

static void run_one(const bench_ops *ops, void *ctx, int threads, graph_t *g, double grain_us)
{
    const char *trace = getenv("GRAIN_TRACE");
    uint64_t pilot, t0, t1, build_ns;
    uint64_t *t;
    int reps, nwarm, runs, i;
    void *h;
    g_iters = iters_for(grain_us);
    g_count = ANCH_CAST(volatile unsigned *, calloc((size_t)g->n, sizeof(unsigned)));
    g_seq = ANCH_CAST(unsigned *, calloc((size_t)g->n, sizeof(unsigned)));
    g_sink = ANCH_CAST(uint64_t *, calloc((size_t)g->n, sizeof(uint64_t)));
    g_cur_graph = g; g_cur_rt = ops->name;

    t0 = now_ns();
    h = ops->build(ctx, g);
    t1 = now_ns();
    build_ns = t1 - t0;

    do_loop(ops, h, 1, 0, 1, &pilot); /* validation + pilot */
    plan_reps(pilot, &nwarm, &reps);
    t = ANCH_CAST(uint64_t *, xmalloc(sizeof(uint64_t) * (size_t)reps));
    do_loop(ops, h, 0, nwarm, reps, t);
    runs = 2 + nwarm + reps;
    for (i = 0; i < g->n; i++)
        if (g_count[i] != (unsigned)runs) {
            fprintf(stderr, "%s %s/%d: task %d ran %u times, expected %d\n", ops->name, g->shape, g->param,
                    i, g_count[i], runs);
            exit(2);
        }
    ops->destroy(h);
    if (trace && *trace) {
        FILE *f = fopen(trace, "a");
        if (f) {
            for (i = 0; i < reps; i++)
                fprintf(f, "%s,%d,%s,%d,%g,%d,%llu\n", ops->name, threads, g->shape, g->param, grain_us, i,
                        (unsigned long long)t[i]);
            fclose(f);
        }
    }
    print_row(ops->name, threads, g->shape, g->param, grain_us, g->n, ops->has_build, build_ns, t, reps,
              (g_cpu[1] - g_cpu[0]) / (uint64_t)reps, tally_eff());
    free(t);
    free(ANCH_CAST(void *, ANCH_CAST(uintptr_t, g_count))); /* drop volatile */
    free(g_seq);
    free(g_sink);
}

/* ------------------------------------------------------------ command line
 * usage: bench_X [variant] [-g 0,1,5,20,100] [-s chain,fan64,fan1024,rand,layered] [threads ...]
 * (threads default: 1 2) */
#define MAX_LIST 16
static int parse_list(const char *s, double *out)
{
    int n = 0;
    while (*s && n < MAX_LIST) {
        char *end;
        out[n++] = strtod(s, &end);
        if (*end != ',') break;
        s = end + 1;
    }
    return n;
}

static int shape_on(const char *list, const char *name)
{
    size_t l = strlen(name);
    const char *p = list;
    if (!list) return 1;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[l] == ',' || p[l] == 0)) return 1;
        p += l;
    }
    return 0;
}

static graph_t *make_shape(const char *name, double grain_us)
{
    if (!strcmp(name, "chain")) return gen_chain(100);
    if (!strcmp(name, "fan64")) return gen_fan(64);
    if (!strcmp(name, "fan1024")) return gen_fan(1024);
    if (!strcmp(name, "rand")) return gen_rand(grain_us >= 100 ? 2000 : 10000, 4, 64, 42);
    if (!strcmp(name, "layered")) return gen_layered(20, 64, 3, 7);
    return NULL;
}

static ANCH_UNUSED int bench_main(int argc, char **argv, const bench_ops *ops)
{
    static const char *all_shapes[] = {"chain", "fan64", "fan1024", "rand", "layered"};
    double grains[MAX_LIST] = {0, 1, 5, 20, 100};
    int ng = 5, tlist[MAX_LIST], nt = 0, a, s, gi;
    const char *shapes = NULL;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-g") && a + 1 < argc) ng = parse_list(argv[++a], grains);
        else if (!strcmp(argv[a], "-s") && a + 1 < argc) shapes = argv[++a];
        else if (nt < MAX_LIST) tlist[nt++] = atoi(argv[a]);
    }
    if (nt == 0) { tlist[0] = 1; tlist[1] = 2; nt = 2; }
    grain_setup();
    fprintf(stderr, "# %s: ipus %.2f\n", ops->name, g_ipus);
    for (a = 0; a < nt; a++) {
        int threads = tlist[a];
        void *ctx = ops->init(threads);
        for (gi = 0; gi < ng; gi++)
            for (s = 0; s < 5; s++) {
                graph_t *g;
                if (!shape_on(shapes, all_shapes[s])) continue;
                g = make_shape(all_shapes[s], grains[gi]);
                run_one(ops, ctx, threads, g, grains[gi]);
                graph_free(g);
            }
        ops->fini(ctx);
    }
    return 0;
}

#endif
