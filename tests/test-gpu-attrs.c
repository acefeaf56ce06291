/*
 * test-gpu-attrs.c - launch attributes, function attributes and edge data
 * on GPU devices: what an eager launch, a kernel node, a programmatic
 * edge and grFuncSetAttribute give the device (the fake device records
 * it, so that every run checks the dispatch), and what a real GPU's
 * driver does with them (skipped where there is none).
 */
#include "testlib.h"
#include "fakedev/fakedev.h"
#include "graphrt_kernel.h"

#include <string.h>

/* From tests/kernels/gpu_kernels.c (GR_KERNEL). */
GR_KERNEL_DECLARE(gr_test_devupd_target);
GR_KERNEL_DECLARE(gr_test_devupd_setter);
int gr_test_kernels_have_image(void);

static void skip_unless_fake(void)
{
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
}

static grLaunchAttribute attr(grLaunchAttributeID id)
{
    grLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = id;
    return a;
}

/* The attributes of a launch that CUDA takes and a GPU acts on: a
 * priority, a memory-sync domain, a shared-memory carveout and a
 * scheduling policy. */
static unsigned some_attrs(grLaunchAttribute *a)
{
    a[0] = attr(grLaunchAttributePriority);
    a[0].val.priority = -1;
    a[1] = attr(grLaunchAttributeMemSyncDomain);
    a[1].val.memSyncDomain = grLaunchMemSyncDomainRemote;
    a[2] = attr(grLaunchAttributePreferredSharedMemoryCarveout);
    a[2].val.sharedMemCarveout = 50;
    a[3] = attr(grLaunchAttributeClusterSchedulingPolicyPreference);
    a[3].val.clusterSchedulingPolicyPreference = grClusterSchedulingPolicySpread;
    return 4;
}

/* Launches fill kernel k over n elements of d with value v on s with
 * attrs[0..nattrs) through grLaunchKernelExC. */
static grError_t launch_ex(grKernel_t k, unsigned *d, unsigned v, unsigned n, grStream_t s,
                           grLaunchAttribute *attrs, unsigned nattrs)
{
    void *args[] = {&d, &v, &n};
    grLaunchConfig_t cfg = {GR_DIM3((n + 63) / 64, 1, 1), GR_DIM3(64, 1, 1), 0, s, attrs, nattrs};
    return grLaunchKernelExC(&cfg, k, args);
}

GR_TEST(eager_launch_attributes_reach_the_device_as_given)
{
    skip_unless_fake();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    grStream_t s = tl_stream(0);
    unsigned *d = NULL, h[128];
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    grLaunchAttribute a[4], got[8];
    unsigned n = some_attrs(a);
    CHECK_OK(launch_ex(k, d, 7, 128, s, a, n));
    CHECK_EQ(gr_fakedev_launch_attrs(got, 8), n);
    for (unsigned i = 0; i < n; i++) {
        CHECK_EQ(got[i].id, a[i].id);
        CHECK(memcmp(&got[i].val, &a[i].val, sizeof a[i].val) == 0);
    }
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, 128, 7);
    /* A launch without attributes gives none. */
    void *args[] = {&d, &(unsigned){8}, &(unsigned){128}};
    CHECK_OK(grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(64, 1, 1), args, 0, s));
    CHECK_EQ(gr_fakedev_launch_attrs(got, 8), 0);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(func_set_attribute_reaches_the_device_and_refusals_do_not)
{
    skip_unless_fake();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    int v = 0;
    CHECK(!gr_fakedev_func_attr(k, grFuncAttributePreferredSharedMemoryCarveout, &v));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributePreferredSharedMemoryCarveout, 25));
    CHECK(gr_fakedev_func_attr(k, grFuncAttributePreferredSharedMemoryCarveout, &v));
    CHECK_EQ(v, 25);
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, 16384));
    CHECK(gr_fakedev_func_attr(k, grFuncAttributeMaxDynamicSharedMemorySize, &v));
    CHECK_EQ(v, 16384);
    /* Refused before the device is asked: it keeps the last value. */
    CHECK_GR(grErrorInvalidValue, grFuncSetAttribute(k, grFuncAttributePreferredSharedMemoryCarveout, 101));
    CHECK(gr_fakedev_func_attr(k, grFuncAttributePreferredSharedMemoryCarveout, &v));
    CHECK_EQ(v, 25);
    /* The CPU's own attribute is not the device's. */
    gr_fakedev_reset_calls();
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeCpuStackSize, 32768));
    CHECK_EQ(gr_fakedev_calls("func_set_attribute"), 0);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(func_set_attribute_failure_of_the_device_is_the_calls)
{
    skip_unless_fake();
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    gr_fakedev_fail("func_set_attribute", grErrorInvalidValue, 0);
    CHECK_GR(grErrorInvalidValue, grFuncSetAttribute(k, grFuncAttributePreferredSharedMemoryCarveout, 10));
    CHECK_DETAIL_HAS("grFuncSetAttribute");
    gr_fakedev_clear();
    CHECK_OK(grKernelDestroy(k));
}

