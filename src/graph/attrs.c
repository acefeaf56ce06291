/*
 * attrs.c - launch attributes (grLaunchAttributeID / grLaunchAttributeValue):
 * the checks shared by streams, kernel nodes and grLaunchKernelExC, and a
 * kernel node's stored attributes with grGraphKernelNodeGetAttribute,
 * SetAttribute and CopyAttributes.
 *
 * Which ID is valid where follows CUDA 13's driver_types.h (streams: access
 * policy window, synchronisation policy, priority, memory-sync domain and
 * map, NVLink scheduling; kernel nodes: those without the synchronisation
 * policy, plus cooperative, the cluster ones, device-updatable and the
 * shared-memory carveout; launches: all but the synchronisation policy).
 * A node's attributes are a block of their own, allocated by the first
 * Set, so that nodes without attributes cost one NULL pointer.
 */
#include "graph.h"
#include "../backend/plan.h"

unsigned gr__launch_attr_scope(grLaunchAttributeID id)
{
    const unsigned all = GR_ATTR_STREAM | GR_ATTR_NODE | GR_ATTR_LAUNCH;
    switch (id) {
    case grLaunchAttributeIgnore:
    case grLaunchAttributeAccessPolicyWindow:
    case grLaunchAttributePriority:
    case grLaunchAttributeMemSyncDomainMap:
    case grLaunchAttributeMemSyncDomain:
        return all;
    case grLaunchAttributeSynchronizationPolicy:
        return GR_ATTR_STREAM;
    case grLaunchAttributeNvlinkUtilCentricScheduling:
        return GR_ATTR_STREAM | GR_ATTR_LAUNCH;
    case grLaunchAttributeCooperative:
    case grLaunchAttributeClusterDimension:
    case grLaunchAttributeClusterSchedulingPolicyPreference:
    case grLaunchAttributeDeviceUpdatableKernelNode:
    case grLaunchAttributePreferredSharedMemoryCarveout:
        return GR_ATTR_NODE | GR_ATTR_LAUNCH;
    /* A CUDA 13.0 kernel node refuses these (docs/cuda13-probes.md). */
    case grLaunchAttributePreferredClusterDimension:
    case grLaunchAttributeProgrammaticStreamSerialization:
    case grLaunchAttributeProgrammaticEvent:
    case grLaunchAttributeLaunchCompletionEvent:
        return GR_ATTR_LAUNCH;
    }
    return 0;
}

static const char *scope_name(unsigned scope)
{
    return scope == GR_ATTR_STREAM ? "streams" : scope == GR_ATTR_NODE ? "kernel nodes" : "launches";
}

static bool access_prop_valid(grAccessProperty p)
{
    return p == grAccessPropertyNormal || p == grAccessPropertyStreaming || p == grAccessPropertyPersisting;
}

