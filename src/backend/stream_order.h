/*
 * stream_order.h - what the layers above the backend read of a stream's
 * order without a call: the ops a stream has published and completed,
 * and its sticky error (memory pools stamp each free with the tail and
 * test it against the completions on their allocation and free paths).
 * A CPU stream's counters, read through its own struct; a device kind's
 * stream counts no ops (its tail reads 0, every count of 0 is reached)
 * and keeps its errors in the driver.
 */
#ifndef GR_STREAM_ORDER_H
#define GR_STREAM_ORDER_H

#include "cpu/stream_int.h"

/* The count of ops published on s so far. */
static inline uint64_t gr__stream_tail(gr_stream *s)
{
    return GR_UNLIKELY(s->device != 0) ? 0 : gr_load_acquire(&gr__cpu_stream(s)->tail);
}

/* True once s has completed its first 'seq' ops. */
static inline bool gr__stream_reached(gr_stream *s, uint64_t seq)
{
    return GR_UNLIKELY(s->device != 0) ? seq == 0 : gr_load_acquire(&gr__cpu_stream(s)->done) >= seq;
}

/* The first asynchronous error of s's work on the CPU (grSuccess if none,
 * or for a device's stream). */
static inline grError_t gr__stream_sticky(gr_stream *s)
{
    return GR_UNLIKELY(s->device != 0) ? grSuccess : (grError_t)gr_load_relaxed(&gr__cpu_stream(s)->sticky);
}

#endif /* GR_STREAM_ORDER_H */
