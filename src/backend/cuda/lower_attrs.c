/*
 * lower_attrs.c - what a GPU's lowering gives the driver beyond a plan's
 * parameters (graph.c): the kernel nodes' launch attributes
 * (cuGraphKernelNodeSetAttribute), the edges with data between kernel
 * nodes (cuGraphAddDependencies with edge data, CUDA 12.3) and the
 * device-updatable nodes' devNodes (cuGraphKernelNodeGetAttribute).
 * Found in the graph at instantiation (plan_attrs.c), converted to the
 * driver's forms and kept in the executable's record sorted by place
 * (plan, node), so that every lowering of the executable (a rehandle's
 * too) gives them again; an executable with any keeps a driver
 * executable of its own.
 */
#include "graph_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int kattr_cmp(const gr_kattr_at *a, const gr_kattr_at *b)
{
    if (a->cond != b->cond)
        return a->cond < b->cond ? -1 : 1;
    if (a->body != b->body)
        return a->body < b->body ? -1 : 1;
    return a->pindex < b->pindex ? -1 : a->pindex > b->pindex;
}

static int kattr_qcmp(const void *a, const void *b)
{
    const struct gr_cuda_kattr *x = a, *y = b;
    int c = kattr_cmp(&x->at, &y->at);
    return c ? c : (x->a.id > y->a.id) - (x->a.id < y->a.id);
}

/* Gives kernel node 'node', plan node i of the plan gx lowers, its launch
 * attributes (gx->kattrs), with cuGraphKernelNodeSetAttribute. */
