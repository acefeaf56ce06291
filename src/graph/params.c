/*
 * params.c - node parameters: validation of what callers pass, the stored
 * (deep-copied) form, and the per-type Get/SetParams entry points.
 *
 * Invariants: a stored kernel node owns its argument values (argbuf) and
 * the argv array pointing into them, both in its inline bytes or both in
 * one heap block that starts at argv (so 'argv != inl' says whether to
 * free it), and holds one reference on its kernel; an event node holds
 * one reference on its event; a child-graph node owns its graph. A setter validates and builds the new stored form
 * completely before it releases the old one, so a refused set changes
 * nothing.
 */
#include "graph.h"
#include "../backend/plan.h"
#include "../memory/memory.h"

#include "../memory/graphmem.h"

#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------- validation */

grError_t gr__node_kernel_params_make(const char *call, const grKernelNodeParams *in, gr_kernel_params *out)
{
    grError_t err;
    if (in == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pNodeParams is NULL; pass the kernel node's parameters",
                        call);
    if (in->extra != NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: pNodeParams->extra is not NULL; graphrt takes argument values only through "
                        "kernelParams, so set extra to NULL",
                        call);
    err = gr__kernel_check(call, in->func, &in->gridDim, &in->blockDim, in->sharedMemBytes, in->kernelParams);
    if (err != grSuccess)
        return err;
    if (!gr__node_kernel_params_pack(in, out))
        return gr__fail(grErrorMemoryAllocation,
                        "%s: out of memory copying %u bytes of arguments of kernel '%s'", call,
                        (unsigned)in->func->argbytes, in->func->name);
    return grSuccess;
}

/* Bytes of argv in kernel k's argument storage: values start 16-aligned. */
static size_t kernel_argv_bytes(grKernel_t k)
{
    return ((size_t)k->nparams * sizeof(void *) + 15u) & ~(size_t)15u;
}

/* Points kp's argv and argbuf at storage for kernel k's arguments: the
 * inline bytes when they fit, else one heap block. False when out of
 * memory, with nothing allocated. */
static bool kernel_args_alloc(gr_kernel_params *kp, grKernel_t k)
{
    size_t vbytes = kernel_argv_bytes(k);
    void **argv = (void **)(void *)kp->inl;
    if (GR_UNLIKELY(vbytes + k->argbytes > GR_KERNEL_ARGS_INLINE)) {
        /* 16-byte alignment, as the inline bytes. */
        if ((argv = gr__aligned_alloc(16, vbytes + k->argbytes)) == NULL)
            return false;
    }
    kp->argv = argv;
    kp->argbuf = (unsigned char *)argv + vbytes;
    return true;
}

/* Fills kp->argv with pointers to each parameter in kp->argbuf. */
static void kernel_argv_fill(gr_kernel_params *kp, grKernel_t k)
{
    int i;
    for (i = 0; i < k->nparams; i++)
        kp->argv[i] = (char *)kp->argbuf + k->offsets[i];
}

bool gr__node_kernel_params_pack(const grKernelNodeParams *in, gr_kernel_params *out)
{
    grKernel_t k = in->func;
    if (!kernel_args_alloc(out, k))
        return false;
    if (k->nparams > 0)
        gr__kernel_pack(k, in->kernelParams, out->argbuf, out->argv);
    gr__kernel_retain(k);
    out->kernel = k;
    out->grid = in->gridDim;
    out->block = in->blockDim;
    out->shmem = in->sharedMemBytes;
    return true;
}

static bool memcpy_kind_valid(grMemcpyKind kind)
{
    switch (kind) {
    case grMemcpyHostToHost:
    case grMemcpyHostToDevice:
    case grMemcpyDeviceToHost:
    case grMemcpyDeviceToDevice:
    case grMemcpyDefault:
        return true;
    }
    return false;
}

grError_t gr__node_memcpy_params_check(const char *call, const void *dst, const void *src, size_t count,
                                       grMemcpyKind kind)
{
    if (!memcpy_kind_valid(kind))
        return gr__fail(grErrorInvalidMemcpyDirection,
                        "%s: kind %d is not a grMemcpyKind; use grMemcpyHostToHost..grMemcpyDefault", call,
                        (int)kind);
    if (count > 0 && dst == NULL)
        return gr__fail(grErrorInvalidValue, "%s: dst is NULL for a copy of %zu bytes; pass the destination",
                        call, count);
    if (count > 0 && src == NULL)
        return gr__fail(grErrorInvalidValue, "%s: src is NULL for a copy of %zu bytes; pass the source", call,
                        count);
    grError_t err = gr__mem_check_range(call, dst, count, "destination");
    return err ? err : gr__mem_check_range(call, src, count, "source");
}

