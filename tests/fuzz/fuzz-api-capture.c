/*
 * fuzz-api-capture.c - the API fuzzer's stream capture: captures begun
 * into new and existing graphs, the dependency set of every member stream
 * (union on waits, the new node alone after each captured operation, the
 * set or additions of grStreamUpdateCaptureDependencies), fork and join,
 * the end of a capture with its four outcomes, the queries, the thread's
 * capture mode, and the rules that refuse "potentially unsafe" calls and
 * invalidate captures (docs/capture.md, src/capture/rules.c).
 *
 * With several threads, captures use non-blocking streams and modes
 * ThreadLocal and Relaxed only, so that no thread's capture changes what
 * another thread's calls do; the model then holds per thread.
 */
#include "fuzz-api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static bool any_capture(fa *f)
{
    for (int k = 0; k < FA_CAPS; k++)
        if (f->cap[k].active)
            return true;
    return false;
}

static bool capture_blocking(fa *f, int k)
{
    for (int sid = 0; sid < FA_NSID; sid++)
        if (sid != FA_SID_LEGACY && f->s[sid].cap == k && !f->s[sid].nonblocking)
            return true;
    return false;
}

void fa_capture_invalidate(fa *f, int k)
{
    f->cap[k].invalidated = true;
}

int fa_unsafe(fa *f, int kind, int sid, int ev, bool apply)
{
    if (!any_capture(f))
        return 0;
    switch (kind) {
    case FU_STREAM_SYNC:
    case FU_STREAM_QUERY: {
        int k = fa_capture_of(f, sid);
        if (k >= 0) {
            if (apply)
                fa_capture_invalidate(f, k);
            return grErrorStreamCaptureUnsupported;
        }
        if (sid == FA_SID_LEGACY && fa_blocking_capture(f)) {
            if (apply)
                for (int c = 0; c < FA_CAPS; c++)
                    if (f->cap[c].active && capture_blocking(f, c))
                        fa_capture_invalidate(f, c);
            return grErrorStreamCaptureImplicit;
        }
        break;
    }
    case FU_EVENT_SYNC:
    case FU_EVENT_QUERY:
        if (f->ev[ev].state == EV_CAPTURED) {
            if (apply)
                fa_capture_invalidate(f, f->ev[ev].cap);
            return grErrorCapturedEvent;
        }
        if (f->ev[ev].state == EV_ENDED)
            return grErrorInvalidValue;
        break;
    case FU_DEVICE_SYNC:
        if (apply)
            for (int c = 0; c < FA_CAPS; c++)
                if (f->cap[c].active)
                    fa_capture_invalidate(f, c);
        return grErrorStreamCaptureUnsupported;
    case FU_SYNC_COPY:
        if (!fa_blocking_capture(f))
            return 0;
        if (apply)
            for (int c = 0; c < FA_CAPS; c++)
                if (f->cap[c].active && capture_blocking(f, c))
                    fa_capture_invalidate(f, c);
        return grErrorStreamCaptureImplicit;
    default:
        break;
    }
    /* The mode rule: this thread's captures that are not Relaxed forbid it
     * unless the thread's own mode is Relaxed (other threads never begin
     * Global captures). */
    if (f->tmode == grStreamCaptureModeRelaxed)
        return 0;
    bool found = false;
    for (int c = 0; c < FA_CAPS; c++)
        if (f->cap[c].active && f->cap[c].mode != grStreamCaptureModeRelaxed) {
            found = true;
            if (apply)
                fa_capture_invalidate(f, c);
        }
    return found ? grErrorStreamCaptureUnsupported : 0;
}

bool fa_capture_full(fa *f, int sid)
{
    int k = fa_capture_of(f, sid);
    return k >= 0 && f->cap[k].g->nn >= FA_NODES;
}

