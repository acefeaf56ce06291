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

/* The cells of lang_kernels.c's lang_atomics: every thread applies each
 * operation once to the global cells (and its block's shared copies,
 * added to the last cells at the end); test-kernel-lang.c checks what
 * each must end as. */
typedef struct lang_atomic_cells {
    int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch, i_cas;
    unsigned u_add, u_sub, u_min, u_max, u_and, u_or, u_xor, u_exch, u_cas, u_inc, u_dec;
    unsigned long long ull_add, ull_min, ull_max, ull_and, ull_or, ull_xor, ull_exch, ull_cas;
    long long ll_min, ll_max;
    float f_add, f_exch;
    double d_add;
    unsigned shared_u_add;
    float shared_f_add;
    unsigned shared_u_max;
} lang_atomic_cells;

#endif
