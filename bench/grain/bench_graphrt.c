/* bench_graphrt.c - graphrt on the grain shapes of the harness
 * (bench/harness/hr_peer.h, as the peers of bench/peers). One kernel node per task
 * (1 block of 1 thread) calling bench_task(i); replay = grGraphLaunch + grStreamSynchronize on a
 * non-blocking stream. Worker count comes from GRAPHRT_WORKERS, read once
 * when the runtime starts: run one process per count; the argument only
 * labels the output rows (and must match). RT_NAME names the rows (a
 * variant built from a patched copy reports under another name). */
#include <graphrt.h>
#include "hr_peer.h"

#ifndef RT_NAME
#define RT_NAME "graphrt"
#endif

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
static void k_task(const grKernelCtx *c, void **args)
{
    (void)c;
    bench_task(*(const int *)args[0]);
}

typedef struct {
    grGraph_t g;
    grGraphExec_t e;
    grStream_t s;
} gh;

static void *gr_init(int threads)
{
    size_t sz = sizeof(int);
    const char *w = getenv("GRAPHRT_WORKERS");
    if (!w || atoi(w) != threads) {
        fprintf(stderr, "bench_graphrt: GRAPHRT_WORKERS=%s but threads=%d\n", w ? w : "(unset)", threads);
        exit(1);
    }
    if (!g_k)
        CK(grKernelCreate(&g_k, k_task, "task", 1, &sz));
    return NULL;
}
static void gr_fini(void *ctx)
{
    (void)ctx;
}

static void *gr_build(void *ctx, const graph_t *gr)
{
    gh *h = calloc(1, sizeof *h);
    grGraphNode_t *nodes = malloc(sizeof(grGraphNode_t) * (size_t)gr->n);
    grGraphNode_t *deps = malloc(sizeof(grGraphNode_t) * (size_t)(gr->n > 0 ? gr->n : 1));
    int i, k;
    (void)ctx;
    CK(grGraphCreate(&h->g, 0));
    for (i = 0; i < gr->n; i++) {
        int v = i, nd = 0;
        void *args[1] = {&v};
        grKernelNodeParams p;
        memset(&p, 0, sizeof p);
        p.func = g_k;
        p.gridDim.x = p.gridDim.y = p.gridDim.z = 1;
        p.blockDim.x = p.blockDim.y = p.blockDim.z = 1;
        p.kernelParams = args;
        for (k = gr->pred_off[i]; k < gr->pred_off[i + 1]; k++)
            deps[nd++] = nodes[gr->pred[k]];
        CK(grGraphAddKernelNode(&nodes[i], h->g, nd ? deps : NULL, (size_t)nd, &p));
    }
    CK(grGraphInstantiate(&h->e, h->g, 0));
    CK(grStreamCreateWithFlags(&h->s, grStreamNonBlocking));
    free(nodes);
    free(deps);
    return h;
}

static void gr_replay(void *hh)
{
    gh *h = hh;
    CK(grGraphLaunch(h->e, h->s));
    CK(grStreamSynchronize(h->s));
}

static void gr_destroy(void *hh)
{
    gh *h = hh;
    CK(grGraphExecDestroy(h->e));
    CK(grGraphDestroy(h->g));
    CK(grStreamDestroy(h->s));
    free(h);
}

int main(int argc, char **argv)
{
    static const bench_ops ops = {RT_NAME, 1, gr_init, gr_build, gr_replay, gr_destroy, gr_fini, NULL};
    int a, grain = 0;
    for (a = 1; a < argc; a++)
        grain |= !strcmp(argv[a], "-g") || !strcmp(argv[a], "-s") || !strcmp(argv[a], "--grain");
    if (!grain) {
        fprintf(stderr, "usage: %s -g GRAINS [-s SHAPES] THREADS (the overhead table is bench_graph's)\n",
                argv[0]);
        return 1;
    }
    return bench_main(argc, argv, &ops);
}
