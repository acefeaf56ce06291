/*
 * queue.c - the enqueue protocol of a stream: slots in linked segments,
 * publishing, the WAIT ops of event waits and of the legacy stream's
 * implicit synchronisation, and activation.
 *
 * Activation (no lost work): a producer publishes its op under the
 * stream's lock and, unlocking, creates a drain token unless ACTIVE says
 * one exists; the drainer (drain.c), finding no op in an unlocked lock
 * word, clears ACTIVE with a compare-and-swap of that very word. Every
 * publishing unlock changes the word, so either the swap fails and the
 * drainer looks again, or the producer's lock came after it and saw ACTIVE
 * clear.
 *
 * Lock order: a stream's lock, then rt->streams_lock (legacy_waits).
 */
#include "event.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- checker */

/* Under s's lock: the producer's side of stream_int.h's invariants. */
static const char *queue_broken_locked(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t t = gr_load_relaxed(&c->tail);
    if (c->tail_base % GR_SEG_SLOTS != 0 || t < c->tail_base || t - c->tail_base > GR_SEG_SLOTS)
        return "'tail' is not within the tail segment, whose base is a multiple of GR_SEG_SLOTS";
    if (gr_load_relaxed(&c->tail_seg->next) != NULL)
        return "the tail segment has a next segment";
    for (uint64_t i = c->tail_base; i < t; i++)
        if (gr_load_relaxed(&c->tail_seg->slots[i - c->tail_base].seq) != i + 1)
            return "a published slot of the tail segment does not carry its op index + 1";
    if (gr_load_acquire(&c->done) > t)
        return "'done' is past 'tail'";
    return NULL;
}

bool gr__stream_queue_is_valid(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr__stream_lock(s);
    const char *why = queue_broken_locked(s);
    uint64_t t = gr_load_relaxed(&c->tail), base = c->tail_base;
    gr__stream_unlock_no_activate(s); /* nothing published */
    if (why)
        fprintf(stderr, "graphrt: stream %p breaks an invariant of stream_int.h: %s (tail %llu, base %llu)\n",
                (void *)s, why, (unsigned long long)t, (unsigned long long)base);
    return why == NULL;
}

/* ---------------------------------------------------------------- enqueue */

static gr_seg *seg_get(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr_seg *seg = gr_load_acquire(&c->free_segs);
    /* Single popper (we hold the lock), so no ABA. */
    while (seg && !gr_cas_weak_acquire_acquire(&c->free_segs, &seg, seg->free_next))
        ;
    if (!seg) {
        seg = gr__aligned_alloc(GR_CACHELINE, sizeof *seg);
        if (!seg)
            return NULL;
        memset(seg, 0, sizeof *seg);
    }
    gr_store_relaxed(&seg->next, NULL);
    return seg;
}

void gr__seg_put(gr_stream *s, gr_seg *seg)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr_seg *head = gr_load_relaxed(&c->free_segs);
    do
        seg->free_next = head;
    while (!gr_cas_weak_release(&c->free_segs, &head, seg));
}

gr_op *gr__stream_next_slot(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t t = gr_load_relaxed(&c->tail);
    if (GR_UNLIKELY(t - c->tail_base == GR_SEG_SLOTS)) {
        gr_seg *n = seg_get(s);
        if (!n)
            return NULL;
        gr_store_release(&c->tail_seg->next, n);
        c->tail_seg = n;
        c->tail_base = t;
    }
    return &c->tail_seg->slots[t - c->tail_base];
}

void gr__stream_publish(gr_stream *s, gr_op *op)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t t = gr_load_relaxed(&c->tail) + 1;
    gr_store_release(&op->seq, t);
    gr_store_release(&c->tail, t);
}

void gr__stream_publish_wait(gr_stream *s, gr_op *op, gr_stream *t, uint64_t seq)
{
    gr__stream_note_known_locked(s, t, seq);
    op->kind = GR_OP_WAIT;
    op->u.wait.s = t;
    op->u.wait.seq = seq;
    gr__stream_publish(s, op);
}

/* Appends a WAIT op on (t, seq) under s's lock; t is retained by the op,
 * the caller holding a reference of its own on t. */
static bool emit_wait(gr_stream *s, gr_stream *t, uint64_t seq)
{
    gr_op *op = gr__stream_next_slot(s);
    if (!op)
        return false;
    gr__stream_retain(t);
    gr__stream_publish_wait(s, op, t, seq);
    return true;
}

