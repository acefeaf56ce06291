/*
 * graph.h - the mutable graph: nodes with copied parameters, edges kept in
 * per-node arrays, creation order, child graphs.
 *
 * Invariants:
 *   - every node of a graph is on its creation-order list (first..last) and
 *     node->graph points back at the graph;
 *   - an edge u->v is stored twice: v in u->succs, u in v->deps, each in
 *     the order the edges were added; no duplicates, no self edges. A
 *     removed edge leaves u->succs in order, and v->deps as CUDA leaves a
 *     node's dependencies: the last one takes the removed one's place;
 *   - a node without successors (a sink) holds in 'sink_seq' a value of
 *     graph->sink_clock taken when it last became one: made, or its last
 *     successor's edge removed or node destroyed. Sinks in decreasing
 *     sink_seq are the order in which grGraphExecUpdate pairs them;
 *   - the graph is acyclic after every successful public call;
 *   - node parameters are deep copies: a kernel node owns its argument
 *     buffer, a child-graph node owns its graph, event nodes hold the event
 *     by handle (events are refcounted by the runtime);
 *   - nodes live in their graph's slab (chunks of nodes, freed with the
 *     graph), so a node's address never changes and is never reused while
 *     the graph lives; 'deps' and 'succs' point into the node's inline edge
 *     slots until they outgrow them, and a kernel node's argbuf and argv
 *     point into the node while the arguments fit.
 * Checked by gr__graph_is_valid (check.c) after the public calls that
 * change a graph's nodes or edges, in GR_DEBUG=3 builds (every one while
 * the graph is small, then when gr__graph_check_due says).
 * Graphs are not internally synchronised, as in CUDA: one graph must not
 * be used by two threads at once.
 */
#ifndef GR_GRAPH_H
#define GR_GRAPH_H

#include "../core/core.h"
#include "../backend/backend.h"

#include <string.h>

/* Bytes of argument storage inside the kernel parameters, so that the
 * common launch (a few scalars and pointers) stores its arguments without
 * allocating: argv, rounded up to 16 bytes, then the packed values. Two
 * pointers' worth of parameters take 32 bytes; 64 hold e.g. four. */
#if GR_KNOBS_SMALL
#define GR_KERNEL_ARGS_INLINE 16 /* one argument inline, two or more on the heap */
#else
#define GR_KERNEL_ARGS_INLINE 64
#endif

/* Kernel node parameters as stored: the packed argument values. argv and
 * argbuf point into 'inl' when both fit it, else into one heap block laid
 * out the same way that the parameters own; either way argv == (void **)
 * the start of the storage. They may point into the struct itself, so it
 * is never copied by assignment: gr__node_params_move moves one,
 * gr__node_params_copy copies. */
typedef struct gr_kernel_params {
    grKernel_t kernel; /* retained */
    void *argbuf;      /* kernel->argbytes bytes of values */
    /* kernel->nparams pointers into argbuf: the kernelParams that
     * grGraphKernelNodeGetParams hands out. */
    void **argv;
    grDim3 grid, block;
    uint32_t shmem;
    /* Parameters are aligned to their size up to 16 (runtime/kernel.c). */
    _Alignas(16) unsigned char inl[GR_KERNEL_ARGS_INLINE];
} gr_kernel_params;

/* A conditional node's parameters as stored (graph/conditional.c). */
typedef struct gr_cond_params {
    struct gr_cond_slot *slot; /* its handle, held by the graph that made it */
    grGraphConditionalNodeType type;
    unsigned nbodies;
    grGraph_t *bodies; /* owned: nbodies graphs whose owner is the node */
    /* A copy in a part of a graph that spans devices (exec/span.c): the
     * handle's node stays the original, which a copy neither sets nor
     * clears. */
    bool copy;
} gr_cond_params;

/* A batch memory operation node's parameters as stored (memop_node.c):
 * a copy of the operations, each with only its member's fields (the rest
 * of the union zero). The node's flags are always 0. */
typedef struct gr_memop_params {
    grStreamBatchMemOpParams *ops; /* owned; NULL when count is 0 */
    unsigned count;
} gr_memop_params;

/* The 3D parameters of a memcpy node, kept out of line (graph/params.c)
 * when they are not the 1D form grGraphMemcpyNodeGetParams answers for a
 * 1D copy: as given (what GetParams answers, as CUDA does) and the layout
 * they describe. */
typedef struct gr_copy3d {
    grMemcpy3DParms given;
    gr_copy_shape shape;
    bool linear; /* rows contiguous on both sides: runs as the 1D range */
} gr_copy3d;

/* A memcpy node's parameters as stored: the copy as a 1D range (for 3D
 * parameters, each side's first byte and width * height * depth bytes)
 * and, for 3D parameters, their out-of-line form (owned), else NULL. */
typedef struct gr_memcpy_node {
    void *dst;
    const void *src;
    size_t count;
    grMemcpyKind kind;
    gr_copy3d *shape;
} gr_memcpy_node;

/* A 2D or 3D copy in CUDA's sense (more than one row or slice), which an
 * executable cannot change (exec setters and update, as in CUDA 13). */
static inline bool gr__memcpy_node_multidim(const gr_memcpy_node *m)
{
    return m->shape != NULL && (m->shape->given.extent.height > 1 || m->shape->given.extent.depth > 1);
}

/* A free node's parameters: the address it frees, and whether that is
 * an allocation of another graph (the node then holds a reference on
 * it, graph/memnodes.c). */
typedef struct gr_free_node {
    void *dptr;
    bool foreign;
} gr_free_node;

