/*
 * test-gpu.c - graphrt on an NVIDIA GPU (devices 1..N): properties,
 * memory with bounds checks, pinned and asynchronous copies, streams,
 * events, host functions, kernels from an embedded image and without one,
 * stream-ordered allocation, capture on a GPU stream, CUDA's errors in the
 * details. Every test first asks for a GPU and is skipped, saying why,
 * where there is none (no driver, no device, GRAPHRT_CUDA=0).
 */
#include "testlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* From tests/kernels/gpu_kernels.c (GR_KERNEL). */
#include "graphrt_kernel.h"
GR_KERNEL_DECLARE(gr_test_saxpy);
GR_KERNEL_DECLARE(gr_test_count);
int gr_test_kernels_have_image(void);

static void cpu_block_noop(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

GR_TEST(gpu_properties_describe_a_gpu_and_match_the_attributes)
{
    grDeviceProp p;
    int v = 0;
    tl_use_gpu_or_skip();
    CHECK_OK(grGetDeviceProperties(&p, 1));
    CHECK_EQ(p.isCpu, 0);
    CHECK(p.name[0] != '\0');
    CHECK(p.totalGlobalMem > 0);
    CHECK(p.multiProcessorCount > 0);
    CHECK(p.major >= 5);
    CHECK_EQ(p.warpSize, 32);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrMultiProcessorCount, 1));
    CHECK_EQ(v, p.multiProcessorCount);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrComputeCapabilityMajor, 1));
    CHECK_EQ(v, p.major);
    CHECK_OK(grDeviceGetAttribute(&v, grDevAttrComputeCapabilityMinor, 1));
    CHECK_EQ(v, p.minor);
}

GR_TEST(gpu_malloc_is_bounds_checked_and_freed_once)
{
    void *d = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grMalloc(&d, 1000));
    CHECK(d != NULL);
    CHECK_GR(grErrorInvalidValue, grMemset(d, 0, 1001));
    CHECK_DETAIL_HAS("runs 1 bytes past its end");
    CHECK_OK(grMemset(d, 0, 1000));
    CHECK_OK(grFree(d));
    CHECK_REFUSED(grErrorInvalidValue, grFree, d);
}

GR_TEST(gpu_pinned_copies_go_there_and_back_synchronously)
{
    enum {
        N = 1 << 16
    };
    unsigned char *h = NULL, *back = NULL;
    void *d = NULL, *d2 = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grMallocHost((void **)&h, N));
    CHECK_OK(grMallocHost((void **)&back, N));
    CHECK_OK(grMalloc(&d, N));
    CHECK_OK(grMalloc(&d2, N));
    for (int i = 0; i < N; i++)
        h[i] = (unsigned char)(i * 7 + 3);
    CHECK_OK(grMemcpy(d, h, N, grMemcpyHostToDevice));
    CHECK_OK(grMemcpy(d2, d, N, grMemcpyDeviceToDevice));
    memset(back, 0, N);
    CHECK_OK(grMemcpy(back, d2, N, grMemcpyDeviceToHost));
    CHECK(memcmp(h, back, N) == 0);
    CHECK_OK(grFree(d));
    CHECK_OK(grFree(d2));
    CHECK_OK(grFreeHost(h));
    CHECK_OK(grFreeHost(back));
}

