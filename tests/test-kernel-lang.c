/*
 * test-kernel-lang.c - graphrt_kernel.h's cooperative kernels on the CPU
 * device (tests/kernels/lang_kernels.c): block barriers and their counts,
 * static and dynamic shared memory, every warp operation, CUDA's atomics
 * on each type, kernels of no parameters, the fiber stack attribute, and
 * the faults a GPU would hide or hang on, reported with the kernel, block
 * and threads.
 */
#include "testlib.h"

#include "graphrt_kernel.h"
#include "kernels/test_kernels.h"

#include <math.h>

GR_KERNEL_DECLARE(lang_sync_counts);
GR_KERNEL_DECLARE(lang_warp_ops);
GR_KERNEL_DECLARE(lang_atomics);
GR_KERNEL_DECLARE(lang_zero_plain);
GR_KERNEL_DECLARE(lang_zero_sync);
GR_KERNEL_DECLARE(lang_reverse);
GR_KERNEL_DECLARE(lang_early_return);
GR_KERNEL_DECLARE(lang_divergent_sites);
GR_KERNEL_DECLARE(lang_warp_deadlock);
GR_KERNEL_DECLARE(lang_deep_stack);
GR_KERNEL_DECLARE(lang_half_warps);
GR_KERNEL_DECLARE(lang_warp_rounds);
GR_KERNEL_DECLARE(lang_mask_after_returns);
GR_KERNEL_DECLARE(lang_warps_after_returns);
GR_KERNEL_DECLARE(lang_warp_mask_mismatch);
GR_KERNEL_DECLARE(lang_shfl_far_delta);
GR_KERNEL_DECLARE(lang_shfl_xor_segments);
GR_KERNEL_DECLARE(lang_shared_where);

extern unsigned lang_zero_hits;

