/*
 * bench_native.cu - the native CUDA side of the GPU comparison: the same
 * empty kernel, graph shapes and operations as bench_gpu.c measures
 * through graphrt, built directly with the CUDA runtime API. Built by
 * bench/run.sh cuda with nvcc on a machine with a GPU; never part of the
 * library or the suite.
 *
 * Every figure is the median of several rounds, each timing a batch of
 * operations with a monotonic clock. Output: one line per figure as
 * "native,<name>,<param>,<value>,<unit>" (bench/cuda/compare.py joins it
 * with bench_gpu's lines) after a machine line; --json FILE also writes
 * the figures as JSON.
 *
 * The "driver_" figures time driver calls alone (linked with -lcuda), the
 * floor under both runtimes' setters: cuGraphExecKernelNodeSetParams,
 * cuGraphKernelNodeSetParams on a graph (host-side), cuCtxSetCurrent, and
 * an update of every node done either way (one exec setter per node, or
 * the graph's nodes set and one cuGraphExecUpdate).
 * bench_gpu has no figure of those names, so run.sh prints no ratio.
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

int main(int argc, char **argv)
{
    const char *json = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
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
        if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
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
                    CUresult r = by_graph ? cuGraphKernelNodeSetParams((CUgraphNode)nodes[i], &d)
                                          : cuGraphExecKernelNodeSetParams(e, (CUgraphNode)nodes[i], &d);
                    if (r != CUDA_SUCCESS)
                        exit(3);
                }
                if (by_graph) {
                    CUgraphExecUpdateResultInfo info;
                    if (cuGraphExecUpdate(e, (CUgraph)g, &info) != CUDA_SUCCESS)
                        exit(3);
                }
                (by_graph ? rug : rus).push_back((now_ns() - t0) / (double)nn);
            }
            double t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                if (cuGraphExecKernelNodeSetParams(e, (CUgraphNode)nodes[(size_t)i % nn], &d) != CUDA_SUCCESS)
                    exit(3);
            }
            rx.push_back((now_ns() - t0) / sets);
            t0 = now_ns();
            for (int i = 0; i < sets; i++) {
                v = i;
                if (cuGraphKernelNodeSetParams((CUgraphNode)nodes[(size_t)i % nn], &d) != CUDA_SUCCESS)
                    exit(3);
            }
            rg.push_back((now_ns() - t0) / sets);
            t0 = now_ns();
            for (int i = 0; i < sets; i++)
                if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
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
