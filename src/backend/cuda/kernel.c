/*
 * kernel.c - kernels on a GPU: the module image attached to a kernel
 * object (grKernelSetImage), loaded per device on its first launch there
 * (cuModuleLoadData, cuModuleGetFunction), and the eager launch
 * (cuLaunchKernel, whose kernelParams are graphrt's args: an array of
 * pointers to the argument values).
 */
#include "cuda_int.h"

#include <stddef.h>
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

/* Gives f, just loaded on 'device', the attributes grFuncSetAttribute set
 * on k (those away from CUDA's defaults: the driver's own default for the
 * dynamic shared memory is 48 KiB less the static shared memory, which
 * setting 48 KiB would exceed). Called with g->lock held. */
static CUresult apply_func_attrs(grKernel_t k, CUfunction f)
{
    CUresult r = CUDA_SUCCESS;
    int smem = gr_load_relaxed(&k->max_dyn_smem), carve = gr_load_relaxed(&k->carveout);
    if (smem != (int)GR_MAX_SHARED_MEM)
        r = gr_cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
    if (r == CUDA_SUCCESS && carve != -1)
        r = gr_cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carve);
    return r;
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
        if (r == CUDA_SUCCESS) {
            what = "cuFuncSetAttribute (grFuncSetAttribute's values)";
            r = apply_func_attrs(k, f);
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

unsigned gr__cuda_launch_attrs(const grLaunchAttribute *attrs, unsigned n, CUlaunchAttribute *out)
{
    /* at[id]: the entry of out holding ID id, plus one (0: none yet). */
    unsigned char at[GR_CU_LAUNCH_ATTRS] = {0};
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned id = (unsigned)attrs[i].id;
        switch (attrs[i].id) {
        case grLaunchAttributeIgnore:
        case grLaunchAttributeSynchronizationPolicy: /* streams only: refused before */
        case grLaunchAttributeProgrammaticEvent:
        case grLaunchAttributeLaunchCompletionEvent:
            continue;
        case grLaunchAttributeAccessPolicyWindow:
        case grLaunchAttributeCooperative:
        case grLaunchAttributeClusterDimension:
        case grLaunchAttributeClusterSchedulingPolicyPreference:
        case grLaunchAttributeProgrammaticStreamSerialization:
        case grLaunchAttributePriority:
        case grLaunchAttributeMemSyncDomainMap:
        case grLaunchAttributeMemSyncDomain:
        case grLaunchAttributePreferredClusterDimension:
        case grLaunchAttributePreferredSharedMemoryCarveout:
        case grLaunchAttributeNvlinkUtilCentricScheduling:
        case grLaunchAttributeDeviceUpdatableKernelNode: /* its devNode is an output */
            break;
        }
        if (GR_NEVER(id >= GR_CU_LAUNCH_ATTRS))
            continue;
        if (!at[id]) {
            at[id] = (unsigned char)++m;
            memset(&out[m - 1], 0, sizeof out[m - 1]);
            out[m - 1].id = (int)id;
        }
        /* The members passed on have the driver's layout (cu_graph.h). */
        _Static_assert(sizeof out->value == sizeof attrs->val, "64-byte attribute values");
        _Static_assert(offsetof(CUlaunchAttributeValue, deviceUpdatableKernelNode.devNode) ==
                           offsetof(grLaunchAttributeValue, deviceUpdatableKernelNode.devNode),
                       "the devNode members at one offset");
        memcpy(&out[at[id] - 1].value, &attrs[i].val, sizeof out->value);
    }
    return m;
}

/* The launch of gr__cuda_launch with attributes: cuLaunchKernelEx. */
static GR_NOINLINE CUresult launch_ex(CUfunction f, gr_stream *s, const grDim3 *grid, const grDim3 *block,
                                      size_t shmem, void **args, const CUlaunchAttribute *attrs, unsigned n)
{
    CUlaunchConfig c = {grid->x,
                        grid->y,
                        grid->z,
                        block->x,
                        block->y,
                        block->z,
                        (unsigned)shmem,
                        gr__cuda_stream(s)->cu,
                        (CUlaunchAttribute *)(uintptr_t)attrs,
                        n};
    return gr_cu.cuLaunchKernelEx(&c, f, args, NULL);
}

