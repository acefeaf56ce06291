/*
 * record.c - what happens to work issued to a capturing stream: operations
 * become nodes after the stream's current dependency set, event records
 * remember that set, event waits fork a stream into a capture or join
 * dependency sets, and waits that would cross a capture's boundary are
 * refused with CUDA's errors (Isolation, Merge).
 *
 * Invariants:
 *   - recording one operation costs one capture lock, the node's
 *     allocations (none while the graph's node slab has room and the
 *     arguments and edges fit inline in the node) and no validation the
 *     enqueue path already did;
 *   - a member's dependency set only names nodes of the capture's graph;
 *   - e->capture is read and written under e->lock (event.h).
 */
#include "capture.h"

#include "../backend/device.h"
#include "../memory/graphmem.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------- dependency sets */

void gr__depset_free(gr_depset *d)
{
    gr__free(d->heap);
    d->heap = NULL;
    d->n = d->cap = 0;
}

/* Makes room for 'want' nodes, keeping the current ones. */
static bool depset_reserve(gr_depset *d, size_t want)
{
    if (want <= GR_DEPSET_INLINE && !d->heap)
        return true;
    if (d->heap && want <= d->cap)
        return true;
    size_t cap = d->heap ? d->cap : GR_DEPSET_INLINE;
    while (cap < want)
        cap *= 2;
    if (cap > UINT32_MAX)
        return false;
    grGraphNode_t *h = gr__realloc(d->heap, cap * sizeof *h);
    if (!h)
        return false;
    if (!d->heap)
        memcpy(h, d->inl, d->n * sizeof *h);
    d->heap = h;
    d->cap = (uint32_t)cap;
    return true;
}

bool gr__depset_assign(gr_depset *d, const grGraphNode_t *nodes, size_t n)
{
    if (!depset_reserve(d, n))
        return false;
    grGraphNode_t *v = gr__depset_nodes(d);
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t j;
        for (j = 0; j < k && v[j] != nodes[i]; j++)
            ;
        if (j == k)
            v[k++] = nodes[i];
    }
    d->n = k;
    return true;
}

bool gr__depset_union(gr_depset *d, const grGraphNode_t *nodes, size_t n)
{
    if (!depset_reserve(d, (size_t)d->n + n))
        return false;
    grGraphNode_t *v = gr__depset_nodes(d);
    for (size_t i = 0; i < n; i++) {
        uint32_t j;
        for (j = 0; j < d->n && v[j] != nodes[i]; j++)
            ;
        if (j == d->n)
            v[d->n++] = nodes[i];
    }
    return true;
}

bool gr__capture_member_deps(gr_cap_member *m, const grGraphNode_t *nodes, const grGraphEdgeData *data,
                             size_t n, bool replace)
{
    uint32_t old_n = replace ? 0 : m->deps.n;
    bool any = m->edata != NULL && !replace;
    for (size_t i = 0; data && i < n && !any; i++)
        any = !gr__edge_data_is_default(&data[i]);
    grGraphEdgeData *ed = NULL;
    if (any && !(ed = gr__calloc((size_t)old_n + n + 1, sizeof *ed)))
        return false;
    if (!(replace ? gr__depset_assign(&m->deps, nodes, n) : gr__depset_union(&m->deps, nodes, n))) {
        gr__free(ed);
        return false;
    }
    if (ed) {
        /* Kept entries keep their data; a new one takes the data of its
         * first occurrence in nodes. */
        const grGraphNode_t *v = gr__depset_nodes(&m->deps);
        if (m->edata && !replace)
            memcpy(ed, m->edata, old_n * sizeof *ed);
        for (uint32_t k = old_n; k < m->deps.n && data; k++)
            for (size_t i = 0; i < n; i++)
                if (nodes[i] == v[k]) {
                    ed[k] = data[i];
                    break;
                }
    }
    gr__free(m->edata);
    m->edata = ed;
    return true;
}

/* -------------------------------------------------------------- operations */

static const char *op_name(grGraphNodeType t)
{
    return gr__node_type_name(t);
}

/* Builds the stored parameters of the operation; the enqueue path has
 * checked them. Returns false when out of memory. */
