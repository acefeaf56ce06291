/*
 * runtime.h - the CPU device's cross-file API: the runtime context and its
 * workers, streams and the operations queued on them, events, kernels.
 *
 * Other areas use only what is declared here:
 *   - gr__runtime_get() starts the runtime on first use;
 *   - gr__stream_from_handle() turns a public grStream_t (NULL, legacy,
 *     per-thread or created) into a live stream or fails with a detail;
 *   - gr__stream_enqueue_call() queues a small C callback with a copied
 *     payload in stream order (memcpy, memset, pool bookkeeping use it);
 *   - gr__stream_sync() waits for a stream, running its work meanwhile;
 *   - gr__kernel_* validate launches, copy argument values and run blocks.
 */
#ifndef GR_RUNTIME_H
#define GR_RUNTIME_H

#include "../core/core.h"

#include <string.h>

typedef struct gr_stream gr_stream;
typedef struct gr_worker gr_worker;
typedef struct gr_runtime gr_runtime;

/* ---------------------------------------------------------------- kernels */

/* A registered kernel. Immutable after creation except 'refs'. */
struct grKernel_st {
    uint32_t magic; /* GR_MAGIC_KERNEL; GR_MAGIC_DEAD once destroyed */
    grKernelFn fn;
    char *name;
    int nparams;
    uint32_t argbytes; /* size of the packed argument buffer */
    uint32_t *offsets; /* offset of each parameter in that buffer */
    uint32_t *sizes;   /* size of each parameter */
    /* 1 for the handle + 1 per graph node, plan and stream cache holding
     * it; in a line of its own so that its changes do not slow down the
     * launch checks reading the fields above. */
    GR_ALIGNED_CL atomic_int refs;
};

/* The largest per-block shared memory, as CUDA's default (48 KiB). */
#define GR_MAX_SHARED_MEM (48u * 1024u)

/* Everything needed to run one launch: the kernel, the geometry and
 * pointers to the argument values. */
typedef struct gr_kernel_call {
    grKernel_t kernel;
    grDim3 grid, block;
    uint32_t shmem;
    void **argv; /* argv[i] = pointer to value of parameter i */
} gr_kernel_call;

/* Copies the argument VALUES of args into buf (k->argbytes bytes) and
 * points argv[i] at them (argv may be NULL). Inline, with the usual
 * sizes as fixed-size copies: a call to memcpy per parameter costs as much
 * as the rest of an executable's set-params. */
static inline void gr__kernel_pack(grKernel_t k, void **args, void *buf, void **argv)
{
    unsigned char *b = buf;
    for (int i = 0; i < k->nparams; i++) {
        unsigned char *d = b + k->offsets[i];
        uint32_t n = k->sizes[i];
        if (n == 4)
            memcpy(d, args[i], 4);
        else if (n == 8)
            memcpy(d, args[i], 8);
        else
            memcpy(d, args[i], n);
        if (argv)
            argv[i] = d;
    }
}

/* Copies a packed argument block of 'bytes' bytes (k->argbytes, a multiple
 * of 16): one or two 16-byte units, the usual size, without a call. */
static inline void gr__kernel_args_copy(void *dst, const void *src, uint32_t bytes)
{
    if (bytes == 16)
        memcpy(dst, src, 16);
    else if (bytes == 32)
        memcpy(dst, src, 32);
    else
        memcpy(dst, src, bytes);
}

/* True if 'k' is a live kernel handle. */
static inline bool gr__kernel_valid(grKernel_t k)
{
    return k != NULL && k->magic == GR_MAGIC_KERNEL;
}

/* The checks of gr__kernel_check, with the detail of the first that
 * fails; grSuccess when none does. */
grError_t gr__kernel_check_slow(const char *call, grKernel_t k, const grDim3 *grid, const grDim3 *block,
                                size_t shmem, void **args);

/* Checks a launch as grLaunchKernel does; on failure returns the error
 * with a detail naming 'call' (the public function). The common case, a
 * valid launch, is tested here with one 4-byte load per dimension: the
 * dimensions come by address because callers read them from a
 * grKernelNodeParams the application has just written field by field, and
 * a grDim3 passed by value is loaded 8 bytes at a time, across two of
 * those stores, which defeats store-to-load forwarding (a stall of ~15
 * cycles). A failure takes the slow path, which names it. */
