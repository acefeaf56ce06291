/*
 * bench_native.cu - the native CUDA side of the GPU comparison: the same
 * empty kernel, graph shapes and operations as bench_gpu.c measures
 * through graphrt, built directly with the CUDA runtime API. Built by
 * CMake where it finds a CUDA compiler (bench/cuda/CMakeLists.txt) and run
 * by bench/run.sh cuda; never part of the library or the suite.
 *
 * Every figure is the median of several rounds, each timing a batch of
 * operations with a monotonic clock. Output: one line per figure as
 * "native,<name>,<param>,<value>,<unit>" (bench/run.sh cuda joins it
 * with bench_gpu's lines) after a machine line; --json FILE also writes
 * the figures as JSON.
 *
 * The "driver_" figures time driver calls alone (taken from the runtime
 * with cudaGetDriverEntryPointByVersion), the floor under both runtimes'
 * setters: cuGraphExecKernelNodeSetParams,
 * cuGraphKernelNodeSetParams on a graph (host-side), cuCtxSetCurrent, and
 * an update of every node done either way (one exec setter per node, or
 * the graph's nodes set and one cuGraphExecUpdate).
 * bench_gpu has no figure of those names, so run.sh prints no ratio.
 *
 * The start-up case, layered graphs and updates of k of n nodes follow
 * (bench/cuda/README.md says what each measures); --quick leaves out their
 * largest sizes. The runtime is linked statically and the driver is
 * reached through the runtime, so that without a driver or a GPU the
 * program starts, says so and exits with status 2.
 */
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "hr_shapes.h"

#define CK(call)                                                                                     \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
            exit(3);                                                                                 \
        }                                                                                            \
    } while (0)

extern "C" __global__ void bench_empty(int x)
{
    (void)x;
}

/* The driver's calls the "driver_" figures time, at the version of the
 * headers (cuda.h maps cuGraphExecUpdate to its _v2, and so on). */
static decltype(&cuGraphExecKernelNodeSetParams) drv_exec_kernel_set;
static decltype(&cuGraphKernelNodeSetParams) drv_graph_kernel_set;
static decltype(&cuGraphExecUpdate) drv_exec_update;
static decltype(&cuCtxGetCurrent) drv_ctx_get;
static decltype(&cuCtxSetCurrent) drv_ctx_set;

template <typename F> static void driver_entry(const char *name, F *fn)
{
    void *p = NULL;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion(name, &p, CUDA_VERSION, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !p) {
        fprintf(stderr, "bench_native: the driver has no %s (query result %d)\n", name, (int)q);
        exit(3);
    }
    *fn = (F)p;
}

static double now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct figure {
    std::string name, param, unit;
    double value;
};
static std::vector<figure> figures;

static void report(const char *name, const std::string &param, double value, const char *unit)
{
    figures.push_back({name, param, unit, value});
    printf("native,%s,%s,%.1f,%s\n", name, param.c_str(), value, unit);
    fflush(stdout);
}

static const int ROUNDS = 7;

/* A graph of empty kernels: "chain" (n in a row) or "fan" (one root, n
 * middle nodes, one sink). */
static cudaGraph_t build_graph(const char *shape, int n, int arg)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    void *args[] = {&arg};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)bench_empty;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    if (!strcmp(shape, "chain")) {
        cudaGraphNode_t prev = NULL, cur;
        for (int i = 0; i < n; i++) {
            CK(cudaGraphAddKernelNode(&cur, g, prev ? &prev : NULL, prev ? 1 : 0, &kp));
            prev = cur;
        }
    } else {
        cudaGraphNode_t root, sink;
        std::vector<cudaGraphNode_t> mid((size_t)n);
        CK(cudaGraphAddKernelNode(&root, g, NULL, 0, &kp));
        for (int i = 0; i < n; i++)
            CK(cudaGraphAddKernelNode(&mid[(size_t)i], g, &root, 1, &kp));
        CK(cudaGraphAddKernelNode(&sink, g, mid.data(), (size_t)n, &kp));
    }
    return g;
}

/* A graph of empty kernels of the harness's shape sh (hr_shapes.h), node
 * i launched with args[i]. */
