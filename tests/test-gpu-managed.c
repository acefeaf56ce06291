/*
 * test-gpu-managed.c - a GPU's managed memory and registered host memory
 * through the device table: grMallocManaged with a GPU current, its hints
 * (grMemAdvise, the prefetches) and range attributes, grHostRegister and
 * grHostGetDevicePointer where a GPU exists. On the fake device the
 * table's answers are its stored state; the tests marked so ask a real
 * GPU (gr_test_real_gpu_or_skip) and assert the driver's answers.
 */
#include "testlib.h"

#include "fakedev/fakedev.h"

#include <stdlib.h>
#include <string.h>

static int range_int(grMemRangeAttribute a, const void *p, size_t n)
{
    int v = 12345;
    CHECK_OK(grMemRangeGetAttribute(&v, sizeof v, a, p, n));
    return v;
}

static grMemLocation dev_loc(int id)
{
    grMemLocation l = {grMemLocationTypeDevice, id};
    return l;
}

static grMemLocation host_loc(void)
{
    grMemLocation l = {grMemLocationTypeHost, 0};
    return l;
}

GR_TEST(gpu_managed_hints_reach_the_device_and_read_back)
{
    grStream_t s;
    void *m = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMallocManaged(&m, 1 << 20, grMemAttachGlobal));
    CHECK_OK(grMemAdvise(m, 1 << 20, grMemAdviseSetReadMostly, dev_loc(1)));
    CHECK_EQ(range_int(grMemRangeAttributeReadMostly, m, 1 << 20), 1);
    CHECK_OK(grMemAdvise(m, 1 << 20, grMemAdviseUnsetReadMostly, dev_loc(1)));
    CHECK_EQ(range_int(grMemRangeAttributeReadMostly, m, 1 << 20), 0);
    /* Read-mostly ignores its location, even one naming no device. */
    CHECK_OK(grMemAdvise(m, 1 << 20, grMemAdviseSetReadMostly, dev_loc(99)));
    CHECK_EQ(range_int(grMemRangeAttributeReadMostly, m, 1 << 20), 1);
    CHECK_OK(grMemAdvise(m, 1 << 20, grMemAdviseUnsetReadMostly, dev_loc(-7)));
    CHECK_EQ(range_int(grMemRangeAttributeReadMostly, m, 1 << 20), 0);
    /* A GPU location, in graphrt's numbering (GPU 1 is device 1). */
    CHECK_OK(grMemAdvise(m, 1 << 20, grMemAdviseSetPreferredLocation, dev_loc(1)));
    CHECK_EQ(range_int(grMemRangeAttributePreferredLocation, m, 1 << 20), 1);
    CHECK_EQ(range_int(grMemRangeAttributePreferredLocationType, m, 1 << 20), grMemLocationTypeDevice);
    CHECK_EQ(range_int(grMemRangeAttributePreferredLocationId, m, 1 << 20), 1);
    CHECK_OK(grMemAdvise(m, 1 << 20, grMemAdviseSetAccessedBy, dev_loc(1)));
    int by[2] = {0, 0};
    CHECK_OK(grMemRangeGetAttribute(by, sizeof by, grMemRangeAttributeAccessedBy, m, 1 << 20));
    CHECK_EQ(by[0], 1);
    CHECK_EQ(by[1], grInvalidDeviceId);
    /* Prefetches in stream order: to the GPU, then to the host. */
    CHECK_OK(grMemPrefetchAsync(m, 1 << 20, dev_loc(1), 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocation, m, 1 << 20), 1);
    CHECK_OK(grMemPrefetchAsync(m, 1 << 20, host_loc(), 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocation, m, 1 << 20), grCpuDeviceId);
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocationType, m, 1 << 20), grMemLocationTypeHost);
    /* Both attributes at once. */
    int rm = 7, pl = 7;
    void *data[2] = {&rm, &pl};
    size_t sizes[2] = {sizeof rm, sizeof pl};
    grMemRangeAttribute attrs[2] = {grMemRangeAttributeReadMostly, grMemRangeAttributePreferredLocation};
    CHECK_OK(grMemRangeGetAttributes(data, sizes, attrs, 2, m, 1 << 20));
    CHECK_EQ(rm, 0);
    CHECK_EQ(pl, 1);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(m));
}

GR_TEST(gpu_managed_hints_take_a_stream_of_the_memorys_side)
{
    grStream_t gpu, cpu;
    void *m = NULL, *c = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreate(&gpu));
    CHECK_OK(grMallocManaged(&m, 4096, grMemAttachGlobal));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu));
    CHECK_OK(grMallocManaged(&c, 4096, grMemAttachGlobal));
    CHECK_GR(grErrorNotSupported, grMemPrefetchAsync(m, 4096, dev_loc(1), 0, cpu));
    CHECK_DETAIL_HAS("stream of a GPU");
    CHECK_GR(grErrorNotSupported, grMemPrefetchAsync(c, 4096, dev_loc(0), 0, gpu));
    CHECK_DETAIL_HAS("CPU device's managed memory");
    /* The CPU device's managed memory still refuses a GPU location. */
    CHECK_GR(grErrorInvalidDevice, grMemAdvise(c, 4096, grMemAdviseSetPreferredLocation, dev_loc(1)));
    /* A batch is all one side's. */
    void *ptrs[2] = {m, c};
    size_t sizes[2] = {4096, 4096};
    grMemLocation locs[1] = {host_loc()};
    size_t idxs[1] = {0};
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idxs, 1, 0, gpu));
    CHECK_DETAIL_HAS("all the CPU device's or all GPUs'");
    CHECK_OK(grStreamDestroy(cpu));
    CHECK_OK(grFree(c));
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamDestroy(gpu));
    CHECK_OK(grFree(m));
}

