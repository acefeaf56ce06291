/*
 * bench_conditional.c - what a WHILE conditional node costs per iteration
 * beyond its body: a WHILE node whose body is one single-block kernel,
 * launched for N iterations, against the same kernel unrolled into a
 * chain of N kernel nodes (the graph one would build without conditional
 * nodes), both launched and synchronised on the calling stream.
 *
 * The kernel ("tick") decrements a counter and, when it reaches zero,
 * clears the loop's handle with grGraphSetConditional: the loop's own
 * test, run in both graphs so that the bodies cost the same.
 *
 * Figures are medians of several launches; param is N, the iterations.
 *   while_ns_per_iter     a launch of the WHILE graph / N
 *   unrolled_ns_per_node  a launch of the unrolled chain / N
 *   overhead_ns_per_iter  the difference: the loop's own cost
 *   launch_us             a whole launch of the WHILE graph
 * Usage: bench_conditional [workers] [--quick] [--csv] [--json FILE]
 * Output: the machine and parameters, then a table; with --csv, lines
 * fig,workers,name,shape,param,value,unit.
 */
#include "bench_util.h"

static bu_figures g_figs;

typedef struct tick_args {
    long *left;
    grGraphConditionalHandle h;
} tick_args;

static void tick(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    long *left = *(long **)args[0];
    if (--*left == 0)
        grGraphSetConditional(*(grGraphConditionalHandle *)args[1], 0);
}

static grKernel_t g_tick;

static void add_tick(grGraph_t g, const grGraphNode_t *dep, long *left, grGraphConditionalHandle h,
                     grGraphNode_t *out)
{
    void *args[2] = {&left, &h};
    grKernelNodeParams p = {g_tick, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    BU_CHECK(grGraphAddKernelNode(out, g, dep, dep ? 1 : 0, &p));
}

/* Median ns of one launch (and synchronise) of e, 'left' reset to n
 * before each. */
static double time_launches(grGraphExec_t e, long *left, long n, int reps)
{
    double *t = bu_xmalloc((size_t)reps * sizeof *t);
    for (int r = -2; r < reps; r++) { /* two warm-up launches */
        *left = n;
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grGraphLaunch(e, NULL));
        BU_CHECK(grStreamSynchronize(NULL));
        uint64_t t1 = bu_now_ns();
        if (*left != 0) {
            fprintf(stderr, "bench_conditional: %ld iterations left after a launch\n", *left);
            exit(1);
        }
        if (r >= 0)
            t[r] = (double)(t1 - t0);
    }
    double m = bu_median(t, reps);
    free(t);
    return m;
}

static void measure(long n, int reps)
{
    long left = 0;
    grGraph_t gw, gu, gh, *body;
    grGraphConditionalHandle hw, hu;
    grGraphExec_t ew, eu;
    grGraphNode_t node, prev = NULL;

    BU_CHECK(grGraphCreate(&gw, 0));
    BU_CHECK(grGraphConditionalHandleCreate(&hw, gw, 1, grGraphCondAssignDefault));
    grGraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = grGraphNodeTypeConditional;
    cp.conditional.handle = hw;
    cp.conditional.type = grGraphCondTypeWhile;
    cp.conditional.size = 1;
    BU_CHECK(grGraphAddNode(&node, gw, NULL, NULL, 0, &cp));
    body = cp.conditional.phGraph_out;
    add_tick(body[0], NULL, &left, hw, &node);
    BU_CHECK(grGraphInstantiate(&ew, gw, 0));

    /* The chain's kernels set a handle too, of a graph never instantiated
     * (an instantiated graph may hold no unused handle). */
    BU_CHECK(grGraphCreate(&gh, 0));
    BU_CHECK(grGraphConditionalHandleCreate(&hu, gh, 1, 0));
    BU_CHECK(grGraphCreate(&gu, 0));
    for (long i = 0; i < n; i++) {
        add_tick(gu, prev ? &prev : NULL, &left, hu, &node);
        prev = node;
    }
    BU_CHECK(grGraphInstantiate(&eu, gu, 0));

    double tw = time_launches(ew, &left, n, reps);
    double tu = time_launches(eu, &left, n, reps);
    bu_fig(&g_figs, "while_ns_per_iter", "WHILE node, body of one kernel: per iteration", "while", n,
           tw / (double)n, "ns");
    bu_fig(&g_figs, "unrolled_ns_per_node", "the same kernel unrolled into a chain: per node", "chain", n,
           tu / (double)n, "ns");
    bu_fig(&g_figs, "overhead_ns_per_iter", "the loop's cost beyond its body, per iteration", "while", n,
           (tw - tu) / (double)n, "ns");
    bu_fig(&g_figs, "launch_us", "a launch of the WHILE graph (launch + synchronise)", "while", n, tw / 1e3,
           "us");
    BU_CHECK(grGraphExecDestroy(ew));
    BU_CHECK(grGraphExecDestroy(eu));
    BU_CHECK(grGraphDestroy(gw));
    BU_CHECK(grGraphDestroy(gu));
    BU_CHECK(grGraphDestroy(gh));
}

int main(int argc, char **argv)
{
    static const long iters[] = {100, 1000, 10000};
    static const size_t sizes[2] = {sizeof(long *), sizeof(grGraphConditionalHandle)};
    bu_opts o = {0};
    bu_machine m;
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 2;
        }
    g_figs.workers = bu_workers(o.workers);
    g_figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_conditional",
              "a WHILE node's cost per iteration beyond its body (one single-block kernel)", &m,
              g_figs.workers, &o);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    BU_CHECK(grKernelCreate(&g_tick, tick, "tick", 2, sizes));
    bu_section(&g_figs, "WHILE loop vs the same body unrolled (param: iterations)");
    for (size_t k = 0; k < sizeof iters / sizeof iters[0]; k++)
        measure(iters[k], o.quick ? 5 : 21);
    BU_CHECK(grKernelDestroy(g_tick));
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_conditional", &m, g_figs.workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &g_figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    free(g_figs.v);
    return 0;
}
