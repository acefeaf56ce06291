/*
 * alloc.c - grMalloc, grFree, grMallocHost, grFreeHost and the allocation
 * tracker behind them: an AVL tree of allocation records keyed by base
 * address under one reader-writer lock, so that the allocation containing
 * any pointer is found in O(log n) while copies, memsets and launches on
 * many threads look up concurrently.
 *
 * Invariants:
 *   - the tree holds one record per tracked range; ranges never overlap, so
 *     the record with the greatest base <= p is the only candidate for p,
 *     and the record with the greatest base also has the greatest end;
 *   - 'span_lo' / 'span_hi' always cover every tracked range (they may be
 *     wider while a removal is in progress, never narrower): they are
 *     stored with release order under the write lock after the tree has
 *     changed, so a thread that learned of a pointer through any
 *     synchronisation with its allocator sees a span that covers it;
 *   - records live outside the user's block, so an overrunning kernel
 *     cannot corrupt the tracker.
 *
 * The tracker is this area's only mutable global; it has its own lock and
 * needs no initialisation (grDeviceReset empties it via gr__mem_reset).
 */
#include "memory.h"
#include "pool.h"

#include "../capture/capture.h"
#include "../backend/backend.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct gr_alloc_rec {
    uintptr_t base;
    size_t size;
    struct gr_alloc_rec *child[2]; /* [0] smaller bases, [1] larger */
    int height;                    /* of the subtree; a leaf is 1 */
    gr_mem_kind kind;
} gr_alloc_rec;

static struct {
    pthread_rwlock_t lock;
    gr_alloc_rec *root;        /* guarded by lock */
    atomic_size_t count;       /* written under lock, read lock-free */
    _Atomic uintptr_t span_lo; /* written under lock, read lock-free */
    _Atomic uintptr_t span_hi; /* exclusive; lo >= hi means empty */
} tracker = {PTHREAD_RWLOCK_INITIALIZER, NULL, 0, UINTPTR_MAX, 0};

/* The tracker's changes, from 1: bumped under its write lock, read
 * lock-free (gr__mem_generation). */
_Atomic uint64_t gr__mem_gen = 1;

/* ------------------------------------------------------------ AVL tree */

static int height_of(const gr_alloc_rec *n)
{
    return n ? n->height : 0;
}

static void update_height(gr_alloc_rec *n)
{
    int l = height_of(n->child[0]), r = height_of(n->child[1]);
    n->height = 1 + (l > r ? l : r);
}

/* Lifts n's child on side 'side' into n's place. */
static gr_alloc_rec *rotate_up(gr_alloc_rec *n, int side)
{
    gr_alloc_rec *c = n->child[side];
    n->child[side] = c->child[!side];
    c->child[!side] = n;
    update_height(n);
    update_height(c);
    return c;
}

static gr_alloc_rec *rebalance(gr_alloc_rec *n)
{
    update_height(n);
    int diff = height_of(n->child[1]) - height_of(n->child[0]);
    if (diff < -1 || diff > 1) {
        int side = diff > 0; /* the heavy side */
        gr_alloc_rec *c = n->child[side];
        /* A zig-zag becomes a zig-zig first. */
        if (height_of(c->child[!side]) > height_of(c->child[side]))
            n->child[side] = rotate_up(c, !side);
        return rotate_up(n, side);
    }
    return n;
}

static gr_alloc_rec *tree_insert(gr_alloc_rec *n, gr_alloc_rec *x)
{
    if (!n)
        return x;
    int side = x->base > n->base;
    n->child[side] = tree_insert(n->child[side], x);
    return rebalance(n);
}

static gr_alloc_rec *tree_remove_min(gr_alloc_rec *n, gr_alloc_rec **min)
{
    if (!n->child[0]) {
        *min = n;
        return n->child[1];
    }
    n->child[0] = tree_remove_min(n->child[0], min);
    return rebalance(n);
}

