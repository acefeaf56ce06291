/*
 * test-gpu-pool.c - graphrt's memory pools on a GPU: a pool created for a
 * GPU, the GPU's default and current pools, allocation from them in
 * stream order, their attributes, and the refusals of pools used on
 * another device's streams. Each test needs a GPU device and is skipped,
 * saying why, where there is none (CI has none).
 */
#include "testlib.h"

enum {
    N = 1 << 20
};

GR_TEST(gpu_pool_created_for_a_gpu_allocates_in_stream_order)
{
    int gpu = tl_use_gpu_or_skip();
    grMemPoolProps props = tl_pool_props(gpu);
    grMemPool_t pool = NULL;
    grStream_t s;
    unsigned char *h = NULL;
    void *d = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocHost((void **)&h, N));
    CHECK_OK(grMemPoolCreate(&pool, &props));
    CHECK_OK(grMallocFromPoolAsync(&d, N, pool, s));
    CHECK(d != NULL);
    /* The driver's pool counts the allocation. */
    CHECK(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent) >= N);
    CHECK(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent) >= N);
    /* Tracked as the GPU's pool memory: bounds are checked. */
    CHECK_GR(grErrorInvalidValue, grMemsetAsync(d, 0, N + 1, s));
    tl_memset_check_free_async(d, h, N, 0x5a, s);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    /* Attributes: CUDA's, through the driver, with graphrt's checks. */
    uint64_t threshold = (uint64_t)1 << 30, zero = 0, five = 5;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &threshold));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReleaseThreshold), threshold);
    int follow = 0;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolReuseFollowEventDependencies, &follow));
    follow = 7;
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolReuseFollowEventDependencies, &follow));
    CHECK_EQ(follow, 0);
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrReservedMemCurrent, &zero));
    CHECK_DETAIL_HAS("read-only");
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemHigh, &five));
    CHECK_DETAIL_HAS("setting it to 0");
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemHigh, &zero));
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync(&d, 256, pool, s));
    CHECK_DETAIL_HAS("not live");
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFreeHost(h));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_pool_default_and_current_pools_are_the_gpus)
{
    int gpu = tl_use_gpu_or_skip();
    grMemPool_t dflt = NULL, again = NULL, cpu_dflt = NULL, cur = NULL, pool = NULL;
    grMemPoolProps props = tl_pool_props(gpu);
    grStream_t s, cpu_s;
    void *d = NULL;
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, gpu));
    CHECK_OK(grDeviceGetDefaultMemPool(&again, gpu));
    CHECK_OK(grDeviceGetDefaultMemPool(&cpu_dflt, 0));
    CHECK_PTR_EQ(dflt, again);
    CHECK(dflt != cpu_dflt);
    CHECK_OK(grDeviceGetMemPool(&cur, gpu));
    CHECK_PTR_EQ(cur, dflt);
    CHECK_GR(grErrorInvalidValue, grMemPoolDestroy(dflt));
    /* A pool made current: grMallocAsync on the GPU's streams takes from it. */
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMemPoolCreate(&pool, &props));
    CHECK_OK(grDeviceSetMemPool(gpu, pool));
    CHECK_OK(grDeviceGetMemPool(&cur, gpu));
    CHECK_PTR_EQ(cur, pool);
    CHECK_OK(grMallocAsync(&d, N, s));
    CHECK(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent) >= N);
    CHECK_OK(grFreeAsync(d, s));
    CHECK_OK(grStreamSynchronize(s));
    /* A pool is current on its own device only. */
    CHECK_GR(grErrorInvalidValue, grDeviceSetMemPool(0, pool));
    CHECK_DETAIL_HAS("pool of device 1");
    CHECK_GR(grErrorInvalidValue, grDeviceSetMemPool(gpu, cpu_dflt));
    CHECK_DETAIL_HAS("pool of device 0");
    /* ... and allocates on its own device's streams only. */
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu_s));
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync(&d, 256, pool, cpu_s));
    CHECK_DETAIL_HAS("pool of device 1");
    CHECK_OK(grStreamDestroy(cpu_s));
    /* Destroying the current pool makes the default current again. */
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_OK(grDeviceGetMemPool(&cur, gpu));
    CHECK_PTR_EQ(cur, dflt);
    CHECK_OK(grSetDevice(gpu));
    CHECK_OK(grMallocAsync(&d, 256, s));
    CHECK_OK(grFreeAsync(d, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grSetDevice(0));
}
