/*
 * pool_gpu.c - graphrt's memory pools on a GPU: a pool object whose
 * device is a GPU holds one of the driver's stream-ordered pools
 * (backend/cuda/pool.c), and the pool calls of memory/pool.c hand it to
 * the driver once graphrt has checked their arguments. A GPU's default
 * pool is the driver's default pool of the device, one object per GPU;
 * its current pool (grDeviceSetMemPool, what grMallocAsync on its streams
 * takes from) is the driver's, set with cuDeviceSetMemPool.
 *
 * Invariants: gpus[d].dflt, once set, is GPU d's default pool object for
 * the process; gpus[d].current is the pool last made current on GPU d
 * (NULL: the default), cleared when that pool is destroyed. Both are
 * guarded by 'lock' and never hold a destroyed pool.
 */
#include "../backend/device.h"
#include "pool_int.h"

#include <pthread.h>
#include <string.h>

static struct {
    pthread_mutex_t lock;
    struct {
        grMemPool_t dflt, current;
    } gpus[GR_MAX_GPUS + 1];
} gp = {.lock = PTHREAD_MUTEX_INITIALIZER};

grError_t gr__gpu_pool_create(const char *call, int device, const grMemPoolProps *props, grMemPool_t *out)
{
    void *cu = NULL;
    grError_t err = gr__devkind()->pool_create(call, device, props->maxSize, &cu);
    if (err)
        return err;
    grMemPool_t p = gr__pool_object_new(props, false, device, cu);
    if (!p) {
        gr__devkind()->pool_destroy(device, cu);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    *out = p;
    return grSuccess;
}

grError_t gr__gpu_pool_destroy(const char *call, grMemPool_t pool)
{
    int d = pool->device;
    grError_t err = grSuccess;
    pthread_mutex_lock(&gp.lock);
    /* As in CUDA, destroying the device's current pool makes its default
     * pool current again. */
    if (gp.gpus[d].current == pool) {
        void *dflt = NULL;
        err = gr__devkind()->pool_default(call, d, &dflt);
        if (!err)
            err = gr__devkind()->pool_set_current(call, d, dflt);
        if (!err)
            gp.gpus[d].current = NULL;
    }
    if (!err)
        gr__mark_dead(&pool->magic);
    pthread_mutex_unlock(&gp.lock);
    if (err)
        return err;
    /* The driver gives the memory back once what was allocated from the
     * pool is freed. */
    gr__devkind()->pool_destroy(d, pool->gpu);
    gr__pool_unref(pool);
    return grSuccess;
}

/* GPU d's default pool object, made on first use. Under gp.lock. */
static grError_t default_locked(const char *call, int d, grMemPool_t *out)
{
    if (!gp.gpus[d].dflt) {
        void *cu = NULL;
        grError_t err = gr__devkind()->pool_default(call, d, &cu);
        if (err)
            return err;
        grMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = grMemAllocationTypePinned;
        props.location.type = grMemLocationTypeDevice;
        props.location.id = d;
        gp.gpus[d].dflt = gr__pool_object_new(&props, true, d, cu);
        if (!gp.gpus[d].dflt)
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    *out = gp.gpus[d].dflt;
    return grSuccess;
}

grError_t gr__gpu_pool_default(const char *call, int device, grMemPool_t *out)
{
    pthread_mutex_lock(&gp.lock);
    grError_t err = default_locked(call, device, out);
    pthread_mutex_unlock(&gp.lock);
    return err;
}

grError_t gr__gpu_pool_set_current(const char *call, int device, grMemPool_t pool)
{
    pthread_mutex_lock(&gp.lock);
    grError_t err = gr__devkind()->pool_set_current(call, device, pool->gpu);
    if (!err)
        gp.gpus[device].current = pool->is_default ? NULL : pool;
    pthread_mutex_unlock(&gp.lock);
    return err;
}

grError_t gr__gpu_pool_current(const char *call, int device, grMemPool_t *out)
{
    grError_t err = grSuccess;
    pthread_mutex_lock(&gp.lock);
    if (gp.gpus[device].current)
        *out = gp.gpus[device].current;
    else
        err = default_locked(call, device, out);
    pthread_mutex_unlock(&gp.lock);
    return err;
}

grError_t gr__gpu_pool_attribute(const char *call, grMemPool_t pool, grMemPoolAttr attr, void *value,
                                 bool set)
{
    if (attr < grMemPoolReuseFollowEventDependencies || attr > grMemPoolAttrHwDecompressEnabled)
        return gr__fail(grErrorInvalidValue, "%s: attr %d is not a grMemPoolAttr", call, (int)attr);
    if (set && (attr == grMemPoolAttrReservedMemCurrent || attr == grMemPoolAttrUsedMemCurrent ||
                attr > grMemPoolAttrUsedMemHigh))
        return gr__fail(grErrorInvalidValue, "%s: attribute %d is read-only", call, (int)attr);
    if (set && (attr == grMemPoolAttrReservedMemHigh || attr == grMemPoolAttrUsedMemHigh) &&
        *(const uint64_t *)value != 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: a high-water mark can only be reset, by setting it to 0 (got %llu)", call,
                        (unsigned long long)*(const uint64_t *)value);
    /* grMemPoolAttr's values and value types are CUmemPool_attribute's. */
    return gr__devkind()->pool_attribute(call, pool->device, pool->gpu, (int)attr, value, set);
}
