/*
 * test-event.c - events: cross-stream ordering, re-recording, queries,
 * synchronisation, timing, bad input and destruction with records in
 * flight.
 *
 * Orderings are proved with host functions blocked on gates the test opens
 * later; every wait has a timeout so a broken order fails, never hangs.
 */
#include "testlib.h"

#include <stdatomic.h>
#include <unistd.h>

#include "steps.h"

static void sleep_2ms(void *p)
{
    (void)p;
    usleep(2000);
}

/* Polls grEventQuery (which never runs work) until success; 0 on timeout. */
static int event_done_within(grEvent_t e, int ms)
{
    for (int i = 0; i < ms; i++) {
        if (grEventQuery(e) == grSuccess)
            return 1;
        usleep(1000);
    }
    return grEventQuery(e) == grSuccess;
}

/* Two non-blocking streams and an event, with this many workers (four,
 * so that a step held on a does not hold b's work back). */
typedef struct two_streams {
    grStream_t a, b;
    grEvent_t e;
} two_streams;

static two_streams two_streams_open(const char *workers, unsigned event_flags)
{
    two_streams t;
    setenv("GRAPHRT_WORKERS", workers, 1);
    t.a = tl_stream(grStreamNonBlocking);
    t.b = tl_stream(grStreamNonBlocking);
    CHECK_OK(grEventCreateWithFlags(&t.e, event_flags));
    return t;
}

/* Waits for all work, then destroys both streams and, where with_event,
 * the event. */
static void two_streams_close(two_streams *t, bool with_event)
{
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(t->a));
    CHECK_OK(grStreamDestroy(t->b));
    if (with_event)
        CHECK_OK(grEventDestroy(t->e));
}

/* Queues st on s and records e after it. */
static void step_then_record(grStream_t s, step *st, grEvent_t e)
{
    CHECK_OK(grLaunchHostFunc(s, gated_step, st));
    CHECK_OK(grEventRecord(e, s));
}

/* Makes s wait for e, then queues st on s. */
static void wait_then_step(grStream_t s, grEvent_t e, step *st)
{
    CHECK_OK(grStreamWaitEvent(s, e, 0));
    CHECK_OK(grLaunchHostFunc(s, gated_step, st));
}

/* two_streams_open("4", grEventDefault) with 'held' queued on a and the
 * event recorded after it. */
static two_streams two_streams_held(step *held)
{
    two_streams t = two_streams_open("4", grEventDefault);
    step_then_record(t.a, held, t.e);
    return t;
}

/* A stream and an event for one gated step, with two workers. */
typedef struct gated_stream {
    grStream_t s;
    grEvent_t e;
} gated_stream;

static gated_stream gated_stream_open(void)
{
    gated_stream o;
    setenv("GRAPHRT_WORKERS", "2", 1);
    o.s = tl_stream(0);
    CHECK_OK(grEventCreate(&o.e));
    return o;
}

/* A stream and two timing events, e[0] and e[1]; closed, all three are
 * destroyed. */
static void timed_open(grStream_t *s, grEvent_t e[2])
{
    *s = tl_stream(0);
    CHECK_OK(grEventCreate(&e[0]));
    CHECK_OK(grEventCreate(&e[1]));
}

static void timed_close(grStream_t s, grEvent_t e[2])
{
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grEventDestroy(e[0]));
    CHECK_OK(grEventDestroy(e[1]));
}

/* After us microseconds no step has logged yet. */
static void none_logged_after(useconds_t us)
{
    usleep(us);
    CHECK_EQ(atomic_load(&log_n), 0);
}

GR_TEST(event_wait_makes_later_work_wait_for_the_record)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    two_streams t = two_streams_held(&first);
    wait_then_step(t.b, t.e, &second);
    none_logged_after(50000);
    CHECK_GR(grErrorNotReady, grStreamQuery(t.b));
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    CHECK_OK(grStreamSynchronize(t.b));
    two_streams_close(&t, true);
}

