/* test-capture.c - stream capture: begin/end errors, dependency queries
 * and updates, capture into an existing graph, re-capture with
 * grGraphExecUpdate, captures on several threads. The topology of captured
 * graphs (chains, fork and join) is in test-capture-topology.c, the mode
 * rules in test-capture-rules.c. */
#include "testlib.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

GR_TEST(capture_begin_and_end_refuse_bad_calls)
{
    grGraph_t g = (grGraph_t)1;
    grStream_t s = tl_stream(0);
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamBeginCapture(NULL, grStreamCaptureModeRelaxed));
    CHECK_DETAIL_HAS("legacy");
    CHECK_GR(grErrorStreamCaptureUnsupported,
             grStreamBeginCapture(grStreamLegacy, grStreamCaptureModeRelaxed));
    CHECK_GR(grErrorInvalidValue, grStreamBeginCapture(s, (grStreamCaptureMode)7));
    CHECK_GR(grErrorIllegalState, grStreamEndCapture(s, &g));
    CHECK(g == (grGraph_t)1);
    CHECK_GR(grErrorIllegalState, grStreamEndCapture(s, NULL));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    CHECK_GR(grErrorIllegalState, grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    CHECK_DETAIL_HAS("already takes part in capture #");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamDestroy(s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 0); /* an empty capture is an empty graph */
    CHECK_OK(grGraphDestroy(g));
    CHECK_GR(grErrorInvalidValue, grStreamIsCapturing(s, NULL));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_per_thread_stream_can_be_captured)
{
    static int x[1];
    grGraph_t g;
    CHECK_OK(grStreamBeginCapture(grStreamPerThread, grStreamCaptureModeThreadLocal));
    tl_launch_add_i32(grStreamPerThread, x, 1);
    CHECK_OK(grStreamEndCapture(grStreamPerThread, &g));
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(capture_get_info_reports_id_graph_and_dependencies)
{
    static int x[2];
    grStream_t s, s2;
    grEvent_t e1, e2;
    grStreamCaptureStatus st;
    unsigned long long id = 0, id2 = 0, id3 = 0;
    grGraph_t g = NULL, out;
    const grGraphNode_t *deps = NULL;
    size_t nd = 99;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e1));
    CHECK_OK(grEventCreate(&e2));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, &id, &g, &deps, NULL, &nd));
    CHECK_EQ(st, grStreamCaptureStatusNone);
    CHECK_EQ(nd, 99); /* outputs other than the status are left alone */
    CHECK_GR(grErrorInvalidValue, grStreamGetCaptureInfo(s, NULL, &id, NULL, NULL, NULL, NULL));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, &id, &g, &deps, NULL, &nd));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK(id != 0 && g != NULL);
    CHECK_EQ(nd, 0);
    tl_launch_add_i32(s, x, 1);
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &nd));
    CHECK_EQ(nd, 1);
    CHECK_OK(grEventRecord(e1, s));
    CHECK_OK(grStreamWaitEvent(s2, e1, 0));
    CHECK_OK(grStreamGetCaptureInfo(s2, &st, &id2, NULL, NULL, NULL, &nd));
    CHECK_EQ(id2, id);
    CHECK_EQ(nd, 1);
    tl_launch_add_i32(s2, x + 1, 1);
    CHECK_OK(grEventRecord(e2, s2));
    CHECK_OK(grStreamWaitEvent(s, e2, 0));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &nd));
    CHECK_EQ(nd, 2);
    CHECK_OK(grStreamEndCapture(s, &out));
    CHECK_PTR_EQ(out, g);
    CHECK_OK(grGraphDestroy(out));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, &id3, NULL, NULL, NULL, NULL));
    CHECK(id3 != id); /* ids are never reused */
    CHECK_OK(grStreamEndCapture(s, &out));
    CHECK_OK(grGraphDestroy(out));
    CHECK_OK(grEventDestroy(e1));
    CHECK_OK(grEventDestroy(e2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
}

GR_TEST(capture_update_dependencies_sets_and_adds)
{
    static int x[1];
    grStreamCaptureStatus st;
    grGraph_t g, other, out;
    grGraphNode_t first, foreign, n[3];
    const grGraphNode_t *deps;
    size_t nd;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphAddEmptyNode(&foreign, other, NULL, 0));
    CHECK_GR(grErrorIllegalState,
             grStreamUpdateCaptureDependencies(s, NULL, NULL, 0, grStreamSetCaptureDependencies));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, &g, &deps, NULL, &nd));
    first = deps[0];
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamUpdateCaptureDependencies(s, NULL, NULL, 0, grStreamSetCaptureDependencies));
    tl_launch_add_i32(s, x, 1); /* a new root */
    CHECK_OK(grStreamUpdateCaptureDependencies(s, &first, NULL, 1, grStreamAddCaptureDependencies));
    CHECK_OK(grStreamUpdateCaptureDependencies(s, &first, NULL, 1, grStreamAddCaptureDependencies));
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, NULL, &nd));
    CHECK_EQ(nd, 2); /* duplicates are ignored */
    CHECK_GR(grErrorInvalidValue, grStreamUpdateCaptureDependencies(s, &first, NULL, 1, 7));
    CHECK_GR(grErrorInvalidValue,
             grStreamUpdateCaptureDependencies(s, &foreign, NULL, 1, grStreamAddCaptureDependencies));
    CHECK_DETAIL_HAS("not a live node of the graph of capture #");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive); /* refusals do not invalidate */
    CHECK_OK(grStreamEndCapture(s, &out));
    tl_get_nodes(out, n, 3);
    size_t roots = 0;
    CHECK_OK(grGraphGetRootNodes(out, NULL, &roots));
    CHECK_EQ(roots, 2);
    CHECK(!tl_has_edge(n[1], n[2]));
    CHECK_OK(grGraphDestroy(out));
    CHECK_OK(grGraphDestroy(other));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_to_existing_graph_appends_after_given_nodes)
{
    static int x[1];
    grGraph_t g, out;
    grGraphNode_t a, b, n[3];
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grGraphAddEmptyNode(&b, g, &a, 1));
    CHECK_GR(grErrorInvalidValue,
             grStreamBeginCaptureToGraph(s, NULL, NULL, NULL, 0, grStreamCaptureModeGlobal));
    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &a, NULL, 1, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamEndCapture(s, &out));
    CHECK_PTR_EQ(out, g);
    tl_get_nodes(g, n, 3);
    CHECK(tl_has_edge(a, n[2]));
    CHECK(!tl_has_edge(b, n[2]));
    /* A failed capture into it leaves the graph as it was. */
    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &b, NULL, 1, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(s, x, 1);
    tl_launch_add_i32(s, x, 1);
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamSynchronize(s));
    out = (grGraph_t)1;
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &out));
    CHECK(out == NULL);
    CHECK_EQ(tl_node_count(g), 3);
    CHECK_EQ(tl_edge_count(g), 2);
    tl_run_graph_on(g, s);
    CHECK_EQ(x[0], 1);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* NVIDIA's graphConditionalNodes ends a capture into a body graph with
 * grStreamEndCapture(s, NULL): the graph is the caller's already. */