GR_TEST(gpu_async_copies_and_memsets_run_in_stream_order)
{
    enum {
        N = 4096
    };
    unsigned char *h = NULL;
    void *d = NULL;
    grStream_t s;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreateWithFlags(&s, grStreamNonBlocking));
    CHECK_OK(grMallocHost((void **)&h, N));
    CHECK_OK(grMalloc(&d, N));
    CHECK_OK(grMemsetAsync(d, 0x5a, N, s));
    CHECK_OK(grMemsetAsync((char *)d + 100, 0x11, 10, s));
    CHECK_OK(grMemcpyAsync(h, d, N, grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamQuery(s));
    CHECK_EQ(h[0], 0x5a);
    CHECK_EQ(h[100], 0x11);
    CHECK_EQ(h[109], 0x11);
    CHECK_EQ(h[110], 0x5a);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(gpu_events_time_the_work_between_them)
{
    enum {
        N = 1 << 24
    };
    void *d = NULL;
    grStream_t s;
    grEvent_t a, b, untimed;
    float ms = -1;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grEventCreate(&a));
    CHECK_OK(grEventCreate(&b));
    CHECK_OK(grEventCreateWithFlags(&untimed, grEventDisableTiming));
    CHECK_OK(grMalloc(&d, N));
    CHECK_OK(grEventRecord(a, s));
    CHECK_OK(grMemsetAsync(d, 1, N, s));
    CHECK_OK(grEventRecord(b, s));
    CHECK_OK(grEventRecord(untimed, s));
    CHECK_OK(grEventSynchronize(b));
    CHECK_OK(grEventQuery(b));
    CHECK_OK(grEventElapsedTime(&ms, a, b));
    CHECK(ms >= 0.0f);
    CHECK_GR(grErrorInvalidResourceHandle, grEventElapsedTime(&ms, a, untimed));
    if (!gr_test_fake_device())
        CHECK_DETAIL_HAS("CUDA_ERROR_INVALID_HANDLE");
    CHECK_OK(grEventDestroy(a));
    CHECK_OK(grEventDestroy(b));
    CHECK_OK(grEventDestroy(untimed));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
}

typedef struct seen {
    const unsigned char *h;
    int value;
    atomic_int ran;
} seen;

static void read_first_byte(void *p)
{
    seen *w = p;
    w->value = w->h[0];
    atomic_store(&w->ran, 1);
}

