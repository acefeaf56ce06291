/*
 * test-conditional-limits.c - the bounds of conditional nodes that CUDA
 * leaves open: a SWITCH node has at most GR_COND_SWITCH_MAX bodies, each
 * made when the node is added; larger sizes are refused up front, by the
 * API and by the graph file loader, before any memory is taken.
 * (test-conditional.c holds the behaviours of conditional nodes.)
 */
#include "testlib.h"

#include <limits.h>
#include <unistd.h>

static void add_set(grGraph_t g, grKernel_t k, int **dst, int *v)
{
    void *args[2] = {dst, v};
    (void)tl_add_kernel(g, NULL, 0, k, args, 1);
}

/* A SWITCH of UINT_MAX bodies once took 32 GiB before failing (or the
 * whole memory, with overcommit): sizes above GR_COND_SWITCH_MAX are
 * refused with nothing added, the handle still free; the limit itself is
 * accepted and its last body runs for the largest value. */
GR_TEST_T(cond_switch_size_is_bounded_by_gr_cond_switch_max, 60)
{
    static const unsigned too_big[] = {GR_COND_SWITCH_MAX + 1u, 1u << 24, UINT_MAX};
    grGraph_t g, *bodies = NULL;
    grGraphConditionalHandle h;
    CHECK(GR_COND_SWITCH_MAX >= 1000u); /* CUDA 13 accepts 1000 (probe) */
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, GR_COND_SWITCH_MAX - 1u, grGraphCondAssignDefault));
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        CHECK_GR(grErrorInvalidValue,
                 tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeSwitch, too_big[i], NULL));
        CHECK_DETAIL_HAS("a SWITCH node has at most 65536 bodies");
        CHECK_EQ(tl_node_count(g), 0);
    }
    CHECK_OK(tl_try_add_cond(g, NULL, 0, h, grGraphCondTypeSwitch, GR_COND_SWITCH_MAX, &bodies));
    CHECK_EQ(tl_node_count(g), 1);
    static int out;
    static int *dst = &out;
    static int first = 1, last = 2;
    size_t sizes[2] = {sizeof(int *), sizeof(int)};
    grKernel_t k;
    grGraphExec_t e;
    CHECK_OK(grKernelCreate(&k, tl_store_i32_fn, "limits_set", 2, sizes));
    add_set(bodies[0], k, &dst, &first);
    add_set(bodies[GR_COND_SWITCH_MAX - 1u], k, &dst, &last);
    e = tl_instantiate(g);
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(out, 2);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
}

/* The loader reads no more bodies than the API makes. */
GR_TEST(graph_file_refuses_a_switch_above_gr_cond_switch_max)
{
    char text[160];
    snprintf(
        text, sizeof text,
        "graphrt-graph 1\ncond c0 default=0 flags=0\ngraph {\n  n0 cond c0 type=switch size=%u {\n  }\n}\n",
        GR_COND_SWITCH_MAX + 1u);
    tl_load_refused(text, "4", "field size=65537 is not a number of at most 65536");
}
