/*
 * pool.c - stream-ordered memory pools: the pool objects and their
 * registry, grMemPoolCreate / Destroy, the device's default and current
 * pool, the pool attributes and the release threshold, and the entry
 * points grMallocAsync, grMallocFromPoolAsync and grFreeAsync with their
 * fast paths (pool_int.h). The blocks are pool_block.c, the threads'
 * caches of free blocks pcache.c, the location forms of the default and
 * current pool pool_location.c, the pools' access flags pool_access.c.
 *
 * Cost: a grFreeAsync of a small block (class <= CACHE_MAX_BYTES) on the
 * thread that allocated it, among its last RING_SIZE allocations, puts
 * the block in the thread's cache, and a grMallocAsync of that class on
 * the same pool and stream takes it back: both without a lock or an
 * atomic read-modify-write (see "thread caches" below). Otherwise an
 * allocation on the stream that freed the block last takes the pool's
 * spinlock once and pops the head of its class's free list; a free found
 * in the thread's ring takes the pool's spinlock only; any other free
 * takes a map shard's spinlock and the pool's. Everything else (another
 * stream, a fresh block, trimming) is on noinline slow paths.
 *
 * Invariants (besides those of pool.h):
 *   - 'reserved' is the sum of the class sizes of the pool's blocks that
 *     are not GONE; 'used' that of its LIVE and CACHED blocks, so that the
 *     pool's used memory is 'used' plus the 'delta' (minus the bytes held)
 *     of every cache bound to it (pcache.c); both 'reserved' and 'used'
 *     only change under 'lock';
 *   - a pool's 'refs' counts its handle (or the runtime, for the default
 *     pool) plus one per block not yet given back: a destroyed pool lives
 *     on, refusing new allocations, until its last block is freed; no
 *     cache is bound to a destroyed pool;
 *   - ASan builds poison a block from the moment its free takes effect in
 *     stream order until it is handed out again; 'gen' (incremented by
 *     each allocation) lets the stream-ordered poisoning skip a block that
 *     was handed out again before it ran; a block enters a cache only once
 *     its free has taken effect (it is poisoned then);
 *   - lock order: pcache.c's caches.lock, then a map shard's lock, then a
 *     pool's lock, then a stream's lock. registry.lock is taken alone.
 * gr__pool_is_valid (pool_block.c) checks the first against the free lists
 * and the address map in GR_DEBUG=3 builds.
 */
#include "../backend/device.h"
#include "pool_int.h"

#include "graphmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    pthread_mutex_t lock;
    grMemPool_t list; /* every pool not yet freed */
    grMemPool_t dflt; /* device 0's default pool, created lazily */
} registry = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

/* The device's current pool; NULL means the default pool. */
static grMemPool_t _Atomic current_pool;

atomic_bool gr__pool_trim_pending;

/* ------------------------------------------------------------- pool life */

static void pool_init_attrs(grMemPool_t pool)
{
    /* CUDA's defaults: every reuse policy on, release threshold 0. */
    atomic_init(&pool->reuse_follow, 1);
    atomic_init(&pool->reuse_opportunistic, 1);
    atomic_init(&pool->reuse_internal, 1);
    atomic_init(&pool->threshold, 0);
}

/* Pool objects, kept as dead shells once freed (core.h). */
static gr_shelf pool_shelf = GR_SHELF_INIT(sizeof(struct grMemPool_st));

grMemPool_t gr__pool_object_new(const grMemPoolProps *props, bool is_default, int device, void *gpu)
{
    grMemPool_t pool = gr__shell_alloc(&pool_shelf);
    if (!pool)
        return NULL;
    memset(pool, 0, sizeof *pool);
    pool->magic = GR_MAGIC_POOL;
    atomic_init(&pool->refs, 1);
    pool->is_default = is_default;
    pool->props = *props;
    pool->device = device;
    pool->gpu = gpu;
    pool_init_attrs(pool);
    if (device)
        return pool;
    pthread_mutex_lock(&registry.lock);
    pool->reg_next = registry.list;
    if (registry.list)
        registry.list->reg_prev = pool;
    registry.list = pool;
    pthread_mutex_unlock(&registry.lock);
    return pool;
}

