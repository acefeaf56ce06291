/*
 * test-fakedev.c - the device seam's rules, on the fake device
 * (tests/fakedev): what the layers above the backend promise whatever the
 * device does. The exec setters ask the device first and write the plan
 * only when it agrees; an update that the device refuses changes nothing;
 * work, events, executables and pools of one device are refused on
 * another's streams; an executable's memory must be reachable from its
 * device; pools serve a device other than the CPU; an injected failure of
 * any operation, a refused lowering and an asynchronous error come back to
 * the caller with a detail. Each test runs only where the fake device
 * stands for devices 1..N (no GPU here, GRAPHRT_FAKEDEV not 0).
 */
#include "testlib.h"

#include "../fakedev/fakedev.h"

#include "../../src/backend/device.h"

#include <stdatomic.h>

enum {
    N = 256
};

static void fake_or_skip(void)
{
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
}

static grKernel_t fake_fill_kernel(bool image)
{
    grKernel_t k;
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&k, tl_fill_u32_fn, image ? "fake_fill" : "fake_fill_cpu_only", 3, sizes));
    if (image)
        CHECK_OK(grKernelSetImage(k, "// an image the fake device takes as it is", "fake_fill"));
    return k;
}

/* Launches e on s and returns buf[0] after it, copied to the host. */
static unsigned run_and_read(grGraphExec_t e, grStream_t s, const void *buf)
{
    unsigned v = 0;
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grMemcpyAsync(&v, buf, sizeof v, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    return v;
}

GR_TEST(fakedev_runs_eager_work_and_records_each_call)
{
    unsigned h[N], *d = NULL, v = 7, n = N;
    grKernel_t k;
    fake_or_skip();
    k = fake_fill_kernel(true);
    gr_fakedev_reset_calls();
    grStream_t s = tl_stream(0);
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    void *args[] = {&d, &v, &n};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(N / 64, 1, 1), GR_DIM3(64, 1, 1), args, 0, s));
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        CHECK_EQ(h[i], 7u);
    CHECK_EQ(gr_fakedev_calls("stream_create"), 1u);
    CHECK_EQ(gr_fakedev_calls("mem_alloc"), 1u);
    CHECK_EQ(gr_fakedev_calls("launch"), 1u);
    CHECK_EQ(gr_fakedev_calls("copy"), 1u);
    CHECK(gr_fakedev_calls("stream_sync") >= 1u);
    CHECK_OK(grFree(d));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

/* A graph of one memset node writing 'value' into d's first word. */
static grGraph_t memset_graph(void *d, unsigned value, grGraphNode_t *node)
{
    grGraph_t g;
    grMemsetParams mp = {d, 0, value, 4, 1, 1};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemsetNode(node, g, NULL, 0, &mp));
    return g;
}

/* What the setter and update tests share, on device 1: a stream, 64
 * bytes of the device's memory and, where asked, the fill kernel with an
 * image for the device (k) and without one (cpu_only). */
typedef struct fake_rig {
    grStream_t s;
    unsigned *d;
    grKernel_t k, cpu_only;
} fake_rig;

static fake_rig fake_rig_open(bool kernels)
{
    fake_rig r = {0};
    fake_or_skip();
    if (kernels) {
        r.k = fake_fill_kernel(true);
        r.cpu_only = fake_fill_kernel(false);
    }
    r.s = tl_stream(0);
    r.d = tl_malloc(64);
    return r;
}

/* Destroys e, then what fake_rig_open made. */
static void fake_rig_close(fake_rig *r, grGraphExec_t e)
{
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grFree(r->d));
    CHECK_OK(grStreamDestroy(r->s));
    if (r->k) {
        CHECK_OK(grKernelDestroy(r->k));
        CHECK_OK(grKernelDestroy(r->cpu_only));
    }
}

GR_TEST(fakedev_setter_refused_by_the_device_leaves_the_plan_as_it_was)
{
    grGraphNode_t node;
    fake_rig r = fake_rig_open(false);
    grStream_t s = r.s;
    unsigned *d = r.d;
    grGraph_t g = memset_graph(d, 1, &node);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_EQ(run_and_read(e, s, d), 1u);
    /* The device first: its refusal comes back and the plan keeps 1. */
    gr_fakedev_fail("exec_set_memset", grErrorMemoryAllocation, 0);
    grMemsetParams mp = {d, 0, 2, 4, 1, 1};
    CHECK_REFUSED(grErrorMemoryAllocation, grGraphExecMemsetNodeSetParams, e, node, &mp);
    CHECK_DETAIL_HAS("injected");
    CHECK_EQ(run_and_read(e, s, d), 1u);
    /* Then the plan, once the device agrees. */
    gr_fakedev_clear();
    CHECK_OK(grGraphExecMemsetNodeSetParams(e, node, &mp));
    CHECK_EQ(run_and_read(e, s, d), 2u);
    CHECK_OK(grGraphDestroy(g));
    fake_rig_close(&r, e);
}

