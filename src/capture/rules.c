/*
 * rules.c - which calls captures in progress forbid, as CUDA decides it
 * (docs/capture.md lists each rule and its source), and the registry of
 * captures in progress the rules consult.
 *
 * Invariants:
 *   - every capture between begin and end is on the registry, and
 *     gr__captures_active counts them, so gr__capture_any() (one relaxed
 *     load) is false only when no rule can apply;
 *   - a refusal invalidates exactly the captures that forbade the call.
 *
 * Lock order: reg_lock, then a capture's lock (taken by invalidation).
 */
#include "capture.h"

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static gr_capture *reg_head; /* guarded by reg_lock */

void gr__capture_register(gr_capture *c)
{
    pthread_mutex_lock(&reg_lock);
    c->reg_prev = NULL;
    c->reg_next = reg_head;
    if (reg_head)
        reg_head->reg_prev = c;
    reg_head = c;
    gr_fetch_add_relaxed(&gr__captures_active, 1);
    pthread_mutex_unlock(&reg_lock);
}

void gr__capture_unregister(gr_capture *c)
{
    pthread_mutex_lock(&reg_lock);
    if (c->reg_prev)
        c->reg_prev->reg_next = c->reg_next;
    else
        reg_head = c->reg_next;
    if (c->reg_next)
        c->reg_next->reg_prev = c->reg_prev;
    gr_fetch_sub_relaxed(&gr__captures_active, 1);
    pthread_mutex_unlock(&reg_lock);
}

static uint32_t nblocking(gr_capture *c)
{
    gr__capture_lock(c);
    uint32_t n = c->nblocking;
    gr__spin_unlock(&c->lock);
    return n;
}

bool gr__capture_blocking_active(void)
{
    bool any = false;
    pthread_mutex_lock(&reg_lock);
    for (gr_capture *c = reg_head; c && !any; c = c->reg_next)
        any = nblocking(c) > 0;
    pthread_mutex_unlock(&reg_lock);
    return any;
}

/* Which captures a call invalidates. */
typedef bool (*offends_fn)(gr_capture *c, const void *arg);
/* Why capture c refuses the call, when that depends on the capture: for
 * the caller's detail, a sentence that describes c itself
 * (gr__capture_describe) and says what to do; with 'kept', the shorter
 * cause the capture keeps and later calls on other threads repeat, so it
 * names threads by number, not as "this thread". */
typedef void (*explain_fn)(const gr_capture *c, const void *arg, bool kept, char *buf, size_t size);

/* Invalidates every capture in progress for which offends(c) holds, with
 * the cause 'msg' (or explain's sentence for that capture); returns err
 * with the detail naming the first, or grSuccess if none offends. */
static grError_t refuse(offends_fn offends, const void *arg, grError_t err, const char *msg,
                        explain_fn explain)
{
    char d[192], why[768], kept[512], full[1088], first[1088];
    bool found = false;
    pthread_mutex_lock(&reg_lock);
    for (gr_capture *c = reg_head; c; c = c->reg_next) {
        if (!offends(c, arg))
            continue;
        if (explain) {
            explain(c, arg, false, why, sizeof why);
            explain(c, arg, true, kept, sizeof kept);
            snprintf(d, sizeof d, "capture #%llu", (unsigned long long)c->id); /* described in 'why' */
        } else {
            snprintf(why, sizeof why, "%s", msg);
            snprintf(kept, sizeof kept, "%s", msg);
            gr__capture_describe(c, d, sizeof d);
        }
        gr__capture_lock(c);
        bool active = gr_load_relaxed(&c->status) == grStreamCaptureStatusActive;
        gr__capture_invalidate_locked(c, err, kept);
        gr__spin_unlock(&c->lock);
        snprintf(full, sizeof full, "%s; %s %s: end it with grStreamEndCapture and capture again", why,
                 active ? "this invalidated" : "invalidated already:", d);
        if (!found)
            snprintf(first, sizeof first, "%s", full);
        found = true;
    }
    pthread_mutex_unlock(&reg_lock);
    return found ? gr__fail(err, "%s", first) : grSuccess;
}

/* The mode rule of cudaStreamCaptureMode for the calling thread. */
typedef struct mode_arg {
    const char *call;
    uint64_t me;
    grStreamCaptureMode tmode; /* the calling thread's mode */
} mode_arg;

static bool mode_offends(gr_capture *c, const void *p)
{
    const mode_arg *a = p;
    if (a->tmode == grStreamCaptureModeRelaxed)
        return false;
    if (c->thread == a->me)
        return c->mode != grStreamCaptureModeRelaxed;
    return a->tmode == grStreamCaptureModeGlobal && c->mode == grStreamCaptureModeGlobal;
}

/* Says whose mode forbids the call: the capture's on the thread that began
 * it, or, on another thread, the capture's and this thread's, both global. */
