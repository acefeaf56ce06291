/* test-capture-details.c - the detail sentences of capture refusals: one
 * per family of rules, each saying whose capture mode refused the call
 * (the capture's, or this thread's) and naming streams by their short id
 * ("stream #3 at 0x..."), not only by address. */
#include "testlib.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static void launch_nop(grStream_t s)
{
    CHECK_OK(grLaunchKernel(tl_kernel_nop_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s));
}

/* True if d names stream s as "stream #<id> at <s>". */
static bool names_stream(const char *d, grStream_t s)
{
    char at[40];
    snprintf(at, sizeof at, " at %p", (void *)s);
    for (const char *p = strstr(d, "stream #"); p; p = strstr(p + 1, "stream #")) {
        char *end;
        unsigned long long id = strtoull(p + 8, &end, 10);
        if (id > 0 && end > p + 8 && strncmp(end, at, strlen(at)) == 0)
            return true;
    }
    return false;
}

/* The number of times sub occurs in d. */
static int occurrences(const char *d, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(d, sub); p; p = strstr(p + 1, sub))
        n++;
    return n;
}

typedef struct malloc_arg {
    grError_t result;
    char detail[1024];
} malloc_arg;

static void *malloc_on_a_thread(void *p)
{
    malloc_arg *a = p;
    void *mem = NULL;
    a->result = grMalloc(&mem, 64);
    snprintf(a->detail, sizeof a->detail, "%s", grGetLastErrorDetail());
    if (!a->result)
        grFree(mem);
    return NULL;
}

GR_TEST(capture_detail_other_thread_in_global_mode_names_both_modes)
{
    grStream_t s;
    pthread_t th;
    malloc_arg a;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    CHECK_EQ(pthread_create(&th, NULL, malloc_on_a_thread, &a), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(a.result, grErrorStreamCaptureUnsupported);
    const char *d = a.detail;
    CHECK(strncmp(d, "grMalloc: ", 10) == 0);
    /* The capture's mode, with who began it where; then the thread's own. */
    CHECK(strstr(d, "(global mode, begun by thread #") != NULL);
    CHECK(strstr(d, "begun by this thread") == NULL); /* another thread began it */
    CHECK(strstr(d, "forbids it on every thread whose own capture mode is global, as this thread's (#") !=
          NULL);
    CHECK(strstr(d, "grThreadExchangeStreamCaptureMode") != NULL);
    CHECK(names_stream(d, s));
    CHECK(strstr(d, "this invalidated capture #") != NULL);
    tl_end_invalidated(s);
}

GR_TEST(capture_detail_thread_local_capture_names_its_mode_and_this_thread)
{
    grStream_t s;
    void *p = NULL;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeThreadLocal);
    CHECK_GR(grErrorStreamCaptureUnsupported, grMalloc(&p, 64));
    CHECK_DETAIL_HAS("grMalloc: potentially unsafe during stream capture");
    CHECK_DETAIL_HAS("(thread-local mode, begun by this thread (#");
    CHECK_DETAIL_HAS("forbids it on the thread that began it");
    CHECK(names_stream(grGetLastErrorDetail(), s));
    /* The capture is described once: the invalidation names it by id. */
    CHECK_EQ(occurrences(grGetLastErrorDetail(), "mode, begun by"), 1);
    tl_end_invalidated(s);
}

GR_TEST(capture_detail_device_sync_says_relaxed_mode_does_not_help)
{
    grStream_t s;
    grStreamCaptureMode m = grStreamCaptureModeRelaxed;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeRelaxed);
    CHECK_OK(grThreadExchangeStreamCaptureMode(&m));
    CHECK_GR(grErrorStreamCaptureUnsupported, grDeviceSynchronize());
    CHECK_DETAIL_HAS("grDeviceSynchronize: ");
    CHECK_DETAIL_HAS("whatever the capture's mode and the calling thread's, relaxed included");
    CHECK_DETAIL_HAS("(relaxed mode, begun by this thread (#");
    CHECK(names_stream(grGetLastErrorDetail(), s));
    CHECK_OK(grThreadExchangeStreamCaptureMode(&m)); /* back to global */
    CHECK_EQ(m, grStreamCaptureModeRelaxed);
    tl_end_invalidated(s);
}