void fa_capture_node(fa *f, int sid, uint8_t type, const fa_params *p)
{
    int k = f->s[sid].cap;
    fa_capture *c = &f->cap[k];
    fa_graph *g = c->g;
    fa_stream *s = &f->s[sid];
    if (g->nn >= FA_NODES)
        fa_fail(f, "model bug: a capture filled its graph");
    /* More than eight dependencies: graphrt's duplicate check leaves the
     * scratch words of the dependencies set. */
    if (s->ndeps > 8)
        c->tainted = true;
    int ni = fa_node_add_model(f, g, type, p, s->deps, s->ndeps);
    if (type == grGraphNodeTypeMemAlloc) {
        for (int i = 0; i < FA_GMEM; i++)
            if (!f->gm[i].used) {
                f->gm[i] = (fa_gmem){.used = true,
                                     .ptr = p->dst.raw,
                                     .size = p->count,
                                     .g = g,
                                     .node = ni,
                                     .alloc_by = -1,
                                     .exec = -1};
                g->node[ni].p.gm = i;
                break;
            }
    } else if (type == grGraphNodeTypeMemFree) {
        fa_gmem *m = &f->gm[p->gm];
        if (m->g == g)
            m->freed_in_graph = true;
        else
            m->freed_elsewhere = true;
    }
    s->deps[0] = (uint8_t)ni;
    s->ndeps = 1;
}

void fa_event_record_capture(fa *f, int e, int sid)
{
    fa_event *ev = &f->ev[e];
    ev->state = EV_CAPTURED;
    ev->cap = f->s[sid].cap;
    memcpy(ev->deps, f->s[sid].deps, (size_t)f->s[sid].ndeps);
    ev->ndeps = f->s[sid].ndeps;
}

/* ------------------------------------------------------------------ begin */

static grStreamCaptureMode pick_mode(fa *f)
{
    if (f->mt)
        return fa_pct(f, 50) ? grStreamCaptureModeThreadLocal : grStreamCaptureModeRelaxed;
    return (grStreamCaptureMode)fa_rand(f, 3);
}

static void begin(fa *f)
{
    int k;
    for (k = 0; k < FA_CAPS && f->cap[k].active; k++)
        ;
    int sid = (int)fa_rand(f, FA_STREAMS + 2);
    if (sid == FA_STREAMS)
        sid = FA_SID_PT;
    else if (sid == FA_STREAMS + 1)
        sid = FA_SID_LEGACY;
    if (!fa_stream_usable(f, sid))
        return;
    if (f->mt && (sid == FA_SID_PT || (sid < FA_STREAMS && !f->s[sid].nonblocking)))
        return;
    grStream_t s = fa_stream_handle(f, sid);
    grStreamCaptureMode mode = pick_mode(f);
    if (sid == FA_SID_LEGACY) {
        fa_bad(f, FA_CALL(f, grStreamBeginCapture(s, mode)), grErrorStreamCaptureUnsupported);
        return;
    }
    if (fa_pct(f, 5)) {
        fa_bad(f, FA_CALL(f, grStreamBeginCapture(s, (grStreamCaptureMode)(3 + fa_rand(f, 10)))),
               grErrorInvalidValue);
        return;
    }
    if (fa_capture_of(f, sid) >= 0) {
        fa_bad(f, FA_CALL(f, grStreamBeginCapture(s, mode)), grErrorIllegalState);
        return;
    }
    if (k == FA_CAPS)
        return;
    fa_capture *c = &f->cap[k];
    if (fa_pct(f, 30)) {
        /* Into an existing graph, after some of its nodes. */
        fa_graph *g = fa_pick_graph(f, false, true);
        if (!g || g->nn + 4 >= FA_NODES)
            return;
        grGraphNode_t dh[4];
        uint8_t deps[4];
        int nd = 0;
        for (int tries = 0; tries < 6 && nd < 3; tries++) {
            int i = (int)fa_rand(f, (uint32_t)(g->nn ? g->nn : 1));
            if (i >= g->nn || !g->node[i].live)
                continue;
            bool dup = false;
            for (int j = 0; j < nd; j++)
                dup |= deps[j] == i;
            if (!dup) {
                deps[nd] = (uint8_t)i;
                dh[nd++] = g->node[i].h;
            }
        }
        bool bad = g->depth > 0;
        if (!bad && nd && fa_pct(f, 10)) {
            dh[nd++] = dh[0];
            bad = true;
        } else if (!bad && fa_pct(f, 5)) {
            bad = true;
            fa_bad(f, FA_CALL(f, grStreamBeginCaptureToGraph(s, NULL, NULL, NULL, 0, mode)),
                   grErrorInvalidValue);
            return;
        }
        grError_t err =
            FA_CALL(f, grStreamBeginCaptureToGraph(s, g->h, nd ? dh : NULL, NULL, (size_t)nd, mode));
        if (bad) {
            fa_bad(f, err, grErrorInvalidValue);
            return;
        }
        fa_ok(f, err);
        *c = (fa_capture){.active = true,
                          .origin = sid,
                          .mode = mode,
                          .g = g,
                          .to_graph = true,
                          .first_node = g->nn,
                          .tainted = g->scratch_used};
        g->capture = k;
        f->s[sid].cap = k;
        memcpy(f->s[sid].deps, deps, (size_t)nd);
        f->s[sid].ndeps = nd;
        return;
    }
    int slot = fa_free_graph_slot(f);
    if (slot < 0)
        return;
    fa_ok(f, FA_CALL(f, grStreamBeginCapture(s, mode)));
    fa_graph *g = fa_graph_new(f, NULL, 0, NULL);
    g->capture = k;
    f->g[slot] = g;
    *c = (fa_capture){.active = true, .origin = sid, .mode = mode, .g = g, .first_node = 0};
    f->s[sid].cap = k;
    f->s[sid].ndeps = 0;
}

