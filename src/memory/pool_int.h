/*
 * pool_int.h - what pool.c (pools, allocation and free) and pcache.c (the
 * threads' caches of free blocks) share, private to them and the other
 * pool_*.c files (blocks, GPU pools, locations, access): the block and
 * pool structures, the thread-local block of the fast paths, the cache
 * structure with its owner-side entry and exit, and pcache.c's
 * functions. The invariants are stated in pool.h, pool.c and pcache.c;
 * gr__pool_is_valid (pool_block.c) checks pool.c's.
 */
#ifndef GR_POOL_INT_H
#define GR_POOL_INT_H

#include "../backend/device.h"
#include "../backend/stream_order.h"
#include "pool.h"

#include <pthread.h>

/* Size classes: 256 bytes, then four per power of two up to 2^48. */
#define NCLASS 168

/* CACHED: freed into a thread's cache (free in every observable way, but
 * on no free list of its pool). */
enum {
    BLOCK_LIVE = 1,
    BLOCK_FREE = 2,
    BLOCK_GONE = 3,
    BLOCK_CACHED = 4
};

typedef struct gr_pblock {
    void *ptr;
    size_t size; /* class size: what the block reserves */
    struct grMemPool_st *pool;
    struct gr_pblock *next;  /* free list; guarded by pool->lock */
    struct gr_pblock *hnext; /* map chain; guarded by its shard's lock */
    gr_stream *fs;           /* stream of the last free, retained */
    uint64_t fseq;           /* fs's ops that precede that free */
    uint64_t gen;            /* allocations so far (ASan builds) */
    uint16_t cls;
    /* BLOCK_*; changed under pool->lock, except while the block is LIVE
     * or CACHED through a thread cache (then by that cache: its owner, or
     * a flusher that stopped it). Atomic (relaxed) because gr__pool_owns
     * reads it under the map shard's lock only, a snapshot by design. */
    _Atomic uint8_t state;
} gr_pblock;

struct gr_pcache;

struct grMemPool_st {
    uint32_t magic; /* GR_MAGIC_POOL; GR_MAGIC_DEAD once destroyed */
    atomic_int refs;
    bool is_default;
    grMemPoolProps props; /* immutable */
    atomic_int reuse_follow, reuse_opportunistic, reuse_internal;
    _Atomic uint64_t threshold;
    /* reserved > threshold: written under 'lock' (where either changes),
     * read relaxed by a free into a cache, to decide whether a trim is due
     * at the next synchronisation without reading the lock's line. */
    atomic_bool over;
    /* Guarded by 'lock'. 'reserved' is also read relaxed without it, as a
     * hint (is a trim worth it?). */
    GR_ALIGNED_CL gr_spinlock lock;
    gr_pblock *bins[NCLASS];
    _Atomic uint64_t reserved;
    uint64_t reserved_high, used, used_high;
    struct gr_pcache *caches; /* the caches bound to this pool */
    /* A GPU's pool (pool_gpu.c): its device (0: the CPU's pool, all of
     * the above in use) and the driver's pool; immutable. */
    int device;
    void *gpu;
    /* grMemPoolSetAccess's flags (grMemAccessFlags) of each device but
     * the pool's own, which always has read-write access; 0 (ProtNone)
     * until set. A GPU pool keeps other GPUs' in the driver. Guarded by
     * 'lock'. */
    uint8_t access[GR_MAX_GPUS + 1];
    /* Registry, guarded by registry.lock. */
    struct grMemPool_st *reg_next, *reg_prev;
};

/* ---------------------------------------------------- thread-local block */

/* The ring of recent allocations is described in pool.c. */
#if GR_KNOBS_SMALL
#define RING_SIZE 1 /* a free of any but the two newest blocks takes the address map */
#else
#define RING_SIZE 8
#endif

typedef struct ring_entry {
    const void *ptr;
    gr_pblock *b;
} ring_entry;

