/*
 * test-device.c - the device API: count, selection, attributes, device
 * synchronisation, reset and continued use, and an idle runtime that
 * sleeps instead of spinning.
 */
#include "testlib.h"

#include <sched.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

GR_TEST(device_count_counts_the_cpu_and_device_zero_is_selectable)
{
    int n = -1, d = -1;
    CHECK_OK(grGetDeviceCount(&n));
    CHECK(n >= 1);
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grGetDevice(&d));
    CHECK_EQ(d, 0);
}

GR_TEST(set_device_refuses_devices_past_the_count)
{
    int d = -1, n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_REFUSED(grErrorInvalidDevice, grSetDevice, n);
    CHECK_REFUSED(grErrorInvalidDevice, grSetDevice, -1);
    CHECK_OK(grGetDevice(&d));
    CHECK_EQ(d, 0);
}

GR_TEST(device_queries_refuse_null_outputs)
{
    CHECK_REFUSED(grErrorInvalidValue, grGetDeviceCount, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grGetDevice, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grDeviceGetAttribute, NULL, grDevAttrWarpSize, 0);
}

GR_TEST(multiprocessor_count_equals_GRAPHRT_WORKERS)
{
    int v = 0;
    setenv("GRAPHRT_WORKERS", "3", 1);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(v, 3);
}

GR_TEST(multiprocessor_count_defaults_to_the_usable_cores)
{
    int v = 0;
    cpu_set_t set;
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    unsetenv("GRAPHRT_WORKERS");
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(v, CPU_COUNT(&set));
}

/* A process limited to one core (taskset, a container's cpuset) gets one
 * worker, not one per core of the machine. */
GR_TEST(multiprocessor_count_follows_the_affinity_mask)
{
    int v = 0;
    cpu_set_t set, one;
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_SET(c, &one);
            break;
        }
    CHECK_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    unsetenv("GRAPHRT_WORKERS");
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(v, 1);
}

GR_TEST(device_attributes_match_the_launch_limits)
{
    int v = 0;
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxThreadsPerBlock, 0));
    CHECK_EQ(v, 1024);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxBlockDimZ, 0));
    CHECK_EQ(v, 64);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxGridDimY, 0));
    CHECK_EQ(v, 65535);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMaxSharedMemoryPerBlock, 0));
    CHECK_EQ(v, 48 * 1024);
}

GR_TEST(device_attribute_refuses_bad_device_and_attribute)
{
    int v = 12345, n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_REFUSED(grErrorInvalidDevice, grDeviceGetAttribute, &v, grDevAttrMultiProcessorCount, n);
    CHECK_GR(grErrorInvalidDevice, grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, -1));
    CHECK_REFUSED(grErrorInvalidValue, grDeviceGetAttribute, &v, (grDeviceAttr)0, 0);
    CHECK_GR(grErrorInvalidValue, grDeviceGetAttribute(&v, (grDeviceAttr)9999, 0));
    CHECK_EQ(v, 12345);
}

/* ---------------------------------------------------------- synchronise */

static atomic_int other_thread_flag;
static void *issue_on_per_thread(void *arg)
{
    atomic_int *ready = arg;
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, tl_set_flag_late, &other_thread_flag));
    atomic_store(ready, 1);
    /* Keep the thread (and its stream) alive until the work is done. */
    for (int i = 0; i < 5000 && !atomic_load(&other_thread_flag); i++)
        usleep(1000);
    return NULL;
}

GR_TEST(device_synchronize_waits_for_all_streams)
{
    static atomic_int flags[5];
    static atomic_int ready;
    grStream_t s[4];
    pthread_t t;
    setenv("GRAPHRT_WORKERS", "2", 1);
    for (int i = 0; i < 4; i++) {
        CHECK_OK(grStreamCreateWithFlags(&s[i], i % 2 ? grStreamNonBlocking : grStreamDefault));
        CHECK_OK(grLaunchHostFunc(s[i], tl_set_flag_late, &flags[i]));
    }
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, tl_set_flag_late, &flags[4]));
    CHECK_EQ(pthread_create(&t, NULL, issue_on_per_thread, &ready), 0);
    for (int i = 0; i < 5000 && !atomic_load(&ready); i++)
        usleep(1000);
    CHECK(atomic_load(&ready));
    CHECK_OK(grDeviceSynchronize());
    for (int i = 0; i < 5; i++)
        CHECK_EQ(atomic_load(&flags[i]), 1);
    CHECK_EQ(atomic_load(&other_thread_flag), 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    for (int i = 0; i < 4; i++)
        CHECK_OK(grStreamDestroy(s[i]));
}