/* ---------------------------------------------------------- a real GPU */

GR_TEST(gpu_launch_attributes_run_through_the_driver)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    grStream_t s = tl_stream(0);
    unsigned *d = NULL, h[256];
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    grLaunchAttribute a[6];
    unsigned n = some_attrs(a);
    a[n] = attr(grLaunchAttributeCooperative);
    a[n++].val.cooperative = 1;
    CHECK_OK(launch_ex(k, d, 11, 256, s, a, n));
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, 256, 11);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(k));
}

/* A cluster of 64 blocks is more than any GPU takes (8, or 16 where the
 * kernel allows non-portable sizes; none before sm_90): the driver
 * refuses it, at the launch or by the next synchronisation, which it can
 * only where it is given it (graphrt checks no cluster size). Last in
 * its process: an asynchronous refusal is sticky. */
static grLaunchAttribute cluster_of_64(void)
{
    grLaunchAttribute c = attr(grLaunchAttributeClusterDimension);
    c.val.clusterDim.x = 64;
    c.val.clusterDim.y = 1;
    c.val.clusterDim.z = 1;
    return c;
}

GR_TEST(gpu_launch_cluster_too_large_is_the_drivers_refusal)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    grStream_t s = tl_stream(0);
    unsigned *d = NULL;
    CHECK_OK(grMalloc((void **)&d, 64 * sizeof(unsigned)));
    grLaunchAttribute c = cluster_of_64();
    grError_t err = launch_ex(k, d, 12, 64 * 64, s, &c, 1);
    if (err != grSuccess)
        CHECK_DETAIL_HAS("cuLaunchKernelEx");
    else
        err = grStreamSynchronize(s);
    CHECK(err != grSuccess);
}

GR_TEST(gpu_func_set_attribute_is_what_the_driver_reports)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    grFuncAttributes fa;
    /* Set before the function is loaded: applied when it loads. */
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributePreferredSharedMemoryCarveout, 50));
    CHECK_OK(grFuncGetAttributes(&fa, k));
    CHECK_EQ(fa.preferredShmemCarveout, 50);
    /* Set once it is loaded: given to the loaded function. */
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributePreferredSharedMemoryCarveout, 25));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, 16384));
    CHECK_OK(grFuncGetAttributes(&fa, k));
    CHECK_EQ(fa.preferredShmemCarveout, 25);
    CHECK_EQ(fa.maxDynamicSharedSizeBytes, 16384);
    CHECK_OK(grKernelDestroy(k));
}

/* ------------------------------------------------------- kernel nodes */

/* Adds a kernel node of k (fill over 64 elements of *d with v) after
 * deps[0..nd) to g, with attribute a. */
static grGraphNode_t add_fill(grGraph_t g, const grGraphNode_t *deps, size_t nd, grKernel_t k, void **args,
                              const grLaunchAttribute *a)
{
    grGraphNode_t n;
    grKernelNodeParams p = tl_params_1d(k, args, 64, 64);
    CHECK_OK(grGraphAddKernelNode(&n, g, deps, nd, &p));
    if (a)
        CHECK_OK(grGraphKernelNodeSetAttribute(n, a->id, &a->val));
    return n;
}

/* The recorded attribute of kernel k at place (cond, body) with this ID,
 * or NULL. */
static const gr_fakedev_kattr *lowered(const gr_fakedev_kattr *v, unsigned n, grKernel_t k, unsigned cond,
                                       unsigned body, grLaunchAttributeID id)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i].kernel == k && v[i].cond == cond && v[i].body == body && v[i].attr.id == id)
            return &v[i];
    return NULL;
}

