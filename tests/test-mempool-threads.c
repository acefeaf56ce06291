/*
 * test-mempool-threads.c - stream-ordered pools across threads: a block
 * freed on another thread than the one that allocated it, double frees
 * across threads refused, and the per-thread caches of freed blocks
 * (reuse on the same thread, exact used-memory counters, trim,
 * synchronise, destroy and thread exit taking cached blocks back,
 * rebinding to another stream or pool, and poisoning under ASan).
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* ------------------------------------------------ frees across threads */

static void *free_on_thread(void *p)
{
    return (void *)(uintptr_t)grFreeAsync(p, NULL);
}

static void free_elsewhere(void *p)
{
    pthread_t th;
    void *rc = NULL;
    CHECK_EQ(pthread_create(&th, NULL, free_on_thread, p), 0);
    CHECK_EQ(pthread_join(th, &rc), 0);
    CHECK_EQ((uintptr_t)rc, (uintptr_t)grSuccess);
}

GR_TEST(mempool_free_by_another_thread_then_here_is_refused_as_double_free)
{
    void *p = NULL, *q = NULL, *r = NULL;
    CHECK_OK(grMallocAsync(&p, 700, NULL));
    free_elsewhere(p);
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, NULL));
    CHECK_DETAIL_HAS("freed already");
    CHECK_OK(grMallocAsync(&q, 700, NULL));
    CHECK_PTR_EQ(q, p); /* on the free list exactly once */
    CHECK_OK(grMallocAsync(&r, 700, NULL));
    CHECK(r != q);
    CHECK_OK(grFreeAsync(q, NULL));
    CHECK_OK(grFreeAsync(r, NULL));
    CHECK_OK(grDeviceSynchronize());
}

GR_TEST(mempool_free_after_another_thread_freed_and_memory_went_back_is_refused)
{
    void *p = NULL, *q = NULL;
    grMemPool_t dflt = NULL;
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    CHECK_OK(grMallocAsync(&p, 3000, NULL));
    free_elsewhere(p);
    /* Release threshold 0: the block goes back to the OS here. */
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(tl_pool_u64(dflt, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, NULL));
    CHECK_EQ(tl_pool_u64(dflt, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_OK(grMallocAsync(&q, 3000, NULL));
    CHECK_OK(grFreeAsync(q, NULL));
    CHECK_OK(grDeviceSynchronize());
}

GR_TEST(mempool_block_allocated_on_one_thread_is_freed_on_another)
{
    grMemPool_t dflt = NULL;
    void *p[4] = {NULL};
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    for (int i = 0; i < 4; i++)
        CHECK_OK(grMallocAsync(&p[i], 256u << i, NULL));
    free_elsewhere(p[1]);
    CHECK_OK(grFreeAsync(p[0], NULL));
    free_elsewhere(p[3]);
    CHECK_OK(grFreeAsync(p[2], NULL));
    CHECK_EQ(tl_pool_u64(dflt, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(tl_pool_u64(dflt, grMemPoolAttrReservedMemCurrent), 0);
}

/* ------------------------------------------------------- thread caches */

/* A thread that runs its steps one at a time, each when the main thread
 * allows it, and parks on a condition variable in between: the main
 * thread acts while it is alive and idle, and sees what it did (the mutex
 * orders the two). */
typedef struct parked {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int allowed, done;
    void (*step)(struct parked *, int);
    grMemPool_t pool;
    grStream_t s; /* a non-blocking stream parked_start makes */
    void *p[8];
    int failed;
    pthread_t th;
} parked;

static void *parked_main(void *arg)
{
    parked *k = arg;
    for (int i = 1;; i++) {
        pthread_mutex_lock(&k->mu);
        while (k->allowed >= 0 && k->allowed < i)
            pthread_cond_wait(&k->cv, &k->mu);
        int stop = k->allowed < 0;
        pthread_mutex_unlock(&k->mu);
        if (stop)
            return NULL;
        k->step(k, i);
        pthread_mutex_lock(&k->mu);
        k->done = i;
        pthread_cond_broadcast(&k->cv);
        pthread_mutex_unlock(&k->mu);
    }
}

static void parked_start(parked *k, void (*step)(parked *, int), grMemPool_t pool)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    k->step = step;
    k->pool = pool;
    k->s = tl_stream(grStreamNonBlocking);
    CHECK_EQ(pthread_create(&k->th, NULL, parked_main, k), 0);
}

/* Lets the thread run step i and waits until it has. */
static void parked_run(parked *k, int i)
{
    pthread_mutex_lock(&k->mu);
    k->allowed = i;
    pthread_cond_broadcast(&k->cv);
    while (k->done < i)
        pthread_cond_wait(&k->cv, &k->mu);
    pthread_mutex_unlock(&k->mu);
    CHECK_EQ(k->failed, 0);
}

/* parked_start, then step 1 run; returns the pool. */
static grMemPool_t parked_first(parked *k, void (*step)(parked *, int), grMemPool_t pool)
{
    parked_start(k, step, pool);
    parked_run(k, 1);
    return pool;
}

static void parked_stop(parked *k)
{
    pthread_mutex_lock(&k->mu);
    k->allowed = -1;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    CHECK_EQ(pthread_join(k->th, NULL), 0);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
}

#define STEP_OK(k, call)            \
    do {                            \
        if ((call) != grSuccess)    \
            (k)->failed = __LINE__; \
    } while (0)

/* Destroys a test's stream, then its pool; the sync_ form waits for the
 * stream first. */
static void stream_and_pool_destroy(grStream_t s, grMemPool_t pool)
{
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

static void sync_and_destroy(grStream_t s, grMemPool_t pool)
{
    CHECK_OK(grStreamSynchronize(s));
    stream_and_pool_destroy(s, pool);
}

/* The pool's used memory now and its used high-water mark. */
static void check_used_high(grMemPool_t pool, uint64_t used, uint64_t high)
{
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), used);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), high);
}

