/*
 * test-gpu-memops.c - stream memory operations on an NVIDIA GPU: waits
 * and writes of a GPU stream through the driver's cuStreamBatchMemOp, and
 * batch memory operation nodes in an executable of a GPU (lowered to the
 * driver's cuGraphAddBatchMemOpNode, changed by the exec setter and by
 * grGraphExecUpdate), with the refusals: a GPU's word on a CPU stream, a
 * node's word that the GPU cannot reach, a refusal by the device that
 * changes nothing. Every test first asks for a GPU and is skipped, saying
 * why, where there is none; those that count the device's calls run on
 * the fake device only, those that need the driver's own behaviour on a
 * real GPU only.
 */
#include "testlib.h"
#include "fakedev/fakedev.h"

#include <stdlib.h>
#include <string.h>

static grStreamBatchMemOpParams memop32(grStreamBatchMemOpType operation, void *addr, uint32_t v,
                                        unsigned flags)
{
    grStreamBatchMemOpParams op;
    memset(&op, 0, sizeof op);
    op.waitValue.operation = operation;
    op.waitValue.address = addr;
    op.waitValue.value = v;
    op.waitValue.flags = flags;
    return op;
}

/* The captured graph of the replay tests, on GPU stream s: each launch
 * clears word d[0], writes v to it, waits until it equals v, then copies
 * it to out (pinned host memory). Its batch memory operation nodes are
 * returned in *write and *wait. */
static grGraph_t capture_write_wait_copy(grStream_t s, uint32_t *d, uint32_t *out, uint32_t v,
                                         grGraphNode_t *write, grGraphNode_t *wait)
{
    grGraph_t g;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemsetAsync(d, 0, sizeof *d, s));
    CHECK_OK(grStreamWriteValue32(s, d, v, grStreamWriteValueDefault));
    CHECK_OK(grStreamWaitValue32(s, d, v, grStreamWaitValueEq));
    CHECK_OK(grMemcpyAsync(out, d, sizeof *d, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    grGraphNode_t nodes[8];
    size_t n = 8;
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK_EQ(n, 4u);
    *write = *wait = NULL;
    for (size_t i = 0; i < n; i++) {
        grGraphNodeType t;
        grBatchMemOpNodeParams p;
        CHECK_OK(grGraphNodeGetType(nodes[i], &t));
        if (t != grGraphNodeTypeBatchMemOp)
            continue;
        CHECK_OK(grGraphBatchMemOpNodeGetParams(nodes[i], &p));
        CHECK_EQ(p.count, 1u);
        if (p.paramArray[0].operation == grStreamMemOpWriteValue32)
            *write = nodes[i];
        else
            *wait = nodes[i];
    }
    CHECK(*write != NULL && *wait != NULL);
    return g;
}

/* Sets the write and the wait of an executable of capture_write_wait_copy
 * to value v on word d. */
static void set_write_wait(grGraphExec_t e, grGraphNode_t write, grGraphNode_t wait, uint32_t *d, uint32_t v)
{
    grStreamBatchMemOpParams w = memop32(grStreamMemOpWriteValue32, d, v, grStreamWriteValueDefault);
    grStreamBatchMemOpParams q = memop32(grStreamMemOpWaitValue32, d, v, grStreamWaitValueEq);
    grBatchMemOpNodeParams p = {NULL, 1, &w, 0};
    CHECK_OK(grGraphExecBatchMemOpNodeSetParams(e, write, &p));
    p.paramArray = &q;
    CHECK_OK(grGraphExecBatchMemOpNodeSetParams(e, wait, &p));
}

static void launch_sync(grGraphExec_t e, grStream_t s)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
}

