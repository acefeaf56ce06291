/*
 * plan.h - the compiled form of an executable graph, as every backend
 * takes it, and the executable object that launches share with the
 * layers above: what instantiate (exec/) builds, what a launch runs
 * (backend/cpu/launch.c), what the setters and update write between
 * gr__exec_write_begin and gr__exec_write_end.
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
 *   - launches of one executable never overlap (a launch inserts a wait on
 *     the previous launch's stream when the new one goes elsewhere);
 *   - the plan is changed (setters, update) only between
 *     gr__exec_write_begin and gr__exec_write_end: no launch of the
 *     executable is queued or running then, and none is queued until the
 *     end (the launch path reads the plan's event record nodes); checked
 *     with the writer's lock state by gr__exec_write_is_valid at every
 *     end in GR_DEBUG=3 builds;
 *   - nothing on the launch path allocates or takes a global lock;
 *   - the executable is freed by its last reference's release, through
 *     the hook its instantiation registered (free_hook), since what it
 *     owns above the plan (its node table, graph memory) is the exec
 *     layer's;
 *   - (checked by gr__plan_is_valid, plan_check.c, after instantiation and
 *     update in GR_DEBUG=3 builds) nodes are in topological order, each
 *     node's successor range is the next part of succ[], single-predecessor
 *     successors before the counted ones, npred is the in-degree, the
 *     countdowns are re-armed between launches (also checked at the end
 *     of every launch, by gr__plan_counts_armed), the roots are the nodes
 *     without predecessors, and every node but EXIT has a successor (so
 *     EXIT is reached from every node).
 */
#ifndef GR_PLAN_H
#define GR_PLAN_H

#include "backend.h"
#include "../core/barrier.h"

struct grGraphNode_st; /* graph nodes are named by the node table, never dereferenced here */

/* Plan node types beyond grGraphNodeType. */
enum {
    GR_PN_EXIT = 100, /* virtual sink of the whole plan */
    GR_PN_HEAD = 101  /* the slot before nodes[0], holding the plan */
};

/* A conditional handle's value cell (a grGraphConditionalHandle is its
 * address), shared by the graph it was made for and the executables
 * built from it, each holding a reference; the last release kills it
 * (graph/conditional.c). A launch reads and writes only 'value'. */
typedef struct gr_cond_slot {
    uint32_t magic;   /* GR_MAGIC_COND */
    atomic_int refs;  /* the graph's, one per executable */
    void *shelf_link; /* bytes 8..15: the shelf's link once dead */
    /* The value conditional nodes test: relaxed loads and stores, ordered
     * by the graph's edges (a setter runs before the nodes after it). */
    _Atomic uint32_t value;
    uint32_t defval; /* defaultLaunchValue */
    uint32_t flags;  /* grGraphCondAssignDefault */
    /* Executables built with it and not destroyed yet: a graph with
     * conditional nodes has one at a time, as in CUDA. */
    _Atomic uint32_t execs;
    /* Its graph (1 while it lives) plus 'execs': grGraphSetConditional
     * refuses the handle at 0, though its memory may still be held. */
    _Atomic uint32_t users;
    const struct grGraph_st *graph; /* made for (identity); NULL once it died */
    /* The conditional node using it (a handle serves one node, as in
     * CUDA), or NULL; graph layer only. */
    const struct grGraphNode_st *node;
    struct gr_cond_slot *next; /* the graph's list of handles */
} gr_cond_slot;

struct gr_plan;
struct gr_coll_run;

/* A conditional node's compiled form: its handle and one plan per body
 * (built once by instantiate, run in order, nested, by the thread that
 * runs the node: backend/cpu/node_run.c). */
/* A node of a body (not of a child graph there) and its plan node in
 * the body's plan: what the executable's setters find it by. */
typedef struct gr_body_node {
    const struct grGraphNode_st *node; /* identity only, never dereferenced */
    uint32_t pindex;                   /* in the body's plan (a child graph's 'enter') */
    uint32_t type;                     /* grGraphNodeType */
} gr_body_node;

