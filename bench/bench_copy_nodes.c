/*
 * bench_copy_nodes.c - replays of memcpy nodes: a chain of 1D copy nodes
 * (the fast path every copy node had before 2D and 3D copy nodes came,
 * and must keep), a single 1D node, and a chain of 2D copy nodes whose
 * rows are not contiguous (row by row through the plan's side array).
 *
 *   replay = grGraphLaunch(exec, stream) + grStreamSynchronize(stream),
 *            median of 'reps' replays after 10 unmeasured ones
 * Sizes: N = 1000 nodes per chain; a 1D node copies 64 bytes; a 2D node
 * copies 4 rows of 16 bytes, rows 64 bytes apart in the source and 32 in
 * the destination (the same 64 bytes in all). A build of graphrt without
 * 2D copy nodes refuses the 2D chain, and the figure prints as "-".
 *
 * Usage: bench_copy_nodes [workers] [--quick] [--csv] [--json FILE]
 */
#include "bench_util.h"

enum {
    CHAIN = 1000
};

static bu_figures g_figs;
static grStream_t g_stream;
static unsigned char g_src[64 * 4 * CHAIN], g_dst[64 * CHAIN];

/* Median ns of a replay of g (NAN when g is NULL). */
static double replay_median(grGraph_t g, int reps)
{
    if (!g)
        return NAN;
    grGraphExec_t e;
    double *v = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    BU_CHECK(grGraphInstantiate(&e, g, 0));
    for (int r = 0; r < 10; r++) {
        BU_CHECK(grGraphLaunch(e, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
    }
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grGraphLaunch(e, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
        v[r] = (double)(bu_now_ns() - t0);
    }
    double m = bu_median(v, reps);
    BU_CHECK(grGraphExecDestroy(e));
    free(v);
    return m;
}

/* A chain of n 1D copy nodes of 64 bytes. */
static grGraph_t chain_1d(int n)
{
    grGraph_t g;
    grGraphNode_t prev = NULL, cur;
    BU_CHECK(grGraphCreate(&g, 0));
    for (int i = 0; i < n; i++) {
        BU_CHECK(grGraphAddMemcpyNode1D(&cur, g, prev ? &prev : NULL, prev ? 1 : 0, g_dst + 64 * i,
                                        g_src + 64 * i, 64, grMemcpyHostToHost));
        prev = cur;
    }
    return g;
}

/* A chain of n 2D copy nodes (4 rows of 16 bytes), or NULL when this
 * build refuses them. */
static grGraph_t chain_2d(int n)
{
    grGraph_t g;
    grGraphNode_t prev = NULL, cur;
    BU_CHECK(grGraphCreate(&g, 0));
    for (int i = 0; i < n; i++) {
        grMemcpy3DParms c;
        memset(&c, 0, sizeof c);
        c.srcPtr = make_grPitchedPtr(g_src + 256 * i, 64, 16, 4);
        c.dstPtr = make_grPitchedPtr(g_dst + 64 * i, 32, 16, 4);
        c.extent = make_grExtent(16, 4, 1);
        c.kind = grMemcpyHostToHost;
        grError_t err = grGraphAddMemcpyNode(&cur, g, prev ? &prev : NULL, prev ? 1 : 0, &c);
        if (err != grSuccess) {
            fprintf(stderr, "2D copy nodes refused (%s): %s\n", grGetErrorName(err), grGetLastErrorDetail());
            BU_CHECK(grGraphDestroy(g));
            return NULL;
        }
        prev = cur;
    }
    return g;
}

int main(int argc, char **argv)
{
    bu_opts o;
    bu_machine m;
    memset(&o, 0, sizeof o);
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 1;
        }
    int workers = bu_workers(o.workers), reps = o.quick ? 201 : 2001;
    g_figs.workers = workers;
    g_figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_copy_nodes", "replays of 1D and 2D memcpy nodes", &m, workers, &o);
    if (!o.csv)
        printf("parameters: chains of %d nodes, 64 bytes per node, median of %d replays\n", CHAIN, reps);
    for (size_t i = 0; i < sizeof g_src; i++)
        g_src[i] = (unsigned char)i;
    BU_CHECK(grStreamCreateWithFlags(&g_stream, grStreamNonBlocking));
    bu_section(&g_figs, "memcpy node replays (grGraphLaunch + grStreamSynchronize)");
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");

    grGraph_t one = chain_1d(1);
    bu_fig(&g_figs, "copy_1d_single_replay_ns", "one 1D copy node, replay", "single", 1,
           replay_median(one, reps), "ns");
    BU_CHECK(grGraphDestroy(one));

    grGraph_t c1 = chain_1d(CHAIN);
    bu_fig(&g_figs, "copy_1d_chain_replay_ns_per_node", "chain of 1D copy nodes, replay per node", "chain",
           CHAIN, replay_median(c1, reps) / CHAIN, "ns/node");
    BU_CHECK(grGraphDestroy(c1));

    grGraph_t c2 = chain_2d(CHAIN);
    bu_fig(&g_figs, "copy_2d_chain_replay_ns_per_node", "chain of 2D copy nodes (4 rows), replay per node",
           "chain", CHAIN, replay_median(c2, reps) / CHAIN, "ns/node");
    if (c2)
        BU_CHECK(grGraphDestroy(c2));

    BU_CHECK(grStreamDestroy(g_stream));
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_copy_nodes", &m, workers, &o);
        fprintf(f, ", \"chain\": %d, \"reps\": %d},\n", CHAIN, reps);
        bu_json_figures(f, &g_figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    free(g_figs.v);
    return 0;
}
