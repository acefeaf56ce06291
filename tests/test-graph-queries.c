/*
 * test-graph-queries.c - every query of the explicit graph API returns
 * what was built: nodes, roots, edges, a node's type, dependencies and
 * dependents, with CUDA's two-call pattern.
 */
#include "testlib.h"

GR_TEST(graph_get_nodes_lists_nodes_in_creation_order)
{
    grGraph_t g;
    grGraphNode_t n[4], got[4];
    size_t count = 0, i;
    tl_diamond(&g, n, tl_noop);
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, 4);
    CHECK_OK(grGraphGetNodes(g, got, &count));
    CHECK_EQ(count, 4);
    for (i = 0; i < 4; i++)
        CHECK_PTR_EQ(got[i], n[i]);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_get_nodes_two_call_pattern_short_and_long_arrays)
{
    grGraph_t g;
    grGraphNode_t n[4], got[6];
    size_t count;
    tl_diamond(&g, n, tl_noop);
    /* A short array: only that many written, count stays the capacity. */
    got[2] = (grGraphNode_t)(uintptr_t)0x1234;
    count = 2;
    CHECK_OK(grGraphGetNodes(g, got, &count));
    CHECK_EQ(count, 2);
    CHECK_PTR_EQ(got[0], n[0]);
    CHECK_PTR_EQ(got[1], n[1]);
    CHECK_PTR_EQ(got[2], (grGraphNode_t)(uintptr_t)0x1234);
    /* A long array: the rest set to NULL, count set to the number. */
    count = 6;
    got[4] = got[5] = (grGraphNode_t)(uintptr_t)0x1234;
    CHECK_OK(grGraphGetNodes(g, got, &count));
    CHECK_EQ(count, 4);
    CHECK_PTR_EQ(got[3], n[3]);
    CHECK_PTR_EQ(got[4], NULL);
    CHECK_PTR_EQ(got[5], NULL);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_get_root_nodes_lists_nodes_without_dependencies)
{
    grGraph_t g;
    grGraphNode_t n[4], extra, got[4];
    size_t count = 0;
    tl_diamond(&g, n, tl_noop);
    CHECK_OK(grGraphAddEmptyNode(&extra, g, NULL, 0));
    CHECK_OK(grGraphGetRootNodes(g, NULL, &count));
    CHECK_EQ(count, 2);
    count = 4;
    CHECK_OK(grGraphGetRootNodes(g, got, &count));
    CHECK_EQ(count, 2);
    CHECK_PTR_EQ(got[0], n[0]);
    CHECK_PTR_EQ(got[1], extra);
    CHECK_PTR_EQ(got[2], NULL);
    CHECK_PTR_EQ(got[3], NULL);
    count = 1;
    CHECK_OK(grGraphGetRootNodes(g, got, &count));
    CHECK_EQ(count, 1);
    CHECK_PTR_EQ(got[0], n[0]);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_get_edges_lists_every_edge_grouped_by_source)
{
    grGraph_t g;
    grGraphNode_t n[4], from[5], to[5];
    size_t count = 0;
    tl_diamond(&g, n, tl_noop);
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &count));
    CHECK_EQ(count, 4);
    count = 5;
    from[4] = to[4] = n[0];
    CHECK_OK(grGraphGetEdges(g, from, to, NULL, &count));
    CHECK_EQ(count, 4);
    CHECK_PTR_EQ(from[0], n[0]);
    CHECK_PTR_EQ(to[0], n[1]);
    CHECK_PTR_EQ(from[1], n[0]);
    CHECK_PTR_EQ(to[1], n[2]);
    CHECK_PTR_EQ(from[2], n[1]);
    CHECK_PTR_EQ(to[2], n[3]);
    CHECK_PTR_EQ(from[3], n[2]);
    CHECK_PTR_EQ(to[3], n[3]);
    CHECK_PTR_EQ(from[4], NULL);
    CHECK_PTR_EQ(to[4], NULL);
    count = 1;
    CHECK_OK(grGraphGetEdges(g, from, to, NULL, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_node_dependencies_and_dependents_round_trip)
{
    grGraph_t g;
    grGraphNode_t n[4], got[3];
    size_t count = 0;
    tl_diamond(&g, n, tl_noop);
    CHECK_OK(grGraphNodeGetDependencies(n[3], NULL, NULL, &count));
    CHECK_EQ(count, 2);
    count = 3;
    got[2] = n[0];
    CHECK_OK(grGraphNodeGetDependencies(n[3], got, NULL, &count));
    CHECK_EQ(count, 2);
    CHECK_PTR_EQ(got[0], n[1]);
    CHECK_PTR_EQ(got[1], n[2]);
    CHECK_PTR_EQ(got[2], NULL);
    count = 0;
    CHECK_OK(grGraphNodeGetDependentNodes(n[0], NULL, NULL, &count));
    CHECK_EQ(count, 2);
    count = 2;
    CHECK_OK(grGraphNodeGetDependentNodes(n[0], got, NULL, &count));
    CHECK_EQ(count, 2);
    CHECK_PTR_EQ(got[0], n[1]);
    CHECK_PTR_EQ(got[1], n[2]);
    count = 1;
    CHECK_OK(grGraphNodeGetDependentNodes(n[0], got, NULL, &count));
    CHECK_EQ(count, 1);
    CHECK_PTR_EQ(got[0], n[1]);
    count = 5;
    CHECK_OK(grGraphNodeGetDependencies(n[0], NULL, NULL, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(grGraphNodeGetDependentNodes(n[3], NULL, NULL, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(grGraphDestroy(g));
}

/* Every kind of GR_GRAPH_NODE_TYPE_LIST keeps CUDA's value and has the
 * name error details and DOT output use; a value that names no kind is
 * "unknown"; the call leaves the last error alone. */
GR_TEST(graph_node_type_name_names_each_kind_with_cuda_values)
{
    static const struct {
        grGraphNodeType type;
        int cuda_value;
        const char *name;
    } want[] = {
        {grGraphNodeTypeKernel, 0, "kernel"},
        {grGraphNodeTypeMemcpy, 1, "memcpy"},
        {grGraphNodeTypeMemset, 2, "memset"},
        {grGraphNodeTypeHost, 3, "host"},
        {grGraphNodeTypeGraph, 4, "child graph"},
        {grGraphNodeTypeEmpty, 5, "empty"},
        {grGraphNodeTypeWaitEvent, 6, "event wait"},
        {grGraphNodeTypeEventRecord, 7, "event record"},
        {grGraphNodeTypeMemAlloc, 10, "mem alloc"},
        {grGraphNodeTypeMemFree, 11, "mem free"},
        {grGraphNodeTypeBatchMemOp, 12, "batch mem op"},
        {grGraphNodeTypeConditional, 13, "conditional"},
        {grGraphNodeTypeCollective, 14, "collective"}, /* graphrt's own: no CUDA value */
    };
    size_t kinds = 0;
    CHECK_GR(grErrorInvalidValue, grGraphCreate(NULL, 0));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ(want[i].type, want[i].cuda_value);
        CHECK(strcmp(grGraphNodeTypeName(want[i].type), want[i].name) == 0);
    }
#define COUNT_KIND(suffix, value, name, word) kinds++;
    GR_GRAPH_NODE_TYPE_LIST(COUNT_KIND)
#undef COUNT_KIND
    CHECK_EQ(kinds, sizeof want / sizeof want[0]);
    CHECK(strcmp(grGraphNodeTypeName(grGraphNodeTypeCount), "unknown") == 0);
    CHECK(strcmp(grGraphNodeTypeName((grGraphNodeType)8), "unknown") == 0);
    CHECK_EQ(grPeekAtLastError(), grErrorInvalidValue);
}

GR_TEST(graph_node_get_type_reports_each_type)
{
    grGraph_t g, child;
    grGraphNode_t n;
    grGraphNodeType t;
    grHostNodeParams hp = {tl_noop, NULL};
    grMemsetParams mp = {0};
    grEvent_t ev;
    char buf[16];
    mp.dst = buf;
    mp.elementSize = 1;
    mp.width = 16;
    mp.height = 1;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grGraphAddEmptyNode(&n, g, NULL, 0));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeEmpty);
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeHost);
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, NULL, 0, buf, buf + 8, 8, grMemcpyHostToHost));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeMemcpy);
    CHECK_OK(grGraphAddMemsetNode(&n, g, NULL, 0, &mp));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeMemset);
    CHECK_OK(grGraphAddChildGraphNode(&n, g, NULL, 0, child));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeGraph);
    CHECK_OK(grGraphAddEventRecordNode(&n, g, NULL, 0, ev));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeEventRecord);
    CHECK_OK(grGraphAddEventWaitNode(&n, g, NULL, 0, ev));
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeWaitEvent);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grEventDestroy(ev));
}

