/*
 * test-occupancy.c - grFuncGetAttributes, the occupancy calculator and
 * grFuncGetParamInfo with a GPU current: the calls reach the device
 * (the fake device's answers and call counts, its injected failures), a
 * kernel without a GPU image is refused as its launch is, graphrt's
 * argument checks come before the device; and on a real GPU what the
 * driver says of the tests' gr_test_add (gpu-ptx.h), skipped where
 * there is none (CI has none). The CPU device's answers are
 * test-coop.c's.
 */
#include "testlib.h"

#include "fakedev/fakedev.h"

#include <string.h>

static grKernel_t add_without_image(void)
{
    grKernel_t k;
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&k, tl_add_u32_fn, "occ_no_image", 3, sizes));
    return k;
}

/* A launch of one cluster of cluster_x blocks of 128 threads (0: no
 * cluster dimension, one block). */
static grLaunchConfig_t cluster_config(grLaunchAttribute *attr, unsigned cluster_x)
{
    memset(attr, 0, sizeof *attr);
    attr->id = grLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cluster_x;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    grLaunchConfig_t cfg = {.gridDim = GR_DIM3(cluster_x ? cluster_x : 1, 1, 1),
                            .blockDim = GR_DIM3(128, 1, 1),
                            .attrs = cluster_x ? attr : NULL,
                            .numAttrs = cluster_x ? 1 : 0};
    return cfg;
}

