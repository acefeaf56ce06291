/*
 * update.c - whole-graph update of an executable (grGraphExecUpdate) and
 * update of the inlined nodes of one child graph
 * (grGraphExecChildGraphNodeSetParams).
 *
 * An update runs in three phases, so that a refused update leaves the
 * executable exactly as it was:
 *   1. pair: every node of the new graph is paired with a node the
 *      executable was built from, and the topologies are compared;
 *   2. check: every pair is checked (type, changes CUDA refuses) and the
 *      memory that applying needs is allocated (kernel argument blocks for
 *      kernels whose parameter layout changes);
 *   3. apply: write the plan. Nothing in this phase can fail.
 * All three run between gr__exec_write_begin and gr__exec_write_end: no
 * launch of the executable is queued or running meanwhile.
 *
 * Pairing follows CUDA's rule at the top level: the sink nodes (no
 * dependents) pair in the order of the time each last became a sink, the
 * latest first (graph.h, sink_seq); then, breadth first from those pairs
 * in that order, each pair's dependencies pair in dependency-list order,
 * walking towards the roots; a dependency that is already paired with
 * another node is a topology change. The executable keeps only
 * the plan of a child graph (its nodes inlined in the child's topological
 * order), so inside child graphs the nodes of the new child graph pair with
 * the inlined nodes by that same deterministic topological order (roots in
 * creation order, then in edge order), and the edges are then compared one
 * by one against the plan. For graphs built by the same sequence of calls
 * both rules give the same pairs.
 *
 * Invariants:
 *   - phases 1 and 2 write only the 'scratch' fields of the new graph's
 *     nodes (graphs are not internally synchronised, as in CUDA) and memory
 *     of their own;
 *   - the executable's node table (exec->orig) keeps the nodes of the graph
 *     it was instantiated from: after an update the setters still take
 *     those nodes, as in CUDA.
 */
#include "exec.h"
#include "../backend/comm.h"
#include "../backend/device.h"
#include "../memory/memory.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pairs kept on the stack up to this many top-level nodes (no allocation). */
#if GR_KNOBS_SMALL
#define GR_UPDATE_STACK_NODES 1u /* two top-level nodes take the heap path */
#else
#define GR_UPDATE_STACK_NODES 128u
#endif

typedef struct upd {
    grGraphExec_t exec;
    /* The failure found, if any. */
    grGraphExecUpdateResult result;
    grGraphNode_t error_node, error_from;
    char msg[400];
    /* Top level: orig index -> paired node of the new graph; the new
     * graph's nodes in creation order; its sinks in pairing order; the
     * walk's queue of orig indices. Later passes run over these arrays
     * instead of chasing the nodes' list pointers: independent loads, so
     * a 1000-node update stays within a few tens of ns per node. */
    struct grGraphNode_st **pair_o, **list, **sinks;
    uint32_t *queue;
    /* Per orig index of a whole-graph update: nonzero where the paired
     * node's parameters differ from the plan node's (found before any is
     * written), so that an update changing k of n nodes checks the
     * memory of, writes and hands to a GPU's driver those k only. */
    uint8_t *differ;
    /* Edge checks inside child graphs: per plan node, the last source that
     * stamped it as a successor (allocated on the first child graph). */
    uint32_t *stamp;
    uint32_t next_stamp;
    /* Argument blocks for the kernel nodes whose parameter layout
     * changes, allocated while checking, installed when applying. */
    struct block {
        gr_pnode *pn;
        grKernel_t k;
        void **argv;
    } * blocks;
    size_t nblocks, capblocks;
    /* On a GPU executable, per plan node: nonzero when the update changes
     * its parameters, so that only those nodes go to the driver (NULL on
     * the CPU, or when out of memory: then every node goes). */
    uint8_t *gpu_changed;
    /* Conditional nodes: the plans of their bodies built from the new
     * graph while checking, swapped in when applying. */
    struct cond_swap {
        gr_pnode *pn;
        gr_cond_plan *fresh;
    } * conds;
    size_t nconds, capconds;
    gr_cond_slot **slots; /* the executable's handles once they are in */
} upd;

GR_PRINTF(5, 6)
static bool refuse(upd *u, grGraphExecUpdateResult r, grGraphNode_t node, grGraphNode_t from, const char *fmt,
                   ...)
{
    va_list ap;
    u->result = r;
    u->error_node = node;
    u->error_from = from;
    va_start(ap, fmt);
    vsnprintf(u->msg, sizeof u->msg, fmt, ap);
    va_end(ap);
    return false;
}

static bool oom(upd *u)
{
    return refuse(u, grGraphExecUpdateError, NULL, NULL, "out of memory");
}

/* ----------------------------------------------------------- parameters */

/* Allocates the argument block of plan node pn for kernel k, laid out as
 * gr__pnode_set_kernel lays out its own: the pointers, then the values. */
static bool add_block(upd *u, gr_pnode *pn, grKernel_t k)
{
    size_t vbytes = ((size_t)k->nparams * sizeof(void *) + 15u) & ~(size_t)15u;
    if (u->nblocks == u->capblocks) {
        size_t ncap = u->capblocks ? 2 * u->capblocks : 8;
        struct block *nb = gr__realloc(u->blocks, ncap * sizeof *nb);
        if (!nb)
            return oom(u);
        u->blocks = nb;
        u->capblocks = ncap;
    }
    void **argv = gr__aligned_alloc(16, vbytes + k->argbytes);
    if (!argv)
        return oom(u);
    unsigned char *a = (unsigned char *)argv + vbytes;
    for (int i = 0; i < k->nparams; i++)
        argv[i] = a + k->offsets[i];
    u->blocks[u->nblocks++] = (struct block){pn, k, argv};
    return true;
}

/* A copy or memset range of gn still within the allocation it lies in
 * (checked when the node got it; allocations may have changed since). */
static bool range_fits(upd *u, grGraphNode_t gn, const void *p, size_t n, const char *what)
{
    void *base;
    size_t size;
    if (gr__mem_range_ok(p, n, &base, &size))
        return true;
    if (!base)
        return refuse(u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                      "%s: its %s range at %p of %zu bytes wraps around the end of the address space",
                      gr__node_label(gn), what, p, n);
    return refuse(
        u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
        "%s: its %s range at %p of %zu bytes runs past the end of the allocation at %p of %zu bytes",
        gr__node_label(gn), what, p, n, base, size);
}

/* A conditional node: its bodies are compiled again from the new graph
 * (an update may change their nodes' parameters, as in CUDA) and must
 * have the shape of those they replace. */
static bool check_conditional(upd *u, gr_pnode *pn, grGraphNode_t gn)
{
    char why[240];
    gr_cond_plan *fresh = NULL;
    const gr_cond_plan *old = pn->u.cond;
    if ((uint32_t)gn->p.cond.type != old->type || gn->p.cond.nbodies != old->nbodies)
        return refuse(
            u, grGraphExecUpdateErrorNotSupported, gn, NULL,
            "%s is a %s node of %u bodies, the node it pairs with a %s node of %u; an update cannot "
            "change a conditional node's type or bodies, as in CUDA",
            gr__node_label(gn), gr__cond_type_name(gn->p.cond.type), gn->p.cond.nbodies,
            gr__cond_type_name((grGraphConditionalNodeType)old->type), old->nbodies);
    if (u->nconds == u->capconds) {
        size_t ncap = u->capconds ? 2 * u->capconds : 4;
        struct cond_swap *nc = gr__realloc(u->conds, ncap * sizeof *nc);
        if (!nc)
            return oom(u);
        u->conds = nc;
        u->capconds = ncap;
    }
    grError_t err = gr__exec_cond_build_for("grGraphExecUpdate", gn, 1, &fresh);
    if (err == grErrorMemoryAllocation)
        return oom(u);
    if (err != grSuccess)
        return refuse(u, grGraphExecUpdateErrorNotSupported, gn, NULL, "%s", grGetLastErrorDetail());
    /* CUDA names no node for a body's topology. */
    if (!gr__exec_cond_same_shape(old, fresh, why, sizeof why)) {
        gr__exec_cond_free(fresh);
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL, "%s: %s", gr__node_label(gn),
                      why);
    }
    /* A spanning executable's parts hold its handles: span.c checks them
     * against the parts'. */
    if (u->exec->span == NULL && !gr__exec_cond_slots_available(&u->exec->plan, fresh)) {
        gr__exec_cond_free(fresh);
        return refuse(
            u, grGraphExecUpdateErrorNotSupported, gn, NULL,
            "%s: a conditional handle of its graph is used by another executable (one at a time, as "
            "in CUDA)",
            gr__node_label(gn));
    }
    u->conds[u->nconds++] = (struct cond_swap){pn, fresh};
    return true;
}

