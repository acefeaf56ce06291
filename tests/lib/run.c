/*
 * run.c - run helpers of the tests: host functions, running an
 * executable, streams, skipping where a device is missing, and waiting
 * with a deadline.
 */
#include "testlib.h"

#include <errno.h>
#include <sys/mman.h>
#include <time.h>

void tl_noop(void *p)
{
    (void)p;
}

void tl_bump(void *p)
{
    ++*(int *)p;
}

void tl_bump_atomic(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

void tl_set_flag(void *p)
{
    atomic_store((atomic_int *)p, 1);
}

void tl_set_flag_late(void *p)
{
    tl_sleep_ms(30);
    atomic_store((atomic_int *)p, 1);
}

/* Milliseconds on the monotonic clock. */
long long tl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

atomic_int tl_gate_timeouts;

void tl_wait_gate(void *p)
{
    long long end = tl_now_ms() + TL_GATE_MS;
    while (!atomic_load((atomic_int *)p)) {
        if (tl_now_ms() >= end) {
            atomic_fetch_add(&tl_gate_timeouts, 1);
            return;
        }
        tl_sleep_ms(1);
    }
}

void tl_kernel_nop(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

void *tl_open_gate_later(void *p)
{
    tl_sleep_ms(50);
    atomic_store((atomic_int *)p, 1);
    return NULL;
}

bool tl_still_waiting(grStream_t s)
{
    for (int i = 0; i < 100; i++)
        if (grStreamQuery(s) != grErrorNotReady)
            return false;
    return true;
}

void tl_expect_update_refused(grGraphExec_t e, grGraph_t g, grGraphExecUpdateResult r, grGraphNode_t node,
                              grGraphNode_t from)
{
    grGraphExecUpdateResultInfo info;
    memset(&info, 0x5a, sizeof info);
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, r);
    CHECK_PTR_EQ(info.errorNode, node);
    CHECK_PTR_EQ(info.errorFromNode, from);
    CHECK_DETAIL_HAS("grGraphExecUpdate: ");
}

void tl_expect_updated(grGraphExec_t e, grGraph_t g)
{
    grGraphExecUpdateResultInfo info;
    memset(&info, 0x5a, sizeof info);
    CHECK_OK(grGraphExecUpdate(e, g, &info));
    CHECK_EQ(info.result, grGraphExecUpdateSuccess);
    CHECK_PTR_EQ(info.errorNode, NULL);
    CHECK_PTR_EQ(info.errorFromNode, NULL);
}

grGraphExec_t tl_instantiate(grGraph_t g)
{
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    return e;
}

void tl_run(grGraphExec_t e)
{
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
}

void tl_run_on(grGraphExec_t e, grStream_t s)
{
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
}

void tl_run_graph(grGraph_t g)
{
    grGraphExec_t e = tl_instantiate(g);
    tl_run(e);
    CHECK_OK(grGraphExecDestroy(e));
}

void tl_run_graph_on(grGraph_t g, grStream_t s)
{
    grGraphExec_t e = tl_instantiate(g);
    tl_run_on(e, s);
    CHECK_OK(grGraphExecDestroy(e));
}

void tl_destroy_graphs(const grGraph_t *gs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK_OK(grGraphDestroy(gs[i]));
}

grStream_t tl_capturing_stream(unsigned flags, grStreamCaptureMode mode)
{
    grStream_t s = tl_stream(flags);
    CHECK_OK(grStreamBeginCapture(s, mode));
    return s;
}

void tl_end_invalidated(grStream_t s)
{
    grGraph_t g = NULL;
    CHECK_GR(grErrorStreamCaptureInvalidated, grStreamEndCapture(s, &g));
    CHECK_OK(grStreamDestroy(s));
}

void tl_end_capture_empty(grStream_t s)
{
    grGraph_t g;
    CHECK_EQ(tl_capture_status(s), grStreamCaptureStatusActive);
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_EQ(tl_node_count(g), 0);
    CHECK_OK(grGraphDestroy(g));
}

grStreamCaptureStatus tl_capture_status(grStream_t s)
{
    grStreamCaptureStatus st;
    CHECK_OK(grStreamIsCapturing(s, &st));
    return st;
}

grStream_t tl_stream(unsigned flags)
{
    grStream_t s;
    CHECK_OK(grStreamCreateWithFlags(&s, flags));
    return s;
}

int tl_first_gpu(void)
{
    int n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    if (n < 2)
        GR_TEST_SKIP("no GPU device: grGetDeviceCount gives %d (the CPU only)", n);
    return 1;
}

int tl_set_first_gpu(void)
{
    int gpu = tl_first_gpu();
    CHECK_OK(grSetDevice(gpu));
    return gpu;
}

int tl_use_gpu_or_skip(void)
{
    if (grSetDevice(1) != grSuccess)
        GR_TEST_SKIP("no GPU device: %s", grGetLastErrorDetail());
    return 1;
}

bool tl_wait_until(atomic_int *flag, int want, long deadline_ms)
{
    long long end = tl_now_ms() + deadline_ms;
    while (atomic_load(flag) < want) {
        if (tl_now_ms() >= end)
            return false;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    return true;
}

void tl_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

char *tl_map_hole(size_t len)
{
    char *r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(r != MAP_FAILED);
    return r;
}

void *tl_unmap_and_reuse(char *r, size_t len, void *blocks[64], int *nb)
{
    void *block = NULL;
    CHECK_EQ(munmap(r, len), 0);
    while (!block && *nb < 64) {
        CHECK_OK(grMalloc(&blocks[*nb], len / 4));
        if ((char *)blocks[*nb] >= r && (char *)blocks[*nb] < r + len)
            block = blocks[*nb];
        ++*nb;
    }
    CHECK(block != NULL);
    return block;
}

grMemcpy3DParms tl_copy3d_params(void *dst, size_t dpitch, size_t dysize, const void *src, size_t spitch,
                                 size_t sysize, grExtent e, grMemcpyKind kind)
{
    grMemcpy3DParms c;
    memset(&c, 0, sizeof c);
    c.dstPtr = make_grPitchedPtr(dst, dpitch, e.width, dysize);
    c.srcPtr = make_grPitchedPtr((void *)(uintptr_t)src, spitch, e.width, sysize);
    c.extent = e;
    c.kind = kind;
    return c;
}

grMemPoolProps tl_pool_props(int device)
{
    grMemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = grMemAllocationTypePinned;
    p.location.type = grMemLocationTypeDevice;
    p.location.id = device;
    return p;
}

grMemAllocNodeParams tl_alloc_params(int device, size_t bytes)
{
    grMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps = tl_pool_props(device);
    ap.bytesize = bytes;
    return ap;
}

void *tl_malloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(grMalloc(&p, bytes));
    CHECK(p != NULL);
    return p;
}

void *tl_calloc(size_t bytes)
{
    void *p = tl_malloc(bytes);
    memset(p, 0, bytes);
    return p;
}

grGraphNode_t tl_add_alloc(grGraph_t g, const grGraphNode_t *deps, size_t n, int device, size_t bytes,
                           void **out)
{
    grGraphNode_t node = NULL;
    grMemAllocNodeParams ap = tl_alloc_params(device, bytes);
    CHECK_OK(grGraphAddMemAllocNode(&node, g, deps, n, &ap));
    CHECK(ap.dptr != NULL);
    *out = ap.dptr;
    return node;
}

uint64_t tl_graph_mem_attr(int device, grGraphMemAttributeType a)
{
    uint64_t v = ~0ull;
    CHECK_OK(grDeviceGetGraphMemAttribute(device, a, &v));
    return v;
}

void tl_fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7u + seed * 13u + 1u);
}

