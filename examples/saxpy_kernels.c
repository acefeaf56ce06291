/*
 * saxpy_kernels.c - the kernel of the saxpy example, written once: a C
 * compiler makes its CPU function, nvcc (graphrt_add_cuda_kernels) its GPU
 * image.
 */
#include "graphrt_kernel.h"

GR_KERNEL(saxpy, (float, a), (const float *, x), (float *, y), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        y[i] = a * x[i] + y[i];
}
