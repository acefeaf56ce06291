/*
 * managed.c - the managed-memory hints and queries: grMemAdvise, the
 * prefetches and discards (one range or a batch), and the range
 * attributes. On the CPU device managed memory is host memory that never
 * moves, so a hint changes no memory: it is checked by CUDA's rules and
 * what it sets is kept on the allocation's note (memory/hostreg.c), for
 * grMemRangeGetAttribute to answer. A GPU's managed memory (grMallocManaged
 * with a GPU current) is the driver's: its hints, prefetches and queries
 * go to the device (the device table's mem_advise, mem_prefetch,
 * range_attribute), a prefetch on a stream of a GPU.
 *
 * Invariants:
 *   - every argument, range and location of a call is checked before
 *     anything is recorded or queued: a refused call changes nothing;
 *   - a prefetch records its location in stream order (a call queued on
 *     the stream), so a query after the stream is synchronised answers it;
 *     a discard changes nothing (the bytes staying is one of the
 *     indeterminate contents CUDA allows) and queues nothing.
 */
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/memory.h"
#include "api.h"

#include <string.h>

/* A range inside one grMallocManaged allocation; *gpu (if non-NULL) the
 * GPU whose managed memory it is, 0 for the CPU device's. */
static grError_t check_range(const char *call, const void *p, size_t count, const char *what, int *gpu)
{
    void *base = NULL;
    size_t size = 0;
    if (!p)
        return gr__fail(grErrorInvalidValue, "%s: %s is NULL; pass managed memory", call, what);
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: the size of %s (%p) is 0; a range holds at least one byte",
                        call, what, p);
    if (!gr__hostreg_find(p, GR_HOSTREG_MANAGED, &base, &size, NULL))
        return gr__fail(grErrorInvalidValue,
                        "%s: %s (%p) is not in an allocation of grMallocManaged; managed-memory hints take "
                        "managed memory only (graphrt reports no pageable memory access)",
                        call, what, p);
    size_t off = (size_t)((const char *)p - (char *)base);
    if (count > size - off)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s (%p, %zu bytes) runs past the end of its managed allocation at %p (%zu "
                        "bytes)",
                        call, what, p, count, base, size);
    int owner = GR_OWNER_CPU;
    if (gpu)
        *gpu = gr__mem_owner(p, &owner) && owner > 0 ? owner : 0;
    return grSuccess;
}

/* The kinds of location a call takes. */
enum {
    LOC_PREFETCH,
    LOC_PREFERRED,
    LOC_ACCESSED_BY
};

/* A location: the CPU device as {Device, 0} or a host location; for the
 * CPU device's managed memory a GPU has no concurrent access (CUDA's
 * cudaErrorInvalidDevice for such a device); for a GPU's ('gpu') any
 * device may be named, the driver answering for the rest. */
static grError_t check_location(const char *call, grMemLocation loc, int use, const char *what, bool gpu)
{
    switch ((int)loc.type) {
    case grMemLocationTypeDevice:
        if (!gr__device_exists(loc.id))
            return gr__fail(grErrorInvalidDevice, "%s: %s {Device, %d} names no device", call, what, loc.id);
        if (loc.id != 0 && !gpu)
            return gr__fail(grErrorInvalidDevice,
                            "%s: %s {Device, %d} is a GPU; graphrt's managed memory is the CPU device's "
                            "host memory, which no GPU has concurrent managed access to (name device 0 or "
                            "a host location)",
                            call, what, loc.id);
        return grSuccess;
    case grMemLocationTypeHost:
        return grSuccess;
    case grMemLocationTypeHostNuma:
    case grMemLocationTypeHostNumaCurrent:
        if (use == LOC_ACCESSED_BY)
            return gr__fail(grErrorInvalidValue,
                            "%s: %s is a host NUMA location; accessed-by advice takes a device or "
                            "grMemLocationTypeHost",
                            call, what);
        if (loc.type == grMemLocationTypeHostNuma && loc.id != 0 && !gpu)
            return gr__fail(grErrorInvalidValue,
                            "%s: %s names host NUMA node %d; graphrt's host memory is one node, 0", call,
                            what, loc.id);
        return grSuccess;
    default:
        return gr__fail(grErrorInvalidValue,
                        "%s: %s has type %d, not grMemLocationTypeDevice, Host, HostNuma or HostNumaCurrent",
                        call, what, (int)loc.type);
    }
}

