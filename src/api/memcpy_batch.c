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

/* ------------------------------------------------------------ 3D batch */

/* The pitched pointer of a pointer operand (checked already). */
static grPitchedPtr operand_ptr(const grMemcpy3DOperand *o, grExtent e)
{
    size_t row = o->op.ptr.rowLength ? o->op.ptr.rowLength : e.width;
    size_t layer = o->op.ptr.layerHeight ? o->op.ptr.layerHeight : e.height;
    return make_grPitchedPtr(o->op.ptr.ptr, row, e.width, layer);
}

static grError_t check_operand(const char *call, const grMemcpy3DOperand *o, grExtent e, const char *name,
                               const char *side)
{
    if (o->type == grMemcpyOperandTypeArray)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.%s is an array operand; graphrt has no CUDA arrays, copy between "
                        "pointer operands instead",
                        call, name, side);
    if (o->type != grMemcpyOperandTypePointer)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.%s.type is %d, neither grMemcpyOperandTypePointer nor "
                        "grMemcpyOperandTypeArray",
                        call, name, side, (int)o->type);
    if (!o->op.ptr.ptr)
        return gr__fail(grErrorInvalidValue, "%s: %s.%s.op.ptr.ptr is NULL", call, name, side);
    if (o->op.ptr.rowLength != 0 && o->op.ptr.rowLength < e.width)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.%s.op.ptr.rowLength %zu is below the copy's width %zu (0 means the "
                        "width)",
                        call, name, side, o->op.ptr.rowLength, e.width);
    if (o->op.ptr.layerHeight != 0 && o->op.ptr.layerHeight < e.height)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.%s.op.ptr.layerHeight %zu is below the copy's height %zu (0 means "
                        "the height)",
                        call, name, side, o->op.ptr.layerHeight, e.height);
    if ((unsigned)o->op.ptr.locHint.type > grMemLocationTypeHostNumaCurrent)
        return gr__fail(grErrorInvalidValue, "%s: %s.%s has a location hint of type %d", call, name, side,
                        (int)o->op.ptr.locHint.type);
    return grSuccess;
}

static grError_t check_op(const char *call, const grMemcpy3DBatchOp *op, const char *name,
                          grMemcpy3DParms *out)
{
    grError_t err;
    grExtent e = op->extent;
    gr_region d, s;
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.extent is {%zu, %zu, %zu}; no member of a batch copy's extent may "
                        "be 0",
                        call, name, e.width, e.height, e.depth);
    if (op->srcAccessOrder != grMemcpySrcAccessOrderStream &&
        op->srcAccessOrder != grMemcpySrcAccessOrderDuringApiCall &&
        op->srcAccessOrder != grMemcpySrcAccessOrderAny)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.srcAccessOrder is %d; it must be grMemcpySrcAccessOrderStream, "
                        "DuringApiCall or Any",
                        call, name, (int)op->srcAccessOrder);
    if (op->flags & ~grMemcpyFlagPreferOverlapWithCompute)
        return gr__fail(grErrorInvalidValue,
                        "%s: %s.flags 0x%x has bits other than grMemcpyFlagPreferOverlapWithCompute", call,
                        name, op->flags);
    if ((err = check_operand(call, &op->src, e, name, "src")) != grSuccess ||
        (err = check_operand(call, &op->dst, e, name, "dst")) != grSuccess)
        return err;
    *out = (grMemcpy3DParms){
        .srcPtr = operand_ptr(&op->src, e),
        .dstPtr = operand_ptr(&op->dst, e),
        .extent = e,
        .kind = grMemcpyDefault,
    };
    /* The regions' bounds, checked before any copy is queued. */
    if ((err = gr__region_3d(call, "destination", out->dstPtr, out->dstPos, e, false, &d)) != grSuccess ||
        (err = gr__region_3d(call, "source", out->srcPtr, out->srcPos, e, false, &s)) != grSuccess ||
        (err = gr__region_check(call, &d, "destination")) != grSuccess ||
        (err = gr__region_check(call, &s, "source")) != grSuccess)
        return err;
    return grSuccess;
}

/* A batch of numOps 3D copies for 'call' (grMemcpy3DBatchAsync's, or
 * grMemcpy3DWithAttributesAsync's single copy), its array named 'list' in
 * the details. */
static grError_t batch_3d(const char *call, const char *list, size_t numOps, grMemcpy3DBatchOp *opList,
                          unsigned long long flags, grStream_t stream)
{
    gr_stream *s;
    grError_t err;
    grMemcpy3DParms p;
    if (numOps == 0)
        return gr__fail(grErrorInvalidValue, "%s: numOps is 0; a batch holds at least one copy", call);
    if (!opList)
        return gr__fail(grErrorInvalidValue, "%s: opList is NULL", call);
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%llx; CUDA reserves them: pass 0", call, flags);
    if (stream == NULL || stream == grStreamLegacy)
        return gr__fail(grErrorInvalidValue,
                        "%s: the legacy default stream cannot take a batch, as in CUDA; use a created stream "
                        "or grStreamPerThread",
                        call);
    if ((err = gr__stream_from_handle(call, stream, &s)) != grSuccess)
        return err;
    char name[40];
    for (size_t i = 0; i < numOps; i++) {
        snprintf(name, sizeof name, "%s[%zu]", list, i);
        if ((err = check_op(call, &opList[i], name, &p)) != grSuccess)
            return err;
    }
    for (size_t i = 0; i < numOps; i++) {
        (void)check_op(call, &opList[i], "", &p);
        if ((err = gr__api_copy_3d(call, &p, stream, false)) != grSuccess)
            return err;
    }
    return grSuccess;
}

GR_API grError_t grMemcpy3DBatchAsync(size_t numOps, grMemcpy3DBatchOp *opList, unsigned long long flags,
                                      grStream_t stream)
{
    return batch_3d("grMemcpy3DBatchAsync", "opList", numOps, opList, flags, stream);
}

GR_API grError_t grMemcpy3DWithAttributesAsync(grMemcpy3DBatchOp *op, unsigned long long flags,
                                               grStream_t stream)
{
    static const char call[] = "grMemcpy3DWithAttributesAsync";
    if (!op)
        return gr__fail(grErrorInvalidValue, "%s: 'op' is NULL; the copy needs its operation", call);
    return batch_3d(call, "op", 1, op, flags, stream);
}
