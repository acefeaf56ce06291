/*
 * memory.c - the memory API: grMalloc, grFree, grMallocHost, grFreeHost
 * over the allocation tracker (memory/track.c), and grMemcpy,
 * grMemcpyAsync, grMemset, grMemsetAsync: checked, then queued as small
 * stream operations that copy or set bytes when the stream reaches them
 * (memory/copy.c), or recorded as nodes while the stream captures.
 *
 * Invariants:
 *   - every argument (direction, pointers, stream, bounds of tracked
 *     allocations) is checked before anything is queued, so a refused call
 *     leaves memory and the stream untouched;
 *   - work issued to a capturing stream becomes a memcpy / memset node of
 *     the capture (never queued); a zero-byte call records nothing;
 *   - the synchronous forms are the asynchronous ones on the legacy stream
 *     followed by a wait for that stream, which is what makes them wait for
 *     earlier legacy-stream work (and, through the legacy stream's implicit
 *     synchronisation, for blocking streams) as CUDA's do.
 */
#include "api.h"
#include "../backend/device.h"
#include "../capture/capture.h"
#include "../memory/graphmem.h"
#include "../memory/pool.h"

#include <string.h>

static const char *kind_allocator(gr_mem_kind k)
{
    switch (k) {
    case GR_MEM_DEVICE:
        return "grMalloc";
    case GR_MEM_HOST:
        return "grMallocHost";
    case GR_MEM_POOL:
        return "a memory pool (grMallocAsync or a graph allocation node)";
    }
    return "an unknown allocator";
}

static const char *kind_freer(gr_mem_kind k)
{
    switch (k) {
    case GR_MEM_DEVICE:
        return "grFree";
    case GR_MEM_HOST:
        return "grFreeHost";
    case GR_MEM_POOL:
        return "grFreeAsync (or the graph's free node)";
    }
    return "its allocator's free function";
}

/* Memory of GPU 'owner' (grMalloc on a GPU) or pinned host memory
 * (owner GR_OWNER_PINNED: grMallocHost where GPUs exist), tracked as the
 * CPU's is, with its owner. */
static grError_t alloc_gpu(const char *call, void **out, size_t size, int owner)
{
    void *p = NULL;
    grError_t err = owner == GR_OWNER_PINNED ? gr__devkind()->host_alloc(call, size, &p)
                                             : gr__devkind()->mem_alloc(call, owner, size, &p);
    if (err)
        return err;
    if (!gr__mem_track_owned(p, size, owner == GR_OWNER_PINNED ? GR_MEM_HOST : GR_MEM_DEVICE, owner)) {
        (void)(owner == GR_OWNER_PINNED ? gr__devkind()->host_free(call, p)
                                        : gr__devkind()->mem_free(call, owner, p));
        return gr__fail(grErrorMemoryAllocation, "%s: no memory left to record the allocation of %zu bytes",
                        call, size);
    }
    *out = p;
    return grSuccess;
}

static grError_t alloc_tracked(const char *call, void **out, size_t size, gr_mem_kind kind)
{
    if (!out)
        return gr__fail(grErrorInvalidValue,
                        "%s: the output pointer is NULL; pass the address of a void * "
                        "that receives the allocation",
                        call);
    /* CUDA counts synchronous allocation as unsafe during capture. */
    grError_t err = gr__capture_check_unsafe(call, GR_UNSAFE_MALLOC, NULL, NULL);
    if (err != grSuccess)
        return err;
    if (size == 0) {
        *out = NULL;
        return grSuccess;
    }
    if (kind == GR_MEM_DEVICE && gr__device_current() != 0)
        return alloc_gpu(call, out, size, gr__device_current());
    if (kind == GR_MEM_HOST && gr__gpu_count() > 0)
        return alloc_gpu(call, out, size, GR_OWNER_PINNED);
    return gr__mem_alloc(call, size, kind, out);
}

