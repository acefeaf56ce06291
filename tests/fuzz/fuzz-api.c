/*
 * fuzz-api.c - the API fuzzer's driver: the case loop and its threads, the
 * result checks every call goes through, and the steps on streams,
 * events, kernels and eager work (fuzz-api-mem.c has memory and pools,
 * fuzz-api-graph.c graphs, fuzz-api-exec.c executables, fuzz-api-capture.c
 * stream capture).
 *
 * A case starts from a fresh runtime (grDeviceReset), creates a few of
 * every kind of object, runs --steps steps, then synchronises, checks
 * everything the model knows one last time and destroys everything. With
 * --threads N the threads run their own cases on their own objects and
 * also share two streams, a pool and two executables that write shared
 * blocks; they meet at a barrier every few hundred steps so that thread 0
 * can check the shared blocks (the TSan target).
 */
#include "fuzz-api.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ----------------------------------------------------------------- kernels */

/* The linear index of a thread in the whole grid, so that every shape of
 * grid and block covers each element once. */
static size_t lin(const grKernelCtx *c, unsigned tx, unsigned ty, unsigned tz)
{
    size_t b = ((size_t)c->blockIdx.z * c->gridDim.y + c->blockIdx.y) * c->gridDim.x + c->blockIdx.x;
    size_t per = (size_t)c->blockDim.x * c->blockDim.y * c->blockDim.z;
    return b * per + ((size_t)tz * c->blockDim.y + ty) * c->blockDim.x + tx;
}

/* For each word index i below n that the grid's threads cover: d's word i
 * becomes op(w, i, v), w being src's word i (0 where src is NULL). */
static void each_word(const grKernelCtx *c, uint8_t *d, const uint8_t *src, uint32_t n, uint32_t v,
                      uint32_t (*op)(uint32_t w, size_t i, uint32_t v))
{
    GR_FOR_THREADS(c, tx, ty, tz)
    {
        size_t i = lin(c, tx, ty, tz);
        if (i < n) {
            uint32_t w = 0;
            if (src)
                memcpy(&w, src + 4 * i, 4);
            w = op(w, i, v);
            memcpy(d + 4 * i, &w, 4);
        }
    }
}

static uint32_t fill_word(uint32_t w, size_t i, uint32_t v)
{
    (void)w;
    return v + (uint32_t)i * 0x9e3779b9u;
}

static uint32_t add_word(uint32_t w, size_t i, uint32_t v)
{
    (void)i;
    return w + v;
}

static uint32_t xform_word(uint32_t w, size_t i, uint32_t v)
{
    (void)i;
    return w * 3u + v;
}

/* (d, n, v): d's words filled from v. */
static void k_fill(const grKernelCtx *c, void **a)
{
    each_word(c, *(uint8_t **)a[0], NULL, *(uint32_t *)a[1], *(uint32_t *)a[2], fill_word);
}

/* (d, n, v): v added to each of d's words. */
static void k_add(const grKernelCtx *c, void **a)
{
    uint8_t *d = *(uint8_t **)a[0];
    each_word(c, d, d, *(uint32_t *)a[1], *(uint32_t *)a[2], add_word);
}

/* (d, s, n, v): d's words from s's, times 3 plus v. */
static void k_xform(const grKernelCtx *c, void **a)
{
    each_word(c, *(uint8_t **)a[0], *(const uint8_t **)a[1], *(uint32_t *)a[2], *(uint32_t *)a[3],
              xform_word);
}

static void k_blob(const grKernelCtx *c, void **a)
{
    uint8_t *d = *(uint8_t **)a[0];
    const uint8_t *blob = a[1];
    uint32_t v = *(uint32_t *)a[2];
    /* One block writes: the blob is 16 words. */
    if (c->blockIdx.x || c->blockIdx.y || c->blockIdx.z)
        return;
    for (int i = 0; i < 16; i++) {
        uint32_t w;
        memcpy(&w, blob + 4 * i, 4);
        w ^= v;
        memcpy(d + 4 * i, &w, 4);
    }
}

static void k_nop(const grKernelCtx *c, void **a)
{
    (void)c;
    (void)a;
}

const grKernelFn fa_kernel_fns[FK_COUNT] = {k_fill, k_add, k_xform, k_blob, k_nop};
const int fa_kernel_nparams[FK_COUNT] = {3, 3, 4, 3, 0};
const size_t fa_kernel_sizes[FK_COUNT][4] = {{sizeof(void *), 4, 4},
                                             {sizeof(void *), 4, 4},
                                             {sizeof(void *), sizeof(void *), 4, 4},
                                             {sizeof(void *), 64, 4},
                                             {0}};

void fa_host_count(void *p)
{
    atomic_fetch_add((_Atomic uint64_t *)p, 1);
}

void fa_host_other(void *p)
{
    atomic_fetch_add((_Atomic uint64_t *)p, 1);
}

/* ------------------------------------------------------------------ checks */

_Noreturn void fa_fail(fa *f, const char *fmt, ...)
{
    /* What the model believes of streams and captures: most mismatches
     * are about them. */
    for (int sid = 0; sid < FA_NSID; sid++)
        if (f->s[sid].live || sid == FA_SID_PT)
            fprintf(stderr, "  model: stream id %d %p%s, capture %d, %d deps\n", sid, (void *)f->s[sid].h,
                    f->s[sid].nonblocking ? " non-blocking" : "", f->s[sid].cap, f->s[sid].ndeps);
    for (int k = 0; k < FA_CAPS; k++)
        if (f->cap[k].active)
            fprintf(stderr, "  model: capture %d from stream id %d, mode %d%s%s%s, %d nodes\n", k,
                    f->cap[k].origin, (int)f->cap[k].mode, f->cap[k].invalidated ? ", invalidated" : "",
                    f->cap[k].to_graph ? ", into a graph" : "", f->cap[k].tainted ? ", tainted" : "",
                    f->cap[k].g->nlive);
    fprintf(stderr, "  model: thread capture mode %d\n", (int)f->tmode);
    for (int e = 0; e < FA_EVENTS; e++)
        if (f->ev[e].live)
            fprintf(stderr, "  model: event %d %p state %d capture %d stream %d%s\n", e, (void *)f->ev[e].h,
                    (int)f->ev[e].state, f->ev[e].cap, f->ev[e].sid, f->ev[e].waitn ? " (wait nodes)" : "");
    for (int i = 0; i < FA_GMEM; i++)
        if (f->gm[i].used)
            fprintf(stderr,
                    "  model: graph allocation %d at %p, %zu bytes, graph %s, node %d%s, allocated by exec "
                    "%d, mapped by %d\n",
                    i, f->gm[i].ptr, f->gm[i].size, f->gm[i].g ? "live" : "gone", f->gm[i].node,
                    f->gm[i].freed_in_graph ? ", freed in its graph" : "", f->gm[i].alloc_by, f->gm[i].exec);
    for (int i = 0; i < FA_EXECS; i++)
        if (f->x[i])
            fprintf(stderr, "  model: exec %d %p, %d plan nodes%s%s\n", i, (void *)f->x[i]->h, f->x[i]->nx,
                    f->x[i]->has_mem ? ", graph memory" : "", f->x[i]->autofree ? ", auto-free" : "");
    va_list ap;
    va_start(ap, fmt);
    fz_vfail(f->c, fmt, ap);
}