GR_TEST(kernel_lang_sync_threads_count_and_or_per_block)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_sync_counts));
    int *r = tl_calloc(3 * 4 * sizeof(int));
    unsigned limit = 100;
    void *args[] = {&r, &limit};
    /* 3 blocks of 100 threads (no thread reaches 'limit': and 1, or 0),
     * then 3 of 128 (and 0, or 1). */
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(100, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (int b = 0; b < 3; b++) {
        CHECK_EQ(r[3 * b + 0], 34);
        CHECK_EQ(r[3 * b + 1], 1);
        CHECK_EQ(r[3 * b + 2], 0);
    }
    CHECK_OK(grLaunchKernel(k, GR_DIM3(4, 1, 1), GR_DIM3(128, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (int b = 0; b < 4; b++) {
        CHECK_EQ(r[3 * b + 0], 43);
        CHECK_EQ(r[3 * b + 1], 0);
        CHECK_EQ(r[3 * b + 2], 1);
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

/* What lang_warp_ops leaves for thread i of a block of n threads. */
static void check_warp_ops(const unsigned *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const unsigned *o = r + 12 * i;
        unsigned lane = i % 32, warp = i / 32, base = warp * 32;
        unsigned lanes = n - base < 32 ? n - base : 32;
        unsigned active = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
#define V(l) ((base + (l)) * 10u + 1u)
        CHECK_EQ(o[0], lane);
        CHECK_EQ(o[1], warp);
        CHECK_EQ(o[2], V(3));
        CHECK_EQ(o[3], V((lane & ~7u) + 5));
        CHECK_EQ(o[4], lane >= 1 ? V(lane - 1) : V(lane));
        /* Lanes past the block's end take no part: their value is left
         * undefined by CUDA, the caller's own here. */
        CHECK_EQ(o[5], lane + 2 < lanes ? V(lane + 2) : V(lane));
        CHECK_EQ(o[6], (lane ^ 1u) < lanes ? V(lane ^ 1u) : V(lane));
        CHECK_EQ(o[7], 0xaaaaaaaau & active);
        CHECK_EQ(o[8], lanes > 7);
        CHECK_EQ(o[9], V(lanes - 1) < 1000u);
        CHECK_EQ(o[10], active);
        CHECK_EQ(o[11], lane + 1 < lanes ? 2 * V(lane + 1) + 1 : 2 * V(lane) + 1);
#undef V
    }
}

GR_TEST(kernel_lang_warp_operations_match_cuda)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_warp_ops));
    unsigned *r = tl_calloc(12 * 256 * sizeof(unsigned));
    void *args[] = {&r};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(256, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    check_warp_ops(r, 256);
    /* A partial last warp: 72 threads, lanes 8-31 of warp 2 absent. */
    memset(r, 0, 12 * 256 * sizeof(unsigned));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(72, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    check_warp_ops(r, 72);
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_lang_warp_operations_of_disjoint_masks_meet_apart)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_half_warps));
    int *r = tl_calloc(64 * sizeof(int));
    void *args[] = {&r};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(64, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (int t = 0; t < 64; t++) {
        int want = t ^ 1;
        if (t % 32 < 8)
            want += 1000 * ((t & ~31) + 7);
        CHECK_EQ(r[t], want);
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

/* Full-mask operations are rounds of the warp whose results each lane
 * reads itself: returned lanes take no part (a shuffle from one gives
 * the caller's own value), and a round's slots are not overwritten by
 * the next round's before every lane has read them. */
GR_TEST(kernel_lang_warp_rounds_skip_returned_lanes)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_warp_rounds));
    unsigned *r = tl_calloc(8 * 72 * sizeof(unsigned));
    void *args[] = {&r};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(72, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (unsigned i = 0; i < 72; i++) {
        const unsigned *o = r + 8 * i;
        unsigned lane = i % 32, base = i - lane, lanes = 72 - base < 32 ? 72 - base : 32;
        unsigned live = 0;
        for (unsigned l = 0; l < lanes; l++)
            if (l != 5 && l != 20)
                live |= 1u << l;
        if (!(live >> lane & 1u)) {
            for (int j = 0; j < 8; j++)
                CHECK_EQ(o[j], 0u);
            continue;
        }
#define V(l) ((base + (l)) * 10u + 1u)
        for (unsigned kk = 0; kk < 3; kk++) {
            unsigned s = lane ^ (1u << kk);
            CHECK_EQ(o[kk], (live >> s & 1u ? V(s) : V(lane)) + kk);
        }
        CHECK_EQ(o[3], 0xaaaaaaaau & live);
        CHECK_EQ(o[4], V(lane));
        CHECK_EQ(o[5], 1u);
        CHECK_EQ(o[6], 0u);
        CHECK_EQ(o[7], live);
#undef V
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

/* Whole warps that return are passed over while the others go on: a
 * waiting lane's successor is the next live thread, found past runs of
 * returned ones, up to the block's end and around. */
GR_TEST(kernel_lang_warps_shuffle_on_past_warps_that_returned)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_warps_after_returns));
    unsigned *r = tl_calloc(256 * sizeof(unsigned));
    void *args[] = {&r};
    for (int launch = 0; launch < 2; launch++) {
        CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(256, 1, 1), args, 0, NULL));
        CHECK_OK(grDeviceSynchronize());
        for (unsigned w = 0; w < 8; w++) {
            unsigned v[32], n[32];
            for (unsigned l = 0; l < 32; l++)
                v[l] = (w * 32u + l) * 7u + 1u;
            for (unsigned i = 0; i < 40; i++) {
                for (unsigned l = 0; l < 32; l++)
                    n[l] = v[l] + (v[l ^ (1u << (i % 5u))] ^ i);
                memcpy(v, n, sizeof v);
            }
            bool gone = (w >= 1 && w <= 3) || w == 7;
            for (unsigned l = 0; l < 32; l++)
                CHECK_EQ(r[w * 32u + l], gone ? 0u : v[l]);
        }
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

/* Lanes waiting in an operation whose mask left out live lanes are met
 * by the lanes that reach it after those lanes returned, when the same
 * mask names every live lane (it once left them waiting apart: a fault
 * that no thread can go on). */
