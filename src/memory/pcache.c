/*
 * pcache.c - the threads' caches of free pool blocks: creation, binding,
 * giving blocks back (at a rebind, at thread exit, or taken by another
 * thread for a trim, the release threshold, a destroy or a reset), and
 * the used-memory accounting that counts cached blocks as free.
 *
 * A thread keeps the small blocks it frees with grFreeAsync (found in its
 * ring: it allocated them) in a cache bound to one (pool, stream) pair,
 * up to CACHE_DEPTH per class, and its grMallocAsync of such a class on
 * that pool and stream takes them back. A block freed on stream s and
 * reused on s needs no reuse policy (stream order), so the cache needs no
 * 'fseq' check; it still records fs and fseq, for when the block goes
 * back to its pool. A free on another pool or stream rebinds the cache,
 * which first gives its blocks back to the old pool ('drain'); so does an
 * allocation of a class the cache holds for the same pool on another
 * stream, so that this thread's own allocations see its frees as before.
 *
 * Owner side, no lock and no atomic read-modify-write: the owner marks
 * itself 'busy' (a relaxed store), then reads 'stop'; if set, it leaves
 * and takes the pool path. Everything else (trim, the release threshold,
 * destroy, reset, thread exit) takes blocks out of a cache from another
 * thread under caches.lock: set 'stop', make the stores of both sides
 * visible to each other with one membarrier(PRIVATE_EXPEDITED) (a full
 * barrier on every running thread of the process, about 200 ns, paid by
 * the rare remote side only), wait for 'busy' to drop, work, clear 'stop'.
 * Either the owner's later read of 'stop' sees 1, or the flusher's read of
 * 'busy' sees the owner inside: the classic asymmetric Dekker. Without
 * membarrier (the registration fails) caches are off: a fence per access
 * would cost what they save; ThreadSanitizer, which models neither
 * membarrier nor fences, gets a seq_cst exchange (cache_enter). The owner
 * never waits inside: a flusher only ever waits for a few instructions,
 * or for a pool lock the owner takes while rebinding.
 *
 * Accounting: a CACHED block still counts in its pool's 'used'; the
 * cache's 'delta' is minus the bytes it holds (so <= 0), written relaxed
 * by whoever has the cache (owner, or a flusher that stopped it) and read
 * by the pool's lock holders: used memory = 'used' + the deltas of the
 * caches on the pool's 'caches' list. A thread that synchronises with the
 * owner (join, a mutex) sees its last delta: exact. The high-water mark:
 * the owner raises 'peak' to its delta when a reuse takes it higher; each
 * change of 'used' (under the lock) first folds 'used' + the sum of the
 * caches' peaks into used_high, then lowers each peak to its delta: the
 * peaks cover the values 'used' took since the last fold. Single-threaded
 * (or with the other threads synchronised) that is exactly the largest
 * used value; with threads racing, the sum can exceed it (peaks of
 * different caches at different times add up), and a fold that races
 * with an owner raising its peak can overwrite that raise
 * (docs/memory-pools.md).
 *
 * Lock order: caches.lock, then a pool's lock (then pool.c's order). A
 * flusher holds no pool lock while it waits for an owner to leave, so an
 * owner may take a pool's lock inside (to rebind).
 */
#include "pool_int.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CACHE_RMW: ThreadSanitizer builds, whose owners use a seq_cst
 * exchange; CACHE_ASYM: membarrier. Without either, caches are off. */
enum {
    CACHE_UNTRIED = 0,
    CACHE_OFF,
    CACHE_RMW,
    CACHE_ASYM
};

static struct {
    pthread_mutex_t lock; /* the list; serialises flushers */
    gr_pcache *list;
} caches = {PTHREAD_MUTEX_INITIALIZER, NULL};

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static pthread_key_t cache_key; /* its destructor drains at thread exit */
static int cache_mode;          /* CACHE_*, set once by cache_init */

/* The flusher's side of the Dekker (core/barrier.h): after setting
 * 'stop' on caches. */
static void cache_barrier(void)
{
    gr_barrier_heavy();
}

/* Waits for the owner of a stopped cache to leave it (a few instructions,
 * unless it is descheduled inside or waiting for a pool lock). */
