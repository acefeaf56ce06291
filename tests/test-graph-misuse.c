/*
 * test-graph-misuse.c - every bad input to the explicit graph API is
 * refused with CUDA's error code, a detail sentence that names the call
 * and the nodes involved, and a graph left exactly as it was (same nodes,
 * same edges in the same order, same per-node dependency lists).
 */
#include "testlib.h"

/* Everything a query can see of a small graph. */
typedef struct snap {
    size_t nn, ne, nd;
    grGraphNode_t nodes[32], from[64], to[64], deps[64];
} snap;

static void take(grGraph_t g, snap *s)
{
    size_t i, k;
    memset(s, 0, sizeof *s);
    s->nn = 32;
    CHECK_OK(grGraphGetNodes(g, s->nodes, &s->nn));
    s->ne = 64;
    CHECK_OK(grGraphGetEdges(g, s->from, s->to, NULL, &s->ne));
    for (i = 0; i < s->nn; i++) {
        k = 64 - s->nd;
        CHECK_OK(grGraphNodeGetDependencies(s->nodes[i], s->deps + s->nd, NULL, &k));
        s->nd += k;
    }
}

/* Checks that g still looks exactly like 'before'. */
static void same(grGraph_t g, const snap *before)
{
    snap now;
    take(g, &now);
    CHECK_EQ(now.nn, before->nn);
    CHECK_EQ(now.ne, before->ne);
    CHECK_EQ(now.nd, before->nd);
    CHECK(memcmp(now.nodes, before->nodes, sizeof now.nodes) == 0);
    CHECK(memcmp(now.from, before->from, sizeof now.from) == 0);
    CHECK(memcmp(now.to, before->to, sizeof now.to) == 0);
    CHECK(memcmp(now.deps, before->deps, sizeof now.deps) == 0);
}

/* a -> b -> c, and a lone d. */
static void chain(grGraph_t *g, grGraphNode_t n[4])
{
    CHECK_OK(grGraphCreate(g, 0));
    CHECK_OK(grGraphAddEmptyNode(&n[0], *g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&n[1], *g, &n[0], 1));
    CHECK_OK(grGraphAddEmptyNode(&n[2], *g, &n[1], 1));
    CHECK_OK(grGraphAddEmptyNode(&n[3], *g, NULL, 0));
}

/* The refused adds left their output NULL and g as it was. */
static void nothing_added(grGraphNode_t out, grGraph_t g, const snap *before)
{
    CHECK_PTR_EQ(out, NULL);
    same(g, before);
}

/* chain(g, n) and its snapshot into *before. */
static void chain_taken(grGraph_t *g, grGraphNode_t n[4], snap *before)
{
    chain(g, n);
    take(*g, before);
}

/* chain(g, n), plus a node of another graph (*o, in *other) and a node
 * of g already destroyed (*dead): the strangers a bad call names. */
static void chain_and_strangers(grGraph_t *g, grGraphNode_t n[4], grGraph_t *other, grGraphNode_t *o,
                                grGraphNode_t *dead)
{
    chain(g, n);
    CHECK_OK(grGraphCreate(other, 0));
    CHECK_OK(grGraphAddEmptyNode(o, *other, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(dead, *g, NULL, 0));
    CHECK_OK(grGraphDestroyNode(*dead));
}

/* grGraphAddDependencies (add) or grGraphRemoveDependencies over the n
 * edges from[i] -> to[i] must be refused with grErrorInvalidValue, the
 * detail naming 'what' (and 'also', where not NULL), and g must still
 * look like 'before'. */
static void edges_refused(grGraph_t g, const snap *before, bool add, const grGraphNode_t *from,
                          const grGraphNode_t *to, size_t n, const char *what, const char *also)
{
    if (add)
        CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, from, to, NULL, n));
    else
        CHECK_GR(grErrorInvalidValue, grGraphRemoveDependencies(g, from, to, NULL, n));
    CHECK_DETAIL_HAS(what);
    if (also)
        CHECK_DETAIL_HAS(also);
    same(g, before);
}

/* Not a graphrt object: its first word is no magic. */
static struct {
    uint32_t word;
    char pad[256];
} fake = {0x12345678u, {0}};

GR_TEST(graph_create_refuses_null_out_and_flags)
{
    grGraph_t g;
    CHECK_REFUSED(grErrorInvalidValue, grGraphCreate, NULL, 0);
    CHECK_DETAIL_HAS("pGraph");
    CHECK_GR(grErrorInvalidValue, grGraphCreate(&g, 1));
    CHECK_DETAIL_HAS("flags");
}