/* -------------------------------------------------------------------- end */

static bool joined(fa *f, int k)
{
    fa_capture *c = &f->cap[k];
    fa_graph *g = c->g;
    bool need = false;
    for (int sid = 0; sid < FA_NSID; sid++)
        if (sid != c->origin && sid != FA_SID_LEGACY && f->s[sid].cap == k && f->s[sid].ndeps)
            need = true;
    if (!need)
        return true;
    uint8_t seen[FA_NODES] = {0}, stack[FA_NODES];
    int top = 0;
    const fa_stream *o = &f->s[c->origin];
    for (int i = 0; i < o->ndeps; i++)
        if (!seen[o->deps[i]]) {
            seen[o->deps[i]] = 1;
            stack[top++] = o->deps[i];
        }
    while (top) {
        const fa_node *n = &g->node[stack[--top]];
        for (int d = 0; d < n->ndeps; d++)
            if (!seen[n->deps[d]]) {
                seen[n->deps[d]] = 1;
                stack[top++] = n->deps[d];
            }
    }
    for (int sid = 0; sid < FA_NSID; sid++) {
        if (sid == c->origin || sid == FA_SID_LEGACY || f->s[sid].cap != k)
            continue;
        for (int i = 0; i < f->s[sid].ndeps; i++)
            if (!seen[f->s[sid].deps[i]])
                return false;
    }
    return true;
}

/* The capture is over (any outcome): members leave, events recorded in it
 * name nothing any more; keep: the graph is the caller's now. */
