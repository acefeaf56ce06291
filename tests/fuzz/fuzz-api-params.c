/*
 * fuzz-api-params.c - the API fuzzer's node and operation parameters:
 * kernels with their grids and argument arrays, copies, memsets and host
 * functions, valid or with one defect whose error the model names; and
 * the per-type getters and setters of graph nodes (grGraph*NodeGet/Set*),
 * checked against the model after every call and every refusal.
 *
 * The same generator serves eager work, graph nodes and exec setters, so
 * that every path checks the same parameters the same way; only overruns
 * of graph nodes are a known class (node-overrun).
 */
#include "fuzz-api.h"

#include <stdio.h>

/* -------------------------------------------------------- node parameters */

static fa_kkind kernel_pick(fa *f, grKernel_t *h)
{
    for (int tries = 0; tries < 8; tries++) {
        int i = (int)fa_rand(f, FA_KERNELS);
        if (f->k[i].live) {
            *h = f->k[i].h;
            return f->k[i].kind;
        }
    }
    *h = NULL;
    return FK_NOP;
}

/* A grid and block that cover n elements. */
static void geometry(fa *f, uint32_t n, grDim3 *grid, grDim3 *block)
{
    static const unsigned bx[] = {1, 2, 8, 32, 64, 256};
    *block = GR_DIM3(bx[fa_rand(f, 6)], fa_pct(f, 20) ? 2 : 1, fa_pct(f, 10) ? 2 : 1);
    uint32_t t = block->x * block->y * block->z;
    uint32_t blocks = n ? (n + t - 1) / t : 1;
    if (blocks > 3 && fa_pct(f, 30))
        *grid = GR_DIM3((blocks + 1) / 2, 2, 1);
    else
        *grid = GR_DIM3(blocks, 1, 1);
}

/* True if r is in memory graphrt knows as device memory (grMalloc, pools). */
static bool karg_in_device(fa *f, const fa_ref *r)
{
    const fa_block *bk = fa_ref_block(f, r);
    return bk && (bk->kind == FB_MALLOC || bk->kind == FB_ASYNC);
}

void **fa_kargs(fa *f, const fa_params *p, fa_kargv *a, bool *bad, int *want)
{
    a->dptr = p->dst.raw;
    a->sptr = p->src.raw;
    a->n = p->n;
    a->v = p->v;
    memcpy(a->blob, p->blob, 64);
    if (p->kk == FK_XFORM) {
        a->argv[0] = &a->dptr;
        a->argv[1] = &a->sptr;
        a->argv[2] = &a->n;
        a->argv[3] = &a->v;
    } else if (p->kk == FK_BLOB) {
        a->argv[0] = &a->dptr;
        a->argv[1] = a->blob;
        a->argv[2] = &a->v;
    } else {
        a->argv[0] = &a->dptr;
        a->argv[1] = &a->n;
        a->argv[2] = &a->v;
    }
    int np = fa_kernel_nparams[p->kk];
    if (!np)
        return fa_pct(f, 50) ? NULL : a->argv;
    if (!*bad && bad && fa_pct(f, 3)) {
        *bad = true;
        *want = grErrorInvalidValue;
        if (fa_pct(f, 50))
            return NULL;
        a->argv[fa_rand(f, (uint32_t)np)] = NULL;
    } else if (!*bad && fa_allowed(f, FZ_ALLOW_KERNEL_PARAMS) && fa_pct(f, 2) && karg_in_device(f, &p->dst)) {
        /* The classic mistake: the values in place of their addresses.
         * Detectable (and so made) only where the first value is device
         * memory: a host pointer is readable memory, which graphrt takes
         * for a value, and the kernel would then follow garbage. */
        *bad = true;
        *want = grErrorInvalidValue;
        a->argv[0] = a->dptr;
        a->argv[1] = (void *)(uintptr_t)(p->kk == FK_XFORM ? (uintptr_t)a->sptr : a->n);
    }
    return a->argv;
}