/* Swaps in the bodies check_conditional built, and the handles they use
 * (u->slots, allocated before anything changed). */
static void install_conds(upd *u)
{
    if (!u->nconds)
        return;
    for (size_t i = 0; i < u->nconds; i++) {
        gr__exec_cond_keep_nodes(u->conds[i].fresh, u->conds[i].pn->u.cond);
        gr__exec_cond_free(u->conds[i].pn->u.cond);
        u->conds[i].pn->u.cond = u->conds[i].fresh;
    }
    u->nconds = 0;
    /* A spanning executable's parts hold the handles (span.c): its own
     * plan claims none, and upd_free frees the list. */
    if (u->exec->span != NULL)
        return;
    gr__exec_cond_slots_replace(&u->exec->plan, u->slots);
    u->slots = NULL;
}

static bool params_differ(const gr_pnode *pn, grGraphNode_t gn);

/* Checks that graph node 'gn' may update plan node 'pn' (same type checked
 * by the caller); allocates what applying it will need. */
static bool check_params(upd *u, gr_pnode *pn, grGraphNode_t gn)
{
    switch (gn->type) {
    case grGraphNodeTypeKernel:
        /* CUDA 12 applies function changes; its refusals (other context,
         * CDP, cooperative, device-side launch) cannot arise here. */
        if (!gr__kernel_same_layout(gn->p.kernel.kernel, pn->u.kern.k))
            return add_block(u, pn, gn->p.kernel.kernel);
        return true;
    case grGraphNodeTypeMemcpy: {
        const gr_memcpy_node *c = &gn->p.memcpy;
        if (gr__mem_is_device(c->dst) != pn->u.copy.dst_device)
            return refuse(u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                          "%s copies to %p, %s memory, where its paired node copies to %s memory (%p); as in "
                          "CUDA, an update cannot change a copy's memory types (instantiate a new executable "
                          "instead)",
                          gr__node_label(gn), c->dst, pn->u.copy.dst_device ? "host" : "device",
                          pn->u.copy.dst_device ? "device" : "host", pn->u.copy.p.dst);
        if (gr__mem_is_device(c->src) != pn->u.copy.src_device)
            return refuse(
                u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                "%s copies from %p, %s memory, where its paired node copies from %s memory (%p); as "
                "in CUDA, an update cannot change a copy's memory types (instantiate a new executable "
                "instead)",
                gr__node_label(gn), GR_PTR(c->src), pn->u.copy.src_device ? "host" : "device",
                pn->u.copy.src_device ? "device" : "host", GR_PTR(pn->u.copy.p.src));
        /* CUDA 13 refuses every change to a 2D or 3D copy, and a change
         * between 1D and 2D or 3D (tests/probes/m3d.cu): only 1D copies
         * change in an update. */
        bool multi = gr__memcpy_node_multidim(c);
        if (GR_UNLIKELY(multi || pn->u.copy.pitched) && params_differ(pn, gn))
            return refuse(
                u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                "%s makes another copy than its paired node, and one of them is 2D or 3D; as in CUDA "
                "13, an update changes 1D copies only (instantiate a new executable instead)",
                gr__node_label(gn));
        /* Checked when the node got them; allocations may have changed. */
        if (GR_UNLIKELY(c->shape != NULL && !c->shape->linear)) {
            /* A region fits where its span does (memory/region.c). The
             * plan node is the same 2D or 3D copy (any other is refused
             * above), so it has the slot its layout goes back into. */
            gr_region d, r;
            gr__region_of_shape(&d, c->dst, &c->shape->shape, true);
            gr__region_of_shape(&r, c->src, &c->shape->shape, false);
            if (!range_fits(u, gn, d.base, gr__region_span(&d), "destination region") ||
                !range_fits(u, gn, r.base, gr__region_span(&r), "source region"))
                return false;
            return true;
        }
        return range_fits(u, gn, c->dst, c->count, "destination") &&
               range_fits(u, gn, c->src, c->count, "source");
    }
    case grGraphNodeTypeMemset: {
        const grMemsetParams *o = &pn->u.memset, *m = &gn->p.memset;
        if (!gr__memset_shape_ok(o, m))
            return refuse(
                u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                "%s sets %zu x %zu elements of %u bytes (pitch %zu) where its paired node sets %zu x %zu "
                "of %u bytes (pitch %zu); as in CUDA, an update of a 2D memset may change only its "
                "address and value",
                gr__node_label(gn), m->width, m->height, m->elementSize, m->pitch, o->width, o->height,
                o->elementSize, o->pitch);
        return range_fits(u, gn, m->dst, gr__memset_span(m), "destination");
    }
    case grGraphNodeTypeHost:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeGraph: /* checked by the caller, node by node */
        return true;
    case grGraphNodeTypeConditional:
        return check_conditional(u, pn, gn);
    case grGraphNodeTypeBatchMemOp: {
        int bad = gr__exec_memop_mismatch(pn, gn->p.memop.count, gn->p.memop.ops);
        if (bad == -2)
            return refuse(u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                          "%s holds %u operations where its paired node holds %u; as in CUDA, an update "
                          "cannot change a batch memory operation node's count",
                          gr__node_label(gn), gn->p.memop.count, pn->u.memop.count);
        if (bad >= 0)
            return refuse(u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                          "%s: operation %d is a %s where its paired node's is a %s; as in CUDA, an update "
                          "cannot change the type of an operation",
                          gr__node_label(gn), bad, gr__memop_op_name((int)gn->p.memop.ops[bad].operation),
                          gr__memop_op_name((int)pn->u.memop.ops[bad].operation));
        return true;
    }
    case grGraphNodeTypeCollective:
        /* Another operation or communicator is another collective, which
         * the other ranks' sequences do not hold: refused as CUDA refuses
         * a changed node kind. */
        if (gn->p.coll.op != pn->u.coll->p.op || gn->p.coll.comm != pn->u.coll->p.comm)
            return refuse(
                u, grGraphExecUpdateErrorParametersChanged, gn, NULL,
                "%s is a %s on communicator %p where its paired node is a %s on communicator %p; an "
                "update cannot change a collective node's operation or communicator",
                gr__node_label(gn), gr__coll_op_name(gn->p.coll.op), GR_PTR(gn->p.coll.comm),
                gr__coll_op_name(pn->u.coll->p.op), GR_PTR(pn->u.coll->p.comm));
        return true;
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
        /* Updated as CUDA 13 does (tests/probes/memory.cu), size included:
         * the plan holds nothing of them, the executable's graph memory
         * record is replaced (gr__graphmem_update_prepare). */
        return true;
    case grGraphNodeTypeCount:
        break;
    }
    return refuse(u, grGraphExecUpdateErrorNotSupported, gn, NULL, "%s: %s nodes cannot be updated",
                  gr__node_label(gn), gr__node_type_name(gn->type));
}

