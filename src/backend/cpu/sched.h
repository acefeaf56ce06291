/*
 * sched.h - the scheduler shared by the runtime and the graph executor:
 * workers, their work-stealing deques, the injection queue for work that
 * arrives from outside, parking, and the parallel-for used by kernels.
 *
 * Work items are tagged words (gr_item): a pointer whose low 3 bits say
 * what it is. A STREAM item is the right to drain a stream, a NODE item a
 * ready graph node, a PFOR item an invitation to help with a kernel's
 * blocks.
 *
 * Invariants:
 *   - only the owner pushes and pops the bottom of its deque; anyone steals
 *     from the top (Chase-Lev, as in Le et al., PPoPP 2013);
 *   - a thread runs graph or stream work only while it holds a gr_worker:
 *     background workers always do; an application thread borrows one of
 *     the external slots while it waits in a synchronising call, so that
 *     it can run the work it waits for;
 *   - a slot is given back with its deque empty;
 *   - an external slot's mailbox holds at most one item, a TOKEN item: the
 *     drain token of a stream that a thread holding the slot launched work
 *     on outside a synchronising call. Only the slot's current thread
 *     fills it, and only when it is empty; whoever swaps it back to 0 owns
 *     the token.
 */
#ifndef GR_SCHED_H
#define GR_SCHED_H

#include "../backend.h"

#include <pthread.h>

/* A CPU stream (stream_int.h). */
typedef struct gr_cpu_stream gr_cpu_stream;

typedef uintptr_t gr_item;

enum {
    GR_ITEM_STREAM = 1,
    GR_ITEM_NODE = 2,
    GR_ITEM_PFOR = 3,
    GR_ITEM_TOKEN = 4, /* a drain token taken from a mailbox: already claimed */
    GR_ITEM_TAG_MASK = 7
};

static inline gr_item gr__item_make(const void *p, unsigned tag)
{
    return (gr_item)p | tag;
}
static inline unsigned gr__item_tag(gr_item it)
{
    return (unsigned)(it & GR_ITEM_TAG_MASK);
}
static inline void *gr__item_ptr(gr_item it)
{
    return (void *)(it & ~(gr_item)GR_ITEM_TAG_MASK);
}

/* ------------------------------------------------------------------ deque */

typedef struct gr_deque_buf {
    int64_t cap;                /* power of two */
    struct gr_deque_buf *older; /* retired buffers, freed with the deque */
    _Atomic gr_item items[];
} gr_deque_buf;

typedef struct gr_deque {
    GR_ALIGNED_CL _Atomic int64_t top;    /* thieves CAS it */
    GR_ALIGNED_CL _Atomic int64_t bottom; /* owner only writes */
    _Atomic(gr_deque_buf *) buf;          /* owner replaces on growth */
} gr_deque;

bool gr__deque_init(gr_deque *d, int64_t cap);
void gr__deque_fini(gr_deque *d);
/* Owner: push at the bottom; grows when full (returns false only when out
 * of memory, and then the caller runs the item itself). */
bool gr__deque_push(gr_deque *d, gr_item it);
/* Owner: pop from the bottom; 0 when empty. */
gr_item gr__deque_pop(gr_deque *d);
/* Anyone: steal from the top; 0 when empty or lost a race. */
gr_item gr__deque_steal(gr_deque *d);
/* Steals the top item only if its pointer lies in [lo, hi) (compared, not
 * read through: the item may be stale until the steal succeeds); 0 if
 * not, when empty or lost a race. */
gr_item gr__deque_steal_in(gr_deque *d, const void *lo, const void *hi);
/* A cheap, racy emptiness hint. */
static inline bool gr__deque_maybe_nonempty(gr_deque *d)
{
    return gr_load_relaxed(&d->bottom) > gr_load_relaxed(&d->top);
}

/* ---------------------------------------------------------------- workers */

/* External slots: application threads waiting in a synchronising call
 * borrow one to run work. More waiting threads than slots just wait. */
