/*
 * test-device-limits.c - grDeviceSetLimit / grDeviceGetLimit,
 * grSetDeviceFlags / grGetDeviceFlags and grInitDevice on the CPU device
 * and on a GPU (the device's: the fake device's stored settings, the
 * driver's on a real GPU), and their refusals (each leaves the settings
 * as they were).
 */
#include "test.h"

#include "fakedev/fakedev.h"

GR_TEST(device_limit_reads_defaults_and_what_was_set)
{
    size_t v = 0;
    CHECK_OK(grDeviceGetLimit(&v, grLimitStackSize));
    CHECK_EQ(v, 1024);
    CHECK_OK(grDeviceGetLimit(&v, grLimitPrintfFifoSize));
    CHECK_EQ(v, 1048576);
    CHECK_OK(grDeviceGetLimit(&v, grLimitMallocHeapSize));
    CHECK_EQ(v, 8388608);
    CHECK_OK(grDeviceGetLimit(&v, grLimitDevRuntimePendingLaunchCount));
    CHECK_EQ(v, 2048);
    CHECK_OK(grDeviceGetLimit(&v, grLimitMaxL2FetchGranularity));
    CHECK_EQ(v, 0);
    CHECK_OK(grDeviceGetLimit(&v, grLimitPersistingL2CacheSize));
    CHECK_EQ(v, 0);
    CHECK_OK(grDeviceSetLimit(grLimitStackSize, 4096));
    CHECK_OK(grDeviceSetLimit(grLimitMallocHeapSize, 1 << 26));
    CHECK_OK(grDeviceSetLimit(grLimitMaxL2FetchGranularity, 128));
    CHECK_OK(grDeviceGetLimit(&v, grLimitStackSize));
    CHECK_EQ(v, 4096);
    CHECK_OK(grDeviceGetLimit(&v, grLimitMallocHeapSize));
    CHECK_EQ(v, 1 << 26);
    CHECK_OK(grDeviceGetLimit(&v, grLimitMaxL2FetchGranularity));
    CHECK_EQ(v, 128);
    /* A reset of the CPU brings the defaults back. */
    CHECK_OK(grDeviceReset());
    CHECK_OK(grDeviceGetLimit(&v, grLimitStackSize));
    CHECK_EQ(v, 1024);
}

GR_TEST(device_limit_refusals_change_nothing)
{
    size_t v = 77;
    CHECK_OK(grDeviceSetLimit(grLimitMaxL2FetchGranularity, 64));
    /* A hint above 128 is clamped, as the driver may clamp it. */
    CHECK_OK(grDeviceSetLimit(grLimitMaxL2FetchGranularity, 4096));
    CHECK_OK(grDeviceGetLimit(&v, grLimitMaxL2FetchGranularity));
    CHECK_EQ(v, 128);
    CHECK_OK(grDeviceSetLimit(grLimitMaxL2FetchGranularity, 64));
    CHECK_GR(grErrorUnsupportedLimit, grDeviceSetLimit(grLimitDevRuntimeSyncDepth, 2));
    CHECK_OK(grDeviceGetLimit(&v, grLimitMaxL2FetchGranularity));
    CHECK_EQ(v, 64);
    CHECK_DETAIL_HAS("9.0");
    v = 77;
    CHECK_GR(grErrorUnsupportedLimit, grDeviceGetLimit(&v, grLimitDevRuntimeSyncDepth));
    CHECK_EQ(v, 77);
    CHECK_GR(grErrorInvalidValue, grDeviceSetLimit((grLimit)7, 1));
    CHECK_GR(grErrorInvalidValue, grDeviceSetLimit((grLimit)-1, 1));
    CHECK_GR(grErrorInvalidValue, grDeviceGetLimit(&v, (grLimit)7));
    CHECK_GR(grErrorInvalidValue, grDeviceGetLimit(NULL, grLimitStackSize));
    CHECK_EQ(v, 77);
}

GR_TEST(device_limit_and_flags_on_a_gpu_are_the_devices)
{
    size_t v = 0;
    unsigned f = 0;
    gr_test_device_or_skip(1);
    CHECK_OK(grDeviceSetLimit(grLimitPrintfFifoSize, 4u << 20));
    CHECK_OK(grDeviceGetLimit(&v, grLimitPrintfFifoSize));
    CHECK(v >= 4u << 20); /* the device's rounding, up */
    /* The CPU device keeps its own. */
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grDeviceGetLimit(&v, grLimitPrintfFifoSize));
    CHECK_EQ(v, 1048576);
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceMapHost);
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleSpin));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f & grDeviceScheduleMask, grDeviceScheduleSpin);
    CHECK(f & grDeviceMapHost);
    CHECK_OK(grInitDevice(1, grDeviceScheduleBlockingSync, grInitDeviceFlagsAreValid));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f & grDeviceScheduleMask, grDeviceScheduleBlockingSync);
    /* graphrt's own refusals come first, whatever the device. */
    CHECK_GR(grErrorUnsupportedLimit, grDeviceSetLimit(grLimitDevRuntimeSyncDepth, 2));
    CHECK_GR(grErrorInvalidValue, grSetDeviceFlags(grDeviceScheduleSpin | grDeviceScheduleYield));
}

