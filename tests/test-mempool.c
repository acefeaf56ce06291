/*
 * test-mempool.c - stream-ordered memory pools: allocation in stream
 * order, reuse within a stream, reuse across streams only when stream
 * order, events or a reuse policy make it safe, the release threshold,
 * trimming, the attributes, and refused frees. Pools across threads are
 * in test-mempool-threads.c.
 */
#include "testlib.h"

#include <stdatomic.h>

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

/* Stream a allocates a block, holds behind a gate and frees it (the free
 * not yet done); stream b then asks for a block of the same size, after
 * waiting on an event recorded after the free where 'event_wait' is set.
 * Whether b may take a's block depends on the pool's reuse policies. */
typedef struct cross_stream_case {
    int follow_events, internal_deps; /* reuse policies (opportunistic off) */
    bool event_wait;
    bool reused; /* b gets a's block */
} cross_stream_case;

static void run_cross_stream(const cross_stream_case *c)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t a = tl_stream(grStreamNonBlocking), b = tl_stream(grStreamNonBlocking);
    grEvent_t ev;
    void *p = NULL, *q = NULL;
    tl_pool_set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    tl_pool_set_int(pool, grMemPoolReuseFollowEventDependencies, c->follow_events);
    tl_pool_set_int(pool, grMemPoolReuseAllowInternalDependencies, c->internal_deps);
    CHECK_OK(grEventCreate(&ev));
    atomic_store(&gate_open, 0);
    atomic_store(&gate_passes, 0);
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grLaunchHostFunc(a, gate_fn, NULL));
    CHECK_OK(grFreeAsync(p, a));
    if (c->event_wait) {
        CHECK_OK(grEventRecord(ev, a));
        CHECK_OK(grStreamWaitEvent(b, ev, 0));
    }
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK_EQ(q == p, c->reused);
    if (c->internal_deps && c->reused) {
        /* b now waits for a's gate... */
        tl_sleep_ms(20);
        CHECK_GR(grErrorNotReady, grStreamQuery(b));
        atomic_store(&gate_open, 1);
        CHECK_OK(grStreamSynchronize(b));
        /* ...and ran only after a's work up to the free (a may still have
         * pool bookkeeping queued after it, so a itself is not queried). */
        CHECK_EQ(atomic_load(&gate_passes), 1);
    }
    atomic_store(&gate_open, 1);
    CHECK_OK(grFreeAsync(q, b));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grEventDestroy(ev));
    CHECK_OK(grStreamDestroy(a));
    CHECK_OK(grStreamDestroy(b));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_block_freed_on_a_busy_stream_is_not_given_to_another_stream)
{
    run_cross_stream(&(cross_stream_case){.follow_events = 1, .event_wait = false, .reused = false});
}

GR_TEST(mempool_event_wait_lets_another_stream_reuse_a_freed_block)
{
    run_cross_stream(&(cross_stream_case){.follow_events = 1, .event_wait = true, .reused = true});
}

GR_TEST(mempool_event_dependency_policy_off_ignores_event_waits)
{
    run_cross_stream(&(cross_stream_case){.follow_events = 0, .event_wait = true, .reused = false});
}

GR_TEST(mempool_internal_dependency_makes_the_other_stream_wait_for_the_free)
{
    run_cross_stream(&(cross_stream_case){.internal_deps = 1, .event_wait = false, .reused = true});
}

GR_TEST(mempool_opportunistic_reuse_takes_blocks_whose_free_completed)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t a, b;
    void *p = NULL, *q = NULL;
    uint64_t keep = UINT64_MAX; /* else synchronising releases the block */
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &keep));
    tl_pool_set_int(pool, grMemPoolReuseAllowInternalDependencies, 0);
    tl_pool_set_int(pool, grMemPoolReuseFollowEventDependencies, 0);
    CHECK_OK(grStreamCreateWithFlags(&a, grStreamNonBlocking));
    CHECK_OK(grStreamCreateWithFlags(&b, grStreamNonBlocking));
    CHECK_OK(grMallocFromPoolAsync(&p, 4096, pool, a));
    CHECK_OK(grFreeAsync(p, a));
    CHECK_OK(grStreamSynchronize(a));
    CHECK_OK(grMallocFromPoolAsync(&q, 4096, pool, b));
    CHECK_PTR_EQ(q, p);
    /* Off: a completed free on another stream is not reused. */
    tl_pool_set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
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

static void checker_write_fn(void *u)
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
    CHECK_OK(grLaunchHostFunc(a, checker_write_fn, &ca));
    CHECK_OK(grLaunchHostFunc(a, hold_and_verify_fn, &ca));
    CHECK_OK(grFreeAsync(ca.p, a));
    CHECK_OK(grMallocFromPoolAsync((void **)&cb.p, N, pool, b));
    CHECK_OK(grLaunchHostFunc(b, checker_write_fn, &cb));
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

GR_TEST(mempool_checker_sees_no_foreign_writes_with_internal_dependencies_only)
{
    grMemPool_t pool = tl_pool(0);
    tl_pool_set_int(pool, grMemPoolReuseAllowOpportunistic, 0);
    tl_pool_set_int(pool, grMemPoolReuseFollowEventDependencies, 0);
    run_checker(pool);
    CHECK_OK(grMemPoolDestroy(pool));
}

/* ------------------------------------------- threshold, trim, counters */

/* A block of 1 MiB freed on a stream under release threshold th (0, the
 * default, where th is 0): at the synchronize the pool gives back what
 * exceeds th, and a trim to 0 the rest. */
static void run_release_threshold(uint64_t th)
{
    grMemPool_t pool = tl_pool(0);
    grStream_t s;
    void *p = NULL;
    if (th) {
        CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReleaseThreshold, &th));
        CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReleaseThreshold), th);
    }
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocFromPoolAsync(&p, 1 << 20, pool, s));
    CHECK_OK(grFreeAsync(p, s));
    CHECK(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent) >= (1u << 20));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), th >= (1u << 20) ? 1u << 20 : 0);
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grMemPoolDestroy(pool));
}

GR_TEST(mempool_release_threshold_zero_gives_memory_back_at_synchronize)
{
    run_release_threshold(0);
}

GR_TEST(mempool_release_threshold_keeps_memory_below_it)
{
    run_release_threshold(64u << 20);
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
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 4096 + (1 << 16));
    atomic_store(&gate_open, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 4096);
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
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 4096);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 4096);
    CHECK_OK(grFreeAsync(b, NULL));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 1024);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), 4096);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 4096);
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrUsedMemHigh, &zero));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemHigh), 1024);
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grMemPoolTrimTo(pool, 0));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemCurrent), 1024);
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemHigh), 4096);
    CHECK_OK(grMemPoolSetAttribute(pool, grMemPoolAttrReservedMemHigh, &zero));
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReservedMemHigh), 1024);
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
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrReleaseThreshold), 0);
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
    CHECK_EQ(tl_pool_u64(pool, grMemPoolAttrUsedMemCurrent), 1024);
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
    CHECK_EQ(tl_pool_u64(dflt, grMemPoolAttrUsedMemCurrent), 0);
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
