// capture_invalidated.cu - a capture invalidated from a second thread:
// thread 1 captures a blocking stream in global mode; meanwhile thread 2
// calls cudaMemset, a synchronous call on the legacy default stream, which
// would synchronise with every blocking stream, the capturing one too.
// CUDA refuses that call and invalidates the capture; thread 1 learns it
// only from its own later calls and from cudaStreamEndCapture.
#include "common.h"
#include <pthread.h>

__global__ void k(float *v) { v[threadIdx.x] += 1.0f; }

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int phase;
static float *other;

static void *second(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (phase < 1)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    cudaError_t e = cudaMemset(other, 0, 1024);
    printf("capture_invalidated: thread 2: cudaMemset returned %s (%d)\n", cudaGetErrorName(e), (int)e);
    pthread_mutex_lock(&m);
    phase = 2;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main()
{
    float *v;
    cudaStream_t s;
    CK(cudaMalloc(&v, 1024));
    CK(cudaMalloc(&other, 1024));
    CK(cudaStreamCreate(&s)); /* a blocking stream: it synchronises with the legacy stream */
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    cudaGraph_t g = NULL;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    k<<<1, 32, 0, s>>>(v);
    pthread_mutex_lock(&m);
    phase = 1;
    pthread_cond_broadcast(&c);
    while (phase < 2)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    k<<<1, 32, 0, s>>>(v);
    cudaError_t e1 = cudaGetLastError();
    cudaError_t e2 = cudaStreamEndCapture(s, &g);
    printf("capture_invalidated: thread 1: the launch after: %s; cudaStreamEndCapture: %s (%d)\n",
           cudaGetErrorName(e1), cudaGetErrorName(e2), (int)e2);
    pthread_join(t, NULL);
    if (g)
        cudaGraphDestroy(g);
    (void)cudaGetLastError();
    cudaStreamDestroy(s);
    cudaFree(v);
    cudaFree(other);
    return 0;
}