/* Refuses a pointer that 'call' may not free; changes nothing. */
static grError_t check_freeable(const char *call, void *p, gr_mem_kind kind)
{
    void *base;
    size_t size;
    gr_mem_kind found;
    if (!gr__mem_lookup(p, &base, &size, &found))
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was not returned by %s, or was freed already; "
                        "pass a pointer %s returned, and free it once",
                        call, p, kind_allocator(kind), kind_allocator(kind));
    if (base != p)
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p is %zu bytes inside the allocation at %p of %zu "
                        "bytes; pass the allocation's base pointer",
                        call, p, (size_t)((uintptr_t)p - (uintptr_t)base), base, size);
    if (found != kind)
        return gr__fail(grErrorInvalidValue, "%s: pointer %p was allocated by %s; free it with %s", call, p,
                        kind_allocator(found), kind_freer(found));
    return grSuccess;
}

static grError_t free_tracked(const char *call, void *p, gr_mem_kind kind)
{
    if (!p)
        return grSuccess;
    grError_t err = check_freeable(call, p, kind);
    if (err != grSuccess)
        return err;
    if ((err = gr__capture_check_unsafe(call, GR_UNSAFE_FREE, NULL, NULL)) != grSuccess)
        return err;
    int owner = GR_OWNER_CPU;
    (void)gr__mem_owner(p, &owner);
    /* As CUDA, freeing waits until no queued work can still touch the
     * block: the CPU device's streams may touch pinned and GPU memory too
     * (their copies reach a GPU through the driver). */
    gr__device_drain_dev(call, 0);
    gr__hostreg_forget(p); /* grHostAlloc's flags, grMallocManaged's mark */
    if (owner != GR_OWNER_CPU) {
        /* The driver's free waits for the device's work, as cudaFree. */
        if (!gr__mem_untrack(p, kind))
            return gr__fail(grErrorInvalidValue,
                            "%s: pointer %p was freed by another thread during this call; free each "
                            "allocation once",
                            call, p);
        return owner == GR_OWNER_PINNED ? gr__devkind()->host_free(call, p)
                                        : gr__devkind()->mem_free(call, owner, p);
    }
    /* Another thread may have freed it while this one waited. */
    if (!gr__mem_free_block(p, kind))
        return gr__fail(grErrorInvalidValue,
                        "%s: pointer %p was freed by another thread during this call; "
                        "free each allocation once",
                        call, p);
    return grSuccess;
}

grError_t gr__api_alloc(const char *call, void **out, size_t size, gr_mem_kind kind)
{
    return alloc_tracked(call, out, size, kind);
}

grError_t gr__api_alloc_managed(const char *call, void **out, size_t size, unsigned flags, int device)
{
    grError_t err = gr__capture_check_unsafe(call, GR_UNSAFE_MALLOC, NULL, NULL);
    void *p = NULL;
    if (err != grSuccess || (err = gr__devkind()->managed_alloc(call, device, size, flags, &p)) != grSuccess)
        return err;
    if (!gr__mem_track_owned(p, size, GR_MEM_DEVICE, device)) {
        (void)gr__devkind()->mem_free(call, device, p);
        return gr__fail(grErrorMemoryAllocation, "%s: no memory left to record the allocation of %zu bytes",
                        call, size);
    }
    *out = p;
    return grSuccess;
}

GR_API grError_t grMalloc(void **devPtr, size_t size)
{
    return alloc_tracked("grMalloc", devPtr, size, GR_MEM_DEVICE);
}

GR_API grError_t grFree(void *devPtr)
{
    /* CUDA's cudaFree also frees stream-ordered allocations. */
    if (devPtr && gr__pool_owns(devPtr)) {
        grError_t err = gr__capture_check_unsafe("grFree", GR_UNSAFE_FREE, NULL, NULL);
        return err ? err : gr__pool_free_sync("grFree", devPtr);
    }
    return free_tracked("grFree", devPtr, GR_MEM_DEVICE);
}

GR_API grError_t grMallocHost(void **ptr, size_t size)
{
    return alloc_tracked("grMallocHost", ptr, size, GR_MEM_HOST);
}

GR_API grError_t grFreeHost(void *ptr)
{
    return free_tracked("grFreeHost", ptr, GR_MEM_HOST);
}

