/*
 * bench_recapture.c - what re-capture saves: the same stream code (a
 * chain of N kernel launches) turned into a runnable executable again,
 * two ways:
 *   capture + instantiate   grStreamBeginCapture, the launches,
 *                           grStreamEndCapture, grGraphInstantiate (and
 *                           the old graph and executable destroyed);
 *   re-capture + apply      grStreamBeginRecaptureToGraph into the graph
 *                           of the first capture, the launches,
 *                           grStreamEndCapture, grGraphExecUpdate of its
 *                           executable;
 * with unchanged arguments (the common case: same shapes, same pointers)
 * and with one launch in N given a new argument (k = N / 100 changed
 * nodes). Rounds of the two ways alternate, so both see the same spells
 * of the machine; each figure is the median over its rounds. After the
 * rounds, one replay checks that the last arguments ran.
 *
 * Usage: bench_recapture [workers] [--quick] [--csv] [--json FILE]
 * Output: the machine and parameters, then a table per chain length
 * (with --csv, lines fig,workers,name,shape,param,value,unit), and for
 * N = 1,000 the ratio re-capture + apply / capture + instantiate.
 */
#include "bench_util.h"

static void store_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    int *p = *(int **)args[0];
    p[*(int *)args[1]] = *(int *)args[2];
}

static grKernel_t g_kernel;
static int *g_out;

/* The stream code: n launches, launch i storing value v(i) in out[i]. */
static void work(grStream_t s, int n, int round, int every)
{
    for (int i = 0; i < n; i++) {
        int v = every && i % every == 0 ? round : -1;
        void *args[3] = {&g_out, &i, &v};
        BU_CHECK(grLaunchKernel(g_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    }
}

typedef struct figures {
    double capture_inst_ns, recapture_apply_ns, recapture_ns, apply_ns;
} figures;

/* every: 0 leaves every argument unchanged; else launches i % every == 0
 * get the round number as their value. */
static void measure(int n, int reps, int every, grStream_t s, figures *f)
{
    double *ci = bu_xmalloc((size_t)reps * sizeof *ci), *ra = bu_xmalloc((size_t)reps * sizeof *ra),
           *rc = bu_xmalloc((size_t)reps * sizeof *rc), *ap = bu_xmalloc((size_t)reps * sizeof *ap);
    grGraph_t g, g2;
    grGraphExec_t e, e2;
    grGraphExecUpdateResultInfo info;
    BU_CHECK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    work(s, n, 0, every);
    BU_CHECK(grStreamEndCapture(s, &g));
    BU_CHECK(grGraphInstantiate(&e, g, 0));
    for (int r = 0; r < reps; r++) {
        int round = r + 1;
        /* capture + instantiate */
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
        work(s, n, round, every);
        BU_CHECK(grStreamEndCapture(s, &g2));
        BU_CHECK(grGraphInstantiate(&e2, g2, 0));
        uint64_t t1 = bu_now_ns();
        BU_CHECK(grGraphExecDestroy(e2));
        BU_CHECK(grGraphDestroy(g2));
        /* re-capture + apply */
        uint64_t t2 = bu_now_ns();
        BU_CHECK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
        work(s, n, round, every);
        BU_CHECK(grStreamEndCapture(s, &g2));
        uint64_t t3 = bu_now_ns();
        BU_CHECK(grGraphExecUpdate(e, g, &info));
        uint64_t t4 = bu_now_ns();
        if (g2 != g || info.result != grGraphExecUpdateSuccess) {
            fprintf(stderr,
                    "bench_recapture: the re-capture did not give back its graph, or the update failed\n");
            exit(1);
        }
        ci[r] = (double)(t1 - t0);
        ra[r] = (double)(t4 - t2);
        rc[r] = (double)(t3 - t2);
        ap[r] = (double)(t4 - t3);
    }
    /* The last round's arguments run. */
    memset(g_out, 0, (size_t)n * sizeof *g_out);
    BU_CHECK(grGraphLaunch(e, s));
    BU_CHECK(grStreamSynchronize(s));
    for (int i = 0; i < n; i++) {
        int want = every && i % every == 0 ? reps : -1;
        if (g_out[i] != want) {
            fprintf(stderr, "bench_recapture: launch %d stored %d, not %d\n", i, g_out[i], want);
            exit(1);
        }
    }
    BU_CHECK(grGraphExecDestroy(e));
    BU_CHECK(grGraphDestroy(g));
    f->capture_inst_ns = bu_median(ci, reps);
    f->recapture_apply_ns = bu_median(ra, reps);
    f->recapture_ns = bu_median(rc, reps);
    f->apply_ns = bu_median(ap, reps);
    free(ci);
    free(ra);
    free(rc);
    free(ap);
}

int main(int argc, char **argv)
{
    static const int lengths[] = {100, 1000, 10000};
    size_t sizes[3] = {sizeof(int *), sizeof(int), sizeof(int)};
    bu_opts o = {0};
    bu_figures figs = {0};
    bu_machine m;
    grStream_t s;
    int workers;
    double ratio1000 = NAN, ratio1000_k = NAN;
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 1;
        }
    workers = bu_workers(o.workers);
    figs.workers = workers;
    figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_recapture",
              "re-capture + grGraphExecUpdate vs capture + instantiate of chains of 1-block kernel launches, "
              "alternated rounds, medians",
              &m, workers, &o);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    BU_CHECK(grKernelCreate(&g_kernel, store_fn, "bench_recapture_store", 3, sizes));
    BU_CHECK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    g_out = bu_xmalloc(10000 * sizeof *g_out);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int n = lengths[li];
        int reps = bu_reps(n, 5, o.quick ? 7 : 41);
        for (int changed = 0; changed < 2; changed++) {
            char heading[128];
            figures f;
            measure(n, reps, changed ? 100 : 0, s, &f);
            snprintf(heading, sizeof heading, "a chain of %d launches, %s, median of %d rounds", n,
                     changed ? "one launch in 100 with a new argument" : "arguments unchanged", reps);
            bu_section(&figs, heading);
            const char *shape = changed ? "chain_k1pc" : "chain";
            bu_fig(&figs, "capture_instantiate_ns", "capture + instantiate", shape, n, f.capture_inst_ns,
                   "ns");
            bu_fig(&figs, "recapture_apply_ns", "re-capture + grGraphExecUpdate", shape, n,
                   f.recapture_apply_ns, "ns");
            bu_fig(&figs, "recapture_ns", "re-capture alone (begin to end)", shape, n, f.recapture_ns, "ns");
            bu_fig(&figs, "apply_ns", "grGraphExecUpdate after it", shape, n, f.apply_ns, "ns");
            double ratio = f.recapture_apply_ns / f.capture_inst_ns;
            bu_fig(&figs, "ratio", "re-capture + apply / capture + instantiate", shape, n, ratio, "x");
            if (n == 1000)
                *(changed ? &ratio1000_k : &ratio1000) = ratio;
        }
    }
    printf("%sratio re-capture + apply / capture + instantiate, 1000 launches: %.3f unchanged, %.3f with 10 "
           "changed (target <= 0.2)\n",
           o.csv ? "# " : "", ratio1000, ratio1000_k);
    BU_CHECK(grStreamDestroy(s));
    BU_CHECK(grKernelDestroy(g_kernel));
    free(g_out);
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_recapture", &m, workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    free(figs.v);
    return 0;
}
