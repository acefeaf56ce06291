/*
 * names.c - the registry of names: live kernels by the name they were
 * created with (kept unique) and host functions registered by name
 * (grHostFnRegister). Graph files name kernels and host functions
 * instead of holding addresses, and the loader resolves those names here.
 * Also the names of node types, which detail sentences of every layer
 * use.
 *
 * Invariants:
 *   - a kernel is on the list from its registration until grKernelDestroy
 *     (its handle's death); a kernel that no registration put there (a
 *     graph file's stand-in) is never on it;
 *   - host function names are unique, and so are the functions;
 *   - both lists are guarded by names_lock, taken by no other lock holder
 *     and held across no call out of this file.
 */
#include "backend.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct kernel_entry {
    grKernel_t k;
    struct kernel_entry *next;
} kernel_entry;
static kernel_entry *kernels; /* guarded by names_lock */

typedef struct hostfn_entry {
    grHostFn_t fn;
    void *user_data;
    struct hostfn_entry *next;
    char name[]; /* NUL-terminated */
} hostfn_entry;
static hostfn_entry *hostfns; /* guarded by names_lock */

static kernel_entry *kernel_named_locked(const char *name)
{
    for (kernel_entry *e = kernels; e; e = e->next)
        if (strcmp(e->k->name, name) == 0)
            return e;
    return NULL;
}

gr_name_result gr__kernel_register(grKernel_t k)
{
    kernel_entry *ne = gr__malloc(sizeof *ne);
    if (!ne)
        return GR_NAME_NOMEM;
    /* The uniqueness test and the registration under one lock: two
     * threads registering one name at once get one kernel and one refusal. */
    pthread_mutex_lock(&names_lock);
    bool taken = kernel_named_locked(k->name) != NULL;
    if (!taken) {
        ne->k = k;
        ne->next = kernels;
        kernels = ne;
    }
    pthread_mutex_unlock(&names_lock);
    if (taken) {
        gr__free(ne);
        return GR_NAME_TAKEN;
    }
    return GR_NAME_OK;
}

bool gr__kernel_unregister(grKernel_t k)
{
    kernel_entry **pp, *e = NULL;
    pthread_mutex_lock(&names_lock);
    for (pp = &kernels; *pp; pp = &(*pp)->next)
        if ((*pp)->k == k) {
            e = *pp;
            *pp = e->next;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    gr__free(e);
    return e != NULL;
}

grKernel_t gr__kernel_find(const char *name)
{
    grKernel_t k = NULL;
    pthread_mutex_lock(&names_lock);
    kernel_entry *e = kernel_named_locked(name);
    if (e) {
        /* Retained under the lock: grKernelDestroy unregisters before it
         * drops the handle's reference, so the kernel is alive here. */
        k = e->k;
        gr__kernel_retain(k);
    }
    pthread_mutex_unlock(&names_lock);
    return k;
}

gr_name_result gr__hostfn_register(grHostFn_t fn, const char *name, void *user_data)
{
    size_t len = strlen(name);
    hostfn_entry *ne = gr__malloc(sizeof *ne + len + 1);
    if (!ne)
        return GR_NAME_NOMEM;
    memcpy(ne->name, name, len + 1);
    ne->fn = fn;
    ne->user_data = user_data;
    gr_name_result r = GR_NAME_OK;
    pthread_mutex_lock(&names_lock);
    for (hostfn_entry *e = hostfns; e && r == GR_NAME_OK; e = e->next) {
        if (strcmp(e->name, name) == 0)
            r = GR_NAME_TAKEN;
        else if (e->fn == fn)
            r = GR_NAME_FN_TAKEN;
    }
    if (r == GR_NAME_OK) {
        ne->next = hostfns;
        hostfns = ne;
    }
    pthread_mutex_unlock(&names_lock);
    if (r != GR_NAME_OK)
        gr__free(ne);
    return r;
}

bool gr__hostfn_unregister(grHostFn_t fn)
{
    hostfn_entry **pp, *e = NULL;
    pthread_mutex_lock(&names_lock);
    for (pp = &hostfns; *pp; pp = &(*pp)->next)
        if ((*pp)->fn == fn) {
            e = *pp;
            *pp = e->next;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    gr__free(e);
    return e != NULL;
}

bool gr__hostfn_find(const char *name, grHostFn_t *fn, void **user_data)
{
    bool found = false;
    pthread_mutex_lock(&names_lock);
    for (hostfn_entry *e = hostfns; e; e = e->next)
        if (strcmp(e->name, name) == 0) {
            *fn = e->fn;
            *user_data = e->user_data;
            found = true;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    return found;
}

size_t gr__hostfn_name(grHostFn_t fn, char *buf, size_t cap, void **user_data)
{
    size_t len = 0;
    pthread_mutex_lock(&names_lock);
    for (hostfn_entry *e = hostfns; e; e = e->next)
        if (e->fn == fn) {
            len = strlen(e->name);
            if (len < cap)
                memcpy(buf, e->name, len + 1);
            *user_data = e->user_data;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    return len;
}

const char *gr__node_type_name(grGraphNodeType t)
{
    switch (t) {
    case grGraphNodeTypeKernel:
        return "kernel";
    case grGraphNodeTypeMemcpy:
        return "memcpy";
    case grGraphNodeTypeMemset:
        return "memset";
    case grGraphNodeTypeHost:
        return "host";
    case grGraphNodeTypeGraph:
        return "child graph";
    case grGraphNodeTypeEmpty:
        return "empty";
    case grGraphNodeTypeWaitEvent:
        return "event wait";
    case grGraphNodeTypeEventRecord:
        return "event record";
    case grGraphNodeTypeMemAlloc:
        return "mem alloc";
    case grGraphNodeTypeMemFree:
        return "mem free";
    case grGraphNodeTypeConditional:
        return "conditional";
    case grGraphNodeTypeBatchMemOp:
        return "batch mem op";
    case grGraphNodeTypeCollective:
        return "collective";
    case grGraphNodeTypeCount:
        break;
    }
    return "unknown";
}
