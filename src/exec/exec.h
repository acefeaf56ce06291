/*
 * exec.h - the exec layer's side of executable graphs: instantiation
 * builds the plan (backend/plan.h) and the node table that the setters and
 * grGraphExecUpdate find nodes through (the compiler: plan_build.c; the
 * executable object and its node map: executable.c); what the setters and update share
 * (the limits CUDA sets on changing an executable); the bounds checks of
 * its copies and memsets.
 *
 * Invariants: the node table (orig, map) names the nodes of the graph the
 * executable was instantiated from, by address, never dereferenced; the
 * plan is written only between gr__exec_write_begin and
 * gr__exec_write_end.
 */
#ifndef GR_EXEC_H
#define GR_EXEC_H

#include "../graph/graph.h"
#include "../backend/plan.h"
#include "../memory/memory.h"

/* Graphs that span devices (span.c, docs/devices.md "Graphs that span
 * devices"). gr__exec_spans: whether g's top-level nodes name two devices
 * or more (O(1) unless its dev_mask says so). gr__exec_span_build: builds
 * e->span from g, whose plan e holds (its node table too); leaves e->map
 * empty, so that every setter takes its slow path. The rest: a launch or
 * upload on stream s (handle h) of the executable, the refusal of a
 * change not made in place, the wait for the parts' launches, and the
 * free (nothing without a span). */
struct gr_span;
bool gr__exec_spans(grGraph_t g);
grError_t gr__exec_span_build(const char *call, struct grGraphExec_st *e, grGraph_t g,
                              unsigned long long flags);
grError_t gr__exec_span_launch(const char *call, struct grGraphExec_st *e, grStream_t h, gr_stream *s,
                               bool upload);
/* A node of a spanning executable as a setter reaches it: its part, its
 * copy there, and 'hold', the CPU part, when the node is a GPU part's
 * (NULL for the CPU part's own). A GPU part's change is made inside
 * hold's write section: every launch queued so far, whose CPU part
 * launches the GPU parts, is then over, and none starts meanwhile, so
 * launches made before the change run the old parameters in every part.
 * gr__exec_span_node fails (grErrorInvalidValue, a detail) where 'node'
 * is not a node of e's graph. gr__exec_span_check_memory refuses
 * (grErrorInvalidValue, a detail) new memory of a copy (src non-NULL) or
 * memset whose device is not the part's. */
typedef struct gr_span_node {
    grGraphExec_t exec, hold;
    grGraphNode_t clone;
    grGraphNodeType type;
    int device;
} gr_span_node;
grError_t gr__exec_span_node(const char *call, const struct grGraphExec_st *e, grGraphNode_t node,
                             gr_span_node *out);
/* gr__exec_span_node for a setter of one node kind: also fails
 * (grErrorInvalidValue, a detail naming 'kind', e.g. "collective") where
 * the node is of another type. */
grError_t gr__exec_span_node_typed(const char *call, const struct grGraphExec_st *e, grGraphNode_t node,
                                   grGraphNodeType type, const char *kind, gr_span_node *out);
grError_t gr__exec_span_check_memory(const char *call, const struct grGraphExec_st *e, const gr_span_node *sn,
                                     grGraphNode_t node, const void *dst, const void *src);
/* The same refusal where the node's new 'what' (an event, a child graph)
 * is of device 'dev'. */
grError_t gr__exec_span_check_device(const char *call, const struct grGraphExec_st *e, const gr_span_node *sn,
                                     grGraphNode_t node, int dev, const char *what);
/* The kernel setter's new arguments (p) for node's copy in its part: an
 * argument that is the handle of a conditional node of another part is
 * refused (grErrorInvalidValue, a detail), as instantiation refuses it. */
grError_t gr__exec_span_check_kernel(const char *call, const struct grGraphExec_st *e, const gr_span_node *sn,
                                     grGraphNode_t node, const grKernelNodeParams *p);
/* grGraphExecChildGraphNodeSetParams of a spanning executable: the new
 * child graph must name the device of the node's part (else
 * grErrorInvalidValue, a detail); then the part's own setter. */
