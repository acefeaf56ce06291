/*
 * event.c - the event object every device shares (backend.h): its
 * lifetime, its latest record, and what that record says once its stream
 * has passed it (done, time). How a record is queued is each kind's: a
 * STAMP op on a CPU stream (cpu/event.c), the driver's event on a GPU.
 *
 * Invariant: (s, seq, gen) change together under 'lock'; a reader takes
 * the stream it finds retained, so the record it read stays readable.
 */
#include "device.h"

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

grError_t gr__event_sync_dev(const char *call, grEvent_t e)
{
    if (e->device != 0)
        return gr__devkind()->event_sync(call, e);
    grError_t err = gr__event_wait(e);
    return err ? gr__fail_again(err) : grSuccess;
}

grError_t gr__event_query_dev(const char *call, grEvent_t e)
{
    if (e->device != 0)
        return gr__devkind()->event_query(call, e);
    return gr__event_done(e) ? grSuccess : grErrorNotReady;
}