void gr__pool_unref(grMemPool_t pool)
{
    if (gr_fetch_sub_acq_rel(&pool->refs, 1) != 1)
        return;
    gr_assert(pool->caches == NULL);
    pthread_mutex_lock(&registry.lock);
    if (pool->reg_prev)
        pool->reg_prev->reg_next = pool->reg_next;
    else if (registry.list == pool)
        registry.list = pool->reg_next;
    if (pool->reg_next)
        pool->reg_next->reg_prev = pool->reg_prev;
    pthread_mutex_unlock(&registry.lock);
    gr__mark_dead(&pool->magic);
    gr__shell_retire(&pool_shelf, pool);
}

/* registry.dflt, readable without the registry's mutex (the hot path of
 * every grMallocAsync); written under it. */
static grMemPool_t _Atomic dflt_cache;

static GR_NOINLINE grMemPool_t default_pool_slow(void)
{
    grMemPool_t p;
    grMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = grMemAllocationTypePinned;
    props.location.type = grMemLocationTypeDevice;
    p = gr__pool_object_new(&props, true, 0, NULL);
    if (!p)
        return NULL;
    pthread_mutex_lock(&registry.lock);
    if (registry.dflt) {
        /* Another thread won the race: drop ours. */
        grMemPool_t ours = p;
        p = registry.dflt;
        pthread_mutex_unlock(&registry.lock);
        gr__pool_unref(ours);
        return p;
    }
    registry.dflt = p;
    gr_store_release(&dflt_cache, p);
    pthread_mutex_unlock(&registry.lock);
    return p;
}

static inline grMemPool_t default_pool(void)
{
    grMemPool_t p = gr_load_acquire(&dflt_cache);
    return GR_LIKELY(p) ? p : default_pool_slow();
}

/* The pool grMallocAsync uses: the current one, else the default one. */
static inline grMemPool_t current(void)
{
    grMemPool_t p = gr_load_acquire(&current_pool);
    return GR_LIKELY(p) ? p : default_pool();
}

grError_t gr__pool_check(const char *call, grMemPool_t pool)
{
    if (pool == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: memPool is NULL; pass a pool from grMemPoolCreate or "
                        "grDeviceGetDefaultMemPool",
                        call);
    if (pool->magic != GR_MAGIC_POOL)
        return gr__fail(
            grErrorInvalidValue,
            "%s: memory pool %p is not live (destroyed by grMemPoolDestroy, or not a grMemPool_t)", call,
            GR_PTR(pool));
    return grSuccess;
}

void gr__pool_on_sync_slow(void)
{
    if (!gr_exchange_acq_rel(&gr__pool_trim_pending, false))
        return;
    /* Pin every pool under the registry lock, trim outside it. */
    for (;;) {
        grMemPool_t todo = NULL;
        uint64_t keep = 0;
        pthread_mutex_lock(&registry.lock);
        for (grMemPool_t p = registry.list; p; p = p->reg_next) {
            uint64_t th = gr_load_relaxed(&p->threshold);
            gr__spin_lock(&p->lock);
            bool over = reserved_of(p) > th && reserved_of(p) > gr__pcache_used_locked(p);
            gr__spin_unlock(&p->lock);
            /* A pool whose last reference is gone is left alone: its
             * unref waits for this lock to unlink it, and a reference
             * taken now would have both unrefs retire it. */
            if (over && gr_ref_unless_zero(&p->refs)) {
                todo = p;
                keep = th;
                break;
            }
        }
        pthread_mutex_unlock(&registry.lock);
        if (!todo)
            return;
        uint64_t before;
        /* Free blocks in threads' caches count as free: take them back. */
        gr__pcache_flush(todo, false);
        gr__spin_lock(&todo->lock);
        before = reserved_of(todo);
        gr__spin_unlock(&todo->lock);
        gr__pool_trim(todo, keep);
        gr__spin_lock(&todo->lock);
        bool progress = reserved_of(todo) < before;
        gr__spin_unlock(&todo->lock);
        gr__pool_unref(todo);
        if (!progress) {
            /* Frees still pending: try again at the next synchronisation. */
            gr_store_relaxed(&gr__pool_trim_pending, true);
            return;
        }
    }
}

/* ------------------------------------------------------------ public API */

