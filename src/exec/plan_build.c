/*
 * plan_build.c - the plan compiler: turns a graph into a plan (child
 * graphs inlined, nodes in topological order in one array, successors in
 * CSR form with the single-predecessor ones first, a virtual EXIT node
 * after the sinks) and fills the executable's node table (what it
 * remembers of each top-level node, for the setters and update); the
 * executable object around the plan is executable.c's.
 *
 * Cost is linear in nodes + edges: one topological walk per (child) graph
 * (graph/topo.c: FIFO, or priority when node priorities or memory waits
 * order it), one pass to emit nodes, one counting sort to build the CSR.
 *
 * Invariants (checked by gr__plan_is_valid, backend/plan_check.c): the
 * plan's order is topological; each node's successors lie in
 * [succ_begin, succ_end), those it alone counts down before succ_mid;
 * npred counts a node's predecessors and 'pending' starts equal to it;
 * EXIT is the last node and every sink counts it down. The compiler
 * writes the 'scratch' field of the graph's nodes, so one graph must not
 * be instantiated by two threads at once (graphs are not internally
 * synchronised, as in CUDA).
 */
#include "exec.h"
#include "../backend/comm.h"

#include <stdlib.h>
#include <string.h>

typedef struct edge {
    uint32_t from, to;
} edge;

/* n references on kernel k owed by a run of consecutive nodes of k, taken
 * (instantiate) or dropped (gr__plan_free) with one atomic operation for
 * the run instead of one per node: 'op' is gr__kernel_retain_n or
 * gr__kernel_release_n. */
typedef struct kernel_run {
    grKernel_t k;
    int n;
} kernel_run;

typedef struct builder {
    gr_pnode *nodes; /* after the header slot nodes[-1] (one block) */
    uint32_t n, cap;
    edge *edges;
    size_t ne, ecap;
    size_t argbytes;   /* kernel argument values, in total */
    size_t nargv;      /* total kernel parameters */
    kernel_run k_owed; /* references owed by the latest kernel nodes */
    uint32_t nrecord;  /* event record nodes */
    uint32_t nranged;  /* memcpy and memset nodes */
    bool use_priority; /* grGraphInstantiateFlagUseNodePriority */
    const char *call;  /* the entry point the details name */
    uint32_t ncond;    /* conditional nodes */
    uint32_t nmemop;   /* batch memory operation nodes */
    uint32_t ncoop;    /* cooperative kernel nodes */
    uint32_t ndevupd;  /* device-updatable kernel nodes, child graphs' too */
    bool memop_waits;  /* one of them waits */
    uint32_t ncoll;    /* collective nodes */
    /* The layouts of pitched memcpy nodes, handed to the plan with the
     * nodes (gr_plan.shapes). */
    gr_copy_shape *shapes;
    uint32_t nshapes;
    bool oom;
} builder;

static void kernel_run_flush(kernel_run *r, void (*op)(grKernel_t, int))
{
    if (r->n)
        op(r->k, r->n);
    r->k = NULL;
    r->n = 0;
}

static void kernel_run_add(kernel_run *r, grKernel_t k, void (*op)(grKernel_t, int))
{
    if (k != r->k || r->n == INT32_MAX) {
        kernel_run_flush(r, op);
        r->k = k;
    }
    r->n++;
}

/* Room for 'cap' plan nodes after the header slot. */
static gr_pnode *nodes_alloc(uint32_t cap)
{
    gr_pnode *block = gr__big_alloc(((size_t)cap + 1) * sizeof *block);
    return block ? block + 1 : NULL;
}

static void nodes_free(gr_pnode *nodes)
{
    if (nodes)
        gr__big_free(nodes - 1);
}

/* Appends a plan node; its successors' range is build_csr's to write. */
static uint32_t add_node(builder *b, uint8_t type)
{
    if (b->n == b->cap) {
        uint32_t ncap = b->cap ? b->cap * 2 : 64;
        gr_pnode *nn = gr__big_realloc(b->nodes - 1, ((size_t)ncap + 1) * sizeof *nn);
        if (!nn) {
            b->oom = true;
            return 0;
        }
        b->nodes = nn + 1;
        b->cap = ncap;
    }
    b->nodes[b->n] = (gr_pnode){.type = type, .enabled = 1, .index = b->n};
    return b->n++;
}

static void add_edge(builder *b, uint32_t from, uint32_t to)
{
    if (b->ne == b->ecap) {
        size_t ncap = b->ecap ? b->ecap * 2 : 128;
        edge *ne = gr__big_realloc(b->edges, ncap * sizeof *ne);
        if (!ne) {
            b->oom = true;
            return;
        }
        b->edges = ne;
        b->ecap = ncap;
    }
    b->edges[b->ne++] = (edge){from, to};
}

