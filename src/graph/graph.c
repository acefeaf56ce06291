/*
 * graph.c - graphs and nodes: create and destroy, the creation-order list,
 * handle checks, labels for detail sentences, and the common path that
 * inserts a node after its dependencies or destroys one.
 *
 * Invariants (besides those of graph.h):
 *   - g->nnodes counts the nodes on the creation-order list and g->nedges
 *     the edges between them; seq numbers grow along the list;
 *   - a destroyed node keeps its slab slot (magic GR_MAGIC_DEAD, type and
 *     seq kept, parameters and spilled edge arrays freed) until the graph
 *     is freed, so its handle is refused and its address never reused
 *     while the graph lives; slab slots are never handed out twice;
 *   - an edge array lying in the node's 'edges_inl' is part of the node
 *     (deps first, then succs); any other is a heap block it owns.
 *   - a graph with an owner is freed only through its owning node.
 */
#include "graph.h"

#include "../backend/device.h"
#include "../memory/graphmem.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ handles */

/* Graph objects, kept as dead shells once freed (core.h); their nodes'
 * slab is freed with them. */
static gr_shelf graph_shelf = GR_SHELF_INIT(sizeof(struct grGraph_st));

grError_t gr__graph_check(const char *call, grGraph_t g)
{
    if (g == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: the graph is NULL; pass a graph made by grGraphCreate or grGraphClone", call);
    if (g->magic != GR_MAGIC_GRAPH)
        return gr__fail(grErrorInvalidValue,
                        "%s: %p is not a live graph (destroyed, or not a grGraph_t); pass a graph "
                        "made by grGraphCreate or grGraphClone",
                        call, GR_PTR(g));
    return grSuccess;
}

grError_t gr__node_check_at(const char *call, grGraphNode_t n, const char *arg, size_t index)
{
    char name[64];
    if (GR_LIKELY(n != NULL && n->magic == GR_MAGIC_NODE))
        return grSuccess;
    if (index == SIZE_MAX)
        snprintf(name, sizeof name, "%s", arg);
    else
        snprintf(name, sizeof name, "%s[%zu]", arg, index);
    if (n == NULL)
        return gr__fail(grErrorInvalidValue, "%s: %s is NULL; pass a node of the graph", call, name);
    if (n->magic == GR_MAGIC_DEAD)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s (%s, %p) was destroyed by grGraphDestroyNode; pass a live node", call, name,
                        gr__node_label(n), GR_PTR(n));
    return gr__fail(grErrorInvalidValue,
                    "%s: %s (%p) is not a graph node; pass a node returned by a grGraphAdd*Node call", call,
                    name, GR_PTR(n));
}

grError_t gr__node_check(const char *call, grGraphNode_t n)
{
    return gr__node_check_at(call, n, "node", SIZE_MAX);
}

const char *gr__node_label(const struct grGraphNode_st *n)
{
    static _Thread_local char slots[2][160];
    static _Thread_local unsigned next;
    char *buf = slots[next++ & 1u];
    /* A live kernel node holds a reference, so the name outlives even a
     * grKernelDestroy of the handle. */
    if (n->type == grGraphNodeTypeKernel && n->magic == GR_MAGIC_NODE && n->p.kernel.kernel != NULL)
        snprintf(buf, sizeof slots[0], "kernel node #%llu '%s'", (unsigned long long)n->seq,
                 n->p.kernel.kernel->name ? n->p.kernel.kernel->name : "");
    else
        snprintf(buf, sizeof slots[0], "%s node #%llu", gr__node_type_name(n->type),
                 (unsigned long long)n->seq);
    return buf;
}

bool gr__graph_within(grGraph_t g, grGraph_t ancestor)
{
    while (g != NULL) {
        if (g == ancestor)
            return true;
        g = g->owner ? g->owner->graph : NULL;
    }
    return false;
}

grError_t gr__graph_check_not_capturing(const char *call, grGraph_t g)
{
    if (GR_LIKELY(g->capture == NULL))
        return grSuccess;
    return gr__fail(grErrorIllegalState,
                    "%s: graph %p is being built by a stream capture that has not ended; end it with "
                    "grStreamEndCapture first",
                    call, GR_PTR(g));
}

