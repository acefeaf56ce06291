/* test-stream.c - stream order, synchronisation, queries, host functions. */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static void append(void *p)
{
    int *log = p;
    log[1 + log[0]] = log[0];
    log[0]++;
}

GR_TEST(stream_runs_host_functions_in_issue_order)
{
    static int log[1 + 5000];
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    for (int i = 0; i < 5000; i++)
        CHECK_OK(grLaunchHostFunc(s, append, log));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(log[0], 5000);
    for (int i = 0; i < 5000; i++)
        CHECK_EQ(log[1 + i], i);
    CHECK_OK(grStreamDestroy(s));
}

typedef struct seqlog {
    atomic_int next;
    int order[8][4000];
    int count[8];
} seqlog;
typedef struct op_arg {
    seqlog *l;
    int stream, index;
} op_arg;

static void record_op(void *p)
{
    op_arg *a = p;
    a->l->order[a->stream][a->l->count[a->stream]++] = a->index;
}

GR_TEST(stream_fifo_order_holds_under_load_on_several_streams)
{
    static seqlog l;
    static op_arg args[8][4000];
    grStream_t s[8];
    for (int k = 0; k < 8; k++)
        CHECK_OK(grStreamCreateWithFlags(&s[k], k % 2 ? grStreamNonBlocking : grStreamDefault));
    for (int i = 0; i < 4000; i++)
        for (int k = 0; k < 8; k++) {
            args[k][i] = (op_arg){&l, k, i};
            CHECK_OK(grLaunchHostFunc(s[k], record_op, &args[k][i]));
        }
    CHECK_OK(grDeviceSynchronize());
    for (int k = 0; k < 8; k++) {
        CHECK_EQ(l.count[k], 4000);
        for (int i = 0; i < 4000; i++)
            CHECK_EQ(l.order[k][i], i);
        CHECK_OK(grStreamDestroy(s[k]));
    }
}

static atomic_int gate;

GR_TEST(stream_query_reports_not_ready_then_success)
{
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamQuery(s));
    atomic_store(&gate, 0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_GR(grErrorNotReady, grStreamQuery(s));
    /* NotReady is not an error: the last error stays clean. */
    CHECK_EQ(grGetLastError(), grSuccess);
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(stream_destroy_with_work_in_flight_completes_the_work)
{
    static atomic_int flag;
    grStream_t s;
    grEvent_t e;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grLaunchHostFunc(s, tl_set_flag_late, &flag));
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_GR(grErrorInvalidResourceHandle, grStreamSynchronize(s));
    CHECK_OK(grEventSynchronize(e));
    CHECK_EQ(atomic_load(&flag), 1);
    CHECK_OK(grEventDestroy(e));
}

static atomic_int cross_flag;
static int cross_seen = -1;
static void copy_cross_flag(void *p)
{
    (void)p;
    cross_seen = atomic_load(&cross_flag);
}

GR_TEST(event_orders_work_across_streams)
{
    grStream_t a, b;
    grEvent_t e;
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreateWithFlags(&e, grEventDisableTiming));
    CHECK_OK(grLaunchHostFunc(a, tl_set_flag_late, &cross_flag));
    CHECK_OK(grEventRecord(e, a));
    CHECK_OK(grStreamWaitEvent(b, e, 0));
    CHECK_OK(grLaunchHostFunc(b, copy_cross_flag, NULL));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_EQ(cross_seen, 1);
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grEventDestroy(e));
}

/* ------------------------------------------- FIFO order with kernels mixed */

/*
 * Each stream alternates kernels of several blocks, which add their block
 * count to the stream's counter, and host functions, which check that the
 * counter holds exactly what all earlier operations of the stream added.
 */
#define MIX_STREAMS 6
#define MIX_ROUNDS 600

typedef struct mix_stream {
    atomic_llong counter;
    atomic_int bad;
    long long expect[MIX_ROUNDS];
} mix_stream;
static mix_stream mix[MIX_STREAMS];
typedef struct mix_check {
    mix_stream *m;
    int round;
} mix_check;
static mix_check mix_checks[MIX_STREAMS][MIX_ROUNDS];

static void mix_kernel(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    mix_stream *m = *(mix_stream **)args[0];
    atomic_fetch_add(&m->counter, 1);
}

static void mix_host(void *p)
{
    mix_check *c = p;
    if (atomic_load(&c->m->counter) != c->m->expect[c->round])
        atomic_fetch_add(&c->m->bad, 1);
    atomic_fetch_add(&c->m->counter, 1000000);
}

