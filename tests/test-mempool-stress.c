/*
 * test-mempool-stress.c - seeded, threaded stress of one pool: threads
 * allocate on their streams, stamp each block in stream order with a
 * pattern, verify it later in stream order, and free it on the same or
 * (after an event) another stream. A block handed out while another
 * stream's work could still touch it shows up as a broken pattern. Then
 * the same with small blocks, which go through the threads' caches, and a
 * thread that trims the pools meanwhile. Not a benchmark; smaller under
 * sanitizers.
 */
#include "testlib.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define STRESS_SMALL 1
#endif
#endif
#if !defined(STRESS_SMALL) && (defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__))
#define STRESS_SMALL 1
#endif
#ifndef STRESS_SMALL
#define STRESS_SMALL 0
#endif

enum {
    THREADS = 4,
    STREAMS = 3,
    SLOTS = 8
};
#define ROUNDS (STRESS_SMALL ? 150 : 1500)

static atomic_int broken;

typedef struct stamp {
    unsigned char *p;
    size_t n;
    unsigned char v;
} stamp;

static void stamp_fn(void *u)
{
    stamp *s = u;
    memset(s->p, s->v, s->n);
}

static void verify_fn(void *u)
{
    stamp *s = u;
    for (size_t i = 0; i < s->n; i++)
        if (s->p[i] != s->v) {
            atomic_store(&broken, 1);
            break;
        }
}

static uint32_t stress_rnd(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static grMemPool_t shared_pool;

static void *stress_worker(void *arg)
{
    uint32_t seed = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
    grStream_t st[STREAMS];
    grEvent_t ev;
    /* Each slot's stamp lives until the stream work that uses it ran:
     * SLOTS * 2 rotating records per thread, synchronised every round. */
    static _Thread_local stamp stamps[SLOTS];
    if (grEventCreateWithFlags(&ev, grEventDisableTiming) != grSuccess)
        return (void *)1;
    for (int i = 0; i < STREAMS; i++)
        if (grStreamCreateWithFlags(&st[i], grStreamNonBlocking) != grSuccess)
            return (void *)1;
    for (int r = 0; r < ROUNDS; r++) {
        int k = 0;
        for (; k < SLOTS; k++) {
            stamp *s = &stamps[k];
            grStream_t a = st[stress_rnd(&seed) % STREAMS];
            grStream_t b = st[stress_rnd(&seed) % STREAMS];
            s->n = 1 + stress_rnd(&seed) % 20000;
            s->v = (unsigned char)(1 + stress_rnd(&seed) % 250);
            if (grMallocFromPoolAsync((void **)&s->p, s->n, shared_pool, a) != grSuccess)
                return (void *)1;
            grLaunchHostFunc(a, stamp_fn, s);
            grLaunchHostFunc(a, verify_fn, s);
            if (a != b) {
                grEventRecord(ev, a);
                grStreamWaitEvent(b, ev, 0);
                grLaunchHostFunc(b, verify_fn, s);
            }
            if (grFreeAsync(s->p, b) != grSuccess)
                return (void *)1;
        }
        for (int i = 0; i < STREAMS; i++)
            grStreamSynchronize(st[i]);
    }
    for (int i = 0; i < STREAMS; i++)
        grStreamDestroy(st[i]);
    grEventDestroy(ev);
    return NULL;
}

/* The properties of the pools these tests create: pinned memory of the
 * CPU device. */
static grMemPoolProps stress_pool_props(void)
{
    grMemPoolProps props;
    props = tl_pool_props(0);
    return props;
}

static void run_pool_stress(int opportunistic, int internal)
{
    grMemPoolProps props = stress_pool_props();
    CHECK_OK(grMemPoolCreate(&shared_pool, &props));
    uint64_t th = 1 << 20;
    CHECK_OK(grMemPoolSetAttribute(shared_pool, grMemPoolAttrReleaseThreshold, &th));
    CHECK_OK(grMemPoolSetAttribute(shared_pool, grMemPoolReuseAllowOpportunistic, &opportunistic));
    CHECK_OK(grMemPoolSetAttribute(shared_pool, grMemPoolReuseAllowInternalDependencies, &internal));
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, stress_worker, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++) {
        void *ret = NULL;
        pthread_join(t[i], &ret);
        CHECK(ret == NULL);
    }
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&broken), 0);
    uint64_t used = 1;
    CHECK_OK(grMemPoolGetAttribute(shared_pool, grMemPoolAttrUsedMemCurrent, &used));
    CHECK_EQ(used, 0);
    CHECK_OK(grMemPoolTrimTo(shared_pool, 0));
    uint64_t reserved = 1;
    CHECK_OK(grMemPoolGetAttribute(shared_pool, grMemPoolAttrReservedMemCurrent, &reserved));
    CHECK_EQ(reserved, 0);
    CHECK_OK(grMemPoolDestroy(shared_pool));
}

