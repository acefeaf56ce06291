/* test-capture-rules.c - which calls a capture in progress forbids, in
 * each capture mode, from the capturing thread and from another thread,
 * and what becomes of the capture. The expected results are what CUDA 13
 * does on an H200 (tests/test-capture-probe.cu; docs/capture.md). */
#include "testlib.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

enum call {
    C_MALLOC,
    C_FREE,
    C_MALLOC_HOST,
    C_SYNC_OTHER,
    C_QUERY_OTHER,
    C_EVENT_SYNC_PLAIN,
    C_EVENT_QUERY_PLAIN,
    C_SYNC_CAPTURING,
    C_QUERY_CAPTURING,
    C_DEVICE_SYNC,
    C_EVENT_QUERY_CAPTURED,
    C_EVENT_SYNC_CAPTURED,
    C_MEMCPY,
    C_MEMSET,
    C_NCALLS
};

static const char *call_name[C_NCALLS] = {"grMalloc",      "grFree",
                                          "grMallocHost",  "grStreamSynchronize",
                                          "grStreamQuery", "grEventSynchronize",
                                          "grEventQuery",  "grStreamSynchronize",
                                          "grStreamQuery", "grDeviceSynchronize",
                                          "grEventQuery",  "grEventSynchronize",
                                          "grMemcpy",      "grMemset"};

typedef struct rule_env {
    grStream_t cap, other;
    grEvent_t plain, captured;
    void *to_free;
    int host[4];
    enum call call;
    grStreamCaptureMode thread_mode;
    grError_t result;
} rule_env;

static grError_t do_rule_call(rule_env *e)
{
    void *p = NULL;
    grError_t r = grErrorUnknown;
    switch (e->call) {
    case C_MALLOC:
        r = grMalloc(&p, 256);
        if (!r)
            grFree(p);
        break;
    case C_FREE:
        r = grFree(e->to_free);
        if (!r)
            e->to_free = NULL;
        break;
    case C_MALLOC_HOST:
        r = grMallocHost(&p, 256);
        if (!r)
            grFreeHost(p);
        break;
    case C_SYNC_OTHER:
        r = grStreamSynchronize(e->other);
        break;
    case C_QUERY_OTHER:
        r = grStreamQuery(e->other);
        break;
    case C_EVENT_SYNC_PLAIN:
        r = grEventSynchronize(e->plain);
        break;
    case C_EVENT_QUERY_PLAIN:
        r = grEventQuery(e->plain);
        break;
    case C_SYNC_CAPTURING:
        r = grStreamSynchronize(e->cap);
        break;
    case C_QUERY_CAPTURING:
        r = grStreamQuery(e->cap);
        break;
    case C_DEVICE_SYNC:
        r = grDeviceSynchronize();
        break;
    case C_EVENT_QUERY_CAPTURED:
        r = grEventQuery(e->captured);
        break;
    case C_EVENT_SYNC_CAPTURED:
        r = grEventSynchronize(e->captured);
        break;
    case C_MEMCPY:
        r = grMemcpy(e->host, e->host + 2, 2 * sizeof(int), grMemcpyHostToHost);
        break;
    case C_MEMSET:
        r = grMemset(e->host, 0, sizeof e->host);
        break;
    case C_NCALLS:
        break;
    }
    return r;
}

static void *call_thread(void *p)
{
    rule_env *e = p;
    grStreamCaptureMode m = e->thread_mode;
    if (grThreadExchangeStreamCaptureMode(&m) != grSuccess)
        return (void *)1;
    e->result = do_rule_call(e);
    return NULL;
}

/* Begins a capture in 'mode', issues 'call' from this thread or another
 * (whose own mode is thread_mode), checks the call's result, the capture's
 * status, and what grStreamEndCapture returns. */
