/* test-recapture.c - grStreamBeginRecaptureToGraph: an unchanged
 * re-capture keeps the graph's nodes and changes nothing; a parameter
 * change goes to the callback and, taken, into the node and through
 * grGraphExecUpdate into the executable; topology and allocation/free
 * mismatches fail at once and invalidate the capture; bad arguments are
 * refused and change nothing; forked streams re-capture too. */
#include "testlib.h"
#include "gpu-ptx.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static grError_t launch_set(grStream_t s, int *p, int v)
{
    void *args[2] = {&p, &v};
    return grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s);
}

/* The stream code re-captured: out[i] = vals[i] for i < n, a chain. */
static void code(grStream_t s, int *out, const int *vals, int n)
{
    for (int i = 0; i < n; i++)
        CHECK_OK(launch_set(s, &out[i], vals[i]));
}

static grGraph_t capture_store(grStream_t s, int *out, const int *vals, int n)
{
    grGraph_t g;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    code(s, out, vals, n);
    CHECK_OK(grStreamEndCapture(s, &g));
    return g;
}

/* Re-captures code(s, out, vals, n) into g, reporting changes to cb
 * (NULL: none); the capture must end with g itself. */
static void recapture_code(grStream_t s, grGraph_t g, grGraphRecaptureCallbackData *cb, int *out,
                           const int *vals, int n)
{
    grGraph_t g2 = NULL;
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, cb));
    code(s, out, vals, n);
    CHECK_OK(grStreamEndCapture(s, &g2));
    CHECK_PTR_EQ(g2, g);
}

/* Runs e on s; out[0..n) must then hold vals[0..n). */
static void run_expect_out(grGraphExec_t e, grStream_t s, const int *out, const int *vals, int n)
{
    tl_run_on(e, s);
    for (int i = 0; i < n; i++)
        CHECK_EQ(out[i], vals[i]);
}

/* The end of a test: its executable (where not NULL), its graph and its
 * stream go. */
static void graph_and_stream_done(grGraphExec_t e, grGraph_t g, grStream_t s)
{
    if (e)
        CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

typedef struct seen {
    int calls;
    grGraphNode_t node;
    int old_v, new_v;
    grGraphRecaptureStatus status;
    grError_t answer;
} seen;

static grError_t on_change(void *data, grGraphNode_t node, const grGraphNodeParams *orig,
                           const grGraphNodeParams *now, grGraphRecaptureStatus status)
{
    seen *w = data;
    w->calls++;
    w->node = node;
    w->status = status;
    CHECK_EQ(orig->type, grGraphNodeTypeKernel);
    CHECK_EQ(now->type, grGraphNodeTypeKernel);
    w->old_v = *(int *)orig->kernel.kernelParams[1];
    w->new_v = *(int *)now->kernel.kernelParams[1];
    return w->answer;
}

GR_TEST(recapture_unchanged_keeps_nodes_and_calls_nothing)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[4] = {0}, vals[4] = {1, 2, 3, 4};
    grGraph_t g = capture_store(s, out, vals, 4), g2 = NULL;
    grGraphNode_t before[4], after[4];
    size_t n = 4;
    CHECK_OK(grGraphGetNodes(g, before, &n));
    seen w = {0};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
    grStreamCaptureStatus st;
    grGraph_t cg = NULL;
    CHECK_OK(grStreamGetCaptureInfo(s, &st, NULL, &cg, NULL, NULL, NULL));
    CHECK_EQ(st, grStreamCaptureStatusActive);
    CHECK_PTR_EQ(cg, g);
    code(s, out, vals, 4);
    CHECK_OK(grStreamEndCapture(s, &g2));
    CHECK_PTR_EQ(g2, g);
    CHECK_EQ(w.calls, 0);
    CHECK_OK(grGraphGetNodes(g, after, &n));
    CHECK_EQ(n, 4);
    CHECK(memcmp(before, after, sizeof before) == 0);
    grGraphExec_t e = tl_instantiate(g);
    run_expect_out(e, s, out, vals, 4);
    graph_and_stream_done(e, g, s);
}

/* A re-captured launch equal to its node still passes every check of
 * grLaunchKernel: an argument array element that is the value, not its
 * address, is refused even where the bytes it points to are the node's
 * (device memory holding them), and a destroyed kernel is refused though
 * the node holds it; a refused launch changes nothing, and the re-capture
 * goes on. */
