/*
 * test-peer.c - peer access and peer copies: a device and itself answer 0,
 * the CPU device and a GPU have no peer access (copies between them work),
 * enabling twice and disabling what was never enabled are CUDA's errors,
 * and the peer copies are grMemcpy's copies with the device numbers
 * checked, in stream order and captured as memcpy nodes.
 */
#include "testlib.h"

#include "fakedev/fakedev.h"

#include <stdatomic.h>

GR_TEST(peer_access_of_a_device_to_itself_is_0)
{
    int can = 7;
    CHECK_OK(grDeviceCanAccessPeer(&can, 0, 0));
    CHECK_EQ(can, 0);
    CHECK_GR(grErrorInvalidValue, grDeviceCanAccessPeer(NULL, 0, 0));
    CHECK_GR(grErrorInvalidDevice, grDeviceCanAccessPeer(&can, 0, 99));
    CHECK_DETAIL_HAS("peerDevice 99");
    CHECK_GR(grErrorInvalidDevice, grDeviceCanAccessPeer(&can, -1, 0));
    CHECK_DETAIL_HAS("device -1");
}

GR_TEST(peer_access_enable_and_disable_refuse_cuda_errors)
{
    CHECK_OK(grSetDevice(0));
    CHECK_GR(grErrorInvalidValue, grDeviceEnablePeerAccess(0, 1));
    CHECK_DETAIL_HAS("flags");
    CHECK_GR(grErrorInvalidDevice, grDeviceEnablePeerAccess(99, 0));
    CHECK_GR(grErrorInvalidDevice, grDeviceEnablePeerAccess(0, 0));
    CHECK_DETAIL_HAS("is the current device");
    CHECK_GR(grErrorInvalidDevice, grDeviceDisablePeerAccess(0));
    CHECK_GR(grErrorInvalidDevice, grDeviceDisablePeerAccess(-5));
}

GR_TEST(peer_access_between_the_cpu_and_a_gpu_is_unsupported)
{
    int gpu = tl_use_gpu_or_skip(), can = 7;
    CHECK_OK(grDeviceCanAccessPeer(&can, 0, gpu));
    CHECK_EQ(can, 0);
    CHECK_OK(grDeviceCanAccessPeer(&can, gpu, 0));
    CHECK_EQ(can, 0);
    CHECK_GR(grErrorPeerAccessUnsupported, grDeviceEnablePeerAccess(0, 0));
    CHECK_DETAIL_HAS("no peer access");
    CHECK_GR(grErrorPeerAccessNotEnabled, grDeviceDisablePeerAccess(0));
    CHECK_OK(grSetDevice(0));
    CHECK_GR(grErrorPeerAccessUnsupported, grDeviceEnablePeerAccess(gpu, 0));
    CHECK_GR(grErrorPeerAccessNotEnabled, grDeviceDisablePeerAccess(gpu));
    CHECK_DETAIL_HAS("grDeviceEnablePeerAccess first");
}

