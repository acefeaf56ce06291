/*
 * event.c - GPU events: an event header (backend.h) with a CUevent, whose
 * records, queries, waits and times are the driver's (cuEventRecord and
 * friends); its capture mark works as on the CPU.
 */
#include "cuda_int.h"

grError_t gr__cuda_event_create(const char *call, int device, unsigned flags, grEvent_t *out)
{
    unsigned cuflags = CU_EVENT_DEFAULT;
    if (flags & grEventBlockingSync)
        cuflags |= CU_EVENT_BLOCKING_SYNC;
    if (flags & grEventDisableTiming)
        cuflags |= CU_EVENT_DISABLE_TIMING;
    CUevent cu = NULL;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventCreate(&cu, cuflags);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuEventCreate", r);
    grEvent_t e = gr__event_new_dev(sizeof(struct gr_cuda_event), flags, device);
    if (!e) {
        gr_cu.cuEventDestroy(cu);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    gr__cuda_event(e)->cu = cu;
    *out = e;
    return grSuccess;
}

void gr__cuda_event_free(grEvent_t e)
{
    gr_cu.cuEventDestroy(gr__cuda_event(e)->cu);
}

grError_t gr__cuda_event_record(const char *call, grEvent_t e, gr_stream *s)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventRecord(gr__cuda_event(e)->cu, gr__cuda_stream(s)->cu);
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
        r = gr_cu.cuEventQuery(gr__cuda_event(e)->cu);
    if (r == CUDA_ERROR_NOT_READY)
        return grErrorNotReady;
    return r ? gr__cu_fail(call, e->device, "cuEventQuery", r) : grSuccess;
}

grError_t gr__cuda_event_sync(const char *call, grEvent_t e)
{
    CUresult r = gr__cuda_enter(e->device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventSynchronize(gr__cuda_event(e)->cu);
    return r ? gr__cu_fail(call, e->device, "cuEventSynchronize", r) : grSuccess;
}

grError_t gr__cuda_event_elapsed(const char *call, float *ms, grEvent_t start, grEvent_t end)
{
    CUresult r = gr__cuda_enter(start->device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuEventElapsedTime(ms, gr__cuda_event(start)->cu, gr__cuda_event(end)->cu);
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
        r = gr_cu.cuStreamWaitEvent(gr__cuda_stream(s)->cu, gr__cuda_event(e)->cu, 0);
    return r ? gr__cu_fail(call, s->device, "cuStreamWaitEvent", r) : grSuccess;
}
