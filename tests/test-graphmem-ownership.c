/*
 * test-graphmem-ownership.c - who may free a graph allocation, as CUDA 13
 * decides it (tests/probes/parity.cu): an allocation its graph does not
 * free outlives the launch and is freed by another graph's free node, by
 * grFree or by grFreeAsync; once another graph holds a free node for it,
 * its own graph cannot get one; the owning executable launches again only
 * after one of the three frees. Each test runs on the CPU device and,
 * where there is one, on the first GPU (skipped there, saying why,
 * without one).
 */
#include "testlib.h"

GR_TEST_CPU_AND_GPU(graphmem_free_node_of_another_graph_bars_the_owners, gpu)
{
    int dev = gr_test_device_or_skip(gpu);
    grGraph_t a, b, c;
    grGraphNode_t an, bn, cn, fn = NULL;
    void *p;
    CHECK_OK(grGraphCreate(&a, 0));
    CHECK_OK(grGraphCreate(&b, 0));
    CHECK_OK(grGraphCreate(&c, 0));
    an = tl_add_alloc(a, NULL, 0, dev, 1 << 20, &p);
    CHECK_OK(grGraphAddMemFreeNode(&bn, b, NULL, 0, p));
    CHECK_OK(grGraphAddMemFreeNode(&cn, c, NULL, 0, p));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&fn, a, &an, 1, p));
    CHECK_DETAIL_HAS("another graph");
    CHECK(fn == NULL);
    CHECK_EQ(tl_node_count(a), 1);
    /* Through the generic call too. */
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemFree;
    np.free.dptr = p;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&fn, a, &an, NULL, 1, &np));
    CHECK_EQ(tl_node_count(a), 1);
    /* For good, as CUDA 13 answers: also once those nodes are gone. */
    CHECK_OK(grGraphDestroy(c));
    CHECK_OK(grGraphDestroy(b));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemFreeNode(&fn, a, &an, 1, p));
    CHECK_EQ(tl_node_count(a), 1);
    CHECK_OK(grGraphDestroy(a));
    CHECK_OK(grSetDevice(0));
}

/* Two graphs on the CPU or (gpu) the first GPU, skipped without one, and
 * a stream: a allocates 1 MiB at p. */
typedef struct pair {
    grGraph_t a, b;
    grStream_t s;
    void *p;
} pair;

static void open_pair(pair *t, int gpu)
{
    int dev = gr_test_device_or_skip(gpu);
    CHECK_OK(grStreamCreate(&t->s));
    CHECK_OK(grGraphCreate(&t->a, 0));
    CHECK_OK(grGraphCreate(&t->b, 0));
    tl_add_alloc(t->a, NULL, 0, dev, 1 << 20, &t->p);
}

/* Destroys the stream and makes the CPU current again; the graphs are the
 * test's to destroy. */
static void close_pair(pair *t)
{
    CHECK_OK(grStreamDestroy(t->s));
    CHECK_OK(grSetDevice(0));
}

/* The other graph's free node holds the address: it outlives the graph
 * that allocates it and is refused a launch without a live allocation. */
GR_TEST_CPU_AND_GPU(graphmem_foreign_free_node_outlives_the_allocating_graph, gpu)
{
    grGraphNode_t bn;
    grGraphExec_t xb;
    pair t;
    open_pair(&t, gpu);
    CHECK_OK(grGraphAddMemFreeNode(&bn, t.b, NULL, 0, t.p));
    CHECK_OK(grGraphDestroy(t.a));
    CHECK_OK(grGraphInstantiate(&xb, t.b, 0));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xb, t.s));
    CHECK_DETAIL_HAS("not allocated now");
    CHECK_OK(grGraphExecDestroy(xb));
    CHECK_OK(grGraphDestroy(t.b));
    close_pair(&t);
}

