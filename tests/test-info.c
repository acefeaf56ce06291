/*
 * test-info.c - the calls that describe the runtime: versions, a device's
 * free memory and the attributes of a pointer. The GPU cases need a GPU
 * device and are skipped, saying why, where there is none (CI has none).
 */
#include "testlib.h"

#include <stdint.h>
#include <unistd.h>

GR_TEST(runtime_version_is_the_cuda_api_graphrt_mirrors)
{
    int v = -1;
    CHECK_OK(grRuntimeGetVersion(&v));
    CHECK_EQ(v, GR_CUDA_API_VERSION);
    /* CUDA's encoding: 1000 * major + 10 * minor, CUDA 12 or later. */
    CHECK(v >= 12000);
    CHECK_EQ(v % 10, 0);
}

GR_TEST(driver_version_is_the_drivers_with_a_gpu_else_the_api_version)
{
    int v = -1, n = 0;
    CHECK_OK(grDriverGetVersion(&v));
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_EQ(v % 10, 0);
    /* GPUs need a driver with cuGetProcAddress_v2's ABI (CUDA 12.0); with
     * none shown, the CPU device answers the API it implements, so that a
     * program gating on the version runs there. */
    if (n > 1)
        CHECK(v >= 12000);
    else
        CHECK_EQ(v, GR_CUDA_API_VERSION);
    int again = -1;
    CHECK_OK(grDriverGetVersion(&again));
    CHECK_EQ(again, v);
}

GR_TEST(driver_version_is_the_api_version_with_gpus_disabled)
{
    setenv("GRAPHRT_CUDA", "0", 1);
    setenv("GRAPHRT_FAKEDEV", "0", 1); /* the suite's fake device stands in for GPUs otherwise */
    int v = -1, n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_EQ(n, 1);
    CHECK_OK(grDriverGetVersion(&v));
    CHECK_EQ(v, GR_CUDA_API_VERSION);
    /* What a sample gating conditional nodes on the driver asks. */
    CHECK(v >= 12030);
    unsetenv("GRAPHRT_CUDA");
}

GR_TEST(version_calls_refuse_null)
{
    CHECK_GR(grErrorInvalidValue, grRuntimeGetVersion(NULL));
    CHECK_DETAIL_HAS("runtimeVersion");
    CHECK_GR(grErrorInvalidValue, grDriverGetVersion(NULL));
    CHECK_DETAIL_HAS("driverVersion");
}

GR_TEST(mem_get_info_on_the_cpu_is_the_hosts_memory)
{
    size_t free_b = 0, total = 0;
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grMemGetInfo(&free_b, &total));
    CHECK(total > 0);
    CHECK(free_b > 0);
    CHECK(free_b <= total);
    /* The CPU device's total is the physical memory grGetDeviceProperties
     * reports, within what the kernel keeps for itself. */
    grDeviceProp prop;
    CHECK_OK(grGetDeviceProperties(&prop, 0));
    CHECK(total <= prop.totalGlobalMem);
    CHECK(total >= prop.totalGlobalMem / 2);
}

GR_TEST(mem_get_info_refuses_null_and_writes_nothing)
{
    size_t v = 12345;
    CHECK_GR(grErrorInvalidValue, grMemGetInfo(NULL, &v));
    CHECK_DETAIL_HAS("freeBytes");
    CHECK_EQ(v, (size_t)12345);
    CHECK_GR(grErrorInvalidValue, grMemGetInfo(&v, NULL));
    CHECK_DETAIL_HAS("totalBytes");
    CHECK_EQ(v, (size_t)12345);
}

GR_TEST(pointer_attributes_of_cpu_device_memory)
{
    grPointerAttributes a;
    CHECK_OK(grSetDevice(0));
    char *p = tl_malloc(1000);
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_EQ(a.device, 0);
    CHECK_PTR_EQ(a.devicePointer, p);
    CHECK_PTR_EQ(a.hostPointer, p);
    /* Inside the allocation: the pointer asked about, not the base. */
    CHECK_OK(grPointerGetAttributes(&a, p + 999));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_PTR_EQ(a.devicePointer, p + 999);
    CHECK_OK(grFree(p));
}

GR_TEST(pointer_attributes_of_host_memory)
{
    int n = 0;
    char *p = NULL;
    grPointerAttributes a;
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_OK(grMallocHost((void **)&p, 64));
    CHECK_OK(grPointerGetAttributes(&a, p + 10));
    CHECK_EQ(a.type, grMemoryTypeHost);
    /* Pinned where a GPU exists (held by the first GPU), else plain. */
    CHECK_EQ(a.device, n > 1 ? 1 : 0);
    CHECK_PTR_EQ(a.devicePointer, p + 10);
    CHECK_PTR_EQ(a.hostPointer, p + 10);
    CHECK_OK(grFreeHost(p));
}

