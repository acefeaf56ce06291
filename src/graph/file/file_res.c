/*
 * file_res.c - the resources of loaded graph files (file_int.h) and the
 * stand-ins that replay a graph file without the program that made it.
 *
 * Invariant: a record's arrays only grow while its loader runs (one
 * thread); after that they are read only by the last release.
 */
#include "file_int.h"

struct gr_file_res *gr__file_res_new(void)
{
    struct gr_file_res *r = gr__calloc(1, sizeof *r);
    if (r)
        atomic_init(&r->refs, 1);
    return r;
}

void gr__file_res_retain(struct gr_file_res *r)
{
    if (r)
        gr_fetch_add_relaxed(&r->refs, 1);
}

void gr__file_res_release(struct gr_file_res *r)
{
    if (!r || gr_fetch_sub_acq_rel(&r->refs, 1) != 1)
        return;
    /* No graph or executable names these any more. A buffer a user freed
     * by hand (or grDeviceReset) is no longer tracked and is skipped. */
    for (size_t i = 0; i < r->nbufs; i++)
        (void)gr__mem_free_block(r->bufs[i].ptr, r->bufs[i].kind);
    for (size_t i = 0; i < r->nevents; i++)
        gr__event_destroy(r->events[i]);
    for (size_t i = 0; i < r->nnames; i++)
        gr__free(r->names[i]);
    gr__free(r->bufs);
    gr__free(r->events);
    gr__free(r->names);
    gr__free(r);
}

/* Makes room for one more element of an array of 'size'-byte elements. */
static bool grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t ncap = *cap ? 2 * *cap : 8;
    void *na = gr__realloc(*arr, ncap * size);
    if (!na)
        return false;
    *arr = na;
    *cap = ncap;
    return true;
}

bool gr__file_res_add_buf(struct gr_file_res *r, void *ptr, size_t size, gr_mem_kind kind)
{
    if (!grow((void **)&r->bufs, r->nbufs, &r->capbufs, sizeof *r->bufs))
        return false;
    r->bufs[r->nbufs++] = (gr_file_buf){ptr, size, kind};
    return true;
}

bool gr__file_res_add_event(struct gr_file_res *r, grEvent_t e)
{
    if (!grow((void **)&r->events, r->nevents, &r->capevents, sizeof *r->events))
        return false;
    r->events[r->nevents++] = e;
    return true;
}

bool gr__file_res_add_name(struct gr_file_res *r, char *name)
{
    if (!grow((void **)&r->names, r->nnames, &r->capnames, sizeof *r->names))
        return false;
    r->names[r->nnames++] = name;
    return true;
}

/* ------------------------------------------------------------ stand-ins */

/* How long a stand-in node spins (grGraphSetStandInWork). A process-wide
 * knob by design: the stand-in functions have no other state to read, and
 * the replaying tool sets it once before it loads. */
static _Atomic uint64_t standin_ns;

static void spin_for(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t end = gr__now_ns() + ns;
    while (gr__now_ns() < end)
        gr__cpu_relax();
}

void gr__standin_kernel(const grKernelCtx *ctx, void **args)
{
    (void)args;
    uint64_t blocks = (uint64_t)ctx->gridDim.x * ctx->gridDim.y * ctx->gridDim.z;
    spin_for(gr_load_relaxed(&standin_ns) / blocks);
}

void gr__standin_host(void *user_data)
{
    (void)user_data;
    spin_for(gr_load_relaxed(&standin_ns));
}

GR_API grError_t grGraphSetStandInWork(unsigned long long nsPerNode)
{
    gr_store_relaxed(&standin_ns, (uint64_t)nsPerNode);
    return grSuccess;
}
