/*
 * exec.h - executable graphs: the immutable plan compiled by instantiate,
 * the per-launch state kept apart from it, and what launch, the setters and
 * update share.
 *
 * A plan is the graph flattened (child graphs inlined between an 'enter'
 * and a 'leave' empty node), in topological order, in one array of
 * gr_pnode; successors are in CSR form (succ[succ_begin..succ_end));
 * successors with one predecessor come first, since finishing their only
 * predecessor makes them ready with no counting. A virtual EXIT node
 * follows every sink: the thread that makes it ready ends the launch.
 *
 * Per-launch state is one counter per node (count[].pending), counting
 * down to zero; the thread that makes a node ready writes npred back, so
 * counters never need a reset between launches.
 *
 * Invariants:
 *   - launches of one executable never overlap (launch.c inserts a wait on
 *     the previous launch's stream when the new one goes elsewhere);
 *   - the plan is changed (setters, update) only between
 *     gr__exec_write_begin and gr__exec_write_end: no launch of the
 *     executable is queued or running then, and none is queued until the
 *     end (the launch path reads the plan's event record nodes);
 *   - nothing on the launch path allocates or takes a global lock.
 */
#ifndef GR_EXEC_H
#define GR_EXEC_H

#include "../graph/graph.h"
#include "../backend/cpu/event.h"
#include "../memory/memory.h"

/* Plan node types beyond grGraphNodeType. */
enum {
    GR_PN_EXIT = 100, /* virtual sink of the whole plan */
    GR_PN_HEAD = 101  /* the slot before nodes[0], holding the plan */
};

/* One plan node: 64 bytes, what a replay reads of a node (its kind, its
 * parameters, its successors' range) on one or two cache lines. Memory
 * written per node is also what instantiating a large graph costs (fresh
 * pages zeroed by the kernel), so nothing rarely read lives here: the
 * predecessor count is plan->count[].npred, and the plan itself is found
 * from the 'index' field through the header slot nodes[-1]. */
typedef struct gr_pnode {
    uint8_t type;      /* grGraphNodeType, GR_PN_EXIT or GR_PN_HEAD */
    uint8_t enabled;   /* 0: runs as an empty node */
    uint8_t one_block; /* kernel with a single block: a direct call */
    uint8_t own_args;  /* kernel: argv/args malloc'd by a setter */
    uint32_t shmem;    /* kernel: dynamic shared memory (here, where it packs) */
    /* Successors succ[succ_begin..succ_mid) have this node as their only
     * predecessor (ready when it finishes, no counting); those in
     * succ[succ_mid..succ_end) count down in plan->count[]. */
    uint32_t succ_begin, succ_mid, succ_end;
    uint32_t index; /* this node's position in plan->nodes */
    union {
        struct {
            grKernel_t k; /* retained by the plan */
            void **argv;  /* into plan->argv, pointing into plan->args */
            grDim3 grid, block;
        } kern;
        grHostNodeParams host;
        struct {
            gr_memcpy_params p;
            /* The memory types (device or host) of the operands when the
             * node was instantiated: CUDA lets no setter or update change
             * them. */
            bool dst_device, src_device;
        } copy;
        grMemsetParams memset;
        grEvent_t event;      /* retained by the plan */
        struct gr_plan *plan; /* GR_PN_HEAD */
    } u;
} gr_pnode;

_Static_assert(sizeof(gr_pnode) == 64, "a plan node fills one cache line's worth of bytes");

/* The plan node n belongs to (a thread handed n alone, a stolen node,
 * finds the plan this way: two loads). */
static inline struct gr_plan *gr__pnode_plan(const gr_pnode *n)
{
    return (n - n->index - 1)->u.plan;
}

/* A top-level node's entry in the node map: what a setter needs of it
 * side by side with the key, so that a lookup reads one cache line. */
typedef struct gr_node_slot {
    const struct grGraphNode_st *node; /* NULL: empty slot */
    uint32_t orig;                     /* index into exec->orig */
    uint32_t pindex;                   /* exec->orig[orig].pindex */
} gr_node_slot;

/* Open addressing with linear probing, power-of-two size, keyed by node
 * pointer; at most half full. */
typedef struct gr_node_map {
    uint32_t mask;
    gr_node_slot slots[];
} gr_node_map;

/* What the executable remembers of each node of the graph it was built
 * from (top level only), for the setters and grGraphExecUpdate. */
typedef struct gr_orig {
    const struct grGraphNode_st *node; /* identity only, never dereferenced */
    grGraphNodeType type;
    uint32_t pindex;      /* plan node (the 'enter' node of a child graph,
                            * whose inlined nodes follow it) */
    uint32_t child_count; /* child graphs: number of inlined nodes */
    /* Dependencies: exec->orig_deps[dep_begin..gr__orig_dep_end(o)). */
    uint32_t dep_begin;
} gr_orig;

