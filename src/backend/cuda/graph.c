/*
 * graph.c - executables on a GPU: the plan that instantiation built
 * (plan.h: the graph flattened in topological order, child graphs inlined
 * between empty 'enter' and 'leave' nodes) lowered to a CUgraph, one
 * driver node per plan node, instantiated with cuGraphInstantiateWithFlags;
 * a launch is one cuGraphLaunch; the setters and grGraphExecUpdate, whose
 * checks and pairing are the exec layer's, reach the driver's executable
 * through cuGraphExec*SetParams on the node's CUgraphNode, and an update
 * that changes many nodes writes them into the driver's graph
 * (cuGraph*NodeSetParams, host-side only) and applies it in one
 * cuGraphExecUpdate, as a native cudaGraphExecUpdate does. An executable
 * eligible to share (share.c) is a view of a driver executable of its
 * shape: the calls below reach that one through driver_begin while it
 * holds the view's parameters, and change only the plan otherwise.
 *
 * The exec setters make no context current: the driver's executable names
 * its context. A driver that wants one current says
 * CUDA_ERROR_INVALID_CONTEXT, and the call is made again with it current
 * (drive_exec), so a set-params costs graphrt's checks plus the driver's
 * own call.
 *
 * Invariants: gx->nodes[i] is the driver node of plan node i (every plan
 * node but EXIT has one); gx->graph stays alive as long as gx->exec, since
 * the exec setters name nodes of the graph the executable came from; the
 * driver's graph holds the parameters of its executable except at the
 * nodes marked in gx->stale (written by an exec setter since), which a
 * whole-graph update writes first; gx->disabled_once is set by the first
 * node disabled, after which updates keep to the exec setters (a
 * cuGraphExecUpdate is not documented to keep nodes disabled).
 * Nothing here takes a graphrt lock: the exec layer calls in between
 * gr__exec_write_begin and gr__exec_write_end, or at instantiation and
 * destruction, when no other thread uses the executable.
 *
 * Conditional nodes become the driver's (cuGraphAddNode with
 * CU_GRAPH_NODE_TYPE_CONDITIONAL), each body plan lowered into the body
 * graph the driver made, through a copy of gx that names that graph and
 * the body's node array; every handle is made first (make_conds), on the
 * top-level graph, so that it serves a node at any depth and its default
 * is applied once per launch, as graphrt's. A kernel sets a condition with CUDA's
 * cudaGraphSetConditional, given the driver's handle: where an 8-byte
 * kernel argument holds one of the executable's graphrt handles, the
 * driver is given the driver's handle in its place (cond_args), at
 * lowering, in the exec setters and in updates, so the kernel's argument
 * is the handle it sets (docs/conditional.md).
 *
 * Kernel nodes carry their launch attributes: those the driver takes
 * (gr__cuda_launch_attrs) are found in the graph at instantiation
 * (gr__plan_kattrs, plan_attrs.c), kept in gx->kattrs by place (plan,
 * node: lower_attrs.c) and given to each node as it is added
 * (cuGraphKernelNodeSetAttribute), at every lowering of the executable;
 * an executable with any keeps a driver executable of its own. Setters
 * and updates change parameters, never attributes (an update that
 * changes a node's other attributes keeps the lowered ones). Edges with
 * data between kernel nodes (programmatic edges: gr__plan_edges) are
 * found and kept alike (gx->kedges) and added with their data
 * (cuGraphAddDependencies at the CUDA 12.3 ABI) once both ends are; a
 * driver without that call gets full edges in their place.
 *
 * Batch memory operation nodes become the driver's
 * (cuGraphAddBatchMemOpNode, CUDA 11.7), their operations converted as a
 * stream's cuStreamBatchMemOp takes them (memop.c) and run in the GPU's
 * primary context; the exec layer has checked that every word is memory
 * the GPU reaches (exec/devmem.c) and that an executable's node keeps its
 * count and the type of each operation, as the driver asks.
 */
#include "graph_int.h"

#include <string.h>

/* A conditional node lowered: the driver's handle standing for graphrt's
 * handle 'slot' (which an update may replace by another graph's), and
 * per body the driver nodes of the body's plan nodes (EXIT has none). */
struct gr_cuda_cond {
    /* Relaxed: an update writes it in its write section while an exec
     * setter, which calls the driver before entering one, may read it. */
    const gr_cond_slot *_Atomic slot;
    CUgraphConditionalHandle handle;
    unsigned defval, flags; /* graphrt's, of the slot 'handle' was made for */
    uint32_t nbodies;
    CUgraphNode *nodes[];
};

/* An executable's conditional nodes, at any depth, in the order lowered:
 * depth first, each node before its bodies' nodes, bodies in order. */
struct gr_cuda_conds {
    CUgraph top; /* the top-level graph, where the handles are made */
    struct gr_cuda_cond **at;
    uint32_t n, cap;
    uint32_t added; /* lowering: the records whose nodes are in the graph */
};

/* Kernel arguments with a handle are passed to the driver from an array
 * of this many pointers on the stack (cond_args): grKernelCreate's most
 * parameters. */
#define GR_CUDA_COND_KARGS 64

/* A whole-graph update goes through cuGraphExecUpdate when it changes at
 * least this many nodes and at least 1/GR_CUDA_WHOLE_UPDATE_SHARE of the
 * graph; fewer changes go node by node (cuGraphExecUpdate walks every node). */
#define GR_CUDA_WHOLE_UPDATE_MIN 16u
#define GR_CUDA_WHOLE_UPDATE_SHARE 8u

/* A copy as the driver's 3D description: each operand device memory
 * (a GPU's, as the driver tells) or host memory (pinned or pageable); 1D
 * (count bytes) without a shape, else the pitched layout 'shape' from dst
 * and src. */
static void memcpy_desc(CUDA_MEMCPY3D *d, void *dst, const void *src, size_t count,
                        const gr_copy_shape *shape)
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
    if (GR_UNLIKELY(shape != NULL)) {
        d->WidthInBytes = shape->width;
        d->Height = shape->height;
        d->Depth = shape->depth;
        d->srcPitch = shape->spitch;
        d->srcHeight = shape->srows;
        d->dstPitch = shape->dpitch;
        d->dstHeight = shape->drows;
    }
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

/* args, or where an argument of kernel k holds a graphrt handle of gx's
 * conditional nodes, buf (room for k's parameters): a copy
 * of args whose such arguments point at the driver's handles instead.
 * Only a parameter of 8 bytes whose value is a live handle of the
 * executable is replaced: a kernel takes a handle as a parameter of its
 * own, of type grGraphConditionalHandle. */
