/*
 * kernel.c - the kernel API: registration (grKernelCreate checks the
 * parameter layout and keeps the name unique), destruction, and the eager
 * launch, which checks the launch (memory/argcheck.c), diverts to the
 * capture module while its stream captures, and otherwise queues it on
 * the backend.
 */
#include "../backend/cuda/cuda.h"
#include "../backend/enqueue.h"
#include "../capture/capture.h"
#include "../memory/memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Live kernels by name, for uniqueness (and for loading graph files). */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct name_entry {
    grKernel_t k;
    struct name_entry *next;
} name_entry;
static name_entry *names; /* guarded by names_lock */

/* The live kernel named 'name', or NULL. */
grKernel_t gr__kernel_find(const char *name);
grKernel_t gr__kernel_find(const char *name)
{
    grKernel_t k = NULL;
    pthread_mutex_lock(&names_lock);
    for (name_entry *e = names; e; e = e->next)
        if (strcmp(e->k->name, name) == 0) {
            k = e->k;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    return k;
}

GR_API grError_t grKernelCreate(grKernel_t *kernel, grKernelFn fn, const char *name, int numParams,
                                const size_t *paramSizes)
{
    grKernel_t k;
    name_entry *ne;
    if (!kernel)
        return gr__fail(grErrorInvalidValue, "grKernelCreate: 'kernel' (the output pointer) is NULL");
    if (!fn)
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: 'fn' is NULL; pass the C function run per block");
    if (!name || !*name)
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: 'name' is NULL or empty; every kernel needs a name");
    if (numParams < 0 || numParams > 64)
        return gr__fail(grErrorInvalidValue, "grKernelCreate: kernel '%s': numParams %d is outside 0..64",
                        name, numParams);
    if (numParams > 0 && !paramSizes)
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: kernel '%s' takes %d parameters but 'paramSizes' is NULL", name,
                        numParams);
    for (int i = 0; i < numParams; i++)
        if (paramSizes[i] == 0 || paramSizes[i] > 4096)
            return gr__fail(grErrorInvalidValue,
                            "grKernelCreate: kernel '%s': paramSizes[%d] = %zu is outside 1..4096 bytes",
                            name, i, paramSizes[i]);
    k = gr__kernel_new(fn, name, numParams, paramSizes);
    ne = gr__malloc(sizeof *ne);
    if (!k || !ne) {
        if (k)
            gr__kernel_kill(k);
        gr__free(ne);
        return gr__fail(grErrorMemoryAllocation, "grKernelCreate: out of memory registering kernel '%s'",
                        name);
    }
    /* The uniqueness test and the registration under one lock hold: two
     * threads registering one name at once get one kernel and one refusal. */
    pthread_mutex_lock(&names_lock);
    bool taken = false;
    for (name_entry *e = names; e && !taken; e = e->next)
        taken = strcmp(e->k->name, name) == 0;
    if (!taken) {
        ne->k = k;
        ne->next = names;
        names = ne;
    }
    pthread_mutex_unlock(&names_lock);
    if (taken) {
        gr__kernel_kill(k);
        gr__free(ne);
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: a live kernel is already named '%s'; kernel names must be unique",
                        name);
    }
    *kernel = k;
    return grSuccess;
}

GR_API grError_t grKernelDestroy(grKernel_t kernel)
{
    name_entry **pp, *e = NULL;
    if (!gr__kernel_valid(kernel))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "grKernelDestroy: kernel %p is not a live kernel (NULL, destroyed, or not from "
                        "grKernelCreate)",
                        GR_PTR(kernel));
    pthread_mutex_lock(&names_lock);
    for (pp = &names; *pp; pp = &(*pp)->next)
        if ((*pp)->k == kernel) {
            e = *pp;
            *pp = e->next;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    gr__free(e);
    gr__kernel_kill(kernel);
    return grSuccess;
}

/* grLaunchKernel under grDebugLaunchBlocking: queues, then waits. */
static GR_NOINLINE grError_t launch_blocking(gr_stream *s, grKernel_t kernel, const grDim3 *grid,
                                             const grDim3 *block, size_t sharedMem, void **args)
{
    return gr__launched(s,
                        gr__stream_enqueue_kernel("grLaunchKernel", s, kernel, grid, block, sharedMem, args));
}

GR_API grError_t grLaunchKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                size_t sharedMem, grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t err = gr__kernel_check("grLaunchKernel", kernel, &gridDim, &blockDim, sharedMem, args);
    if (err)
        return err;
    if ((err = gr__stream_from_handle("grLaunchKernel", stream, &s)))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        /* The capture reads only the type and the member it names. */
        grGraphNodeParams d;
        d.type = grGraphNodeTypeKernel;
        d.kernel = (grKernelNodeParams){kernel, gridDim, blockDim, (unsigned)sharedMem, args, NULL};
        return gr__capture_record("grLaunchKernel", s, &d);
    }
    if ((err = gr__capture_check_implicit("grLaunchKernel", s)))
        return err;
    if (GR_UNLIKELY(s->device != 0))
        return gr__launched(
            s, gr__cuda_launch("grLaunchKernel", s, kernel, &gridDim, &blockDim, sharedMem, args));
    if (gr__launch_blocking())
        return launch_blocking(s, kernel, &gridDim, &blockDim, sharedMem, args);
    return gr__stream_enqueue_kernel("grLaunchKernel", s, kernel, &gridDim, &blockDim, sharedMem, args);
}

GR_API grError_t grKernelSetImage(grKernel_t kernel, const void *image, const char *entry)
{
    if (!gr__kernel_valid(kernel))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "grKernelSetImage: kernel %p is not a live kernel (NULL, destroyed, or not from "
                        "grKernelCreate)",
                        GR_PTR(kernel));
    if (!image)
        return gr__fail(grErrorInvalidValue,
                        "grKernelSetImage: kernel '%s': 'image' is NULL; pass a PTX, cubin or fatbin image",
                        kernel->name);
    if (!entry || !*entry)
        return gr__fail(grErrorInvalidValue,
                        "grKernelSetImage: kernel '%s': 'entry' is NULL or empty; pass the name of the "
                        "image's extern \"C\" __global__ function",
                        kernel->name);
    return gr__cuda_kernel_set_image("grKernelSetImage", kernel, image, entry);
}