GR_TEST(gpu_stream_writes_and_waits_run_on_the_gpu)
{
    uint32_t *d = NULL;
    uint32_t back[4] = {0, 0, 0, 0};
    grStream_t s;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMalloc((void **)&d, 4 * sizeof *d));
    CHECK_OK(grMemsetAsync(d, 0, 4 * sizeof *d, s));
    CHECK_OK(grStreamWriteValue32(s, &d[0], 7, grStreamWriteValueDefault));
    /* Met by the write before it in stream order. */
    CHECK_OK(grStreamWaitValue32(s, &d[0], 7, grStreamWaitValueEq));
    grStreamBatchMemOpParams ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].writeValue.operation = grStreamMemOpWriteValue32;
    ops[0].writeValue.address = &d[1];
    ops[0].writeValue.value = 9;
    ops[1].waitValue.operation = grStreamMemOpWaitValue32;
    ops[1].waitValue.address = &d[1];
    ops[1].waitValue.value = 9;
    ops[1].waitValue.flags = grStreamWaitValueGeq;
    CHECK_OK(grStreamBatchMemOp(s, 2, ops, 0));
    CHECK_OK(grStreamWriteValue64(s, &d[2], 0x0000000500000004ull, grStreamWriteValueDefault));
    CHECK_OK(grMemcpyAsync(back, d, sizeof back, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(back[0], 7u);
    CHECK_EQ(back[1], 9u);
    CHECK_EQ(back[2], 4u);
    CHECK_EQ(back[3], 5u);
    /* The batch's flags are the driver's to refuse, as graphrt's are. */
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 1));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
}

GR_TEST(gpu_memory_words_on_a_cpu_stream_are_refused_and_memop_graphs_run_on_the_gpu)
{
    uint32_t *d = NULL, *h = NULL;
    grStream_t cpu, gpu;
    grGraph_t g;
    grGraphExec_t e = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grMalloc((void **)&d, 16));
    CHECK_OK(grMallocHost((void **)&h, 16));
    CHECK_OK(grStreamCreate(&gpu));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu));
    CHECK_GR(grErrorNotSupported, grStreamWriteValue32(cpu, d, 1, grStreamWriteValueDefault));
    CHECK_DETAIL_HAS("GPU's memory");
    CHECK_OK(grStreamSynchronize(cpu));
    /* Captured on the GPU stream: a node, which the GPU's executable
     * runs. */
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamBeginCapture(gpu, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamWriteValue32(gpu, d, 6, grStreamWriteValueDefault));
    CHECK_OK(grMemcpyAsync(h, d, 4, grMemcpyDeviceToHost, gpu));
    CHECK_OK(grStreamEndCapture(gpu, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    launch_sync(e, gpu);
    CHECK_EQ(h[0], 6u);
    CHECK_OK(grGraphExecDestroy(e));
    e = NULL;
    /* On the CPU device, the node's word in a GPU's memory is refused as
     * a copy node's destination there would be. */
    CHECK_OK(grSetDevice(0));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("memory of device 1");
    CHECK(e == NULL);
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(gpu));
    CHECK_OK(grStreamDestroy(cpu));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

/* A one-node graph of a 32-bit write of 1 to p. */
static grGraph_t write_graph(void *p, grGraphNode_t *node)
{
    grGraph_t g;
    grStreamBatchMemOpParams op = memop32(grStreamMemOpWriteValue32, p, 1, grStreamWriteValueDefault);
    grBatchMemOpNodeParams params = {NULL, 1, &op, 0};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddBatchMemOpNode(node, g, NULL, 0, &params));
    return g;
}

/* Instantiating write_graph(p) on the current GPU is refused, naming why,
 * and leaves no executable. */
static void check_word_refused(void *p, const char *why)
{
    grGraphNode_t n;
    grGraphExec_t e = NULL;
    grGraph_t g = write_graph(p, &n);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS(why);
    CHECK(e == NULL);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(gpu_memop_nodes_take_only_words_the_gpu_reaches)
{
    static uint32_t pageable;
    uint32_t *cpu = NULL, *managed = NULL, *pinned = NULL, *d = NULL;
    grGraphNode_t n;
    grGraph_t g;
    grGraphExec_t e = NULL;
    grStream_t s;
    tl_use_gpu_or_skip();
    CHECK_OK(grMalloc((void **)&d, 16));
    CHECK_OK(grMallocHost((void **)&pinned, 16));
    CHECK_OK(grMallocManaged((void **)&managed, 16, grMemAttachGlobal));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grMalloc((void **)&cpu, 16)); /* the CPU device's: pageable */
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamCreate(&s));
    check_word_refused(cpu, "memory of device 0");
    check_word_refused(&pageable, "neither pinned nor registered");
    check_word_refused(managed, "managed memory");
    /* Registered application memory is reached, as pinned memory is. */
    uint32_t *reg = aligned_alloc(4096, 4096);
    CHECK(reg != NULL);
    CHECK_OK(grHostRegister(reg, 4096, grHostRegisterDefault));
    g = write_graph(reg, &n);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    /* The GPU's own memory and pinned memory: instantiated and run. */
    g = write_graph(d, &n);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    launch_sync(e, s);
    /* The setter and the update refuse the unreachable word and keep the
     * node's: the next launch writes the GPU's word again. */
    grStreamBatchMemOpParams op = memop32(grStreamMemOpWriteValue32, cpu, 2, grStreamWriteValueDefault);
    grBatchMemOpNodeParams p = {NULL, 1, &op, 0};
    CHECK_GR(grErrorInvalidValue, grGraphExecBatchMemOpNodeSetParams(e, n, &p));
    CHECK_DETAIL_HAS("memory of device 0");
    grGraphNode_t n2;
    grGraph_t g2 = write_graph(&pageable, &n2);
    grGraphExecUpdateResultInfo info;
    CHECK(grGraphExecUpdate(e, g2, &info) != grSuccess);
    CHECK_DETAIL_HAS("neither pinned nor registered");
    op = memop32(grStreamMemOpWriteValue32, pinned, 3, grStreamWriteValueDefault);
    CHECK_OK(grGraphBatchMemOpNodeSetParams(n2, &p));
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    pinned[0] = 0;
    launch_sync(e, s);
    CHECK_EQ(pinned[0], 3u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grHostUnregister(reg));
    free(reg);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFree(managed));
    CHECK_OK(grFreeHost(pinned));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grFree(cpu));
}

