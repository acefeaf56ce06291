/*
 * pool_int.h - what pool.c (pools, allocation and free) and pcache.c (the
 * threads' caches of free blocks) share, private to those two files: the
 * block and pool structures, the thread-local block of the fast paths,
 * the cache structure with its owner-side entry and exit, and pcache.c's
 * functions. The invariants are stated in pool.h, pool.c and pcache.c.
 */
#ifndef GR_POOL_INT_H
#define GR_POOL_INT_H

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
    uint8_t state; /* BLOCK_*; guarded by pool->lock, except
                                     while the block is LIVE or CACHED
                                     through a thread cache: then by that
                                     cache (its owner, or a flusher that
                                     stopped it) */
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
    /* Registry, guarded by registry.lock. */
    struct grMemPool_st *reg_next, *reg_prev;
};

/* ---------------------------------------------------- thread-local block */

/* The ring of recent allocations is described in pool.c. */
#define RING_SIZE 8

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

#define CACHE_DEPTH 4        /* blocks per class */
#define CACHE_MAX_BYTES 4096 /* largest cached class size */
#define CACHE_CLASSES 17     /* classes 0..16: 256 B .. 4 KiB */
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
    /* The hot side of core/barrier.h: caches are on only where it is a
     * compiler barrier, the flusher's membarrier doing the rest. */
    gr_store_relaxed(&c->busy, 1);
    gr_barrier_light();
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

#endif /* GR_POOL_INT_H */
