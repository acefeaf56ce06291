/*
 * graph.c - executables on a GPU: the plan that instantiation built
 * (plan.h: the graph flattened in topological order, child graphs inlined
 * between empty 'enter' and 'leave' nodes) lowered to a CUgraph, one
 * driver node per plan node, instantiated with cuGraphInstantiateWithFlags;
 * a launch is one cuGraphLaunch; the setters and grGraphExecUpdate, whose
 * checks and pairing are the exec layer's, reach the driver's executable
 * through cuGraphExec*SetParams on the node's CUgraphNode.
 *
 * Invariants: gx->nodes[i] is the driver node of plan node i (every plan
 * node but EXIT has one); gx->graph stays alive as long as gx->exec, since
 * the exec setters name nodes of the graph the executable came from.
 * Nothing here takes a graphrt lock: the exec layer calls in between
 * gr__exec_write_begin and gr__exec_write_end, or at instantiation and
 * destruction, when no other thread uses the executable.
 */
#include "cuda_int.h"
#include "cuda_graph.h"

#include <string.h>

struct gr_cuda_exec {
    int device;
    CUgraph graph;
    CUgraphExec exec;
    CUgraphNode *nodes; /* per plan node; EXIT has none */
    uint32_t nnodes;
};

/* A 1D copy as the driver's 3D description: each operand device memory
 * (a GPU's, as the driver tells) or host memory (pinned or pageable). */
static void memcpy_desc(CUDA_MEMCPY3D *d, void *dst, const void *src, size_t count)
{
    memset(d, 0, sizeof *d);
    if (gr__cuda_pointer_device(src) > 0) {
        d->srcMemoryType = CU_MEMORYTYPE_DEVICE;
        d->srcDevice = gr__cu_ptr(src);
    } else {
        d->srcMemoryType = CU_MEMORYTYPE_HOST;
        d->srcHost = src;
    }
    if (gr__cuda_pointer_device(dst) > 0) {
        d->dstMemoryType = CU_MEMORYTYPE_DEVICE;
        d->dstDevice = gr__cu_ptr(dst);
    } else {
        d->dstMemoryType = CU_MEMORYTYPE_HOST;
        d->dstHost = dst;
    }
    d->WidthInBytes = count;
    d->Height = 1;
    d->Depth = 1;
}

static void memset_desc(CUDA_MEMSET_NODE_PARAMS *d, const grMemsetParams *p)
{
    d->dst = gr__cu_ptr(p->dst);
    d->pitch = p->pitch;
    d->value = p->value;
    d->elementSize = p->elementSize;
    d->width = p->width;
    d->height = p->height;
}

static grError_t kernel_desc(const char *call, int device, CUDA_KERNEL_NODE_PARAMS *d, grKernel_t k,
                             const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args)
{
    CUfunction f = NULL;
    grError_t err = gr__cuda_kernel_function(call, k, device, &f);
    if (err)
        return err;
    memset(d, 0, sizeof *d);
    d->func = f;
    d->gridDimX = grid->x;
    d->gridDimY = grid->y;
    d->gridDimZ = grid->z;
    d->blockDimX = block->x;
    d->blockDimY = block->y;
    d->blockDimZ = block->z;
    d->sharedMemBytes = shmem;
    d->kernelParams = args;
    return grSuccess;
}

/* The CUevent of an event node's event, which must be of the executable's
 * GPU. */
static grError_t event_of(const char *call, int device, grEvent_t ev, uint32_t index, CUevent *out)
{
    if (ev->device != device || !ev->gpu)
        return gr__fail(grErrorInvalidValue,
                        "%s: the event of event node %u (plan order) was created on device %d, but the "
                        "executable is instantiated for device %d; an event node's event must be created "
                        "on the device the graph runs on (grSetDevice before grEventCreate)",
                        call, index, ev->device, device);
    *out = ev->gpu->cu;
    return grSuccess;
}

