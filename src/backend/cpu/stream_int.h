/*
 * stream_int.h - streams and the operations queued on them, private to
 * the runtime and the graph executor.
 *
 * A stream is a FIFO of fixed-size operation slots in linked segments.
 * Producers (any thread) append under the stream's spinlock and publish a
 * slot by storing its sequence number with release order; one consumer at
 * a time, the holder of the stream's drain token, runs the slots in order.
 *
 * Invariants:
 *   - slot for op index i carries seq == i + 1 once published;
 *   - 'tail' = ops published, 'done' = ops completed, done <= tail;
 *   - at most one drain token exists (ACTIVE is set in 'lockw' while it
 *     does, and changes only while LOCKED is clear); a new token waits
 *     to be claimed either in the mailbox of the launching thread's
 *     external slot (a TOKEN item, 'mail_slot' says which; whoever takes
 *     the item out owns the token) or as a STREAM item in a queue, with
 *     'queued' set (whoever pops a STREAM item or a synchronising thread
 *     claims it by clearing 'queued', first come first served);
 *   - a token costs no reference count: while the handle lives, its
 *     reference keeps the stream; the handle's owner dropping it while a
 *     token exists sets GONE and leaves the reference to the token, and a
 *     token created after that takes one of its own; so a token whose
 *     give-up saw GONE drops one reference. A queue item that lost the
 *     token to a synchronising thread (stale) holds one reference, taken
 *     by that thread;
 *   - a stream suspended on a WAIT op keeps its token ('active' stays 1)
 *     and sits in the waited-on stream's 'waiters' list; whoever completes
 *     the op it waits for queues a STREAM item for it again;
 *   - the legacy stream's implicit synchronisation is inserted as WAIT ops
 *     at enqueue time (gr__stream_lock_slot), never at run time.
 * gr__stream_queue_is_valid (queue.c) checks the first two after every
 * synchronisation of a stream in GR_DEBUG=3 builds.
 *
 * The drain token's states, in the bits of 'lockw' (LOCKED aside, which
 * is the producers' lock):
 *
 *   ACTIVE GONE  token                    references            dropped by
 *   0      0     none                     handle: 1             kill_handle
 *   1      0     exists (mailbox, queue   handle: 1; token: 0   kill_handle
 *                item, or a drainer)
 *   1      1     exists, handle dead      token: 1 (inherited   token_give_up
 *                                         or taken at creation)
 *   0      1     none, handle dead        0: freed              -
 *
 * ACTIVE is set only by an unlocking producer (gr__stream_unlock) and
 * cleared only by the token's holder giving it up (token_give_up, a CAS
 * that fails if the word moved); GONE is set once, by the handle's drop.
 * NOTIFY (a waiter is counted) and the unlock count ride along.
 *
 * References ('refs'; the stream is freed, into its shell, when it falls
 * to 0):
 *   - the handle holds 1 until grStreamDestroy, thread exit (per-thread
 *     stream) or grDeviceReset drops it (kill_handle, once); if a drain
 *     token exists then, GONE is set and the token inherits it;
 *   - a drain token holds none while the handle lives; one created after
 *     GONE takes 1 (gr__stream_unlock), dropped by its give-up;
 *   - a STREAM queue item holds none, except a stale one (its token was
 *     claimed by a synchronising thread first), which holds the 1 that
 *     claimer took for it, dropped by whoever pops it;
 *   - a WAIT op holds 1 on the stream it waits for, dropped when it runs;
 *   - an event holds 1 on the stream of its latest record; an executable
 *     on the stream of its last launch; a pool block on the stream that
 *     freed it;
 *   - the registry holds none: a stream stays listed until
 *     gr__cpu_stream_free takes it out, so one found there may already be
 *     at 0, on its way out, and is retained only by retain_registered (no
 *     reference taken from 0), under rt->streams_lock;
 *   - any other holder retains only a stream it holds a reference on
 *     already, or reaches through one of the references above.
 */
#ifndef GR_STREAM_INT_H
#define GR_STREAM_INT_H

#include "sched.h"

enum gr_op_kind {
    GR_OP_NOP = 0,
    GR_OP_KERNEL,
    GR_OP_HOST,
    GR_OP_CALL,
    GR_OP_WAIT,
    GR_OP_STAMP,
    GR_OP_GRAPH
};