static grError_t check_props(const char *call, const grMemPoolProps *props)
{
    if (!props)
        return gr__fail(grErrorInvalidValue, "%s: poolProps is NULL; pass the pool's properties", call);
    if (props->allocType != grMemAllocationTypePinned)
        return gr__fail(grErrorInvalidValue,
                        "%s: poolProps->allocType is %d; only grMemAllocationTypePinned is supported", call,
                        (int)props->allocType);
    if (props->handleTypes != grMemHandleTypeNone)
        return gr__fail(grErrorNotSupported,
                        "%s: poolProps->handleTypes is 0x%x; graphrt pools cannot be exported, use "
                        "grMemHandleTypeNone",
                        call, (unsigned)props->handleTypes);
    if (props->location.type != grMemLocationTypeDevice)
        return gr__fail(
            grErrorInvalidValue,
            "%s: poolProps->location.type is %d; pools live on a device (grMemLocationTypeDevice)", call,
            (int)props->location.type);
    /* grErrorInvalidValue, not InvalidDevice: what CUDA 13 answers for a
     * location id that names no device (tests/probes/memory.cu). */
    if (!gr__device_exists(props->location.id))
        return gr__fail(grErrorInvalidValue,
                        "%s: poolProps->location.id is %d, no device; the devices are 0 (the CPU) and 1..%d",
                        call, props->location.id, gr__gpu_count());
    /* CUDA: the security attributes go with Win32 handles only, and the
     * reserved bytes must be zero. */
    if (props->win32SecurityAttributes)
        return gr__fail(
            grErrorInvalidValue,
            "%s: poolProps->win32SecurityAttributes is %p; it is for grMemHandleTypeWin32 handles only "
            "and must be NULL otherwise",
            call, props->win32SecurityAttributes);
    for (size_t i = 0; i < sizeof props->reserved; i++)
        if (props->reserved[i])
            return gr__fail(grErrorInvalidValue,
                            "%s: poolProps->reserved[%zu] is %u; the reserved bytes must be 0", call, i,
                            props->reserved[i]);
    return grSuccess;
}

GR_API grError_t grMemPoolCreate(grMemPool_t *memPool, const grMemPoolProps *poolProps)
{
    static const char call[] = "grMemPoolCreate";
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = check_props(call, poolProps)) != grSuccess)
        return err;
    if (poolProps->location.id != 0)
        return gr__gpu_pool_create(call, poolProps->location.id, poolProps, memPool);
    grMemPool_t p = gr__pool_object_new(poolProps, false, 0, NULL);
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    *memPool = p;
    return grSuccess;
}

GR_API grError_t grMemPoolDestroy(grMemPool_t memPool)
{
    static const char call[] = "grMemPoolDestroy";
    grError_t err;
    if ((err = gr__pool_check(call, memPool)) != grSuccess)
        return err;
    if (memPool->is_default)
        return gr__fail(grErrorInvalidValue,
                        "%s: pool %p is the device's default pool, which cannot be destroyed", call,
                        GR_PTR(memPool));
    if (memPool->device)
        return gr__gpu_pool_destroy(call, memPool);
    /* Destroying the current pool makes the default pool current again. */
    grMemPool_t expect = memPool;
    gr_cas_strong_seq_cst(&current_pool, &expect, NULL);
    gr__spin_lock(&memPool->lock);
    memPool->magic = GR_MAGIC_DEAD;
    gr__spin_unlock(&memPool->lock);
    /* No cache binds to it from now on; unbind those that are, taking
     * their blocks back. */
    gr__pcache_flush(memPool, true);
    /* Free blocks go back to the OS once their frees have completed; live
     * blocks when they are freed (pool_free). */
    for (;;) {
        gr__pool_trim(memPool, 0);
        gr_stream *s = NULL;
        uint64_t seq = 0;
        gr__spin_lock(&memPool->lock);
        for (int c = 0; c < NCLASS && !s; c++)
            if (memPool->bins[c]) {
                s = memPool->bins[c]->fs;
                seq = memPool->bins[c]->fseq;
                gr__stream_retain(s);
            }
        gr__spin_unlock(&memPool->lock);
        if (!s)
            break;
        gr__stream_wait_seq_dev(s, seq);
        gr__stream_release(s);
    }
    gr__pool_unref(memPool);
    return grSuccess;
}

static grError_t check_device(const char *call, int device)
{
    if (!gr__device_exists(device))
        return gr__fail(grErrorInvalidDevice,
                        "%s: device %d does not exist; the devices are 0 (the CPU) and 1..%d", call, device,
                        gr__gpu_count());
    return grSuccess;
}