bool gr__capture_make_params(const grGraphNodeParams *desc, gr_node_params *p)
{
    /* A kernel's parameters are set field by field by the pack; the
     * others start from zero. */
    if (desc->type == grGraphNodeTypeKernel)
        return gr__node_kernel_params_pack(&desc->kernel, &p->kernel);
    memset(p, 0, sizeof *p);
    switch (desc->type) {
    case grGraphNodeTypeKernel:
        break;
    case grGraphNodeTypeMemcpy:
        return gr__memcpy_node_pack(&desc->memcpy.copyParams, &p->memcpy);
    case grGraphNodeTypeMemset:
        p->memset = desc->memset;
        return true;
    case grGraphNodeTypeHost:
        p->host = desc->host;
        return true;
    case grGraphNodeTypeMemAlloc:
        /* The pool reserved the range; the node takes its reference. */
        p->alloc = desc->alloc;
        p->alloc.accessDescs = NULL;
        return true;
    case grGraphNodeTypeMemFree:
        p->free.dptr = desc->free.dptr;
        return true;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        /* An external record or wait: the node holds the event. */
        p->event = desc->type == grGraphNodeTypeWaitEvent ? desc->eventWait.event : desc->eventRecord.event;
        gr__event_retain(p->event);
        return true;
    case grGraphNodeTypeBatchMemOp:
        /* Checked by the caller: only running out of memory fails here. */
        return gr__memop_params_make("stream capture", desc->memOp.count, desc->memOp.paramArray, 0,
                                     &p->memop) == grSuccess;
    case grGraphNodeTypeCollective:
        /* Checked by the caller (api/coll.c): the node takes a reference. */
        gr__coll_params_copy(&p->coll, &desc->collective);
        return true;
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeConditional:
    case grGraphNodeTypeCount:
        break;
    }
    return true;
}

/* The operations a capture refuses: the sentence saying why, or NULL. */
static const char *refusal(grGraphNodeType t)
{
    switch (t) {
    case grGraphNodeTypeKernel:
    case grGraphNodeTypeMemcpy:
    case grGraphNodeTypeMemset:
    case grGraphNodeTypeHost:
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeWaitEvent:   /* grStreamWaitEvent, grEventWaitExternal */
    case grGraphNodeTypeEventRecord: /* grEventRecordWithFlags, grEventRecordExternal */
    case grGraphNodeTypeBatchMemOp:  /* grStreamWaitValue32 and the like */
    case grGraphNodeTypeCollective:  /* grAllReduceAsync and the like */
        return NULL;
    case grGraphNodeTypeGraph:
        return "launching an executable graph into a capturing stream is not supported (CUDA refuses it "
               "too); add the graph as a child-graph node with grGraphAddChildGraphNode instead";
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeConditional:
    case grGraphNodeTypeCount:
        break;
    }
    return "this operation cannot be captured";
}

grError_t gr__capture_check_active(const char *call, gr_stream *s)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    if (c && gr_load_acquire(&c->status) != grStreamCaptureStatusActive)
        return gr__capture_fail_invalidated(call, c, s);
    return grSuccess;
}

grError_t gr__capture_refuse(const char *call, gr_stream *s, const char *why)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    char msg[512];
    /* The caller saw s capturing; only the capture's own thread (or,
     * relaxed, the program's order) ends it. */
    if (GR_NEVER(c == NULL))
        return gr__fail(grErrorStreamCaptureUnsupported, "%s: %s was capturing: %s", call, GR_STREAM_NAME(s),
                        why);
    if (gr_load_acquire(&c->status) != grStreamCaptureStatusActive)
        return gr__capture_fail_invalidated(call, c, s);
    snprintf(msg, sizeof msg, "%s: %s is capturing: %s", call, GR_STREAM_NAME(s), why);
    return gr__capture_invalidate(c, grErrorStreamCaptureUnsupported, msg);
}

/* The attributes of a kernel node captured from s: the stream's priority
 * (as CUDA records it), then the kernel-node attributes among
 * attrs[0..nattrs) (checked by the caller). NULL without any, or when
 * out of memory (*oom set). */
