/*
 * tiled_matmul.c - a tiled matrix product written once for the CPU and a
 * GPU (tiled_matmul_kernels.c), run in a graph on the device
 * GRAPHRT_DEVICE names (cuda:0 for the first GPU; the CPU otherwise): the
 * copies of A and B in, the product, the copy of C out, captured from a
 * stream, instantiated once and launched a few times. Both forms of the
 * kernel run (CUDA's, with barriers; the phase form), each checked
 * against the product computed on the host; prints the time of a launch.
 *
 *   ./build/examples/tiled_matmul [n]              # the CPU, n x n (256)
 *   GRAPHRT_DEVICE=cuda:0 ./build/examples/tiled_matmul
 */
#include "graphrt.h"
#include "graphrt_kernel.h"

#include "tiled_matmul_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

GR_KERNEL_DECLARE(matmul_sync);
GR_KERNEL_DECLARE(matmul_phases);

#define TRY(call)                                                                                        \
    do {                                                                                                 \
        grError_t e_ = (call);                                                                           \
        if (e_ != grSuccess) {                                                                           \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, grGetErrorName(e_), grGetLastErrorDetail()); \
            return 1;                                                                                    \
        }                                                                                                \
    } while (0)

enum {
    LAUNCHES = 3
};

/* Captures copy in -> k -> copy out, launches it LAUNCHES times, checks
 * hc against want and prints the time of a launch. 0 when right. */
static int run(const char *what, grKernel_t k, unsigned n, const float *ha, const float *hb, float *hc,
               const double *want)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    void *a = NULL, *b = NULL, *c = NULL;
    grStream_t s;
    grGraph_t g;
    grGraphExec_t exec;
    grEvent_t t0, t1;
    float ms = 0;
    TRY(grMalloc(&a, bytes));
    TRY(grMalloc(&b, bytes));
    TRY(grMalloc(&c, bytes));
    TRY(grStreamCreate(&s));
    TRY(grEventCreate(&t0));
    TRY(grEventCreate(&t1));
    unsigned blocks = (n + MATMUL_TILE - 1) / MATMUL_TILE;
    void *args[] = {&a, &b, &c, &n};
    TRY(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    TRY(grMemcpyAsync(a, ha, bytes, grMemcpyHostToDevice, s));
    TRY(grMemcpyAsync(b, hb, bytes, grMemcpyHostToDevice, s));
    TRY(grLaunchKernel(k, GR_DIM3(blocks, blocks, 1), GR_DIM3(MATMUL_TILE, MATMUL_TILE, 1), args, 0, s));
    TRY(grMemcpyAsync(hc, c, bytes, grMemcpyDeviceToHost, s));
    TRY(grStreamEndCapture(s, &g));
    TRY(grGraphInstantiate(&exec, g, 0));
    TRY(grGraphLaunch(exec, s)); /* the first launch: warm-up */
    TRY(grEventRecord(t0, s));
    for (int i = 0; i < LAUNCHES; i++)
        TRY(grGraphLaunch(exec, s));
    TRY(grEventRecord(t1, s));
    TRY(grStreamSynchronize(s));
    TRY(grEventElapsedTime(&ms, t0, t1));
    size_t wrong = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        wrong += fabs(hc[i] - want[i]) > 1e-4 * (1.0 + fabs(want[i]));
    printf("  %-34s %9.3f ms a launch, %s\n", what, (double)ms / LAUNCHES, wrong ? "WRONG" : "correct");
    TRY(grGraphExecDestroy(exec));
    TRY(grGraphDestroy(g));
    TRY(grEventDestroy(t0));
    TRY(grEventDestroy(t1));
    TRY(grStreamDestroy(s));
    TRY(grFree(a));
    TRY(grFree(b));
    TRY(grFree(c));
    return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 256;
    if (n == 0 || n > 4096) {
        fprintf(stderr, "usage: %s [n, 1 to 4096]\n", argv[0]);
        return 2;
    }
    int device = 0;
    grDeviceProp prop;
    TRY(grGetDevice(&device));
    TRY(grGetDeviceProperties(&prop, device));
    printf("device %d: %s (%s); C = A B of %u x %u floats, tiles of %u x %u\n", device, prop.name,
           prop.isCpu ? "CPU" : "GPU", n, n, MATMUL_TILE, MATMUL_TILE);
    size_t nn = (size_t)n * n;
    float *ha = NULL, *hb = NULL, *hc = NULL;
    TRY(grMallocHost((void **)&ha, nn * sizeof(float)));
    TRY(grMallocHost((void **)&hb, nn * sizeof(float)));
    TRY(grMallocHost((void **)&hc, nn * sizeof(float)));
    double *want = malloc(nn * sizeof *want);
    if (!want)
        return 1;
    for (size_t i = 0; i < nn; i++) {
        ha[i] = (float)((i * 7) % 13) - 6.0f;
        hb[i] = (float)((i * 5) % 11) * 0.25f;
    }
    for (unsigned r = 0; r < n; r++)
        for (unsigned c = 0; c < n; c++) {
            double s = 0;
            for (unsigned k = 0; k < n; k++)
                s += (double)ha[(size_t)r * n + k] * hb[(size_t)k * n + c];
            want[(size_t)r * n + c] = s;
        }
    grKernel_t ks, kp;
    TRY(GR_KERNEL_CREATE(&ks, matmul_sync));
    TRY(GR_KERNEL_CREATE(&kp, matmul_phases));
    int bad = run("barriers (GR_KERNEL_SYNC)", ks, n, ha, hb, hc, want);
    bad |= run("phases (GR_KERNEL_BLOCK)", kp, n, ha, hb, hc, want);
    TRY(grKernelDestroy(ks));
    TRY(grKernelDestroy(kp));
    TRY(grFreeHost(ha));
    TRY(grFreeHost(hb));
    TRY(grFreeHost(hc));
    free(want);
    return bad;
}
