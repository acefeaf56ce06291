/*
 * graphmem.c - graph memory, the memory layer's part: the registry of the
 * allocations of graph allocation nodes (their reserved address ranges,
 * who maps them, whether they are live), frees from outside the graph,
 * and the device's graph memory counters and attributes. The graph layer
 * checks where free nodes may go (graph/memnodes.c); the exec layer maps
 * the allocations of an executable and applies the launch rule
 * (exec/graphmem.c).
 *
 * Invariants (besides those of graphmem.h):
 *   - the registry list, every descriptor's 'exec' and 'live', the exec
 *     layer's records and the counters are guarded by gr__gmem_lock, a
 *     mutex never held while calling out of this module and exec/graphmem.c;
 *   - per device, 'reserved' is the sum of the physical blocks of live
 *     executables of that device and 'used' equals it: physical memory
 *     exists only while an executable maps it.
 */
#include "../backend/device.h"
#include "graphmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* One device's graph memory counters (grDeviceGetGraphMemAttribute). */
typedef struct gm_counters {
    uint64_t reserved, reserved_high, used, used_high;
} gm_counters;

static struct {
    pthread_mutex_t lock;
    gr_gmem *list;
    /* Descriptors in the list; read without the lock so that eager copies
     * of a program without graph memory skip the unmapped-range check. */
    _Atomic size_t count;
    gm_counters dev[GR_MAX_GPUS + 1]; /* [0]: the CPU, [d]: GPU d */
} gm = {.lock = PTHREAD_MUTEX_INITIALIZER};

void gr__gmem_lock(void)
{
    pthread_mutex_lock(&gm.lock);
}

void gr__gmem_unlock(void)
{
    pthread_mutex_unlock(&gm.lock);
}