grError_t gr__cuda_launch(const char *call, gr_stream *s, grKernel_t k, const grDim3 *grid,
                          const grDim3 *block, size_t shmem, void **args, const grLaunchAttribute *attrs,
                          unsigned nattrs)
{
    CUfunction f = NULL;
    CUresult r = gr__cuda_enter_stream(s);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, s->device, "making the primary context current", r);
    grError_t err = gr__cuda_kernel_function(call, k, s->device, &f);
    if (err)
        return err;
    CUlaunchAttribute cu[GR_CU_LAUNCH_ATTRS];
    unsigned n = GR_UNLIKELY(nattrs != 0) ? gr__cuda_launch_attrs(attrs, nattrs, cu) : 0;
    const char *what = "cuLaunchKernel";
    if (GR_LIKELY(n == 0)) {
        r = gr_cu.cuLaunchKernel(f, grid->x, grid->y, grid->z, block->x, block->y, block->z, (unsigned)shmem,
                                 gr__cuda_stream(s)->cu, args, NULL);
    } else if (gr_cu.cuLaunchKernelEx) {
        /* The driver checks each attribute (a cooperative grid against
         * its occupancy: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE). */
        what = "cuLaunchKernelEx";
        r = launch_ex(f, s, grid, block, shmem, args, cu, n);
    } else if (n == 1 && cu[0].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
        what = "cuLaunchCooperativeKernel";
        r = cu[0].value.cooperative
                ? gr_cu.cuLaunchCooperativeKernel(f, grid->x, grid->y, grid->z, block->x, block->y, block->z,
                                                  (unsigned)shmem, gr__cuda_stream(s)->cu, args)
                : gr_cu.cuLaunchKernel(f, grid->x, grid->y, grid->z, block->x, block->y, block->z,
                                       (unsigned)shmem, gr__cuda_stream(s)->cu, args, NULL);
    } else {
        unsigned i = 0;
        while (cu[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
            i++; /* n > 1 here, so some entry is another ID */
        return gr__fail(grErrorCallRequiresNewerDriver,
                        "%s: kernel '%s': the NVIDIA driver has no cuLaunchKernelEx (CUDA 11.8), which a "
                        "launch with attribute %d on device %d needs; use a newer driver",
                        call, k->name, cu[i].id, s->device);
    }
    if (r != CUDA_SUCCESS) {
        return gr__fail(gr__cu_error(r), "%s: kernel '%s': %s failed on device %d with %s", call, k->name,
                        what, s->device, gr__cu_error_name(r));
    }
    return grSuccess;
}

/* The CUfunction_attribute of a grFuncAttribute the driver takes. */
static int func_attr_cu(grFuncAttribute attr)
{
    return attr == grFuncAttributeMaxDynamicSharedMemorySize
               ? CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
               : CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
}

grError_t gr__cuda_func_set_attribute(const char *call, grKernel_t k, grFuncAttribute attr, int value)
{
    struct gr_dev_kernel *g = gr_load_acquire(&k->gpu);
    if (!g)
        return grSuccess; /* no image: nothing loaded, nothing to tell */
    grError_t err = grSuccess;
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < GR_MAX_GPUS && !err; i++) {
        CUfunction f = gr_load_relaxed(&g->fn[i]);
        if (!f)
            continue;
        CUresult r = gr__cuda_enter(i + 1);
        if (r == CUDA_SUCCESS)
            r = gr_cu.cuFuncSetAttribute(f, func_attr_cu(attr), value);
        if (r != CUDA_SUCCESS)
            err = gr__fail(
                gr__cu_error(r), "%s: kernel '%s': cuFuncSetAttribute(%s, %d) failed on device %d with %s",
                call, k->name,
                attr == grFuncAttributeMaxDynamicSharedMemorySize ? "MaxDynamicSharedMemorySize"
                                                                  : "PreferredSharedMemoryCarveout",
                value, i + 1, gr__cu_error_name(r));
    }
    pthread_mutex_unlock(&g->lock);
    return err;
}
