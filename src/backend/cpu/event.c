/*
 * event.c - events: records, queries, synchronisation and timing.
 *
 * A record is a STAMP op queued on the stream: it completes when the
 * stream reaches it, and for timing events it writes the time.
 */
#include "../../capture/capture.h"
#include "../../memory/pool.h"

#include <string.h>

/* Event objects, kept as dead shells once freed (core.h). */
static gr_shelf event_shelf = GR_SHELF_INIT(sizeof(struct grEvent_st));

bool gr__event_valid(grEvent_t e)
{
    return e != NULL && e->magic == GR_MAGIC_EVENT;
}

void gr__event_retain(grEvent_t e)
{
    gr_fetch_add_relaxed(&e->refs, 1);
}

void gr__event_release(grEvent_t e)
{
    if (gr_fetch_sub_acq_rel(&e->refs, 1) == 1) {
        if (e->s)
            gr__stream_release(e->s);
        gr__mark_dead(&e->magic);
        gr__shell_retire(&event_shelf, e);
    }
}

void gr__event_latest(grEvent_t e, gr_stream **s, uint64_t *seq)
{
    gr__spin_lock(&e->lock);
    *s = e->s;
    *seq = e->seq;
    if (*s)
        gr__stream_retain(*s);
    gr__spin_unlock(&e->lock);
}

void gr__event_record_locked(grEvent_t e, gr_stream *s, gr_op *op)
{
    gr_stream *old;
    gr__event_retain(e);
    gr__stream_retain(s);
    gr__spin_lock(&e->lock);
    old = e->s;
    e->s = s;
    e->seq = gr__stream_tail_locked(s) + 1;
    e->gen++;
    op->kind = GR_OP_STAMP;
    op->u.stamp.ev = e;
    op->u.stamp.gen = e->gen;
    gr__spin_unlock(&e->lock);
    if (old)
        gr__stream_release(old);
}

void gr__event_record_untimed(grEvent_t e, gr_stream *s, uint64_t seq)
{
    gr_stream *old;
    gr__stream_retain(s);
    gr__spin_lock(&e->lock);
    old = e->s;
    e->s = s;
    e->seq = seq;
    e->gen++;
    gr__spin_unlock(&e->lock);
    if (old)
        gr__stream_release(old);
}

void gr__event_stamp(grEvent_t e, uint64_t gen)
{
    if (e->flags & grEventDisableTiming)
        return;
    uint64_t t = gr__now_ns();
    gr__spin_lock(&e->lock);
    if (e->gen == gen) {
        e->time_ns = t;
        e->stamped_gen = gen;
    }
    gr__spin_unlock(&e->lock);
}

static grError_t check_event(const char *call, grEvent_t e)
{
    if (!gr__event_valid(e))
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: event %p is not a live event (NULL, destroyed, or not created by grEventCreate)",
                        call, GR_PTR(e));
    return grSuccess;
}

/* CUDA answers grErrorInvalidValue for an event whose latest record was
 * made in a capture that has ended. */
static grError_t check_not_ended_capture(const char *call, grEvent_t e)
{
    if (gr__capture_event_ended(e))
        return gr__fail(
            grErrorInvalidValue,
            "%s: event %p was last recorded inside a stream capture that has ended; such a record "
            "names graph nodes, not work: record the event again outside a capture",
            call, GR_PTR(e));
    return grSuccess;
}

GR_API grError_t grEventCreate(grEvent_t *event)
{
    if (!event)
        return gr__fail(grErrorInvalidValue, "grEventCreate: 'event' (the output pointer) is NULL");
    return grEventCreateWithFlags(event, grEventDefault);
}

GR_API grError_t grEventCreateWithFlags(grEvent_t *event, unsigned int flags)
{
    grEvent_t e;
    if (!event)
        return gr__fail(grErrorInvalidValue, "grEventCreateWithFlags: 'event' (the output pointer) is NULL");
    if (flags & ~(grEventBlockingSync | grEventDisableTiming))
        return gr__fail(grErrorInvalidValue,
                        "grEventCreateWithFlags: flags 0x%x has bits other than grEventBlockingSync and "
                        "grEventDisableTiming",
                        flags);
    if (!gr__runtime_get())
        return gr__fail(grErrorInitializationError,
                        "grEventCreateWithFlags: the graphrt runtime could not start");
    e = gr__shell_alloc(&event_shelf);
    if (!e)
        return gr__fail(grErrorMemoryAllocation, "grEventCreateWithFlags: out of memory");
    memset(e, 0, sizeof *e);
    e->magic = GR_MAGIC_EVENT;
    e->flags = flags;
    atomic_init(&e->refs, 1);
    *event = e;
    return grSuccess;
}

GR_API grError_t grEventDestroy(grEvent_t event)
{
    grError_t err = check_event("grEventDestroy", event);
    if (err)
        return err;
    event->magic = GR_MAGIC_DEAD;
    gr__event_release(event);
    return grSuccess;
}

GR_API grError_t grEventRecord(grEvent_t event, grStream_t stream)
{
    gr_runtime *rt;
    gr_stream *s = NULL;
    gr_op *op;
    grError_t err = check_event("grEventRecord", event);
    if (err)
        return err;
    err = gr__stream_from_handle("grEventRecord", stream, &s);
    if (err)
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return gr__capture_event_record("grEventRecord", event, s);
    if ((err = gr__capture_check_implicit("grEventRecord", s)))
        return err;
    rt = gr__runtime_get();
    op = gr__stream_lock_slot(rt, s);
    if (!op)
        return gr__fail(grErrorMemoryAllocation, "grEventRecord: out of memory queuing on stream %p",
                        GR_PTR(stream));
    gr__event_record_locked(event, s, op);
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}