/* The thread's ring and its cache (see "thread caches"), in one block so
 * that the hot paths compute one thread-local address. Initial-exec: the
 * default model of position-independent code calls __tls_get_addr, which
 * costs a call and, worse, makes the leaf fast paths save registers around
 * it. The price is a few hundred bytes of the static TLS surplus that
 * glibc keeps for libraries dlopen'ed after start-up. */
typedef struct gr_pool_tls {
    uint64_t epoch;          /* ring_epoch when the entries were valid */
    unsigned next;           /* slot of the next insertion */
    bool cache_off;          /* caches are off, or creation failed */
    struct gr_pcache *cache; /* this thread's cache, or NULL */
    struct {
        const void *ptr;
        /* Handed out by the cache under binding 'bind' (0: not from the
         * cache), from class 'cls': a free under the same binding needs
         * neither b->pool, b->fs nor b->cls (the fast path's chain of
         * dependent loads is shorter by one). Between ptr and b, which
         * keeps gcc from pairing the two in vector registers. */
        uint32_t cls, bind;
        gr_pblock *b;
    } hot; /* the newest entry */
    ring_entry e[RING_SIZE];
} gr_pool_tls;

extern __attribute__((tls_model("initial-exec"))) _Thread_local gr_pool_tls gr__ptls;

/* ---------------------------------------------------------- thread caches */

#if GR_KNOBS_SMALL
/* One block of one class (256 B): a second free of that class, and any
 * free of a larger block, takes the slow path. */
#define CACHE_DEPTH 1
#define CACHE_MAX_BYTES 256
#define CACHE_CLASSES 1
#else
#define CACHE_DEPTH 4        /* blocks per class */
#define CACHE_MAX_BYTES 4096 /* largest cached class size */
#define CACHE_CLASSES 17     /* classes 0..16: 256 B .. 4 KiB */
#endif
_Static_assert(CACHE_CLASSES <= NCLASS, "cached classes are pool classes");

typedef struct gr_pcache {
    /* The owner's line. */
    atomic_uchar busy;        /* owner inside; written by the owner */
    atomic_uchar stop;        /* a flusher wants in; under caches.lock */
    uint8_t n[CACHE_CLASSES]; /* blocks per class; exclusive */
    uint32_t bind;            /* binding count, never 0; exclusive */
    grMemPool_t pool;         /* bound pool or NULL; exclusive, and
                                     changed under that pool's lock */
    gr_stream *stream;        /* bound stream; exclusive. Blocks hold
                                     fs == stream retained, so it lives
                                     while the cache holds any */
    _Atomic int64_t delta;    /* -(bytes held); exclusive writes */
    _Atomic int64_t peak;     /* max delta since the last fold; raised
                                     by the owner, lowered by folds */
    /* Exclusive. The address beside the descriptor: a reuse hands it out
     * without a dependent load. */
    struct {
        void *ptr;
        gr_pblock *b;
    } slot[CACHE_CLASSES][CACHE_DEPTH];
    /* The bound pool's list, guarded by that pool's lock. */
    struct gr_pcache *pnext, *pprev;
    /* Every cache; guarded by caches.lock (as is 'fnext', a flusher's
     * list of the caches it stopped). */
    struct gr_pcache *next, *prev, *fnext;
} gr_pcache;

/* The owner enters; false if a flusher has the cache (then leave at once
 * and take the pool path). Costs two plain stores and a load on x86. */
static inline bool cache_enter(gr_pcache *c)
{
#if GR_TSAN
    gr_exchange_seq_cst(&c->busy, 1);
#else
    /* The hot side of core/barrier.h. Caches exist only where the barrier
     * is asymmetric (cache_init), so its light side is the compiler
     * barrier, without the test gr_barrier_light makes: the flusher's
     * membarrier does the rest. */
    gr_store_relaxed(&c->busy, 1);
    gr_compiler_barrier();
#endif
    return !gr_load_seq_cst(&c->stop);
}

/* The owner leaves. From here on another thread may take what the cache
 * holds: the owner touches no block it put there, nor its pool. */
