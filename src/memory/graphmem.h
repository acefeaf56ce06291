/*
 * graphmem.h - graph memory in the memory layer: the registry of the
 * allocations of graph allocation nodes. An allocation node reserves its
 * address range when it is added (on the CPU an mmap PROT_NONE range, on a
 * GPU a cuMemAddressReserve range); instantiation (exec layer,
 * exec/graphmem.c) maps the ranges of one graph onto one physical block
 * (a memfd on the CPU, a cuMemCreate allocation on a GPU), sharing pages
 * between allocations whose lifetimes cannot overlap, so an executable's
 * footprint is its peak live set.
 *
 * Invariants:
 *   - an allocation is referenced by its node (or the capture building
 *     it) and by the one executable that maps it; its range stays
 *     reserved until both are gone;
 *   - at most one executable maps an allocation (CUDA's "one
 *     instantiation at a time");
 *   - a free node of another graph holds a reference too, so the range
 *     it names is never reserved for another allocation while it lives;
 *     foreign_frees counts those nodes; once there was one
 *     (freed_elsewhere), the allocation's own graph cannot free it, even
 *     after those nodes are gone (CUDA 13's answer);
 *   - 'live' is true from a launch that allocated it (and did not free
 *     it) until grFreeAsync, grFree, a free node of another graph, or an
 *     auto-free launch frees it;
 *   - every field below and the exec layer's records are guarded by
 *     gr__gmem_lock.
 */
#ifndef GR_GRAPHMEM_H
#define GR_GRAPHMEM_H

#include "memory.h"

/* One allocation of a graph allocation node. */
typedef struct gr_gmem {
    void *ptr;
    size_t size, span; /* bytes asked for; range rounded to pages (CPU) or granularity (GPU) */
    int device;        /* 0: the CPU; d >= 1: GPU d */
    grMemAccessDesc access;
    size_t naccess;
    int refs;           /* node + executable */
    grGraphExec_t exec; /* the executable mapping it, or NULL */
    bool live;
    bool freed_in_graph;  /* a free node of its own graph frees it */
    int foreign_frees;    /* free nodes of other graphs naming it (each holds a reference) */
    bool freed_elsewhere; /* another graph got a free node for it once (for good) */
    struct gr_gmem *next;
} gr_gmem;

/* Reserves the address range of a new allocation node of 'bytesize'
 * bytes on 'device' (an existing device, checked by the caller); *out
 * gets its address (the node's dptr). */
grError_t gr__graphmem_reserve(const char *call, int device, size_t bytesize, const grMemAccessDesc *access,
                               size_t naccess, void **out);

/* Drops the node's reference on the allocation at dptr (node destroyed,
 * or an add that failed after reserving). */
void gr__graphmem_node_release(void *dptr);

/* An eager copy's or memset's range ('what' names it in the detail):
 * grErrorInvalidValue if it lies in a graph allocation that no executable
 * maps (its pages are reserved, not backed: touching them would crash).
 * One relaxed load when no graph allocation exists. */
grError_t gr__graphmem_check_mapped(const char *call, const void *p, size_t n, const char *what);

/* True if dptr is the address of a graph allocation (any graph). */
bool gr__graphmem_is_alloc(const void *dptr);

/* The access descriptor stored for the allocation (or NULL). */
const grMemAccessDesc *gr__graphmem_access(const void *dptr, size_t *count);

/* Records whether the allocation at dptr is freed inside its own graph:
 * while it is, free nodes of other graphs are refused. */
void gr__graphmem_note_free(void *dptr, bool freed);

/* A free node of another graph that named dptr is gone (destroyed, or
 * its add failed after the check): drops its reference and count. */
void gr__graphmem_foreign_free_release(void *dptr);

/* grFreeAsync / grFree of a graph allocation that outlived its launch:
 * grSuccess if dptr was one (now free), grErrorInvalidValue with a detail
 * if it is one but not live, and grErrorUnknown (no detail) if dptr is no
 * graph allocation at all. */
grError_t gr__graphmem_free_outside(const char *call, void *dptr);

/* For the graph and exec layers' parts (graph/memnodes.c,
 * exec/graphmem.c): the registry's lock, lookup, references and the
 * device's counters. */
void gr__gmem_lock(void);
void gr__gmem_unlock(void);
/* The descriptor of the allocation at p, or NULL. Under the lock. */
gr_gmem *gr__gmem_find_locked(const void *p);
/* Drops one reference under the lock; returns the descriptor to destroy
 * (outside the lock) when it was the last. */
gr_gmem *gr__gmem_unref_locked(gr_gmem *m);
/* Unreserves and frees a descriptor returned by gr__gmem_unref_locked. */
void gr__gmem_destroy(gr_gmem *m);
/* Adds phys bytes (negative: takes them off) to device's reserved and
 * used counters, raising their high-water marks. Under the lock. */
void gr__gmem_account_locked(int device, int64_t phys);

#endif /* GR_GRAPHMEM_H */