static void check_rule(grStreamCaptureMode mode, enum call call, bool other_thread,
                       grStreamCaptureMode thread_mode, grError_t want)
{
    static rule_env e;
    grGraph_t g = NULL;
    grStreamCaptureStatus st;
    void *tr = NULL;
    memset(&e, 0, sizeof e);
    e.call = call;
    e.thread_mode = thread_mode;
    CHECK_OK(grStreamCreateWithFlags(&e.cap, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&e.other, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e.plain));
    CHECK_OK(grEventCreate(&e.captured));
    CHECK_OK(grMalloc(&e.to_free, 64));
    CHECK_OK(grEventRecord(e.plain, e.other));
    CHECK_OK(grStreamSynchronize(e.other));
    CHECK_OK(grStreamBeginCapture(e.cap, mode));
    CHECK_OK(grLaunchKernel(tl_kernel_nop_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, e.cap));
    CHECK_OK(grEventRecord(e.captured, e.cap));
    if (other_thread) {
        pthread_t th;
        CHECK_EQ(pthread_create(&th, NULL, call_thread, &e), 0);
        CHECK_EQ(pthread_join(th, &tr), 0);
        CHECK(tr == NULL);
    } else {
        grStreamCaptureMode m = thread_mode;
        CHECK_OK(grThreadExchangeStreamCaptureMode(&m));
        e.result = do_rule_call(&e);
        CHECK_OK(grThreadExchangeStreamCaptureMode(&m));
        CHECK_EQ(m, thread_mode);
    }
    if (e.result != want)
        GR_TEST_FAIL_("mode %d, %s from %s thread (thread mode %d): got %s, expected %s (detail: %s)",
                      (int)mode, call_name[call], other_thread ? "another" : "the capturing",
                      (int)thread_mode, grGetErrorName(e.result), grGetErrorName(want),
                      grGetLastErrorDetail());
    CHECK_OK(grStreamIsCapturing(e.cap, &st));
    if (want == grSuccess) {
        CHECK_EQ(st, grStreamCaptureStatusActive);
        CHECK_OK(grStreamEndCapture(e.cap, &g));
        CHECK_OK(grGraphDestroy(g));
    } else {
        CHECK_EQ(st, grStreamCaptureStatusInvalidated);
        CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(e.cap, &g));
        CHECK(g == NULL);
        CHECK_DETAIL_HAS(call_name[call]);
    }
    if (e.to_free)
        CHECK_OK(grFree(e.to_free));
    CHECK_OK(grStreamDestroy(e.cap));
    CHECK_OK(grStreamDestroy(e.other));
    CHECK_OK(grEventDestroy(e.plain));
    CHECK_OK(grEventDestroy(e.captured));
}

/* The calls CUDA calls potentially unsafe: refused by the mode rule. */
static const enum call unsafe_calls[] = {
    C_MALLOC, C_FREE, C_MALLOC_HOST, C_SYNC_OTHER, C_QUERY_OTHER, C_EVENT_SYNC_PLAIN, C_EVENT_QUERY_PLAIN};
#define N_UNSAFE (sizeof unsafe_calls / sizeof unsafe_calls[0])

GR_TEST(capture_rules_global_refuses_unsafe_calls_from_every_thread)
{
    for (size_t i = 0; i < N_UNSAFE; i++) {
        check_rule(grStreamCaptureModeGlobal, unsafe_calls[i], false, grStreamCaptureModeGlobal,
                   grErrorStreamCaptureUnsupported);
        check_rule(grStreamCaptureModeGlobal, unsafe_calls[i], true, grStreamCaptureModeGlobal,
                   grErrorStreamCaptureUnsupported);
    }
}

GR_TEST(capture_rules_thread_local_refuses_unsafe_calls_on_its_thread_only)
{
    for (size_t i = 0; i < N_UNSAFE; i++) {
        check_rule(grStreamCaptureModeThreadLocal, unsafe_calls[i], false, grStreamCaptureModeGlobal,
                   grErrorStreamCaptureUnsupported);
        check_rule(grStreamCaptureModeThreadLocal, unsafe_calls[i], true, grStreamCaptureModeGlobal,
                   grSuccess);
    }
}

GR_TEST(capture_rules_relaxed_permits_unsafe_calls)
{
    for (size_t i = 0; i < N_UNSAFE; i++) {
        check_rule(grStreamCaptureModeRelaxed, unsafe_calls[i], false, grStreamCaptureModeGlobal, grSuccess);
        check_rule(grStreamCaptureModeRelaxed, unsafe_calls[i], true, grStreamCaptureModeGlobal, grSuccess);
    }
}

GR_TEST(capture_rules_thread_mode_decides_for_the_calling_thread)
{
    /* Relaxed thread mode: allowed even beside a Global capture. */
    check_rule(grStreamCaptureModeGlobal, C_MALLOC, false, grStreamCaptureModeRelaxed, grSuccess);
    check_rule(grStreamCaptureModeGlobal, C_SYNC_OTHER, true, grStreamCaptureModeRelaxed, grSuccess);
    /* ThreadLocal thread mode: only its own captures count. */
    check_rule(grStreamCaptureModeGlobal, C_MALLOC, false, grStreamCaptureModeThreadLocal,
               grErrorStreamCaptureUnsupported);
    check_rule(grStreamCaptureModeGlobal, C_MALLOC, true, grStreamCaptureModeThreadLocal, grSuccess);
    check_rule(grStreamCaptureModeThreadLocal, C_SYNC_OTHER, false, grStreamCaptureModeThreadLocal,
               grErrorStreamCaptureUnsupported);
    check_rule(grStreamCaptureModeRelaxed, C_MALLOC, false, grStreamCaptureModeThreadLocal, grSuccess);
}

GR_TEST(capture_rules_capturing_stream_and_device_sync_refused_in_every_mode)
{
    grStreamCaptureMode modes[3] = {grStreamCaptureModeGlobal, grStreamCaptureModeThreadLocal,
                                    grStreamCaptureModeRelaxed};
    enum call calls[3] = {C_SYNC_CAPTURING, C_QUERY_CAPTURING, C_DEVICE_SYNC};
    for (int m = 0; m < 3; m++)
        for (int c = 0; c < 3; c++)
            for (int other = 0; other < 2; other++) {
                check_rule(modes[m], calls[c], other, grStreamCaptureModeGlobal,
                           grErrorStreamCaptureUnsupported);
                check_rule(modes[m], calls[c], other, grStreamCaptureModeRelaxed,
                           grErrorStreamCaptureUnsupported);
            }
}

