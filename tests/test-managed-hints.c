/*
 * test-managed-hints.c - grMemAdvise, the prefetches and discards, and the
 * range attributes on the CPU device: CUDA's checks, the advice and last
 * prefetch answered back, the prefetch recorded in stream order, and a
 * capturing stream refused with its capture invalidated.
 */
#include "testlib.h"

#include <stdatomic.h>

static const grMemLocation cpu_dev = {grMemLocationTypeDevice, 0};
static const grMemLocation host = {grMemLocationTypeHost, 0};

static int attr(grMemRangeAttribute a, const void *p, size_t n)
{
    int v = 12345;
    CHECK_OK(grMemRangeGetAttribute(&v, sizeof v, a, p, n));
    return v;
}

GR_TEST(managed_advice_is_answered_back)
{
    char *m = NULL;
    CHECK_OK(grMallocManaged((void **)&m, 4096, grMemAttachGlobal));
    CHECK_EQ(attr(grMemRangeAttributeReadMostly, m, 4096), 0);
    CHECK_EQ(attr(grMemRangeAttributePreferredLocation, m, 4096), grInvalidDeviceId);
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, m, 16), grInvalidDeviceId);
    CHECK_EQ(attr(grMemRangeAttributePreferredLocationType, m, 16), grMemLocationTypeInvalid);

    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_EQ(attr(grMemRangeAttributeReadMostly, m + 100, 8), 1);
    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseUnsetReadMostly, cpu_dev));
    CHECK_EQ(attr(grMemRangeAttributeReadMostly, m, 4096), 0);

    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseSetPreferredLocation, host));
    CHECK_EQ(attr(grMemRangeAttributePreferredLocation, m, 4096), grCpuDeviceId);
    CHECK_EQ(attr(grMemRangeAttributePreferredLocationType, m, 4096), grMemLocationTypeHost);
    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseSetPreferredLocation, cpu_dev));
    CHECK_EQ(attr(grMemRangeAttributePreferredLocation, m, 4096), 0);
    CHECK_EQ(attr(grMemRangeAttributePreferredLocationType, m, 4096), grMemLocationTypeDevice);
    CHECK_EQ(attr(grMemRangeAttributePreferredLocationId, m, 4096), 0);
    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseUnsetPreferredLocation, cpu_dev));
    CHECK_EQ(attr(grMemRangeAttributePreferredLocation, m, 4096), grInvalidDeviceId);

    int by[3] = {7, 7, 7};
    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseSetAccessedBy, cpu_dev));
    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseSetAccessedBy, host));
    CHECK_OK(grMemRangeGetAttribute(by, sizeof by, grMemRangeAttributeAccessedBy, m, 4096));
    CHECK_EQ(by[0], grCpuDeviceId);
    CHECK_EQ(by[1], 0);
    CHECK_EQ(by[2], grInvalidDeviceId);
    CHECK_OK(grMemAdvise(m, 4096, grMemAdviseUnsetAccessedBy, host));
    CHECK_OK(grMemRangeGetAttribute(by, sizeof by, grMemRangeAttributeAccessedBy, m, 4096));
    CHECK_EQ(by[0], 0);
    CHECK_EQ(by[1], grInvalidDeviceId);

    /* Several at once. */
    int rm = -1, pl = -1;
    void *data[2] = {&rm, &pl};
    size_t sizes[2] = {4, 4};
    grMemRangeAttribute as[2] = {grMemRangeAttributeReadMostly, grMemRangeAttributePreferredLocation};
    CHECK_OK(grMemAdvise(m, 1, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_OK(grMemRangeGetAttributes(data, sizes, as, 2, m, 4096));
    CHECK_EQ(rm, 1);
    CHECK_EQ(pl, grInvalidDeviceId);
    CHECK_OK(grFree(m));
}

GR_TEST(managed_advice_refuses_cuda_errors)
{
    char *m = NULL, *plain = NULL;
    static char pageable[64];
    CHECK_OK(grMallocManaged((void **)&m, 256, grMemAttachGlobal));
    CHECK_OK(grMalloc((void **)&plain, 256));
    CHECK_GR(grErrorInvalidValue, grMemAdvise(NULL, 8, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_DETAIL_HAS("NULL");
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 0, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_DETAIL_HAS("is 0");
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 257, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_DETAIL_HAS("runs past the end");
    CHECK_GR(grErrorInvalidValue, grMemAdvise(plain, 8, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_DETAIL_HAS("grMallocManaged");
    CHECK_GR(grErrorInvalidValue, grMemAdvise(pageable, 8, grMemAdviseSetReadMostly, cpu_dev));
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 8, (grMemoryAdvise)7, cpu_dev));
    CHECK_DETAIL_HAS("not a grMemoryAdvise");
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 8, (grMemoryAdvise)0, cpu_dev));
    grMemLocation bad = {(grMemLocationType)9, 0};
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 8, grMemAdviseSetPreferredLocation, bad));
    CHECK_DETAIL_HAS("type 9");
    grMemLocation numa = {grMemLocationTypeHostNuma, 0};
    CHECK_OK(grMemAdvise(m, 8, grMemAdviseSetPreferredLocation, numa));
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 8, grMemAdviseSetAccessedBy, numa));
    CHECK_DETAIL_HAS("accessed-by");
    grMemLocation numa7 = {grMemLocationTypeHostNuma, 7};
    CHECK_GR(grErrorInvalidValue, grMemAdvise(m, 8, grMemAdviseSetPreferredLocation, numa7));
    CHECK_DETAIL_HAS("NUMA node 7");
    grMemLocation nodev = {grMemLocationTypeDevice, 99};
    CHECK_GR(grErrorInvalidDevice, grMemAdvise(m, 8, grMemAdviseSetPreferredLocation, nodev));
    CHECK_DETAIL_HAS("names no device");
    /* Read-mostly ignores the location, as in CUDA. */
    CHECK_OK(grMemAdvise(m, 8, grMemAdviseSetReadMostly, nodev));
    /* A refused advice changed nothing. */
    CHECK_EQ(attr(grMemRangeAttributePreferredLocationType, m, 8), grMemLocationTypeHostNuma);
    CHECK_OK(grFree(m));
    CHECK_OK(grFree(plain));
}

