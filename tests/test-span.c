/*
 * test-span.c - graphs whose nodes name two devices (docs/devices.md,
 * "Graphs that span devices"): instantiate partitions them per device,
 * launches run every part with the edges between parts kept, replays
 * need no reset, kernel node parameters change in place, and what is not
 * done yet is refused with a detail. The GPU is device 1: a real one, or
 * the fake device in CI (tests/fakedev), which runs a GPU part as a plan
 * of its own on the CPU workers; each test skips where neither exists.
 *
 * A node on a GPU runs the tests' PTX kernels (tl_ptx_kernel); a node on
 * the CPU runs a kernel with a CPU function only, which no GPU part could
 * take (the GPU, or the fake, refuses a kernel without an image): a
 * graph that instantiates has put each node where its device says.
 */
#include "testlib.h"
#include "fakedev/fakedev.h"
#include "gpu-cond-ptx.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

enum {
    N = 1000,
    BLOCK = 128,
    REPLAYS = 100
};

/* A kernel with the add (or fill) kernel's CPU function and no GPU image. */
static grKernel_t cpu_kernel(const char *name, bool fill)
{
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    grKernel_t k;
    CHECK_OK(grKernelCreate(&k, fill ? tl_fill_u32_fn : tl_add_u32_fn, name, 3, sizes));
    return k;
}

/* The kernels and buffers the tests share; every kernel node's
 * arguments live in 'args' (copied when the node is added). */
typedef struct span {
    grKernel_t cpu_fill, cpu_add, gpu_add, gpu_fill;
    unsigned *x, *y; /* N words each, pinned host memory both devices reach */
    unsigned n;
    int gpu;
} span;

static void span_init(span *t)
{
    memset(t, 0, sizeof *t);
    t->gpu = tl_first_gpu();
    int workers = 0;
    CHECK_OK(grDeviceGetAttribute(&workers, grDevAttrMultiProcessorCount, 0));
    if (gr_fakedev_active() && workers < 2)
        GR_TEST_SKIP("the fake device runs a GPU part on the CPU workers, beside the CPU part, which holds "
                     "one while it waits: needs 2 workers (%d)",
                     workers);
    t->n = N;
    t->cpu_fill = cpu_kernel("span_cpu_fill", true);
    t->cpu_add = cpu_kernel("span_cpu_add", false);
    t->gpu_add = tl_ptx_kernel("gr_test_add");
    t->gpu_fill = tl_ptx_kernel("gr_test_fill");
    CHECK_OK(grMallocHost((void **)&t->x, N * sizeof(unsigned)));
    CHECK_OK(grMallocHost((void **)&t->y, N * sizeof(unsigned)));
}

static void span_fini(span *t)
{
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grFreeHost(t->x));
    CHECK_OK(grFreeHost(t->y));
    CHECK_OK(grKernelDestroy(t->cpu_fill));
    CHECK_OK(grKernelDestroy(t->cpu_add));
    CHECK_OK(grKernelDestroy(t->gpu_add));
    CHECK_OK(grKernelDestroy(t->gpu_fill));
}

/* Adds a kernel node of k over p (value v) after deps, with 'device'
 * current: the device the node names. */
static grGraphNode_t add_on(span *t, int device, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                            grKernel_t k, unsigned *p, unsigned v)
{
    grGraphNode_t node;
    void *args[] = {&p, &v, &t->n};
    grKernelNodeParams kp = tl_params_1d(k, args, N, BLOCK);
    CHECK_OK(grSetDevice(device));
    CHECK_OK(grGraphAddKernelNode(&node, g, deps, ndeps, &kp));
    CHECK_OK(grSetDevice(0));
    return node;
}

/* CPU fill(x, 1) -> GPU add(x, 10) -> CPU add(x, 100): x ends 111. */
typedef struct chain {
    grGraph_t g;
    grGraphNode_t a, b, c;
} chain;

/* The chain with values va, vb, vc, the middle node on device 'mid'. */
static void chain_build_v(span *t, chain *c, bool fill_first, int mid, unsigned va, unsigned vb, unsigned vc)
{
    CHECK_OK(grGraphCreate(&c->g, 0));
    c->a = add_on(t, 0, c->g, NULL, 0, fill_first ? t->cpu_fill : t->cpu_add, t->x, va);
    c->b = add_on(t, mid, c->g, &c->a, 1, mid ? t->gpu_add : t->cpu_add, t->x, vb);
    c->c = add_on(t, 0, c->g, &c->b, 1, t->cpu_add, t->x, vc);
}

static void chain_build(span *t, chain *c, bool fill_first)
{
    chain_build_v(t, c, fill_first, t->gpu, 1, 10, 100);
}

static void launch_check(grGraphExec_t e, grStream_t s, const unsigned *h, unsigned want)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, N, want);
}

GR_TEST(span_kernel_node_names_the_device_current_when_added)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, true);
    /* Each node went to its device's part: the CPU kernels have no GPU
     * image, which a GPU part refuses, and the GPU's kernel ran there. */
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(c.g);
    if (gr_fakedev_active())
        CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered + 1); /* one GPU part */
    grStream_t s = tl_stream(grStreamNonBlocking);
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e, s, t.x, 111);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(c.g));
    span_fini(&t);
}

GR_TEST(span_chain_cpu_gpu_cpu_replays_a_hundred_times)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, true);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    /* Each launch checked: the words are back to 0 after every one. */
    for (int i = 0; i < REPLAYS; i++) {
        memset(t.x, 0, N * sizeof(unsigned));
        launch_check(e, s, t.x, 111);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    /* Launched back to back, adding: a launch that overlapped the next,
     * or a part that ran early, would lose or misplace additions. */
    chain_build(&t, &c, false);
    e = tl_instantiate(c.g);
    memset(t.x, 0, N * sizeof(unsigned));
    for (int i = 0; i < REPLAYS; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(t.x, N, 111 * REPLAYS);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_stream_order_holds_around_a_launch)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, false);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(grStreamNonBlocking);
    /* The GPU part starts only once s's earlier work is done, and s's
     * later work waits for every part. */
    unsigned seven = 7;
    void *args[] = {&t.x, &seven, &t.n};
    for (int i = 0; i < 20; i++) {
        CHECK_OK(grLaunchKernel(t.cpu_fill, GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), GR_DIM3(BLOCK, 1, 1),
                                args, 0, s));
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grMemcpyAsync(t.y, t.x, N * sizeof(unsigned), grMemcpyHostToHost, s));
        CHECK_OK(grStreamSynchronize(s));
        tl_check_all_u32(t.y, N, 7 + 111);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

static atomic_int span_gate;

static grStream_t gpu_stream(const span *t)
{
    CHECK_OK(grSetDevice(t->gpu));
    grStream_t gs = tl_stream(grStreamNonBlocking);
    CHECK_OK(grSetDevice(0));
    return gs;
}

enum {
    MANY = 9
};
static atomic_int gates[MANY];

/* A thread's function: opens every gate of 'gates' after 50 ms (the fake
 * device runs the gates' host functions on the CPU workers, so they are
 * opened together, not one by one). */
static void *open_gates_later(void *p)
{
    atomic_int *g = p;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    for (int i = 0; i < MANY; i++)
        atomic_store(&g[i], 1);
    return NULL;
}

/* A chain's executable with a GPU stream and a CPU stream to launch it
 * on: each launch-on-a-GPU-stream case is a test of its own, so that a
 * failing or hanging case is named by the runner. */
typedef struct gs_case {
    span t;
    chain c;
    grGraphExec_t e;
    grStream_t gs, s;
} gs_case;

static void gs_case_init(gs_case *k)
{
    span_init(&k->t);
    chain_build(&k->t, &k->c, false);
    k->e = tl_instantiate(k->c.g);
    k->gs = gpu_stream(&k->t);
    k->s = tl_stream(grStreamNonBlocking);
}

static void gs_case_fini(gs_case *k)
{
    if (k->e)
        CHECK_OK(grGraphExecDestroy(k->e));
    CHECK_OK(grGraphDestroy(k->c.g));
    CHECK_OK(grStreamDestroy(k->gs));
    CHECK_OK(grStreamDestroy(k->s));
    span_fini(&k->t);
}

GR_TEST(span_launch_on_a_gpu_stream_keeps_its_order)
{
    gs_case k;
    gs_case_init(&k);
    span *t = &k.t;
    /* The parts start after gs's earlier work (a kernel writing 7, then a
     * closed gate: the graph has not run while it is closed) and gs's
     * later work (a copy of x to the GPU's d) waits for every part. The
     * copy goes to the GPU: a copy between host buffers on a GPU stream
     * is synchronous in CUDA (it would wait here for the gate). */
    unsigned seven = 7, *d = NULL;
    grEvent_t filled;
    CHECK_OK(grSetDevice(t->gpu));
    CHECK_OK(grMalloc((void **)&d, N * sizeof(unsigned)));
    CHECK_OK(grEventCreate(&filled));
    CHECK_OK(grSetDevice(0));
    void *args[] = {&t->x, &seven, &t->n};
    for (int i = 0; i < 5; i++) {
        memset(t->x, 0, N * sizeof(unsigned));
        CHECK_OK(grLaunchKernel(t->gpu_fill, GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), GR_DIM3(BLOCK, 1, 1),
                                args, 0, k.gs));
        CHECK_OK(grEventRecord(filled, k.gs));
        atomic_store(&span_gate, 0);
        CHECK_OK(grLaunchHostFunc(k.gs, tl_wait_gate, &span_gate));
        CHECK_OK(grGraphLaunch(k.e, k.gs));
        CHECK_OK(grMemcpyAsync(d, t->x, N * sizeof(unsigned), grMemcpyDefault, k.gs));
        CHECK_OK(grEventSynchronize(filled));
        tl_check_all_u32(t->x, N, 7); /* filled, and the graph has not run */
        atomic_store(&span_gate, 1);
        CHECK_OK(grStreamSynchronize(k.gs));
        CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
        memset(t->y, 0, N * sizeof(unsigned));
        CHECK_OK(grMemcpy(t->y, d, N * sizeof(unsigned), grMemcpyDefault));
        tl_check_all_u32(t->y, N, 7 + 111);
    }
    CHECK_OK(grFree(d));
    CHECK_OK(grEventDestroy(filled));
    gs_case_fini(&k);
}

GR_TEST(span_launch_on_a_gpu_stream_back_to_back_and_alternating)
{
    gs_case k;
    gs_case_init(&k);
    unsigned *x = k.t.x;
    /* Back to back, adding, then alternating with a CPU stream: launches
     * of one executable run one after another whatever their streams. */
    memset(x, 0, N * sizeof(unsigned));
    for (int i = 0; i < REPLAYS; i++)
        CHECK_OK(grGraphLaunch(k.e, k.gs));
    CHECK_OK(grStreamSynchronize(k.gs));
    tl_check_all_u32(x, N, 111 * REPLAYS);
    memset(x, 0, N * sizeof(unsigned));
    for (int i = 0; i < 10; i++) {
        CHECK_OK(grGraphLaunch(k.e, i % 2 ? k.s : k.gs));
        CHECK_OK(grStreamSynchronize(i % 2 ? k.s : k.gs));
    }
    tl_check_all_u32(x, N, 1110);
    gs_case_fini(&k);
}

GR_TEST(span_launch_on_two_gpu_streams_at_once)
{
    gs_case k;
    gs_case_init(&k);
    unsigned *x = k.t.x;
    /* Launches queued on two GPU streams at once, behind closed gates:
     * each runs the whole graph once. */
    grStream_t gs2 = gpu_stream(&k.t);
    static atomic_int gate2;
    memset(x, 0, N * sizeof(unsigned));
    atomic_store(&span_gate, 0);
    atomic_store(&gate2, 0);
    CHECK_OK(grLaunchHostFunc(k.gs, tl_wait_gate, &span_gate));
    CHECK_OK(grLaunchHostFunc(gs2, tl_wait_gate, &gate2));
    CHECK_OK(grGraphLaunch(k.e, k.gs));
    CHECK_OK(grGraphLaunch(k.e, gs2));
    atomic_store(&gate2, 1);
    atomic_store(&span_gate, 1);
    CHECK_OK(grStreamSynchronize(gs2));
    CHECK_OK(grStreamSynchronize(k.gs));
    CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
    tl_check_all_u32(x, N, 222);
    CHECK_OK(grStreamDestroy(gs2));
    gs_case_fini(&k);
}

