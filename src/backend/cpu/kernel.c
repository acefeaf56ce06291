/*
 * kernel.c - kernels: registration, launch checks, argument packing, and
 * running the blocks of a launch, spread over the workers when there are
 * many.
 *
 * A launch of one block is a plain call. A launch of many blocks is a
 * parallel for over chunks of blocks: the running thread pushes PFOR items
 * inviting idle threads to take chunks from a shared counter, runs chunks
 * itself, takes back the invitations nobody accepted, and waits for the
 * helpers that did (the job lives on its stack).
 *
 * Invariants: a helper touches the job only between stealing its PFOR item
 * and incrementing 'helpers_done'; argument buffers put each parameter at
 * an offset aligned to its size (up to 16).
 */
#include "../../capture/capture.h"
#include "../../memory/memory.h"

#include <stdlib.h>
#include <string.h>

/* Live kernels by name, for uniqueness (and for loading graph files). */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct name_entry {
    grKernel_t k;
    struct name_entry *next;
} name_entry;
static name_entry *names; /* guarded by names_lock */

/* Kernel objects, kept as dead shells once freed (core.h). */
static gr_shelf kernel_shelf = GR_SHELF_INIT(sizeof(struct grKernel_st));

void gr__kernel_retain(grKernel_t k)
{
    gr_fetch_add_relaxed(&k->refs, 1);
}

void gr__kernel_retain_n(grKernel_t k, int n)
{
    gr_fetch_add_relaxed(&k->refs, n);
}

void gr__kernel_release(grKernel_t k)
{
    gr__kernel_release_n(k, 1);
}

void gr__kernel_release_n(grKernel_t k, int n)
{
    if (gr_fetch_sub_acq_rel(&k->refs, n) == n) {
        gr__mark_dead(&k->magic);
        gr__free(k->name);
        gr__free(k->offsets);
        gr__free(k->sizes);
        gr__shell_retire(&kernel_shelf, k);
    }
}

/* The live kernel named 'name', or NULL. */
grKernel_t gr__kernel_find(const char *name);
grKernel_t gr__kernel_find(const char *name)
{
    grKernel_t k = NULL;
    pthread_mutex_lock(&names_lock);
    for (name_entry *e = names; e; e = e->next)
        if (strcmp(e->k->name, name) == 0) {
            k = e->k;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    return k;
}

GR_API grError_t grKernelCreate(grKernel_t *kernel, grKernelFn fn, const char *name, int numParams,
                                const size_t *paramSizes)
{
    grKernel_t k;
    name_entry *ne;
    uint32_t off = 0;
    if (!kernel)
        return gr__fail(grErrorInvalidValue, "grKernelCreate: 'kernel' (the output pointer) is NULL");
    if (!fn)
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: 'fn' is NULL; pass the C function run per block");
    if (!name || !*name)
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: 'name' is NULL or empty; every kernel needs a name");
    if (numParams < 0 || numParams > 64)
        return gr__fail(grErrorInvalidValue, "grKernelCreate: kernel '%s': numParams %d is outside 0..64",
                        name, numParams);
    if (numParams > 0 && !paramSizes)
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: kernel '%s' takes %d parameters but 'paramSizes' is NULL", name,
                        numParams);
    for (int i = 0; i < numParams; i++)
        if (paramSizes[i] == 0 || paramSizes[i] > 4096)
            return gr__fail(grErrorInvalidValue,
                            "grKernelCreate: kernel '%s': paramSizes[%d] = %zu is outside 1..4096 bytes",
                            name, i, paramSizes[i]);
    if (gr__kernel_find(name))
        return gr__fail(grErrorInvalidValue,
                        "grKernelCreate: a live kernel is already named '%s'; kernel names must be unique",
                        name);
    k = gr__shell_alloc(&kernel_shelf);
    if (k)
        memset(k, 0, sizeof *k);
    ne = gr__malloc(sizeof *ne);
    if (k) {
        k->name = strdup(name);
        k->offsets = gr__calloc((size_t)numParams, sizeof *k->offsets);
        k->sizes = gr__calloc((size_t)numParams, sizeof *k->sizes);
    }
    if (!k || !ne || !k->name || !k->offsets || !k->sizes) {
        if (k) {
            gr__free(k->name);
            gr__free(k->offsets);
            gr__free(k->sizes);
            k->magic = GR_MAGIC_DEAD;
            gr__shell_retire(&kernel_shelf, k);
        }
        gr__free(ne);
        return gr__fail(grErrorMemoryAllocation, "grKernelCreate: out of memory registering kernel '%s'",
                        name);
    }
    for (int i = 0; i < numParams; i++) {
        uint32_t sz = (uint32_t)paramSizes[i], al = 1;
        while (al < sz && al < 16)
            al <<= 1;
        off = (off + al - 1) & ~(al - 1);
        k->offsets[i] = off;
        k->sizes[i] = sz;
        off += sz;
    }
    k->magic = GR_MAGIC_KERNEL;
    atomic_init(&k->refs, 1);
    k->fn = fn;
    k->nparams = numParams;
    k->argbytes = (off + 15u) & ~15u;
    ne->k = k;
    pthread_mutex_lock(&names_lock);
    ne->next = names;
    names = ne;
    pthread_mutex_unlock(&names_lock);
    *kernel = k;
    return grSuccess;
}

