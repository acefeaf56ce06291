/*
 * stream.c - streams: creation and destruction, the enqueue protocol, the
 * drain loop that runs a stream's ops in order, waiting and synchronising,
 * and the legacy and per-thread default streams.
 *
 * Activation (no lost work): a producer publishes its op under the
 * stream's lock and, unlocking, creates a drain token unless ACTIVE says
 * one exists; the drainer, finding no op in an unlocked lock word, clears
 * ACTIVE with a compare-and-swap of that very word. Every publishing
 * unlock changes the word, so either the swap fails and the drainer looks
 * again, or the producer's lock came after it and saw ACTIVE clear.
 *
 * Lock order: a stream's lock, then rt->streams_lock (taken when work is
 * queued on the legacy stream). Nothing takes them the other way round. No
 * user code runs under either.
 */
#include "event.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- lifetime */

/* Stream objects, kept as dead shells once freed (core.h). */
static gr_shelf stream_shelf = GR_SHELF_INIT(sizeof(gr_stream));

static gr_stream *stream_new(unsigned flags, unsigned user_flags)
{
    gr_stream *s = gr__shell_alloc(&stream_shelf);
    gr_seg *seg = gr__aligned_alloc(GR_CACHELINE, sizeof *seg);
    if (!s || !seg) {
        if (s) {
            s->magic = GR_MAGIC_DEAD;
            gr__shell_retire(&stream_shelf, s);
        }
        gr__free(seg);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    memset(seg, 0, sizeof *seg);
    static atomic_uint_fast64_t serials;
    s->magic = GR_MAGIC_STREAM;
    s->serial = gr_fetch_add_relaxed(&serials, 1) + 1;
    s->flags = flags;
    s->user_flags = user_flags;
    atomic_init(&s->refs, 1);
    s->tail_seg = s->head_seg = seg;
    return s;
}

static void registry_remove(gr_runtime *rt, gr_stream *s);

void gr__stream_note_known_locked(gr_stream *s, gr_stream *t, uint64_t seq)
{
    unsigned i;
    if (s == t)
        return;
    for (i = 0; i < GR_KNOWN_MAX; i++)
        if (s->known[i].id == t->serial) {
            if (s->known[i].seq < seq)
                s->known[i].seq = seq;
            return;
        }
    i = s->known_next++ % GR_KNOWN_MAX;
    s->known[i].id = t->serial;
    s->known[i].seq = seq;
}

uint64_t gr__stream_known_by_waits(gr_stream *s, gr_stream *t)
{
    uint64_t k = 0;
    gr__stream_lock(s);
    for (unsigned i = 0; i < GR_KNOWN_MAX; i++)
        if (s->known[i].id == t->serial)
            k = s->known[i].seq;
    gr__stream_unlock_no_activate(s);
    return k;
}

uint64_t gr__stream_known(gr_stream *s, gr_stream *t)
{
    if (s == t)
        return gr_load_acquire(&s->tail);
    uint64_t k = gr__stream_known_by_waits(s, t);
    uint64_t done = gr_load_acquire(&t->done);
    return done > k ? done : k;
}

gr_stream *gr__stream_legacy(void)
{
    gr_runtime *rt = gr__runtime_get();
    return rt ? rt->legacy : NULL;
}

grKernel_t gr__stream_cache_kernel_locked(gr_stream *s, grKernel_t k)
{
    unsigned i;
    for (i = 0; i < GR_KCACHE; i++)
        if (s->kcache[i] == k)
            return NULL;
    i = s->kcache_next++ % GR_KCACHE;
    grKernel_t evicted = s->kcache[i];
    gr__kernel_retain(k);
    s->kcache[i] = k;
    return evicted;
}

struct grGraphExec_st *gr__stream_cache_exec_locked(gr_stream *s, struct grGraphExec_st *e)
{
    struct grGraphExec_st *evicted = s->last_exec;
    if (evicted == e)
        return NULL;
    gr__exec_retain(e);
    s->last_exec = e;
    return evicted;
}

static void stream_free(gr_stream *s)
{
    gr_seg *seg = s->head_seg;
    if (s->last_exec)
        gr__exec_release(s->last_exec);
    for (unsigned i = 0; i < GR_KCACHE; i++)
        if (s->kcache[i])
            gr__kernel_release(s->kcache[i]);
    if (s->rt)
        registry_remove(s->rt, s);
    while (seg) {
        gr_seg *n = gr_load_relaxed(&seg->next);
        gr__free(seg);
        seg = n;
    }
    seg = gr_load_relaxed(&s->free_segs);
    while (seg) {
        gr_seg *n = seg->free_next;
        gr__free(seg);
        seg = n;
    }
    gr__mark_dead(&s->magic);
    gr__shell_retire(&stream_shelf, s);
}

void gr__stream_retain(gr_stream *s)
{
    gr_fetch_add_relaxed(&s->refs, 1);
}

/* A reference on a stream found in the registry, where it stays until
 * stream_free takes it out: its count may have reached 0 already (its
 * last holder is on its way to stream_free), and then no reference may be
 * taken. Returns false in that case; such a stream has no work left. */
static bool retain_registered(gr_stream *s)
{
    int r = gr_load_relaxed(&s->refs);
    while (r > 0 && !gr_cas_weak_relaxed(&s->refs, &r, r + 1))
        ;
    return r > 0;
}

void gr__stream_release(gr_stream *s)
{
    if (gr_fetch_sub_acq_rel(&s->refs, 1) == 1)
        stream_free(s);
}

static void registry_add(gr_runtime *rt, gr_stream *s)
{
    pthread_mutex_lock(&rt->streams_lock);
    s->rt = rt;
    s->registered = true;
    s->reg_prev = NULL;
    s->reg_next = rt->streams;
    if (rt->streams)
        rt->streams->reg_prev = s;
    rt->streams = s;
    pthread_mutex_unlock(&rt->streams_lock);
}

static void registry_remove(gr_runtime *rt, gr_stream *s)
{
    pthread_mutex_lock(&rt->streams_lock);
    if (!s->registered) {
        pthread_mutex_unlock(&rt->streams_lock);
        return;
    }
    s->registered = false;
    if (s->reg_prev)
        s->reg_prev->reg_next = s->reg_next;
    else if (rt->streams == s)
        rt->streams = s->reg_next;
    if (s->reg_next)
        s->reg_next->reg_prev = s->reg_prev;
    s->reg_next = s->reg_prev = NULL;
    pthread_mutex_unlock(&rt->streams_lock);
}

/* ------------------------------------------------------ per-thread stream */

static pthread_key_t per_thread_key;
static pthread_once_t per_thread_once = PTHREAD_ONCE_INIT;
static _Thread_local gr_stream *tls_per_thread;
static _Thread_local uint64_t tls_per_thread_gen;

/* The handle's owner lets go of s: its reference goes to the drain token
 * if one exists (GONE tells the token to drop it), else now. */
static void handle_drop(gr_stream *s)
{
    gr__stream_lock(s);
    uint64_t w = gr_load_relaxed(&s->lockw);
    gr_store_release(&s->lockw, (w & ~(uint64_t)GR_STREAM_LOCKED) | GR_STREAM_GONE);
    if (!(w & GR_STREAM_ACTIVE))
        gr__stream_release(s);
}

static bool pending(gr_stream *s);

/* The references of a stream's caches, dropped together. */
typedef struct cached_refs {
    struct grGraphExec_st *exec;
    grKernel_t kernels[GR_KCACHE];
} cached_refs;

static void release_cached(void *data)
{
    cached_refs r;
    memcpy(&r, data, sizeof r);
    if (r.exec)
        gr__exec_release(r.exec);
    for (unsigned i = 0; i < GR_KCACHE; i++)
        if (r.kernels[i])
            gr__kernel_release(r.kernels[i]);
}

/* A stream whose handle is dead is launched on no more: its caches of the
 * executable and kernels it launched last (which spare each launch an
 * atomic operation) are dropped once the work queued so far has run, by
 * an op at the tail, or at once if there is none. Else an executable and
 * the stream it was last launched on, each holding the other, would keep
 * each other alive after both handles are gone. Out of memory for the op,
 * the references stay until the stream is freed. */
static void drop_caches(gr_runtime *rt, gr_stream *s)
{
    _Static_assert(sizeof(cached_refs) <= GR_OP_DATA_MAX, "the references fit an op's payload");
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (!op)
        return;
    cached_refs r = {s->last_exec, {NULL}};
    memcpy(r.kernels, s->kcache, sizeof r.kernels);
    s->last_exec = NULL;
    memset(s->kcache, 0, sizeof s->kcache);
    if (!pending(s)) {
        gr__stream_unlock_no_activate(s);
        release_cached(&r);
        return;
    }
    op->kind = GR_OP_CALL;
    op->u.call.fn = release_cached;
    memcpy(op->data, &r, sizeof r);
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
}

/* Drops the reference of a stream's handle once (grStreamDestroy, thread
 * exit, runtime reset, whichever comes first). */
static void kill_handle(gr_runtime *rt, gr_stream *s)
{
    bool first;
    pthread_mutex_lock(&rt->streams_lock);
    first = !s->handle_dead;
    s->handle_dead = true;
    s->magic = GR_MAGIC_DEAD;
    pthread_mutex_unlock(&rt->streams_lock);
    if (first) {
        drop_caches(rt, s);
        handle_drop(s);
    }
}

static void per_thread_destroy(void *p)
{
    gr_stream *s = p;
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    /* The runtime may have been reset since; then the stream is gone. */
    if (!rt || rt->generation != tls_per_thread_gen)
        return;
    kill_handle(rt, s);
}

static void per_thread_key_init(void)
{
    pthread_key_create(&per_thread_key, per_thread_destroy);
}

static gr_stream *per_thread_stream(gr_runtime *rt)
{
    gr_stream *s = tls_per_thread;
    if (GR_LIKELY(s && tls_per_thread_gen == rt->generation))
        return s;
    s = stream_new(GR_STREAM_PER_THREAD, grStreamDefault);
    if (!s)
        return NULL;
    pthread_once(&per_thread_once, per_thread_key_init);
    registry_add(rt, s);
    tls_per_thread = s;
    tls_per_thread_gen = rt->generation;
    pthread_setspecific(per_thread_key, s);
    return s;
}

/* ---------------------------------------------------------------- handles */

grError_t gr__stream_from_handle_slow(const char *call, grStream_t h, gr_stream **out)
{
    gr_runtime *rt = gr__runtime_get();
    if (GR_UNLIKELY(!rt))
        return gr__fail(grErrorInitializationError,
                        "%s: the graphrt runtime could not start (out of memory or "
                        "threads)",
                        call);
    if (h == NULL || h == grStreamLegacy) {
        *out = rt->legacy;
        return grSuccess;
    }
    if (h == grStreamPerThread) {
        gr_stream *s = per_thread_stream(rt);
        if (!s)
            return gr__fail(grErrorMemoryAllocation,
                            "%s: out of memory creating the per-thread default stream", call);
        *out = s;
        return grSuccess;
    }
    gr_stream *s = (gr_stream *)h;
    if (GR_UNLIKELY(s->magic != GR_MAGIC_STREAM))
        return gr__fail(grErrorInvalidResourceHandle,
                        "%s: stream %p is not a live stream (destroyed, or not created by grStreamCreate)",
                        call, GR_PTR(h));
    *out = s;
    return grSuccess;
}

/* ---------------------------------------------------------------- enqueue */

static gr_seg *seg_get(gr_stream *s)
{
    gr_seg *seg = gr_load_acquire(&s->free_segs);
    /* Single popper (we hold the lock), so no ABA. */
    while (seg && !gr_cas_weak_acquire_acquire(&s->free_segs, &seg, seg->free_next))
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

static void seg_put(gr_stream *s, gr_seg *seg)
{
    gr_seg *head = gr_load_relaxed(&s->free_segs);
    do
        seg->free_next = head;
    while (!gr_cas_weak_release(&s->free_segs, &head, seg));
}

gr_op *gr__stream_next_slot(gr_stream *s)
{
    uint64_t t = gr_load_relaxed(&s->tail);
    if (GR_UNLIKELY(t - s->tail_base == GR_SEG_SLOTS)) {
        gr_seg *n = seg_get(s);
        if (!n)
            return NULL;
        gr_store_release(&s->tail_seg->next, n);
        s->tail_seg = n;
        s->tail_base = t;
    }
    return &s->tail_seg->slots[t - s->tail_base];
}

void gr__stream_publish(gr_stream *s, gr_op *op)
{
    uint64_t t = gr_load_relaxed(&s->tail) + 1;
    gr_store_release(&op->seq, t);
    gr_store_release(&s->tail, t);
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
    if (retain_registered(t))
        gr__stream_publish_wait(s, op, t, seq);
    return true;
}

bool gr__stream_enqueue_wait(gr_stream *s, gr_stream *t, uint64_t seq)
{
    gr_runtime *rt = gr__runtime_get();
    gr_op *op;
    if (s == t || gr__stream_reached(t, seq))
        return true; /* already ordered: nothing to wait for */
    op = gr__stream_lock_slot(rt, s);
    if (!op)
        return false;
    gr__stream_retain(t);
    gr__stream_publish_wait(s, op, t, seq);
    gr__stream_unlock(rt, s);
    return true;
}

static bool pending(gr_stream *s)
{
    return gr_load_acquire(&s->done) < gr_load_acquire(&s->tail);
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
        if (pending(l))
            return emit_wait(s, l, gr_load_acquire(&l->tail));
        return true;
    }
    bool ok = true;
    pthread_mutex_lock(&rt->streams_lock);
    for (gr_stream *b = rt->streams; b && ok; b = b->reg_next)
        if (!(b->flags & GR_STREAM_NONBLOCKING) && pending(b))
            ok = emit_wait_registered(s, b, gr_load_acquire(&b->tail));
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
    uint64_t w = (gr_load_relaxed(&s->lockw) & ~(uint64_t)GR_STREAM_LOCKED) + GR_STREAM_UNLOCK_UNIT;
    if (w & GR_STREAM_ACTIVE) {
        /* The token's holder will see what was published: its give-up
         * fails unless it read this store. */
        gr_store_release(&s->lockw, w);
        return;
    }
    /* A new drain token; once the handle is gone it needs a reference of
     * its own (this caller holds one, so the count is not zero). */
    if (GR_UNLIKELY(w & GR_STREAM_GONE))
        gr__stream_retain(s);
    gr_store_release(&s->lockw, w | GR_STREAM_ACTIVE);
    /* An application thread usually synchronises soon after it launches:
     * its mailbox keeps the token for it at the cost of a store. */
    gr_worker *slot = gr__sched_mail_slot(rt);
    if (slot) {
        if (gr_load_relaxed(&s->mail_slot) != slot)
            gr_store_relaxed(&s->mail_slot, slot);
        gr__sched_mail(rt, slot, gr__item_make(s, GR_ITEM_TOKEN));
        return;
    }
    gr_store_release(&s->queued, true);
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

/* ------------------------------------------------------------------ drain */

/* The next published op of s, or NULL. Token holder only. */
static gr_op *peek(gr_stream *s)
{
    uint64_t i = s->head - s->head_base;
    if (i == GR_SEG_SLOTS) {
        gr_seg *n = gr_load_acquire(&s->head_seg->next);
        if (!n)
            return NULL;
        seg_put(s, s->head_seg);
        s->head_seg = n;
        s->head_base = s->head;
        i = 0;
    }
    gr_op *op = &s->head_seg->slots[i];
    return gr_load_acquire(&op->seq) == s->head + 1 ? op : NULL;
}

static void run_op(gr_worker *w, gr_op *op)
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
        gr_kernel_call c = {k, op->u.kern.grid, op->u.kern.block, op->shmem, argv};
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
        gr__exec_run(w, op->u.graph.exec);
        if (op->u.graph.drop)
            gr__exec_release(op->u.graph.drop);
        return;
    }
}

