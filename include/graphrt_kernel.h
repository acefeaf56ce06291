/*
 * graphrt_kernel.h - one kernel source for the CPU and for NVIDIA GPUs.
 *
 * A file of kernels written with these macros compiles
 *   - with a C compiler into, per kernel, the per-block CPU function that
 *     grKernelCreate takes and a function that registers the kernel,
 *     attaching the GPU image when the build embedded one;
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
 *     GR_KERNEL_SYNC(block_sum, (const float *, x), (float *, out))
 *     {
 *         GR_SHARED(float, s, 256);             // __shared__ float s[256]
 *         unsigned t = gr_thread_idx_x();
 *         s[t] = x[gr_global_idx_x()];
 *         for (unsigned k = 128; k > 0; k /= 2) {
 *             gr_sync_threads();                // __syncthreads()
 *             if (t < k)
 *                 s[t] += s[t + k];
 *         }
 *         if (t == 0)
 *             out[gr_block_idx_x()] = s[0];
 *     }
 *
 * and where the kernel is created (any file, C or C++):
 *
 *     GR_KERNEL_DECLARE(saxpy);
 *     grKernel_t k;
 *     GR_KERNEL_CREATE(&k, saxpy);  // grKernelCreate (+ grKernelSetImage)
 *
 * Rules: parameters are (type, name) pairs, 0 to 16 of them
 * (GR_KERNEL(name) takes none), each type a plain object or pointer type;
 * the body is one thread's work and must be in the common subset of C and
 * C++ (nvcc compiles it as C++: cast the result of a void * conversion).
 * A thread ends early with 'return'. Kernel bodies compile as C on the
 * CPU; GR_KERNEL_DECLARE and GR_KERNEL_CREATE work from C++ too.
 *
 * Three kinds of kernel, each the same __global__ function under nvcc:
 *   - GR_KERNEL: the CPU runs a block's threads one after another, a plain
 *     loop (the cheapest form). Barriers and warp operations are compile
 *     errors in its body (the _Generic selector's type names
 *     GR_KERNEL_SYNC).
 *   - GR_KERNEL_SYNC: the CPU runs each thread of a block as a fiber on
 *     the worker that runs the block, so threads can wait for each other:
 *     gr_sync_threads*, gr_syncwarp, the gr_shfl_* and vote operations,
 *     and gr_grid_sync, the grid barrier of a cooperative launch (each
 *     block of such a grid runs on a thread of its own: docs/kernels.md).
 *     A barrier costs about one context switch per thread (a few ns; see
 *     docs/kernels.md). Fiber stacks are 64 KiB unless the kernel sets
 *     grFuncAttributeCpuStackSize. A barrier that not every thread of the
 *     block reaches, threads waiting at different barriers, or a block
 *     whose threads can no longer run is a kernel fault on the CPU: the
 *     block stops, the device's next synchronisation returns
 *     grErrorLaunchFailure (sticky, as CUDA's faults) with a detail naming
 *     the kernel, block and threads.
 *   - GR_KERNEL_BLOCK: the body is the block's work, written in phases,
 *     each GR_THREADS(t) statement (or GR_THREADS_XY(tx, ty)) the work of
 *     every thread t with a block barrier after it. The CPU runs each
 *     phase as a loop over the threads, so a barrier costs nothing; nvcc
 *     makes each phase the statement in every thread and __syncthreads().
 *     Code between phases runs once per block on the CPU and in every
 *     thread on a GPU, so it must be the same for all threads and write
 *     only its own locals (loop counters, shared declarations); a value
 *     a thread keeps from one phase to the next lives in shared memory.
 *     A phase must not 'return' or 'break' out of its statement;
 *     gr_thread_idx_*() and the warp operations have no meaning in it
 *     (use the phase's index).
 *
 *     GR_KERNEL_BLOCK(block_sum, (const float *, x), (float *, out))
 *     {
 *         GR_SHARED(float, s, 256);
 *         GR_THREADS(t) s[t] = x[gr_block_idx_x() * 256 + t];
 *         for (unsigned k = 128; k > 0; k /= 2)
 *             GR_THREADS(t) if (t < k) s[t] += s[t + k];
 *         GR_THREADS(t) if (t == 0) out[gr_block_idx_x()] = s[0];
 *     }
 *
 * In all: GR_SHARED(T, name, n) or GR_SHARED(T, declarator) declares
 * static shared memory (__shared__; on the CPU thread-local storage of the
 * worker, which runs one block at a time: sizeof gives the array's size
 * in both); GR_SHARED_DYNAMIC(T, name) points 'name' at the launch's
 * dynamic shared memory (sharedMemBytes; extern __shared__); the
 * gr_atomic_* operations (CUDA's atomicAdd ... atomicDec, relaxed as
 * CUDA's, on global and shared memory) and gr_threadfence*;
 * gr_trigger_programmatic_launch_completion() and
 * gr_grid_dependency_synchronize() (programmatic dependent launch).
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

/* GR__KHASP(name, pairs...): P with parameters, 0 without. */
#define GR__KHASP(...) GR__KHASP_(__VA_ARGS__, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, 0, ~)
#define GR__KHASP_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, X, ...) X
/* GR__KSTRIP((list)): list, without its parentheses. */
#define GR__KSTRIP(x) GR__KSTRIP_ x
#define GR__KSTRIP_(...) __VA_ARGS__
/* GR_SHARED's declarator: (name, n) is name[n]; (declarator) itself. */
#define GR__KSHDECL(...) GR__KCAT(GR__KSHD_, GR__KSHN_(__VA_ARGS__, 2, 1, ~))(__VA_ARGS__)
#define GR__KSHN_(_1, _2, X, ...) X
#define GR__KSHD_1(decl) decl
#define GR__KSHD_2(name, n) name[n]