typedef struct gr_op {
    _Atomic uint64_t seq; /* op index + 1 once published */
    uint8_t kind;
    uint8_t heap_args; /* kernel: data holds a pointer to malloc'd args */
    uint8_t coop;      /* kernel: a cooperative launch (coop.c) */
    uint8_t reserved;
    uint32_t shmem;
    /* A kernel the stream stopped caching when this op was queued: its
     * reference is dropped once this op has run (see kcache). */
    grKernel_t drop;
    union {
        struct {
            grKernel_t k;
            grDim3 grid, block;
        } kern;
        struct {
            grHostFn_t fn;
            void *user;
        } host;
        struct {
            gr_op_fn fn;
        } call;
        struct {
            gr_stream *s; /* retained */
            uint64_t seq;
        } wait;
        struct {
            grEvent_t ev; /* retained */
            uint64_t gen;
        } stamp;
        struct {
            struct grGraphExec_st *exec;
            struct grGraphExec_st *drop; /* see gr__stream_cache_exec_locked */
        } graph;
    } u;
    _Alignas(16) unsigned char data[GR_OP_DATA_MAX];
} gr_op;

_Static_assert(sizeof(gr_op) == 128, "an op is two cache lines");

#if GR_KNOBS_SMALL
#define GR_SEG_SLOTS 1 /* every op rolls the queue over to a new segment */
#else
#define GR_SEG_SLOTS 64
#endif
typedef struct gr_seg {
    _Alignas(64) struct gr_seg *_Atomic next;
    struct gr_seg *free_next; /* on the stream's free list */
    gr_op slots[GR_SEG_SLOTS];
} gr_seg;

/* A CPU stream: the header every device's stream starts with (backend.h),
 * then the queue, its drain token and its waiters. Every gr_stream of
 * device 0 is one (gr__stream_new allocates them). */
struct gr_cpu_stream {
    gr_stream h;

    /* Registry of the runtime 'rt', guarded by rt->streams_lock. A stream
     * stays registered after grStreamDestroy until it is freed, so that
     * device-wide waits and the legacy stream still see its queued work. */
    gr_runtime *rt;
    gr_cpu_stream *reg_next, *reg_prev;
    bool registered;

    /* Producer side, guarded by the LOCKED bit of 'lockw'. The word also
     * holds ACTIVE, the drain token's existence (see gr__stream_lock). */
    GR_ALIGNED_CL _Atomic uint64_t lockw;
    _Atomic uint64_t tail; /* ops published (written under lock) */
    gr_seg *tail_seg;
    uint64_t tail_base;        /* op index of tail_seg->slots[0] */
    gr_seg *_Atomic free_segs; /* consumer pushes, producer pops */

    /* What this stream's future work is known to follow, from its event
     * waits: work of the stream with serial known[i].id up to op
     * known[i].seq (serials, not pointers: no reference is held and a
     * reused address cannot match; a small table, oldest entry evicted).
     * Memory pools use it to reuse a block freed on another stream. */
#if GR_KNOBS_SMALL
#define GR_KNOWN_MAX 1 /* each new event wait evicts the last one known */
#else
#define GR_KNOWN_MAX 8
#endif
    struct {
        uint64_t id;
        uint64_t seq;
    } known[GR_KNOWN_MAX]; /* guarded by 'lock' */
    unsigned known_next;   /* guarded by 'lock' */

    /* Kernels launched lately, each holding one reference for the stream,
     * so that a launch of one of them costs no atomic operation: a kernel
     * evicted from here is released by the consumer after the op whose
     * launch evicted it (op->drop), hence after all its launches. */
#if GR_KNOBS_SMALL
#define GR_KCACHE 1 /* a launch of another kernel evicts and drops the last */
#else
#define GR_KCACHE 4
#endif
    grKernel_t kcache[GR_KCACHE];     /* guarded by 'lock' */
    unsigned kcache_next;             /* guarded by 'lock' */
    struct grGraphExec_st *last_exec; /* the same for graph launches */

    /* A token waiting to be claimed; apart from what the consumer writes
     * per op. 'mail_slot' is the slot whose mailbox took the last token
     * that went to one (a hint: the mailbox is the truth). */
    GR_ALIGNED_CL atomic_bool queued;
    _Atomic(gr_worker *) mail_slot;