GR_TEST(gpu_managed_batch_prefetch_reaches_every_range)
{
    grStream_t s;
    void *a = NULL, *b = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocManaged(&a, 1 << 16, grMemAttachGlobal));
    CHECK_OK(grMallocManaged(&b, 1 << 16, grMemAttachGlobal));
    void *ptrs[2] = {a, b};
    size_t sizes[2] = {1 << 16, 1 << 16};
    grMemLocation locs[2] = {dev_loc(1), host_loc()};
    size_t idxs[2] = {0, 1};
    CHECK_OK(grMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idxs, 2, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocation, a, 1 << 16), 1);
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocation, b, 1 << 16), grCpuDeviceId);
    CHECK_OK(grMemDiscardBatchAsync(ptrs, sizes, 2, 0, s));
    CHECK_OK(grMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 2, locs, idxs, 1, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocation, b, 1 << 16), 1);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}

GR_TEST(gpu_managed_kernel_writes_what_the_host_reads)
{
    grStream_t s;
    unsigned *m = NULL;
    unsigned n = 4096, v = 0x5eed;
    tl_use_gpu_or_skip();
    grKernel_t k = tl_ptx_kernel("gr_test_fill");
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocManaged((void **)&m, n * sizeof *m, grMemAttachGlobal));
    memset(m, 0, n * sizeof *m); /* the host writes it first */
    CHECK_OK(grMemPrefetchAsync(m, n * sizeof *m, dev_loc(1), 0, s));
    void *args[] = {&m, &v, &n};
    CHECK_OK(grLaunchKernel(k, GR_DIM3((n + 127) / 128, 1, 1), GR_DIM3(128, 1, 1), args, 0, s));
    CHECK_OK(grMemPrefetchAsync(m, n * sizeof *m, host_loc(), 0, s));
    CHECK_OK(grStreamSynchronize(s));
    for (unsigned i = 0; i < n; i++)
        if (m[i] != v)
            CHECK_EQ(m[i], v);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(m));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_managed_calls_the_device_refuses_change_nothing)
{
    grStream_t s;
    void *m = NULL;
    tl_use_gpu_or_skip();
    if (!gr_test_fake_device())
        GR_TEST_SKIP("needs the fake device's injected failures");
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocManaged(&m, 4096, grMemAttachGlobal));
    gr_fakedev_fail("mem_advise", grErrorInvalidValue, 0);
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 4096, grMemAdviseSetReadMostly, dev_loc(1)));
    CHECK_DETAIL_HAS("mem_advise");
    gr_fakedev_fail("mem_prefetch", grErrorInvalidValue, 0);
    CHECK_GR(grErrorInvalidValue, grMemPrefetchAsync(m, 4096, dev_loc(1), 0, s));
    gr_fakedev_clear();
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(range_int(grMemRangeAttributeReadMostly, m, 4096), 0);
    CHECK_EQ(range_int(grMemRangeAttributeLastPrefetchLocation, m, 4096), grInvalidDeviceId);
    /* graphrt's checks come before the device's. */
    unsigned calls = gr_fakedev_calls("mem_advise");
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 8192, grMemAdviseSetReadMostly, dev_loc(1)));
    CHECK_GR(grErrorInvalidDevice, grMemAdvise(m, 4096, grMemAdviseSetPreferredLocation, dev_loc(99)));
    CHECK_EQ(gr_fakedev_calls("mem_advise"), calls);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(m));
}

GR_TEST(host_register_pins_with_the_device_where_a_gpu_exists)
{
    size_t size = 1 << 20;
    void *p = NULL, *dp = NULL;
    unsigned *d = NULL;
    tl_use_gpu_or_skip();
    CHECK(posix_memalign(&p, 4096, size) == 0);
    memset(p, 3, size);
    unsigned reg = gr_fakedev_calls("host_register"), unreg = gr_fakedev_calls("host_unregister");
    CHECK_OK(grHostRegister(p, size, grHostRegisterDefault));
    CHECK_OK(grHostGetDevicePointer(&dp, p, 0));
    CHECK_PTR_EQ(dp, p); /* unified addressing */
    CHECK_OK(grMalloc((void **)&d, size));
    CHECK_OK(grMemcpy(d, p, size, grMemcpyHostToDevice));
    memset(p, 0, size);
    CHECK_OK(grMemcpy(p, d, size, grMemcpyDeviceToHost));
    CHECK_EQ(((unsigned char *)p)[size - 1], 3);
    CHECK_OK(grHostUnregister(p));
    if (gr_test_fake_device()) {
        CHECK_EQ(gr_fakedev_calls("host_register"), reg + 1);
        CHECK_EQ(gr_fakedev_calls("host_unregister"), unreg + 1);
        /* A range the device refuses is not registered. */
        gr_fakedev_fail("host_register", grErrorMemoryAllocation, 0);
        CHECK_GR(grErrorMemoryAllocation, grHostRegister(p, size, grHostRegisterDefault));
        gr_fakedev_clear();
        CHECK_GR(grErrorHostMemoryNotRegistered, grHostUnregister(p));
        CHECK_OK(grHostRegister(p, size, grHostRegisterMapped));
        CHECK_OK(grHostUnregister(p));
    }
    CHECK_OK(grFree(d));
    free(p);
}
