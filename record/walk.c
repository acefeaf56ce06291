/*
 * walk.c - the recorder's helper thread: walks a graph with the driver's
 * query API (cuGraphGetNodes, cuGraph*NodeGetParams,
 * cuGraphNodeGetDependencies, cuFuncGetName, cuFuncGetParamInfo,
 * cuPointerGetAttributes) and appends the walk to the log as one block.
 *
 * Callbacks queue requests (rec_walk_request) and never call CUDA; this
 * thread is the only one of the recorder that does. A walk is written to a
 * memory stream first and appended under the log lock in one piece, so a
 * block is never interleaved with other lines.
 *
 * Invariant: a graph named by a queued request or by the walk in progress
 * is alive: its GRAPH_DESTROY_STARTING callback waits here
 * (rec_walk_wait_graph) until no request names it. The wait is bounded
 * (10 s) so that a driver that held a lock across the callback could not
 * hang the program; a walk cut that way is marked in the log.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "recorder.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct req {
    struct req *next;
    CUgraph g;
    CUcontext ctx;
    const char *why;
    uint32_t x, w;
} req;

/* Guarded by qlock: the queue, the graph being walked, the stop flag. */
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static req *qhead, *qtail;
static CUgraph walking;
static int stopping, started;
static uint32_t next_walk;
static pthread_t helper;

/* GRAPHRT_RECORD_SYNC_WALKS=1: walks run on the calling thread at the exit
 * of the driver call that asked for them (rec_walk_flush), not on the
 * helper thread. The API call has returned its work by then, but this is
 * a CUDA call inside a callback, which CUPTI's rule forbids: it is an
 * escape hatch for a driver that would not let the helper walk while a
 * destroy callback waits, not the default. Set once at start. */
static int sync_walks;
static _Thread_local req *tl_pending;

/* ------------------------------------------------------------ values */

/* The allocation nodes of the graph being walked (its top level, where
 * CUDA allows them): an address inside one is graph memory. Per thread,
 * as --sync-walks walks on the program's threads. */
#define GMEM_MAX 256
static _Thread_local struct {
    CUdeviceptr base;
    size_t size;
} gmem[GMEM_MAX];
static _Thread_local size_t ngmem;

static void note_graph_memory(CUgraph g)
{
    size_t n = 0;
    ngmem = 0;
    if (cuGraphGetNodes(g, NULL, &n) != CUDA_SUCCESS || n == 0)
        return;
    CUgraphNode *v = calloc(n, sizeof *v);
    if (v && cuGraphGetNodes(g, v, &n) == CUDA_SUCCESS)
        for (size_t i = 0; i < n && ngmem < GMEM_MAX; i++) {
            CUgraphNodeType t;
            CUDA_MEM_ALLOC_NODE_PARAMS p;
            memset(&p, 0, sizeof p);
            if (cuGraphNodeGetType(v[i], &t) == CUDA_SUCCESS && t == CU_GRAPH_NODE_TYPE_MEM_ALLOC &&
                cuGraphMemAllocNodeGetParams(v[i], &p) == CUDA_SUCCESS) {
                gmem[ngmem].base = p.dptr;
                gmem[ngmem++].size = p.bytesize;
            }
        }
    free(v);
}

