/*
 * bigmem.c - memory for large arrays that are written right after they are
 * allocated: plans and the temporaries of instantiation.
 *
 * A plan of a million nodes is about 140 MB written once. Faulting that in
 * 4 KiB at a time costs more than writing it (on a VM a fresh page can
 * cost 10 us), and glibc maps blocks of this size afresh on every
 * allocation and unmaps them on free, so every instantiation pays the
 * faults again. So blocks of GR_BIG_MAP_MIN bytes and more are mapped
 * here on their own, those of 2 MiB and more starting on a 2 MiB boundary
 * and advised to use transparent huge pages (one fault per 2 MiB where
 * the system allows), and kept after gr__big_free, up to a bound, for
 * the next instantiation to reuse with no fault at all (mid-sized ones
 * too: glibc trims the top of its heap and faults it in again as plans
 * come and go). grDeviceReset gives the kept blocks back.
 *
 * The word before a block's payload holds its mapping's size, or 0 for a
 * malloc'ed block, so that gr__big_free needs no size. A mapping's
 * payload starts GR_BIG_HDR bytes in (a cache line: plan nodes are one
 * line each), a malloc'ed one GR_BIG_MALLOC_HDR bytes in.
 * Under AddressSanitizer every block is malloc'ed, so that overruns of
 * plan arrays are still caught.
 *
 * Invariant: the cache holds at most GR_BIG_CACHE_SLOTS mappings, oldest
 * first, and at most cache_cap bytes; cached mappings are not in use.
 * Guarded by cache_lock.
 */
#include "core.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under AddressSanitizer every block is malloc'ed, so that it sees them. */
#define GR_BIG_MAPS (!GR_ASAN)

#define GR_BIG_HDR ((size_t)64)
#define GR_BIG_MALLOC_HDR ((size_t)16) /* keeps malloc's alignment */
#define GR_BIG_PAGE ((size_t)4096)
#define GR_BIG_HUGE ((size_t)2 << 20)     /* transparent huge page size */
#define GR_BIG_MAP_MIN ((size_t)16 << 10) /* smaller blocks come from malloc */
#if GR_KNOBS_SMALL
#define GR_BIG_CACHE_SLOTS 1       /* every second cached mapping evicts the first */
#define GR_BIG_CACHE_DEFAULT_MB 1u /* mappings over 1 MiB are never cached */
#else
#define GR_BIG_CACHE_SLOTS 16
#define GR_BIG_CACHE_DEFAULT_MB 256u
#endif

/* The size of the mapping p is the payload of (0: malloc'ed). */
static size_t *map_of(void *p)
{
    return (size_t *)p - 1;
}

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *base;
    size_t bytes;
} cache[GR_BIG_CACHE_SLOTS];
static unsigned cache_n;
static size_t cache_bytes;
static size_t cache_cap;
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;

/* GRAPHRT_PLAN_CACHE_MB (0 turns the cache off), at most an eighth of
 * the machine's memory. */
static void read_cap(void)
{
    size_t mb = GR_BIG_CACHE_DEFAULT_MB;
    const char *s = getenv("GRAPHRT_PLAN_CACHE_MB");
    if (s && *s) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (!errno && !*end && v <= (1ul << 20))
            mb = (size_t)v;
    }
    size_t cap = mb << 20;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0 && (size_t)pages / 8 < cap / (size_t)psz)
        cap = (size_t)pages / 8 * (size_t)psz;
    cache_cap = cap;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) & ~(to - 1);
}

static void cache_remove(unsigned i)
{
    cache_bytes -= cache[i].bytes;
    memmove(&cache[i], &cache[i + 1], (cache_n - i - 1) * sizeof cache[0]);
    cache_n--;
}

/* The smallest cached mapping of 'bytes' to twice as many, cut down to
 * 'bytes'; NULL if none. */
static void *cache_take(size_t bytes)
{
    void *base = NULL;
    size_t have = 0;
    pthread_mutex_lock(&cache_lock);
    unsigned best = cache_n;
    for (unsigned i = 0; i < cache_n; i++)
        if (cache[i].bytes >= bytes && cache[i].bytes / 2 <= bytes &&
            (best == cache_n || cache[i].bytes < cache[best].bytes))
            best = i;
    if (best < cache_n) {
        base = cache[best].base;
        have = cache[best].bytes;
        cache_remove(best);
    }
    pthread_mutex_unlock(&cache_lock);
    if (base && have > bytes)
        (void)munmap((char *)base + bytes, have - bytes);
    return base;
}