GR_TEST(capture_detail_invalidated_capture_names_the_stream_and_the_first_cause_once)
{
    grStream_t s;
    grGraph_t g;
    void *p = NULL;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    CHECK_GR(grErrorStreamCaptureUnsupported, grMalloc(&p, 64));
    CHECK_GR(grErrorStreamCaptureInvalidated,
             grLaunchKernel(tl_kernel_nop_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s));
    const char *d = grGetLastErrorDetail();
    CHECK_DETAIL_HAS("grLaunchKernel: stream #");
    CHECK(names_stream(d, s));
    /* The cause is kept in words that hold on any thread: "thread #N", and
     * the capture's mode, not "this thread". */
    CHECK_DETAIL_HAS("invalidated earlier, first by: grMalloc on thread #");
    CHECK_DETAIL_HAS("the capture's global mode forbids it on the thread that began it");
    CHECK_DETAIL_HAS("nothing was recorded");
    /* The cause is kept without its own "this invalidated ..." clause. */
    CHECK_EQ(occurrences(d, "this invalidated"), 0);
    /* A later refusal does not claim to have invalidated it. */
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamSynchronize(s));
    CHECK_DETAIL_HAS("invalidated already: capture #");
    CHECK_EQ(occurrences(grGetLastErrorDetail(), "this invalidated"), 0);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_DETAIL_HAS("was invalidated, first by: grMalloc on thread #");
    CHECK_EQ(occurrences(grGetLastErrorDetail(), "this invalidated"), 0);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_detail_unjoined_names_both_streams_by_id)
{
    grStream_t origin, forked;
    grEvent_t fork;
    grGraph_t g = (grGraph_t)&g;
    CHECK_OK(grStreamCreateWithFlags(&origin, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&forked, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&fork));
    CHECK_OK(grStreamBeginCapture(origin, grStreamCaptureModeGlobal));
    launch_nop(origin);
    CHECK_OK(grEventRecord(fork, origin));
    CHECK_OK(grStreamWaitEvent(forked, fork, 0));
    launch_nop(forked); /* never joined back */
    CHECK_GR(grErrorStreamCaptureUnjoined, grStreamEndCapture(origin, &g));
    CHECK(g == NULL);
    const char *d = grGetLastErrorDetail();
    CHECK_DETAIL_HAS("grStreamEndCapture: stream #");
    CHECK_DETAIL_HAS("has work that stream #");
    CHECK(names_stream(d, origin));
    CHECK(names_stream(d, forked));
    CHECK_DETAIL_HAS("(global mode, begun by this thread (#");
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grStreamDestroy(forked));
    CHECK_OK(grStreamDestroy(origin));
}

typedef struct end_arg {
    grStream_t s;
    grError_t result;
    char detail[1024];
} end_arg;

static void *end_on_a_thread(void *p)
{
    end_arg *a = p;
    grGraph_t g = NULL;
    a->result = grStreamEndCapture(a->s, &g);
    snprintf(a->detail, sizeof a->detail, "%s", grGetLastErrorDetail());
    if (g)
        grGraphDestroy(g);
    return NULL;
}

GR_TEST(capture_detail_wrong_thread_end_names_the_captures_mode)
{
    pthread_t th;
    end_arg a;
    grStreamCaptureStatus st;
    CHECK_OK(grStreamCreateWithFlags(&a.s, grStreamNonBlocking));
    CHECK_OK(grStreamBeginCapture(a.s, grStreamCaptureModeThreadLocal));
    CHECK_EQ(pthread_create(&th, NULL, end_on_a_thread, &a), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(a.result, grErrorStreamCaptureWrongThread);
    CHECK(strstr(a.detail, "grStreamEndCapture: thread #") != NULL);
    CHECK(strstr(a.detail, "(thread-local mode, begun by thread #") != NULL);
    CHECK(strstr(a.detail,
                 "the capture's thread-local mode means it must be ended by the thread that began it") !=
          NULL);
    CHECK(names_stream(a.detail, a.s));
    CHECK_OK(grStreamIsCapturing(a.s, &st));
    CHECK_EQ(st, grStreamCaptureStatusNone); /* ended without a graph, as in CUDA */
    CHECK_OK(grStreamDestroy(a.s));
}
