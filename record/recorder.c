/*
 * recorder.c - the recorder's entry point and its CUPTI callbacks.
 *
 * The driver loads this library into any CUDA program named by
 * CUDA_INJECTION64_PATH and calls InitializeInjection from cuInit. It
 * subscribes to CUPTI's resource domain (graphs, nodes, dependencies and
 * executables created, cloned, destroyed, updated) and to a few driver API
 * calls (allocations and frees, capture begin and end, events recorded
 * and waited on, instantiation, exec setters and update, launches). While
 * a capture is open it also watches every driver and runtime call, to
 * give each captured node its call and stream and to catch the call that
 * invalidates the capture. Switching the two domains on and off is itself
 * costly (a program that captures many graphs in a row would pay it twice
 * a graph), so the watch stays on for GRAPHRT_RECORD_WATCH_MS (100 ms by
 * default) after the last capture ends, and the first driver call after
 * that switches it off. Each callback copies what it carries into one
 * line of the log, GRAPHRT_RECORD_DIR/callbacks-PID.log (docs/record.md);
 * graphs are walked on the helper thread of walk.c.
 *
 * Cost: outside captures a CUDA call not listed above gets no callback.
 * A graph launch takes the log lock once and bumps a counter; the counts
 * are written as one 'launch' line per executable and stream before the
 * next other line, which keeps the order that the stale-pointer check
 * needs without a line per launch.
 *
 * Lock order: walk.c's queue lock, then rec_lock, then watch_lock; never
 * the reverse.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "recorder.h"

#include <cupti.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

FILE *rec_out;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle sub;
static int timing;
static int captures;  /* open captures; atomic (__atomic builtins) */
static unsigned tids; /* thread ids handed out; atomic */
/* Bumped whenever the whole driver and runtime domains are switched on or
 * off: a call entered under an older epoch may never see its exit
 * callback, so what its enter left in tl_call or tl_rt_call is stale.
 * Atomic. */
static unsigned rt_epoch;

/* The watch of every call (watch_set): on or off, guarded by watch_lock;
 * 'watching' is also read without the lock as a hint. While no capture is
 * open it goes off at watch_until (CLOCK_MONOTONIC_COARSE ns, atomic).
 * The switches and their time are written on the 'end' line. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static int watching;
static uint64_t watch_hold_ns = 100 * 1000000ull, watch_until;
static uint64_t watch_switches, watch_ns;

/* This thread: its id, the driver and runtime calls in progress, the
 * stream the driver call named, the capture mode it set. */
static _Thread_local unsigned tl_tid;
static _Thread_local const char *tl_call, *tl_rt_call;
static _Thread_local CUstream tl_stream, tl_rt_stream;
static _Thread_local int tl_has_stream, tl_has_rt_stream;
static _Thread_local unsigned tl_rt_epoch, tl_epoch;
/* Inside a cuGraphInstantiate* call: the nodes the driver makes then
 * belong to its own copies of the graph, not to any graph of the
 * program, so they do not make the next walk necessary. */
static _Thread_local int tl_instantiating;
static _Thread_local int tl_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

unsigned rec_tid(void)
{
    if (!tl_tid)
        tl_tid = __atomic_add_fetch(&tids, 1, __ATOMIC_RELAXED);
    return tl_tid;
}

uint32_t rec_graph_id(CUgraph g)
{
    uint32_t id = 0;
    if (g)
        cuptiGetGraphId(g, &id);
    return id;
}

uint64_t rec_node_id(CUgraphNode n)
{
    uint64_t id = 0;
    if (n)
        cuptiGetGraphNodeId(n, &id);
    return id;
}

uint32_t rec_exec_id(CUgraphExec x)
{
    uint32_t id = 0;
    if (x)
        cuptiGetGraphExecId(x, &id);
    return id;
}

/* ---------------------------------------------------------- launches */

/* Launch counts per (executable, stream), guarded by rec_lock. An open-
 * addressed table; 'dirty' lists the slots with a count not yet written. */
#define LSLOTS 4096
typedef struct lslot {
    CUgraphExec x;
    CUstream s;
    uint32_t xid;
    uint64_t pending;
} lslot;
static lslot lslots[LSLOTS];
static unsigned dirty[LSLOTS], ndirty;
static uint64_t lost_launches;

