/*
 * test-batch-memop.c - batch memory operations: grStreamBatchMemOp,
 * captured waits and writes (one node per call, as CUDA 13 captures them),
 * batch memory operation nodes (add, get, set, generic API, clone, DOT,
 * graph files, executable setters and update), graph waits released by
 * another stream or by a node of the same launch with one worker, and
 * refusals that change nothing.
 */
#include "testlib.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static grStreamBatchMemOpParams wait32(void *addr, uint32_t v, unsigned cond)
{
    grStreamBatchMemOpParams op;
    memset(&op, 0, sizeof op);
    op.waitValue.operation = grStreamMemOpWaitValue32;
    op.waitValue.address = addr;
    op.waitValue.value = v;
    op.waitValue.flags = cond;
    return op;
}

/* A write of v to addr: 32 bits or 64 as 'operation' says. */
static grStreamBatchMemOpParams write_op(grStreamBatchMemOpType operation, void *addr, uint64_t v)
{
    grStreamBatchMemOpParams op;
    memset(&op, 0, sizeof op);
    op.writeValue.operation = operation;
    op.writeValue.address = addr;
    if (operation == grStreamMemOpWriteValue64)
        op.writeValue.value64 = v;
    else
        op.writeValue.value = (uint32_t)v;
    return op;
}

static grStreamBatchMemOpParams write32(void *addr, uint32_t v)
{
    return write_op(grStreamMemOpWriteValue32, addr, v);
}

static grStreamBatchMemOpParams write64(void *addr, uint64_t v)
{
    return write_op(grStreamMemOpWriteValue64, addr, v);
}

static uint32_t load32(const uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static grGraphNode_t add_memop(grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                               grStreamBatchMemOpParams *ops, unsigned count)
{
    grGraphNode_t n;
    grBatchMemOpNodeParams p = {NULL, count, ops, 0};
    CHECK_OK(grGraphAddBatchMemOpNode(&n, g, deps, ndeps, &p));
    return n;
}

static void launch_sync(grGraphExec_t e, grStream_t s)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
}

GR_TEST(batch_mem_op_runs_its_operations_in_array_order)
{
    static uint32_t flag, out32;
    static uint64_t out64;
    grStream_t s, writer;
    __atomic_store_n(&flag, 0, __ATOMIC_SEQ_CST);
    out32 = 0;
    out64 = 0;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamCreate(&writer));
    grStreamBatchMemOpParams ops[4] = {wait32(&flag, 1, grStreamWaitValueGeq), write32(&out32, 7),
                                       write64(&out64, 0x123456789ull)};
    ops[3].memoryBarrier.operation = grStreamMemOpBarrier;
    ops[3].memoryBarrier.flags = grStreamMemoryBarrierTypeSys;
    CHECK_OK(grStreamBatchMemOp(s, 4, ops, 0));
    CHECK(tl_still_waiting(s));
    CHECK_EQ(load32(&out32), 0u);
    grStreamBatchMemOpParams w = write32(&flag, 1);
    CHECK_OK(grStreamBatchMemOp(writer, 1, &w, 0));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(load32(&out32), 7u);
    CHECK_EQ(__atomic_load_n(&out64, __ATOMIC_SEQ_CST), 0x123456789ull);
    /* count 0 queues nothing and succeeds, as CUDA 13 answers. */
    CHECK_OK(grStreamBatchMemOp(s, 0, NULL, 0));
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(writer));
}