GR_TEST(span_launch_on_nine_gpu_streams_waits_for_a_slot)
{
    gs_case k;
    gs_case_init(&k);
    unsigned *x = k.t.x;
    /* Nine GPU streams with launches queued behind closed gates: the
     * ninth launch waits at the call for one of the eight before it to
     * end (opened by another thread), then every launch runs once. */
    grStream_t many[MANY];
    memset(x, 0, N * sizeof(unsigned));
    for (int i = 0; i < MANY; i++) {
        many[i] = gpu_stream(&k.t);
        atomic_store(&gates[i], 0);
        CHECK_OK(grLaunchHostFunc(many[i], tl_wait_gate, &gates[i]));
    }
    pthread_t opener9;
    CHECK(pthread_create(&opener9, NULL, open_gates_later, gates) == 0);
    for (int i = 0; i < MANY; i++)
        CHECK_OK(grGraphLaunch(k.e, many[i]));
    CHECK(pthread_join(opener9, NULL) == 0);
    for (int i = 0; i < MANY; i++) {
        CHECK_OK(grStreamSynchronize(many[i]));
        CHECK_OK(grStreamDestroy(many[i]));
    }
    CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
    tl_check_all_u32(x, N, 111 * MANY);
    memset(x, 0, N * sizeof(unsigned));
    launch_check(k.e, k.gs, x, 111);
    gs_case_fini(&k);
}

GR_TEST(span_destroy_waits_for_a_launch_queued_on_a_gpu_stream)
{
    gs_case k;
    gs_case_init(&k);
    unsigned *x = k.t.x;
    memset(x, 0, N * sizeof(unsigned));
    launch_check(k.e, k.gs, x, 111);
    /* Upload on a GPU stream; destroy with a launch on a GPU stream
     * queued behind a closed gate: destroy waits for it. */
    CHECK_OK(grGraphUpload(k.e, k.gs));
    atomic_store(&span_gate, 0);
    CHECK_OK(grLaunchHostFunc(k.gs, tl_wait_gate, &span_gate));
    CHECK_OK(grGraphLaunch(k.e, k.gs));
    pthread_t opener;
    CHECK(pthread_create(&opener, NULL, tl_open_gate_later, &span_gate) == 0);
    CHECK_OK(grGraphExecDestroy(k.e));
    k.e = NULL;
    CHECK_OK(grStreamSynchronize(k.gs));
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
    tl_check_all_u32(x, N, 222);
    gs_case_fini(&k);
}

GR_TEST(span_fork_and_join_across_devices)
{
    span t;
    span_init(&t);
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    /* CPU fill x and y -> { GPU add x 10, CPU add y 20 };
     * GPU add x 10 -> CPU add x 5; { GPU add x 10, CPU add y 20 } -> GPU add y 1000. */
    grGraphNode_t fx = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 1);
    grGraphNode_t fy = add_on(&t, 0, g, &fx, 1, t.cpu_fill, t.y, 1);
    grGraphNode_t gx = add_on(&t, t.gpu, g, &fy, 1, t.gpu_add, t.x, 10);
    grGraphNode_t cy = add_on(&t, 0, g, &fy, 1, t.cpu_add, t.y, 20);
    add_on(&t, 0, g, &gx, 1, t.cpu_add, t.x, 5);
    grGraphNode_t join[] = {gx, cy};
    add_on(&t, t.gpu, g, join, 2, t.gpu_add, t.y, 1000);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < REPLAYS; i++) {
        memset(t.x, 0, N * sizeof(unsigned));
        memset(t.y, 0, N * sizeof(unsigned));
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        tl_check_all_u32(t.x, N, 16);
        tl_check_all_u32(t.y, N, 1021);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_host_and_empty_nodes_run_on_the_cpu_part)
{
    span t;
    span_init(&t);
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t root, gx, host;
    CHECK_OK(grGraphAddEmptyNode(&root, g, NULL, 0));
    gx = add_on(&t, t.gpu, g, &root, 1, t.gpu_fill, t.x, 3);
    add_on(&t, 0, g, &root, 1, t.cpu_fill, t.y, 4);
    atomic_int calls = 0;
    grHostNodeParams hp = {tl_bump_atomic, &calls};
    CHECK_OK(grGraphAddHostNode(&host, g, &gx, 1, &hp));
    add_on(&t, 0, g, &host, 1, t.cpu_add, t.x, 1);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int i = 1; i <= 10; i++) {
        launch_check(e, s, t.x, 4);
        tl_check_all_u32(t.y, N, 4);
        CHECK_EQ(atomic_load(&calls), i);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_copies_and_memsets_run_on_the_device_of_their_memory)
{
    span t;
    span_init(&t);
    unsigned *d = NULL;
    CHECK_OK(grSetDevice(t.gpu));
    CHECK_OK(grMalloc((void **)&d, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    /* GPU memset(d) -> GPU add(d, 10) -> copy d to x (the GPU's: it reads
     * the GPU's memory) -> CPU add(x, 100); beside them a memset of host
     * memory y (the CPU's) -> CPU add(y, 5). */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t set, copy, hset;
    grMemsetParams ms = tl_memset_params(d, 0, 4, N, 1, 0);
    CHECK_OK(grGraphAddMemsetNode(&set, g, NULL, 0, &ms));
    grGraphNode_t add = add_on(&t, t.gpu, g, &set, 1, t.gpu_add, d, 10);
    CHECK_OK(grGraphAddMemcpyNode1D(&copy, g, &add, 1, t.x, d, N * sizeof(unsigned), grMemcpyDeviceToHost));
    add_on(&t, 0, g, &copy, 1, t.cpu_add, t.x, 100);
    grMemsetParams hs = tl_memset_params(t.y, 0, 4, N, 1, 0);
    CHECK_OK(grGraphAddMemsetNode(&hset, g, NULL, 0, &hs));
    add_on(&t, 0, g, &hset, 1, t.cpu_add, t.y, 5);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 20; i++) {
        memset(t.x, 0xff, N * sizeof(unsigned));
        memset(t.y, 0xff, N * sizeof(unsigned));
        launch_check(e, s, t.x, 110);
        tl_check_all_u32(t.y, N, 5);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    span_fini(&t);
}

GR_TEST(span_captured_kernel_names_its_streams_device)
{
    span t;
    span_init(&t);
    /* Captured on a GPU stream with the CPU current: the node is the
     * GPU's, as CUDA's captured kernel is its stream's device's. */
    CHECK_OK(grSetDevice(t.gpu));
    grStream_t gs = tl_stream(grStreamNonBlocking);
    CHECK_OK(grSetDevice(0));
    unsigned ten = 10;
    void *args[] = {&t.x, &ten, &t.n};
    grGraph_t g;
    CHECK_OK(grStreamBeginCapture(gs, grStreamCaptureModeGlobal));
    CHECK_OK(
        grLaunchKernel(t.gpu_add, GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), GR_DIM3(BLOCK, 1, 1), args, 0, gs));
    CHECK_OK(grStreamEndCapture(gs, &g));
    size_t n = 1;
    grGraphNode_t captured;
    CHECK_OK(grGraphGetRootNodes(g, &captured, &n));
    add_on(&t, 0, g, &captured, 1, t.cpu_add, t.x, 100);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    memset(t.x, 0, N * sizeof(unsigned));
    launch_check(e, s, t.x, 110);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(gs));
    span_fini(&t);
}

GR_TEST(span_kernel_node_params_change_in_place_on_either_device)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, true);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    launch_check(e, s, t.x, 111);
    unsigned twenty = 20, two_hundred = 200;
    void *ga[] = {&t.x, &twenty, &t.n}, *ca[] = {&t.x, &two_hundred, &t.n};
    grKernelNodeParams gp = tl_params_1d(t.gpu_add, ga, N, BLOCK), cp = tl_params_1d(t.cpu_add, ca, N, BLOCK);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c.b, &gp));
    launch_check(e, s, t.x, 1 + 20 + 100);
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeKernel;
    np.kernel = cp;
    CHECK_OK(grGraphExecNodeSetParams(e, c.c, &np));
    for (int i = 0; i < 10; i++)
        launch_check(e, s, t.x, 1 + 20 + 200);
    /* The GPU's node keeps the GPU's rule: a kernel without an image is
     * refused there, and nothing changes. */
    gp.func = t.cpu_add;
    CHECK_GR(grErrorInvalidDeviceFunction, grGraphExecKernelNodeSetParams(e, c.b, &gp));
    launch_check(e, s, t.x, 1 + 20 + 200);
    /* A node of no graph, and a node of the graph that is not a kernel's. */
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, NULL, &cp));
    CHECK_DETAIL_HAS("is not a node of the graph");
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_refuses_what_is_not_done_yet_with_a_detail)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, true);
    grGraphExec_t e;
    grStream_t s = tl_stream(0);

    /* A device-updatable kernel node in a graph that spans devices. */
    grKernelNodeAttrValue dv;
    memset(&dv, 0, sizeof dv);
    dv.deviceUpdatableKernelNode.deviceUpdatable = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(c.a, grLaunchAttributeDeviceUpdatableKernelNode, &dv));
    grGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, c.g, &ip));
    CHECK_DETAIL_HAS("is device-updatable");
    CHECK_DETAIL_HAS(
        "holds kernel, memset, memcpy, host, empty, event record, event wait, batch memory operation, "
        "memory allocation, memory free, child graph, conditional and collective nodes only so far");
    CHECK(ip.errNode_out == c.a);
    CHECK_OK(grGraphDestroy(c.g));

    /* A child graph with memory nodes moved in: a part would need a copy
     * of it, and such a graph is not copied. */
    chain_build(&t, &c, true);
    grGraph_t child;
    CHECK_OK(grGraphCreate(&child, 0));
    grGraphNode_t calloc_node, moved;
    grMemAllocNodeParams ap = tl_alloc_params(0, 4096);
    CHECK_OK(grGraphAddMemAllocNode(&calloc_node, child, NULL, 0, &ap));
    grGraphNodeParams mp;
    memset(&mp, 0, sizeof mp);
    mp.type = grGraphNodeTypeGraph;
    mp.graph.graph = child;
    mp.graph.ownership = grGraphChildGraphOwnershipMove;
    CHECK_OK(grGraphAddNode(&moved, c.g, &c.c, NULL, 1, &mp));
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, c.g, &ip));
    CHECK_DETAIL_HAS("holds memory nodes (its child graph was moved in)");
    CHECK(ip.errNode_out == moved);
    CHECK_OK(grGraphDestroy(c.g));

    /* A GPU's node with a kernel that has no GPU image: refused as on the
     * GPU alone; a node named is the graph's, never its copy in the part. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 1);
    grGraphNode_t b = add_on(&t, t.gpu, g, &a, 1, t.cpu_add, t.x, 10);
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorInvalidDeviceFunction, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_DETAIL_HAS("span_cpu_add");
    CHECK(ip.errNode_out == NULL || ip.errNode_out == b);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_graph_of_one_device_instantiates_as_before)
{
    span t;
    span_init(&t);
    /* Every node names the GPU, instantiated with the CPU current: one
     * device named, so the executable is the current device's, as
     * before (the CPU runs the kernels' CPU functions). */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(&t, t.gpu, g, NULL, 0, t.gpu_fill, t.x, 2);
    add_on(&t, t.gpu, g, &a, 1, t.gpu_add, t.x, 3);
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(g);
    CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered);
    grStream_t s = tl_stream(0);
    launch_check(e, s, t.x, 5);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_destroy_with_launches_in_flight_waits_for_them)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, false);
    grGraph_t clone;
    CHECK_OK(grGraphClone(&clone, c.g)); /* a clone keeps its nodes' devices */
    grGraphExec_t e = tl_instantiate(clone);
    grStream_t s = tl_stream(0);
    memset(t.x, 0, N * sizeof(unsigned));
    for (int i = 0; i < 10; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(t.x, N, 1110);
    CHECK_OK(grGraphDestroy(clone));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

/* CPU fill x -> GPU 'devb' add vb -> GPU 2 add 100 -> CPU add 1000, and
 * GPU 2 fill y beside it all; *mid: the second node. */
static grGraph_t two_gpus_graph(span *t, int devb, unsigned vb, grGraphNode_t *mid)
{
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(t, 0, g, NULL, 0, t->cpu_fill, t->x, 1);
    *mid = add_on(t, devb, g, &a, 1, t->gpu_add, t->x, vb);
    grGraphNode_t d = add_on(t, 2, g, mid, 1, t->gpu_add, t->x, 100);
    add_on(t, 0, g, &d, 1, t->cpu_add, t->x, 1000);
    add_on(t, 2, g, NULL, 0, t->gpu_fill, t->y, 9);
    return g;
}

/* Skips the test unless there are two GPUs: two fake ones where the
 * fake device stands in (the runner asks no device question before the
 * test: the count is read at the first). worker_per_part: the fake device
 * runs each GPU part on a CPU worker, and the test's parts wait on each
 * other, so it needs a worker for each part. */
static void two_gpus_or_skip(bool worker_per_part)
{
    if (!getenv("GRAPHRT_FAKEDEV"))
        CHECK_EQ(setenv("GRAPHRT_FAKEDEV", "2", 0), 0);
    if (worker_per_part && !getenv("GRAPHRT_WORKERS"))
        CHECK_EQ(setenv("GRAPHRT_WORKERS", "4", 0), 0);
    int count = 0;
    CHECK_OK(grGetDeviceCount(&count));
    if (count < 3)
        GR_TEST_SKIP("needs two GPUs (%d devices); GRAPHRT_FAKEDEV=2 gives two fake ones", count);
    if (!worker_per_part)
        return;
    int workers = 0;
    CHECK_OK(grDeviceGetAttribute(&workers, grDevAttrMultiProcessorCount, 0));
    if (gr_fakedev_active() && workers < 3)
        GR_TEST_SKIP("the fake device runs each GPU part on a CPU worker: needs 3 workers (%d)", workers);
}

GR_TEST(span_two_gpus_and_the_cpu)
{
    /* Two fake GPUs where the fake device stands in (the runner asks no
     * device question before the test: the count is read at the first). */
    two_gpus_or_skip(false);
    span t;
    span_init(&t);
    grGraphNode_t b, b2;
    grGraph_t g = two_gpus_graph(&t, 1, 10, &b);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < REPLAYS; i++) {
        memset(t.y, 0, N * sizeof(unsigned));
        launch_check(e, s, t.x, 1111);
        tl_check_all_u32(t.y, N, 9);
    }
    /* GPU 1's node set in place; then updated from a graph where it is
     * GPU 1's again, and refused from one where GPU 2 runs it. */
    unsigned twenty = 20;
    void *args[] = {&t.x, &twenty, &t.n};
    grKernelNodeParams kp = tl_params_1d(t.gpu_add, args, N, BLOCK);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, b, &kp));
    launch_check(e, s, t.x, 1121);
    grGraph_t g2 = two_gpus_graph(&t, 1, 30, &b2);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    launch_check(e, s, t.x, 1131);
    CHECK_OK(grGraphDestroy(g2));
    g2 = two_gpus_graph(&t, 2, 40, &b2);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    CHECK(info.errorNode == b2);
    CHECK_DETAIL_HAS("names device 2");
    CHECK_DETAIL_HAS("runs in the part of device 1");
    launch_check(e, s, t.x, 1131);
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