/* True when c is the 1D form grGraphMemcpyNodeGetParams answers for a
 * 1D copy (what a node without out-of-line parameters answers). */
static bool memcpy_is_1d_form(const grMemcpy3DParms *c)
{
    size_t w = c->extent.width;
    return c->srcArray == NULL && c->dstArray == NULL && c->extent.height == 1 && c->extent.depth == 1 &&
           c->srcPos.x == 0 && c->srcPos.y == 0 && c->srcPos.z == 0 && c->dstPos.x == 0 && c->dstPos.y == 0 &&
           c->dstPos.z == 0 && c->srcPtr.pitch == w && c->srcPtr.xsize == w && c->srcPtr.ysize == 1 &&
           c->dstPtr.pitch == w && c->dstPtr.xsize == w && c->dstPtr.ysize == 1;
}

/* The stored form of checked parameters whose regions are d and s. */
static bool memcpy_node_build(const grMemcpy3DParms *c, const gr_region *d, const gr_region *s,
                              gr_memcpy_node *out)
{
    *out = (gr_memcpy_node){d->base, s->base, d->width * d->height * d->depth, c->kind, NULL};
    if (memcpy_is_1d_form(c))
        return true;
    gr_copy3d *x = gr__malloc(sizeof *x);
    if (x == NULL)
        return false;
    x->given = *c;
    x->shape = (gr_copy_shape){d->width, d->height, d->depth, d->pitch, d->slice,
                               d->rows,  s->pitch,  s->slice, s->rows};
    x->linear = gr__region_linear(d) && gr__region_linear(s);
    out->shape = x;
    return true;
}

grError_t gr__memcpy_node_make(const char *call, const char *what, const grMemcpy3DParms *c,
                               gr_memcpy_node *out)
{
    gr_region d, s;
    grError_t err;
    char dwhat[96], swhat[96];
    if (c == NULL)
        return gr__fail(grErrorInvalidValue, "%s: %s is NULL; pass the copy's parameters", call, what);
    if (c->srcArray != NULL || c->dstArray != NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s->%s is not NULL; graphrt has no CUDA arrays, copy between pitched "
                        "pointers (srcPtr, dstPtr) instead",
                        call, what, c->srcArray ? "srcArray" : "dstArray");
    snprintf(dwhat, sizeof dwhat, "%s destination", what);
    snprintf(swhat, sizeof swhat, "%s source", what);
    if ((err = gr__region_3d(call, dwhat, c->dstPtr, c->dstPos, c->extent, false, &d)) ||
        (err = gr__region_3d(call, swhat, c->srcPtr, c->srcPos, c->extent, false, &s)))
        return err;
    if (!memcpy_kind_valid(c->kind))
        return gr__fail(grErrorInvalidMemcpyDirection,
                        "%s: %s->kind %d is not a grMemcpyKind; use grMemcpyHostToHost..grMemcpyDefault",
                        call, what, (int)c->kind);
    /* CUDA 13 refuses an empty copy node (probed on an H200), while the
     * eager grMemcpy3D of the same extent succeeds. */
    if (gr__region_empty(&d))
        return gr__fail(grErrorInvalidValue,
                        "%s: %s->extent %zu x %zu x %zu is empty; a copy node copies at least one byte", call,
                        what, c->extent.width, c->extent.height, c->extent.depth);
    if ((err = gr__region_check(call, &d, dwhat)) || (err = gr__region_check(call, &s, swhat)))
        return err;
    if (!memcpy_node_build(c, &d, &s, out))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory storing the copy's 3D parameters", call);
    return grSuccess;
}

bool gr__memcpy_node_pack(const grMemcpy3DParms *c, gr_memcpy_node *out)
{
    gr_region d, s;
    if (memcpy_is_1d_form(c)) { /* a captured grMemcpyAsync, 0 bytes too */
        *out = (gr_memcpy_node){c->dstPtr.ptr, c->srcPtr.ptr, c->extent.width, c->kind, NULL};
        return true;
    }
    grError_t err = gr__region_3d("", "", c->dstPtr, c->dstPos, c->extent, false, &d);
    if (!err)
        err = gr__region_3d("", "", c->srcPtr, c->srcPos, c->extent, false, &s);
    gr_assert(err == grSuccess); /* the enqueue path checked them */
    return err == grSuccess && memcpy_node_build(c, &d, &s, out);
}