gr_kattrs *gr__capture_attrs(gr_stream *s, const grLaunchAttribute *attrs, unsigned nattrs, bool *oom)
{
    gr_kattrs *ka = NULL;
    /* Read without 'alock', as a re-capture does: a priority set by
     * another thread while this one captures from the stream races with
     * the capture either way, and the lock's two atomic operations were a
     * third of this function's cost on every captured launch. */
    int prio = gr_load_relaxed(&s->priority);
    bool any = prio != 0;
    for (unsigned i = 0; i < nattrs && !any; i++)
        any = (gr__launch_attr_scope(attrs[i].id) & GR_ATTR_NODE) && attrs[i].id != grLaunchAttributeIgnore;
    if (!any)
        return NULL;
    if (!(ka = gr__calloc(1, sizeof *ka))) {
        *oom = true;
        return NULL;
    }
    if (prio != 0) {
        ka->v[grLaunchAttributePriority].priority = prio;
        ka->set |= 1u << grLaunchAttributePriority;
    }
    for (unsigned i = 0; i < nattrs; i++) {
        grLaunchAttributeID id = attrs[i].id;
        if (id != grLaunchAttributeIgnore && (gr__launch_attr_scope(id) & GR_ATTR_NODE)) {
            ka->v[id] = attrs[i].val;
            if (id == grLaunchAttributePriority)
                ka->v[id].priority = gr__cpu_stream_priority_clamp(attrs[i].val.priority);
            ka->set |= 1u << id;
        }
    }
    return ka;
}

/* The cold paths of gr__capture_record_ex, out of line so that the
 * capture of an ordinary operation runs none of their code. */

/* An operation the capture refuses ('why'): it invalidates c. */
static GR_NOINLINE grError_t refuse_op(const char *call, gr_capture *c, gr_stream *s, const char *why)
{
    char msg[512];
    if (gr_load_acquire(&c->status) != grStreamCaptureStatusActive)
        return gr__capture_fail_invalidated(call, c, s);
    snprintf(msg, sizeof msg, "%s: %s is capturing: %s", call, GR_STREAM_NAME(s), why);
    return gr__capture_invalidate(c, grErrorStreamCaptureUnsupported, msg);
}

/* Out of memory making the node's parameters or attributes ka. */
static GR_NOINLINE grError_t record_oom(const char *call, gr_stream *s, grGraphNodeType t, gr_kattrs *ka)
{
    gr__free(ka);
    return gr__fail(grErrorMemoryAllocation, "%s: out of memory capturing a %s node on %s", call, op_name(t),
                    GR_STREAM_NAME(s));
}

/* Gives up a node not added: unlocks c, frees its parameters p (of kind
 * t) and attributes ka. */
static GR_NOINLINE void drop_locked(gr_capture *c, grGraphNodeType t, gr_node_params *p, gr_kattrs *ka)
{
    gr__spin_unlock(&c->lock);
    gr__node_params_free(t, p);
    gr__free(ka);
}

/* Non-default data of m's dependencies (from
 * grStreamUpdateCaptureDependencies or grStreamBeginCaptureToGraph) goes
 * on the new edges: checked against the new node of kind t, room noted
 * first so that nothing fails once the node is in. Under c's lock. */
static GR_NOINLINE grError_t check_edge_data(const char *call, grGraph_t g, gr_cap_member *m,
                                             grGraphNodeType t)
{
    grError_t err = grSuccess;
    size_t nnotes = 0;
    for (uint32_t k = 0; !err && k < m->deps.n; k++) {
        err = gr__edge_data_check(call, gr__depset_nodes(&m->deps)[k], t, &m->edata[k], "dependency data", k);
        nnotes += !gr__edge_data_is_default(&m->edata[k]);
    }
    if (nnotes && !err && !gr__edge_notes_reserve(g, nnotes))
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory noting edge data", call);
    return err;
}

/* Puts m's dependency data on node's new edges (room reserved by
 * check_edge_data); the data is used up. */
static GR_NOINLINE void note_edge_data(grGraph_t g, gr_cap_member *m, grGraphNode_t node)
{
    for (uint32_t k = 0; k < m->deps.n; k++)
        gr__edge_note_add(g, gr__depset_nodes(&m->deps)[k], node, &m->edata[k]);
    gr__free(m->edata);
    m->edata = NULL;
}