void gr__gmem_account_locked(int device, int64_t phys)
{
    gm_counters *c = &gm.dev[device];
    c->reserved += (uint64_t)phys;
    c->used += (uint64_t)phys;
    if (c->reserved > c->reserved_high)
        c->reserved_high = c->reserved;
    if (c->used > c->used_high)
        c->used_high = c->used;
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Under gm.lock. */
gr_gmem *gr__gmem_find_locked(const void *p)
{
    for (gr_gmem *m = gm.list; m; m = m->next)
        if (m->ptr == p)
            return m;
    return NULL;
}

/* Drops one reference under gm.lock; returns the descriptor to destroy
 * (outside the lock) when it was the last. */
gr_gmem *gr__gmem_unref_locked(gr_gmem *m)
{
    if (--m->refs > 0)
        return NULL;
    for (gr_gmem **pp = &gm.list; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            gr_fetch_sub_relaxed(&gm.count, 1);
            break;
        }
    return m;
}

void gr__gmem_destroy(gr_gmem *m)
{
    if (!m)
        return;
    gr__mem_untrack(m->ptr, GR_MEM_POOL);
    if (m->device)
        gr__devkind()->vmm_unreserve(m->device, m->ptr, m->span);
    else
        munmap(m->ptr, m->span);
    free(m);
}

/* The range of an allocation of 'bytesize' bytes on 'device', reserved
 * (*span: its rounded size). */
static grError_t reserve_range(const char *call, int device, size_t bytesize, void **out, size_t *span)
{
    size_t unit = page_size();
    grError_t err;
    if (device && (err = gr__devkind()->vmm_granularity(call, device, &unit)))
        return err;
    if (gr__add_overflow(bytesize, unit - 1, span) || bytesize > ((size_t)1 << 47))
        return gr__fail(grErrorMemoryAllocation, "%s: %zu bytes requested, more than the device can hold",
                        call, bytesize);
    *span &= ~(unit - 1);
    if (device)
        return gr__devkind()->vmm_reserve(call, device, *span, unit, out);
    void *p = mmap(NULL, *span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return gr__fail(grErrorMemoryAllocation, "%s: no address space left to reserve %zu bytes", call,
                        bytesize);
    *out = p;
    return grSuccess;
}

grError_t gr__graphmem_reserve(const char *call, int device, size_t bytesize, const grMemAccessDesc *access,
                               size_t naccess, void **out)
{
    size_t span = 0;
    void *p = NULL;
    if (bytesize == 0)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams->bytesize is 0; an allocation node needs a size",
                        call);
    if (naccess > 1 || (naccess == 1 && !access))
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->accessDescCount is %zu; an allocation is reached by its own device "
                        "only, so pass at most one access descriptor (for device %d)",
                        call, naccess, device);
    if (naccess == 1 && (access->location.type != grMemLocationTypeDevice || access->location.id != device ||
                         access->flags != grMemAccessFlagsProtReadWrite))
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->accessDescs[0] must give device %d (the allocation's) "
                        "grMemAccessFlagsProtReadWrite",
                        call, device);
    gr_gmem *m = calloc(1, sizeof *m);
    if (!m)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    grError_t err = reserve_range(call, device, bytesize, &p, &span);
    if (err) {
        free(m);
        return err;
    }
    m->ptr = p;
    m->span = span;
    m->device = device;
    if (!gr__mem_track_owned(p, bytesize, GR_MEM_POOL, device ? device : GR_OWNER_CPU)) {
        gr__gmem_destroy(m); /* untracking what is not tracked does nothing */
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    m->size = bytesize;
    m->naccess = naccess;
    if (naccess)
        m->access = *access;
    m->refs = 1;
    gr__gmem_lock();
    m->next = gm.list;
    gm.list = m;
    gr_fetch_add_relaxed(&gm.count, 1);
    gr__gmem_unlock();
    *out = p;
    return grSuccess;
}

void gr__graphmem_node_release(void *dptr)
{
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(dptr);
    gr_gmem *dead = m ? gr__gmem_unref_locked(m) : NULL;
    gr__gmem_unlock();
    gr__gmem_destroy(dead);
}

void gr__graphmem_foreign_free_release(void *dptr)
{
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(dptr);
    gr_gmem *dead = NULL;
    if (GR_ALWAYS(m != NULL && m->foreign_frees > 0)) {
        m->foreign_frees--;
        dead = gr__gmem_unref_locked(m);
    }
    gr__gmem_unlock();
    gr__gmem_destroy(dead);
}

grError_t gr__graphmem_check_mapped(const char *call, const void *p, size_t n, const char *what)
{
    void *base;
    size_t size;
    gr_mem_kind kind;
    if (GR_LIKELY(n == 0 || gr_load_relaxed(&gm.count) == 0))
        return grSuccess;
    if (!gr__mem_lookup(p, &base, &size, &kind) || kind != GR_MEM_POOL)
        return grSuccess;
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(base);
    bool unmapped = m && !m->exec;
    gr__gmem_unlock();
    if (!unmapped)
        return grSuccess;
    return gr__fail(grErrorInvalidValue,
                    "%s: the %s range at %p of %zu bytes lies in the graph allocation at %p of %zu bytes, "
                    "which no executable maps now (its graph has not been instantiated, or its executable "
                    "was destroyed); touch graph memory only from the graph that allocates it, or after a "
                    "launch of an executable holding it",
                    call, what, p, n, base, size);
}

bool gr__graphmem_is_alloc(const void *dptr)
{
    gr__gmem_lock();
    bool r = gr__gmem_find_locked(dptr) != NULL;
    gr__gmem_unlock();
    return r;
}

const grMemAccessDesc *gr__graphmem_access(const void *dptr, size_t *count)
{
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(dptr);
    const grMemAccessDesc *a = m && m->naccess ? &m->access : NULL;
    *count = m ? m->naccess : 0;
    gr__gmem_unlock();
    return a;
}

void gr__graphmem_note_free(void *dptr, bool freed)
{
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(dptr);
    if (GR_ALWAYS(m != NULL))
        m->freed_in_graph = freed;
    gr__gmem_unlock();
}

grError_t gr__graphmem_free_outside(const char *call, void *dptr)
{
    gr__gmem_lock();
    gr_gmem *m = gr__gmem_find_locked(dptr);
    if (!m) {
        gr__gmem_unlock();
        return grErrorUnknown;
    }
    if (!m->live) {
        gr__gmem_unlock();
        return gr__fail(
            grErrorInvalidValue,
            "%s: %p is the address of a graph allocation node but is not allocated now (its graph "
            "frees it, it was freed already, or its graph has not been launched)",
            call, dptr);
    }
    m->live = false;
    gr__gmem_unlock();
    return grSuccess;
}

static grError_t graph_attr_check(const char *call, int device, void *value)
{
    if (!gr__device_exists(device))
        return gr__fail(grErrorInvalidDevice,
                        "%s: device %d does not exist; the devices are 0 (the CPU) and 1..%d", call, device,
                        gr__gpu_count());
    if (!value)
        return gr__fail(grErrorInvalidValue, "%s: value is NULL", call);
    return grSuccess;
}

GR_API grError_t grDeviceGetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value)
{
    static const char call[] = "grDeviceGetGraphMemAttribute";
    grError_t err = graph_attr_check(call, device, value);
    if (err)
        return err;
    uint64_t v;
    gr__gmem_lock();
    const gm_counters *c = &gm.dev[device];
    switch (attr) {
    case grGraphMemAttrUsedMemCurrent:
        v = c->used;
        break;
    case grGraphMemAttrUsedMemHigh:
        v = c->used_high;
        break;
    case grGraphMemAttrReservedMemCurrent:
        v = c->reserved;
        break;
    case grGraphMemAttrReservedMemHigh:
        v = c->reserved_high;
        break;
    default:
        gr__gmem_unlock();
        return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grGraphMemAttributeType", call, (int)attr);
    }
    gr__gmem_unlock();
    *(uint64_t *)value = v;
    return grSuccess;
}

GR_API grError_t grDeviceSetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value)
{
    static const char call[] = "grDeviceSetGraphMemAttribute";
    grError_t err = graph_attr_check(call, device, value);
    if (err)
        return err;
    if (attr != grGraphMemAttrUsedMemHigh && attr != grGraphMemAttrReservedMemHigh)
        return gr__fail(grErrorInvalidValue,
                        "%s: attr %d cannot be set; only the high-water marks can be reset", call, (int)attr);
    if (*(const uint64_t *)value != 0)
        return gr__fail(grErrorInvalidValue, "%s: a high-water mark can only be reset, by setting it to 0",
                        call);
    gr__gmem_lock();
    gm_counters *c = &gm.dev[device];
    if (attr == grGraphMemAttrUsedMemHigh)
        c->used_high = c->used;
    else
        c->reserved_high = c->reserved;
    gr__gmem_unlock();
    return grSuccess;
}
