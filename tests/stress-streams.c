/*
 * stress-streams.c - many threads issuing to many streams at once, with
 * kernels, host functions, cross-stream event waits, the legacy stream and
 * the per-thread stream mixed. Seeded (GRAPHRT_STRESS_SEED), smaller under
 * ThreadSanitizer; not a benchmark.
 *
 * What is checked: every operation carries what must have completed before
 * it runs, counted per issuing thread (whose issue order is defined):
 *   - its own predecessor on the same stream from the same thread (FIFO);
 *   - for an op after grStreamWaitEvent: the thread's ops on the recorded
 *     stream up to the record;
 *   - for a legacy-stream op: the thread's earlier ops on every blocking
 *     stream and its per-thread stream;
 *   - for an op on a blocking or per-thread stream: the thread's earlier
 *     legacy-stream ops.
 * After grStreamSynchronize / grEventSynchronize the thread checks that
 * what they cover has completed.
 */
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GR_STRESS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define GR_STRESS_TSAN 1
#endif
#ifdef GR_STRESS_TSAN
#define OPS_PER_THREAD 1500
#else
#define OPS_PER_THREAD 20000
#endif

#define NTHREADS 8
#define NSTREAMS 16       /* even: blocking, odd: non-blocking */
#define LEG NSTREAMS      /* index of the legacy stream */
#define PT (NSTREAMS + 1) /* index of the thread's per-thread stream */
#define NQ (NSTREAMS + 2)
#define NEVENTS 4

static grStream_t streams[NSTREAMS];
static grKernel_t kern;
static atomic_int done_cnt[NTHREADS][NQ];
static atomic_int failures;
static atomic_int progress;
static unsigned long long seed;
/* 0: independent streams (no event waits, no legacy-stream work, so no
 * stream ever waits for another); 1: everything mixed. */
static int with_waits;

static int is_blocking(int q)
{
    return q == PT || (q < NSTREAMS && q % 2 == 0);
}

typedef struct op {
    int t, q, seq;      /* thread, queue, index among t's ops on q */
    int need_q, need_n; /* done_cnt[t][need_q] >= need_n (event wait) */
    int need_leg;       /* done_cnt[t][LEG] >= need_leg (blocking q) */
    int need_all[NQ];   /* legacy ops: every blocking queue */
    int nblocks;
    atomic_int blocks_done;
} op;

static void fail(const char *what, const op *o)
{
    if (atomic_fetch_add(&failures, 1) < 5)
        fprintf(stderr, "  seed %llu: %s (thread %d, queue %d, seq %d)\n", seed, what, o->t, o->q, o->seq);
}

static void check_and_complete(op *o)
{
    if (atomic_load(&done_cnt[o->t][o->q]) != o->seq)
        fail("stream order broken", o);
    if (o->need_n && atomic_load(&done_cnt[o->t][o->need_q]) < o->need_n)
        fail("event wait did not order the work", o);
    if (o->need_leg && atomic_load(&done_cnt[o->t][LEG]) < o->need_leg)
        fail("blocking stream did not wait for the legacy stream", o);
    if (o->q == LEG)
        for (int k = 0; k < NQ; k++)
            if (o->need_all[k] && atomic_load(&done_cnt[o->t][k]) < o->need_all[k])
                fail("legacy stream did not wait for a blocking stream", o);
    atomic_fetch_add(&done_cnt[o->t][o->q], 1);
    atomic_fetch_add(&progress, 1);
}

static void host_op(void *p)
{
    check_and_complete(p);
}