/* GPU memset(d, 0) -> GPU add(d, 10) -> copy d to x (the GPU's part) ->
 * host node (the CPU's) -> CPU add(x, 100); beside them a memset of y
 * (host memory: the CPU's part) -> copy y to z (the CPU's). */
typedef struct mixed {
    grGraph_t g;
    grGraphNode_t set, add, copy, host, cadd, hset, hcopy;
    unsigned *d, *z, *w; /* w: no node's, a copy's new destination */
    atomic_int calls, other;
} mixed;

static void mixed_build(span *t, mixed *m)
{
    CHECK_OK(grSetDevice(t->gpu));
    CHECK_OK(grMalloc((void **)&m->d, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grMallocHost((void **)&m->z, N * sizeof(unsigned)));
    CHECK_OK(grMallocHost((void **)&m->w, N * sizeof(unsigned)));
    atomic_init(&m->calls, 0);
    atomic_init(&m->other, 0);
    CHECK_OK(grGraphCreate(&m->g, 0));
    grMemsetParams ms = tl_memset_params(m->d, 0, 4, N, 1, 0);
    CHECK_OK(grGraphAddMemsetNode(&m->set, m->g, NULL, 0, &ms));
    m->add = add_on(t, t->gpu, m->g, &m->set, 1, t->gpu_add, m->d, 10);
    CHECK_OK(grGraphAddMemcpyNode1D(&m->copy, m->g, &m->add, 1, t->x, m->d, N * sizeof(unsigned),
                                    grMemcpyDeviceToHost));
    grHostNodeParams hp = {tl_bump_atomic, &m->calls};
    CHECK_OK(grGraphAddHostNode(&m->host, m->g, &m->copy, 1, &hp));
    m->cadd = add_on(t, 0, m->g, &m->host, 1, t->cpu_add, t->x, 100);
    grMemsetParams hs = tl_memset_params(t->y, 0, 4, N, 1, 0);
    CHECK_OK(grGraphAddMemsetNode(&m->hset, m->g, NULL, 0, &hs));
    CHECK_OK(grGraphAddMemcpyNode1D(&m->hcopy, m->g, &m->hset, 1, m->z, t->y, N * sizeof(unsigned),
                                    grMemcpyHostToHost));
}

static void mixed_free(mixed *m)
{
    CHECK_OK(grGraphDestroy(m->g));
    CHECK_OK(grFree(m->d));
    CHECK_OK(grFreeHost(m->z));
    CHECK_OK(grFreeHost(m->w));
}

GR_TEST(span_every_setter_reaches_the_nodes_part)
{
    span t;
    span_init(&t);
    mixed m;
    mixed_build(&t, &m);
    grGraphExec_t e = tl_instantiate(m.g);
    grStream_t s = tl_stream(0);
    launch_check(e, s, t.x, 110);
    tl_check_all_u32(m.z, N, 0);
    CHECK_EQ(atomic_load(&m.calls), 1);

    /* The GPU part's memset and the CPU part's, each to a new value. */
    grMemsetParams ms = tl_memset_params(m.d, 5, 4, N, 1, 0);
    CHECK_OK(grGraphExecMemsetNodeSetParams(e, m.set, &ms));
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemset;
    np.memset = tl_memset_params(t.y, 7, 4, N, 1, 0);
    CHECK_OK(grGraphExecNodeSetParams(e, m.hset, &np));
    launch_check(e, s, t.x, 115);
    tl_check_all_u32(m.z, N, 7);
    /* The host node to another counter. */
    grHostNodeParams hp = {tl_bump_atomic, &m.other};
    CHECK_OK(grGraphExecHostNodeSetParams(e, m.host, &hp));
    launch_check(e, s, t.x, 115);
    CHECK_EQ(atomic_load(&m.calls), 2);
    CHECK_EQ(atomic_load(&m.other), 1);
    /* The GPU part's copy to w, the CPU part's from x to z, through
     * both memcpy setters. */
    memset(m.w, 0, N * sizeof(unsigned));
    CHECK_OK(
        grGraphExecMemcpyNodeSetParams1D(e, m.copy, m.w, m.d, N * sizeof(unsigned), grMemcpyDeviceToHost));
    grMemcpy3DParms c3 = tl_copy3d_params(m.z, N * sizeof(unsigned), 1, t.x, N * sizeof(unsigned), 1,
                                          make_grExtent(N * sizeof(unsigned), 1, 1), grMemcpyHostToHost);
    CHECK_OK(grGraphExecMemcpyNodeSetParams(e, m.hcopy, &c3));
    memset(t.x, 0, N * sizeof(unsigned));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(m.w, N, 15);
    /* x: the CPU add only, where the copy no longer writes it; z: x as
     * the CPU part's copy found it, before or after that add. */
    tl_check_all_u32(t.x, N, 100);

    /* Disabled and enabled again, on either part. */
    unsigned en = 7;
    CHECK_OK(grGraphNodeGetEnabled(e, m.add, &en));
    CHECK_EQ(en, 1u);
    CHECK_OK(grGraphNodeSetEnabled(e, m.add, 0));
    CHECK_OK(grGraphNodeSetEnabled(e, m.cadd, 0));
    CHECK_OK(grGraphNodeGetEnabled(e, m.add, &en));
    CHECK_EQ(en, 0u);
    CHECK_OK(grGraphNodeGetEnabled(e, m.cadd, &en));
    CHECK_EQ(en, 0u);
    memset(t.x, 0, N * sizeof(unsigned));
    launch_check(e, s, m.w, 5);
    tl_check_all_u32(t.x, N, 0);
    CHECK_OK(grGraphNodeSetEnabled(e, m.add, 1));
    CHECK_OK(grGraphNodeSetEnabled(e, m.cadd, 1));
    launch_check(e, s, m.w, 15);
    tl_check_all_u32(t.x, N, 100);

    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    mixed_free(&m);
    span_fini(&t);
}

GR_TEST(span_setters_refuse_memory_of_another_part_and_other_kinds)
{
    span t;
    span_init(&t);
    mixed m;
    mixed_build(&t, &m);
    grGraphExec_t e = tl_instantiate(m.g);
    grStream_t s = tl_stream(0);
    /* The CPU part's memset given the GPU's memory, the GPU part's given
     * host memory: each would belong to another part. */
    grMemsetParams ms = tl_memset_params(m.d, 3, 4, N, 1, 0);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, m.hset, &ms));
    CHECK_DETAIL_HAS("belongs to device 1");
    CHECK_DETAIL_HAS("runs in the part of the CPU");
    CHECK_DETAIL_HAS("does not move to another device's part");
    ms = tl_memset_params(t.y, 3, 4, N, 1, 0);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, m.set, &ms));
    CHECK_DETAIL_HAS("belongs to the CPU");
    CHECK_DETAIL_HAS("runs in the part of device 1");
    /* A copy of the GPU's part made a host-to-host copy; the CPU part's
     * made one from the GPU's memory, through the generic setter too. */
    CHECK_GR(grErrorInvalidValue,
             grGraphExecMemcpyNodeSetParams1D(e, m.copy, t.y, m.z, N * sizeof(unsigned), grMemcpyHostToHost));
    CHECK_DETAIL_HAS("runs in the part of device 1");
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemcpy;
    np.memcpy.copyParams = tl_copy3d_params(m.z, N * sizeof(unsigned), 1, m.d, N * sizeof(unsigned), 1,
                                            make_grExtent(N * sizeof(unsigned), 1, 1), grMemcpyDeviceToHost);
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, m.hcopy, &np));
    CHECK_DETAIL_HAS("runs in the part of the CPU");
    /* Setters of another kind, a type that does not match, a node of no
     * graph. */
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, m.add, &ms));
    CHECK_DETAIL_HAS("is a kernel node, not a memset node");
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetEnabled(e, m.host, 0));
    CHECK_DETAIL_HAS("only kernel, memcpy and memset nodes can be enabled");
    unsigned en = 0;
    CHECK_GR(grErrorInvalidValue, grGraphNodeGetEnabled(e, m.host, &en));
    np.type = grGraphNodeTypeHost;
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(e, m.set, &np));
    CHECK_DETAIL_HAS("but node");
    grHostNodeParams hp = {tl_bump_atomic, &m.other};
    CHECK_GR(grErrorInvalidValue, grGraphExecHostNodeSetParams(e, NULL, &hp));
    CHECK_DETAIL_HAS("is not a node of the graph");
    /* The part's own rules: a GPU part's memset that cannot change shape. */
    ms = tl_memset_params(m.d, 3, 4, N / 2, 2, N / 2 * sizeof(unsigned));
    CHECK_GR(grErrorInvalidValue, grGraphExecMemsetNodeSetParams(e, m.set, &ms));
    /* Nothing changed. */
    launch_check(e, s, t.x, 110);
    tl_check_all_u32(m.z, N, 0);
    CHECK_EQ(atomic_load(&m.other), 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    mixed_free(&m);
    span_fini(&t);
}

