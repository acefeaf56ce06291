/*
 * test-simple-graphs.c - NVIDIA's simpleCudaGraphs sample, written here
 * from its description with kernels in graphrt_kernel.h's language
 * (tests/kernels/simple_graphs_kernels.c) that keep its reduction: shared
 * memory halved with a barrier per level, warp shuffles, a double atomic
 * add. The sample's flow: random input on the host; a graph that copies
 * it to the device, clears the partial sums and the result (memsets),
 * reduces per block, reduces the partial sums, copies the result back and
 * checks it in a host node, which clears it for the next launch. The
 * graph is built by hand and again by capturing three streams, cloned,
 * and both the graph and its clone are instantiated and launched a few
 * times; every launch's result must match the host's sum.
 *
 * Each test has a CPU half and a GPU half (skipped without a GPU): the
 * kernels are the same source, compiled for both.
 */
#include "test.h"

#include "graphrt_kernel.h"

#include <math.h>

GR_KERNEL_DECLARE(sg_reduce);
GR_KERNEL_DECLARE(sg_reduce_final);

enum {
    SG_THREADS = 512,         /* threads per block, as the sample's */
    SG_BLOCKS = 64,           /* blocks of the first reduction: partial sums */
    SG_LAUNCH_ITERATIONS = 3, /* launches of each executable graph */
    SG_N = (1 << 20) + 12345  /* inputs: not a multiple of the grid */
};

/* What the host node reads: the result copied back, the host's sum, and
 * counts of its calls and of the results that did not match. */
typedef struct sg_check {
    double *result_h;
    double expected;
    int calls, mismatches;
    double last;
} sg_check;

typedef struct sg_state {
    float *input_h, *input_d;
    double *partial_d, *result_d, *result_h;
    size_t n, num_partial;
    grKernel_t reduce, reduce_final;
    sg_check check;
} sg_state;

/* The host node: compare, count, and clear the result for the next
 * launch (the sample prints the sum and zeroes it). */
static void sg_host_check(void *data)
{
    sg_check *c = data;
    c->calls++;
    c->last = *c->result_h;
    if (fabs(*c->result_h - c->expected) > 1e-9 * fabs(c->expected))
        c->mismatches++;
    *c->result_h = 0.0;
}

static void sg_setup(sg_state *s, int gpu)
{
    gr_test_device_or_skip(gpu);
    memset(s, 0, sizeof *s);
    s->n = SG_N;
    s->num_partial = SG_BLOCKS;
    CHECK_OK(GR_KERNEL_CREATE(&s->reduce, sg_reduce));
    CHECK_OK(GR_KERNEL_CREATE(&s->reduce_final, sg_reduce_final));
    CHECK_OK(grMallocHost((void **)&s->input_h, s->n * sizeof(float)));
    CHECK_OK(grMallocHost((void **)&s->result_h, sizeof(double)));
    CHECK_OK(grMalloc((void **)&s->input_d, s->n * sizeof(float)));
    CHECK_OK(grMalloc((void **)&s->partial_d, s->num_partial * sizeof(double)));
    CHECK_OK(grMalloc((void **)&s->result_d, sizeof(double)));
    /* The sample's input: uniform floats in [0, 1), from a fixed seed. */
    unsigned seed = 12345u;
    double sum = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        seed = seed * 1664525u + 1013904223u;
        s->input_h[i] = (float)(seed >> 8) / 16777216.0f;
        sum += (double)s->input_h[i];
    }
    *s->result_h = 0.0;
    s->check.result_h = s->result_h;
    s->check.expected = sum;
}

static void sg_teardown(sg_state *s)
{
    CHECK_OK(grFreeHost(s->input_h));
    CHECK_OK(grFreeHost(s->result_h));
    CHECK_OK(grFree(s->input_d));
    CHECK_OK(grFree(s->partial_d));
    CHECK_OK(grFree(s->result_d));
    CHECK_OK(grKernelDestroy(s->reduce));
    CHECK_OK(grKernelDestroy(s->reduce_final));
}

/* Clones graph, instantiates both, launches each SG_LAUNCH_ITERATIONS
 * times on a stream of its own and checks what the host node saw. */
