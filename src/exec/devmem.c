/*
 * devmem.c - the memory an executable's nodes name must be reachable from
 * the device it runs on. A CPU executable whose copy, memset or kernel
 * argument points into a GPU's memory would have a CPU thread dereference
 * a GPU address (a crash, not an error), and a GPU executable's kernel
 * argument pointing into the CPU device's memory (malloc'ed, which no GPU
 * can reach) faults on the GPU, where the error surfaces much later and
 * names nothing. Both are refused with a detail at instantiation and by
 * the setters that change addresses. A GPU's batch memory operations
 * reach less than its copies: the GPU's memory and pinned or registered
 * host memory only (check_memops).
 *
 * Only graphrt's own allocations are known (the memory layer's tracker);
 * on the CPU device the checks run only once a GPU context exists, since
 * no GPU memory can exist before, so CPU-only programs pay one load per
 * call; a GPU's executable is checked always (a batch memory operation's
 * pageable word is refused before any context exists too).
 */
#include "exec.h"
#include "../backend/device.h"

#include <stdio.h>
#include <string.h>

static const char *device_name(int device)
{
    return device ? "a GPU" : "the CPU";
}

/* Where a checked pointer sits: named in a detail only when the check
 * fails, since a node's label is a formatted string (too dear for every
 * node of every update and instantiation). */
typedef struct where {
    const char *label;                 /* a fixed text, or NULL: */
    const struct grGraphNode_st *node; /* this graph node's label, or NULL: */
    const gr_pnode *pn;                /* this plan node's, at 'index' */
    uint32_t index;
} where;

static void where_text(const where *w, char *buf, size_t n)
{
    if (w->label)
        snprintf(buf, n, "%s", w->label);
    else if (w->node)
        snprintf(buf, n, "%s", gr__node_label(w->node));
    else if (w->pn->type == grGraphNodeTypeKernel)
        snprintf(buf, n, "kernel node '%s' (plan node %u)", w->pn->u.kern.k->name, w->index);
    else
        snprintf(buf, n, "%s node (plan node %u)", gr__node_type_name((grGraphNodeType)w->pn->type),
                 w->index);
}

/* Operand 'arg' of the node at w (a kernel argument's index, or
 * GR_DEVMEM_DST / GR_DEVMEM_SRC of a copy or memset), pointing at p, is
 * reachable from 'device'. */
enum {
    GR_DEVMEM_DST = -1,
    GR_DEVMEM_SRC = -2
};

static grError_t check_ptr(const char *call, const where *w, int arg, const void *p, int device)
{
    int owner = GR_OWNER_CPU;
    if (!p || !gr__mem_owner(p, &owner) || owner == GR_OWNER_PINNED || owner == device)
        return grSuccess;
    /* Copies by a GPU's driver reach the CPU's (pageable) memory; its
     * kernels and the CPU's threads cannot reach what is not theirs. */
    if (device != 0 && owner == GR_OWNER_CPU && arg < 0)
        return grSuccess;
    char label[192], what[32];
    where_text(w, label, sizeof label);
    if (arg >= 0)
        snprintf(what, sizeof what, "argument %d", arg);
    else
        snprintf(what, sizeof what, "%s", arg == GR_DEVMEM_DST ? "the destination" : "the source");
    return gr__fail(grErrorInvalidValue,
                    "%s: %s: %s %p is memory of device %d (%s), but the executable runs on device %d (%s), "
                    "which cannot reach it; use memory of device %d (grMalloc with it current), pinned host "
                    "memory (grMallocHost), or instantiate with device %d current",
                    call, label, what, p, owner, device_name(owner), device, device_name(device), device,
                    owner);
}

int gr__exec_device(const struct grGraphExec_st *e)
{
    return e->gpu ? gr__devkind()->exec_device(e->gpu) : 0;
}

static grError_t check_kernel(const char *call, const where *w, grKernel_t k, void *const *argv, int device)
{
    for (int i = 0; i < k->nparams; i++) {
        if (k->sizes[i] != sizeof(void *))
            continue;
        void *v;
        memcpy(&v, argv[i], sizeof v);
        grError_t err = check_ptr(call, w, i, v, device);
        if (err)
            return err;
    }
    return grSuccess;
}

/* Whether p is another GPU's memory than 'device''s, which a copy by
 * 'device''s driver reaches: a peer copy, which the driver makes without
 * peer access too (staged through host memory), as cuMemcpyPeer does. */
static bool other_gpus(const void *p, int device)
{
    int owner = GR_OWNER_CPU;
    return device != 0 && p && gr__mem_owner(p, &owner) && owner > 0 && owner != device;
}

static grError_t check_copy(const char *call, const where *w, const void *dst, const void *src, int device)
{
    /* A memset (no src) of another GPU's memory stays refused: the
     * driver's memset takes its own context's memory. */
    bool copy = src != NULL;
    grError_t err =
        copy && other_gpus(dst, device) ? grSuccess : check_ptr(call, w, GR_DEVMEM_DST, dst, device);
    if (err || !copy || other_gpus(src, device))
        return err;
    return check_ptr(call, w, GR_DEVMEM_SRC, src, device);
}

/* Why GPU 'device''s memory operations cannot reach word p, or NULL
 * when they can: the driver takes device memory of the GPU and host
 * memory mapped for it (pinned or registered), never managed memory
 * (CUDA's Stream Memory Operations section); pageable host memory is no
 * device address at all. buf holds a formatted reason. */