/* Queues suspended streams whose wait is over. */
static GR_NOINLINE void resume_waiters(gr_stream *s)
{
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    uint64_t done = gr_load_acquire(&s->done);
    gr_stream *ready = NULL;
    gr__spin_lock(&s->wlock);
    for (gr_stream **pp = &s->waiters; *pp;) {
        gr_stream *x = *pp;
        if (x->wait_seq <= done) {
            *pp = x->wait_next;
            x->wait_next = ready;
            ready = x;
            gr_fetch_sub_seq_cst(&s->nwaiters, 1); /* in the order notify() reads it */
        } else {
            pp = &x->wait_next;
        }
    }
    gr__spin_unlock(&s->wlock);
    while (ready) {
        gr_stream *x = ready;
        ready = x->wait_next;
        x->wait_next = NULL;
        /* Its token comes back with a queue item, as at activation. */
        gr_store_release(&x->queued, true);
        gr__sched_submit(rt, gr__item_make(x, GR_ITEM_STREAM));
    }
}

/* Wakes whoever waits for ops of s that are now done. Call after a
 * seq_cst operation that follows the store of 'done' (Dekker with the
 * sleepers of gr__stream_wait_for and with suspend_on, which count
 * themselves with seq_cst RMWs, announce(), and then read 'done'). */
