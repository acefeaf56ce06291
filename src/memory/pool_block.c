/*
 * pool_block.c - the blocks of stream-ordered pools: the address map
 * from pointer to block, the recent blocks of each thread, giving free
 * blocks back (trim), allocation (reuse policies, fresh blocks) and free
 * (in stream order, refused when it is not a live block). The pools
 * themselves and the entry points are pool.c.
 *
 * Lock order: pcache.c's caches.lock, then a map shard's lock, then a
 * pool's lock, then a stream's lock.
 */
#include "pool_int.h"

#include "graphmem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ address map */

#define MAP_BITS 16
#if GR_KNOBS_SMALL
#define MAP_SHARDS 1 /* every address in one shard */
#else
#define MAP_SHARDS 64
#endif

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

/* --------------------------------------------------------------- checker */

#define MAP_CHECK_EVERY 64

GR_PRINTF(2, 3) static bool pool_broken(grMemPool_t pool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "graphrt: pool %p breaks an invariant of pool.c: ", (void *)pool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return false;
}

/* Under the pool's lock, and with 'map' under every shard's lock too:
 * the free lists against the blocks' states, the map and the counters.
 * Other threads may be between two steps of block_new (in the map, not
 * yet in 'reserved') or of an allocation (reserved, not yet in 'used'),
 * so the counters are checked as the bounds that hold then too, and
 * exactly for the free lists. */
static bool pool_valid_locked(grMemPool_t pool, bool map)
{
    uint64_t listed = 0, listed_bytes = 0, free_in_map = 0, held = 0, in_use = 0;
    for (unsigned c = 0; c < NCLASS; c++)
        for (const gr_pblock *b = pool->bins[c]; b != NULL; b = b->next) {
            if (b->pool != pool || b->cls != c)
                return pool_broken(pool, "block %p on free list %u has class %u of pool %p", b->ptr, c,
                                   (unsigned)b->cls, (void *)b->pool);
            if (gr_load_relaxed(&b->state) != BLOCK_FREE)
                return pool_broken(pool, "block %p on a free list is in state %u, not FREE", b->ptr,
                                   (unsigned)gr_load_relaxed(&b->state));
            listed++;
            listed_bytes += b->size;
        }
    uint64_t reserved = reserved_of(pool);
    if (pool->used > reserved || listed_bytes > reserved - pool->used)
        return pool_broken(pool, "'used' %llu and the free lists' %llu bytes do not fit 'reserved' %llu",
                           (unsigned long long)pool->used, (unsigned long long)listed_bytes,
                           (unsigned long long)reserved);
    for (uint32_t h = 0; map && h < (1u << MAP_BITS); h++)
        for (const gr_pblock *b = map_buckets[h]; b != NULL; b = b->hnext) {
            if (map_hash(b->ptr) != h)
                return pool_broken(pool, "block %p is in map bucket %u, not its own", b->ptr, h);
            if (b->pool != pool)
                continue;
            unsigned st = gr_load_relaxed(&b->state);
            if (st < BLOCK_LIVE || st > BLOCK_CACHED)
                return pool_broken(pool, "block %p is in no known state (%u)", b->ptr, st);
            if (st != BLOCK_GONE)
                held += b->size;
            if (st == BLOCK_FREE)
                free_in_map++;
            else if (st != BLOCK_GONE)
                in_use += b->size;
        }
    if (!map)
        return true;
    if (free_in_map != listed)
        return pool_broken(pool, "%llu blocks are FREE in the map, the free lists hold %llu",
                           (unsigned long long)free_in_map, (unsigned long long)listed);
    if (reserved > held)
        return pool_broken(pool, "'reserved' is %llu bytes, its blocks in the map hold %llu",
                           (unsigned long long)reserved, (unsigned long long)held);
    if (pool->used > in_use)
        return pool_broken(pool, "'used' is %llu bytes, its LIVE and CACHED blocks hold %llu",
                           (unsigned long long)pool->used, (unsigned long long)in_use);
    return true;
}