GR_TEST(event_wait_does_not_order_work_issued_before_the_wait)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    two_streams t = two_streams_held(&first);
    CHECK_OK(grLaunchHostFunc(t.b, gated_step, &second));
    CHECK_OK(grStreamWaitEvent(t.b, t.e, 0));
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 2);
    atomic_store(&gate, 1);
    CHECK(wait_logged(2, 5000));
    two_streams_close(&t, true);
}

GR_TEST(wait_on_never_recorded_event_is_a_no_op)
{
    static step only = {NULL, 7};
    grStream_t b;
    grEvent_t e;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grStreamWaitEvent(b, e, 0));
    CHECK_OK(grLaunchHostFunc(b, gated_step, &only));
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 7);
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grEventDestroy(e));
}

GR_TEST(wait_issued_before_rerecord_waits_for_the_old_record_only)
{
    static atomic_int gate1, gate2;
    static step g1 = {&gate1, 1}, g2 = {&gate2, 2}, after = {NULL, 3};
    two_streams t = two_streams_open("4", grEventDisableTiming);
    step_then_record(t.a, &g1, t.e);          /* record 1 */
    CHECK_OK(grStreamWaitEvent(t.b, t.e, 0)); /* waits for record 1 */
    step_then_record(t.a, &g2, t.e);          /* record 2 */
    CHECK_OK(grLaunchHostFunc(t.b, gated_step, &after));
    none_logged_after(30000);
    atomic_store(&gate1, 1);
    /* b's work runs once record 1 completes, while record 2 is still
     * blocked behind gate2. */
    CHECK(wait_logged(2, 5000));
    CHECK_EQ(logged(0), 1);
    CHECK_EQ(logged(1), 3);
    CHECK_GR(grErrorNotReady, grEventQuery(t.e));
    atomic_store(&gate2, 1);
    CHECK(wait_logged(3, 5000));
    CHECK_EQ(logged(2), 2);
    CHECK(event_done_within(t.e, 5000));
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    two_streams_close(&t, true);
}

GR_TEST(wait_issued_after_rerecord_waits_for_the_new_record)
{
    static atomic_int gate2;
    static step g2 = {&gate2, 2}, after = {NULL, 3};
    two_streams t = two_streams_open("4", grEventDefault);
    CHECK_OK(grEventRecord(t.e, t.a)); /* record 1: completes at once */
    CHECK(event_done_within(t.e, 5000));
    step_then_record(t.a, &g2, t.e); /* record 2 */
    wait_then_step(t.b, t.e, &after);
    none_logged_after(50000);
    open_gate_expect_log(&gate2, 2, (const int[]){2, 3});
    two_streams_close(&t, true);
}

GR_TEST(rerecord_on_another_stream_refers_to_the_latest_record)
{
    static atomic_int gate;
    static step g = {&gate, 1};
    two_streams t = two_streams_held(&g);
    CHECK_GR(grErrorNotReady, grEventQuery(t.e));
    CHECK_OK(grEventRecord(t.e, t.b)); /* b is idle: the event completes */
    CHECK(event_done_within(t.e, 5000));
    CHECK_OK(grEventSynchronize(t.e));
    CHECK_EQ(atomic_load(&log_n), 0);
    atomic_store(&gate, 1);
    two_streams_close(&t, true);
}

/*
 * a waits for b; c waits for a record of a made after a's wait. A thread
 * that runs a's wait must not get stuck inside c's wait on a.
 */
GR_TEST(wait_chain_across_three_streams_completes)
{
    static atomic_int gate;
    static step gb = {&gate, 1}, ga = {NULL, 2}, gc = {NULL, 3};
    two_streams t = two_streams_open("2", grEventDisableTiming); /* eb is t.e */
    grStream_t c = tl_stream(grStreamNonBlocking);
    grEvent_t ea;
    CHECK_OK(grEventCreateWithFlags(&ea, grEventDisableTiming));
    step_then_record(t.b, &gb, t.e);
    CHECK_OK(grStreamWaitEvent(t.a, t.e, 0));
    step_then_record(t.a, &ga, ea);
    wait_then_step(c, ea, &gc);
    none_logged_after(50000);
    open_gate_expect_log(&gate, 3, (const int[]){1, 2, 3});
    two_streams_close(&t, true);
    CHECK_OK(grStreamDestroy(c));
    CHECK_OK(grEventDestroy(ea));
}