#if GR_KNOBS_SMALL
#define GR_EXTERNAL_SLOTS 1 /* a second waiting thread finds no slot and just waits */
#else
#define GR_EXTERNAL_SLOTS 16
#endif

struct gr_worker {
    gr_deque dq;
    unsigned index; /* 1..N background workers, 0 external slots */
    bool external;
    GR_ALIGNED_CL atomic_bool taken; /* external slots: borrowed now */
    uint64_t rng;                    /* victim selection */
    size_t inj_seen_pos;             /* oldest injected item seen waiting, and when */
    uint64_t inj_seen_ticks;
    struct { /* each external slot's mail seen waiting, and when */
        uint64_t count, ticks;
    } mail_seen[GR_EXTERNAL_SLOTS];
    pthread_t thread;
    /* Owner-private stack of ready graph nodes (see exec/launch.c). */
    gr_item *local;
    size_t nlocal, caplocal;
    /* Background workers: the shared-memory scratch of the kernel blocks
     * they run (kernel.c), freed with the runtime. */
    void *scratch;
    /* External slots: the mailbox (see the invariants above) and how many
     * items its thread has put in it, the pollers' clock for the grace
     * period; both written by the slot's thread, on a line of their own. */
    GR_ALIGNED_CL _Atomic gr_item mail;
    _Atomic uint64_t mail_count;
};

#if GR_KNOBS_SMALL
#define GR_INJ_CELLS 2 /* the ring's least size; a third injected item overflows */
#else
#define GR_INJ_CELLS 4096
#endif

/* gr_runtime.wake_seq: a wake-up is pending (bit 0); the step of the
 * other changes, which leave that bit alone. */
#define GR_WAKE_PENDING 1u
#define GR_WAKE_STEP 2u
typedef struct gr_inj_cell {
    _Atomic size_t seq;
    gr_item item;
} gr_inj_cell;

/* A cheap clock for short intervals: the TSC on x86, else nanoseconds. */
static inline uint64_t gr__ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return gr__now_ns();
#endif
}

/* Pauses for about n ticks without touching memory another thread writes:
 * how a poller backs off from lines a busy thread is writing. */
static inline void gr__pause_ticks(uint64_t n)
{
    uint64_t t0 = gr__ticks();
    do
        gr__cpu_relax();
    while (gr__ticks() - t0 < n);
}

