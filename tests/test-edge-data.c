/*
 * test-edge-data.c - grGraphEdgeData on edges: default edges read back as
 * all zeros, programmatic edges between kernel nodes are kept, reported,
 * cloned, compared by grGraphExecUpdate and run as full dependencies on
 * the CPU; every refusal has CUDA's code and changes nothing.
 */
#include "testlib.h"

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* add(int *x): every block adds 1 to *x (one block per launch here). */
static void k_inc_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    int *x = *(int **)args[0];
    *x += 1;
}

/* copy(int *dst, int *src): *dst = *src. */
static void k_copy_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    **(int **)args[0] = **(int **)args[1];
}

static grKernel_t k_inc, k_copy;

static void make_kernels(void)
{
    size_t s1[1] = {sizeof(int *)}, s2[2] = {sizeof(int *), sizeof(int *)};
    CHECK_OK(grKernelCreate(&k_inc, k_inc_fn, "edge_inc", 1, s1));
    CHECK_OK(grKernelCreate(&k_copy, k_copy_fn, "edge_copy", 2, s2));
}

static void free_kernels(void)
{
    CHECK_OK(grKernelDestroy(k_inc));
    CHECK_OK(grKernelDestroy(k_copy));
}

static int *inc_target;
static int *copy_dst, *copy_src;

static grGraphNode_t add_counted_inc(grGraph_t g, const grGraphNode_t *deps, size_t n, int *x)
{
    grGraphNode_t node;
    inc_target = x;
    void *args[1] = {&inc_target};
    grKernelNodeParams p = {k_inc, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&node, g, deps, n, &p));
    return node;
}

static grGraphNode_t add_copy(grGraph_t g, int *dst, int *src)
{
    grGraphNode_t node;
    copy_dst = dst;
    copy_src = src;
    void *args[2] = {&copy_dst, &copy_src};
    grKernelNodeParams p = {k_copy, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, &p));
    return node;
}

/* Makes the kernels and returns a new graph for them. */
static grGraph_t graph_with_kernels(void)
{
    grGraph_t g;
    make_kernels();
    CHECK_OK(grGraphCreate(&g, 0));
    return g;
}

/* Adds two increments of *x to g, *a and *b, and the edge a -> b with
 * data *data. */
static void link_incs(grGraph_t g, grGraphNode_t *a, grGraphNode_t *b, const grGraphEdgeData *data, int *x)
{
    *a = add_counted_inc(g, NULL, 0, x);
    *b = add_counted_inc(g, NULL, 0, x);
    CHECK_OK(grGraphAddDependencies(g, a, b, data, 1));
}

/* The end of most tests here: the graph and the kernels go. */
static void destroy_and_free_kernels(grGraph_t g)
{
    CHECK_OK(grGraphDestroy(g));
    free_kernels();
}

static grGraphEdgeData programmatic(unsigned char port)
{
    grGraphEdgeData d;
    memset(&d, 0, sizeof d);
    d.type = grGraphDependencyTypeProgrammatic;
    d.from_port = port;
    return d;
}

