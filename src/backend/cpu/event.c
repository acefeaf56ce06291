/*
 * event.c - events on the CPU: the object's lifetime, records, queries,
 * waits and times (the entry points with their checks are api/event.c).
 *
 * A record is a STAMP op queued on the stream: it completes when the
 * stream reaches it, and for timing events it writes the time.
 */
#include "../device.h"
#include "event.h"

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
        if (e->gpu)
            gr__devkind()->event_free(e->gpu);
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

grEvent_t gr__event_create(unsigned flags)
{
    grEvent_t e = gr__shell_alloc(&event_shelf);
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    e->magic = GR_MAGIC_EVENT;
    e->flags = flags;
    atomic_init(&e->refs, 1);
    return e;
}

void gr__event_destroy(grEvent_t e)
{
    e->magic = GR_MAGIC_DEAD;
    gr__event_release(e);
}

bool gr__event_done(grEvent_t e)
{
    gr_stream *s = NULL;
    uint64_t seq;
    gr__event_latest(e, &s, &seq);
    if (!s)
        return true;
    bool done = gr__stream_reached(s, seq);
    gr__stream_release(s);
    return done;
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

grError_t gr__event_time(const char *call, const char *which, grEvent_t e, uint64_t *t)
{
    gr_stream *s = NULL;
    uint64_t seq, gen, stamped, time_ns;
    if (e->flags & grEventDisableTiming)
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: the %s event %p was created with grEventDisableTiming", call, which, GR_PTR(e));
    gr__event_latest(e, &s, &seq);
    if (!s)
        return gr__fail(grErrorInvalidResourceHandle, "%s: the %s event %p has never been recorded", call,
                        which, GR_PTR(e));
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
        return gr__fail(
            grErrorNotReady,
            "%s: the work before the latest record of the %s event %p has not completed yet; wait "
            "for it (grEventSynchronize) before asking for the time",
            call, which, GR_PTR(e));
    *t = time_ns;
    return grSuccess;
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