uint32_t gr__graph_visit_begin(grGraph_t g)
{
    if (GR_UNLIKELY(++g->visit_epoch == 0)) {
        struct grGraphNode_st *n;
        GR_GRAPH_FOR_EACH_NODE (g, n)
            n->visit = 0;
        g->visit_epoch = 1;
    }
    return g->visit_epoch;
}

unsigned gr__graph_nest_depth(grGraph_t g)
{
    unsigned d = 0;
    for (; g->owner != NULL; g = g->owner->graph)
        d++;
    return d;
}

unsigned gr__graph_nest_height(grGraph_t g)
{
    struct grGraphNode_st *n;
    unsigned h = 0;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->type == grGraphNodeTypeGraph) {
            unsigned c = 1 + gr__graph_nest_height(n->p.child);
            h = c > h ? c : h;
        }
        for (unsigned b = 0; n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++) {
            unsigned c = 1 + gr__graph_nest_height(n->p.cond.bodies[b]);
            h = c > h ? c : h;
        }
    }
    return h;
}

/* --------------------------------------------------------------- slab */

/* Slab chunk sizes, in nodes: small graphs (child graphs, tests) stay
 * small, large ones pay one allocation per GR_SLAB_MAX nodes. */
#if GR_KNOBS_SMALL
#define GR_SLAB_MIN 1 /* a chunk per node at first, the largest from the third */
#define GR_SLAB_MAX 4
#else
#define GR_SLAB_MIN 16
#define GR_SLAB_MAX 4096
#endif

/* Chunks of destroyed graphs, kept for the next graphs, per size (16 <<
 * class nodes): the larger ones come from mmap, and one freed to the OS
 * would fault its pages in again when a program builds or captures graphs
 * over and over. At most GR_SLAB_CACHE chunks of each size are kept; only
 * chunks of exactly a class's size (a clone sizes its chunk to fit). */
#if GR_KNOBS_SMALL
#define GR_SLAB_CLASSES 3 /* 1 .. 4 nodes */
#define GR_SLAB_CACHE 1   /* a second freed chunk of a size goes back to malloc */
#else
#define GR_SLAB_CLASSES 9 /* 16 .. 4096 nodes */
#define GR_SLAB_CACHE 4
#endif
_Static_assert((GR_SLAB_MIN << (GR_SLAB_CLASSES - 1)) == GR_SLAB_MAX, "a class per chunk size");
static pthread_mutex_t slab_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static gr_node_chunk *slab_cache[GR_SLAB_CLASSES]; /* guarded by slab_cache_lock */
static unsigned slab_cached[GR_SLAB_CLASSES];      /* guarded by slab_cache_lock */

/* The class of a chunk of 'cap' nodes, or GR_SLAB_CLASSES if none fits
 * it exactly. */
static unsigned slab_class(size_t cap)
{
    unsigned k = 0;
    while (k < GR_SLAB_CLASSES && ((size_t)GR_SLAB_MIN << k) != cap)
        k++;
    return k;
}

static gr_node_chunk *slab_cache_take(size_t cap)
{
    unsigned k = slab_class(cap);
    gr_node_chunk *c;
    if (k == GR_SLAB_CLASSES)
        return NULL;
    pthread_mutex_lock(&slab_cache_lock);
    c = slab_cache[k];
    if (c) {
        slab_cache[k] = c->older;
        slab_cached[k]--;
    }
    pthread_mutex_unlock(&slab_cache_lock);
    return c;
}

static void slab_chunk_free(gr_node_chunk *c)
{
    unsigned k = slab_class(c->cap);
    if (k == GR_SLAB_CLASSES) {
        gr__free(c);
        return;
    }
    pthread_mutex_lock(&slab_cache_lock);
    if (slab_cached[k] < GR_SLAB_CACHE) {
        c->older = slab_cache[k];
        slab_cache[k] = c;
        slab_cached[k]++;
        c = NULL;
    }
    pthread_mutex_unlock(&slab_cache_lock);
    gr__free(c);
}