static void cache_wait_idle(gr_pcache *c)
{
    for (unsigned spins = 0; gr_load_acquire(&c->busy); spins++) {
        if (spins < 64)
            gr__cpu_relax();
        else
            sched_yield();
    }
}

/* The high-water mark of used memory (see above). Under the lock. */
uint64_t gr__pcache_used_high_locked(grMemPool_t pool)
{
    int64_t sum = 0;
    for (gr_pcache *c = pool->caches; c; c = c->pnext) {
        int64_t d = gr_load_relaxed(&c->delta), pk = gr_load_relaxed(&c->peak);
        sum += pk > d ? pk : d;
    }
    uint64_t v = pool->used + (uint64_t)sum;
    return v > pool->used_high ? v : pool->used_high;
}

/* Lowers every peak to its delta: the values so far are in used_high, or
 * are history (a reset). Under the lock. */
void gr__pcache_peaks_reset_locked(grMemPool_t pool)
{
    for (gr_pcache *c = pool->caches; c; c = c->pnext) {
        int64_t d = gr_load_relaxed(&c->delta);
        if (gr_load_relaxed(&c->peak) != d)
            gr_store_relaxed(&c->peak, d);
    }
}

/* Folds the peaks of the caches bound to 'pool' into used_high (see
 * above); call before every change of 'used'. Under the pool's lock. */
static void fold_high_locked(grMemPool_t pool)
{
    if (!pool->caches)
        return;
    pool->used_high = gr__pcache_used_high_locked(pool);
    gr__pcache_peaks_reset_locked(pool);
}

/* The pool's used bytes, cached blocks excluded. Under the pool's lock. */
uint64_t gr__pcache_used_locked(grMemPool_t pool)
{
    int64_t sum = 0;
    for (gr_pcache *c = pool->caches; c; c = c->pnext)
        sum += gr_load_relaxed(&c->delta);
    return pool->used + (uint64_t)sum;
}

/* Changes 'used' by n bytes (signed), keeping used_high. Under the lock. */
void gr__pcache_used_add_locked(grMemPool_t pool, int64_t n)
{
    /* fold_high_locked and used_of_locked in one pass. */
    int64_t sum = 0, sum_high = 0;
    for (gr_pcache *c = pool->caches; c; c = c->pnext) {
        int64_t d = gr_load_relaxed(&c->delta), pk = gr_load_relaxed(&c->peak);
        sum += d;
        sum_high += pk > d ? pk : d;
        if (pk != d)
            gr_store_relaxed(&c->peak, d);
    }
    uint64_t before = pool->used + (uint64_t)sum_high;
    pool->used += (uint64_t)n;
    uint64_t after = pool->used + (uint64_t)sum;
    uint64_t high = before > after ? before : after;
    if (high > pool->used_high)
        pool->used_high = high;
}

/* Under the pool's lock, with the cache held exclusively (its owner
 * inside, or stopped): moves its blocks to the pool's free lists and
 * unbinds it. The caller folded the peaks (fold_high_locked) first. */
static void cache_drain_locked(gr_pcache *c)
{
    grMemPool_t pool = c->pool;
    uint64_t bytes = 0;
    for (unsigned k = 0; k < CACHE_CLASSES; k++) {
        for (unsigned i = 0; i < c->n[k]; i++) {
            gr_pblock *b = c->slot[k][i].b;
            gr_assert_internal(gr_load_relaxed(&b->state) == BLOCK_CACHED && b->pool == pool &&
                               b->fs == c->stream);
            gr_store_relaxed(&b->state, BLOCK_FREE);
            b->next = pool->bins[k];
            pool->bins[k] = b;
            bytes += b->size;
        }
        c->n[k] = 0;
    }
    gr_assert_internal((int64_t)bytes == -gr_load_relaxed(&c->delta));
    /* 'used' and the delta change together: used memory stays the same. */
    pool->used -= bytes;
    gr_store_relaxed(&c->delta, 0);
    gr_store_relaxed(&c->peak, 0);
    if (c->pprev)
        c->pprev->pnext = c->pnext;
    else
        pool->caches = c->pnext;
    if (c->pnext)
        c->pnext->pprev = c->pprev;
    c->pnext = c->pprev = NULL;
    c->pool = NULL;
    c->stream = NULL;
    /* Entries in the owner's ring from this binding no longer match. */
    if (++c->bind == 0)
        c->bind = 1;
}