grError_t gr__pool_get_default(const char *call, grMemPool_t *memPool, int device)
{
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = check_device(call, device)) != grSuccess)
        return err;
    if (device != 0)
        return gr__gpu_pool_default(call, device, memPool);
    grMemPool_t p = default_pool();
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating the default pool", call);
    *memPool = p;
    return grSuccess;
}

grError_t gr__pool_set_current(const char *call, int device, grMemPool_t memPool)
{
    grError_t err;
    if ((err = check_device(call, device)) != grSuccess)
        return err;
    if ((err = gr__pool_check(call, memPool)) != grSuccess)
        return err;
    if (memPool->device != device)
        return gr__fail(grErrorInvalidValue,
                        "%s: pool %p is a pool of device %d, not of device %d; a device's current pool "
                        "is one of its own",
                        call, GR_PTR(memPool), memPool->device, device);
    if (device != 0)
        return gr__gpu_pool_set_current(call, device, memPool);
    gr_store_release(&current_pool, memPool->is_default ? NULL : memPool);
    return grSuccess;
}

grError_t gr__pool_get_current(const char *call, grMemPool_t *memPool, int device)
{
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = check_device(call, device)) != grSuccess)
        return err;
    if (device != 0)
        return gr__gpu_pool_current(call, device, memPool);
    grMemPool_t p = current();
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating the default pool", call);
    *memPool = p;
    return grSuccess;
}

GR_API grError_t grDeviceGetDefaultMemPool(grMemPool_t *memPool, int device)
{
    return gr__pool_get_default("grDeviceGetDefaultMemPool", memPool, device);
}

GR_API grError_t grDeviceSetMemPool(int device, grMemPool_t memPool)
{
    return gr__pool_set_current("grDeviceSetMemPool", device, memPool);
}

GR_API grError_t grDeviceGetMemPool(grMemPool_t *memPool, int device)
{
    return gr__pool_get_current("grDeviceGetMemPool", memPool, device);
}

/* The capture path of grMallocAsync / grFreeAsync. */
static grError_t capture_memop(const char *call, gr_stream *s, grGraphNodeType t, void **pp, void *p,
                               size_t size)
{
    grGraphNodeParams d;
    memset(&d, 0, sizeof d);
    d.type = t;
    if (t == grGraphNodeTypeMemAlloc) {
        /* As outside a capture: 0 bytes give NULL (and no node). */
        if (size == 0) {
            *pp = NULL;
            return grSuccess;
        }
        d.alloc.poolProps.allocType = grMemAllocationTypePinned;
        d.alloc.poolProps.location.type = grMemLocationTypeDevice;
        d.alloc.poolProps.location.id = s->device; /* memory of the capturing stream's device */
        d.alloc.bytesize = size;
        /* The address is fixed now, as for grGraphAddMemAllocNode; the
         * node takes the reservation, and a failed record releases it. */
        grError_t err = gr__graphmem_reserve(call, s->device, size, NULL, 0, &d.alloc.dptr);
        if (err != grSuccess)
            return err;
    } else {
        d.free.dptr = p;
    }
    grError_t err = gr__capture_hooks.record(call, s, &d);
    if (err == grSuccess && pp)
        *pp = d.alloc.dptr;
    return err;
}

/* ------------------------------------------------ on a GPU's streams */

/* Stream-ordered allocation on a GPU stream: from the device's current
 * CUDA pool (cuMemAllocAsync) or the given pool of that GPU
 * (cuMemAllocFromPoolAsync), tracked as pool memory of that GPU. */
static GR_NOINLINE grError_t gpu_malloc_async(const char *call, void **devPtr, size_t size, grMemPool_t pool,
                                              gr_stream *s)
{
    void *p = NULL;
    grError_t err = pool ? gr__devkind()->pool_alloc(call, s, pool->gpu, size, &p)
                         : gr__devkind()->alloc_async(call, s, size, &p);
    if (err)
        return err;
    if (!gr__mem_track_owned(p, size, GR_MEM_POOL, s->device)) {
        (void)gr__devkind()->free_async(call, s, p);
        return gr__fail(grErrorMemoryAllocation, "%s: no memory left to record the allocation of %zu bytes",
                        call, size);
    }
    *devPtr = p;
    return grSuccess;
}

/* grFreeAsync of a GPU's stream-ordered allocation (or of anything on a
 * GPU stream): on a stream of a GPU, in that stream's order. */