void fa_ok(fa *f, grError_t err)
{
    char name[128];
    f->n_ok++;
    if (err != grSuccess)
        fa_fail(f, "%s returned %s where the model expects grSuccess: %s",
                fz_call_name(atomic_load_explicit(&f->c->call, memory_order_relaxed), name, sizeof name),
                grGetErrorName(err), grGetLastErrorDetail());
}

void fa_bad(fa *f, grError_t err, int want)
{
    char name[128];
    f->n_err++;
    const char *call =
        fz_call_name(atomic_load_explicit(&f->c->call, memory_order_relaxed), name, sizeof name);
    if (err == grSuccess)
        fa_fail(f, "%s returned grSuccess where the model expects %s (%s)", call,
                want < 0 ? "a failure" : grGetErrorName((grError_t)want), f->why);
    if (want >= 0 && err != (grError_t)want)
        fa_fail(f, "%s returned %s where the model expects %s (%s): %s", call, grGetErrorName(err),
                grGetErrorName((grError_t)want), f->why, grGetLastErrorDetail());
    f->why[0] = '\0';
    if (err != grErrorNotReady) {
        fz_check_detail(f->c, err);
        f->last_err = err;
    }
}

bool fa_either(fa *f, grError_t err)
{
    if (err == grSuccess) {
        f->n_ok++;
        return true;
    }
    fa_bad(f, err, -1);
    return false;
}

/* ----------------------------------------------------------------- streams */

grStream_t fa_stream_handle(fa *f, int sid)
{
    if (sid == FA_SID_LEGACY)
        return fa_pct(f, 50) ? NULL : grStreamLegacy;
    if (sid == FA_SID_PT)
        return grStreamPerThread;
    return f->s[sid].h;
}

bool fa_stream_usable(fa *f, int sid)
{
    if (sid == FA_SID_LEGACY || sid == FA_SID_PT)
        return true;
    return f->s[sid].live;
}

bool fa_blocking(fa *f, int sid)
{
    if (sid == FA_SID_LEGACY)
        return false; /* the legacy stream itself is not "a blocking stream" */
    return !f->s[sid].nonblocking;
}

int fa_capture_of(fa *f, int sid)
{
    if (sid == FA_SID_LEGACY)
        return -1;
    return f->s[sid].cap;
}

bool fa_blocking_capture(fa *f)
{
    for (int sid = 0; sid < FA_NSID; sid++)
        if (sid != FA_SID_LEGACY && f->s[sid].cap >= 0 && !f->s[sid].nonblocking)
            return true;
    return false;
}

/* A live stream; eager_only: one that is not in a capture. */
int fa_pick_stream(fa *f, bool eager_only)
{
    for (int tries = 0; tries < 16; tries++) {
        int sid = (int)fa_rand(f, f->mt ? FA_NSID : FA_SID_PT + 1);
        if (!fa_stream_usable(f, sid))
            continue;
        if (eager_only && fa_capture_of(f, sid) >= 0)
            continue;
        return sid;
    }
    return FA_SID_LEGACY;
}

void fa_synced_stream(fa *f, int sid)
{
    int k = 0;
    /* Pool blocks allocated on it are ready for every stream now. */
    for (int b = 0; b < FA_BLOCKS; b++)
        if (f->b[b].live && f->b[b].kind == FB_ASYNC && f->b[b].sid == sid)
            f->b[b].sid = -1;
    for (int i = 0; i < f->npend; i++)
        if (f->pend[i].sid != sid)
            f->pend[k++] = f->pend[i];
    f->npend = k;
}

void fa_synced_all(fa *f)
{
    f->npend = 0;
    for (int b = 0; b < FA_BLOCKS; b++)
        if (f->b[b].live && f->b[b].kind == FB_ASYNC)
            f->b[b].sid = -1;
    for (int i = 0; i < FA_HOSTC; i++)
        f->hc_min[i] = f->hc_max[i];
    for (int i = 0; i < FA_HOSTC; i++) {
        uint64_t v = atomic_load(&f->hc[i]);
        if (v != f->hc_max[i])
            fa_fail(f,
                    "host counter %d is %" PRIu64 " after a full synchronisation, the model counts %" PRIu64
                    " runs of host functions and host nodes on it",
                    i, v, f->hc_max[i]);
    }
}

static void check_host_counters(fa *f)
{
    for (int i = 0; i < FA_HOSTC; i++) {
        uint64_t v = atomic_load(&f->hc[i]);
        if (v < f->hc_min[i] || v > f->hc_max[i])
            fa_fail(f, "host counter %d is %" PRIu64 ", the model says between %" PRIu64 " and %" PRIu64, i,
                    v, f->hc_min[i], f->hc_max[i]);
    }
}

static int free_stream_slot(fa *f)
{
    for (int i = 0; i < FA_STREAMS; i++)
        if (!f->s[i].live)
            return i;
    return -1;
}

static void stream_create(fa *f)
{
    int i = free_stream_slot(f);
    grStream_t h = NULL;
    unsigned flags = fa_pct(f, 50) ? grStreamNonBlocking : grStreamDefault;
    if (i < 0 || fa_pct(f, 10)) {
        /* Bad: NULL output or unknown flag bits. */
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grStreamCreateWithFlags(NULL, flags)), grErrorInvalidValue);
        else if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grStreamCreate(NULL)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grStreamCreateWithFlags(&h, 2u << fa_rand(f, 30))), grErrorInvalidValue);
        return;
    }
    /* Several threads: non-blocking only, so that a capture of this
     * thread never makes another thread's legacy-stream work illegal. */
    if (f->mt)
        flags = grStreamNonBlocking;
    if (flags == grStreamDefault && fa_pct(f, 50))
        fa_ok(f, FA_CALL(f, grStreamCreate(&h)));
    else
        fa_ok(f, FA_CALL(f, grStreamCreateWithFlags(&h, flags)));
    f->s[i] = (fa_stream){.h = h, .live = true, .nonblocking = flags != 0, .cap = -1};
}