static grError_t copy_check(const char *call, void *dst, const void *src, size_t count, grMemcpyKind kind)
{
    if ((unsigned)kind > (unsigned)grMemcpyDefault)
        return gr__fail(grErrorInvalidMemcpyDirection,
                        "%s: kind %d is not a grMemcpyKind; pass grMemcpyHostToHost, "
                        "HostToDevice, DeviceToHost, DeviceToDevice or grMemcpyDefault",
                        call, (int)kind);
    if (count > 0 && (!dst || !src))
        return gr__fail(grErrorInvalidValue,
                        "%s: the %s pointer is NULL for a copy of %zu bytes; pass valid "
                        "pointers or a count of 0",
                        call, !dst ? "destination" : "source", count);
    grError_t err = gr__mem_check_range(call, dst, count, "destination");
    if (err != grSuccess)
        return err;
    return gr__mem_check_range(call, src, count, "source");
}

static grError_t set_check(const char *call, void *dst, size_t count)
{
    if (count > 0 && !dst)
        return gr__fail(grErrorInvalidValue,
                        "%s: the destination pointer is NULL for a memset of %zu bytes; "
                        "pass a valid pointer or a count of 0",
                        call, count);
    return gr__mem_check_range(call, dst, count, "destination");
}

/* The node a captured copy becomes: a 1D copy of count bytes. */
static grError_t copy_capture(const char *call, gr_stream *s, void *dst, const void *src, size_t count,
                              grMemcpyKind kind)
{
    grGraphNodeParams d;
    memset(&d, 0, sizeof d);
    d.type = grGraphNodeTypeMemcpy;
    d.memcpy.copyParams.srcPtr = (grPitchedPtr){(void *)(uintptr_t)src, count, count, 1};
    d.memcpy.copyParams.dstPtr = (grPitchedPtr){dst, count, count, 1};
    d.memcpy.copyParams.extent = (grExtent){count, 1, 1};
    d.memcpy.copyParams.kind = kind;
    return gr__capture_record(call, s, &d);
}

static grError_t set_capture(const char *call, gr_stream *s, void *dst, int value, size_t count)
{
    grGraphNodeParams d;
    memset(&d, 0, sizeof d);
    d.type = grGraphNodeTypeMemset;
    d.memset = (grMemsetParams){
        .dst = dst, .pitch = 0, .value = (unsigned char)value, .elementSize = 1, .width = count, .height = 1};
    return gr__capture_record(call, s, &d);
}

/* The GPU whose memory either pointer is (0: neither): the tracker
 * knows graphrt's allocations, the driver any other. Costs one relaxed
 * load while no GPU context exists. */
int gr__api_gpu_of(const void *a, const void *b)
{
    const void *p[2] = {a, b};
    if (GR_LIKELY(!gr__gpu_active()))
        return 0;
    for (int i = 0; i < 2; i++) {
        int owner = GR_OWNER_CPU;
        if (!p[i])
            continue;
        if (gr__mem_owner(p[i], &owner)) {
            if (owner > 0)
                return owner;
        } else if ((owner = gr__devkind()->pointer_device(p[i])) > 0) {
            return owner;
        }
    }
    return 0;
}

/* 'sync': the call is one of the synchronous forms, which CUDA counts as
 * potentially unsafe during capture. */
