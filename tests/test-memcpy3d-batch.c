/*
 * test-memcpy3d-batch.c - grMemcpy3DBatchAsync: pointer operands copy as
 * grMemcpy3DAsync does (0 lengths: packed rows), array operands are
 * refused with a detail, every copy is checked before any is queued, and
 * the batch is stream-ordered and captured as memcpy nodes.
 */
#include "testlib.h"

#include <stdatomic.h>

static grMemcpy3DOperand ptr_op(void *p, size_t row, size_t layer)
{
    grMemcpy3DOperand o;
    memset(&o, 0, sizeof o);
    o.type = grMemcpyOperandTypePointer;
    o.op.ptr.ptr = p;
    o.op.ptr.rowLength = row;
    o.op.ptr.layerHeight = layer;
    return o;
}

static grMemcpy3DBatchOp box(void *dst, size_t drow, const void *src, size_t srow, grExtent e)
{
    grMemcpy3DBatchOp op;
    memset(&op, 0, sizeof op);
    op.dst = ptr_op(dst, drow, 0);
    op.src = ptr_op((void *)(uintptr_t)src, srow, 0);
    op.extent = e;
    op.srcAccessOrder = grMemcpySrcAccessOrderStream;
    return op;
}

GR_TEST(memcpy3d_batch_copies_pointer_operands_in_stream_order)
{
    char *a = NULL, *b = NULL, *c = NULL;
    atomic_int gate = 0;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMalloc((void **)&a, 256));
    CHECK_OK(grMalloc((void **)&b, 256));
    CHECK_OK(grMalloc((void **)&c, 256));
    for (int i = 0; i < 256; i++)
        a[i] = (char)i;
    memset(b, 0, 256);
    memset(c, 0, 256);
    grMemcpy3DBatchOp ops[2] = {
        box(b, 0, a, 16, make_grExtent(8, 4, 2)), /* packed destination rows of 8 */
        box(c, 0, a, 0, make_grExtent(100, 1, 1)),
    };
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_EQ(c[99], 0);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    /* Destination row 5 (slice 1, row 1) is source row 5 of pitch 16. */
    CHECK_EQ(b[5 * 8 + 7], (char)(5 * 16 + 7));
    CHECK_EQ(b[63], (char)(7 * 16 + 7));
    CHECK_EQ(b[64], 0);
    CHECK_EQ(c[99], 99);
    CHECK_EQ(tl_gate_timeouts, 0);
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grFree(c));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(memcpy3d_batch_refuses_arrays_and_bad_operands_before_copying)
{
    char *a = NULL, *b = NULL;
    grStream_t s = tl_stream(0);
    CHECK_OK(grMalloc((void **)&a, 64));
    CHECK_OK(grMalloc((void **)&b, 64));
    memset(a, 1, 64);
    memset(b, 0, 64);
    grMemcpy3DBatchOp ops[2] = {box(b, 0, a, 0, make_grExtent(64, 1, 1)),
                                box(b, 0, a, 0, make_grExtent(8, 1, 1))};
    ops[1].src.type = grMemcpyOperandTypeArray;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_DETAIL_HAS("no CUDA arrays");
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[0], 0); /* the first copy was not queued */
    ops[1].src.type = (grMemcpy3DOperandType)7;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_DETAIL_HAS("type is 7");
    ops[1] = box(b, 0, a, 4, make_grExtent(8, 2, 1));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_DETAIL_HAS("rowLength 4");
    ops[1] = box(b, 0, a, 0, make_grExtent(8, 0, 1));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_DETAIL_HAS("may be 0");
    ops[1] = box(b, 0, a, 0, make_grExtent(65, 1, 1));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    ops[1] = box(b, 0, NULL, 0, make_grExtent(8, 1, 1));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    ops[1] = box(b, 0, a, 0, make_grExtent(8, 1, 1));
    ops[1].srcAccessOrder = grMemcpySrcAccessOrderInvalid;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    ops[1].srcAccessOrder = grMemcpySrcAccessOrderAny;
    ops[1].flags = 2;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, s));
    ops[1].flags = grMemcpyFlagPreferOverlapWithCompute;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(0, ops, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, NULL, 0, s));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 1, s));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DBatchAsync(2, ops, 0, NULL));
    CHECK_DETAIL_HAS("legacy default stream");
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[0], 0);
    CHECK_OK(grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[63], 1);
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(memcpy3d_batch_is_captured_as_memcpy_nodes)
{
    char *a = NULL, *b = NULL;
    grGraph_t g = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMalloc((void **)&a, 128));
    CHECK_OK(grMalloc((void **)&b, 128));
    memset(a, 4, 128);
    memset(b, 0, 128);
    grMemcpy3DBatchOp ops[2] = {box(b, 0, a, 0, make_grExtent(16, 1, 1)),
                                box(b + 64, 32, a + 64, 32, make_grExtent(8, 2, 1))};
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpy3DBatchAsync(2, ops, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 2);
    CHECK_EQ(b[0], 0);
    tl_run_graph(g);
    CHECK_EQ(b[15], 4);
    CHECK_EQ(b[16], 0);
    CHECK_EQ(b[64 + 32 + 7], 4);
    CHECK_EQ(b[64 + 8], 0);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grStreamDestroy(s));
}

/* grMemcpy3DWithAttributesAsync is a batch of one: it copies in stream
 * order, refuses what the batch refuses (naming 'op' in the detail),
 * refuses NULL and flags, and captures one memcpy node. */
GR_TEST(memcpy3d_with_attributes_is_a_batch_of_one)
{
    char *a = NULL, *b = NULL;
    grGraph_t g = NULL;
    atomic_int gate = 0;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMalloc((void **)&a, 128));
    CHECK_OK(grMalloc((void **)&b, 128));
    for (int i = 0; i < 128; i++)
        a[i] = (char)i;
    memset(b, 0, 128);
    grMemcpy3DBatchOp op = box(b, 8, a, 16, make_grExtent(8, 4, 1)); /* 4 rows of a's pitch 16 */
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grMemcpy3DWithAttributesAsync(&op, 0, s));
    CHECK_EQ(b[31], 0);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[3 * 8 + 7], (char)(3 * 16 + 7));
    CHECK_EQ(b[32], 0);
    CHECK_EQ(tl_gate_timeouts, 0);

    memset(b, 0, 128);
    CHECK_GR(grErrorInvalidValue, grMemcpy3DWithAttributesAsync(NULL, 0, s));
    CHECK_DETAIL_HAS("'op' is NULL");
    CHECK_GR(grErrorInvalidValue, grMemcpy3DWithAttributesAsync(&op, 1, s));
    CHECK_DETAIL_HAS("flags is 0x1");
    CHECK_GR(grErrorInvalidValue, grMemcpy3DWithAttributesAsync(&op, 0, grStreamLegacy));
    CHECK_DETAIL_HAS("legacy default stream");
    grMemcpy3DBatchOp bad = op;
    bad.src.type = grMemcpyOperandTypeArray;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DWithAttributesAsync(&bad, 0, s));
    CHECK_DETAIL_HAS("op[0].src is an array operand");
    bad = box(b, 0, a, 0, make_grExtent(129, 1, 1));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DWithAttributesAsync(&bad, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[0], 0); /* nothing refused was queued */

    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpy3DWithAttributesAsync(&op, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 1);
    tl_run_graph(g);
    CHECK_EQ(b[1 * 8 + 2], (char)(1 * 16 + 2));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grStreamDestroy(s));
}
