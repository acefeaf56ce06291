/*
 * test-graph-analyze.c - grGraphAnalyze: figures (levels, widths, critical
 * path, components) and each finding (redundant edges, detached nodes,
 * serialised fork-joins, with the event and calls named for a capture) on
 * small graphs whose answers are known, a correctly joined capture that
 * has no finding, large graphs, printing, freeing and bad input.
 */
#include "testlib.h"

#include <math.h>
#include <unistd.h>

static void no_findings(const grGraphAnalysis *r)
{
    CHECK_EQ(r->numRedundantEdges, 0);
    CHECK(r->redundantEdges == NULL);
    CHECK_EQ(r->numDetachedNodes, 0);
    CHECK(r->detachedNodes == NULL);
    CHECK_EQ(r->numSerialisedJoins, 0);
    CHECK(r->serialisedJoins == NULL);
}

GR_TEST(analyze_diamond_reports_levels_widths_and_critical_path)
{
    grGraph_t g;
    grGraphNode_t n[4];
    grGraphAnalysis r;
    tl_diamond(&g, n, NULL);
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_PTR_EQ(r.graph, g);
    CHECK_EQ(r.numNodes, 4);
    CHECK_EQ(r.numEdges, 4);
    CHECK_EQ(r.numRoots, 1);
    CHECK_EQ(r.numSinks, 1);
    CHECK_EQ(r.numComponents, 1);
    CHECK_EQ(r.depth, 3);
    CHECK_EQ(r.numLevels, 3);
    CHECK_EQ(r.levelWidths[0], 1);
    CHECK_EQ(r.levelWidths[1], 2);
    CHECK_EQ(r.levelWidths[2], 1);
    CHECK_EQ(r.maxWidth, 2);
    CHECK(fabs(r.averageWidth - 4.0 / 3.0) < 1e-12);
    /* Both paths are as long: the one through the dependency first in the
     * topological order (b, created before c) wins. */
    CHECK_EQ(r.numCriticalPath, 3);
    CHECK_PTR_EQ(r.criticalPath[0], n[0]);
    CHECK_PTR_EQ(r.criticalPath[1], n[1]);
    CHECK_PTR_EQ(r.criticalPath[2], n[3]);
    CHECK(r.criticalPathCost == 0);
    CHECK(!r.fromCapture);
    CHECK_EQ(r.numRedundantStreamEdges, 0);
    no_findings(&r);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(analyze_with_costs_follows_the_costliest_path)
{
    grGraph_t g;
    grGraphNode_t n[4];
    grGraphAnalysis r;
    tl_diamond(&g, n, NULL);
    const double costs[4] = {1.0, 2.0, 5.0, 0.5}; /* creation order: a, b, c, d */
    CHECK_OK(grGraphAnalyzeWithCosts(g, &r, 0, costs, 4));
    CHECK_EQ(r.numCriticalPath, 3);
    CHECK_PTR_EQ(r.criticalPath[0], n[0]);
    CHECK_PTR_EQ(r.criticalPath[1], n[2]);
    CHECK_PTR_EQ(r.criticalPath[2], n[3]);
    CHECK(fabs(r.criticalPathCost - 6.5) < 1e-12);
    CHECK_EQ(r.depth, 3);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(analyze_finds_a_redundant_edge_and_its_join)
{
    /* a -> b -> c and a -> c: a -> c adds nothing. */
    grGraph_t g;
    grGraphNode_t a, b, c, ab[2];
    grGraphAnalysis r;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, &a, 1));
    ab[0] = a;
    ab[1] = b;
    CHECK_OK(grGraphAddEmptyNode(&c, g, ab, 2));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numRedundantEdges, 1);
    CHECK_PTR_EQ(r.redundantEdges[0].from, a);
    CHECK_PTR_EQ(r.redundantEdges[0].to, c);
    CHECK_EQ(r.depth, 3);
    CHECK_EQ(r.maxWidth, 1);
    /* a reaches every other dependency of c: a shortcut, not two
     * branches chained. */
    CHECK_EQ(r.numSerialisedJoins, 0);
    CHECK_EQ(r.numDetachedNodes, 0);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(analyze_finds_a_hand_built_join_of_chained_branches)
{
    /* f forks to b and c, j joins f, b and c; but c was made to depend on
     * b instead of f. */
    grGraph_t g;
    grGraphNode_t f, b, c, j, deps[3];
    grGraphAnalysis r;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&f, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, &f, 1));
    CHECK_OK(grGraphAddEmptyNode(&c, g, &b, 1));
    deps[0] = f;
    deps[1] = b;
    deps[2] = c;
    CHECK_OK(grGraphAddEmptyNode(&j, g, deps, 3));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numRedundantEdges, 2); /* f -> j, b -> j */
    CHECK_PTR_EQ(r.redundantEdges[0].from, f);
    CHECK_PTR_EQ(r.redundantEdges[1].from, b);
    /* f reaches both other dependencies (it is where they start); b
     * reaches c but not f: b's branch and c's are chained. */
    CHECK_EQ(r.numSerialisedJoins, 1);
    const grGraphSerialisedJoin *sj = &r.serialisedJoins[0];
    CHECK_PTR_EQ(sj->join, j);
    CHECK_EQ(sj->numFirstBranch, 1);
    CHECK_PTR_EQ(sj->firstBranch[0], b);
    CHECK_EQ(sj->numSecondBranch, 1);
    CHECK_PTR_EQ(sj->secondBranch[0], c);
    CHECK_PTR_EQ(sj->link.from, b);
    CHECK_PTR_EQ(sj->link.to, c);
    CHECK(!sj->hasCause);
    CHECK(sj->firstStream == NULL && sj->secondStream == NULL);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(analyze_finds_nodes_detached_from_the_largest_component)
{
    /* a -> b;  c -> d -> e;  f alone. */
    grGraph_t g;
    grGraphNode_t a, b, c, d, e, f;
    grGraphAnalysis r;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, &a, 1));
    CHECK_OK(grGraphAddEmptyNode(&c, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&d, g, &c, 1));
    CHECK_OK(grGraphAddEmptyNode(&e, g, &d, 1));
    CHECK_OK(grGraphAddEmptyNode(&f, g, NULL, 0));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numComponents, 3);
    CHECK_EQ(r.numRoots, 3);
    CHECK_EQ(r.numSinks, 3);
    CHECK_EQ(r.numDetachedNodes, 3);
    CHECK_PTR_EQ(r.detachedNodes[0], a);
    CHECK_PTR_EQ(r.detachedNodes[1], b);
    CHECK_PTR_EQ(r.detachedNodes[2], f);
    CHECK_EQ(r.depth, 3);
    CHECK_EQ(r.levelWidths[0], 3);
    CHECK_EQ(r.levelWidths[1], 2);
    CHECK_EQ(r.levelWidths[2], 1);
    CHECK_EQ(r.numCriticalPath, 3);
    CHECK_PTR_EQ(r.criticalPath[0], c);
    CHECK_PTR_EQ(r.criticalPath[2], e);
    CHECK_EQ(r.numRedundantEdges, 0);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(analyze_empty_graph_reports_zero_everything)
{
    grGraph_t g;
    grGraphAnalysis r;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numNodes, 0);
    CHECK_EQ(r.depth, 0);
    CHECK_EQ(r.numComponents, 0);
    CHECK(r.levelWidths == NULL && r.criticalPath == NULL);
    CHECK(r.averageWidth == 0);
    no_findings(&r);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

