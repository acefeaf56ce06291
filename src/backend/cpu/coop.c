/*
 * coop.c - cooperative launches on the CPU device: every block of the
 * grid co-resident, so that gr_grid_sync (the grid-wide barrier,
 * cooperative_groups' this_grid().sync()) can wait for all of them.
 *
 * A worker runs one block at a time, and a block's static shared memory
 * (GR_SHARED) is thread-local storage of the thread that runs it: two
 * blocks interleaved as fibers on one thread would share it. So each
 * block of a cooperative grid runs on a thread of its own: the calling
 * thread (a worker, or an application thread that waits) runs block 0,
 * and the launch starts a thread for each other block. The OS schedules
 * those threads, so a block waiting at the grid barrier never keeps
 * another from reaching it: the barrier completes whenever every block
 * reaches it, and a block that ends without reaching it (it returned, or
 * faulted) breaks it, so that the waiters fault instead of hanging.
 *
 * The grid is limited to gr__coop_max_blocks() blocks, the workers, as
 * the occupancy calls report it; the launch checks it before queuing.
 *
 * Cost: a thread started and joined per block after the first, with its
 * fiber stacks mapped (0.25 ms and more a launch of 2 blocks), and per
 * grid barrier a mutex and condition variable round trip per block
 * (about 10 us for 2 blocks; docs/kernels.md has the figures); a
 * cooperative launch pays off where its blocks do enough work between
 * grid barriers.
 *
 * Invariants: the grid's state lives on the calling thread's stack until
 * every thread it started has been joined; its fields are guarded by
 * 'lock'. Only the thread that runs a block reads its tls_grid.
 */
#include "stream_int.h"

#include <pthread.h>
#include <stdio.h>

typedef struct gr_cgrid {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    const gr_kernel_call *c;
    unsigned nblocks;
    unsigned arrived;  /* blocks waiting at the current barrier (lock) */
    unsigned long gen; /* barriers completed (lock) */
    unsigned ended;    /* blocks whose run has ended (lock) */
    int go;            /* 0: wait, 1: run your block, -1: give up (lock) */
} gr_cgrid;

typedef struct gr_cblock {
    gr_cgrid *g;
    unsigned index;
    pthread_t th;
} gr_cblock;

/* The grid whose block the calling thread runs, NULL outside one. */
static _Thread_local gr_cgrid *tls_grid;

static void run_block(gr_cgrid *g, unsigned i)
{
    tls_grid = g;
    gr__kernel_run_blocks(g->c, i, (uint64_t)i + 1);
    tls_grid = NULL;
    pthread_mutex_lock(&g->lock);
    g->ended++;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

static void *block_main(void *arg)
{
    gr_cblock *b = arg;
    gr_cgrid *g = b->g;
    pthread_mutex_lock(&g->lock);
    while (g->go == 0)
        pthread_cond_wait(&g->cond, &g->lock);
    int go = g->go;
    pthread_mutex_unlock(&g->lock);
    if (go > 0)
        run_block(g, b->index);
    return NULL;
}

void gr__kernel_run_coop(const gr_kernel_call *c)
{
    uint64_t n = (uint64_t)c->grid.x * c->grid.y * c->grid.z;
    gr_cgrid g;
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.cond, NULL);
    g.c = c;
    g.nblocks = (unsigned)n;
    g.arrived = 0;
    g.gen = 0;
    g.ended = 0;
    g.go = 0;
    gr_cblock *hb = n > 1 ? gr__calloc((size_t)n - 1, sizeof *hb) : NULL;
    unsigned started = 0;
    for (; hb && started < n - 1; started++) {
        hb[started].g = &g;
        hb[started].index = started + 1;
        if (pthread_create(&hb[started].th, NULL, block_main, &hb[started]) != 0)
            break;
    }
    /* Every block runs, or none: a grid short of a block would wait at
     * its first barrier for ever. */
    bool all = started == n - 1;
    pthread_mutex_lock(&g.lock);
    g.go = all ? 1 : -1;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.lock);
    if (all) {
        run_block(&g, 0);
    } else {
        char detail[256];
        snprintf(detail, sizeof detail,
                 "kernel '%s': a cooperative grid of %u blocks could not start a thread for each block "
                 "but the first (%u of %u started); nothing ran",
                 c->kernel->name, g.nblocks, started, g.nblocks - 1);
        gr__kernel_fault(grErrorLaunchOutOfResources, detail);
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(hb[i].th, NULL);
    gr__free(hb);
    pthread_cond_destroy(&g.cond);
    pthread_mutex_destroy(&g.lock);
}

bool gr__coop_active(void)
{
    return tls_grid != NULL;
}

int gr__coop_grid_wait(void)
{
    gr_cgrid *g = tls_grid;
    int r = 0;
    if (!g)
        return 1;
    pthread_mutex_lock(&g->lock);
    unsigned long gen = g->gen;
    if (++g->arrived == g->nblocks) {
        g->arrived = 0;
        g->gen++;
        pthread_cond_broadcast(&g->cond);
    } else {
        /* A block that ended passed every barrier before this one, or
         * never reaches it: with gen unchanged, the latter. */
        while (g->gen == gen) {
            if (g->ended) {
                r = 2;
                break;
            }
            pthread_cond_wait(&g->cond, &g->lock);
        }
    }
    pthread_mutex_unlock(&g->lock);
    return r;
}
