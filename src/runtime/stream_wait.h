/*
 * stream_wait.h - queuing a wait of one stream on another from outside
 * the runtime (memory pools use it for their internal dependencies).
 *
 * Invariant: the WAIT op holds a reference on the stream waited on until
 * it has run, so the caller may drop its own reference right after.
 */
#ifndef GR_STREAM_WAIT_H
#define GR_STREAM_WAIT_H

#include "stream_int.h"

/* Queues on s a WAIT op for t's first 'seq' ops and records that s's
 * future work follows them (gr__stream_known). Returns false, queuing
 * nothing, when out of memory. s must not be capturing. */
bool gr__stream_enqueue_wait(gr_stream *s, gr_stream *t, uint64_t seq);

#endif /* GR_STREAM_WAIT_H */
