/*
 * test-copy-2d3d.c - pitched copies and memsets (grMemcpy2D/3D,
 * grMemset2D/3D, eager, queued and captured) and the 3D-parameter memcpy
 * node calls: results checked byte by byte against a reference computed
 * here, every refusal with its code and with memory left as it was.
 */
#include "testlib.h"

#include <string.h>

/* The reference of a 2D copy: height rows of width bytes. */
static void ref_copy_2d(unsigned char *dst, size_t dpitch, const unsigned char *src, size_t spitch,
                        size_t width, size_t height)
{
    for (size_t r = 0; r < height; r++)
        memcpy(dst + r * dpitch, src + r * spitch, width);
}

static unsigned char *dev(size_t n)
{
    void *p = NULL;
    if (grMalloc(&p, n) != grSuccess)
        return NULL;
    return p;
}

/* Copies the n bytes at device address d into got, which must then
 * equal want. */
static void expect_device_bytes(const void *d, unsigned char *got, const unsigned char *want, size_t n)
{
    CHECK_OK(grMemcpy(got, d, n, grMemcpyDeviceToHost));
    CHECK(memcmp(got, want, n) == 0);
}

/* Frees a test's two device buffers. */
static void free_both(void *a, void *b)
{
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}

/* The buffers of a test of refusals: src[0..n) a pattern of this seed,
 * dst all 'fill', before a copy of dst to compare it with after each
 * refused call. */
static void refusal_buffers(unsigned char *src, unsigned char *dst, unsigned char *before, size_t n,
                            unsigned seed, int fill)
{
    tl_fill_pattern(src, n, seed);
    memset(dst, fill, n);
    memcpy(before, dst, n);
}

GR_TEST(memcpy_2d_copies_each_row_and_leaves_the_padding)
{
    enum {
        W = 13,
        H = 7,
        SP = 20,
        DP = 32
    };
    unsigned char *src = dev(SP * H), *dst = dev(DP * H);
    unsigned char want[DP * H], got[DP * H], host_src[SP * H];
    CHECK(src && dst);
    tl_fill_pattern(host_src, sizeof host_src, 1);
    CHECK_OK(grMemcpy(src, host_src, sizeof host_src, grMemcpyHostToDevice));
    CHECK_OK(grMemset(dst, 0xee, DP * H));
    memset(want, 0xee, sizeof want);
    ref_copy_2d(want, DP, host_src, SP, W, H);
    CHECK_OK(grMemcpy2D(dst, DP, src, SP, W, H, grMemcpyDeviceToDevice));
    expect_device_bytes(dst, got, want, sizeof want);
    free_both(src, dst);
}

GR_TEST(memcpy_2d_async_runs_in_stream_order)
{
    enum {
        W = 9,
        H = 5,
        P = 16
    };
    unsigned char *a = dev(P * H), *b = dev(P * H);
    unsigned char got[P * H], want[P * H], pattern[P * H];
    CHECK(a && b);
    grStream_t s = tl_stream(0);
    tl_fill_pattern(pattern, sizeof pattern, 3);
    CHECK_OK(grMemsetAsync(b, 0, P * H, s));
    CHECK_OK(grMemcpyAsync(a, pattern, sizeof pattern, grMemcpyHostToDevice, s));
    CHECK_OK(grMemcpy2DAsync(b, P, a, P, W, H, grMemcpyDefault, s));
    CHECK_OK(grMemcpyAsync(got, b, sizeof got, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    memset(want, 0, sizeof want);
    ref_copy_2d(want, P, pattern, P, W, H);
    CHECK(memcmp(got, want, sizeof want) == 0);
    CHECK_OK(grStreamDestroy(s));
    free_both(a, b);
}

GR_TEST(memcpy_2d_refuses_a_pitch_below_the_width_and_copies_nothing)
{
    unsigned char src[64], dst[64], before[64];
    refusal_buffers(src, dst, before, sizeof dst, 2, 0x11);
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy2D(dst, 4, src, 8, 8, 2, grMemcpyHostToHost));
    CHECK_DETAIL_HAS("dpitch");
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy2D(dst, 8, src, 4, 8, 2, grMemcpyHostToHost));
    CHECK_DETAIL_HAS("spitch");
    CHECK_GR(grErrorInvalidMemcpyDirection, grMemcpy2D(dst, 8, src, 8, 8, 2, (grMemcpyKind)9));
    CHECK_GR(grErrorInvalidValue, grMemcpy2D(NULL, 8, src, 8, 8, 2, grMemcpyHostToHost));
    CHECK(memcmp(dst, before, sizeof dst) == 0);
    /* Zero extents copy nothing and succeed. */
    CHECK_OK(grMemcpy2D(dst, 8, src, 8, 0, 2, grMemcpyHostToHost));
    CHECK_OK(grMemcpy2D(dst, 8, src, 8, 8, 0, grMemcpyHostToHost));
    CHECK(memcmp(dst, before, sizeof dst) == 0);
}

