/*
 * test-graph-build.c - building and editing graphs by hand: parameters are
 * copied at add/set time and read back as set, edges are removed and nodes
 * destroyed cleanly, child-graph nodes own a copy of their graph, clones
 * map every node and keep every edge.
 */
#include "testlib.h"

static void other_fn(void *p)
{
    (void)p;
}

GR_TEST(graph_host_node_params_are_copied_and_read_back)
{
    grGraph_t g;
    grGraphNode_t n;
    int ud = 0, ud2 = 0;
    grHostNodeParams hp = {tl_noop, &ud}, got;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    hp.fn = other_fn; /* the caller's struct changes right after the add */
    hp.userData = NULL;
    CHECK_OK(grGraphHostNodeGetParams(n, &got));
    CHECK(got.fn == tl_noop);
    CHECK_PTR_EQ(got.userData, &ud);
    hp.fn = other_fn;
    hp.userData = &ud2;
    CHECK_OK(grGraphHostNodeSetParams(n, &hp));
    hp.fn = tl_noop;
    CHECK_OK(grGraphHostNodeGetParams(n, &got));
    CHECK(got.fn == other_fn);
    CHECK_PTR_EQ(got.userData, &ud2);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_memcpy_node_params_read_back_as_1d_copy)
{
    grGraph_t g;
    grGraphNode_t n;
    char a[64], b[64];
    grMemcpy3DParms p;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, NULL, 0, a, b, 48, grMemcpyDeviceToHost));
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &p));
    CHECK_PTR_EQ(p.dstPtr.ptr, a);
    CHECK_PTR_EQ(p.srcPtr.ptr, b);
    CHECK_EQ(p.extent.width, 48);
    CHECK_EQ(p.extent.height, 1);
    CHECK_EQ(p.extent.depth, 1);
    CHECK_EQ(p.kind, grMemcpyDeviceToHost);
    CHECK_EQ(p.srcPos.x, 0);
    CHECK_EQ(p.dstPos.x, 0);
    CHECK_OK(grGraphMemcpyNodeSetParams1D(n, b + 1, a + 2, 7, grMemcpyDefault));
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &p));
    CHECK_PTR_EQ(p.dstPtr.ptr, b + 1);
    CHECK_PTR_EQ(p.srcPtr.ptr, a + 2);
    CHECK_EQ(p.extent.width, 7);
    CHECK_EQ(p.kind, grMemcpyDefault);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_memset_node_params_are_copied_and_read_back)
{
    grGraph_t g;
    grGraphNode_t n;
    uint32_t buf[64];
    grMemsetParams mp = {0}, got;
    mp.dst = buf;
    mp.elementSize = 4;
    mp.width = 8;
    mp.height = 4;
    mp.pitch = 64;
    mp.value = 0xdeadbeefu;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemsetNode(&n, g, NULL, 0, &mp));
    mp.value = 1;
    mp.width = 1;
    CHECK_OK(grGraphMemsetNodeGetParams(n, &got));
    CHECK_PTR_EQ(got.dst, buf);
    CHECK_EQ(got.elementSize, 4);
    CHECK_EQ(got.width, 8);
    CHECK_EQ(got.height, 4);
    CHECK_EQ(got.pitch, 64);
    CHECK_EQ(got.value, 0xdeadbeefu);
    mp.elementSize = 2;
    mp.width = 3;
    mp.height = 1;
    mp.pitch = 0;
    mp.value = 7;
    CHECK_OK(grGraphMemsetNodeSetParams(n, &mp));
    mp.value = 9;
    CHECK_OK(grGraphMemsetNodeGetParams(n, &got));
    CHECK_EQ(got.elementSize, 2);
    CHECK_EQ(got.width, 3);
    CHECK_EQ(got.height, 1);
    CHECK_EQ(got.value, 7);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_event_nodes_hold_their_event_and_can_switch_it)
{
    grGraph_t g;
    grGraphNode_t rec, wait;
    grEvent_t e1, e2, got;
    CHECK_OK(grEventCreate(&e1));
    CHECK_OK(grEventCreate(&e2));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEventRecordNode(&rec, g, NULL, 0, e1));
    CHECK_OK(grGraphAddEventWaitNode(&wait, g, &rec, 1, e1));
    CHECK_OK(grGraphEventRecordNodeGetEvent(rec, &got));
    CHECK_PTR_EQ(got, e1);
    CHECK_OK(grGraphEventWaitNodeGetEvent(wait, &got));
    CHECK_PTR_EQ(got, e1);
    CHECK_OK(grGraphEventRecordNodeSetEvent(rec, e2));
    CHECK_OK(grGraphEventWaitNodeSetEvent(wait, e2));
    CHECK_OK(grGraphEventRecordNodeGetEvent(rec, &got));
    CHECK_PTR_EQ(got, e2);
    CHECK_OK(grGraphEventWaitNodeGetEvent(wait, &got));
    CHECK_PTR_EQ(got, e2);
    /* Setting the event a node already holds keeps it alive. */
    CHECK_OK(grGraphEventWaitNodeSetEvent(wait, e2));
    CHECK_OK(grEventDestroy(e1));
    /* The node keeps the destroyed handle's event alive until it dies. */
    CHECK_OK(grEventDestroy(e2));
    CHECK_OK(grGraphEventWaitNodeGetEvent(wait, &got));
    CHECK_PTR_EQ(got, e2);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_add_node_generic_form_builds_each_type)
{
    grGraph_t g, child;
    grGraphNode_t n[6];
    grGraphNodeParams p;
    grGraphNodeType t;
    grMemcpy3DParms cp;
    grHostNodeParams hp;
    grEvent_t ev, got;
    char a[32], b[32];
    size_t count = 0;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grEventCreate(&ev));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeEmpty;
    CHECK_OK(grGraphAddNode(&n[0], g, NULL, NULL, 0, &p));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeHost;
    p.host.fn = tl_noop;
    p.host.userData = a;
    CHECK_OK(grGraphAddNode(&n[1], g, &n[0], NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeMemcpy;
    p.memcpy.copyParams.srcPtr.ptr = a;
    p.memcpy.copyParams.srcPos.x = 4;
    p.memcpy.copyParams.dstPtr.ptr = b;
    p.memcpy.copyParams.extent = (grExtent){16, 1, 1};
    p.memcpy.copyParams.kind = grMemcpyHostToHost;
    CHECK_OK(grGraphAddNode(&n[2], g, &n[1], NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeMemset;
    p.memset.dst = b;
    p.memset.elementSize = 1;
    p.memset.width = 32;
    p.memset.height = 1;
    CHECK_OK(grGraphAddNode(&n[3], g, NULL, NULL, 0, &p));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeGraph;
    p.graph.graph = child;
    CHECK_OK(grGraphAddNode(&n[4], g, NULL, NULL, 0, &p));
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeEventRecord;
    p.eventRecord.event = ev;
    CHECK_OK(grGraphAddNode(&n[5], g, NULL, NULL, 0, &p));

    CHECK_OK(grGraphNodeGetType(n[0], &t));
    CHECK_EQ(t, grGraphNodeTypeEmpty);
    CHECK_OK(grGraphHostNodeGetParams(n[1], &hp));
    CHECK(hp.fn == tl_noop);
    CHECK_PTR_EQ(hp.userData, a);
    CHECK_OK(grGraphMemcpyNodeGetParams(n[2], &cp));
    CHECK_PTR_EQ(cp.srcPtr.ptr, a); /* as given, as CUDA answers */
    CHECK_EQ(cp.srcPos.x, 4);
    CHECK_PTR_EQ(cp.dstPtr.ptr, b);
    CHECK_EQ(cp.extent.width, 16);
    CHECK_OK(grGraphNodeGetType(n[3], &t));
    CHECK_EQ(t, grGraphNodeTypeMemset);
    CHECK_OK(grGraphNodeGetType(n[4], &t));
    CHECK_EQ(t, grGraphNodeTypeGraph);
    CHECK_OK(grGraphEventRecordNodeGetEvent(n[5], &got));
    CHECK_PTR_EQ(got, ev);
    CHECK_OK(grGraphNodeGetDependencies(n[2], NULL, NULL, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grEventDestroy(ev));
}

GR_TEST(graph_remove_dependencies_removes_only_the_named_edges)
{
    grGraph_t g;
    grGraphNode_t a, b, c, d, from[2], to[2], got[3];
    size_t count;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&c, g, NULL, 0));
    from[0] = a;
    from[1] = b;
    to[0] = to[1] = c;
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 2));
    CHECK_OK(grGraphAddEmptyNode(&d, g, &c, 1));
    from[0] = a;
    to[0] = d;
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 1));
    CHECK_EQ(tl_edge_count(g), 4);

    from[0] = a;
    to[0] = c;
    CHECK_OK(grGraphRemoveDependencies(g, from, to, NULL, 1));
    CHECK_EQ(tl_edge_count(g), 3);
    count = 3;
    CHECK_OK(grGraphNodeGetDependencies(c, got, NULL, &count));
    CHECK_EQ(count, 1);
    CHECK_PTR_EQ(got[0], b);
    count = 3;
    CHECK_OK(grGraphNodeGetDependentNodes(a, got, NULL, &count));
    CHECK_EQ(count, 1);
    CHECK_PTR_EQ(got[0], d);
    /* Two at once, in either order. */
    from[0] = c;
    to[0] = d;
    from[1] = b;
    to[1] = c;
    CHECK_OK(grGraphRemoveDependencies(g, from, to, NULL, 2));
    CHECK_EQ(tl_edge_count(g), 1);
    count = 0;
    CHECK_OK(grGraphGetRootNodes(g, NULL, &count));
    CHECK_EQ(count, 3);
    /* An edge removed can be added again. */
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 2));
    CHECK_EQ(tl_edge_count(g), 3);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_destroy_node_removes_it_and_its_edges)
{
    grGraph_t g;
    grGraphNode_t abc[3], got[4];
    size_t count;
    CHECK_OK(grGraphCreate(&g, 0));
    tl_chain(g, 3, NULL, NULL, abc);
    grGraphNode_t a = abc[0], b = abc[1], c = abc[2];
    CHECK_OK(grGraphDestroyNode(b));
    CHECK_EQ(tl_node_count(g), 2);
    CHECK_EQ(tl_edge_count(g), 0);
    count = 4;
    CHECK_OK(grGraphGetNodes(g, got, &count));
    CHECK_EQ(count, 2);
    CHECK_PTR_EQ(got[0], a);
    CHECK_PTR_EQ(got[1], c);
    count = 4;
    CHECK_OK(grGraphNodeGetDependentNodes(a, got, NULL, &count));
    CHECK_EQ(count, 0);
    count = 4;
    CHECK_OK(grGraphGetRootNodes(g, got, &count));
    CHECK_EQ(count, 2);
    /* The destroyed handle is refused from now on. */
    CHECK_GR(grErrorInvalidValue, grGraphDestroyNode(b));
    CHECK_DETAIL_HAS("destroyed");
    /* Destroying the first and the last node keeps the list intact. */
    CHECK_OK(grGraphDestroyNode(a));
    CHECK_OK(grGraphDestroyNode(c));
    CHECK_EQ(tl_node_count(g), 0);
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_destroy_node_with_many_edges_keeps_other_edges_in_cudas_order)
{
    grGraph_t g;
    grGraphNode_t root, mid[5], sink, got[5];
    size_t i, count;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&root, g, NULL, 0));
    for (i = 0; i < 5; i++)
        CHECK_OK(grGraphAddEmptyNode(&mid[i], g, &root, 1));
    CHECK_OK(grGraphAddEmptyNode(&sink, g, mid, 5));
    CHECK_EQ(tl_edge_count(g), 10);
    CHECK_OK(grGraphDestroyNode(mid[2]));
    CHECK_EQ(tl_edge_count(g), 8);
    count = 5;
    CHECK_OK(grGraphNodeGetDependencies(sink, got, NULL, &count));
    CHECK_EQ(count, 4);
    /* As CUDA 13 lists them: the last dependency takes the removed one's
     * place (tests/data/update-pairing-cuda-13.0-h100.txt). Dependents
     * keep their order. */
    CHECK_PTR_EQ(got[0], mid[0]);
    CHECK_PTR_EQ(got[1], mid[1]);
    CHECK_PTR_EQ(got[2], mid[4]);
    CHECK_PTR_EQ(got[3], mid[3]);
    count = 5;
    CHECK_OK(grGraphNodeGetDependentNodes(root, got, NULL, &count));
    CHECK_EQ(count, 4);
    CHECK_PTR_EQ(got[2], mid[3]);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_child_graph_node_owns_a_copy_of_the_child)
{
    grGraph_t g, child, embedded;
    grGraphNode_t c1, c2, n, got[4];
    grHostNodeParams hp = {tl_noop, NULL}, ghp;
    size_t count;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddHostNode(&c1, child, NULL, 0, &hp));
    CHECK_OK(grGraphAddEmptyNode(&c2, child, &c1, 1));
    CHECK_OK(grGraphAddChildGraphNode(&n, g, NULL, 0, child));
    CHECK_OK(grGraphChildGraphNodeGetGraph(n, &embedded));
    CHECK(embedded != child);
    CHECK_EQ(tl_node_count(embedded), 2);
    CHECK_EQ(tl_edge_count(embedded), 1);
    /* Changing the caller's graph does not change the embedded copy. */
    CHECK_OK(grGraphDestroyNode(c2));
    CHECK_OK(grGraphAddEmptyNode(&c2, child, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&c2, child, NULL, 0));
    CHECK_EQ(tl_node_count(embedded), 2);
    /* The original may be destroyed; the node keeps its own. */
    CHECK_OK(grGraphDestroy(child));
    count = 4;
    CHECK_OK(grGraphGetNodes(embedded, got, &count));
    CHECK_EQ(count, 2);
    CHECK_OK(grGraphHostNodeGetParams(got[0], &ghp));
    CHECK(ghp.fn == tl_noop);
    /* The embedded graph can be edited through its handle... */
    CHECK_OK(grGraphAddEmptyNode(&c1, embedded, &got[1], 1));
    CHECK_EQ(tl_node_count(embedded), 3);
    /* ...but not destroyed: it dies with its node. */
    CHECK_GR(grErrorInvalidValue, grGraphDestroy(embedded));
    CHECK_DETAIL_HAS("child graph node #0");
    CHECK_OK(grGraphDestroyNode(n));
    CHECK_EQ(tl_node_count(g), 0);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_child_graphs_nest_and_die_with_their_parent)
{
    grGraph_t inner, middle, outer, emb_mid, emb_inner;
    grGraphNode_t n, got[2];
    size_t count = 2;
    CHECK_OK(grGraphCreate(&inner, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, inner, NULL, 0));
    CHECK_OK(grGraphCreate(&middle, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, middle, NULL, 0, inner));
    CHECK_OK(grGraphCreate(&outer, 0));
    CHECK_OK(grGraphAddChildGraphNode(&n, outer, NULL, 0, middle));
    CHECK_OK(grGraphDestroy(inner));
    CHECK_OK(grGraphDestroy(middle));
    CHECK_OK(grGraphChildGraphNodeGetGraph(n, &emb_mid));
    CHECK_OK(grGraphGetNodes(emb_mid, got, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(grGraphChildGraphNodeGetGraph(got[0], &emb_inner));
    CHECK_EQ(tl_node_count(emb_inner), 1);
    CHECK_OK(grGraphDestroy(outer));
}

GR_TEST(graph_clone_maps_every_node_and_keeps_edges_in_order)
{
    grGraph_t g, c, child, cchild, emb;
    grGraphNode_t n[6], m[6], gf[8], gt[8], cf[8], ct[8], got[4], cgot[4];
    grHostNodeParams hp = {tl_noop, &n}, chp;
    grGraphNode_t pair[2];
    size_t i, j, count, ccount;
    grGraphNodeType t1, t2;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddEmptyNode(&m[0], child, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&n[0], g, NULL, 0));
    CHECK_OK(grGraphAddHostNode(&n[1], g, &n[0], 1, &hp));
    CHECK_OK(grGraphAddEmptyNode(&n[2], g, NULL, 0));
    /* A destroyed node leaves a gap in the seq numbers. */
    CHECK_OK(grGraphDestroyNode(n[2]));
    CHECK_OK(grGraphAddEmptyNode(&n[2], g, &n[0], 1));
    pair[0] = n[2];
    pair[1] = n[1];
    CHECK_OK(grGraphAddEmptyNode(&n[3], g, pair, 2));
    CHECK_OK(grGraphAddChildGraphNode(&n[4], g, &n[3], 1, child));
    CHECK_OK(grGraphAddEmptyNode(&n[5], g, NULL, 0));
    pair[0] = n[5];
    pair[1] = n[0];
    CHECK_OK(grGraphAddDependencies(g, &pair[0], &pair[1], NULL, 1));

    CHECK_OK(grGraphClone(&c, g));
    CHECK_EQ(tl_node_count(c), 6);
    CHECK_EQ(tl_edge_count(c), tl_edge_count(g));
    for (i = 0; i < 6; i++) {
        CHECK_OK(grGraphNodeFindInClone(&m[i], n[i], c));
        CHECK(m[i] != n[i]);
        CHECK_OK(grGraphNodeGetType(n[i], &t1));
        CHECK_OK(grGraphNodeGetType(m[i], &t2));
        CHECK_EQ(t1, t2);
    }
    /* Edges: the same list, node for node through the map. */
    count = ccount = 8;
    CHECK_OK(grGraphGetEdges(g, gf, gt, NULL, &count));
    CHECK_OK(grGraphGetEdges(c, cf, ct, NULL, &ccount));
    CHECK_EQ(count, ccount);
    for (i = 0; i < count; i++) {
        grGraphNode_t mf, mt;
        CHECK_OK(grGraphNodeFindInClone(&mf, gf[i], c));
        CHECK_OK(grGraphNodeFindInClone(&mt, gt[i], c));
        CHECK_PTR_EQ(cf[i], mf);
        CHECK_PTR_EQ(ct[i], mt);
    }
    /* Per-node dependency order as well. */
    for (i = 0; i < 6; i++) {
        count = ccount = 4;
        CHECK_OK(grGraphNodeGetDependencies(n[i], got, NULL, &count));
        CHECK_OK(grGraphNodeGetDependencies(m[i], cgot, NULL, &ccount));
        CHECK_EQ(count, ccount);
        for (j = 0; j < count; j++) {
            grGraphNode_t mm;
            CHECK_OK(grGraphNodeFindInClone(&mm, got[j], c));
            CHECK_PTR_EQ(cgot[j], mm);
        }
    }
    /* Parameters were copied; the child graph too. */
    CHECK_OK(grGraphHostNodeGetParams(m[1], &chp));
    CHECK(chp.fn == tl_noop);
    CHECK_PTR_EQ(chp.userData, &n);
    CHECK_OK(grGraphChildGraphNodeGetGraph(m[4], &cchild));
    CHECK_OK(grGraphChildGraphNodeGetGraph(n[4], &emb));
    CHECK(cchild != emb && emb != child);
    CHECK_EQ(tl_node_count(cchild), 1);
    /* The clone is independent of the original. */
    CHECK_OK(grGraphDestroyNode(n[3]));
    CHECK_EQ(tl_node_count(c), 6);
    CHECK_OK(grGraphDestroy(g));
    CHECK_EQ(tl_edge_count(c), 6);
    CHECK_OK(grGraphDestroy(c));
    CHECK_OK(grGraphDestroy(child));
}

GR_TEST(graph_clone_of_clone_maps_to_the_intermediate_graph)
{
    grGraph_t g, c1, c2;
    grGraphNode_t a, a1, a2;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphClone(&c1, g));
    CHECK_OK(grGraphClone(&c2, c1));
    CHECK_OK(grGraphNodeFindInClone(&a1, a, c1));
    CHECK_OK(grGraphNodeFindInClone(&a2, a1, c2));
    CHECK(a2 != a1 && a2 != a);
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&a2, a, c2));
    CHECK_DETAIL_HAS("not a clone");
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(c1));
    CHECK_OK(grGraphDestroy(c2));
}

