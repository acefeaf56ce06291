/*
 * bench_mempool.c - the cost of stream-ordered allocation: a grMallocAsync
 * + grFreeAsync pair on one stream, against glibc malloc + free and
 * grMalloc + grFree of the same size. Phases are timed apart; the first
 * pair (which takes memory from the OS) is excluded; the pool and malloc
 * figures are medians of rounds that alternate between the two.
 *
 * Graph memory: a chain of kernels each working on its own temporary, with
 * alloc/free nodes around every kernel, replayed against the same chain
 * over fixed buffers: the difference per replay and per memory node, and
 * the calls into the system allocator per replay (malloc and friends are
 * interposed below and counted while that phase runs). Then the footprint
 * of a chain of 100 temporaries of which at most 4 are live at once.
 *
 * Usage: bench_mempool [workers] [--quick] [--csv] [--json FILE]
 * Output: the machine and parameters, then tables of the figures; with
 * --csv, lines
 *   fig,workers,name,shape,param,value,unit
 */
#include "bench_util.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Counting interposers over glibc's allocator: every call the library (or
 * its workers) makes into malloc and friends in this process while
 * 'counting' is set, which it is only around the graph-memory phase. The
 * flag is a relaxed load (a plain load on x86) and the count is taken only
 * when it is set, so the malloc + free column of the pair table pays one
 * predictable branch, not a locked increment, per call: the glibc figure
 * it prints is glibc's own cost. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
static atomic_bool counting;
static atomic_ulong alloc_calls;

static inline void count_call(void)
{
    if (__builtin_expect(atomic_load_explicit(&counting, memory_order_relaxed), 0))
        atomic_fetch_add_explicit(&alloc_calls, 1, memory_order_relaxed);
}

void *malloc(size_t n)
{
    count_call();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    count_call();
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    count_call();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    if (p)
        count_call();
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    count_call();
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    count_call();
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    count_call();
    return __libc_memalign(align, n);
}

static bu_figures g_figs;

/* touch(int *p): p[0] = 1. */
static void touch_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (*(int **)args[0])[0] = 1;
}

/* step(const int *src, int *dst, int n): dst[i] = src ? src[i] + 1 : 0. */
static void step_fn(const grKernelCtx *ctx, void **args)
{
    const int *src = *(const int **)args[0];
    int *dst = *(int **)args[1], n = *(int *)args[2];
    (void)ctx;
    for (int i = 0; i < n; i++)
        dst[i] = src ? src[i] + 1 : 0;
}

static grGraphNode_t add_kernel(grGraph_t g, grGraphNode_t dep, grKernel_t k, void **args)
{
    grGraphNode_t n;
    grKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = k;
    kp.gridDim.x = kp.gridDim.y = kp.gridDim.z = 1;
    kp.blockDim = kp.gridDim;
    kp.kernelParams = args;
    BU_CHECK(grGraphAddKernelNode(&n, g, dep ? &dep : NULL, dep ? 1 : 0, &kp));
    return n;
}

static grGraphNode_t add_alloc(grGraph_t g, grGraphNode_t dep, size_t bytes, void **out)
{
    grGraphNode_t n;
    grMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = grMemAllocationTypePinned;
    ap.poolProps.location.type = grMemLocationTypeDevice;
    ap.bytesize = bytes;
    BU_CHECK(grGraphAddMemAllocNode(&n, g, dep ? &dep : NULL, dep ? 1 : 0, &ap));
    *out = ap.dptr;
    return n;
}

/* A chain of 'n' touch kernels; with 'mem', each on a temporary that an
 * alloc node before it makes and a free node after it frees. */
static grGraph_t touch_chain(grKernel_t k, int n, bool mem, void **bufs)
{
    grGraph_t g;
    grGraphNode_t last = NULL;
    BU_CHECK(grGraphCreate(&g, 0));
    for (int i = 0; i < n; i++) {
        if (mem)
            last = add_alloc(g, last, 4096, &bufs[i]);
        void *args[1] = {&bufs[i]};
        last = add_kernel(g, last, k, args);
        if (mem)
            BU_CHECK(grGraphAddMemFreeNode(&last, g, &last, 1, bufs[i]));
    }
    return g;
}

/* Median over 'reps' of the time per replay of e, each rep 'per' launches
 * and one synchronisation; *calls gets the allocator calls per replay. */
