/*
 * capture.c - the life of a capture sequence: begin (into a new or an
 * existing graph), end (with CUDA's checks: unmatched stream, wrong thread,
 * invalidated, unjoined), status and dependency queries, dependency
 * updates, the thread's capture mode, and invalidation with its detail.
 *
 * Invariants:
 *   - s->capture != NULL exactly while s is a member of a capture that has
 *     not ended; the capture is freed only by grStreamEndCapture, after
 *     every member's s->capture was cleared;
 *   - c->status only goes Active -> Invalidated, and c->why is the detail
 *     of the first invalidation (later ones do not overwrite it);
 *   - a failed capture into an existing graph leaves that graph as it was
 *     before the capture began.
 */
#include "capture.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The capture layer's side of the upward seam of stream-ordered
 * allocation (backend.h, gr_capture_hooks): filled before main, so before
 * any capture can begin, whenever this module is linked in (a program
 * without it never captures, and never calls the hooks). */
__attribute__((constructor)) static void register_capture_hooks(void)
{
    gr__capture_hooks.record = gr__capture_record;
    gr__capture_hooks.check_implicit_slow = gr__capture_check_implicit_slow;
}

static _Atomic uint64_t next_capture_id = 1;
static _Atomic uint64_t next_thread_no = 1;
static _Thread_local uint64_t tls_thread_no;
/* The calling thread's mode (grThreadExchangeStreamCaptureMode). */
_Thread_local grStreamCaptureMode gr__tls_capture_mode = grStreamCaptureModeGlobal;

uint64_t gr__capture_thread_no(void)
{
    if (GR_UNLIKELY(tls_thread_no == 0))
        tls_thread_no = gr_fetch_add_relaxed(&next_thread_no, 1);
    return tls_thread_no;
}

const char *gr__capture_mode_name(grStreamCaptureMode m)
{
    switch (m) {
    case grStreamCaptureModeGlobal:
        return "global";
    case grStreamCaptureModeThreadLocal:
        return "thread-local";
    case grStreamCaptureModeRelaxed:
        return "relaxed";
    }
    return "unknown";
}

const char *gr__capture_stream_name(const gr_stream *s, char *buf, size_t size)
{
    if (!s)
        snprintf(buf, size, "no stream");
    else if (s->flags & GR_STREAM_LEGACY)
        snprintf(buf, size, "the legacy stream");
    else
        snprintf(buf, size, "%sstream #%llu at %p", (s->flags & GR_STREAM_PER_THREAD) ? "per-thread " : "",
                 (unsigned long long)s->serial, GR_PTR(s));
    return buf;
}

static bool mode_valid(grStreamCaptureMode m)
{
    return m == grStreamCaptureModeGlobal || m == grStreamCaptureModeThreadLocal ||
           m == grStreamCaptureModeRelaxed;
}

const char *gr__capture_stream_id(const gr_stream *s, char *buf, size_t size)
{
    if (!s || (s->flags & GR_STREAM_LEGACY))
        return gr__capture_stream_name(s, buf, size);
    snprintf(buf, size, "%sstream #%llu", (s->flags & GR_STREAM_PER_THREAD) ? "per-thread " : "",
             (unsigned long long)s->serial);
    return buf;
}

const char *gr__capture_describe(const gr_capture *c, char *buf, size_t size)
{
    char who[48];
    if (c->thread == gr__capture_thread_no())
        snprintf(who, sizeof who, "this thread (#%llu)", (unsigned long long)c->thread);
    else
        snprintf(who, sizeof who, "thread #%llu", (unsigned long long)c->thread);
    snprintf(buf, size, "capture #%llu (%s mode, begun by %s on %s)", (unsigned long long)c->id,
             gr__capture_mode_name(c->mode), who, GR_STREAM_NAME(c->origin));
    return buf;
}

void gr__capture_invalidate_locked(gr_capture *c, grError_t err, const char *msg)
{
    if (gr_load_relaxed(&c->status) != grStreamCaptureStatusActive)
        return;
    size_t len = strlen(msg) + 1;
    c->why = gr__malloc(len);
    if (c->why)
        memcpy(c->why, msg, len);
    c->why_code = err;
    gr_store_release(&c->status, grStreamCaptureStatusInvalidated);
}

