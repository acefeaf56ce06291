/*
 * info.c - what the driver says about itself, a GPU's memory and a
 * pointer graphrt did not allocate: cuDriverGetVersion, cuMemGetInfo and
 * cuPointerGetAttribute. The first two are not among the entry points the
 * loader needs for GPUs to exist (cu_driver.h): they are looked up here,
 * once, by their exported names, so that a driver too old or too broken
 * for GPUs can still tell its version, as cudaDriverGetVersion does.
 */
#include "cuda_int.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* cuPointerGetAttribute's attributes beyond cu_driver.h's (CUDA's
 * CUpointer_attribute values). */
enum {
    GR_CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    GR_CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
    GR_CU_POINTER_ATTRIBUTE_IS_MANAGED = 8
};

typedef CUresult (*gr_cuDriverGetVersion)(int *version);
typedef CUresult (*gr_cuMemGetInfo)(size_t *free, size_t *total);

static pthread_once_t info_once = PTHREAD_ONCE_INIT;
static int driver_version;
static gr_cuMemGetInfo mem_get_info;

static void info_load(void)
{
    const char *env = getenv("GRAPHRT_CUDA");
    if (env && strcmp(env, "0") == 0)
        return;
    /* The loader's handle stays open for the process, so is this one. */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    gr_cuDriverGetVersion get_version = (gr_cuDriverGetVersion)(uintptr_t)dlsym(lib, "cuDriverGetVersion");
    int v = 0;
    if (get_version && get_version(&v) == CUDA_SUCCESS && v > 0)
        driver_version = v;
    /* cuMemGetInfo_v2 is the size_t version (CUDA 3.2 and later). */
    mem_get_info = (gr_cuMemGetInfo)(uintptr_t)dlsym(lib, "cuMemGetInfo_v2");
}

int gr__cuda_driver_version(void)
{
    pthread_once(&info_once, info_load);
    return driver_version;
}

grError_t gr__cuda_device_init(const char *call, int device)
{
    CUresult r = gr__cuda_enter(device);
    return r ? gr__cu_fail(call, device, "cuDevicePrimaryCtxRetain", r) : grSuccess;
}

grError_t gr__cuda_mem_info(const char *call, int device, size_t *free_bytes, size_t *total_bytes)
{
    pthread_once(&info_once, info_load);
    if (!mem_get_info)
        return gr__fail(grErrorCallRequiresNewerDriver, "%s: the NVIDIA driver lacks cuMemGetInfo_v2", call);
    CUresult r = gr__cuda_enter(device);
    if (r == CUDA_SUCCESS)
        r = mem_get_info(free_bytes, total_bytes);
    return r ? gr__cu_fail(call, device, "cuMemGetInfo", r) : grSuccess;
}

bool gr__cuda_pointer_info(const void *p, gr_dev_pointer *info)
{
    int type = 0, ordinal = -1, managed = 0;
    void *device_ptr = NULL, *host_ptr = NULL;
    if (!p || !gr__gpu_active())
        return false;
    /* Any thread may ask; the answer needs a current context only for
     * the device alias, so the first GPU's (where pinned memory lives)
     * stands in when the thread has none. */
    if (gr__cuda_enter(1) != CUDA_SUCCESS)
        return false;
    /* Unregistered memory is an error here, or a type of none of these. */
    if (gr_cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, gr__cu_ptr(p)) != CUDA_SUCCESS ||
        (type != CU_MEMORYTYPE_HOST && type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED))
        return false;
    /* Pinned memory may be portable, of no one device: it is then the
     * first GPU's, as graphrt's own pinned memory is. */
    if (gr_cu.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, gr__cu_ptr(p)) !=
            CUDA_SUCCESS ||
        ordinal < 0 || ordinal >= gr__cuda_count()) {
        if (type != CU_MEMORYTYPE_HOST)
            return false;
        ordinal = 0;
    }
    (void)gr_cu.cuPointerGetAttribute(&managed, GR_CU_POINTER_ATTRIBUTE_IS_MANAGED, gr__cu_ptr(p));
    (void)gr_cu.cuPointerGetAttribute(&device_ptr, GR_CU_POINTER_ATTRIBUTE_DEVICE_POINTER, gr__cu_ptr(p));
    (void)gr_cu.cuPointerGetAttribute(&host_ptr, GR_CU_POINTER_ATTRIBUTE_HOST_POINTER, gr__cu_ptr(p));
    info->type = managed || type == CU_MEMORYTYPE_UNIFIED ? grMemoryTypeManaged
                 : type == CU_MEMORYTYPE_HOST             ? grMemoryTypeHost
                                                          : grMemoryTypeDevice;
    info->device = ordinal + 1;
    info->device_pointer = device_ptr;
    info->host_pointer = host_ptr;
    return true;
}

grError_t gr__cuda_peer_access(const char *call, int device, int peer, int what, int *can)
{
    CUresult r;
    if (what == GR_PEER_QUERY) {
        r = gr_cu.cuDeviceCanAccessPeer(can, gr__gpus[device - 1].dev, gr__gpus[peer - 1].dev);
        return r ? gr__cu_fail(call, device, "cuDeviceCanAccessPeer", r) : grSuccess;
    }
    /* The peer's context must exist to be mapped; the device's is left
     * current, the context the mapping belongs to. */
    if ((r = gr__cuda_enter(peer)) != CUDA_SUCCESS || (r = gr__cuda_enter(device)) != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuDevicePrimaryCtxRetain", r);
    if (what == GR_PEER_ENABLE)
        r = gr_cu.cuCtxEnablePeerAccess(gr__cuda_context(peer), 0);
    else
        r = gr_cu.cuCtxDisablePeerAccess(gr__cuda_context(peer));
    return r ? gr__cu_fail(call, device,
                           what == GR_PEER_ENABLE ? "cuCtxEnablePeerAccess" : "cuCtxDisablePeerAccess", r)
             : grSuccess;
}