    /* Consumer side, owned by the drain token's holder. */
    GR_ALIGNED_CL gr_seg *head_seg;
    uint64_t head_base;
    uint64_t head;

    /* Completion, read by waiters. */
    GR_ALIGNED_CL _Atomic uint64_t done;
    atomic_int sleepers; /* threads parked on done_futex */
    _Atomic uint32_t done_futex;
    _Atomic int sticky; /* first asynchronous error, grError_t */

    /* Streams suspended until this one completes their wait_seq ops: a
     * WAIT op never blocks a thread, its stream steps aside (keeping its
     * drain token) and is queued again when the wait is over. */
    gr_spinlock wlock; /* guards 'waiters' and their wait_* */
    gr_cpu_stream *waiters;
    atomic_int nwaiters;
    gr_cpu_stream *wait_next; /* in the list of the stream waited on */
    uint64_t wait_seq;
};

/* The CPU stream s is (a cast: free): s must be of device 0. */
static inline gr_cpu_stream *gr__cpu_stream(gr_stream *s)
{
    gr_assert(s->device == 0);
    return (gr_cpu_stream *)(void *)s;
}

/* True once CPU stream s has completed its first 'seq' ops (the layers
 * above ask gr__stream_reached, stream_order.h, of a stream of any
 * device). */
static inline bool gr__cpu_stream_reached(gr_stream *s, uint64_t seq)
{
    return gr_load_acquire(&gr__cpu_stream(s)->done) >= seq;
}

/* A CPU stream (cpu/stream.c) of GR_STREAM_* flags with one reference and
 * its queue's first segment, in no registry; NULL when out of memory. */
gr_stream *gr__stream_new(unsigned flags, unsigned user_flags);

/* The stream's lock, its activation and its waiters' announcement share
 * one word, so that a producer learns, under the lock, whether a drain
 * token exists, and creates one by its unlocking store; and so that the
 * drainer gives its token up with one compare-and-swap that fails if
 * anything happened since it last looked: every unlock that published
 * adds GR_STREAM_UNLOCK_UNIT (no ABA), and so does every announcement of
 * a waiter (NOTIFY). After a successful give-up the stream may be freed
 * at once, so the drainer must have woken its waiters before. */
enum {
    GR_STREAM_LOCKED = 1u,
    GR_STREAM_ACTIVE = 2u,
    GR_STREAM_GONE = 4u,   /* the handle's reference is dropped */
    GR_STREAM_NOTIFY = 8u, /* someone waits for completions: see notify() */
    GR_STREAM_UNLOCK_UNIT = 16u
};

/* Locking is a seq_cst compare-and-swap (on x86 the same instruction as
 * an acquire one): a launch that then tests whether its executable is
 * being written pairs with gr__exec_write_begin (exec.h). */
static inline void gr__stream_lock(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    uint64_t w = gr_load_relaxed(&c->lockw);
    for (;;) {
        if (!(w & GR_STREAM_LOCKED) && gr_cas_weak_seq_cst(&c->lockw, &w, w | GR_STREAM_LOCKED))
            return;
        gr__cpu_relax();
        w = gr_load_relaxed(&c->lockw);
    }
}

/* Unlocks without activating (nothing was queued). */
static inline void gr__stream_unlock_no_activate(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    /* Only the holder changes a locked word. */
    uint64_t w = gr_load_relaxed(&c->lockw);
    gr_store_release(&c->lockw, w & ~(uint64_t)GR_STREAM_LOCKED);
}

/* True if the producer's side of s's queue keeps the invariants above
 * (tail within its segment, published slots' seq, done <= tail), taken
 * under s's lock; else prints the broken one to stderr and returns false
 * (queue.c). O(GR_SEG_SLOTS): for gr_assert_expensive after a stream
 * synchronisation, never on the enqueue path. */
bool gr__stream_queue_is_valid(gr_stream *s);

/* True while s has ops queued that have not completed. */
static inline bool gr__stream_pending(gr_stream *s)
{
    gr_cpu_stream *c = gr__cpu_stream(s);
    return gr_load_acquire(&c->done) < gr_load_acquire(&c->tail);
}