grError_t gr__capture_invalidate(gr_capture *c, grError_t err, const char *msg)
{
    char d[192], full[1024];
    gr__capture_describe(c, d, sizeof d);
    snprintf(full, sizeof full, "%s; this invalidated %s: end it with grStreamEndCapture and capture again",
             msg, d);
    gr__capture_lock(c);
    gr__capture_invalidate_locked(c, err, msg);
    gr__spin_unlock(&c->lock);
    return gr__fail(err, "%s", full);
}

grError_t gr__capture_fail_invalidated(const char *call, gr_capture *c, gr_stream *s)
{
    char d[192];
    gr__capture_describe(c, d, sizeof d);
    return gr__fail(
        grErrorStreamCaptureInvalidated,
        "%s: %s takes part in %s, invalidated earlier, first by: %s; nothing was recorded: end the "
        "capture with grStreamEndCapture and capture again",
        call, s == c->origin ? GR_STREAM_ID(s) : GR_STREAM_NAME(s), d, c->why ? c->why : "an illegal call");
}

gr_cap_member *gr__capture_member(gr_capture *c, gr_stream *s)
{
    if (GR_LIKELY(c->members[0].s == s))
        return &c->members[0];
    for (uint32_t i = 1; i < c->nmembers; i++)
        if (c->members[i].s == s)
            return &c->members[i];
    return NULL;
}

/* Checks the edge data of capture dependencies (live nodes, checked
 * already): as grGraphAddDependencies checks it, the node the edges will
 * lead to being unknown yet (the next captured operation, checked then). */
static grError_t check_capture_edge_data(const char *call, const grGraphNode_t *deps,
                                         const grGraphEdgeData *data, size_t n)
{
    grError_t err;
    for (size_t i = 0; data && i < n; i++)
        if ((err = gr__edge_data_check(call, deps[i], grGraphNodeTypeKernel, &data[i], "dependencyData", i)))
            return err;
    return grSuccess;
}

/* ------------------------------------------------------------------ begin */

/* Checks 'graph' as the target of a capture begun into it, with the
 * dependencies the capture starts from. */
static grError_t check_into_graph(const char *call, grGraph_t graph, const grGraphNode_t *deps,
                                  const grGraphEdgeData *data, size_t ndeps)
{
    grError_t err;
    if ((err = gr__graph_check(call, graph)))
        return err;
    /* A conditional node's body may be captured into, as in CUDA. */
    if (graph->owner && graph->owner->type != grGraphNodeTypeConditional)
        return gr__fail(grErrorInvalidValue,
                        "%s: graph %p belongs to a child-graph node; capture into a top-level graph "
                        "or a conditional node's body",
                        call, GR_PTR(graph));
    if ((err = gr__graph_check_deps(call, graph, deps, ndeps)))
        return err;
    if ((err = check_capture_edge_data(call, deps, data, ndeps)))
        return err;
    if (graph->capture)
        return gr__fail(grErrorIllegalState,
                        "%s: graph %p is being built by another stream capture already; end that capture "
                        "first (one capture at a time may build into a graph)",
                        call, GR_PTR(graph));
    if (ndeps > UINT32_MAX)
        return gr__fail(grErrorInvalidValue, "%s: numDependencies %zu is too large", call, ndeps);
    return grSuccess;
}

/* Begins a capture on 'stream' into a new graph (graph NULL) or into
 * 'graph'; a re-capture of 'graph' when recap is given (taken on success,
 * the caller's to free on failure). */