static cudaGraph_t build_shape(const graph_t *sh, const int *args)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    std::vector<cudaGraphNode_t> nodes((size_t)sh->n), deps;
    for (int i = 0; i < sh->n; i++) {
        int a = args[i];
        void *kargs[] = {&a};
        cudaKernelNodeParams kp = {};
        kp.func = (void *)bench_empty;
        kp.gridDim = dim3(1);
        kp.blockDim = dim3(32);
        kp.kernelParams = kargs;
        deps.clear();
        for (int k = sh->pred_off[i]; k < sh->pred_off[i + 1]; k++)
            deps.push_back(nodes[(size_t)sh->pred[k]]);
        CK(cudaGraphAddKernelNode(&nodes[(size_t)i], g, deps.data(), deps.size(), &kp));
    }
    return g;
}

/* The start-up case: ngraphs graphs of one shape, each a chain of launches
 * captured from a stream (node i of graph j launched with j * len + i),
 * instantiated, and all kept until the last is built, as an inference
 * server captures one graph per batch size. Round r of case c captures
 * chains of len + 1 + ROUNDS * c + r launches, a length no earlier round
 * built, so that every round is a first start-up: none can be served by
 * executables an earlier one destroyed. Figures: the whole capture +
 * instantiate of the ngraphs graphs, its instantiate part, and one launch
 * of each then one synchronize (work deferred to a first launch shows). */
static void startup(cudaStream_t s, int len, int ngraphs, int c)
{
    std::vector<double> rt, ri, rl;
    std::vector<cudaGraph_t> g((size_t)ngraphs);
    std::vector<cudaGraphExec_t> e((size_t)ngraphs);
    for (int r = 0; r < ROUNDS; r++) {
        int n = len + 1 + ROUNDS * c + r;
        double inst = 0, t0 = now_ns();
        for (int j = 0; j < ngraphs; j++) {
            CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
            for (int i = 0; i < n; i++)
                bench_empty<<<1, 32, 0, s>>>(j * n + i);
            CK(cudaStreamEndCapture(s, &g[(size_t)j]));
            double t1 = now_ns();
            CK(cudaGraphInstantiate(&e[(size_t)j], g[(size_t)j], 0));
            inst += now_ns() - t1;
        }
        double t2 = now_ns();
        for (int j = 0; j < ngraphs; j++)
            CK(cudaGraphLaunch(e[(size_t)j], s));
        CK(cudaStreamSynchronize(s));
        rl.push_back((now_ns() - t2) / 1e3);
        rt.push_back((t2 - t0) / 1e3);
        ri.push_back(inst / 1e3);
        for (int j = 0; j < ngraphs; j++) {
            CK(cudaGraphExecDestroy(e[(size_t)j]));
            CK(cudaGraphDestroy(g[(size_t)j]));
        }
    }
    std::string param = std::to_string(ngraphs) + "xchain" + std::to_string(len);
    report("startup", param, median(rt), "us");
    report("startup_instantiate", param, median(ri), "us");
    report("startup_first_launch", param, median(rl), "us");
}

/* A layered graph of depth x width kernels (each with min(3, width)
 * predecessors in the layer before): instantiate per node, and exec update
 * per node from a graph of the same topology whose every node differs. */
static void layered(int depth, int width)
{
    graph_t *sh = gen_layered(depth, width, width < 3 ? width : 3, 42);
    int n = sh->n;
    std::vector<int> a1((size_t)n), a2((size_t)n);
    for (int i = 0; i < n; i++) {
        a1[(size_t)i] = i;
        a2[(size_t)i] = i + n;
    }
    cudaGraph_t g = build_shape(sh, a1.data()), g2 = build_shape(sh, a2.data());
    std::vector<double> ri, ru;
    for (int k = 0; k < ROUNDS; k++) {
        cudaGraphExec_t e;
        double t0 = now_ns();
        CK(cudaGraphInstantiate(&e, g, 0));
        ri.push_back((now_ns() - t0) / n);
        cudaGraphExecUpdateResultInfo info;
        t0 = now_ns();
        CK(cudaGraphExecUpdate(e, (k & 1) ? g : g2, &info));
        ru.push_back((now_ns() - t0) / n);
        CK(cudaGraphExecDestroy(e));
    }
    std::string param = "layered" + std::to_string(depth) + "x" + std::to_string(width);
    report("instantiate", param, median(ri), "ns/node");
    report("exec_update", param, median(ru), "ns/node");
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(g2));
    graph_free(sh);
}

/* Exec update of a 1,000-kernel chain to a graph whose k nodes differ
 * (every (n / k)-th), and back: time per cudaGraphExecUpdate. */
