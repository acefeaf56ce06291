// bench_overhead.cu - what the recorder costs a program: run once plainly
// and once under 'graphrt record', the ratios of the two runs' figures are
// the recorder's overhead (tools/record-check.sh). Not a test.
//
//   capture_instantiate_us  capture of a three-stream graph of 96 kernels
//                           plus its instantiation (median of 30)
//   capture_us, instantiate_us  the two parts of it, each a median
//   cycle_us                the same plus destroying the executable and the
//                           graph (a destroy waits for the recorder's walk)
//   launch_us               one launch of a 24-kernel graph, launched 2000
//                           times back to back (median of 7 batches)
//   launch_tiny_us          the same for a graph of one kernel
//   eager_launch_us         one kernel launch outside any capture, 2000
//                           back to back (median of 7 batches): what the
//                           recorder's callbacks for kernel launches cost
//                           where no capture is open
#include "common.h"
#include <algorithm>
#include <chrono>
#include <vector>

__global__ void k(float *v, int salt)
{
    v[threadIdx.x] = v[threadIdx.x] * 0.5f + (float)salt;
}

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static void capture(cudaStream_t s[3], cudaEvent_t ev[4], float *v, int per_stream, cudaGraph_t *g)
{
    CK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
    k<<<1, 32, 0, s[0]>>>(v, 0);
    CK(cudaEventRecord(ev[0], s[0]));
    CK(cudaStreamWaitEvent(s[1], ev[0], 0));
    CK(cudaStreamWaitEvent(s[2], ev[0], 0));
    for (int i = 0; i < per_stream; i++)
        for (int j = 0; j < 3; j++)
            k<<<1, 32, 0, s[j]>>>(v + 32 * j, i);
    CK(cudaEventRecord(ev[1], s[1]));
    CK(cudaEventRecord(ev[2], s[2]));
    CK(cudaStreamWaitEvent(s[0], ev[1], 0));
    CK(cudaStreamWaitEvent(s[0], ev[2], 0));
    k<<<1, 32, 0, s[0]>>>(v, 1);
    CK(cudaStreamEndCapture(s[0], g));
}

static double eager_launches(float *v, cudaStream_t s, int n)
{
    std::vector<double> t;
    for (int b = 0; b < 7; b++) {
        CK(cudaStreamSynchronize(s));
        double t0 = now_us();
        for (int i = 0; i < n; i++)
            k<<<1, 32, 0, s>>>(v, i);
        CK(cudaStreamSynchronize(s));
        t.push_back((now_us() - t0) / n);
    }
    return median(t);
}

static double launches(cudaGraphExec_t x, cudaStream_t s, int n)
{
    std::vector<double> t;
    for (int b = 0; b < 7; b++) {
        CK(cudaStreamSynchronize(s));
        double t0 = now_us();
        for (int i = 0; i < n; i++)
            CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        t.push_back((now_us() - t0) / n);
    }
    return median(t);
}

int main()
{
    cudaStream_t s[3];
    cudaEvent_t ev[4];
    float *v;
    CK(cudaMalloc(&v, 4096 * sizeof(float)));
    for (int i = 0; i < 3; i++)
        CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    for (int i = 0; i < 4; i++)
        CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
    std::vector<double> ci, cyc, cap, ins;
    for (int r = 0; r < 33; r++) {
        cudaGraph_t g;
        cudaGraphExec_t x;
        double t0 = now_us();
        capture(s, ev, v, 32, &g);
        double tc = now_us();
        CK(cudaGraphInstantiate(&x, g, 0));
        double t1 = now_us();
        CK(cudaGraphExecDestroy(x));
        CK(cudaGraphDestroy(g));
        double t2 = now_us();
        if (r >= 3) {
            ci.push_back(t1 - t0);
            cyc.push_back(t2 - t0);
            cap.push_back(tc - t0);
            ins.push_back(t1 - tc);
        }
    }
    cudaGraph_t g, tiny;
    cudaGraphExec_t x, xt;
    capture(s, ev, v, 8, &g);
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
    k<<<1, 32, 0, s[0]>>>(v, 2);
    CK(cudaStreamEndCapture(s[0], &tiny));
    CK(cudaGraphInstantiate(&xt, tiny, 0));
    launches(x, s[0], 200); /* warm */
    double l = launches(x, s[0], 2000);
    double lt = launches(xt, s[0], 2000);
    eager_launches(v, s[0], 200); /* warm */
    double le = eager_launches(v, s[0], 2000);
    printf("capture_instantiate_us=%.2f capture_us=%.2f instantiate_us=%.2f cycle_us=%.2f launch_us=%.3f "
           "launch_tiny_us=%.3f eager_launch_us=%.3f\n",
           median(ci), median(cap), median(ins), median(cyc), l, lt, le);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphExecDestroy(xt));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(tiny));
    CK(cudaFree(v));
    return 0;
}