void tl_copy3d_reference(unsigned char *want, const void *base, const grMemcpy3DParms *c,
                         const unsigned char *from, const void *from_base)
{
    const grPitchedPtr d = c->dstPtr, s = c->srcPtr;
    for (size_t z = 0; z < c->extent.depth; z++)
        for (size_t y = 0; y < c->extent.height; y++)
            memcpy(want + ((char *)d.ptr - (const char *)base) +
                       ((c->dstPos.z + z) * d.ysize + c->dstPos.y + y) * d.pitch + c->dstPos.x,
                   from + ((const char *)s.ptr - (const char *)from_base) +
                       ((c->srcPos.z + z) * s.ysize + c->srcPos.y + y) * s.pitch + c->srcPos.x,
                   c->extent.width);
}

void tl_copy3d_on_host(const grMemcpy3DParms *c)
{
    tl_copy3d_reference(c->dstPtr.ptr, c->dstPtr.ptr, c, c->srcPtr.ptr, c->srcPtr.ptr);
}

grMemPool_t tl_pool(int device)
{
    grMemPoolProps p = tl_pool_props(device);
    grMemPool_t pool = NULL;
    CHECK_OK(grMemPoolCreate(&pool, &p));
    CHECK(pool != NULL);
    return pool;
}

uint64_t tl_pool_u64(grMemPool_t pool, grMemPoolAttr a)
{
    uint64_t v = ~0ull;
    CHECK_OK(grMemPoolGetAttribute(pool, a, &v));
    return v;
}

void tl_pool_set_int(grMemPool_t pool, grMemPoolAttr a, int v)
{
    CHECK_OK(grMemPoolSetAttribute(pool, a, &v));
}

void tl_check_env_debug_flag(const char *var, unsigned flag)
{
    unsigned flags = 0;
    setenv(var, "1", 1);
    CHECK_OK(grGetDebugFlags(&flags));
    CHECK_EQ(flags, flag);
    unsetenv(var);
}
