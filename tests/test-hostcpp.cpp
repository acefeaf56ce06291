/*
 * test-hostcpp.cpp - C++ host code written as a CUDA programmer writes it,
 * with every CUDA call renamed ('cuda' -> 'gr') and nothing else changed:
 * templated allocations without casts, dim3, default arguments, the
 * 5-argument grGraphInstantiate, grStreamEndCapture(s, NULL) after a
 * capture into a graph, and a gate on grDriverGetVersion. The programs are
 * the article's (a captured foo -> device-to-device copy -> bar; an
 * explicit graph of two kernels updated with set-params) and the host
 * flows of NVIDIA's simpleCudaGraphs and graphConditionalNodes samples,
 * written here from their descriptions. It needs include/graphrt.hpp
 * only; CMake builds it into the suite where a C++ compiler is found.
 *
 * Kernels are graphrt's per-block C functions (graphrt.h, grKernelCreate);
 * the kernel language is another subject (graphrt_kernel.h).
 */
#include "graphrt.hpp"

#include "test.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace {

/* ---------------------------------------------------------------- kernels */

/* x[i] = x[i] * mul + add over n ints: the article's foo, and the first
 * kernel of its explicit graph. */
void scale_add(const grKernelCtx *ctx, void **args)
{
    int *x = *static_cast<int **>(args[0]);
    int n = *static_cast<int *>(args[1]);
    int mul = *static_cast<int *>(args[2]);
    int add = *static_cast<int *>(args[3]);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        size_t i = GR_GLOBAL_X(ctx, tx);
        if (i < static_cast<size_t>(n))
            x[i] = x[i] * mul + add;
    }
}

/* y[i] = x[i] + add: the article's bar (x == y), and the second kernel of
 * its explicit graph. */
void copy_add(const grKernelCtx *ctx, void **args)
{
    const int *x = *static_cast<const int **>(args[0]);
    int *y = *static_cast<int **>(args[1]);
    int n = *static_cast<int *>(args[2]);
    int add = *static_cast<int *>(args[3]);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        size_t i = GR_GLOBAL_X(ctx, tx);
        if (i < static_cast<size_t>(n))
            y[i] = x[i] + add;
    }
}

/* Block b sums in[i] for every i of its threads, striding by the grid:
 * partial[b]. The first step of simpleCudaGraphs' reduction (the sample
 * does it with shared memory; the host code does not care how). */
void reduce_blocks(const grKernelCtx *ctx, void **args)
{
    const float *in = *static_cast<const float **>(args[0]);
    double *partial = *static_cast<double **>(args[1]);
    size_t n = *static_cast<size_t *>(args[2]);
    size_t stride = static_cast<size_t>(ctx->gridDim.x) * ctx->blockDim.x;
    double sum = 0;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        for (size_t i = GR_GLOBAL_X(ctx, tx); i < n; i += stride)
            sum += in[i];
    }
    partial[ctx->blockIdx.x] = sum;
}

/* *result = the sum of partial[0..count): the second step, one block. */
void reduce_final(const grKernelCtx *ctx, void **args)
{
    const double *partial = *static_cast<const double **>(args[0]);
    double *result = *static_cast<double **>(args[1]);
    size_t count = *static_cast<size_t *>(args[2]);
    (void)ctx;
    double sum = 0;
    for (size_t i = 0; i < count; ++i)
        sum += partial[i];
    *result = sum;
}

/* Sets the handle to *value (graphConditionalNodes' kernel that decides
 * an IF from device data). */
void set_handle(const grKernelCtx *ctx, void **args)
{
    const unsigned *value = *static_cast<const unsigned **>(args[0]);
    grGraphConditionalHandle h = *static_cast<grGraphConditionalHandle *>(args[1]);
    (void)ctx;
    grGraphSetConditional(h, *value);
}

/* ++*count: a body's work that shows whether and how often it ran. */
void count_up(const grKernelCtx *ctx, void **args)
{
    int *count = *static_cast<int **>(args[0]);
    (void)ctx;
    ++*count;
}

/* The WHILE body: --*left, and ends the loop at zero. */
void count_down(const grKernelCtx *ctx, void **args)
{
    int *left = *static_cast<int **>(args[0]);
    grGraphConditionalHandle h = *static_cast<grGraphConditionalHandle *>(args[1]);
    (void)ctx;
    if (--*left == 0)
        grGraphSetConditional(h, 0);
}

grKernel_t make_kernel(grKernelFn fn, const char *name, std::vector<size_t> sizes)
{
    grKernel_t k = nullptr;
    CHECK_OK(grKernelCreate(&k, fn, name, static_cast<int>(sizes.size()), sizes.data()));
    return k;
}

const int N_INTS = 1000;
const unsigned BLOCK = 128;

} // namespace

/* ------------------------------------------------------------ the article */

/* The article's capture: foo on a, a device-to-device copy of a into b,
 * bar on b, recorded from a stream and replayed. */