GR_TEST(span_setter_leaves_a_launch_queued_before_it_its_old_parameters)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, true);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    /* A launch queued behind a closed gate: its CPU part has not run, so
     * the GPU part is not launched yet. A change of the GPU's node made
     * meanwhile waits for that launch, which runs the old value. */
    unsigned twenty = 20;
    void *ga[] = {&t.x, &twenty, &t.n};
    grKernelNodeParams gp = tl_params_1d(t.gpu_add, ga, N, BLOCK);
    atomic_store(&span_gate, 0);
    memset(t.x, 0, N * sizeof(unsigned));
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &span_gate));
    CHECK_OK(grGraphLaunch(e, s));
    pthread_t opener;
    CHECK(pthread_create(&opener, NULL, tl_open_gate_later, &span_gate) == 0);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c.b, &gp));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
    tl_check_all_u32(t.x, N, 111);
    launch_check(e, s, t.x, 121);
    /* The same for disabling the GPU's node. */
    atomic_store(&span_gate, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &span_gate));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK(pthread_create(&opener, NULL, tl_open_gate_later, &span_gate) == 0);
    CHECK_OK(grGraphNodeSetEnabled(e, c.b, 0));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(pthread_join(opener, NULL) == 0);
    tl_check_all_u32(t.x, N, 121);
    launch_check(e, s, t.x, 101);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_update_changes_every_part_in_place)
{
    span t;
    span_init(&t);
    chain c, c2;
    chain_build(&t, &c, true);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    launch_check(e, s, t.x, 111);
    /* A graph built by the same calls with other values: every part
     * takes its nodes' values, replays included. */
    chain_build_v(&t, &c2, true, t.gpu, 2, 20, 200);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, c2.g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    for (int i = 0; i < 10; i++)
        launch_check(e, s, t.x, 222);
    /* The setters still take the nodes of the graph instantiated, and
     * reach the parts after the update. */
    unsigned thirty = 30;
    void *ga[] = {&t.x, &thirty, &t.n};
    grKernelNodeParams gp = tl_params_1d(t.gpu_add, ga, N, BLOCK);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c.b, &gp));
    launch_check(e, s, t.x, 232);
    CHECK_OK(grGraphNodeSetEnabled(e, c.b, 0));
    launch_check(e, s, t.x, 202);
    CHECK_OK(grGraphNodeSetEnabled(e, c.b, 1));
    /* Back from the first graph, changed through the graph's setter. */
    CHECK_OK(grGraphKernelNodeSetParams(c.b, &gp));
    CHECK_OK(grGraphExecUpdate(e, c.g, &info));
    launch_check(e, s, t.x, 131);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c2.g));

    /* Copies, memsets and host nodes of both parts. */
    mixed m, m2;
    mixed_build(&t, &m);
    e = tl_instantiate(m.g);
    launch_check(e, s, t.x, 110);
    mixed_build(&t, &m2);
    grMemsetParams ms = tl_memset_params(m2.d, 4, 4, N, 1, 0);
    CHECK_OK(grGraphMemsetNodeSetParams(m2.set, &ms));
    grMemsetParams hs = tl_memset_params(t.y, 9, 4, N, 1, 0);
    CHECK_OK(grGraphMemsetNodeSetParams(m2.hset, &hs));
    grHostNodeParams hp = {tl_bump_atomic, &m.other};
    CHECK_OK(grGraphHostNodeSetParams(m2.host, &hp));
    CHECK_OK(grGraphExecUpdate(e, m2.g, &info));
    launch_check(e, s, t.x, 114);
    tl_check_all_u32(m2.z, N, 9); /* m2's copy target: the new graph's */
    CHECK_EQ(atomic_load(&m.other), 1);
    CHECK_EQ(atomic_load(&m.calls), 1);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    mixed_free(&m2);
    mixed_free(&m);
    CHECK_OK(grGraphDestroy(c.g));
    span_fini(&t);
}

GR_TEST(span_update_leaves_a_launch_queued_before_it_its_old_parameters)
{
    span t;
    span_init(&t);
    chain c, c2;
    chain_build(&t, &c, true);
    chain_build_v(&t, &c2, true, t.gpu, 1, 20, 100);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    /* A launch queued behind a closed gate, whose CPU part has not
     * launched the GPU part yet: the update waits for it. */
    atomic_store(&span_gate, 0);
    memset(t.x, 0, N * sizeof(unsigned));
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &span_gate));
    CHECK_OK(grGraphLaunch(e, s));
    pthread_t opener;
    CHECK(pthread_create(&opener, NULL, tl_open_gate_later, &span_gate) == 0);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, c2.g, &info));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(pthread_join(opener, NULL) == 0);
    CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
    tl_check_all_u32(t.x, N, 111);
    launch_check(e, s, t.x, 121);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grGraphDestroy(c2.g));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_update_refuses_a_node_of_another_part_and_other_topologies)
{
    span t;
    span_init(&t);
    chain c, c2;
    chain_build(&t, &c, true);
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    grGraphExecUpdateResultInfo info;
    /* The middle node named by the CPU: another part. */
    chain_build_v(&t, &c2, true, 0, 2, 20, 200);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, c2.g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    CHECK(info.errorNode == c2.b);
    CHECK_DETAIL_HAS("names the CPU");
    CHECK_DETAIL_HAS("runs in the part of device 1");
    CHECK_OK(grGraphDestroy(c2.g));
    /* One node more: a topology change, as on one device. */
    chain_build_v(&t, &c2, true, t.gpu, 2, 20, 200);
    add_on(&t, 0, c2.g, &c2.c, 1, t.cpu_add, t.x, 1000);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, c2.g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorTopologyChanged);
    CHECK_OK(grGraphDestroy(c2.g));
    /* A GPU node given a kernel without an image: the part's device
     * refuses it before any part changes. */
    chain_build_v(&t, &c2, true, t.gpu, 2, 20, 200);
    unsigned v = 20;
    void *args[] = {&t.x, &v, &t.n};
    grKernelNodeParams kp = tl_params_1d(t.cpu_add, args, N, BLOCK);
    CHECK_OK(grGraphKernelNodeSetParams(c2.b, &kp));
    CHECK_GR(grErrorInvalidDeviceFunction, grGraphExecUpdate(e, c2.g, &info));
    CHECK_OK(grGraphDestroy(c2.g));
    /* Nothing changed. */
    launch_check(e, s, t.x, 111);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));

    /* A memset whose new memory is another device's. */
    mixed m, m2;
    mixed_build(&t, &m);
    e = tl_instantiate(m.g);
    mixed_build(&t, &m2);
    grMemsetParams hs = tl_memset_params(m2.d, 9, 4, N, 1, 0);
    CHECK_OK(grGraphMemsetNodeSetParams(m2.hset, &hs));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, m2.g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    CHECK(info.errorNode == m2.hset);
    CHECK_DETAIL_HAS("names device 1 (the device of its memory)");
    launch_check(e, s, t.x, 110);
    tl_check_all_u32(m.z, N, 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    mixed_free(&m2);
    mixed_free(&m);
    span_fini(&t);
}

GR_TEST(span_event_nodes_run_in_the_part_of_their_events_device)
{
    span t;
    span_init(&t);
    chain c;
    chain_build(&t, &c, true);
    /* A GPU event recorded after the GPU's node, a CPU event after the
     * last CPU node; a wait for a CPU event recorded before the launch,
     * ahead of the first. */
    grEvent_t gev, gev2, cev, before;
    CHECK_OK(grSetDevice(t.gpu));
    CHECK_OK(grEventCreate(&gev));
    CHECK_OK(grEventCreate(&gev2));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grEventCreate(&cev));
    CHECK_OK(grEventCreate(&before));
    grGraphNode_t grec, crec, wait;
    CHECK_OK(grGraphAddEventRecordNode(&grec, c.g, &c.b, 1, gev));
    CHECK_OK(grGraphAddEventRecordNode(&crec, c.g, &c.c, 1, cev));
    CHECK_OK(grGraphAddEventWaitNode(&wait, c.g, NULL, 0, before));
    CHECK_OK(grGraphAddDependencies(c.g, &wait, &c.a, NULL, 1));
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0), side = tl_stream(grStreamNonBlocking);
    for (int i = 0; i < 10; i++) {
        CHECK_OK(grEventRecord(before, side));
        memset(t.x, 0, N * sizeof(unsigned));
        launch_check(e, s, t.x, 111);
        CHECK_OK(grEventQuery(cev)); /* the CPU part's: done with s's launch */
        /* The GPU part's: done once its record node ran on a GPU, with
         * the GPU part's own launch on the fake device, which may end
         * just after the CPU part saw its last word. */
        CHECK_OK(grEventSynchronize(gev));
    }
    /* The events' setters: another event of the same device, or one of
     * another device, which would move the node to another part. */
    CHECK_OK(grGraphExecEventRecordNodeSetEvent(e, grec, gev2));
    launch_check(e, s, t.x, 111);
    CHECK_OK(grEventSynchronize(gev2));
    CHECK_GR(grErrorInvalidValue, grGraphExecEventRecordNodeSetEvent(e, grec, cev));
    CHECK_DETAIL_HAS("belongs to the CPU, and node");
    CHECK_DETAIL_HAS("runs in the part of device 1");
    CHECK_GR(grErrorInvalidValue, grGraphExecEventWaitNodeSetEvent(e, wait, gev));
    CHECK_DETAIL_HAS("belongs to device 1");
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeEventRecord;
    np.eventRecord.event = gev;
    CHECK_OK(grGraphExecNodeSetParams(e, grec, &np));
    launch_check(e, s, t.x, 111);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(side));
    CHECK_OK(grEventDestroy(gev));
    CHECK_OK(grEventDestroy(gev2));
    CHECK_OK(grEventDestroy(cev));
    CHECK_OK(grEventDestroy(before));
    span_fini(&t);
}

/* A child graph of two GPU kernels adding va then vb to x. */
static grGraph_t gpu_child(span *t, unsigned va, unsigned vb)
{
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(t, t->gpu, g, NULL, 0, t->gpu_add, t->x, va);
    add_on(t, t->gpu, g, &a, 1, t->gpu_add, t->x, vb);
    return g;
}

GR_TEST(span_child_graph_goes_whole_into_its_devices_part)
{
    span t;
    span_init(&t);
    /* CPU fill(x, 1) -> child { GPU add 10 -> GPU add 20 } -> CPU add 100,
     * and a GPU fill of y beside them (the top level's kernel nodes name
     * both devices: the graph spans them). */
    grGraph_t g, child = gpu_child(&t, 10, 20);
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 1), cn;
    CHECK_OK(grGraphAddChildGraphNode(&cn, g, &a, 1, child));
    add_on(&t, 0, g, &cn, 1, t.cpu_add, t.x, 100);
    add_on(&t, t.gpu, g, NULL, 0, t.gpu_fill, t.y, 6);
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(g);
    if (gr_fakedev_active())
        CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered + 1); /* the child is in the GPU's part */
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 10; i++)
        launch_check(e, s, t.x, 131);
    /* Its setter: a child of the same device with other values; one of
     * the CPU would move it. */
    grGraph_t other = gpu_child(&t, 40, 50);
    CHECK_OK(grGraphExecChildGraphNodeSetParams(e, cn, other));
    launch_check(e, s, t.x, 191);
    grGraph_t cpu;
    CHECK_OK(grGraphCreate(&cpu, 0));
    grGraphNode_t ca = add_on(&t, 0, cpu, NULL, 0, t.cpu_add, t.x, 40);
    add_on(&t, 0, cpu, &ca, 1, t.cpu_add, t.x, 50);
    CHECK_GR(grErrorInvalidValue, grGraphExecChildGraphNodeSetParams(e, cn, cpu));
    CHECK_DETAIL_HAS("belongs to the CPU");
    /* An update from a graph whose child has other values. */
    grGraph_t g2, child2 = gpu_child(&t, 2, 3);
    CHECK_OK(grGraphCreate(&g2, 0));
    grGraphNode_t a2 = add_on(&t, 0, g2, NULL, 0, t.cpu_fill, t.x, 1), cn2;
    CHECK_OK(grGraphAddChildGraphNode(&cn2, g2, &a2, 1, child2));
    add_on(&t, 0, g2, &cn2, 1, t.cpu_add, t.x, 100);
    add_on(&t, t.gpu, g2, NULL, 0, t.gpu_fill, t.y, 7);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    launch_check(e, s, t.x, 106);
    tl_check_all_u32(t.y, N, 7);
    CHECK_OK(grGraphExecDestroy(e));

    /* A child graph whose nodes name two devices is refused, the child
     * graph node named. */
    grGraph_t mixedc = gpu_child(&t, 1, 1), g3;
    add_on(&t, 0, mixedc, NULL, 0, t.cpu_add, t.x, 1);
    CHECK_OK(grGraphCreate(&g3, 0));
    grGraphNode_t a3 = add_on(&t, 0, g3, NULL, 0, t.cpu_fill, t.x, 1), cn3;
    add_on(&t, t.gpu, g3, &a3, 1, t.gpu_add, t.x, 1);
    CHECK_OK(grGraphAddChildGraphNode(&cn3, g3, &a3, 1, mixedc));
    grGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, g3, &ip));
    CHECK_DETAIL_HAS("holds nodes of device 1 and of the CPU");
    CHECK(ip.errNode_out == cn3);
    CHECK_OK(grGraphDestroy(g3));
    CHECK_OK(grGraphDestroy(mixedc));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(child2));
    CHECK_OK(grGraphDestroy(cpu));
    CHECK_OK(grGraphDestroy(other));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grStreamDestroy(s));
    span_fini(&t);
}