GR_TEST_T(mempool_stress_threads_and_streams_never_share_a_block_early, 120)
{
    run_pool_stress(1, 1);
}

GR_TEST_T(mempool_stress_with_event_dependencies_only, 120)
{
    run_pool_stress(0, 0);
}

/* Thread caches under fire: workers allocate and free small blocks on
 * their own streams (switching stream and pool now and then, which
 * rebinds their caches), each block stamped and verified in stream order,
 * while another thread keeps trimming the pools, reading their counters
 * and synchronising: every trim takes blocks out of the workers' caches
 * while they use them. */
enum {
    CWORKERS = 3,
    CSLOTS = 6
};
#define CROUNDS (STRESS_SMALL ? 300 : 5000)

static grMemPool_t cache_pools[2];
static atomic_int trimmer_stop;

static void *cache_worker(void *arg)
{
    uint32_t seed = (uint32_t)(uintptr_t)arg * 2246822519u + 7;
    grStream_t st[2];
    static _Thread_local stamp stamps[CSLOTS];
    for (int i = 0; i < 2; i++)
        if (grStreamCreateWithFlags(&st[i], grStreamNonBlocking) != grSuccess)
            return (void *)1;
    int si = 0, pi = 0;
    for (int r = 0; r < CROUNDS; r++) {
        if (stress_rnd(&seed) % 8 == 0)
            si ^= 1;
        if (stress_rnd(&seed) % 16 == 0)
            pi ^= 1;
        grStream_t s = st[si];
        for (int k = 0; k < CSLOTS; k++) {
            stamp *x = &stamps[k];
            x->n = 1 + stress_rnd(&seed) % 4096;
            x->v = (unsigned char)(1 + stress_rnd(&seed) % 250);
            if (grMallocFromPoolAsync((void **)&x->p, x->n, cache_pools[pi], s) != grSuccess)
                return (void *)1;
            grLaunchHostFunc(s, stamp_fn, x);
        }
        /* Free in a shuffled order, each after its verification. */
        for (int k = 0; k < CSLOTS; k++) {
            stamp *x = &stamps[(k * 5 + r) % CSLOTS];
            grLaunchHostFunc(s, verify_fn, x);
            if (grFreeAsync(x->p, s) != grSuccess)
                return (void *)1;
        }
        if (grStreamSynchronize(s) != grSuccess)
            return (void *)1;
    }
    for (int i = 0; i < 2; i++)
        grStreamDestroy(st[i]);
    return NULL;
}

static void *trimmer(void *arg)
{
    uint32_t seed = (uint32_t)(uintptr_t)arg;
    while (!atomic_load(&trimmer_stop)) {
        grMemPool_t pool = cache_pools[stress_rnd(&seed) % 2];
        uint64_t v = 0;
        switch (stress_rnd(&seed) % 4) {
        case 0:
            grMemPoolTrimTo(pool, 0);
            break;
        case 1:
            grMemPoolTrimTo(pool, stress_rnd(&seed) % 16384);
            break;
        case 2:
            grMemPoolGetAttribute(pool, grMemPoolAttrUsedMemCurrent, &v);
            grMemPoolGetAttribute(pool, grMemPoolAttrUsedMemHigh, &v);
            break;
        default:
            grDeviceSynchronize();
            break;
        }
        sched_yield();
    }
    return NULL;
}