GR_TEST(batch_mem_op_refusals_queue_and_capture_nothing)
{
    static uint64_t words[2];
    uint32_t *w = (uint32_t *)words;
    memset(words, 0, sizeof words);
    grStream_t s = tl_stream(0);
    /* A valid write first, then a bad operation: nothing is queued. */
    grStreamBatchMemOpParams ops[2] = {write32(w, 5), write32((char *)w + 2, 1)};
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    CHECK_DETAIL_HAS("paramArray[1]");
    CHECK_DETAIL_HAS("aligned");
    ops[1] = write32(w + 1, 1);
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 1)); /* flags 1, as the H200 answers */
    CHECK_DETAIL_HAS("flags 0x1");
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, GR_BATCH_MEM_OP_MAX + 1, ops, 0));
    ops[1].operation = (grStreamBatchMemOpType)7;
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    CHECK_DETAIL_HAS("operation 7");
    ops[1] = write32(w + 1, 1);
    ops[1].writeValue.flags = grStreamWriteValueNoMemoryBarrier;
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    ops[1] = wait32(w + 1, 0, grStreamWaitValueEq | grStreamWaitValueFlush);
    CHECK_GR(grErrorNotSupported, grStreamBatchMemOp(s, 2, ops, 0));
    ops[1] = wait32(w + 1, 0, 4);
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    memset(&ops[1], 0, sizeof ops[1]);
    ops[1].flushRemoteWrites.operation = grStreamMemOpFlushRemoteWrites;
    CHECK_GR(grErrorNotSupported, grStreamBatchMemOp(s, 2, ops, 0));
    memset(&ops[1], 0, sizeof ops[1]);
    ops[1].memoryBarrier.operation = grStreamMemOpBarrier;
    ops[1].memoryBarrier.flags = 2;
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    ops[1] = write64(w + 1, 1); /* 4-aligned, not 8 */
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    CHECK_OK(grStreamQuery(s));
    CHECK_EQ(words[0], 0ull);
    /* While capturing: refused, recorded nothing, the capture goes on. */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, 2, ops, 0));
    CHECK_OK(grStreamBatchMemOp(s, 0, NULL, 0));
    tl_end_capture_empty(s);
    CHECK_EQ(words[0], 0ull);
    CHECK_OK(grStreamDestroy(s));
}

/* A paramArray that is not an array (misaligned, unmapped, or running
 * into an unreadable page) is refused by every entry that takes one,
 * before an element is read: reading it would fault inside graphrt. */
GR_TEST(batch_mem_op_param_array_is_checked_readable_and_aligned_by_every_entry)
{
    static uint32_t word;
    long page = sysconf(_SC_PAGESIZE);
    /* Two pages, the second unreadable: an array of two whose second
     * element lies there. */
    char *two = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED);
    CHECK_EQ(mprotect(two + page, (size_t)page, PROT_NONE), 0);
    grStreamBatchMemOpParams *edge = (grStreamBatchMemOpParams *)(void *)(two + page - sizeof *edge);
    *edge = write32(&word, 1);
    struct {
        grStreamBatchMemOpParams *ops;
        unsigned count;
        const char *says;
    } bad[] = {
        {(grStreamBatchMemOpParams *)(uintptr_t)0x10000005a, 1, "is not aligned"},
        {(grStreamBatchMemOpParams *)(uintptr_t)0x100000058, 1, "readable"},
        {(grStreamBatchMemOpParams *)(uintptr_t)0x40, 1, "readable"},
        {edge, 2, "readable"},
    };
    grStreamBatchMemOpParams ok = write32(&word, 7);
    grGraph_t g;
    grGraphNode_t n, n2 = NULL;
    grGraphExec_t e;
    grBatchMemOpNodeParams bp = {NULL, 1, &ok, 0};
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddBatchMemOpNode(&n, g, NULL, 0, &bp));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        grBatchMemOpNodeParams p = {NULL, bad[i].count, bad[i].ops, 0};
        grGraphNodeParams gp;
        memset(&gp, 0, sizeof gp);
        gp.type = grGraphNodeTypeBatchMemOp;
        gp.memOp = p;
        CHECK_GR(grErrorInvalidValue, grStreamBatchMemOp(s, p.count, p.paramArray, 0));
        CHECK_DETAIL_HAS("grStreamBatchMemOp: paramArray");
        CHECK_DETAIL_HAS(bad[i].says);
        CHECK_GR(grErrorInvalidValue, grGraphAddBatchMemOpNode(&n2, g, NULL, 0, &p));
        CHECK_DETAIL_HAS(bad[i].says);
        CHECK_GR(grErrorInvalidValue, grGraphAddNode(&n2, g, NULL, NULL, 0, &gp));
        CHECK_DETAIL_HAS(bad[i].says);
        CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeSetParams(n, &p));
        CHECK_DETAIL_HAS(bad[i].says);
        CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(n, &gp));
        CHECK_DETAIL_HAS(bad[i].says);
        if (p.count == 1) { /* the executable's node keeps its count */
            CHECK_GR(grErrorInvalidValue, grGraphExecBatchMemOpNodeSetParams(e, n, &p));
            CHECK_DETAIL_HAS(bad[i].says);
            CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, n, &gp));
            CHECK_DETAIL_HAS(bad[i].says);
        }
    }
    CHECK_PTR_EQ(n2, NULL);
    /* Nothing changed: the node and the executable still write 7. */
    launch_sync(e, s);
    CHECK_EQ(load32(&word), 7);
    /* One element before the unreadable page is an array of one. */
    CHECK_OK(grStreamBatchMemOp(s, 1, edge, 0));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(load32(&word), 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_EQ(munmap(two, (size_t)page * 2), 0);
}