GR_TEST(occupancy_calls_reach_the_fake_device)
{
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_add");
    gr_fakedev_reset_calls();

    grFuncAttributes fa;
    memset(&fa, 0x5a, sizeof fa);
    CHECK_OK(grFuncGetAttributes(&fa, k));
    CHECK_EQ(gr_fakedev_calls("func_attributes"), 1);
    CHECK_EQ(fa.maxThreadsPerBlock, 1024);
    CHECK_EQ(fa.numRegs, 0);
    CHECK_EQ(fa.localSizeBytes, 0);
    CHECK_EQ(fa.maxDynamicSharedSizeBytes, 48 * 1024);
    CHECK_EQ(fa.preferredShmemCarveout, -1);

    int nb = -1;
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 128, 0));
    CHECK_EQ(nb, 1);
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb, k, 1025, 0,
                                                                  grOccupancyDisableCachingOverride));
    CHECK_EQ(nb, 0);
    CHECK_EQ(gr_fakedev_calls("occupancy_blocks"), 2);

    size_t smem = 0;
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 1, 128));
    CHECK_EQ(smem, 48 * 1024);
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 2, 128));
    CHECK_EQ(smem, 0);
    CHECK_EQ(gr_fakedev_calls("occupancy_smem"), 2);

    /* The fake device's 4 multiprocessors, whatever the CPU's workers. */
    grLaunchAttribute attr;
    grLaunchConfig_t cfg = cluster_config(&attr, 2);
    int n = -1;
    CHECK_OK(grOccupancyMaxActiveClusters(&n, k, &cfg));
    CHECK_EQ(n, 2);
    CHECK_OK(grOccupancyMaxPotentialClusterSize(&n, k, &cfg));
    CHECK_EQ(n, 4);
    CHECK_EQ(gr_fakedev_calls("occupancy_clusters"), 2);

    /* A parameter's layout is the kernel's: no device call. */
    size_t off = 99, size = 0;
    CHECK_OK(grFuncGetParamInfo(k, 1, &off, &size));
    CHECK_EQ(off, sizeof(unsigned *));
    CHECK_EQ(size, sizeof(unsigned));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(occupancy_on_the_fake_device_refuses_a_kernel_without_an_image)
{
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    grKernel_t k = add_without_image();
    grFuncAttributes fa;
    int n;
    size_t smem;
    grLaunchAttribute attr;
    grLaunchConfig_t cfg = cluster_config(&attr, 1);
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetAttributes(&fa, k));
    CHECK(strstr(grGetLastErrorDetail(), "has no GPU image") != NULL);
    CHECK(strstr(grGetLastErrorDetail(), "grFuncGetAttributes") != NULL);
    CHECK_GR(grErrorInvalidDeviceFunction, grOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 128, 0));
    CHECK(strstr(grGetLastErrorDetail(), "occ_no_image") != NULL);
    CHECK_GR(grErrorInvalidDeviceFunction, grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 1, 128));
    CHECK_GR(grErrorInvalidDeviceFunction, grOccupancyMaxActiveClusters(&n, k, &cfg));
    CHECK_GR(grErrorInvalidDeviceFunction, grOccupancyMaxPotentialClusterSize(&n, k, &cfg));
    /* The layout needs no image. */
    size_t off;
    CHECK_OK(grFuncGetParamInfo(k, 2, &off, NULL));
    CHECK_EQ(off, sizeof(unsigned *) + sizeof(unsigned));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(occupancy_on_the_fake_device_checks_arguments_first_and_passes_its_errors)
{
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    CHECK_OK(grSetDevice(1));
    grKernel_t k = tl_ptx_kernel("gr_test_add");
    int n;
    size_t smem;
    grLaunchAttribute attr;
    grLaunchConfig_t cfg = cluster_config(&attr, 2);
    gr_fakedev_reset_calls();
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 0, 0));
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, k, 128, 0, 2));
    CHECK_GR(grErrorInvalidValue, grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 0, 128));
    CHECK_GR(grErrorInvalidValue, grFuncGetAttributes(NULL, k));
    attr.val.clusterDim.y = 0;
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxActiveClusters(&n, k, &cfg));
    attr.val.clusterDim.y = 1;
    CHECK_EQ(gr_fakedev_calls("occupancy_blocks"), 0);
    CHECK_EQ(gr_fakedev_calls("occupancy_smem"), 0);
    CHECK_EQ(gr_fakedev_calls("occupancy_clusters"), 0);
    CHECK_EQ(gr_fakedev_calls("func_attributes"), 0);
    /* The device's failure is the call's, detail included. */
    gr_fakedev_fail("occupancy_blocks", grErrorLaunchOutOfResources, 0);
    CHECK_GR(grErrorLaunchOutOfResources, grOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 128, 0));
    CHECK(strstr(grGetLastErrorDetail(), "grOccupancyMaxActiveBlocksPerMultiprocessor") != NULL);
    gr_fakedev_fail("occupancy_clusters", grErrorCallRequiresNewerDriver, 0);
    CHECK_GR(grErrorCallRequiresNewerDriver, grOccupancyMaxPotentialClusterSize(&n, k, &cfg));
    gr_fakedev_clear();
    CHECK_OK(grOccupancyMaxPotentialClusterSize(&n, k, &cfg));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_occupancy_and_attributes_are_the_drivers)
{
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    grKernel_t k = tl_ptx_kernel("gr_test_add");
    grFuncAttributes fa;
    CHECK_OK(grFuncGetAttributes(&fa, k));
    CHECK(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= 1024);
    CHECK(fa.numRegs >= 1);
    CHECK(fa.binaryVersion > 0); /* the GPU's compute capability, major * 10 + minor */
    CHECK(fa.maxDynamicSharedSizeBytes > 0);

    int nb = 0;
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 128, 0));
    CHECK(nb >= 1);
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb, k, 128, 0,
                                                                  grOccupancyDisableCachingOverride));
    CHECK(nb >= 1);
    size_t smem = 0;
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 1, 128));
    CHECK(smem > 0);
    /* Fewer bytes each as more blocks share a multiprocessor. */
    size_t smem2 = 0;
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&smem2, k, 2, 128));
    CHECK(smem2 <= smem);

    /* Clusters exist from compute capability 9.0. */
    int major = 0;
    CHECK_OK(grDeviceGetAttribute(&major, grDevAttrComputeCapabilityMajor, 1));
    if (major >= 9) {
        grLaunchAttribute attr;
        grLaunchConfig_t cfg = cluster_config(&attr, 2);
        int n = 0;
        CHECK_OK(grOccupancyMaxActiveClusters(&n, k, &cfg));
        CHECK(n >= 1);
        /* Without a cluster dimension: the driver's largest (8, the
         * portable size, on a 9.0 GPU). */
        cfg = cluster_config(&attr, 0);
        CHECK_OK(grOccupancyMaxPotentialClusterSize(&n, k, &cfg));
        CHECK(n >= 2);
    }

    /* A kernel without an image is refused as its launch is. */
    grKernel_t bare = add_without_image();
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetAttributes(&fa, bare));
    CHECK(strstr(grGetLastErrorDetail(), "has no GPU image") != NULL);
    CHECK_GR(grErrorInvalidDeviceFunction, grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, bare, 128, 0));
    size_t off;
    CHECK_OK(grFuncGetParamInfo(bare, 1, &off, NULL));
    CHECK_EQ(off, sizeof(unsigned *));
    CHECK_OK(grKernelDestroy(bare));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grSetDevice(0));
}
