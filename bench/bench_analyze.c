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
 * Output lines: fig,workers,name,shape,param,value,unit (param: nodes);
 * figures are medians of several runs. Usage:
 *   bench_analyze [--quick] [--json FILE]
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
    bu_fig(&g_figs, "analyze_ms", shape, n, bu_median(an, reps) / 1e6, "ms");
    bu_fig(&g_figs, "instantiate_ms", shape, n, bu_median(inst, reps) / 1e6, "ms");
    bu_fig(&g_figs, "redundant_edges", shape, n, (double)redundant, "edges");
    free(an);
    free(inst);
    BU_CHECK(grGraphDestroy(g));
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    int quick = 0;
    bu_machine m;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[a], "--json") == 0 && a + 1 < argc)
            json = argv[++a];
        else {
            fprintf(stderr, "usage: %s [--quick] [--json FILE]\n", argv[0]);
            return 2;
        }
    }
    bu_machine_read(&m);
    g_figs.workers = bu_workers(NULL);
    printf("# bench_analyze: grGraphAnalyze and grGraphInstantiate of hand-built graphs\n");
    bu_machine_print(&m, stdout);
    printf("# workers: %d\n# fig,workers,name,shape,param,value,unit\n", g_figs.workers);
    static const char *const shapes[] = {"chain", "skip", "layered"};
    static const int sizes[] = {1000, 10000, 100000};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int n = sizes[k];
            if (quick && n > 10000)
                continue;
            measure(shapes[s], n, n >= 100000 ? 3 : quick ? 3 : 9);
        }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\"bench\": \"bench_analyze\", ");
        bu_json_machine(f, &m);
        fprintf(f, ", \"workers\": %d, ", g_figs.workers);
        bu_json_figures(f, &g_figs);
        fprintf(f, "}\n");
        fclose(f);
    }
    free(g_figs.v);
    return 0;
}