GR_TEST(fakedev_kernel_setter_refused_by_the_device_keeps_the_old_arguments)
{
    unsigned v = 5, n = 1;
    grGraph_t g;
    grGraphNode_t node;
    fake_rig r = fake_rig_open(true);
    grStream_t s = r.s;
    unsigned *d = r.d;
    void *args[] = {&d, &v, &n};
    grKernelNodeParams kp = {
        .func = r.k, .gridDim = GR_DIM3(1, 1, 1), .blockDim = GR_DIM3(1, 1, 1), .kernelParams = args};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, &kp));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_EQ(run_and_read(e, s, d), 5u);
    v = 6;
    gr_fakedev_fail("exec_set_kernel", grErrorInvalidValue, 0);
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, node, &kp));
    CHECK_EQ(run_and_read(e, s, d), 5u);
    gr_fakedev_clear();
    /* The device's own refusal: a kernel without an image for it. */
    kp.func = r.cpu_only;
    CHECK_GR(grErrorInvalidDeviceFunction, grGraphExecKernelNodeSetParams(e, node, &kp));
    CHECK_EQ(run_and_read(e, s, d), 5u);
    kp.func = r.k;
    CHECK_OK(grGraphExecKernelNodeSetParams(e, node, &kp));
    CHECK_EQ(run_and_read(e, s, d), 6u);
    CHECK_OK(grGraphDestroy(g));
    fake_rig_close(&r, e);
}

/* Graph: memset(d[0] = value) -> kernel fill(d + 1, kv, 1). */
static grGraph_t two_node_graph(unsigned *d, unsigned value, grKernel_t k, void **args)
{
    grGraph_t g;
    grGraphNode_t m, kn;
    grMemsetParams mp = {d, 0, value, 4, 1, 1};
    grKernelNodeParams kp = {
        .func = k, .gridDim = GR_DIM3(1, 1, 1), .blockDim = GR_DIM3(1, 1, 1), .kernelParams = args};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemsetNode(&m, g, NULL, 0, &mp));
    CHECK_OK(grGraphAddKernelNode(&kn, g, &m, 1, &kp));
    return g;
}

GR_TEST(fakedev_update_the_device_refuses_changes_nothing)
{
    unsigned v = 9, n = 1;
    grGraphExecUpdateResultInfo info;
    fake_rig r = fake_rig_open(true);
    grStream_t s = r.s;
    unsigned *d = r.d, *d1 = r.d + 1;
    void *args[] = {&d1, &v, &n};
    grGraph_t g = two_node_graph(d, 1, r.k, args);
    grGraphExec_t e = tl_instantiate(g);
    CHECK_EQ(run_and_read(e, s, d), 1u);
    /* The memset changes too, but the kernel has no image for the
     * device: nothing of the update lands. */
    grGraph_t bad = two_node_graph(d, 2, r.cpu_only, args);
    CHECK(grGraphExecUpdate(e, bad, &info) != grSuccess);
    CHECK_EQ(run_and_read(e, s, d), 1u);
    /* The device's check of the kernel, whose value changes too, refuses
     * by injection: the same. */
    unsigned v2 = 10;
    void *args2[] = {&d1, &v2, &n};
    grGraph_t good = two_node_graph(d, 3, r.k, args2);
    gr_fakedev_fail("exec_check_kernel", grErrorInvalidValue, 0);
    CHECK(grGraphExecUpdate(e, good, &info) != grSuccess);
    CHECK_EQ(run_and_read(e, s, d), 1u);
    gr_fakedev_clear();
    CHECK_OK(grGraphExecUpdate(e, good, &info));
    CHECK_EQ(run_and_read(e, s, d), 3u);
    tl_destroy_graphs((grGraph_t[]){g, bad, good}, 3);
    fake_rig_close(&r, e);
}

