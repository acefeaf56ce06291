// build_cost.cu - what building a CUDA graph of N kernel nodes costs the
// driver, by each way of building it, with its instantiation: the cost
// graphrt pays at grGraphInstantiate of a graph of a shape it has not
// seen (it builds the driver's graph node by node, src/backend/cuda/
// graph.c), against the native capture that builds the same graph while
// the program launches. Ways: cuGraphAddKernelNode with kernelParams
// (a function loaded from PTX, as graphrt loads kernels, or the
// runtime's), with the 'extra' buffer, cuGraphAddNode, nodes first and
// all edges in one cuGraphAddDependencies, and stream capture of
// cuLaunchKernel. Prints one line per way: build and instantiate, ns a
// node, medians of 15 rounds.
//   nvcc -O2 -arch=sm_90 -o build_cost bench/cuda/build_cost.cu -lcuda
//   ./build_cost [N]
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

__global__ void bench_empty(int) {}

static const char ptx[] = ".version 9.0\n.target sm_75\n.address_size 64\n"
                          ".visible .entry bench_empty2(\n .param .u32 p0\n)\n{\n ret;\n}\n";

static double now_ns()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

#define CK(x)                                                      \
    do {                                                           \
        CUresult r_ = (x);                                         \
        if (r_ != CUDA_SUCCESS) {                                  \
            std::printf("%s: CUresult %d\n", #x, static_cast<int>(r_)); \
            return 1;                                              \
        }                                                          \
    } while (0)

enum Way { MODULE, RUNTIME_FUNC, EXTRA, ADD_NODE, DEPS_AFTER, CAPTURE, NWAYS };
static const char *const way_name[NWAYS] = {"cuGraphAddKernelNode, PTX module", "cuGraphAddKernelNode, runtime's",
                                            "cuGraphAddKernelNode, extra",      "cuGraphAddNode",
                                            "nodes, then cuGraphAddDependencies", "capture of cuLaunchKernel"};

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000, rounds = 15;
    if (cudaFree(0) != cudaSuccess) {
        std::printf("build_cost: no GPU\n");
        return 2;
    }
    CUfunction from_rt, from_ptx;
    CUmodule mod;
    cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t *>(&from_rt), reinterpret_cast<const void *>(bench_empty));
    CK(cuModuleLoadData(&mod, ptx));
    CK(cuModuleGetFunction(&from_ptx, mod, "bench_empty2"));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    for (int w = 0; w < NWAYS; w++) {
        std::vector<double> build, inst;
        for (int r = 0; r < rounds; r++) {
            CUgraph g;
            CUgraphExec e;
            std::vector<CUgraphNode> node(n);
            std::vector<int> val(n);
            std::vector<void *> arg(n);
            double t0 = now_ns();
            if (w == CAPTURE) {
                CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
                for (int i = 0; i < n; i++) {
                    val[i] = i;
                    void *a[] = {&val[i]};
                    CK(cuLaunchKernel(from_ptx, 1, 1, 1, 32, 1, 1, 0, s, a, nullptr));
                }
                CK(cuStreamEndCapture(s, &g));
            } else {
                CK(cuGraphCreate(&g, 0));
                for (int i = 0; i < n; i++) {
                    val[i] = i;
                    arg[i] = &val[i];
                    const CUgraphNode *dep = i > 0 && w != DEPS_AFTER ? &node[i - 1] : nullptr;
                    size_t ndep = dep ? 1 : 0;
                    if (w == ADD_NODE) {
                        CUgraphNodeParams p;
                        std::memset(&p, 0, sizeof p);
                        p.type = CU_GRAPH_NODE_TYPE_KERNEL;
                        p.kernel.func = from_ptx;
                        p.kernel.gridDimX = p.kernel.gridDimY = p.kernel.gridDimZ = 1;
                        p.kernel.blockDimX = 32;
                        p.kernel.blockDimY = p.kernel.blockDimZ = 1;
                        p.kernel.kernelParams = &arg[i];
                        CK(cuGraphAddNode(&node[i], g, dep, nullptr, ndep, &p));
                        continue;
                    }
                    CUDA_KERNEL_NODE_PARAMS d;
                    std::memset(&d, 0, sizeof d);
                    d.func = w == RUNTIME_FUNC ? from_rt : from_ptx;
                    d.gridDimX = d.gridDimY = d.gridDimZ = 1;
                    d.blockDimX = 32;
                    d.blockDimY = d.blockDimZ = 1;
                    size_t bytes = sizeof(int);
                    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &val[i], CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                                     CU_LAUNCH_PARAM_END};
                    if (w == EXTRA)
                        d.extra = extra;
                    else
                        d.kernelParams = &arg[i];
                    CK(cuGraphAddKernelNode(&node[i], g, dep, ndep, &d));
                }
                if (w == DEPS_AFTER && n > 1)
                    CK(cuGraphAddDependencies(g, node.data(), node.data() + 1, nullptr, n - 1));
            }
            double t1 = now_ns();
            CK(cuGraphInstantiate(&e, g, 0));
            double t2 = now_ns();
            build.push_back((t1 - t0) / n);
            inst.push_back((t2 - t1) / n);
            CK(cuGraphLaunch(e, s));
            CK(cuStreamSynchronize(s));
            CK(cuGraphExecDestroy(e));
            CK(cuGraphDestroy(g));
        }
        std::printf("%-36s n=%d: build %.0f ns/node, instantiate %.0f ns/node\n", way_name[w], n, median(build),
                    median(inst));
    }
    return 0;
}