GR_TEST(hostcpp_article_capture_foo_copy_bar)
{
    grKernel_t foo = make_kernel(scale_add, "foo", {sizeof(int *), sizeof(int), sizeof(int), sizeof(int)});
    grKernel_t bar = make_kernel(copy_add, "bar", {sizeof(int *), sizeof(int *), sizeof(int), sizeof(int)});
    int n = N_INTS, mul = 2, add = 1, ten = 10;
    int *a = nullptr, *b = nullptr, *host = nullptr;
    CHECK_OK(grMalloc(&a, n * sizeof(int)));
    CHECK_OK(grMalloc(&b, n * sizeof(int)));
    CHECK_OK(grMallocHost(&host, n * sizeof(int)));
    for (int i = 0; i < n; ++i)
        host[i] = i;
    CHECK_OK(grMemcpy(a, host, n * sizeof(int), grMemcpyHostToDevice));

    grStream_t stream;
    CHECK_OK(grStreamCreateWithFlags(&stream, grStreamNonBlocking));
    dim3 block(BLOCK), grid((n + BLOCK - 1) / BLOCK);
    void *fooArgs[] = {&a, &n, &mul, &add};
    void *barArgs[] = {&b, &b, &n, &ten};
    grGraph_t graph;
    CHECK_OK(grStreamBeginCapture(stream, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(foo, grid, block, fooArgs, 0, stream));
    CHECK_OK(grMemcpyAsync(b, a, n * sizeof(int), grMemcpyDeviceToDevice, stream));
    CHECK_OK(grLaunchKernel(bar, grid, block, barArgs, 0, stream));
    CHECK_OK(grStreamEndCapture(stream, &graph));

    size_t numNodes = 0;
    CHECK_OK(grGraphGetNodes(graph, nullptr, &numNodes));
    CHECK_EQ(numNodes, 3);
    grGraphExec_t exec;
    char log[256] = "untouched";
    CHECK_OK(grGraphInstantiate(&exec, graph, nullptr, log, sizeof log));
    CHECK_EQ(log[0], '\0');
    std::vector<int> model(host, host + n);
    for (int launch = 0; launch < 3; ++launch) {
        CHECK_OK(grGraphLaunch(exec, stream));
        for (int &v : model)
            v = v * 2 + 1;
    }
    CHECK_OK(grStreamSynchronize(stream));
    CHECK_OK(grMemcpy(host, b, n * sizeof(int), grMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        CHECK_EQ(host[i], model[i] + 10);

    CHECK_OK(grGraphExecDestroy(exec));
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grStreamDestroy(stream));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grFreeHost(host));
    CHECK_OK(grKernelDestroy(foo));
    CHECK_OK(grKernelDestroy(bar));
}

/* The article's explicit graph: kernel 1 -> kernel 2 built by hand,
 * launched, then kernel 1's parameters changed in the executable with
 * grGraphExecKernelNodeSetParams and launched again. */
GR_TEST(hostcpp_article_explicit_graph_set_params)
{
    grKernel_t k1 = make_kernel(scale_add, "k1", {sizeof(int *), sizeof(int), sizeof(int), sizeof(int)});
    grKernel_t k2 = make_kernel(copy_add, "k2", {sizeof(int *), sizeof(int *), sizeof(int), sizeof(int)});
    int n = N_INTS, mul = 3, add = 0, add2 = 5;
    int *x = nullptr, *y = nullptr;
    CHECK_OK(grMalloc(&x, n * sizeof(int)));
    CHECK_OK(grMalloc(&y, n * sizeof(int)));
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i)
        host[i] = i;
    CHECK_OK(grMemcpy(x, host.data(), n * sizeof(int), grMemcpyHostToDevice));

    grGraph_t graph;
    CHECK_OK(grGraphCreate(&graph, 0));
    void *args1[] = {&x, &n, &mul, &add};
    void *args2[] = {&x, &y, &n, &add2};
    grKernelNodeParams p1 = {0};
    p1.func = k1;
    p1.gridDim = dim3((n + BLOCK - 1) / BLOCK, 1, 1);
    p1.blockDim = dim3(BLOCK, 1, 1);
    p1.sharedMemBytes = 0;
    p1.kernelParams = args1;
    p1.extra = nullptr;
    grKernelNodeParams p2 = p1;
    p2.func = k2;
    p2.kernelParams = args2;
    grGraphNode_t n1, n2;
    CHECK_OK(grGraphAddKernelNode(&n1, graph, nullptr, 0, &p1));
    CHECK_OK(grGraphAddKernelNode(&n2, graph, &n1, 1, &p2));

    grGraphExec_t exec;
    CHECK_OK(grGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    CHECK_OK(grGraphLaunch(exec, 0));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grMemcpy(host.data(), y, n * sizeof(int), grMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        CHECK_EQ(host[i], 3 * i + 5);

    /* New values for kernel 1 (the node's copy is what changes; args1 may
     * be reused at once). */
    mul = 1;
    add = 100;
    CHECK_OK(grGraphExecKernelNodeSetParams(exec, n1, &p1));
    CHECK_OK(grGraphLaunch(exec, 0));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grMemcpy(host.data(), y, n * sizeof(int), grMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        CHECK_EQ(host[i], 3 * i + 100 + 5);

    CHECK_OK(grGraphExecDestroy(exec));
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grFree(x));
    CHECK_OK(grFree(y));
    CHECK_OK(grKernelDestroy(k1));
    CHECK_OK(grKernelDestroy(k2));
}

/* ------------------------------------------------------- simpleCudaGraphs */

namespace {

const size_t SG_N = 1 << 16;
const unsigned SG_THREADS = 256, SG_BLOCKS = 32;
const int SG_LAUNCHES = 5;

/* What the host node of the sample checks: the reduction's result against
 * the host's sum, counting the calls and the mismatches, and clearing the
 * result for the next launch. */
struct HostCheck {
    double *result_h;
    double expected;
    int calls;
    int mismatches;
};

void CUDART_CB check_result(void *data)
{
    HostCheck *c = static_cast<HostCheck *>(data);
    ++c->calls;
    if (std::fabs(*c->result_h - c->expected) > 1e-6 * std::fabs(c->expected))
        ++c->mismatches;
    *c->result_h = 0;
}

/* The sample's buffers and kernels. */
struct SimpleGraphs {
    float *input_h = nullptr, *input_d = nullptr;
    double *partial_d = nullptr, *result_d = nullptr, *result_h = nullptr;
    size_t n = SG_N, numPartial = SG_BLOCKS;
    grKernel_t reduce = nullptr, reduceFinal = nullptr;
    HostCheck check = {nullptr, 0, 0, 0};

    void setUp()
    {
        reduce = make_kernel(reduce_blocks, "reduce", {sizeof(float *), sizeof(double *), sizeof(size_t)});
        reduceFinal =
            make_kernel(reduce_final, "reduceFinal", {sizeof(double *), sizeof(double *), sizeof(size_t)});
        CHECK_OK(grMallocHost(&input_h, n * sizeof(float)));
        CHECK_OK(grMallocHost(&result_h, sizeof(double)));
        CHECK_OK(grMalloc(&input_d, n * sizeof(float)));
        CHECK_OK(grMalloc(&partial_d, numPartial * sizeof(double)));
        CHECK_OK(grMalloc(&result_d, sizeof(double)));
        double sum = 0;
        for (size_t i = 0; i < n; ++i) {
            input_h[i] = static_cast<float>(i % 17) * 0.5f;
            sum += input_h[i];
        }
        check.result_h = result_h;
        check.expected = sum;
        *result_h = 0;
    }

    void tearDown()
    {
        CHECK_OK(grFreeHost(input_h));
        CHECK_OK(grFreeHost(result_h));
        CHECK_OK(grFree(input_d));
        CHECK_OK(grFree(partial_d));
        CHECK_OK(grFree(result_d));
        CHECK_OK(grKernelDestroy(reduce));
        CHECK_OK(grKernelDestroy(reduceFinal));
    }
};

/* Launches exec SG_LAUNCHES times on a stream of its own and checks what
 * the host node saw. */
void launch_and_check(SimpleGraphs &sg, grGraphExec_t exec)
{
    grStream_t streamForGraph;
    CHECK_OK(grStreamCreateWithFlags(&streamForGraph, grStreamNonBlocking));
    sg.check.calls = 0;
    sg.check.mismatches = 0;
    for (int i = 0; i < SG_LAUNCHES; ++i)
        CHECK_OK(grGraphLaunch(exec, streamForGraph));
    CHECK_OK(grStreamSynchronize(streamForGraph));
    CHECK_EQ(sg.check.calls, SG_LAUNCHES);
    CHECK_EQ(sg.check.mismatches, 0);
    CHECK_OK(grStreamDestroy(streamForGraph));
}

} // namespace

/* simpleCudaGraphs, graph built by hand: a host-to-device copy of the
 * input and a memset of the partial sums feed the block reduction; it and
 * a memset of the result feed the final reduction, whose result is copied
 * back and checked by a host node. The graph is cloned, both are
 * instantiated with the 5-argument form and launched a few times. */
GR_TEST(hostcpp_simple_graphs_manual)
{
    SimpleGraphs sg;
    sg.setUp();
    grGraph_t graph;
    CHECK_OK(grGraphCreate(&graph, 0));
    std::vector<grGraphNode_t> nodeDependencies;
    grGraphNode_t memcpyNode, kernelNode, memsetNode;

    grMemcpy3DParms memcpyParams = {0};
    memcpyParams.srcArray = nullptr;
    memcpyParams.srcPos = make_grPos(0, 0, 0);
    memcpyParams.srcPtr = make_grPitchedPtr(sg.input_h, sizeof(float) * sg.n, sg.n, 1);
    memcpyParams.dstArray = nullptr;
    memcpyParams.dstPos = make_grPos(0, 0, 0);
    memcpyParams.dstPtr = make_grPitchedPtr(sg.input_d, sizeof(float) * sg.n, sg.n, 1);
    memcpyParams.extent = make_grExtent(sizeof(float) * sg.n, 1, 1);
    memcpyParams.kind = grMemcpyHostToDevice;
    CHECK_OK(grGraphAddMemcpyNode(&memcpyNode, graph, nullptr, 0, &memcpyParams));

    grMemsetParams memsetParams = {0};
    memsetParams.dst = sg.partial_d;
    memsetParams.value = 0;
    memsetParams.pitch = 0;
    memsetParams.elementSize = sizeof(float);
    memsetParams.width = sg.numPartial * 2;
    memsetParams.height = 1;
    CHECK_OK(grGraphAddMemsetNode(&memsetNode, graph, nullptr, 0, &memsetParams));

    nodeDependencies.push_back(memsetNode);
    nodeDependencies.push_back(memcpyNode);
    void *kernelArgs[3] = {&sg.input_d, &sg.partial_d, &sg.n};
    grKernelNodeParams kernelNodeParams = {0};
    kernelNodeParams.func = sg.reduce;
    kernelNodeParams.gridDim = dim3(SG_BLOCKS, 1, 1);
    kernelNodeParams.blockDim = dim3(SG_THREADS, 1, 1);
    kernelNodeParams.sharedMemBytes = 0;
    kernelNodeParams.kernelParams = kernelArgs;
    kernelNodeParams.extra = nullptr;
    CHECK_OK(grGraphAddKernelNode(&kernelNode, graph, nodeDependencies.data(), nodeDependencies.size(),
                                  &kernelNodeParams));

    nodeDependencies.clear();
    nodeDependencies.push_back(kernelNode);
    memsetParams = {};
    memsetParams.dst = sg.result_d;
    memsetParams.elementSize = sizeof(float);
    memsetParams.width = 2;
    memsetParams.height = 1;
    CHECK_OK(grGraphAddMemsetNode(&memsetNode, graph, nullptr, 0, &memsetParams));
    nodeDependencies.push_back(memsetNode);

    void *finalArgs[3] = {&sg.partial_d, &sg.result_d, &sg.numPartial};
    kernelNodeParams = {};
    kernelNodeParams.func = sg.reduceFinal;
    kernelNodeParams.gridDim = dim3(1, 1, 1);
    kernelNodeParams.blockDim = dim3(SG_THREADS, 1, 1);
    kernelNodeParams.kernelParams = finalArgs;
    CHECK_OK(grGraphAddKernelNode(&kernelNode, graph, nodeDependencies.data(), nodeDependencies.size(),
                                  &kernelNodeParams));
    nodeDependencies.clear();
    nodeDependencies.push_back(kernelNode);

    memcpyParams = {};
    memcpyParams.srcPos = make_grPos(0, 0, 0);
    memcpyParams.srcPtr = make_grPitchedPtr(sg.result_d, sizeof(double), 1, 1);
    memcpyParams.dstPos = make_grPos(0, 0, 0);
    memcpyParams.dstPtr = make_grPitchedPtr(sg.result_h, sizeof(double), 1, 1);
    memcpyParams.extent = make_grExtent(sizeof(double), 1, 1);
    memcpyParams.kind = grMemcpyDeviceToHost;
    CHECK_OK(grGraphAddMemcpyNode(&memcpyNode, graph, nodeDependencies.data(), nodeDependencies.size(),
                                  &memcpyParams));
    nodeDependencies.clear();
    nodeDependencies.push_back(memcpyNode);

    grGraphNode_t hostNode;
    grHostNodeParams hostParams = {0};
    hostParams.fn = check_result;
    hostParams.userData = &sg.check;
    CHECK_OK(
        grGraphAddHostNode(&hostNode, graph, nodeDependencies.data(), nodeDependencies.size(), &hostParams));

    size_t numNodes = 0;
    CHECK_OK(grGraphGetNodes(graph, nullptr, &numNodes));
    CHECK_EQ(numNodes, 7);

    grGraph_t clonedGraph;
    CHECK_OK(grGraphClone(&clonedGraph, graph));
    grGraphExec_t graphExec, clonedGraphExec;
    CHECK_OK(grGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0));
    CHECK_OK(grGraphInstantiate(&clonedGraphExec, clonedGraph, nullptr, nullptr, 0));
    launch_and_check(sg, graphExec);
    launch_and_check(sg, clonedGraphExec);

    CHECK_OK(grGraphExecDestroy(graphExec));
    CHECK_OK(grGraphExecDestroy(clonedGraphExec));
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grGraphDestroy(clonedGraph));
    sg.tearDown();
}

