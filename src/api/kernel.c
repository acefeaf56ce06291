/*
 * kernel.c - the kernel API: registration (grKernelCreate checks the
 * parameter layout and keeps the name unique), destruction, and the eager
 * launch, which checks the launch (memory/argcheck.c), diverts to the
 * capture module while its stream captures, and otherwise queues it on
 * the backend. On a re-capturing stream an unchanged launch is matched
 * with its node before those checks (gr__recapture_launch checks what
 * the node does not vouch for); anything else takes the full path.
 */
#include "../backend/device.h"
#include "../backend/enqueue.h"
#include "../capture/capture.h"
#include "../memory/memory.h"
#include "graphrt_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GR_API grError_t grKernelCreate(grKernel_t *kernel, grKernelFn fn, const char *name, int numParams,
                                const size_t *paramSizes)
{
    grKernel_t k;
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
    gr_name_result r = k ? gr__kernel_register(k) : GR_NAME_NOMEM;
    if (r != GR_NAME_OK) {
        if (k)
            gr__kernel_kill(k);
        if (r == GR_NAME_TAKEN)
            return gr__fail(
                grErrorInvalidValue,
                "grKernelCreate: a live kernel is already named '%s'; kernel names must be unique", name);
        return gr__fail(grErrorMemoryAllocation, "grKernelCreate: out of memory registering kernel '%s'",
                        name);
    }
    *kernel = k;
    return grSuccess;
}

GR_API grError_t grKernelDestroy(grKernel_t kernel)
{
    if (!gr__kernel_valid(kernel))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "grKernelDestroy: kernel %p is not a live kernel (NULL, destroyed, or not from "
                        "grKernelCreate)",
                        GR_PTR(kernel));
    /* A stand-in of a graph file has no handle to destroy: the graph that
     * loaded it owns it. */
    if (!gr__kernel_unregister(kernel))
        return gr__fail(
            grErrorInvalidDeviceFunction,
            "grKernelDestroy: kernel %p ('%s') is not registered: a stand-in that grGraphLoadFromFile "
            "made (it lives as long as the loaded graph), or destroyed by another thread just now",
            GR_PTR(kernel), kernel->name);
    gr__kernel_kill(kernel);
    return grSuccess;
}

/* grLaunchKernel under grDebugLaunchBlocking: queues, then waits. */
static GR_NOINLINE grError_t launch_blocking(gr_stream *s, grKernel_t kernel, const grDim3 *grid,
                                             const grDim3 *block, size_t sharedMem, void **args, bool coop)
{
    return gr__launched(
        s, gr__stream_enqueue_kernel("grLaunchKernel", s, kernel, grid, block, sharedMem, args, coop));
}

GR_API grError_t grFuncGetName(const char **name, grKernel_t func)
{
    if (!name)
        return gr__fail(grErrorInvalidValue, "grFuncGetName: 'name' (the output pointer) is NULL");
    if (!gr__kernel_valid(func))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "grFuncGetName: kernel %p is not a live kernel (NULL, destroyed, or not from "
                        "grKernelCreate)",
                        GR_PTR(func));
    *name = func->name;
    return grSuccess;
}

GR_API grError_t grFuncGetParamCount(grKernel_t func, size_t *paramCount)
{
    if (!paramCount)
        return gr__fail(grErrorInvalidValue,
                        "grFuncGetParamCount: 'paramCount' (the output pointer) is NULL");
    if (!gr__kernel_valid(func))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "grFuncGetParamCount: kernel %p is not a live kernel (NULL, destroyed, or not from "
                        "grKernelCreate)",
                        GR_PTR(func));
    *paramCount = (size_t)func->nparams;
    return grSuccess;
}

/* Whether attrs[0..nattrs) ask for a cooperative launch (the last
 * Cooperative entry decides, as a later entry overrides an earlier one). */
