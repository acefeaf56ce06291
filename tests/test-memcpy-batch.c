/*
 * test-memcpy-batch.c - grMemcpyBatchAsync: eager batches in stream
 * order, the attribute rules, refusals that copy nothing, and capture
 * (one memcpy node per copy).
 */
#include "testlib.h"

#include <string.h>

static grMemcpyAttributes stream_order(void)
{
    grMemcpyAttributes a;
    memset(&a, 0, sizeof a);
    a.srcAccessOrder = grMemcpySrcAccessOrderStream;
    return a;
}

/* Frees a test's device memory and destroys its stream. */
static void free_dev_and_stream(void *dev, grStream_t s)
{
    CHECK_OK(grFree(dev));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(memcpy_batch_copies_every_pair_in_stream_order)
{
    static char src[3][100], dst[3][100];
    grStream_t s = tl_stream(0);
    char *dev = tl_malloc(300);
    for (int i = 0; i < 3; i++)
        memset(src[i], 'a' + i, sizeof src[i]);
    /* Host -> device, then (later in the stream) device -> host. */
    void *d1[3] = {dev, dev + 100, dev + 200};
    const void *s1[3] = {src[0], src[1], src[2]};
    size_t n1[3] = {100, 100, 50};
    grMemcpyAttributes at[2] = {stream_order(), stream_order()};
    at[1].srcAccessOrder = grMemcpySrcAccessOrderAny;
    at[1].flags = grMemcpyFlagPreferOverlapWithCompute;
    size_t idx[2] = {0, 2};
    CHECK_OK(grMemsetAsync(dev, 0, 300, s));
    CHECK_OK(grMemcpyBatchAsync(d1, s1, n1, 3, at, idx, 2, s));
    void *d2[3] = {dst[0], dst[1], dst[2]};
    const void *s2[3] = {dev, dev + 100, dev + 200};
    size_t n2[3] = {100, 100, 100};
    size_t idx0 = 0;
    CHECK_OK(grMemcpyBatchAsync(d2, s2, n2, 3, at, &idx0, 1, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(dst[0][99], 'a');
    CHECK_EQ(dst[1][0], 'b');
    CHECK_EQ(dst[2][49], 'c');
    CHECK_EQ(dst[2][50], 0); /* only 50 bytes of the third copy were sent */
    /* The per-thread default stream takes batches too. */
    CHECK_OK(grMemcpyBatchAsync(d2, s2, n2, 1, at, &idx0, 1, grStreamPerThread));
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
    free_dev_and_stream(dev, s);
}

GR_TEST(memcpy_batch_refusals_copy_nothing)
{
    static char a[64], b[64], c[64];
    grStream_t s = tl_stream(0);
    char *dev = tl_malloc(64);
    memset(a, 1, sizeof a);
    memset(b, 2, sizeof b);
    memset(c, 0, sizeof c);
    grMemcpyAttributes at[2] = {stream_order(), stream_order()};
    size_t idx[2] = {0, 1};
    /* The first copy is fine, the second overruns dev: nothing is copied. */
    void *d[2] = {c, dev};
    const void *sr[2] = {a, b};
    size_t n[2] = {64, 65};
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 1, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[0], 0);
    n[1] = 0;
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 1, s));
    CHECK_DETAIL_HAS("sizes[1] is 0");
    n[1] = 64;
    d[1] = NULL;
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 1, s));
    d[1] = dev;
    /* The attribute rules. */
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, NULL, idx, 1, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, NULL, 1, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 3, s));
    size_t bad0[1] = {1};
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, bad0, 1, s));
    size_t same[2] = {0, 0};
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, same, 2, s));
    size_t past[2] = {0, 2};
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, past, 2, s));
    at[1].srcAccessOrder = grMemcpySrcAccessOrderInvalid;
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 2, s));
    at[1] = stream_order();
    at[1].flags = 2;
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 2, s));
    at[1] = stream_order();
    at[1].dstLocHint.type = (grMemLocationType)9;
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 2, s));
    at[1] = stream_order();
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 0, at, idx, 1, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(NULL, sr, n, 2, at, idx, 1, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, NULL, n, 2, at, idx, 1, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, NULL, 2, at, idx, 1, s));
    /* The legacy stream cannot take a batch. */
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 1, NULL));
    CHECK_DETAIL_HAS("legacy");
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 1, grStreamLegacy));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[0], 0);
    /* A destroyed stream. */
    grStream_t dead = tl_stream(0);
    CHECK_OK(grStreamDestroy(dead));
    CHECK_GR(grErrorInvalidResourceHandle, grMemcpyBatchAsync(d, sr, n, 2, at, idx, 1, dead));
    CHECK_OK(grMemcpyBatchAsync(d, sr, n, 2, at, idx, 2, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[63], 1);
    free_dev_and_stream(dev, s);
}