GR_TEST(graph_large_chain_builds_and_refuses_closing_edge)
{
    grGraph_t g;
    grGraphNode_t first, prev, n;
    int i;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&first, g, NULL, 0));
    prev = first;
    for (i = 0; i < 2000; i++) {
        CHECK_OK(grGraphAddEmptyNode(&n, g, &prev, 1));
        prev = n;
    }
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &prev, &first, NULL, 1));
    CHECK_DETAIL_HAS("cycle");
    CHECK_DETAIL_HAS("more");
    CHECK_EQ(tl_edge_count(g), 2000);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_kernel_node_copies_argument_values_at_add_and_set)
{
    grGraph_t g;
    grGraphNode_t n;
    grKernel_t k, k2;
    size_t sizes[3] = {sizeof(int), sizeof(double), sizeof(void *)};
    int iv = 7;
    double dv = 2.5;
    void *pv = &iv;
    void *args[3] = {&iv, &dv, &pv};
    grKernelNodeParams kp, got;
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "graph_build_kernel", 3, sizes));
    CHECK_OK(grKernelCreate(&k2, tl_kernel_nop, "graph_build_kernel2", 0, NULL));
    memset(&kp, 0, sizeof kp);
    kp.func = k;
    kp.gridDim = GR_DIM3(8, 2, 1);
    kp.blockDim = GR_DIM3(64, 2, 1);
    kp.sharedMemBytes = 256;
    kp.kernelParams = args;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &kp));
    /* The caller's values and struct change right after the add. */
    iv = 99;
    dv = -1.0;
    pv = NULL;
    args[0] = NULL;
    kp.gridDim = GR_DIM3(1, 1, 1);
    CHECK_OK(grGraphKernelNodeGetParams(n, &got));
    CHECK_PTR_EQ(got.func, k);
    CHECK_EQ(got.gridDim.x, 8);
    CHECK_EQ(got.gridDim.y, 2);
    CHECK_EQ(got.blockDim.x, 64);
    CHECK_EQ(got.blockDim.y, 2);
    CHECK_EQ(got.sharedMemBytes, 256);
    CHECK_PTR_EQ(got.extra, NULL);
    CHECK(got.kernelParams != args);
    CHECK_EQ(*(int *)got.kernelParams[0], 7);
    CHECK(*(double *)got.kernelParams[1] == 2.5);
    CHECK_PTR_EQ(*(void **)got.kernelParams[2], &iv);

    /* Set copies the new values the same way. */
    args[0] = &iv;
    pv = &dv;
    kp.gridDim = GR_DIM3(3, 1, 1);
    CHECK_OK(grGraphKernelNodeSetParams(n, &kp));
    iv = 0;
    CHECK_OK(grGraphKernelNodeGetParams(n, &got));
    CHECK_EQ(got.gridDim.x, 3);
    CHECK_EQ(*(int *)got.kernelParams[0], 99);
    CHECK(*(double *)got.kernelParams[1] == -1.0);
    CHECK_PTR_EQ(*(void **)got.kernelParams[2], &dv);

    /* Set may switch to another kernel. */
    kp.func = k2;
    kp.kernelParams = NULL;
    CHECK_OK(grGraphKernelNodeSetParams(n, &kp));
    CHECK_OK(grGraphKernelNodeGetParams(n, &got));
    CHECK_PTR_EQ(got.func, k2);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grKernelDestroy(k2));
}

