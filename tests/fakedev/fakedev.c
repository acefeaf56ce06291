/*
 * fakedev.c - the fake device (fakedev.h): a third device kind whose table
 * (src/backend/device.h) records each call and runs the work on the CPU.
 *
 * How it runs the work: a fake stream is a stream object of device d
 * whose device part holds a CPU stream (a created one for a created
 * stream; for the legacy and per-thread default streams the CPU's own,
 * looked up at each call, so that the CPU's implicit synchronisation of
 * the legacy stream with the blocking streams is the fake device's too).
 * Copies, memsets, kernels (their CPU function: a kernel runs here only
 * once an image is attached, as on a GPU), host functions and memory
 * operations are queued on that CPU stream. A fake event is an event of
 * device d with the CPU event's layout, recorded on those CPU streams. An
 * executable is the exec layer's CPU plan, launched on the stream's CPU
 * stream: what the
 * fake checks and records of it is what the device side of the exec
 * setters and of grGraphExecUpdate asks. Device memory is host memory,
 * pools hand out host memory and count it, and virtual memory is an
 * address range reserved with mmap and mapped onto memfd pages.
 *
 * What it cannot model: a real GPU's timing, its faults, memory the CPU
 * cannot reach, CUDA's own error names. The tests of those stay for the
 * GPU machine (gr_test_real_gpu_or_skip).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fakedev.h"

#include "../../src/backend/comm.h"
#include "../../src/backend/device.h"
#include "../../src/backend/enqueue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------------ knobs */

#define NCALLS 128

static struct {
    const char *op;
    atomic_uint n;
} calls[NCALLS];
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t knob_lock = PTHREAD_MUTEX_INITIALIZER;
static char fail_op[48];
static grError_t fail_err;
static unsigned fail_skip;
static _Atomic grError_t async_err;

static atomic_uint *counter(const char *op)
{
    pthread_mutex_lock(&calls_lock);
    int i;
    for (i = 0; i < NCALLS && calls[i].op; i++)
        if (strcmp(calls[i].op, op) == 0)
            break;
    if (i < NCALLS && !calls[i].op)
        calls[i].op = op;
    pthread_mutex_unlock(&calls_lock);
    return i < NCALLS ? &calls[i].n : NULL;
}

unsigned gr_fakedev_calls(const char *op)
{
    unsigned n = 0;
    pthread_mutex_lock(&calls_lock);
    for (int i = 0; i < NCALLS && calls[i].op; i++)
        if (strcmp(calls[i].op, op) == 0)
            n = atomic_load(&calls[i].n);
    pthread_mutex_unlock(&calls_lock);
    return n;
}

void gr_fakedev_reset_calls(void)
{
    pthread_mutex_lock(&calls_lock);
    for (int i = 0; i < NCALLS && calls[i].op; i++)
        atomic_store(&calls[i].n, 0);
    pthread_mutex_unlock(&calls_lock);
}

void gr_fakedev_fail(const char *op, grError_t err, unsigned skip)
{
    pthread_mutex_lock(&knob_lock);
    snprintf(fail_op, sizeof fail_op, "%s", op);
    fail_err = err;
    fail_skip = skip;
    pthread_mutex_unlock(&knob_lock);
}

void gr_fakedev_async_error(grError_t err)
{
    atomic_store(&async_err, err);
}

void gr_fakedev_clear(void)
{
    pthread_mutex_lock(&knob_lock);
    fail_op[0] = '\0';
    pthread_mutex_unlock(&knob_lock);
    atomic_store(&async_err, grSuccess);
}

/* Counts a call of 'op' and returns the failure injected for it, if any,
 * with its detail set. */
static grError_t enter(const char *call, const char *op)
{
    atomic_uint *c = counter(op);
    if (c)
        atomic_fetch_add(c, 1);
    grError_t err = grSuccess;
    pthread_mutex_lock(&knob_lock);
    if (fail_op[0] && strcmp(fail_op, op) == 0) {
        if (fail_skip)
            fail_skip--;
        else
            err = fail_err;
    }
    pthread_mutex_unlock(&knob_lock);
    if (err)
        return gr__fail(err, "%s: the fake device refuses %s (an injected failure)", call ? call : "graphrt",
                        op);
    return grSuccess;
}

#define ENTER(call, op)                         \
    do {                                        \
        grError_t enter_err_ = enter(call, op); \
        if (enter_err_)                         \
            return enter_err_;                  \
    } while (0)

/* The sticky asynchronous error, reported by every synchronisation. */
static grError_t async_check(const char *call, int device)
{
    grError_t err = atomic_load(&async_err);
    if (err)
        return gr__fail(err, "%s: device %d (the fake device) reports an asynchronous error of its work",
                        call, device);
    return grSuccess;
}

/* ---------------------------------------------------------------- devices */

static int ndev = -1;
static pthread_once_t count_once = PTHREAD_ONCE_INIT;

static void read_count(void)
{
    const char *v = getenv("GRAPHRT_FAKEDEV");
    ndev = 1;
    if (v && *v) {
        int n = atoi(v);
        ndev = n < 0 ? 0 : n > GR_MAX_GPUS ? GR_MAX_GPUS : n;
        if (n == 0 && strcmp(v, "0") != 0)
            ndev = 1;
    }
}

static int fake_count(void)
{
    pthread_once(&count_once, read_count);
    return ndev;
}

static const char *fake_absence(void)
{
    return fake_count() > 0 ? NULL : "the fake device is off (GRAPHRT_FAKEDEV=0)";
}

bool gr_fakedev_active(void)
{
    return gr__gpu_count() > 0 && strcmp(gr__devkind()->name, "fake") == 0;
}

#define FAKE_MEM (1ull << 30)
/* Its multiprocessors (grDevAttrMultiProcessorCount) and the dynamic
 * shared memory a block may have, which its occupancy answers use. */
#define FAKE_SMS 4
#define FAKE_SMEM (48 * 1024)
/* The most a kernel may opt in to: less than the CPU device's, so that a
 * value the CPU takes and this device's driver refuses can be tried. */
#define FAKE_SMEM_OPTIN (100 * 1024)

static grError_t fake_properties(const char *call, int device, grDeviceProp *p)
{
    ENTER(call, "properties");
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "graphrt fake device %d", device);
    p->totalGlobalMem = FAKE_MEM;
    p->multiProcessorCount = FAKE_SMS;
    p->major = 9;
    p->minor = 0;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = FAKE_SMEM_OPTIN;
    p->clockRate = 1000000;
    p->l2CacheSize = 1 << 20;
    p->maxThreadsPerMultiProcessor = 2048;
    p->concurrentKernels = 1;
    p->unifiedAddressing = 1;
    p->memoryPoolsSupported = 1;
    p->isCpu = 0;
    return grSuccess;
}

static grError_t fake_attribute(const char *call, int device, grDeviceAttr attr, int *value)
{
    grDeviceProp p;
    grError_t err = fake_properties(call, device, &p);
    if (err)
        return err;
    switch (attr) {
    case grDevAttrMaxThreadsPerBlock:
        *value = p.maxThreadsPerBlock;
        break;
    case grDevAttrMaxBlockDimX:
        *value = p.maxThreadsDim[0];
        break;
    case grDevAttrMaxBlockDimY:
        *value = p.maxThreadsDim[1];
        break;
    case grDevAttrMaxBlockDimZ:
        *value = p.maxThreadsDim[2];
        break;
    case grDevAttrMaxGridDimX:
        *value = p.maxGridSize[0];
        break;
    case grDevAttrMaxGridDimY:
        *value = p.maxGridSize[1];
        break;
    case grDevAttrMaxGridDimZ:
        *value = p.maxGridSize[2];
        break;
    case grDevAttrMaxSharedMemoryPerBlock:
        *value = (int)p.sharedMemPerBlock;
        break;
    case grDevAttrWarpSize:
        *value = p.warpSize;
        break;
    case grDevAttrMultiProcessorCount:
        *value = p.multiProcessorCount;
        break;
    case grDevAttrConcurrentKernels:
        *value = p.concurrentKernels;
        break;
    case grDevAttrMemoryPoolsSupported:
        *value = p.memoryPoolsSupported;
        break;
    case grDevAttrComputeCapabilityMajor:
        *value = p.major;
        break;
    case grDevAttrComputeCapabilityMinor:
        *value = p.minor;
        break;
    case grDevAttrMaxThreadsPerMultiProcessor:
        *value = p.maxThreadsPerMultiProcessor;
        break;
    case grDevAttrCooperativeLaunch:
        *value = 1; /* its launches run on the CPU device's runtime */
        break;
    case grDevAttrMaxSharedMemoryPerBlockOptin:
        *value = (int)p.sharedMemPerBlockOptin;
        break;
    default:
        return gr__fail(grErrorInvalidValue, "%s: attribute %d is not a grDeviceAttr", call, (int)attr);
    }
    return grSuccess;
}

static grError_t fake_device_sync(const char *call, int device)
{
    ENTER(call, "device_sync");
    gr__device_sync_all();
    return async_check(call, device);
}

static int fake_driver_version(void)
{
    return GR_CUDA_API_VERSION;
}

static atomic_ullong used_bytes;

static grError_t fake_device_init(const char *call, int device)
{
    (void)device;
    ENTER(call, "device_init");
    return grSuccess;
}

/* Every pair of fake devices can map each other's memory: there is
 * nothing to map. */
