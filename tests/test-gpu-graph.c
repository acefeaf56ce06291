/*
 * test-gpu-graph.c - graphs on a GPU: explicit and captured graphs
 * lowered to CUDA graphs, launched, changed in place and updated, with
 * the same results as on the CPU. Each test needs a GPU device and is
 * skipped, saying why, where there is none (CI has none).
 *
 * The kernels exist twice: a CPU function per block (tl_ptx_kernel,
 * tests/lib) and the GPU entry of the same name in gpu-ptx.h (from
 * gpu-kernels.cu).
 */
#include "testlib.h"
#include "gpu-ptx.h"

#include <stdbool.h>

enum {
    N = 1000,
    BLOCK = 128
};

/* memset(d, 0) -> add(a) -> add(b) -> copy to host: the graph the tests
 * share, on the current device. */
typedef struct pipe {
    grGraph_t g;
    grGraphNode_t set, add1, add2, copy;
    grKernel_t add;
    unsigned *d, *h;
    unsigned a, b, n;
    bool shared_kernel;
} pipe;

/* Kernel names are unique among live kernels: a second pipe of a test
 * takes the first one's kernel (and pipe_free leaves it to the first). */
static void pipe_build_with(pipe *p, unsigned a, unsigned b, grKernel_t add)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->b = b;
    p->n = N;
    p->add = add;
    p->shared_kernel = add != NULL;
    if (!add)
        p->add = tl_ptx_kernel("gr_test_add");
    CHECK_OK(grMalloc((void **)&p->d, N * sizeof(unsigned)));
    CHECK_OK(grMallocHost((void **)&p->h, N * sizeof(unsigned)));
    CHECK_OK(grGraphCreate(&p->g, 0));
    grMemsetParams ms = {.dst = p->d, .value = 0, .elementSize = 4, .width = N, .height = 1};
    CHECK_OK(grGraphAddMemsetNode(&p->set, p->g, NULL, 0, &ms));
    void *a1[] = {&p->d, &p->a, &p->n}, *a2[] = {&p->d, &p->b, &p->n};
    grKernelNodeParams k1 = tl_params_1d(p->add, a1, N, BLOCK), k2 = tl_params_1d(p->add, a2, N, BLOCK);
    CHECK_OK(grGraphAddKernelNode(&p->add1, p->g, &p->set, 1, &k1));
    CHECK_OK(grGraphAddKernelNode(&p->add2, p->g, &p->add1, 1, &k2));
    CHECK_OK(grGraphAddMemcpyNode1D(&p->copy, p->g, &p->add2, 1, p->h, p->d, N * sizeof(unsigned),
                                    grMemcpyDeviceToHost));
}

static void pipe_build(pipe *p, unsigned a, unsigned b)
{
    pipe_build_with(p, a, b, NULL);
}

static void pipe_free(pipe *p)
{
    CHECK_OK(grGraphDestroy(p->g));
    CHECK_OK(grFree(p->d));
    CHECK_OK(grFreeHost(p->h));
    if (!p->shared_kernel)
        CHECK_OK(grKernelDestroy(p->add));
}

/* Two pipes of the same topology and kernels for the update tests: p
 * adds 1 and 2, q (its own buffers) 10 and 20. */
static void pipe_pair(pipe *p, pipe *q)
{
    pipe_build(p, 1, 2);
    pipe_build_with(q, 10, 20, p->add);
}

/* Launches e on s, waits, and checks that the N words at h are all want. */
static void launch_expect(grGraphExec_t e, grStream_t s, const unsigned *h, unsigned want)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, N, want);
}

/* The add kernel's CPU function under another name, with no GPU image. */
static grKernel_t cpu_only_add(const char *name)
{
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    grKernel_t k;
    CHECK_OK(grKernelCreate(&k, tl_add_u32_fn, name, 3, sizes));
    return k;
}