GR_TEST(kernel_node_attributes_are_lowered_at_their_nodes_places)
{
    skip_unless_fake();
    CHECK_OK(grSetDevice(1));
    /* One kernel per node, so that each recorded attribute names its
     * node: top level, inside a child graph, inside a conditional body. */
    grKernel_t top = tl_ptx_kernel("gr_test_fill"), inner = tl_ptx_kernel("gr_test_add");
    grKernel_t body;
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&body, tl_fill_u32_fn, "attrs_body_fill", 3, sizes));
    CHECK_OK(grKernelSetImage(body, "// an image the fake device takes as it is", "attrs_body_fill"));
    unsigned *d = NULL, v = 3, n = 64;
    CHECK_OK(grMalloc((void **)&d, 64 * sizeof(unsigned)));
    void *args[] = {&d, &v, &n};
    grLaunchAttribute a[4];
    some_attrs(a);
    grGraph_t g, child, *bodies = NULL;
    grGraphConditionalHandle h;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t t = add_fill(g, NULL, 0, top, args, &a[0]);
    CHECK_OK(grGraphKernelNodeSetAttribute(t, a[1].id, &a[1].val));
    /* An empty node first, so that the child's kernel is not the child
     * graph's first plan node. */
    CHECK_OK(grGraphCreate(&child, 0));
    grGraphNode_t e, c;
    CHECK_OK(grGraphAddEmptyNode(&e, child, NULL, 0));
    add_fill(child, &e, 1, inner, args, &a[2]);
    CHECK_OK(grGraphAddChildGraphNode(&c, g, &t, 1, child));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    tl_add_cond(g, &c, 1, h, grGraphCondTypeIf, 1, &bodies);
    add_fill(bodies[0], NULL, 0, body, args, &a[3]);
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    gr_fakedev_kattr got[16];
    unsigned m = gr_fakedev_lowered_attrs(got, 16);
    CHECK_EQ(m, 4);
    const gr_fakedev_kattr *r = lowered(got, m, top, 0, 0, grLaunchAttributePriority);
    CHECK(r != NULL && r->attr.val.priority == -1);
    r = lowered(got, m, top, 0, 0, grLaunchAttributeMemSyncDomain);
    CHECK(r != NULL && r->attr.val.memSyncDomain == grLaunchMemSyncDomainRemote);
    r = lowered(got, m, inner, 0, 0, grLaunchAttributePreferredSharedMemoryCarveout);
    CHECK(r != NULL && r->attr.val.sharedMemCarveout == 50);
    r = lowered(got, m, body, 1, 0, grLaunchAttributeClusterSchedulingPolicyPreference);
    CHECK(r != NULL && r->attr.val.clusterSchedulingPolicyPreference == grClusterSchedulingPolicySpread);
    /* The graph runs as before. */
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    unsigned hbuf[64];
    CHECK_OK(grMemcpy(hbuf, d, sizeof hbuf, grMemcpyDeviceToHost));
    tl_check_all_u32(hbuf, 64, 3); /* fill 3, add 3, fill 3 */
    CHECK_OK(grGraphExecDestroy(x));
    /* A graph without attributes lowers none. */
    grGraph_t plain;
    CHECK_OK(grGraphCreate(&plain, 0));
    add_fill(plain, NULL, 0, top, args, NULL);
    CHECK_OK(grGraphInstantiate(&x, plain, 0));
    CHECK_EQ(gr_fakedev_lowered_attrs(got, 16), 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(plain));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(top));
    CHECK_OK(grKernelDestroy(inner));
    CHECK_OK(grKernelDestroy(body));
}

/* A graph of kernel 'top' (attributes a[0..na)) then a child graph of
 * kernel 'inner' (attribute *ia, or none), each filling d. */
static grGraph_t top_and_child(grKernel_t top, grKernel_t inner, void **args, const grLaunchAttribute *a,
                               unsigned na, const grLaunchAttribute *ia)
{
    grGraph_t g, child;
    grGraphNode_t t, c;
    CHECK_OK(grGraphCreate(&g, 0));
    t = add_fill(g, NULL, 0, top, args, na ? &a[0] : NULL);
    for (unsigned i = 1; i < na; i++)
        CHECK_OK(grGraphKernelNodeSetAttribute(t, a[i].id, &a[i].val));
    CHECK_OK(grGraphCreate(&child, 0));
    add_fill(child, NULL, 0, inner, args, ia);
    CHECK_OK(grGraphAddChildGraphNode(&c, g, &t, 1, child));
    CHECK_OK(grGraphDestroy(child));
    return g;
}