GR_TEST_T(mempool_stress_thread_caches_with_a_concurrent_trimmer, 120)
{
    grMemPoolProps props = stress_pool_props();
    for (int i = 0; i < 2; i++) {
        /* One pool trimmed at every synchronisation, one never. */
        uint64_t th = i ? UINT64_MAX : 0;
        CHECK_OK(grMemPoolCreate(&cache_pools[i], &props));
        CHECK_OK(grMemPoolSetAttribute(cache_pools[i], grMemPoolAttrReleaseThreshold, &th));
    }
    pthread_t t[CWORKERS], tt;
    atomic_store(&trimmer_stop, 0);
    CHECK_EQ(pthread_create(&tt, NULL, trimmer, (void *)(uintptr_t)12345), 0);
    for (uintptr_t i = 0; i < CWORKERS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, cache_worker, (void *)(i + 1)), 0);
    for (int i = 0; i < CWORKERS; i++) {
        void *ret = NULL;
        pthread_join(t[i], &ret);
        CHECK(ret == NULL);
    }
    atomic_store(&trimmer_stop, 1);
    pthread_join(tt, NULL);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&broken), 0);
    for (int i = 0; i < 2; i++) {
        uint64_t used = 1, reserved = 1;
        CHECK_OK(grMemPoolGetAttribute(cache_pools[i], grMemPoolAttrUsedMemCurrent, &used));
        CHECK_EQ(used, 0);
        CHECK_OK(grMemPoolTrimTo(cache_pools[i], 0));
        CHECK_OK(grMemPoolGetAttribute(cache_pools[i], grMemPoolAttrReservedMemCurrent, &reserved));
        CHECK_EQ(reserved, 0);
        CHECK_OK(grMemPoolDestroy(cache_pools[i]));
    }
}

/* A block freed into a destroyed pool is released in stream order while
 * the next grFree of it, refused as a double free, looks the block up:
 * the lookup reads the block's state while the release writes it (a data
 * race under ThreadSanitizer before the state was atomic). Every second
 * free must be refused, whichever side wins. */
GR_TEST_T(mempool_double_free_racing_a_destroyed_pools_release, 120)
{
    grMemPoolProps props = stress_pool_props();
    grStream_t s;
    int refused = 0, rounds = STRESS_SMALL ? 2000 : 20000;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (int i = 0; i < rounds; i++) {
        grMemPool_t pool;
        void *b;
        CHECK_OK(grMemPoolCreate(&pool, &props));
        CHECK_OK(grMallocFromPoolAsync(&b, 8192, pool, s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_OK(grMemPoolDestroy(pool)); /* b stays valid */
        CHECK_OK(grFree(b));              /* its release is queued */
        refused += grFree(b) == grErrorInvalidValue;
    }
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(refused, rounds);
    CHECK_OK(grStreamDestroy(s));
}

/* Threads that each create a pool, free its one block and destroy it,
 * synchronising all along. A synchronisation that trims pools walks the
 * registry and pins each pool it trims; a pool whose last reference had
 * just gone, its unref waiting for the registry to unlink it, was pinned
 * back to life, and both unrefs retired it (ThreadSanitizer: a race on the
 * retired shell; without it, one shell on its shelf twice). */
enum {
    DYING_THREADS = 3
};

static void *pools_dying_while_others_trim(void *arg)
{
    grMemPoolProps props = stress_pool_props();
    grStream_t s;
    int rounds = *(int *)arg;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    for (int i = 0; i < rounds; i++) {
        grMemPool_t pool;
        void *b;
        CHECK_OK(grMemPoolCreate(&pool, &props)); /* release threshold 0: every free asks for a trim */
        CHECK_OK(grMallocFromPoolAsync(&b, 8192, pool, s));
        CHECK_OK(grMemPoolDestroy(pool)); /* b keeps the pool alive */
        CHECK_OK(grFreeAsync(b, s));      /* the pool's last reference goes in stream order */
        CHECK_OK(grStreamSynchronize(s)); /* and trims the others' pools */
    }
    CHECK_OK(grStreamDestroy(s));
    return NULL;
}

GR_TEST_T(mempool_pools_dying_while_other_threads_trim_die_once, 120)
{
    pthread_t t[DYING_THREADS];
    int rounds = STRESS_SMALL ? 3000 : 20000;
    for (int i = 0; i < DYING_THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, pools_dying_while_others_trim, &rounds), 0);
    for (int i = 0; i < DYING_THREADS; i++)
        CHECK_EQ(pthread_join(t[i], NULL), 0);
    /* Shells retired once each are reused once each: two live pools never
     * share one. */
    grMemPool_t a, b;
    grMemPoolProps props = stress_pool_props();
    for (int i = 0; i < 64; i++) {
        CHECK_OK(grMemPoolCreate(&a, &props));
        CHECK_OK(grMemPoolCreate(&b, &props));
        CHECK(a != b);
        CHECK_OK(grMemPoolDestroy(a));
        CHECK_OK(grMemPoolDestroy(b));
    }
}
