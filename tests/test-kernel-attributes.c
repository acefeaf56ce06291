/*
 * test-kernel-attributes.c - kernel node launch attributes (Get, Set,
 * Copy: stored, kept by SetParams, cloned, compared by grGraphExecUpdate
 * as CUDA compares them) and grLaunchKernelExC, eager and captured.
 */
#include "testlib.h"

#include <stdatomic.h>
#include <string.h>

static void k_add_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    atomic_fetch_add(*(atomic_int **)args[0], 1);
}

static grKernel_t k_add;
static atomic_int counter;
static atomic_int *counter_ptr = &counter;

static grKernelNodeParams add_params(void)
{
    static void *args[1] = {&counter_ptr};
    grKernelNodeParams p = {k_add, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    return p;
}

static grGraphNode_t add_attr_kernel(grGraph_t g)
{
    grGraphNode_t n;
    grKernelNodeParams p = add_params();
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &p));
    return n;
}

static void attrs_setup(void)
{
    size_t s1[1] = {sizeof(atomic_int *)};
    CHECK_OK(grKernelCreate(&k_add, k_add_fn, "attr_add", 1, s1));
    atomic_store(&counter, 0);
}

static void attrs_teardown(void)
{
    CHECK_OK(grKernelDestroy(k_add));
}

/* attrs_setup, then a new graph *g holding one kernel node, returned. */
static grGraphNode_t attr_graph(grGraph_t *g)
{
    attrs_setup();
    CHECK_OK(grGraphCreate(g, 0));
    return add_attr_kernel(*g);
}

/* Destroys g, then attrs_teardown. */
static void attr_graph_done(grGraph_t g)
{
    CHECK_OK(grGraphDestroy(g));
    attrs_teardown();
}

static grKernelNodeAttrValue val_priority(int p)
{
    grKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.priority = p;
    return v;
}

GR_TEST(launch_attribute_layout_is_cudas)
{
    CHECK_EQ(sizeof(grLaunchAttributeValue), 64);
    CHECK_EQ(sizeof(grLaunchAttribute), 72);
    CHECK_EQ(offsetof(grLaunchAttribute, val), 8);
    CHECK_EQ(grLaunchAttributePriority, 8);
    CHECK_EQ(grLaunchAttributeNvlinkUtilCentricScheduling, 16);
    CHECK_EQ(sizeof(grAccessPolicyWindow), 32);
}

GR_TEST(kernel_node_attributes_read_defaults_then_what_was_set)
{
    grGraph_t g;
    grKernelNodeAttrValue v, r;
    grGraphNode_t n = attr_graph(&g);
    memset(&r, 0xff, sizeof r);
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, 0);
    v = val_priority(-2);
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributePriority, &v));
    memset(&v, 0, sizeof v);
    v.clusterDim.x = 2;
    v.clusterDim.y = 1;
    v.clusterDim.z = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeClusterDimension, &v));
    memset(&v, 0, sizeof v);
    v.cooperative = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeCooperative, &v));
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -2);
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributeClusterDimension, &r));
    CHECK_EQ(r.clusterDim.x, 2);
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributeCooperative, &r));
    CHECK_EQ(r.cooperative, 1);
    /* New parameters keep the attributes. */
    grKernelNodeParams p = add_params();
    CHECK_OK(grGraphKernelNodeSetParams(n, &p));
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -2);
    /* GPU-only attributes change nothing on the CPU: the kernel runs. */
    tl_run_graph(g);
    CHECK_EQ(atomic_load(&counter), 1);
    attr_graph_done(g);
}

GR_TEST(kernel_node_attribute_refusals_change_nothing)
{
    grGraph_t g;
    grGraphNode_t empty;
    grKernelNodeAttrValue v, r;
    grGraphNode_t n = attr_graph(&g);
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    v = val_priority(-1);
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributePriority, &v));
    /* Not a kernel node. */
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetAttribute(empty, grKernelNodeAttributePriority, &v));
    CHECK_DETAIL_HAS("kernel node");
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeGetAttribute(empty, grKernelNodeAttributePriority, &r));
    /* Stream-only and launch-only IDs, unknown IDs. */
    memset(&v, 0, sizeof v);
    v.syncPolicy = grSyncPolicySpin;
    CHECK_GR(grErrorInvalidValue,
             grGraphKernelNodeSetAttribute(n, grLaunchAttributeSynchronizationPolicy, &v));
    CHECK_DETAIL_HAS("kernel nodes");
    memset(&v, 0, sizeof v);
    CHECK_GR(grErrorInvalidValue,
             grGraphKernelNodeSetAttribute(n, grLaunchAttributeProgrammaticStreamSerialization, &v));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetAttribute(n, (grKernelNodeAttrID)15, &v));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeGetAttribute(n, (grKernelNodeAttrID)40, &r));
    /* Values out of range, NULL. */
    v.clusterSchedulingPolicyPreference = (grClusterSchedulingPolicy)7;
    CHECK_GR(grErrorInvalidValue,
             grGraphKernelNodeSetAttribute(n, grLaunchAttributeClusterSchedulingPolicyPreference, &v));
    memset(&v, 0, sizeof v);
    v.memSyncDomain = (grLaunchMemSyncDomain)3;
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeMemSyncDomain, &v));
    memset(&v, 0, sizeof v);
    v.deviceUpdatableKernelNode.deviceUpdatable = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grLaunchAttributeDeviceUpdatableKernelNode, &v));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetAttribute(n, grKernelNodeAttributePriority, NULL));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, NULL));
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -1);
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributeMemSyncDomain, &r));
    CHECK_EQ(r.memSyncDomain, grLaunchMemSyncDomainDefault);
    attr_graph_done(g);
}