GR_API grError_t grKernelDestroy(grKernel_t kernel)
{
    name_entry **pp, *e = NULL;
    if (!gr__kernel_valid(kernel))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "grKernelDestroy: kernel %p is not a live kernel (NULL, destroyed, or not from "
                        "grKernelCreate)",
                        GR_PTR(kernel));
    pthread_mutex_lock(&names_lock);
    for (pp = &names; *pp; pp = &(*pp)->next)
        if ((*pp)->k == kernel) {
            e = *pp;
            *pp = e->next;
            break;
        }
    pthread_mutex_unlock(&names_lock);
    gr__free(e);
    kernel->magic = GR_MAGIC_DEAD;
    gr__kernel_release(kernel);
    return grSuccess;
}

GR_NOINLINE grError_t gr__kernel_check_slow(const char *call, grKernel_t k, const grDim3 *pgrid,
                                            const grDim3 *pblock, size_t shmem, void **args)
{
    grDim3 grid = *pgrid, block = *pblock;
    if (!gr__kernel_valid(k))
        return gr__fail(grErrorInvalidDeviceFunction,
                        "%s: kernel %p is not a live kernel (NULL, destroyed, or not from grKernelCreate)",
                        call, GR_PTR(k));
    if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
        (uint64_t)block.x * block.y * block.z > 1024)
        return gr__fail(
            grErrorInvalidConfiguration,
            "%s: kernel '%s': block (%u, %u, %u) is invalid: each dimension must be >= 1, x and y <= "
            "1024, z <= 64, and x*y*z <= 1024 threads",
            call, k->name, block.x, block.y, block.z);
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
        return gr__fail(
            grErrorInvalidConfiguration,
            "%s: kernel '%s': grid (%u, %u, %u) is invalid: each dimension must be >= 1, x < 2^31, "
            "y and z <= 65535",
            call, k->name, grid.x, grid.y, grid.z);
    if (shmem > GR_MAX_SHARED_MEM)
        return gr__fail(grErrorInvalidValue,
                        "%s: kernel '%s': %zu bytes of shared memory requested, the limit per block is %u",
                        call, k->name, shmem, GR_MAX_SHARED_MEM);
    if (k->nparams > 0 && !args)
        return gr__fail(
            grErrorInvalidValue,
            "%s: kernel '%s' takes %d parameters but the argument array is NULL; pass an array of "
            "pointers to the argument values",
            call, k->name, k->nparams);
    return gr__kernel_args_check(call, k->name, k->nparams, k->sizes, args);
}

/* ------------------------------------------------------------ execution */

static _Thread_local void *tls_shmem;
static _Thread_local size_t tls_shmem_size;

void *gr__kernel_scratch(uint32_t bytes)
{
    if (bytes == 0)
        return NULL;
    if (GR_UNLIKELY(tls_shmem_size < bytes)) {
        void *p = gr__aligned_alloc(64, GR_MAX_SHARED_MEM);
        if (!p)
            return NULL;
        gr__free(tls_shmem);
        tls_shmem = p;
        tls_shmem_size = GR_MAX_SHARED_MEM;
    }
    return tls_shmem;
}

static void run_blocks(const gr_kernel_call *c, uint64_t first, uint64_t end)
{
    grKernelCtx ctx;
    uint64_t gx = c->grid.x, gxy = (uint64_t)c->grid.x * c->grid.y;
    ctx.gridDim = c->grid;
    ctx.blockDim = c->block;
    ctx.sharedMem = gr__kernel_scratch(c->shmem);
    ctx.worker = gr__worker_index();
    for (uint64_t i = first; i < end; i++) {
        ctx.blockIdx.x = (unsigned)(i % gx);
        ctx.blockIdx.y = (unsigned)((i / gx) % c->grid.y);
        ctx.blockIdx.z = (unsigned)(i / gxy);
        c->kernel->fn(&ctx, c->argv);
    }
}

typedef struct gr_pfor {
    const gr_kernel_call *c;
    uint64_t nblocks, chunk;
    GR_ALIGNED_CL _Atomic uint64_t next;
    GR_ALIGNED_CL atomic_int helpers_done;
} gr_pfor;

