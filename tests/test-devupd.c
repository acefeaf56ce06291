/*
 * test-devupd.c - device-updatable kernel nodes on the CPU device (and
 * the fake GPU device, which runs graphrt's plan): a
 * kernel of the executable changes a later node's argument, enabled state
 * and grid, which apply from the next launch on (never the launch that
 * made them) and persist; host setters give the node the host's values
 * back; and the refusals (one executable at a time, clone, node removal,
 * exec update, launches, bad updates).
 */
#include "test.h"
#include "fakedev/fakedev.h"

#include "graphrt_kernel.h"

#include <stdatomic.h>
#include <string.h>

/* The target: adds v to *out once per block. */
GR_KERNEL(devupd_add, (atomic_int *, out), (int, v))
{
    if (gr_thread_idx_x() == 0)
        atomic_fetch_add(out, v);
}

/* What the updater does at a launch (read by its one thread). */
typedef struct devupd_cmd {
    grGraphDeviceNode_t node;
    int set_v, v;            /* set parameter v */
    int set_enabled, enable; /* set the enabled state */
    unsigned grid;           /* nonzero: set the grid's x */
    unsigned repeat;         /* calls per thread (stress) */
} devupd_cmd;

/* The updater: each thread applies *cmd through the kernel language. */
GR_KERNEL(devupd_updater, (devupd_cmd *, cmd))
{
    for (unsigned r = 0; r < (cmd->repeat ? cmd->repeat : 1); r++) {
        if (cmd->set_v)
            gr_graph_kernel_node_set_param(cmd->node, sizeof(atomic_int *), &cmd->v, sizeof cmd->v);
        if (cmd->set_enabled)
            gr_graph_kernel_node_set_enabled(cmd->node, cmd->enable);
        if (cmd->grid)
            gr_graph_kernel_node_set_grid_dim(cmd->node, cmd->grid, 1, 1);
    }
}

typedef struct fixture {
    grKernel_t kadd, kupd;
    grGraph_t g;
    grGraphNode_t upd, target;
    grGraphExec_t e;
    grStream_t s;
    atomic_int out;
    atomic_int *outp;
    int v;
    devupd_cmd cmd, *cmdp;
    void *add_args[2];
    void *upd_args[1];
} fixture;

static grGraphNode_t add_target(fixture *f, grGraph_t g, const grGraphNode_t *deps, size_t ndeps, int v)
{
    grGraphNode_t n;
    f->v = v;
    f->add_args[0] = &f->outp;
    f->add_args[1] = &f->v;
    grKernelNodeParams p = {f->kadd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, f->add_args, NULL};
    CHECK_OK(grGraphAddKernelNode(&n, g, deps, ndeps, &p));
    return n;
}

static void make_updatable(grGraphNode_t n)
{
    grKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.deviceUpdatableKernelNode.deviceUpdatable = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grLaunchAttributeDeviceUpdatableKernelNode, &v));
}

static grGraphDeviceNode_t dev_node(grGraphNode_t n)
{
    grKernelNodeAttrValue v;
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grLaunchAttributeDeviceUpdatableKernelNode, &v));
    CHECK_EQ(v.deviceUpdatableKernelNode.deviceUpdatable, 1);
    return v.deviceUpdatableKernelNode.devNode;
}

/* updater -> target (device-updatable, v = 1, one block), instantiated. */
static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    CHECK_OK(GR_KERNEL_CREATE(&f->kadd, devupd_add));
    CHECK_OK(GR_KERNEL_CREATE(&f->kupd, devupd_updater));
    CHECK_OK(grStreamCreate(&f->s));
    atomic_init(&f->out, 0);
    f->outp = &f->out;
    f->cmdp = &f->cmd;
    f->upd_args[0] = &f->cmdp;
    CHECK_OK(grGraphCreate(&f->g, 0));
    grKernelNodeParams p = {f->kupd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, f->upd_args, NULL};
    CHECK_OK(grGraphAddKernelNode(&f->upd, f->g, NULL, 0, &p));
    f->target = add_target(f, f->g, &f->upd, 1, 1);
    make_updatable(f->target);
    CHECK_PTR_EQ(dev_node(f->target), NULL); /* not instantiated yet */
    CHECK_OK(grGraphInstantiate(&f->e, f->g, 0));
    f->cmd.node = dev_node(f->target);
    CHECK(f->cmd.node != NULL);
}

static void teardown(fixture *f)
{
    if (f->e)
        CHECK_OK(grGraphExecDestroy(f->e));
    CHECK_OK(grGraphDestroy(f->g));
    CHECK_OK(grStreamDestroy(f->s));
    CHECK_OK(grKernelDestroy(f->kadd));
    CHECK_OK(grKernelDestroy(f->kupd));
}