GR_TEST(memcpy_batch_captured_records_a_memcpy_node_per_copy)
{
    grGraph_t g = NULL;
    grGraphExec_t x;
    grGraphNode_t nodes[8];
    size_t nn = 8, ne = 0;
    static char a[32], b[32], c[32], d[32];
    grStream_t s = tl_stream(0);
    memset(a, 7, sizeof a);
    memset(b, 9, sizeof b);
    grMemcpyAttributes at = stream_order();
    size_t idx = 0;
    void *dst[2] = {c, d};
    const void *src[2] = {a, b};
    size_t n[2] = {32, 16};
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpyBatchAsync(dst, src, n, 2, &at, &idx, 1, s));
    /* A refused batch during capture records nothing and leaves the
     * capture valid. */
    n[1] = 0;
    CHECK_GR(grErrorInvalidValue, grMemcpyBatchAsync(dst, src, n, 2, &at, &idx, 1, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, nodes, &nn));
    CHECK_EQ(nn, 2);
    grGraphNodeType t;
    for (size_t i = 0; i < nn; i++) {
        CHECK_OK(grGraphNodeGetType(nodes[i], &t));
        CHECK_EQ(t, grGraphNodeTypeMemcpy);
    }
    CHECK_OK(grGraphGetEdges(g, NULL, NULL, NULL, &ne));
    CHECK_EQ(ne, 1);
    /* Nothing ran during capture. */
    CHECK_EQ(c[0], 0);
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphLaunch(x, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[31], 7);
    CHECK_EQ(d[15], 9);
    CHECK_EQ(d[16], 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(memcpy_batch_on_an_invalidated_capture_says_so)
{
    static char a[8], c[8];
    grMemcpyAttributes at = stream_order();
    size_t idx = 0, n = 8;
    void *dst = c;
    const void *src = a;
    grStream_t s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    CHECK_GR(grErrorStreamCaptureUnsupported, grStreamSynchronize(s));
    CHECK_GR(grErrorStreamCaptureInvalidated, grMemcpyBatchAsync(&dst, &src, &n, 1, &at, &idx, 1, s));
    tl_end_invalidated(s);
}

GR_TEST(memcpy_batch_on_a_gpu_stream_copies_through_the_driver)
{
    static char a[256], c[256];
    gr_test_device_or_skip(1);
    memset(a, 5, sizeof a);
    grStream_t s = tl_stream(0);
    char *dev = tl_malloc(256);
    grMemcpyAttributes at = stream_order();
    size_t idx = 0, n[2] = {256, 256};
    void *d1[1] = {dev};
    const void *s1[1] = {a};
    void *d2[1] = {c};
    const void *s2[1] = {dev};
    CHECK_OK(grMemcpyBatchAsync(d1, s1, n, 1, &at, &idx, 1, s));
    CHECK_OK(grMemcpyBatchAsync(d2, s2, n + 1, 1, &at, &idx, 1, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[255], 5);
    free_dev_and_stream(dev, s);
}

GR_TEST(memcpy_with_attributes_is_a_batch_of_one)
{
    grGraph_t g = NULL;
    size_t nn = 0;
    static char a[40], c[40];
    memset(a, 4, sizeof a);
    grStream_t s = tl_stream(0);
    grMemcpyAttributes at = stream_order();
    CHECK_OK(grMemcpyWithAttributesAsync(c, a, 40, &at, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[39], 4);
    memset(c, 0, sizeof c);
    CHECK_GR(grErrorInvalidValue, grMemcpyWithAttributesAsync(c, a, 40, NULL, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyWithAttributesAsync(c, a, 0, &at, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyWithAttributesAsync(NULL, a, 40, &at, s));
    CHECK_GR(grErrorInvalidValue, grMemcpyWithAttributesAsync(c, a, 40, &at, NULL));
    at.srcAccessOrder = grMemcpySrcAccessOrderMax;
    CHECK_GR(grErrorInvalidValue, grMemcpyWithAttributesAsync(c, a, 40, &at, s));
    at = stream_order();
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(c[0], 0);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpyWithAttributesAsync(c, a, 40, &at, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphGetNodes(g, NULL, &nn));
    CHECK_EQ(nn, 1);
    CHECK_EQ(c[0], 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}