static void kernel_op(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    op *o = *(op **)args[0];
    if (atomic_fetch_add(&o->blocks_done, 1) + 1 == o->nblocks)
        check_and_complete(o);
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct thread_ctx {
    int t;
    op *ops;
    grEvent_t ev[NEVENTS];
    int ev_q[NEVENTS], ev_n[NEVENTS]; /* what each event's latest record covers */
} thread_ctx;

static grStream_t handle_of(int q)
{
    return q == LEG ? NULL : q == PT ? grStreamPerThread : streams[q];
}

static void *issuer(void *arg)
{
    thread_ctx *c = arg;
    const int t = c->t;
    int issued[NQ] = {0};
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)t * 7919u + 1u;
    for (int k = 0; k < NEVENTS; k++) {
        if (grEventCreateWithFlags(&c->ev[k], k % 2 ? grEventDisableTiming : grEventDefault) != grSuccess)
            atomic_fetch_add(&failures, 1);
        c->ev_q[k] = -1;
    }
    for (int i = 0; i < OPS_PER_THREAD; i++) {
        unsigned r = (unsigned)(next_rand(&rng) % 100u);
        int q = (int)(next_rand(&rng) % NSTREAMS);
        op *o = &c->ops[i];
        memset(o, 0, sizeof *o);
        o->t = t;
        if (!with_waits && r >= 70 && r < 90) {
            /* Plain work on q, then a record of it for grEventSynchronize. */
            int k = (int)(next_rand(&rng) % NEVENTS);
            o->q = q;
            o->seq = issued[q]++;
            if (grLaunchHostFunc(streams[q], host_op, o) != grSuccess ||
                grEventRecord(c->ev[k], streams[q]) != grSuccess)
                fail("grLaunchHostFunc or grEventRecord refused", o);
            c->ev_q[k] = q;
            c->ev_n[k] = issued[q];
            continue;
        }
        if (r >= 86 && r < 90) {
            q = LEG;
        } else if (r >= 90 && r < 93) {
            q = PT;
        } else if (r >= 93) {
            /* Synchronising and querying calls. */
            int k = (int)(next_rand(&rng) % NEVENTS);
            if (r < 96) {
                if (grStreamSynchronize(streams[q]) != grSuccess || atomic_load(&done_cnt[t][q]) < issued[q])
                    fail("grStreamSynchronize returned before the work was done", o);
            } else if (r < 98) {
                grError_t e = grStreamQuery(streams[q]);
                if (e != grSuccess && e != grErrorNotReady)
                    fail("grStreamQuery failed", o);
            } else if (c->ev_q[k] >= 0) {
                if (grEventSynchronize(c->ev[k]) != grSuccess ||
                    atomic_load(&done_cnt[t][c->ev_q[k]]) < c->ev_n[k])
                    fail("grEventSynchronize returned before the record completed", o);
            }
            continue;
        }
        o->q = q;
        o->seq = issued[q];
        if (is_blocking(q))
            o->need_leg = issued[LEG];
        if (q == LEG)
            for (int k = 0; k < NQ; k++)
                if (is_blocking(k))
                    o->need_all[k] = issued[k];
        if (r >= 70 && r < 86 && q < NSTREAMS) {
            /* Record an event on another stream and wait for it here. */
            int k = (int)(next_rand(&rng) % NEVENTS);
            int src = (int)(next_rand(&rng) % NSTREAMS);
            if (grEventRecord(c->ev[k], streams[src]) != grSuccess ||
                grStreamWaitEvent(streams[q], c->ev[k], 0) != grSuccess)
                fail("record or wait refused", o);
            c->ev_q[k] = src;
            c->ev_n[k] = issued[src];
            o->need_q = src;
            o->need_n = issued[src];
        }
        issued[q]++;
        if (r < 20) {
            op *po = o;
            void *args[1] = {&po};
            o->nblocks = 1 + (int)(next_rand(&rng) % 6u);
            if (grLaunchKernel(kern, GR_DIM3((unsigned)o->nblocks, 1, 1), GR_DIM3(1, 1, 1), args, 0,
                               handle_of(q)) != grSuccess)
                fail("grLaunchKernel refused", o);
        } else if (grLaunchHostFunc(handle_of(q), host_op, o) != grSuccess) {
            fail("grLaunchHostFunc refused", o);
        }
    }
    if (grStreamSynchronize(grStreamPerThread) != grSuccess || atomic_load(&done_cnt[t][PT]) != issued[PT])
        atomic_fetch_add(&failures, 1);
    /* Wait for this thread's work everywhere, so that the per-thread
     * stream is idle when the thread exits. */
    for (int q = 0; q < NSTREAMS; q++)
        if (grStreamSynchronize(streams[q]) != grSuccess || atomic_load(&done_cnt[t][q]) != issued[q])
            atomic_fetch_add(&failures, 1);
    if (grStreamSynchronize(NULL) != grSuccess || atomic_load(&done_cnt[t][LEG]) != issued[LEG])
        atomic_fetch_add(&failures, 1);
    for (int k = 0; k < NEVENTS; k++)
        if (grEventDestroy(c->ev[k]) != grSuccess)
            atomic_fetch_add(&failures, 1);
    return NULL;
}

