/*
 * tiled_matmul_kernels.c - the tiled matrix product C = A B of n x n
 * floats, written once for the CPU and NVIDIA GPUs (graphrt_kernel.h) in
 * two forms of the same algorithm: each block of TILE x TILE threads
 * computes a tile of C, walking A's rows and B's columns a tile at a time
 * through shared memory, every thread adding up its element of C in the
 * same order (k ascending) in both.
 *   - matmul_sync: CUDA's form (GR_KERNEL_SYNC): a thread's sum in a
 *     local, two gr_sync_threads per tile. On the CPU each thread is a
 *     fiber, a barrier a switch per thread.
 *   - matmul_phases: the phase form (GR_KERNEL_BLOCK): each GR_THREADS_XY
 *     statement is every thread's step, the barrier after it implied; a
 *     thread's sum lives in shared memory from phase to phase. On the CPU
 *     a phase is a loop over the block's threads.
 */
#include "graphrt_kernel.h"

#include "tiled_matmul_kernels.h"

GR_KERNEL_SYNC(matmul_sync, (const float *, a), (const float *, b), (float *, c), (unsigned, n))
{
    GR_SHARED(float, ta[MATMUL_TILE][MATMUL_TILE]);
    GR_SHARED(float, tb[MATMUL_TILE][MATMUL_TILE]);
    unsigned tx = gr_thread_idx_x(), ty = gr_thread_idx_y();
    unsigned row = gr_block_idx_y() * MATMUL_TILE + ty, col = gr_block_idx_x() * MATMUL_TILE + tx;
    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < n; k0 += MATMUL_TILE) {
        ta[ty][tx] = row < n && k0 + tx < n ? a[(size_t)row * n + k0 + tx] : 0.0f;
        tb[ty][tx] = k0 + ty < n && col < n ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        gr_sync_threads();
        for (unsigned k = 0; k < MATMUL_TILE; k++)
            acc += ta[ty][k] * tb[k][tx];
        gr_sync_threads();
    }
    if (row < n && col < n)
        c[(size_t)row * n + col] = acc;
}

GR_KERNEL_BLOCK(matmul_phases, (const float *, a), (const float *, b), (float *, c), (unsigned, n))
{
    GR_SHARED(float, ta[MATMUL_TILE][MATMUL_TILE]);
    GR_SHARED(float, tb[MATMUL_TILE][MATMUL_TILE]);
    GR_SHARED(float, acc[MATMUL_TILE][MATMUL_TILE]);
    unsigned r0 = gr_block_idx_y() * MATMUL_TILE, c0 = gr_block_idx_x() * MATMUL_TILE;
    GR_THREADS_XY (tx, ty)
        acc[ty][tx] = 0.0f;
    for (unsigned k0 = 0; k0 < n; k0 += MATMUL_TILE) {
        GR_THREADS_XY (tx, ty) {
            unsigned row = r0 + ty, col = c0 + tx;
            ta[ty][tx] = row < n && k0 + tx < n ? a[(size_t)row * n + k0 + tx] : 0.0f;
            tb[ty][tx] = k0 + ty < n && col < n ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        }
        GR_THREADS_XY (tx, ty) {
            float s = acc[ty][tx];
            for (unsigned k = 0; k < MATMUL_TILE; k++)
                s += ta[ty][k] * tb[k][tx];
            acc[ty][tx] = s;
        }
    }
    GR_THREADS_XY (tx, ty)
        if (r0 + ty < n && c0 + tx < n)
            c[(size_t)(r0 + ty) * n + c0 + tx] = acc[ty][tx];
}