/* Parameters of an operation of 'type' (kernel, memcpy, memset, host) on
 * the memory the current context may use, sometimes with one defect:
 * *bad is set and *want is the error graphrt must return (-1: any). For
 * graph nodes (g != NULL) overruns are a known class. */
void fa_params_fill(fa *f, fa_graph *g, uint8_t type, fa_params *p, bool *bad, int *want)
{
    bool graph = g != NULL;
    bool inject = fa_pct(f, 12);
    memset(p, 0, sizeof *p);
    p->dst.blk = p->src.blk = -1;
    p->hc = (int)fa_rand(f, FA_HOSTC);
    switch (type) {
    case grGraphNodeTypeKernel: {
        p->kk = kernel_pick(f, &p->kh);
        if (!p->kh) {
            *bad = true;
            *want = grErrorInvalidDeviceFunction;
            p->grid = p->block = GR_DIM3(1, 1, 1);
            return;
        }
        uint32_t len = 4 * (1 + fa_rand(f, 64));
        if (p->kk == FK_BLOB)
            len = 64;
        p->dst = fa_pick_range(f, &len, 4, false);
        if (p->kk == FK_BLOB && len < 64) {
            p->dst = fa_ref_of(f, 0, 0); /* the plain block is large enough */
            len = 64;
        }
        p->n = len / 4;
        if (p->kk == FK_XFORM) {
            uint32_t l2 = len;
            p->src = fa_pick_range(f, &l2, 4, false);
            if (l2 < len) {
                p->n = l2 / 4;
                len = l2;
            }
            /* Elements run in parallel: a source overlapping the
             * destination at another offset races inside the kernel
             * (the model says unknown; TSan rightly reports it). */
            if (f->race_free && p->src.blk == p->dst.blk && p->src.off != p->dst.off &&
                p->src.off < p->dst.off + 4 * p->n && p->dst.off < p->src.off + 4 * p->n)
                p->src = p->dst;
        }
        p->v = (uint32_t)fz_next(&f->r);
        for (int i = 0; i < 64; i++)
            p->blob[i] = (uint8_t)fz_next(&f->r);
        geometry(f, p->n, &p->grid, &p->block);
        p->shmem = fa_pct(f, 20) ? fa_rand(f, 48 * 1024 + 1) : 0;
        if (p->kk == FK_NOP)
            p->n = 0;
        if (!inject)
            return;
        switch (fa_rand(f, 7)) {
        case 0:
            p->kh = NULL;
            *want = grErrorInvalidDeviceFunction;
            break;
        case 1:
            if (f->dead_kernel && fa_allowed(f, FZ_ALLOW_DESTROYED)) {
                p->kh = f->dead_kernel;
                *want = grErrorInvalidDeviceFunction;
            } else {
                p->kh = (grKernel_t)(void *)f->fake; /* not a kernel */
                *want = grErrorInvalidDeviceFunction;
            }
            break;
        case 2:
            p->block = fa_pct(f, 50) ? GR_DIM3(0, 1, 1) : GR_DIM3(1025, 1, 1);
            *want = grErrorInvalidConfiguration;
            break;
        case 3:
            p->block = fa_pct(f, 50) ? GR_DIM3(64, 32, 1) : GR_DIM3(1, 1, 65);
            *want = grErrorInvalidConfiguration;
            break;
        case 4:
            p->grid = fa_pct(f, 50) ? GR_DIM3(1, 0, 1) : GR_DIM3(1, 1, 65536);
            *want = grErrorInvalidConfiguration;
            break;
        case 5:
            p->shmem = 48 * 1024 + 1 + fa_rand(f, 1000);
            *want = grErrorInvalidValue;
            break;
        default:
            p->grid = GR_DIM3(0x80000000u, 1, 1);
            *want = grErrorInvalidConfiguration;
            break;
        }
        *bad = true;
        return;
    }
    case grGraphNodeTypeMemcpy: {
        uint32_t len = fa_pct(f, 5) ? 0 : 1 + fa_rand(f, 700);
        bool over = inject && fa_pct(f, 40) && (!graph || fa_allowed(f, FZ_ALLOW_NODE_OVERRUN));
        bool over_src = over && fa_pct(f, 50);
        uint32_t l1 = len, l2 = len;
        p->dst = fa_pick_range(f, &l1, 1, over && !over_src);
        p->src = fa_pick_range(f, &l2, 1, over_src);
        p->count = over ? (over_src ? l2 : l1) : (l1 < l2 ? l1 : l2);
        p->ckind = (grMemcpyKind)fa_rand(f, 5);
        over = over && fa_ref_overruns(f, over_src ? &p->src : &p->dst, p->count);
        if (!over && p->count > (l1 < l2 ? l1 : l2))
            p->count = l1 < l2 ? l1 : l2;
        snprintf(
            f->why, sizeof f->why,
            "copy of %u bytes, dst block %d +%u (%u bytes, kind %d), src block %d +%u (%u bytes, kind %d)%s",
            p->count, p->dst.blk, p->dst.off, f->b[p->dst.blk].size, (int)f->b[p->dst.blk].kind, p->src.blk,
            p->src.off, f->b[p->src.blk].size, (int)f->b[p->src.blk].kind,
            over ? (over_src ? ", src overruns" : ", dst overruns") : "");
        if (over && p->count) {
            *bad = true;
            *want = grErrorInvalidValue;
            return;
        }
        if (!inject || over)
            return;
        switch (fa_rand(f, 3)) {
        case 0:
            p->ckind = (grMemcpyKind)(5 + fa_rand(f, 100));
            *want = grErrorInvalidMemcpyDirection;
            break;
        case 1:
            if (p->count == 0)
                return;
            p->dst = (fa_ref){-1, 0, 0, NULL};
            *want = grErrorInvalidValue;
            break;
        default:
            if (p->count == 0)
                return;
            p->src = (fa_ref){-1, 0, 0, NULL};
            *want = grErrorInvalidValue;
            break;
        }
        *bad = true;
        return;
    }
    case grGraphNodeTypeMemset: {
        static const uint32_t es[] = {1, 2, 4};
        bool over = inject && fa_pct(f, 40) && (!graph || fa_allowed(f, FZ_ALLOW_NODE_OVERRUN));
        p->esize = graph ? es[fa_rand(f, 3)] : 1;
        p->height = graph && fa_pct(f, 25) ? 2 + fa_rand(f, 2) : 1;
        p->value = (uint32_t)fz_next(&f->r);
        if (!graph)
            p->value &= 0xff;
        uint32_t row = p->esize * (1 + fa_rand(f, 128));
        p->pitch = p->height > 1 ? row + p->esize * fa_rand(f, 16) : (fa_pct(f, 30) ? fa_rand(f, 64) : 0);
        uint32_t span = p->height > 1 ? (uint32_t)(p->pitch * (p->height - 1)) + row : row;
        if (!graph && fa_pct(f, 5))
            span = row = 0;
        uint32_t len = span;
        p->dst = fa_pick_range(f, &len, p->esize, over);
        if (len < span) {
            /* A small block: one row that fits. */
            p->height = 1;
            row = len / p->esize * p->esize;
            p->pitch = 0;
        }
        p->width = row / p->esize;
        if (over) {
            if (p->height == 1)
                p->width = len / p->esize;
            uint32_t extent =
                (uint32_t)(p->height > 1 ? p->pitch * (p->height - 1) : 0) + (uint32_t)(p->width * p->esize);
            if (p->width && fa_ref_overruns(f, &p->dst, extent)) {
                *bad = true;
                *want = grErrorInvalidValue;
                snprintf(f->why, sizeof f->why,
                         "memset of %zu x %zu x %u (pitch %zu) overruns block %d at +%u", p->width, p->height,
                         p->esize, p->pitch, p->dst.blk, p->dst.off);
                return;
            }
            /* Not past the end after all (the plain block): a valid one. */
            uint32_t l = extent;
            p->dst = fa_pick_range(f, &l, p->esize, false);
            if (l < extent) {
                p->height = 1;
                p->width = l / p->esize;
            }
            return;
        }
        if (!inject)
            return;
        switch (fa_rand(f, graph ? 5 : 1)) {
        case 0:
            if (p->width == 0)
                return;
            p->dst = (fa_ref){-1, 0, 0, NULL};
            *want = grErrorInvalidValue;
            break;
        case 1:
            p->esize = fa_pct(f, 50) ? 3 : 8;
            *want = grErrorInvalidValue;
            break;
        case 2:
            p->height = 0;
            *want = grErrorInvalidValue;
            break;
        case 3:
            if (p->esize == 1)
                return;
            p->dst.raw = (uint8_t *)p->dst.raw + 1;
            p->dst.off += 1;
            *want = grErrorInvalidValue;
            break;
        default:
            if (p->width * p->esize <= 1)
                return;
            p->height = 2;
            p->pitch = p->width * p->esize - 1;
            *want = grErrorInvalidValue;
            break;
        }
        *bad = true;
        return;
    }
    case grGraphNodeTypeHost:
        if (inject) {
            *bad = true;
            *want = grErrorInvalidValue;
        }
        return;
    default:
        return;
    }
}

