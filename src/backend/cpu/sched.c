/*
 * sched.c - the runtime context, the worker threads and how they find,
 * steal, spin for and park on work.
 *
 * A worker looks for work in this order: its own deque (newest first), the
 * injection queue (work submitted by application threads), then the deques
 * of the others (oldest first). Finding none it spins, counted in
 * 'spinning', for spin_ns after the last submission it saw (longer where
 * submissions come at a steady pace: cadence_span), then parks on
 * the wake_seq futex, counted in 'sleepers'. At most GR_MAX_SPINNERS spin
 * at once; the others park straight away (they watch the deques but leave
 * the injection queue to the spinners), except a worker that ran an item
 * less than spin_ns ago, which spins until then however many do (all
 * workers but one at most): in a shared graph launch the next nodes come
 * within microseconds, sooner than a parked worker would wake. A spinner
 * yields its CPU now and then, and parks early when a yield shows that
 * other threads want every CPU (yield_cpu). Whoever
 * publishes work calls gr__sched_wake_one, which issues a futex wake only
 * when nobody is spinning, somebody sleeps and no wake-up is pending: a
 * busy runtime makes no system calls, and publishers do not issue a wake
 * per submission while the worker they woke waits for a core. So that work
 * never waits behind a worker that left to run something else, the last
 * spinner to leave with work, and a woken worker that sees more work than
 * it takes, wake a sleeper to take their place; so does the last spinner
 * to leave without work when it then takes work that was waiting (its
 * park returns at once), since publishers counted on it too.
 *
 * Grace period: a background worker leaves the oldest injected item alone
 * until it has seen it wait GR_INJ_GRACE ticks (about a microsecond). The
 * thread that submitted it is usually about to synchronise and will run it
 * itself, with no cache lines crossing cores; a worker taking it would make
 * that thread wait for a handover instead. Until then the worker reads
 * only the line holding the queue's two ends.
 *
 * Mailboxes: an application thread that launches on an idle stream
 * outside a synchronising call leaves the stream's drain token in the
 * mailbox of its external slot instead of the injection queue. Putting it
 * there is a plain store, and the thread takes it back with one swap when
 * it synchronises; a worker takes it after the same grace period.
 *
 * CPU loan: an application thread running a launch of long nodes beside
 * workers that fill every CPU borrows one (gr__sched_borrow_cpu); a worker
 * that finds no work of its own takes the loan instead of looking further
 * and naps until no launch has used it for GR_CPU_LOAN_IDLE_US. It holds
 * no work and is not counted as spinning or parked, so publishers' wake-up
 * accounting is unchanged; a wake-up it had taken is passed on.
 *
 * Parking and wake-ups, and why no wake-up is lost, are park.c.
 *
 * Lock order: start_lock, then inj_lock (the injection queue's overflow).
 * No user code runs under a lock.
 */
#include "launch_hook.h"
#include "sched.h"
#include "stream_int.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

gr_runtime *_Atomic gr__rt;

/* The CPUs this process may run on (its affinity mask: a container's or
 * taskset's limit), else those online. */
static long usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

/* The test seam's CPU count (launch_hook.h); 0: usable_cpus(). */
static _Atomic unsigned cpus_override;

void gr__sched_cpus_set(unsigned n)
{
    gr_store_relaxed(&cpus_override, n);
}

_Thread_local gr_worker *gr__tls_worker;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------- injection queue */

static void overflow_push(gr_runtime *rt, gr_item it)
{
    pthread_mutex_lock(&rt->inj_lock);
    while (rt->inj_count == rt->inj_cap) {
        size_t ncap = rt->inj_cap * 2;
        gr_item *n = gr__malloc(ncap * sizeof *n);
        if (!n) {
            /* Out of memory: an item cannot be dropped, and running it here
             * could need a worker this thread does not have; wait for the
             * workers to drain the queue or for memory. */
            pthread_mutex_unlock(&rt->inj_lock);
            sched_yield();
            pthread_mutex_lock(&rt->inj_lock);
            continue;
        }
        for (size_t i = 0; i < rt->inj_count; i++)
            n[i] = rt->inj[(rt->inj_head + i) % rt->inj_cap];
        gr__free(rt->inj);
        rt->inj = n;
        rt->inj_head = 0;
        rt->inj_cap = ncap;
    }
    rt->inj[(rt->inj_head + rt->inj_count) % rt->inj_cap] = it;
    rt->inj_count++;
    gr_store_release(&rt->inj_hint, rt->inj_count);
    pthread_mutex_unlock(&rt->inj_lock);
}

static gr_item overflow_pop(gr_runtime *rt)
{
    gr_item it = 0;
    if (gr_load_relaxed(&rt->inj_hint) == 0)
        return 0;
    pthread_mutex_lock(&rt->inj_lock);
    if (rt->inj_count) {
        it = rt->inj[rt->inj_head];
        rt->inj_head = (rt->inj_head + 1) % rt->inj_cap;
        rt->inj_count--;
        gr_store_release(&rt->inj_hint, rt->inj_count);
    }
    pthread_mutex_unlock(&rt->inj_lock);
    return it;
}

#define GR_INJ_GRACE 3000u
/* How many idle workers may spin at once (one on machines of one or two
 * cores: see gr__runtime_get). */