/* ------------------------------------------------------------ captures */

typedef enum fj_shape {
    FJ_CORRECT,       /* B and C both wait on the fork event */
    FJ_WAIT_ON_B_END, /* C waits on the event B records after its work */
    FJ_REUSED_EVENT   /* B records the fork event again, then C waits on it */
} fj_shape;

typedef struct fj_capture {
    grGraph_t graph;
    grGraphNode_t n[6]; /* fork, b1, b2, c1, c2, join (creation order) */
    grStream_t a, b, c;
    grEvent_t fork, b_done, c_done;
    unsigned long long id;
    grKernel_t k;
} fj_capture;

/* The article's fork-join: A forks to B and C, each runs two kernels, A
 * joins both and runs one more; 'shape' chooses how C is forked. */
static void fj_capture_make(fj_capture *x, fj_shape shape)
{
    const grDim3 one = GR_DIM3(1, 1, 1);
    grStreamCaptureStatus st;
    size_t count = 6;
    /* Kernel names are unique among live kernels: the first capture's
     * is "step", the next "step2", ... */
    static int made;
    char name[32];
    if (made++)
        snprintf(name, sizeof name, "step%d", made);
    else
        snprintf(name, sizeof name, "step");
    memset(x, 0, sizeof *x);
    CHECK_OK(grKernelCreate(&x->k, tl_kernel_nop, name, 0, NULL));
    CHECK_OK(grStreamCreate(&x->a));
    CHECK_OK(grStreamCreate(&x->b));
    CHECK_OK(grStreamCreate(&x->c));
    CHECK_OK(grEventCreate(&x->fork));
    CHECK_OK(grEventCreate(&x->b_done));
    CHECK_OK(grEventCreate(&x->c_done));
    CHECK_OK(grStreamBeginCapture(x->a, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamGetCaptureInfo(x->a, &st, &x->id, NULL, NULL, NULL, NULL));
    CHECK_OK(grLaunchKernel(x->k, one, one, NULL, 0, x->a)); /* call 1 */
    CHECK_OK(grEventRecord(x->fork, x->a));                  /* call 2 */
    CHECK_OK(grStreamWaitEvent(x->b, x->fork, 0));           /* call 3 */
    CHECK_OK(grLaunchKernel(x->k, one, one, NULL, 0, x->b)); /* call 4 */
    CHECK_OK(grLaunchKernel(x->k, one, one, NULL, 0, x->b)); /* call 5 */
    if (shape == FJ_REUSED_EVENT)
        CHECK_OK(grEventRecord(x->fork, x->b)); /* call 6 */
    else
        CHECK_OK(grEventRecord(x->b_done, x->b));                                          /* call 6 */
    CHECK_OK(grStreamWaitEvent(x->c, shape == FJ_WAIT_ON_B_END ? x->b_done : x->fork, 0)); /* call 7 */
    CHECK_OK(grLaunchKernel(x->k, one, one, NULL, 0, x->c));
    CHECK_OK(grLaunchKernel(x->k, one, one, NULL, 0, x->c));
    if (shape == FJ_REUSED_EVENT)
        CHECK_OK(grEventRecord(x->b_done, x->b));
    CHECK_OK(grEventRecord(x->c_done, x->c));
    CHECK_OK(grStreamWaitEvent(x->a, x->b_done, 0));
    CHECK_OK(grStreamWaitEvent(x->a, x->c_done, 0));
    CHECK_OK(grLaunchKernel(x->k, one, one, NULL, 0, x->a));
    CHECK_OK(grStreamEndCapture(x->a, &x->graph));
    CHECK_OK(grGraphGetNodes(x->graph, x->n, &count));
    CHECK_EQ(count, 6);
}

static void fj_capture_free(fj_capture *x)
{
    CHECK_OK(grGraphDestroy(x->graph));
    CHECK_OK(grEventDestroy(x->fork));
    CHECK_OK(grEventDestroy(x->b_done));
    CHECK_OK(grEventDestroy(x->c_done));
    CHECK_OK(grStreamDestroy(x->a));
    CHECK_OK(grStreamDestroy(x->b));
    CHECK_OK(grStreamDestroy(x->c));
    CHECK_OK(grKernelDestroy(x->k));
}

/* The analysis r of a captured graph of this shape, with no finding but
 * 'redundant' stream-order edges; destroyed after. */
static void check_captured_shape(grGraphAnalysis *r, size_t nodes, size_t depth, size_t width,
                                 size_t redundant)
{
    CHECK(r->fromCapture);
    CHECK_EQ(r->numNodes, nodes);
    CHECK_EQ(r->depth, depth);
    CHECK_EQ(r->maxWidth, width);
    CHECK_EQ(r->numRedundantStreamEdges, redundant);
    no_findings(r);
    CHECK_OK(grGraphAnalysisDestroy(r));
}

GR_TEST(analyze_correct_fork_join_capture_has_no_finding)
{
    fj_capture x;
    grGraphAnalysis r;
    fj_capture_make(&x, FJ_CORRECT);
    CHECK_OK(grGraphAnalyze(x.graph, &r, 0));
    /* fork -> b1, b1 -> b2, fork -> c1, c1 -> c2, and the join after b2,
     * c2 and (stream A's order) fork. */
    CHECK_EQ(r.numEdges, 7);
    check_captured_shape(&r, 6, 4, 2, 1);
    fj_capture_free(&x);
}

/* The finding of a serialised capture: B's branch first, C's chained
 * after it by C's wait (call 7) on the event B recorded (call 6). */
static void check_serialised(const fj_capture *x, const grGraphAnalysis *r, grEvent_t ev)
{
    CHECK(r->fromCapture);
    CHECK_EQ(r->numEdges, 7);
    CHECK_EQ(r->depth, 6);
    CHECK_EQ(r->maxWidth, 1);
    CHECK_EQ(r->numRedundantEdges, 1);
    CHECK_PTR_EQ(r->redundantEdges[0].from, x->n[2]);
    CHECK_PTR_EQ(r->redundantEdges[0].to, x->n[5]);
    CHECK_EQ(r->numSerialisedJoins, 1);
    const grGraphSerialisedJoin *j = &r->serialisedJoins[0];
    CHECK_PTR_EQ(j->join, x->n[5]);
    CHECK_EQ(j->numFirstBranch, 2);
    CHECK_PTR_EQ(j->firstBranch[0], x->n[1]);
    CHECK_PTR_EQ(j->firstBranch[1], x->n[2]);
    CHECK_EQ(j->numSecondBranch, 2);
    CHECK_PTR_EQ(j->secondBranch[0], x->n[3]);
    CHECK_PTR_EQ(j->secondBranch[1], x->n[4]);
    CHECK_PTR_EQ(j->firstStream, x->b);
    CHECK_PTR_EQ(j->secondStream, x->c);
    CHECK_PTR_EQ(j->link.from, x->n[2]);
    CHECK_PTR_EQ(j->link.to, x->n[3]);
    CHECK(j->hasCause);
    CHECK_EQ(j->cause.captureId, x->id);
    CHECK_PTR_EQ(j->cause.event, ev);
    CHECK_PTR_EQ(j->cause.recordStream, x->b);
    CHECK_EQ(j->cause.recordCall, 6);
    CHECK_PTR_EQ(j->cause.waitStream, x->c);
    CHECK_EQ(j->cause.waitCall, 7);
    CHECK_EQ(r->numDetachedNodes, 0);
}

GR_TEST(analyze_single_stream_capture_is_a_chain_without_findings)
{
    grKernel_t k;
    grStream_t s;
    grGraph_t g;
    grGraphAnalysis r;
    const grDim3 one = GR_DIM3(1, 1, 1);
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "chain_step", 0, NULL));
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    for (int i = 0; i < 5; i++)
        CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numCriticalPath, 5);
    check_captured_shape(&r, 5, 5, 1, 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

/* A capture of this shape, analysed: serialised by the event C waited on
 * (B's end, or the fork's event reused). */
static void analyze_serialised_capture(fj_shape shape)
{
    fj_capture x;
    grGraphAnalysis r;
    fj_capture_make(&x, shape);
    CHECK_OK(grGraphAnalyze(x.graph, &r, 0));
    check_serialised(&x, &r, shape == FJ_WAIT_ON_B_END ? x.b_done : x.fork);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    fj_capture_free(&x);
}

GR_TEST(analyze_capture_waiting_on_the_other_branch_end_is_serialised)
{
    analyze_serialised_capture(FJ_WAIT_ON_B_END);
}

GR_TEST(analyze_capture_reusing_the_fork_event_is_serialised)
{
    analyze_serialised_capture(FJ_REUSED_EVENT);
}

/* A clone keeps no provenance (nor would a graph read back from a file):
 * it is analysed as built by hand, and still tells the two apart. */
GR_TEST(analyze_clone_of_a_capture_keeps_shape_but_not_provenance)
{
    for (int serialised = 0; serialised < 2; serialised++) {
        fj_capture x;
        grGraph_t clone;
        grGraphNode_t n[6];
        size_t count = 6;
        grGraphAnalysis r;
        fj_capture_make(&x, serialised ? FJ_WAIT_ON_B_END : FJ_CORRECT);
        CHECK_OK(grGraphClone(&clone, x.graph));
        CHECK_OK(grGraphGetNodes(clone, n, &count));
        CHECK_OK(grGraphAnalyze(clone, &r, 0));
        CHECK(!r.fromCapture);
        CHECK_EQ(r.numRedundantStreamEdges, 0);
        /* fork -> join is now a finding (nothing says it follows stream
         * A's order), but fork reaches every other dependency of the
         * join: no serialised join of its own. */
        CHECK_EQ(r.numRedundantEdges, serialised ? 2 : 1);
        CHECK_PTR_EQ(r.redundantEdges[0].from, n[0]);
        CHECK_PTR_EQ(r.redundantEdges[0].to, n[5]);
        CHECK_EQ(r.numSerialisedJoins, serialised ? 1 : 0);
        if (serialised) {
            const grGraphSerialisedJoin *j = &r.serialisedJoins[0];
            CHECK_PTR_EQ(j->join, n[5]);
            CHECK_EQ(j->numFirstBranch, 2);
            CHECK_PTR_EQ(j->firstBranch[0], n[1]);
            CHECK_PTR_EQ(j->firstBranch[1], n[2]);
            CHECK_EQ(j->numSecondBranch, 2);
            CHECK_PTR_EQ(j->secondBranch[0], n[3]);
            CHECK_PTR_EQ(j->secondBranch[1], n[4]);
            CHECK_PTR_EQ(j->link.from, n[2]);
            CHECK_PTR_EQ(j->link.to, n[3]);
            CHECK(!j->hasCause);
        }
        CHECK_OK(grGraphAnalysisDestroy(&r));
        CHECK_OK(grGraphDestroy(clone));
        fj_capture_free(&x);
    }
}

/* ------------------------------------------------------------ printing */

/* The text grGraphAnalysisPrint writes for r with flags, in buf. */
static void print_to(const grGraphAnalysis *r, unsigned flags, char *buf, size_t cap)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_OK(grGraphAnalysisPrint(r, f, flags));
    rewind(f);
    size_t len = fread(buf, 1, cap - 1, f);
    buf[len] = '\0';
    fclose(f);
}

