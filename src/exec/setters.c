/*
 * setters.c - in-place parameter updates of an executable's nodes and
 * enabling/disabling them.
 *
 * Every setter checks the parameters first (the graph API's checks),
 * then, between gr__exec_write_begin and gr__exec_write_end (no launch
 * queued or running, none queued meanwhile), checks what an executable
 * may change against the plan (shared with update.c) and writes it:
 * launches issued before the call use the old parameters, launches
 * issued after it the new ones, as in CUDA.
 */
#include "exec.h"
#include "../backend/device.h"

#include <string.h>

/* An executable on a GPU changes the nodes of conditional nodes' bodies
 * through grGraphExecUpdate only: its setters reach top-level nodes. */
static grError_t gpu_body_refused(const char *call, grGraphExec_t e, grGraphNode_t node, const gr_pnode *pn)
{
    uintptr_t off = (uintptr_t)pn - (uintptr_t)e->plan.nodes;
    if (e->gpu == NULL || off < (uintptr_t)e->plan.nnodes * sizeof *pn)
        return grSuccess;
    return gr__fail(grErrorNotSupported,
                    "%s: node %p is in a conditional node's body, and the executable runs on a GPU, where "
                    "body nodes change only through grGraphExecUpdate: set the node's parameters in the "
                    "graph and update the executable",
                    call, GR_PTR(node));
}

/* find_node's failures (and its first call, which builds the node map),
 * each with its detail; the lookup of setters defined elsewhere too. */
GR_NOINLINE grError_t gr__exec_find_typed(const char *call, grGraphExec_t e, grGraphNode_t node,
                                          grGraphNodeType want, gr_pnode **out)
{
    grError_t err = gr__exec_check(call, e);
    if (err)
        return err;
    gr_pnode *pn = NULL;
    grGraphNodeType t = gr__exec_find_node(e, node, &pn);
    if (t == grGraphNodeTypeCount)
        return gr__fail(
            grErrorInvalidValue,
            "%s: node %p is not a node of the graph executable %p was instantiated from, nor of its "
            "conditional nodes' bodies (nodes inside child graphs are updated with "
            "grGraphExecChildGraphNodeSetParams)",
            call, GR_PTR(node), GR_PTR(e));
    if (t != want)
        return gr__fail(grErrorInvalidValue, "%s: node %p is a %s node, not a %s node", call, GR_PTR(node),
                        gr__node_type_name(t), gr__node_type_name(want));
    if ((err = gpu_body_refused(call, e, node, pn)))
        return err;
    *out = pn;
    return grSuccess;
}

/* Finds 'node' among the executable's top-level nodes and checks its type.
 * The common case reads the map slot and the plan node only: a top-level
 * node's plan node has the node's type, except a child graph's, whose
 * plan node is its empty 'enter' node, and no setter takes empty nodes. */
static inline grError_t find_node(const char *call, grGraphExec_t e, grGraphNode_t node, grGraphNodeType want,
                                  gr_pnode **out)
{
    if (GR_LIKELY(gr__exec_valid(e))) {
        const gr_node_slot *slot = gr__exec_lookup(e, node);
        if (GR_LIKELY(slot != NULL)) {
            gr_pnode *pn = &e->plan.nodes[slot->pindex];
            if (GR_LIKELY(pn->type == (uint8_t)want)) {
                *out = pn;
                return grSuccess;
            }
        }
    }
    return gr__exec_find_typed(call, e, node, want, out);
}

/* Points pn at kernel k (references moved) with the given geometry; the
 * argument values are written by the caller. The dimensions come by
 * address and are copied field by field, for the reason given at
 * gr__kernel_check. */
static void set_kernel_fields(gr_pnode *pn, grKernel_t k, const grDim3 *grid, const grDim3 *block,
                              uint32_t shmem)
{
    if (k != pn->u.kern.k) {
        gr__kernel_retain(k);
        gr__kernel_release(pn->u.kern.k);
        pn->u.kern.k = k;
    }
    pn->u.kern.grid.x = grid->x;
    pn->u.kern.grid.y = grid->y;
    pn->u.kern.grid.z = grid->z;
    pn->u.kern.block.x = block->x;
    pn->u.kern.block.y = block->y;
    pn->u.kern.block.z = block->z;
    pn->shmem = shmem;
    pn->one_block = grid->x == 1 && grid->y == 1 && grid->z == 1;
}