/* Unlinks the record whose base is 'base' (which must be in the tree). */
static gr_alloc_rec *tree_remove(gr_alloc_rec *n, uintptr_t base)
{
    if (!GR_ALWAYS(n != NULL))
        return NULL;
    if (base != n->base) {
        int side = base > n->base;
        n->child[side] = tree_remove(n->child[side], base);
        return rebalance(n);
    }
    if (!n->child[0])
        return n->child[1];
    if (!n->child[1])
        return n->child[0];
    gr_alloc_rec *succ;
    gr_alloc_rec *right = tree_remove_min(n->child[1], &succ);
    succ->child[0] = n->child[0];
    succ->child[1] = right;
    return rebalance(succ);
}

/* The record with the greatest base <= p, or NULL. */
static gr_alloc_rec *tree_floor(gr_alloc_rec *n, uintptr_t p)
{
    gr_alloc_rec *best = NULL;
    while (n) {
        if (n->base <= p) {
            best = n;
            n = n->child[1];
        } else {
            n = n->child[0];
        }
    }
    return best;
}

/* The record with the smallest base > p, or NULL. */
static gr_alloc_rec *tree_above(gr_alloc_rec *n, uintptr_t p)
{
    gr_alloc_rec *best = NULL;
    while (n) {
        if (n->base > p) {
            best = n;
            n = n->child[0];
        } else {
            n = n->child[1];
        }
    }
    return best;
}

static gr_alloc_rec *tree_edge(gr_alloc_rec *n, int side)
{
    while (n && n->child[side])
        n = n->child[side];
    return n;
}

/* Called under the write lock after every change of the tree. */
static void update_span(void)
{
    gr_store_release(&gr__mem_gen, gr_load_relaxed(&gr__mem_gen) + 1);
    gr_alloc_rec *lo = tree_edge(tracker.root, 0), *hi = tree_edge(tracker.root, 1);
    gr_store_release(&tracker.span_lo, lo ? lo->base : UINTPTR_MAX);
    gr_store_release(&tracker.span_hi, hi ? hi->base + hi->size : 0);
}

/* The record containing p, under a held lock. */
static gr_alloc_rec *find_containing(uintptr_t p)
{
    gr_alloc_rec *r = tree_floor(tracker.root, p);
    return (r && p - r->base < r->size) ? r : NULL;
}

/* --------------------------------------------------------- tracker API */

bool gr__mem_track(void *base, size_t size, gr_mem_kind kind)
{
    gr_alloc_rec *r = malloc(sizeof *r);
    if (!r)
        return false;
    *r = (gr_alloc_rec){.base = (uintptr_t)base, .size = size, .height = 1, .kind = kind};
    gr_assert(size > 0);
    pthread_rwlock_wrlock(&tracker.lock);
    gr_assert(!find_containing(r->base) && !find_containing(r->base + size - 1));
    tracker.root = tree_insert(tracker.root, r);
    gr_fetch_add_release(&tracker.count, 1);
    update_span();
    pthread_rwlock_unlock(&tracker.lock);
    return true;
}

bool gr__mem_untrack(void *base, gr_mem_kind kind)
{
    uintptr_t b = (uintptr_t)base;
    pthread_rwlock_wrlock(&tracker.lock);
    gr_alloc_rec *r = tree_floor(tracker.root, b);
    if (!r || r->base != b || r->kind != kind) {
        pthread_rwlock_unlock(&tracker.lock);
        return false;
    }
    tracker.root = tree_remove(tracker.root, b);
    gr_fetch_sub_release(&tracker.count, 1);
    update_span();
    pthread_rwlock_unlock(&tracker.lock);
    free(r);
    return true;
}

bool gr__mem_lookup(const void *p, void **base, size_t *size, gr_mem_kind *kind)
{
    uintptr_t a = (uintptr_t)p;
    if (a < gr_load_acquire(&tracker.span_lo) || a >= gr_load_acquire(&tracker.span_hi))
        return false;
    pthread_rwlock_rdlock(&tracker.lock);
    gr_alloc_rec *r = find_containing(a);
    if (r) {
        if (base)
            *base = (void *)r->base;
        if (size)
            *size = r->size;
        if (kind)
            *kind = r->kind;
    }
    pthread_rwlock_unlock(&tracker.lock);
    return r != NULL;
}