GR_TEST(analysis_print_names_the_serialised_branches_and_the_event)
{
    fj_capture x;
    grGraphAnalysis r;
    static char text[16384];
    char ev[64];
    fj_capture_make(&x, FJ_WAIT_ON_B_END);
    CHECK_OK(grGraphAnalyze(x.graph, &r, 0));
    print_to(&r, 0, text, sizeof text);
    CHECK(strstr(text, "6 nodes, 7 edges") != NULL);
    CHECK(strstr(text, "serialised fork-join: kernel node #5 'step'") != NULL);
    CHECK(strstr(text, "chained by the edge kernel node #2 'step' -> kernel node #3 'step'") != NULL);
    snprintf(ev, sizeof ev, "event %p", (void *)x.b_done);
    CHECK(strstr(text, ev) != NULL);
    print_to(&r, grGraphAnalysisPrintFindingsOnly, text, sizeof text);
    CHECK(strncmp(text, "graphrt: analysis: ", 19) == 0);
    CHECK(strstr(text, "levels:") == NULL);
    CHECK(strstr(text, ev) != NULL);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    fj_capture_free(&x);
}

GR_TEST(analysis_print_of_findings_only_is_silent_without_findings)
{
    fj_capture x;
    grGraphAnalysis r;
    char text[4096];
    fj_capture_make(&x, FJ_CORRECT);
    CHECK_OK(grGraphAnalyze(x.graph, &r, 0));
    print_to(&r, grGraphAnalysisPrintFindingsOnly, text, sizeof text);
    CHECK_EQ(strlen(text), 0);
    print_to(&r, 0, text, sizeof text);
    CHECK(strstr(text, "serialised fork-joins: 0") != NULL);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    fj_capture_free(&x);
}