grError_t gr__capture_record(const char *call, gr_stream *s, const grGraphNodeParams *desc)
{
    return gr__capture_record_ex(call, s, desc, NULL, 0);
}

grError_t gr__capture_record_ex(const char *call, gr_stream *s, const grGraphNodeParams *desc,
                                const grLaunchAttribute *attrs, unsigned nattrs)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    gr_node_params p;
    grGraphNode_t node;
    grGraphNodeType t = desc->type;
    const char *why = refusal(t);
    if (GR_UNLIKELY(why != NULL))
        return refuse_op(call, c, s, why);
    /* A re-capture matches the operation with a node instead of adding
     * one (recapture.c). */
    if (GR_UNLIKELY(c->recap != NULL))
        return gr__recapture_record(call, c, s, desc, attrs, nattrs);
    bool oom = false;
    /* Most launches have neither attributes nor a stream priority. */
    gr_kattrs *ka = t == grGraphNodeTypeKernel && (nattrs != 0 || gr_load_relaxed(&s->priority) != 0)
                        ? gr__capture_attrs(s, attrs, nattrs, &oom)
                        : NULL;
    if (GR_UNLIKELY(oom || !gr__capture_make_params(desc, &p)))
        return record_oom(call, s, t, ka);
    gr__capture_lock(c);
    if (GR_UNLIKELY(gr_load_relaxed(&c->status) != grStreamCaptureStatusActive)) {
        drop_locked(c, t, &p, ka);
        return gr__capture_fail_invalidated(call, c, s);
    }
    gr_cap_member *m = gr__capture_member(c, s);
    grError_t err = grSuccess;
    bool own = false;
    /* A captured free follows CUDA's rules for free nodes; a refused one
     * leaves the capture as it was. */
    if (GR_UNLIKELY(t == grGraphNodeTypeMemFree))
        err =
            gr__graphmem_check_free(call, c->graph, gr__depset_nodes(&m->deps), m->deps.n, p.free.dptr, &own);
    if (GR_UNLIKELY(t == grGraphNodeTypeMemFree) && !err)
        p.free.foreign = !own;
    if (GR_UNLIKELY(m->edata != NULL) && !err)
        err = check_edge_data(call, c->graph, m, t);
    if (GR_LIKELY(!err))
        err = gr__graph_insert_node(call, c->graph, gr__depset_nodes(&m->deps), m->deps.n, t, &p, &node);
    if (GR_UNLIKELY(err)) {
        drop_locked(c, t, &p, ka);
        return err;
    }
    node->kattrs = ka;
    /* CUDA's captured kernel runs on its stream's device, whichever is
     * current. */
    if (t == grGraphNodeTypeKernel)
        gr__node_set_device(node, s->device);
    if (GR_UNLIKELY(m->edata != NULL))
        note_edge_data(c->graph, m, node);
    if (GR_UNLIKELY(own))
        gr__graphmem_note_free(p.free.dptr, true);
    c->calls++;
    node->lane = m->lane;
    if (GR_UNLIKELY(m->wait_pending)) {
        gr__prov_wait_target(c->graph, m->lane, node);
        m->wait_pending = false;
    }
    /* The new node follows everything the stream depended on. */
    m->deps.inl[0] = node;
    if (GR_UNLIKELY(m->deps.heap != NULL)) {
        gr__free(m->deps.heap);
        m->deps.heap = NULL;
        m->deps.cap = 0;
    }
    m->deps.n = 1;
    gr__spin_unlock(&c->lock);
    return grSuccess;
}

/* ------------------------------------------------------------------ events */

grError_t gr__capture_event_record(const char *call, grEvent_t e, gr_stream *s)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    gr_cap_event *ce = gr__calloc(1, sizeof *ce);
    if (!ce)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory recording event %p in a capture", call,
                        GR_PTR(e));
    gr__capture_lock(c);
    if (gr_load_relaxed(&c->status) != grStreamCaptureStatusActive) {
        gr__spin_unlock(&c->lock);
        gr__free(ce);
        return gr__capture_fail_invalidated(call, c, s);
    }
    gr_cap_member *m = gr__capture_member(c, s);
    if (!gr__depset_assign(&ce->deps, gr__depset_nodes(&m->deps), m->deps.n)) {
        gr__spin_unlock(&c->lock);
        gr__free(ce);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory recording event %p in a capture", call,
                        GR_PTR(e));
    }
    ce->cap = c;
    ce->ev = e;
    ce->rec_stream = s;
    ce->rec_call = ++c->calls;
    gr__event_retain(e);
    ce->next = c->events;
    c->events = ce;
    gr__spin_lock(&e->lock);
    ce->gen = e->gen;
    e->capture = ce;
    gr__spin_unlock(&e->lock);
    gr__spin_unlock(&c->lock);
    return grSuccess;
}