bool gr__pnode_set_kernel(gr_pnode *pn, const gr_kernel_params *kp)
{
    grKernel_t k = kp->kernel, old = pn->u.kern.k;
    if (!gr__kernel_same_layout(k, old)) {
        /* One block: the pointers, then the values they point to. */
        size_t vbytes = ((size_t)k->nparams * sizeof(void *) + 15u) & ~(size_t)15u;
        void **argv = gr__aligned_alloc(16, vbytes + k->argbytes);
        if (!argv)
            return false;
        unsigned char *a = (unsigned char *)argv + vbytes;
        for (int i = 0; i < k->nparams; i++)
            argv[i] = a + k->offsets[i];
        if (pn->own_args)
            gr__free(pn->u.kern.argv);
        pn->u.kern.argv = argv;
        pn->own_args = 1;
    }
    /* Parameter 0 sits at offset 0, so argv[0] is the start of the values. */
    if (k->nparams)
        gr__kernel_args_copy(pn->u.kern.argv[0], kp->argbuf, k->argbytes);
    set_kernel_fields(pn, k, &kp->grid, &kp->block, kp->shmem);
    return true;
}

/* grGraphExecKernelNodeSetParams when the kernel's parameter layout
 * changes: the values are packed into a temporary first, so that nothing
 * changes if the new argument block cannot be allocated. */
static GR_NOINLINE grError_t set_kernel_relayout(const char *call, grGraphExec_t e, grGraphNode_t node,
                                                 gr_pnode *pn, const grKernelNodeParams *p)
{
    grKernel_t k = p->func;
    unsigned char stackbuf[256];
    unsigned char *buf = k->argbytes <= sizeof stackbuf ? stackbuf : gr__aligned_alloc(16, k->argbytes);
    if (!buf)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    gr__kernel_pack(k, p->kernelParams, buf, NULL);
    gr_kernel_params kp = {0};
    kp.kernel = k;
    kp.grid = p->gridDim;
    kp.block = p->blockDim;
    kp.shmem = p->sharedMemBytes;
    kp.argbuf = buf;
    gr__exec_write_begin(e);
    pn = gr__exec_pnode_current(e, node, pn);
    bool ok = gr__pnode_set_kernel(pn, &kp);
    if (ok && GR_UNLIKELY(e->devupd != NULL))
        gr__devupd_host_wrote(e, pn, GR_DEVUPD_HOST_PARAMS);
    gr__exec_write_end(e);
    if (buf != stackbuf)
        gr__free(buf);
    if (!ok)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    return grSuccess;
}

GR_API grError_t grGraphExecKernelNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grKernelNodeParams *pNodeParams)
{
    static const char call[] = "grGraphExecKernelNodeSetParams";
    gr_pnode *pn = NULL;
    grError_t err = find_node(call, hGraphExec, node, grGraphNodeTypeKernel, &pn);
    if (err)
        return err;
    if (!pNodeParams)
        return gr__fail(grErrorInvalidValue, "%s: 'pNodeParams' is NULL", call);
    if (pNodeParams->extra)
        return gr__fail(grErrorInvalidValue, "%s: 'extra' must be NULL; pass arguments in kernelParams",
                        call);
    err = gr__kernel_check(call, pNodeParams->func, &pNodeParams->gridDim, &pNodeParams->blockDim,
                           pNodeParams->sharedMemBytes, pNodeParams->kernelParams);
    if (err)
        return err;
    grKernel_t k = pNodeParams->func;
    if (GR_UNLIKELY(gr__gpu_active()) &&
        (err = gr__exec_check_kernel_devmem(call, "the kernel node", k, pNodeParams->kernelParams,
                                            gr__exec_device(hGraphExec))))
        return err;
    if (GR_UNLIKELY(hGraphExec->gpu != NULL) &&
        (err = gr__devkind()->exec_set_kernel(call, hGraphExec->gpu, pn->index, k, &pNodeParams->gridDim,
                                              &pNodeParams->blockDim, pNodeParams->sharedMemBytes,
                                              pNodeParams->kernelParams)))
        return err;
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, node, pn);
    if (GR_UNLIKELY(!gr__kernel_same_layout(k, pn->u.kern.k))) {
        gr__exec_write_end(hGraphExec);
        return set_kernel_relayout(call, hGraphExec, node, pn, pNodeParams);
    }
    /* Common case: the values go straight into the plan (nothing below can
     * fail). Parameter 0 sits at offset 0: argv[0] starts them. */
    if (k->nparams)
        gr__kernel_pack(k, pNodeParams->kernelParams, pn->u.kern.argv[0], NULL);
    set_kernel_fields(pn, k, &pNodeParams->gridDim, &pNodeParams->blockDim, pNodeParams->sharedMemBytes);
    if (GR_UNLIKELY(hGraphExec->devupd != NULL))
        gr__devupd_host_wrote(hGraphExec, pn, GR_DEVUPD_HOST_PARAMS);
    gr__exec_write_end(hGraphExec);
    return grSuccess;
}