static void sg_run_graph_and_clone(sg_state *s, grGraph_t graph)
{
    grGraph_t clone;
    CHECK_OK(grGraphClone(&clone, graph));
    grGraph_t graphs[2] = {graph, clone};
    grStream_t stream;
    CHECK_OK(grStreamCreateWithFlags(&stream, grStreamNonBlocking));
    for (int g = 0; g < 2; g++) {
        grGraphExec_t exec;
        CHECK_OK(grGraphInstantiate(&exec, graphs[g], 0));
        s->check.calls = s->check.mismatches = 0;
        for (int i = 0; i < SG_LAUNCH_ITERATIONS; i++)
            CHECK_OK(grGraphLaunch(exec, stream));
        CHECK_OK(grStreamSynchronize(stream));
        if (s->check.mismatches)
            GR_TEST_FAIL_("%s: %d of %d launches reduced to a wrong sum (last %.17g, host %.17g)",
                          g ? "the clone" : "the graph", s->check.mismatches, s->check.calls, s->check.last,
                          s->check.expected);
        CHECK_EQ(s->check.calls, SG_LAUNCH_ITERATIONS);
        CHECK_OK(grGraphExecDestroy(exec));
    }
    CHECK_OK(grStreamDestroy(stream));
    CHECK_OK(grGraphDestroy(clone));
}

/* The graph built node by node, as the sample's manual half: the copy in
 * and the memset of the partial sums before the block reduction; it and
 * the memset of the result before the final one; then the copy back and
 * the host node. */
static void simple_graphs_manual(int gpu)
{
    sg_state s;
    sg_setup(&s, gpu);
    grGraph_t graph;
    CHECK_OK(grGraphCreate(&graph, 0));
    grGraphNode_t copy_in, clear_partial, reduce, clear_result, reduce_final, copy_out, host;

    grMemcpy3DParms cp = {0};
    cp.srcPtr = make_grPitchedPtr(s.input_h, s.n * sizeof(float), s.n, 1);
    cp.dstPtr = make_grPitchedPtr(s.input_d, s.n * sizeof(float), s.n, 1);
    cp.extent = make_grExtent(s.n * sizeof(float), 1, 1);
    cp.kind = grMemcpyHostToDevice;
    CHECK_OK(grGraphAddMemcpyNode(&copy_in, graph, NULL, 0, &cp));

    /* Doubles cleared as twice as many 4-byte elements, as the sample. */
    grMemsetParams ms = {0};
    ms.dst = s.partial_d;
    ms.value = 0;
    ms.elementSize = sizeof(float);
    ms.width = s.num_partial * 2;
    ms.height = 1;
    CHECK_OK(grGraphAddMemsetNode(&clear_partial, graph, NULL, 0, &ms));

    grGraphNode_t deps[2] = {clear_partial, copy_in};
    void *reduce_args[] = {&s.input_d, &s.partial_d, &s.n};
    grKernelNodeParams kp = {0};
    kp.func = s.reduce;
    kp.gridDim = GR_DIM3(SG_BLOCKS, 1, 1);
    kp.blockDim = GR_DIM3(SG_THREADS, 1, 1);
    kp.kernelParams = reduce_args;
    CHECK_OK(grGraphAddKernelNode(&reduce, graph, deps, 2, &kp));

    ms.dst = s.result_d;
    ms.width = 2;
    CHECK_OK(grGraphAddMemsetNode(&clear_result, graph, NULL, 0, &ms));

    deps[0] = reduce;
    deps[1] = clear_result;
    void *final_args[] = {&s.partial_d, &s.result_d, &s.num_partial};
    kp.func = s.reduce_final;
    kp.gridDim = GR_DIM3(1, 1, 1);
    kp.kernelParams = final_args;
    CHECK_OK(grGraphAddKernelNode(&reduce_final, graph, deps, 2, &kp));

    memset(&cp, 0, sizeof cp);
    cp.srcPtr = make_grPitchedPtr(s.result_d, sizeof(double), 1, 1);
    cp.dstPtr = make_grPitchedPtr(s.result_h, sizeof(double), 1, 1);
    cp.extent = make_grExtent(sizeof(double), 1, 1);
    cp.kind = grMemcpyDeviceToHost;
    CHECK_OK(grGraphAddMemcpyNode(&copy_out, graph, &reduce_final, 1, &cp));

    grHostNodeParams hp = {sg_host_check, &s.check};
    CHECK_OK(grGraphAddHostNode(&host, graph, &copy_out, 1, &hp));

    size_t count = 0;
    CHECK_OK(grGraphGetNodes(graph, NULL, &count));
    CHECK_EQ(count, 7);
    sg_run_graph_and_clone(&s, graph);
    CHECK_OK(grGraphDestroy(graph));
    sg_teardown(&s);
}