/* Keeps a mapping for reuse, dropping the oldest ones to make room; false
 * if it is larger than the cache. */
static bool cache_put(void *base, size_t bytes)
{
    void *drop[GR_BIG_CACHE_SLOTS];
    size_t drop_bytes[GR_BIG_CACHE_SLOTS];
    unsigned ndrop = 0;
    pthread_once(&cap_once, read_cap);
    if (bytes > cache_cap)
        return false;
    pthread_mutex_lock(&cache_lock);
    while (cache_n == GR_BIG_CACHE_SLOTS || bytes > cache_cap - cache_bytes) {
        drop[ndrop] = cache[0].base;
        drop_bytes[ndrop++] = cache[0].bytes;
        cache_remove(0);
    }
    cache[cache_n].base = base;
    cache[cache_n].bytes = bytes;
    cache_n++;
    cache_bytes += bytes;
    pthread_mutex_unlock(&cache_lock);
    while (ndrop--)
        (void)munmap(drop[ndrop], drop_bytes[ndrop]);
    return true;
}

/* A fresh mapping of 'bytes' (a multiple of GR_BIG_PAGE). One of
 * GR_BIG_HUGE bytes or more starts on a GR_BIG_HUGE boundary and is
 * advised to use huge pages: its whole huge pages then fault in one go
 * each, and the part past the last one page by page (rounding it up to a
 * huge page would waste up to 2 MiB of memory per array). NULL if out of
 * memory. */
static void *map_fresh(size_t bytes)
{
    bool huge = bytes >= GR_BIG_HUGE;
    size_t span = huge ? bytes + GR_BIG_HUGE - GR_BIG_PAGE : bytes;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    if (!huge)
        return raw;
    char *base = (char *)round_up((uintptr_t)raw, GR_BIG_HUGE);
    if (base > raw)
        (void)munmap(raw, (size_t)(base - raw));
    if (raw + span > base + bytes)
        (void)munmap(base + bytes, (size_t)(raw + span - (base + bytes)));
#ifdef MADV_HUGEPAGE
    (void)madvise(base, bytes, MADV_HUGEPAGE);
#endif
    return base;
}

void *gr__big_alloc(size_t size)
{
    size_t need;
    if (gr__add_overflow(size, GR_BIG_HDR, &need) || need > SIZE_MAX / 2)
        return NULL;
    if (GR_BIG_MAPS && need >= GR_BIG_MAP_MIN) {
        size_t bytes = round_up(need, GR_BIG_PAGE);
        char *base = cache_take(bytes);
        if (!base)
            base = map_fresh(bytes);
        if (!base)
            return NULL;
        *map_of(base + GR_BIG_HDR) = bytes;
        return base + GR_BIG_HDR;
    }
    char *m = malloc(size + GR_BIG_MALLOC_HDR);
    if (!m)
        return NULL;
    *map_of(m + GR_BIG_MALLOC_HDR) = 0;
    return m + GR_BIG_MALLOC_HDR;
}

void *gr__big_realloc(void *p, size_t size)
{
    if (!p)
        return gr__big_alloc(size);
    size_t map = *map_of(p), need;
    if (gr__add_overflow(size, GR_BIG_HDR, &need) || need > SIZE_MAX / 2)
        return NULL;
    if (map == 0) {
        char *m = realloc((char *)p - GR_BIG_MALLOC_HDR, size + GR_BIG_MALLOC_HDR);
        return m ? m + GR_BIG_MALLOC_HDR : NULL;
    }
    if (need <= map)
        return p;
    void *n = gr__big_alloc(size);
    if (!n)
        return NULL;
    memcpy(n, p, map - GR_BIG_HDR);
    gr__big_free(p);
    return n;
}

void gr__big_free(void *p)
{
    if (!p)
        return;
    size_t map = *map_of(p);
    if (map == 0) {
        free((char *)p - GR_BIG_MALLOC_HDR);
        return;
    }
    char *base = (char *)p - GR_BIG_HDR;
    if (!cache_put(base, map))
        (void)munmap(base, map);
}

void gr__big_release_cache(void)
{
    pthread_mutex_lock(&cache_lock);
    while (cache_n) {
        cache_n--;
        (void)munmap(cache[cache_n].base, cache[cache_n].bytes);
    }
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_lock);
}

bool gr__big_maps(void)
{
    return GR_BIG_MAPS;
}
