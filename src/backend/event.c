/*
 * event.c - the event header every device's event starts with
 * (backend.h): its references and freeing, the handle's death, device
 * kinds' event objects, and the queries that dispatch by device. The
 * CPU's records (the latest record, done, time) are cpu/event.c's, a
 * device kind's its own.
 *
 * Invariant: an event's memory is a shell (of dev_event_shelf, or of the
 * CPU's shelf) for the life of the process (core.h).
 */
#include "cpu/event.h"
#include "device.h"

#include <string.h>

/* Device kinds' event objects, kept as dead shells once freed (core.h);
 * the CPU's have a shelf of their own (cpu/event.c). */
static gr_shelf dev_event_shelf = GR_SHELF_INIT(sizeof(struct grEvent_st) + GR_DEV_EVENT_MAX);

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
    if (gr_fetch_sub_acq_rel(&e->refs, 1) != 1)
        return;
    if (e->device == 0) {
        gr__cpu_event_free(e);
        return;
    }
    gr__devkind()->event_free(e);
    gr__mark_dead(&e->magic);
    gr__shell_retire(&dev_event_shelf, e);
}

grEvent_t gr__event_new_dev(size_t size, unsigned flags, int device)
{
    gr_assert(size >= sizeof(struct grEvent_st) && size <= sizeof(struct grEvent_st) + GR_DEV_EVENT_MAX &&
              device > 0);
    grEvent_t e = gr__shell_alloc(&dev_event_shelf);
    if (!e)
        return NULL;
    memset(e, 0, size);
    e->magic = GR_MAGIC_EVENT;
    e->flags = flags;
    e->device = device;
    atomic_init(&e->refs, 1);
    return e;
}

grEvent_t gr__event_create(unsigned flags)
{
    return gr__cpu_event_new(flags);
}

void gr__event_destroy(grEvent_t e)
{
    e->magic = GR_MAGIC_DEAD;
    gr__event_release(e);
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

grError_t gr__event_elapsed_dev(const char *call, float *ms, grEvent_t start, grEvent_t end)
{
    uint64_t t0 = 0, t1 = 0;
    grError_t err;
    if (start->device != 0 || end->device != 0) {
        if (start->device != end->device)
            return gr__fail(grErrorInvalidResourceHandle,
                            "%s: the start event %p is of device %d and the end event %p of device %d; "
                            "time events of one device",
                            call, GR_PTR(start), start->device, GR_PTR(end), end->device);
        return gr__devkind()->event_elapsed(call, ms, start, end);
    }
    if ((err = gr__event_time(call, "start", start, &t0)) || (err = gr__event_time(call, "end", end, &t1)))
        return err;
    *ms = (float)((double)((int64_t)(t1 - t0)) / 1e6);
    return grSuccess;
}