GR_TEST(simple_graphs_manual_cpu)
{
    simple_graphs_manual(0);
}

GR_TEST(simple_graphs_manual_gpu)
{
    simple_graphs_manual(1);
}

/* The same work captured, as the sample's second half: stream 1 forks to
 * streams 2 and 3, which clear the partial sums and the result and record
 * events that stream 1 waits on before each reduction; the copy back and
 * the host function follow on stream 1. */
static void simple_graphs_captured(int gpu)
{
    sg_state s;
    sg_setup(&s, gpu);
    grStream_t s1, s2, s3;
    grEvent_t fork, partial_cleared, result_cleared;
    CHECK_OK(grStreamCreate(&s1));
    CHECK_OK(grStreamCreate(&s2));
    CHECK_OK(grStreamCreate(&s3));
    CHECK_OK(grEventCreate(&fork));
    CHECK_OK(grEventCreate(&partial_cleared));
    CHECK_OK(grEventCreate(&result_cleared));

    CHECK_OK(grStreamBeginCapture(s1, grStreamCaptureModeGlobal));
    CHECK_OK(grEventRecord(fork, s1));
    CHECK_OK(grStreamWaitEvent(s2, fork, 0));
    CHECK_OK(grStreamWaitEvent(s3, fork, 0));
    CHECK_OK(grMemcpyAsync(s.input_d, s.input_h, s.n * sizeof(float), grMemcpyDefault, s1));
    CHECK_OK(grMemsetAsync(s.partial_d, 0, s.num_partial * sizeof(double), s2));
    CHECK_OK(grEventRecord(partial_cleared, s2));
    CHECK_OK(grStreamWaitEvent(s1, partial_cleared, 0));
    void *reduce_args[] = {&s.input_d, &s.partial_d, &s.n};
    CHECK_OK(
        grLaunchKernel(s.reduce, GR_DIM3(SG_BLOCKS, 1, 1), GR_DIM3(SG_THREADS, 1, 1), reduce_args, 0, s1));
    CHECK_OK(grMemsetAsync(s.result_d, 0, sizeof(double), s3));
    CHECK_OK(grEventRecord(result_cleared, s3));
    CHECK_OK(grStreamWaitEvent(s1, result_cleared, 0));
    void *final_args[] = {&s.partial_d, &s.result_d, &s.num_partial};
    CHECK_OK(grLaunchKernel(s.reduce_final, GR_DIM3(1, 1, 1), GR_DIM3(SG_THREADS, 1, 1), final_args, 0, s1));
    CHECK_OK(grMemcpyAsync(s.result_h, s.result_d, sizeof(double), grMemcpyDefault, s1));
    CHECK_OK(grLaunchHostFunc(s1, sg_host_check, &s.check));
    grGraph_t graph;
    CHECK_OK(grStreamEndCapture(s1, &graph));

    size_t count = 0;
    CHECK_OK(grGraphGetNodes(graph, NULL, &count));
    CHECK_EQ(count, 7);
    sg_run_graph_and_clone(&s, graph);
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grEventDestroy(partial_cleared));
    CHECK_OK(grEventDestroy(result_cleared));
    CHECK_OK(grStreamDestroy(s1));
    CHECK_OK(grStreamDestroy(s2));
    CHECK_OK(grStreamDestroy(s3));
    sg_teardown(&s);
}

GR_TEST(simple_graphs_captured_cpu)
{
    simple_graphs_captured(0);
}

GR_TEST(simple_graphs_captured_gpu)
{
    simple_graphs_captured(1);
}