static double replay_ns(grGraphExec_t e, grStream_t s, int reps, int per, double *calls)
{
    double v[64];
    unsigned long c0 = 0, c = 0;
    for (int w = 0; w < 50; w++)
        BU_CHECK(grGraphLaunch(e, s));
    BU_CHECK(grStreamSynchronize(s));
    for (int r = 0; r < reps; r++) {
        c0 = atomic_load(&alloc_calls);
        double t0 = (double)bu_now_ns();
        for (int k = 0; k < per; k++)
            BU_CHECK(grGraphLaunch(e, s));
        BU_CHECK(grStreamSynchronize(s));
        v[r] = ((double)bu_now_ns() - t0) / per;
        c += atomic_load(&alloc_calls) - c0;
    }
    *calls = (double)c / ((double)reps * per);
    qsort(v, (size_t)reps, sizeof v[0], bu_cmp_double);
    return v[reps / 2];
}

static void bench_graph_memory(void)
{
    enum {
        N = 64,
        TMP = 16384
    };
    grStream_t s;
    grKernel_t ktouch, kstep;
    size_t one = sizeof(int *), three[3] = {sizeof(int *), sizeof(int *), sizeof(int)};
    void *fixed[N], *tmp[N];
    /* Count from here to the end of the replays (workers included). */
    atomic_store(&counting, true);
    unsigned long build0 = atomic_load(&alloc_calls);
    BU_CHECK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    BU_CHECK(grKernelCreate(&ktouch, touch_fn, "bench_touch", 1, &one));
    BU_CHECK(grKernelCreate(&kstep, step_fn, "bench_step", 3, three));
    for (int i = 0; i < N; i++)
        BU_CHECK(grMalloc(&fixed[i], 4096));
    grGraph_t plain = touch_chain(ktouch, N, false, fixed);
    grGraph_t mem = touch_chain(ktouch, N, true, tmp);
    grGraphExec_t ep, em;
    BU_CHECK(grGraphInstantiate(&ep, plain, 0));
    BU_CHECK(grGraphInstantiate(&em, mem, 0));
    unsigned long build_calls = atomic_load(&alloc_calls) - build0;
    double cp, cm;
    double tp = replay_ns(ep, s, 15, 200, &cp);
    double tm = replay_ns(em, s, 15, 200, &cm);
    atomic_store(&counting, false);
    bu_section(&g_figs, "graph memory: a chain of 64 kernels, with and without an alloc/free node pair each");
    bu_fig(&g_figs, "replay_plain_ns", "replay without memory nodes", "chain", N, tp, "ns");
    bu_fig(&g_figs, "replay_plain_alloc_calls", "  system allocator calls per replay", "chain", N, cp,
           "calls");
    bu_fig(&g_figs, "replay_memnodes_ns", "replay with an alloc and a free node per kernel", "chain", N, tm,
           "ns");
    bu_fig(&g_figs, "replay_memnodes_alloc_calls", "  system allocator calls per replay", "chain", N, cm,
           "calls");
    bu_fig(&g_figs, "memnode_overhead_ns", "cost per memory node", "chain", N, (tm - tp) / (2 * N), "ns");
    /* Proof that the interposers see the library's calls. */
    bu_fig(&g_figs, "build_alloc_calls", "system allocator calls building and instantiating both", "chain", N,
           (double)build_calls, "calls");
    BU_CHECK(grGraphExecDestroy(ep));
    BU_CHECK(grGraphExecDestroy(em));
    BU_CHECK(grGraphDestroy(plain));
    BU_CHECK(grGraphDestroy(mem));
    for (int i = 0; i < N; i++)
        BU_CHECK(grFree(fixed[i]));

    /* 100 temporaries of 64 KiB, at most 4 live at once. */
    enum {
        T = 100
    };
    void *t[T], *none = NULL;
    int n = TMP;
    grGraph_t g;
    grGraphNode_t last = NULL;
    BU_CHECK(grGraphCreate(&g, 0));
    for (int i = 0; i < T; i++) {
        last = add_alloc(g, last, TMP * sizeof(int), &t[i]);
        void *args[3] = {i ? &t[i - 1] : &none, &t[i], &n};
        last = add_kernel(g, last, kstep, args);
        if (i >= 3)
            BU_CHECK(grGraphAddMemFreeNode(&last, g, &last, 1, t[i - 3]));
    }
    for (int i = T - 3; i < T; i++)
        BU_CHECK(grGraphAddMemFreeNode(&last, g, &last, 1, t[i]));
    grGraphExec_t e;
    uint64_t reserved = 0, used = 0;
    BU_CHECK(grGraphInstantiate(&e, g, 0));
    BU_CHECK(grGraphLaunch(e, s));
    BU_CHECK(grStreamSynchronize(s));
    BU_CHECK(grDeviceGetGraphMemAttribute(0, grGraphMemAttrReservedMemCurrent, &reserved));
    BU_CHECK(grDeviceGetGraphMemAttribute(0, grGraphMemAttrUsedMemCurrent, &used));
    bu_fig(&g_figs, "footprint_reserved_bytes", "100 temporaries of 64 KiB, at most 4 live: reserved",
           "chain", T, (double)reserved, "bytes");
    bu_fig(&g_figs, "footprint_used_bytes", "  of which used", "chain", T, (double)used, "bytes");
    bu_fig(&g_figs, "footprint_temporaries", "  reserved, in temporaries (the sum would be 100)", "chain", T,
           (double)reserved / (double)(TMP * sizeof(int)), "temporaries");
    BU_CHECK(grGraphExecDestroy(e));
    BU_CHECK(grGraphDestroy(g));
    BU_CHECK(grKernelDestroy(ktouch));
    BU_CHECK(grKernelDestroy(kstep));
    BU_CHECK(grStreamDestroy(s));
}