static GR_NOINLINE bool slab_grow(grGraph_t g)
{
    gr_node_chunk *c;
    size_t cap = g->slab_next ? g->slab_next : GR_SLAB_MIN;
    if (cap > GR_SLAB_MAX)
        cap = GR_SLAB_MAX;
    /* Uninitialised: gr__graph_node_new sets each node as it hands it out,
     * so the pages of a large chunk are touched only as it fills. */
    c = slab_cache_take(cap);
    if (c == NULL)
        c = gr__malloc(sizeof *c + cap * sizeof c->nodes[0]);
    if (c == NULL)
        return false;
    c->older = g->chunks;
    c->newer = NULL;
    c->used = 0;
    c->cap = cap;
    if (g->chunks)
        g->chunks->newer = c;
    else
        g->oldest = c;
    g->chunks = c;
    g->slab_next = cap * 2;
    return true;
}

struct grGraphNode_st *gr__graph_node_new(grGraph_t g, size_t ndeps)
{
    struct grGraphNode_st *n;
    uint32_t nd = GR_NODE_EDGES_INLINE / 2;
    if (GR_UNLIKELY(g->chunks == NULL || g->chunks->used == g->chunks->cap) && !slab_grow(g))
        return NULL;
    n = &g->chunks->nodes[g->chunks->used++];
    /* The header only: the parameters are set by whoever fills the node
     * and the edge slots are read only below the counts. */
    memset(n, 0, offsetof(struct grGraphNode_st, edges_inl));
    n->graph = g;
    /* At least half the slots for deps, so that edges added later by
     * grGraphAddDependencies fit too; all of them if that many deps. */
    if (ndeps > nd)
        nd = ndeps < GR_NODE_EDGES_INLINE ? (uint32_t)ndeps : GR_NODE_EDGES_INLINE;
    n->deps = n->edges_inl;
    n->capdeps = nd;
    n->succs = nd < GR_NODE_EDGES_INLINE ? n->edges_inl + nd : NULL;
    n->capsuccs = GR_NODE_EDGES_INLINE - nd;
    return n;
}

/* Gives back n, the node gr__graph_node_new handed out last, which was
 * never linked or seen by the caller (an insert that failed). */
static void node_unnew(grGraph_t g, struct grGraphNode_st *n)
{
    gr_assert(g->chunks != NULL && n == &g->chunks->nodes[g->chunks->used - 1]);
    g->chunks->used--;
}

/* -------------------------------------------------------------- edges */

/* True if arr is one of n's edge arrays lying in its inline slots. */
static bool edges_inline(const struct grGraphNode_st *n, struct grGraphNode_st *const *arr)
{
    /* Compared as integers: arr may be a heap block, another object. */
    return (uintptr_t)arr - (uintptr_t)n->edges_inl < sizeof n->edges_inl;
}

/* Grows one of n's edge arrays to hold 'need' entries: an inline or empty
 * one becomes a heap block of at least 8 entries, a heap block doubles. */
static GR_NOINLINE bool reserve_slow(struct grGraphNode_st *n, struct grGraphNode_st ***arr, uint32_t *cap,
                                     size_t need)
{
    struct grGraphNode_st **p;
    size_t ncap = *cap > 4 ? *cap : 4;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX)
        return false;
    if (edges_inline(n, *arr)) {
        if ((p = gr__malloc(ncap * sizeof *p)) == NULL)
            return false;
        memcpy(p, *arr, *cap * sizeof *p);
    } else if ((p = gr__realloc(*arr, ncap * sizeof *p)) == NULL) {
        return false;
    }
    *arr = p;
    *cap = (uint32_t)ncap;
    return true;
}

static inline bool reserve(struct grGraphNode_st *n, struct grGraphNode_st ***arr, uint32_t *cap, size_t need)
{
    return GR_LIKELY(need <= *cap) || reserve_slow(n, arr, cap, need);
}

/* Frees n's spilled edge arrays, if any. */
static void edges_free(struct grGraphNode_st *n)
{
    if (!edges_inline(n, n->deps))
        gr__free(n->deps);
    if (!edges_inline(n, n->succs))
        gr__free(n->succs);
}

bool gr__node_reserve_edges(struct grGraphNode_st *n, size_t more_deps, size_t more_succs)
{
    size_t nd, ns;
    if (gr__add_overflow(n->ndeps, more_deps, &nd) || gr__add_overflow(n->nsuccs, more_succs, &ns))
        return false;
    return reserve(n, &n->deps, &n->capdeps, nd) && reserve(n, &n->succs, &n->capsuccs, ns);
}

