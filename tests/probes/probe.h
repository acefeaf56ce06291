// probe.h - shared helpers of the CUDA 13 probe programs in tests/probes/.
// Each probe prints one line per case: "case-name: ResultCodeName [value]".
// The probes never stop on an error: every call's result is printed and the
// sticky last error is cleared after it. Not part of the graphrt build; see
// docs/cuda13-probes.md for how to build and run them.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// *p += 1, atomically: the kernel most probes put in their nodes.
__global__ void inc(int *p)
{
    atomicAdd(p, 1);
}

// Starts the runtime, then makes a non-blocking stream and 64 ints of
// device memory: the state most probes share.
static inline void probe_start(cudaStream_t *st, int **dmem)
{
    cudaFree(0);
    cudaStreamCreateWithFlags(st, cudaStreamNonBlocking);
    cudaMalloc(dmem, 64 * sizeof(int));
}

// Kernel node parameters of func over one block of one thread.
static inline cudaKernelNodeParams one_thread_params(void *func, void **args)
{
    cudaKernelNodeParams k;
    memset(&k, 0, sizeof k);
    k.func = func;
    k.gridDim = dim3(1);
    k.blockDim = dim3(1);
    k.kernelParams = args;
    return k;
}

// Memset node parameters: 4-byte elements of value, width by height
// rows 'pitch' bytes apart, at dst.
static inline cudaMemsetParams memset4_params(void *dst, unsigned value, size_t width, size_t height,
                                              size_t pitch)
{
    cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = dst;
    mp.value = value;
    mp.elementSize = 4;
    mp.width = width;
    mp.height = height;
    mp.pitch = pitch;
    return mp;
}

// A launch of one block of one thread on s with the n attributes at.
static inline cudaLaunchConfig_t one_thread_config(cudaStream_t s, cudaLaunchAttribute *at, unsigned n)
{
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(1);
    cfg.stream = s;
    cfg.attrs = at;
    cfg.numAttrs = n;
    return cfg;
}

static inline const char *en(cudaError_t e)
{
    return cudaGetErrorName(e);
}

static inline const char *cuen(CUresult r)
{
    const char *s = nullptr;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
        return "CUDA_ERROR_?";
    return s;
}

// Prints "name: code" and an optional formatted observation.
static inline cudaError_t report_(const char *name, cudaError_t e, const char *fmt = nullptr, ...)
{
    printf("%s: %s", name, en(e));
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        printf(" ");
        vprintf(fmt, ap);
        va_end(ap);
    }
    printf("\n");
    fflush(stdout);
    cudaGetLastError();
    return e;
}

static inline void note(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s: ", name);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

// Adds to g, after nothing, a node of inc(*p) over 'grid' blocks of one
// thread; a refusal is noted.
static inline cudaGraphNode_t add_inc_node(cudaGraph_t g, int **p, unsigned grid = 1)
{
    cudaGraphNode_t n = nullptr;
    void *args[] = {p};
    cudaKernelNodeParams kp = one_thread_params((void *)inc, args);
    kp.gridDim = dim3(grid);
    cudaError_t e = cudaGraphAddKernelNode(&n, g, nullptr, 0, &kp);
    if (e)
        note("kernel-add", "%s", en(e));
    return n;
}

static inline CUresult cureport(const char *name, CUresult r)
{
    printf("%s: %s\n", name, cuen(r));
    fflush(stdout);
    return r;
}

// The call runs first, then the observed values are evaluated (a plain
// function call would leave their order to the compiler).
#define report(name, expr, ...)                  \
    ({                                           \
        cudaError_t report_e_ = (expr);          \
        report_(name, report_e_, ##__VA_ARGS__); \
    })
#define R(name, expr) report(name, (expr))

static inline size_t nnodes(cudaGraph_t g)
{
    size_t n = 0;
    if (cudaGraphGetNodes(g, nullptr, &n) != cudaSuccess)
        return (size_t)-1;
    return n;
}

static inline size_t nedges(cudaGraph_t g)
{
    size_t n = 0;
    if (cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n) != cudaSuccess)
        return (size_t)-1;
    return n;
}

static inline const char *typename_(cudaGraphNodeType t)
{
    static const char *n[] = {"Kernel",   "Memcpy",    "Memset",         "Host",         "Graph",
                              "Empty",    "WaitEvent", "EventRecord",    "ExtSemSignal", "ExtSemWait",
                              "MemAlloc", "MemFree",   "BatchMemOp(12)", "Conditional"};
    if ((unsigned)t < sizeof n / sizeof n[0])
        return n[t];
    return "?";
}

static inline const char *ntype(cudaGraphNode_t n)
{
    cudaGraphNodeType t;
    cudaError_t e = cudaGraphNodeGetType(n, &t);
    if (e) {
        cudaGetLastError();
        return en(e);
    }
    return typename_(t);
}

// Lists a graph's node types, in cudaGraphGetNodes order.
static inline void list_types(const char *name, cudaGraph_t g)
{
    size_t n = nnodes(g);
    if (n == (size_t)-1) {
        note(name, "GetNodes failed");
        return;
    }
    std::vector<cudaGraphNode_t> v(n);
    cudaGraphGetNodes(g, v.data(), &n);
    printf("%s: n=%zu [", name, n);
    for (size_t i = 0; i < n; i++)
        printf("%s%s", i ? " " : "", ntype(v[i]));
    printf("]\n");
    fflush(stdout);
}

// cudaGraphNodeParams has a deleted default constructor in C++ (its union
// holds dim3); this declares a zeroed one named p.
#define NODEPARAMS(p)                                                                     \
    alignas(cudaGraphNodeParams) unsigned char p##_buf[sizeof(cudaGraphNodeParams)] = {}; \
    cudaGraphNodeParams &p = *reinterpret_cast<cudaGraphNodeParams *>(p##_buf)