static void **cond_args(const struct gr_dev_exec *gx, grKernel_t k, void **args, void **buf)
{
    const struct gr_cuda_conds *cs = gx->cond;
    void **out = args;
    for (int j = 0; j < k->nparams; j++) {
        unsigned long long v;
        if (k->sizes[j] != sizeof v)
            continue;
        memcpy(&v, args[j], sizeof v);
        for (uint32_t h = 0; h < cs->n; h++) {
            if (v != (unsigned long long)(uintptr_t)gr_load_relaxed(&cs->at[h]->slot))
                continue;
            if (out == args)
                memcpy(buf, args, (size_t)k->nparams * sizeof *args);
            buf[j] = &cs->at[h]->handle;
            out = buf;
            break;
        }
    }
    return out;
}

/* The driver's description of a kernel launch on gx's device; buf has
 * room for GR_CUDA_COND_KARGS pointers and lives as long as *d. */
static grError_t kernel_desc(const char *call, const struct gr_dev_exec *gx, CUDA_KERNEL_NODE_PARAMS *d,
                             grKernel_t k, const grDim3 *grid, const grDim3 *block, uint32_t shmem,
                             void **args, void **buf)
{
    CUfunction f = NULL;
    grError_t err = gr__cuda_kernel_function(call, k, gx->device, &f);
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
    d->kernelParams = gx->cond ? cond_args(gx, k, args, buf) : args;
    return grSuccess;
}

/* The CUevent of an event node's event, which must be of the executable's
 * GPU. */
static grError_t event_of(const char *call, int device, grEvent_t ev, uint32_t index, CUevent *out)
{
    if (ev->device != device)
        return gr__fail(grErrorInvalidValue,
                        "%s: the event of event node %u (plan order) was created on device %d, but the "
                        "executable is instantiated for device %d; an event node's event must be created "
                        "on the device the graph runs on (grSetDevice before grEventCreate)",
                        call, index, ev->device, device);
    *out = gr__cuda_event(ev)->cu;
    return grSuccess;
}

/* The driver's description of a batch memory operation node of gx's
 * device holding count checked operations: converted into inl
 * (GR_CU_MEMOPS_INLINE elements) or a heap block, which the caller frees
 * when d->paramArray is not inl. Refused where the driver has no such
 * nodes (CUDA 11.7's) or out of memory. */
static grError_t memop_desc(const char *call, const struct gr_dev_exec *gx, CUDA_BATCH_MEM_OP_NODE_PARAMS *d,
                            unsigned count, const grStreamBatchMemOpParams *ops,
                            CUstreamBatchMemOpParams *inl)
{
    if (!gr_cu.cuGraphAddBatchMemOpNode || !gr_cu.cuGraphBatchMemOpNodeSetParams ||
        !gr_cu.cuGraphExecBatchMemOpNodeSetParams)
        return gr__fail(grErrorCallRequiresNewerDriver,
                        "%s: the NVIDIA driver has no batch memory operation nodes "
                        "(cuGraphAddBatchMemOpNode and its setters, CUDA 11.7), so the graph cannot run on "
                        "device %d; instantiate it on the CPU device (0) or use a newer driver",
                        call, gx->device);
    memset(d, 0, sizeof *d);
    d->ctx = gr__cuda_context(gx->device);
    d->count = count;
    d->paramArray = gr__cuda_memops_convert(ops, count, inl);
    if (!d->paramArray)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory converting %u operations for device %d",
                        call, count, gx->device);
    return grSuccess;
}

static grError_t add_cond(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn, CUgraphNode *out,
                          const CUgraphNode *deps, size_t ndeps);

