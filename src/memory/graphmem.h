/*
 * graphmem.h - graph memory: the allocations of graph allocation nodes,
 * their fixed addresses, and the physical memory executables map under
 * them. The graph area, the executor and the capture module call in here.
 *
 * An allocation node reserves its address range (PROT_NONE) when it is
 * added; instantiation maps the ranges of one graph onto one memfd-backed
 * physical block, sharing pages between allocations whose lifetimes
 * cannot overlap (the free of one reaches the allocation of the other
 * through the graph's edges), so an executable's footprint is its peak
 * live set.
 *
 * Invariants:
 *   - an allocation is referenced by its node (or the capture building
 *     it) and by the one executable that maps it; its range stays
 *     reserved until both are gone;
 *   - at most one executable maps an allocation (CUDA's "one
 *     instantiation at a time");
 *   - 'live' is true from a launch that allocated it (and did not free
 *     it) until grFreeAsync, grFree, a free node of another graph, or an
 *     auto-free launch frees it; guarded by the graph memory lock.
 */
#ifndef GR_GRAPHMEM_H
#define GR_GRAPHMEM_H

#include "../exec/exec.h"
#include "memory.h"

/* A private bit of grGraphExec_st.flags: the executable maps graph memory
 * or frees graph allocations, so launch and destroy call in here. */
#define GR_EXEC_GRAPHMEM (1ull << 63)

/* Reserves the address range of a new allocation node of 'bytesize'
 * bytes; *out gets its address (the node's dptr). */
grError_t gr__graphmem_reserve(const char *call, size_t bytesize, const grMemAccessDesc *access,
                               size_t naccess, void **out);

/* Drops the node's reference on the allocation at dptr (node destroyed,
 * or an add that failed after reserving). */
void gr__graphmem_node_release(void *dptr);

/* True if dptr is the address of a graph allocation (any graph). */
bool gr__graphmem_is_alloc(const void *dptr);

/* The access descriptor stored for the allocation (or NULL). */
const grMemAccessDesc *gr__graphmem_access(const void *dptr, size_t *count);

/* Checks a free node for dptr in graph g after deps (CUDA's rules): dptr
 * is a graph allocation, g does not free it yet, and either its
 * allocation node is in g and reaches one of deps (*own = true) or it
 * belongs to another graph that does not free it (*own = false). Call
 * gr__graphmem_note_free once a free node with *own true is added. */
grError_t gr__graphmem_check_free(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                  void *dptr, bool *own);

/* Records that the allocation at dptr is freed inside its own graph, so
 * that free nodes of other graphs are refused from now on. */
void gr__graphmem_note_free(void *dptr);

/* True if g holds allocation or free nodes (CUDA then forbids deleting
 * its nodes and edges, cloning it and embedding it). O(nodes). */
bool gr__graphmem_has_nodes(grGraph_t g);

/* Instantiation: refuses what CUDA refuses (a second executable of the
 * allocations), then maps g's allocations for e. Call once the plan and
 * e's node table are built; may use the nodes' scratch. */
grError_t gr__graphmem_instantiate(const char *call, grGraphExec_t e, grGraph_t g);

/* grGraphLaunch of an executable with GR_EXEC_GRAPHMEM: refuses a launch
 * whose unfreed allocation of the previous launch is still live (unless
 * it auto-frees), then marks this launch's allocations. */
grError_t gr__graphmem_launch(grGraphExec_t e);

/* grGraphExecDestroy of an executable with GR_EXEC_GRAPHMEM: its memory
 * may be reclaimed once its last launch is over, by an instantiation that
 * needs the allocations or grDeviceGraphMemTrim. */
void gr__graphmem_exec_destroyed(grGraphExec_t e);

/* The executable is being freed: unmaps its memory. */
void gr__graphmem_exec_free(grGraphExec_t e);

/* grFreeAsync / grFree of a graph allocation that outlived its launch:
 * grSuccess if dptr was one (now free), grErrorInvalidValue with a detail
 * if it is one but not live, and grErrorUnknown (no detail) if dptr is no
 * graph allocation at all. */
grError_t gr__graphmem_free_outside(const char *call, void *dptr);

#endif /* GR_GRAPHMEM_H */
