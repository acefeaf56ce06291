/*
 * fork_join.c - two captures of the same fork-join, one correct and one
 * whose branches an event silently chained, told apart by grGraphAnalyze.
 *
 * Stream A runs 'fork', then forks onto streams B and C through the event
 * 'forked' recorded on A; B runs b1, b2 and C runs c1, c2; A waits on the
 * events 'b_done' and 'c_done' that B and C record and runs 'join':
 *
 *            fork                      fork
 *           /    \                      |
 *         b1      c1                    b1
 *          |      |                     b2
 *         b2      c2                    c1
 *           \    /                      c2
 *            join                      join
 *
 *     correct: C waits on 'forked'   serialised: C waits on 'b_done'
 *
 * Both graphs are legal and compute the same result; the serialised one
 * cannot run its branches side by side. Counting nodes and edges shows
 * nothing wrong (6 and 7 in both), the analysis does: its critical path
 * is six nodes instead of four, and it names the join, both branches, the
 * edge b2 -> c1 and the event wait that made it. Each graph is then
 * launched and its result checked.
 */
#include "graphrt.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        grError_t check_err_ = (call);                                                 \
        if (check_err_ != grSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", __FILE__, __LINE__, #call, \
                    grGetErrorName(check_err_), grGetLastErrorDetail());               \
            exit(2);                                                                   \
        }                                                                              \
    } while (0)

#define N 4096
#define BLOCK 256
#define LAUNCHES 100

/* The index of thread tx of this block, or 'continue' past the end. */
#define INDEX_OR_SKIP(i)                   \
    const size_t i = GR_GLOBAL_X(ctx, tx); \
    if (i >= (size_t)N)                    \
    continue

/* Every kernel takes (x, y, z, acc). */
#define ARGS                     \
    int *x = *(int **)args[0];   \
    int *y = *(int **)args[1];   \
    int *z = *(int **)args[2];   \
    int *acc = *(int **)args[3]; \
    (void)x, (void)y, (void)z, (void)acc

static void k_fork(const grKernelCtx *ctx, void **args)
{
    ARGS;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i);
        x[i] = (int)i;
    }
}

static void k_b1(const grKernelCtx *ctx, void **args)
{
    ARGS;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i);
        y[i] = 2 * x[i];
    }
}

static void k_b2(const grKernelCtx *ctx, void **args)
{
    ARGS;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i);
        y[i] += 1;
    }
}

static void k_c1(const grKernelCtx *ctx, void **args)
{
    ARGS;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i);
        z[i] = x[i] + 3;
    }
}

static void k_c2(const grKernelCtx *ctx, void **args)
{
    ARGS;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i);
        z[i] *= 2;
    }
}

/* acc[i] += y[i] + z[i], that is (2i + 1) + 2(i + 3) = 4i + 7 per launch. */
static void k_join(const grKernelCtx *ctx, void **args)
{
    ARGS;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i);
        acc[i] += y[i] + z[i];
    }
}

enum {
    FORK,
    B1,
    B2,
    C1,
    C2,
    JOIN,
    NKERNELS
};

typedef struct program {
    grKernel_t k[NKERNELS];
    grStream_t a, b, c;
    grEvent_t forked, b_done, c_done;
    void *args[4];
    int *x, *y, *z, *acc;
} program;

static void launch(program *p, int which, grStream_t s)
{
    CHECK(grLaunchKernel(p->k[which], GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), GR_DIM3(BLOCK, 1, 1), p->args,
                         0, s));
}

/* Captures the fork-join; 'serialised' makes C wait on the event B
 * records after its work instead of the fork event. */
static grGraph_t capture(program *p, int serialised)
{
    grGraph_t graph;
    CHECK(grStreamBeginCapture(p->a, grStreamCaptureModeGlobal));
    launch(p, FORK, p->a);
    CHECK(grEventRecord(p->forked, p->a));
    CHECK(grStreamWaitEvent(p->b, p->forked, 0));
    launch(p, B1, p->b);
    launch(p, B2, p->b);
    CHECK(grEventRecord(p->b_done, p->b));
    CHECK(grStreamWaitEvent(p->c, serialised ? p->b_done : p->forked, 0));
    launch(p, C1, p->c);
    launch(p, C2, p->c);
    CHECK(grEventRecord(p->c_done, p->c));
    CHECK(grStreamWaitEvent(p->a, p->b_done, 0));
    CHECK(grStreamWaitEvent(p->a, p->c_done, 0));
    launch(p, JOIN, p->a);
    CHECK(grStreamEndCapture(p->a, &graph));
    return graph;
}