static uint32_t scratch_in(const struct grGraphNode_st *n)
{
    return (uint32_t)(n->scratch >> 32);
}
static uint32_t scratch_out(const struct grGraphNode_st *n)
{
    return (uint32_t)n->scratch;
}

/* Counts a kernel node's argument values. They are copied into the plan's
 * argument area by finish_node, once the area is allocated at its final
 * size (growing it as nodes come would copy and fault it in several
 * times); until then pn->u.kern.argv points at the graph node's values. */
static void count_args(builder *b, gr_pnode *pn, const struct grGraphNode_st *gn)
{
    grKernel_t k = gn->p.kernel.kernel;
    pn->u.kern.argv = (void **)(void *)gn->p.kernel.argbuf;
    b->argbytes += k->argbytes; /* a multiple of 16: alignment is kept */
    b->nargv += (size_t)k->nparams;
}

/* Makes plan node pn a pitched copy of layout 'shape', kept in b's
 * shapes until the plan takes them. */
static void add_shape(builder *b, gr_pnode *pn, const gr_copy_shape *shape)
{
    gr_copy_shape *a = gr__realloc(b->shapes, ((size_t)b->nshapes + 1) * sizeof *a);
    if (!a) {
        b->oom = true;
        return;
    }
    b->shapes = a;
    a[b->nshapes++] = *shape;
    pn->u.copy.pitched = true;
    pn->u.copy.shape = b->nshapes;
}

/* Copies a graph node's parameters into plan node 'pn'. */
static void fill_params(builder *b, gr_pnode *pn, const struct grGraphNode_st *gn)
{
    switch (gn->type) {
    case grGraphNodeTypeKernel:
        pn->u.kern.k = gn->p.kernel.kernel;
        pn->u.kern.grid = gn->p.kernel.grid;
        pn->u.kern.block = gn->p.kernel.block;
        pn->shmem = gn->p.kernel.shmem;
        b->ncoop += gr__node_cooperative(gn) != 0;
        if (GR_UNLIKELY(gn->kattrs != NULL))
            b->ndevupd += gr__node_devupd(gn);
        pn->krun = gr__node_cooperative(gn) ? GR_KRUN_COOP
                   : gn->p.kernel.grid.x == 1 && gn->p.kernel.grid.y == 1 && gn->p.kernel.grid.z == 1
                       ? GR_KRUN_ONE
                       : GR_KRUN_GRID;
        kernel_run_add(&b->k_owed, gn->p.kernel.kernel, gr__kernel_retain_n);
        count_args(b, pn, gn);
        return;
    case grGraphNodeTypeMemcpy: {
        const gr_memcpy_node *m = &gn->p.memcpy;
        pn->u.copy.p = (gr_memcpy_params){m->dst, m->src, m->count, m->kind};
        pn->u.copy.dst_device = gr__mem_is_device(m->dst);
        pn->u.copy.src_device = gr__mem_is_device(m->src);
        if (GR_UNLIKELY(m->shape != NULL && !m->shape->linear))
            add_shape(b, pn, &m->shape->shape);
        b->nranged++;
        return;
    }
    case grGraphNodeTypeMemset:
        pn->u.memset = gn->p.memset;
        b->nranged++;
        return;
    case grGraphNodeTypeHost:
        pn->u.host = gn->p.host;
        return;
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        pn->u.event = gn->p.event;
        gr__event_retain(gn->p.event);
        b->nrecord += gn->type == grGraphNodeTypeEventRecord;
        return;
    case grGraphNodeTypeBatchMemOp: {
        /* The plan's own copy, so that the node's setters and the
         * executable's stay apart. */
        const gr_memop_params *m = &gn->p.memop;
        pn->u.memop.count = m->count;
        pn->u.memop.ops = gr__malloc(m->count * sizeof *m->ops);
        if (!pn->u.memop.ops) {
            pn->u.memop.count = 0;
            b->oom = true;
            return;
        }
        memcpy(pn->u.memop.ops, m->ops, m->count * sizeof *m->ops);
        b->nmemop++;
        b->memop_waits = b->memop_waits || gr__memop_has_wait(m);
        return;
    }
    case grGraphNodeTypeCollective: {
        /* The plan's own copy; its persistent request is made once the
         * plan's order is known (exec/coll.c). */
        gr_coll_run *r = gr__malloc(sizeof *r);
        if (!r) {
            b->oom = true;
            return;
        }
        r->p = gn->p.coll;
        r->req = NULL;
        gr__comm_retain(r->p.comm);
        pn->u.coll = r;
        b->ncoll++;
        return;
    }
    case grGraphNodeTypeConditional: /* emit_node builds its bodies */
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeCount:
        return;
    }
}