GR_TEST(exec_update_gives_changed_kernel_node_attributes_to_the_device)
{
    skip_unless_fake();
    CHECK_OK(grSetDevice(1));
    grKernel_t top = tl_ptx_kernel("gr_test_fill"), inner = tl_ptx_kernel("gr_test_add");
    unsigned *d = NULL, v = 3, n = 64;
    CHECK_OK(grMalloc((void **)&d, 64 * sizeof(unsigned)));
    void *args[] = {&d, &v, &n};
    grLaunchAttribute a[4], carve25;
    some_attrs(a); /* priority -1, memsync remote, carveout 50, spread */
    carve25 = a[2];
    carve25.val.sharedMemCarveout = 25;
    grGraph_t g1 = top_and_child(top, inner, args, a, 1, &a[2]);
    grGraph_t g2 = top_and_child(top, inner, args, a, 2, &carve25);
    grGraph_t g3 = top_and_child(top, inner, args, a, 2, &carve25);
    grGraphExec_t x;
    grGraphExecUpdateResultInfo info;
    gr_fakedev_kattr got[16];
    CHECK_OK(grGraphInstantiate(&x, g1, 0));
    unsigned m = gr_fakedev_lowered_attrs(got, 16);
    CHECK_EQ(m, 2);
    CHECK(lowered(got, m, top, 0, 0, grLaunchAttributeMemSyncDomain) == NULL);
    /* The top-level node gains an attribute, the child's node changes
     * one: both reach the device. */
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphExecUpdate(x, g2, &info));
    CHECK_EQ(gr_fakedev_calls("exec_set_kattrs"), 2u);
    m = gr_fakedev_lowered_attrs(got, 16);
    CHECK_EQ(m, 3);
    const gr_fakedev_kattr *r = lowered(got, m, top, 0, 0, grLaunchAttributeMemSyncDomain);
    CHECK(r != NULL && r->attr.val.memSyncDomain == grLaunchMemSyncDomainRemote);
    r = lowered(got, m, inner, 0, 0, grLaunchAttributePreferredSharedMemoryCarveout);
    CHECK(r != NULL && r->attr.val.sharedMemCarveout == 25);
    /* An update that changes no attribute gives the device none. */
    gr_fakedev_reset_calls();
    CHECK_OK(grGraphExecUpdate(x, g3, &info));
    CHECK_EQ(gr_fakedev_calls("exec_set_kattrs"), 0u);
    /* Back to g1: the attribute g1's node lacks is gone again. */
    CHECK_OK(grGraphExecUpdate(x, g1, &info));
    m = gr_fakedev_lowered_attrs(got, 16);
    CHECK_EQ(m, 2);
    CHECK(lowered(got, m, top, 0, 0, grLaunchAttributeMemSyncDomain) == NULL);
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(x));
    tl_destroy_graphs((grGraph_t[]){g1, g2, g3}, 3);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(top));
    CHECK_OK(grKernelDestroy(inner));
}

GR_TEST(gpu_exec_update_of_kernel_node_attributes_runs_through_the_driver)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t top = tl_ptx_kernel("gr_test_fill"), inner = tl_ptx_kernel("gr_test_add");
    unsigned *d = NULL, v = 4, n = 64, h[64];
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    void *args[] = {&d, &v, &n};
    grLaunchAttribute a[4];
    some_attrs(a);
    grGraph_t g1 = top_and_child(top, inner, args, a, 1, NULL);
    grGraph_t g2 = top_and_child(top, inner, args, a, 2, &a[2]);
    grGraphExec_t x;
    grGraphExecUpdateResultInfo info;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&x, g1, 0));
    CHECK_OK(grGraphExecUpdate(x, g2, &info));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, 64, 8); /* fill 4, add 4 */
    CHECK_OK(grGraphExecDestroy(x));
    tl_destroy_graphs((grGraph_t[]){g1, g2}, 2);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(top));
    CHECK_OK(grKernelDestroy(inner));
}

GR_TEST(gpu_kernel_node_attributes_reach_the_driver)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    unsigned *d = NULL, v = 21, n = 64, h[64];
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    void *args[] = {&d, &v, &n};
    grLaunchAttribute a[4];
    some_attrs(a);
    grGraph_t g;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNode_t node = add_fill(g, NULL, 0, k, args, &a[0]);
    for (int i = 1; i < 4; i++)
        CHECK_OK(grGraphKernelNodeSetAttribute(node, a[i].id, &a[i].val));
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, 64, 21);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_kernel_node_cluster_too_large_is_the_drivers_refusal)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    unsigned *d = NULL, v = 3, n = 64;
    CHECK_OK(grMalloc((void **)&d, 64 * sizeof(unsigned)));
    void *args[] = {&d, &v, &n};
    grLaunchAttribute c = cluster_of_64();
    grGraph_t g;
    grGraphExec_t x;
    grGraphNode_t node;
    grKernelNodeParams p = tl_params_1d(k, args, 64 * 64, 64);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, &p));
    CHECK_OK(grGraphKernelNodeSetAttribute(node, c.id, &c.val));
    /* Refused where the node gets it, at instantiation or at the launch. */
    grError_t err = grGraphInstantiate(&x, g, 0);
    if (err != grSuccess) {
        CHECK_DETAIL_HAS("device 1");
    } else {
        grStream_t s = tl_stream(0);
        err = grGraphLaunch(x, s);
        if (err == grSuccess)
            err = grStreamSynchronize(s);
    }
    CHECK(err != grSuccess);
}

