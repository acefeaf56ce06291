/*
 * device_limits.c - the device's settings CUDA code sets once at start:
 * limits (grDeviceSetLimit / grDeviceGetLimit), flags (grSetDeviceFlags /
 * grGetDeviceFlags) and explicit initialisation (grInitDevice).
 *
 * On the CPU device none of the limits bounds anything (a block runs on a
 * worker's own stack, printf is the C library's, kernels have no device
 * heap) and the schedule flags do not change how a synchronising thread
 * waits (it runs the work it waits for, then waits as the workers do):
 * both are kept so that CUDA code runs unchanged and reads back what it
 * set. With a GPU current both are the device's (the device table's
 * 'limit' and 'device_flags': the driver's cuCtxSetLimit / cuCtxGetLimit
 * in the primary context, cuDevicePrimaryCtxSetFlags / GetState), which
 * answers with its own rounding and refusals.
 *
 * Invariants: 'cpu' is the CPU device's settings, guarded by its lock;
 * every value is checked before the lock is taken, so a refused call
 * changes nothing. The limits go back to their defaults at grDeviceReset
 * of the CPU (a context's state), the flags stay (as a primary context's
 * flags survive cuDevicePrimaryCtxReset).
 */
#include "api.h"
#include "../backend/device.h"

#include <pthread.h>

#define NLIMITS (grLimitPersistingL2CacheSize + 1)

/* The CPU's defaults (index: grLimit): the malloc heap's 8 MiB and the
 * 2048 pending launches are CUDA's documented defaults, the stack's 1024
 * bytes and the printf FIFO's 1 MiB what current GPUs report; the two L2
 * limits are hints, 0 for none. grLimitDevRuntimeSyncDepth is unsupported
 * on compute capability 9.0 and later. */
static const size_t limit_default[NLIMITS] = {1024, 1048576, 8388608, 0, 2048, 0, 0};

static struct {
    pthread_mutex_t lock;
    size_t limit[NLIMITS]; /* guarded by lock */
    bool limit_set[NLIMITS];
    unsigned flags; /* guarded by lock */
} cpu = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, 0};

static grError_t check_limit(const char *call, grLimit limit)
{
    if ((unsigned)limit >= NLIMITS)
        return gr__fail(grErrorInvalidValue, "%s: limit %d is not a grLimit", call, (int)limit);
    if (limit == grLimitDevRuntimeSyncDepth)
        return gr__fail(grErrorUnsupportedLimit,
                        "%s: grLimitDevRuntimeSyncDepth is not supported on devices of compute capability "
                        "9.0 or later, as CUDA documents, and graphrt's CPU device follows them",
                        call);
    return grSuccess;
}

GR_API grError_t grDeviceSetLimit(grLimit limit, size_t value)
{
    static const char call[] = "grDeviceSetLimit";
    grError_t err = check_limit(call, limit);
    if (err)
        return err;
    /* "Values can range from 0B to 128B. This is purely a performance hint
     * and it can be ignored or clamped": clamped, as the driver may. */
    if (limit == grLimitMaxL2FetchGranularity && value > 128)
        value = 128;
    int device = gr__device_current();
    if (device != 0)
        return gr__devkind()->limit(call, device, (int)limit, &value, true);
    pthread_mutex_lock(&cpu.lock);
    cpu.limit[limit] = value;
    cpu.limit_set[limit] = true;
    pthread_mutex_unlock(&cpu.lock);
    return grSuccess;
}

GR_API grError_t grDeviceGetLimit(size_t *pValue, grLimit limit)
{
    static const char call[] = "grDeviceGetLimit";
    if (!pValue)
        return gr__fail(grErrorInvalidValue, "%s: 'pValue' (the output pointer) is NULL", call);
    grError_t err = check_limit(call, limit);
    if (err)
        return err;
    int device = gr__device_current();
    if (device != 0)
        return gr__devkind()->limit(call, device, (int)limit, pValue, false);
    pthread_mutex_lock(&cpu.lock);
    *pValue = cpu.limit_set[limit] ? cpu.limit[limit] : limit_default[limit];
    pthread_mutex_unlock(&cpu.lock);
    return grSuccess;
}