/* The per-type parameters of a node; 'type' of the node selects one. */
typedef union gr_node_params {
    gr_kernel_params kernel;    /* grGraphNodeTypeKernel */
    gr_memcpy_node memcpy;      /* grGraphNodeTypeMemcpy */
    grMemsetParams memset;      /* grGraphNodeTypeMemset */
    grHostNodeParams host;      /* grGraphNodeTypeHost */
    grGraph_t child;            /* grGraphNodeTypeGraph, owned */
    grEvent_t event;            /* EventRecord / WaitEvent */
    grMemAllocNodeParams alloc; /* grGraphNodeTypeMemAlloc */
    gr_free_node free;          /* grGraphNodeTypeMemFree */
    gr_cond_params cond;        /* grGraphNodeTypeConditional */
    gr_memop_params memop;      /* grGraphNodeTypeBatchMemOp */
    /* grGraphNodeTypeCollective: checked, comm retained (coll_node.c) */
    grCollectiveNodeParams coll;
} gr_node_params;

/* Edge slots kept inside a node before an edge array spills to the heap,
 * shared by 'deps' and 'succs' (split when the node is made): most nodes
 * have one to a few of each (chains, captured streams, fork/join). */
#if GR_KNOBS_SMALL
#define GR_NODE_EDGES_INLINE 2 /* one dep and one succ inline; more spill */
#else
#define GR_NODE_EDGES_INLINE 6
#endif

struct grGraphNode_st {
    uint32_t magic; /* GR_MAGIC_NODE */
    grGraphNodeType type;
    struct grGraph_st *graph;
    uint64_t seq;                       /* creation order within the graph */
    struct grGraphNode_st *prev, *next; /* creation-order list */
    struct grGraphNode_st **deps;       /* ndeps predecessors, edge order */
    size_t ndeps;
    struct grGraphNode_st **succs; /* nsuccs successors, edge order */
    size_t nsuccs;
    /* Room in deps / succs. An array lying in 'edges_inl' is the node's
     * own; any other is a heap block it owns (NULL when capacity 0). */
    uint32_t capdeps, capsuccs;
    uint32_t visit; /* seen by the walk of graph->visit_epoch (gr__node_visit) */
    /* The capture stream that recorded the node: a lane of graph->prov
     * (1-based), or 0 (added by hand, cloned, or no room to remember). */
    uint32_t lane;
    /* The device the node names, plus 1 (0: none): a kernel node's is the
     * device current when it was added, or its capture stream's
     * (gr__node_set_device); other kinds name none so far. Instantiate
     * partitions a graph whose nodes name two devices or more
     * (exec/span.c, docs/devices.md "Graphs that span devices"). */
    uint32_t dev1;
    /* When it last became a sink (see the invariants); meaningless while
     * it has successors. */
    uint64_t sink_seq;
    /* A value of the traversal running now (counts, links, plan indices):
     * every traversal writes it for each node it reads it of first, and
     * never trusts what another left. A traversal that only needs to know
     * whether it saw a node uses 'visit' instead. */
    uint64_t scratch;
    /* A kernel node's launch attributes (attrs.c), NULL while none was
     * set: every node without them costs one pointer. */
    struct gr_kattrs *kattrs;
    struct grGraphNode_st *edges_inl[GR_NODE_EDGES_INLINE];
    gr_node_params p;
};

/* A block of a graph's node slab: nodes [0, used) have been handed out. */
typedef struct gr_node_chunk {
    struct gr_node_chunk *older, *newer;
    size_t used, cap;
    struct grGraphNode_st nodes[];
} gr_node_chunk;

/* The data of one non-default edge (graph/edgedata.c). */
typedef struct gr_edge_note {
    struct grGraphNode_st *from, *to;
    grGraphEdgeData data;
} gr_edge_note;

struct grGraph_st {
    uint32_t magic; /* GR_MAGIC_GRAPH */
    struct grGraphNode_st *first, *last;
    size_t nnodes, nedges;
    size_t nmemnodes; /* alloc and free nodes among nnodes */
    /* Alloc and free nodes inside the moved child graphs of its child-graph
     * nodes, at any depth. A child's count is fixed once counted: a graph
     * with memory nodes is moved only into a top-level graph, and no
     * memory node joins a child graph; a removed child-graph node (by a
     * re-capture) takes its child's off. */
    size_t nchildmem;
    size_t nmemops; /* batch memory operation nodes among nnodes */
    uint64_t next_seq;
    uint64_t sink_clock; /* the next sink_seq */
    /* The child-graph or conditional node owning it (a body), or NULL. */
    struct grGraphNode_st *owner;
    /* Moved into its owner (grGraphChildGraphOwnershipMove): the
     * application's handle names the node's own graph, which must not be
     * instantiated or used by an update on its own. */
    bool moved;
    /* The conditional handles made for it (graph/conditional.c), newest
     * first; each holds a reference the graph drops when it dies. */
    struct gr_cond_slot *cond_slots;
    /* This graph's number, unique in the process (never reused, unlike
     * its address once the graph is destroyed); 0 for none. */
    uint64_t uid;
    /* For grGraphNodeFindInClone: the uid of the graph this is a clone of
     * (0: not a clone), and its next_seq then; the clone's nodes with a
     * seq below it are the copies of the original's nodes with that seq.
     * By uid, not address: a graph created at the address of a destroyed
     * original is no original. */
    uint64_t cloned_from_uid;
    uint64_t cloned_seq_end;
    /* Bit d (bit 63: 63 and above) set once a node naming device d was
     * added (never cleared): a graph with one bit or none is of one
     * device and instantiates without looking at its nodes' devices. */
    uint64_t dev_mask;
    /* The node slab, newest chunk first; chunks grow geometrically up to a
     * cap, and 'slab_next' is the size of the next one (0: the default).
     * Destroyed nodes (magic GR_MAGIC_DEAD, params and spilled edge arrays
     * freed) stay in it until the graph dies, so that a destroyed node
     * handle is refused instead of read after free, and so that no later
     * node of the graph reuses its address (executables key nodes by
     * address). */
    gr_node_chunk *chunks;
    gr_node_chunk *oldest;
    size_t slab_next;
    uint32_t visit_epoch; /* the latest walk's mark (gr__graph_visit_begin) */
    /* The capture sequence building into this graph (set and cleared by
     * the capture layer), or NULL: its dependency sets point at nodes of
     * the graph and a failed capture takes back the nodes it added, so
     * the graph cannot be destroyed, lose nodes, or be the target of a
     * second capture meanwhile. */
    void *capture;
    /* What a graph file's loader made for this graph (buffers, events),
     * shared with its clones and executables, or NULL (graph/file/file_res.c). */
    struct gr_file_res *res;
    /* The memory tracker's generation when the graph was made (for a
     * clone, its original's): no value of its nodes was baked before. */
    uint64_t born_gen;
    /* Where captured nodes and edges came from (provenance.c), or NULL;
     * never copied by a clone. Lanes are numbered without it (the last
     * number given is lanes_used), so that a capture that never forks
     * allocates nothing for provenance. */
    struct gr_graph_prov *prov;
    uint32_t lanes_used;
    /* The edges whose data is not the default (all zeros), in the order
     * they were added: programmatic edges between kernel nodes, which few
     * graphs have, so every other edge stays a bare pointer and every
     * walk that ignores edge data pays nothing. notes[0..nnotes), room
     * for capnotes; NULL when none ever was. */
    gr_edge_note *notes;
    size_t nnotes, capnotes;
    /* The user-object references the graph owns (userobj.c): copied by a
     * clone, released with the graph. Empty for most graphs. */
    struct gr_urefs {
        struct gr_uref *v;
        size_t n, cap;
    } urefs;
    /* The edit stamp: bumped (gr__graph_edited) by every change of the
     * nodes' parameters or attributes, of the edges, every node added or
     * removed, and at the end of every re-capture. An executable that
     * holds the values of this graph's stamp S (exec/update.c) is
     * current while the stamp is still S. A re-capture writes parameters
     * without bumping it and lists the nodes it changed instead: the
     * last one that succeeded, with no edit during it, took the graph
     * from stamp recap_base to recap_edits (0: no list) by changing
     * recap_dirty[0..recap_ndirty) (capture/recapture.c). */
    uint64_t edits, recap_base, recap_edits;
    struct grGraphNode_st **recap_dirty;
    size_t recap_ndirty;
    /* What gr__graph_has_devupd last found, kept while it holds: stamp
     * + 1 when at that edit stamp g held no device-updatable kernel node
     * and no child graph node (whose graph's edits g's stamp does not
     * count), 0 when unknown. A node becomes device-updatable only
     * through edits that move the stamp, so an update from an unchanged
     * graph does not walk its nodes again (attrs.c). */
    uint64_t nodevupd_at;
};