GR_TEST(peer_access_between_two_gpus_is_enabled_once)
{
    int n = 0, can = 0;
    CHECK_OK(grGetDeviceCount(&n));
    if (n < 3)
        GR_TEST_SKIP("needs two GPUs (devices 1 and 2)");
    CHECK_OK(grDeviceCanAccessPeer(&can, 1, 2));
    if (!can)
        GR_TEST_SKIP("GPUs 1 and 2 have no peer access on this machine");
    CHECK_OK(grSetDevice(1));
    CHECK_GR(grErrorPeerAccessNotEnabled, grDeviceDisablePeerAccess(2));
    CHECK_OK(grDeviceEnablePeerAccess(2, 0));
    CHECK_GR(grErrorPeerAccessAlreadyEnabled, grDeviceEnablePeerAccess(2, 0));
    CHECK_DETAIL_HAS("already");
    CHECK_OK(grDeviceDisablePeerAccess(2));
    CHECK_GR(grErrorPeerAccessNotEnabled, grDeviceDisablePeerAccess(2));
    /* A reset drops the access. */
    CHECK_OK(grDeviceEnablePeerAccess(2, 0));
    CHECK_OK(grDeviceReset());
    CHECK_GR(grErrorPeerAccessNotEnabled, grDeviceDisablePeerAccess(2));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(peer_copy_on_the_cpu_device_copies)
{
    char *a = NULL, *b = NULL;
    CHECK_OK(grMalloc((void **)&a, 64));
    CHECK_OK(grMalloc((void **)&b, 64));
    memset(a, 3, 64);
    memset(b, 0, 64);
    CHECK_OK(grMemcpyPeer(b, 0, a, 0, 64));
    CHECK_EQ(b[63], 3);
    CHECK_OK(grMemcpyPeer(b, 0, a, 0, 0));
    CHECK_GR(grErrorInvalidDevice, grMemcpyPeer(b, 9, a, 0, 64));
    CHECK_DETAIL_HAS("dstDevice 9");
    CHECK_GR(grErrorInvalidDevice, grMemcpyPeer(b, 0, a, -1, 64));
    CHECK_DETAIL_HAS("srcDevice -1");
    CHECK_GR(grErrorInvalidValue, grMemcpyPeer(b, 0, a, 0, 65));
    CHECK_DETAIL_HAS("grMemcpyPeer");
    CHECK_GR(grErrorInvalidValue, grMemcpyPeer(NULL, 0, a, 0, 8));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}

GR_TEST(peer_copy_async_is_stream_ordered_and_captured)
{
    char *a = NULL, *b = NULL;
    atomic_int gate = 0;
    grGraph_t g = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMalloc((void **)&a, 32));
    CHECK_OK(grMalloc((void **)&b, 32));
    memset(a, 9, 32);
    memset(b, 0, 32);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grMemcpyPeerAsync(b, 0, a, 0, 32, s));
    CHECK_EQ(b[0], 0);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[31], 9);
    CHECK_GR(grErrorInvalidDevice, grMemcpyPeerAsync(b, 0, a, 5, 32, s));

    memset(b, 0, 32);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemcpyPeerAsync(b, 0, a, 0, 32, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 1);
    CHECK_EQ(b[0], 0);
    tl_run_graph(g);
    CHECK_EQ(b[0], 9);
    CHECK_OK(grGraphDestroy(g));
    CHECK_EQ(tl_gate_timeouts, 0);
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(peer_copy_3d_copies_a_box)
{
    char *a = NULL, *b = NULL;
    grStream_t s = tl_stream(0);
    CHECK_OK(grMalloc((void **)&a, 1024));
    CHECK_OK(grMalloc((void **)&b, 1024));
    for (int i = 0; i < 1024; i++)
        a[i] = (char)i;
    memset(b, 0, 1024);
    grMemcpy3DPeerParms p = {0};
    p.srcPtr = make_grPitchedPtr(a, 32, 32, 4);
    p.dstPtr = make_grPitchedPtr(b, 16, 16, 4);
    p.extent = make_grExtent(8, 4, 2);
    CHECK_OK(grMemcpy3DPeer(&p));
    /* Row 1 of slice 1: source offset 32 * 4 + 32, destination 16 * 4 + 16. */
    CHECK_EQ(b[16 * 4 + 16 + 7], (char)(32 * 4 + 32 + 7));
    CHECK_EQ(b[16 * 4 + 16 + 8], 0);
    memset(b, 0, 1024);
    CHECK_OK(grMemcpy3DPeerAsync(&p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[16 + 3], (char)(32 + 3));
    CHECK_GR(grErrorInvalidValue, grMemcpy3DPeer(NULL));
    p.dstDevice = 42;
    CHECK_GR(grErrorInvalidDevice, grMemcpy3DPeer(&p));
    CHECK_DETAIL_HAS("p->dstDevice 42");
    p.dstDevice = 0;
    p.srcArray = (grArray_t)(uintptr_t)1;
    CHECK_GR(grErrorInvalidValue, grMemcpy3DPeerAsync(&p, s));
    CHECK_DETAIL_HAS("no CUDA arrays");
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(peer_copy_between_the_cpu_and_a_gpu)
{
    int gpu = tl_use_gpu_or_skip();
    char *d = NULL, host[64], back[64];
    CHECK_OK(grMalloc((void **)&d, 64));
    for (int i = 0; i < 64; i++)
        host[i] = (char)(i * 3);
    memset(back, 0, sizeof back);
    CHECK_OK(grMemcpyPeer(d, gpu, host, 0, 64));
    CHECK_OK(grMemcpyPeer(back, 0, d, gpu, 64));
    CHECK(memcmp(host, back, 64) == 0);
    CHECK_OK(grFree(d));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(peer_access_errors_have_cuda_names)
{
    CHECK(strcmp(grGetErrorName(grErrorPeerAccessAlreadyEnabled), "grErrorPeerAccessAlreadyEnabled") == 0);
    CHECK(strcmp(grGetErrorName(grErrorPeerAccessNotEnabled), "grErrorPeerAccessNotEnabled") == 0);
    CHECK(strcmp(grGetErrorName(grErrorPeerAccessUnsupported), "grErrorPeerAccessUnsupported") == 0);
    CHECK(strstr(grGetErrorString(grErrorPeerAccessNotEnabled), "not been enabled") != NULL);
}

GR_TEST(peer_access_refused_by_the_driver_stays_disabled)
{
    int n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    if (!gr_test_fake_device() || n < 3)
        GR_TEST_SKIP("needs two fake devices (GRAPHRT_FAKEDEV=2, no GPU)");
    CHECK_OK(grSetDevice(1));
    gr_fakedev_reset_calls();
    gr_fakedev_fail("peer_access", grErrorNotPermitted, 1); /* the query passes, the mapping fails */
    CHECK_GR(grErrorNotPermitted, grDeviceEnablePeerAccess(2, 0));
    CHECK_DETAIL_HAS("injected");
    gr_fakedev_clear();
    /* The refused enable left the pair disabled. */
    CHECK_GR(grErrorPeerAccessNotEnabled, grDeviceDisablePeerAccess(2));
    CHECK_OK(grDeviceEnablePeerAccess(2, 0));
    CHECK_OK(grDeviceDisablePeerAccess(2));
    CHECK(gr_fakedev_calls("peer_access") >= 3);
    CHECK_OK(grSetDevice(0));
}