static void flush_launches(void)
{
    for (unsigned i = 0; i < ndirty; i++) {
        lslot *l = &lslots[dirty[i]];
        fprintf(rec_out, "launch x=%u s=%p count=%llu\n", l->xid, (void *)l->s,
                (unsigned long long)l->pending);
        l->pending = 0;
    }
    ndirty = 0;
}

#define TOMB ((CUgraphExec)(uintptr_t)1)

static void count_launch(CUgraphExec x, CUstream s)
{
    size_t h = (((uintptr_t)x >> 4) * 31u + ((uintptr_t)s >> 4)) & (LSLOTS - 1);
    lslot *tomb = NULL;
    pthread_mutex_lock(&rec_lock);
    for (size_t k = 0; k < LSLOTS; k++, h = (h + 1) & (LSLOTS - 1)) {
        lslot *l = &lslots[h];
        if (l->x == TOMB && !tomb)
            tomb = l;
        if (!l->x || (l->x == x && l->s == s)) {
            if (!l->x) {
                /* Not counted yet: take the first tombstone passed, else this slot. */
                l = tomb ? tomb : l;
                l->x = x;
                l->s = s;
                l->xid = rec_exec_id(x);
                l->pending = 0;
            }
            if (!l->pending++)
                dirty[ndirty++] = (unsigned)(l - lslots);
            pthread_mutex_unlock(&rec_lock);
            return;
        }
    }
    if (tomb) {
        tomb->x = x;
        tomb->s = s;
        tomb->xid = rec_exec_id(x);
        tomb->pending = 1;
        dirty[ndirty++] = (unsigned)(tomb - lslots);
    } else {
        lost_launches++;
    }
    pthread_mutex_unlock(&rec_lock);
}

/* An executable destroyed: its slots are written and forgotten, so that a
 * later executable at the same address starts its own counts. */
static void forget_exec(CUgraphExec x)
{
    pthread_mutex_lock(&rec_lock);
    flush_launches();
    for (size_t h = 0; h < LSLOTS; h++)
        if (lslots[h].x == x)
            lslots[h].x = TOMB; /* keeps probe chains; count_launch reuses it */
    pthread_mutex_unlock(&rec_lock);
}

/* --------------------------------------------------------------- log */

void rec_log_begin(void)
{
    pthread_mutex_lock(&rec_lock);
    if (ndirty)
        flush_launches();
}

void rec_log_end(void)
{
    pthread_mutex_unlock(&rec_lock);
}

void rec_logf(const char *fmt, ...)
{
    va_list ap;
    rec_log_begin();
    if (rec_out) {
        va_start(ap, fmt);
        vfprintf(rec_out, fmt, ap);
        va_end(ap);
    }
    rec_log_end();
}

/* ------------------------------------------------- conditional handles */

#define CSLOTS 1024
static struct {
    CUgraphConditionalHandle h;
    unsigned dflt, flags;
} conds[CSLOTS];
static unsigned nconds;

void rec_cond_note(CUgraphConditionalHandle h, unsigned dflt, unsigned flags)
{
    pthread_mutex_lock(&rec_lock);
    unsigned i = nconds < CSLOTS ? nconds++ : (unsigned)(h % CSLOTS);
    conds[i].h = h;
    conds[i].dflt = dflt;
    conds[i].flags = flags;
    pthread_mutex_unlock(&rec_lock);
}

int rec_cond_find(CUgraphConditionalHandle h, unsigned *dflt, unsigned *flags)
{
    int found = 0;
    pthread_mutex_lock(&rec_lock);
    for (unsigned i = nconds; i-- > 0 && !found;)
        if (conds[i].h == h) {
            *dflt = conds[i].dflt;
            *flags = conds[i].flags;
            found = 1;
        }
    pthread_mutex_unlock(&rec_lock);
    return found;
}

/* Conditional nodes by node handle, guarded by rec_lock; a small table
 * overwritten round-robin when full (a walk then says 'unknown'). */
#define NSLOTS 1024
static struct {
    CUgraphNode n;
    rec_condnode c;
} * cnodes;
static unsigned ncnodes;