/* Notes a change of g's nodes or edges (see grGraph_st's edits). */
static inline void gr__graph_edited(struct grGraph_st *g)
{
    g->edits++;
}

/* The refusal of a call that would destroy g or some of its nodes while
 * a capture builds into it (g->capture set): grErrorIllegalState with a
 * detail naming 'call'. grSuccess if no capture does. */
grError_t gr__graph_check_not_capturing(const char *call, grGraph_t g);

/* Visit marks without a reset: a walk takes a fresh epoch of its graph
 * and marks each node it reaches with it, so no node carries a mark from
 * an earlier walk (when the counter wraps, every node is cleared once).
 * For walks confined to one graph (child graphs have epochs of their
 * own). */
uint32_t gr__graph_visit_begin(grGraph_t g);

/* Marks n as seen by the walk of 'epoch'; true if it was not yet. */
static inline bool gr__node_visit(struct grGraphNode_st *n, uint32_t epoch)
{
    if (n->visit == epoch)
        return false;
    n->visit = epoch;
    return true;
}

static inline bool gr__node_visited(const struct grGraphNode_st *n, uint32_t epoch)
{
    return n->visit == epoch;
}

/* Visits every live node of graph g in creation order, as the list from
 * g->first does, but by walking the slab chunks: contiguous memory that
 * the hardware prefetcher streams, where the list costs a dependent load
 * per node (the walks over large graphs are what instantiation costs).
 * The body runs inside two loops: it must not use break. */
#define GR_GRAPH_FOR_EACH_NODE(g, n)                                                  \
    for (gr_node_chunk *gr__c_ = (g)->oldest; gr__c_ != NULL; gr__c_ = gr__c_->newer) \
        for (size_t gr__i_ = 0; gr__i_ < gr__c_->used; gr__i_++)                      \
            if (((n) = &gr__c_->nodes[gr__i_])->magic == GR_MAGIC_NODE)

/* Handle checks with a detail naming 'call'. */
grError_t gr__graph_check(const char *call, grGraph_t g);

/* True if g and its child graphs keep the invariants above; else prints
 * the broken one to stderr and returns false (check.c). O(V + E): for
 * gr_assert_expensive after a change of the structure. */
bool gr__graph_is_valid(grGraph_t g);

/* gr__graph_is_valid's moment after a change of g's structure: every
 * change while g is small, then at each power-of-two edit stamp, so that
 * building a graph of V nodes checks O(V + E) in all (not O(V^2)). */
static inline bool gr__graph_check_due(const struct grGraph_st *g)
{
    return g->nnodes + g->nedges <= 512 || (g->edits & (g->edits - 1)) == 0;
}

/* For the call sites: GR_DEBUG=3 builds check g when due, others compile
 * nothing. */
#define gr__graph_assert_valid(g) gr_assert_expensive(!gr__graph_check_due(g) || gr__graph_is_valid(g))

/* The kind a graph file's word names (GR_GRAPH_NODE_TYPE_LIST's 'word';
 * grGraphNodeTypeCount: none), for the loader; the saver spells a kind
 * with grGraphNodeTypeWord_ (graphrt/graph.h), as the graphrt tool does,
 * so a kind's word is spelled once. */
grGraphNodeType gr__node_type_from_word(const char *word);

/* A number never given before in the process, from 1: each graph's uid,
 * and each executable's id (grGraphExecGetId). */
uint64_t gr__graph_uid_next(void);
grError_t gr__node_check(const char *call, grGraphNode_t n);

/* As gr__node_check, naming the argument in the detail: "pDependencies[2]"
 * for (arg "pDependencies", index 2); index SIZE_MAX names arg alone. */
grError_t gr__node_check_at(const char *call, grGraphNode_t n, const char *arg, size_t index);