/* A pool that synchronisation never trims. */
static grMemPool_t keeping_pool(void)
{
    grMemPool_t pool = tl_pool(0);
    uint64_t keep = UINT64_MAX;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &keep));
    return pool;
}

GR_TEST(mempool_cache_reuses_a_block_freed_on_the_same_thread)
{
    grMemPool_t pool = keeping_pool();
    void *p = NULL, *q = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMallocFromPoolAsync(&p, 64, pool, s));
    for (int i = 0; i < 1000; i++) {
        CHECK_OK(grFreeAsync(p, s));
        CHECK_OK(grMallocFromPoolAsync(&q, 200, pool, s)); /* same class */
        CHECK_PTR_EQ(q, p);
    }
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 256);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 256);
    CHECK_OK(grFreeAsync(q, s));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    sync_and_destroy(s, pool);
}

GR_TEST(mempool_cache_keeps_the_used_high_water_mark_exact_on_one_thread)
{
    grMemPool_t pool = keeping_pool();
    void *a = NULL, *b = NULL, *c = NULL;
    uint64_t zero = 0;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMallocFromPoolAsync(&a, 256, pool, s));
    CHECK_OK(grFreeAsync(a, s));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), 256);
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemHigh, &zero));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), 0);
    /* A reuse from the cache raises used memory, and the mark with it. */
    CHECK_OK(grMallocFromPoolAsync(&a, 256, pool, s));
    check_used_high(pool, 256, 256);
    CHECK_OK(grFreeAsync(a, s));
    /* The peak stays after the reuse's block went back to the cache. */
    check_used_high(pool, 0, 256);
    /* A fresh block while one is cached: used is 512, not 768. */
    CHECK_OK(grMallocFromPoolAsync(&b, 512, pool, s));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), 512);
    CHECK_OK(grMallocFromPoolAsync(&a, 256, pool, s));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), 768);
    CHECK_OK(grFreeAsync(a, s));
    CHECK_OK(grFreeAsync(b, s));
    CHECK_OK(grMallocFromPoolAsync(&c, 2048, pool, s));
    check_used_high(pool, 2048, 2048);
    CHECK_OK(grFreeAsync(c, s));
    check_used_high(pool, 0, 2048);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 256 + 512 + 2048);
    sync_and_destroy(s, pool);
}

/* The pool's used memory now, its used high-water mark and its reserved
 * memory. */
static void check_used_high_reserved(grMemPool_t pool, uint64_t used, uint64_t high, uint64_t reserved)
{
    check_used_high(pool, used, high);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), reserved);
}

