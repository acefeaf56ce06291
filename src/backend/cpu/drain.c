/*
 * drain.c - running a stream's ops in order (the holder of its drain
 * token), suspending on a WAIT op and resuming when it is over, giving the
 * token up, and waiting for a stream (synchronising threads run the work
 * they wait for).
 *
 * Wake-ups: a waiter counts itself (sleepers, nwaiters) and announces
 * itself in the lock word before it reads 'done'; a drainer stores 'done',
 * then a seq_cst fence (or its give-up's CAS) before it reads the counts
 * (notify): Dekker, so no waiter sleeps through the completion it waits
 * for.
 */
#include "event.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ drain */

/* The next published op of s, or NULL. Token holder only. */
static gr_op *peek(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t i = c->head - c->head_base;
    if (i == GR_SEG_SLOTS) {
        gr_seg *n = gr_load_acquire(&c->head_seg->next);
        if (!n)
            return NULL;
        gr__seg_put(s, c->head_seg);
        c->head_seg = n;
        c->head_base = c->head;
        i = 0;
    }
    gr_op *op = &c->head_seg->slots[i];
    return gr_load_acquire(&op->seq) == c->head + 1 ? op : NULL;
}

static void run_op(gr_worker *w, gr_stream *s, gr_op *op)
{
    switch ((enum gr_op_kind)op->kind) {
    case GR_OP_NOP:
        return;
    case GR_OP_KERNEL: {
        grKernel_t k = op->u.kern.k;
        grKernel_t drop = op->drop;
        void *argv[64];
        unsigned char *args = op->heap_args ? *(unsigned char **)op->data : op->data;
        for (int i = 0; i < k->nparams; i++)
            argv[i] = args + k->offsets[i];
        gr_kernel_call c = {k, op->u.kern.grid, op->u.kern.block, op->shmem, argv, op->coop != 0, NULL};
        gr__kernel_run(&c);
        if (op->heap_args)
            gr__free(args);
        if (drop)
            gr__kernel_release(drop);
        return;
    }
    case GR_OP_HOST:
        op->u.host.fn(op->u.host.user);
        return;
    case GR_OP_CALL:
        op->u.call.fn(op->data);
        return;
    case GR_OP_WAIT:
        /* Reached: suspend_on() checked before run_op was called. */
        gr__stream_release(op->u.wait.s);
        return;
    case GR_OP_STAMP:
        gr__event_stamp(op->u.stamp.ev, op->u.stamp.gen);
        gr__event_release(op->u.stamp.ev);
        return;
    case GR_OP_GRAPH:
        gr__exec_run(w, op->u.graph.exec, s, gr__cpu_stream(s)->head + 1);
        if (op->u.graph.drop)
            gr__exec_release(op->u.graph.drop);
        return;
    }
}

/* run_op while tracing: a span for each kernel, host function and call
 * (copies, memsets and the pools' operations); a graph launch traces
 * itself (launch.c). The kernel's name is copied first: the op may drop
 * the last reference to its kernel. */
static GR_NOINLINE void run_op_traced(gr_worker *w, gr_stream *s, gr_op *op)
{
    char name[32];
    switch ((enum gr_op_kind)op->kind) {
    case GR_OP_KERNEL:
        snprintf(name, sizeof name, "%s", op->u.kern.k->name);
        break;
    case GR_OP_HOST:
        snprintf(name, sizeof name, "host function");
        break;
    case GR_OP_CALL:
        snprintf(name, sizeof name, "copy, set or pool op");
        break;
    case GR_OP_NOP:
    case GR_OP_WAIT:
    case GR_OP_STAMP:
    case GR_OP_GRAPH:
        run_op(w, s, op);
        return;
    }
    uint64_t t0 = gr__trace_clock();
    run_op(w, s, op);
    gr__trace_emit(GR_TR_OP, name, t0, gr__trace_clock(), s->serial, 0, 0, w->index);
}

