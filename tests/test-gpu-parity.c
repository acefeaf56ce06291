/*
 * test-gpu-parity.c - behaviours a GPU device must share with the CPU
 * device, as CUDA has them (tests/probes/parity.cu measures CUDA's
 * answers): a user object of an executable destroyed during its launch
 * lives until the launch is over, the legacy default stream holds back a
 * blocking stream, and a Global-mode capture refuses to wait on an event
 * recorded outside it. Each test runs on the CPU device and, where there
 * is one, on the first GPU (skipped there, saying why, without one).
 *
 * Launches are held with host functions that wait on a gate the test
 * opens; gates and polls have deadlines, so a broken rule fails instead
 * of hanging.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "steps.h"
#include "gpu-ptx.h"

/* ------------------------------------------------ user objects in flight */

static atomic_int dtor_runs, host_reached, host_gate, gate_forced;

static void count_dtor(void *p)
{
    (void)p;
    atomic_fetch_add(&dtor_runs, 1);
}

static void gated_host(void *p)
{
    (void)p;
    atomic_store(&host_reached, 1);
    for (int i = 0; i < 10000 && !atomic_load(&host_gate); i++)
        usleep(1000);
}

/* Opens the gate after 3 s should the test's thread be stuck in a call
 * that waits for the gated launch; the test then fails. */
static void *gate_watchdog(void *p)
{
    (void)p;
    for (int i = 0; i < 3000 && !atomic_load(&host_gate); i++)
        usleep(1000);
    if (!atomic_exchange(&host_gate, 1))
        atomic_store(&gate_forced, 1);
    return NULL;
}

/* Makes device 0 or the first GPU current (skipping where there is
 * none), and launches on a new stream *s an executable whose only node
 * runs gated_host and which alone holds a user object of count_dtor (its
 * graph already destroyed); the gate starts open where 'open' is set. */
static grGraphExec_t launch_owner_of_a_user_object(int gpu, int open, grStream_t *s)
{
    gr_test_device_or_skip(gpu);
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t e;
    grUserObject_t o;
    grHostNodeParams hp = {gated_host, NULL};
    atomic_store(&dtor_runs, 0);
    atomic_store(&host_reached, 0);
    atomic_store(&host_gate, open);
    atomic_store(&gate_forced, 0);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddHostNode(&n, g, NULL, 0, &hp));
    CHECK_OK(grUserObjectCreate(&o, NULL, count_dtor, 1, grUserObjectNoDestructorSync));
    CHECK_OK(grGraphRetainUserObject(g, o, 1, grGraphUserObjectMove));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamCreate(s));
    CHECK_OK(grGraphLaunch(e, *s));
    return e;
}

GR_TEST_CPU_AND_GPU(user_object_outlives_the_launch_of_a_destroyed_exec, gpu)
{
    grStream_t s;
    grGraphExec_t e = launch_owner_of_a_user_object(gpu, 0, &s);
    for (int i = 0; i < 5000 && !atomic_load(&host_reached); i++)
        usleep(1000);
    CHECK(atomic_load(&host_reached));
    pthread_t dog;
    CHECK_EQ(pthread_create(&dog, NULL, gate_watchdog, NULL), 0);
    /* CUDA returns at once and keeps the references until the launch is
     * over. */
    CHECK_OK(grGraphExecDestroy(e));
    int forced = atomic_load(&gate_forced);
    int runs = atomic_load(&dtor_runs);
    atomic_store(&host_gate, 1);
    CHECK_EQ(pthread_join(dog, NULL), 0);
    if (forced)
        GR_TEST_FAIL_("grGraphExecDestroy waited for the launch it should leave running");
    CHECK_EQ(runs, 0);
    CHECK_OK(grStreamSynchronize(s));
    for (int i = 0; i < 5000 && atomic_load(&dtor_runs) == 0; i++)
        usleep(1000);
    CHECK_EQ(atomic_load(&dtor_runs), 1);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grSetDevice(0));
}

/* An idle executable's user objects go before grGraphExecDestroy returns,
 * on every device. */
GR_TEST_CPU_AND_GPU(user_object_of_an_idle_exec_goes_at_destroy, gpu)
{
    grStream_t s;
    grGraphExec_t e = launch_owner_of_a_user_object(gpu, 1, &s);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&dtor_runs), 0);
    CHECK_OK(grGraphExecDestroy(e));
    for (int i = 0; i < 5000 && atomic_load(&dtor_runs) == 0; i++)
        usleep(1000);
    CHECK_EQ(atomic_load(&dtor_runs), 1);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grSetDevice(0));
}