static void stream_destroy(fa *f)
{
    int sid = (int)fa_rand(f, FA_STREAMS);
    if (!f->s[sid].live) {
        int k = (int)fa_rand(f, 3);
        if (k == 0)
            fa_bad(f, FA_CALL(f, grStreamDestroy(NULL)), grErrorInvalidResourceHandle);
        else if (k == 1)
            fa_bad(f, FA_CALL(f, grStreamDestroy(fa_pct(f, 50) ? grStreamLegacy : grStreamPerThread)),
                   grErrorInvalidResourceHandle);
        else if (f->dead_stream && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grStreamDestroy(f->dead_stream)), grErrorInvalidResourceHandle);
        return;
    }
    if (f->s[sid].cap >= 0) {
        fa_bad(f, FA_CALL(f, grStreamDestroy(f->s[sid].h)), grErrorStreamCaptureUnsupported);
        return;
    }
    /* Several threads: nothing synchronises the whole device, so a
     * destroyed stream's work must be known complete first. And
     * dying-stream: a stream destroyed with work queued stays on the
     * registry after it is freed (legacy-stream work, device
     * synchronisation and grFree then use it). */
    if (f->mt || !fa_allowed(f, FZ_ALLOW_DYING_STREAM)) {
        if (fa_unsafe(f, FU_STREAM_SYNC, sid, -1, false))
            return;
        fa_ok(f, FA_CALL(f, grStreamSynchronize(f->s[sid].h)));
        fa_synced_stream(f, sid);
    }
    fa_ok(f, FA_CALL(f, grStreamDestroy(f->s[sid].h)));
    f->dead_stream = f->s[sid].h;
    f->s[sid].live = false;
    /* Its queued work still runs: its pending accesses stay until a full
     * synchronisation, under an id no live stream has. */
    for (int i = 0; i < f->npend; i++)
        if (f->pend[i].sid == sid)
            f->pend[i].sid = FA_NSID;
}

/* grStreamSynchronize / grStreamQuery / grStreamGetFlags. */
static void stream_query_step(fa *f)
{
    int sid = fa_pick_stream(f, false);
    grStream_t h = fa_stream_handle(f, sid);
    int k = (int)fa_rand(f, 10);
    if (k < 4) {
        int want = fa_unsafe(f, FU_STREAM_SYNC, sid, -1, false);
        grError_t err = FA_CALL(f, grStreamSynchronize(h));
        if (want) {
            fa_unsafe(f, FU_STREAM_SYNC, sid, -1, true);
            fa_bad(f, err, want);
            return;
        }
        fa_ok(f, err);
        fa_synced_stream(f, sid);
    } else if (k < 7) {
        int want = fa_unsafe(f, FU_STREAM_QUERY, sid, -1, false);
        grError_t err = FA_CALL(f, grStreamQuery(h));
        if (want) {
            fa_unsafe(f, FU_STREAM_QUERY, sid, -1, true);
            fa_bad(f, err, want);
            return;
        }
        if (err == grErrorNotReady)
            return;
        fa_ok(f, err);
        fa_synced_stream(f, sid);
    } else if (k < 9) {
        unsigned flags = 0xdead;
        if (fa_pct(f, 15)) {
            fa_bad(f, FA_CALL(f, grStreamGetFlags(h, NULL)), grErrorInvalidValue);
            return;
        }
        fa_ok(f, FA_CALL(f, grStreamGetFlags(h, &flags)));
        unsigned want = sid < FA_STREAMS || sid >= FA_SID_SHARED ? (f->s[sid].nonblocking ? 1u : 0u) : 0u;
        if (flags != want)
            fa_fail(f, "grStreamGetFlags of stream id %d returned 0x%x, created with 0x%x", sid, flags, want);
    } else {
        /* Handles that are no streams. */
        /* wrong-kind-handles: another object's handle; else memory of
         * the fuzzer's, aligned as a stream. */
        grStream_t wrong = f->ev[0].live && fa_allowed(f, FZ_ALLOW_WRONG_KIND)
                               ? (grStream_t)(void *)f->ev[0].h
                               : (grStream_t)(void *)f->fake;
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grStreamSynchronize(wrong)), grErrorInvalidResourceHandle);
        else if (f->dead_stream && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grStreamQuery(f->dead_stream)), grErrorInvalidResourceHandle);
        else
            fa_bad(f, FA_CALL(f, grStreamQuery(wrong)), grErrorInvalidResourceHandle);
    }
}

/* ------------------------------------------------------------------ events */

static int pick_event(fa *f, bool waitn)
{
    for (int tries = 0; tries < 8; tries++) {
        int e = (int)fa_rand(f, FA_EVENTS);
        if (f->ev[e].live && f->ev[e].waitn == waitn)
            return e;
    }
    return -1;
}

static void event_create(fa *f)
{
    int e;
    for (e = 0; e < FA_EVENTS && f->ev[e].live; e++)
        ;
    grEvent_t h = NULL;
    if (e == FA_EVENTS || fa_pct(f, 10)) {
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grEventCreate(NULL)), grErrorInvalidValue);
        else if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grEventCreateWithFlags(NULL, 0)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grEventCreateWithFlags(&h, 4u << fa_rand(f, 28))), grErrorInvalidValue);
        return;
    }
    static const unsigned flags[] = {grEventDefault, grEventDisableTiming, grEventBlockingSync,
                                     grEventBlockingSync | grEventDisableTiming};
    unsigned fl = flags[fa_rand(f, 4)];
    if (fl == 0 && fa_pct(f, 50))
        fa_ok(f, FA_CALL(f, grEventCreate(&h)));
    else
        fa_ok(f, FA_CALL(f, grEventCreateWithFlags(&h, fl)));
    f->ev[e] = (fa_event){
        .h = h, .live = true, .flags = fl, .waitn = e % 4 == 3, .state = EV_NEVER, .cap = -1, .sid = -1};
}

static void event_destroy(fa *f)
{
    int e = (int)fa_rand(f, FA_EVENTS);
    if (!f->ev[e].live) {
        if (f->dead_event && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grEventDestroy(f->dead_event)), grErrorInvalidResourceHandle);
        else
            fa_bad(f, FA_CALL(f, grEventDestroy(NULL)), grErrorInvalidResourceHandle);
        return;
    }
    /* An event recorded in a capture in progress is the capture's
     * business; destroying it is allowed (the capture keeps a reference),
     * but the model would lose the mark: keep it. */
    if (f->ev[e].state == EV_CAPTURED)
        return;
    fa_ok(f, FA_CALL(f, grEventDestroy(f->ev[e].h)));
    f->dead_event = f->ev[e].h;
    f->ev[e].live = false;
}