static bool edge_data_eq(grGraphEdgeData a, grGraphEdgeData b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* node's dependencies are exactly 'from', over an edge of this data. */
static void expect_only_dependency(grGraphNode_t node, grGraphNode_t from, grGraphEdgeData data)
{
    grGraphNode_t got[1];
    grGraphEdgeData ed[1];
    size_t n = 1;
    CHECK_OK(grGraphNodeGetDependencies(node, got, ed, &n));
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(got[0], from);
    CHECK(edge_data_eq(ed[0], data));
}

/* node has one dependency, over a default edge: its list needs no room
 * for data. */
static void expect_one_default_dependency(grGraphNode_t node)
{
    grGraphNode_t got[1];
    size_t n = 1;
    CHECK_OK(grGraphNodeGetDependencies(node, got, NULL, &n));
    CHECK_EQ(n, 1);
}

GR_TEST(edge_data_layout_and_values_are_cudas)
{
    CHECK_EQ(sizeof(grGraphEdgeData), 8);
    CHECK_EQ(offsetof(grGraphEdgeData, from_port), 0);
    CHECK_EQ(offsetof(grGraphEdgeData, to_port), 1);
    CHECK_EQ(offsetof(grGraphEdgeData, type), 2);
    CHECK_EQ(grGraphDependencyTypeDefault, 0);
    CHECK_EQ(grGraphDependencyTypeProgrammatic, 1);
    CHECK_EQ(grGraphKernelNodePortDefault, 0);
    CHECK_EQ(grGraphKernelNodePortProgrammatic, 1);
    CHECK_EQ(grGraphKernelNodePortLaunchCompletion, 2);
}

GR_TEST(default_edges_read_back_as_zeroed_edge_data)
{
    grGraph_t g;
    grGraphNode_t a, b, from[2], to[2];
    grGraphEdgeData ed[2];
    size_t n = 2;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, NULL, 0));
    CHECK_OK(grGraphAddDependencies(g, &a, &b, NULL, 1));
    memset(ed, 0xab, sizeof ed);
    CHECK_OK(grGraphGetEdges(g, from, to, ed, &n));
    CHECK_EQ(n, 1);
    CHECK(edge_data_eq(ed[0], (grGraphEdgeData){0}));
    CHECK(edge_data_eq(ed[1], (grGraphEdgeData){0})); /* past the count: zeroed */
    n = 1;
    memset(ed, 0xab, sizeof ed);
    CHECK_OK(grGraphNodeGetDependencies(b, from, ed, &n));
    CHECK_EQ(n, 1);
    CHECK(edge_data_eq(ed[0], (grGraphEdgeData){0}));
    /* Explicit default data is the same edge as NULL data. */
    grGraphEdgeData zero = {0};
    CHECK_OK(grGraphRemoveDependencies(g, &a, &b, &zero, 1));
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(programmatic_edge_between_kernels_is_kept_and_reported)
{
    grGraph_t g;
    grGraphNode_t a, b, c, from[3], to[3];
    grGraphEdgeData ed[3], pe = programmatic(grGraphKernelNodePortProgrammatic);
    int x = 0;
    size_t n;
    g = graph_with_kernels();
    a = add_counted_inc(g, NULL, 0, &x);
    b = add_counted_inc(g, NULL, 0, &x);
    c = add_counted_inc(g, &a, 1, &x); /* a default edge a -> c */
    CHECK_OK(grGraphAddDependencies(g, &a, &b, &pe, 1));
    n = 3;
    CHECK_OK(grGraphGetEdges(g, from, to, ed, &n));
    CHECK_EQ(n, 2);
    for (size_t i = 0; i < n; i++) {
        CHECK_PTR_EQ(from[i], a);
        if (to[i] == b)
            CHECK(edge_data_eq(ed[i], pe));
        else
            CHECK(edge_data_eq(ed[i], (grGraphEdgeData){0}));
    }
    expect_only_dependency(b, a, pe);
    n = 2;
    CHECK_OK(grGraphNodeGetDependentNodes(a, to, ed, &n));
    CHECK_EQ(n, 2);
    CHECK_PTR_EQ(to[1], b);
    CHECK(edge_data_eq(ed[1], pe));
    /* c's edge is default: its lists need no room for data. */
    expect_one_default_dependency(c);
    destroy_and_free_kernels(g);
}

GR_TEST(lossy_queries_are_refused_and_counts_are_not)
{
    grGraph_t g;
    grGraphNode_t a, b, from[2] = {NULL, NULL}, to[2] = {NULL, NULL};
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortLaunchCompletion);
    int x = 0;
    size_t n;
    g = graph_with_kernels();
    link_incs(g, &a, &b, &pe, &x);
    n = 2;
    CHECK_GR(grErrorLossyQuery, grGraphGetEdges(g, from, to, NULL, &n));
    CHECK_DETAIL_HAS("edgeData");
    CHECK_EQ(n, 2); /* nothing written */
    CHECK_PTR_EQ(from[0], NULL);
    n = 1;
    CHECK_GR(grErrorLossyQuery, grGraphNodeGetDependencies(b, from, NULL, &n));
    CHECK_GR(grErrorLossyQuery, grGraphNodeGetDependentNodes(a, to, NULL, &n));
    CHECK_PTR_EQ(to[0], NULL);
    /* Counting needs no data. */
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK_EQ(n, 1);
    CHECK_OK(grGraphNodeGetDependencies(b, NULL, NULL, &n));
    CHECK_EQ(n, 1);
    /* edgeData without the node arrays is refused. */
    grGraphEdgeData ed[1];
    CHECK_GR(grErrorInvalidValue, grGraphGetEdges(g, NULL, NULL, ed, &n));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetDependencies(b, NULL, ed, &n));
    destroy_and_free_kernels(g);
}

