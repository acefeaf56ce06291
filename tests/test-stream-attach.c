/*
 * test-stream-attach.c - grStreamAttachMemAsync: CUDA's rules for the
 * memory, length and flags are checked, a valid association changes
 * nothing (every CPU stream keeps reaching the memory), and a capturing
 * stream's capture is invalidated.
 */
#include "testlib.h"

static void add_one(void *p)
{
    (*(int *)p)++;
}

GR_TEST(stream_attach_accepts_whole_allocations_with_each_flag)
{
    grStream_t s, other;
    int *dev = NULL, *host = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamCreate(&other));
    CHECK_OK(grMalloc((void **)&dev, 1000));
    CHECK_OK(grMallocHost((void **)&host, 64));
    CHECK_OK(grStreamAttachMemAsync(s, dev, 0, grMemAttachSingle));
    CHECK_OK(grStreamAttachMemAsync(s, dev, 1000, grMemAttachGlobal));
    CHECK_OK(grStreamAttachMemAsync(s, host, 64, grMemAttachHost));
    CHECK_OK(grStreamAttachMemAsync(grStreamPerThread, dev, 0, grMemAttachSingle));
    CHECK_OK(grStreamAttachMemAsync(NULL, dev, 0, grMemAttachGlobal));
    /* Attached singly to s, the memory is still reached from another
     * stream: the association changes nothing on the CPU. */
    CHECK_OK(grStreamAttachMemAsync(s, dev, 0, grMemAttachSingle));
    dev[0] = 41;
    CHECK_OK(grLaunchHostFunc(other, add_one, dev));
    CHECK_OK(grStreamSynchronize(other));
    CHECK_EQ(dev[0], 42);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grFree(dev));
    CHECK_OK(grFreeHost(host));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(other));
}

GR_TEST(stream_attach_accepts_pool_and_untracked_host_memory)
{
    void *p = NULL;
    static char pageable[4096];
    grStream_t s = tl_stream(0);
    CHECK_OK(grMallocAsync(&p, 300, s));
    CHECK_OK(grStreamAttachMemAsync(s, p, 0, grMemAttachSingle));
    CHECK_OK(grStreamAttachMemAsync(s, pageable, sizeof pageable, grMemAttachGlobal));
    CHECK_OK(grStreamAttachMemAsync(s, pageable + 100, 10, grMemAttachSingle));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_attach_refuses_bad_flags_pointers_and_lengths)
{
    static char pageable[64];
    grStream_t s = tl_stream(0);
    char *dev = tl_malloc(1024);
    CHECK_REFUSED(grErrorInvalidValue, grStreamAttachMemAsync, s, NULL, 0, grMemAttachGlobal);
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev, 0, 0));
    CHECK_DETAIL_HAS("flags");
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev, 0, grMemAttachGlobal | grMemAttachHost));
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev, 0, 8));
    /* Part of an allocation. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev + 16, 0, grMemAttachGlobal));
    CHECK_DETAIL_HAS("pass its start");
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev, 512, grMemAttachGlobal));
    CHECK_DETAIL_HAS("neither 0 nor the size");
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev, 2048, grMemAttachGlobal));
    /* Pageable memory needs a length. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, pageable, 0, grMemAttachGlobal));
    CHECK_DETAIL_HAS("must not be 0");
    /* Singly to the legacy stream, which is no single stream. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(NULL, dev, 0, grMemAttachSingle));
    CHECK_DETAIL_HAS("legacy stream");
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(grStreamLegacy, dev, 0, grMemAttachSingle));
    CHECK_OK(grFree(dev));
    CHECK_OK(grStreamDestroy(s));
    CHECK_GR(grErrorInvalidResourceHandle, grStreamAttachMemAsync(s, pageable, 8, grMemAttachGlobal));
}

GR_TEST(stream_attach_refuses_a_range_reaching_into_an_allocation)
{
    grStream_t s = tl_stream(0);
    char *dev = tl_malloc(256);
    /* Starts before the allocation (untracked) and runs into it. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev - 64, 128, grMemAttachGlobal));
    CHECK_OK(grFree(dev));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_attach_on_a_capturing_stream_invalidates_the_capture)
{
    grStream_t s;
    grGraph_t g = (grGraph_t)(uintptr_t)1;
    grStreamCaptureStatus st;
    int *dev = tl_malloc(64);
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    /* Bad arguments are refused first and leave the capture valid. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, dev, 0, 0));
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK_REFUSED(grErrorStreamCaptureUnsupported, grStreamAttachMemAsync, s, dev, 0, grMemAttachGlobal);
    CHECK_DETAIL_HAS("cannot be captured");
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamAttachMemAsync(s, dev, 0, grMemAttachGlobal));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_PTR_EQ(g, NULL);
    CHECK_OK(grStreamAttachMemAsync(s, dev, 0, grMemAttachSingle));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(dev));
}

GR_TEST(stream_attach_on_the_legacy_stream_is_refused_while_a_blocking_stream_captures)
{
    int *dev = tl_malloc(64);
    grStream_t s = tl_capturing_stream(0, grStreamCaptureModeRelaxed); /* blocking */
    CHECK_GR(grErrorStreamCaptureImplicit, grStreamAttachMemAsync(NULL, dev, 0, grMemAttachGlobal));
    tl_end_invalidated(s);
    CHECK_OK(grFree(dev));
}

GR_TEST(gpu_stream_attach_is_the_devices)
{
    grStream_t s, cpu;
    void *m = NULL;
    if (grSetDevice(1) != grSuccess)
        GR_TEST_SKIP("no GPU device: %s", grGetLastErrorDetail());
    CHECK_OK(grStreamCreate(&s));
    void *d = tl_malloc(256);
    CHECK_OK(grMallocManaged(&m, 256, grMemAttachHost));
    CHECK_OK(grStreamAttachMemAsync(s, m, 0, grMemAttachSingle));
    CHECK_OK(grStreamAttachMemAsync(s, m, 256, grMemAttachGlobal));
    CHECK_OK(grStreamSynchronize(s));
    /* The whole allocation, as on the CPU device. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, (char *)m + 16, 0, grMemAttachGlobal));
    /* A GPU's managed memory is the driver's to associate: not on a
     * stream of the CPU device. */
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamCreate(&cpu));
    CHECK_GR(grErrorNotSupported, grStreamAttachMemAsync(cpu, m, 0, grMemAttachGlobal));
    CHECK_DETAIL_HAS("stream of a GPU");
    CHECK_OK(grStreamDestroy(cpu));
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grFree(m));
    /* A GPU's device memory is not managed memory, on any stream. */
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(s, d, 0, grMemAttachGlobal));
    CHECK_OK(grSetDevice(0));
    CHECK_GR(grErrorInvalidValue, grStreamAttachMemAsync(NULL, d, 0, grMemAttachGlobal));
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grFree(d));
    CHECK_OK(grStreamDestroy(s));
}
