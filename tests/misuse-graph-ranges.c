/*
 * misuse-graph-ranges.c - memcpy and memset nodes are bounds-checked
 * against graphrt's allocations exactly as grMemcpyAsync / grMemsetAsync
 * are: when added, when their parameters are set in the graph or in an
 * executable, by grGraphExecUpdate, and again at instantiation and launch
 * when allocations changed since; a copy's memory types (device or host)
 * cannot change in an executable, in either direction; child graphs
 * cannot nest deeper than instantiation accepts.
 */
#include "testlib.h"

#include <stdbool.h>

GR_TEST(memset_node_overrunning_an_allocation_is_refused)
{
    void *dev;
    grGraph_t g;
    grGraphNode_t n;
    CHECK_OK(grMalloc(&dev, 256));
    CHECK_OK(grGraphCreate(&g, 0));
    grMemsetParams mp = {dev, 0, 0xab, 1, 256 + 4096, 1};
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddMemsetNode, &n, g, NULL, 0, &mp);
    CHECK_DETAIL_HAS("past its end");
    CHECK_EQ(tl_node_count(g), 0);
    /* 2D: the last row overruns (4 * 64 + 32 bytes). */
    grMemsetParams m2 = {dev, 64, 0, 1, 32, 5};
    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&n, g, NULL, 0, &m2));
    m2.height = 3; /* 2 * 64 + 32 = 160 bytes: fits */
    CHECK_OK(grGraphAddMemsetNode(&n, g, NULL, 0, &m2));
    CHECK_REFUSED(grErrorInvalidValue, grGraphMemsetNodeSetParams, n, &mp);
    grMemsetParams got;
    CHECK_OK(grGraphMemsetNodeGetParams(n, &got));
    CHECK_EQ(got.height, 3);
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    grMemsetParams over2 = m2;
    over2.dst = (char *)dev + 128; /* same shape, moved: the last row overruns */
    CHECK_REFUSED(grErrorInvalidValue, grGraphExecMemsetNodeSetParams, x, n, &over2);
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
}

GR_TEST(memcpy_node_overrunning_an_allocation_is_refused)
{
    void *dev;
    static char host[8192];
    grGraph_t g;
    grGraphNode_t n;
    CHECK_OK(grMalloc(&dev, 1024));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode1D(&n, g, NULL, 0, dev, host, 2048, grMemcpyDefault));
    CHECK_DETAIL_HAS("destination");
    CHECK_GR(grErrorInvalidValue,
             grGraphAddMemcpyNode1D(&n, g, NULL, 0, host, (char *)dev + 512, 1024, grMemcpyDefault));
    CHECK_DETAIL_HAS("source");
    CHECK_GR(grErrorInvalidValue,
             grGraphAddMemcpyNode1D(&n, g, NULL, 0, dev, host, SIZE_MAX, grMemcpyDefault));
    CHECK_EQ(tl_node_count(g), 0);
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, NULL, 0, dev, host, 1024, grMemcpyDefault));
    CHECK_REFUSED(grErrorInvalidValue, grGraphMemcpyNodeSetParams1D, n, dev, host, 1025, grMemcpyDefault);
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_GR(grErrorInvalidValue,
             grGraphExecMemcpyNodeSetParams1D(x, n, (char *)dev + 1, host, 1024, grMemcpyDefault));
    CHECK_DETAIL_HAS("grGraphExecMemcpyNodeSetParams1D");
    /* An update from a graph whose node overruns is refused too. */
    grGraph_t g2;
    grGraphNode_t n2;
    void *small;
    CHECK_OK(grMalloc(&small, 4096));
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&n2, g2, NULL, 0, small, host, 4096, grMemcpyDefault));
    CHECK_OK(grGraphExecUpdate(x, g2, &(grGraphExecUpdateResultInfo){0}));
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
    CHECK_OK(grFree(small));
}

/* A range checked when its node was made, that an allocation made since
 * overruns: the node's host memory is unmapped and grMalloc blocks fill
 * the address space until one takes its place (blocks of a MiB are
 * mappings of their own, placed top down in the first hole that fits). */
GR_TEST(instantiate_and_launch_check_ranges_again_when_allocations_changed)
{
    size_t big = 4u << 20;
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    /* The node's range: the whole hole, plain host memory when added. */
    char *r = tl_map_hole(big);
    CHECK_OK(grGraphCreate(&g, 0));
    grMemsetParams mp = {r, 0, 1, 1, big, 1};
    CHECK_OK(grGraphAddMemsetNode(&n, g, NULL, 0, &mp));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    void *blocks[64];
    int nb = 0;
    (void)tl_unmap_and_reuse(r, big, blocks, &nb);
    /* The launch finds the overrun instead of writing past the block. */
    CHECK_REFUSED(grErrorInvalidValue, grGraphLaunch, x, NULL);
    CHECK_DETAIL_HAS("memset node");
    CHECK_REFUSED(grErrorInvalidValue, grGraphInstantiate, &(grGraphExec_t){0}, g, 0);
    /* A disabled node is not checked: it does not run. */
    CHECK_OK(grGraphNodeSetEnabled(x, n, 0));
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    for (int i = 0; i < nb; i++)
        CHECK_OK(grFree(blocks[i]));
}