/* Checks deps[0..n) as the dependencies of a new node of g: live nodes of
 * g, no duplicates, deps non-NULL when n > 0. May use the nodes'
 * 'scratch'. */
grError_t gr__graph_check_deps(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t n);

/*
 * Adds a node of 'type' with parameters *p to g after deps[0..ndeps)
 * (already checked by gr__graph_check_deps). On success the node has taken
 * what *p owns (moved by gr__node_params_move, so *p must not be released;
 * a child graph's owner is set to the node) and *out is the node; on
 * failure (grErrorMemoryAllocation) nothing changed and the caller still
 * owns *p. Allocation-free when the node's slab chunk has room and every
 * edge fits its node's inline arrays.
 */
grError_t gr__graph_insert_node(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                grGraphNodeType type, const gr_node_params *p, grGraphNode_t *out);

/* A node of g's slab, handed out for good (it is freed with the graph)
 * with every field zero but 'graph' and the edge arrays, which share the
 * inline slots: 'ndeps' of them (at least half) for deps, the rest for
 * succs; NULL when out of memory (the caller reports it). The parameters
 * are not initialised. */
struct grGraphNode_st *gr__graph_node_new(grGraph_t g, size_t ndeps);

/* Grows a node's edge arrays so that 'more_deps' deps and 'more_succs'
 * successors can be appended without allocating. Contents unchanged; on
 * failure returns false and the arrays are as they were (capacity aside). */
bool gr__node_reserve_edges(struct grGraphNode_st *n, size_t more_deps, size_t more_succs);

/* Removes the existing edge from -> to from both mirror arrays: from's
 * successors keep their order, to's last dependency takes the removed
 * one's place (as in CUDA). A 'from' left without successors becomes a
 * sink now (sink_seq). The caller adjusts graph->nedges. */
void gr__edge_unlink(struct grGraphNode_st *from, struct grGraphNode_st *to);

/* ------------------------------------------------------------ edge data
 * (edgedata.c) */

/* True if d is the default edge data (all eight bytes zero). */
static inline bool gr__edge_data_is_default(const grGraphEdgeData *d)
{
    static const grGraphEdgeData zero;
    return memcmp(d, &zero, sizeof zero) == 0;
}

/* Checks d as the data of an edge from 'from' to a node of type to_type,
 * naming it "arg[i]" in the detail: reserved bytes and to_port zero, a
 * known type and port, and a non-default edge only from a kernel node (a
 * programmatic one also to a kernel node). grErrorInvalidValue. */
grError_t gr__edge_data_check(const char *call, const struct grGraphNode_st *from, grGraphNodeType to_type,
                              const grGraphEdgeData *d, const char *arg, size_t i);

/* Makes room for 'more' notes in g; false when out of memory. */
bool gr__edge_notes_reserve(grGraph_t g, size_t more);

/* Notes the data of the existing edge from -> to (room reserved); a
 * default d notes nothing. */
void gr__edge_note_add(grGraph_t g, struct grGraphNode_st *from, struct grGraphNode_st *to,
                       const grGraphEdgeData *d);

/* The data of edge from -> to of g: its note's, else the default. */
grGraphEdgeData gr__edge_data_of(const struct grGraph_st *g, const struct grGraphNode_st *from,
                                 const struct grGraphNode_st *to);

/* Forgets the note of edge from -> to, if any. */
void gr__edge_note_drop(grGraph_t g, const struct grGraphNode_st *from, const struct grGraphNode_st *to);

/* Forgets every note of an edge from or to n. */
void gr__edge_notes_drop_node(grGraph_t g, const struct grGraphNode_st *n);

/* True if some edge into or out of n has non-default data. */
bool gr__node_has_edge_notes(const struct grGraph_st *g, const struct grGraphNode_st *n);

/* ------------------------------------------------------ launch attributes
 * (attrs.c) */

/* Where an attribute is set: a stream, a kernel node, a launch. */
enum {
    GR_ATTR_STREAM = 1u,
    GR_ATTR_NODE = 2u,
    GR_ATTR_LAUNCH = 4u
};

/* The highest grLaunchAttributeID, and one more. */
#define GR_ATTR_IDS 17

/* A kernel node's attributes: those set (bit id of 'set') and their
 * values; the others read as their defaults (zero). */
typedef struct gr_kattrs {
    uint32_t set;
    grLaunchAttributeValue v[GR_ATTR_IDS];
    /* A device-updatable node's place in the graph's live executable
     * (exec/devupdate.c): the executable, its uid (the shell may be
     * reused) and the entry's index; du_exec NULL before instantiation.
     * Not copied with the attributes. */
    const void *du_exec;
    void *du_handle; /* its grGraphDeviceNode_t */
    uint64_t du_uid;
    uint32_t du_index;
} gr_kattrs;

/* The places (GR_ATTR_* bits) where ID 'id' is valid; 0: not an ID. */
unsigned gr__launch_attr_scope(grLaunchAttributeID id);

/* Checks attribute 'id' with value *v for the places in 'scope' (one
 * GR_ATTR_* bit), naming it by 'what' in the detail: an ID CUDA knows
 * and allows there, a value in range. grErrorInvalidValue, or
 * grErrorInvalidResourceHandle for an event that is not live,
 * grErrorNotSupported for a device-updatable kernel node. */
grError_t gr__launch_attr_check(const char *call, const char *what, grLaunchAttributeID id,
                                const grLaunchAttributeValue *v, unsigned scope);

/* The value an attribute reads as before it is set (zero but for
 * MemSyncDomainMap: default 0, remote 1, as CUDA 13 reads it). */
grLaunchAttributeValue gr__launch_attr_default(grLaunchAttributeID id);

/* Sets an attribute of kernel node n (checked; a priority is clamped into
 * [-5, 0] as CUDA clamps it); false when out of memory. */
bool gr__node_attr_set(struct grGraphNode_st *n, grLaunchAttributeID id, const grLaunchAttributeValue *v);

/* Copies src's attributes to dst (replacing dst's); false when out of
 * memory, dst unchanged. */