GR_TEST(memcpy_2d_refuses_a_row_past_the_allocation_and_names_it)
{
    enum {
        P = 16,
        H = 4
    };
    unsigned char *a = dev(P * H), *b = dev(P * H - 8); /* b's last row is short */
    unsigned char host[P * H], got[P * H - 8];
    CHECK(a && b);
    tl_fill_pattern(host, sizeof host, 4);
    CHECK_OK(grMemcpy(a, host, sizeof host, grMemcpyHostToDevice));
    CHECK_OK(grMemset(b, 0x5a, P * H - 8));
    /* Rows 0..2 fit; row 3 of 12 bytes at b + 48 runs 4 bytes past b's 56. */
    CHECK_GR(grErrorInvalidValue, grMemcpy2D(b, P, a, P, 12, H, grMemcpyDeviceToDevice));
    CHECK_DETAIL_HAS("row 3 of slice 0");
    CHECK_GR(grErrorInvalidValue, grMemcpy2D(a, P, b, P, 12, H, grMemcpyDeviceToDevice));
    CHECK_DETAIL_HAS("source row 3");
    CHECK_OK(grMemcpy(got, b, sizeof got, grMemcpyDeviceToHost));
    for (size_t i = 0; i < sizeof got; i++)
        CHECK_EQ(got[i], 0x5a);
    /* Rows of 8 bytes fit: the copy goes through. */
    CHECK_OK(grMemcpy2D(b, P, a, P, 8, H, grMemcpyDeviceToDevice));
    CHECK_OK(grMemcpy(got, b, sizeof got, grMemcpyDeviceToHost));
    for (size_t r = 0; r < H; r++)
        CHECK(memcmp(got + r * P, host + r * P, 8) == 0);
    free_both(a, b);
}

GR_TEST(memset_2d_sets_each_row_and_leaves_the_padding)
{
    enum {
        W = 5,
        H = 6,
        P = 11
    };
    unsigned char buf[P * H], want[P * H];
    memset(buf, 1, sizeof buf);
    memset(want, 1, sizeof want);
    for (size_t r = 0; r < H; r++)
        memset(want + r * P, 0xab, W);
    CHECK_OK(grMemset2D(buf, P, 0x1ab, W, H));
    CHECK(memcmp(buf, want, sizeof want) == 0);
    CHECK_GR(grErrorInvalidValue, grMemset2D(buf, 4, 0, W, H)); /* CUDA: not InvalidPitchValue */
    CHECK(memcmp(buf, want, sizeof want) == 0);
    CHECK_GR(grErrorInvalidValue, grMemset2D(NULL, P, 0, W, H));
    CHECK_OK(grMemset2D(NULL, P, 0, 0, H)); /* nothing to set */
}

