/*
 * backend.h - the CPU device's cross-file API: the runtime context and its
 * workers, streams and the operations queued on them, events, kernels;
 * and the headers of the stream and event objects every device's own
 * struct starts with, and the kernel object every device shares (a device
 * kind's part of a kernel hangs off 'gpu': device.h).
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

/* A 1D copy, as graph nodes and plans hold it. */
typedef struct gr_memcpy_params {
    void *dst;
    const void *src;
    size_t count;
    grMemcpyKind kind;
} gr_memcpy_params;

/* The layout of a copy whose rows are not one contiguous range on both
 * sides (a 2D or 3D copy), kept out of line by graph and plan nodes so
 * that 1D copies pay nothing for it: width bytes per row, height rows per
 * slice, depth slices; on each side rows 'pitch' bytes apart, slices
 * 'slice' bytes apart and 'rows' rows per slice as the driver counts them
 * (CUDA_MEMCPY3D's dstHeight / srcHeight). The first byte of each side is
 * the gr_memcpy_params' dst / src. */
typedef struct gr_copy_shape {
    size_t width, height, depth;
    size_t dpitch, dslice, drows;
    size_t spitch, sslice, srows;
} gr_copy_shape;

/* ------------------------------------------------------- upward seams */

/* Captures in progress in the process (any mode), counted by the capture
 * layer, read by every entry point that must divert to it. */
extern atomic_int gr__captures_active;

static inline bool gr__capture_any(void)
{
    return gr_load_relaxed(&gr__captures_active) != 0;
}

struct grGraphNodeParams;

/* What the memory layer's stream-ordered allocation (grMallocAsync,
 * grFreeAsync) asks of the capture layer, which registers these at its
 * first capture (capture/capture.c); called only while captures exist,
 * so never NULL then. See seams.c. */
typedef struct gr_capture_hooks {
    grError_t (*record)(const char *call, gr_stream *s, const struct grGraphNodeParams *desc);
    grError_t (*check_implicit_slow)(const char *call, gr_stream *s);
} gr_capture_hooks;
extern gr_capture_hooks gr__capture_hooks;

/* ----------------------------------------------------------------- device */

/* Starts the CPU device (its worker threads) on first use; false if it
 * could not start (out of memory or threads). Every entry point that may
 * be the process's first graphrt call asks this, or a function that does. */
bool gr__device_start(void);

/* grDeviceReset's part of the backend: if the device runs, waits for all
 * work, then stops the workers and frees streams and the runtime (a later
 * call starts it again). */
void gr__device_stop(void);

/* ---------------------------------------------------------------- kernels */

struct gr_dev_kernel;

/* A registered kernel. Immutable after creation except 'refs' and 'gpu'
 * (set once, by grKernelSetImage). */
struct grKernel_st {
    uint32_t magic; /* GR_MAGIC_KERNEL; GR_MAGIC_DEAD once destroyed */
    grKernelFn fn;
    char *name;
    int nparams;
    uint32_t argbytes; /* size of the packed argument buffer */
    uint32_t *offsets; /* offset of each parameter in that buffer */
    uint32_t *sizes;   /* size of each parameter */
    /* The GPU image and its per-device functions (the device kind's, device.h), NULL until
     * attached; read with acquire order (attached while others may look). */
    struct gr_dev_kernel *_Atomic gpu;
    /* graphrt_kernel.h's per-function data (name, fiber stack size) of a
     * kernel that runs its threads as fibers; set once, by the
     * registration GR_KERNEL_SYNC generates, before any launch. */
    struct grKernelInfo *kinfo;
    /* grFuncSetAttribute's MaxDynamicSharedMemorySize and
     * PreferredSharedMemoryCarveout, which grFuncGetAttributes reports;
     * relaxed atomics (set while others may read). */
    atomic_int max_dyn_smem, carveout;
    /* 1 for the handle + 1 per graph node, plan and stream cache holding
     * it; in a line of its own so that its changes do not slow down the
     * launch checks reading the fields above. */
    GR_ALIGNED_CL atomic_int refs;
};

/* The largest per-block dynamic shared memory of a kernel that did not opt
 * in, as CUDA's default (48 KiB). */
#define GR_MAX_SHARED_MEM (48u * 1024u)
/* The CPU device's sharedMemPerBlockOptin: the most a kernel may opt in to
 * with grFuncSetAttribute's MaxDynamicSharedMemorySize, an H100's 227 KiB,
 * so that code tuned for one runs unchanged; a block's scratch on the CPU
 * is this large. */
