/*
 * soak.c - many threads, each with its own streams, issuing eager work,
 * captures, instantiations, launches, updates, setters, stream-ordered
 * allocations and graph memory for a set time, and launching executables
 * shared between all threads while others change their parameters. Every
 * result is checked; the run prints the operations done per kind and the
 * failures, which must be 0 (the exit status says so). Seeded. Not a
 * benchmark and not part of the suite: `make soak` runs it in Release,
 * `make soak-tsan` under ThreadSanitizer (see docs/fuzzing.md).
 *
 * Usage: graphrt_soak [--seconds N] [--threads N] [--seed N] [--quiet]
 */
#include "graphrt.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    OP_EAGER,
    OP_CAPTURE,
    OP_UPDATE,
    OP_SHARED,
    OP_POOL,
    OP_GRAPHMEM,
    OP_KINDS
};
static const char *op_names[OP_KINDS] = {"eager", "capture", "update", "shared", "pool", "graphmem"};

static atomic_ullong ops[OP_KINDS];
static atomic_ullong api_calls;
static atomic_ullong failures;
static atomic_int stop;
static bool quiet;

#define NSHARED 4
#define BUF 64 /* ints per buffer */

static grKernel_t add_k, pair_k, fill_k;
static grGraphExec_t shared_exec[NSHARED];
static grGraphNode_t shared_node[NSHARED];
static atomic_llong shared_calls;
static atomic_llong torn;

static void fail_at(int line, const char *what, grError_t e)
{
    unsigned long long n = atomic_fetch_add(&failures, 1);
    if (n < 20)
        fprintf(stderr, "soak: line %d: %s: %s (%s)\n", line, what, grGetErrorName(e),
                grGetLastErrorDetail());
}

