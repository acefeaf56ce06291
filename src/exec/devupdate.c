/*
 * devupdate.c - device-updatable kernel nodes on the CPU device: the
 * executable's table of them, the calls a kernel makes to change them
 * (grGraphKernelNodeSetParam, SetEnabled, SetGridDim, UpdatesApply) and
 * when what they change reaches the plan. On a GPU the node is lowered
 * with CUDA's attribute (cuda/graph.c) and its handle is the driver's
 * devNode, which the GPU's kernels give CUDA's device functions; the
 * table then only follows the host setters.
 *
 * Invariants:
 *   - kernels never write the plan: an update is staged in the node's
 *     entry under the table's lock, and the CPU backend applies the staged
 *     entries at the start of the executable's next launch, before any of
 *     its nodes runs (launches of one executable never overlap), so a
 *     launch sees the updates made by the launches before it and none of
 *     its own (docs/exec.md, "Device-updatable kernel nodes");
 *   - an entry keeps the host's values (instantiation's, then each host
 *     setter's) apart from the staged device view: a host setter writes
 *     the host's values back over every device-side update, as CUDA's
 *     cudaGraphExecKernelNodeSetParams documents;
 *   - a graph with such nodes has one executable at a time (CUDA's rule,
 *     cudaGraphInstantiate), found from the node's attributes (du_exec,
 *     du_uid), so that devNode names one entry.
 * Lock order: the table's lock is taken alone (under no other lock, and
 * none is taken under it).
 */
#include "exec.h"
#include "../backend/device.h"

#include <string.h>

enum {
    GR_MAGIC_DEVNODE = 0x44564e44u
};

struct grGraphDeviceUpdatableNode_st {
    uint32_t magic; /* GR_MAGIC_DEVNODE while the executable lives */
    uint32_t pindex;
    struct gr_devupd *tab;
    /* Guarded by tab->lock. */
    bool dirty;
    uint8_t enabled, host_enabled;
    grDim3 grid, host_grid;
    uint32_t nbytes;          /* the kernel's argument block */
    unsigned char *args;      /* the device view, nbytes */
    unsigned char *host_args; /* the host's values, nbytes */
};

struct gr_devupd {
    gr_spinlock lock;
    bool dirty; /* some entry is (guarded by lock) */
    uint32_t n;
    struct grGraphExec_st *e;
    struct grGraphDeviceUpdatableNode_st ent[];
};

#define is_devupd gr__node_devupd
#define nested_devupd gr__graph_has_devupd

/* A kernel node's grid, and how it runs with it: one block directly, or
 * spread over the workers; a cooperative node stays cooperative. */
static void set_grid(gr_pnode *pn, grDim3 grid)
{
    pn->u.kern.grid = grid;
    if (pn->krun != GR_KRUN_COOP)
        pn->krun = grid.x == 1 && grid.y == 1 && grid.z == 1 ? GR_KRUN_ONE : GR_KRUN_GRID;
}

static void apply(struct grGraphExec_st *e)
{
    struct gr_devupd *t = e->devupd;
    gr__spin_lock(&t->lock);
    if (t->dirty) {
        for (uint32_t i = 0; i < t->n; i++) {
            struct grGraphDeviceUpdatableNode_st *d = &t->ent[i];
            if (!d->dirty)
                continue;
            gr_pnode *pn = &e->plan.nodes[d->pindex];
            if (d->nbytes)
                memcpy(pn->u.kern.argv[0], d->args, d->nbytes);
            set_grid(pn, d->grid);
            pn->enabled = d->enabled;
            d->dirty = false;
        }
        t->dirty = false;
    }
    gr__spin_unlock(&t->lock);
}

void gr__devupd_free(struct grGraphExec_st *e)
{
    struct gr_devupd *t = e->devupd;
    if (t == NULL)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        t->ent[i].magic = GR_MAGIC_DEAD;
        gr__free(t->ent[i].args);
    }
    gr__free(t);
    e->devupd = NULL;
}