void gr__memcpy_node_free(gr_memcpy_node *m)
{
    gr__free(m->shape);
    m->shape = NULL;
}

void gr__memcpy_node_replace(struct grGraphNode_st *n, const gr_memcpy_node *m)
{
    gr__memcpy_node_free(&n->p.memcpy);
    n->p.memcpy = *m;
    gr__graph_edited(n->graph);
}

size_t gr__memset_span(const grMemsetParams *p)
{
    size_t row = p->width * p->elementSize;
    return p->height > 1 ? (p->height - 1) * p->pitch + row : row;
}

grError_t gr__node_memset_params_check(const char *call, const grMemsetParams *p)
{
    size_t row, span;
    if (p == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pMemsetParams is NULL; pass the memset parameters", call);
    if (p->dst == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pMemsetParams->dst is NULL; pass the memory to set", call);
    if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
        return gr__fail(grErrorInvalidValue, "%s: pMemsetParams->elementSize is %u but must be 1, 2 or 4",
                        call, p->elementSize);
    if (p->height == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: pMemsetParams->height is 0; a memset sets at least one row (height 1 for 1D)",
                        call);
    if ((uintptr_t)p->dst % p->elementSize != 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: pMemsetParams->dst %p is not aligned to elementSize %u; align it or use a "
                        "smaller element",
                        call, p->dst, p->elementSize);
    if (gr__mul_overflow(p->width, p->elementSize, &row))
        return gr__fail(grErrorInvalidValue, "%s: pMemsetParams->width %zu times elementSize %u overflows",
                        call, p->width, p->elementSize);
    if (p->height > 1) {
        if (p->pitch < row)
            return gr__fail(grErrorInvalidValue,
                            "%s: pMemsetParams->pitch %zu is smaller than a row of width %zu x elementSize "
                            "%u = %zu bytes; rows must not overlap",
                            call, p->pitch, p->width, p->elementSize, row);
        if (p->pitch % p->elementSize != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: pMemsetParams->pitch %zu is not a multiple of elementSize %u", call,
                            p->pitch, p->elementSize);
        if (gr__mul_overflow(p->height - 1, p->pitch, &span) || gr__add_overflow(span, row, &span))
            return gr__fail(grErrorInvalidValue,
                            "%s: pMemsetParams height %zu x pitch %zu overflows the address space", call,
                            p->height, p->pitch);
    }
    return gr__mem_check_range(call, p->dst, gr__memset_span(p), "destination");
}

grError_t gr__node_host_params_check(const char *call, const grHostNodeParams *p)
{
    if (p == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pNodeParams is NULL; pass the host node's parameters",
                        call);
    if (p->fn == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pNodeParams->fn is NULL; a host node needs a function",
                        call);
    return grSuccess;
}

grError_t gr__node_event_check(const char *call, grEvent_t e)
{
    if (e == NULL)
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: event is NULL; pass an event made by grEventCreate", call);
    if (!gr__event_valid(e))
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: event %p is not a live event (destroyed, or not a grEvent_t)", call, GR_PTR(e));
    return grSuccess;
}

/* ----------------------------------------------------------- copy / free */

grError_t gr__node_params_copy(grGraphNodeType t, gr_node_params *dst, const gr_node_params *src)
{
    switch (t) {
    case grGraphNodeTypeKernel: {
        const gr_kernel_params *s = &src->kernel;
        gr_kernel_params *d = &dst->kernel;
        grKernel_t k = s->kernel;
        if (!kernel_args_alloc(d, k))
            return gr__fail(grErrorMemoryAllocation, "out of memory copying the arguments of kernel '%s'",
                            k->name);
        memcpy(d->argbuf, s->argbuf, k->argbytes);
        kernel_argv_fill(d, k);
        gr__kernel_retain(k);
        d->kernel = k;
        d->grid = s->grid;
        d->block = s->block;
        d->shmem = s->shmem;
        return grSuccess;
    }
    case grGraphNodeTypeGraph: {
        grGraph_t c;
        grError_t err = gr__graph_clone(src->child, &c);
        if (err != grSuccess)
            return err;
        *dst = *src;
        dst->child = c;
        return grSuccess;
    }
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        gr__event_retain(src->event);
        *dst = *src;
        return grSuccess;
    case grGraphNodeTypeConditional:
        /* CUDA: a graph with conditional nodes cannot be cloned or embedded. */
        return gr__fail(grErrorNotSupported,
                        "graphs with conditional nodes cannot be cloned or used as child graphs, as in CUDA");
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
        /* CUDA: a graph with memory nodes cannot be cloned or embedded. */
        return gr__fail(
            grErrorNotSupported,
            "graphs with memory allocation or free nodes cannot be cloned or used as child graphs, "
            "as in CUDA");
    case grGraphNodeTypeBatchMemOp:
        if (!gr__memop_params_copy(&dst->memop, &src->memop))
            return gr__fail(grErrorMemoryAllocation, "out of memory copying %u memory operations",
                            src->memop.count);
        return grSuccess;
    case grGraphNodeTypeCollective:
        gr__coll_params_copy(&dst->coll, &src->coll);
        return grSuccess;
    case grGraphNodeTypeMemcpy:
        *dst = *src;
        if (src->memcpy.shape) {
            if ((dst->memcpy.shape = gr__malloc(sizeof *dst->memcpy.shape)) == NULL)
                return gr__fail(grErrorMemoryAllocation, "out of memory copying a copy's 3D parameters");
            *dst->memcpy.shape = *src->memcpy.shape;
        }
        return grSuccess;
    case grGraphNodeTypeMemset:
    case grGraphNodeTypeHost:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeCount:
        *dst = *src;
        return grSuccess;
    }
    *dst = *src;
    return grSuccess;
}

void gr__node_params_move(grGraphNodeType t, gr_node_params *dst, const gr_node_params *src)
{
    const gr_kernel_params *s;
    gr_kernel_params *d;
    grKernel_t k;
    if (t != grGraphNodeTypeKernel) {
        *dst = *src;
        return;
    }
    /* Field by field: copying the whole struct would also copy the unused
     * rest of the inline bytes. */
    s = &src->kernel;
    d = &dst->kernel;
    k = s->kernel;
    d->kernel = k;
    d->grid = s->grid;
    d->block = s->block;
    d->shmem = s->shmem;
    d->argv = s->argv;
    d->argbuf = s->argbuf;
    if (s->argv == (void *const *)(const void *)s->inl) {
        d->argv = (void **)(void *)d->inl;
        d->argbuf = d->inl + kernel_argv_bytes(k);
        memcpy(d->argbuf, s->argbuf, k->argbytes);
        kernel_argv_fill(d, k);
    }
}

void gr__node_params_free(grGraphNodeType t, gr_node_params *p)
{
    switch (t) {
    case grGraphNodeTypeKernel:
        /* argbuf lies in the same block as argv. */
        if (p->kernel.argv != (void **)(void *)p->kernel.inl)
            gr__free(p->kernel.argv);
        p->kernel.argbuf = NULL;
        p->kernel.argv = NULL;
        if (p->kernel.kernel)
            gr__kernel_release(p->kernel.kernel);
        p->kernel.kernel = NULL;
        return;
    case grGraphNodeTypeMemcpy:
        gr__memcpy_node_free(&p->memcpy);
        return;
    case grGraphNodeTypeGraph:
        if (p->child) {
            p->child->owner = NULL;
            gr__graph_free(p->child);
        }
        p->child = NULL;
        return;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        if (p->event)
            gr__event_release(p->event);
        p->event = NULL;
        return;
    case grGraphNodeTypeMemAlloc:
        if (p->alloc.dptr)
            gr__graphmem_node_release(p->alloc.dptr);
        p->alloc.dptr = NULL;
        return;
    case grGraphNodeTypeConditional:
        for (unsigned b = 0; b < p->cond.nbodies; b++) {
            p->cond.bodies[b]->owner = NULL;
            gr__graph_free(p->cond.bodies[b]);
        }
        gr__free(p->cond.bodies);
        p->cond.bodies = NULL;
        p->cond.nbodies = 0;
        if (p->cond.slot) {
            if (!p->cond.copy)
                p->cond.slot->node = NULL;
            gr__cond_slot_release(p->cond.slot);
        }
        p->cond.slot = NULL;
        return;
    case grGraphNodeTypeBatchMemOp:
        gr__memop_params_free(&p->memop);
        return;
    case grGraphNodeTypeCollective:
        gr__coll_params_free(&p->coll);
        return;
    case grGraphNodeTypeMemFree:
        if (p->free.foreign)
            gr__graphmem_foreign_free_release(p->free.dptr);
        p->free.foreign = false;
        return;
    case grGraphNodeTypeMemset:
    case grGraphNodeTypeHost:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeCount:
        return;
    }
}

/* ------------------------------------------------------- Get/SetParams */

/* Checks that 'node' is a live node of type t. */
static grError_t node_of_type(const char *call, grGraphNode_t node, grGraphNodeType t)
{
    grError_t err = gr__node_check(call, node);
    if (err != grSuccess)
        return err;
    if (node->type != t)
        return gr__fail(grErrorInvalidValue, "%s: node is %s, not a %s node; call the function of its type",
                        call, gr__node_label(node), gr__node_type_name(t));
    return grSuccess;
}

static grError_t out_null(const char *call, const char *arg)
{
    return gr__fail(grErrorInvalidValue, "%s: %s is NULL; pass where to store the result", call, arg);
}

GR_API grError_t grGraphKernelNodeGetParams(grGraphNode_t node, grKernelNodeParams *pNodeParams)
{
    static const char call[] = "grGraphKernelNodeGetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeKernel);
    const gr_kernel_params *k;
    if (err != grSuccess)
        return err;
    if (pNodeParams == NULL)
        return out_null(call, "pNodeParams");
    k = &node->p.kernel;
    pNodeParams->func = k->kernel;
    pNodeParams->gridDim = k->grid;
    pNodeParams->blockDim = k->block;
    pNodeParams->sharedMemBytes = k->shmem;
    pNodeParams->kernelParams = k->argv;
    pNodeParams->extra = NULL;
    return grSuccess;
}

GR_API grError_t grGraphKernelNodeSetParams(grGraphNode_t node, const grKernelNodeParams *pNodeParams)
{
    static const char call[] = "grGraphKernelNodeSetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeKernel);
    gr_node_params np;
    if (err != grSuccess)
        return err;
    if ((err = gr__node_kernel_params_make(call, pNodeParams, &np.kernel)) != grSuccess)
        return err;
    gr__node_params_free(grGraphNodeTypeKernel, &node->p);
    gr__node_params_move(grGraphNodeTypeKernel, &node->p, &np);
    gr__graph_edited(node->graph);
    return grSuccess;
}

GR_API grError_t grGraphMemcpyNodeGetParams(grGraphNode_t node, grMemcpy3DParms *pNodeParams)
{
    static const char call[] = "grGraphMemcpyNodeGetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemcpy);
    const gr_memcpy_node *m;
    if (err != grSuccess)
        return err;
    if (pNodeParams == NULL)
        return out_null(call, "pNodeParams");
    m = &node->p.memcpy;
    if (m->shape) {
        *pNodeParams = m->shape->given;
        return grSuccess;
    }
    memset(pNodeParams, 0, sizeof *pNodeParams);
    pNodeParams->srcPtr = (grPitchedPtr){(void *)(uintptr_t)m->src, m->count, m->count, 1};
    pNodeParams->dstPtr = (grPitchedPtr){m->dst, m->count, m->count, 1};
    pNodeParams->extent = (grExtent){m->count, 1, 1};
    pNodeParams->kind = m->kind;
    return grSuccess;
}

GR_API grError_t grGraphMemcpyNodeSetParams1D(grGraphNode_t node, void *dst, const void *src, size_t count,
                                              grMemcpyKind kind)
{
    static const char call[] = "grGraphMemcpyNodeSetParams1D";
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemcpy);
    if (err != grSuccess)
        return err;
    if ((err = gr__node_memcpy_params_check(call, dst, src, count, kind)) != grSuccess)
        return err;
    gr__memcpy_node_replace(node, &(gr_memcpy_node){dst, src, count, kind, NULL});
    return grSuccess;
}

GR_API grError_t grGraphMemcpyNodeSetParams(grGraphNode_t node, const grMemcpy3DParms *pNodeParams)
{
    static const char call[] = "grGraphMemcpyNodeSetParams";
    gr_memcpy_node m;
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemcpy);
    if (err != grSuccess)
        return err;
    if ((err = gr__memcpy_node_make(call, "pNodeParams", pNodeParams, &m)) != grSuccess)
        return err;
    gr__memcpy_node_replace(node, &m);
    return grSuccess;
}

