/*
 * lang_kernels.c - kernels in graphrt_kernel.h's language that need the
 * block's threads to cooperate (barriers, shared memory, warp operations,
 * atomics), written once: a C build gives their CPU functions (fibers),
 * nvcc (through graphrt_add_cuda_kernels) their GPU image. The tests of
 * tests/test-kernel-lang*.c run them and check every result against a
 * plain C computation.
 */
#include "graphrt_kernel.h"
#include "test_kernels.h"

/* ---------------------------------------------------------- reductions */

/* out[block] = the sum of the block's 256 elements of x (0 past n): the
 * classic shared-memory tree, a barrier per level. */
GR_KERNEL_SYNC(lang_tree_sum, (const float *, x), (float *, out), (unsigned, n))
{
    GR_SHARED(float, s, 256);
    unsigned t = gr_thread_idx_x();
    size_t i = gr_global_idx_x();
    s[t] = i < n ? x[i] : 0.0f;
    gr_sync_threads();
    for (unsigned k = gr_block_dim_x() / 2; k > 0; k /= 2) {
        if (t < k)
            s[t] += s[t + k];
        gr_sync_threads();
    }
    if (t == 0)
        out[gr_block_idx_x()] = s[0];
}

/* The same block sums written in phases (GR_KERNEL_BLOCK): each
 * GR_THREADS statement is every thread's step of a level, the barrier
 * after it implied; the CPU runs each phase as a loop over the threads. */
GR_KERNEL_BLOCK(lang_tree_sum_phases, (const float *, x), (float *, out), (unsigned, n))
{
    GR_SHARED(float, s, 256);
    size_t base = (size_t)gr_block_idx_x() * gr_block_dim_x();
    GR_THREADS (t)
        s[t] = base + t < n ? x[base + t] : 0.0f;
    for (unsigned k = gr_block_dim_x() / 2; k > 0; k /= 2)
        GR_THREADS (t)
            if (t < k)
                s[t] += s[t + k];
    GR_THREADS (t)
        if (t == 0)
            out[gr_block_idx_x()] = s[0];
}

/* *out += the sum of x (0 past n), in double: shuffles within each warp,
 * the warps' sums through shared memory, warp 0 adds them up with
 * shuffles again, one double atomic add per block. */
GR_KERNEL_SYNC(lang_warp_sum, (const float *, x), (double *, out), (unsigned, n))
{
    GR_SHARED(double, warp_sums, 32);
    size_t i = gr_global_idx_x();
    double v = i < n ? (double)x[i] : 0.0;
    for (int d = 16; d > 0; d /= 2)
        v += gr_shfl_down_sync(0xffffffffu, v, d);
    if (gr_lane_id() == 0)
        warp_sums[gr_warp_id()] = v;
    gr_sync_threads();
    if (gr_warp_id() == 0) {
        unsigned nw = (gr_block_dim_x() + 31) / 32;
        v = gr_lane_id() < nw ? warp_sums[gr_lane_id()] : 0.0;
        for (int d = 16; d > 0; d /= 2)
            v += gr_shfl_xor_sync(0xffffffffu, v, d);
        if (gr_lane_id() == 0)
            gr_atomic_add(out, v);
    }
}

/* ---------------------------------------------------------------- scan */

/* The exclusive prefix sum of each block's part of x, in dynamic shared
 * memory (2 x blockDim unsigned, double-buffered Hillis-Steele), and the
 * block's total in sums[block]. */
GR_KERNEL_SYNC(lang_exclusive_scan, (const unsigned *, x), (unsigned *, y), (unsigned *, sums), (unsigned, n))
{
    GR_SHARED_DYNAMIC(unsigned, buf);
    unsigned t = gr_thread_idx_x(), nb = gr_block_dim_x();
    size_t i = gr_global_idx_x();
    unsigned in = 1, out = 0; /* the data starts in half 0 */
    buf[t] = t > 0 && i - 1 < n ? x[i - 1] : 0u;
    gr_sync_threads();
    for (unsigned off = 1; off < nb; off *= 2) {
        in ^= 1u;
        out ^= 1u;
        unsigned v = buf[in * nb + t];
        if (t >= off)
            v += buf[in * nb + t - off];
        buf[out * nb + t] = v;
        gr_sync_threads();
    }
    if (i < n)
        y[i] = buf[out * nb + t];
    if (t == nb - 1)
        sums[gr_block_idx_x()] = buf[out * nb + t] + (i < n ? x[i] : 0u);
}