typedef enum mark_kind {
    MARK_PLAIN, /* an ordinary event (never recorded in a capture, or re-recorded since) */
    MARK_LIVE,  /* last recorded in a capture that is in progress */
    MARK_ENDED  /* last recorded in a capture that has ended */
} mark_kind;

static mark_kind read_mark(grEvent_t e, gr_cap_event **out, bool *recorded)
{
    mark_kind k = MARK_PLAIN;
    gr__spin_lock(&e->lock);
    void *m = e->capture;
    *recorded = e->recorded;
    if (m) {
        if (gr__capture_is_tombstone(m)) {
            if (gr__capture_tombstone_gen(m) == (e->gen & (UINT64_MAX >> 1)))
                k = MARK_ENDED;
            else
                e->capture = NULL;
        } else {
            gr_cap_event *ce = m;
            if (ce->gen == e->gen) {
                k = MARK_LIVE;
                *out = ce;
            }
        }
    }
    gr__spin_unlock(&e->lock);
    return k;
}

/* The eager wait of grStreamWaitEvent, for an event whose capture mark
 * turned out to be stale. */
static grError_t eager_wait(const char *call, gr_stream *s, grEvent_t e)
{
    grError_t err;
    if ((err = gr__capture_check_implicit(call, s)))
        return err;
    return gr__stream_wait_event_dev(call, s, e);
}

/* Notes, for grGraphAnalyze, that member m of c waited on ce (c->lock
 * held): the edges from the nodes ce names to m's next node are this
 * wait's. Best effort (graph.h). */
static void note_wait(gr_capture *c, gr_cap_member *m, gr_cap_event *ce)
{
    uint64_t call = ++c->calls;
    if (m->lane == 0 || ce->deps.n == 0)
        return;
    gr_wait_note w = {.capture_id = c->id,
                      .event = ce->ev,
                      .record_stream = ce->rec_stream,
                      .wait_stream = m->s,
                      .record_call = ce->rec_call,
                      .wait_call = call,
                      .wait_lane = m->lane,
                      .named = gr__depset_nodes(&ce->deps),
                      .nnamed = ce->deps.n};
    if (gr__prov_wait_add(c->graph, &w))
        m->wait_pending = true;
}

/* Stream s (not capturing) joins c after the dependencies of ce. */
static grError_t join(const char *call, gr_stream *s, grEvent_t e, gr_cap_event *ce)
{
    gr_capture *c = ce->cap;
    char msg[512];
    if (s->flags & GR_STREAM_LEGACY) {
        snprintf(
            msg, sizeof msg,
            "%s: the legacy stream waited on event %p, recorded in a capture; the legacy stream cannot take "
            "part in a capture, so wait from a created stream",
            call, GR_PTR(e));
        if (gr_load_acquire(&c->status) != grStreamCaptureStatusActive)
            return gr__fail(grErrorStreamCaptureUnsupported, "%s", msg);
        return gr__capture_invalidate(c, grErrorStreamCaptureUnsupported, msg);
    }
    gr__capture_lock(c);
    if (gr_load_relaxed(&c->status) != grStreamCaptureStatusActive) {
        gr__spin_unlock(&c->lock);
        return gr__capture_fail_invalidated(call, c, s);
    }
    if (c->nmembers == c->capmembers) {
        gr_cap_member *nm = gr__realloc(c->members, 2 * c->capmembers * sizeof *nm);
        if (!nm) {
            gr__spin_unlock(&c->lock);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory forking %s into a capture", call,
                            GR_STREAM_NAME(s));
        }
        c->members = nm;
        c->capmembers *= 2;
    }
    gr_cap_member *m = &c->members[c->nmembers];
    memset(m, 0, sizeof *m);
    if (!gr__depset_assign(&m->deps, gr__depset_nodes(&ce->deps), ce->deps.n)) {
        gr__spin_unlock(&c->lock);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory forking %s into a capture", call,
                        GR_STREAM_NAME(s));
    }
    m->s = s;
    gr__stream_retain(s);
    if (!c->origin_named) {
        gr__prov_lane_name(c->graph, c->members[0].lane, c->id, c->members[0].s);
        c->origin_named = true;
    }
    m->lane = gr__prov_lane_new(c->graph);
    gr__prov_lane_name(c->graph, m->lane, c->id, s);
    note_wait(c, m, ce);
    c->nmembers++;
    if (!(s->flags & GR_STREAM_NONBLOCKING))
        c->nblocking++;
    gr_store_release(&s->capture, c);
    gr__spin_unlock(&c->lock);
    return grSuccess;
}

