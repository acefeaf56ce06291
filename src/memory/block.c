/*
 * block.c - tracked blocks: the allocation behind grMalloc and
 * grMallocHost (and the buffers a graph file's loader allocates), and its
 * release.
 *
 * Invariant: a block is 256-aligned, its length rounded up to 256 bytes,
 * and tracked with the size asked for from its allocation to its release.
 */
#include "memory.h"

#include <unistd.h>

/* The "device memory" of the CPU device: physical RAM. A request larger
 * than that can never be backed, so it fails at once instead of relying on
 * the OS (which may overcommit, and under sanitizers aborts). */
static size_t device_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return SIZE_MAX;
    size_t total;
    if (gr__mul_overflow((size_t)pages, (size_t)page, &total))
        return SIZE_MAX;
    return total;
}

grError_t gr__mem_alloc(const char *call, size_t size, gr_mem_kind kind, void **out)
{
    size_t limit = device_memory_bytes();
    if (size > limit)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: %zu bytes requested, more than the device's %zu bytes of "
                        "memory (the host's physical RAM); allocate less",
                        call, size, limit);
    /* Rounding up keeps every block's end aligned too, as CUDA's are. */
    size_t rounded;
    if (gr__add_overflow(size, GR_MEM_ALIGN - 1, &rounded))
        rounded = SIZE_MAX;
    rounded &= ~(size_t)(GR_MEM_ALIGN - 1);
    void *p = gr__aligned_alloc(GR_MEM_ALIGN, rounded);
    if (!p)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: the host could not provide %zu bytes; free memory or "
                        "allocate less",
                        call, size);
    if (!gr__mem_track(p, size, kind)) {
        gr__free(p);
        return gr__fail(grErrorMemoryAllocation, "%s: no memory left to record the allocation of %zu bytes",
                        call, size);
    }
    *out = p;
    return grSuccess;
}

bool gr__mem_free_block(void *base, gr_mem_kind kind)
{
    if (!gr__mem_untrack(base, kind))
        return false;
    gr__free(base);
    return true;
}