static void update_changed(int k)
{
    const int n = 1000, reps = 20;
    graph_t *sh = gen_chain(n);
    std::vector<int> a((size_t)n), b((size_t)n);
    for (int i = 0; i < n; i++) {
        a[(size_t)i] = i;
        b[(size_t)i] = i % (n / k) == 0 ? i + n : i;
    }
    cudaGraph_t ga = build_shape(sh, a.data()), gb = build_shape(sh, b.data());
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, ga, 0));
    std::vector<double> r;
    for (int round = 0; round < ROUNDS; round++) {
        double t0 = now_ns();
        for (int i = 0; i < reps; i++) {
            cudaGraphExecUpdateResultInfo info;
            CK(cudaGraphExecUpdate(e, (i & 1) ? ga : gb, &info));
        }
        r.push_back((now_ns() - t0) / reps / 1e3);
    }
    report("exec_update_changed", std::to_string(k) + "of" + std::to_string(n), median(r), "us");
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(ga));
    CK(cudaGraphDestroy(gb));
    graph_free(sh);
}

/* Capture + update, the pattern of frameworks that capture a new graph at
 * every step and bring one executable to it (llama.cpp's ggml-cuda): a
 * chain of n launches captured with new arguments, cudaGraphExecUpdate of
 * an executable of the same shape, the new graph destroyed. Figures: the
 * whole step, and its update part. */
