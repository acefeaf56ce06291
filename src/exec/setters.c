/*
 * setters.c - in-place parameter updates of an executable's nodes and
 * enabling/disabling them.
 *
 * Every setter takes one path, set_node, driven by its row of 'setters':
 * find the node (the executable live, the node one of its graph's,
 * of a kind the setter takes, not a conditional body's on a GPU), the
 * kind's checks of the parameters (the graph API's checks), then, between
 * gr__exec_write_begin and gr__exec_write_end (no launch queued or
 * running, none queued meanwhile), the kind's checks of what an
 * executable may change against the plan (shared with update.c), the
 * device's setter, and the write: launches issued before the call use the
 * old parameters, launches issued after it the new ones, as in CUDA.
 *
 * Invariant: on a GPU executable the device is told only after every
 * check passed and before the plan is written, so that a refusal by the
 * device changes nothing (device-first-then-plan, backend/device.h).
 */
#include "exec.h"
#include "../backend/device.h"

#include <stdio.h>
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
    if (pn->krun != GR_KRUN_COOP)
        pn->krun = grid->x == 1 && grid->y == 1 && grid->z == 1 ? GR_KRUN_ONE : GR_KRUN_GRID;
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

/* One call's state, handed from phase to phase of set_node. */
typedef struct set_ctx {
    const char *call;
    grGraphExec_t e;
    grGraphNode_t node;
    gr_pnode *pn;    /* the node's plan node (current within the section) */
    const void *arg; /* the setter's parameters, as its row expects */
    union {
        struct { /* memcpy: the copy made by 'prepare' */
            gr_memcpy_node m;
            bool dst_device, src_device;
        } copy;
        grEvent_t old; /* event: the event replaced, released by 'finish' */
    } u;
} set_ctx;

typedef grError_t (*set_phase)(set_ctx *c);

/* A setter's row: what set_node checks and which of the kind's phases it
 * runs, in this order (a NULL phase is skipped):
 *   prepare     turns the caller's parameters into the kind's form (in
 *               the context's union, which nothing else initialises);
 *   check       the parameters' checks, before the write section;
 *   check_plan  the checks against the plan node, in the section;
 *   dev         the GPU executable's setter: when the row has a
 *               check_plan, in the section after it, else before the
 *               section opens (a refusal then waits for no launch);
 *   write       writes the plan node, in the section;
 *   finish      after the section, once prepare succeeded, whatever the
 *               outcome. */
typedef struct gr_setter {
    const char *call;
    uint32_t kinds;             /* the node kinds taken, one bit per grGraphNodeType */
    grGraphNodeType want;       /* the kind named in a mismatch; Count: enable/disable's detail */
    bool body_gpu_refused;      /* refuse conditional bodies' nodes of a GPU executable */
    const char *not_found_hint; /* the not-found detail's tail */
    set_phase prepare, check, check_plan, dev, write, finish;
    bool forward_span; /* find_slow leaves a spanning executable's node to span_set */
} gr_setter;

#define KIND(t) (1u << (unsigned)grGraphNodeType##t)

static const char child_hint[] =
    " (nodes inside child graphs are updated with grGraphExecChildGraphNodeSetParams)";

/* A node of another kind than the setter takes. */
static grError_t wrong_kind(const gr_setter *s, const char *call, grGraphNode_t node, grGraphNodeType t)
{
    if (s->want == grGraphNodeTypeCount)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is a %s node; only kernel, memcpy and memset nodes can be enabled "
                        "or disabled, as in CUDA",
                        call, GR_PTR(node), gr__node_type_name(t));
    return gr__fail(grErrorInvalidValue, "%s: node %p is a %s node, not a %s node", call, GR_PTR(node),
                    gr__node_type_name(t), gr__node_type_name(s->want));
}

/* find's failures (and its first call, which builds the node map), each
 * with its detail; a spanning executable's node (set_node's only) with
 * *out NULL. */