/* simpleCudaGraphs, the same work captured: stream 1 forks to streams 2
 * and 3 with an event, they clear the partial sums and the result and
 * record events that stream 1 waits on before each reduction; the copy
 * back and the host check follow on stream 1. */
GR_TEST(hostcpp_simple_graphs_captured)
{
    SimpleGraphs sg;
    sg.setUp();
    grStream_t stream1, stream2, stream3, streamForGraph;
    grEvent_t forkStreamEvent, memsetEvent1, memsetEvent2;
    CHECK_OK(grStreamCreate(&stream1));
    CHECK_OK(grStreamCreate(&stream2));
    CHECK_OK(grStreamCreate(&stream3));
    CHECK_OK(grStreamCreate(&streamForGraph));
    CHECK_OK(grEventCreate(&forkStreamEvent));
    CHECK_OK(grEventCreate(&memsetEvent1));
    CHECK_OK(grEventCreate(&memsetEvent2));

    grGraph_t graph;
    CHECK_OK(grStreamBeginCapture(stream1, grStreamCaptureModeGlobal));
    CHECK_OK(grEventRecord(forkStreamEvent, stream1));
    CHECK_OK(grStreamWaitEvent(stream2, forkStreamEvent, 0));
    CHECK_OK(grStreamWaitEvent(stream3, forkStreamEvent, 0));
    CHECK_OK(grMemcpyAsync(sg.input_d, sg.input_h, sizeof(float) * sg.n, grMemcpyDefault, stream1));
    CHECK_OK(grMemsetAsync(sg.partial_d, 0, sizeof(double) * sg.numPartial, stream2));
    CHECK_OK(grEventRecord(memsetEvent1, stream2));
    CHECK_OK(grMemsetAsync(sg.result_d, 0, sizeof(double), stream3));
    CHECK_OK(grEventRecord(memsetEvent2, stream3));
    CHECK_OK(grStreamWaitEvent(stream1, memsetEvent1, 0));
    void *kernelArgs[3] = {&sg.input_d, &sg.partial_d, &sg.n};
    CHECK_OK(grLaunchKernel(sg.reduce, dim3(SG_BLOCKS), dim3(SG_THREADS), kernelArgs, 0, stream1));
    CHECK_OK(grStreamWaitEvent(stream1, memsetEvent2, 0));
    void *finalArgs[3] = {&sg.partial_d, &sg.result_d, &sg.numPartial};
    CHECK_OK(grLaunchKernel(sg.reduceFinal, dim3(1), dim3(SG_THREADS), finalArgs, 0, stream1));
    CHECK_OK(grMemcpyAsync(sg.result_h, sg.result_d, sizeof(double), grMemcpyDefault, stream1));
    CHECK_OK(grLaunchHostFunc(stream1, check_result, &sg.check));
    CHECK_OK(grStreamEndCapture(stream1, &graph));

    size_t numNodes = 0;
    CHECK_OK(grGraphGetNodes(graph, nullptr, &numNodes));
    CHECK_EQ(numNodes, 7);
    grGraphExec_t graphExec;
    CHECK_OK(grGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0));
    launch_and_check(sg, graphExec);

    CHECK_OK(grGraphExecDestroy(graphExec));
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grStreamDestroy(stream1));
    CHECK_OK(grStreamDestroy(stream2));
    CHECK_OK(grStreamDestroy(stream3));
    CHECK_OK(grStreamDestroy(streamForGraph));
    CHECK_OK(grEventDestroy(forkStreamEvent));
    CHECK_OK(grEventDestroy(memsetEvent1));
    CHECK_OK(grEventDestroy(memsetEvent2));
    sg.tearDown();
}