CUresult gr__cuda_set_kattrs(const struct gr_dev_exec *gx, uint32_t i, CUgraphNode node)
{
    gr_kattr_at at = {gx->kcond, gx->kbody, i};
    uint32_t lo = 0, hi = gx->nkattrs; /* the first entry at or after 'at' */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (kattr_cmp(&gx->kattrs[mid].at, &at) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    CUresult r = CUDA_SUCCESS;
    for (; r == CUDA_SUCCESS && lo < gx->nkattrs && kattr_cmp(&gx->kattrs[lo].at, &at) == 0; lo++)
        r = gr_cu.cuGraphKernelNodeSetAttribute(node, gx->kattrs[lo].a.id, &gx->kattrs[lo].a.value);
    return r;
}

/* The entries of gx->kattrs at 'at': [*lo, return value). */
static uint32_t kattrs_at(const struct gr_dev_exec *gx, gr_kattr_at at, uint32_t *lo)
{
    uint32_t l = 0, h = gx->nkattrs;
    while (l < h) {
        uint32_t mid = l + (h - l) / 2;
        if (kattr_cmp(&gx->kattrs[mid].at, &at) < 0)
            l = mid + 1;
        else
            h = mid;
    }
    *lo = l;
    for (h = l; h < gx->nkattrs && kattr_cmp(&gx->kattrs[h].at, &at) == 0; h++)
        ;
    return h;
}

grError_t gr__cuda_exec_set_kattrs(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t i,
                                   const grLaunchAttribute *attrs, unsigned n)
{
    CUlaunchAttribute cu[GR_CU_LAUNCH_ATTRS];
    unsigned m = gr__cuda_launch_attrs(attrs, n, cu);
    /* By ID, as gx->kattrs keeps a place's entries. */
    for (unsigned a = 1; a < m; a++)
        for (unsigned b = a; b > 0 && cu[b - 1].id > cu[b].id; b--) {
            CUlaunchAttribute t = cu[b];
            cu[b] = cu[b - 1];
            cu[b - 1] = t;
        }
    gr_kattr_at at = {0, 0, i};
    uint32_t lo, hi = kattrs_at(gx, at, &lo);
    bool same = hi - lo == m;
    for (unsigned k = 0; same && k < m; k++)
        same = gx->kattrs[lo + k].a.id == cu[k].id &&
               memcmp(gx->kattrs[lo + k].a.value.pad, cu[k].value.pad, sizeof cu[k].value.pad) == 0;
    if (same || gx->disabled_once || gx->has_coll || gx->cond)
        return grSuccess;
    uint32_t total = gx->nkattrs - (hi - lo) + m;
    struct gr_cuda_kattr *v = total ? gr__malloc(total * sizeof *v) : NULL;
    if (total && !v)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    if (!gx->share) {
        CUresult r = gr__cuda_enter(gx->device);
        /* An attribute the node loses goes back to its default (zero). */
        for (uint32_t k = lo; r == CUDA_SUCCESS && k < hi; k++) {
            bool kept = false;
            for (unsigned c = 0; c < m && !kept; c++)
                kept = cu[c].id == gx->kattrs[k].a.id;
            CUlaunchAttributeValue zero;
            memset(&zero, 0, sizeof zero);
            if (!kept)
                r = gr_cu.cuGraphKernelNodeSetAttribute(gx->nodes[i], gx->kattrs[k].a.id, &zero);
        }
        for (unsigned c = 0; r == CUDA_SUCCESS && c < m; c++)
            r = gr_cu.cuGraphKernelNodeSetAttribute(gx->nodes[i], cu[c].id, &cu[c].value);
        if (r != CUDA_SUCCESS) {
            gr__free(v);
            return gr__fail(gr__cu_error(r),
                            "%s: cuGraphKernelNodeSetAttribute of node %u (plan order) failed on device %d "
                            "with %s",
                            call, i, gx->device, gr__cu_error_name(r));
        }
    }
    if (total) {
        memcpy(v, gx->kattrs, lo * sizeof *v);
        for (unsigned c = 0; c < m; c++)
            v[lo + c] = (struct gr_cuda_kattr){at, cu[c]};
        memcpy(v + lo + m, gx->kattrs + hi, (gx->nkattrs - hi) * sizeof *v);
    }
    gr__free(gx->kattrs);
    gx->kattrs = v;
    gx->nkattrs = total;
    gx->kattrs_dirty = true;
    /* A view lowers a driver executable of its own, with them. */
    (void)p;
    return gx->share ? gr__cuda_share_promote(call, gx) : grSuccess;
}

/* What gr__cuda_collect_kattrs gathers. */
typedef struct kattr_list {
    struct gr_cuda_kattr *v;
    uint32_t n, cap;
    bool oom;
} kattr_list;

static void kattr_found(void *ctx, gr_kattr_at at, const grLaunchAttribute *attrs, unsigned n)
{
    kattr_list *l = ctx;
    CUlaunchAttribute cu[GR_CU_LAUNCH_ATTRS];
    unsigned m = gr__cuda_launch_attrs(attrs, n, cu);
    for (unsigned k = 0; k < m && !l->oom; k++) {
        if (l->n == l->cap) {
            uint32_t cap = l->cap ? 2 * l->cap : 8;
            struct gr_cuda_kattr *v = gr__realloc(l->v, cap * sizeof *v);
            if (!v) {
                l->oom = true;
                break;
            }
            l->v = v;
            l->cap = cap;
        }
        l->v[l->n++] = (struct gr_cuda_kattr){at, cu[k]};
    }
}

/* The launch attributes of the kernel nodes of executable e (being
 * instantiated, plan p) that the driver takes, sorted by place, into
 * *out (NULL when none). */
grError_t gr__cuda_collect_kattrs(const char *call, const gr_plan *p, int device, struct gr_cuda_kattr **out,
                                  uint32_t *n)
{
    const struct grGraphExec_st *e =
        (const struct grGraphExec_st *)(const void *)((const char *)p -
                                                      offsetof(struct grGraphExec_st, plan));
    kattr_list l = {NULL, 0, 0, false};
    gr__plan_kattrs(e, kattr_found, &l);
    if (l.oom) {
        gr__free(l.v);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, kattr_qcmp);
    *out = l.v;
    *n = l.n;
    return grSuccess;
}

/* The data of the edge from node 'from' into node i of the plan gx
 * lowers (gx->kedges), or NULL for a full edge. */
const CUgraphEdgeData *gr__cuda_kedge_of(const struct gr_dev_exec *gx, uint32_t i, uint32_t from)
{
    gr_kattr_at at = {gx->kcond, gx->kbody, i};
    uint32_t lo = 0, hi = gx->nkedges;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = kattr_cmp(&gx->kedges[mid].at, &at);
        if (c < 0 || (c == 0 && gx->kedges[mid].from < from))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < gx->nkedges && kattr_cmp(&gx->kedges[lo].at, &at) == 0 && gx->kedges[lo].from == from)
        return &gx->kedges[lo].d;
    return NULL;
}