#define GR_MAX_SPINNERS 2
/* An idle worker's polling interval, in ticks (see gr__ticks). */
#define GR_POLL_TICKS_MIN 100u
#define GR_POLL_TICKS_MAX 3200u
/* The longest a worker keeps polling after a long graph node, or between
 * submissions that come at a steady pace (see spin_window, cadence_span),
 * in microseconds. */
#define GR_LONG_ITEM_SPIN_MAX_US 1000u
/* A yield that kept a spinner off its CPU this long means other threads
 * want every CPU (see yield_cpu), in microseconds. */
#define GR_YIELD_CONTENDED_US 20u

/* Returns true when the item went through the ring's seq_cst CAS, false
 * when it went to the overflow (whose mutex orders nothing for Dekker). */
static bool inj_push(gr_runtime *rt, gr_item it)
{
    size_t pos = gr_load_relaxed(&rt->ring_enq);
    for (;;) {
        gr_inj_cell *c = &rt->ring[pos & (GR_INJ_CELLS - 1)];
        intptr_t dif = (intptr_t)gr_load_acquire(&c->seq) - (intptr_t)pos;
        if (dif == 0) {
            if (gr_cas_weak_seq_cst(&rt->ring_enq, &pos, pos + 1)) {
                c->item = it;
                gr_store_release(&c->seq, pos + 1);
                return true;
            }
        } else if (dif < 0) {
            overflow_push(rt, it); /* full */
            return false;
        } else {
            pos = gr_load_relaxed(&rt->ring_enq);
        }
    }
}

/* Pops the oldest injected item. */
static gr_item inj_pop(gr_runtime *rt)
{
    size_t pos = gr_load_relaxed(&rt->ring_deq);
    for (;;) {
        gr_inj_cell *c = &rt->ring[pos & (GR_INJ_CELLS - 1)];
        intptr_t dif = (intptr_t)gr_load_acquire(&c->seq) - (intptr_t)(pos + 1);
        if (dif == 0) {
            if (gr_cas_weak_relaxed(&rt->ring_deq, &pos, pos + 1)) {
                gr_item it = c->item;
                gr_store_release(&c->seq, pos + GR_INJ_CELLS);
                return it;
            }
        } else if (dif < 0) {
            return overflow_pop(rt); /* ring empty */
        } else {
            pos = gr_load_relaxed(&rt->ring_deq);
        }
    }
}

/* A background worker's look at the injection queue (the grace period). */
static gr_item inj_pop_late(gr_runtime *rt, gr_worker *w)
{
    size_t deq = gr_load_relaxed(&rt->ring_deq), enq = gr_load_relaxed(&rt->ring_enq);
    if (deq == enq)
        return gr_load_relaxed(&rt->inj_hint) ? inj_pop(rt) : 0;
    uint64_t now = gr__ticks();
    if (w->inj_seen_pos != deq || w->inj_seen_ticks == 0) {
        w->inj_seen_pos = deq;
        w->inj_seen_ticks = now;
        return 0;
    }
    if (now - w->inj_seen_ticks < GR_INJ_GRACE)
        return 0;
    w->inj_seen_ticks = 0;
    return inj_pop(rt);
}

bool gr__sched_take_injected(gr_runtime *rt, gr_item it)
{
    size_t pos = gr_load_relaxed(&rt->ring_deq);
    gr_inj_cell *c = &rt->ring[pos & (GR_INJ_CELLS - 1)];
    if (gr_load_acquire(&c->seq) != pos + 1 || c->item != it)
        return false;
    if (!gr_cas_strong_relaxed(&rt->ring_deq, &pos, pos + 1))
        return false;
    gr_store_release(&c->seq, pos + GR_INJ_CELLS);
    return true;
}

/* seq_cst loads: park() relies on them not passing its 'sleepers' RMW
 * (Dekker with inj_push's CAS and the publishers' fence). */
static bool inj_maybe_nonempty(gr_runtime *rt)
{
    return gr_load_seq_cst(&rt->ring_deq) != gr_load_seq_cst(&rt->ring_enq) || gr_load_seq_cst(&rt->inj_hint);
}

/* ------------------------------------------------------------- mailboxes */

static gr_worker *external_slot(gr_runtime *rt, unsigned j)
{
    return &rt->workers[rt->nslots - GR_EXTERNAL_SLOTS + j];
}

bool gr__sched_unmail(gr_worker *slot, gr_item it)
{
    gr_item cur = gr_load_relaxed(&slot->mail);
    return cur == it && gr_cas_strong_acquire(&slot->mail, &cur, 0);
}

/* A background worker's look at the mailboxes: each item is left alone
 * until this worker has seen it wait GR_INJ_GRACE ticks, as in
 * inj_pop_late; each mailbox has its own clock, so that a thread that
 * keeps its mailbox busy delays nobody else's. */
static gr_item mail_take_late(gr_runtime *rt, gr_worker *w)
{
    for (unsigned j = 0; j < GR_EXTERNAL_SLOTS; j++) {
        gr_worker *v = external_slot(rt, j);
        gr_item it = gr_load_relaxed(&v->mail);
        if (!it)
            continue;
        uint64_t n = gr_load_relaxed(&v->mail_count), now = gr__ticks();
        if (w->mail_seen[j].count != n || w->mail_seen[j].ticks == 0) {
            w->mail_seen[j].count = n;
            w->mail_seen[j].ticks = now;
            continue;
        }
        if (now - w->mail_seen[j].ticks < GR_INJ_GRACE)
            continue;
        w->mail_seen[j].ticks = 0;
        if (gr__sched_unmail(v, it))
            return it;
    }
    return 0;
}