/* Adds plan node i to gx->graph after 'deps'. */
static grError_t add_node(const char *call, struct gr_cuda_exec *gx, const gr_pnode *pn, uint32_t i,
                          const CUgraphNode *deps, size_t ndeps)
{
    CUgraphNode *out = &gx->nodes[i];
    CUresult r = CUDA_SUCCESS;
    grError_t err;
    switch (pn->type) {
    case grGraphNodeTypeKernel: {
        CUDA_KERNEL_NODE_PARAMS d;
        err = kernel_desc(call, gx->device, &d, pn->u.kern.k, &pn->u.kern.grid, &pn->u.kern.block, pn->shmem,
                          pn->u.kern.argv);
        if (err)
            return err;
        r = gr_cu.cuGraphAddKernelNode(out, gx->graph, deps, ndeps, &d);
        break;
    }
    case grGraphNodeTypeMemcpy: {
        CUDA_MEMCPY3D d;
        memcpy_desc(&d, pn->u.copy.p.dst, pn->u.copy.p.src, pn->u.copy.p.count);
        r = gr_cu.cuGraphAddMemcpyNode(out, gx->graph, deps, ndeps, &d, gr__cuda_context(gx->device));
        break;
    }
    case grGraphNodeTypeMemset: {
        CUDA_MEMSET_NODE_PARAMS d;
        memset_desc(&d, &pn->u.memset);
        r = gr_cu.cuGraphAddMemsetNode(out, gx->graph, deps, ndeps, &d, gr__cuda_context(gx->device));
        break;
    }
    case grGraphNodeTypeHost: {
        CUDA_HOST_NODE_PARAMS d = {pn->u.host.fn, pn->u.host.userData};
        r = gr_cu.cuGraphAddHostNode(out, gx->graph, deps, ndeps, &d);
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        CUevent ev = NULL;
        if ((err = event_of(call, gx->device, pn->u.event, i, &ev)))
            return err;
        r = pn->type == grGraphNodeTypeEventRecord
                ? gr_cu.cuGraphAddEventRecordNode(out, gx->graph, deps, ndeps, ev)
                : gr_cu.cuGraphAddEventWaitNode(out, gx->graph, deps, ndeps, ev);
        break;
    }
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
        return gr__fail(grErrorNotSupported,
                        "%s: the graph has a %s node; graph memory nodes are not lowered to GPUs yet "
                        "(docs/devices.md): allocate with grMalloc outside the graph, or instantiate on "
                        "the CPU device",
                        call, gr__node_type_name((grGraphNodeType)pn->type));
    case grGraphNodeTypeConditional: /* refused before lowering (exec/conditional.c) */
        return gr__fail(grErrorNotSupported,
                        "%s: conditional nodes are not lowered to GPUs yet (docs/devices.md)", call);
    default: /* empty nodes, and the 'enter' and 'leave' nodes of child graphs */
        r = gr_cu.cuGraphAddEmptyNode(out, gx->graph, deps, ndeps);
        break;
    }
    if (r != CUDA_SUCCESS)
        return gr__fail(gr__cu_error(r),
                        "%s: adding the %s node %u (plan order) to the device %d graph failed with %s", call,
                        gr__node_type_name((grGraphNodeType)pn->type), i, gx->device, gr__cu_error_name(r));
    return grSuccess;
}

/* Every plan node's predecessors, from the plan's successor lists: CSR in
 * (off, pred), EXIT left out. */
static bool predecessors(const gr_plan *p, uint32_t **off_out, uint32_t **pred_out)
{
    uint32_t n = p->nnodes - 1; /* without EXIT */
    uint32_t *off = gr__calloc((size_t)n + 1, sizeof *off);
    uint32_t *pred = gr__malloc(((size_t)p->nsucc + 1) * sizeof *pred);
    if (!off || !pred) {
        gr__free(off);
        gr__free(pred);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = p->nodes[i].succ_begin; k < p->nodes[i].succ_end; k++)
            if (p->succ[k] < n)
                off[p->succ[k] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint32_t *cur = gr__malloc(((size_t)n + 1) * sizeof *cur);
    if (!cur) {
        gr__free(off);
        gr__free(pred);
        return false;
    }
    memcpy(cur, off, ((size_t)n + 1) * sizeof *cur);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = p->nodes[i].succ_begin; k < p->nodes[i].succ_end; k++)
            if (p->succ[k] < n)
                pred[cur[p->succ[k]]++] = i;
    gr__free(cur);
    *off_out = off;
    *pred_out = pred;
    return true;
}

void gr__cuda_exec_free(struct gr_cuda_exec *gx)
{
    if (!gx)
        return;
    if (gr__cuda_enter(gx->device) == CUDA_SUCCESS) {
        if (gx->exec)
            gr_cu.cuGraphExecDestroy(gx->exec);
        if (gx->graph)
            gr_cu.cuGraphDestroy(gx->graph);
    }
    gr__free(gx->nodes);
    gr__free(gx);
}