/* Removes the one occurrence of x from arr[0..*n), keeping the order. */
static void remove_one(struct grGraphNode_st **arr, size_t *n, const struct grGraphNode_st *x)
{
    size_t i;
    for (i = 0; i < *n; i++) {
        if (arr[i] == x) {
            memmove(arr + i, arr + i + 1, (*n - i - 1) * sizeof *arr);
            (*n)--;
            return;
        }
    }
    /* Edges are stored in both arrays; one side missing is a bug. */
    gr_assert(i < *n);
}

/* Removes dependency x of a node from deps[0..*n) as CUDA does: the last
 * dependency moves into its place (grGraphNodeGetDependencies lists them
 * so after a removal, and grGraphExecUpdate pairs them so). */
static void remove_dep(struct grGraphNode_st **deps, size_t *n, const struct grGraphNode_st *x)
{
    size_t i;
    for (i = 0; i < *n; i++) {
        if (deps[i] == x) {
            deps[i] = deps[--*n];
            return;
        }
    }
    gr_assert(i < *n);
}

/* n has just lost its last successor: it becomes a sink now. */
static void sink_now(struct grGraphNode_st *n)
{
    if (n->nsuccs == 0)
        n->sink_seq = n->graph->sink_clock++;
}

void gr__edge_unlink(struct grGraphNode_st *from, struct grGraphNode_st *to)
{
    if (from->graph->nnotes)
        gr__edge_note_drop(from->graph, from, to);
    remove_one(from->succs, &from->nsuccs, to);
    remove_dep(to->deps, &to->ndeps, from);
    sink_now(from);
}

grError_t gr__graph_check_deps(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t n)
{
    size_t i;
    grError_t err;
    if (n == 0)
        return grSuccess;
    if (deps == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: pDependencies is NULL but numDependencies is %zu; pass an array of %zu nodes "
                        "or numDependencies 0",
                        call, n, n);
    for (i = 0; i < n; i++) {
        if ((err = gr__node_check_at(call, deps[i], "pDependencies", i)) != grSuccess)
            return err;
        if (deps[i]->graph != g)
            return gr__fail(grErrorInvalidValue,
                            "%s: pDependencies[%zu] (%s) belongs to graph %p, not to graph %p that the node "
                            "is added to; dependencies must be nodes of the same graph",
                            call, i, gr__node_label(deps[i]), GR_PTR(deps[i]->graph), GR_PTR(g));
    }
    /* Few dependencies (the common case): compare pairs, touching no
     * other node; same report as the scratch pass below. */
    if (n <= 8) {
        size_t j;
        for (i = 1; i < n; i++)
            for (j = 0; j < i; j++)
                if (deps[j] == deps[i])
                    return gr__fail(grErrorInvalidValue,
                                    "%s: pDependencies[%zu] and pDependencies[%zu] are both %s; list each "
                                    "dependency once",
                                    call, j, i, gr__node_label(deps[i]));
        return grSuccess;
    }
    /* Duplicates in O(n): scratch holds 1 + the first index seen. */
    for (i = 0; i < n; i++)
        deps[i]->scratch = 0;
    for (i = 0; i < n; i++) {
        if (deps[i]->scratch != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: pDependencies[%llu] and pDependencies[%zu] are both %s; list each "
                            "dependency once",
                            call, (unsigned long long)(deps[i]->scratch - 1), i, gr__node_label(deps[i]));
        deps[i]->scratch = i + 1;
    }
    return grSuccess;
}

/* -------------------------------------------------------------- nodes */