static GR_NOINLINE grError_t find_slow(const gr_setter *s, const char *call, grGraphExec_t e,
                                       grGraphNode_t node, gr_pnode **out)
{
    grError_t err = gr__exec_check(call, e);
    if (err)
        return err;
    if (GR_UNLIKELY(e->span != NULL)) {
        /* set_node forwards the call to the node's part (span_set); the
         * other callers reach kinds a spanning graph does not hold. */
        if (s->forward_span) {
            *out = NULL;
            return grSuccess;
        }
        return gr__exec_span_refuse(call, e);
    }
    gr_pnode *pn = NULL;
    grGraphNodeType t = gr__exec_find_node(e, node, &pn);
    if (t == grGraphNodeTypeCount)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is not a node of the graph executable %p was instantiated from, nor "
                        "of its conditional nodes' bodies%s",
                        call, GR_PTR(node), GR_PTR(e), s->not_found_hint);
    if (!(s->kinds & (1u << (unsigned)t)))
        return wrong_kind(s, call, node, t);
    if (s->body_gpu_refused && (err = gpu_body_refused(call, e, node, pn)))
        return err;
    *out = pn;
    return grSuccess;
}

grError_t gr__exec_find_typed(const char *call, grGraphExec_t e, grGraphNode_t node, grGraphNodeType want,
                              gr_pnode **out)
{
    const gr_setter s = {
        .kinds = 1u << (unsigned)want, .want = want, .body_gpu_refused = true, .not_found_hint = child_hint};
    return find_slow(&s, call, e, node, out);
}

/* Finds 'node' among the executable's top-level nodes and checks its
 * kind. The common case reads the map slot and the plan node only: a
 * top-level node's plan node has the node's type, except a child
 * graph's, whose plan node is its empty 'enter' node, and no setter takes
 * empty nodes. */
static inline grError_t find(const gr_setter *s, const char *call, grGraphExec_t e, grGraphNode_t node,
                             gr_pnode **out)
{
    if (GR_LIKELY(gr__exec_valid(e))) {
        const gr_node_slot *slot = gr__exec_lookup(e, node);
        if (GR_LIKELY(slot != NULL)) {
            gr_pnode *pn = &e->plan.nodes[slot->pindex];
            if (GR_LIKELY(s->want != grGraphNodeTypeCount ? pn->type == (uint8_t)s->want
                                                          : pn->type < 32 && (s->kinds >> pn->type) & 1u)) {
                *out = pn;
                return grSuccess;
            }
        }
    }
    return find_slow(s, call, e, node, out);
}

static grError_t span_set(const gr_setter *s, grGraphExec_t e, grGraphNode_t node, const void *arg);

/* The one path of every setter (see the file's head). Inlined into each
 * setter with its row a constant, so that the phases are direct calls,
 * inlined where small: the kernel setter, which replay loops call per
 * launch, pays no indirect call. */
static inline __attribute__((always_inline)) grError_t set_node(const gr_setter *s, grGraphExec_t e,
                                                                grGraphNode_t node, const void *arg)
{
    /* Field by field: the union is the kind's to set ('prepare'), and
     * zeroing it would cost the kernel setter stores on every call. */
    set_ctx c;
    gr_pnode *pn = NULL;
    grError_t err = find(s, s->call, e, node, &pn);
    if (err)
        return err;
    if (GR_UNLIKELY(pn == NULL))
        return span_set(s, e, node, arg);
    c.call = s->call;
    c.e = e;
    c.node = node;
    c.pn = pn;
    c.arg = arg;
    if (s->prepare && (err = s->prepare(&c)))
        return err;
    if (s->check && (err = s->check(&c)))
        goto finish;
    if (!s->check_plan && s->dev && GR_UNLIKELY(e->gpu != NULL) && (err = s->dev(&c)))
        goto finish;
    gr__exec_write_begin(e);
    c.pn = gr__exec_pnode_current(e, node, c.pn);
    if (s->check_plan &&
        ((err = s->check_plan(&c)) || (s->dev && GR_UNLIKELY(e->gpu != NULL) && (err = s->dev(&c))))) {
        gr__exec_write_end(e);
        goto finish;
    }
    err = s->write(&c);
    gr__exec_write_end(e);
finish:
    if (s->finish)
        s->finish(&c);
    return err;
}

/* Kernel nodes. The phases of the replay loops' setter are forced inline
 * into it (their addresses in the table would keep them out of line). */