GR_TEST(capture_rules_captured_event_query_and_sync_are_captured_event)
{
    grStreamCaptureMode modes[3] = {grStreamCaptureModeGlobal, grStreamCaptureModeThreadLocal,
                                    grStreamCaptureModeRelaxed};
    for (int m = 0; m < 3; m++)
        for (int other = 0; other < 2; other++) {
            check_rule(modes[m], C_EVENT_QUERY_CAPTURED, other, grStreamCaptureModeGlobal,
                       grErrorCapturedEvent);
            check_rule(modes[m], C_EVENT_SYNC_CAPTURED, other, grStreamCaptureModeRelaxed,
                       grErrorCapturedEvent);
        }
}

GR_TEST(capture_rules_sync_copies_and_memsets_are_permitted)
{
    grStreamCaptureMode modes[3] = {grStreamCaptureModeGlobal, grStreamCaptureModeThreadLocal,
                                    grStreamCaptureModeRelaxed};
    for (int m = 0; m < 3; m++)
        for (int other = 0; other < 2; other++) {
            check_rule(modes[m], C_MEMCPY, other, grStreamCaptureModeGlobal, grSuccess);
            check_rule(modes[m], C_MEMSET, other, grStreamCaptureModeGlobal, grSuccess);
        }
}

GR_TEST(capture_rules_refusal_names_call_capture_mode_and_thread)
{
    grStream_t s;
    grGraph_t g;
    void *p;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    CHECK_GR(grErrorStreamCaptureUnsupported, grMalloc(&p, 64));
    CHECK_DETAIL_HAS("grMalloc: ");
    CHECK_DETAIL_HAS("capture #");
    CHECK_DETAIL_HAS("(global mode, begun by this thread (#");
    CHECK_DETAIL_HAS("forbids it on the thread that began it");
    CHECK_DETAIL_HAS("grThreadExchangeStreamCaptureMode");
    /* A second offence does not replace the first in the end report. */
    CHECK_GR(grErrorStreamCaptureUnsupported, grDeviceSynchronize());
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_DETAIL_HAS("first by: grMalloc on thread #");
    CHECK_OK(grStreamDestroy(s));
}

typedef struct relaxed_arg {
    grError_t malloc_result;
    grStreamCaptureStatus own;
} relaxed_arg;

static void *relaxed_capture_then_malloc(void *p)
{
    relaxed_arg *a = p;
    grStream_t b;
    grGraph_t g;
    void *mem = NULL;
    if (grStreamCreateWithFlags(&b, grStreamNonBlocking))
        return (void *)1;
    grStreamBeginCapture(b, grStreamCaptureModeRelaxed);
    a->malloc_result = grMalloc(&mem, 64);
    if (!a->malloc_result)
        grFree(mem);
    grStreamIsCapturing(b, &a->own);
    if (grStreamEndCapture(b, &g) == grSuccess)
        grGraphDestroy(g);
    grStreamDestroy(b);
    return NULL;
}

GR_TEST(capture_rules_refusal_invalidates_only_the_captures_that_forbid)
{
    grStream_t a;
    pthread_t th;
    relaxed_arg r;
    void *tr;
    a = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    CHECK_EQ(pthread_create(&th, NULL, relaxed_capture_then_malloc, &r), 0);
    CHECK_EQ(pthread_join(th, &tr), 0);
    CHECK(tr == NULL);
    CHECK_EQ(r.malloc_result, grErrorStreamCaptureUnsupported);
    CHECK_EQ(r.own, grStreamCaptureStatusActive); /* the other thread's Relaxed capture */
    grStreamCaptureStatus st;
    CHECK_OK(grStreamIsCapturing(a, &st));
    CHECK_EQ(st, grStreamCaptureStatusInvalidated); /* the Global one that forbade it */
    tl_end_invalidated(a);
}

GR_TEST(capture_rules_exchange_mode_refuses_bad_input)
{
    grStreamCaptureMode m = (grStreamCaptureMode)7, keep = grStreamCaptureModeRelaxed;
    CHECK_GR(grErrorInvalidValue, grThreadExchangeStreamCaptureMode(NULL));
    CHECK_GR(grErrorInvalidValue, grThreadExchangeStreamCaptureMode(&m));
    CHECK_EQ(m, 7);
    CHECK_OK(grThreadExchangeStreamCaptureMode(&keep));
    CHECK_EQ(keep, grStreamCaptureModeGlobal); /* the default, unchanged by the refusal */
    CHECK_OK(grThreadExchangeStreamCaptureMode(&keep));
    CHECK_EQ(keep, grStreamCaptureModeRelaxed);
}

GR_TEST(capture_rules_no_capture_means_no_rule)
{
    void *p;
    CHECK_OK(grMalloc(&p, 64));
    CHECK_OK(grFree(p));
    CHECK_OK(grDeviceSynchronize());
}