GR_TEST(graph_calls_refuse_null_and_unknown_graphs)
{
    grGraphNode_t n;
    size_t count;
    CHECK_REFUSED(grErrorInvalidValue, grGraphDestroy, NULL);
    CHECK_GR(grErrorInvalidValue, grGraphDestroy((grGraph_t)(void *)&fake));
    CHECK_DETAIL_HAS("not a live graph");
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddEmptyNode, &n, NULL, NULL, 0);
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&n, (grGraph_t)(void *)&fake, NULL, 0));
    CHECK_REFUSED(grErrorInvalidValue, grGraphGetNodes, (grGraph_t)(void *)&fake, NULL, &count);
    CHECK_GR(grErrorInvalidValue, grGraphGetEdges(NULL, NULL, NULL, NULL, &count));
    CHECK_GR(grErrorInvalidValue, grGraphGetRootNodes(NULL, NULL, &count));
}

GR_TEST(graph_add_refuses_bad_dependency_lists_and_changes_nothing)
{
    grGraph_t g, other;
    grGraphNode_t n[4], o, out = NULL, deps[3], dead;
    snap before;
    chain_and_strangers(&g, n, &other, &o, &dead);
    take(g, &before);

    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(NULL, g, NULL, 0));
    CHECK_DETAIL_HAS("pGraphNode");
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&out, g, NULL, 2));
    CHECK_DETAIL_HAS("pDependencies is NULL");
    deps[0] = n[0];
    deps[1] = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&out, g, deps, 2));
    CHECK_DETAIL_HAS("pDependencies[1] is NULL");
    deps[1] = dead;
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&out, g, deps, 2));
    CHECK_DETAIL_HAS("pDependencies[1]");
    CHECK_DETAIL_HAS("destroyed");
    CHECK_DETAIL_HAS("empty node #4");
    deps[1] = (grGraphNode_t)(void *)&fake;
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&out, g, deps, 2));
    CHECK_DETAIL_HAS("not a graph node");
    deps[1] = o;
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&out, g, deps, 2));
    CHECK_DETAIL_HAS("pDependencies[1] (empty node #0) belongs to graph");
    deps[1] = n[2];
    deps[2] = n[0];
    CHECK_GR(grErrorInvalidValue, grGraphAddEmptyNode(&out, g, deps, 3));
    CHECK_DETAIL_HAS("pDependencies[0] and pDependencies[2] are both empty node #0");
    nothing_added(out, g, &before);
    tl_destroy_graphs((grGraph_t[]){g, other}, 2);
}

