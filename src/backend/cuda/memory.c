/*
 * memory.c - GPU memory: device allocations (cuMemAlloc), pinned host
 * memory (cuMemHostAlloc), copies and memsets on a GPU stream
 * (cuMemcpyAsync, cuMemsetD8Async: with unified addressing one call
 * serves every direction), stream-ordered allocation from the device's
 * default pool (cuMemAllocAsync, cuMemFreeAsync), and the driver's answer
 * to "whose memory is this pointer". The memory layer tracks what these
 * return, as it tracks the CPU's.
 */
#include "cuda_int.h"

#include <string.h>

grError_t gr__cuda_malloc(const char *call, int device, size_t size, void **out)
{
    CUdeviceptr d = 0;
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemAlloc(&d, size);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuMemAlloc", r);
    *out = (void *)(uintptr_t)d;
    return grSuccess;
}

grError_t gr__cuda_free(const char *call, int device, void *p)
{
    /* cudaFree waits for the device's work; cuMemFree need not. */
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuCtxSynchronize();
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemFree(gr__cu_ptr(p));
    return r ? gr__cu_fail(call, device, "cuMemFree", r) : grSuccess;
}

grError_t gr__cuda_malloc_host(const char *call, size_t size, void **out)
{
    /* Pinned memory belongs to a context; the first GPU's primary context
     * holds it, portable to every GPU. */
    CUresult r = gr__cuda_enter(1);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemHostAlloc(out, size, CU_MEMHOSTALLOC_PORTABLE);
    return r ? gr__cu_fail(call, 1, "cuMemHostAlloc", r) : grSuccess;
}

grError_t gr__cuda_free_host(const char *call, void *p)
{
    /* Any GPU may still be copying from or to it: as cudaFreeHost, wait
     * for every device in use first. */
    for (int d = 1; d <= gr__cuda_count(); d++) {
        if (!gr_load_acquire(&gr__gpus[d - 1].ctx))
            continue;
        CUresult r = gr__cuda_enter(d);
        if (r == CUDA_SUCCESS)
            r = gr_cu.cuCtxSynchronize();
        if (r != CUDA_SUCCESS)
            return gr__cu_fail(call, d, "cuCtxSynchronize", r);
    }
    CUresult r = gr__cuda_enter(1);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemFreeHost(p);
    return r ? gr__cu_fail(call, 1, "cuMemFreeHost", r) : grSuccess;
}

int gr__cuda_pointer_device(const void *p)
{
    int type = 0, ordinal = -1;
    if (!p || !gr__gpu_active())
        return 0;
    /* Graph memory's ranges first: the driver does not know one that no
     * executable maps now. */
    int vmm = gr__cuda_vmm_device(p);
    if (vmm)
        return vmm;
    if (gr_cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, gr__cu_ptr(p)) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
        return 0;
    if (gr_cu.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, gr__cu_ptr(p)) !=
            CUDA_SUCCESS ||
        ordinal < 0 || ordinal >= gr__cuda_count())
        return 0;
    return ordinal + 1;
}

grError_t gr__cuda_memcpy(const char *call, gr_stream *s, void *dst, const void *src, size_t count)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemcpyAsync(gr__cu_ptr(dst), gr__cu_ptr(src), count, gr__cuda_stream(s)->cu);
    return r ? gr__cu_fail(call, s->device, "cuMemcpyAsync", r) : grSuccess;
}

grError_t gr__cuda_memset(const char *call, gr_stream *s, void *dst, int value, size_t count)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemsetD8Async(gr__cu_ptr(dst), (unsigned char)value, count, gr__cuda_stream(s)->cu);
    return r ? gr__cu_fail(call, s->device, "cuMemsetD8Async", r) : grSuccess;
}

/* The stream of a pitched operation and its context: s's, or the legacy
 * stream of 'device'. */
static CUresult enter_pitched(gr_stream *s, int device, CUstream *cu)
{
    *cu = s ? gr__cuda_stream(s)->cu : GR_CU_STREAM_LEGACY;
    return s ? gr__cuda_enter_stream(s) : gr__cuda_enter(device);
}

grError_t gr__cuda_memcpy_pitched(const char *call, gr_stream *s, int device, const gr_copy_side *dst,
                                  const gr_copy_side *src, size_t width, size_t height, size_t depth)
{
    CUDA_MEMCPY3D d;
    CUstream cu;
    memset(&d, 0, sizeof d);
    /* Each side device memory (a GPU's, as the driver tells) or host memory. */
    if (gr__cuda_pointer_device(src->ptr) > 0) {
        d.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        d.srcDevice = gr__cu_ptr(src->ptr);
    } else {
        d.srcMemoryType = CU_MEMORYTYPE_HOST;
        d.srcHost = src->ptr;
    }
    if (gr__cuda_pointer_device(dst->ptr) > 0) {
        d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        d.dstDevice = gr__cu_ptr(dst->ptr);
    } else {
        d.dstMemoryType = CU_MEMORYTYPE_HOST;
        d.dstHost = (void *)(uintptr_t)dst->ptr;
    }
    d.srcPitch = src->pitch;
    d.srcHeight = src->rows;
    d.dstPitch = dst->pitch;
    d.dstHeight = dst->rows;
    d.WidthInBytes = width;
    d.Height = height;
    d.Depth = depth;
    CUresult r = enter_pitched(s, device, &cu);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemcpy3DAsync(&d, cu);
    if (r == CUDA_SUCCESS && !s)
        r = gr_cu.cuStreamSynchronize(cu);
    return r ? gr__cu_fail(call, s ? s->device : device, "cuMemcpy3DAsync", r) : grSuccess;
}

grError_t gr__cuda_memset_2d(const char *call, gr_stream *s, int device, void *dst, size_t pitch,
                             unsigned char value, size_t width, size_t height)
{
    CUstream cu;
    CUresult r = enter_pitched(s, device, &cu);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemsetD2D8Async(gr__cu_ptr(dst), pitch, value, width, height, cu);
    if (r == CUDA_SUCCESS && !s)
        r = gr_cu.cuStreamSynchronize(cu);
    return r ? gr__cu_fail(call, s ? s->device : device, "cuMemsetD2D8Async", r) : grSuccess;
}

grError_t gr__cuda_memcpy_now(int device, void *dst, const void *src, size_t count)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemcpyAsync(gr__cu_ptr(dst), gr__cu_ptr(src), count, GR_CU_STREAM_LEGACY);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamSynchronize(GR_CU_STREAM_LEGACY);
    return gr__cu_error(r);
}

grError_t gr__cuda_memset_now(int device, void *dst, int value, size_t count)
{
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemsetD8Async(gr__cu_ptr(dst), (unsigned char)value, count, GR_CU_STREAM_LEGACY);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuStreamSynchronize(GR_CU_STREAM_LEGACY);
    return gr__cu_error(r);
}

grError_t gr__cuda_malloc_async(const char *call, gr_stream *s, size_t size, void **out)
{
    CUdeviceptr d = 0;
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemAllocAsync(&d, size, gr__cuda_stream(s)->cu);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, s->device, "cuMemAllocAsync", r);
    *out = (void *)(uintptr_t)d;
    return grSuccess;
}

grError_t gr__cuda_free_async(const char *call, gr_stream *s, void *p)
{
    CUresult r = gr__cuda_enter_stream(s);
    if (r == CUDA_SUCCESS)
        r = gr_cu.cuMemFreeAsync(gr__cu_ptr(p), gr__cuda_stream(s)->cu);
    return r ? gr__cu_fail(call, s->device, "cuMemFreeAsync", r) : grSuccess;
}