/* ------------------------------------------------------- matrix product */

/* c = a x b, n x n row-major, in 16 x 16 tiles held in shared memory. */
GR_KERNEL_SYNC(lang_matmul, (const float *, a), (const float *, b), (float *, c), (unsigned, n))
{
    GR_SHARED(float, ta[16][16]);
    GR_SHARED(float, tb[16][16]);
    unsigned tx = gr_thread_idx_x(), ty = gr_thread_idx_y();
    size_t row = gr_global_idx_y(), col = gr_global_idx_x();
    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < n; k0 += 16) {
        ta[ty][tx] = row < n && k0 + tx < n ? a[row * n + k0 + tx] : 0.0f;
        tb[ty][tx] = col < n && k0 + ty < n ? b[(k0 + ty) * (size_t)n + col] : 0.0f;
        gr_sync_threads();
        for (unsigned k = 0; k < 16; k++)
            acc += ta[ty][k] * tb[k][tx];
        gr_sync_threads();
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}

/* The same product in phases (GR_KERNEL_BLOCK, GR_THREADS_XY): each
 * thread's sum lives in shared memory from one phase to the next. */
GR_KERNEL_BLOCK(lang_matmul_phases, (const float *, a), (const float *, b), (float *, c), (unsigned, n))
{
    GR_SHARED(float, ta[16][16]);
    GR_SHARED(float, tb[16][16]);
    GR_SHARED(float, acc[16][16]);
    size_t r0 = (size_t)gr_block_idx_y() * 16, c0 = (size_t)gr_block_idx_x() * 16;
    GR_THREADS_XY (tx, ty)
        acc[ty][tx] = 0.0f;
    for (unsigned k0 = 0; k0 < n; k0 += 16) {
        GR_THREADS_XY (tx, ty) {
            size_t row = r0 + ty, col = c0 + tx;
            ta[ty][tx] = row < n && k0 + tx < n ? a[row * n + k0 + tx] : 0.0f;
            tb[ty][tx] = col < n && k0 + ty < n ? b[(k0 + ty) * (size_t)n + col] : 0.0f;
        }
        GR_THREADS_XY (tx, ty) {
            float sum = acc[ty][tx];
            for (unsigned k = 0; k < 16; k++)
                sum += ta[ty][k] * tb[k][tx];
            acc[ty][tx] = sum;
        }
    }
    GR_THREADS_XY (tx, ty)
        if (r0 + ty < n && c0 + tx < n)
            c[(r0 + ty) * n + c0 + tx] = acc[ty][tx];
}

/* ------------------------------------------------------------ histogram */

/* hist[v] += how many elements of x equal v (256 bins): counted in shared
 * memory with shared atomics, then added to the global bins. */
GR_KERNEL_SYNC(lang_histogram, (const unsigned char *, x), (unsigned *, hist), (unsigned, n))
{
    GR_SHARED(unsigned, bins, 256);
    unsigned t = gr_thread_idx_x(), nb = gr_block_dim_x();
    for (unsigned b = t; b < 256; b += nb)
        bins[b] = 0;
    gr_sync_threads();
    size_t stride = (size_t)nb * gr_grid_dim_x();
    for (size_t i = gr_global_idx_x(); i < n; i += stride)
        gr_atomic_add(&bins[x[i]], 1u);
    gr_sync_threads();
    for (unsigned b = t; b < 256; b += nb)
        if (bins[b])
            gr_atomic_add(&hist[b], bins[b]);
}

/* -------------------------------------------------------------- stencil */

/* out = the 5-point average of in (w x h, edges clamped), each 16 x 16
 * block loading its tile and a halo of one into shared memory. */