/* One launch; returns what the target added. */
static int run(fixture *f)
{
    int before = atomic_load(&f->out);
    CHECK_OK(grGraphLaunch(f->e, f->s));
    CHECK_OK(grStreamSynchronize(f->s));
    return atomic_load(&f->out) - before;
}

GR_TEST(devupd_param_applies_from_next_launch_and_persists)
{
    fixture f;
    setup(&f);
    CHECK_EQ(run(&f), 1);
    f.cmd.set_v = 1;
    f.cmd.v = 5;
    /* The launch that made the update runs the target with the old value. */
    CHECK_EQ(run(&f), 1);
    f.cmd.set_v = 0;
    CHECK_EQ(run(&f), 5);
    CHECK_EQ(run(&f), 5);
    /* Queued back to back, with no wait between: the same rule. */
    f.cmd.set_v = 1;
    f.cmd.v = 9;
    int before = atomic_load(&f.out);
    CHECK_OK(grGraphLaunch(f.e, f.s));
    CHECK_OK(grGraphLaunch(f.e, f.s));
    CHECK_OK(grStreamSynchronize(f.s));
    CHECK_EQ(atomic_load(&f.out) - before, 5 + 9);
    f.cmd.set_v = 0;
    CHECK_EQ(run(&f), 9);
    teardown(&f);
}

GR_TEST(devupd_disable_and_grid_apply_next_launch)
{
    fixture f;
    unsigned en = 0;
    setup(&f);
    f.cmd.set_enabled = 1;
    f.cmd.enable = 0;
    CHECK_EQ(run(&f), 1);
    f.cmd.set_enabled = 0;
    CHECK_EQ(run(&f), 0); /* disabled by the previous launch */
    /* The host's view is not the device's (CUDA: cudaGraphNodeGetEnabled
     * does not reflect device-side updates). */
    CHECK_OK(grGraphNodeGetEnabled(f.e, f.target, &en));
    CHECK_EQ(en, 1);
    f.cmd.set_enabled = 1;
    f.cmd.enable = 1;
    f.cmd.grid = 4;
    CHECK_EQ(run(&f), 0); /* still disabled during this launch */
    f.cmd.set_enabled = 0;
    f.cmd.grid = 0;
    CHECK_EQ(run(&f), 4); /* enabled, four blocks */
    f.cmd.grid = 1;
    CHECK_EQ(run(&f), 4);
    f.cmd.grid = 0;
    CHECK_EQ(run(&f), 1);
    teardown(&f);
}

GR_TEST(devupd_host_setter_overwrites_device_updates)
{
    fixture f;
    setup(&f);
    f.cmd.set_v = 1;
    f.cmd.v = 7;
    f.cmd.grid = 2;
    CHECK_EQ(run(&f), 1);
    f.cmd.set_v = 0;
    f.cmd.grid = 0;
    CHECK_EQ(run(&f), 14);
    /* grGraphNodeSetEnabled gives back every host value: v 1, one block. */
    CHECK_OK(grGraphNodeSetEnabled(f.e, f.target, 1));
    CHECK_EQ(run(&f), 1);
    /* Updates staged but not applied yet are dropped by a host setter. */
    f.cmd.set_v = 1;
    f.cmd.v = 3;
    CHECK_EQ(run(&f), 1);
    f.cmd.set_v = 0;
    int v2 = 2;
    void *args[2] = {&f.outp, &v2};
    grKernelNodeParams p = {f.kadd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphExecKernelNodeSetParams(f.e, f.target, &p));
    CHECK_EQ(run(&f), 2);
    /* The host's new values are the base later device updates change. */
    f.cmd.grid = 3;
    CHECK_EQ(run(&f), 2);
    f.cmd.grid = 0;
    CHECK_EQ(run(&f), 6);
    CHECK_OK(grGraphNodeSetEnabled(f.e, f.target, 1));
    CHECK_EQ(run(&f), 2);
    teardown(&f);
}

GR_TEST(devupd_updates_apply_checks_every_update_first)
{
    fixture f;
    setup(&f);
    int v = 6;
    grGraphKernelNodeUpdate u[2];
    memset(u, 0, sizeof u);
    u[0].node = f.cmd.node;
    u[0].field = grGraphKernelNodeFieldParam;
    u[0].updateData.param.pValue = &v;
    u[0].updateData.param.offset = sizeof(atomic_int *);
    u[0].updateData.param.size = sizeof v;
    u[1] = u[0];
    u[1].updateData.param.offset = 1024; /* far past the block's end */
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeUpdatesApply(u, 2));
    CHECK_DETAIL_HAS("outside the node's");
    CHECK_EQ(run(&f), 1); /* nothing applied */
    u[1].field = grGraphKernelNodeFieldInvalid;
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeUpdatesApply(u, 2));
    u[1].field = grGraphKernelNodeFieldGridDim;
    u[1].updateData.gridDim = GR_DIM3(0, 1, 1);
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeUpdatesApply(u, 2));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeUpdatesApply(NULL, 1));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetParam(NULL, 0, &v, sizeof v));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetEnabled(NULL, 1));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetGridDim(NULL, GR_DIM3(1, 1, 1)));
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetParam(f.cmd.node, 0, NULL, 4));
    /* Called from the host, as any thread may: applies at the next launch. */
    u[1].updateData.gridDim = GR_DIM3(2, 1, 1);
    CHECK_OK(grGraphKernelNodeUpdatesApply(u, 2));
    CHECK_EQ(run(&f), 12);
    CHECK_OK(grGraphKernelNodeUpdatesApply(u, 0));
    teardown(&f);
}