GR_TEST(kernel_lang_warp_mask_meets_lanes_that_waited_before_returns)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_mask_after_returns));
    int *r = tl_calloc(64 * sizeof(int));
    void *args[] = {&r};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(64, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (int t = 0; t < 64; t++) {
        int lane = t % 32, base = t - lane;
        int src = t ^ 1;
        int want = lane >= 16 ? 0 : src % 32 >= 8 ? src + 1000 * (base + 8) : src;
        CHECK_EQ(r[t], want);
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

/* A shuffle's source is always a lane of the caller's warp: a delta
 * outside 0-31 (CUDA's is unsigned, so a negative int is a huge one)
 * leaves every lane its own value, as lanes whose source falls outside
 * their segment are left (it once read a neighbour, or past the warp's
 * last lane: out of bounds). */
GR_TEST(kernel_lang_shuffle_by_far_delta_keeps_own_value)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_shfl_far_delta));
    int *r = tl_calloc(4 * 64 * sizeof(int));
    static const int deltas[] = {-1, -5, 32, 40};
    for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++) {
        int delta = deltas[d];
        void *args[] = {&r, &delta};
        CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(64, 1, 1), args, 0, NULL));
        CHECK_OK(grDeviceSynchronize());
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 4; j++)
                CHECK_EQ(r[4 * i + j], i * 3 + 1);
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

/* A xor shuffle of width 8 reads a lane of an earlier segment, and only
 * a later segment's source gives the caller's own value, as CUDA
 * documents for __shfl_xor_sync (the other shuffles keep to the
 * caller's segment). */