/* The owner gives its blocks back (with exclusive access: inside, or
 * holding caches.lock at thread exit). */
static void cache_drain_own(gr_pcache *c)
{
    grMemPool_t pool = c->pool;
    if (!pool)
        return;
    gr__spin_lock(&pool->lock);
    fold_high_locked(pool);
    cache_drain_locked(c);
    gr__spin_unlock(&pool->lock);
}

/* Binds the (empty, unbound) cache to 'pool' and stream s; false if the
 * pool was destroyed. The owner, inside. */
static bool cache_bind(gr_pcache *c, grMemPool_t pool, gr_stream *s)
{
    gr__spin_lock(&pool->lock);
    if (pool->magic != GR_MAGIC_POOL) {
        gr__spin_unlock(&pool->lock);
        return false;
    }
    c->pool = pool;
    c->stream = s;
    if (++c->bind == 0)
        c->bind = 1;
    c->pprev = NULL;
    c->pnext = pool->caches;
    if (pool->caches)
        pool->caches->pprev = c;
    pool->caches = c;
    gr__spin_unlock(&pool->lock);
    return true;
}

/* pthread key destructor: the exiting thread's blocks go back to their
 * pool, and its cache is freed. */
static void cache_exit(void *arg)
{
    gr_pcache *c = arg;
    /* No flusher is at work while we hold caches.lock. */
    pthread_mutex_lock(&caches.lock);
    cache_drain_own(c);
    if (c->prev)
        c->prev->next = c->next;
    else
        caches.list = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&caches.lock);
    gr__ptls.cache = NULL;
    gr__ptls.hot.bind = 0; /* a later cache of this thread restarts its count */
    gr__free(c);
}

/* Chooses the mode once. GRAPHRT_POOL_CACHE=off turns caches off (a test
 * knob: every free takes the pool path). Without membarrier (old kernels,
 * seccomp) the owner would need a fence per access, which costs what the
 * cache saves: caches are off then. */
static void cache_init(void)
{
    const char *env = getenv("GRAPHRT_POOL_CACHE");
    gr__barrier_setup();
    int mode = GR_TSAN ? CACHE_RMW : CACHE_ASYM;
    if (env && strcmp(env, "off") == 0)
        mode = CACHE_OFF;
    if (mode == CACHE_ASYM && !gr__barrier_asym())
        mode = CACHE_OFF;
    if (mode != CACHE_OFF && pthread_key_create(&cache_key, cache_exit) != 0)
        mode = CACHE_OFF;
    cache_mode = mode;
}

/* This thread's cache, created on first use; NULL if caches are off. */
gr_pcache *gr__pcache_create(void)
{
    if (gr__ptls.cache_off)
        return NULL;
    pthread_once(&cache_once, cache_init);
    gr_pcache *c = cache_mode == CACHE_OFF ? NULL : gr__aligned_alloc(GR_CACHELINE, sizeof *c);
    if (!c) {
        gr__ptls.cache_off = true;
        return NULL;
    }
    memset(c, 0, sizeof *c);
    if (pthread_setspecific(cache_key, c) != 0) {
        gr__free(c);
        gr__ptls.cache_off = true;
        return NULL;
    }
    pthread_mutex_lock(&caches.lock);
    c->next = caches.list;
    if (caches.list)
        caches.list->prev = c;
    caches.list = c;
    pthread_mutex_unlock(&caches.lock);
    gr__ptls.cache = c;
    return c;
}

/* Takes the blocks out of the caches bound to 'pool' (all of them, even
 * empty ones, unbound, with 'all': grMemPoolDestroy), back to its free
 * lists. The calling thread's own cache needs no barrier; the others are
 * stopped, with one membarrier for them all. */
