/*
 * park.c - parking idle workers and waking them: the futex wrappers, a
 * worker's park, and the publishers' wake-ups (one, several, the one
 * pending wake-up passed on).
 *
 * Lost-wakeup freedom: a parking worker increments 'sleepers' (seq_cst) and
 * then re-checks for work; a publisher publishes, then a seq_cst fence,
 * then reads 'sleepers'. One of the two sees the other. A mailing thread
 * has only a compiler barrier there when the kernel offers membarrier
 * (core/barrier.h): a worker about to park on the injection queue's watch
 * then issues the heavy barrier, which pairs with it, as the fence would.
 * Parking is rare; mailing happens every launch.
 */
#include "sched.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void gr__futex_wait(_Atomic uint32_t *addr, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void gr__futex_wake(_Atomic uint32_t *addr, int n)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Wakes one parked worker unless one is spinning or a wake-up is already
 * pending (see park). The caller has just published work with a seq_cst
 * operation or fence, so these seq_cst loads cannot pass it (Dekker with
 * park(): see the top of the file). */
void gr__sched_wake_one_ordered(gr_runtime *rt)
{
    if (gr_load_seq_cst(&rt->spinning) != 0 || gr_load_seq_cst(&rt->sleepers) == 0)
        return;
    uint32_t seq = gr_load_seq_cst(&rt->wake_seq);
    while (!(seq & GR_WAKE_PENDING))
        if (gr_cas_weak_seq_cst(&rt->wake_seq, &seq, seq + GR_WAKE_PENDING)) {
            gr__futex_wake(&rt->wake_seq, 1);
            return;
        }
}

void gr__sched_wake_one(gr_runtime *rt)
{
    gr_fence_seq_cst();
    gr__sched_wake_one_ordered(rt);
}

void gr__sched_wake_some(gr_runtime *rt, unsigned n)
{
    gr_fence_seq_cst();
    if (gr_load_seq_cst(&rt->sleepers) > 0) {
        gr_fetch_add_acq_rel(&rt->wake_seq, GR_WAKE_STEP);
        gr__futex_wake(&rt->wake_seq, n > INT_MAX ? INT_MAX : (int)n);
    }
}

/* Sleeps until woken; returns at once, without sleeping, if work is
 * visible (in the injection queue and the mailboxes too if 'ring'), the
 * runtime stops or a wake-up is pending. Returns PARK_SLEPT if it slept,
 * and PARK_TOOK_WAKE if it took the pending wake-up: the worker must then
 * pass it on if it finds more work than it takes (see worker_main).
 *
 * A pending wake-up (GR_WAKE_PENDING in wake_seq) is how publishers avoid
 * waking a worker per submission while the one they woke has not run yet
 * (on a loaded machine it waits for a core, and stays counted in
 * 'sleepers' meanwhile). Every worker counted in 'sleepers' when the bit
 * is set still reads wake_seq afterwards (its wait returns, the word
 * having changed) and so takes the bit, or has left park already and looks
 * for work anyway; a publisher that found the bit set ordered its work
 * before the read that found it, so the worker that takes the bit sees the
 * work. */
unsigned gr__sched_park(gr_runtime *rt, bool ring)
{
    unsigned r = 0;
    /* Dekker with the publishers: they publish, then a seq_cst operation
     * or fence, then read 'sleepers' (wake_one_ordered, gr__sched_wake_some,
     * gr__sched_mail); this counts itself, then looks for work. */
    gr_fetch_add_seq_cst(&rt->sleepers, 1);
    /* Pairs with the compiler barrier of gr__sched_mail (see the top of
     * the file); it cannot fail once registered. */
    if (ring && gr__barrier_asym())
        gr_barrier_heavy();
    uint32_t seq = gr_load_seq_cst(&rt->wake_seq);
    if (!(seq & GR_WAKE_PENDING) && !gr__sched_work_visible(rt, ring) && !gr_load_seq_cst(&rt->stop)) {
        gr__futex_wait(&rt->wake_seq, seq);
        r |= PARK_SLEPT;
    }
    gr_fetch_sub_seq_cst(&rt->sleepers, 1);
    seq = gr_load_seq_cst(&rt->wake_seq);
    while (seq & GR_WAKE_PENDING)
        if (gr_cas_weak_seq_cst(&rt->wake_seq, &seq, seq + GR_WAKE_PENDING)) {
            r |= PARK_TOOK_WAKE;
            break;
        }
    return r;
}
