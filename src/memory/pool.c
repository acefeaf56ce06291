/*
 * pool.c - stream-ordered memory pools: grMemPoolCreate / Destroy, the
 * device's default and current pool, grMallocAsync, grMallocFromPoolAsync,
 * grFreeAsync, trimming, the release threshold and the pool attributes.
 *
 * Cost: an allocation on the stream that freed the block last takes the
 * pool's spinlock once and pops the head of its class's free list; a free
 * on the thread that allocated the block, among its last RING_SIZE
 * allocations, finds the descriptor in a thread-local ring and takes the
 * pool's spinlock only; any other free takes a map shard's spinlock and
 * the pool's. Everything else (another stream, a fresh block, trimming)
 * is on noinline slow paths.
 *
 * Invariants (besides those of pool.h):
 *   - 'reserved' is the sum of the class sizes of the pool's blocks that
 *     are not GONE, 'used' that of its LIVE blocks; both only under 'lock';
 *   - a pool's 'refs' counts its handle (or the runtime, for the default
 *     pool) plus one per block not yet given back: a destroyed pool lives
 *     on, refusing new allocations, until its last block is freed;
 *   - ASan builds poison a block from the moment its free takes effect in
 *     stream order until it is handed out again; 'gen' (incremented by
 *     each allocation) lets the stream-ordered poisoning skip a block that
 *     was handed out again before it ran.
 */
#include "pool.h"

#include "../capture/capture.h"
#include "graphmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GR_POOL_ASAN 1
#endif
#endif
#if !defined(GR_POOL_ASAN) && defined(__SANITIZE_ADDRESS__)
#define GR_POOL_ASAN 1
#endif
#ifdef GR_POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define GR_POOL_ASAN 0
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* ------------------------------------------------------------ structures */

/* Size classes: 256 bytes, then four per power of two up to 2^48. */
#define NCLASS 168

enum { BLOCK_LIVE = 1, BLOCK_FREE = 2, BLOCK_GONE = 3 };

typedef struct gr_pblock {
    void *ptr;
    size_t size;                  /* class size: what the block reserves */
    size_t req;                   /* bytes asked for by the live allocation */
    struct grMemPool_st *pool;
    struct gr_pblock *next;       /* free list; guarded by pool->lock */
    struct gr_pblock *hnext;      /* map chain; guarded by its shard's lock */
    gr_stream *fs;                /* stream of the last free, retained */
    uint64_t fseq;                /* fs's ops that precede that free */
    uint64_t gen;                 /* allocations so far */
    uint16_t cls;
    uint8_t state;                /* BLOCK_*; guarded by pool->lock */
} gr_pblock;

struct grMemPool_st {
    uint32_t magic;               /* GR_MAGIC_POOL; GR_MAGIC_DEAD once destroyed */
    atomic_int refs;
    bool is_default;
    grMemPoolProps props;         /* immutable */
    atomic_int reuse_follow, reuse_opportunistic, reuse_internal;
    _Atomic uint64_t threshold;
    /* Guarded by 'lock'. */
    GR_ALIGNED_CL gr_spinlock lock;
    gr_pblock *bins[NCLASS];
    uint64_t reserved, reserved_high, used, used_high;
    /* Registry, guarded by registry.lock. */
    struct grMemPool_st *reg_next, *reg_prev;
};

static struct {
    pthread_mutex_t lock;
    grMemPool_t list;             /* every pool not yet freed */
    grMemPool_t dflt;             /* device 0's default pool, created lazily */
} registry = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

/* The device's current pool; NULL means the default pool. */
static grMemPool_t _Atomic current_pool;

atomic_bool gr__pool_trim_pending;

/* ------------------------------------------------------------- size classes */

static inline unsigned size_class(size_t n, size_t *csize)
{
    if (n <= 256) {
        *csize = 256;
        return 0;
    }
    size_t m = n - 1;
    unsigned lg = 63u - (unsigned)__builtin_clzll((unsigned long long)m); /* >= 8 */
    size_t c = (m >> (lg - 2)) + 1;                                        /* 5..8 */
    *csize = c << (lg - 2);
    return (lg - 8) * 4 + (unsigned)(c - 5) + 1;
}

/* ------------------------------------------------------------ address map */

#define MAP_BITS 16
#define MAP_SHARDS 64

static gr_pblock *map_buckets[1u << MAP_BITS];
static struct {
    GR_ALIGNED_CL gr_spinlock lock;
} map_shards[MAP_SHARDS];

static inline uint32_t map_hash(const void *p)
{
    return (uint32_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> (64 - MAP_BITS));
}

static inline gr_spinlock *map_lock_for(uint32_t h)
{
    return &map_shards[h & (MAP_SHARDS - 1)].lock;
}

/* Under the shard's lock. */
static gr_pblock *map_find_locked(uint32_t h, const void *p)
{
    gr_pblock *b = map_buckets[h];
    while (b && b->ptr != p)
        b = b->hnext;
    return b;
}

