/*
 * test-legacy.c - the legacy default stream's implicit synchronisation
 * with blocking streams, the exemption of non-blocking streams, and the
 * per-thread default stream.
 *
 * Each ordering is proved with host functions that block on a gate the
 * test opens later: while the gate is shut, work ordered after it must not
 * run, and work that is exempt must run. Gates and polls have timeouts, so
 * a broken order fails instead of hanging.
 */
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "steps.h"

/* Where the two steps of a case go: the legacy stream (NULL), a blocking
 * stream (grStreamCreate, or grStreamCreateWithFlags with
 * grStreamDefault) or a non-blocking one. */
enum {
    ON_LEGACY,
    ON_BLOCKING,
    ON_BLOCKING_FLAGS,
    ON_NON_BLOCKING
};

static grStream_t stream_for(int on)
{
    grStream_t s = NULL;
    if (on == ON_BLOCKING)
        CHECK_OK(grStreamCreate(&s));
    else if (on != ON_LEGACY)
        CHECK_OK(grStreamCreateWithFlags(&s, on == ON_NON_BLOCKING ? grStreamNonBlocking : grStreamDefault));
    return s;
}

/* Step 1, behind a shut gate, goes to one stream and step 2 to another.
 * Where the second stream must wait, nothing runs until the gate opens
 * (the second stream is busy), then 1 and 2 in order; where it need not,
 * step 2 runs while the first stream is still held, and 1 after the
 * gate opens. */
static void run_two_streams(int first_on, int second_on, bool waits)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    setenv("GRAPHRT_WORKERS", "4", 1);
    grStream_t s1 = stream_for(first_on), s2 = stream_for(second_on);
    CHECK_OK(grLaunchHostFunc(s1, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(s2, gated_step, &second));
    if (waits) {
        usleep(50000);
        CHECK_EQ(atomic_load(&log_n), 0);
        CHECK_GR(grErrorNotReady, grStreamQuery(s2));
        open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    } else {
        CHECK(wait_logged(1, 5000));
        CHECK_EQ(logged(0), 2);
        CHECK_GR(grErrorNotReady, grStreamQuery(s1));
        atomic_store(&gate, 1);
        CHECK(wait_logged(2, 5000));
        CHECK_EQ(logged(1), 1);
    }
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
    if (s1)
        CHECK_OK(grStreamDestroy(s1));
    if (s2)
        CHECK_OK(grStreamDestroy(s2));
}

GR_TEST(legacy_stream_work_waits_for_earlier_blocking_stream_work)
{
    run_two_streams(ON_BLOCKING, ON_LEGACY, true);
}

GR_TEST(blocking_stream_work_waits_for_earlier_legacy_stream_work)
{
    run_two_streams(ON_LEGACY, ON_BLOCKING_FLAGS, true);
}

GR_TEST(legacy_stream_orders_two_blocking_streams_transitively)
{
    static atomic_int gate;
    static step s1 = {&gate, 1}, s2 = {NULL, 2}, s3 = {NULL, 3};
    grStream_t b1, b2;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grStreamCreate(&b1));
    CHECK_OK(grStreamCreate(&b2));
    CHECK_OK(grLaunchHostFunc(b1, gated_step, &s1));
    CHECK_OK(grLaunchHostFunc(grStreamLegacy, gated_step, &s2));
    CHECK_OK(grLaunchHostFunc(b2, gated_step, &s3));
    usleep(50000);
    CHECK_EQ(atomic_load(&log_n), 0);
    open_gate_expect_log(&gate, 3, (const int[]){1, 2, 3});
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(b1));
    CHECK_OK(grStreamDestroy(b2));
}

GR_TEST(non_blocking_stream_does_not_wait_for_legacy_stream_work)
{
    /* The non-blocking stream's work runs while the legacy stream is
     * still blocked behind the gate. */
    run_two_streams(ON_LEGACY, ON_NON_BLOCKING, false);
}

GR_TEST(legacy_stream_does_not_wait_for_non_blocking_stream_work)
{
    run_two_streams(ON_NON_BLOCKING, ON_LEGACY, false);
}

GR_TEST(legacy_handle_and_null_name_the_same_stream)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(grStreamLegacy, gated_step, &second));
    usleep(50000);
    CHECK_EQ(atomic_load(&log_n), 0);
    CHECK_GR(grErrorNotReady, grStreamQuery(grStreamLegacy));
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    CHECK_OK(grStreamSynchronize(grStreamLegacy));
}

/* ------------------------------------------------ per-thread default stream */

static atomic_int pt_gate, pt_launched;
static step pt_other = {&pt_gate, 1};

static void *per_thread_issuer(void *arg)
{
    (void)arg;
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, gated_step, &pt_other));
    atomic_store(&pt_launched, 1);
    /* Stay alive until the work is done: the stream dies with the thread. */
    for (int i = 0; i < 5000 && atomic_load(&log_n) < 2; i++)
        usleep(1000);
    return NULL;
}

GR_TEST(per_thread_stream_is_a_separate_stream_for_each_thread)
{
    static step mine = {NULL, 2};
    pthread_t t;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_EQ(pthread_create(&t, NULL, per_thread_issuer, NULL), 0);
    for (int i = 0; i < 5000 && !atomic_load(&pt_launched); i++)
        usleep(1000);
    CHECK(atomic_load(&pt_launched));
    /* The other thread's per-thread stream is blocked; ours is not. */
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, gated_step, &mine));
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 2);
    atomic_store(&pt_gate, 1);
    CHECK(wait_logged(2, 5000));
    CHECK_EQ(logged(1), 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
}

GR_TEST(per_thread_stream_synchronises_with_the_legacy_stream)
{
    static atomic_int gate;
    static step s1 = {&gate, 1}, s2 = {NULL, 2}, s3 = {NULL, 3};
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, gated_step, &s1));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &s2));
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, gated_step, &s3));
    usleep(50000);
    CHECK_EQ(atomic_load(&log_n), 0);
    CHECK_GR(grErrorNotReady, grStreamQuery(grStreamPerThread));
    open_gate_expect_log(&gate, 3, (const int[]){1, 2, 3});
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
}

GR_TEST(per_thread_stream_is_exempt_from_non_blocking_stream_work)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    grStream_t nb;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(nb, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, gated_step, &second));
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 2);
    atomic_store(&gate, 1);
    CHECK(wait_logged(2, 5000));
    CHECK_EQ(logged(1), 1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(nb));
}

GR_TEST(per_thread_stream_flags_are_default)
{
    unsigned flags = 99;
    CHECK_OK(grStreamGetFlags(grStreamPerThread, &flags));
    CHECK_EQ(flags, grStreamDefault);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamDestroy, grStreamPerThread);
    CHECK_GR(grErrorInvalidResourceHandle, grStreamDestroy(grStreamLegacy));
    CHECK_GR(grErrorInvalidResourceHandle, grStreamDestroy(NULL));
    /* Still usable after the refused destroys. */
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
    CHECK_OK(grStreamSynchronize(NULL));
}
