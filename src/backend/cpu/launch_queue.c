/*
 * launch_queue.c - grGraphLaunch's CPU part: queues one GRAPH op on the
 * launch's stream, after a wait for the previous launch when the
 * executable moves to another stream, so that launches of one executable
 * never overlap; the stream's drainer then runs it (launch.c). Writers of
 * the plan (setters, update) exclude launches through
 * gr__exec_write_begin (backend/exec.c), whose lock and bias a launch
 * tests here under the stream's lock.
 *
 * Invariants:
 *   - last_stream moves to or from a stream only under that stream's lock
 *     and the executable's lock, so a launch on the stream of the last one
 *     needs only that stream's lock;
 *   - launch_moving takes the two streams' locks in address order, after
 *     the executable's;
 *   - an event record node's event points at the launch op once the op is
 *     published, before the stream's lock is dropped.
 */
#include "../plan.h"
#include "event.h"
#include "stream_int.h"

/* Points every event record node's event at the launch just published
 * (s's lock held): a wait issued after grGraphLaunch waits for the launch
 * (the whole of it: graphrt does not complete an event in the middle of a
 * graph). An event with timing gets a STAMP op after the launch, as
 * grEventRecord queues, so that it holds the time the launch ended; one
 * without (or if the op cannot be had) completes with the launch. */
static void record_events(gr_plan *p, gr_stream *s)
{
    uint64_t launch_seq = gr__stream_tail_locked(s);
    for (uint32_t i = 0; i < p->nrecord; i++) {
        grEvent_t ev = p->nodes[p->record_nodes[i]].u.event;
        gr_op *op = (ev->flags & grEventDisableTiming) ? NULL : gr__stream_next_slot(s);
        if (op) {
            gr__event_record_locked(ev, s, op);
            gr__stream_publish(s, op);
        } else {
            gr__event_record_untimed(ev, s, launch_seq);
        }
    }
}

/* Fills op, the slot just taken on s (s's lock held), as a launch of e,
 * publishes it, counts it and makes it e's last launch. */
static void publish_launch(grGraphExec_t e, gr_stream *s, gr_op *op)
{
    op->kind = GR_OP_GRAPH;
    op->u.graph.exec = e;
    op->u.graph.drop = gr__stream_cache_exec_locked(s, e);
    gr_store_relaxed(&e->last_seq, gr__stream_tail_locked(s) + 1);
    gr_store_relaxed(&e->launches, gr_load_relaxed(&e->launches) + 1);
    gr__stream_publish(s, op);
    if (e->plan.nrecord)
        record_events(&e->plan, s);
}

static GR_NOINLINE grError_t launch_oom(gr_stream *stream)
{
    return gr__fail(grErrorMemoryAllocation, "grGraphLaunch: out of memory queuing on stream %p",
                    GR_PTR(stream));
}

/* A first launch, or one on another stream than the last: under e's
 * lock and the locks of both streams (taken in address order), queue a
 * wait for the last launch unless it is over, then the launch, and move
 * last_stream to s. */
static GR_NOINLINE grError_t launch_moving(gr_runtime *rt, grGraphExec_t e, gr_stream *s)
{
    gr__exec_lock_unbiased(e);
    gr_stream *prev = gr_load_relaxed(&e->last_stream);
    gr_stream *from = prev != s ? prev : NULL; /* another thread may have moved it here */
    if (from && from < s)
        gr__stream_lock(from);
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (from && from > s && op)
        gr__stream_lock(from);
    if (!op) {
        if (from && from < s)
            gr__stream_unlock_no_activate(from);
        gr__spin_unlock(&e->lock);
        return launch_oom(s);
    }
    uint64_t last_seq = gr_load_relaxed(&e->last_seq);
    if (from && !gr__cpu_stream_reached(from, last_seq)) {
        /* The previous launch may still run: this one starts after it, as
         * launches of one executable never overlap. */
        gr__stream_retain(from);
        gr__stream_publish_wait(s, op, from, last_seq);
        op = gr__stream_next_slot(s);
        if (!op) {
            gr__stream_unlock_no_activate(from);
            gr__stream_unlock(rt, s);
            gr__spin_unlock(&e->lock);
            return launch_oom(s);
        }
    }
    if (prev != s) {
        gr__stream_retain(s);
        gr_store_relaxed(&e->last_stream, s);
    }
    publish_launch(e, s, op);
    if (from)
        gr__stream_unlock_no_activate(from);
    gr__stream_unlock(rt, s);
    gr__spin_unlock(&e->lock);
    if (from)
        gr__stream_release(from);
    return grSuccess;
}

grError_t gr__exec_launch(grGraphExec_t graphExec, gr_stream *s)
{
    gr_runtime *rt = gr__runtime_get();
    /* The usual case, a launch on the stream of the last one, needs only
     * s's lock: last_stream moves to or from a stream only under that
     * stream's lock, so it cannot change while s's lock is held. */
    if (gr_load_relaxed(&graphExec->last_stream) != s)
        return launch_moving(rt, graphExec, s);
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (!op)
        return launch_oom(s);
    /* A writer of the plan holds e's lock, or another thread holds the
     * bias: queue through e's lock. Pairs with gr__exec_write_begin (the
     * stream's lock was taken seq_cst). */
    if (GR_UNLIKELY(gr_load_relaxed(&graphExec->last_stream) != s ||
                    gr__spin_held_seq_cst(&graphExec->lock) || gr__exec_biased_elsewhere(graphExec))) {
        gr__stream_unlock(rt, s);
        return launch_moving(rt, graphExec, s);
    }
    publish_launch(graphExec, s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}