/* Where o's dependencies end: where the next entry's begin. For this,
 * exec->orig has a sentinel entry (node NULL) after its last node. */
static inline uint32_t gr__orig_dep_end(const gr_orig *o)
{
    return o[1].dep_begin;
}

/* A node's countdown and the value that re-arms it, side by side: the
 * thread that sees zero finds npred in the line it just wrote. */
typedef struct gr_count {
    _Atomic int32_t pending;
    uint32_t npred; /* the node's predecessors (EXIT: the sinks) */
} gr_count;

typedef struct gr_plan {
    gr_pnode *nodes; /* nnodes, topological; the last is EXIT; nodes[-1]
                           * is the GR_PN_HEAD slot (one block with them) */
    uint32_t nnodes;
    /* The arrays below share one block, which starts with 'count'. */
    gr_count *count; /* per-launch countdowns, one per node */
    uint32_t *succ;  /* CSR successors */
    uint32_t nsucc;
    uint32_t *roots; /* nodes without predecessors */
    uint32_t nroots;
    unsigned char *args;    /* kernel argument values (NULL if none) */
    void **argv;            /* kernel argument pointers */
    uint32_t *record_nodes; /* event record nodes, applied at enqueue */
    uint32_t nrecord;
    /* Memcpy and memset nodes, whose ranges were checked against graphrt's
     * allocations as they were at tracker generation 'range_gen'; a launch
     * checks them again when the generation moved (gr__exec_check_ranges). */
    uint32_t *ranged_nodes;
    uint32_t nranged;
    _Atomic uint64_t range_gen;
    /* Launch-time state. */
    atomic_bool shared;                      /* other threads joined this launch */
    GR_ALIGNED_CL _Atomic uint32_t finished; /* futex word: launches done */
    atomic_int owner_sleeping;
    GR_ALIGNED_CL atomic_int thieves; /* threads inside stolen nodes */
    /* Written by the launch's owner only (launches never overlap). */
    uint64_t avg_ticks_x16; /* smoothed cost per node (gr__ticks) x16, 0 = unknown */
    uint32_t runs;          /* launches run so far (sampling the cost) */
} gr_plan;

struct grGraphExec_st {
    uint32_t magic;  /* GR_MAGIC_EXEC */
    atomic_int refs; /* handle + queued launches */
    unsigned long long flags;
    gr_plan plan;
    /* Nodes of the source graph, for setters and update, then a sentinel
     * (NULL when norig is 0), and their dependencies (one block with
     * 'orig'). */
    gr_orig *orig;
    uint32_t norig;
    uint32_t *orig_deps;
    /* node pointer -> orig index, built on first use (gr__exec_find) */
    const struct gr_node_map *_Atomic map;
    /* Launch ordering. last_stream (retained) changes only under 'lock'
     * and the locks of the streams it moves from and to; last_seq is
     * written only under last_stream's lock. A launch on last_stream takes
     * that lock alone (see grGraphLaunch), and backs off to 'lock' while a
     * writer of the plan holds it (gr__exec_write_begin). */
    gr_spinlock lock;
    gr_stream *_Atomic last_stream;
    _Atomic uint64_t last_seq;
    /* Launches queued, counted by publish_launch under the stream locks
     * that serialise launches of e (see grGraphLaunch), and launches
     * whose run is over, counted with release order by each launch's
     * owner once it is done with the plan; read without a lock by
     * gr__exec_quiesce. */
    _Atomic uint64_t launches;
    _Atomic uint64_t launches_done;
};

/* Frees a plan's memory and releases what it retains. */
void gr__plan_free(gr_plan *p);

/* The orig index of 'node' in the executable, or UINT32_MAX (also when out
 * of memory building the table on first use). */
uint32_t gr__exec_find(struct grGraphExec_st *e, const void *node);

/* gr__exec_lookup when the table is not built yet, or node is NULL. */
const gr_node_slot *gr__exec_lookup_slow(struct grGraphExec_st *e, const void *node);

static inline uint32_t gr__hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* The map slot of 'node' among the executable's top-level nodes, or NULL
 * (also when out of memory building the table on first use). */
static inline const gr_node_slot *gr__exec_lookup(struct grGraphExec_st *e, const void *node)
{
    const gr_node_map *m = gr_load_acquire(&e->map);
    if (GR_UNLIKELY(!m || !node))
        return gr__exec_lookup_slow(e, node);
    for (uint32_t h = gr__hash_ptr(node) & m->mask;; h = (h + 1) & m->mask) {
        const gr_node_slot *s = &m->slots[h];
        if (s->node == node)
            return s;
        if (!s->node)
            return NULL;
    }
}

/* True if e is a live executable handle. */
static inline bool gr__exec_valid(grGraphExec_t e)
{
    return e != NULL && e->magic == GR_MAGIC_EXEC;
}

/* Checks the handle; with a detail naming 'call'. */
grError_t gr__exec_check(const char *call, grGraphExec_t e);

