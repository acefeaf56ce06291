/*
 * test-kernel-source.c - kernels written once with graphrt_kernel.h
 * (tests/kernels/gpu_kernels.c), run on the CPU device: the per-block CPU
 * function that GR_KERNEL makes runs every thread of every block with the
 * launch's parameters.
 */
#include "test.h"

#include "graphrt_kernel.h"
#include "kernels/test_kernels.h"

GR_KERNEL_DECLARE(gr_test_affine_bytes);

enum {
    W = 37,
    H = 11,
    D = 3,
    N = W * H * D,
    GUARD = 64
};

GR_TEST(gr_kernel_cpu_function_runs_each_thread_with_the_launch_parameters)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, gr_test_affine_bytes));
    float *in = NULL;
    unsigned char *out = NULL;
    CHECK_OK(grMalloc((void **)&in, N * sizeof(float)));
    CHECK_OK(grMalloc((void **)&out, N + GUARD));
    for (unsigned i = 0; i < N; i++)
        in[i] = (float)(i % 50);
    memset(out, 0xAA, N + GUARD);

    /* Partial blocks on every axis: threads past the edges return early. */
    gr_test_affine t = {.scale = 2.0f, .offset = 1.5f, .bias = 7};
    unsigned w = W, h = H, d = D;
    void *args[] = {&in, &out, &t, &w, &h, &d};
    const grDim3 block = GR_DIM3(8, 4, 2);
    const grDim3 grid = GR_DIM3((W + 7) / 8, (H + 3) / 4, (D + 1) / 2);
    CHECK_OK(grLaunchKernel(k, grid, block, args, 0, NULL));
    /* The values were taken at the launch. */
    t.scale = 0.0f;
    t.bias = 0;
    w = 1;
    CHECK_OK(grDeviceSynchronize());

    for (unsigned i = 0; i < N; i++) {
        const unsigned z = i / (W * H);
        const unsigned want = ((unsigned)((float)(i % 50) * 2.0f + 1.5f) + 7u + z) & 0xFFu;
        if (out[i] != want)
            GR_TEST_FAIL_("out[%u] is %u, expected %u", i, out[i], want);
    }
    for (unsigned i = N; i < N + GUARD; i++)
        CHECK_EQ(out[i], 0xAA);
    CHECK_OK(grFree(in));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(k));
}
