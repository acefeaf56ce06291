/*
 * pool.c - stream-ordered memory pools: grMemPoolCreate / Destroy, the
 * device's default and current pool, grMallocAsync, grMallocFromPoolAsync,
 * grFreeAsync, trimming, the release threshold, the pool attributes, and
 * the fast paths of the threads' caches of free blocks (pcache.c has the
 * rest of them).
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
 */
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

/* ------------------------------------------------------------- size classes */

static inline unsigned size_class(size_t n, size_t *csize)
{
    if (n <= 256) {
        *csize = 256;
        return 0;
    }
    size_t m = n - 1;
    unsigned lg = 63u - (unsigned)__builtin_clzll((unsigned long long)m); /* >= 8 */
    size_t c = (m >> (lg - 2)) + 1;                                       /* 5..8 */
    *csize = c << (lg - 2);
    return (lg - 8) * 4 + (unsigned)(c - 5) + 1;
}

/* size_class of n <= CACHE_MAX_BYTES (4096), by 64-byte granule: every
 * class boundary up to 4096 is a multiple of 64. small_class_of checks it
 * against size_class in debug builds. */
static const uint8_t small_class[64] = {0,  0,  0,  0,  1,  2,  3,  4,  5,  5,  6,  6,  7,  7,  8,  8,
                                        9,  9,  9,  9,  10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12,
                                        13, 13, 13, 13, 13, 13, 13, 13, 14, 14, 14, 14, 14, 14, 14, 14,
                                        15, 15, 15, 15, 15, 15, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16};