/* Any mailed item at once (a waiting worker, see gr__sched_help_once). */
static gr_item mail_take_any(gr_runtime *rt)
{
    for (unsigned j = 0; j < GR_EXTERNAL_SLOTS; j++) {
        gr_worker *v = external_slot(rt, j);
        gr_item it = gr_load_relaxed(&v->mail);
        if (it && gr__sched_unmail(v, it))
            return it;
    }
    return 0;
}

/* seq_cst loads: park() relies on them not passing its 'sleepers' RMW and
 * its heavy barrier. */
static bool mail_maybe_nonempty(gr_runtime *rt)
{
    for (unsigned j = 0; j < GR_EXTERNAL_SLOTS; j++)
        if (gr_load_seq_cst(&external_slot(rt, j)->mail))
            return true;
    return false;
}

/* Work submitted from outside so far: what a spinner watches to know that
 * launches keep coming (see worker_main). */
static size_t submissions(gr_runtime *rt)
{
    size_t n = gr_load_relaxed(&rt->ring_enq);
    for (unsigned j = 0; j < GR_EXTERNAL_SLOTS; j++)
        n += (size_t)gr_load_relaxed(&external_slot(rt, j)->mail_count);
    return n;
}

/* ------------------------------------------------------------ find work */

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static gr_item steal_any(gr_runtime *rt, gr_worker *w)
{
    unsigned n = rt->nslots, start = (unsigned)(xorshift(&w->rng) % n);
    for (unsigned k = 0; k < n; k++) {
        gr_worker *v = &rt->workers[(start + k) % n];
        if (v == w || !gr__deque_maybe_nonempty(&v->dq))
            continue;
        gr_item it = gr__deque_steal(&v->dq);
        if (it)
            return it;
    }
    return 0;
}

/* A background worker's search (it honours the grace period). */
static gr_item find_work(gr_runtime *rt, gr_worker *w)
{
    gr_item it = gr__pfor_offer_take(rt);
    if (it)
        return it;
    it = inj_pop_late(rt, w);
    if (!it)
        it = mail_take_late(rt, w);
    return it ? it : steal_any(rt, w);
}

/* With 'ring' false, only the deques count: the injection queue and the
 * mailboxes are the spinners' job (see worker_main). */
bool gr__sched_work_visible(gr_runtime *rt, bool ring)
{
    if (ring && (inj_maybe_nonempty(rt) || mail_maybe_nonempty(rt)))
        return true;
    if (gr_load_seq_cst(&rt->offer_seats) > 0)
        return true;
    for (unsigned i = 0; i < rt->nslots; i++)
        if (gr__deque_maybe_nonempty(&rt->workers[i].dq))
            return true;
    return false;
}

void gr__sched_submit(gr_runtime *rt, gr_item it)
{
    gr_worker *w = gr__tls_worker;
    /* An application thread hands a stream on to the workers: kept on its
     * slot's deque, it would drain the stream itself when it leaves the
     * slot (gr__slot_release), running ops after the ones it waited for,
     * such as a host function that blocks. */
    if (w && !(w->external && gr__item_tag(it) == GR_ITEM_STREAM)) {
        if (!gr__deque_push(&w->dq, it)) {
            gr__item_run(w, it);
            return;
        }
        gr__sched_wake_one(rt);
    } else {
        if (inj_push(rt, it)) /* its seq_cst CAS orders the wake-up test */
            gr__sched_wake_one_ordered(rt);
        else
            gr__sched_wake_one(rt);
    }
}

void gr__item_run(gr_worker *w, gr_item it)
{
    switch (gr__item_tag(it)) {
    case GR_ITEM_STREAM:
        gr__stream_drain(w, gr__item_ptr(it));
        return;
    case GR_ITEM_TOKEN:
        gr__stream_drain_token(w, gr__item_ptr(it));
        return;
    case GR_ITEM_NODE:
        gr__exec_node_item(w, gr__item_ptr(it));
        return;
    case GR_ITEM_PFOR:
        gr__pfor_help(w, gr__item_ptr(it));
        return;
    default:
        (void)GR_NEVER(true);
        return;
    }
}

bool gr__sched_help_once(gr_runtime *rt, gr_worker *w)
{
    gr_item it = 0;
    if (w->external) {
        /* An application thread runs only what it queued on its own
         * deque: CUDA never runs other work on a synchronising thread, and
         * a host function of another stream may wait for this very thread. */
        if (gr__deque_maybe_nonempty(&w->dq))
            it = gr__deque_pop(&w->dq);
        if (!it)
            return false;
        gr__item_run(w, it);
        return true;
    }
    it = gr__pfor_offer_take(rt);
    if (!it)
        it = inj_pop(rt);
    if (!it)
        it = mail_take_any(rt);
    if (!it && gr__deque_maybe_nonempty(&w->dq))
        it = gr__deque_pop(&w->dq);
    if (!it)
        it = steal_any(rt, w);
    if (!it)
        return false;
    gr__item_run(w, it);
    return true;
}

/* ---------------------------------------------------------------- workers */