static void mode_explain(const gr_capture *c, const void *p, bool kept, char *buf, size_t size)
{
    static const char remedy[] = "call it outside the capture, or make the capture's mode or this thread's "
                                 "relaxed (grThreadExchangeStreamCaptureMode)";
    const mode_arg *a = p;
    char d[192];
    if (kept) {
        if (c->thread == a->me)
            snprintf(
                buf, size,
                "%s on thread #%llu: potentially unsafe during stream capture, and the capture's %s mode "
                "forbids it on the thread that began it",
                a->call, (unsigned long long)a->me, gr__capture_mode_name(c->mode));
        else
            snprintf(buf, size,
                     "%s on thread #%llu: potentially unsafe during stream capture, and the capture's global "
                     "mode forbids it on every thread whose own capture mode is global, as that thread's was",
                     a->call, (unsigned long long)a->me);
        return;
    }
    gr__capture_describe(c, d, sizeof d);
    if (c->thread == a->me)
        snprintf(buf, size,
                 "%s: potentially unsafe during stream capture, and %s forbids it on the thread that began "
                 "it; %s",
                 a->call, d, remedy);
    else
        snprintf(buf, size,
                 "%s: potentially unsafe during stream capture, and %s forbids it on every thread whose own "
                 "capture mode is global, as this thread's (#%llu) is; %s",
                 a->call, d, (unsigned long long)a->me, remedy);
}

static bool any_offends(gr_capture *c, const void *p)
{
    (void)c;
    (void)p;
    return true;
}

static bool blocking_offends(gr_capture *c, const void *p)
{
    (void)p;
    return nblocking(c) > 0;
}

static bool this_offends(gr_capture *c, const void *p)
{
    return c == p;
}

grError_t gr__capture_check_unsafe_slow(const char *call, gr_unsafe_kind kind, gr_stream *s, grEvent_t e)
{
    char msg[512];
    mode_arg ma = {call, gr__capture_thread_no(), gr__tls_capture_mode};
    switch (kind) {
    case GR_UNSAFE_STREAM_SYNC:
    case GR_UNSAFE_STREAM_QUERY: {
        gr_capture *c = s ? gr_load_acquire(&s->capture) : NULL;
        if (c) {
            snprintf(msg, sizeof msg,
                     "%s: %s is capturing, so its work is being recorded, not run: it cannot be %s", call,
                     GR_STREAM_NAME(s), kind == GR_UNSAFE_STREAM_SYNC ? "synchronised" : "queried");
            return refuse(this_offends, c, grErrorStreamCaptureUnsupported, msg, NULL);
        }
        if (s && (s->flags & GR_STREAM_LEGACY)) {
            snprintf(
                msg, sizeof msg,
                "%s: the legacy stream is synchronised with a blocking stream that is capturing, so %s it "
                "would depend on the capture; use non-blocking streams for captures",
                call, kind == GR_UNSAFE_STREAM_SYNC ? "synchronising" : "querying");
            grError_t err = refuse(blocking_offends, NULL, grErrorStreamCaptureImplicit, msg, NULL);
            if (err)
                return err;
        }
        break;
    }
    case GR_UNSAFE_EVENT_SYNC:
    case GR_UNSAFE_EVENT_QUERY:
        if (e) {
            gr_capture *c = NULL;
            bool ended = false;
            gr__spin_lock(&e->lock);
            void *m = e->capture;
            if (m && gr__capture_is_tombstone(m))
                ended = gr__capture_tombstone_gen(m) == (e->gen & (UINT64_MAX >> 1));
            else if (m && ((gr_cap_event *)m)->gen == e->gen)
                c = ((gr_cap_event *)m)->cap;
            gr__spin_unlock(&e->lock);
            if (c) {
                snprintf(
                    msg, sizeof msg,
                    "%s: event %p was last recorded in a capturing stream, so it names work that is being "
                    "recorded, not run; wait on it with grStreamWaitEvent inside the capture instead",
                    call, GR_PTR(e));
                return refuse(this_offends, c, grErrorCapturedEvent, msg, NULL);
            }
            if (ended)
                return gr__fail(
                    grErrorInvalidValue,
                    "%s: event %p was last recorded in a capture that has ended, so it names no work "
                    "that runs; record it again outside a capture",
                    call, GR_PTR(e));
        }
        break;
    case GR_UNSAFE_DEVICE_SYNC:
        snprintf(
            msg, sizeof msg,
            "%s: captures are in progress, and synchronising the device would wait for work that is being "
            "recorded, not run; refused whatever the capture's mode and the calling thread's, relaxed "
            "included: "
            "synchronise the streams you need instead",
            call);
        return refuse(any_offends, NULL, grErrorStreamCaptureUnsupported, msg, NULL);
    case GR_UNSAFE_SYNC_COPY:
        /* Allowed by every mode (CUDA runs cudaMemcpy / cudaMemset during
         * captures); only the legacy stream's implicit synchronisation can
         * forbid it. */
        snprintf(
            msg, sizeof msg,
            "%s: synchronous copies and memsets run on the legacy stream, which is synchronised with a "
            "blocking stream that is capturing; use grMemcpyAsync on a non-blocking stream, or capture on "
            "non-blocking streams",
            call);
        return refuse(blocking_offends, NULL, grErrorStreamCaptureImplicit, msg, NULL);
    case GR_UNSAFE_MALLOC:
    case GR_UNSAFE_FREE:
        break;
    }
    return refuse(mode_offends, &ma, grErrorStreamCaptureUnsupported, NULL, mode_explain);
}

grError_t gr__capture_check_implicit_slow(const char *call, gr_stream *s)
{
    char msg[512];
    if (!(s->flags & GR_STREAM_LEGACY))
        return grSuccess;
    snprintf(msg, sizeof msg,
             "%s: work on the legacy stream (NULL or grStreamLegacy) would make it wait for a blocking "
             "stream that "
             "is capturing; issue the work on another stream, or capture on streams made with "
             "grStreamNonBlocking",
             call);
    return refuse(blocking_offends, NULL, grErrorStreamCaptureImplicit, msg, NULL);
}