static inline grError_t gr__kernel_check(const char *call, grKernel_t k, const grDim3 *grid,
                                         const grDim3 *block, size_t shmem, void **args)
{
    /* block: each dimension >= 1, x and y <= 1024, z <= 64, at most 1024
     * threads; grid: each >= 1, x < 2^31, y and z <= 65535 (v - 1 wraps
     * for 0). */
    bool ok = gr__kernel_valid(k) && block->x - 1u < 1024u && block->y - 1u < 1024u && block->z - 1u < 64u &&
              (uint64_t)block->x * block->y * block->z <= 1024u && grid->x - 1u < 0x7fffffffu &&
              grid->y - 1u < 65535u && grid->z - 1u < 65535u && shmem <= GR_MAX_SHARED_MEM &&
              (k->nparams == 0 || args != NULL);
    /* Argument values on the caller's stack are readable host memory; any
     * other element is checked by the slow path (the kernelParams
     * mistake: a value where its address belongs). */
    for (int i = 0; ok && i < k->nparams; i++)
        ok = gr__on_own_stack(args[i], k->sizes[i]);
    if (GR_LIKELY(ok))
        return grSuccess;
    return gr__kernel_check_slow(call, k, grid, block, shmem, args);
}

void gr__kernel_retain(grKernel_t k);
void gr__kernel_release(grKernel_t k);
/* n references at once (plans: one per node, taken and dropped together). */
void gr__kernel_retain_n(grKernel_t k, int n);
void gr__kernel_release_n(grKernel_t k, int n);

/* Per-block shared-memory scratch of the calling thread (NULL for 0). */
void *gr__kernel_scratch(uint32_t bytes);

/* Runs every block of the call, in the calling thread (one block) or
 * spread over the workers (many blocks); returns when all have run. */
void gr__kernel_run(const gr_kernel_call *c);

/* ---------------------------------------------------------------- streams */

/* A stream operation's callback: 'data' is the payload copied at enqueue. */
typedef void (*gr_op_fn)(void *data);

/* The largest payload gr__stream_enqueue_call copies into the op itself. */
#define GR_OP_DATA_MAX 64

/* Resolves a public handle: NULL and grStreamLegacy give the legacy
 * stream, grStreamPerThread the calling thread's stream. Destroyed or
 * foreign handles fail with grErrorInvalidResourceHandle and a detail
 * naming 'call'. */
grError_t gr__stream_from_handle_slow(const char *call, grStream_t h, gr_stream **out);

static inline grError_t gr__stream_from_handle(const char *call, grStream_t h, gr_stream **out)
{
    /* The common case inline: a created stream whose handle is live. Its
     * magic (the first member of gr_stream) dies with the handle, and with
     * the runtime at grDeviceReset, so a live one implies a running
     * runtime. Everything else, every refusal included, is the slow
     * path's. */
    if (GR_LIKELY(h != NULL && h != grStreamLegacy && h != grStreamPerThread &&
                  *(const uint32_t *)(const void *)h == GR_MAGIC_STREAM)) {
        *out = (gr_stream *)(void *)h;
        return grSuccess;
    }
    return gr__stream_from_handle_slow(call, h, out);
}

/* Queues fn(copy of data) on the stream in stream order. size <=
 * GR_OP_DATA_MAX. Fails only when the stream is capturing (the capture
 * module records or refuses the work), with a detail naming 'call'. */
grError_t gr__stream_enqueue_call(const char *call, gr_stream *s, gr_op_fn fn, const void *data, size_t size);

/* Waits for all work queued on s so far, helping to run it. Returns the
 * stream's sticky error, if any. */
grError_t gr__stream_sync(gr_stream *s);

/* Waits for all work on all streams. */
void gr__device_sync_all(void);

/* The number of worker threads. */
unsigned gr__worker_count(void);

/* Index of the calling thread for grKernelCtx.worker: 0 for threads that
 * are not workers, 1..N for workers. */
unsigned gr__worker_index(void);

/* ----------------------------------------------------------------- events */

/* True if e is a live event handle. */
bool gr__event_valid(grEvent_t e);
/* Events are refcounted: graph nodes and queued operations that name an
 * event keep it alive after grEventDestroy. */
void gr__event_retain(grEvent_t e);
void gr__event_release(grEvent_t e);

#endif /* GR_RUNTIME_H */