/* Adds plan node i to gx->graph after 'deps'. */
static grError_t add_node(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn, uint32_t i,
                          const CUgraphNode *deps, size_t ndeps)
{
    CUgraphNode *out = &gx->nodes[i];
    CUresult r = CUDA_SUCCESS;
    grError_t err;
    switch (pn->type) {
    case grGraphNodeTypeKernel: {
        CUDA_KERNEL_NODE_PARAMS d;
        void *buf[GR_CUDA_COND_KARGS];
        err = kernel_desc(call, gx, &d, pn->u.kern.k, &pn->u.kern.grid, &pn->u.kern.block, pn->shmem,
                          pn->u.kern.argv, buf);
        if (err)
            return err;
        r = gr_cu.cuGraphAddKernelNode(out, gx->graph, deps, ndeps, &d);
        /* The node keeps its cooperative attribute, which the driver
         * checks against its occupancy at instantiation, and the others
         * the driver takes, which it checks here. */
        if (r == CUDA_SUCCESS && pn->krun == GR_KRUN_COOP) {
            CUlaunchAttributeValue v;
            memset(&v, 0, sizeof v);
            v.cooperative = 1;
            r = gr_cu.cuGraphKernelNodeSetAttribute(*out, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v);
        }
        if (r == CUDA_SUCCESS && GR_UNLIKELY(gx->nkattrs != 0) &&
            (r = gr__cuda_set_kattrs(gx, i, *out)) != CUDA_SUCCESS)
            return gr__fail(gr__cu_error(r),
                            "%s: cuGraphKernelNodeSetAttribute refused a launch attribute of kernel node %u "
                            "(kernel '%s') of the device %d graph with %s",
                            call, i, pn->u.kern.k->name, gx->device, gr__cu_error_name(r));
        break;
    }
    case grGraphNodeTypeMemcpy: {
        CUDA_MEMCPY3D d;
        memcpy_desc(&d, pn->u.copy.p.dst, pn->u.copy.p.src, pn->u.copy.p.count, gr__pnode_copy_shape(pn));
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
    case grGraphNodeTypeConditional:
        return add_cond(call, gx, pn, out, deps, ndeps);
    case grGraphNodeTypeCollective: /* its NCCL call, captured (nccl.c) */
        return gr__cuda_coll_add(call, gx, pn, out, deps, ndeps);
    case grGraphNodeTypeBatchMemOp: {
        CUDA_BATCH_MEM_OP_NODE_PARAMS d;
        CUstreamBatchMemOpParams inl[GR_CU_MEMOPS_INLINE];
        if ((err = memop_desc(call, gx, &d, pn->u.memop.count, pn->u.memop.ops, inl)))
            return err;
        r = gr_cu.cuGraphAddBatchMemOpNode(out, gx->graph, deps, ndeps, &d);
        if (d.paramArray != inl)
            gr__free(d.paramArray);
        break;
    }
    default:
        /* Empty nodes, the 'enter' and 'leave' nodes of child graphs, and
         * graph memory's allocation and free nodes: the exec layer maps an
         * executable's allocations for its whole life (exec/graphmem.c),
         * which covers CUDA's alloc-to-free validity, and applies the
         * launch rule itself. */
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

/* Adds the nodes of plan p to gx->graph, as gx->nodes[0..p->nnodes - 1). */
static grError_t lower_nodes(const char *call, struct gr_dev_exec *gx, const gr_plan *p)
{
    uint32_t n = p->nnodes - 1, *off = NULL, *pred = NULL;
    CUgraphNode *deps = NULL;
    if (!predecessors(p, &off, &pred) || !(deps = gr__malloc(((size_t)p->nsucc + 1) * sizeof *deps))) {
        gr__free(off);
        gr__free(pred);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        gx->device);
    }
    grError_t err = grSuccess;
    /* The plan is in topological order: every node's predecessors are in
     * the driver's graph before it. An edge with data (gx->kedges) is
     * added once both its ends are, with its data. */
    for (uint32_t i = 0; i < n && !err; i++) {
        size_t nd = 0;
        bool with_data = false;
        for (uint32_t k = off[i]; k < off[i + 1]; k++) {
            if (GR_UNLIKELY(gx->nkedges != 0) && gr__cuda_kedge_of(gx, i, pred[k])) {
                with_data = true;
                continue;
            }
            deps[nd++] = gx->nodes[pred[k]];
        }
        err = add_node(call, gx, &p->nodes[i], i, deps, nd);
        for (uint32_t k = off[i]; with_data && !err && k < off[i + 1]; k++) {
            const CUgraphEdgeData *d = gr__cuda_kedge_of(gx, i, pred[k]);
            CUresult r = d ? gr_cu.cuGraphAddDependencies(gx->graph, &gx->nodes[pred[k]], &gx->nodes[i], d, 1)
                           : CUDA_SUCCESS;
            if (r != CUDA_SUCCESS)
                err = gr__fail(
                    gr__cu_error(r),
                    "%s: cuGraphAddDependencies refused the edge (type %u, from_port %u) from kernel "
                    "node %u to kernel node %u of the device %d graph with %s",
                    call, d->type, d->from_port, pred[k], i, gx->device, gr__cu_error_name(r));
        }
    }
    gr__free(off);
    gr__free(pred);
    gr__free(deps);
    return err;
}

/* Makes the record and the driver's handle (on the top-level graph) of
 * conditional plan c, appended to gx->cond, where gr__cuda_exec_free
 * finds it on every path. */
static grError_t make_cond(const char *call, struct gr_dev_exec *gx, const gr_cond_plan *c)
{
    if (!gr_cu.cuGraphConditionalHandleCreate || !gr_cu.cuGraphAddNode)
        return gr__fail(grErrorCallRequiresNewerDriver,
                        "%s: the NVIDIA driver has no conditional nodes (cuGraphConditionalHandleCreate and "
                        "cuGraphAddNode at the CUDA 12.3 ABI), so the graph cannot run on device %d; "
                        "instantiate it on the CPU device (0) or use a CUDA 12.3 or later driver",
                        call, gx->device);
    if (!gx->cond && (gx->cond = gr__calloc(1, sizeof *gx->cond)))
        gx->cond->top = gx->graph;
    struct gr_cuda_conds *cs = gx->cond;
    struct gr_cuda_cond *lc = NULL;
    if (cs && cs->n == cs->cap) {
        uint32_t cap = cs->cap ? 2 * cs->cap : 4;
        struct gr_cuda_cond **at = gr__realloc(cs->at, cap * sizeof *at);
        if (at) {
            cs->at = at;
            cs->cap = cap;
        }
    }
    if (cs && cs->n < cs->cap && (lc = gr__calloc(1, sizeof *lc + c->nbodies * sizeof lc->nodes[0])))
        cs->at[cs->n++] = lc;
    if (!lc)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        gx->device);
    gr_store_relaxed(&lc->slot, c->slot);
    lc->defval = c->slot->defval;
    lc->flags = c->slot->flags;
    lc->nbodies = c->nbodies;
    unsigned flags = (c->slot->flags & grGraphCondAssignDefault) ? CU_GRAPH_COND_ASSIGN_DEFAULT : 0u;
    CUresult r = gr_cu.cuGraphConditionalHandleCreate(&lc->handle, cs->top, gr__cuda_context(gx->device),
                                                      c->slot->defval, flags);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "cuGraphConditionalHandleCreate", r);
    return grSuccess;
}

/* make_cond for every conditional node of plan p and its bodies, depth
 * first in plan order (the order add_cond meets them), before any node is
 * added: a kernel may take a handle whose node comes after it. */
static grError_t make_conds(const char *call, struct gr_dev_exec *gx, const gr_plan *p)
{
    grError_t err = grSuccess;
    for (uint32_t i = 0; i + 1 < p->nnodes && !err; i++) {
        const gr_cond_plan *c = p->nodes[i].u.cond;
        if (p->nodes[i].type != grGraphNodeTypeConditional)
            continue;
        err = make_cond(call, gx, c);
        for (uint32_t b = 0; b < c->nbodies && !err; b++)
            err = make_conds(call, gx, c->bodies[b]);
    }
    return err;
}

/* Adds conditional node pn, whose record make_conds made (the next one
 * gx->cond->added names), to gx->graph, then lowers each body into the
 * driver's body graph. */
static grError_t add_cond(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn, CUgraphNode *out,
                          const CUgraphNode *deps, size_t ndeps)
{
    const gr_cond_plan *c = pn->u.cond;
    struct gr_cuda_cond *lc = gx->cond->at[gx->cond->added++];
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    np.conditional.handle = lc->handle;
    np.conditional.type = (int)c->type; /* graphrt's IF, WHILE, SWITCH are CUDA's 0, 1, 2 */
    np.conditional.size = c->nbodies;
    np.conditional.ctx = gr__cuda_context(gx->device);
    CUresult r = gr_cu.cuGraphAddNode(out, gx->graph, deps, NULL, ndeps, &np);
    if (r != CUDA_SUCCESS)
        return gr__fail(gr__cu_error(r),
                        "%s: adding a conditional node (type %u, %u bodies) to the device %d graph failed "
                        "with %s",
                        call, c->type, c->nbodies, gx->device, gr__cu_error_name(r));
    grError_t err = grSuccess;
    for (uint32_t b = 0; b < c->nbodies && !err; b++) {
        const gr_plan *bp = c->bodies[b];
        struct gr_dev_exec body = *gx;
        body.graph = np.conditional.phGraph_out[b];
        body.kcond = gx->cond->added; /* 1 + lc's position: gr__plan_kattrs's numbering */
        body.kbody = b;
        body.nodes = lc->nodes[b] = gr__calloc(bp->nnodes, sizeof *body.nodes);
        err = body.nodes ? lower_nodes(call, &body, bp)
                         : gr__fail(grErrorMemoryAllocation,
                                    "%s: out of memory lowering the graph to device %d", call, gx->device);
    }
    return err;
}