/* Installs the argument blocks allocated while checking: each node gets
 * the block laid out for its new kernel and that kernel, so that
 * gr__pnode_set_kernel then finds the layout unchanged and copies the
 * values in place instead of allocating. */
static void install_blocks(upd *u)
{
    for (size_t i = 0; i < u->nblocks; i++) {
        gr_pnode *pn = u->blocks[i].pn;
        if (u->gpu_changed)
            u->gpu_changed[pn->index] = 1; /* a new kernel layout */
        if (pn->own_args)
            gr__free(pn->u.kern.argv);
        pn->u.kern.argv = u->blocks[i].argv;
        pn->own_args = 1;
        gr__kernel_retain(u->blocks[i].k);
        gr__kernel_release(pn->u.kern.k);
        pn->u.kern.k = u->blocks[i].k;
    }
    u->nblocks = 0;
}

/* Writes graph node 'gn' into plan node 'pn'. Cannot fail once
 * install_blocks has run. */
static void apply_params(const upd *u, gr_pnode *pn, grGraphNode_t gn)
{
    switch (gn->type) {
    case grGraphNodeTypeKernel: {
        bool ok = gr__pnode_set_kernel(pn, &gn->p.kernel);
        gr_assert(ok);
        (void)ok;
        return;
    }
    case grGraphNodeTypeMemcpy: {
        const gr_memcpy_node *m = &gn->p.memcpy;
        gr__pnode_set_copy(pn, &(gr_memcpy_params){m->dst, m->src, m->count, m->kind},
                           m->shape && !m->shape->linear ? &m->shape->shape : NULL);
        return;
    }
    case grGraphNodeTypeMemset:
        pn->u.memset = gn->p.memset;
        return;
    case grGraphNodeTypeHost:
        pn->u.host = gn->p.host;
        return;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        if (pn->u.event != gn->p.event) {
            gr__event_retain(gn->p.event);
            gr__event_release(pn->u.event);
            pn->u.event = gn->p.event;
        }
        return;
    case grGraphNodeTypeBatchMemOp: /* same count, checked: in place */
        memcpy(pn->u.memop.ops, gn->p.memop.ops, gn->p.memop.count * sizeof *gn->p.memop.ops);
        return;
    case grGraphNodeTypeCollective: /* same op and communicator, checked */
        /* A spanning executable's part holds the node's request (span.c):
         * its own plan keeps the values only. */
        if (u->exec->span != NULL)
            pn->u.coll->p = gn->p.coll;
        else
            gr__exec_coll_apply(pn, &gn->p.coll);
        return;
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeConditional: /* install_conds swapped its bodies in */
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeCount:
        return;
    }
}

/* ------------------------------------------------------------- on a GPU */

/* What the executable's device refuses of graph node gn's parameters
 * (and, for a child graph, of its nodes'), checked before anything
 * changes: memory the device cannot reach (exec/devmem.c), and on a GPU
 * what the lowering refuses (a kernel without an image, an event of
 * another device). */
static grError_t device_check(const char *call, grGraphExec_t e, grGraphNode_t gn)
{
    grError_t err = grSuccess;
    int device = gr__exec_device(e);
    switch (gn->type) {
    case grGraphNodeTypeKernel:
        if ((err = gr__exec_check_node_devmem(call, gn, device)))
            return err;
        if (!e->gpu && gr__node_cooperative(gn) &&
            (err = gr__kernel_check_coop(call, gn->p.kernel.kernel, &gn->p.kernel.grid)))
            return err;
        return e->gpu ? gr__devkind()->exec_check_kernel(call, e->gpu, gn->p.kernel.kernel) : grSuccess;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        return e->gpu ? gr__devkind()->exec_check_event(call, e->gpu, gn->p.event) : grSuccess;
    case grGraphNodeTypeGraph:
        for (struct grGraphNode_st *v = gn->p.child->first; v && !err; v = v->next)
            err = device_check(call, e, v);
        return err;
    case grGraphNodeTypeMemcpy:
    case grGraphNodeTypeMemset:
    case grGraphNodeTypeBatchMemOp:
        return gr__exec_check_node_devmem(call, gn, device);
    case grGraphNodeTypeConditional:
        for (unsigned b = 0; b < gn->p.cond.nbodies && !err; b++)
            for (struct grGraphNode_st *v = gn->p.cond.bodies[b]->first; v && !err; v = v->next)
                err = device_check(call, e, v);
        return err;
    case grGraphNodeTypeHost:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeCollective: /* same communicator, so of the device: checked */
    case grGraphNodeTypeCount:
        return grSuccess;
    }
    return grSuccess;
}

grError_t gr__exec_update_device_check(const char *call, grGraphExec_t e, grGraphNode_t gn)
{
    return device_check(call, e, gn);
}

/* Whether device_check has anything to check. A spanning executable's
 * nodes are checked by their parts' devices (span.c). */
static bool device_checks_apply(grGraphExec_t e)
{
    return (e->gpu != NULL || gr__gpu_active()) && e->span == NULL;
}

/* Applies plan nodes [from, to) as they are now to the driver's
 * executable, after the plan was written. The driver refuses nothing that
 * device_check and the exec layer's checks passed but for lack of resources;
 * such a failure is reported, and the plan and the driver's executable
 * then differ until the next successful update or set-params. */
static grError_t gpu_sync(const char *call, upd *u, uint32_t from, uint32_t to)
{
    grGraphExec_t e = u->exec;
    return gr__devkind()->exec_sync_range(call, e->gpu, &e->plan, from, to, u->gpu_changed);
}

/* True when applying graph node gn would change plan node pn (before
 * apply_params writes it): what a GPU executable's driver must be told. */
static bool params_differ(const gr_pnode *pn, grGraphNode_t gn)
{
    switch (gn->type) {
    case grGraphNodeTypeKernel: {
        const gr_kernel_params *kp = &gn->p.kernel;
        grKernel_t k = kp->kernel;
        if (k != pn->u.kern.k || kp->shmem != pn->shmem ||
            memcmp(&kp->grid, &pn->u.kern.grid, sizeof kp->grid) != 0 ||
            memcmp(&kp->block, &pn->u.kern.block, sizeof kp->block) != 0)
            return true;
        return k->nparams && memcmp(pn->u.kern.argv[0], kp->argbuf, k->argbytes) != 0;
    }
    case grGraphNodeTypeMemcpy: {
        const gr_copy_shape *a = gr__pnode_copy_shape(pn);
        const gr_copy3d *b = gn->p.memcpy.shape;
        const gr_copy_shape *bs = b && !b->linear ? &b->shape : NULL;
        if (pn->u.copy.p.dst != gn->p.memcpy.dst || pn->u.copy.p.src != gn->p.memcpy.src ||
            pn->u.copy.p.count != gn->p.memcpy.count || (a == NULL) != (bs == NULL))
            return true;
        return a && memcmp(a, bs, sizeof *a) != 0;
    }
    case grGraphNodeTypeMemset: {
        const grMemsetParams *a = &pn->u.memset, *b = &gn->p.memset;
        return a->dst != b->dst || a->pitch != b->pitch || a->value != b->value ||
               a->elementSize != b->elementSize || a->width != b->width || a->height != b->height;
    }
    case grGraphNodeTypeHost:
        return pn->u.host.fn != gn->p.host.fn || pn->u.host.userData != gn->p.host.userData;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        return pn->u.event != gn->p.event;
    case grGraphNodeTypeConditional: /* its bodies were compiled again: applied whole */
        return true;
    case grGraphNodeTypeCollective: /* its NCCL call captured again */
        return memcmp(&pn->u.coll->p, &gn->p.coll, sizeof gn->p.coll) != 0;
    case grGraphNodeTypeBatchMemOp: /* the same count, checked */
        return memcmp(pn->u.memop.ops, gn->p.memop.ops, gn->p.memop.count * sizeof *gn->p.memop.ops) != 0;
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeCount:
        return false;
    }
    return false;
}