GR_TEST(gpu_memop_word_is_checked_before_any_gpu_context_exists)
{
    static uint32_t pageable;
    tl_use_gpu_or_skip();
    /* Nothing has started a GPU in this test's process: the check must
     * not wait for a context to exist. */
    check_word_refused(&pageable, "neither pinned nor registered");
}

GR_TEST(fake_device_lowers_sets_and_updates_memop_nodes)
{
    uint32_t *d = NULL, *out = NULL;
    grGraphNode_t write, wait, write2, wait2;
    grGraphExec_t e;
    grStream_t s;
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&d, sizeof *d));
    CHECK_OK(grMallocHost((void **)&out, sizeof *out));
    grGraph_t g = capture_write_wait_copy(s, d, out, 4, &write, &wait);
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_EQ(gr_fakedev_calls("exec_lower"), 1u);
    CHECK_EQ(gr_fakedev_calls("lower_memop_node"), 2u);
    launch_sync(e, s);
    CHECK_EQ(*out, 4u);
    /* The setter reaches the device once per node, then the plan. */
    set_write_wait(e, write, wait, d, 5);
    CHECK_EQ(gr_fakedev_calls("exec_set_memop"), 2u);
    launch_sync(e, s);
    CHECK_EQ(*out, 5u);
    /* An update of the same shape with other values syncs the device. */
    grGraph_t g2 = capture_write_wait_copy(s, d, out, 9, &write2, &wait2);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(gr_fakedev_calls("exec_sync_range"), 1u);
    launch_sync(e, s);
    CHECK_EQ(*out, 9u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(out));
}

GR_TEST(fake_device_refusing_a_memop_node_changes_nothing)
{
    uint32_t *d = NULL, *out = NULL;
    grGraphNode_t write, wait;
    grGraphExec_t e = NULL;
    grStream_t s;
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc((void **)&d, sizeof *d));
    CHECK_OK(grMallocHost((void **)&out, sizeof *out));
    grGraph_t g = capture_write_wait_copy(s, d, out, 4, &write, &wait);
    /* A driver without batch memory operation nodes: no executable. */
    gr_fakedev_fail("lower_memop_node", grErrorCallRequiresNewerDriver, 0);
    CHECK_GR(grErrorCallRequiresNewerDriver, grGraphInstantiate(&e, g, 0));
    CHECK(e == NULL);
    gr_fakedev_clear();
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    /* The device refuses the new operations: the plan keeps the old ones
     * (were the write's changed alone, the wait for 4 would never be
     * met). */
    gr_fakedev_fail("exec_set_memop", grErrorInvalidValue, 0);
    grStreamBatchMemOpParams w = memop32(grStreamMemOpWriteValue32, d, 7, grStreamWriteValueDefault);
    grBatchMemOpNodeParams p = {NULL, 1, &w, 0};
    CHECK_GR(grErrorInvalidValue, grGraphExecBatchMemOpNodeSetParams(e, write, &p));
    CHECK_DETAIL_HAS("injected");
    gr_fakedev_clear();
    launch_sync(e, s);
    CHECK_EQ(*out, 4u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(out));
}