/* Frees gx's records of its conditional nodes (the driver's bodies are
 * its nodes', destroyed with its graph). */
static void conds_free(struct gr_cuda_conds *cs)
{
    if (!cs)
        return;
    for (uint32_t i = 0; i < cs->n; i++) {
        for (uint32_t b = 0; b < cs->at[i]->nbodies; b++)
            gr__free(cs->at[i]->nodes[b]);
        gr__free(cs->at[i]);
    }
    gr__free(cs->at);
    gr__free(cs);
}

void gr__cuda_host_release(struct gr_dev_exec *gx)
{
    if (gr__cuda_enter(gx->device) == CUDA_SUCCESS) {
        if (gx->exec)
            gr_cu.cuGraphExecDestroy(gx->exec);
        if (gx->graph)
            gr_cu.cuGraphDestroy(gx->graph);
        for (uint32_t i = 0; i < gx->nretired; i++)
            gr_cu.cuGraphDestroy(gx->retired[i]);
    }
    gr__free(gx->retired);
    conds_free(gx->cond);
    gr__free(gx->nodes);
    gr__free(gx->stale);
    gx->exec = NULL;
    gx->graph = NULL;
    gx->retired = NULL;
    gx->nretired = 0;
    gx->cond = NULL;
    gx->nodes = NULL;
    gx->stale = NULL;
    gx->nnodes = 0;
    gx->disabled_once = false;
    gx->has_coll = false;
}

void gr__cuda_exec_free(struct gr_dev_exec *gx)
{
    if (!gx)
        return;
    if (gx->share)
        gr__cuda_share_drop(gx);
    else
        gr__cuda_host_release(gx);
    if (gx->after && gr__cuda_enter(gx->device) == CUDA_SUCCESS)
        gr_cu.cuEventDestroy(gx->after);
    gr_stream *last = gr_load_relaxed(&gx->last);
    if (last)
        gr__stream_release(last);
    gr__free(gx->kattrs);
    gr__free(gx->kedges);
    gr__free(gx);
}