grError_t gr__launch_attr_check(const char *call, const char *what, grLaunchAttributeID id,
                                const grLaunchAttributeValue *v, unsigned scope)
{
    unsigned where = gr__launch_attr_scope(id);
    if (where == 0)
        return gr__fail(grErrorInvalidValue, "%s: %s is %d, not a grLaunchAttributeID", call, what, (int)id);
    if (!(where & scope))
        return gr__fail(grErrorInvalidValue, "%s: %s is attribute %d, which is not valid for %s (as in CUDA)",
                        call, what, (int)id, scope_name(scope));
    switch (id) {
    case grLaunchAttributeAccessPolicyWindow: {
        const grAccessPolicyWindow *w = &v->accessPolicyWindow;
        if (!(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) || !access_prop_valid(w->hitProp) ||
            (w->missProp != grAccessPropertyNormal && w->missProp != grAccessPropertyStreaming))
            return gr__fail(grErrorInvalidValue,
                            "%s: %s: an access policy window needs hitRatio in [0, 1], hitProp a "
                            "grAccessProperty and missProp Normal or Streaming",
                            call, what);
        return grSuccess;
    }
    case grLaunchAttributeSynchronizationPolicy:
        if (v->syncPolicy < grSyncPolicyAuto || v->syncPolicy > grSyncPolicyBlockingSync)
            return gr__fail(grErrorInvalidValue, "%s: %s: syncPolicy %d is not a grSynchronizationPolicy",
                            call, what, (int)v->syncPolicy);
        return grSuccess;
    case grLaunchAttributeClusterSchedulingPolicyPreference:
        if (v->clusterSchedulingPolicyPreference < grClusterSchedulingPolicyDefault ||
            v->clusterSchedulingPolicyPreference > grClusterSchedulingPolicyLoadBalancing)
            return gr__fail(grErrorInvalidValue, "%s: %s: %d is not a grClusterSchedulingPolicy", call, what,
                            (int)v->clusterSchedulingPolicyPreference);
        return grSuccess;
    case grLaunchAttributeMemSyncDomain:
        if (v->memSyncDomain != grLaunchMemSyncDomainDefault &&
            v->memSyncDomain != grLaunchMemSyncDomainRemote)
            return gr__fail(grErrorInvalidValue, "%s: %s: memSyncDomain %d is not a grLaunchMemSyncDomain",
                            call, what, (int)v->memSyncDomain);
        return grSuccess;
    case grLaunchAttributeNvlinkUtilCentricScheduling:
        if (v->nvlinkUtilCentricScheduling > 1)
            return gr__fail(grErrorInvalidValue, "%s: %s: nvlinkUtilCentricScheduling is %u; use 0 or 1",
                            call, what, v->nvlinkUtilCentricScheduling);
        return grSuccess;
    case grLaunchAttributeProgrammaticStreamSerialization:
        if (v->programmaticStreamSerializationAllowed != 0 && v->programmaticStreamSerializationAllowed != 1)
            return gr__fail(grErrorInvalidValue,
                            "%s: %s: programmaticStreamSerializationAllowed is %d; use 0 or 1", call, what,
                            v->programmaticStreamSerializationAllowed);
        return grSuccess;
    case grLaunchAttributeProgrammaticEvent:
    case grLaunchAttributeLaunchCompletionEvent: {
        grEvent_t e = id == grLaunchAttributeProgrammaticEvent ? v->programmaticEvent.event
                                                               : v->launchCompletionEvent.event;
        if (!gr__event_valid(e))
            return gr__fail(grErrorInvalidResourceHandle, "%s: %s names event %p, which is not a live event",
                            call, what, GR_PTR(e));
        return grSuccess;
    }
    case grLaunchAttributeDeviceUpdatableKernelNode:
        if (v->deviceUpdatableKernelNode.deviceUpdatable != 0 && scope != GR_ATTR_NODE)
            return gr__fail(grErrorNotSupported,
                            "%s: %s asks for a device-updatable kernel node at a launch; graphrt takes it on "
                            "graph kernel nodes only (grGraphKernelNodeSetAttribute), where devNode is read "
                            "back after instantiation",
                            call, what);
        return grSuccess;
    case grLaunchAttributeIgnore:
    case grLaunchAttributeCooperative:
    case grLaunchAttributeClusterDimension:
    case grLaunchAttributePriority:
    case grLaunchAttributeMemSyncDomainMap:
    case grLaunchAttributePreferredClusterDimension:
    case grLaunchAttributePreferredSharedMemoryCarveout:
        return grSuccess;
    }
    return grSuccess;
}

bool gr__node_attr_set(struct grGraphNode_st *n, grLaunchAttributeID id, const grLaunchAttributeValue *v)
{
    if (id == grLaunchAttributeIgnore)
        return true;
    if (!n->kattrs && !(n->kattrs = gr__calloc(1, sizeof *n->kattrs)))
        return false;
    n->kattrs->v[id] = *v;
    /* devNode is an output: the stored value's bytes stay what the
     * application chose to set (re-capture compares them). */
    if (id == grLaunchAttributeDeviceUpdatableKernelNode)
        n->kattrs->v[id].deviceUpdatableKernelNode.devNode = NULL;
    /* CUDA clamps a node's priority into the device's range when it is
     * set (docs/cuda13-probes.md). */
    if (id == grLaunchAttributePriority)
        n->kattrs->v[id].priority = gr__cpu_stream_priority_clamp(v->priority);
    n->kattrs->set |= 1u << id;
    return true;
}

