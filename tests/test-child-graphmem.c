/*
 * test-child-graphmem.c - graph memory inside a child graph moved into its
 * node (grGraphChildGraphOwnershipMove, CUDA 12.9): the executable of the
 * parent maps the child's allocations like its own, a free node may sit in
 * the child or the parent, an allocation the graph does not free follows
 * the relaunch rule, pages are shared across the child's boundary only
 * where the edges order the lifetimes, and the parent keeps CUDA's rules
 * for graphs with memory nodes.
 */
#include "testlib.h"
#include "fakedev/fakedev.h"

#include <string.h>

#define BYTES 65536 /* whole pages: no rounding in the footprint checks */

static grGraphNodeParams move_params(grGraph_t child)
{
    grGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeGraph;
    p.graph.graph = child;
    p.graph.ownership = grGraphChildGraphOwnershipMove;
    return p;
}

/* Moves child into a new node of g after deps[0..nd). */
static grGraphNode_t add_moved(grGraph_t g, const grGraphNode_t *deps, size_t nd, grGraph_t child)
{
    grGraphNode_t n = NULL;
    grGraphNodeParams p = move_params(child);
    CHECK_OK(grGraphAddNode(&n, g, deps, NULL, nd, &p));
    return n;
}

static grGraphNode_t add_memset(grGraph_t g, const grGraphNode_t *deps, size_t nd, void *p, unsigned v)
{
    grGraphNode_t n = NULL;
    grMemsetParams mp = tl_memset_params(p, v, 1, BYTES, 1, 0);
    CHECK_OK(grGraphAddMemsetNode(&n, g, deps, nd, &mp));
    return n;
}

static grGraphNode_t add_copy(grGraph_t g, const grGraphNode_t *deps, size_t nd, void *dst, const void *src)
{
    grGraphNode_t n = NULL;
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, deps, nd, dst, src, BYTES, grMemcpyDefault));
    return n;
}

static grGraphNode_t add_free(grGraph_t g, const grGraphNode_t *deps, size_t nd, void *p)
{
    grGraphNode_t n = NULL;
    CHECK_OK(grGraphAddMemFreeNode(&n, g, deps, nd, p));
    return n;
}

/* A child graph: alloc -> memset(v) -> copy into out, then a free node
 * when 'free_it'. The allocation's address into *p. */
static grGraph_t child_alloc_set_copy(unsigned char *out, unsigned v, bool free_it, void **p)
{
    grGraph_t c;
    CHECK_OK(grGraphCreate(&c, 0));
    grGraphNode_t a = tl_add_alloc(c, NULL, 0, 0, BYTES, p);
    grGraphNode_t m = add_memset(c, &a, 1, *p, v);
    grGraphNode_t k = add_copy(c, &m, 1, out, *p);
    if (free_it)
        add_free(c, &k, 1, *p);
    return c;
}

static void launch_sync(grGraphExec_t e, grStream_t s)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
}

static void check_bytes(const unsigned char *h, unsigned char v)
{
    CHECK_EQ(h[0], v);
    CHECK_EQ(h[BYTES - 1], v);
}