GR_TEST(graph_edges_added_later_are_reported_in_addition_order)
{
    grGraph_t g;
    grGraphNode_t a, b, c, from[2], to[2], got[2];
    size_t count = 2;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&c, g, NULL, 0));
    from[0] = c;
    to[0] = a;
    from[1] = b;
    to[1] = a;
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 2));
    CHECK_OK(grGraphNodeGetDependencies(a, got, NULL, &count));
    CHECK_EQ(count, 2);
    CHECK_PTR_EQ(got[0], c);
    CHECK_PTR_EQ(got[1], b);
    count = 2;
    CHECK_OK(grGraphGetEdges(g, from, to, NULL, &count));
    CHECK_EQ(count, 2);
    /* Grouped by source in creation order: b's edge first. */
    CHECK_PTR_EQ(from[0], b);
    CHECK_PTR_EQ(from[1], c);
    count = 0;
    CHECK_OK(grGraphGetRootNodes(g, NULL, &count));
    CHECK_EQ(count, 2);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_empty_graph_reports_zero_everything)
{
    grGraph_t g;
    grGraphNode_t arr[2] = {(grGraphNode_t)(uintptr_t)8, (grGraphNode_t)(uintptr_t)8};
    grGraphNode_t arr2[2];
    size_t count = 7;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, 0);
    count = 2;
    CHECK_OK(grGraphGetNodes(g, arr, &count));
    CHECK_EQ(count, 0);
    CHECK_PTR_EQ(arr[0], NULL);
    CHECK_PTR_EQ(arr[1], NULL);
    count = 7;
    CHECK_OK(grGraphGetRootNodes(g, NULL, &count));
    CHECK_EQ(count, 0);
    count = 2;
    CHECK_OK(grGraphGetEdges(g, arr, arr2, NULL, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(grGraphDestroy(g));
}