/* --------------------------------------------------------- params get/set */

void fa_check_node_params(fa *f, fa_node *n)
{
    const fa_params *p = &n->p;
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        grKernelNodeParams kp;
        memset(&kp, 0xa5, sizeof kp);
        fa_ok(f, FA_CALL(f, grGraphKernelNodeGetParams(n->h, &kp)));
        if (kp.func != p->kh || memcmp(&kp.gridDim, &p->grid, sizeof p->grid) ||
            memcmp(&kp.blockDim, &p->block, sizeof p->block) || kp.sharedMemBytes != p->shmem || kp.extra)
            fa_fail(f,
                    "grGraphKernelNodeGetParams of %p: func/grid/block/shmem/extra differ from what was set",
                    (void *)n->h);
        int np = fa_kernel_nparams[p->kk];
        if (np && !kp.kernelParams)
            fa_fail(f, "grGraphKernelNodeGetParams: kernelParams NULL for a kernel with %d parameters", np);
        if (np) {
            void *d = *(void **)kp.kernelParams[0];
            bool ok = d == p->dst.raw;
            if (p->kk == FK_XFORM)
                ok = ok && *(void **)kp.kernelParams[1] == p->src.raw &&
                     *(uint32_t *)kp.kernelParams[2] == p->n && *(uint32_t *)kp.kernelParams[3] == p->v;
            else if (p->kk == FK_BLOB)
                ok = ok && memcmp(kp.kernelParams[1], p->blob, 64) == 0 &&
                     *(uint32_t *)kp.kernelParams[2] == p->v;
            else
                ok = ok && *(uint32_t *)kp.kernelParams[1] == p->n && *(uint32_t *)kp.kernelParams[2] == p->v;
            if (!ok)
                fa_fail(f,
                        "grGraphKernelNodeGetParams of %p: the argument values differ from the ones copied",
                        (void *)n->h);
        }
        break;
    }
    case grGraphNodeTypeMemcpy: {
        grMemcpy3DParms m;
        memset(&m, 0xa5, sizeof m);
        fa_ok(f, FA_CALL(f, grGraphMemcpyNodeGetParams(n->h, &m)));
        if (m.dstPtr.ptr != p->dst.raw || m.srcPtr.ptr != p->src.raw || m.extent.width != p->count ||
            m.extent.height != 1 || m.extent.depth != 1 || m.kind != p->ckind || m.srcPos.x || m.dstPos.x)
            fa_fail(
                f,
                "grGraphMemcpyNodeGetParams of %p: %p <- %p, %zu x %zu x %zu, kind %d; set: %p <- %p, %u, %d",
                (void *)n->h, m.dstPtr.ptr, m.srcPtr.ptr, m.extent.width, m.extent.height, m.extent.depth,
                (int)m.kind, p->dst.raw, p->src.raw, p->count, (int)p->ckind);
        break;
    }
    case grGraphNodeTypeMemset: {
        grMemsetParams m;
        memset(&m, 0xa5, sizeof m);
        fa_ok(f, FA_CALL(f, grGraphMemsetNodeGetParams(n->h, &m)));
        if (m.dst != p->dst.raw || m.value != p->value || m.elementSize != p->esize || m.width != p->width ||
            m.height != p->height || (p->height > 1 && m.pitch != p->pitch))
            fa_fail(
                f,
                "grGraphMemsetNodeGetParams of %p: dst %p value 0x%x es %u %zu x %zu pitch %zu; set: %p 0x%x "
                "%u %zu x %zu pitch %zu",
                (void *)n->h, m.dst, m.value, m.elementSize, m.width, m.height, m.pitch, p->dst.raw, p->value,
                p->esize, p->width, p->height, p->pitch);
        break;
    }
    case grGraphNodeTypeHost: {
        grHostNodeParams h;
        memset(&h, 0xa5, sizeof h);
        fa_ok(f, FA_CALL(f, grGraphHostNodeGetParams(n->h, &h)));
        if (h.userData != &f->hc[p->hc] || (h.fn != fa_host_count && h.fn != fa_host_other))
            fa_fail(f, "grGraphHostNodeGetParams of %p: fn/userData differ from what was set", (void *)n->h);
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        grEvent_t e = NULL;
        if (n->type == grGraphNodeTypeEventRecord)
            fa_ok(f, FA_CALL(f, grGraphEventRecordNodeGetEvent(n->h, &e)));
        else
            fa_ok(f, FA_CALL(f, grGraphEventWaitNodeGetEvent(n->h, &e)));
        if (e != p->eh)
            fa_fail(f, "event node %p holds event %p, set to %p", (void *)n->h, (void *)e, (void *)p->eh);
        break;
    }
    case grGraphNodeTypeMemAlloc: {
        grMemAllocNodeParams a;
        memset(&a, 0xa5, sizeof a);
        fa_ok(f, FA_CALL(f, grGraphMemAllocNodeGetParams(n->h, &a)));
        if (a.dptr != p->dst.raw || a.bytesize != p->count ||
            a.poolProps.allocType != grMemAllocationTypePinned)
            fa_fail(f,
                    "grGraphMemAllocNodeGetParams of %p: %p, %zu bytes; the node was made for %p, %u bytes",
                    (void *)n->h, a.dptr, a.bytesize, p->dst.raw, p->count);
        break;
    }
    case grGraphNodeTypeMemFree: {
        void *d = NULL;
        fa_ok(f, FA_CALL(f, grGraphMemFreeNodeGetParams(n->h, &d)));
        if (d != p->dst.raw)
            fa_fail(f, "grGraphMemFreeNodeGetParams of %p: %p, made for %p", (void *)n->h, d, p->dst.raw);
        break;
    }
    default:
        break;
    }
}