/* Step 1: a (1000 B) and b (300 B), a freed; 2: a reused; 3: both freed. */
static void used_steps(parked *k, int i)
{
    if (i == 1) {
        STEP_OK(k, grMallocFromPoolAsync(&k->p[0], 1000, k->pool, k->s));
        STEP_OK(k, grMallocFromPoolAsync(&k->p[1], 300, k->pool, k->s));
        STEP_OK(k, grFreeAsync(k->p[0], k->s));
    } else if (i == 2) {
        void *q = NULL;
        STEP_OK(k, grMallocFromPoolAsync(&q, 1000, k->pool, k->s));
        if (q != k->p[0])
            k->failed = __LINE__;
    } else {
        STEP_OK(k, grFreeAsync(k->p[0], k->s));
        STEP_OK(k, grFreeAsync(k->p[1], k->s));
    }
}

GR_TEST(mempool_cache_used_memory_is_exact_from_another_thread)
{
    parked k;
    grMemPool_t pool = parked_first(&k, used_steps, keeping_pool());
    check_used_high_reserved(pool, 320, 1024 + 320, 1024 + 320);
    parked_run(&k, 2);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 1024 + 320);
    parked_run(&k, 3);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    parked_stop(&k);
    check_used_high_reserved(pool, 0, 1024 + 320, 1024 + 320);
    sync_and_destroy(k.s, pool);
}

/* Step 1: four small blocks allocated and freed; 2: one more pair. */
static void cache_steps(parked *k, int i)
{
    static const size_t sizes[4] = {100, 1000, 3000, 4096};
    if (i == 1) {
        for (int j = 0; j < 4; j++)
            STEP_OK(k, grMallocFromPoolAsync(&k->p[j], sizes[j], k->pool, k->s));
        for (int j = 0; j < 4; j++)
            STEP_OK(k, grFreeAsync(k->p[j], k->s));
    } else {
        STEP_OK(k, grMallocFromPoolAsync(&k->p[0], 1000, k->pool, k->s));
        STEP_OK(k, grFreeAsync(k->p[0], k->s));
    }
}

GR_TEST(mempool_trim_from_another_thread_takes_a_live_threads_cached_blocks)
{
    parked k;
    grMemPool_t pool = parked_first(&k, cache_steps, keeping_pool());
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 256 + 1024 + 3072 + 4096);
    CHECK_OK(grStreamSynchronize(k.s));
    CHECK_OK(grMemPoolTrimTo(pool, 1024));
    CHECK(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent) <= 1024);
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 0);
    /* The thread's cache still works after being emptied. */
    parked_run(&k, 2);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 1024);
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 0);
    parked_stop(&k);
    stream_and_pool_destroy(k.s, pool);
}

GR_TEST(mempool_synchronize_releases_blocks_cached_by_another_thread)
{
    parked k;
    grMemPool_t pool = parked_first(&k, cache_steps, tl_pool(0)); /* release threshold 0 */
    CHECK(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent) > 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 0);
    parked_stop(&k);
    stream_and_pool_destroy(k.s, pool);
}

/* Step 1: two blocks of the pool cached, a third live (it keeps the
 * destroyed pool's handle readable); 2: the pool, destroyed meanwhile, is
 * refused, its last block freed, and the default pool still works. */
static void destroy_steps(parked *k, int i)
{
    if (i == 1) {
        STEP_OK(k, grMallocFromPoolAsync(&k->p[0], 500, k->pool, k->s));
        STEP_OK(k, grMallocFromPoolAsync(&k->p[1], 2000, k->pool, k->s));
        STEP_OK(k, grMallocFromPoolAsync(&k->p[2], 100, k->pool, k->s));
        STEP_OK(k, grFreeAsync(k->p[1], k->s));
        STEP_OK(k, grFreeAsync(k->p[0], k->s));
    } else {
        void *q = NULL;
        if (grMallocFromPoolAsync(&q, 500, k->pool, k->s) != grErrorInvalidValue)
            k->failed = __LINE__;
        STEP_OK(k, grFreeAsync(k->p[2], k->s));
        STEP_OK(k, grMallocAsync(&q, 500, k->s));
        STEP_OK(k, grFreeAsync(q, k->s));
        STEP_OK(k, grStreamSynchronize(k->s));
    }
}

GR_TEST(mempool_destroy_takes_blocks_cached_in_a_live_thread)
{
    parked k;
    grMemPool_t pool = parked_first(&k, destroy_steps, keeping_pool());
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 512 + 2048 + 256);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 256);
    /* Leak checkers (ASan builds) see whether the blocks went back. */
    CHECK_OK(grMemPoolDestroy(pool));
    parked_run(&k, 2);
    parked_stop(&k);
    CHECK_OK(grStreamDestroy(k.s));
}