/* Queues suspended streams whose wait is over. */
static GR_NOINLINE void resume_waiters(gr_stream *s)
{
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t done = gr_load_acquire(&c->done);
    gr_cpu_stream *ready = NULL;
    gr__spin_lock(&c->wlock);
    for (gr_cpu_stream **pp = &c->waiters; *pp;) {
        gr_cpu_stream *x = *pp;
        if (x->wait_seq <= done) {
            *pp = x->wait_next;
            x->wait_next = ready;
            ready = x;
            gr_fetch_sub_seq_cst(&c->nwaiters, 1); /* in the order notify() reads it */
        } else {
            pp = &x->wait_next;
        }
    }
    gr__spin_unlock(&c->wlock);
    while (ready) {
        gr_cpu_stream *x = ready;
        ready = x->wait_next;
        x->wait_next = NULL;
        /* Its token comes back with a queue item, as at activation. */
        gr_store_release(&x->queued, true);
        gr__sched_submit(rt, gr__item_make(&x->h, GR_ITEM_STREAM));
    }
}

/* Wakes whoever waits for ops of s that are now done. Call after a
 * seq_cst operation that follows the store of 'done' (Dekker with the
 * sleepers of gr__stream_wait_for and with suspend_on, which count
 * themselves with seq_cst RMWs, announce(), and then read 'done'). */
static void notify(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    if (GR_UNLIKELY(gr_load_seq_cst(&c->nwaiters) > 0))
        resume_waiters(s);
    if (GR_UNLIKELY(gr_load_seq_cst(&c->sleepers) > 0)) {
        gr_fetch_add_acq_rel(&c->done_futex, 1u);
        gr__futex_wake(&c->done_futex, 1 << 30);
    }
}

/* Tells the drainer of s that a waiter is counted (in 'sleepers' or
 * 'nwaiters'): sets NOTIFY and moves the unlock count, so that a give-up
 * that read the word before fails and wakes the waiter. A seq_cst RMW: the
 * caller reads 'done' after it. */
static void announce(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t w = gr_load_relaxed(&c->lockw);
    for (;;) {
        if (!(w & GR_STREAM_LOCKED) &&
            gr_cas_weak_seq_cst(&c->lockw, &w, (w | GR_STREAM_NOTIFY) + GR_STREAM_UNLOCK_UNIT))
            return;
        if (w & GR_STREAM_LOCKED) {
            gr__cpu_relax();
            w = gr_load_relaxed(&c->lockw);
        }
    }
}

/* Tells waiters of the ops a drainer completed since it last did
 * ('unsettled'), after the fence that notify() needs. */
static inline void settle(gr_stream *s, bool *unsettled)
{
    if (*unsettled) {
        gr_fence_seq_cst();
        notify(s);
        *unsettled = false;
    }
}

enum give_up {
    GIVEN_UP,
    MORE_OPS,
    CONTENDED
};

/* Pauses (ticks, see gr__ticks) of a drainer that found its producer at
 * work: they double from the first to the last. */
#define GR_PRODUCER_PAUSE_MIN 64u
#define GR_PRODUCER_PAUSE_MAX 4096u

/* The token holder gives the token up, unless an op was published since
 * it found none (MORE_OPS) or the lock word moved under it (CONTENDED: a
 * producer is at work). 'unsettled' says ops completed that waiters were
 * not told of. Once the swap succeeds the stream may be freed by anyone:
 * touch nothing of it, unless the word says the token owned a reference
 * (GONE), which is dropped last. */
static enum give_up token_give_up(gr_stream *s, bool *unsettled)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t w = gr_load_acquire(&c->lockw);
    if (w & GR_STREAM_LOCKED)
        return CONTENDED;
    if (peek(s))
        return MORE_OPS;
    uint64_t nw = w & ~(uint64_t)GR_STREAM_ACTIVE;
    if (GR_UNLIKELY(w & GR_STREAM_NOTIFY)) {
        gr_fence_seq_cst();
        if (*unsettled)
            notify(s);
        *unsettled = false;
        /* Clear it once nobody is counted: a waiter counts itself before
         * it announces, so one this misses announces later. */
        if (gr_load_seq_cst(&c->nwaiters) == 0 && gr_load_seq_cst(&c->sleepers) == 0)
            nw &= ~(uint64_t)GR_STREAM_NOTIFY;
    }
    if (!gr_cas_strong_seq_cst(&c->lockw, &w, nw))
        return CONTENDED;
    if (w & GR_STREAM_GONE)
        gr__stream_release(s);
    return GIVEN_UP;
}

/* A WAIT op at the head of s: true if s must step aside because t has not
 * completed seq ops yet; then s is in t's waiters and will be queued again
 * when it has. */
