/*
 * test-priority.c - stream priorities (range, clamping, creation and
 * attributes), stream ids and devices, and node priorities honoured by an
 * executable instantiated with grGraphInstantiateFlagUseNodePriority.
 */
#include "testlib.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

GR_TEST(cpu_stream_priority_range_is_minus_five_to_zero)
{
    int least = 99, greatest = 99;
    CHECK_OK(grDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK_EQ(least, 0);
    CHECK_EQ(greatest, -5);
    CHECK_OK(grDeviceGetStreamPriorityRange(NULL, &greatest));
    CHECK_OK(grDeviceGetStreamPriorityRange(&least, NULL));
}

GR_TEST(stream_priorities_are_clamped_into_the_range)
{
    static const int asked[] = {0, -1, -5, -6, -1000, 1, 7};
    static const int got[] = {0, -1, -5, -5, -5, 0, 0};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        grStream_t s;
        int p = 42;
        unsigned flags = 9;
        CHECK_OK(grStreamCreateWithPriority(&s, grStreamNonBlocking, asked[i]));
        CHECK_OK(grStreamGetPriority(s, &p));
        CHECK_EQ(p, got[i]);
        CHECK_OK(grStreamGetFlags(s, &flags));
        CHECK_EQ(flags, grStreamNonBlocking);
        CHECK_OK(grStreamDestroy(s));
    }
    int p = 42;
    CHECK_OK(grStreamGetPriority(NULL, &p));
    CHECK_EQ(p, 0);
}

GR_TEST(stream_create_with_priority_refuses_what_create_with_flags_refuses)
{
    grStream_t s = NULL;
    CHECK_GR(grErrorInvalidValue, grStreamCreateWithPriority(NULL, 0, -1));
    CHECK_REFUSED(grErrorInvalidValue, grStreamCreateWithPriority, &s, 0x4, -1);
    CHECK_PTR_EQ(s, NULL);
    CHECK_GR(grErrorInvalidValue, grStreamGetPriority(NULL, NULL));
}

GR_TEST(stream_ids_are_unique_and_devices_are_the_cpu)
{
    grStream_t a, b;
    unsigned long long ia = 0, ib = 0, il = 0;
    int dev = -1;
    CHECK_OK(grStreamCreate(&a));
    CHECK_OK(grStreamCreate(&b));
    CHECK_OK(grStreamGetId(a, &ia));
    CHECK_OK(grStreamGetId(b, &ib));
    CHECK_OK(grStreamGetId(NULL, &il));
    CHECK(ia != ib);
    CHECK(ia != il && ib != il);
    CHECK_OK(grStreamGetDevice(a, &dev));
    CHECK_EQ(dev, 0);
    CHECK_OK(grStreamGetDevice(grStreamPerThread, &dev));
    CHECK_EQ(dev, 0);
    CHECK_GR(grErrorInvalidValue, grStreamGetId(a, NULL));
    CHECK_GR(grErrorInvalidValue, grStreamGetDevice(a, NULL));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_GR(grErrorInvalidResourceHandle, grStreamGetId(a, &ia));
}