GR_TEST(graph_kernel_node_outlives_its_kernel_handle)
{
    grGraph_t g, c;
    grGraphNode_t n, cn;
    grKernel_t k;
    size_t sizes[1] = {sizeof(int)};
    int iv = 3;
    void *args[1] = {&iv};
    grKernelNodeParams kp, got;
    CHECK_OK(grKernelCreate(&k, tl_kernel_nop, "graph_build_kernel_outlived", 1, sizes));
    memset(&kp, 0, sizeof kp);
    kp.func = k;
    kp.gridDim = GR_DIM3(1, 1, 1);
    kp.blockDim = GR_DIM3(1, 1, 1);
    kp.kernelParams = args;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &kp));
    CHECK_OK(grKernelDestroy(k));
    /* The node still holds its kernel; clones copy the values. */
    CHECK_OK(grGraphClone(&c, g));
    CHECK_OK(grGraphNodeFindInClone(&cn, n, c));
    CHECK_OK(grGraphKernelNodeGetParams(cn, &got));
    CHECK_PTR_EQ(got.func, k);
    CHECK_EQ(*(int *)got.kernelParams[0], 3);
    CHECK_OK(grGraphKernelNodeGetParams(n, &got));
    CHECK(got.kernelParams[0] != args[0]);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphKernelNodeGetParams(cn, &got));
    CHECK_EQ(*(int *)got.kernelParams[0], 3);
    CHECK_OK(grGraphDestroy(c));
}