GR_TEST(recapture_equal_launch_is_checked_as_an_eager_one)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[2] = {0}, vals[2] = {5, 6};
    grGraph_t g = capture_store(s, out, vals, 2), g2 = NULL;
    seen w = {0};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    int *p = &out[0], v = vals[0];
    int **d = NULL;
    CHECK_OK(grMalloc((void **)&d, sizeof *d));
    *d = p; /* the node's first argument value, in device memory */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
    void *bad[2] = {d, &v};
    CHECK_GR(grErrorInvalidValue,
             grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), bad, 0, s));
    CHECK_DETAIL_HAS("points into device memory");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
    /* The same launch with the address of the value matches its node. */
    code(s, out, vals, 2);
    CHECK_OK(grStreamEndCapture(s, &g2));
    CHECK_PTR_EQ(g2, g);
    CHECK_EQ(w.calls, 0);
    CHECK_EQ(tl_node_count(g), 2);
    CHECK_OK(grFree(d));
    CHECK_OK(grGraphDestroy(g));

    /* A kernel destroyed while a node holds it. */
    grKernel_t k;
    size_t sizes[2] = {sizeof(int *), sizeof(int)};
    void *args[2] = {&p, &v};
    CHECK_OK(grKernelCreate(&k, tl_store_i32_fn, "recapture_set_doomed", 2, sizes));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_GR(grErrorInvalidDeviceFunction, grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_DETAIL_HAS("not a live kernel");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
    CHECK_EQ(tl_node_count(g), 1);
    /* Nothing matched its node: the end says which was not made again. */
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_DETAIL_HAS("not made again");
    graph_and_stream_done(NULL, g, s);
}

/* Arguments held off the stack (a static, the heap) re-capture as
 * unchanged and, changed in place, go to the callback: the remembered
 * check of their address is no comparison of their value. */
GR_TEST(recapture_off_stack_arguments_match_and_change)
{
    static int out[3];
    grStream_t s = tl_stream(grStreamNonBlocking);
    int *p = out, *heap = malloc(sizeof *heap);
    static int sv = 7;
    CHECK(heap != NULL);
    *heap = 8;
    void *a1[2] = {&p, &sv}, *a2[2] = {&p, heap};
    grGraph_t g, g2 = NULL;
    seen w = {0};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), a1, 0, s));
    CHECK_OK(grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), a2, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    for (int round = 0; round < 3; round++) {
        w.answer = grSuccess;
        if (round == 2)
            *heap = 9; /* the same address, a new value */
        CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
        CHECK_OK(grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), a1, 0, s));
        CHECK_OK(grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), a2, 0, s));
        CHECK_OK(grStreamEndCapture(s, &g2));
        CHECK_PTR_EQ(g2, g);
        CHECK_EQ(w.calls, round == 2 ? 1 : 0);
    }
    CHECK_EQ(w.old_v, 8);
    CHECK_EQ(w.new_v, 9);
    grGraphExec_t e = tl_instantiate(g);
    tl_run_on(e, s);
    CHECK_EQ(out[0], 9); /* the second node wrote last */
    graph_and_stream_done(e, g, s);
    free(heap);
}

/* A kernel of nine parameters: out[0] = the sum of a 16-byte pair and of
 * seven ints (more parameters than a re-capture remembers addresses
 * of, one of a size other than 4 or 8 bytes). */
typedef struct pair16 {
    int64_t a, b;
} pair16;

static void sum9_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    const pair16 *pr = args[1];
    int64_t t = pr->a + pr->b;
    for (int i = 2; i < 9; i++)
        t += *(const int *)args[i];
    **(int64_t **)args[0] = t;
}

static int change_calls;
static grError_t count_change(void *data, grGraphNode_t node, const grGraphNodeParams *orig,
                              const grGraphNodeParams *now, grGraphRecaptureStatus status)
{
    (void)data, (void)node, (void)orig, (void)now, (void)status;
    change_calls++;
    return grSuccess;
}

static grError_t launch_sum9(grKernel_t k, grStream_t s, int64_t *out, pair16 pr, int base)
{
    int v[7];
    for (int i = 0; i < 7; i++)
        v[i] = base + i;
    void *args[9] = {&out, &pr, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]};
    return grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s);
}

