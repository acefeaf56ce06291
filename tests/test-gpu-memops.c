/*
 * test-gpu-memops.c - stream memory operations on an NVIDIA GPU: waits
 * and writes of a GPU stream through the driver's cuStreamBatchMemOp, and
 * the refusals that stay (a GPU's word on a CPU stream, batch memory
 * operation nodes in an executable of a GPU). Every test first asks for a
 * GPU and is skipped, saying why, where there is none.
 */
#include "testlib.h"

#include <string.h>

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

GR_TEST(gpu_memory_words_on_a_cpu_stream_and_memop_graphs_on_a_gpu_are_refused)
{
    uint32_t *d = NULL;
    grStream_t cpu, gpu;
    grGraph_t g;
    grGraphExec_t e = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grMalloc((void **)&d, 16));
    CHECK_OK(grStreamCreate(&gpu));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu));
    CHECK_GR(grErrorNotSupported, grStreamWriteValue32(cpu, d, 1, grStreamWriteValueDefault));
    CHECK_DETAIL_HAS("GPU's memory");
    CHECK_OK(grStreamSynchronize(cpu));
    /* Captured on the GPU stream: a node, which a GPU executable refuses. */
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamBeginCapture(gpu, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamWriteValue32(gpu, d, 1, grStreamWriteValueDefault));
    CHECK_OK(grStreamEndCapture(gpu, &g));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("batch memory operation");
    /* On the CPU device, the node's word in a GPU's memory is refused as
     * a copy node's destination there would be. */
    CHECK_OK(grSetDevice(0));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("memory of device 1");
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(gpu));
    CHECK_OK(grStreamDestroy(cpu));
    CHECK_OK(grFree(d));
}
