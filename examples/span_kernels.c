/*
 * span_kernels.c - the kernels of the span example, written once: a C
 * compiler makes their CPU functions, nvcc (graphrt_add_cuda_kernels) their
 * GPU images.
 */
#include "graphrt_kernel.h"

GR_KERNEL(span_fill, (float *, x), (float, v), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        x[i] = v;
}

GR_KERNEL(span_scale, (float *, x), (float, a), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        x[i] *= a;
}
