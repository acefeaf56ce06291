/*
 * test-mempool.c - stream-ordered memory pools: allocation in stream
 * order, reuse within a stream, reuse across streams only when stream
 * order, events or a reuse policy make it safe, the release threshold,
 * trimming, the attributes, and refused frees.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* A gate: a host function that holds its stream until opened (at most
 * 10 s, so a broken runtime cannot hang the test). */
static atomic_int gate_open;
static atomic_int gate_passes; /* gate_fn calls that have returned */
static void gate_fn(void *u)
{
    (void)u;
    for (int i = 0; i < 10000 && !atomic_load(&gate_open); i++)
        tl_sleep_ms(1);
    atomic_fetch_add(&gate_passes, 1);
}

static uint64_t attr64(grMemPool_t pool, grMemPoolAttr a)
{
    uint64_t v = 0;
    CHECK_OK(grMemPoolGetAttribute(pool, a, &v));
    return v;
}

static void set_int(grMemPool_t pool, grMemPoolAttr a, int v)
{
    CHECK_OK(grMemPoolSetAttribute(pool, a, &v));
}

/* Only stream order and event waits: no completion-based or internal reuse. */
static grMemPool_t strict_pool(void)
{
    grMemPool_t pool = tl_pool(0);
    set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    set_int(pool, grMemPoolReuseAllowInternalDependencies, 0);
    return pool;
}

/* ------------------------------------------------------------- basics */

GR_TEST(mempool_malloc_async_memory_is_usable_by_later_work_on_the_stream)
{
    grStream_t s;
    unsigned char *p = NULL, out[1000];
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocAsync((void **)&p, sizeof out, s));
    CHECK(p != NULL);
    CHECK_EQ((uintptr_t)p % 256, 0);
    CHECK_OK(grMemsetAsync(p, 0x5a, sizeof out, s));
    CHECK_OK(grMemcpyAsync(out, p, sizeof out, grMemcpyDeviceToHost, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    for (size_t i = 0; i < sizeof out; i++)
        CHECK_EQ(out[i], 0x5a);
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(mempool_same_stream_reuses_a_freed_block_at_once)
{
    grStream_t s;
    void *a = NULL, *b = NULL;
    CHECK_OK(grStreamCreate(&s));
    atomic_store(&gate_open, 0);
    CHECK_OK(grLaunchHostFunc(s, gate_fn, NULL)); /* the stream is busy */
    CHECK_OK(grMallocAsync(&a, 5000, s));
    CHECK_OK(grFreeAsync(a, s));
    CHECK_OK(grMallocAsync(&b, 4800, s)); /* same size class */
    CHECK_PTR_EQ(a, b);
    atomic_store(&gate_open, 1);
    CHECK_OK(grFreeAsync(b, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(mempool_size_zero_gives_null)
{
    void *p = (void *)1;
    CHECK_OK(grMallocAsync(&p, 0, NULL));
    CHECK(p == NULL);
    CHECK_OK(grFreeAsync(NULL, NULL));
}

GR_TEST(mempool_out_of_bounds_copy_into_a_pool_block_is_refused)
{
    void *p = NULL;
    unsigned char buf[1024];
    CHECK_OK(grMallocAsync(&p, 256, NULL));
    CHECK_GR(grErrorInvalidValue, grMemcpyAsync(p, buf, sizeof buf, grMemcpyHostToDevice, NULL));
    CHECK_DETAIL_HAS("past its end");
    CHECK_OK(grFreeAsync(p, NULL));
    CHECK_OK(grDeviceSynchronize());
}

/* ------------------------------------------------- cross-stream safety */

GR_TEST(mempool_block_freed_on_a_busy_stream_is_not_given_to_another_stream)
{
    grMemPool_t pool = strict_pool();
    grStream_t a, b;
    void *p = NULL, *q = NULL;
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    atomic_store(&gate_open, 0);
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grLaunchHostFunc(a, gate_fn, NULL));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK(q != p);
    atomic_store(&gate_open, 1);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_event_wait_lets_another_stream_reuse_a_freed_block)
{
    grMemPool_t pool = strict_pool();
    grStream_t a, b;
    grEvent_t ev;
    void *p = NULL, *q = NULL;
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&ev));
    atomic_store(&gate_open, 0);
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grLaunchHostFunc(a, gate_fn, NULL));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grEventRecord(ev, a));
    CHECK_OK(grStreamWaitEvent(b, ev, 0));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK_PTR_EQ(q, p);
    atomic_store(&gate_open, 1);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_event_dependency_policy_off_ignores_event_waits)
{
    grMemPool_t pool = strict_pool();
    grStream_t a, b;
    grEvent_t ev;
    void *p = NULL, *q = NULL;
    set_int(pool, grMemPoolReuseFollowEventDependencies, 0);
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grEventCreate(&ev));
    atomic_store(&gate_open, 0);
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grLaunchHostFunc(a, gate_fn, NULL));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grEventRecord(ev, a));
    CHECK_OK(grStreamWaitEvent(b, ev, 0));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK(q != p);
    atomic_store(&gate_open, 1);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_opportunistic_reuse_takes_blocks_whose_free_completed)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t a, b;
    void *p = NULL, *q = NULL;
    uint64_t keep = UINT64_MAX; /* else synchronising releases the block */
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &keep));
    set_int(pool, grMemPoolReuseAllowInternalDependencies, 0);
    set_int(pool, grMemPoolReuseFollowEventDependencies, 0);
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grStreamSynchronize(a));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK_PTR_EQ(q, p);
    /* Off: a completed free on another stream is not reused. */
    set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK(p != q);
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
}