GR_API grError_t grMemAdvise(const void *devPtr, size_t count, grMemoryAdvise advice, grMemLocation location)
{
    static const char call[] = "grMemAdvise";
    grError_t err;
    if ((int)advice < grMemAdviseSetReadMostly || (int)advice > grMemAdviseUnsetAccessedBy)
        return gr__fail(grErrorInvalidValue, "%s: advice %d is not a grMemoryAdvise (1..6)", call,
                        (int)advice);
    int gpu = 0;
    if ((err = check_range(call, devPtr, count, "devPtr", &gpu)) != grSuccess)
        return err;
    if (advice == grMemAdviseSetPreferredLocation &&
        (err = check_location(call, location, LOC_PREFERRED, "the location", gpu)) != grSuccess)
        return err;
    if ((advice == grMemAdviseSetAccessedBy || advice == grMemAdviseUnsetAccessedBy) &&
        (err = check_location(call, location, LOC_ACCESSED_BY, "the location", gpu)) != grSuccess)
        return err;
    if (gpu)
        return gr__devkind()->mem_advise(call, gpu, devPtr, count, (int)advice, location);
    /* The allocation could be freed by another thread since the check,
     * a race of the program's. */
    if (!gr__hostreg_managed_change(devPtr, (gr_managed_change)advice, location))
        return gr__fail(grErrorInvalidValue,
                        "%s: the managed allocation holding %p was freed during the call", call, devPtr);
    return grSuccess;
}

/* The queued half of a prefetch: records the location when the stream
 * reaches it (nothing if the allocation was freed meanwhile). */
typedef struct prefetch_args {
    const void *p;
    grMemLocation loc;
} prefetch_args;

static void prefetch_op(void *data)
{
    const prefetch_args *a = data;
    (void)gr__hostreg_managed_change(a->p, GR_MANAGED_PREFETCH, a->loc);
}

/* The stream of a hint: not capturing, and a CPU stream for the CPU
 * device's managed memory, a GPU's for a GPU's ('gpu'). */
static grError_t hint_stream(const char *call, grStream_t stream, bool gpu, gr_stream **out)
{
    gr_stream *s = NULL;
    grError_t err = gr__stream_from_handle(call, stream, &s);
    if (err)
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return gr__capture_refuse(call, s,
                                  "a managed-memory prefetch or discard cannot be captured (no graph node "
                                  "represents it); issue it before the capture begins or after it ends");
    if (s->device != 0 && !gpu)
        return gr__fail(grErrorNotSupported,
                        "%s: stream %p is of device %d (a GPU), but the memory is the CPU device's managed "
                        "memory, which never moves: issue its hints on a stream of the CPU device (0)",
                        call, GR_PTR(stream), s->device);
    if (s->device == 0 && gpu)
        return gr__fail(grErrorNotSupported,
                        "%s: stream %p is of the CPU device, but the memory is a GPU's managed memory, which "
                        "the driver moves: issue its hints on a stream of a GPU",
                        call, GR_PTR(stream));
    *out = s;
    return gr__capture_check_implicit(call, s);
}

GR_API grError_t grMemPrefetchAsync(const void *devPtr, size_t count, grMemLocation location,
                                    unsigned int flags, grStream_t stream)
{
    static const char call[] = "grMemPrefetchAsync";
    gr_stream *s = NULL;
    grError_t err;
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%x; CUDA reserves them: pass 0", call, flags);
    int gpu = 0;
    if ((err = check_range(call, devPtr, count, "devPtr", &gpu)) != grSuccess ||
        (err = check_location(call, location, LOC_PREFETCH, "the location", gpu)) != grSuccess ||
        (err = hint_stream(call, stream, gpu, &s)) != grSuccess)
        return err;
    if (gpu)
        return gr__devkind()->mem_prefetch(call, s, devPtr, count, location);
    prefetch_args a = {devPtr, location};
    return gr__stream_call_dev(call, s, prefetch_op, &a, sizeof a);
}

/* The location index rules of a batch (grMemcpyBatchAsync's for its
 * attributes), each location checked. */
static grError_t check_locs(const char *call, size_t count, const grMemLocation *locs, const size_t *idxs,
                            size_t nlocs, bool gpu)
{
    if (!locs || !idxs)
        return gr__fail(grErrorInvalidValue, "%s: '%s' is NULL; every range of a batch needs a location",
                        call, !locs ? "prefetchLocs" : "prefetchLocIdxs");
    if (nlocs == 0 || nlocs > count)
        return gr__fail(grErrorInvalidValue,
                        "%s: numPrefetchLocs is %zu; it must be between 1 and count (%zu)", call, nlocs,
                        count);
    for (size_t k = 0; k < nlocs; k++) {
        char what[48];
        grError_t err;
        if (k == 0 && idxs[0] != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: prefetchLocIdxs[0] is %zu; the first location must start at range 0", call,
                            idxs[0]);
        if (k > 0 && idxs[k] <= idxs[k - 1])
            return gr__fail(grErrorInvalidValue,
                            "%s: prefetchLocIdxs[%zu] (%zu) is not above prefetchLocIdxs[%zu] (%zu); the "
                            "entries must be strictly increasing",
                            call, k, idxs[k], k - 1, idxs[k - 1]);
        if (idxs[k] >= count)
            return gr__fail(grErrorInvalidValue, "%s: prefetchLocIdxs[%zu] is %zu, past the last range (%zu)",
                            call, k, idxs[k], count - 1);
        snprintf(what, sizeof what, "prefetchLocs[%zu]", k);
        if ((err = check_location(call, locs[k], LOC_PREFETCH, what, gpu)) != grSuccess)
            return err;
    }
    return grSuccess;
}

