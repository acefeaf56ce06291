/*
 * test-memory-alloc.c - the allocation calls beyond grMalloc and
 * grMallocHost: grMallocManaged, grMallocPitch, grMalloc3D, grHostAlloc,
 * grHostGetDevicePointer and grHostGetFlags. Success, every error code,
 * and that a refused call allocates nothing.
 */
#include "testlib.h"
#include "fakedev/fakedev.h"

#include <string.h>

GR_TEST(managed_alloc_is_device_memory_the_host_uses)
{
    int *p = NULL;
    grPointerAttributes a;
    CHECK_OK(grMallocManaged((void **)&p, 64 * sizeof(int), grMemAttachGlobal));
    CHECK(p != NULL);
    CHECK_EQ((uintptr_t)p % 256, 0);
    for (int i = 0; i < 64; i++)
        p[i] = i;
    CHECK_OK(grMemset(p, 0, 16 * sizeof(int)));
    CHECK_EQ(p[15], 0);
    CHECK_EQ(p[16], 16);
    CHECK_OK(grPointerGetAttributes(&a, p + 3));
    CHECK_EQ(a.type, grMemoryTypeManaged);
    CHECK_EQ(a.device, 0);
    CHECK_PTR_EQ(a.hostPointer, p + 3);
    CHECK_PTR_EQ(a.devicePointer, p + 3);
    /* Tracked as grMalloc's: a copy past its end is refused. */
    int big[80];
    CHECK_GR(grErrorInvalidValue, grMemcpy(p, big, sizeof big, grMemcpyDefault));
    /* grMemAttachHost too; grStreamAttachMemAsync takes it. */
    void *q = NULL;
    CHECK_OK(grMallocManaged(&q, 100, grMemAttachHost));
    CHECK_OK(grStreamAttachMemAsync(NULL, q, 0, grMemAttachGlobal));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_OK(grFree(q));
    CHECK_OK(grFree(p));
    /* Freed: no longer managed (its note went with it). */
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK(a.type != grMemoryTypeManaged);
}

GR_TEST(managed_alloc_refuses_zero_size_bad_flags_and_null_output)
{
    void *p = (void *)0x1234;
    CHECK_GR(grErrorInvalidValue, grMallocManaged(&p, 0, grMemAttachGlobal));
    CHECK_DETAIL_HAS("size is 0");
    CHECK_PTR_EQ(p, (void *)0x1234);
    CHECK_GR(grErrorInvalidValue, grMallocManaged(&p, 64, 0));
    CHECK_GR(grErrorInvalidValue, grMallocManaged(&p, 64, grMemAttachSingle));
    CHECK_GR(grErrorInvalidValue, grMallocManaged(&p, 64, grMemAttachGlobal | grMemAttachHost));
    CHECK_PTR_EQ(p, (void *)0x1234);
    CHECK_GR(grErrorInvalidValue, grMallocManaged(NULL, 64, grMemAttachGlobal));
    CHECK_GR(grErrorMemoryAllocation, grMallocManaged(&p, SIZE_MAX / 2, grMemAttachGlobal));
    CHECK_PTR_EQ(p, (void *)0x1234);
}

GR_TEST(managed_alloc_on_a_gpu_is_the_devices_managed_memory)
{
    gr_test_device_or_skip(1);
    unsigned char *p = NULL, back[64];
    grPointerAttributes a;
    CHECK_OK(grMallocManaged((void **)&p, 64, grMemAttachGlobal));
    CHECK_OK(grPointerGetAttributes(&a, p));
    CHECK_EQ(a.type, grMemoryTypeManaged);
    CHECK_EQ(a.device, 1);
    CHECK_PTR_EQ(a.devicePointer, p);
    CHECK_PTR_EQ(a.hostPointer, p);
    /* Tracked as grMalloc's memory: copies and memsets are bounds-checked. */
    CHECK_OK(grMemset(p, 7, 64));
    CHECK_OK(grMemcpy(back, p, 64, grMemcpyDefault));
    CHECK_EQ(back[63], 7);
    CHECK_GR(grErrorInvalidValue, grMemset(p, 0, 65));
    /* The host reaches it once the device is idle. */
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(p[0], 7);
    p[1] = 9;
    CHECK_OK(grMemcpy(back, p, 2, grMemcpyDefault));
    CHECK_EQ(back[1], 9);
    CHECK_OK(grFree(p));
}

GR_TEST(managed_alloc_the_device_refuses_leaves_nothing)
{
    gr_test_device_or_skip(1);
    if (!gr_test_fake_device())
        GR_TEST_SKIP("needs the fake device's injected failures");
    void *p = (void *)0x1234;
    gr_fakedev_fail("managed_alloc", grErrorMemoryAllocation, 0);
    CHECK_GR(grErrorMemoryAllocation, grMallocManaged(&p, 64, grMemAttachHost));
    CHECK_DETAIL_HAS("managed_alloc");
    CHECK_PTR_EQ(p, (void *)0x1234);
    gr_fakedev_clear();
}