/* The checker: stream A writes its pattern into the block, holds it for a
 * while, verifies it is intact, then frees it; stream B allocates the same
 * size and writes its own pattern. Whatever block B gets, A must see its
 * pattern intact. */
typedef struct checker {
    unsigned char *p;
    size_t n;
    unsigned char v;
    atomic_int ok;
} checker;

static void write_fn(void *u)
{
    checker *c = u;
    memset(c->p, c->v, c->n);
}

static void hold_and_verify_fn(void *u)
{
    checker *c = u;
    tl_sleep_ms(20);
    int ok = 1;
    for (size_t i = 0; i < c->n; i++)
        if (c->p[i] != c->v)
            ok = 0;
    atomic_store(&c->ok, ok);
}

static void run_checker(grMemPool_t pool)
{
    enum {
        N = 8192
    };
    grStream_t a, b;
    checker ca = {NULL, N, 0xa1, 0}, cb = {NULL, N, 0xb2, 0};
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    atomic_store(&gate_open, 0);
    CHECK_OK(grMallocFromPoolAsync((void **)&ca.p, N, pool, a));
    CHECK_OK(grLaunchHostFunc(a, gate_fn, NULL));
    CHECK_OK(grLaunchHostFunc(a, write_fn, &ca));
    CHECK_OK(grLaunchHostFunc(a, hold_and_verify_fn, &ca));
    CHECK_OK(grFreeAsync(ca.p, a));
    CHECK_OK(grMallocFromPoolAsync((void **)&cb.p, N, pool, b));
    CHECK_OK(grLaunchHostFunc(b, write_fn, &cb));
    CHECK_OK(grLaunchHostFunc(b, hold_and_verify_fn, &cb));
    CHECK_OK(grFreeAsync(cb.p, b));
    atomic_store(&gate_open, 1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&ca.ok), 1);
    CHECK_EQ(atomic_load(&cb.ok), 1);
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
}