static GR_NOINLINE grError_t gpu_free_async(const char *call, void *p, gr_stream *s)
{
    void *base = NULL;
    gr_mem_kind kind = GR_MEM_DEVICE;
    int owner = GR_OWNER_CPU;
    /* A GPU's graph allocation that outlived its launch: freed now (its
     * memory stays mapped for its executable, so no stream order is
     * needed), as on the CPU. */
    grError_t err = gr__graphmem_free_outside(call, p);
    if (err != grErrorUnknown)
        return err;
    /* grMalloc memory too: CUDA 13 frees it in stream order
     * (tests/probes/memory.cu), and so does the driver's cuMemFreeAsync. */
    if (!gr__mem_lookup(p, &base, NULL, &kind) || base != p ||
        (kind != GR_MEM_POOL && kind != GR_MEM_DEVICE) || !gr__mem_owner(p, &owner) || owner <= 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p is not the start of a live grMallocAsync or grMalloc allocation of a "
                        "GPU; on a GPU stream, free what grMallocAsync or grMalloc returned on a GPU",
                        call, p);
    if (s->device == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p is memory of device %d (a GPU), allocated by %s; free it on a "
                        "stream of a GPU, not on stream %p of the CPU",
                        call, p, owner, kind == GR_MEM_POOL ? "grMallocAsync" : "grMalloc", GR_PTR(s));
    if (!gr__mem_untrack(p, kind))
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was freed by another thread during this call; free each "
                        "allocation once",
                        call, p);
    return gr__devkind()->free_async(call, s, p);
}

static GR_NOINLINE grError_t malloc_async(const char *call, void **devPtr, size_t size, grMemPool_t pool,
                                          bool from_pool, grStream_t hStream)
{
    gr_stream *s = NULL;
    grError_t err;
    if (GR_UNLIKELY(!devPtr))
        return gr__fail(grErrorInvalidValue,
                        "%s: devPtr is NULL; pass the address of a void * that receives the allocation",
                        call);
    if (from_pool && (err = gr__pool_check(call, pool)) != grSuccess)
        return err;
    if (GR_UNLIKELY((err = gr__stream_from_handle(call, hStream, &s)) != grSuccess))
        return err;
    if (GR_UNLIKELY(from_pool && pool->device != s->device))
        return gr__fail(grErrorInvalidValue,
                        "%s: pool %p is a pool of device %d but stream %p is of device %d; graphrt "
                        "allocates from a pool on streams of the pool's device",
                        call, GR_PTR(pool), pool->device, GR_PTR(s), s->device);
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return capture_memop(call, s, grGraphNodeTypeMemAlloc, devPtr, NULL, size);
    if (GR_UNLIKELY(gr__capture_any()) && (err = gr__capture_hooks.check_implicit_slow(call, s)) != grSuccess)
        return err;
    if (GR_UNLIKELY(size == 0)) {
        *devPtr = NULL;
        return grSuccess;
    }
    if (GR_UNLIKELY(s->device != 0))
        return gpu_malloc_async(call, devPtr, size, from_pool ? pool : NULL, s);
    if (!from_pool) {
        pool = current();
        if (GR_UNLIKELY(!pool))
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating the default pool", call);
    }
    err = pool_alloc(call, pool, devPtr, size, s);
    gr_assert_expensive(gr__pool_is_valid(pool));
    return err;
}

/* The common case of grMallocAsync and grFreeAsync, tested first: a
 * small block and this thread's cache bound to the pool and to the
 * stream, which must be live and not capturing (cache_pop, cache_push_hot
 * test it once the binding matched: a bound stream is a real one, never
 * NULL or a special handle). Leaf code that saves no register; anything
 * else, and every error, takes the full path, which checks everything
 * again. */

GR_API grError_t grMallocAsync(void **devPtr, size_t size, grStream_t hStream)
{
    gr_stream *s = (gr_stream *)hStream;
    gr_pcache *c = gr__ptls.cache;
    if (GR_LIKELY(c && devPtr && size - 1 < CACHE_MAX_BYTES)) {
        grMemPool_t pool = gr_load_acquire(&current_pool);
        if (!pool)
            pool = gr_load_acquire(&dflt_cache);
        /* A NULL pool matches no cache that holds blocks. */
        if (GR_LIKELY(cache_pop(c, pool, s, small_class_of(size), size, devPtr, true)))
            return grSuccess;
    }
    return malloc_async("grMallocAsync", devPtr, size, NULL, false, hStream);
}

