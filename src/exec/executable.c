/*
 * executable.c - the executable object: grGraphInstantiate* create one
 * (checks of the graph and flags, then the plan compiler, plan_build.c,
 * then the checks and lowering that need the built plan), the free hook
 * that destroys it once its last reference goes, its O(1) handle check,
 * the node map the setters and update find nodes through, and the
 * queries of its id and flags.
 *
 * Invariants:
 *   - an executable is published (magic set, *out written) only once
 *     everything built and checked; a failed instantiation frees it
 *     through exec_free, as a destroy would, whatever was built;
 *   - the node map is built at most once, on the first lookup, and
 *     published with a CAS: a thread that loses the race frees its copy;
 *   - freed executables go back to a shelf as dead shells, so that a
 *     stale handle reads a dead magic word (core.h).
 */
#include "exec.h"
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/graphmem.h"

#include <stdio.h>
#include <string.h>

/* Builds the node -> orig index table. Setters and update are optional, so
 * instantiate does not pay for it: the first lookup builds it. */
static const gr_node_map *build_map(struct grGraphExec_st *e)
{
    uint32_t size = 16;
    while (size < 2 * e->norig)
        size *= 2;
    gr_node_map *m = gr__calloc(1, sizeof *m + (size_t)size * sizeof m->slots[0]);
    if (!m)
        return NULL;
    m->mask = size - 1;
    for (uint32_t i = 0; i < e->norig; i++) {
        uint32_t h = gr__hash_ptr(e->orig[i].node) & m->mask;
        while (m->slots[h].node)
            h = (h + 1) & m->mask;
        m->slots[h] = (gr_node_slot){e->orig[i].node, i, e->orig[i].pindex};
    }
    const gr_node_map *expected = NULL;
    if (!gr_cas_strong_acq_rel_acquire(&e->map, &expected, m)) {
        /* Another thread built it first. */
        gr__free(m);
        return expected;
    }
    return m;
}

const gr_node_slot *gr__exec_lookup_slow(struct grGraphExec_st *e, const void *node)
{
    if (!node)
        return NULL;
    if (!gr_load_acquire(&e->map) && !build_map(e))
        return NULL;
    return gr__exec_lookup(e, node);
}

uint32_t gr__exec_find(struct grGraphExec_st *e, const void *node)
{
    const gr_node_slot *s = gr__exec_lookup(e, node);
    return s ? s->orig : UINT32_MAX;
}

grGraphNodeType gr__exec_find_node(struct grGraphExec_st *e, const void *node, gr_pnode **out)
{
    uint32_t i = gr__exec_find(e, node);
    if (i != UINT32_MAX) {
        *out = &e->plan.nodes[e->orig[i].pindex];
        return e->orig[i].type;
    }
    if (node == NULL || !gr__exec_has_cond(e))
        return grGraphNodeTypeCount;
    /* An update may be replacing the bodies' plans. */
    gr__exec_write_begin(e);
    grGraphNodeType t = gr__exec_find_body_node(e, node, out);
    gr__exec_write_end(e);
    return t;
}

gr_pnode *gr__exec_pnode_again(struct grGraphExec_st *e, const void *node, gr_pnode *pn)
{
    gr_pnode *again = pn;
    if (GR_NEVER(gr__exec_find_body_node(e, node, &again) == grGraphNodeTypeCount))
        return pn; /* an update keeps the body nodes' table */
    return again;
}

/* Executable objects, kept as dead shells once freed (core.h). */
static gr_shelf exec_shelf = GR_SHELF_INIT(sizeof(struct grGraphExec_st));

static void exec_free(struct grGraphExec_st *e)
{
    /* A spanning executable's parts first: they may still run on its
     * graph memory. */
    gr__exec_span_free(e);
    if (e->flags & GR_EXEC_GRAPHMEM)
        gr__graphmem_exec_free(e);
    gr__devupd_free(e);
    gr__devkind()->exec_free(e->gpu);
    gr__plan_free(&e->plan);
    gr__file_res_release(e->file_res);
    gr__exec_urefs_free(e);
    gr__big_free(e->orig);
    gr__free(e->orig_notes);
    gr__free(e->orig_attrs);
    gr__free((void *)gr_load_relaxed(&e->map));
    gr__mark_dead(&e->magic);
    gr__shell_retire(&exec_shelf, e);
}

grError_t gr__exec_check(const char *call, grGraphExec_t e)
{
    if (!gr__exec_valid(e))
        return gr__fail(
            grErrorInvalidValue,
            "%s: executable graph %p is not live (NULL, destroyed, or not from grGraphInstantiate)", call,
            GR_PTR(e));
    return grSuccess;
}