bool gr__pool_is_valid(grMemPool_t pool)
{
    /* A destroyed pool's FREE blocks are on no list (release_op owns
     * them); a GPU's pool lives in its driver. */
    if (pool == NULL || pool->magic != GR_MAGIC_POOL || pool->device != 0)
        return true;
    /* The map is a fixed table of 2^MAP_BITS buckets, larger than most
     * pools: walking it at every call tripled the Debug suite's time, so
     * one call in MAP_CHECK_EVERY does. */
    static _Atomic uint32_t calls;
    bool map = gr_fetch_add_relaxed(&calls, 1) % MAP_CHECK_EVERY == 0;
    for (unsigned i = 0; map && i < MAP_SHARDS; i++)
        gr__spin_lock(&map_shards[i].lock);
    gr__spin_lock(&pool->lock);
    bool ok = pool_valid_locked(pool, map);
    gr__spin_unlock(&pool->lock);
    for (unsigned i = MAP_SHARDS; map && i-- > 0;)
        gr__spin_unlock(&map_shards[i].lock);
    return ok;
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
GR_ALIGNED_CL _Atomic uint64_t gr__pool_ring_epoch;

/* The thread's ring and its cache (see "thread caches"), in one block so
 * that the hot paths compute one thread-local address. Initial-exec: the
 * default model of position-independent code calls __tls_get_addr, which
 * costs a call and, worse, makes the leaf fast paths save registers around
 * it. The price is a few hundred bytes of the static TLS surplus that
 * glibc keeps for libraries dlopen'ed after start-up. */
__attribute__((tls_model("initial-exec"))) _Thread_local gr_pool_tls gr__ptls;

bool gr__pool_owns(const void *p)
{
    uint32_t h = map_hash(p);
    gr__spin_lock(map_lock_for(h));
    gr_pblock *b = map_find_locked(h, p);
    bool live = b && gr_load_relaxed(&b->state) == BLOCK_LIVE;
    gr__spin_unlock(map_lock_for(h));
    /* grFree of a graph allocation comes here too (pool_free passes it on
     * to graph memory). */
    return live || (!b && gr__graphmem_is_alloc(p));
}

/* ---------------------------------------------------------- giving back */

/* Frees a block, its memory and its stream reference; the caller has
 * taken it off every list and the map. */
static void block_free(gr_pblock *b)
{
    gr__mem_untrack(b->ptr, GR_MEM_POOL);
    GR_UNPOISON(b->ptr, b->size);
    free(b->ptr);
    if (b->fs)
        gr__stream_release(b->fs);
    free(b);
}

/* Gives a block that is no longer on any list back to the OS. */
static void block_release(gr_pblock *b)
{
    grMemPool_t pool = b->pool;
    map_remove(b);
    block_free(b);
    gr__pool_unref(pool);
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
            gr_store_relaxed(&b->state, BLOCK_GONE);
            reserved_sub(pool, b->size);
            b->next = out;
            out = b;
        }
    }
    return out;
}