GR_API grError_t grEventQuery(grEvent_t event)
{
    gr_stream *s = NULL;
    uint64_t seq;
    bool done;
    grError_t err = check_event("grEventQuery", event);
    if (err)
        return err;
    if ((err = gr__capture_check_unsafe("grEventQuery", GR_UNSAFE_EVENT_QUERY, NULL, event)) ||
        (err = check_not_ended_capture("grEventQuery", event)))
        return err;
    gr__event_latest(event, &s, &seq);
    if (!s)
        return grSuccess;
    done = gr__stream_reached(s, seq);
    gr__stream_release(s);
    return done ? grSuccess : grErrorNotReady;
}

GR_API grError_t grEventSynchronize(grEvent_t event)
{
    gr_stream *s = NULL;
    uint64_t seq;
    grError_t err = check_event("grEventSynchronize", event);
    if (err)
        return err;
    if ((err = gr__capture_check_unsafe("grEventSynchronize", GR_UNSAFE_EVENT_SYNC, NULL, event)) ||
        (err = check_not_ended_capture("grEventSynchronize", event)))
        return err;
    gr__event_latest(event, &s, &seq);
    if (!s)
        return grSuccess;
    gr__stream_wait_for(s, seq);
    gr__pool_on_sync();
    err = (grError_t)gr_load_relaxed(&s->sticky);
    gr__stream_release(s);
    return err ? gr__fail_again(err) : grSuccess;
}

/* Reads the time of the latest record: 0 ok, else the error to return. */
static grError_t stamp_of(const char *which, grEvent_t e, uint64_t *t)
{
    gr_stream *s = NULL;
    uint64_t seq, gen, stamped, time_ns;
    if (e->flags & grEventDisableTiming)
        return gr__fail(grErrorInvalidResourceHandle,
                        "grEventElapsedTime: the %s event %p was created with grEventDisableTiming", which,
                        GR_PTR(e));
    gr__event_latest(e, &s, &seq);
    if (!s)
        return gr__fail(grErrorInvalidResourceHandle,
                        "grEventElapsedTime: the %s event %p has never been recorded", which, GR_PTR(e));
    bool done = gr__stream_reached(s, seq);
    gr__stream_release(s);
    gr__spin_lock(&e->lock);
    gen = e->gen;
    stamped = e->stamped_gen;
    time_ns = e->time_ns;
    gr__spin_unlock(&e->lock);
    /* A completed record not stamped was re-recorded since (the new one is
     * pending). */
    if (!done || stamped != gen)
        return gr__fail(grErrorNotReady,
                        "grEventElapsedTime: the work before the latest record of the %s event %p has not "
                        "completed yet; wait for it (grEventSynchronize) before asking for the time",
                        which, GR_PTR(e));
    *t = time_ns;
    return grSuccess;
}

GR_API grError_t grEventElapsedTime(float *ms, grEvent_t start, grEvent_t end)
{
    uint64_t t0 = 0, t1 = 0;
    grError_t err;
    if (!ms)
        return gr__fail(grErrorInvalidValue, "grEventElapsedTime: 'ms' (the output pointer) is NULL");
    if ((err = check_event("grEventElapsedTime", start)) || (err = check_event("grEventElapsedTime", end)) ||
        (err = check_not_ended_capture("grEventElapsedTime", start)) ||
        (err = check_not_ended_capture("grEventElapsedTime", end)))
        return err;
    if ((err = stamp_of("start", start, &t0)) || (err = stamp_of("end", end, &t1)))
        return err;
    *ms = (float)((double)((int64_t)(t1 - t0)) / 1e6);
    return grSuccess;
}

GR_API grError_t grStreamWaitEvent(grStream_t stream, grEvent_t event, unsigned int flags)
{
    gr_runtime *rt;
    gr_stream *s = NULL, *es = NULL;
    uint64_t seq;
    gr_op *op;
    grError_t err;
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "grStreamWaitEvent: flags must be 0 (got 0x%x)", flags);
    if ((err = check_event("grStreamWaitEvent", event)))
        return err;
    if ((err = gr__stream_from_handle("grStreamWaitEvent", stream, &s)))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s) || event->capture))
        return gr__capture_wait_event("grStreamWaitEvent", s, event);
    if ((err = gr__capture_check_implicit("grStreamWaitEvent", s)))
        return err;
    gr__event_latest(event, &es, &seq);
    if (!es)
        return grSuccess; /* never recorded: nothing to wait for */
    if (es == s || gr__stream_reached(es, seq)) {
        if (es != s) {
            gr__stream_lock(s);
            gr__stream_note_known_locked(s, es, seq);
            gr__stream_unlock_no_activate(s);
        }
        gr__stream_release(es);
        return grSuccess;
    }
    rt = gr__runtime_get();
    op = gr__stream_lock_slot(rt, s);
    if (!op) {
        gr__stream_release(es);
        return gr__fail(grErrorMemoryAllocation, "grStreamWaitEvent: out of memory queuing on stream %p",
                        GR_PTR(stream));
    }
    gr__stream_publish_wait(s, op, es, seq); /* takes gr__event_latest's reference */
    gr__stream_unlock(rt, s);
    return grSuccess;
}