static grError_t fake_peer_access(const char *call, int device, int peer, int what, int *can)
{
    (void)device;
    (void)peer;
    ENTER(call, "peer_access");
    if (what == GR_PEER_QUERY)
        *can = 1;
    return grSuccess;
}

static grError_t fake_mem_info(const char *call, int device, size_t *free_bytes, size_t *total_bytes)
{
    (void)device;
    ENTER(call, "mem_info");
    unsigned long long used = atomic_load(&used_bytes);
    *total_bytes = FAKE_MEM;
    *free_bytes = used < FAKE_MEM ? (size_t)(FAKE_MEM - used) : 0;
    return grSuccess;
}

/* ---------------------------------------------------------------- streams */

enum {
    FAKE_CREATED,
    FAKE_LEGACY,
    FAKE_PER_THREAD
};

/* A fake stream: the stream header (backend.h), then what runs its work. */
struct fake_stream {
    gr_stream h;
    gr_stream *cpu; /* FAKE_CREATED's; NULL for the default streams */
    int kind;
};

_Static_assert(sizeof(struct fake_stream) <= sizeof(gr_stream) + GR_DEV_STREAM_MAX,
               "a fake stream fits a device stream's shell");
_Static_assert(sizeof(gr_cpu_event) <= sizeof(struct grEvent_st) + GR_DEV_EVENT_MAX,
               "a fake event fits a device event's shell");

static struct fake_stream *fake_stream(gr_stream *s)
{
    return (struct fake_stream *)(void *)s;
}

/* The CPU stream that runs s's work. */
static gr_stream *cpu_of(gr_stream *s)
{
    struct fake_stream *g = fake_stream(s);
    if (g->cpu)
        return g->cpu;
    gr_stream *c = NULL;
    int cur = gr__device_current();
    gr__device_select(0);
    grError_t err = gr__stream_from_handle_slow(
        "the fake device", g->kind == FAKE_LEGACY ? grStreamLegacy : grStreamPerThread, &c);
    gr__device_select(cur);
    if (err)
        abort(); /* the CPU runtime runs whenever a stream object exists */
    return c;
}

static grError_t wrap(const char *call, int device, gr_stream *cpu, int kind, unsigned flags,
                      unsigned user_flags, gr_stream **out)
{
    gr_stream *s = gr__stream_new_dev(sizeof(struct fake_stream), flags, user_flags, device);
    if (!s)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating a stream of device %d", call,
                        device);
    fake_stream(s)->cpu = cpu;
    fake_stream(s)->kind = kind;
    gr_store_release(&gr__gpu_any_context, true);
    *out = s;
    return grSuccess;
}

static grError_t fake_stream_create(const char *call, int device, unsigned user_flags, int priority,
                                    gr_stream **out)
{
    ENTER(call, "stream_create");
    gr_stream *cpu = NULL;
    if (gr__stream_create(user_flags, &cpu))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory creating a stream of device %d", call,
                        device);
    int p = gr__cpu_stream_priority_clamp(priority);
    cpu->priority = p;
    grError_t err = wrap(call, device, cpu, FAKE_CREATED,
                         (user_flags & grStreamNonBlocking) ? GR_STREAM_NONBLOCKING : 0u, user_flags, out);
    if (err)
        gr__stream_destroy(cpu);
    else
        (*out)->priority = p;
    return err;
}

static grError_t fake_stream_priority_range(const char *call, int device, int *least, int *greatest)
{
    (void)device;
    ENTER(call, "stream_priority_range");
    *least = GR_CPU_PRIORITY_LEAST;
    *greatest = GR_CPU_PRIORITY_GREATEST;
    return grSuccess;
}

static pthread_mutex_t legacy_lock = PTHREAD_MUTEX_INITIALIZER;
static gr_stream *legacy[GR_MAX_GPUS];
static pthread_key_t pt_key;
static pthread_once_t pt_once = PTHREAD_ONCE_INIT;
static _Thread_local gr_stream **tls_pt;

static void pt_free(void *p)
{
    gr_stream **v = p;
    for (int i = 0; i < GR_MAX_GPUS; i++)
        if (v[i])
            gr__stream_destroy(v[i]);
    free(v);
    tls_pt = NULL;
}

static void pt_key_init(void)
{
    pthread_key_create(&pt_key, pt_free);
}

static grError_t fake_stream_default(const char *call, int device, bool per_thread, gr_stream **out)
{
    grError_t err = grSuccess;
    if (per_thread) {
        if (!tls_pt) {
            pthread_once(&pt_once, pt_key_init);
            tls_pt = calloc(GR_MAX_GPUS, sizeof *tls_pt);
            if (!tls_pt)
                return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
            pthread_setspecific(pt_key, tls_pt);
        }
        if (!tls_pt[device - 1])
            err = wrap(call, device, NULL, FAKE_PER_THREAD, GR_STREAM_PER_THREAD, grStreamDefault,
                       &tls_pt[device - 1]);
        if (!err)
            *out = tls_pt[device - 1];
        return err;
    }
    pthread_mutex_lock(&legacy_lock);
    if (!legacy[device - 1])
        err = wrap(call, device, NULL, FAKE_LEGACY, GR_STREAM_LEGACY, grStreamDefault, &legacy[device - 1]);
    if (!err)
        *out = legacy[device - 1];
    pthread_mutex_unlock(&legacy_lock);
    return err;
}

static void fake_stream_free(gr_stream *s)
{
    if (fake_stream(s)->cpu)
        gr__stream_destroy(fake_stream(s)->cpu);
}

static grError_t fake_stream_sync(const char *call, gr_stream *s)
{
    ENTER(call, "stream_sync");
    grError_t err = gr__stream_sync(cpu_of(s));
    if (err)
        return gr__fail_again(err);
    return async_check(call, s->device);
}

static grError_t fake_stream_query(const char *call, gr_stream *s)
{
    ENTER(call, "stream_query");
    if (!gr__stream_idle(cpu_of(s)))
        return grErrorNotReady;
    return async_check(call, s->device);
}

/* ------------------------------------------------------------------- work */

static grError_t no_image(const char *call, grKernel_t k, int device)
{
    return gr__fail(grErrorInvalidDeviceFunction,
                    "%s: kernel '%s' has no GPU image, so it cannot run on device %d (a GPU); attach one "
                    "with grKernelSetImage (a PTX, cubin or fatbin image and the entry's name), or "
                    "write the kernel with GR_KERNEL (graphrt_kernel.h) and build it with "
                    "graphrt_add_cuda_kernels",
                    call, k->name, device);
}

/* The attributes of the latest launch (gr_fakedev_launch_attrs), as the
 * device was given them. */
#define FAKE_LAUNCH_ATTRS 32
static pthread_mutex_t launch_attrs_lock = PTHREAD_MUTEX_INITIALIZER;
static grLaunchAttribute launch_attrs[FAKE_LAUNCH_ATTRS];
static unsigned nlaunch_attrs;

unsigned gr_fakedev_launch_attrs(grLaunchAttribute *out, unsigned max)
{
    pthread_mutex_lock(&launch_attrs_lock);
    unsigned n = nlaunch_attrs;
    for (unsigned i = 0; i < n && i < max && i < FAKE_LAUNCH_ATTRS; i++)
        out[i] = launch_attrs[i];
    pthread_mutex_unlock(&launch_attrs_lock);
    return n;
}

/* A cooperative launch is recorded as "launch_cooperative" too, so that
 * tests see the attribute reach the device; every launch's attributes
 * are kept for gr_fakedev_launch_attrs. */
static grError_t fake_launch(const char *call, gr_stream *s, grKernel_t k, const grDim3 *grid,
                             const grDim3 *block, size_t shmem, void **args, const grLaunchAttribute *attrs,
                             unsigned nattrs)
{
    bool coop = false;
    for (unsigned i = 0; i < nattrs; i++)
        if (attrs[i].id == grLaunchAttributeCooperative)
            coop = attrs[i].val.cooperative != 0;
    pthread_mutex_lock(&launch_attrs_lock);
    nlaunch_attrs = nattrs;
    for (unsigned i = 0; i < nattrs && i < FAKE_LAUNCH_ATTRS; i++)
        launch_attrs[i] = attrs[i];
    pthread_mutex_unlock(&launch_attrs_lock);
    ENTER(call, "launch");
    if (coop)
        ENTER(call, "launch_cooperative");
    if (!gr_load_acquire(&k->gpu))
        return no_image(call, k, s->device);
    return gr__stream_enqueue_kernel(call, cpu_of(s), k, grid, block, shmem, args, coop);
}

typedef struct copy_op {
    void *dst;
    const void *src;
    size_t count;
} copy_op;

static void run_copy(void *data)
{
    const copy_op *c = data;
    memmove(c->dst, c->src, c->count);
}

typedef struct fill_op {
    void *dst;
    size_t count;
    int value;
} fill_op;

static void run_fill(void *data)
{
    const fill_op *f = data;
    memset(f->dst, f->value, f->count);
}

static grError_t fake_copy(const char *call, gr_stream *s, void *dst, const void *src, size_t count)
{
    ENTER(call, "copy");
    copy_op c = {dst, src, count};
    return gr__stream_enqueue_call(call, cpu_of(s), run_copy, &c, sizeof c);
}

static grError_t fake_fill(const char *call, gr_stream *s, void *dst, int value, size_t count)
{
    ENTER(call, "fill");
    fill_op f = {dst, count, value};
    return gr__stream_enqueue_call(call, cpu_of(s), run_fill, &f, sizeof f);
}