#define HOT static inline __attribute__((always_inline))

HOT grError_t kernel_check(set_ctx *c)
{
    const grKernelNodeParams *p = c->arg;
    grError_t err;
    if (!p)
        return gr__fail(grErrorInvalidValue, "%s: 'pNodeParams' is NULL", c->call);
    if (p->extra)
        return gr__fail(grErrorInvalidValue, "%s: 'extra' must be NULL; pass arguments in kernelParams",
                        c->call);
    err = gr__kernel_check(c->call, p->func, &p->gridDim, &p->blockDim, p->sharedMemBytes, p->kernelParams);
    if (err)
        return err;
    if (GR_UNLIKELY(gr__gpu_active()) &&
        (err = gr__exec_check_kernel_devmem(c->call, "the kernel node", p->func, p->kernelParams,
                                            gr__exec_device(c->e))))
        return err;
    return grSuccess;
}

static grError_t kernel_dev(set_ctx *c)
{
    const grKernelNodeParams *p = c->arg;
    return gr__devkind()->exec_set_kernel(c->call, c->e->gpu, c->pn->index, p->func, &p->gridDim,
                                          &p->blockDim, p->sharedMemBytes, p->kernelParams);
}

/* The kernel's parameter layout changes: the values are packed into a
 * temporary first, so that nothing changes if the new argument block
 * cannot be allocated. */
static GR_NOINLINE grError_t kernel_relayout(const char *call, gr_pnode *pn, const grKernelNodeParams *p)
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
    bool ok = gr__pnode_set_kernel(pn, &kp);
    if (buf != stackbuf)
        gr__free(buf);
    if (!ok)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    return grSuccess;
}

HOT grError_t kernel_write(set_ctx *c)
{
    const grKernelNodeParams *p = c->arg;
    grKernel_t k = p->func;
    gr_pnode *pn = c->pn;
    grError_t err;
    /* A cooperative node stays cooperative: its grid must still fit (read
     * here, in the write section, where the plan node is stable). */
    if (GR_UNLIKELY(pn->krun == GR_KRUN_COOP) && c->e->gpu == NULL &&
        (err = gr__kernel_check_coop(c->call, k, &p->gridDim)))
        return err;
    if (GR_UNLIKELY(!gr__kernel_same_layout(k, pn->u.kern.k))) {
        err = kernel_relayout(c->call, pn, p);
        if (!err && GR_UNLIKELY(c->e->devupd != NULL))
            gr__devupd_host_wrote(c->e, pn, GR_DEVUPD_HOST_PARAMS);
        return err;
    }
    /* Common case: the values go straight into the plan (nothing below can
     * fail). Parameter 0 sits at offset 0: argv[0] starts them. */
    if (k->nparams)
        gr__kernel_pack(k, p->kernelParams, pn->u.kern.argv[0], NULL);
    set_kernel_fields(pn, k, &p->gridDim, &p->blockDim, p->sharedMemBytes);
    if (GR_UNLIKELY(c->e->devupd != NULL))
        gr__devupd_host_wrote(c->e, pn, GR_DEVUPD_HOST_PARAMS);
    return grSuccess;
}

/* Memcpy nodes: 'prepare' makes the copy (checked), a pitched copy when
 * its rows are not contiguous. */

typedef struct memcpy_1d_args {
    void *dst;
    const void *src;
    size_t count;
    grMemcpyKind kind;
} memcpy_1d_args;

typedef struct memcpy_3d_args {
    const grMemcpyNodeParams *generic;
    const grMemcpy3DParms *c;
} memcpy_3d_args;

static grError_t memcpy_prepare_1d(set_ctx *c)
{
    const memcpy_1d_args *a = c->arg;
    grError_t err = gr__node_memcpy_params_check(c->call, a->dst, a->src, a->count, a->kind);
    if (err)
        return err;
    c->u.copy.m = (gr_memcpy_node){a->dst, a->src, a->count, a->kind, NULL};
    return grSuccess;
}

static grError_t memcpy_prepare_3d(set_ctx *c)
{
    const memcpy_3d_args *a = c->arg;
    return a->generic ? gr__node_memcpy_from_3d(c->call, a->generic, &c->u.copy.m)
                      : gr__memcpy_node_make(c->call, "pNodeParams", a->c, &c->u.copy.m);
}

