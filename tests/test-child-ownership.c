/*
 * test-child-ownership.c - child-graph nodes added with grGraphAddNode and
 * an ownership (CUDA 12.9): Clone copies, Move hands the graph to the
 * node, and a moved graph is refused where CUDA refuses it; a refused
 * move leaves the graph the caller's. Moved graphs holding memory nodes:
 * test-child-graphmem.c.
 */
#include "testlib.h"

#include <string.h>

static grGraphNodeParams child_params(grGraph_t child, int ownership)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeGraph;
    p.graph.graph = child;
    p.graph.ownership = (grGraphChildGraphNodeOwnership)ownership;
    return p;
}

/* The child graph node 'node' holds a copy of child, not child itself. */
static void expect_a_copy_of(grGraphNode_t node, grGraph_t child)
{
    grGraph_t held = NULL;
    CHECK_OK(grGraphChildGraphNodeGetGraph(node, &held));
    CHECK(held != NULL);
    CHECK(held != child);
}

/* Creates *g holding one empty node, which it returns. */
static grGraphNode_t graph_of_one_empty_node(grGraph_t *g)
{
    grGraphNode_t n;
    CHECK_OK(grGraphCreate(g, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, *g, NULL, 0));
    return n;
}

GR_TEST(child_ownership_move_hands_the_graph_to_the_node)
{
    grGraph_t parent, child, seen = NULL;
    grGraphNode_t node, hn;
    int n = 0;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    grHostNodeParams hp = {tl_bump, &n};
    CHECK_OK(grGraphAddHostNode(&hn, child, NULL, 0, &hp));
    grGraphNodeParams p = child_params(child, grGraphChildGraphOwnershipMove);
    CHECK_OK(grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    /* The node holds the graph itself, not a copy. */
    CHECK_OK(grGraphChildGraphNodeGetGraph(node, &seen));
    CHECK_PTR_EQ(seen, child);
    /* Nodes may still be added to it (CUDA 13 accepts that), and they run. */
    CHECK_OK(grGraphAddHostNode(&hn, child, &hn, 1, &hp));
    tl_run_graph_on(parent, s);
    CHECK_EQ(n, 2);
    /* A query reports the ownership as Invalid. */
    grGraphNodeParams q;
    CHECK_OK(grGraphNodeGetParams(node, &q));
    CHECK_PTR_EQ(q.graph.graph, child);
    CHECK_EQ(q.graph.ownership, grGraphChildGraphOwnershipInvalid);
    /* The moved graph dies with the parent. */
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(child_ownership_moved_graph_is_refused_where_cuda_refuses_it)
{
    grGraph_t parent, other, child;
    grGraphNode_t node, n2;
    grGraphExec_t x, px;
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphCreate(&other, 0));
    graph_of_one_empty_node(&child);
    grGraphNodeParams p = child_params(child, grGraphChildGraphOwnershipMove);
    CHECK_OK(grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    CHECK_GR(grErrorInvalidValue, grGraphDestroy(child));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&x, child, 0));
    CHECK_DETAIL_HAS("moved");
    /* Moved again, into another parent: refused, nothing added. */
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&n2, other, NULL, NULL, 0, &p));
    CHECK_EQ(tl_node_count(other), 0);
    /* As an update's graph: refused. */
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphInstantiate(&px, parent, 0));
    CHECK_GR(grErrorNotSupported, grGraphExecUpdate(px, child, &info));
    /* No memory nodes may be added to it. */
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 256);
    CHECK_GR(grErrorNotSupported, grGraphAddMemAllocNode(&n2, child, NULL, 0, &ap));
    /* Cloning it into another parent is fine (a copy). */
    grGraphNodeParams c = child_params(child, grGraphChildGraphOwnershipClone);
    CHECK_OK(grGraphAddNode(&n2, other, NULL, NULL, 0, &c));
    expect_a_copy_of(n2, child);
    CHECK_OK(grGraphExecDestroy(px));
    tl_destroy_graphs((grGraph_t[]){other, parent}, 2);
}

GR_TEST(child_ownership_refused_move_leaves_the_graph_the_callers)
{
    grGraph_t parent, child, mem;
    grGraphNode_t node, an, en;
    CHECK_OK(grGraphCreate(&parent, 0));
    en = graph_of_one_empty_node(&child);
    /* Itself. */
    grGraphNodeParams p = child_params(parent, grGraphChildGraphOwnershipMove);
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    /* A dependency from another graph: refused before anything moves. */
    grGraphNode_t foreign = en;
    p = child_params(child, grGraphChildGraphOwnershipMove);
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&node, parent, &foreign, NULL, 1, &p));
    /* The graph is still the caller's: it instantiates and destroys. */
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, child, 0));
    CHECK_OK(grGraphExecDestroy(x));
    /* Memory nodes: cloned, refused (moved: test-child-graphmem.c); moved
     * after a dependency of another graph, refused, the graph kept. */
    CHECK_OK(grGraphCreate(&mem, 0));
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 256);
    CHECK_OK(grGraphAddMemAllocNode(&an, mem, NULL, 0, &ap));
    p = child_params(mem, grGraphChildGraphOwnershipClone);
    CHECK_GR(grErrorNotSupported, grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("by cloning");
    p = child_params(mem, grGraphChildGraphOwnershipMove);
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&node, parent, &foreign, NULL, 1, &p));
    CHECK_EQ(tl_node_count(parent), 0);
    CHECK_OK(grGraphInstantiate(&x, mem, 0));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(mem));
    CHECK_OK(grGraphDestroy(child));
    /* Any value but Move clones, as CUDA answers ownership 2. */
    CHECK_OK(grGraphCreate(&child, 0));
    p = child_params(child, 2);
    CHECK_OK(grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    expect_a_copy_of(node, child);
    tl_destroy_graphs((grGraph_t[]){child, parent}, 2);
}