GR_TEST(exec_copy_memory_types_cannot_change_in_either_direction)
{
    static char h1[64], h2[64];
    void *dev;
    CHECK_OK(grMalloc(&dev, 64));
    for (int v = 0; v < 4; v++) {
        grGraph_t g, g2;
        grGraphNode_t n, n2;
        grGraphExec_t x;
        void *d = (v & 1) ? dev : (void *)h1;
        const void *s = (v & 2) ? dev : (const void *)h2;
        bool same = v == 0;
        CHECK_OK(grGraphCreate(&g, 0));
        CHECK_OK(grGraphAddMemcpyNode1D(&n, g, NULL, 0, h1, h2, 64, grMemcpyDefault));
        CHECK_OK(grGraphInstantiate(&x, g, 0));
        CHECK_GR(same ? grSuccess : grErrorInvalidValue,
                 grGraphExecMemcpyNodeSetParams1D(x, n, d, s, 64, grMemcpyDefault));
        CHECK_OK(grGraphCreate(&g2, 0));
        CHECK_OK(grGraphAddMemcpyNode1D(&n2, g2, NULL, 0, d, s, 64, grMemcpyDefault));
        grGraphExecUpdateResultInfo info;
        CHECK_GR(same ? grSuccess : grErrorGraphExecUpdateFailure, grGraphExecUpdate(x, g2, &info));
        if (!same) {
            CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
            CHECK_PTR_EQ(info.errorNode, n2);
        }
        CHECK_OK(grGraphExecDestroy(x));
        CHECK_OK(grGraphDestroy(g));
        CHECK_OK(grGraphDestroy(g2));
    }
    /* And from device memory to host memory. */
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, NULL, 0, dev, h2, 64, grMemcpyDefault));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams1D(x, n, h1, h2, 64, grMemcpyDefault));
    CHECK_DETAIL_HAS("memory types cannot change");
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
}

GR_TEST(child_graph_nesting_deeper_than_instantiate_takes_is_refused)
{
    grGraph_t inner, outer;
    grGraphNode_t n;
    CHECK_OK(grGraphCreate(&inner, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, inner, NULL, 0));
    int depth;
    for (depth = 1; depth <= 1000; depth++) {
        CHECK_OK(grGraphCreate(&outer, 0));
        grError_t e = grGraphAddChildGraphNode(&n, outer, NULL, 0, inner);
        if (e != grSuccess) {
            CHECK_EQ(e, grErrorInvalidValue);
            CHECK_DETAIL_HAS("grGraphAddChildGraphNode");
            CHECK_DETAIL_HAS("64 levels");
            CHECK_EQ(tl_node_count(outer), 0);
            CHECK_OK(grGraphDestroy(outer));
            break;
        }
        CHECK_OK(grGraphDestroy(inner));
        inner = outer;
    }
    CHECK_EQ(depth, 65);
    /* The deepest nest accepted instantiates. */
    tl_run_graph(inner);
    /* Nesting through a child graph's own graph counts its enclosing
     * levels: one more level inside the innermost child is refused. */
    grGraph_t g = inner, child;
    for (int i = 0; i < 64; i++) {
        size_t cnt = 1;
        grGraphNode_t only;
        CHECK_OK(grGraphGetNodes(g, &only, &cnt));
        CHECK_OK(grGraphChildGraphNodeGetGraph(only, &child));
        g = child;
    }
    grGraph_t leaf;
    CHECK_OK(grGraphCreate(&leaf, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, leaf, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAddChildGraphNode(&n, g, NULL, 0, leaf));
    CHECK_OK(grGraphDestroy(leaf));
    CHECK_OK(grGraphDestroy(inner));
}

/* A memset node of rows with no bytes writes nothing, however many rows
 * it names (a mutated graph file found that SIZE_MAX rows of width 0
 * looped for ever at launch). */
GR_TEST(memset_node_of_empty_rows_writes_nothing_and_ends)
{
    unsigned char *dev;
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grMalloc((void **)&dev, 256));
    CHECK_OK(grMemset(dev, 7, 256));
    CHECK_OK(grGraphCreate(&g, 0));
    grMemsetParams mp = {dev, 0, 0xab, 1, 0, SIZE_MAX};
    CHECK_OK(grGraphAddMemsetNode(&n, g, NULL, 0, &mp));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    unsigned char host[256];
    CHECK_OK(grMemcpy(host, dev, 256, grMemcpyDeviceToHost));
    for (int i = 0; i < 256; i++)
        CHECK_EQ(host[i], 7);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(dev));
}