/* ------------------------------------------------ programmatic edges */

static const gr_fakedev_kedge *lowered_edge(const gr_fakedev_kedge *v, unsigned n, grKernel_t from,
                                            grKernel_t to, unsigned cond)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i].from == from && v[i].to == to && v[i].cond == cond && v[i].body == 0)
            return &v[i];
    return NULL;
}

/* A kernel of the tests' fill function under its own name, with an image
 * the fake device takes as it is. */
static grKernel_t fake_kernel(const char *name)
{
    grKernel_t k;
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&k, tl_fill_u32_fn, name, 3, sizes));
    CHECK_OK(grKernelSetImage(k, "// an image the fake device takes as it is", name));
    return k;
}

GR_TEST(programmatic_edges_are_lowered_with_their_data_at_their_places)
{
    skip_unless_fake();
    CHECK_OK(grSetDevice(1));
    grKernel_t k[6];
    const char *names[6] = {"pe_a", "pe_b", "pe_c", "pe_d", "pe_e", "pe_f"};
    for (int i = 0; i < 6; i++)
        k[i] = fake_kernel(names[i]);
    unsigned *d = NULL, v = 4, n = 64;
    CHECK_OK(grMalloc((void **)&d, 64 * sizeof(unsigned)));
    void *args[] = {&d, &v, &n};
    grGraphEdgeData prog = {grGraphKernelNodePortProgrammatic, 0, grGraphDependencyTypeProgrammatic, {0}};
    grGraphEdgeData done = {grGraphKernelNodePortLaunchCompletion, 0, grGraphDependencyTypeProgrammatic, {0}};
    grGraph_t g, child, *bodies = NULL;
    grGraphConditionalHandle h;
    grGraphNode_t a, b, c, dn, e, f, cg, empty;
    CHECK_OK(grGraphCreate(&g, 0));
    /* Top level: a -> b programmatic, plus an empty node before a so
     * that plan and creation positions differ. */
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    a = add_fill(g, &empty, 1, k[0], args, NULL);
    b = add_fill(g, NULL, 0, k[1], args, NULL);
    CHECK_OK(grGraphAddDependencies(g, &a, &b, &prog, 1));
    /* In a child graph: c -> d from the launch-completion port. */
    CHECK_OK(grGraphCreate(&child, 0));
    c = add_fill(child, NULL, 0, k[2], args, NULL);
    dn = add_fill(child, NULL, 0, k[3], args, NULL);
    CHECK_OK(grGraphAddDependencies(child, &c, &dn, &done, 1));
    CHECK_OK(grGraphAddChildGraphNode(&cg, g, &b, 1, child));
    /* In a conditional body: e -> f programmatic. */
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    tl_add_cond(g, &cg, 1, h, grGraphCondTypeIf, 1, &bodies);
    e = add_fill(bodies[0], NULL, 0, k[4], args, NULL);
    f = add_fill(bodies[0], NULL, 0, k[5], args, NULL);
    CHECK_OK(grGraphAddDependencies(bodies[0], &e, &f, &prog, 1));
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    gr_fakedev_kedge got[8];
    unsigned m = gr_fakedev_lowered_edges(got, 8);
    CHECK_EQ(m, 3);
    const gr_fakedev_kedge *r = lowered_edge(got, m, k[0], k[1], 0);
    CHECK(r != NULL && r->data.type == grGraphDependencyTypeProgrammatic &&
          r->data.from_port == grGraphKernelNodePortProgrammatic);
    r = lowered_edge(got, m, k[2], k[3], 0);
    CHECK(r != NULL && r->data.from_port == grGraphKernelNodePortLaunchCompletion);
    r = lowered_edge(got, m, k[4], k[5], 1);
    CHECK(r != NULL && r->data.type == grGraphDependencyTypeProgrammatic);
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(x));
    /* Default edges only: nothing lowered with data. */
    grGraph_t plain;
    CHECK_OK(grGraphCreate(&plain, 0));
    a = add_fill(plain, NULL, 0, k[0], args, NULL);
    add_fill(plain, &a, 1, k[1], args, NULL);
    CHECK_OK(grGraphInstantiate(&x, plain, 0));
    CHECK_EQ(gr_fakedev_lowered_edges(got, 8), 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(plain));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    for (int i = 0; i < 6; i++)
        CHECK_OK(grKernelDestroy(k[i]));
}