static grError_t memcpy_check(set_ctx *c)
{
    const gr_memcpy_node *m = &c->u.copy.m;
    grError_t err;
    if (m->count == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: count is 0; as in CUDA, an executable's copy cannot be set "
                        "to copy nothing (disable the node with grGraphNodeSetEnabled)",
                        c->call);
    if (GR_UNLIKELY(gr__gpu_active()) &&
        (err = gr__exec_check_copy_devmem(c->call, "the memcpy node", m->dst, m->src, gr__exec_device(c->e))))
        return err;
    c->u.copy.dst_device = gr__mem_is_device(m->dst);
    c->u.copy.src_device = gr__mem_is_device(m->src);
    return grSuccess;
}

static grError_t memcpy_check_plan(set_ctx *c)
{
    const gr_memcpy_node *m = &c->u.copy.m;
    const gr_pnode *pn = c->pn;
    bool dst_device = c->u.copy.dst_device, src_device = c->u.copy.src_device;
    if (dst_device != pn->u.copy.dst_device || src_device != pn->u.copy.src_device) {
        bool od = pn->u.copy.dst_device, os = pn->u.copy.src_device;
        return gr__fail(grErrorInvalidValue,
                        "%s: the copy %p (%s) -> %p (%s) uses memory of another type than the node's "
                        "%p (%s) -> %p (%s); as in CUDA, a copy's memory types cannot change in an "
                        "executable (instantiate a new one instead)",
                        c->call, m->src, src_device ? "device" : "host", m->dst,
                        dst_device ? "device" : "host", pn->u.copy.p.src, os ? "device" : "host",
                        pn->u.copy.p.dst, od ? "device" : "host");
    }
    /* CUDA's rule for this setter: the copy the node made at
     * instantiation and the new one must both be 1D (an extent of one row
     * and one slice), cudaErrorInvalidValue otherwise (an update refuses
     * to change a multidimensional copy too). A node instantiated as a 2D
     * copy of contiguous rows runs as one range and is not told apart
     * here. */
    if (GR_UNLIKELY(gr__memcpy_node_multidim(m) || pn->u.copy.pitched))
        return gr__fail(grErrorInvalidValue,
                        "%s: %s; as in CUDA, an executable's memcpy node is set only from a 1D copy to a 1D "
                        "copy (to change a 2D or 3D copy, instantiate a new executable)",
                        c->call,
                        pn->u.copy.pitched ? "the node makes a 2D or 3D copy" : "the new copy is 2D or 3D");
    return grSuccess;
}

static grError_t memcpy_dev(set_ctx *c)
{
    const gr_memcpy_node *m = &c->u.copy.m;
    return gr__devkind()->exec_set_memcpy(c->call, c->e->gpu, c->pn->index, m->dst, m->src, m->count, NULL);
}

static grError_t memcpy_write(set_ctx *c)
{
    const gr_memcpy_node *m = &c->u.copy.m;
    /* Both copies are 1D (checked): the plan node holds no layout. */
    gr__pnode_set_copy(c->pn, &(gr_memcpy_params){m->dst, m->src, m->count, m->kind}, NULL);
    gr_store_relaxed(&c->e->plan.range_gen, 0); /* the next launch checks the mapping */
    return grSuccess;
}

static grError_t memcpy_finish(set_ctx *c)
{
    gr__memcpy_node_free(&c->u.copy.m);
    return grSuccess;
}

/* Memset nodes. */

static grError_t memset_check(set_ctx *c)
{
    const grMemsetParams *p = c->arg;
    grError_t err;
    if ((err = gr__node_memset_params_check(c->call, p)))
        return err;
    if (GR_UNLIKELY(gr__gpu_active()) &&
        (err = gr__exec_check_copy_devmem(c->call, "the memset node", p->dst, NULL, gr__exec_device(c->e))))
        return err;
    if (p->width == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: width is 0; as in CUDA, an executable's memset cannot be set "
                        "to set nothing (disable the node with grGraphNodeSetEnabled)",
                        c->call);
    return grSuccess;
}