/* -------------------------------------------------- graphConditionalNodes */

namespace {

/* The sample's gate: conditional nodes need CUDA 12.3. graphrt answers
 * the version of the API it implements where there is no driver, so the
 * gate lets the CPU device through. */
void require_conditional_nodes()
{
    int driverVersion = 0, runtimeVersion = 0;
    CHECK_OK(grDriverGetVersion(&driverVersion));
    CHECK_OK(grRuntimeGetVersion(&runtimeVersion));
    int devices = 0;
    CHECK_OK(grGetDeviceCount(&devices));
    if (devices == 1)
        CHECK(driverVersion >= 12030);
    if (driverVersion < 12030 || runtimeVersion < 12030)
        GR_TEST_SKIP("the sample's gate: driver %d, runtime %d (conditional nodes need 12030)", driverVersion,
                     runtimeVersion);
}

} // namespace

/* graphConditionalNodes, the IF built by hand: a kernel sets the handle
 * from device memory, and the conditional node after it runs its body
 * (a kernel) only when that value is not zero. */
GR_TEST(hostcpp_conditional_if_by_hand)
{
    require_conditional_nodes();
    grKernel_t setter =
        make_kernel(set_handle, "setHandle", {sizeof(unsigned *), sizeof(grGraphConditionalHandle)});
    grKernel_t body = make_kernel(count_up, "ifBody", {sizeof(int *)});
    unsigned *dValue = nullptr;
    int *dCount = nullptr;
    CHECK_OK(grMalloc(&dValue, sizeof(unsigned)));
    CHECK_OK(grMalloc(&dCount, sizeof(int)));
    CHECK_OK(grMemset(dCount, 0, sizeof(int)));

    grGraph_t graph;
    grGraphExec_t graphExec;
    grGraphNode_t kernelNode, conditionalNode;
    CHECK_OK(grGraphCreate(&graph, 0));
    grGraphConditionalHandle handle;
    CHECK_OK(grGraphConditionalHandleCreate(&handle, graph));

    void *setArgs[] = {&dValue, &handle};
    grKernelNodeParams kp = {0};
    kp.func = setter;
    kp.gridDim = dim3();
    kp.blockDim = dim3();
    kp.kernelParams = setArgs;
    CHECK_OK(grGraphAddKernelNode(&kernelNode, graph, nullptr, 0, &kp));

    grGraphNodeParams cParams = {grGraphNodeTypeConditional};
    cParams.conditional.handle = handle;
    cParams.conditional.type = grGraphCondTypeIf;
    cParams.conditional.size = 1;
    CHECK_OK(grGraphAddNode(&conditionalNode, graph, &kernelNode, nullptr, 1, &cParams));
    grGraph_t bodyGraph = cParams.conditional.phGraph_out[0];

    void *bodyArgs[] = {&dCount};
    grGraphNodeParams bodyParams = {grGraphNodeTypeKernel};
    bodyParams.kernel.func = body;
    bodyParams.kernel.gridDim = dim3(1, 1, 1);
    bodyParams.kernel.blockDim = dim3(1, 1, 1);
    bodyParams.kernel.kernelParams = bodyArgs;
    grGraphNode_t bodyNode;
    CHECK_OK(grGraphAddNode(&bodyNode, bodyGraph, nullptr, nullptr, 0, &bodyParams));

    CHECK_OK(grGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0));
    const unsigned values[] = {0, 1, 0, 7};
    int expected = 0, count = -1;
    for (unsigned v : values) {
        CHECK_OK(grMemcpy(dValue, &v, sizeof v, grMemcpyHostToDevice));
        CHECK_OK(grGraphLaunch(graphExec, 0));
        CHECK_OK(grDeviceSynchronize());
        expected += v != 0;
        CHECK_OK(grMemcpy(&count, dCount, sizeof count, grMemcpyDeviceToHost));
        CHECK_EQ(count, expected);
    }

    CHECK_OK(grGraphExecDestroy(graphExec));
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grFree(dValue));
    CHECK_OK(grFree(dCount));
    CHECK_OK(grKernelDestroy(setter));
    CHECK_OK(grKernelDestroy(body));
}