/* Waits for the stream of e's last launch to pass it. */
void gr__exec_quiesce_slow(grGraphExec_t e);

/* gr__exec_write_begin when a launch is being queued or has not run
 * yet: waits for it, e's lock held on return. */
void gr__exec_write_begin_slow(grGraphExec_t e);

/*
 * Begins a change of e's plan (a setter, an update): returns holding e's
 * lock, with every launch of e queued so far run to its end, and no
 * launch queued until gr__exec_write_end. Launches queued before the call
 * run the old parameters, those after it the new ones, and the plan is
 * never written while one runs, whichever threads launch.
 *
 * Pairing (Dekker, seq_cst): the writer takes e->lock with a seq_cst
 * exchange, then reads the lock word of e's last stream; a launch on that
 * stream locks it with a seq_cst compare-and-swap, then tests e->lock
 * (grGraphLaunch) and, finding it held, unlocks and queues through
 * launch_moving, which waits for e->lock. So either the launch sees the
 * writer, or the writer sees the stream locked and waits for the launch
 * to be queued, then for it to run. The common case (nothing queued, the
 * stream not locked) is one exchange and three loads.
 */
static inline void gr__exec_write_begin(grGraphExec_t e)
{
    gr__spin_lock_seq_cst(&e->lock);
    gr_stream *s = gr_load_relaxed(&e->last_stream);
    if (GR_LIKELY(!s || !(gr_load_seq_cst(&s->lockw) & GR_STREAM_LOCKED)) &&
        GR_LIKELY(gr_load_acquire(&e->launches_done) >= gr_load_relaxed(&e->launches)))
        return;
    gr__exec_write_begin_slow(e);
}

static inline void gr__exec_write_end(grGraphExec_t e)
{
    gr__spin_unlock(&e->lock);
}

/* Waits until no launch of e is queued or running. The common case, every
 * launch counted so far has run, is two loads: a launch that happens
 * before this call was counted before it, so the first load sees it;
 * launches run one at a time in the order they are counted, so
 * launches_done reaching that count means all of them are over, and its
 * acquire load orders their reads of the plan before the caller's writes.
 * No lock is taken and no stream touched (the stream of the last launch
 * may be freed by now). */
static inline void gr__exec_quiesce(grGraphExec_t e)
{
    uint64_t queued = gr_load_relaxed(&e->launches);
    if (GR_LIKELY(gr_load_acquire(&e->launches_done) >= queued))
        return;
    gr__exec_quiesce_slow(e);
}

void gr__exec_retain(grGraphExec_t e);
void gr__exec_release(grGraphExec_t e);

/* Writes kernel parameters into plan node 'pn': the argument values are
 * copied (in place when the kernel's parameter layout is unchanged, else
 * into a new block the node owns), the new kernel retained and the old one
 * released. Returns false, with pn unchanged, when out of memory. Call
 * only while no launch of the executable is queued or running. */
bool gr__pnode_set_kernel(gr_pnode *pn, const gr_kernel_params *kp);

/* What may change in a node of an executable, for the setters and
 * grGraphExecUpdate alike (CUDA documents the same limits for both). */

/* Kernels whose argument blocks have the same layout (an update in place). */
static inline bool gr__kernel_same_layout(grKernel_t a, grKernel_t b)
{
    if (a == b) /* the usual case: new arguments for the same kernel */
        return true;
    if (a->nparams != b->nparams || a->argbytes != b->argbytes)
        return false;
    for (int i = 0; i < a->nparams; i++)
        if (a->offsets[i] != b->offsets[i])
            return false;
    return true;
}

/* A 2D memset (or one that would become 2D) keeps its shape: only its
 * address and value change; a 1D one may change its width. */
static inline bool gr__memset_shape_ok(const grMemsetParams *o, const grMemsetParams *m)
{
    bool two_d = o->height > 1 || m->height > 1;
    return !two_d || (o->width == m->width && o->height == m->height && o->pitch == m->pitch &&
                      o->elementSize == m->elementSize);
}

/* Checks the ranges of the plan's memcpy and memset nodes against the
 * allocations graphrt tracks now, with a detail naming 'call' and the
 * node for the first that overruns one; on success notes the tracker
 * generation they were checked at. Takes e's lock (setters write the
 * nodes under it). */
grError_t gr__exec_check_ranges(const char *call, grGraphExec_t e);

/* gr__exec_check_ranges when the allocations changed since the last
 * check: the common case is a load and a compare. */
static inline grError_t gr__exec_ranges_current(const char *call, grGraphExec_t e)
{
    if (GR_LIKELY(e->plan.nranged == 0) ||
        GR_LIKELY(gr_load_relaxed(&e->plan.range_gen) == gr__mem_generation()))
        return grSuccess;
    return gr__exec_check_ranges(call, e);
}

#endif /* GR_EXEC_H */
