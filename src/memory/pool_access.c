/*
 * pool_access.c - which devices may reach a pool's memory:
 * grMemPoolSetAccess and grMemPoolGetAccess.
 *
 * A pool lives on one device, which always has read-write access (CUDA
 * does not let it be revoked). The flags of the other devices are kept in
 * the pool object (pool->access, under the pool's lock), except those of
 * other GPUs for a GPU's pool, which are the driver's
 * (cuMemPoolSetAccess / cuMemPoolGetAccess map the pool's memory for
 * them). On the CPU the stored flags change nothing: graphrt's pools of
 * the CPU are host memory, which every CPU stream reaches anyway, and a
 * GPU does not reach host memory through a pool.
 *
 * Invariant: a call applies all its descriptors or none. Everything is
 * checked first; a GPU pool's driver call comes before the stored flags
 * change, so that its refusal leaves them as they were.
 */
#include "pool_int.h"

#include <stdio.h>

static bool flags_valid(grMemAccessFlags f)
{
    return f == grMemAccessFlagsProtNone || f == grMemAccessFlagsProtRead ||
           f == grMemAccessFlagsProtReadWrite;
}

/* Checks descList[i] for pool, giving its device. */
static grError_t check_desc(const char *call, grMemPool_t pool, const grMemAccessDesc *desc, size_t i,
                            int *device)
{
    char what[48];
    snprintf(what, sizeof what, "descList[%zu].location", i);
    grError_t err = gr__pool_location_device(call, what, &desc->location, grErrorInvalidDevice, device);
    if (err)
        return err;
    if (!flags_valid(desc->flags))
        return gr__fail(grErrorInvalidValue,
                        "%s: descList[%zu].flags is %d, not grMemAccessFlagsProtNone (0), ProtRead (1) or "
                        "ProtReadWrite (3)",
                        call, i, (int)desc->flags);
    /* CUDA 13's codes (tests/probes/memory.cu, setaccess-own-*): no access
     * for the pool's own device is grErrorInvalidDevice, read-only access
     * grErrorNotSupported. */
    if (*device == pool->device && desc->flags != grMemAccessFlagsProtReadWrite)
        return gr__fail(desc->flags == grMemAccessFlagsProtNone ? grErrorInvalidDevice : grErrorNotSupported,
                        "%s: descList[%zu] gives device %d, the pool's own, %s access; a pool's device "
                        "always has read-write access, which cannot be revoked",
                        call, i, *device, desc->flags == grMemAccessFlagsProtNone ? "no" : "read-only");
    return grSuccess;
}

GR_API grError_t grMemPoolSetAccess(grMemPool_t memPool, const grMemAccessDesc *descList, size_t count)
{
    static const char call[] = "grMemPoolSetAccess";
    int gpus[GR_MAX_GPUS], gflags[GR_MAX_GPUS];
    size_t ngpus = 0;
    grError_t err;
    if ((err = gr__pool_check(call, memPool)))
        return err;
    if (!descList && count > 0)
        return gr__fail(grErrorInvalidValue, "%s: descList is NULL but count is %zu", call, count);
    for (size_t i = 0; i < count; i++) {
        int d = 0;
        if ((err = check_desc(call, memPool, &descList[i], i, &d)))
            return err;
    }
    /* A GPU pool: the other GPUs' descriptors go to the driver, in one
     * call, the last for each GPU (descriptors apply in order). */
    for (size_t i = 0; memPool->device != 0 && i < count; i++) {
        int d = descList[i].location.id;
        if (d == 0 || d == memPool->device)
            continue;
        size_t k = 0;
        while (k < ngpus && gpus[k] != d)
            k++;
        gpus[k] = d;
        gflags[k] = (int)descList[i].flags;
        ngpus += k == ngpus;
    }
    if (ngpus &&
        (err = gr__devkind()->pool_set_access(call, memPool->device, memPool->gpu, gpus, gflags, ngpus)))
        return err;
    gr__spin_lock(&memPool->lock);
    for (size_t i = 0; i < count; i++) {
        int d = descList[i].location.id;
        if (d != memPool->device && (memPool->device == 0 || d == 0))
            memPool->access[d] = (uint8_t)descList[i].flags;
    }
    gr__spin_unlock(&memPool->lock);
    return grSuccess;
}

GR_API grError_t grMemPoolGetAccess(grMemAccessFlags *flags, grMemPool_t memPool, grMemLocation *location)
{
    static const char call[] = "grMemPoolGetAccess";
    int d = 0;
    grError_t err;
    if (!flags)
        return gr__fail(grErrorInvalidValue, "%s: flags (the output pointer) is NULL", call);
    if ((err = gr__pool_check(call, memPool)))
        return err;
    /* A host location: CUDA 13 answers a GPU's pool with no access
     * (tests/probes/memory.cu, getaccess-host); the CPU's pools are host
     * memory. */
    if (location &&
        (location->type == grMemLocationTypeHost || location->type == grMemLocationTypeHostNuma)) {
        *flags = memPool->device == 0 ? grMemAccessFlagsProtReadWrite : grMemAccessFlagsProtNone;
        return grSuccess;
    }
    if ((err = gr__pool_location_device(call, "location", location, grErrorInvalidValue, &d)))
        return err;
    if (d == memPool->device) {
        *flags = grMemAccessFlagsProtReadWrite;
        return grSuccess;
    }
    if (memPool->device != 0 && d != 0) {
        int f = 0;
        if ((err = gr__devkind()->pool_get_access(call, memPool->device, memPool->gpu, d, &f)))
            return err;
        *flags = (grMemAccessFlags)f;
        return grSuccess;
    }
    gr__spin_lock(&memPool->lock);
    *flags = (grMemAccessFlags)memPool->access[d];
    gr__spin_unlock(&memPool->lock);
    return grSuccess;
}
