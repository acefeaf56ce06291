/*
 * gpu_kernels.c - the kernels of the GPU tests, written once with
 * graphrt_kernel.h: a C build gives their CPU functions, nvcc (through
 * graphrt_add_cuda_kernels) their GPU image.
 */
#include "graphrt_kernel.h"

GR_KERNEL(gr_test_saxpy, (float, a), (const float *, x), (float *, y), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        y[i] = a * x[i] + y[i];
}

GR_KERNEL(gr_test_count, (unsigned *, counter), (float *, sum), (unsigned, n))
{
    if (gr_global_idx_x() < n) {
        gr_atomic_add_u32(counter, 1u);
        gr_atomic_add_f32(sum, 0.5f);
    }
}

#ifndef __CUDACC__
/* Whether this build embedded the GPU image (a CUDA compiler was found). */
int gr_test_kernels_have_image(void);
int gr_test_kernels_have_image(void)
{
    return GR_KERNEL_HAS_IMAGE;
}
#endif
