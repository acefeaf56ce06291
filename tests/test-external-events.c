/*
 * test-external-events.c - grEventRecordWithFlags(grEventRecordExternal)
 * and grStreamWaitEvent(..., grEventWaitExternal): inside a capture they
 * add event record / wait nodes, outside one they are refused as CUDA 13
 * refuses them; bad flags are refused and change nothing.
 */
#include "testlib.h"

#include <stdatomic.h>

static void copy_plus_ten(void *p)
{
    atomic_int *pair = p;
    atomic_store(&pair[1], atomic_load(&pair[0]) + 10);
}

/* A test's streams (s captures, other stays outside) and its event. */
typedef struct streams_event {
    grStream_t s, other;
    grEvent_t ev;
} streams_event;

static streams_event streams_event_open(void)
{
    streams_event x;
    x.s = tl_stream(0);
    x.other = tl_stream(0);
    CHECK_OK(grEventCreate(&x.ev));
    return x;
}

/* Destroys e and g where not NULL, then the event and the streams. */
static void streams_event_close(streams_event *x, grGraphExec_t e, grGraph_t g)
{
    if (e)
        CHECK_OK(grGraphExecDestroy(e));
    if (g)
        CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(x->ev));
    CHECK_OK(grStreamDestroy(x->other));
    CHECK_OK(grStreamDestroy(x->s));
}

/* Ends the capture of s into *g, which must hold exactly n nodes (into
 * nodes[0..n)), nodes[at] of this type. */
static void end_capture_expect(grStream_t s, grGraph_t *g, grGraphNode_t *nodes, size_t n, size_t at,
                               grGraphNodeType type)
{
    grGraphNodeType t;
    CHECK_OK(grStreamEndCapture(s, g));
    tl_get_nodes(*g, nodes, n);
    CHECK_OK(grGraphNodeGetType(nodes[at], &t));
    CHECK_EQ(t, type);
}

GR_TEST(external_record_in_a_capture_adds_an_event_record_node)
{
    streams_event x = streams_event_open();
    grGraph_t g;
    grGraphNode_t nodes[2], dep[1];
    grEvent_t got;
    atomic_int flag = 0;
    size_t n = 1;
    CHECK_OK(grStreamBeginCapture(x.s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchHostFunc(x.s, tl_set_flag, &flag));
    CHECK_OK(grEventRecordWithFlags(x.ev, x.s, grEventRecordExternal));
    end_capture_expect(x.s, &g, nodes, 2, 1, grGraphNodeTypeEventRecord);
    CHECK_OK(grGraphEventRecordNodeGetEvent(nodes[1], &got));
    CHECK_PTR_EQ(got, x.ev);
    CHECK_OK(grGraphNodeGetDependencies(nodes[1], dep, NULL, &n));
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(dep[0], nodes[0]);
    /* Launched, the node records the event after the host node. */
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphLaunch(e, x.s));
    CHECK_OK(grEventSynchronize(x.ev));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grStreamSynchronize(x.s));
    streams_event_close(&x, e, g);
}

GR_TEST(external_wait_in_a_capture_adds_an_event_wait_node)
{
    streams_event x = streams_event_open();
    grGraph_t g;
    grGraphNode_t nodes[2];
    atomic_int pair[2] = {0, 0};
    size_t n = 0;
    CHECK_OK(grStreamBeginCapture(x.s, grStreamCaptureModeGlobal));
    /* The event is recorded outside the capture, after the graph is made. */
    CHECK_OK(grStreamWaitEvent(x.s, x.ev, grEventWaitExternal));
    CHECK_OK(grLaunchHostFunc(x.s, copy_plus_ten, pair));
    CHECK_EQ(tl_capture_status(x.s), grStreamCaptureStatusActive);
    end_capture_expect(x.s, &g, nodes, 2, 0, grGraphNodeTypeWaitEvent);
    CHECK_OK(grGraphNodeGetDependencies(nodes[1], NULL, NULL, &n));
    CHECK_EQ(n, 1);
    /* Launched after a record on another stream: the wait orders the
     * host node after that stream's work. */
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grLaunchHostFunc(x.other, tl_set_flag, &pair[0]));
    CHECK_OK(grEventRecord(x.ev, x.other));
    tl_run_on(e, x.s);
    CHECK_EQ(atomic_load(&pair[1]), 11);
    CHECK_OK(grStreamSynchronize(x.other));
    streams_event_close(&x, e, g);
}

GR_TEST(without_the_external_flag_capture_keeps_its_cross_stream_rules)
{
    streams_event x = streams_event_open();
    grGraph_t g;
    CHECK_OK(grEventRecord(x.ev, x.other));
    CHECK_OK(grStreamBeginCapture(x.s, grStreamCaptureModeGlobal));
    /* A default wait on an event recorded outside the capture: isolation. */
    CHECK_GR(grErrorStreamCaptureIsolation, grStreamWaitEvent(x.s, x.ev, grEventWaitDefault));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(x.s, &g));
    /* A default record in a capture adds no node: it names a join point. */
    CHECK_OK(grStreamBeginCapture(x.s, grStreamCaptureModeGlobal));
    CHECK_OK(grEventRecordWithFlags(x.ev, x.s, grEventRecordDefault));
    CHECK_OK(grStreamEndCapture(x.s, &g));
    CHECK_EQ(tl_node_count(g), 0);
    streams_event_close(&x, NULL, g);
}

GR_TEST(external_flags_outside_a_capture_are_refused_as_cuda_refuses_them)
{
    streams_event x = streams_event_open(); /* records on s, waits on other */
    /* CUDA 13 answers cudaErrorIllegalState (docs/cuda13-probes.md). */
    CHECK_GR(grErrorIllegalState, grEventRecordWithFlags(x.ev, x.s, grEventRecordExternal));
    CHECK_DETAIL_HAS("not capturing");
    CHECK_GR(grErrorIllegalState, grStreamWaitEvent(x.other, x.ev, grEventWaitExternal));
    /* Nothing was recorded: the event is still unrecorded, complete. */
    CHECK_OK(grEventQuery(x.ev));
    /* Flags 0 are the ordinary record and wait. */
    CHECK_OK(grEventRecordWithFlags(x.ev, x.s, grEventRecordDefault));
    CHECK_OK(grStreamWaitEvent(x.other, x.ev, grEventWaitDefault));
    CHECK_OK(grStreamSynchronize(x.other));
    streams_event_close(&x, NULL, NULL);
}

GR_TEST(unknown_event_flags_are_refused_and_record_nothing)
{
    grEvent_t ev;
    grStream_t s = tl_stream(0);
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_GR(grErrorInvalidValue, grEventRecordWithFlags(ev, s, 0x2));
    CHECK_DETAIL_HAS("grEventRecordExternal");
    CHECK_GR(grErrorInvalidValue, grStreamWaitEvent(s, ev, 0x3));
    CHECK_DETAIL_HAS("grEventWaitExternal");
    tl_end_capture_empty(s); /* not invalidated */
    /* Outside a capture, the event stays unrecorded. */
    CHECK_GR(grErrorInvalidValue, grEventRecordWithFlags(ev, s, 0x80));
    CHECK_OK(grEventQuery(ev));
    CHECK_GR(grErrorInvalidResourceHandle, grEventRecordWithFlags(NULL, s, grEventRecordExternal));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
}