/* Whether a worker that just took 'it' should wake another to look for
 * work (its replacement as a spinner, or the next of a chain of
 * wake-ups): not for a graph node whose launch has all the helpers it may
 * have. On two cores the launch's owner and one helper fill the machine,
 * and a third thread woken would only share a core with them. */
static bool wants_company(gr_item it)
{
    return gr__item_tag(it) != GR_ITEM_NODE || gr__exec_node_wants_helpers(gr__item_ptr(it));
}

/* How long a worker that has just run an item keeps polling past the
 * spinner limit, all in one unit: 'spin' (GRAPHRT_SPIN_US), or twice the
 * time the item took where that is longer, up to 'cap'. The next nodes of
 * a launch come when nodes of about that length end on other threads: at
 * 100 us a node, workers that had waited 50 us for the next layer, or for
 * the next launch's first nodes, were parked, and each of those
 * hand-overs paid a futex wake-up. Only graph nodes and block ranges
 * count (run_noting). */
static uint64_t spin_window(uint64_t spin, uint64_t cap, uint64_t item)
{
    uint64_t longer = 2 * item < cap ? 2 * item : cap;
    return longer > spin ? longer : spin;
}

/* Notes the submissions' count as a spinner that follows their pace sees
 * it at 'now' (see cadence_span): the first to see it move records when,
 * and the gap since the move seen before (rt->pace_*). The workers share
 * the record: a launch wakes whichever worker is parked, and a worker's
 * own record of every other launch showed twice the gap. */
static void pace_note(gr_runtime *rt, size_t count, uint64_t now)
{
    size_t was = gr_load_relaxed(&rt->pace_count);
    if (count == was || !gr_cas_strong_relaxed(&rt->pace_count, &was, count))
        return;
    uint64_t at = gr_load_relaxed(&rt->pace_at);
    gr_store_relaxed(&rt->pace_gap, at && now > at ? now - at : 0);
    gr_store_relaxed(&rt->pace_at, now);
}

/* The window (ns) of the first spinner, stretched to cover the gap
 * between the last two submissions the workers saw, where that is longer
 * and at most GR_LONG_ITEM_SPIN_MAX_US: twice the gap, up to that. An application that
 * launches a graph of 500 us and synchronises, over and over, left the
 * worker parked at every launch, which then paid a futex wake-up (on the
 * 2-core VM a chain of 100 nodes of 5 us took 512-527 us a replay,
 * against 493-502 with the stretch and 492 for the nodes alone). One
 * spinner is enough for the launches to find one; the others keep their
 * window, so that the stretch costs one CPU at most. */
static uint64_t cover_gap(uint64_t span, uint64_t gap, uint64_t cap)
{
    if (!span || !gap || gap > cap)
        return span;
    uint64_t cover = 2 * gap < cap ? 2 * gap : cap;
    return cover > span ? cover : span;
}

static uint64_t cadence_span(const gr_runtime *rt, uint64_t span)
{
    return cover_gap(span, gr_load_relaxed(&rt->pace_gap), GR_LONG_ITEM_SPIN_MAX_US * 1000u);
}

uint64_t gr__sched_cadence_span_us(uint64_t span_us, uint64_t gap_us)
{
    return cover_gap(span_us, gap_us, GR_LONG_ITEM_SPIN_MAX_US);
}

uint64_t gr__sched_spin_window_us(uint64_t spin_us, uint64_t item_us)
{
    return spin_window(spin_us, GR_LONG_ITEM_SPIN_MAX_US, item_us);
}

bool gr__sched_cpu_loan_out(void)
{
    gr_runtime *rt = gr__runtime_get();
    return rt && gr_load_acquire(&rt->cpu_loan) != 0;
}

uint64_t gr__sched_cpu_loans_taken(void)
{
    gr_runtime *rt = gr__runtime_get();
    return rt ? gr_load_relaxed(&rt->cpu_loans_taken) : 0;
}

unsigned gr__sched_parked_workers(void)
{
    gr_runtime *rt = gr__runtime_get();
    int n = rt ? gr_load_seq_cst(&rt->sleepers) : 0;
    return n > 0 ? (unsigned)n : 0u;
}

uint64_t gr__sched_ticks_per_us(void)
{
    gr_runtime *rt = gr__runtime_get();
    return rt ? gr__ticks_per_us(rt) : 0;
}

/* Runs it; with active spinning, notes when it ended and, for graph nodes
 * and block ranges, how long it took (see spin_window). */
static inline void run_noting(gr_worker *w, gr_item it, bool active_spin, uint64_t *last_work,
                              uint64_t *last_len)
{
    if (!active_spin) {
        gr__item_run(w, it);
        return;
    }
    uint64_t t0 = gr__ticks();
    gr__item_run(w, it);
    *last_work = gr__ticks();
    unsigned tag = gr__item_tag(it);
    *last_len = tag == GR_ITEM_NODE || tag == GR_ITEM_PFOR ? *last_work - t0 : 0;
}

void gr__sched_borrow_cpu(gr_runtime *rt)
{
    gr_fetch_add_relaxed(&rt->cpu_loan_starts, 1);
    gr_fetch_add_acq_rel(&rt->cpu_loan_users, 1);
    uint32_t none = 0;
    if (gr_load_relaxed(&rt->cpu_loan) == 0)
        gr_cas_strong_acq_rel_acquire(&rt->cpu_loan, &none, GR_CPU_WANTED);
}

