/*
 * atomic.h - the one vocabulary for atomic operations: every wrapper names
 * its memory order, and no code outside src/core/ calls atomic_*_explicit
 * or the implicitly seq_cst atomic_* functions itself (CI checks it), so
 * that the order of every access can be read at its site.
 *
 * Rules of use:
 *   - relaxed for counters and hints no other data depends on;
 *   - release stores / acquire loads to publish data and find it;
 *   - seq_cst only where a store must be ordered before a later load of
 *     another location (Dekker: each side stores, then loads what the
 *     other stored); every seq_cst site names the site it pairs with in a
 *     comment, and both sites use seq_cst (or a gr_fence_seq_cst between
 *     the store and the load);
 *   - a CAS wrapper names its success order, then its failure order when
 *     that is not relaxed (gr_cas_weak_acquire_acquire).
 * The asymmetric form of the Dekker pairing, where one side is hot and
 * the other rare, is gr_barrier_light / gr_barrier_heavy (barrier.h).
 */
#ifndef GR_ATOMIC_H
#define GR_ATOMIC_H

#include <stdatomic.h>
#include <stdbool.h>

#define gr_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define gr_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define gr_load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)

#define gr_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define gr_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define gr_store_seq_cst(p, v) atomic_store_explicit((p), (v), memory_order_seq_cst)

#define gr_fetch_add_relaxed(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define gr_fetch_add_acquire(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acquire)
#define gr_fetch_add_release(p, v) atomic_fetch_add_explicit((p), (v), memory_order_release)
#define gr_fetch_add_acq_rel(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define gr_fetch_add_seq_cst(p, v) atomic_fetch_add_explicit((p), (v), memory_order_seq_cst)

#define gr_fetch_sub_relaxed(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_relaxed)
#define gr_fetch_sub_release(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_release)
#define gr_fetch_sub_acq_rel(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel)
#define gr_fetch_sub_seq_cst(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_seq_cst)

#define gr_fetch_or_relaxed(p, v) atomic_fetch_or_explicit((p), (v), memory_order_relaxed)
#define gr_fetch_or_seq_cst(p, v) atomic_fetch_or_explicit((p), (v), memory_order_seq_cst)
#define gr_fetch_and_relaxed(p, v) atomic_fetch_and_explicit((p), (v), memory_order_relaxed)
#define gr_fetch_and_seq_cst(p, v) atomic_fetch_and_explicit((p), (v), memory_order_seq_cst)

#define gr_exchange_acquire(p, v) atomic_exchange_explicit((p), (v), memory_order_acquire)
#define gr_exchange_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define gr_exchange_seq_cst(p, v) atomic_exchange_explicit((p), (v), memory_order_seq_cst)

#define gr_cas_weak_relaxed(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_relaxed, memory_order_relaxed)
#define gr_cas_weak_acquire(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_acquire, memory_order_relaxed)
#define gr_cas_weak_acquire_acquire(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_acquire, memory_order_acquire)
#define gr_cas_weak_release(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_release, memory_order_relaxed)
#define gr_cas_weak_seq_cst(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_seq_cst, memory_order_relaxed)
#define gr_cas_strong_relaxed(p, e, d) \
    atomic_compare_exchange_strong_explicit((p), (e), (d), memory_order_relaxed, memory_order_relaxed)
#define gr_cas_strong_acquire(p, e, d) \
    atomic_compare_exchange_strong_explicit((p), (e), (d), memory_order_acquire, memory_order_relaxed)
#define gr_cas_strong_acq_rel_acquire(p, e, d) \
    atomic_compare_exchange_strong_explicit((p), (e), (d), memory_order_acq_rel, memory_order_acquire)
#define gr_cas_strong_seq_cst(p, e, d) \
    atomic_compare_exchange_strong_explicit((p), (e), (d), memory_order_seq_cst, memory_order_relaxed)

#define gr_fence_acquire() atomic_thread_fence(memory_order_acquire)
#define gr_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
/* Orders the compiler only (no instruction): one side of an asymmetric
 * pairing, the other issuing a process-wide barrier (barrier.h). */
#define gr_compiler_barrier() atomic_signal_fence(memory_order_seq_cst)

/* Takes a reference on an object a registry lists, unless its count is
 * 0 already: its last holder is then on its way to unlink and free it,
 * and a reference taken would bring it back for a moment, to be freed
 * twice. True if it took one. */
static inline bool gr_ref_unless_zero(atomic_int *refs)
{
    int r = gr_load_relaxed(refs);
    while (r > 0 && !gr_cas_weak_relaxed(refs, &r, r + 1))
        ;
    return r > 0;
}

#endif /* GR_ATOMIC_H */