#define GR_MAX_SHARED_MEM_OPTIN (227u * 1024u)

/* Everything needed to run one launch: the kernel, the geometry and
 * pointers to the argument values. */
typedef struct gr_kernel_call {
    grKernel_t kernel;
    grDim3 grid, block;
    uint32_t shmem;
    void **argv; /* argv[i] = pointer to value of parameter i */
    bool coop;   /* a cooperative launch: every block co-resident (coop.c) */
    /* The executable whose launch runs it (grKernelCtx.exec), NULL for a
     * stream's launch. */
    grGraphExec_t exec;
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

/* A kernel object for grKernelCreate's (checked) arguments, with one
 * reference (the handle's), or NULL when out of memory. */
grKernel_t gr__kernel_new(grKernelFn fn, const char *name, int nparams, const size_t *sizes);

/* Records a fault of a kernel run on the CPU (fiber.c: a divergent
 * barrier, a deadlocked block): the device's first one sticks, with its
 * sentence, until grDeviceReset, as CUDA's kernel faults stick to the
 * context. Any thread. */
void gr__kernel_fault(grError_t err, const char *detail);

/* The device's kernel fault, reported as the error of 'call' (its detail
 * naming the kernel, block and threads); grSuccess if none. One load on
 * the common path. */
grError_t gr__kernel_fault_check(const char *call);

/* Kills the handle and drops its reference. */
void gr__kernel_kill(grKernel_t k);

void gr__kernel_retain(grKernel_t k);
void gr__kernel_release(grKernel_t k);
/* n references at once (plans: one per node, taken and dropped together). */
void gr__kernel_retain_n(grKernel_t k, int n);
void gr__kernel_release_n(grKernel_t k, int n);

/* Attaches a device kind's part g (its image) to k, once: fails with
 * grErrorInvalidValue and a detail naming 'call' when k has one already
 * (the caller then frees g). */
grError_t gr__kernel_attach(const char *call, grKernel_t k, struct gr_dev_kernel *g);

/* ------------------------------------------------------------------ names */

/* The registry of names (names.c): kernels by their name, host functions
 * registered by name, so that graph files can name them. */
typedef enum gr_name_result {
    GR_NAME_OK = 0,
    GR_NAME_TAKEN,    /* the name is registered already */
    GR_NAME_FN_TAKEN, /* the host function is registered under another name */
    GR_NAME_NOMEM
} gr_name_result;

/* Registers a new kernel under its name (unique among registered ones). */
gr_name_result gr__kernel_register(grKernel_t k);

/* Takes k off the registry; false if it was not on it (a graph file's
 * stand-in kernel, which no handle owns). */
bool gr__kernel_unregister(grKernel_t k);

/* The registered kernel named 'name', retained (the caller releases it),
 * or NULL. */
grKernel_t gr__kernel_find(const char *name);

/* Registers host function fn under 'name' with the userData a loaded
 * node gets where its saved node had that same userData. */
gr_name_result gr__hostfn_register(grHostFn_t fn, const char *name, void *user_data);

/* Takes fn off the registry; false if it was not on it. */
bool gr__hostfn_unregister(grHostFn_t fn);

/* The function registered as 'name' and its userData: false if none. */
bool gr__hostfn_find(const char *name, grHostFn_t *fn, void **user_data);

/* The name fn is registered under, copied into buf when it fits cap
 * (with its NUL), and its registered userData: returns the name's length,
 * 0 if fn is not registered. */
size_t gr__hostfn_name(grHostFn_t fn, char *buf, size_t cap, void **user_data);

/* Per-block shared-memory scratch of the calling thread (NULL for 0). */
void *gr__kernel_scratch(uint32_t bytes);

/* Runs every block of the call, in the calling thread (one block) or
 * spread over the workers (many blocks); returns when all have run. A
 * cooperative call goes to gr__kernel_run_coop. */
void gr__kernel_run(const gr_kernel_call *c);

/* The most blocks a cooperative launch may have on the CPU device: the
 * blocks per multiprocessor that can be active at once (1: a worker runs
 * one block at a time) times the multiprocessors (the workers), as
 * grOccupancyMaxActiveBlocksPerMultiprocessor and
 * grDevAttrMultiProcessorCount report them. */
unsigned gr__coop_max_blocks(void);

/* Fails with grErrorCooperativeLaunchTooLarge, a detail naming 'call'
 * and the kernel, when a cooperative grid is larger than
 * gr__coop_max_blocks(). */
grError_t gr__kernel_check_coop(const char *call, grKernel_t kernel, const grDim3 *grid);

/* Runs a cooperative launch (checked: at most gr__coop_max_blocks blocks)
 * with every block co-resident: each block on a thread of its own, the
 * calling thread running the first, so that gr_grid_sync may wait for
 * all of them; returns when all have run. A failure to start the threads
 * is a kernel fault (grErrorLaunchOutOfResources, sticky). */
void gr__kernel_run_coop(const gr_kernel_call *c);

/* The grid barrier of the calling thread's block (fiber.c's gr_grid_sync,
 * called by the block's last thread to arrive while the others wait):
 * 0 once every block of the grid has arrived; 1 if the calling thread
 * runs no cooperative launch's block; 2 if the barrier can no longer
 * complete (a block of the grid has ended: it returned without reaching
 * it, or faulted). */
int gr__coop_grid_wait(void);

/* True while the calling thread runs a block of a cooperative launch. */
bool gr__coop_active(void);

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

/* True if h is a created stream whose handle is live (then it is the
 * gr_stream itself): its magic (the first member of gr_stream) dies with
 * the handle, and with the runtime at grDeviceReset, so a live one
 * implies a running runtime. Reports nothing. */
static inline bool gr__stream_handle_live(grStream_t h)
{
    return h != NULL && h != grStreamLegacy && h != grStreamPerThread &&
           *(const uint32_t *)(const void *)h == GR_MAGIC_STREAM;
}

static inline grError_t gr__stream_from_handle(const char *call, grStream_t h, gr_stream **out)
{
    /* The common case inline; everything else, every refusal included,
     * is the slow path's. */
    if (GR_LIKELY(gr__stream_handle_live(h))) {
        *out = (gr_stream *)(void *)h;
        return grSuccess;
    }
    return gr__stream_from_handle_slow(call, h, out);
}

/* Queues fn(copy of data) on the stream in stream order. size <=
 * GR_OP_DATA_MAX. Fails only when the stream is capturing (the capture
 * module records or refuses the work), with a detail naming 'call'. */
grError_t gr__stream_enqueue_call(const char *call, gr_stream *s, gr_op_fn fn, const void *data, size_t size);

/* Runs one stream memory operation, checked already (cpu/memop.c), on
 * the calling thread: a write stores its word atomically (seq_cst) and
 * wakes the waits that sleep; a wait returns once its word meets the
 * condition, running other work meanwhile when the thread holds a worker;
 * a barrier is a seq_cst fence. */
void gr__memop_run(const grStreamBatchMemOpParams *op);
/* gr__memop_run; with 'help' false a wait runs no other work meanwhile. */
void gr__memop_run_ex(const grStreamBatchMemOpParams *op, bool help);

/* Waits for all work queued on s so far, helping to run it. Returns the
 * stream's sticky error, if any. */
grError_t gr__stream_sync(gr_stream *s);

/* What a launch on s returns ('err': what queuing it returned): under
 * grDebugLaunchBlocking, a launch queued waits for s to pass it and
 * returns s's sticky error (gr__stream_sync), so that the error surfaces
 * at the call that caused it. Otherwise a load and a branch. */
/* Waits for s, of any device (device.c): gr__stream_sync on the
 * CPU, the driver's stream synchronisation on a GPU. */
grError_t gr__stream_sync_any(gr_stream *s);

static inline grError_t gr__launched(gr_stream *s, grError_t err)
{
    if (GR_UNLIKELY(gr__dbg_flags() & GR_DBG_BLOCKING) && err == grSuccess)
        return gr__stream_sync_any(s);
    return err;
}

/* Whether launches block (grDebugLaunchBlocking): for the hot launch
 * paths, which test it before their enqueue so that the enqueue stays
 * their tail, and take a path of their own when it holds. */
static inline bool gr__launch_blocking(void)
{
    return GR_UNLIKELY(gr__dbg_flags() & GR_DBG_BLOCKING);
}

/* A created stream (grStreamCreateWithFlags' checked flags): fails with
 * grErrorInitializationError (the device could not start) or
 * grErrorMemoryAllocation, setting no detail (the caller does). */
grError_t gr__stream_create(unsigned user_flags, gr_stream **out);

/* The CPU device's stream priorities, [GR_CPU_PRIORITY_GREATEST,
 * GR_CPU_PRIORITY_LEAST] = [-5, 0]: the range CUDA reports on current
 * GPUs, a lower number meaning a higher priority; values outside it are
 * clamped into it, as CUDA clamps them. */
#define GR_CPU_PRIORITY_LEAST 0
#define GR_CPU_PRIORITY_GREATEST (-5)
static inline int gr__cpu_stream_priority_clamp(int p)
{
    return p > GR_CPU_PRIORITY_LEAST      ? GR_CPU_PRIORITY_LEAST
           : p < GR_CPU_PRIORITY_GREATEST ? GR_CPU_PRIORITY_GREATEST
                                          : p;
}

/* Kills a created stream's handle; the stream lives on until its queued
 * work has run. */
void gr__stream_destroy(gr_stream *s);

/* True when every op queued on s so far has completed, and for the
 * legacy stream every op of the blocking streams too. */
bool gr__stream_idle(gr_stream *s);

/* True while a blocking stream (created without grStreamNonBlocking, the
 * per-thread default stream included) has work queued or running. */
bool gr__stream_blocking_pending(void);

/* Waits for all work on all streams. */
void gr__device_sync_all(void);

/* The number of worker threads. */
unsigned gr__worker_count(void);

/* Index of the calling thread for grKernelCtx.worker: 0 for threads that
 * are not workers, 1..N for workers. */
unsigned gr__worker_index(void);

/* ------------------------------------------------- streams: the object */

enum {
    GR_STREAM_NONBLOCKING = 1u << 0,
    GR_STREAM_LEGACY = 1u << 1,
    GR_STREAM_PER_THREAD = 1u << 2
};

/* The header every device's stream starts with (libuv's
 * UV_HANDLE_FIELDS): what the layers above the backend and every device
 * read. The rest of a stream is its device's: the CPU's queue
 * (struct gr_cpu_stream, cpu/stream_int.h; device 0), a device kind's
 * driver stream (device >= 1; the kind's own struct, which embeds this
 * one first and is allocated by gr__stream_new_dev). Nothing outside a
 * device's code looks past the header. */
struct gr_stream {
    uint32_t magic;      /* GR_MAGIC_STREAM; first (backend.h reads it) */
    unsigned flags;      /* GR_STREAM_*, immutable */
    uint64_t serial;     /* unique for the process, immutable */
    unsigned user_flags; /* as given to grStreamCreateWithFlags */
    atomic_int refs;
    /* The device, immutable: 0 for the CPU, 1..N for a device kind's
     * stream (device.h). In the first cache line, beside 'capture': every
     * eager enqueue tests capture, then the device. */
    int device;
    bool handle_dead; /* the handle's reference was dropped */
    /* Capture seam: non-NULL while the stream is being captured; every
     * enqueue path tests it before queuing work. */
    void *_Atomic capture;

    /* The priority (clamped to the device's range) and the attributes of
     * grStreamSetAttribute, under 'alock': read back, and given to the
     * kernel nodes a capture records from the stream (api/stream.c). The
     * priority is also read without the lock (relaxed), by each captured
     * launch (capture/record.c) and by a re-capture comparing each launch
     * with its node (capture/recapture.c). */
    gr_spinlock alock;
    _Atomic int priority;
    grAccessPolicyWindow apw;
    grSynchronizationPolicy sync_policy; /* 0: never set, reads as Auto */
    grLaunchMemSyncDomainMap domain_map;
    bool domain_map_set; /* else the map reads as CUDA's default */
    grLaunchMemSyncDomain domain;
    unsigned nvlink_sched;
};

void gr__stream_retain(gr_stream *s);
void gr__stream_release(gr_stream *s);

/* The largest device part a kind's stream object may add to the header
 * (its struct is at most sizeof(gr_stream) + GR_DEV_STREAM_MAX bytes). */
#define GR_DEV_STREAM_MAX 64

/* A stream object of device 'device' (>= 1), 'size' bytes (the kind's
 * struct, which starts with the header): the header set as a CPU
 * stream's (GR_STREAM_* flags, one reference: the handle's), the rest
 * zero, for the kind to fill. Its last reference calls the kind's
 * stream_free, then gives the memory back (a dead shell, as every
 * stream's). NULL when out of memory. */
gr_stream *gr__stream_new_dev(size_t size, unsigned flags, unsigned user_flags, int device);

/* Sets the header of a new stream object (memory zeroed by the caller):
 * magic, a fresh serial, flags, one reference. backend/stream.c, for the
 * CPU's and the kinds' constructors. */
void gr__stream_header_init(gr_stream *s, unsigned flags, unsigned user_flags, int device);

/* True while s is a member of a capture (the capture layer sets and
 * clears s->capture): every entry point that queues work tests it first. */
static inline bool gr__stream_capturing(gr_stream *s)
{
    return gr_load_acquire(&s->capture) != NULL;
}

/* How many of t's ops s's future work is known to follow (0 if none),
 * through stream order (s == t: all published), completion, or event
 * waits queued on s. Takes s's lock. */
uint64_t gr__stream_known(gr_stream *s, gr_stream *t);

/* The part of gr__stream_known that comes from event waits queued on s
 * (not t's completion). Takes s's lock. */
uint64_t gr__stream_known_by_waits(gr_stream *s, gr_stream *t);

/* The legacy default stream (starting the device), or NULL if the device
 * could not start. */
gr_stream *gr__stream_legacy(void);

/* Queues on s a WAIT op for t's first 'seq' ops (nothing if already
 * ordered). Returns false, queuing nothing, when out of memory. s must not
 * be capturing. Memory pools use it for their internal dependencies. */
bool gr__stream_enqueue_wait(gr_stream *s, gr_stream *t, uint64_t seq);

/* Waits until s has completed 'seq' ops: drains s itself when it can,
 * helps with other work, and finally sleeps. The _ex form without 'help'
 * runs only s's ops up to seq, no other work: the wait of a plan whose
 * waits run alone (plan.h, 'waits_alone'). */
void gr__stream_wait_for(gr_stream *s, uint64_t seq);
void gr__stream_wait_for_ex(gr_stream *s, uint64_t seq, bool help);

/* -------------------------------------------------- events: the object */

/* The header every device's event starts with, as a stream's: what the
 * layers above the backend and every device read. The rest is the
 * device's: the CPU's latest record (struct gr_cpu_event, cpu/event.h),
 * a device kind's driver event (its own struct, allocated by
 * gr__event_new_dev). 'gen' counts records (of any device); the capture
 * layer compares it with the generation a capture saw. */
struct grEvent_st {
    uint32_t magic;   /* GR_MAGIC_EVENT */
    unsigned flags;   /* grEvent* flags, immutable */
    atomic_int refs;  /* handle + ops and graph nodes naming it */
    gr_spinlock lock; /* guards every field below but 'device' */
    bool recorded;    /* recorded outside a capture at least once (any device) */
    uint64_t gen;
    /* Capture seam: set while the latest record is part of a capture. */
    void *capture;
    /* The device the event was created on (0: the CPU); immutable. */
    int device;
};

/* The largest device part a kind's event object may add to the header. */
#define GR_DEV_EVENT_MAX 64

/* An event object of device 'device' (>= 1), 'size' bytes (the kind's
 * struct, which starts with the header): the header set (grEvent* flags,
 * one reference: the handle's), the rest zero. Its last reference calls
 * the kind's event_free, then gives the memory back (a dead shell). NULL
 * when out of memory. */
grEvent_t gr__event_new_dev(size_t size, unsigned flags, int device);

/* Reads the latest record of CPU event e: *s retained (or NULL if never
 * recorded). */
void gr__event_latest(grEvent_t e, gr_stream **s, uint64_t *seq);

/* A new CPU event of grEvent* flags (checked), or NULL when out of memory. */
grEvent_t gr__event_create(unsigned flags);

/* Kills the handle; the object lives on while records name it. */
void gr__event_destroy(grEvent_t e);

/* True once the work before e's latest record has completed (or e was
 * never recorded). */
bool gr__event_done(grEvent_t e);

/* Waits for the work before e's latest record, helping to run it; returns
 * the sticky error of the record's stream (not recorded as the thread's
 * last error: the caller does that). */
grError_t gr__event_wait(grEvent_t e);

/* The time of e's latest record, in ns: grErrorInvalidResourceHandle for
 * an event without timing or never recorded, grErrorNotReady while the
 * record is pending, each with a detail naming 'call' and 'which' event. */
grError_t gr__event_time(const char *call, const char *which, grEvent_t e, uint64_t *t);

/* Makes s's later work wait for e's latest record (nothing if there is
 * none or it has completed); fails only when out of memory. s is not
 * capturing. */
grError_t gr__stream_wait_event(const char *call, gr_stream *s, grEvent_t e);

/* ----------------------------------------------------------------- events */

/* True if e is a live event handle. */
bool gr__event_valid(grEvent_t e);
/* Events are refcounted: graph nodes and queued operations that name an
 * event keep it alive after grEventDestroy. */
void gr__event_retain(grEvent_t e);
void gr__event_release(grEvent_t e);

/* Short name of a node type ("kernel", "memcpy", ...), for detail
 * sentences of every layer (backend/names.c). */
const char *gr__node_type_name(grGraphNodeType t);

#endif /* GR_RUNTIME_H */