static void event_record(fa *f)
{
    int e = pick_event(f, fa_pct(f, 20));
    int sid = fa_pick_stream(f, false);
    if (e < 0)
        return;
    fa_event *ev = &f->ev[e];
    grStream_t h = fa_stream_handle(f, sid);
    if (fa_pct(f, 8)) {
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grEventRecord(NULL, h)), grErrorInvalidResourceHandle);
        else
            fa_bad(f, FA_CALL(f, grEventRecord(ev->h, (grStream_t)(void *)f->fake)),
                   grErrorInvalidResourceHandle);
        return;
    }
    int k = fa_capture_of(f, sid);
    if (ev->waitn) {
        /* Wait nodes wait for the record that is the latest when they
         * run: a record queued behind a launch that waits on it would
         * wait for itself. So these events are recorded on an idle stream
         * of this thread, outside captures, and synchronised at once. */
        /* Non-blocking streams only: a record on the legacy stream (or a
         * blocking one) waits for earlier work of blocking streams (or of
         * the legacy stream), which may be a launch waiting on it. */
        if (k >= 0 || sid >= FA_STREAMS || !f->s[sid].nonblocking ||
            fa_unsafe(f, FU_EVENT_SYNC, -1, e, false) || fa_unsafe(f, FU_STREAM_SYNC, sid, -1, false))
            return;
        fa_ok(f, FA_CALL(f, grStreamSynchronize(h)));
        fa_synced_stream(f, sid);
    }
    if (k >= 0) {
        grError_t err = FA_CALL(f, grEventRecord(ev->h, h));
        if (f->cap[k].invalidated) {
            fa_bad(f, err, grErrorStreamCaptureInvalidated);
            return;
        }
        fa_ok(f, err);
        fa_event_record_capture(f, e, sid);
        return;
    }
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f)) {
        fa_bad(f, FA_CALL(f, grEventRecord(ev->h, h)), grErrorStreamCaptureImplicit);
        fa_unsafe(f, FU_SYNC_COPY, sid, -1, true);
        return;
    }
    fa_ok(f, FA_CALL(f, grEventRecord(ev->h, h)));
    ev->state = EV_PLAIN;
    ev->sid = sid;
    ev->timed = !(ev->flags & grEventDisableTiming);
    if (ev->waitn) {
        /* Wait nodes must never wait for work that waits for them: their
         * events are complete whenever a wait node can run. */
        fa_ok(f, FA_CALL(f, grEventSynchronize(ev->h)));
        fa_synced_stream(f, sid);
    }
}

static void event_wait(fa *f)
{
    int e = pick_event(f, false);
    int sid = fa_pick_stream(f, false);
    if (e < 0)
        return;
    fa_event *ev = &f->ev[e];
    grStream_t h = fa_stream_handle(f, sid);
    if (fa_pct(f, 8)) {
        int k = (int)fa_rand(f, 3);
        if (k == 0)
            fa_bad(f, FA_CALL(f, grStreamWaitEvent(h, ev->h, 2u + fa_rand(f, 7))), grErrorInvalidValue);
        else if (k == 1)
            fa_bad(f, FA_CALL(f, grStreamWaitEvent(h, NULL, 0)), grErrorInvalidResourceHandle);
        else if (f->dead_event && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grStreamWaitEvent(h, f->dead_event, 0)), grErrorInvalidResourceHandle);
        return;
    }
    int k = fa_capture_of(f, sid);
    /* Several threads: a shared stream must never join a capture (other
     * threads' work on it would be captured). */
    if (sid >= FA_SID_SHARED && ev->state == EV_CAPTURED)
        return;
    /* Several threads: no blocking stream may join a capture either. */
    if (f->mt && ev->state == EV_CAPTURED && fa_blocking(f, sid))
        return;
    grError_t err = FA_CALL(f, grStreamWaitEvent(h, ev->h, 0));
    if (k < 0) {
        switch (ev->state) {
        case EV_NEVER:
        case EV_PLAIN:
            if (sid == FA_SID_LEGACY && fa_blocking_capture(f)) {
                fa_bad(f, err, grErrorStreamCaptureImplicit);
                fa_unsafe(f, FU_SYNC_COPY, sid, -1, true);
                return;
            }
            fa_ok(f, err);
            return;
        case EV_ENDED:
            fa_bad(f, err, grErrorInvalidValue);
            return;
        case EV_CAPTURED: {
            fa_capture *c = &f->cap[ev->cap];
            if (sid == FA_SID_LEGACY) {
                fa_bad(f, err, grErrorStreamCaptureUnsupported);
                fa_capture_invalidate(f, ev->cap);
                return;
            }
            if (c->invalidated) {
                fa_bad(f, err, grErrorStreamCaptureInvalidated);
                return;
            }
            fa_ok(f, err);
            /* Fork: the stream joins the capture after the event's nodes. */
            f->s[sid].cap = ev->cap;
            memcpy(f->s[sid].deps, ev->deps, (size_t)ev->ndeps);
            f->s[sid].ndeps = ev->ndeps;
            return;
        }
        }
        return;
    }
    fa_capture *c = &f->cap[k];
    if (c->invalidated) {
        fa_bad(f, err, grErrorStreamCaptureInvalidated);
        return;
    }
    switch (ev->state) {
    case EV_NEVER:
        fa_ok(f, err);
        return;
    case EV_PLAIN:
        fa_bad(f, err, grErrorStreamCaptureIsolation);
        fa_capture_invalidate(f, k);
        return;
    case EV_ENDED:
        fa_bad(f, err, grErrorInvalidValue);
        fa_capture_invalidate(f, k);
        return;
    case EV_CAPTURED:
        if (ev->cap != k) {
            fa_bad(f, err, grErrorStreamCaptureMerge);
            fa_capture_invalidate(f, k);
            fa_capture_invalidate(f, ev->cap);
            return;
        }
        fa_ok(f, err);
        /* Union, keeping the stream's own nodes first, as graphrt does. */
        for (int i = 0; i < ev->ndeps; i++) {
            int j;
            for (j = 0; j < f->s[sid].ndeps && f->s[sid].deps[j] != ev->deps[i]; j++)
                ;
            if (j == f->s[sid].ndeps && f->s[sid].ndeps < FA_NODES)
                f->s[sid].deps[f->s[sid].ndeps++] = ev->deps[i];
        }
        return;
    }
}