_Thread_local gr_inst_fault gr__inst_fault;

/* The top-level node of e's graph whose plan nodes include plan node pi
 * (a child graph's run from its 'enter' to its 'leave' node), or NULL. */
static const struct grGraphNode_st *top_node_of(const struct grGraphExec_st *e, uint32_t pi)
{
    if (e->orig == NULL)
        return NULL;
    for (uint32_t i = 0; i < e->norig; i++) {
        const gr_orig *o = &e->orig[i];
        uint32_t last = o->pindex + (o->type == grGraphNodeTypeGraph ? o->child_count + 1 : 0);
        if (pi >= o->pindex && pi <= last)
            return o->node;
    }
    return NULL;
}

/* A failed instantiation's culprit, from the fault its check noted: the
 * node, named in the detail too unless the detail names it already. */
/* A cooperative kernel node's grid must fit the CPU device's cooperative
 * limit (coop.c); on a GPU the driver checks it. */
static grError_t check_coop(const char *call, const gr_plan *p)
{
    for (uint32_t i = 0; i < p->nnodes; i++) {
        const gr_pnode *n = &p->nodes[i];
        if (n->type == grGraphNodeTypeKernel && n->krun == GR_KRUN_COOP) {
            grError_t err = gr__kernel_check_coop(call, n->u.kern.k, &n->u.kern.grid);
            if (err)
                return err;
        }
    }
    return grSuccess;
}

static const struct grGraphNode_st *culprit(const struct grGraphExec_st *e, grError_t err)
{
    const struct grGraphNode_st *n = gr__inst_fault.node;
    if (n == NULL && gr__inst_fault.pindex != UINT32_MAX)
        n = top_node_of(e, gr__inst_fault.pindex);
    if (n != NULL && !gr__inst_fault.named) {
        char detail[512];
        snprintf(detail, sizeof detail, "%s", grGetLastErrorDetail());
        (void)gr__fail(err, "%s (the node at fault: %s)", detail, gr__node_label(n));
    }
    return gr__inst_fault.unreported ? NULL : n;
}

static grError_t instantiate_body(const char *call, grGraphExec_t *out, grGraph_t g, unsigned long long flags,
                                  const struct grGraphNode_st **err_node);

/* Instantiates g; on failure *err_node (when not NULL) is the culprit
 * node, or NULL, and *result (when not NULL) the kind of failure. */
static grError_t instantiate_report(const char *call, grGraphExec_t *out, grGraph_t g,
                                    unsigned long long flags, grGraphNode_t *err_node,
                                    grGraphInstantiateResult *result)
{
    const struct grGraphNode_st *node = NULL;
    gr__inst_fault = (gr_inst_fault){NULL, UINT32_MAX, false, false, false, 0};
    grError_t err = instantiate_body(call, out, g, flags, &node);
    if (err_node)
        *err_node = (grGraphNode_t)(uintptr_t)node;
    if (result)
        *result = err == grSuccess           ? grGraphInstantiateSuccess
                  : gr__inst_fault.result    ? (grGraphInstantiateResult)gr__inst_fault.result
                  : gr__inst_fault.structure ? grGraphInstantiateInvalidStructure
                                             : grGraphInstantiateError;
    return err;
}

/* grGraphInstantiate and grGraphInstantiateWithFlags: CUDA 13 refuses the
 * upload flag there (it comes with a stream, through WithParams only). */
static grError_t instantiate(const char *call, grGraphExec_t *out, grGraph_t g, unsigned long long flags)
{
    if (flags & grGraphInstantiateFlagUpload)
        return gr__fail(grErrorInvalidValue,
                        "%s: grGraphInstantiateFlagUpload comes with an upload stream: pass both with "
                        "grGraphInstantiateWithParams (instantiateParams->uploadStream)",
                        call);
    return instantiate_report(call, out, g, flags, NULL, NULL);
}