GR_TEST(graph_add_refuses_bad_memcpy_memset_host_params)
{
    grGraph_t g;
    grGraphNode_t n[4], out = NULL;
    grHostNodeParams hp = {NULL, NULL};
    grMemsetParams mp;
    uint32_t buf[64];
    snap before;
    chain_taken(&g, n, &before);

    CHECK_GR(grErrorInvalidMemcpyDirection,
             grGraphAddMemcpyNode1D(&out, g, NULL, 0, buf, buf + 8, 8, (grMemcpyKind)77));
    CHECK_DETAIL_HAS("kind 77");
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode1D(&out, g, NULL, 0, NULL, buf, 8, grMemcpyDefault));
    CHECK_DETAIL_HAS("dst is NULL");
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode1D(&out, g, NULL, 0, buf, NULL, 8, grMemcpyDefault));
    CHECK_DETAIL_HAS("src is NULL");

    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&out, g, NULL, 0, NULL));
    CHECK_DETAIL_HAS("pMemsetParams is NULL");
    mp = tl_memset_params(buf, 0, 3, 4, 1, 0);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&out, g, NULL, 0, &mp));
    CHECK_DETAIL_HAS("elementSize is 3");
    mp.elementSize = 4;
    mp.height = 0;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&out, g, NULL, 0, &mp));
    CHECK_DETAIL_HAS("height is 0");
    mp.height = 2;
    mp.pitch = 12;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&out, g, NULL, 0, &mp));
    CHECK_DETAIL_HAS("pitch 12");
    mp.pitch = 16;
    mp.dst = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&out, g, NULL, 0, &mp));
    CHECK_DETAIL_HAS("dst is NULL");
    mp.dst = (char *)buf + 1;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemsetNode(&out, g, NULL, 0, &mp));
    CHECK_DETAIL_HAS("not aligned");

    CHECK_GR(grErrorInvalidValue, grGraphAddHostNode(&out, g, NULL, 0, NULL));
    CHECK_DETAIL_HAS("pNodeParams is NULL");
    CHECK_GR(grErrorInvalidValue, grGraphAddHostNode(&out, g, NULL, 0, &hp));
    CHECK_DETAIL_HAS("fn is NULL");
    nothing_added(out, g, &before);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_memset_pitch_is_ignored_for_one_row)
{
    grGraph_t g;
    grGraphNode_t out;
    uint32_t buf[8];
    grMemsetParams mp = tl_memset_params(buf, 0, 4, 8, 1, 1);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemsetNode(&out, g, NULL, 0, &mp));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_add_refuses_bad_events)
{
    grGraph_t g;
    grGraphNode_t n[4], out = NULL, rec;
    grEvent_t e;
    snap before;
    chain(&g, n);
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grGraphAddEventRecordNode(&rec, g, NULL, 0, e));
    take(g, &before);
    CHECK_GR(grErrorInvalidResourceHandle, grGraphAddEventRecordNode(&out, g, NULL, 0, NULL));
    CHECK_DETAIL_HAS("grGraphAddEventRecordNode: event is NULL");
    CHECK_GR(grErrorInvalidResourceHandle,
             grGraphAddEventWaitNode(&out, g, NULL, 0, (grEvent_t)(void *)&fake));
    CHECK_DETAIL_HAS("not a live event");
    /* Destroyed, but still alive inside 'rec': refused all the same. */
    CHECK_OK(grEventDestroy(e));
    CHECK_GR(grErrorInvalidResourceHandle, grGraphAddEventWaitNode(&out, g, NULL, 0, e));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grGraphEventRecordNodeSetEvent, rec, e);
    nothing_added(out, g, &before);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_child_graph_node_refuses_self_and_enclosing_graphs)
{
    grGraph_t g, emb, emb2;
    grGraphNode_t n[4], c, c2, out = NULL;
    snap before, before_emb;
    chain_taken(&g, n, &before);
    CHECK_GR(grErrorInvalidValue, grGraphAddChildGraphNode(&out, g, NULL, 0, NULL));
    CHECK_DETAIL_HAS("childGraph is NULL");
    CHECK_GR(grErrorInvalidValue, grGraphAddChildGraphNode(&out, g, NULL, 0, g));
    CHECK_DETAIL_HAS("itself");
    same(g, &before);

    /* g -> c (emb) -> c2 (emb2); adding g or emb into emb2 is refused. */
    CHECK_OK(grGraphCreate(&emb, 0));
    CHECK_OK(grGraphAddChildGraphNode(&c, g, NULL, 0, emb));
    CHECK_OK(grGraphDestroy(emb));
    CHECK_OK(grGraphChildGraphNodeGetGraph(c, &emb));
    CHECK_OK(grGraphCreate(&emb2, 0));
    CHECK_OK(grGraphAddChildGraphNode(&c2, emb, NULL, 0, emb2));
    CHECK_OK(grGraphDestroy(emb2));
    CHECK_OK(grGraphChildGraphNodeGetGraph(c2, &emb2));
    take(emb2, &before_emb);
    CHECK_GR(grErrorInvalidValue, grGraphAddChildGraphNode(&out, emb2, NULL, 0, g));
    CHECK_DETAIL_HAS("nested inside childGraph");
    CHECK_GR(grErrorInvalidValue, grGraphAddChildGraphNode(&out, emb2, NULL, 0, emb));
    CHECK_DETAIL_HAS("child graph node #0");
    nothing_added(out, emb2, &before_emb);
    /* A sibling copy of g is fine: it is a different graph. */
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_add_node_generic_refuses_bad_memory_nodes_and_unknown_types)
{
    grGraph_t g;
    grGraphNode_t n[4], out = NULL;
    grGraphNodeParams p;
    char a[16], b[16];
    snap before;
    chain_taken(&g, n, &before);
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 0, NULL));
    CHECK_DETAIL_HAS("nodeParams is NULL");
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeMemAlloc;
    p.alloc.poolProps.allocType = grMemAllocationTypePinned;
    p.alloc.poolProps.location.type = grMemLocationTypeDevice;
    p.alloc.bytesize = 0;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("bytesize is 0");
    CHECK_PTR_EQ(p.alloc.dptr, NULL);
    p.alloc.bytesize = 64;
    p.alloc.poolProps.allocType = grMemAllocationTypeInvalid;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("allocType");
    p.type = grGraphNodeTypeMemFree;
    p.free.dptr = a;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("not returned by a graph allocation node");
    p.type = (grGraphNodeType)42;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("type 42");
    memset(&p, 0, sizeof p);
    p.type = grGraphNodeTypeMemcpy;
    p.memcpy.copyParams.srcPtr.ptr = a;
    p.memcpy.copyParams.dstPtr.ptr = b;
    p.memcpy.copyParams.extent = (grExtent){4, 2, 1}; /* two rows, pitch 0: CUDA's pitch code */
    CHECK_GR(grErrorInvalidPitchValue, grGraphAddNode(&out, g, NULL, NULL, 0, &p));
    CHECK_DETAIL_HAS("pitch 0 is smaller than the width 4");
    p.memcpy.copyParams.extent = (grExtent){4, 1, 1};
    p.memcpy.flags = 1;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 0, &p));
    /* Bad dependencies are reported before an unsupported type. */
    p.type = grGraphNodeTypeMemAlloc;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&out, g, NULL, NULL, 1, &p));
    nothing_added(out, g, &before);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_add_dependencies_refuses_bad_endpoints)
{
    grGraph_t g, other;
    grGraphNode_t n[4], o, dead;
    snap before;
    chain_and_strangers(&g, n, &other, &o, &dead);
    take(g, &before);

    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(NULL, n, n + 1, NULL, 1));
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, NULL, n + 1, NULL, 1));
    CHECK_DETAIL_HAS("from is NULL");
    CHECK_GR(grErrorInvalidValue, grGraphAddDependencies(g, n, NULL, NULL, 1));
    CHECK_DETAIL_HAS("to is NULL");
    edges_refused(g, &before, true, (grGraphNode_t[]){n[0], n[3]}, (grGraphNode_t[]){n[3], NULL}, 2,
                  "to[1] is NULL", NULL);
    edges_refused(g, &before, true, (grGraphNode_t[]){n[0], n[3]}, (grGraphNode_t[]){n[3], dead}, 2, "to[1]",
                  "destroyed");
    edges_refused(g, &before, true, (grGraphNode_t[]){n[0], n[3]}, (grGraphNode_t[]){n[3], o}, 2,
                  "to[1] (empty node #0) belongs to graph", NULL);
    edges_refused(g, &before, true, (grGraphNode_t[]){n[0], o}, (grGraphNode_t[]){n[3], n[3]}, 2,
                  "from[1] (empty node #0) belongs to graph", NULL);
    edges_refused(g, &before, true, (grGraphNode_t[]){n[0], n[2]}, (grGraphNode_t[]){n[3], n[2]}, 2,
                  "edge 1 goes from empty node #2 to itself", NULL);
    tl_destroy_graphs((grGraph_t[]){g, other}, 2);
}

