/*
 * bench_gpu.c - graphrt on a GPU, measured the way bench_native.cu
 * measures the CUDA runtime: the same empty kernel (loaded from PTX text
 * with grKernelSetImage), the same graph shapes, operations, repetitions
 * and clock. Prints "graphrt,<name>,<param>,<value>,<unit>" lines after a
 * machine line (bench/run.sh cuda joins them with the native ones into
 * ratios); --json FILE writes the figures as JSON. Needs a GPU device:
 * without one it says so and exits with status 2.
 */
#include "graphrt.h"

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
static figure figures[64];
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

int main(int argc, char **argv)
{
    const char *json = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
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
