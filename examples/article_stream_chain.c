/*
 * article_stream_chain.c - three kernels in sequence on one stream, then
 * the same work as a graph of three nodes built by hand.
 *
 * On a stream, kernelA, kernelB and kernelC run in issue order. A graph
 * says the same thing with nodes and edges: A -> B -> C. The program runs
 * both, checks that each gives x[i] == 2*i + 1, and prints the graph's
 * nodes and edges as grGraphGetNodes and grGraphGetEdges report them.
 */
#include "graphrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        grError_t check_err_ = (call);                                                 \
        if (check_err_ != grSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", __FILE__, __LINE__, #call, \
                    grGetErrorName(check_err_), grGetLastErrorDetail());               \
            exit(2);                                                                   \
        }                                                                              \
    } while (0)

#define N (1 << 16)
#define BLOCK 256

/* The index of thread tx of this block, or 'continue' past the end. */
#define INDEX_OR_SKIP(i, n)                \
    const size_t i = GR_GLOBAL_X(ctx, tx); \
    if (i >= (size_t)(n))                  \
    continue

/* kernelA: x[i] = i */
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

/* kernelB: x[i] *= 2 */
static void kernel_b(const grKernelCtx *ctx, void **args)
{
    int *x = *(int **)args[0];
    const int n = *(int *)args[1];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        x[i] *= 2;
    }
}

/* kernelC: x[i] += 1 */
static void kernel_c(const grKernelCtx *ctx, void **args)
{
    int *x = *(int **)args[0];
    const int n = *(int *)args[1];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        x[i] += 1;
    }
}

static int check_result(const int *host, const char *what)
{
    for (int i = 0; i < N; ++i) {
        if (host[i] != 2 * i + 1) {
            printf("%s: x[%d] == %d, expected %d\n", what, i, host[i], 2 * i + 1);
            return 0;
        }
    }
    printf("%s: x[i] == 2*i + 1 for all %d elements\n", what, N);
    return 1;
}

static const char *const kernel_names[3] = {"kernelA", "kernelB", "kernelC"};

/* The name of one of our three nodes. */
static const char *node_name(const grGraphNode_t *ours, grGraphNode_t n)
{
    for (int i = 0; i < 3; ++i)
        if (ours[i] == n)
            return kernel_names[i];
    return "(unknown node)";
}

int main(void)
{
    const size_t sizes[] = {sizeof(int *), sizeof(int)};
    const grKernelFn fns[3] = {kernel_a, kernel_b, kernel_c};
    grKernel_t kernels[3];
    for (int i = 0; i < 3; ++i)
        CHECK(grKernelCreate(&kernels[i], fns[i], kernel_names[i], 2, sizes));

    int *d_x, *host;
    int n = N;
    CHECK(grMalloc((void **)&d_x, N * sizeof(int)));
    CHECK(grMallocHost((void **)&host, N * sizeof(int)));
    void *args[] = {&d_x, &n};
    const grDim3 grid = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = GR_DIM3(BLOCK, 1, 1);
    int ok = 1;

    /* 1. The stream: three launches in a row. */
    grStream_t stream;
    CHECK(grStreamCreate(&stream));
    for (int i = 0; i < 3; ++i)
        CHECK(grLaunchKernel(kernels[i], grid, block, args, 0, stream));
    CHECK(grMemcpyAsync(host, d_x, N * sizeof(int), grMemcpyDeviceToHost, stream));
    CHECK(grStreamSynchronize(stream));
    printf("stream: kernelA, kernelB, kernelC launched in sequence on one stream\n");
    ok &= check_result(host, "stream");

    /* 2. The graph: the same three kernels as nodes, each depending on the
     * one before. */
    grGraph_t graph;
    grGraphNode_t nodes[3];
    CHECK(grGraphCreate(&graph, 0));
    for (int i = 0; i < 3; ++i) {
        grKernelNodeParams kp;
        memset(&kp, 0, sizeof kp);
        kp.func = kernels[i];
        kp.gridDim = grid;
        kp.blockDim = block;
        kp.kernelParams = args;
        CHECK(grGraphAddKernelNode(&nodes[i], graph, i > 0 ? &nodes[i - 1] : NULL, i > 0 ? 1 : 0, &kp));
    }

    size_t num_nodes = 0, num_edges = 0;
    CHECK(grGraphGetNodes(graph, NULL, &num_nodes));
    CHECK(grGraphGetEdges(graph, NULL, NULL, NULL, &num_edges));
    printf("graph: %zu nodes, %zu edges\n", num_nodes, num_edges);
    grGraphNode_t listed[3], from[2], to[2];
    if (num_nodes != 3 || num_edges != 2) {
        printf("graph: expected 3 nodes and 2 edges\n");
        return 1;
    }
    CHECK(grGraphGetNodes(graph, listed, &num_nodes));
    for (size_t i = 0; i < num_nodes; ++i) {
        grGraphNodeType type;
        CHECK(grGraphNodeGetType(listed[i], &type));
        printf("  node %zu: %s (%s)\n", i, grGraphNodeTypeName(type), node_name(nodes, listed[i]));
    }
    CHECK(grGraphGetEdges(graph, from, to, NULL, &num_edges));
    for (size_t i = 0; i < num_edges; ++i)
        printf("  edge %zu: %s -> %s\n", i, node_name(nodes, from[i]), node_name(nodes, to[i]));

    grGraphExec_t exec;
    CHECK(grGraphInstantiate(&exec, graph, 0));
    CHECK(grMemset(d_x, 0, N * sizeof(int)));
    memset(host, 0, N * sizeof(int));
    CHECK(grGraphLaunch(exec, stream));
    CHECK(grMemcpyAsync(host, d_x, N * sizeof(int), grMemcpyDeviceToHost, stream));
    CHECK(grStreamSynchronize(stream));
    printf("graph: instantiated and launched once on the stream\n");
    ok &= check_result(host, "graph");

    CHECK(grGraphExecDestroy(exec));
    CHECK(grGraphDestroy(graph));
    CHECK(grStreamDestroy(stream));
    CHECK(grFree(d_x));
    CHECK(grFreeHost(host));
    for (int i = 0; i < 3; ++i)
        CHECK(grKernelDestroy(kernels[i]));
    printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