/* --------------------------------------------------------- large graphs */

/* Nodes 0..n-1 in a chain with skip edges i -> i+2 and 0 -> n-1: every
 * skip edge is redundant, no chain edge is; the reachability sets of
 * 30,000 nodes take more than one block. */
GR_TEST(analyze_finds_every_redundant_edge_of_a_long_chain)
{
    enum {
        N = 30000
    };
    grGraph_t g;
    grGraphAnalysis r;
    grGraphNode_t *n = malloc(N * sizeof *n);
    CHECK(n != NULL);
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < N; i++) {
        grGraphNode_t deps[3];
        size_t nd = 0;
        if (i >= 1)
            deps[nd++] = n[i - 1];
        if (i >= 2)
            deps[nd++] = n[i - 2];
        if (i == N - 1)
            deps[nd++] = n[0];
        CHECK_OK(grGraphAddEmptyNode(&n[i], g, deps, nd));
    }
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numEdges, 2 * (N - 1) - 1 + 1);
    CHECK_EQ(r.numRedundantEdges, (N - 2) + 1);
    CHECK_EQ(r.depth, N);
    CHECK_EQ(r.maxWidth, 1);
    /* Creation order of the sources, then edge order. */
    CHECK_PTR_EQ(r.redundantEdges[0].from, n[0]);
    CHECK_PTR_EQ(r.redundantEdges[0].to, n[2]);
    CHECK_PTR_EQ(r.redundantEdges[1].from, n[0]);
    CHECK_PTR_EQ(r.redundantEdges[1].to, n[N - 1]);
    CHECK_PTR_EQ(r.redundantEdges[2].from, n[1]);
    CHECK_PTR_EQ(r.redundantEdges[2].to, n[3]);
    /* Only the last node joins a dependency (n[N-3]) that reaches some
     * but not all of its others (n[N-2], not n[0]). */
    CHECK_EQ(r.numSerialisedJoins, 1);
    CHECK_PTR_EQ(r.serialisedJoins[0].join, n[N - 1]);
    CHECK_PTR_EQ(r.serialisedJoins[0].link.from, n[N - 3]);
    CHECK_PTR_EQ(r.serialisedJoins[0].link.to, n[N - 2]);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
    free(n);
}

