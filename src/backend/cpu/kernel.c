/*
 * kernel.c - running kernels on the CPU: the blocks of a launch, spread
 * over the workers when there are many, and the eager launch's op.
 *
 * A launch of one block is a plain call. A launch of many blocks is a
 * parallel for over chunks of blocks: the running thread invites idle
 * threads to take chunks (guided: see pfor_work) from a shared counter,
 * runs chunks itself, withdraws the invitations nobody accepted, and
 * waits for the helpers that did (the job lives on its stack).
 *
 * Invitations: the runtime's kernel offer (one kernel at a time) holds a
 * count of seats that idle workers take with one atomic decrement, before
 * anything else they look at. Where another kernel holds the offer, the
 * running thread pushes a PFOR item per helper onto its deque instead.
 * Those were the only way before: 15 items pushed while 15 thieves stole
 * them one at a time, each steal contending with the others and with the
 * pushes, started the 15th helper 8-12 us into a kernel of 256 blocks of
 * 1 us on 16 threads (about 25 us).
 *
 * Invariant: a helper touches the job only between taking its seat or
 * stealing its PFOR item and incrementing 'helpers_done'.
 */
#include "stream_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ execution */

/* The scratch of a block with shared memory: a background worker's lives
 * in its gr_worker and goes with the runtime (grDeviceReset stops the
 * workers); any other thread's is allocated on its first such block and
 * given back when the thread exits, through a thread-specific key whose
 * destructor frees it. */
static _Thread_local void *tls_shmem; /* GR_MAX_SHARED_MEM_OPTIN bytes, or NULL */
static pthread_key_t shmem_key;
static pthread_once_t shmem_once = PTHREAD_ONCE_INIT;
static bool shmem_key_ok;

static void shmem_free(void *p)
{
    GR_UNPOISON(p, GR_MAX_SHARED_MEM_OPTIN);
    gr__free(p);
    tls_shmem = NULL;
}

static void shmem_key_init(void)
{
    shmem_key_ok = pthread_key_create(&shmem_key, shmem_free) == 0;
}

static GR_NOINLINE void *scratch_alloc(void)
{
    pthread_once(&shmem_once, shmem_key_init);
    /* Without the key the block would outlive the thread: refuse it. */
    void *p = shmem_key_ok ? gr__aligned_alloc(64, GR_MAX_SHARED_MEM_OPTIN) : NULL;
    if (!p || pthread_setspecific(shmem_key, p) != 0) {
        gr__free(p);
        return NULL;
    }
    tls_shmem = p;
    return p;
}

/* The scratch p for a launch of 'bytes' of shared memory. ASan builds
 * poison the rest of the scratch, so that a kernel writing past its
 * sharedMemBytes is reported; other builds return p as it is. */
static inline void *scratch_fence(void *p, uint32_t bytes)
{
#if GR_ASAN
    if (p) {
        /* From the exact end: ASan poisons the tail of a granule whose
         * head stays addressable, so a 1-byte overrun of 100 bytes is
         * reported too. */
        GR_UNPOISON(p, bytes);
        GR_POISON((char *)p + bytes, GR_MAX_SHARED_MEM_OPTIN - bytes);
    }
#else
    (void)bytes;
#endif
    return p;
}

void *gr__kernel_scratch(uint32_t bytes)
{
    if (bytes == 0)
        return NULL;
    gr_worker *w = gr__tls_worker;
    if (w && !w->external) {
        if (GR_UNLIKELY(!w->scratch))
            w->scratch = gr__aligned_alloc(64, GR_MAX_SHARED_MEM_OPTIN);
        return scratch_fence(w->scratch, bytes);
    }
    if (GR_UNLIKELY(tls_shmem == NULL))
        return scratch_fence(scratch_alloc(), bytes);
    return scratch_fence(tls_shmem, bytes);
}

void gr__kernel_run_blocks(const gr_kernel_call *c, uint64_t first, uint64_t end)
{
    grKernelCtx ctx;
    uint64_t gx = c->grid.x, gxy = (uint64_t)c->grid.x * c->grid.y;
    ctx.gridDim = c->grid;
    ctx.blockDim = c->block;
    ctx.sharedMem = gr__kernel_scratch(c->shmem);
    ctx.worker = gr__worker_index();
    ctx.exec = c->exec;
    for (uint64_t i = first; i < end; i++) {
        ctx.blockIdx.x = (unsigned)(i % gx);
        ctx.blockIdx.y = (unsigned)((i / gx) % c->grid.y);
        ctx.blockIdx.z = (unsigned)(i / gxy);
        c->kernel->fn(&ctx, c->argv);
    }
}