grError_t gr__cuda_host_lower(const char *call, struct gr_dev_exec *gx, const gr_plan *p,
                              unsigned long long flags)
{
    int device = gx->device;
    uint32_t n = p->nnodes - 1;
    if (!(gx->nodes = gr__calloc(n ? n : 1, sizeof *gx->nodes)) || !(gx->stale = gr__calloc(n ? n : 1, 1))) {
        gr__cuda_host_release(gx);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    gx->nnodes = n;
    grError_t err = grSuccess;
    CUresult r;
    if ((r = gr_cu.cuGraphCreate(&gx->graph, 0)) != CUDA_SUCCESS)
        err = gr__cu_fail(call, device, "cuGraphCreate", r);
    if (!err)
        err = make_conds(call, gx, p);
    if (!err)
        err = lower_nodes(call, gx, p);
    unsigned long long cuflags = 0;
    if (flags & grGraphInstantiateFlagAutoFreeOnLaunch)
        cuflags |= CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
    if (flags & grGraphInstantiateFlagUseNodePriority)
        cuflags |= CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    if (!err && (r = gr_cu.cuGraphInstantiateWithFlags(&gx->exec, gx->graph, cuflags)) != CUDA_SUCCESS)
        err = gr__cu_fail(call, device, "cuGraphInstantiateWithFlags", r);
    if (!err && GR_UNLIKELY(gx->nkattrs != 0))
        err = gr__cuda_devnodes_read(call, gx);
    /* Upload, as CUDA's flag asks, on the device's legacy stream. */
    if (!err && (flags & grGraphInstantiateFlagUpload) &&
        (r = gr_cu.cuGraphUpload(gx->exec, GR_CU_STREAM_LEGACY)) != CUDA_SUCCESS)
        err = gr__cu_fail(call, device, "cuGraphUpload", r);
    if (err)
        gr__cuda_host_release(gx);
    return err;
}

grError_t gr__cuda_exec_lower(const char *call, const gr_plan *p, int device, unsigned long long flags,
                              struct gr_dev_exec **out)
{
    CUresult r = gr__cuda_enter(device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", r);
    struct gr_cuda_kattr *kattrs = NULL;
    struct gr_cuda_kedge *kedges = NULL;
    uint32_t nkattrs = 0, nkedges = 0;
    grError_t err = gr__cuda_collect_kattrs(call, p, device, &kattrs, &nkattrs);
    if (!err && (err = gr__cuda_collect_kedges(call, p, device, &kedges, &nkedges)))
        gr__free(kattrs);
    if (err)
        return err;
    /* A shared driver executable holds one executable's attributes and
     * edge types. */
    if (nkattrs == 0 && nkedges == 0 && gr__cuda_share_eligible(p, flags))
        return gr__cuda_share_lower(call, p, device, flags, out);
    struct gr_dev_exec *gx = gr__calloc(1, sizeof *gx);
    if (!gx) {
        gr__free(kattrs);
        gr__free(kedges);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    gx->device = device;
    gx->kattrs = kattrs;
    gx->nkattrs = nkattrs;
    gx->kedges = kedges;
    gx->nkedges = nkedges;
    err = gr__cuda_host_lower(call, gx, p, flags);
    if (err) {
        gr__free(gx->kattrs);
        gr__free(gx->kedges);
        gr__free(gx);
        return err;
    }
    *out = gx;
    return grSuccess;
}

int gr__cuda_exec_device(const struct gr_dev_exec *gx)
{
    return gx->device;
}

void gr__cuda_exec_note_launch(struct gr_dev_exec *gx, gr_stream *s)
{
    /* Each exchange's stream is retained once and each one it replaces
     * released once, so racing launches keep the count right. */
    if (GR_UNLIKELY(gr_load_relaxed(&gx->last) != s)) {
        gr__stream_retain(s);
        gr_stream *old = gr_exchange_acq_rel(&gx->last, s);
        if (old)
            gr__stream_release(old);
    }
}

/* The launch after a view got its own driver executable: s waits for
 * what the shared one may still run of it (gx->after), once. */
static CUresult wait_after(struct gr_dev_exec *gx, gr_stream *s)
{
    CUresult r = gr_cu.cuStreamWaitEvent(gr__cuda_stream(s)->cu, gx->after, 0);
    if (r == CUDA_SUCCESS) {
        gr_cu.cuEventDestroy(gx->after);
        gx->after = NULL;
    }
    return r;
}

grError_t gr__cuda_exec_launch(const char *call, struct gr_dev_exec *gx, gr_stream *s, bool upload)
{
    if (gx->share)
        return gr__cuda_share_launch(call, gx, s, upload);
    CUresult r = gr__cuda_enter(gx->device);
    if (GR_UNLIKELY(gx->after != NULL) && r == CUDA_SUCCESS && (r = wait_after(gx, s)) != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "cuStreamWaitEvent", r);
    if (r == CUDA_SUCCESS)
        r = upload ? gr_cu.cuGraphUpload(gx->exec, gr__cuda_stream(s)->cu)
                   : gr_cu.cuGraphLaunch(gx->exec, gr__cuda_stream(s)->cu);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, upload ? "cuGraphUpload" : "cuGraphLaunch", r);
    if (!upload)
        gr__cuda_exec_note_launch(gx, s);
    return grSuccess;
}

bool gr__cuda_exec_defer(struct gr_dev_exec *gx, void (*fn)(void *), void *arg)
{
    gr_stream *s = gr_load_acquire(&gx->last);
    /* A per-thread stream's handle names the calling thread's own. */
    if (!s || (s->flags & GR_STREAM_PER_THREAD))
        return false;
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuLaunchHostFunc(gr__cuda_stream(s)->cu, fn, arg);
    return r == CUDA_SUCCESS;
}

/* Runs 'expr' (a driver call on gx's executable, giving a CUresult into
 * r); where the driver wants a current context, makes gx's current and
 * runs it again. */
#define DRIVE_EXEC(gx, r, expr)                                                                \
    do {                                                                                       \
        (r) = (expr);                                                                          \
        if ((r) == CUDA_ERROR_INVALID_CONTEXT && gr__cuda_enter((gx)->device) == CUDA_SUCCESS) \
            (r) = (expr);                                                                      \
    } while (0)

/* The failure of an exec setter's driver call on plan node i. */
static grError_t set_failed(const char *call, const struct gr_dev_exec *gx, const char *what, uint32_t i,
                            CUresult r)
{
    return gr__fail(gr__cu_error(r), "%s: %s of node %u (plan order) failed on device %d with %s", call, what,
                    i, gx->device, gr__cu_error_name(r));
}

static grError_t set_kernel(const char *call, struct gr_dev_exec *gx, uint32_t i, grKernel_t k,
                            const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args)
{
    CUDA_KERNEL_NODE_PARAMS d;
    void *buf[GR_CUDA_COND_KARGS];
    CUresult r;
    grError_t err = kernel_desc(call, gx, &d, k, grid, block, shmem, args, buf);
    if (err)
        return err;
    DRIVE_EXEC(gx, r, gr_cu.cuGraphExecKernelNodeSetParams(gx->exec, gx->nodes[i], &d));
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphExecKernelNodeSetParams", i, r);
    gx->stale[i] = 1;
    return grSuccess;
}

static grError_t set_memcpy(const char *call, struct gr_dev_exec *gx, uint32_t i, void *dst, const void *src,
                            size_t count, const gr_copy_shape *shape)
{
    CUDA_MEMCPY3D d;
    CUresult r;
    memcpy_desc(&d, dst, src, count, shape);
    DRIVE_EXEC(
        gx, r,
        gr_cu.cuGraphExecMemcpyNodeSetParams(gx->exec, gx->nodes[i], &d, gr__cuda_context(gx->device)));
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphExecMemcpyNodeSetParams", i, r);
    gx->stale[i] = 1;
    return grSuccess;
}

static grError_t set_memset(const char *call, struct gr_dev_exec *gx, uint32_t i, const grMemsetParams *p)
{
    CUDA_MEMSET_NODE_PARAMS d;
    CUresult r;
    memset_desc(&d, p);
    DRIVE_EXEC(
        gx, r,
        gr_cu.cuGraphExecMemsetNodeSetParams(gx->exec, gx->nodes[i], &d, gr__cuda_context(gx->device)));
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphExecMemsetNodeSetParams", i, r);
    gx->stale[i] = 1;
    return grSuccess;
}

static grError_t set_host(const char *call, struct gr_dev_exec *gx, uint32_t i, const grHostNodeParams *p)
{
    CUDA_HOST_NODE_PARAMS d = {p->fn, p->userData};
    CUresult r;
    DRIVE_EXEC(gx, r, gr_cu.cuGraphExecHostNodeSetParams(gx->exec, gx->nodes[i], &d));
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphExecHostNodeSetParams", i, r);
    gx->stale[i] = 1;
    return grSuccess;
}

static grError_t set_event(const char *call, struct gr_dev_exec *gx, uint32_t i, bool record, grEvent_t ev)
{
    CUevent cu = NULL;
    CUresult r;
    grError_t err = event_of(call, gx->device, ev, i, &cu);
    if (err)
        return err;
    if (record)
        DRIVE_EXEC(gx, r, gr_cu.cuGraphExecEventRecordNodeSetEvent(gx->exec, gx->nodes[i], cu));
    else
        DRIVE_EXEC(gx, r, gr_cu.cuGraphExecEventWaitNodeSetEvent(gx->exec, gx->nodes[i], cu));
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx,
                          record ? "cuGraphExecEventRecordNodeSetEvent" : "cuGraphExecEventWaitNodeSetEvent",
                          i, r);
    gx->stale[i] = 1;
    return grSuccess;
}

static grError_t set_memop(const char *call, struct gr_dev_exec *gx, uint32_t i, unsigned count,
                           const grStreamBatchMemOpParams *ops)
{
    CUDA_BATCH_MEM_OP_NODE_PARAMS d;
    CUstreamBatchMemOpParams inl[GR_CU_MEMOPS_INLINE];
    CUresult r;
    grError_t err = memop_desc(call, gx, &d, count, ops, inl);
    if (err)
        return err;
    DRIVE_EXEC(gx, r, gr_cu.cuGraphExecBatchMemOpNodeSetParams(gx->exec, gx->nodes[i], &d));
    if (d.paramArray != inl)
        gr__free(d.paramArray);
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphExecBatchMemOpNodeSetParams", i, r);
    gx->stale[i] = 1;
    return grSuccess;
}

static grError_t set_enabled(const char *call, struct gr_dev_exec *gx, uint32_t i, bool enabled)
{
    CUresult r;
    DRIVE_EXEC(gx, r, gr_cu.cuGraphNodeSetEnabled(gx->exec, gx->nodes[i], enabled ? 1u : 0u));
    if (r != CUDA_SUCCESS)
        return set_failed(call, gx, "cuGraphNodeSetEnabled", i, r);
    gx->disabled_once |= !enabled;
    return grSuccess;
}

grError_t gr__cuda_exec_check_kernel(const char *call, struct gr_dev_exec *gx, grKernel_t k)
{
    CUfunction f = NULL;
    /* Loaded for the device already (the usual case: the same kernels):
     * nothing to ask the driver. */
    struct gr_dev_kernel *g = gr_load_acquire(&k->gpu);
    if (g && gr_load_acquire(&g->fn[gx->device - 1]))
        return grSuccess;
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    return gr__cuda_kernel_function(call, k, gx->device, &f);
}

grError_t gr__cuda_exec_check_event(const char *call, struct gr_dev_exec *gx, grEvent_t ev)
{
    CUevent cu = NULL;
    return event_of(call, gx->device, ev, UINT32_MAX, &cu);
}

static grError_t sync_node(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn)
{
    uint32_t i = pn->index;
    switch (pn->type) {
    case grGraphNodeTypeKernel:
        return set_kernel(call, gx, i, pn->u.kern.k, &pn->u.kern.grid, &pn->u.kern.block, pn->shmem,
                          pn->u.kern.argv);
    case grGraphNodeTypeMemcpy:
        return set_memcpy(call, gx, i, pn->u.copy.p.dst, pn->u.copy.p.src, pn->u.copy.p.count,
                          gr__pnode_copy_shape(pn));
    case grGraphNodeTypeMemset:
        return set_memset(call, gx, i, &pn->u.memset);
    case grGraphNodeTypeHost:
        return set_host(call, gx, i, &pn->u.host);
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent:
        return set_event(call, gx, i, pn->type == grGraphNodeTypeEventRecord, pn->u.event);
    case grGraphNodeTypeCollective:
        return gr__cuda_coll_sync(call, gx, pn);
    case grGraphNodeTypeBatchMemOp:
        return set_memop(call, gx, i, pn->u.memop.count, pn->u.memop.ops);
    default:
        return grSuccess;
    }
}

/* Writes plan node i's parameters into the driver's graph (host-side; the
 * executable is changed by the cuGraphExecUpdate that follows). */
static grError_t graph_set_node(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn, uint32_t i)
{
    CUgraphNode node = gx->nodes[i];
    const char *what;
    CUresult r;
    switch (pn->type) {
    case grGraphNodeTypeKernel: {
        CUDA_KERNEL_NODE_PARAMS d;
        void *buf[GR_CUDA_COND_KARGS];
        grError_t err = kernel_desc(call, gx, &d, pn->u.kern.k, &pn->u.kern.grid, &pn->u.kern.block,
                                    pn->shmem, pn->u.kern.argv, buf);
        if (err)
            return err;
        what = "cuGraphKernelNodeSetParams";
        r = gr_cu.cuGraphKernelNodeSetParams(node, &d);
        break;
    }
    case grGraphNodeTypeMemcpy: {
        CUDA_MEMCPY3D d;
        memcpy_desc(&d, pn->u.copy.p.dst, pn->u.copy.p.src, pn->u.copy.p.count, gr__pnode_copy_shape(pn));
        what = "cuGraphMemcpyNodeSetParams";
        r = gr_cu.cuGraphMemcpyNodeSetParams(node, &d);
        break;
    }
    case grGraphNodeTypeMemset: {
        CUDA_MEMSET_NODE_PARAMS d;
        memset_desc(&d, &pn->u.memset);
        what = "cuGraphMemsetNodeSetParams";
        r = gr_cu.cuGraphMemsetNodeSetParams(node, &d);
        break;
    }
    case grGraphNodeTypeHost: {
        CUDA_HOST_NODE_PARAMS d = {pn->u.host.fn, pn->u.host.userData};
        what = "cuGraphHostNodeSetParams";
        r = gr_cu.cuGraphHostNodeSetParams(node, &d);
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        CUevent ev = NULL;
        grError_t err = event_of(call, gx->device, pn->u.event, i, &ev);
        if (err)
            return err;
        bool record = pn->type == grGraphNodeTypeEventRecord;
        what = record ? "cuGraphEventRecordNodeSetEvent" : "cuGraphEventWaitNodeSetEvent";
        r = record ? gr_cu.cuGraphEventRecordNodeSetEvent(node, ev)
                   : gr_cu.cuGraphEventWaitNodeSetEvent(node, ev);
        break;
    }
    case grGraphNodeTypeBatchMemOp: {
        CUDA_BATCH_MEM_OP_NODE_PARAMS d;
        CUstreamBatchMemOpParams inl[GR_CU_MEMOPS_INLINE];
        grError_t err = memop_desc(call, gx, &d, pn->u.memop.count, pn->u.memop.ops, inl);
        if (err)
            return err;
        what = "cuGraphBatchMemOpNodeSetParams";
        r = gr_cu.cuGraphBatchMemOpNodeSetParams(node, &d);
        if (d.paramArray != inl)
            gr__free(d.paramArray);
        break;
    }
    default:
        return grSuccess;
    }
    return r ? set_failed(call, gx, what, i, r) : grSuccess;
}

/* The whole-graph path of gr__cuda_exec_sync_range: the changed nodes and
 * the stale ones into the driver's graph, then one cuGraphExecUpdate. */
static grError_t sync_whole(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t from,
                            uint32_t to, const uint8_t *only)
{
    grError_t err = grSuccess;
    for (uint32_t i = 0; i < gx->nnodes && !err; i++)
        if (gx->stale[i] || (i >= from && i < to && (!only || only[i])))
            err = graph_set_node(call, gx, &p->nodes[i], i);
    if (err)
        return err;
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    CUresult r = gr_cu.cuGraphExecUpdate(gx->exec, gx->graph, &info);
    if (r != CUDA_SUCCESS)
        return gr__fail(gr__cu_error(r),
                        "%s: cuGraphExecUpdate failed on device %d with %s (update result %d)", call,
                        gx->device, gr__cu_error_name(r), info.result);
    memset(gx->stale, 0, gx->nnodes);
    gx->kattrs_dirty = false;
    return grSuccess;
}

/* Applies body node pn's parameters to its driver node in gx's
 * executable. */
static grError_t set_body_node(const char *call, struct gr_dev_exec *gx, CUgraphNode node, const gr_pnode *pn)
{
    const char *what;
    CUresult r;
    switch (pn->type) {
    case grGraphNodeTypeKernel: {
        CUDA_KERNEL_NODE_PARAMS d;
        void *buf[GR_CUDA_COND_KARGS];
        grError_t err = kernel_desc(call, gx, &d, pn->u.kern.k, &pn->u.kern.grid, &pn->u.kern.block,
                                    pn->shmem, pn->u.kern.argv, buf);
        if (err)
            return err;
        what = "cuGraphExecKernelNodeSetParams";
        r = gr_cu.cuGraphExecKernelNodeSetParams(gx->exec, node, &d);
        break;
    }
    case grGraphNodeTypeMemcpy: {
        CUDA_MEMCPY3D d;
        memcpy_desc(&d, pn->u.copy.p.dst, pn->u.copy.p.src, pn->u.copy.p.count, gr__pnode_copy_shape(pn));
        what = "cuGraphExecMemcpyNodeSetParams";
        r = gr_cu.cuGraphExecMemcpyNodeSetParams(gx->exec, node, &d, gr__cuda_context(gx->device));
        break;
    }
    case grGraphNodeTypeMemset: {
        CUDA_MEMSET_NODE_PARAMS d;
        memset_desc(&d, &pn->u.memset);
        what = "cuGraphExecMemsetNodeSetParams";
        r = gr_cu.cuGraphExecMemsetNodeSetParams(gx->exec, node, &d, gr__cuda_context(gx->device));
        break;
    }
    default:
        return grSuccess;
    }
    if (r != CUDA_SUCCESS)
        return gr__fail(gr__cu_error(r),
                        "%s: %s of node %u (plan order) of a conditional node's body failed on device %d "
                        "with %s",
                        call, what, pn->index, gx->device, gr__cu_error_name(r));
    return grSuccess;
}

/* Walks conditional plan c and those of its bodies with gx->cond's
 * records, in the order they were lowered (*k: the next record): takes
 * their handles (an update may bring another graph's) and, with 'apply',
 * applies their bodies' nodes to the driver's executable. */
static grError_t sync_cond(const char *call, struct gr_dev_exec *gx, const gr_cond_plan *c, uint32_t *k,
                           bool apply)
{
    struct gr_cuda_cond *lc = gx->cond->at[(*k)++];
    grError_t err = grSuccess;
    gr_store_relaxed(&lc->slot, c->slot);
    for (uint32_t b = 0; b < c->nbodies; b++) {
        const gr_plan *bp = c->bodies[b];
        for (uint32_t i = 0; i + 1 < bp->nnodes && !err; i++) {
            const gr_pnode *pn = &bp->nodes[i];
            if (pn->type == grGraphNodeTypeConditional)
                err = sync_cond(call, gx, pn->u.cond, k, apply);
            else if (apply)
                err = set_body_node(call, gx, lc->nodes[b][i], pn);
        }
    }
    return err;
}

/* True once a record holds a graphrt handle whose default or flags
 * differ from those its driver's handle was made with. */
static bool defaults_changed(const struct gr_cuda_conds *cs)
{
    for (uint32_t k = 0; k < cs->n; k++) {
        const gr_cond_slot *slot = gr_load_relaxed(&cs->at[k]->slot);
        if (slot->defval != cs->at[k]->defval || slot->flags != cs->at[k]->flags)
            return true;
    }
    return false;
}

/* A driver's handle keeps the default it was made with, so an update that
 * changes one lowers the whole plan again into a new CUgraph, with new
 * handles, and applies it with one cuGraphExecUpdate, which takes the new
 * graph's handles as a native update does. The executable's node
 * handles stay those of the graph it was instantiated from (the exec
 * setters name those); the records take the new handles, which kernel
 * arguments are matched against from then on. */
static grError_t rehandle(const char *call, struct gr_dev_exec *gx, const gr_plan *p)
{
    struct gr_dev_exec fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.device = gx->device;
    fresh.nnodes = gx->nnodes;
    fresh.kattrs = gx->kattrs; /* borrowed: the nodes get them again */
    fresh.nkattrs = gx->nkattrs;
    fresh.kedges = gx->kedges;
    fresh.nkedges = gx->nkedges;
    CUgraph *retired = gr__realloc(gx->retired, ((size_t)gx->nretired + 1) * sizeof *retired);
    if (retired)
        gx->retired = retired;
    if (!retired || !(fresh.nodes = gr__calloc(gx->nnodes ? gx->nnodes : 1, sizeof *fresh.nodes)))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        gx->device);
    grError_t err = grSuccess;
    CUresult r = gr_cu.cuGraphCreate(&fresh.graph, 0);
    if (r != CUDA_SUCCESS)
        err = gr__cu_fail(call, gx->device, "cuGraphCreate", r);
    if (!err)
        err = make_conds(call, &fresh, p);
    if (!err)
        err = lower_nodes(call, &fresh, p);
    if (!err && GR_NEVER(!fresh.cond || fresh.cond->n != gx->cond->n))
        err = gr__fail(grErrorUnknown, "%s: the lowered graph has other conditional nodes", call);
    if (!err) {
        CUgraphExecUpdateResultInfo info;
        memset(&info, 0, sizeof info);
        r = gr_cu.cuGraphExecUpdate(gx->exec, fresh.graph, &info);
        if (r != CUDA_SUCCESS)
            err = gr__fail(gr__cu_error(r),
                           "%s: cuGraphExecUpdate failed on device %d with %s (update result %d)", call,
                           gx->device, gr__cu_error_name(r), info.result);
    }
    if (!err) {
        for (uint32_t k = 0; k < gx->cond->n; k++) {
            struct gr_cuda_cond *lc = gx->cond->at[k];
            lc->handle = fresh.cond->at[k]->handle;
            lc->defval = fresh.cond->at[k]->defval;
            lc->flags = fresh.cond->at[k]->flags;
        }
        gx->retired[gx->nretired++] = fresh.graph;
        fresh.graph = NULL;
        memset(gx->stale, 0, gx->nnodes);
        /* A whole update is not documented to keep nodes disabled. */
        for (uint32_t i = 0; gx->disabled_once && i < gx->nnodes && !err; i++)
            if (!p->nodes[i].enabled && (r = gr_cu.cuGraphNodeSetEnabled(gx->exec, gx->nodes[i], 0)))
                err = set_failed(call, gx, "cuGraphNodeSetEnabled", i, r);
    }
    if (fresh.graph)
        gr_cu.cuGraphDestroy(fresh.graph);
    conds_free(fresh.cond);
    gr__free(fresh.nodes);
    return err;
}