GR_TEST(kernel_node_attributes_are_copied_and_cloned)
{
    grGraph_t g, c;
    grGraphNode_t a, b, ca;
    grKernelNodeAttrValue v, r;
    attrs_setup();
    CHECK_OK(grGraphCreate(&g, 0));
    a = add_attr_kernel(g);
    b = add_attr_kernel(g);
    v = val_priority(-4);
    CHECK_OK(grGraphKernelNodeSetAttribute(a, grKernelNodeAttributePriority, &v));
    CHECK_OK(grGraphKernelNodeCopyAttributes(b, a));
    CHECK_OK(grGraphKernelNodeGetAttribute(b, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -4);
    CHECK_OK(grGraphClone(&c, g));
    CHECK_OK(grGraphNodeFindInClone(&ca, a, c));
    CHECK_OK(grGraphKernelNodeGetAttribute(ca, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -4);
    /* The clone's attributes are its own. */
    v = val_priority(-1);
    CHECK_OK(grGraphKernelNodeSetAttribute(ca, grKernelNodeAttributePriority, &v));
    CHECK_OK(grGraphKernelNodeGetAttribute(a, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -4);
    /* Copying a node without attributes resets them. */
    grGraphNode_t plain = add_attr_kernel(g);
    CHECK_OK(grGraphKernelNodeCopyAttributes(a, plain));
    CHECK_OK(grGraphKernelNodeGetAttribute(a, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, 0);
    grGraphNode_t empty;
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeCopyAttributes(empty, b));
    CHECK_OK(grGraphDestroy(c));
    attr_graph_done(g);
}

/* One kernel node with the given priority and cooperative attributes. */
static grGraph_t one_node(int priority, int cooperative)
{
    grGraph_t g;
    grGraphNode_t n;
    CHECK_OK(grGraphCreate(&g, 0));
    n = add_attr_kernel(g);
    grKernelNodeAttrValue v = val_priority(priority);
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributePriority, &v));
    memset(&v, 0, sizeof v);
    v.cooperative = cooperative;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeCooperative, &v));
    return g;
}

GR_TEST(exec_update_compares_priority_only_with_use_node_priority)
{
    grGraphExec_t plain, prio;
    grGraphExecUpdateResultInfo info;
    attrs_setup();
    grGraph_t g0 = one_node(-1, 0), g1 = one_node(-3, 0), g2 = one_node(-1, 1);
    CHECK_OK(grGraphInstantiate(&plain, g0, 0));
    CHECK_OK(grGraphInstantiate(&prio, g0, grGraphInstantiateFlagUseNodePriority));
    /* A new priority: taken without the flag, refused with it. */
    CHECK_OK(grGraphExecUpdate(plain, g1, &info));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(prio, g1, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorAttributesChanged);
    CHECK_DETAIL_HAS("priority");
    /* Cooperative never changes. */
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(plain, g2, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorAttributesChanged);
    CHECK_DETAIL_HAS("cooperative");
    /* The refused updates left both runnable. */
    CHECK_OK(grGraphLaunch(plain, NULL));
    CHECK_OK(grGraphLaunch(prio, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&counter), 2);
    CHECK_OK(grGraphExecDestroy(plain));
    CHECK_OK(grGraphExecDestroy(prio));
    tl_destroy_graphs((grGraph_t[]){g0, g1, g2}, 3);
    attrs_teardown();
}

GR_TEST(launch_kernel_exc_runs_eagerly_with_attributes)
{
    grEvent_t ev;
    grLaunchAttribute attrs[3];
    void *args[1] = {&counter_ptr};
    /* A cooperative grid of 3 blocks needs 3 workers (coop.c). */
    setenv("GRAPHRT_WORKERS", "4", 1);
    attrs_setup();
    grStream_t s = tl_stream(0);
    CHECK_OK(grEventCreate(&ev));
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = grLaunchAttributePriority;
    attrs[0].val.priority = -2;
    attrs[1].id = grLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    attrs[2].id = grLaunchAttributeProgrammaticEvent;
    attrs[2].val.programmaticEvent.event = ev;
    grLaunchConfig_t cfg = {GR_DIM3(3, 1, 1), GR_DIM3(1, 1, 1), 0, s, attrs, 3};
    CHECK_OK(grLaunchKernelExC(&cfg, k_add, args));
    /* The event is recorded once the kernel's blocks are done. */
    CHECK_OK(grEventSynchronize(ev));
    CHECK_EQ(atomic_load(&counter), 3);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
    attrs_teardown();
}

