/*
 * test-gpu-free.c - freeing pinned and GPU memory waits for the CPU
 * device's queued work too: where GPUs exist, grMallocHost returns pinned
 * memory that CPU streams may still be using when it is freed. Skipped
 * without a GPU (pinned memory exists only then).
 */
#include "test.h"

#include <stdatomic.h>
#include <time.h>

static void slow_then_mark(void *user)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store((atomic_int *)user, 1);
}

GR_TEST(gpu_free_host_waits_for_the_cpu_streams_work)
{
    int n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    if (n < 2)
        GR_TEST_SKIP("no GPU device: grGetDeviceCount gives %d (the CPU only)", n);
    CHECK_OK(grSetDevice(0));
    void *pinned;
    static atomic_int ran;
    atomic_store(&ran, 0);
    CHECK_OK(grMallocHost(&pinned, 4096));
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grLaunchHostFunc(s, slow_then_mark, &ran));
    CHECK_OK(grMemsetAsync(pinned, 7, 4096, s));
    CHECK_OK(grFreeHost(pinned)); /* as cudaFreeHost: waits for the device */
    CHECK_EQ(atomic_load(&ran), 1);
    CHECK_OK(grStreamDestroy(s));
}