static void finish(fa *f, int k, bool keep)
{
    fa_capture *c = &f->cap[k];
    fa_graph *g = c->g;
    for (int sid = 0; sid < FA_NSID; sid++)
        if (sid != FA_SID_LEGACY && f->s[sid].cap == k) {
            f->s[sid].cap = -1;
            f->s[sid].ndeps = 0;
        }
    for (int e = 0; e < FA_EVENTS; e++)
        if (f->ev[e].live && f->ev[e].state == EV_CAPTURED && f->ev[e].cap == k)
            f->ev[e].state = EV_ENDED;
    g->capture = -1;
    if (!keep) {
        /* The allocations its nodes reserved go with them. */
        for (int i = 0; i < FA_GMEM; i++)
            if (f->gm[i].used && f->gm[i].g == g && f->gm[i].node >= c->first_node)
                f->gm[i].used = false;
        if (c->to_graph) {
            /* graphrt removes what the capture added (its deviation). */
            for (int i = g->nn - 1; i >= c->first_node; i--) {
                fa_node *n = &g->node[i];
                if (!n->live)
                    continue;
                while (n->ndeps) {
                    int d = n->deps[0];
                    fa_node *dn = &g->node[d];
                    int w = 0;
                    for (int j = 0; j < dn->nsuccs; j++)
                        if (dn->succs[j] != i)
                            dn->succs[w++] = dn->succs[j];
                    dn->nsuccs = (uint8_t)w;
                    n->deps[0] = n->deps[--n->ndeps];
                    g->nedges--;
                }
                if (n->type == grGraphNodeTypeMemAlloc || n->type == grGraphNodeTypeMemFree)
                    g->nmem--;
                /* A removed free node frees nothing any more; graphrt
                 * keeps its note (capture-rollback-free). */
                if (n->type == grGraphNodeTypeMemFree && fa_allowed(f, FZ_ALLOW_ROLLBACK_FREE))
                    for (int k2 = 0; k2 < FA_GMEM; k2++)
                        if (f->gm[k2].used && f->gm[k2].g == g && f->gm[k2].ptr == n->p.dst.raw)
                            f->gm[k2].freed_in_graph = false;
                n->live = false;
                g->nlive--;
            }
        } else {
            for (int s = 0; s < FA_GRAPHS; s++)
                if (f->g[s] == g)
                    f->g[s] = NULL;
            fa_graph_free_model(f, g);
        }
    }
    c->active = false;
}

static void end(fa *f, int sid_pick)
{
    int sid = sid_pick >= 0 ? sid_pick : fa_pick_stream(f, false);
    grStream_t s = fa_stream_handle(f, sid);
    grGraph_t out = (grGraph_t)(void *)f, before = out;
    int k = fa_capture_of(f, sid);
    /* No output pointer (CUDA 13.0 allows it): a stream not capturing is
     * refused as with one; a capture ends as with one (the checks below
     * read *pGraph as NULL or the graph), and the graph of a plain
     * capture, which nobody received, is destroyed. */
    bool no_out = false;
    if (fa_pct(f, 3) && sid_pick < 0) {
        if (k < 0) {
            fa_bad(f, FA_CALL(f, grStreamEndCapture(s, NULL)), grErrorIllegalState);
            return;
        }
        no_out = true;
    }
    grError_t err = FA_CALL(f, grStreamEndCapture(s, no_out ? NULL : &out));
    if (no_out && k >= 0)
        out = err == grSuccess ? f->cap[k].g->h : NULL;
    if (k < 0) {
        fa_bad(f, err, grErrorIllegalState);
        if (out != before)
            fa_fail(f, "grStreamEndCapture on a stream not capturing changed *pGraph");
        return;
    }
    fa_capture *c = &f->cap[k];
    if (sid != c->origin) {
        fa_bad(f, err, grErrorStreamCaptureUnmatched);
        fa_capture_invalidate(f, k);
        return;
    }
    if (c->invalidated) {
        fa_bad(f, err, grErrorStreamCaptureInvalidated);
        if (out != NULL)
            fa_fail(f, "grStreamEndCapture of an invalidated capture gave graph %p, not NULL", (void *)out);
        finish(f, k, false);
        return;
    }
    bool j = joined(f, k);
    if (c->tainted && !fa_allowed(f, FZ_ALLOW_CAPTURE_SCRATCH)) {
        /* capture-join-scratch: the check may answer either way. */
        j = err == grSuccess;
    }
    if (!j) {
        fa_bad(f, err, grErrorStreamCaptureUnjoined);
        if (out != NULL)
            fa_fail(f, "grStreamEndCapture of an unjoined capture gave graph %p, not NULL", (void *)out);
        finish(f, k, false);
        return;
    }
    fa_ok(f, err);
    if (no_out && !c->to_graph) {
        finish(f, k, false);
        return;
    }
    fa_graph *g = c->g;
    if (c->to_graph && out != g->h)
        fa_fail(f, "grStreamEndCapture returned graph %p, the capture was into %p", (void *)out,
                (void *)g->h);
    if (!c->to_graph && g->h && out != g->h)
        fa_fail(f, "grStreamEndCapture returned graph %p, grStreamGetCaptureInfo said %p", (void *)out,
                (void *)g->h);
    g->h = out;
    finish(f, k, true);
    fa_graph_learn_handles(f, g);
    fa_graph_verify(f, g);
}