/* Getters of the wrong node type, and NULL outputs. */
static void wrong_getter(fa *f, fa_node *n)
{
    grKernelNodeParams kp;
    grMemsetParams mp;
    grHostNodeParams hp;
    grMemcpy3DParms cp;
    grEvent_t e;
    grGraph_t cg;
    switch (fa_rand(f, 6)) {
    case 0:
        if (n->type != grGraphNodeTypeKernel)
            fa_bad(f, FA_CALL(f, grGraphKernelNodeGetParams(n->h, &kp)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphKernelNodeGetParams(n->h, NULL)), grErrorInvalidValue);
        break;
    case 1:
        if (n->type != grGraphNodeTypeMemset)
            fa_bad(f, FA_CALL(f, grGraphMemsetNodeGetParams(n->h, &mp)), grErrorInvalidValue);
        break;
    case 2:
        if (n->type != grGraphNodeTypeHost)
            fa_bad(f, FA_CALL(f, grGraphHostNodeGetParams(n->h, &hp)), grErrorInvalidValue);
        break;
    case 3:
        if (n->type != grGraphNodeTypeMemcpy)
            fa_bad(f, FA_CALL(f, grGraphMemcpyNodeGetParams(n->h, &cp)), grErrorInvalidValue);
        break;
    case 4:
        if (n->type != grGraphNodeTypeEventRecord)
            fa_bad(f, FA_CALL(f, grGraphEventRecordNodeGetEvent(n->h, &e)), grErrorInvalidValue);
        break;
    default:
        if (n->type != grGraphNodeTypeGraph)
            fa_bad(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n->h, &cg)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphChildGraphNodeGetGraph(n->h, NULL)), grErrorInvalidValue);
        break;
    }
}

