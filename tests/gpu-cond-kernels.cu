/*
 * gpu-cond-kernels.cu - the GPU side of the kernels of
 * test-gpu-conditional.c, which set conditional handles: the source of
 * the PTX text in gpu-cond-ptx.h (regenerate it with tests/gen-gpu-ptx.sh
 * after a change here). A handle is a kernel parameter of its own, of 8
 * bytes: graphrt gives the kernel the driver's handle there
 * (docs/conditional.md), which cudaGraphSetConditional takes.
 */
extern "C" __global__ void gr_test_cond_set(unsigned long long h, unsigned v)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        cudaGraphSetConditional((cudaGraphConditionalHandle)h, v);
}

extern "C" __global__ void gr_test_cond_add(unsigned *p, unsigned v)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *p += v;
}

/* Counts *left down and ends the loop of handle h at zero. */
extern "C" __global__ void gr_test_cond_countdown(unsigned *left, unsigned long long h)
{
    if (blockIdx.x == 0 && threadIdx.x == 0 && --*left == 0)
        cudaGraphSetConditional((cudaGraphConditionalHandle)h, 0);
}