/* -------------------------------------------------------------- queries */

static fa_graph *capture_graph_known(fa *f, int sid)
{
    int k = fa_capture_of(f, sid);
    if (k < 0 || f->cap[k].invalidated)
        return NULL;
    fa_graph *g = f->cap[k].g;
    if (!g->h) {
        grStreamCaptureStatus st;
        grGraph_t h = NULL;
        fa_ok(f,
              FA_CALL(f, grStreamGetCaptureInfo(fa_stream_handle(f, sid), &st, NULL, &h, NULL, NULL, NULL)));
        if (st != grStreamCaptureStatusActive || !h)
            fa_fail(f, "grStreamGetCaptureInfo of a capturing stream: status %d, graph %p", (int)st,
                    (void *)h);
        g->h = h;
    }
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && !g->node[i].h) {
            fa_graph_learn_handles(f, g);
            break;
        }
    return g;
}

static void queries(fa *f)
{
    int sid = fa_pick_stream(f, false);
    grStream_t s = fa_stream_handle(f, sid);
    int k = fa_capture_of(f, sid);
    bool implicit = sid == FA_SID_LEGACY && fa_blocking_capture(f);
    grStreamCaptureStatus st = (grStreamCaptureStatus)77;
    grStreamCaptureStatus want = k < 0                   ? grStreamCaptureStatusNone
                                 : f->cap[k].invalidated ? grStreamCaptureStatusInvalidated
                                                         : grStreamCaptureStatusActive;
    if (fa_pct(f, 40)) {
        if (fa_pct(f, 10)) {
            fa_bad(f, FA_CALL(f, grStreamIsCapturing(s, NULL)), grErrorInvalidValue);
            return;
        }
        grError_t err = FA_CALL(f, grStreamIsCapturing(s, &st));
        if (implicit) {
            fa_bad(f, err, grErrorStreamCaptureImplicit);
            return;
        }
        fa_ok(f, err);
        if (st != want)
            fa_fail(f, "grStreamIsCapturing of stream id %d: status %d, the model says %d", sid, (int)st,
                    (int)want);
        return;
    }
    unsigned long long id = 12345;
    grGraph_t g = (grGraph_t)(void *)f;
    const grGraphNode_t *deps = (const grGraphNode_t *)(void *)f;
    size_t n = 9999;
    if (fa_pct(f, 8)) {
        fa_bad(f, FA_CALL(f, grStreamGetCaptureInfo(s, NULL, &id, &g, &deps, NULL, &n)), grErrorInvalidValue);
        return;
    }
    grError_t err = FA_CALL(f, grStreamGetCaptureInfo(s, &st, &id, &g, &deps, NULL, &n));
    if (implicit) {
        fa_bad(f, err, grErrorStreamCaptureImplicit);
        return;
    }
    fa_ok(f, err);
    if (st != want)
        fa_fail(f, "grStreamGetCaptureInfo of stream id %d: status %d, the model says %d", sid, (int)st,
                (int)want);
    if (want != grStreamCaptureStatusActive) {
        if (id != 12345 || g != (grGraph_t)(void *)f || n != 9999)
            fa_fail(f,
                    "grStreamGetCaptureInfo changed the optional outputs of a stream that is not capturing");
        return;
    }
    fa_capture *c = &f->cap[k];
    if (c->id == 0) {
        for (int i = 0; i < f->ncap_ids; i++)
            if (f->cap_ids[i] == id)
                fa_fail(f, "capture id %llu was given to an earlier capture", id);
        c->id = id;
        if (f->ncap_ids < 64)
            f->cap_ids[f->ncap_ids++] = id;
    } else if (c->id != id) {
        fa_fail(f, "capture id %llu, earlier %llu for the same capture", id, c->id);
    }
    if (c->g->h && c->g->h != g)
        fa_fail(f, "grStreamGetCaptureInfo graph %p, the capture's graph is %p", (void *)g, (void *)c->g->h);
    c->g->h = g;
    fa_graph *cg = capture_graph_known(f, sid);
    if (n != (size_t)f->s[sid].ndeps)
        fa_fail(f, "grStreamGetCaptureInfo: %zu dependencies, the model %d", n, f->s[sid].ndeps);
    for (size_t i = 0; i < n; i++)
        if (deps[i] != cg->node[f->s[sid].deps[i]].h)
            fa_fail(f, "grStreamGetCaptureInfo: dependency %zu is %p, the model says %p", i, (void *)deps[i],
                    (void *)cg->node[f->s[sid].deps[i]].h);
}