/* One frame deeper than its caller: the addresses of its values lie
 * below those the caller's launches passed. */
static __attribute__((noinline)) grError_t launch_set_deeper(grStream_t s, int *p, int v)
{
    volatile char pad[256];
    pad[0] = 0;
    (void)pad[0];
    return launch_set(s, p, v);
}

/* The re-capture remembers the argument addresses a launch passed the
 * checks with, for the next launch of the same kernel from the same
 * frame: the same addresses match without a second check, and any other
 * (another frame, a device pointer among remembered ones, a kernel with
 * more parameters, a parameter of another size) is checked and compared
 * in full, as an eager launch's. */
GR_TEST(recapture_remembered_argument_addresses_are_checked_per_address)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[4] = {0};
    int64_t sum = 0;
    grKernel_t k9;
    size_t sizes[9] = {sizeof(int64_t *), sizeof(pair16), 4, 4, 4, 4, 4, 4, 4};
    CHECK_OK(grKernelCreate(&k9, sum9_fn, "recapture_sum9", 9, sizes));
    pair16 pr = {40, 2};
    grGraph_t g, g2 = NULL;
    grGraphRecaptureCallbackData cb = {count_change, NULL};
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(launch_set(s, &out[0], 1));
    CHECK_OK(launch_set(s, &out[1], 2));
    CHECK_OK(launch_set_deeper(s, &out[2], 3));
    CHECK_OK(launch_sum9(k9, s, &sum, pr, 10));
    CHECK_OK(launch_set(s, &out[3], 4));
    CHECK_OK(grStreamEndCapture(s, &g));
    int **d = NULL;
    CHECK_OK(grMalloc((void **)&d, sizeof *d));
    *d = &out[3];
    for (int round = 0; round < 3; round++) {
        change_calls = 0;
        CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
        CHECK_OK(launch_set(s, &out[0], 1));
        CHECK_OK(launch_set(s, &out[1], 2));
        CHECK_OK(launch_set_deeper(s, &out[2], 3));
        pr.b = round == 2 ? 3 : 2; /* the 16-byte value changes in the last round */
        CHECK_OK(launch_sum9(k9, s, &sum, pr, 10));
        /* The value's address where its address belongs: refused, though
         * the other address is one the last launch of this kernel from
         * this frame passed. */
        int v = 4;
        void *bad[2] = {d, &v};
        CHECK_GR(grErrorInvalidValue,
                 grLaunchKernel(tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), bad, 0, s));
        CHECK_DETAIL_HAS("points into device memory");
        CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
        CHECK_OK(launch_set(s, &out[3], 4));
        CHECK_OK(grStreamEndCapture(s, &g2));
        CHECK_PTR_EQ(g2, g);
        CHECK_EQ(change_calls, round == 2 ? 1 : 0);
    }
    CHECK_EQ(tl_node_count(g), 5);
    grGraphExec_t e = tl_instantiate(g);
    tl_run_on(e, s);
    CHECK_EQ(sum, 40 + 3 + 10 + 11 + 12 + 13 + 14 + 15 + 16);
    CHECK_EQ(out[3], 4);
    CHECK_OK(grFree(d));
    graph_and_stream_done(e, g, s);
    CHECK_OK(grKernelDestroy(k9));
}

GR_TEST(recapture_parameter_change_goes_to_callback_then_update)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[3] = {0}, vals[3] = {1, 2, 3};
    grGraph_t g = capture_store(s, out, vals, 3);
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    grGraphNode_t nodes[3];
    size_t n = 3;
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    seen w = {0};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    int vals2[3] = {1, 20, 3};
    recapture_code(s, g, &cb, out, vals2, 3);
    CHECK_EQ(w.calls, 1);
    CHECK_PTR_EQ(w.node, nodes[1]);
    CHECK_EQ(w.old_v, 2);
    CHECK_EQ(w.new_v, 20);
    CHECK_EQ(w.status, grGraphRecaptureStatusEligibleForUpdate);
    /* The node took the new value; the executable after the update. */
    grKernelNodeParams kp;
    CHECK_OK(grGraphKernelNodeGetParams(nodes[1], &kp));
    CHECK_EQ(*(int *)kp.kernelParams[1], 20);
    tl_run_on(e, s);
    CHECK_EQ(out[1], 2);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    tl_run_on(e, s);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 20);
    CHECK_EQ(out[2], 3);
    /* Without a callback, differences are taken silently. */
    int vals3[3] = {7, 8, 9};
    recapture_code(s, g, NULL, out, vals3, 3);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    run_expect_out(e, s, out, vals3, 3);
    graph_and_stream_done(e, g, s);
}

