/*
 * test-plan-memory.c - the memory of large plans (src/core/bigmem.c):
 * blocks are kept after they are freed and reused, keep their contents
 * across a resize, and plans built in reused memory (whose countdowns
 * must be zeroed again) run exactly as plans built in fresh memory.
 */
#include "../test.h"

#include "../../src/core/core.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BIG ((size_t)3 << 20) /* above the mapping threshold, with huge pages */

/* A block of BIG bytes filled with 'byte' and freed; its address. */
static void *freed_block(int byte)
{
    unsigned char *a = gr__big_alloc(BIG);
    CHECK(a != NULL);
    memset(a, byte, BIG);
    gr__big_free(a);
    return a;
}

static size_t nonzero_bytes(const unsigned char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] != 0;
    return k;
}

GR_TEST(big_blocks_freed_are_reused)
{
    void *a = freed_block(0xab);
    unsigned char *b = gr__big_alloc(BIG);
    CHECK(b != NULL);
    if (gr__big_maps())
        CHECK_PTR_EQ(b, a); /* the kept block, not a fresh one */
    gr__big_free(b);
}

GR_TEST(big_realloc_keeps_contents_growing_and_shrinking)
{
    size_t sizes[] = {1000, (size_t)40 << 10, BIG, (size_t)9 << 20, (size_t)100 << 10, 64};
    uint32_t *p = NULL;
    size_t have = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s] / sizeof *p, keep = n < have ? n : have;
        uint32_t *q = gr__big_realloc(p, n * sizeof *p);
        CHECK(q != NULL);
        for (size_t i = 0; i < keep; i++)
            if (q[i] != (uint32_t)(i * 2654435761u))
                GR_TEST_FAIL_("size %zu: word %zu changed", sizes[s], i);
        for (size_t i = keep; i < n; i++)
            q[i] = (uint32_t)(i * 2654435761u);
        p = q;
        have = n;
    }
    gr__big_free(p);
}

GR_TEST(big_blocks_are_given_back_when_the_cache_is_off)
{
    setenv("GRAPHRT_PLAN_CACHE_MB", "0", 1);
    (void)freed_block(0xef);
    /* A fresh mapping reads as zeros; a kept block would still hold 0xef. */
    unsigned char *b = gr__big_alloc(BIG);
    CHECK(b != NULL);
    if (gr__big_maps())
        CHECK_EQ(nonzero_bytes(b, BIG), 0);
    gr__big_free(b);
    unsetenv("GRAPHRT_PLAN_CACHE_MB");
}

/* ------------------------------------------------ plans in reused memory */

static atomic_int order_seen[4096];
static atomic_int clock_now;

static void stamp(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    atomic_store(&order_seen[*(int *)args[0]], atomic_fetch_add(&clock_now, 1) + 1);
}

/* A layered DAG of n kernel nodes: node i depends on i - 1 and, every
 * 'stride' nodes, on i - stride too (several predecessors each). */
static grGraph_t layered(grKernel_t k, int n, int stride, grGraphNode_t *nodes)
{
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    for (int i = 0; i < n; i++) {
        grGraphNode_t deps[2];
        size_t nd = 0;
        if (i >= 1)
            deps[nd++] = nodes[i - 1];
        if (i >= stride && i % stride == 0)
            deps[nd++] = nodes[i - stride];
        void *args[1] = {&i};
        grKernelNodeParams p = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        CHECK_OK(grGraphAddKernelNode(&nodes[i], g, nd ? deps : NULL, nd, &p));
    }
    return g;
}

/* Replays e and checks that every one of n nodes ran once, after its
 * predecessors. */
static void replay_and_check(grGraphExec_t e, int n, int stride)
{
    for (int i = 0; i < n; i++)
        atomic_store(&order_seen[i], 0);
    atomic_store(&clock_now, 0);
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&clock_now), n);
    for (int i = 0; i < n; i++) {
        int t = atomic_load(&order_seen[i]);
        CHECK(t > 0);
        if (i >= 1)
            CHECK(t > atomic_load(&order_seen[i - 1]));
        if (i >= stride && i % stride == 0)
            CHECK(t > atomic_load(&order_seen[i - stride]));
    }
}

GR_TEST(plans_built_in_reused_memory_run_like_fresh_ones)
{
    static grGraphNode_t nodes[4096];
    size_t psz = sizeof(int);
    grKernel_t k;
    /* Two workers: the first launches of a plan count predecessors down
     * and hand nodes over, which reads every array of the plan. */
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grDeviceReset());
    CHECK_OK(grKernelCreate(&k, stamp, "plan_memory_stamp", 1, &psz));
    /* Shapes of different sizes (4096 nodes: plan arrays of a few hundred
     * KiB, mapped) so that each plan reuses blocks the one before freed
     * with other contents, cut down or not. */
    int sizes[] = {4096, 3000, 4096, 1000, 4000};
    int strides[] = {7, 3, 64, 2, 5};
    grGraphExec_t keep = NULL;
    for (int r = 0; r < 5; r++) {
        grGraph_t g = layered(k, sizes[r], strides[r], nodes);
        grGraphExec_t e;
        CHECK_OK(grGraphInstantiate(&e, g, 0));
        CHECK_OK(grGraphDestroy(g));
        replay_and_check(e, sizes[r], strides[r]);
        replay_and_check(e, sizes[r], strides[r]);
        if (r == 1) {
            keep = e; /* alive while later plans take the kept blocks */
            continue;
        }
        CHECK_OK(grGraphExecDestroy(e));
    }
    replay_and_check(keep, sizes[1], strides[1]);
    CHECK_OK(grGraphExecDestroy(keep));
    CHECK_OK(grKernelDestroy(k));
}