GR_API grError_t grMallocFromPoolAsync(void **ptr, size_t size, grMemPool_t memPool, grStream_t stream)
{
    return malloc_async("grMallocFromPoolAsync", ptr, size, memPool, true, stream);
}

static GR_NOINLINE grError_t free_async(void *devPtr, grStream_t hStream)
{
    static const char call[] = "grFreeAsync";
    gr_stream *s = NULL;
    grError_t err;
    if (GR_UNLIKELY((err = gr__stream_from_handle(call, hStream, &s)) != grSuccess))
        return err;
    if (GR_UNLIKELY(!devPtr))
        return grSuccess;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return capture_memop(call, s, grGraphNodeTypeMemFree, NULL, devPtr, 0);
    if (GR_UNLIKELY(gr__capture_any()) && (err = gr__capture_hooks.check_implicit_slow(call, s)) != grSuccess)
        return err;
    int owner = GR_OWNER_CPU;
    if (GR_UNLIKELY(s->device != 0 || (gr__gpu_active() && gr__mem_owner(devPtr, &owner) && owner > 0)))
        return gpu_free_async(call, devPtr, s);
    return pool_free(call, devPtr, s, true);
}

GR_API grError_t grFreeAsync(void *devPtr, grStream_t hStream)
{
    gr_stream *s = (gr_stream *)hStream;
    gr_pcache *c = gr__ptls.cache;
    /* The newest ring entry: a free right after its allocation. */
    /* hot.bind 0: not from the cache (a large block, say): full path. */
    if (GR_LIKELY(c && devPtr && gr__ptls.hot.ptr == devPtr && gr__ptls.hot.bind &&
                  gr__ptls.epoch == gr_load_relaxed(&gr__pool_ring_epoch)) &&
        GR_LIKELY(cache_push_hot(c, devPtr, s)))
        return grSuccess;
    return free_async(devPtr, hStream);
}

GR_API grError_t grMemPoolTrimTo(grMemPool_t memPool, size_t minBytesToKeep)
{
    grError_t err;
    if ((err = gr__pool_check("grMemPoolTrimTo", memPool)) != grSuccess)
        return err;
    if (memPool->device)
        return gr__devkind()->pool_trim("grMemPoolTrimTo", memPool->device, memPool->gpu, minBytesToKeep);
    if (reserved_of(memPool) > minBytesToKeep)
        gr__pcache_flush(memPool, false);
    gr__pool_trim(memPool, minBytesToKeep);
    return grSuccess;
}

GR_API grError_t grMemPoolSetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value)
{
    static const char call[] = "grMemPoolSetAttribute";
    grError_t err;
    if ((err = gr__pool_check(call, memPool)) != grSuccess)
        return err;
    if (!value)
        return gr__fail(grErrorInvalidValue, "%s: value is NULL; pass a pointer to the new value", call);
    if (memPool->device)
        return gr__gpu_pool_attribute(call, memPool, attr, value, true);
    switch (attr) {
    case grMemPoolReuseFollowEventDependencies:
        gr_store_seq_cst(&memPool->reuse_follow, *(const int *)value != 0);
        return grSuccess;
    case grMemPoolReuseAllowOpportunistic:
        gr_store_seq_cst(&memPool->reuse_opportunistic, *(const int *)value != 0);
        return grSuccess;
    case grMemPoolReuseAllowInternalDependencies:
        gr_store_seq_cst(&memPool->reuse_internal, *(const int *)value != 0);
        return grSuccess;
    case grMemPoolAttrReleaseThreshold:
        gr_store_seq_cst(&memPool->threshold, *(const uint64_t *)value);
        gr__spin_lock(&memPool->lock);
        over_update_locked(memPool);
        gr__spin_unlock(&memPool->lock);
        return grSuccess;
    case grMemPoolAttrReservedMemHigh:
    case grMemPoolAttrUsedMemHigh: {
        uint64_t v = *(const uint64_t *)value;
        if (v != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: a high-water mark can only be reset, by setting it to 0 (got %llu)", call,
                            (unsigned long long)v);
        gr__spin_lock(&memPool->lock);
        if (attr == grMemPoolAttrReservedMemHigh) {
            memPool->reserved_high = reserved_of(memPool);
        } else {
            /* The caches' peaks so far are history: a new epoch. */
            memPool->used_high = gr__pcache_used_locked(memPool);
            gr__pcache_peaks_reset_locked(memPool);
        }
        gr__spin_unlock(&memPool->lock);
        return grSuccess;
    }
    case grMemPoolAttrReservedMemCurrent:
    case grMemPoolAttrUsedMemCurrent:
    case grMemPoolAttrAllocationType:
    case grMemPoolAttrExportHandleTypes:
    case grMemPoolAttrLocationId:
    case grMemPoolAttrLocationType:
    case grMemPoolAttrMaxPoolSize:
    case grMemPoolAttrHwDecompressEnabled:
        return gr__fail(grErrorInvalidValue, "%s: attribute %d is read-only", call, (int)attr);
    }
    return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grMemPoolAttr", call, (int)attr);
}

