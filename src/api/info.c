/*
 * info.c - the calls that answer questions about the runtime rather than
 * run work: versions, a device's free memory, and what a pointer is. The
 * CPU's answers come from the host (/proc/meminfo) and the allocation
 * tracker; a GPU's, and a foreign pointer's, from the driver.
 */
#include "../backend/device.h"
#include "../memory/memory.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

GR_API grError_t grRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return gr__fail(grErrorInvalidValue,
                        "grRuntimeGetVersion: 'runtimeVersion' (the output pointer) is NULL");
    *runtimeVersion = GR_CUDA_API_VERSION;
    return grSuccess;
}

GR_API grError_t grDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return gr__fail(grErrorInvalidValue,
                        "grDriverGetVersion: 'driverVersion' (the output pointer) is NULL");
    /* Where graphrt shows no GPU, the CPU device is all a program can run
     * on and it implements the CUDA API of GR_CUDA_API_VERSION: answering
     * that lets programs that gate features on the driver's version run
     * there (CUDA answers 0 without a driver, which gates everything
     * off). Where a GPU is shown, its driver's version is the truth the
     * gate needs. */
    *driverVersion = gr__gpu_count() > 0 ? gr__devkind()->driver_version() : GR_CUDA_API_VERSION;
    return grSuccess;
}

/* MemAvailable and MemTotal of /proc/meminfo, in bytes; false when either
 * is missing (no /proc, or a kernel older than 3.14). */
static bool meminfo(size_t *avail, size_t *total)
{
    char line[256];
    unsigned long long kb;
    bool have_avail = false, have_total = false;
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return false;
    while (fgets(line, sizeof line, f) && !(have_avail && have_total)) {
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1 && kb <= SIZE_MAX / 1024) {
            *avail = (size_t)kb * 1024;
            have_avail = true;
        } else if (sscanf(line, "MemTotal: %llu kB", &kb) == 1 && kb <= SIZE_MAX / 1024) {
            *total = (size_t)kb * 1024;
            have_total = true;
        }
    }
    fclose(f);
    return have_avail && have_total;
}

/* The host's free and total memory: /proc/meminfo, else sysconf. */
static bool host_memory(size_t *avail, size_t *total)
{
    if (meminfo(avail, total))
        return *total > 0;
    long pages = sysconf(_SC_PHYS_PAGES), free_pages = sysconf(_SC_AVPHYS_PAGES),
         page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || free_pages < 0 || page <= 0 || gr__mul_overflow((size_t)pages, (size_t)page, total) ||
        gr__mul_overflow((size_t)free_pages, (size_t)page, avail))
        return false;
    return *total > 0;
}

GR_API grError_t grMemGetInfo(size_t *freeBytes, size_t *totalBytes)
{
    size_t avail = 0, total = 0;
    if (!freeBytes || !totalBytes)
        return gr__fail(grErrorInvalidValue, "grMemGetInfo: '%s' (an output pointer) is NULL",
                        freeBytes ? "totalBytes" : "freeBytes");
    int device = gr__device_current();
    if (device != 0) {
        grError_t err = gr__devkind()->mem_info("grMemGetInfo", device, &avail, &total);
        if (err)
            return err;
    } else if (!host_memory(&avail, &total)) {
        return gr__fail(
            grErrorNotSupported,
            "grMemGetInfo: the host's memory could not be read (neither /proc/meminfo nor sysconf "
            "tells it)");
    }
    /* The figures are read at different moments (MemAvailable may
     * briefly exceed what MemTotal said): free never exceeds total. */
    *freeBytes = avail < total ? avail : total;
    *totalBytes = total;
    return grSuccess;
}

/* The attributes of a graphrt allocation of 'kind' and 'owner' holding p. */
static void tracked_attributes(grPointerAttributes *a, void *p, gr_mem_kind kind, int owner)
{
    if (kind == GR_MEM_HOST) {
        /* Pinned memory lives in the first GPU's context (backend/cuda). */
        a->type = grMemoryTypeHost;
        a->device = owner == GR_OWNER_PINNED ? 1 : 0;
        a->devicePointer = p;
        a->hostPointer = p;
        return;
    }
    a->type = grMemoryTypeDevice;
    a->device = owner == GR_OWNER_PINNED ? 1 : owner;
    a->devicePointer = p;
    /* The CPU's device memory is host memory: the host may use it. */
    a->hostPointer = owner == GR_OWNER_CPU ? p : NULL;
}

GR_API grError_t grPointerGetAttributes(grPointerAttributes *attributes, const void *ptr)
{
    gr_mem_kind kind;
    int owner;
    gr_dev_pointer foreign;
    void *p = (void *)(uintptr_t)ptr;
    if (!attributes)
        return gr__fail(grErrorInvalidValue,
                        "grPointerGetAttributes: 'attributes' (the output pointer) is NULL");
    if (p && gr__mem_describe(p, &kind, &owner)) {
        tracked_attributes(attributes, p, kind, owner);
        /* Managed memory, the CPU's or a GPU's (the driver's), is the
         * host's too: both pointers are p, as CUDA answers. */
        if (kind == GR_MEM_DEVICE && gr__hostreg_find(p, GR_HOSTREG_MANAGED, NULL, NULL, NULL)) {
            attributes->type = grMemoryTypeManaged;
            attributes->hostPointer = p;
        }
    } else if (p && gr__hostreg_find(p, GR_HOSTREG_REGISTERED, NULL, NULL, NULL)) {
        /* grHostRegister'ed memory: pinned host memory of the CPU. */
        attributes->type = grMemoryTypeHost;
        attributes->device = 0;
        attributes->devicePointer = p;
        attributes->hostPointer = p;
    } else if (gr__devkind()->pointer_info(p, &foreign)) {
        attributes->type = foreign.type;
        attributes->device = foreign.device;
        attributes->devicePointer = foreign.device_pointer;
        attributes->hostPointer = foreign.host_pointer;
    } else {
        attributes->type = grMemoryTypeUnregistered;
        attributes->device = grInvalidDeviceId;
        attributes->devicePointer = NULL;
        attributes->hostPointer = p;
    }
    return grSuccess;
}