/* emit_wait for a stream t found in the registry (under streams_lock),
 * which nobody may hold a reference on: the op takes one only if t is
 * not already on its way to being freed (then it has nothing to wait
 * for). */
static bool emit_wait_registered(gr_stream *s, gr_stream *t, uint64_t seq)
{
    /* The slot first: a reference dropped here could free t, whose
     * removal from the registry takes the lock held. An unpublished slot
     * is simply the next one again. */
    gr_op *op = gr__stream_next_slot(s);
    if (!op)
        return false;
    gr__debug_pause("registry");
    if (gr__stream_retain_registered(t))
        gr__stream_publish_wait(s, op, t, seq);
    return true;
}

bool gr__stream_enqueue_wait(gr_stream *s, gr_stream *t, uint64_t seq)
{
    gr_runtime *rt = gr__runtime_get();
    gr_op *op;
    if (s == t || gr__cpu_stream_reached(t, seq))
        return true; /* already ordered: nothing to wait for */
    op = gr__stream_lock_slot(rt, s);
    if (!op)
        return false;
    gr__stream_retain(t);
    gr__stream_publish_wait(s, op, t, seq);
    gr__stream_unlock(rt, s);
    return true;
}

/* The legacy stream's implicit synchronisation, as in CUDA: work on the
 * legacy stream waits for all earlier work of blocking streams, and work
 * on a blocking stream waits for all earlier work of the legacy stream. */
static bool legacy_waits(gr_runtime *rt, gr_stream *s)
{
    if (s->flags & GR_STREAM_NONBLOCKING)
        return true;
    if (!(s->flags & GR_STREAM_LEGACY)) {
        gr_stream *l = rt->legacy;
        if (gr__stream_pending(l))
            return emit_wait(s, l, gr_load_acquire(&gr__cpu_stream(l)->tail));
        return true;
    }
    bool ok = true;
    pthread_mutex_lock(&rt->streams_lock);
    for (gr_cpu_stream *b = rt->streams; b && ok; b = b->reg_next)
        if (!(b->h.flags & GR_STREAM_NONBLOCKING) && gr__stream_pending(&b->h))
            ok = emit_wait_registered(s, &b->h, gr_load_acquire(&b->tail));
    pthread_mutex_unlock(&rt->streams_lock);
    return ok;
}

gr_op *gr__stream_lock_slot(gr_runtime *rt, gr_stream *s)
{
    gr_op *op;
    gr__stream_lock(s);
    if (!legacy_waits(rt, s)) {
        gr__stream_unlock(rt, s);
        return NULL;
    }
    op = gr__stream_next_slot(s);
    if (!op)
        gr__stream_unlock(rt, s);
    return op;
}

void gr__stream_unlock(gr_runtime *rt, gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t w = (gr_load_relaxed(&c->lockw) & ~(uint64_t)GR_STREAM_LOCKED) + GR_STREAM_UNLOCK_UNIT;
    if (w & GR_STREAM_ACTIVE) {
        /* The token's holder will see what was published: its give-up
         * fails unless it read this store. */
        gr_store_release(&c->lockw, w);
        return;
    }
    /* A new drain token; once the handle is gone it needs a reference of
     * its own (this caller holds one, so the count is not zero). */
    if (GR_UNLIKELY(w & GR_STREAM_GONE))
        gr__stream_retain(s);
    gr_store_release(&c->lockw, w | GR_STREAM_ACTIVE);
    /* An application thread usually synchronises soon after it launches:
     * its mailbox keeps the token for it at the cost of a store. */
    gr_worker *slot = gr__sched_mail_slot(rt);
    if (slot) {
        if (gr_load_relaxed(&c->mail_slot) != slot)
            gr_store_relaxed(&c->mail_slot, slot);
        gr__sched_mail(rt, slot, gr__item_make(s, GR_ITEM_TOKEN));
        return;
    }
    gr_store_release(&c->queued, true);
    gr__sched_submit(rt, gr__item_make(s, GR_ITEM_STREAM));
}

grError_t gr__stream_enqueue_call(const char *call, gr_stream *s, gr_op_fn fn, const void *data, size_t size)
{
    gr_runtime *rt = gr__runtime_get();
    gr_op *op;
    if (GR_NEVER(size > GR_OP_DATA_MAX))
        return gr__fail(grErrorInvalidValue, "%s: internal payload too large", call);
    op = gr__stream_lock_slot(rt, s);
    if (!op)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory queuing on stream %p", call, GR_PTR(s));
    op->kind = GR_OP_CALL;
    op->u.call.fn = fn;
    if (size)
        memcpy(op->data, data, size);
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}