GR_TEST(child_graphmem_moved_child_allocates_and_frees_inside)
{
    grStream_t s = tl_stream(0);
    grGraph_t parent;
    grGraphExec_t e;
    void *p;
    unsigned char *out = tl_calloc(BYTES);
    CHECK_OK(grGraphCreate(&parent, 0));
    grGraph_t child = child_alloc_set_copy(out, 5, true, &p);
    add_moved(parent, NULL, 0, child);
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    /* The parent's executable maps the child's allocation. */
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), BYTES);
    for (int round = 0; round < 3; round++) {
        memset(out, 0, BYTES);
        launch_sync(e, s);
        check_bytes(out, 5);
    }
    /* Only one executable at a time, as for a top-level allocation. */
    grGraphExec_t e2;
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, parent, 0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_OK(grGraphInstantiate(&e2, parent, 0));
    launch_sync(e2, s);
    check_bytes(out, 5);
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grFree(out));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(child_graphmem_parent_frees_the_childs_allocation_after_its_node)
{
    grStream_t s = tl_stream(0);
    grGraph_t parent;
    grGraphExec_t e;
    grGraphNode_t fn;
    void *p;
    unsigned char *out = tl_calloc(BYTES), *out2 = tl_calloc(BYTES);
    CHECK_OK(grGraphCreate(&parent, 0));
    grGraph_t child = child_alloc_set_copy(out, 7, false, &p);
    grGraphNode_t cn = add_moved(parent, NULL, 0, child);
    /* A free node that the child-graph node does not reach: refused. */
    grGraphNode_t lone = tl_add_host(parent, NULL, 0, tl_noop, NULL);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&fn, parent, &lone, 1, p));
    CHECK_DETAIL_HAS("held by");
    /* The allocation stays valid in the parent after the child's node. */
    grGraphNode_t k = add_copy(parent, &cn, 1, out2, p);
    add_free(parent, &k, 1, p);
    /* Freed once in its graph: a second free node is refused. */
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&fn, parent, &k, 1, p));
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    /* Freed by the launch: launching again is allowed. */
    for (int round = 0; round < 2; round++) {
        memset(out2, 0, BYTES);
        launch_sync(e, s);
        check_bytes(out2, 7);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grFree(out));
    CHECK_OK(grFree(out2));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(child_graphmem_unfreed_child_allocation_follows_the_relaunch_rule)
{
    grStream_t s = tl_stream(0);
    grGraph_t parent;
    grGraphExec_t e;
    void *p;
    unsigned char *out = tl_calloc(BYTES);
    CHECK_OK(grGraphCreate(&parent, 0));
    add_moved(parent, NULL, 0, child_alloc_set_copy(out, 3, false, &p));
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    launch_sync(e, s);
    check_bytes(out, 3);
    /* Still allocated after the launch: stream work may use it... */
    CHECK_OK(grMemsetAsync(p, 9, BYTES, s));
    CHECK_OK(grMemcpyAsync(out, p, BYTES, grMemcpyDefault, s));
    CHECK_OK(grStreamSynchronize(s));
    check_bytes(out, 9);
    /* ...and the executable cannot run again until it is freed. */
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("still allocated");
    CHECK_OK(grFreeAsync(p, s));
    launch_sync(e, s);
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grGraphExecDestroy(e));
    /* With AutoFreeOnLaunch, relaunching frees it. */
    CHECK_OK(grGraphInstantiateWithFlags(&e, parent, grGraphInstantiateFlagAutoFreeOnLaunch));
    launch_sync(e, s);
    launch_sync(e, s);
    check_bytes(out, 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grFree(out));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(child_graphmem_parents_allocation_freed_in_the_moved_child)
{
    grStream_t s = tl_stream(0);
    grGraph_t parent, child, child2;
    grGraphExec_t e;
    grGraphNode_t n;
    void *p;
    unsigned char *out = tl_calloc(BYTES);
    CHECK_OK(grGraphCreate(&parent, 0));
    grGraphNode_t a = tl_add_alloc(parent, NULL, 0, 0, BYTES, &p);
    grGraphNode_t m = add_memset(parent, &a, 1, p, 4);
    /* The child copies the parent's allocation out and frees it. */
    CHECK_OK(grGraphCreate(&child, 0));
    grGraphNode_t k = add_copy(child, NULL, 0, out, p);
    add_free(child, &k, 1, p);
    /* Moved without depending on the allocation node: refused, and the
     * graph stays the caller's. */
    grGraphNodeParams mp = move_params(child);
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&n, parent, NULL, NULL, 0, &mp));
    CHECK_DETAIL_HAS("must depend");
    /* After it: accepted, and the parent's allocation counts as freed. */
    add_moved(parent, &m, 1, child);
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    for (int round = 0; round < 2; round++) {
        memset(out, 0, BYTES);
        launch_sync(e, s);
        check_bytes(out, 4);
    }
    CHECK_OK(grGraphExecDestroy(e));
    /* A graph freeing a child's allocation before the child is moved in
     * cannot order that free after the child's node: refused. */
    void *q;
    grGraph_t other;
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphCreate(&child2, 0));
    tl_add_alloc(child2, NULL, 0, 0, BYTES, &q);
    add_free(other, NULL, 0, q);
    mp = move_params(child2);
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&n, other, NULL, NULL, 0, &mp));
    CHECK_EQ(tl_node_count(other), 1);
    tl_destroy_graphs((grGraph_t[]){other, child2, parent}, 3);
    CHECK_OK(grFree(out));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(child_graphmem_pages_are_shared_across_the_child_only_when_ordered)
{
    grGraph_t g1, g2;
    grGraphExec_t e;
    void *p, *q, *r;
    unsigned char *out = tl_calloc(BYTES);
    /* alloc p -> free p -> child(alloc q -> ... -> free q): one slot. */
    CHECK_OK(grGraphCreate(&g1, 0));
    grGraphNode_t a = tl_add_alloc(g1, NULL, 0, 0, BYTES, &p);
    grGraphNode_t f = add_free(g1, &a, 1, p);
    add_moved(g1, &f, 1, child_alloc_set_copy(out, 1, true, &q));
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), BYTES);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(0));
    /* Two children side by side, and an allocation beside them: three. */
    CHECK_OK(grGraphCreate(&g2, 0));
    add_moved(g2, NULL, 0, child_alloc_set_copy(out, 1, true, &q));
    add_moved(g2, NULL, 0, child_alloc_set_copy(out, 2, true, &r));
    a = tl_add_alloc(g2, NULL, 0, 0, BYTES, &p);
    add_free(g2, &a, 1, p);
    CHECK_OK(grGraphInstantiate(&e, g2, 0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), 3 * BYTES);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(0));
    tl_destroy_graphs((grGraph_t[]){g1, g2}, 2);
    CHECK_OK(grFree(out));
}

