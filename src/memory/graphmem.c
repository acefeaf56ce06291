/*
 * graphmem.c - graph memory: address reservation for allocation nodes,
 * liveness-based sharing of physical memory at instantiation, the launch
 * rule for unfreed allocations, frees from outside the graph, and the
 * device's graph memory attributes.
 *
 * Sharing: allocations are taken in topological order; each goes into the
 * smallest existing slot of the executable's physical block that is large
 * enough and whose every earlier occupant is freed by a free node from
 * which the new allocation node is reachable, else into a new slot at the
 * end. Reachability is checked by a walk over the graph's edges, so
 * allocations on parallel branches never share memory.
 *
 * Invariants (besides those of graphmem.h):
 *   - the registry list, every descriptor's 'exec' and 'live', the
 *     executables' records and the counters are guarded by 'gm.lock', a
 *     mutex taken by no other area and never held while calling out;
 *   - 'reserved' is the sum of the physical blocks of live executables and
 *     'used' equals it: physical memory exists only while an executable
 *     maps it.
 */
#include "graphmem.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct gr_gmem {
    void *ptr;
    size_t size, span; /* bytes asked for; page-rounded range */
    grMemAccessDesc access;
    size_t naccess;
    int refs;           /* node + executable */
    grGraphExec_t exec; /* the executable mapping it, or NULL */
    bool live;
    bool freed_in_graph; /* a free node of its own graph frees it */
    struct gr_gmem *next;
} gr_gmem;

typedef struct gr_gexec {
    grGraphExec_t e;
    bool destroyed; /* the application destroyed e (it may be held still) */
    bool freeing;   /* gr__graphmem_exec_free is giving its memory back */
    int fd;         /* the physical block, -1 without memfd */
    size_t phys;
    gr_gmem **own; /* allocations this executable maps */
    size_t nown;
    gr_gmem **unfreed; /* of those, the ones no free node frees */
    size_t nunfreed;
    void **foreign; /* addresses its free nodes free elsewhere */
    size_t nforeign;
    struct gr_gexec *next;
} gr_gexec;

static struct {
    pthread_mutex_t lock;
    gr_gmem *list;
    gr_gexec *execs;
    uint64_t reserved, reserved_high, used, used_high;
} gm = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0, 0, 0};

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Under gm.lock. */
static gr_gmem *find_locked(const void *p)
{
    for (gr_gmem *m = gm.list; m; m = m->next)
        if (m->ptr == p)
            return m;
    return NULL;
}

/* Drops one reference under gm.lock; returns the descriptor to destroy
 * (outside the lock) when it was the last. */
static gr_gmem *unref_locked(gr_gmem *m)
{
    if (--m->refs > 0)
        return NULL;
    for (gr_gmem **pp = &gm.list; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    return m;
}

static void destroy(gr_gmem *m)
{
    if (!m)
        return;
    gr__mem_untrack(m->ptr, GR_MEM_POOL);
    munmap(m->ptr, m->span);
    free(m);
}

grError_t gr__graphmem_reserve(const char *call, size_t bytesize, const grMemAccessDesc *access,
                               size_t naccess, void **out)
{
    size_t pg = page_size(), span;
    if (bytesize == 0)
        return gr__fail(grErrorInvalidValue, "%s: nodeParams->bytesize is 0; an allocation node needs a size",
                        call);
    if (naccess > 1 || (naccess == 1 && !access))
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->accessDescCount is %zu; the CPU device has one device, so pass at "
                        "most one access descriptor (for device 0)",
                        call, naccess);
    if (naccess == 1 && (access->location.type != grMemLocationTypeDevice || access->location.id != 0 ||
                         access->flags != grMemAccessFlagsProtReadWrite))
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->accessDescs[0] must give device 0 grMemAccessFlagsProtReadWrite",
                        call);
    if (gr__add_overflow(bytesize, pg - 1, &span) || bytesize > ((size_t)1 << 47))
        return gr__fail(grErrorMemoryAllocation, "%s: %zu bytes requested, more than the device can hold",
                        call, bytesize);
    span &= ~(pg - 1);
    gr_gmem *m = calloc(1, sizeof *m);
    void *p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!m || p == MAP_FAILED) {
        free(m);
        if (p != MAP_FAILED)
            munmap(p, span);
        return gr__fail(grErrorMemoryAllocation, "%s: no address space left to reserve %zu bytes", call,
                        bytesize);
    }
    if (!gr__mem_track(p, bytesize, GR_MEM_POOL)) {
        munmap(p, span);
        free(m);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    m->ptr = p;
    m->size = bytesize;
    m->span = span;
    m->naccess = naccess;
    if (naccess)
        m->access = *access;
    m->refs = 1;
    pthread_mutex_lock(&gm.lock);
    m->next = gm.list;
    gm.list = m;
    pthread_mutex_unlock(&gm.lock);
    *out = p;
    return grSuccess;
}

