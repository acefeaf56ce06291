/*
 * test-memcpy3d-node.c - memcpy nodes of 2D and 3D copies, as CUDA makes
 * them: added, set, captured, updated, cloned, saved and loaded, nested
 * in child graphs, bounds-checked; every result checked byte by byte
 * against a reference computed here (the padding between rows left as
 * it was), every refusal with CUDA's code and the node left as it was.
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PAD 0xee

/* The reference of a 3D copy of c (positions and pitches as given). */
static void check_same_params(const grMemcpy3DParms *a, const grMemcpy3DParms *b)
{
    CHECK_PTR_EQ(a->dstPtr.ptr, b->dstPtr.ptr);
    CHECK_EQ(a->dstPtr.pitch, b->dstPtr.pitch);
    CHECK_EQ(a->dstPtr.xsize, b->dstPtr.xsize);
    CHECK_EQ(a->dstPtr.ysize, b->dstPtr.ysize);
    CHECK_PTR_EQ(a->srcPtr.ptr, b->srcPtr.ptr);
    CHECK_EQ(a->srcPtr.pitch, b->srcPtr.pitch);
    CHECK_EQ(a->srcPtr.xsize, b->srcPtr.xsize);
    CHECK_EQ(a->srcPtr.ysize, b->srcPtr.ysize);
    CHECK_EQ(a->dstPos.x, b->dstPos.x);
    CHECK_EQ(a->dstPos.y, b->dstPos.y);
    CHECK_EQ(a->dstPos.z, b->dstPos.z);
    CHECK_EQ(a->srcPos.x, b->srcPos.x);
    CHECK_EQ(a->srcPos.y, b->srcPos.y);
    CHECK_EQ(a->srcPos.z, b->srcPos.z);
    CHECK_EQ(a->extent.width, b->extent.width);
    CHECK_EQ(a->extent.height, b->extent.height);
    CHECK_EQ(a->extent.depth, b->extent.depth);
    CHECK_EQ(a->kind, b->kind);
}

/* What copy c leaves in its destination, padded first (size bytes), made
 * on the host into want. */
static void expect_of(const grMemcpy3DParms *c, unsigned char *want, size_t size)
{
    memset(want, PAD, size);
    grMemcpy3DParms w = *c;
    w.dstPtr.ptr = want;
    tl_copy3d_on_host(&w);
}

/* Runs x over dst (size bytes, padded first), which must then be want. */
static void run_expect_all(grGraphExec_t x, unsigned char *dst, const unsigned char *want, size_t size)
{
    memset(dst, PAD, size);
    tl_run(x);
    CHECK(memcmp(dst, want, size) == 0);
}

GR_TEST(memcpy_node_2d_copies_each_row_and_leaves_the_padding)
{
    unsigned char src[8 * 4], dst[12 * 4], want[12 * 4];
    tl_fill_pattern(src, sizeof src, 1);
    memset(dst, PAD, sizeof dst);
    /* 5 bytes of 4 rows, 8 apart in the source and 12 in the destination. */
    grMemcpy3DParms c = tl_copy3d_params(dst, 12, 4, src, 8, 4, make_grExtent(5, 4, 1), grMemcpyHostToHost);
    expect_of(&c, want, sizeof want);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode(&n, g, NULL, 0, &c));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    tl_run(x);
    CHECK(memcmp(dst, want, sizeof dst) == 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(memcpy_node_3d_copies_a_box_between_positions_as_the_eager_copy)
{
    /* Source: 3 slices of 5 rows of 16 bytes; destination: 4 slices of 6
     * rows of 20 bytes; a 7 x 3 x 2 box at different positions. */
    unsigned char src[16 * 5 * 3], dst[20 * 6 * 4], eager[20 * 6 * 4];
    tl_fill_pattern(src, sizeof src, 2);
    memset(dst, PAD, sizeof dst);
    memset(eager, PAD, sizeof eager);
    grMemcpy3DParms c = tl_copy3d_params(dst, 20, 6, src, 16, 5, make_grExtent(7, 3, 2), grMemcpyHostToHost);
    c.srcPos = make_grPos(4, 1, 1);
    c.dstPos = make_grPos(9, 2, 1);
    grMemcpy3DParms e = c;
    e.dstPtr.ptr = eager;
    CHECK_OK(grMemcpy3D(&e));
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode(&n, g, NULL, 0, &c));
    grMemcpy3DParms got;
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    check_same_params(&got, &c); /* as given, as CUDA answers */
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    tl_run(x);
    CHECK(memcmp(dst, eager, sizeof dst) == 0);
    /* Replays copy the same bytes again. */
    run_expect_all(x, dst, eager, sizeof dst);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}