GR_TEST(capture_to_graph_ends_without_an_output_pointer)
{
    static int x[1];
    grStream_t s, s2;
    grGraph_t g;
    grGraphNode_t a;
    grEvent_t fork, join;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&fork));
    CHECK_OK(grEventCreate(&join));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &a, NULL, 1, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(fork, s));
    CHECK_OK(grStreamWaitEvent(s2, fork, 0));
    tl_launch_add_i32(s2, x, 2);
    /* A stream that joined the capture did not begin it: unmatched, with
     * or without an output pointer. */
    CHECK_GR(grErrorStreamCaptureUnmatched, grStreamEndCapture(s2, NULL));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, NULL));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    CHECK_EQ(tl_capture_status(s2), grStreamCaptureStatusNone);
    CHECK_EQ(tl_node_count(g), 1); /* the failed capture's nodes are taken back */

    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &a, NULL, 1, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(fork, s));
    CHECK_OK(grStreamWaitEvent(s2, fork, 0));
    tl_launch_add_i32(s2, x, 2);
    CHECK_OK(grEventRecord(join, s2));
    CHECK_OK(grStreamWaitEvent(s, join, 0));
    CHECK_OK(grStreamEndCapture(s, NULL));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    CHECK_EQ(tl_capture_status(s2), grStreamCaptureStatusNone);
    CHECK_EQ(tl_node_count(g), 3);
    CHECK_EQ(tl_edge_count(g), 2);
    tl_run_graph_on(g, s);
    CHECK_EQ(x[0], 3);
    /* The stream is free: its work runs again, and it captures again. */
    tl_launch_add_i32(s, x, 4);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(x[0], 7);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grEventDestroy(join));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
}