typedef struct pitched_op {
    gr_copy_side dst, src;
    size_t width, height, depth;
    int value; /* a 2D memset's, with src.ptr NULL */
} pitched_op;

static void run_pitched(void *data)
{
    pitched_op *const *pp = data;
    pitched_op *p = *pp;
    for (size_t z = 0; z < p->depth; z++)
        for (size_t y = 0; y < p->height; y++) {
            char *d = (char *)p->dst.ptr + (z * p->dst.rows + y) * p->dst.pitch;
            if (p->src.ptr)
                memmove(d, (const char *)p->src.ptr + (z * p->src.rows + y) * p->src.pitch, p->width);
            else
                memset(d, p->value, p->width);
        }
    free(p);
}

/* Runs a copy of op on stream s, or (s NULL) now, after the device's
 * work, as on the legacy stream. */
static grError_t pitched(const char *call, gr_stream *s, pitched_op op)
{
    pitched_op *p = malloc(sizeof *p);
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    *p = op;
    if (!s) {
        gr__device_sync_all();
        run_pitched(&p);
        return grSuccess;
    }
    grError_t err = gr__stream_enqueue_call(call, cpu_of(s), run_pitched, &p, sizeof p);
    if (err)
        free(p);
    return err;
}

static grError_t fake_copy_pitched(const char *call, gr_stream *s, int device, const gr_copy_side *dst,
                                   const gr_copy_side *src, size_t width, size_t height, size_t depth)
{
    (void)device;
    ENTER(call, "copy_pitched");
    return pitched(call, s, (pitched_op){*dst, *src, width, height, depth, 0});
}

static grError_t fake_fill_2d(const char *call, gr_stream *s, int device, void *dst, size_t pitch,
                              unsigned char value, size_t width, size_t height)
{
    (void)device;
    ENTER(call, "fill_2d");
    return pitched(call, s, (pitched_op){{dst, pitch, height}, {NULL, 0, 0}, width, height, 1, value});
}

/* Called from a CPU stream's op: the memory is the host's, reached at
 * once. */
static grError_t fake_copy_now(int device, void *dst, const void *src, size_t count)
{
    (void)device;
    ENTER(NULL, "copy_now");
    memmove(dst, src, count);
    return grSuccess;
}

static grError_t fake_fill_now(int device, void *dst, int value, size_t count)
{
    (void)device;
    ENTER(NULL, "fill_now");
    memset(dst, value, count);
    return grSuccess;
}

static grError_t fake_host_func(const char *call, gr_stream *s, grHostFn_t fn, void *user)
{
    ENTER(call, "host_func");
    return gr__stream_enqueue_host(call, cpu_of(s), fn, user);
}

static void run_memop(void *data)
{
    gr__memop_run(data);
}

static grError_t fake_stream_memops(const char *call, gr_stream *s, unsigned count,
                                    const grStreamBatchMemOpParams *ops)
{
    ENTER(call, "stream_memops");
    gr_stream *c = cpu_of(s);
    for (unsigned i = 0; i < count; i++) {
        grError_t err = gr__stream_enqueue_call(call, c, run_memop, &ops[i], sizeof ops[i]);
        if (err)
            return err;
    }
    return grSuccess;
}

/* ----------------------------------------------------------------- events */

/* A fake event has the CPU's event layout (cpu/event.h): it is recorded on
 * the CPU streams that run the fake streams' work, and the CPU plans that
 * run the fake executables record and wait for it as for a CPU event. */
static grError_t fake_event_create(const char *call, int device, unsigned flags, grEvent_t *out)
{
    ENTER(call, "event_create");
    grEvent_t e = gr__event_new_dev(sizeof(gr_cpu_event), flags, device);
    if (!e)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    *out = e;
    return grSuccess;
}

static void fake_event_free(grEvent_t e)
{
    gr__cpu_event_fini(e);
}

static grError_t fake_event_record(const char *call, grEvent_t e, gr_stream *s)
{
    ENTER(call, "event_record");
    return gr__event_record(call, e, cpu_of(s));
}

static grError_t fake_event_query(const char *call, grEvent_t e)
{
    ENTER(call, "event_query");
    if (!gr__event_done(e))
        return grErrorNotReady;
    return async_check(call, e->device);
}

static grError_t fake_event_sync(const char *call, grEvent_t e)
{
    ENTER(call, "event_sync");
    grError_t err = gr__event_wait(e);
    if (err)
        return gr__fail_again(err);
    return async_check(call, e->device);
}

static grError_t fake_event_elapsed(const char *call, float *ms, grEvent_t start, grEvent_t end)
{
    uint64_t t0 = 0, t1 = 0;
    grError_t err;
    ENTER(call, "event_elapsed");
    if ((err = gr__event_time(call, "start", start, &t0)) || (err = gr__event_time(call, "end", end, &t1)))
        return err;
    *ms = (float)((double)((int64_t)(t1 - t0)) / 1e6);
    return grSuccess;
}

static grError_t fake_stream_wait_event(const char *call, gr_stream *s, grEvent_t e)
{
    ENTER(call, "stream_wait_event");
    return gr__stream_wait_event(call, cpu_of(s), e);
}

/* ----------------------------------------------------------------- memory */

static grError_t fake_mem_alloc(const char *call, int device, size_t size, void **out)
{
    ENTER(call, "mem_alloc");
    void *p = NULL;
    if (size > FAKE_MEM || posix_memalign(&p, 256, size ? size : 1) != 0)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: out of memory on device %d (the fake device) for %zu bytes", call, device, size);
    atomic_fetch_add(&used_bytes, size);
    gr_store_release(&gr__gpu_any_context, true);
    *out = p;
    return grSuccess;
}

static void managed_forget(const void *p);

static grError_t fake_mem_free(const char *call, int device, void *p)
{
    (void)device;
    ENTER(call, "mem_free");
    managed_forget(p);
    free(p);
    return grSuccess;
}

static grError_t fake_host_alloc(const char *call, size_t size, void **out)
{
    ENTER(call, "host_alloc");
    void *p = NULL;
    /* Pinned memory is scarce on a real machine too; a size beyond the
     * fake's memory is refused before the allocator sees it (sanitizers
     * abort on impossible sizes instead of returning NULL). */
    if (size > FAKE_MEM || posix_memalign(&p, 256, size ? size : 1) != 0)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory for %zu bytes of host memory", call,
                        size);
    gr_store_release(&gr__gpu_any_context, true);
    *out = p;
    return grSuccess;
}

static grError_t fake_host_free(const char *call, void *p)
{
    ENTER(call, "host_free");
    free(p);
    return grSuccess;
}

/* The virtual reservations, for pointer_device. */
typedef struct fake_range {
    char *base;
    size_t size;
    int device;
} fake_range;
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_range ranges[256];

static int fake_pointer_device(const void *p)
{
    int d = 0;
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < 256; i++)
        if (ranges[i].base && (const char *)p >= ranges[i].base &&
            (const char *)p < ranges[i].base + ranges[i].size)
            d = ranges[i].device;
    pthread_mutex_unlock(&ranges_lock);
    return d;
}

static bool fake_pointer_info(const void *p, gr_dev_pointer *info)
{
    int d = fake_pointer_device(p);
    if (!d)
        return false;
    info->type = grMemoryTypeDevice;
    info->device = d;
    info->device_pointer = (void *)p;
    info->host_pointer = NULL;
    return true;
}

/* --------------------------------------------------------- managed memory */

/* A fake device's managed allocation: host memory, with what the hints
 * set (graphrt's numbering: a device location's id is the device, 0 and
 * the host types are the host). */
typedef struct fake_managed {
    char *base;
    size_t size;
    int device;
    int read_mostly;
    grMemLocation preferred, last_prefetch;
    uint64_t accessed_by; /* bit d: device d; bit 63: the host */
} fake_managed;
static pthread_mutex_t managed_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_managed managed[64];

/* The allocation holding p; called with managed_lock held. */
static fake_managed *managed_of(const void *p)
{
    for (int i = 0; i < 64; i++)
        if (managed[i].base && (const char *)p >= managed[i].base &&
            (const char *)p < managed[i].base + managed[i].size)
            return &managed[i];
    return NULL;
}

/* A location as the fake keeps it: a device, or the host (for a device
 * that does not exist too: advice that ignores its location passes it
 * unchecked). */
static grMemLocation fake_loc(grMemLocation loc)
{
    if (loc.type == grMemLocationTypeDevice && loc.id > 0 && loc.id <= fake_count())
        return loc;
    grMemLocation host = {grMemLocationTypeHost, 0};
    return host;
}

static grError_t fake_managed_alloc(const char *call, int device, size_t size, unsigned flags, void **out)
{
    (void)flags;
    ENTER(call, "managed_alloc");
    void *p = NULL;
    if (size > FAKE_MEM || posix_memalign(&p, 256, size) != 0)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: out of memory on device %d (the fake device) for %zu bytes of managed memory",
                        call, device, size);
    pthread_mutex_lock(&managed_lock);
    int i = 0;
    while (i < 64 && managed[i].base)
        i++;
    if (i < 64) {
        memset(&managed[i], 0, sizeof managed[i]);
        managed[i].base = p;
        managed[i].size = size;
        managed[i].device = device;
    }
    pthread_mutex_unlock(&managed_lock);
    if (i == 64) {
        free(p);
        return gr__fail(grErrorMemoryAllocation, "%s: the fake device keeps at most 64 managed allocations",
                        call);
    }
    atomic_fetch_add(&used_bytes, size);
    gr_store_release(&gr__gpu_any_context, true);
    *out = p;
    return grSuccess;
}