static const char *word_unreachable(const void *p, int device, char *buf, size_t n)
{
    int owner = GR_OWNER_CPU;
    gr_dev_pointer info;
    if (gr__hostreg_find(p, GR_HOSTREG_MANAGED, NULL, NULL, NULL))
        return "managed memory (grMallocManaged), which the driver's memory operations do not take";
    if (gr__mem_owner(p, &owner)) {
        if (owner == device || owner == GR_OWNER_PINNED)
            return NULL;
        if (owner == GR_OWNER_CPU)
            return "memory of device 0 (the CPU: pageable host memory, which no GPU reaches)";
        snprintf(buf, n, "memory of device %d (another GPU)", owner);
        return buf;
    }
    if (gr__hostreg_find(p, GR_HOSTREG_REGISTERED, NULL, NULL, NULL))
        return NULL;
    int d = gr__devkind()->pointer_device(p);
    if (d == device)
        return NULL;
    if (d > 0) {
        snprintf(buf, n, "memory of device %d (another GPU)", d);
        return buf;
    }
    if (gr__devkind()->pointer_info(p, &info)) {
        if (info.type == grMemoryTypeHost)
            return NULL;
        if (info.type == grMemoryTypeManaged)
            return "managed memory, which the driver's memory operations do not take";
    }
    return "host memory that is neither pinned nor registered (pageable), which no GPU reaches";
}

/* A batch's words: on the CPU each as a copy's destination; on a GPU
 * where its memory operations reach (word_unreachable). */
static grError_t check_memops(const char *call, const where *w, const grStreamBatchMemOpParams *ops,
                              unsigned count, int device)
{
    grError_t err = grSuccess;
    for (unsigned i = 0; i < count && !err; i++) {
        if (ops[i].operation == grStreamMemOpBarrier)
            continue;
        const void *p = ops[i].waitValue.address;
        if (device == 0) {
            err = check_copy(call, w, p, NULL, device);
            continue;
        }
        char buf[64], label[192];
        const char *why = word_unreachable(p, device, buf, sizeof buf);
        if (!why)
            continue;
        where_text(w, label, sizeof label);
        err = gr__fail(grErrorInvalidValue,
                       "%s: %s: the word %p of operation %u is %s; the executable runs on device %d, whose "
                       "memory operations take memory of device %d (grMalloc with it current), pinned host "
                       "memory (grMallocHost) or registered host memory (grHostRegister)",
                       call, label, p, i, why, device, device);
    }
    return err;
}

grError_t gr__exec_check_kernel_devmem(const char *call, const char *label, grKernel_t k, void *const *argv,
                                       int device)
{
    if (GR_LIKELY(!gr__gpu_active()))
        return grSuccess;
    where w = {.label = label};
    return check_kernel(call, &w, k, argv, device);
}

grError_t gr__exec_check_copy_devmem(const char *call, const char *label, const void *dst, const void *src,
                                     int device)
{
    if (GR_LIKELY(!gr__gpu_active()))
        return grSuccess;
    where w = {.label = label};
    return check_copy(call, &w, dst, src, device);
}

grError_t gr__exec_check_memop_devmem(const char *call, const char *label, unsigned count,
                                      const grStreamBatchMemOpParams *ops, int device)
{
    /* A GPU's words are checked even before any context exists: pageable
     * memory is refused then too. */
    if (GR_LIKELY(!gr__gpu_active()) && device == 0)
        return grSuccess;
    where w = {.label = label};
    return check_memops(call, &w, ops, count, device);
}

grError_t gr__exec_check_node_devmem(const char *call, const struct grGraphNode_st *gn, int device)
{
    if (GR_LIKELY(!gr__gpu_active()) && device == 0)
        return grSuccess;
    where w = {.node = gn};
    switch (gn->type) {
    case grGraphNodeTypeKernel:
        return check_kernel(call, &w, gn->p.kernel.kernel, gn->p.kernel.argv, device);
    case grGraphNodeTypeMemcpy:
        return check_copy(call, &w, gn->p.memcpy.dst, gn->p.memcpy.src, device);
    case grGraphNodeTypeMemset:
        return check_copy(call, &w, gn->p.memset.dst, NULL, device);
    case grGraphNodeTypeBatchMemOp:
        return check_memops(call, &w, gn->p.memop.ops, gn->p.memop.count, device);
    default:
        return grSuccess;
    }
}

grError_t gr__exec_check_plan_devmem(const char *call, const gr_plan *p, int device)
{
    if (GR_LIKELY(!gr__gpu_active()) && device == 0)
        return grSuccess;
    for (uint32_t i = 0; i + 1 < p->nnodes; i++) {
        const gr_pnode *pn = &p->nodes[i];
        where w = {.pn = pn, .index = i};
        grError_t err = grSuccess;
        switch (pn->type) {
        case grGraphNodeTypeKernel:
            err = check_kernel(call, &w, pn->u.kern.k, pn->u.kern.argv, device);
            break;
        case grGraphNodeTypeMemcpy:
            err = check_copy(call, &w, pn->u.copy.p.dst, pn->u.copy.p.src, device);
            break;
        case grGraphNodeTypeMemset:
            err = check_copy(call, &w, pn->u.memset.dst, NULL, device);
            break;
        case grGraphNodeTypeConditional:
            for (uint32_t b = 0; b < pn->u.cond->nbodies && !err; b++)
                err = gr__exec_check_plan_devmem(call, pn->u.cond->bodies[b], device);
            break;
        case grGraphNodeTypeBatchMemOp:
            err = check_memops(call, &w, pn->u.memop.ops, pn->u.memop.count, device);
            break;
        default:
            break;
        }
        if (err) {
            gr__inst_fault.pindex = i;
            return err;
        }
    }
    return grSuccess;
}