bool gr__node_attrs_copy(struct grGraphNode_st *dst, const struct grGraphNode_st *src);

/* Frees n's attributes. */
void gr__node_attrs_free(struct grGraphNode_st *n);
/* A device-updatable kernel node's handle in the graph's live executable
 * (exec/devupdate.c fills it at instantiation), or NULL. */
grGraphDeviceNode_t gr__node_devupd_handle(const struct grGraphNode_st *n);
bool gr__node_devupd_live(const struct grGraphNode_st *n);
/* Whether n is a device-updatable kernel node; whether g (its child
 * graphs too) holds one. */
bool gr__node_devupd(const struct grGraphNode_st *n);
bool gr__graph_has_devupd(grGraph_t g);
/* After a change that took g from stamp 'from' to its current one by
 * writing the parameters and attributes of nodes[0..n) alone (a
 * re-capture): what gr__graph_has_devupd knew at 'from' is kept unless
 * one of them is device-updatable now. */
void gr__graph_devupd_carry(grGraph_t g, uint64_t from, struct grGraphNode_st *const *nodes, size_t n);

/* A kernel node's priority and cooperative attributes (0 when unset). */
static inline int gr__node_priority(const struct grGraphNode_st *n)
{
    return n->kattrs && (n->kattrs->set & (1u << grLaunchAttributePriority))
               ? n->kattrs->v[grLaunchAttributePriority].priority
               : 0;
}

static inline int gr__node_cooperative(const struct grGraphNode_st *n)
{
    return n->kattrs && (n->kattrs->set & (1u << grLaunchAttributeCooperative))
               ? n->kattrs->v[grLaunchAttributeCooperative].cooperative != 0
               : 0;
}

/* Makes n name 'device' (a valid device number) and notes it in its
 * graph's dev_mask. */
static inline void gr__node_set_device(struct grGraphNode_st *n, int device)
{
    n->dev1 = (uint32_t)device + 1u;
    n->graph->dev_mask |= 1ull << (device < 63 ? device : 63);
}

/* A new empty graph (magic set, everything else zero), or NULL when out
 * of memory; free it with gr__graph_free. */
grGraph_t gr__graph_new(void);

/* Frees a graph and everything it owns, ignoring 'owner' (child graphs are
 * freed by their node). */
void gr__graph_free(grGraph_t g);

/*
 * Parameter validation shared by the graph setters and the executable's
 * setters; each fails with a detail naming 'call' and changes nothing.
 * gr__node_kernel_params_make also builds the stored form (argument values
 * packed, kernel retained); release it with gr__node_params_free.
 */
grError_t gr__node_kernel_params_make(const char *call, const grKernelNodeParams *in, gr_kernel_params *out);

/* Builds the stored form of kernel parameters already checked (the values
 * packed, inline when they fit, and the kernel retained). Returns false,
 * with nothing taken, when out of memory; the caller reports it. */
bool gr__node_kernel_params_pack(const grKernelNodeParams *in, gr_kernel_params *out);
grError_t gr__node_memcpy_params_check(const char *call, const void *dst, const void *src, size_t count,
                                       grMemcpyKind kind);
grError_t gr__node_memset_params_check(const char *call, const grMemsetParams *p);
/* The bytes a memset checked by gr__node_memset_params_check spans, from
 * p->dst: its rows and the pitch between them. */
size_t gr__memset_span(const grMemsetParams *p);

/* Checks 3D copy parameters as cudaGraphAddMemcpyNode does ('what' names
 * them in a detail: NULL, arrays, pitches with the eager copy's codes, the
 * kind, an empty extent, each side's rows inside one allocation) and
 * builds their stored form (the out-of-line part allocated unless they
 * are the 1D form). Release it with gr__memcpy_node_free. */
grError_t gr__memcpy_node_make(const char *call, const char *what, const grMemcpy3DParms *c,
                               gr_memcpy_node *out);

/* The stored form of 3D copy parameters already checked (a captured
 * copy); false, with nothing allocated, when out of memory. */
bool gr__memcpy_node_pack(const grMemcpy3DParms *c, gr_memcpy_node *out);

/* Releases the out-of-line part of a stored copy. */
void gr__memcpy_node_free(gr_memcpy_node *m);

/* Replaces memcpy node n's stored copy with m (taken over), releasing the
 * old one. */
void gr__memcpy_node_replace(struct grGraphNode_st *n, const gr_memcpy_node *m);
grError_t gr__node_host_params_check(const char *call, const grHostNodeParams *p);
/* The stored copy of a generic memcpy description (grGraphAddNode's):
 * refuses flags, then as gr__memcpy_node_make (graph/add.c). */
grError_t gr__node_memcpy_from_3d(const char *call, const grMemcpyNodeParams *mp, gr_memcpy_node *out);
grError_t gr__node_event_check(const char *call, grEvent_t e);

/* Batch memory operations (memop_node.c). gr__memop_check checks count
 * operations of ops and the batch's flags as grStreamBatchMemOp and
 * grGraphAddBatchMemOpNode do (alignment, operation codes, flags, the
 * words' ranges; Flush refused with grErrorNotSupported), the detail
 * naming 'call' and the operation. gr__memop_params_make checks and copies
 * them (each operation normalised: its member's fields only); the caller
 * refuses count 0 where it must. gr__memop_params_copy copies stored ones;
 * both fail only when out of memory (make: with a detail). */
grError_t gr__memop_check(const char *call, unsigned count, const grStreamBatchMemOpParams *ops,
                          unsigned flags);
grError_t gr__memop_params_make(const char *call, unsigned count, const grStreamBatchMemOpParams *ops,
                                unsigned flags, gr_memop_params *out);
bool gr__memop_params_copy(gr_memop_params *dst, const gr_memop_params *src);
void gr__memop_params_free(gr_memop_params *p);
/* The name of a batch operation code ("wait32", "write64", "barrier",
 * ...), as DOT labels and graph files spell it; NULL for an unknown code. */