GR_TEST(event_query_reports_not_ready_then_success)
{
    static atomic_int gate;
    static step g = {&gate, 1};
    gated_stream o = gated_stream_open();
    CHECK_OK(grEventQuery(o.e)); /* never recorded */
    step_then_record(o.s, &g, o.e);
    CHECK_GR(grErrorNotReady, grEventQuery(o.e));
    /* NotReady is a status, not an error: the last error stays clean. */
    CHECK_EQ(grPeekAtLastError(), grSuccess);
    CHECK_EQ(grGetLastError(), grSuccess);
    atomic_store(&gate, 1);
    CHECK(event_done_within(o.e, 5000));
    CHECK_OK(grEventQuery(o.e));
    CHECK_OK(grStreamDestroy(o.s));
    CHECK_OK(grEventDestroy(o.e));
}

GR_TEST(event_synchronize_waits_for_the_record)
{
    static atomic_int flag;
    grStream_t s;
    grEvent_t e;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grEventCreateWithFlags(&e, grEventBlockingSync));
    CHECK_OK(grLaunchHostFunc(s, tl_set_flag_late, &flag));
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grEventSynchronize(e));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grEventQuery(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grEventDestroy(e));
}

GR_TEST(event_synchronize_on_never_recorded_event_returns_at_once)
{
    grEvent_t e;
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grEventSynchronize(e));
    CHECK_OK(grEventDestroy(e));
}

GR_TEST(event_record_on_legacy_stream_covers_its_work)
{
    static atomic_int flag;
    grEvent_t e;
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grLaunchHostFunc(NULL, tl_set_flag_late, &flag));
    CHECK_OK(grEventRecord(e, NULL));
    CHECK_OK(grEventSynchronize(e));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grEventDestroy(e));
}

/* ------------------------------------------------------------------ timing */

GR_TEST(elapsed_time_is_non_negative_for_ordered_records)
{
    grStream_t s;
    grEvent_t e[2];
    float ms = -1.0f;
    timed_open(&s, e);
    CHECK_OK(grEventRecord(e[0], s));
    CHECK_OK(grLaunchHostFunc(s, sleep_2ms, NULL));
    CHECK_OK(grEventRecord(e[1], s));
    CHECK_OK(grEventSynchronize(e[1]));
    CHECK_OK(grEventElapsedTime(&ms, e[0], e[1]));
    CHECK(ms >= 0.0f);
    ms = -1.0f;
    CHECK_OK(grEventElapsedTime(&ms, e[0], e[0]));
    CHECK(ms == 0.0f);
    timed_close(s, e);
}

GR_TEST(elapsed_time_is_not_ready_before_the_records_complete)
{
    static atomic_int gate;
    static step g = {&gate, 1};
    grStream_t s;
    grEvent_t e[2];
    float ms = -1.0f;
    setenv("GRAPHRT_WORKERS", "2", 1);
    timed_open(&s, e);
    CHECK_OK(grEventRecord(e[0], s));
    step_then_record(s, &g, e[1]);
    CHECK_GR(grErrorNotReady, grEventElapsedTime(&ms, e[0], e[1]));
    CHECK(ms == -1.0f);
    atomic_store(&gate, 1);
    CHECK(event_done_within(e[1], 5000));
    CHECK_OK(grEventElapsedTime(&ms, e[0], e[1]));
    CHECK(ms >= 0.0f);
    timed_close(s, e);
}

GR_TEST(elapsed_time_refuses_disable_timing_events)
{
    grEvent_t t, nt;
    float ms = -1.0f;
    CHECK_OK(grEventCreate(&t));
    CHECK_OK(grEventCreateWithFlags(&nt, grEventDisableTiming));
    CHECK_OK(grEventRecord(t, NULL));
    CHECK_OK(grEventRecord(nt, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventElapsedTime, &ms, t, nt);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventElapsedTime, &ms, nt, t);
    CHECK(ms == -1.0f);
    CHECK_OK(grEventDestroy(t));
    CHECK_OK(grEventDestroy(nt));
}