static void capture_update(cudaStream_t s, int n)
{
    const int reps = 10;
    cudaGraph_t g0;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < n; i++)
        bench_empty<<<1, 32, 0, s>>>(i);
    CK(cudaStreamEndCapture(s, &g0));
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g0, 0));
    std::vector<double> rt, ru;
    for (int round = 0; round < ROUNDS; round++) {
        double upd = 0, t0 = now_ns();
        for (int k = 0; k < reps; k++) {
            cudaGraph_t g;
            int base = (round * reps + k + 1) * n;
            CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
            for (int i = 0; i < n; i++)
                bench_empty<<<1, 32, 0, s>>>(base + i);
            CK(cudaStreamEndCapture(s, &g));
            double t1 = now_ns();
            cudaGraphExecUpdateResultInfo info;
            CK(cudaGraphExecUpdate(e, g, &info));
            upd += now_ns() - t1;
            CK(cudaGraphDestroy(g));
        }
        rt.push_back((now_ns() - t0) / reps / 1e3);
        ru.push_back(upd / reps / 1e3);
    }
    report("capture_update", "chain" + std::to_string(n), median(rt), "us");
    report("capture_update_update", "chain" + std::to_string(n), median(ru), "us");
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(g0));
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            quick = true;
        else {
            fprintf(stderr, "usage: bench_native [--quick] [--json FILE]\n");
            return 1;
        }
    }
    int count = 0;
    cudaError_t ce = cudaGetDeviceCount(&count);
    if (ce != cudaSuccess || count < 1) {
        fprintf(stderr, "bench_native: no GPU device (cudaGetDeviceCount: %s, %d devices)\n",
                ce != cudaSuccess ? cudaGetErrorName(ce) : "cudaSuccess", count);
        return 2;
    }
    driver_entry("cuGraphExecKernelNodeSetParams", &drv_exec_kernel_set);
    driver_entry("cuGraphKernelNodeSetParams", &drv_graph_kernel_set);
    driver_entry("cuGraphExecUpdate", &drv_exec_update);
    driver_entry("cuCtxGetCurrent", &drv_ctx_get);
    driver_entry("cuCtxSetCurrent", &drv_ctx_set);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0, rt = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    printf("machine: %s, %d SMs, driver %d, runtime %d\n", prop.name, prop.multiProcessorCount, drv, rt);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaFree(0));
    bench_empty<<<1, 32, 0, s>>>(0); /* module load, first launch */
    CK(cudaStreamSynchronize(s));

    /* Eager launch: CPU submission cost per launch (launches queued, then
     * one synchronize, outside the timing). */
    {
        const int n = 2000;
        std::vector<double> r;
        for (int k = 0; k < ROUNDS; k++) {
            void *args[] = {&k};
            double t0 = now_ns();
            for (int i = 0; i < n; i++)
                CK(cudaLaunchKernel((void *)bench_empty, dim3(1), dim3(32), args, 0, s));
            double t1 = now_ns();
            CK(cudaStreamSynchronize(s));
            r.push_back((t1 - t0) / n);
        }
        report("eager_launch", "1", median(r), "ns/launch");
    }

    /* Graph launch + synchronize. */
    const char *shapes[] = {"chain", "chain", "chain", "fan", "fan"};
    const int sizes[] = {10, 100, 1000, 16, 256};
    for (int c = 0; c < 5; c++) {
        cudaGraph_t g = build_graph(shapes[c], sizes[c], 1);
        cudaGraphExec_t e;
        CK(cudaGraphInstantiate(&e, g, 0));
        CK(cudaGraphLaunch(e, s));
        CK(cudaStreamSynchronize(s));
        int reps = sizes[c] >= 1000 ? 50 : 300;
        std::vector<double> r;
        for (int k = 0; k < ROUNDS; k++) {
            double t0 = now_ns();
            for (int i = 0; i < reps; i++) {
                CK(cudaGraphLaunch(e, s));
                CK(cudaStreamSynchronize(s));
            }
            r.push_back((now_ns() - t0) / reps);
        }
        report("graph_launch_sync", std::string(shapes[c]) + std::to_string(sizes[c]), median(r) / 1e3,
               "us");
        CK(cudaGraphExecDestroy(e));
        CK(cudaGraphDestroy(g));
    }

    /* Instantiate per node, exec kernel set-params, exec update per node
     * (a 1000-kernel chain). */
    {
        const int n = 1000;
        cudaGraph_t g = build_graph("chain", n, 1), g2 = build_graph("chain", n, 2);
        std::vector<double> ri, rs, ru;
        for (int k = 0; k < ROUNDS; k++) {
            cudaGraphExec_t e;
            double t0 = now_ns();
            CK(cudaGraphInstantiate(&e, g, 0));
            ri.push_back((now_ns() - t0) / n);

            size_t nn = 0;
            CK(cudaGraphGetNodes(g, NULL, &nn));
            std::vector<cudaGraphNode_t> nodes(nn);
            CK(cudaGraphGetNodes(g, nodes.data(), &nn));
            int v = 7;
            void *args[] = {&v};
            cudaKernelNodeParams kp = {};
            kp.func = (void *)bench_empty;
            kp.gridDim = dim3(1);
            kp.blockDim = dim3(32);
            kp.kernelParams = args;
            const int sets = 2000;
            t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                CK(cudaGraphExecKernelNodeSetParams(e, nodes[(size_t)i % nn], &kp));
            }
            rs.push_back((now_ns() - t0) / sets);

            cudaGraphExecUpdateResultInfo info;
            t0 = now_ns();
            CK(cudaGraphExecUpdate(e, (k & 1) ? g : g2, &info));
            ru.push_back((now_ns() - t0) / n);
            CK(cudaGraphExecDestroy(e));
        }
        report("instantiate", "chain1000", median(ri), "ns/node");
        report("exec_kernel_set_params", "chain1000", median(rs), "ns/call");
        report("exec_update", "chain1000", median(ru), "ns/node");
        CK(cudaGraphDestroy(g));
        CK(cudaGraphDestroy(g2));
    }

    /* The driver's calls alone, on a 1000-kernel chain's graph and
     * executable. */
    {
        const int n = 1000, sets = 2000;
        cudaGraph_t g = build_graph("chain", n, 1);
        cudaGraphExec_t e;
        CK(cudaGraphInstantiate(&e, g, 0));
        size_t nn = 0;
        CK(cudaGraphGetNodes(g, NULL, &nn));
        std::vector<cudaGraphNode_t> nodes(nn);
        CK(cudaGraphGetNodes(g, nodes.data(), &nn));
        cudaFunction_t fn;
        CK(cudaGetFuncBySymbol(&fn, (const void *)bench_empty));
        int v = 7;
        void *args[] = {&v};
        CUDA_KERNEL_NODE_PARAMS d;
        memset(&d, 0, sizeof d);
        d.func = (CUfunction)fn;
        d.gridDimX = d.gridDimY = d.gridDimZ = 1;
        d.blockDimX = 32;
        d.blockDimY = d.blockDimZ = 1;
        d.kernelParams = args;
        CUcontext ctx;
        if (drv_ctx_get(&ctx) != CUDA_SUCCESS)
            exit(3);
        std::vector<double> rx, rg, rc, rus, rug;
        for (int k = 0; k < ROUNDS; k++) {
            /* An update of every node, two ways, alternated: one exec
             * setter per node, or every node into the graph and one
             * cuGraphExecUpdate. */
            for (int way = 0; way < 2; way++) {
                bool by_graph = ((k + way) & 1) != 0;
                double t0 = now_ns();
                for (size_t i = 0; i < nn; i++) {
                    v = (int)i + 3 * k + way;
                    CUresult r = by_graph ? drv_graph_kernel_set((CUgraphNode)nodes[i], &d)
                                          : drv_exec_kernel_set(e, (CUgraphNode)nodes[i], &d);
                    if (r != CUDA_SUCCESS)
                        exit(3);
                }
                if (by_graph) {
                    CUgraphExecUpdateResultInfo info;
                    if (drv_exec_update(e, (CUgraph)g, &info) != CUDA_SUCCESS)
                        exit(3);
                }
                (by_graph ? rug : rus).push_back((now_ns() - t0) / (double)nn);
            }
            double t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                if (drv_exec_kernel_set(e, (CUgraphNode)nodes[(size_t)i % nn], &d) != CUDA_SUCCESS)
                    exit(3);
            }
            rx.push_back((now_ns() - t0) / sets);
            t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                if (drv_graph_kernel_set((CUgraphNode)nodes[(size_t)i % nn], &d) != CUDA_SUCCESS)
                    exit(3);
            }
            rg.push_back((now_ns() - t0) / sets);
            t0 = now_ns();
            for (int i = 0; i < sets; i++)
                if (drv_ctx_set(ctx) != CUDA_SUCCESS)
                    exit(3);
            rc.push_back((now_ns() - t0) / sets);
        }
        report("driver_exec_kernel_set_params", "chain1000", median(rx), "ns/call");
        report("driver_graph_kernel_set_params", "chain1000", median(rg), "ns/call");
        report("driver_ctx_set_current", "1", median(rc), "ns/call");
        report("driver_update_by_exec_setters", "chain1000", median(rus), "ns/node");
        report("driver_update_by_graph", "chain1000", median(rug), "ns/node");
        CK(cudaGraphExecDestroy(e));
        CK(cudaGraphDestroy(g));
    }

    /* Capture per op, and capture + instantiate of a 1000-kernel chain. */
    const int cap_sizes[] = {100, 1000, 10000};
    for (int c = 0; c < 3; c++) {
        int n = cap_sizes[c];
        std::vector<double> rc, rci;
        for (int k = 0; k < ROUNDS; k++) {
            cudaGraph_t g;
            cudaGraphExec_t e;
            double t0 = now_ns();
            CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
            for (int i = 0; i < n; i++)
                bench_empty<<<1, 32, 0, s>>>(i);
            CK(cudaStreamEndCapture(s, &g));
            double t1 = now_ns();
            CK(cudaGraphInstantiate(&e, g, 0));
            double t2 = now_ns();
            rc.push_back((t1 - t0) / n);
            rci.push_back((t2 - t0) / 1e3);
            CK(cudaGraphExecDestroy(e));
            CK(cudaGraphDestroy(g));
        }
        report("capture", "chain" + std::to_string(n), median(rc), "ns/op");
        report("capture_instantiate", "chain" + std::to_string(n), median(rci), "us");
    }

    /* The start-up case, layered graphs, updates of k of n nodes. */
    const int startup_lens[] = {100, 1000}, startup_counts[] = {1, 8, 64};
    int c = 0;
    for (int len : startup_lens)
        for (int ng : startup_counts)
            if (!quick || ng <= 8)
                startup(s, len, ng, c++);
    const int layers[][2] = {{10, 10}, {32, 32}, {100, 100}};
    for (const auto &l : layers)
        if (!quick || l[0] * l[1] <= 1024)
            layered(l[0], l[1]);
    for (int k : {1, 10, 100, 1000})
        update_changed(k);
    for (int n : {100, 1000})
        capture_update(s, n);

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\"runtime\": \"native\", \"device\": \"%s\", \"figures\": [\n", prop.name);
        for (size_t i = 0; i < figures.size(); i++)
            fprintf(f, "  {\"name\": \"%s\", \"param\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}%s\n",
                    figures[i].name.c_str(), figures[i].param.c_str(), figures[i].value,
                    figures[i].unit.c_str(), i + 1 < figures.size() ? "," : "");
        fprintf(f, "]}\n");
        fclose(f);
    }
    CK(cudaStreamDestroy(s));
    return 0;
}
