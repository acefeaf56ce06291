/*
 * launch.c - grGraphLaunch, grGraphUpload and grGraphExecDestroy: the
 * checks a launch makes above the backend (the executable, capture,
 * bounds of its copies and memsets, the graph memory rule), then the
 * backend queues it (backend/cpu/launch_queue.c).
 */
#include "exec.h"
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/graphmem.h"

#include <stdio.h>
#include <string.h>

grError_t gr__exec_check_ranges(const char *call, grGraphExec_t e, bool launching)
{
    gr_plan *p = &e->plan;
    char what[96];
    grError_t err = grSuccess;
    /* The generation first: an allocation made while the check runs
     * moves it past the one noted, and the next launch looks again. */
    uint64_t gen = gr__mem_generation();
    /* Excludes changes of the plan, the owner's too. */
    gr__exec_lock_unbiased(e);
    for (uint32_t i = 0; i < p->nranged && !err; i++) {
        const gr_pnode *pn = &p->nodes[p->ranged_nodes[i]];
        if (!pn->enabled)
            continue;
        if (pn->type == grGraphNodeTypeMemcpy && GR_UNLIKELY(pn->u.copy.pitched)) {
            char swhat[96];
            snprintf(what, sizeof what, "destination of memcpy node %u (in topological order)", pn->index);
            snprintf(swhat, sizeof swhat, "source of memcpy node %u (in topological order)", pn->index);
            err = gr__copy_shape_check(call, pn->u.copy.p.dst, pn->u.copy.p.src, gr__pnode_copy_shape(pn),
                                       what, swhat);
            /* A launch touching reserved pages of graph memory would crash:
             * as grMemset, a range no executable maps is refused. */
            if (!err && launching)
                err = gr__graphmem_check_mapped(call, pn->u.copy.p.dst, 1, what);
            if (!err && launching)
                err = gr__graphmem_check_mapped(call, pn->u.copy.p.src, 1, swhat);
        } else if (pn->type == grGraphNodeTypeMemcpy) {
            const gr_memcpy_params *c = &pn->u.copy.p;
            snprintf(what, sizeof what, "destination of memcpy node %u (in topological order)", pn->index);
            err = gr__mem_check_range(call, c->dst, c->count, what);
            if (!err && launching)
                err = gr__graphmem_check_mapped(call, c->dst, c->count, what);
            if (!err) {
                snprintf(what, sizeof what, "source of memcpy node %u (in topological order)", pn->index);
                err = gr__mem_check_range(call, c->src, c->count, what);
                if (!err && launching)
                    err = gr__graphmem_check_mapped(call, c->src, c->count, what);
            }
        } else {
            snprintf(what, sizeof what, "destination of memset node %u (in topological order)", pn->index);
            err = gr__mem_check_range(call, pn->u.memset.dst, gr__memset_span(&pn->u.memset), what);
            if (!err && launching)
                err = gr__graphmem_check_mapped(call, pn->u.memset.dst, gr__memset_span(&pn->u.memset), what);
        }
        if (err)
            gr__inst_fault.pindex = pn->index;
    }
    if (!err && launching)
        gr_store_relaxed(&p->range_gen, gen);
    gr__spin_unlock(&e->lock);
    return err;
}

/* A launch (or upload) where the stream or the executable is a GPU's: both
 * must be of the same device. */
static GR_NOINLINE grError_t launch_gpu(const char *call, grGraphExec_t e, grStream_t h, gr_stream *s,
                                        bool upload)
{
    if (e->span)
        return gr__exec_span_launch(call, e, h, s, upload);
    int edev = e->gpu ? gr__devkind()->exec_device(e->gpu) : 0;
    if (edev != s->device)
        return gr__fail(grErrorInvalidValue,
                        "%s: executable %p was instantiated for device %d (%s) but stream %p is of device "
                        "%d (%s); launch it on a stream of its device, or instantiate the graph again "
                        "with that device current (grSetDevice)",
                        call, GR_PTR(e), edev, edev ? "a GPU" : "the CPU", GR_PTR(h), s->device,
                        s->device ? "a GPU" : "the CPU");
    grError_t err = gr__exec_ranges_current(call, e);
    if (err)
        return err;
    if (!upload && (gr__dbg_flags() & GR_DBG_CHECK) && (err = gr__exec_check_baked(call, e)))
        return err;
    /* Graph memory's launch rule is the exec layer's, on every device. */
    if (!upload && (e->flags & GR_EXEC_GRAPHMEM) && (err = gr__graphmem_launch(e)))
        return err;
    return gr__exec_launch_dev(call, e, s, upload);
}

