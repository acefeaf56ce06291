/*
 * stream.c - GPU streams: created ones (cuStreamCreateWithPriority), the legacy and
 * per-thread default streams of each GPU (graphrt stream objects wrapping
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD of the device's primary
 * context), their waits, queries and host functions.
 *
 * A per-thread default stream is an object per thread and device, so that
 * a capture of it (which graphrt keeps in the object) is the thread's own,
 * as CUDA's is; the thread's exit drops it.
 */
#include "cuda_int.h"

#include <stdlib.h>

/* A stream object around 'cu', which it owns when 'owned'. */
static grError_t wrap(const char *call, int device, CUstream cu, bool owned, unsigned flags,
                      unsigned user_flags, gr_stream **out)
{
    gr_stream *s = gr__stream_new_dev(sizeof(struct gr_cuda_stream), flags, user_flags, device);
    if (!s)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating a stream of device %d", call,
                        device);
    gr__cuda_stream(s)->cu = cu;
    gr__cuda_stream(s)->owned = owned;
    *out = s;
    return grSuccess;
}

grError_t gr__cuda_stream_create(const char *call, int device, unsigned user_flags, int priority,
                                 gr_stream **out)
{
    CUstream cu = NULL;
    int least = 0, greatest = 0;
    CUresult r = gr__cuda_enter(device);
    /* The driver clamps the priority too; graphrt keeps the clamped value
     * to report it (grStreamGetPriority). */
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuCtxGetStreamPriorityRange(&least, &greatest);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamCreateWithPriority(
            &cu, (user_flags & grStreamNonBlocking) ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT, priority);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuStreamCreateWithPriority", r);
    grError_t err = wrap(call, device, cu, true,
                         (user_flags & grStreamNonBlocking) ? GR_STREAM_NONBLOCKING : 0u, user_flags, out);
    if (err)
        gr_cu.cuStreamDestroy(cu);
    else
        (*out)->priority = priority > least ? least : priority < greatest ? greatest : priority;
    return err;
}

grError_t gr__cuda_stream_priority_range(const char *call, int device, int *least, int *greatest)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuCtxGetStreamPriorityRange(least, greatest);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuCtxGetStreamPriorityRange", r);
    return grSuccess;
}

void gr__cuda_stream_free(gr_stream *s)
{
    /* cuStreamDestroy returns at once; work queued still runs, as CUDA's
     * cudaStreamDestroy promises. */
    struct gr_cuda_stream *g = gr__cuda_stream(s);
    if (g->owned)
        gr_cu.cuStreamDestroy(g->cu);
}

/* ------------------------------------------------------- default streams */

static pthread_key_t pt_key;
static pthread_once_t pt_once = PTHREAD_ONCE_INIT;
static _Thread_local gr_stream **tls_per_thread; /* [GR_MAX_GPUS], or NULL */

static void pt_free(void *p)
{
    gr_stream **v = p;
    for (int i = 0; i < GR_MAX_GPUS; i++)
        if (v[i])
            gr__stream_destroy(v[i]);
    gr__free(v);
    tls_per_thread = NULL;
}

static void pt_key_init(void)
{
    pthread_key_create(&pt_key, pt_free);
}

static grError_t per_thread(const char *call, int device, gr_stream **out)
{
    gr_stream **v = tls_per_thread;
    if (GR_LIKELY(v && v[device - 1])) {
        *out = v[device - 1];
        return grSuccess;
    }
    if (!v) {
        pthread_once(&pt_once, pt_key_init);
        v = gr__calloc(GR_MAX_GPUS, sizeof *v);
        if (!v || pthread_setspecific(pt_key, v) != 0) {
            gr__free(v);
            return gr__fail(grErrorMemoryAllocation,
                            "%s: out of memory creating the per-thread default stream of device %d", call,
                            device);
        }
        tls_per_thread = v;
    }
    CUresult r = gr__cuda_enter(device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", r);
    grError_t err = wrap(call, device, GR_CU_STREAM_PER_THREAD, false, GR_STREAM_PER_THREAD, grStreamDefault,
                         &v[device - 1]);
    if (err)
        return err;
    *out = v[device - 1];
    return grSuccess;
}

grError_t gr__cuda_stream_default(const char *call, int device, bool per_thread_stream, gr_stream **out)
{
    if (per_thread_stream)
        return per_thread(call, device, out);
    gr_gpu *g = &gr__gpus[device - 1];
    gr_stream *s = gr_load_acquire(&g->legacy);
    if (GR_LIKELY(s)) {
        *out = s;
        return grSuccess;
    }
    CUresult r = gr__cuda_enter(device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", r);
    grError_t err = grSuccess;
    pthread_mutex_lock(&g->lock);
    s = gr_load_relaxed(&g->legacy);
    if (!s) {
        err = wrap(call, device, GR_CU_STREAM_LEGACY, false, GR_STREAM_LEGACY, grStreamDefault, &s);
        if (!err)
            gr_store_release(&g->legacy, s);
    }
    pthread_mutex_unlock(&g->lock);
    if (!err)
        *out = s;
    return err;
}

/* ------------------------------------------------------------------ work */

grError_t gr__cuda_stream_sync(const char *call, gr_stream *s)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamSynchronize(gr__cuda_stream(s)->cu);
    return r ? gr__cu_fail(call, s->device, "cuStreamSynchronize", r) : grSuccess;
}

grError_t gr__cuda_stream_query(const char *call, gr_stream *s)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamQuery(gr__cuda_stream(s)->cu);
    if (r == CUDA_ERROR_NOT_READY)
        return grErrorNotReady;
    return r ? gr__cu_fail(call, s->device, "cuStreamQuery", r) : grSuccess;
}

grError_t gr__cuda_host_func(const char *call, gr_stream *s, grHostFn_t fn, void *user)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuLaunchHostFunc(gr__cuda_stream(s)->cu, fn, user);
    return r ? gr__cu_fail(call, s->device, "cuLaunchHostFunc", r) : grSuccess;
}