GR_TEST(device_limit_and_flags_the_device_refuses_change_nothing)
{
    size_t v = 0;
    unsigned f = 0;
    gr_test_device_or_skip(1);
    if (!gr_test_fake_device())
        GR_TEST_SKIP("needs the fake device's injected failures");
    CHECK_OK(grDeviceSetLimit(grLimitStackSize, 2048));
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleYield));
    gr_fakedev_fail("limit", grErrorInvalidValue, 0);
    CHECK_GR(grErrorInvalidValue, grDeviceSetLimit(grLimitStackSize, 4096));
    CHECK_DETAIL_HAS("injected");
    gr_fakedev_fail("device_flags", grErrorInvalidValue, 0);
    CHECK_GR(grErrorInvalidValue, grSetDeviceFlags(grDeviceScheduleSpin));
    CHECK_GR(grErrorInvalidValue, grInitDevice(1, grDeviceScheduleSpin, grInitDeviceFlagsAreValid));
    gr_fakedev_clear();
    CHECK_OK(grDeviceGetLimit(&v, grLimitStackSize));
    CHECK_EQ(v, 2048);
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceScheduleYield | grDeviceMapHost);
    /* The fake device rounds the stack size up to 16 bytes, as drivers
     * round it: the answer is the device's, not the value passed. */
    CHECK_OK(grDeviceSetLimit(grLimitStackSize, 1000));
    CHECK_OK(grDeviceGetLimit(&v, grLimitStackSize));
    CHECK_EQ(v, 1008);
}

GR_TEST(gpu_limits_and_flags_are_the_drivers)
{
    size_t v = 0, again = 0;
    unsigned f = 0;
    gr_test_device_or_skip(1);
    gr_test_real_gpu_or_skip();
    /* cuCtxSetLimit rounds the stack size to the hardware's unit: what
     * comes back is at least what was asked and is a fixed point. */
    CHECK_OK(grDeviceSetLimit(grLimitStackSize, 1000));
    CHECK_OK(grDeviceGetLimit(&v, grLimitStackSize));
    CHECK(v >= 1000 && v < 1000 + 1024);
    CHECK_OK(grDeviceSetLimit(grLimitStackSize, v));
    CHECK_OK(grDeviceGetLimit(&again, grLimitStackSize));
    CHECK_EQ(again, v);
    CHECK_OK(grDeviceSetLimit(grLimitMallocHeapSize, 64u << 20));
    CHECK_OK(grDeviceGetLimit(&v, grLimitMallocHeapSize));
    CHECK(v >= 64u << 20);
    CHECK_OK(grDeviceGetLimit(&v, grLimitDevRuntimePendingLaunchCount));
    CHECK(v > 0);
    /* cuDevicePrimaryCtxSetFlags on the running primary context, read
     * back by cuDevicePrimaryCtxGetState. */
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleYield | grDeviceLmemResizeToMax));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f & (grDeviceScheduleMask | grDeviceLmemResizeToMax),
             grDeviceScheduleYield | grDeviceLmemResizeToMax);
    /* Work still runs under the new flags. */
    void *d = NULL;
    CHECK_OK(grMalloc(&d, 256));
    CHECK_OK(grMemset(d, 1, 256));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFree(d));
}

GR_TEST(device_flags_set_and_read_back)
{
    unsigned f = 99;
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceMapHost);
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleBlockingSync | grDeviceSyncMemops));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceScheduleBlockingSync | grDeviceSyncMemops | grDeviceMapHost);
    /* Set again on a running device: overwritten, as CUDA 13 does. */
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleSpin));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceScheduleSpin | grDeviceMapHost);
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleYield | grDeviceLmemResizeToMax | grDeviceMapHost));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceScheduleYield | grDeviceLmemResizeToMax | grDeviceMapHost);
    /* Work still runs under every schedule flag. */
    void *p = NULL;
    CHECK_OK(grMalloc(&p, 64));
    CHECK_OK(grMemset(p, 1, 64));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grFree(p));
}

GR_TEST(device_flags_refusals_change_nothing)
{
    unsigned f = 0;
    CHECK_OK(grSetDeviceFlags(grDeviceScheduleYield));
    CHECK_GR(grErrorInvalidValue, grSetDeviceFlags(grDeviceScheduleSpin | grDeviceScheduleYield));
    CHECK_DETAIL_HAS("more than one schedule flag");
    CHECK_GR(grErrorInvalidValue, grSetDeviceFlags(grDeviceScheduleMask));
    CHECK_GR(grErrorInvalidValue, grSetDeviceFlags(0x20));
    CHECK_GR(grErrorInvalidValue, grSetDeviceFlags(0x100));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceScheduleYield | grDeviceMapHost);
    CHECK_GR(grErrorInvalidValue, grGetDeviceFlags(NULL));
}

GR_TEST(init_device_starts_the_cpu_and_applies_flags_when_told)
{
    unsigned f = 0;
    int dev = -1;
    CHECK_OK(grInitDevice(0, grDeviceScheduleSpin, 0));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceMapHost); /* ignored without grInitDeviceFlagsAreValid */
    CHECK_OK(grInitDevice(0, grDeviceScheduleSpin, grInitDeviceFlagsAreValid));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceScheduleSpin | grDeviceMapHost);
    /* It does not change the calling thread's device. */
    CHECK_OK(grGetDevice(&dev));
    CHECK_EQ(dev, 0);
}

GR_TEST(init_device_refusals_change_nothing)
{
    unsigned f = 0;
    int count = 0;
    CHECK_OK(grGetDeviceCount(&count));
    CHECK_GR(grErrorInvalidDevice, grInitDevice(count, 0, 0));
    CHECK_GR(grErrorInvalidDevice, grInitDevice(-1, 0, 0));
    CHECK_GR(grErrorInvalidValue, grInitDevice(0, 0, 2));
    CHECK_GR(grErrorInvalidValue,
             grInitDevice(0, grDeviceScheduleSpin | grDeviceScheduleYield, grInitDeviceFlagsAreValid));
    /* Bad deviceFlags without the flag are ignored, as CUDA ignores them. */
    CHECK_OK(grInitDevice(0, 0xffff, 0));
    CHECK_OK(grGetDeviceFlags(&f));
    CHECK_EQ(f, grDeviceMapHost);
}