/* The linear index of the calling thread in its block: CUDA's order,
 * x fastest; lane and warp (32 threads) follow from it. */
#define gr__klinear() \
    (gr_thread_idx_x() + gr_block_dim_x() * (gr_thread_idx_y() + gr_block_dim_y() * gr_thread_idx_z()))
#define GR_WARP_SIZE 32
#define gr_lane_id() (gr__klinear() & 31u)
#define gr_warp_id() (gr__klinear() >> 5)

#if defined(__CUDACC__)

/* ------------------------------------------------------------- nvcc */

#include <cooperative_groups.h>

#define GR_KERNEL(...) GR__KCAT(GR__KCU_, GR__KHASP(__VA_ARGS__))(__VA_ARGS__)
#define GR_KERNEL_SYNC(...) GR__KCAT(GR__KCU_, GR__KHASP(__VA_ARGS__))(__VA_ARGS__)
#define GR_KERNEL_BLOCK(...) GR__KCAT(GR__KCU_, GR__KHASP(__VA_ARGS__))(__VA_ARGS__)
#define GR__KCU_0(name) extern "C" __global__ void name(void)
#define GR__KCU_P(name, ...) extern "C" __global__ void name(GR__KMAP(GR__KPARAM, __VA_ARGS__))

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

#define GR_SHARED(T, ...) __shared__ T GR__KSHDECL(__VA_ARGS__)
#define GR_SHARED_DYNAMIC(T, name)                               \
    extern __shared__ __align__(16) unsigned char gr_kdynshm_[]; \
    T *const name = (T *)gr_kdynshm_

/* A phase of a GR_KERNEL_BLOCK body: the statement once in each thread,
 * then the block barrier. */
#define GR_THREADS(t) \
    for (unsigned t = gr__klinear(), gr_konce_ = 1; gr_konce_; gr_konce_ = 0, __syncthreads())
#define GR_THREADS_XY(tx, ty)                                                   \
    for (unsigned tx = threadIdx.x, ty = threadIdx.y, gr_konce_ = 1; gr_konce_; \
         gr_konce_ = 0, __syncthreads())

#define gr_sync_threads() __syncthreads()
#define gr_sync_threads_count(p) __syncthreads_count(p)
#define gr_sync_threads_and(p) __syncthreads_and(p)
#define gr_sync_threads_or(p) __syncthreads_or(p)
#define gr_syncwarp(mask) __syncwarp(mask)
/* The grid barrier: the kernel must be launched cooperatively
 * (grLaunchCooperativeKernel, grLaunchAttributeCooperative). */
#define gr_grid_sync() cooperative_groups::this_grid().sync()
#define gr_shfl_sync(mask, v, ...) __shfl_sync((mask), (v), __VA_ARGS__)
#define gr_shfl_up_sync(mask, v, ...) __shfl_up_sync((mask), (v), __VA_ARGS__)
#define gr_shfl_down_sync(mask, v, ...) __shfl_down_sync((mask), (v), __VA_ARGS__)
#define gr_shfl_xor_sync(mask, v, ...) __shfl_xor_sync((mask), (v), __VA_ARGS__)
#define gr_ballot_sync(mask, p) __ballot_sync((mask), (p))
#define gr_any_sync(mask, p) __any_sync((mask), (p))
#define gr_all_sync(mask, p) __all_sync((mask), (p))
#define gr_activemask() __activemask()

#define gr_atomic_add(p, v) atomicAdd((p), (v))
#define gr_atomic_sub(p, v) atomicSub((p), (v))
#define gr_atomic_exch(p, v) atomicExch((p), (v))
#define gr_atomic_min(p, v) atomicMin((p), (v))
#define gr_atomic_max(p, v) atomicMax((p), (v))
#define gr_atomic_inc(p, v) atomicInc((p), (v))
#define gr_atomic_dec(p, v) atomicDec((p), (v))
#define gr_atomic_cas(p, c, v) atomicCAS((p), (c), (v))
#define gr_atomic_and(p, v) atomicAnd((p), (v))
#define gr_atomic_or(p, v) atomicOr((p), (v))
#define gr_atomic_xor(p, v) atomicXor((p), (v))
#define gr_threadfence() __threadfence()
#define gr_threadfence_block() __threadfence_block()
#define gr_threadfence_system() __threadfence_system()

/* Programmatic dependent launch (compute capability 9.0 and later; a
 * no-op below it, where a dependent kernel never starts early). */
static __device__ __forceinline__ void gr__kpdl_trigger(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}
static __device__ __forceinline__ void gr__kpdl_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}
#define gr_trigger_programmatic_launch_completion() gr__kpdl_trigger()
#define gr_grid_dependency_synchronize() gr__kpdl_wait()

/* Adds v to *p atomically; returns the old value. */
#define gr_atomic_add_u32(p, v) atomicAdd((unsigned *)(p), (unsigned)(v))
#define gr_atomic_add_f32(p, v) atomicAdd((float *)(p), (float)(v))

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