GR_TEST(capture_makes_one_batch_mem_op_node_per_call_and_replay_runs_them)
{
    static uint32_t flag, a, b;
    static uint64_t c;
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    __atomic_store_n(&flag, 0, __ATOMIC_SEQ_CST);
    a = b = 0;
    c = 0;
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    CHECK_OK(grStreamWriteValue32(s, &flag, 1, grStreamWriteValueDefault));
    CHECK_OK(grStreamWaitValue32(s, &flag, 1, grStreamWaitValueEq));
    CHECK_OK(grStreamWriteValue64(s, &c, 99, grStreamWriteValueDefault));
    grStreamBatchMemOpParams two[2] = {write32(&a, 3), write32(&b, 4)};
    two[0].writeValue.alias = (void *)&two; /* the driver's own field: ignored */
    CHECK_OK(grStreamBatchMemOp(s, 2, two, 0));
    CHECK_OK(grStreamEndCapture(s, &g));
    /* Nothing ran while capturing. */
    CHECK_EQ(load32(&flag), 0u);
    CHECK_EQ(load32(&a), 0u);
    grGraphNode_t nodes[4];
    size_t n = 4;
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK_EQ(n, (size_t)4);
    static const int codes[3] = {grStreamMemOpWriteValue32, grStreamMemOpWaitValue32,
                                 grStreamMemOpWriteValue64};
    for (size_t i = 0; i < 4; i++) {
        grGraphNodeType t;
        grBatchMemOpNodeParams p;
        CHECK_OK(grGraphNodeGetType(nodes[i], &t));
        CHECK_EQ(t, grGraphNodeTypeBatchMemOp);
        CHECK_EQ((int)t, 12);
        CHECK_OK(grGraphBatchMemOpNodeGetParams(nodes[i], &p));
        CHECK_EQ(p.flags, 0u);
        CHECK_PTR_EQ(p.ctx, NULL);
        CHECK_EQ(p.count, i < 3 ? 1u : 2u);
        if (i < 3)
            CHECK_EQ((int)p.paramArray[0].operation, codes[i]);
        size_t nd = 2;
        grGraphNode_t dep[2];
        CHECK_OK(grGraphNodeGetDependencies(nodes[i], dep, NULL, &nd));
        CHECK_EQ(nd, (size_t)(i ? 1 : 0)); /* a chain, in capture order */
        if (i)
            CHECK_PTR_EQ(dep[0], nodes[i - 1]);
    }
    grBatchMemOpNodeParams p;
    CHECK_OK(grGraphBatchMemOpNodeGetParams(nodes[3], &p));
    CHECK_PTR_EQ(p.paramArray[0].writeValue.address, &a);
    CHECK_EQ(p.paramArray[0].writeValue.value, 3u);
    CHECK_PTR_EQ(p.paramArray[0].writeValue.alias, NULL);
    CHECK_PTR_EQ(p.paramArray[1].writeValue.address, &b);
    CHECK(p.paramArray != two);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int round = 0; round < 3; round++) {
        __atomic_store_n(&flag, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&a, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&c, 0, __ATOMIC_SEQ_CST);
        launch_sync(e, s);
        CHECK_EQ(load32(&flag), 1u);
        CHECK_EQ(load32(&a), 3u);
        CHECK_EQ(load32(&b), 4u);
        CHECK_EQ(__atomic_load_n(&c, __ATOMIC_SEQ_CST), 99ull);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* One worker: the graph's wait occupies it, and the write comes from
 * another stream that only the waiting thread can run. */
GR_TEST(graph_wait_node_is_released_by_another_stream_with_one_worker)
{
    static uint32_t flag, after;
    grStream_t s, writer;
    grGraph_t g;
    grGraphExec_t e;
    setenv("GRAPHRT_WORKERS", "1", 1);
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&writer, grStreamNonBlocking));
    CHECK_OK(grGraphCreate(&g, 0));
    grStreamBatchMemOpParams w = wait32(&flag, 1, grStreamWaitValueGeq), x = write32(&after, 1);
    grGraphNode_t wn = add_memop(g, NULL, 0, &w, 1);
    add_memop(g, &wn, 1, &x, 1);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (uint32_t round = 1; round <= 3; round++) {
        __atomic_store_n(&after, 0, __ATOMIC_SEQ_CST);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK(tl_still_waiting(s));
        CHECK_EQ(load32(&after), 0u);
        grStreamBatchMemOpParams sig = write32(&flag, round);
        CHECK_OK(grStreamBatchMemOp(writer, 1, &sig, 0));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(load32(&after), 1u);
        /* The next round waits for flag >= round + 1. */
        w.waitValue.value = round + 1;
        grBatchMemOpNodeParams np = {NULL, 1, &w, 0};
        CHECK_OK(grGraphExecBatchMemOpNodeSetParams(e, wn, &np));
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(writer));
}