grError_t gr__exec_span_child(const char *call, struct grGraphExec_st *e, grGraphNode_t node,
                              grGraph_t child);
/* grGraphExecBatchMemOpNodeSetParams of a spanning executable: the new
 * operations' words must be memory of the device of the node's part
 * (else grErrorInvalidValue, a detail); then the part's own setter. */
grError_t gr__exec_span_memop(const char *call, struct grGraphExec_st *e, grGraphNode_t node,
                              const grBatchMemOpNodeParams *np);
grError_t gr__exec_span_refuse_at(const char *call, const struct grGraphExec_st *e);
/* grErrorNotSupported, as the static analyser sees too (gr__fail's way). */
static inline grError_t gr__exec_span_refuse(const char *call, const struct grGraphExec_st *e)
{
    return gr__failed(grErrorNotSupported, gr__exec_span_refuse_at(call, e));
}
/* grGraphExecUpdate of a spanning executable e, once update.c paired
 * the new graph's nodes (pairs, by orig index) and checked them by
 * CUDA's rules. Prepare (in e's write section, nothing changed yet):
 * refuses a node that would go to another part than its pair
 * (grGraphExecUpdateErrorParametersChanged, in *info, with a detail),
 * builds the new part graphs (*out) and makes the checks of each part's
 * device. Apply: updates every part from its new graph (consumes su);
 * discard: frees su unused. */
struct gr_span_upd;
grError_t gr__exec_span_update_prepare(const char *call, struct grGraphExec_st *e,
                                       struct grGraphNode_st *const *pairs, grGraphExecUpdateResultInfo *info,
                                       struct gr_span_upd **out);
grError_t gr__exec_span_update_apply(const char *call, struct grGraphExec_st *e, struct gr_span_upd *su);
void gr__exec_span_update_discard(struct gr_span_upd *su);
/* What e's device refuses of graph node gn's parameters (update.c). */
grError_t gr__exec_update_device_check(const char *call, grGraphExec_t e, grGraphNode_t gn);
void gr__exec_span_quiesce(struct grGraphExec_st *e);
void gr__exec_span_free(struct grGraphExec_st *e);

/* Frees a plan's memory and releases what it retains. */
void gr__plan_free(gr_plan *p);

/* What the plan compiler saw of a graph that instantiate checks
 * afterwards: conditional and batch memory operation nodes, counted. */
typedef struct gr_plan_facts {
    uint32_t ncond, nmemop;
    uint32_t ncoop; /* cooperative kernel nodes of the top level */
    /* Device-updatable kernel nodes, child graphs' included: without one,
     * instantiation does not walk the graph for them. */
    uint32_t ndevupd;
    uint32_t ncoll; /* collective nodes, child graphs' included */
} gr_plan_facts;

/* Compiles g into e->plan and fills e's node table (orig, its dependencies,
 * sinks, edge notes and attributes) (exec/plan_build.c); 'flags' are the
 * instantiation's (grGraphInstantiateFlagUseNodePriority orders the plan).
 * On failure, with a detail naming 'call', e->plan holds what was built
 * (e->plan.nodes NULL if nothing was), for the caller to free with e. */
grError_t gr__plan_build(const char *call, grGraph_t g, unsigned long long flags, struct grGraphExec_st *e,
                         gr_plan_facts *facts);

/* Builds the plan of a conditional node's body g (nested 'depth' deep)
 * into *p, as instantiate builds an executable's, without the node table;
 * on failure (with a detail naming 'call') *p is freed. */
grError_t gr__plan_build_body(const char *call, grGraph_t g, int depth, gr_plan *p);

/* ---------------------------------------------- collective nodes
 * (exec/coll.c) */

/* Checks the ranks' collective sequences of each communicator plan p
 * uses and makes its collective nodes' persistent requests: collective
 * over those communicators. Each communicator must be of 'device', the
 * executable's. On failure gr__inst_fault names the node. */
grError_t gr__exec_coll_instantiate(const char *call, gr_plan *p, int device);