grError_t gr__graph_insert_node(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                grGraphNodeType type, const gr_node_params *p, grGraphNode_t *out)
{
    struct grGraphNode_st *n;
    size_t i;
    n = gr__graph_node_new(g, ndeps);
    if (n == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory allocating a %s node", call,
                        gr__node_type_name(type));
    /* Reserve every edge slot first so that linking cannot fail halfway
     * (a no-op while the edges fit the inline slots). */
    if (!reserve(n, &n->deps, &n->capdeps, ndeps))
        goto oom;
    for (i = 0; i < ndeps; i++) {
        struct grGraphNode_st *d = deps[i];
        if (!reserve(d, &d->succs, &d->capsuccs, d->nsuccs + 1))
            goto oom;
    }

    n->magic = GR_MAGIC_NODE;
    n->type = type;
    n->seq = g->next_seq++;
    n->sink_seq = g->sink_clock++;
    gr__node_params_move(type, &n->p, p);
    if (type == grGraphNodeTypeKernel)
        gr__node_set_device(n, gr__device_current());
    if (type == grGraphNodeTypeGraph)
        n->p.child->owner = n;
    for (unsigned b = 0; type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++)
        n->p.cond.bodies[b]->owner = n;
    for (i = 0; i < ndeps; i++) {
        n->deps[i] = deps[i];
        deps[i]->succs[deps[i]->nsuccs++] = n;
    }
    n->ndeps = ndeps;
    g->nedges += ndeps;
    n->prev = g->last;
    if (g->last)
        g->last->next = n;
    else
        g->first = n;
    g->last = n;
    g->nnodes++;
    g->nmemnodes += n->type == grGraphNodeTypeMemAlloc || n->type == grGraphNodeTypeMemFree;
    g->nmemops += n->type == grGraphNodeTypeBatchMemOp;
    if (n->type == grGraphNodeTypeGraph) /* a moved child's, 0 for a clone */
        g->nchildmem += n->p.child->nmemnodes + n->p.child->nchildmem;
    gr__graph_edited(g);
    *out = n;
    gr__graph_assert_valid(g);
    return grSuccess;
oom:
    /* Successors' arrays keep the room they grew: contents are unchanged. */
    edges_free(n);
    node_unnew(g, n);
    return gr__fail(grErrorMemoryAllocation, "%s: out of memory adding a %s node with %zu dependencies", call,
                    gr__node_type_name(type), ndeps);
}

/* Unlinks n from its graph and frees what it owns; its slab slot stays.
 * With 'new_sinks', a dependency left without successors becomes a sink
 * now, in the order of n's dependencies; without, it keeps the sink_seq
 * it had (a failed capture taking back the nodes it added restores the
 * graph as it was). */
static void node_destroy(struct grGraphNode_st *n, bool new_sinks)
{
    grGraph_t g = n->graph;
    size_t i;
    gr__graph_edited(g);
    if (g->nnotes)
        gr__edge_notes_drop_node(g, n);
    for (i = 0; i < n->ndeps; i++) {
        remove_one(n->deps[i]->succs, &n->deps[i]->nsuccs, n);
        if (new_sinks)
            sink_now(n->deps[i]);
    }
    for (i = 0; i < n->nsuccs; i++)
        remove_dep(n->succs[i]->deps, &n->succs[i]->ndeps, n);
    g->nedges -= n->ndeps + n->nsuccs;
    if (n->prev)
        n->prev->next = n->next;
    else
        g->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->last = n->prev;
    g->nnodes--;
    g->nmemnodes -= n->type == grGraphNodeTypeMemAlloc || n->type == grGraphNodeTypeMemFree;
    g->nmemops -= n->type == grGraphNodeTypeBatchMemOp;
    if (n->type == grGraphNodeTypeGraph) /* a moved child's (a re-capture removes it) */
        g->nchildmem -= n->p.child->nmemnodes + n->p.child->nchildmem;
    gr__node_params_free(n->type, &n->p);
    memset(&n->p, 0, sizeof n->p);
    gr__node_attrs_free(n);
    edges_free(n);
    n->deps = n->succs = NULL;
    n->ndeps = n->nsuccs = n->capdeps = n->capsuccs = 0;
    n->magic = GR_MAGIC_DEAD;
    n->prev = n->next = NULL;
}

void gr__graph_free(grGraph_t g)
{
    struct grGraphNode_st *n;
    gr_node_chunk *c, *older;
    if (g == NULL)
        return;
    for (n = g->first; n != NULL; n = n->next) {
        gr__node_params_free(n->type, &n->p);
        gr__node_attrs_free(n);
        edges_free(n);
        n->magic = GR_MAGIC_DEAD;
    }
    for (c = g->chunks; c != NULL; c = older) {
        older = c->older;
        slab_chunk_free(c);
    }
    gr__graph_cond_slots_free(g);
    /* After the nodes: their parameters point into the buffers. */
    gr__file_res_release(g->res);
    gr__urefs_release_all(&g->urefs);
    gr__prov_free(g);
    gr__free(g->notes);
    gr__free(g->recap_dirty);
    g->magic = GR_MAGIC_DEAD;
    gr__shell_retire(&graph_shelf, g);
}