GR_TEST(memcpy_3d_copies_a_box_between_positions)
{
    /* Source volume 6 x 5 x 4 (pitch 8, ysize 5); destination 10 x 7 x 5
     * (pitch 12, ysize 7); copy a 3 x 2 x 3 box from (1,2,1) to (4,3,2). */
    enum {
        SP = 8,
        SY = 5,
        SZ = 4,
        DP = 12,
        DY = 7,
        DZ = 5
    };
    unsigned char *src = dev(SP * SY * SZ), *dst = dev(DP * DY * DZ);
    unsigned char host[SP * SY * SZ], got[DP * DY * DZ], want[DP * DY * DZ];
    CHECK(src && dst);
    tl_fill_pattern(host, sizeof host, 5);
    CHECK_OK(grMemcpy(src, host, sizeof host, grMemcpyHostToDevice));
    CHECK_OK(grMemset(dst, 0, sizeof got));
    memset(want, 0, sizeof want);
    for (size_t z = 0; z < 3; z++)
        for (size_t y = 0; y < 2; y++)
            memcpy(want + (2 + z) * DP * DY + (3 + y) * DP + 4, host + (1 + z) * SP * SY + (2 + y) * SP + 1,
                   3);
    grMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_grPitchedPtr(src, SP, 6, SY);
    p.srcPos = make_grPos(1, 2, 1);
    p.dstPtr = make_grPitchedPtr(dst, DP, 10, DY);
    p.dstPos = make_grPos(4, 3, 2);
    p.extent = make_grExtent(3, 2, 3);
    p.kind = grMemcpyDeviceToDevice;
    CHECK_OK(grMemcpy3D(&p));
    expect_device_bytes(dst, got, want, sizeof want);
    /* The same on a stream. */
    CHECK_OK(grMemset(dst, 0, sizeof got));
    grStream_t s = tl_stream(0);
    CHECK_OK(grMemcpy3DAsync(&p, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_device_bytes(dst, got, want, sizeof want);
    CHECK_OK(grStreamDestroy(s));
    free_both(src, dst);
}

GR_TEST(memcpy_3d_refuses_arrays_pitches_and_short_slices_and_changes_nothing)
{
    unsigned char src[256], dst[256], before[256];
    refusal_buffers(src, dst, before, sizeof dst, 6, 0x33);
    grMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_grPitchedPtr(src, 16, 16, 4);
    p.dstPtr = make_grPitchedPtr(dst, 16, 16, 4);
    p.extent = make_grExtent(8, 4, 2);
    p.kind = grMemcpyHostToHost;
    grMemcpy3DParms q = p;
    q.srcArray = (grArray_t)(uintptr_t)0x1000;
    CHECK_GR(grErrorInvalidValue, grMemcpy3D(&q));
    CHECK_DETAIL_HAS("srcArray");
    q = p;
    q.dstPos = make_grPos(10, 0, 0); /* 10 + 8 > pitch 16 */
    CHECK_GR(grErrorInvalidValue, grMemcpy3D(&q));
    q = p;
    q.dstPtr.pitch = 4; /* below the width, several rows */
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy3D(&q));
    q = p;
    q.srcPtr.ysize = 3; /* slices of 3 rows cannot hold 4 */
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy3D(&q));
    CHECK_DETAIL_HAS("ysize");
    q.extent.depth = 1; /* one slice: InvalidValue, and a ysize of 0 passes */
    CHECK_GR(grErrorInvalidValue, grMemcpy3D(&q));
    CHECK_GR(grErrorInvalidValue, grMemcpy3D(NULL));
    q = p;
    q.kind = (grMemcpyKind)7;
    CHECK_GR(grErrorInvalidMemcpyDirection, grMemcpy3D(&q));
    CHECK(memcmp(dst, before, sizeof dst) == 0);
    q = p;
    q.extent.depth = 0;
    CHECK_OK(grMemcpy3D(&q));
    CHECK(memcmp(dst, before, sizeof dst) == 0);
    CHECK_OK(grMemcpy3D(&p));
    CHECK(memcmp(dst, src, 16 * 4 * 2 - 8) != 0); /* padding kept: not a flat copy */
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 4; y++) {
            CHECK(memcmp(dst + z * 64 + y * 16, src + z * 64 + y * 16, 8) == 0);
            CHECK(memcmp(dst + z * 64 + y * 16 + 8, before + z * 64 + y * 16 + 8, 8) == 0);
        }
}

GR_TEST(memset_3d_sets_the_box_with_uneven_slices)
{
    enum {
        P = 10,
        Y = 6,
        Z = 3
    };
    unsigned char buf[P * Y * Z], want[P * Y * Z];
    memset(buf, 0, sizeof buf);
    memset(want, 0, sizeof want);
    for (size_t z = 0; z < Z; z++)
        for (size_t y = 0; y < 4; y++)
            memset(want + z * P * Y + y * P, 0x7f, 7);
    CHECK_OK(grMemset3D(make_grPitchedPtr(buf, P, 7, Y), 0x7f, make_grExtent(7, 4, Z)));
    CHECK(memcmp(buf, want, sizeof want) == 0);
    CHECK_GR(grErrorInvalidValue, grMemset3D(make_grPitchedPtr(buf, P, 7, 3), 0, make_grExtent(7, 4, Z)));
    CHECK_GR(grErrorInvalidValue, grMemset3D(make_grPitchedPtr(buf, 5, 7, Y), 0, make_grExtent(7, 4, Z)));
    CHECK_GR(grErrorInvalidValue, grMemset3D(make_grPitchedPtr(buf, P, 7, 3), 0, make_grExtent(7, 4, 1)));
    CHECK(memcmp(buf, want, sizeof want) == 0);
}