GR_TEST(gpu_host_function_runs_after_the_work_before_it)
{
    unsigned char *h = NULL;
    void *d = NULL;
    grStream_t s;
    seen w = {NULL, -1, 0};
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocHost((void **)&h, 64));
    CHECK_OK(grMalloc(&d, 64));
    h[0] = 0;
    w.h = h;
    CHECK_OK(grMemsetAsync(d, 0x77, 64, s));
    CHECK_OK(grMemcpyAsync(h, d, 64, grMemcpyDeviceToHost, s));
    CHECK_OK(grLaunchHostFunc(s, read_first_byte, &w));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&w.ran), 1);
    CHECK_EQ(w.value, 0x77);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(gpu_kernel_from_the_embedded_image_computes_what_the_cpu_does)
{
    enum {
        N = 10000
    };
    float *hx = NULL, *hy = NULL, *cy = NULL, *sum = NULL;
    void *dx = NULL, *dy = NULL, *dcount = NULL, *dsum = NULL;
    unsigned n = N, count = 0;
    float a = 2.5f, fsum = 0;
    grKernel_t saxpy, cnt;
    grStream_t s;
    tl_use_gpu_or_skip();
    if (!gr_test_kernels_have_image())
        GR_TEST_SKIP("built without a CUDA compiler: tests/kernels/gpu_kernels.c has no GPU image");
    CHECK_OK(GR_KERNEL_CREATE(&saxpy, gr_test_saxpy));
    CHECK_OK(GR_KERNEL_CREATE(&cnt, gr_test_count));
    CHECK_OK(grMallocHost((void **)&hx, N * sizeof(float)));
    CHECK_OK(grMallocHost((void **)&hy, N * sizeof(float)));
    CHECK_OK(grMallocHost((void **)&sum, sizeof(float)));
    cy = malloc(N * sizeof(float));
    CHECK(cy != NULL);
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = cy[i] = 1.0f;
    }
    /* The CPU's answer, from the same source. */
    CHECK_OK(grSetDevice(0));
    {
        void *args[] = {&a, &hx, &cy, &n};
        CHECK_OK(grLaunchKernel(saxpy, GR_DIM3((N + 255) / 256, 1, 1), GR_DIM3(256, 1, 1), args, 0, NULL));
        CHECK_OK(grDeviceSynchronize());
    }
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc(&dx, N * sizeof(float)));
    CHECK_OK(grMalloc(&dy, N * sizeof(float)));
    CHECK_OK(grMalloc(&dcount, sizeof(unsigned)));
    CHECK_OK(grMalloc(&dsum, sizeof(float)));
    CHECK_OK(grMemcpyAsync(dx, hx, N * sizeof(float), grMemcpyHostToDevice, s));
    CHECK_OK(grMemcpyAsync(dy, hy, N * sizeof(float), grMemcpyHostToDevice, s));
    CHECK_OK(grMemsetAsync(dcount, 0, sizeof(unsigned), s));
    CHECK_OK(grMemsetAsync(dsum, 0, sizeof(float), s));
    {
        void *args[] = {&a, &dx, &dy, &n};
        CHECK_OK(grLaunchKernel(saxpy, GR_DIM3((N + 255) / 256, 1, 1), GR_DIM3(256, 1, 1), args, 0, s));
        void *cargs[] = {&dcount, &dsum, &n};
        CHECK_OK(grLaunchKernel(cnt, GR_DIM3((N + 127) / 128, 1, 1), GR_DIM3(128, 1, 1), cargs, 0, s));
    }
    CHECK_OK(grMemcpyAsync(hy, dy, N * sizeof(float), grMemcpyDeviceToHost, s));
    CHECK_OK(grMemcpyAsync(&count, dcount, sizeof count, grMemcpyDeviceToHost, s));
    CHECK_OK(grMemcpyAsync(sum, dsum, sizeof(float), grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    fsum = *sum;
    for (int i = 0; i < N; i++)
        CHECK(hy[i] == cy[i]);
    CHECK_EQ(count, N);
    CHECK(fsum == 0.5f * N);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(saxpy));
    CHECK_OK(grKernelDestroy(cnt));
    CHECK_OK(grFree(dx));
    CHECK_OK(grFree(dy));
    CHECK_OK(grFree(dcount));
    CHECK_OK(grFree(dsum));
    CHECK_OK(grFreeHost(hx));
    CHECK_OK(grFreeHost(hy));
    CHECK_OK(grFreeHost(sum));
    free(cy);
}

/* A PTX image written for this test (ISA 7.0, sm_80 and later by JIT):
 * gr_ptx_fill(unsigned *p, unsigned v, unsigned n) sets p[i] = v + i for
 * i < n, i the global thread index. */
static const char fill_ptx[] = ".version 7.0\n"
                               ".target sm_80\n"
                               ".address_size 64\n"
                               ".visible .entry gr_ptx_fill(.param .u64 p, .param .u32 v, .param .u32 n)\n"
                               "{\n"
                               "  .reg .pred %p<2>;\n"
                               "  .reg .b32 %r<8>;\n"
                               "  .reg .b64 %rd<5>;\n"
                               "  ld.param.u64 %rd1, [p];\n"
                               "  ld.param.u32 %r2, [v];\n"
                               "  ld.param.u32 %r3, [n];\n"
                               "  mov.u32 %r4, %ctaid.x;\n"
                               "  mov.u32 %r5, %ntid.x;\n"
                               "  mov.u32 %r6, %tid.x;\n"
                               "  mad.lo.s32 %r1, %r4, %r5, %r6;\n"
                               "  setp.ge.u32 %p1, %r1, %r3;\n"
                               "  @%p1 bra DONE;\n"
                               "  cvta.to.global.u64 %rd2, %rd1;\n"
                               "  mul.wide.u32 %rd3, %r1, 4;\n"
                               "  add.s64 %rd4, %rd2, %rd3;\n"
                               "  add.s32 %r7, %r1, %r2;\n"
                               "  st.global.u32 [%rd4], %r7;\n"
                               "DONE:\n"
                               "  ret;\n"
                               "}\n";