/* apply_params, noting for a GPU executable whether the node changed. */
static void apply(upd *u, gr_pnode *pn, grGraphNode_t gn)
{
    if (u->gpu_changed)
        u->gpu_changed[pn->index] |= (uint8_t)params_differ(pn, gn);
    apply_params(u, pn, gn);
}

/* ---------------------------------------------------------- child graphs */

static uint32_t scratch_in(const struct grGraphNode_st *n)
{
    return (uint32_t)(n->scratch >> 32);
}
static uint32_t scratch_out(const struct grGraphNode_st *n)
{
    return (uint32_t)n->scratch;
}

/* Names the owner of a child graph in sentences; NULL is the node of
 * grGraphExecChildGraphNodeSetParams. */
static const char *owner_label(grGraphNode_t owner)
{
    return owner ? gr__node_label(owner) : "the node";
}

/* Marks the successors of plan node 'from' with a fresh stamp, so that
 * 'stamped' answers "is there an edge from -> to" in O(1). */
static void stamp_succs(upd *u, uint32_t from)
{
    const gr_plan *p = &u->exec->plan;
    const gr_pnode *pn = &p->nodes[from];
    u->next_stamp++;
    for (uint32_t i = pn->succ_begin; i < pn->succ_end; i++)
        u->stamp[p->succ[i]] = u->next_stamp;
}

static bool stamped(const upd *u, uint32_t to)
{
    return u->stamp[to] == u->next_stamp;
}

/* Compares the edges of child graph c (whose nodes carry their plan 'in'
 * and 'out' nodes in scratch) with the plan's edges between its 'enter'
 * and 'leave' nodes. With the nodes paired one to one, equal predecessor
 * counts and every expected edge present mean equal edge sets. */
static bool check_child_edges(upd *u, grGraph_t c, uint32_t enter, uint32_t leave, grGraphNode_t owner)
{
    const gr_count *count = u->exec->plan.count;
    size_t nsinks = 0;
    if (!u->stamp) {
        u->stamp = gr__calloc(u->exec->plan.nnodes, sizeof *u->stamp);
        if (!u->stamp)
            return oom(u);
    }
    for (struct grGraphNode_st *v = c->first; v; v = v->next) {
        size_t want = v->ndeps ? v->ndeps : 1; /* a root follows 'enter' */
        if (count[scratch_in(v)].npred != want)
            return refuse(
                u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                "%s in the child graph of %s has %zu dependencies, the node it pairs with has another "
                "number",
                gr__node_label(v), owner_label(owner), v->ndeps);
        if (v->nsuccs == 0)
            nsinks++;
    }
    if (count[leave].npred != (nsinks ? nsinks : 1))
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                      "the child graph of %s has %zu sink nodes, the graph it pairs with %u",
                      owner_label(owner), nsinks, count[leave].npred);
    stamp_succs(u, enter);
    if (c->nnodes == 0 && !stamped(u, leave))
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                      "the child graph of %s is empty, the graph it pairs with is not", owner_label(owner));
    for (struct grGraphNode_st *v = c->first; v; v = v->next)
        if (v->ndeps == 0 && !stamped(u, scratch_in(v)))
            return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                          "%s is a root of the child graph of %s, the node it pairs with is not",
                          gr__node_label(v), owner_label(owner));
    for (struct grGraphNode_st *v = c->first; v; v = v->next) {
        stamp_succs(u, scratch_out(v));
        if (v->nsuccs == 0 && !stamped(u, leave))
            return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                          "%s is a sink of the child graph of %s, the node it pairs with is not",
                          gr__node_label(v), owner_label(owner));
        for (size_t k = 0; k < v->nsuccs; k++)
            if (!stamped(u, scratch_in(v->succs[k])))
                return refuse(
                    u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                    "the edge %s -> %s in the child graph of %s has no counterpart in the executable",
                    gr__node_label(v), gr__node_label(v->succs[k]), owner_label(owner));
    }
    return true;
}

/*
 * Pairs the nodes of child graph c (of node 'owner' of the new graph) with
 * the plan nodes from *cursor on, in the topological order instantiate
 * emitted them, and checks types and parameters; nested child graphs are
 * paired and their edges checked here too. The nodes may use plan nodes
 * below 'end' only. On success *cursor is past c's nodes (at its 'leave'
 * node) and each node's scratch holds its plan 'in' node (high half) and
 * 'out' node (low half), as instantiate's flatten records them.
 */
static bool pair_child(upd *u, grGraph_t c, grGraphNode_t owner, uint32_t *cursor, uint32_t end, int depth)
{
    gr_plan *p = &u->exec->plan;
    struct grGraphNode_st *stackbuf[32], **order = stackbuf;
    bool ok = true;
    if (depth > (int)GR_GRAPH_MAX_NEST)
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                      "the child graphs of %s nest deeper than those of the executable", owner_label(owner));
    if (c->nnodes > 32) {
        order = gr__malloc(c->nnodes * sizeof *order);
        if (!order)
            return oom(u);
    }
    if (GR_NEVER(!gr__graph_topo_sort(c, order)))
        ok = refuse(u, grGraphExecUpdateError, owner, NULL, "the child graph of %s has a cycle",
                    owner_label(owner));
    for (size_t i = 0; i < c->nnodes && ok; i++) {
        struct grGraphNode_st *v = order[i];
        uint32_t in = *cursor;
        if (in >= end) {
            ok = refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                        "the child graph of %s has more nodes than the graph it pairs with",
                        owner_label(owner));
        } else if (v->type == grGraphNodeTypeGraph) {
            /* Inlined as 'enter', the child's nodes, 'leave'. */
            if (p->nodes[in].type != grGraphNodeTypeEmpty) {
                ok =
                    refuse(u, grGraphExecUpdateErrorNodeTypeChanged, v, NULL,
                           "%s in the child graph of %s pairs with a %s node; node types cannot change in an "
                           "update",
                           gr__node_label(v), owner_label(owner),
                           gr__node_type_name((grGraphNodeType)p->nodes[in].type));
                break;
            }
            (*cursor)++;
            if (!pair_child(u, v->p.child, v, cursor, end, depth + 1)) {
                ok = false;
                break;
            }
            if (*cursor >= end || p->nodes[*cursor].type != grGraphNodeTypeEmpty) {
                ok = refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                            "the child graph of %s has more nodes than the graph it pairs with",
                            gr__node_label(v));
                break;
            }
            ok = check_child_edges(u, v->p.child, in, *cursor, v);
            v->scratch = ((uint64_t)in << 32) | (*cursor)++;
        } else if (p->nodes[in].type != (uint8_t)v->type) {
            ok = refuse(
                u, grGraphExecUpdateErrorNodeTypeChanged, v, NULL,
                "%s in the child graph of %s pairs with a %s node; node types cannot change in an update",
                gr__node_label(v), owner_label(owner),
                gr__node_type_name((grGraphNodeType)p->nodes[in].type));
        } else {
            ok = check_params(u, &p->nodes[in], v);
            v->scratch = ((uint64_t)in << 32) | in;
            (*cursor)++;
        }
    }
    if (order != stackbuf)
        gr__free(order);
    return ok;
}