/* A chain of 'len' fill kernels, node i writing vals[i] to d[i]. */
static grGraph_t fill_chain(unsigned *d, const unsigned *vals, unsigned len, grKernel_t k)
{
    grGraph_t g;
    grGraphNode_t prev = NULL, cur;
    unsigned n = 1;
    CHECK_OK(grGraphCreate(&g, 0));
    for (unsigned i = 0; i < len; i++) {
        unsigned *di = d + i;
        unsigned vi = vals[i];
        void *args[] = {&di, &vi, &n};
        grKernelNodeParams kp = {
            .func = k, .gridDim = GR_DIM3(1, 1, 1), .blockDim = GR_DIM3(1, 1, 1), .kernelParams = args};
        CHECK_OK(grGraphAddKernelNode(&cur, g, prev ? &prev : NULL, prev ? 1 : 0, &kp));
        prev = cur;
    }
    return g;
}

/* An update that changes k of n nodes checks those k against the device
 * and hands those k to it: the others keep the values the executable
 * holds, which were checked when it got them. */
GR_TEST(fakedev_update_checks_and_applies_only_the_nodes_it_changes)
{
    enum {
        len = 12
    };
    unsigned a[len], b[len], h[len];
    fake_rig r = fake_rig_open(true);
    for (unsigned i = 0; i < len; i++)
        a[i] = b[i] = 100 + i;
    b[5] = 7;
    grGraph_t ga = fill_chain(r.d, a, len, r.k), gb = fill_chain(r.d, b, len, r.k);
    grGraphExec_t e = tl_instantiate(ga);
    grGraphExecUpdateResultInfo info;
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphExecUpdate(e, gb, &info));
    CHECK_EQ(gr_fakedev_calls("exec_check_kernel"), 1u);
    CHECK_EQ(gr_fakedev_calls("exec_sync_range"), 1u);
    CHECK_EQ(gr_fakedev_calls("exec_sync_node"), 1u);
    CHECK_OK(grGraphLaunch(e, r.s));
    CHECK_OK(grMemcpyAsync(h, r.d, sizeof h, grMemcpyDeviceToHost, r.s));
    CHECK_OK(grStreamSynchronize(r.s));
    for (unsigned i = 0; i < len; i++)
        CHECK_EQ(h[i], b[i]);
    /* And back: the one node again, nothing else. */
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphExecUpdate(e, ga, &info));
    CHECK_EQ(gr_fakedev_calls("exec_check_kernel"), 1u);
    CHECK_EQ(gr_fakedev_calls("exec_sync_node"), 1u);
    CHECK_OK(grGraphLaunch(e, r.s));
    CHECK_OK(grMemcpyAsync(h, r.d, sizeof h, grMemcpyDeviceToHost, r.s));
    CHECK_OK(grStreamSynchronize(r.s));
    for (unsigned i = 0; i < len; i++)
        CHECK_EQ(h[i], a[i]);
    tl_destroy_graphs((grGraph_t[]){ga, gb}, 2);
    fake_rig_close(&r, e);
}

GR_TEST(fakedev_refused_lowering_leaves_no_executable)
{
    grGraphNode_t node;
    grGraphExec_t e = NULL;
    fake_or_skip();
    void *d = tl_malloc(64);
    grGraph_t g = memset_graph(d, 1, &node);
    gr_fakedev_fail("exec_lower", grErrorNotSupported, 0);
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("exec_lower");
    CHECK(e == NULL);
    gr_fakedev_clear();
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(d));
}

