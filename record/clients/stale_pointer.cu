// stale_pointer.cu - a pointer baked into a graph outlives its memory: the
// buffer a captured kernel writes is freed between two launches of the
// executable and a buffer of the same size is allocated (the driver often
// gives back the same address, so nothing faults: the graph silently
// writes whatever now lives there).
#include "common.h"

__global__ void fill(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = 1.0f;
}

int main()
{
    const int n = 1 << 14;
    float *v, *out;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&v, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    cudaGraph_t g;
    cudaGraphExec_t x;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fill<<<n / 256, 256, 0, s>>>(v, n);
    CK(cudaMemcpyAsync(out, v, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    CK(cudaStreamEndCapture(s, &g));
    dump_dot(g, "stale_pointer");
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(v)); /* the graph still holds v */
    float *w;
    CK(cudaMalloc(&w, n * sizeof(float)));
    printf("stale_pointer: freed %p, new allocation at %p%s\n", (void *)v, (void *)w,
           v == w ? " (the same address)" : "");
    CK(cudaGraphLaunch(x, s));
    cudaError_t e = cudaStreamSynchronize(s);
    printf("stale_pointer: second launch: %s\n", cudaGetErrorName(e));
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaFree(w);
    cudaFree(out);
    return 0;
}