void gr__graphmem_node_release(void *dptr)
{
    pthread_mutex_lock(&gm.lock);
    gr_gmem *m = find_locked(dptr);
    gr_gmem *dead = m ? unref_locked(m) : NULL;
    pthread_mutex_unlock(&gm.lock);
    destroy(dead);
}

bool gr__graphmem_is_alloc(const void *dptr)
{
    pthread_mutex_lock(&gm.lock);
    bool r = find_locked(dptr) != NULL;
    pthread_mutex_unlock(&gm.lock);
    return r;
}

const grMemAccessDesc *gr__graphmem_access(const void *dptr, size_t *count)
{
    pthread_mutex_lock(&gm.lock);
    gr_gmem *m = find_locked(dptr);
    const grMemAccessDesc *a = m && m->naccess ? &m->access : NULL;
    *count = m ? m->naccess : 0;
    pthread_mutex_unlock(&gm.lock);
    return a;
}

/* True if 'to' is reachable from 'from' along edges (from == to counts). */
static bool reaches(const struct grGraphNode_st *from, const struct grGraphNode_st *to, size_t limit)
{
    /* Iterative DFS with an explicit stack; 'limit' bounds it by the
     * number of nodes, visited marks live in a small open hash set. */
    size_t cap = 16, n = 0, hcap = 64;
    while (hcap < 2 * limit + 2)
        hcap *= 2;
    const struct grGraphNode_st **stack = malloc(cap * sizeof *stack);
    const struct grGraphNode_st **seen = calloc(hcap, sizeof *seen);
    bool found = false;
    if (!stack || !seen)
        goto out;
    stack[n++] = from;
    while (n && !found) {
        const struct grGraphNode_st *x = stack[--n];
        if (x == to) {
            found = true;
            break;
        }
        size_t h = ((uintptr_t)x >> 4) & (hcap - 1);
        while (seen[h] && seen[h] != x)
            h = (h + 1) & (hcap - 1);
        if (seen[h])
            continue;
        seen[h] = x;
        for (size_t i = 0; i < x->nsuccs; i++) {
            if (n == cap) {
                const struct grGraphNode_st **ns = realloc(stack, 2 * cap * sizeof *ns);
                if (!ns)
                    goto out;
                stack = ns;
                cap *= 2;
            }
            stack[n++] = x->succs[i];
        }
    }
out:
    free(stack);
    free(seen);
    return found;
}

bool gr__graphmem_has_nodes(grGraph_t g)
{
    return g->nmemnodes != 0;
}