/* The ranges of a batch, all the CPU device's managed memory or all GPUs'
 * (*gpu: the first range's GPU, 0 for the CPU device's). */
static grError_t check_ranges(const char *call, void *const *dptrs, const size_t *sizes, size_t count,
                              int *gpu)
{
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: count is 0; a batch holds at least one range", call);
    if (!dptrs || !sizes)
        return gr__fail(grErrorInvalidValue, "%s: '%s' is NULL", call, !dptrs ? "dptrs" : "sizes");
    for (size_t i = 0; i < count; i++) {
        char what[40];
        snprintf(what, sizeof what, "dptrs[%zu]", i);
        int g = 0;
        grError_t err = check_range(call, dptrs[i], sizes[i], what, &g);
        if (err)
            return err;
        if (i == 0)
            *gpu = g;
        else if ((g != 0) != (*gpu != 0))
            return gr__fail(grErrorInvalidValue,
                            "%s: dptrs[%zu] is %s managed memory but dptrs[0] %s's; a batch's ranges are all "
                            "the CPU device's or all GPUs' (one stream serves them)",
                            call, i, g ? "a GPU's" : "the CPU device's", *gpu ? "a GPU" : "the CPU device");
    }
    return grSuccess;
}

/* The batches: discard (locs NULL), prefetch, or both. */
static grError_t batch(const char *call, void **dptrs, size_t *sizes, size_t count, bool prefetch,
                       const grMemLocation *locs, const size_t *idxs, size_t nlocs, unsigned long long flags,
                       grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t err;
    int gpu = 0;
    if ((err = check_ranges(call, dptrs, sizes, count, &gpu)) != grSuccess)
        return err;
    if (prefetch && (err = check_locs(call, count, locs, idxs, nlocs, gpu)) != grSuccess)
        return err;
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%llx; CUDA reserves them: pass 0", call, flags);
    if ((err = hint_stream(call, stream, gpu, &s)) != grSuccess)
        return err;
    if (!prefetch)
        return grSuccess;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        if (k + 1 < nlocs && idxs[k + 1] == i)
            k++;
        prefetch_args a = {dptrs[i], locs[k]};
        /* On a GPU one driver prefetch per range (a discard is not passed
         * on: keeping the bytes is one of its indeterminate outcomes). */
        err = gpu ? gr__devkind()->mem_prefetch(call, s, dptrs[i], sizes[i], locs[k])
                  : gr__stream_call_dev(call, s, prefetch_op, &a, sizeof a);
        if (err != grSuccess)
            return err;
    }
    return grSuccess;
}

GR_API grError_t grMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                         grMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                         size_t numPrefetchLocs, unsigned long long flags, grStream_t stream)
{
    return batch("grMemPrefetchBatchAsync", dptrs, sizes, count, true, prefetchLocs, prefetchLocIdxs,
                 numPrefetchLocs, flags, stream);
}

GR_API grError_t grMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                        grStream_t stream)
{
    return batch("grMemDiscardBatchAsync", dptrs, sizes, count, false, NULL, NULL, 0, flags, stream);
}

GR_API grError_t grMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                   grMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                   size_t numPrefetchLocs, unsigned long long flags,
                                                   grStream_t stream)
{
    return batch("grMemDiscardAndPrefetchBatchAsync", dptrs, sizes, count, true, prefetchLocs,
                 prefetchLocIdxs, numPrefetchLocs, flags, stream);
}

/* ------------------------------------------------------------ queries */

static grError_t check_attribute(const char *call, const void *data, size_t size, grMemRangeAttribute a,
                                 size_t i)
{
    if (!data)
        return gr__fail(grErrorInvalidValue, "%s: data[%zu] is NULL", call, i);
    if ((int)a < grMemRangeAttributeReadMostly || (int)a > grMemRangeAttributeLastPrefetchLocationId)
        return gr__fail(grErrorInvalidValue,
                        "%s: attribute %d (entry %zu) is not a grMemRangeAttribute (1..8)", call, (int)a, i);
    if (a == grMemRangeAttributeAccessedBy ? (size == 0 || size % 4 != 0) : size != 4)
        return gr__fail(
            grErrorInvalidValue,
            "%s: dataSize %zu (entry %zu) does not fit attribute %d: it takes 4 bytes (one int)%s", call,
            size, i, (int)a,
            a == grMemRangeAttributeAccessedBy ? ", here a non-zero multiple of 4 (ints)" : "");
    return grSuccess;
}

