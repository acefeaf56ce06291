/*
 * event.h - the event object, shared by the runtime and the capture and
 * graph modules.
 *
 * Invariant: (s, seq) names the latest record: the event has completed
 * once stream s has completed seq ops. gen counts records; a STAMP op
 * writes the time only if its generation is still the latest.
 */
#ifndef GR_EVENT_H
#define GR_EVENT_H

#include "stream_int.h"

struct grEvent_st {
    uint32_t magic;   /* GR_MAGIC_EVENT */
    unsigned flags;   /* grEvent* flags, immutable */
    atomic_int refs;  /* handle + ops and graph nodes naming it */
    gr_spinlock lock; /* guards every field below */
    gr_stream *s;     /* stream of the latest record (retained) */
    uint64_t seq;
    uint64_t gen;
    uint64_t stamped_gen; /* generation whose time_ns is valid */
    uint64_t time_ns;
    /* Capture seam: set while the latest record is part of a capture. */
    void *capture;
};

/* Reads the latest record: *s retained (or NULL if never recorded). */
void gr__event_latest(grEvent_t e, gr_stream **s, uint64_t *seq);

/* Records e as the op at the tail of s; call with s locked, before
 * publishing the STAMP op 'op'. */
void gr__event_record_locked(grEvent_t e, gr_stream *s, gr_op *op);

/* Records e as completing when s has completed 'seq' ops, without a
 * timestamp (event record nodes of a graph launch). */
void gr__event_record_untimed(grEvent_t e, gr_stream *s, uint64_t seq);

#endif /* GR_EVENT_H */
