/*
 * test-gpu-attrs.c - launch attributes and function attributes on GPU
 * devices: what an eager launch, a kernel node and grFuncSetAttribute
 * give the device (the fake device records it, so that every run checks
 * the dispatch), and what a real GPU's driver does with them (skipped
 * where there is none).
 */
#include "testlib.h"
#include "fakedev/fakedev.h"

#include <string.h>

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
    /* A cluster of 64 blocks is more than any GPU takes (8, or 16 where
     * the kernel allows non-portable sizes; none before sm_90): the
     * driver refuses it, which it can only where it is given it. */
    grLaunchAttribute c = attr(grLaunchAttributeClusterDimension);
    c.val.clusterDim.x = 64;
    c.val.clusterDim.y = 1;
    c.val.clusterDim.z = 1;
    CHECK(launch_ex(k, d, 12, 64 * 64, s, &c, 1) != grSuccess);
    CHECK_DETAIL_HAS("cuLaunchKernelEx");
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(k));
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