static void map_insert(gr_pblock *b)
{
    uint32_t h = map_hash(b->ptr);
    gr__spin_lock(map_lock_for(h));
    b->hnext = map_buckets[h];
    map_buckets[h] = b;
    gr__spin_unlock(map_lock_for(h));
}

static void map_remove(gr_pblock *b)
{
    uint32_t h = map_hash(b->ptr);
    gr__spin_lock(map_lock_for(h));
    for (gr_pblock **pp = &map_buckets[h]; *pp; pp = &(*pp)->hnext)
        if (*pp == b) {
            *pp = b->hnext;
            break;
        }
    gr__spin_unlock(map_lock_for(h));
}

/* ------------------------------------------------------ recent blocks */

/* Each thread remembers the blocks it allocated last (pointer ->
 * descriptor), so that their grFreeAsync on that thread skips the map and
 * its shard lock; the state is still checked and changed under the pool's
 * lock, so a double free is refused as before.
 *
 * An entry stays valid while its block is LIVE: only a free makes a block
 * FREE, and only a FREE block is given back. A free on the owning thread
 * through its ring drops the entry; every other free (through the map)
 * and every device reset bump 'ring_epoch', which makes every thread drop
 * its whole ring at its next use. So a thread that sees an unchanged epoch
 * knows that nobody freed its entries since it recorded them (a free that
 * happens before this one, in the user's order, bumped the epoch first).
 * Only two racing frees of one pointer, a user error with no defined
 * result, can see a stale entry. */
#define RING_SIZE 8

typedef struct ring_entry {
    const void *ptr;
    gr_pblock *b;
} ring_entry;

static GR_ALIGNED_CL _Atomic uint64_t ring_epoch;

static _Thread_local struct {
    uint64_t epoch;               /* ring_epoch when the entries were valid */
    unsigned next;                /* slot of the next insertion */
    ring_entry e[RING_SIZE];
} ring;

/* Drops the whole ring if a free through the map (or a reset) happened
 * since its entries were recorded. One relaxed load when nothing did. */
static inline void ring_sync(void)
{
    uint64_t e = atomic_load_explicit(&ring_epoch, memory_order_relaxed);
    if (GR_UNLIKELY(ring.epoch != e)) {
        memset(ring.e, 0, sizeof ring.e);
        ring.epoch = e;
    }
}

static inline void ring_put(gr_pblock *b)
{
    ring_sync();
    unsigned i = ring.next;
    ring.e[i].ptr = b->ptr;
    ring.e[i].b = b;
    ring.next = (i + 1) % RING_SIZE;
}

/* The descriptor of p if this thread allocated it recently and nobody
 * freed it since; the entry is dropped (the caller frees the block). */
static inline gr_pblock *ring_take(const void *p)
{
    ring_sync();
    unsigned i = ring.next;
    for (unsigned k = 0; k < RING_SIZE; k++) {
        i = (i + RING_SIZE - 1) % RING_SIZE;
        if (ring.e[i].ptr == p) {
            gr_pblock *b = ring.e[i].b;
            ring.e[i].ptr = NULL;
            ring.e[i].b = NULL;
            return b;
        }
    }
    return NULL;
}

static inline void ring_invalidate(void)
{
    atomic_fetch_add_explicit(&ring_epoch, 1, memory_order_relaxed);
}

bool gr__pool_owns(const void *p)
{
    uint32_t h = map_hash(p);
    gr__spin_lock(map_lock_for(h));
    gr_pblock *b = map_find_locked(h, p);
    bool live = b && b->state == BLOCK_LIVE;
    gr__spin_unlock(map_lock_for(h));
    /* grFree of a graph allocation comes here too (pool_free passes it on
     * to graph memory). */
    return live || (!b && gr__graphmem_is_alloc(p));
}

/* ------------------------------------------------------------- pool life */

static void pool_init_attrs(grMemPool_t pool)
{
    /* CUDA's defaults: every reuse policy on, release threshold 0. */
    atomic_init(&pool->reuse_follow, 1);
    atomic_init(&pool->reuse_opportunistic, 1);
    atomic_init(&pool->reuse_internal, 1);
    atomic_init(&pool->threshold, 0);
}

static grMemPool_t pool_new(const grMemPoolProps *props, bool is_default)
{
    grMemPool_t pool = gr__aligned_alloc(GR_CACHELINE, sizeof *pool);
    if (!pool)
        return NULL;
    memset(pool, 0, sizeof *pool);
    pool->magic = GR_MAGIC_POOL;
    atomic_init(&pool->refs, 1);
    pool->is_default = is_default;
    pool->props = *props;
    pool_init_attrs(pool);
    pthread_mutex_lock(&registry.lock);
    pool->reg_next = registry.list;
    if (registry.list)
        registry.list->reg_prev = pool;
    registry.list = pool;
    pthread_mutex_unlock(&registry.lock);
    return pool;
}

