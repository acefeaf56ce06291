/*
 * pool.h - stream-ordered memory pools, private to the memory area and
 * the hooks other areas call: the release threshold at synchronisation
 * points, grFree of pool memory, and grDeviceReset.
 *
 * A pool hands out blocks of size classes (four per power of two, at
 * least 256 bytes) from per-class free lists. Each block has a descriptor
 * outside the user's memory, found from its address through a sharded
 * global map, and is tracked by the allocation tracker (GR_MEM_POOL, with
 * its class size) from its creation until it is given back to the OS, so
 * that bounds checks see it while it is reused.
 *
 * Invariants:
 *   - a block is in exactly one state: LIVE (handed out), FREE (on its
 *     pool's free list for its class), CACHED (freed into a thread's cache
 *     of small blocks, pool.c) or GONE (being given back); the state, the
 *     free lists and the pool's counters are guarded by the pool's lock,
 *     except a block's state while a thread cache has it (its owner's);
 *   - a FREE block remembers the stream of its last free ('fs', retained)
 *     and how many of that stream's ops precede the free ('fseq'): it is
 *     handed to stream B only if B == fs, or a reuse policy says B's work
 *     follows those ops (or makes it follow them with a WAIT op);
 *   - a block is given back to the OS only when fs has reached fseq, so no
 *     queued work can still touch it;
 *   - a thread's ring of recent allocations (pool.c) only names blocks
 *     that are LIVE, or blocks freed since by a free that bumped the
 *     ring epoch, which empties every ring before its next use;
 *   - lock order: the thread caches' mutex, then a map shard's lock, then
 *     a pool's lock, then a stream's lock (gr__stream_known). The pool
 *     registry's mutex is taken alone.
 */
#ifndef GR_POOL_H
#define GR_POOL_H

#include "memory.h"

/* True if p is the base of a live pool block or a graph allocation: grFree
 * hands those to gr__pool_free_sync. */
bool gr__pool_owns(const void *p);
/* grFree on a pool block (or graph allocation): waits for the device to be
 * idle, then gives the memory back (as CUDA, which frees with an implicit
 * synchronisation). grErrorInvalidValue with a detail if p is neither. */
grError_t gr__pool_free_sync(const char *call, void *p);

/* Synchronisation hook (stream, event and device synchronize): gives
 * memory above each pool's release threshold back to the OS. One relaxed
 * load when no pool went over its threshold since the last call. */
void gr__pool_on_sync_slow(void);
extern atomic_bool gr__pool_trim_pending;
static inline void gr__pool_on_sync(void)
{
    if (GR_UNLIKELY(gr_load_relaxed(&gr__pool_trim_pending)))
        gr__pool_on_sync_slow();
}

/* grDeviceReset: frees every pool, block and descriptor (call after the
 * device is idle, before gr__mem_reset). */
void gr__pool_reset_all(void);

#endif /* GR_POOL_H */
