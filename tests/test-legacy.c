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
#include <unistd.h>

#include "steps.h"

GR_TEST(legacy_stream_work_waits_for_earlier_blocking_stream_work)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    grStream_t b;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grStreamCreate(&b));
    CHECK_OK(grLaunchHostFunc(b, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &second));
    usleep(50000);
    CHECK_EQ(atomic_load(&log_n), 0);
    CHECK_GR(grErrorNotReady, grStreamQuery(NULL));
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(b));
}

GR_TEST(blocking_stream_work_waits_for_earlier_legacy_stream_work)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    grStream_t b;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamDefault));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(b, gated_step, &second));
    usleep(50000);
    CHECK_EQ(atomic_load(&log_n), 0);
    CHECK_GR(grErrorNotReady, grStreamQuery(b));
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(b));
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
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    grStream_t nb;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(nb, gated_step, &second));
    /* The non-blocking stream's work runs while the legacy stream is
     * still blocked behind the gate. */
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 2);
    CHECK_GR(grErrorNotReady, grStreamQuery(NULL));
    atomic_store(&gate, 1);
    CHECK(wait_logged(2, 5000));
    CHECK_EQ(logged(1), 1);
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(nb));
}

GR_TEST(legacy_stream_does_not_wait_for_non_blocking_stream_work)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    grStream_t nb;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(nb, gated_step, &first));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &second));
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 2);
    CHECK_GR(grErrorNotReady, grStreamQuery(nb));
    atomic_store(&gate, 1);
    CHECK(wait_logged(2, 5000));
    CHECK_EQ(logged(1), 1);
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(nb));
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