GR_TEST(managed_alloc_is_unsafe_during_global_capture)
{
    grStream_t s;
    grGraph_t g = NULL;
    void *p = (void *)0x1234;
    s = tl_capturing_stream(0, grStreamCaptureModeGlobal);
    CHECK_GR(grErrorStreamCaptureUnsupported, grMallocManaged(&p, 64, grMemAttachGlobal));
    CHECK_PTR_EQ(p, (void *)0x1234);
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK(g == NULL);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(pitch_alloc_rounds_rows_and_holds_them_all)
{
    char *p = NULL;
    size_t pitch = 0;
    CHECK_OK(grMallocPitch((void **)&p, &pitch, 100, 7));
    CHECK(p != NULL);
    CHECK_EQ(pitch, GR_PITCH_ALIGN);
    CHECK_EQ((uintptr_t)p % 256, 0);
    /* Every row is inside the allocation: a 2D memset of all of it works,
     * one row more is refused. */
    CHECK_OK(grMemset2D(p, pitch, 0x5a, 100, 7));
    CHECK_EQ((unsigned char)p[6 * pitch + 99], 0x5a);
    CHECK_GR(grErrorInvalidValue, grMemset2D(p, pitch, 0, 100, 8));
    CHECK_OK(grFree(p));
    CHECK_OK(grMallocPitch((void **)&p, &pitch, 513, 2));
    CHECK_EQ(pitch, 2 * GR_PITCH_ALIGN);
    CHECK_OK(grFree(p));
}

GR_TEST(pitch_alloc_of_nothing_and_its_errors)
{
    void *p = (void *)0x1234;
    size_t pitch = 99;
    CHECK_OK(grMallocPitch(&p, &pitch, 0, 5));
    CHECK(p == NULL);
    CHECK_EQ(pitch, 0);
    CHECK_GR(grErrorInvalidValue, grMallocPitch(NULL, &pitch, 8, 8));
    CHECK_GR(grErrorInvalidValue, grMallocPitch(&p, NULL, 8, 8));
    p = (void *)0x1234;
    pitch = 99;
    CHECK_GR(grErrorMemoryAllocation, grMallocPitch(&p, &pitch, SIZE_MAX - 10, 2));
    CHECK_GR(grErrorMemoryAllocation, grMallocPitch(&p, &pitch, 1024, SIZE_MAX / 512));
    CHECK_PTR_EQ(p, (void *)0x1234);
    CHECK_EQ(pitch, 99);
}

GR_TEST(malloc3d_gives_the_layout_memset3d_takes)
{
    grPitchedPtr pp;
    grExtent e = make_grExtent(40, 3, 4);
    CHECK_OK(grMalloc3D(&pp, e));
    CHECK(pp.ptr != NULL);
    CHECK_EQ(pp.pitch, GR_PITCH_ALIGN);
    CHECK_EQ(pp.xsize, 40);
    CHECK_EQ(pp.ysize, 3);
    CHECK_OK(grMemset3D(pp, 7, e));
    char *last = (char *)pp.ptr + 3 * pp.pitch * pp.ysize + 2 * pp.pitch + 39;
    CHECK_EQ(*last, 7);
    /* One slice more runs past the end. */
    CHECK_GR(grErrorInvalidValue, grMemset3D(pp, 7, make_grExtent(40, 3, 5)));
    CHECK_OK(grFree(pp.ptr));

    CHECK_OK(grMalloc3D(&pp, make_grExtent(16, 4, 0)));
    CHECK(pp.ptr == NULL);
    CHECK_EQ(pp.pitch, 0);
    CHECK_EQ(pp.xsize, 16);
    CHECK_GR(grErrorInvalidValue, grMalloc3D(NULL, e));
    grPitchedPtr keep = {(void *)0x1234, 1, 2, 3};
    CHECK_GR(grErrorMemoryAllocation, grMalloc3D(&keep, make_grExtent(1024, SIZE_MAX / 4, 8)));
    CHECK_PTR_EQ(keep.ptr, (void *)0x1234);
    CHECK_EQ(keep.pitch, 1);
}

GR_TEST(host_alloc_keeps_its_flags_and_maps_the_memory)
{
    void *h = NULL, *d = NULL, *plain = NULL;
    unsigned flags = 99;
    CHECK_OK(grHostAlloc(&h, 4096, grHostAllocMapped | grHostAllocWriteCombined));
    CHECK(h != NULL);
    memset(h, 1, 4096);
    CHECK_OK(grHostGetFlags(&flags, (char *)h + 100));
    CHECK_EQ(flags, grHostAllocMapped | grHostAllocWriteCombined);
    CHECK_OK(grHostGetDevicePointer(&d, (char *)h + 8, 0));
    CHECK_PTR_EQ(d, (char *)h + 8);
    grPointerAttributes a;
    CHECK_OK(grPointerGetAttributes(&a, h));
    CHECK_EQ(a.type, grMemoryTypeHost);
    /* grMallocHost memory: the default flags, mapped too. */
    CHECK_OK(grMallocHost(&plain, 64));
    CHECK_OK(grHostGetFlags(&flags, plain));
    CHECK_EQ(flags, grHostAllocDefault);
    CHECK_OK(grHostGetDevicePointer(&d, plain, 0));
    CHECK_PTR_EQ(d, plain);
    CHECK_OK(grFreeHost(plain));
    CHECK_OK(grFreeHost(h));
    /* Freed: no flags any more. */
    CHECK_GR(grErrorInvalidValue, grHostGetFlags(&flags, h));
    /* A new allocation at the same place does not inherit them. */
    CHECK_OK(grMallocHost(&plain, 4096));
    CHECK_OK(grHostGetFlags(&flags, plain));
    CHECK_EQ(flags, grHostAllocDefault);
    CHECK_OK(grFreeHost(plain));
    CHECK_OK(grHostAlloc(&h, 0, grHostAllocPortable));
    CHECK(h == NULL);
}

GR_TEST(host_alloc_and_queries_refuse_what_cuda_refuses)
{
    void *h = (void *)0x1234, *d = (void *)0x5678, *dev = NULL;
    unsigned flags = 99;
    static char plain[64];
    CHECK_GR(grErrorInvalidValue, grHostAlloc(NULL, 64, 0));
    CHECK_GR(grErrorInvalidValue, grHostAlloc(&h, 64, 0x8));
    CHECK_DETAIL_HAS("0x8");
    CHECK_PTR_EQ(h, (void *)0x1234);
    CHECK_OK(grHostAlloc(&h, 64, grHostAllocPortable));
    CHECK_GR(grErrorInvalidValue, grHostGetDevicePointer(NULL, h, 0));
    CHECK_GR(grErrorInvalidValue, grHostGetDevicePointer(&d, h, 1));
    CHECK_GR(grErrorInvalidValue, grHostGetDevicePointer(&d, plain, 0));
    CHECK_GR(grErrorInvalidValue, grHostGetDevicePointer(&d, NULL, 0));
    CHECK_PTR_EQ(d, (void *)0x5678);
    CHECK_GR(grErrorInvalidValue, grHostGetFlags(NULL, h));
    CHECK_GR(grErrorInvalidValue, grHostGetFlags(&flags, plain));
    CHECK_OK(grMalloc(&dev, 64));
    CHECK_GR(grErrorInvalidValue, grHostGetFlags(&flags, dev));
    CHECK_GR(grErrorInvalidValue, grHostGetDevicePointer(&d, dev, 0));
    CHECK_EQ(flags, 99);
    CHECK_OK(grFree(dev));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(host_alloc_notes_go_with_device_reset)
{
    void *h = NULL, *m = NULL;
    unsigned flags;
    CHECK_OK(grHostAlloc(&h, 64, grHostAllocMapped));
    CHECK_OK(grMallocManaged(&m, 64, grMemAttachGlobal));
    CHECK_OK(grDeviceReset());
    CHECK_GR(grErrorInvalidValue, grHostGetFlags(&flags, h));
    grPointerAttributes a;
    CHECK_OK(grPointerGetAttributes(&a, m));
    CHECK(a.type != grMemoryTypeManaged);
}

GR_TEST(managed_alloc_freed_in_stream_order_leaves_no_mark_behind)
{
    grStream_t s;
    void *m = NULL, *again[8];
    grPointerAttributes a;
    int n = 0;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocManaged(&m, 4096, grMemAttachGlobal));
    CHECK_OK(grFreeAsync(m, s));
    CHECK_OK(grStreamSynchronize(s));
    /* A grMalloc block at the same address (the allocator usually hands
     * it out again) is plain device memory. */
    for (n = 0; n < 8; n++) {
        CHECK_OK(grMalloc(&again[n], 4096));
        CHECK_OK(grPointerGetAttributes(&a, again[n]));
        CHECK_EQ(a.type, grMemoryTypeDevice);
        if (again[n] == m)
            break;
    }
    for (int i = 0; i <= n && i < 8; i++)
        CHECK_OK(grFree(again[i]));
    CHECK_OK(grStreamDestroy(s));
}
