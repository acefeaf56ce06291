/*
 * graphrt_kernel.h - one kernel source for the CPU and for NVIDIA GPUs.
 *
 * A file of kernels written with these macros compiles
 *   - with a C compiler into, per kernel, the per-block CPU function that
 *     grKernelCreate takes (it runs the block's threads one after another)
 *     and a function that registers the kernel, attaching the GPU image
 *     when the build embedded one;
 *   - with nvcc (-x cu) into an extern "C" __global__ function of the same
 *     name and parameters, which the CMake helper graphrt_add_cuda_kernels
 *     (cmake/graphrtCuda.cmake) compiles into a fatbin and embeds.
 *
 *     #include "graphrt_kernel.h"
 *
 *     GR_KERNEL(saxpy, (float, a), (const float *, x), (float *, y), (unsigned, n))
 *     {
 *         size_t i = gr_global_idx_x();
 *         if (i < n)
 *             y[i] = a * x[i] + y[i];
 *     }
 *
 * and where the kernel is created (any file):
 *
 *     GR_KERNEL_DECLARE(saxpy);
 *     grKernel_t k;
 *     GR_KERNEL_CREATE(&k, saxpy);  // grKernelCreate (+ grKernelSetImage)
 *
 * Rules: parameters are (type, name) pairs, 1 to 16 of them, each type a
 * plain object or pointer type; the body is one thread's work and must be
 * in the common subset of C and C++ (nvcc compiles it as C++: cast the
 * result of a void * conversion). A thread ends early with 'return'.
 * There is no block barrier: the CPU runs a block's threads one after
 * another, so a barrier in the middle of a body cannot be honoured without
 * splitting the body; gr_sync_threads() exists under nvcc and is a compile
 * error in a C build, which says so.
 */
#ifndef GRAPHRT_KERNEL_H
#define GRAPHRT_KERNEL_H

/* ------------------------------------------------- parameter-list tools */

#define GR__KCAT(a, b) GR__KCAT_(a, b)
#define GR__KCAT_(a, b) a##b
#define GR__KNARGS(...) GR__KNARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GR__KNARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N

/* GR__KMAP(m, pairs...): m(i, pair) for each pair, comma-separated, with
 * i its index (an expression: 0, 0 + 1, ...). */
#define GR__KMAP(m, ...) GR__KCAT(GR__KMAP_, GR__KNARGS(__VA_ARGS__))(m, 0, __VA_ARGS__)
#define GR__KMAP_1(m, i, p) m(i, p)
#define GR__KMAP_2(m, i, p, ...) m(i, p), GR__KMAP_1(m, i + 1, __VA_ARGS__)
#define GR__KMAP_3(m, i, p, ...) m(i, p), GR__KMAP_2(m, i + 1, __VA_ARGS__)
#define GR__KMAP_4(m, i, p, ...) m(i, p), GR__KMAP_3(m, i + 1, __VA_ARGS__)
#define GR__KMAP_5(m, i, p, ...) m(i, p), GR__KMAP_4(m, i + 1, __VA_ARGS__)
#define GR__KMAP_6(m, i, p, ...) m(i, p), GR__KMAP_5(m, i + 1, __VA_ARGS__)
#define GR__KMAP_7(m, i, p, ...) m(i, p), GR__KMAP_6(m, i + 1, __VA_ARGS__)
#define GR__KMAP_8(m, i, p, ...) m(i, p), GR__KMAP_7(m, i + 1, __VA_ARGS__)
#define GR__KMAP_9(m, i, p, ...) m(i, p), GR__KMAP_8(m, i + 1, __VA_ARGS__)
#define GR__KMAP_10(m, i, p, ...) m(i, p), GR__KMAP_9(m, i + 1, __VA_ARGS__)
#define GR__KMAP_11(m, i, p, ...) m(i, p), GR__KMAP_10(m, i + 1, __VA_ARGS__)
#define GR__KMAP_12(m, i, p, ...) m(i, p), GR__KMAP_11(m, i + 1, __VA_ARGS__)
#define GR__KMAP_13(m, i, p, ...) m(i, p), GR__KMAP_12(m, i + 1, __VA_ARGS__)
#define GR__KMAP_14(m, i, p, ...) m(i, p), GR__KMAP_13(m, i + 1, __VA_ARGS__)
#define GR__KMAP_15(m, i, p, ...) m(i, p), GR__KMAP_14(m, i + 1, __VA_ARGS__)
#define GR__KMAP_16(m, i, p, ...) m(i, p), GR__KMAP_15(m, i + 1, __VA_ARGS__)

