/*
 * article_diamond.c - a graph built by hand: node A, then B and C both
 * depending on A, then D depending on B and C; instantiated once and
 * launched 1000 times in a loop.
 *
 *          A         x[i]  = i
 *         / \
 *        B   C       y[i]  = 2 * x[i]        z[i] = x[i] + 3
 *         \ /
 *          D         acc[i] += y[i] + z[i]
 *
 * B and C may run at the same time; D runs after both. D accumulates, so
 * after 1000 launches acc[i] == 1000 * (3*i + 3), which checks that every
 * launch ran every node once, in dependency order.
 */
#define _POSIX_C_SOURCE 200809L

#include "graphrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
#define LAUNCHES 1000

/* The index of thread tx of this block, or 'continue' past the end. */
#define INDEX_OR_SKIP(i, n)                \
    const size_t i = GR_GLOBAL_X(ctx, tx); \
    if (i >= (size_t)(n))                  \
    continue

/* A(x, n): x[i] = i */
static void kernel_a(const grKernelCtx *ctx, void **args)
{
    int *x = *(int **)args[0];
    const int n = *(int *)args[1];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        x[i] = (int)i;
    }
}

/* B(x, y, n): y[i] = 2 * x[i] */
static void kernel_b(const grKernelCtx *ctx, void **args)
{
    const int *x = *(const int **)args[0];
    int *y = *(int **)args[1];
    const int n = *(int *)args[2];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        y[i] = 2 * x[i];
    }
}

/* C(x, z, n): z[i] = x[i] + 3 */
static void kernel_c(const grKernelCtx *ctx, void **args)
{
    const int *x = *(const int **)args[0];
    int *z = *(int **)args[1];
    const int n = *(int *)args[2];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        z[i] = x[i] + 3;
    }
}

/* D(y, z, acc, n): acc[i] += y[i] + z[i] */
static void kernel_d(const grKernelCtx *ctx, void **args)
{
    const int *y = *(const int **)args[0];
    const int *z = *(const int **)args[1];
    int *acc = *(int **)args[2];
    const int n = *(int *)args[3];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        acc[i] += y[i] + z[i];
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static grKernelNodeParams kernel_node(grKernel_t k, void **args)
{
    grKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = k;
    kp.gridDim = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1);
    kp.blockDim = GR_DIM3(BLOCK, 1, 1);
    kp.kernelParams = args;
    return kp;
}

int main(void)
{
    const size_t P = sizeof(int *), I = sizeof(int);
    const size_t sizes_a[] = {P, I}, sizes_bc[] = {P, P, I}, sizes_d[] = {P, P, P, I};
    grKernel_t ka, kb, kc, kd;
    CHECK(grKernelCreate(&ka, kernel_a, "A", 2, sizes_a));
    CHECK(grKernelCreate(&kb, kernel_b, "B", 3, sizes_bc));
    CHECK(grKernelCreate(&kc, kernel_c, "C", 3, sizes_bc));
    CHECK(grKernelCreate(&kd, kernel_d, "D", 4, sizes_d));

    int *x, *y, *z, *acc, *host;
    int n = N;
    CHECK(grMalloc((void **)&x, N * sizeof(int)));
    CHECK(grMalloc((void **)&y, N * sizeof(int)));
    CHECK(grMalloc((void **)&z, N * sizeof(int)));
    CHECK(grMalloc((void **)&acc, N * sizeof(int)));
    CHECK(grMallocHost((void **)&host, N * sizeof(int)));
    CHECK(grMemset(acc, 0, N * sizeof(int)));

    /* Build the diamond by hand. Argument values are copied when a node is
     * added, so one set of locals serves every node. */
    grGraph_t graph;
    grGraphNode_t a, b, c, d;
    CHECK(grGraphCreate(&graph, 0));
    void *args_a[] = {&x, &n};
    void *args_b[] = {&x, &y, &n};
    void *args_c[] = {&x, &z, &n};
    void *args_d[] = {&y, &z, &acc, &n};
    grKernelNodeParams kp = kernel_node(ka, args_a);
    CHECK(grGraphAddKernelNode(&a, graph, NULL, 0, &kp));
    kp = kernel_node(kb, args_b);
    CHECK(grGraphAddKernelNode(&b, graph, &a, 1, &kp));
    kp = kernel_node(kc, args_c);
    CHECK(grGraphAddKernelNode(&c, graph, &a, 1, &kp));
    kp = kernel_node(kd, args_d);
    const grGraphNode_t bc[] = {b, c};
    CHECK(grGraphAddKernelNode(&d, graph, bc, 2, &kp));

    size_t num_nodes = 0, num_edges = 0, num_roots = 0, num_deps_d = 0;
    CHECK(grGraphGetNodes(graph, NULL, &num_nodes));
    CHECK(grGraphGetEdges(graph, NULL, NULL, NULL, &num_edges));
    CHECK(grGraphGetRootNodes(graph, NULL, &num_roots));
    CHECK(grGraphNodeGetDependencies(d, NULL, NULL, &num_deps_d));
    printf("built A -> {B, C} -> D: %zu nodes, %zu edges, %zu root, D has %zu dependencies\n", num_nodes,
           num_edges, num_roots, num_deps_d);
    int ok = num_nodes == 4 && num_edges == 4 && num_roots == 1 && num_deps_d == 2;

    const double t0 = now_us();
    grGraphExec_t exec;
    CHECK(grGraphInstantiate(&exec, graph, 0));
    const double t1 = now_us();
    printf("instantiated in %.1f us\n", t1 - t0);

    grStream_t stream;
    CHECK(grStreamCreate(&stream));
    const double t2 = now_us();
    for (int i = 0; i < LAUNCHES; ++i)
        CHECK(grGraphLaunch(exec, stream));
    const double t3 = now_us();
    CHECK(grStreamSynchronize(stream));
    const double t4 = now_us();
    printf("launched %d times: %.2f us per launch call, %.2f us per graph run (%d elements, %d blocks "
           "per node)\n",
           LAUNCHES, (t3 - t2) / LAUNCHES, (t4 - t2) / LAUNCHES, N, (N + BLOCK - 1) / BLOCK);

    CHECK(grMemcpy(host, acc, N * sizeof(int), grMemcpyDeviceToHost));
    for (int i = 0; i < N && ok; ++i) {
        const int want = LAUNCHES * (3 * i + 3);
        if (host[i] != want) {
            printf("acc[%d] == %d, expected %d\n", i, host[i], want);
            ok = 0;
        }
    }
    if (ok)
        printf("acc[i] == %d * (3*i + 3) for all %d elements: every launch ran A, B, C, D in order\n",
               LAUNCHES, N);

    CHECK(grGraphExecDestroy(exec));
    CHECK(grGraphDestroy(graph));
    CHECK(grStreamDestroy(stream));
    CHECK(grFree(x));
    CHECK(grFree(y));
    CHECK(grFree(z));
    CHECK(grFree(acc));
    CHECK(grFreeHost(host));
    CHECK(grKernelDestroy(ka));
    CHECK(grKernelDestroy(kb));
    CHECK(grKernelDestroy(kc));
    CHECK(grKernelDestroy(kd));
    printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