GR_TEST(elapsed_time_refuses_never_recorded_events)
{
    grEvent_t rec, never;
    float ms = -1.0f;
    CHECK_OK(grEventCreate(&rec));
    CHECK_OK(grEventCreate(&never));
    CHECK_OK(grEventRecord(rec, NULL));
    CHECK_OK(grEventSynchronize(rec));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventElapsedTime, &ms, never, rec);
    CHECK_GR(grErrorInvalidResourceHandle, grEventElapsedTime(&ms, rec, never));
    CHECK(ms == -1.0f);
    CHECK_REFUSED(grErrorInvalidValue, grEventElapsedTime, NULL, rec, rec);
    CHECK_GR(grErrorInvalidResourceHandle, grEventElapsedTime(&ms, NULL, rec));
    CHECK_OK(grEventDestroy(rec));
    CHECK_OK(grEventDestroy(never));
}

/* --------------------------------------------------------------- bad input */

GR_TEST(event_create_refuses_bad_flags_and_null_output)
{
    grEvent_t e = (grEvent_t)0x1234;
    CHECK_REFUSED(grErrorInvalidValue, grEventCreateWithFlags, &e, 0x4u);
    CHECK_GR(grErrorInvalidValue, grEventCreateWithFlags(&e, 0x80000000u));
    CHECK_PTR_EQ(e, (grEvent_t)0x1234);
    CHECK_REFUSED(grErrorInvalidValue, grEventCreateWithFlags, NULL, 0);
    CHECK_REFUSED(grErrorInvalidValue, grEventCreate, NULL);
    CHECK_OK(grEventCreateWithFlags(&e, grEventBlockingSync | grEventDisableTiming));
    CHECK_OK(grEventDestroy(e));
}

GR_TEST(stream_wait_event_refuses_bad_flags_and_adds_no_wait)
{
    static atomic_int gate;
    static step g = {&gate, 1}, after = {NULL, 2};
    two_streams t = two_streams_held(&g);
    CHECK_REFUSED(grErrorInvalidValue, grStreamWaitEvent, t.b, t.e, 2u);
    CHECK_GR(grErrorInvalidValue, grStreamWaitEvent(t.b, t.e, 0x100u));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamWaitEvent, t.b, NULL, 0);
    /* The refused waits left b free: its work runs while a is blocked. */
    CHECK_OK(grLaunchHostFunc(t.b, gated_step, &after));
    CHECK(wait_logged(1, 5000));
    CHECK_EQ(logged(0), 2);
    atomic_store(&gate, 1);
    two_streams_close(&t, true);
}

GR_TEST(null_and_foreign_event_handles_are_refused)
{
    static _Alignas(64) unsigned char fake[1024]; /* zeroed memory that is no event */
    grEvent_t bogus = (grEvent_t)(void *)fake;
    float ms;
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventRecord, NULL, NULL);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventQuery, bogus);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventSynchronize, bogus);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventDestroy, bogus);
    CHECK_GR(grErrorInvalidResourceHandle, grEventElapsedTime(&ms, bogus, bogus));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamWaitEvent, NULL, bogus, 0);
}

GR_TEST(destroyed_event_is_refused_while_its_record_is_in_flight)
{
    static atomic_int gate;
    static step g = {&gate, 1};
    gated_stream o = gated_stream_open();
    grStream_t s = o.s;
    grEvent_t e = o.e;
    step_then_record(s, &g, e);
    CHECK_OK(grEventDestroy(e));
    /* The pending record keeps the memory; the handle is dead. */
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventQuery, e);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventRecord, e, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamWaitEvent, s, e, 0);
    CHECK_GR(grErrorInvalidResourceHandle, grEventSynchronize(e));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventDestroy, e);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&log_n), 1);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(event_destroyed_while_a_wait_on_it_is_queued_is_safe)
{
    static atomic_int gate;
    static step g = {&gate, 1}, after = {NULL, 2};
    two_streams t = two_streams_held(&g);
    wait_then_step(t.b, t.e, &after);
    CHECK_OK(grEventDestroy(t.e));
    /* The queued wait still orders b after a. */
    none_logged_after(30000);
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    two_streams_close(&t, false);
}