static int kedge_qcmp(const void *a, const void *b)
{
    const struct gr_cuda_kedge *x = a, *y = b;
    int c = kattr_cmp(&x->at, &y->at);
    return c ? c : (x->from > y->from) - (x->from < y->from);
}

typedef struct kedge_list {
    struct gr_cuda_kedge *v;
    uint32_t n, cap;
    bool oom;
} kedge_list;

static void kedge_found(void *ctx, gr_kattr_at at, uint32_t from, const grGraphEdgeData *d)
{
    kedge_list *l = ctx;
    if (l->oom)
        return;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 8;
        struct gr_cuda_kedge *v = gr__realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    struct gr_cuda_kedge *k = &l->v[l->n++];
    memset(k, 0, sizeof *k);
    k->at = at;
    k->from = from;
    k->d.from_port = d->from_port;
    k->d.to_port = d->to_port;
    k->d.type = d->type;
}

/* The edges with data between kernel nodes of the executable being
 * instantiated (plan p), sorted by place, into *out (NULL when none, and
 * where the driver has no cuGraphAddDependencies with edge data: those
 * edges are then full ones, which order more, never less). */
grError_t gr__cuda_collect_kedges(const char *call, const gr_plan *p, int device, struct gr_cuda_kedge **out,
                                  uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (!gr_cu.cuGraphAddDependencies)
        return grSuccess;
    const struct grGraphExec_st *e =
        (const struct grGraphExec_st *)(const void *)((const char *)p -
                                                      offsetof(struct grGraphExec_st, plan));
    kedge_list l = {NULL, 0, 0, false};
    gr__plan_edges(e, kedge_found, &l);
    if (l.oom) {
        gr__free(l.v);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, kedge_qcmp);
    *out = l.v;
    *n = l.n;
    return grSuccess;
}

/* Once gx is instantiated: the driver's devNode of each device-updatable
 * kernel node of the top level (cuGraphKernelNodeGetAttribute of its
 * node), kept in its attribute's entry for gr__cuda_exec_devnode. The
 * node's kernels pass it to CUDA's device functions, so a driver that
 * gives none fails the instantiation rather than hand them graphrt's. */
grError_t gr__cuda_devnodes_read(const char *call, struct gr_dev_exec *gx)
{
    for (uint32_t k = 0; k < gx->nkattrs; k++) {
        struct gr_cuda_kattr *a = &gx->kattrs[k];
        if (a->a.id != CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE || a->at.cond != 0 ||
            a->a.value.deviceUpdatableKernelNode.deviceUpdatable == 0)
            continue;
        CUresult r = gr_cu.cuGraphKernelNodeGetAttribute(
            gx->nodes[a->at.pindex], CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, &a->a.value);
        if (r != CUDA_SUCCESS)
            return gr__cu_fail(call, gx->device, "cuGraphKernelNodeGetAttribute (a devNode)", r);
        if (a->a.value.deviceUpdatableKernelNode.devNode == NULL)
            return gr__fail(
                grErrorNotSupported,
                "%s: the NVIDIA driver gave no device handle (devNode) for device-updatable kernel "
                "node %u of the device %d graph; its kernels could not update it",
                call, a->at.pindex, gx->device);
    }
    return grSuccess;
}

void *gr__cuda_exec_devnode(struct gr_dev_exec *gx, uint32_t i)
{
    /* Read at instantiation (devnodes_read) into the attribute's entry. */
    for (uint32_t k = 0; k < gx->nkattrs; k++) {
        const struct gr_cuda_kattr *a = &gx->kattrs[k];
        if (a->at.cond == 0 && a->at.pindex == i &&
            a->a.id == CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE)
            return a->a.value.deviceUpdatableKernelNode.devNode;
    }
    return NULL;
}
