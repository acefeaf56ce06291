/*
 * test-host-register.c - grHostRegister and grHostUnregister: application
 * memory reported as pinned host memory while registered; overlaps,
 * graphrt's own memory and bad flags refused, leaving nothing registered.
 */
#include "test.h"

#include <stdlib.h>

GR_TEST(host_register_reports_the_range_as_pinned_until_unregistered)
{
    char *buf = calloc(1, 8192);
    void *d = NULL;
    grPointerAttributes a;
    CHECK(buf != NULL);
    CHECK_OK(grPointerGetAttributes(&a, buf));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
    CHECK_GR(grErrorInvalidValue, grHostGetDevicePointer(&d, buf, 0));
    CHECK_OK(grHostRegister(buf, 8192, grHostRegisterMapped | grHostRegisterPortable));
    CHECK_OK(grPointerGetAttributes(&a, buf + 8191));
    CHECK_EQ(a.type, grMemoryTypeHost);
    CHECK_EQ(a.device, 0);
    CHECK_PTR_EQ(a.hostPointer, buf + 8191);
    CHECK_OK(grHostGetDevicePointer(&d, buf + 10, 0));
    CHECK_PTR_EQ(d, buf + 10);
    /* Copies to and from it work as before. */
    void *dev = NULL;
    CHECK_OK(grMalloc(&dev, 8192));
    CHECK_OK(grMemset(dev, 3, 8192));
    CHECK_OK(grMemcpy(buf, dev, 8192, grMemcpyDeviceToHost));
    CHECK_EQ(buf[8000], 3);
    CHECK_OK(grHostUnregister(buf));
    CHECK_OK(grPointerGetAttributes(&a, buf));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
    CHECK_GR(grErrorHostMemoryNotRegistered, grHostUnregister(buf));
    /* ReadOnly and Default are accepted too, on ranges of different pages:
     * where a GPU exists the driver locks whole pages, and refuses a range
     * whose page another range holds read-only (an H100, CUDA 13.0:
     * CUDA_ERROR_INVALID_VALUE). */
    CHECK_OK(grHostRegister(buf, 100, grHostRegisterReadOnly));
    CHECK_OK(grHostRegister(buf + 4300, 100, grHostRegisterDefault));
    CHECK_OK(grHostUnregister(buf));
    CHECK_OK(grHostUnregister(buf + 4300));
    CHECK_OK(grFree(dev));
    free(buf);
}

GR_TEST(host_register_refuses_overlaps_and_registers_nothing)
{
    char *buf = calloc(1, 4096);
    grPointerAttributes a;
    CHECK(buf != NULL);
    CHECK_OK(grHostRegister(buf + 1024, 1024, 0));
    CHECK_GR(grErrorHostMemoryAlreadyRegistered, grHostRegister(buf, 1025, 0));
    CHECK_GR(grErrorHostMemoryAlreadyRegistered, grHostRegister(buf + 2047, 10, 0));
    CHECK_GR(grErrorHostMemoryAlreadyRegistered, grHostRegister(buf + 1024, 1024, 0));
    /* The refused ranges were not registered. */
    CHECK_OK(grPointerGetAttributes(&a, buf));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
    CHECK_OK(grPointerGetAttributes(&a, buf + 2050));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
    /* Adjacent ranges are fine. */
    CHECK_OK(grHostRegister(buf, 1024, 0));
    CHECK_OK(grHostRegister(buf + 2048, 1024, 0));
    /* Unregister wants the start of a range. */
    CHECK_GR(grErrorHostMemoryNotRegistered, grHostUnregister(buf + 1));
    CHECK_OK(grHostUnregister(buf));
    CHECK_OK(grHostUnregister(buf + 1024));
    CHECK_OK(grHostUnregister(buf + 2048));
    free(buf);
}

GR_TEST(host_register_refuses_graphrt_memory_bad_flags_and_bad_ranges)
{
    void *pinned = NULL, *dev = NULL;
    char *buf = calloc(1, 64);
    CHECK(buf != NULL);
    CHECK_OK(grMallocHost(&pinned, 256));
    CHECK_OK(grMalloc(&dev, 256));
    CHECK_GR(grErrorHostMemoryAlreadyRegistered, grHostRegister(pinned, 256, 0));
    CHECK_GR(grErrorHostMemoryAlreadyRegistered, grHostRegister((char *)pinned + 16, 8, 0));
    CHECK_GR(grErrorInvalidValue, grHostRegister(dev, 256, 0));
    CHECK_DETAIL_HAS("device memory");
    CHECK_GR(grErrorInvalidValue, grHostRegister((char *)dev + 64, 128, 0));
    /* A range reaching into it from outside, where the byte before it is
     * in no allocation (allocators may place the pinned block there). */
    grPointerAttributes a;
    CHECK_OK(grPointerGetAttributes(&a, (char *)dev - 1));
    if (a.type == grMemoryTypeUnregistered)
        CHECK_GR(grErrorInvalidValue, grHostRegister((char *)dev - 1, 128, 0));
    CHECK_GR(grErrorInvalidValue, grHostRegister(NULL, 64, 0));
    CHECK_GR(grErrorInvalidValue, grHostRegister(buf, 0, 0));
    CHECK_GR(grErrorInvalidValue, grHostRegister(buf, 64, 0x10));
    CHECK_GR(grErrorNotSupported, grHostRegister(buf, 64, grHostRegisterIoMemory));
    CHECK_GR(grErrorInvalidValue, grHostRegister((void *)(UINTPTR_MAX - 10), 64, 0));
    CHECK_GR(grErrorInvalidValue, grHostUnregister(NULL));
    /* Nothing was registered by the refusals. */
    CHECK_OK(grHostRegister(buf, 64, 0));
    CHECK_OK(grHostUnregister(buf));
    CHECK_OK(grFreeHost(pinned));
    CHECK_OK(grFree(dev));
    free(buf);
}