/* gr__cuda_exec_sync_range's part for conditional nodes: first every
 * record takes its handle (the kernels written next find them), then the
 * bodies of the conditional nodes among those to sync are applied whole
 * (an update compiled them again). *whole is set where the handles' defaults
 * changed and the whole plan was applied (rehandle). */
static grError_t sync_conds(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t from,
                            uint32_t to, const uint8_t *only, bool *whole)
{
    grError_t err = grSuccess;
    for (int pass = 0; pass < 2 && !err; pass++) {
        if (pass == 1 && defaults_changed(gx->cond)) {
            *whole = true;
            return rehandle(call, gx, p);
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i + 1 < p->nnodes && !err; i++)
            if (p->nodes[i].type == grGraphNodeTypeConditional)
                err = sync_cond(call, gx, p->nodes[i].u.cond, &k,
                                pass == 1 && i >= from && i < to && (!only || only[i]));
    }
    return err;
}

static grError_t sync_range(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t from,
                            uint32_t to, const uint8_t *only)
{
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    if (gx->cond) {
        bool whole = false;
        grError_t err = sync_conds(call, gx, p, from, to, only, &whole);
        if (err || whole)
            return err;
    }
    uint32_t changed = 0;
    for (uint32_t i = from; i < to; i++)
        changed += !only || only[i];
    /* The whole-graph path would have to write the bodies' nodes too.
     * Launch attributes reach the executable through it only (the driver
     * has no exec setter for them); gr__cuda_exec_set_kattrs leaves none
     * where it cannot be taken. */
    if (!gx->disabled_once && !gx->has_coll && !gx->cond &&
        (gx->kattrs_dirty || (changed >= GR_CUDA_WHOLE_UPDATE_MIN &&
                              (uint64_t)changed * GR_CUDA_WHOLE_UPDATE_SHARE >= gx->nnodes)))
        return sync_whole(call, gx, p, from, to, only);
    grError_t err = grSuccess;
    for (uint32_t i = from; i < to && !err; i++)
        if (!only || only[i])
            err = sync_node(call, gx, &p->nodes[i]);
    return err;
}