/* A new graph of one kernel node of kp. */
static grGraph_t one_kernel_graph(const grKernelNodeParams *kp)
{
    grGraph_t g;
    grGraphNode_t node;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, kp));
    return g;
}

/* Instantiating g on the current device must be refused with err, the
 * detail naming 'what' (and 'also', where not NULL), and leave no
 * executable. */
static void instantiate_refused(grGraph_t g, grError_t err, const char *what, const char *also)
{
    grGraphExec_t e = NULL;
    CHECK_GR(err, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS(what);
    if (also)
        CHECK_DETAIL_HAS(also);
    CHECK(e == NULL);
}

/* Captures fill(fa) -> add(aa) over N words at d -> a copy of them to h
 * on s, and returns the graph. */
static grGraph_t capture_fill_add_copy(grStream_t s, grKernel_t fill, grKernel_t add, void **fa, void **aa,
                                       unsigned *h, const unsigned *d)
{
    grDim3 grid = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = GR_DIM3(BLOCK, 1, 1);
    grGraph_t g;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(fill, grid, block, fa, 0, s));
    CHECK_OK(grLaunchKernel(add, grid, block, aa, 0, s));
    CHECK_OK(grMemcpyAsync(h, d, N * sizeof(unsigned), grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    return g;
}

GR_TEST(gpu_graph_runs_an_explicit_graph_on_the_gpu)
{
    tl_set_first_gpu();
    pipe p;
    pipe_build(&p, 2, 3);
    grGraphExec_t e = tl_instantiate(p.g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 5; i++) {
        memset(p.h, 0xff, N * sizeof(unsigned));
        launch_expect(e, s, p.h, 5); /* the memset starts each launch from 0 */
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    pipe_free(&p);
}

GR_TEST(gpu_graph_gives_the_cpu_result_for_the_same_graph)
{
    int gpu = tl_first_gpu();
    unsigned got[2];
    for (int dev = 0; dev < 2; dev++) {
        CHECK_OK(grSetDevice(dev == 0 ? 0 : gpu));
        pipe p;
        pipe_build(&p, 7, 11);
        grGraphExec_t e = tl_instantiate(p.g);
        launch_expect(e, NULL, p.h, 18);
        got[dev] = p.h[N - 1];
        CHECK_OK(grGraphExecDestroy(e));
        pipe_free(&p);
    }
    CHECK_EQ(got[0], got[1]);
}

GR_TEST(gpu_graph_exec_set_params_changes_the_next_launch)
{
    tl_set_first_gpu();
    pipe p;
    pipe_build(&p, 1, 1);
    grGraphExec_t e = tl_instantiate(p.g);
    grStream_t s = tl_stream(0);
    launch_expect(e, s, p.h, 2);
    unsigned v = 40;
    void *args[] = {&p.d, &v, &p.n};
    grKernelNodeParams kp = tl_params_1d(p.add, args, N, BLOCK);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, p.add2, &kp));
    v = 1000; /* values were copied by the call */
    launch_expect(e, s, p.h, 41);
    /* A disabled node does nothing; enabled again, it runs. */
    CHECK_OK(grGraphNodeSetEnabled(e, p.add1, 0));
    launch_expect(e, s, p.h, 40);
    CHECK_OK(grGraphNodeSetEnabled(e, p.add1, 1));
    grMemsetParams ms = {.dst = p.d, .value = 5, .elementSize = 4, .width = N, .height = 1};
    CHECK_OK(grGraphExecMemsetNodeSetParams(e, p.set, &ms));
    launch_expect(e, s, p.h, 46);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    pipe_free(&p);
}

GR_TEST(gpu_graph_exec_update_applies_a_graph_of_the_same_topology)
{
    tl_set_first_gpu();
    pipe p, q;
    pipe_pair(&p, &q);
    grGraphExec_t e = tl_instantiate(p.g);
    launch_expect(e, NULL, p.h, 3);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, q.g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    launch_expect(e, NULL, q.h, 30); /* q's buffers and values */
    CHECK_OK(grGraphExecDestroy(e));
    pipe_free(&q);
    pipe_free(&p);
}

GR_TEST(gpu_graph_update_refuses_a_kernel_without_an_image_and_changes_nothing)
{
    tl_set_first_gpu();
    pipe p, q;
    pipe_pair(&p, &q);
    grKernel_t bare;
    bare = cpu_only_add("bare_add");
    void *args[] = {&q.d, &q.b, &q.n};
    grKernelNodeParams kp = tl_params_1d(bare, args, N, BLOCK);
    CHECK_OK(grGraphKernelNodeSetParams(q.add2, &kp));
    grGraphExec_t e = tl_instantiate(p.g);
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorInvalidDeviceFunction, grGraphExecUpdate(e, q.g, &info));
    CHECK_DETAIL_HAS("bare_add");
    launch_expect(e, NULL, p.h, 3);
    CHECK_OK(grGraphExecDestroy(e));
    pipe_free(&q);
    pipe_free(&p);
    CHECK_OK(grKernelDestroy(bare));
}