static grError_t memset_check_plan(set_ctx *c)
{
    const grMemsetParams *p = c->arg;
    const grMemsetParams o = c->pn->u.memset;
    if (!gr__memset_shape_ok(&o, p))
        return gr__fail(
            grErrorInvalidValue,
            "%s: the node sets %zu x %zu elements of %u bytes (pitch %zu), the new parameters %zu x "
            "%zu of %u bytes (pitch %zu); as in CUDA, a 2D memset in an executable may change only "
            "its address and value, and a 1D one cannot become 2D",
            c->call, o.width, o.height, o.elementSize, o.pitch, p->width, p->height, p->elementSize,
            p->pitch);
    return grSuccess;
}

static grError_t memset_dev(set_ctx *c)
{
    return gr__devkind()->exec_set_memset(c->call, c->e->gpu, c->pn->index, c->arg);
}

static grError_t memset_write(set_ctx *c)
{
    c->pn->u.memset = *(const grMemsetParams *)c->arg;
    gr_store_relaxed(&c->e->plan.range_gen, 0); /* the next launch checks the mapping */
    return grSuccess;
}

/* Host nodes. */

static grError_t host_check(set_ctx *c)
{
    return gr__node_host_params_check(c->call, c->arg);
}

static grError_t host_dev(set_ctx *c)
{
    return gr__devkind()->exec_set_host(c->call, c->e->gpu, c->pn->index, c->arg);
}

static grError_t host_write(set_ctx *c)
{
    c->pn->u.host = *(const grHostNodeParams *)c->arg;
    return grSuccess;
}

/* Event record and event wait nodes: the new event is retained, the old
 * one released after the section. */

static grError_t event_prepare(set_ctx *c)
{
    c->u.old = NULL;
    return grSuccess;
}

static grError_t event_check(set_ctx *c)
{
    return gr__node_event_check(c->call, *(const grEvent_t *)c->arg);
}

static grError_t event_dev(set_ctx *c)
{
    return gr__devkind()->exec_set_event(c->call, c->e->gpu, c->pn->index,
                                         c->pn->type == grGraphNodeTypeEventRecord,
                                         *(const grEvent_t *)c->arg);
}

static grError_t event_write(set_ctx *c)
{
    grEvent_t event = *(const grEvent_t *)c->arg;
    gr__event_retain(event);
    c->u.old = c->pn->u.event;
    c->pn->u.event = event;
    return grSuccess;
}

static grError_t event_finish(set_ctx *c)
{
    if (c->u.old)
        gr__event_release(c->u.old);
    return grSuccess;
}

/* Enabling and disabling. */

static grError_t enabled_dev(set_ctx *c)
{
    return gr__devkind()->exec_set_enabled(c->call, c->e->gpu, c->pn->index, *(const unsigned *)c->arg != 0);
}

static grError_t enabled_write(set_ctx *c)
{
    c->pn->enabled = *(const unsigned *)c->arg != 0;
    if (GR_UNLIKELY(c->e->devupd != NULL))
        gr__devupd_host_wrote(c->e, c->pn, GR_DEVUPD_HOST_ENABLED);
    return grSuccess;
}

enum {
    SET_KERNEL,
    SET_MEMCPY_1D,
    SET_MEMCPY,
    SET_MEMSET,
    SET_HOST,
    SET_EVENT_RECORD,
    SET_EVENT_WAIT,
    SET_ENABLED,
    GET_ENABLED,
};

#define TOGGLED (KIND(Kernel) | KIND(Memcpy) | KIND(Memset))