grError_t gr__devupd_instantiate(const char *call, struct grGraphExec_st *e, grGraph_t g, int device)
{
    uint32_t n = 0;
    for (const struct grGraphNode_st *gn = g->first; gn; gn = gn->next) {
        if (gn->type == grGraphNodeTypeGraph && nested_devupd(gn->p.child))
            return gr__fail(grErrorNotSupported,
                            "%s: child graph node %s holds a device-updatable kernel node; graphrt takes "
                            "them at the graph's top level only",
                            call, gr__node_label(gn));
        if (!is_devupd(gn))
            continue;
        if (gr__node_devupd_live(gn))
            return gr__fail(grErrorInvalidValue,
                            "%s: the graph has device-updatable kernel nodes and an executable of it exists "
                            "already; such a graph has one executable at a time, as in CUDA: destroy that "
                            "one first (grGraphExecDestroy)",
                            call);
        n++;
    }
    if (n == 0)
        return grSuccess;
    /* On a GPU the table still serves the host setters' bookkeeping (and
     * a device that runs graphrt's plan, the fake one, as on the CPU);
     * the node's handle is the device's own (gr__devupd_published). */
    (void)device;
    struct gr_devupd *t = gr__calloc(1, sizeof *t + n * sizeof t->ent[0]);
    if (t == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    t->e = e;
    uint32_t i = 0;
    for (const struct grGraphNode_st *gn = g->first; gn; gn = gn->next) {
        if (!is_devupd(gn))
            continue;
        gr_pnode *pn = NULL;
        if (GR_NEVER(gr__exec_find_node(e, gn, &pn) != grGraphNodeTypeKernel))
            continue;
        struct grGraphDeviceUpdatableNode_st *d = &t->ent[i++];
        d->tab = t;
        d->pindex = pn->index;
        d->nbytes = pn->u.kern.k->nparams ? pn->u.kern.k->argbytes : 0;
        d->grid = d->host_grid = pn->u.kern.grid;
        d->enabled = d->host_enabled = pn->enabled;
        if (d->nbytes) {
            d->args = gr__malloc(2 * (size_t)d->nbytes);
            if (d->args == NULL) {
                t->n = i;
                e->devupd = t;
                gr__devupd_free(e);
                return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
            }
            d->host_args = d->args + d->nbytes;
            memcpy(d->args, pn->u.kern.argv[0], d->nbytes);
            memcpy(d->host_args, d->args, d->nbytes);
        }
        d->magic = GR_MAGIC_DEVNODE;
    }
    t->n = i;
    e->devupd = t;
    e->devupd_apply = apply;
    return grSuccess;
}

void gr__devupd_published(struct grGraphExec_st *e, grGraph_t g)
{
    if (e->devupd == NULL)
        return;
    uint32_t i = 0;
    for (struct grGraphNode_st *gn = g->first; gn && i < e->devupd->n; gn = gn->next) {
        if (!is_devupd(gn))
            continue;
        /* A GPU's kernels update the node through the driver's handle,
         * which the lowering carries (cuda/graph.c); graphrt's entry
         * stays for a device without one. */
        void *own = e->gpu ? gr__devkind()->exec_devnode(e->gpu, e->devupd->ent[i].pindex) : NULL;
        gn->kattrs->du_exec = e;
        gn->kattrs->du_handle = own ? own : (void *)&e->devupd->ent[i];
        gn->kattrs->du_uid = e->uid;
        gn->kattrs->du_index = i++;
    }
}

static struct grGraphDeviceUpdatableNode_st *find_entry(struct grGraphExec_st *e, const gr_pnode *pn)
{
    struct gr_devupd *t = e->devupd;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->ent[i].pindex == pn->index && &e->plan.nodes[pn->index] == pn)
            return &t->ent[i];
    return NULL;
}

void gr__devupd_host_wrote(struct grGraphExec_st *e, gr_pnode *pn, unsigned what)
{
    struct grGraphDeviceUpdatableNode_st *d = find_entry(e, pn);
    if (d == NULL)
        return;
    struct gr_devupd *t = e->devupd;
    gr__spin_lock(&t->lock);
    if (what & GR_DEVUPD_HOST_PARAMS) {
        uint32_t nb = pn->u.kern.k->nparams ? pn->u.kern.k->argbytes : 0;
        if (nb != d->nbytes) {
            unsigned char *a = nb ? gr__malloc(2 * (size_t)nb) : NULL;
            /* Out of memory: the node keeps no device view (SetParam is
             * refused) rather than a wrong one. */
            gr__free(d->args);
            d->args = a;
            d->host_args = a ? a + nb : NULL;
            d->nbytes = a ? nb : 0;
        }
        if (d->nbytes)
            memcpy(d->host_args, pn->u.kern.argv[0], d->nbytes);
        d->host_grid = pn->u.kern.grid;
    } else {
        if (d->nbytes)
            memcpy(pn->u.kern.argv[0], d->host_args, d->nbytes);
        set_grid(pn, d->host_grid);
    }
    if (what & GR_DEVUPD_HOST_ENABLED)
        d->host_enabled = pn->enabled;
    else
        pn->enabled = d->host_enabled;
    if (d->nbytes)
        memcpy(d->args, d->host_args, d->nbytes);
    d->grid = d->host_grid;
    d->enabled = d->host_enabled;
    d->dirty = false;
    gr__spin_unlock(&t->lock);
}

bool gr__devupd_host_enabled(struct grGraphExec_st *e, const gr_pnode *pn, unsigned *out)
{
    if (e->devupd == NULL)
        return false;
    struct grGraphDeviceUpdatableNode_st *d = find_entry(e, pn);
    if (d == NULL)
        return false;
    gr__spin_lock(&d->tab->lock);
    *out = d->host_enabled;
    gr__spin_unlock(&d->tab->lock);
    return true;
}

/* ------------------------------------------------- the kernels' calls */