GR_TEST(stream_attributes_are_stored_read_back_and_copied)
{
    grStream_t a, b;
    grStreamAttrValue v, r;
    CHECK_OK(grStreamCreate(&a));
    CHECK_OK(grStreamCreate(&b));
    /* Defaults. */
    CHECK_OK(grStreamGetAttribute(a, grStreamAttributeSynchronizationPolicy, &r));
    CHECK_EQ(r.syncPolicy, grSyncPolicyAuto);
    CHECK_OK(grStreamGetAttribute(a, grStreamAttributePriority, &r));
    CHECK_EQ(r.priority, 0);
    /* Set and read back. */
    memset(&v, 0, sizeof v);
    v.syncPolicy = grSyncPolicyYield;
    CHECK_OK(grStreamSetAttribute(a, grStreamAttributeSynchronizationPolicy, &v));
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow =
        (grAccessPolicyWindow){&v, 4096, 0.5f, grAccessPropertyPersisting, grAccessPropertyStreaming};
    CHECK_OK(grStreamSetAttribute(a, grStreamAttributeAccessPolicyWindow, &v));
    memset(&v, 0, sizeof v);
    v.priority = -9; /* clamped */
    CHECK_OK(grStreamSetAttribute(a, grStreamAttributePriority, &v));
    int p = 0;
    CHECK_OK(grStreamGetPriority(a, &p));
    CHECK_EQ(p, -5);
    CHECK_OK(grStreamGetAttribute(a, grStreamAttributeAccessPolicyWindow, &r));
    CHECK_PTR_EQ(r.accessPolicyWindow.base_ptr, (void *)&v);
    CHECK_EQ(r.accessPolicyWindow.num_bytes, 4096);
    CHECK_EQ(r.accessPolicyWindow.hitProp, grAccessPropertyPersisting);
    /* Copied to b. */
    CHECK_OK(grStreamCopyAttributes(b, a));
    CHECK_OK(grStreamGetAttribute(b, grStreamAttributeSynchronizationPolicy, &r));
    CHECK_EQ(r.syncPolicy, grSyncPolicyYield);
    CHECK_OK(grStreamGetPriority(b, &p));
    CHECK_EQ(p, -5);
    CHECK_OK(grStreamGetAttribute(b, grStreamAttributeAccessPolicyWindow, &r));
    CHECK_EQ(r.accessPolicyWindow.num_bytes, 4096);
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
}

GR_TEST(stream_attribute_refusals_change_nothing)
{
    grStream_t s;
    grStreamAttrValue v, r;
    CHECK_OK(grStreamCreate(&s));
    memset(&v, 0, sizeof v);
    v.syncPolicy = grSyncPolicySpin;
    CHECK_OK(grStreamSetAttribute(s, grStreamAttributeSynchronizationPolicy, &v));
    /* Not a stream attribute, not an ID, out of range, NULL. */
    v.cooperative = 1;
    CHECK_GR(grErrorInvalidValue, grStreamSetAttribute(s, grLaunchAttributeCooperative, &v));
    CHECK_DETAIL_HAS("streams");
    CHECK_GR(grErrorInvalidValue, grStreamSetAttribute(s, (grStreamAttrID)15, &v));
    CHECK_GR(grErrorInvalidValue, grStreamGetAttribute(s, (grStreamAttrID)99, &r));
    memset(&v, 0, sizeof v);
    v.syncPolicy = (grSynchronizationPolicy)9;
    CHECK_GR(grErrorInvalidValue, grStreamSetAttribute(s, grStreamAttributeSynchronizationPolicy, &v));
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.hitRatio = 1.5f;
    CHECK_GR(grErrorInvalidValue, grStreamSetAttribute(s, grStreamAttributeAccessPolicyWindow, &v));
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.missProp = grAccessPropertyPersisting;
    CHECK_GR(grErrorInvalidValue, grStreamSetAttribute(s, grStreamAttributeAccessPolicyWindow, &v));
    CHECK_GR(grErrorInvalidValue, grStreamSetAttribute(s, grStreamAttributePriority, NULL));
    CHECK_GR(grErrorInvalidValue, grStreamGetAttribute(s, grStreamAttributePriority, NULL));
    CHECK_OK(grStreamGetAttribute(s, grStreamAttributeSynchronizationPolicy, &r));
    CHECK_EQ(r.syncPolicy, grSyncPolicySpin);
    CHECK_OK(grStreamGetAttribute(s, grStreamAttributeAccessPolicyWindow, &r));
    CHECK_EQ(r.accessPolicyWindow.num_bytes, 0);
    CHECK_OK(grStreamDestroy(s));
}

/* ------------------------------------------------- node priority order */

static atomic_int order_next;
static int order_log[8];

static void k_log_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    order_log[atomic_fetch_add(&order_next, 1)] = *(int *)args[0];
}

static grKernel_t k_log;
static int ids[8];

/* Destroys the logging kernel, so the next test creates its own. */
static void k_log_done(void)
{
    CHECK_OK(grKernelDestroy(k_log));
    k_log = NULL;
}

static grGraphNode_t add_logged(grGraph_t g, const grGraphNode_t *deps, size_t n, int id, int priority)
{
    grGraphNode_t node;
    size_t s1[1] = {sizeof(int)};
    if (!k_log)
        CHECK_OK(grKernelCreate(&k_log, k_log_fn, "priority_log", 1, s1));
    ids[id] = id;
    void *args[1] = {&ids[id]};
    grKernelNodeParams p = {k_log, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&node, g, deps, n, &p));
    if (priority != 0) {
        grKernelNodeAttrValue v;
        memset(&v, 0, sizeof v);
        v.priority = priority;
        CHECK_OK(grGraphKernelNodeSetAttribute(node, grKernelNodeAttributePriority, &v));
    }
    return node;
}