grLaunchAttributeValue gr__launch_attr_default(grLaunchAttributeID id)
{
    grLaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    /* CUDA 13 reads a new kernel node's map as default 0, remote 1. */
    if (id == grLaunchAttributeMemSyncDomainMap)
        v.memSyncDomainMap.remote = 1;
    return v;
}

bool gr__node_attrs_copy(struct grGraphNode_st *dst, const struct grGraphNode_st *src)
{
    if (!src->kattrs) {
        gr__node_attrs_free(dst);
        return true;
    }
    if (!dst->kattrs && !(dst->kattrs = gr__malloc(sizeof *dst->kattrs)))
        return false;
    *dst->kattrs = *src->kattrs;
    /* The source's place in its executable is its own. */
    dst->kattrs->du_exec = NULL;
    dst->kattrs->du_handle = NULL;
    dst->kattrs->du_uid = 0;
    dst->kattrs->du_index = 0;
    return true;
}

void gr__node_attrs_free(struct grGraphNode_st *n)
{
    gr__free(n->kattrs);
    n->kattrs = NULL;
}

grGraphDeviceNode_t gr__node_devupd_handle(const struct grGraphNode_st *n)
{
    const gr_kattrs *a = n->kattrs;
    const struct grGraphExec_st *e = a ? a->du_exec : NULL;
    /* Executables' memory is never given back (core.h's shelf): a
     * destroyed one reads as not live, a reused one by its uid. */
    if (e == NULL || !gr__exec_valid((grGraphExec_t)e) || e->uid != a->du_uid)
        return NULL;
    return (grGraphDeviceNode_t)a->du_handle;
}

bool gr__node_devupd(const struct grGraphNode_st *n)
{
    return n->type == grGraphNodeTypeKernel && n->kattrs &&
           (n->kattrs->set & (1u << grLaunchAttributeDeviceUpdatableKernelNode)) &&
           n->kattrs->v[grLaunchAttributeDeviceUpdatableKernelNode].deviceUpdatableKernelNode.deviceUpdatable;
}

/* The walk costs a cache miss or two per node (a few microseconds for a
 * thousand), as much as the rest of an update from a re-capture that
 * changed nothing; so a graph without child graphs keeps its answer for
 * as long as its edit stamp does (nodevupd_at). */
bool gr__graph_has_devupd(grGraph_t g)
{
    if (g->nodevupd_at == g->edits + 1)
        return false;
    bool nested = false;
    for (const struct grGraphNode_st *n = g->first; n; n = n->next) {
        if (gr__node_devupd(n))
            return true;
        if (n->type == grGraphNodeTypeGraph) {
            nested = true;
            if (gr__graph_has_devupd(n->p.child))
                return true;
        }
    }
    if (!nested)
        g->nodevupd_at = g->edits + 1;
    return false;
}

void gr__graph_devupd_carry(grGraph_t g, uint64_t from, struct grGraphNode_st *const *nodes, size_t n)
{
    if (g->nodevupd_at != from + 1)
        return;
    for (size_t i = 0; i < n; i++)
        if (gr__node_devupd(nodes[i])) {
            g->nodevupd_at = 0;
            return;
        }
    g->nodevupd_at = g->edits + 1;
}

bool gr__node_devupd_live(const struct grGraphNode_st *n)
{
    return gr__node_devupd_handle(n) != NULL;
}

static grError_t kernel_node_check(const char *call, const char *arg, grGraphNode_t n)
{
    grError_t err = gr__node_check_at(call, n, arg, SIZE_MAX);
    if (err != grSuccess)
        return err;
    if (n->type != grGraphNodeTypeKernel)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s (%s) is not a kernel node; only kernel nodes have launch "
                        "attributes",
                        call, arg, gr__node_label(n));
    return grSuccess;
}