/* Gives plan node pn (a collective node) parameters np, of the same op
 * and communicator (grGraphExecUpdate's apply step, which cannot fail:
 * a request MPI refuses becomes a device fault). */
void gr__exec_coll_apply(gr_pnode *pn, const grCollectiveNodeParams *np);

/* ---------------------------------------------- conditional nodes
 * (exec/conditional.c) */

/* Builds the compiled form of conditional node gn (one plan per body)
 * into *out; on failure *out is NULL, nothing is held, and the detail
 * names 'call'. */
grError_t gr__exec_cond_build_for(const char *call, const struct grGraphNode_st *gn, int depth,
                                  gr_cond_plan **out);

/* Frees a conditional node's compiled form (NULL accepted). */
void gr__exec_cond_free(gr_cond_plan *c);

/* Whether e has a top-level conditional node (e->orig, which never
 * changes after instantiation). */
bool gr__exec_has_cond(const struct grGraphExec_st *e);

/* Finds 'node' among the nodes of the bodies of e's conditional nodes, at
 * any depth (not inside child graphs, as at the top level): its type,
 * with its plan node in *out, or grGraphNodeTypeCount if it is none.
 * Call between gr__exec_write_begin and gr__exec_write_end: an update
 * replaces the bodies' plans, and *out stays valid only until the end of
 * that section. */
grGraphNodeType gr__exec_find_body_node(const struct grGraphExec_st *e, const void *node, gr_pnode **out);

/* After an update checked that 'fresh' has old's shape: hands old's table
 * of body nodes (those of the graph the executable was instantiated
 * from, which the setters name) to fresh, and fresh's to old, and gives
 * each node of fresh the enabled state of the node at its place in old
 * (an update changes parameters only, in a body as at the top level), at
 * every depth. */
void gr__exec_cond_keep_nodes(gr_cond_plan *fresh, gr_cond_plan *old);

/* Before instantiating g: refuses a body (instantiated only with its
 * node's graph) and a graph with a handle no conditional node uses
 * (CUDA's rules). */
grError_t gr__exec_cond_check_graph(const char *call, grGraph_t g);

/* After a plan with conditional nodes is built: applies CUDA's
 * one-executable-at-a-time rule, and lists (and references) the handles
 * in p->cond_slots, their values set to their defaults. */
grError_t gr__exec_cond_instantiate(const char *call, gr_plan *p);

/* Whether conditional plan b (built from a graph that updates an
 * executable) has the shape of a: the same type and bodies with the same
 * nodes and edges, recursively (handles may differ); if not, says why in
 * why[cap]. */
bool gr__exec_cond_same_shape(const gr_cond_plan *a, const gr_cond_plan *b, char *why, size_t cap);

/* Conditional node c and the conditional nodes of its bodies; those of
 * plan p and its bodies. */
uint32_t gr__exec_cond_count(const gr_cond_plan *c);
uint32_t gr__plan_cond_count(const gr_plan *p);

/* Whether the executable of plan p may use the handles of conditional
 * plan 'fresh' (an update): each is its own, or used by no live
 * executable. False also when out of memory. */
bool gr__exec_cond_slots_available(const gr_plan *p, const gr_cond_plan *fresh);

/* After an update swapped conditional plans in: makes 'list' (room for
 * one handle per conditional node of p, taken over) p's list of handles,
 * claiming the new ones and handing back those no longer used. */
void gr__exec_cond_slots_replace(gr_plan *p, gr_cond_slot **list);

/* Releases p->cond_slots: when the executable is destroyed (no launch of
 * it queued any more: its handles may serve a new executable), or freed
 * unlaunched (a failed instantiation); nothing the second time. */
void gr__exec_cond_slots_free(gr_plan *p);

/* The orig index of 'node' in the executable, or UINT32_MAX (also when out
 * of memory building the table on first use). */
uint32_t gr__exec_find(struct grGraphExec_st *e, const void *node);