static void notify(gr_stream *s)
{
    if (GR_UNLIKELY(gr_load_seq_cst(&s->nwaiters) > 0))
        resume_waiters(s);
    if (GR_UNLIKELY(gr_load_seq_cst(&s->sleepers) > 0)) {
        gr_fetch_add_acq_rel(&s->done_futex, 1u);
        gr__futex_wake(&s->done_futex, 1 << 30);
    }
}

/* Tells the drainer of s that a waiter is counted (in 'sleepers' or
 * 'nwaiters'): sets NOTIFY and moves the unlock count, so that a give-up
 * that read the word before fails and wakes the waiter. A seq_cst RMW: the
 * caller reads 'done' after it. */
static void announce(gr_stream *s)
{
    uint64_t w = gr_load_relaxed(&s->lockw);
    for (;;) {
        if (!(w & GR_STREAM_LOCKED) &&
            gr_cas_weak_seq_cst(&s->lockw, &w, (w | GR_STREAM_NOTIFY) + GR_STREAM_UNLOCK_UNIT))
            return;
        if (w & GR_STREAM_LOCKED) {
            gr__cpu_relax();
            w = gr_load_relaxed(&s->lockw);
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
    uint64_t w = gr_load_acquire(&s->lockw);
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
        if (gr_load_seq_cst(&s->nwaiters) == 0 && gr_load_seq_cst(&s->sleepers) == 0)
            nw &= ~(uint64_t)GR_STREAM_NOTIFY;
    }
    if (!gr_cas_strong_seq_cst(&s->lockw, &w, nw))
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
    if (gr__stream_reached(t, seq))
        return false;
    gr__spin_lock(&t->wlock);
    s->wait_seq = seq;
    s->wait_next = t->waiters;
    t->waiters = s;
    /* Dekker with notify(): count, announce, then read 'done'. */
    gr_fetch_add_seq_cst(&t->nwaiters, 1);
    announce(t);
    if (gr__stream_reached(t, seq)) {
        /* Completed meanwhile: take ourselves back out. */
        t->waiters = s->wait_next;
        s->wait_next = NULL;
        gr_fetch_sub_seq_cst(&t->nwaiters, 1);
        gr__spin_unlock(&t->wlock);
        return false;
    }
    gr__spin_unlock(&t->wlock);
    return true;
}

/* Runs the ops of s while holding its drain token, then gives the token
 * up. Stops after op 'limit' and hands the token to the workers if more
 * ops follow: an application thread drains only what it waits for. */
static void drain(gr_worker *w, gr_stream *s, uint64_t limit)
{
    /* An op's completion is published with a release store; the seq_cst
     * order that notify() needs comes from a fence before anything else
     * runs (user code may block until a waiter is woken), or, when the
     * stream goes idle, from the give-up, which needs none unless a
     * waiter announced itself. */
    bool unsettled = false;
    uint64_t pause = GR_PRODUCER_PAUSE_MIN;
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
        if (GR_UNLIKELY(s->head >= limit)) {
            gr_store_release(&s->queued, true);
            gr__sched_submit(gr_load_acquire(&gr__rt), gr__item_make(s, GR_ITEM_STREAM));
            return;
        }
        /* Suspended, token kept: from here on s belongs to whoever
         * resumes it. */
        if (op->kind == GR_OP_WAIT && suspend_on(s, op->u.wait.s, op->u.wait.seq))
            return;
        run_op(w, op);
        s->head++;
        gr_store_release(&s->done, s->head);
        unsettled = true;
    }
}