static const char *class_of(CUdeviceptr v, CUdeviceptr *base, size_t *size)
{
    for (size_t i = 0; i < ngmem; i++)
        if (v >= gmem[i].base && v < gmem[i].base + gmem[i].size) {
            *base = gmem[i].base;
            *size = gmem[i].size;
            return "graph";
        }
    unsigned mtype = 0, managed = 0;
    CUdeviceptr start = 0;
    size_t rsize = 0;
    CUmemoryPool pool = NULL;
    CUpointer_attribute at[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
    void *data[] = {&mtype, &managed, &start, &rsize, &pool};
    if (v < 65536 || cuPointerGetAttributes(5, at, data, v) != CUDA_SUCCESS || mtype == 0 || rsize == 0)
        return NULL;
    *base = start;
    *size = rsize;
    if (managed)
        return "managed";
    if (pool)
        return "pool";
    if (mtype == CU_MEMORYTYPE_HOST)
        return "pinned";
    return "device";
}

/* A pointer: p:CLASS:ADDR:BASE:SIZE, or null. host_size > 0 says the
 * address is host memory of that many bytes when CUDA does not know it. */
static void put_ref(FILE *f, CUdeviceptr a, size_t host_size)
{
    CUdeviceptr base;
    size_t size;
    if (!a) {
        fputs("null", f);
        return;
    }
    const char *cls = class_of(a, &base, &size);
    if (!cls) {
        cls = host_size ? "host" : "unknown";
        base = a;
        size = host_size ? host_size : 1;
    }
    fprintf(f, "p:%s:0x%llx:0x%llx:%zu", cls, (unsigned long long)a, (unsigned long long)base, size);
}

static void put_name(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c <= ' ' || c > '~')
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* ------------------------------------------------------------- nodes */

static void put_kernel(FILE *f, CUgraphNode n)
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    if (cuGraphKernelNodeGetParams(n, &p) != CUDA_SUCCESS) {
        fputs("other type=kernel-unreadable", f);
        return;
    }
    const char *name = NULL;
    if (p.func)
        cuFuncGetName(&name, p.func);
    else if (p.kern)
        cuKernelGetName(&name, p.kern);
    fputs("kernel ", f);
    put_name(f, name ? name : "?");
    fprintf(f, " grid=%u,%u,%u block=%u,%u,%u shmem=%u", p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX,
            p.blockDimY, p.blockDimZ, p.sharedMemBytes);
    /* Arguments: kernelParams, or the packed buffer of 'extra'. */
    const char *packed = NULL;
    if (!p.kernelParams && p.extra) {
        for (size_t i = 0; p.extra[i] != CU_LAUNCH_PARAM_END; i += 2)
            if (p.extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                packed = (const char *)p.extra[i + 1];
    }
    for (size_t i = 0;; i++) {
        size_t off = 0, sz = 0;
        CUresult r =
            p.func ? cuFuncGetParamInfo(p.func, i, &off, &sz) : cuKernelGetParamInfo(p.kern, i, &off, &sz);
        if (r != CUDA_SUCCESS)
            break;
        const unsigned char *v = p.kernelParams ? (const unsigned char *)p.kernelParams[i]
                                 : packed       ? (const unsigned char *)packed + off
                                                : NULL;
        fputs(i ? "," : " args=", f);
        if (!v) {
            fprintf(f, "z%zu", sz);
            continue;
        }
        if (sz == 8 && off % 8 == 0) {
            uint64_t u;
            memcpy(&u, v, 8);
            CUdeviceptr base;
            size_t size;
            const char *cls = class_of((CUdeviceptr)u, &base, &size);
            if (cls) {
                fprintf(f, "p:%s:0x%llx:0x%llx:%zu", cls, (unsigned long long)u, (unsigned long long)base,
                        size);
                continue;
            }
        }
        fputc('x', f);
        for (size_t b = 0; b < sz; b++)
            fprintf(f, "%02x", v[b]);
    }
}

static CUdeviceptr copy_addr(CUmemorytype t, CUdeviceptr dev, const void *host, size_t x, size_t y, size_t z,
                             size_t pitch, size_t height)
{
    CUdeviceptr a = t == CU_MEMORYTYPE_HOST ? (CUdeviceptr)(uintptr_t)host : dev;
    return a + x + y * pitch + z * height * pitch;
}

static const char *copy_kind(CUmemorytype s, CUmemorytype d)
{
    if (s == CU_MEMORYTYPE_UNIFIED || d == CU_MEMORYTYPE_UNIFIED)
        return "Default";
    if (s == CU_MEMORYTYPE_HOST)
        return d == CU_MEMORYTYPE_HOST ? "HostToHost" : "HostToDevice";
    return d == CU_MEMORYTYPE_HOST ? "DeviceToHost" : "DeviceToDevice";
}

static void put_memcpy(FILE *f, CUgraphNode n)
{
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    if (cuGraphMemcpyNodeGetParams(n, &m) != CUDA_SUCCESS) {
        fputs("other type=memcpy-unreadable", f);
        return;
    }
    if (m.srcMemoryType == CU_MEMORYTYPE_ARRAY || m.dstMemoryType == CU_MEMORYTYPE_ARRAY) {
        fputs("other type=memcpy-array", f);
        return;
    }
    size_t h = m.Height ? m.Height : 1, d = m.Depth ? m.Depth : 1;
    size_t span_s =
        (d - 1) * (m.srcHeight ? m.srcHeight : h) * m.srcPitch + (h - 1) * m.srcPitch + m.WidthInBytes;
    size_t span_d =
        (d - 1) * (m.dstHeight ? m.dstHeight : h) * m.dstPitch + (h - 1) * m.dstPitch + m.WidthInBytes;
    CUdeviceptr src = copy_addr(m.srcMemoryType, m.srcDevice, m.srcHost, m.srcXInBytes, m.srcY, m.srcZ,
                                m.srcPitch, m.srcHeight);
    CUdeviceptr dst = copy_addr(m.dstMemoryType, m.dstDevice, m.dstHost, m.dstXInBytes, m.dstY, m.dstZ,
                                m.dstPitch, m.dstHeight);
    fputs("memcpy dst=", f);
    put_ref(f, dst, m.dstMemoryType == CU_MEMORYTYPE_HOST ? span_d : 0);
    fputs(" src=", f);
    put_ref(f, src, m.srcMemoryType == CU_MEMORYTYPE_HOST ? span_s : 0);
    fprintf(f, " w=%zu h=%zu d=%zu dpitch=%zu dheight=%zu spitch=%zu sheight=%zu kind=%s", m.WidthInBytes, h,
            d, m.dstPitch, m.dstHeight, m.srcPitch, m.srcHeight, copy_kind(m.srcMemoryType, m.dstMemoryType));
}

static void put_memset(FILE *f, CUgraphNode n)
{
    CUDA_MEMSET_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    if (cuGraphMemsetNodeGetParams(n, &p) != CUDA_SUCCESS) {
        fputs("other type=memset-unreadable", f);
        return;
    }
    fputs("memset dst=", f);
    put_ref(f, p.dst, 0);
    fprintf(f, " pitch=%zu value=%u elem=%u width=%zu height=%zu", p.pitch, p.value, p.elementSize, p.width,
            p.height);
}

static void put_host(FILE *f, CUgraphNode n)
{
    CUDA_HOST_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    if (cuGraphHostNodeGetParams(n, &p) != CUDA_SUCCESS) {
        fputs("other type=host-unreadable", f);
        return;
    }
    Dl_info di;
    memset(&di, 0, sizeof di);
    char anon[32];
    const char *name = NULL;
    if (dladdr((void *)(uintptr_t)p.fn, &di) && di.dli_sname)
        name = di.dli_sname;
    else {
        snprintf(anon, sizeof anon, "host_fn_%llx", (unsigned long long)(uintptr_t)p.fn);
        name = anon;
    }
    fputs("host ", f);
    put_name(f, name);
    fputs(" data=", f);
    put_ref(f, (CUdeviceptr)(uintptr_t)p.userData, 1);
}

static void walk_graph(FILE *f, CUgraph g, int depth);

static void put_body(FILE *f, CUgraph g, int depth)
{
    fputs(" {\n", f);
    walk_graph(f, g, depth + 1);
    fprintf(f, "%*s}", 2 * depth, "");
}

static const char *cond_word(CUgraphConditionalNodeType t)
{
    switch (t) {
    case CU_GRAPH_COND_TYPE_IF:
        return "if";
    case CU_GRAPH_COND_TYPE_WHILE:
        return "while";
    case CU_GRAPH_COND_TYPE_SWITCH:
        return "switch";
    }
    return "unknown";
}

static void put_node(FILE *f, CUgraphNode n, int depth)
{
    CUgraphNodeType t;
    fprintf(f, "%*snode n=%llu ", 2 * depth, "", (unsigned long long)rec_node_id(n));
    if (cuGraphNodeGetType(n, &t) != CUDA_SUCCESS) {
        fputs("other type=unreadable", f);
        t = (CUgraphNodeType)-1;
    }
    CUevent ev = NULL;
    CUgraph child = NULL;
    rec_condnode cond;
    cond.size = 0;
    switch ((int)t) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        put_kernel(f, n);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        put_memcpy(f, n);
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        put_memset(f, n);
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        put_host(f, n);
        break;
    case CU_GRAPH_NODE_TYPE_EMPTY:
        fputs("empty", f);
        break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        cuGraphEventRecordNodeGetEvent(n, &ev);
        fprintf(f, "record e=%p", (void *)ev);
        break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        cuGraphEventWaitNodeGetEvent(n, &ev);
        fprintf(f, "wait e=%p", (void *)ev);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
        CUDA_MEM_ALLOC_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        cuGraphMemAllocNodeGetParams(n, &p);
        fprintf(f, "alloc ptr=0x%llx size=%zu", (unsigned long long)p.dptr, p.bytesize);
        break;
    }
    case CU_GRAPH_NODE_TYPE_MEM_FREE: {
        CUdeviceptr dp = 0;
        cuGraphMemFreeNodeGetParams(n, &dp);
        fprintf(f, "free ptr=0x%llx", (unsigned long long)dp);
        break;
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
        cuGraphChildGraphNodeGetGraph(n, &child);
        fprintf(f, "graph g=%u", rec_graph_id(child));
        break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: {
        unsigned dflt = 0, flags = 0;
        if (!rec_condnode_find(n, &cond)) {
            fputs("cond type=unknown size=0", f);
            break;
        }
        rec_cond_find(cond.handle, &dflt, &flags);
        fprintf(f, "cond handle=0x%llx type=%s size=%u default=%u flags=%u", (unsigned long long)cond.handle,
                cond_word(cond.type), cond.size, dflt, flags);
        break;
    }
    default:
        fprintf(f, "other type=%d", (int)t);
        break;
    }
    /* Dependencies in edge order (what exec update pairs by), with the
     * edge data of any edge that is not a default one. */
    size_t nd = 0;
    if (cuGraphNodeGetDependencies(n, NULL, NULL, &nd) == CUDA_SUCCESS && nd) {
        CUgraphNode *dv = calloc(nd, sizeof *dv);
        CUgraphEdgeData *ed = calloc(nd, sizeof *ed);
        if (dv && ed && cuGraphNodeGetDependencies(n, dv, ed, &nd) == CUDA_SUCCESS) {
            int special = 0;
            for (size_t i = 0; i < nd; i++) {
                fprintf(f, "%s%llu", i ? "," : " deps=", (unsigned long long)rec_node_id(dv[i]));
                special |= ed[i].type || ed[i].from_port || ed[i].to_port;
            }
            for (size_t i = 0; special && i < nd; i++)
                fprintf(f, "%s%u:%u:%u", i ? "," : " edgedata=", ed[i].from_port, ed[i].to_port, ed[i].type);
        }
        free(dv);
        free(ed);
    }
    if (child) {
        put_body(f, child, depth);
    } else {
        for (unsigned i = 0; i < cond.size && i < REC_COND_BODIES; i++)
            put_body(f, cond.body[i], depth);
    }
    fputc('\n', f);
}

