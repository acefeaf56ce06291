// update_topology.cu - an exec update that fails: the executable was
// instantiated from k1 -> k2, the new graph adds k3 after k1 and changes
// k2's grid. cudaGraphExecUpdate returns cudaErrorGraphExecUpdateFailure
// with cudaGraphExecUpdateErrorTopologyChanged; the executable keeps
// running its old graph.
#include "common.h"

__global__ void k(float *v, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] + a;
}

static cudaGraphNode_t add(cudaGraph_t g, cudaGraphNode_t *dep, float **v, int *n, float *a, unsigned grid)
{
    cudaGraphNode_t node;
    void *args[] = {v, n, a};
    cudaKernelNodeParams p = {};
    p.func = (void *)k;
    p.gridDim = dim3(grid);
    p.blockDim = dim3(256);
    p.kernelParams = args;
    CK(cudaGraphAddKernelNode(&node, g, dep, dep ? 1 : 0, &p));
    return node;
}

int main()
{
    int n = 1 << 12;
    float a1 = 1, a2 = 2, a3 = 3;
    float *v;
    CK(cudaMalloc(&v, n * sizeof(float)));
    cudaGraph_t g1, g2;
    CK(cudaGraphCreate(&g1, 0));
    cudaGraphNode_t r = add(g1, NULL, &v, &n, &a1, 16);
    add(g1, &r, &v, &n, &a2, 16);
    CK(cudaGraphCreate(&g2, 0));
    r = add(g2, NULL, &v, &n, &a1, 16);
    add(g2, &r, &v, &n, &a2, 8);
    add(g2, &r, &v, &n, &a3, 16);
    dump_dot(g1, "update_topology_old");
    dump_dot(g2, "update_topology_new");
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g1, 0));
    CK(cudaGraphLaunch(x, 0));
    cudaGraphExecUpdateResultInfo info;
    cudaError_t e = cudaGraphExecUpdate(x, g2, &info);
    printf("update_topology: cudaGraphExecUpdate returned %s (%d), result %d\n", cudaGetErrorName(e), (int)e,
           (int)info.result);
    (void)cudaGetLastError();
    CK(cudaGraphLaunch(x, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g1));
    CK(cudaGraphDestroy(g2));
    CK(cudaFree(v));
    return e == cudaErrorGraphExecUpdateFailure ? 0 : 1;
}
