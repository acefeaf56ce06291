/*
 * pool_location.c - pools by memory location (CUDA 13): the device a
 * grMemLocation names, and grMemGetDefaultMemPool, grMemGetMemPool and
 * grMemSetMemPool, the location forms of grDeviceGetDefaultMemPool,
 * grDeviceGetMemPool and grDeviceSetMemPool (pool.c does the work).
 *
 * graphrt's locations are devices, {grMemLocationTypeDevice, d} with d
 * in graphrt's numbering (0 the CPU, 1..N the GPUs), and its pools hold
 * pinned memory. The answers keep CUDA's split: what CUDA's documentation
 * refuses is grErrorInvalidValue; what CUDA accepts but graphrt does not
 * have (managed pools, host pools) is grErrorNotSupported.
 */
#include "pool_int.h"

grError_t gr__pool_location_device(const char *call, const char *what, const grMemLocation *loc,
                                   grError_t no_device, int *device)
{
    if (!loc)
        return gr__fail(grErrorInvalidValue, "%s: %s is NULL; pass {grMemLocationTypeDevice, device}", call,
                        what);
    switch (loc->type) {
    case grMemLocationTypeDevice:
        if (!gr__device_exists(loc->id))
            return gr__fail(no_device,
                            "%s: %s names device %d, which does not exist; the devices are 0 (the CPU) and "
                            "1..%d",
                            call, what, loc->id, gr__gpu_count());
        *device = loc->id;
        return grSuccess;
    case grMemLocationTypeHost:
    case grMemLocationTypeHostNuma:
        return gr__fail(
            grErrorNotSupported,
            "%s: %s is a host location (type %d); graphrt has no host pools: the CPU is device 0, "
            "{grMemLocationTypeDevice, 0}",
            call, what, (int)loc->type);
    case grMemLocationTypeInvalid:
    case grMemLocationTypeHostNumaCurrent:
        break;
    }
    return gr__fail(grErrorInvalidValue,
                    "%s: %s has type %d, which does not name a device; use grMemLocationTypeDevice with the "
                    "device's number",
                    call, what, (int)loc->type);
}

/* The checks of the three functions: 'type' and 'loc' (CUDA's rules,
 * then graphrt's), giving the device. */
static grError_t location_device(const char *call, const grMemLocation *loc, grMemAllocationType type,
                                 int *device)
{
    if (!loc)
        return gr__fail(grErrorInvalidValue, "%s: location is NULL; pass {grMemLocationTypeDevice, device}",
                        call);
    if (type == grMemAllocationTypeManaged) {
        /* CUDA takes these locations for managed pools (None: no
         * preferred location) and refuses the others. */
        if (loc->type == grMemLocationTypeNone || loc->type == grMemLocationTypeDevice ||
            loc->type == grMemLocationTypeHost || loc->type == grMemLocationTypeHostNuma)
            return gr__fail(
                grErrorNotSupported,
                "%s: type is grMemAllocationTypeManaged; graphrt has no managed memory, its pools "
                "are grMemAllocationTypePinned",
                call);
        return gr__fail(grErrorInvalidValue,
                        "%s: location type %d is not one CUDA takes for managed pools (None, Device, Host, "
                        "HostNuma)",
                        call, (int)loc->type);
    }
    if (type != grMemAllocationTypePinned)
        return gr__fail(grErrorInvalidValue,
                        "%s: type %d is not an allocation type of pools; graphrt's pools are "
                        "grMemAllocationTypePinned",
                        call, (int)type);
    /* grErrorInvalidValue for a device that does not exist: what CUDA 13
     * answers (tests/probes/memory.cu, memgetdefaultmempool-device99). */
    return gr__pool_location_device(call, "location", loc, grErrorInvalidValue, device);
}

GR_API grError_t grMemGetDefaultMemPool(grMemPool_t *memPool, grMemLocation *location,
                                        grMemAllocationType type)
{
    static const char call[] = "grMemGetDefaultMemPool";
    int device = 0;
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = location_device(call, location, type, &device)))
        return err;
    return gr__pool_get_default(call, memPool, device);
}

GR_API grError_t grMemGetMemPool(grMemPool_t *memPool, grMemLocation *location, grMemAllocationType type)
{
    static const char call[] = "grMemGetMemPool";
    int device = 0;
    grError_t err;
    if (!memPool)
        return gr__fail(grErrorInvalidValue, "%s: memPool (the output pointer) is NULL", call);
    if ((err = location_device(call, location, type, &device)))
        return err;
    return gr__pool_get_current(call, memPool, device);
}

GR_API grError_t grMemSetMemPool(grMemLocation *location, grMemAllocationType type, grMemPool_t memPool)
{
    static const char call[] = "grMemSetMemPool";
    int device = 0;
    grError_t err;
    if ((err = location_device(call, location, type, &device)))
        return err;
    if ((err = gr__pool_check(call, memPool)))
        return err;
    /* CUDA: the location must be the pool's own (and every graphrt pool
     * is pinned, as 'type' is by now). */
    if (memPool->device != device)
        return gr__fail(grErrorInvalidValue,
                        "%s: pool %p is a pool of device %d, but location names device %d; a location's "
                        "current pool is one of its own",
                        call, GR_PTR(memPool), memPool->device, device);
    return gr__pool_set_current(call, device, memPool);
}