static void host_store_flag(void *p)
{
    __atomic_store_n((uint32_t *)p, 1u, __ATOMIC_SEQ_CST);
}

/* The wait and its writers are unordered nodes of one launch, the wait
 * created first: the plan runs the writers before the wait, with one
 * worker or several. */
static void wait_for_unordered_writers(const char *workers)
{
    static uint32_t by_host, by_node, after;
    grGraph_t g;
    grGraphExec_t e;
    setenv("GRAPHRT_WORKERS", workers, 1);
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grGraphCreate(&g, 0));
    grStreamBatchMemOpParams w[2] = {wait32(&by_host, 1, grStreamWaitValueEq),
                                     wait32(&by_node, 1, grStreamWaitValueEq)};
    grStreamBatchMemOpParams done = write32(&after, 1), sig = write32(&by_node, 1);
    grGraphNode_t wn = add_memop(g, NULL, 0, w, 2);
    add_memop(g, &wn, 1, &done, 1);
    grHostNodeParams hp = {host_store_flag, &by_host};
    grGraphNode_t hn;
    CHECK_OK(grGraphAddHostNode(&hn, g, NULL, 0, &hp));
    add_memop(g, NULL, 0, &sig, 1);
    /* The graph, and a clone of it, which orders its waits the same. */
    grGraph_t clone;
    CHECK_OK(grGraphClone(&clone, g));
    for (int which = 0; which < 2; which++) {
        CHECK_OK(grGraphInstantiate(&e, which ? clone : g, 0));
        for (int round = 0; round < 20; round++) {
            __atomic_store_n(&by_host, 0, __ATOMIC_SEQ_CST);
            __atomic_store_n(&by_node, 0, __ATOMIC_SEQ_CST);
            __atomic_store_n(&after, 0, __ATOMIC_SEQ_CST);
            launch_sync(e, s);
            CHECK_EQ(load32(&after), 1u);
        }
        CHECK_OK(grGraphExecDestroy(e));
    }
    CHECK_OK(grGraphDestroy(clone));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(graph_wait_node_waits_for_unordered_writers_of_its_launch_with_one_worker)
{
    wait_for_unordered_writers("1");
}

GR_TEST(graph_wait_node_waits_for_unordered_writers_of_its_launch_with_four_workers)
{
    wait_for_unordered_writers("4");
}

