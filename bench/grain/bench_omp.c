/* bench_omp.c - OpenMP tasks with depend clauses on the grain shapes
 * (with the grain harness). No reusable graph object: every replay
 * re-creates all tasks. Build with gcc -fopenmp (libgomp).
 *   region  : each replay = #pragma omp parallel + single producer + tasks
 *             + implicit barrier  (full fork/join cost per replay)
 *   persist : one parallel region around all replays; each replay = single
 *             producer creates the tasks + taskwait (no fork/join per replay)
 * Dependences: task i has depend(out: dep[i]) and depend(in: dep[p]) for each
 * predecessor p; up to 4 predecessors use fixed clauses, more use the OpenMP
 * 5.0 iterator modifier (only the fan sink). "build" is not applicable.
 * Threads: num_threads(T), the producer included. */
#include <omp.h>
#include "grain.h"

#ifndef RT_NAME
#define RT_NAME "gomp"
#endif

typedef struct { const graph_t *g; char *dep; int threads; } omp_handle;
static int g_threads;

static void *omp_init_(int threads) { g_threads = threads; return NULL; }
static void omp_fini_(void *ctx) { (void)ctx; }

static void *omp_build_(void *ctx, const graph_t *g)
{
    omp_handle *h = (omp_handle *)xmalloc(sizeof(omp_handle));
    (void)ctx;
    h->g = g;
    h->dep = (char *)calloc((size_t)g->n, 1);
    h->threads = g_threads;
    return h;
}

/* create all tasks of one replay; called by exactly one thread of a team */
static void spawn_all(const graph_t *g, char *dep)
{
    int i, n = g->n;
    (void)dep; /* gcc 12 does not see uses inside depend clauses */
    for (i = 0; i < n; i++) {
        const int *p = g->pred + g->pred_off[i];
        int np = g->pred_off[i + 1] - g->pred_off[i];
        switch (np) {
        case 0:
#pragma omp task firstprivate(i) depend(out: dep[i])
            bench_task(i);
            break;
        case 1:
#pragma omp task firstprivate(i) depend(in: dep[p[0]]) depend(out: dep[i])
            bench_task(i);
            break;
        case 2:
#pragma omp task firstprivate(i) depend(in: dep[p[0]], dep[p[1]]) depend(out: dep[i])
            bench_task(i);
            break;
        case 3:
#pragma omp task firstprivate(i) depend(in: dep[p[0]], dep[p[1]], dep[p[2]]) depend(out: dep[i])
            bench_task(i);
            break;
        case 4:
#pragma omp task firstprivate(i) depend(in: dep[p[0]], dep[p[1]], dep[p[2]], dep[p[3]]) depend(out: dep[i])
            bench_task(i);
            break;
        default:
#pragma omp task firstprivate(i) depend(iterator(j = 0:np), in: dep[p[j]]) depend(out: dep[i])
            bench_task(i);
            break;
        }
    }
}

static void omp_replay_region(void *hh)
{
    omp_handle *h = (omp_handle *)hh;
#pragma omp parallel num_threads(h->threads)
#pragma omp single
    spawn_all(h->g, h->dep);
}

static void omp_loop_persist(void *hh, int validate, int nwarm, int n, uint64_t *times, void (*hook)(int))
{
    omp_handle *h = (omp_handle *)hh;
#pragma omp parallel num_threads(h->threads)
#pragma omp single
    {
        int k;
        if (validate) {
            hook(0);
            spawn_all(h->g, h->dep);
#pragma omp taskwait
            hook(1);
        }
        for (k = 0; k < nwarm; k++) {
            spawn_all(h->g, h->dep);
#pragma omp taskwait
        }
        tally_reset();
        cpu_mark(0);
        for (k = 0; k < n; k++) {
            uint64_t t0 = now_ns();
            spawn_all(h->g, h->dep);
#pragma omp taskwait
            times[k] = now_ns() - t0;
        }
        cpu_mark(1);
    }
}

static void omp_destroy_(void *hh) { omp_handle *h = (omp_handle *)hh; free(h->dep); free(h); }

int main(int argc, char **argv)
{
    static const bench_ops region = {RT_NAME "_region", 0, omp_init_, omp_build_, omp_replay_region,
                                     omp_destroy_, omp_fini_, NULL};
    static const bench_ops persist = {RT_NAME "_persist", 0, omp_init_, omp_build_, NULL,
                                      omp_destroy_, omp_fini_, omp_loop_persist};
    if (argc < 2 || (strcmp(argv[1], "region") && strcmp(argv[1], "persist"))) {
        fprintf(stderr, "usage: %s region|persist [-g grains] [-s shapes] [threads ...]\n", argv[0]);
        return 1;
    }
    return bench_main(argc - 1, argv + 1, strcmp(argv[1], "region") == 0 ? &region : &persist);
}