static void fill_cpu(const grKernelCtx *ctx, void **args)
{
    unsigned *p = *(unsigned **)args[0], v = *(unsigned *)args[1], n = *(unsigned *)args[2];
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        size_t i = GR_GLOBAL_X(ctx, tx);
        (void)ty;
        (void)tz;
        if (i < n)
            p[i] = v + (unsigned)i;
    }
}

GR_TEST(gpu_kernel_from_a_ptx_image_runs_on_the_gpu_and_the_cpu)
{
    enum {
        N = 1000
    };
    static const size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    unsigned *h = NULL, *c = NULL, v = 40, n = N;
    void *d = NULL;
    grKernel_t k;
    grStream_t s;
    tl_use_gpu_or_skip();
    CHECK_OK(grKernelCreate(&k, fill_cpu, "ptx_fill", 3, sizes));
    CHECK_OK(grKernelSetImage(k, fill_ptx, "gr_ptx_fill"));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc(&d, N * sizeof(unsigned)));
    CHECK_OK(grMallocHost((void **)&h, N * sizeof(unsigned)));
    c = calloc(N, sizeof(unsigned));
    CHECK(c != NULL);
    void *args[] = {&d, &v, &n};
    CHECK_OK(grLaunchKernel(k, GR_DIM3((N + 127) / 128, 1, 1), GR_DIM3(128, 1, 1), args, 0, s));
    CHECK_OK(grMemcpyAsync(h, d, N * sizeof(unsigned), grMemcpyDeviceToHost, s));
    CHECK_OK(grStreamSynchronize(s));
    /* The same kernel object on the CPU runs its CPU function. */
    CHECK_OK(grSetDevice(0));
    void *cargs[] = {&c, &v, &n};
    CHECK_OK(grLaunchKernel(k, GR_DIM3((N + 127) / 128, 1, 1), GR_DIM3(128, 1, 1), cargs, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    for (int i = 0; i < N; i++) {
        CHECK_EQ(h[i], 40 + i);
        CHECK_EQ(c[i], h[i]);
    }
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
    free(c);
}

GR_TEST(gpu_launch_of_a_kernel_without_image_names_the_kernel_and_the_fix)
{
    grKernel_t k;
    grStream_t s;
    tl_use_gpu_or_skip();
    CHECK_OK(grKernelCreate(&k, cpu_block_noop, "cpu_only_kernel", 0, NULL));
    CHECK_OK(grStreamCreate(&s));
    CHECK_GR(grErrorInvalidDeviceFunction, grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s));
    CHECK_DETAIL_HAS("cpu_only_kernel");
    CHECK_DETAIL_HAS("grKernelSetImage");
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_kernel_with_a_bad_image_fails_with_cudas_error_name)
{
    static const char not_an_image[] = "this is not PTX";
    grKernel_t k;
    grStream_t s;
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip(); /* the driver's loader refuses the image */
    CHECK_OK(grKernelCreate(&k, cpu_block_noop, "bad_image_kernel", 0, NULL));
    CHECK_OK(grKernelSetImage(k, not_an_image, "bad_image_kernel"));
    CHECK_GR(grErrorInvalidValue, grKernelSetImage(k, not_an_image, "bad_image_kernel"));
    CHECK_OK(grStreamCreate(&s));
    CHECK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s) != grSuccess);
    CHECK_DETAIL_HAS("grLaunchKernel");
    CHECK_DETAIL_HAS("bad_image_kernel");
    CHECK_DETAIL_HAS("CUDA_ERROR_");
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_out_of_memory_names_the_call_and_cudas_error)
{
    void *d = NULL;
    tl_use_gpu_or_skip();
    CHECK_REFUSED(grErrorMemoryAllocation, grMalloc, &d, (size_t)1 << 52);
    if (!gr_test_fake_device())
        CHECK_DETAIL_HAS("CUDA_ERROR_OUT_OF_MEMORY");
}

