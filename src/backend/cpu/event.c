/*
 * event.c - events on the CPU: records and waits (the object, its
 * queries and times are backend/event.c; the entry points with their
 * checks are api/event.c).
 *
 * A record is a STAMP op queued on the stream: it completes when the
 * stream reaches it, and for timing events it writes the time.
 */
#include "../device.h"
#include "event.h"

#include <string.h>

void gr__event_record_locked(grEvent_t e, gr_stream *s, gr_op *op)
{
    gr_stream *old;
    gr__event_retain(e);
    gr__stream_retain(s);
    gr__spin_lock(&e->lock);
    old = e->s;
    e->s = s;
    e->seq = gr__stream_tail_locked(s) + 1;
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
    gr_stream *old;
    gr__stream_retain(s);
    gr__spin_lock(&e->lock);
    old = e->s;
    e->s = s;
    e->seq = seq;
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
        e->time_ns = t;
        e->stamped_gen = gen;
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
    grError_t err = (grError_t)gr_load_relaxed(&s->sticky);
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
    if (es == s || gr__stream_reached(es, seq)) {
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
