/*
 * bench_graph.c - graphrt graph replays on the peer-bench shapes, plus the
 * costs around them: instantiate, in-place updates, eager launches, plan
 * memory, and a 1,000,000-node chain.
 *
 * The shapes, the task body (bench_task), the validation and the timing loop
 * are the harness's (harness/hr_peer.h), the peers' too, so the rows compare
 * row for row with oneTBB, Taskflow, OpenMP, the toy pool and the sequential
 * floor (bench/run.sh peers):
 *   build  = grGraphCreate + one kernel node per task (grid 1, block 1,
 *            the task index as an int argument, the shape's edges as
 *            pDependencies) + grGraphInstantiate
 *   replay = grGraphLaunch(exec, stream) + grStreamSynchronize(stream)
 * The worker count is the runtime's (GRAPHRT_WORKERS, read once when the
 * runtime starts); the optional first argument sets it before that.
 *
 * Usage: bench_graph [workers] [--quick] [--csv] [--json FILE]
 *                    [--no-shapes] [--no-extras]
 * Output: the machine and parameters, then a table of the replays (one row
 * per shape) and a table of every other figure. With --csv: '# ' lines
 * describe the machine and parameters; CSV rows
 *   rt,threads,shape,param,tasks,build_ns,replay_med_ns,replay_min_ns,replay_p90_ns,reps
 * as the peers print them (bench/run.sh peers reads them); 'fig,' lines carry
 * every other figure
 *   fig,workers,name,shape,param,value,unit
 */
#include "bench_util.h"

#include <sys/mman.h>

#include "hr_peer.h"

static bu_opts g_opts;

/* ------------------------------------------------------------------ state */

static grKernel_t g_kernel; /* calls bench_task(arg0) */
static grStream_t g_stream;
static bu_figures g_figs;

typedef struct row {
    char rt[24], shape[16];
    int threads, param, tasks, reps;
    uint64_t build_ns, med, min, p90;
} row;
static row g_rows[64];
static int g_nrows;

/* The harness's row hook: keeps the row for JSON and prints it as a table
 * row. */
static void record_row(const char *rt, int threads, const graph_t *g, uint64_t build_ns, const hr_stats *s)
{
    row *r;
    if (g_nrows == (int)(sizeof g_rows / sizeof g_rows[0]))
        return;
    r = &g_rows[g_nrows++];
    snprintf(r->rt, sizeof r->rt, "%s", rt);
    snprintf(r->shape, sizeof r->shape, "%s", g->shape);
    r->threads = threads;
    r->param = g->param;
    r->tasks = g->n;
    r->reps = s->reps;
    r->build_ns = build_ns;
    r->med = s->med;
    r->min = s->min;
    r->p90 = s->p90;
    if (!g_opts.csv) {
        printf("  %-6s %8d %8d %14.1f %11.1f %9.1f %9.1f %8.2f %6d\n", r->shape, r->param, r->tasks,
               (double)r->build_ns / 1e3, (double)r->med / 1e3, (double)r->min / 1e3, (double)r->p90 / 1e3,
               (double)r->med / (double)r->tasks, r->reps);
        fflush(stdout);
    }
}

static void task_kernel(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    bench_task(*(const int *)args[0]);
}

/* ------------------------------------------------------- building graphs */

typedef struct gexec {
    grGraph_t graph;
    grGraphExec_t exec;
    grGraphNode_t *nodes;
    int n;
    long edges;
    uint64_t graph_ns, inst_ns, first_ns;
} gexec;

/* What the last destroyed handle measured, read after hr_run_overhead
 * returns. */
static gexec g_last;

