/*
 * graph.h - the mutable graph: nodes with copied parameters, edges kept in
 * per-node arrays, creation order, child graphs.
 *
 * Invariants:
 *   - every node of a graph is on its creation-order list (first..last) and
 *     node->graph points back at the graph;
 *   - an edge u->v is stored twice: v in u->succs, u in v->deps, each in
 *     the order the edges were added; no duplicates, no self edges;
 *   - the graph is acyclic after every successful public call;
 *   - node parameters are deep copies: a kernel node owns its argument
 *     buffer, a child-graph node owns its graph, event nodes hold the event
 *     by handle (events are refcounted by the runtime).
 * Graphs are not internally synchronised, as in CUDA: one graph must not
 * be used by two threads at once.
 */
#ifndef GR_GRAPH_H
#define GR_GRAPH_H

#include "../core/core.h"
#include "../runtime/runtime.h"

/* Kernel node parameters as stored: the packed argument values. */
typedef struct gr_kernel_params {
    grKernel_t kernel; /* retained */
    grDim3 grid, block;
    uint32_t shmem;
    void *argbuf;      /* kernel->argbytes bytes, owned */
} gr_kernel_params;

typedef struct gr_memcpy_params {
    void *dst;
    const void *src;
    size_t count;
    grMemcpyKind kind;
} gr_memcpy_params;

/* The per-type parameters of a node; 'type' of the node selects one. */
typedef union gr_node_params {
    gr_kernel_params kernel;       /* grGraphNodeTypeKernel */
    gr_memcpy_params memcpy;       /* grGraphNodeTypeMemcpy */
    grMemsetParams memset;         /* grGraphNodeTypeMemset */
    grHostNodeParams host;         /* grGraphNodeTypeHost */
    grGraph_t child;               /* grGraphNodeTypeGraph, owned */
    grEvent_t event;               /* EventRecord / WaitEvent */
    grMemAllocNodeParams alloc;    /* grGraphNodeTypeMemAlloc */
    void *free_ptr;                /* grGraphNodeTypeMemFree */
} gr_node_params;

struct grGraphNode_st {
    uint32_t magic;              /* GR_MAGIC_NODE */
    grGraphNodeType type;
    struct grGraph_st *graph;
    uint64_t seq;                /* creation order within the graph */
    struct grGraphNode_st *prev, *next; /* creation-order list */
    struct grGraphNode_st **deps;  /* ndeps predecessors, edge order */
    size_t ndeps, capdeps;
    struct grGraphNode_st **succs; /* nsuccs successors, edge order */
    size_t nsuccs, capsuccs;
    const struct grGraphNode_st *origin; /* node this was cloned from */
    uint64_t scratch;            /* free for traversals (graph.c, exec) */
    gr_node_params p;
};

struct grGraph_st {
    uint32_t magic;              /* GR_MAGIC_GRAPH */
    struct grGraphNode_st *first, *last;
    size_t nnodes, nedges;
    uint64_t next_seq;
    struct grGraphNode_st *owner; /* child-graph node owning it, or NULL */
    const struct grGraph_st *cloned_from; /* for grGraphNodeFindInClone */
};

/* Handle checks with a detail naming 'call'. */
grError_t gr__graph_check(const char *call, grGraph_t g);
grError_t gr__node_check(const char *call, grGraphNode_t n);

/* Short name of a node type ("kernel", "memcpy", ...). */
const char *gr__node_type_name(grGraphNodeType t);

/* A printable label of a node for detail sentences: "kernel node #3
 * 'blur'" (static thread-local buffer, two slots alternate). */
const char *gr__node_label(const struct grGraphNode_st *n);

/* Writes into order[] all nodes of g in a topological order (ties in
 * creation order). Returns false (and names a cycle in the detail) if the
 * graph has a cycle. */
bool gr__graph_topo_sort(grGraph_t g, struct grGraphNode_st **order);

/* Deep copy of the parameters of node type t (kernel args, child graph).
 * Returns grErrorMemoryAllocation on failure with dst untouched. */
grError_t gr__node_params_copy(grGraphNodeType t, gr_node_params *dst, const gr_node_params *src);

/* Releases what the parameters own. */
void gr__node_params_free(grGraphNodeType t, gr_node_params *p);

/* Deep-copies a graph (used by clone and child-graph nodes). */
grError_t gr__graph_clone(grGraph_t src, grGraph_t *out);

#endif /* GR_GRAPH_H */