GR_TEST(gpu_stream_ordered_allocation_uses_the_devices_pool)
{
    enum {
        N = 1 << 20
    };
    unsigned char *h = NULL;
    void *d = NULL;
    grStream_t s;
    grMemPool_t pool = NULL;
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocHost((void **)&h, N));
    CHECK_OK(grMallocAsync(&d, N, s));
    CHECK_GR(grErrorInvalidValue, grMemsetAsync(d, 0, N + 1, s));
    tl_memset_check_free_async(d, h, N, 0x3c, s);
    /* The CPU's pool on a GPU stream: refused, naming both devices. */
    CHECK_OK(grDeviceGetDefaultMemPool(&pool, 0));
    CHECK_GR(grErrorInvalidValue, grMallocFromPoolAsync(&d, 256, pool, s));
    CHECK_DETAIL_HAS("pool of device 0");
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFreeHost(h));
}

GR_TEST(gpu_default_streams_and_events_are_the_current_devices)
{
    unsigned char *h = NULL;
    void *d = NULL;
    grEvent_t cpu_event, gpu_event;
    grStream_t s;
    CHECK_OK(grEventCreate(&cpu_event)); /* device 0: the CPU */
    tl_use_gpu_or_skip();
    CHECK_OK(grEventCreate(&gpu_event));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMallocHost((void **)&h, 16));
    CHECK_OK(grMalloc(&d, 16));
    CHECK_OK(grMemsetAsync(d, 9, 16, NULL));
    CHECK_OK(grMemcpyAsync(h, d, 16, grMemcpyDeviceToHost, grStreamPerThread));
    CHECK_OK(grStreamSynchronize(grStreamPerThread));
    CHECK_EQ(h[15], 9);
    CHECK_OK(grEventRecord(gpu_event, NULL));
    CHECK_OK(grEventSynchronize(gpu_event));
    CHECK_GR(grErrorInvalidResourceHandle, grEventRecord(cpu_event, s));
    CHECK_DETAIL_HAS("device 0");
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grEventDestroy(cpu_event));
    CHECK_OK(grEventDestroy(gpu_event));
    CHECK_OK(grFree(d));
    CHECK_OK(grFreeHost(h));
}

static void slow_set(void *p)
{
    usleep(50000);
    atomic_store((atomic_int *)p, 1);
}

typedef struct after {
    atomic_int *flag;
    int seen;
} after;

static void read_flag(void *p)
{
    after *a = p;
    a->seen = atomic_load(a->flag);
}

GR_TEST(gpu_stream_waits_for_an_event_of_the_cpu)
{
    atomic_int flag = 0;
    after a = {&flag, -1};
    grStream_t cpu, gpu;
    grEvent_t e;
    CHECK_OK(grStreamCreate(&cpu));
    CHECK_OK(grEventCreate(&e));
    CHECK_OK(grLaunchHostFunc(cpu, slow_set, &flag));
    CHECK_OK(grEventRecord(e, cpu));
    tl_use_gpu_or_skip();
    CHECK_OK(grStreamCreate(&gpu));
    CHECK_OK(grStreamWaitEvent(gpu, e, 0));
    CHECK_OK(grLaunchHostFunc(gpu, read_flag, &a));
    CHECK_OK(grStreamSynchronize(gpu));
    CHECK_EQ(a.seen, 1);
    CHECK_OK(grStreamDestroy(gpu));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grStreamDestroy(cpu));
    CHECK_OK(grEventDestroy(e));
}

/* The node types of a graph, in grGraphGetNodes' order. */
static size_t node_types(grGraph_t g, grGraphNodeType *types, size_t max)
{
    grGraphNode_t nodes[16];
    size_t n = 16;
    CHECK_OK(grGraphGetNodes(g, nodes, &n));
    CHECK(n <= max);
    for (size_t i = 0; i < n; i++)
        CHECK_OK(grGraphNodeGetType(nodes[i], &types[i]));
    return n;
}