const char *gr__memop_op_name(int op);
/* Whether one of m's operations is a wait. */
bool gr__memop_has_wait(const gr_memop_params *m);
/* grGraphAddBatchMemOpNode under another call's name (grGraphAddNode). */
grError_t gr__graph_add_memop(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                              size_t ndeps, const grBatchMemOpNodeParams *np);

/* Collective nodes (coll_node.c): gr__coll_params_make checks nodeParams
 * (gr__coll_check) and copies them, retaining the communicator; _copy
 * copies stored ones (a reference more), _free gives the reference back.
 * gr__graph_add_coll is grGraphAddCollectiveNode under another call's
 * name (grGraphAddNode). */
grError_t gr__coll_params_make(const char *call, const grCollectiveNodeParams *in,
                               grCollectiveNodeParams *out);
void gr__coll_params_copy(grCollectiveNodeParams *dst, const grCollectiveNodeParams *src);
void gr__coll_params_free(grCollectiveNodeParams *p);
grError_t gr__graph_add_coll(const char *call, grGraphNode_t *out, grGraph_t g, const grGraphNode_t *deps,
                             size_t ndeps, const grCollectiveNodeParams *np);

/* How deep child graphs may nest: grGraphInstantiate takes a graph whose
 * child-graph nodes hold graphs with child-graph nodes ... 64 levels
 * down, and no graph is ever built deeper (grGraphAddChildGraphNode
 * refuses it), which bounds every recursion over a nest. */
#define GR_GRAPH_MAX_NEST 64u

/* How many child-graph nodes enclose g (0 for a graph of its own). */
unsigned gr__graph_nest_depth(grGraph_t g);

/* The levels of child graphs below g: 0 without child-graph nodes, else
 * one more than the highest child's. */
unsigned gr__graph_nest_height(grGraph_t g);

/* True if g is 'ancestor' or nested (through child-graph nodes) in it. */
bool gr__graph_within(grGraph_t g, grGraph_t ancestor);

/* Checks a free node for dptr in graph g after deps (CUDA's rules): dptr
 * is a graph allocation, g does not free it yet, and either its
 * allocation node is in g, reaches one of deps and was never given a
 * free node in another graph (*own = true), or it belongs to another graph that
 * does not free it (*own = false: a reference is taken for the node,
 * whose parameters then say 'foreign' so that their release drops it).
 * Call gr__graphmem_note_free once a free node with *own true is added
 * (graph/memnodes.c). */
grError_t gr__graphmem_check_free(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                  void *dptr, bool *own);

/* A free node of dptr is being removed from g (a failed capture's
 * rollback): if g allocates dptr, the allocation is no longer freed in
 * its own graph, and another graph may free it again. */
void gr__graphmem_free_node_removed(grGraph_t g, void *dptr);

/* True if g holds allocation or free nodes, itself or in a moved child
 * graph at any depth (CUDA then forbids deleting its nodes and edges,
 * cloning it and embedding it but by a move). */
bool gr__graphmem_has_nodes(grGraph_t g);

/* True if memory node 'from' ends before memory node 'to' starts in every
 * launch: in the innermost graph holding both (through moved child
 * graphs), the node that is or holds 'from' reaches the one that is or
 * holds 'to'. Both belong to one top-level graph. False also when out of
 * memory. */
bool gr__graphmem_ordered(const struct grGraphNode_st *from, const struct grGraphNode_st *to);

/* The alloc (or free, 'alloc' false) node of dptr in g or, at any depth,
 * in its moved child graphs holding memory nodes, or NULL; *top (if not
 * NULL) gets the node of g that is it or holds it. */
struct grGraphNode_st *gr__graphmem_find_node(grGraph_t g, bool alloc, const void *dptr,
                                              struct grGraphNode_st **top);

/* The checks of moving 'child', which holds memory nodes, into g after
 * deps: g must be a top-level graph, and each free node of child freeing
 * an allocation of g must come after that allocation's node. */
grError_t gr__graphmem_check_move(const char *call, grGraph_t g, const grGraphNode_t *deps, size_t ndeps,
                                  grGraph_t child);

/* True if 'to' is reachable from 'from' along edges (from == to counts);
 * 'limit' is the graph's node count. Allocates its stack and visited set;
 * false also when out of memory. */
bool gr__graph_reaches(const struct grGraphNode_st *from, const struct grGraphNode_st *to, size_t limit);

/* The word of a copy kind without its prefix ("HostToDevice"), as DOT
 * output and graph files write it; "?" for a value that is no kind. */
const char *gr__memcpy_kind_name(grMemcpyKind k);

/* A printable label of a node for detail sentences: "kernel node #3
 * 'blur'" (static thread-local buffer, two slots alternate). */
const char *gr__node_label(const struct grGraphNode_st *n);

/* Writes into order[] all nodes of g in a topological order (ties in
 * creation order: roots in creation order, then nodes in the order they
 * become ready, successors in edge order; deterministic, O(V + E), no
 * allocation; uses the nodes' 'scratch', left zero on visited nodes).
 * Returns false (and names a cycle
 * in the detail, as grErrorInvalidValue) if the graph has a cycle. */
bool gr__graph_topo_sort(grGraph_t g, struct grGraphNode_st **order);

/* The order of two ready nodes in a priority walk (gr__graph_kahn):
 * true if a is visited before b. */
typedef bool (*gr_topo_before_fn)(const struct grGraphNode_st *a, const struct grGraphNode_st *b);

/* The frontier of a priority walk: a binary heap of the ready nodes, the
 * one that runs before the others on top (graph/topo.c). */
typedef struct gr_topo_heap {
    struct grGraphNode_st **h;
    size_t n;
    gr_topo_before_fn before;
} gr_topo_heap;

void gr__topo_heap_push(gr_topo_heap *q, struct grGraphNode_st *x);
struct grGraphNode_st *gr__topo_heap_pop(gr_topo_heap *q);