static bool suspend_on(gr_stream *s, gr_stream *t, uint64_t seq)
{
    gr_cpu_stream *cs = gr__cpu_stream(s), *ct = gr__cpu_stream(t);
    if (gr__cpu_stream_reached(t, seq))
        return false;
    gr__spin_lock(&ct->wlock);
    cs->wait_seq = seq;
    cs->wait_next = ct->waiters;
    ct->waiters = cs;
    /* Dekker with notify(): count, announce, then read 'done'. */
    gr_fetch_add_seq_cst(&ct->nwaiters, 1);
    announce(t);
    if (gr__cpu_stream_reached(t, seq)) {
        /* Completed meanwhile: take ourselves back out. */
        ct->waiters = cs->wait_next;
        cs->wait_next = NULL;
        gr_fetch_sub_seq_cst(&ct->nwaiters, 1);
        gr__spin_unlock(&ct->wlock);
        return false;
    }
    gr__spin_unlock(&ct->wlock);
    return true;
}

/* Runs the ops of s while holding its drain token, then gives the token
 * up. Stops after op 'limit' and hands the token to the workers if more
 * ops follow: an application thread drains only what it waits for. */
static void drain(gr_worker *w, gr_stream *s, uint64_t limit)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    /* An op's completion is published with a release store; the seq_cst
     * order that notify() needs comes from a fence before anything else
     * runs (user code may block until a waiter is woken), or, when the
     * stream goes idle, from the give-up, which needs none unless a
     * waiter announced itself. */
    bool unsettled = false;
    uint64_t pause = GR_PRODUCER_PAUSE_MIN;
    bool trace = gr__tracing(); /* read once per drain */
    for (;;) {
        gr_op *op = peek(s);
        if (!op) {
            enum give_up g = token_give_up(s, &unsettled);
            if (g == GIVEN_UP)
                return;
            if (g == CONTENDED) {
                /* A producer is at work. Polling the lines it writes
                 * would slow it down, op by op: stay off them for a
                 * while, longer each time, and take its ops in batches. */
                settle(s, &unsettled);
                gr__pause_ticks(pause);
                if (pause < GR_PRODUCER_PAUSE_MAX)
                    pause *= 2;
            }
            continue; /* published meanwhile, or still contended */
        }
        settle(s, &unsettled);
        if (GR_UNLIKELY(c->head >= limit)) {
            gr_store_release(&c->queued, true);
            gr__sched_submit(gr_load_acquire(&gr__rt), gr__item_make(s, GR_ITEM_STREAM));
            return;
        }
        /* Suspended, token kept: from here on s belongs to whoever
         * resumes it. */
        if (op->kind == GR_OP_WAIT && suspend_on(s, op->u.wait.s, op->u.wait.seq))
            return;
        if (GR_UNLIKELY(trace))
            run_op_traced(w, s, op);
        else
            run_op(w, s, op);
        c->head++;
        gr_store_release(&c->done, c->head);
        unsettled = true;
    }
}

void gr__stream_drain(gr_worker *w, gr_stream *s)
{
    /* Called for a STREAM item: it is ours only if the token is unclaimed. */
    if (!gr_exchange_acq_rel(&gr__cpu_stream(s)->queued, false)) {
        gr__stream_release(s); /* stale item: the claimer's reference */
        return;
    }
    drain(w, s, UINT64_MAX);
}

void gr__stream_drain_token(gr_worker *w, gr_stream *s)
{
    drain(w, s, UINT64_MAX); /* a TOKEN item: claimed by taking it */
}

/* Whether the token of s waits in a mailbox (a hint). */
static bool mailed(gr_stream *s)
{
    gr_worker *m = gr_load_relaxed(&gr__cpu_stream(s)->mail_slot);
    return m && gr__sched_mailed(m, gr__item_make(s, GR_ITEM_TOKEN));
}

/* Claims the drain token of s while it waits in a mailbox or a queue, and
 * drains up to op 'limit'. A mailbox's item goes with the claim. Taking
 * the queue item itself when it is the oldest leaves no stale item
 * behind; otherwise the item stays, and goes stale if this claim wins: it
 * then holds a reference, taken here (the caller holds one, so s is
 * alive). */
