/* test-capture-topology.c - the graphs stream capture builds: a chain on
 * one stream, copies, memsets and host functions as nodes, forks into
 * other streams and joins back with CUDA's edges, unjoined work refused
 * at the end of the capture. */
#include "testlib.h"

#include <stdbool.h>
#include <stdint.h>

GR_TEST(capture_three_kernels_on_one_stream_make_a_chain)
{
    static int x[1];
    grStream_t s;
    grGraph_t g;
    grGraphNode_t n[3];
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
    tl_launch_add_i32(s, x, 1);
    tl_launch_add_i32(s, x, 10);
    tl_launch_add_i32(s, x, 100);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    CHECK_EQ(x[0], 0); /* recorded, not run */
    CHECK_EQ(tl_node_count(g), 3);
    CHECK_EQ(tl_edge_count(g), 2);
    tl_get_nodes(g, n, 3);
    CHECK(tl_has_edge(n[0], n[1]));
    CHECK(tl_has_edge(n[1], n[2]));
    grGraphNodeType t;
    CHECK_OK(grGraphNodeGetType(n[0], &t));
    CHECK_EQ(t, grGraphNodeTypeKernel);
    tl_run_graph_on(g, s);
    tl_run_graph_on(g, s);
    CHECK_EQ(x[0], 222);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

static void host_inc(void *p)
{
    ++*(int *)p;
}

GR_TEST(capture_copies_memsets_and_host_functions_become_nodes)
{
    static int src[4] = {1, 2, 3, 4}, dst[4], hits;
    grStream_t s;
    grGraph_t g;
    grGraphNode_t n[3];
    grGraphNodeType t;
    s = tl_capturing_stream(grStreamNonBlocking, grStreamCaptureModeGlobal);
    CHECK_OK(grMemsetAsync(dst, 0x7f, sizeof dst, s));
    CHECK_OK(grMemcpyAsync(dst, src, sizeof src, grMemcpyHostToHost, s));
    CHECK_OK(grLaunchHostFunc(s, host_inc, &hits));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(hits, 0);
    CHECK_EQ(tl_node_count(g), 3);
    tl_get_nodes(g, n, 3);
    CHECK_OK(grGraphNodeGetType(n[0], &t));
    CHECK_EQ(t, grGraphNodeTypeMemset);
    CHECK_OK(grGraphNodeGetType(n[1], &t));
    CHECK_EQ(t, grGraphNodeTypeMemcpy);
    CHECK_OK(grGraphNodeGetType(n[2], &t));
    CHECK_EQ(t, grGraphNodeTypeHost);
    tl_run_graph_on(g, s);
    CHECK_EQ(dst[3], 4);
    CHECK_EQ(hits, 1);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* Captures root; fork to b[0..2]; one kernel each; join with 'join';
 * final kernel. join 0: one event per branch; 1: one shared event
 * recorded and waited in turn; 2: shared event recorded by all, waited
 * once. */
static grError_t capture_diamond(int join, int *x, grGraph_t *g)
{
    grStream_t s, b[3];
    grEvent_t fork, ev[3];
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&fork));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(grStreamCreateWithFlags(&b[i], grStreamNonBlocking));
        CHECK_OK(grEventCreate(&ev[i]));
    }
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(fork, s));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(grStreamWaitEvent(b[i], fork, 0));
        CHECK_EQ(tl_capture_status(b[i]), grStreamCaptureStatusActive);
        tl_launch_add_i32(b[i], x + 1 + i, 2);
    }
    for (int i = 0; i < 3; i++) {
        if (join == 0) {
            CHECK_OK(grEventRecord(ev[i], b[i]));
            CHECK_OK(grStreamWaitEvent(s, ev[i], 0));
        } else {
            CHECK_OK(grEventRecord(ev[0], b[i]));
            if (join == 1)
                CHECK_OK(grStreamWaitEvent(s, ev[0], 0));
        }
    }
    if (join == 2)
        CHECK_OK(grStreamWaitEvent(s, ev[0], 0));
    tl_launch_add_i32(s, x + 4, 3);
    grError_t err = grStreamEndCapture(s, g);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(tl_capture_status(b[i]), grStreamCaptureStatusNone);
        CHECK_OK(grStreamDestroy(b[i]));
        CHECK_OK(grEventDestroy(ev[i]));
    }
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grStreamDestroy(s));
    return err;
}

/* CUDA's topology (probe): root -> each branch, each branch -> final, and
 * root -> final (the joined stream still depends on its own last node). */
static void check_diamond(grGraph_t g)
{
    grGraphNode_t n[5];
    CHECK_EQ(tl_node_count(g), 5);
    CHECK_EQ(tl_edge_count(g), 7);
    tl_get_nodes(g, n, 5);
    for (int i = 1; i <= 3; i++) {
        size_t nd = 0, ns = 0;
        CHECK(tl_has_edge(n[0], n[i]));
        CHECK(tl_has_edge(n[i], n[4]));
        CHECK_OK(grGraphNodeGetDependencies(n[i], NULL, NULL, &nd));
        CHECK_OK(grGraphNodeGetDependentNodes(n[i], NULL, NULL, &ns));
        CHECK_EQ(nd, 1); /* branches depend on the root only: parallel */
        CHECK_EQ(ns, 1);
    }
    CHECK(tl_has_edge(n[0], n[4]));
}