/* The topological walk (Kahn's algorithm) behind gr__graph_topo_sort and
 * instantiation: calls visit(ctx, n) for each node as it leaves the
 * frontier and before its successors are counted down. A visit returning
 * false stops the walk. Returns how many nodes left the frontier:
 * g->nnodes unless a cycle (or visit) stopped it; SIZE_MAX if a priority
 * frontier could not be allocated. Inline, so that a constant visit is
 * inlined too (instantiation emits nodes this way).
 * The frontier is a FIFO when 'before' is NULL (gr__graph_topo_sort's
 * order: roots in creation order, then nodes as they become ready,
 * successors in edge order), with no allocation: once a node's count is
 * zero its 'scratch' holds the next node of the queue (0 at the tail).
 * Otherwise it is a heap ordered by 'before' (one allocation of a
 * pointer per node). Either way a node's 'scratch' holds its count of
 * dependencies not yet visited; by the time n is visited the walk has
 * read its link, so visit may reuse n->scratch; nodes a cycle leaves
 * behind keep a nonzero count. */
static inline size_t gr__graph_kahn(grGraph_t g, gr_topo_before_fn before,
                                    bool (*visit)(void *ctx, struct grGraphNode_st *n), void *ctx)
{
    struct grGraphNode_st *n, *head = NULL, *tail = NULL;
    gr_topo_heap q = {NULL, 0, before};
    size_t visited = 0;
    if (before && !(q.h = gr__malloc((g->nnodes ? g->nnodes : 1) * sizeof *q.h)))
        return SIZE_MAX;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        n->scratch = n->ndeps;
        if (n->ndeps != 0)
            continue;
        if (before) {
            gr__topo_heap_push(&q, n);
            continue;
        }
        if (tail)
            tail->scratch = (uint64_t)(uintptr_t)n;
        else
            head = n;
        tail = n;
    }
    for (;;) {
        if (before) {
            if (!q.n)
                break;
            n = gr__topo_heap_pop(&q);
        } else {
            if (!head)
                break;
            n = head;
            head = (struct grGraphNode_st *)(uintptr_t)n->scratch;
            if (!head)
                tail = NULL;
        }
        if (!visit(ctx, n))
            break;
        visited++;
        for (size_t i = 0; i < n->nsuccs; i++) {
            struct grGraphNode_st *s = n->succs[i];
            if (--s->scratch != 0)
                continue;
            if (before) {
                gr__topo_heap_push(&q, s);
                continue;
            }
            if (tail)
                tail->scratch = (uint64_t)(uintptr_t)s;
            else
                head = s;
            tail = s;
        }
    }
    if (before)
        gr__free(q.h);
    return visited;
}

/* Deep copy of the parameters of node type t (kernel args, child graph).
 * Returns grErrorMemoryAllocation on failure with dst untouched. A copied
 * child graph has owner NULL: the caller sets it. */
grError_t gr__node_params_copy(grGraphNodeType t, gr_node_params *dst, const gr_node_params *src);

/* Moves stored parameters of node type t from *src into *dst (which owns
 * nothing yet): dst takes what src owned, and inline storage is repointed
 * at dst's. *src must not be released afterwards. */
void gr__node_params_move(grGraphNodeType t, gr_node_params *dst, const gr_node_params *src);

/* Releases what the parameters own. */
void gr__node_params_free(grGraphNodeType t, gr_node_params *p);

/* Removes a node and its edges without the public call's checks (a failed
 * capture takes back the nodes it added, memory nodes included). The
 * nodes it leaves without successors keep their sink_seq: taking back
 * the newest nodes restores the sinks as they were. */
void gr__graph_node_destroy(grGraphNode_t node);

/* The buffers and events a graph file's loader made (file/file_res.c): freed
 * when the last graph, clone or executable holding a reference lets go.
 * NULL is accepted and ignored by both. */
struct gr_file_res;
void gr__file_res_retain(struct gr_file_res *r);
void gr__file_res_release(struct gr_file_res *r);

/* --------------------------------------------------- conditional nodes
 * (graph/conditional.c) */

/* Checks a conditional node's parameters for graph g and builds the
 * stored form: its body graphs, empty, not owned yet (the node's insert
 * sets their owner), and a reference on the handle (released with the
 * parameters). Changes nothing on failure. The caller marks the handle
 * used by the node once it is inserted (slot->node). */
grError_t gr__cond_params_make(const char *call, grGraph_t g, const grConditionalNodeParams *in,
                               gr_cond_params *out);

/* True if g is a conditional node's body, or nested in one. */
bool gr__graph_in_body(grGraph_t g);

/* The first node of body c (or of a child graph in it) of a type a body
 * may not hold (CUDA's list: kernel, empty, memcpy, memset, child graph,
 * conditional), or NULL. Conditional nodes' own bodies are not visited. */
const struct grGraphNode_st *gr__cond_body_first_refused(grGraph_t c);

/* "IF", "WHILE" or "SWITCH" ("?" for another value). */
const char *gr__cond_type_name(grGraphConditionalNodeType t);

/* gr__graph_check_not_capturing for the bodies of g's conditional nodes,
 * and theirs (a capture may build into a body). */
grError_t gr__cond_check_not_capturing(const char *call, grGraph_t g);

/* True if g or a graph nested in it has a conditional node. */
bool gr__graph_has_conditional(grGraph_t g);
/* Why 'child' cannot be embedded in a child-graph node of g (CUDA's
 * refusals: it holds conditional nodes, or it is a body), or grSuccess;
 * shared by grGraphAddChildGraphNode and grGraphNodeSetParams (graph/add.c). */
grError_t gr__child_conditional_check(const char *call, grGraph_t g, grGraph_t child);

/* A conditional handle's slot, retained, for an executable; dropped
 * with gr__cond_slot_release. */
void gr__cond_slot_retain(struct gr_cond_slot *s);
void gr__cond_slot_release(struct gr_cond_slot *s);

/* Drops the graph's references on the handles made for it (its free). */
void gr__graph_cond_slots_free(grGraph_t g);

/* Deep-copies a graph (used by clone and child-graph nodes). */
grError_t gr__graph_clone(grGraph_t src, grGraph_t *out);

