/*
 * stream_wait.c - gr__stream_enqueue_wait: a WAIT op queued on behalf of
 * another area, with the same protocol as the event waits of stream.c.
 *
 * Invariant: the op is published under s's lock together with the 'known'
 * note, so a reader of gr__stream_known never sees the note without the
 * wait that justifies it.
 */
#include "stream_wait.h"

bool gr__stream_enqueue_wait(gr_stream *s, gr_stream *t, uint64_t seq)
{
    gr_runtime *rt = gr__runtime_get();
    gr_op *op;
    if (s == t || gr__stream_reached(t, seq))
        return true; /* already ordered: nothing to wait for */
    op = gr__stream_lock_slot(rt, s);
    if (!op)
        return false;
    gr__stream_note_known_locked(s, t, seq);
    op->kind = GR_OP_WAIT;
    gr__stream_retain(t);
    op->u.wait.s = t;
    op->u.wait.seq = seq;
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return true;
}