static void event_query_step(fa *f)
{
    int e = pick_event(f, fa_pct(f, 20));
    if (e < 0)
        return;
    fa_event *ev = &f->ev[e];
    int k = (int)fa_rand(f, 10);
    if (k < 4) {
        int want = fa_unsafe(f, FU_EVENT_QUERY, -1, e, false);
        grError_t err = FA_CALL(f, grEventQuery(ev->h));
        if (want) {
            fa_unsafe(f, FU_EVENT_QUERY, -1, e, true);
            fa_bad(f, err, want);
        } else if (ev->state == EV_ENDED) {
            fa_bad(f, err, grErrorInvalidValue);
        } else if (err != grErrorNotReady) {
            fa_ok(f, err);
            if (ev->state == EV_NEVER)
                return;
        }
    } else if (k < 8) {
        int want = fa_unsafe(f, FU_EVENT_SYNC, -1, e, false);
        grError_t err = FA_CALL(f, grEventSynchronize(ev->h));
        if (want) {
            fa_unsafe(f, FU_EVENT_SYNC, -1, e, true);
            fa_bad(f, err, want);
        } else if (ev->state == EV_ENDED) {
            fa_bad(f, err, grErrorInvalidValue);
        } else {
            fa_ok(f, err);
        }
    } else {
        /* Elapsed time: only the refusals and one sure success. */
        int e2 = pick_event(f, false);
        float ms = -1;
        if (e2 < 0)
            return;
        fa_event *b = &f->ev[e2];
        if (ev->state == EV_ENDED || b->state == EV_ENDED || ev->state == EV_CAPTURED ||
            b->state == EV_CAPTURED)
            return;
        if (fa_pct(f, 20)) {
            fa_bad(f, FA_CALL(f, grEventElapsedTime(NULL, ev->h, b->h)), grErrorInvalidValue);
            return;
        }
        if ((ev->flags & grEventDisableTiming) || (ev->state == EV_NEVER)) {
            fa_bad(f, FA_CALL(f, grEventElapsedTime(&ms, ev->h, b->h)), grErrorInvalidResourceHandle);
            return;
        }
        if (!ev->timed || !b->timed || ev->sid < 0 || b->sid < 0 || fa_capture_of(f, ev->sid) >= 0 ||
            fa_capture_of(f, b->sid) >= 0)
            return;
        if (fa_unsafe(f, FU_EVENT_SYNC, -1, e, false) || fa_unsafe(f, FU_EVENT_SYNC, -1, e2, false))
            return;
        fa_ok(f, FA_CALL(f, grEventSynchronize(ev->h)));
        fa_ok(f, FA_CALL(f, grEventSynchronize(b->h)));
        grError_t err = FA_CALL(f, grEventElapsedTime(&ms, ev->h, b->h));
        if (err == grErrorNotReady)
            return; /* re-recorded by a graph launch meanwhile: its stamp is pending */
        fa_ok(f, err);
        if (ms != ms || ms > 1e6f || ms < -1e6f)
            fa_fail(f, "grEventElapsedTime gave %g ms", (double)ms);
    }
}

/* ----------------------------------------------------------------- kernels */

static void kernel_create(fa *f)
{
    int i;
    for (i = 0; i < FA_KERNELS && f->k[i].live; i++)
        ;
    grKernel_t h = NULL;
    fa_kkind kind = (fa_kkind)fa_rand(f, FK_COUNT);
    char name[48];
    snprintf(name, sizeof name, "fz_t%u_k%u", f->thread, f->kname_next++);
    int np = fa_kernel_nparams[kind];
    const size_t *sizes = np ? fa_kernel_sizes[kind] : NULL;
    if (i == FA_KERNELS || fa_pct(f, 12)) {
        size_t bad_sizes[4] = {8, 0, 4, 4};
        size_t big[2] = {8, 4097};
        switch (fa_rand(f, 7)) {
        case 0:
            fa_bad(f, FA_CALL(f, grKernelCreate(NULL, fa_kernel_fns[kind], name, np, sizes)),
                   grErrorInvalidValue);
            break;
        case 1:
            fa_bad(f, FA_CALL(f, grKernelCreate(&h, NULL, name, np, sizes)), grErrorInvalidValue);
            break;
        case 2:
            fa_bad(f,
                   FA_CALL(f, grKernelCreate(&h, fa_kernel_fns[kind], fa_pct(f, 50) ? "" : NULL, np, sizes)),
                   grErrorInvalidValue);
            break;
        case 3:
            fa_bad(f,
                   FA_CALL(f, grKernelCreate(&h, fa_kernel_fns[kind], name, fa_pct(f, 50) ? -1 : 65, sizes)),
                   grErrorInvalidValue);
            break;
        case 4:
            fa_bad(f, FA_CALL(f, grKernelCreate(&h, fa_kernel_fns[kind], name, 2, NULL)),
                   grErrorInvalidValue);
            break;
        case 5:
            fa_bad(f,
                   FA_CALL(f, grKernelCreate(&h, fa_kernel_fns[kind], name, fa_pct(f, 50) ? 2 : 4,
                                             fa_pct(f, 50) ? bad_sizes : big)),
                   grErrorInvalidValue);
            break;
        default: {
            /* A name a live kernel has. */
            int j = (int)fa_rand(f, FA_KERNELS);
            if (f->k[j].live)
                fa_bad(f, FA_CALL(f, grKernelCreate(&h, fa_kernel_fns[kind], f->k[j].name, np, sizes)),
                       grErrorInvalidValue);
            break;
        }
        }
        return;
    }
    fa_ok(f, FA_CALL(f, grKernelCreate(&h, fa_kernel_fns[kind], name, np, sizes)));
    f->k[i].h = h;
    f->k[i].live = true;
    f->k[i].kind = kind;
    snprintf(f->k[i].name, sizeof f->k[i].name, "%s", name);
}

static void kernel_destroy(fa *f)
{
    int i = (int)fa_rand(f, FA_KERNELS);
    if (!f->k[i].live) {
        if (f->dead_kernel && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grKernelDestroy(f->dead_kernel)), grErrorInvalidDeviceFunction);
        else
            fa_bad(f, FA_CALL(f, grKernelDestroy(fa_pct(f, 50) ? NULL : (grKernel_t)(void *)f->fake)),
                   grErrorInvalidDeviceFunction);
        return;
    }
    /* Graphs, executables and queued launches keep their own reference. */
    fa_ok(f, FA_CALL(f, grKernelDestroy(f->k[i].h)));
    f->dead_kernel = f->k[i].h;
    f->k[i].live = false;
}

/* -------------------------------------------------------------- eager work */

/* Issues one node-type operation on stream sid with the parameters the
 * graph module's generator makes (the same checks apply). */
static void eager_launch(fa *f, uint8_t type)
{
    int sid = fa_pick_stream(f, false);
    grStream_t h = fa_stream_handle(f, sid);
    fa_params p;
    bool bad = false;
    int want = -1;
    int k = fa_capture_of(f, sid);
    if (k < 0 && !fa_pend_room(f, 3))
        return;
    if (fa_capture_full(f, sid))
        return;
    f->ctx_sid = sid;
    fa_params_fill(f, NULL, type, &p, &bad, &want);
    if (f->race_free && k < 0 && !bad && fa_would_race(f, sid, type, &p))
        return;
    grError_t err = grSuccess;
    fa_kargv ka;
    switch (type) {
    case grGraphNodeTypeKernel: {
        void **args = fa_kargs(f, &p, &ka, &bad, &want);
        err = FA_CALL(f, grLaunchKernel(p.kh, p.grid, p.block, args, p.shmem, h));
        break;
    }
    case grGraphNodeTypeMemcpy:
        err = FA_CALL(f, grMemcpyAsync(p.dst.raw, p.src.raw, p.count, p.ckind, h));
        break;
    case grGraphNodeTypeMemset:
        err = FA_CALL(f, grMemsetAsync(p.dst.raw, (int)p.value, p.width, h));
        break;
    case grGraphNodeTypeHost:
        if (bad)
            err = FA_CALL(f, grLaunchHostFunc(h, NULL, &f->hc[p.hc]));
        else
            err =
                FA_CALL(f, grLaunchHostFunc(h, fa_pct(f, 50) ? fa_host_count : fa_host_other, &f->hc[p.hc]));
        break;
    default:
        return;
    }
    if (bad) {
        /* The arguments are checked before the stream's capture state. */
        fa_bad(f, err, k >= 0 && f->cap[k].invalidated ? -1 : want);
        return;
    }
    bool nothing =
        (type == grGraphNodeTypeMemcpy && p.count == 0) || (type == grGraphNodeTypeMemset && p.width == 0);
    /* A zero-byte copy or memset does nothing, but the capture rules come
     * first, as in CUDA: an invalidated capture refuses it, and so does the
     * legacy stream while a blocking stream captures. */
    if (k >= 0) {
        if (f->cap[k].invalidated) {
            fa_bad(f, err, grErrorStreamCaptureInvalidated);
            return;
        }
        fa_ok(f, err);
        if (!nothing)
            fa_capture_node(f, sid, type, &p);
        return;
    }
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f)) {
        fa_bad(f, err, grErrorStreamCaptureImplicit);
        fa_unsafe(f, FU_SYNC_COPY, sid, -1, true);
        return;
    }
    fa_ok(f, err);
    if (nothing)
        return;
    if (type == grGraphNodeTypeHost) {
        f->hc_max[p.hc]++;
        return;
    }
    fa_eager_effect(f, sid, type, &p);
}