static const gr_setter setters[] = {
    [SET_KERNEL] = {"grGraphExecKernelNodeSetParams", KIND(Kernel), grGraphNodeTypeKernel, true, child_hint,
                    NULL, kernel_check, NULL, kernel_dev, kernel_write, NULL, true},
    [SET_MEMCPY_1D] = {"grGraphExecMemcpyNodeSetParams1D", KIND(Memcpy), grGraphNodeTypeMemcpy, true,
                       child_hint, memcpy_prepare_1d, memcpy_check, memcpy_check_plan, memcpy_dev,
                       memcpy_write, memcpy_finish, true},
    [SET_MEMCPY] = {"grGraphExecMemcpyNodeSetParams", KIND(Memcpy), grGraphNodeTypeMemcpy, true, child_hint,
                    memcpy_prepare_3d, memcpy_check, memcpy_check_plan, memcpy_dev, memcpy_write,
                    memcpy_finish, true},
    [SET_MEMSET] = {"grGraphExecMemsetNodeSetParams", KIND(Memset), grGraphNodeTypeMemset, true, child_hint,
                    NULL, memset_check, memset_check_plan, memset_dev, memset_write, NULL, true},
    [SET_HOST] = {"grGraphExecHostNodeSetParams", KIND(Host), grGraphNodeTypeHost, true, child_hint, NULL,
                  host_check, NULL, host_dev, host_write, NULL, true},
    [SET_EVENT_RECORD] = {"grGraphExecEventRecordNodeSetEvent", KIND(EventRecord), grGraphNodeTypeEventRecord,
                          true, child_hint, event_prepare, event_check, NULL, event_dev, event_write,
                          event_finish, true},
    [SET_EVENT_WAIT] = {"grGraphExecEventWaitNodeSetEvent", KIND(WaitEvent), grGraphNodeTypeWaitEvent, true,
                        child_hint, event_prepare, event_check, NULL, event_dev, event_write, event_finish,
                        true},
    [SET_ENABLED] = {"grGraphNodeSetEnabled", TOGGLED, grGraphNodeTypeCount, true, "", NULL, NULL, NULL,
                     enabled_dev, enabled_write, NULL, true},
    /* Finding only (the getter reads, see grGraphNodeGetEnabled). */
    [GET_ENABLED] = {"grGraphNodeGetEnabled", TOGGLED, grGraphNodeTypeCount, false, "", NULL, NULL, NULL,
                     NULL, NULL, NULL, false},
};

/* Not inlined: the path of the parts' setters in span_set, which
 * set_node itself calls. */
static GR_NOINLINE grError_t set_node_any(const gr_setter *s, grGraphExec_t e, grGraphNode_t node,
                                          const void *arg)
{
    return set_node(s, e, node, arg);
}

/* The new memory of a copy or memset, the new event of an event node:
 * whose device it is must be the part's (gr__exec_span_check_memory). A 3D copy is made to be read
 * (prepare), then freed; its own errors are the part's setter's to give. */
static grError_t span_check_memory(const gr_setter *s, grGraphExec_t e, grGraphNode_t node,
                                   const gr_span_node *sn, const void *arg)
{
    if (s == &setters[SET_KERNEL])
        return gr__exec_span_check_kernel(s->call, e, sn, node, arg);
    if (s == &setters[SET_MEMSET]) {
        const grMemsetParams *p = arg;
        return p && p->dst ? gr__exec_span_check_memory(s->call, e, sn, node, p->dst, NULL) : grSuccess;
    }
    if (s == &setters[SET_MEMCPY_1D]) {
        const memcpy_1d_args *a = arg;
        return gr__exec_span_check_memory(s->call, e, sn, node, a->dst, a->src);
    }
    if (s == &setters[SET_EVENT_RECORD] || s == &setters[SET_EVENT_WAIT]) {
        grEvent_t ev = *(const grEvent_t *)arg;
        char what[48];
        snprintf(what, sizeof what, "event %p", GR_PTR(ev));
        /* A dead event is the part's setter's to refuse. */
        return gr__node_event_check(s->call, ev)
                   ? grSuccess
                   : gr__exec_span_check_device(s->call, e, sn, node, ev->device, what);
    }
    if (s != &setters[SET_MEMCPY])
        return grSuccess;
    set_ctx c;
    c.call = s->call;
    c.arg = arg;
    if (memcpy_prepare_3d(&c) != grSuccess)
        return grSuccess;
    grError_t err = gr__exec_span_check_memory(s->call, e, sn, node, c.u.copy.m.dst, c.u.copy.m.src);
    memcpy_finish(&c);
    return err;
}

/* A setter of a spanning executable: the node's kind and new memory
 * checked against the node's part, then the part's own setter on the
 * node's copy, with that device's rules (exec.h, gr_span_node: a GPU
 * part's change inside the CPU part's write section). */