static void update_deps(fa *f)
{
    int sid = fa_pick_stream(f, false);
    grStream_t s = fa_stream_handle(f, sid);
    int k = fa_capture_of(f, sid);
    grGraphNode_t nodes[FA_NODES + 1];
    uint8_t idx[FA_NODES];
    int n = 0;
    unsigned flags = fa_pct(f, 50) ? grStreamAddCaptureDependencies : grStreamSetCaptureDependencies;
    if (k < 0) {
        fa_bad(f, FA_CALL(f, grStreamUpdateCaptureDependencies(s, NULL, NULL, 0, flags)),
               sid == FA_SID_LEGACY && fa_blocking_capture(f) ? -1 : grErrorIllegalState);
        return;
    }
    if (f->cap[k].invalidated) {
        fa_bad(f, FA_CALL(f, grStreamUpdateCaptureDependencies(s, NULL, NULL, 0, flags)),
               grErrorStreamCaptureInvalidated);
        return;
    }
    fa_graph *g = capture_graph_known(f, sid);
    int want_n = (int)fa_rand(f, 4);
    for (int tries = 0; tries < 8 && n < want_n && g->nlive; tries++) {
        int i = (int)fa_rand(f, (uint32_t)g->nn);
        if (!g->node[i].live)
            continue;
        idx[n] = (uint8_t)i;
        nodes[n++] = g->node[i].h;
    }
    bool bad = false;
    if (fa_pct(f, 10)) {
        bad = true;
        switch (fa_rand(f, 3)) {
        case 0:
            flags = 2 + fa_rand(f, 8);
            break;
        case 1: {
            /* A node of another graph. */
            fa_graph *o = fa_pick_graph(f, true, false);
            int oi = -1;
            if (o)
                for (int i = 0; i < o->nn; i++)
                    if (o->node[i].live && o->node[i].h)
                        oi = i;
            if (oi < 0)
                return;
            nodes[n++] = o->node[oi].h;
            break;
        }
        default:
            fa_bad(f, FA_CALL(f, grStreamUpdateCaptureDependencies(s, NULL, NULL, 1 + fa_rand(f, 2), flags)),
                   grErrorInvalidValue);
            return;
        }
    }
    grError_t err = FA_CALL(f, grStreamUpdateCaptureDependencies(s, nodes, NULL, (size_t)n, flags));
    if (bad) {
        fa_bad(f, err, grErrorInvalidValue);
        return;
    }
    fa_ok(f, err);
    fa_stream *st = &f->s[sid];
    if (flags == grStreamSetCaptureDependencies)
        st->ndeps = 0;
    for (int i = 0; i < n; i++) {
        int j;
        for (j = 0; j < st->ndeps && st->deps[j] != idx[i]; j++)
            ;
        if (j == st->ndeps)
            st->deps[st->ndeps++] = idx[i];
    }
}

static void exchange_mode(fa *f)
{
    grStreamCaptureMode m;
    if (fa_pct(f, 10)) {
        if (fa_pct(f, 50)) {
            fa_bad(f, FA_CALL(f, grThreadExchangeStreamCaptureMode(NULL)), grErrorInvalidValue);
        } else {
            m = (grStreamCaptureMode)(3 + fa_rand(f, 5));
            fa_bad(f, FA_CALL(f, grThreadExchangeStreamCaptureMode(&m)), grErrorInvalidValue);
        }
        return;
    }
    m = f->mt ? (fa_pct(f, 50) ? grStreamCaptureModeThreadLocal : grStreamCaptureModeRelaxed)
              : (grStreamCaptureMode)fa_rand(f, 3);
    grStreamCaptureMode want_old = f->tmode, set = m;
    fa_ok(f, FA_CALL(f, grThreadExchangeStreamCaptureMode(&m)));
    if (m != want_old)
        fa_fail(f, "grThreadExchangeStreamCaptureMode gave back mode %d, the thread's mode was %d", (int)m,
                (int)want_old);
    f->tmode = set;
}