grError_t gr__cuda_exec_lower(const char *call, const gr_plan *p, int device, unsigned long long flags,
                              struct gr_cuda_exec **out)
{
    CUresult r = gr__cuda_enter(device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", r);
    struct gr_cuda_exec *gx = gr__calloc(1, sizeof *gx);
    uint32_t n = p->nnodes - 1, *off = NULL, *pred = NULL;
    CUgraphNode *deps = NULL;
    if (!gx || !(gx->nodes = gr__calloc(n ? n : 1, sizeof *gx->nodes)) || !predecessors(p, &off, &pred) ||
        !(deps = gr__malloc(((size_t)p->nsucc + 1) * sizeof *deps))) {
        if (gx)
            gr__free(gx->nodes);
        gr__free(gx);
        gr__free(off);
        gr__free(pred);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    gx->device = device;
    gx->nnodes = n;
    grError_t err = grSuccess;
    if ((r = gr_cu.cuGraphCreate(&gx->graph, 0)) != CUDA_SUCCESS)
        err = gr__cu_fail(call, device, "cuGraphCreate", r);
    /* The plan is in topological order: every node's predecessors are in
     * the driver's graph before it. */
    for (uint32_t i = 0; i < n && !err; i++) {
        size_t nd = 0;
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            deps[nd++] = gx->nodes[pred[k]];
        err = add_node(call, gx, &p->nodes[i], i, deps, nd);
    }
    gr__free(off);
    gr__free(pred);
    gr__free(deps);
    unsigned long long cuflags = 0;
    if (flags & grGraphInstantiateFlagAutoFreeOnLaunch)
        cuflags |= CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
    if (flags & grGraphInstantiateFlagUseNodePriority)
        cuflags |= CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    if (!err && (r = gr_cu.cuGraphInstantiateWithFlags(&gx->exec, gx->graph, cuflags)) != CUDA_SUCCESS)
        err = gr__cu_fail(call, device, "cuGraphInstantiateWithFlags", r);
    /* Upload, as CUDA's flag asks, on the device's legacy stream. */
    if (!err && (flags & grGraphInstantiateFlagUpload) &&
        (r = gr_cu.cuGraphUpload(gx->exec, GR_CU_STREAM_LEGACY)) != CUDA_SUCCESS)
        err = gr__cu_fail(call, device, "cuGraphUpload", r);
    if (err) {
        gr__cuda_exec_free(gx);
        return err;
    }
    *out = gx;
    return grSuccess;
}

int gr__cuda_exec_device(const struct gr_cuda_exec *gx)
{
    return gx->device;
}

grError_t gr__cuda_exec_launch(const char *call, struct gr_cuda_exec *gx, gr_stream *s, bool upload)
{
    CUresult r = gr__cuda_enter(gx->device);
    if (r == CUDA_SUCCESS)
        r = upload ? gr_cu.cuGraphUpload(gx->exec, s->gpu->cu) : gr_cu.cuGraphLaunch(gx->exec, s->gpu->cu);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, upload ? "cuGraphUpload" : "cuGraphLaunch", r);
    return grSuccess;
}

/* The device whose context a batch of exec setter calls made current
 * (gr__cuda_exec_sync_range), so that each call of the batch does not make
 * it current again; 0 outside a batch. */
static _Thread_local int batch_device;

static CUresult enter(const struct gr_cuda_exec *gx)
{
    return batch_device == gx->device ? CUDA_SUCCESS : gr__cuda_enter(gx->device);
}

/* The failure of an exec setter's driver call on plan node i. */
static grError_t set_failed(const char *call, const struct gr_cuda_exec *gx, const char *what, uint32_t i,
                            CUresult r)
{
    return gr__fail(gr__cu_error(r), "%s: %s of node %u (plan order) failed on device %d with %s", call, what,
                    i, gx->device, gr__cu_error_name(r));
}

grError_t gr__cuda_exec_set_kernel(const char *call, struct gr_cuda_exec *gx, uint32_t i, grKernel_t k,
                                   const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args)
{
    CUDA_KERNEL_NODE_PARAMS d;
    CUresult r = enter(gx);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    grError_t err = kernel_desc(call, gx->device, &d, k, grid, block, shmem, args);
    if (err)
        return err;
    if ((r = gr_cu.cuGraphExecKernelNodeSetParams(gx->exec, gx->nodes[i], &d)) != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphExecKernelNodeSetParams", i, r);
    return grSuccess;
}

grError_t gr__cuda_exec_set_memcpy(const char *call, struct gr_cuda_exec *gx, uint32_t i, void *dst,
                                   const void *src, size_t count)
{
    CUDA_MEMCPY3D d;
    CUresult r = enter(gx);
    if (r == CUDA_SUCCESS) {
        memcpy_desc(&d, dst, src, count);
        r = gr_cu.cuGraphExecMemcpyNodeSetParams(gx->exec, gx->nodes[i], &d, gr__cuda_context(gx->device));
    }
    return r ? set_failed(call, gx, "cuGraphExecMemcpyNodeSetParams", i, r) : grSuccess;
}

grError_t gr__cuda_exec_set_memset(const char *call, struct gr_cuda_exec *gx, uint32_t i,
                                   const grMemsetParams *p)
{
    CUDA_MEMSET_NODE_PARAMS d;
    CUresult r = enter(gx);
    if (r == CUDA_SUCCESS) {
        memset_desc(&d, p);
        r = gr_cu.cuGraphExecMemsetNodeSetParams(gx->exec, gx->nodes[i], &d, gr__cuda_context(gx->device));
    }
    return r ? set_failed(call, gx, "cuGraphExecMemsetNodeSetParams", i, r) : grSuccess;
}

grError_t gr__cuda_exec_set_host(const char *call, struct gr_cuda_exec *gx, uint32_t i,
                                 const grHostNodeParams *p)
{
    CUDA_HOST_NODE_PARAMS d = {p->fn, p->userData};
    CUresult r = enter(gx);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuGraphExecHostNodeSetParams(gx->exec, gx->nodes[i], &d);
    return r ? set_failed(call, gx, "cuGraphExecHostNodeSetParams", i, r) : grSuccess;
}

grError_t gr__cuda_exec_set_event(const char *call, struct gr_cuda_exec *gx, uint32_t i, bool record,
                                  grEvent_t ev)
{
    CUevent cu = NULL;
    grError_t err = event_of(call, gx->device, ev, i, &cu);
    if (err)
        return err;
    CUresult r = enter(gx);
    if (r == CUDA_SUCCESS)
        r = record ? gr_cu.cuGraphExecEventRecordNodeSetEvent(gx->exec, gx->nodes[i], cu)
                   : gr_cu.cuGraphExecEventWaitNodeSetEvent(gx->exec, gx->nodes[i], cu);
    return r ? set_failed(call, gx,
                          record ? "cuGraphExecEventRecordNodeSetEvent" : "cuGraphExecEventWaitNodeSetEvent",
                          i, r)
             : grSuccess;
}

grError_t gr__cuda_exec_set_enabled(const char *call, struct gr_cuda_exec *gx, uint32_t i, bool enabled)
{
    CUresult r = enter(gx);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuGraphNodeSetEnabled(gx->exec, gx->nodes[i], enabled ? 1u : 0u);
    return r ? set_failed(call, gx, "cuGraphNodeSetEnabled", i, r) : grSuccess;
}

grError_t gr__cuda_exec_check_kernel(const char *call, struct gr_cuda_exec *gx, grKernel_t k)
{
    CUfunction f = NULL;
    /* Loaded for the device already (the usual case: the same kernels):
     * nothing to ask the driver. */
    struct gr_cuda_kernel *g = gr_load_acquire(&k->gpu);
    if (g && gr_load_acquire(&g->fn[gx->device - 1]))
        return grSuccess;
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    return gr__cuda_kernel_function(call, k, gx->device, &f);
}

grError_t gr__cuda_exec_check_event(const char *call, struct gr_cuda_exec *gx, grEvent_t ev)
{
    CUevent cu = NULL;
    return event_of(call, gx->device, ev, UINT32_MAX, &cu);
}

grError_t gr__cuda_exec_sync_node(const char *call, struct gr_cuda_exec *gx, const gr_pnode *pn)
{
    uint32_t i = pn->index;
    switch (pn->type) {
    case grGraphNodeTypeKernel:
        return gr__cuda_exec_set_kernel(call, gx, i, pn->u.kern.k, &pn->u.kern.grid, &pn->u.kern.block,
                                        pn->shmem, pn->u.kern.argv);
    case grGraphNodeTypeMemcpy:
        return gr__cuda_exec_set_memcpy(call, gx, i, pn->u.copy.p.dst, pn->u.copy.p.src, pn->u.copy.p.count);
    case grGraphNodeTypeMemset:
        return gr__cuda_exec_set_memset(call, gx, i, &pn->u.memset);
    case grGraphNodeTypeHost:
        return gr__cuda_exec_set_host(call, gx, i, &pn->u.host);
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        return gr__cuda_exec_set_event(call, gx, i, pn->type == grGraphNodeTypeEventRecord, pn->u.event);
    default:
        return grSuccess;
    }
}

grError_t gr__cuda_exec_sync_range(const char *call, struct gr_cuda_exec *gx, const gr_plan *p, uint32_t from,
                                   uint32_t to, const uint8_t *only)
{
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    grError_t err = grSuccess;
    batch_device = gx->device;
    for (uint32_t i = from; i < to && !err; i++)
        if (!only || only[i])
            err = gr__cuda_exec_sync_node(call, gx, &p->nodes[i]);
    batch_device = 0;
    return err;
}