GR_TEST(capture_fork_into_three_streams_joined_back_makes_a_diamond)
{
    static int x[5];
    grGraph_t g;
    CHECK_OK(capture_diamond(0, x, &g));
    check_diamond(g);
    grStream_t s = tl_stream(0);
    tl_run_graph_on(g, s);
    CHECK_EQ(x[0], 1);
    CHECK_EQ(x[1] + x[2] + x[3], 6);
    CHECK_EQ(x[4], 3);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(capture_serialised_join_gives_cudas_topology)
{
    static int x[5];
    grGraph_t g;
    CHECK_OK(capture_diamond(1, x, &g));
    check_diamond(g);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(capture_shared_join_event_waited_once_is_unjoined)
{
    static int x[5];
    grGraph_t g = (grGraph_t)1;
    CHECK_GR(grErrorStreamCaptureUnjoined, capture_diamond(2, x, &g));
    CHECK(g == NULL);
    CHECK_DETAIL_HAS("never waited for");
}

GR_TEST(capture_join_through_a_chain_of_branches_gives_cudas_edges)
{
    static int x[4];
    grStream_t s, s2, s3;
    grEvent_t f, j;
    grGraph_t g;
    grGraphNode_t n[4];
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s3, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&f));
    CHECK_OK(grEventCreate(&j));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grEventRecord(f, s));
    CHECK_OK(grStreamWaitEvent(s2, f, 0));
    CHECK_OK(grStreamWaitEvent(s3, f, 0));
    tl_launch_add_i32(s2, x + 1, 1);
    tl_launch_add_i32(s3, x + 2, 1);
    CHECK_OK(grEventRecord(j, s2));
    CHECK_OK(grStreamWaitEvent(s3, j, 0));
    CHECK_OK(grEventRecord(j, s3));
    CHECK_OK(grStreamWaitEvent(s, j, 0));
    tl_launch_add_i32(s, x + 3, 1);
    CHECK_OK(grStreamEndCapture(s, &g));
    /* CUDA: 0->1 0->2 0->3 1->3 2->3 */
    CHECK_EQ(tl_node_count(g), 4);
    CHECK_EQ(tl_edge_count(g), 5);
    tl_get_nodes(g, n, 4);
    CHECK(tl_has_edge(n[0], n[1]) && tl_has_edge(n[0], n[2]) && tl_has_edge(n[0], n[3]));
    CHECK(tl_has_edge(n[1], n[3]) && tl_has_edge(n[2], n[3]));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(f));
    CHECK_OK(grEventDestroy(j));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
    CHECK_OK(grStreamDestroy(s3));
}

/* Two new non-blocking streams; a global capture begun on *s with one
 * add of 1 to x[0], then forked to *s2 through the event *e1. */
static void begin_forked(grStream_t *s, grStream_t *s2, grEvent_t *e1, int *x)
{
    CHECK_OK(grStreamCreateWithFlags(s, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(s2, grStreamNonBlocking));
    CHECK_OK(grEventCreate(e1));
    CHECK_OK(grStreamBeginCapture(*s, grStreamCaptureModeGlobal));
    tl_launch_add_i32(*s, x, 1);
    CHECK_OK(grEventRecord(*e1, *s));
    CHECK_OK(grStreamWaitEvent(*s2, *e1, 0));
}

/* Destroys what begin_forked made. */
static void end_forked(grStream_t s, grStream_t s2, grEvent_t e1)
{
    CHECK_OK(grEventDestroy(e1));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grStreamDestroy(s2));
}

GR_TEST(capture_fork_rejoined_then_more_work_is_unjoined)
{
    static int x[2];
    grStream_t s, s2;
    grEvent_t e1, e2;
    grGraph_t g = (grGraph_t)1;
    CHECK_OK(grEventCreate(&e2));
    begin_forked(&s, &s2, &e1, x);
    tl_launch_add_i32(s2, x + 1, 1);
    CHECK_OK(grEventRecord(e2, s2));
    CHECK_OK(grStreamWaitEvent(s, e2, 0));
    tl_launch_add_i32(s2, x + 1, 1);
    CHECK_GR(grErrorStreamCaptureUnjoined, grStreamEndCapture(s, &g));
    CHECK(g == NULL);
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    CHECK_EQ(tl_capture_status(s2), grStreamCaptureStatusNone);
    /* Both streams run eagerly again. */
    tl_launch_add_i32(s2, x + 1, 5);
    CHECK_OK(grStreamSynchronize(s2));
    CHECK_EQ(x[1], 5);
    CHECK_OK(grEventDestroy(e2));
    end_forked(s, s2, e1);
}

GR_TEST(capture_forked_stream_without_work_needs_no_join)
{
    static int x[1];
    grStream_t s, s2;
    grEvent_t e1;
    grGraph_t g;
    begin_forked(&s, &s2, &e1, x);
    tl_launch_add_i32(s, x, 1);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 2);
    CHECK_OK(grGraphDestroy(g));
    end_forked(s, s2, e1);
}

GR_TEST(capture_end_from_forked_stream_is_unmatched_and_invalidates)
{
    static int x[1];
    grStream_t s, s2;
    grEvent_t e1;
    grGraph_t g = NULL;
    begin_forked(&s, &s2, &e1, x);
    CHECK_GR(grErrorStreamCaptureUnmatched, grStreamEndCapture(s2, &g));
    CHECK_DETAIL_HAS("did not begin it");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_EQ(tl_capture_status(s2), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_DETAIL_HAS("grStreamEndCapture: stream");
    CHECK_EQ(tl_capture_status(s2), grStreamCaptureStatusNone);
    end_forked(s, s2, e1);
}