void rec_condnode_note(CUgraphNode n, const CUDA_CONDITIONAL_NODE_PARAMS *p)
{
    pthread_mutex_lock(&rec_lock);
    if (!cnodes)
        cnodes = calloc(NSLOTS, sizeof *cnodes);
    if (cnodes) {
        unsigned i = ncnodes++ % NSLOTS;
        cnodes[i].n = n;
        cnodes[i].c.handle = p->handle;
        cnodes[i].c.type = p->type;
        cnodes[i].c.size = p->size;
        for (unsigned b = 0; b < p->size && b < REC_COND_BODIES; b++)
            cnodes[i].c.body[b] = p->phGraph_out ? p->phGraph_out[b] : NULL;
    }
    pthread_mutex_unlock(&rec_lock);
}

unsigned rec_condnode_find(CUgraphNode n, rec_condnode *out)
{
    unsigned size = 0;
    pthread_mutex_lock(&rec_lock);
    unsigned have = ncnodes < NSLOTS ? ncnodes : NSLOTS;
    for (unsigned i = 0; cnodes && i < have && !size; i++)
        if (cnodes[i].n == n) {
            *out = cnodes[i].c;
            size = out->size;
        }
    pthread_mutex_unlock(&rec_lock);
    return size;
}

/* ------------------------------------------------------------ timing */

/* Per graph node: GPU time of each run, from CUPTI activity records;
 * guarded by rec_lock. Written as 'time' lines at exit. */
#define TSLOTS 16384
typedef struct tslot {
    uint64_t node;
    uint32_t graph;
    const char *kind;
    uint64_t count, total, min, max;
} tslot;
static tslot *tslots;

static void time_add(uint64_t node, uint32_t graph, const char *kind, uint64_t ns)
{
    if (!node || !tslots)
        return;
    size_t h = (size_t)(node * 0x9e3779b97f4a7c15ull) & (TSLOTS - 1);
    for (size_t k = 0; k < TSLOTS; k++, h = (h + 1) & (TSLOTS - 1)) {
        tslot *t = &tslots[h];
        if (!t->node) {
            t->node = node;
            t->graph = graph;
            t->kind = kind;
            t->min = ns;
        }
        if (t->node == node) {
            t->count++;
            t->total += ns;
            t->min = ns < t->min ? ns : t->min;
            t->max = ns > t->max ? ns : t->max;
            return;
        }
    }
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *maxRecords)
{
    *size = 8 << 20;
    *buffer = aligned_alloc(8, *size);
    *maxRecords = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t streamId, uint8_t *buffer, size_t size,
                                   size_t valid)
{
    (void)ctx;
    (void)streamId;
    (void)size;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&rec_lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
            time_add(k->graphNodeId, k->graphId, "kernel", k->end - k->start);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
            time_add(m->graphNodeId, m->graphId, "memcpy", m->end - m->start);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
            time_add(m->graphNodeId, m->graphId, "memset", m->end - m->start);
            break;
        }
        default:
            break;
        }
    }
    pthread_mutex_unlock(&rec_lock);
    free(buffer);
}

/* --------------------------------------------------------- callbacks */

static const CUpti_CallbackId watched[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
    CUPTI_DRIVER_TRACE_CBID_cuMemPoolTrimTo,
    CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuThreadExchangeStreamCaptureMode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphConditionalHandleCreate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2,
    /* Setters of a graph's nodes: they change what a walk would read. */
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeCopyAttributes,
    CUPTI_DRIVER_TRACE_CBID_cuGraphMemcpyNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphMemsetNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphEventRecordNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphEventWaitNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphBatchMemOpNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresSignalNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresWaitNodeSetParams,
};