GR_TEST(graph_add_dependencies_refuses_existing_and_repeated_edges)
{
    grGraph_t g;
    grGraphNode_t n[4];
    snap before;
    chain_taken(&g, n, &before);
    /* Edge 0 is new, edge 1 exists: nothing at all is added. */
    edges_refused(g, &before, true, (grGraphNode_t[]){n[0], n[1]}, (grGraphNode_t[]){n[3], n[2]}, 2,
                  "edge 1 (empty node #1 -> empty node #2) already exists", NULL);
    /* The same new edge twice in one call. */
    grGraphNode_t from[3] = {n[0], n[2], n[0]}, to[3] = {n[3], n[3], n[3]};
    edges_refused(g, &before, true, from, to, 3, "edges 0 and 2 are both empty node #0 -> empty node #3",
                  NULL);
    /* Without the repeat it goes through. */
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 2));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_add_dependencies_refuses_cycles_naming_the_nodes)
{
    grGraph_t g;
    grGraphNode_t n[4];
    snap before;
    chain_taken(&g, n, &before);
    edges_refused(g, &before, true, &n[2], &n[0], 1,
                  "edge 0 (empty node #2 -> empty node #0) would close the cycle",
                  "cycle empty node #2 -> empty node #0 -> empty node #1 -> empty node #2;");
    /* Two edges that only close a cycle together: d -> a and c -> d. */
    edges_refused(g, &before, true, (grGraphNode_t[]){n[3], n[2]}, (grGraphNode_t[]){n[0], n[3]}, 2,
                  "edge 1 (empty node #2 -> empty node #3)",
                  "cycle empty node #2 -> empty node #3 -> empty node #0 -> empty node #1 -> empty node #2;");
    /* Two edges in opposite directions between fresh nodes. */
    edges_refused(g, &before, true, (grGraphNode_t[]){n[3], n[0]}, (grGraphNode_t[]){n[0], n[3]}, 2, "cycle",
                  NULL);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_remove_dependencies_refuses_missing_and_repeated_edges)
{
    grGraph_t g, other;
    grGraphNode_t n[4], o;
    snap before;
    chain(&g, n);
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphAddEmptyNode(&o, other, NULL, 0));
    take(g, &before);
    edges_refused(g, &before, false, (grGraphNode_t[]){n[0], n[0]}, (grGraphNode_t[]){n[1], n[2]}, 2,
                  "edge 1 (empty node #0 -> empty node #2) does not exist", NULL);
    grGraphNode_t from[3] = {n[0], n[1], n[0]}, to[3] = {n[1], n[2], n[1]};
    edges_refused(g, &before, false, from, to, 3, "edges 0 and 2 are both empty node #0 -> empty node #1",
                  NULL);
    from[1] = o;
    edges_refused(g, &before, false, from, to, 2, "belongs to graph", NULL);
    CHECK_GR(grErrorInvalidValue, grGraphRemoveDependencies(g, NULL, to, NULL, 1));
    CHECK_GR(grErrorInvalidValue, grGraphRemoveDependencies(NULL, from, to, NULL, 1));
    same(g, &before);
    CHECK_OK(grGraphRemoveDependencies(g, from, to, NULL, 0));
    CHECK_OK(grGraphAddDependencies(g, from, to, NULL, 0));
    same(g, &before);
    tl_destroy_graphs((grGraph_t[]){g, other}, 2);
}