/* Synchronous grMemcpy / grMemset: the legacy stream, then a wait. */
static void sync_copy(fa *f)
{
    fa_params p;
    bool bad = false;
    int want = -1;
    bool is_set = fa_pct(f, 40);
    if (!fa_pend_room(f, 3))
        return;
    f->ctx_sid = FA_SID_LEGACY;
    fa_params_fill(f, NULL, is_set ? grGraphNodeTypeMemset : grGraphNodeTypeMemcpy, &p, &bad, &want);
    if (f->race_free && !bad &&
        fa_would_race(f, FA_SID_LEGACY, is_set ? grGraphNodeTypeMemset : grGraphNodeTypeMemcpy, &p))
        return;
    grError_t err = is_set ? FA_CALL(f, grMemset(p.dst.raw, (int)p.value, p.width))
                           : FA_CALL(f, grMemcpy(p.dst.raw, p.src.raw, p.count, p.ckind));
    if (bad) {
        fa_bad(f, err, want);
        return;
    }
    bool nothing = is_set ? p.width == 0 : p.count == 0;
    /* The capture rule comes before the zero-byte shortcut. */
    if (fa_blocking_capture(f)) {
        fa_bad(f, err, grErrorStreamCaptureImplicit);
        fa_unsafe(f, FU_SYNC_COPY, FA_SID_LEGACY, -1, true);
        return;
    }
    fa_ok(f, err);
    if (nothing)
        return;
    fa_eager_effect(f, FA_SID_LEGACY, is_set ? grGraphNodeTypeMemset : grGraphNodeTypeMemcpy, &p);
    /* The legacy stream's work waited for every blocking stream's. */
    fa_synced_stream(f, FA_SID_LEGACY);
    for (int sid = 0; sid < FA_SID_SHARED; sid++)
        if (sid != FA_SID_LEGACY && fa_stream_usable(f, sid) && !f->s[sid].nonblocking) {
            if (fa_pct(f, 20) && !fa_unsafe(f, FU_STREAM_QUERY, sid, -1, false)) {
                grError_t q = FA_CALL(f, grStreamQuery(fa_stream_handle(f, sid)));
                if (q == grErrorNotReady)
                    fa_fail(
                        f,
                        "after a synchronous %s the blocking stream id %d is not idle (the legacy stream's "
                        "work waits for earlier work of blocking streams)",
                        is_set ? "grMemset" : "grMemcpy", sid);
            }
            fa_synced_stream(f, sid);
        }
}

/* ------------------------------------------------------------------ device */

static void device_sync(fa *f)
{
    if (f->mt)
        return; /* refused while any thread captures: not this thread's to know */
    int want = fa_unsafe(f, FU_DEVICE_SYNC, -1, -1, false);
    grError_t err = FA_CALL(f, grDeviceSynchronize());
    if (want) {
        fa_unsafe(f, FU_DEVICE_SYNC, -1, -1, true);
        fa_bad(f, err, want);
        return;
    }
    fa_ok(f, err);
    fa_synced_all(f);
    fa_check_memory(f);
}

/* The devices: the CPU and the machine's GPUs (the model drives the CPU,
 * device 0, and knows no more of the others than their number). */
static int device_count(void)
{
    int n = 0;
    return grGetDeviceCount(&n) == grSuccess ? n : 1;
}

static void device_queries(fa *f)
{
    int v = -7;
    switch (fa_rand(f, 9)) {
    case 0:
        fa_ok(f, FA_CALL(f, grGetDeviceCount(&v)));
        if (v < 1)
            fa_fail(f, "grGetDeviceCount gave %d", v);
        break;
    case 1:
        fa_bad(f, FA_CALL(f, grGetDeviceCount(NULL)), grErrorInvalidValue);
        break;
    case 2:
        fa_ok(f, FA_CALL(f, grSetDevice(0)));
        fa_ok(f, FA_CALL(f, grGetDevice(&v)));
        if (v != 0)
            fa_fail(f, "grGetDevice gave %d", v);
        break;
    case 3:
        fa_bad(f, FA_CALL(f, grSetDevice(fa_pct(f, 50) ? -1 : device_count() + (int)fa_rand(f, 100))),
               grErrorInvalidDevice);
        break;
    case 4:
        fa_bad(f, FA_CALL(f, grGetDevice(NULL)), grErrorInvalidValue);
        break;
    case 5: {
        grDeviceAttr a = (grDeviceAttr)(grDevAttrMaxThreadsPerBlock + (int)fa_rand(f, 12));
        fa_ok(f, FA_CALL(f, grDeviceGetAttribute(&v, a, 0)));
        if (v <= 0)
            fa_fail(f, "grDeviceGetAttribute(%d) gave %d", (int)a, v);
        break;
    }
    case 6:
        fa_bad(f, FA_CALL(f, grDeviceGetAttribute(&v, (grDeviceAttr)(100 + (int)fa_rand(f, 100)), 0)),
               grErrorInvalidValue);
        break;
    case 7:
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grDeviceGetAttribute(NULL, grDevAttrWarpSize, 0)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grDeviceGetAttribute(&v, grDevAttrWarpSize, device_count())),
                   grErrorInvalidDevice);
        break;
    default: {
        /* Every code has a name and a description. */
        grError_t e = (grError_t)((int)fa_rand(f, 40) - 5);
        const char *n = grGetErrorName(e), *s = grGetErrorString(e);
        f->c->calls += 2;
        if (!n || !s || !n[0] || !s[0])
            fa_fail(f, "grGetErrorName/String(%d) gave an empty string", (int)e);
        break;
    }
    }
}