static void pool_unref(grMemPool_t pool)
{
    if (gr_fetch_sub_acq_rel(&pool->refs, 1) != 1)
        return;
    pthread_mutex_lock(&registry.lock);
    if (pool->reg_prev)
        pool->reg_prev->reg_next = pool->reg_next;
    else if (registry.list == pool)
        registry.list = pool->reg_next;
    if (pool->reg_next)
        pool->reg_next->reg_prev = pool->reg_prev;
    pthread_mutex_unlock(&registry.lock);
    pool->magic = GR_MAGIC_DEAD;
    gr__free(pool);
}

/* registry.dflt, readable without the registry's mutex (the hot path of
 * every grMallocAsync); written under it. */
static grMemPool_t _Atomic dflt_cache;

static grMemPool_t default_pool(void)
{
    grMemPool_t p = atomic_load_explicit(&dflt_cache, memory_order_acquire);
    if (GR_LIKELY(p))
        return p;
    grMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = grMemAllocationTypePinned;
    props.location.type = grMemLocationTypeDevice;
    p = pool_new(&props, true);
    if (!p)
        return NULL;
    pthread_mutex_lock(&registry.lock);
    if (registry.dflt) {
        /* Another thread won the race: drop ours. */
        grMemPool_t ours = p;
        p = registry.dflt;
        pthread_mutex_unlock(&registry.lock);
        pool_unref(ours);
        return p;
    }
    registry.dflt = p;
    atomic_store_explicit(&dflt_cache, p, memory_order_release);
    pthread_mutex_unlock(&registry.lock);
    return p;
}

/* The pool grMallocAsync uses: the current one, else the default one. */
static inline grMemPool_t current(void)
{
    grMemPool_t p = atomic_load_explicit(&current_pool, memory_order_acquire);
    return GR_LIKELY(p) ? p : default_pool();
}

static grError_t check_pool(const char *call, grMemPool_t pool)
{
    if (pool == NULL)
        return gr__fail(grErrorInvalidValue, "%s: memPool is NULL; pass a pool from grMemPoolCreate or "
                                             "grDeviceGetDefaultMemPool",
                        call);
    if (pool->magic != GR_MAGIC_POOL)
        return gr__fail(grErrorInvalidValue,
                        "%s: memory pool %p is not live (destroyed by grMemPoolDestroy, or not a grMemPool_t)",
                        call, GR_PTR(pool));
    return grSuccess;
}

/* ---------------------------------------------------------- giving back */

/* Gives a block that is no longer on any list back to the OS. */
static void block_release(gr_pblock *b)
{
    grMemPool_t pool = b->pool;
    map_remove(b);
    gr__mem_untrack(b->ptr, GR_MEM_POOL);
    UNPOISON(b->ptr, b->size);
    free(b->ptr);
    if (b->fs)
        gr__stream_release(b->fs);
    free(b);
    pool_unref(pool);
}

/* Unlinks, under the pool's lock, FREE blocks whose frees have completed,
 * largest classes first, until 'reserved' <= keep; returns them as a list
 * (marked GONE) for block_release outside the lock. */
static gr_pblock *detach_reached_locked(grMemPool_t pool, uint64_t keep)
{
    gr_pblock *out = NULL;
    for (int c = NCLASS - 1; c >= 0 && pool->reserved > keep; c--) {
        gr_pblock **pp = &pool->bins[c];
        while (*pp && pool->reserved > keep) {
            gr_pblock *b = *pp;
            if (b->fs && !gr__stream_reached(b->fs, b->fseq)) {
                pp = &b->next;
                continue;
            }
            *pp = b->next;
            b->state = BLOCK_GONE;
            pool->reserved -= b->size;
            b->next = out;
            out = b;
        }
    }
    return out;
}

static void trim(grMemPool_t pool, uint64_t keep)
{
    gr__spin_lock(&pool->lock);
    gr_pblock *list = detach_reached_locked(pool, keep);
    gr__spin_unlock(&pool->lock);
    while (list) {
        gr_pblock *n = list->next;
        block_release(list);
        list = n;
    }
}

void gr__pool_on_sync_slow(void)
{
    if (!atomic_exchange_explicit(&gr__pool_trim_pending, false, memory_order_acq_rel))
        return;
    /* Pin every pool under the registry lock, trim outside it. */
    for (;;) {
        grMemPool_t todo = NULL;
        uint64_t keep = 0;
        pthread_mutex_lock(&registry.lock);
        for (grMemPool_t p = registry.list; p; p = p->reg_next) {
            uint64_t th = atomic_load_explicit(&p->threshold, memory_order_relaxed);
            gr__spin_lock(&p->lock);
            bool over = p->reserved > th && p->reserved > p->used;
            gr__spin_unlock(&p->lock);
            if (over) {
                todo = p;
                keep = th;
                gr_fetch_add_relaxed(&p->refs, 1);
                break;
            }
        }
        pthread_mutex_unlock(&registry.lock);
        if (!todo)
            return;
        uint64_t before;
        gr__spin_lock(&todo->lock);
        before = todo->reserved;
        gr__spin_unlock(&todo->lock);
        trim(todo, keep);
        gr__spin_lock(&todo->lock);
        bool progress = todo->reserved < before;
        gr__spin_unlock(&todo->lock);
        pool_unref(todo);
        if (!progress) {
            /* Frees still pending: try again at the next synchronisation. */
            atomic_store_explicit(&gr__pool_trim_pending, true, memory_order_relaxed);
            return;
        }
    }
}