static grError_t node_check(const char *call, grGraphDeviceNode_t d)
{
    if (d == NULL || d->magic != GR_MAGIC_DEVNODE)
        return gr__fail(grErrorInvalidValue,
                        "%s: node %p is not a device-updatable kernel node of a live executable (read "
                        "devNode with grGraphKernelNodeGetAttribute after instantiation)",
                        call, GR_PTR(d));
    return grSuccess;
}

static grError_t update_check(const char *call, const grGraphKernelNodeUpdate *u)
{
    grError_t err = node_check(call, u->node);
    if (err)
        return err;
    switch (u->field) {
    case grGraphKernelNodeFieldParam: {
        size_t off = u->updateData.param.offset, size = u->updateData.param.size;
        if (size > 0 && u->updateData.param.pValue == NULL)
            return gr__fail(grErrorInvalidValue, "%s: value is NULL with size %zu", call, size);
        if (off > u->node->nbytes || size > u->node->nbytes - off)
            return gr__fail(grErrorInvalidValue,
                            "%s: bytes [%zu, %zu) are outside the node's %u-byte argument block", call, off,
                            off + size, u->node->nbytes);
        return grSuccess;
    }
    case grGraphKernelNodeFieldGridDim: {
        grDim3 g = u->updateData.gridDim;
        if (g.x == 0 || g.y == 0 || g.z == 0 || g.y > 65535u || g.z > 65535u)
            return gr__fail(grErrorInvalidValue,
                            "%s: grid (%u, %u, %u) is not a grid: each dimension at least 1, y and z at "
                            "most 65535",
                            call, g.x, g.y, g.z);
        return grSuccess;
    }
    case grGraphKernelNodeFieldEnabled:
        return grSuccess;
    case grGraphKernelNodeFieldInvalid:
        break;
    }
    return gr__fail(grErrorInvalidValue, "%s: field %d is not a grGraphKernelNodeField an update can carry",
                    call, (int)u->field);
}

/* Stages u; the caller holds the table's lock. */
static void stage(const grGraphKernelNodeUpdate *u)
{
    struct grGraphDeviceUpdatableNode_st *d = u->node;
    switch (u->field) {
    case grGraphKernelNodeFieldParam:
        if (u->updateData.param.size)
            memcpy(d->args + u->updateData.param.offset, u->updateData.param.pValue,
                   u->updateData.param.size);
        break;
    case grGraphKernelNodeFieldGridDim:
        d->grid = u->updateData.gridDim;
        break;
    case grGraphKernelNodeFieldEnabled:
        d->enabled = u->updateData.isEnabled != 0;
        break;
    case grGraphKernelNodeFieldInvalid:
        return;
    }
    d->dirty = true;
    d->tab->dirty = true;
}

static grError_t apply_updates(const char *call, const grGraphKernelNodeUpdate *u, size_t count)
{
    grError_t err;
    if (count > 0 && u == NULL)
        return gr__fail(grErrorInvalidValue, "%s: updates is NULL with updateCount %zu", call, count);
    for (size_t i = 0; i < count; i++)
        if ((err = update_check(call, &u[i])))
            return err;
    /* Updates of several executables' nodes take each table's lock in
     * turn: one at a time, never two. */
    for (size_t i = 0; i < count; i++) {
        gr__spin_lock(&u[i].node->tab->lock);
        stage(&u[i]);
        gr__spin_unlock(&u[i].node->tab->lock);
    }
    return grSuccess;
}

GR_API grError_t grGraphKernelNodeSetParam(grGraphDeviceNode_t node, size_t offset, const void *value,
                                           size_t size)
{
    grGraphKernelNodeUpdate u;
    memset(&u, 0, sizeof u);
    u.node = node;
    u.field = grGraphKernelNodeFieldParam;
    u.updateData.param.pValue = value;
    u.updateData.param.offset = offset;
    u.updateData.param.size = size;
    return apply_updates("grGraphKernelNodeSetParam", &u, 1);
}

GR_API grError_t grGraphKernelNodeSetEnabled(grGraphDeviceNode_t node, int enable)
{
    grGraphKernelNodeUpdate u;
    memset(&u, 0, sizeof u);
    u.node = node;
    u.field = grGraphKernelNodeFieldEnabled;
    u.updateData.isEnabled = enable != 0;
    return apply_updates("grGraphKernelNodeSetEnabled", &u, 1);
}

GR_API grError_t grGraphKernelNodeSetGridDim(grGraphDeviceNode_t node, grDim3 gridDim)
{
    grGraphKernelNodeUpdate u;
    memset(&u, 0, sizeof u);
    u.node = node;
    u.field = grGraphKernelNodeFieldGridDim;
    u.updateData.gridDim = gridDim;
    return apply_updates("grGraphKernelNodeSetGridDim", &u, 1);
}

GR_API grError_t grGraphKernelNodeUpdatesApply(const grGraphKernelNodeUpdate *updates, size_t updateCount)
{
    return apply_updates("grGraphKernelNodeUpdatesApply", updates, updateCount);
}