typedef struct gr_cond_plan {
    gr_cond_slot *slot; /* the executable holds a reference (plan->cond_slots) */
    uint32_t type;      /* grGraphConditionalNodeType */
    uint32_t nbodies;
    /* The bodies' nodes, body b's at nodes[first[b]..first[b+1]); first
     * lives in the same block, after them. */
    gr_body_node *nodes;
    uint32_t *first;
    struct gr_plan *bodies[]; /* nbodies, from gr__aligned_alloc */
} gr_cond_plan;

/* How a plan node's kernel runs: its blocks spread over the workers, a
 * single block called directly, or a cooperative grid (coop.c), whatever
 * its size (a setter that changes the grid keeps it cooperative). */
enum {
    GR_KRUN_GRID = 0,
    GR_KRUN_ONE = 1,
    GR_KRUN_COOP = 2
};

/* One plan node: 64 bytes, what a replay reads of a node (its kind, its
 * parameters, its successors' range) on one or two cache lines. Memory
 * written per node is also what instantiating a large graph costs (fresh
 * pages zeroed by the kernel), so nothing rarely read lives here: the
 * predecessor count is plan->count[].npred, and the plan itself is found
 * from the 'index' field through the header slot nodes[-1]. */
typedef struct gr_pnode {
    uint8_t type;     /* grGraphNodeType, GR_PN_EXIT or GR_PN_HEAD */
    uint8_t enabled;  /* 0: runs as an empty node */
    uint8_t krun;     /* kernel: how it runs (GR_KRUN_*) */
    uint8_t own_args; /* kernel: argv/args malloc'd by a setter */
    uint32_t shmem;   /* kernel: dynamic shared memory (here, where it packs) */
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
            /* A pitched copy (rows not contiguous): p.dst and p.src are
             * the first bytes, the layout is the plan's
             * shapes[shape - 1], given at instantiation. */
            bool pitched;
            uint32_t shape; /* 0: no slot */
        } copy;
        grMemsetParams memset;
        grEvent_t event;           /* retained by the plan */
        struct gr_plan *plan;      /* GR_PN_HEAD */
        struct gr_cond_plan *cond; /* grGraphNodeTypeConditional */
        struct {
            grStreamBatchMemOpParams *ops; /* owned by the plan */
            uint32_t count;
        } memop;                  /* grGraphNodeTypeBatchMemOp */
        struct gr_coll_run *coll; /* grGraphNodeTypeCollective: owned (comm.h) */
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
/* A non-default edge of an executable's source graph: dependency 'dep'
 * of orig node 'to' (its position in that node's dependencies). */
typedef struct gr_orig_note {
    uint32_t to, dep;
    grGraphEdgeData data;
} gr_orig_note;

/* The attributes update compares of orig node 'orig' (as requested,
 * before any clamping). */
typedef struct gr_orig_attr {
    uint32_t orig;
    int priority;
    int cooperative;
} gr_orig_attr;

typedef struct gr_orig {
    const struct grGraphNode_st *node; /* identity only once instantiated */
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

/* The ways a launch can run (backend/cpu/launch.c). */
typedef enum gr_way {
    GR_WAY_IN_ORDER, /* front to back on the owner's thread */
    GR_WAY_SHARED,   /* the owner runs nodes and hands ready ones to workers */
    GR_WAYS
} gr_way;

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
    /* The layouts of pitched memcpy nodes (gr_pnode.u.copy.shape), one
     * block (gr__malloc), NULL while none: written only while no launch
     * runs (instantiate, setters, update), so it may move then. */
    gr_copy_shape *shapes;
    uint32_t nshapes;
    /* The conditional handles of the plan's conditional nodes (nested
     * ones too; top-level plan only): referenced by the plan, reset to
     * their defaults at each launch's start where the handle asks so. */
    gr_cond_slot **cond_slots;
    uint32_t ncond_slots;
    /* Some batch memory operation node waits: launches run in order, the
     * plan's order putting each wait after every node not behind one
     * (exec/plan_build.c, docs/stream-memops.md). */
    bool memop_waits;
    /* Its batch memory operation waits and event waits run no other work
     * while they wait (gr__memop_run_ex, gr__stream_wait_for_ex): the
     * parts of a graph that spans devices, whose waits must not run
     * another part on their stack (exec/span.c). Set by the exec layer
     * after instantiation; top-level plan only. */
    bool waits_alone;
    /* Launch-time state. */
    /* The stream running the launch and the count of its ops that
     * completes with it, written by the launch's owner before any node
     * runs (launches never overlap). */
    gr_stream *run_stream;
    uint64_t run_done;
    gr_worker *run_owner;                    /* the thread running the launch: not a helper */
    atomic_bool shared;                      /* other threads joined this launch */
    GR_ALIGNED_CL _Atomic uint32_t finished; /* launches done */
    _Atomic uint32_t owner_sleeping;         /* futex word: gr_owner_state */
    GR_ALIGNED_CL atomic_int thieves;        /* threads inside stolen nodes */
    int helpers_max;                         /* how many may be, set by each launch's owner */
    /* How a launch is run (backend/cpu/launch.c), written by launches'
     * owners only (launches never overlap): the smoothed time of a launch
     * run each way (gr_way), in gr__ticks (0 = not measured yet), the
     * faster way, and when the other is tried again. */
    uint64_t way_ticks[GR_WAYS];
    uint32_t runs; /* launches run so far */
    uint32_t probe_at, probe_gap;
    uint8_t way;
} gr_plan;