/* ------------------------------------------------------------ allocation */

/* A fresh block from the OS for class 'cls' of csize bytes, LIVE, counted
 * in the pool; NULL (with the detail set) on failure. */
static GR_NOINLINE gr_pblock *block_new(const char *call, grMemPool_t pool, unsigned cls, size_t csize,
                                        size_t req, grError_t *err)
{
    gr__spin_lock(&pool->lock);
    if (pool->props.maxSize && pool->reserved + csize > pool->props.maxSize) {
        gr__spin_unlock(&pool->lock);
        /* Free blocks other streams cannot use yet may be all that is left:
         * give back what is reusable and retry once. */
        trim(pool, 0);
        gr__spin_lock(&pool->lock);
        if (pool->reserved + csize > pool->props.maxSize) {
            uint64_t reserved = pool->reserved;
            gr__spin_unlock(&pool->lock);
            *err = gr__fail(grErrorMemoryAllocation,
                            "%s: pool %p would grow to %llu bytes, past its maxSize of %zu bytes; free memory "
                            "or create the pool with a larger maxSize",
                            call, GR_PTR(pool), (unsigned long long)(reserved + csize), pool->props.maxSize);
            return NULL;
        }
    }
    gr__spin_unlock(&pool->lock);
    gr_pblock *b = calloc(1, sizeof *b);
    void *mem = NULL;
    /* posix_memalign: class sizes such as 320 are not multiples of the
     * alignment, which aligned_alloc requires. */
    if (b && posix_memalign(&mem, GR_MEM_ALIGN, csize) != 0)
        mem = NULL;
    if (!b || !mem) {
        free(b);
        free(mem);
        *err = gr__fail(grErrorMemoryAllocation, "%s: the host could not provide %zu bytes; free memory or "
                                                 "allocate less",
                        call, req);
        return NULL;
    }
    if (!gr__mem_track(mem, csize, GR_MEM_POOL)) {
        free(b);
        free(mem);
        *err = gr__fail(grErrorMemoryAllocation, "%s: no memory left to record the allocation of %zu bytes",
                        call, req);
        return NULL;
    }
    b->ptr = mem;
    b->size = csize;
    b->pool = pool;
    b->cls = (uint16_t)cls;
    b->state = BLOCK_LIVE;
    gr_fetch_add_relaxed(&pool->refs, 1);
    map_insert(b);
    gr__spin_lock(&pool->lock);
    pool->reserved += csize;
    if (pool->reserved > pool->reserved_high)
        pool->reserved_high = pool->reserved;
    gr__spin_unlock(&pool->lock);
    return b;
}

/* How many of t's ops s's future work follows through the event waits
 * queued on s (gr__stream_known without completion: that one is the
 * opportunistic policy's business). Takes s's lock. */
static uint64_t known_by_waits(gr_stream *s, gr_stream *t)
{
    uint64_t k = 0;
    gr__stream_lock(s);
    for (unsigned i = 0; i < GR_KNOWN_MAX; i++)
        if (s->known[i].id == t->serial)
            k = s->known[i].seq;
    gr__stream_unlock_no_activate(s);
    return k;
}

/* How a free block may go to stream s: 0 not at all, 1 as it is, 2 after
 * s waits for the free (internal dependency). Under the pool's lock. */
static int reuse_mode(grMemPool_t pool, gr_pblock *b, gr_stream *s)
{
    if (b->fs == NULL || b->fs == s)
        return 1;
    if (gr_load_relaxed(&pool->reuse_follow) && known_by_waits(s, b->fs) >= b->fseq)
        return 1;
    if (gr_load_relaxed(&pool->reuse_opportunistic) && gr__stream_reached(b->fs, b->fseq))
        return 1;
    return gr_load_relaxed(&pool->reuse_internal) ? 2 : 0;
}

/* The slow search of a class's free list: the first block s may use as it
 * is, else the first it may use after a wait (*wait set). Under the lock. */
static GR_NOINLINE gr_pblock *take_slow(grMemPool_t pool, unsigned cls, gr_stream *s, bool *wait)
{
    gr_pblock **pp, **waitable = NULL;
    unsigned scanned = 0;
    for (pp = &pool->bins[cls]; *pp && scanned < 16; pp = &(*pp)->next, scanned++) {
        int m = reuse_mode(pool, *pp, s);
        if (m == 1)
            break;
        if (m == 2 && !waitable)
            waitable = pp;
    }
    if (!*pp || scanned == 16) {
        if (!waitable)
            return NULL;
        pp = waitable;
        *wait = true;
    }
    gr_pblock *b = *pp;
    *pp = b->next;
    return b;
}