GR_TEST(recapture_callback_refusal_fails_at_once_and_keeps_the_node)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[2] = {0}, vals[2] = {1, 2};
    grGraph_t g = capture_store(s, out, vals, 2), g2 = (grGraph_t)1;
    grGraphNode_t nodes[2];
    size_t n = 2;
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    seen w = {.answer = grErrorNotSupported};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
    CHECK_OK(launch_set(s, &out[0], 1));
    CHECK_GR(grErrorNotSupported, launch_set(s, &out[1], 5));
    CHECK_DETAIL_HAS("re-capture callback");
    CHECK_GR(grErrorStreamCaptureInvalidated, launch_set(s, &out[1], 2));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK(g2 == NULL);
    grKernelNodeParams kp;
    CHECK_OK(grGraphKernelNodeGetParams(nodes[1], &kp));
    CHECK_EQ(*(int *)kp.kernelParams[1], 2);
    CHECK_EQ(tl_node_count(g), 2);
    graph_and_stream_done(NULL, g, s);
}

GR_TEST(recapture_topology_mismatch_fails_at_once)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[3] = {0}, vals[3] = {1, 2, 3};
    grGraph_t g = capture_store(s, out, vals, 2), g2;
    /* A memset where a kernel node was: another type. */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_OK(launch_set(s, &out[0], 1));
    CHECK_GR(grErrorStreamCaptureInvalidated, grMemsetAsync(out, 0, sizeof out, s));
    CHECK_DETAIL_HAS("where the re-capture expects");
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusInvalidated);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_EQ(tl_node_count(g), 2);
    /* One operation too many. */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    code(s, out, vals, 2);
    CHECK_GR(grErrorStreamCaptureInvalidated, launch_set(s, &out[2], 3));
    CHECK_DETAIL_HAS("had 2 nodes");
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    /* One too few: found at the end. */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    code(s, out, vals, 1);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_DETAIL_HAS("not made again");
    CHECK(g2 == NULL);
    /* Other dependencies: the second launch forked off to another stream
     * depends on the capture's start, not on the first launch. */
    grStream_t s1 = tl_stream(grStreamNonBlocking);
    grEvent_t fork, join;
    CHECK_OK(grEventCreateWithFlags(&fork, grEventDisableTiming));
    CHECK_OK(grEventCreateWithFlags(&join, grEventDisableTiming));
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_OK(grEventRecord(fork, s));
    CHECK_OK(launch_set(s, &out[0], 1));
    CHECK_OK(grStreamWaitEvent(s1, fork, 0));
    CHECK_GR(grErrorStreamCaptureInvalidated, launch_set(s1, &out[1], 2));
    CHECK_DETAIL_HAS("topology");
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    /* The graph is still whole and still re-captures. */
    CHECK_EQ(tl_node_count(g), 2);
    recapture_code(s, g, NULL, out, vals, 2);
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grEventDestroy(join));
    CHECK_OK(grStreamDestroy(s1));
    graph_and_stream_done(NULL, g, s);
}

GR_TEST(recapture_node_added_by_hand_fails_and_is_removed)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[1] = {0}, vals[1] = {1};
    grGraph_t g = capture_store(s, out, vals, 1), g2;
    grGraphNode_t extra;
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    code(s, out, vals, 1);
    CHECK_OK(grGraphAddEmptyNode(&extra, g, NULL, 0));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_DETAIL_HAS("during its re-capture");
    CHECK_EQ(tl_node_count(g), 1);
    graph_and_stream_done(NULL, g, s);
}