GR_TEST(managed_range_attribute_refuses_bad_sizes_and_memory)
{
    char *m = NULL;
    int v[2];
    CHECK_OK(grMallocManaged((void **)&m, 128, grMemAttachHost));
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(NULL, 4, grMemRangeAttributeReadMostly, m, 8));
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 8, grMemRangeAttributeReadMostly, m, 8));
    CHECK_DETAIL_HAS("takes 4 bytes");
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 6, grMemRangeAttributeAccessedBy, m, 8));
    CHECK_DETAIL_HAS("multiple of 4");
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 0, grMemRangeAttributeAccessedBy, m, 8));
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 4, (grMemRangeAttribute)9, m, 8));
    CHECK_DETAIL_HAS("not a grMemRangeAttribute");
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 4, grMemRangeAttributeReadMostly, v, 8));
    CHECK_DETAIL_HAS("grMallocManaged");
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 4, grMemRangeAttributeReadMostly, m, 0));
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttributes(NULL, NULL, NULL, 1, m, 8));
    void *d[1] = {v};
    size_t sz[1] = {4};
    grMemRangeAttribute a[1] = {grMemRangeAttributeReadMostly};
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttributes(d, sz, a, 0, m, 8));
    CHECK_DETAIL_HAS("numAttributes is 0");
    CHECK_OK(grFree(m));
    /* Freed memory is no longer managed memory. */
    CHECK_GR(grErrorInvalidValue, grMemRangeGetAttribute(v, 4, grMemRangeAttributeReadMostly, m, 8));
}