/* n in 1..4096. */
static inline unsigned small_class_of(size_t n)
{
    unsigned cls = small_class[(n - 1) >> 6];
#if GR_DEBUG >= 2
    size_t csize;
    gr_assert_internal(cls == size_class(n, &csize));
#endif
    return cls;
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
 * result, can see a stale entry.
 *
 * The newest entry sits apart ('hot'), where a free right after its
 * allocation finds it without any index arithmetic; the next allocation
 * moves it into the ring. */
static GR_ALIGNED_CL _Atomic uint64_t ring_epoch;

/* The thread's ring and its cache (see "thread caches"), in one block so
 * that the hot paths compute one thread-local address. Initial-exec: the
 * default model of position-independent code calls __tls_get_addr, which
 * costs a call and, worse, makes the leaf fast paths save registers around
 * it. The price is a few hundred bytes of the static TLS surplus that
 * glibc keeps for libraries dlopen'ed after start-up. */
__attribute__((tls_model("initial-exec"))) _Thread_local gr_pool_tls gr__ptls;

/* Drops the whole ring if a free through the map (or a reset) happened
 * since its entries were recorded. One relaxed load when nothing did. */
static inline void ring_sync(void)
{
    uint64_t e = gr_load_relaxed(&ring_epoch);
    if (GR_UNLIKELY(gr__ptls.epoch != e)) {
        memset(gr__ptls.e, 0, sizeof gr__ptls.e);
        gr__ptls.hot.ptr = NULL;
        gr__ptls.epoch = e;
    }
}

/* No ring_sync: an entry recorded under a stale epoch is dropped by the
 * next ring_take's, which is only a miss. */
static inline void ring_put_from(const void *ptr, gr_pblock *b, uint32_t cls, uint32_t bind)
{
    if (gr__ptls.hot.ptr) {
        unsigned i = gr__ptls.next;
        gr__ptls.e[i].ptr = gr__ptls.hot.ptr;
        gr__ptls.e[i].b = gr__ptls.hot.b;
        gr__ptls.next = (i + 1) % RING_SIZE;
    }
    gr__ptls.hot.ptr = ptr;
    gr__ptls.hot.b = b;
    gr__ptls.hot.cls = cls;
    gr__ptls.hot.bind = bind;
}

static inline void ring_put(gr_pblock *b)
{
    ring_put_from(b->ptr, b, 0, 0);
}

/* The descriptor of p if this thread allocated it recently and nobody
 * freed it since; the entry is dropped (the caller frees the block). */
static inline gr_pblock *ring_take(const void *p)
{
    ring_sync();
    if (gr__ptls.hot.ptr == p) {
        gr__ptls.hot.ptr = NULL;
        return gr__ptls.hot.b;
    }
    unsigned i = gr__ptls.next;
    for (unsigned k = 0; k < RING_SIZE; k++) {
        i = (i + RING_SIZE - 1) % RING_SIZE;
        if (gr__ptls.e[i].ptr == p) {
            gr_pblock *b = gr__ptls.e[i].b;
            gr__ptls.e[i].ptr = NULL;
            gr__ptls.e[i].b = NULL;
            return b;
        }
    }
    return NULL;
}

static inline void ring_invalidate(void)
{
    gr_fetch_add_relaxed(&ring_epoch, 1);
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

/* Pool objects, kept as dead shells once freed (core.h). */
static gr_shelf pool_shelf = GR_SHELF_INIT(sizeof(struct grMemPool_st));

static grMemPool_t pool_new(const grMemPoolProps *props, bool is_default)
{
    grMemPool_t pool = gr__shell_alloc(&pool_shelf);
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

static grError_t check_pool(const char *call, grMemPool_t pool)
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

/* ------------------------------------------------------ reserved memory */

/* Reserved bytes; exact under the pool's lock, a hint without it. */
static inline uint64_t reserved_of(grMemPool_t pool)
{
    return gr_load_relaxed(&pool->reserved);
}

/* Under the pool's lock. */
static inline void over_update_locked(grMemPool_t pool)
{
    bool over = reserved_of(pool) > gr_load_relaxed(&pool->threshold);
    if (gr_load_relaxed(&pool->over) != over)
        gr_store_relaxed(&pool->over, over);
}

/* Under the pool's lock: the only writer, so no read-modify-write. */
static inline void reserved_add(grMemPool_t pool, uint64_t n)
{
    gr_store_relaxed(&pool->reserved, reserved_of(pool) + n);
    if (reserved_of(pool) > pool->reserved_high)
        pool->reserved_high = reserved_of(pool);
    over_update_locked(pool);
}

static inline void reserved_sub(grMemPool_t pool, uint64_t n)
{
    gr_store_relaxed(&pool->reserved, reserved_of(pool) - n);
    over_update_locked(pool);
}

/* ------------------------------------------------------- thread caches */

/* The fast paths of the threads' caches (pcache.c has the rest). */

/* The stream checks of the full path, for a stream a cache is bound to
 * (so a created one). Captures elsewhere need no test: the full path's
 * gr__capture_check_implicit only ever refuses work on the legacy stream,
 * which no created handle names. */
static inline bool stream_usable(gr_stream *s)
{
    gr_assert_internal(s && !(s->flags & GR_STREAM_LEGACY));
    return s->magic == GR_MAGIC_STREAM && !gr__stream_capturing(s);
}

/* Class sizes of the cached classes (size_class's csize). */
static const uint16_t cache_csize[CACHE_CLASSES] = {256,  320,  384,  448,  512,  640,  768,  896, 1024,
                                                    1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096};

/* The allocation fast path: takes a block of class cls for stream s out
 * of c and hands it out (ring, ASan) in *out; false if c has none. No
 * lock, no atomic read-modify-write. 'check': s is a user's handle not
 * checked yet (grMallocAsync's leaf). */
static inline bool cache_pop(gr_pcache *c, grMemPool_t pool, gr_stream *s, unsigned cls, size_t size,
                             void **out, bool check)
{
    bool ok = false;
    gr_assert_internal(cls < CACHE_CLASSES);
    if (GR_LIKELY(cache_enter(c))) {
        unsigned n = c->n[cls];
        if (GR_LIKELY(n && c->pool == pool && c->stream == s && (!check || stream_usable(s)))) {
            gr_pblock *b = c->slot[cls][n - 1].b;
            void *p = c->slot[cls][n - 1].ptr;
            c->n[cls] = (uint8_t)(n - 1);
            int64_t d = gr_load_relaxed(&c->delta) + cache_csize[cls];
            gr_store_relaxed(&c->delta, d);
            if (d > gr_load_relaxed(&c->peak))
                gr_store_relaxed(&c->peak, d);
            b->state = BLOCK_LIVE;
#if GR_ASAN
            b->gen++;
#endif
            GR_UNPOISON(p, size);
            ring_put_from(p, b, cls, c->bind);
            *out = p;
            ok = true;
        }
    }
    cache_leave(c);
    (void)size;
    return ok;
}

/* The free fast path: b (LIVE, from this thread's ring) freed on s goes
 * into c, bound to its pool and s, if its class has room; false if not
 * (gr__pcache_push_slow decides then). */
static inline bool cache_push_fast(gr_pcache *c, gr_pblock *b, gr_stream *s)
{
    unsigned cls = b->cls;
    bool ok = false;
    /* ASan builds take cache_push_slow, which poisons. */
    if (GR_ASAN || cls >= CACHE_CLASSES || b->fs != s)
        return false;
    if (GR_LIKELY(cache_enter(c))) {
        unsigned n = c->n[cls];
        if (GR_LIKELY(c->pool == b->pool && c->stream == s && n < CACHE_DEPTH)) {
            b->fseq = gr_load_acquire(&s->tail);
            b->state = BLOCK_CACHED;
            c->slot[cls][n].ptr = b->ptr;
            c->slot[cls][n].b = b;
            c->n[cls] = (uint8_t)(n + 1);
            gr_store_relaxed(&c->delta, gr_load_relaxed(&c->delta) - (int64_t)b->size);
            note_over(c->pool);
            ok = true;
        }
    }
    cache_leave(c);
    return ok;
}

/* The free of this thread's newest allocation p on s, which its cache
 * handed out under its current binding: b->pool, b->fs and b->cls are
 * known without reading them. False if it must take the full path. */
static inline bool cache_push_hot(gr_pcache *c, void *p, gr_stream *s)
{
    unsigned cls = gr__ptls.hot.cls;
    gr_pblock *b = gr__ptls.hot.b;
    bool ok = false;
    if (GR_ASAN)
        return false; /* cache_push_slow poisons */
    if (GR_LIKELY(cache_enter(c))) {
        unsigned n = c->n[cls];
        if (GR_LIKELY(gr__ptls.hot.bind == c->bind && c->stream == s && n < CACHE_DEPTH &&
                      stream_usable(s))) {
            gr_assert_internal(b->pool == c->pool && b->fs == s && b->cls == cls && b->ptr == p);
            b->fseq = gr_load_acquire(&s->tail);
            b->state = BLOCK_CACHED;
            c->slot[cls][n].ptr = p;
            c->slot[cls][n].b = b;
            c->n[cls] = (uint8_t)(n + 1);
            gr_store_relaxed(&c->delta, gr_load_relaxed(&c->delta) - cache_csize[cls]);
            note_over(c->pool);
            ok = true;
        }
    }
    cache_leave(c);
    if (GR_LIKELY(ok))
        gr__ptls.hot.ptr = NULL; /* as ring_take */
    return ok;
}

static inline bool cache_push(gr_pblock *b, gr_stream *s)
{
    gr_pcache *c = gr__ptls.cache;
    if (GR_LIKELY(c) && cache_push_fast(c, b, s))
        return true;
    return gr__pcache_push_slow(b, s);
}

/* ---------------------------------------------------------- giving back */

/* Gives a block that is no longer on any list back to the OS. */
static void block_release(gr_pblock *b)
{
    grMemPool_t pool = b->pool;
    map_remove(b);
    gr__mem_untrack(b->ptr, GR_MEM_POOL);
    GR_UNPOISON(b->ptr, b->size);
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
    for (int c = NCLASS - 1; c >= 0 && reserved_of(pool) > keep; c--) {
        gr_pblock **pp = &pool->bins[c];
        while (*pp && reserved_of(pool) > keep) {
            gr_pblock *b = *pp;
            if (b->fs && !gr__stream_reached(b->fs, b->fseq)) {
                pp = &b->next;
                continue;
            }
            *pp = b->next;
            b->state = BLOCK_GONE;
            reserved_sub(pool, b->size);
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
        /* Free blocks in threads' caches count as free: take them back. */
        gr__pcache_flush(todo, false);
        gr__spin_lock(&todo->lock);
        before = reserved_of(todo);
        gr__spin_unlock(&todo->lock);
        trim(todo, keep);
        gr__spin_lock(&todo->lock);
        bool progress = reserved_of(todo) < before;
        gr__spin_unlock(&todo->lock);
        pool_unref(todo);
        if (!progress) {
            /* Frees still pending: try again at the next synchronisation. */
            gr_store_relaxed(&gr__pool_trim_pending, true);
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
    if (pool->props.maxSize && reserved_of(pool) + csize > pool->props.maxSize) {
        gr__spin_unlock(&pool->lock);
        /* Free blocks other streams cannot use yet (or threads' caches
         * hold) may be all that is left: give back what is reusable and
         * retry once. */
        gr__pcache_flush(pool, false);
        trim(pool, 0);
        gr__spin_lock(&pool->lock);
        if (reserved_of(pool) + csize > pool->props.maxSize) {
            uint64_t reserved = reserved_of(pool);
            gr__spin_unlock(&pool->lock);
            *err =
                gr__fail(grErrorMemoryAllocation,
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
        *err = gr__fail(grErrorMemoryAllocation,
                        "%s: the host could not provide %zu bytes; free memory or "
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
    reserved_add(pool, csize);
    gr__spin_unlock(&pool->lock);
    return b;
}

/* How a free block may go to stream s: 0 not at all, 1 as it is, 2 after
 * s waits for the free (internal dependency). Under the pool's lock. */
static int reuse_mode(grMemPool_t pool, gr_pblock *b, gr_stream *s)
{
    if (b->fs == NULL || b->fs == s)
        return 1;
    if (gr_load_relaxed(&pool->reuse_follow) && gr__stream_known_by_waits(s, b->fs) >= b->fseq)
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

/* Hands out b (LIVE) for an allocation of 'size' bytes. */
static inline void block_hand_out(gr_pblock *b, size_t size, void **out)
{
#if GR_ASAN
    b->gen++;
#endif
    GR_UNPOISON(b->ptr, size);
    ring_put(b);
    *out = b->ptr;
}

static GR_NOINLINE grError_t pool_alloc_slow(const char *call, grMemPool_t pool, void **out, size_t size,
                                             gr_stream *s)
{
    size_t csize;
    bool wait = false;
    grError_t err = grSuccess;
    if (GR_UNLIKELY(size > ((size_t)1 << 47)))
        return gr__fail(grErrorMemoryAllocation,
                        "%s: %zu bytes requested, more than the device can hold; "
                        "allocate less",
                        call, size);
    unsigned cls = size_class(size, &csize);
    if (cls < CACHE_CLASSES)
        gr__pcache_yield(pool, cls);
    gr__spin_lock(&pool->lock);
    gr_pblock *b;
    b = pool->bins[cls];
    if (GR_LIKELY(b && (b->fs == s || b->fs == NULL)))
        pool->bins[cls] = b->next;
    else
        b = b ? take_slow(pool, cls, s, &wait) : NULL;
    if (b) {
        b->state = BLOCK_LIVE;
        gr__pcache_used_add_locked(pool, (int64_t)b->size);
    }
    gr__spin_unlock(&pool->lock);
    if (GR_UNLIKELY(b == NULL)) {
        b = block_new(call, pool, cls, csize, size, &err);
        if (!b)
            return err;
        gr__spin_lock(&pool->lock);
        gr__pcache_used_add_locked(pool, (int64_t)b->size);
        gr__spin_unlock(&pool->lock);
    } else if (GR_UNLIKELY(b->fs != s && b->fs != NULL)) {
        /* From another stream: s's work must follow that free. The block's
         * reference on fs keeps it alive until the WAIT op holds its own. */
        if (wait && !gr__stream_enqueue_wait(s, b->fs, b->fseq)) {
            gr__spin_lock(&pool->lock);
            b->state = BLOCK_FREE;
            gr__pcache_used_add_locked(pool, -(int64_t)b->size);
            b->next = pool->bins[cls];
            pool->bins[cls] = b;
            gr__spin_unlock(&pool->lock);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call,
                            GR_PTR(s));
        }
        gr__stream_release(b->fs);
        b->fs = NULL;
    }
    block_hand_out(b, size, out);
    return grSuccess;
}

/* The common case inline: a block from this thread's cache. */
static inline grError_t pool_alloc(const char *call, grMemPool_t pool, void **out, size_t size, gr_stream *s)
{
    gr_pcache *c = gr__ptls.cache;
    if (GR_LIKELY(c && size <= CACHE_MAX_BYTES)) {
        if (GR_LIKELY(cache_pop(c, pool, s, small_class_of(size), size, out, false)))
            return grSuccess;
    }
    return pool_alloc_slow(call, pool, out, size, s);
}

/* ------------------------------------------------------------------ free */

#if GR_ASAN
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
            GR_POISON(b->ptr, b->size);
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
        return gr__fail(
            grErrorInvalidValue,
            "%s: pointer %p was freed already (by grFreeAsync or grFree); free each allocation once", call,
            p);
    if (gr__mem_lookup(p, &base, &size, &kind)) {
        if (kind == GR_MEM_POOL && base != p)
            return gr__fail(
                grErrorInvalidValue,
                "%s: pointer %p is %zu bytes inside the pool allocation at %p; pass the allocation's "
                "base pointer",
                call, p, (size_t)((uintptr_t)p - (uintptr_t)base), base);
        if (kind == GR_MEM_DEVICE)
            return gr__fail(grErrorInvalidValue,
                            "%s: pointer %p was allocated by grMalloc; free it with grFree", call, p);
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
    reserved_sub(b->pool, b->size);
    gr__spin_unlock(&b->pool->lock);
    block_release(b);
}

/* Frees p on s. 'recent' lets the free take p's descriptor from this
 * thread's ring (grFreeAsync), and then put the block in the thread's
 * cache; otherwise, or on a miss, the map finds it under its shard's
 * lock, held until the block is off LIVE so that it cannot be given back
 * meanwhile. A block in a cache is not LIVE: freeing it again is refused
 * here as for any freed block. */
static GR_NOINLINE grError_t pool_free_slow(const char *call, void *p, gr_stream *s, gr_pblock *b)
{
    gr_spinlock *shard = NULL;
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
        gr__pcache_used_add_locked(pool, -(int64_t)b->size);
        gr__spin_unlock(&pool->lock);
        if (shard)
            gr__spin_unlock(shard);
        grError_t err = gr__stream_enqueue_call(call, s, release_op, &b, sizeof b);
        if (err) {
            /* Nothing queued: the block (and its pool reference) is still
             * the caller's. */
            gr__spin_lock(&pool->lock);
            b->state = BLOCK_LIVE;
            gr__pcache_used_add_locked(pool, (int64_t)b->size);
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
    gr__pcache_used_add_locked(pool, -(int64_t)b->size);
    bool over = reserved_of(pool) > gr_load_relaxed(&pool->threshold);
#if GR_ASAN
    uint64_t gen = b->gen;
    bool reached = gr__stream_reached(s, b->fseq);
    if (reached)
        GR_POISON(b->ptr, b->size);
#endif
    gr__spin_unlock(&pool->lock);
    if (shard)
        gr__spin_unlock(shard);
    if (old)
        gr__stream_release(old);
    if (over && !gr_load_relaxed(&gr__pool_trim_pending))
        gr_store_relaxed(&gr__pool_trim_pending, true);
#if GR_ASAN
    if (!reached) {
        poison_args a = {p, gen};
        (void)gr__stream_enqueue_call(call, s, poison_op, &a, sizeof a);
    }
#endif
    return grSuccess;
}

static inline grError_t pool_free(const char *call, void *p, gr_stream *s, bool recent)
{
    gr_pblock *b = recent ? ring_take(p) : NULL;
    if (GR_LIKELY(b) && b->cls < CACHE_CLASSES && cache_push(b, s))
        return grSuccess;
    return pool_free_slow(call, p, s, b);
}

grError_t gr__pool_free_sync(const char *call, void *p)
{
    grError_t err;
    if (!gr__pool_owns(p))
        return refuse_free(call, p, false);
    /* As CUDA: freeing waits until no queued work can still touch it. */
    gr__device_sync_all();
    gr_stream *legacy = gr__stream_legacy();
    if (!legacy)
        return gr__fail(grErrorInitializationError, "%s: the graphrt runtime could not start", call);
    if ((err = pool_free(call, p, legacy, false)) != grSuccess)
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
        return gr__fail(
            grErrorInvalidValue,
            "%s: poolProps->location.type is %d; pools live on a device (grMemLocationTypeDevice)", call,
            (int)props->location.type);
    if (props->location.id != 0)
        return gr__fail(grErrorInvalidDevice, "%s: poolProps->location.id is %d; only device 0 exists", call,
                        props->location.id);
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
        gr__stream_wait_for(s, seq);
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
    gr_store_release(&current_pool, memPool->is_default ? NULL : memPool);
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
    grError_t err = gr__capture_hooks.record(call, s, &d);
    if (err == grSuccess && pp)
        *pp = d.alloc.dptr;
    return err;
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
    if (from_pool && (err = check_pool(call, pool)) != grSuccess)
        return err;
    if (GR_UNLIKELY((err = gr__stream_from_handle(call, hStream, &s)) != grSuccess))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return capture_memop(call, s, grGraphNodeTypeMemAlloc, devPtr, NULL, size);
    if (GR_UNLIKELY(gr__capture_any()) && (err = gr__capture_hooks.check_implicit_slow(call, s)) != grSuccess)
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
    return pool_free(call, devPtr, s, true);
}

GR_API grError_t grFreeAsync(void *devPtr, grStream_t hStream)
{
    gr_stream *s = (gr_stream *)hStream;
    gr_pcache *c = gr__ptls.cache;
    /* The newest ring entry: a free right after its allocation. */
    /* hot.bind 0: not from the cache (a large block, say): full path. */
    if (GR_LIKELY(c && devPtr && gr__ptls.hot.ptr == devPtr && gr__ptls.hot.bind &&
                  gr__ptls.epoch == gr_load_relaxed(&ring_epoch)) &&
        GR_LIKELY(cache_push_hot(c, devPtr, s)))
        return grSuccess;
    return free_async(devPtr, hStream);
}

GR_API grError_t grMemPoolTrimTo(grMemPool_t memPool, size_t minBytesToKeep)
{
    grError_t err;
    if ((err = check_pool("grMemPoolTrimTo", memPool)) != grSuccess)
        return err;
    if (reserved_of(memPool) > minBytesToKeep)
        gr__pcache_flush(memPool, false);
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
    ring_invalidate();
    for (uint32_t h = 0; h < (1u << MAP_BITS); h++) {
        gr_pblock *b = map_buckets[h];
        map_buckets[h] = NULL;
        while (b) {
            gr_pblock *n = b->hnext;
            gr__mem_untrack(b->ptr, GR_MEM_POOL);
            GR_UNPOISON(b->ptr, b->size);
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
        gr__shell_retire(&pool_shelf, list);
        list = n;
    }
}