static grError_t begin(const char *call, grStream_t stream, grGraph_t graph, const grGraphNode_t *deps,
                       const grGraphEdgeData *data, size_t ndeps, grStreamCaptureMode mode,
                       gr_recapture *recap)
{
    gr_stream *s = NULL;
    gr_capture *c;
    grError_t err;
    if (!mode_valid(mode))
        return gr__fail(grErrorInvalidValue,
                        "%s: mode %d is not a grStreamCaptureMode (global, thread-local or relaxed)", call,
                        (int)mode);
    if ((err = gr__stream_from_handle(call, stream, &s)))
        return err;
    if (s->flags & GR_STREAM_LEGACY)
        return gr__fail(
            grErrorStreamCaptureUnsupported,
            "%s: the legacy default stream (NULL or grStreamLegacy) cannot be captured; capture a "
            "stream made with grStreamCreate (or grStreamPerThread)",
            call);
    if (graph && (err = check_into_graph(call, graph, deps, data, ndeps)))
        return err;
    void *cur = gr_load_acquire(&s->capture);
    if (cur) {
        char d[192];
        const gr_capture *in = cur;
        return gr__fail(grErrorIllegalState, "%s: %s already takes part in %s; end it first", call,
                        s == in->origin ? GR_STREAM_ID(s) : GR_STREAM_NAME(s),
                        gr__capture_describe(in, d, sizeof d));
    }
    c = gr__calloc(1, sizeof *c);
    if (!c)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    c->members = gr__calloc(4, sizeof *c->members);
    if (!c->members)
        goto oom;
    c->capmembers = 4;
    if (graph) {
        c->graph = graph;
        c->first_seq = graph->next_seq;
    } else {
        if (grGraphCreate(&c->graph, 0) != grSuccess)
            goto oom;
        c->own_graph = true;
    }
    if (ndeps && !gr__capture_member_deps(&c->members[0], deps, data, ndeps, true)) {
        if (c->own_graph)
            grGraphDestroy(c->graph);
        goto oom;
    }
    c->id = gr_fetch_add_relaxed(&next_capture_id, 1);
    c->mode = mode;
    c->thread = gr__capture_thread_no();
    c->origin = s;
    c->recap = recap;
    if (recap) { /* biased to this thread until another takes c->lock */
        c->recap_next = graph->first;
        c->recap_end_seq = graph->next_seq;
        gr__barrier_setup();
        /* Where the heavy barrier is a fence too, the lock costs what the
         * bias would (recapture's enter). */
        if (GR_TSAN || gr__barrier_asym())
            atomic_init(&c->bias, gr__self_tag());
    }
    atomic_init(&c->status, grStreamCaptureStatusActive);
    c->members[0].s = s;
    c->members[0].lane = gr__prov_lane_new(c->graph);
    c->nmembers = 1;
    c->nblocking = (s->flags & GR_STREAM_NONBLOCKING) ? 0u : 1u;
    gr__stream_retain(s);
    c->graph->capture = c;
    gr__capture_register(c);
    gr_store_release(&s->capture, c);
    if (gr__tracing())
        gr__trace_emit(GR_TR_CAPTURE, "capture begin", gr__trace_clock(), 0, s->serial, 0, 0, 0);
    return grSuccess;
oom:
    gr__free(c->members);
    gr__free(c);
    return gr__fail(grErrorMemoryAllocation, "%s: out of memory beginning a capture", call);
}

GR_API grError_t grStreamBeginCapture(grStream_t stream, grStreamCaptureMode mode)
{
    return begin("grStreamBeginCapture", stream, NULL, NULL, NULL, 0, mode, NULL);
}

GR_API grError_t grStreamBeginCaptureToGraph(grStream_t stream, grGraph_t graph,
                                             const grGraphNode_t *dependencies,
                                             const grGraphEdgeData *dependencyData, size_t numDependencies,
                                             grStreamCaptureMode mode)
{
    if (graph == NULL)
        return gr__fail(grErrorInvalidValue,
                        "grStreamBeginCaptureToGraph: graph is NULL; pass the graph to capture into (or use "
                        "grStreamBeginCapture)");
    return begin("grStreamBeginCaptureToGraph", stream, graph, dependencies, dependencyData, numDependencies,
                 mode, NULL);
}