void fa_params_step(fa *f)
{
    fa_graph *g = fa_pick_graph(f, false, true);
    int i = g ? fa_pick_live(f, g) : -1;
    if (i < 0)
        return;
    fa_node *n = &g->node[i];
    if (fa_pct(f, 25)) {
        fa_check_node_params(f, n);
        return;
    }
    if (fa_pct(f, 15)) {
        wrong_getter(f, n);
        return;
    }
    fa_params p;
    bool bad = false;
    int want = -1;
    grError_t err;
    f->ctx_sid = -1;
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        fa_kargv ka;
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        void **args = fa_kargs(f, &p, &ka, &bad, &want);
        grKernelNodeParams kp = {p.kh, p.grid, p.block, p.shmem, args, NULL};
        if (bad && fa_pct(f, 10)) {
            want = grErrorInvalidValue; /* checked first */
            err = FA_CALL(f, grGraphKernelNodeSetParams(n->h, NULL));
        } else {
            err = FA_CALL(f, grGraphKernelNodeSetParams(n->h, &kp));
        }
        break;
    }
    case grGraphNodeTypeMemcpy:
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        err = FA_CALL(f, grGraphMemcpyNodeSetParams1D(n->h, p.dst.raw, p.src.raw, p.count, p.ckind));
        break;
    case grGraphNodeTypeMemset: {
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        grMemsetParams mp = {p.dst.raw, p.pitch, p.value, p.esize, p.width, p.height};
        err = FA_CALL(f, grGraphMemsetNodeSetParams(n->h, &mp));
        break;
    }
    case grGraphNodeTypeHost: {
        fa_params_fill(f, g, n->type, &p, &bad, &want);
        grHostNodeParams hp = {bad ? NULL : fa_pct(f, 50) ? fa_host_count : fa_host_other, &f->hc[p.hc]};
        err = FA_CALL(f, grGraphHostNodeSetParams(n->h, bad && fa_pct(f, 30) ? NULL : &hp));
        want = grErrorInvalidValue;
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        p = n->p;
        p.eh = fa_pick_event_handle(f, n->type == grGraphNodeTypeWaitEvent);
        if (!p.eh || fa_pct(f, 10)) {
            p.eh = NULL;
            bad = true;
            want = grErrorInvalidResourceHandle;
        }
        if (n->type == grGraphNodeTypeEventRecord)
            err = FA_CALL(f, grGraphEventRecordNodeSetEvent(n->h, p.eh));
        else
            err = FA_CALL(f, grGraphEventWaitNodeSetEvent(n->h, p.eh));
        break;
    }
    default:
        /* A setter of another type. */
        p = n->p;
        bad = true;
        want = grErrorInvalidValue;
        err = FA_CALL(f, grGraphHostNodeSetParams(n->h, &(grHostNodeParams){fa_host_count, &f->hc[0]}));
        break;
    }
    if (bad) {
        fa_bad(f, err, want);
        fa_check_node_params(f, n);
        return;
    }
    fa_ok(f, err);
    n->p = p;
    if (fa_pct(f, 30))
        fa_check_node_params(f, n);
}