GR_KERNEL_SYNC(lang_stencil, (const float *, in), (float *, out), (unsigned, w), (unsigned, h))
{
    GR_SHARED(float, tile[18][18]);
    unsigned tx = gr_thread_idx_x(), ty = gr_thread_idx_y();
    int x = (int)gr_global_idx_x(), y = (int)gr_global_idx_y();
    int W = (int)w, H = (int)h;
    /* Each thread loads its cell and, at the tile's edges, the halo. */
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int lx = (int)tx + 1 + dx, ly = (int)ty + 1 + dy;
            int edge_x = dx == 0 || (dx < 0 && tx == 0) || (dx > 0 && tx == 15);
            int edge_y = dy == 0 || (dy < 0 && ty == 0) || (dy > 0 && ty == 15);
            if (!edge_x || !edge_y)
                continue;
            int sx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
            int sy = y + dy < 0 ? 0 : y + dy >= H ? H - 1 : y + dy;
            tile[ly][lx] = in[(size_t)sy * w + (size_t)sx];
        }
    gr_sync_threads();
    if (x < W && y < H) {
        unsigned cx = tx + 1, cy = ty + 1;
        out[(size_t)y * w + (size_t)x] =
            0.2f * (tile[cy][cx] + tile[cy][cx - 1] + tile[cy][cx + 1] + tile[cy - 1][cx] + tile[cy + 1][cx]);
    }
}

/* ------------------------------------------------- barriers and votes */

/* Per block: r[0] = count of threads with (t % 3 == 0), r[1] = and of
 * (t < limit), r[2] = or of (t == limit), for the block's own r. */
GR_KERNEL_SYNC(lang_sync_counts, (int *, r), (unsigned, limit))
{
    unsigned t = gr_thread_idx_x();
    int *mine = r + 3 * gr_block_idx_x();
    int c = gr_sync_threads_count(t % 3 == 0);
    int a = gr_sync_threads_and(t < limit);
    int o = gr_sync_threads_or(t == limit);
    if (t == 0) {
        mine[0] = c;
        mine[1] = a;
        mine[2] = o;
    }
}

/* Per thread i (linear in the block), 12 results r[12 * i + ...]: lane,
 * warp, shfl from lane 3, shfl width 8 from lane 5, up 1, down 2, xor
 * 1, ballot of odd lanes, any of lane 7, all of (value < 1000), the
 * active mask, and a double shuffle's bits. */
GR_KERNEL_SYNC(lang_warp_ops, (unsigned *, r))
{
    unsigned i = gr_thread_idx_x();
    unsigned *o = r + 12 * i;
    unsigned v = i * 10u + 1u;
    const unsigned full = 0xffffffffu;
    o[0] = gr_lane_id();
    o[1] = gr_warp_id();
    o[2] = gr_shfl_sync(full, v, 3);
    o[3] = gr_shfl_sync(full, v, 5, 8);
    o[4] = gr_shfl_up_sync(full, v, 1);
    o[5] = gr_shfl_down_sync(full, v, 2);
    o[6] = (unsigned)gr_shfl_xor_sync(full, (int)v, 1);
    o[7] = gr_ballot_sync(full, gr_lane_id() & 1u);
    o[8] = (unsigned)gr_any_sync(full, gr_lane_id() == 7);
    o[9] = (unsigned)gr_all_sync(full, v < 1000u);
    o[10] = gr_activemask();
    double d = gr_shfl_down_sync(full, (double)v + 0.5, 1);
    o[11] = (unsigned)(d * 2.0);
    gr_syncwarp(full);
}

/* ------------------------------------------------------------- atomics */

/* Every thread applies each operation once to the global cells g (and
 * its block's shared copies, added to g's last cells at the end): see
 * test-kernel-lang.c for what each cell must end as. */