/* Sets memcpy node 'node' of hGraphExec to copy m (checked by the caller),
 * a pitched copy when m has rows that are not contiguous. */
static grError_t set_memcpy(const char *call, grGraphExec_t hGraphExec, grGraphNode_t node,
                            const gr_memcpy_node *m)
{
    gr_pnode *pn = NULL;
    void *dst = m->dst;
    const void *src = m->src;
    grError_t err = find_node(call, hGraphExec, node, grGraphNodeTypeMemcpy, &pn);
    if (err)
        return err;
    if (m->count == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: count is 0; as in CUDA, an executable's copy cannot be set "
                        "to copy nothing (disable the node with grGraphNodeSetEnabled)",
                        call);
    if (GR_UNLIKELY(gr__gpu_active()) &&
        (err = gr__exec_check_copy_devmem(call, "the memcpy node", dst, src, gr__exec_device(hGraphExec))))
        return err;
    bool dst_device = gr__mem_is_device(dst), src_device = gr__mem_is_device(src);
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, node, pn);
    const gr_memcpy_params old = pn->u.copy.p;
    if (dst_device != pn->u.copy.dst_device || src_device != pn->u.copy.src_device) {
        bool od = pn->u.copy.dst_device, os = pn->u.copy.src_device;
        gr__exec_write_end(hGraphExec);
        return gr__fail(grErrorInvalidValue,
                        "%s: the copy %p (%s) -> %p (%s) uses memory of another type than the node's "
                        "%p (%s) -> %p (%s); as in CUDA, a copy's memory types cannot change in an "
                        "executable (instantiate a new one instead)",
                        call, src, src_device ? "device" : "host", dst, dst_device ? "device" : "host",
                        old.src, os ? "device" : "host", old.dst, od ? "device" : "host");
    }
    /* CUDA's rule for this setter: the copy the node made at
     * instantiation and the new one must both be 1D (an extent of one row
     * and one slice), cudaErrorInvalidValue otherwise (an update refuses
     * to change a multidimensional copy too). A node instantiated as a 2D
     * copy of contiguous rows runs as one range and is not told apart
     * here. */
    if (GR_UNLIKELY(gr__memcpy_node_multidim(m) || pn->u.copy.pitched)) {
        gr__exec_write_end(hGraphExec);
        return gr__fail(grErrorInvalidValue,
                        "%s: %s; as in CUDA, an executable's memcpy node is set only from a 1D copy to a 1D "
                        "copy (to change a 2D or 3D copy, instantiate a new executable)",
                        call,
                        pn->u.copy.pitched ? "the node makes a 2D or 3D copy" : "the new copy is 2D or 3D");
    }
    if (GR_UNLIKELY(hGraphExec->gpu != NULL) &&
        (err = gr__devkind()->exec_set_memcpy(call, hGraphExec->gpu, pn->index, dst, src, m->count, NULL))) {
        gr__exec_write_end(hGraphExec);
        return err;
    }
    /* Both copies are 1D (checked above): the plan node holds no layout. */
    gr__pnode_set_copy(pn, &(gr_memcpy_params){dst, src, m->count, m->kind}, NULL);
    gr_store_relaxed(&hGraphExec->plan.range_gen, 0); /* the next launch checks the mapping */
    gr__exec_write_end(hGraphExec);
    return grSuccess;
}