GR_TEST(fakedev_failed_operations_come_back_with_a_detail_and_change_nothing)
{
    void *d = (void *)&d, *h = NULL;
    grStream_t s = NULL;
    grEvent_t ev = NULL;
    fake_or_skip();
    gr_fakedev_fail("mem_alloc", grErrorMemoryAllocation, 0);
    CHECK_REFUSED(grErrorMemoryAllocation, grMalloc, &d, 64);
    CHECK(d == (void *)&d);
    gr_fakedev_fail("stream_create", grErrorMemoryAllocation, 0);
    CHECK_GR(grErrorMemoryAllocation, grStreamCreate(&s));
    CHECK(s == NULL);
    gr_fakedev_fail("event_create", grErrorMemoryAllocation, 0);
    CHECK_GR(grErrorMemoryAllocation, grEventCreate(&ev));
    CHECK(ev == NULL);
    /* The second call fails, the first passes. */
    gr_fakedev_fail("copy", grErrorInvalidValue, 1);
    gr_fakedev_reset_calls();
    CHECK_OK(grMallocHost(&h, 64));
    gr_fakedev_clear();
    CHECK_OK(grMalloc(&d, 64));
    CHECK_OK(grStreamCreate(&s));
    gr_fakedev_fail("copy", grErrorInvalidValue, 1);
    CHECK_OK(grMemcpyAsync(d, h, 64, grMemcpyHostToDevice, s));
    CHECK_REFUSED(grErrorInvalidValue, grMemcpyAsync, d, h, 64, grMemcpyHostToDevice, s);
    CHECK_EQ(gr_fakedev_calls("copy"), 2u);
    gr_fakedev_clear();
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(fakedev_asynchronous_error_surfaces_at_every_synchronisation)
{
    grEvent_t ev;
    fake_or_skip();
    grStream_t s = tl_stream(0);
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grEventRecord(ev, s));
    CHECK_OK(grStreamSynchronize(s));
    gr_fakedev_async_error(grErrorLaunchFailure);
    CHECK_REFUSED(grErrorLaunchFailure, grStreamSynchronize, s);
    CHECK_GR(grErrorLaunchFailure, grStreamQuery(s));
    CHECK_GR(grErrorLaunchFailure, grEventSynchronize(ev));
    CHECK_GR(grErrorLaunchFailure, grEventQuery(ev));
    CHECK_GR(grErrorLaunchFailure, grDeviceSynchronize());
    gr_fakedev_clear();
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(fakedev_cross_device_work_is_refused_naming_both_devices)
{
    void *d = NULL;
    grStream_t cpu_s, gpu_s;
    grEvent_t cpu_ev, gpu_ev;
    grGraphNode_t node;
    grGraphExec_t cpu_e, gpu_e;
    fake_or_skip();
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu_s));
    CHECK_OK(grEventCreate(&cpu_ev));
    CHECK_OK(grMallocHost(&d, 64)); /* reachable from every device */
    grGraph_t g = memset_graph(d, 1, &node);
    CHECK_OK(grGraphInstantiate(&cpu_e, g, 0));
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamCreate(&gpu_s));
    CHECK_OK(grEventCreate(&gpu_ev));
    CHECK_OK(grGraphInstantiate(&gpu_e, g, 0));
    /* Executables launch on streams of their device only. */
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(gpu_e, cpu_s));
    CHECK_DETAIL_HAS("device 1");
    CHECK_DETAIL_HAS("device 0");
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(cpu_e, gpu_s));
    CHECK_GR(grErrorInvalidValue, grGraphUpload(gpu_e, cpu_s));
    /* Events are recorded on streams of their device. */
    CHECK_GR(grErrorInvalidResourceHandle, grEventRecord(cpu_ev, gpu_s));
    CHECK_GR(grErrorInvalidResourceHandle, grEventRecord(gpu_ev, cpu_s));
    /* A wait across devices is the caller's, and holds. */
    CHECK_OK(grEventRecord(gpu_ev, gpu_s));
    CHECK_OK(grStreamWaitEvent(cpu_s, gpu_ev, 0));
    CHECK_OK(grEventRecord(cpu_ev, cpu_s));
    CHECK_OK(grStreamWaitEvent(gpu_s, cpu_ev, 0));
    CHECK_OK(grGraphLaunch(gpu_e, gpu_s));
    CHECK_OK(grGraphLaunch(cpu_e, cpu_s));
    CHECK_OK(grStreamSynchronize(gpu_s));
    CHECK_OK(grStreamSynchronize(cpu_s));
    CHECK_EQ(*(unsigned *)d, 1u);
    CHECK_OK(grGraphExecDestroy(cpu_e));
    CHECK_OK(grGraphExecDestroy(gpu_e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(cpu_ev));
    CHECK_OK(grEventDestroy(gpu_ev));
    CHECK_OK(grStreamDestroy(cpu_s));
    CHECK_OK(grStreamDestroy(gpu_s));
    CHECK_OK(grFreeHost(d));
}

