/*
 * span.c - one graph over the CPU and a GPU (docs/devices.md, "Graphs that
 * span devices"): a CPU kernel fills a buffer, a GPU kernel scales it, a
 * host node sums it on the CPU; replayed with a new fill value each time.
 * A kernel node names the device current when it is added, so the graph
 * spans the two devices and instantiate gives each its part. Without a
 * GPU every node names the CPU, and the same graph runs there.
 *
 *   ./build/examples/span
 */
#include "graphrt.h"
#include "graphrt_kernel.h"

#include <stdio.h>

GR_KERNEL_DECLARE(span_fill);
GR_KERNEL_DECLARE(span_scale);

#define TRY(call)                                                                                        \
    do {                                                                                                 \
        grError_t e_ = (call);                                                                           \
        if (e_ != grSuccess) {                                                                           \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, grGetErrorName(e_), grGetLastErrorDetail()); \
            return 1;                                                                                    \
        }                                                                                                \
    } while (0)

typedef struct sum {
    const float *x;
    unsigned n;
    double total;
} sum;

/* A host node: runs on the CPU's workers, after the GPU's kernel. */
static void add_up(void *p)
{
    sum *s = p;
    double t = 0;
    for (unsigned i = 0; i < s->n; i++)
        t += s->x[i];
    s->total = t;
}

int main(void)
{
    enum {
        N = 1 << 16
    };
    int count = 0, wrong = 0;
    unsigned n = N;
    float v = 1.0f, a = 3.0f, *x = NULL;
    grKernel_t fill, scale;
    grGraph_t g;
    grGraphNode_t f, sc, add;
    grGraphExec_t e;
    grStream_t s;

    TRY(grGetDeviceCount(&count));
    int gpu = count > 1 ? 1 : 0; /* the first GPU, else the CPU */
    TRY(GR_KERNEL_CREATE(&fill, span_fill));
    TRY(GR_KERNEL_CREATE(&scale, span_scale));
    /* Pinned host memory: both devices reach it. */
    TRY(grMallocHost((void **)&x, N * sizeof(float)));

    TRY(grGraphCreate(&g, 0));
    void *fa[] = {&x, &v, &n}, *sa[] = {&x, &a, &n};
    grKernelNodeParams fp = {.func = fill,
                             .gridDim = GR_DIM3((N + 255) / 256, 1, 1),
                             .blockDim = GR_DIM3(256, 1, 1),
                             .kernelParams = fa};
    grKernelNodeParams sp = fp;
    sp.func = scale;
    sp.kernelParams = sa;
    TRY(grSetDevice(0));
    TRY(grGraphAddKernelNode(&f, g, NULL, 0, &fp)); /* the CPU's */
    TRY(grSetDevice(gpu));
    TRY(grGraphAddKernelNode(&sc, g, &f, 1, &sp)); /* the GPU's */
    TRY(grSetDevice(0));
    sum total = {x, N, 0};
    grHostNodeParams hp = {add_up, &total};
    TRY(grGraphAddHostNode(&add, g, &sc, 1, &hp)); /* names no device: the CPU's part */

    TRY(grGraphInstantiate(&e, g, 0));
    TRY(grStreamCreate(&s)); /* the CPU's: a graph that spans devices launches there */
    printf("a graph over %s\n", gpu ? "the CPU and device 1 (a GPU)" : "the CPU only (no GPU)");
    for (int r = 1; r <= 5; r++) {
        v = (float)r;
        TRY(grGraphExecKernelNodeSetParams(e, f, &fp)); /* in place, in its part */
        TRY(grGraphLaunch(e, s));
        TRY(grStreamSynchronize(s));
        double want = 3.0 * r * N;
        wrong += total.total != want;
        printf("launch %d: sum %.0f, %s\n", r, total.total, total.total == want ? "correct" : "WRONG");
    }
    TRY(grGraphExecDestroy(e));
    TRY(grGraphDestroy(g));
    TRY(grStreamDestroy(s));
    TRY(grFreeHost(x));
    TRY(grKernelDestroy(fill));
    TRY(grKernelDestroy(scale));
    return wrong ? 1 : 0;
}