static void walk_graph(FILE *f, CUgraph g, int depth)
{
    size_t n = 0;
    if (cuGraphGetNodes(g, NULL, &n) != CUDA_SUCCESS) {
        fprintf(f, "%*serror call=cuGraphGetNodes\n", 2 * depth, "");
        return;
    }
    CUgraphNode *v = calloc(n ? n : 1, sizeof *v);
    if (!v || cuGraphGetNodes(g, v, &n) != CUDA_SUCCESS) {
        free(v);
        fprintf(f, "%*serror call=cuGraphGetNodes\n", 2 * depth, "");
        return;
    }
    for (size_t i = 0; i < n; i++)
        put_node(f, v[i], depth);
    free(v);
}

/* ------------------------------------------------------------ thread */

static void do_walk(const req *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    if (r->ctx)
        cuCtxSetCurrent(r->ctx);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fprintf(f, "walk w=%u g=%u why=%s x=%u\n", r->w, rec_graph_id(r->g), r->why, r->x);
    note_graph_memory(r->g);
    walk_graph(f, r->g, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long us = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
    fprintf(f, "walk-end w=%u us=%lld\n", r->w, us);
    fclose(f);
    rec_log_begin();
    fwrite(buf, 1, len, rec_out);
    rec_log_end();
    free(buf);
}

static void *helper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&qlock);
    for (;;) {
        while (!qhead && !stopping)
            pthread_cond_wait(&qcond, &qlock);
        if (!qhead)
            break;
        req *r = qhead;
        qhead = r->next;
        if (!qhead)
            qtail = NULL;
        walking = r->g;
        pthread_mutex_unlock(&qlock);
        do_walk(r);
        pthread_mutex_lock(&qlock);
        walking = NULL;
        free(r);
        pthread_cond_broadcast(&qcond);
    }
    pthread_mutex_unlock(&qlock);
    return NULL;
}