/* ------------------------------------------------ the legacy stream */

/* Work on the legacy stream holds back a blocking stream: work issued to
 * the blocking stream runs after it, and cudaStreamQuery of the blocking
 * stream answers not ready until then. */
GR_TEST_CPU_AND_GPU(legacy_work_holds_back_a_blocking_stream, gpu)
{
    static atomic_int gate;
    static step first = {&gate, 1}, second = {NULL, 2};
    gr_test_device_or_skip(gpu);
    grStream_t b, nb;
    atomic_store(&gate, 0);
    atomic_store(&log_n, 0);
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamDefault));
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &first));
    CHECK_OK(grStreamQuery(nb));
    CHECK_OK(grLaunchHostFunc(b, gated_step, &second));
    usleep(20000);
    CHECK_EQ(atomic_load(&log_n), 0);
    CHECK_GR(grErrorNotReady, grStreamQuery(b));
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamQuery(b));
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grStreamDestroy(nb));
    CHECK_OK(grSetDevice(0));
}

/* Opens the gate it is given after 100 ms. */
static void *open_later(void *gate)
{
    usleep(100000);
    atomic_store((atomic_int *)gate, 1);
    return NULL;
}

/* And the other way: the legacy stream waits for a blocking stream's
 * work, so CUDA's cudaStreamQuery of the (empty) legacy stream answers
 * not ready while it runs, and the legacy stream's next work runs after
 * it; a non-blocking stream's work holds back neither. */
GR_TEST_CPU_AND_GPU(blocking_work_holds_back_the_legacy_stream, gpu)
{
    static atomic_int gate, gate2;
    static step first = {&gate, 1}, second = {NULL, 2}, other = {&gate2, 3};
    gr_test_device_or_skip(gpu);
    grStream_t b, nb;
    atomic_store(&gate, 0);
    atomic_store(&gate2, 0);
    atomic_store(&log_n, 0);
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamDefault));
    CHECK_OK(grStreamCreateWithFlags(&nb, grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(b, gated_step, &first));
    CHECK_GR(grErrorNotReady, grStreamQuery(NULL));
    CHECK_GR(grErrorNotReady, grStreamQuery(grStreamLegacy));
    CHECK_OK(grLaunchHostFunc(NULL, gated_step, &second));
    usleep(20000);
    CHECK_EQ(atomic_load(&log_n), 0);
    open_gate_expect_log(&gate, 2, (const int[]){1, 2});
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grLaunchHostFunc(nb, gated_step, &other));
    CHECK_OK(grStreamQuery(NULL));
    atomic_store(&gate2, 1);
    CHECK_OK(grDeviceSynchronize());
    /* grStreamSynchronize of the legacy stream waits for it too. */
    atomic_store(&gate, 0);
    atomic_store(&log_n, 0);
    CHECK_OK(grLaunchHostFunc(b, gated_step, &first));
    pthread_t opener;
    CHECK_EQ(pthread_create(&opener, NULL, open_later, &gate), 0);
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&log_n), 1);
    CHECK_EQ(pthread_join(opener, NULL), 0);
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grStreamDestroy(nb));
    CHECK_OK(grSetDevice(0));
}

/* ------------------------------------------------ capture isolation */

/* In every mode, a capture that waits on an event recorded outside any
 * capture is invalidated with grErrorStreamCaptureIsolation; an event
 * never recorded is no dependency at all. */
GR_TEST_CPU_AND_GPU(capture_wait_on_an_outside_event_is_isolation, gpu)
{
    static const grStreamCaptureMode modes[] = {grStreamCaptureModeGlobal, grStreamCaptureModeThreadLocal,
                                                grStreamCaptureModeRelaxed};
    gr_test_device_or_skip(gpu);
    for (int m = 0; m < 3; m++) {
        grStream_t s, o;
        grEvent_t e, never;
        grGraph_t g = NULL;
        grStreamCaptureStatus st;
        CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
        CHECK_OK(grStreamCreateWithFlags(&o, grStreamNonBlocking));
        CHECK_OK(grEventCreate(&e));
        CHECK_OK(grEventCreate(&never));
        CHECK_OK(grEventRecord(e, o));
        CHECK_OK(grStreamSynchronize(o));
        CHECK_OK(grStreamBeginCapture(s, modes[m]));
        CHECK_GR(grErrorStreamCaptureIsolation, grStreamWaitEvent(s, e, 0));
        CHECK_DETAIL_HAS("recorded outside any capture");
        CHECK_OK(grStreamIsCapturing(s, &st));
        CHECK_EQ(st, grStreamCaptureStatusInvalidated);
        CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
        CHECK(g == NULL);
        CHECK_OK(grStreamBeginCapture(s, modes[m]));
        CHECK_OK(grStreamWaitEvent(s, never, 0));
        CHECK_OK(grStreamEndCapture(s, &g));
        CHECK(g != NULL);
        CHECK_OK(grGraphDestroy(g));
        CHECK_OK(grEventDestroy(e));
        CHECK_OK(grEventDestroy(never));
        CHECK_OK(grStreamDestroy(s));
        CHECK_OK(grStreamDestroy(o));
    }
    CHECK_OK(grSetDevice(0));
}

