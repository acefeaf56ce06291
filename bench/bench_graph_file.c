/*
 * bench_graph_file.c - saving and loading graph files: a graph of N
 * kernel nodes (default 100,000) in layers of 100, each node depending on
 * two of the layer before, with a pointer into a buffer and an int as
 * arguments (the shape of a captured pipeline), saved with
 * grGraphSaveToFile and loaded with grGraphLoadFromFile. Each phase is
 * timed apart, median of the rounds; the file is written to /dev/shm when
 * there is one, so that the figures are the library's, not the disk's.
 *
 * Usage: bench_graph_file [--nodes N] [--rounds R] [--json FILE]
 * Output: '# ' lines describe the machine and parameters; 'fig,' lines
 * carry the figures (fig,workers,name,shape,param,value,unit).
 */
#include "bench_util.h"

static void kfn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

int main(int argc, char **argv)
{
    long nodes = 100000;
    int rounds = 11;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nodes = atol(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: bench_graph_file [--nodes N] [--rounds R] [--json FILE]\n");
            return 2;
        }
    }
    if (nodes < 1 || rounds < 1)
        return 2;
    bu_machine m;
    bu_figures figs = {0};
    bu_machine_read(&m);
    figs.workers = bu_workers(NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/bench-graph-file-%ld.graph",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    bu_machine_print(&m, stdout);
    printf("# graph: %ld kernel nodes, layers of 100, two dependencies each; %d rounds, median\n# file: %s\n",
           nodes, rounds, path);

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
    bu_fig(&figs, "save_ms", "layers", nodes, ms, "ms");
    bu_fig(&figs, "load_ms", "layers", nodes, ml, "ms");
    bu_fig(&figs, "save_ns_per_node", "layers", nodes, ms * 1e6 / (double)nodes, "ns");
    bu_fig(&figs, "load_ns_per_node", "layers", nodes, ml * 1e6 / (double)nodes, "ns");
    bu_fig(&figs, "file_bytes", "layers", nodes, (double)bytes, "B");
    if (json) {
        FILE *jf = fopen(json, "w");
        if (!jf) {
            fprintf(stderr, "cannot write %s\n", json);
            return 1;
        }
        fprintf(jf, "{\"bench\": \"bench_graph_file\", ");
        bu_json_machine(jf, &m);
        fprintf(jf, ", \"params\": {\"nodes\": %ld, \"rounds\": %d}, ", nodes, rounds);
        bu_json_figures(jf, &figs);
        fprintf(jf, "}\n");
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