/* True if p keeps the shape stated above (nested conditional bodies'
 * plans too); else prints the broken invariant to stderr and returns
 * false. O(nodes + edges), never on the launch path. */
bool gr__plan_is_valid(const gr_plan *p);

/* ------------------------- kernel node attributes and edge data for a
 * device's lowering (plan_attrs.c). The plan keeps of a node's launch
 * attributes only how its kernel runs (krun), and of edges none of their
 * data; a device that gives them to its driver reads them from the graph
 * while the executable is instantiated, through these seams. */

/* Called by gr__kattrs_hook for each kernel node with launch attributes
 * (node, its 'scratch' word, its attributes attrs[0..n), one per ID). */
typedef void (*gr_kattrs_visit)(void *ctx, const void *node, uint64_t scratch, const grLaunchAttribute *attrs,
                                unsigned n);

/* Hook (graph layer, graph/attrs.c): visits graph node 'node' if it is a
 * kernel node with attributes, and for a child graph node each kernel
 * node with attributes inside it, at any depth. NULL where the graph
 * layer's attributes are not linked in (then no node has any). */
extern void (*gr__kattrs_hook)(const void *node, gr_kattrs_visit visit, void *ctx);

/* Where a kernel node of an executable's plans is: 'cond' 0 for the
 * top-level plan, else 1 + the position of its conditional node in the
 * depth-first plan order (the order a lowering meets them: the plan's
 * nodes in order, a conditional node's bodies before the nodes after
 * it), body 'body' of it; 'pindex' in that plan. */
typedef struct gr_kattr_at {
    uint32_t cond, body, pindex;
} gr_kattr_at;

/* Calls visit(ctx, cond, b, c) for each body b of each conditional node c
 * of plan p, at any depth, with 'cond' its number in gr_kattr_at's order:
 * the conditional nodes are numbered from *next + 1 on (*next is left at
 * the last number given), body b visited before the conditional nodes
 * inside it, and those before body b + 1. Stops, returning true, at the
 * first visit that returns true. */
bool gr__plan_each_body(const gr_plan *p, uint32_t *next,
                        bool (*visit)(void *ctx, uint32_t cond, uint32_t b, const gr_cond_plan *c),
                        void *ctx);

/* Calls visit(ctx, at, attrs, n) for every kernel node with launch
 * attributes of executable e's plans (child graphs inlined in them too),
 * in no particular order. Only while e is being instantiated, its plans
 * just built from live graphs: it reads the graph nodes that e->orig and
 * the conditional plans name, and the plan index the build left in the
 * 'scratch' of each node inlined from a child graph (high half), which
 * nothing rewrites until the instantiation ends. */
void gr__plan_kattrs(const struct grGraphExec_st *e,
                     void (*visit)(void *ctx, gr_kattr_at at, const grLaunchAttribute *attrs, unsigned n),
                     void *ctx);

/* Called by gr__edges_hook for each edge with non-default data: the
 * 'scratch' words of its ends and its data. */
typedef void (*gr_edges_visit)(void *ctx, uint64_t from_scratch, uint64_t to_scratch,
                               const grGraphEdgeData *d);

