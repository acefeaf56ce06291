/*
 * stress-graphmem.c - threads instantiating, launching, re-instantiating
 * and destroying graphs with memory nodes at once, some destroying an
 * executable while a stream still holds it, so that another thread's
 * instantiation reclaims its memory: no race on the executables' graph
 * memory records (ThreadSanitizer), every launch sees the memory it
 * allocated, and all graph memory is given back at the end. Seeded by
 * thread number; smaller under ThreadSanitizer. Not a benchmark.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GMEM_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define GMEM_TSAN 1
#endif
#ifdef GMEM_TSAN
#define ROUNDS 60
#else
#define ROUNDS 400
#endif
#define THREADS 4

static atomic_int bad;

/* Writes the thread's tag into the block it got, then checks it. */
static void tag_fn(const grKernelCtx *c, void **a)
{
    (void)c;
    int *p = *(int **)a[0];
    int tag = *(int *)a[1];
    p[0] = tag;
    p[15] = tag;
    if (p[0] != tag || p[15] != tag)
        atomic_fetch_add(&bad, 1);
}

static grKernel_t tag_kernel;

static grGraph_t alloc_graph(int tag, int with_free)
{
    grGraph_t g;
    grGraphNode_t a, k, f;
    grMemAllocNodeParams ap;
    ap = tl_alloc_params(0, 64 * sizeof(int));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    void *args[2] = {&ap.dptr, &tag};
    grKernelNodeParams kp = {tag_kernel, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, args, NULL};
    CHECK_OK(grGraphAddKernelNode(&k, g, &a, 1, &kp));
    if (with_free)
        CHECK_OK(grGraphAddMemFreeNode(&f, g, &k, 1, ap.dptr));
    return g;
}

static void *graphmem_worker(void *p)
{
    int id = (int)(intptr_t)p;
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (int r = 0; r < ROUNDS; r++) {
        grGraph_t g = alloc_graph(id * 100000 + r, 1);
        grGraphExec_t x;
        CHECK_OK(grGraphInstantiate(&x, g, 0));
        for (int l = 0; l < 3; l++)
            CHECK_OK(grGraphLaunch(x, s));
        if (r % 3 == 0) {
            /* Destroyed while queued: the stream keeps it; the next
             * instantiation of g takes its memory back. */
            CHECK_OK(grGraphExecDestroy(x));
            CHECK_OK(grGraphInstantiate(&x, g, 0));
            CHECK_OK(grGraphLaunch(x, s));
        }
        if (r % 5 == 0)
            CHECK_OK(grDeviceGraphMemTrim(0));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_OK(grGraphExecDestroy(x));
        CHECK_OK(grGraphDestroy(g));
    }
    CHECK_OK(grStreamDestroy(s));
    return NULL;
}

GR_TEST_T(graph_memory_instantiations_on_many_threads_do_not_race, 120)
{
    size_t sz[2] = {sizeof(int *), sizeof(int)};
    CHECK_OK(grKernelCreate(&tag_kernel, tag_fn, "gmem_tag", 2, sz));
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, graphmem_worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grDeviceGraphMemTrim(0));
    CHECK_EQ(atomic_load(&bad), 0);
    uint64_t used = ~0ull;
    CHECK_OK(grDeviceGetGraphMemAttribute(0, grGraphMemAttrUsedMemCurrent, &used));
    CHECK_EQ(used, 0);
    CHECK_OK(grKernelDestroy(tag_kernel));
}

static void graphmem_nop(const grKernelCtx *c, void **a)
{
    (void)c;
    (void)a;
}

/* One application thread: an executable with graph memory is destroyed
 * while its stream still holds it, the stream drops it when it reaches
 * the next launch (on a worker), and the graph is instantiated again at
 * once. The destroyed executable gave its allocations up, so the new
 * instantiation must never be refused as "an executable of it exists"
 * (it was, about once in 10,000, while a worker was between taking the
 * record off its list and clearing the allocations' owner). */
GR_TEST_T(graph_memory_reinstantiation_after_destroy_is_never_refused, 120)
{
    grGraph_t g, g2;
    grGraphNode_t na, nk;
    grGraphExec_t x, y;
    grStream_t s;
    grKernel_t k;
    grMemAllocNodeParams ap;
    int rounds = 50000;
#ifdef GMEM_TSAN
    rounds = 5000;
#endif
    CHECK_OK(grKernelCreate(&k, graphmem_nop, "graphmem_nop", 0, NULL));
    CHECK_OK(grStreamCreate(&s));
    ap = tl_alloc_params(0, 4096);
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddMemAllocNode(&na, g, NULL, 0, &ap));
    CHECK_OK(grGraphCreate(&g2, 0));
    grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 0, NULL, NULL};
    CHECK_OK(grGraphAddKernelNode(&nk, g2, NULL, 0, &kp));
    CHECK_OK(grGraphInstantiate(&y, g2, 0));
    for (int i = 0; i < rounds; i++) {
        CHECK_OK(grGraphInstantiate(&x, g, grGraphInstantiateFlagAutoFreeOnLaunch));
        CHECK_OK(grGraphLaunch(x, s));
        CHECK_OK(grGraphExecDestroy(x));
        CHECK_OK(grGraphLaunch(y, s)); /* the stream drops x when it gets here */
    }
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(y));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}