/* Step 1: one block allocated and freed, then the thread exits. */
static void exit_steps(parked *k, int i)
{
    (void)i;
    STEP_OK(k, grMallocFromPoolAsync(&k->p[0], 2000, k->pool, k->s));
    STEP_OK(k, grFreeAsync(k->p[0], k->s));
}

GR_TEST(mempool_thread_exit_gives_its_cached_blocks_back)
{
    grMemPool_t pool = keeping_pool();
    parked k;
    void *q = NULL;
    parked_start(&k, exit_steps, pool);
    parked_run(&k, 1);
    parked_stop(&k);
    /* Back on the pool's free list: the next allocation on s takes it. */
    CHECK_OK(grMallocFromPoolAsync(&q, 2000, pool, k.s));
    CHECK_PTR_EQ(q, k.p[0]);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 2048);
    CHECK_OK(grFreeAsync(q, k.s));
    sync_and_destroy(k.s, pool);
}

GR_TEST(mempool_double_free_of_a_cached_block_is_refused)
{
    grMemPool_t pool = keeping_pool();
    void *p = NULL, *q = NULL, *r = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMallocFromPoolAsync(&p, 64, pool, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, s));
    CHECK_DETAIL_HAS("freed already");
    CHECK_GR(grErrorInvalidValue, grFree(p));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    /* Cached exactly once. */
    CHECK_OK(grMallocFromPoolAsync(&q, 64, pool, s));
    CHECK_PTR_EQ(q, p);
    CHECK_OK(grMallocFromPoolAsync(&r, 64, pool, s));
    CHECK(r != q);
    CHECK_OK(grFreeAsync(q, s));
    CHECK_OK(grFreeAsync(r, s));
    sync_and_destroy(s, pool);
}

GR_TEST(mempool_cache_rebinds_to_another_stream_or_pool)
{
    grMemPool_t pool = tl_pool(0), other = keeping_pool();
    /* Only stream order and event waits: no completion-based or internal reuse. */
    tl_pool_set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    tl_pool_set_int(pool, grMemPoolReuseAllowInternalDependencies, 0);
    grStream_t a, b;
    grEvent_t ev;
    void *p = NULL, *q = NULL, *x = NULL;
    uint64_t keep = UINT64_MAX;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &keep));
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&ev));
    /* A block freed on a is reusable on b once b waits for that free,
     * though a's free put it in this thread's cache. */
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grEventRecord(ev, a));
    CHECK_OK(grStreamWaitEvent(b, ev, 0));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK_PTR_EQ(q, p);
    /* A free into another pool rebinds the cache; each pool keeps its
     * counts. */
    CHECK_OK(grMallocFromPoolAsync(&x, 100, other, b));
    CHECK_OK(grFreeAsync(x, b));
    CHECK_EQ(tl_pool_u64(other, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 4096);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(tl_pool_u64(other, grMemPoolAttrReservedMemCurrent), 256);
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grMemPoolTrimTo(other, 0));
    CHECK_EQ(tl_pool_u64(other, grMemPoolAttrReservedMemCurrent), 0);
    /* Bound to (pool, b) now: the block comes straight back on b. */
    CHECK_OK(grMallocFromPoolAsync(&x, 4096, pool, b));
    CHECK_PTR_EQ(x, p);
    CHECK_OK(grFreeAsync(x, b));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_OK(grMemPoolDestroy(other));
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMPOOL_ASAN 1
#endif
#endif
#if !defined(MEMPOOL_ASAN) && defined(__SANITIZE_ADDRESS__)
#define MEMPOOL_ASAN 1
#endif
#ifdef MEMPOOL_ASAN
#include <sanitizer/asan_interface.h>

GR_TEST(mempool_cached_block_is_poisoned_until_handed_out_again)
{
    grMemPool_t pool = keeping_pool();
    void *p = NULL, *q = NULL;
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grMallocFromPoolAsync(&p, 1000, pool, s));
    CHECK(!__asan_address_is_poisoned(p));
    CHECK_OK(grFreeAsync(p, s)); /* nothing queued: takes effect now */
    CHECK(__asan_address_is_poisoned(p));
    CHECK(__asan_address_is_poisoned((char *)p + 999));
    CHECK_OK(grMallocFromPoolAsync(&q, 1000, pool, s));
    CHECK_PTR_EQ(q, p);
    CHECK(!__asan_address_is_poisoned(q));
    CHECK(!__asan_address_is_poisoned((char *)q + 999));
    CHECK_OK(grFreeAsync(q, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(__asan_address_is_poisoned(q));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}
#endif