/* True if 'to' is reachable from 'from' without the direct edge. */
static int reach_other(int nn, const unsigned char *adj, int from, int to)
{
    int stack[512], top = 0;
    unsigned char seen[512] = {0};
    for (int v = 0; v < nn; v++)
        if (adj[from * nn + v] && v != to && !seen[v]) {
            seen[v] = 1;
            stack[top++] = v;
        }
    while (top) {
        int u = stack[--top];
        if (u == to)
            return 1;
        for (int v = 0; v < nn; v++)
            if (adj[u * nn + v] && !seen[v]) {
                seen[v] = 1;
                stack[top++] = v;
            }
    }
    return 0;
}

GR_TEST(analyze_redundant_edges_match_a_search_on_random_graphs)
{
    enum {
        NN = 300
    };
    unsigned seed = 12345;
    for (int round = 0; round < 4; round++) {
        static unsigned char adj[NN * NN];
        grGraphNode_t n[NN];
        grGraph_t g;
        grGraphAnalysis r;
        memset(adj, 0, sizeof adj);
        CHECK_OK(grGraphCreate(&g, 0));
        for (int i = 0; i < NN; i++) {
            grGraphNode_t deps[8];
            size_t nd = 0;
            for (int k = 0; k < 8 && i > 0; k++) {
                seed = seed * 1103515245u + 12345u;
                int d = i - 1 - (int)((seed >> 8) % (unsigned)(i < 20 ? i : 20));
                if (adj[d * NN + i])
                    continue;
                adj[d * NN + i] = 1;
                deps[nd++] = n[d];
                if ((seed >> 20) % 3 == 0)
                    break;
            }
            CHECK_OK(grGraphAddEmptyNode(&n[i], g, deps, nd));
        }
        CHECK_OK(grGraphAnalyze(g, &r, 0));
        size_t want = 0, k = 0;
        for (int u = 0; u < NN; u++)
            for (int v = 0; v < NN; v++)
                if (adj[u * NN + v] && reach_other(NN, adj, u, v)) {
                    want++;
                    CHECK(k < r.numRedundantEdges);
                    /* Sources in creation order; within a source, the
                     * edges' order (here, increasing targets). */
                    CHECK_PTR_EQ(r.redundantEdges[k].from, n[u]);
                    CHECK_PTR_EQ(r.redundantEdges[k].to, n[v]);
                    k++;
                }
        CHECK_EQ(r.numRedundantEdges, want);
        CHECK(want > 0);
        CHECK_OK(grGraphAnalysisDestroy(&r));
        CHECK_OK(grGraphDestroy(g));
    }
}

