/*
 * walk.c - the recorder's helper thread: walks a graph with the driver's
 * query API (cuGraphGetNodes, cuGraph*NodeGetParams,
 * cuGraphNodeGetDependencies, cuFuncGetName, cuFuncGetParamInfo,
 * cuPointerGetAttributes) and appends the walk to the log as one block.
 *
 * Callbacks queue requests (rec_walk_request) and never call CUDA; this
 * thread is the only one of the recorder that does. A walk is built in a
 * buffer of its own first (by hand, not with stdio) and appended under the
 * log lock in one piece, so a block is never interleaved with other lines. Each walk counts where its
 * time went (the walks' part of the 'profile' line).
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
/* The last graph asked for and the mutation count then (guarded by
 * qlock; mutations is atomic): an unchanged graph is not walked again. */
static CUgraph last_g;
static uint32_t last_w;
static unsigned mutations, last_mutations;

/* GRAPHRT_RECORD_SYNC_WALKS=1: walks run on the calling thread at the exit
 * of the driver call that asked for them (rec_walk_flush), not on the
 * helper thread. The API call has returned its work by then, but this is
 * a CUDA call inside a callback, which CUPTI's rule forbids: it is an
 * escape hatch for a driver that would not let the helper walk while a
 * destroy callback waits, not the default. Set once at start. */
static int sync_walks;
static _Thread_local req *tl_pending;
_Thread_local int rec_walking;

/* The walks' self-profile: each walk counts into this thread's wp and adds
 * it to the totals (atomic) when it ends; rec_walk_profile writes them.
 * Times are rec_ticks. query: the graph and node getters; name:
 * cuFuncGetName and cuFuncGetParamInfo (asked once per function); ptr:
 * classifying pointers (answered by the allocations seen, by earlier
 * answers of the driver, or by cuPointerGetAttributes); append: taking the
 * log lock and appending the walk; the rest of a walk is formatting. */
typedef struct walk_prof {
    uint64_t walks, nodes, total, query, query_calls, name, name_calls, name_hits, ptr, ptr_calls, ptr_map,
        ptr_cache, ptr_driver, append;
} walk_prof;
#define WP_FIELDS (sizeof(walk_prof) / sizeof(uint64_t))
static _Thread_local walk_prof wp;
static walk_prof wp_total;

#define QUERY(stmt)                    \
    do {                               \
        uint64_t q0_ = rec_ticks();    \
        stmt;                          \
        wp.query += rec_ticks() - q0_; \
        wp.query_calls++;              \
    } while (0)