struct gr_runtime {
    /* Distinguishes this runtime from earlier ones (grDeviceReset) in
     * thread-local caches: a new runtime may reuse an old one's address. */
    uint64_t generation;
    unsigned nworkers;
    unsigned ncpu;                 /* CPUs this process may run on */
    gr_worker *workers;            /* nworkers + GR_EXTERNAL_SLOTS */
    unsigned nslots;               /* nworkers + GR_EXTERNAL_SLOTS */
    uint64_t spin_ns;              /* how long an idle worker spins (and how long after its last item) */
    int max_spinners;              /* how many idle workers may spin at once */
    int max_active_spinners;       /* the same for workers that ran work a moment ago */
    _Atomic uint64_t ticks_per_us; /* gr__ticks per microsecond, 0 = not known yet */
    atomic_bool stop;
    /* The CPU loan (gr__sched_borrow_cpu): the loan's state (0, none;
     * GR_CPU_WANTED, asked for; GR_CPU_TAKEN, a worker sits out for it),
     * how many launches run on it now, how many have started on it (the
     * sitting worker's clock) and how many times a worker sat out (for
     * tests). */
    GR_ALIGNED_CL _Atomic uint32_t cpu_loan;
    _Atomic uint32_t cpu_loan_users;
    _Atomic uint64_t cpu_loan_starts;
    _Atomic uint64_t cpu_loans_taken;
    /* The kernel offer (kernel.c): one kernel at a time hands out seats
     * to help with its blocks here instead of pushing an invitation per
     * helper onto its deque. 'seats' is how many are left (below zero
     * after joiners came too late), 'job' the kernel's gr_pfor, 'busy'
     * whether a kernel holds the offer. */
    GR_ALIGNED_CL atomic_int offer_seats;
    _Atomic(void *) offer_job;
    atomic_int offer_busy;
    /* The pace of submissions as idle workers saw it (sched.c,
     * cadence_span): the count seen last, when a worker saw it move
     * (gr__now_ns), and the gap between the last two moves seen. Written
     * once a submission at most, by the worker that sees the move first. */
    GR_ALIGNED_CL _Atomic size_t pace_count;
    _Atomic uint64_t pace_at;
    _Atomic uint64_t pace_gap;
    /* Idle accounting (see sched.c: park / wake). */
    GR_ALIGNED_CL atomic_int spinning; /* workers looking for work */
    GR_ALIGNED_CL atomic_int sleepers; /* workers parked or parking */
    /* The futex word: its low bit (GR_WAKE_PENDING) is set by a publisher
     * that woke a worker and cleared by the worker that takes it (see
     * sched.c: park); other wake-ups add GR_WAKE_STEP. */
    GR_ALIGNED_CL _Atomic uint32_t wake_seq;
    /* Injection queue: work from threads without a worker. A bounded
     * lock-free ring (Vyukov's MPMC queue); when it is full, items go to
     * the overflow ring under inj_lock. */
    struct gr_inj_cell *ring; /* GR_INJ_CELLS cells */
    /* Both ends in one line: an idle worker checks the queue by reading
     * this one line (and no cell) until an item has waited a while. */
    GR_ALIGNED_CL _Atomic size_t ring_enq;
    _Atomic size_t ring_deq;
    GR_ALIGNED_CL pthread_mutex_t inj_lock;
    gr_item *inj;                        /* overflow ring, guarded by inj_lock */
    size_t inj_head, inj_count, inj_cap; /* guarded by inj_lock */
    _Atomic size_t inj_hint;             /* inj_count, readable without the lock */
    /* The first kernel fault (fiber.c): 'claim' taken by the reporter,
     * which writes the detail, then publishes the error (release). Every
     * synchronisation reads 'kfault': a line that only a fault writes. */
    GR_ALIGNED_CL atomic_int kfault;
    atomic_int kfault_claim;
    char kfault_detail[512];
    /* Streams (stream.c). */
    pthread_mutex_t streams_lock; /* guards the list below */
    gr_cpu_stream *streams;       /* every live created stream */
    gr_stream *legacy;            /* the legacy default stream */
};

/* The runtime, started on first use; NULL only if starting failed. */
extern gr_runtime *_Atomic gr__rt;
gr_runtime *gr__runtime_start(void);
static inline gr_runtime *gr__runtime_get(void)
{
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    return GR_LIKELY(rt != NULL) ? rt : gr__runtime_start();
}

/* The gr_worker of the calling thread, or NULL if it holds none. */
extern _Thread_local gr_worker *gr__tls_worker;

/* Borrows an external slot for the calling thread (NULL if it already holds
 * a worker, or none is free); give it back with gr__slot_release. */
gr_worker *gr__slot_acquire(gr_runtime *rt);
void gr__slot_release(gr_worker *w);

/* Makes an item runnable: pushed on the calling worker's deque, or on the
 * injection queue from outside; wakes a parked worker if there is one. */
void gr__sched_submit(gr_runtime *rt, gr_item it);

/* Wakes one parked worker if any is parked. Call after publishing work. */
void gr__sched_wake_one(gr_runtime *rt);
/* Wakes up to n parked workers at once, pending wake-up or not: for n
 * items published together, each worth a thread (many-block kernels,
 * expensive graph nodes). */
void gr__sched_wake_some(gr_runtime *rt, unsigned n);

/* One attempt to find and run one item, as a waiting thread does. A
 * background worker takes any kind: injection queue, own deque, then
 * steals. An application thread (external slot) only pops its own deque.
 * Returns true if it ran something. */
bool gr__sched_help_once(gr_runtime *rt, gr_worker *w);

