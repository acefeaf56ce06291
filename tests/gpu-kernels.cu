/*
 * gpu-kernels.cu - the GPU side of the test kernels of the GPU tests: the
 * source of the PTX text in gpu-ptx.h, which is what the tests load (so
 * that the GPU tests need no CUDA compiler where they are built). After a
 * change here, regenerate it with tests/gen-gpu-ptx.sh.
 */
extern "C" __global__ void gr_test_fill(unsigned *p, unsigned v, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}
extern "C" __global__ void gr_test_add(unsigned *p, unsigned v, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += v;
}
/* Thread 0 waits until *flag (host memory the test writes) reaches want. */
extern "C" __global__ void gr_test_wait(const volatile unsigned *flag, unsigned want, unsigned n)
{
    (void)n;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        while (*flag < want)
            __nanosleep(1000);
}
