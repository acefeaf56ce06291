/*
 * test-devices.c - behaviours that hold on every device, each run on the
 * CPU (device 0) and on the first GPU (device 1, skipped saying why where
 * there is none): copies and memsets in stream order, bounds checks,
 * event waits across streams, the synchronous forms, the per-thread
 * stream, stream-ordered allocation, and capture.
 */
#include "testlib.h"

#include <stdatomic.h>

/* GR_TEST_EACH_DEVICE(name) { body using 'device' }: two tests,
 * name_on_the_cpu and name_on_a_gpu, the body run with 'device' current. */
#define GR_TEST_EACH_DEVICE(name)                                      \
    static void name##_body(int device);                               \
    GR_TEST(name##_on_the_cpu)                                         \
    {                                                                  \
        CHECK_OK(grSetDevice(0));                                      \
        name##_body(0);                                                \
    }                                                                  \
    GR_TEST(name##_on_a_gpu)                                           \
    {                                                                  \
        if (grSetDevice(1) != grSuccess)                               \
            GR_TEST_SKIP("no GPU device: %s", grGetLastErrorDetail()); \
        name##_body(1);                                                \
    }                                                                  \
    static void name##_body(int device __attribute__((unused)))

typedef struct probe {
    const unsigned char *h;
    int at_call;
    atomic_int ran;
} probe;

static void read_byte(void *p)
{
    probe *w = p;
    w->at_call = w->h[7];
    atomic_store(&w->ran, 1);
}

GR_TEST_EACH_DEVICE(copies_memsets_and_host_functions_keep_stream_order)
{
    enum {
        N = 4096
    };
    unsigned char *h = NULL;
    probe w = {NULL, -1, 0};
    grStream_t s = tl_stream(0);
    CHECK_OK(grMallocHost((void **)&h, N));
    void *d = tl_malloc(N);
    memset(h, 0, N);
    w.h = h;
    CHECK_OK(grMemsetAsync(d, 0x21, N, s));
    CHECK_OK(grMemcpyAsync(h, d, N, grMemcpyDeviceToHost, s));
    CHECK_OK(grLaunchHostFunc(s, read_byte, &w));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamQuery(s));
    CHECK_EQ(atomic_load(&w.ran), 1);
    CHECK_EQ(w.at_call, 0x21);
    CHECK_EQ(h[N - 1], 0x21);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

GR_TEST_EACH_DEVICE(out_of_bounds_copies_and_memsets_are_refused)
{
    unsigned char h[256];
    void *d = tl_malloc(100);
    CHECK_REFUSED(grErrorInvalidValue, grMemcpy, d, h, 101, grMemcpyHostToDevice);
    CHECK_DETAIL_HAS("runs 1 bytes past its end");
    CHECK_REFUSED(grErrorInvalidValue, grMemsetAsync, (char *)d + 50, 0, 51, NULL);
    CHECK_GR(grErrorInvalidValue, grMemcpy(h, (char *)d + 99, 2, grMemcpyDeviceToHost));
    CHECK_DETAIL_HAS("source");
    CHECK_OK(grFree(d));
}

GR_TEST_EACH_DEVICE(a_stream_waiting_on_an_event_sees_the_work_before_it)
{
    enum {
        N = 1 << 20
    };
    unsigned char *h = NULL;
    grStream_t a, b;
    grEvent_t e;
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grMallocHost((void **)&h, N));
    void *d = tl_malloc(N);
    CHECK_OK(grMemsetAsync(d, 0x42, N, a));
    CHECK_OK(grEventRecord(e, a));
    CHECK_OK(grStreamWaitEvent(b, e, 0));
    CHECK_OK(grMemcpyAsync(h, d, N, grMemcpyDeviceToHost, b));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grEventQuery(e));
    CHECK_EQ(h[0], 0x42);
    CHECK_EQ(h[N - 1], 0x42);
    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

GR_TEST_EACH_DEVICE(synchronous_forms_and_the_per_thread_stream_complete_before_returning)
{
    unsigned char h[64];
    memset(h, 0, sizeof h);
    void *d = tl_malloc(sizeof h);
    CHECK_OK(grMemset(d, 0x13, sizeof h));
    CHECK_OK(grMemcpy(h, d, sizeof h, grMemcpyDeviceToHost));
    CHECK_EQ(h[63], 0x13);
    CHECK_OK(grMemsetAsync(d, 0x14, sizeof h, grStreamPerThread));
    CHECK_OK(grMemcpyAsync(h, d, sizeof h, grMemcpyDeviceToHost, grStreamPerThread));
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
    CHECK_EQ(h[0], 0x14);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFree(d));
}

GR_TEST_EACH_DEVICE(events_time_and_wait_for_recorded_work)
{
    grEvent_t a, b;
    float ms = -1;
    grStream_t s = tl_stream(0);
    CHECK_OK(grEventCreate(&a));
    CHECK_OK(grEventCreate(&b));
    void *d = tl_malloc(1 << 20);
    CHECK_OK(grEventQuery(a)); /* never recorded: complete */
    CHECK_OK(grEventRecord(a, s));
    CHECK_OK(grMemsetAsync(d, 0, 1 << 20, s));
    CHECK_OK(grEventRecord(b, s));
    CHECK_OK(grEventSynchronize(b));
    CHECK_OK(grEventElapsedTime(&ms, a, b));
    CHECK(ms >= 0.0f);
    CHECK_OK(grEventDestroy(a));
    CHECK_OK(grEventDestroy(b));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
}

GR_TEST_EACH_DEVICE(stream_ordered_allocations_are_bounds_checked_and_usable)
{
    enum {
        N = 8192
    };
    unsigned char *h = NULL;
    void *d = NULL;
    grStream_t s = tl_stream(0);
    CHECK_OK(grMallocHost((void **)&h, N));
    CHECK_OK(grMallocAsync(&d, N, s));
    CHECK_GR(grErrorInvalidValue, grMemsetAsync(d, 0, N + 1, s));
    CHECK_OK(grMemsetAsync(d, 0x66, N, s));
    CHECK_OK(grMemcpyAsync(h, d, N, grMemcpyDeviceToHost, s));
    CHECK_OK(grFreeAsync(d, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(h[N / 2], 0x66);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFreeHost(h));
}

static void never_runs(void *p)
{
    atomic_store((atomic_int *)p, 1);
}

GR_TEST_EACH_DEVICE(capture_records_nodes_and_runs_nothing)
{
    grGraph_t g = NULL;
    grGraphNode_t nodes[8];
    size_t n = 8;
    void *a = NULL, *b = NULL;
    atomic_int ran = 0;
    grStreamCaptureStatus st;
    grStream_t s = tl_stream(0);
    CHECK_OK(grMalloc(&a, 512));
    CHECK_OK(grMalloc(&b, 512));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeThreadLocal));
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK_OK(grMemsetAsync(a, 7, 512, s));
    CHECK_OK(grMemcpyAsync(b, a, 512, grMemcpyDeviceToDevice, s));
    CHECK_OK(grLaunchHostFunc(s, never_runs, &ran));
    /* The capture rules hold on every device. */
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamSynchronize(s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeThreadLocal));
    CHECK_OK(grMemsetAsync(a, 7, 512, s));
    CHECK_OK(grMemcpyAsync(b, a, 512, grMemcpyDeviceToDevice, s));
    CHECK_OK(grLaunchHostFunc(s, never_runs, &ran));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK_EQ(n, 3);
    CHECK_EQ(atomic_load(&ran), 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}