static GR_NOINLINE grError_t span_set(const gr_setter *s, grGraphExec_t e, grGraphNode_t node,
                                      const void *arg)
{
    gr_span_node sn;
    grError_t err = gr__exec_span_node(s->call, e, node, &sn);
    if (err)
        return err;
    if (!(s->kinds & (1u << (unsigned)sn.type)))
        return wrong_kind(s, s->call, node, sn.type);
    if ((err = span_check_memory(s, e, node, &sn, arg)))
        return err;
    if (sn.hold)
        gr__exec_write_begin(sn.hold);
    err = set_node_any(s, sn.exec, sn.clone, arg);
    if (sn.hold)
        gr__exec_write_end(sn.hold);
    return err;
}

GR_API grError_t grGraphExecKernelNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grKernelNodeParams *pNodeParams)
{
    return set_node(&setters[SET_KERNEL], hGraphExec, node, pNodeParams);
}

GR_API grError_t grGraphExecMemcpyNodeSetParams1D(grGraphExec_t hGraphExec, grGraphNode_t node, void *dst,
                                                  const void *src, size_t count, grMemcpyKind kind)
{
    const memcpy_1d_args a = {dst, src, count, kind};
    return set_node(&setters[SET_MEMCPY_1D], hGraphExec, node, &a);
}

grError_t gr__exec_set_memcpy_3d(grGraphExec_t hGraphExec, grGraphNode_t node,
                                 const grMemcpyNodeParams *generic, const grMemcpy3DParms *c)
{
    const memcpy_3d_args a = {generic, c};
    return set_node(&setters[SET_MEMCPY], hGraphExec, node, &a);
}

GR_API grError_t grGraphExecMemcpyNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemcpy3DParms *pNodeParams)
{
    return gr__exec_set_memcpy_3d(hGraphExec, node, NULL, pNodeParams);
}

GR_API grError_t grGraphExecMemsetNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                const grMemsetParams *p)
{
    return set_node(&setters[SET_MEMSET], hGraphExec, node, p);
}

GR_API grError_t grGraphExecHostNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                              const grHostNodeParams *p)
{
    return set_node(&setters[SET_HOST], hGraphExec, node, p);
}

GR_API grError_t grGraphExecEventRecordNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                    grEvent_t event)
{
    return set_node(&setters[SET_EVENT_RECORD], hGraphExec, hNode, &event);
}

GR_API grError_t grGraphExecEventWaitNodeSetEvent(grGraphExec_t hGraphExec, grGraphNode_t hNode,
                                                  grEvent_t event)
{
    return set_node(&setters[SET_EVENT_WAIT], hGraphExec, hNode, &event);
}

GR_API grError_t grGraphNodeSetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode, unsigned int isEnabled)
{
    return set_node(&setters[SET_ENABLED], hGraphExec, hNode, &isEnabled);
}

GR_API grError_t grGraphNodeGetEnabled(grGraphExec_t hGraphExec, grGraphNode_t hNode, unsigned int *isEnabled)
{
    const gr_setter *s = &setters[GET_ENABLED];
    gr_pnode *pn = NULL;
    grError_t err;
    if (!isEnabled)
        return gr__fail(grErrorInvalidValue,
                        "grGraphNodeGetEnabled: 'isEnabled' (the output pointer) is NULL");
    if ((err = gr__exec_check(s->call, hGraphExec)))
        return err;
    if (GR_UNLIKELY(hGraphExec->span != NULL)) {
        gr_span_node sn;
        if ((err = gr__exec_span_node(s->call, hGraphExec, hNode, &sn)))
            return err;
        if (!(s->kinds & (1u << (unsigned)sn.type)))
            return wrong_kind(s, s->call, hNode, sn.type);
        return grGraphNodeGetEnabled(sn.exec, sn.clone, isEnabled);
    }
    if ((err = find_slow(s, s->call, hGraphExec, hNode, &pn)))
        return err;
    if (GR_NEVER(pn == NULL)) /* only set_node's finds leave it NULL (a spanning executable) */
        return gr__fail(grErrorInvalidValue, "%s: node %p was not found", s->call, GR_PTR(hNode));
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