GR_TEST(fakedev_executable_memory_must_be_reachable_from_its_device)
{
    void *cpu_mem = NULL, *gpu_mem = NULL;
    unsigned v = 1, n = 1;
    grGraphNode_t node;
    grGraphExec_t e = NULL;
    fake_or_skip();
    grKernel_t k = fake_fill_kernel(true);
    CHECK_OK(grMalloc(&gpu_mem, 64));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grMalloc(&cpu_mem, 64));
    /* A CPU executable touching the device's memory. */
    grGraph_t g1 = memset_graph(gpu_mem, 1, &node);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g1, 0));
    CHECK_DETAIL_HAS("device 1");
    CHECK(e == NULL);
    /* The device's kernel given the CPU device's memory. */
    CHECK_OK(grSetDevice(1));
    void *args[] = {&cpu_mem, &v, &n};
    grKernelNodeParams kp = {
        .func = k, .gridDim = GR_DIM3(1, 1, 1), .blockDim = GR_DIM3(1, 1, 1), .kernelParams = args};
    grGraph_t g0;
    CHECK_OK(grGraphCreate(&g0, 0));
    CHECK_OK(grGraphAddKernelNode(&node, g0, NULL, 0, &kp));
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e, g0, 0));
    CHECK_DETAIL_HAS("fake_fill");
    CHECK(e == NULL);
    /* Its own memory is reachable. */
    CHECK_OK(grGraphInstantiate(&e, g1, 0));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g0));
    CHECK_OK(grGraphDestroy(g1));
    CHECK_OK(grFree(gpu_mem));
    CHECK_OK(grFree(cpu_mem));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(fakedev_pools_serve_a_device_other_than_the_cpu)
{
    grMemPool_t pool, cpu_pool;
    grMemPoolProps props;
    grStream_t s, cpu_s;
    unsigned *p = NULL, h[N];
    uint64_t used = 1;
    grMemAccessFlags flags;
    grMemLocation loc = {grMemLocationTypeDevice, 1};
    fake_or_skip();
    props = tl_pool_props(1);
    CHECK_OK(grMemPoolCreate(&pool, &props));
    props.location.id = 0;
    CHECK_OK(grMemPoolCreate(&cpu_pool, &props));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocFromPoolAsync((void **)&p, sizeof h, pool, s));
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrUsedMemCurrent, &used));
    CHECK(used >= sizeof h);
    CHECK_OK(grMemsetAsync(p, 0x11, sizeof h, s));
    CHECK_OK(grMemcpyAsync(h, p, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(h[0], 0x11111111u);
    CHECK_EQ(h[N - 1], 0x11111111u);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolAttrUsedMemCurrent, &used));
    CHECK_EQ(used, 0u);
    CHECK_OK(grMemPoolGetAccess(&flags, pool, &loc));
    CHECK_EQ(flags, grMemAccessFlagsProtReadWrite);
    /* A pool serves its own device's streams only. */
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync((void **)&p, 64, cpu_pool, s));
    CHECK_GR(grErrorInvalidValue, grDeviceSetMemPool(1, cpu_pool));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu_s));
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync((void **)&p, 64, pool, cpu_s));
    CHECK_OK(grStreamDestroy(cpu_s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_OK(grMemPoolDestroy(cpu_pool));
}

/* The device-neutral stream operations of backend/device.h on a device's
 * stream: a call with its payload copied at the call, and the pools'
 * order, which a device keeps no record of (the caller waits instead). */
typedef struct call_payload {
    int *target;
    int value;
} call_payload;

static void store_payload(void *data)
{
    call_payload c;
    memcpy(&c, data, sizeof c);
    *c.target = c.value;
}

GR_TEST(fakedev_neutral_stream_call_runs_on_the_device_with_a_copied_payload)
{
    fake_or_skip();
    grStream_t hs, hcpu;
    int seen = 0;
    CHECK_OK(grStreamCreateWithFlags(&hs, grStreamNonBlocking));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreateWithFlags(&hcpu, grStreamNonBlocking));
    /* A created stream's handle is the stream object (backend.h). */
    gr_stream *s = (gr_stream *)(void *)hs, *cpu = (gr_stream *)(void *)hcpu;
    CHECK_EQ(s->device, 1);
    call_payload c = {&seen, 42};
    CHECK_OK(gr__stream_call_dev("test", s, store_payload, &c, sizeof c));
    c.value = 7; /* the queued call holds its own copy */
    CHECK_OK(grStreamSynchronize(hs));
    CHECK_EQ(seen, 42);
    /* Across devices nothing is known through waits, and following makes
     * the caller wait for the other stream's work at the call. */
    CHECK_EQ(gr__stream_known_by_waits_dev(s, cpu), 0);
    CHECK_EQ(gr__stream_known_by_waits_dev(cpu, s), 0);
    CHECK_OK(gr__stream_call_dev("test", s, store_payload, &c, sizeof c));
    CHECK(gr__stream_follow_dev(cpu, s, 1));
    CHECK_EQ(seen, 7);
    gr__stream_wait_seq_dev(s, 1);
    CHECK_OK(grStreamDestroy(hs));
    CHECK_OK(grStreamDestroy(hcpu));
}