/* CUDA 13.0 (measured on an H100: tests/probes/parity.cu, "endnull"):
 * cudaStreamEndCapture(s, NULL) after a plain cudaStreamBeginCapture
 * returns cudaSuccess and ends the capture. The graph nobody received is
 * destroyed; the stream runs work again and captures again. */
GR_TEST(capture_plain_end_without_an_output_pointer_ends_the_capture)
{
    static int x[1];
    grStream_t s;
    grGraph_t g;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamEndCapture(s, NULL));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    CHECK_EQ(x[0], 0); /* captured, never run */
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(x[0], 1);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 2);
    tl_run_graph_on(g, s);
    CHECK_EQ(x[0], 3);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_merge_of_two_captures_is_refused)
{
    static int x[2];
    grStream_t s, s2, u;
    grEvent_t e1, e2;
    grGraph_t g;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&u, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e1));
    CHECK_OK(grEventCreate(&e2));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    CHECK_OK(grStreamBeginCapture(s2, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(s, x, 1);
    tl_launch_add_i32(s2, x + 1, 1);
    CHECK_OK(grEventRecord(e1, s));
    CHECK_OK(grEventRecord(e2, s2));
    CHECK_OK(grStreamWaitEvent(u, e1, 0)); /* u joins the first capture */
    CHECK_GR(grErrorStreamCaptureMerge, grStreamWaitEvent(u, e2, 0));
    CHECK_DETAIL_HAS("cannot be merged");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_EQ(tl_capture_status(s2), grStreamCaptureStatusInvalidated);
    CHECK_EQ(tl_capture_status(u), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s2, &g));
    CHECK_EQ(tl_capture_status(u), grStreamCaptureStatusNone);
    CHECK_OK(grEventDestroy(e1));
    CHECK_OK(grEventDestroy(e2));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
    CHECK_OK(grStreamDestroy(u));
}

GR_TEST(capture_wait_on_uncaptured_record_is_isolation)
{
    static int x[2];
    grStream_t s, u;
    grEvent_t e, fresh;
    grGraph_t g;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&u, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grEventCreate(&fresh));
    tl_launch_add_i32(u, x, 1);
    CHECK_OK(grEventRecord(e, u));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(s, x + 1, 1);
    CHECK_OK(grStreamWaitEvent(s, fresh, 0)); /* never recorded: no-op */
    CHECK_GR(grErrorStreamCaptureIsolation, grStreamWaitEvent(s, e, 0));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_DETAIL_HAS("recorded outside any capture");
    CHECK_OK(grStreamSynchronize(u));
    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grEventDestroy(fresh));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(u));
}

GR_TEST(capture_event_of_ended_capture_cannot_be_waited_until_re_recorded)
{
    static int x[1];
    grStream_t s, u;
    grEvent_t e;
    grGraph_t g;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&u, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_GR(grErrorInvalidValue, grStreamWaitEvent(u, e, 0));
    CHECK_DETAIL_HAS("capture that has ended");
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    CHECK_GR(grErrorInvalidValue, grStreamWaitEvent(s, e, 0));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    grGraph_t g2;
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    /* An eager record makes it an ordinary event again. */
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grStreamWaitEvent(u, e, 0));
    CHECK_OK(grStreamSynchronize(u));
    CHECK_EQ(x[0], 1);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(u));
}

