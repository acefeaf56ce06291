// seed_capture.cu - the seed article's first program: a stream capture of
// foo -> device-to-device copy -> bar, instantiated and launched.
#include "common.h"

__global__ void foo(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = (float)i;
}

__global__ void bar(float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] *= 2.0f;
}

int main()
{
    const int n = 1 << 16;
    float *a, *b;
    cudaStream_t s;
    CK(cudaMalloc(&a, n * sizeof(float)));
    CK(cudaMalloc(&b, n * sizeof(float)));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t x;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    foo<<<n / 256, 256, 0, s>>>(a, n);
    CK(cudaMemcpyAsync(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    bar<<<n / 256, 256, 0, s>>>(b, n);
    CK(cudaStreamEndCapture(s, &g));
    dump_dot(g, "seed_capture");
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int i = 0; i < 100; i++)
        CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    float h = 0;
    CK(cudaMemcpy(&h, b + 3, sizeof h, cudaMemcpyDeviceToHost));
    printf("seed_capture: b[3] = %g (expect 6)\n", h);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaStreamDestroy(s));
    return h == 6.0f ? 0 : 1;
}