GR_TEST(mempool_checker_sees_no_foreign_writes_with_default_policies)
{
    grMemPool_t pool = tl_pool(0);
    run_checker(pool);
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_internal_dependency_makes_the_other_stream_wait_for_the_free)
{
    grMemPool_t pool = tl_pool(0);
    set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    set_int(pool, grMemPoolReuseFollowEventDependencies, 0);
    grStream_t a, b;
    void *p = NULL, *q = NULL;
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    atomic_store(&gate_open, 0);
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grLaunchHostFunc(a, gate_fn, NULL));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK_PTR_EQ(q, p);
    /* b now waits for a's gate. */
    tl_sleep_ms(20);
    CHECK_GR(grErrorNotReady, grStreamQuery(b));
    atomic_store(&gate_open, 1);
    CHECK_OK(grStreamSynchronize(b));
    /* b ran only after a's work up to the free (a may still have pool
     * bookkeeping queued after it, so a itself is not queried). */
    CHECK_EQ(atomic_load(&gate_passes), 1);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_checker_sees_no_foreign_writes_with_internal_dependencies_only)
{
    grMemPool_t pool = tl_pool(0);
    set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    set_int(pool, grMemPoolReuseFollowEventDependencies, 0);
    run_checker(pool);
    CHECK_OK(grMemPoolDestroy(pool));
}

/* ------------------------------------------- threshold, trim, counters */

GR_TEST(mempool_release_threshold_zero_gives_memory_back_at_synchronize)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t s;
    void *p = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocFromPoolAsync(&p, 1 << 20, pool, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK(attr64(pool, grMemPoolAttrReservedMemCurrent) >= (1u << 20));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_release_threshold_keeps_memory_below_it)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t s;
    void *p = NULL;
    uint64_t th = 64u << 20;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &th));
    CHECK_EQ(attr64(pool, grMemPoolAttrReleaseThreshold), th);
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocFromPoolAsync(&p, 1 << 20, pool, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 1 << 20);
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_trim_keeps_allocated_blocks_and_pending_frees)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t s;
    void *live = NULL, *freed = NULL;
    uint64_t th = UINT64_MAX;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &th));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocFromPoolAsync(&live, 4096, pool, s));
    CHECK_OK(grMallocFromPoolAsync(&freed, 1 << 16, pool, s));
    atomic_store(&gate_open, 0);
    CHECK_OK(grLaunchHostFunc(s, gate_fn, NULL));
    CHECK_OK(grFreeAsync(freed, s));
    CHECK_OK(grMemPoolTrimTo(pool, 0)); /* the free has not taken effect */
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 4096 + (1 << 16));
    atomic_store(&gate_open, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 4096);
    CHECK_OK(grFreeAsync(live, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_used_and_reserved_counters_and_high_water_marks)
{
    grMemPool_t pool = tl_pool(0);
    void *a = NULL, *b = NULL;
    uint64_t zero = 0, th = UINT64_MAX;
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &th));
    CHECK_OK(grMallocFromPoolAsync(&a, 1000, pool, NULL)); /* class 1024 */
    CHECK_OK(grMallocFromPoolAsync(&b, 3000, pool, NULL)); /* class 3072 */
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 4096);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 4096);
    CHECK_OK(grFreeAsync(b, NULL));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 1024);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 4096);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 4096);
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemHigh, &zero));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 1024);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 1024);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemHigh), 4096);
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReservedMemHigh, &zero));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemHigh), 1024);
    CHECK_OK(grFreeAsync(a, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_attributes_default_to_cuda_values_and_refuse_bad_sets)
{
    grMemPool_t pool = tl_pool(0);
    int v = 0;
    uint64_t one = 1;
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolReuseFollowEventDependencies, &v));
    CHECK_EQ(v, 1);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolReuseAllowOpportunistic, &v));
    CHECK_EQ(v, 1);
    CHECK_OK(grMemPoolGetAttribute(pool, grMemPoolReuseAllowInternalDependencies, &v));
    CHECK_EQ(v, 1);
    CHECK_EQ(attr64(pool, grMemPoolAttrReleaseThreshold), 0);
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemCurrent, &one));
    CHECK_DETAIL_HAS("read-only");
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, grMemPoolAttrReservedMemHigh, &one));
    CHECK_DETAIL_HAS("reset");
    CHECK_GR(grErrorInvalidValue, grMemPoolSetAttribute(pool, (grMemPoolAttr)999, &one));
    CHECK_GR(grErrorInvalidValue, grMemPoolGetAttribute(pool, grMemPoolAttrUsedMemHigh, NULL));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_max_size_limits_what_the_pool_reserves)
{
    grMemPoolProps props;
    grMemPool_t pool = NULL;
    void *a = NULL, *b = NULL;
    props = tl_pool_props(0);
    props.maxSize = 1 << 20;
    CHECK_OK(grMemPoolCreate(&pool, &props));
    CHECK_OK(grMallocFromPoolAsync(&a, 3 << 18, pool, NULL));
    CHECK_GR(grErrorMemoryAllocation, grMallocFromPoolAsync(&b, 3 << 18, pool, NULL));
    CHECK_DETAIL_HAS("maxSize");
    CHECK_OK(grFreeAsync(a, NULL));
    CHECK_OK(grMallocFromPoolAsync(&b, 3 << 18, pool, NULL));
    CHECK_OK(grFreeAsync(b, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grMemPoolDestroy(pool));
}

/* ------------------------------------------------------ device pools */

GR_TEST(mempool_device_current_pool_follows_set_and_destroy)
{
    grMemPool_t dflt = NULL, cur = NULL, pool = tl_pool(0);
    void *p = NULL;
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    CHECK_OK(grDeviceGetMemPool(&cur, 0));
    CHECK_PTR_EQ(cur, dflt);
    CHECK_OK(grDeviceSetMemPool(0, pool));
    CHECK_OK(grDeviceGetMemPool(&cur, 0));
    CHECK_PTR_EQ(cur, pool);
    CHECK_OK(grMallocAsync(&p, 1000, NULL));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 1024);
    CHECK_OK(grFreeAsync(p, NULL));
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_OK(grDeviceGetMemPool(&cur, 0));
    CHECK_PTR_EQ(cur, dflt);
    CHECK_GR(grErrorInvalidDevice, grDeviceGetMemPool(&cur, 64)); /* no such device */
    CHECK_GR(grErrorInvalidValue, grMemPoolDestroy(dflt));
    CHECK_DETAIL_HAS("default pool");
}

