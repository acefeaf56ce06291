/*
 * stream.c - CPU streams: the CPU stream object (struct gr_cpu_stream,
 * stream_int.h: its allocation, destruction and freeing), the registry of
 * a runtime's streams, the legacy and per-thread default streams (the
 * header, its references and the resolution of public handles are
 * backend/stream.c). The enqueue protocol is queue.c, the drain loop and
 * waiting drain.c.
 *
 * Lock order: a stream's lock, then rt->streams_lock (taken when work is
 * queued on the legacy stream). Nothing takes them the other way round. No
 * user code runs under either.
 */
#include "../device.h"
#include "event.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- lifetime */

void gr__stream_note_known_locked(gr_stream *s, gr_stream *t, uint64_t seq)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    unsigned i;
    if (s == t)
        return;
    for (i = 0; i < GR_KNOWN_MAX; i++)
        if (c->known[i].id == t->serial) {
            if (c->known[i].seq < seq)
                c->known[i].seq = seq;
            return;
        }
    i = c->known_next++ % GR_KNOWN_MAX;
    c->known[i].id = t->serial;
    c->known[i].seq = seq;
}

uint64_t gr__stream_known_by_waits(gr_stream *s, gr_stream *t)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t k = 0;
    gr__stream_lock(s);
    for (unsigned i = 0; i < GR_KNOWN_MAX; i++)
        if (c->known[i].id == t->serial)
            k = c->known[i].seq;
    gr__stream_unlock_no_activate(s);
    return k;
}

uint64_t gr__stream_known(gr_stream *s, gr_stream *t)
{
    if (s == t)
        return gr_load_acquire(&gr__cpu_stream(s)->tail);
    uint64_t k = gr__stream_known_by_waits(s, t);
    uint64_t done = gr_load_acquire(&gr__cpu_stream(t)->done);
    return done > k ? done : k;
}

gr_stream *gr__stream_legacy(void)
{
    gr_runtime *rt = gr__runtime_get();
    return rt ? rt->legacy : NULL;
}

grKernel_t gr__stream_cache_kernel_locked(gr_stream *s, grKernel_t k)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    unsigned i;
    for (i = 0; i < GR_KCACHE; i++)
        if (c->kcache[i] == k)
            return NULL;
    i = c->kcache_next++ % GR_KCACHE;
    grKernel_t evicted = c->kcache[i];
    gr__kernel_retain(k);
    c->kcache[i] = k;
    return evicted;
}

struct grGraphExec_st *gr__stream_cache_exec_locked(gr_stream *s, struct grGraphExec_st *e)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    struct grGraphExec_st *evicted = c->last_exec;
    if (evicted == e)
        return NULL;
    gr__exec_retain(e);
    c->last_exec = e;
    return evicted;
}

/* A reference on a stream found in the registry, where it stays until
 * gr__cpu_stream_free takes it out: its count may have reached 0 already
 * (its last holder is on its way to freeing it), and then no reference
 * may be taken. Returns false in that case; such a stream has no work
 * left. */
bool gr__stream_retain_registered(gr_stream *s)
{
    return gr_ref_unless_zero(&s->refs);
}

static void registry_add(gr_runtime *rt, gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    pthread_mutex_lock(&rt->streams_lock);
    c->rt = rt;
    c->registered = true;
    c->reg_prev = NULL;
    c->reg_next = rt->streams;
    if (rt->streams)
        rt->streams->reg_prev = c;
    rt->streams = c;
    pthread_mutex_unlock(&rt->streams_lock);
}

static void registry_remove(gr_runtime *rt, gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    pthread_mutex_lock(&rt->streams_lock);
    if (!c->registered) {
        pthread_mutex_unlock(&rt->streams_lock);
        return;
    }
    c->registered = false;
    if (c->reg_prev)
        c->reg_prev->reg_next = c->reg_next;
    else if (rt->streams == c)
        rt->streams = c->reg_next;
    if (c->reg_next)
        c->reg_next->reg_prev = c->reg_prev;
    c->reg_next = c->reg_prev = NULL;
    pthread_mutex_unlock(&rt->streams_lock);
}

/* CPU stream objects, kept as dead shells once freed (core.h). */
static gr_shelf stream_shelf = GR_SHELF_INIT(sizeof(gr_cpu_stream));