GR_TEST(devupd_graph_has_one_executable_at_a_time)
{
    fixture f;
    grGraphExec_t e2 = NULL;
    setup(&f);
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&e2, f.g, 0));
    CHECK_DETAIL_HAS("one executable at a time");
    CHECK_OK(grGraphExecDestroy(f.e));
    f.e = NULL;
    CHECK_PTR_EQ(dev_node(f.target), NULL);
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    f.cmd.node = dev_node(f.target);
    CHECK(f.cmd.node != NULL);
    f.cmd.set_v = 1;
    f.cmd.v = 4;
    CHECK_EQ(run(&f), 1);
    CHECK_EQ(run(&f), 4);
    teardown(&f);
}

GR_TEST(devupd_refused_operations)
{
    fixture f;
    grGraph_t c = NULL;
    grGraphExecUpdateResultInfo info;
    setup(&f);
    CHECK_GR(grErrorNotSupported, grGraphClone(&c, f.g));
    CHECK_DETAIL_HAS("device-updatable");
    CHECK_GR(grErrorNotSupported, grGraphDestroyNode(f.target));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(f.e, f.g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorNotSupported);
    /* Other nodes of the graph may go. */
    CHECK_OK(grGraphDestroyNode(f.upd));
    /* A launch takes the attribute on graph kernel nodes only. */
    grLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = grLaunchAttributeDeviceUpdatableKernelNode;
    a.val.deviceUpdatableKernelNode.deviceUpdatable = 1;
    grLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = GR_DIM3(1, 1, 1);
    cfg.blockDim = GR_DIM3(1, 1, 1);
    cfg.stream = f.s;
    cfg.attrs = &a;
    cfg.numAttrs = 1;
    int v = 1;
    void *args[2] = {&f.outp, &v};
    CHECK_GR(grErrorNotSupported, grLaunchKernelExC(&cfg, f.kadd, args));
    /* A child graph's device-updatable node is refused at instantiation. */
    grGraph_t outer;
    grGraphNode_t child;
    grGraphExec_t e2 = NULL;
    CHECK_OK(grGraphCreate(&outer, 0));
    grGraph_t inner;
    CHECK_OK(grGraphCreate(&inner, 0));
    make_updatable(add_target(&f, inner, NULL, 0, 1));
    CHECK_OK(grGraphAddChildGraphNode(&child, outer, NULL, 0, inner));
    CHECK_GR(grErrorNotSupported, grGraphInstantiate(&e2, outer, 0));
    CHECK_OK(grGraphDestroy(inner));
    CHECK_OK(grGraphDestroy(outer));
    teardown(&f);
}

/* Many threads of several blocks update the node while other launches'
 * nodes run; the last launch's value is what every thread wrote. */
GR_TEST(devupd_concurrent_updates_from_many_blocks)
{
    fixture f;
    setup(&f);
    grKernelNodeParams p;
    CHECK_OK(grGraphKernelNodeGetParams(f.upd, &p));
    p.gridDim = GR_DIM3(8, 1, 1);
    p.blockDim = GR_DIM3(4, 1, 1);
    CHECK_OK(grGraphExecKernelNodeSetParams(f.e, f.upd, &p));
    f.cmd.set_v = 1;
    f.cmd.v = 2;
    f.cmd.set_enabled = 1;
    f.cmd.enable = 1;
    f.cmd.grid = 3;
    f.cmd.repeat = 8;
    for (int i = 0; i < 10; i++)
        CHECK_OK(grGraphLaunch(f.e, f.s));
    CHECK_OK(grStreamSynchronize(f.s));
    /* The first launch ran the target once with v 1; the nine after it
     * three blocks of 2 each. */
    CHECK_EQ(atomic_load(&f.out), 1 + 9 * 6);
    teardown(&f);
}

/* On a device other than the CPU the node is lowered device-updatable;
 * the fake device runs graphrt's plan, so its kernels update the node
 * through graphrt's handle (a GPU's through the driver's devNode,
 * test-gpu-attrs.c), with the CPU's rules. */