GR_TEST(capture_graph_launch_into_capture_is_refused)
{
    static int x[1];
    grGraph_t g, out;
    grGraphNode_t n;
    grGraphExec_t e;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&n, g, NULL, 0));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_GR(grErrorStreamCaptureUnsupported, grGraphLaunch(e, s));
    CHECK_DETAIL_HAS("grGraphAddChildGraphNode");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &out));
    CHECK_DETAIL_HAS("first by: grGraphLaunch");
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_invalidated_stream_captures_again)
{
    static int x[1];
    grStream_t s;
    grGraph_t g;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    tl_launch_add_i32(s, x, 1);
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamQuery(s));
    void *args[2];
    int *p = x, v = 1;
    args[0] = &p;
    args[1] = &v;
    CHECK_GR(grErrorStreamCaptureInvalidated,
             grLaunchKernel(tl_kernel_add_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_DETAIL_HAS("first by: grStreamQuery");
    CHECK_GR(grErrorStreamCaptureInvalidated, grMemsetAsync(x, 0, sizeof x, s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_DETAIL_HAS("first by: grStreamQuery: stream");
    CHECK(g == NULL);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_OK(grGraphDestroy(g));
    tl_launch_add_i32(s, x, 7); /* eager again */
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(x[0], 7);
    CHECK_OK(grStreamDestroy(s));
}

/* The article's hot path: capture the same code with new pointers, update
 * the executable in place, replay. */
GR_TEST(capture_recapture_with_exec_update_uses_new_pointers)
{
    static int a[2], b[2];
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    tl_launch_add_i32(s, a, 1);
    tl_launch_add_i32(s, a + 1, 2);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(a[0] + a[1], 3);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, b, 10);
    tl_launch_add_i32(s, b + 1, 20);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(a[0] + a[1], 3);
    CHECK_EQ(b[0], 10);
    CHECK_EQ(b[1], 20);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
}

/* Eight threads capture their own chains at once; each graph is its own. */
typedef struct cap_thread {
    int index;
    int data[4];
    grError_t err;
    size_t nodes;
} cap_thread;

static void *capture_worker(void *p)
{
    cap_thread *t = p;
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    t->err = grStreamCreateWithFlags(&s, grStreamNonBlocking);
    for (int round = 0; round < 20 && !t->err; round++) {
        if ((t->err = grStreamBeginCapture(s, grStreamCaptureModeThreadLocal)))
            break;
        for (int i = 0; i < 4; i++) {
            int *ptr = &t->data[i], v = t->index + 1;
            void *args[2] = {&ptr, &v};
            if ((t->err =
                     grLaunchKernel(tl_kernel_add_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s)))
                break;
        }
        if ((t->err = grStreamEndCapture(s, &g)))
            break;
        t->nodes = 0;
        grGraphGetNodes(g, NULL, &t->nodes);
        if ((t->err = grGraphInstantiate(&e, g, 0)))
            break;
        t->err = grGraphLaunch(e, s);
        if (!t->err)
            t->err = grStreamSynchronize(s);
        grGraphExecDestroy(e);
        grGraphDestroy(g);
    }
    grStreamDestroy(s);
    return NULL;
}

GR_TEST(capture_concurrent_captures_from_eight_threads_stay_apart)
{
    static cap_thread t[8];
    pthread_t th[8];
    tl_kernel_add_i32();
    for (int i = 0; i < 8; i++) {
        t[i].index = i;
        CHECK_EQ(pthread_create(&th[i], NULL, capture_worker, &t[i]), 0);
    }
    for (int i = 0; i < 8; i++)
        CHECK_EQ(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 8; i++) {
        CHECK_OK(t[i].err);
        CHECK_EQ(t[i].nodes, 4);
        for (int j = 0; j < 4; j++)
            CHECK_EQ(t[i].data[j], 20 * (i + 1));
    }
}

static void *end_other(void *p)
{
    grStream_t s = *(grStream_t *)p;
    grGraph_t g = (grGraph_t)1;
    grError_t err = grStreamEndCapture(s, &g);
    if (err == grSuccess)
        grGraphDestroy(g);
    else if (g != NULL || !strstr(grGetLastErrorDetail(), "must be ended by the thread that began it"))
        err = grErrorUnknown;
    return (void *)(intptr_t)err;
}

GR_TEST(capture_end_from_another_thread_is_wrong_thread_unless_relaxed)
{
    pthread_t th;
    void *r;
    grStreamCaptureMode modes[3] = {grStreamCaptureModeGlobal, grStreamCaptureModeThreadLocal,
                                    grStreamCaptureModeRelaxed};
    grError_t want[3] = {grErrorStreamCaptureWrongThread, grErrorStreamCaptureWrongThread, grSuccess};
    grStream_t s = tl_stream(grStreamNonBlocking);
    for (int m = 0; m < 3; m++) {
        CHECK_OK(grStreamBeginCapture(s, modes[m]));
        CHECK_EQ(pthread_create(&th, NULL, end_other, &s), 0);
        CHECK_EQ(pthread_join(th, &r), 0);
        CHECK_EQ((grError_t)(intptr_t)r, want[m]);
        /* Either way the capture has ended (CUDA: status None). */
        CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    }
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_legacy_stream_work_with_blocking_capture_is_implicit)
{
    static int x[2];
    grStream_t sb, nb;
    grGraph_t g;
    grStreamCaptureStatus st;
    CHECK_OK(grStreamCreate(&sb));
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    /* A non-blocking capture leaves the legacy stream alone. */
    CHECK_OK(grStreamBeginCapture(nb, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(nb, x, 1);
    tl_launch_add_i32(NULL, x + 1, 1);
    CHECK_OK(grStreamIsCapturing(NULL, &st));
    CHECK_EQ(st, grStreamCaptureStatusNone);
    CHECK_OK(grStreamEndCapture(nb, &g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(x[1], 1);
    /* A blocking one does not. */
    CHECK_OK(grStreamBeginCapture(sb, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(sb, x, 1);
    CHECK_GR(grErrorStreamCaptureImplicit, grStreamIsCapturing(NULL, &st));
    void *args[2];
    int *p = x + 1, v = 1;
    args[0] = &p;
    args[1] = &v;
    CHECK_GR(grErrorStreamCaptureImplicit,
             grLaunchKernel(tl_kernel_add_i32(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL));
    CHECK_DETAIL_HAS("legacy stream");
    CHECK_EQ(tl_capture_status(sb), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(sb, &g));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(x[0], 0);
    CHECK_EQ(x[1], 1);
    CHECK_OK(grStreamDestroy(sb));
    CHECK_OK(grStreamDestroy(nb));
}

/* The join check at grStreamEndCapture does not depend on what earlier
 * walks (instantiation) left in the graph's nodes: a capture into an
 * existing graph whose forked stream ends on a node the origin does not
 * follow is unjoined, whether or not that graph was instantiated first. */
static grError_t capture_forked_onto(grGraph_t g, grGraphNode_t a, grGraphNode_t b)
{
    grStream_t s, s2;
    grEvent_t ev;
    grGraph_t out = NULL;
    static int x[1];
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&ev));
    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &a, NULL, 1, grStreamCaptureModeGlobal));
    CHECK_OK(grEventRecord(ev, s));
    CHECK_OK(grStreamWaitEvent(s2, ev, 0));
    CHECK_OK(grStreamUpdateCaptureDependencies(s2, &b, NULL, 1, grStreamSetCaptureDependencies));
    tl_launch_add_i32(s, x, 1);
    grError_t e = grStreamEndCapture(s, &out);
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
    return e;
}

GR_TEST(capture_join_check_ignores_what_instantiation_left_in_the_graph)
{
    for (int instantiated = 0; instantiated < 2; instantiated++) {
        grGraph_t g;
        grGraphNode_t a, b;
        CHECK_OK(grGraphCreate(&g, 0));
        CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
        CHECK_OK(grGraphAddEmptyNode(&b, g, NULL, 0));
        if (instantiated) {
            grGraphExec_t x;
            CHECK_OK(grGraphInstantiate(&x, g, 0));
            CHECK_OK(grGraphExecDestroy(x));
        }
        CHECK_GR(grErrorStreamCaptureUnjoined, capture_forked_onto(g, a, b));
        CHECK_OK(grGraphDestroy(g));
    }
}

GR_TEST(is_capturing_refusal_names_grStreamIsCapturing)
{
    grStream_t s;
    grGraph_t g;
    grStreamCaptureStatus st;
    CHECK_OK(grStreamCreate(&s)); /* blocking */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    CHECK_GR(grErrorStreamCaptureImplicit, grStreamIsCapturing(NULL, &st));
    CHECK(strncmp(grGetLastErrorDetail(), "grStreamIsCapturing:", 20) == 0);
    CHECK_GR(grErrorStreamCaptureImplicit, grStreamGetCaptureInfo(NULL, &st, NULL, NULL, NULL, NULL, NULL));
    CHECK(strncmp(grGetLastErrorDetail(), "grStreamGetCaptureInfo:", 23) == 0);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(zero_byte_copies_on_an_invalidated_capture_are_refused)
{
    grStream_t s;
    grGraph_t g = NULL;
    void *p;
    static char buf[64];
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    /* Zero bytes on an active capture: nothing to record, success. */
    CHECK_OK(grMemsetAsync(buf, 0, 0, s));
    CHECK_OK(grMemcpyAsync(buf, buf + 1, 0, grMemcpyDefault, s));
    CHECK_GR(grErrorStreamCaptureUnsupported, grMalloc(&p, 64)); /* invalidates the capture */
    CHECK_REFUSED(grErrorStreamCaptureInvalidated, grMemsetAsync, buf, 0, 0, s);
    CHECK_REFUSED(grErrorStreamCaptureInvalidated, grMemcpyAsync, buf, buf + 1, 0, grMemcpyDefault, s);
    CHECK_GR(grErrorStreamCaptureInvalidated, grMemsetAsync(buf, 0, 1, s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK(g == NULL);
    CHECK_OK(grStreamDestroy(s));
}

/* A graph being built by a capture cannot be the target of a second one,
 * nor be destroyed or lose nodes until the capture ends: a failed capture
 * takes back the nodes it added, and its dependencies point at nodes. */
GR_TEST(graph_under_capture_is_protected_until_the_capture_ends)
{
    static int x[1];
    grStream_t s, s2;
    grGraph_t g, out = NULL;
    grGraphNode_t a;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK_OK(grStreamBeginCaptureToGraph(s, g, &a, NULL, 1, grStreamCaptureModeRelaxed));
    tl_launch_add_i32(s, x, 1);
    CHECK_GR(grErrorIllegalState,
             grStreamBeginCaptureToGraph(s2, g, &a, NULL, 1, grStreamCaptureModeRelaxed));
    CHECK_DETAIL_HAS("another stream capture");
    CHECK_REFUSED(grErrorIllegalState, grGraphDestroy, g);
    CHECK_GR(grErrorIllegalState, grGraphDestroyNode(a));
    CHECK_OK(grStreamEndCapture(s, &out));
    CHECK_PTR_EQ(out, g);
    CHECK_EQ(tl_node_count(g), 2);
    /* The graph of a grStreamBeginCapture, reachable through
     * grStreamGetCaptureInfo, is protected the same way. */
    grGraph_t cg = NULL;
    grStreamCaptureStatus st;
    CHECK_OK(grStreamBeginCapture(s2, grStreamCaptureModeRelaxed));
    CHECK_OK(grStreamGetCaptureInfo(s2, &st, NULL, &cg, NULL, NULL, NULL));
    CHECK(cg != NULL);
    CHECK_GR(grErrorIllegalState, grGraphDestroy(cg));
    CHECK_OK(grStreamEndCapture(s2, &out));
    CHECK_OK(grGraphDestroy(out));
    CHECK_OK(grGraphDestroyNode(a));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
}

GR_TEST(zero_byte_copies_on_the_legacy_stream_are_refused_while_a_blocking_stream_captures)
{
    static char buf[16];
    grStream_t s = tl_capturing_stream(0, grStreamCaptureModeRelaxed); /* blocking */
    CHECK_GR(grErrorStreamCaptureImplicit, grMemcpyAsync(buf, buf + 8, 8, grMemcpyDefault, NULL));
    CHECK_GR(grErrorStreamCaptureImplicit, grMemcpyAsync(buf, buf + 8, 0, grMemcpyDefault, NULL));
    CHECK_GR(grErrorStreamCaptureImplicit, grMemsetAsync(buf, 0, 0, NULL));
    tl_end_invalidated(s);
}

GR_TEST(capture_event_of_ended_capture_is_refused_by_query_synchronize_and_elapsed_time)
{
    static int x[1];
    grEvent_t e, plain;
    grGraph_t g;
    float ms = 0;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grEventCreate(&plain));
    CHECK_OK(grEventRecord(plain, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    /* Not "as if never recorded": the record names graph nodes, not work. */
    CHECK_GR(grErrorInvalidValue, grEventQuery(e));
    CHECK_DETAIL_HAS("grEventQuery: ");
    CHECK_DETAIL_HAS("capture that has ended");
    CHECK_GR(grErrorInvalidValue, grEventSynchronize(e));
    CHECK_DETAIL_HAS("grEventSynchronize: ");
    CHECK_DETAIL_HAS("record the event again outside a capture");
    CHECK_GR(grErrorInvalidValue, grEventElapsedTime(&ms, plain, e));
    CHECK_DETAIL_HAS("grEventElapsedTime: ");
    /* An eager record makes it an ordinary event again. */
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grEventSynchronize(e));
    CHECK_OK(grEventQuery(e));
    CHECK_OK(grEventElapsedTime(&ms, plain, e));
    CHECK_EQ(x[0], 0); /* the captured launch never ran */
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(plain));
    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grStreamDestroy(s));
}