grError_t gr__capture_wait_event(const char *call, gr_stream *s, grEvent_t e)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    gr_cap_event *ce = NULL;
    bool recorded = false;
    char msg[768], d[192];
    mark_kind k = read_mark(e, &ce, &recorded);
    if (!c) {
        switch (k) {
        case MARK_PLAIN:
            return eager_wait(call, s, e);
        case MARK_ENDED:
            return gr__fail(grErrorInvalidValue,
                            "%s: event %p was last recorded in a capture that has ended, so it names no work "
                            "that can be waited for; record it again outside a capture",
                            call, GR_PTR(e));
        case MARK_LIVE:
            return join(call, s, e, ce);
        }
        return grSuccess;
    }
    if (gr_load_acquire(&c->status) != grStreamCaptureStatusActive)
        return gr__capture_fail_invalidated(call, c, s);
    switch (k) {
    case MARK_PLAIN:
        if (!recorded)
            return grSuccess; /* never recorded: nothing to wait for, as in CUDA */
        snprintf(
            msg, sizeof msg,
            "%s: capturing %s waited on event %p, which was recorded outside any capture; a capture "
            "may only depend on work outside it through stream order (record the event in the capture, or "
            "synchronise before beginning it)",
            call, GR_STREAM_NAME(s), GR_PTR(e));
        return gr__capture_invalidate(c, grErrorStreamCaptureIsolation, msg);
    case MARK_ENDED:
        snprintf(msg, sizeof msg,
                 "%s: capturing %s waited on event %p, which was last recorded in a capture that has "
                 "ended",
                 call, GR_STREAM_NAME(s), GR_PTR(e));
        return gr__capture_invalidate(c, grErrorInvalidValue, msg);
    case MARK_LIVE:
        break;
    }
    if (ce->cap != c) {
        gr_capture *c2 = ce->cap;
        snprintf(msg, sizeof msg,
                 "%s: %s waited on event %p, recorded in another capture, %s; two captures cannot be "
                 "merged (join streams through events of one capture only)",
                 call, GR_STREAM_NAME(s), GR_PTR(e), gr__capture_describe(c2, d, sizeof d));
        char msg2[512];
        snprintf(msg2, sizeof msg2, "%s: %s of another capture waited on event %p recorded in this one", call,
                 GR_STREAM_NAME(s), GR_PTR(e));
        gr__capture_lock(c2);
        gr__capture_invalidate_locked(c2, grErrorStreamCaptureMerge, msg2);
        gr__spin_unlock(&c2->lock);
        return gr__capture_invalidate(c, grErrorStreamCaptureMerge, msg);
    }
    gr__capture_lock(c);
    gr_cap_member *m = gr__capture_member(c, s);
    bool ok = gr__capture_member_deps(m, gr__depset_nodes(&ce->deps), NULL, ce->deps.n, false);
    if (ok)
        note_wait(c, m, ce);
    gr__spin_unlock(&c->lock);
    if (!ok)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory joining dependencies on %s", call,
                        GR_STREAM_NAME(s));
    return grSuccess;
}

bool gr__capture_event_ended_slow(grEvent_t e)
{
    gr_cap_event *ce = NULL;
    bool recorded;
    return read_mark(e, &ce, &recorded) == MARK_ENDED;
}