/* Forgets p's managed allocation, if it is one (mem_free frees both). */
static void managed_forget(const void *p)
{
    pthread_mutex_lock(&managed_lock);
    fake_managed *m = managed_of(p);
    if (m)
        m->base = NULL;
    pthread_mutex_unlock(&managed_lock);
}

static grError_t fake_mem_advise(const char *call, int device, const void *p, size_t count, int advice,
                                 grMemLocation loc)
{
    (void)device;
    (void)count;
    ENTER(call, "mem_advise");
    grMemLocation l = fake_loc(loc);
    int bit = l.type == grMemLocationTypeDevice ? l.id : 63;
    pthread_mutex_lock(&managed_lock);
    fake_managed *m = managed_of(p);
    if (m) {
        switch (advice) {
        case grMemAdviseSetReadMostly:
        case grMemAdviseUnsetReadMostly:
            m->read_mostly = advice == grMemAdviseSetReadMostly;
            break;
        case grMemAdviseSetPreferredLocation:
            m->preferred = l;
            break;
        case grMemAdviseUnsetPreferredLocation:
            memset(&m->preferred, 0, sizeof m->preferred);
            break;
        case grMemAdviseSetAccessedBy:
            m->accessed_by |= (uint64_t)1 << bit;
            break;
        default:
            m->accessed_by &= ~((uint64_t)1 << bit);
            break;
        }
    }
    pthread_mutex_unlock(&managed_lock);
    return grSuccess;
}

typedef struct prefetch_op {
    const void *p;
    grMemLocation loc;
} prefetch_op;

static void run_prefetch(void *data)
{
    const prefetch_op *a = data;
    pthread_mutex_lock(&managed_lock);
    fake_managed *m = managed_of(a->p);
    if (m)
        m->last_prefetch = a->loc;
    pthread_mutex_unlock(&managed_lock);
}

static grError_t fake_mem_prefetch(const char *call, gr_stream *s, const void *p, size_t count,
                                   grMemLocation loc)
{
    (void)count;
    ENTER(call, "mem_prefetch");
    prefetch_op a = {p, fake_loc(loc)};
    return gr__stream_enqueue_call(call, cpu_of(s), run_prefetch, &a, sizeof a);
}

/* A kept location as a device id of the range attributes. */
static int id_of_loc(grMemLocation loc)
{
    if (loc.type == grMemLocationTypeInvalid)
        return grInvalidDeviceId;
    return loc.type == grMemLocationTypeDevice ? loc.id : grCpuDeviceId;
}

static grError_t fake_range_attribute(const char *call, int device, const void *p, size_t count, int attr,
                                      void *data, size_t size)
{
    (void)device;
    (void)count;
    ENTER(call, "range_attribute");
    pthread_mutex_lock(&managed_lock);
    fake_managed *m = managed_of(p);
    fake_managed st;
    if (m)
        st = *m;
    pthread_mutex_unlock(&managed_lock);
    if (!m)
        return gr__fail(grErrorInvalidValue, "%s: %p is no managed memory of the fake device", call, p);
    int *v = data;
    switch (attr) {
    case grMemRangeAttributeReadMostly:
        *v = st.read_mostly;
        break;
    case grMemRangeAttributePreferredLocation:
        *v = id_of_loc(st.preferred);
        break;
    case grMemRangeAttributeLastPrefetchLocation:
        *v = id_of_loc(st.last_prefetch);
        break;
    case grMemRangeAttributePreferredLocationType:
        *v = (int)st.preferred.type;
        break;
    case grMemRangeAttributePreferredLocationId:
        *v = st.preferred.id;
        break;
    case grMemRangeAttributeLastPrefetchLocationType:
        *v = (int)st.last_prefetch.type;
        break;
    case grMemRangeAttributeLastPrefetchLocationId:
        *v = st.last_prefetch.id;
        break;
    default: { /* AccessedBy */
        size_t n = size / sizeof(int), k = 0;
        if (st.accessed_by & ((uint64_t)1 << 63))
            v[k++] = grCpuDeviceId;
        for (int d = 1; d < 63 && k < n; d++)
            if (st.accessed_by & ((uint64_t)1 << d))
                v[k++] = d;
        while (k < n)
            v[k++] = grInvalidDeviceId;
        break;
    }
    }
    return grSuccess;
}

static grError_t fake_stream_attach(const char *call, gr_stream *s, void *p, size_t length, unsigned flags)
{
    (void)s;
    (void)p;
    (void)length;
    (void)flags;
    ENTER(call, "stream_attach");
    return grSuccess;
}

/* --------------------------------------------------------------- settings */

/* A fake device's limits (CUDA's defaults of an H100) and flags. The
 * stack size is rounded up to 16 bytes, as drivers round it. */
static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t limits[GR_MAX_GPUS][7];
static bool limits_set[GR_MAX_GPUS][7];
static unsigned dev_flags[GR_MAX_GPUS];

static grError_t fake_limit(const char *call, int device, int limit, size_t *value, bool set)
{
    static const size_t defaults[7] = {1024, 1048576, 8388608, 0, 2048, 0, 0};
    ENTER(call, "limit");
    if (limit < 0 || limit >= 7)
        return gr__fail(grErrorUnsupportedLimit, "%s: the fake device has no limit %d", call, limit);
    pthread_mutex_lock(&settings_lock);
    if (set) {
        limits[device - 1][limit] = limit == grLimitStackSize ? (*value + 15) / 16 * 16 : *value;
        limits_set[device - 1][limit] = true;
    } else {
        *value = limits_set[device - 1][limit] ? limits[device - 1][limit] : defaults[limit];
    }
    pthread_mutex_unlock(&settings_lock);
    return grSuccess;
}

static grError_t fake_device_flags(const char *call, int device, unsigned *flags, bool set)
{
    ENTER(call, "device_flags");
    pthread_mutex_lock(&settings_lock);
    if (set)
        dev_flags[device - 1] = *flags;
    else
        *flags = dev_flags[device - 1];
    pthread_mutex_unlock(&settings_lock);
    return grSuccess;
}

/* ------------------------------------------------ registered host memory */

/* Registering pins nothing here: the calls are what a test can see
 * (gr_fakedev_calls). */
static grError_t fake_host_register(const char *call, void *p, size_t size, unsigned flags)
{
    (void)p;
    (void)size;
    (void)flags;
    ENTER(call, "host_register");
    return grSuccess;
}

static grError_t fake_host_unregister(const char *call, void *p)
{
    (void)p;
    ENTER(call, "host_unregister");
    return grSuccess;
}

static grError_t fake_host_device_pointer(const char *call, int device, void *p, void **out)
{
    (void)device;
    ENTER(call, "host_device_pointer");
    *out = p;
    return grSuccess;
}

/* ------------------------------------------------------------------ pools */

typedef struct fake_pool {
    int device;
    size_t max_size;
    int reuse[3];
    uint64_t threshold, used, used_high, reserved_high;
    int access[GR_MAX_GPUS + 1]; /* the flags device i gets */
} fake_pool;

/* A stream-ordered allocation: its pool and size, ahead of the memory. */
#define HDR 256
typedef struct fake_block {
    fake_pool *pool;
    size_t size;
} fake_block;

static fake_pool *default_pool[GR_MAX_GPUS], *current_pool[GR_MAX_GPUS];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static fake_pool *pool_new(int device, size_t max_size)
{
    fake_pool *p = calloc(1, sizeof *p);
    if (p) {
        p->device = device;
        p->max_size = max_size;
        p->access[device] = grMemAccessFlagsProtReadWrite;
    }
    return p;
}

static grError_t fake_pool_create(const char *call, int device, size_t max_size, void **out)
{
    ENTER(call, "pool_create");
    fake_pool *p = pool_new(device, max_size);
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    *out = p;
    return grSuccess;
}

static void fake_pool_destroy(int device, void *pool)
{
    (void)device;
    (void)enter(NULL, "pool_destroy");
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < GR_MAX_GPUS; i++) {
        if (default_pool[i] == pool)
            pool = NULL; /* the default pool lives with the process */
        if (current_pool[i] == pool)
            current_pool[i] = default_pool[i];
    }
    pthread_mutex_unlock(&pool_lock);
    free(pool);
}

static fake_pool *pool_default(int device)
{
    pthread_mutex_lock(&pool_lock);
    if (!default_pool[device - 1])
        default_pool[device - 1] = pool_new(device, 0);
    fake_pool *p = default_pool[device - 1];
    pthread_mutex_unlock(&pool_lock);
    return p;
}

static grError_t fake_pool_default(const char *call, int device, void **out)
{
    ENTER(call, "pool_default");
    fake_pool *p = pool_default(device);
    if (!p)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    *out = p;
    return grSuccess;
}

static grError_t fake_pool_set_current(const char *call, int device, void *pool)
{
    ENTER(call, "pool_set_current");
    pthread_mutex_lock(&pool_lock);
    current_pool[device - 1] = pool;
    pthread_mutex_unlock(&pool_lock);
    return grSuccess;
}