/* Captures fn's work on a fresh stream, runs the graph once, and returns
 * the graph (or NULL if the capture failed). */
static grGraph_t capture_and_run(void (*fn)(grStream_t, void *), void *arg)
{
    grStream_t s;
    grGraph_t g = NULL;
    grGraphExec_t e;
    if (grStreamCreate(&s) != grSuccess)
        return NULL;
    if (grStreamBeginCapture(s, grStreamCaptureModeGlobal) == grSuccess) {
        fn(s, arg);
        if (grStreamEndCapture(s, &g) == grSuccess && grGraphInstantiate(&e, g, 0) == grSuccess) {
            grGraphLaunch(e, s);
            grStreamSynchronize(s);
            grGraphExecDestroy(e);
        }
    }
    grStreamDestroy(s);
    return g;
}

typedef struct {
    unsigned char *buf;
    unsigned char *src;
    grError_t err;
} cap_args;

/* capture_and_run(fn, a), which must give a graph, fn's calls all
 * accepted (a->err), and exactly 'want' nodes (at most 3) in the graph:
 * they go into n[0..want). */
static grGraph_t capture_expect_nodes(void (*fn)(grStream_t, void *), cap_args *a, grGraphNode_t *n,
                                      size_t want)
{
    grGraphNode_t got[4];
    size_t count = want + 1; /* room for one more, so that an extra node is seen */
    grGraph_t g = capture_and_run(fn, a);
    CHECK(g != NULL);
    CHECK_OK(a->err);
    CHECK_OK(grGraphGetNodes(g, got, &count));
    CHECK_EQ(count, want);
    memcpy(n, got, want * sizeof *n);
    return g;
}

enum {
    MEMSET_BYTES = 48
};

/* Captures fn's memsets into a zeroed buffer of MEMSET_BYTES and runs
 * them: one memset node of this height and pitch (and width, unless 0)
 * must result, writing what the eager call wrote into 'eager'. */
static void expect_one_memset_node(void (*fn)(grStream_t, void *), const unsigned char *eager, size_t height,
                                   size_t pitch, size_t width)
{
    unsigned char captured[MEMSET_BYTES] = {0};
    cap_args a = {captured, NULL, grErrorUnknown};
    grGraphNode_t n[1];
    grGraph_t g = capture_expect_nodes(fn, &a, n, 1);
    grMemsetParams mp;
    CHECK_OK(grGraphMemsetNodeGetParams(n[0], &mp));
    CHECK_EQ(mp.height, height);
    CHECK_EQ(mp.pitch, pitch);
    if (width)
        CHECK_EQ(mp.width, width);
    CHECK(memcmp(eager, captured, MEMSET_BYTES) == 0);
    CHECK_OK(grGraphDestroy(g));
}

static void capture_memset_2d(grStream_t s, void *p)
{
    cap_args *a = p;
    a->err = grMemset2DAsync(a->buf, 12, 0x42, 5, 4, s);
}

GR_TEST(captured_memset_2d_is_one_memset_node_with_the_eager_result)
{
    unsigned char eager[MEMSET_BYTES] = {0};
    CHECK_OK(grMemset2D(eager, 12, 0x42, 5, 4));
    expect_one_memset_node(capture_memset_2d, eager, 4, 12, 5);
}

static void capture_copies(grStream_t s, void *p)
{
    cap_args *a = p;
    /* Contiguous: becomes a 1D memcpy node. */
    a->err = grMemcpy2DAsync(a->buf, 8, a->src, 8, 8, 4, grMemcpyHostToHost, s);
    if (a->err != grSuccess)
        return;
    /* Source rows 16 bytes apart: one memcpy node keeping the 3D form. */
    a->err = grMemcpy2DAsync(a->buf + 32, 8, a->src, 16, 8, 2, grMemcpyHostToHost, s);
}