GR_TEST(managed_prefetch_is_recorded_in_stream_order)
{
    char *m = NULL;
    atomic_int gate = 0;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMallocManaged((void **)&m, 1024, grMemAttachGlobal));
    memset(m, 0x5a, 1024);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grMemPrefetchAsync(m, 1024, host, 0, s));
    /* Queued behind the gate: not reached yet. */
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, m, 1024), grInvalidDeviceId);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, m, 1024), grCpuDeviceId);
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocationType, m, 1024), grMemLocationTypeHost);
    CHECK_OK(grMemPrefetchAsync(m + 10, 20, cpu_dev, 0, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, m, 1024), 0);
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocationId, m, 1024), 0);
    /* Nothing moved: the bytes are as they were. */
    CHECK_EQ((unsigned char)m[1023], 0x5a);
    CHECK_EQ(tl_gate_timeouts, 0);
    CHECK_OK(grFree(m));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(managed_prefetch_refuses_cuda_errors)
{
    char *m = NULL;
    grStream_t s = tl_stream(0);
    CHECK_OK(grMallocManaged((void **)&m, 64, grMemAttachGlobal));
    CHECK_GR(grErrorInvalidValue, grMemPrefetchAsync(m, 64, host, 1, s));
    CHECK_DETAIL_HAS("flags");
    CHECK_GR(grErrorInvalidValue, grMemPrefetchAsync(m, 65, host, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemPrefetchAsync(m, 0, host, 0, s));
    grMemLocation none = {grMemLocationTypeInvalid, 0};
    CHECK_GR(grErrorInvalidValue, grMemPrefetchAsync(m, 64, none, 0, s));
    grMemLocation nodev = {grMemLocationTypeDevice, -3};
    CHECK_GR(grErrorInvalidDevice, grMemPrefetchAsync(m, 64, nodev, 0, s));
    grMemLocation cur = {grMemLocationTypeHostNumaCurrent, 0};
    CHECK_OK(grMemPrefetchAsync(m, 64, cur, 0, s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_GR(grErrorInvalidResourceHandle, grMemPrefetchAsync(m, 64, host, 0, s));
    CHECK_OK(grFree(m));
}

GR_TEST(managed_prefetch_and_discard_invalidate_a_capture)
{
    char *m = NULL;
    grGraph_t g = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    void *ptrs[1];
    size_t sizes[1] = {64};
    CHECK_OK(grMallocManaged((void **)&m, 64, grMemAttachGlobal));
    ptrs[0] = m;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    /* A bad argument is refused first and leaves the capture valid. */
    CHECK_GR(grErrorInvalidValue, grMemPrefetchAsync(m, 64, host, 1, s));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
    CHECK_GR(grErrorStreamCaptureUnsupported, grMemPrefetchAsync(m, 64, host, 0, s));
    CHECK_DETAIL_HAS("cannot be captured");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK(g == NULL);

    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_GR(grErrorStreamCaptureUnsupported, grMemDiscardBatchAsync(ptrs, sizes, 1, 0, s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    /* The refused prefetch recorded nothing. */
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, m, 64), grInvalidDeviceId);
    CHECK_OK(grFree(m));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(managed_batches_check_everything_first)
{
    char *a = NULL, *b = NULL, *plain = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMallocManaged((void **)&a, 256, grMemAttachGlobal));
    CHECK_OK(grMallocManaged((void **)&b, 256, grMemAttachGlobal));
    CHECK_OK(grMalloc((void **)&plain, 256));
    void *ptrs[3] = {a, b, a + 128};
    size_t sizes[3] = {256, 256, 128};
    grMemLocation locs[2] = {host, cpu_dev};
    size_t idxs[2] = {0, 1};
    /* Location 0 for range 0, location 1 for ranges 1 and 2. */
    CHECK_OK(grMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, b, 256), 0);
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocationType, b, 256), grMemLocationTypeDevice);

    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 0, locs, idxs, 2, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 1, s));
    CHECK_DETAIL_HAS("flags");
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 3, NULL, idxs, 2, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 4, 0, s));
    CHECK_DETAIL_HAS("numPrefetchLocs");
    size_t bad_first[2] = {1, 2};
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 3, locs, bad_first, 2, 0, s));
    CHECK_DETAIL_HAS("must start at range 0");
    size_t not_up[2] = {0, 0};
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 3, locs, not_up, 2, 0, s));
    CHECK_DETAIL_HAS("strictly increasing");
    size_t past[2] = {0, 3};
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(ptrs, sizes, 3, locs, past, 2, 0, s));

    /* A bad last range refuses the batch: the first range's prefetch is
     * not recorded. */
    void *mixed[2] = {a, plain};
    size_t msizes[2] = {8, 8};
    grMemLocation one[1] = {cpu_dev};
    size_t zero[1] = {0};
    CHECK_GR(grErrorInvalidValue, grMemPrefetchBatchAsync(mixed, msizes, 2, one, zero, 1, 0, s));
    CHECK_DETAIL_HAS("dptrs[1]");
    CHECK_OK(grStreamSynchronize(s));
    /* a's last prefetch is range 2's (location 1), kept per allocation. */
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, a, 256), 0);
    CHECK_OK(grMemPrefetchAsync(a, 8, host, 0, s));
    CHECK_OK(grStreamSynchronize(s));

    CHECK_OK(grMemDiscardBatchAsync(ptrs, sizes, 3, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemDiscardBatchAsync(mixed, msizes, 2, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemDiscardBatchAsync(ptrs, sizes, 3, 2, s));
    CHECK_GR(grErrorInvalidValue, grMemDiscardBatchAsync(NULL, sizes, 3, 0, s));
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, a, 256), grCpuDeviceId);
    CHECK_OK(grMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 1, one, zero, 1, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(attr(grMemRangeAttributeLastPrefetchLocation, a, 256), 0);
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grFree(plain));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(managed_hints_refuse_a_gpu)
{
    char *m = NULL;
    int gpu = tl_use_gpu_or_skip();
    grStream_t s = tl_stream(0);
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grMallocManaged((void **)&m, 64, grMemAttachGlobal));
    grMemLocation g = {grMemLocationTypeDevice, gpu};
    CHECK_GR(grErrorInvalidDevice, grMemAdvise(m, 64, grMemAdviseSetPreferredLocation, g));
    CHECK_DETAIL_HAS("is a GPU");
    CHECK_GR(grErrorNotSupported, grMemPrefetchAsync(m, 64, host, 0, s));
    CHECK_DETAIL_HAS("a GPU");
    CHECK_OK(grFree(m));
    CHECK_OK(grSetDevice(gpu));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grSetDevice(0));
}