static grError_t pool_alloc(const char *call, grMemPool_t pool, void **out, size_t size, gr_stream *s)
{
    size_t csize;
    bool wait = false;
    grError_t err = grSuccess;
    if (GR_UNLIKELY(size > ((size_t)1 << 47)))
        return gr__fail(grErrorMemoryAllocation, "%s: %zu bytes requested, more than the device can hold; "
                                                 "allocate less",
                        call, size);
    unsigned cls = size_class(size, &csize);
    gr__spin_lock(&pool->lock);
    gr_pblock *b = pool->bins[cls];
    if (GR_LIKELY(b && (b->fs == s || b->fs == NULL)))
        pool->bins[cls] = b->next;
    else
        b = b ? take_slow(pool, cls, s, &wait) : NULL;
    if (b) {
        b->state = BLOCK_LIVE;
        pool->used += b->size;
        if (pool->used > pool->used_high)
            pool->used_high = pool->used;
    }
    gr__spin_unlock(&pool->lock);
    if (GR_UNLIKELY(b == NULL)) {
        b = block_new(call, pool, cls, csize, size, &err);
        if (!b)
            return err;
        gr__spin_lock(&pool->lock);
        pool->used += b->size;
        if (pool->used > pool->used_high)
            pool->used_high = pool->used;
        gr__spin_unlock(&pool->lock);
    } else if (GR_UNLIKELY(b->fs != s && b->fs != NULL)) {
        /* From another stream: s's work must follow that free. The block's
         * reference on fs keeps it alive until the WAIT op holds its own. */
        if (wait && !gr__stream_enqueue_wait(s, b->fs, b->fseq)) {
            gr__spin_lock(&pool->lock);
            b->state = BLOCK_FREE;
            pool->used -= b->size;
            b->next = pool->bins[cls];
            pool->bins[cls] = b;
            gr__spin_unlock(&pool->lock);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
        }
        gr__stream_release(b->fs);
        b->fs = NULL;
    }
    b->req = size;
    b->gen++;
    UNPOISON(b->ptr, size);
    ring_put(b);
    *out = b->ptr;
    return grSuccess;
}

/* ------------------------------------------------------------------ free */

#if GR_POOL_ASAN
typedef struct poison_args {
    void *ptr;
    uint64_t gen;
} poison_args;

/* Stream-ordered: the free has taken effect; poison the block unless it
 * was handed out again (or given back) meanwhile. */
static void poison_op(void *data)
{
    const poison_args *a = data;
    uint32_t h = map_hash(a->ptr);
    gr__spin_lock(map_lock_for(h));
    gr_pblock *b = map_find_locked(h, a->ptr);
    if (b) {
        gr__spin_lock(&b->pool->lock);
        if (b->state == BLOCK_FREE && b->gen == a->gen)
            POISON(b->ptr, b->size);
        gr__spin_unlock(&b->pool->lock);
    }
    gr__spin_unlock(map_lock_for(h));
}
#endif

/* Why p cannot be freed by 'call': the detail for a pointer that is not a
 * live pool block's base. */
static GR_NOINLINE grError_t refuse_free(const char *call, void *p, bool was_freed)
{
    void *base;
    size_t size;
    gr_mem_kind kind;
    if (was_freed)
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was freed already (by grFreeAsync or grFree); free each allocation once",
                        call, p);
    if (gr__mem_lookup(p, &base, &size, &kind)) {
        if (kind == GR_MEM_POOL && base != p)
            return gr__fail(grErrorInvalidValue,
                            "%s: pointer %p is %zu bytes inside the pool allocation at %p; pass the allocation's "
                            "base pointer",
                            call, p, (size_t)((uintptr_t)p - (uintptr_t)base), base);
        if (kind == GR_MEM_DEVICE)
            return gr__fail(grErrorInvalidValue, "%s: pointer %p was allocated by grMalloc; free it with grFree",
                            call, p);
        if (kind == GR_MEM_HOST)
            return gr__fail(grErrorInvalidValue,
                            "%s: pointer %p was allocated by grMallocHost; free it with grFreeHost", call, p);
    }
    return gr__fail(grErrorInvalidValue,
                    "%s: pointer %p was not returned by grMallocAsync or grMallocFromPoolAsync (or was freed "
                    "already); pass a pointer they returned, and free it once",
                    call, p);
}

/* A free of p, which is no pool block: a graph allocation that outlived
 * its launch is freed now (its memory stays mapped for its executable, so
 * no stream order is needed), anything else is refused. */
static GR_NOINLINE grError_t free_not_pool(const char *call, void *p)
{
    grError_t err = gr__graphmem_free_outside(call, p);
    if (err != grErrorUnknown)
        return err;
    return refuse_free(call, p, false);
}

