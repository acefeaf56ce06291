/*
 * gpu.c - helpers of the GPU tests: the fill and add kernels of the
 * tests' PTX image (gpu-ptx.h, from gpu-kernels.cu) with their CPU
 * functions, one-dimensional kernel node parameters, and a check of a
 * whole result array.
 */
#include "testlib.h"

#include "gpu-ptx.h"

grKernel_t tl_ptx_kernel(const char *name)
{
    grKernel_t k;
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    bool fill = strcmp(name, "gr_test_fill") == 0;
    CHECK(fill || strcmp(name, "gr_test_add") == 0);
    CHECK_OK(grKernelCreate(&k, fill ? tl_fill_u32_fn : tl_add_u32_fn, name, 3, sizes));
    CHECK_OK(grKernelSetImage(k, gr_test_ptx, name));
    return k;
}

grMemsetParams tl_memset_params(void *dst, unsigned value, unsigned elementSize, size_t width, size_t height,
                                size_t pitch)
{
    grMemsetParams p = {.dst = dst,
                        .pitch = pitch,
                        .value = value,
                        .elementSize = elementSize,
                        .width = width,
                        .height = height};
    return p;
}

grKernelNodeParams tl_params_1d(grKernel_t k, void **args, unsigned n, unsigned block)
{
    grKernelNodeParams p = {.func = k,
                            .gridDim = GR_DIM3((n + block - 1) / block, 1, 1),
                            .blockDim = GR_DIM3(block, 1, 1),
                            .kernelParams = args};
    return p;
}

void tl_check_all_u32(const unsigned *h, unsigned n, unsigned want)
{
    for (unsigned i = 0; i < n; i++)
        if (h[i] != want)
            GR_TEST_FAIL_("element %u is %u, expected %u", i, h[i], want);
}

void tl_memset_check_free_async(void *d, unsigned char *h, size_t n, int v, grStream_t s)
{
    CHECK_OK(grMemsetAsync(d, v, n, s));
    CHECK_OK(grMemcpyAsync(h, d, n, grMemcpyDeviceToHost, s));
    CHECK_OK(grFreeAsync(d, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(h[0], v);
    CHECK_EQ(h[n - 1], v);
}