GR_KERNEL_SYNC(lang_atomics, (lang_atomic_cells *, g))
{
    GR_SHARED(unsigned, su, 2);
    GR_SHARED(float, sf, 1);
    unsigned t = (unsigned)gr_global_idx_x();
    int ti = (int)t;
    unsigned long long tl = t;
    if (gr_thread_idx_x() == 0) {
        su[0] = 0;
        su[1] = 0;
        sf[0] = 0.0f;
    }
    gr_sync_threads();
    gr_atomic_add(&g->i_add, ti);
    gr_atomic_sub(&g->i_sub, ti);
    gr_atomic_min(&g->i_min, -ti);
    gr_atomic_max(&g->i_max, ti);
    gr_atomic_and(&g->i_and, ~(1 << (t % 31)));
    gr_atomic_or(&g->i_or, 1 << (t % 31));
    gr_atomic_xor(&g->i_xor, ti);
    gr_atomic_exch(&g->i_exch, 7);
    gr_atomic_cas(&g->i_cas, ti, ti + 1);
    gr_atomic_add(&g->u_add, t);
    gr_atomic_sub(&g->u_sub, 1u);
    gr_atomic_min(&g->u_min, t + 5u);
    gr_atomic_max(&g->u_max, t);
    gr_atomic_and(&g->u_and, ~(1u << (t % 32)));
    gr_atomic_or(&g->u_or, 1u << (t % 32));
    gr_atomic_xor(&g->u_xor, t);
    gr_atomic_exch(&g->u_exch, 9u);
    gr_atomic_cas(&g->u_cas, t, t + 1u);
    gr_atomic_inc(&g->u_inc, 99u);
    gr_atomic_dec(&g->u_dec, 1000u);
    gr_atomic_add(&g->ull_add, tl << 32);
    gr_atomic_min(&g->ull_min, tl + (1ull << 40));
    gr_atomic_max(&g->ull_max, tl << 33);
    gr_atomic_and(&g->ull_and, ~(1ull << (t % 64)));
    gr_atomic_or(&g->ull_or, 1ull << (t % 64));
    gr_atomic_xor(&g->ull_xor, tl << 20);
    gr_atomic_exch(&g->ull_exch, 11ull);
    gr_atomic_cas(&g->ull_cas, tl, tl + 1);
    gr_atomic_min(&g->ll_min, -(long long)tl * 3);
    gr_atomic_max(&g->ll_max, (long long)tl * 3);
    gr_atomic_add(&g->f_add, 0.5f);
    gr_atomic_exch(&g->f_exch, 2.5f);
    gr_atomic_add(&g->d_add, 0.25);
    gr_atomic_add(&su[0], 1u);
    gr_atomic_max(&su[1], t);
    gr_atomic_add(&sf[0], 1.0f);
    gr_threadfence_block();
    gr_sync_threads();
    if (gr_thread_idx_x() == 0) {
        gr_atomic_add(&g->shared_u_add, su[0]);
        gr_atomic_max(&g->shared_u_max, su[1]);
        gr_atomic_add(&g->shared_f_add, sf[0]);
        gr_threadfence();
    }
}

/* ------------------------------------------------------------ odd ends */

/* Kernels without parameters: the plain and the cooperative kind. */
#ifdef __CUDACC__
__device__
#endif
    unsigned lang_zero_hits;

/* Programmatic dependent launch: the producer writes x[i] = i + 1 and
 * triggers its dependents; the consumer waits for its producer's grid,
 * then reads what it wrote. */
GR_KERNEL(lang_pdl_produce, (int *, x), (unsigned, n))
{
    size_t i = gr_global_idx_x();
    if (i < n)
        x[i] = (int)i + 1;
    gr_trigger_programmatic_launch_completion();
}

GR_KERNEL(lang_pdl_consume, (const int *, x), (int *, y), (unsigned, n))
{
    gr_grid_dependency_synchronize();
    size_t i = gr_global_idx_x();
    if (i < n)
        y[i] = 2 * x[i];
}

GR_KERNEL(lang_zero_plain)
{
    gr_atomic_add(&lang_zero_hits, 1u);
}

GR_KERNEL_SYNC(lang_zero_sync)
{
    gr_sync_threads();
    gr_atomic_add(&lang_zero_hits, 100u);
}

/* The launch's dynamic shared memory: each block reverses its part. */
GR_KERNEL_SYNC(lang_reverse, (int *, x))
{
    GR_SHARED_DYNAMIC(int, s);
    unsigned t = gr_thread_idx_x(), nb = gr_block_dim_x();
    size_t base = (size_t)gr_block_idx_x() * nb;
    s[t] = x[base + t];
    gr_sync_threads();
    x[base + t] = s[nb - 1 - t];
}