GR_TEST(device_synchronize_waits_for_the_legacy_stream)
{
    static atomic_int flag, after;
    grStream_t nb;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(NULL, tl_set_flag_late, &flag));
    CHECK_OK(grLaunchHostFunc(grStreamLegacy, tl_bump_atomic, &after));
    CHECK_OK(grLaunchHostFunc(nb, tl_bump_atomic, &after));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_EQ(atomic_load(&after), 2);
    CHECK_OK(grStreamQuery(NULL));
    CHECK_OK(grStreamQuery(nb));
    CHECK_OK(grStreamDestroy(nb));
}

GR_TEST(device_synchronize_waits_for_work_of_destroyed_streams)
{
    static atomic_int flag, after;
    grStream_t s;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(s, tl_set_flag_late, &flag));
    CHECK_OK(grLaunchHostFunc(s, tl_bump_atomic, &after));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_EQ(atomic_load(&after), 1);
}

/* ---------------------------------------------------------------- reset */

static atomic_int kern_calls;
static void count_kernel(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    atomic_fetch_add(&kern_calls, *(int *)args[0]);
}

GR_TEST(device_reset_then_new_streams_events_and_kernels_work)
{
    static atomic_int n;
    size_t sizes[1] = {sizeof(int)};
    int one = 1;
    void *args[1] = {&one};
    grStream_t s;
    grEvent_t e;
    grKernel_t k;
    int v = 0;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grKernelCreate(&k, count_kernel, "count_before_reset", 1, sizes));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(4, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grLaunchHostFunc(s, tl_bump_atomic, &n));
    CHECK_OK(grDeviceReset());
    /* Reset waited for the work. */
    CHECK_EQ(atomic_load(&kern_calls), 4);
    CHECK_EQ(atomic_load(&n), 1);
    /* The fresh runtime re-reads GRAPHRT_WORKERS. */
    setenv("GRAPHRT_WORKERS", "3", 1);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(v, 3);
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grKernelCreate(&k, count_kernel, "count_after_reset", 1, sizes));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(5, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grLaunchHostFunc(NULL, tl_bump_atomic, &n));
    CHECK_OK(grEventSynchronize(e));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&kern_calls), 9);
    CHECK_EQ(atomic_load(&n), 2);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(device_reset_keeps_kernels_valid_and_launchable)
{
    grKernel_t k, again;
    grStream_t s;
    size_t sizes[1] = {sizeof(int)};
    int add = 5;
    void *args[1] = {&add};
    CHECK_OK(grKernelCreate(&k, count_kernel, "reset_kernel", 1, sizes));
    CHECK_OK(grDeviceReset());
    /* The header: kernels are host objects and survive a reset, so the
     * name is still taken and the handle still launches. */
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&again, count_kernel, "reset_kernel", 1, sizes));
    CHECK_OK(grStreamCreate(&s));
    atomic_store(&kern_calls, 0);
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&kern_calls), 15);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(device_reset_waits_for_work_of_destroyed_streams)
{
    static atomic_int flags[3];
    grStream_t s[3];
    setenv("GRAPHRT_WORKERS", "1", 1);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
        CHECK_OK(grLaunchHostFunc(s[i], tl_set_flag_late, &flags[i]));
        CHECK_OK(grStreamDestroy(s[i]));
    }
    CHECK_OK(grDeviceReset());
    for (int i = 0; i < 3; i++)
        CHECK_EQ(atomic_load(&flags[i]), 1);
}

GR_TEST(per_thread_stream_works_after_device_reset)
{
    static atomic_int gate, n;
    grStream_t nb;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, tl_bump_atomic, &n));
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
    CHECK_OK(grDeviceReset());
    /* A fresh per-thread stream: blocking, ordered after the legacy
     * stream, and waited for by grDeviceSynchronize. */
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, tl_set_flag_late, &gate));
    CHECK_OK(grLaunchHostFunc(grStreamPerThread, tl_bump_atomic, &n));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&gate), 1);
    CHECK_EQ(atomic_load(&n), 2);
    CHECK_OK(grStreamQuery(grStreamPerThread));
    CHECK_OK(grStreamDestroy(nb));
}