/* Releases a block freed into a destroyed pool once its free took effect. */
static void release_op(void *data)
{
    gr_pblock *b = *(gr_pblock **)data;
    gr__spin_lock(&b->pool->lock);
    b->state = BLOCK_GONE;
    b->pool->reserved -= b->size;
    gr__spin_unlock(&b->pool->lock);
    block_release(b);
}

/* Frees p on s. 'recent' lets the free take p's descriptor from this
 * thread's ring (grFreeAsync); otherwise, or on a miss, the map finds it
 * under its shard's lock, held until the block is off LIVE so that it
 * cannot be given back meanwhile. */
static grError_t pool_free(const char *call, void *p, gr_stream *s, bool recent)
{
    gr_spinlock *shard = NULL;
    gr_pblock *b = recent ? ring_take(p) : NULL;
    if (!b) {
        /* Other threads' rings may hold p: make them drop their entries
         * before the block can be given back. */
        ring_invalidate();
        uint32_t h = map_hash(p);
        shard = map_lock_for(h);
        gr__spin_lock(shard);
        b = map_find_locked(h, p);
        if (GR_UNLIKELY(!b)) {
            gr__spin_unlock(shard);
            return free_not_pool(call, p);
        }
    }
    grMemPool_t pool = b->pool;
    gr__spin_lock(&pool->lock);
    if (GR_UNLIKELY(b->state != BLOCK_LIVE)) {
        gr__spin_unlock(&pool->lock);
        if (shard)
            gr__spin_unlock(shard);
        return refuse_free(call, p, true);
    }
    if (GR_UNLIKELY(pool->magic != GR_MAGIC_POOL)) {
        /* Destroyed pool: the block goes back to the OS, in stream order.
         * Mark it before queuing: once queued, release_op may free the
         * block and, with its last reference, the pool. */
        b->state = BLOCK_FREE; /* not on any list: release_op owns it */
        pool->used -= b->size;
        gr__spin_unlock(&pool->lock);
        if (shard)
            gr__spin_unlock(shard);
        grError_t err = gr__stream_enqueue_call(call, s, release_op, &b, sizeof b);
        if (err) {
            /* Nothing queued: the block (and its pool reference) is still
             * the caller's. */
            gr__spin_lock(&pool->lock);
            b->state = BLOCK_LIVE;
            pool->used += b->size;
            gr__spin_unlock(&pool->lock);
        }
        return err;
    }
    gr_stream *old = NULL;
    if (b->fs != s) {
        old = b->fs;
        gr__stream_retain(s);
        b->fs = s;
    }
    b->fseq = gr_load_acquire(&s->tail);
    b->state = BLOCK_FREE;
    b->next = pool->bins[b->cls];
    pool->bins[b->cls] = b;
    pool->used -= b->size;
    bool over = pool->reserved > atomic_load_explicit(&pool->threshold, memory_order_relaxed);
#if GR_POOL_ASAN
    uint64_t gen = b->gen;
    bool reached = gr__stream_reached(s, b->fseq);
    if (reached)
        POISON(b->ptr, b->size);
#endif
    gr__spin_unlock(&pool->lock);
    if (shard)
        gr__spin_unlock(shard);
    if (old)
        gr__stream_release(old);
    if (over && !atomic_load_explicit(&gr__pool_trim_pending, memory_order_relaxed))
        atomic_store_explicit(&gr__pool_trim_pending, true, memory_order_relaxed);
#if GR_POOL_ASAN
    if (!reached) {
        poison_args a = {p, gen};
        (void)gr__stream_enqueue_call(call, s, poison_op, &a, sizeof a);
    }
#endif
    return grSuccess;
}

grError_t gr__pool_free_sync(const char *call, void *p)
{
    grError_t err;
    if (!gr__pool_owns(p))
        return refuse_free(call, p, false);
    if ((err = gr__capture_check_unsafe(call, GR_UNSAFE_FREE, NULL, NULL)) != grSuccess)
        return err;
    /* As CUDA: freeing waits until no queued work can still touch it. */
    gr__device_sync_all();
    gr_runtime *rt = gr__runtime_get();
    if (!rt)
        return gr__fail(grErrorInitializationError, "%s: the graphrt runtime could not start", call);
    if ((err = pool_free(call, p, rt->legacy, false)) != grSuccess)
        return err;
    gr__pool_on_sync();
    return grSuccess;
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
        return gr__fail(grErrorInvalidValue,
                        "%s: poolProps->location.type is %d; pools live on a device (grMemLocationTypeDevice)",
                        call, (int)props->location.type);
    if (props->location.id != 0)
        return gr__fail(grErrorInvalidDevice, "%s: poolProps->location.id is %d; only device 0 exists", call,
                        props->location.id);
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
    grMemPool_t p = pool_new(poolProps, false);
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    *memPool = p;
    return grSuccess;
}