/* ------------------------------------------- executables of one shape */

/* gr_test_wait's CPU side (the test runs on a real GPU only). */
static void wait_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    const atomic_uint *flag = *(atomic_uint *const *)args[0];
    unsigned want = *(const unsigned *)args[1];
    while (atomic_load(flag) < want)
        usleep(100);
}

/* Opens flag after 5 s should the test wait for the held kernel; the
 * test then fails instead of hanging. */
static void *flag_watchdog(void *p)
{
    atomic_uint *flag = p;
    for (int i = 0; i < 5000 && !atomic_load(flag); i++)
        usleep(1000);
    atomic_store(flag, 1);
    return NULL;
}

/* Two executables of one graph, launched on two streams, run side by side
 * as two native executables do: where graphrt shares one driver
 * executable between them (src/backend/cuda/share.c), the second's launch
 * must not be ordered behind the first's, whose kernel waits for a flag
 * in host memory that the test sets only once the second has run. (A host
 * node would not do: the driver runs host nodes one at a time.) */
GR_TEST(gpu_executables_of_one_shape_run_side_by_side)
{
    gr_test_real_gpu_or_skip();
    tl_use_gpu_or_skip();
    size_t sizes[] = {sizeof(void *), sizeof(unsigned), sizeof(unsigned)};
    grKernel_t k;
    grGraph_t g;
    grGraphNode_t n;
    grGraphExec_t held, free_run;
    grStream_t s1, s2;
    atomic_uint *flag;
    unsigned want = 1, none = 0, one = 1;
    CHECK_OK(grKernelCreate(&k, wait_fn, "gr_test_wait", 3, sizes));
    CHECK_OK(grKernelSetImage(k, gr_test_ptx, "gr_test_wait"));
    CHECK_OK(grMallocHost((void **)&flag, sizeof *flag));
    atomic_store(flag, 0);
    void *args[] = {&flag, &want, &one};
    grKernelNodeParams kp = {
        .func = k, .gridDim = GR_DIM3(1, 1, 1), .blockDim = GR_DIM3(32, 1, 1), .kernelParams = args};
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &kp));
    CHECK_OK(grGraphInstantiate(&held, g, 0));
    CHECK_OK(grGraphInstantiate(&free_run, g, 0));
    args[1] = &none;
    CHECK_OK(grGraphExecKernelNodeSetParams(free_run, n, &kp));
    CHECK_OK(grStreamCreateWithFlags(&s1, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&s2, grStreamNonBlocking));
    CHECK_OK(grGraphLaunch(held, s1));
    CHECK_OK(grGraphLaunch(free_run, s2));
    pthread_t dog;
    CHECK_EQ(pthread_create(&dog, NULL, flag_watchdog, flag), 0);
    grError_t q = grErrorNotReady;
    for (int i = 0; i < 4000 && (q = grStreamQuery(s2)) == grErrorNotReady; i++)
        usleep(1000);
    CHECK_GR(grErrorNotReady, grStreamQuery(s1));
    atomic_store(flag, 1);
    CHECK_EQ(pthread_join(dog, NULL), 0);
    CHECK_OK(grStreamSynchronize(s1));
    CHECK_OK(grStreamSynchronize(s2));
    CHECK_OK(q);
    /* Each again, in the other order, the flag set: both end. */
    CHECK_OK(grGraphLaunch(free_run, s2));
    CHECK_OK(grGraphLaunch(held, s1));
    CHECK_OK(grStreamSynchronize(s1));
    CHECK_OK(grStreamSynchronize(s2));
    CHECK_OK(grGraphExecDestroy(held));
    CHECK_OK(grGraphExecDestroy(free_run));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s1));
    CHECK_OK(grStreamDestroy(s2));
    CHECK_OK(grFreeHost(flag));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grSetDevice(0));
}