gr_stream *gr__stream_new(unsigned flags, unsigned user_flags)
{
    gr_cpu_stream *c = gr__shell_alloc(&stream_shelf);
    gr_seg *seg = gr__aligned_alloc(GR_CACHELINE, sizeof *seg);
    if (!c || !seg) {
        if (c) {
            c->h.magic = GR_MAGIC_DEAD;
            gr__shell_retire(&stream_shelf, c);
        }
        gr__free(seg);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    memset(seg, 0, sizeof *seg);
    gr__stream_header_init(&c->h, flags, user_flags, 0);
    c->tail_seg = c->head_seg = seg;
    return &c->h;
}

void gr__cpu_stream_free(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr_seg *seg = c->head_seg;
    if (c->last_exec)
        gr__exec_release(c->last_exec);
    for (unsigned i = 0; i < GR_KCACHE; i++)
        if (c->kcache[i])
            gr__kernel_release(c->kcache[i]);
    if (c->rt)
        registry_remove(c->rt, s);
    while (seg) {
        gr_seg *n = gr_load_relaxed(&seg->next);
        gr__free(seg);
        seg = n;
    }
    seg = gr_load_relaxed(&c->free_segs);
    while (seg) {
        gr_seg *n = seg->free_next;
        gr__free(seg);
        seg = n;
    }
    gr__mark_dead(&s->magic);
    gr__shell_retire(&stream_shelf, s);
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
    gr_cpu_stream *c = gr__cpu_stream(s);
    gr__stream_lock(s);
    uint64_t w = gr_load_relaxed(&c->lockw);
    gr_store_release(&c->lockw, (w & ~(uint64_t)GR_STREAM_LOCKED) | GR_STREAM_GONE);
    if (!(w & GR_STREAM_ACTIVE))
        gr__stream_release(s);
}

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
    gr_cpu_stream *c = gr__cpu_stream(s);
    _Static_assert(sizeof(cached_refs) <= GR_OP_DATA_MAX, "the references fit an op's payload");
    gr_op *op = gr__stream_lock_slot(rt, s);
    if (!op)
        return;
    cached_refs r = {c->last_exec, {NULL}};
    memcpy(r.kernels, c->kcache, sizeof r.kernels);
    c->last_exec = NULL;
    memset(c->kcache, 0, sizeof c->kcache);
    if (!gr__stream_pending(s)) {
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
    s = gr__stream_new(GR_STREAM_PER_THREAD, grStreamDefault);
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

grError_t gr__cpu_stream_default(const char *call, grStream_t h, gr_stream **out)
{
    gr_runtime *rt = gr__runtime_get();
    if (GR_UNLIKELY(!rt))
        return gr__fail(grErrorInitializationError,
                        "%s: the graphrt runtime could not start (out of memory or "
                        "threads)",
                        call);
    if (h == grStreamPerThread) {
        gr_stream *s = per_thread_stream(rt);
        if (!s)
            return gr__fail(grErrorMemoryAllocation,
                            "%s: out of memory creating the per-thread default stream", call);
        *out = s;
        return grSuccess;
    }
    *out = rt->legacy;
    return grSuccess;
}

void gr__cpu_stream_kill(gr_stream *s)
{
    kill_handle(gr__runtime_get(), s);
}

/* ------------------------------------------------------- runtime hooks */

grError_t gr__stream_runtime_init(gr_runtime *rt)
{
    rt->legacy = gr__stream_new(GR_STREAM_LEGACY, grStreamDefault);
    return rt->legacy ? grSuccess : grErrorMemoryAllocation;
}

void gr__stream_runtime_fini(gr_runtime *rt)
{
    /* Every stream dies with the runtime: handles are dropped, and streams
     * that events still reference leave the registry (they outlive it). */
    for (;;) {
        gr_stream *s = NULL;
        pthread_mutex_lock(&rt->streams_lock);
        for (gr_cpu_stream *x = rt->streams; x; x = x->reg_next)
            if (!x->h.handle_dead) {
                s = &x->h;
                break;
            }
        pthread_mutex_unlock(&rt->streams_lock);
        if (!s)
            break;
        kill_handle(rt, s);
    }
    pthread_mutex_lock(&rt->streams_lock);
    while (rt->streams) {
        gr_cpu_stream *c = rt->streams;
        rt->streams = c->reg_next;
        c->reg_next = c->reg_prev = NULL;
        c->registered = false;
        c->rt = NULL;
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
    gr_stream *s =
        gr__stream_new((user_flags & grStreamNonBlocking) ? GR_STREAM_NONBLOCKING : 0u, user_flags);
    if (!s)
        return grErrorMemoryAllocation;
    registry_add(rt, s);
    *out = s;
    return grSuccess;
}

bool gr__stream_blocking_pending(void)
{
    gr_runtime *rt = gr__runtime_get();
    bool pending = false;
    if (!rt)
        return false;
    pthread_mutex_lock(&rt->streams_lock);
    for (gr_cpu_stream *b = rt->streams; b && !pending; b = b->reg_next)
        pending = !(b->h.flags & GR_STREAM_NONBLOCKING) && gr__stream_pending(&b->h);
    pthread_mutex_unlock(&rt->streams_lock);
    return pending;
}

bool gr__stream_idle(gr_stream *s)
{
    if (gr__stream_pending(s))
        return false;
    /* The legacy stream waits for the blocking streams: CUDA's
     * cudaStreamQuery(0) says not ready while one of them has work
     * (tests/probes/parity.cu). */
    return !(s->flags & GR_STREAM_LEGACY) || !gr__stream_blocking_pending();
}
