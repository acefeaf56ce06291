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

GR_TEST(external_record_in_a_capture_adds_an_event_record_node)
{
    grEvent_t ev;
    grGraph_t g;
    grGraphExec_t e;
    grGraphNode_t nodes[2], dep[1];
    grGraphNodeType t;
    grEvent_t got;
    atomic_int flag = 0;
    size_t n = 2;
    grStream_t s = tl_stream(0);
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchHostFunc(s, tl_set_flag, &flag));
    CHECK_OK(grEventRecordWithFlags(ev, s, grEventRecordExternal));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK_EQ(n, 2);
    CHECK_OK(grGraphNodeGetType(nodes[1], &t));
    CHECK_EQ(t, grGraphNodeTypeEventRecord);
    CHECK_OK(grGraphEventRecordNodeGetEvent(nodes[1], &got));
    CHECK_PTR_EQ(got, ev);
    n = 1;
    CHECK_OK(grGraphNodeGetDependencies(nodes[1], dep, NULL, &n));
    CHECK_EQ(n, 1);
    CHECK_PTR_EQ(dep[0], nodes[0]);
    /* Launched, the node records the event after the host node. */
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grEventSynchronize(ev));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(external_wait_in_a_capture_adds_an_event_wait_node)
{
    grStream_t s, other;
    grEvent_t ev;
    grGraph_t g;
    grGraphNode_t nodes[2];
    grGraphNodeType t;
    grStreamCaptureStatus st;
    atomic_int pair[2] = {0, 0};
    size_t n = 2;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamCreate(&other));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    /* The event is recorded outside the capture, after the graph is made. */
    CHECK_OK(grStreamWaitEvent(s, ev, grEventWaitExternal));
    CHECK_OK(grLaunchHostFunc(s, copy_plus_ten, pair));
    CHECK_OK(grStreamIsCapturing(s, &st));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK_EQ(n, 2);
    CHECK_OK(grGraphNodeGetType(nodes[0], &t));
    CHECK_EQ(t, grGraphNodeTypeWaitEvent);
    n = 0;
    CHECK_OK(grGraphNodeGetDependencies(nodes[1], NULL, NULL, &n));
    CHECK_EQ(n, 1);
    /* Launched after a record on another stream: the wait orders the
     * host node after that stream's work. */
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grLaunchHostFunc(other, tl_set_flag, &pair[0]));
    CHECK_OK(grEventRecord(ev, other));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&pair[1]), 11);
    CHECK_OK(grStreamSynchronize(other));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(other));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(without_the_external_flag_capture_keeps_its_cross_stream_rules)
{
    grStream_t s, other;
    grEvent_t ev;
    grGraph_t g;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamCreate(&other));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grEventRecord(ev, other));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    /* A default wait on an event recorded outside the capture: isolation. */
    CHECK_GR(grErrorStreamCaptureIsolation, grStreamWaitEvent(s, ev, grEventWaitDefault));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    /* A default record in a capture adds no node: it names a join point. */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grEventRecordWithFlags(ev, s, grEventRecordDefault));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(other));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(external_flags_outside_a_capture_are_refused_as_cuda_refuses_them)
{
    grStream_t a, b;
    grEvent_t ev;
    CHECK_OK(grStreamCreate(&a));
    CHECK_OK(grStreamCreate(&b));
    CHECK_OK(grEventCreate(&ev));
    /* CUDA 13 answers cudaErrorIllegalState (docs/cuda13-probes.md). */
    CHECK_GR(grErrorIllegalState, grEventRecordWithFlags(ev, a, grEventRecordExternal));
    CHECK_DETAIL_HAS("not capturing");
    CHECK_GR(grErrorIllegalState, grStreamWaitEvent(b, ev, grEventWaitExternal));
    /* Nothing was recorded: the event is still unrecorded, complete. */
    CHECK_OK(grEventQuery(ev));
    /* Flags 0 are the ordinary record and wait. */
    CHECK_OK(grEventRecordWithFlags(ev, a, grEventRecordDefault));
    CHECK_OK(grStreamWaitEvent(b, ev, grEventWaitDefault));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
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
