/*
 * test-gpu-memcpy3d.c - pitched memcpy nodes on a GPU: lowered to driver
 * memcpy nodes with the 3D layout (CUDA_MEMCPY3D), changed by the exec
 * setter and by grGraphExecUpdate, with the result the CPU computes here,
 * the padding between rows left alone. Each test needs a GPU device and
 * is skipped, saying why, where there is none (CI has none).
 */
#include "testlib.h"

#include <string.h>

#define PAD 0xee

/* The bytes a copy of c leaves in 'want', a host copy of its destination
 * buffer 'base' ('from' stands for the source as the host sees it). */
enum {
    SP = 8,  /* host source pitch */
    DP = 16, /* device pitch */
    HP = 12, /* host destination pitch */
    ROWS = 4,
    SLICES = 2
};

GR_TEST(gpu_graph_runs_pitched_memcpy_nodes_and_follows_their_changes)
{
    tl_set_first_gpu();
    unsigned char *src, *dst, *d, dev_img[DP * ROWS * SLICES], want[HP * ROWS * SLICES];
    CHECK_OK(grMallocHost((void **)&src, SP * ROWS * SLICES));
    CHECK_OK(grMallocHost((void **)&dst, sizeof want));
    CHECK_OK(grMalloc((void **)&d, sizeof dev_img));
    for (size_t i = 0; i < SP * ROWS * SLICES; i++)
        src[i] = (unsigned char)(i * 5u + 3u);
    /* Host (pitch 8) -> device (pitch 16) -> host (pitch 12). */
    grMemcpy3DParms up =
        tl_copy3d_params(d, DP, ROWS, src, SP, ROWS, make_grExtent(6, 3, 2), grMemcpyHostToDevice);
    grMemcpy3DParms down =
        tl_copy3d_params(dst, HP, ROWS, d, DP, ROWS, make_grExtent(6, 3, 2), grMemcpyDeviceToHost);
    grGraph_t g;
    grGraphNode_t nu, nd;
    grGraphExec_t x;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemcpyNode(&nu, g, NULL, 0, &up));
    CHECK_OK(grGraphAddMemcpyNode(&nd, g, &nu, 1, &down));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    memset(dst, PAD, sizeof want);
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    memset(dev_img, 0, sizeof dev_img);
    tl_copy3d_reference(dev_img, d, &up, src, src);
    memset(want, PAD, sizeof want);
    tl_copy3d_reference(want, dst, &down, dev_img, d);
    CHECK(memcmp(dst, want, sizeof want) == 0);
    /* The exec setter takes 1D copies only (CUDA's rule, which the
     * driver's cuGraphExecMemcpyNodeSetParams applies too): refused
     * before the driver, nothing changes. */
    grMemcpy3DParms down2 = down;
    down2.dstPos = make_grPos(2, 1, 0);
    down2.extent = make_grExtent(4, 2, 2);
    CHECK_GR(grErrorInvalidValue, grGraphExecMemcpyNodeSetParams(x, nd, &down2));
    CHECK_DETAIL_HAS("1D copy");
    memset(dst, PAD, sizeof want);
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK(memcmp(dst, want, sizeof want) == 0);
    /* An update that changes the 2D/3D copy is refused too, as CUDA 13
     * refuses it (tests/probes/m3d.cu, update-other-srcpos): unchanged. */
    grMemcpy3DParms down3 = down;
    down3.srcPos = make_grPos(1, 1, 0);
    down3.extent = make_grExtent(5, 2, 2);
    CHECK_OK(grGraphMemcpyNodeSetParams(nd, &down3));
    grGraphExecUpdateResultInfo info;
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(x, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    memset(dst, PAD, sizeof want);
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK(memcmp(dst, want, sizeof want) == 0);
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(src));
    CHECK_OK(grFreeHost(dst));
}