void rec_walk_profile(FILE *f, double tpn)
{
    walk_prof t;
    uint64_t *d = (uint64_t *)&t;
    const uint64_t *src = (const uint64_t *)&wp_total;
    for (size_t i = 0; i < WP_FIELDS; i++)
        d[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
    uint64_t rest = t.total - t.query - t.name - t.ptr - t.append;
    if (rest > t.total)
        rest = 0;
#define NS(v) (unsigned long long)((double)(v) / tpn)
    fprintf(f,
            " walks=%llu walk_nodes=%llu walk_ns=%llu query_ns=%llu query_calls=%llu name_ns=%llu "
            "name_calls=%llu name_hits=%llu ptr_ns=%llu ptr_calls=%llu ptr_map=%llu ptr_cache=%llu "
            "ptr_driver=%llu write_ns=%llu append_ns=%llu",
            (unsigned long long)t.walks, (unsigned long long)t.nodes, NS(t.total), NS(t.query),
            (unsigned long long)t.query_calls, NS(t.name), (unsigned long long)t.name_calls,
            (unsigned long long)t.name_hits, NS(t.ptr), (unsigned long long)t.ptr_calls,
            (unsigned long long)t.ptr_map, (unsigned long long)t.ptr_cache, (unsigned long long)t.ptr_driver,
            NS(rest), NS(t.append));
#undef NS
}

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

/* Notes the allocation nodes among the top level's nodes v (types t). */
static void note_graph_memory(const CUgraphNode *v, const CUgraphNodeType *t, size_t n)
{
    ngmem = 0;
    for (size_t i = 0; i < n && ngmem < GMEM_MAX; i++) {
        CUDA_MEM_ALLOC_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        CUresult r = CUDA_ERROR_INVALID_VALUE;
        if (t[i] == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
            QUERY(r = cuGraphMemAllocNodeGetParams(v[i], &p));
        if (r == CUDA_SUCCESS) {
            gmem[ngmem].base = p.dptr;
            gmem[ngmem++].size = p.bytesize;
        }
    }
}

/* What the driver answered, kept so that a walk of many nodes sharing
 * kernels and buffers asks once: the allocations found (an entry is
 * forgotten when its allocation is freed; all of them when memory the
 * callbacks did not see allocated is freed, unmapped or trimmed) and each
 * function's name and parameter layout (cleared when a module is
 * unloaded). Before any of these, the allocations the callbacks saw
 * (amap, below) answer without the driver. Guarded by cache_lock: walks
 * run on the helper thread, or with sync walks on the program's threads;
 * the callbacks update amap. The epochs are atomic; the callbacks bump
 * them. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned mem_epoch, module_epoch;

#define RANGES 256
static struct {
    CUdeviceptr base;
    size_t size;
    const char *cls;
} ranges[RANGES];
static size_t nranges, next_range;
static unsigned ranges_epoch;

#define FUNCS 512 /* a power of two */
#define FUNC_PARAMS 64
typedef struct func_info {
    const void *h; /* a CUfunction or a CUkernel; NULL: a free slot */
    char *name;
    int nparams; /* -1: more than FUNC_PARAMS (read from the driver each time) */
    struct {
        size_t off, size;
    } param[FUNC_PARAMS];
} func_info;
static func_info *funcs;
static size_t nfuncs;
static unsigned funcs_epoch;

void rec_walk_memory_freed(void)
{
    __atomic_add_fetch(&mem_epoch, 1, __ATOMIC_RELEASE);
}

/* The allocations the callbacks saw, sorted by base, not overlapping;
 * guarded by cache_lock. Capped: past AMAP_MAX live allocations a new one
 * is not kept (its addresses are asked of the driver). */
#define AMAP_MAX (1u << 20)
typedef struct arange {
    CUdeviceptr base;
    size_t size;
    const char *cls;
} arange;
static arange *amap;
static size_t namap, capmap;

/* The first entry with a base above v. */
static size_t amap_above(CUdeviceptr v)
{
    size_t lo = 0, hi = namap;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (amap[mid].base <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Forgets the driver's answers that overlap [base, base+size); cache_lock
 * held. */
static void forget_ranges(CUdeviceptr base, size_t size)
{
    for (size_t i = 0; i < nranges; i++)
        if (ranges[i].base < base + size && base < ranges[i].base + ranges[i].size)
            ranges[i].size = 0; /* never matches again */
}

void rec_walk_alloc(CUdeviceptr base, size_t size, const char *cls)
{
    if (!base || !size)
        return;
    pthread_mutex_lock(&cache_lock);
    /* Entries it overlaps were freed by calls not seen (or not watched). */
    size_t i = amap_above(base);
    if (i > 0 && amap[i - 1].base + amap[i - 1].size > base)
        i--;
    size_t j = i;
    while (j < namap && amap[j].base < base + size)
        j++;
    if (j > i) {
        memmove(&amap[i], &amap[j], (namap - j) * sizeof *amap);
        namap -= j - i;
    }
    if (namap == capmap && capmap < AMAP_MAX) {
        size_t cap = capmap ? 2 * capmap : 256;
        arange *m = realloc(amap, cap * sizeof *m);
        if (m) {
            amap = m;
            capmap = cap;
        }
    }
    if (namap < capmap) {
        memmove(&amap[i + 1], &amap[i], (namap - i) * sizeof *amap);
        amap[i].base = base;
        amap[i].size = size;
        amap[i].cls = cls;
        namap++;
    }
    forget_ranges(base, size);
    pthread_mutex_unlock(&cache_lock);
}

void rec_walk_freed(CUdeviceptr base)
{
    pthread_mutex_lock(&cache_lock);
    size_t i = amap_above(base);
    int known = i > 0 && amap[i - 1].base == base;
    if (known) {
        forget_ranges(base, amap[i - 1].size);
        memmove(&amap[i - 1], &amap[i], (namap - i) * sizeof *amap);
        namap--;
    }
    pthread_mutex_unlock(&cache_lock);
    if (!known)
        rec_walk_memory_freed();
}

/* The allocation seen holding v; cache_lock held. */
static const arange *amap_find(CUdeviceptr v)
{
    size_t i = amap_above(v);
    if (i > 0 && v - amap[i - 1].base < amap[i - 1].size)
        return &amap[i - 1];
    return NULL;
}

void rec_walk_module_unloaded(void)
{
    __atomic_add_fetch(&module_epoch, 1, __ATOMIC_RELEASE);
}

static const char *cached_class(CUdeviceptr v, CUdeviceptr *base, size_t *size)
{
    const char *cls = NULL;
    pthread_mutex_lock(&cache_lock);
    unsigned e = __atomic_load_n(&mem_epoch, __ATOMIC_ACQUIRE);
    if (e != ranges_epoch) {
        nranges = next_range = 0;
        ranges_epoch = e;
    }
    const arange *a = amap_find(v);
    if (a) {
        *base = a->base;
        *size = a->size;
        cls = a->cls;
        wp.ptr_map++;
    }
    for (size_t i = 0; i < nranges && !cls; i++)
        if (v >= ranges[i].base && v - ranges[i].base < ranges[i].size) {
            wp.ptr_cache++;
            *base = ranges[i].base;
            *size = ranges[i].size;
            cls = ranges[i].cls;
        }
    pthread_mutex_unlock(&cache_lock);
    return cls;
}

static void cache_class(unsigned epoch, CUdeviceptr base, size_t size, const char *cls)
{
    pthread_mutex_lock(&cache_lock);
    if (epoch == ranges_epoch) { /* nothing was freed while the driver answered */
        ranges[next_range].base = base;
        ranges[next_range].size = size;
        ranges[next_range].cls = cls;
        next_range = (next_range + 1) % RANGES;
        if (nranges < RANGES)
            nranges++;
    }
    pthread_mutex_unlock(&cache_lock);
}

static const char *class_of_timed(CUdeviceptr v, CUdeviceptr *base, size_t *size);

static const char *class_of(CUdeviceptr v, CUdeviceptr *base, size_t *size)
{
    uint64_t t0 = rec_ticks();
    const char *cls = class_of_timed(v, base, size);
    wp.ptr += rec_ticks() - t0;
    wp.ptr_calls++;
    return cls;
}

static const char *class_of_timed(CUdeviceptr v, CUdeviceptr *base, size_t *size)
{
    for (size_t i = 0; i < ngmem; i++)
        if (v >= gmem[i].base && v < gmem[i].base + gmem[i].size) {
            *base = gmem[i].base;
            *size = gmem[i].size;
            return "graph";
        }
    if (v < 65536)
        return NULL;
    const char *cls = cached_class(v, base, size);
    if (cls)
        return cls;
    unsigned epoch = __atomic_load_n(&mem_epoch, __ATOMIC_ACQUIRE);
    unsigned mtype = 0, managed = 0;
    CUdeviceptr start = 0;
    size_t rsize = 0;
    CUmemoryPool pool = NULL;
    CUpointer_attribute at[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
    void *data[] = {&mtype, &managed, &start, &rsize, &pool};
    wp.ptr_driver++;
    if (cuPointerGetAttributes(5, at, data, v) != CUDA_SUCCESS || mtype == 0 || rsize == 0)
        return NULL;
    *base = start;
    *size = rsize;
    cls = managed ? "managed" : pool ? "pool" : mtype == CU_MEMORYTYPE_HOST ? "pinned" : "device";
    cache_class(epoch, start, rsize, cls);
    return cls;
}

/* The name and parameter layout of the kernel f or k from the driver;
 * out->name is the caller's to free. */
static void read_func(CUfunction f, CUkernel k, func_info *out)
{
    uint64_t t0 = rec_ticks();
    wp.name_calls++;
    const char *name = NULL;
    if (f)
        cuFuncGetName(&name, f);
    else
        cuKernelGetName(&name, k);
    out->name = name ? strdup(name) : NULL;
    out->nparams = 0;
    for (size_t i = 0;; i++) {
        size_t off = 0, sz = 0;
        CUresult r = f ? cuFuncGetParamInfo(f, i, &off, &sz) : cuKernelGetParamInfo(k, i, &off, &sz);
        if (r != CUDA_SUCCESS)
            break;
        if (i == FUNC_PARAMS) {
            out->nparams = -1;
            break;
        }
        out->param[i].off = off;
        out->param[i].size = sz;
        out->nparams++;
    }
    wp.name += rec_ticks() - t0;
}

/* read_func through the cache. */
static void func_of(CUfunction f, CUkernel k, func_info *out)
{
    const void *h = f ? (const void *)f : (const void *)k;
    if (!h) {
        read_func(f, k, out);
        return;
    }
    size_t slot = ((uintptr_t)h >> 4) * 0x9e3779b97f4a7c15ull % FUNCS;
    pthread_mutex_lock(&cache_lock);
    unsigned e = __atomic_load_n(&module_epoch, __ATOMIC_ACQUIRE);
    if (!funcs)
        funcs = calloc(FUNCS, sizeof *funcs);
    if (funcs && (e != funcs_epoch || nfuncs == FUNCS / 2)) {
        for (size_t i = 0; i < FUNCS; i++)
            free(funcs[i].name);
        memset(funcs, 0, FUNCS * sizeof *funcs);
        nfuncs = 0;
        funcs_epoch = e;
    }
    for (size_t i = slot; funcs && funcs[i].h; i = (i + 1) % FUNCS)
        if (funcs[i].h == h) {
            *out = funcs[i];
            out->name = funcs[i].name ? strdup(funcs[i].name) : NULL;
            wp.name_hits++;
            pthread_mutex_unlock(&cache_lock);
            return;
        }
    pthread_mutex_unlock(&cache_lock);
    read_func(f, k, out);
    pthread_mutex_lock(&cache_lock);
    if (funcs && e == funcs_epoch && e == __atomic_load_n(&module_epoch, __ATOMIC_ACQUIRE)) {
        size_t i = slot;
        while (funcs[i].h && funcs[i].h != h)
            i = (i + 1) % FUNCS;
        if (!funcs[i].h) {
            funcs[i] = *out;
            funcs[i].h = h;
            funcs[i].name = out->name ? strdup(out->name) : NULL;
            nfuncs++;
        }
    }
    pthread_mutex_unlock(&cache_lock);
}

/* ------------------------------------------------------------ output */

/* A walk's text, built by hand into one growing buffer and appended to
 * the log in one piece: formatting with stdio (a memory stream and a
 * printf a field) was most of a walk's time, about 1.7 us a node on an
 * H100 host. 'failed' is set when memory ran out; the walk is then
 * dropped. The forms are printf's: %p is "(nil)" or 0x and lower-case
 * hex digits. */
typedef struct wbuf {
    char *b;
    size_t n, cap;
    int failed;
} wbuf;

static int wb_room(wbuf *w, size_t k)
{
    if (w->n + k <= w->cap)
        return 1;
    if (w->failed)
        return 0;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->n + k)
        cap *= 2;
    char *b = realloc(w->b, cap);
    if (!b) {
        w->failed = 1;
        return 0;
    }
    w->b = b;
    w->cap = cap;
    return 1;
}

static void wb_mem(wbuf *w, const char *s, size_t k)
{
    if (wb_room(w, k)) {
        memcpy(w->b + w->n, s, k);
        w->n += k;
    }
}

static void wb_s(wbuf *w, const char *s)
{
    wb_mem(w, s, strlen(s));
}

static void wb_c(wbuf *w, char c)
{
    if (wb_room(w, 1))
        w->b[w->n++] = c;
}

static void wb_u(wbuf *w, unsigned long long v)
{
    char t[24];
    size_t k = sizeof t;
    do {
        t[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    wb_mem(w, t + k, sizeof t - k);
}

static void wb_d(wbuf *w, long long v)
{
    if (v < 0) {
        wb_c(w, '-');
        wb_u(w, 0ull - (unsigned long long)v);
    } else {
        wb_u(w, (unsigned long long)v);
    }
}

/* 0x and v in lower-case hex (printf's 0x%llx). */
static void wb_x(wbuf *w, unsigned long long v)
{
    char t[24];
    size_t k = sizeof t;
    do {
        t[--k] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    t[--k] = 'x';
    t[--k] = '0';
    wb_mem(w, t + k, sizeof t - k);
}

static void wb_p(wbuf *w, const void *p)
{
    if (p)
        wb_x(w, (unsigned long long)(uintptr_t)p);
    else
        wb_s(w, "(nil)");
}

static void wb_indent(wbuf *w, int n)
{
    if (n > 0 && wb_room(w, (size_t)n)) {
        memset(w->b + w->n, ' ', (size_t)n);
        w->n += (size_t)n;
    }
}

/* A pointer: p:CLASS:ADDR:BASE:SIZE, or null. host_size > 0 says the
 * address is host memory of that many bytes when CUDA does not know it. */
static void put_addr(wbuf *w, const char *cls, CUdeviceptr a, CUdeviceptr base, size_t size)
{
    wb_s(w, "p:");
    wb_s(w, cls);
    wb_c(w, ':');
    wb_x(w, a);
    wb_c(w, ':');
    wb_x(w, base);
    wb_c(w, ':');
    wb_u(w, size);
}

static void put_ref(wbuf *w, CUdeviceptr a, size_t host_size)
{
    CUdeviceptr base;
    size_t size;
    if (!a) {
        wb_s(w, "null");
        return;
    }
    const char *cls = class_of(a, &base, &size);
    if (!cls) {
        cls = host_size ? "host" : "unknown";
        base = a;
        size = host_size ? host_size : 1;
    }
    put_addr(w, cls, a, base, size);
}

static void put_name(wbuf *w, const char *s)
{
    static const char digit[] = "0123456789abcdef";
    wb_c(w, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            wb_c(w, '\\');
            wb_c(w, (char)c);
        } else if (c <= ' ' || c > '~') {
            char e[4] = {'\\', 'x', digit[c >> 4], digit[c & 15]};
            wb_mem(w, e, 4);
        } else {
            wb_c(w, (char)c);
        }
    }
    wb_c(w, '"');
}

/* ------------------------------------------------------------- nodes */

/* 'x' and the bytes in hex: a kernel's parameter struct can be hundreds
 * of bytes (CUTLASS's are). */
static void put_hex(wbuf *w, const unsigned char *v, size_t n)
{
    static const char digit[] = "0123456789abcdef";
    if (!wb_room(w, 1 + 2 * n))
        return;
    char *o = w->b + w->n;
    *o++ = 'x';
    for (size_t b = 0; b < n; b++) {
        *o++ = digit[v[b] >> 4];
        *o++ = digit[v[b] & 15];
    }
    w->n += 1 + 2 * n;
}

/* N,N,N */
static void put_dim3(wbuf *w, unsigned x, unsigned y, unsigned z)
{
    wb_u(w, x);
    wb_c(w, ',');
    wb_u(w, y);
    wb_c(w, ',');
    wb_u(w, z);
}

static void put_kernel(wbuf *w, CUgraphNode n)
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    CUresult r;
    QUERY(r = cuGraphKernelNodeGetParams(n, &p));
    if (r != CUDA_SUCCESS) {
        wb_s(w, "other type=kernel-unreadable");
        return;
    }
    func_info fi;
    func_of(p.func, p.kern, &fi);
    wb_s(w, "kernel ");
    put_name(w, fi.name ? fi.name : "?");
    free(fi.name);
    wb_s(w, " grid=");
    put_dim3(w, p.gridDimX, p.gridDimY, p.gridDimZ);
    wb_s(w, " block=");
    put_dim3(w, p.blockDimX, p.blockDimY, p.blockDimZ);
    wb_s(w, " shmem=");
    wb_u(w, p.sharedMemBytes);
    /* Arguments: kernelParams, or the packed buffer of 'extra'. */
    const char *packed = NULL;
    if (!p.kernelParams && p.extra) {
        for (size_t i = 0; p.extra[i] != CU_LAUNCH_PARAM_END; i += 2)
            if (p.extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                packed = (const char *)p.extra[i + 1];
    }
    for (size_t i = 0;; i++) {
        size_t off = 0, sz = 0;
        if (fi.nparams >= 0) {
            if (i == (size_t)fi.nparams)
                break;
            off = fi.param[i].off;
            sz = fi.param[i].size;
        } else if ((p.func ? cuFuncGetParamInfo(p.func, i, &off, &sz)
                           : cuKernelGetParamInfo(p.kern, i, &off, &sz)) != CUDA_SUCCESS) {
            break;
        }
        const unsigned char *v = p.kernelParams ? (const unsigned char *)p.kernelParams[i]
                                 : packed       ? (const unsigned char *)packed + off
                                                : NULL;
        wb_s(w, i ? "," : " args=");
        if (!v) {
            wb_c(w, 'z');
            wb_u(w, sz);
            continue;
        }
        if (sz == 8 && off % 8 == 0) {
            uint64_t u;
            memcpy(&u, v, 8);
            CUdeviceptr base;
            size_t size;
            const char *cls = class_of((CUdeviceptr)u, &base, &size);
            if (cls) {
                put_addr(w, cls, (CUdeviceptr)u, base, size);
                continue;
            }
        }
        put_hex(w, v, sz);
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

/* " KEY=N" */
static void put_field(wbuf *w, const char *key, unsigned long long v)
{
    wb_s(w, key);
    wb_u(w, v);
}

static void put_memcpy(wbuf *w, CUgraphNode n)
{
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    CUresult r;
    QUERY(r = cuGraphMemcpyNodeGetParams(n, &m));
    if (r != CUDA_SUCCESS) {
        wb_s(w, "other type=memcpy-unreadable");
        return;
    }
    if (m.srcMemoryType == CU_MEMORYTYPE_ARRAY || m.dstMemoryType == CU_MEMORYTYPE_ARRAY) {
        wb_s(w, "other type=memcpy-array");
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
    wb_s(w, "memcpy dst=");
    put_ref(w, dst, m.dstMemoryType == CU_MEMORYTYPE_HOST ? span_d : 0);
    wb_s(w, " src=");
    put_ref(w, src, m.srcMemoryType == CU_MEMORYTYPE_HOST ? span_s : 0);
    put_field(w, " w=", m.WidthInBytes);
    put_field(w, " h=", h);
    put_field(w, " d=", d);
    put_field(w, " dpitch=", m.dstPitch);
    put_field(w, " dheight=", m.dstHeight);
    put_field(w, " spitch=", m.srcPitch);
    put_field(w, " sheight=", m.srcHeight);
    wb_s(w, " kind=");
    wb_s(w, copy_kind(m.srcMemoryType, m.dstMemoryType));
}

static void put_memset(wbuf *w, CUgraphNode n)
{
    CUDA_MEMSET_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    CUresult r;
    QUERY(r = cuGraphMemsetNodeGetParams(n, &p));
    if (r != CUDA_SUCCESS) {
        wb_s(w, "other type=memset-unreadable");
        return;
    }
    wb_s(w, "memset dst=");
    put_ref(w, p.dst, 0);
    put_field(w, " pitch=", p.pitch);
    put_field(w, " value=", p.value);
    put_field(w, " elem=", p.elementSize);
    put_field(w, " width=", p.width);
    put_field(w, " height=", p.height);
}

static void put_host(wbuf *w, CUgraphNode n)
{
    CUDA_HOST_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    CUresult r;
    QUERY(r = cuGraphHostNodeGetParams(n, &p));
    if (r != CUDA_SUCCESS) {
        wb_s(w, "other type=host-unreadable");
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
    wb_s(w, "host ");
    put_name(w, name);
    wb_s(w, " data=");
    put_ref(w, (CUdeviceptr)(uintptr_t)p.userData, 1);
}

static void walk_graph(wbuf *w, CUgraph g, int depth);

static void put_body(wbuf *w, CUgraph g, int depth)
{
    wb_s(w, " {\n");
    walk_graph(w, g, depth + 1);
    wb_indent(w, 2 * depth);
    wb_c(w, '}');
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

/* The nodes of one level of a walk (a graph or a body), their types and
 * ids, and a hash of handle -> index + 1 (0: empty) that names the
 * dependencies without asking CUPTI again. */
typedef struct level {
    CUgraphNode *v;
    CUgraphNodeType *t;
    uint64_t *id;
    size_t *hash;
    size_t n, hmask;
} level;

#define DEPS_FEW 32

static size_t level_hash(const level *lv, CUgraphNode n)
{
    return (size_t)((((uintptr_t)n >> 3) * 0x9e3779b97f4a7c15ull) >> 20) & lv->hmask;
}

static uint64_t level_id(const level *lv, CUgraphNode n)
{
    for (size_t h = level_hash(lv, n); lv->hash[h]; h = (h + 1) & lv->hmask)
        if (lv->v[lv->hash[h] - 1] == n)
            return lv->id[lv->hash[h] - 1];
    return rec_node_id(n);
}

static void level_free(level *lv)
{
    free(lv->v);
    free(lv->t);
    free(lv->id);
    free(lv->hash);
}

/* Node n of type t; t is -1 where the driver did not answer. */
static void put_node(wbuf *w, const level *lv, size_t k, int depth)
{
    CUgraphNode n = lv->v[k];
    CUgraphNodeType t = lv->t[k];
    wb_indent(w, 2 * depth);
    wb_s(w, "node n=");
    wb_u(w, lv->id[k]);
    wb_c(w, ' ');
    if ((int)t == -1)
        wb_s(w, "other type=unreadable");
    CUevent ev = NULL;
    CUgraph child = NULL;
    rec_condnode cond;
    cond.size = 0;
    switch ((int)t) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        put_kernel(w, n);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        put_memcpy(w, n);
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        put_memset(w, n);
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        put_host(w, n);
        break;
    case CU_GRAPH_NODE_TYPE_EMPTY:
        wb_s(w, "empty");
        break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        QUERY(cuGraphEventRecordNodeGetEvent(n, &ev));
        wb_s(w, "record e=");
        wb_p(w, ev);
        break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        QUERY(cuGraphEventWaitNodeGetEvent(n, &ev));
        wb_s(w, "wait e=");
        wb_p(w, ev);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
        CUDA_MEM_ALLOC_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        QUERY(cuGraphMemAllocNodeGetParams(n, &p));
        wb_s(w, "alloc ptr=");
        wb_x(w, p.dptr);
        put_field(w, " size=", p.bytesize);
        break;
    }
    case CU_GRAPH_NODE_TYPE_MEM_FREE: {
        CUdeviceptr dp = 0;
        QUERY(cuGraphMemFreeNodeGetParams(n, &dp));
        wb_s(w, "free ptr=");
        wb_x(w, dp);
        break;
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
        QUERY(cuGraphChildGraphNodeGetGraph(n, &child));
        put_field(w, "graph g=", rec_graph_id(child));
        break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: {
        unsigned dflt = 0, flags = 0;
        if (!rec_condnode_find(n, &cond)) {
            wb_s(w, "cond type=unknown size=0");
            break;
        }
        rec_cond_find(cond.handle, &dflt, &flags);
        wb_s(w, "cond handle=");
        wb_x(w, cond.handle);
        wb_s(w, " type=");
        wb_s(w, cond_word(cond.type));
        put_field(w, " size=", cond.size);
        put_field(w, " default=", dflt);
        put_field(w, " flags=", flags);
        break;
    }
    default:
        wb_s(w, "other type=");
        wb_d(w, (int)t);
        break;
    }
    /* Dependencies in edge order (what exec update pairs by), with the
     * edge data of any edge that is not a default one. One call where
     * they fit in DEPS_FEW (the driver says how many it wrote when they
     * are fewer), else one for the count and one for them. */
    CUgraphNode few[DEPS_FEW];
    CUgraphEdgeData few_ed[DEPS_FEW];
    CUgraphNode *dv = few;
    CUgraphEdgeData *ed = few_ed;
    size_t nd = DEPS_FEW;
    CUresult r;
    memset(few_ed, 0, sizeof few_ed);
    QUERY(r = cuGraphNodeGetDependencies(n, few, few_ed, &nd));
    if (r == CUDA_SUCCESS && nd >= DEPS_FEW) {
        nd = 0;
        QUERY(r = cuGraphNodeGetDependencies(n, NULL, NULL, &nd));
        dv = calloc(nd ? nd : 1, sizeof *dv);
        ed = calloc(nd ? nd : 1, sizeof *ed);
        if (r == CUDA_SUCCESS && dv && ed)
            QUERY(r = cuGraphNodeGetDependencies(n, dv, ed, &nd));
        else
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS && nd) {
        int special = 0;
        for (size_t i = 0; i < nd; i++) {
            wb_s(w, i ? "," : " deps=");
            wb_u(w, level_id(lv, dv[i]));
            special |= ed[i].type || ed[i].from_port || ed[i].to_port;
        }
        for (size_t i = 0; special && i < nd; i++) {
            wb_s(w, i ? "," : " edgedata=");
            wb_u(w, ed[i].from_port);
            wb_c(w, ':');
            wb_u(w, ed[i].to_port);
            wb_c(w, ':');
            wb_u(w, ed[i].type);
        }
    }
    if (dv != few) {
        free(dv);
        free(ed);
    }
    if (child) {
        put_body(w, child, depth);
    } else {
        for (unsigned i = 0; i < cond.size && i < REC_COND_BODIES; i++)
            put_body(w, cond.body[i], depth);
    }
    wb_c(w, '\n');
}

static void walk_graph(wbuf *w, CUgraph g, int depth)
{
    size_t n = 0;
    CUresult r;
    QUERY(r = cuGraphGetNodes(g, NULL, &n));
    if (r != CUDA_SUCCESS) {
        wb_indent(w, 2 * depth);
        wb_s(w, "error call=cuGraphGetNodes\n");
        return;
    }
    level lv;
    memset(&lv, 0, sizeof lv);
    lv.v = calloc(n ? n : 1, sizeof *lv.v);
    lv.t = calloc(n ? n : 1, sizeof *lv.t);
    lv.id = calloc(n ? n : 1, sizeof *lv.id);
    for (lv.hmask = 15; lv.hmask < 2 * n; lv.hmask = 2 * lv.hmask + 1)
        ;
    lv.hash = calloc(lv.hmask + 1, sizeof *lv.hash);
    if (lv.v && lv.t && lv.id && lv.hash)
        QUERY(r = cuGraphGetNodes(g, lv.v, &n));
    if (!lv.v || !lv.t || !lv.id || !lv.hash || r != CUDA_SUCCESS) {
        level_free(&lv);
        wb_indent(w, 2 * depth);
        wb_s(w, "error call=cuGraphGetNodes\n");
        return;
    }
    lv.n = n;
    /* Each type and id once: the allocation nodes of the top level are
     * needed before any node is written (an argument may point into one),
     * and a dependency is named by the id of a node of the same level. */
    for (size_t i = 0; i < n; i++) {
        QUERY(r = cuGraphNodeGetType(lv.v[i], &lv.t[i]));
        if (r != CUDA_SUCCESS)
            lv.t[i] = (CUgraphNodeType)-1;
        QUERY(lv.id[i] = rec_node_id(lv.v[i]));
        size_t h = level_hash(&lv, lv.v[i]);
        while (lv.hash[h])
            h = (h + 1) & lv.hmask;
        lv.hash[h] = i + 1;
    }
    if (depth == 1)
        note_graph_memory(lv.v, lv.t, n);
    wp.nodes += n;
    for (size_t i = 0; i < n; i++)
        put_node(w, &lv, i, depth);
    level_free(&lv);
}

/* ------------------------------------------------------------ thread */

static void do_walk(const req *r)
{
    wbuf w;
    memset(&w, 0, sizeof w);
    rec_walking = 1;
    memset(&wp, 0, sizeof wp);
    uint64_t k0 = rec_ticks();
    if (r->ctx)
        QUERY(cuCtxSetCurrent(r->ctx));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    put_field(&w, "walk w=", r->w);
    put_field(&w, " g=", rec_graph_id(r->g));
    wb_s(&w, " why=");
    wb_s(&w, r->why);
    put_field(&w, " x=", r->x);
    wb_c(&w, '\n');
    walk_graph(&w, r->g, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long us = (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000;
    put_field(&w, "walk-end w=", r->w);
    wb_s(&w, " us=");
    wb_d(&w, us);
    wb_c(&w, '\n');
    rec_walking = 0;
    uint64_t k1 = rec_ticks();
    rec_log_begin();
    if (rec_out && !w.failed)
        fwrite_unlocked(w.b, 1, w.n, rec_out);
    rec_log_end();
    free(w.b);
    uint64_t k2 = rec_ticks();
    wp.walks = 1;
    wp.append = k2 - k1;
    wp.total = k2 - k0;
    uint64_t *dst = (uint64_t *)&wp_total;
    const uint64_t *src = (const uint64_t *)&wp;
    for (size_t i = 0; i < WP_FIELDS; i++)
        if (src[i])
            __atomic_add_fetch(&dst[i], src[i], __ATOMIC_RELAXED);
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

void rec_walk_mutated(void)
{
    __atomic_add_fetch(&mutations, 1, __ATOMIC_RELEASE);
}

void rec_walk_request(CUgraph g, CUcontext ctx, const char *why, uint32_t x)
{
    pthread_mutex_lock(&qlock);
    unsigned m = __atomic_load_n(&mutations, __ATOMIC_ACQUIRE);
    if (g == last_g && m == last_mutations && last_w) {
        uint32_t w = ++next_walk, as = last_w;
        pthread_mutex_unlock(&qlock);
        rec_logf("walk-same w=%u g=%u why=%s x=%u as=%u t=%u\n", w, rec_graph_id(g), why, x, as, rec_tid());
        return;
    }
    req *r = calloc(1, sizeof *r);
    if (!r) {
        pthread_mutex_unlock(&qlock);
        return;
    }
    r->g = g;
    r->ctx = ctx;
    r->why = why;
    r->x = x;
    r->w = ++next_walk;
    last_g = g;
    last_w = r->w;
    last_mutations = m;
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
    /* Once the lock is let go the helper may walk and free r: its number
     * is read before. */
    uint32_t w = r->w;
    pthread_cond_broadcast(&qcond);
    pthread_mutex_unlock(&qlock);
    rec_logf("walk-queued w=%u g=%u why=%s x=%u t=%u\n", w, rec_graph_id(g), why, x, rec_tid());
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
    if (last_g == g)
        last_g = NULL; /* its address may name a new graph next */
    while (named(g) && started)
        if (pthread_cond_timedwait(&qcond, &qlock, &until) == ETIMEDOUT) {
            cut = 1;
            break;
        }
    pthread_mutex_unlock(&qlock);
    if (cut)
        rec_logf("walk-cut g=%u\n", rec_graph_id(g));
}

void rec_walk_drain(void)
{
    pthread_mutex_lock(&qlock);
    while ((qhead || walking) && started)
        pthread_cond_wait(&qcond, &qlock);
    pthread_mutex_unlock(&qlock);
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