/* Pairs child graph c with the inlined nodes of top-level orig node o. */
static bool pair_child_top(upd *u, grGraph_t c, grGraphNode_t owner, const gr_orig *o)
{
    uint32_t cursor = o->pindex + 1, end = o->pindex + 1 + o->child_count;
    if (!pair_child(u, c, owner, &cursor, end, 1))
        return false;
    if (cursor != end)
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                      "the child graph of %s has fewer nodes than the graph it pairs with",
                      owner_label(owner));
    return check_child_edges(u, c, o->pindex, end, owner);
}

/* Writes the parameters of child graph c's nodes into the plan. */
static void apply_child(upd *u, grGraph_t c)
{
    for (struct grGraphNode_st *v = c->first; v; v = v->next) {
        if (v->type == grGraphNodeTypeGraph)
            apply_child(u, v->p.child);
        else
            apply(u, &u->exec->plan.nodes[scratch_in(v)], v);
    }
}

/* Gives a GPU executable's kernel node at plan node i the launch
 * attributes of graph node gn, which the update brings (the device keeps
 * them where they are unchanged). */
static grError_t gpu_kattrs(const char *call, upd *u, uint32_t i, const struct grGraphNode_st *gn)
{
    grLaunchAttribute a[GR_ATTR_IDS];
    unsigned n = 0;
    memset(a, 0, sizeof a);
    for (unsigned id = 0; gn->kattrs && id < GR_ATTR_IDS; id++)
        if (gn->kattrs->set & (1u << id)) {
            a[n].id = (grLaunchAttributeID)id;
            a[n++].val = gn->kattrs->v[id];
        }
    return gr__devkind()->exec_set_kattrs(call, u->exec->gpu, &u->exec->plan, i, a, n);
}

/* gpu_kattrs for the kernel nodes of child graph c, at any depth (their
 * plan nodes in their scratch, as apply_child reads them). */
static grError_t gpu_kattrs_child(const char *call, upd *u, grGraph_t c)
{
    grError_t err = grSuccess;
    for (struct grGraphNode_st *v = c->first; v && !err; v = v->next) {
        if (v->type == grGraphNodeTypeGraph)
            err = gpu_kattrs_child(call, u, v->p.child);
        else if (v->type == grGraphNodeTypeKernel)
            err = gpu_kattrs(call, u, scratch_in(v), v);
    }
    return err;
}

/* ------------------------------------------------------------ top level */

/* True if edge nd -> n of g (dependency j of n) has the data of
 * dependency j of orig node o. */
static bool same_edge_data(grGraphExec_t e, grGraph_t g, uint32_t o, size_t j,
                           const struct grGraphNode_st *nd, const struct grGraphNode_st *n)
{
    grGraphEdgeData now = gr__edge_data_of(g, nd, n), then = {0};
    for (uint32_t k = 0; k < e->norig_notes; k++)
        if (e->orig_notes[k].to == o && e->orig_notes[k].dep == j)
            then = e->orig_notes[k].data;
    return memcmp(&now, &then, sizeof now) == 0;
}

static int sink_later_first(const void *a, const void *b)
{
    uint64_t x = (*(struct grGraphNode_st *const *)a)->sink_seq;
    uint64_t y = (*(struct grGraphNode_st *const *)b)->sink_seq;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Lists g's nodes in u->list (creation order, scratch cleared) and its
 * sinks in u->sinks, latest sink first; returns the number of sinks. */
static uint32_t list_nodes(upd *u, grGraph_t g)
{
    struct grGraphNode_st *n;
    uint32_t nsinks = 0;
    uint64_t last_sink_seq = 0;
    bool sinks_in_creation_order = true;
    /* The slab walk visits the list's order without its dependent loads. */
    uint32_t k = 0;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        n->scratch = 0;
        u->list[k++] = n;
        if (n->nsuccs == 0) {
            sinks_in_creation_order &= nsinks == 0 || n->sink_seq > last_sink_seq;
            last_sink_seq = n->sink_seq;
            u->sinks[nsinks++] = n;
        }
    }
    /* Latest sink first: the creation order reversed, unless an edge
     * removal or a node destruction made a sink. */
    if (GR_LIKELY(sinks_in_creation_order)) {
        for (uint32_t i = 0; i < nsinks / 2; i++) {
            n = u->sinks[i];
            u->sinks[i] = u->sinks[nsinks - 1 - i];
            u->sinks[nsinks - 1 - i] = n;
        }
    } else {
        qsort(u->sinks, nsinks, sizeof *u->sinks, sink_later_first);
    }
    return nsinks;
}

/* Pairs the nodes of g with the executable's nodes by CUDA's rule and
 * compares the topologies; leaves in each node's scratch its orig index
 * plus one. The rule, measured on CUDA 13 (tests/data/update-pairing-*):
 *   1. the node counts must be equal (else no node is named);
 *   2. the sinks of both graphs, each in the order of the time it last
 *      became a sink, latest first (graph.h), must be as many; where g has
 *      more, the first of g's sinks beyond the executable's count is named;
 *      where fewer, none;
 *   3. the i-th sinks pair; then, breadth first from the sink pairs in
 *      that order, the two nodes of each pair must have as many
 *      dependencies (else the node of g is named), and their dependencies
 *      pair position by position, a dependency already paired with
 *      another node being a mismatch (the node and that dependency of g
 *      are named). */
static bool pair_top(upd *u, grGraph_t g)
{
    grGraphExec_t e = u->exec;
    struct grGraphNode_st *n;
    uint32_t head = 0, tail = 0, npaired = 0, nsinks;
    if (g->nnodes != e->norig)
        return refuse(
            u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
            "graph %p has %zu nodes, the graph executable %p was instantiated from had %u; an update "
            "needs the same topology (instantiate a new executable instead)",
            GR_PTR(g), g->nnodes, GR_PTR(e), e->norig);
    nsinks = list_nodes(u, g);
    if (nsinks > e->norig_sinks)
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, u->sinks[e->norig_sinks], NULL,
                      "graph %p has %u sink nodes (nodes without dependents), the graph executable %p was "
                      "instantiated from had %u; %s is the first sink without a counterpart (sinks pair "
                      "from the one that became a sink last)",
                      GR_PTR(g), nsinks, GR_PTR(e), e->norig_sinks, gr__node_label(u->sinks[e->norig_sinks]));
    if (nsinks < e->norig_sinks)
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                      "graph %p has %u sink nodes (nodes without dependents), the graph executable %p was "
                      "instantiated from had %u; an update needs the same topology",
                      GR_PTR(g), nsinks, GR_PTR(e), e->norig_sinks);
    for (uint32_t i = 0; i < e->norig; i++)
        u->pair_o[i] = NULL;
    for (uint32_t i = 0; i < nsinks; i++) {
        uint32_t o = e->orig_sinks[i];
        n = u->sinks[i];
        u->pair_o[o] = n;
        n->scratch = (uint64_t)o + 1;
        u->queue[tail++] = o;
        npaired++;
    }
    /* Then, breadth first, each pair's dependencies in list order. */
    while (head < tail) {
        uint32_t o = u->queue[head++];
        const gr_orig *og = &e->orig[o];
        n = u->pair_o[o];
        if (n->ndeps != gr__orig_dep_end(og) - og->dep_begin)
            return refuse(u, grGraphExecUpdateErrorTopologyChanged, n, NULL,
                          "%s has %zu dependencies, the node it pairs with had %u", gr__node_label(n),
                          n->ndeps, gr__orig_dep_end(og) - og->dep_begin);
        for (size_t j = 0; j < n->ndeps; j++) {
            struct grGraphNode_st *nd = n->deps[j];
            uint32_t od = e->orig_deps[og->dep_begin + j];
            if (GR_UNLIKELY(g->nnotes || e->norig_notes) && !same_edge_data(e, g, o, j, nd, n))
                return refuse(u, grGraphExecUpdateErrorTopologyChanged, n, nd,
                              "the edge %s -> %s (dependency %zu) has other edge data than the edge it pairs "
                              "with; edges pair only with edges of the same type and ports",
                              gr__node_label(nd), gr__node_label(n), j);
            if (nd->scratch == 0 && u->pair_o[od] == NULL) {
                u->pair_o[od] = nd;
                nd->scratch = (uint64_t)od + 1;
                u->queue[tail++] = od;
                npaired++;
            } else if (nd->scratch != (uint64_t)od + 1) {
                return refuse(
                    u, grGraphExecUpdateErrorTopologyChanged, n, nd,
                    "dependency %zu of %s is %s, which does not match dependency %zu of the node it pairs "
                    "with (nodes pair from the sinks, latest sink first, then by dependency order)",
                    j, gr__node_label(n), gr__node_label(nd), j);
            }
        }
    }
    /* Every node of g leads to a sink and all sinks of g are paired, so
     * the walk reaches every node. */
    if (GR_NEVER(npaired != e->norig))
        return refuse(u, grGraphExecUpdateErrorTopologyChanged, NULL, NULL,
                      "graph %p does not have the topology of the graph executable %p was instantiated from",
                      GR_PTR(g), GR_PTR(e));
    return true;
}

