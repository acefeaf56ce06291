/*
 * event.c - GPU events: a graphrt event object whose records, queries,
 * waits and times are its CUevent's (cuEventRecord and friends). The
 * object's CPU fields stay unused; its capture mark works as on the CPU.
 */
#include "cuda_int.h"

grError_t gr__cuda_event_create(const char *call, int device, unsigned flags, grEvent_t *out)
{
    unsigned cuflags = CU_EVENT_DEFAULT;
    if (flags & grEventBlockingSync)
        cuflags |= CU_EVENT_BLOCKING_SYNC;
    if (flags & grEventDisableTiming)
        cuflags |= CU_EVENT_DISABLE_TIMING;
    struct gr_dev_event *g = gr__calloc(1, sizeof *g);
    if (!g)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventCreate(&g->cu, cuflags);
    if (r != CUDA_SUCCESS) {
        gr__free(g);
        return gr__cu_fail(call, device, "cuEventCreate", r);
    }
    grEvent_t e = gr__event_create(flags);
    if (!e) {
        gr_cu.cuEventDestroy(g->cu);
        gr__free(g);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    e->device = device;
    e->gpu = g;
    *out = e;
    return grSuccess;
}

void gr__cuda_event_free(struct gr_dev_event *g)
{
    gr_cu.cuEventDestroy(g->cu);
    gr__free(g);
}

grError_t gr__cuda_event_record(const char *call, grEvent_t e, gr_stream *s)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventRecord(e->gpu->cu, s->gpu->cu);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, s->device, "cuEventRecord", r);
    /* As on the CPU: a capture that waits on it now waits on work outside
     * it (isolation), and a mark of an earlier captured record is stale. */
    gr__spin_lock(&e->lock);
    e->recorded = true;
    e->gen++;
    gr__spin_unlock(&e->lock);
    return grSuccess;
}

grError_t gr__cuda_event_query(const char *call, grEvent_t e)
{
    CUresult r = gr__cuda_enter(e->device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventQuery(e->gpu->cu);
    if (r == CUDA_ERROR_NOT_READY)
        return grErrorNotReady;
    return r ? gr__cu_fail(call, e->device, "cuEventQuery", r) : grSuccess;
}

grError_t gr__cuda_event_sync(const char *call, grEvent_t e)
{
    CUresult r = gr__cuda_enter(e->device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventSynchronize(e->gpu->cu);
    return r ? gr__cu_fail(call, e->device, "cuEventSynchronize", r) : grSuccess;
}

grError_t gr__cuda_event_elapsed(const char *call, float *ms, grEvent_t start, grEvent_t end)
{
    CUresult r = gr__cuda_enter(start->device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventElapsedTime(ms, start->gpu->cu, end->gpu->cu);
    if (r == CUDA_ERROR_NOT_READY)
        return gr__fail(grErrorNotReady,
                        "%s: the work before the latest record of the start or end event has not completed "
                        "yet (cuEventElapsedTime: CUDA_ERROR_NOT_READY); wait for it (grEventSynchronize) "
                        "before asking for the time",
                        call);
    return r ? gr__cu_fail(call, start->device, "cuEventElapsedTime", r) : grSuccess;
}

grError_t gr__cuda_stream_wait_event(const char *call, gr_stream *s, grEvent_t e)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamWaitEvent(s->gpu->cu, e->gpu->cu, 0);
    return r ? gr__cu_fail(call, s->device, "cuStreamWaitEvent", r) : grSuccess;
}