GR_TEST(span_capture_forks_onto_a_stream_of_another_device_and_joins)
{
    span t;
    span_init(&t);
    /* CPU stream s: fill(x, 1), record ce; GPU stream gs waits for ce:
     * add(x, 10), record ge; s waits for ge: add(x, 100). One capture,
     * one graph over both devices, as CUDA captures across devices. */
    CHECK_OK(grSetDevice(t.gpu));
    grStream_t gs = tl_stream(grStreamNonBlocking);
    grEvent_t ge;
    CHECK_OK(grEventCreate(&ge));
    CHECK_OK(grSetDevice(0));
    grStream_t s = tl_stream(grStreamNonBlocking);
    grEvent_t ce;
    CHECK_OK(grEventCreate(&ce));
    unsigned one = 1, ten = 10, hundred = 100;
    void *a1[] = {&t.x, &one, &t.n}, *a10[] = {&t.x, &ten, &t.n}, *a100[] = {&t.x, &hundred, &t.n};
    grDim3 grid = GR_DIM3((N + BLOCK - 1) / BLOCK, 1, 1), block = GR_DIM3(BLOCK, 1, 1);
    grGraph_t g;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(t.cpu_fill, grid, block, a1, 0, s));
    CHECK_OK(grEventRecord(ce, s));
    CHECK_OK(grStreamWaitEvent(gs, ce, 0));
    CHECK_OK(grLaunchKernel(t.gpu_add, grid, block, a10, 0, gs));
    CHECK_OK(grEventRecord(ge, gs));
    CHECK_OK(grStreamWaitEvent(s, ge, 0));
    CHECK_OK(grLaunchKernel(t.cpu_add, grid, block, a100, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    size_t n = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &n));
    CHECK_EQ(n, (size_t)3);
    /* fill -> GPU add -> CPU add, and fill -> CPU add (s's own order),
     * as CUDA records the join: the GPU's node is the target of one edge
     * and the source of another. */
    grGraphNode_t from[4], to[4];
    size_t ne = 4;
    CHECK_OK(grGraphGetEdges(g, from, to, NULL, &ne));
    CHECK_EQ(ne, (size_t)3);
    bool middle = false;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++)
            middle |= to[i] == from[j];
    CHECK(middle);
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(g);
    if (gr_fakedev_active())
        CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered + 1); /* the GPU's part */
    for (int i = 0; i < 10; i++) {
        memset(t.x, 0, N * sizeof(unsigned));
        launch_check(e, s, t.x, 111);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(gs));
    CHECK_OK(grEventDestroy(ce));
    CHECK_OK(grEventDestroy(ge));
    span_fini(&t);
}

/* A 1D copy node of N words. */
static grGraphNode_t copy_after(grGraph_t g, grGraphNode_t dep, void *dst, const void *src)
{
    grGraphNode_t node;
    CHECK_OK(grGraphAddMemcpyNode1D(&node, g, &dep, 1, dst, src, N * sizeof(unsigned), grMemcpyDefault));
    return node;
}

GR_TEST(span_copies_between_a_gpu_and_pinned_memory_around_a_cpu_kernel)
{
    span t;
    span_init(&t);
    unsigned *pinned = NULL, *gpu_mem = NULL;
    CHECK_OK(grMallocHost((void **)&pinned, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(t.gpu));
    CHECK_OK(grMalloc((void **)&gpu_mem, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    /* GPU fill 9 -> copies to x and to pinned memory -> CPU add 100 on
     * the pinned memory -> copy back to the GPU -> GPU add 1000 -> copy to
     * y: each copy in the GPU's part, ordered by the waits between parts. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t fill = add_on(&t, t.gpu, g, NULL, 0, t.gpu_fill, gpu_mem, 9);
    copy_after(g, fill, t.x, gpu_mem);
    grGraphNode_t down = copy_after(g, fill, pinned, gpu_mem);
    grGraphNode_t add = add_on(&t, 0, g, &down, 1, t.cpu_add, pinned, 100);
    grGraphNode_t up = copy_after(g, add, gpu_mem, pinned);
    grGraphNode_t add2 = add_on(&t, t.gpu, g, &up, 1, t.gpu_add, gpu_mem, 1000);
    copy_after(g, add2, t.y, gpu_mem);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 10; i++) {
        memset(t.x, 0, N * sizeof(unsigned));
        memset(t.y, 0, N * sizeof(unsigned));
        launch_check(e, s, t.y, 1109);
        tl_check_all_u32(t.x, N, 9);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(gpu_mem));
    CHECK_OK(grFreeHost(pinned));
    span_fini(&t);
}

/* Copies between a GPU and pageable memory are refused: on an H100 the
 * driver's copy of pageable memory in a GPU part was not ordered by the
 * waits between the parts (a CPU kernel's result was copied before the
 * kernel ran). The refusal names the node, at instantiation and in the
 * setters. */
GR_TEST(span_copies_between_a_gpu_and_pageable_memory_are_refused)
{
    span t;
    span_init(&t);
    unsigned *pageable = malloc(N * sizeof(unsigned)), *cpu_mem = NULL, *gpu_mem = NULL;
    CHECK(pageable != NULL);
    CHECK_OK(grMalloc((void **)&cpu_mem, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(t.gpu));
    CHECK_OK(grMalloc((void **)&gpu_mem, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    void *const host[] = {pageable, cpu_mem};
    for (int i = 0; i < 2; i++)
        for (int up = 0; up < 2; up++) {
            grGraph_t g;
            CHECK_OK(grGraphCreate(&g, 0));
            grGraphNode_t a = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 1);
            grGraphNode_t c = up ? copy_after(g, a, gpu_mem, host[i]) : copy_after(g, a, host[i], gpu_mem);
            add_on(&t, t.gpu, g, &c, 1, t.gpu_add, gpu_mem, 10);
            grGraphExec_t e = NULL;
            grGraphInstantiateParams ip;
            memset(&ip, 0, sizeof ip);
            CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, g, &ip));
            CHECK_DETAIL_HAS("pageable host memory");
            CHECK_DETAIL_HAS("grMallocHost");
            CHECK(ip.errNode_out == c);
            CHECK(e == NULL);
            CHECK_OK(grGraphDestroy(g));
        }
    /* A copy set to pageable memory in an executable is refused, and the
     * node keeps copying the pinned memory it had. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 3);
    grGraphNode_t c = copy_after(g, a, gpu_mem, t.x);
    grGraphNode_t b = add_on(&t, t.gpu, g, &c, 1, t.gpu_add, gpu_mem, 10);
    copy_after(g, b, t.y, gpu_mem);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams1D(e, c, gpu_mem, pageable,
                                                                   N * sizeof(unsigned), grMemcpyDefault));
    CHECK_DETAIL_HAS("pageable host memory");
    grStream_t s = tl_stream(0);
    memset(t.y, 0, N * sizeof(unsigned));
    launch_check(e, s, t.y, 13);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(cpu_mem));
    CHECK_OK(grFree(gpu_mem));
    free(pageable);
    span_fini(&t);
}

GR_TEST(span_copies_between_two_gpus_run_in_the_destinations_part)
{
    /* Two fake GPUs where the fake device stands in, and a worker for
     * each part: the fake device runs each GPU part on a CPU worker, and
     * here GPU 1's part waits for GPU 2's, which waits for GPU 1's, while
     * the CPU part waits for both. */
    two_gpus_or_skip(true);
    span t;
    span_init(&t);
    unsigned *m1 = NULL, *o1 = NULL, *m2 = NULL;
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grMalloc((void **)&m1, N * sizeof(unsigned)));
    CHECK_OK(grMalloc((void **)&o1, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(2));
    CHECK_OK(grMalloc((void **)&m2, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    /* CPU fill x -> GPU 1 fill m1 -> copy m1 to GPU 2 -> GPU 2 add 10 ->
     * copy back to GPU 1 -> copy to pinned y; each peer copy in its
     * destination's part, the CPU's kernel in the CPU's. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t a = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 1);
    grGraphNode_t f1 = add_on(&t, 1, g, &a, 1, t.gpu_fill, m1, 5);
    grGraphNode_t to2 = copy_after(g, f1, m2, m1);
    grGraphNode_t add2 = add_on(&t, 2, g, &to2, 1, t.gpu_add, m2, 10);
    grGraphNode_t to1 = copy_after(g, add2, m1, m2);
    copy_after(g, to1, t.y, m1);
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(g);
    if (gr_fakedev_active())
        CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered + 2); /* two GPU parts */
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 10; i++) {
        memset(t.y, 0, N * sizeof(unsigned));
        launch_check(e, s, t.y, 15);
        tl_check_all_u32(t.x, N, 1);
    }
    /* The copy to GPU 2 takes another source of GPU 1 in place: it stays
     * in GPU 2's part. */
    CHECK_OK(grMemset(o1, 0, N * sizeof(unsigned)));
    CHECK_OK(grGraphExecMemcpyNodeSetParams1D(e, to2, m2, o1, N * sizeof(unsigned), grMemcpyDefault));
    memset(t.y, 0, N * sizeof(unsigned));
    launch_check(e, s, t.y, 10);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(m1));
    CHECK_OK(grFree(o1));
    CHECK_OK(grFree(m2));
    span_fini(&t);
}

/* A batch memory operation node of one operation on 'word'. */
static grGraphNode_t memop_after(grGraph_t g, grGraphNode_t dep, grStreamBatchMemOpType type, unsigned *word,
                                 unsigned value)
{
    grStreamBatchMemOpParams op;
    memset(&op, 0, sizeof op);
    op.operation = type;
    if (type == grStreamMemOpWaitValue32) {
        op.waitValue.address = word;
        op.waitValue.value = value;
        op.waitValue.flags = grStreamWaitValueGeq;
    } else {
        op.writeValue.address = word;
        op.writeValue.value = value;
    }
    grBatchMemOpNodeParams mp = {NULL, 1, &op, 0};
    grGraphNode_t node;
    CHECK_OK(grGraphAddBatchMemOpNode(&node, g, &dep, 1, &mp));
    return node;
}

GR_TEST(span_batch_memop_nodes_run_in_the_part_of_their_words_device)
{
    span t;
    span_init(&t);
    unsigned *gw = NULL, *pw = NULL;
    CHECK_OK(grMallocHost((void **)&pw, 2 * sizeof(unsigned)));
    pw[1] = 0;
    CHECK_OK(grSetDevice(t.gpu));
    CHECK_OK(grMalloc((void **)&gw, N * sizeof(unsigned)));
    CHECK_OK(grSetDevice(0));
    /* CPU fill x 1 -> GPU add x 10 -> write gw[0] = 42 (the GPU's part)
     * -> copy gw to y; GPU add -> write pw[0] = 5 (pinned: the CPU's
     * part) -> wait pw[0] >= 5 -> CPU add x 100. */
    chain c;
    chain_build(&t, &c, true);
    grGraphNode_t wg = memop_after(c.g, c.b, grStreamMemOpWriteValue32, gw, 42);
    copy_after(c.g, wg, t.y, gw);
    grGraphNode_t wp = memop_after(c.g, c.b, grStreamMemOpWriteValue32, pw, 5);
    grGraphNode_t wait = memop_after(c.g, wp, grStreamMemOpWaitValue32, pw, 5);
    CHECK_OK(grGraphAddDependencies(c.g, &wait, &c.c, NULL, 1));
    grGraphExec_t e = tl_instantiate(c.g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 10; i++) {
        pw[0] = 0;
        memset(t.y, 0, N * sizeof(unsigned));
        launch_check(e, s, t.x, 111);
        CHECK_EQ(t.y[0], 42u);
        CHECK_EQ(pw[0], 5u);
    }
    /* Set in place in its part; new words of another device's memory
     * are refused, and nothing changes. */
    grStreamBatchMemOpParams op;
    memset(&op, 0, sizeof op);
    op.operation = grStreamMemOpWriteValue32;
    op.writeValue.address = gw;
    op.writeValue.value = 43;
    grBatchMemOpNodeParams mp = {NULL, 1, &op, 0};
    CHECK_OK(grGraphExecBatchMemOpNodeSetParams(e, wg, &mp));
    op.writeValue.address = &pw[1];
    CHECK_GR(grErrorInvalidValue, grGraphExecBatchMemOpNodeSetParams(e, wg, &mp));
    CHECK_DETAIL_HAS("does not move to another device's part");
    pw[0] = 0;
    launch_check(e, s, t.x, 111);
    CHECK_EQ(t.y[0], 43u);
    CHECK_EQ(pw[1], 0u);
    CHECK_OK(grGraphExecDestroy(e));
    /* One node operating on the memory of two devices is refused. */
    grStreamBatchMemOpParams two[2];
    memset(two, 0, sizeof two);
    two[0].operation = grStreamMemOpWriteValue32;
    two[0].writeValue.address = gw;
    two[1].operation = grStreamMemOpWriteValue32;
    two[1].writeValue.address = pw;
    grBatchMemOpNodeParams mp2 = {NULL, 2, two, 0};
    grGraphNode_t both;
    CHECK_OK(grGraphAddBatchMemOpNode(&both, c.g, &c.c, 1, &mp2));
    grGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, c.g, &ip));
    CHECK_DETAIL_HAS("operates on memory of device 1 and of the CPU");
    CHECK(ip.errNode_out == both);
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(gw));
    CHECK_OK(grFreeHost(pw));
    span_fini(&t);
}

/* A graph with allocations of the CPU and of the GPU. */
typedef struct memgraph {
    grGraph_t g;
    void *a, *b; /* the CPU's and the GPU's allocation */
    grGraphNode_t alloc_a, alloc_b, free_a, free_b;
} memgraph;

/* a (CPU, N words) filled with 1 by a CPU kernel, copied to pinned y by
 * the CPU's part (a is pageable, which no GPU part copies), y to b (GPU,
 * N words) by the GPU's part, b added 10 to by a GPU kernel and copied
 * out to x: x ends 11. With 'frees', a and b are freed by the graph
 * (after their last use), else they outlive the launch. */
static void memgraph_build(span *t, memgraph *m, bool frees)
{
    CHECK_OK(grGraphCreate(&m->g, 0));
    grMemAllocNodeParams ap = tl_alloc_params(0, N * sizeof(unsigned));
    CHECK_OK(grGraphAddMemAllocNode(&m->alloc_a, m->g, NULL, 0, &ap));
    m->a = ap.dptr;
    grMemAllocNodeParams bp = tl_alloc_params(t->gpu, N * sizeof(unsigned));
    CHECK_OK(grGraphAddMemAllocNode(&m->alloc_b, m->g, NULL, 0, &bp));
    m->b = bp.dptr;
    grGraphNode_t fill = add_on(t, 0, m->g, &m->alloc_a, 1, t->cpu_fill, m->a, 1);
    grGraphNode_t stage, copy_in, add, copy_out;
    CHECK_OK(
        grGraphAddMemcpyNode1D(&stage, m->g, &fill, 1, t->y, m->a, N * sizeof(unsigned), grMemcpyDefault));
    grGraphNode_t deps[2] = {stage, m->alloc_b};
    CHECK_OK(
        grGraphAddMemcpyNode1D(&copy_in, m->g, deps, 2, m->b, t->y, N * sizeof(unsigned), grMemcpyDefault));
    add = add_on(t, t->gpu, m->g, &copy_in, 1, t->gpu_add, m->b, 10);
    CHECK_OK(
        grGraphAddMemcpyNode1D(&copy_out, m->g, &add, 1, t->x, m->b, N * sizeof(unsigned), grMemcpyDefault));
    m->free_a = m->free_b = NULL;
    if (frees) {
        CHECK_OK(grGraphAddMemFreeNode(&m->free_a, m->g, &stage, 1, m->a));
        CHECK_OK(grGraphAddMemFreeNode(&m->free_b, m->g, &copy_out, 1, m->b));
    }
}

GR_TEST(span_memory_nodes_run_in_the_part_of_their_allocations_device)
{
    span t;
    span_init(&t);
    memgraph m;
    memgraph_build(&t, &m, true);
    /* The alloc and free nodes are in the parts of their devices: the
     * copy in goes to the GPU's part (it touches the GPU's b) and waits
     * for the CPU's copy of a, whose pages the CPU's part maps. */
    grGraphExec_t e = tl_instantiate(m.g);
    grStream_t s = tl_stream(grStreamNonBlocking);
    for (int r = 0; r < REPLAYS; r++) {
        memset(t.x, 0xff, N * sizeof(unsigned));
        launch_check(e, s, t.x, 11);
    }
    /* One executable of the allocations at a time, as on one device. */
    grGraphExec_t e2 = NULL;
    grGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e2, m.g, &ip));
    CHECK_DETAIL_HAS("only one instantiation of such a graph may exist at a time");
    CHECK_OK(grGraphExecDestroy(e));
    e2 = tl_instantiate(m.g);
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e2, s, t.x, 11);
    CHECK_OK(grGraphExecDestroy(e2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(m.g));
    span_fini(&t);
}