void gr__sched_end_borrow(gr_runtime *rt)
{
    /* Nobody took the CPU and no other launch counts on it: withdrawn. */
    uint32_t wanted = GR_CPU_WANTED;
    if (gr_fetch_sub_acq_rel(&rt->cpu_loan_users, 1) == 1 && gr_load_relaxed(&rt->cpu_loan) == wanted)
        gr_cas_strong_acq_rel_acquire(&rt->cpu_loan, &wanted, 0u);
}

/* A worker with no work of its own takes the CPU asked for, if it still
 * is, and sits out until no launch has used the loan for
 * GR_CPU_LOAN_IDLE_US (or the runtime stops); true if it did. A wake-up
 * it took for work is passed on first: the publisher counted on it. */
static GR_NOINLINE bool sit_out(gr_runtime *rt, bool took_wake)
{
    uint32_t wanted = GR_CPU_WANTED;
    if (!gr_cas_strong_acq_rel_acquire(&rt->cpu_loan, &wanted, GR_CPU_TAKEN))
        return false;
    gr_fetch_add_relaxed(&rt->cpu_loans_taken, 1);
    if (took_wake)
        gr__sched_wake_one(rt);
    const struct timespec nap = {0, GR_CPU_LOAN_IDLE_US * 1000L};
    uint64_t seen = gr_load_relaxed(&rt->cpu_loan_starts);
    for (;;) {
        nanosleep(&nap, NULL);
        uint64_t starts = gr_load_relaxed(&rt->cpu_loan_starts);
        if (gr_load_acquire(&rt->stop) || (starts == seen && gr_load_acquire(&rt->cpu_loan_users) == 0))
            break;
        seen = starts;
    }
    /* A launch that begins now finds the CPU given back and asks again. */
    gr_store_release(&rt->cpu_loan, 0u);
    return true;
}

static inline bool cpu_wanted(gr_runtime *rt)
{
    return GR_UNLIKELY(gr_load_relaxed(&rt->cpu_loan) == GR_CPU_WANTED);
}

/* Yields the CPU; true unless another thread ran meanwhile for longer
 * than GR_YIELD_CONTENDED_US, which means all CPUs are wanted. A spinner
 * that only paused shared a core with busy threads whenever the process
 * had more threads than CPUs (the application thread and one worker per
 * CPU, or other programs): on two CPUs it took about a third of a
 * kernel's time from the thread sharing its core (256 blocks of 1 us:
 * 178 us a launch, against 128 with two busy threads alone). There a
 * spinner is not needed: the busy threads look for work when they finish,
 * and a parked worker is woken if they do not. A spinner yields only
 * every eighth poll: a yield returns sooner than a pause where nobody
 * waits, and polling more often slows the threads that write the lines
 * it reads. */
static bool yield_cpu(gr_runtime *rt)
{
    uint64_t t0 = gr__ticks();
    sched_yield();
    return gr__ticks() - t0 < GR_YIELD_CONTENDED_US * gr__ticks_per_us(rt);
}

/* A worker's start: its thread's name (for debuggers and top) and its
 * thread-local self. */
static GR_NOINLINE void worker_start(gr_worker *w)
{
    char name[16];
    snprintf(name, sizeof name, "graphrt-w%u", w->index);
    pthread_setname_np(pthread_self(), name);
    gr__tls_worker = w;
}

/* The ns left of an active spin for a worker that last ran an item
 * (taking last_len ticks) at last_work (gr__ticks): spin_window, less
 * the time since. Inlined: the idle path only. */
static inline uint64_t active_window(gr_runtime *rt, uint64_t last_work, uint64_t last_len)
{
    uint64_t tpu = gr__ticks_per_us(rt), since = gr__ticks() - last_work;
    uint64_t full = spin_window(rt->spin_ns * tpu / 1000, GR_LONG_ITEM_SPIN_MAX_US * tpu, last_len);
    return since < full ? (full - since) * 1000 / tpu : 0;
}

/* A worker beyond the spinners' limit, counted in rt->spinning: it
 * leaves the count and parks. Returns whether it owes a wake-up (see
 * worker_main): it took a pending one (see park), or it was the last one
 * counted. */
static GR_NOINLINE bool park_surplus(gr_runtime *rt)
{
    /* The spinners watch the injection queue (a spinner only stops
     * spinning to run work, or to park after checking the queue), so
     * this worker sleeps unless a deque holds work. But while it was
     * counted, a submitter may have taken it for a spinner and woken
     * nobody: if the spinners left meanwhile (the count drops to zero
     * with it), it looks again instead, as the last spinner. */
    if (gr_fetch_sub_seq_cst(&rt->spinning, 1) == 1)
        return true;
    unsigned r = gr__sched_park(rt, false);
    if (!(r & PARK_SLEPT))
        for (int p = 0; p < 64; p++) /* work is visible: look again soon */
            gr__cpu_relax();
    return (r & PARK_TOOK_WAKE) != 0;
}

/* Spins for work as the spinners+1-th spinner (window: ns left of its
 * active spin, 0 without); returns the item found, or NULL when the
 * window ran out, the CPUs are wanted or the runtime stops. Inlined: it
 * is worker_main's idle path, and the one place that spins. */
