/*
 * test-device-choose.c - grChooseDevice (graphrt's rule: the compute
 * capability, at least the asked one first, then the closest) and
 * grSetValidDevices (the device a thread that chose none starts on).
 */
#include "testlib.h"

#include <pthread.h>

GR_TEST(choose_device_picks_the_cpu_for_a_zeroed_prop)
{
    grDeviceProp p;
    int d = -7;
    memset(&p, 0, sizeof p);
    CHECK_OK(grChooseDevice(&d, &p));
    CHECK_EQ(d, 0);
    CHECK_GR(grErrorInvalidValue, grChooseDevice(NULL, &p));
    CHECK_GR(grErrorInvalidValue, grChooseDevice(&d, NULL));
    CHECK_DETAIL_HAS("'prop'");
}

GR_TEST(choose_device_prefers_a_device_of_at_least_the_capability)
{
    grDeviceProp p;
    int n = 0, d = -1, want = 0;
    memset(&p, 0, sizeof p);
    p.major = 5;
    p.minor = 2;
    CHECK_OK(grGetDeviceCount(&n));
    /* Without GPUs the CPU device is the only, and so closest, answer. */
    for (int k = 1; k < n && want == 0; k++) {
        grDeviceProp q;
        CHECK_OK(grGetDeviceProperties(&q, k));
        if (q.major * 1000 + q.minor >= 5002)
            want = k;
    }
    CHECK_OK(grChooseDevice(&d, &p));
    CHECK_EQ(d, want);
    /* The current device is unchanged. */
    CHECK_OK(grGetDevice(&d));
    CHECK_EQ(d, 0);
}

static void *device_of_new_thread(void *out)
{
    CHECK_OK(grGetDevice((int *)out));
    return NULL;
}

static int new_thread_device(void)
{
    pthread_t t;
    int d = -1;
    CHECK(pthread_create(&t, NULL, device_of_new_thread, &d) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    return d;
}

GR_TEST(set_valid_devices_sets_where_new_threads_start)
{
    int list[1] = {0};
    int n = 0, mine = -1;
    CHECK_OK(grGetDeviceCount(&n));
    /* This thread's device is settled by its first use. */
    CHECK_OK(grGetDevice(&mine));
    CHECK_OK(grSetValidDevices(list, 1));
    CHECK_EQ(new_thread_device(), 0);
    if (n > 1) {
        int gpu_first[2] = {1, 0};
        CHECK_OK(grSetValidDevices(gpu_first, 2));
        CHECK_EQ(new_thread_device(), 1);
        /* This thread chose its device already and keeps it. */
        int d = -1;
        CHECK_OK(grGetDevice(&d));
        CHECK_EQ(d, 0);
    }
    CHECK_OK(grSetValidDevices(NULL, 0));
    CHECK_EQ(new_thread_device(), 0);
}

GR_TEST(set_valid_devices_refuses_cuda_errors)
{
    int bad[1] = {77};
    int n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_GR(grErrorInvalidValue, grSetValidDevices(NULL, 1));
    CHECK_DETAIL_HAS("NULL");
    CHECK_GR(grErrorInvalidValue, grSetValidDevices(bad, -1));
    int *many = calloc((size_t)n + 1, sizeof *many);
    CHECK_GR(grErrorInvalidValue, grSetValidDevices(many, n + 1));
    CHECK_DETAIL_HAS("exceeds the number of devices");
    free(many);
    CHECK_GR(grErrorInvalidDevice, grSetValidDevices(bad, 1));
    CHECK_DETAIL_HAS("device_arr[0] is 77");
    CHECK_EQ(new_thread_device(), 0);
}