/* A location as CUDA's int device ids answer it. */
static int device_id_of(grMemLocation loc)
{
    if (loc.type == grMemLocationTypeInvalid)
        return grInvalidDeviceId;
    return loc.type == grMemLocationTypeDevice ? loc.id : grCpuDeviceId;
}

static void answer(const gr_managed_state *m, grMemRangeAttribute a, void *data, size_t size)
{
    int v = 0;
    switch (a) {
    case grMemRangeAttributeReadMostly:
        v = m->read_mostly;
        break;
    case grMemRangeAttributePreferredLocation:
        v = device_id_of(m->preferred);
        break;
    case grMemRangeAttributeLastPrefetchLocation:
        v = device_id_of(m->last_prefetch);
        break;
    case grMemRangeAttributePreferredLocationType:
        v = (int)m->preferred.type;
        break;
    case grMemRangeAttributePreferredLocationId:
        v = m->preferred.id;
        break;
    case grMemRangeAttributeLastPrefetchLocationType:
        v = (int)m->last_prefetch.type;
        break;
    case grMemRangeAttributeLastPrefetchLocationId:
        v = m->last_prefetch.id;
        break;
    case grMemRangeAttributeAccessedBy: {
        size_t n = size / sizeof(int), k = 0;
        int *out = data;
        if (m->accessed_by & ((uint64_t)1 << 63))
            out[k++] = grCpuDeviceId;
        for (int d = 0; d < 63 && k < n; d++)
            if (m->accessed_by & ((uint64_t)1 << d))
                out[k++] = d;
        while (k < n)
            out[k++] = grInvalidDeviceId;
        return;
    }
    }
    memcpy(data, &v, sizeof v);
}

GR_API grError_t grMemRangeGetAttributes(void **data, size_t *dataSizes, grMemRangeAttribute *attributes,
                                         size_t numAttributes, const void *devPtr, size_t count)
{
    static const char call[] = "grMemRangeGetAttributes";
    gr_managed_state m;
    grError_t err;
    if (!data || !dataSizes || !attributes)
        return gr__fail(grErrorInvalidValue, "%s: '%s' is NULL", call,
                        !data        ? "data"
                        : !dataSizes ? "dataSizes"
                                     : "attributes");
    if (numAttributes == 0)
        return gr__fail(grErrorInvalidValue, "%s: numAttributes is 0; ask for at least one attribute", call);
    for (size_t i = 0; i < numAttributes; i++)
        if ((err = check_attribute(call, data[i], dataSizes[i], attributes[i], i)) != grSuccess)
            return err;
    int gpu = 0;
    if ((err = check_range(call, devPtr, count, "devPtr", &gpu)) != grSuccess)
        return err;
    for (size_t i = 0; gpu && i < numAttributes; i++)
        if ((err = gr__devkind()->range_attribute(call, gpu, devPtr, count, (int)attributes[i], data[i],
                                                  dataSizes[i])) != grSuccess)
            return err;
    if (gpu)
        return grSuccess;
    if (!gr__hostreg_managed_get(devPtr, &m))
        return gr__fail(grErrorInvalidValue,
                        "%s: the managed allocation holding %p was freed during the call", call, devPtr);
    for (size_t i = 0; i < numAttributes; i++)
        answer(&m, attributes[i], data[i], dataSizes[i]);
    return grSuccess;
}

GR_API grError_t grMemRangeGetAttribute(void *data, size_t dataSize, grMemRangeAttribute attribute,
                                        const void *devPtr, size_t count)
{
    static const char call[] = "grMemRangeGetAttribute";
    gr_managed_state m;
    grError_t err;
    int gpu = 0;
    if ((err = check_attribute(call, data, dataSize, attribute, 0)) != grSuccess ||
        (err = check_range(call, devPtr, count, "devPtr", &gpu)) != grSuccess)
        return err;
    if (gpu)
        return gr__devkind()->range_attribute(call, gpu, devPtr, count, (int)attribute, data, dataSize);
    if (!gr__hostreg_managed_get(devPtr, &m))
        return gr__fail(grErrorInvalidValue,
                        "%s: the managed allocation holding %p was freed during the call", call, devPtr);
    answer(&m, attribute, data, dataSize);
    return grSuccess;
}