/* graphConditionalNodes, the WHILE captured: a stream's capture gets its
 * graph and dependencies from grStreamGetCaptureInfo, adds the
 * conditional node by hand and makes it the capture's dependency; the
 * body is filled by a second stream capturing into the body graph
 * (grStreamBeginCaptureToGraph), ended with grStreamEndCapture(s, NULL)
 * since the graph is already the caller's. Each launch counts down from
 * the value the stream sets before the loop. */
GR_TEST(hostcpp_conditional_while_captured)
{
    require_conditional_nodes();
    grKernel_t down =
        make_kernel(count_down, "loopKernel", {sizeof(int *), sizeof(grGraphConditionalHandle)});
    grKernel_t up = make_kernel(count_up, "afterLoop", {sizeof(int *)});
    int *dLeft = nullptr, *dAfter = nullptr;
    CHECK_OK(grMalloc(&dLeft, sizeof(int)));
    CHECK_OK(grMalloc(&dAfter, sizeof(int)));
    CHECK_OK(grMemset(dAfter, 0, sizeof(int)));
    int *hStart = nullptr;
    CHECK_OK(grMallocHost(&hStart, sizeof(int)));
    *hStart = 4;

    grStream_t captureStream, bodyStream;
    CHECK_OK(grStreamCreate(&captureStream));
    CHECK_OK(grStreamCreate(&bodyStream));
    grGraph_t graph;
    CHECK_OK(grStreamBeginCapture(captureStream, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpyAsync(dLeft, hStart, sizeof(int), grMemcpyHostToDevice, captureStream));

    grStreamCaptureStatus status;
    const grGraphNode_t *dependencies = nullptr;
    size_t numDependencies = 0;
    CHECK_OK(grStreamGetCaptureInfo(captureStream, &status, nullptr, &graph, &dependencies, nullptr,
                                    &numDependencies));
    CHECK_EQ(status, grStreamCaptureStatusActive);
    CHECK_EQ(numDependencies, 1);

    grGraphConditionalHandle handle;
    CHECK_OK(grGraphConditionalHandleCreate(&handle, graph, 1, grGraphCondAssignDefault));
    grGraphNodeParams cParams = {grGraphNodeTypeConditional};
    cParams.conditional.handle = handle;
    cParams.conditional.type = grGraphCondTypeWhile;
    cParams.conditional.size = 1;
    grGraphNode_t conditionalNode;
    CHECK_OK(grGraphAddNode(&conditionalNode, graph, dependencies, nullptr, numDependencies, &cParams));
    grGraph_t bodyGraph = cParams.conditional.phGraph_out[0];

    CHECK_OK(
        grStreamBeginCaptureToGraph(bodyStream, bodyGraph, nullptr, nullptr, 0, grStreamCaptureModeGlobal));
    void *downArgs[] = {&dLeft, &handle};
    CHECK_OK(grLaunchKernel(down, dim3(1), dim3(1), downArgs, 0, bodyStream));
    CHECK_OK(grStreamEndCapture(bodyStream, nullptr));

    CHECK_OK(grStreamUpdateCaptureDependencies(captureStream, &conditionalNode, nullptr, 1,
                                               grStreamSetCaptureDependencies));
    void *upArgs[] = {&dAfter};
    CHECK_OK(grLaunchKernel(up, dim3(1), dim3(1), upArgs, 0, captureStream));
    CHECK_OK(grStreamEndCapture(captureStream, &graph));

    size_t bodyNodes = 0;
    CHECK_OK(grGraphGetNodes(bodyGraph, nullptr, &bodyNodes));
    CHECK_EQ(bodyNodes, 1);
    grGraphExec_t graphExec;
    CHECK_OK(grGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0));
    for (int launch = 1; launch <= 2; ++launch) {
        CHECK_OK(grGraphLaunch(graphExec, captureStream));
        CHECK_OK(grStreamSynchronize(captureStream));
        int left = -1, after = -1;
        CHECK_OK(grMemcpy(&left, dLeft, sizeof left, grMemcpyDeviceToHost));
        CHECK_OK(grMemcpy(&after, dAfter, sizeof after, grMemcpyDeviceToHost));
        CHECK_EQ(left, 0);
        CHECK_EQ(after, launch);
    }

    CHECK_OK(grGraphExecDestroy(graphExec));
    CHECK_OK(grGraphDestroy(graph));
    CHECK_OK(grStreamDestroy(captureStream));
    CHECK_OK(grStreamDestroy(bodyStream));
    CHECK_OK(grFree(dLeft));
    CHECK_OK(grFree(dAfter));
    CHECK_OK(grFreeHost(hStart));
    CHECK_OK(grKernelDestroy(down));
    CHECK_OK(grKernelDestroy(up));
}

