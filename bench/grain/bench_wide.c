/* bench_wide.c - wide kernels: one kernel of B blocks, each block a task
 * of the grain's calibrated work (grain.h), spread over the threads,
 * against OpenMP's parallel for over the same B iterations.
 *
 * usage: bench_wide graphrt|omp|seq THREADS [-g GRAINS] [-b BLOCKS]
 *
 * graphrt (built without OpenMP): rows graphrt_eager (grLaunchKernel of
 * B blocks + grStreamSynchronize on a non-blocking stream) and
 * graphrt_graph (a graph of that one kernel node, replayed); the worker
 * count comes from GRAPHRT_WORKERS, which must equal THREADS.
 * omp (built with -fopenmp -DWIDE_OMP): rows omp_static and omp_dynamic
 * ('#pragma omp parallel for', schedule(static) and schedule(dynamic)),
 * THREADS threads. seq: one thread calling the B blocks in order.
 *
 * Rows have grain.h's CSV columns with shape "wide" and param B (no build
 * time, CPU time or thread tally), timed as grain.h times a cell.
 */
#ifndef WIDE_OMP
#include <graphrt.h>
#endif
#include "grain.h"

#ifdef WIDE_OMP
#include <omp.h>
#endif

static uint64_t *g_out; /* one slot per block: keeps the work alive */

static void block_work(unsigned b)
{
    g_out[b] = grain_work((uint64_t)b + 1u, g_iters);
}

typedef void (*replay_fn)(unsigned nblocks);

static void time_one(const char *rt, int threads, unsigned nblocks, double grain, replay_fn fn)
{
    uint64_t t0 = now_ns();
    fn(nblocks);
    int nwarm, reps;
    plan_reps(now_ns() - t0, &nwarm, &reps);
    for (int i = 0; i < nwarm; i++)
        fn(nblocks);
    uint64_t *t = xmalloc((size_t)reps * sizeof *t);
    for (int i = 0; i < reps; i++) {
        uint64_t a = now_ns();
        fn(nblocks);
        t[i] = now_ns() - a;
    }
    print_row(rt, threads, "wide", (int)nblocks, grain, (int)nblocks, 0, 0, t, reps, 0, 0.0);
    free(t);
}

static void seq_replay(unsigned nblocks)
{
    for (unsigned i = 0; i < nblocks; i++)
        block_work(i);
}

#ifdef WIDE_OMP
static void omp_static(unsigned nblocks)
{
    int n = (int)nblocks;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        block_work((unsigned)i);
}

static void omp_dynamic(unsigned nblocks)
{
    int n = (int)nblocks;
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; i++)
        block_work((unsigned)i);
}
#else
#define CK(x) do { grError_t e_ = (x); if (e_ != grSuccess) { \
    fprintf(stderr, "%s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #x, grGetErrorName(e_), \
            grGetLastErrorDetail() ? grGetLastErrorDetail() : ""); exit(3); } } while (0)

static grKernel_t g_k;
static grStream_t g_s;
static grGraphExec_t g_e;

static void k_block(const grKernelCtx *c, void **args)
{
    (void)args;
    block_work(c->blockIdx.x);
}

static void eager_replay(unsigned nblocks)
{
    CK(grLaunchKernel(g_k, GR_DIM3(nblocks, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, g_s));
    CK(grStreamSynchronize(g_s));
}

static void graph_replay(unsigned nblocks)
{
    (void)nblocks;
    CK(grGraphLaunch(g_e, g_s));
    CK(grStreamSynchronize(g_s));
}
#endif

int main(int argc, char **argv)
{
    double grains[MAX_LIST], blocks[MAX_LIST]; /* grain.h's list parser */
    int ng = parse_list("1,5,20", grains), nb = parse_list("256,4096", blocks);
    if (argc < 3) {
        fprintf(stderr, "usage: %s graphrt|omp|seq THREADS [-g GRAINS] [-b BLOCKS]\n", argv[0]);
        return 1;
    }
    const char *mode = argv[1];
    int threads = atoi(argv[2]);
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-g") == 0)
            ng = parse_list(argv[i + 1], grains);
        else if (strcmp(argv[i], "-b") == 0)
            nb = parse_list(argv[i + 1], blocks);
    }
    grain_setup();
    fprintf(stderr, "# bench_wide %s: ipus %.2f\n", mode, g_ipus);
    g_out = xmalloc(sizeof *g_out * 65536);
#ifndef WIDE_OMP
    if (strcmp(mode, "graphrt") == 0) {
        const char *w = getenv("GRAPHRT_WORKERS");
        if (!w || atoi(w) != threads) {
            fprintf(stderr, "bench_wide: GRAPHRT_WORKERS=%s but threads=%d\n", w ? w : "(unset)", threads);
            return 1;
        }
        CK(grKernelCreate(&g_k, k_block, "wide_block", 0, NULL));
        CK(grStreamCreateWithFlags(&g_s, grStreamNonBlocking));
    }
#else
    omp_set_num_threads(threads);
#endif
    for (int bi = 0; bi < nb; bi++) {
        unsigned nblocks = (unsigned)blocks[bi];
        if (nblocks == 0 || nblocks > 65536)
            continue;
        for (int gi = 0; gi < ng; gi++) {
            g_iters = iters_for(grains[gi]);
            if (strcmp(mode, "seq") == 0) {
                time_one("seq", 1, nblocks, grains[gi], seq_replay);
                continue;
            }
#ifdef WIDE_OMP
            time_one("omp_static", threads, nblocks, grains[gi], omp_static);
            time_one("omp_dynamic", threads, nblocks, grains[gi], omp_dynamic);
#else
            time_one("graphrt_eager", threads, nblocks, grains[gi], eager_replay);
            grGraph_t g;
            grGraphNode_t n;
            grKernelNodeParams p = {g_k, GR_DIM3(nblocks, 1, 1), GR_DIM3(1, 1, 1), 0, NULL, NULL};
            CK(grGraphCreate(&g, 0));
            CK(grGraphAddKernelNode(&n, g, NULL, 0, &p));
            CK(grGraphInstantiate(&g_e, g, 0));
            time_one("graphrt_graph", threads, nblocks, grains[gi], graph_replay);
            CK(grGraphExecDestroy(g_e));
            CK(grGraphDestroy(g));
#endif
        }
    }
    return 0;
}