GR_TEST(stream_fifo_order_holds_mixing_kernels_and_host_functions)
{
    size_t sizes[1] = {sizeof(mix_stream *)};
    grKernel_t k;
    grStream_t s[MIX_STREAMS];
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grKernelCreate(&k, mix_kernel, "mix_kernel", 1, sizes));
    for (int j = 0; j < MIX_STREAMS; j++) {
        CHECK_OK(grStreamCreateWithFlags(&s[j], j % 3 == 0 ? grStreamNonBlocking : grStreamDefault));
        long long total = 0;
        for (int r = 0; r < MIX_ROUNDS; r++) {
            unsigned blocks = 1u + (unsigned)((r * 7 + j) % 13);
            total += blocks;
            mix[j].expect[r] = total + 1000000LL * r;
        }
    }
    for (int r = 0; r < MIX_ROUNDS; r++)
        for (int j = 0; j < MIX_STREAMS; j++) {
            mix_stream *mp = &mix[j];
            void *args[1] = {&mp};
            unsigned blocks = 1u + (unsigned)((r * 7 + j) % 13);
            CHECK_OK(grLaunchKernel(k, GR_DIM3(blocks, 1, 1), GR_DIM3(1, 1, 1), args, 0, s[j]));
            mix_checks[j][r] = (mix_check){mp, r};
            CHECK_OK(grLaunchHostFunc(s[j], mix_host, &mix_checks[j][r]));
            if (r % 100 == 99)
                CHECK_OK(grStreamSynchronize(s[(r / 100) % MIX_STREAMS]));
        }
    CHECK_OK(grDeviceSynchronize());
    for (int j = 0; j < MIX_STREAMS; j++) {
        CHECK_EQ(atomic_load(&mix[j].bad), 0);
        CHECK_EQ(atomic_load(&mix[j].counter), mix[j].expect[MIX_ROUNDS - 1] + 1000000LL);
        CHECK_OK(grStreamDestroy(s[j]));
    }
    CHECK_OK(grKernelDestroy(k));
}

static void slow_bump(void *p)
{
    usleep(20000);
    atomic_fetch_add((atomic_int *)p, 1);
}

GR_TEST(stream_synchronize_waits_for_all_queued_work)
{
    static atomic_int n;
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    for (int i = 0; i < 5; i++)
        CHECK_OK(grLaunchHostFunc(s, slow_bump, &n));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&n), 5);
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grStreamDestroy(s));
}

/* A host function that blocks until its gate opens (5 s at most) and notes
 * whether it ran on the test's main thread. */
static atomic_int gate_timeouts;
static pthread_t main_thread;
static atomic_int ran_on_main;
static void gated_note_thread(void *p)
{
    atomic_int *g = p;
    if (pthread_equal(pthread_self(), main_thread))
        atomic_store(&ran_on_main, 1);
    for (int waited = 0; !atomic_load(g); waited++) {
        if (waited > 5000) {
            atomic_fetch_add(&gate_timeouts, 1);
            return;
        }
        usleep(1000);
    }
}

static void sleep_100ms(void *p)
{
    (void)p;
    usleep(100000);
}