/* ------------------------------------------------------------ bad input */

GR_TEST(analyze_refuses_bad_input_and_leaves_the_report)
{
    grGraph_t g, dead;
    grGraphNode_t n[4];
    grGraphAnalysis r;
    tl_diamond(&g, n, NULL);
    CHECK_OK(grGraphCreate(&dead, 0));
    CHECK_OK(grGraphDestroy(dead));
    memset(&r, 0x5a, sizeof r);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAnalyze, NULL, &r, 0);
    CHECK_GR(grErrorInvalidValue, grGraphAnalyze(dead, &r, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAnalyze(g, NULL, 0));
    CHECK_DETAIL_HAS("report");
    CHECK_GR(grErrorInvalidValue, grGraphAnalyze(g, &r, 1));
    CHECK_DETAIL_HAS("flags");
    const double costs[4] = {1, 1, 1, 1}, negative[4] = {1, -1, 1, 1};
    const double nan_costs[4] = {1, 1, NAN, 1};
    CHECK_GR(grErrorInvalidValue, grGraphAnalyzeWithCosts(g, &r, 0, NULL, 4));
    CHECK_GR(grErrorInvalidValue, grGraphAnalyzeWithCosts(g, &r, 0, costs, 3));
    CHECK_DETAIL_HAS("4 nodes");
    CHECK_GR(grErrorInvalidValue, grGraphAnalyzeWithCosts(g, &r, 0, negative, 4));
    CHECK_DETAIL_HAS("nodeCosts[1]");
    CHECK_GR(grErrorInvalidValue, grGraphAnalyzeWithCosts(g, &r, 0, nan_costs, 4));
    CHECK_DETAIL_HAS("nodeCosts[2]");
    CHECK_GR(grErrorInvalidValue, grGraphAnalyzeWithCosts(g, &r, 2, costs, 4));
    /* A refused call changes nothing. */
    unsigned char pattern[sizeof r];
    memset(pattern, 0x5a, sizeof pattern);
    CHECK(memcmp(&r, pattern, sizeof r) == 0);
    CHECK_GR(grErrorInvalidValue, grGraphAnalysisDestroy(NULL));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAnalysisPrint(NULL, stdout, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAnalysisPrint(&r, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAnalysisPrint(&r, stdout, 2));
    CHECK_DETAIL_HAS("grGraphAnalysisPrintFindingsOnly");
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(analysis_destroy_frees_and_zeroes_the_report)
{
    fj_capture x;
    grGraphAnalysis r, zero;
    memset(&zero, 0, sizeof zero);
    fj_capture_make(&x, FJ_REUSED_EVENT);
    CHECK_OK(grGraphAnalyze(x.graph, &r, 0));
    CHECK(r.serialisedJoins != NULL && r.criticalPath != NULL && r.levelWidths != NULL);
    CHECK_OK(grGraphAnalysisDestroy(&r));
    CHECK(memcmp(&r, &zero, sizeof r) == 0);
    /* A zeroed report may be destroyed again. */
    CHECK_OK(grGraphAnalysisDestroy(&r));
    fj_capture_free(&x);
}

/* ------------------------------------------------------ GRAPHRT_ANALYZE */

/* What instantiating x's graph writes to stderr, in buf. */
static void instantiate_capturing_stderr(const fj_capture *x, char *buf, size_t cap)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    fflush(stderr);
    int saved = dup(2);
    CHECK(saved >= 0);
    CHECK(dup2(fileno(f), 2) == 2);
    grGraphExec_t e;
    grError_t err = grGraphInstantiate(&e, x->graph, 0);
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    CHECK_OK(err);
    CHECK_OK(grGraphExecDestroy(e));
    rewind(f);
    size_t len = fread(buf, 1, cap - 1, f);
    buf[len] = '\0';
    fclose(f);
}

GR_TEST(graphrt_analyze_env_warns_at_instantiate_of_a_serialised_capture_only)
{
    fj_capture good, bad;
    static char text[16384];
    /* Read once per process: this test's process has not instantiated. */
    CHECK(setenv("GRAPHRT_ANALYZE", "1", 1) == 0);
    fj_capture_make(&good, FJ_CORRECT);
    fj_capture_make(&bad, FJ_WAIT_ON_B_END);
    instantiate_capturing_stderr(&good, text, sizeof text);
    CHECK_EQ(strlen(text), 0);
    instantiate_capturing_stderr(&bad, text, sizeof text);
    CHECK(strncmp(text, "graphrt: analysis: ", 19) == 0);
    CHECK(strstr(text, "serialised fork-join") != NULL);
    CHECK(strstr(text, "grStreamWaitEvent") != NULL);
    /* The warning leaves the instantiation's caller no error. */
    CHECK_EQ(grPeekAtLastError(), grSuccess);
    fj_capture_free(&good);
    fj_capture_free(&bad);
}

/* ------------------------------------------- capture into a given graph */

GR_TEST(analyze_capture_into_a_graph_ignores_what_a_failed_capture_took_back)
{
    const grDim3 one = GR_DIM3(1, 1, 1);
    grKernel_t k;
    grStream_t a, b, c;
    grEvent_t fork, b_done, c_done;
    grGraph_t g, out = NULL;
    grGraphNode_t h;
    grGraphAnalysis r;
    unsigned long long id;
    grStreamCaptureStatus st;
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "into_step", 0, NULL));
    CHECK_OK(grStreamCreate(&a));
    CHECK_OK(grStreamCreate(&b));
    CHECK_OK(grStreamCreate(&c));
    CHECK_OK(grEventCreate(&fork));
    CHECK_OK(grEventCreate(&b_done));
    CHECK_OK(grEventCreate(&c_done));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&h, g, NULL, 0));

    /* A fork whose capture is invalidated: its nodes and edges are taken
     * back, the notes of its wait name nodes no longer in the graph. */
    CHECK_OK(grStreamBeginCaptureToGraph(a, g, &h, NULL, 1, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, a));
    CHECK_OK(grEventRecord(fork, a));
    CHECK_OK(grStreamWaitEvent(b, fork, 0));
    CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, b));
    CHECK(grStreamSynchronize(a) != grSuccess); /* illegal while capturing: invalidates */
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(a, &out));
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numNodes, 1);
    CHECK(!r.fromCapture);
    no_findings(&r);
    CHECK_OK(grGraphAnalysisDestroy(&r));

    /* Then the serialised fork-join, captured after h. */
    CHECK_OK(grStreamBeginCaptureToGraph(a, g, &h, NULL, 1, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamGetCaptureInfo(a, &st, &id, NULL, NULL, NULL, NULL));
    CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, a));
    CHECK_OK(grEventRecord(fork, a));
    CHECK_OK(grStreamWaitEvent(b, fork, 0));
    CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, b));
    CHECK_OK(grEventRecord(b_done, b));
    CHECK_OK(grStreamWaitEvent(c, b_done, 0));
    CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, c));
    CHECK_OK(grEventRecord(c_done, c));
    CHECK_OK(grStreamWaitEvent(a, b_done, 0));
    CHECK_OK(grStreamWaitEvent(a, c_done, 0));
    CHECK_OK(grLaunchKernel(k, one, one, NULL, 0, a));
    CHECK_OK(grStreamEndCapture(a, &out));
    CHECK_PTR_EQ(out, g);
    CHECK_OK(grGraphAnalyze(g, &r, 0));
    CHECK_EQ(r.numNodes, 5);
    CHECK(r.fromCapture);
    CHECK_EQ(r.numSerialisedJoins, 1);
    CHECK(r.serialisedJoins[0].hasCause);
    CHECK_EQ(r.serialisedJoins[0].cause.captureId, id);
    CHECK_PTR_EQ(r.serialisedJoins[0].cause.event, b_done);
    CHECK_PTR_EQ(r.serialisedJoins[0].firstStream, b);
    CHECK_PTR_EQ(r.serialisedJoins[0].secondStream, c);
    CHECK_OK(grGraphAnalysisDestroy(&r));

    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grEventDestroy(b_done));
    CHECK_OK(grEventDestroy(c_done));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grStreamDestroy(c));
    CHECK_OK(grKernelDestroy(k));
}
