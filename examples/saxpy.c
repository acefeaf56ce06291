/*
 * saxpy.c - one program for the CPU and a GPU: y = a * x + y on the
 * device GRAPHRT_DEVICE names (GRAPHRT_DEVICE=cuda:0 for the first GPU;
 * the CPU otherwise), with the same calls on both. Prints the device and
 * whether the result is right.
 *
 *   ./build/examples/saxpy                       # the CPU
 *   GRAPHRT_DEVICE=cuda:0 ./build/examples/saxpy  # the first GPU
 */
#include "graphrt.h"
#include "graphrt_kernel.h"

#include <stdio.h>
#include <stdlib.h>

GR_KERNEL_DECLARE(saxpy);

#define TRY(call)                                                                                        \
    do {                                                                                                 \
        grError_t e_ = (call);                                                                           \
        if (e_ != grSuccess) {                                                                           \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, grGetErrorName(e_), grGetLastErrorDetail()); \
            return 1;                                                                                    \
        }                                                                                                \
    } while (0)

int main(void)
{
    enum {
        N = 1 << 20
    };
    int device = 0;
    unsigned n = N;
    float a = 2.0f, *hx = NULL, *hy = NULL;
    void *x = NULL, *y = NULL;
    grDeviceProp prop;
    grKernel_t k;
    grStream_t s;
    grEvent_t t0, t1;
    float ms = 0;

    TRY(grGetDevice(&device));
    TRY(grGetDeviceProperties(&prop, device));
    printf("device %d: %s (%s, %d %s)\n", device, prop.name, prop.isCpu ? "CPU" : "GPU",
           prop.multiProcessorCount, prop.isCpu ? "workers" : "multiprocessors");
    TRY(GR_KERNEL_CREATE(&k, saxpy));
    TRY(grStreamCreate(&s));
    TRY(grEventCreate(&t0));
    TRY(grEventCreate(&t1));
    TRY(grMallocHost((void **)&hx, N * sizeof(float)));
    TRY(grMallocHost((void **)&hy, N * sizeof(float)));
    TRY(grMalloc(&x, N * sizeof(float)));
    TRY(grMalloc(&y, N * sizeof(float)));
    for (unsigned i = 0; i < N; i++) {
        hx[i] = (float)(i % 1000);
        hy[i] = 1.0f;
    }
    TRY(grMemcpyAsync(x, hx, N * sizeof(float), grMemcpyHostToDevice, s));
    TRY(grMemcpyAsync(y, hy, N * sizeof(float), grMemcpyHostToDevice, s));
    void *args[] = {&a, &x, &y, &n};
    TRY(grEventRecord(t0, s));
    TRY(grLaunchKernel(k, GR_DIM3((N + 255) / 256, 1, 1), GR_DIM3(256, 1, 1), args, 0, s));
    TRY(grEventRecord(t1, s));
    TRY(grMemcpyAsync(hy, y, N * sizeof(float), grMemcpyDeviceToHost, s));
    TRY(grStreamSynchronize(s));
    TRY(grEventElapsedTime(&ms, t0, t1));
    unsigned wrong = 0;
    for (unsigned i = 0; i < N; i++)
        wrong += hy[i] != 2.0f * (float)(i % 1000) + 1.0f;
    printf("saxpy of %u floats: %.3f ms, %s\n", n, (double)ms, wrong ? "WRONG" : "correct");
    TRY(grFree(x));
    TRY(grFree(y));
    TRY(grFreeHost(hx));
    TRY(grFreeHost(hy));
    TRY(grEventDestroy(t0));
    TRY(grEventDestroy(t1));
    TRY(grStreamDestroy(s));
    TRY(grKernelDestroy(k));
    return wrong ? 1 : 0;
}