/* grFreeAsync on a capturing stream: a free node, checked as
 * grGraphAddMemFreeNode checks one. */
static void captured_free(fa *f)
{
    if (!fa_gm_ok(f))
        return;
    int sid = fa_pick_stream(f, false);
    int k = fa_capture_of(f, sid);
    if (k < 0 || f->cap[k].invalidated || fa_capture_full(f, sid))
        return;
    int gi = (int)fa_rand(f, FA_GMEM);
    fa_gmem *m = &f->gm[gi];
    if (!m->used)
        return;
    fa_capture *c = &f->cap[k];
    fa_stream *s = &f->s[sid];
    bool ok;
    if (m->g == c->g) {
        bool reach = false;
        for (int d = 0; d < s->ndeps && !reach; d++) {
            /* Does deps[d] follow the alloc node? */
            uint8_t seen[FA_NODES] = {0}, stack[FA_NODES];
            int top = 0;
            stack[top++] = s->deps[d];
            while (top && !reach) {
                int x = stack[--top];
                if (x == m->node)
                    reach = true;
                for (int j = 0; j < c->g->node[x].ndeps; j++)
                    if (!seen[c->g->node[x].deps[j]]) {
                        seen[c->g->node[x].deps[j]] = 1;
                        stack[top++] = c->g->node[x].deps[j];
                    }
            }
        }
        /* Never once another graph got a free node for it. */
        ok = !fa_graph_frees(c->g, m->ptr) && reach && !m->freed_elsewhere;
    } else {
        /* Another graph's allocation that its graph does not free (that
         * graph may be gone: its executable keeps the allocation). */
        ok = true; /* decided below: either */
    }
    /* An allocation this graph frees already is refused, own or not. */
    ok = ok && !fa_graph_frees(c->g, m->ptr);
    grError_t err = FA_CALL(f, grFreeAsync(m->ptr, fa_stream_handle(f, sid)));
    if (ok && (m->g != c->g || (!m->g && m->exec < 0))) {
        /* Kept, or not, by a destroyed executable. */
        if (!fa_either(f, err))
            return;
    } else if (!ok) {
        fa_bad(f, err, grErrorInvalidValue);
        return;
    } else {
        fa_ok(f, err);
    }
    fa_params p;
    memset(&p, 0, sizeof p);
    p.dst.blk = p.src.blk = -1;
    p.dst.raw = m->ptr;
    p.gm = gi;
    fa_capture_node(f, sid, grGraphNodeTypeMemFree, &p);
}

void fa_capture_step(fa *f)
{
    uint32_t k = fa_rand(f, 100);
    if (k < 22)
        begin(f);
    else if (k < 40) {
        /* Mostly the origins, so that captures end. */
        int sid = -1;
        for (int c = 0; c < FA_CAPS && sid < 0; c++)
            if (f->cap[c].active && fa_pct(f, 70))
                sid = f->cap[c].origin;
        end(f, sid);
    } else if (k < 65)
        queries(f);
    else if (k < 78)
        update_deps(f);
    else if (k < 86)
        exchange_mode(f);
    else
        captured_free(f);
}

void fa_capture_teardown(fa *f)
{
    for (int k = 0; k < FA_CAPS; k++)
        if (f->cap[k].active)
            end(f, f->cap[k].origin);
    if (f->tmode != grStreamCaptureModeGlobal) {
        grStreamCaptureMode m = grStreamCaptureModeGlobal;
        fa_ok(f, FA_CALL(f, grThreadExchangeStreamCaptureMode(&m)));
        f->tmode = grStreamCaptureModeGlobal;
    }
}