GR_TEST(mempool_create_refuses_bad_properties)
{
    grMemPoolProps props;
    grMemPool_t pool = NULL;
    props = tl_pool_props(0);
    props.location.id = 64; /* no such device, GPUs or not */
    /* CUDA 13 answers InvalidValue for ids 99 and -1 (tests/probes/memory.cu). */
    CHECK_GR(grErrorInvalidValue, grMemPoolCreate(&pool, &props));
    CHECK_DETAIL_HAS("no device");
    props.location.id = -1;
    CHECK_GR(grErrorInvalidValue, grMemPoolCreate(&pool, &props));
    CHECK_PTR_EQ(pool, NULL);
    props.location.id = 0;
    props.allocType = grMemAllocationTypeInvalid;
    CHECK_GR(grErrorInvalidValue, grMemPoolCreate(&pool, &props));
    CHECK_DETAIL_HAS("allocType");
    CHECK_GR(grErrorInvalidValue, grMemPoolCreate(&pool, NULL));
    CHECK(pool == NULL);
}

/* ---------------------------------------------------------- bad input */

GR_TEST(mempool_double_free_is_refused_and_changes_nothing)
{
    void *p = NULL, *q = NULL;
    CHECK_OK(grMallocAsync(&p, 512, NULL));
    CHECK_OK(grFreeAsync(p, NULL));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, NULL));
    CHECK_DETAIL_HAS("freed already");
    CHECK_OK(grMallocAsync(&q, 512, NULL));
    CHECK_PTR_EQ(q, p); /* still on the free list exactly once */
    void *r = NULL;
    CHECK_OK(grMallocAsync(&r, 512, NULL));
    CHECK(r != q);
    CHECK_OK(grFreeAsync(q, NULL));
    CHECK_OK(grFreeAsync(r, NULL));
    CHECK_OK(grDeviceSynchronize());
}