static bool attrs_coop(const grLaunchAttribute *attrs, unsigned nattrs)
{
    bool coop = false;
    for (unsigned i = 0; i < nattrs; i++)
        if (attrs[i].id == grLaunchAttributeCooperative)
            coop = attrs[i].val.cooperative != 0;
    return coop;
}

/* grLaunchKernel and grLaunchKernelExC (attrs checked), naming 'call'. */
static grError_t launch(const char *call, grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                        size_t sharedMem, grStream_t stream, const grLaunchAttribute *attrs, unsigned nattrs)
{
    gr_stream *s = NULL;
    grError_t err = gr__kernel_check(call, kernel, &gridDim, &blockDim, sharedMem, args);
    if (err)
        return err;
    if ((err = gr__stream_from_handle(call, stream, &s)))
        return err;
    bool coop = GR_UNLIKELY(nattrs != 0) && attrs_coop(attrs, nattrs);
    /* On a GPU the driver checks the grid against its occupancy. */
    if (coop && s->device == 0 && (err = gr__kernel_check_coop(call, kernel, &gridDim)))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        /* The capture reads only the type and the member it names. */
        grGraphNodeParams d;
        d.type = grGraphNodeTypeKernel;
        d.kernel = (grKernelNodeParams){kernel, gridDim, blockDim, (unsigned)sharedMem, args, NULL};
        return gr__capture_record_ex(call, s, &d, attrs, nattrs);
    }
    if ((err = gr__capture_check_implicit(call, s)))
        return err;
    if (GR_UNLIKELY(s->device != 0))
        return gr__launched(
            s, gr__devkind()->launch(call, s, kernel, &gridDim, &blockDim, sharedMem, args, attrs, nattrs));
    if (gr__launch_blocking())
        return launch_blocking(s, kernel, &gridDim, &blockDim, sharedMem, args, coop);
    return gr__stream_enqueue_kernel(call, s, kernel, &gridDim, &blockDim, sharedMem, args, coop);
}

GR_API grError_t grLaunchCooperativeKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                           size_t sharedMem, grStream_t stream)
{
    grLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = grLaunchAttributeCooperative;
    a.val.cooperative = 1;
    return launch("grLaunchCooperativeKernel", kernel, gridDim, blockDim, args, sharedMem, stream, &a, 1);
}

/* grLaunchKernel on a stream that is re-capturing: an unchanged launch is
 * compared with the node it stands for, whose geometry was checked when
 * it got it; any failure or difference takes the full path, which checks,
 * reports and records (the fast path changed nothing then). Out of line
 * and reached by a tail call: were the call to gr__recapture_launch in
 * grLaunchKernel, every eager launch would save the registers that keep
 * the launch across it (19.3 -> 21.6 ns an eager launch on a 2-core VM). */
static GR_NOINLINE grError_t launch_recapturing(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim,
                                                void **args, size_t sharedMem, grStream_t stream)
{
    if (gr__recapture_launch((gr_stream *)(void *)stream, kernel, &gridDim, &blockDim, sharedMem, args))
        return grSuccess;
    return launch("grLaunchKernel", kernel, gridDim, blockDim, args, sharedMem, stream, NULL, 0);
}

GR_API grError_t grLaunchKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                size_t sharedMem, grStream_t stream)
{
    if (GR_UNLIKELY(gr__stream_handle_live(stream) && gr__stream_recapturing((gr_stream *)(void *)stream)))
        return launch_recapturing(kernel, gridDim, blockDim, args, sharedMem, stream);
    return launch("grLaunchKernel", kernel, gridDim, blockDim, args, sharedMem, stream, NULL, 0);
}

/* The event a launch attribute asks to record (programmatic or launch
 * completion), or NULL. */
static grEvent_t attr_event(const grLaunchAttribute *a)
{
    if (a->id == grLaunchAttributeProgrammaticEvent)
        return a->val.programmaticEvent.event;
    if (a->id == grLaunchAttributeLaunchCompletionEvent)
        return a->val.launchCompletionEvent.event;
    return NULL;
}