/* graphConditionalNodes, IF/ELSE and SWITCH by hand: each body of the
 * node bumps its own counter; the host sets the value between launches
 * with grGraphSetConditional's kernel. */
GR_TEST(hostcpp_conditional_if_else_and_switch)
{
    require_conditional_nodes();
    grKernel_t setter =
        make_kernel(set_handle, "setHandle", {sizeof(unsigned *), sizeof(grGraphConditionalHandle)});
    grKernel_t body = make_kernel(count_up, "branch", {sizeof(int *)});
    unsigned *dValue = nullptr;
    int *dCounts = nullptr;
    CHECK_OK(grMalloc(&dValue, sizeof(unsigned)));
    CHECK_OK(grMalloc(&dCounts, 3 * sizeof(int)));

    const grGraphConditionalNodeType types[] = {grGraphCondTypeIf, grGraphCondTypeSwitch};
    const unsigned sizes[] = {2, 3};
    for (int t = 0; t < 2; ++t) {
        CHECK_OK(grMemset(dCounts, 0, 3 * sizeof(int)));
        grGraph_t graph;
        CHECK_OK(grGraphCreate(&graph, 0));
        grGraphConditionalHandle handle;
        CHECK_OK(grGraphConditionalHandleCreate(&handle, graph));
        void *setArgs[] = {&dValue, &handle};
        grGraphNodeParams kParams = {grGraphNodeTypeKernel};
        kParams.kernel.func = setter;
        kParams.kernel.gridDim = dim3();
        kParams.kernel.blockDim = dim3();
        kParams.kernel.kernelParams = setArgs;
        grGraphNode_t setNode, condNode;
        CHECK_OK(grGraphAddNode(&setNode, graph, nullptr, nullptr, 0, &kParams));
        grGraphNodeParams cParams = {grGraphNodeTypeConditional};
        cParams.conditional.handle = handle;
        cParams.conditional.type = types[t];
        cParams.conditional.size = sizes[t];
        CHECK_OK(grGraphAddNode(&condNode, graph, &setNode, nullptr, 1, &cParams));
        int *counters[3] = {dCounts, dCounts + 1, dCounts + 2};
        for (unsigned b = 0; b < sizes[t]; ++b) {
            void *bodyArgs[] = {&counters[b]};
            grGraphNodeParams bParams = {grGraphNodeTypeKernel};
            bParams.kernel.func = body;
            bParams.kernel.gridDim = dim3(1);
            bParams.kernel.blockDim = dim3(1);
            bParams.kernel.kernelParams = bodyArgs;
            grGraphNode_t bodyNode;
            CHECK_OK(
                grGraphAddNode(&bodyNode, cParams.conditional.phGraph_out[b], nullptr, nullptr, 0, &bParams));
        }
        grGraphExec_t graphExec;
        CHECK_OK(grGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0));
        const unsigned values[] = {0, 1, 2, 5};
        int expected[3] = {0, 0, 0};
        for (unsigned v : values) {
            CHECK_OK(grMemcpy(dValue, &v, sizeof v, grMemcpyHostToDevice));
            CHECK_OK(grGraphLaunch(graphExec, 0));
            CHECK_OK(grDeviceSynchronize());
            if (types[t] == grGraphCondTypeIf)
                ++expected[v != 0 ? 0 : 1];
            else if (v < sizes[t])
                ++expected[v];
        }
        int counts[3] = {-1, -1, -1};
        CHECK_OK(grMemcpy(counts, dCounts, sizeof counts, grMemcpyDeviceToHost));
        for (int b = 0; b < 3; ++b)
            CHECK_EQ(counts[b], expected[b]);
        CHECK_OK(grGraphExecDestroy(graphExec));
        CHECK_OK(grGraphDestroy(graph));
    }
    CHECK_OK(grFree(dValue));
    CHECK_OK(grFree(dCounts));
    CHECK_OK(grKernelDestroy(setter));
    CHECK_OK(grKernelDestroy(body));
}