typedef struct gr_pfor {
    const gr_kernel_call *c;
    uint64_t nblocks, chunk, threads;
    GR_ALIGNED_CL _Atomic uint64_t next;
    GR_ALIGNED_CL atomic_int helpers_done;
} gr_pfor;

/* Guided: each grab takes a share of what is left, 1/(2 x threads) of it
 * and at least 'chunk' blocks, so the first grabs are long runs of
 * neighbouring blocks (few grabs on the shared counter, and a block's
 * neighbours' outputs on the same cache lines stay on one thread) and the
 * last ones short enough to even out the end. */
static void pfor_work(gr_pfor *j)
{
    uint64_t b = gr_load_relaxed(&j->next);
    for (;;) {
        if (b >= j->nblocks)
            return;
        uint64_t n = (j->nblocks - b) / (2 * j->threads);
        n = n > j->chunk ? n : j->chunk;
        if (!gr_cas_weak_relaxed(&j->next, &b, b + n))
            continue;
        uint64_t e = b + n < j->nblocks ? b + n : j->nblocks;
        gr__kernel_run_blocks(j->c, b, e);
        b = gr_load_relaxed(&j->next);
    }
}

void gr__pfor_help(gr_worker *w, void *job)
{
    gr_pfor *j = job;
    (void)w;
    pfor_work(j);
    gr_fetch_add_release(&j->helpers_done, 1);
}

/* Opens the runtime's kernel offer for j with n seats; false if another
 * kernel holds it. */
static bool offer_open(gr_runtime *rt, gr_pfor *j, int n)
{
    int idle = 0;
    if (gr_load_relaxed(&rt->offer_busy) || !gr_cas_strong_acquire(&rt->offer_busy, &idle, 1))
        return false;
    gr_store_relaxed(&rt->offer_job, (void *)j);
    gr_store_release(&rt->offer_seats, n);
    return true;
}

/* Closes the offer opened with n seats; returns how many were taken. A
 * joiner that comes after this finds no seat, or one of a later offer,
 * whose job it then reads. So the offer is given up (offer_give_up) only
 * once every helper that took a seat is done: until then a helper that
 * has its seat but has not read the job yet would find another kernel's
 * there. */
static int offer_close(gr_runtime *rt, int n)
{
    int left = gr_exchange_acq_rel(&rt->offer_seats, 0);
    return n - (left > 0 ? left : 0);
}

static void offer_give_up(gr_runtime *rt)
{
    gr_store_release(&rt->offer_busy, 0);
}

gr_item gr__pfor_offer_take(gr_runtime *rt)
{
    if (gr_load_relaxed(&rt->offer_seats) <= 0)
        return 0;
    /* A seat: the offer's job stays until its kernel has counted this
     * helper done (offer_close counts the seat). */
    if (gr_fetch_sub_acq_rel(&rt->offer_seats, 1) <= 0)
        return 0;
    return gr__item_make(gr_load_relaxed(&rt->offer_job), GR_ITEM_PFOR);
}

void gr__kernel_run(const gr_kernel_call *c)
{
    uint64_t nblocks = (uint64_t)c->grid.x * c->grid.y * c->grid.z;
    gr_worker *w = gr__tls_worker;
    gr_runtime *rt;
    if (GR_UNLIKELY(c->coop)) {
        gr__kernel_run_coop(c);
        return;
    }
    if (nblocks == 1 || !w) {
        gr__kernel_run_blocks(c, 0, nblocks);
        return;
    }
    rt = gr_load_acquire(&gr__rt);
    gr_pfor j;
    j.c = c;
    j.nblocks = nblocks;
    j.threads = rt->nworkers;
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
    int offered = helpers && offer_open(rt, &j, (int)helpers) ? (int)helpers : 0;
    if (!offered)
        for (; pushed < helpers; pushed++)
            if (!gr__deque_push(&w->dq, me))
                break;
    if (offered || pushed)
        gr__sched_wake_some(rt, (unsigned)offered + pushed);
    pfor_work(&j);
    int joined = offered ? offer_close(rt, offered) : 0;
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
    int stolen = joined + (int)(pushed - reclaimed);
    while (gr_load_acquire(&j.helpers_done) < stolen)
        gr__cpu_relax();
    if (offered)
        offer_give_up(rt);
}
