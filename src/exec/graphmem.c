/*
 * graphmem.c - graph memory, the exec layer's part: instantiation maps an
 * executable's allocations onto one physical block (a memfd on the CPU, a
 * cuMemCreate allocation on a GPU), sharing pages between allocations
 * whose lifetimes cannot overlap; a launch applies CUDA's rule
 * for allocations still live from the previous launch; a destroyed
 * executable still held by a stream gives its memory up when another
 * instantiation needs the allocations, or at grDeviceGraphMemTrim.
 *
 * The memory nodes of an executable are those of its graph and of the
 * graphs moved into its child-graph nodes (grGraphChildGraphOwnershipMove),
 * at any depth: they are listed in one order (the graph's topological
 * order, each child graph's nodes in creation order in its node's place),
 * and the rules below read that list.
 *
 * Sharing: allocations are taken in that order; each goes into the
 * smallest existing slot of the executable's physical block that is large
 * enough and whose every earlier occupant is freed by a free node from
 * which the new allocation node is reachable, else into a new slot at the
 * end. Reachability is checked by a walk over the edges of the innermost
 * graph holding both nodes (gr__graphmem_ordered), so allocations on
 * parallel branches never share memory. A GPU allocation's
 * span is a multiple of the device's granularity, so every slot offset is
 * one too, as cuMemMap needs.
 *
 * Invariants: the records (gr_gexec) are listed in 'execs' and each is
 * reached from its executable (e->gmem); both, like the descriptors'
 * 'exec' and 'live', are guarded by gr__gmem_lock.
 */
#include "exec.h"
#include "../backend/device.h"
#include "../memory/graphmem.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct gr_gexec {
    grGraphExec_t e;
    bool destroyed; /* the application destroyed e (it may be held still) */
    bool freeing;   /* gr__graphmem_exec_free is giving its memory back */
    /* Of every allocation it maps: 0 (the CPU) or a GPU; or
     * GR_GRAPHMEM_ANY_DEVICE (a graph that spans devices): each
     * allocation's own device, one block per device. */
    int device;
    uint64_t devs; /* bit d: device d's block holds allocations */
    struct {
        int fd;       /* the CPU's block (device 0), -1 without memfd */
        uint64_t gpu; /* a GPU's block (cuMemCreate handle), 0 without */
        size_t phys;
    } blk[GR_MAX_GPUS + 1];
    gr_gmem **own; /* allocations this executable maps */
    size_t nown;
    gr_gmem **unfreed; /* of those, the ones no free node frees */
    size_t nunfreed;
    void **foreign; /* addresses its free nodes free elsewhere */
    size_t nforeign;
    struct gr_gexec *next;
} gr_gexec;

/* Guarded by gr__gmem_lock. */
static gr_gexec *execs;

/* ------------------------------------------------------- instantiation */

typedef struct slot {
    int device; /* whose block */
    size_t off, span;
    const struct grGraphNode_st *free_node; /* last occupant's free, NULL: never freed */
} slot;

/* The memory nodes of g and its moved child graphs (mem[0..n)). */
typedef struct mem_list {
    const struct grGraphNode_st **mem;
    size_t n;
} mem_list;

/* Appends the memory nodes of child graph c's nodes, and of the graphs
 * moved into them, in creation order: no topological sort, which would
 * clear the 'scratch' an update keeps in child graphs' nodes while it
 * prepares. Creation order follows the edges unless some were added
 * between existing nodes; any order is safe (sharing asks
 * gr__graphmem_ordered), a topological one only shares more. */
static void list_child_mem_nodes(grGraph_t c, mem_list *l)
{
    for (const struct grGraphNode_st *n = c->first; n; n = n->next) {
        if (n->type == grGraphNodeTypeMemAlloc || n->type == grGraphNodeTypeMemFree)
            l->mem[l->n++] = n;
        else if (n->type == grGraphNodeTypeGraph && gr__graphmem_has_nodes(n->p.child))
            list_child_mem_nodes(n->p.child, l);
    }
}

/* Appends the memory nodes of top-level graph g and of the graphs moved
 * into its child-graph nodes, at any depth: g's topological order, each
 * child graph's list in its node's place. False when out of memory. */