/* The uid of the next graph or executable: 2^64 of them do not come in a
 * process's life. */
static _Atomic uint64_t next_graph_uid = 1;

uint64_t gr__graph_uid_next(void)
{
    return gr_fetch_add_relaxed(&next_graph_uid, 1);
}

grGraph_t gr__graph_new(void)
{
    grGraph_t g = gr__shell_alloc(&graph_shelf);
    if (g) {
        memset(g, 0, sizeof *g);
        g->magic = GR_MAGIC_GRAPH;
        g->born_gen = gr__mem_generation();
        g->uid = gr__graph_uid_next();
    }
    return g;
}

/* ---------------------------------------------------------- public API */

GR_API grError_t grGraphCreate(grGraph_t *pGraph, unsigned int flags)
{
    grGraph_t g;
    if (pGraph == NULL)
        return gr__fail(grErrorInvalidValue,
                        "grGraphCreate: pGraph is NULL; pass where to store the new graph");
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "grGraphCreate: flags is 0x%x but must be 0", flags);
    g = gr__graph_new();
    if (g == NULL)
        return gr__fail(grErrorMemoryAllocation, "grGraphCreate: out of memory allocating a graph");
    *pGraph = g;
    return grSuccess;
}

GR_API grError_t grGraphDestroy(grGraph_t graph)
{
    grError_t err;
    if ((err = gr__graph_check("grGraphDestroy", graph)) != grSuccess ||
        (err = gr__graph_check_not_capturing("grGraphDestroy", graph)) != grSuccess ||
        (err = gr__cond_check_not_capturing("grGraphDestroy", graph)) != grSuccess)
        return err;
    if (graph->owner != NULL)
        return gr__fail(grErrorInvalidValue,
                        "grGraphDestroy: graph %p is owned by %s (from grGraphChildGraphNodeGetGraph) "
                        "and dies with it; destroy the node or its graph instead",
                        GR_PTR(graph), gr__node_label(graph->owner));
    /* The user objects whose last reference the graph held: destroyed
     * before returning, as in CUDA. */
    gr__uobj_inline_begin();
    gr__graph_free(graph);
    gr__uobj_inline_end();
    return grSuccess;
}

void gr__graph_node_destroy(grGraphNode_t node)
{
    node_destroy(node, false);
}

GR_API grError_t grGraphDestroyNode(grGraphNode_t node)
{
    grError_t err;
    if ((err = gr__node_check("grGraphDestroyNode", node)) != grSuccess ||
        (err = gr__graph_check_not_capturing("grGraphDestroyNode", node->graph)) != grSuccess)
        return err;
    /* A capture may build into one of a conditional node's bodies. */
    for (unsigned b = 0; node->type == grGraphNodeTypeConditional && b < node->p.cond.nbodies && !err; b++)
        if ((err = gr__graph_check_not_capturing("grGraphDestroyNode", node->p.cond.bodies[b])) == grSuccess)
            err = gr__cond_check_not_capturing("grGraphDestroyNode", node->p.cond.bodies[b]);
    if (err != grSuccess)
        return err;
    if (gr__node_devupd(node))
        return gr__fail(grErrorNotSupported,
                        "grGraphDestroyNode: %s is a device-updatable kernel node; such nodes cannot be "
                        "removed from their graph, as in CUDA",
                        gr__node_label(node));
    /* CUDA: the lifetimes of graph allocations are fixed by the graph's
     * nodes and edges, so none may be deleted once it has memory nodes. */
    if (gr__graphmem_has_nodes(node->graph))
        return gr__fail(
            grErrorNotSupported,
            "grGraphDestroyNode: %s belongs to graph %p, which has memory allocation or free nodes; "
            "nodes of such a graph cannot be deleted, as in CUDA (build the graph again instead)",
            gr__node_label(node), GR_PTR(node->graph));
    grGraph_t g = node->graph;
    gr__uobj_inline_begin(); /* a child graph's user objects, as grGraphDestroy */
    node_destroy(node, true);
    gr__uobj_inline_end();
    gr__graph_assert_valid(g);
    (void)g; /* read only by the Debug build's check */
    return grSuccess;
}
