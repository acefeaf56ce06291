/*
 * kernel.c - kernel objects, as every backend holds them: created with
 * their parameter layout, refcounted by the graph nodes, plans and
 * streams that name them, freed into their shelf by the last release.
 *
 * Invariant: an argument buffer puts each parameter at an offset aligned
 * to its size (up to 16), and is a multiple of 16 bytes.
 */
#include "device.h"

#include <string.h>

/* Kernel objects, kept as dead shells once freed (core.h). */
static gr_shelf kernel_shelf = GR_SHELF_INIT(sizeof(struct grKernel_st));

void gr__kernel_retain(grKernel_t k)
{
    gr_fetch_add_relaxed(&k->refs, 1);
}

void gr__kernel_retain_n(grKernel_t k, int n)
{
    gr_fetch_add_relaxed(&k->refs, n);
}

void gr__kernel_release(grKernel_t k)
{
    gr__kernel_release_n(k, 1);
}

void gr__kernel_release_n(grKernel_t k, int n)
{
    if (gr_fetch_sub_acq_rel(&k->refs, n) == n) {
        struct gr_dev_kernel *g = gr_load_acquire(&k->gpu);
        if (g)
            gr__devkind()->kernel_free(g);
        gr__mark_dead(&k->magic);
        gr__free(k->name);
        gr__free(k->offsets);
        gr__free(k->sizes);
        gr__shell_retire(&kernel_shelf, k);
    }
}

grError_t gr__kernel_attach(const char *call, grKernel_t k, struct gr_dev_kernel *g)
{
    struct gr_dev_kernel *none = NULL;
    if (!gr_cas_strong_acq_rel_acquire(&k->gpu, &none, g))
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s' has a GPU image already; an image is attached once, after "
                        "grKernelCreate",
                        call, k->name);
    return grSuccess;
}

grKernel_t gr__kernel_new(grKernelFn fn, const char *name, int nparams, const size_t *sizes)
{
    grKernel_t k = gr__shell_alloc(&kernel_shelf);
    if (!k)
        return NULL;
    memset(k, 0, sizeof *k);
    k->name = strdup(name);
    k->offsets = gr__calloc((size_t)nparams, sizeof *k->offsets);
    k->sizes = gr__calloc((size_t)nparams, sizeof *k->sizes);
    if (!k->name || !k->offsets || !k->sizes) {
        gr__free(k->name);
        gr__free(k->offsets);
        gr__free(k->sizes);
        k->magic = GR_MAGIC_DEAD;
        gr__shell_retire(&kernel_shelf, k);
        return NULL;
    }
    uint32_t off = 0;
    for (int i = 0; i < nparams; i++) {
        uint32_t sz = (uint32_t)sizes[i], al = 1;
        while (al < sz && al < 16)
            al <<= 1;
        off = (off + al - 1) & ~(al - 1);
        k->offsets[i] = off;
        k->sizes[i] = sz;
        off += sz;
    }
    k->magic = GR_MAGIC_KERNEL;
    atomic_init(&k->refs, 1);
    atomic_init(&k->max_dyn_smem, (int)GR_MAX_SHARED_MEM);
    atomic_init(&k->carveout, -1);
    k->fn = fn;
    k->nparams = nparams;
    k->argbytes = (off + 15u) & ~15u;
    return k;
}

void gr__kernel_kill(grKernel_t k)
{
    k->magic = GR_MAGIC_DEAD;
    gr__kernel_release(k);
}

unsigned gr__coop_max_blocks(void)
{
    return gr__worker_count();
}

grError_t gr__kernel_check_coop(const char *call, grKernel_t kernel, const grDim3 *grid)
{
    uint64_t n = (uint64_t)grid->x * grid->y * grid->z;
    unsigned max = gr__coop_max_blocks();
    if (n > max)
        return gr__fail(
            grErrorCooperativeLaunchTooLarge,
            "%s: kernel '%s': a cooperative grid of %llu blocks (%u x %u x %u) is larger than the "
            "%u blocks the CPU device keeps co-resident (1 block per multiprocessor x %u "
            "multiprocessors, its workers: grOccupancyMaxActiveBlocksPerMultiprocessor x "
            "grDevAttrMultiProcessorCount)",
            call, kernel->name, (unsigned long long)n, grid->x, grid->y, grid->z, max, max);
    return grSuccess;
}