/* The arguments of an instantiation, checked before anything is built. */
static grError_t check_instantiate(const char *call, grGraphExec_t *out, grGraph_t g,
                                   unsigned long long flags)
{
    grError_t err;
    if (!out)
        return gr__fail(grErrorInvalidValue, "%s: 'pGraphExec' (the output pointer) is NULL", call);
    if ((err = gr__graph_check(call, g)))
        return err;
    if (g->moved)
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p was moved into %s (grGraphChildGraphOwnershipMove) and cannot be "
                        "instantiated on its own, as CUDA documents; instantiate the graph holding the node",
                        call, GR_PTR(g), gr__node_label(g->owner));
    if (flags &
        ~(unsigned long long)(grGraphInstantiateFlagAutoFreeOnLaunch | grGraphInstantiateFlagUpload |
                              grGraphInstantiateFlagUseNodePriority | grGraphInstantiateFlagDeviceLaunch))
        return gr__fail(grErrorInvalidValue, "%s: flags 0x%llx has unknown bits", call, flags);
    /* The flag rules as CUDA 13 answers them (tests/probes/nodeapi.cu):
     * conflicting flags are invalid before device launch is unsupported. */
    if ((flags & grGraphInstantiateFlagAutoFreeOnLaunch) && (flags & grGraphInstantiateFlagDeviceLaunch))
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%llx combine grGraphInstantiateFlagAutoFreeOnLaunch and "
                        "grGraphInstantiateFlagDeviceLaunch, which CUDA refuses together",
                        call, flags);
    if (flags & grGraphInstantiateFlagDeviceLaunch)
        return gr__fail(grErrorNotSupported,
                        "%s: grGraphInstantiateFlagDeviceLaunch is not supported: graphrt launches graphs "
                        "from the host only (the CPU device has no device-side launch)",
                        call);
    return grSuccess;
}

/* The checks and lowerings once e's plan is built from g without error:
 * ranges, conditionals, the device's limits, graph memory, the GPU
 * lowering and the user objects, in that order; stops at the first
 * error. */
static grError_t compile_plan(const char *call, struct grGraphExec_st *e, grGraph_t g,
                              unsigned long long flags, const gr_plan_facts *facts)
{
    gr_plan *p = &e->plan;
    grError_t err = grSuccess;
    /* The ranges were checked when the nodes got them; allocations may
     * have come and gone since. */
    if (p->nranged)
        err = gr__exec_check_ranges(call, e, false);
    if (!err && GR_UNLIKELY(facts->ncond || g->cond_slots != NULL || g->owner != NULL))
        err = gr__exec_cond_check_graph(call, g);
    if (!err && facts->ncond)
        err = gr__exec_cond_instantiate(call, p);
    /* On a GPU the plan is the input of the lowering (the exec layer's
     * node table and checks stay the same on every device). */
    int device = gr__device_current();
    /* Collective nodes: MPI's requests on the CPU; on a GPU the lowering
     * captures their NCCL calls (docs/collectives.md). */
    if (!err && facts->ncoll)
        err = gr__exec_coll_instantiate(call, p, device);
    if (!err)
        err = gr__exec_check_plan_devmem(call, p, device);
    if (!err && device == 0 && facts->ncoop)
        err = check_coop(call, p);
    /* Graph memory is mapped before the lowering: the driver takes the
     * address of memory it does not know for host memory. */
    if (!err && facts->ndevupd)
        err = gr__devupd_instantiate(call, e, g, device);
    if (!err)
        err = gr__graphmem_instantiate(call, e, g, device);
    if (!err && device != 0)
        err = gr__devkind()->exec_lower(call, p, device, flags, &e->gpu);
    if (!err)
        err = gr__exec_urefs_build(call, g, NULL, &e->urefs);
    return err;
}

static grError_t instantiate_body(const char *call, grGraphExec_t *out, grGraph_t g, unsigned long long flags,
                                  const struct grGraphNode_st **err_node)
{
    struct grGraphExec_st *e;
    grError_t err;
    if ((err = check_instantiate(call, out, g, flags)))
        return err;
    grError_t started = gr__device_start_dev(call, 0);
    if (started != grSuccess)
        return started;

    e = gr__shell_alloc(&exec_shelf);
    if (!e)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    memset(e, 0, sizeof *e);
    e->free_hook = exec_free;
    gr_plan_facts facts;
    err = gr__plan_build(call, g, flags, e, &facts);
    gr_plan *p = &e->plan;
    if (err && p->nodes == NULL) { /* out of memory before anything was built */
        exec_free(e);
        return err;
    }
    /* A graph whose nodes name two devices is partitioned: each part is
     * an executable of its own (span.c), e's plan only its node table. */
    if (!err && GR_UNLIKELY(gr__exec_spans(g))) {
        err = gr__exec_span_build(call, e, g, flags);
        if (!err)
            err = gr__exec_urefs_build(call, g, NULL, &e->urefs);
    } else if (!err)
        err = compile_plan(call, e, g, flags, &facts);
    e->baked_gen = gr__exec_graph_born(g);
    e->uid = gr__graph_uid_next();
    e->src_uid = g->uid;
    e->sync_edits = g->edits; /* sync_writes = writes = 0 */
    if (err) {
        *err_node = culprit(e, err);
        exec_free(e);
        return err;
    }
    /* Its plan points into the loaded graph's buffers and names its events. */
    e->file_res = g->res;
    gr__file_res_retain(e->file_res);
    e->magic = GR_MAGIC_EXEC;
    e->flags |= flags; /* keeps GR_EXEC_GRAPHMEM, set by gr__graphmem_instantiate */
    atomic_init(&e->refs, 1);
    gr_assert_expensive(gr__plan_is_valid(p));
    gr__devupd_published(e, g);
    *out = e;
    gr__exec_analyze_warn(g);
    return grSuccess;
}