GR_TEST(graph_node_calls_refuse_null_destroyed_and_wrong_type_nodes)
{
    grGraph_t g;
    grGraphNode_t n[4], dead, h;
    grHostNodeParams hp = {tl_noop, NULL}, ghp;
    grMemsetParams mp;
    grMemcpy3DParms cp;
    grKernelNodeParams kp;
    grGraph_t child;
    grEvent_t ev;
    grGraphNodeType t;
    size_t count;
    snap before;
    chain(&g, n);
    CHECK_OK(grGraphAddHostNode(&h, g, NULL, 0, &hp));
    CHECK_OK(grGraphAddEmptyNode(&dead, g, NULL, 0));
    CHECK_OK(grGraphDestroyNode(dead));
    take(g, &before);
    CHECK_GR(grErrorInvalidValue, grGraphDestroyNode(NULL));
    CHECK_DETAIL_HAS("grGraphDestroyNode: node is NULL");
    CHECK_GR(grErrorInvalidValue, grGraphDestroyNode(dead));
    CHECK_DETAIL_HAS("empty node #5");
    CHECK_GR(grErrorInvalidValue, grGraphDestroyNode((grGraphNode_t)(void *)&fake));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetType(dead, &t));
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetType(h, NULL));
    CHECK_DETAIL_HAS("pType");
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetDependencies(h, NULL, NULL, NULL));
    CHECK_DETAIL_HAS("pNumDependencies");
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetDependentNodes(dead, NULL, NULL, &count));
    CHECK_GR(grErrorInvalidValue, grGraphGetNodes(g, NULL, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphGetEdges(g, n, NULL, NULL, &count));
    CHECK_DETAIL_HAS("to is NULL but from is not");

    CHECK_GR(grErrorInvalidValue, grGraphHostNodeGetParams(n[0], &ghp));
    CHECK_DETAIL_HAS("grGraphHostNodeGetParams: node is empty node #0, not a host node");
    CHECK_GR(grErrorInvalidValue, grGraphHostNodeGetParams(h, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphHostNodeSetParams(n[0], &hp));
    hp.fn = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphHostNodeSetParams(h, &hp));
    CHECK_OK(grGraphHostNodeGetParams(h, &ghp));
    CHECK(ghp.fn == tl_noop);
    CHECK_GR(grErrorInvalidValue, grGraphMemsetNodeGetParams(h, &mp));
    CHECK_DETAIL_HAS("not a memset node");
    CHECK_GR(grErrorInvalidValue, grGraphMemsetNodeSetParams(h, &mp));
    CHECK_GR(grErrorInvalidValue, grGraphMemcpyNodeGetParams(h, &cp));
    CHECK_GR(grErrorInvalidValue, grGraphMemcpyNodeSetParams1D(h, &mp, &cp, 1, grMemcpyDefault));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeGetParams(h, &kp));
    CHECK_DETAIL_HAS("not a kernel node");
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetParams(h, &kp));
    CHECK_GR(grErrorInvalidValue, grGraphChildGraphNodeGetGraph(h, &child));
    CHECK_GR(grErrorInvalidValue, grGraphEventRecordNodeGetEvent(h, &ev));
    CHECK_GR(grErrorInvalidValue, grGraphEventWaitNodeGetEvent(h, &ev));
    CHECK_GR(grErrorInvalidValue, grGraphEventWaitNodeSetEvent(dead, NULL));
    CHECK_DETAIL_HAS("destroyed");
    same(g, &before);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_refused_set_params_keep_the_old_params)
{
    grGraph_t g;
    grGraphNode_t cpy, set;
    char a[16], b[16];
    uint16_t buf[16];
    grMemcpy3DParms cp;
    grMemsetParams mp, got;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode1D(&cpy, g, NULL, 0, a, b, 16, grMemcpyHostToHost));
    CHECK_GR(grErrorInvalidMemcpyDirection, grGraphMemcpyNodeSetParams1D(cpy, b, a, 4, (grMemcpyKind)-1));
    CHECK_GR(grErrorInvalidValue, grGraphMemcpyNodeSetParams1D(cpy, NULL, a, 4, grMemcpyDefault));
    CHECK_OK(grGraphMemcpyNodeGetParams(cpy, &cp));
    CHECK_PTR_EQ(cp.dstPtr.ptr, a);
    CHECK_EQ(cp.extent.width, 16);
    mp = tl_memset_params(buf, 5, 2, 16, 1, 0);
    CHECK_OK(grGraphAddMemsetNode(&set, g, &cpy, 1, &mp));
    mp.elementSize = 8;
    mp.value = 6;
    CHECK_GR(grErrorInvalidValue, grGraphMemsetNodeSetParams(set, &mp));
    CHECK_GR(grErrorInvalidValue, grGraphMemsetNodeSetParams(set, NULL));
    CHECK_OK(grGraphMemsetNodeGetParams(set, &got));
    CHECK_EQ(got.elementSize, 2);
    CHECK_EQ(got.value, 5);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(graph_clone_and_find_refuse_bad_arguments)
{
    grGraph_t g, c, other;
    grGraphNode_t a, b, out = NULL, dead;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&dead, g, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphClone(NULL, g));
    CHECK_DETAIL_HAS("pGraphClone");
    CHECK_GR(grErrorInvalidValue, grGraphClone(&c, NULL));
    CHECK_OK(grGraphClone(&c, g));
    CHECK_OK(grGraphDestroyNode(dead));
    CHECK_OK(grGraphAddEmptyNode(&b, g, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(NULL, a, c));
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&out, NULL, c));
    CHECK_DETAIL_HAS("originalNode is NULL");
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&out, a, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&out, a, other));
    CHECK_DETAIL_HAS("is not a clone of graph");
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&out, b, c));
    CHECK_DETAIL_HAS("has no node cloned from empty node #2");
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&out, dead, c));
    CHECK_DETAIL_HAS("destroyed");
    CHECK_PTR_EQ(out, NULL);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(c));
    CHECK_OK(grGraphDestroy(other));
}