GR_API grError_t grGraphMemsetNodeGetParams(grGraphNode_t node, grMemsetParams *pNodeParams)
{
    static const char call[] = "grGraphMemsetNodeGetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemset);
    if (err != grSuccess)
        return err;
    if (pNodeParams == NULL)
        return out_null(call, "pNodeParams");
    *pNodeParams = node->p.memset;
    return grSuccess;
}

GR_API grError_t grGraphMemsetNodeSetParams(grGraphNode_t node, const grMemsetParams *pNodeParams)
{
    static const char call[] = "grGraphMemsetNodeSetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemset);
    if (err != grSuccess)
        return err;
    if ((err = gr__node_memset_params_check(call, pNodeParams)) != grSuccess)
        return err;
    node->p.memset = *pNodeParams;
    gr__graph_edited(node->graph);
    return grSuccess;
}

GR_API grError_t grGraphHostNodeGetParams(grGraphNode_t node, grHostNodeParams *pNodeParams)
{
    static const char call[] = "grGraphHostNodeGetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeHost);
    if (err != grSuccess)
        return err;
    if (pNodeParams == NULL)
        return out_null(call, "pNodeParams");
    *pNodeParams = node->p.host;
    return grSuccess;
}

GR_API grError_t grGraphHostNodeSetParams(grGraphNode_t node, const grHostNodeParams *pNodeParams)
{
    static const char call[] = "grGraphHostNodeSetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeHost);
    if (err != grSuccess)
        return err;
    if ((err = gr__node_host_params_check(call, pNodeParams)) != grSuccess)
        return err;
    node->p.host = *pNodeParams;
    gr__graph_edited(node->graph);
    return grSuccess;
}