/* Events recorded by a graph's event record nodes hold the time their
 * launch ended, so two of them give an elapsed time once synchronised;
 * a time asked of a pending record is grErrorNotReady with a detail. */
GR_TEST(elapsed_time_of_events_recorded_by_graph_nodes)
{
    grEvent_t e1, e2, plain;
    grGraph_t g;
    grGraphNode_t n1, n2;
    grGraphExec_t x;
    grStream_t s;
    float ms = -1;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e1));
    CHECK_OK(grEventCreate(&e2));
    CHECK_OK(grEventCreate(&plain));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEventRecordNode(&n1, g, NULL, 0, e1));
    CHECK_OK(grGraphAddEventRecordNode(&n2, g, &n1, 1, e2));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grEventRecord(plain, s));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grEventSynchronize(e1));
    CHECK_OK(grEventSynchronize(e2));
    CHECK_OK(grEventElapsedTime(&ms, e1, e2));
    CHECK(ms >= 0 && ms < 1000);
    CHECK_OK(grEventElapsedTime(&ms, plain, e2));
    CHECK(ms >= 0 && ms < 1000);
    /* A record still pending: NotReady, recorded, with a detail. */
    CHECK_OK(grLaunchHostFunc(s, sleep_2ms, NULL));
    CHECK_OK(grEventRecord(e2, s));
    CHECK_OK(grSetDevice(0));
    CHECK_GR(grErrorNotReady, grEventElapsedTime(&ms, e1, e2));
    CHECK_EQ(grPeekAtLastError(), grErrorNotReady);
    CHECK_DETAIL_HAS("grEventElapsedTime");
    CHECK_DETAIL_HAS("not completed");
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grEventElapsedTime(&ms, e1, e2));
    CHECK(ms >= 1.0f);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(e1));
    CHECK_OK(grEventDestroy(e2));
    CHECK_OK(grEventDestroy(plain));
    CHECK_OK(grStreamDestroy(s));
}

/* A graph whose event wait node and record node of the same event are not
 * ordered: the record is applied when the launch is queued, and the wait,
 * which ran at the launch's own position in its stream, waited for the
 * launch itself and never returned. */
GR_TEST_T(graph_event_wait_beside_a_record_of_the_same_event_finishes, 20)
{
    grGraph_t g;
    grGraphNode_t rec, wait;
    grEvent_t ev;
    grStream_t s = tl_stream(0);
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEventRecordNode(&rec, g, NULL, 0, ev));
    CHECK_OK(grGraphAddEventWaitNode(&wait, g, NULL, 0, ev));
    grGraphExec_t e = tl_instantiate(g);
    for (int i = 0; i < 3; i++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grEventQuery(ev));
    /* Ordered the other way (wait, then record) it finishes too. */
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphAddDependencies(g, &wait, &rec, NULL, 1));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grEventDestroy(ev));
}

/* An event recorded before a host function that blocks is complete once
 * the work before it is: grEventSynchronize returns with the host
 * function still running. The synchronising thread once took the stream
 * over after its event and ran the host function itself, so the gate
 * below, opened only after the call returns, held it until the gate's
 * timeout (about one run in three). */
GR_TEST(event_sync_returns_before_a_blocking_host_function_after_it)
{
    static atomic_int gate;
    grStream_t s = tl_stream(grStreamNonBlocking);
    grEvent_t ev;
    CHECK_OK(grEventCreate(&ev));
    int before = atomic_load(&tl_gate_timeouts);
    for (int i = 0; i < 10; i++) {
        atomic_store(&gate, 0);
        CHECK_OK(grEventRecord(ev, s));
        CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
        CHECK_OK(grEventSynchronize(ev));
        atomic_store(&gate, 1);
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(atomic_load(&tl_gate_timeouts), before);
    }
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
}