#ifdef __cplusplus
extern "C" {
#endif

/* graphrt's own: the runtime entry points that GR_KERNEL_SYNC's code
 * and the barrier and warp macros below call. Programs use the macros;
 * these are declared for them, not for direct calls. */

/* One thread of a block that runs as a fiber (opaque). */
typedef struct grKernelThread grKernelThread;
/* A thread's body: the kernel's parameters unpacked from args. */
typedef void (*grKernelThreadFn)(grKernelThread *t, const grKernelCtx *ctx, void **args, unsigned tx,
                                 unsigned ty, unsigned tz);
/* Per kernel function (static in the kernel's file): its name, and the
 * fiber stack size in bytes (0: the default, 64 KiB), which
 * grFuncSetAttribute(grFuncAttributeCpuStackSize) sets with atomic
 * builtins. */
typedef struct grKernelInfo {
    const char *name;
    unsigned stack_bytes;
} grKernelInfo;

/* Runs the block of ctx: fn once per thread, each thread a fiber on the
 * calling thread, until every thread has returned. A fault of the block
 * (a barrier some threads never reach, threads at different barriers, a
 * block that cannot go on, a fiber stack overrun, no memory for the
 * stacks) ends it and becomes the device's sticky grErrorLaunchFailure
 * (docs/kernels.md). Called by GR_KERNEL_SYNC's per-block function. */
GR_API void grKernelBlockRunThreads(const grKernelInfo *info, const grKernelCtx *ctx, void **args,
                                    grKernelThreadFn fn);
/* The block barrier of thread t (gr_sync_threads*): returns once every
 * thread of its block has called it from the same source line, with the
 * number of threads that passed pred != 0. */
GR_API int grKernelThreadSync(grKernelThread *t, int pred, int line);
/* A warp operation of thread t (op: GR__KW_*), among the lanes of 'mask'
 * that have not returned: v is the lane's operand (a shuffle's value or
 * a vote's predicate), arg the source lane, delta or lane mask, width
 * the shuffle's segment. Returns the shuffled value's bits, the ballot,
 * or (GR__KW_ALL) whether every lane's predicate held. */
GR_API unsigned long long grKernelThreadWarpOp(grKernelThread *t, int op, unsigned mask, unsigned long long v,
                                               int arg, int width);
/* The lanes of t's warp that have not returned (gr_activemask). */
GR_API unsigned grKernelThreadActiveMask(grKernelThread *t);
/* The grid barrier of thread t (gr_grid_sync, called from source line
 * 'line'): returns once every thread of every block of the grid has
 * called it. Outside a cooperative launch, or where a block of the grid
 * ends without reaching it, the block faults (docs/kernels.md). */
GR_API void grKernelThreadGridSync(grKernelThread *t, int line);
/* Links a kernel created by GR_KERNEL_SYNC's registration to its
 * function's info, where grFuncSetAttribute finds the stack size.
 * Errors: grErrorInvalidValue (kernel not live, info NULL). */
GR_API grError_t grKernelAttachInfo(grKernel_t k, grKernelInfo *info);

#ifdef __cplusplus
}
#define GR__KEXTC extern "C"
#else
#define GR__KEXTC
#endif

/* The type of a GR_KERNEL body's hidden thread handle: never complete, so
 * that the barriers' _Generic names it in its error. */
struct GR_KERNEL_runs_threads_one_after_another_use_GR_KERNEL_SYNC;
#define GR__KPLAIN_T struct GR_KERNEL_runs_threads_one_after_another_use_GR_KERNEL_SYNC

#define GR_KERNEL(...) GR__KCAT(GR__KC_, GR__KHASP(__VA_ARGS__))(PLAIN, __VA_ARGS__)
#define GR_KERNEL_SYNC(...) GR__KCAT(GR__KC_, GR__KHASP(__VA_ARGS__))(SYNC, __VA_ARGS__)
#define GR_KERNEL_BLOCK(...) GR__KCAT(GR__KC_, GR__KHASP(__VA_ARGS__))(BLOCK, __VA_ARGS__)
#define GR__KC_0(mode, name) GR__KDEF_##mode(name, (), (), (), 0, (0))
#define GR__KC_P(mode, name, ...)                                                                      \
    GR__KDEF_##mode(name, (, GR__KMAP(GR__KPARAM, __VA_ARGS__)), (, GR__KMAP(GR__KNAME, __VA_ARGS__)), \
                    (, GR__KMAP(GR__KUNPACK, __VA_ARGS__)), GR__KNARGS(__VA_ARGS__),                   \
                    (GR__KMAP(GR__KSIZE, __VA_ARGS__)))

/* The registration function: grKernelCreate with the parameter sizes
 * ('sizes': the parenthesised initialiser; (0) without parameters), then
 * 'then' (a statement), then grKernelSetImage when the build embedded a
 * GPU image. */