GR_TEST(span_memory_nodes_keep_the_relaunch_rule_and_auto_free)
{
    span t;
    span_init(&t);
    memgraph m;
    memgraph_build(&t, &m, false);
    grGraphExec_t e = tl_instantiate(m.g);
    grStream_t s = tl_stream(grStreamNonBlocking);
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e, s, t.x, 11);
    /* Both allocations outlive the launch: the next one is refused until
     * each is freed, whichever device it is of. */
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("is still allocated");
    CHECK_OK(grFreeAsync(m.a, s));
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("is still allocated");
    CHECK_OK(grFreeAsync(m.b, s));
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e, s, t.x, 11);
    /* The GPU's allocation is memory the launch made: an eager copy reads
     * it after the launch. */
    unsigned *h = calloc(N, sizeof *h);
    CHECK(h != NULL);
    CHECK_OK(grMemcpy(h, m.b, N * sizeof(unsigned), grMemcpyDefault));
    tl_check_all_u32(h, N, 11);
    free(h);
    CHECK_OK(grFreeAsync(m.a, s));
    CHECK_OK(grFreeAsync(m.b, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(e));

    /* AutoFreeOnLaunch: each launch frees the previous one's. */
    CHECK_OK(grGraphInstantiate(&e, m.g, grGraphInstantiateFlagAutoFreeOnLaunch));
    for (int r = 0; r < 3; r++) {
        memset(t.x, 0xff, N * sizeof(unsigned));
        launch_check(e, s, t.x, 11);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(m.g));
    span_fini(&t);
}

GR_TEST(span_memory_nodes_on_a_gpu_stream_launch)
{
    span t;
    span_init(&t);
    memgraph m;
    memgraph_build(&t, &m, true);
    grGraphExec_t e = tl_instantiate(m.g);
    CHECK_OK(grSetDevice(t.gpu));
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grSetDevice(0));
    for (int r = 0; r < 10; r++) {
        memset(t.x, 0xff, N * sizeof(unsigned));
        launch_check(e, s, t.x, 11);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(m.g));
    span_fini(&t);
}

GR_TEST(span_memory_nodes_update_swaps_the_allocations)
{
    span t;
    span_init(&t);
    memgraph m, m2;
    memgraph_build(&t, &m, true);
    memgraph_build(&t, &m2, true);
    grGraphExec_t e = tl_instantiate(m.g);
    grStream_t s = tl_stream(grStreamNonBlocking);
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e, s, t.x, 11);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, m2.g, &info));
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e, s, t.x, 11);
    /* The old graph's allocations were given back: it instantiates again. */
    grGraphExec_t e1 = tl_instantiate(m.g);
    memset(t.x, 0xff, N * sizeof(unsigned));
    launch_check(e1, s, t.x, 11);
    CHECK_OK(grGraphExecDestroy(e1));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(m.g));
    CHECK_OK(grGraphDestroy(m2.g));
    span_fini(&t);
}

GR_TEST(span_memory_nodes_of_two_gpus_and_the_cpu)
{
    two_gpus_or_skip(true);
    span t;
    span_init(&t);
    /* CPU fill a -> copy to pinned y -> copy to b1 (GPU 1) -> add 10
     * there -> peer copy to b2 (GPU 2) -> add 100 there -> copy to x: 111;
     * each allocation freed after its last use, in its device's part. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    const size_t bytes = N * sizeof(unsigned);
    grGraphNode_t alloc[3], fill, c0, c1, add1, c2, add2, c3, f;
    void *p[3];
    int dev[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        grMemAllocNodeParams ap = tl_alloc_params(dev[i], bytes);
        CHECK_OK(grGraphAddMemAllocNode(&alloc[i], g, NULL, 0, &ap));
        p[i] = ap.dptr;
    }
    fill = add_on(&t, 0, g, &alloc[0], 1, t.cpu_fill, p[0], 1);
    CHECK_OK(grGraphAddMemcpyNode1D(&c0, g, &fill, 1, t.y, p[0], bytes, grMemcpyDefault));
    grGraphNode_t d1[2] = {c0, alloc[1]};
    CHECK_OK(grGraphAddMemcpyNode1D(&c1, g, d1, 2, p[1], t.y, bytes, grMemcpyDefault));
    add1 = add_on(&t, 1, g, &c1, 1, t.gpu_add, p[1], 10);
    grGraphNode_t d2[2] = {add1, alloc[2]};
    CHECK_OK(grGraphAddMemcpyNode1D(&c2, g, d2, 2, p[2], p[1], bytes, grMemcpyDefault));
    add2 = add_on(&t, 2, g, &c2, 1, t.gpu_add, p[2], 100);
    CHECK_OK(grGraphAddMemcpyNode1D(&c3, g, &add2, 1, t.x, p[2], bytes, grMemcpyDefault));
    CHECK_OK(grGraphAddMemFreeNode(&f, g, &c0, 1, p[0]));
    CHECK_OK(grGraphAddMemFreeNode(&f, g, &c2, 1, p[1]));
    CHECK_OK(grGraphAddMemFreeNode(&f, g, &c3, 1, p[2]));
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(grStreamNonBlocking);
    for (int r = 0; r < 20; r++) {
        memset(t.x, 0xff, bytes);
        launch_check(e, s, t.x, 111);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g));
    span_fini(&t);
}

/* ------------------------------------------------- conditional nodes */

static void cond_set_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)grGraphSetConditional(*(grGraphConditionalHandle *)args[0], *(unsigned *)args[1]);
}

static void cond_add_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    **(unsigned **)args[0] += *(unsigned *)args[1];
}

static void cond_countdown_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    unsigned *left = *(unsigned **)args[0];
    if (--*left == 0)
        (void)grGraphSetConditional(*(grGraphConditionalHandle *)args[1], 0);
}

/* The conditional tests' kernels: set(handle, v), add(unsigned *p, v)
 * (*p += v) and countdown(unsigned *left, handle), each for the GPU
 * (with the test image) and for the CPU (a CPU function only). */
typedef struct condk {
    grKernel_t set, add, countdown;    /* with a GPU image */
    grKernel_t cset, cadd, ccountdown; /* the CPU's only */
} condk;

static condk condk_make(void)
{
    static const size_t set_sizes[] = {sizeof(grGraphConditionalHandle), sizeof(unsigned)};
    static const size_t add_sizes[] = {sizeof(unsigned *), sizeof(unsigned)};
    static const size_t cd_sizes[] = {sizeof(unsigned *), sizeof(grGraphConditionalHandle)};
    condk k;
    CHECK_OK(grKernelCreate(&k.set, cond_set_fn, "gr_test_cond_set", 2, set_sizes));
    CHECK_OK(grKernelSetImage(k.set, gr_test_cond_ptx, "gr_test_cond_set"));
    CHECK_OK(grKernelCreate(&k.add, cond_add_fn, "gr_test_cond_add", 2, add_sizes));
    CHECK_OK(grKernelSetImage(k.add, gr_test_cond_ptx, "gr_test_cond_add"));
    CHECK_OK(grKernelCreate(&k.countdown, cond_countdown_fn, "gr_test_cond_countdown", 2, cd_sizes));
    CHECK_OK(grKernelSetImage(k.countdown, gr_test_cond_ptx, "gr_test_cond_countdown"));
    CHECK_OK(grKernelCreate(&k.cset, cond_set_fn, "span_cond_set_cpu", 2, set_sizes));
    CHECK_OK(grKernelCreate(&k.cadd, cond_add_fn, "span_cond_add_cpu", 2, add_sizes));
    CHECK_OK(grKernelCreate(&k.ccountdown, cond_countdown_fn, "span_cond_countdown_cpu", 2, cd_sizes));
    return k;
}