int rec_walk_start(int sync)
{
    pthread_mutex_lock(&qlock);
    sync_walks = sync;
    int rc = 0;
    if (!started) {
        rc = pthread_create(&helper, NULL, helper_main, NULL);
        started = rc == 0;
    }
    pthread_mutex_unlock(&qlock);
    return rc;
}

void rec_walk_request(CUgraph g, CUcontext ctx, const char *why, uint32_t x)
{
    req *r = calloc(1, sizeof *r);
    if (!r)
        return;
    r->g = g;
    r->ctx = ctx;
    r->why = why;
    r->x = x;
    pthread_mutex_lock(&qlock);
    r->w = ++next_walk;
    if (sync_walks) {
        /* Kept for rec_walk_flush at the exit of the current call. */
        r->next = tl_pending;
        tl_pending = r;
        pthread_mutex_unlock(&qlock);
        rec_logf("walk-queued w=%u g=%u why=%s x=%u t=%u\n", r->w, rec_graph_id(g), why, x, rec_tid());
        return;
    }
    if (qtail)
        qtail->next = r;
    else
        qhead = r;
    qtail = r;
    pthread_cond_broadcast(&qcond);
    pthread_mutex_unlock(&qlock);
    rec_logf("walk-queued w=%u g=%u why=%s x=%u t=%u\n", r->w, rec_graph_id(g), why, x, rec_tid());
}

void rec_walk_flush(void)
{
    /* Oldest first: the list is pushed at its head. */
    while (tl_pending) {
        req **p = &tl_pending;
        while ((*p)->next)
            p = &(*p)->next;
        req *r = *p;
        *p = NULL;
        do_walk(r);
        free(r);
    }
}

static int named(CUgraph g)
{
    if (walking == g)
        return 1;
    for (req *r = qhead; r; r = r->next)
        if (r->g == g)
            return 1;
    return 0;
}

void rec_walk_wait_graph(CUgraph g)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    int cut = 0;
    pthread_mutex_lock(&qlock);
    while (named(g) && started)
        if (pthread_cond_timedwait(&qcond, &qlock, &until) == ETIMEDOUT) {
            cut = 1;
            break;
        }
    pthread_mutex_unlock(&qlock);
    if (cut)
        rec_logf("walk-cut g=%u\n", rec_graph_id(g));
}

void rec_walk_stop(void)
{
    pthread_mutex_lock(&qlock);
    stopping = 1;
    pthread_cond_broadcast(&qcond);
    int was = started;
    pthread_mutex_unlock(&qlock);
    if (was)
        pthread_join(helper, NULL);
}