#define GR__KPARAM(i, p) GR__KPARAM_ p
#define GR__KPARAM_(T, n) T n
#define GR__KNAME(i, p) GR__KNAME_ p
#define GR__KNAME_(T, n) n
#define GR__KSIZE(i, p) GR__KSIZE_ p
#define GR__KSIZE_(T, n) sizeof(T)
#define GR__KUNPACK(i, p) GR__KUNPACK_(i, GR__KTYPE_ p)
#define GR__KTYPE_(T, n) T
#define GR__KUNPACK_(i, T) (*(T *)gr_kargs_[i])

#if defined(__CUDACC__)

/* ------------------------------------------------------------- nvcc */

#define GR_KERNEL(name, ...) extern "C" __global__ void name(GR__KMAP(GR__KPARAM, __VA_ARGS__))

#define gr_thread_idx_x() (threadIdx.x)
#define gr_thread_idx_y() (threadIdx.y)
#define gr_thread_idx_z() (threadIdx.z)
#define gr_block_idx_x() (blockIdx.x)
#define gr_block_idx_y() (blockIdx.y)
#define gr_block_idx_z() (blockIdx.z)
#define gr_block_dim_x() (blockDim.x)
#define gr_block_dim_y() (blockDim.y)
#define gr_block_dim_z() (blockDim.z)
#define gr_grid_dim_x() (gridDim.x)
#define gr_grid_dim_y() (gridDim.y)
#define gr_grid_dim_z() (gridDim.z)

/* Adds v to *p atomically; returns the old value. */
#define gr_atomic_add_u32(p, v) atomicAdd((unsigned *)(p), (unsigned)(v))
#define gr_atomic_add_f32(p, v) atomicAdd((float *)(p), (float)(v))

/* The block barrier (CUDA only: see the top of this file). */
#define gr_sync_threads() __syncthreads()

/* A conditional handle as a kernel parameter (graphrt.h's type), and the
 * device function that sets its value (CUDA 12.3+). Where the kernel runs
 * in a graph's executable on a GPU, graphrt passes the driver's handle in
 * a parameter of this type that holds one of the executable's handles, so
 * that CUDA's cudaGraphSetConditional takes it (docs/conditional.md). */
typedef unsigned long long grGraphConditionalHandle;
#define gr_set_conditional(h, v) cudaGraphSetConditional((cudaGraphConditionalHandle)(h), (unsigned)(v))

#else

/* ------------------------------------------------------- C compiler */

#include "graphrt.h"

/* The per-block CPU function unpacks the parameters once per block into
 * parameters of name##_gr_block, and copies the context there: locals
 * that the threads' stores cannot alias, so that the compiler keeps them
 * in registers across the loop over the threads instead of reloading them
 * after every store (a store of a float could otherwise be a float
 * parameter's, a store of a byte anything). */