bool gr__mem_is_device(const void *p)
{
    gr_mem_kind kind;
    return p != NULL && gr__mem_lookup(p, NULL, NULL, &kind) && kind != GR_MEM_HOST;
}

size_t gr__mem_live_count(void)
{
    return gr_load_acquire(&tracker.count);
}

bool gr__mem_range_ok(const void *p, size_t n, void **base, size_t *size)
{
    uintptr_t a = (uintptr_t)p;
    if (n == 0)
        return true;
    if (GR_UNLIKELY(a + n < a)) {
        *base = NULL;
        *size = 0;
        return false;
    }
    /* Outside the span of every tracked range: plain host memory. */
    if (a + n <= gr_load_acquire(&tracker.span_lo) || a >= gr_load_acquire(&tracker.span_hi))
        return true;
    pthread_rwlock_rdlock(&tracker.lock);
    /* The allocation p lies in must hold the whole range; a range that
     * starts outside every allocation must not reach into one. */
    gr_alloc_rec *r = find_containing(a);
    bool ok = r ? n <= r->size - (a - r->base) : true;
    if (!r) {
        r = tree_above(tracker.root, a);
        ok = !r || r->base - a >= n;
    }
    if (!ok) {
        *base = (void *)r->base;
        *size = r->size;
    }
    pthread_rwlock_unlock(&tracker.lock);
    return ok;
}

grError_t gr__mem_check_range(const char *call, const void *p, size_t n, const char *what)
{
    uintptr_t a = (uintptr_t)p;
    void *base;
    size_t size;
    if (GR_LIKELY(gr__mem_range_ok(p, n, &base, &size)))
        return grSuccess;
    if (!base)
        return gr__fail(grErrorInvalidValue,
                        "%s: the %s range at %p of %zu bytes wraps around the end of the "
                        "address space; check the pointer and the byte count",
                        call, what, p, n);
    if (a < (uintptr_t)base)
        return gr__fail(
            grErrorInvalidValue,
            "%s: the %s range at %p of %zu bytes starts outside graphrt's allocations but reaches "
            "%zu bytes into the allocation at %p of %zu bytes; shorten the byte count or fix the "
            "pointer",
            call, what, p, n, (size_t)(a + n - (uintptr_t)base), base, size);
    size_t offset = a - (uintptr_t)base;
    return gr__fail(grErrorInvalidValue,
                    "%s: the %s range at %p of %zu bytes starts %zu bytes into the "
                    "allocation at %p of %zu bytes and runs %zu bytes past its end; "
                    "shorten the byte count or fix the pointer",
                    call, what, p, n, offset, base, size, n - (size - offset));
}

static void free_subtree(gr_alloc_rec *n)
{
    while (n) {
        free_subtree(n->child[0]);
        gr_alloc_rec *right = n->child[1];
        if (n->kind == GR_MEM_DEVICE || n->kind == GR_MEM_HOST)
            gr__free((void *)n->base);
        free(n);
        n = right;
    }
}

void gr__mem_reset(void)
{
    pthread_rwlock_wrlock(&tracker.lock);
    gr_alloc_rec *root = tracker.root;
    tracker.root = NULL;
    gr_store_release(&tracker.count, 0);
    update_span();
    pthread_rwlock_unlock(&tracker.lock);
    free_subtree(root);
}

/* ------------------------------------------------------------ public API */

/* The "device memory" of the CPU device: physical RAM. A request larger
 * than that can never be backed, so it fails at once instead of relying on
 * the OS (which may overcommit, and under sanitizers aborts). */
static size_t device_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return SIZE_MAX;
    size_t total;
    if (gr__mul_overflow((size_t)pages, (size_t)page, &total))
        return SIZE_MAX;
    return total;
}

static const char *kind_allocator(gr_mem_kind k)
{
    switch (k) {
    case GR_MEM_DEVICE:
        return "grMalloc";
    case GR_MEM_HOST:
        return "grMallocHost";
    case GR_MEM_POOL:
        return "a memory pool (grMallocAsync or a graph allocation node)";
    }
    return "an unknown allocator";
}

