/*
 * bench_analyze.c - what grGraphAnalyze costs on graphs of 1,000 to
 * 100,000 nodes, next to grGraphInstantiate of the same graph (the cost
 * GRAPHRT_ANALYZE=1 adds to each instantiation is the analysis).
 *
 * Shapes (empty nodes, built by hand):
 *   chain    node i depends on node i-1: no redundant edge
 *   skip     a chain plus i-2 -> i: every skip edge is redundant
 *   layered  layers of 100 nodes, each depending on 2 random nodes of the
 *            layer before (a seeded generator): wide, few findings
 *
 * Figures are medians of several runs; param is the node count.
 * Usage: bench_analyze [workers] [--quick] [--csv] [--json FILE]
 * Output: the machine and parameters, then a table per shape; with --csv,
 * lines fig,workers,name,shape,param,value,unit.
 */
#include "bench_util.h"

static bu_figures g_figs;

static grGraph_t build(const char *shape, int n)
{
    grGraph_t g;
    grGraphNode_t *v = bu_xmalloc((size_t)n * sizeof *v);
    unsigned seed = 2024;
    BU_CHECK(grGraphCreate(&g, 0));
    for (int i = 0; i < n; i++) {
        grGraphNode_t deps[2];
        size_t nd = 0;
        if (strcmp(shape, "layered") == 0) {
            const int width = 100, layer = i / width;
            for (int k = 0; layer > 0 && k < 2; k++) {
                seed = seed * 1103515245u + 12345u;
                grGraphNode_t d = v[(layer - 1) * width + (int)((seed >> 8) % (unsigned)width)];
                if (nd == 0 || deps[0] != d)
                    deps[nd++] = d;
            }
        } else {
            if (i >= 1)
                deps[nd++] = v[i - 1];
            if (i >= 2 && strcmp(shape, "skip") == 0)
                deps[nd++] = v[i - 2];
        }
        BU_CHECK(grGraphAddEmptyNode(&v[i], g, deps, nd));
    }
    free(v);
    return g;
}

static void measure(const char *shape, int n, int reps)
{
    grGraph_t g = build(shape, n);
    double *an = bu_xmalloc((size_t)reps * sizeof *an), *inst = bu_xmalloc((size_t)reps * sizeof *inst);
    size_t redundant = 0;
    for (int r = 0; r < reps; r++) {
        grGraphAnalysis report;
        grGraphExec_t e;
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grGraphAnalyze(g, &report, 0));
        uint64_t t1 = bu_now_ns();
        BU_CHECK(grGraphInstantiate(&e, g, 0));
        uint64_t t2 = bu_now_ns();
        redundant = report.numRedundantEdges;
        BU_CHECK(grGraphAnalysisDestroy(&report));
        BU_CHECK(grGraphExecDestroy(e));
        an[r] = (double)(t1 - t0);
        inst[r] = (double)(t2 - t1);
    }
    bu_fig(&g_figs, "analyze_ms", "grGraphAnalyze", shape, n, bu_median(an, reps) / 1e6, "ms");
    bu_fig(&g_figs, "instantiate_ms", "grGraphInstantiate of the same graph", shape, n,
           bu_median(inst, reps) / 1e6, "ms");
    bu_fig(&g_figs, "redundant_edges", "redundant edges the analysis found", shape, n, (double)redundant,
           "edges");
    free(an);
    free(inst);
    BU_CHECK(grGraphDestroy(g));
}

int main(int argc, char **argv)
{
    static const char *const shapes[] = {"chain", "skip", "layered"};
    static const char *const headings[] = {
        "chain: node i depends on node i-1", "skip: a chain plus i-2 -> i (every skip edge redundant)",
        "layered: layers of 100 nodes, 2 random edges from the layer before"};
    static const int sizes[] = {1000, 10000, 100000};
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
    bu_header("bench_analyze", "grGraphAnalyze and grGraphInstantiate of hand-built graphs of empty nodes",
              &m, g_figs.workers, &o);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        bu_section(&g_figs, headings[s]);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int n = sizes[k];
            if (o.quick && n > 10000)
                continue;
            measure(shapes[s], n, n >= 100000 ? 3 : o.quick ? 3 : 9);
        }
    }
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_analyze", &m, g_figs.workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &g_figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    free(g_figs.v);
    return 0;
}