GR_TEST(devupd_runs_on_the_fake_device_as_on_the_cpu)
{
    fixture f;
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    memset(&f, 0, sizeof f);
    CHECK_OK(GR_KERNEL_CREATE(&f.kadd, devupd_add));
    CHECK_OK(GR_KERNEL_CREATE(&f.kupd, devupd_updater));
    /* Images the fake device takes as they are: a kernel without one
     * does not run on a GPU device. */
    CHECK_OK(grKernelSetImage(f.kadd, "// fake image", "devupd_add"));
    CHECK_OK(grKernelSetImage(f.kupd, "// fake image", "devupd_updater"));
    CHECK_OK(grStreamCreate(&f.s));
    atomic_init(&f.out, 0);
    f.outp = &f.out;
    f.cmdp = &f.cmd;
    f.upd_args[0] = &f.cmdp;
    CHECK_OK(grGraphCreate(&f.g, 0));
    grKernelNodeParams p = {f.kupd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, f.upd_args, NULL};
    CHECK_OK(grGraphAddKernelNode(&f.upd, f.g, NULL, 0, &p));
    f.target = add_target(&f, f.g, &f.upd, 1, 1);
    make_updatable(f.target);
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphInstantiate(&f.e, f.g, 0));
    CHECK_EQ(gr_fakedev_calls("exec_devnode"), 1);
    /* The lowering gives the node CUDA's attribute. */
    gr_fakedev_kattr got[4];
    CHECK_EQ(gr_fakedev_lowered_attrs(got, 4), 1);
    CHECK_EQ(got[0].attr.id, grLaunchAttributeDeviceUpdatableKernelNode);
    CHECK_EQ(got[0].attr.val.deviceUpdatableKernelNode.deviceUpdatable, 1);
    CHECK_PTR_EQ(got[0].kernel, f.kadd);
    f.cmd.node = dev_node(f.target);
    CHECK(f.cmd.node != NULL);
    CHECK_EQ(run(&f), 1);
    f.cmd.set_v = 1;
    f.cmd.v = 7;
    CHECK_EQ(run(&f), 1);
    f.cmd.set_v = 0;
    CHECK_EQ(run(&f), 7);
    /* One executable at a time, on a GPU device too. */
    grGraphExec_t second = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphInstantiate(&second, f.g, 0));
    teardown(&f);
    CHECK_OK(grSetDevice(0));
}

/* grGraphExecUpdate refuses a graph holding a device-updatable node
 * however the node became one after an update that found none: the
 * answer the graph keeps between unchanged updates (and re-captures)
 * goes with the first edit, and a child graph's edits, which its
 * parent's edit stamp does not count, are always looked at. */
GR_TEST(devupd_update_sees_attribute_set_after_an_update)
{
    fixture f;
    grGraphExecUpdateResultInfo info;
    grStream_t s;
    grGraph_t g, got;
    grGraphExec_t e;
    memset(&f, 0, sizeof f);
    CHECK_OK(GR_KERNEL_CREATE(&f.kadd, devupd_add));
    CHECK_OK(grStreamCreate(&s));
    atomic_init(&f.out, 0);
    f.outp = &f.out;
    int v = 1;
    void *args[2] = {&f.outp, &v};
    /* A captured chain of two, re-captured unchanged, then updated. */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    for (int i = 0; i < 2; i++)
        CHECK_OK(grLaunchKernel(f.kadd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int r = 0; r < 3; r++) {
        CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
        for (int i = 0; i < 2; i++)
            CHECK_OK(grLaunchKernel(f.kadd, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
        CHECK_OK(grStreamEndCapture(s, &got));
        CHECK_PTR_EQ(got, g);
        CHECK_OK(grGraphExecUpdate(e, g, &info));
    }
    grGraphNode_t nodes[2];
    size_t n = 2;
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    make_updatable(nodes[1]);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorNotSupported);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));

    /* The same through a child graph node's graph. */
    grGraph_t outer, inner, owned;
    grGraphNode_t child, cn;
    CHECK_OK(grGraphCreate(&outer, 0));
    CHECK_OK(grGraphCreate(&inner, 0));
    add_target(&f, inner, NULL, 0, 1);
    CHECK_OK(grGraphAddChildGraphNode(&child, outer, NULL, 0, inner));
    CHECK_OK(grGraphInstantiate(&e, outer, 0));
    CHECK_OK(grGraphExecUpdate(e, outer, &info));
    CHECK_OK(grGraphExecUpdate(e, outer, &info));
    CHECK_OK(grGraphChildGraphNodeGetGraph(child, &owned));
    n = 1;
    CHECK_OK(grGraphGetNodes(owned, &cn, &n));
    make_updatable(cn);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, outer, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorNotSupported);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(inner));
    CHECK_OK(grGraphDestroy(outer));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(f.kadd));
}