grError_t gr__api_copy_enqueue(const char *call, void *dst, const void *src, size_t count, grMemcpyKind kind,
                               grStream_t stream, bool sync, gr_stream **out)
{
    gr_stream *s;
    grError_t err = copy_check(call, dst, src, count, kind);
    if (err != grSuccess)
        return err;
    err = gr__stream_from_handle(call, stream, &s);
    if (err != grSuccess)
        return err;
    if (sync && (err = gr__capture_check_unsafe(call, GR_UNSAFE_SYNC_COPY, s, NULL)) != grSuccess)
        return err;
    *out = s;
    /* Nothing to copy for zero bytes, but an invalidated capture says so,
     * and so does the legacy stream while a blocking stream captures. */
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return count ? copy_capture(call, s, dst, src, count, kind) : gr__capture_check_active(call, s);
    if ((err = gr__capture_check_implicit(call, s)) != grSuccess || count == 0)
        return err;
    if ((err = gr__graphmem_check_mapped(call, dst, count, "destination")) != grSuccess ||
        (err = gr__graphmem_check_mapped(call, src, count, "source")) != grSuccess)
        return err;
    if (s->device != 0)
        return gr__devkind()->copy(call, s, dst, src, count);
    int device = gr__api_gpu_of(dst, src);
    if (GR_UNLIKELY(device != 0))
        return gr__cross_copy_now(call, s, device, dst, src, 0, count);
    gr_mem_copy_args a = {.dst = dst, .src = src, .count = count, .kind = kind};
    return gr__launched(s, gr__stream_call_dev(call, s, gr__mem_copy_op, &a, sizeof a));
}

static grError_t set_enqueue(const char *call, void *dst, int value, size_t count, grStream_t stream,
                             bool sync, gr_stream **out)
{
    gr_stream *s;
    grError_t err = set_check(call, dst, count);
    if (err != grSuccess)
        return err;
    err = gr__stream_from_handle(call, stream, &s);
    if (err != grSuccess)
        return err;
    if (sync && (err = gr__capture_check_unsafe(call, GR_UNSAFE_SYNC_COPY, s, NULL)) != grSuccess)
        return err;
    *out = s;
    if (GR_UNLIKELY(gr__stream_capturing(s)))
        return count ? set_capture(call, s, dst, value, count) : gr__capture_check_active(call, s);
    if ((err = gr__capture_check_implicit(call, s)) != grSuccess || count == 0)
        return err;
    if ((err = gr__graphmem_check_mapped(call, dst, count, "destination")) != grSuccess)
        return err;
    if (s->device != 0)
        return gr__devkind()->fill(call, s, dst, value, count);
    int device = gr__api_gpu_of(dst, NULL);
    if (GR_UNLIKELY(device != 0))
        return gr__cross_copy_now(call, s, device, dst, NULL, value, count);
    gr_mem_set_args a = {.dst = dst, .count = count, .value = (unsigned char)value};
    return gr__launched(s, gr__stream_call_dev(call, s, gr__mem_set_op, &a, sizeof a));
}

/* The synchronous forms' wait: a sticky asynchronous error of the legacy
 * stream is reported here, as CUDA reports it from the next sync call. */
grError_t gr__api_wait_legacy(const char *call, gr_stream *s)
{
    if (s->device != 0) {
        grError_t gerr = gr__devkind()->stream_sync(call, s);
        gr__pool_on_sync();
        return gerr;
    }
    grError_t err = gr__stream_sync_dev(call, s);
    gr__pool_on_sync();
    if (err != grSuccess)
        return gr__fail_again(err);
    return grSuccess;
}

GR_API grError_t grMemcpyAsync(void *dst, const void *src, size_t count, grMemcpyKind kind, grStream_t stream)
{
    gr_stream *s;
    return gr__api_copy_enqueue("grMemcpyAsync", dst, src, count, kind, stream, false, &s);
}

GR_API grError_t grMemcpy(void *dst, const void *src, size_t count, grMemcpyKind kind)
{
    gr_stream *s;
    grError_t err = gr__api_copy_enqueue("grMemcpy", dst, src, count, kind, NULL, true, &s);
    if (err != grSuccess || count == 0)
        return err;
    return gr__api_wait_legacy("grMemcpy", s);
}

GR_API grError_t grMemsetAsync(void *devPtr, int value, size_t count, grStream_t stream)
{
    gr_stream *s;
    return set_enqueue("grMemsetAsync", devPtr, value, count, stream, false, &s);
}

GR_API grError_t grMemset(void *devPtr, int value, size_t count)
{
    gr_stream *s;
    grError_t err = set_enqueue("grMemset", devPtr, value, count, NULL, true, &s);
    if (err != grSuccess || count == 0)
        return err;
    return gr__api_wait_legacy("grMemset", s);
}
