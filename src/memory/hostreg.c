/*
 * hostreg.c - what graphrt remembers of host memory beyond the tracker:
 * the flags grHostAlloc was given, the ranges grHostRegister registered
 * (application memory that then counts as pinned host memory), and which
 * grMalloc blocks are managed memory (grMallocManaged) with the advice
 * and last prefetch location given them (grMemAdvise, grMemPrefetchAsync).
 * Read by grHostGetFlags, grHostGetDevicePointer, grPointerGetAttributes
 * and grMemRangeGetAttribute.
 *
 * Invariants:
 *   - an entry of kind GR_HOSTREG_ALLOC or GR_HOSTREG_MANAGED has the base
 *     of a live tracked allocation: its free (grFreeHost, grFree) and
 *     grDeviceReset remove it (gr__hostreg_forget, gr__hostreg_reset)
 *     before the block goes back, so a later block at the same address
 *     never inherits it;
 *   - registered ranges (GR_HOSTREG_REGISTERED) never overlap one another
 *     (tested under this file's lock as one is added); that none reaches
 *     into a tracked allocation is checked by grHostRegister first (the
 *     range is the application's memory, so no allocation can appear in it
 *     meanwhile);
 *   - entries are few (one per such call) and the calls that read them are
 *     not on a hot path: a mutex and a linear scan suffice. No other lock
 *     is taken while this one is held.
 */
#include "memory.h"

#include <pthread.h>
#include <string.h>

typedef struct gr_hostreg_entry {
    uintptr_t base;
    size_t size;
    unsigned flags;
    gr_hostreg_kind kind;
    gr_managed_state managed; /* GR_HOSTREG_MANAGED: advice, last prefetch */
} gr_hostreg_entry;

static struct {
    pthread_mutex_t lock;
    gr_hostreg_entry *v; /* guarded by lock */
    size_t n, cap;       /* guarded by lock */
} reg = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* The index of the entry of 'kind' holding p (kind 0: any kind), or n. */
static size_t find_locked(uintptr_t p, gr_hostreg_kind kind)
{
    for (size_t i = 0; i < reg.n; i++)
        if ((kind == 0 || reg.v[i].kind == kind) && p >= reg.v[i].base && p - reg.v[i].base < reg.v[i].size)
            return i;
    return reg.n;
}

static bool add_locked(uintptr_t base, size_t size, unsigned flags, gr_hostreg_kind kind)
{
    if (reg.n == reg.cap) {
        size_t cap = reg.cap ? 2 * reg.cap : 16;
        gr_hostreg_entry *v = gr__realloc(reg.v, cap * sizeof *v);
        if (v == NULL)
            return false;
        reg.v = v;
        reg.cap = cap;
    }
    reg.v[reg.n++] = (gr_hostreg_entry){base, size, flags, kind, {0}};
    return true;
}

bool gr__hostreg_note(void *base, size_t size, unsigned flags, gr_hostreg_kind kind)
{
    pthread_mutex_lock(&reg.lock);
    bool ok = add_locked((uintptr_t)base, size, flags, kind);
    pthread_mutex_unlock(&reg.lock);
    return ok;
}

gr_hostreg_result gr__hostreg_register(void *base, size_t size, unsigned flags)
{
    uintptr_t b = (uintptr_t)base;
    gr_hostreg_result r = GR_HOSTREG_OK;
    pthread_mutex_lock(&reg.lock);
    for (size_t i = 0; i < reg.n && r == GR_HOSTREG_OK; i++)
        if (reg.v[i].kind == GR_HOSTREG_REGISTERED && b < reg.v[i].base + reg.v[i].size &&
            reg.v[i].base < b + size)
            r = GR_HOSTREG_OVERLAP;
    if (r == GR_HOSTREG_OK && !add_locked(b, size, flags, GR_HOSTREG_REGISTERED))
        r = GR_HOSTREG_NOMEM;
    pthread_mutex_unlock(&reg.lock);
    return r;
}

