// forkjoin.cu - a three-stream fork-join captured twice: joined correctly
// (each branch records its own event, the origin stream waits on both),
// and serialised by a shared event: the fork's event is recorded again on
// the first branch and the second branch waits on it, so the second branch
// runs after the first although the join still waits on both.
#include "common.h"

__global__ void work(float *v, int n, int salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * 0.5f + (float)salt;
}


static void capture(cudaStream_t s[3], cudaEvent_t ev[3], float *v[3], int n, bool serialised, cudaGraph_t *g)
{
    CK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
    work<<<n / 256, 256, 0, s[0]>>>(v[0], n, 1); /* the fork point */
    CK(cudaEventRecord(ev[0], s[0]));
    CK(cudaStreamWaitEvent(s[1], ev[0], 0));
    if (!serialised)
        CK(cudaStreamWaitEvent(s[2], ev[0], 0));
    work<<<n / 256, 256, 0, s[1]>>>(v[1], n, 2); /* branch 1 */
    if (serialised) {
        /* The bug: the fork's event, recorded again on branch 1. */
        CK(cudaEventRecord(ev[0], s[1]));
        CK(cudaStreamWaitEvent(s[2], ev[0], 0));
    }
    work<<<n / 256, 256, 0, s[2]>>>(v[2], n, 3); /* branch 2 */
    work<<<n / 256, 256, 0, s[0]>>>(v[0], n, 4); /* the origin's own work */
    CK(cudaEventRecord(ev[1], s[1]));
    CK(cudaEventRecord(ev[2], s[2]));
    CK(cudaStreamWaitEvent(s[0], ev[1], 0));
    CK(cudaStreamWaitEvent(s[0], ev[2], 0));
    work<<<n / 256, 256, 0, s[0]>>>(v[0], n, 5); /* the join */
    CK(cudaStreamEndCapture(s[0], g));
}

int main()
{
    const int n = 1 << 14;
    cudaStream_t s[3];
    cudaEvent_t ev[3];
    float *v[3];
    for (int i = 0; i < 3; i++) {
        CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
        CK(cudaMalloc(&v[i], n * sizeof(float)));
    }
    cudaGraph_t g[2];
    cudaGraphExec_t x[2];
    capture(s, ev, v, n, false, &g[0]);
    capture(s, ev, v, n, true, &g[1]);
    dump_dot(g[0], "forkjoin_correct");
    dump_dot(g[1], "forkjoin_serialised");
    for (int k = 0; k < 2; k++) {
        CK(cudaGraphInstantiate(&x[k], g[k], 0));
        for (int i = 0; i < 10; i++)
            CK(cudaGraphLaunch(x[k], s[0]));
    }
    CK(cudaStreamSynchronize(s[0]));
    for (int k = 0; k < 2; k++) {
        CK(cudaGraphExecDestroy(x[k]));
        CK(cudaGraphDestroy(g[k]));
    }
    for (int i = 0; i < 3; i++) {
        CK(cudaFree(v[i]));
        CK(cudaEventDestroy(ev[i]));
        CK(cudaStreamDestroy(s[i]));
    }
    printf("forkjoin: done\n");
    return 0;
}