static const char *kind_freer(gr_mem_kind k)
{
    switch (k) {
    case GR_MEM_DEVICE:
        return "grFree";
    case GR_MEM_HOST:
        return "grFreeHost";
    case GR_MEM_POOL:
        return "grFreeAsync (or the graph's free node)";
    }
    return "its allocator's free function";
}

static grError_t alloc_tracked(const char *call, void **out, size_t size, gr_mem_kind kind)
{
    if (!out)
        return gr__fail(grErrorInvalidValue,
                        "%s: the output pointer is NULL; pass the address of a void * "
                        "that receives the allocation",
                        call);
    /* CUDA counts synchronous allocation as unsafe during capture. */
    grError_t err = gr__capture_check_unsafe(call, GR_UNSAFE_MALLOC, NULL, NULL);
    if (err != grSuccess)
        return err;
    if (size == 0) {
        *out = NULL;
        return grSuccess;
    }
    size_t limit = device_memory_bytes();
    if (size > limit)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: %zu bytes requested, more than the device's %zu bytes of "
                        "memory (the host's physical RAM); allocate less",
                        call, size, limit);
    /* Rounding up keeps every block's end aligned too, as CUDA's are. */
    size_t rounded;
    if (gr__add_overflow(size, GR_MEM_ALIGN - 1, &rounded))
        rounded = SIZE_MAX;
    rounded &= ~(size_t)(GR_MEM_ALIGN - 1);
    void *p = gr__aligned_alloc(GR_MEM_ALIGN, rounded);
    if (!p)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: the host could not provide %zu bytes; free memory or "
                        "allocate less",
                        call, size);
    if (!gr__mem_track(p, size, kind)) {
        gr__free(p);
        return gr__fail(grErrorMemoryAllocation, "%s: no memory left to record the allocation of %zu bytes",
                        call, size);
    }
    *out = p;
    return grSuccess;
}

/* Refuses a pointer that 'call' may not free; changes nothing. */
static grError_t check_freeable(const char *call, void *p, gr_mem_kind kind)
{
    void *base;
    size_t size;
    gr_mem_kind found;
    if (!gr__mem_lookup(p, &base, &size, &found))
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was not returned by %s, or was freed already; "
                        "pass a pointer %s returned, and free it once",
                        call, p, kind_allocator(kind), kind_allocator(kind));
    if (base != p)
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p is %zu bytes inside the allocation at %p of %zu "
                        "bytes; pass the allocation's base pointer",
                        call, p, (size_t)((uintptr_t)p - (uintptr_t)base), base, size);
    if (found != kind)
        return gr__fail(grErrorInvalidValue, "%s: pointer %p was allocated by %s; free it with %s", call, p,
                        kind_allocator(found), kind_freer(found));
    return grSuccess;
}

static grError_t free_tracked(const char *call, void *p, gr_mem_kind kind)
{
    if (!p)
        return grSuccess;
    grError_t err = check_freeable(call, p, kind);
    if (err != grSuccess)
        return err;
    if ((err = gr__capture_check_unsafe(call, GR_UNSAFE_FREE, NULL, NULL)) != grSuccess)
        return err;
    /* As CUDA, freeing waits until no queued work can still touch the block. */
    gr__device_sync_all();
    /* Another thread may have freed it while this one waited. */
    if (!gr__mem_untrack(p, kind))
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was freed by another thread during this call; "
                        "free each allocation once",
                        call, p);
    gr__free(p);
    return grSuccess;
}

GR_API grError_t grMalloc(void **devPtr, size_t size)
{
    return alloc_tracked("grMalloc", devPtr, size, GR_MEM_DEVICE);
}

GR_API grError_t grFree(void *devPtr)
{
    /* CUDA's cudaFree also frees stream-ordered allocations. */
    if (devPtr && gr__pool_owns(devPtr))
        return gr__pool_free_sync("grFree", devPtr);
    return free_tracked("grFree", devPtr, GR_MEM_DEVICE);
}

GR_API grError_t grMallocHost(void **ptr, size_t size)
{
    return alloc_tracked("grMallocHost", ptr, size, GR_MEM_HOST);
}

GR_API grError_t grFreeHost(void *ptr)
{
    return free_tracked("grFreeHost", ptr, GR_MEM_HOST);
}