void gr__api_limits_reset(void)
{
    pthread_mutex_lock(&cpu.lock);
    for (unsigned i = 0; i < NLIMITS; i++)
        cpu.limit_set[i] = false;
    pthread_mutex_unlock(&cpu.lock);
}

#define FLAG_BITS (grDeviceScheduleMask | grDeviceMapHost | grDeviceLmemResizeToMax | grDeviceSyncMemops)

static grError_t check_flags(const char *call, unsigned flags)
{
    unsigned sched = flags & grDeviceScheduleMask;
    if (flags & ~FLAG_BITS)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x has bits other than the schedule flags, grDeviceMapHost, "
                        "grDeviceLmemResizeToMax and grDeviceSyncMemops (0x%x)",
                        call, flags, FLAG_BITS);
    if (sched != grDeviceScheduleAuto && sched != grDeviceScheduleSpin && sched != grDeviceScheduleYield &&
        sched != grDeviceScheduleBlockingSync)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x sets more than one schedule flag (Spin 0x1, Yield 0x2, BlockingSync "
                        "0x4); pick one",
                        call, flags);
    return grSuccess;
}

GR_API grError_t grSetDeviceFlags(unsigned int flags)
{
    static const char call[] = "grSetDeviceFlags";
    grError_t err = check_flags(call, flags);
    if (err)
        return err;
    int device = gr__device_current();
    if (device != 0)
        return gr__devkind()->device_flags(call, device, &flags, true);
    pthread_mutex_lock(&cpu.lock);
    cpu.flags = flags;
    pthread_mutex_unlock(&cpu.lock);
    return grSuccess;
}

GR_API grError_t grGetDeviceFlags(unsigned int *flags)
{
    static const char call[] = "grGetDeviceFlags";
    if (!flags)
        return gr__fail(grErrorInvalidValue, "%s: 'flags' (the output pointer) is NULL", call);
    int device = gr__device_current();
    if (device != 0) {
        /* As CUDA's runtime, which maps host memory in every context. */
        grError_t err = gr__devkind()->device_flags(call, device, flags, false);
        if (err == grSuccess)
            *flags |= grDeviceMapHost;
        return err;
    }
    pthread_mutex_lock(&cpu.lock);
    /* Host memory is the CPU device's memory: always mapped. */
    *flags = cpu.flags | grDeviceMapHost;
    pthread_mutex_unlock(&cpu.lock);
    return grSuccess;
}

GR_API grError_t grInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    static const char call[] = "grInitDevice";
    grError_t err;
    if (!gr__device_exists(device))
        return gr__fail(grErrorInvalidDevice, "%s: device %d does not exist (devices are 0..%d)", call,
                        device, gr__gpu_count());
    if (flags & ~grInitDeviceFlagsAreValid)
        return gr__fail(grErrorInvalidValue,
                        "%s: flags 0x%x has bits other than grInitDeviceFlagsAreValid (0x1)", call, flags);
    bool apply = (flags & grInitDeviceFlagsAreValid) != 0;
    if (apply && (err = check_flags(call, deviceFlags)) != grSuccess)
        return err;
    /* A GPU's flags are set before its primary context starts, so that
     * they shape it. */
    if (apply && device != 0 &&
        (err = gr__devkind()->device_flags(call, device, &deviceFlags, true)) != grSuccess)
        return err;
    if ((err = gr__device_start_dev(call, device)) != grSuccess || device != 0)
        return err;
    if (apply) {
        pthread_mutex_lock(&cpu.lock);
        cpu.flags = deviceFlags;
        pthread_mutex_unlock(&cpu.lock);
    }
    return grSuccess;
}
