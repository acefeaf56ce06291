/*
 * track.c - the allocation tracker behind grMalloc, grMallocHost, pools
 * and graph allocation nodes (the entry points are api/memory.c): an AVL
 * tree of allocation records keyed by base address under one reader-writer
 * lock, so that the allocation containing
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
#include "../backend/device.h"
#include "graphmem.h"
#include "memory.h"

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
    int owner; /* GR_OWNER_* or a GPU device */
} gr_alloc_rec;

static struct {
    pthread_rwlock_t lock;
    gr_alloc_rec *root;        /* guarded by lock */
    atomic_size_t count;       /* written under lock, read lock-free */
    _Atomic uintptr_t span_lo; /* written under lock, read lock-free */
    _Atomic uintptr_t span_hi; /* exclusive; lo >= hi means empty */
} tracker = {PTHREAD_RWLOCK_INITIALIZER, NULL, 0, UINTPTR_MAX, 0};

/* The latest frees, oldest overwritten first: what a stale address
 * pointed into (gr__mem_lookup_freed). Written under the write lock,
 * read under the read lock; 'nfreed' counts every free ever recorded. */
#if GR_KNOBS_SMALL
#define GR_FREED_RECORDS 1 /* only the latest free is remembered */
#else
#define GR_FREED_RECORDS 1024
#endif
static struct {
    uintptr_t base;
    size_t size;
    gr_mem_kind kind;
    uint64_t gen; /* the tracker's generation the free made */
} freed[GR_FREED_RECORDS];
static uint64_t nfreed;

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

void gr__mem_generation_bump(void)
{
    gr_fetch_add_relaxed(&gr__mem_gen, 1);
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
    return gr__mem_track_owned(base, size, kind, GR_OWNER_CPU);
}

bool gr__mem_track_owned(void *base, size_t size, gr_mem_kind kind, int owner)
{
    gr_alloc_rec *r = malloc(sizeof *r);
    if (!r)
        return false;
    *r = (gr_alloc_rec){.base = (uintptr_t)base, .size = size, .height = 1, .kind = kind, .owner = owner};
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
    unsigned slot = (unsigned)(nfreed++ % GR_FREED_RECORDS);
    freed[slot].base = r->base;
    freed[slot].size = r->size;
    freed[slot].kind = r->kind;
    update_span();
    freed[slot].gen = gr_load_relaxed(&gr__mem_gen);
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

bool gr__mem_lookup_freed(const void *p, uint64_t since, void **base, size_t *size, gr_mem_kind *kind)
{
    uintptr_t a = (uintptr_t)p;
    bool found = false;
    pthread_rwlock_rdlock(&tracker.lock);
    /* Newest first: a range freed twice (reused, then freed again) is
     * named by its latest free. */
    uint64_t n = nfreed < GR_FREED_RECORDS ? nfreed : GR_FREED_RECORDS;
    for (uint64_t i = 0; i < n && !found; i++) {
        unsigned slot = (unsigned)((nfreed - 1 - i) % GR_FREED_RECORDS);
        if (freed[slot].gen > since && a - freed[slot].base < freed[slot].size) {
            *base = (void *)freed[slot].base;
            *size = freed[slot].size;
            *kind = freed[slot].kind;
            found = true;
        }
    }
    /* Live again (the address was handed out anew): not stale. */
    if (found && find_containing(a))
        found = false;
    pthread_rwlock_unlock(&tracker.lock);
    return found;
}

bool gr__mem_owner(const void *p, int *owner)
{
    uintptr_t a = (uintptr_t)p;
    if (a < gr_load_acquire(&tracker.span_lo) || a >= gr_load_acquire(&tracker.span_hi))
        return false;
    pthread_rwlock_rdlock(&tracker.lock);
    gr_alloc_rec *r = find_containing(a);
    if (r)
        *owner = r->owner;
    pthread_rwlock_unlock(&tracker.lock);
    return r != NULL;
}

bool gr__mem_describe(const void *p, gr_mem_kind *kind, int *owner)
{
    uintptr_t a = (uintptr_t)p;
    if (a < gr_load_acquire(&tracker.span_lo) || a >= gr_load_acquire(&tracker.span_hi))
        return false;
    pthread_rwlock_rdlock(&tracker.lock);
    gr_alloc_rec *r = find_containing(a);
    if (r) {
        *kind = r->kind;
        *owner = r->owner;
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

/* Frees the block of a record a reset takes out (pools free theirs). */
static void free_block(const gr_alloc_rec *n)
{
    /* A GPU's stream-ordered allocations are the driver's pool's, which
     * cuMemFree frees too; graphrt's own pools free their blocks. */
    if (n->kind == GR_MEM_POOL && n->owner > 0) {
        (void)gr__devkind()->mem_free("grDeviceReset", n->owner, (void *)n->base);
        return;
    }
    if (n->kind != GR_MEM_DEVICE && n->kind != GR_MEM_HOST)
        return;
    if (n->owner == GR_OWNER_CPU)
        gr__free((void *)n->base);
    else if (n->owner == GR_OWNER_PINNED)
        (void)gr__devkind()->host_free("grDeviceReset", (void *)n->base);
    else
        (void)gr__devkind()->mem_free("grDeviceReset", n->owner, (void *)n->base);
}

/* Moves the records of the subtree at n that 'take' selects onto the
 * list *out (linked through child[0]), re-inserting the others into
 * *keep. */
static void split_subtree(gr_alloc_rec *n, bool (*take)(const gr_alloc_rec *, int), int arg,
                          gr_alloc_rec **keep, gr_alloc_rec **out)
{
    while (n) {
        gr_alloc_rec *l = n->child[0], *r = n->child[1];
        split_subtree(l, take, arg, keep, out);
        n->child[0] = n->child[1] = NULL;
        n->height = 1;
        if (take(n, arg)) {
            n->child[0] = *out;
            *out = n;
        } else {
            *keep = tree_insert(*keep, n);
        }
        n = r;
    }
}

/* Takes the records 'take' selects out of the tracker and frees them and
 * their blocks. */
static void reset_where(bool (*take)(const gr_alloc_rec *, int), int arg)
{
    gr_alloc_rec *keep = NULL, *out = NULL;
    size_t kept = 0;
    pthread_rwlock_wrlock(&tracker.lock);
    split_subtree(tracker.root, take, arg, &keep, &out);
    tracker.root = keep;
    for (gr_alloc_rec *n = tree_edge(keep, 0); n; n = tree_above(keep, n->base))
        kept++;
    gr_store_release(&tracker.count, kept);
    update_span();
    pthread_rwlock_unlock(&tracker.lock);
    while (out) {
        gr_alloc_rec *next = out->child[0];
        free_block(out);
        free(out);
        out = next;
    }
}

static bool not_a_gpus(const gr_alloc_rec *n, int arg)
{
    (void)arg;
    return n->owner <= 0;
}

/* A GPU's reset takes its grMalloc and grMallocAsync allocations; its
 * graph allocations stay: their ranges and mappings are graph memory's,
 * given back with their nodes and executables (gr__graphmem_is_alloc
 * takes graph memory's lock, never held around a tracker call). */
static bool of_gpu(const gr_alloc_rec *n, int device)
{
    return n->owner == device && !(n->kind == GR_MEM_POOL && gr__graphmem_is_alloc((const void *)n->base));
}

void gr__mem_reset(void)
{
    reset_where(not_a_gpus, 0);
}

void gr__mem_reset_device(int device)
{
    reset_where(of_gpu, device);
}