/* CUDA's rules on a kernel node's attributes in an update: cooperative
 * cannot change, nor, in an executable instantiated with
 * grGraphInstantiateFlagUseNodePriority, the priority as requested. The
 * others are taken (on the CPU they change nothing). */
static bool same_attrs(upd *u, grGraphNode_t n, uint64_t o)
{
    grGraphExec_t e = u->exec;
    if (GR_LIKELY(!n->kattrs && e->norig_attrs == 0))
        return true; /* neither cooperative nor of a priority, before or now */
    gr_orig_attr was = {(uint32_t)o, 0, 0};
    uint32_t lo = 0, hi = e->norig_attrs; /* in orig order: a binary search */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->orig_attrs[mid].orig < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < e->norig_attrs && e->orig_attrs[lo].orig == o)
        was = e->orig_attrs[lo];
    if (gr__node_cooperative(n) != was.cooperative)
        return refuse(u, grGraphExecUpdateErrorAttributesChanged, n, NULL,
                      "%s is %scooperative and the node it pairs with was %s; a kernel node cannot change "
                      "between cooperative and not in an update (as in CUDA)",
                      gr__node_label(n), gr__node_cooperative(n) ? "" : "not ",
                      was.cooperative ? "cooperative" : "not");
    if ((e->flags & grGraphInstantiateFlagUseNodePriority) && gr__node_priority(n) != was.priority)
        return refuse(u, grGraphExecUpdateErrorAttributesChanged, n, NULL,
                      "%s has priority %d and the node it pairs with %d; an executable instantiated with "
                      "grGraphInstantiateFlagUseNodePriority keeps its nodes' priorities (as in CUDA)",
                      gr__node_label(n), gr__node_priority(n), was.priority);
    return true;
}

/* Checks every pair of a whole-graph update: types, parameters, child
 * graphs (in g's creation order, so the first node at fault is named). */
static bool check_top(upd *u)
{
    grGraphExec_t e = u->exec;
    for (uint32_t i = 0; i < e->norig; i++) {
        struct grGraphNode_st *n = u->list[i];
        const gr_orig *o = &e->orig[n->scratch - 1];
        if (n->type != o->type)
            return refuse(u, grGraphExecUpdateErrorNodeTypeChanged, n, NULL,
                          "%s pairs with a %s node; node types cannot change in an update", gr__node_label(n),
                          gr__node_type_name(o->type));
        if (n->type == grGraphNodeTypeKernel && !same_attrs(u, n, n->scratch - 1))
            return false;
        if (n->type == grGraphNodeTypeGraph) {
            if (!pair_child_top(u, n->p.child, n, o))
                return false;
        } else if (!check_params(u, &e->plan.nodes[o->pindex], n)) {
            return false;
        }
    }
    return true;
}

/* The re-capture path (graph.h, edits): when g's last change was a
 * re-capture, e holds the values of g at the edit stamp that re-capture
 * began from (or at g's stamp now), and no other change of e came since,
 * only the nodes the re-capture listed can differ: they are checked and
 * written as the full path would, and no other node is read. Returns 0
 * where it does not apply (then the full path runs, with u as it found
 * it), 1 when done, -1 when refused (u->result and the detail set), -2
 * on a device check's error (*err, the detail set). On the CPU only (not
 * a spanning executable, whose parts hold the values), without graph
 * memory or user objects. */
static int update_listed(const char *call, upd *u, grGraph_t g, grError_t *err)
{
    grGraphExec_t e = u->exec;
    size_t k;
    /* g's last change was a re-capture, which matched every node with a
     * captured operation: g holds no child graph or conditional node
     * (whose bodies change without moving g's stamp), and neither does e,
     * whose nodes are g's. */
    if (e->src_uid != g->uid || e->writes != e->sync_writes + 1 || g->recap_edits == 0 ||
        g->recap_edits != g->edits)
        return 0;
    if (e->sync_edits == g->edits)
        k = 0; /* updated from g since */
    else if (e->sync_edits == g->recap_base)
        k = g->recap_ndirty;
    else
        return 0;
    if (e->gpu || e->span || (e->flags & GR_EXEC_GRAPHMEM) || e->urefs || g->urefs.n)
        return 0;
    /* The lookups first (the table may have to be built): a failure
     * leaves nothing to undo. */
    for (size_t i = 0; i < k; i++) {
        struct grGraphNode_st *n = g->recap_dirty[i];
        uint32_t o = gr__exec_find(e, n);
        if (o == UINT32_MAX || e->orig[o].type != n->type)
            return 0;
        n->scratch = (uint64_t)o + 1;
    }
    for (size_t i = 0; i < k; i++) {
        struct grGraphNode_st *n = g->recap_dirty[i];
        uint32_t o = (uint32_t)(n->scratch - 1);
        if (n->type == grGraphNodeTypeKernel && !same_attrs(u, n, o))
            return -1;
        if (!check_params(u, &e->plan.nodes[e->orig[o].pindex], n))
            return -1;
    }
    /* A CPU executable where GPUs are in use: the memory its changed
     * nodes reach, as the full path checks every node's. */
    for (size_t i = 0; i < k && device_checks_apply(e); i++)
        if ((*err = device_check(call, e, g->recap_dirty[i])))
            return -2;
    install_blocks(u);
    for (size_t i = 0; i < k; i++) {
        struct grGraphNode_st *n = g->recap_dirty[i];
        apply(u, &e->plan.nodes[e->orig[n->scratch - 1].pindex], n);
    }
    /* note_new_values without its walk: a re-captured graph holds no
     * child graph, so its own birth is the oldest of its values'. */
    if (k && g->born_gen < e->baked_gen)
        e->baked_gen = g->born_gen;
    if (k)
        gr_store_relaxed(&e->plan.range_gen, 0);
    return 1;
}

static void upd_free(upd *u)
{
    gr__free(u->gpu_changed);
    for (size_t i = 0; i < u->nblocks; i++)
        gr__free(u->blocks[i].argv);
    gr__free(u->blocks);
    for (size_t i = 0; i < u->nconds; i++)
        gr__exec_cond_free(u->conds[i].fresh);
    gr__free(u->conds);
    gr__free(u->slots);
    gr__free(u->stamp);
}