/* The type of 'node' in the executable, a top-level node or one of its
 * conditional nodes' bodies (gr__exec_find_body_node, searched in a write
 * section only when the node is not a top-level one), with its plan node
 * in *out; or grGraphNodeTypeCount. A body node's *out may be replaced by
 * an update once the call returns: find it again in the caller's write
 * section (gr__exec_pnode_current). */
grGraphNodeType gr__exec_find_node(struct grGraphExec_st *e, const void *node, gr_pnode **out);

/* The setters' lookup (exec/setters.c): e's plan node of 'node', which
 * must be of type 'want', or the error, with a detail naming 'call', for
 * an executable that is not live, a node it does not hold, a node of
 * another type, or a node of a conditional body on a GPU. */
grError_t gr__exec_find_typed(const char *call, grGraphExec_t e, grGraphNode_t node, grGraphNodeType want,
                              gr_pnode **out);

/* Body nodes' plan nodes found again (gr__exec_pnode_current). */
gr_pnode *gr__exec_pnode_again(struct grGraphExec_st *e, const void *node, gr_pnode *pn);

/* In a write section: pn, found for 'node' by gr__exec_find_node before
 * the section, as it is now. A top-level plan node stays where it is
 * (two compares); a body's may have been replaced by an update since,
 * and is found again. */
static inline gr_pnode *gr__exec_pnode_current(struct grGraphExec_st *e, const void *node, gr_pnode *pn)
{
    uintptr_t off = (uintptr_t)pn - (uintptr_t)e->plan.nodes;
    if (GR_LIKELY(off < (uintptr_t)e->plan.nnodes * sizeof *pn))
        return pn;
    return gr__exec_pnode_again(e, node, pn);
}

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

/* Checks the handle; with a detail naming 'call'. */
grError_t gr__exec_check(const char *call, grGraphExec_t e);

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
 * node for the first that overruns one. With 'launching', a range in a
 * graph allocation that no executable maps is refused too (its pages
 * are reserved, not backed), and on success the tracker generation they
 * were checked at is noted; at instantiation (the executable's own
 * allocations not mapped yet) neither, so its first launch checks again.
 * Takes e's lock (setters write the nodes under it). */
grError_t gr__exec_check_ranges(const char *call, grGraphExec_t e, bool launching);

/* gr__exec_check_ranges when the allocations changed since the last
 * check: the common case is a load and a compare. */
static inline grError_t gr__exec_ranges_current(const char *call, grGraphExec_t e)
{
    if (GR_LIKELY(e->plan.nranged == 0) ||
        GR_LIKELY(gr_load_relaxed(&e->plan.range_gen) == gr__mem_generation()))
        return grSuccess;
    return gr__exec_check_ranges(call, e, true);
}

/* The oldest generation of the memory tracker at which g or a graph
 * nested in it was made (graph.h's born_gen): the executable's
 * baked_gen. */
uint64_t gr__exec_graph_born(grGraph_t g);
/* The same for the graphs node n holds (a child graph, a conditional
 * node's bodies); UINT64_MAX for a node that holds none. */
uint64_t gr__exec_node_born(const struct grGraphNode_st *n);

/* grDebugCheckLaunches: refuses a launch of e whose nodes hold an address
 * into graphrt memory freed since, or a copy or memset range that no
 * longer fits its allocation (grErrorIllegalAddress, with a detail naming
 * 'call', the node and the allocation). Takes e's lock (baked.c). */
grError_t gr__exec_check_baked(const char *call, grGraphExec_t e);

/* ------------------------------------------------------ graph memory */

/* A private bit of grGraphExec_st.flags: the executable maps graph memory
 * or frees graph allocations, so launch and destroy call in here
 * (exec/graphmem.c). */
#define GR_EXEC_GRAPHMEM (1ull << 63)

/* gr__graphmem_instantiate's device for a graph that spans devices:
 * each allocation is memory of the device it names, mapped on a block of
 * that device's. */
#define GR_GRAPHMEM_ANY_DEVICE (-1)

/* Instantiation for 'device': refuses what CUDA refuses (a second
 * executable of the allocations, allocations of another device), then
 * maps g's allocations for e. Call once the plan and e's node table are
 * built, before the lowering to a GPU; may use the nodes' scratch. */