GR_API grError_t grGraphChildGraphNodeGetGraph(grGraphNode_t node, grGraph_t *pGraph)
{
    static const char call[] = "grGraphChildGraphNodeGetGraph";
    grError_t err = node_of_type(call, node, grGraphNodeTypeGraph);
    if (err != grSuccess)
        return err;
    if (pGraph == NULL)
        return out_null(call, "pGraph");
    *pGraph = node->p.child;
    return grSuccess;
}

static grError_t event_get(const char *call, grGraphNode_t node, grGraphNodeType t, grEvent_t *out)
{
    grError_t err = node_of_type(call, node, t);
    if (err != grSuccess)
        return err;
    if (out == NULL)
        return out_null(call, "event_out");
    *out = node->p.event;
    return grSuccess;
}

static grError_t event_set(const char *call, grGraphNode_t node, grGraphNodeType t, grEvent_t e)
{
    grError_t err = node_of_type(call, node, t);
    if (err != grSuccess)
        return err;
    if ((err = gr__node_event_check(call, e)) != grSuccess)
        return err;
    /* Retain first: e may be the event the node already holds. */
    gr__event_retain(e);
    gr__event_release(node->p.event);
    node->p.event = e;
    gr__graph_edited(node->graph);
    return grSuccess;
}

GR_API grError_t grGraphEventRecordNodeGetEvent(grGraphNode_t node, grEvent_t *event_out)
{
    return event_get("grGraphEventRecordNodeGetEvent", node, grGraphNodeTypeEventRecord, event_out);
}