GR_TEST(captured_contiguous_2d_copy_is_a_1d_node_and_a_pitched_one_a_3d_node)
{
    unsigned char src[64], buf[64];
    tl_fill_pattern(src, sizeof src, 8);
    memset(buf, 0, sizeof buf);
    cap_args a = {buf, src, grErrorUnknown};
    grGraphNode_t n[2];
    grGraph_t g = capture_expect_nodes(capture_copies, &a, n, 2);
    grMemcpy3DParms p;
    CHECK_OK(grGraphMemcpyNodeGetParams(n[0], &p));
    CHECK_EQ(p.extent.width, (size_t)32);
    CHECK_OK(grGraphMemcpyNodeGetParams(n[1], &p));
    CHECK_EQ(p.extent.width, (size_t)8);
    CHECK_EQ(p.extent.height, (size_t)2);
    CHECK_EQ(p.srcPtr.pitch, (size_t)16);
    CHECK_PTR_EQ(p.dstPtr.ptr, buf + 32);
    CHECK(memcmp(buf, src, 32) == 0);
    CHECK(memcmp(buf + 32, src, 8) == 0);
    CHECK(memcmp(buf + 40, src + 16, 8) == 0);
    for (size_t i = 48; i < sizeof buf; i++)
        CHECK_EQ(buf[i], 0);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(memcpy_node_from_3d_params_copies_and_its_setters_follow_cuda)
{
    unsigned char a[32], b[32], c[32];
    tl_fill_pattern(a, sizeof a, 9);
    tl_fill_pattern(c, sizeof c, 10);
    memset(b, 0, sizeof b);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e;
    CHECK_OK(grGraphCreate(&g, 0));
    grMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_grPitchedPtr(a, 32, 32, 1);
    p.dstPtr = make_grPitchedPtr(b, 32, 32, 1);
    p.srcPos = make_grPos(4, 0, 0);
    p.extent = make_grExtent(16, 1, 1);
    p.kind = grMemcpyHostToHost;
    grMemcpy3DParms bad = p;
    bad.srcPtr.pitch = 8; /* below the width, with two rows */
    bad.srcPtr.ysize = bad.dstPtr.ysize = 2;
    bad.extent.height = 2;
    CHECK_GR(grErrorInvalidPitchValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    bad = p;
    bad.dstArray = (grArray_t)(uintptr_t)0x2000;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, NULL));
    bad = p;
    bad.extent.depth = 0; /* an empty copy node: refused, as CUDA 13 refuses it */
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    size_t count = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &count));
    CHECK_EQ(count, (size_t)0);
    CHECK_OK(grGraphAddMemcpyNode(&n, g, NULL, 0, &p));
    grMemcpy3DParms got;
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    CHECK_PTR_EQ(got.srcPtr.ptr, a); /* as given, as CUDA answers */
    CHECK_EQ(got.srcPos.x, (size_t)4);
    CHECK_EQ(got.extent.width, (size_t)16);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK(memcmp(b, a + 4, 16) == 0);
    /* Exec setter: copy from c instead; a short pitch is refused first. */
    grMemcpy3DParms q = p;
    q.srcPtr.ptr = c;
    bad = q;
    bad.dstPtr.pitch = 4;
    bad.extent.depth = 2;
    CHECK_GR(grErrorInvalidPitchValue, grGraphExecMemcpyNodeSetParams(e, n, &bad));
    CHECK_OK(grGraphExecMemcpyNodeSetParams(e, n, &q));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK(memcmp(b, c + 4, 16) == 0);
    /* Graph setter, then exec update pairs the node and takes the copy. */
    q.srcPtr.ptr = a;
    q.srcPos.x = 0;
    CHECK_GR(grErrorInvalidPitchValue, grGraphMemcpyNodeSetParams(n, &bad));
    CHECK_OK(grGraphMemcpyNodeSetParams(n, &q));
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK(memcmp(b, a, 16) == 0);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

static void capture_memsets_3d(grStream_t s, void *p)
{
    cap_args *a = p;
    /* Slices 3 rows apart, 3 rows each: evenly spaced, one memset node. */
    a->err = grMemset3DAsync(make_grPitchedPtr(a->buf, 8, 8, 3), 0x21, make_grExtent(5, 3, 2), s);
    if (a->err != grSuccess)
        return;
    /* Slices 3 rows apart, 2 rows each: refused, the capture goes on. */
    grError_t e = grMemset3DAsync(make_grPitchedPtr(a->buf, 8, 8, 3), 0x43, make_grExtent(5, 2, 2), s);
    a->err = e == grErrorNotSupported ? grSuccess : grErrorUnknown;
}

GR_TEST(captured_memset_3d_is_one_node_when_its_rows_are_evenly_spaced)
{
    unsigned char eager[MEMSET_BYTES] = {0};
    CHECK_OK(grMemset3D(make_grPitchedPtr(eager, 8, 8, 3), 0x21, make_grExtent(5, 3, 2)));
    expect_one_memset_node(capture_memsets_3d, eager, 6, 8, 0);
}

