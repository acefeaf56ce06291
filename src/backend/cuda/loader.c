/*
 * loader.c - finds the CUDA driver at run time: dlopen("libcuda.so.1"),
 * its cuGetProcAddress, every entry point of cu_driver.h by base name at
 * GR_CU_ABI_VERSION (those of conditional nodes, which a driver may lack,
 * at GR_CU_COND_ABI_VERSION; the managed-memory hints, GR_CU_MANAGED_FUNCTIONS,
 * at GR_CU_MANAGED_ABI_VERSION; the other optional ones, GR_CU_OPT_FUNCTIONS
 * with the batch memory operation nodes' GR_CU_MEMOP_NODE_FUNCTIONS, at
 * GR_CU_ABI_VERSION), then cuInit and the device count, once per process.
 * Without a driver, or with GRAPHRT_CUDA=0, there are no GPUs and the
 * reason is kept for the sentences that say so.
 */
#include "cu_driver.h"
#include "cuda_int.h"

#include <dlfcn.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gr_cu_table gr_cu;
gr_gpu gr__gpus[GR_MAX_GPUS];

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int ngpus;
static char absence[160] = "the CUDA driver was not looked for yet";

static void set_absence(const char *fmt, const char *arg)
{
    snprintf(absence, sizeof absence, fmt, arg);
}

/* Every member of gr_cu: its base name and where it is. */
static const struct {
    const char *name;
    size_t offset;
} entry_points[] = {
#define GR_CU_ENTRY(name, params) {#name, offsetof(gr_cu_table, name)},
    GR_CU_FUNCTIONS(GR_CU_ENTRY)
#undef GR_CU_ENTRY
};

/* The members of gr_cu that a driver may lack (cu_graph.h's, then
 * cu_driver.h's), and the ABI version each is asked at. */
static const struct {
    const char *name;
    size_t offset;
    int version;
} optional_entry_points[] = {
#define GR_CU_ENTRY(name, params) {#name, offsetof(gr_cu_table, name), GR_CU_COND_ABI_VERSION},
    GR_CU_COND_FUNCTIONS(GR_CU_ENTRY)
#undef GR_CU_ENTRY
#define GR_CU_ENTRY(name, params) {#name, offsetof(gr_cu_table, name), GR_CU_ABI_VERSION},
        GR_CU_OPT_FUNCTIONS(GR_CU_ENTRY)
#undef GR_CU_ENTRY
#define GR_CU_ENTRY(name, params) {#name, offsetof(gr_cu_table, name), GR_CU_MANAGED_ABI_VERSION},
            GR_CU_MANAGED_FUNCTIONS(GR_CU_ENTRY)
#undef GR_CU_ENTRY
};

/* Resolves every member of gr_cu; false (with the reason kept) when an
 * entry point graphrt needs is missing. */
static bool resolve_all(void *lib)
{
    gr_cuGetProcAddress_v2 gpa2 = (gr_cuGetProcAddress_v2)(uintptr_t)dlsym(lib, "cuGetProcAddress_v2");
    gr_cuGetProcAddress_v1 gpa1 = (gr_cuGetProcAddress_v1)(uintptr_t)dlsym(lib, "cuGetProcAddress");
    if (!gpa2 && !gpa1) {
        set_absence("the NVIDIA driver in libcuda.so.1 is older than CUDA 11.3 (no cuGetProcAddress)%s", "");
        return false;
    }
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
        void *pfn = NULL;
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        /* By base name: the driver returns the entry of that ABI version
         * (cuMemAlloc_v2 for cuMemAlloc at 12000, say). */
        CUresult r =
            gpa2 ? gpa2(entry_points[i].name, &pfn, GR_CU_ABI_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &st)
                 : gpa1(entry_points[i].name, &pfn, GR_CU_ABI_VERSION, CU_GET_PROC_ADDRESS_DEFAULT);
        if (r != CUDA_SUCCESS || !pfn) {
            set_absence("the NVIDIA driver lacks %s at the CUDA 12.0 ABI", entry_points[i].name);
            return false;
        }
        memcpy((char *)&gr_cu + entry_points[i].offset, &pfn, sizeof pfn);
    }
    for (size_t i = 0; i < sizeof optional_entry_points / sizeof optional_entry_points[0]; i++) {
        void *pfn = NULL;
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        int version = optional_entry_points[i].version;
        CUresult r =
            gpa2 ? gpa2(optional_entry_points[i].name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &st)
                 : gpa1(optional_entry_points[i].name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT);
        if (r != CUDA_SUCCESS)
            pfn = NULL;
        memcpy((char *)&gr_cu + optional_entry_points[i].offset, &pfn, sizeof pfn);
    }
    return true;
}

static void load(void)
{
    const char *env = getenv("GRAPHRT_CUDA");
    if (env && strcmp(env, "0") == 0) {
        set_absence("GPUs disabled by GRAPHRT_CUDA=0%s", "");
        return;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        set_absence("no NVIDIA driver (libcuda.so.1 not found)%s", "");
        return;
    }
    if (!resolve_all(lib)) {
        memset(&gr_cu, 0, sizeof gr_cu);
        return;
    }
    CUresult r = gr_cu.cuInit(0);
    if (r != CUDA_SUCCESS) {
        set_absence("the NVIDIA driver did not start (cuInit: %s)", gr__cu_error_name(r));
        return;
    }
    int n = 0;
    if ((r = gr_cu.cuDeviceGetCount(&n)) != CUDA_SUCCESS || n <= 0) {
        set_absence("the NVIDIA driver reports no GPU (%s)", r ? gr__cu_error_name(r) : "0 devices");
        return;
    }
    if (n > GR_MAX_GPUS)
        n = GR_MAX_GPUS;
    for (int i = 0; i < n; i++) {
        if (gr_cu.cuDeviceGet(&gr__gpus[i].dev, i) != CUDA_SUCCESS) {
            n = i;
            break;
        }
        pthread_mutex_init(&gr__gpus[i].lock, NULL);
    }
    ngpus = n;
    if (n == 0)
        set_absence("the NVIDIA driver's devices could not be opened%s", "");
}

int gr__cuda_count(void)
{
    pthread_once(&load_once, load);
    return ngpus;
}

const char *gr__cuda_absence(void)
{
    return gr__cuda_count() > 0 ? NULL : absence;
}

int gr__cuda_enter(int device)
{
    gr_gpu *g = &gr__gpus[device - 1];
    CUcontext ctx = gr_load_acquire(&g->ctx);
    if (GR_UNLIKELY(!ctx)) {
        CUresult r = CUDA_SUCCESS;
        pthread_mutex_lock(&g->lock);
        ctx = gr_load_relaxed(&g->ctx);
        if (!ctx) {
            r = gr_cu.cuDevicePrimaryCtxRetain(&ctx, g->dev);
            if (r == CUDA_SUCCESS) {
                gr_store_release(&g->ctx, ctx);
                gr_store_release(&gr__gpu_any_context, true);
            }
        }
        pthread_mutex_unlock(&g->lock);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return gr_cu.cuCtxSetCurrent(ctx);
}
