/*
 * event.h - how the CPU backend records events (the object is in
 * backend.h): a record is a STAMP op, or, for a graph's event record
 * nodes, the launch itself.
 */
#ifndef GR_EVENT_H
#define GR_EVENT_H

#include "stream_int.h"

/* Records e as the op at the tail of s; call with s locked, before
 * publishing the STAMP op 'op'. */
void gr__event_record_locked(grEvent_t e, gr_stream *s, gr_op *op);

/* Records e as completing when s has completed 'seq' ops, without a
 * timestamp (event record nodes of a graph launch). */
void gr__event_record_untimed(grEvent_t e, gr_stream *s, uint64_t seq);

#endif /* GR_EVENT_H */
