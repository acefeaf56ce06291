/*
 * conditional_loop_kernels.c - the loop body of the conditional_loop
 * example, written once: a C compiler makes its CPU function, nvcc
 * (graphrt_add_cuda_kernels) its GPU image. It ends the loop itself with
 * gr_set_conditional on the handle it takes as a parameter of its own
 * (docs/conditional.md, "Kernels that set a condition on a GPU").
 */
#include "graphrt_kernel.h"

/* One step of x <- x / 2 + 1 over n elements; thread 0 counts the step in
 * *done and ends the loop of handle 'loop' after 'steps' of them. */
GR_KERNEL(halve_step, (float *, x), (unsigned, n), (unsigned *, done), (unsigned, steps),
          (grGraphConditionalHandle, loop))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        x[i] = x[i] * 0.5f + 1.0f;
    if (i == 0 && ++*done == steps)
        gr_set_conditional(loop, 0);
}