static bool list_mem_nodes(grGraph_t g, mem_list *l)
{
    struct grGraphNode_st **order = malloc(g->nnodes * sizeof *order);
    bool ok = order != NULL && gr__graph_topo_sort(g, order);
    for (size_t i = 0; ok && i < g->nnodes; i++) {
        const struct grGraphNode_st *n = order[i];
        if (n->type == grGraphNodeTypeMemAlloc || n->type == grGraphNodeTypeMemFree)
            l->mem[l->n++] = n;
        else if (n->type == grGraphNodeTypeGraph && gr__graphmem_has_nodes(n->p.child))
            list_child_mem_nodes(n->p.child, l);
    }
    free(order);
    return ok;
}

static const struct grGraphNode_st *free_node_of(const mem_list *l, const void *p)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->mem[i]->type == grGraphNodeTypeMemFree && l->mem[i]->p.free.dptr == p)
            return l->mem[i];
    return NULL;
}

/* e's record: no search, the executable points at it. */
static gr_gexec *gexec_find_locked(grGraphExec_t e)
{
    return e->gmem;
}

void gr__graphmem_exec_destroyed(grGraphExec_t e)
{
    gr__gmem_lock();
    gr_gexec *x = gexec_find_locked(e);
    if (GR_ALWAYS(x != NULL)) {
        x->destroyed = true;
        /* Its allocations still allocated end with it (docs/memory-pools.md,
         * a deviation: CUDA keeps them until freed), even while a stream
         * holds the executable on. */
        for (size_t i = 0; i < x->nunfreed; i++)
            x->unfreed[i]->live = false;
    }
    gr__gmem_unlock();
}