GR_TEST(kernel_lang_xor_shuffle_reads_earlier_segments)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_shfl_xor_segments));
    int *r = tl_calloc(2 * 64 * sizeof(int));
    void *args[] = {&r};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(64, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (int i = 0; i < 64; i++) {
        int lane = i % 32, warp = i - lane, base = lane & ~7, far = lane ^ 8;
        int want = far < base + 8 ? warp + far : i;
        CHECK_EQ(r[2 * i], want * 3 + 1);
        CHECK_EQ(r[2 * i + 1], (warp + (lane ^ 2)) * 3 + 1);
    }
    CHECK_OK(grFree(r));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_lang_atomics_on_every_type_global_and_shared)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_atomics));
    lang_atomic_cells *g = tl_calloc(sizeof *g);
    const unsigned B = 4, T = 64, N = B * T;
    g->i_min = 1000000;
    g->i_max = -5;
    g->i_and = -1;
    g->u_sub = 10000;
    g->u_min = 0xffffffffu;
    g->u_and = 0xffffffffu;
    g->ull_min = ~0ull;
    g->ull_and = ~0ull;
    g->u_dec = 0;
    void *args[] = {&g};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    long long sum = (long long)N * (N - 1) / 2;
    unsigned xr = 0;
    for (unsigned t = 0; t < N; t++)
        xr ^= t;
    CHECK_EQ(g->i_add, sum);
    CHECK_EQ(g->i_sub, -sum);
    CHECK_EQ(g->i_min, -(int)(N - 1));
    CHECK_EQ(g->i_max, N - 1);
    CHECK_EQ(g->i_and, (int)0x80000000u);
    CHECK_EQ(g->i_or, 0x7fffffff);
    CHECK_EQ(g->i_xor, (int)xr);
    CHECK_EQ(g->i_exch, 7);
    /* CAS t -> t + 1 from 0: every thread's turn comes in some order, and
     * the cell climbs to N only if each found its value; at least 1. */
    CHECK(g->i_cas >= 1 && g->i_cas <= (int)N);
    CHECK_EQ(g->u_add, sum);
    CHECK_EQ(g->u_sub, 10000 - N);
    CHECK_EQ(g->u_min, 5);
    CHECK_EQ(g->u_max, N - 1);
    CHECK_EQ(g->u_and, 0);
    CHECK_EQ(g->u_or, 0xffffffffu);
    CHECK_EQ(g->u_xor, xr);
    CHECK_EQ(g->u_exch, 9);
    CHECK(g->u_cas >= 1 && g->u_cas <= N);
    /* inc wraps to 0 after 99: N increments from 0 leave N % 100. */
    CHECK_EQ(g->u_inc, N % 100);
    /* dec from 0 wraps to 1000, then counts down: N - 1 more steps. */
    CHECK_EQ(g->u_dec, 1000 - (N - 1));
    CHECK(g->ull_add == (unsigned long long)sum << 32);
    CHECK(g->ull_min == 1ull << 40);
    CHECK(g->ull_max == (unsigned long long)(N - 1) << 33);
    CHECK(g->ull_and == 0);
    CHECK(g->ull_or == ~0ull);
    CHECK(g->ull_xor == (unsigned long long)xr << 20);
    CHECK(g->ull_exch == 11);
    CHECK(g->ull_cas >= 1 && g->ull_cas <= N);
    CHECK_EQ(g->ll_min, -3 * (long long)(N - 1));
    CHECK_EQ(g->ll_max, 3 * (long long)(N - 1));
    CHECK(g->f_add == 0.5f * (float)N);
    CHECK(g->f_exch == 2.5f);
    CHECK(g->d_add == 0.25 * N);
    CHECK_EQ(g->shared_u_add, N);
    CHECK_EQ(g->shared_u_max, N - 1);
    CHECK(g->shared_f_add == (float)N);
    CHECK_OK(grFree(g));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_lang_kernels_of_no_parameters_run)
{
    grKernel_t plain, sync;
    CHECK_OK(GR_KERNEL_CREATE(&plain, lang_zero_plain));
    CHECK_OK(GR_KERNEL_CREATE(&sync, lang_zero_sync));
    lang_zero_hits = 0;
    CHECK_OK(grLaunchKernel(plain, GR_DIM3(3, 1, 1), GR_DIM3(5, 1, 1), NULL, 0, NULL));
    CHECK_OK(grLaunchKernel(sync, GR_DIM3(2, 1, 1), GR_DIM3(7, 1, 1), NULL, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(__atomic_load_n(&lang_zero_hits, __ATOMIC_RELAXED), 15 + 1400);
    CHECK_OK(grKernelDestroy(plain));
    CHECK_OK(grKernelDestroy(sync));
}

GR_TEST(kernel_lang_dynamic_shared_memory_is_the_launch_s)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_reverse));
    const unsigned B = 16, T = 192;
    int *x = tl_calloc(B * T * sizeof(int));
    for (unsigned i = 0; i < B * T; i++)
        x[i] = (int)i;
    void *args[] = {&x};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), args, T * sizeof(int), NULL));
    CHECK_OK(grDeviceSynchronize());
    for (unsigned b = 0; b < B; b++)
        for (unsigned t = 0; t < T; t++)
            CHECK_EQ(x[b * T + t], b * T + (T - 1 - t));
    CHECK_OK(grFree(x));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_lang_fiber_stack_size_is_set_per_kernel)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_deep_stack));
    /* 128 KiB of locals per thread: twice the default stack. */
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeCpuStackSize, 256 * 1024));
    CHECK_GR(grErrorInvalidValue, grFuncSetAttribute(k, grFuncAttributeCpuStackSize, -1));
    CHECK_GR(grErrorInvalidValue, grFuncSetAttribute(k, (grFuncAttribute)12345, 1));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncSetAttribute(NULL, grFuncAttributeCpuStackSize, 0));
    const unsigned T = 64, words = 32768;
    unsigned *out = tl_calloc(T * sizeof(unsigned));
    void *args[] = {&out, (void *)&words};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(T, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (unsigned t = 0; t < T; t++) {
        unsigned want = 0;
        for (unsigned i = 0; i < words; i++)
            want += i + t;
        CHECK_EQ(out[t], want);
    }
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(k));
}

/* Launches a 1-block kernel of T threads that faults, and checks that the
 * next synchronisation reports it with the detail's pieces. */