GR_TEST(device_reset_without_a_runtime_is_harmless)
{
    CHECK_OK(grDeviceReset());
    CHECK_OK(grDeviceReset());
    CHECK_OK(grDeviceSynchronize());
}

/* ------------------------------------------------------------------ idle */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

GR_TEST(idle_runtime_burns_no_cpu_after_its_spin_window)
{
    static atomic_int n;
    grStream_t s[4];
    setenv("GRAPHRT_WORKERS", "4", 1);
    for (int i = 0; i < 4; i++)
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
    for (int r = 0; r < 2000; r++)
        CHECK_OK(grLaunchHostFunc(s[r % 4], tl_bump_atomic, &n));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&n), 2000);
    usleep(300000);
    double t0 = cpu_seconds();
    usleep(500000);
    double used = cpu_seconds() - t0;
    if (used > 0.050)
        GR_TEST_FAIL_("the idle runtime used %.1f ms of CPU in 500 ms", used * 1e3);
    for (int i = 0; i < 4; i++)
        CHECK_OK(grStreamDestroy(s[i]));
}

GR_TEST(cpu_properties_describe_the_cpu_and_match_the_attributes)
{
    grDeviceProp p;
    int v = 0;
    CHECK_OK(grGetDeviceProperties(&p, 0));
    CHECK_EQ(p.isCpu, 1);
    CHECK(p.name[0] != '\0');
    CHECK(p.totalGlobalMem > 0);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(p.multiProcessorCount, v);
    CHECK_EQ(p.warpSize, 1);
    CHECK_EQ(p.major, 0);
    CHECK_REFUSED(grErrorInvalidValue, grGetDeviceProperties, NULL, 0);
    CHECK_REFUSED(grErrorInvalidDevice, grGetDeviceProperties, &p, -1);
}

GR_TEST(graphrt_device_cpu_starts_threads_on_the_cpu)
{
    int d = -1;
    setenv("GRAPHRT_DEVICE", "cpu", 1);
    CHECK_OK(grGetDevice(&d));
    CHECK_EQ(d, 0);
}

GR_TEST(graphrt_device_naming_no_device_leaves_the_cpu)
{
    int d = -1;
    setenv("GRAPHRT_DEVICE", "cuda:999", 1);
    CHECK_OK(grGetDevice(&d));
    CHECK_EQ(d, 0);
}

GR_TEST(graphrt_device_cuda_0_starts_threads_on_the_first_gpu)
{
    int d = -1, n = 0;
    setenv("GRAPHRT_DEVICE", "cuda:0", 1);
    CHECK_OK(grGetDeviceCount(&n));
    if (n < 2)
        GR_TEST_SKIP("no GPU device: the count is %d (the CPU only)", n);
    CHECK_OK(grGetDevice(&d));
    CHECK_EQ(d, 1);
}

GR_TEST(graphrt_cuda_0_leaves_the_cpu_only_and_says_why)
{
    int n = 0;
    setenv("GRAPHRT_CUDA", "0", 1);
    setenv("GRAPHRT_FAKEDEV", "0", 1); /* the suite's fake device stands in for GPUs otherwise */
    CHECK_OK(grGetDeviceCount(&n));
    CHECK_EQ(n, 1);
    CHECK_GR(grErrorInvalidDevice, grSetDevice(1));
    CHECK_DETAIL_HAS("GRAPHRT_CUDA=0");
}

GR_TEST(a_machine_without_a_driver_says_so_when_a_gpu_is_asked_for)
{
    int n = 0;
    setenv("GRAPHRT_FAKEDEV", "0", 1); /* the suite's fake device stands in for GPUs otherwise */
    CHECK_OK(grGetDeviceCount(&n));
    if (n > 1)
        GR_TEST_SKIP("this machine has %d GPU(s)", n - 1);
    CHECK_GR(grErrorInvalidDevice, grSetDevice(1));
    CHECK_DETAIL_HAS("the CPU");
}