/* True once the application destroyed the executable mapping m (it may
 * still be referenced by a stream or a launch, or be giving its memory
 * back): m will be free once that executable's memory is reclaimed.
 * Under gr__gmem_lock. */
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
        gr__gmem_lock();
        for (gr_gexec *x = execs; x && !victim; x = x->next) {
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
        gr__gmem_unlock();
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

/* Every allocation of an executable is memory of its device: the
 * physical block is one device's; a graph that spans devices
 * (GR_GRAPHMEM_ANY_DEVICE) has one block per device. Sets x->device and
 * x->devs. */
static grError_t check_devices(const char *call, int edev, gr_gexec *x)
{
    x->devs = 0;
    for (size_t j = 0; j < x->nown; j++) {
        x->devs |= 1ull << x->own[j]->device;
        if (edev != GR_GRAPHMEM_ANY_DEVICE && x->own[j]->device != edev)
            return gr__fail(grErrorInvalidValue,
                            "%s: graph allocation %p is memory of device %d (%s) but the graph is "
                            "instantiated for device %d (%s); allocation nodes must name the device "
                            "current at instantiation (poolProps.location.id)",
                            call, x->own[j]->ptr, x->own[j]->device, x->own[j]->device ? "a GPU" : "the CPU",
                            edev, edev ? "a GPU" : "the CPU");
    }
    x->device = edev;
    return grSuccess;
}

/* Unmaps GPU d's allocations among the first n of x and releases d's
 * block. */
static void unmap_gpu_n(gr_gexec *x, int d, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (x->own[j]->device == d)
            gr__devkind()->vmm_unmap(d, x->own[j]->ptr, x->own[j]->span);
    if (x->blk[d].gpu)
        gr__devkind()->vmm_release(d, x->blk[d].gpu);
    x->blk[d].gpu = 0;
}

/* Gives GPU d's memory of an executable back. The device's work may
 * still use it (a launch not finished): that work is waited for first. */
static void unmap_gpu(gr_gexec *x, int d)
{
    if (!(x->devs >> d & 1))
        return;
    (void)gr__devkind()->vmm_quiesce("grGraphExecDestroy", d);
    unmap_gpu_n(x, d, x->nown);
}

/* GPU d's physical memory: one cuMemCreate block of 'total' bytes (a
 * multiple of the granularity: every span is), each of d's allocations'
 * ranges mapped at its slot's offset. On failure nothing of d stays
 * mapped or allocated. Sets x->blk[d]. */
static grError_t map_gpu(const char *call, gr_gexec *x, int d, const size_t *offs, size_t total)
{
    grError_t err = total ? gr__devkind()->vmm_create(call, d, total, &x->blk[d].gpu) : grSuccess;
    if (err)
        return err;
    for (size_t j = 0; j < x->nown; j++)
        if (x->own[j]->device == d && (err = gr__devkind()->vmm_map(call, d, x->own[j]->ptr, x->own[j]->span,
                                                                    x->blk[d].gpu, offs[j]))) {
            unmap_gpu_n(x, d, j);
            return err;
        }
    x->blk[d].fd = -1;
    x->blk[d].phys = total;
    return grSuccess;
}

/* The CPU's physical memory: one memfd block of 'total' bytes, or plain
 * pages without memfd, each of its allocations' ranges mapped at its
 * slot's offset. On failure the ranges are reservations again. Sets
 * x->blk[0]. */
static grError_t map_cpu(const char *call, gr_gexec *x, const size_t *offs, size_t total)
{
    int fd = total ? memfd_create("graphrt-graph-memory", MFD_CLOEXEC) : -1;
    if (fd >= 0 && ftruncate(fd, (off_t)total) != 0) {
        close(fd);
        fd = -1;
    }
    x->blk[0].fd = fd;
    x->blk[0].phys = 0;
    for (size_t j = 0; j < x->nown; j++) {
        gr_gmem *m = x->own[j];
        if (m->device != 0)
            continue;
        void *r = fd >= 0 ? mmap(m->ptr, m->span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                                 (off_t)offs[j])
                          : mmap(m->ptr, m->span, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (r == MAP_FAILED) {
            for (size_t u = 0; u < j; u++) /* back to reservations: nothing to do if that fails */
                if (x->own[u]->device == 0)
                    (void)mmap(x->own[u]->ptr, x->own[u]->span, PROT_NONE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
            if (fd >= 0)
                close(fd);
            x->blk[0].fd = -1;
            return gr__fail(grErrorMemoryAllocation, "%s: could not map %zu bytes of graph memory", call,
                            total);
        }
        if (fd < 0)
            x->blk[0].phys += m->span;
    }
    if (fd >= 0)
        x->blk[0].phys = total;
    return grSuccess;
}

/* Claims for x each allocation of the alloc nodes in l, into x->own in
 * that order; refuses an allocation another live executable maps. */
static grError_t claim_allocations(const char *call, grGraph_t g, bool inst, const mem_list *l, gr_gexec *x)
{
    /* CUDA's rule: one executable at a time per allocation. An executable
     * destroyed by the application but still held (a stream caches the
     * executable it launched last) gives its memory up first. */
    grError_t err = grSuccess;
    for (;;) {
        bool dead = false;
        x->nown = 0;
        gr__gmem_lock();
        for (size_t i = 0; i < l->n && !err && !dead; i++) {
            const struct grGraphNode_st *n = l->mem[i];
            if (n->type != grGraphNodeTypeMemAlloc)
                continue;
            gr_gmem *m = gr__gmem_find_locked(n->p.alloc.dptr);
            if (!GR_ALWAYS(m != NULL))
                err = gr__fail(grErrorInvalidValue, "%s: %s has no reserved memory", call, gr__node_label(n));
            else if (m->exec && exec_destroyed_locked(m))
                dead = true;
            else if (m->exec) {
                /* CUDA 13 answers grErrorNotSupported and leaves
                 * errNode_out NULL here (tests/probes/nodeapi.cu); the
                 * detail names the node all the same. */
                if (inst) {
                    gr__inst_fault.node = n;
                    gr__inst_fault.unreported = true;
                }
                err = gr__fail(
                    grErrorNotSupported,
                    "%s: graph %p has memory nodes and an executable of it exists already (%p); only "
                    "one instantiation of such a graph may exist at a time: destroy that executable "
                    "first",
                    call, GR_PTR(g), GR_PTR(m->exec));
            } else {
                x->own[x->nown++] = m;
            }
        }
        gr__gmem_unlock();
        if (!dead)
            break;
        reclaim_destroyed();
    }
    return err;
}

/* Places x's allocations (claimed in l's order) in slots of their
 * devices' blocks, in that order: an allocation reuses the smallest slot
 * of its device big enough whose last free node reaches it, else takes a
 * new one. Fills offs (one per allocation), x->foreign, x->unfreed and
 * total (the bytes each device's block spans). */
static void assign_slots(const mem_list *l, gr_gexec *x, slot *slots, size_t *offs, size_t *total)
{
    size_t nslots = 0, k = 0;
    for (size_t i = 0; i < l->n; i++) {
        const struct grGraphNode_st *n = l->mem[i];
        if (n->type == grGraphNodeTypeMemFree) {
            bool mine = false;
            for (size_t j = 0; j < x->nown; j++)
                mine |= x->own[j]->ptr == n->p.free.dptr;
            if (!mine)
                x->foreign[x->nforeign++] = n->p.free.dptr;
            continue;
        }
        if (n->type != grGraphNodeTypeMemAlloc)
            continue;
        /* own[k] is the k-th allocation node in this same order (filled
         * by claim_allocations, one per node), which the analyser cannot
         * follow. */
        gr_gmem *m = x->own[k];
        size_t best = SIZE_MAX;
        for (size_t s = 0; s < nslots; s++)
            // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
            if (slots[s].device == m->device && slots[s].span >= m->span && slots[s].free_node &&
                gr__graphmem_ordered(slots[s].free_node, n) &&
                (best == SIZE_MAX || slots[s].span < slots[best].span))
                best = s;
        if (best == SIZE_MAX) {
            best = nslots++;
            slots[best].device = m->device;
            slots[best].off = total[m->device];
            slots[best].span = m->span;
            total[m->device] += m->span;
        }
        slots[best].free_node = free_node_of(l, m->ptr);
        if (!slots[best].free_node)
            x->unfreed[x->nunfreed++] = m;
        offs[k++] = slots[best].off;
    }
}

/* x's allocations become reservations again, and its physical memory
 * goes back. */
static void unmap_all(gr_gexec *x)
{
    for (int d = 1; d <= GR_MAX_GPUS; d++)
        unmap_gpu(x, d);
    for (size_t j = 0; j < x->nown; j++) {
        gr_gmem *m = x->own[j];
        if (m->device == 0)
            (void)mmap(m->ptr, m->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
                       -1, 0);
    }
    if (x->blk[0].fd >= 0)
        close(x->blk[0].fd);
    x->blk[0].fd = -1;
}

/* Maps each device's block of x's allocations; on failure nothing stays
 * mapped. */
static grError_t map_all(const char *call, gr_gexec *x, const size_t *offs, const size_t *total)
{
    grError_t err = grSuccess;
    uint64_t done = 0;
    /* One executable of one device maps its block even without an
     * allocation, as before (its counters then move by 0). */
    uint64_t devs = x->device == GR_GRAPHMEM_ANY_DEVICE ? x->devs : x->devs | 1ull << x->device;
    for (int d = 0; d <= GR_MAX_GPUS && !err; d++) {
        if (!(devs >> d & 1))
            continue;
        err = d ? map_gpu(call, x, d, offs, total[d]) : map_cpu(call, x, offs, total[d]);
        if (!err)
            done |= 1ull << d;
    }
    if (err) {
        uint64_t all = x->devs;
        x->devs = done;
        unmap_all(x);
        x->devs = all;
    }
    return err;
}

/* Builds and maps the record of g's allocations for 'device', attached
 * to no executable yet: refuses what CUDA refuses (allocations another
 * executable maps, allocations of another device). 'inst': for an
 * instantiation, whose fault report names the node. *out is NULL when g
 * has no memory node. */
static grError_t gexec_build(const char *call, grGraph_t g, int device, bool inst, gr_gexec **out)
{
    size_t nalloc = 0, nfree = 0, nmem = g->nmemnodes + g->nchildmem;
    *out = NULL;
    if (nmem == 0)
        return grSuccess; /* no walk of the graph for the usual case */
    mem_list l = {malloc(nmem * sizeof *l.mem), 0};
    gr_gexec *x = calloc(1, sizeof *x);
    slot *slots = NULL;
    size_t *offs = NULL;
    grError_t err = grSuccess;
    for (int d = 0; x && d <= GR_MAX_GPUS; d++)
        x->blk[d].fd = -1;
    if (!l.mem || !x || !list_mem_nodes(g, &l)) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        goto out;
    }
    gr_assert(l.n == nmem);
    for (size_t i = 0; i < l.n; i++) {
        nalloc += l.mem[i]->type == grGraphNodeTypeMemAlloc;
        nfree += l.mem[i]->type == grGraphNodeTypeMemFree;
    }
    slots = calloc(nalloc ? nalloc : 1, sizeof *slots);
    offs = calloc(nalloc ? nalloc : 1, sizeof *offs);
    x->own = calloc(nalloc ? nalloc : 1, sizeof *x->own);
    x->unfreed = calloc(nalloc ? nalloc : 1, sizeof *x->unfreed);
    x->foreign = calloc(nfree ? nfree : 1, sizeof *x->foreign);
    if (!slots || !offs || !x->own || !x->unfreed || !x->foreign) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        goto out;
    }
    err = claim_allocations(call, g, inst, &l, x);
    if (err)
        goto out;
    if ((err = check_devices(call, device, x)))
        goto out;
    size_t total[GR_MAX_GPUS + 1] = {0};
    assign_slots(&l, x, slots, offs, total);
    if ((err = map_all(call, x, offs, total)))
        goto out;
    *out = x;
    x = NULL;
out:
    gexec_free(x);
    free(l.mem);
    free(slots);
    free(offs);
    return err;
}

/* e maps x's allocations from now on. */
static void gexec_attach(grGraphExec_t e, gr_gexec *x)
{
    x->e = e;
    gr__gmem_lock();
    for (size_t j = 0; j < x->nown; j++) {
        x->own[j]->exec = e;
        x->own[j]->refs++;
        x->own[j]->live = false;
    }
    x->next = execs;
    execs = x;
    e->gmem = x;
    gr_store_relaxed(&e->gmem_rules, x->nunfreed != 0 || x->nforeign != 0);
    for (int d = 0; d <= GR_MAX_GPUS; d++)
        if (x->blk[d].phys)
            gr__gmem_account_locked(d, (int64_t)x->blk[d].phys);
    gr__gmem_unlock();
    gr__mem_generation_bump(); /* launches of other executables check their ranges again */
}

grError_t gr__graphmem_instantiate(const char *call, grGraphExec_t e, grGraph_t g, int device)
{
    gr_gexec *x;
    grError_t err = gexec_build(call, g, device, true, &x);
    if (!err && x) {
        gexec_attach(e, x);
        e->flags |= GR_EXEC_GRAPHMEM; /* before e is returned: launches read it unlocked */
    }
    return err;
}

grError_t gr__graphmem_launch(grGraphExec_t e)
{
    /* An executable whose free nodes free exactly its own allocations (the
     * usual temporaries) has no rule to check: no lock, no lookup. */
    if (GR_LIKELY(!gr_load_relaxed(&e->gmem_rules)))
        return grSuccess;
    /* The others share 'live' flags with other executables' launches and
     * grFree: under the lock. */
    gr__gmem_lock();
    gr_gexec *x = gexec_find_locked(e);
    if (!GR_ALWAYS(x != NULL)) {
        gr__gmem_unlock();
        return grSuccess;
    }
    /* Everything is checked before anything changes. */
    bool autofree = (e->flags & grGraphInstantiateFlagAutoFreeOnLaunch) != 0;
    for (size_t i = 0; i < x->nunfreed && !autofree; i++)
        if (x->unfreed[i]->live) {
            void *p = x->unfreed[i]->ptr;
            gr__gmem_unlock();
            return gr__fail(
                grErrorInvalidValue,
                "grGraphLaunch: allocation %p made by the previous launch of executable %p is still "
                "allocated; free it (grFreeAsync, grFree or another graph's free node) before "
                "launching again, or instantiate with grGraphInstantiateFlagAutoFreeOnLaunch",
                p, GR_PTR(e));
        }
    for (size_t i = 0; i < x->nforeign; i++) {
        gr_gmem *m = gr__gmem_find_locked(x->foreign[i]);
        if (!m || !m->live) {
            void *p = x->foreign[i];
            gr__gmem_unlock();
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
        gr__gmem_find_locked(x->foreign[i])->live = false;
    gr__gmem_unlock();
    return grSuccess;
}

/* Unmaps x's memory and forgets x: its allocations are reservations again
 * (their nodes may be instantiated again). x is marked 'freeing' (under
 * the lock, by the caller) and no launch uses its memory any more. */
static void gexec_release(gr_gexec *x)
{
    gr_gmem *dead[64];
    unmap_all(x);
    size_t j = 0;
    while (j < x->nown) {
        size_t nd = 0;
        gr__gmem_lock();
        for (; j < x->nown && nd < 64; j++) {
            x->own[j]->exec = NULL;
            x->own[j]->live = false;
            gr_gmem *d = gr__gmem_unref_locked(x->own[j]);
            if (d)
                dead[nd++] = d;
        }
        gr__gmem_unlock();
        for (size_t i = 0; i < nd; i++)
            gr__gmem_destroy(dead[i]);
    }
    gr__gmem_lock();
    for (int d = 0; d <= GR_MAX_GPUS; d++)
        if (x->blk[d].phys)
            gr__gmem_account_locked(d, -(int64_t)x->blk[d].phys);
    for (gr_gexec **pp = &execs; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    if (x->e && x->e->gmem == x)
        x->e->gmem = NULL;
    gr__gmem_unlock();
    gr__mem_generation_bump();
    gexec_free(x);
}

void gr__graphmem_exec_free(grGraphExec_t e)
{
    /* The record stays listed, marked 'freeing', until its allocations are
     * reservations again: an instantiation that needs them meanwhile waits
     * (reclaim_destroyed) instead of calling them taken. */
    gr__gmem_lock();
    gr_gexec *x = gexec_find_locked(e);
    if (x && x->freeing)
        x = NULL; /* another thread is at it */
    if (x)
        x->freeing = true;
    gr__gmem_unlock();
    if (x)
        gexec_release(x);
}

/* The allocations of g are those e maps already: g is the graph e was
 * instantiated from (an update from it changes no memory). */
static bool maps_already(grGraphExec_t e, grGraph_t g)
{
    const gr_gexec *x = e->gmem;
    size_t nmem = g->nmemnodes + g->nchildmem, nalloc = 0;
    if (x == NULL || nmem == 0)
        return false;
    mem_list l = {malloc(nmem * sizeof *l.mem), 0};
    bool same = l.mem != NULL && list_mem_nodes(g, &l);
    gr__gmem_lock();
    for (size_t i = 0; i < l.n && same; i++) {
        if (l.mem[i]->type != grGraphNodeTypeMemAlloc)
            continue;
        const gr_gmem *m = gr__gmem_find_locked(l.mem[i]->p.alloc.dptr);
        same = m != NULL && m->exec == e;
        nalloc++;
    }
    gr__gmem_unlock();
    free(l.mem);
    return same && nalloc == x->nown;
}

grError_t gr__graphmem_update_prepare(const char *call, grGraphExec_t e, grGraph_t g, struct gr_gexec **out)
{
    *out = NULL;
    if (!(e->flags & GR_EXEC_GRAPHMEM) || maps_already(e, g))
        return grSuccess;
    /* The executable's device: that of the memory it maps, else of its
     * plan; each allocation's own for a graph that spans devices. */
    int device = e->span ? GR_GRAPHMEM_ANY_DEVICE : e->gmem ? e->gmem->device : gr__exec_device(e);
    return gexec_build(call, g, device, false, out);
}

void gr__graphmem_update_apply(grGraphExec_t e, struct gr_gexec *x)
{
    if (!x)
        return;
    gr__gmem_lock();
    gr_gexec *old = gexec_find_locked(e);
    if (old) {
        /* Its allocations still allocated end here, as when e is
         * destroyed (docs/memory-pools.md). */
        for (size_t i = 0; i < old->nunfreed; i++)
            old->unfreed[i]->live = false;
        old->freeing = true;
    }
    gr__gmem_unlock();
    /* e points at a record in one piece at every moment: a launch racing
     * the update checks its rules on the old one or the new one. */
    gexec_attach(e, x);
    if (old)
        gexec_release(old);
}

void gr__graphmem_update_discard(struct gr_gexec *x)
{
    if (!x)
        return;
    unmap_all(x); /* never attached: nothing counted, listed or referenced */
    gexec_free(x);
}

GR_API grError_t grDeviceGraphMemTrim(int device)
{
    if (!gr__device_exists(device))
        return gr__fail(
            grErrorInvalidDevice,
            "grDeviceGraphMemTrim: device %d does not exist; the devices are 0 (the CPU) and 1..%d", device,
            gr__gpu_count());
    /* Physical graph memory lives as long as its executable: what can be
     * given back is the memory of executables already destroyed that a
     * stream still holds. */
    reclaim_destroyed();
    return grSuccess;
}