GR_TEST(gpu_memop_graph_writes_then_waits_and_replays_with_new_values)
{
    uint32_t *d = NULL, *out = NULL;
    grGraphNode_t write, wait, write2, wait2;
    grGraphExec_t e;
    grStream_t s;
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMalloc((void **)&d, sizeof *d));
    CHECK_OK(grMallocHost((void **)&out, sizeof *out));
    grGraph_t g = capture_write_wait_copy(s, d, out, 3, &write, &wait);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int i = 0; i < 3; i++) {
        *out = 0;
        launch_sync(e, s);
        CHECK_EQ(*out, 3u);
    }
    /* The exec setter changes the write and the wait together. */
    for (uint32_t v = 11; v <= 13; v++) {
        set_write_wait(e, write, wait, d, v);
        *out = 0;
        launch_sync(e, s);
        CHECK_EQ(*out, v);
    }
    /* A node of the original graph keeps its value. */
    grBatchMemOpNodeParams q;
    CHECK_OK(grGraphBatchMemOpNodeGetParams(write, &q));
    CHECK_EQ(q.paramArray[0].writeValue.value, 3u);
    /* grGraphExecUpdate from a graph of the same shape. */
    grGraph_t g2 = capture_write_wait_copy(s, d, out, 21, &write2, &wait2);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    for (int i = 0; i < 2; i++) {
        *out = 0;
        launch_sync(e, s);
        CHECK_EQ(*out, 21u);
    }
    /* Setters after an update reach the same driver nodes. */
    set_write_wait(e, write, wait, d, 30);
    *out = 0;
    launch_sync(e, s);
    CHECK_EQ(*out, 30u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(out));
}

enum {
    CHAIN = 20 /* enough changed nodes for the whole-graph update path */
};

/* A chain of CHAIN writes, word i of d getting base + i, then a copy of
 * the words to out; 64-bit writes at even i (two words: d holds
 * 2 * CHAIN). */
static grGraph_t write_chain(uint32_t *d, uint32_t *out, uint32_t base)
{
    grGraph_t g;
    grGraphNode_t prev = NULL, n;
    CHECK_OK(grGraphCreate(&g, 0));
    for (uint32_t i = 0; i < CHAIN; i++) {
        grStreamBatchMemOpParams op;
        memset(&op, 0, sizeof op);
        if (i % 2 == 0) {
            op.writeValue.operation = grStreamMemOpWriteValue64;
            op.writeValue.address = &d[2 * i];
            op.writeValue.value64 = ((uint64_t)(base + i) << 32) | (base + i);
        } else {
            op = memop32(grStreamMemOpWriteValue32, &d[2 * i], base + i, grStreamWriteValueDefault);
        }
        grBatchMemOpNodeParams p = {NULL, 1, &op, 0};
        CHECK_OK(grGraphAddBatchMemOpNode(&n, g, prev ? &prev : NULL, prev ? 1 : 0, &p));
        prev = n;
    }
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, &prev, 1, out, d, 2 * CHAIN * sizeof *d, grMemcpyDeviceToHost));
    return g;
}

static void check_chain(const uint32_t *out, uint32_t base)
{
    for (uint32_t i = 0; i < CHAIN; i++) {
        CHECK_EQ(out[2 * i], base + i);
        if (i % 2 == 0)
            CHECK_EQ(out[2 * i + 1], base + i);
    }
}

GR_TEST(gpu_memop_graph_updates_whole_and_shares_its_driver_executable)
{
    uint32_t *d = NULL, *out = NULL;
    grGraphExec_t e, e2;
    grStream_t s;
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMalloc((void **)&d, 2 * CHAIN * sizeof *d));
    CHECK_OK(grMallocHost((void **)&out, 2 * CHAIN * sizeof *out));
    CHECK_OK(grMemset(d, 0, 2 * CHAIN * sizeof *d));
    grGraph_t g = write_chain(d, out, 100), g2 = write_chain(d, out, 500);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    launch_sync(e, s);
    check_chain(out, 100);
    /* Every node changes: written into the driver's graph, applied in one
     * cuGraphExecUpdate. */
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    launch_sync(e, s);
    check_chain(out, 500);
    /* Another executable of the same shape, launched in turn with the
     * first: each launch writes its own values (a shared driver
     * executable switches between them). */
    CHECK_OK(grGraphInstantiate(&e2, g, 0));
    for (int i = 0; i < 3; i++) {
        launch_sync(e2, s);
        check_chain(out, 100);
        launch_sync(e, s);
        check_chain(out, 500);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(out));
}