static grError_t pool_take(const char *call, fake_pool *pool, size_t size, void **out)
{
    char *m = NULL;
    pthread_mutex_lock(&pool_lock);
    bool full = pool->max_size && pool->used + size > pool->max_size;
    pthread_mutex_unlock(&pool_lock);
    if (full || size > FAKE_MEM || posix_memalign((void **)&m, 256, HDR + (size ? size : 1)) != 0)
        return gr__fail(grErrorMemoryAllocation,
                        "%s: out of memory on device %d (the fake device) for %zu bytes", call, pool->device,
                        size);
    ((fake_block *)(void *)m)->pool = pool;
    ((fake_block *)(void *)m)->size = size;
    pthread_mutex_lock(&pool_lock);
    pool->used += size;
    if (pool->used > pool->used_high)
        pool->used_high = pool->used;
    if (pool->used > pool->reserved_high)
        pool->reserved_high = pool->used;
    pthread_mutex_unlock(&pool_lock);
    gr_store_release(&gr__gpu_any_context, true);
    *out = m + HDR;
    return grSuccess;
}

static grError_t fake_pool_alloc(const char *call, gr_stream *s, void *pool, size_t size, void **out)
{
    (void)s;
    ENTER(call, "pool_alloc");
    return pool_take(call, pool, size, out);
}

static grError_t fake_alloc_async(const char *call, gr_stream *s, size_t size, void **out)
{
    ENTER(call, "alloc_async");
    pthread_mutex_lock(&pool_lock);
    fake_pool *pool = current_pool[s->device - 1];
    pthread_mutex_unlock(&pool_lock);
    if (!pool && !(pool = pool_default(s->device)))
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    return pool_take(call, pool, size, out);
}

static void run_pool_free(void *data)
{
    char *m = *(char **)data - HDR;
    fake_block *b = (fake_block *)(void *)m;
    pthread_mutex_lock(&pool_lock);
    b->pool->used -= b->size;
    pthread_mutex_unlock(&pool_lock);
    free(m);
}

static grError_t fake_free_async(const char *call, gr_stream *s, void *p)
{
    ENTER(call, "free_async");
    return gr__stream_enqueue_call(call, cpu_of(s), run_pool_free, &p, sizeof p);
}

static grError_t fake_pool_trim(const char *call, int device, void *pool, size_t keep)
{
    (void)device;
    (void)pool;
    (void)keep;
    ENTER(call, "pool_trim");
    return grSuccess;
}

static grError_t fake_pool_attribute(const char *call, int device, void *pool, int attr, void *value,
                                     bool set)
{
    (void)device;
    ENTER(call, "pool_attribute");
    fake_pool *p = pool;
    grError_t err = grSuccess;
    pthread_mutex_lock(&pool_lock);
    switch (attr) {
    case grMemPoolReuseFollowEventDependencies:
    case grMemPoolReuseAllowOpportunistic:
    case grMemPoolReuseAllowInternalDependencies:
        if (set)
            p->reuse[attr - 1] = *(int *)value;
        else
            *(int *)value = p->reuse[attr - 1];
        break;
    case grMemPoolAttrReleaseThreshold:
        if (set)
            p->threshold = *(uint64_t *)value;
        else
            *(uint64_t *)value = p->threshold;
        break;
    case grMemPoolAttrReservedMemCurrent:
    case grMemPoolAttrUsedMemCurrent:
        if (set)
            err = grErrorInvalidValue;
        else
            *(uint64_t *)value = p->used;
        break;
    case grMemPoolAttrReservedMemHigh:
        if (set)
            p->reserved_high = p->used;
        else
            *(uint64_t *)value = p->reserved_high;
        break;
    case grMemPoolAttrUsedMemHigh:
        if (set)
            p->used_high = p->used;
        else
            *(uint64_t *)value = p->used_high;
        break;
    default:
        err = grErrorInvalidValue;
    }
    pthread_mutex_unlock(&pool_lock);
    if (err)
        return gr__fail(err, "%s: attribute %d cannot be %s on the fake device", call, attr,
                        set ? "set" : "read");
    return grSuccess;
}

static grError_t fake_pool_set_access(const char *call, int device, void *pool, const int *devices,
                                      const int *flags, size_t n)
{
    (void)device;
    ENTER(call, "pool_set_access");
    fake_pool *p = pool;
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < n; i++)
        p->access[devices[i]] = flags[i];
    pthread_mutex_unlock(&pool_lock);
    return grSuccess;
}

static grError_t fake_pool_get_access(const char *call, int device, void *pool, int other, int *flags)
{
    (void)device;
    ENTER(call, "pool_get_access");
    fake_pool *p = pool;
    pthread_mutex_lock(&pool_lock);
    *flags = p->access[other];
    pthread_mutex_unlock(&pool_lock);
    return grSuccess;
}

/* ---------------------------------------------------------- virtual memory */

#define GRAIN (2u << 20)

/* Enters r into the first free slot of a table of 256 ranges (reserved or
 * mapped), under ranges_lock. */
static void table_add(fake_range *table, fake_range r)
{
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < 256; i++)
        if (!table[i].base) {
            table[i] = r;
            break;
        }
    pthread_mutex_unlock(&ranges_lock);
}

/* Frees the slots of the ranges that start at p. */
static void table_remove(fake_range *table, const void *p)
{
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < 256; i++)
        if (table[i].base == p)
            table[i].base = NULL;
    pthread_mutex_unlock(&ranges_lock);
}

static grError_t fake_vmm_granularity(const char *call, int device, size_t *out)
{
    (void)device;
    ENTER(call, "vmm_granularity");
    *out = GRAIN;
    return grSuccess;
}

static grError_t fake_vmm_reserve(const char *call, int device, size_t size, size_t align, void **out)
{
    ENTER(call, "vmm_reserve");
    size_t span = size + align;
    char *m = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return gr__fail(grErrorMemoryAllocation, "%s: out of address space on device %d", call, device);
    char *p = (char *)(((uintptr_t)m + align - 1) / align * align);
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + span > p + size)
        munmap(p + size, (size_t)(m + span - (p + size)));
    table_add(ranges, (fake_range){p, size, device});
    gr_store_release(&gr__gpu_any_context, true);
    *out = p;
    return grSuccess;
}

static void fake_vmm_unreserve(int device, void *p, size_t size)
{
    (void)device;
    (void)enter(NULL, "vmm_unreserve");
    table_remove(ranges, p);
    munmap(p, size);
}

static grError_t fake_vmm_create(const char *call, int device, size_t size, uint64_t *out)
{
    ENTER(call, "vmm_create");
    int fd = memfd_create("graphrt-fakedev", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        if (fd >= 0)
            close(fd);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory on device %d for %zu bytes", call, device,
                        size);
    }
    *out = (uint64_t)fd + 1;
    return grSuccess;
}

static void fake_vmm_release(int device, uint64_t handle)
{
    (void)device;
    (void)enter(NULL, "vmm_release");
    close((int)(handle - 1));
}

/* The mapped ranges, for what lowering refuses (memory no allocation
 * backs). */
static fake_range maps[256];

static bool mapped(const void *p)
{
    bool in = false;
    pthread_mutex_lock(&ranges_lock);
    for (int i = 0; i < 256; i++)
        if (maps[i].base && (const char *)p >= maps[i].base && (const char *)p < maps[i].base + maps[i].size)
            in = true;
    pthread_mutex_unlock(&ranges_lock);
    return in;
}

static grError_t fake_vmm_map(const char *call, int device, void *p, size_t size, uint64_t handle,
                              size_t offset)
{
    ENTER(call, "vmm_map");
    if (mmap(p, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, (int)(handle - 1), (off_t)offset) ==
        MAP_FAILED)
        return gr__fail(grErrorMemoryAllocation, "%s: mapping %zu bytes on device %d failed", call, size,
                        device);
    table_add(maps, (fake_range){p, size, device});
    return grSuccess;
}