/* Captures a memset, a kernel, a host function and a copy on a new stream
 * of the current device, with memory of that device. */
static grGraph_t capture_sequence(grKernel_t k, atomic_int *flag)
{
    grStream_t s;
    grGraph_t g = NULL;
    void *a = NULL, *b = NULL;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grMalloc(&a, 256));
    CHECK_OK(grMalloc(&b, 256));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grMemsetAsync(a, 1, 256, s));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s));
    CHECK_OK(grLaunchHostFunc(s, tl_set_flag, flag));
    CHECK_OK(grMemcpyAsync(b, a, 256, grMemcpyDeviceToDevice, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    return g;
}

GR_TEST(gpu_capture_records_the_graph_the_cpu_records)
{
    grGraphNodeType on_cpu[16], on_gpu[16];
    atomic_int flag = 0;
    grKernel_t k;
    CHECK_OK(grKernelCreate(&k, cpu_block_noop, "captured_kernel", 0, NULL));
    grGraph_t gc = capture_sequence(k, &flag);
    tl_use_gpu_or_skip();
    grGraph_t gg = capture_sequence(k, &flag);
    size_t nc = node_types(gc, on_cpu, 16), ng = node_types(gg, on_gpu, 16);
    CHECK_EQ(nc, 4);
    CHECK_EQ(ng, nc);
    for (size_t i = 0; i < nc; i++)
        CHECK_EQ(on_gpu[i], on_cpu[i]);
    /* Nothing ran: capture records, it does not execute. */
    CHECK_EQ(atomic_load(&flag), 0);
    CHECK_OK(grGraphDestroy(gc));
    CHECK_OK(grGraphDestroy(gg));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_device_reset_frees_that_gpus_allocations_only)
{
    void *cpu = NULL, *gpu = NULL;
    CHECK_OK(grMalloc(&cpu, 64)); /* the CPU's */
    tl_use_gpu_or_skip();
    CHECK_OK(grMalloc(&gpu, 64));
    CHECK_OK(grDeviceReset());
    CHECK_REFUSED(grErrorInvalidValue, grFree, gpu);
    CHECK_OK(grFree(cpu));
    CHECK_OK(grMalloc(&gpu, 64));
    CHECK_OK(grFree(gpu));
}

typedef struct thread_copy {
    unsigned char *h;
    grError_t err;
} thread_copy;

static void *copy_on_per_thread_stream(void *p)
{
    thread_copy *t = p;
    void *d = NULL;
    if ((t->err = grSetDevice(1)) || (t->err = grMalloc(&d, 32)) ||
        (t->err = grMemsetAsync(d, 0x29, 32, grStreamPerThread)) ||
        (t->err = grMemcpyAsync(t->h, d, 32, grMemcpyDeviceToHost, grStreamPerThread)) ||
        (t->err = grStreamSynchronize(grStreamPerThread)))
        return NULL;
    t->err = grFree(d);
    return NULL;
}

GR_TEST(gpu_per_thread_streams_are_each_threads_own_and_go_with_it)
{
    unsigned char *h = NULL;
    pthread_t th[4];
    thread_copy t[4];
    tl_use_gpu_or_skip();
    CHECK_OK(grMallocHost((void **)&h, 4 * 32));
    memset(h, 0, 4 * 32);
    for (int i = 0; i < 4; i++) {
        t[i] = (thread_copy){h + 32 * i, grErrorUnknown};
        CHECK(pthread_create(&th[i], NULL, copy_on_per_thread_stream, &t[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(pthread_join(th[i], NULL) == 0);
        CHECK_EQ(t[i].err, grSuccess);
        CHECK_EQ(h[32 * i + 31], 0x29);
    }
    CHECK_OK(grFreeHost(h));
}