/* Hook (graph layer, graph/edgedata.c): visits the edges with
 * non-default data of the graph holding graph node 'node' (inside false)
 * or of the graph that child graph node 'node' holds (inside true), and
 * of every child graph in it, at any depth. NULL where edge data is not
 * linked in (then every edge is a default one). */
extern void (*gr__edges_hook)(const void *node, bool inside, gr_edges_visit visit, void *ctx);

/* Calls visit(ctx, at, from, d) for every edge with non-default data
 * (programmatic, or from a kernel's launch-completion port) between two
 * kernel nodes of executable e's plans: 'at' names the plan (as
 * gr__plan_kattrs) and the edge's 'to' node, 'from' its 'from' node
 * there. Other edges with data (to a child graph node) are left out: the
 * plan joins them through an empty node. Only while e is being
 * instantiated, as gr__plan_kattrs. */
void gr__plan_edges(const struct grGraphExec_st *e,
                    void (*visit)(void *ctx, gr_kattr_at at, uint32_t from, const grGraphEdgeData *d),
                    void *ctx);

/* True if every countdown of p is armed (pending == npred), as it must be
 * once a launch of p has made EXIT ready: each node that counts down
 * re-arms itself when it reaches zero (cpu/launch.c's count_down), and
 * every node has, by then. Else prints the node to stderr and returns
 * false. O(nodes): on the launch path of GR_DEBUG=3 builds only, through
 * gr_assert_expensive. */
bool gr__plan_counts_armed(const gr_plan *p);

/* The layout of pitched memcpy node n, NULL for a 1D copy (its p.count
 * bytes at p.dst and p.src). */
static inline const gr_copy_shape *gr__pnode_copy_shape(const gr_pnode *n)
{
    return n->u.copy.pitched ? &gr__pnode_plan(n)->shapes[n->u.copy.shape - 1] : NULL;
}

/* Makes memcpy plan node n copy 'p', pitched by 'shape' (NULL: 1D); when
 * shape is not NULL, n has a slot (given at instantiation: an executable's
 * 1D copy never becomes a 2D or 3D one, as in CUDA). */
void gr__pnode_set_copy(gr_pnode *n, const gr_memcpy_params *p, const gr_copy_shape *shape);

/* Runs pitched memcpy node n's copy, row by row (plan_copy.c). */
void gr__pnode_copy_pitched(const gr_pnode *n);