GR_TEST(recapture_alloc_and_free_keep_address_or_fail_at_once)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    grGraph_t g, g2;
    void *p = NULL, *q = NULL;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMallocAsync(&p, 256, s));
    CHECK_OK(launch_set(s, (int *)p, 1));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    /* The same code gets the same address back. */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_OK(grMallocAsync(&q, 256, s));
    CHECK_PTR_EQ(q, p);
    CHECK_OK(launch_set(s, (int *)q, 1));
    CHECK_OK(grFreeAsync(q, s));
    CHECK_OK(grStreamEndCapture(s, &g2));
    CHECK_EQ(tl_node_count(g), 3);
    /* Another size: refused at once, whatever the callback. */
    seen w = {0};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
    CHECK_GR(grErrorStreamCaptureInvalidated, grMallocAsync(&q, 512, s));
    CHECK_DETAIL_HAS("cannot change an allocation");
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_EQ(w.calls, 0);
    /* Another address freed. */
    int other[1];
    grGraphExec_t e;
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
    CHECK_OK(grMallocAsync(&q, 256, s));
    CHECK_OK(launch_set(s, (int *)q, 1));
    CHECK_GR(grErrorStreamCaptureInvalidated, grFreeAsync(other, s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_EQ(w.calls, 0);
    /* The graph still instantiates and runs. */
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    tl_run_on(e, s);
    graph_and_stream_done(e, g, s);
}

GR_TEST(recapture_bad_arguments_change_nothing)
{
    grStream_t s = tl_stream(grStreamNonBlocking), s2 = tl_stream(grStreamNonBlocking);
    int out[1] = {0}, vals[1] = {1};
    grGraph_t g = capture_store(s, out, vals, 1), g2, other;
    grStreamCaptureStatus st;
    CHECK_GR(grErrorInvalidValue, grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, NULL, NULL));
    CHECK_GR(grErrorInvalidValue, grStreamBeginRecaptureToGraph(s, (grStreamCaptureMode)7, g, NULL));
    CHECK_GR(grErrorStreamCaptureUnsupported,
             grStreamBeginRecaptureToGraph(grStreamLegacy, grStreamCaptureModeGlobal, g, NULL));
    CHECK_OK(grGraphCreate(&other, 0));
    CHECK_OK(grGraphDestroy(other));
    CHECK_GR(grErrorInvalidValue, grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, other, NULL));
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusNone);
    /* A graph another capture builds, a stream already capturing. */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_GR(grErrorIllegalState, grStreamBeginRecaptureToGraph(s2, grStreamCaptureModeGlobal, g, NULL));
    CHECK_GR(grErrorIllegalState, grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_OK(grStreamIsCapturing(s2, &st));
    CHECK_EQ(st, grStreamCaptureStatusNone);
    code(s, out, vals, 1);
    CHECK_OK(grStreamEndCapture(s, &g2));
    CHECK_PTR_EQ(g2, g);
    CHECK_EQ(tl_node_count(g), 1);
    graph_and_stream_done(NULL, g, s);
    CHECK_OK(grStreamDestroy(s2));
}

static int destroyed;
static void count_destroy_atomic(void *p)
{
    (void)p;
    __atomic_fetch_add(&destroyed, 1, __ATOMIC_SEQ_CST);
}

GR_TEST(recapture_releases_the_graphs_user_objects)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[1] = {0}, vals[1] = {1};
    grGraph_t g = capture_store(s, out, vals, 1), g2;
    grUserObject_t o;
    destroyed = 0;
    CHECK_OK(grUserObjectCreate(&o, NULL, count_destroy_atomic, 1, grUserObjectNoDestructorSync));
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    /* A refused begin keeps them. */
    CHECK_GR(grErrorInvalidValue, grStreamBeginRecaptureToGraph(s, (grStreamCaptureMode)7, g, NULL));
    CHECK_EQ(__atomic_load_n(&destroyed, __ATOMIC_SEQ_CST), 0);
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_EQ(__atomic_load_n(&destroyed, __ATOMIC_SEQ_CST), 1); /* run before returning */
    code(s, out, vals, 1);
    CHECK_OK(grStreamEndCapture(s, &g2));
    graph_and_stream_done(NULL, g, s);
}

/* Forked streams: each stream's work matches the nodes it made, in the
 * graph's creation order. */