GR_API grError_t grGraphInstantiate(grGraphExec_t *pGraphExec, grGraph_t graph, unsigned long long flags)
{
    return instantiate("grGraphInstantiate", pGraphExec, graph, flags);
}

GR_API grError_t grGraphInstantiateWithFlags(grGraphExec_t *pGraphExec, grGraph_t graph,
                                             unsigned long long flags)
{
    return instantiate("grGraphInstantiateWithFlags", pGraphExec, graph, flags);
}

GR_API grError_t grGraphInstantiateWithParams(grGraphExec_t *pGraphExec, grGraph_t graph,
                                              grGraphInstantiateParams *instantiateParams)
{
    static const char call[] = "grGraphInstantiateWithParams";
    grGraphExec_t e = NULL;
    grError_t err;
    gr_stream *s = NULL;
    if (instantiateParams == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: instantiateParams is NULL; pass the flags, upload stream and result fields",
                        call);
    instantiateParams->errNode_out = NULL;
    instantiateParams->result_out = grGraphInstantiateError;
    if (pGraphExec == NULL)
        return gr__fail(grErrorInvalidValue, "%s: 'pGraphExec' (the output pointer) is NULL", call);
    unsigned long long flags = instantiateParams->flags;
    /* The upload stream matters only with the upload flag, as in CUDA. */
    if ((flags & grGraphInstantiateFlagUpload) &&
        (err = gr__stream_from_handle(call, instantiateParams->uploadStream, &s)))
        return err;
    /* An upload into a capture is refused as a launch into one is, and
     * invalidates it (CUDA 13 probe: grErrorStreamCaptureUnsupported). */
    if (s != NULL && GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams d;
        memset(&d, 0, sizeof d);
        d.type = grGraphNodeTypeGraph; /* graph NULL: an executable */
        return gr__capture_record(call, s, &d);
    }
    err = instantiate_report(call, &e, graph, flags, &instantiateParams->errNode_out,
                             &instantiateParams->result_out);
    if (err)
        return err;
    if ((flags & grGraphInstantiateFlagUpload) && (err = grGraphUpload(e, instantiateParams->uploadStream))) {
        (void)grGraphExecDestroy(e);
        instantiateParams->result_out = grGraphInstantiateError;
        return err;
    }
    *pGraphExec = e;
    return grSuccess;
}

GR_API grError_t grGraphExecGetId(grGraphExec_t hGraphExec, unsigned int *graphId)
{
    static const char call[] = "grGraphExecGetId";
    grError_t err;
    if ((err = gr__exec_check(call, hGraphExec)))
        return err;
    if (graphId == NULL)
        return gr__fail(grErrorInvalidValue, "%s: graphId (the output pointer) is NULL", call);
    *graphId = (unsigned)(hGraphExec->uid & 0xffffffffu); /* 32 bits, as CUDA's */
    return grSuccess;
}

GR_API grError_t grGraphExecGetFlags(grGraphExec_t graphExec, unsigned long long *flags)
{
    static const char call[] = "grGraphExecGetFlags";
    grError_t err;
    if ((err = gr__exec_check(call, graphExec)))
        return err;
    if (flags == NULL)
        return gr__fail(grErrorInvalidValue, "%s: flags is NULL; pass where to store the flags", call);
    /* What CUDA 13 reports (a probe measured it): the flags that change
     * how the executable launches; Upload and UseNodePriority are
     * accepted at instantiation but read back as 0. */
    *flags = graphExec->flags & (unsigned long long)(grGraphInstantiateFlagAutoFreeOnLaunch |
                                                     grGraphInstantiateFlagDeviceLaunch);
    return grSuccess;
}