GR_TEST(mempool_foreign_and_interior_pointers_are_refused)
{
    static char host[4096];
    void *p = NULL, *d = NULL;
    CHECK_GR(grErrorInvalidValue, grFreeAsync(host, NULL));
    CHECK_DETAIL_HAS("not returned by grMallocAsync");
    CHECK_OK(grMallocAsync(&p, 4096, NULL));
    CHECK_GR(grErrorInvalidValue, grFreeAsync((char *)p + 16, NULL));
    CHECK_DETAIL_HAS("inside the pool allocation");
    CHECK_OK(grMallocHost(&d, 100));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(d, NULL)); /* CUDA 13 too: tests/probes/memory.cu */
    CHECK_DETAIL_HAS("grFreeHost");
    CHECK_OK(grFreeHost(d));
    CHECK_OK(grFreeAsync(p, NULL));
    CHECK_OK(grDeviceSynchronize());
}

static void fill_op(void *data)
{
    memset(*(void **)data, 0x5a, 100);
}

/* CUDA 13 frees cudaMalloc memory given to cudaFreeAsync, in stream order
 * (tests/probes/memory.cu): work queued before the free still uses it, and
 * a second free is refused. */
GR_TEST(mempool_freeasync_frees_grmalloc_memory_in_stream_order)
{
    void *d = NULL;
    grStream_t s;
    grPointerAttributes a;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc(&d, 100));
    CHECK_OK(grPointerGetAttributes(&a, d));
    CHECK_EQ(a.type, grMemoryTypeDevice);
    CHECK_OK(grLaunchHostFunc(s, fill_op, &d));
    CHECK_OK(grFreeAsync(d, s));
    /* Untracked at once: a second free, on any path, is refused. */
    CHECK_OK(grPointerGetAttributes(&a, d));
    CHECK_EQ(a.type, grMemoryTypeUnregistered);
    CHECK_GR(grErrorInvalidValue, grFreeAsync(d, s));
    CHECK_GR(grErrorInvalidValue, grFree(d));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_GR(grErrorInvalidValue, grFree(d));
    CHECK_OK(grStreamDestroy(s));
}

GR_TEST(mempool_grfree_frees_pool_memory)
{
    void *p = NULL;
    grMemPool_t dflt = NULL;
    CHECK_OK(grDeviceGetDefaultMemPool(&dflt, 0));
    CHECK_OK(grMallocAsync(&p, 2048, NULL));
    CHECK_OK(grMemsetAsync(p, 1, 2048, NULL));
    CHECK_OK(grFree(p));
    CHECK_EQ(attr64(dflt, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, NULL));
}

GR_TEST(mempool_destroyed_pool_is_refused_but_its_blocks_stay_valid)
{
    grMemPool_t pool = tl_pool(0);
    unsigned char *p = NULL;
    void *q = NULL;
    CHECK_OK(grMallocFromPoolAsync((void **)&p, 300, pool, NULL));
    CHECK_OK(grMemPoolDestroy(pool));
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync(&q, 300, pool, NULL));
    CHECK_DETAIL_HAS("not live");
    CHECK_GR(grErrorInvalidValue, grMemPoolTrimTo(pool, 0));
    CHECK_GR(grErrorInvalidValue, grDeviceSetMemPool(0, pool));
    CHECK_GR(grErrorInvalidValue, grMemPoolDestroy(pool));
    CHECK_OK(grMemsetAsync(p, 7, 300, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(p[299], 7);
    CHECK_OK(grFreeAsync(p, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, NULL));
}

GR_TEST(mempool_bad_arguments_are_refused)
{
    void *p = NULL;
    CHECK_GR(grErrorInvalidValue, grMallocAsync(NULL, 16, NULL));
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync(&p, 16, NULL, NULL));
    CHECK_GR(grErrorInvalidValue, grDeviceGetDefaultMemPool(NULL, 0));
    grMemPool_t pool;
    CHECK_GR(grErrorInvalidDevice, grDeviceGetDefaultMemPool(&pool, 64)); /* no such device */
}