grError_t gr__graphmem_check_free(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                  void *dptr, bool *own)
{
    bool elsewhere = false;
    pthread_mutex_lock(&gm.lock);
    gr_gmem *m = find_locked(dptr);
    if (m)
        elsewhere = m->freed_in_graph;
    pthread_mutex_unlock(&gm.lock);
    if (!m)
        return gr__fail(grErrorInvalidValue,
                        "%s: dptr %p was not returned by a graph allocation node; a free node frees the "
                        "address of an allocation node (free other memory with grFreeAsync or grFree)",
                        call, dptr);
    struct grGraphNode_st *alloc = NULL;
    for (struct grGraphNode_st *n = g->first; n; n = n->next) {
        if (n->type == grGraphNodeTypeMemFree && n->p.free_ptr == dptr)
            return gr__fail(grErrorInvalidValue, "%s: allocation %p is freed already in this graph by %s",
                            call, dptr, gr__node_label(n));
        if (n->type == grGraphNodeTypeMemAlloc && n->p.alloc.dptr == dptr)
            alloc = n;
    }
    if (alloc) {
        bool ordered = false;
        for (size_t i = 0; i < ndeps && !ordered; i++)
            ordered = reaches(alloc, deps[i], g->nnodes);
        if (!ordered)
            return gr__fail(grErrorInvalidValue,
                            "%s: the free node of %p must depend (directly or not) on its %s; add that "
                            "dependency",
                            call, dptr, gr__node_label(alloc));
    } else if (elsewhere) {
        return gr__fail(grErrorInvalidValue,
                        "%s: allocation %p belongs to another graph, which frees it itself; an allocation "
                        "freed in its own graph cannot be freed anywhere else",
                        call, dptr);
    }
    *own = alloc != NULL;
    return grSuccess;
}

void gr__graphmem_note_free(void *dptr)
{
    pthread_mutex_lock(&gm.lock);
    gr_gmem *m = find_locked(dptr);
    if (GR_ALWAYS(m != NULL))
        m->freed_in_graph = true;
    pthread_mutex_unlock(&gm.lock);
}

/* ------------------------------------------------------- instantiation */

typedef struct slot {
    size_t off, span;
    const struct grGraphNode_st *free_node; /* last occupant's free, NULL: never freed */
} slot;

static const struct grGraphNode_st *free_node_of(grGraph_t g, const void *p)
{
    for (struct grGraphNode_st *n = g->first; n; n = n->next)
        if (n->type == grGraphNodeTypeMemFree && n->p.free_ptr == p)
            return n;
    return NULL;
}

static gr_gexec *gexec_find_locked(grGraphExec_t e)
{
    for (gr_gexec *x = gm.execs; x; x = x->next)
        if (x->e == e)
            return x;
    return NULL;
}

void gr__graphmem_exec_destroyed(grGraphExec_t e)
{
    pthread_mutex_lock(&gm.lock);
    gr_gexec *x = gexec_find_locked(e);
    if (GR_ALWAYS(x != NULL))
        x->destroyed = true;
    pthread_mutex_unlock(&gm.lock);
}

/* True once the application destroyed the executable mapping m (it may
 * still be referenced by a stream or a launch, or be giving its memory
 * back): m will be free once that executable's memory is reclaimed.
 * Under gm.lock. */
static bool exec_destroyed_locked(const gr_gmem *m)
{
    gr_gexec *x = gexec_find_locked(m->exec);
    return GR_ALWAYS(x != NULL) && (x->destroyed || x->freeing);
}

/* Gives back the memory of every executable the application destroyed
 * that is still referenced: waits for its last launch, then unmaps (its
 * final release finds no record). Takes a reference for the wait. Returns
 * once no destroyed executable holds graph memory: one whose memory
 * another thread is giving back (freeing), or whose count already fell to
 * 0 (being freed), is waited for. */
static void reclaim_destroyed(void)
{
    for (;;) {
        grGraphExec_t victim = NULL;
        bool freeing = false;
        pthread_mutex_lock(&gm.lock);
        for (gr_gexec *x = gm.execs; x && !victim; x = x->next) {
            if (x->freeing) {
                freeing = true;
                continue;
            }
            if (!x->destroyed)
                continue;
            int r = gr_load_relaxed(&x->e->refs);
            while (r > 0 && !gr_cas_weak_acquire(&x->e->refs, &r, r + 1))
                ;
            if (r > 0)
                victim = x->e;
            else
                freeing = true;
        }
        pthread_mutex_unlock(&gm.lock);
        if (victim) {
            gr__exec_quiesce(victim);
            gr__graphmem_exec_free(victim);
            gr__exec_release(victim);
        } else if (freeing) {
            sched_yield();
        } else {
            return;
        }
    }
}