/* Builds the graph of 'g' with argument (i + arg_offset) for task i. */
static void build_graph(gexec *h, const graph_t *g, int arg_offset)
{
    grGraphNode_t *deps = (grGraphNode_t *)bu_xmalloc(sizeof(grGraphNode_t) * (size_t)g->n);
    int i, k;
    h->n = g->n;
    h->edges = g->pred_off[g->n];
    h->nodes = (grGraphNode_t *)bu_xmalloc(sizeof(grGraphNode_t) * (size_t)g->n);
    BU_CHECK(grGraphCreate(&h->graph, 0));
    for (i = 0; i < g->n; i++) {
        int np = g->pred_off[i + 1] - g->pred_off[i], arg = i + arg_offset;
        void *args[1] = {&arg};
        grKernelNodeParams p = {g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        for (k = 0; k < np; k++)
            deps[k] = h->nodes[g->pred[g->pred_off[i] + k]];
        BU_CHECK(grGraphAddKernelNode(&h->nodes[i], h->graph, np ? deps : NULL, (size_t)np, &p));
    }
    free(deps);
}

static void gexec_free(gexec *h)
{
    if (h->exec)
        BU_CHECK(grGraphExecDestroy(h->exec));
    if (h->graph)
        BU_CHECK(grGraphDestroy(h->graph));
    free(h->nodes);
    memset(h, 0, sizeof *h);
}

static void replay(grGraphExec_t exec)
{
    BU_CHECK(grGraphLaunch(exec, g_stream));
    BU_CHECK(grStreamSynchronize(g_stream));
}

/* ------------------------------------------------- the peer-bench driver */

static void *gr_init(int threads)
{
    (void)threads; /* fixed when the runtime started */
    return NULL;
}

static void gr_fini(void *ctx)
{
    (void)ctx;
}

static void *gr_build(void *ctx, const graph_t *g)
{
    gexec *h = (gexec *)calloc(1, sizeof(gexec));
    uint64_t t0, t1, t2;
    (void)ctx;
    if (!h)
        exit(1);
    t0 = bu_now_ns();
    build_graph(h, g, 0);
    t1 = bu_now_ns();
    BU_CHECK(grGraphInstantiate(&h->exec, h->graph, 0));
    t2 = bu_now_ns();
    h->graph_ns = t1 - t0;
    h->inst_ns = t2 - t1;
    return h;
}

static void gr_replay(void *hh)
{
    replay(((gexec *)hh)->exec);
}

/* The harness's loop, with the validation replay (the executable's first
 * launch) timed apart. */
static void gr_loop(void *hh, int validate, int nwarm, int n, uint64_t *times, void (*hook)(int))
{
    gexec *h = (gexec *)hh;
    uint64_t t0;
    int i;
    if (validate) {
        hook(0);
        t0 = bu_now_ns();
        replay(h->exec);
        h->first_ns = bu_now_ns() - t0;
        hook(1);
    }
    for (i = 0; i < nwarm; i++)
        replay(h->exec);
    hr_loop_start();
    for (i = 0; i < n; i++) {
        t0 = bu_now_ns();
        replay(h->exec);
        times[i] = bu_now_ns() - t0;
    }
    hr_loop_stop();
}

static void gr_destroy(void *hh)
{
    gexec *h = (gexec *)hh;
    g_last = *h;
    g_last.graph = NULL;
    g_last.exec = NULL;
    g_last.nodes = NULL;
    gexec_free(h);
    free(h);
}

static const bench_ops gr_ops = {"graphrt", 1, gr_init, gr_build, gr_replay, gr_destroy, gr_fini, gr_loop};

/* The phases of each shape run, kept until the replay table is complete. */
typedef struct phases {
    const char *shape;
    int param, tasks;
    long elems;
    uint64_t graph_ns, inst_ns, first_ns, replay_med_ns;
} phases;
static phases g_phases[16];
static int g_nphases;

/* Runs one shape through the harness (which prints its replay row) and
 * keeps its phases. */
static void run_shape(int workers, graph_t *g)
{
    phases *p = &g_phases[g_nphases < 15 ? g_nphases++ : 15];
    hr_run_overhead(&gr_ops, NULL, workers, g);
    p->shape = g->shape;
    p->param = g->param;
    p->tasks = g->n;
    p->elems = g_last.n + g_last.edges;
    p->graph_ns = g_last.graph_ns;
    p->inst_ns = g_last.inst_ns;
    p->first_ns = g_last.first_ns;
    p->replay_med_ns = g_nrows > 0 ? g_rows[g_nrows - 1].med : 0;
}

static void print_phases(void)
{
    bu_section(&g_figs, "the phases of each replayed shape");
    for (int i = 0; i < g_nphases; i++) {
        const phases *p = &g_phases[i];
        bu_fig(&g_figs, "graph_build_ns", "graph build (grGraphCreate + one node per task)", p->shape,
               p->param, (double)p->graph_ns, "ns");
        bu_fig(&g_figs, "instantiate_ns", "grGraphInstantiate", p->shape, p->param, (double)p->inst_ns, "ns");
        bu_fig(&g_figs, "instantiate_ns_per_elem", "grGraphInstantiate per node and edge", p->shape, p->param,
               (double)p->inst_ns / (double)p->elems, "ns/(node+edge)");
        bu_fig(&g_figs, "first_launch_ns", "first launch of the executable (+ synchronise)", p->shape,
               p->param, (double)p->first_ns, "ns");
        bu_fig(&g_figs, "replay_ns_per_node", "replay per node (median)", p->shape, p->param,
               (double)p->replay_med_ns / (double)p->tasks, "ns/node");
    }
}

/* ---------------------------------------------------------------- extras */

/* Fresh counters for bench_task outside the harness (ntasks counters). */
static void counters_reset(int ntasks)
{
    free((void *)(uintptr_t)g_count);
    g_count = (volatile unsigned *)calloc((size_t)ntasks, sizeof(unsigned));
    if (!g_count)
        exit(1);
    g_task_mode = 0;
}

static void counters_expect(const char *what, int lo, int hi, unsigned want)
{
    int i;
    for (i = lo; i < hi; i++)
        if (g_count[i] != want) {
            fprintf(stderr, "%s: task %d ran %u times, expected %u\n", what, i, g_count[i], want);
            exit(2);
        }
}

/* Instantiate cost of an N-node chain, median of 'reps' instantiations;
 * at N = 100,000 also the plan's memory (heap and RSS growth over one
 * instantiation, per node). */
static void extra_instantiate_chain(int N, int reps)
{
    graph_t *g = gen_chain(N);
    gexec h;
    double *v = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    uint64_t t0, t1;
    int r;
    memset(&h, 0, sizeof h);
    /* grDeviceReset gives back the plan memory kept from earlier plans,
     * so that the first instantiation below writes fresh memory (and the
     * memory it adds is its own). It ends every stream. */
    BU_CHECK(grStreamDestroy(g_stream));
    BU_CHECK(grDeviceReset());
    BU_CHECK(grStreamCreateWithFlags(&g_stream, grStreamNonBlocking));
    t0 = bu_now_ns();
    build_graph(&h, g, 0);
    t1 = bu_now_ns();
    bu_fig(&g_figs, "graph_build_ns_per_node", "graph build per node", "chain", N, (double)(t1 - t0) / N,
           "ns/node");
    for (r = 0; r < reps; r++) {
        grGraphExec_t e;
        /* Memory the plan occupies: the resident pages the first one adds. */
        int rss = r == 0 && N == 100000;
        uint64_t rss0 = rss ? bu_rss_bytes() : 0;
        t0 = bu_now_ns();
        BU_CHECK(grGraphInstantiate(&e, h.graph, 0));
        t1 = bu_now_ns();
        v[r] = (double)(t1 - t0);
        if (rss) {
            double grew = (double)bu_rss_bytes() - (double)rss0;
            bu_fig(&g_figs, "plan_rss_bytes_per_node", "plan memory (resident growth) per node", "chain", N,
                   grew / N, "B/node");
        }
        BU_CHECK(grGraphExecDestroy(e));
    }
    /* The first instantiation of a size writes fresh memory; the others
     * reuse what the one before gave back (see docs/benchmarks.md). */
    bu_fig(&g_figs, "instantiate_chain_first_ns_per_elem",
           "first instantiation per node and edge (fresh memory)", "chain", N, v[0] / (double)(2L * N - 1),
           "ns/(node+edge)");
    bu_fig(&g_figs, "instantiate_chain_ns_per_elem", "instantiation per node and edge (median)", "chain", N,
           bu_median(v, reps) / (double)(2L * N - 1), "ns/(node+edge)");
    gexec_free(&h);
    graph_free(g);
    free(v);
}

/* The machine's cost of a fresh page: an instantiation writes its plan
 * into memory the process has not touched, so at 100,000 nodes and more
 * its cost per node includes plan bytes / 4096 page faults (about 145 / 4096
 * per node). Median over 5 rounds of touching 16 MiB of new anonymous
 * memory one byte per 4 KiB page. */
static void extra_fresh_page(void)
{
    const size_t size = (size_t)16 << 20, page = 4096;
    double v[5];
    int r;
    for (r = 0; r < 5; r++) {
        uint64_t t0;
        size_t i;
        volatile char *p =
            (volatile char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == (volatile char *)MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        t0 = bu_now_ns();
        for (i = 0; i < size; i += page)
            p[i] = 1;
        v[r] = (double)(bu_now_ns() - t0) / (double)(size / page);
        munmap((void *)p, size);
    }
    bu_fig(&g_figs, "fresh_page_ns", "first touch of a fresh 4 KiB page (the machine)", "machine", 4096,
           bu_median(v, 5), "ns/page");
}

/* grGraphExecKernelNodeSetParams: every call gives a node a new argument
 * value; median over batches of one call per node of a 1000-node chain. */
static void extra_setparams(int batches)
{
    const int N = 1000;
    graph_t *g = gen_chain(N);
    gexec h;
    double *v = (double *)bu_xmalloc(sizeof(double) * (size_t)batches);
    int b, i, off = 0;
    memset(&h, 0, sizeof h);
    counters_reset(2 * N);
    build_graph(&h, g, 0);
    BU_CHECK(grGraphInstantiate(&h.exec, h.graph, 0));
    for (b = 0; b < batches; b++) {
        uint64_t t0;
        off = (b & 1) ? 0 : N;
        t0 = bu_now_ns();
        for (i = 0; i < N; i++) {
            int arg = i + off;
            void *args[1] = {&arg};
            grKernelNodeParams p = {g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
            BU_CHECK(grGraphExecKernelNodeSetParams(h.exec, h.nodes[i], &p));
        }
        v[b] = (double)(bu_now_ns() - t0) / N;
    }
    replay(h.exec); /* the last batch's arguments must be the ones that run */
    counters_expect("exec kernel node set params", off, off + N, 1);
    counters_expect("exec kernel node set params", N - off, 2 * N - off, 0);
    bu_fig(&g_figs, "exec_kernel_setparams_ns", "grGraphExecKernelNodeSetParams per call", "chain", N,
           bu_median(v, batches), "ns/call");
    gexec_free(&h);
    graph_free(g);
    free(v);
}

/* Independent expensive nodes: a graph of 'width' root kernel nodes that
 * each busy-wait 'node_us' microseconds, replayed; the figure is the time
 * the work would take spread perfectly over 'threads' threads (width *
 * node_us / threads, rounded up to whole nodes per thread) over the median
 * replay time: 1.0 when that many threads are busy all along. A launch
 * runs its nodes on as many threads as there are workers (the thread
 * that runs the launch, a worker or the synchronising thread, and the
 * others). */
static void busy_kernel(const grKernelCtx *ctx, void **args)
{
    uint64_t until = bu_now_ns() + (uint64_t)(*(const int *)args[0]) * 1000u;
    (void)ctx;
    while (bu_now_ns() < until) {
    }
}

static void extra_heavy_fan(int threads, int width, int node_us, int reps)
{
    grKernel_t k;
    grGraph_t graph;
    grGraphExec_t exec;
    size_t psz = sizeof(int);
    double *v = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    int i, per_thread = (width + threads - 1) / threads;
    BU_CHECK(grKernelCreate(&k, busy_kernel, "bench_busy", 1, &psz));
    BU_CHECK(grGraphCreate(&graph, 0));
    for (i = 0; i < width; i++) {
        grGraphNode_t n;
        void *args[1] = {&node_us};
        grKernelNodeParams p = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        BU_CHECK(grGraphAddKernelNode(&n, graph, NULL, 0, &p));
    }
    BU_CHECK(grGraphInstantiate(&exec, graph, 0));
    for (i = 0; i < 3; i++)
        replay(exec);
    for (i = 0; i < reps; i++) {
        uint64_t t0 = bu_now_ns();
        replay(exec);
        v[i] = (double)(bu_now_ns() - t0);
    }
    bu_fig(&g_figs, "heavy_fan_efficiency", "50 us nodes on all workers: ideal time / actual", "fan", width,
           (double)per_thread * node_us * 1000.0 / bu_median(v, reps), "ideal/actual");
    BU_CHECK(grGraphExecDestroy(exec));
    BU_CHECK(grGraphDestroy(graph));
    BU_CHECK(grKernelDestroy(k));
    free(v);
}

/* grGraphExecUpdate of a 1000-node chain from a clone whose every node has
 * a new argument value; alternates between the clone and the original so
 * that each update changes all nodes. */
static void extra_exec_update(int reps)
{
    const int N = 1000;
    graph_t *g = gen_chain(N);
    gexec h;
    grGraph_t clone, last = NULL;
    double *v = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    int r, i;
    memset(&h, 0, sizeof h);
    counters_reset(2 * N);
    build_graph(&h, g, 0);
    BU_CHECK(grGraphClone(&clone, h.graph));
    for (i = 0; i < N; i++) {
        grGraphNode_t cn;
        int arg = i + N;
        void *args[1] = {&arg};
        grKernelNodeParams p = {g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        BU_CHECK(grGraphNodeFindInClone(&cn, h.nodes[i], clone));
        BU_CHECK(grGraphKernelNodeSetParams(cn, &p));
    }
    BU_CHECK(grGraphInstantiate(&h.exec, h.graph, 0));
    for (r = 0; r < reps; r++) {
        grGraphExecUpdateResultInfo info;
        grError_t e;
        uint64_t t0;
        last = (r & 1) ? h.graph : clone;
        t0 = bu_now_ns();
        e = grGraphExecUpdate(h.exec, last, &info);
        v[r] = (double)(bu_now_ns() - t0) / N;
        if (e == grErrorNotSupported && r == 0) {
            printf("# exec update: grGraphExecUpdate not supported by this build, skipped\n");
            BU_CHECK(grGraphDestroy(clone));
            gexec_free(&h);
            graph_free(g);
            free(v);
            return;
        }
        BU_CHECK(e);
        if (info.result != grGraphExecUpdateSuccess) {
            fprintf(stderr, "exec update: result %d\n", (int)info.result);
            exit(2);
        }
    }
    replay(h.exec);
    i = last == clone ? N : 0;
    counters_expect("exec update", i, i + N, 1);
    counters_expect("exec update", N - i, 2 * N - i, 0);
    bu_fig(&g_figs, "exec_update_ns_per_node", "grGraphExecUpdate per node (every node changed)", "chain", N,
           bu_median(v, reps), "ns/node");
    BU_CHECK(grGraphDestroy(clone));
    gexec_free(&h);
    graph_free(g);
    free(v);
}

/* The same N kernels of a chain, launched eagerly on one stream
 * (grLaunchKernel x N + grStreamSynchronize) and as a graph replay
 * (grGraphLaunch + grStreamSynchronize). A sample times a batch of rounds
 * between two clock reads, so that the clock's own cost (about 20 ns on a
 * VM) is not counted as work of either side: for short chains it would be
 * a sizeable part of a replay. Eager and graph samples alternate, so that
 * both sides see the same spells of a noisy machine; medians of each. */
static void extra_eager_vs_graph(int N)
{
    graph_t *g = gen_chain(N);
    gexec h;
    int batch = N >= 1000 ? 1 : 1000 / N;
    int reps = bu_reps((long)N * batch, 20, 1000), warm = reps / 10 < 3 ? 3 : reps / 10, r, b, i;
    double *ve = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    double *vg = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    double e, gr;
    memset(&h, 0, sizeof h);
    counters_reset(N);
    build_graph(&h, g, 0);
    BU_CHECK(grGraphInstantiate(&h.exec, h.graph, 0));
    for (r = 0; r < warm + reps; r++) {
        uint64_t t0 = bu_now_ns(), t1, t2;
        for (b = 0; b < batch; b++) {
            for (i = 0; i < N; i++) {
                void *args[1] = {&i};
                BU_CHECK(grLaunchKernel(g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, g_stream));
            }
            BU_CHECK(grStreamSynchronize(g_stream));
        }
        t1 = bu_now_ns();
        for (b = 0; b < batch; b++)
            replay(h.exec);
        t2 = bu_now_ns();
        if (r >= warm) {
            ve[r - warm] = (double)(t1 - t0) / ((double)N * batch);
            vg[r - warm] = (double)(t2 - t1) / ((double)N * batch);
        }
    }
    counters_expect("eager vs graph", 0, N, 2u * (unsigned)((warm + reps) * batch));
    e = bu_median(ve, reps);
    gr = bu_median(vg, reps);
    bu_fig(&g_figs, "eager_chain_ns_per_op", "eager: grLaunchKernel per kernel (+ synchronise)", "chain", N,
           e, "ns/op");
    bu_fig(&g_figs, "graph_chain_ns_per_op", "the same kernels as one graph replay, per kernel", "chain", N,
           gr, "ns/op");
    bu_fig(&g_figs, "eager_over_graph", "eager time / graph time", "chain", N, e / gr, "x");
    gexec_free(&h);
    graph_free(g);
    free(ve);
    free(vg);
}

/* ------------------------------------------------------------------- main */

static void write_json(const char *path, const bu_machine *m, int workers)
{
    FILE *f = bu_json_begin(path, "bench_graph", m, workers, &g_opts);
    int i;
    fprintf(f, "},\n\"rows\": [");
    for (i = 0; i < g_nrows; i++) {
        const row *r = &g_rows[i];
        fprintf(f,
                "%s\n  {\"rt\": \"%s\", \"threads\": %d, \"shape\": \"%s\", \"param\": %d, \"tasks\": %d, "
                "\"build_ns\": %llu, \"replay_med_ns\": %llu, \"replay_min_ns\": %llu, "
                "\"replay_p90_ns\": %llu, \"reps\": %d}",
                i ? "," : "", r->rt, r->threads, r->shape, r->param, r->tasks,
                (unsigned long long)r->build_ns, (unsigned long long)r->med, (unsigned long long)r->min,
                (unsigned long long)r->p90, r->reps);
    }
    fprintf(f, "\n],\n");
    bu_json_figures(f, &g_figs);
    fprintf(f, "\n}\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    static const int sizes[4] = {10, 100, 1000, 10000};
    int quick, shapes = 1, extras = 1, workers, a, s;
    bu_machine m;
    size_t psz = sizeof(int);

    for (a = 1; a < argc; a++) {
        if (bu_opt(&g_opts, argc, argv, &a))
            continue;
        if (strcmp(argv[a], "--no-shapes") == 0)
            shapes = 0;
        else if (strcmp(argv[a], "--no-extras") == 0)
            extras = 0;
        else {
            fprintf(stderr, "usage: %s " BU_USAGE " [--no-shapes] [--no-extras]\n", argv[0]);
            return 1;
        }
    }
    quick = g_opts.quick;
    hr_row_hook = record_row;
    hr_row_csv = g_opts.csv;
    workers = bu_workers(g_opts.workers);
    g_figs.workers = workers;
    g_figs.csv = g_opts.csv;
    bu_machine_read(&m);
    bu_header("bench_graph", "graphrt graph replays on the peer-bench shapes, and the costs around them", &m,
              workers, &g_opts);
    if (g_opts.csv) {
        printf("# replay = grGraphLaunch + grStreamSynchronize; build = graph build + grGraphInstantiate\n");
        printf("# rt,threads,shape,param,tasks,build_ns,replay_med_ns,replay_min_ns,replay_p90_ns,reps\n");
    } else if (shapes) {
        printf("\ngraph replays: build = graph build + grGraphInstantiate; replay = grGraphLaunch + "
               "grStreamSynchronize\n");
        printf(
            "  (lower is better: the median replay's ns per node; the peers' are in bench/run.sh peers)\n");
        printf("  %-6s %8s %8s %14s %11s %9s %9s %8s %6s\n", "shape", "param", "tasks", "build us",
               "replay us", "min us", "p90 us", "ns/node", "reps");
    }
    fflush(stdout);

    BU_CHECK(grKernelCreate(&g_kernel, task_kernel, "bench_task", 1, &psz));
    BU_CHECK(grStreamCreateWithFlags(&g_stream, grStreamNonBlocking));

    if (shapes) {
        for (s = 0; s < 4; s++) {
            graph_t *g = gen_chain(sizes[s]);
            run_shape(workers, g);
            graph_free(g);
        }
        for (s = 0; s < 4; s++) {
            graph_t *g = gen_fan(sizes[s]);
            run_shape(workers, g);
            graph_free(g);
        }
        {
            graph_t *g = gen_rand(10000, 4, 64, 42);
            run_shape(workers, g);
            graph_free(g);
        }
        {
            /* the large chain: instantiates and replays, validated */
            graph_t *g = gen_chain(quick ? 100000 : 1000000);
            run_shape(workers, g);
            graph_free(g);
        }
    }
    if (shapes)
        print_phases();
    if (extras) {
        bu_section(&g_figs, "instantiation, memory, updates, eager against graph");
        if (g_opts.csv)
            printf("# fig,workers,name,shape,param,value,unit\n");
        extra_fresh_page();
        extra_instantiate_chain(1000, quick ? 21 : 101);
        extra_instantiate_chain(100000, quick ? 3 : 9);
        extra_instantiate_chain(1000000, quick ? 1 : 3);
        extra_heavy_fan(workers, 4 * workers, 50, quick ? 11 : 51);
        extra_setparams(quick ? 21 : 201);
        extra_exec_update(quick ? 21 : 201);
        for (s = 0; s < 4; s++)
            extra_eager_vs_graph(sizes[s]);
    }

    BU_CHECK(grStreamDestroy(g_stream));
    BU_CHECK(grKernelDestroy(g_kernel));
    if (g_opts.json)
        write_json(g_opts.json, &m, workers);
    free((void *)(uintptr_t)g_count);
    return 0;
}