bool gr__hostreg_unregister(void *base)
{
    bool found = false;
    pthread_mutex_lock(&reg.lock);
    for (size_t i = 0; i < reg.n; i++)
        if (reg.v[i].kind == GR_HOSTREG_REGISTERED && reg.v[i].base == (uintptr_t)base) {
            reg.v[i] = reg.v[--reg.n];
            found = true;
            break;
        }
    pthread_mutex_unlock(&reg.lock);
    return found;
}

bool gr__hostreg_find(const void *p, gr_hostreg_kind kind, void **base, size_t *size, unsigned *flags)
{
    pthread_mutex_lock(&reg.lock);
    size_t i = find_locked((uintptr_t)p, kind);
    bool found = i < reg.n;
    if (found) {
        if (base)
            *base = (void *)reg.v[i].base;
        if (size)
            *size = reg.v[i].size;
        if (flags)
            *flags = reg.v[i].flags;
    }
    pthread_mutex_unlock(&reg.lock);
    return found;
}

void gr__hostreg_forget(void *base)
{
    pthread_mutex_lock(&reg.lock);
    for (size_t i = 0; i < reg.n; i++)
        if (reg.v[i].kind != GR_HOSTREG_REGISTERED && reg.v[i].base == (uintptr_t)base) {
            reg.v[i] = reg.v[--reg.n];
            break;
        }
    pthread_mutex_unlock(&reg.lock);
}

void gr__hostreg_reset(void)
{
    pthread_mutex_lock(&reg.lock);
    size_t k = 0;
    /* The reset frees graphrt's allocations, so their notes go; a
     * registered range is the application's memory, which stays. */
    for (size_t i = 0; i < reg.n; i++)
        if (reg.v[i].kind == GR_HOSTREG_REGISTERED)
            reg.v[k++] = reg.v[i];
    reg.n = k;
    pthread_mutex_unlock(&reg.lock);
}

bool gr__hostreg_managed_get(const void *p, gr_managed_state *out)
{
    pthread_mutex_lock(&reg.lock);
    size_t i = find_locked((uintptr_t)p, GR_HOSTREG_MANAGED);
    bool found = i < reg.n;
    if (found)
        *out = reg.v[i].managed;
    pthread_mutex_unlock(&reg.lock);
    return found;
}

/* The accessed-by bit of a location (checked by the caller): the host's
 * is bit 63, a device's its number. */
static uint64_t accessed_bit(grMemLocation loc)
{
    return loc.type == grMemLocationTypeDevice ? (uint64_t)1 << loc.id : (uint64_t)1 << 63;
}

bool gr__hostreg_managed_change(const void *p, gr_managed_change change, grMemLocation loc)
{
    static const grMemLocation none = {grMemLocationTypeInvalid, 0};
    pthread_mutex_lock(&reg.lock);
    size_t i = find_locked((uintptr_t)p, GR_HOSTREG_MANAGED);
    bool found = i < reg.n;
    if (found) {
        gr_managed_state *m = &reg.v[i].managed;
        switch (change) {
        case GR_MANAGED_PREFETCH:
            m->last_prefetch = loc;
            break;
        case GR_MANAGED_SET_READ_MOSTLY:
            m->read_mostly = true;
            break;
        case GR_MANAGED_UNSET_READ_MOSTLY:
            m->read_mostly = false;
            break;
        case GR_MANAGED_SET_PREFERRED:
            m->preferred = loc;
            break;
        case GR_MANAGED_UNSET_PREFERRED:
            m->preferred = none;
            break;
        case GR_MANAGED_SET_ACCESSED_BY:
            m->accessed_by |= accessed_bit(loc);
            break;
        case GR_MANAGED_UNSET_ACCESSED_BY:
            m->accessed_by &= ~accessed_bit(loc);
            break;
        }
    }
    pthread_mutex_unlock(&reg.lock);
    return found;
}
