/* bench_wide.c - wide kernels: one kernel of B blocks, each block a task
 * of the grain's calibrated work (bench/harness/hr_task.h), spread over the
 * workers; OpenMP's parallel for over the same B iterations is the OpenMP
 * peer's "wide" variant (bench/peers/bench_omp.c).
 *
 * usage: bench_wide graphrt|seq THREADS [-g GRAINS] [-b BLOCKS]
 *
 * graphrt: rows graphrt_eager (grLaunchKernel of B blocks +
 * grStreamSynchronize on a non-blocking stream) and graphrt_graph (a graph
 * of that one kernel node, replayed); the worker count comes from
 * GRAPHRT_WORKERS, which must equal THREADS. seq: one thread calling the B
 * blocks in order.
 *
 * Rows are the grain table's (hr_run_wide: shape "wide", param B; no build
 * time, CPU time or thread tally).
 */
#include <graphrt.h>

#include "hr_peer.h"

static uint64_t *g_out; /* one slot per block: keeps the work alive */

static void block_work(unsigned b)
{
    g_out[b] = grain_work((uint64_t)b + 1u, g_iters);
}

static void seq_replay(unsigned nblocks)
{
    for (unsigned i = 0; i < nblocks; i++)
        block_work(i);
}

#define CK(x)                                                                                     \
    do {                                                                                          \
        grError_t e_ = (x);                                                                       \
        if (e_ != grSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #x, grGetErrorName(e_), \
                    grGetLastErrorDetail() ? grGetLastErrorDetail() : "");                        \
            exit(3);                                                                              \
        }                                                                                         \
    } while (0)

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

int main(int argc, char **argv)
{
    double grains[HR_MAX_LIST], blocks[HR_MAX_LIST];
    int ng = hr_parse_list("1,5,20", grains), nb = hr_parse_list("256,4096", blocks);
    if (argc < 3) {
        fprintf(stderr, "usage: %s graphrt|seq THREADS [-g GRAINS] [-b BLOCKS]\n", argv[0]);
        return 1;
    }
    const char *mode = argv[1];
    int threads = atoi(argv[2]);
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-g") == 0)
            ng = hr_parse_list(argv[i + 1], grains);
        else if (strcmp(argv[i], "-b") == 0)
            nb = hr_parse_list(argv[i + 1], blocks);
    }
    hr_grain_setup();
    fprintf(stderr, "# bench_wide %s: ipus %.2f\n", mode, g_ipus);
    g_out = hr_xmalloc(sizeof *g_out * 65536);
    if (strcmp(mode, "graphrt") == 0) {
        const char *w = getenv("GRAPHRT_WORKERS");
        if (!w || atoi(w) != threads) {
            fprintf(stderr, "bench_wide: GRAPHRT_WORKERS=%s but threads=%d\n", w ? w : "(unset)", threads);
            return 1;
        }
        CK(grKernelCreate(&g_k, k_block, "wide_block", 0, NULL));
        CK(grStreamCreateWithFlags(&g_s, grStreamNonBlocking));
    } else if (strcmp(mode, "seq") != 0) {
        fprintf(stderr, "bench_wide: mode %s: graphrt or seq\n", mode);
        return 1;
    }
    for (int bi = 0; bi < nb; bi++) {
        unsigned nblocks = (unsigned)blocks[bi];
        if (nblocks == 0 || nblocks > 65536)
            continue;
        for (int gi = 0; gi < ng; gi++) {
            g_iters = hr_iters_for(grains[gi]);
            if (strcmp(mode, "seq") == 0) {
                hr_run_wide("seq", 1, nblocks, grains[gi], seq_replay);
                continue;
            }
            hr_run_wide("graphrt_eager", threads, nblocks, grains[gi], eager_replay);
            grGraph_t g;
            grGraphNode_t n;
            grKernelNodeParams p = {g_k, GR_DIM3(nblocks, 1, 1), GR_DIM3(1, 1, 1), 0, NULL, NULL};
            CK(grGraphCreate(&g, 0));
            CK(grGraphAddKernelNode(&n, g, NULL, 0, &p));
            CK(grGraphInstantiate(&g_e, g, 0));
            hr_run_wide("graphrt_graph", threads, nblocks, grains[gi], graph_replay);
            CK(grGraphExecDestroy(g_e));
            CK(grGraphDestroy(g));
        }
    }
    return 0;
}