/* ------------------------------------------- what graphrt.hpp adds, one by one */

static_assert(sizeof(dim3) == sizeof(grDim3), "dim3 is a grDim3 and nothing more");

GR_TEST(hostcpp_dim3_constructs_as_cudas)
{
    dim3 d;
    CHECK(d.x == 1 && d.y == 1 && d.z == 1);
    dim3 g(4);
    CHECK(g.x == 4 && g.y == 1 && g.z == 1);
    dim3 h(4, 5);
    CHECK(h.x == 4 && h.y == 5 && h.z == 1);
    dim3 l = {2, 3, 4};
    CHECK(l.x == 2 && l.y == 3 && l.z == 4);
    constexpr dim3 c(8, 2);
    static_assert(c.x == 8 && c.y == 2 && c.z == 1, "constexpr");
    grKernelNodeParams p = {0};
    p.gridDim = g;
    dim3 back = p.gridDim;
    CHECK(back.x == 4 && back.y == 1 && back.z == 1);
    grDim3 plain = h;
    CHECK(plain.x == 4 && plain.y == 5 && plain.z == 1);
    /* grGraphNodeParams keeps its default constructor (CUDA's does not,
     * its dim3 having constructors). */
    grGraphNodeParams np;
    std::memset(&np, 0, sizeof np);
    CHECK_EQ(np.kernel.gridDim.x, 0);
}

namespace {

int destroyed = 0;

struct Payload {
    int value;
    ~Payload()
    {
        ++destroyed;
    }
};

int symbolTable[4];

} // namespace