static inline gr_item spin_for_work(gr_runtime *rt, gr_worker *w, int spinners, uint64_t window,
                                    bool active_spin)
{
    gr_item it = 0;
    uint64_t base = spinners >= rt->max_spinners || window > rt->spin_ns ? window : rt->spin_ns;
    /* Only the first spinner follows the pace of submissions, and only
     * where workers that ran work do not spin past the limit (two CPUs
     * or fewer, or two workers): elsewhere a launch usually finds one
     * of those, and the stretch measured slower in three sessions of
     * the 16-core host (16 threads, a fan of 1,024 nodes of 1 us: 351
     * us a replay against 317-322, also when workers that had run an
     * item a moment ago did not follow the pace). */
    bool paced = spinners == 0 && !active_spin;
    uint64_t now_ns = gr__now_ns();
    size_t seen = submissions(rt);
    if (paced)
        pace_note(rt, seen, now_ns);
    uint64_t span = paced ? cadence_span(rt, base) : base;
    uint64_t deadline = now_ns + span;
    /* Poll every few pauses only: polling reads lines the busy threads
     * write, and a tight poll would slow them down. The spin window
     * restarts whenever work was submitted meanwhile, even if its
     * submitter ran it: an application that keeps launching keeps a
     * worker awake instead of paying a futex wake per launch; and it
     * stretches to the pace of those submissions (cadence_span). */
    uint64_t gap = GR_POLL_TICKS_MIN;
    for (unsigned k = 1;; k++) {
        if (cpu_wanted(rt))
            break;
        it = find_work(rt, w);
        if (it || gr_load_relaxed(&rt->stop))
            break;
        /* Back off to about a microsecond between polls. */
        gr__pause_ticks(gap);
        if (gap < GR_POLL_TICKS_MAX)
            gap *= 2;
        if ((k & 7) == 0) {
            if (gap == GR_POLL_TICKS_MAX && !yield_cpu(rt))
                break; /* the CPUs are all wanted: park */
            size_t now_enq = submissions(rt);
            uint64_t now = gr__now_ns();
            if (now_enq != seen) {
                seen = now_enq;
                if (paced) {
                    pace_note(rt, seen, now);
                    span = cadence_span(rt, base);
                }
                deadline = now + span;
            } else if (now > deadline) {
                break;
            }
        }
    }
    return it;
}

static void *worker_main(void *arg)
{
    gr_worker *w = arg;
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    worker_start(w);
    /* Whether publishers may have counted on this worker and woken
     * nobody: it took their pending wake-up (see park), or it was the
     * last one counted in 'spinning' and left the count without their
     * work, which it then found still waiting. If it takes one item of
     * that work while more waits, it wakes another worker for the rest,
     * which would otherwise wait as long as its item runs: behind a host
     * function that blocks until another stream's work has run, for
     * good. */
    bool owes_wake = false;
    /* Whether a recent item lets this worker spin past the limit, when
     * (gr__ticks) it last ran one and how long that took (see
     * spin_window); not read where that cannot happen. */
    bool active_spin = rt->spin_ns && rt->max_active_spinners > rt->max_spinners;
    uint64_t last_work = 0, last_len = 0;
    while (!gr_load_acquire(&rt->stop)) {
        gr_item it = gr__deque_pop(&w->dq);
        if (!it) {
            if (cpu_wanted(rt) && sit_out(rt, owes_wake)) {
                owes_wake = false;
                continue;
            }
            it = find_work(rt, w);
        }
        if (it) {
            /* Publishers may have left it to this worker to wake the
             * next one (owes_wake): if more work waits, wake another. */
            if (owes_wake && wants_company(it) && gr__sched_work_visible(rt, true))
                gr__sched_wake_one(rt);
            owes_wake = false;
            run_noting(w, it, active_spin, &last_work, &last_len);
            continue;
        }
        owes_wake = false;
        /* Two spinners are enough to pick up new work at once; more would
         * only add polling traffic on the lines busy threads write. The
         * others park, and are woken when nobody spins, except a worker
         * that ran work a moment ago: more is likely to come soon (the
         * next nodes of a graph), and a park and wake-up costs more. */
        uint64_t window = active_spin ? active_window(rt, last_work, last_len) : 0;
        int spinners = gr_fetch_add_seq_cst(&rt->spinning, 1);
        if (spinners >= (window ? rt->max_active_spinners : rt->max_spinners)) {
            owes_wake = park_surplus(rt);
            continue;
        }
        it = spin_for_work(rt, w, spinners, window, active_spin);
        if (!it) /* a test holds the last spinner here, still counted */
            gr__debug_pause("spin-end");
        int was = gr_fetch_sub_seq_cst(&rt->spinning, 1);
        if (it) {
            /* The last spinner is leaving to run work, which may take long
             * (a host function waiting for a gate): publishers saw a
             * spinner and woke nobody, so more work may be waiting. Wake a
             * sleeper to spin in its place. */
            if (was == 1 && wants_company(it))
                gr__sched_wake_one(rt);
            run_noting(w, it, active_spin, &last_work, &last_len);
            continue;
        }
        /* The last spinner leaves without work (its window ran out, or
         * a yield showed the CPUs wanted). Publishers that saw it counted
         * woke nobody: what they queued since its last look, or what it
         * saw but left to the submitter for the grace period, is still
         * its charge. Its park returns at once while that is visible, and
         * it takes the work at the top of the loop, owing a wake-up. */
        bool last = was == 1;
        if (cpu_wanted(rt) && sit_out(rt, last && gr__sched_work_visible(rt, true)))
            continue;
        unsigned r = gr__sched_park(rt, true);
        owes_wake = (r & PARK_TOOK_WAKE) || (last && !(r & PARK_SLEPT));
    }
    gr__tls_worker = NULL;
    return NULL;
}