GR_TEST(child_graphmem_parent_keeps_the_rules_of_graphs_with_memory_nodes)
{
    grGraph_t parent, clone, other, top, outer;
    grGraphNode_t n, host;
    grGraphExec_t e;
    void *p, *q;
    unsigned char *out = tl_calloc(BYTES);
    CHECK_OK(grGraphCreate(&parent, 0));
    host = tl_add_host(parent, NULL, 0, tl_noop, NULL);
    grGraph_t child = child_alloc_set_copy(out, 1, true, &p);
    grGraphNode_t cn = add_moved(parent, &host, 1, child);
    /* Not cloned, not embedded by a clone, nothing deleted. */
    CHECK_GR(grErrorNotSupported, grGraphClone(&clone, parent));
    CHECK_OK(grGraphCreate(&other, 0));
    grGraphNodeParams cp = move_params(parent);
    cp.graph.ownership = grGraphChildGraphOwnershipClone;
    CHECK_GR(grErrorNotSupported, grGraphAddNode(&n, other, NULL, NULL, 0, &cp));
    CHECK_GR(grErrorNotSupported, grGraphAddChildGraphNode(&n, other, NULL, 0, parent));
    CHECK_GR(grErrorNotSupported, grGraphDestroyNode(cn));
    grGraph_t empty;
    CHECK_OK(grGraphCreate(&empty, 0));
    grGraphNodeParams ep = move_params(empty);
    ep.graph.ownership = grGraphChildGraphOwnershipClone;
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(cn, &ep));
    CHECK_OK(grGraphDestroy(empty));
    CHECK_GR(grErrorNotSupported, grGraphRemoveDependencies(parent, &host, &cn, NULL, 1));
    /* The moved child: no memory node joins it, and it is not run alone. */
    grMemAllocNodeParams ap = tl_alloc_params(0, 256);
    CHECK_GR(grErrorNotSupported, grGraphAddMemAllocNode(&n, child, NULL, 0, &ap));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e, child, 0));
    /* A child-graph node's setters take no graph with memory nodes. */
    grGraph_t plain;
    CHECK_OK(grGraphCreate(&plain, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, parent, NULL, 0, plain));
    grGraph_t c2 = child_alloc_set_copy(out, 2, true, &q);
    grGraphNodeParams sp = move_params(c2);
    CHECK_GR(grErrorNotSupported, grGraphNodeSetParams(n, &sp));
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    /* A graph that does not pair is refused as CUDA refuses any (update
     * failure); one that pairs, for holding memory nodes. */
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecChildGraphNodeSetParams(e, n, c2));
    CHECK_GR(grErrorNotSupported, grGraphExecChildGraphNodeSetParams(e, cn, c2));
    CHECK_DETAIL_HAS("memory allocation or free nodes");
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(0));
    /* A graph with memory nodes moves into a top-level graph only. */
    grGraph_t inner = NULL;
    CHECK_OK(grGraphChildGraphNodeGetGraph(n, &inner));
    grGraphNodeParams mp = move_params(c2);
    CHECK_GR(grErrorNotSupported, grGraphAddNode(&n, inner, NULL, NULL, 0, &mp));
    CHECK_DETAIL_HAS("top-level");
    grGraphConditionalHandle h;
    grGraph_t *bodies = NULL;
    CHECK_OK(grGraphConditionalHandleCreate(&h, other, 1, grGraphCondAssignDefault));
    tl_add_cond(other, NULL, 0, h, grGraphCondTypeIf, 1, &bodies);
    CHECK_GR(grErrorNotSupported, grGraphAddNode(&n, bodies[0], NULL, NULL, 0, &mp));
    /* Nested moves: parent, holding c2's memory nodes, moves into top.
     * c2 after the first child, as both copy into out; its allocation
     * then reuses the first one's memory. */
    add_moved(parent, &cn, 1, c2);
    CHECK_OK(grGraphCreate(&top, 0));
    add_moved(top, NULL, 0, parent);
    CHECK_GR(grErrorNotSupported, grGraphClone(&clone, top));
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, top, 0));
    CHECK_EQ(tl_graph_mem_attr(0, grGraphMemAttrReservedMemCurrent), BYTES);
    launch_sync(e, s);
    CHECK_EQ(out[0], 2);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(0));
    /* And top moves on again into outer. */
    CHECK_OK(grGraphCreate(&outer, 0));
    add_moved(outer, NULL, 0, top);
    CHECK_OK(grGraphInstantiate(&e, outer, 0));
    launch_sync(e, s);
    CHECK_OK(grGraphExecDestroy(e));
    tl_destroy_graphs((grGraph_t[]){other, plain, outer}, 3);
    CHECK_OK(grFree(out));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(child_graphmem_update_from_a_parent_of_the_same_shape)
{
    grStream_t s = tl_stream(0);
    grGraph_t g1, g2;
    grGraphExec_t e, e1;
    void *p1, *p2;
    unsigned char *out = tl_calloc(BYTES);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphCreate(&g1, 0));
    add_moved(g1, NULL, 0, child_alloc_set_copy(out, 1, true, &p1));
    CHECK_OK(grGraphCreate(&g2, 0));
    add_moved(g2, NULL, 0, child_alloc_set_copy(out, 2, true, &p2));
    CHECK(p1 != p2);
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    launch_sync(e, s);
    check_bytes(out, 1);
    /* The executable maps g2's allocation from now on, and gives g1's
     * back: g1 may be instantiated again. */
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    launch_sync(e, s);
    check_bytes(out, 2);
    CHECK_OK(grGraphInstantiate(&e1, g1, 0));
    launch_sync(e1, s);
    check_bytes(out, 1);
    CHECK_OK(grGraphExecDestroy(e1));
    CHECK_OK(grGraphExecDestroy(e));
    tl_destroy_graphs((grGraph_t[]){g1, g2}, 2);
    CHECK_OK(grFree(out));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(fake_device_maps_a_moved_childs_graph_memory)
{
    grGraph_t parent, child;
    grGraphExec_t e;
    grStream_t s;
    void *p;
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grGraphCreate(&parent, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    grGraphNode_t a = tl_add_alloc(child, NULL, 0, 1, BYTES, &p);
    add_free(child, &a, 1, p);
    add_moved(parent, NULL, 0, child);
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    /* The child's allocation on the device's physical block, and the
     * graph lowered in one piece. */
    CHECK_EQ(gr_fakedev_calls("vmm_create"), 1u);
    CHECK_EQ(gr_fakedev_calls("vmm_map"), 1u);
    CHECK_EQ(gr_fakedev_calls("exec_lower"), 1u);
    CHECK(tl_graph_mem_attr(1, grGraphMemAttrReservedMemCurrent) >= BYTES);
    launch_sync(e, s);
    launch_sync(e, s);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grDeviceGraphMemTrim(1));
    CHECK_EQ(tl_graph_mem_attr(1, grGraphMemAttrReservedMemCurrent), 0);
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(child_graphmem_graph_file_refuses_a_moved_childs_memory_nodes)
{
    grGraph_t parent;
    void *p;
    unsigned char *out = tl_calloc(BYTES);
    CHECK_OK(grGraphCreate(&parent, 0));
    add_moved(parent, NULL, 0, child_alloc_set_copy(out, 1, true, &p));
    CHECK_GR(grErrorNotSupported, grGraphSaveToFile(parent, "/dev/null", 0));
    CHECK_DETAIL_HAS("top-level graph only");
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grFree(out));
}
