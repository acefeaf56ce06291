/*
 * barrier.h - the asymmetric Dekker barrier, written once for its users
 * (the scheduler's mailboxes and parking, the pools' per-thread caches).
 *
 * The pattern: a hot side stores its flag, then loads the rare side's;
 * the rare side stores its flag, then loads the hot side's. Sequential
 * consistency asks for a full barrier between the store and the load on
 * both sides, which costs the hot side ~20 cycles per access. Instead the
 * hot side keeps only the compiler from reordering (gr_barrier_light), and
 * the rare side makes every running thread of the process execute a full
 * barrier (gr_barrier_heavy: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED),
 * then a fence of its own).
 *
 * Why it holds: membarrier returns only after each CPU running a thread of
 * the process has executed a full barrier (and a thread not running has
 * passed one on its way out). Take the hot side's store S_h, load L_h, and
 * the rare side's store S_r, heavy barrier B, load L_r. The hot thread's
 * barrier from B falls somewhere in its program order. If it falls before
 * S_h, then S_r (before B) is visible to every load after that barrier,
 * so L_h sees S_r. If it falls after S_h, S_h is visible before B returns,
 * so L_r sees S_h. If it falls between S_h and L_h, both hold. Either way
 * at least one side sees the other, which is all the pairing needs.
 *
 * Without membarrier (old kernels, seccomp, GRAPHRT_MEMBARRIER=0) both
 * sides use a seq_cst fence; users for whom a fence per hot access costs
 * what the pattern saves may choose to do without (gr__barrier_asym()).
 * ThreadSanitizer models neither membarrier nor fences: users that need
 * its happens-before use a seq_cst read-modify-write on the hot side in
 * TSan builds.
 */
#ifndef GR_BARRIER_H
#define GR_BARRIER_H

#include "atomic.h"

#include <stdbool.h>

/* Chooses the kind once per process (registering with membarrier unless
 * GRAPHRT_MEMBARRIER=0): idempotent and thread-safe; every user calls it
 * before its first barrier. */
void gr__barrier_setup(void);

/* Set by gr__barrier_setup: true when the heavy side is a membarrier and
 * the light side only a compiler barrier. */
extern bool gr__barrier_is_asym;

static inline bool gr__barrier_asym(void)
{
    return gr__barrier_is_asym;
}

/* The hot side, between its store and its load. */
static inline void gr_barrier_light(void)
{
    if (gr__barrier_is_asym)
        gr_compiler_barrier();
    else
        gr_fence_seq_cst();
}

/* The rare side, between its store and its load. */
void gr_barrier_heavy(void);

#endif /* GR_BARRIER_H */