/* A reference on a stream found in the registry (under streams_lock),
 * taken only from a nonzero count: false if s is on its way to being
 * freed (see "References" above). */
bool gr__stream_retain_registered(gr_stream *s);

/* Puts a segment the consumer is done with on s's free list (queue.c). */
void gr__seg_put(gr_stream *s, gr_seg *seg);

/* Appending ops: lock_slot locks the stream, inserts the legacy stream's
 * implicit waits, and returns the next free slot; fill it and publish it
 * with gr__stream_publish; more slots with gr__stream_next_slot; finally
 * gr__stream_unlock, which activates the stream. NULL from lock_slot or
 * next_slot means out of memory (the stream is unlocked by lock_slot; by
 * next_slot it is not). */
gr_op *gr__stream_lock_slot(gr_runtime *rt, gr_stream *s);
gr_op *gr__stream_next_slot(gr_stream *s);
void gr__stream_publish(gr_stream *s, gr_op *op);
void gr__stream_unlock(gr_runtime *rt, gr_stream *s);

/* Fills op (the slot just obtained from s, under s's lock) as a WAIT for
 * t's first seq ops, notes the order for gr__stream_known and publishes
 * it. The op takes over one reference on t from the caller. */
void gr__stream_publish_wait(gr_stream *s, gr_op *op, gr_stream *t, uint64_t seq);

/* Op index the next published op will get (call under the lock). */
static inline uint64_t gr__stream_tail_locked(gr_stream *s)
{
    return gr_load_relaxed(&gr__cpu_stream(s)->tail);
}

/* Makes s hold a reference on k (call under s's lock, for a launch of k
 * about to be queued). Returns the kernel this evicted from the stream's
 * cache, whose reference the op must drop after it runs, or NULL. */
grKernel_t gr__stream_cache_kernel_locked(gr_stream *s, grKernel_t k);

/* The same for executables, with a cache of one: returns the executable
 * whose reference the GRAPH op must drop after it runs, or NULL. */
struct grGraphExec_st *gr__stream_cache_exec_locked(gr_stream *s, struct grGraphExec_st *e);

/* Executables' references (launch.c, declared in plan.h). */
void gr__exec_retain(struct grGraphExec_st *e);
void gr__exec_release(struct grGraphExec_st *e);

/* Records, under s's lock, that s's future work follows t's first seq ops. */
void gr__stream_note_known_locked(gr_stream *s, gr_stream *t, uint64_t seq);

/* Frees a CPU stream object (its last reference went, backend/stream.c):
 * the caches' references, the registry, the queue's segments, then the
 * object (into its dead shell). */
void gr__cpu_stream_free(gr_stream *s);

/* The CPU's default stream for h (NULL or grStreamLegacy: the legacy
 * stream; grStreamPerThread: the calling thread's), starting the runtime;
 * fails with a detail naming 'call'. */
grError_t gr__cpu_stream_default(const char *call, grStream_t h, gr_stream **out);

/* Drops a CPU stream's handle (grStreamDestroy): once, whatever else
 * drops it too (thread exit, runtime reset). */
void gr__cpu_stream_kill(gr_stream *s);

/* Runtime start/stop hooks (legacy stream, registry). */
grError_t gr__stream_runtime_init(gr_runtime *rt);
void gr__stream_runtime_fini(gr_runtime *rt);

/* Events (event.c) used by stream ops. */
void gr__event_stamp(grEvent_t e, uint64_t gen);

/* The plan runner (launch.c): runs one launch of 'exec' to completion,
 * with 'w' as the owner thread. */
/* 'done' is the count of s's ops that completes with this launch: a wait
 * node of the launch on a record at or after it on s would wait for the
 * launch itself (gr__node_wait_event in node_run.h). */
void gr__exec_run(gr_worker *w, struct grGraphExec_st *exec, gr_stream *s, uint64_t done);

/* Stops workers and frees the runtime (device.c: grDeviceReset). */
void gr__runtime_stop(void);

/* Runs blocks [first, end) of c (linear indices, x fastest) one after
 * another on the calling thread (kernel.c). */
void gr__kernel_run_blocks(const gr_kernel_call *c, uint64_t first, uint64_t end);

#endif /* GR_STREAM_INT_H */