static void forked(grStream_t s, grStream_t s1, grEvent_t fork, grEvent_t join, int *out, int a, int b, int c)
{
    CHECK_OK(launch_set(s, &out[0], a));
    CHECK_OK(grEventRecord(fork, s));
    CHECK_OK(grStreamWaitEvent(s1, fork, 0));
    CHECK_OK(launch_set(s1, &out[1], b));
    CHECK_OK(launch_set(s, &out[2], c));
    CHECK_OK(grEventRecord(join, s1));
    CHECK_OK(grStreamWaitEvent(s, join, 0));
    CHECK_OK(launch_set(s, &out[3], a + b + c));
}

GR_TEST(recapture_multi_stream)
{
    grStream_t s = tl_stream(grStreamNonBlocking), s1 = tl_stream(grStreamNonBlocking);
    grEvent_t fork, join;
    grGraph_t g, g2;
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    int out[4] = {0};
    CHECK_OK(grEventCreateWithFlags(&fork, grEventDisableTiming));
    CHECK_OK(grEventCreateWithFlags(&join, grEventDisableTiming));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    forked(s, s1, fork, join, out, 1, 2, 3);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 4);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    seen w = {0};
    grGraphRecaptureCallbackData cb = {on_change, &w};
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, &cb));
    forked(s, s1, fork, join, out, 1, 5, 3);
    CHECK_OK(grStreamEndCapture(s, &g2));
    CHECK_EQ(w.calls, 2); /* out[1] and out[3] */
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    tl_run_on(e, s);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 5);
    CHECK_EQ(out[2], 3);
    CHECK_EQ(out[3], 9);
    /* The join left out: the last launch lacks a dependency. */
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    CHECK_OK(launch_set(s, &out[0], 1));
    CHECK_OK(grEventRecord(fork, s));
    CHECK_OK(grStreamWaitEvent(s1, fork, 0));
    CHECK_OK(launch_set(s1, &out[1], 2));
    CHECK_OK(launch_set(s, &out[2], 3));
    CHECK_GR(grErrorStreamCaptureInvalidated, launch_set(s, &out[3], 6));
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(fork));
    CHECK_OK(grEventDestroy(join));
    CHECK_OK(grStreamDestroy(s1));
    CHECK_OK(grStreamDestroy(s));
}

/* grGraphExecUpdate after a re-capture writes only the nodes it changed
 * when nothing else changed the graph or the executable; each test below
 * changes something else, which the update must still apply. */
static void set_value(grGraphNode_t n, int *p, int v, grGraphExec_t e)
{
    void *args[2] = {&p, &v};
    grKernelNodeParams kp = {tl_kernel_store_i32_kept(), GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    if (e)
        CHECK_OK(grGraphExecKernelNodeSetParams(e, n, &kp));
    else
        CHECK_OK(grGraphKernelNodeSetParams(n, &kp));
}

static void recapture_and_update(grStream_t s, grGraph_t g, grGraphExec_t e, int *out, const int *vals)
{
    grGraphExecUpdateResultInfo info;
    recapture_code(s, g, NULL, out, vals, 3);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
}

static void check_run(grGraphExec_t e, grStream_t s, int *out, int a, int b, int c)
{
    memset(out, 0, 3 * sizeof *out);
    tl_run_on(e, s);
    CHECK_EQ(out[0], a);
    CHECK_EQ(out[1], b);
    CHECK_EQ(out[2], c);
}

GR_TEST(recapture_update_restores_what_an_exec_setter_changed)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[3], vals[3] = {1, 2, 3}, vals2[3] = {1, 20, 3};
    grGraph_t g = capture_store(s, out, vals, 3);
    grGraphNode_t nodes[3];
    tl_get_nodes(g, nodes, 3);
    grGraphExec_t e = tl_instantiate(g);
    set_value(nodes[0], &out[0], 100, e);
    recapture_and_update(s, g, e, out, vals2);
    check_run(e, s, out, 1, 20, 3);
    /* And the next re-capture, with nothing else changed, still applies. */
    int vals3[3] = {1, 21, 4};
    recapture_and_update(s, g, e, out, vals3);
    check_run(e, s, out, 1, 21, 4);
    graph_and_stream_done(e, g, s);
}