static void gexec_free(gr_gexec *x)
{
    if (!x)
        return;
    free(x->own);
    free(x->unfreed);
    free(x->foreign);
    free(x);
}

grError_t gr__graphmem_instantiate(const char *call, grGraphExec_t e, grGraph_t g)
{
    size_t nalloc = 0, nfree = 0;
    if (g->nmemnodes == 0)
        return grSuccess; /* no walk of the graph for the usual case */
    for (struct grGraphNode_st *n = g->first; n; n = n->next) {
        nalloc += n->type == grGraphNodeTypeMemAlloc;
        nfree += n->type == grGraphNodeTypeMemFree;
    }
    if (nalloc + nfree == 0)
        return grSuccess;
    struct grGraphNode_st **order = malloc(g->nnodes * sizeof *order);
    gr_gexec *x = calloc(1, sizeof *x);
    slot *slots = calloc(nalloc ? nalloc : 1, sizeof *slots);
    size_t *offs = calloc(nalloc ? nalloc : 1, sizeof *offs);
    grError_t err = grSuccess;
    if (x) {
        x->own = calloc(nalloc ? nalloc : 1, sizeof *x->own);
        x->unfreed = calloc(nalloc ? nalloc : 1, sizeof *x->unfreed);
        x->foreign = calloc(nfree ? nfree : 1, sizeof *x->foreign);
    }
    if (!order || !x || !slots || !offs || !x->own || !x->unfreed || !x->foreign) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        goto out;
    }
    if (!gr__graph_topo_sort(g, order)) {
        err = grErrorInvalidValue;
        goto out;
    }
    /* CUDA's rule: one executable at a time per allocation. An executable
     * destroyed by the application but still held (a stream caches the
     * executable it launched last) gives its memory up first. */
    for (;;) {
        bool dead = false;
        x->nown = 0;
        pthread_mutex_lock(&gm.lock);
        for (size_t i = 0; i < g->nnodes && !err && !dead; i++) {
            const struct grGraphNode_st *n = order[i];
            if (n->type != grGraphNodeTypeMemAlloc)
                continue;
            gr_gmem *m = find_locked(n->p.alloc.dptr);
            if (!GR_ALWAYS(m != NULL))
                err = gr__fail(grErrorInvalidValue, "%s: %s has no reserved memory", call, gr__node_label(n));
            else if (m->exec && exec_destroyed_locked(m))
                dead = true;
            else if (m->exec)
                err = gr__fail(
                    grErrorInvalidValue,
                    "%s: graph %p has memory nodes and an executable of it exists already (%p); only "
                    "one instantiation of such a graph may exist at a time: destroy that executable "
                    "first",
                    call, GR_PTR(g), GR_PTR(m->exec));
            else
                x->own[x->nown++] = m;
        }
        pthread_mutex_unlock(&gm.lock);
        if (!dead)
            break;
        reclaim_destroyed();
    }
    if (err)
        goto out;
    /* Slots, in topological order. */
    size_t nslots = 0, total = 0, k = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        const struct grGraphNode_st *n = order[i];
        if (n->type == grGraphNodeTypeMemFree) {
            bool mine = false;
            for (size_t j = 0; j < x->nown; j++)
                mine |= x->own[j]->ptr == n->p.free_ptr;
            if (!mine)
                x->foreign[x->nforeign++] = n->p.free_ptr;
            continue;
        }
        if (n->type != grGraphNodeTypeMemAlloc)
            continue;
        gr_gmem *m = x->own[k];
        size_t best = SIZE_MAX;
        for (size_t s = 0; s < nslots; s++)
            if (slots[s].span >= m->span && slots[s].free_node && reaches(slots[s].free_node, n, g->nnodes) &&
                (best == SIZE_MAX || slots[s].span < slots[best].span))
                best = s;
        if (best == SIZE_MAX) {
            best = nslots++;
            slots[best].off = total;
            slots[best].span = m->span;
            total += m->span;
        }
        slots[best].free_node = free_node_of(g, m->ptr);
        if (!slots[best].free_node)
            x->unfreed[x->nunfreed++] = m;
        offs[k++] = slots[best].off;
    }
    /* Physical memory: one memfd block, or plain pages without memfd. */
    x->fd = total ? memfd_create("graphrt-graph-memory", MFD_CLOEXEC) : -1;
    if (x->fd >= 0 && ftruncate(x->fd, (off_t)total) != 0) {
        close(x->fd);
        x->fd = -1;
    }
    x->phys = 0;
    for (size_t j = 0; j < x->nown; j++) {
        gr_gmem *m = x->own[j];
        void *r = x->fd >= 0 ? mmap(m->ptr, m->span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, x->fd,
                                    (off_t)offs[j])
                             : mmap(m->ptr, m->span, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (r == MAP_FAILED) {
            for (size_t u = 0; u < j; u++)
                mmap(x->own[u]->ptr, x->own[u]->span, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
            if (x->fd >= 0)
                close(x->fd);
            err =
                gr__fail(grErrorMemoryAllocation, "%s: could not map %zu bytes of graph memory", call, total);
            goto out;
        }
        if (x->fd < 0)
            x->phys += m->span;
    }
    if (x->fd >= 0)
        x->phys = total;
    x->e = e;
    pthread_mutex_lock(&gm.lock);
    for (size_t j = 0; j < x->nown; j++) {
        x->own[j]->exec = e;
        x->own[j]->refs++;
        x->own[j]->live = false;
    }
    x->next = gm.execs;
    gm.execs = x;
    gm.reserved += x->phys;
    gm.used += x->phys;
    if (gm.reserved > gm.reserved_high)
        gm.reserved_high = gm.reserved;
    if (gm.used > gm.used_high)
        gm.used_high = gm.used;
    pthread_mutex_unlock(&gm.lock);
    e->flags |= GR_EXEC_GRAPHMEM;
    x = NULL;
out:
    gexec_free(x);
    free(order);
    free(slots);
    free(offs);
    return err;
}

grError_t gr__graphmem_launch(grGraphExec_t e)
{
    pthread_mutex_lock(&gm.lock);
    gr_gexec *x = gexec_find_locked(e);
    if (!GR_ALWAYS(x != NULL)) {
        pthread_mutex_unlock(&gm.lock);
        return grSuccess;
    }
    /* Everything is checked before anything changes. */
    bool autofree = (e->flags & grGraphInstantiateFlagAutoFreeOnLaunch) != 0;
    for (size_t i = 0; i < x->nunfreed && !autofree; i++)
        if (x->unfreed[i]->live) {
            void *p = x->unfreed[i]->ptr;
            pthread_mutex_unlock(&gm.lock);
            return gr__fail(
                grErrorInvalidValue,
                "grGraphLaunch: allocation %p made by the previous launch of executable %p is still "
                "allocated; free it (grFreeAsync, grFree or another graph's free node) before "
                "launching again, or instantiate with grGraphInstantiateFlagAutoFreeOnLaunch",
                p, GR_PTR(e));
        }
    for (size_t i = 0; i < x->nforeign; i++) {
        gr_gmem *m = find_locked(x->foreign[i]);
        if (!m || !m->live) {
            void *p = x->foreign[i];
            pthread_mutex_unlock(&gm.lock);
            return gr__fail(
                grErrorInvalidValue,
                "grGraphLaunch: executable %p frees graph allocation %p, which is not allocated now "
                "(freed already, or its graph was not launched since); launch the graph that "
                "allocates it first",
                GR_PTR(e), p);
        }
    }
    for (size_t i = 0; i < x->nunfreed; i++)
        x->unfreed[i]->live = true;
    for (size_t i = 0; i < x->nforeign; i++)
        find_locked(x->foreign[i])->live = false;
    pthread_mutex_unlock(&gm.lock);
    return grSuccess;
}

void gr__graphmem_exec_free(grGraphExec_t e)
{
    gr_gmem *dead[64];
    /* The record stays listed, marked 'freeing', until its allocations are
     * reservations again: an instantiation that needs them meanwhile waits
     * (reclaim_destroyed) instead of calling them taken. */
    pthread_mutex_lock(&gm.lock);
    gr_gexec *x = gexec_find_locked(e);
    if (x && x->freeing)
        x = NULL; /* another thread is at it */
    if (x)
        x->freeing = true;
    pthread_mutex_unlock(&gm.lock);
    if (!x)
        return;
    for (size_t j = 0; j < x->nown; j++) {
        gr_gmem *m = x->own[j];
        /* Back to a reservation: the node may be instantiated again. */
        mmap(m->ptr, m->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    }
    if (x->fd >= 0)
        close(x->fd);
    size_t j = 0;
    while (j < x->nown) {
        size_t nd = 0;
        pthread_mutex_lock(&gm.lock);
        for (; j < x->nown && nd < 64; j++) {
            x->own[j]->exec = NULL;
            x->own[j]->live = false;
            gr_gmem *d = unref_locked(x->own[j]);
            if (d)
                dead[nd++] = d;
        }
        pthread_mutex_unlock(&gm.lock);
        for (size_t i = 0; i < nd; i++)
            destroy(dead[i]);
    }
    pthread_mutex_lock(&gm.lock);
    gm.reserved -= x->phys;
    gm.used -= x->phys;
    for (gr_gexec **pp = &gm.execs; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    pthread_mutex_unlock(&gm.lock);
    gexec_free(x);
}

grError_t gr__graphmem_free_outside(const char *call, void *dptr)
{
    pthread_mutex_lock(&gm.lock);
    gr_gmem *m = find_locked(dptr);
    if (!m) {
        pthread_mutex_unlock(&gm.lock);
        return grErrorUnknown;
    }
    if (!m->live) {
        pthread_mutex_unlock(&gm.lock);
        return gr__fail(
            grErrorInvalidValue,
            "%s: %p is the address of a graph allocation node but is not allocated now (its graph "
            "frees it, it was freed already, or its graph has not been launched)",
            call, dptr);
    }
    m->live = false;
    pthread_mutex_unlock(&gm.lock);
    return grSuccess;
}

/* ------------------------------------------------------------ public API */

GR_API grError_t grDeviceGraphMemTrim(int device)
{
    if (device != 0)
        return gr__fail(grErrorInvalidDevice, "grDeviceGraphMemTrim: device %d does not exist; only device 0",
                        device);
    /* Physical graph memory lives as long as its executable: what can be
     * given back is the memory of executables already destroyed that a
     * stream still holds. */
    reclaim_destroyed();
    return grSuccess;
}

static grError_t graph_attr_check(const char *call, int device, void *value)
{
    if (device != 0)
        return gr__fail(grErrorInvalidDevice, "%s: device %d does not exist; only device 0", call, device);
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
    pthread_mutex_lock(&gm.lock);
    switch (attr) {
    case grGraphMemAttrUsedMemCurrent:
        v = gm.used;
        break;
    case grGraphMemAttrUsedMemHigh:
        v = gm.used_high;
        break;
    case grGraphMemAttrReservedMemCurrent:
        v = gm.reserved;
        break;
    case grGraphMemAttrReservedMemHigh:
        v = gm.reserved_high;
        break;
    default:
        pthread_mutex_unlock(&gm.lock);
        return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grGraphMemAttributeType", call, (int)attr);
    }
    pthread_mutex_unlock(&gm.lock);
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
    pthread_mutex_lock(&gm.lock);
    if (attr == grGraphMemAttrUsedMemHigh)
        gm.used_high = gm.used;
    else
        gm.reserved_high = gm.reserved;
    pthread_mutex_unlock(&gm.lock);
    return grSuccess;
}
