// seed_explicit.cu - the seed article's second program: a graph of two
// kernels built with the explicit API, instantiated, launched, then the
// second kernel's arguments changed in the executable
// (cudaGraphExecKernelNodeSetParams) and by a whole-graph update from a
// graph of the same shape (cudaGraphExecUpdate), launched again.
#include "common.h"

__global__ void scale(float *v, int n, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = (float)i * k;
}

__global__ void shift(float *v, int n, float d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] += d;
}

static cudaGraph_t build(float *v, int *n, float *k, float *d, cudaGraphNode_t *second)
{
    cudaGraph_t g;
    cudaGraphNode_t a;
    CK(cudaGraphCreate(&g, 0));
    void *args_a[] = {&v, n, k};
    void *args_b[] = {&v, n, d};
    cudaKernelNodeParams p = {};
    p.func = (void *)scale;
    p.gridDim = dim3(*n / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args_a;
    CK(cudaGraphAddKernelNode(&a, g, NULL, 0, &p));
    p.func = (void *)shift;
    p.kernelParams = args_b;
    CK(cudaGraphAddKernelNode(second, g, &a, 1, &p));
    return g;
}

int main()
{
    int n = 1 << 12;
    float k = 1.0f, d = 2.0f;
    float *v;
    CK(cudaMalloc(&v, n * sizeof(float)));
    cudaGraphNode_t second;
    cudaGraph_t g = build(v, &n, &k, &d, &second);
    dump_dot(g, "seed_explicit");
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, 0));
    /* Set-params: the second kernel adds 5 instead of 2. */
    float d2 = 5.0f;
    void *args_b[] = {&v, &n, &d2};
    cudaKernelNodeParams p = {};
    p.func = (void *)shift;
    p.gridDim = dim3(n / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args_b;
    CK(cudaGraphExecKernelNodeSetParams(x, second, &p));
    CK(cudaGraphLaunch(x, 0));
    /* Whole-graph update from a graph of the same topology. */
    float k3 = 3.0f;
    cudaGraphNode_t second2;
    cudaGraph_t g2 = build(v, &n, &k3, &d2, &second2);
    cudaGraphExecUpdateResultInfo info;
    CK(cudaGraphExecUpdate(x, g2, &info));
    CK(cudaGraphLaunch(x, 0));
    CK(cudaDeviceSynchronize());
    float h = 0;
    CK(cudaMemcpy(&h, v + 2, sizeof h, cudaMemcpyDeviceToHost));
    printf("seed_explicit: v[2] = %g (expect 11)\n", h);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(g2));
    CK(cudaFree(v));
    return h == 11.0f ? 0 : 1;
}