GR_TEST(batch_mem_op_node_params_are_checked_copied_and_set)
{
    static uint32_t x, y;
    grGraph_t g;
    grGraphNode_t n, empty;
    CHECK_OK(grGraphCreate(&g, 0));
    grStreamBatchMemOpParams ops[2] = {write32(&x, 1), write32(&y, 2)};
    grBatchMemOpNodeParams p = {NULL, 2, ops, 0};
    CHECK_OK(grGraphAddBatchMemOpNode(&n, g, NULL, 0, &p));
    ops[0].writeValue.value = 50; /* the node holds a copy */
    grBatchMemOpNodeParams q;
    CHECK_OK(grGraphBatchMemOpNodeGetParams(n, &q));
    CHECK_EQ(q.count, 2u);
    CHECK_EQ(q.paramArray[0].writeValue.value, 1u);
    /* Refusals leave the node as it was. */
    p.count = 0;
    CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeSetParams(n, &p));
    p.count = 2;
    p.flags = 1;
    CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeSetParams(n, &p));
    p.flags = 0;
    ops[1].writeValue.address = (char *)&y + 1;
    CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeSetParams(n, &p));
    CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeSetParams(n, NULL));
    CHECK_OK(grGraphBatchMemOpNodeGetParams(n, &q));
    CHECK_EQ(q.count, 2u);
    CHECK_PTR_EQ(q.paramArray[1].writeValue.address, &y);
    /* Any count and types through the graph's setter. */
    grStreamBatchMemOpParams one = wait32(&x, 3, grStreamWaitValueAnd);
    grBatchMemOpNodeParams r = {NULL, 1, &one, 0};
    CHECK_OK(grGraphBatchMemOpNodeSetParams(n, &r));
    CHECK_OK(grGraphBatchMemOpNodeGetParams(n, &q));
    CHECK_EQ(q.count, 1u);
    CHECK_EQ((int)q.paramArray[0].operation, grStreamMemOpWaitValue32);
    CHECK_EQ(q.paramArray[0].waitValue.flags, grStreamWaitValueAnd);
    /* Through the generic API. */
    grGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = grGraphNodeTypeBatchMemOp;
    gp.memOp = (grBatchMemOpNodeParams){NULL, 2, ops, 0};
    ops[1].writeValue.address = &y;
    CHECK_OK(grGraphNodeSetParams(n, &gp));
    CHECK_OK(grGraphBatchMemOpNodeGetParams(n, &q));
    CHECK_EQ(q.count, 2u);
    CHECK_EQ(q.paramArray[0].writeValue.value, 50u);
    grGraphNode_t m;
    CHECK_OK(grGraphAddNode(&m, g, &n, NULL, 1, &gp));
    CHECK_OK(grGraphBatchMemOpNodeGetParams(m, &q));
    CHECK_EQ(q.count, 2u);
    gp.memOp.count = 0;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&m, g, NULL, NULL, 0, &gp));
    /* Other node types are refused by the typed calls. */
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeGetParams(empty, &q));
    CHECK_GR(grErrorInvalidValue, grGraphBatchMemOpNodeGetParams(n, NULL));
    size_t count = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, (size_t)3);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(exec_batch_mem_op_setters_and_update_keep_count_and_types)
{
    static uint32_t x, y;
    grGraph_t g, g2;
    grGraphNode_t n, n2;
    grGraphExec_t e;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphCreate(&g, 0));
    grStreamBatchMemOpParams op = write32(&x, 1);
    n = add_memop(g, NULL, 0, &op, 1);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    launch_sync(e, s);
    CHECK_EQ(load32(&x), 1u);
    /* Address and value change; the graph's node keeps its own. */
    grStreamBatchMemOpParams op2 = write32(&y, 2);
    grBatchMemOpNodeParams p = {NULL, 1, &op2, 0};
    CHECK_OK(grGraphExecBatchMemOpNodeSetParams(e, n, &p));
    launch_sync(e, s);
    CHECK_EQ(load32(&y), 2u);
    grBatchMemOpNodeParams q;
    CHECK_OK(grGraphBatchMemOpNodeGetParams(n, &q));
    CHECK_PTR_EQ(q.paramArray[0].writeValue.address, &x);
    /* Another type or count is refused, and the executable keeps its. */
    grStreamBatchMemOpParams bad[2] = {wait32(&y, 0, grStreamWaitValueEq), write32(&x, 9)};
    p.paramArray = bad;
    CHECK_GR(grErrorInvalidValue, grGraphExecBatchMemOpNodeSetParams(e, n, &p));
    CHECK_DETAIL_HAS("type");
    grStreamBatchMemOpParams two[2] = {write32(&x, 9), write32(&y, 9)};
    p.paramArray = two;
    p.count = 2;
    CHECK_GR(grErrorInvalidValue, grGraphExecBatchMemOpNodeSetParams(e, n, &p));
    CHECK_DETAIL_HAS("count");
    /* Through the generic setter. */
    grGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = grGraphNodeTypeBatchMemOp;
    gp.memOp = (grBatchMemOpNodeParams){NULL, 1, &op2, 0};
    op2.writeValue.value = 5;
    CHECK_OK(grGraphExecNodeSetParams(e, n, &gp));
    __atomic_store_n(&x, 0, __ATOMIC_SEQ_CST);
    launch_sync(e, s);
    CHECK_EQ(load32(&y), 5u);
    CHECK_EQ(load32(&x), 0u);
    /* Update: same count and types apply, another type is refused. */
    CHECK_OK(grGraphCreate(&g2, 0));
    grStreamBatchMemOpParams op3 = write32(&x, 7);
    n2 = add_memop(g2, NULL, 0, &op3, 1);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    launch_sync(e, s);
    CHECK_EQ(load32(&x), 7u);
    grStreamBatchMemOpParams op4 = wait32(&x, 7, grStreamWaitValueEq);
    grBatchMemOpNodeParams r = {NULL, 1, &op4, 0};
    CHECK_OK(grGraphBatchMemOpNodeSetParams(n2, &r));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    grStreamBatchMemOpParams op5[2] = {write32(&x, 1), write32(&y, 1)};
    r = (grBatchMemOpNodeParams){NULL, 2, op5, 0};
    CHECK_OK(grGraphBatchMemOpNodeSetParams(n2, &r));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    /* The refused updates changed nothing: it still writes 7 to x. */
    __atomic_store_n(&x, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&y, 0, __ATOMIC_SEQ_CST);
    launch_sync(e, s);
    CHECK_EQ(load32(&x), 7u);
    CHECK_EQ(load32(&y), 0u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(batch_mem_op_nodes_clone_print_and_round_trip_through_files)
{
    grGraph_t g, clone, loaded;
    grGraphNode_t n, cn;
    uint32_t *words;
    char path[128];
    CHECK_OK(grMallocHost((void **)&words, 16));
    memset(words, 0, 16);
    CHECK_OK(grGraphCreate(&g, 0));
    grStreamBatchMemOpParams ops[4] = {write32(&words[0], 4), wait32(&words[0], 4, grStreamWaitValueGeq),
                                       write64(&words[2], 0xfffffffffull)};
    ops[3].memoryBarrier.operation = grStreamMemOpBarrier;
    ops[3].memoryBarrier.flags = grStreamMemoryBarrierTypeGpu;
    n = add_memop(g, NULL, 0, ops, 4);
    /* Clone: its own copy of the operations. */
    CHECK_OK(grGraphClone(&clone, g));
    CHECK_OK(grGraphNodeFindInClone(&cn, n, clone));
    grBatchMemOpNodeParams p, q;
    CHECK_OK(grGraphBatchMemOpNodeGetParams(n, &p));
    CHECK_OK(grGraphBatchMemOpNodeGetParams(cn, &q));
    CHECK_EQ(q.count, 4u);
    CHECK(p.paramArray != q.paramArray);
    CHECK(memcmp(p.paramArray, q.paramArray, 4 * sizeof *p.paramArray) == 0);
    /* DOT: the node's type and its operations. */
    snprintf(path, sizeof path, "/tmp/graphrt-test-%ld-memop.dot", (long)getpid());
    CHECK_OK(grGraphDebugDotPrint(g, path, grGraphDebugDotFlagsVerbose));
    char *s = tl_slurp(path, NULL);
    CHECK(strstr(s, "batch mem op") != NULL);
    CHECK(strstr(s, "4 operations") != NULL);
    CHECK(strstr(s, "write32 0x4") != NULL);
    CHECK(strstr(s, "wait32 geq 0x4") != NULL);
    CHECK(strstr(s, "write64 0xfffffffff") != NULL);
    CHECK(strstr(s, "barrier gpu") != NULL);
    free(s);
    remove(path);
    /* Graph file: one 'memop' line, loaded back with the same operations
     * pointing into the loader's copy of the buffer. */
    snprintf(path, sizeof path, "/tmp/graphrt-test-%ld-memop.graph", (long)getpid());
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    s = tl_slurp(path, NULL);
    CHECK(strstr(s, "n0 memop ops=write32:b0+0:4;wait32:b0+0:geq:4;write64:b0+8:68719476735;barrier:gpu\n") !=
          NULL);
    free(s);
    CHECK_OK(grGraphLoadFromFile(&loaded, path, 0));
    remove(path);
    grGraphNode_t ln;
    size_t count = 1;
    CHECK_OK(grGraphGetNodes(loaded, &ln, &count));
    CHECK_EQ(count, (size_t)1);
    CHECK_OK(grGraphBatchMemOpNodeGetParams(ln, &q));
    CHECK_EQ(q.count, 4u);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(q.paramArray[i].operation, p.paramArray[i].operation);
        CHECK_EQ(q.paramArray[i].waitValue.value64, p.paramArray[i].waitValue.value64);
        CHECK_EQ(q.paramArray[i].waitValue.flags, p.paramArray[i].waitValue.flags);
    }
    CHECK((char *)q.paramArray[2].writeValue.address - (char *)q.paramArray[0].writeValue.address == 8);
    /* The loaded graph runs: its words are the loader's buffer. */
    grGraphExec_t e;
    grStream_t st = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&e, loaded, 0));
    launch_sync(e, st);
    CHECK_EQ(load32((uint32_t *)q.paramArray[0].writeValue.address), 4u);
    CHECK_EQ(load32(&words[0]), 0u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(st));
    CHECK_OK(grGraphDestroy(loaded));
    CHECK_OK(grGraphDestroy(clone));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFreeHost(words));
}