/* Every call goes through here: counted, and any error is a failure. */
#define OK(call)                                                        \
    do {                                                                \
        grError_t e_ = (call);                                          \
        atomic_fetch_add_explicit(&api_calls, 1, memory_order_relaxed); \
        if (e_ != grSuccess)                                            \
            fail_at(__LINE__, #call, e_);                               \
    } while (0)
#define EXPECT(cond)                                              \
    do {                                                          \
        if (!(cond))                                              \
            fail_at(__LINE__, "check failed: " #cond, grSuccess); \
    } while (0)

/* p[blockIdx.x] += v */
static void soak_add_fn(const grKernelCtx *c, void **a)
{
    int *p = *(int **)a[0];
    int v = *(int *)a[1];
    p[c->blockIdx.x] += v;
}

/* Two values every setter makes equal. */
static void pair_fn(const grKernelCtx *c, void **a)
{
    (void)c;
    if (*(long *)a[0] != *(long *)a[1])
        atomic_fetch_add(&torn, 1);
    atomic_fetch_add(&shared_calls, 1);
}

/* p[0..n) = v, then checks it (graph memory and pool blocks) */
static void fill_fn(const grKernelCtx *c, void **a)
{
    (void)c;
    int *p = *(int **)a[0];
    int v = *(int *)a[1];
    for (int i = 0; i < BUF; i++)
        p[i] = v;
    for (int i = 0; i < BUF; i++)
        if (p[i] != v)
            atomic_fetch_add(&torn, 1);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

typedef struct thread_ctx {
    int id;
    uint64_t rng;
    grStream_t s[2];
    grEvent_t ev;
    int *buf; /* BUF ints, owned by this thread */
} thread_ctx;

static void launch_add(grStream_t s, int *p, int v, unsigned blocks)
{
    void *args[2] = {&p, &v};
    OK(grLaunchKernel(add_k, GR_DIM3(blocks, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
}

/* Two streams, kernels on both, ordered by an event: the totals follow. */
static void op_eager(thread_ctx *t)
{
    memset(t->buf, 0, BUF * sizeof(int));
    int n = 1 + (int)(rng_next(&t->rng) % 8);
    for (int i = 0; i < n; i++)
        launch_add(t->s[0], t->buf, 1, 4);
    OK(grEventRecord(t->ev, t->s[0]));
    OK(grStreamWaitEvent(t->s[1], t->ev, 0));
    launch_add(t->s[1], t->buf, 100, 4); /* after the first stream's n */
    OK(grStreamSynchronize(t->s[1]));
    for (int b = 0; b < 4; b++)
        EXPECT(t->buf[b] == n + 100);
}

/* Captures a fork-join of kernels adding 1 (origin) and 10 (forked). */
static grGraph_t capture_fork(thread_ctx *t, int add_origin, int add_fork)
{
    /* Not Global: a global capture makes other threads' synchronising
     * calls fail, as in CUDA, and these threads synchronise all along. */
    static const grStreamCaptureMode modes[2] = {grStreamCaptureModeThreadLocal, grStreamCaptureModeRelaxed};
    grGraph_t g = NULL;
    OK(grStreamBeginCapture(t->s[0], modes[rng_next(&t->rng) % 2]));
    OK(grEventRecord(t->ev, t->s[0]));
    OK(grStreamWaitEvent(t->s[1], t->ev, 0));
    launch_add(t->s[0], t->buf, add_origin, 2);
    launch_add(t->s[1], t->buf + 8, add_fork, 2);
    OK(grEventRecord(t->ev, t->s[1]));
    OK(grStreamWaitEvent(t->s[0], t->ev, 0));
    OK(grStreamEndCapture(t->s[0], &g));
    return g;
}

static void op_capture(thread_ctx *t)
{
    memset(t->buf, 0, BUF * sizeof(int));
    grGraph_t g = capture_fork(t, 1, 10);
    if (!g)
        return;
    size_t nn = 0;
    OK(grGraphGetNodes(g, NULL, &nn));
    EXPECT(nn == 2);
    grGraphExec_t x;
    OK(grGraphInstantiate(&x, g, 0));
    int k = 1 + (int)(rng_next(&t->rng) % 5);
    for (int i = 0; i < k; i++)
        OK(grGraphLaunch(x, t->s[i & 1]));
    OK(grStreamSynchronize(t->s[0]));
    OK(grStreamSynchronize(t->s[1]));
    EXPECT(t->buf[0] == k && t->buf[1] == k && t->buf[8] == 10 * k && t->buf[9] == 10 * k);
    OK(grGraphExecDestroy(x));
    OK(grGraphDestroy(g));
}

/* The same capture with other values, applied with grGraphExecUpdate. */
static void op_update(thread_ctx *t)
{
    memset(t->buf, 0, BUF * sizeof(int));
    grGraph_t g1 = capture_fork(t, 1, 10), g2 = capture_fork(t, 2, 20);
    if (!g1 || !g2)
        return;
    grGraphExec_t x;
    grGraphExecUpdateResultInfo info;
    OK(grGraphInstantiate(&x, g1, 0));
    OK(grGraphLaunch(x, t->s[0]));
    OK(grGraphExecUpdate(x, g2, &info));
    OK(grGraphLaunch(x, t->s[0]));
    OK(grStreamSynchronize(t->s[0]));
    EXPECT(t->buf[0] == 3 && t->buf[8] == 30);
    OK(grGraphExecDestroy(x));
    OK(grGraphDestroy(g1));
    OK(grGraphDestroy(g2));
}

/* Launches a shared executable and sets another's parameters. */
static void op_shared(thread_ctx *t)
{
    int i = (int)(rng_next(&t->rng) % NSHARED);
    OK(grGraphLaunch(shared_exec[i], t->s[0]));
    long v = (long)rng_next(&t->rng);
    void *args[2] = {&v, &v};
    grKernelNodeParams kp = {pair_k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    OK(grGraphExecKernelNodeSetParams(shared_exec[(i + 1) % NSHARED], shared_node[(i + 1) % NSHARED], &kp));
    if (rng_next(&t->rng) % 4 == 0)
        OK(grStreamSynchronize(t->s[0]));
}

/* Stream-ordered blocks written and checked by kernels, freed in order. */
static void op_pool(thread_ctx *t)
{
    int *p[3];
    for (int i = 0; i < 3; i++) {
        OK(grMallocAsync((void **)&p[i], BUF * sizeof(int), t->s[i & 1]));
        int v = t->id * 1000 + i;
        void *args[2] = {&p[i], &v};
        OK(grLaunchKernel(fill_k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, t->s[i & 1]));
    }
    OK(grEventRecord(t->ev, t->s[1]));
    OK(grStreamWaitEvent(t->s[0], t->ev, 0));
    for (int i = 0; i < 3; i++)
        OK(grFreeAsync(p[i], t->s[0]));
    if (rng_next(&t->rng) % 2)
        OK(grStreamSynchronize(t->s[0]));
}

/* A graph that allocates, fills and frees graph memory. */
static void op_graphmem(thread_ctx *t)
{
    grGraph_t g;
    grGraphNode_t a, k, f;
    grMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = grMemAllocationTypePinned;
    ap.poolProps.location.type = grMemLocationTypeDevice;
    ap.bytesize = BUF * sizeof(int);
    OK(grGraphCreate(&g, 0));
    OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    int v = t->id;
    void *args[2] = {&ap.dptr, &v};
    grKernelNodeParams kp = {fill_k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    OK(grGraphAddKernelNode(&k, g, &a, 1, &kp));
    OK(grGraphAddMemFreeNode(&f, g, &k, 1, ap.dptr));
    grGraphExec_t x;
    OK(grGraphInstantiate(&x, g, 0));
    for (int i = 0; i < 3; i++)
        OK(grGraphLaunch(x, t->s[0]));
    OK(grStreamSynchronize(t->s[0]));
    OK(grGraphExecDestroy(x));
    OK(grGraphDestroy(g));
}

static void *soak_thread_main(void *p)
{
    thread_ctx *t = p;
    OK(grStreamCreateWithFlags(&t->s[0], grStreamNonBlocking));
    OK(grStreamCreate(&t->s[1]));
    OK(grEventCreate(&t->ev));
    t->buf = calloc(BUF, sizeof(int));
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        int op = (int)(rng_next(&t->rng) % OP_KINDS);
        switch (op) {
        case OP_EAGER:
            op_eager(t);
            break;
        case OP_CAPTURE:
            op_capture(t);
            break;
        case OP_UPDATE:
            op_update(t);
            break;
        case OP_SHARED:
            op_shared(t);
            break;
        case OP_POOL:
            op_pool(t);
            break;
        default:
            op_graphmem(t);
            break;
        }
        atomic_fetch_add_explicit(&ops[op], 1, memory_order_relaxed);
    }
    OK(grStreamSynchronize(t->s[0]));
    OK(grStreamSynchronize(t->s[1]));
    OK(grStreamDestroy(t->s[0]));
    OK(grStreamDestroy(t->s[1]));
    OK(grEventDestroy(t->ev));
    free(t->buf);
    return NULL;
}

static void setup(void)
{
    size_t s2[2] = {sizeof(int *), sizeof(int)}, sl[2] = {sizeof(long), sizeof(long)};
    OK(grKernelCreate(&add_k, soak_add_fn, "soak_add", 2, s2));
    OK(grKernelCreate(&pair_k, pair_fn, "soak_pair", 2, sl));
    OK(grKernelCreate(&fill_k, fill_fn, "soak_fill", 2, s2));
    for (int i = 0; i < NSHARED; i++) {
        grGraph_t g;
        long v = 0;
        void *args[2] = {&v, &v};
        grKernelNodeParams kp = {pair_k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
        OK(grGraphCreate(&g, 0));
        OK(grGraphAddKernelNode(&shared_node[i], g, NULL, 0, &kp));
        OK(grGraphInstantiate(&shared_exec[i], g, 0));
        OK(grGraphDestroy(g));
    }
}

static void teardown(void)
{
    OK(grDeviceSynchronize());
    for (int i = 0; i < NSHARED; i++)
        OK(grGraphExecDestroy(shared_exec[i]));
    OK(grKernelDestroy(add_k));
    OK(grKernelDestroy(pair_k));
    OK(grKernelDestroy(fill_k));
    OK(grDeviceGraphMemTrim(0));
    uint64_t used = 1;
    OK(grDeviceGetGraphMemAttribute(0, grGraphMemAttrUsedMemCurrent, &used));
    EXPECT(used == 0);
    EXPECT(atomic_load(&torn) == 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void report(double elapsed, int final)
{
    unsigned long long total = 0;
    printf("%s%.0f s:", final ? "soak done after " : "soak ", elapsed);
    for (int i = 0; i < OP_KINDS; i++) {
        unsigned long long n = atomic_load(&ops[i]);
        total += n;
        printf(" %s %llu", op_names[i], n);
    }
    printf("; operations %llu, API calls %llu, shared kernel calls %lld, failures %llu\n", total,
           (unsigned long long)atomic_load(&api_calls), (long long)atomic_load(&shared_calls),
           (unsigned long long)atomic_load(&failures));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    double seconds = 60;
    int nthreads = 8;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quiet"))
            quiet = true;
        else {
            fprintf(stderr, "usage: %s [--seconds N] [--threads N] [--seed N] [--quiet]\n", argv[0]);
            return 2;
        }
    }
    if (nthreads < 1 || nthreads > 256 || seconds <= 0) {
        fprintf(stderr, "soak: --threads must be 1..256 and --seconds > 0\n");
        return 2;
    }
    int workers = 0;
    grDeviceGetAttribute(&workers, grDevAttrMultiProcessorCount, 0);
    printf("soak: %d threads, %d workers, %.0f s, seed %" PRIu64 "\n", nthreads, workers, seconds, seed);
    setup();
    thread_ctx *t = calloc((size_t)nthreads, sizeof *t);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    if (!t || !th)
        return 2;
    double t0 = now_s(), next = t0 + 60;
    for (int i = 0; i < nthreads; i++) {
        t[i].id = i;
        t[i].rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull + 1;
        pthread_create(&th[i], NULL, soak_thread_main, &t[i]);
    }
    while (now_s() - t0 < seconds) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        if (!quiet && now_s() >= next) {
            report(now_s() - t0, 0);
            next += 60;
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    teardown();
    report(now_s() - t0, 1);
    free(t);
    free(th);
    return atomic_load(&failures) ? 1 : 0;
}
