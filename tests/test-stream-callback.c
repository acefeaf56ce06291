/*
 * test-stream-callback.c - grStreamAddCallback: the callback runs once, in
 * stream order, with the stream handle as passed and the stream's status;
 * bad arguments and capturing streams are refused, and a refused call
 * queues nothing.
 */
#include "testlib.h"

#include <stdatomic.h>
#include <time.h>

/* What the host functions and callbacks of a test saw, in order. */
static struct {
    atomic_int n;
    int who[16];
    grStream_t stream[16];
    grError_t status[16];
    void *user[16];
} seen;

static void seen_reset(void)
{
    memset(&seen, 0, sizeof seen);
}

static void note_host(void *user)
{
    int i = atomic_fetch_add(&seen.n, 1);
    seen.who[i] = (int)(intptr_t)user;
}

static void note_callback(grStream_t stream, grError_t status, void *user)
{
    int i = atomic_fetch_add(&seen.n, 1);
    seen.who[i] = -1;
    seen.stream[i] = stream;
    seen.status[i] = status;
    seen.user[i] = user;
}

GR_TEST(stream_callback_runs_once_in_stream_order_with_its_arguments)
{
    grStream_t s;
    static int token;
    seen_reset();
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grLaunchHostFunc(s, note_host, (void *)(intptr_t)1));
    CHECK_OK(grStreamAddCallback(s, note_callback, &token, 0));
    CHECK_OK(grLaunchHostFunc(s, note_host, (void *)(intptr_t)2));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&seen.n), 3);
    CHECK_EQ(seen.who[0], 1);
    CHECK_EQ(seen.who[1], -1);
    CHECK_EQ(seen.who[2], 2);
    CHECK_PTR_EQ(seen.stream[1], s);
    CHECK_EQ(seen.status[1], grSuccess);
    CHECK_PTR_EQ(seen.user[1], &token);
    CHECK_OK(grStreamDestroy(s));
}

/* A callback that holds its stream until released: later work waits. */
static atomic_int gate_open, gate_entered;
static void gate_callback(grStream_t stream, grError_t status, void *user)
{
    (void)stream;
    (void)status;
    (void)user;
    atomic_store(&gate_entered, 1);
    for (int i = 0; i < 10000 && !atomic_load(&gate_open); i++) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

GR_TEST(stream_callback_blocks_later_work_of_its_stream_until_it_returns)
{
    grStream_t s;
    seen_reset();
    atomic_store(&gate_open, 0);
    atomic_store(&gate_entered, 0);
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamAddCallback(s, gate_callback, NULL, 0));
    CHECK_OK(grLaunchHostFunc(s, note_host, (void *)(intptr_t)7));
    for (int i = 0; i < 10000 && !atomic_load(&gate_entered); i++) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    CHECK_EQ(atomic_load(&gate_entered), 1);
    CHECK_GR(grErrorNotReady, grStreamQuery(s));
    CHECK_EQ(atomic_load(&seen.n), 0);
    atomic_store(&gate_open, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&seen.n), 1);
    CHECK_EQ(seen.who[0], 7);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_callback_receives_the_default_stream_handles_as_passed)
{
    seen_reset();
    CHECK_OK(grStreamAddCallback(NULL, note_callback, NULL, 0));
    CHECK_OK(grStreamAddCallback(grStreamLegacy, note_callback, NULL, 0));
    CHECK_OK(grStreamAddCallback(grStreamPerThread, note_callback, NULL, 0));
    CHECK_OK(grStreamSynchronize(grStreamLegacy));
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
    CHECK_EQ(atomic_load(&seen.n), 3);
    /* The legacy stream's two ran in order; the per-thread stream's is
     * unordered against them, so look it up. */
    int legacy[2], nl = 0, per_thread = 0;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(seen.status[i], grSuccess);
        if (seen.stream[i] == grStreamPerThread)
            per_thread++;
        else
            legacy[nl++] = i;
    }
    CHECK_EQ(per_thread, 1);
    CHECK_EQ(nl, 2);
    CHECK_PTR_EQ(seen.stream[legacy[0]], NULL);
    CHECK_PTR_EQ(seen.stream[legacy[1]], grStreamLegacy);
}

