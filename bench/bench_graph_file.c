/*
 * bench_graph_file.c - saving and loading graph files: a graph of N
 * kernel nodes (100,000; 10,000 with --quick) in layers of 100, each node
 * depending on two of the layer before, with a pointer into a buffer and
 * an int as arguments (the shape of a captured pipeline), saved with
 * grGraphSaveToFile and loaded with grGraphLoadFromFile. Each phase is
 * timed apart, median of the rounds; the file is written to /dev/shm when
 * there is one, so that the figures are the library's, not the disk's.
 *
 * Usage: bench_graph_file [workers] [--quick] [--csv] [--json FILE]
 * Output: the machine and parameters, then a table of figures; with
 * --csv, 'fig,' lines (fig,workers,name,shape,param,value,unit).
 */
#include "bench_util.h"

static void kfn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

int main(int argc, char **argv)
{
    bu_opts o = {0};
    bu_machine m;
    bu_figures figs = {0};
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 2;
        }
    long nodes = o.quick ? 10000 : 100000;
    int rounds = o.quick ? 5 : 11;
    figs.workers = bu_workers(o.workers);
    figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_graph_file",
              "grGraphSaveToFile and grGraphLoadFromFile of a layered graph of kernel nodes", &m,
              figs.workers, &o);
    char path[128];
    snprintf(path, sizeof path, "%s/bench-graph-file-%ld.graph",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");

    grKernel_t k;
    static const size_t sizes[] = {sizeof(void *), sizeof(int)};
    void *buf;
    grGraph_t g;
    BU_CHECK(grKernelCreate(&k, kfn, "bench_step", 2, sizes));
    BU_CHECK(grMalloc(&buf, 4096));
    BU_CHECK(grGraphCreate(&g, 0));
    grGraphNode_t *n = bu_xmalloc((size_t)nodes * sizeof *n);
    for (long i = 0; i < nodes; i++) {
        void *p = (char *)buf + 4 * (i % 1024);
        int v = (int)i;
        void *args[] = {&p, &v};
        grKernelNodeParams kp = {k, GR_DIM3(1, 1, 1), GR_DIM3(64, 1, 1), 0, args, NULL};
        grGraphNode_t deps[2];
        size_t nd = 0;
        if (i >= 100) {
            deps[nd++] = n[i - 100];
            if (i % 100 != 99)
                deps[nd++] = n[i - 99];
        }
        BU_CHECK(grGraphAddKernelNode(&n[i], g, deps, nd, &kp));
    }
    double *save = bu_xmalloc((size_t)rounds * sizeof *save),
           *load = bu_xmalloc((size_t)rounds * sizeof *load);
    long bytes = 0;
    for (int r = 0; r < rounds; r++) {
        grGraph_t l;
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grGraphSaveToFile(g, path, 0));
        uint64_t t1 = bu_now_ns();
        BU_CHECK(grGraphLoadFromFile(&l, path, 0));
        uint64_t t2 = bu_now_ns();
        BU_CHECK(grGraphDestroy(l));
        save[r] = (double)(t1 - t0);
        load[r] = (double)(t2 - t1);
    }
    FILE *f = fopen(path, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        bytes = ftell(f);
        fclose(f);
    }
    double ms = bu_median(save, rounds) / 1e6, ml = bu_median(load, rounds) / 1e6;
    char heading[320];
    snprintf(heading, sizeof heading,
             "layers of 100 kernel nodes, 2 dependencies each; file in %s; median of %d", path, rounds);
    bu_section(&figs, heading);
    bu_fig(&figs, "save_ms", "grGraphSaveToFile (written and closed)", "layers", nodes, ms, "ms");
    bu_fig(&figs, "load_ms", "grGraphLoadFromFile (read, parsed, every node added)", "layers", nodes, ml,
           "ms");
    bu_fig(&figs, "save_ns_per_node", "save per node", "layers", nodes, ms * 1e6 / (double)nodes, "ns");
    bu_fig(&figs, "load_ns_per_node", "load per node", "layers", nodes, ml * 1e6 / (double)nodes, "ns");
    bu_fig(&figs, "file_bytes", "the file's size", "layers", nodes, (double)bytes, "B");
    if (o.json) {
        FILE *jf = bu_json_begin(o.json, "bench_graph_file", &m, figs.workers, &o);
        fprintf(jf, ", \"nodes\": %ld, \"rounds\": %d},\n", nodes, rounds);
        bu_json_figures(jf, &figs);
        fprintf(jf, "\n}\n");
        fclose(jf);
    }
    unlink(path);
    free(save);
    free(load);
    free(n);
    free(figs.v);
    BU_CHECK(grGraphDestroy(g));
    BU_CHECK(grFree(buf));
    BU_CHECK(grKernelDestroy(k));
    return 0;
}