/* Parking (park.c). gr__sched_park sleeps until woken; returns at once,
 * without sleeping, if work is visible (in the injection queue and the
 * mailboxes too if 'ring'), the runtime stops or a wake-up is pending;
 * the result says whether it slept and whether it took the pending
 * wake-up (then the worker passes it on if it finds more work than it
 * takes). */
enum {
    PARK_SLEPT = 1,
    PARK_TOOK_WAKE = 2
};
unsigned gr__sched_park(gr_runtime *rt, bool ring);

/* Whether any work is visible to an idle worker: the deques, and with
 * 'ring' the injection queue and the mailboxes (seq_cst loads: the park's
 * Dekker). */
bool gr__sched_work_visible(gr_runtime *rt, bool ring);

/* gr__sched_wake_one for a caller that published with a seq_cst operation
 * already (no fence of its own). */
void gr__sched_wake_one_ordered(gr_runtime *rt);

/* Pops 'it' from the injection queue if it is the oldest item there. */
bool gr__sched_take_injected(gr_runtime *rt, gr_item it);

/* The calling application thread's external slot, if it keeps one from an
 * earlier synchronising call, holds no worker now, and its mailbox is
 * empty; else NULL. */
gr_worker *gr__sched_mail_slot(gr_runtime *rt);
/* Puts a TOKEN item in slot's mailbox (slot from gr__sched_mail_slot, by
 * the same thread) and wakes a parked worker if nobody spins. Workers
 * leave it there for the injection queue's grace period. */
void gr__sched_mail(gr_runtime *rt, gr_worker *slot, gr_item it);
/* Takes 'it' out of slot's mailbox; true if this caller got it. */
bool gr__sched_unmail(gr_worker *slot, gr_item it);
/* Whether slot's mailbox holds 'it' (a hint). */
static inline bool gr__sched_mailed(gr_worker *slot, gr_item it)
{
    return gr_load_relaxed(&slot->mail) == it;
}

/* How many gr__ticks make a microsecond: measured once per runtime, on
 * first use, over about 20 microseconds. */
uint64_t gr__ticks_per_us(gr_runtime *rt);

/* The CPU loan. Where the workers alone fill the CPUs, an application
 * thread that runs nodes of a launch it owns makes one thread more than
 * CPUs; for launches of long nodes it borrows a CPU: the next background
 * worker to look for work sits out, holding no work, until no launch has
 * used the loan for a while (GR_CPU_LOAN_IDLE_US: a replay loop keeps
 * it, with no system call per launch). gr__sched_borrow_cpu and
 * gr__sched_end_borrow bracket each such launch. */
#define GR_CPU_WANTED 1u
#define GR_CPU_TAKEN 2u
#define GR_CPU_LOAN_IDLE_US 1000u
void gr__sched_borrow_cpu(gr_runtime *rt);
void gr__sched_end_borrow(gr_runtime *rt);

/* Runs an item (dispatch on its tag). */
void gr__item_run(gr_worker *w, gr_item it);

/* Entry points of other files, called by gr__item_run. */
void gr__stream_drain(gr_worker *w, gr_stream *s);
void gr__stream_drain_token(gr_worker *w, gr_stream *s);
void gr__exec_node_item(gr_worker *w, void *node_rt);
/* Whether the launch of a node item just taken (not run yet) has room for
 * another helper besides the taker: a worker that takes one wakes a
 * replacement only then (see launch.c: helper_room). */
bool gr__exec_node_wants_helpers(const void *node_rt);
void gr__pfor_help(gr_worker *w, void *job);
/* A seat of the kernel offer, as a PFOR item, or 0 if none is left. */
gr_item gr__pfor_offer_take(gr_runtime *rt);

/* Linux futex wrappers. */
void gr__futex_wait(_Atomic uint32_t *addr, uint32_t expected);
void gr__futex_wake(_Atomic uint32_t *addr, int n);

#endif /* GR_SCHED_H */
