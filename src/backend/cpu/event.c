/*
 * event.c - events on the CPU: the CPU event object, its records, what
 * the latest record says once its stream has passed it (done, time) and
 * waits (the header and the dispatch by device are backend/event.c; the
 * entry points with their checks are api/event.c).
 *
 * A record is a STAMP op queued on the stream: it completes when the
 * stream reaches it, and for timing events it writes the time.
 */
#include "../device.h"
#include "event.h"

#include <string.h>

/* ------------------------------------------------------------ the object */

/* CPU event objects, kept as dead shells once freed (core.h). */
static gr_shelf event_shelf = GR_SHELF_INIT(sizeof(gr_cpu_event));

grEvent_t gr__cpu_event_new(unsigned flags)
{
    gr_cpu_event *c = gr__shell_alloc(&event_shelf);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->h.magic = GR_MAGIC_EVENT;
    c->h.flags = flags;
    atomic_init(&c->h.refs, 1);
    return &c->h;
}

void gr__cpu_event_fini(grEvent_t e)
{
    gr_cpu_event *c = gr__cpu_event(e);
    if (c->s)
        gr__stream_release(c->s);
}

void gr__cpu_event_free(grEvent_t e)
{
    gr__cpu_event_fini(e);
    gr__mark_dead(&e->magic);
    gr__shell_retire(&event_shelf, e);
}

void gr__event_latest(grEvent_t e, gr_stream **s, uint64_t *seq)
{
    gr_cpu_event *c = gr__cpu_event(e);
    gr__spin_lock(&e->lock);
    *s = c->s;
    *seq = c->seq;
    if (*s)
        gr__stream_retain(*s);
    gr__spin_unlock(&e->lock);
}

bool gr__event_done(grEvent_t e)
{
    gr_stream *s = NULL;
    uint64_t seq;
    gr__event_latest(e, &s, &seq);
    if (!s)
        return true;
    bool done = gr__cpu_stream_reached(s, seq);
    gr__stream_release(s);
    return done;
}

grError_t gr__event_time(const char *call, const char *which, grEvent_t e, uint64_t *t)
{
    gr_cpu_event *c = gr__cpu_event(e);
    gr_stream *s = NULL;
    uint64_t seq, gen, stamped, time_ns;
    if (e->flags & grEventDisableTiming)
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: the %s event %p was created with grEventDisableTiming", call, which, GR_PTR(e));
    gr__event_latest(e, &s, &seq);
    if (!s)
        return gr__fail(grErrorInvalidResourceHandle, "%s: the %s event %p has never been recorded", call,
                        which, GR_PTR(e));
    bool done = gr__cpu_stream_reached(s, seq);
    gr__stream_release(s);
    gr__spin_lock(&e->lock);
    gen = e->gen;
    stamped = c->stamped_gen;
    time_ns = c->time_ns;
    gr__spin_unlock(&e->lock);
    /* A completed record not stamped was re-recorded since (the new one is
     * pending). */
    if (!done || stamped != gen)
        return gr__fail(
            grErrorNotReady,
            "%s: the work before the latest record of the %s event %p has not completed yet; wait "
            "for it (grEventSynchronize) before asking for the time",
            call, which, GR_PTR(e));
    *t = time_ns;
    return grSuccess;
}

/* ------------------------------------------------------------- records */

void gr__event_record_locked(grEvent_t e, gr_stream *s, gr_op *op)
{
    gr_cpu_event *c = gr__cpu_event(e);
    gr_stream *old;
    gr__event_retain(e);
    gr__stream_retain(s);
    gr__spin_lock(&e->lock);
    old = c->s;
    c->s = s;
    c->seq = gr__stream_tail_locked(s) + 1;
    e->recorded = true;
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
    gr_cpu_event *c = gr__cpu_event(e);
    gr_stream *old;
    gr__stream_retain(s);
    gr__spin_lock(&e->lock);
    old = c->s;
    c->s = s;
    c->seq = seq;
    e->recorded = true;
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
        gr__cpu_event(e)->time_ns = t;
        gr__cpu_event(e)->stamped_gen = gen;
    }
    gr__spin_unlock(&e->lock);
}

grError_t gr__event_wait(grEvent_t e)
{
    gr_stream *s = NULL;
    uint64_t seq;
    gr__event_latest(e, &s, &seq);
    if (!s)
        return grSuccess;
    gr__stream_wait_for(s, seq);
    grError_t err = (grError_t)gr_load_relaxed(&gr__cpu_stream(s)->sticky);
    gr__stream_release(s);
    return err;
}

grError_t gr__stream_wait_event(const char *call, gr_stream *s, grEvent_t e)
{
    gr_stream *es = NULL;
    uint64_t seq;
    gr__event_latest(e, &es, &seq);
    if (!es)
        return grSuccess; /* never recorded: nothing to wait for */
    if (es == s || gr__cpu_stream_reached(es, seq)) {
        if (es != s) {
            gr__stream_lock(s);
            gr__stream_note_known_locked(s, es, seq);
            gr__stream_unlock_no_activate(s);
        }
        gr__stream_release(es);
        return grSuccess;
    }
    gr_runtime *rt = gr__runtime_get();
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (!op) {
        gr__stream_release(es);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
    }
    gr__stream_publish_wait(s, op, es, seq); /* takes gr__event_latest's reference */
    gr__stream_unlock(rt, s);
    return grSuccess;
}