void gr__pool_trim(grMemPool_t pool, uint64_t keep)
{
    gr__spin_lock(&pool->lock);
    gr_pblock *list = detach_reached_locked(pool, keep);
    gr__spin_unlock(&pool->lock);
    while (list) {
        gr_pblock *n = list->next;
        block_release(list);
        list = n;
    }
    gr_assert_expensive(gr__pool_is_valid(pool));
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
        gr__pool_trim(pool, 0);
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
    gr_store_relaxed(&b->state, BLOCK_LIVE);
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
    if (gr_load_relaxed(&pool->reuse_follow) && gr__stream_known_by_waits_dev(s, b->fs) >= b->fseq)
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

GR_NOINLINE grError_t gr__pool_alloc_slow(const char *call, grMemPool_t pool, void **out, size_t size,
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
        gr_store_relaxed(&b->state, BLOCK_LIVE);
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
        if (wait && !gr__stream_follow_dev(s, b->fs, b->fseq)) {
            gr__spin_lock(&pool->lock);
            gr_store_relaxed(&b->state, BLOCK_FREE);
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
        if (gr_load_relaxed(&b->state) == BLOCK_FREE && b->gen == a->gen)
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

/* The stream-ordered end of grFreeAsync of grMalloc memory. */
static void free_block_op(void *data)
{
    gr__free(*(void **)data);
}

/* grFreeAsync of grMalloc memory of the CPU: CUDA 13 frees it in stream
 * order (tests/probes/memory.cu). It is untracked at once, so that a
 * second free or a use in a later call is refused from here on, and its
 * memory goes back when the stream reaches the free. Returns
 * grErrorUnknown (nothing done, no detail) for any other pointer. */
static grError_t free_malloc_ordered(const char *call, void *p, gr_stream *s)
{
    void *base;
    size_t size;
    gr_mem_kind kind;
    int owner = GR_OWNER_CPU;
    if (!gr__mem_lookup(p, &base, &size, &kind) || base != p || kind != GR_MEM_DEVICE ||
        !gr__mem_owner(p, &owner) || owner != GR_OWNER_CPU)
        return grErrorUnknown;
    if (!gr__mem_untrack(p, GR_MEM_DEVICE))
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was freed by another thread during this call; free each allocation "
                        "once",
                        call, p);
    grError_t err = gr__stream_call_dev(call, s, free_block_op, &p, sizeof p);
    if (err)
        (void)gr__mem_track(p, size, GR_MEM_DEVICE); /* as it was (only a capturing stream refuses) */
    else
        gr__hostreg_forget(p); /* a grMallocManaged block's mark goes with it */
    return err;
}

/* A free of p, which is no pool block: a graph allocation that outlived
 * its launch is freed now (its memory stays mapped for its executable, so
 * no stream order is needed); grMalloc memory freed by grFreeAsync
 * ('ordered') is freed in stream order; anything else is refused. */
static GR_NOINLINE grError_t free_not_pool(const char *call, void *p, gr_stream *s, bool ordered)
{
    grError_t err = gr__graphmem_free_outside(call, p);
    if (err != grErrorUnknown)
        return err;
    if (ordered && (err = free_malloc_ordered(call, p, s)) != grErrorUnknown)
        return err;
    return refuse_free(call, p, false);
}

/* Releases a block freed into a destroyed pool once its free took effect. */
static void release_op(void *data)
{
    gr_pblock *b = *(gr_pblock **)data;
    gr__spin_lock(&b->pool->lock);
    gr_store_relaxed(&b->state, BLOCK_GONE);
    reserved_sub(b->pool, b->size);
    gr__spin_unlock(&b->pool->lock);
    block_release(b);
}

/* Frees p on s. 'recent' lets the free take p's descriptor from this
 * thread's ring (grFreeAsync), and then put the block in the thread's
 * cache; otherwise, or on a miss, the map finds it under its shard's
 * lock, held until the block is off LIVE so that it cannot be given back
 * meanwhile. A block in a cache is not LIVE: freeing it again is refused
 * here as for any freed block. 'ordered' (grFreeAsync) also frees grMalloc
 * memory, in stream order. */
GR_NOINLINE grError_t gr__pool_free_slow(const char *call, void *p, gr_stream *s, gr_pblock *b, bool ordered)
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
            return free_not_pool(call, p, s, ordered);
        }
    }
    grMemPool_t pool = b->pool;
    gr__spin_lock(&pool->lock);
    if (GR_UNLIKELY(gr_load_relaxed(&b->state) != BLOCK_LIVE)) {
        gr__spin_unlock(&pool->lock);
        if (shard)
            gr__spin_unlock(shard);
        return refuse_free(call, p, true);
    }
    if (GR_UNLIKELY(pool->magic != GR_MAGIC_POOL)) {
        /* Destroyed pool: the block goes back to the OS, in stream order.
         * Mark it before queuing: once queued, release_op may free the
         * block and, with its last reference, the pool. */
        gr_store_relaxed(&b->state, BLOCK_FREE); /* not on any list: release_op owns it */
        gr__pcache_used_add_locked(pool, -(int64_t)b->size);
        gr__spin_unlock(&pool->lock);
        if (shard)
            gr__spin_unlock(shard);
        grError_t err = gr__stream_call_dev(call, s, release_op, &b, sizeof b);
        if (err) {
            /* Nothing queued: the block (and its pool reference) is still
             * the caller's. */
            gr__spin_lock(&pool->lock);
            gr_store_relaxed(&b->state, BLOCK_LIVE);
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
    b->fseq = gr__stream_tail(s);
    gr_store_relaxed(&b->state, BLOCK_FREE);
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
    gr_assert_expensive(gr__pool_is_valid(pool));
    if (over && !gr_load_relaxed(&gr__pool_trim_pending))
        gr_store_relaxed(&gr__pool_trim_pending, true);
#if GR_ASAN
    if (!reached) {
        poison_args a = {p, gen};
        (void)gr__stream_call_dev(call, s, poison_op, &a, sizeof a);
    }
#endif
    return grSuccess;
}

grError_t gr__pool_free_sync(const char *call, void *p)
{
    grError_t err;
    if (!gr__pool_owns(p))
        return refuse_free(call, p, false);
    /* As CUDA: freeing waits until no queued work can still touch it. */
    gr__device_drain_dev(call, 0);
    gr_stream *legacy;
    if ((err = gr__stream_default_dev(call, 0, false, &legacy)) != grSuccess)
        return err;
    if ((err = pool_free(call, p, legacy, false)) != grSuccess)
        return err;
    gr__pool_on_sync();
    return grSuccess;
}

void gr__pool_blocks_reset(void)
{
    ring_invalidate();
    for (uint32_t h = 0; h < (1u << MAP_BITS); h++) {
        gr_pblock *b = map_buckets[h];
        map_buckets[h] = NULL;
        while (b) {
            gr_pblock *n = b->hnext;
            block_free(b); /* the bucket was emptied above */
            b = n;
        }
    }
}