/* An application thread keeps the slot it borrowed first (so a wait costs
 * no atomic operation for it) until the thread exits or the runtime is
 * reset. */
static _Thread_local gr_worker *tls_slot;
static _Thread_local uint64_t tls_slot_gen;
static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

static void slot_thread_exit(void *p)
{
    gr_worker *w = p;
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    if (rt && rt->generation == tls_slot_gen)
        gr_store_release(&w->taken, false);
}

static void slot_key_init(void)
{
    pthread_key_create(&slot_key, slot_thread_exit);
}

gr_worker *gr__slot_acquire(gr_runtime *rt)
{
    if (gr__tls_worker)
        return NULL;
    if (GR_LIKELY(tls_slot && tls_slot_gen == rt->generation)) {
        gr__tls_worker = tls_slot;
        return tls_slot;
    }
    for (unsigned i = rt->nworkers; i < rt->nslots; i++) {
        gr_worker *w = &rt->workers[i];
        if (!gr_load_relaxed(&w->taken) && !gr_exchange_acquire(&w->taken, true)) {
            pthread_once(&slot_key_once, slot_key_init);
            pthread_setspecific(slot_key, w);
            tls_slot = w;
            tls_slot_gen = rt->generation;
            gr__tls_worker = w;
            return w;
        }
    }
    return NULL;
}

gr_worker *gr__sched_mail_slot(gr_runtime *rt)
{
    gr_worker *w = tls_slot;
    if (gr__tls_worker || !w || tls_slot_gen != rt->generation || gr_load_relaxed(&w->mail))
        return NULL;
    return w;
}

void gr__sched_mail(gr_runtime *rt, gr_worker *slot, gr_item it)
{
    gr_store_relaxed(&slot->mail_count, gr_load_relaxed(&slot->mail_count) + 1);
    gr_store_release(&slot->mail, it);
    /* Dekker with park() (see the top of the file). A worker that took a
     * pending wake-up pairs with a fence only, so a wake-up, which is
     * expensive anyway, is decided after a real fence. */
    if (gr__barrier_asym()) {
        gr_compiler_barrier(); /* the light side (core/barrier.h): park() issues the heavy one */
        if (gr_load_seq_cst(&rt->spinning) != 0 || gr_load_seq_cst(&rt->sleepers) == 0)
            return;
    }
    gr_fence_seq_cst();
    gr__sched_wake_one_ordered(rt);
}

void gr__slot_release(gr_worker *w)
{
    gr_item it;
    /* Leave the slot empty: run what is still ours. */
    while (gr__deque_maybe_nonempty(&w->dq) && (it = gr__deque_pop(&w->dq)) != 0)
        gr__item_run(w, it);
    gr__tls_worker = NULL;
}

static unsigned env_unsigned(const char *name, unsigned dflt, unsigned lo, unsigned hi)
{
    const char *s = getenv(name);
    char *end;
    unsigned long v;
    if (!s || !*s)
        return dflt;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return dflt;
    return (unsigned)v;
}

static void runtime_free(gr_runtime *rt)
{
    for (unsigned i = 0; i < rt->nslots; i++) {
        gr__deque_fini(&rt->workers[i].dq);
        gr__free(rt->workers[i].local);
        if (rt->workers[i].scratch) /* kernel.c poisons its unused part */
            GR_UNPOISON(rt->workers[i].scratch, GR_MAX_SHARED_MEM_OPTIN);
        gr__free(rt->workers[i].scratch);
    }
    gr__free(rt->workers);
    gr__free(rt->ring);
    gr__free(rt->inj);
    pthread_mutex_destroy(&rt->inj_lock);
    pthread_mutex_destroy(&rt->streams_lock);
    gr__free(rt);
}