GR_TEST(recapture_update_applies_a_graph_setter_made_after_it)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[3], vals[3] = {1, 2, 3}, vals2[3] = {1, 20, 3};
    grGraph_t g = capture_store(s, out, vals, 3);
    grGraphNode_t nodes[3];
    grGraphExecUpdateResultInfo info;
    tl_get_nodes(g, nodes, 3);
    grGraphExec_t e = tl_instantiate(g);
    recapture_code(s, g, NULL, out, vals2, 3);
    set_value(nodes[2], &out[2], 30, NULL);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    check_run(e, s, out, 1, 20, 30);
    /* A setter made before the re-capture, the executable not updated
     * since: the re-capture's list does not cover it. */
    set_value(nodes[0], &out[0], 10, NULL);
    int vals3[3] = {10, 20, 31};
    recapture_code(s, g, NULL, out, vals3, 3);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    check_run(e, s, out, 10, 20, 31);
    graph_and_stream_done(e, g, s);
}

GR_TEST(recapture_update_after_an_update_from_another_graph)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[3], vals[3] = {1, 2, 3}, vals2[3] = {1, 20, 3}, other[3] = {7, 8, 9};
    grGraph_t g = capture_store(s, out, vals, 3), h = capture_store(s, out, other, 3);
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphExecUpdate(e, h, &info));
    check_run(e, s, out, 7, 8, 9);
    recapture_and_update(s, g, e, out, vals2);
    check_run(e, s, out, 1, 20, 3);
    /* Two re-captures, one update: both changes. */
    grGraph_t g2;
    int a[3] = {5, 20, 3}, b[3] = {5, 20, 6};
    recapture_code(s, g, NULL, out, a, 3);
    recapture_and_update(s, g, e, out, b);
    check_run(e, s, out, 5, 20, 6);
    /* A failed re-capture that took a change before failing. */
    int c[3] = {50, 20, 6};
    CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
    code(s, out, c, 1);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g2));
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    check_run(e, s, out, 50, 20, 6);
    CHECK_OK(grGraphDestroy(h));
    graph_and_stream_done(e, g, s);
}

/* An executable of another graph than the re-captured one updates from
 * it by the full comparison. */
GR_TEST(recapture_update_of_an_executable_of_a_clone)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    int out[3], vals[3] = {1, 2, 3}, vals2[3] = {4, 5, 6};
    grGraph_t g = capture_store(s, out, vals, 3), c;
    grGraphExec_t e;
    CHECK_OK(grGraphClone(&c, g));
    CHECK_OK(grGraphInstantiate(&e, c, 0));
    recapture_and_update(s, g, e, out, vals2);
    check_run(e, s, out, 4, 5, 6);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(c));
    graph_and_stream_done(NULL, g, s);
}

/* Work from another thread on a stream that joined the re-capture: that
 * thread takes the capture's lock, which ends the beginning thread's
 * lock-free matching; both go on matching, in the graph's order. */
typedef struct other_args {
    grStream_t s1;
    grEvent_t fork, join;
    int *out;
    int v;
} other_args;

static void *other_thread(void *p)
{
    other_args *a = p;
    CHECK_OK(grStreamWaitEvent(a->s1, a->fork, 0));
    CHECK_OK(launch_set(a->s1, &a->out[1], a->v));
    CHECK_OK(grEventRecord(a->join, a->s1));
    return NULL;
}

static void two_threads(grStream_t s, other_args *a, int v0, int v1, int v2)
{
    pthread_t t;
    a->v = v1;
    CHECK_OK(launch_set(s, &a->out[0], v0));
    CHECK_OK(grEventRecord(a->fork, s));
    CHECK(pthread_create(&t, NULL, other_thread, a) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_OK(grStreamWaitEvent(s, a->join, 0));
    CHECK_OK(launch_set(s, &a->out[2], v2));
}

GR_TEST(recapture_with_work_from_another_thread)
{
    grStream_t s = tl_stream(grStreamNonBlocking);
    other_args a = {tl_stream(grStreamNonBlocking), NULL, NULL, NULL, 0};
    int out[3] = {0};
    grGraph_t g, g2;
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    a.out = out;
    CHECK_OK(grEventCreateWithFlags(&a.fork, grEventDisableTiming));
    CHECK_OK(grEventCreateWithFlags(&a.join, grEventDisableTiming));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeRelaxed));
    two_threads(s, &a, 1, 2, 3);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int r = 0; r < 3; r++) {
        CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeRelaxed, g, NULL));
        two_threads(s, &a, 10 + r, 20 + r, 30 + r);
        CHECK_OK(grStreamEndCapture(s, &g2));
        CHECK_OK(grGraphExecUpdate(e, g, &info));
        tl_run_on(e, s);
        CHECK_EQ(out[0], 10 + r);
        CHECK_EQ(out[1], 20 + r);
        CHECK_EQ(out[2], 30 + r);
    }
    CHECK_EQ(tl_node_count(g), 3);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grEventDestroy(a.fork));
    CHECK_OK(grEventDestroy(a.join));
    CHECK_OK(grStreamDestroy(a.s1));
    CHECK_OK(grStreamDestroy(s));
}