GR_TEST(gpu_programmatic_edge_runs_through_the_driver)
{
    gr_test_real_gpu_or_skip();
    CHECK_OK(grSetDevice(1));
    grKernel_t fill = tl_ptx_kernel("gr_test_fill"), add = tl_ptx_kernel("gr_test_add");
    unsigned *d = NULL, v = 5, w = 2, n = 64, h[64];
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    void *fargs[] = {&d, &v, &n}, *aargs[] = {&d, &w, &n};
    /* The second fill may start once the first one's blocks have all
     * begun (the launch-completion port), and both write the same
     * values; the add waits for both with full edges, so the result is
     * exact whatever the overlap. */
    grGraphEdgeData done = {grGraphKernelNodePortLaunchCompletion, 0, grGraphDependencyTypeProgrammatic, {0}};
    grGraph_t g;
    grGraphNode_t a, b, c;
    CHECK_OK(grGraphCreate(&g, 0));
    a = add_fill(g, NULL, 0, fill, fargs, NULL);
    b = add_fill(g, NULL, 0, fill, fargs, NULL);
    CHECK_OK(grGraphAddDependencies(g, &a, &b, &done, 1));
    grGraphNode_t ab[2] = {a, b};
    c = add_fill(g, ab, 2, add, aargs, NULL);
    (void)c;
    grGraphExec_t x;
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    tl_check_all_u32(h, 64, 7);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(fill));
    CHECK_OK(grKernelDestroy(add));
}

/* ------------------------------------------ device-updatable kernel nodes */

GR_TEST(gpu_device_updatable_node_is_updated_by_a_kernel_through_the_drivers_handle)
{
    gr_test_real_gpu_or_skip();
    if (!gr_test_kernels_have_image())
        GR_TEST_SKIP("built without a CUDA compiler: tests/kernels/gpu_kernels.c has no GPU image");
    CHECK_OK(grSetDevice(1));
    grKernel_t target, setter;
    CHECK_OK(GR_KERNEL_CREATE(&target, gr_test_devupd_target));
    CHECK_OK(GR_KERNEL_CREATE(&setter, gr_test_devupd_setter));
    unsigned *d = NULL, one = 1, five = 5, h = 0;
    CHECK_OK(grMalloc((void **)&d, sizeof h));
    CHECK_OK(grMemset(d, 0, sizeof h));
    grGraphDeviceNode_t dn = NULL;
    void *sargs[] = {&dn, &five}, *targs[] = {&d, &one};
    grKernelNodeParams sp = {setter, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), 0, sargs, NULL};
    grKernelNodeParams tp = {target, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), 0, targs, NULL};
    grGraph_t g;
    grGraphNode_t sn, tn;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&sn, g, NULL, 0, &sp));
    CHECK_OK(grGraphAddKernelNode(&tn, g, &sn, 1, &tp));
    grKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.deviceUpdatableKernelNode.deviceUpdatable = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(tn, grLaunchAttributeDeviceUpdatableKernelNode, &v));
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    /* The driver's devNode, given to the setter kernel. */
    CHECK_OK(grGraphKernelNodeGetAttribute(tn, grLaunchAttributeDeviceUpdatableKernelNode, &v));
    dn = v.deviceUpdatableKernelNode.devNode;
    CHECK(dn != NULL);
    CHECK_OK(grGraphExecKernelNodeSetParams(x, sn, &sp));
    grStream_t s = tl_stream(0);
    /* Whether the launch that makes the update sees it is CUDA's to say;
     * the next one does. */
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(&h, d, sizeof h, grMemcpyDeviceToHost));
    unsigned after_first = h;
    CHECK(after_first == 1 || after_first == 5);
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(&h, d, sizeof h, grMemcpyDeviceToHost));
    CHECK_EQ(h, after_first + 5);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(target));
    CHECK_OK(grKernelDestroy(setter));
}
