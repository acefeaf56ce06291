/*
 * event.h - the CPU's events (the header is backend.h's) and how the
 * CPU backend records them: a record is a STAMP op, or, for a graph's
 * event record nodes, the launch itself.
 */
#ifndef GR_EVENT_H
#define GR_EVENT_H

#include "stream_int.h"

/* A CPU event: the header every device's event starts with (backend.h),
 * then its latest record. Invariant: (s, seq) names the latest record:
 * the event has completed once stream s has completed seq ops; a STAMP
 * op writes the time only if its generation (h.gen) is still the
 * latest. A device kind that runs its work on CPU streams (the test
 * suite's fake device) may give its events this layout too. */
typedef struct gr_cpu_event {
    struct grEvent_st h;
    gr_stream *s; /* stream of the latest record (retained); under h.lock */
    uint64_t seq;
    uint64_t stamped_gen; /* generation whose time_ns is valid */
    uint64_t time_ns;
} gr_cpu_event;

/* The CPU event e is (a cast: free). */
static inline gr_cpu_event *gr__cpu_event(grEvent_t e)
{
    return (gr_cpu_event *)(void *)e;
}

/* A new CPU event of grEvent* flags, or NULL when out of memory (the
 * object of gr__event_create, backend/event.c). */
grEvent_t gr__cpu_event_new(unsigned flags);

/* Drops what a CPU-layout event holds (the stream of its latest record),
 * before its memory goes: its last reference went. */
void gr__cpu_event_fini(grEvent_t e);

/* Frees a CPU event object (its last reference went, backend/event.c). */
void gr__cpu_event_free(grEvent_t e);

/* Records e as the op at the tail of s; call with s locked, before
 * publishing the STAMP op 'op'. */
void gr__event_record_locked(grEvent_t e, gr_stream *s, gr_op *op);

/* Records e as completing when s has completed 'seq' ops, without a
 * timestamp (event record nodes of a graph launch). */
void gr__event_record_untimed(grEvent_t e, gr_stream *s, uint64_t seq);

#endif /* GR_EVENT_H */