GR_API grError_t grLaunchKernelExC(const grLaunchConfig_t *config, grKernel_t kernel, void **args)
{
    static const char call[] = "grLaunchKernelExC";
    grError_t err;
    char what[48];
    if (!config)
        return gr__fail(grErrorInvalidValue, "%s: config is NULL; pass the launch configuration", call);
    if (config->numAttrs && !config->attrs)
        return gr__fail(grErrorInvalidValue, "%s: config->attrs is NULL but numAttrs is %u", call,
                        config->numAttrs);
    bool events = false;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        snprintf(what, sizeof what, "config->attrs[%u]", i);
        if ((err = gr__launch_attr_check(call, what, config->attrs[i].id, &config->attrs[i].val,
                                         GR_ATTR_LAUNCH)))
            return err;
        events = events || attr_event(&config->attrs[i]) != NULL;
    }
    if (events) {
        /* The events trigger before the kernel ends on a GPU; a capture
         * would need programmatic edges to them, which graphrt does not
         * record. */
        gr_stream *s = NULL;
        if ((err = gr__stream_from_handle(call, config->stream, &s)))
            return err;
        if (gr__stream_capturing(s))
            return gr__fail(grErrorNotSupported,
                            "%s: a programmatic or launch-completion event cannot be captured by graphrt; "
                            "record the event after the launch instead (nothing was recorded)",
                            call);
    }
    err = launch(call, kernel, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                 config->stream, config->attrs, config->numAttrs);
    /* On the CPU the kernel's blocks all trigger, and all begin, by the
     * time it has completed: recording the events after it is the latest
     * valid moment. */
    for (unsigned i = 0; !err && events && i < config->numAttrs; i++)
        if (attr_event(&config->attrs[i]))
            err = grEventRecord(attr_event(&config->attrs[i]), config->stream);
    return err;
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
    return gr__devkind()->kernel_set_image("grKernelSetImage", kernel, image, entry);
}

GR_API grError_t grFuncSetAttribute(grKernel_t func, grFuncAttribute attr, int value)
{
    if (!gr__kernel_valid(func))
        return gr__fail(grErrorInvalidDeviceFunction, "grFuncSetAttribute: 'func' is not a live kernel");
    switch (attr) {
    case grFuncAttributeMaxDynamicSharedMemorySize:
        /* The CPU device's opt-in limit; a GPU's driver refuses more than
         * its own (sharedMemPerBlockOptin less the static shared memory). */
        if (value < 0 || value > (int)GR_MAX_SHARED_MEM_OPTIN)
            return gr__fail(grErrorInvalidValue,
                            "grFuncSetAttribute: kernel '%s': MaxDynamicSharedMemorySize %d is outside 0..%u "
                            "(the CPU device's sharedMemPerBlockOptin)",
                            func->name, value, GR_MAX_SHARED_MEM_OPTIN);
        gr_store_relaxed(&func->max_dyn_smem, value);
        return gr__devkind()->func_set_attribute("grFuncSetAttribute", func, attr, value);
    case grFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return gr__fail(
                grErrorInvalidValue,
                "grFuncSetAttribute: kernel '%s': PreferredSharedMemoryCarveout %d is outside -1..100",
                func->name, value);
        gr_store_relaxed(&func->carveout, value);
        return gr__devkind()->func_set_attribute("grFuncSetAttribute", func, attr, value);
    case grFuncAttributeCpuStackSize:
        if (value < 0 || value > (64 << 20))
            return gr__fail(grErrorInvalidValue,
                            "grFuncSetAttribute: kernel '%s': CpuStackSize %d is outside 0..64 MiB",
                            func->name, value);
        if (func->kinfo)
            __atomic_store_n(&func->kinfo->stack_bytes, (unsigned)value, __ATOMIC_RELAXED);
        return grSuccess;
    }
    return gr__fail(grErrorInvalidValue, "grFuncSetAttribute: kernel '%s': unknown attribute %d", func->name,
                    (int)attr);
}