GR_TEST(hostcpp_defaults_and_overloads_behave_as_the_c_calls)
{
    /* Templated allocations without casts, from the current pool, a pool
     * given to grMallocAsync and grMallocFromPoolAsync. */
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    grMemPool_t pool;
    CHECK_OK(grDeviceGetDefaultMemPool(&pool, 0));
    float *a = nullptr, *b = nullptr;
    double *c = nullptr;
    CHECK_OK(grMallocAsync(&a, 64 * sizeof(float), s));
    CHECK_OK(grMallocAsync(&b, 64 * sizeof(float), pool, s));
    CHECK_OK(grMallocFromPoolAsync(&c, 8 * sizeof(double), pool, s));
    void *v = nullptr;
    CHECK_OK(grMallocAsync(&v, 16, pool, s));
    /* The stream defaults to the legacy stream: grMemsetAsync and
     * grMemcpyAsync without one, after the stream's allocations are done. */
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemsetAsync(a, 0, 64 * sizeof(float)));
    CHECK_OK(grMemcpyAsync(b, a, 64 * sizeof(float), grMemcpyDeviceToDevice));
    grEvent_t e;
    CHECK_OK(grEventCreate(&e, grEventDisableTiming));
    CHECK_OK(grEventRecord(e));
    CHECK_OK(grStreamWaitEvent(s, e));
    CHECK_OK(grEventSynchronize(e));
    for (int i = 0; i < 64; ++i)
        CHECK(b[i] == 0.0f);
    CHECK_OK(grFreeAsync(a, s));
    CHECK_OK(grFreeAsync(b, s));
    CHECK_OK(grFreeAsync(c, s));
    CHECK_OK(grFreeAsync(v, s));
    CHECK_OK(grStreamSynchronize(s));

    /* grStreamGetCaptureInfo with the status only. */
    grStreamCaptureStatus status = grStreamCaptureStatusActive;
    CHECK_OK(grStreamGetCaptureInfo(s, &status));
    CHECK_EQ(status, grStreamCaptureStatusNone);

    /* A symbol passed as the variable. */
    CHECK_OK(grRegisterSymbol(symbolTable, sizeof symbolTable, "symbolTable"));
    const int values[4] = {1, 2, 3, 4};
    CHECK_OK(grMemcpyToSymbol(symbolTable, values, sizeof values));
    int back[4] = {0, 0, 0, 0};
    CHECK_OK(grMemcpyFromSymbol(back, symbolTable, sizeof back));
    CHECK(back[3] == 4);
    size_t size = 0;
    CHECK_OK(grGetSymbolSize(&size, symbolTable));
    CHECK_EQ(size, sizeof symbolTable);
    void *address = nullptr;
    CHECK_OK(grGetSymbolAddress(&address, symbolTable));
    CHECK_PTR_EQ(address, symbolTable);
    /* The C form, an address, still binds the C call. */
    CHECK_OK(grMemcpyToSymbol(static_cast<const void *>(symbolTable), values, sizeof(int), sizeof(int)));
    CHECK_OK(grUnregisterSymbol(symbolTable));

    /* A user object wrapping a C++ object: deleted with the last reference. */
    destroyed = 0;
    grUserObject_t object;
    CHECK_OK(grUserObjectCreate(&object, new Payload{7}, 2, grUserObjectNoDestructorSync));
    CHECK_OK(grUserObjectRelease(object));
    CHECK_EQ(destroyed, 0);
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphRetainUserObject(g, object, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphDestroy(g)); /* drops the last reference: deleted before it returns */
    CHECK_EQ(destroyed, 1);

    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(hostcpp_instantiate_log_buffer_holds_the_detail)
{
    grGraphExec_t exec;
    char log[512];
    std::memset(log, 'x', sizeof log);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&exec, nullptr, nullptr, log, sizeof log));
    CHECK(std::strstr(log, "grGraphInstantiate") != nullptr);
    CHECK_EQ(std::strlen(log), std::strlen(grGetLastErrorDetail()));
    /* Too small: cut to the buffer, the last byte not NUL (CUDA's rule). */
    char small[8];
    std::memset(small, 0, sizeof small);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&exec, nullptr, nullptr, small, sizeof small));
    CHECK(small[sizeof small - 1] != '\0');
    CHECK(std::memcmp(small, grGetLastErrorDetail(), sizeof small) == 0);
    /* No buffer, or none of its bytes: only the error. */
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&exec, nullptr, nullptr, nullptr, 0));
    small[0] = 'q';
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&exec, nullptr, nullptr, small, 0));
    CHECK_EQ(small[0], 'q');
}

GR_TEST(hostcpp_exec_update_cuda11_form_reports_node_and_result)
{
    grGraph_t g1, g2;
    grGraphNode_t n1, n2, m1;
    CHECK_OK(grGraphCreate(&g1, 0));
    CHECK_OK(grGraphAddEmptyNode(&n1, g1, nullptr, 0));
    grGraphExec_t exec;
    CHECK_OK(grGraphInstantiate(&exec, g1));
    /* The same topology: success. */
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddEmptyNode(&m1, g2, nullptr, 0));
    grGraphNode_t errorNode = n1;
    grGraphExecUpdateResult result = grGraphExecUpdateError;
    CHECK_OK(grGraphExecUpdate(exec, g2, &errorNode, &result));
    CHECK_EQ(result, grGraphExecUpdateSuccess);
    CHECK_PTR_EQ(errorNode, nullptr);
    /* One node more: refused, the result says why. */
    CHECK_OK(grGraphAddEmptyNode(&n2, g2, &m1, 1));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(exec, g2, &errorNode, &result));
    CHECK_EQ(result, grGraphExecUpdateErrorTopologyChanged);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(exec, g2, nullptr, nullptr));
    CHECK_OK(grGraphExecDestroy(exec));
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grGraphDestroy(g2));
}