static void fake_vmm_unmap(int device, void *p, size_t size)
{
    (void)device;
    (void)enter(NULL, "vmm_unmap");
    table_remove(maps, p);
    (void)mmap(p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

static grError_t fake_vmm_quiesce(const char *call, int device)
{
    (void)device;
    ENTER(call, "vmm_quiesce");
    gr__device_sync_all();
    return grSuccess;
}

/* ---------------------------------------------------------------- kernels */

struct gr_dev_kernel {
    const void *image;
    char *entry;
    /* The values grFuncSetAttribute gave the device (gr_fakedev_func_attr):
     * max dynamic shared memory and carveout, each with whether it was
     * given; guarded by launch_attrs_lock. */
    int smem, carveout;
    bool smem_set, carveout_set;
};

static grError_t fake_kernel_set_image(const char *call, grKernel_t k, const void *image, const char *entry)
{
    ENTER(call, "kernel_set_image");
    struct gr_dev_kernel *g = gr__calloc(1, sizeof *g);
    if (!g || !(g->entry = strdup(entry))) {
        gr__free(g);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    g->image = image;
    grError_t err = gr__kernel_attach(call, k, g);
    if (err) {
        free(g->entry);
        gr__free(g);
    }
    return err;
}

static void fake_kernel_free(struct gr_dev_kernel *g)
{
    free(g->entry);
    gr__free(g);
}

static grError_t fake_func_set_attribute(const char *call, grKernel_t k, grFuncAttribute attr, int value)
{
    ENTER(call, "func_set_attribute");
    struct gr_dev_kernel *g = gr_load_acquire(&k->gpu);
    if (!g)
        return grSuccess; /* as the CUDA kind: no image, nothing loaded */
    /* As cuFuncSetAttribute: no more than the device's opt-in limit. */
    if (attr == grFuncAttributeMaxDynamicSharedMemorySize && value > FAKE_SMEM_OPTIN)
        return gr__fail(grErrorInvalidValue,
                        "%s: MaxDynamicSharedMemorySize %d is above the fake device's "
                        "sharedMemPerBlockOptin (%d)",
                        call, value, FAKE_SMEM_OPTIN);
    pthread_mutex_lock(&launch_attrs_lock);
    if (attr == grFuncAttributeMaxDynamicSharedMemorySize) {
        g->smem = value;
        g->smem_set = true;
    } else {
        g->carveout = value;
        g->carveout_set = true;
    }
    pthread_mutex_unlock(&launch_attrs_lock);
    return grSuccess;
}

bool gr_fakedev_func_attr(grKernel_t k, grFuncAttribute attr, int *value)
{
    struct gr_dev_kernel *g = gr_load_acquire(&k->gpu);
    bool set = false;
    pthread_mutex_lock(&launch_attrs_lock);
    if (g && attr == grFuncAttributeMaxDynamicSharedMemorySize && (set = g->smem_set))
        *value = g->smem;
    else if (g && attr == grFuncAttributePreferredSharedMemoryCarveout && (set = g->carveout_set))
        *value = g->carveout;
    pthread_mutex_unlock(&launch_attrs_lock);
    return set;
}

/* What the fake device answers of a kernel's function: the CPU device's
 * rules (api/occupancy.c) with the fake device's own multiprocessors
 * (FAKE_SMS, its grDevAttrMultiProcessorCount): blocks of up to 1024
 * threads and 48 KiB of dynamic shared memory, one at a time on a
 * multiprocessor, no cluster hardware. A kernel without an image is
 * refused as its launch is. */
static bool fake_block_fits(uint64_t threads, size_t smem)
{
    return threads >= 1 && threads <= 1024 && smem <= FAKE_SMEM;
}

static grError_t fake_func_attributes(const char *call, grKernel_t k, int device, grFuncAttributes *attr)
{
    ENTER(call, "func_attributes");
    if (!gr_load_acquire(&k->gpu))
        return no_image(call, k, device);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->maxDynamicSharedSizeBytes = FAKE_SMEM;
    attr->preferredShmemCarveout = -1;
    return grSuccess;
}

static grError_t fake_occupancy_blocks(const char *call, grKernel_t k, int device, int block_size,
                                       size_t smem, unsigned flags, int *out)
{
    (void)flags;
    ENTER(call, "occupancy_blocks");
    if (!gr_load_acquire(&k->gpu))
        return no_image(call, k, device);
    *out = fake_block_fits((uint64_t)block_size, smem) ? 1 : 0;
    return grSuccess;
}

static grError_t fake_occupancy_smem(const char *call, grKernel_t k, int device, int blocks, int block_size,
                                     size_t *out)
{
    ENTER(call, "occupancy_smem");
    if (!gr_load_acquire(&k->gpu))
        return no_image(call, k, device);
    *out = blocks == 1 && block_size <= 1024 ? FAKE_SMEM : 0;
    return grSuccess;
}

static grError_t fake_occupancy_clusters(const char *call, grKernel_t k, int device,
                                         const grLaunchConfig_t *cfg, bool potential, int *out)
{
    ENTER(call, "occupancy_clusters");
    if (!gr_load_acquire(&k->gpu))
        return no_image(call, k, device);
    uint64_t cluster = 1;
    for (unsigned i = 0; i < cfg->numAttrs; i++)
        if (cfg->attrs[i].id == grLaunchAttributeClusterDimension)
            cluster = (uint64_t)cfg->attrs[i].val.clusterDim.x * cfg->attrs[i].val.clusterDim.y *
                      cfg->attrs[i].val.clusterDim.z;
    uint64_t threads = (uint64_t)cfg->blockDim.x * cfg->blockDim.y * cfg->blockDim.z;
    if (!fake_block_fits(threads, cfg->dynamicSmemBytes))
        *out = 0;
    else
        *out = potential ? (FAKE_SMS < 8 ? FAKE_SMS : 8) : (int)(FAKE_SMS / cluster);
    return grSuccess;
}

/* ------------------------------------------------------------ executables */

struct gr_dev_exec {
    int device;
    grGraphExec_t e; /* whose plan this lowers */
    pthread_mutex_t lock;
    gr_stream *last; /* the CPU stream of the latest launch, retained */
};

/* What lowering refuses, as the CUDA kind does: a kernel without an
 * image, an event of another device; conditional bodies too. */
/* Reserved device memory that no allocation backs, which the driver
 * refuses in a node. */
static grError_t check_address(const char *call, uint32_t i, const void *a)
{
    if (fake_pointer_device(a) && !mapped(a))
        return gr__fail(grErrorInvalidValue,
                        "%s: node %u (plan order) names %p, reserved device memory that no allocation backs "
                        "(the fake device refuses it as a driver does)",
                        call, i, a);
    return grSuccess;
}

static grError_t check_plan(const char *call, const gr_plan *p, int device)
{
    grError_t err;
    for (uint32_t i = 0; i < p->nnodes; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->type == grGraphNodeTypeKernel && !gr_load_acquire(&pn->u.kern.k->gpu))
            return no_image(call, pn->u.kern.k, device);
        if ((pn->type == grGraphNodeTypeEventRecord || pn->type == grGraphNodeTypeWaitEvent) &&
            pn->u.event->device != device)
            return gr__fail(grErrorInvalidValue,
                            "%s: the event of event node %u (plan order) was created on device %d, but the "
                            "executable is instantiated for device %d; an event node's event must be created "
                            "on the device the graph runs on (grSetDevice before grEventCreate)",
                            call, i, pn->u.event->device, device);
        if (pn->type == grGraphNodeTypeMemset && (err = check_address(call, i, pn->u.memset.dst)))
            return err;
        if (pn->type == grGraphNodeTypeMemcpy && ((err = check_address(call, i, pn->u.copy.p.dst)) ||
                                                  (err = check_address(call, i, pn->u.copy.p.src))))
            return err;
        for (uint32_t k = 0; pn->type == grGraphNodeTypeBatchMemOp && k < pn->u.memop.count; k++)
            if (pn->u.memop.ops[k].operation != grStreamMemOpBarrier &&
                (err = check_address(call, i, pn->u.memop.ops[k].waitValue.address)))
                return err;
    }
    return grSuccess;
}

/* The kernel node attributes the latest lowering found (where the CUDA
 * kind gives them to cuGraphKernelNodeSetAttribute), each with its
 * node's kernel; guarded by launch_attrs_lock. */
#define FAKE_KATTRS 64
static gr_fakedev_kattr kattrs[FAKE_KATTRS];
static unsigned nkattrs;

unsigned gr_fakedev_lowered_attrs(gr_fakedev_kattr *out, unsigned max)
{
    pthread_mutex_lock(&launch_attrs_lock);
    unsigned n = nkattrs;
    for (unsigned i = 0; i < n && i < max && i < FAKE_KATTRS; i++)
        out[i] = kattrs[i];
    pthread_mutex_unlock(&launch_attrs_lock);
    return n;
}

/* Looking for the plan of body 'body' of conditional node 'cond'. */
typedef struct body_find {
    uint32_t cond, body;
    const gr_plan *found;
} body_find;

static bool body_is(void *ctx, uint32_t cond, uint32_t b, const gr_cond_plan *c)
{
    body_find *f = ctx;
    if (cond != f->cond || b != f->body)
        return false;
    f->found = c->bodies[b];
    return true;
}

/* The plan of conditional node 'cond' (gr__plan_kattrs's numbering),
 * body 'body', in top-level plan p; NULL if not there. */
static const gr_plan *plan_at(const gr_plan *p, uint32_t cond, uint32_t body)
{
    body_find f = {cond, body, NULL};
    uint32_t next = 0;
    gr__plan_each_body(p, &next, body_is, &f);
    return f.found;
}

typedef struct kattr_ctx {
    const gr_plan *top;
    unsigned n;
} kattr_ctx;

static void kattr_found(void *ctx, gr_kattr_at at, const grLaunchAttribute *attrs, unsigned n)
{
    kattr_ctx *x = ctx;
    const gr_plan *p = at.cond == 0 ? x->top : plan_at(x->top, at.cond, at.body);
    const gr_pnode *pn = p && at.pindex + 1 < p->nnodes ? &p->nodes[at.pindex] : NULL;
    for (unsigned k = 0; k < n && x->n < FAKE_KATTRS; k++)
        kattrs[x->n++] = (gr_fakedev_kattr){
            at.cond, at.body, pn && pn->type == grGraphNodeTypeKernel ? pn->u.kern.k : NULL, attrs[k]};
}

/* The edges with data the latest lowering found (where the CUDA kind
 * adds them with cuGraphAddDependencies and their data); guarded by
 * launch_attrs_lock. */
#define FAKE_KEDGES 64
static gr_fakedev_kedge kedges[FAKE_KEDGES];
static unsigned nkedges;

unsigned gr_fakedev_lowered_edges(gr_fakedev_kedge *out, unsigned max)
{
    pthread_mutex_lock(&launch_attrs_lock);
    unsigned n = nkedges;
    for (unsigned i = 0; i < n && i < max && i < FAKE_KEDGES; i++)
        out[i] = kedges[i];
    pthread_mutex_unlock(&launch_attrs_lock);
    return n;
}

static grKernel_t kernel_of(const gr_plan *p, uint32_t i)
{
    return p && i + 1 < p->nnodes && p->nodes[i].type == grGraphNodeTypeKernel ? p->nodes[i].u.kern.k : NULL;
}

static void kedge_found(void *ctx, gr_kattr_at at, uint32_t from, const grGraphEdgeData *d)
{
    kattr_ctx *x = ctx;
    const gr_plan *p = at.cond == 0 ? x->top : plan_at(x->top, at.cond, at.body);
    if (x->n < FAKE_KEDGES)
        kedges[x->n++] =
            (gr_fakedev_kedge){at.cond, at.body, kernel_of(p, from), kernel_of(p, at.pindex), *d};
}

static grError_t fake_exec_lower(const char *call, const gr_plan *p, int device, unsigned long long flags,
                                 struct gr_dev_exec **out)
{
    (void)flags;
    ENTER(call, "exec_lower");
    grError_t err = check_plan(call, p, device);
    if (err)
        return err;
    /* Where the CUDA kind gives kernel nodes their launch attributes:
     * what it would find, recorded with each node's kernel. */
    kattr_ctx kx = {p, 0};
    pthread_mutex_lock(&launch_attrs_lock);
    gr__plan_kattrs((const struct grGraphExec_st *)(const void *)((const char *)p -
                                                                  offsetof(struct grGraphExec_st, plan)),
                    kattr_found, &kx);
    nkattrs = kx.n;
    kx.n = 0;
    gr__plan_edges((const struct grGraphExec_st *)(const void *)((const char *)p -
                                                                 offsetof(struct grGraphExec_st, plan)),
                   kedge_found, &kx);
    nkedges = kx.n;
    pthread_mutex_unlock(&launch_attrs_lock);
    /* Where the CUDA kind sets CU_LAUNCH_ATTRIBUTE_COOPERATIVE on the
     * lowered node: recorded, so that tests see the attribute arrive. */
    for (uint32_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeKernel && p->nodes[i].krun == GR_KRUN_COOP)
            ENTER(call, "lower_cooperative_node");
    /* Where the CUDA kind captures a collective's NCCL call into a child
     * graph node (the plan then runs the stand-in's copy). */
    for (uint32_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeCollective)
            ENTER(call, "lower_collective_node");
    /* Where the CUDA kind adds cuGraphAddBatchMemOpNode: counted, and
     * refused where a test makes it fail (a driver without such nodes). */
    for (uint32_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeBatchMemOp)
            ENTER(call, "lower_memop_node");
    struct gr_dev_exec *gx = gr__calloc(1, sizeof *gx);
    if (!gx)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    gx->device = device;
    pthread_mutex_init(&gx->lock, NULL);
    gx->e = (grGraphExec_t)(void *)((char *)(uintptr_t)p - offsetof(struct grGraphExec_st, plan));
    *out = gx;
    return grSuccess;
}

static void fake_exec_free(struct gr_dev_exec *gx)
{
    if (!gx)
        return;
    (void)enter(NULL, "exec_free");
    if (gx->last)
        gr__stream_release(gx->last);
    pthread_mutex_destroy(&gx->lock);
    gr__free(gx);
}

static int fake_exec_device(const struct gr_dev_exec *gx)
{
    return gx->device;
}

/* The fake device runs graphrt's plan, so its kernels update nodes
 * through graphrt's handles: it has none of its own. */
static void *fake_exec_devnode(struct gr_dev_exec *gx, uint32_t i)
{
    (void)gx;
    (void)i;
    (void)enter(NULL, "exec_devnode");
    return NULL;
}

/* As the CUDA kind gives an update's attributes to the driver's node: the
 * record of lowered attributes holds the node's new ones (its kernel's,
 * at the top level) in place of the old. */
static grError_t fake_exec_set_kattrs(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t i,
                                      const grLaunchAttribute *attrs, unsigned n)
{
    (void)gx;
    grKernel_t k = p->nodes[i].u.kern.k;
    pthread_mutex_lock(&launch_attrs_lock);
    bool same = true;
    unsigned had = 0;
    for (unsigned j = 0; j < nkattrs; j++)
        if (kattrs[j].cond == 0 && kattrs[j].kernel == k) {
            bool found = false;
            for (unsigned c = 0; c < n && !found; c++)
                found = attrs[c].id == kattrs[j].attr.id &&
                        memcmp(&attrs[c].val, &kattrs[j].attr.val, sizeof attrs[c].val) == 0;
            same &= found;
            had++;
        }
    pthread_mutex_unlock(&launch_attrs_lock);
    if (same && had == n)
        return grSuccess;
    ENTER(call, "exec_set_kattrs");
    pthread_mutex_lock(&launch_attrs_lock);
    unsigned w = 0;
    for (unsigned j = 0; j < nkattrs; j++)
        if (!(kattrs[j].cond == 0 && kattrs[j].kernel == k))
            kattrs[w++] = kattrs[j];
    for (unsigned c = 0; c < n && w < FAKE_KATTRS; c++)
        kattrs[w++] = (gr_fakedev_kattr){0, 0, k, attrs[c]};
    nkattrs = w;
    pthread_mutex_unlock(&launch_attrs_lock);
    return grSuccess;
}

static grError_t fake_exec_launch(const char *call, struct gr_dev_exec *gx, gr_stream *s, bool upload)
{
    ENTER(call, upload ? "exec_upload" : "exec_launch");
    if (upload)
        return grSuccess;
    gr_stream *c = cpu_of(s);
    grError_t err = gr__exec_launch(gx->e, c);
    if (!err) {
        gr__stream_retain(c);
        pthread_mutex_lock(&gx->lock);
        gr_stream *old = gx->last;
        gx->last = c;
        pthread_mutex_unlock(&gx->lock);
        if (old)
            gr__stream_release(old);
    }
    return err;
}

typedef struct defer_op {
    void (*fn)(void *);
    void *arg;
} defer_op;

static void run_defer(void *data)
{
    const defer_op *d = data;
    d->fn(d->arg);
}

/* Behind the latest launch: on its stream, which runs the launches of
 * one executable one after another. */
static bool fake_exec_defer(struct gr_dev_exec *gx, void (*fn)(void *), void *arg)
{
    (void)enter(NULL, "exec_defer");
    defer_op d = {fn, arg};
    pthread_mutex_lock(&gx->lock);
    bool queued = gx->last && gr__stream_enqueue_call("grGraphExecDestroy", gx->last, run_defer, &d,
                                                      sizeof d) == grSuccess;
    pthread_mutex_unlock(&gx->lock);
    return queued;
}

static grError_t fake_exec_set_kernel(const char *call, struct gr_dev_exec *gx, uint32_t i, grKernel_t k,
                                      const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args)
{
    (void)i;
    (void)grid;
    (void)block;
    (void)shmem;
    (void)args;
    ENTER(call, "exec_set_kernel");
    if (!gr_load_acquire(&k->gpu))
        return no_image(call, k, gx->device);
    return grSuccess;
}

static grError_t fake_exec_set_memcpy(const char *call, struct gr_dev_exec *gx, uint32_t i, void *dst,
                                      const void *src, size_t count, const gr_copy_shape *shape)
{
    (void)gx;
    (void)i;
    (void)dst;
    (void)src;
    (void)count;
    (void)shape;
    ENTER(call, "exec_set_memcpy");
    return grSuccess;
}

/* A setter that the fake device accepts whatever the value: it only
 * counts the call (and fails it where a test asked). */
#define FAKE_EXEC_SET_ACCEPTED(what, T)                                                              \
    static grError_t fake_exec_set_##what(const char *call, struct gr_dev_exec *gx, uint32_t i, T v) \
    {                                                                                                \
        (void)gx;                                                                                    \
        (void)i;                                                                                     \
        (void)v;                                                                                     \
        ENTER(call, "exec_set_" #what);                                                              \
        return grSuccess;                                                                            \
    }

FAKE_EXEC_SET_ACCEPTED(memset, const grMemsetParams *)
FAKE_EXEC_SET_ACCEPTED(host, const grHostNodeParams *)
FAKE_EXEC_SET_ACCEPTED(enabled, bool)

/* The operations arrive checked: the node's count and types, every word
 * memory the device reaches (the exec layer's, exec/devmem.c); the fake
 * device, whose memory is the host's, checks that each word is not
 * reserved device memory without backing, as the lowering does. */
static grError_t fake_exec_set_memop(const char *call, struct gr_dev_exec *gx, uint32_t i, unsigned count,
                                     const grStreamBatchMemOpParams *ops)
{
    (void)gx;
    ENTER(call, "exec_set_memop");
    grError_t err = grSuccess;
    for (unsigned k = 0; k < count && !err; k++)
        if (ops[k].operation != grStreamMemOpBarrier)
            err = check_address(call, i, ops[k].waitValue.address);
    return err;
}

/* An event's device must be the executable's. */
static grError_t event_on_exec_device(const char *call, const struct gr_dev_exec *gx, grEvent_t ev)
{
    if (ev->device != gx->device)
        return gr__fail(grErrorInvalidValue, "%s: event %p is of device %d, the executable of device %d",
                        call, (void *)ev, ev->device, gx->device);
    return grSuccess;
}

static grError_t fake_exec_set_event(const char *call, struct gr_dev_exec *gx, uint32_t i, bool record,
                                     grEvent_t ev)
{
    (void)i;
    (void)record;
    ENTER(call, "exec_set_event");
    return event_on_exec_device(call, gx, ev);
}

static grError_t fake_exec_check_kernel(const char *call, struct gr_dev_exec *gx, grKernel_t k)
{
    ENTER(call, "exec_check_kernel");
    return gr_load_acquire(&k->gpu) ? grSuccess : no_image(call, k, gx->device);
}

static grError_t fake_exec_check_event(const char *call, struct gr_dev_exec *gx, grEvent_t ev)
{
    ENTER(call, "exec_check_event");
    return event_on_exec_device(call, gx, ev);
}

static grError_t fake_exec_sync_range(const char *call, struct gr_dev_exec *gx, const gr_plan *p,
                                      uint32_t from, uint32_t to, const uint8_t *only)
{
    (void)gx;
    ENTER(call, "exec_sync_range");
    /* Each node handed over, as the CUDA kind writes it to the driver;
     * and where that kind captures a changed collective again. */
    for (uint32_t i = from; i < to; i++) {
        if (only && !only[i])
            continue;
        ENTER(call, "exec_sync_node");
        if (p->nodes[i].type == grGraphNodeTypeCollective)
            ENTER(call, "exec_sync_collective");
    }
    return grSuccess;
}

static grError_t fake_exec_set_coll(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                    const grCollectiveNodeParams *p)
{
    (void)gx;
    (void)i;
    (void)p;
    ENTER(call, "exec_set_coll");
    return grSuccess;
}

/* ------------------------------------------------------------ collectives */

/* The stand-in NCCL: communicators of one rank, whose collectives are the
 * one-rank communicator's local copies (backend/comm.c), run in stream
 * order on the fake stream's CPU stream, made by grCommInitDevices of one
 * device or grCommInitRank of one rank. A group of several devices or
 * ranks is refused: a local copy cannot stand for a real exchange. */
static int comm_token; /* what a fake communicator's handle points to */

static grError_t fake_comm_init(const char *call, int n, const int *devices, void **out)
{
    (void)devices;
    ENTER(call, "comm_init");
    if (n != 1)
        return gr__fail(grErrorNotSupported,
                        "%s: the fake device's stand-in NCCL makes communicators of one GPU only (%d asked)",
                        call, n);
    out[0] = &comm_token;
    return grSuccess;
}

/* The stand-in's unique id: a mark and a serial number, so that a rank
 * given bytes no grCommGetUniqueId made (a program that lost the id on
 * its way) is refused, as NCCL would fail to meet its peers. */
static const char fake_id_mark[] = "graphrt fake NCCL id";
static atomic_uint fake_id_serial;

static grError_t fake_comm_unique_id(const char *call, void *id)
{
    ENTER(call, "comm_unique_id");
    unsigned serial = atomic_fetch_add(&fake_id_serial, 1) + 1;
    memset(id, 0, GR_COMM_UNIQUE_ID_BYTES);
    memcpy(id, fake_id_mark, sizeof fake_id_mark);
    memcpy((char *)id + sizeof fake_id_mark, &serial, sizeof serial);
    return grSuccess;
}

/* One rank only, as fake_comm_init: more would wait for peers that a
 * local copy cannot stand for. */
static grError_t fake_comm_init_rank(const char *call, int device, int nranks, const void *id, int rank,
                                     void **out)
{
    (void)device;
    (void)rank;
    ENTER(call, "comm_init_rank");
    unsigned serial = 0;
    memcpy(&serial, (const char *)id + sizeof fake_id_mark, sizeof serial);
    if (memcmp(id, fake_id_mark, sizeof fake_id_mark) != 0 || serial == 0 ||
        serial > atomic_load(&fake_id_serial))
        return gr__fail(grErrorInvalidValue,
                        "%s: the fake device's stand-in NCCL made no such unique id (not from "
                        "grCommGetUniqueId)",
                        call);
    if (nranks != 1)
        return gr__fail(grErrorNotSupported,
                        "%s: the fake device's stand-in NCCL makes communicators of one rank only (%d asked)",
                        call, nranks);
    *out = &comm_token;
    return grSuccess;
}

static void fake_comm_free(int device, void *comm)
{
    (void)device;
    (void)comm;
    (void)enter(NULL, "comm_free");
}

static void run_coll(void *data)
{
    grCollectiveNodeParams *p = data;
    gr__coll_run_once(p);
    gr__comm_release(p->comm);
}

static grError_t fake_coll_launch(const char *call, gr_stream *s, const grCollectiveNodeParams *p)
{
    ENTER(call, "coll_launch");
    gr__comm_retain(p->comm);
    grError_t err = gr__stream_enqueue_call(call, cpu_of(s), run_coll, p, sizeof *p);
    if (err)
        gr__comm_release(p->comm);
    return err;
}

/* ------------------------------------------------------------------ table */

static const gr_device_ops fake_kind = {
    .name = "fake",
    .count = fake_count,
    .absence = fake_absence,
    .properties = fake_properties,
    .attribute = fake_attribute,
    .device_sync = fake_device_sync,
    .device_init = fake_device_init,
    .driver_version = fake_driver_version,
    .mem_info = fake_mem_info,
    .peer_access = fake_peer_access,
    .stream_create = fake_stream_create,
    .stream_priority_range = fake_stream_priority_range,
    .stream_default = fake_stream_default,
    .stream_free = fake_stream_free,
    .stream_sync = fake_stream_sync,
    .stream_query = fake_stream_query,
    .launch = fake_launch,
    .copy = fake_copy,
    .fill = fake_fill,
    .copy_pitched = fake_copy_pitched,
    .fill_2d = fake_fill_2d,
    .copy_now = fake_copy_now,
    .fill_now = fake_fill_now,
    .host_func = fake_host_func,
    .stream_memops = fake_stream_memops,
    .event_create = fake_event_create,
    .event_free = fake_event_free,
    .event_record = fake_event_record,
    .event_query = fake_event_query,
    .event_sync = fake_event_sync,
    .event_elapsed = fake_event_elapsed,
    .stream_wait_event = fake_stream_wait_event,
    .mem_alloc = fake_mem_alloc,
    .mem_free = fake_mem_free,
    .host_alloc = fake_host_alloc,
    .host_free = fake_host_free,
    .pointer_device = fake_pointer_device,
    .pointer_info = fake_pointer_info,
    .alloc_async = fake_alloc_async,
    .free_async = fake_free_async,

    .managed_alloc = fake_managed_alloc,
    .mem_advise = fake_mem_advise,
    .mem_prefetch = fake_mem_prefetch,
    .range_attribute = fake_range_attribute,
    .stream_attach = fake_stream_attach,
    .limit = fake_limit,
    .device_flags = fake_device_flags,
    .host_register = fake_host_register,
    .host_unregister = fake_host_unregister,
    .host_device_pointer = fake_host_device_pointer,
    .pool_create = fake_pool_create,
    .pool_destroy = fake_pool_destroy,
    .pool_default = fake_pool_default,
    .pool_set_current = fake_pool_set_current,
    .pool_alloc = fake_pool_alloc,
    .pool_trim = fake_pool_trim,
    .pool_attribute = fake_pool_attribute,
    .pool_set_access = fake_pool_set_access,
    .pool_get_access = fake_pool_get_access,
    .vmm_granularity = fake_vmm_granularity,
    .vmm_reserve = fake_vmm_reserve,
    .vmm_unreserve = fake_vmm_unreserve,
    .vmm_create = fake_vmm_create,
    .vmm_release = fake_vmm_release,
    .vmm_map = fake_vmm_map,
    .vmm_unmap = fake_vmm_unmap,
    .vmm_quiesce = fake_vmm_quiesce,
    .kernel_set_image = fake_kernel_set_image,
    .kernel_free = fake_kernel_free,
    .func_attributes = fake_func_attributes,
    .func_set_attribute = fake_func_set_attribute,
    .occupancy_blocks = fake_occupancy_blocks,
    .occupancy_smem = fake_occupancy_smem,
    .occupancy_clusters = fake_occupancy_clusters,
    .exec_lower = fake_exec_lower,
    .exec_free = fake_exec_free,
    .exec_device = fake_exec_device,
    .exec_launch = fake_exec_launch,
    .exec_defer = fake_exec_defer,
    .exec_set_kernel = fake_exec_set_kernel,
    .exec_set_memcpy = fake_exec_set_memcpy,
    .exec_set_memset = fake_exec_set_memset,
    .exec_set_host = fake_exec_set_host,
    .exec_set_event = fake_exec_set_event,
    .exec_set_enabled = fake_exec_set_enabled,
    .exec_set_memop = fake_exec_set_memop,
    .exec_check_kernel = fake_exec_check_kernel,
    .exec_check_event = fake_exec_check_event,
    .exec_sync_range = fake_exec_sync_range,
    .exec_devnode = fake_exec_devnode,
    .exec_set_kattrs = fake_exec_set_kattrs,
    .exec_set_coll = fake_exec_set_coll,
    .comm_init = fake_comm_init,
    .comm_unique_id = fake_comm_unique_id,
    .comm_init_rank = fake_comm_init_rank,
    .comm_free = fake_comm_free,
    .coll_launch = fake_coll_launch,
};

/* Offers the fake kind before main, so before any question about devices;
 * the backend takes it only where the CUDA kind has no device. */
__attribute__((constructor)) static void fakedev_register(void)
{
    const char *v = getenv("GRAPHRT_FAKEDEV");
    if (v && strcmp(v, "0") == 0)
        return;
    (void)gr__device_register(&fake_kind);
}
