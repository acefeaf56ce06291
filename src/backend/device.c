/*
 * device.c - devices as graphrt numbers them (0: the CPU, 1..N: those of
 * the accelerator kind, device.h), the choice of that kind, and the
 * calling thread's current device with GRAPHRT_DEVICE's choice for a
 * thread's start.
 *
 * Invariant: the kind is chosen once, at the first question about
 * devices, and never changes; a registration after that is refused.
 */
#include "device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const gr_device_ops *_Atomic gr__devkind_chosen;
_Atomic bool gr__gpu_any_context;

static const gr_device_ops *_Atomic offered;
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

/* The CUDA kind when its driver offers devices; else the offered kind
 * (the test suite's fake device), if it has devices; else the CUDA kind,
 * which says why there is no device. */
static void choose(void)
{
    const gr_device_ops *k = &gr__cuda_kind;
    const gr_device_ops *o = gr_load_acquire(&offered);
    if (o && k->count() == 0 && o->count() > 0)
        k = o;
    gr_store_release(&gr__devkind_chosen, k);
}

const gr_device_ops *gr__devkind_choose(void)
{
    pthread_once(&choose_once, choose);
    return gr_load_acquire(&gr__devkind_chosen);
}

bool gr__device_register(const gr_device_ops *ops)
{
    if (gr_load_acquire(&gr__devkind_chosen) != NULL)
        return false;
    gr_store_release(&offered, ops);
    return true;
}

grError_t gr__stream_sync_dev(const char *call, gr_stream *s)
{
    return s->device ? gr__devkind()->stream_sync(call, s) : gr__stream_sync(s);
}

grError_t gr__device_sync_dev(const char *call, int device)
{
    if (device != 0)
        return gr__devkind()->device_sync(call, device);
    gr__device_sync_all();
    return gr__kernel_fault_check(call);
}

void gr__device_reset_dev(const char *call, int device)
{
    if (device != 0)
        (void)gr__devkind()->device_sync(call, device);
    else
        gr__device_stop();
}

grError_t gr__stream_sync_any(gr_stream *s)
{
    return gr__stream_sync_dev("a blocking launch (GRAPHRT_LAUNCH_BLOCKING)", s);
}

int gr__gpu_count(void)
{
    return gr__devkind()->count();
}

const char *gr__gpu_absence(void)
{
    return gr__devkind()->absence();
}

/* The current device + 1; 0 until the thread's first question. */
static _Thread_local int tls_device_plus1;

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_device;

/* GRAPHRT_DEVICE: "cpu", "cuda:K" (the K-th GPU, from 0) or a graphrt
 * device number. A value naming no device leaves the CPU, said once on
 * stderr: a library cannot fail a thread's start, and silence would run
 * the whole program on the wrong device unnoticed. */
static void read_env(void)
{
    const char *v = getenv("GRAPHRT_DEVICE");
    char *end = NULL;
    long d = -1;
    if (!v || !*v || strcmp(v, "cpu") == 0)
        return;
    if (strncmp(v, "cuda:", 5) == 0) {
        long k = strtol(v + 5, &end, 10);
        if (end != v + 5 && *end == '\0' && k >= 0)
            d = k + 1;
    } else {
        long k = strtol(v, &end, 10);
        if (end != v && *end == '\0' && k >= 0)
            d = k;
    }
    if (d >= 0 && d <= gr__gpu_count()) {
        env_device = (int)d;
        return;
    }
    const char *why = gr__gpu_absence();
    if (why)
        fprintf(stderr,
                "graphrt: GRAPHRT_DEVICE=%s names no device (the CPU, device 0, is the only one: %s); "
                "using the CPU\n",
                v, why);
    else
        fprintf(stderr,
                "graphrt: GRAPHRT_DEVICE=%s names no device (devices: 0 = the CPU, 1..%d = the GPUs); "
                "using the CPU\n",
                v, gr__gpu_count());
}

/* The first device of grSetValidDevices' list (-1: none), where a thread
 * that has chosen none starts. */
static int _Atomic valid_first = -1;

int gr__device_current(void)
{
    int d = tls_device_plus1;
    if (GR_LIKELY(d))
        return d - 1;
    pthread_once(&env_once, read_env);
    int first = gr_load_acquire(&valid_first);
    d = first >= 0 ? first : env_device;
    tls_device_plus1 = d + 1;
    return d;
}

void gr__device_set_first(int device)
{
    gr_store_release(&valid_first, device);
}

void gr__device_select(int device)
{
    tls_device_plus1 = device + 1;
}

bool gr__device_exists(int device)
{
    return device == 0 || (device > 0 && device <= gr__gpu_count());
}

grError_t gr__device_start_dev(const char *call, int device)
{
    if (device != 0)
        return gr__devkind()->device_init(call, device);
    if (GR_UNLIKELY(!gr__device_start()))
        return gr__fail(grErrorInitializationError,
                        "%s: the graphrt runtime could not start (out of memory or threads)", call);
    return grSuccess;
}

void gr__device_drain_dev(const char *call, int device)
{
    if (device != 0)
        (void)gr__devkind()->device_sync(call, device);
    else
        gr__device_sync_all();
}

grError_t gr__device_processors(const char *call, int device, int *out)
{
    if (device != 0)
        return gr__devkind()->attribute(call, device, grDevAttrMultiProcessorCount, out);
    grError_t err = gr__device_start_dev(call, 0);
    if (err == grSuccess)
        *out = (int)gr__worker_count();
    return err;
}