static void pfor_work(gr_pfor *j)
{
    for (;;) {
        uint64_t b = gr_fetch_add_relaxed(&j->next, j->chunk);
        if (b >= j->nblocks)
            return;
        uint64_t e = b + j->chunk < j->nblocks ? b + j->chunk : j->nblocks;
        run_blocks(j->c, b, e);
    }
}

void gr__pfor_help(gr_worker *w, void *job)
{
    gr_pfor *j = job;
    (void)w;
    pfor_work(j);
    gr_fetch_add_release(&j->helpers_done, 1);
}

void gr__kernel_run(const gr_kernel_call *c)
{
    uint64_t nblocks = (uint64_t)c->grid.x * c->grid.y * c->grid.z;
    gr_worker *w = gr__tls_worker;
    gr_runtime *rt;
    if (nblocks == 1 || !w) {
        run_blocks(c, 0, nblocks);
        return;
    }
    rt = gr_load_acquire(&gr__rt);
    gr_pfor j;
    j.c = c;
    j.nblocks = nblocks;
    j.chunk = nblocks / (8u * (rt->nworkers + 1u));
    if (j.chunk == 0)
        j.chunk = 1;
    atomic_init(&j.next, 0);
    atomic_init(&j.helpers_done, 0);
    uint64_t nchunks = (nblocks + j.chunk - 1) / j.chunk;
    /* The running thread plus the helpers make 'nworkers' threads, the
     * parallelism the user asked for. */
    unsigned helpers = rt->nworkers - 1;
    if (helpers > nchunks - 1)
        helpers = (unsigned)(nchunks - 1);
    gr_item me = gr__item_make(&j, GR_ITEM_PFOR);
    unsigned pushed = 0;
    for (; pushed < helpers; pushed++)
        if (!gr__deque_push(&w->dq, me))
            break;
    if (pushed)
        gr__sched_wake_some(rt, pushed);
    pfor_work(&j);
    /* Take back the invitations nobody accepted. */
    unsigned reclaimed = 0;
    while (reclaimed < pushed) {
        gr_item it = gr__deque_pop(&w->dq);
        if (it == me) {
            reclaimed++;
            continue;
        }
        if (it) /* older work under ours: the rest of ours were stolen */
            gr__deque_push(&w->dq, it);
        break;
    }
    int stolen = (int)(pushed - reclaimed);
    while (gr_load_acquire(&j.helpers_done) < stolen)
        gr__cpu_relax();
}

GR_API grError_t grLaunchKernel(grKernel_t kernel, grDim3 gridDim, grDim3 blockDim, void **args,
                                size_t sharedMem, grStream_t stream)
{
    gr_runtime *rt;
    gr_stream *s = NULL;
    gr_op *op;
    void *heap = NULL;
    grError_t err = gr__kernel_check("grLaunchKernel", kernel, &gridDim, &blockDim, sharedMem, args);
    if (err)
        return err;
    if ((err = gr__stream_from_handle("grLaunchKernel", stream, &s)))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        /* The capture reads only the type and the member it names. */
        grGraphNodeParams d;
        d.type = grGraphNodeTypeKernel;
        d.kernel = (grKernelNodeParams){kernel, gridDim, blockDim, (unsigned)sharedMem, args, NULL};
        return gr__capture_record("grLaunchKernel", s, &d);
    }
    if ((err = gr__capture_check_implicit("grLaunchKernel", s)))
        return err;
    if (kernel->argbytes > GR_OP_DATA_MAX) {
        heap = gr__aligned_alloc(16, kernel->argbytes);
        if (!heap)
            return gr__fail(grErrorMemoryAllocation,
                            "grLaunchKernel: out of memory copying the arguments of '%s'", kernel->name);
        gr__kernel_pack(kernel, args, heap, NULL);
    }
    rt = gr__runtime_get();
    op = gr__stream_lock_slot(rt, s);
    if (!op) {
        gr__free(heap);
        return gr__fail(grErrorMemoryAllocation, "grLaunchKernel: out of memory queuing on stream %p",
                        GR_PTR(stream));
    }
    op->kind = GR_OP_KERNEL;
    op->shmem = (uint32_t)sharedMem;
    op->u.kern.k = kernel;
    op->drop = gr__stream_cache_kernel_locked(s, kernel);
    op->u.kern.grid = gridDim;
    op->u.kern.block = blockDim;
    if (heap) {
        op->heap_args = 1;
        memcpy(op->data, &heap, sizeof heap);
    } else {
        op->heap_args = 0;
        gr__kernel_pack(kernel, args, op->data, NULL);
    }
    gr__stream_publish(s, op);
    gr__stream_unlock(rt, s);
    return grSuccess;
}