static void condk_free(condk *k)
{
    grKernel_t all[] = {k->set, k->add, k->countdown, k->cset, k->cadd, k->ccountdown};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CHECK_OK(grKernelDestroy(all[i]));
}

/* A one-block node of kernel k (two arguments) after deps, with 'device'
 * current. */
static grGraphNode_t add2(int device, grGraph_t g, const grGraphNode_t *deps, size_t ndeps, grKernel_t k,
                          void *a0, void *a1)
{
    grGraphNode_t node;
    void *args[] = {a0, a1};
    grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grSetDevice(device));
    CHECK_OK(grGraphAddKernelNode(&node, g, deps, ndeps, &kp));
    CHECK_OK(grSetDevice(0));
    return node;
}

static void snapshot_fn(void *p)
{
    unsigned *c = p;
    for (int i = 0; i < 4; i++)
        c[4 + i] = c[i];
}

/* The GPU-bodies graph: CPU fill y with 'loops' (N words) -> GPU WHILE
 * { countdown(y[0]) -> add(cell 0, 1) } (a loop the CPU's data sets the
 * length of); GPU set(hi, vi) -> GPU IF { add(cell 1, 10) } ELSE
 * { add(cell 1, 20) }; GPU set(hs, vs) -> GPU SWITCH { add(cell 2, 1),
 * add(cell 2, 2), add(cell 2, 3) }; all three -> a host node that copies
 * cells 0..3 to 4..7 (the CPU's part, after the GPU's). */
typedef struct gcond {
    grGraph_t g;
    grGraphConditionalHandle hw, hi, hs;
    grGraphNode_t fill, setif, setsw, ifadd, snap;
} gcond;

static void gcond_build(span *t, condk *k, gcond *c, unsigned *cell, unsigned loops, unsigned vi, unsigned vs,
                        unsigned ifv)
{
    CHECK_OK(grGraphCreate(&c->g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&c->hw, c->g, 1, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&c->hi, c->g, 0, grGraphCondAssignDefault));
    CHECK_OK(grGraphConditionalHandleCreate(&c->hs, c->g, 0, 0));
    c->fill = add_on(t, 0, c->g, NULL, 0, t->cpu_fill, t->y, loops);
    grGraph_t *body;
    grGraphNode_t w = tl_add_cond(c->g, &c->fill, 1, c->hw, grGraphCondTypeWhile, 1, &body);
    unsigned *left = t->y, one = 1, two = 2, three = 3, twenty = 20;
    unsigned *c0 = &cell[0], *c1 = &cell[1], *c2 = &cell[2];
    grGraphNode_t cd = add2(t->gpu, body[0], NULL, 0, k->countdown, &left, &c->hw);
    add2(t->gpu, body[0], &cd, 1, k->add, &c0, &one);
    c->setif = add2(t->gpu, c->g, NULL, 0, k->set, &c->hi, &vi);
    grGraphNode_t in = tl_add_cond(c->g, &c->setif, 1, c->hi, grGraphCondTypeIf, 2, &body);
    c->ifadd = add2(t->gpu, body[0], NULL, 0, k->add, &c1, &ifv);
    add2(t->gpu, body[1], NULL, 0, k->add, &c1, &twenty);
    c->setsw = add2(t->gpu, c->g, NULL, 0, k->set, &c->hs, &vs);
    grGraphNode_t sw = tl_add_cond(c->g, &c->setsw, 1, c->hs, grGraphCondTypeSwitch, 3, &body);
    add2(t->gpu, body[0], NULL, 0, k->add, &c2, &one);
    add2(t->gpu, body[1], NULL, 0, k->add, &c2, &two);
    add2(t->gpu, body[2], NULL, 0, k->add, &c2, &three);
    grGraphNode_t ends[3] = {w, in, sw};
    grHostNodeParams hp = {snapshot_fn, cell};
    CHECK_OK(grGraphAddHostNode(&c->snap, c->g, ends, 3, &hp));
}

static void gcond_launch(grGraphExec_t e, grStream_t s, unsigned *cell, unsigned w0, unsigned w1, unsigned w2)
{
    memset(cell, 0, 8 * sizeof *cell);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(cell[0], w0);
    CHECK_EQ(cell[1], w1);
    CHECK_EQ(cell[2], w2);
    for (int i = 0; i < 3; i++) /* the host node ran after the GPU's bodies */
        CHECK_EQ(cell[4 + i], cell[i]);
}

GR_TEST(span_conditional_bodies_run_in_the_gpu_part_fed_by_cpu_kernels)
{
    span t;
    span_init(&t);
    condk k = condk_make();
    unsigned *cell;
    CHECK_OK(grMallocHost((void **)&cell, 8 * sizeof *cell));
    gcond c;
    gcond_build(&t, &k, &c, cell, 4, 1, 1, 10);
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(c.g);
    if (gr_fakedev_active())
        CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered + 1); /* every body in the GPU's part */
    grStream_t s = tl_stream(0);
    for (int r = 0; r < 10; r++)
        gcond_launch(e, s, cell, 4, 10, 2);
    /* A second executable of the graph is refused while this one lives,
     * as for any graph with conditional nodes. */
    grGraphExec_t e2;
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, c.g, 0));
    CHECK_DETAIL_HAS("one executable at a time");
    /* The setters reach the GPU part's top-level nodes and its bodies'. */
    unsigned zero = 0, two = 2, thirty = 30, *c1 = &cell[1];
    void *sargs[] = {&c.hi, &zero};
    grKernelNodeParams kp = {k.set, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, sargs, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c.setif, &kp));
    void *wargs[] = {&c.hs, &two};
    kp.kernelParams = wargs;
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c.setsw, &kp));
    for (int r = 0; r < 3; r++)
        gcond_launch(e, s, cell, 4, 20, 3);
    void *ones[] = {&c.hi, &two};
    kp.kernelParams = ones;
    CHECK_OK(grGraphExecKernelNodeSetParams(e, c.setif, &kp));
    void *aargs[] = {&c1, &thirty};
    grKernelNodeParams ap = {k.add, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, aargs, NULL};
    /* A body's node of the GPU's part: the GPU's rule, as on the GPU
     * alone (its CUDA graph's bodies change by an update only). */
    CHECK_GR(grErrorNotSupported, grGraphExecKernelNodeSetParams(e, c.ifadd, &ap));
    CHECK_DETAIL_HAS("in a conditional node's body");
    gcond_launch(e, s, cell, 4, 10, 3);
    /* An update from a graph of the same shape takes its handles and
     * values: 7 loops, the ELSE, the first case. */
    gcond c2;
    gcond_build(&t, &k, &c2, cell, 7, 0, 0, 10);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, c2.g, &info));
    for (int r = 0; r < 3; r++)
        gcond_launch(e, s, cell, 7, 20, 1);
    /* From the graph it was made of again: its own handles. */
    CHECK_OK(grGraphExecUpdate(e, c.g, &info));
    gcond_launch(e, s, cell, 4, 10, 2);
    CHECK_OK(grGraphExecUpdate(e, c2.g, &info));
    /* Launched on the GPU's stream too. */
    grStream_t gs = gpu_stream(&t);
    gcond_launch(e, gs, cell, 7, 20, 1);
    CHECK_OK(grStreamDestroy(gs));
    CHECK_OK(grGraphExecDestroy(e));
    /* Once it is gone, the graph instantiates again. */
    e = tl_instantiate(c.g);
    gcond_launch(e, s, cell, 4, 10, 2);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c.g));
    CHECK_OK(grGraphDestroy(c2.g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFreeHost(cell));
    condk_free(&k);
    span_fini(&t);
}

GR_TEST(span_conditional_body_on_the_cpu_beside_gpu_work)
{
    span t;
    span_init(&t);
    condk k = condk_make();
    unsigned *cell;
    CHECK_OK(grMallocHost((void **)&cell, 8 * sizeof *cell));
    /* CPU set(h, 1) -> CPU WHILE { countdown(cell 3) -> add(cell 0, 1) }
     * and GPU fill(x, 1) -> GPU add(x, 10) beside it; both -> CPU add(x,
     * 100): x ends 111, cell 0 counts the CPU's loops, which run while
     * the GPU's part runs. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphConditionalHandle h;
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    unsigned one = 1, *c0 = &cell[0], *c3 = &cell[3];
    grGraphNode_t set = add2(0, g, NULL, 0, k.cset, &h, &one);
    grGraph_t *body;
    grGraphNode_t w = tl_add_cond(g, &set, 1, h, grGraphCondTypeWhile, 1, &body);
    grGraphNode_t cd = add2(0, body[0], NULL, 0, k.ccountdown, &c3, &h);
    grGraphNode_t inc = add2(0, body[0], &cd, 1, k.cadd, &c0, &one);
    /* A branch nested in the loop, on a handle of the graph: once per
     * iteration. */
    grGraphConditionalHandle hn;
    CHECK_OK(grGraphConditionalHandleCreate(&hn, g, 1, grGraphCondAssignDefault));
    unsigned *c1 = &cell[1];
    grGraph_t *nbody;
    tl_add_cond(body[0], &inc, 1, hn, grGraphCondTypeIf, 1, &nbody);
    grGraphNode_t ninc = add2(0, nbody[0], NULL, 0, k.cadd, &c1, &one);
    grGraphNode_t gf = add_on(&t, t.gpu, g, NULL, 0, t.gpu_fill, t.x, 1);
    grGraphNode_t ga = add_on(&t, t.gpu, g, &gf, 1, t.gpu_add, t.x, 10);
    grGraphNode_t ends[2] = {w, ga}, last;
    void *largs[] = {&t.x, &(unsigned){100}, &t.n};
    grKernelNodeParams lp = tl_params_1d(t.cpu_add, largs, N, BLOCK);
    CHECK_OK(grGraphAddKernelNode(&last, g, ends, 2, &lp));
    unsigned lowered = gr_fakedev_calls("exec_lower");
    grGraphExec_t e = tl_instantiate(g);
    if (gr_fakedev_active())
        CHECK_EQ(gr_fakedev_calls("exec_lower"), lowered + 1); /* the loop stays in the CPU's part */
    grStream_t s = tl_stream(0);
    for (unsigned r = 1; r <= 10; r++) {
        cell[0] = cell[1] = 0;
        cell[3] = r;
        launch_check(e, s, t.x, 111);
        CHECK_EQ(cell[0], r);
        CHECK_EQ(cell[1], r);
    }
    /* A node of the nested body takes the setter too. */
    unsigned three = 3;
    void *nargs[] = {&c1, &three};
    grKernelNodeParams np = {k.cadd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, nargs, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, ninc, &np));
    cell[1] = 0;
    cell[3] = 2;
    launch_check(e, s, t.x, 111);
    CHECK_EQ(cell[1], 6u);
    /* The CPU part's bodies take the setters, as on the CPU alone. */
    unsigned five = 5;
    void *iargs[] = {&c0, &five};
    grKernelNodeParams ip = {k.cadd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, iargs, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(e, inc, &ip));
    cell[0] = 0;
    cell[3] = 3;
    launch_check(e, s, t.x, 111);
    CHECK_EQ(cell[0], 15u);
    CHECK_OK(grGraphNodeSetEnabled(e, inc, 0));
    unsigned en = 1;
    CHECK_OK(grGraphNodeGetEnabled(e, inc, &en));
    CHECK_EQ(en, 0u);
    cell[0] = 0;
    cell[3] = 3;
    launch_check(e, s, t.x, 111);
    CHECK_EQ(cell[0], 0u);
    CHECK_EQ(cell[3], 0u); /* the loop ran, without the disabled node */
    CHECK_OK(grGraphNodeSetEnabled(e, inc, 1));
    /* Not a node of the graph: refused, as on one device. */
    grGraphNode_t stranger = add2(0, body[0], NULL, 0, k.cadd, &c0, &one);
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, stranger, &ip));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFreeHost(cell));
    condk_free(&k);
    span_fini(&t);
}