/* Joins the issuers; fails if the whole runtime makes no progress for
 * 10 s (a deadlock) instead of waiting for the runner's kill. */
static void join_all(pthread_t *th)
{
    for (int t = 0; t < NTHREADS; t++) {
        int last = -1, still = 0;
        for (;;) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            if (pthread_timedjoin_np(th[t], NULL, &ts) == 0)
                break;
            int now = atomic_load(&progress);
            still = now == last ? still + 1 : 0;
            last = now;
            if (still >= 10)
                GR_TEST_FAIL_("seed %llu: no operation completed for 10 s (%d done): deadlock", seed, now);
        }
    }
}

static void run_stream_stress(const char *workers, int waits)
{
    static thread_ctx ctx[NTHREADS];
    pthread_t th[NTHREADS];
    size_t sizes[1] = {sizeof(op *)};
    const char *env = getenv("GRAPHRT_STRESS_SEED");
    seed = env ? strtoull(env, NULL, 10) : 20240601ull;
    with_waits = waits;
    setenv("GRAPHRT_WORKERS", workers, 1);
    CHECK_OK(grKernelCreate(&kern, kernel_op, "stress_kernel", 1, sizes));
    for (int q = 0; q < NSTREAMS; q++)
        CHECK_OK(grStreamCreateWithFlags(&streams[q], q % 2 ? grStreamNonBlocking : grStreamDefault));
    for (int t = 0; t < NTHREADS; t++) {
        ctx[t].t = t;
        ctx[t].ops = calloc(OPS_PER_THREAD, sizeof(op));
        CHECK(ctx[t].ops != NULL);
        CHECK_EQ(pthread_create(&th[t], NULL, issuer, &ctx[t]), 0);
    }
    join_all(th);
    CHECK_OK(grDeviceSynchronize());
    if (atomic_load(&failures))
        GR_TEST_FAIL_("seed %llu: %d failed checks", seed, atomic_load(&failures));
    for (int q = 0; q < NSTREAMS; q++)
        CHECK_OK(grStreamDestroy(streams[q]));
    CHECK_OK(grKernelDestroy(kern));
    for (int t = 0; t < NTHREADS; t++)
        free(ctx[t].ops);
}

GR_TEST_T(stress_independent_streams_eight_threads_one_worker, 120)
{
    run_stream_stress("1", 0);
}

GR_TEST_T(stress_independent_streams_eight_threads_four_workers, 120)
{
    run_stream_stress("4", 0);
}

GR_TEST_T(stress_cross_stream_waits_eight_threads_one_worker, 120)
{
    run_stream_stress("1", 1);
}

GR_TEST_T(stress_cross_stream_waits_eight_threads_two_workers, 120)
{
    run_stream_stress("2", 1);
}

GR_TEST_T(stress_cross_stream_waits_eight_threads_four_workers, 120)
{
    run_stream_stress("4", 1);
}