/* After e's nodes took values from g: the next launch checks the copy and
 * memset ranges again (graph memory mapped or not), and the debug check
 * of baked addresses counts frees from when the oldest of g's graphs was
 * made. */
static void note_new_values(grGraphExec_t e, grGraph_t g)
{
    uint64_t born = gr__exec_graph_born(g);
    if (born < e->baked_gen)
        e->baked_gen = born;
    gr_store_relaxed(&e->plan.range_gen, 0);
}

/* The arguments of grGraphExecUpdate, checked before the executable is
 * locked; resultInfo (when given) starts as a plain error. */
static grError_t check_update_args(const char *call, grGraphExec_t hGraphExec, grGraph_t hGraph,
                                   grGraphExecUpdateResultInfo *resultInfo)
{
    grError_t err;
    if (!resultInfo)
        return gr__fail(grErrorInvalidValue, "%s: 'resultInfo' (the output pointer) is NULL", call);
    resultInfo->result = grGraphExecUpdateError;
    resultInfo->errorNode = NULL;
    resultInfo->errorFromNode = NULL;
    if ((err = gr__exec_check(call, hGraphExec)) || (err = gr__graph_check(call, hGraph)))
        return err;
    if (hGraph->moved)
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p was moved into %s (grGraphChildGraphOwnershipMove) and cannot be the "
                        "argument of an update, as CUDA documents; update from the graph holding the node",
                        call, GR_PTR(hGraph), gr__node_label(hGraph->owner));
    if (hGraphExec->devupd != NULL || gr__graph_has_devupd(hGraph)) {
        resultInfo->result = grGraphExecUpdateErrorNotSupported;
        return gr__fail(grErrorGraphExecUpdateFailure,
                        "%s: executable %p or graph %p holds device-updatable kernel nodes, which "
                        "grGraphExecUpdate does not take in graphrt (set their parameters with the "
                        "executable's setters instead)",
                        call, GR_PTR(hGraphExec), GR_PTR(hGraph));
    }
    return grSuccess;
}

/* Frees what an update allocated; pair_buf: the stack arrays, kept. */
static void upd_release(upd *u, struct grGraphNode_st **pair_buf)
{
    if (u->pair_o != pair_buf)
        gr__free(u->pair_o);
    upd_free(u);
}

/* A refused update (pair_top or check_top false): its result and nodes
 * in resultInfo, its reason in the detail. */
static grError_t report_refusal(const char *call, const upd *u, grGraphExecUpdateResultInfo *resultInfo)
{
    resultInfo->result = u->result;
    resultInfo->errorNode = u->error_node;
    resultInfo->errorFromNode = u->error_from;
    if (u->result == grGraphExecUpdateError)
        return gr__fail(grErrorMemoryAllocation, "%s: %s", call, u->msg);
    return gr__fail(grErrorGraphExecUpdateFailure, "%s: %s", call, u->msg);
}

/* What a whole-graph update needs once every pair is checked, and can
 * still fail on, before anything changes: the device checks, the
 * conditionals' slots, the new graph memory (*gmem, to apply or discard)
 * and user objects (*urefs). On failure nothing is left to undo. */
static grError_t update_prepare(const char *call, upd *u, grGraph_t hGraph,
                                grGraphExecUpdateResultInfo *resultInfo, struct gr_gexec **gmem,
                                struct gr_urefs **urefs)
{
    grGraphExec_t e = u->exec;
    grError_t err = grSuccess;
    /* A node whose values stay was checked when the executable got them. */
    bool checks = device_checks_apply(e);
    for (uint32_t i = 0; i < e->norig; i++) {
        struct grGraphNode_st *n = u->pair_o[i];
        bool differs = n->type == grGraphNodeTypeGraph || params_differ(&e->plan.nodes[e->orig[i].pindex], n);
        u->differ[i] = differs;
        if (GR_UNLIKELY(checks) && differs && !err)
            err = device_check(call, e, n);
    }
    if (err)
        return err;
    if (u->nconds && !(u->slots = gr__malloc(gr__plan_cond_count(&e->plan) * sizeof *u->slots)))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    if (GR_UNLIKELY(e->flags & GR_EXEC_GRAPHMEM) &&
        (err = gr__graphmem_update_prepare(call, e, hGraph, gmem))) {
        if (err == grErrorMemoryAllocation)
            return err;
        resultInfo->result = grGraphExecUpdateErrorNotSupported;
        return gr__fail_again(grErrorGraphExecUpdateFailure);
    }
    if ((err = gr__exec_urefs_build(call, hGraph, u->pair_o, urefs))) {
        gr__graphmem_update_discard(*gmem);
        *gmem = NULL;
        return err;
    }
    return grSuccess;
}

/* Writes every checked pair's values into the executable (locked for
 * writing), then its graph memory and user objects; returns the user
 * objects replaced (*gone, to drop once unlocked) and a GPU's error. */
static grError_t update_apply(const char *call, upd *u, grGraph_t hGraph, struct gr_gexec *gmem,
                              struct gr_urefs *urefs, struct gr_urefs **gone)
{
    grGraphExec_t e = u->exec;
    grError_t err = grSuccess;
    if (e->gpu)
        u->gpu_changed = gr__calloc(e->plan.nnodes, 1);
    install_blocks(u);
    install_conds(u);
    uint64_t born = hGraph->born_gen; /* gr__exec_graph_born's, in this walk */
    for (uint32_t i = 0; i < e->norig; i++) {
        /* pair_top paired all norig nodes, which the analyser cannot
         * follow across the calls between. */
        // NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign)
        struct grGraphNode_st *n = u->pair_o[i];
        /* Set for every pair by update_prepare. */
        // NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign)
        bool differs = u->differ[i];
        if (n->type == grGraphNodeTypeGraph) {
            apply_child(u, n->p.child);
        } else if (differs) {
            gr_pnode *pn = &e->plan.nodes[e->orig[i].pindex];
            if (u->gpu_changed)
                u->gpu_changed[pn->index] = 1;
            apply_params(u, pn, n);
        }
        uint64_t c = gr__exec_node_born(n);
        born = c < born ? c : born;
    }
    /* Launch attributes first: the sync takes them to the executable. */
    for (uint32_t i = 0; GR_UNLIKELY(e->gpu != NULL) && i < e->norig && !err; i++) {
        // NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign)
        const struct grGraphNode_st *n = u->pair_o[i];
        if (n->type == grGraphNodeTypeKernel)
            err = gpu_kattrs(call, u, e->orig[i].pindex, n);
        else if (n->type == grGraphNodeTypeGraph)
            err = gpu_kattrs_child(call, u, n->p.child);
    }
    if (GR_UNLIKELY(e->gpu != NULL) && !err)
        err = gpu_sync(call, u, 0, e->plan.nnodes - 1);
    /* The new graph's allocations were mapped by the prepare step, before
     * the GPU's kernels could see their addresses; the old ones go now. */
    gr__graphmem_update_apply(e, gmem);
    /* Swapped while writing, as every field of the executable: another
     * thread's update of the same executable waits for this one. */
    *gone = gr__exec_urefs_swap(e, urefs);
    if (born < e->baked_gen)
        e->baked_gen = born;
    gr_store_relaxed(&e->plan.range_gen, 0);
    /* Now the plan holds hGraph's values (update_listed). */
    if (hGraph->uid == e->src_uid) {
        e->sync_edits = hGraph->edits;
        e->sync_writes = e->writes;
    } else {
        e->sync_writes = ~0ull;
    }
    return err;
}