static void capture_copy_3d(grStream_t s, void *p)
{
    cap_args *a = p;
    grMemcpy3DParms c;
    memset(&c, 0, sizeof c);
    c.srcPtr = make_grPitchedPtr(a->src, 4, 4, 2);
    c.dstPtr = make_grPitchedPtr(a->buf, 4, 4, 2);
    c.extent = make_grExtent(4, 2, 3); /* rows and slices contiguous: 24 bytes */
    c.kind = grMemcpyHostToHost;
    a->err = grMemcpy3DAsync(&c, s);
}

GR_TEST(captured_contiguous_3d_copy_is_one_1d_node_with_the_eager_result)
{
    unsigned char src[24], eager[24], captured[24];
    tl_fill_pattern(src, sizeof src, 11);
    memset(eager, 0, sizeof eager);
    memset(captured, 0, sizeof captured);
    cap_args e = {eager, src, grErrorUnknown};
    capture_copy_3d(NULL, &e);
    CHECK_OK(e.err);
    CHECK_OK(grStreamSynchronize(NULL));
    cap_args a = {captured, src, grErrorUnknown};
    grGraphNode_t n[1];
    grGraph_t g = capture_expect_nodes(capture_copy_3d, &a, n, 1);
    grMemcpy3DParms p;
    CHECK_OK(grGraphMemcpyNodeGetParams(n[0], &p));
    CHECK_EQ(p.extent.width, (size_t)24);
    CHECK(memcmp(eager, src, sizeof src) == 0);
    CHECK(memcmp(captured, eager, sizeof eager) == 0);
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(a_huge_pitched_region_past_an_allocation_is_refused_at_once)
{
    unsigned char *a = dev(64);
    CHECK(a != NULL);
    /* Rows of one byte, 1 byte apart, 2^40 of them: far past 'a'. Each row
     * past 'a' alone would be plain host memory; the region is one object,
     * so it is refused as a whole (without walking its rows). */
    CHECK_GR(grErrorInvalidValue, grMemset2D(a, 1, 0, 1, (size_t)1 << 40));
    CHECK_DETAIL_HAS("runs past the end of the 64-byte allocation");
    CHECK_GR(grErrorInvalidValue,
             grMemset3D(make_grPitchedPtr(a, 1, 1, 1u << 20), 0, make_grExtent(1, 1u << 20, 1u << 20)));
    CHECK_DETAIL_HAS("rows");
    CHECK_OK(grFree(a));
}

/* The codes CUDA 13 answers, probed on an H200 (one row against several,
 * a pitch or ysize of 0). */
GR_TEST(pitch_and_ysize_codes_follow_cuda_13_for_one_row_and_several)
{
    unsigned char src[64], dst[64], before[64];
    refusal_buffers(src, dst, before, sizeof dst, 12, 0);
    CHECK_GR(grErrorInvalidValue, grMemcpy2D(dst, 4, src, 8, 8, 1, grMemcpyHostToHost));
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy2D(dst, 4, src, 8, 8, 2, grMemcpyHostToHost));
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy2D(dst, 0, src, 8, 8, 2, grMemcpyHostToHost));
    CHECK(memcmp(dst, before, sizeof dst) == 0);
    CHECK_OK(grMemcpy2D(dst, 0, src, 0, 8, 1, grMemcpyHostToHost)); /* pitch 0, one row */
    CHECK(memcmp(dst, src, 8) == 0);
    CHECK_OK(grMemset2D(dst, 2, 0x5c, 8, 1)); /* one row: the pitch is not checked */
    for (int i = 0; i < 8; i++)
        CHECK_EQ(dst[i], 0x5c);
    CHECK_GR(grErrorInvalidValue, grMemset2D(dst, 0, 0, 8, 2));
    CHECK_OK(grMemset3D(make_grPitchedPtr(dst + 8, 2, 8, 1), 0x6d, make_grExtent(8, 1, 1))); /* as 2D */
    for (int i = 8; i < 16; i++)
        CHECK_EQ(dst[i], 0x6d);
    grMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_grPitchedPtr(src, 8, 8, 0); /* ysize 0: fine for one slice */
    p.dstPtr = make_grPitchedPtr(dst + 16, 8, 8, 0);
    p.extent = make_grExtent(8, 2, 1);
    p.kind = grMemcpyHostToHost;
    CHECK_OK(grMemcpy3D(&p));
    CHECK(memcmp(dst + 16, src, 16) == 0);
    p.extent.depth = 2;
    CHECK_GR(grErrorInvalidPitchValue, grMemcpy3D(&p));
}
