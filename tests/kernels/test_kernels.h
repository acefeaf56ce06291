/*
 * test_kernels.h - what the tests and their single-source kernels
 * (gpu_kernels.c, graphrt_kernel.h) share.
 */
#ifndef GR_TEST_KERNELS_H
#define GR_TEST_KERNELS_H

/* A parameter passed by value: out = (in * scale + offset) + bias. */
typedef struct gr_test_affine {
    float scale, offset;
    unsigned char bias;
} gr_test_affine;

#endif