GR_TEST(stream_callback_refuses_a_null_callback_and_nonzero_flags)
{
    grStream_t s;
    seen_reset();
    CHECK_OK(grStreamCreate(&s));
    CHECK_REFUSED(grErrorInvalidValue, grStreamAddCallback, s, NULL, NULL, 0);
    CHECK_DETAIL_HAS("callback");
    CHECK_GR(grErrorInvalidValue, grStreamAddCallback(s, note_callback, NULL, 1));
    CHECK_DETAIL_HAS("must be 0");
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&seen.n), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_GR(grErrorInvalidResourceHandle, grStreamAddCallback(s, note_callback, NULL, 0));
    CHECK_EQ(atomic_load(&seen.n), 0);
}

GR_TEST(stream_callback_on_a_capturing_stream_invalidates_the_capture)
{
    grStream_t s;
    grGraph_t g = (grGraph_t)(uintptr_t)1;
    grStreamCaptureStatus st;
    seen_reset();
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    CHECK_OK(grLaunchHostFunc(s, note_host, (void *)(intptr_t)1));
    CHECK_REFUSED(grErrorStreamCaptureUnsupported, grStreamAddCallback, s, note_callback, NULL, 0);
    CHECK_DETAIL_HAS("grLaunchHostFunc");
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusInvalidated);
    /* Later work, another callback included, meets the invalidated capture. */
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamAddCallback(s, note_callback, NULL, 0));
    CHECK_GR(grErrorStreamCaptureInvalidated, grLaunchHostFunc(s, note_host, NULL));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_PTR_EQ(g, NULL);
    /* Nothing ran; the stream works again once the capture has ended. */
    CHECK_EQ(atomic_load(&seen.n), 0);
    CHECK_OK(grStreamAddCallback(s, note_callback, NULL, 0));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&seen.n), 1);
    CHECK_EQ(seen.who[0], -1);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_callback_on_the_legacy_stream_is_refused_while_a_blocking_stream_captures)
{
    grStream_t s;
    grGraph_t g = NULL;
    seen_reset();
    CHECK_OK(grStreamCreate(&s)); /* blocking */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    CHECK_GR(grErrorStreamCaptureImplicit, grStreamAddCallback(NULL, note_callback, NULL, 0));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&seen.n), 0);
    CHECK_OK(grStreamDestroy(s));
}

/* The GPU path: the driver runs the callback after the work before it. */
typedef struct gpu_seen {
    unsigned char *h;
    int value;
    atomic_int ran;
    grStream_t stream;
} gpu_seen;

static void gpu_read(grStream_t stream, grError_t status, void *user)
{
    gpu_seen *w = user;
    w->value = status == grSuccess ? w->h[0] : -1;
    w->stream = stream;
    atomic_store(&w->ran, 1);
}

GR_TEST(gpu_stream_callback_runs_after_the_work_before_it)
{
    unsigned char *h = NULL;
    void *d = NULL;
    grStream_t s;
    gpu_seen w = {NULL, -2, 0, NULL};
    if (grSetDevice(1) != grSuccess)
        GR_TEST_SKIP("no GPU device: %s", grGetLastErrorDetail());
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocHost((void **)&h, 64));
    CHECK_OK(grMalloc(&d, 64));
    h[0] = 0;
    w.h = h;
    CHECK_OK(grMemsetAsync(d, 0x5a, 64, s));
    CHECK_OK(grMemcpyAsync(h, d, 64, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamAddCallback(s, gpu_read, &w, 0));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&w.ran), 1);
    CHECK_EQ(w.value, 0x5a);
    CHECK_PTR_EQ(w.stream, s);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}
