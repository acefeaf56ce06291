/*
 * test-graph-ids.c - graph, executable and node identity (CUDA 13.1's
 * grGraphGetId, grGraphExecGetId, grGraphNodeGetLocalId,
 * grGraphNodeGetToolsId, grGraphNodeGetContainingGraph).
 */
#include "test.h"

GR_TEST(graph_ids_are_unique_and_name_their_nodes)
{
    grGraph_t a, b, child, c2;
    grGraphNode_t n0, n1, cn, inner, in2;
    grGraph_t x;
    grGraphExec_t e;
    unsigned ia, ib, ic, ie, l0, l1, li;
    unsigned long long t0, t1, ti;
    CHECK_OK(grGraphCreate(&a, 0));
    CHECK_OK(grGraphCreate(&b, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddEmptyNode(&inner, child, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&n0, a, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&n1, a, &n0, 1));
    CHECK_OK(grGraphAddChildGraphNode(&cn, a, &n1, 1, child));
    CHECK_OK(grGraphGetId(a, &ia));
    CHECK_OK(grGraphGetId(b, &ib));
    CHECK(ia != ib);
    CHECK_OK(grGraphInstantiate(&e, a, 0));
    CHECK_OK(grGraphExecGetId(e, &ie));
    CHECK(ie != ia && ie != ib);
    /* Local ids: creation numbers in the node's own graph. */
    CHECK_OK(grGraphNodeGetLocalId(n0, &l0));
    CHECK_OK(grGraphNodeGetLocalId(n1, &l1));
    CHECK_EQ(l0, 0);
    CHECK_EQ(l1, 1);
    /* A child graph node's graph is a copy: its node is in that copy. */
    CHECK_OK(grGraphChildGraphNodeGetGraph(cn, &c2));
    size_t n = 1;
    CHECK_OK(grGraphGetNodes(c2, &in2, &n));
    CHECK_OK(grGraphNodeGetContainingGraph(in2, &x));
    CHECK_PTR_EQ(x, c2);
    CHECK_OK(grGraphNodeGetContainingGraph(n1, &x));
    CHECK_PTR_EQ(x, a);
    CHECK_OK(grGraphGetId(c2, &ic));
    CHECK(ic != ia);
    CHECK_OK(grGraphNodeGetLocalId(in2, &li));
    CHECK_EQ(li, 0);
    /* Tools ids: graph id and local id, unique across graphs. */
    CHECK_OK(grGraphNodeGetToolsId(n0, &t0));
    CHECK_OK(grGraphNodeGetToolsId(n1, &t1));
    CHECK_OK(grGraphNodeGetToolsId(in2, &ti));
    CHECK_EQ(t0, ((unsigned long long)ia << 32) | 0);
    CHECK_EQ(t1, ((unsigned long long)ia << 32) | 1);
    CHECK(ti != t0);
    /* A destroyed node's number is not reused in its graph. */
    grGraphNode_t n2;
    unsigned l2;
    CHECK_OK(grGraphDestroyNode(n1));
    CHECK_OK(grGraphAddEmptyNode(&n2, a, NULL, 0));
    CHECK_OK(grGraphNodeGetLocalId(n2, &l2));
    CHECK(l2 != l1 && l2 != l0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grGraphDestroy(b));
    CHECK_OK(grGraphDestroy(a));
}

GR_TEST(graph_ids_refuse_null_and_dead_handles)
{
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e;
    unsigned id;
    unsigned long long tid;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, g, NULL, 0));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphGetId(g, NULL));
    CHECK_DETAIL_HAS("graphId");
    CHECK_GR(grErrorInvalidValue, grGraphGetId(NULL, &id));
    CHECK_GR(grErrorInvalidValue, grGraphExecGetId(e, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetLocalId(n, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetToolsId(NULL, &tid));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetContainingGraph(n, NULL));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK(grGraphExecGetId(e, &id) != grSuccess); /* as every call on a destroyed executable */
    CHECK_OK(grGraphDestroy(g));
}