/* ---- the exec layer's calls: an executable of its own is driven
 * directly; a view (share.c) reaches the shared driver executable only
 * while that holds the view's parameters, else the plan, which the exec
 * layer writes, is all there is to change (the view's next switch writes
 * it whole into the driver's graph). Either way the checks that lowering
 * makes of a kernel or an event are made, so a refusal comes from the
 * setter, as on a driver executable of one's own. */

/* The driver executable a change of gx goes to: gx's own, or for a view
 * the shared one while it holds gx's parameters (else NULL), its record
 * locked until driver_end. */
static struct gr_dev_exec *driver_begin(struct gr_dev_exec *gx)
{
    return gx->share ? gr__cuda_share_hold(gx) : gx;
}

static void driver_end(struct gr_dev_exec *gx)
{
    if (gx->share)
        gr__cuda_share_let_go(gx);
}

grError_t gr__cuda_exec_set_kernel(const char *call, struct gr_dev_exec *gx, uint32_t i, grKernel_t k,
                                   const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args)
{
    grError_t err = gx->share ? gr__cuda_exec_check_kernel(call, gx, k) : grSuccess;
    if (err)
        return err;
    struct gr_dev_exec *h = driver_begin(gx);
    err = h ? set_kernel(call, h, i, k, grid, block, shmem, args) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_exec_set_memcpy(const char *call, struct gr_dev_exec *gx, uint32_t i, void *dst,
                                   const void *src, size_t count, const gr_copy_shape *shape)
{
    struct gr_dev_exec *h = driver_begin(gx);
    grError_t err = h ? set_memcpy(call, h, i, dst, src, count, shape) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_exec_set_memset(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                   const grMemsetParams *p)
{
    struct gr_dev_exec *h = driver_begin(gx);
    grError_t err = h ? set_memset(call, h, i, p) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_exec_set_host(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                 const grHostNodeParams *p)
{
    struct gr_dev_exec *h = driver_begin(gx);
    grError_t err = h ? set_host(call, h, i, p) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_exec_set_event(const char *call, struct gr_dev_exec *gx, uint32_t i, bool record,
                                  grEvent_t ev)
{
    grError_t err = gx->share ? gr__cuda_exec_check_event(call, gx, ev) : grSuccess;
    if (err)
        return err;
    struct gr_dev_exec *h = driver_begin(gx);
    err = h ? set_event(call, h, i, record, ev) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_exec_set_memop(const char *call, struct gr_dev_exec *gx, uint32_t i, unsigned count,
                                  const grStreamBatchMemOpParams *ops)
{
    struct gr_dev_exec *h = driver_begin(gx);
    grError_t err = h ? set_memop(call, h, i, count, ops) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_exec_set_enabled(const char *call, struct gr_dev_exec *gx, uint32_t i, bool enabled)
{
    /* A view has every node enabled (a disabled one would have to be
     * carried through every switch): enabling is nothing to do, and
     * disabling gives it a driver executable of its own first. */
    if (gx->share && enabled)
        return grSuccess;
    grError_t err = gx->share ? gr__cuda_share_promote(call, gx) : grSuccess;
    return err ? err : set_enabled(call, gx, i, enabled);
}

grError_t gr__cuda_exec_sync_range(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t from,
                                   uint32_t to, const uint8_t *only)
{
    struct gr_dev_exec *h = driver_begin(gx);
    grError_t err = h ? sync_range(call, h, p, from, to, only) : grSuccess;
    driver_end(gx);
    return err;
}

grError_t gr__cuda_host_sync_all(const char *call, struct gr_dev_exec *gx, const gr_plan *p)
{
    return sync_whole(call, gx, p, 0, gx->nnodes, NULL);
}