GR_TEST(refused_edge_data_adds_nothing)
{
    grGraph_t g;
    grGraphNode_t k1, k2, e;
    int x = 0;
    size_t n;
    g = graph_with_kernels();
    k1 = add_counted_inc(g, NULL, 0, &x);
    k2 = add_counted_inc(g, NULL, 0, &x);
    CHECK_OK(grGraphAddEmptyNode(&e, g, NULL, 0));
    grGraphEdgeData bad = programmatic(grGraphKernelNodePortProgrammatic);
    /* A programmatic edge from or to a node that is not a kernel node. */
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &e, &k1, &bad, 1));
    CHECK_DETAIL_HAS("kernel");
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &e, &bad, 1));
    /* to_port, reserved bytes, unknown type or port. */
    bad.to_port = 1;
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &k2, &bad, 1));
    CHECK_DETAIL_HAS("to_port");
    bad = programmatic(grGraphKernelNodePortProgrammatic);
    bad.reserved[4] = 1;
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &k2, &bad, 1));
    bad = programmatic(3);
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &k2, &bad, 1));
    bad = programmatic(grGraphKernelNodePortProgrammatic);
    bad.type = 2;
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &k2, &bad, 1));
    /* Programmatic type needs a port; the programmatic port needs the type. */
    bad = programmatic(grGraphKernelNodePortDefault);
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &k2, &bad, 1));
    bad = programmatic(grGraphKernelNodePortProgrammatic);
    bad.type = grGraphDependencyTypeDefault;
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &k1, &k2, &bad, 1));
    /* One bad entry among good ones: none is added. */
    grGraphNode_t from[2] = {k1, k1}, to[2] = {k2, e};
    grGraphEdgeData two[2] = {programmatic(grGraphKernelNodePortProgrammatic),
                              programmatic(grGraphKernelNodePortProgrammatic)};
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, from, to, two, 2));
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK_EQ(n, 0);
    /* grGraphAddNode checks the data against the new node's type. */
    grGraphNodeParams np;
    grGraphNode_t made = NULL;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeEmpty;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&made, g, &k1, &two[0], 1, &np));
    CHECK_PTR_EQ(made, NULL);
    size_t nodes;
    CHECK_OK(grGraphGetNodes(g, NULL, &nodes));
    CHECK_EQ(nodes, 3);
    destroy_and_free_kernels(g);
}

GR_TEST(add_node_with_dependency_data_notes_the_edges)
{
    grGraph_t g;
    grGraphNode_t k1, k2, from[1];
    grGraphEdgeData ed[1], pe = programmatic(grGraphKernelNodePortProgrammatic);
    int x = 0;
    size_t n = 1;
    g = graph_with_kernels();
    k1 = add_counted_inc(g, NULL, 0, &x);
    inc_target = &x;
    void *args[1] = {&inc_target};
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeKernel;
    np.kernel = (grKernelNodeParams){k_inc, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddNode(&k2, g, &k1, &pe, 1, &np));
    CHECK_OK(grGraphNodeGetDependencies(k2, from, ed, &n));
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(from[0], k1);
    CHECK(edge_data_eq(ed[0], pe));
    destroy_and_free_kernels(g);
}

GR_TEST(remove_dependencies_needs_the_edges_own_data)
{
    grGraph_t g;
    grGraphNode_t a, b;
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortProgrammatic);
    int x = 0;
    size_t n;
    g = graph_with_kernels();
    link_incs(g, &a, &b, &pe, &x);
    grGraphEdgeData zero = {0};
    CHECK_GR(grErrorInvalidValue, grGraphRemoveDependencies(g, &a, &b, &zero, 1));
    CHECK_DETAIL_HAS("edge data");
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK_EQ(n, 1);
    /* The same edge again, whatever its data, is a duplicate. */
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, &a, &b, NULL, 1));
    CHECK_OK(grGraphRemoveDependencies(g, &a, &b, &pe, 1));
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK_EQ(n, 0);
    /* NULL data names the edge whatever its data (CUDA 13 does so). */
    CHECK_OK(grGraphAddDependencies(g, &a, &b, &pe, 1));
    CHECK_OK(grGraphRemoveDependencies(g, &a, &b, NULL, 1));
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &n));
    CHECK_EQ(n, 0);
    /* Added back as a default edge, the old data is gone. */
    CHECK_OK(grGraphAddDependencies(g, &a, &b, NULL, 1));
    expect_one_default_dependency(b);
    destroy_and_free_kernels(g);
}