grError_t gr__graphmem_instantiate(const char *call, grGraphExec_t e, grGraph_t g, int device);

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

/* grGraphExecUpdate of e (with GR_EXEC_GRAPHMEM) from g, as CUDA 13
 * updates executables with memory nodes: g's allocations mapped for e's
 * device in a record of their own (*out; NULL when there is nothing to
 * change: g is the graph e maps). Refuses as instantiation does (g's
 * allocations mapped by another executable: grErrorNotSupported). Call
 * between gr__exec_write_begin and gr__exec_write_end; e is unchanged. */
struct gr_gexec;
grError_t gr__graphmem_update_prepare(const char *call, grGraphExec_t e, grGraph_t g, struct gr_gexec **out);

/* Applies a prepared record (NULL: nothing): e maps it from now on, and
 * the memory of the old one goes back (its allocations still allocated
 * end). Cannot fail. */
void gr__graphmem_update_apply(grGraphExec_t e, struct gr_gexec *x);

/* Gives back a prepared record that is not applied. */
void gr__graphmem_update_discard(struct gr_gexec *x);

/* ------------------------------------------------- instantiate faults */

/* Where the instantiation running on this thread failed, for
 * grGraphInstantiateWithParams' errNode_out and the detail: the check
 * that refuses writes the graph node it blames ('node'), or the plan
 * node ('pindex', mapped to its top-level node afterwards); 'structure'
 * marks a refusal of the graph's shape (grGraphInstantiateInvalidStructure),
 * 'named' a detail that names the node already, and 'unreported' a
 * failure for which CUDA leaves errNode_out NULL (the detail still names
 * the node). Reset by each
 * instantiation; the launch-time checks that share the code write it
 * too, harmlessly. */
typedef struct gr_inst_fault {
    const struct grGraphNode_st *node;
    uint32_t pindex; /* UINT32_MAX: none */
    bool structure, named, unreported;
    int result; /* a grGraphInstantiateResult that is not Error, or 0 */
} gr_inst_fault;
extern _Thread_local gr_inst_fault gr__inst_fault;

/* ------------------------------------------------------- user objects */

/* The user-object references an executable of g takes (exec/userobj.c):
 * g's own and those of the graphs nested in each top-level child-graph
 * node, retained, tagged by that node's orig index: pairs[i] is the node
 * of g with orig index i, or pairs is NULL for instantiation's numbering
 * (creation order). *out is NULL when there are none (always, until a
 * user object exists). */
grError_t gr__exec_urefs_build(const char *call, grGraph_t g, struct grGraphNode_st *const *pairs,
                               struct gr_urefs **out);

/* Installs the table of an update and returns the one e held before,
 * for gr__exec_urefs_drop once no lock is held. Call between
 * gr__exec_write_begin and gr__exec_write_end. */
struct gr_urefs *gr__exec_urefs_swap(grGraphExec_t e, struct gr_urefs *fresh);

/* grGraphExecChildGraphNodeSetParams: the references of top-level node
 * 'orig' become child's (and its nested graphs'); those it held before
 * go to *gone (NULL if none), for gr__exec_urefs_drop once the plan is
 * written. Call between gr__exec_write_begin and gr__exec_write_end,
 * after every check; fails only out of memory, changing nothing. */
grError_t gr__exec_urefs_replace_child(const char *call, grGraphExec_t e, uint32_t orig, grGraph_t child,
                                       struct gr_urefs **gone);

/* Drops references e no longer holds (NULL: none), once no launch that
 * used them runs: on the CPU the caller waited for e's launches; a GPU
 * launch is not tracked, so e's device is waited for first. Destructors
 * that become due run before it returns: call it with no lock held. */
void gr__exec_urefs_drop(grGraphExec_t e, struct gr_urefs *gone);

/* grGraphExecDestroy: drops e's references now if no launch of e is
 * queued or running, else once the last one is over. */
void gr__exec_urefs_destroyed(grGraphExec_t e);

/* The executable is being freed: drops what is left. */
void gr__exec_urefs_free(grGraphExec_t e);

