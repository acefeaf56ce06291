/*
 * cuda_int.h - what the CUDA backend's files share: the per-GPU state,
 * the GPU streams and events (each embedding the object header of
 * backend.h) and the GPU part of kernels. Private to the backend.
 */
#ifndef GR_CUDA_INT_H
#define GR_CUDA_INT_H

#include "cu_driver.h"
#include "cuda.h"

#include <pthread.h>

/* One GPU (graphrt device i + 1 is gr__gpus[i]). */
typedef struct gr_gpu {
    CUdevice dev;
    pthread_mutex_t lock;      /* guards the lazy fields below */
    CUcontext _Atomic ctx;     /* the primary context, once retained */
    gr_stream *_Atomic legacy; /* the legacy default stream's object */
} gr_gpu;

extern gr_gpu gr__gpus[GR_MAX_GPUS];

/* A GPU stream: the header every device's stream starts with
 * (backend.h), then the driver's stream; allocated by gr__stream_new_dev. */
struct gr_cuda_stream {
    gr_stream h;
    CUstream cu;
    bool owned; /* created by graphrt (not CU_STREAM_LEGACY / _PER_THREAD) */
};
_Static_assert(sizeof(struct gr_cuda_stream) <= sizeof(gr_stream) + GR_DEV_STREAM_MAX,
               "a GPU stream fits a device stream's shell");

/* The GPU stream s is (a cast): s must be of a GPU. */
static inline struct gr_cuda_stream *gr__cuda_stream(gr_stream *s)
{
    gr_assert(s->device > 0);
    return (struct gr_cuda_stream *)(void *)s;
}

/* A GPU event: the header every device's event starts with (backend.h),
 * then the driver's event; allocated by gr__event_new_dev. */
struct gr_cuda_event {
    struct grEvent_st h;
    CUevent cu;
};
_Static_assert(sizeof(struct gr_cuda_event) <= sizeof(struct grEvent_st) + GR_DEV_EVENT_MAX,
               "a GPU event fits a device event's shell");

/* The GPU event e is (a cast): e must be of a GPU. */
static inline struct gr_cuda_event *gr__cuda_event(grEvent_t e)
{
    gr_assert(e->device > 0);
    return (struct gr_cuda_event *)(void *)e;
}

/* A kernel's image and, per device, its module and function once loaded. */
struct gr_dev_kernel {
    const void *image;
    char *entry;
    pthread_mutex_t lock; /* guards loading */
    CUmodule mod[GR_MAX_GPUS];
    CUfunction _Atomic fn[GR_MAX_GPUS];
};

/* The device a GPU stream or event belongs to, entered: its context made
 * current. Returns the CUresult. */
static inline int gr__cuda_enter_stream(const gr_stream *s)
{
    return gr__cuda_enter(s->device);
}

/* k's function on GPU 'device', loading the module there on first use;
 * grErrorInvalidDeviceFunction with a detail naming the kernel when it
 * has no image. */
grError_t gr__cuda_kernel_function(const char *call, grKernel_t k, int device, CUfunction *out);

/* The most attributes gr__cuda_launch_attrs gives the driver: one per
 * grLaunchAttributeID it passes on. */
#define GR_CU_LAUNCH_ATTRS 17

/* The attributes of attrs[0..n) (checked) that the driver is given for a
 * launch or a kernel node, into out (GR_CU_LAUNCH_ATTRS entries), one per
 * ID, the last entry of an ID deciding; returns how many. Left out: the
 * ignored entry, the programmatic and launch-completion events (graphrt
 * records them after the kernel: docs/launch-attributes.md). A launch
 * refuses a device-updatable node before (graph/attrs.c); a kernel node
 * gets it. */
unsigned gr__cuda_launch_attrs(const grLaunchAttribute *attrs, unsigned n, CUlaunchAttribute *out);

/* The primary context of GPU 'device', once gr__cuda_enter succeeded. */
static inline CUcontext gr__cuda_context(int device)
{
    return gr_load_acquire(&gr__gpus[device - 1].ctx);
}

/* A host-side pointer as the driver's device address (unified
 * addressing: the same bits). */
static inline CUdeviceptr gr__cu_ptr(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

/* Operations converted on the stack up to this many (a batch of one is
 * the usual call), else in a heap block. */
#if GR_KNOBS_SMALL
#define GR_CU_MEMOPS_INLINE 1u /* a batch of two converts in a heap block */
#else
#define GR_CU_MEMOPS_INLINE 8u
#endif

/* count checked operations in the driver's form (memop.c), as
 * cuStreamBatchMemOp and the batch memory operation nodes take them: inl
 * (GR_CU_MEMOPS_INLINE elements) where they fit, else a heap block, which
 * the caller frees when the result is not inl; NULL when out of memory. */
CUstreamBatchMemOpParams *gr__cuda_memops_convert(const grStreamBatchMemOpParams *ops, unsigned count,
                                                  CUstreamBatchMemOpParams *inl);

#endif /* GR_CUDA_INT_H */