struct grGraphExec_st {
    uint32_t magic;  /* GR_MAGIC_EXEC */
    atomic_int refs; /* handle + queued launches */
    unsigned long long flags;
    /* Frees the executable and what it owns (set by its instantiation):
     * called by the release that drops the last reference. */
    void (*free_hook)(struct grGraphExec_st *e);
    /* A graph that spans devices: its parts and their words (the exec
     * layer's, exec/span.c), or NULL. Beside the magic word, which every
     * launch and setter reads first. Immutable after instantiation. */
    struct gr_span *span;
    gr_plan plan;
    /* The exec layer's graph memory record (exec/graphmem.c), guarded by
     * its lock; NULL without graph memory. gmem_rules: whether a launch
     * must check graph memory's launch rules under that lock (the record
     * frees allocations of other graphs or leaves its own allocated),
     * read by launches without the lock: an update replaces the record. */
    struct gr_gexec *gmem;
    atomic_bool gmem_rules;
    /* The buffers and events of the loaded graph it was instantiated
     * from, kept alive by it (the graph layer's, graph.h), or NULL. */
    struct gr_file_res *file_res;
    /* The user-object references the executable holds (exec/userobj.c),
     * or NULL (none: the usual case). */
    struct gr_urefs *urefs;
    /* The executable's lowered form on a device other than the CPU (the
     * device kind's executable, device.h), or NULL for the CPU; immutable
     * after instantiation. */
    struct gr_dev_exec *gpu;
    /* Device-updatable kernel nodes (exec/devupdate.c), NULL without; and
     * the hook the CPU backend calls at each launch's start, before any
     * node runs, to apply the updates kernels made during the previous
     * launches. Both immutable after instantiation. */
    struct gr_devupd *devupd;
    void (*devupd_apply)(struct grGraphExec_st *e);
    /* Nodes of the source graph, for setters and update, then a sentinel
     * (NULL when norig is 0), and their dependencies (one block with
     * 'orig'). */
    gr_orig *orig;
    uint32_t norig;
    uint32_t *orig_deps;
    /* The source graph's sinks as orig indices, in the order update pairs
     * them (the one that became a sink last first): orig_sinks[0..
     * norig_sinks), in the block of 'orig'. */
    uint32_t *orig_sinks;
    uint32_t norig_sinks;
    /* The top level's edges with non-default data (graph.h), for update
     * to compare: orig_notes[0..norig_notes), NULL when none. */
    struct gr_orig_note *orig_notes;
    uint32_t norig_notes;
    /* The top level's kernel nodes with launch attributes, for update to
     * compare (CUDA keeps priority under
     * grGraphInstantiateFlagUseNodePriority, and cooperative, fixed):
     * orig_attrs[0..norig_attrs) in orig order, NULL when none. */
    struct gr_orig_attr *orig_attrs;
    uint32_t norig_attrs;
    /* grGraphExecGetId's answer: a number no graph or other executable
     * has (graph.h's uids). */
    uint64_t uid;
    /* For grGraphExecUpdate's re-capture path (exec/update.c): the uid
     * of the graph it was instantiated from (whose nodes 'orig' holds);
     * 'writes', the changes of the plan begun (gr__exec_write_begin);
     * and the plan holds the values of that graph at its edit stamp
     * sync_edits (graph.h) as long as no change began since 'writes' was
     * sync_writes (set by instantiation and by an update from that
     * graph; ~0 after an update from another). */
    uint64_t src_uid, sync_edits, sync_writes, writes;
    /* The memory tracker's generation before which none of its nodes'
     * values was baked (the oldest graph they came from was made then):
     * the debug check of baked addresses ignores frees before it. */
    uint64_t baked_gen;
    /* node pointer -> orig index, built on first use (gr__exec_find) */
    const struct gr_node_map *_Atomic map;
    /* Launch ordering. last_stream (retained) changes only under 'lock'
     * and the locks of the streams it moves from and to; last_seq is
     * written only under last_stream's lock. A launch on last_stream takes
     * that lock alone (see grGraphLaunch), and backs off to 'lock' while a
     * writer of the plan holds it (gr__exec_write_begin). */
    gr_spinlock lock;
    /* The bias (see gr__exec_write_begin): 0, or the tag (gr__self_tag)
     * of the one thread that launches and changes e, or GR_EXEC_REVOKING
     * while a revocation waits for that thread; set under 'lock' by that
     * thread's first change, cleared by any other thread before it
     * launches or changes e (gr__exec_lock_unbiased). 'owner_busy' is set
     * by the owner alone, around its changes made without 'lock';
     * 'owner_writing' tells gr__exec_write_end which kind of change ends
     * (read and written only by the writer). */
    _Atomic uintptr_t owner;
    _Atomic bool bias_revoked; /* once set, no thread claims e again */
    _Atomic uint32_t owner_busy;
    bool owner_writing;
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

/* The executable whose top-level plan p is (a conditional body's plan is
 * not one). */
static inline grGraphExec_t gr__plan_exec(gr_plan *p)
{
    return (grGraphExec_t)(void *)((char *)p - offsetof(struct grGraphExec_st, plan));
}

/* True if e is a live executable handle. */
static inline bool gr__exec_valid(grGraphExec_t e)
{
    return e != NULL && e->magic == GR_MAGIC_EXEC;
}

/* Waits for the stream of e's last launch to pass it. */
void gr__exec_quiesce_slow(grGraphExec_t e);

/* The calling thread's tag for the executables' bias: the address of a
 * thread-local byte (initial-exec: no call to compute it). A tag is
 * reused only by a thread created after its first owner exited. */
extern __attribute__((tls_model("initial-exec"))) _Thread_local char gr__tls_self;

static inline uintptr_t gr__self_tag(void)
{
    return (uintptr_t)&gr__tls_self;
}

/* True if another thread holds e's bias (gr__exec_write_begin): it
 * must be revoked (gr__exec_lock_unbiased) before e is launched or
 * changed without the owner. */
static inline bool gr__exec_biased_elsewhere(grGraphExec_t e)
{
    uintptr_t o = gr_load_seq_cst(&e->owner);
    return o != 0 && o != gr__self_tag();
}

/* e->owner while a revocation of the bias waits for the owner's change
 * to end: no thread's tag (gr__self_tag is the address of a byte of
 * thread-local storage), so every thread finds e biased elsewhere. */
#define GR_EXEC_REVOKING ((uintptr_t)1)

/* Takes e's lock once no other thread holds the bias: clears another
 * thread's bias first (a heavy barrier, once per executable), and again
 * if the owner claimed it meanwhile. */
void gr__exec_lock_unbiased(grGraphExec_t e);

/* gr__exec_write_begin's path through e's lock. */
void gr__exec_write_begin_locked(grGraphExec_t e);

/*
 * Begins a change of e's plan (a setter, an update): returns with every
 * launch of e queued so far run to its end, and no launch queued and no
 * other change begun until gr__exec_write_end. Launches queued before the
 * call run the old parameters, those after it the new ones, and the plan
 * is never written while one runs, whichever threads launch.
 *
 * Through e's lock (gr__exec_write_begin_locked), pairing with launches
 * (Dekker, seq_cst): the writer takes e->lock with a seq_cst exchange,
 * then reads the lock word of e's last stream; a launch on that stream
 * locks it with a seq_cst compare-and-swap, then tests e->lock
 * (grGraphLaunch) and, finding it held, unlocks and queues through
 * launch_moving, which waits for e->lock. So either the launch sees the
 * writer, or the writer sees the stream locked and waits for the launch
 * to be queued, then for it to run. That costs one locked exchange.
 *
 * The bias spares it when one thread does all the launching and changing
 * (the usual replay loop): the first change of a thread that finds e
 * unowned claims it (under e->lock), and from then on its changes set
 * 'owner_busy' with a plain store and check that the bias still holds:
 * the asymmetric barrier's hot side (core/barrier.h). Any other thread
 * clears the bias before it launches or changes e, issuing the heavy
 * barrier and waiting for 'owner_busy' to drop (gr__exec_lock_unbiased),
 * so either the owner sees the bias gone and takes the lock, or the other
 * thread sees the owner busy and waits for it. Until that wait is over
 * 'owner' holds GR_EXEC_REVOKING, not 0: a third thread that found e
 * unowned meanwhile would launch it on its stream's lock alone, with
 * neither e->lock nor the owner's change ordering it. While e is biased
 * only the owner launches it, so its own launch count tells whether one
 * runs.
 */
static inline void gr__exec_write_begin(grGraphExec_t e)
{
    uintptr_t me = gr__self_tag();
    if (GR_LIKELY(gr_load_relaxed(&e->owner) == me) &&
        GR_LIKELY(gr_load_acquire(&e->launches_done) >= gr_load_relaxed(&e->launches))) {
#if GR_TSAN
        gr_exchange_seq_cst(&e->owner_busy, 1u); /* TSan models no membarrier */
#else
        gr_store_relaxed(&e->owner_busy, 1u);
#endif
        gr_barrier_light();
        if (GR_LIKELY(gr_load_relaxed(&e->owner) == me)) {
            e->owner_writing = true;
            e->writes++;
            return;
        }
        gr_store_release(&e->owner_busy, 0u);
    }
    gr__exec_write_begin_locked(e);
    e->writes++;
}

/* True, in the writer between gr__exec_write_begin and its end, if e's
 * lock states say so: the writer holds the bias (it is e->owner and
 * owner_busy is set) or e's lock, and no launch of e is queued or
 * running; else prints the broken one to stderr and returns false
 * (plan_check.c). O(1): for gr_assert_expensive. */
bool gr__exec_write_is_valid(grGraphExec_t e);

static inline void gr__exec_write_end(grGraphExec_t e)
{
    gr_assert_expensive(gr__exec_write_is_valid(e));
    if (e->owner_writing) {
        e->owner_writing = false;
        gr_store_release(&e->owner_busy, 0u);
        return;
    }
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

/* References: the handle's, and one per queued launch and stream cache
 * holding the executable. The last release calls e->free_hook. */
void gr__exec_retain(grGraphExec_t e);
void gr__exec_release(grGraphExec_t e);

/* Queues a launch of e (checked by the caller) on stream s, after e's
 * previous launch when that went to another stream; fails only when out
 * of memory (detail naming grGraphLaunch). */
grError_t gr__exec_launch(grGraphExec_t e, gr_stream *s);

#endif /* GR_PLAN_H */