gr_runtime *gr__runtime_start(void)
{
    gr_runtime *rt;
    pthread_mutex_lock(&start_lock);
    rt = gr_load_acquire(&gr__rt);
    if (rt) {
        pthread_mutex_unlock(&start_lock);
        return rt;
    }
    rt = gr__calloc(1, sizeof *rt);
    if (!rt)
        goto fail;
    static uint64_t generations; /* guarded by start_lock */
    rt->generation = ++generations;
    unsigned forced = gr_load_relaxed(&cpus_override);
    long ncpu = forced ? (long)forced : usable_cpus();
    rt->ncpu = ncpu > 0 ? (unsigned)ncpu : 1u;
    rt->nworkers = env_unsigned("GRAPHRT_WORKERS", ncpu > 0 ? (unsigned)ncpu : 1u, 1, 1024);
    rt->spin_ns = (uint64_t)env_unsigned("GRAPHRT_SPIN_US", 200, 0, 1000000) * 1000u;
    /* Spinners must leave a core to the application threads that launch
     * and synchronise: on two cores, two spinners made a synchronising
     * thread share a core with one of them. */
    rt->max_spinners = ncpu > 2 ? GR_MAX_SPINNERS : 1;
    /* Recently busy workers may all spin but one, which leaves a core to
     * the thread that launched. */
    rt->max_active_spinners = ncpu > 2 && rt->nworkers > 2 ? (int)rt->nworkers - 1 : rt->max_spinners;
    rt->nslots = rt->nworkers + GR_EXTERNAL_SLOTS;
    /* GRAPHRT_MEMBARRIER=0 (read once per process) gives fences instead,
     * where a membarrier costs more than parks save (it interrupts every
     * running thread of the process; on some VMs that takes tens of
     * microseconds). */
    gr__barrier_setup();
    /* GRAPHRT_TRACE, GRAPHRT_LAUNCH_BLOCKING, GRAPHRT_CHECK: once per process. */
    gr__dbg_setup();
    rt->workers = gr__calloc(rt->nslots, sizeof *rt->workers);
    rt->inj_cap = 64;
    rt->inj = gr__malloc(rt->inj_cap * sizeof *rt->inj);
    rt->ring = gr__aligned_alloc(GR_CACHELINE, GR_INJ_CELLS * sizeof *rt->ring);
    if (!rt->workers || !rt->inj || !rt->ring) {
        gr__free(rt->workers);
        gr__free(rt->inj);
        gr__free(rt->ring);
        gr__free(rt);
        goto fail;
    }
    for (size_t i = 0; i < GR_INJ_CELLS; i++)
        atomic_init(&rt->ring[i].seq, i);
    pthread_mutex_init(&rt->inj_lock, NULL);
    pthread_mutex_init(&rt->streams_lock, NULL);
    for (unsigned i = 0; i < rt->nslots; i++) {
        gr_worker *w = &rt->workers[i];
        w->external = i >= rt->nworkers;
        w->index = w->external ? 0 : i + 1; /* what grKernelCtx.worker shows */
        w->rng = 0x9e3779b97f4a7c15ull * (i + 1);
        if (!gr__deque_init(&w->dq, 256)) {
            rt->nslots = i;
            runtime_free(rt);
            goto fail;
        }
    }
    if (gr__stream_runtime_init(rt) != grSuccess) {
        runtime_free(rt);
        goto fail;
    }
    gr_store_release(&gr__rt, rt);
    for (unsigned i = 0; i < rt->nworkers; i++)
        if (pthread_create(&rt->workers[i].thread, NULL, worker_main, &rt->workers[i]) != 0) {
            /* Fewer workers than asked: keep the ones we have. */
            rt->nworkers = i;
            break;
        }
    pthread_mutex_unlock(&start_lock);
    return rt;
fail:
    pthread_mutex_unlock(&start_lock);
    return NULL;
}

/* After the workers are gone, what the queues still hold: stale STREAM
 * items (each with the reference of a claimer that lost, see drain.c),
 * tokens put back with nothing left to drain, and nothing else once the
 * device is synchronised. Each is run here, on the calling thread in the
 * first slot's stead, so that the references they hold are dropped:
 * freeing the queues with them would leak their streams. */
static void run_leftovers(gr_runtime *rt)
{
    gr_worker *w = &rt->workers[0];
    for (;;) {
        gr_item it = inj_pop(rt);
        if (!it)
            it = mail_take_any(rt);
        for (unsigned i = 0; !it && i < rt->nslots; i++)
            it = gr__deque_steal(&rt->workers[i].dq);
        if (!it)
            return;
        gr__item_run(w, it);
    }
}

/* Stops the workers and frees the runtime; the next call starts anew. */
void gr__runtime_stop(void)
{
    pthread_mutex_lock(&start_lock);
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    if (!rt) {
        pthread_mutex_unlock(&start_lock);
        return;
    }
    gr_store_seq_cst(&rt->stop, true);
    gr_fetch_add_acq_rel(&rt->wake_seq, GR_WAKE_STEP);
    gr__futex_wake(&rt->wake_seq, INT_MAX);
    for (unsigned i = 0; i < rt->nworkers; i++)
        pthread_join(rt->workers[i].thread, NULL);
    run_leftovers(rt);
    gr__stream_runtime_fini(rt);
    gr_store_release(&gr__rt, NULL);
    runtime_free(rt);
    pthread_mutex_unlock(&start_lock);
}

uint64_t gr__ticks_per_us(gr_runtime *rt)
{
    uint64_t r = gr_load_relaxed(&rt->ticks_per_us);
    if (GR_LIKELY(r))
        return r;
    uint64_t n0 = gr__now_ns(), t0 = gr__ticks(), n1;
    do
        n1 = gr__now_ns();
    while (n1 - n0 < 20000);
    r = (gr__ticks() - t0) * 1000 / (n1 - n0);
    r = r ? r : 1;
    gr_store_relaxed(&rt->ticks_per_us, r);
    return r;
}

bool gr__device_start(void)
{
    return gr__runtime_get() != NULL;
}

void gr__device_stop(void)
{
    if (gr_load_acquire(&gr__rt)) {
        gr__device_sync_all();
        gr__runtime_stop();
    }
}

unsigned gr__worker_count(void)
{
    gr_runtime *rt = gr__runtime_get();
    return rt ? rt->nworkers : 0;
}

unsigned gr__worker_index(void)
{
    gr_worker *w = gr__tls_worker;
    return w ? w->index : 0;
}
