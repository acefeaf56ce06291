/*
 * test-shared-mem-optin.c - dynamic shared memory above 48 KiB, CUDA's
 * rule on every device: a kernel gets at most its MaxDynamicSharedMemorySize
 * (48 KiB until grFuncSetAttribute raises it, up to the device's
 * sharedMemPerBlockOptin), for launches, kernel nodes, their setters and
 * the occupancy calls.
 */
#include "testlib.h"
#include "fakedev/fakedev.h"

#include <string.h>

#define OPTIN_CPU 232448 /* 227 KiB, an H100's */
#define BIG 100000       /* above 48 KiB, below every opt-in limit here */

/* fill_shared(unsigned *out, unsigned n): writes n bytes of the block's
 * shared memory, then adds them up into out[blockIdx.x]. */
static void fill_shared_fn(const grKernelCtx *ctx, void **args)
{
    unsigned *out = *(unsigned **)args[0];
    unsigned n = *(unsigned *)args[1];
    unsigned char *sh = ctx->sharedMem;
    unsigned sum = 0;
    memset(sh, 1, n);
    for (unsigned i = 0; i < n; i++)
        sum += sh[i];
    out[ctx->blockIdx.x] = sum;
}

static grKernel_t fill_shared_kernel(void)
{
    grKernel_t k = NULL;
    size_t sizes[2] = {sizeof(unsigned *), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&k, fill_shared_fn, "fill_shared", 2, sizes));
    return k;
}

static grError_t launch_fill(grKernel_t k, unsigned *out, unsigned n, grStream_t s)
{
    void *args[2] = {&out, &n};
    return grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, n, s);
}

GR_TEST(shared_mem_optin_cpu_device_reports_its_limit)
{
    int v = 0;
    grDeviceProp prop;
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CHECK_EQ(v, OPTIN_CPU);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxSharedMemoryPerBlock, 0));
    CHECK_EQ(v, 48 * 1024);
    CHECK_OK(grGetDeviceProperties(&prop, 0));
    CHECK_EQ(prop.sharedMemPerBlockOptin, (size_t)OPTIN_CPU);
    CHECK_EQ(prop.sharedMemPerBlock, (size_t)48 * 1024);
}

GR_TEST(shared_mem_optin_launch_above_48k_needs_the_attribute)
{
    grStream_t s = tl_stream(0);
    grKernel_t k = fill_shared_kernel();
    unsigned *out = tl_calloc(2 * sizeof *out);
    /* 48 KiB without opting in, as in CUDA. */
    CHECK_OK(launch_fill(k, out, 48 * 1024, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(out[1], 48u * 1024u);
    CHECK_GR(grErrorInvalidValue, launch_fill(k, out, BIG, s));
    CHECK_DETAIL_HAS("MaxDynamicSharedMemorySize");
    /* Opted in: the launch gets all of it. */
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, BIG));
    CHECK_OK(launch_fill(k, out, BIG, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(out[0], (unsigned)BIG);
    CHECK_EQ(out[1], (unsigned)BIG);
    CHECK_GR(grErrorInvalidValue, launch_fill(k, out, BIG + 1, s));
    /* Up to the device's sharedMemPerBlockOptin, no further. */
    CHECK_GR(grErrorInvalidValue,
             grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, OPTIN_CPU + 1));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, OPTIN_CPU));
    CHECK_OK(launch_fill(k, out, OPTIN_CPU, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(out[1], (unsigned)OPTIN_CPU);
    /* Lowered below 48 KiB, the attribute is the limit still. */
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, 1000));
    CHECK_GR(grErrorInvalidValue, launch_fill(k, out, 2000, s));
    CHECK_OK(launch_fill(k, out, 1000, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(shared_mem_optin_kernel_nodes_and_setters_follow_the_attribute)
{
    grStream_t s = tl_stream(0);
    grKernel_t k = fill_shared_kernel();
    unsigned *out = tl_calloc(2 * sizeof *out);
    unsigned n = BIG;
    void *args[2] = {&out, &n};
    grGraph_t g;
    grGraphNode_t node;
    grGraphExec_t e;
    grKernelNodeParams p = tl_params_1d(k, args, 2, 1);
    p.sharedMemBytes = BIG;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAddKernelNode(&node, g, NULL, 0, &p));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, BIG));
    CHECK_OK(grGraphAddKernelNode(&node, g, NULL, 0, &p));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(out[0], (unsigned)BIG);
    CHECK_EQ(out[1], (unsigned)BIG);
    /* The setters check the same limit. */
    p.sharedMemBytes = BIG + 16;
    CHECK_GR(grErrorInvalidValue, grGraphKernelNodeSetParams(node, &p));
    CHECK_GR(grErrorInvalidValue, grGraphExecKernelNodeSetParams(e, node, &p));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, BIG + 16));
    n = BIG + 16;
    CHECK_OK(grGraphExecKernelNodeSetParams(e, node, &p));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(out[1], (unsigned)BIG + 16);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(shared_mem_optin_occupancy_answers_follow_the_attribute)
{
    grKernel_t k = fill_shared_kernel();
    int blocks = -1;
    size_t avail = 0;
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, 32, BIG));
    CHECK_EQ(blocks, 0);
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&avail, k, 1, 32));
    CHECK_EQ(avail, (size_t)48 * 1024);
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, BIG));
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, 32, BIG));
    CHECK_EQ(blocks, 1);
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&avail, k, 1, 32));
    CHECK_EQ(avail, (size_t)BIG);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(fake_device_refuses_an_opt_in_above_its_own_limit)
{
    int v = 0;
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxSharedMemoryPerBlockOptin, 1));
    CHECK_EQ(v, 100 * 1024);
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    /* The device's driver is asked, and its refusal is the call's. */
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, BIG));
    CHECK(gr_fakedev_func_attr(k, grFuncAttributeMaxDynamicSharedMemorySize, &v));
    CHECK_EQ(v, BIG);
    CHECK_GR(grErrorInvalidValue, grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, 150000));
    CHECK(gr_fakedev_func_attr(k, grFuncAttributeMaxDynamicSharedMemorySize, &v));
    CHECK_EQ(v, BIG);
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grSetDevice(0));
}