/* Runs g once, instantiated with 'flags', and returns how many kernels ran
 * (their ids in order_log). */
static int run_logged(grGraph_t g, unsigned long long flags)
{
    grGraphExec_t e;
    atomic_store(&order_next, 0);
    CHECK_OK(grGraphInstantiate(&e, g, flags));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grGraphExecDestroy(e));
    return atomic_load(&order_next);
}

GR_TEST(use_node_priority_runs_ready_nodes_by_priority_on_one_worker)
{
    /* One worker runs a plan in its order: the order instantiate chose. */
    setenv("GRAPHRT_WORKERS", "1", 1);
    grGraph_t g;
    CHECK_OK(grGraphCreate(&g, 0));
    add_logged(g, NULL, 0, 0, 0);
    add_logged(g, NULL, 0, 1, -2);
    add_logged(g, NULL, 0, 2, -9); /* clamped to -5, still the highest */
    add_logged(g, NULL, 0, 3, -1);
    CHECK_EQ(run_logged(g, grGraphInstantiateFlagUseNodePriority), 4);
    CHECK_EQ(order_log[0], 2);
    CHECK_EQ(order_log[1], 1);
    CHECK_EQ(order_log[2], 3);
    CHECK_EQ(order_log[3], 0);
    /* Without the flag priorities count for nothing: creation order. */
    CHECK_EQ(run_logged(g, 0), 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(order_log[i], i);
    CHECK_OK(grGraphDestroy(g));
    k_log_done();
}

GR_TEST(use_node_priority_never_runs_a_node_before_its_dependencies)
{
    setenv("GRAPHRT_WORKERS", "1", 1);
    grGraph_t g;
    grGraphNode_t a;
    CHECK_OK(grGraphCreate(&g, 0));
    a = add_logged(g, NULL, 0, 0, 0);
    add_logged(g, &a, 1, 1, -5); /* the highest, but after a */
    add_logged(g, NULL, 0, 2, -1);
    CHECK_EQ(run_logged(g, grGraphInstantiateFlagUseNodePriority), 3);
    CHECK_EQ(order_log[0], 2);
    CHECK_EQ(order_log[1], 0);
    CHECK_EQ(order_log[2], 1);
    CHECK_OK(grGraphDestroy(g));
    k_log_done();
}

GR_TEST(captured_kernels_carry_their_streams_priority)
{
    grStream_t s;
    grGraph_t g;
    grGraphNode_t nodes[1];
    grKernelNodeAttrValue v;
    int x = 0;
    CHECK_OK(grStreamCreateWithPriority(&s, 0, -3));
    size_t s1[1] = {sizeof(int)};
    CHECK_OK(grKernelCreate(&k_log, k_log_fn, "priority_log", 1, s1));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    void *args[1] = {&x};
    CHECK_OK(grLaunchKernel(k_log, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    tl_get_nodes(g, nodes, 1);
    CHECK_OK(grGraphKernelNodeGetAttribute(nodes[0], grKernelNodeAttributePriority, &v));
    CHECK_EQ(v.priority, -3);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    k_log_done();
}

GR_TEST(stream_ids_and_priorities_follow_the_cuda_13_probes)
{
    grStream_t s;
    grGraph_t g;
    grStreamAttrValue v;
    unsigned long long id = 0;
    int p = 7;
    /* The legacy stream accepts a priority and keeps 0. */
    memset(&v, 0, sizeof v);
    v.priority = -3;
    CHECK_OK(grStreamSetAttribute(grStreamLegacy, grStreamAttributePriority, &v));
    CHECK_OK(grStreamGetPriority(grStreamLegacy, &p));
    CHECK_EQ(p, 0);
    /* A capturing stream's id is refused; the capture goes on. */
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamGetId(s, &id));
    CHECK_EQ(id, 0);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamGetId(s, &id));
    CHECK(id != 0);
    CHECK_OK(grStreamDestroy(s));
}