static inline void cache_leave(gr_pcache *c)
{
    gr_store_release(&c->busy, 0);
}

/* After a free into a cache: the next synchronising call trims if the
 * pool is over its release threshold. Relaxed loads: a hint, as in
 * pool_free. Call inside the cache (cache_enter): once the owner leaves,
 * another thread may take the block and give it back, and with its last
 * block a destroyed pool goes too. */
static inline void note_over(grMemPool_t pool)
{
    if (gr_load_relaxed(&pool->over) && !gr_load_relaxed(&gr__pool_trim_pending))
        gr_store_relaxed(&gr__pool_trim_pending, true);
}

/* pcache.c. Cache functions run on the owner thread unless they say. */

/* This thread's cache, created on first use; NULL if caches are off. */
gr_pcache *gr__pcache_create(void);
/* A grFreeAsync of b (LIVE, allocated by this thread) on s that the fast
 * path could not cache: makes the cache, binds or rebinds it; false if
 * the block must take the pool path. */
bool gr__pcache_push_slow(gr_pblock *b, gr_stream *s);
/* An allocation of class cls from pool missed the cache: gives back the
 * cache's blocks of that pool if it holds some of that class. */
void gr__pcache_yield(grMemPool_t pool, unsigned cls);
/* Any thread: takes the blocks of every cache bound to pool back to its
 * free lists; with 'all', unbinds even empty caches (grMemPoolDestroy). */
void gr__pcache_flush(grMemPool_t pool, bool all);
/* grDeviceReset: every cache forgets its blocks and pool. */
void gr__pcache_reset_all(void);

/* Used memory with the caches' share, under the pool's lock: the current
 * value, the high-water mark, a change of n bytes of 'used' (which keeps
 * the mark), and the start of a new mark (its reset). */
uint64_t gr__pcache_used_locked(grMemPool_t pool);
uint64_t gr__pcache_used_high_locked(grMemPool_t pool);
void gr__pcache_used_add_locked(grMemPool_t pool, int64_t n);
void gr__pcache_peaks_reset_locked(grMemPool_t pool);

/* ------------------------------------- shared by pool.c and pool_block.c */

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

/* The recent blocks of the thread (pool_block.c has the argument):
 * bumped by every free through the map and every reset. */
extern _Atomic uint64_t gr__pool_ring_epoch;

/* Drops the whole ring if a free through the map (or a reset) happened
 * since its entries were recorded. One relaxed load when nothing did. */
