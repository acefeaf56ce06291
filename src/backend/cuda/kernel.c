/*
 * kernel.c - kernels on a GPU: the module image attached to a kernel
 * object (grKernelSetImage), loaded per device on its first launch there
 * (cuModuleLoadData, cuModuleGetFunction), and the eager launch
 * (cuLaunchKernel, whose kernelParams are graphrt's args: an array of
 * pointers to the argument values).
 */
#include "cuda_int.h"

#include <string.h>

grError_t gr__cuda_kernel_set_image(const char *call, grKernel_t k, const void *image, const char *entry)
{
    struct gr_dev_kernel *g = gr__calloc(1, sizeof *g);
    if (!g || !(g->entry = strdup(entry))) {
        gr__free(g);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory attaching an image to kernel '%s'", call,
                        k->name);
    }
    g->image = image;
    pthread_mutex_init(&g->lock, NULL);
    grError_t err = gr__kernel_attach(call, k, g);
    if (err) {
        pthread_mutex_destroy(&g->lock);
        gr__free(g->entry);
        gr__free(g);
    }
    return err;
}

void gr__cuda_kernel_free(struct gr_dev_kernel *g)
{
    for (int i = 0; i < GR_MAX_GPUS; i++)
        if (g->mod[i] && gr__cuda_enter(i + 1) == CUDA_SUCCESS)
            gr_cu.cuModuleUnload(g->mod[i]);
    pthread_mutex_destroy(&g->lock);
    gr__free(g->entry);
    gr__free(g);
}

grError_t gr__cuda_kernel_function(const char *call, grKernel_t k, int device, CUfunction *out)
{
    struct gr_dev_kernel *g = gr_load_acquire(&k->gpu);
    if (!g)
        return gr__fail(grErrorInvalidDeviceFunction,
                        "%s: kernel '%s' has no GPU image, so it cannot run on device %d (a GPU); attach one "
                        "with grKernelSetImage (a PTX, cubin or fatbin image and the entry's name), or "
                        "write the kernel with GR_KERNEL (graphrt_kernel.h) and build it with "
                        "graphrt_add_cuda_kernels",
                        call, k->name, device);
    CUfunction f = gr_load_acquire(&g->fn[device - 1]);
    if (GR_LIKELY(f)) {
        *out = f;
        return grSuccess;
    }
    CUresult r = CUDA_SUCCESS;
    const char *what = "cuModuleLoadData";
    pthread_mutex_lock(&g->lock);
    f = gr_load_relaxed(&g->fn[device - 1]);
    if (!f) {
        /* The module loads into the current context: the device's (the
         * exec setters call without making it current). */
        r = gr__cuda_enter(device);
        what = "making the primary context current";
        if (r == CUDA_SUCCESS && !g->mod[device - 1]) {
            what = "cuModuleLoadData";
            r = gr_cu.cuModuleLoadData(&g->mod[device - 1], g->image);
        }
        if (r == CUDA_SUCCESS) {
            what = "cuModuleGetFunction";
            r = gr_cu.cuModuleGetFunction(&f, g->mod[device - 1], g->entry);
        }
        if (r == CUDA_SUCCESS)
            gr_store_release(&g->fn[device - 1], f);
    }
    pthread_mutex_unlock(&g->lock);
    if (r != CUDA_SUCCESS) {
        const char *name = gr__cu_error_name(r);
        return gr__fail(gr__cu_error(r),
                        "%s: kernel '%s': %s of its image (entry '%s') failed on device %d with %s; the "
                        "image must hold code for this GPU (or PTX it can compile) and an extern \"C\" "
                        "entry of that name",
                        call, k->name, what, g->entry, device, name);
    }
    *out = f;
    return grSuccess;
}

grError_t gr__cuda_launch(const char *call, gr_stream *s, grKernel_t k, const grDim3 *grid,
                          const grDim3 *block, size_t shmem, void **args, bool coop)
{
    CUfunction f = NULL;
    CUresult r = gr__cuda_enter_stream(s);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, s->device, "making the primary context current", r);
    grError_t err = gr__cuda_kernel_function(call, k, s->device, &f);
    if (err)
        return err;
    /* A cooperative launch: the driver checks the grid against its
     * occupancy (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE). */
    if (coop)
        r = gr_cu.cuLaunchCooperativeKernel(f, grid->x, grid->y, grid->z, block->x, block->y, block->z,
                                            (unsigned)shmem, gr__cuda_stream(s)->cu, args);
    else
        r = gr_cu.cuLaunchKernel(f, grid->x, grid->y, grid->z, block->x, block->y, block->z, (unsigned)shmem,
                                 gr__cuda_stream(s)->cu, args, NULL);
    if (r != CUDA_SUCCESS) {
        return gr__fail(gr__cu_error(r), "%s: kernel '%s': %s failed on device %d with %s", call, k->name,
                        coop ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", s->device,
                        gr__cu_error_name(r));
    }
    return grSuccess;
}