GR_TEST(gpu_graph_kernel_without_image_is_refused_at_instantiate)
{
    tl_set_first_gpu();
    grKernel_t k;
    k = cpu_only_add("cpu_only_add");
    unsigned *d, v = 1, n = N;
    CHECK_OK(grMalloc((void **)&d, N * sizeof(unsigned)));
    void *args[] = {&d, &v, &n};
    grKernelNodeParams kp = tl_params_1d(k, args, N, BLOCK);
    grGraph_t g = one_kernel_graph(&kp);
    instantiate_refused(g, grErrorInvalidDeviceFunction, "cpu_only_add", "grKernelSetImage");
    /* With an image attached, the same graph instantiates. */
    CHECK_OK(grKernelSetImage(k, gr_test_ptx, "gr_test_add"));
    CHECK_OK(grGraphExecDestroy(tl_instantiate(g)));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_graph_launch_on_a_stream_of_another_device_is_refused)
{
    int gpu = tl_set_first_gpu();
    pipe p;
    pipe_build(&p, 1, 1);
    grGraphExec_t e = tl_instantiate(p.g);
    CHECK_OK(grSetDevice(0));
    grStream_t cpu = tl_stream(0);
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, cpu));
    CHECK_DETAIL_HAS("instantiated for device 1");
    CHECK_OK(grStreamDestroy(cpu));
    CHECK_OK(grSetDevice(gpu));
    CHECK_OK(grGraphExecDestroy(e));
    pipe_free(&p);
}

GR_TEST(gpu_graph_runs_host_child_graph_and_event_nodes)
{
    tl_set_first_gpu();
    pipe p;
    pipe_build(&p, 3, 4);
    /* A parent: host node -> child (the pipe) -> event record. */
    grGraph_t parent;
    grGraphNode_t host, child, rec;
    int count = 0;
    grEvent_t ev;
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grGraphCreate(&parent, 0));
    grHostNodeParams hp = {.fn = tl_bump, .userData = &count};
    CHECK_OK(grGraphAddHostNode(&host, parent, NULL, 0, &hp));
    CHECK_OK(grGraphAddChildGraphNode(&child, parent, &host, 1, p.g));
    CHECK_OK(grGraphAddEventRecordNode(&rec, parent, &child, 1, ev));
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, parent, 0));
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 3; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grEventSynchronize(ev));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(count, 3);
    tl_check_all_u32(p.h, N, 7);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(parent));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
    pipe_free(&p);
}

GR_TEST(gpu_graph_event_of_the_cpu_device_is_refused_at_instantiate)
{
    int gpu = tl_first_gpu();
    grEvent_t ev;
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grSetDevice(gpu));
    grGraph_t g;
    grGraphNode_t rec;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEventRecordNode(&rec, g, NULL, 0, ev));
    instantiate_refused(g, grErrorInvalidValue, "created on device 0", NULL);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
}

