/*
 * bench_trace.c - what tracing costs: replays (grGraphLaunch +
 * grStreamSynchronize) of chains of 1-block empty kernel nodes, and eager
 * launches of the same kernel, with tracing off and on (grTraceStart), so
 * that the difference per node is what recording one node costs. The
 * trace goes to a temporary file, written at grTraceStop (not timed);
 * the rings wrap, as in a long traced run.
 *
 * Tracing off and on are timed in alternating rounds (the median of
 * each), so that a noisy machine biases neither.
 *
 * Usage: bench_trace [workers] [--json FILE] [--quick]
 * Output: '# ' lines describe the machine and parameters, then
 *   fig,workers,name,shape,param,value,unit
 */
#include "bench_util.h"

#include <unistd.h>

static void nop_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

static grKernel_t g_kernel;
static grStream_t g_stream;
static char g_path[64];

static grGraphExec_t chain(int n)
{
    grGraph_t g;
    grGraphExec_t e;
    grGraphNode_t prev = NULL, node;
    int arg = 0;
    void *args[1] = {&arg};
    BU_CHECK(grGraphCreate(&g, 0));
    for (int i = 0; i < n; i++) {
        grKernelNodeParams kp = {g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        BU_CHECK(grGraphAddKernelNode(&node, g, prev ? &prev : NULL, prev ? 1 : 0, &kp));
        prev = node;
    }
    BU_CHECK(grGraphInstantiate(&e, g, 0));
    BU_CHECK(grGraphDestroy(g));
    return e;
}

/* ns per replay over 'iters' replays. */
static double time_replays(grGraphExec_t e, int iters)
{
    uint64_t t0 = bu_now_ns();
    for (int i = 0; i < iters; i++) {
        BU_CHECK(grGraphLaunch(e, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
    }
    return (double)(bu_now_ns() - t0) / iters;
}

/* ns per eager launch + synchronise. */
static double time_eager(int iters)
{
    int arg = 0;
    void *args[1] = {&arg};
    uint64_t t0 = bu_now_ns();
    for (int i = 0; i < iters; i++) {
        BU_CHECK(grLaunchKernel(g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
    }
    return (double)(bu_now_ns() - t0) / iters;
}

typedef struct pair {
    double off, on;
} pair;

/* Alternating rounds of 'fn' without and with tracing: the medians. */
static pair measure(grGraphExec_t e, int iters, int rounds)
{
    double *off = bu_xmalloc((size_t)rounds * sizeof *off), *on = bu_xmalloc((size_t)rounds * sizeof *on);
    for (int r = 0; r < rounds; r++) {
        off[r] = e ? time_replays(e, iters) : time_eager(iters);
        BU_CHECK(grTraceStart(g_path, 0));
        on[r] = e ? time_replays(e, iters) : time_eager(iters);
        BU_CHECK(grTraceStop());
    }
    pair p = {bu_median(off, rounds), bu_median(on, rounds)};
    free(off);
    free(on);
    return p;
}

int main(int argc, char **argv)
{
    bu_opts o = {0};
    size_t size = sizeof(int);
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 2;
        }
    bu_machine m;
    bu_figures figs = {0};
    bu_machine_read(&m);
    figs.workers = bu_workers(o.workers);
    figs.csv = o.csv;
    snprintf(g_path, sizeof g_path, "/tmp/bench_trace-%d.json", (int)getpid());
    /* Rings of 4096 events: each round's file stays small; recording into
     * a full ring costs what recording into an empty one does. */
    setenv("GRAPHRT_TRACE_EVENTS", "4096", 0);
    BU_CHECK(grKernelCreate(&g_kernel, nop_fn, "bench_trace_nop", 1, &size));
    BU_CHECK(grStreamCreateWithFlags(&g_stream, grStreamNonBlocking));
    int rounds = o.quick ? 5 : 21;
    bu_header("bench_trace", "replays of chains of 1-block empty kernels, tracing off and on", &m,
              figs.workers, &o);
    printf("%srounds: %d (alternating off/on, medians), trace file %s, GRAPHRT_TRACE_EVENTS=%s\n",
           o.csv ? "# " : "", rounds, g_path, getenv("GRAPHRT_TRACE_EVENTS"));
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    static const int lengths[] = {10, 100, 1000};
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int n = lengths[li];
        grGraphExec_t e = chain(n);
        int iters = 200000 / n;
        char heading[64];
        (void)time_replays(e, iters); /* warm-up: the launch way settles */
        pair p = measure(e, iters, rounds);
        snprintf(heading, sizeof heading, "a chain of %d empty kernels", n);
        bu_section(&figs, heading);
        bu_fig(&figs, "replay_ns_trace_off", "replay (launch + synchronise), tracing off", "chain", n, p.off,
               "ns");
        bu_fig(&figs, "replay_ns_trace_on", "replay (launch + synchronise), tracing on", "chain", n, p.on,
               "ns");
        bu_fig(&figs, "trace_ns_per_node", "tracing's cost per node", "chain", n, (p.on - p.off) / n, "ns");
        BU_CHECK(grGraphExecDestroy(e));
    }
    pair p = measure(NULL, 20000, rounds);
    bu_section(&figs, "an eager kernel launch + synchronise");
    bu_fig(&figs, "eager_ns_trace_off", "eager launch, tracing off", "kernel", 1, p.off, "ns");
    bu_fig(&figs, "eager_ns_trace_on", "eager launch, tracing on", "kernel", 1, p.on, "ns");
    unlink(g_path);
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_trace", &m, figs.workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    BU_CHECK(grStreamDestroy(g_stream));
    BU_CHECK(grKernelDestroy(g_kernel));
    free(figs.v);
    return 0;
}