/* Prints the graph's counts and analysis; returns its serialised joins. */
static size_t show(const char *title, grGraph_t graph)
{
    size_t num_nodes = 0, num_edges = 0;
    CHECK(grGraphGetNodes(graph, NULL, &num_nodes));
    CHECK(grGraphGetEdges(graph, NULL, NULL, NULL, &num_edges));
    printf("== %s: %zu nodes, %zu edges\n", title, num_nodes, num_edges);
    grGraphAnalysis report;
    CHECK(grGraphAnalyze(graph, &report, 0));
    CHECK(grGraphAnalysisPrint(&report, stdout, 0));
    size_t serialised = report.numSerialisedJoins;
    CHECK(grGraphAnalysisDestroy(&report));
    printf("\n");
    return serialised;
}

/* Launches the graph LAUNCHES times and checks acc. */
static int run(program *p, grGraph_t graph, const char *title)
{
    static int host[N];
    grGraphExec_t exec;
    CHECK(grMemset(p->acc, 0, N * sizeof(int)));
    CHECK(grGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < LAUNCHES; ++i)
        CHECK(grGraphLaunch(exec, p->a));
    CHECK(grStreamSynchronize(p->a));
    CHECK(grGraphExecDestroy(exec));
    CHECK(grMemcpy(host, p->acc, sizeof host, grMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) {
        if (host[i] != LAUNCHES * (4 * i + 7)) {
            printf("%s: acc[%d] == %d, expected %d\n", title, i, host[i], LAUNCHES * (4 * i + 7));
            return 0;
        }
    }
    printf("%s: acc[i] == %d * (4i + 7) for all %d elements\n", title, LAUNCHES, N);
    return 1;
}

int main(void)
{
    static const grKernelFn fns[NKERNELS] = {k_fork, k_b1, k_b2, k_c1, k_c2, k_join};
    static const char *const names[NKERNELS] = {"fork", "b1", "b2", "c1", "c2", "join"};
    const size_t sizes[4] = {sizeof(int *), sizeof(int *), sizeof(int *), sizeof(int *)};
    program p;
    for (int i = 0; i < NKERNELS; ++i)
        CHECK(grKernelCreate(&p.k[i], fns[i], names[i], 4, sizes));
    CHECK(grStreamCreate(&p.a));
    CHECK(grStreamCreate(&p.b));
    CHECK(grStreamCreate(&p.c));
    CHECK(grEventCreate(&p.forked));
    CHECK(grEventCreate(&p.b_done));
    CHECK(grEventCreate(&p.c_done));
    CHECK(grMalloc((void **)&p.x, N * sizeof(int)));
    CHECK(grMalloc((void **)&p.y, N * sizeof(int)));
    CHECK(grMalloc((void **)&p.z, N * sizeof(int)));
    CHECK(grMalloc((void **)&p.acc, N * sizeof(int)));
    p.args[0] = &p.x;
    p.args[1] = &p.y;
    p.args[2] = &p.z;
    p.args[3] = &p.acc;
    printf("streams: A %p, B %p, C %p; events: forked %p, b_done %p, c_done %p\n\n", (void *)p.a, (void *)p.b,
           (void *)p.c, (void *)p.forked, (void *)p.b_done, (void *)p.c_done);

    grGraph_t correct = capture(&p, 0), serialised = capture(&p, 1);
    size_t found_correct = show("correct fork-join (C waits on 'forked')", correct);
    size_t found_serialised = show("serialised fork-join (C waits on 'b_done')", serialised);
    printf("the correct capture has %zu serialised fork-joins, the other %zu: %s\n", found_correct,
           found_serialised,
           found_correct == 0 && found_serialised == 1 ? "the second one is serialised" : "UNEXPECTED");
    int ok = found_correct == 0 && found_serialised == 1;
    ok &= run(&p, correct, "correct");
    ok &= run(&p, serialised, "serialised");

    CHECK(grGraphDestroy(correct));
    CHECK(grGraphDestroy(serialised));
    CHECK(grFree(p.x));
    CHECK(grFree(p.y));
    CHECK(grFree(p.z));
    CHECK(grFree(p.acc));
    CHECK(grEventDestroy(p.forked));
    CHECK(grEventDestroy(p.b_done));
    CHECK(grEventDestroy(p.c_done));
    CHECK(grStreamDestroy(p.a));
    CHECK(grStreamDestroy(p.b));
    CHECK(grStreamDestroy(p.c));
    for (int i = 0; i < NKERNELS; ++i)
        CHECK(grKernelDestroy(p.k[i]));
    printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