GR_API grError_t grGraphExecMemcpyNodeSetParams1D(grGraphExec_t hGraphExec, grGraphNode_t node, void *dst,
                                                  const void *src, size_t count, grMemcpyKind kind)
{
    static const char call[] = "grGraphExecMemcpyNodeSetParams1D";
    gr_pnode *pn = NULL;
    grError_t err = find_node(call, hGraphExec, node, grGraphNodeTypeMemcpy, &pn);
    if (err || (err = gr__node_memcpy_params_check(call, dst, src, count, kind)))
        return err;
    return set_memcpy(call, hGraphExec, node, &(gr_memcpy_node){dst, src, count, kind, NULL});
}

grError_t gr__exec_set_memcpy_3d(const char *call, grGraphExec_t hGraphExec, grGraphNode_t node,
                                 const grMemcpyNodeParams *generic, const grMemcpy3DParms *c)
{
    gr_memcpy_node m;
    gr_pnode *pn = NULL;
    grError_t err = find_node(call, hGraphExec, node, grGraphNodeTypeMemcpy, &pn);
    if (err)
        return err;
    err = generic ? gr__node_memcpy_from_3d(call, generic, &m)
                  : gr__memcpy_node_make(call, "pNodeParams", c, &m);
    if (err)
        return err;
    err = set_memcpy(call, hGraphExec, node, &m);
    gr__memcpy_node_free(&m);
    return err;
}

GR_API grError_t grGraphExecMemcpyNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemcpy3DParms *pNodeParams)
{
    return gr__exec_set_memcpy_3d("grGraphExecMemcpyNodeSetParams", hGraphExec, node, NULL, pNodeParams);
}

GR_API grError_t grGraphExecMemsetNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemsetParams *p)
{
    static const char call[] = "grGraphExecMemsetNodeSetParams";
    gr_pnode *pn = NULL;
    grError_t err = find_node(call, hGraphExec, node, grGraphNodeTypeMemset, &pn);
    if (err)
        return err;
    if ((err = gr__node_memset_params_check(call, p)))
        return err;
    if (GR_UNLIKELY(gr__gpu_active()) &&
        (err =
             gr__exec_check_copy_devmem(call, "the memset node", p->dst, NULL, gr__exec_device(hGraphExec))))
        return err;
    if (p->width == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: width is 0; as in CUDA, an executable's memset cannot be set "
                        "to set nothing (disable the node with grGraphNodeSetEnabled)",
                        call);
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, node, pn);
    const grMemsetParams o = pn->u.memset;
    if (!gr__memset_shape_ok(&o, p)) {
        gr__exec_write_end(hGraphExec);
        return gr__fail(
            grErrorInvalidValue,
            "%s: the node sets %zu x %zu elements of %u bytes (pitch %zu), the new parameters %zu x "
            "%zu of %u bytes (pitch %zu); as in CUDA, a 2D memset in an executable may change only "
            "its address and value, and a 1D one cannot become 2D",
            call, o.width, o.height, o.elementSize, o.pitch, p->width, p->height, p->elementSize, p->pitch);
    }
    if (GR_UNLIKELY(hGraphExec->gpu != NULL) &&
        (err = gr__devkind()->exec_set_memset(call, hGraphExec->gpu, pn->index, p))) {
        gr__exec_write_end(hGraphExec);
        return err;
    }
    pn->u.memset = *p;
    gr_store_relaxed(&hGraphExec->plan.range_gen, 0); /* the next launch checks the mapping */
    gr__exec_write_end(hGraphExec);
    return grSuccess;
}

GR_API grError_t grGraphExecHostNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                              const grHostNodeParams *p)
{
    static const char call[] = "grGraphExecHostNodeSetParams";
    gr_pnode *pn = NULL;
    grError_t err = find_node(call, hGraphExec, node, grGraphNodeTypeHost, &pn);
    if (err)
        return err;
    if ((err = gr__node_host_params_check(call, p)))
        return err;
    if (GR_UNLIKELY(hGraphExec->gpu != NULL) &&
        (err = gr__devkind()->exec_set_host(call, hGraphExec->gpu, pn->index, p)))
        return err;
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, node, pn);
    pn->u.host = *p;
    gr__exec_write_end(hGraphExec);
    return grSuccess;
}