GR_API grError_t grMemPoolDestroy(grMemPool_t memPool)
{
    static const char call[] = "grMemPoolDestroy";
    grError_t err;
    if ((err = check_pool(call, memPool)) != grSuccess)
        return err;
    if (memPool->is_default)
        return gr__fail(grErrorInvalidValue,
                        "%s: pool %p is the device's default pool, which cannot be destroyed", call,
                        GR_PTR(memPool));
    /* Destroying the current pool makes the default pool current again. */
    grMemPool_t expect = memPool;
    atomic_compare_exchange_strong(&current_pool, &expect, NULL);
    gr__spin_lock(&memPool->lock);
    memPool->magic = GR_MAGIC_DEAD;
    gr__spin_unlock(&memPool->lock);
    /* Free blocks go back to the OS once their frees have completed; live
     * blocks when they are freed (pool_free). */
    for (;;) {
        trim(memPool, 0);
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
        gr__stream_wait_for(gr__runtime_get(), s, seq);
        gr__stream_release(s);
    }
    pool_unref(memPool);
    return grSuccess;
}

static grError_t check_device(const char *call, int device)
{
    if (device != 0)
        return gr__fail(grErrorInvalidDevice, "%s: device %d does not exist; only device 0", call, device);
    return grSuccess;
}

GR_API grError_t grDeviceGetDefaultMemPool(grMemPool_t *memPool, int device)
{
    static const char call[] = "grDeviceGetDefaultMemPool";
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = check_device(call, device)) != grSuccess)
        return err;
    grMemPool_t p = default_pool();
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating the default pool", call);
    *memPool = p;
    return grSuccess;
}

GR_API grError_t grDeviceSetMemPool(int device, grMemPool_t memPool)
{
    static const char call[] = "grDeviceSetMemPool";
    grError_t err;
    if ((err = check_device(call, device)) != grSuccess)
        return err;
    if ((err = check_pool(call, memPool)) != grSuccess)
        return err;
    atomic_store_explicit(&current_pool, memPool->is_default ? NULL : memPool, memory_order_release);
    return grSuccess;
}

GR_API grError_t grDeviceGetMemPool(grMemPool_t *memPool, int device)
{
    static const char call[] = "grDeviceGetMemPool";
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = check_device(call, device)) != grSuccess)
        return err;
    grMemPool_t p = current();
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating the default pool", call);
    *memPool = p;
    return grSuccess;
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
        d.alloc.bytesize = size;
        /* The address is fixed now, as for grGraphAddMemAllocNode; the
         * node takes the reservation, and a failed record releases it. */
        grError_t err = gr__graphmem_reserve(call, size, NULL, 0, &d.alloc.dptr);
        if (err != grSuccess)
            return err;
    } else {
        d.free.dptr = p;
    }
    grError_t err = gr__capture_record(call, s, &d);
    if (err == grSuccess && pp)
        *pp = d.alloc.dptr;
    return err;
}

static grError_t malloc_async(const char *call, void **devPtr, size_t size, grMemPool_t pool, bool from_pool,
                              grStream_t hStream)
{
    gr_stream *s = NULL;
    grError_t err;
    if (GR_UNLIKELY(!devPtr))
        return gr__fail(grErrorInvalidValue,
                        "%s: devPtr is NULL; pass the address of a void * that receives the allocation", call);
    if (from_pool && (err = check_pool(call, pool)) != grSuccess)
        return err;
    if (GR_UNLIKELY((err = gr__stream_from_handle(call, hStream, &s)) != grSuccess))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return capture_memop(call, s, grGraphNodeTypeMemAlloc, devPtr, NULL, size);
    if (GR_UNLIKELY(gr__capture_any()) && (err = gr__capture_check_implicit(call, s)) != grSuccess)
        return err;
    if (GR_UNLIKELY(size == 0)) {
        *devPtr = NULL;
        return grSuccess;
    }
    if (!from_pool) {
        pool = current();
        if (GR_UNLIKELY(!pool))
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating the default pool", call);
    }
    return pool_alloc(call, pool, devPtr, size, s);
}

GR_API grError_t grMallocAsync(void **devPtr, size_t size, grStream_t hStream)
{
    return malloc_async("grMallocAsync", devPtr, size, NULL, false, hStream);
}

GR_API grError_t grMallocFromPoolAsync(void **ptr, size_t size, grMemPool_t memPool, grStream_t stream)
{
    return malloc_async("grMallocFromPoolAsync", ptr, size, memPool, true, stream);
}

GR_API grError_t grFreeAsync(void *devPtr, grStream_t hStream)
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
    if (GR_UNLIKELY(gr__capture_any()) && (err = gr__capture_check_implicit(call, s)) != grSuccess)
        return err;
    return pool_free(call, devPtr, s, true);
}