/* grPeekAtLastError / grGetLastError follow the model's last error. */
static void last_error_check(fa *f)
{
    grError_t e = FA_CALL(f, grPeekAtLastError());
    if (e != f->last_err)
        fa_fail(f, "grPeekAtLastError gave %s, the last failing call returned %s", grGetErrorName(e),
                grGetErrorName(f->last_err));
    e = FA_CALL(f, grGetLastError());
    if (e != f->last_err)
        fa_fail(f, "grGetLastError gave %s, the last failing call returned %s", grGetErrorName(e),
                grGetErrorName(f->last_err));
    f->last_err = grSuccess;
    e = FA_CALL(f, grPeekAtLastError());
    if (e != grSuccess)
        fa_fail(f, "grPeekAtLastError gave %s right after grGetLastError reset it", grGetErrorName(e));
}

/* grDeviceReset in the middle of a case (one thread, no capture): every
 * stream, pool and tracked block dies; graphs, executables, kernels and
 * events live on. */
static void device_reset(fa *f)
{
    if (f->mt)
        return;
    for (int k = 0; k < FA_CAPS; k++)
        if (f->cap[k].active)
            return;
    fa_ok(f, FA_CALL(f, grDeviceReset()));
    fa_synced_all(f);
    for (int i = 0; i < FA_STREAMS; i++)
        if (f->s[i].live) {
            f->s[i].live = false;
            f->dead_stream = f->s[i].h;
        }
    f->s[FA_SID_PT] = (fa_stream){.live = true, .cap = -1};
    for (int i = 0; i < FA_POOLS; i++)
        if (f->pool[i].live) {
            f->pool[i].live = false;
            f->dead_pool = f->pool[i].h;
        }
    f->cur_pool = -1;
    f->dflt_used = 0;
    for (int b = 0; b < FA_BLOCKS; b++)
        if (f->b[b].live &&
            (f->b[b].kind == FB_MALLOC || f->b[b].kind == FB_HOST || f->b[b].kind == FB_ASYNC))
            fa_block_free(f, b);
}

/* ---------------------------------------------------------------- the case */

static void step(fa *f)
{
    uint32_t k = fa_rand(f, 1000);
    if (k < 30)
        stream_create(f);
    else if (k < 45)
        stream_destroy(f);
    else if (k < 75)
        stream_query_step(f);
    else if (k < 95)
        event_create(f);
    else if (k < 105)
        event_destroy(f);
    else if (k < 145)
        event_record(f);
    else if (k < 175)
        event_wait(f);
    else if (k < 200)
        event_query_step(f);
    else if (k < 215)
        kernel_create(f);
    else if (k < 222)
        kernel_destroy(f);
    else if (k < 275)
        eager_launch(f, grGraphNodeTypeKernel);
    else if (k < 305)
        eager_launch(f, grGraphNodeTypeMemcpy);
    else if (k < 325)
        eager_launch(f, grGraphNodeTypeMemset);
    else if (k < 340)
        eager_launch(f, grGraphNodeTypeHost);
    else if (k < 350)
        sync_copy(f);
    else if (k < 362)
        device_sync(f);
    else if (k < 372)
        device_queries(f);
    else if (k < 378)
        last_error_check(f);
    else if (k < 385)
        check_host_counters(f);
    else if (k < 386)
        device_reset(f);
    else if (k < 492)
        fa_mem_step(f);
    else if (k < 500)
        fa_bounds_step(f);
    else if (k < 760)
        fa_graph_step(f);
    else if (k < 900)
        fa_exec_step(f);
    else
        fa_capture_step(f);
}

static void case_setup(fa *f)
{
    f->last_err = grSuccess;
    /* A fresh runtime, unless other threads run cases too. */
    if (!f->mt)
        fa_ok(f, FA_CALL(f, grDeviceReset()));
    /* Clear the thread's last error: the model starts from grSuccess. */
    (void)FA_CALL(f, grGetLastError());
    for (int i = 0; i < FA_NSID; i++)
        f->s[i] = (fa_stream){.cap = -1};
    f->s[FA_SID_LEGACY].live = true;
    f->s[FA_SID_PT].live = true;
    if (f->mt)
        for (int i = 0; i < FA_SHARED_STREAMS; i++)
            f->s[FA_SID_SHARED + i] =
                (fa_stream){.h = f->sh->s[i], .live = true, .nonblocking = false, .cap = -1};
    f->cur_pool = -1;
    f->tmode = grStreamCaptureModeGlobal;
    /* Block 0 is the fuzzer's own memory, with a known pattern. */
    f->b[0] = (fa_block){.live = true,
                         .gen = f->b[0].gen + 1,
                         .kind = FB_PLAIN,
                         .ptr = f->plain,
                         .size = FA_BLOCK_MAX,
                         .pool = -1,
                         .sid = -1,
                         .gm = -1};
    for (int i = 0; i < FA_BLOCK_MAX; i++)
        f->plain[i] = f->b[0].model[i] = (uint8_t)(i * 7 + 3);
    memset(f->b[0].known, 1, FA_BLOCK_MAX);
    for (int i = 0; i < FA_HOSTC; i++) {
        atomic_store(&f->hc[i], 0);
        f->hc_min[i] = f->hc_max[i] = 0;
    }
    for (int i = 0; i < 3; i++)
        stream_create(f);
    for (int i = 0; i < 4; i++)
        event_create(f);
    for (int i = 0; i < 3; i++)
        kernel_create(f);
    for (int i = 0; i < 4; i++)
        fa_mem_step(f);
}

static void case_teardown(fa *f)
{
    fa_capture_teardown(f);
    /* Everything this thread queued completes. */
    for (int sid = 0; sid < FA_NSID; sid++)
        if (fa_stream_usable(f, sid))
            fa_ok(f, FA_CALL(f, grStreamSynchronize(fa_stream_handle(f, sid))));
    if (!f->mt)
        fa_ok(f, FA_CALL(f, grDeviceSynchronize()));
    fa_synced_all(f);
    fa_check_memory(f);
    fa_exec_teardown(f);
    fa_graph_teardown(f);
    fa_mem_teardown(f);
    for (int i = 0; i < FA_STREAMS; i++)
        if (f->s[i].live) {
            fa_ok(f, FA_CALL(f, grStreamDestroy(f->s[i].h)));
            f->s[i].live = false;
        }
    for (int e = 0; e < FA_EVENTS; e++)
        if (f->ev[e].live) {
            fa_ok(f, FA_CALL(f, grEventDestroy(f->ev[e].h)));
            f->ev[e].live = false;
        }
    for (int i = 0; i < FA_KERNELS; i++)
        if (f->k[i].live) {
            fa_ok(f, FA_CALL(f, grKernelDestroy(f->k[i].h)));
            f->k[i].live = false;
        }
    f->dead_stream = NULL;
    f->dead_event = NULL;
    f->dead_kernel = NULL;
    f->dead_exec = NULL;
    f->dead_pool = NULL;
    f->dead_graph = NULL;
    f->dead_node = NULL;
    f->dead_node_g = NULL;
    f->npend = 0;
}

static unsigned default_steps(void)
{
    return fz_sanitized() ? 1000 : 3000;
}