static void expect_fault(grKernel_t k, void **args, unsigned T, const char *const *pieces)
{
    CHECK_OK(grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(T, 1, 1), args, 0, NULL));
    CHECK_GR(grErrorLaunchFailure, grDeviceSynchronize());
    for (int i = 0; pieces[i]; i++)
        CHECK_DETAIL_HAS(pieces[i]);
    /* Sticky, as CUDA's kernel faults, until the device is reset. */
    CHECK_GR(grErrorLaunchFailure, grStreamSynchronize(NULL));
    CHECK_OK(grDeviceReset());
    CHECK_OK(grDeviceSynchronize());
}

GR_TEST(kernel_lang_barrier_after_early_return_is_reported_not_hung)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_early_return));
    int *x = tl_calloc(2 * 64 * sizeof(int));
    unsigned live = 40;
    void *args[] = {&x, &live};
    const char *pieces[] = {"lang_early_return", "block (", "of 64 threads", "0-39 wait at gr_sync_threads",
                            "40-63 returned",    NULL};
    expect_fault(k, args, 64, pieces);
}

GR_TEST(kernel_lang_divergent_barriers_are_reported)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_divergent_sites));
    int *x = tl_calloc(2 * 64 * sizeof(int));
    void *args[] = {&x};
    const char *pieces[] = {"lang_divergent_sites", "two different gr_sync_threads (lines ", NULL};
    expect_fault(k, args, 64, pieces);
}

GR_TEST(kernel_lang_warp_operation_some_lanes_never_reach_is_reported)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_warp_deadlock));
    int *x = tl_calloc(2 * 64 * sizeof(int));
    void *args[] = {&x};
    const char *pieces[] = {"lang_warp_deadlock", "no thread can go on", "0-15 in a warp operation",
                            "16-31 wait at gr_sync_threads", NULL};
    expect_fault(k, args, 32, pieces);
}

GR_TEST(kernel_lang_warp_operation_of_two_masks_is_reported)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_warp_mask_mismatch));
    int *x = tl_calloc(2 * 8 * sizeof(int));
    void *args[] = {&x};
    const char *pieces[] = {"lang_warp_mask_mismatch",
                            "lanes of warp 0 pass different masks (0xffffffff and 0x000000ff)",
                            "0-3 in a warp operation", NULL};
    expect_fault(k, args, 8, pieces);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LANG_ASAN 1
#endif
#endif
#if !defined(LANG_ASAN) && defined(__SANITIZE_ADDRESS__)
#define LANG_ASAN 1
#endif
#ifdef LANG_ASAN
#include <sanitizer/asan_interface.h>

/* ASan builds: a block's shared memory has poisoned bytes on both sides
 * of each GR_SHARED array and right past the launch's sharedMemBytes, so
 * that an overrun of either is reported (use-after-poison) instead of
 * writing into the worker's other memory. */
GR_TEST(kernel_lang_shared_memory_overruns_are_poisoned_under_asan)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_shared_where));
    unsigned long long *out = tl_calloc(3 * sizeof *out);
    void *args[] = {&out};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(64, 1, 1), args, 100, NULL));
    CHECK_OK(grDeviceSynchronize());
    const char *odd = (const char *)(size_t)out[0], *dyn = (const char *)(size_t)out[2];
    CHECK_EQ(out[1], 37 * sizeof(float));
    CHECK(!__asan_address_is_poisoned(odd));
    CHECK(!__asan_address_is_poisoned(odd + out[1] - 1));
    CHECK(__asan_address_is_poisoned(odd + out[1]));
    CHECK(__asan_address_is_poisoned(odd + out[1] + 40));
    CHECK(__asan_address_is_poisoned(odd - 1));
    CHECK(__asan_address_is_poisoned(odd - 64));
    CHECK(!__asan_address_is_poisoned(dyn));
    CHECK(!__asan_address_is_poisoned(dyn + 99));
    CHECK(__asan_address_is_poisoned(dyn + 100));
    CHECK(__asan_address_is_poisoned(dyn + 4096));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(k));
}
#endif