GR_API grError_t grGraphEventRecordNodeSetEvent(grGraphNode_t node, grEvent_t event)
{
    return event_set("grGraphEventRecordNodeSetEvent", node, grGraphNodeTypeEventRecord, event);
}

GR_API grError_t grGraphEventWaitNodeGetEvent(grGraphNode_t node, grEvent_t *event_out)
{
    return event_get("grGraphEventWaitNodeGetEvent", node, grGraphNodeTypeWaitEvent, event_out);
}

GR_API grError_t grGraphEventWaitNodeSetEvent(grGraphNode_t node, grEvent_t event)
{
    return event_set("grGraphEventWaitNodeSetEvent", node, grGraphNodeTypeWaitEvent, event);
}

GR_API grError_t grGraphMemAllocNodeGetParams(grGraphNode_t node, grMemAllocNodeParams *params_out)
{
    static const char call[] = "grGraphMemAllocNodeGetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemAlloc);
    if (err != grSuccess)
        return err;
    if (params_out == NULL)
        return out_null(call, "params_out");
    *params_out = node->p.alloc;
    params_out->accessDescs = gr__graphmem_access(node->p.alloc.dptr, &params_out->accessDescCount);
    return grSuccess;
}

GR_API grError_t grGraphMemFreeNodeGetParams(grGraphNode_t node, void *dptr_out)
{
    static const char call[] = "grGraphMemFreeNodeGetParams";
    grError_t err = node_of_type(call, node, grGraphNodeTypeMemFree);
    if (err != grSuccess)
        return err;
    if (dptr_out == NULL)
        return out_null(call, "dptr_out");
    *(void **)dptr_out = node->p.free.dptr;
    return grSuccess;
}