GR_TEST(graph_file_refuses_malformed_memop_lines)
{
    static const char *const lines[] = {
        "  n0 memop\n",
        "  n0 memop ops=\n",
        "  n0 memop ops=write32:b0+0\n",
        "  n0 memop ops=wait32:b0+0:gt:1\n",
        "  n0 memop ops=read32:b0+0:1\n",
        "  n0 memop ops=write32:b0+0:4294967296\n",
        "  n0 memop ops=write32:b0+2:1\n", /* unaligned: the add refuses it */
        "  n0 memop ops=barrier:cpu\n",
        "  n0 memop ops=flush:b0+0:1\n",
    };
    char path[128];
    snprintf(path, sizeof path, "/tmp/graphrt-test-%ld-badmemop.graph", (long)getpid());
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        fprintf(f, "graphrt-graph 1\nbuffer b0 host 16\ngraph {\n%s}\n", lines[i]);
        fclose(f);
        grGraph_t g = NULL;
        grError_t err = grGraphLoadFromFile(&g, path, 0);
        if (err == grSuccess)
            GR_TEST_FAIL_("line %zu loaded: %s", i, lines[i]);
        CHECK_EQ(err, grErrorInvalidValue);
    }
    remove(path);
}

GR_TEST(batch_mem_op_in_a_conditional_body_is_refused_at_instantiate)
{
    static uint32_t x;
    grGraph_t g;
    grGraphConditionalHandle h;
    grGraphExec_t e = NULL;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    grGraph_t *body;
    (void)tl_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 1, &body);
    grStreamBatchMemOpParams op = write32(&x, 1);
    add_memop(body[0], NULL, 0, &op, 1);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("batch mem op");
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(baked_values_list_the_words_of_memory_operations)
{
    uint32_t *words;
    grGraph_t g;
    grGraphExec_t e;
    CHECK_OK(grMallocHost((void **)&words, 16));
    CHECK_OK(grGraphCreate(&g, 0));
    grStreamBatchMemOpParams ops[3] = {write32(&words[1], 1), write64(&words[2], 2)};
    ops[2].memoryBarrier.operation = grStreamMemOpBarrier;
    add_memop(g, NULL, 0, ops, 3);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    grBakedValue v[4];
    size_t n = 4;
    CHECK_OK(grGraphExecGetBakedValues(e, v, &n));
    CHECK_EQ(n, (size_t)2); /* the barrier has no word */
    CHECK_EQ(v[0].field, grBakedMemOpAddress);
    CHECK_EQ(v[0].nodeType, grGraphNodeTypeBatchMemOp);
    CHECK_EQ(v[0].param, 0);
    CHECK_EQ(v[0].extent, (size_t)4);
    CHECK_EQ(v[0].kind, grBakedAllocation);
    CHECK_EQ(v[0].allocOffset, (size_t)4);
    CHECK_EQ(v[1].param, 1);
    CHECK_EQ(v[1].extent, (size_t)8);
    CHECK_EQ(v[1].allocOffset, (size_t)8);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFreeHost(words));
}