GR_TEST(destroying_a_node_forgets_its_edge_data)
{
    grGraph_t g;
    grGraphNode_t a, b, c, from[2], to[2];
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortProgrammatic);
    int x = 0;
    size_t n = 2;
    g = graph_with_kernels();
    a = add_counted_inc(g, NULL, 0, &x);
    b = add_counted_inc(g, NULL, 0, &x);
    c = add_counted_inc(g, &a, 1, &x);
    CHECK_OK(grGraphAddDependencies(g, &a, &b, &pe, 1));
    CHECK_OK(grGraphDestroyNode(b));
    CHECK_OK(grGraphGetEdges(g, from, to, NULL, &n)); /* no longer lossy */
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(to[0], c);
    destroy_and_free_kernels(g);
}

GR_TEST(clone_copies_edge_data)
{
    grGraph_t g, c;
    grGraphNode_t a, b, ca, cb, from[1];
    grGraphEdgeData ed[1], pe = programmatic(grGraphKernelNodePortLaunchCompletion);
    int x = 0;
    size_t n = 1;
    g = graph_with_kernels();
    link_incs(g, &a, &b, &pe, &x);
    CHECK_OK(grGraphClone(&c, g));
    CHECK_OK(grGraphNodeFindInClone(&ca, a, c));
    CHECK_OK(grGraphNodeFindInClone(&cb, b, c));
    CHECK_OK(grGraphNodeGetDependencies(cb, from, ed, &n));
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(from[0], ca);
    CHECK(edge_data_eq(ed[0], pe));
    /* The clone's data is its own. */
    CHECK_OK(grGraphRemoveDependencies(c, &ca, &cb, &pe, 1));
    n = 1;
    CHECK_OK(grGraphNodeGetDependencies(b, from, ed, &n));
    CHECK(edge_data_eq(ed[0], pe));
    CHECK_OK(grGraphDestroy(c));
    destroy_and_free_kernels(g);
}

GR_TEST(programmatic_edge_orders_its_kernels_as_a_full_dependency_on_the_cpu)
{
    grGraph_t g;
    grGraphExec_t e;
    grGraphNode_t a, b;
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortProgrammatic);
    int x = 0, y = -1;
    g = graph_with_kernels();
    a = add_counted_inc(g, NULL, 0, &x);
    b = add_copy(g, &y, &x);
    CHECK_OK(grGraphAddDependencies(g, &a, &b, &pe, 1));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int i = 1; i <= 20; i++) {
        CHECK_OK(grGraphLaunch(e, NULL));
        CHECK_OK(grStreamSynchronize(NULL));
        CHECK_EQ(y, i); /* the copy ran after the increment */
    }
    CHECK_OK(grGraphExecDestroy(e));
    destroy_and_free_kernels(g);
}

GR_TEST(exec_update_pairs_edges_only_with_the_same_data)
{
    grGraph_t g1, g2, g3;
    grGraphExec_t e;
    grGraphNode_t a, b;
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortProgrammatic);
    grGraphExecUpdateResultInfo info;
    int x = 0;
    g1 = graph_with_kernels();
    link_incs(g1, &a, &b, &pe, &x);
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    /* Same topology, default edge: refused, the edge named. */
    CHECK_OK(grGraphCreate(&g2, 0));
    a = add_counted_inc(g2, NULL, 0, &x);
    b = add_counted_inc(g2, &a, 1, &x);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorTopologyChanged);
    CHECK_PTR_EQ(info.errorNode, b);
    CHECK_PTR_EQ(info.errorFromNode, a);
    CHECK_DETAIL_HAS("edge data");
    /* Same data: accepted. */
    CHECK_OK(grGraphCreate(&g3, 0));
    link_incs(g3, &a, &b, &pe, &x);
    CHECK_OK(grGraphExecUpdate(e, g3, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(x, 2);
    CHECK_OK(grGraphExecDestroy(e));
    tl_destroy_graphs((grGraph_t[]){g1, g2, g3}, 3);
    free_kernels();
}

GR_TEST(graph_files_refuse_non_default_edges)
{
    grGraph_t g;
    grGraphNode_t a, b;
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortProgrammatic);
    int x = 0;
    char path[] = "/tmp/graphrt-edge-data-XXXXXX";
    g = graph_with_kernels();
    link_incs(g, &a, &b, &pe, &x);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_GR(grErrorNotSupported, grGraphSaveToFile(g, path, 0));
    CHECK_DETAIL_HAS("edge data");
    unlink(path);
    destroy_and_free_kernels(g);
}

