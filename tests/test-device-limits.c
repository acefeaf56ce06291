/*
 * test-device-limits.c - grDeviceSetLimit / grDeviceGetLimit,
 * grSetDeviceFlags / grGetDeviceFlags and grInitDevice on the CPU device,
 * and their refusals (each leaves the settings as they were).
 */
#include "test.h"

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

GR_TEST(device_limit_and_flags_on_a_gpu_are_refused_with_a_detail)
{
    size_t v = 5;
    unsigned f = 5;
    gr_test_device_or_skip(1);
    CHECK_GR(grErrorNotSupported, grDeviceSetLimit(grLimitStackSize, 4096));
    CHECK_DETAIL_HAS("cuCtxSetLimit");
    CHECK_GR(grErrorNotSupported, grDeviceGetLimit(&v, grLimitStackSize));
    CHECK_GR(grErrorNotSupported, grSetDeviceFlags(grDeviceScheduleSpin));
    CHECK_GR(grErrorNotSupported, grGetDeviceFlags(&f));
    CHECK_EQ(v, 5);
    CHECK_EQ(f, 5);
    CHECK_OK(grInitDevice(1, 0, 0));
    CHECK_GR(grErrorNotSupported, grInitDevice(1, grDeviceScheduleSpin, grInitDeviceFlagsAreValid));
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