/* On each device: a memset, K kernels adding v[i] to every element, a copy
 * back, captured on the device's stream; re-captured with other values
 * and applied with grGraphExecUpdate (on a GPU, the full update path
 * lowers the changes to the driver's executable). The GPU half needs a
 * GPU and is skipped where there is none. */
enum {
    DEV_N = 1000,
    DEV_BLOCK = 128,
    DEV_K = 8
};

static void add_all_cpu(const grKernelCtx *ctx, void **args)
{
    unsigned *p = *(unsigned **)args[0], v = *(unsigned *)args[1], n = *(unsigned *)args[2];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        size_t i = GR_GLOBAL_X(ctx, tx);
        if (i < n)
            p[i] += v;
    }
}

static void dev_code(grStream_t s, grKernel_t add, unsigned *d, unsigned *h, const unsigned *v)
{
    unsigned n = DEV_N;
    CHECK_OK(grMemsetAsync(d, 0, DEV_N * sizeof *d, s));
    for (int i = 0; i < DEV_K; i++) {
        void *args[] = {&d, (void *)&v[i], &n};
        CHECK_OK(grLaunchKernel(add, GR_DIM3((DEV_N + DEV_BLOCK - 1) / DEV_BLOCK, 1, 1),
                                GR_DIM3(DEV_BLOCK, 1, 1), args, 0, s));
    }
    CHECK_OK(grMemcpyAsync(h, d, DEV_N * sizeof *d, grMemcpyDeviceToHost, s));
}

static void dev_expect(grGraphExec_t e, grStream_t s, const unsigned *h, unsigned want)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    for (unsigned i = 0; i < DEV_N; i++)
        if (h[i] != want)
            GR_TEST_FAIL_("element %u is %u, expected %u", i, h[i], want);
}

static void recapture_on_device(int gpu)
{
    gr_test_device_or_skip(gpu);
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    grKernel_t add;
    unsigned *d, *h;
    grGraph_t g, g2;
    grGraphExec_t e;
    grGraphExecUpdateResultInfo info;
    unsigned v[DEV_K], sum = 0;
    CHECK_OK(grKernelCreate(&add, add_all_cpu, "gr_test_add", 3, sizes));
    if (gpu)
        CHECK_OK(grKernelSetImage(add, gr_test_ptx, "gr_test_add"));
    CHECK_OK(grMalloc((void **)&d, DEV_N * sizeof *d));
    CHECK_OK(grMallocHost((void **)&h, DEV_N * sizeof *h));
    grStream_t s = tl_stream(0);
    for (int i = 0; i < DEV_K; i++)
        sum += v[i] = 1;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    dev_code(s, add, d, h, v);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    dev_expect(e, s, h, sum);
    for (int r = 0; r < 3; r++) {
        v[r] = 10 + (unsigned)r; /* one more node changes each round */
        sum = 0;
        for (int i = 0; i < DEV_K; i++)
            sum += v[i];
        CHECK_OK(grStreamBeginRecaptureToGraph(s, grStreamCaptureModeGlobal, g, NULL));
        dev_code(s, add, d, h, v);
        CHECK_OK(grStreamEndCapture(s, &g2));
        CHECK_PTR_EQ(g2, g);
        CHECK_OK(grGraphExecUpdate(e, g, &info));
        CHECK_EQ(info.result, grGraphExecUpdateSuccess);
        dev_expect(e, s, h, sum);
    }
    graph_and_stream_done(e, g, s);
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
    CHECK_OK(grKernelDestroy(add));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(recapture_on_the_cpu_device_lowers_and_updates)
{
    recapture_on_device(0);
}

GR_TEST(recapture_on_a_gpu_lowers_and_updates)
{
    recapture_on_device(1);
}