typedef struct cap3d {
    grMemcpy3DParms c;
    grError_t err;
} cap3d;

static void capture_3d(grStream_t s, void *p)
{
    cap3d *a = p;
    a->err = grMemcpy3DAsync(&a->c, s);
}

GR_TEST(captured_pitched_3d_copy_is_one_node_that_gives_its_parameters_back)
{
    unsigned char src[16 * 5 * 3], dst[20 * 6 * 4], eager[20 * 6 * 4];
    tl_fill_pattern(src, sizeof src, 3);
    memset(dst, PAD, sizeof dst);
    memset(eager, PAD, sizeof eager);
    cap3d a;
    a.c = tl_copy3d_params(dst, 20, 6, src, 16, 5, make_grExtent(7, 3, 2), grMemcpyHostToHost);
    a.c.srcPos = make_grPos(2, 1, 0);
    a.c.dstPos = make_grPos(1, 0, 2);
    a.err = grErrorUnknown;
    grMemcpy3DParms e = a.c;
    e.dstPtr.ptr = eager;
    CHECK_OK(grMemcpy3D(&e));
    grStream_t s;
    grGraph_t g;
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    capture_3d(s, &a);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(a.err);
    for (size_t i = 0; i < sizeof dst; i++)
        CHECK_EQ(dst[i], PAD); /* captured, not run */
    CHECK_EQ(tl_node_count(g), (size_t)1);
    grGraphNode_t n;
    size_t count = 1;
    CHECK_OK(grGraphGetNodes(g, &n, &count));
    grGraphNodeType t;
    CHECK_OK(grGraphNodeGetType(n, &t));
    CHECK_EQ(t, grGraphNodeTypeMemcpy);
    grMemcpy3DParms got;
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    check_same_params(&got, &a.c);
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    tl_run(x);
    CHECK(memcmp(dst, eager, sizeof dst) == 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* Runs x over dst (dst_size bytes, padded first): its first n bytes must
 * be want's and the byte after them still padding. */
static void run_expect_copied(grGraphExec_t x, unsigned char *dst, size_t dst_size, const unsigned char *want,
                              size_t n)
{
    memset(dst, PAD, dst_size);
    tl_run(x);
    CHECK(memcmp(dst, want, n) == 0);
    CHECK_EQ(dst[n], PAD);
}

GR_TEST(memcpy_node_setters_and_update_follow_cudas_rules_for_2d_and_3d_copies)
{
    unsigned char src[8 * 6], dst[16 * 6], want[16 * 6];
    tl_fill_pattern(src, sizeof src, 4);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    /* A 1D node first. As CUDA's documentation says, the exec setters
     * take 1D copies only, for a node instantiated as a 1D copy: a 2D
     * copy is refused and changes nothing. */
    CHECK_OK(grGraphAddMemcpyNode1D(&n, g, NULL, 0, dst, src, 8, grMemcpyHostToHost));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    grMemcpy3DParms c = tl_copy3d_params(dst, 16, 6, src, 8, 6, make_grExtent(6, 5, 1), grMemcpyHostToHost);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams(x, n, &c));
    CHECK_DETAIL_HAS("only from a 1D copy to a 1D copy");
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemcpy;
    np.memcpy.copyParams = c;
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(x, n, &np));
    run_expect_copied(x, dst, sizeof dst, src, 8);
    /* A 1D copy given as 3D parameters (one row, an x position) is 1D. */
    c.srcPos = make_grPos(2, 0, 0);
    c.extent = make_grExtent(4, 1, 1);
    CHECK_OK(grGraphExecMemcpyNodeSetParams(x, n, &c));
    run_expect_copied(x, dst, sizeof dst, src + 2, 4);
    CHECK_OK(grGraphExecMemcpyNodeSetParams1D(x, n, dst, src, 4, grMemcpyHostToHost));
    run_expect_copied(x, dst, sizeof dst, src, 4);
    c.srcPos = make_grPos(0, 0, 0);
    c.dstPos = make_grPos(3, 1, 0);
    c.extent = make_grExtent(4, 3, 1);
    /* The graph's node is still the 1D one (exec setters leave it). */
    grMemcpy3DParms got;
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    CHECK_EQ(got.extent.width, (size_t)8);
    CHECK_EQ(got.extent.height, (size_t)1);
    /* An update from a 1D node to a 2D one is refused (CUDA 13,
     * tests/probes/m3d.cu, update-1d-to-3d): nothing changes. */
    c.srcPos = make_grPos(1, 1, 0);
    c.extent = make_grExtent(5, 4, 1);
    CHECK_OK(grGraphMemcpyNodeSetParams(n, &c));
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    check_same_params(&got, &c);
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(x, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    CHECK_PTR_EQ(info.errorNode, n);
    CHECK_DETAIL_HAS("2D or 3D");
    run_expect_copied(x, dst, sizeof dst, src, 4);
    /* A 2D node updated from the same 2D copy: accepted (update-same);
     * from another one, refused (update-other-*), and so are the exec
     * setters, even to a 1D copy. */
    grGraphExec_t x2;
    CHECK_OK(grGraphInstantiate(&x2, g, 0));
    CHECK_OK(grGraphExecUpdate(x2, g, &info));
    expect_of(&c, want, sizeof want);
    run_expect_all(x2, dst, want, sizeof dst);
    grMemcpy3DParms c2 = c;
    c2.dstPos = make_grPos(0, 0, 0);
    CHECK_OK(grGraphMemcpyNodeSetParams(n, &c2));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(x2, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams1D(x2, n, dst, src, 4, grMemcpyHostToHost));
    CHECK_DETAIL_HAS("the node makes a 2D or 3D copy");
    run_expect_all(x2, dst, want, sizeof dst);
    CHECK_OK(grGraphExecDestroy(x2));
    /* grGraphNodeSetParams and grGraphMemcpyNodeSetParams1D back to 1D:
     * the 1D executable takes it. */
    np.memcpy.copyParams =
        tl_copy3d_params(dst, 16, 6, src, 8, 6, make_grExtent(3, 2, 1), grMemcpyHostToHost);
    CHECK_OK(grGraphNodeSetParams(n, &np));
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    check_same_params(&got, &np.memcpy.copyParams);
    CHECK_OK(grGraphMemcpyNodeSetParams1D(n, dst, src, 2, grMemcpyHostToHost));
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    CHECK_EQ(got.extent.width, (size_t)2);
    CHECK_EQ(got.srcPtr.pitch, (size_t)2); /* the 1D form again */
    CHECK_OK(grGraphExecUpdate(x, g, &info));
    run_expect_copied(x, dst, sizeof dst, src, 2);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(memcpy_node_refusals_follow_cuda_and_change_nothing)
{
    unsigned char src[8 * 6 * 2], dst[16 * 6 * 2], want[16 * 6 * 2];
    tl_fill_pattern(src, sizeof src, 5);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    grMemcpy3DParms ok = tl_copy3d_params(dst, 16, 6, src, 8, 6, make_grExtent(6, 3, 2), grMemcpyHostToHost);
    grMemcpy3DParms bad = ok;
    bad.extent.depth = 0; /* CUDA 13: an empty copy node is refused */
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    CHECK_DETAIL_HAS("empty");
    bad = ok;
    bad.srcPtr.pitch = 4; /* below the width, several rows */
    CHECK_GR(grErrorInvalidPitchValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    bad = ok;
    bad.dstPtr.ysize = 2; /* below the height, several slices */
    CHECK_GR(grErrorInvalidPitchValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    bad = ok;
    bad.dstPos.x = 11; /* 11 + 6 is beyond the pitch 16 */
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    bad = ok;
    bad.kind = (grMemcpyKind)9;
    CHECK_GR(grErrorInvalidMemcpyDirection, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    bad = ok;
    bad.srcPtr.ptr = NULL;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    bad = ok;
    bad.srcArray = (grArray_t)(uintptr_t)0x1000;
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &bad));
    grGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = grGraphNodeTypeMemcpy;
    np.memcpy.copyParams = ok;
    np.memcpy.flags = 1;
    CHECK_GR(grErrorInvalidValue, grGraphAddNode(&n, g, NULL, NULL, 0, &np));
    CHECK_EQ(tl_node_count(g), (size_t)0);
    np.memcpy.flags = 0;
    CHECK_OK(grGraphAddNode(&n, g, NULL, NULL, 0, &np));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    /* Refused setters leave the node and the executable as they were. */
    bad = ok;
    bad.srcPtr.pitch = 4;
    CHECK_GR(grErrorInvalidPitchValue, grGraphMemcpyNodeSetParams(n, &bad));
    CHECK_GR(grErrorInvalidPitchValue, grGraphExecMemcpyNodeSetParams(x, n, &bad));
    bad = ok;
    bad.extent.width = 0;
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams(x, n, &bad));
    np.memcpy.copyParams = bad;
    CHECK_GR(grErrorInvalidValue, grGraphExecNodeSetParams(x, n, &np));
    CHECK_GR(grErrorInvalidValue, grGraphNodeSetParams(n, &np));
    grMemcpy3DParms got;
    CHECK_OK(grGraphMemcpyNodeGetParams(n, &got));
    check_same_params(&got, &ok);
    expect_of(&ok, want, sizeof want);
    run_expect_all(x, dst, want, sizeof dst);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(memcpy_node_rows_past_an_allocation_are_refused_and_named)
{
    unsigned char *a = NULL, src[64 * 4];
    CHECK_OK(grMalloc((void **)&a, 200));
    tl_fill_pattern(src, sizeof src, 6);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    /* Rows 64 apart: rows 0-2 fit the 200 bytes, row 3 (192..224) not. */
    grMemcpy3DParms c = tl_copy3d_params(a, 64, 4, src, 64, 4, make_grExtent(32, 4, 1), grMemcpyHostToHost);
    CHECK_GR(grErrorInvalidValue, grGraphAddMemcpyNode(&n, g, NULL, 0, &c));
    CHECK_DETAIL_HAS("destination row 3 of slice 0");
    CHECK_EQ(tl_node_count(g), (size_t)0);
    c.extent.height = 3;
    CHECK_OK(grGraphAddMemcpyNode(&n, g, NULL, 0, &c));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    grMemcpy3DParms over = c;
    over.dstPos.y = 1; /* the same rows one down: the last overruns */
    CHECK_GR(grErrorInvalidValue, grGraphMemcpyNodeSetParams(n, &over));
    CHECK_DETAIL_HAS("row 2 of slice 0");
    CHECK_REFUSED(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams, x, n, &over);
    tl_run(x);
    for (int r = 0; r < 3; r++)
        CHECK(memcmp(a + 64 * r, src + 64 * r, 32) == 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(a));
}

/* A region that was plain host memory when its node was made, overrun
 * later by an allocation in its place (as misuse-graph-ranges.c does for
 * 1D ranges): launch and instantiate find it. */
GR_TEST(launch_and_instantiate_check_pitched_regions_again_when_allocations_changed)
{
    size_t big = 4u << 20, rows = 1024;
    static unsigned char src[64 * 1024];
    char *r = tl_map_hole(big);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    /* 64-byte rows 4 KiB apart across the whole hole. */
    grMemcpy3DParms c =
        tl_copy3d_params(r, big / rows, rows, src, 64, rows, make_grExtent(64, rows, 1), grMemcpyHostToHost);
    CHECK_OK(grGraphAddMemcpyNode(&n, g, NULL, 0, &c));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    void *blocks[64];
    int nb = 0;
    (void)tl_unmap_and_reuse(r, big, blocks, &nb);
    CHECK_GR(grErrorInvalidValue, grGraphLaunch(x, NULL));
    CHECK_DETAIL_HAS("destination of memcpy node");
    CHECK_REFUSED(grErrorInvalidValue, grGraphInstantiate, &(grGraphExec_t){0}, g, 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    for (int i = 0; i < nb; i++)
        CHECK_OK(grFree(blocks[i]));
}

GR_TEST(pitched_memcpy_node_survives_clone_child_graphs_and_a_graph_file)
{
    unsigned char *src = NULL, *dst = NULL, want[16 * 6];
    CHECK_OK(grMallocHost((void **)&src, 8 * 6 * 2));
    CHECK_OK(grMallocHost((void **)&dst, sizeof want));
    tl_fill_pattern(src, 8 * 6 * 2, 7);
    grMemcpy3DParms c = tl_copy3d_params(dst, 16, 3, src, 8, 6, make_grExtent(5, 3, 2), grMemcpyHostToHost);
    c.srcPos = make_grPos(1, 2, 0);
    expect_of(&c, want, sizeof want);
    grGraph_t g, child, clone, loaded;
    grGraphNode_t n, cn;
    CHECK_OK(grGraphCreate(&child, 0));
    CHECK_OK(grGraphAddMemcpyNode(&n, child, NULL, 0, &c));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddChildGraphNode(&cn, g, NULL, 0, child));
    /* The clone's node answers the same parameters and copies the same. */
    CHECK_OK(grGraphClone(&clone, child));
    grGraphNode_t m;
    CHECK_OK(grGraphNodeFindInClone(&m, n, clone));
    grMemcpy3DParms got;
    CHECK_OK(grGraphMemcpyNodeGetParams(m, &got));
    check_same_params(&got, &c);
    grGraph_t graphs[2] = {g, clone};
    for (int i = 0; i < 2; i++) {
        grGraphExec_t x;
        memset(dst, PAD, sizeof want);
        CHECK_OK(grGraphInstantiate(&x, graphs[i], 0));
        tl_run(x);
        CHECK(memcmp(dst, want, sizeof want) == 0);
        CHECK_OK(grGraphExecDestroy(x));
    }
    /* A graph file: saved, loaded, saved again gives the same bytes, and
     * the loaded graph copies the region into its own buffers. */
    char p1[96], p2[96];
    snprintf(p1, sizeof p1, "/tmp/graphrt-test-%ld-m3d-1.graph", (long)getpid());
    snprintf(p2, sizeof p2, "/tmp/graphrt-test-%ld-m3d-2.graph", (long)getpid());
    CHECK_OK(grGraphSaveToFile(g, p1, 0));
    CHECK_OK(grGraphLoadFromFile(&loaded, p1, 0));
    CHECK_OK(grGraphSaveToFile(loaded, p2, 0));
    FILE *f1 = fopen(p1, "rb"), *f2 = fopen(p2, "rb");
    CHECK(f1 != NULL && f2 != NULL);
    char b1[4096], b2[4096];
    size_t l1 = fread(b1, 1, sizeof b1 - 1, f1), l2 = fread(b2, 1, sizeof b2 - 1, f2);
    fclose(f1);
    fclose(f2);
    b1[l1] = '\0';
    CHECK_EQ(l1, l2);
    CHECK(memcmp(b1, b2, l1) == 0);
    CHECK(strstr(b1, " memcpy ") != NULL && strstr(b1, "extent=5,3,2") != NULL);
    grGraphNode_t ln, lcn;
    size_t count = 1;
    CHECK_OK(grGraphGetNodes(loaded, &lcn, &count));
    grGraph_t lchild;
    CHECK_OK(grGraphChildGraphNodeGetGraph(lcn, &lchild));
    count = 1;
    CHECK_OK(grGraphGetNodes(lchild, &ln, &count));
    CHECK_OK(grGraphMemcpyNodeGetParams(ln, &got));
    CHECK_EQ(got.extent.width, (size_t)5);
    CHECK_EQ(got.extent.height, (size_t)3);
    CHECK_EQ(got.extent.depth, (size_t)2);
    CHECK_EQ(got.dstPtr.pitch, (size_t)16);
    CHECK_EQ(got.srcPtr.pitch, (size_t)8);
    CHECK_EQ(got.srcPtr.ysize, (size_t)6);
    /* The loaded buffers: fill the source as the original was, run, and
     * compare the destination with the reference. */
    memcpy(got.srcPtr.ptr, src + 2 * 8 + 1, 8 * 6 * 2 - (2 * 8 + 1));
    memset(got.dstPtr.ptr, PAD, sizeof want);
    grGraphExec_t lx;
    CHECK_OK(grGraphInstantiate(&lx, loaded, 0));
    tl_run(lx);
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 3; y++)
            CHECK(memcmp((char *)got.dstPtr.ptr + z * 48 + y * 16, want + z * 48 + y * 16, 5) == 0);
    CHECK_OK(grGraphExecDestroy(lx));
    unlink(p1);
    unlink(p2);
    CHECK_OK(grGraphDestroy(loaded));
    CHECK_OK(grGraphDestroy(clone));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(child));
    CHECK_OK(grFreeHost(src));
    CHECK_OK(grFreeHost(dst));
}

GR_TEST(dot_output_shows_a_pitched_copy_s_extent_and_pitches)
{
    unsigned char src[8 * 6 * 2], dst[16 * 6 * 2];
    grGraph_t g;
    grGraphNode_t n;
    CHECK_OK(grGraphCreate(&g, 0));
    grMemcpy3DParms c = tl_copy3d_params(dst, 16, 6, src, 8, 6, make_grExtent(6, 3, 2), grMemcpyHostToHost);
    CHECK_OK(grGraphAddMemcpyNode(&n, g, NULL, 0, &c));
    char path[96];
    snprintf(path, sizeof path, "/tmp/graphrt-test-%ld-m3d.dot", (long)getpid());
    CHECK_OK(grGraphDebugDotPrint(g, path, grGraphDebugDotFlagsVerbose));
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    char buf[4096];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    unlink(path);
    CHECK(strstr(buf, "6 x 3 x 2 bytes HostToHost") != NULL);
    CHECK(strstr(buf, "pitch 16") != NULL);
    CHECK(strstr(buf, "pitch 8") != NULL);
    CHECK_OK(grGraphDestroy(g));
}

/* A pitched copy in a conditional node's body: it runs with the body, and
 * the exec setter changes it in the body's plan (its layout moves to that
 * plan's side array) and turns it back into a 1D copy. */
GR_TEST(pitched_memcpy_node_in_a_conditional_body_runs_and_the_exec_setter_keeps_cudas_1d_rule)
{
    unsigned char src[8 * 4], dst[16 * 4];
    tl_fill_pattern(src, sizeof src, 8);
    grGraph_t g;
    grGraphConditionalHandle h;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 1, grGraphCondAssignDefault));
    grGraph_t *bodies;
    grGraphNode_t n;
    (void)tl_add_cond(g, NULL, 0, h, grGraphCondTypeIf, 1, &bodies);
    grGraph_t body = bodies[0];
    /* A 1D copy first: the setter gives it a layout in the body's plan;
     * a pitched one from the start beside it (laid out at instantiation). */
    CHECK_OK(grGraphAddMemcpyNode1D(&n, body, NULL, 0, dst, src, 4, grMemcpyHostToHost));
    unsigned char dst2[16 * 4], want2[16 * 4];
    grMemcpy3DParms c2 = tl_copy3d_params(dst2, 16, 4, src, 8, 4, make_grExtent(7, 3, 1), grMemcpyHostToHost);
    grGraphNode_t n2;
    CHECK_OK(grGraphAddMemcpyNode(&n2, body, &n, 1, &c2));
    memset(dst2, PAD, sizeof dst2);
    memset(want2, PAD, sizeof want2);
    grMemcpy3DParms w2 = c2;
    w2.dstPtr.ptr = want2;
    tl_copy3d_on_host(&w2);
    grGraphExec_t x;
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    tl_run(x);
    CHECK(memcmp(dst2, want2, sizeof dst2) == 0);
    /* The exec setter takes 1D copies only, on 1D nodes (CUDA's rule). */
    grMemcpy3DParms c = tl_copy3d_params(dst, 16, 4, src, 8, 4, make_grExtent(6, 4, 1), grMemcpyHostToHost);
    c.dstPos = make_grPos(5, 0, 0);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams(x, n, &c));
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams1D(x, n2, dst2, src, 3, grMemcpyHostToHost));
    CHECK_DETAIL_HAS("the node makes a 2D or 3D copy");
    memset(dst2, PAD, sizeof dst2);
    tl_run(x);
    CHECK(memcmp(dst2, want2, sizeof dst2) == 0);
    CHECK_OK(grGraphExecMemcpyNodeSetParams1D(x, n, dst, src, 3, grMemcpyHostToHost));
    run_expect_copied(x, dst, sizeof dst, src, 3);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}