GR_API grError_t grStreamBeginRecaptureToGraph(grStream_t stream, grStreamCaptureMode mode, grGraph_t graph,
                                               grGraphRecaptureCallbackData *callbackData)
{
    static const char call[] = "grStreamBeginRecaptureToGraph";
    grError_t err;
    if (graph == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: graph is NULL; pass the graph an earlier capture built (or use "
                        "grStreamBeginCapture)",
                        call);
    if ((err = gr__graph_check(call, graph)))
        return err;
    gr_recapture *r = gr__recapture_new(graph, callbackData);
    if (!r)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory beginning a re-capture", call);
    if ((err = begin(call, stream, graph, NULL, NULL, 0, mode, r))) {
        gr__recapture_free(r);
        return err;
    }
    /* As CUDA: the graph's user objects go before the re-capture, which
     * may retain them again. Outside every lock, so that destructors due
     * now run before returning. */
    if (graph->urefs.n) {
        gr__uobj_inline_begin();
        gr__urefs_release_all(&graph->urefs);
        gr__uobj_inline_end();
    }
    return grSuccess;
}

/* -------------------------------------------------------------------- end */

/* True if every dependency of every forked member is the origin's current
 * dependency or an ancestor of one (the forked work was waited for). One
 * backward pass over the ancestors of the origin's dependencies, marking
 * them with a fresh visit epoch of the graph. */
static bool joined(gr_capture *c, bool *oom)
{
    bool need = false;
    for (uint32_t i = 1; i < c->nmembers; i++)
        if (c->members[i].deps.n)
            need = true;
    if (!need)
        return true;
    size_t cap = c->graph->nnodes, top = 0, nseen = 0;
    struct grGraphNode_st **stack = gr__malloc((cap ? cap : 1) * sizeof *stack);
    if (!stack) {
        *oom = true;
        return false;
    }
    uint32_t epoch = gr__graph_visit_begin(c->graph);
    gr_depset *od = &c->members[0].deps;
    for (uint32_t k = 0; k < od->n; k++) {
        struct grGraphNode_st *n = gr__depset_nodes(od)[k];
        if (gr__node_visit(n, epoch))
            stack[top++] = n;
    }
    /* stack[0..nseen) is the visited list; stack[nseen..top) to expand. */
    while (nseen < top) {
        struct grGraphNode_st *n = stack[nseen++];
        for (size_t k = 0; k < n->ndeps; k++)
            if (gr__node_visit(n->deps[k], epoch))
                stack[top++] = n->deps[k];
    }
    bool ok = true;
    for (uint32_t i = 1; i < c->nmembers && ok; i++) {
        gr_depset *d = &c->members[i].deps;
        for (uint32_t k = 0; k < d->n; k++)
            if (!gr__node_visited(gr__depset_nodes(d)[k], epoch)) {
                ok = false;
                break;
            }
    }
    gr__free(stack);
    return ok;
}

/* Removes what a failed capture added to a graph it did not create. */
static void rollback(gr_capture *c)
{
    struct grGraphNode_st *n = c->graph->last;
    while (n && n->seq >= c->first_seq) {
        struct grGraphNode_st *prev = n->prev;
        if (n->type == grGraphNodeTypeMemFree)
            gr__graphmem_free_node_removed(c->graph, n->p.free.dptr);
        gr__graph_node_destroy(n);
        n = prev;
    }
}

/* Ends c: every member leaves, event marks become tombstones, the graph is
 * returned (keep) or discarded. Frees c. */
static void finish(gr_capture *c, bool keep)
{
    gr__capture_unregister(c);
    c->graph->capture = NULL;
    for (uint32_t i = 0; i < c->nmembers; i++) {
        gr_store_release(&c->members[i].s->capture, NULL);
        gr__stream_release(c->members[i].s);
        gr__depset_free(&c->members[i].deps);
        gr__free(c->members[i].edata);
        gr__free(c->members[i].zeros);
    }
    for (gr_cap_event *ce = c->events, *next; ce; ce = next) {
        next = ce->next;
        gr__spin_lock(&ce->ev->lock);
        if (ce->ev->capture == ce)
            ce->ev->capture = gr__capture_tombstone(ce->gen);
        gr__spin_unlock(&ce->ev->lock);
        gr__event_release(ce->ev);
        gr__depset_free(&ce->deps);
        gr__free(ce);
    }
    if (!keep) {
        if (c->own_graph)
            grGraphDestroy(c->graph);
        else
            rollback(c);
    }
    if (c->recap)
        gr__recapture_finish(c, keep);
    gr__free(c->members);
    gr__free(c->why);
    gr__free(c);
}

/* grStreamEndCapture called by a thread other than the one that began c,
 * in a mode that forbids it: c ends without a graph. d describes c. */
static grError_t end_wrong_thread(gr_capture *c, const char *d, grGraph_t *pGraph)
{
    uint64_t me = gr__capture_thread_no();
    const char *mode = gr__capture_mode_name(c->mode); /* c is freed by finish */
    finish(c, false);
    if (pGraph)
        *pGraph = NULL;
    return gr__fail(grErrorStreamCaptureWrongThread,
                    "grStreamEndCapture: thread #%llu ended %s; the capture's %s mode means it must be ended "
                    "by the thread that began it (begin it in relaxed mode to hand it over); the capture has "
                    "ended without a graph",
                    (unsigned long long)me, d, mode);
}

/* grStreamEndCapture on origin s while a joined stream has work s never
 * waited for: names the first such stream, and c ends without a graph.
 * d describes c. */
static grError_t end_unjoined(gr_capture *c, gr_stream *s, const char *d, grGraph_t *pGraph)
{
    char msg[1024], sid[48];
    gr_stream *u = NULL;
    for (uint32_t i = 1; i < c->nmembers && !u; i++)
        if (c->members[i].deps.n)
            u = c->members[i].s;
    gr__capture_stream_id(s, sid, sizeof sid); /* named in full in d, as the origin */
    snprintf(msg, sizeof msg,
             "grStreamEndCapture: %s joined %s and has work that %s never waited for; record an event on "
             "it after its last work and grStreamWaitEvent on that event from %s before ending; the "
             "capture has ended without a graph",
             GR_STREAM_NAME(u), d, sid, sid);
    finish(c, false);
    if (pGraph)
        *pGraph = NULL;
    return gr__fail(grErrorStreamCaptureUnjoined, "%s", msg);
}

GR_API grError_t grStreamEndCapture(grStream_t stream, grGraph_t *pGraph)
{
    static const char call[] = "grStreamEndCapture";
    gr_stream *s = NULL;
    gr_capture *c;
    grError_t err;
    char d[192], msg[1024];
    /* pGraph may be NULL, as CUDA 13.0 allows (measured on an H100): a
     * capture into the caller's graph (grStreamBeginCaptureToGraph) ends
     * with the graph already the caller's, as NVIDIA's
     * graphConditionalNodes sample assumes; any other capture ends and its
     * graph, which nobody could receive, is destroyed. */
    err = gr__stream_from_handle(call, stream, &s);
    if (err)
        return err;
    c = gr_load_acquire(&s->capture);
    if (c && gr__tracing())
        gr__trace_emit(GR_TR_CAPTURE, "capture end", gr__trace_clock(), 0, s->serial, 0, 0, 0);
    if (!c)
        return gr__fail(grErrorIllegalState,
                        "grStreamEndCapture: %s is not capturing; begin a capture with "
                        "grStreamBeginCapture first",
                        GR_STREAM_NAME(s));
    /* The capture's description is formatted where a failure names it:
     * the usual end (a few hundred nanoseconds of snprintf) needs none. */
    if (c->origin != s) {
        gr__capture_describe(c, d, sizeof d);
        snprintf(msg, sizeof msg,
                 "grStreamEndCapture: %s joined %s but did not begin it; a capture must be ended on the "
                 "stream that began it",
                 GR_STREAM_NAME(s), d);
        gr__capture_invalidate(c, grErrorStreamCaptureUnmatched, msg);
        return grErrorStreamCaptureUnmatched;
    }
    if (c->mode != grStreamCaptureModeRelaxed && c->thread != gr__capture_thread_no())
        return end_wrong_thread(c, gr__capture_describe(c, d, sizeof d), pGraph);
    if (gr_load_acquire(&c->status) == grStreamCaptureStatusInvalidated) {
        gr__capture_describe(c, d, sizeof d);
        snprintf(
            msg, sizeof msg,
            "grStreamEndCapture: %s was invalidated, first by: %s; the capture has ended without a graph and "
            "the stream can be captured again",
            d, c->why ? c->why : "an illegal call");
        finish(c, false);
        if (pGraph)
            *pGraph = NULL;
        return gr__fail(grErrorStreamCaptureInvalidated, "%s", msg);
    }
    bool oom = false;
    if (!joined(c, &oom)) {
        gr__capture_describe(c, d, sizeof d);
        if (oom)
            return gr__fail(grErrorMemoryAllocation, "grStreamEndCapture: out of memory checking %s", d);
        return end_unjoined(c, s, d, pGraph);
    }
    if (GR_UNLIKELY(c->recap != NULL) && !gr__recapture_complete(c, msg, sizeof msg)) {
        char full[1536];
        gr__capture_describe(c, d, sizeof d);
        snprintf(full, sizeof full,
                 "grStreamEndCapture: %s; the re-capture %s has ended without a graph (destroy the graph or "
                 "re-capture it again)",
                 msg, d);
        finish(c, false);
        if (pGraph)
            *pGraph = NULL;
        return gr__fail(grErrorStreamCaptureInvalidated, "%s", full);
    }
    grGraph_t g = c->graph;
    bool own = c->own_graph;
    finish(c, true);
    gr_assert_expensive(gr__graph_is_valid(g));
    if (pGraph)
        *pGraph = g;
    else if (own)
        grGraphDestroy(g);
    return grSuccess;
}

/* ---------------------------------------------------------------- queries */

static grError_t capture_info(const char *call, grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                              unsigned long long *id_out, grGraph_t *graph_out,
                              const grGraphNode_t **dependencies_out, const grGraphEdgeData **edgeData_out,
                              size_t *numDependencies_out);

GR_API grError_t grStreamIsCapturing(grStream_t stream, grStreamCaptureStatus *pCaptureStatus)
{
    return capture_info("grStreamIsCapturing", stream, pCaptureStatus, NULL, NULL, NULL, NULL, NULL);
}

GR_API grError_t grStreamGetCaptureInfo(grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, grGraph_t *graph_out,
                                        const grGraphNode_t **dependencies_out,
                                        const grGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info("grStreamGetCaptureInfo", stream, captureStatus_out, id_out, graph_out,
                        dependencies_out, edgeData_out, numDependencies_out);
}

/* The all-default edge data of m's n dependencies (under c's lock), or
 * NULL when out of memory. */
static const grGraphEdgeData *member_zeros(gr_cap_member *m, uint32_t n)
{
    static const grGraphEdgeData none[1];
    if (n == 0)
        return none;
    if (m->nzeros < n) {
        grGraphEdgeData *z = gr__calloc(n, sizeof *z);
        if (!z)
            return NULL;
        gr__free(m->zeros);
        m->zeros = z;
        m->nzeros = n;
    }
    return m->zeros;
}

/* grStreamIsCapturing and grStreamGetCaptureInfo, naming 'call'. */
static grError_t capture_info(const char *call, grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                              unsigned long long *id_out, grGraph_t *graph_out,
                              const grGraphNode_t **dependencies_out, const grGraphEdgeData **edgeData_out,
                              size_t *numDependencies_out)
{
    gr_stream *s = NULL;
    gr_capture *c;
    grError_t err;
    if (!captureStatus_out)
        return gr__fail(grErrorInvalidValue, "%s: captureStatus_out (the output pointer) is NULL", call);
    if (edgeData_out && !dependencies_out)
        return gr__fail(grErrorInvalidValue,
                        "%s: edgeData_out is given but dependencies_out is NULL; the edge data parallels the "
                        "dependencies, so ask for both",
                        call);
    if ((err = gr__stream_from_handle(call, stream, &s)))
        return err;
    c = gr_load_acquire(&s->capture);
    if (!c) {
        if ((s->flags & GR_STREAM_LEGACY) && gr__capture_any() && gr__capture_blocking_active())
            return gr__fail(grErrorStreamCaptureImplicit,
                            "%s: the legacy stream is synchronised with a blocking stream that is capturing; "
                            "using the legacy stream now would make it depend on that capture",
                            call);
        *captureStatus_out = grStreamCaptureStatusNone;
        return grSuccess;
    }
    gr__capture_lock(c);
    grStreamCaptureStatus st = (grStreamCaptureStatus)gr_load_relaxed(&c->status);
    *captureStatus_out = st;
    if (st == grStreamCaptureStatusActive) {
        gr_cap_member *m = gr__capture_member(c, s);
        if (id_out)
            *id_out = c->id;
        if (graph_out)
            *graph_out = c->graph;
        if (m && m->edata && dependencies_out && !edgeData_out) {
            for (uint32_t k = 0; k < m->deps.n; k++)
                if (!gr__edge_data_is_default(&m->edata[k])) {
                    gr__spin_unlock(&c->lock);
                    return gr__fail(grErrorLossyQuery,
                                    "%s: a dependency of %s has non-default edge data and edgeData_out is "
                                    "NULL; pass edgeData_out to receive it, as in CUDA",
                                    call, GR_STREAM_NAME(s));
                }
        }
        if (edgeData_out) {
            const grGraphEdgeData *z = !m ? NULL : m->edata ? m->edata : member_zeros(m, m->deps.n);
            if (m && !z) {
                gr__spin_unlock(&c->lock);
                return gr__fail(grErrorMemoryAllocation, "%s: out of memory listing the edge data", call);
            }
            *edgeData_out = z;
        }
        if (dependencies_out)
            *dependencies_out = m ? gr__depset_nodes(&m->deps) : NULL;
        if (numDependencies_out)
            *numDependencies_out = m ? m->deps.n : 0;
    }
    gr__spin_unlock(&c->lock);
    return grSuccess;
}

GR_API grError_t grStreamUpdateCaptureDependencies(grStream_t stream, grGraphNode_t *dependencies,
                                                   const grGraphEdgeData *dependencyData,
                                                   size_t numDependencies, unsigned int flags)
{
    static const char call[] = "grStreamUpdateCaptureDependencies";
    gr_stream *s = NULL;
    gr_capture *c;
    grError_t err;
    if (flags != grStreamAddCaptureDependencies && flags != grStreamSetCaptureDependencies)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x is neither grStreamAddCaptureDependencies (0) nor "
                        "grStreamSetCaptureDependencies (1)",
                        call, flags);
    if (numDependencies && !dependencies)
        return gr__fail(grErrorInvalidValue, "%s: dependencies is NULL but numDependencies is %zu", call,
                        numDependencies);
    if (numDependencies > UINT32_MAX)
        return gr__fail(grErrorInvalidValue, "%s: numDependencies %zu is too large", call, numDependencies);
    if ((err = gr__stream_from_handle(call, stream, &s)))
        return err;
    c = gr_load_acquire(&s->capture);
    if (!c)
        return gr__fail(grErrorIllegalState, "%s: %s is not capturing", call, GR_STREAM_NAME(s));
    gr__capture_lock(c);
    if (gr_load_relaxed(&c->status) != grStreamCaptureStatusActive) {
        gr__spin_unlock(&c->lock);
        return gr__capture_fail_invalidated(call, c, s);
    }
    for (size_t i = 0; i < numDependencies; i++) {
        grGraphNode_t n = dependencies[i];
        if (!n || n->magic != GR_MAGIC_NODE || n->graph != c->graph) {
            char d[192];
            gr__spin_unlock(&c->lock);
            return gr__fail(
                grErrorInvalidValue,
                "%s: dependencies[%zu] (%p) is not a live node of the graph of %s; the capture is "
                "unchanged",
                call, i, GR_PTR(n), gr__capture_describe(c, d, sizeof d));
        }
    }
    if ((err = check_capture_edge_data(call, dependencies, dependencyData, numDependencies))) {
        gr__spin_unlock(&c->lock);
        return err;
    }
    gr_cap_member *m = gr__capture_member(c, s);
    bool ok =
        GR_ALWAYS(m != NULL) && gr__capture_member_deps(m, dependencies, dependencyData, numDependencies,
                                                        flags == grStreamSetCaptureDependencies);
    gr__spin_unlock(&c->lock);
    if (!ok)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    return grSuccess;
}

GR_API grError_t grThreadExchangeStreamCaptureMode(grStreamCaptureMode *mode)
{
    if (!mode)
        return gr__fail(grErrorInvalidValue,
                        "grThreadExchangeStreamCaptureMode: mode (the in/out pointer) is NULL");
    if (!mode_valid(*mode))
        return gr__fail(grErrorInvalidValue,
                        "grThreadExchangeStreamCaptureMode: *mode is %d, not a grStreamCaptureMode (global, "
                        "thread-local or relaxed); this thread's capture mode is unchanged",
                        (int)*mode);
    grStreamCaptureMode old = gr__tls_capture_mode;
    gr__tls_capture_mode = *mode;
    *mode = old;
    return grSuccess;
}