static bool try_claim_and_drain(gr_runtime *rt, gr_worker *w, gr_stream *s, uint64_t limit)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr_worker *m = gr_load_relaxed(&c->mail_slot);
    if (m && gr__sched_unmail(m, gr__item_make(s, GR_ITEM_TOKEN))) {
        drain(w, s, limit);
        return true;
    }
    if (!gr_load_relaxed(&c->queued))
        return false;
    bool took = gr__sched_take_injected(rt, gr__item_make(s, GR_ITEM_STREAM));
    if (!took)
        gr__stream_retain(s);
    if (!gr_exchange_acq_rel(&c->queued, false)) {
        /* Another claimer won, and the item is stale: drop its reference,
         * ours, or the one the winner took if this thread holds the item. */
        gr__stream_release(s);
        return false;
    }
    drain(w, s, limit);
    return true;
}

void gr__stream_wait_for(gr_stream *s, uint64_t seq)
{
    gr__stream_wait_for_ex(s, seq, true);
}

void gr__stream_wait_for_ex(gr_stream *s, uint64_t seq, bool help)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr_runtime *rt = gr__runtime_get();
    gr_worker *w = gr__tls_worker, *slot = NULL;
    unsigned idle = 0;
    if (gr__cpu_stream_reached(s, seq))
        return;
    if (!w)
        w = slot = gr__slot_acquire(rt);
    while (!gr__cpu_stream_reached(s, seq)) {
        if (w) {
            /* Run s itself if nobody does, as far as we wait for it; then
             * whatever else this thread may run (gr__sched_help_once). */
            if (try_claim_and_drain(rt, w, s, w->external || !help ? seq : UINT64_MAX))
                continue;
            if (help && gr__sched_help_once(rt, w)) {
                idle = 0;
                continue;
            }
        }
        if (++idle < 2048) {
            gr__cpu_relax();
            continue;
        }
        /* Park on the stream's completion futex. */
        /* Dekker with notify(): count, announce, then read 'done'. */
        gr_fetch_add_seq_cst(&c->sleepers, 1);
        announce(s);
        uint32_t f = gr_load_seq_cst(&c->done_futex);
        if (!gr__cpu_stream_reached(s, seq) && !(w && (gr_load_relaxed(&c->queued) || mailed(s))))
            gr__futex_wait(&c->done_futex, f);
        gr_fetch_sub_seq_cst(&c->sleepers, 1);
        idle = 1024;
    }
    if (slot)
        gr__slot_release(slot);
}

static void legacy_mark(void *data)
{
    (void)data;
}

grError_t gr__stream_sync(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    /* The legacy stream's work is the blocking streams' too: an empty
     * operation queued on it waits for theirs (the implicit waits of
     * gr__stream_lock_slot), and the wait below for it. */
    if (GR_UNLIKELY(s->flags & GR_STREAM_LEGACY) && gr__stream_blocking_pending())
        (void)gr__stream_enqueue_call("grStreamSynchronize", s, legacy_mark, NULL, 0);
    gr__stream_wait_for(s, gr_load_acquire(&c->tail));
    gr_assert_expensive(gr__stream_queue_is_valid(s));
    int e = gr_load_relaxed(&c->sticky);
    if (e)
        return gr__fail_again((grError_t)e);
    return gr__kernel_fault_check("synchronizing a stream");
}

void gr__device_sync_all(void)
{
    gr_runtime *rt = gr__runtime_get();
    if (!rt)
        return;
    /* Snapshot targets under the registry lock, wait outside it. */
    for (;;) {
        gr_stream *todo = NULL;
        uint64_t target = 0;
        pthread_mutex_lock(&rt->streams_lock);
        for (gr_cpu_stream *c = rt->streams; c; c = c->reg_next)
            if (gr__stream_pending(&c->h) &&
                (gr__debug_pause("registry"), gr__stream_retain_registered(&c->h))) {
                todo = &c->h;
                target = gr_load_acquire(&c->tail);
                break;
            }
        pthread_mutex_unlock(&rt->streams_lock);
        if (!todo && gr__stream_pending(rt->legacy)) {
            todo = rt->legacy;
            target = gr_load_acquire(&gr__cpu_stream(todo)->tail);
            gr__stream_retain(todo);
        }
        if (!todo)
            return;
        gr__stream_wait_for(todo, target);
        gr__stream_release(todo);
    }
}