/*
 * bench_capture.c - what stream capture costs: per captured operation and
 * per grStreamEndCapture for chains of 10 to 10,000 kernel launches, next
 * to an eager enqueue of the same launch; and capture + instantiate + one
 * launch against eager execution of the same work, as the number of
 * replays after which capturing pays (break-even).
 *
 * Each figure is the median of several repetitions.
 * Usage: bench_capture [workers] [--quick] [--csv] [--json FILE]
 * Output: the machine and parameters, then a table per chain length; with
 * --csv, lines
 *   fig,workers,name,shape,param,value,unit
 */
#include "bench_util.h"

static void nop_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

static grKernel_t g_kernel;
static int g_sink[1];

static void launch(grStream_t s, int i)
{
    int *p = g_sink;
    void *args[2] = {&p, &i};
    BU_CHECK(grLaunchKernel(g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
}

typedef struct figures {
    double capture_ns_per_op, end_ns, eager_enqueue_ns_per_op, eager_e2e_ns, instantiate_ns, first_launch_ns,
        replay_ns;
} figures;

static void measure(int n, int reps, grStream_t s, figures *f)
{
    double *cap = bu_xmalloc((size_t)reps * sizeof *cap), *end = bu_xmalloc((size_t)reps * sizeof *end),
           *enq = bu_xmalloc((size_t)reps * sizeof *enq), *e2e = bu_xmalloc((size_t)reps * sizeof *e2e),
           *inst = bu_xmalloc((size_t)reps * sizeof *inst), *first = bu_xmalloc((size_t)reps * sizeof *first),
           *rep = bu_xmalloc((size_t)reps * sizeof *rep);
    for (int r = 0; r < reps; r++) {
        grGraph_t g;
        grGraphExec_t e;
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
        for (int i = 0; i < n; i++)
            launch(s, i);
        uint64_t t1 = bu_now_ns();
        BU_CHECK(grStreamEndCapture(s, &g));
        uint64_t t2 = bu_now_ns();
        BU_CHECK(grGraphInstantiate(&e, g, 0));
        uint64_t t3 = bu_now_ns();
        BU_CHECK(grGraphLaunch(e, s));
        BU_CHECK(grStreamSynchronize(s));
        uint64_t t4 = bu_now_ns();
        BU_CHECK(grGraphLaunch(e, s));
        BU_CHECK(grStreamSynchronize(s));
        uint64_t t5 = bu_now_ns();
        for (int i = 0; i < n; i++)
            launch(s, i);
        uint64_t t6 = bu_now_ns();
        BU_CHECK(grStreamSynchronize(s));
        uint64_t t7 = bu_now_ns();
        BU_CHECK(grGraphExecDestroy(e));
        BU_CHECK(grGraphDestroy(g));
        cap[r] = (double)(t1 - t0) / n;
        end[r] = (double)(t2 - t1);
        inst[r] = (double)(t3 - t2);
        first[r] = (double)(t4 - t3);
        rep[r] = (double)(t5 - t4);
        enq[r] = (double)(t6 - t5) / n;
        e2e[r] = (double)(t7 - t5);
    }
    f->capture_ns_per_op = bu_median(cap, reps);
    f->end_ns = bu_median(end, reps);
    f->instantiate_ns = bu_median(inst, reps);
    f->first_launch_ns = bu_median(first, reps);
    f->replay_ns = bu_median(rep, reps);
    f->eager_enqueue_ns_per_op = bu_median(enq, reps);
    f->eager_e2e_ns = bu_median(e2e, reps);
    free(cap);
    free(end);
    free(enq);
    free(e2e);
    free(inst);
    free(first);
    free(rep);
}

int main(int argc, char **argv)
{
    static const int lengths[] = {10, 100, 1000, 10000};
    size_t sizes[2] = {sizeof(int *), sizeof(int)};
    bu_opts o = {0};
    bu_figures figs = {0};
    bu_machine m;
    grStream_t s;
    int workers;
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 1;
        }
    workers = bu_workers(o.workers);
    figs.workers = workers;
    figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_capture", "stream capture of chains of 1-block kernel launches, medians", &m, workers,
              &o);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    BU_CHECK(grKernelCreate(&g_kernel, nop_fn, "bench_capture_nop", 2, sizes));
    BU_CHECK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int n = lengths[li];
        int reps = bu_reps(n, 3, o.quick ? 5 : 51);
        char heading[96];
        figures f;
        measure(n, reps, s, &f);
        snprintf(heading, sizeof heading, "a chain of %d launches, median of %d", n, reps);
        bu_section(&figs, heading);
        bu_fig(&figs, "capture_ns_per_op", "grLaunchKernel captured, per launch", "chain", n,
               f.capture_ns_per_op, "ns");
        bu_fig(&figs, "eager_enqueue_ns_per_op", "grLaunchKernel eager (enqueue only), per launch", "chain",
               n, f.eager_enqueue_ns_per_op, "ns");
        bu_fig(&figs, "end_capture_ns", "grStreamEndCapture", "chain", n, f.end_ns, "ns");
        bu_fig(&figs, "end_capture_ns_per_node", "grStreamEndCapture per node", "chain", n, f.end_ns / n,
               "ns");
        bu_fig(&figs, "instantiate_ns", "grGraphInstantiate", "chain", n, f.instantiate_ns, "ns");
        bu_fig(&figs, "first_launch_ns", "first grGraphLaunch + synchronise", "chain", n, f.first_launch_ns,
               "ns");
        bu_fig(&figs, "replay_ns", "replay (grGraphLaunch + synchronise)", "chain", n, f.replay_ns, "ns");
        bu_fig(&figs, "eager_run_ns", "the launches eager (enqueue + synchronise)", "chain", n,
               f.eager_e2e_ns, "ns");
        /* Capturing pays after k runs when setup + k * replay < k * eager. */
        double setup =
            f.capture_ns_per_op * n + f.end_ns + f.instantiate_ns + f.first_launch_ns - f.replay_ns;
        double gain = f.eager_e2e_ns - f.replay_ns;
        bu_fig(&figs, "break_even_runs", "runs after which capture + instantiate pays (- never)", "chain", n,
               gain > 0 ? setup / gain : NAN, "runs");
    }
    BU_CHECK(grStreamDestroy(s));
    BU_CHECK(grKernelDestroy(g_kernel));
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_capture", &m, workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    free(figs.v);
    return 0;
}
