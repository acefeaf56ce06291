/*
 * stream_capture.c - the article's stream-capture program: a sequence of
 * kernel launches on a stream is recorded into a graph instead of run,
 * the graph is instantiated once and then replayed in a loop.
 *
 *     grStreamBeginCapture(stream)
 *         kernelA<<<...,stream>>>   x[i]    = i
 *         kernelB<<<...,stream>>>   x[i]   *= 2
 *         kernelC<<<...,stream>>>   acc[i] += x[i]
 *     grStreamEndCapture(stream, &graph)      -> A -> B -> C
 *     grGraphInstantiate(&exec, graph, 0)
 *     for 1000 steps: grGraphLaunch(exec, stream)
 *
 * Nothing runs while the stream captures: the launches become nodes, each
 * depending on the one before it on the stream. After the loop,
 * acc[i] == 1000 * 2i checks that every replay ran A, B and C in order.
 */
#define _POSIX_C_SOURCE 200809L

#include "graphrt.h"

#include <stdio.h>
#include <stdlib.h>
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

#define N (1 << 14)
#define BLOCK 256
#define STEPS 1000

/* The index of thread tx of this block, or 'continue' past the end. */
#define INDEX_OR_SKIP(i, n)                \
    const size_t i = GR_GLOBAL_X(ctx, tx); \
    if (i >= (size_t)(n))                  \
    continue

/* kernelA(x, n): x[i] = i */
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

/* kernelB(x, n): x[i] *= 2 */
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

/* kernelC(x, acc, n): acc[i] += x[i] */
static void kernel_c(const grKernelCtx *ctx, void **args)
{
    const int *x = *(const int **)args[0];
    int *acc = *(int **)args[1];
    const int n = *(int *)args[2];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        INDEX_OR_SKIP(i, n);
        acc[i] += x[i];
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

int main(void)
{
    const size_t P = sizeof(int *), I = sizeof(int);
    const size_t sizes_ab[] = {P, I}, sizes_c[] = {P, P, I};
    grKernel_t ka, kb, kc;
    CHECK(grKernelCreate(&ka, kernel_a, "kernelA", 2, sizes_ab));
    CHECK(grKernelCreate(&kb, kernel_b, "kernelB", 2, sizes_ab));
    CHECK(grKernelCreate(&kc, kernel_c, "kernelC", 3, sizes_c));

    int *x, *acc, *host;
    int n = N;
    CHECK(grMalloc((void **)&x, N * sizeof(int)));
    CHECK(grMalloc((void **)&acc, N * sizeof(int)));
    CHECK(grMallocHost((void **)&host, N * sizeof(int)));
    CHECK(grMemset(acc, 0, N * sizeof(int)));

    grStream_t stream;
    CHECK(grStreamCreate(&stream));
    const grDim3 grid = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = GR_DIM3(BLOCK, 1, 1);
    void *args_ab[] = {&x, &n};
    void *args_c[] = {&x, &acc, &n};

    /* Record the three launches; nothing runs yet. */
    grGraph_t graph;
    CHECK(grStreamBeginCapture(stream, grStreamCaptureModeGlobal));
    CHECK(grLaunchKernel(ka, grid, block, args_ab, 0, stream));
    CHECK(grLaunchKernel(kb, grid, block, args_ab, 0, stream));
    CHECK(grLaunchKernel(kc, grid, block, args_c, 0, stream));
    CHECK(grStreamEndCapture(stream, &graph));

    size_t num_nodes = 0, num_edges = 0;
    CHECK(grGraphGetNodes(graph, NULL, &num_nodes));
    CHECK(grGraphGetEdges(graph, NULL, NULL, NULL, &num_edges));
    printf("captured kernelA, kernelB, kernelC: a graph of %zu nodes and %zu edges\n", num_nodes, num_edges);
    int ok = num_nodes == 3 && num_edges == 2;

    grGraphExec_t exec;
    CHECK(grGraphInstantiate(&exec, graph, 0));
    CHECK(grGraphDestroy(graph)); /* the executable owns what it needs */

    const double t0 = now_us();
    for (int step = 0; step < STEPS; ++step)
        CHECK(grGraphLaunch(exec, stream));
    CHECK(grStreamSynchronize(stream));
    const double t1 = now_us();
    printf("replayed %d times: %.2f us per replay (%d elements, %d blocks per kernel)\n", STEPS,
           (t1 - t0) / STEPS, N, (N + BLOCK - 1) / BLOCK);

    CHECK(grMemcpy(host, acc, N * sizeof(int), grMemcpyDeviceToHost));
    for (int i = 0; i < N && ok; ++i) {
        if (host[i] != STEPS * 2 * i) {
            printf("acc[%d] == %d, expected %d\n", i, host[i], STEPS * 2 * i);
            ok = 0;
        }
    }
    if (ok)
        printf("acc[i] == %d * 2i for all %d elements: every replay ran A, B, C in order\n", STEPS, N);

    CHECK(grGraphExecDestroy(exec));
    CHECK(grStreamDestroy(stream));
    CHECK(grFree(x));
    CHECK(grFree(acc));
    CHECK(grFreeHost(host));
    CHECK(grKernelDestroy(ka));
    CHECK(grKernelDestroy(kb));
    CHECK(grKernelDestroy(kc));
    printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