GR_TEST(span_conditional_refusals_name_the_nodes)
{
    span t;
    span_init(&t);
    condk k = condk_make();
    unsigned *cell;
    CHECK_OK(grMallocHost((void **)&cell, 8 * sizeof *cell));
    unsigned one = 1, *c0 = &cell[0];
    grGraphInstantiateParams ip;

    /* Bodies that name two devices: the conditional node named. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphConditionalHandle h;
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    grGraphNode_t a = add_on(&t, t.gpu, g, NULL, 0, t.gpu_fill, t.x, 1);
    add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.y, 1); /* the top level names both devices */
    grGraph_t *body;
    grGraphNode_t cn = tl_add_cond(g, &a, 1, h, grGraphCondTypeIf, 2, &body);
    add2(t.gpu, body[0], NULL, 0, k.add, &c0, &one);
    add2(0, body[1], NULL, 0, k.cadd, &c0, &one);
    memset(&ip, 0, sizeof ip);
    grGraphExec_t e;
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_DETAIL_HAS("holds nodes of device 1 and of the CPU in its bodies");
    CHECK_DETAIL_HAS("a conditional node goes whole, with its bodies, into one device's part");
    CHECK(ip.errNode_out == cn);
    CHECK_OK(grGraphDestroy(g));

    /* A CPU kernel that sets the handle of a GPU part's conditional node:
     * the kernel named, the conditional node in the detail. */
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    grGraphNode_t set = add2(0, g, NULL, 0, k.cset, &h, &one);
    add_on(&t, t.gpu, g, NULL, 0, t.gpu_fill, t.y, 1);
    cn = tl_add_cond(g, &set, 1, h, grGraphCondTypeIf, 1, &body);
    grGraphNode_t inside = add2(t.gpu, body[0], NULL, 0, k.add, &c0, &one);
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, g, &ip));
    CHECK_DETAIL_HAS("runs in the part of the CPU and takes as argument 0 the handle of conditional node");
    CHECK_DETAIL_HAS("which runs in the part of device 1");
    CHECK(ip.errNode_out == set);
    /* Set by a GPU kernel instead: it instantiates and runs; a setter
     * giving a CPU kernel node the handle is refused. */
    grGraphNode_t gset = add2(t.gpu, g, NULL, 0, k.set, &h, &one);
    CHECK_OK(grGraphAddDependencies(g, &gset, &cn, NULL, 1));
    void *zargs[] = {&c0, &one};
    grKernelNodeParams zp = {k.cset, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, zargs, NULL};
    CHECK_OK(grGraphKernelNodeSetParams(set, &zp)); /* no handle any more */
    zp.func = k.cadd;
    CHECK_OK(grGraphKernelNodeSetParams(set, &zp));
    e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int r = 0; r < 3; r++) {
        cell[0] = 0;
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(cell[0], 2u); /* the CPU's add, then the body's */
    }
    void *hargs[] = {&h, &one};
    grKernelNodeParams hp = {k.cset, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, hargs, NULL};
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, set, &hp));
    CHECK_DETAIL_HAS("is the handle of a conditional node that runs in the part of device 1");
    /* The GPU's own kernel may take it. */
    hp.func = k.set;
    CHECK_OK(grGraphExecKernelNodeSetParams(e, gset, &hp));
    /* An update whose CPU kernel takes the handle is refused, the kernel
     * its error node, and the executable keeps running as it was. */
    CHECK_OK(grGraphExecDestroy(e));
    grGraph_t g2;
    CHECK_OK(grGraphCreate(&g2, 0));
    grGraphConditionalHandle h2;
    CHECK_OK(grGraphConditionalHandleCreate(&h2, g2, 0, 0));
    grGraphNode_t set2 = add2(0, g2, NULL, 0, k.cadd, &c0, &one);
    add_on(&t, t.gpu, g2, NULL, 0, t.gpu_fill, t.y, 1);
    grGraphNode_t cn2 = tl_add_cond(g2, &set2, 1, h2, grGraphCondTypeIf, 1, &body);
    add2(t.gpu, body[0], NULL, 0, k.add, &c0, &one);
    grGraphNode_t gset2 = add2(t.gpu, g2, NULL, 0, k.set, &h2, &one);
    CHECK_OK(grGraphAddDependencies(g2, &gset2, &cn2, NULL, 1));
    (void)inside;
    e = tl_instantiate(g);
    void *h2args[] = {&h2, &one};
    grKernelNodeParams h2p = {k.cset, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, h2args, NULL};
    CHECK_OK(grGraphKernelNodeSetParams(set2, &h2p));
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_DETAIL_HAS("runs in the part of the CPU and takes as argument 0 the handle of conditional node");
    CHECK_DETAIL_HAS("which runs in the part of device 1");
    CHECK(info.errorNode == set2);
    cell[0] = 0;
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(cell[0], 2u);
    /* A handle of the new graph another executable holds is refused. */
    h2p.func = k.cadd;
    h2p.kernelParams = zargs;
    CHECK_OK(grGraphKernelNodeSetParams(set2, &h2p));
    grGraphExec_t other = tl_instantiate(g2);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g2, &info));
    CHECK_DETAIL_HAS("is used by another executable");
    CHECK_OK(grGraphExecDestroy(other));
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    cell[0] = 0;
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(cell[0], 2u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g2));

    /* A GPU body's kernel given the handle of the CPU part's loop: the
     * GPU's conditional node named, the kernel in the detail. */
    grGraph_t g3;
    CHECK_OK(grGraphCreate(&g3, 0));
    grGraphConditionalHandle hc, hg;
    CHECK_OK(grGraphConditionalHandleCreate(&hc, g3, 0, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&hg, g3, 1, grGraphCondAssignDefault));
    add_on(&t, t.gpu, g3, NULL, 0, t.gpu_fill, t.y, 1);
    grGraphNode_t cset = add2(0, g3, NULL, 0, k.cset, &hc, &one);
    grGraphNode_t cw = tl_add_cond(g3, &cset, 1, hc, grGraphCondTypeWhile, 1, &body);
    add2(0, body[0], NULL, 0, k.cset, &hc, &(unsigned){0});
    grGraphNode_t gif = tl_add_cond(g3, &cw, 1, hg, grGraphCondTypeIf, 1, &body);
    add2(t.gpu, body[0], NULL, 0, k.set, &hc, &one);
    memset(&ip, 0, sizeof ip);
    CHECK_GR(grErrorNotSupported, grGraphInstantiateWithParams(&e, g3, &ip));
    CHECK_DETAIL_HAS("holds kernel node");
    CHECK_DETAIL_HAS(
        "which runs in the part of device 1 and takes as argument 0 the handle of conditional node");
    CHECK_DETAIL_HAS("which runs in the part of the CPU");
    CHECK(ip.errNode_out == gif);
    CHECK_OK(grGraphDestroy(g3));

    /* A handle no conditional node uses: refused as on one device. */
    grGraphConditionalHandle unused;
    CHECK_OK(grGraphConditionalHandleCreate(&unused, g, 0, 0));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("is used by no conditional node");
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFreeHost(cell));
    condk_free(&k);
    span_fini(&t);
}

/* ------------------------------------------------- collective nodes */

GR_TEST(span_collective_nodes_run_in_their_communicators_part)
{
    span t;
    span_init(&t);
    if (!gr_fakedev_active())
        GR_TEST_SKIP("the one-rank GPU communicator is the fake device's (a real GPU's: "
                     "test-gpu-collectives.c)");
    grComm_t cc, gc;
    CHECK_OK(grCommInitSelf(&cc));
    int dev = t.gpu;
    CHECK_OK(grCommInitDevices(&gc, 1, &dev));
    const size_t bytes = N * sizeof(unsigned);
    unsigned *g1, *g2, *g3;
    CHECK_OK(grSetDevice(t.gpu));
    CHECK_OK(grMalloc((void **)&g1, bytes));
    CHECK_OK(grMalloc((void **)&g2, bytes));
    CHECK_OK(grMalloc((void **)&g3, bytes));
    CHECK_OK(grSetDevice(0));
    /* CPU fill x 1 -> all-reduce x -> y on the CPU's communicator -> copy
     * y to g1 -> GPU add g1 10 -> all-reduce g1 -> g2 on the GPU's
     * communicator -> copy g2 to x -> CPU add x 100: x ends 111. */
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t fill = add_on(&t, 0, g, NULL, 0, t.cpu_fill, t.x, 1), ca, c1, add, ga, c2;
    grCollectiveNodeParams cp = tl_coll(grCollAllReduce, t.x, t.y, N, grCommInt32, grCommSum, 0, cc);
    CHECK_OK(grGraphAddCollectiveNode(&ca, g, &fill, 1, &cp));
    CHECK_OK(grGraphAddMemcpyNode1D(&c1, g, &ca, 1, g1, t.y, bytes, grMemcpyDefault));
    add = add_on(&t, t.gpu, g, &c1, 1, t.gpu_add, g1, 10);
    grCollectiveNodeParams gp = tl_coll(grCollAllReduce, g1, g2, N, grCommInt32, grCommSum, 0, gc);
    CHECK_OK(grGraphAddCollectiveNode(&ga, g, &add, 1, &gp));
    CHECK_OK(grGraphAddMemcpyNode1D(&c2, g, &ga, 1, t.x, g2, bytes, grMemcpyDefault));
    add_on(&t, 0, g, &c2, 1, t.cpu_add, t.x, 100);
    gr_fakedev_reset_calls();
    grGraphExec_t e = tl_instantiate(g);
    CHECK_EQ(gr_fakedev_calls("exec_lower"), 1u);
    CHECK_EQ(gr_fakedev_calls("lower_collective_node"), 1u); /* the GPU's only */
    grStream_t s = tl_stream(0);
    for (int r = 0; r < 10; r++) {
        memset(t.y, 0, bytes);
        launch_check(e, s, t.x, 111);
        tl_check_all_u32(t.y, N, 1);
    }
    /* The setter reaches the GPU part's node (the device's first) and
     * the CPU part's. */
    grCollectiveNodeParams gq = tl_coll(grCollAllReduce, g1, g3, N, grCommInt32, grCommSum, 0, gc);
    CHECK_OK(grGraphExecCollectiveNodeSetParams(e, ga, &gq));
    CHECK(gr_fakedev_calls("exec_set_coll") >= 1u);
    grCollectiveNodeParams cq = tl_coll(grCollAllReduce, t.x, t.y, N / 2, grCommInt32, grCommSum, 0, cc);
    CHECK_OK(grGraphExecCollectiveNodeSetParams(e, ca, &cq));
    memset(g3, 0, bytes);
    memset(t.y, 0, bytes);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(g3, N / 2, 11); /* the first half came through y */
    CHECK_EQ(t.y[N / 2], 0u);
    /* It keeps its operation and communicator (so its part). */
    grCollectiveNodeParams moved = tl_coll(grCollAllReduce, g1, g3, N, grCommInt32, grCommSum, 0, cc);
    CHECK_GR(grErrorInvalidValue, grGraphExecCollectiveNodeSetParams(e, ga, &moved));
    CHECK_DETAIL_HAS("keeps its operation and communicator");
    CHECK_GR(grErrorInvalidValue, grGraphExecCollectiveNodeSetParams(e, add, &gq));
    CHECK_DETAIL_HAS("not a collective node");
    /* An update from a graph of the same shape with other buffers. */
    grGraph_t g2g;
    CHECK_OK(grGraphCreate(&g2g, 0));
    grGraphNode_t f2 = add_on(&t, 0, g2g, NULL, 0, t.cpu_fill, t.x, 2), ca2, c12, add2n, ga2, c22;
    CHECK_OK(grGraphAddCollectiveNode(&ca2, g2g, &f2, 1, &cp));
    CHECK_OK(grGraphAddMemcpyNode1D(&c12, g2g, &ca2, 1, g1, t.y, bytes, grMemcpyDefault));
    add2n = add_on(&t, t.gpu, g2g, &c12, 1, t.gpu_add, g1, 10);
    CHECK_OK(grGraphAddCollectiveNode(&ga2, g2g, &add2n, 1, &gq));
    CHECK_OK(grGraphAddMemcpyNode1D(&c22, g2g, &ga2, 1, t.x, g3, bytes, grMemcpyDefault));
    add_on(&t, 0, g2g, &c22, 1, t.cpu_add, t.x, 100);
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2g, &info));
    for (int r = 0; r < 3; r++) {
        memset(t.y, 0, bytes);
        launch_check(e, s, t.x, 112);
        tl_check_all_u32(t.y, N, 2);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g2g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(cc));
    CHECK_OK(grCommDestroy(gc));
    CHECK_OK(grFree(g1));
    CHECK_OK(grFree(g2));
    CHECK_OK(grFree(g3));
    span_fini(&t);
}
