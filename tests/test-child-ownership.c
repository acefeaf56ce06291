/*
 * test-child-ownership.c - child-graph nodes added with grGraphAddNode and
 * an ownership (CUDA 12.9): Clone copies, Move hands the graph to the
 * node, and a moved graph is refused where CUDA refuses it; a refused
 * move leaves the graph the caller's.
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
    grGraphNode_t node, n2, en;
    grGraphExec_t x, px;
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddEmptyNode(&en, child, NULL, 0));
    grGraphNodeParams p = child_params(child, grGraphChildGraphOwnershipMove);
    CHECK_OK(grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    CHECK_GR(grErrorInvalidValue, grGraphDestroy(child));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&x, child, 0));
    CHECK_DETAIL_HAS("moved");
    /* Moved again, into another parent: refused, nothing added. */
    size_t nn = 9;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&n2, other, NULL, NULL, 0, &p));
    CHECK_OK(grGraphGetNodes(other, NULL, &nn));
    CHECK_EQ(nn, 0);
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
    grGraph_t copy = NULL;
    CHECK_OK(grGraphChildGraphNodeGetGraph(n2, &copy));
    CHECK(copy != child);
    CHECK_OK(grGraphExecDestroy(px));
    CHECK_OK(grGraphDestroy(other));
    CHECK_OK(grGraphDestroy(parent));
}

GR_TEST(child_ownership_refused_move_leaves_the_graph_the_callers)
{
    grGraph_t parent, child, mem;
    grGraphNode_t node, an, en;
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddEmptyNode(&en, child, NULL, 0));
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
    /* Memory nodes: CUDA moves such a graph, graphrt refuses it. */
    CHECK_OK(grGraphCreate(&mem, 0));
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 256);
    CHECK_OK(grGraphAddMemAllocNode(&an, mem, NULL, 0, &ap));
    p = child_params(mem, grGraphChildGraphOwnershipMove);
    CHECK_GR(grErrorNotSupported, grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("does not yet");
    p = child_params(mem, grGraphChildGraphOwnershipClone);
    CHECK_GR(grErrorNotSupported, grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    size_t nn = 9;
    CHECK_OK(grGraphGetNodes(parent, NULL, &nn));
    CHECK_EQ(nn, 0);
    CHECK_OK(grGraphDestroy(mem));
    CHECK_OK(grGraphDestroy(child));
    /* Any value but Move clones, as CUDA answers ownership 2. */
    CHECK_OK(grGraphCreate(&child, 0));
    p = child_params(child, 2);
    CHECK_OK(grGraphAddNode(&node, parent, NULL, NULL, 0, &p));
    grGraph_t seen = NULL;
    CHECK_OK(grGraphChildGraphNodeGetGraph(node, &seen));
    CHECK(seen != child);
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grGraphDestroy(parent));
}