GR_TEST(mempool_device_reset_frees_pools_and_a_fresh_default_pool_works)
{
    void *p = NULL;
    CHECK_OK(grMallocAsync(&p, 1000, NULL));
    CHECK_OK(grDeviceReset());
    CHECK_OK(grMallocAsync(&p, 1000, NULL));
    CHECK_OK(grFreeAsync(p, NULL));
    CHECK_OK(grDeviceSynchronize());
}

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
    CHECK_EQ(attr64(dflt, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, NULL));
    CHECK_EQ(attr64(dflt, grMemPoolAttrUsedMemCurrent), 0);
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
    CHECK_EQ(attr64(dflt, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(attr64(dflt, grMemPoolAttrReservedMemCurrent), 0);
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
    grStream_t s;
    void *p[8];
    int failed;
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

static void parked_start(parked *k, pthread_t *th, void (*step)(parked *, int), grMemPool_t pool,
                         grStream_t s)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    k->step = step;
    k->pool = pool;
    k->s = s;
    CHECK_EQ(pthread_create(th, NULL, parked_main, k), 0);
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

static void parked_stop(parked *k, pthread_t th)
{
    pthread_mutex_lock(&k->mu);
    k->allowed = -1;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    CHECK_EQ(pthread_join(th, NULL), 0);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
}

#define STEP_OK(k, call)            \
    do {                            \
        if ((call) != grSuccess)    \
            (k)->failed = __LINE__; \
    } while (0)

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
    grStream_t s;
    void *p = NULL, *q = NULL;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMallocFromPoolAsync(&p, 64, pool, s));
    for (int i = 0; i < 1000; i++) {
        CHECK_OK(grFreeAsync(p, s));
        CHECK_OK(grMallocFromPoolAsync(&q, 200, pool, s)); /* same class */
        CHECK_PTR_EQ(q, p);
    }
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 256);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 256);
    CHECK_OK(grFreeAsync(q, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_cache_keeps_the_used_high_water_mark_exact_on_one_thread)
{
    grMemPool_t pool = keeping_pool();
    grStream_t s;
    void *a = NULL, *b = NULL, *c = NULL;
    uint64_t zero = 0;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMallocFromPoolAsync(&a, 256, pool, s));
    CHECK_OK(grFreeAsync(a, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 256);
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemHigh, &zero));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 0);
    /* A reuse from the cache raises used memory, and the mark with it. */
    CHECK_OK(grMallocFromPoolAsync(&a, 256, pool, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 256);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 256);
    CHECK_OK(grFreeAsync(a, s));
    /* The peak stays after the reuse's block went back to the cache. */
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 256);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    /* A fresh block while one is cached: used is 512, not 768. */
    CHECK_OK(grMallocFromPoolAsync(&b, 512, pool, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 512);
    CHECK_OK(grMallocFromPoolAsync(&a, 256, pool, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 768);
    CHECK_OK(grFreeAsync(a, s));
    CHECK_OK(grFreeAsync(b, s));
    CHECK_OK(grMallocFromPoolAsync(&c, 2048, pool, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 2048);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 2048);
    CHECK_OK(grFreeAsync(c, s));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 2048);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 256 + 512 + 2048);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
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
    grMemPool_t pool = keeping_pool();
    grStream_t s;
    parked k;
    pthread_t th;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    parked_start(&k, &th, used_steps, pool, s);
    parked_run(&k, 1);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 320);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 1024 + 320);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 1024 + 320);
    parked_run(&k, 2);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 1024 + 320);
    parked_run(&k, 3);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    parked_stop(&k, th);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemHigh), 1024 + 320);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 1024 + 320);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
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
    grMemPool_t pool = keeping_pool();
    grStream_t s;
    parked k;
    pthread_t th;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    parked_start(&k, &th, cache_steps, pool, s);
    parked_run(&k, 1);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 256 + 1024 + 3072 + 4096);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemPoolTrimTo(pool, 1024));
    CHECK(attr64(pool, grMemPoolAttrReservedMemCurrent) <= 1024);
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 0);
    /* The thread's cache still works after being emptied. */
    parked_run(&k, 2);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 1024);
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 0);
    parked_stop(&k, th);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_synchronize_releases_blocks_cached_by_another_thread)
{
    grMemPool_t pool = tl_pool(0); /* release threshold 0 */
    grStream_t s;
    parked k;
    pthread_t th;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    parked_start(&k, &th, cache_steps, pool, s);
    parked_run(&k, 1);
    CHECK(attr64(pool, grMemPoolAttrReservedMemCurrent) > 0);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 0);
    parked_stop(&k, th);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
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
    grMemPool_t pool = keeping_pool();
    grStream_t s;
    parked k;
    pthread_t th;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    parked_start(&k, &th, destroy_steps, pool, s);
    parked_run(&k, 1);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 512 + 2048 + 256);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 256);
    /* Leak checkers (ASan builds) see whether the blocks went back. */
    CHECK_OK(grMemPoolDestroy(pool));
    parked_run(&k, 2);
    parked_stop(&k, th);
    CHECK_OK(grStreamDestroy(s));
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
    grStream_t s;
    parked k;
    pthread_t th;
    void *q = NULL;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    parked_start(&k, &th, exit_steps, pool, s);
    parked_run(&k, 1);
    parked_stop(&k, th);
    /* Back on the pool's free list: the next allocation on s takes it. */
    CHECK_OK(grMallocFromPoolAsync(&q, 2000, pool, s));
    CHECK_PTR_EQ(q, k.p[0]);
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 2048);
    CHECK_OK(grFreeAsync(q, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_double_free_of_a_cached_block_is_refused)
{
    grMemPool_t pool = keeping_pool();
    grStream_t s;
    void *p = NULL, *q = NULL, *r = NULL;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMallocFromPoolAsync(&p, 64, pool, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK_GR(grErrorInvalidValue, grFreeAsync(p, s));
    CHECK_DETAIL_HAS("freed already");
    CHECK_GR(grErrorInvalidValue, grFree(p));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    /* Cached exactly once. */
    CHECK_OK(grMallocFromPoolAsync(&q, 64, pool, s));
    CHECK_PTR_EQ(q, p);
    CHECK_OK(grMallocFromPoolAsync(&r, 64, pool, s));
    CHECK(r != q);
    CHECK_OK(grFreeAsync(q, s));
    CHECK_OK(grFreeAsync(r, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_cache_rebinds_to_another_stream_or_pool)
{
    grMemPool_t pool = strict_pool(), other = keeping_pool();
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
    CHECK_EQ(attr64(other, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 4096);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_EQ(attr64(pool, grMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ(attr64(other, grMemPoolAttrReservedMemCurrent), 256);
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grMemPoolTrimTo(other, 0));
    CHECK_EQ(attr64(other, grMemPoolAttrReservedMemCurrent), 0);
    /* Bound to (pool, b) now: the block comes straight back on b. */
    CHECK_OK(grMallocFromPoolAsync(&x, 4096, pool, b));
    CHECK_PTR_EQ(x, p);
    CHECK_OK(grFreeAsync(x, b));
    CHECK_OK(grStreamSynchronize(b));
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(attr64(pool, grMemPoolAttrReservedMemCurrent), 0);
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
    grStream_t s;
    void *p = NULL, *q = NULL;
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
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

GR_TEST(pool_props_win32_attributes_and_reserved_bytes_must_be_zero)
{
    grMemPool_t p;
    grMemPoolProps pp;
    pp = tl_pool_props(0);
    pp.win32SecurityAttributes = &pp;
    CHECK_GR(grErrorInvalidValue, grMemPoolCreate(&p, &pp));
    CHECK_DETAIL_HAS("win32SecurityAttributes");
    pp.win32SecurityAttributes = NULL;
    pp.reserved[7] = 1;
    CHECK_GR(grErrorInvalidValue, grMemPoolCreate(&p, &pp));
    CHECK_DETAIL_HAS("reserved[7]");
    pp.reserved[7] = 0;
    CHECK_OK(grMemPoolCreate(&p, &pp));
    CHECK_OK(grMemPoolDestroy(p));
    /* The same rule for a graph allocation node's pool properties. */
    grGraph_t g;
    grGraphNode_t n;
    grMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = grMemAllocationTypePinned;
    ap.poolProps.location.type = grMemLocationTypeDevice;
    ap.poolProps.win32SecurityAttributes = &ap;
    ap.bytesize = 64;
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_GR(grErrorInvalidValue, grGraphAddMemAllocNode(&n, g, NULL, 0, &ap));
    CHECK_OK(grGraphDestroy(g));
}