/* GRAPHRT_FUZZ_PARANOID=1 (one thread): after every step, synchronise
 * everything that can be and compare memory, so that a mismatch is
 * reported at the step that caused it (debugging a seed; the
 * synchronisations change what later steps see, so a paranoid run is a
 * different run). */
static bool g_paranoid;
static bool g_checkall;          /* GRAPHRT_FUZZ_CHECKALL=1: compare idle blocks after every step */
static unsigned g_paranoid_from; /* GRAPHRT_FUZZ_PARANOID=1:N starts at step N */

static void paranoid_check(fa *f)
{
    for (int k = 0; k < FA_CAPS; k++)
        if (f->cap[k].active)
            return;
    fa_ok(f, FA_CALL(f, grDeviceSynchronize()));
    fa_synced_all(f);
    fa_check_memory(f);
}

static void run_case(fa *f, uint64_t seed)
{
    fz_rng_seed(&f->r, fz_mix(seed, f->thread));
    atomic_store(&f->c->seed, seed);
    atomic_store_explicit(&f->c->step, 0, memory_order_relaxed);
    atomic_store(&f->c->active, true);
    case_setup(f);
    unsigned steps = f->o->steps ? f->o->steps : default_steps();
    for (unsigned i = 0; i < steps; i++) {
        f->step = i;
        atomic_store_explicit(&f->c->step, i, memory_order_relaxed);
        atomic_fetch_add_explicit(&f->c->progress, 1, memory_order_relaxed);
        step(f);
        if (g_paranoid && !f->mt && i >= g_paranoid_from)
            paranoid_check(f);
        if (g_checkall)
            fa_check_memory(f);
    }
    atomic_store_explicit(&f->c->step, steps, memory_order_relaxed);
    case_teardown(f);
    atomic_store(&f->c->active, false);
}

/* ----------------------------------------------------------------- threads */

static fz_opts g_o;
static fa_shared g_sh;
static atomic_uint_fast64_t g_next_case;
static double g_t0;

typedef struct thread_arg {
    fa *f;
    uint64_t cases;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    fa *f = a->f;
    fz_thread_start();
    for (;;) {
        uint64_t k = atomic_fetch_add(&g_next_case, 1);
        bool done = (g_o.iterations && k >= g_o.iterations) ||
                    (g_o.seconds > 0 && fz_now() - g_t0 >= g_o.seconds) || atomic_load(&g_sh.stop);
        if (f->mt) {
            /* The threads meet between cases: thread 0 checks the shared
             * blocks while nobody launches into them. */
            if (done)
                atomic_store(&g_sh.stop, true);
            pthread_barrier_wait(&g_sh.barrier);
            if (f->thread == 0) {
                /* Watched like a case: a hang here is a hang too. */
                atomic_store(&f->c->active, true);
                fa_shared_phase_check(f);
                atomic_store(&f->c->active, false);
            }
            pthread_barrier_wait(&g_sh.barrier);
            bool stop = atomic_load(&g_sh.stop);
            /* Everyone has read the flag before anyone sets it again. */
            pthread_barrier_wait(&g_sh.barrier);
            if (stop)
                break;
        } else if (done) {
            break;
        }
        run_case(f, g_o.seed + k);
        a->cases++;
        if (!g_o.quiet && f->thread == 0 && (a->cases & 63) == 0)
            fprintf(stderr, "fuzz-api: %" PRIu64 " cases, %.0f s\n", a->cases, fz_now() - g_t0);
    }
    return NULL;
}

int fz_api_main(int argc, char **argv);

int fz_api_main(int argc, char **argv)
{
    int rc = fz_parse_args(&g_o, "fuzz-api", argc, argv);
    if (rc)
        return rc == 2 ? 0 : 2;
    const char *par = getenv("GRAPHRT_FUZZ_PARANOID");
    g_paranoid = par && par[0] == '1';
    const char *ca = getenv("GRAPHRT_FUZZ_CHECKALL");
    g_checkall = ca && ca[0] == '1';
    if (g_paranoid && par[1] == ':')
        g_paranoid_from = (unsigned)atoi(par + 2);
    static fz_ctx ctx[FZ_MAX_THREADS];
    pthread_t th[FZ_MAX_THREADS];
    thread_arg args[FZ_MAX_THREADS];
    fa *fs[FZ_MAX_THREADS];
    memset(ctx, 0, sizeof ctx);
    memset(&g_sh, 0, sizeof g_sh);
    if (!g_o.quiet)
        printf("fuzz-api: seed 0x%016" PRIx64 ", %u thread(s)\n", g_o.seed, g_o.threads);
    fflush(stdout);
    for (unsigned i = 0; i < g_o.threads; i++) {
        ctx[i].thread = i;
        atomic_store(&ctx[i].seed, g_o.seed);
        fs[i] = calloc(1, sizeof(fa));
        if (!fs[i])
            return 2;
        fs[i]->c = &ctx[i];
        fs[i]->o = &g_o;
        fs[i]->thread = i;
        fs[i]->nthreads = g_o.threads;
        fs[i]->mt = g_o.threads > 1;
        fs[i]->race_free = fz_tsan() || getenv("GRAPHRT_FUZZ_RACE_FREE") != NULL;
        fs[i]->sh = &g_sh;
    }
    fz_ctx_register(&g_o, ctx, g_o.threads);
    fz_watchdog_start(&g_o);
    g_t0 = fz_now();
    atomic_store(&g_next_case, 0);
    if (g_o.threads > 1) {
        pthread_barrier_init(&g_sh.barrier, NULL, g_o.threads);
        pthread_mutex_init(&g_sh.gm_lock, NULL);
        fz_rng_seed(&fs[0]->r, g_o.seed);
        fa_shared_setup(fs[0]);
    }
    for (unsigned i = 0; i < g_o.threads; i++) {
        args[i] = (thread_arg){fs[i], 0};
        if (pthread_create(&th[i], NULL, thread_main, &args[i]) != 0) {
            fprintf(stderr, "fuzz-api: cannot start thread %u\n", i);
            return 2;
        }
    }
    uint64_t cases = 0, calls = 0, errs = 0;
    for (unsigned i = 0; i < g_o.threads; i++) {
        pthread_join(th[i], NULL);
        cases += args[i].cases;
    }
    if (g_o.threads > 1) {
        fa_shared_teardown(fs[0]);
        pthread_barrier_destroy(&g_sh.barrier);
        pthread_mutex_destroy(&g_sh.gm_lock);
    }
    fz_watchdog_stop();
    for (unsigned i = 0; i < g_o.threads; i++) {
        calls += ctx[i].calls;
        errs += fs[i]->n_err;
        free(fs[i]);
    }
    double secs = fz_now() - g_t0;
    printf("fuzz-api: %" PRIu64 " cases, %" PRIu64 " API calls (%" PRIu64
           " refused as the model expected) in %.1f s"
           " = %.0f calls/s, %u thread(s), no failure\n",
           cases, calls, errs, secs, (double)calls / (secs > 0 ? secs : 1), g_o.threads);
    return 0;
}