GR_API grError_t grMemPoolTrimTo(grMemPool_t memPool, size_t minBytesToKeep)
{
    grError_t err;
    if ((err = check_pool("grMemPoolTrimTo", memPool)) != grSuccess)
        return err;
    trim(memPool, minBytesToKeep);
    return grSuccess;
}

GR_API grError_t grMemPoolSetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value)
{
    static const char call[] = "grMemPoolSetAttribute";
    grError_t err;
    if ((err = check_pool(call, memPool)) != grSuccess)
        return err;
    if (!value)
        return gr__fail(grErrorInvalidValue, "%s: value is NULL; pass a pointer to the new value", call);
    switch (attr) {
    case grMemPoolReuseFollowEventDependencies:
        atomic_store(&memPool->reuse_follow, *(const int *)value != 0);
        return grSuccess;
    case grMemPoolReuseAllowOpportunistic:
        atomic_store(&memPool->reuse_opportunistic, *(const int *)value != 0);
        return grSuccess;
    case grMemPoolReuseAllowInternalDependencies:
        atomic_store(&memPool->reuse_internal, *(const int *)value != 0);
        return grSuccess;
    case grMemPoolAttrReleaseThreshold:
        atomic_store(&memPool->threshold, *(const uint64_t *)value);
        return grSuccess;
    case grMemPoolAttrReservedMemHigh:
    case grMemPoolAttrUsedMemHigh: {
        uint64_t v = *(const uint64_t *)value;
        if (v != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: a high-water mark can only be reset, by setting it to 0 (got %llu)", call,
                            (unsigned long long)v);
        gr__spin_lock(&memPool->lock);
        if (attr == grMemPoolAttrReservedMemHigh)
            memPool->reserved_high = memPool->reserved;
        else
            memPool->used_high = memPool->used;
        gr__spin_unlock(&memPool->lock);
        return grSuccess;
    }
    case grMemPoolAttrReservedMemCurrent:
    case grMemPoolAttrUsedMemCurrent:
        return gr__fail(grErrorInvalidValue, "%s: attribute %d is read-only", call, (int)attr);
    }
    return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grMemPoolAttr", call, (int)attr);
}

GR_API grError_t grMemPoolGetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value)
{
    static const char call[] = "grMemPoolGetAttribute";
    grError_t err;
    uint64_t v;
    if ((err = check_pool(call, memPool)) != grSuccess)
        return err;
    if (!value)
        return gr__fail(grErrorInvalidValue, "%s: value is NULL; pass where to store the value", call);
    switch (attr) {
    case grMemPoolReuseFollowEventDependencies:
        *(int *)value = atomic_load(&memPool->reuse_follow);
        return grSuccess;
    case grMemPoolReuseAllowOpportunistic:
        *(int *)value = atomic_load(&memPool->reuse_opportunistic);
        return grSuccess;
    case grMemPoolReuseAllowInternalDependencies:
        *(int *)value = atomic_load(&memPool->reuse_internal);
        return grSuccess;
    case grMemPoolAttrReleaseThreshold:
        *(uint64_t *)value = atomic_load(&memPool->threshold);
        return grSuccess;
    case grMemPoolAttrReservedMemCurrent:
    case grMemPoolAttrReservedMemHigh:
    case grMemPoolAttrUsedMemCurrent:
    case grMemPoolAttrUsedMemHigh:
        gr__spin_lock(&memPool->lock);
        v = attr == grMemPoolAttrReservedMemCurrent ? memPool->reserved
            : attr == grMemPoolAttrReservedMemHigh  ? memPool->reserved_high
            : attr == grMemPoolAttrUsedMemCurrent   ? memPool->used
                                                    : memPool->used_high;
        gr__spin_unlock(&memPool->lock);
        *(uint64_t *)value = v;
        return grSuccess;
    }
    return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grMemPoolAttr", call, (int)attr);
}

/* ---------------------------------------------------------- device reset */

void gr__pool_reset_all(void)
{
    atomic_store(&current_pool, NULL);
    pthread_mutex_lock(&registry.lock);
    grMemPool_t list = registry.list;
    registry.list = NULL;
    registry.dflt = NULL;
    atomic_store(&dflt_cache, NULL);
    pthread_mutex_unlock(&registry.lock);
    /* Every block of every pool, live or free, dies with the device; so do
     * the descriptors every thread's ring points to. */
    ring_invalidate();
    for (uint32_t h = 0; h < (1u << MAP_BITS); h++) {
        gr_pblock *b = map_buckets[h];
        map_buckets[h] = NULL;
        while (b) {
            gr_pblock *n = b->hnext;
            gr__mem_untrack(b->ptr, GR_MEM_POOL);
            UNPOISON(b->ptr, b->size);
            free(b->ptr);
            if (b->fs)
                gr__stream_release(b->fs);
            free(b);
            b = n;
        }
    }
    while (list) {
        grMemPool_t n = list->reg_next;
        list->magic = GR_MAGIC_DEAD;
        gr__free(list);
        list = n;
    }
}
