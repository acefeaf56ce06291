/*
 * simple_graphs_kernels.c - the two kernels of NVIDIA's simpleCudaGraphs
 * sample, written here from its description in graphrt_kernel.h's
 * language, keeping its reduction: each thread adds up its grid-strided
 * inputs in double, the block halves its partial sums in shared memory
 * with a barrier per level down to one warp, and the first warp finishes
 * with shuffles. A C build gives their CPU functions (each thread a
 * fiber), nvcc (graphrt_add_cuda_kernels) their GPU image;
 * tests/test-simple-graphs.c builds the sample's graphs around them.
 *
 * Both assume blocks of a power-of-two number of threads, 64 to
 * SG_MAX_THREADS (the shared array's size).
 */
#include "graphrt_kernel.h"

#define SG_MAX_THREADS 512

/* The block's sum of each thread's 'sum' into thread 0's 'sum': halving
 * in the shared array tmp with a barrier per level down to one warp, then
 * shuffles within that warp. A macro, not a function: the kernel
 * language's thread indices and barriers exist only in a kernel's body. */
#define SG_BLOCK_SUM(tmp, t, sum)                                     \
    do {                                                              \
        (tmp)[t] = (sum);                                             \
        gr_sync_threads();                                            \
        for (unsigned k_ = gr_block_dim_x() / 2; k_ >= 32; k_ /= 2) { \
            if ((t) < k_)                                             \
                (tmp)[t] = (sum) = (sum) + (tmp)[(t) + k_];           \
            gr_sync_threads();                                        \
        }                                                             \
        if ((t) < 32)                                                 \
            for (int d_ = 16; d_ > 0; d_ /= 2)                        \
                (sum) += gr_shfl_down_sync(0xffffffffu, (sum), d_);   \
    } while (0)

/* partial[block] = the sum, in double, of in[i] over the i that the
 * block's threads visit striding by the grid's size. */
GR_KERNEL_SYNC(sg_reduce, (const float *, in), (double *, partial), (size_t, n))
{
    GR_SHARED(double, tmp, SG_MAX_THREADS);
    unsigned t = gr_thread_idx_x();
    size_t stride = (size_t)gr_grid_dim_x() * gr_block_dim_x();
    double sum = 0.0;
    for (size_t i = gr_global_idx_x(); i < n; i += stride)
        sum += (double)in[i];
    SG_BLOCK_SUM(tmp, t, sum);
    if (t == 0)
        partial[gr_block_idx_x()] = sum;
}

/* *result += the sum of partial[0..count): the same shape over the
 * partial sums, one double atomic add per block (the result is cleared
 * by a memset before it). */
GR_KERNEL_SYNC(sg_reduce_final, (const double *, partial), (double *, result), (size_t, count))
{
    GR_SHARED(double, tmp, SG_MAX_THREADS);
    unsigned t = gr_thread_idx_x();
    double sum = 0.0;
    for (size_t i = gr_global_idx_x(); i < count; i += (size_t)gr_grid_dim_x() * gr_block_dim_x())
        sum += partial[i];
    SG_BLOCK_SUM(tmp, t, sum);
    if (t == 0)
        gr_atomic_add(result, sum);
}