GR_API grError_t grGraphKernelNodeGetAttribute(grGraphNode_t hNode, grKernelNodeAttrID attr,
                                               grKernelNodeAttrValue *value_out)
{
    static const char call[] = "grGraphKernelNodeGetAttribute";
    grError_t err = kernel_node_check(call, "hNode", hNode);
    if (err != grSuccess)
        return err;
    if (value_out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: value_out is NULL; pass where to store the value", call);
    if (!(gr__launch_attr_scope(attr) & GR_ATTR_NODE) || attr == grLaunchAttributeIgnore)
        return gr__fail(grErrorInvalidValue, "%s: attr %d is not an attribute of kernel nodes", call,
                        (int)attr);
    *value_out = hNode->kattrs && (hNode->kattrs->set & (1u << attr)) ? hNode->kattrs->v[attr]
                                                                      : gr__launch_attr_default(attr);
    if (attr == grLaunchAttributeDeviceUpdatableKernelNode && hNode->kattrs)
        value_out->deviceUpdatableKernelNode.devNode = gr__node_devupd_handle(hNode);
    return grSuccess;
}

GR_API grError_t grGraphKernelNodeSetAttribute(grGraphNode_t hNode, grKernelNodeAttrID attr,
                                               const grKernelNodeAttrValue *value)
{
    static const char call[] = "grGraphKernelNodeSetAttribute";
    grError_t err = kernel_node_check(call, "hNode", hNode);
    if (err != grSuccess)
        return err;
    if (value == NULL)
        return gr__fail(grErrorInvalidValue, "%s: value is NULL; pass the attribute's value", call);
    if ((err = gr__launch_attr_check(call, "attr", attr, value, GR_ATTR_NODE)) != grSuccess)
        return err;
    if (!gr__node_attr_set(hNode, attr, value))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory storing the attributes of %s", call,
                        gr__node_label(hNode));
    gr__graph_edited(hNode->graph);
    return grSuccess;
}

GR_API grError_t grGraphKernelNodeCopyAttributes(grGraphNode_t hDst, grGraphNode_t hSrc)
{
    static const char call[] = "grGraphKernelNodeCopyAttributes";
    grError_t err;
    if ((err = kernel_node_check(call, "hDst", hDst)) != grSuccess ||
        (err = kernel_node_check(call, "hSrc", hSrc)) != grSuccess)
        return err;
    if (hDst != hSrc && !gr__node_attrs_copy(hDst, hSrc))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory copying the attributes of %s", call,
                        gr__node_label(hSrc));
    gr__graph_edited(hDst->graph);
    return grSuccess;
}

/* The graph layer's side of the kernel attributes seam (backend/plan.h,
 * gr__kattrs_hook): node n's attributes, those set, one entry per ID; a
 * child graph's nodes at any depth. */
static void kattrs_each(const void *node, gr_kattrs_visit visit, void *ctx)
{
    const struct grGraphNode_st *n = node;
    if (n->type == grGraphNodeTypeGraph) {
        const struct grGraphNode_st *c;
        GR_GRAPH_FOR_EACH_NODE (n->p.child, c)
            kattrs_each(c, visit, ctx);
        return;
    }
    if (n->type != grGraphNodeTypeKernel || n->kattrs == NULL || n->kattrs->set == 0)
        return;
    grLaunchAttribute a[GR_ATTR_IDS];
    unsigned k = 0;
    for (unsigned id = 0; id < GR_ATTR_IDS; id++) {
        if (!(n->kattrs->set & (1u << id)))
            continue;
        memset(&a[k], 0, sizeof a[k]);
        a[k].id = (grLaunchAttributeID)id;
        a[k++].val = n->kattrs->v[id];
    }
    visit(ctx, n, n->scratch, a, k);
}

/* Filled before main whenever this module is linked in: a program
 * without it gives no node attributes, and a NULL hook says so. */
__attribute__((constructor)) static void register_kattrs_hook(void)
{
    gr__kattrs_hook = kattrs_each;
}