void gr__pcache_flush(grMemPool_t pool, bool all)
{
    gr_pcache *self = gr__ptls.cache;
    if (self) {
        if (cache_enter(self) && self->pool == pool)
            cache_drain_own(self);
        cache_leave(self);
    }
    gr__spin_lock(&pool->lock);
    bool any = false;
    for (gr_pcache *c = pool->caches; c && !any; c = c->pnext)
        any = all || gr_load_relaxed(&c->delta) != 0;
    gr__spin_unlock(&pool->lock);
    if (!any)
        return;
    pthread_mutex_lock(&caches.lock);
    gr_pcache *stopped = NULL;
    gr__spin_lock(&pool->lock);
    for (gr_pcache *c = pool->caches; c; c = c->pnext)
        if (all || gr_load_relaxed(&c->delta) != 0) {
            gr_store_seq_cst(&c->stop, 1);
            c->fnext = stopped;
            stopped = c;
        }
    gr__spin_unlock(&pool->lock);
    if (stopped) {
        cache_barrier();
        for (gr_pcache *c = stopped; c; c = c->fnext)
            cache_wait_idle(c);
        /* Ours now. An owner may have drained and rebound meanwhile. */
        gr__spin_lock(&pool->lock);
        fold_high_locked(pool);
        for (gr_pcache *c = stopped; c; c = c->fnext)
            if (c->pool == pool)
                cache_drain_locked(c);
        gr__spin_unlock(&pool->lock);
        for (gr_pcache *c = stopped; c; c = c->fnext)
            gr_store_seq_cst(&c->stop, 0);
    }
    pthread_mutex_unlock(&caches.lock);
}

/* grDeviceReset: every cache forgets its blocks (freed with the map) and
 * its pool (freed with the registry). The device is idle; threads may
 * still be inside their caches. */
void gr__pcache_reset_all(void)
{
    pthread_mutex_lock(&caches.lock);
    for (gr_pcache *c = caches.list; c; c = c->next)
        gr_store_seq_cst(&c->stop, 1);
    if (caches.list)
        cache_barrier();
    for (gr_pcache *c = caches.list; c; c = c->next) {
        cache_wait_idle(c);
        memset(c->n, 0, sizeof c->n);
        gr_store_relaxed(&c->delta, 0);
        gr_store_relaxed(&c->peak, 0);
        c->pool = NULL;
        c->stream = NULL;
        c->pnext = c->pprev = NULL;
        if (++c->bind == 0)
            c->bind = 1;
        gr_store_seq_cst(&c->stop, 0);
    }
    pthread_mutex_unlock(&caches.lock);
}

/* A free that cache_push could not take as it is: makes the cache, binds
 * or rebinds it, makes the block's stream s; false if the block must take
 * the pool path (too large, class full, pool destroyed, a flusher at
 * work, ASan with the free not yet in effect). */
bool gr__pcache_push_slow(gr_pblock *b, gr_stream *s)
{
    grMemPool_t pool = b->pool;
    unsigned cls = b->cls;
    if (cls >= CACHE_CLASSES)
        return false;
    gr_pcache *c = gr__ptls.cache ? gr__ptls.cache : gr__pcache_create();
    if (!c)
        return false;
    uint64_t seq = gr__stream_tail(s);
#if GR_ASAN
    /* A cached block is poisoned from its free on: cache only a block
     * whose free takes effect now (no work queued on s). */
    if (!gr__stream_reached(s, seq))
        return false;
#endif
    gr_stream *old = NULL;
    bool ok = false;
    if (cache_enter(c)) {
        if (c->pool != pool || c->stream != s) {
            cache_drain_own(c);
            ok = cache_bind(c, pool, s);
        } else {
            ok = true;
        }
        ok = ok && c->n[cls] < CACHE_DEPTH;
        if (ok) {
            if (b->fs != s) {
                old = b->fs;
                gr__stream_retain(s);
                b->fs = s;
            }
            b->fseq = seq;
            gr_store_relaxed(&b->state, BLOCK_CACHED);
            c->slot[cls][c->n[cls]].ptr = b->ptr;
            c->slot[cls][c->n[cls]].b = b;
            c->n[cls]++;
            gr_store_relaxed(&c->delta, gr_load_relaxed(&c->delta) - (int64_t)b->size);
            GR_POISON(b->ptr, b->size);
            note_over(pool);
        }
    }
    cache_leave(c);
    if (old)
        gr__stream_release(old);
    return ok;
}

/* An allocation missed this thread's cache: if the cache holds blocks of
 * this class of this pool (freed on another stream), they go back to the
 * pool first, so that the pool's reuse policies see them as before. */
void gr__pcache_yield(grMemPool_t pool, unsigned cls)
{
    gr_pcache *c = gr__ptls.cache;
    if (!c)
        return;
    if (cache_enter(c) && c->pool == pool && c->n[cls])
        cache_drain_own(c);
    cache_leave(c);
}