/* ------------------------------------------------------------ analysis */

/* GRAPHRT_ANALYZE=1 (read once per process): writes the findings of
 * grGraphAnalyze on g, if any, to stderr (exec/analyze_env.c). Called
 * after a successful instantiation; leaves the thread's last error as it
 * was. */
void gr__exec_analyze_warn(grGraph_t g);

/* ------------------------------------------------ memory and devices */

/* Refuses memory an executable for 'device' cannot reach (exec/devmem.c):
 * a GPU's memory named by a CPU executable's copy, memset or kernel
 * argument (or another GPU's), and the CPU device's memory named by a GPU
 * kernel's argument; 'label' names the node in the detail. Free of cost
 * until a GPU context exists. */
grError_t gr__exec_check_kernel_devmem(const char *call, const char *label, grKernel_t k, void *const *argv,
                                       int device);
grError_t gr__exec_check_copy_devmem(const char *call, const char *label, const void *dst, const void *src,
                                     int device);
/* The words of count operations of a batch memory operation node (label
 * names it): on the CPU device host memory, as a copy's destination; on a
 * GPU memory the GPU's engines reach: that GPU's, or host memory pinned
 * (grMallocHost, grHostAlloc) or registered (grHostRegister), never
 * managed memory, which the driver's memory operations do not take. */
grError_t gr__exec_check_memop_devmem(const char *call, const char *label, unsigned count,
                                      const grStreamBatchMemOpParams *ops, int device);

/* grGraphExecMemcpyNodeSetParams, and grGraphExecNodeSetParams' memcpy
 * member ('generic', whose flags are checked too; else c), named
 * grGraphExecMemcpyNodeSetParams in details (setters.c). */
grError_t gr__exec_set_memcpy_3d(grGraphExec_t hGraphExec, grGraphNode_t node,
                                 const grMemcpyNodeParams *generic, const grMemcpy3DParms *c);
/* The same for graph node gn's parameters (an update's new node), named
 * by its label. */
grError_t gr__exec_check_node_devmem(const char *call, const struct grGraphNode_st *gn, int device);
grError_t gr__exec_check_plan_devmem(const char *call, const gr_plan *p, int device);

/* Whether count operations of ops may replace batch memory operation
 * plan node pn's (exec/memop.c): -1 if so, -2 for another count, else the
 * index of the first operation of another type (CUDA lets neither
 * change). */
int gr__exec_memop_mismatch(const gr_pnode *pn, unsigned count, const grStreamBatchMemOpParams *ops);

/* ---------------------------------------- device-updatable kernel nodes */

/* What a host setter wrote of a device-updatable node. */
#define GR_DEVUPD_HOST_PARAMS 1u
#define GR_DEVUPD_HOST_ENABLED 2u

/* Instantiation of e from g for 'device' (exec/devupdate.c): builds the
 * table of g's device-updatable kernel nodes, or refuses (a second live
 * executable, such nodes inside child graphs, a GPU). */
grError_t gr__devupd_instantiate(const char *call, struct grGraphExec_st *e, grGraph_t g, int device);
/* Once e is returned: g's nodes name e as their live executable. */
void gr__devupd_published(struct grGraphExec_st *e, grGraph_t g);
/* Frees e's table (the executable is being freed). */
void gr__devupd_free(struct grGraphExec_st *e);
/* A host setter wrote 'what' of plan node pn (between
 * gr__exec_write_begin and its end): the node takes the host's values
 * back for the rest and drops the device-side updates. No-op for a node
 * that is not device-updatable. */
void gr__devupd_host_wrote(struct grGraphExec_st *e, gr_pnode *pn, unsigned what);
/* grGraphNodeGetEnabled of a device-updatable node: the host's value
 * (true, *out set), not the device's; false for other nodes. */
bool gr__devupd_host_enabled(struct grGraphExec_st *e, const gr_pnode *pn, unsigned *out);

/* The device an executable runs on: 0 for the CPU. */
int gr__exec_device(const struct grGraphExec_st *e);

#endif /* GR_EXEC_H */