/* Remembers the attributes update compares of top-level node gn (orig
 * index oi); the array grows by doubling, as few nodes have attributes.
 * False when out of memory. */
static bool note_attrs(struct grGraphExec_st *e, uint32_t oi, const struct grGraphNode_st *gn)
{
    uint32_t n = e->norig_attrs;
    if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
        gr_orig_attr *a = gr__realloc(e->orig_attrs, (n ? 2 * (size_t)n : 1) * sizeof *a);
        if (!a)
            return false;
        e->orig_attrs = a;
    }
    e->orig_attrs[e->norig_attrs++] = (gr_orig_attr){oi, gr__node_priority(gn), gr__node_cooperative(gn)};
    return true;
}

/* A sink of the source graph while its order is sorted out. */
typedef struct sink_key {
    uint64_t sink_seq;
    uint32_t oi;
} sink_key;

static int sink_key_later_first(const void *a, const void *b)
{
    uint64_t x = ((const sink_key *)a)->sink_seq, y = ((const sink_key *)b)->sink_seq;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Puts e->orig_sinks, found in creation order, in the order update pairs
 * them: decreasing sink_seq (graph.h). Sinks that became sinks in creation
 * order, as in every graph no edge removal or node destruction made a sink
 * of, just reverse; the others are sorted, reading the source graph's
 * nodes while they live (instantiate). */
static bool order_orig_sinks(struct grGraphExec_st *e, bool in_creation_order)
{
    uint32_t n = e->norig_sinks, *s = e->orig_sinks;
    if (GR_LIKELY(in_creation_order)) {
        for (uint32_t i = 0; i < n / 2; i++) {
            uint32_t t = s[i];
            s[i] = s[n - 1 - i];
            s[n - 1 - i] = t;
        }
        return true;
    }
    sink_key *k = gr__malloc(n * sizeof *k);
    if (!k)
        return false;
    for (uint32_t i = 0; i < n; i++)
        k[i] = (sink_key){e->orig[s[i]].node->sink_seq, s[i]};
    qsort(k, n, sizeof *k, sink_key_later_first);
    for (uint32_t i = 0; i < n; i++)
        s[i] = k[i].oi;
    gr__free(k);
    return true;
}

/* The arrays edges_and_orig fills: e's orig table (with its sentinel),
 * dependencies and sinks in one block, its edge notes when g has any,
 * and *porig (plan index -> orig index) unless g is dense. */
static grError_t orig_alloc(builder *b, grGraph_t g, struct grGraphExec_st *e, bool dense, uint32_t **porig)
{
    /* Room for every node as a sink: 4 bytes a node, no second walk. */
    e->orig = gr__big_alloc((g->nnodes + 1) * sizeof *e->orig + g->nedges * sizeof *e->orig_deps +
                            g->nnodes * sizeof *e->orig_sinks);
    if (e->orig) {
        e->orig_deps = (uint32_t *)(e->orig + g->nnodes + 1);
        e->orig_sinks = e->orig_deps + g->nedges;
    }
    if (!dense)
        *porig = gr__big_alloc((b->n ? b->n : 1) * sizeof **porig);
    if (!e->orig || (!dense && !*porig)) {
        gr__big_free(*porig);
        *porig = NULL;
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    }
    if (g->nnotes) {
        e->orig_notes = gr__malloc(g->nnotes * sizeof *e->orig_notes);
        if (!e->orig_notes) {
            gr__big_free(*porig);
            *porig = NULL;
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
        }
    }
    return grSuccess;
}

/* Records the edge data of gn's incoming edges that is not the default
 * (oi: gn's orig index). Out of line: few graphs have edge data. */
static GR_NOINLINE void note_edge_data(struct grGraphExec_st *e, grGraph_t g, struct grGraphNode_st *gn,
                                       uint32_t oi)
{
    for (size_t k = 0; k < gn->ndeps; k++) {
        grGraphEdgeData ed = gr__edge_data_of(g, gn->deps[k], gn);
        if (!gr__edge_data_is_default(&ed))
            e->orig_notes[e->norig_notes++] = (gr_orig_note){oi, (uint32_t)k, ed};
    }
}

/* The top level's edges, and what the executable remembers of each of its
 * nodes (gr_orig), in one walk of the graph in creation order: on large
 * graphs the walks over the nodes' memory are what instantiation costs.
 * A node's orig index is its rank in creation order: its seq when no
 * node of g was ever destroyed (seqs 0..n-1, as clone.c tells), the usual
 * case, else found by recording dependencies as plan indices first and
 * renumbering them through a plan index -> orig index table. */
static grError_t edges_and_orig(builder *b, grGraph_t g, struct grGraphExec_st *e)
{
    uint32_t i = 0, *porig = NULL;
    size_t d = 0;
    bool dense = g->last->seq == g->nnodes - 1; /* seq grows along the list */
    e->norig = (uint32_t)g->nnodes;
    uint64_t last_sink_seq = 0;
    bool sinks_in_creation_order = true;
    grError_t err = orig_alloc(b, g, e, dense, &porig);
    if (err)
        return err;
    struct grGraphNode_st *gn;
    GR_GRAPH_FOR_EACH_NODE (g, gn) {
        uint32_t oi = i++;
        gr_orig *o = &e->orig[oi];
        if (GR_UNLIKELY(gn->kattrs != NULL) && !note_attrs(e, oi, gn))
            b->oom = true;
        if (GR_UNLIKELY(g->nnotes) && gr__node_has_edge_notes(g, gn))
            note_edge_data(e, g, gn, oi);
        for (size_t k = 0; k < gn->nsuccs; k++)
            add_edge(b, scratch_out(gn), scratch_in(gn->succs[k]));
        if (gn->nsuccs == 0) {
            sinks_in_creation_order &= e->norig_sinks == 0 || gn->sink_seq > last_sink_seq;
            last_sink_seq = gn->sink_seq;
            e->orig_sinks[e->norig_sinks++] = oi;
        }
        /* Every field written: the array is not zeroed. */
        *o = (gr_orig){.node = gn,
                       .type = gn->type,
                       .pindex = scratch_in(gn),
                       .child_count = scratch_out(gn) - scratch_in(gn) - (gn->type == grGraphNodeTypeGraph),
                       .dep_begin = (uint32_t)d};
        if (GR_LIKELY(dense)) {
            gr_assert_internal(gn->seq == oi);
            for (size_t k = 0; k < gn->ndeps; k++)
                e->orig_deps[d++] = (uint32_t)gn->deps[k]->seq;
        } else {
            porig[o->pindex] = oi;
            for (size_t k = 0; k < gn->ndeps; k++)
                e->orig_deps[d++] = scratch_in(gn->deps[k]);
        }
    }
    e->orig[i] = (gr_orig){.node = NULL, .dep_begin = (uint32_t)d}; /* the sentinel */
    if (!dense) {
        for (size_t k = 0; k < d; k++)
            e->orig_deps[k] = porig[e->orig_deps[k]];
        gr__big_free(porig);
    }
    if (!order_orig_sinks(e, sinks_in_creation_order))
        b->oom = true;
    if (b->oom)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    return grSuccess;
}

static grError_t flatten(builder *b, grGraph_t g, int depth, struct grGraphExec_st *top);

/* g has a cycle: the sort proper names it in the detail. */
static GR_NOINLINE grError_t cycle_error(const char *call, grGraph_t g)
{
    struct grGraphNode_st **order = gr__malloc(g->nnodes * sizeof *order);
    if (!order)
        return gr__fail(grErrorInvalidValue, "%s: graph %p has a cycle", call, GR_PTR(g));
    bool sorted = gr__graph_topo_sort(g, order);
    gr__free(order);
    gr__inst_fault.structure = true;
    if (GR_NEVER(sorted))
        return gr__fail(grErrorInvalidValue, "%s: graph %p has a cycle", call, GR_PTR(g));
    /* The sort left the nodes it could not order with a count: the first
     * of them is blocked by the cycle, which the detail names. */
    struct grGraphNode_st *n;
    for (n = g->first; n != NULL && n->scratch == 0; n = n->next)
        ;
    gr__inst_fault.node = n;
    gr__inst_fault.named = true;
    return grErrorInvalidValue;
}

/* What emit_node needs besides the node. */
typedef struct emit_ctx {
    builder *b;
    int depth;     /* of the graph being emitted */
    grError_t err; /* a child graph's failure */
} emit_ctx;

/* Emits graph node gn (a child graph: its entry node, its nodes, its exit
 * node) and records in gn->scratch the plan nodes its incoming and
 * outgoing edges attach to. False stops the walk: out of memory, or a
 * child graph failed (x->err). */
static bool emit_node(void *ctx, struct grGraphNode_st *gn)
{
    emit_ctx *x = ctx;
    builder *b = x->b;
    if (gn->type == grGraphNodeTypeGraph) {
        grGraph_t c = gn->p.child;
        uint32_t enter = add_node(b, grGraphNodeTypeEmpty);
        if ((x->err = flatten(b, c, x->depth + 1, NULL)) != grSuccess)
            return false;
        uint32_t leave = add_node(b, grGraphNodeTypeEmpty);
        if (c->nnodes == 0)
            add_edge(b, enter, leave);
        struct grGraphNode_st *cn;
        GR_GRAPH_FOR_EACH_NODE (c, cn) {
            if (cn->ndeps == 0)
                add_edge(b, enter, scratch_in(cn));
            if (cn->nsuccs == 0)
                add_edge(b, scratch_out(cn), leave);
        }
        gn->scratch = ((uint64_t)enter << 32) | leave;
    } else {
        uint32_t pi = add_node(b, (uint8_t)gn->type);
        if (!b->oom)
            fill_params(b, &b->nodes[pi], gn);
        gn->scratch = ((uint64_t)pi << 32) | pi;
        if (gn->type == grGraphNodeTypeConditional && !b->oom) {
            b->ncond++;
            if ((x->err = gr__exec_cond_build_for(b->call, gn, x->depth + 1, &b->nodes[pi].u.cond)) !=
                grSuccess)
                return false;
        }
    }
    return !b->oom;
}

/* The order of two ready nodes under grGraphInstantiateFlagUseNodePriority,
 * or in a graph with waits: a batch memory operation node that waits after
 * the others, then the higher priority (the lower number, clamped to the
 * device's range as CUDA clamps it) first, then creation order. */
static bool runs_before(const struct grGraphNode_st *a, const struct grGraphNode_st *b)
{
    bool wa = a->type == grGraphNodeTypeBatchMemOp && gr__memop_has_wait(&a->p.memop);
    bool wb = b->type == grGraphNodeTypeBatchMemOp && gr__memop_has_wait(&b->p.memop);
    if (wa != wb)
        return wb; /* a wait after every other ready node (see has_waits) */
    int pa = gr__cpu_stream_priority_clamp(gr__node_priority(a));
    int pb = gr__cpu_stream_priority_clamp(gr__node_priority(b));
    return pa != pb ? pa < pb : a->seq < b->seq;
}

/* True if some node of g is a batch memory operation node that waits.
 * The plan then orders each such node after every node that is ready
 * before it, so that a launch run in order (as one with waits always is)
 * runs the nodes that may write its word first, unless they come after
 * another wait (docs/stream-memops.md). */
static bool has_waits(grGraph_t g)
{
    struct grGraphNode_st *n;
    bool any = false;
    if (g->nmemops == 0) /* most graphs: no walk */
        return false;
    GR_GRAPH_FOR_EACH_NODE (g, n)
        any = any || (n->type == grGraphNodeTypeBatchMemOp && gr__memop_has_wait(&n->p.memop));
    return any;
}

/* True if some node of g has a priority other than the default. */
static bool has_priorities(grGraph_t g)
{
    struct grGraphNode_st *n;
    bool any = false;
    GR_GRAPH_FOR_EACH_NODE (g, n)
        any = any || gr__node_priority(n) != 0;
    return any;
}

/* Emits the nodes of g (and, recursively, of its child graphs) in
 * topological order, each as the sort reaches it (one walk over the
 * nodes, not a sort and then an emission pass), then its edges. */
static grError_t flatten(builder *b, grGraph_t g, int depth, struct grGraphExec_st *top)
{
    if (GR_NEVER(depth > (int)GR_GRAPH_MAX_NEST)) {
        gr__inst_fault.structure = true;
        return gr__fail(grErrorInvalidValue, "%s: child graphs are nested more than %u deep", b->call,
                        GR_GRAPH_MAX_NEST);
    }
    if (g->nnodes == 0)
        return grSuccess;
    emit_ctx x = {b, depth, grSuccess};
    /* Node priorities, or memory waits, order the ready nodes (runs_before),
     * so that the plan's order (and with it the workers' ready lists, see
     * prefer_priority) honours them; otherwise the walk's FIFO. */
    bool by_priority = (b->use_priority && has_priorities(g)) || has_waits(g);
    /* Two calls with constant orders: the FIFO walk, the usual one, is
     * inlined with no test of the frontier's kind per node. */
    size_t emitted =
        by_priority ? gr__graph_kahn(g, runs_before, emit_node, &x) : gr__graph_kahn(g, NULL, emit_node, &x);
    if (x.err != grSuccess)
        return x.err;
    if (emitted == SIZE_MAX)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    if (!b->oom && emitted != g->nnodes)
        return cycle_error(b->call, g);
    if (top)
        return edges_and_orig(b, g, top);
    struct grGraphNode_st *gn;
    GR_GRAPH_FOR_EACH_NODE (g, gn)
        for (size_t k = 0; k < gn->nsuccs; k++)
            add_edge(b, scratch_out(gn), scratch_in(gn->succs[k]));
    if (b->oom)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    return grSuccess;
}

/* What a plan node needs once the argument areas are allocated: a kernel
 * node's values copied (to p->args + *ao, the next free bytes) and its
 * argv pointed at them (argv[*vo..], the next free pointers), an event
 * record node listed (record_nodes[*r]), a memcpy or memset node listed
 * (ranged_nodes[p->nranged]). */
static inline void finish_node(gr_plan *p, gr_pnode *pn, uint32_t i, size_t *ao, size_t *vo, uint32_t *r)
{
    if (pn->type == grGraphNodeTypeEventRecord)
        p->record_nodes[(*r)++] = i;
    if (pn->type == grGraphNodeTypeMemcpy || pn->type == grGraphNodeTypeMemset)
        p->ranged_nodes[p->nranged++] = i;
    if (pn->type != grGraphNodeTypeKernel)
        return;
    grKernel_t k = pn->u.kern.k;
    if (!k->nparams) {
        pn->u.kern.argv = p->argv + *vo;
        return;
    }
    /* p->args is not NULL: a kernel with parameters counted its bytes. */
    unsigned char *a = p->args + *ao;
    void **v = p->argv + *vo;
    // NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker)
    memcpy(a, (const void *)pn->u.kern.argv, k->argbytes);
    for (int j = 0; j < k->nparams; j++)
        v[j] = a + k->offsets[j];
    pn->u.kern.argv = v;
    *ao += k->argbytes;
    *vo += (size_t)k->nparams;
}

void gr__plan_free(gr_plan *p)
{
    kernel_run refs = {NULL, 0};
    for (uint32_t i = 0; i < p->nnodes; i++) {
        gr_pnode *pn = &p->nodes[i];
        switch (pn->type) {
        case grGraphNodeTypeKernel:
            kernel_run_add(&refs, pn->u.kern.k, gr__kernel_release_n);
            if (pn->own_args)
                gr__free(pn->u.kern.argv);
            break;
        case grGraphNodeTypeEventRecord:
        case grGraphNodeTypeWaitEvent:
            gr__event_release(pn->u.event);
            break;
        case grGraphNodeTypeConditional:
            gr__exec_cond_free(pn->u.cond);
            break;
        case grGraphNodeTypeBatchMemOp:
            gr__free(pn->u.memop.ops);
            break;
        case grGraphNodeTypeCollective:
            if (pn->u.coll) {
                gr__coll_unprepare(pn->u.coll);
                gr__comm_release(pn->u.coll->p.comm);
                gr__free(pn->u.coll);
            }
            break;
        default:
            break;
        }
    }
    kernel_run_flush(&refs, gr__kernel_release_n);
    gr__free(p->shapes);
    gr__exec_cond_slots_free(p);
    nodes_free(p->nodes);
    gr__big_free(p->count);
    memset(p, 0, sizeof *p);
}

/* Reserves 'bytes' at *off in a block being laid out; every array starts
 * on 16 bytes (kernel argument values need it). */
static size_t lay_out(size_t *off, size_t bytes)
{
    size_t at = (*off + 15) & ~(size_t)15;
    *off = at + bytes;
    return at;
}

/* Allocates the plan's arrays other than its nodes, in one block: the
 * countdowns (zeroed; first, so that the block is p->count), the roots,
 * the successors (room for every edge plus one EXIT edge per node at
 * most), the argument values and pointers, and the event record nodes. */
static bool plan_arrays(gr_plan *p, const builder *b)
{
    size_t n = p->nnodes, size = 0;
    size_t o_count = lay_out(&size, n * sizeof *p->count);
    size_t o_roots = lay_out(&size, n * sizeof *p->roots);
    size_t o_succ = lay_out(&size, (b->ne + n) * sizeof *p->succ);
    size_t o_args = lay_out(&size, b->argbytes);
    size_t o_argv = lay_out(&size, b->nargv * sizeof *p->argv);
    size_t o_rec = lay_out(&size, b->nrecord * sizeof *p->record_nodes);
    size_t o_ranged = lay_out(&size, b->nranged * sizeof *p->ranged_nodes);
    char *block = gr__big_alloc(size);
    if (!block)
        return false;
    memset(block, 0, n * sizeof *p->count);
    p->count = (gr_count *)(void *)(block + o_count);
    p->roots = (uint32_t *)(void *)(block + o_roots);
    p->succ = (uint32_t *)(void *)(block + o_succ);
    p->args = b->argbytes ? (unsigned char *)block + o_args : NULL;
    p->argv = (void **)(void *)(block + o_argv);
    p->record_nodes = (uint32_t *)(void *)(block + o_rec);
    p->nrecord = b->nrecord;
    p->ranged_nodes = (uint32_t *)(void *)(block + o_ranged);
    p->nranged = 0; /* counted up again as finish_node lists them */
    return true;
}

/* Builds CSR successors (single-predecessor successors first), the
 * countdowns, the roots, and the edges from every sink to EXIT (the last
 * node), in two passes over the edges, one over the nodes (which also
 * finishes them, see finish_node) and one over the countdowns: on large
 * plans these walks are the cost. The countdown
 * array does the counting on the way (in-degree in npred; out-degree,
 * then each node's back cursor, in pending), so that no other per-node
 * array is written. */
static void build_csr(gr_plan *p, const builder *b)
{
    uint32_t n = p->nnodes, exit_node = n - 1;
    gr_pnode *nodes = p->nodes;
    gr_count *cnt = p->count;
    /* No launch yet: plain loads and stores of 'pending' (relaxed) are all
     * the counting needs. */
    for (size_t i = 0; i < b->ne; i++) {
        gr_count *from = &cnt[b->edges[i].from];
        gr_store_relaxed(&from->pending, gr_load_relaxed(&from->pending) + 1);
        cnt[b->edges[i].to].npred++;
    }
    /* Successors that count down are written from the end of the node's
     * range backwards (the cursor in 'pending'), the others from its start
     * (succ_mid) forwards. */
    uint32_t acc = 0, nsinks = 0, last_sink = 0, r = 0;
    size_t ao = 0, vo = 0;
    p->nroots = 0;
    for (uint32_t i = 0; i < n; i++) {
        gr_pnode *pn = &nodes[i];
        finish_node(p, pn, i, &ao, &vo, &r);
        uint32_t deg = (uint32_t)gr_load_relaxed(&cnt[i].pending);
        bool sink = deg == 0 && i != exit_node;
        if (i == exit_node)
            cnt[i].npred = nsinks;
        pn->succ_begin = pn->succ_mid = acc;
        acc += sink ? 1 : deg;
        pn->succ_end = acc;
        if (sink) {
            /* Counts down EXIT, unless it is the only sink (below). */
            p->succ[acc - 1] = exit_node;
            nsinks++;
            last_sink = i;
        }
        gr_store_relaxed(&cnt[i].pending, (int32_t)(acc - sink));
        if (cnt[i].npred == 0)
            p->roots[p->nroots++] = i;
    }
    p->nsucc = acc;
    for (size_t i = 0; i < b->ne; i++) {
        edge e = b->edges[i];
        if (cnt[e.to].npred == 1) {
            p->succ[nodes[e.from].succ_mid++] = e.to;
        } else {
            int32_t back = gr_load_relaxed(&cnt[e.from].pending) - 1;
            gr_store_relaxed(&cnt[e.from].pending, back);
            p->succ[back] = e.to;
        }
    }
    if (nsinks == 1)
        nodes[last_sink].succ_mid++; /* EXIT's only predecessor: no counting */
    for (uint32_t i = 0; i < n; i++)
        atomic_init(&cnt[i].pending, (int32_t)cnt[i].npred);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Under grGraphInstantiateFlagUseNodePriority: each node's successors in
 * plan order (each half of its range: those it alone counts down, then
 * the others), so that the nodes a completion makes ready are listed in
 * the order of priority that the plan order already has; the roots are
 * in plan order by construction. A stable order, paid at instantiate. */
static void prefer_priority(gr_plan *p)
{
    for (uint32_t i = 0; i < p->nnodes; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->succ_mid - pn->succ_begin > 1)
            qsort(p->succ + pn->succ_begin, pn->succ_mid - pn->succ_begin, sizeof *p->succ, cmp_u32);
        if (pn->succ_end - pn->succ_mid > 1)
            qsort(p->succ + pn->succ_mid, pn->succ_end - pn->succ_mid, sizeof *p->succ, cmp_u32);
    }
}

/* Sizes b's node and edge arrays for g's top level (+ EXIT) up front:
 * growing 64-byte nodes by doubling would copy and fault in the plan
 * several times. False (nothing held) when out of memory. */
static bool builder_arrays(builder *b, grGraph_t g)
{
    b->cap = (uint32_t)g->nnodes + 1;
    b->ecap = g->nedges + 1;
    b->nodes = nodes_alloc(b->cap);
    b->edges = gr__big_alloc(b->ecap * sizeof *b->edges);
    if (b->nodes && b->edges)
        return true;
    nodes_free(b->nodes);
    gr__big_free(b->edges);
    b->nodes = NULL;
    b->edges = NULL;
    return false;
}

/* Orders the collective nodes of each communicator one after another in
 * plan order (which is topological, ties broken by creation order, so
 * the same on every rank that built the same graph): an edge from each
 * to the next of its communicator, so that every rank starts them in the
 * same order, as MPI and NCCL require, whatever order the workers run
 * independent nodes in. An edge that exists already is added again: the
 * countdowns count it twice, consistently. O(collective nodes x
 * communicators). */
static void chain_collectives(builder *b)
{
    enum {
        MAXC = 16
    };
    struct {
        grComm_t comm;
        uint32_t last;
    } seen[MAXC];
    uint32_t nseen = 0, n = b->n;
    for (uint32_t i = 0; i < n && !b->oom; i++) {
        if (b->nodes[i].type != grGraphNodeTypeCollective)
            continue;
        grComm_t c = b->nodes[i].u.coll->p.comm;
        uint32_t k = 0;
        while (k < nseen && seen[k].comm != c)
            k++;
        if (k < nseen) {
            add_edge(b, seen[k].last, i);
            seen[k].last = i;
        } else if (nseen < MAXC) {
            seen[nseen].comm = c;
            seen[nseen++].last = i;
        } else {
            /* More communicators than slots: a slower scan back. */
            for (uint32_t j = i; j-- > 0;)
                if (b->nodes[j].type == grGraphNodeTypeCollective && b->nodes[j].u.coll->p.comm == c) {
                    add_edge(b, j, i);
                    break;
                }
        }
    }
}

/* Emits g into b and hands the result to plan p: its nodes (which own
 * what they retain from here on, so that freeing p releases it on every
 * path), then the arrays and CSR successors. 'top' is the executable whose
 * node table g's top level fills, or NULL for a conditional body. On
 * failure p holds what was built so far, for its owner to free. */
static grError_t build(builder *b, grGraph_t g, int depth, gr_plan *p, struct grGraphExec_st *top)
{
    grError_t err = flatten(b, g, depth, top);
    if (!err && b->ncoll)
        chain_collectives(b);
    if (!err) {
        add_node(b, GR_PN_EXIT); /* after every sink: build_csr adds those edges */
        if (b->oom)
            err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    }
    kernel_run_flush(&b->k_owed, gr__kernel_retain_n);
    p->nodes = b->nodes;
    p->nodes[-1] = (gr_pnode){.type = GR_PN_HEAD, .u.plan = p};
    p->nnodes = b->n;
    p->shapes = b->shapes;
    p->nshapes = b->nshapes;
    b->nodes = NULL;
    if (!err && !plan_arrays(p, b))
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", b->call);
    if (!err)
        build_csr(p, b);
    if (!err && b->use_priority)
        prefer_priority(p);
    p->memop_waits = b->memop_waits;
    gr__big_free(b->edges);
    b->edges = NULL;
    return err;
}

grError_t gr__plan_build(const char *call, grGraph_t g, unsigned long long flags, struct grGraphExec_st *e,
                         gr_plan_facts *facts)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.use_priority = (flags & grGraphInstantiateFlagUseNodePriority) != 0;
    b.call = call;
    *facts = (gr_plan_facts){0, 0, 0, 0, 0};
    if (!builder_arrays(&b, g))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    grError_t err = build(&b, g, 0, &e->plan, e);
    facts->ncond = b.ncond;
    facts->nmemop = b.nmemop;
    facts->ncoop = b.ncoop;
    facts->ndevupd = b.ndevupd;
    facts->ncoll = b.ncoll;
    return err;
}

grError_t gr__plan_build_body(const char *call, grGraph_t g, int depth, gr_plan *p)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.call = call;
    if (!builder_arrays(&b, g))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    grError_t err = build(&b, g, depth, p, NULL);
    if (!err && b.ncoll) {
        gr__inst_fault.structure = true;
        err = gr__fail(grErrorNotSupported,
                       "%s: a conditional node's body holds a collective node, which graphrt does not run "
                       "inside conditional nodes yet (every rank must run the same collectives)",
                       call);
    }
    if (err)
        gr__plan_free(p);
    return err;
}