/* A barrier that threads >= 'live' never reach (they return first). */
GR_KERNEL_SYNC(lang_early_return, (int *, x), (unsigned, live))
{
    unsigned t = gr_thread_idx_x();
    size_t g = gr_global_idx_x();
    if (t >= live)
        return;
    x[g] = 1;
    gr_sync_threads();
    x[g] = 2;
}

/* Odd and even threads wait at two different barriers. */
GR_KERNEL_SYNC(lang_divergent_sites, (int *, x))
{
    size_t g = gr_global_idx_x();
    if (gr_thread_idx_x() & 1u) {
        gr_sync_threads();
        x[g] = 1;
    } else {
        gr_sync_threads();
        x[g] = 2;
    }
}

/* Lanes 0-15 shuffle with the whole warp named while lanes 16-31 wait at
 * the block barrier: nobody can go on. */
GR_KERNEL_SYNC(lang_warp_deadlock, (int *, x))
{
    unsigned t = gr_thread_idx_x();
    if (t < 16)
        x[gr_global_idx_x()] = gr_shfl_sync(0xffffffffu, (int)t, 0);
    gr_sync_threads();
}

/* A deep stack per thread: 'words' of a local array (at most 32768). */
GR_KERNEL_SYNC(lang_deep_stack, (unsigned *, out), (unsigned, words))
{
    volatile unsigned buf[32768];
    unsigned t = gr_thread_idx_x();
    for (unsigned i = 0; i < words; i++)
        buf[i] = i + t;
    gr_sync_threads();
    unsigned s = 0;
    for (unsigned i = 0; i < words; i++)
        s += buf[i];
    if (gr_block_idx_x() == 0)
        out[t] = s;
}

/* The two halves of each warp shuffle among themselves, each half with
 * its own mask, and lanes 0-7 once more among themselves. */
GR_KERNEL_SYNC(lang_half_warps, (int *, r))
{
    unsigned lane = gr_lane_id();
    unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    int v = (int)gr_thread_idx_x();
    int s = gr_shfl_xor_sync(mask, v, 1);
    if (lane < 8)
        s += 1000 * gr_shfl_sync(0xffu, v, 7);
    gr_syncwarp(mask);
    r[gr_thread_idx_x()] = s;
}

/* Lanes 5 and 20 of each warp return at once; the others run full-mask
 * warp operations, several rounds in a row (each operand a new value),
 * whose sources include the returned lanes: 8 results per thread. */
GR_KERNEL_SYNC(lang_warp_rounds, (unsigned *, r))
{
    unsigned lane = gr_lane_id();
    if (lane == 5 || lane == 20)
        return;
    const unsigned full = 0xffffffffu;
    unsigned v = gr_thread_idx_x() * 10u + 1u;
    unsigned *o = r + 8 * gr_thread_idx_x();
    for (unsigned k = 0; k < 3; k++)
        o[k] = gr_shfl_xor_sync(full, v + k, 1 << k);
    o[7] = gr_activemask(); /* every lane past the returns, none done */
    o[3] = gr_ballot_sync(full, lane & 1u);
    o[4] = gr_shfl_sync(full, v, 5);
    o[5] = (unsigned)gr_all_sync(full, lane != 5);
    o[6] = (unsigned)gr_any_sync(full, lane == 20);
}

/* Warps 1-3 and 7 of a 256-thread block return at once, so that the
 * ring of the threads that wait passes runs of 96 and 32 returned
 * threads (the last run up to the end of the block); the other warps
 * shuffle on, 40 rounds each. */
GR_KERNEL_SYNC(lang_warps_after_returns, (unsigned *, r))
{
    unsigned t = gr_thread_idx_x(), w = t / 32u;
    if ((w >= 1 && w <= 3) || w == 7)
        return;
    unsigned v = t * 7u + 1u;
    for (unsigned i = 0; i < 40; i++)
        v += gr_shfl_xor_sync(0xffffffffu, v, 1 << (i % 5u)) ^ i;
    r[t] = v;
}

/* Lanes 16-31 return after lanes 0-7 and 15 wait in a shuffle among
 * lanes 0-15 (a mask that leaves out live lanes then); lanes 8-14 reach
 * it only after those returns, when the mask names every live lane. */
