/*
 * region.c - pitched regions of memory (2D and 3D copies and memsets):
 * how a grPitchedPtr, a position and an extent describe one, the pitch
 * rules CUDA 13 applies to them (probed on an H200), and the bounds check
 * of every row against graphrt's tracked allocations. The eager copies
 * (api/copy2d.c), memcpy nodes (graph/params.c) and the launch checks of
 * executables (exec/launch.c) share them.
 *
 * Invariant: gr__region_check tests the span first and walks rows only
 * when it fails, to name the first row at fault, so a region that fits
 * costs one range lookup whatever its height.
 */
#include "memory.h"

/* The rows a refused region's check walks to name the first at fault. */
#define GR_ROWS_NAMED 4096u

grError_t gr__region_check(const char *call, const gr_region *g, const char *what)
{
    size_t last_row, last_slice, span, rows;
    if (g->base == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: the %s pointer is NULL for a %zu x %zu x %zu region; pass "
                        "valid memory or a zero extent",
                        call, what, g->width, g->height, g->depth);
    if (__builtin_mul_overflow(g->height - 1, g->pitch, &last_row) ||
        __builtin_mul_overflow(g->depth - 1, g->slice, &last_slice) ||
        __builtin_add_overflow(last_row, last_slice, &span) ||
        __builtin_add_overflow(span, g->width, &span) || __builtin_mul_overflow(g->height, g->depth, &rows) ||
        (uintptr_t)g->base + span < (uintptr_t)g->base)
        return gr__fail(grErrorInvalidValue,
                        "%s: the %s region of %zu x %zu x %zu (pitch %zu, slice %zu) at %p overflows the "
                        "address space",
                        call, what, g->width, g->height, g->depth, g->pitch, g->slice, (void *)g->base);
    void *abase = NULL;
    size_t asize = 0;
    if (gr__mem_range_ok(g->base, span, &abase, &asize))
        return grSuccess;
    /* The span leaves an allocation: name the first row that does, among
     * the first GR_ROWS_NAMED (a refusal stays quick for any height). */
    void *sbase = abase;
    size_t ssize = asize, scanned = 0;
    for (size_t z = 0; z < g->depth && scanned < GR_ROWS_NAMED; z++) {
        for (size_t y = 0; y < g->height && scanned < GR_ROWS_NAMED; y++, scanned++) {
            const char *row = g->base + z * g->slice + y * g->pitch;
            if (!gr__mem_range_ok(row, g->width, &abase, &asize))
                return gr__fail(grErrorInvalidValue,
                                "%s: %s row %zu of slice %zu (%zu bytes at %p) is not inside one "
                                "allocation: it runs past the end of the %zu-byte allocation at %p, or "
                                "starts outside the allocations and reaches into one",
                                call, what, y, z, g->width, (const void *)row, asize, abase);
        }
    }
    if (scanned == rows)
        return gr__fail(grErrorInvalidValue,
                        "%s: the rows of the %s region at %p lie in more than one allocation; a pitched "
                        "copy stays inside one allocation",
                        call, what, (void *)g->base);
    return gr__fail(grErrorInvalidValue,
                    "%s: the %s region of %zu rows at %p (%zu bytes from its first row to the end of its "
                    "last) runs past the end of the %zu-byte allocation at %p, or starts outside the "
                    "allocations and reaches into one",
                    call, what, rows, (void *)g->base, span, ssize, sbase);
}

grError_t gr__region_3d(const char *call, const char *what, grPitchedPtr p, grPos pos, grExtent e, bool set,
                        gr_region *out)
{
    size_t off, yoff;
    bool rows = e.height > 1 || e.depth > 1;
    *out =
        (gr_region){NULL, e.width, e.height, e.depth, p.pitch, 0, e.depth > 1 || pos.z ? p.ysize : e.height};
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return grSuccess;
    if (p.pitch < e.width && (rows || (!set && p.pitch != 0)))
        return gr__fail(rows && !set ? grErrorInvalidPitchValue : grErrorInvalidValue,
                        "%s: the %s pitch %zu is smaller than the width %zu; a pitch is the distance between "
                        "rows, at least their width",
                        call, what, p.pitch, e.width);
    if ((rows || p.pitch != 0) && pos.x > p.pitch - e.width)
        return gr__fail(grErrorInvalidValue, "%s: the %s position x %zu + width %zu is beyond the pitch %zu",
                        call, what, pos.x, e.width, p.pitch);
    if (p.ysize < e.height && (e.depth > 1 || set || p.ysize != 0))
        return gr__fail(e.depth > 1 && !set ? grErrorInvalidPitchValue : grErrorInvalidValue,
                        "%s: the %s ysize %zu (rows per slice) is smaller than the height %zu", call, what,
                        p.ysize, e.height);
    if (__builtin_mul_overflow(p.pitch, p.ysize, &out->slice) ||
        __builtin_mul_overflow(pos.z, out->slice, &off) || __builtin_mul_overflow(pos.y, p.pitch, &yoff) ||
        __builtin_add_overflow(off, yoff, &off) || __builtin_add_overflow(off, pos.x, &off))
        return gr__fail(grErrorInvalidValue,
                        "%s: the %s position (%zu, %zu, %zu) overflows the address space", call, what, pos.x,
                        pos.y, pos.z);
    out->base = p.ptr ? (char *)p.ptr + off : NULL;
    return grSuccess;
}

void gr__region_of_shape(gr_region *out, const void *base, const gr_copy_shape *s, bool dst_side)
{
    *out = (gr_region){(char *)(uintptr_t)base,
                       s->width,
                       s->height,
                       s->depth,
                       dst_side ? s->dpitch : s->spitch,
                       dst_side ? s->dslice : s->sslice,
                       dst_side ? s->drows : s->srows};
}

grError_t gr__copy_shape_check(const char *call, void *dst, const void *src, const gr_copy_shape *s,
                               const char *dst_what, const char *src_what)
{
    gr_region d, r;
    gr__region_of_shape(&d, dst, s, true);
    gr__region_of_shape(&r, src, s, false);
    grError_t err = gr__region_check(call, &d, dst_what);
    return err ? err : gr__region_check(call, &r, src_what);
}

size_t gr__region_span(const gr_region *g)
{
    return (g->height - 1) * g->pitch + (g->depth - 1) * g->slice + g->width;
}