GR_API grError_t grGraphExecUpdate(grGraphExec_t hGraphExec, grGraph_t hGraph,
                                   grGraphExecUpdateResultInfo *resultInfo)
{
    static const char call[] = "grGraphExecUpdate";
    struct grGraphNode_st *pair_buf[GR_UPDATE_STACK_NODES], *list_buf[GR_UPDATE_STACK_NODES],
        *sinks_buf[GR_UPDATE_STACK_NODES];
    uint32_t queue_buf[GR_UPDATE_STACK_NODES];
    uint8_t differ_buf[GR_UPDATE_STACK_NODES];
    grError_t err;
    upd u;
    if ((err = check_update_args(call, hGraphExec, hGraph, resultInfo)))
        return err;
    memset(&u, 0, sizeof u);
    u.exec = hGraphExec;
    u.pair_o = pair_buf;
    u.list = list_buf;
    u.sinks = sinks_buf;
    u.queue = queue_buf;
    u.differ = differ_buf;
    /* The checks compare against the plan, which setters on other threads
     * may write: it stays put from here to the end. */
    gr__exec_write_begin(hGraphExec);
    int listed = update_listed(call, &u, hGraph, &err);
    if (listed == -2) {
        gr__exec_write_end(hGraphExec);
        upd_free(&u);
        return err;
    }
    if (listed > 0) {
        hGraphExec->sync_edits = hGraph->edits;
        hGraphExec->sync_writes = hGraphExec->writes;
        gr__exec_write_end(hGraphExec);
        upd_free(&u);
        resultInfo->result = grGraphExecUpdateSuccess;
        return grSuccess;
    }
    /* Node counts that differ are refused before the arrays are used. */
    if (listed == 0 && hGraphExec->norig > GR_UPDATE_STACK_NODES && hGraph->nnodes == hGraphExec->norig) {
        u.pair_o =
            gr__malloc(hGraphExec->norig * (3 * sizeof *u.pair_o + sizeof *u.queue + sizeof *u.differ));
        if (!u.pair_o) {
            gr__exec_write_end(hGraphExec);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        }
        u.list = u.pair_o + hGraphExec->norig;
        u.sinks = u.list + hGraphExec->norig;
        u.queue = (uint32_t *)(u.sinks + hGraphExec->norig);
        u.differ = (uint8_t *)(u.queue + hGraphExec->norig);
    }
    if (!(listed == 0 && pair_top(&u, hGraph) && check_top(&u))) {
        gr__exec_write_end(hGraphExec);
        upd_release(&u, pair_buf);
        return report_refusal(call, &u, resultInfo);
    }
    struct gr_gexec *gmem = NULL;
    struct gr_urefs *urefs = NULL, *gone = NULL;
    struct gr_span_upd *span = NULL;
    if ((GR_UNLIKELY(hGraphExec->span != NULL) &&
         (err = gr__exec_span_update_prepare(call, hGraphExec, u.pair_o, resultInfo, &span))) ||
        (err = update_prepare(call, &u, hGraph, resultInfo, &gmem, &urefs))) {
        gr__exec_span_update_discard(span);
        gr__exec_write_end(hGraphExec);
        upd_release(&u, pair_buf);
        return err;
    }
    /* A spanning executable's plan holds its node table and the values
     * the parts were given (the checks' reference); the parts run. */
    err = update_apply(call, &u, hGraph, gmem, urefs, &gone);
    if (span != NULL) {
        grError_t serr = gr__exec_span_update_apply(call, hGraphExec, span);
        err = err ? err : serr;
    }
    /* Before the end: launches may start right after it. */
    gr_assert_expensive(gr__plan_is_valid(&hGraphExec->plan));
    gr__exec_write_end(hGraphExec);
    upd_release(&u, pair_buf);
    /* No launch of the old parameters runs now; with no lock held, the
     * user objects only they used may be destroyed before returning. */
    gr__exec_urefs_drop(hGraphExec, gone);
    if (err)
        return err;
    resultInfo->result = grGraphExecUpdateSuccess;
    return grSuccess;
}

GR_API grError_t grGraphExecChildGraphNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    grGraph_t childGraph)
{
    static const char call[] = "grGraphExecChildGraphNodeSetParams";
    grError_t err;
    upd u;
    if ((err = gr__exec_check(call, hGraphExec)) || (err = gr__graph_check(call, childGraph)))
        return err;
    if (GR_UNLIKELY(hGraphExec->span != NULL))
        return gr__exec_span_child(call, hGraphExec, node, childGraph);
    uint32_t i = gr__exec_find(hGraphExec, node);
    if (i == UINT32_MAX)
        return gr__fail(
            grErrorInvalidValue,
            "%s: node %p is not a node of the graph executable %p was instantiated from (the nodes of "
            "nested child graphs are updated through their top-level child graph node)",
            call, GR_PTR(node), GR_PTR(hGraphExec));
    const gr_orig *o = &hGraphExec->orig[i];
    if (o->type != grGraphNodeTypeGraph)
        return gr__fail(grErrorInvalidValue, "%s: node %p is a %s node, not a child graph node", call,
                        GR_PTR(node), gr__node_type_name(o->type));
    memset(&u, 0, sizeof u);
    u.exec = hGraphExec;
    gr__exec_write_begin(hGraphExec);
    if (!pair_child_top(&u, childGraph, NULL, o)) {
        gr__exec_write_end(hGraphExec);
        upd_free(&u);
        if (u.result == grGraphExecUpdateError)
            return gr__fail(grErrorMemoryAllocation, "%s: %s", call, u.msg);
        /* grErrorGraphExecUpdateFailure: what CUDA 13 answers
         * (tests/probes/memory.cu, exec-child-setparams-other-topology). */
        return gr__fail(
            grErrorGraphExecUpdateFailure,
            "%s: childGraph %p cannot update child graph node %p: %s (the topology, node types and node "
            "order must match those of the node's graph)",
            call, GR_PTR(childGraph), GR_PTR(node), u.msg);
    }
    /* The executable maps the graph memory it was instantiated with; a
     * graph with memory nodes comes in through grGraphExecUpdate only.
     * Checked after the pairing, whose refusal (CUDA's code) comes first. */
    if (gr__graphmem_has_nodes(childGraph)) {
        gr__exec_write_end(hGraphExec);
        upd_free(&u);
        return gr__fail(grErrorNotSupported,
                        "%s: childGraph %p has memory allocation or free nodes; a child-graph node holding "
                        "graph memory is updated with grGraphExecUpdate from a parent graph of the same "
                        "topology",
                        call, GR_PTR(childGraph));
    }
    if (GR_UNLIKELY(device_checks_apply(hGraphExec))) {
        for (struct grGraphNode_st *v = childGraph->first; v && !err; v = v->next)
            err = device_check(call, hGraphExec, v);
        if (err) {
            gr__exec_write_end(hGraphExec);
            upd_free(&u);
            return err;
        }
    }
    struct gr_urefs *gone = NULL;
    if ((err = gr__exec_urefs_replace_child(call, hGraphExec, i, childGraph, &gone))) {
        gr__exec_write_end(hGraphExec);
        upd_free(&u);
        return err;
    }
    if (hGraphExec->gpu)
        u.gpu_changed = gr__calloc(hGraphExec->plan.nnodes, 1);
    install_blocks(&u);
    apply_child(&u, childGraph);
    if (GR_UNLIKELY(hGraphExec->gpu != NULL))
        err = gpu_kattrs_child(call, &u, childGraph);
    if (GR_UNLIKELY(hGraphExec->gpu != NULL) && !err)
        err = gpu_sync(call, &u, o->pindex, o->pindex + o->child_count + 2);
    note_new_values(hGraphExec, childGraph);
    gr__exec_write_end(hGraphExec);
    upd_free(&u);
    gr__exec_urefs_drop(hGraphExec, gone); /* the old child graph's, no lock held */
    return err;
}
