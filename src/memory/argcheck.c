/*
 * argcheck.c - refusing the classic kernelParams mistake: an argument
 * array element that is the parameter's value (a device pointer d_x, a
 * count cast to a pointer) instead of its address (&d_x, &n).
 *
 * Copying the values of such an array would read device memory as if it
 * held the value, or fault on an address that is no memory at all. An
 * element is accepted when it points to readable host memory outside
 * every device and pool allocation graphrt tracks: on the calling
 * thread's stack (the usual case, two compares), or in a page probed
 * readable through the kernel (core/probe.c). Probed pages are kept in a
 * small per-thread table, valid while the tracker's generation is
 * unchanged (no allocation can have appeared in them meanwhile), so a
 * replay loop that passes the same heap-held values probes once.
 *
 * Addresses accepted off the stack are remembered exactly too (address,
 * size, generation) in a second per-thread table: what a lookup of the
 * tracker answered stays true while its generation is unchanged, so an
 * address seen again (a global or heap value passed by every launch of a
 * loop) is accepted in a few compares, without the tracker's lookups
 * (gr__kernel_arg_known, which the inline launch checks call).
 *
 * Limit: a page remembered as readable and unmapped since by the
 * application is not probed again; reading it is then the application's
 * use after free, as it would be in CUDA.
 */
#include "memory.h"

#define PAGE_SHIFT 12
#if GR_KNOBS_SMALL
#define SEEN_PAGES 1 /* a second page evicts the first */
#else
#define SEEN_PAGES 8
#endif

/* Entries are valid for generation gen[i], which is never 0 (the
 * tracker's generations start at 1), so the zeroed table matches none. */
static _Thread_local struct {
    uintptr_t page[SEEN_PAGES];
    uint64_t gen[SEEN_PAGES];
    unsigned next;
} seen;

__attribute__((tls_model("initial-exec"))) _Thread_local gr_args_known gr__args_known;

static void arg_note(const void *a, uint32_t n, uint64_t gen)
{
    gr_args_known *t = &gr__args_known;
    unsigned i = t->next++ % GR_ARGS_KNOWN;
    t->addr[i] = (uintptr_t)a;
    t->size[i] = n;
    t->gen[i] = gen;
}

static bool page_seen(uintptr_t page, uint64_t gen)
{
    for (unsigned i = 0; i < SEEN_PAGES; i++)
        if (seen.page[i] == page && seen.gen[i] == gen)
            return true;
    return false;
}

static void page_note(uintptr_t page, uint64_t gen)
{
    unsigned i = seen.next++ % SEEN_PAGES;
    seen.page[i] = page;
    seen.gen[i] = gen;
}

/* Device and pool memory cannot hold a host variable (in CUDA it is not
 * host-readable); grMallocHost memory can. Finds the allocation too. */
static bool in_device_memory(const void *p, void **base, size_t *size)
{
    return gr__mem_is_device(p) && gr__mem_lookup(p, base, size, NULL);
}

static grError_t check_one(const char *call, const char *name, int i, const void *a, uint32_t n)
{
    uintptr_t first = (uintptr_t)a, last = first + n - 1;
    void *base = NULL;
    size_t size = 0;
    if (GR_UNLIKELY(!a))
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s': args[%d] is NULL; each element must be the ADDRESS of the "
                        "argument's value (e.g. void *args[] = {&n, &ptr}), not the value itself",
                        call, name, i);
    if (in_device_memory(a, &base, &size) || in_device_memory((const void *)last, &base, &size))
        return gr__fail(
            grErrorInvalidValue,
            "%s: kernel '%s': args[%d] = %p points into device memory (the allocation at %p of %zu "
            "bytes), where no host variable lives: this is the value of the argument, not its "
            "address; pass the address of the value (&d_x, not d_x)",
            call, name, i, a, base, size);
    /* The first page is never mapped; below it lie the small integers. */
    bool low = last < first || first < ((uintptr_t)1 << PAGE_SHIFT);
    uint64_t gen = gr__mem_generation();
    if (!low && page_seen(first >> PAGE_SHIFT, gen) && page_seen(last >> PAGE_SHIFT, gen)) {
        arg_note(a, n, gen);
        return grSuccess;
    }
    if (low || !gr__probe_readable(a, n))
        return gr__fail(
            grErrorInvalidValue,
            "%s: kernel '%s': args[%d] = %p does not point to %u readable bytes; each element must "
            "be the ADDRESS of the argument's value: pass the address of the value (&n, not "
            "(void *)n)",
            call, name, i, a, n);
    page_note(first >> PAGE_SHIFT, gen);
    if ((last >> PAGE_SHIFT) != (first >> PAGE_SHIFT))
        page_note(last >> PAGE_SHIFT, gen);
    arg_note(a, n, gen);
    return grSuccess;
}

grError_t gr__kernel_args_check(const char *call, const char *name, int nparams, const uint32_t *sizes,
                                void **args)
{
    if (!gr__tls_stack_top)
        gr__stack_top_slow();
    for (int i = 0; i < nparams; i++) {
        if (gr__on_own_stack(args[i], sizes[i]))
            continue;
        grError_t err = check_one(call, name, i, args[i], sizes[i]);
        if (err)
            return err;
    }
    return grSuccess;
}

GR_NOINLINE grError_t gr__kernel_check_slow(const char *call, grKernel_t k, const grDim3 *pgrid,
                                            const grDim3 *pblock, size_t shmem, void **args)
{
    grDim3 grid = *pgrid, block = *pblock;
    if (!gr__kernel_valid(k))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "%s: kernel %p is not a live kernel (NULL, destroyed, or not from grKernelCreate)",
                        call, GR_PTR(k));
    if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
        (uint64_t)block.x * block.y * block.z > 1024)
        return gr__fail(
            grErrorInvalidConfiguration,
            "%s: kernel '%s': block (%u, %u, %u) is invalid: each dimension must be >= 1, x and y <= "
            "1024, z <= 64, and x*y*z <= 1024 threads",
            call, k->name, block.x, block.y, block.z);
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
        return gr__fail(
            grErrorInvalidConfiguration,
            "%s: kernel '%s': grid (%u, %u, %u) is invalid: each dimension must be >= 1, x < 2^31, "
            "y and z <= 65535",
            call, k->name, grid.x, grid.y, grid.z);
    /* CUDA's rule: at most the function's MaxDynamicSharedMemorySize,
     * 48 KiB unless grFuncSetAttribute set it (up to the device's
     * sharedMemPerBlockOptin). */
    int max_smem = gr_load_relaxed(&k->max_dyn_smem);
    if (shmem > (size_t)max_smem)
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s': %zu bytes of dynamic shared memory requested, the kernel's "
                        "MaxDynamicSharedMemorySize is %d%s",
                        call, k->name, shmem, max_smem,
                        shmem <= GR_MAX_SHARED_MEM_OPTIN
                            ? " (raise it with grFuncSetAttribute, up to the device's sharedMemPerBlockOptin)"
                            : "");
    if (k->nparams > 0 && !args)
        return gr__fail(
            grErrorInvalidValue,
            "%s: kernel '%s' takes %d parameters but the argument array is NULL; pass an array of "
            "pointers to the argument values",
            call, k->name, k->nparams);
    return gr__kernel_args_check(call, k->name, k->nparams, k->sizes, args);
}