GR_API grError_t grMemPoolGetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value)
{
    static const char call[] = "grMemPoolGetAttribute";
    grError_t err;
    uint64_t v;
    if ((err = gr__pool_check(call, memPool)) != grSuccess)
        return err;
    if (!value)
        return gr__fail(grErrorInvalidValue, "%s: value is NULL; pass where to store the value", call);
    if (memPool->device)
        return gr__gpu_pool_attribute(call, memPool, attr, value, false);
    switch (attr) {
    case grMemPoolReuseFollowEventDependencies:
        *(int *)value = gr_load_seq_cst(&memPool->reuse_follow);
        return grSuccess;
    case grMemPoolReuseAllowOpportunistic:
        *(int *)value = gr_load_seq_cst(&memPool->reuse_opportunistic);
        return grSuccess;
    case grMemPoolReuseAllowInternalDependencies:
        *(int *)value = gr_load_seq_cst(&memPool->reuse_internal);
        return grSuccess;
    case grMemPoolAttrReleaseThreshold:
        *(uint64_t *)value = gr_load_seq_cst(&memPool->threshold);
        return grSuccess;
    case grMemPoolAttrReservedMemCurrent:
    case grMemPoolAttrReservedMemHigh:
    case grMemPoolAttrUsedMemCurrent:
    case grMemPoolAttrUsedMemHigh:
        gr__spin_lock(&memPool->lock);
        v = attr == grMemPoolAttrReservedMemCurrent ? reserved_of(memPool)
            : attr == grMemPoolAttrReservedMemHigh  ? memPool->reserved_high
            : attr == grMemPoolAttrUsedMemCurrent   ? gr__pcache_used_locked(memPool)
                                                    : gr__pcache_used_high_locked(memPool);
        gr__spin_unlock(&memPool->lock);
        *(uint64_t *)value = v;
        return grSuccess;
    case grMemPoolAttrAllocationType:
        *(grMemAllocationType *)value = grMemAllocationTypePinned;
        return grSuccess;
    case grMemPoolAttrExportHandleTypes:
        *(grMemAllocationHandleType *)value = grMemHandleTypeNone;
        return grSuccess;
    case grMemPoolAttrLocationId:
        *(int *)value = memPool->props.location.id;
        return grSuccess;
    case grMemPoolAttrLocationType:
        *(grMemLocationType *)value = grMemLocationTypeDevice;
        return grSuccess;
    case grMemPoolAttrMaxPoolSize:
        *(uint64_t *)value = memPool->props.maxSize;
        return grSuccess;
    case grMemPoolAttrHwDecompressEnabled:
        *(int *)value = 0;
        return grSuccess;
    }
    return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grMemPoolAttr", call, (int)attr);
}

/* ---------------------------------------------------------- device reset */

void gr__pool_reset_all(void)
{
    gr_store_seq_cst(&current_pool, NULL);
    pthread_mutex_lock(&registry.lock);
    grMemPool_t list = registry.list;
    registry.list = NULL;
    registry.dflt = NULL;
    gr_store_seq_cst(&dflt_cache, NULL);
    pthread_mutex_unlock(&registry.lock);
    /* Every block of every pool, live, cached or free, dies with the
     * device; so do the descriptors every thread's ring and cache point
     * to. */
    gr__pcache_reset_all();
    gr__pool_blocks_reset();
    while (list) {
        grMemPool_t n = list->reg_next;
        list->magic = GR_MAGIC_DEAD;
        gr__shell_retire(&pool_shelf, list);
        list = n;
    }
}