GR_TEST(capture_reports_and_records_the_edge_data_of_its_dependencies)
{
    grStream_t s;
    grGraph_t g;
    grStreamCaptureStatus st;
    const grGraphNode_t *deps = NULL;
    const grGraphEdgeData *ed = NULL;
    size_t n = 0;
    int x = 0;
    make_kernels();
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    inc_target = &x;
    void *args[1] = {&inc_target};
    CHECK_OK(grLaunchKernel(k_inc, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &ed, &n));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK_EQ(n, 1);
    CHECK(ed != NULL);
    CHECK(edge_data_eq(ed[0], (grGraphEdgeData){0}));
    grGraphNode_t first = deps[0];
    /* edgeData_out alone is refused. */
    CHECK_GR(grErrorInvalidValue, grStreamGetCaptureInfo(s, &st, NULL, NULL, NULL, &ed, &n));
    /* A programmatic dependency: reported, and lossy without room. */
    grGraphEdgeData pe = programmatic(grGraphKernelNodePortProgrammatic);
    CHECK_OK(grStreamUpdateCaptureDependencies(s, &first, &pe, 1, grStreamSetCaptureDependencies));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &ed, &n));
    CHECK_EQ(n, 1);
    CHECK(edge_data_eq(ed[0], pe));
    CHECK_GR(grErrorLossyQuery, grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &n));
    /* Bad data is refused and the capture goes on. */
    grGraphEdgeData bad = pe;
    bad.to_port = 1;
    CHECK_GR(grErrorInvalidValue,
             grStreamUpdateCaptureDependencies(s, &first, &bad, 1, grStreamSetCaptureDependencies));
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    /* A host function cannot be the end of a programmatic edge: refused,
     * nothing recorded; a kernel can. */
    CHECK_GR(grErrorInvalidValue, grLaunchHostFunc(s, tl_noop, NULL));
    CHECK_OK(grLaunchKernel(k_inc, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &n)); /* default again */
    CHECK_OK(grStreamEndCapture(s, &g));
    grGraphNode_t from[2], to[2];
    grGraphEdgeData eds[2];
    n = 2;
    CHECK_OK(grGraphGetEdges(g, from, to, eds, &n));
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(from[0], first);
    CHECK(edge_data_eq(eds[0], pe));
    CHECK_OK(grGraphDestroy(g));
    /* Into an existing graph, with a programmatic first dependency. */
    grGraph_t into;
    grGraphNode_t root;
    CHECK_OK(grGraphCreate(&into, 0));
    root = add_counted_inc(into, NULL, 0, &x);
    CHECK_OK(grStreamBeginCaptureToGraph(s, into, &root, &pe, 1, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(k_inc, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_PTR_EQ(g, into);
    n = 2;
    CHECK_OK(grGraphNodeGetDependentNodes(root, to, eds, &n));
    CHECK_EQ(n, 1);
    CHECK(edge_data_eq(eds[0], pe));
    /* A programmatic dependency from a node that is not a kernel node. */
    grGraphNode_t e;
    CHECK_OK(grGraphAddEmptyNode(&e, into, NULL, 0));
    CHECK_GR(grErrorInvalidValue,
             grStreamBeginCaptureToGraph(s, into, &e, &pe, 1, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusNone);
    CHECK_OK(grGraphDestroy(into));
    CHECK_OK(grStreamDestroy(s));
    free_kernels();
}