/* A destroyed graph's memory comes back to a later graph (once 64 more
 * graphs have been destroyed): that graph is no original of the clone,
 * though it has the original's address and a node of the same creation
 * number. */
GR_TEST(graph_find_in_clone_refuses_a_graph_at_a_destroyed_originals_address)
{
    grGraph_t a, c, b = NULL;
    grGraphNode_t na, nb, out = NULL;
    CHECK_OK(grGraphCreate(&a, 0));
    CHECK_OK(grGraphAddEmptyNode(&na, a, NULL, 0));
    CHECK_OK(grGraphClone(&c, a));
    CHECK_OK(grGraphDestroy(a));
    for (int i = 0; i < 1000 && b == NULL; i++) {
        grGraph_t t;
        CHECK_OK(grGraphCreate(&t, 0));
        if (t == a)
            b = t;
        else
            CHECK_OK(grGraphDestroy(t));
    }
    if (b == NULL)
        GR_TEST_SKIP("no graph got the destroyed original's address back");
    CHECK_OK(grGraphAddEmptyNode(&nb, b, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphNodeFindInClone(&out, nb, c));
    CHECK_DETAIL_HAS("is not a clone of graph");
    CHECK_PTR_EQ(out, NULL);
    CHECK_OK(grGraphDestroy(b));
    CHECK_OK(grGraphDestroy(c));
}

GR_TEST(graph_kernel_node_refuses_bad_launch_params)
{
    grGraph_t g;
    grGraphNode_t n[4], out = NULL, k;
    grKernel_t kern;
    size_t sizes[2] = {sizeof(int), sizeof(double)};
    int iv = 1;
    double dv = 2.0;
    void *args[2] = {&iv, &dv};
    void *bad_args[2] = {&iv, NULL};
    grKernelNodeParams kp, got;
    snap before;
    chain(&g, n);
    CHECK_OK(grKernelCreate(&kern, tl_kernel_nop, "graph_misuse_kernel", 2, sizes));
    kp = tl_params_1d(kern, args, 4 * 32, 32);
    CHECK_OK(grGraphAddKernelNode(&k, g, NULL, 0, &kp));
    take(g, &before);
    CHECK_GR(grErrorInvalidValue, grGraphAddKernelNode(&out, g, NULL, 0, NULL));
    CHECK_DETAIL_HAS("pNodeParams is NULL");
    kp.func = NULL;
    CHECK_REFUSED(grErrorInvalidDeviceFunction, grGraphAddKernelNode, &out, g, NULL, 0, &kp);
    kp.func = kern;
    kp.gridDim = GR_DIM3(0, 1, 1);
    CHECK_GR(grErrorInvalidConfiguration, grGraphAddKernelNode(&out, g, NULL, 0, &kp));
    kp.gridDim = GR_DIM3(4, 1, 1);
    kp.blockDim = GR_DIM3(2048, 1, 1);
    CHECK_GR(grErrorInvalidConfiguration, grGraphAddKernelNode(&out, g, NULL, 0, &kp));
    kp.blockDim = GR_DIM3(32, 1, 1);
    kp.kernelParams = bad_args;
    CHECK_GR(grErrorInvalidValue, grGraphAddKernelNode(&out, g, NULL, 0, &kp));
    CHECK_DETAIL_HAS("args[1] is NULL");
    kp.kernelParams = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphAddKernelNode(&out, g, NULL, 0, &kp));
    kp.kernelParams = args;
    kp.extra = args;
    CHECK_GR(grErrorInvalidValue, grGraphAddKernelNode(&out, g, NULL, 0, &kp));
    CHECK_DETAIL_HAS("extra");
    kp.extra = NULL;
    kp.sharedMemBytes = 1u << 20;
    CHECK_GR(grErrorInvalidValue, grGraphAddKernelNode(&out, g, NULL, 0, &kp));
    /* A refused set keeps the old parameters. */
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetParams(k, &kp));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetParams(k, NULL));
    CHECK_OK(grGraphKernelNodeGetParams(k, &got));
    CHECK_EQ(got.sharedMemBytes, 0);
    CHECK_EQ(*(int *)got.kernelParams[0], 1);
    nothing_added(out, g, &before);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grKernelDestroy(kern));
}

GR_TEST(graph_dot_print_refuses_bad_arguments)
{
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphDebugDotPrint(NULL, "/tmp/x.dot", 0));
    CHECK_GR(grErrorInvalidValue, grGraphDebugDotPrint(g, NULL, 0));
    CHECK_DETAIL_HAS("path is NULL");
    /* Bit 1 is none of CUDA's cudaGraphDebugDotFlags (0x80 is one now). */
    CHECK_GR(grErrorInvalidValue, grGraphDebugDotPrint(g, "/tmp/x.dot", 0x2));
    CHECK_DETAIL_HAS("flags 0x2");
    CHECK_GR(grErrorInvalidValue, grGraphDebugDotPrint(g, "/nonexistent-dir/graph.dot", 0));
    CHECK_DETAIL_HAS("cannot open");
    CHECK_OK(grGraphDestroy(g));
}
