/*
 * memcpy_batch.c - grMemcpyBatchAsync: a batch of 1D copies issued in one
 * call, in stream order as a whole. Each copy is the copy grMemcpyAsync
 * makes (api/memory.c: queued on a CPU stream, handed to the driver for a
 * GPU stream or GPU memory, recorded as a memcpy node while the stream
 * captures), so a batch follows the same rules as its copies.
 *
 * Invariants: the attribute runs, every copy's pointers and ranges, the
 * stream and (outside capture) the mapping of graph memory are checked
 * before the first copy is issued, so a refused batch issues nothing; a
 * copy issued afterwards can fail only for lack of memory.
 */
#include "api.h"
#include "../capture/capture.h"
#include "../memory/graphmem.h"

static grError_t check_attrs(const char *call, size_t count, const grMemcpyAttributes *attrs,
                             const size_t *idxs, size_t nattrs)
{
    if (!attrs || !idxs)
        return gr__fail(grErrorInvalidValue,
                        "%s: '%s' is NULL; every copy of a batch needs attributes (one entry for the whole "
                        "batch: attrsIdxs {0})",
                        call, !attrs ? "attrs" : "attrsIdxs");
    if (nattrs == 0 || nattrs > count)
        return gr__fail(grErrorInvalidValue, "%s: numAttrs is %zu; it must be between 1 and count (%zu)",
                        call, nattrs, count);
    for (size_t k = 0; k < nattrs; k++) {
        const grMemcpyAttributes *a = &attrs[k];
        if (k == 0 && idxs[0] != 0)
            return gr__fail(grErrorInvalidValue,
                            "%s: attrsIdxs[0] is %zu; the first attribute entry must start at copy 0", call,
                            idxs[0]);
        if (k > 0 && idxs[k] <= idxs[k - 1])
            return gr__fail(grErrorInvalidValue,
                            "%s: attrsIdxs[%zu] (%zu) is not above attrsIdxs[%zu] (%zu); the entries must be "
                            "strictly increasing",
                            call, k, idxs[k], k - 1, idxs[k - 1]);
        if (idxs[k] >= count)
            return gr__fail(grErrorInvalidValue, "%s: attrsIdxs[%zu] is %zu, past the last copy (%zu)", call,
                            k, idxs[k], count - 1);
        if (a->srcAccessOrder != grMemcpySrcAccessOrderStream &&
            a->srcAccessOrder != grMemcpySrcAccessOrderDuringApiCall &&
            a->srcAccessOrder != grMemcpySrcAccessOrderAny)
            return gr__fail(grErrorInvalidValue,
                            "%s: attrs[%zu].srcAccessOrder is %d; it must be grMemcpySrcAccessOrderStream, "
                            "DuringApiCall or Any",
                            call, k, (int)a->srcAccessOrder);
        if (a->flags & ~grMemcpyFlagPreferOverlapWithCompute)
            return gr__fail(grErrorInvalidValue,
                            "%s: attrs[%zu].flags 0x%x has bits other than "
                            "grMemcpyFlagPreferOverlapWithCompute",
                            call, k, a->flags);
        if ((unsigned)a->srcLocHint.type > grMemLocationTypeHostNumaCurrent ||
            (unsigned)a->dstLocHint.type > grMemLocationTypeHostNumaCurrent)
            return gr__fail(grErrorInvalidValue,
                            "%s: attrs[%zu] has a location hint of type %d, not a "
                            "grMemLocationType",
                            call, k,
                            (int)((unsigned)a->srcLocHint.type > grMemLocationTypeHostNumaCurrent
                                      ? a->srcLocHint.type
                                      : a->dstLocHint.type));
    }
    return grSuccess;
}

static grError_t check_copies(const char *call, void *const *dsts, const void *const *srcs,
                              const size_t *sizes, size_t count, bool capturing)
{
    for (size_t i = 0; i < count; i++) {
        grError_t err;
        if (sizes[i] == 0)
            return gr__fail(grErrorInvalidValue, "%s: sizes[%zu] is 0; every copy of a batch copies bytes",
                            call, i);
        if (!dsts[i] || !srcs[i])
            return gr__fail(grErrorInvalidValue, "%s: %s[%zu] is NULL", call, !dsts[i] ? "dsts" : "srcs", i);
        if ((err = gr__mem_check_range(call, dsts[i], sizes[i], "destination")) != grSuccess ||
            (err = gr__mem_check_range(call, srcs[i], sizes[i], "source")) != grSuccess)
            return err;
        if (!capturing &&
            ((err = gr__graphmem_check_mapped(call, dsts[i], sizes[i], "destination")) != grSuccess ||
             (err = gr__graphmem_check_mapped(call, srcs[i], sizes[i], "source")) != grSuccess))
            return err;
    }
    return grSuccess;
}

GR_API grError_t grMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                    size_t count, grMemcpyAttributes *attrs, size_t *attrsIdxs,
                                    size_t numAttrs, grStream_t hStream)
{
    static const char call[] = "grMemcpyBatchAsync";
    gr_stream *s;
    grError_t err;
    if (count == 0)
        return gr__fail(grErrorInvalidValue, "%s: count is 0; a batch holds at least one copy", call);
    if (!dsts || !srcs || !sizes)
        return gr__fail(grErrorInvalidValue, "%s: '%s' is NULL", call,
                        !dsts   ? "dsts"
                        : !srcs ? "srcs"
                                : "sizes");
    if ((err = check_attrs(call, count, attrs, attrsIdxs, numAttrs)) != grSuccess)
        return err;
    if (hStream == NULL || hStream == grStreamLegacy)
        return gr__fail(grErrorInvalidValue,
                        "%s: the legacy default stream cannot take a batch, as in CUDA; use a created stream "
                        "or grStreamPerThread",
                        call);
    if ((err = gr__stream_from_handle(call, hStream, &s)) != grSuccess)
        return err;
    if ((err = check_copies(call, dsts, srcs, sizes, count, gr__stream_capturing(s))) != grSuccess)
        return err;
    for (size_t i = 0; i < count; i++) {
        gr_stream *out;
        err = gr__api_copy_enqueue(call, dsts[i], srcs[i], sizes[i], grMemcpyDefault, hStream, false, &out);
        if (err != grSuccess)
            return err;
    }
    return grSuccess;
}

GR_API grError_t grMemcpyWithAttributesAsync(void *dst, const void *src, size_t size,
                                             grMemcpyAttributes *attr, grStream_t stream)
{
    static const char call[] = "grMemcpyWithAttributesAsync";
    void *d = dst;
    size_t idx = 0;
    gr_stream *s;
    grError_t err;
    if (!attr)
        return gr__fail(grErrorInvalidValue, "%s: 'attr' is NULL; the copy needs its attributes", call);
    if ((err = check_attrs(call, 1, attr, &idx, 1)) != grSuccess)
        return err;
    if (stream == NULL || stream == grStreamLegacy)
        return gr__fail(
            grErrorInvalidValue,
            "%s: the legacy default stream cannot take a copy with attributes (a batch of one, as "
            "CUDA documents it); use a created stream or grStreamPerThread",
            call);
    if ((err = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return err;
    if ((err = check_copies(call, &d, &src, &size, 1, gr__stream_capturing(s))) != grSuccess)
        return err;
    return gr__api_copy_enqueue(call, dst, src, size, grMemcpyDefault, stream, false, &s);
}