static grError_t set_event(const char *call, grGraphExec_t e, grGraphNode_t node, grGraphNodeType type,
                           grEvent_t event)
{
    gr_pnode *pn = NULL;
    grError_t err = find_node(call, e, node, type, &pn);
    if (err)
        return err;
    if ((err = gr__node_event_check(call, event)))
        return err;
    if (GR_UNLIKELY(e->gpu != NULL) &&
        (err = gr__devkind()->exec_set_event(call, e->gpu, pn->index, type == grGraphNodeTypeEventRecord,
                                             event)))
        return err;
    gr__event_retain(event);
    gr__exec_write_begin(e);
    pn = gr__exec_pnode_current(e, node, pn);
    grEvent_t old = pn->u.event;
    pn->u.event = event;
    gr__exec_write_end(e);
    gr__event_release(old);
    return grSuccess;
}

GR_API grError_t grGraphExecEventRecordNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                    grEvent_t event)
{
    return set_event("grGraphExecEventRecordNodeSetEvent", hGraphExec, hNode, grGraphNodeTypeEventRecord,
                     event);
}

GR_API grError_t grGraphExecEventWaitNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                  grEvent_t event)
{
    return set_event("grGraphExecEventWaitNodeSetEvent", hGraphExec, hNode, grGraphNodeTypeWaitEvent, event);
}

static grError_t find_toggle(const char *call, grGraphExec_t e, grGraphNode_t node, gr_pnode **out)
{
    grError_t err = gr__exec_check(call, e);
    if (err)
        return err;
    gr_pnode *pn = NULL;
    grGraphNodeType t = gr__exec_find_node(e, node, &pn);
    if (t == grGraphNodeTypeCount)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is not a node of the graph executable %p was instantiated from, nor "
                        "of its conditional nodes' bodies",
                        call, GR_PTR(node), GR_PTR(e));
    if (t != grGraphNodeTypeKernel && t != grGraphNodeTypeMemcpy && t != grGraphNodeTypeMemset)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is a %s node; only kernel, memcpy and memset nodes can be enabled or "
                        "disabled, as in CUDA",
                        call, GR_PTR(node), gr__node_type_name(t));
    *out = pn;
    return grSuccess;
}

GR_API grError_t grGraphNodeSetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode, unsigned int isEnabled)
{
    gr_pnode *pn = NULL;
    grError_t err = find_toggle("grGraphNodeSetEnabled", hGraphExec, hNode, &pn);
    if (!err)
        err = gpu_body_refused("grGraphNodeSetEnabled", hGraphExec, hNode, pn);
    if (err)
        return err;
    if (GR_UNLIKELY(hGraphExec->gpu != NULL) &&
        (err = gr__devkind()->exec_set_enabled("grGraphNodeSetEnabled", hGraphExec->gpu, pn->index,
                                               isEnabled != 0)))
        return err;
    gr__exec_write_begin(hGraphExec);
    pn = gr__exec_pnode_current(hGraphExec, hNode, pn);
    pn->enabled = isEnabled != 0;
    if (GR_UNLIKELY(hGraphExec->devupd != NULL))
        gr__devupd_host_wrote(hGraphExec, pn, GR_DEVUPD_HOST_ENABLED);
    gr__exec_write_end(hGraphExec);
    return grSuccess;
}

GR_API grError_t grGraphNodeGetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode, unsigned int *isEnabled)
{
    gr_pnode *pn = NULL;
    grError_t err;
    if (!isEnabled)
        return gr__fail(grErrorInvalidValue,
                        "grGraphNodeGetEnabled: 'isEnabled' (the output pointer) is NULL");
    err = find_toggle("grGraphNodeGetEnabled", hGraphExec, hNode, &pn);
    if (err)
        return err;
    uintptr_t off = (uintptr_t)pn - (uintptr_t)hGraphExec->plan.nodes;
    if (off >= (uintptr_t)hGraphExec->plan.nnodes * sizeof *pn) {
        /* A body's node: its plan may be replaced by an update, which
         * only a write section excludes. */
        gr__exec_write_begin(hGraphExec);
        *isEnabled = gr__exec_pnode_current(hGraphExec, hNode, pn)->enabled;
        gr__exec_write_end(hGraphExec);
        return grSuccess;
    }
    if (GR_UNLIKELY(hGraphExec->devupd != NULL) && gr__devupd_host_enabled(hGraphExec, pn, isEnabled))
        return grSuccess;
    /* Written under e's lock by grGraphNodeSetEnabled on any thread. */
    gr__spin_lock(&hGraphExec->lock);
    *isEnabled = pn->enabled;
    gr__spin_unlock(&hGraphExec->lock);
    return grSuccess;
}