/* ------------------------------------------------------------ provenance
 *
 * A graph built by stream capture remembers, for grGraphAnalyze, which
 * stream recorded each node (its lane) and which grStreamWaitEvent made
 * the edges between streams. The capture layer writes it under its lock;
 * it is best effort: when memory runs out the graph simply knows less
 * (a lane of 0, a wait not noted), and no capture fails for it. Nodes a
 * failed capture takes back stay named by dead pointers, which never
 * equal a live node (slab addresses are not reused). Clones and child
 * graphs copied from a graph start without provenance.
 */

/* One grStreamWaitEvent of a capture that made (or will make) edges from
 * the nodes the event named to the next node captured on the waiting
 * stream ('target', NULL until there is one). */
typedef struct gr_wait_note {
    uint64_t capture_id;
    const void *event, *record_stream, *wait_stream; /* handles, for naming only */
    uint64_t record_call, wait_call;                 /* 1-based call numbers in the capture */
    uint32_t wait_lane;
    struct grGraphNode_st *target;
    struct grGraphNode_st **named; /* nnamed nodes the event named */
    size_t nnamed;
} gr_wait_note;

typedef struct gr_lane {
    uint32_t lane;
    uint64_t capture_id;
    const void *stream;
} gr_lane;

typedef struct gr_graph_prov {
    gr_lane *lanes; /* the lanes named so far, in no particular order */
    uint32_t nlanes, caplanes;
    gr_wait_note *waits;
    size_t nwaits, capwaits;
} gr_graph_prov;

/* A new lane of g: its number (from 1; 0 once numbers run out). Never
 * allocates. */
uint32_t gr__prov_lane_new(grGraph_t g);

/* Names lane 'lane' (non-zero) as 'stream' of capture 'capture_id', for
 * the reports. Needed only once the capture forks; out of memory, the
 * lane stays unnamed. */
void gr__prov_lane_name(grGraph_t g, uint32_t lane, uint64_t capture_id, const void *stream);

/* Notes a wait (the named nodes are copied, target is ignored); false
 * when out of memory (nothing noted). */
bool gr__prov_wait_add(grGraph_t g, const gr_wait_note *note);

/* The waits of lane 'lane' without a target get 'node'. */
void gr__prov_wait_target(grGraph_t g, uint32_t lane, struct grGraphNode_st *node);

/* The latest wait that made the edge from -> to, or NULL. */
const gr_wait_note *gr__prov_edge_cause(grGraph_t g, const struct grGraphNode_st *from,
                                        const struct grGraphNode_st *to);

/* The stream of node n's lane, or NULL. */
const void *gr__prov_node_stream(grGraph_t g, const struct grGraphNode_st *n);

/* Frees g's provenance. */
void gr__prov_free(grGraph_t g);

/* ---------------------------------------------------------- user objects
 *
 * A user object (userobj.c) is a reference count and a destructor. Its
 * references are held by the application, by graphs (graph->urefs) and by
 * executables (exec/userobj.c). When the count reaches zero the handle
 * dies at once and the destructor is queued for graphrt's destructor
 * thread, which runs destructors one at a time, in the order their
 * objects' counts reached zero, holding no graphrt lock; an entry point
 * that holds no lock at its end runs them there instead (inline scopes,
 * below), as CUDA does.
 */
struct grUserObject_st {
    uint32_t magic;                    /* GR_MAGIC_USEROBJ */
    _Atomic uint64_t refs;             /* 0: dead, its destructor queued or run */
    void *ptr;                         /* the destructor's argument */
    grHostFn_t destroy;                /* immutable */
    struct grUserObject_st *next_dead; /* the destructor queue, under its lock */
};

/* References of one object held by a graph or an executable. 'tag'
 * groups them: graphs use 0; an executable tags them by where they came
 * from (exec/userobj.c). */
typedef struct gr_uref {
    struct grUserObject_st *obj;
    uint64_t count;
    uint32_t tag;
} gr_uref;

/* True once a user object was created in this process: until then no
 * graph holds references and instantiation skips looking for them. */
bool gr__uobj_any(void);

/* Handle check with a detail naming 'call'. */
grError_t gr__uobj_check(const char *call, grUserObject_t o);

/* An inline scope (nestable, per thread): a count reaching zero inside
 * it makes the destructor due on this thread, and the outermost end runs
 * the due destructors. Open one only where the end is reached with no
 * graphrt lock held (the entry points where CUDA runs destructors before
 * returning: releases, graph and idle executable destroys, updates). */
void gr__uobj_inline_begin(void);
void gr__uobj_inline_end(void);

/* Takes / drops n (> 0) references of a live object without checks; the
 * drop that reaches zero never runs the destructor itself: it is due at
 * the end of the inline scope, or queued for the destructor thread. */
void gr__uobj_retain_n(struct grUserObject_st *o, uint64_t n);
void gr__uobj_release_n(struct grUserObject_st *o, uint64_t n);

/* Adds 'count' references of o under 'tag' to r, merging with an entry
 * of the same object and tag; the references themselves are the caller's
 * to take. False when out of memory (r unchanged). */
bool gr__urefs_add(struct gr_urefs *r, struct grUserObject_st *o, uint64_t count, uint32_t tag);

/* Appends to dst, under 'tag' and retained, the references of src. False
 * when out of memory: dst keeps (and holds) what was appended. */
bool gr__urefs_append(struct gr_urefs *dst, const struct gr_urefs *src, uint32_t tag);

/* Appends to dst, under 'tag' and retained, the references g and the
 * graphs nested in it hold (child graphs). False when out of memory: dst
 * keeps (and holds) what was appended. */
bool gr__urefs_collect(struct gr_urefs *dst, grGraph_t g, uint32_t tag);

/* Releases every reference of r and empties it (its array freed). */
void gr__urefs_release_all(struct gr_urefs *r);

/* Moves the entries of r tagged 'tag' to 'out' (appended, still held),
 * or releases them when out is NULL; r keeps the others. False when out
 * of memory growing out (nothing moved). */
bool gr__urefs_take_tag(struct gr_urefs *r, uint32_t tag, struct gr_urefs *out);

#endif /* GR_GRAPH_H */