GR_TEST_CPU_AND_GPU(graphmem_unfreed_allocation_freed_three_ways, gpu)
{
    grGraphNode_t bn;
    grGraphExec_t xa, xb;
    pair t;
    open_pair(&t, gpu);
    CHECK_OK(grGraphAddMemFreeNode(&bn, t.b, NULL, 0, t.p));
    CHECK_OK(grGraphInstantiate(&xa, t.a, 0));
    CHECK_OK(grGraphInstantiate(&xb, t.b, 0));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xb, t.s));
    CHECK_OK(grGraphLaunch(xa, t.s));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xa, t.s));
    CHECK_DETAIL_HAS("still allocated");
    CHECK_OK(grStreamSynchronize(t.s));
    CHECK_OK(grFree(t.p));
    CHECK_OK(grGraphLaunch(xa, t.s));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xa, t.s));
    CHECK_OK(grFreeAsync(t.p, t.s));
    CHECK_OK(grGraphLaunch(xa, t.s));
    CHECK_OK(grGraphLaunch(xb, t.s));
    CHECK_OK(grGraphLaunch(xa, t.s));
    CHECK_OK(grStreamSynchronize(t.s));
    CHECK_OK(grFree(t.p));
    CHECK_GR(grErrorInvalidValue, grFree(t.p));
    CHECK_OK(grGraphExecDestroy(xa));
    CHECK_OK(grGraphExecDestroy(xb));
    CHECK_OK(grGraphDestroy(t.a));
    CHECK_OK(grGraphDestroy(t.b));
    close_pair(&t);
}

/* A copy or memset node of one graph on another graph's allocation that
 * no executable maps is refused at launch, as grMemset refuses it, and
 * launches once an executable maps it. */
GR_TEST_CPU_AND_GPU(graphmem_node_on_unmapped_graph_memory_refused_at_launch, gpu)
{
    grGraphNode_t bn;
    grGraphExec_t xa, xb;
    pair t;
    open_pair(&t, gpu);
    grMemsetParams mp = {t.p, 0, 1, 1, 4096, 1};
    CHECK_OK(grGraphAddMemsetNode(&bn, t.b, NULL, 0, &mp));
    grError_t ie = grGraphInstantiate(&xb, t.b, 0);
    if (gpu) {
        /* The driver checks the address when the node is lowered. */
        CHECK_EQ(ie, grErrorInvalidValue);
        CHECK_OK(grGraphDestroy(t.b));
        CHECK_OK(grGraphDestroy(t.a));
        close_pair(&t);
        return;
    }
    CHECK_OK(ie);
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xb, t.s));
    CHECK_DETAIL_HAS("no executable maps");
    CHECK_OK(grGraphInstantiate(&xa, t.a, 0));
    CHECK_OK(grGraphLaunch(xb, t.s));
    CHECK_OK(grStreamSynchronize(t.s));
    CHECK_OK(grGraphExecDestroy(xa));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xb, t.s));
    /* A setter moving the node there is checked at the next launch too. */
    grGraph_t c;
    grGraphNode_t cn;
    grGraphExec_t xc;
    void *buf;
    CHECK_OK(grMalloc(&buf, 4096));
    grMemsetParams hp = {buf, 0, 1, 1, 4096, 1};
    CHECK_OK(grGraphCreate(&c, 0));
    CHECK_OK(grGraphAddMemsetNode(&cn, c, NULL, 0, &hp));
    CHECK_OK(grGraphInstantiate(&xc, c, 0));
    CHECK_OK(grGraphLaunch(xc, t.s));
    CHECK_OK(grStreamSynchronize(t.s));
    CHECK_OK(grGraphExecMemsetNodeSetParams(xc, cn, &mp));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xc, t.s));
    CHECK_DETAIL_HAS("no executable maps");
    /* And so is an update bringing such a node. */
    CHECK_OK(grGraphExecMemsetNodeSetParams(xc, cn, &hp));
    CHECK_OK(grGraphLaunch(xc, t.s));
    grGraph_t c2;
    grGraphNode_t cn2;
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphCreate(&c2, 0));
    CHECK_OK(grGraphAddMemsetNode(&cn2, c2, NULL, 0, &mp));
    CHECK_OK(grGraphExecUpdate(xc, c2, &info));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(xc, t.s));
    CHECK_DETAIL_HAS("no executable maps");
    CHECK_OK(grGraphDestroy(c2));
    CHECK_OK(grStreamSynchronize(t.s));
    CHECK_OK(grGraphExecDestroy(xc));
    CHECK_OK(grFree(buf));
    CHECK_OK(grGraphExecDestroy(xb));
    CHECK_OK(grGraphDestroy(c));
    CHECK_OK(grGraphDestroy(t.b));
    CHECK_OK(grGraphDestroy(t.a));
    close_pair(&t);
}