void gr__stream_drain(gr_worker *w, gr_stream *s)
{
    /* Called for a STREAM item: it is ours only if the token is unclaimed. */
    if (!gr_exchange_acq_rel(&s->queued, false)) {
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
    gr_worker *m = gr_load_relaxed(&s->mail_slot);
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
    gr_worker *m = gr_load_relaxed(&s->mail_slot);
    if (m && gr__sched_unmail(m, gr__item_make(s, GR_ITEM_TOKEN))) {
        drain(w, s, limit);
        return true;
    }
    if (!gr_load_relaxed(&s->queued))
        return false;
    bool took = gr__sched_take_injected(rt, gr__item_make(s, GR_ITEM_STREAM));
    if (!took)
        gr__stream_retain(s);
    if (!gr_exchange_acq_rel(&s->queued, false)) {
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
    gr_runtime *rt = gr__runtime_get();
    gr_worker *w = gr__tls_worker, *slot = NULL;
    unsigned idle = 0;
    if (gr__stream_reached(s, seq))
        return;
    if (!w)
        w = slot = gr__slot_acquire(rt);
    while (!gr__stream_reached(s, seq)) {
        if (w) {
            /* Run s itself if nobody does, as far as we wait for it; then
             * whatever else this thread may run (gr__sched_help_once). */
            if (try_claim_and_drain(rt, w, s, w->external ? seq : UINT64_MAX))
                continue;
            if (gr__sched_help_once(rt, w)) {
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
        gr_fetch_add_seq_cst(&s->sleepers, 1);
        announce(s);
        uint32_t f = gr_load_seq_cst(&s->done_futex);
        if (!gr__stream_reached(s, seq) && !(w && (gr_load_relaxed(&s->queued) || mailed(s))))
            gr__futex_wait(&s->done_futex, f);
        gr_fetch_sub_seq_cst(&s->sleepers, 1);
        idle = 1024;
    }
    if (slot)
        gr__slot_release(slot);
}

grError_t gr__stream_sync(gr_stream *s)
{
    gr__stream_wait_for(s, gr_load_acquire(&s->tail));
    int e = gr_load_relaxed(&s->sticky);
    return e ? gr__fail_again((grError_t)e) : grSuccess;
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
        for (gr_stream *s = rt->streams; s; s = s->reg_next)
            if (pending(s) && (gr__debug_pause("registry"), retain_registered(s))) {
                todo = s;
                target = gr_load_acquire(&s->tail);
                break;
            }
        pthread_mutex_unlock(&rt->streams_lock);
        if (!todo && pending(rt->legacy)) {
            todo = rt->legacy;
            target = gr_load_acquire(&todo->tail);
            gr__stream_retain(todo);
        }
        if (!todo)
            return;
        gr__stream_wait_for(todo, target);
        gr__stream_release(todo);
    }
}

/* ------------------------------------------------------- runtime hooks */

grError_t gr__stream_runtime_init(gr_runtime *rt)
{
    rt->legacy = stream_new(GR_STREAM_LEGACY, grStreamDefault);
    return rt->legacy ? grSuccess : grErrorMemoryAllocation;
}

void gr__stream_runtime_fini(gr_runtime *rt)
{
    /* Every stream dies with the runtime: handles are dropped, and streams
     * that events still reference leave the registry (they outlive it). */
    for (;;) {
        gr_stream *s = NULL;
        pthread_mutex_lock(&rt->streams_lock);
        for (gr_stream *x = rt->streams; x; x = x->reg_next)
            if (!x->handle_dead) {
                s = x;
                break;
            }
        pthread_mutex_unlock(&rt->streams_lock);
        if (!s)
            break;
        kill_handle(rt, s);
    }
    pthread_mutex_lock(&rt->streams_lock);
    while (rt->streams) {
        gr_stream *s = rt->streams;
        rt->streams = s->reg_next;
        s->reg_next = s->reg_prev = NULL;
        s->registered = false;
        s->rt = NULL;
    }
    pthread_mutex_unlock(&rt->streams_lock);
    rt->legacy->magic = GR_MAGIC_DEAD;
    drop_caches(rt, rt->legacy);
    handle_drop(rt->legacy);
    rt->legacy = NULL;
}

/* ----------------------------------------- what the stream API asks */

grError_t gr__stream_create(unsigned user_flags, gr_stream **out)
{
    gr_runtime *rt = gr__runtime_get();
    if (!rt)
        return grErrorInitializationError;
    gr_stream *s = stream_new((user_flags & grStreamNonBlocking) ? GR_STREAM_NONBLOCKING : 0u, user_flags);
    if (!s)
        return grErrorMemoryAllocation;
    registry_add(rt, s);
    *out = s;
    return grSuccess;
}

void gr__stream_destroy(gr_stream *s)
{
    kill_handle(gr__runtime_get(), s);
}

bool gr__stream_idle(gr_stream *s)
{
    return !pending(s);
}