GR_KERNEL_SYNC(lang_mask_after_returns, (int *, r))
{
    unsigned lane = gr_lane_id();
    int v = (int)gr_thread_idx_x();
    if (lane >= 16)
        return;
    if (lane >= 8)
        v += 1000 * gr_shfl_sync(0xff00u, v, 8);
    r[gr_thread_idx_x()] = gr_shfl_xor_sync(0xffffu, v, 1);
}

/* Shuffles up and down by a delta outside 0-31 (a negative int, or 40),
 * over the warp and in segments of 8 lanes: 4 results per thread. */
GR_KERNEL_SYNC(lang_shfl_far_delta, (int *, r), (int, delta))
{
    const unsigned full = 0xffffffffu;
    int v = (int)gr_thread_idx_x() * 3 + 1;
    int *o = r + 4 * gr_thread_idx_x();
    o[0] = gr_shfl_up_sync(full, v, delta);
    o[1] = gr_shfl_down_sync(full, v, delta);
    o[2] = gr_shfl_up_sync(full, v, delta, 8);
    o[3] = gr_shfl_down_sync(full, v, delta, 8);
}

/* Xor shuffles in segments of 8 lanes whose source is in another
 * segment (lane ^ 8) or in the caller's (lane ^ 2): 2 results per
 * thread. */
GR_KERNEL_SYNC(lang_shfl_xor_segments, (int *, r))
{
    const unsigned full = 0xffffffffu;
    int v = (int)gr_thread_idx_x() * 3 + 1;
    int *o = r + 2 * gr_thread_idx_x();
    o[0] = gr_shfl_xor_sync(full, v, 8, 8);
    o[1] = gr_shfl_xor_sync(full, v, 2, 8);
}

/* Lane 3 names its 8-lane warp with a mask of its own, the others with
 * every lane: two masks for one operation. */
GR_KERNEL_SYNC(lang_warp_mask_mismatch, (int *, x))
{
    unsigned lane = gr_lane_id();
    x[gr_global_idx_x()] = gr_shfl_sync(lane == 3 ? 0xffu : 0xffffffffu, (int)lane, 0);
}

/* ------------------------------------------------------------ sanitizers */

/* Where a block's shared memory lies, for the ASan test of its redzones:
 * out[0] the address of a static shared array of an odd size, out[1] its
 * size, out[2] the address of the dynamic shared memory. */
GR_KERNEL(lang_shared_where, (unsigned long long *, out))
{
    GR_SHARED(float, odd, 37);
    GR_SHARED_DYNAMIC(unsigned char, dyn);
    odd[gr_thread_idx_x() % 37] = 1.0f;
    if (gr_thread_idx_x() == 0) {
        out[0] = (unsigned long long)(size_t)odd;
        out[1] = sizeof odd;
        out[2] = (unsigned long long)(size_t)dyn;
    }
}

/* --------------------------------------------------- cooperative launch */

/* 'rounds' rounds across the grid: every thread writes its slot, the grid
 * barrier, every thread reads a slot of the next block (in reverse thread
 * order), the grid barrier again before the next round's writes. out gets
 * each thread's sum, plus 1000000 if its block's shared memory changed
 * meanwhile (another block's writes showing through). */
GR_KERNEL_SYNC(lang_grid_exchange, (unsigned *, slots), (unsigned *, out), (unsigned, rounds))
{
    GR_SHARED(unsigned, s, 1024);
    unsigned nt = gr_block_dim_x(), t = gr_thread_idx_x();
    unsigned b = gr_block_idx_x(), nb = gr_grid_dim_x();
    unsigned next = (b + 1) % nb, acc = 0;
    s[t] = b;
    for (unsigned r = 0; r < rounds; r++) {
        slots[b * nt + t] = b * 1000u + t + r;
        gr_grid_sync();
        acc += slots[next * nt + (nt - 1 - t)];
        gr_grid_sync();
    }
    out[b * nt + t] = acc + (s[t] == b ? 0u : 1000000u);
}

/* Block 0 returns before the grid barrier that the others wait at. */
GR_KERNEL_SYNC(lang_grid_early, (unsigned *, x))
{
    if (gr_block_idx_x() == 0)
        return;
    gr_grid_sync();
    x[gr_block_idx_x()] = 1;
}