#define GR_KERNEL(name, ...)                                                                                \
    static void name##_gr_thread(const grKernelCtx *gr_kctx_, unsigned gr_ktx_, unsigned gr_kty_,           \
                                 unsigned gr_ktz_, GR__KMAP(GR__KPARAM, __VA_ARGS__));                      \
    static inline void name##_gr_block(const grKernelCtx *gr_kctx_in_, GR__KMAP(GR__KPARAM, __VA_ARGS__))   \
    {                                                                                                       \
        const grKernelCtx gr_kctx_ = *gr_kctx_in_;                                                          \
        GR_FOR_THREADS(&gr_kctx_, gr_tx_, gr_ty_, gr_tz_)                                                   \
        name##_gr_thread(&gr_kctx_, gr_tx_, gr_ty_, gr_tz_, GR__KMAP(GR__KNAME, __VA_ARGS__));              \
    }                                                                                                       \
    static void name##_cpu(const grKernelCtx *gr_kctx_, void **gr_kargs_)                                   \
    {                                                                                                       \
        name##_gr_block(gr_kctx_, GR__KMAP(GR__KUNPACK, __VA_ARGS__));                                      \
    }                                                                                                       \
    grError_t gr_kernel_create_##name(grKernel_t *k);                                                       \
    grError_t gr_kernel_create_##name(grKernel_t *k)                                                        \
    {                                                                                                       \
        static const size_t sizes[] = {GR__KMAP(GR__KSIZE, __VA_ARGS__)};                                   \
        grError_t err = grKernelCreate(k, name##_cpu, #name, (int)(sizeof sizes / sizeof sizes[0]), sizes); \
        if (err == grSuccess && GR_KERNEL_HAS_IMAGE && (err = grKernelSetImage(*k, GR__KIMAGE, #name)))     \
            (void)grKernelDestroy(*k);                                                                      \
        return err;                                                                                         \
    }                                                                                                       \
    static inline void name##_gr_thread(                                                                    \
        const grKernelCtx *gr_kctx_ __attribute__((unused)), unsigned gr_ktx_ __attribute__((unused)),      \
        unsigned gr_kty_ __attribute__((unused)), unsigned gr_ktz_ __attribute__((unused)),                 \
        GR__KMAP(GR__KPARAM, __VA_ARGS__))

/* The image graphrt_add_cuda_kernels embedded for this file, if any:
 * GR_KERNEL_HAS_IMAGE is 1 then, else 0. */
#ifdef GR_KERNEL_IMAGE
extern const unsigned char GR_KERNEL_IMAGE[];
#define GR_KERNEL_HAS_IMAGE 1
#define GR__KIMAGE ((const void *)GR_KERNEL_IMAGE)
#else
#define GR_KERNEL_HAS_IMAGE 0
#define GR__KIMAGE ((const void *)0)
#endif

#define gr_thread_idx_x() (gr_ktx_)
#define gr_thread_idx_y() (gr_kty_)
#define gr_thread_idx_z() (gr_ktz_)
#define gr_block_idx_x() (gr_kctx_->blockIdx.x)
#define gr_block_idx_y() (gr_kctx_->blockIdx.y)
#define gr_block_idx_z() (gr_kctx_->blockIdx.z)
#define gr_block_dim_x() (gr_kctx_->blockDim.x)
#define gr_block_dim_y() (gr_kctx_->blockDim.y)
#define gr_block_dim_z() (gr_kctx_->blockDim.z)
#define gr_grid_dim_x() (gr_kctx_->gridDim.x)
#define gr_grid_dim_y() (gr_kctx_->gridDim.y)
#define gr_grid_dim_z() (gr_kctx_->gridDim.z)

/* Blocks run on several worker threads at once: the adds are atomic. */
#define gr_atomic_add_u32(p, v) __atomic_fetch_add((unsigned *)(p), (unsigned)(v), __ATOMIC_RELAXED)
static inline float gr_atomic_add_f32(float *p, float v)
{
    float old, want;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        want = old + v;
    while (!__atomic_compare_exchange(p, &old, &want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
}

/* Sets a conditional handle's value from a kernel (grGraphSetConditional:
 * docs/conditional.md); a handle that is not live is ignored, as the
 * device function has no result. */
#define gr_set_conditional(h, v) ((void)grGraphSetConditional((h), (unsigned)(v)))

#define gr_sync_threads()                                                                             \
    _Static_assert(0, "gr_sync_threads: the CPU runs a block's threads one after another and cannot " \
                      "honour a block barrier; split the kernel in two launches (or graph nodes) instead")

#endif

/* The global index of the calling thread along x, y, z. */
#define gr_global_idx_x() ((size_t)gr_block_idx_x() * gr_block_dim_x() + gr_thread_idx_x())
#define gr_global_idx_y() ((size_t)gr_block_idx_y() * gr_block_dim_y() + gr_thread_idx_y())
#define gr_global_idx_z() ((size_t)gr_block_idx_z() * gr_block_dim_z() + gr_thread_idx_z())

/* Declares the registration function of a kernel written with GR_KERNEL
 * in another file; GR_KERNEL_CREATE(&k, name) calls it: grKernelCreate
 * with the kernel's name and parameter sizes, then grKernelSetImage when
 * the build embedded a GPU image (graphrt_add_cuda_kernels with a CUDA
 * compiler). Returns grKernelCreate's or grKernelSetImage's error. */
#define GR_KERNEL_DECLARE(name) grError_t gr_kernel_create_##name(grKernel_t *k)
#define GR_KERNEL_CREATE(kp, name) gr_kernel_create_##name(kp)

#endif /* GRAPHRT_KERNEL_H */