static uint64_t clock_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Switches the watch of every driver and runtime call; watch_lock held. */
static void watch_set(int on)
{
    if (watching == on)
        return;
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
    cuptiEnableDomain(on ? 1u : 0u, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    cuptiEnableDomain(on ? 1u : 0u, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    __atomic_add_fetch(&rt_epoch, 1, __ATOMIC_RELEASE);
    if (!on)
        for (size_t i = 0; i < sizeof watched / sizeof *watched; i++)
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, watched[i]);
    __atomic_store_n(&watching, on, __ATOMIC_RELAXED);
    watch_switches++;
    watch_ns += clock_ns(CLOCK_MONOTONIC) - t0;
}

static void watch_capture_begun(void)
{
    __atomic_add_fetch(&captures, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_lock(&watch_lock);
    watch_set(1);
    pthread_mutex_unlock(&watch_lock);
}

/* Switches the watch off unless a capture has begun meanwhile. */
static void watch_off_if_idle(void)
{
    pthread_mutex_lock(&watch_lock);
    if (__atomic_load_n(&captures, __ATOMIC_ACQUIRE) == 0)
        watch_set(0);
    pthread_mutex_unlock(&watch_lock);
}

static void watch_capture_ended(void)
{
    if (__atomic_sub_fetch(&captures, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    __atomic_store_n(&watch_until, clock_ns(CLOCK_MONOTONIC_COARSE) + watch_hold_ns, __ATOMIC_RELEASE);
    if (watch_hold_ns == 0)
        watch_off_if_idle();
}

/* At the exit of a driver call: the watch goes off once it has been held
 * long enough with no capture open. */
static void watch_expire(void)
{
    if (!__atomic_load_n(&watching, __ATOMIC_RELAXED) || __atomic_load_n(&captures, __ATOMIC_ACQUIRE) ||
        clock_ns(CLOCK_MONOTONIC_COARSE) < __atomic_load_n(&watch_until, __ATOMIC_ACQUIRE))
        return;
    watch_off_if_idle();
}

static const char *mode_word(int m)
{
    switch (m) {
    case CU_STREAM_CAPTURE_MODE_GLOBAL:
        return "global";
    case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
        return "thread";
    case CU_STREAM_CAPTURE_MODE_RELAXED:
        return "relaxed";
    }
    return "unknown";
}

/* The stream a driver call names, for the calls that enqueue work (what
 * a captured node records as its stream). */
static int call_stream(CUpti_CallbackId id, const void *p, CUstream *s)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        *s = ((const cuLaunchKernel_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        *s = ((const cuLaunchKernelEx_params *)p)->config->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
        *s = ((const cuMemcpyAsync_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
        *s = ((const cuMemcpyDtoDAsync_v2_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
        *s = ((const cuMemcpyHtoDAsync_v2_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
        *s = ((const cuMemcpyDtoHAsync_v2_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz:
        *s = ((const cuMemcpy3DAsync_v2_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz:
        *s = ((const cuMemcpy2DAsync_v2_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
        *s = ((const cuMemsetD8Async_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
        *s = ((const cuMemsetD32Async_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz:
        *s = ((const cuMemsetD2D32Async_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
        *s = ((const cuLaunchHostFunc_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
        *s = ((const cuEventRecord_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
        *s = ((const cuEventRecordWithFlags_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        *s = ((const cuStreamWaitEvent_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
        *s = ((const cuMemAllocAsync_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        *s = ((const cuMemFreeAsync_params *)p)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        *s = ((const cuGraphLaunch_params *)p)->hStream;
        return 1;
    default:
        return 0;
    }
}

/* The same for the runtime calls that enqueue work or order streams
 * (watched only while a capture is open), in case the runtime reaches the
 * driver without a driver callback. */
static int rt_call_stream(CUpti_CallbackId id, const void *p, CUstream *s)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        *s = (CUstream)((const cudaLaunchKernel_v7000_params *)p)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        *s = (CUstream)((const cudaLaunchKernelExC_v11060_params *)p)->config->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        *s = (CUstream)((const cudaMemcpyAsync_v3020_params *)p)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
        *s = (CUstream)((const cudaMemsetAsync_v3020_params *)p)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
        *s = (CUstream)((const cudaEventRecord_v3020_params *)p)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
        *s = (CUstream)((const cudaEventRecordWithFlags_v11010_params *)p)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        *s = (CUstream)((const cudaStreamWaitEvent_v3020_params *)p)->stream;
        return 1;
    default:
        return 0;
    }
}

/* Event records and waits seen by the runtime domain (during captures). */
static void rt_events(CUpti_CallbackId id, const void *p)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
        rec_logf("event-record e=%p s=%p t=%u call=%s\n",
                 (void *)((const cudaEventRecord_v3020_params *)p)->event,
                 (void *)((const cudaEventRecord_v3020_params *)p)->stream, rec_tid(), tl_rt_call);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        rec_logf("event-wait s=%p e=%p t=%u call=%s\n",
                 (void *)((const cudaStreamWaitEvent_v3020_params *)p)->stream,
                 (void *)((const cudaStreamWaitEvent_v3020_params *)p)->event, rec_tid(), tl_rt_call);
        break;
    default:
        break;
    }
}

/* Whether the runtime call this thread entered is still in progress. */
static int rt_call_current(void)
{
    return tl_rt_call && tl_rt_epoch == __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE);
}

static const char *call_name(void)
{
    if (rt_call_current())
        return tl_rt_call;
    if (tl_call && tl_epoch == __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE))
        return tl_call;
    return "-";
}

static void on_resource(CUpti_CallbackId id, const CUpti_ResourceData *rd)
{
    /* The domain also reports contexts, streams and modules, some of them
     * (from cuInit) with no data at all: only graph callbacks carry a
     * CUpti_GraphData. */
    if (id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
        rec_walk_module_unloaded();
    if (id < CUPTI_CBID_RESOURCE_GRAPH_CREATED || !rd || !rd->resourceDescriptor)
        return;
    const CUpti_GraphData *gd = (const CUpti_GraphData *)rd->resourceDescriptor;
    /* Node removals, clones and edges are not logged (the walks hold the
     * graphs; a line each would cost every captured node and every
     * instantiation, which clones the graph); they only make the next
     * walk of a graph necessary. */
    switch (id) {
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_DESTROY_STARTING:
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
        if (!tl_instantiating)
            rec_walk_mutated();
        break;
    default:
        break;
    }
    switch (id) {
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
        rec_logf("graph-create g=%u t=%u call=%s\n", rec_graph_id(gd->graph), rec_tid(), call_name());
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
        rec_logf("graph-clone g=%u from=%u t=%u call=%s\n", rec_graph_id(gd->graph),
                 rec_graph_id(gd->originalGraph), rec_tid(), call_name());
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING:
        rec_walk_wait_graph(gd->graph);
        rec_logf("graph-destroy g=%u t=%u\n", rec_graph_id(gd->graph), rec_tid());
        break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        if (tl_has_stream && tl_epoch != __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE))
            tl_has_stream = 0; /* left by a call whose exit was never seen */
        if (!tl_has_stream && tl_has_rt_stream && rt_call_current()) {
            tl_stream = tl_rt_stream;
            tl_has_stream = 1;
        }
        if (tl_has_stream)
            rec_logf("node-create g=%u n=%llu type=%d t=%u call=%s s=%p\n", rec_graph_id(gd->graph),
                     (unsigned long long)rec_node_id(gd->node), (int)gd->nodeType, rec_tid(), call_name(),
                     (void *)tl_stream);
        else
            rec_logf("node-create g=%u n=%llu type=%d t=%u call=%s\n", rec_graph_id(gd->graph),
                     (unsigned long long)rec_node_id(gd->node), (int)gd->nodeType, rec_tid(), call_name());
        break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: {
        uint32_t x = rec_exec_id(gd->graphExec);
        rec_logf("exec-create x=%u g=%u t=%u call=%s\n", x, rec_graph_id(gd->graph), rec_tid(), call_name());
        rec_walk_request(gd->graph, rd->context, "instantiate", x);
        break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
        forget_exec(gd->graphExec);
        rec_logf("exec-destroy x=%u\n", rec_exec_id(gd->graphExec));
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
        rec_logf("exec-node-set x=%u n=%llu\n", rec_exec_id(gd->graphExec),
                 (unsigned long long)rec_node_id(gd->node));
        break;
    default:
        break;
    }
}

/* The first two parameters of every cuGraphExec*SetParams. */
typedef struct setter_params {
    CUgraphExec x;
    CUgraphNode n;
} setter_params;

/* A cuGraphInstantiate* call: the driver's nodes made meanwhile belong
 * to its copies of the graph (tl_instantiating), and its exit logs the
 * executable. */
static int is_instantiate(CUpti_CallbackId id)
{
    return id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2 ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz;
}

static void log_instantiate(CUpti_CallbackId id, const void *p, CUresult rc, unsigned t)
{
    const cuGraphInstantiateWithFlags_params *a = p;
    unsigned long long flags = 0;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags)
        flags = a->flags;
    else if (id != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate &&
             id != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2)
        flags = ((const cuGraphInstantiateWithParams_params *)p)->instantiateParams->flags;
    rec_logf("instantiate x=%u g=%u rc=%d flags=%llu t=%u call=%s\n",
             rc == CUDA_SUCCESS ? rec_exec_id(*a->phGraphExec) : 0, rec_graph_id(a->hGraph), (int)rc, flags,
             t, call_name());
}

static void on_driver_exit(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    CUresult rc = cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
    unsigned t = rec_tid();
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetAttribute:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeCopyAttributes:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphMemcpyNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphMemsetNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphEventRecordNodeSetEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphEventWaitNodeSetEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphBatchMemOpNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresSignalNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresWaitNodeSetParams:
        rec_walk_mutated();
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        if (rc == CUDA_SUCCESS)
            count_launch(((const cuGraphLaunch_params *)p)->hGraph,
                         ((const cuGraphLaunch_params *)p)->hStream);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        const cuMemAlloc_v2_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=0x%llx size=%zu kind=device call=%s t=%u\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        const cuMemAllocPitch_v2_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=0x%llx size=%zu kind=device call=%s t=%u\n", (unsigned long long)*a->dptr,
                     *a->pPitch * a->Height, call_name(), t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=%p size=%zu kind=pinned call=%s t=%u\n", *a->pp, a->bytesize, call_name(), t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
        const cuMemHostAlloc_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=%p size=%zu kind=pinned call=%s t=%u\n", *a->pp, a->bytesize, call_name(), t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=0x%llx size=%zu kind=managed call=%s t=%u\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        const cuMemAllocAsync_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=0x%llx size=%zu kind=pool call=%s t=%u s=%p\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t, (void *)a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        const cuMemAllocFromPoolAsync_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=0x%llx size=%zu kind=pool call=%s t=%u s=%p\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t, (void *)a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
        const cuMemHostRegister_v2_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_logf("alloc p=%p size=%zu kind=registered call=%s t=%u\n", a->p, a->bytesize, call_name(), t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree:
        rec_walk_memory_freed();
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        rec_walk_memory_freed();
        if (rc == CUDA_SUCCESS)
            rec_logf("free p=0x%llx call=%s t=%u\n",
                     (unsigned long long)((const cuMemFree_v2_params *)p)->dptr, call_name(), t);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
        rec_walk_memory_freed();
        if (rc == CUDA_SUCCESS)
            rec_logf("free p=%p call=%s t=%u\n", ((const cuMemFreeHost_params *)p)->p, call_name(), t);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
        rec_walk_memory_freed();
        if (rc == CUDA_SUCCESS)
            rec_logf("free p=%p call=%s t=%u\n", ((const cuMemHostUnregister_params *)p)->p, call_name(), t);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
        const cuMemFreeAsync_params *a = p;
        rec_walk_memory_freed();
        if (rc == CUDA_SUCCESS)
            rec_logf("free p=0x%llx call=%s t=%u s=%p\n", (unsigned long long)a->dptr, call_name(), t,
                     (void *)a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemPoolTrimTo: {
        const cuMemPoolTrimTo_params *a = p;
        rec_walk_memory_freed();
        rec_logf("trim pool=%p keep=%zu call=%s t=%u rc=%d\n", (void *)a->pool, a->minBytesToKeep,
                 call_name(), t, (int)rc);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz: {
        CUstream s = ((const cuStreamBeginCapture_params *)p)->hStream;
        int mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
        uint32_t into = 0;
        if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
            id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz)
            mode = ((const cuStreamBeginCapture_v2_params *)p)->mode;
        if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph ||
            id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz) {
            mode = ((const cuStreamBeginCaptureToGraph_params *)p)->mode;
            into = rec_graph_id(((const cuStreamBeginCaptureToGraph_params *)p)->hGraph);
        }
        rec_logf("capture-begin s=%p mode=%s rc=%d t=%u call=%s into=%u\n", (void *)s, mode_word(mode),
                 (int)rc, t, call_name(), into);
        if (rc == CUDA_SUCCESS)
            watch_capture_begun();
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz: {
        const cuStreamEndCapture_params *a = p;
        CUgraph g = a->phGraph ? *a->phGraph : NULL;
        rec_logf("capture-end s=%p g=%u rc=%d t=%u call=%s\n", (void *)a->hStream,
                 rc == CUDA_SUCCESS ? rec_graph_id(g) : 0, (int)rc, t, call_name());
        /* An end that fails for a stream that was not capturing closes
         * nothing; any other end closes the capture. */
        if (rc != CUDA_ERROR_ILLEGAL_STATE && rc != CUDA_ERROR_INVALID_VALUE &&
            rc != CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
            watch_capture_ended();
        if (rc == CUDA_SUCCESS && g)
            rec_walk_request(g, cb->context, "capture", 0);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2: {
        const cuGraphExecUpdate_v2_params *a = p;
        const CUgraphExecUpdateResultInfo *ri = a->resultInfo;
        uint32_t x = rec_exec_id(a->hGraphExec);
        rec_logf("update x=%u g=%u rc=%d result=%d errnode=%llu errfrom=%llu t=%u\n", x,
                 rec_graph_id(a->hGraph), (int)rc, ri ? (int)ri->result : -1,
                 ri ? (unsigned long long)rec_node_id(ri->errorNode) : 0ull,
                 ri ? (unsigned long long)rec_node_id(ri->errorFromNode) : 0ull, t);
        rec_walk_request(a->hGraph, cb->context, "update", x);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams: {
        const setter_params *a = p;
        rec_logf("set x=%u n=%llu call=%s rc=%d t=%u\n", rec_exec_id(a->x),
                 (unsigned long long)rec_node_id(a->n), cb->functionName, (int)rc, t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphConditionalHandleCreate: {
        const cuGraphConditionalHandleCreate_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_cond_note(*a->pHandle_out, a->defaultLaunchValue, a->flags);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode: {
        const cuGraphAddNode_params *a = p;
        if (rc == CUDA_SUCCESS && a->nodeParams->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            rec_condnode_note(*a->phGraphNode, &a->nodeParams->conditional);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2: {
        const cuGraphAddNode_v2_params *a = p;
        if (rc == CUDA_SUCCESS && a->nodeParams->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            rec_condnode_note(*a->phGraphNode, &a->nodeParams->conditional);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
        if (rc == CUDA_SUCCESS)
            rec_logf("event-record e=%p s=%p t=%u call=%s\n",
                     (void *)((const cuEventRecord_params *)p)->hEvent,
                     (void *)((const cuEventRecord_params *)p)->hStream, t, call_name());
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        if (rc == CUDA_SUCCESS)
            rec_logf("event-wait s=%p e=%p t=%u call=%s\n",
                     (void *)((const cuStreamWaitEvent_params *)p)->hStream,
                     (void *)((const cuStreamWaitEvent_params *)p)->hEvent, t, call_name());
        break;
    default:
        if (is_instantiate(id))
            log_instantiate(id, p, rc, t);
        break;
    }
    /* Any call that a capture refused (CUDA_ERROR_STREAM_CAPTURE_*):
     * the first one names the call that invalidated a capture. */
    if (rc >= CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED && rc <= CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD) {
        if (tl_has_stream)
            rec_logf("capture-error call=%s rc=%d t=%u mode=%s s=%p\n", cb->functionName, (int)rc, t,
                     mode_word(tl_mode), (void *)tl_stream);
        else
            rec_logf("capture-error call=%s rc=%d t=%u mode=%s\n", cb->functionName, (int)rc, t,
                     mode_word(tl_mode));
    }
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud;
    if (!rec_out)
        return;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        on_resource(id, (const CUpti_ResourceData *)data);
        return;
    }
    if (rec_walking)
        return;
    const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            tl_rt_call = cb->functionName;
            tl_rt_epoch = __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE);
            tl_has_rt_stream = rt_call_stream(id, cb->functionParams, &tl_rt_stream);
        } else {
            int rc = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
            if (rc == 0)
                rt_events(id, cb->functionParams);
            tl_has_rt_stream = 0;
            if (rc >= 900 && rc <= 908)
                rec_logf("capture-error call=%s rc=%d t=%u mode=%s runtime=1\n", cb->functionName, rc,
                         rec_tid(), mode_word(tl_mode));
            tl_rt_call = NULL;
        }
        return;
    }
    if (dom != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        tl_call = cb->functionName;
        tl_epoch = __atomic_load_n(&rt_epoch, __ATOMIC_ACQUIRE);
        tl_has_stream = call_stream(id, cb->functionParams, &tl_stream);
        tl_instantiating = is_instantiate(id);
        if (id == CUPTI_DRIVER_TRACE_CBID_cuThreadExchangeStreamCaptureMode) {
            const cuThreadExchangeStreamCaptureMode_params *a = cb->functionParams;
            tl_mode = (int)*a->mode;
        }
        return;
    }
    on_driver_exit(id, cb);
    rec_walk_flush();
    watch_expire();
    tl_call = NULL;
    tl_has_stream = 0;
    tl_instantiating = 0;
}

/* ------------------------------------------------------ start, finish */

static void finish(void)
{
    if (!rec_out)
        return;
    if (timing)
        cuptiActivityFlushAll(1);
    rec_walk_stop();
    rec_log_begin();
    for (size_t i = 0; tslots && i < TSLOTS; i++)
        if (tslots[i].node)
            fprintf(rec_out, "time n=%llu g=%u kind=%s count=%llu total_ns=%llu min_ns=%llu max_ns=%llu\n",
                    (unsigned long long)tslots[i].node, tslots[i].graph, tslots[i].kind,
                    (unsigned long long)tslots[i].count, (unsigned long long)tslots[i].total,
                    (unsigned long long)tslots[i].min, (unsigned long long)tslots[i].max);
    pthread_mutex_lock(&watch_lock);
    fprintf(rec_out, "end lost_launches=%llu watch_switches=%llu watch_us=%llu\n",
            (unsigned long long)lost_launches, (unsigned long long)watch_switches,
            (unsigned long long)(watch_ns / 1000));
    pthread_mutex_unlock(&watch_lock);
    fclose(rec_out);
    rec_out = NULL;
    rec_log_end();
}

static void put_cmdline(FILE *f)
{
    FILE *c = fopen("/proc/self/cmdline", "rb");
    fputs(" argv=\"", f);
    int ch, sep = 0;
    while (c && (ch = fgetc(c)) != EOF) {
        if (ch == 0) {
            sep = 1; /* a space, written only if another word follows */
            continue;
        }
        if (sep)
            fputs("\\x20", f);
        sep = 0;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch <= ' ' || ch > '~')
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
    fputs("\"", f);
    if (c)
        fclose(c);
}

/* The driver calls this from cuInit when the library is named by
 * CUDA_INJECTION64_PATH. Returns 1 on success, as CUPTI's samples do. */
__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
    static int done;
    if (done++)
        return 1;
    const char *dir = getenv("GRAPHRT_RECORD_DIR");
    if (!dir || !*dir)
        dir = "graphrt-record";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "graphrt record: cannot create '%s': %s\n", dir, strerror(errno));
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/callbacks-%d.log", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "graphrt record: cannot write '%s': %s\n", path, strerror(errno));
        return 0;
    }
    static char fbuf[1 << 16];
    setvbuf(f, fbuf, _IOFBF, sizeof fbuf);
    const char *tm = getenv("GRAPHRT_RECORD_TIMING");
    timing = tm && *tm && strcmp(tm, "0") != 0;
    fprintf(f, "graphrt-record 1\nprocess pid=%d timing=%d", (int)getpid(), timing);
    put_cmdline(f);
    fputc('\n', f);
    rec_out = f;
    if (cuptiSubscribe(&sub, on_callback, NULL) != CUPTI_SUCCESS) {
        fprintf(stderr, "graphrt record: cuptiSubscribe failed (is another CUPTI tool attached?)\n");
        fprintf(f, "end error=cuptiSubscribe\n");
        fclose(f);
        rec_out = NULL;
        return 0;
    }
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE);
    for (size_t i = 0; i < sizeof watched / sizeof *watched; i++)
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, watched[i]);
    if (timing) {
        tslots = calloc(TSLOTS, sizeof *tslots);
        cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    }
    const char *wm = getenv("GRAPHRT_RECORD_WATCH_MS");
    if (wm && *wm)
        watch_hold_ns = strtoull(wm, NULL, 10) * 1000000ull;
    const char *sw = getenv("GRAPHRT_RECORD_SYNC_WALKS");
    rec_walk_start(sw && *sw && strcmp(sw, "0") != 0);
    atexit(finish);
    return 1;
}
