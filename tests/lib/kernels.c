/*
 * kernels.c - the suite's canonical kernels, written once with
 * graphrt_kernel.h: a C build gives their CPU functions, nvcc (through
 * graphrt_add_cuda_kernels) their GPU image, and the fake device runs
 * them as a GPU would.
 */
#include "graphrt_kernel.h"

GR_KERNEL(tl_nop)
{
}

GR_KERNEL(tl_fill_u32, (unsigned *, p), (unsigned, v), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        p[i] = v;
}

GR_KERNEL(tl_add_u32, (unsigned *, p), (unsigned, v), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        p[i] += v;
}

/* *cell = v, from every thread: launched with one thread, a store a test
 * reads back. */
GR_KERNEL(tl_store_i32, (int *, cell), (int, v))
{
    *cell = v;
}

/* p[block] += v, once per block (thread 0). */
GR_KERNEL(tl_add_i32_block, (int *, p), (int, v))
{
    if (gr_thread_idx_x() == 0)
        p[gr_block_idx_x()] += v;
}

/* p[block] = v, once per block (thread 0). */
GR_KERNEL(tl_set_i32_block, (int *, p), (int, v))
{
    if (gr_thread_idx_x() == 0)
        p[gr_block_idx_x()] = v;
}

/* p[block] = a + b, once per block (thread 0): parameters of three sizes. */
GR_KERNEL(tl_sum_i32_block, (int *, p), (int, a), (long long, b))
{
    if (gr_thread_idx_x() == 0)
        p[gr_block_idx_x()] = a + (int)b;
}

#ifndef __CUDACC__
#include "testlib.h"

/* The CPU functions are static to GR_KERNEL's expansion: these hand them
 * to tests that register the kernel under another name or image. */
void tl_fill_u32_fn(const grKernelCtx *ctx, void **args)
{
    tl_fill_u32_cpu(ctx, args);
}

void tl_add_u32_fn(const grKernelCtx *ctx, void **args)
{
    tl_add_u32_cpu(ctx, args);
}

void tl_store_i32_fn(const grKernelCtx *ctx, void **args)
{
    tl_store_i32_cpu(ctx, args);
}

/* A kernel registered anew on each call, and one registered on first use
 * and kept for the rest of the test (each test is its own process). */
#define TL_CREATE(fn, kernel)                   \
    grKernel_t fn(void)                         \
    {                                           \
        grKernel_t k;                           \
        CHECK_OK(GR_KERNEL_CREATE(&k, kernel)); \
        return k;                               \
    }
#define TL_KEPT(fn, kernel)                         \
    grKernel_t fn(void)                             \
    {                                               \
        static grKernel_t k;                        \
        if (!k)                                     \
            CHECK_OK(GR_KERNEL_CREATE(&k, kernel)); \
        return k;                                   \
    }

TL_CREATE(tl_kernel_nop_create, tl_nop)
TL_CREATE(tl_kernel_fill_u32_create, tl_fill_u32)
TL_CREATE(tl_kernel_add_u32_create, tl_add_u32)
TL_CREATE(tl_kernel_store_i32_create, tl_store_i32)
TL_KEPT(tl_kernel_nop_kept, tl_nop)
TL_KEPT(tl_kernel_store_i32_kept, tl_store_i32)
TL_KEPT(tl_kernel_add_i32, tl_add_i32_block)
TL_KEPT(tl_kernel_set_i32, tl_set_i32_block)
TL_KEPT(tl_kernel_sum_i32, tl_sum_i32_block)

void tl_launch_add_i32(grStream_t s, int *p, int v)
{
    void *args[2] = {&p, &v};
    CHECK_OK(grLaunchKernel(tl_kernel_add_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
}
#endif