GR_TEST(launch_kernel_exc_refusals_launch_nothing)
{
    grLaunchAttribute attrs[2];
    void *args[1] = {&counter_ptr};
    attrs_setup();
    grStream_t s = tl_stream(0);
    memset(attrs, 0, sizeof attrs);
    grLaunchConfig_t cfg = {GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, s, attrs, 2};
    CHECK_GR(grErrorInvalidValue, grLaunchKernelExC(NULL, k_add, args));
    attrs[1].id = grLaunchAttributeSynchronizationPolicy; /* streams only */
    attrs[1].val.syncPolicy = grSyncPolicyAuto;
    CHECK_GR(grErrorInvalidValue, grLaunchKernelExC(&cfg, k_add, args));
    CHECK_DETAIL_HAS("config->attrs[1]");
    attrs[1].id = grLaunchAttributeProgrammaticEvent;
    attrs[1].val.programmaticEvent.event = NULL;
    CHECK_GR(grErrorInvalidResourceHandle, grLaunchKernelExC(&cfg, k_add, args));
    cfg.attrs = NULL;
    CHECK_GR(grErrorInvalidValue, grLaunchKernelExC(&cfg, k_add, args));
    cfg.attrs = attrs;
    cfg.numAttrs = 0;
    cfg.gridDim = GR_DIM3(0, 1, 1);
    CHECK_GR(grErrorInvalidConfiguration, grLaunchKernelExC(&cfg, k_add, args));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&counter), 0);
    CHECK_OK(grStreamDestroy(s));
    attrs_teardown();
}

GR_TEST(captured_launch_kernel_exc_gives_the_node_its_attributes)
{
    grStream_t s;
    grGraph_t g;
    grGraphNode_t nodes[1];
    grKernelNodeAttrValue r;
    grLaunchAttribute attrs[3];
    void *args[1] = {&counter_ptr};
    attrs_setup();
    CHECK_OK(grStreamCreateWithPriority(&s, 0, -1));
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = grLaunchAttributeIgnore;
    attrs[1].id = grLaunchAttributePriority;
    attrs[1].val.priority = -4; /* wins over the stream's */
    attrs[2].id = grLaunchAttributeProgrammaticStreamSerialization;
    attrs[2].val.programmaticStreamSerializationAllowed = 1; /* launches only: not on the node */
    grLaunchConfig_t cfg = {GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, s, attrs, 3};
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernelExC(&cfg, k_add, args));
    /* An event attribute cannot be captured; the capture goes on. */
    grEvent_t ev;
    CHECK_OK(grEventCreate(&ev));
    grLaunchAttribute evattr;
    memset(&evattr, 0, sizeof evattr);
    evattr.id = grLaunchAttributeLaunchCompletionEvent;
    evattr.val.launchCompletionEvent.event = ev;
    grLaunchConfig_t cfg2 = {GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, s, &evattr, 1};
    CHECK_GR(grErrorNotSupported, grLaunchKernelExC(&cfg2, k_add, args));
    CHECK_OK(grStreamEndCapture(s, &g));
    tl_get_nodes(g, nodes, 1);
    CHECK_OK(grGraphKernelNodeGetAttribute(nodes[0], grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -4);
    CHECK_EQ(atomic_load(&counter), 0); /* captured, not run */
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
    attrs_teardown();
}

GR_TEST(kernel_node_attributes_follow_the_cuda_13_probes)
{
    grGraph_t g;
    grKernelNodeAttrValue v, r;
    grGraphNode_t n = attr_graph(&g);
    /* Priorities are clamped into [-5, 0] when set (docs/cuda13-probes.md). */
    v = val_priority(3);
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributePriority, &v));
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, 0);
    v = val_priority(-100);
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributePriority, &v));
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributePriority, &r));
    CHECK_EQ(r.priority, -5);
    /* Cooperative keeps the value given. */
    memset(&v, 0, sizeof v);
    v.cooperative = 5;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeCooperative, &v));
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributeCooperative, &r));
    CHECK_EQ(r.cooperative, 5);
    /* A new node's sync-domain map reads default 0, remote 1. */
    CHECK_OK(grGraphKernelNodeGetAttribute(add_attr_kernel(g), grKernelNodeAttributeMemSyncDomainMap, &r));
    CHECK_EQ(r.memSyncDomainMap.default_, 0);
    CHECK_EQ(r.memSyncDomainMap.remote, 1);
    /* IDs a CUDA 13.0 kernel node refuses. */
    CHECK_GR(grErrorInvalidValue,
             grGraphKernelNodeGetAttribute(n, grLaunchAttributePreferredClusterDimension, &r));
    CHECK_GR(grErrorInvalidValue,
             grGraphKernelNodeGetAttribute(n, grLaunchAttributeNvlinkUtilCentricScheduling, &r));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeGetAttribute(n, grLaunchAttributeIgnore, &r));
    attr_graph_done(g);
}
