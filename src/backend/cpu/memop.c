/*
 * memop.c - running stream memory operations on the CPU: the waits and
 * writes of grStreamWaitValue32/64, grStreamWriteValue32/64,
 * grStreamBatchMemOp and batch memory operation nodes, wherever they run
 * (a stream's op, a graph's node).
 *
 * A wait checks its word, spins for a bounded number of checks, then, as
 * long as the word does not meet the condition, runs other work when the
 * thread holds a worker (gr__sched_help_once: other streams' work, graph
 * nodes it can take), and sleeps on one process-wide condition variable
 * when there is none, with a timeout that grows from 50 microseconds to 1
 * millisecond: graphrt's own writes broadcast it, so they wake the waits
 * at once (a wait of a plan with 'waits_alone' only sleeps: it runs no
 * other work, plan.h); a store by any other means (another thread's atomic store) is
 * seen at the next timeout. So a wait never burns a core for long, never
 * keeps the only worker from the write another stream queued, and a wait
 * never satisfied costs about a thousand wake-ups a second.
 *
 * Invariants:
 *   - no lost wake-up: a sleeper counts itself (seq_cst) before it reads
 *     the word (seq_cst) under memops_lock; a writer stores the word
 *     (seq_cst) before it reads the count, and broadcasts under the lock.
 *     Dekker: either the sleeper reads the new value, or the writer sees
 *     the sleeper and its broadcast comes after the sleeper waits;
 *   - no lock is held while a wait runs other work.
 */
#include "sched.h"

#include <pthread.h>
#include <time.h>

/* Checks a waiting thread makes before it looks for other work (each a
 * pause). */
#define GR_MEMOP_SPINS 2000u
/* The sleep's timeout: from the first to the last, doubling. */
#define GR_MEMOP_POLL_MIN_NS 50000L
#define GR_MEMOP_POLL_MAX_NS 1000000L

static pthread_mutex_t memops_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memops_cond;
static pthread_once_t memops_once = PTHREAD_ONCE_INIT;
static _Atomic unsigned memops_sleepers;

/* The condition variable times out on the monotonic clock. */
static void memops_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&memops_cond, &a);
    pthread_condattr_destroy(&a);
}

/* The word is the program's plain memory, not an _Atomic object: the
 * compiler's __atomic builtins access it atomically all the same. */
static bool satisfied(const grStreamBatchMemOpParams *op)
{
    bool wide = op->operation == grStreamMemOpWaitValue64;
    const void *addr = op->waitValue.address;
    uint64_t v = wide ? __atomic_load_n((const uint64_t *)addr, __ATOMIC_SEQ_CST)
                      : __atomic_load_n((const uint32_t *)addr, __ATOMIC_SEQ_CST);
    uint64_t want = wide ? op->waitValue.value64 : op->waitValue.value;
    switch (op->waitValue.flags) {
    case grStreamWaitValueGeq:
        return wide ? (int64_t)(v - want) >= 0 : (int32_t)(uint32_t)(v - want) >= 0;
    case grStreamWaitValueEq:
        return v == want;
    case grStreamWaitValueAnd:
        return (v & want) != 0;
    default: /* grStreamWaitValueNor, the flags having been checked */
        return wide ? ~(v | want) != 0 : (uint32_t) ~(v | want) != 0;
    }
}

/* One sleep of at most 'poll' nanoseconds, unless the word meets the
 * condition first; a write of graphrt's ends it early. */
static void sleep_once(const grStreamBatchMemOpParams *op, long poll)
{
    pthread_once(&memops_once, memops_init);
    pthread_mutex_lock(&memops_lock);
    gr_fetch_add_seq_cst(&memops_sleepers, 1);
    if (!satisfied(op)) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += poll;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&memops_cond, &memops_lock, &t);
    }
    gr_fetch_sub_relaxed(&memops_sleepers, 1);
    pthread_mutex_unlock(&memops_lock);
}

static void wait_value(const grStreamBatchMemOpParams *op, bool help)
{
    for (unsigned i = 0; i < GR_MEMOP_SPINS; i++) {
        if (satisfied(op))
            return;
        gr__cpu_relax();
    }
    gr_worker *w = gr__tls_worker;
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    long poll = GR_MEMOP_POLL_MIN_NS;
    while (!satisfied(op)) {
        /* The write may be queued where only this thread can run it now
         * (another stream, while every other worker is busy). */
        if (help && w && rt && gr__sched_help_once(rt, w)) {
            poll = GR_MEMOP_POLL_MIN_NS;
            continue;
        }
        sleep_once(op, poll);
        poll = poll * 2 > GR_MEMOP_POLL_MAX_NS ? GR_MEMOP_POLL_MAX_NS : poll * 2;
    }
}

static void write_value(const grStreamBatchMemOpParams *op)
{
    void *addr = op->writeValue.address;
    if (op->operation == grStreamMemOpWriteValue64)
        __atomic_store_n((uint64_t *)addr, op->writeValue.value64, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n((uint32_t *)addr, op->writeValue.value, __ATOMIC_SEQ_CST);
    if (gr_load_seq_cst(&memops_sleepers) > 0) {
        pthread_once(&memops_once, memops_init);
        pthread_mutex_lock(&memops_lock);
        pthread_cond_broadcast(&memops_cond);
        pthread_mutex_unlock(&memops_lock);
    }
}

void gr__memop_run(const grStreamBatchMemOpParams *op)
{
    gr__memop_run_ex(op, true);
}

void gr__memop_run_ex(const grStreamBatchMemOpParams *op, bool help)
{
    switch (op->operation) {
    case grStreamMemOpWaitValue32:
    case grStreamMemOpWaitValue64:
        wait_value(op, help);
        return;
    case grStreamMemOpWriteValue32:
    case grStreamMemOpWriteValue64:
        write_value(op);
        return;
    case grStreamMemOpBarrier:
        gr_fence_seq_cst();
        return;
    case grStreamMemOpFlushRemoteWrites: /* refused when checked */
        return;
    }
}