GR_TEST(gpu_graph_captured_pipeline_replays_with_updates)
{
    tl_set_first_gpu();
    grKernel_t fill = tl_ptx_kernel("gr_test_fill"), add = tl_ptx_kernel("gr_test_add");
    unsigned *d, *h, n = N, v0 = 5, v1 = 6;
    CHECK_OK(grMalloc((void **)&d, N * sizeof(unsigned)));
    CHECK_OK(grMallocHost((void **)&h, N * sizeof(unsigned)));
    grStream_t s = tl_stream(0);
    void *fa[] = {&d, &v0, &n}, *aa[] = {&d, &v1, &n};
    grGraph_t g = capture_fill_add_copy(s, fill, add, fa, aa, h, d);
    size_t nn = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &nn));
    CHECK_EQ(nn, 3);
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    launch_expect(e, s, h, 11);
    /* The same capture with other values updates the executable. */
    v0 = 100;
    v1 = 1;
    grGraph_t g2 = capture_fill_add_copy(s, fill, add, fa, aa, h, d);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    for (int i = 0; i < 10; i++)
        launch_expect(e, s, h, 101);
    CHECK_OK(grGraphExecDestroy(e));
    tl_destroy_graphs((grGraph_t[]){g, g2}, 2);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
    CHECK_OK(grKernelDestroy(fill));
    CHECK_OK(grKernelDestroy(add));
}

GR_TEST(gpu_graph_cpu_executable_refuses_gpu_memory_it_cannot_reach)
{
    int gpu = tl_set_first_gpu();
    unsigned *d, v = 1, n = N;
    CHECK_OK(grMalloc((void **)&d, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    grKernel_t add = tl_ptx_kernel("gr_test_add");
    grGraph_t g;
    grGraphNode_t set;
    /* A memset of GPU memory in a CPU executable would have a CPU thread
     * write to a GPU address. */
    CHECK_OK(grGraphCreate(&g, 0));
    grMemsetParams ms = {.dst = d, .value = 0, .elementSize = 4, .width = N, .height = 1};
    CHECK_OK(grGraphAddMemsetNode(&set, g, NULL, 0, &ms));
    instantiate_refused(g, grErrorInvalidValue, "memory of device 1", NULL);
    CHECK_OK(grGraphDestroy(g));
    /* So would a CPU kernel given a GPU pointer. */
    void *args[] = {&d, &v, &n};
    grKernelNodeParams kp = tl_params_1d(add, args, N, BLOCK);
    g = one_kernel_graph(&kp);
    instantiate_refused(g, grErrorInvalidValue, "argument 0", NULL);
    /* Instantiated for the GPU, the same graph runs. */
    CHECK_OK(grSetDevice(gpu));
    tl_run_graph(g);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(add));
}

GR_TEST(gpu_graph_update_of_one_changed_node_keeps_the_others)
{
    tl_set_first_gpu();
    pipe p;
    pipe_build(&p, 1, 2);
    grGraphExec_t e = tl_instantiate(p.g);
    launch_expect(e, NULL, p.h, 3);
    /* A clone differing in the second add's value only: the update hands
     * just that node to the driver. */
    grGraph_t c;
    grGraphNode_t add2;
    CHECK_OK(grGraphClone(&c, p.g));
    CHECK_OK(grGraphNodeFindInClone(&add2, p.add2, c));
    unsigned b = 50;
    void *args[] = {&p.d, &b, &p.n};
    grKernelNodeParams kp = tl_params_1d(p.add, args, N, BLOCK);
    CHECK_OK(grGraphKernelNodeSetParams(add2, &kp));
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, c, &info));
    for (int i = 0; i < 3; i++) {
        memset(p.h, 0, N * sizeof(unsigned));
        launch_expect(e, NULL, p.h, 51);
    }
    /* Updating back from the original changes that node again. */
    CHECK_OK(grGraphExecUpdate(e, p.g, &info));
    launch_expect(e, NULL, p.h, 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c));
    pipe_free(&p);
}
