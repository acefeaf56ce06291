/*
 * bench_gpu.c - graphrt on a GPU, measured the way bench_native.cu
 * measures the CUDA runtime: the same empty kernel (loaded from PTX text
 * with grKernelSetImage), the same graph shapes, operations, repetitions
 * and clock. Prints "graphrt,<name>,<param>,<value>,<unit>" lines after a
 * machine line (bench/run.sh cuda joins them with the native ones into
 * ratios); --json FILE writes the figures as JSON. Needs a GPU device:
 * without one it says so and exits with status 2.
 *
 * The start-up case, layered graphs and updates of k of n nodes follow,
 * as bench_native.cu measures them (bench/cuda/README.md says what each
 * measures); --quick leaves out their largest sizes.
 */
#include "graphrt.h"
#include "hr_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(call)                                                                                      \
    do {                                                                                              \
        grError_t e_ = (call);                                                                        \
        if (e_ != grSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n  %s\n", __FILE__, __LINE__, #call, grGetErrorName(e_), \
                    grGetLastErrorDetail());                                                          \
            exit(3);                                                                                  \
        }                                                                                             \
    } while (0)

/* bench_native.cu's bench_empty, as nvcc -ptx -arch=compute_75 gives it. */
static const char empty_ptx[] = ".version 9.0\n"
                                ".target sm_75\n"
                                ".address_size 64\n"
                                ".visible .entry bench_empty(\n"
                                "    .param .u32 bench_empty_param_0\n"
                                ")\n"
                                "{\n"
                                "    ret;\n"
                                "}\n";

static void empty_cpu(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { ROUNDS = 7 };

static double median(double *v)
{
    qsort(v, ROUNDS, sizeof *v, cmp);
    return v[ROUNDS / 2];
}

typedef struct figure {
    char name[32], param[32], unit[16];
    double value;
} figure;
static figure figures[128];
static int nfigures;

static void report(const char *name, const char *param, double value, const char *unit)
{
    figure *f = &figures[nfigures++];
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->param, sizeof f->param, "%s", param);
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    f->value = value;
    printf("graphrt,%s,%s,%.1f,%s\n", name, param, value, unit);
    fflush(stdout);
}

static grKernel_t kernel;

static grKernelNodeParams empty_params(void **args)
{
    grKernelNodeParams kp = {.func = kernel,
                             .gridDim = GR_DIM3(1, 1, 1),
                             .blockDim = GR_DIM3(32, 1, 1),
                             .kernelParams = args};
    return kp;
}

/* "chain" (n in a row) or "fan" (a root, n middle nodes, a sink). */
static grGraph_t build_graph(const char *shape, int n, int arg)
{
    grGraph_t g;
    CK(grGraphCreate(&g, 0));
    void *args[] = {&arg};
    grKernelNodeParams kp = empty_params(args);
    if (strcmp(shape, "chain") == 0) {
        grGraphNode_t prev = NULL, cur;
        for (int i = 0; i < n; i++) {
            CK(grGraphAddKernelNode(&cur, g, prev ? &prev : NULL, prev ? 1 : 0, &kp));
            prev = cur;
        }
    } else {
        grGraphNode_t root, sink, *mid = malloc((size_t)n * sizeof *mid);
        if (!mid)
            exit(1);
        CK(grGraphAddKernelNode(&root, g, NULL, 0, &kp));
        for (int i = 0; i < n; i++)
            CK(grGraphAddKernelNode(&mid[i], g, &root, 1, &kp));
        CK(grGraphAddKernelNode(&sink, g, mid, (size_t)n, &kp));
        free(mid);
    }
    return g;
}

/* A graph of empty kernels of the harness's shape sh (hr_shapes.h), node
 * i launched with args[i]. */
static grGraph_t build_shape(const graph_t *sh, const int *args)
{
    grGraph_t g;
    CK(grGraphCreate(&g, 0));
    grGraphNode_t *nodes = malloc((size_t)sh->n * sizeof *nodes),
                  *deps = malloc((size_t)sh->n * sizeof *deps);
    if (!nodes || !deps)
        exit(1);
    for (int i = 0; i < sh->n; i++) {
        int a = args[i];
        void *kargs[] = {&a};
        grKernelNodeParams kp = empty_params(kargs);
        size_t nd = 0;
        for (int k = sh->pred_off[i]; k < sh->pred_off[i + 1]; k++)
            deps[nd++] = nodes[sh->pred[k]];
        CK(grGraphAddKernelNode(&nodes[i], g, nd ? deps : NULL, nd, &kp));
    }
    free(nodes);
    free(deps);
    return g;
}

/* The start-up case, as bench_native.cu's startup: ngraphs graphs of one
 * shape, each a chain captured from a stream (node i of graph j launched
 * with j * len + i), instantiated, all kept until the last is built. Round
 * r of case c captures chains of len + 1 + ROUNDS * c + r launches, a
 * length no earlier round built, so that no round is served by executables
 * an earlier one destroyed. Figures: the whole capture + instantiate, its
 * instantiate part, one launch of each then one synchronize. */
static void startup(grStream_t s, int len, int ngraphs, int c)
{
    double rt[ROUNDS], ri[ROUNDS], rl[ROUNDS];
    grGraph_t *g = malloc((size_t)ngraphs * sizeof *g);
    grGraphExec_t *e = malloc((size_t)ngraphs * sizeof *e);
    if (!g || !e)
        exit(1);
    for (int r = 0; r < ROUNDS; r++) {
        int n = len + 1 + ROUNDS * c + r;
        double inst = 0, t0 = now_ns();
        for (int j = 0; j < ngraphs; j++) {
            CK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
            for (int i = 0; i < n; i++) {
                int a = j * n + i;
                void *args[] = {&a};
                CK(grLaunchKernel(kernel, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), args, 0, s));
            }
            CK(grStreamEndCapture(s, &g[j]));
            double t1 = now_ns();
            CK(grGraphInstantiate(&e[j], g[j], 0));
            inst += now_ns() - t1;
        }
        double t2 = now_ns();
        for (int j = 0; j < ngraphs; j++)
            CK(grGraphLaunch(e[j], s));
        CK(grStreamSynchronize(s));
        rl[r] = (now_ns() - t2) / 1e3;
        rt[r] = (t2 - t0) / 1e3;
        ri[r] = inst / 1e3;
        for (int j = 0; j < ngraphs; j++) {
            CK(grGraphExecDestroy(e[j]));
            CK(grGraphDestroy(g[j]));
        }
    }
    free(g);
    free(e);
    char param[32];
    snprintf(param, sizeof param, "%dxchain%d", ngraphs, len);
    report("startup", param, median(rt), "us");
    report("startup_instantiate", param, median(ri), "us");
    report("startup_first_launch", param, median(rl), "us");
}

/* A layered graph of depth x width kernels (min(3, width) predecessors in
 * the layer before): instantiate per node, and exec update per node from a
 * graph of the same topology whose every node differs. */
static void layered(int depth, int width)
{
    graph_t *sh = gen_layered(depth, width, width < 3 ? width : 3, 42);
    int n = sh->n;
    int *a1 = malloc((size_t)n * sizeof *a1), *a2 = malloc((size_t)n * sizeof *a2);
    if (!a1 || !a2)
        exit(1);
    for (int i = 0; i < n; i++) {
        a1[i] = i;
        a2[i] = i + n;
    }
    grGraph_t g = build_shape(sh, a1), g2 = build_shape(sh, a2);
    double ri[ROUNDS], ru[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        grGraphExec_t e;
        double t0 = now_ns();
        CK(grGraphInstantiate(&e, g, 0));
        ri[k] = (now_ns() - t0) / n;
        grGraphExecUpdateResultInfo info;
        t0 = now_ns();
        CK(grGraphExecUpdate(e, (k & 1) ? g : g2, &info));
        ru[k] = (now_ns() - t0) / n;
        CK(grGraphExecDestroy(e));
    }
    char param[32];
    snprintf(param, sizeof param, "layered%dx%d", depth, width);
    report("instantiate", param, median(ri), "ns/node");
    report("exec_update", param, median(ru), "ns/node");
    CK(grGraphDestroy(g));
    CK(grGraphDestroy(g2));
    free(a1);
    free(a2);
    graph_free(sh);
}

/* Exec update of a 1,000-kernel chain to a graph whose k nodes differ
 * (every (n / k)-th), and back: time per grGraphExecUpdate. */
static void update_changed(int k)
{
    enum {
        n = 1000,
        reps = 20
    };
    graph_t *sh = gen_chain(n);
    int a[n], b[n];
    for (int i = 0; i < n; i++) {
        a[i] = i;
        b[i] = i % (n / k) == 0 ? i + n : i;
    }
    grGraph_t ga = build_shape(sh, a), gb = build_shape(sh, b);
    grGraphExec_t e;
    CK(grGraphInstantiate(&e, ga, 0));
    double r[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        double t0 = now_ns();
        for (int i = 0; i < reps; i++) {
            grGraphExecUpdateResultInfo info;
            CK(grGraphExecUpdate(e, (i & 1) ? ga : gb, &info));
        }
        r[round] = (now_ns() - t0) / reps / 1e3;
    }
    char param[32];
    snprintf(param, sizeof param, "%dof%d", k, n);
    report("exec_update_changed", param, median(r), "us");
    CK(grGraphExecDestroy(e));
    CK(grGraphDestroy(ga));
    CK(grGraphDestroy(gb));
    graph_free(sh);
}

/* Capture + update, as bench_native.cu's capture_update: a chain of n
 * launches captured with new arguments, grGraphExecUpdate of an
 * executable of the same shape, the new graph destroyed. Figures: the
 * whole step, and its update part. */
static void capture_update(grStream_t s, int n)
{
    enum { reps = 10 };
    grGraph_t g0;
    CK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    for (int i = 0; i < n; i++) {
        void *args[] = {&i};
        CK(grLaunchKernel(kernel, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), args, 0, s));
    }
    CK(grStreamEndCapture(s, &g0));
    grGraphExec_t e;
    CK(grGraphInstantiate(&e, g0, 0));
    double rt[ROUNDS], ru[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        double upd = 0, t0 = now_ns();
        for (int k = 0; k < reps; k++) {
            grGraph_t g;
            int base = (round * reps + k + 1) * n;
            CK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
            for (int i = 0; i < n; i++) {
                int a = base + i;
                void *args[] = {&a};
                CK(grLaunchKernel(kernel, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), args, 0, s));
            }
            CK(grStreamEndCapture(s, &g));
            double t1 = now_ns();
            grGraphExecUpdateResultInfo info;
            CK(grGraphExecUpdate(e, g, &info));
            upd += now_ns() - t1;
            CK(grGraphDestroy(g));
        }
        rt[round] = (now_ns() - t0) / reps / 1e3;
        ru[round] = upd / reps / 1e3;
    }
    char param[32];
    snprintf(param, sizeof param, "chain%d", n);
    report("capture_update", param, median(rt), "us");
    report("capture_update_update", param, median(ru), "us");
    CK(grGraphExecDestroy(e));
    CK(grGraphDestroy(g0));
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else {
            fprintf(stderr, "usage: bench_gpu [--quick] [--json FILE]\n");
            return 1;
        }
    }
    int count = 0;
    CK(grGetDeviceCount(&count));
    if (count < 2) {
        fprintf(stderr, "bench_gpu: no GPU device (grGetDeviceCount gives %d, the CPU only)\n", count);
        return 2;
    }
    grDeviceProp prop;
    CK(grGetDeviceProperties(&prop, 1));
    printf("machine: %s, %d SMs, graphrt device 1\n", prop.name, prop.multiProcessorCount);
    CK(grSetDevice(1));
    size_t sizes[] = {sizeof(int)};
    CK(grKernelCreate(&kernel, empty_cpu, "bench_empty", 1, sizes));
    CK(grKernelSetImage(kernel, empty_ptx, "bench_empty"));
    grStream_t s;
    CK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    int zero = 0;
    void *zargs[] = {&zero};
    CK(grLaunchKernel(kernel, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), zargs, 0, s));
    CK(grStreamSynchronize(s));
    char param[32];
    double r[ROUNDS], r2[ROUNDS], r3[ROUNDS];

    /* Eager launch: submission cost per launch. */
    {
        const int n = 2000;
        for (int k = 0; k < ROUNDS; k++) {
            void *args[] = {&k};
            double t0 = now_ns();
            for (int i = 0; i < n; i++)
                CK(grLaunchKernel(kernel, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), args, 0, s));
            double t1 = now_ns();
            CK(grStreamSynchronize(s));
            r[k] = (t1 - t0) / n;
        }
        report("eager_launch", "1", median(r), "ns/launch");
    }

    /* Graph launch + synchronize. */
    const char *shapes[] = {"chain", "chain", "chain", "fan", "fan"};
    const int gsizes[] = {10, 100, 1000, 16, 256};
    for (int c = 0; c < 5; c++) {
        grGraph_t g = build_graph(shapes[c], gsizes[c], 1);
        grGraphExec_t e;
        CK(grGraphInstantiate(&e, g, 0));
        CK(grGraphLaunch(e, s));
        CK(grStreamSynchronize(s));
        int reps = gsizes[c] >= 1000 ? 50 : 300;
        for (int k = 0; k < ROUNDS; k++) {
            double t0 = now_ns();
            for (int i = 0; i < reps; i++) {
                CK(grGraphLaunch(e, s));
                CK(grStreamSynchronize(s));
            }
            r[k] = (now_ns() - t0) / reps;
        }
        snprintf(param, sizeof param, "%s%d", shapes[c], gsizes[c]);
        report("graph_launch_sync", param, median(r) / 1e3, "us");
        CK(grGraphExecDestroy(e));
        CK(grGraphDestroy(g));
    }

    /* Instantiate per node, exec kernel set-params, exec update per node. */
    {
        const int n = 1000;
        grGraph_t g = build_graph("chain", n, 1), g2 = build_graph("chain", n, 2);
        size_t nn = 0;
        CK(grGraphGetNodes(g, NULL, &nn));
        grGraphNode_t *nodes = malloc(nn * sizeof *nodes);
        if (!nodes)
            return 1;
        CK(grGraphGetNodes(g, nodes, &nn));
        for (int k = 0; k < ROUNDS; k++) {
            grGraphExec_t e;
            double t0 = now_ns();
            CK(grGraphInstantiate(&e, g, 0));
            r[k] = (now_ns() - t0) / n;
            int v = 7;
            void *args[] = {&v};
            grKernelNodeParams kp = empty_params(args);
            const int sets = 2000;
            t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                CK(grGraphExecKernelNodeSetParams(e, nodes[(size_t)i % nn], &kp));
            }
            r2[k] = (now_ns() - t0) / sets;
            grGraphExecUpdateResultInfo info;
            t0 = now_ns();
            CK(grGraphExecUpdate(e, (k & 1) ? g : g2, &info));
            r3[k] = (now_ns() - t0) / n;
            CK(grGraphExecDestroy(e));
        }
        report("instantiate", "chain1000", median(r), "ns/node");
        report("exec_kernel_set_params", "chain1000", median(r2), "ns/call");
        report("exec_update", "chain1000", median(r3), "ns/node");
        /* graphrt's own work in those calls: the same on a CPU executable,
         * where no driver is called (no native figure of these names). */
        int gpu = 0;
        CK(grGetDevice(&gpu));
        CK(grSetDevice(0));
        for (int k = 0; k < ROUNDS; k++) {
            grGraphExec_t e;
            CK(grGraphInstantiate(&e, g, 0));
            int v = 7;
            void *args[] = {&v};
            grKernelNodeParams kp = empty_params(args);
            const int sets = 2000;
            double t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                CK(grGraphExecKernelNodeSetParams(e, nodes[(size_t)i % nn], &kp));
            }
            r2[k] = (now_ns() - t0) / sets;
            grGraphExecUpdateResultInfo info;
            t0 = now_ns();
            CK(grGraphExecUpdate(e, (k & 1) ? g : g2, &info));
            r3[k] = (now_ns() - t0) / n;
            CK(grGraphExecDestroy(e));
        }
        CK(grSetDevice(gpu));
        report("own_exec_kernel_set_params", "chain1000", median(r2), "ns/call");
        report("own_exec_update", "chain1000", median(r3), "ns/node");
        free(nodes);
        CK(grGraphDestroy(g));
        CK(grGraphDestroy(g2));
    }

    /* Capture per op, and capture + instantiate. */
    const int cap_sizes[] = {100, 1000, 10000};
    for (int c = 0; c < 3; c++) {
        int n = cap_sizes[c];
        for (int k = 0; k < ROUNDS; k++) {
            grGraph_t g;
            grGraphExec_t e;
            double t0 = now_ns();
            CK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
            for (int i = 0; i < n; i++) {
                void *args[] = {&i};
                CK(grLaunchKernel(kernel, GR_DIM3(1, 1, 1), GR_DIM3(32, 1, 1), args, 0, s));
            }
            CK(grStreamEndCapture(s, &g));
            double t1 = now_ns();
            CK(grGraphInstantiate(&e, g, 0));
            double t2 = now_ns();
            r[k] = (t1 - t0) / n;
            r2[k] = (t2 - t0) / 1e3;
            CK(grGraphExecDestroy(e));
            CK(grGraphDestroy(g));
        }
        snprintf(param, sizeof param, "chain%d", n);
        report("capture", param, median(r), "ns/op");
        report("capture_instantiate", param, median(r2), "us");
    }

    /* The start-up case, layered graphs, updates of k of n nodes. */
    const int startup_lens[] = {100, 1000}, startup_counts[] = {1, 8, 64};
    int c = 0;
    for (int l = 0; l < 2; l++)
        for (int j = 0; j < 3; j++)
            if (!quick || startup_counts[j] <= 8)
                startup(s, startup_lens[l], startup_counts[j], c++);
    const int layers[][2] = {{10, 10}, {32, 32}, {100, 100}};
    for (int l = 0; l < 3; l++)
        if (!quick || layers[l][0] * layers[l][1] <= 1024)
            layered(layers[l][0], layers[l][1]);
    const int changed[] = {1, 10, 100, 1000};
    for (int j = 0; j < 4; j++)
        update_changed(changed[j]);
    capture_update(s, 100);
    capture_update(s, 1000);

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\"runtime\": \"graphrt\", \"device\": \"%s\", \"figures\": [\n", prop.name);
        for (int i = 0; i < nfigures; i++)
            fprintf(f, "  {\"name\": \"%s\", \"param\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}%s\n",
                    figures[i].name, figures[i].param, figures[i].value, figures[i].unit,
                    i + 1 < nfigures ? "," : "");
        fprintf(f, "]}\n");
        fclose(f);
    }
    CK(grStreamDestroy(s));
    CK(grKernelDestroy(kernel));
    return 0;
}