/* grGraphLaunch's last steps under a debug mode: the check of baked
 * addresses (grDebugCheckLaunches) first, and the wait of
 * grDebugLaunchBlocking last. */
static GR_NOINLINE grError_t launch_debug(grGraphExec_t e, gr_stream *s)
{
    grError_t err;
    if ((gr__dbg_flags() & GR_DBG_CHECK) && (err = gr__exec_check_baked("grGraphLaunch", e)))
        return err;
    if (GR_UNLIKELY(e->flags & GR_EXEC_GRAPHMEM) && (err = gr__graphmem_launch(e)))
        return err;
    return gr__launched(s, gr__exec_launch_dev("grGraphLaunch", e, s, false));
}

GR_API grError_t grGraphLaunch(grGraphExec_t graphExec, grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t err;
    if ((err = gr__exec_check("grGraphLaunch", graphExec)))
        return err;
    if ((err = gr__stream_from_handle("grGraphLaunch", stream, &s)))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams d;
        memset(&d, 0, sizeof d);
        d.type = grGraphNodeTypeGraph;
        d.graph.graph = NULL; /* an executable, not a graph: see the capture module */
        return gr__capture_record("grGraphLaunch", s, &d);
    }
    if ((err = gr__capture_check_implicit("grGraphLaunch", s)))
        return err;
    if (GR_UNLIKELY(s->device != 0 || graphExec->gpu != NULL || graphExec->span != NULL))
        return gr__launched(s, launch_gpu("grGraphLaunch", graphExec, stream, s, false));
    if ((err = gr__exec_ranges_current("grGraphLaunch", graphExec)))
        return err;
    if (GR_UNLIKELY(gr__dbg_flags() & (GR_DBG_CHECK | GR_DBG_BLOCKING)))
        return launch_debug(graphExec, s);
    if (GR_UNLIKELY(graphExec->flags & GR_EXEC_GRAPHMEM) && (err = gr__graphmem_launch(graphExec)))
        return err;
    return gr__exec_launch_dev("grGraphLaunch", graphExec, s, false);
}

GR_API grError_t grGraphUpload(grGraphExec_t graphExec, grStream_t stream)
{
    gr_stream *s = NULL;
    grError_t err;
    if ((err = gr__exec_check("grGraphUpload", graphExec)))
        return err;
    if ((err = gr__stream_from_handle("grGraphUpload", stream, &s)))
        return err;
    if (s->device != 0 || graphExec->gpu != NULL || graphExec->span != NULL)
        return launch_gpu("grGraphUpload", graphExec, stream, s, true);
    return grSuccess;
}

GR_API grError_t grGraphExecDestroy(grGraphExec_t graphExec)
{
    grError_t err;
    if ((err = gr__exec_check("grGraphExecDestroy", graphExec)))
        return err;
    graphExec->magic = GR_MAGIC_DEAD;
    if (GR_UNLIKELY(graphExec->plan.ncond_slots)) {
        /* Its handles' values serve the next executable of the graph:
         * its own launches must be over first. */
        gr__exec_quiesce(graphExec);
        gr__exec_cond_slots_free(&graphExec->plan);
    }
    if (graphExec->flags & GR_EXEC_GRAPHMEM)
        gr__graphmem_exec_destroyed(graphExec);
    /* Its user objects outlive its parts' launches, as a launch's
     * reference makes them outlive the launch. */
    if (GR_UNLIKELY(graphExec->span != NULL))
        gr__exec_span_quiesce(graphExec);
    /* An idle executable's user objects are destroyed before returning,
     * as in CUDA (its free may run here too). */
    gr__uobj_inline_begin();
    gr__exec_urefs_destroyed(graphExec);
    gr__exec_release(graphExec);
    gr__uobj_inline_end();
    return grSuccess;
}