static inline void ring_sync(void)
{
    uint64_t e = gr_load_relaxed(&gr__pool_ring_epoch);
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
    gr_fetch_add_relaxed(&gr__pool_ring_epoch, 1);
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
static const uint16_t cache_csize[] = {256,  320,  384,  448,  512,  640,  768,  896, 1024,
                                       1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096};
/* The last cached class must be CACHE_MAX_BYTES (not a constant
 * expression in C, so only the count is checked here). */
_Static_assert(CACHE_CLASSES <= sizeof cache_csize / sizeof cache_csize[0], "a size per cached class");

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
            gr_store_relaxed(&b->state, BLOCK_LIVE);
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
            b->fseq = gr__stream_tail(s);
            gr_store_relaxed(&b->state, BLOCK_CACHED);
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
            b->fseq = gr__stream_tail(s);
            gr_store_relaxed(&b->state, BLOCK_CACHED);
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

/* Pools (pool.c): drops one reference (the last frees it). */
void gr__pool_unref(grMemPool_t pool);

/* grErrorInvalidValue with a detail naming 'call' unless pool is a live
 * pool. */
grError_t gr__pool_check(const char *call, grMemPool_t pool);

/* The device forms of the default and current pool, naming 'call' in
 * their details: grDeviceGetDefaultMemPool, grDeviceSetMemPool and
 * grDeviceGetMemPool, whose location forms (pool_location.c) share them. */
grError_t gr__pool_get_default(const char *call, grMemPool_t *memPool, int device);
grError_t gr__pool_set_current(const char *call, int device, grMemPool_t memPool);
grError_t gr__pool_get_current(const char *call, grMemPool_t *memPool, int device);

/* The device a location names ({grMemLocationTypeDevice, d} with d an
 * existing device), or the error with a detail naming 'call' and 'what'
 * (the argument): grErrorInvalidValue for a location type CUDA refuses
 * there, grErrorNotSupported for a host location (CUDA's, which graphrt
 * does not have), 'no_device' for an id naming no device (CUDA 13 answers
 * grErrorInvalidValue in the getters, grErrorInvalidDevice in
 * grMemPoolSetAccess: tests/probes/memory.cu) (pool_location.c). */
grError_t gr__pool_location_device(const char *call, const char *what, const grMemLocation *loc,
                                   grError_t no_device, int *device);

/* A new pool object of 'device' with one reference; a GPU's ('device' >=
 * 1, 'gpu' its driver pool) is in no registry: the CPU's trims and resets
 * leave it alone. NULL when out of memory. */
grMemPool_t gr__pool_object_new(const grMemPoolProps *props, bool is_default, int device, void *gpu);

/* graphrt's pools on a GPU (pool_gpu.c), called by the public functions
 * of pool.c once the arguments are checked; 'device' >= 1 exists. */
grError_t gr__gpu_pool_create(const char *call, int device, const grMemPoolProps *props, grMemPool_t *out);
grError_t gr__gpu_pool_destroy(const char *call, grMemPool_t pool);
grError_t gr__gpu_pool_default(const char *call, int device, grMemPool_t *out);
grError_t gr__gpu_pool_set_current(const char *call, int device, grMemPool_t pool);
grError_t gr__gpu_pool_current(const char *call, int device, grMemPool_t *out);
grError_t gr__gpu_pool_attribute(const char *call, grMemPool_t pool, grMemPoolAttr attr, void *value,
                                 bool set);

/* Blocks (pool_block.c): gives free blocks back to the OS down to 'keep'
 * reserved bytes; the slow paths of allocation and free. */
void gr__pool_trim(grMemPool_t pool, uint64_t keep);

/* True if pool's free lists, its blocks' states, the address map and its
 * counters agree (pool.c's invariants), taking every map shard's lock and
 * the pool's; else prints the broken invariant to stderr and returns
 * false (pool_block.c). O(map buckets + blocks): for gr_assert_expensive
 * after the slow paths of allocation and free and after a trim. */
bool gr__pool_is_valid(grMemPool_t pool);
/* grDeviceReset: frees every block of every pool (the pools' caches and
 * the threads' rings hold none any more). */
void gr__pool_blocks_reset(void);
GR_NOINLINE grError_t gr__pool_alloc_slow(const char *call, grMemPool_t pool, void **out, size_t size,
                                          gr_stream *s);
GR_NOINLINE grError_t gr__pool_free_slow(const char *call, void *p, gr_stream *s, gr_pblock *b, bool ordered);

/* The common case inline: a block from this thread's cache. */
static inline grError_t pool_alloc(const char *call, grMemPool_t pool, void **out, size_t size, gr_stream *s)
{
    gr_pcache *c = gr__ptls.cache;
    if (GR_LIKELY(c && size <= CACHE_MAX_BYTES)) {
        if (GR_LIKELY(cache_pop(c, pool, s, small_class_of(size), size, out, false)))
            return grSuccess;
    }
    return gr__pool_alloc_slow(call, pool, out, size, s);
}

static inline grError_t pool_free(const char *call, void *p, gr_stream *s, bool recent)
{
    gr_pblock *b = recent ? ring_take(p) : NULL;
    if (GR_LIKELY(b) && b->cls < CACHE_CLASSES && cache_push(b, s))
        return grSuccess;
    return gr__pool_free_slow(call, p, s, b, recent);
}

#endif /* GR_POOL_INT_H */