#define GR__KREG(name, np, sizes, then)                                                          \
    GR__KEXTC grError_t gr_kernel_create_##name(grKernel_t *k);                                  \
    GR__KEXTC grError_t gr_kernel_create_##name(grKernel_t *k)                                   \
    {                                                                                            \
        static const size_t gr_ksizes_[] = {GR__KSTRIP(sizes)};                                  \
        grError_t err = grKernelCreate(k, name##_cpu, #name, np, gr_ksizes_);                    \
        if (err != grSuccess)                                                                    \
            return err;                                                                          \
        then;                                                                                    \
        if (GR_KERNEL_HAS_IMAGE && (err = grKernelSetImage(*k, GR__KIMAGE, #name)) != grSuccess) \
            (void)grKernelDestroy(*k);                                                           \
        return err;                                                                              \
    }

#define GR__KUNUSED __attribute__((unused))

/* GR_KERNEL: the per-block CPU function unpacks the parameters once per
 * block into parameters of name##_gr_block, and copies the context there:
 * locals that the threads' stores cannot alias, so that the compiler
 * keeps them in registers across the loop over the threads instead of
 * reloading them after every store (a store of a float could otherwise be
 * a float parameter's, a store of a byte anything). The hidden thread
 * handle is a null pointer the inlined body never reads. */
#define GR__KDEF_PLAIN(name, plist, nlist, ulist, np, sizes)                                              \
    static void name##_gr_thread(const grKernelCtx *gr_kctx_, GR__KPLAIN_T *gr_kthr_, unsigned gr_ktx_,   \
                                 unsigned gr_kty_, unsigned gr_ktz_ GR__KSTRIP(plist));                   \
    static inline void name##_gr_block(const grKernelCtx *gr_kctx_in_ GR__KSTRIP(plist))                  \
    {                                                                                                     \
        const grKernelCtx gr_kctx_ = *gr_kctx_in_;                                                        \
        GR_FOR_THREADS(&gr_kctx_, gr_tx_, gr_ty_, gr_tz_)                                                 \
        name##_gr_thread(&gr_kctx_, (GR__KPLAIN_T *)0, gr_tx_, gr_ty_, gr_tz_ GR__KSTRIP(nlist));         \
    }                                                                                                     \
    static void name##_cpu(const grKernelCtx *gr_kctx_, void **gr_kargs_)                                 \
    {                                                                                                     \
        (void)gr_kargs_;                                                                                  \
        name##_gr_block(gr_kctx_ GR__KSTRIP(ulist));                                                      \
    }                                                                                                     \
    GR__KREG(name, np, sizes, (void)0)                                                                    \
    static inline void name##_gr_thread(const grKernelCtx *gr_kctx_ GR__KUNUSED,                          \
                                        GR__KPLAIN_T *gr_kthr_ GR__KUNUSED, unsigned gr_ktx_ GR__KUNUSED, \
                                        unsigned gr_kty_ GR__KUNUSED,                                     \
                                        unsigned gr_ktz_ GR__KUNUSED GR__KSTRIP(plist))

/* GR_KERNEL_SYNC: the per-block CPU function hands the block to the
 * runtime, which runs name##_gr_fiber once per thread, each on a fiber;
 * each unpacks the parameters itself. */
#define GR__KDEF_SYNC(name, plist, nlist, ulist, np, sizes)                                               \
    static void name##_gr_thread(const grKernelCtx *gr_kctx_, grKernelThread *gr_kthr_, unsigned gr_ktx_, \
                                 unsigned gr_kty_, unsigned gr_ktz_ GR__KSTRIP(plist));                   \
    static void name##_gr_fiber(grKernelThread *gr_kthr_, const grKernelCtx *gr_kctx_, void **gr_kargs_,  \
                                unsigned gr_tx_, unsigned gr_ty_, unsigned gr_tz_)                        \
    {                                                                                                     \
        (void)gr_kargs_;                                                                                  \
        name##_gr_thread(gr_kctx_, gr_kthr_, gr_tx_, gr_ty_, gr_tz_ GR__KSTRIP(ulist));                   \
    }                                                                                                     \
    static grKernelInfo name##_gr_info = {#name, 0};                                                      \
    static void name##_cpu(const grKernelCtx *gr_kctx_, void **gr_kargs_)                                 \
    {                                                                                                     \
        grKernelBlockRunThreads(&name##_gr_info, gr_kctx_, gr_kargs_, name##_gr_fiber);                   \
    }                                                                                                     \
    GR__KREG(name, np, sizes, (void)grKernelAttachInfo(*k, &name##_gr_info))                              \
    static void name##_gr_thread(const grKernelCtx *gr_kctx_ GR__KUNUSED,                                 \
                                 grKernelThread *gr_kthr_ GR__KUNUSED, unsigned gr_ktx_ GR__KUNUSED,      \
                                 unsigned gr_kty_ GR__KUNUSED,                                            \
                                 unsigned gr_ktz_ GR__KUNUSED GR__KSTRIP(plist))

/* GR_KERNEL_BLOCK: the body runs once per block, its GR_THREADS phases
 * loops over the block's threads, so that a barrier is the end of a loop
 * and costs nothing. As for GR_KERNEL, the parameters and the context
 * are the per-block function's locals; the hidden thread handle's type
 * makes gr_sync_threads and the warp operations compile errors. */
#define GR__KDEF_BLOCK(name, plist, nlist, ulist, np, sizes)                                           \
    static void name##_gr_body(const grKernelCtx *gr_kctx_, GR__KPLAIN_T *gr_kthr_ GR__KSTRIP(plist)); \
    static void name##_cpu(const grKernelCtx *gr_kctx_in_, void **gr_kargs_)                           \
    {                                                                                                  \
        const grKernelCtx gr_kctx_ = *gr_kctx_in_;                                                     \
        (void)gr_kargs_;                                                                               \
        name##_gr_body(&gr_kctx_, (GR__KPLAIN_T *)0 GR__KSTRIP(ulist));                                \
    }                                                                                                  \
    GR__KREG(name, np, sizes, (void)0)                                                                 \
    static inline void name##_gr_body(const grKernelCtx *gr_kctx_ GR__KUNUSED,                         \
                                      GR__KPLAIN_T *gr_kthr_ GR__KUNUSED GR__KSTRIP(plist))

/* A phase of a GR_KERNEL_BLOCK body: the statement for each thread of the
 * block in turn, t its linear index (CUDA's order, x fastest); every
 * thread finishes the phase before the next phase starts, as after
 * gr_sync_threads. _XY: blocks of blockDim.z 1, x fastest. */
#define GR_THREADS(t) \
    for (unsigned t = 0, gr_kn_ = gr_block_dim_x() * gr_block_dim_y() * gr_block_dim_z(); t < gr_kn_; t++)
#define GR_THREADS_XY(tx, ty)                          \
    for (unsigned ty = 0; ty < gr_block_dim_y(); ty++) \
        for (unsigned tx = 0; tx < gr_block_dim_x(); tx++)

/* The image graphrt_add_cuda_kernels embedded for this file, if any:
 * GR_KERNEL_HAS_IMAGE is 1 then, else 0. */
#ifdef GR_KERNEL_IMAGE
GR__KEXTC extern const unsigned char GR_KERNEL_IMAGE[];
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

/* Static shared memory: the worker's own copy, since a worker runs one
 * block at a time (its threads included). Not zeroed per block, as on a
 * GPU. Dynamic: the launch's sharedMemBytes, 16-aligned. */
#if defined(__SANITIZE_ADDRESS__)
#define GR__KASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GR__KASAN 1
#endif
#endif
#ifndef GR__KASAN
#define GR_SHARED(T, ...) static _Thread_local T GR__KSHDECL(__VA_ARGS__)
#else
/* ASan builds: ASan puts no redzones around thread-local storage, so
 * GR_SHARED puts its own on both sides of the array (two thread-local
 * arrays declared around it: compilers lay a function's thread-local
 * statics out in declaration order or in its reverse, so one is below and
 * one above either way) and poisons them, from the array's last byte on,
 * each time a thread passes the declaration: an access past either end
 * of a shared array is reported as use-after-poison at the kernel's line.
 * The redzones are 64-aligned, so the array starts right after the lower
 * one whatever alignment the compiler gives it; its size and alignment
 * come from a struct of the same declarator (its name is not known to
 * the macro). Where the layout is not the expected one, nothing is
 * poisoned. */
GR__KEXTC void __asan_poison_memory_region(void const volatile *addr, size_t size);
#define GR__KRZ 64
static inline int gr__kshared_guard(unsigned char *a, unsigned char *b, size_t size, size_t align)
{
    unsigned char *lo = a < b ? a : b, *hi = a < b ? b : a;
    unsigned char *arr = (unsigned char *)(((size_t)(lo + GR__KRZ) + align - 1) & ~(align - 1));
    if (arr + size > hi || hi - (arr + size) >= (long)(GR__KRZ > align ? GR__KRZ : align))
        return 0;
    __asan_poison_memory_region(lo, (size_t)(arr - lo));
    __asan_poison_memory_region(arr + size, (size_t)(hi + GR__KRZ - (arr + size)));
    return 1;
}
#define GR_SHARED(T, ...)                                                               \
    static _Thread_local unsigned char GR__KCAT(gr_krza_, __LINE__)[GR__KRZ]            \
        __attribute__((aligned(GR__KRZ)));                                              \
    static _Thread_local T GR__KSHDECL(__VA_ARGS__);                                    \
    static _Thread_local unsigned char GR__KCAT(gr_krzb_, __LINE__)[GR__KRZ]            \
        __attribute__((aligned(GR__KRZ)));                                              \
    __attribute__((unused)) const int GR__KCAT(gr_kshg_, __LINE__) = gr__kshared_guard( \
        GR__KCAT(gr_krza_, __LINE__), GR__KCAT(gr_krzb_, __LINE__),                     \
        sizeof(struct { T GR__KSHDECL(__VA_ARGS__); }), _Alignof(struct { T GR__KSHDECL(__VA_ARGS__); }))
#endif
#define GR_SHARED_DYNAMIC(T, name) T *const name = (T *)gr_kctx_->sharedMem

/* The calling thread's handle, in GR_KERNEL_SYNC bodies only: elsewhere
 * the selector's type (GR__KPLAIN_T) matches nothing, a compile error
 * that names the fix. */
#define GR__KFIB() _Generic((gr_kthr_), grKernelThread * : (gr_kthr_))

/* Block barriers: every thread of the block reaches the call before any
 * passes it; _count returns how many threads passed p != 0, _and whether
 * all did, _or whether any did. */
#define gr_sync_threads() ((void)grKernelThreadSync(GR__KFIB(), 0, __LINE__))
#define gr_sync_threads_count(p) grKernelThreadSync(GR__KFIB(), (p) != 0, __LINE__)
#define gr_sync_threads_and(p)                             \
    (grKernelThreadSync(GR__KFIB(), (p) != 0, __LINE__) == \
     (int)(gr_block_dim_x() * gr_block_dim_y() * gr_block_dim_z()))
#define gr_sync_threads_or(p) (grKernelThreadSync(GR__KFIB(), (p) != 0, __LINE__) != 0)

/* The grid barrier (cooperative_groups::this_grid().sync()): every thread
 * of every block of the grid reaches the call before any passes it, and
 * the writes before it are visible to every thread after it. Only in a
 * cooperative launch (grLaunchCooperativeKernel, or the launch attribute
 * grLaunchAttributeCooperative): elsewhere the block faults. */
#define gr_grid_sync() grKernelThreadGridSync(GR__KFIB(), __LINE__)

/* Warp operations (warps of 32 threads, lanes in linear thread order).
 * 'mask' names the lanes taking part, the caller included; each waits
 * for the live lanes it names to make a call with that same mask.
 * Shuffles take int, unsigned, long, unsigned long, long long, unsigned
 * long long, float or double and an optional width (a power of two up to
 * 32, default 32), as CUDA's __shfl*_sync. */
#define GR__KW_IDX 0
#define GR__KW_UP 1
#define GR__KW_DOWN 2
#define GR__KW_XOR 3
#define GR__KW_BALLOT 4
#define GR__KW_ALL 5
#define GR__KSHFL(op, mask, v, a, w, ...)       \
    _Generic((v), int                           \
             : gr__kshfl_i, unsigned            \
             : gr__kshfl_u, long                \
             : gr__kshfl_l, unsigned long       \
             : gr__kshfl_ul, long long          \
             : gr__kshfl_ll, unsigned long long \
             : gr__kshfl_ull, float             \
             : gr__kshfl_f, double              \
             : gr__kshfl_d)(GR__KFIB(), op, (mask), (v), (a), (w))
#define gr_shfl_sync(mask, v, ...) GR__KSHFL(GR__KW_IDX, mask, v, __VA_ARGS__, 32, ~)
#define gr_shfl_up_sync(mask, v, ...) GR__KSHFL(GR__KW_UP, mask, v, __VA_ARGS__, 32, ~)
#define gr_shfl_down_sync(mask, v, ...) GR__KSHFL(GR__KW_DOWN, mask, v, __VA_ARGS__, 32, ~)
#define gr_shfl_xor_sync(mask, v, ...) GR__KSHFL(GR__KW_XOR, mask, v, __VA_ARGS__, 32, ~)
#define gr_ballot_sync(mask, p) \
    ((unsigned)grKernelThreadWarpOp(GR__KFIB(), GR__KW_BALLOT, (mask), (p) != 0, 0, 32))
#define gr_any_sync(mask, p) (gr_ballot_sync(mask, p) != 0)
#define gr_all_sync(mask, p) ((int)grKernelThreadWarpOp(GR__KFIB(), GR__KW_ALL, (mask), (p) != 0, 0, 32))
#define gr_syncwarp(mask) ((void)grKernelThreadWarpOp(GR__KFIB(), GR__KW_BALLOT, (mask), 0, 0, 32))
/* The lanes of the caller's warp that have not returned. */
#define gr_activemask() grKernelThreadActiveMask(GR__KFIB())

#define GR__KSHFL_INT(sfx, T, U)                                                              \
    static inline T gr__kshfl_##sfx(grKernelThread *t, int op, unsigned m, T v, int a, int w) \
    {                                                                                         \
        return (T)(U)grKernelThreadWarpOp(t, op, m, (unsigned long long)(U)v, a, w);          \
    }
GR__KSHFL_INT(i, int, unsigned)
GR__KSHFL_INT(u, unsigned, unsigned)
GR__KSHFL_INT(l, long, unsigned long)
GR__KSHFL_INT(ul, unsigned long, unsigned long)
GR__KSHFL_INT(ll, long long, unsigned long long)
GR__KSHFL_INT(ull, unsigned long long, unsigned long long)
static inline float gr__kshfl_f(grKernelThread *t, int op, unsigned m, float v, int a, int w)
{
    unsigned u;
    __builtin_memcpy(&u, &v, sizeof u);
    u = (unsigned)grKernelThreadWarpOp(t, op, m, u, a, w);
    __builtin_memcpy(&v, &u, sizeof u);
    return v;
}
static inline double gr__kshfl_d(grKernelThread *t, int op, unsigned m, double v, int a, int w)
{
    unsigned long long u;
    __builtin_memcpy(&u, &v, sizeof u);
    u = grKernelThreadWarpOp(t, op, m, u, a, w);
    __builtin_memcpy(&v, &u, sizeof u);
    return v;
}

/* Atomics: CUDA's operations on CUDA's types, relaxed as CUDA's (order
 * with gr_threadfence), each returning the old value. Blocks run on
 * several workers at once, so they are atomic on the CPU too. */
#define GR__KATOM_FETCH(nm, T, fn)            \
    static inline T gr__katom_##nm(T *p, T v) \
    {                                         \
        return fn(p, v, __ATOMIC_RELAXED);    \
    }
#define GR__KATOM_LOOP(nm, T, expr)                                                                \
    static inline T gr__katom_##nm(T *p, T v)                                                      \
    {                                                                                              \
        T old, want;                                                                               \
        __atomic_load(p, &old, __ATOMIC_RELAXED);                                                  \
        do                                                                                         \
            want = (expr);                                                                         \
        while (!__atomic_compare_exchange(p, &old, &want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
        return old;                                                                                \
    }
#define GR__KATOM_CAS(nm, T)                                                            \
    static inline T gr__katom_##nm(T *p, T cmp, T v)                                    \
    {                                                                                   \
        __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return cmp;                                                                     \
    }
#define GR__KATOM_EXCH(nm, T)                             \
    static inline T gr__katom_##nm(T *p, T v)             \
    {                                                     \
        T old;                                            \
        __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED); \
        return old;                                       \
    }
#define GR__KATOM_INTS(X) X(i, int) X(u, unsigned) X(ull, unsigned long long)
#define GR__KATOM_INT_OPS(s, T)                     \
    GR__KATOM_FETCH(add_##s, T, __atomic_fetch_add) \
    GR__KATOM_FETCH(sub_##s, T, __atomic_fetch_sub) \
    GR__KATOM_FETCH(and_##s, T, __atomic_fetch_and) \
    GR__KATOM_FETCH(or_##s, T, __atomic_fetch_or)   \
    GR__KATOM_FETCH(xor_##s, T, __atomic_fetch_xor) \
    GR__KATOM_LOOP(min_##s, T, v < old ? v : old)   \
    GR__KATOM_LOOP(max_##s, T, v > old ? v : old)   \
    GR__KATOM_EXCH(exch_##s, T)                     \
    GR__KATOM_CAS(cas_##s, T)
GR__KATOM_INTS(GR__KATOM_INT_OPS)
GR__KATOM_LOOP(min_ll, long long, v < old ? v : old)
GR__KATOM_LOOP(max_ll, long long, v > old ? v : old)
GR__KATOM_LOOP(add_f, float, old + v)
GR__KATOM_LOOP(add_d, double, old + v)
GR__KATOM_EXCH(exch_f, float)
GR__KATOM_LOOP(inc_u, unsigned, old >= v ? 0u : old + 1u)
GR__KATOM_LOOP(dec_u, unsigned, old == 0u || old > v ? v : old - 1u)

#define GR__KATOM_GEN(op, p, ...) \
    _Generic((p),                                                                      \
        int *: gr__katom_##op##_i,                                                     \
        unsigned *: gr__katom_##op##_u,                                                \
        unsigned long long *: gr__katom_##op##_ull)((p), __VA_ARGS__)
/* add: int, unsigned, unsigned long long, float, double. */
#define gr_atomic_add(p, v) \
    _Generic((p),                                             \
        int *: gr__katom_add_i,                               \
        unsigned *: gr__katom_add_u,                          \
        unsigned long long *: gr__katom_add_ull,              \
        float *: gr__katom_add_f,                             \
        double *: gr__katom_add_d)((p), (v))
/* sub: int, unsigned. */
#define gr_atomic_sub(p, v) _Generic((p), int * : gr__katom_sub_i, unsigned * : gr__katom_sub_u)((p), (v))
/* exch: int, unsigned, unsigned long long, float. */
#define gr_atomic_exch(p, v) \
    _Generic((p),                                             \
        int *: gr__katom_exch_i,                              \
        unsigned *: gr__katom_exch_u,                         \
        unsigned long long *: gr__katom_exch_ull,             \
        float *: gr__katom_exch_f)((p), (v))
/* min, max: int, unsigned, unsigned long long, long long. */
#define gr_atomic_min(p, v) \
    _Generic((p),                                             \
        int *: gr__katom_min_i,                               \
        unsigned *: gr__katom_min_u,                          \
        unsigned long long *: gr__katom_min_ull,              \
        long long *: gr__katom_min_ll)((p), (v))
#define gr_atomic_max(p, v) \
    _Generic((p),                                             \
        int *: gr__katom_max_i,                               \
        unsigned *: gr__katom_max_u,                          \
        unsigned long long *: gr__katom_max_ull,              \
        long long *: gr__katom_max_ll)((p), (v))
/* inc: ((old >= v) ? 0 : old + 1); dec: ((old == 0 || old > v) ? v :
 * old - 1); unsigned only, as CUDA's. */
#define gr_atomic_inc(p, v) gr__katom_inc_u((p), (v))
#define gr_atomic_dec(p, v) gr__katom_dec_u((p), (v))
/* cas: *p = (*p == c ? v : *p); int, unsigned, unsigned long long. */
#define gr_atomic_cas(p, c, v) GR__KATOM_GEN(cas, p, (c), (v))
/* and, or, xor: int, unsigned, unsigned long long. */
#define gr_atomic_and(p, v) GR__KATOM_GEN(and, p, (v))
#define gr_atomic_or(p, v) GR__KATOM_GEN(or, p, (v))
#define gr_atomic_xor(p, v) GR__KATOM_GEN(xor, p, (v))
/* Orders the caller's memory accesses for every thread (CUDA's
 * __threadfence, __threadfence_system), or for its block's threads,
 * which run on one worker. */
#define gr_threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gr_threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gr_threadfence_block() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Programmatic dependent launch (CUDA's
 * cudaTriggerProgrammaticLaunchCompletion and
 * cudaGridDependencySynchronize). On the CPU a kernel that depends on
 * another programmatically (a programmatic edge, or a launch after one
 * with grLaunchAttributeProgrammaticStreamSerialization) starts after
 * that kernel has completed and its writes are visible: the latest start
 * CUDA allows, so both are no-ops here. */
#define gr_trigger_programmatic_launch_completion() ((void)0)
#define gr_grid_dependency_synchronize() ((void)0)

/* The older names: adds v to *p atomically; returns the old value. */
#define gr_atomic_add_u32(p, v) __atomic_fetch_add((unsigned *)(p), (unsigned)(v), __ATOMIC_RELAXED)
static inline float gr_atomic_add_f32(float *p, float v)
{
    return gr__katom_add_f(p, v);
}

/* Sets a conditional handle's value from a kernel (grGraphSetConditional:
 * docs/conditional.md); a handle that is not live is ignored, as the
 * device function has no result. */
#define gr_set_conditional(h, v) ((void)grGraphSetConditional((h), (unsigned)(v)))

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
#ifdef __cplusplus
#define GR_KERNEL_DECLARE(name) extern "C" grError_t gr_kernel_create_##name(grKernel_t *k)
#else
#define GR_KERNEL_DECLARE(name) grError_t gr_kernel_create_##name(grKernel_t *k)
#endif
#define GR_KERNEL_CREATE(kp, name) gr_kernel_create_##name(kp)

/* ---------------------------------------- device-updatable kernel nodes */
/*
 * A kernel of an executable changes the executable's device-updatable
 * kernel nodes (grLaunchAttributeDeviceUpdatableKernelNode) through their
 * grGraphDeviceNode_t handles, passed to it as parameters:
 *
 *     GR_KERNEL(step, (grGraphDeviceNode_t, next), (int, v))
 *     {
 *         if (gr_global_idx_x() == 0) {
 *             gr_graph_kernel_node_set_param(next, 0, &v, sizeof v);
 *             gr_graph_kernel_node_set_enabled(next, v > 0);
 *         }
 *     }
 *
 * On the CPU each is graphrt's host function of the same name
 * (grGraphKernelNodeSetParam ... in graphrt/exec.h), whose result the
 * macro drops as CUDA's device functions' callers usually do; the change
 * applies from the executable's next launch on (docs/exec.md). Under nvcc
 * (CUDA 12.4 or later) they are CUDA's device functions, given the
 * driver's devNode that grGraphKernelNodeGetAttribute returns for an
 * executable on a GPU (the driver resolves them when it loads the image,
 * which graphrt_add_cuda_kernels builds as it builds any other).
 *
 * gr_get_current_graph_exec() is CUDA's cudaGetCurrentGraphExec(): the
 * device graph whose launch runs the calling kernel, NULL when the kernel
 * is not a node of a device graph. graphrt launches every graph from the
 * host (it refuses grGraphInstantiateFlagDeviceLaunch), so the answer is
 * NULL on every device, as CUDA's is for a host-launched graph: the same
 * source takes the same branch on the CPU and on a GPU. It never fails
 * and costs nothing. A plain kernel (grKernelFn) that wants the
 * executable whose launch runs it reads grKernelCtx.exec, graphrt's own
 * (graphrt/kernel.h). Host nodes are not kernels and have no form of it.
 * Under nvcc (CUDA 12.0 or later) it is CUDA's device function, its value
 * (the driver's cudaGraphExec_t) in a grGraphExec_t.
 */
#if defined(__CUDACC__)
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000
/* graphrt.h's type (the same typedef), so that one source stores the
 * value in the same variables on both sides. */
typedef struct grGraphExec_st *grGraphExec_t;
#define gr_get_current_graph_exec() ((grGraphExec_t)cudaGetCurrentGraphExec())
#endif
#else
#define gr_get_current_graph_exec() ((grGraphExec_t)NULL)
#endif
#if defined(__CUDACC__)
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12040
/* graphrt.h's type (the same typedef): a handle of a CUDA executable
 * travels in it as the driver's cudaGraphDeviceNode_t. */
typedef struct grGraphDeviceUpdatableNode_st *grGraphDeviceNode_t;
#define gr_graph_kernel_node_set_param(n, off, v, size) \
    cudaGraphKernelNodeSetParam((cudaGraphDeviceNode_t)(n), (size_t)(off), (v), (size_t)(size))
#define gr_graph_kernel_node_set_enabled(n, e) \
    cudaGraphKernelNodeSetEnabled((cudaGraphDeviceNode_t)(n), (e) != 0)
#define gr_graph_kernel_node_set_grid_dim(n, x, y, z) \
    cudaGraphKernelNodeSetGridDim((cudaGraphDeviceNode_t)(n), dim3((x), (y), (z)))
#endif
#else
#define gr_graph_kernel_node_set_param(n, off, v, size) \
    ((void)grGraphKernelNodeSetParam((n), (size_t)(off), (v), (size_t)(size)))
#define gr_graph_kernel_node_set_enabled(n, e) ((void)grGraphKernelNodeSetEnabled((n), (e) != 0))
#define gr_graph_kernel_node_set_grid_dim(n, x, y, z) \
    ((void)grGraphKernelNodeSetGridDim((n), (grDim3){(unsigned)(x), (unsigned)(y), (unsigned)(z)}))
#define gr_graph_kernel_node_updates_apply(u, count) \
    ((void)grGraphKernelNodeUpdatesApply((u), (size_t)(count)))
#endif

#endif /* GRAPHRT_KERNEL_H */