GR_TEST(pointer_attributes_of_pool_memory)
{
    void *p = NULL;
    grPointerAttributes a;
    CHECK_OK(grSetDevice(0));
    grStream_t s = tl_stream(0);
    CHECK_OK(grMallocAsync(&p, 4096, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_EQ(a.device, 0);
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(pointer_attributes_of_a_graph_allocation_while_it_is_allocated)
{
    grGraph_t g;
    grGraphExec_t x;
    grGraphNode_t n;
    grMemAllocNodeParams ap;
    grPointerAttributes a;
    ap = tl_alloc_params(0, 4096);
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&n, g, NULL, 0, &ap));
    CHECK_OK(grGraphInstantiate(&x, g, 0));
    CHECK_OK(grGraphLaunch(x, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grPointerGetAttributes(&a, (char *)ap.dptr + 4095));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_EQ(a.device, 0);
    CHECK_PTR_EQ(a.devicePointer, (char *)ap.dptr + 4095);
    CHECK_OK(grFree(ap.dptr));
    CHECK_OK(grGraphExecDestroy(x));
    CHECK_OK(grGraphDestroy(g));
}

GR_TEST(pointer_attributes_of_unregistered_and_null_pointers)
{
    int local = 7;
    grPointerAttributes a;
    char *heap = malloc(32);
    CHECK(heap != NULL);
    const void *ptrs[] = {&local, heap};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) {
        memset(&a, 0x5a, sizeof a);
        CHECK_OK(grPointerGetAttributes(&a, ptrs[i]));
        CHECK_EQ(a.type, grMemoryTypeUnregistered);
        CHECK_EQ(a.device, grInvalidDeviceId);
        CHECK_PTR_EQ(a.devicePointer, NULL);
        CHECK_PTR_EQ(a.hostPointer, ptrs[i]);
    }
    free(heap);
    memset(&a, 0x5a, sizeof a);
    CHECK_OK(grPointerGetAttributes(&a, NULL));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
    CHECK_EQ(a.device, grInvalidDeviceId);
    CHECK_PTR_EQ(a.devicePointer, NULL);
    CHECK_PTR_EQ(a.hostPointer, NULL);
}

GR_TEST(pointer_attributes_after_free_are_unregistered)
{
    grPointerAttributes a;
    CHECK_OK(grSetDevice(0));
    void *p = tl_malloc(1 << 20);
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_OK(grFree(p));
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
}

GR_TEST(pointer_attributes_refuse_null_output)
{
    int x = 0;
    CHECK_GR(grErrorInvalidValue, grPointerGetAttributes(NULL, &x));
    CHECK_DETAIL_HAS("attributes");
}

GR_TEST(gpu_mem_get_info_is_the_devices_and_drops_with_an_allocation)
{
    int gpu = tl_first_gpu();
    size_t free0 = 0, total = 0, free1 = 0, total1 = 0;
    grDeviceProp prop;
    const size_t big = (size_t)256 << 20;
    CHECK_OK(grGetDeviceProperties(&prop, gpu));
    CHECK_OK(grSetDevice(gpu));
    CHECK_OK(grMemGetInfo(&free0, &total));
    CHECK(total > 0);
    CHECK(free0 <= total);
    /* The driver's two totals agree (up to what a MIG slice hides). */
    CHECK(total <= prop.totalGlobalMem);
    CHECK(total >= prop.totalGlobalMem / 8);
    void *p = tl_malloc(big);
    CHECK_OK(grMemGetInfo(&free1, &total1));
    CHECK_EQ(total1, total);
    /* Other processes may allocate too, but never give back ours. */
    CHECK(free1 + big / 2 <= free0);
    CHECK_OK(grFree(p));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_pointer_attributes_of_device_memory)
{
    int gpu = tl_set_first_gpu();
    grPointerAttributes a;
    char *p = tl_malloc(4096);
    CHECK_OK(grPointerGetAttributes(&a, p + 100));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_EQ(a.device, gpu);
    CHECK_PTR_EQ(a.devicePointer, p + 100);
    CHECK_PTR_EQ(a.hostPointer, NULL);
    /* Asked from another device, the answer is the same. */
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.device, gpu);
    CHECK_OK(grSetDevice(gpu));
    CHECK_OK(grFree(p));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_pointer_attributes_of_stream_ordered_memory)
{
    int gpu = tl_set_first_gpu();
    void *p = NULL;
    grPointerAttributes a;
    grStream_t s = tl_stream(0);
    CHECK_OK(grMallocAsync(&p, 1 << 16, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_EQ(a.device, gpu);
    CHECK_PTR_EQ(a.devicePointer, p);
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grSetDevice(0));
}