/* ns per grMallocAsync + grFreeAsync pair of n bytes on s, over iters. */
static double pool_pairs(size_t n, grStream_t s, int iters)
{
    void *p = NULL;
    volatile uintptr_t sink = 0;
    double t0 = (double)bu_now_ns();
    for (int k = 0; k < iters; k++) {
        BU_CHECK(grMallocAsync(&p, n, s));
        sink += (uintptr_t)p;
        BU_CHECK(grFreeAsync(p, s));
    }
    (void)sink;
    return ((double)bu_now_ns() - t0) / iters;
}

/* The same for malloc + free. */
static double malloc_pairs(size_t n, int iters)
{
    volatile uintptr_t sink = 0;
    double t0 = (double)bu_now_ns();
    for (int k = 0; k < iters; k++) {
        void *p = malloc(n);
        sink += (uintptr_t)p;
        free(p);
    }
    (void)sink;
    return ((double)bu_now_ns() - t0) / iters;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {64, 1024, 65536, 1 << 20};
    grStream_t s;
    grMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    bu_opts o = {0};
    bu_machine m;
    int workers;
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 1;
        }
    workers = bu_workers(o.workers);
    g_figs.workers = workers;
    g_figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_mempool", "stream-ordered allocation and graph memory nodes", &m, workers, &o);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    BU_CHECK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    BU_CHECK(grDeviceGetDefaultMemPool(&pool, 0));
    BU_CHECK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &keep));
    /* The pool and malloc loops alternate in REPS rounds and each column
     * prints its median round: a burst of load on the machine then
     * skews one round of each, not a whole column. */
    enum {
        REPS = 9
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        int iters = (n >= 65536 ? 20000 : 2000000) / REPS / (o.quick ? 4 : 1),
            gr_iters = o.quick ? 500 : 2000;
        char heading[96];
        double pool_v[REPS], malloc_v[REPS];
        void *p = NULL;
        volatile uintptr_t sink = 0;
        BU_CHECK(grMallocAsync(&p, n, s));
        BU_CHECK(grFreeAsync(p, s));
        for (int r = 0; r < REPS; r++) {
            pool_v[r] = pool_pairs(n, s, iters);
            malloc_v[r] = malloc_pairs(n, iters);
        }
        qsort(pool_v, REPS, sizeof pool_v[0], bu_cmp_double);
        qsort(malloc_v, REPS, sizeof malloc_v[0], bu_cmp_double);
        double pool_ns = pool_v[REPS / 2], malloc_ns = malloc_v[REPS / 2];
        double t0 = (double)bu_now_ns();
        for (int k = 0; k < gr_iters; k++) {
            BU_CHECK(grMalloc(&p, n));
            sink += (uintptr_t)p;
            BU_CHECK(grFree(p));
        }
        double grmalloc_ns = ((double)bu_now_ns() - t0) / gr_iters;
        snprintf(heading, sizeof heading, "an allocation and its free of %zu bytes, one after the other", n);
        bu_section(&g_figs, heading);
        bu_fig(&g_figs, "pool_pair_ns", "grMallocAsync + grFreeAsync on one stream (median)", "pair", (long)n,
               pool_ns, "ns");
        bu_fig(&g_figs, "malloc_pair_ns", "glibc malloc + free (median)", "pair", (long)n, malloc_ns, "ns");
        bu_fig(&g_figs, "grmalloc_pair_ns", "grMalloc + grFree", "pair", (long)n, grmalloc_ns, "ns");
        (void)sink;
    }
    BU_CHECK(grStreamSynchronize(s));
    BU_CHECK(grStreamDestroy(s));
    bench_graph_memory();
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_mempool", &m, workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &g_figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    return 0;
}