GR_TEST(stream_synchronize_does_not_run_other_streams_host_functions)
{
    static atomic_int hgate, n;
    grStream_t busy, a, b;
    setenv("GRAPHRT_WORKERS", "1", 1);
    main_thread = pthread_self();
    CHECK_OK(grStreamCreateWithFlags(&busy, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    /* Keep the only worker busy for a while. */
    CHECK_OK(grLaunchHostFunc(busy, sleep_100ms, NULL));
    usleep(20000);
    /* a's host function waits for something the main thread does only
     * after b is synchronised: legal in CUDA, where host functions never
     * run on the thread that synchronises. */
    CHECK_OK(grLaunchHostFunc(a, gated_note_thread, &hgate));
    CHECK_OK(grLaunchHostFunc(b, slow_bump, &n));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_EQ(atomic_load(&n), 1);
    /* Synchronising b did not run a's host function on this thread. Once
     * the gate is open, waiting for everything may run it here: the thread
     * waits for it anyway. */
    CHECK_EQ(atomic_load(&ran_on_main), 0);
    atomic_store(&hgate, 1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grStreamDestroy(busy));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
}

/* --------------------------------------------------------------- bad input */

GR_TEST(stream_create_refuses_bad_flags_and_null_output)
{
    grStream_t s = (grStream_t)(void *)0x1234;
    CHECK_REFUSED(grErrorInvalidValue, grStreamCreateWithFlags, &s, 0x2u);
    CHECK_REFUSED(grErrorInvalidValue, grStreamCreateWithFlags, &s, 0x80000001u);
    CHECK_PTR_EQ(s, (grStream_t)(void *)0x1234);
    CHECK_REFUSED(grErrorInvalidValue, grStreamCreateWithFlags, NULL, grStreamNonBlocking);
    CHECK_REFUSED(grErrorInvalidValue, grStreamCreate, NULL);
}

GR_TEST(stream_get_flags_reports_the_creation_flags)
{
    grStream_t a, b;
    unsigned f = 99;
    CHECK_OK(grStreamCreate(&a));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grStreamGetFlags(a, &f));
    CHECK_EQ(f, grStreamDefault);
    CHECK_OK(grStreamGetFlags(b, &f));
    CHECK_EQ(f, grStreamNonBlocking);
    CHECK_OK(grStreamGetFlags(NULL, &f));
    CHECK_EQ(f, grStreamDefault);
    CHECK_REFUSED(grErrorInvalidValue, grStreamGetFlags, a, NULL);
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
}

GR_TEST(launch_host_func_refuses_a_null_function)
{
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_REFUSED(grErrorInvalidValue, grLaunchHostFunc, s, NULL, NULL);
    CHECK_OK(grStreamQuery(s));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(foreign_stream_handles_are_refused)
{
    static _Alignas(64) unsigned char fake[1024]; /* zeroed memory that is no stream */
    static atomic_int n;
    grStream_t s = (grStream_t)(void *)fake;
    grEvent_t e;
    unsigned f;
    CHECK_OK(grEventCreate(&e));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grLaunchHostFunc, s, slow_bump, &n);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamSynchronize, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamQuery, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamDestroy, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamGetFlags, s, &f);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventRecord, e, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamWaitEvent, s, e, 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&n), 0);
    CHECK_OK(grEventDestroy(e));
}

GR_TEST(destroyed_stream_is_refused_while_its_work_is_in_flight)
{
    static atomic_int hgate, n;
    grStream_t s;
    grEvent_t e;
    unsigned f;
    setenv("GRAPHRT_WORKERS", "2", 1);
    main_thread = pthread_self();
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grLaunchHostFunc(s, gated_note_thread, &hgate));
    CHECK_OK(grStreamDestroy(s)); /* the queued work keeps its memory */
    CHECK_REFUSED(grErrorInvalidResourceHandle, grLaunchHostFunc, s, slow_bump, &n);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamQuery, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamSynchronize, s);
    CHECK_GR(grErrorInvalidResourceHandle, grStreamGetFlags(s, &f));
    CHECK_REFUSED(grErrorInvalidResourceHandle, grEventRecord, e, s);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamWaitEvent, s, e, 0);
    CHECK_REFUSED(grErrorInvalidResourceHandle, grStreamDestroy, s);
    atomic_store(&hgate, 1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&n), 0);
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
    CHECK_OK(grEventDestroy(e));
}

static atomic_int dk_calls;
static void dk_kernel(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    atomic_fetch_add(&dk_calls, *(int *)args[0]);
}

GR_TEST(stream_event_and_kernel_destroyed_with_launches_queued_are_safe)
{
    static atomic_int hgate;
    size_t sizes[1] = {sizeof(int)};
    int three = 3;
    void *args[1] = {&three};
    grStream_t s;
    grEvent_t e;
    grKernel_t k;
    setenv("GRAPHRT_WORKERS", "2", 1);
    main_thread = pthread_self();
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grKernelCreate(&k, dk_kernel, "dk_kernel", 1, sizes));
    CHECK_OK(grLaunchHostFunc(s, gated_note_thread, &hgate));
    for (int i = 0; i < 100; i++)
        CHECK_OK(grLaunchKernel(k, GR_DIM3(5, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grEventRecord(e, s));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grEventDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_EQ(atomic_load(&dk_calls), 0);
    atomic_store(&hgate, 1);
    for (int i = 0; i < 5000 && atomic_load(&dk_calls) < 1500; i++)
        usleep(1000);
    CHECK_EQ(atomic_load(&dk_calls), 1500);
    CHECK_EQ(atomic_load(&gate_timeouts), 0);
}
