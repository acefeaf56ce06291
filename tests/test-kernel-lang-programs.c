/*
 * test-kernel-lang-programs.c - real kernels written once with
 * graphrt_kernel.h (tests/kernels/lang_kernels.c): a shared-memory tree
 * reduction, a warp-shuffle reduction, an exclusive scan, a tiled matrix
 * product, a histogram with shared-memory atomics and a 2D stencil with a
 * halo; the reduction and the product also in phases (GR_KERNEL_BLOCK).
 * Each runs on the CPU device and, where there is one, on the first GPU
 * (skipped there without one), and must give what plain C computes on
 * the host: exactly for integers, within rounding for floats.
 */
#include "testlib.h"

#include "graphrt_kernel.h"

#include <math.h>

GR_KERNEL_DECLARE(lang_tree_sum);
GR_KERNEL_DECLARE(lang_tree_sum_phases);
GR_KERNEL_DECLARE(lang_warp_sum);
GR_KERNEL_DECLARE(lang_exclusive_scan);
GR_KERNEL_DECLARE(lang_matmul);
GR_KERNEL_DECLARE(lang_matmul_phases);
GR_KERNEL_DECLARE(lang_histogram);
GR_KERNEL_DECLARE(lang_stencil);

/* The device of the test's half: 0, or the first GPU (skipping without). */
static void device_or_skip(int gpu)
{
    int n = 0;
    CHECK_OK(grGetDeviceCount(&n));
    if (gpu && n < 2)
        GR_TEST_SKIP("no GPU device: grGetDeviceCount gives %d (the CPU only)", n);
    CHECK_OK(grSetDevice(gpu ? 1 : 0));
}

/* Device memory holding a copy of 'bytes' of host (zeros when NULL). */
static void *to_device(const void *host, size_t bytes)
{
    void *d = tl_malloc(bytes);
    if (host)
        CHECK_OK(grMemcpy(d, host, bytes, grMemcpyHostToDevice));
    else
        CHECK_OK(grMemset(d, 0, bytes));
    return d;
}

static void *to_host(const void *dev, size_t bytes)
{
    void *h = malloc(bytes);
    CHECK(h != NULL);
    CHECK_OK(grMemcpy(h, dev, bytes, grMemcpyDeviceToHost));
    return h;
}

/* Deterministic data: a small LCG. */
static unsigned lcg(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static float *random_floats(size_t n, unsigned seed)
{
    float *x = malloc(n * sizeof *x);
    CHECK(x != NULL);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(lcg(&seed) % 2001) / 1000.0f - 1.0f;
    return x;
}

static void check_close(double got, double want, double tol, const char *what, size_t i)
{
    if (fabs(got - want) > tol * (1.0 + fabs(want)))
        GR_TEST_FAIL_("%s[%zu] is %.9g, expected %.9g", what, i, got, want);
}

/* Makes the kernel with 'create', launches it on the legacy stream over
 * this grid, waits for the device and destroys the kernel. */
static void run_kernel(grError_t (*create)(grKernel_t *), grDim3 grid, grDim3 block, void **args,
                       size_t shmem)
{
    grKernel_t k;
    CHECK_OK(create(&k));
    CHECK_OK(grLaunchKernel(k, grid, block, args, shmem, NULL));
    CHECK_OK(grDeviceSynchronize());
    CHECK_OK(grKernelDestroy(k));
}

/* Frees a program's host buffers (malloc'd) and device buffers, NULL
 * ends each list: release((void *[]){x, y, NULL}, (void *[]){dx, NULL}). */
static void release(void *const *host, void *const *dev)
{
    for (; *host; host++)
        free(*host);
    for (; *dev; dev++)
        CHECK_OK(grFree(*dev));
}

/* ------------------------------------------------------------ reductions */

static void tree_reduction(int gpu, grError_t (*create)(grKernel_t *))
{
    device_or_skip(gpu);
    const unsigned n = 1000003, T = 256, B = (n + T - 1) / T;
    float *x = random_floats(n, 1);
    float *dx = to_device(x, n * sizeof(float)), *dout = to_device(NULL, B * sizeof(float));
    void *args[] = {&dx, &dout, (void *)&n};
    run_kernel(create, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), args, 0);
    float *out = to_host(dout, B * sizeof(float));
    for (unsigned b = 0; b < B; b++) {
        double want = 0;
        for (unsigned i = b * T; i < (b + 1) * T && i < n; i++)
            want += x[i];
        check_close(out[b], want, 1e-5, "block sum", b);
    }
    release((void *[]){x, out, NULL}, (void *[]){dx, dout, NULL});
}

GR_TEST(kernel_lang_tree_reduction_cpu)
{
    tree_reduction(0, gr_kernel_create_lang_tree_sum);
}

GR_TEST(kernel_lang_tree_reduction_gpu)
{
    tree_reduction(1, gr_kernel_create_lang_tree_sum);
}

/* GR_KERNEL_BLOCK's phases: the same sums, each barrier the end of a
 * phase (a loop over the threads on the CPU). */
GR_TEST(kernel_lang_tree_reduction_in_phases_cpu)
{
    tree_reduction(0, gr_kernel_create_lang_tree_sum_phases);
}

GR_TEST(kernel_lang_tree_reduction_in_phases_gpu)
{
    tree_reduction(1, gr_kernel_create_lang_tree_sum_phases);
}

static void warp_reduction(int gpu)
{
    device_or_skip(gpu);
    /* Blocks of 160 threads: 5 warps, so warp 0's second pass has lanes
     * with nothing to add. */
    const unsigned n = 777777, T = 160, B = (n + T - 1) / T;
    float *x = random_floats(n, 2);
    float *dx = to_device(x, n * sizeof(float));
    double *dsum = to_device(NULL, sizeof(double));
    void *args[] = {&dx, &dsum, (void *)&n};
    run_kernel(gr_kernel_create_lang_warp_sum, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), args, 0);
    double *sum = to_host(dsum, sizeof(double));
    double want = 0;
    for (unsigned i = 0; i < n; i++)
        want += x[i];
    check_close(*sum, want, 1e-9, "sum", 0);
    release((void *[]){x, sum, NULL}, (void *[]){dx, dsum, NULL});
}

GR_TEST(kernel_lang_warp_shuffle_reduction_cpu)
{
    warp_reduction(0);
}

GR_TEST(kernel_lang_warp_shuffle_reduction_gpu)
{
    warp_reduction(1);
}

/* ------------------------------------------------------------------ scan */

static void exclusive_scan(int gpu)
{
    device_or_skip(gpu);
    const unsigned n = 100000, T = 512, B = (n + T - 1) / T;
    unsigned *x = malloc(n * sizeof *x), seed = 3;
    CHECK(x != NULL);
    for (unsigned i = 0; i < n; i++)
        x[i] = lcg(&seed) % 100;
    unsigned *dx = to_device(x, n * sizeof *x), *dy = to_device(NULL, n * sizeof *x);
    unsigned *dsums = to_device(NULL, B * sizeof *x);
    void *args[] = {&dx, &dy, &dsums, (void *)&n};
    run_kernel(gr_kernel_create_lang_exclusive_scan, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), args,
               2 * T * sizeof(unsigned));
    unsigned *y = to_host(dy, n * sizeof *x), *sums = to_host(dsums, B * sizeof *x);
    /* Each block's part scanned on its own; the block sums carry it over. */
    unsigned carry = 0, run = 0;
    for (unsigned b = 0; b < B; b++) {
        unsigned local = 0;
        for (unsigned i = b * T; i < (b + 1) * T && i < n; i++) {
            if (y[i] != local)
                GR_TEST_FAIL_("y[%u] is %u, expected %u", i, y[i], local);
            CHECK_EQ(carry + y[i], run);
            local += x[i];
            run += x[i];
        }
        CHECK_EQ(sums[b], local);
        carry += sums[b];
    }
    release((void *[]){x, y, sums, NULL}, (void *[]){dx, dy, dsums, NULL});
}

GR_TEST(kernel_lang_exclusive_scan_cpu)
{
    exclusive_scan(0);
}

GR_TEST(kernel_lang_exclusive_scan_gpu)
{
    exclusive_scan(1);
}

/* -------------------------------------------------------- matrix product */

static void matmul(int gpu, grError_t (*create)(grKernel_t *))
{
    device_or_skip(gpu);
    const unsigned n = 83; /* partial tiles on both axes */
    float *a = random_floats((size_t)n * n, 4), *b = random_floats((size_t)n * n, 5);
    size_t bytes = (size_t)n * n * sizeof(float);
    float *da = to_device(a, bytes), *db = to_device(b, bytes), *dc = to_device(NULL, bytes);
    void *args[] = {&da, &db, &dc, (void *)&n};
    run_kernel(create, GR_DIM3((n + 15) / 16, (n + 15) / 16, 1), GR_DIM3(16, 16, 1), args, 0);
    float *c = to_host(dc, bytes);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            double want = 0;
            for (unsigned k2 = 0; k2 < n; k2++)
                want += (double)a[i * n + k2] * b[k2 * n + j];
            check_close(c[i * n + j], want, 1e-4, "c", (size_t)i * n + j);
        }
    release((void *[]){a, b, c, NULL}, (void *[]){da, db, dc, NULL});
}

GR_TEST(kernel_lang_tiled_matrix_product_cpu)
{
    matmul(0, gr_kernel_create_lang_matmul);
}

GR_TEST(kernel_lang_tiled_matrix_product_gpu)
{
    matmul(1, gr_kernel_create_lang_matmul);
}

/* GR_KERNEL_BLOCK's two-dimensional phases (GR_THREADS_XY), partial tiles
 * on both axes. */
GR_TEST(kernel_lang_tiled_matrix_product_in_phases_cpu)
{
    matmul(0, gr_kernel_create_lang_matmul_phases);
}

GR_TEST(kernel_lang_tiled_matrix_product_in_phases_gpu)
{
    matmul(1, gr_kernel_create_lang_matmul_phases);
}

/* ------------------------------------------------------------- histogram */

static void histogram(int gpu)
{
    device_or_skip(gpu);
    const unsigned n = 1 << 20;
    unsigned char *x = malloc(n);
    unsigned seed = 6, want[256] = {0};
    CHECK(x != NULL);
    for (unsigned i = 0; i < n; i++) {
        /* Skewed: bin 7 gets a third, so shared atomics contend. */
        x[i] = (unsigned char)(lcg(&seed) % 3 == 0 ? 7 : lcg(&seed) & 255);
        want[x[i]]++;
    }
    unsigned char *dx = to_device(x, n);
    unsigned *dh = to_device(NULL, 256 * sizeof(unsigned));
    void *args[] = {&dx, &dh, (void *)&n};
    run_kernel(gr_kernel_create_lang_histogram, GR_DIM3(64, 1, 1), GR_DIM3(128, 1, 1), args, 0);
    unsigned *h = to_host(dh, 256 * sizeof(unsigned));
    for (unsigned v = 0; v < 256; v++)
        if (h[v] != want[v])
            GR_TEST_FAIL_("bin %u holds %u, expected %u", v, h[v], want[v]);
    release((void *[]){x, h, NULL}, (void *[]){dx, dh, NULL});
}

GR_TEST(kernel_lang_histogram_with_shared_atomics_cpu)
{
    histogram(0);
}

GR_TEST(kernel_lang_histogram_with_shared_atomics_gpu)
{
    histogram(1);
}

/* --------------------------------------------------------------- stencil */

static void stencil(int gpu)
{
    device_or_skip(gpu);
    const unsigned w = 70, h = 45;
    size_t bytes = (size_t)w * h * sizeof(float);
    float *in = random_floats((size_t)w * h, 7);
    float *din = to_device(in, bytes), *dout = to_device(NULL, bytes);
    void *args[] = {&din, &dout, (void *)&w, (void *)&h};
    run_kernel(gr_kernel_create_lang_stencil, GR_DIM3((w + 15) / 16, (h + 15) / 16, 1), GR_DIM3(16, 16, 1),
               args, 0);
    float *out = to_host(dout, bytes);
#define AT(x, y)                             \
    in[(size_t)((y) < 0         ? 0          \
                : (y) >= (int)h ? (int)h - 1 \
                                : (y)) *     \
           w +                               \
       (size_t)((x) < 0         ? 0          \
                : (x) >= (int)w ? (int)w - 1 \
                                : (x))]
    for (int y = 0; y < (int)h; y++)
        for (int x = 0; x < (int)w; x++) {
            float want = 0.2f * (AT(x, y) + AT(x - 1, y) + AT(x + 1, y) + AT(x, y - 1) + AT(x, y + 1));
            check_close(out[(size_t)y * w + (size_t)x], want, 1e-6, "out", (size_t)y * w + (size_t)x);
        }
#undef AT
    release((void *[]){in, out, NULL}, (void *[]){din, dout, NULL});
}

GR_TEST(kernel_lang_stencil_with_halo_cpu)
{
    stencil(0);
}

GR_TEST(kernel_lang_stencil_with_halo_gpu)
{
    stencil(1);
}

/* ------------------------------------- programmatic dependent launch */

GR_KERNEL_DECLARE(lang_pdl_produce);
GR_KERNEL_DECLARE(lang_pdl_consume);

/* A producer and its programmatic consumer (gr_trigger_... and
 * gr_grid_dependency_synchronize in the kernels): as graph nodes joined
 * by a programmatic edge, then as stream launches with the programmatic
 * serialization attribute. The consumer reads all the producer wrote. */
static void programmatic_launch(int gpu)
{
    device_or_skip(gpu);
    const unsigned n = 100000, T = 128, B = (n + T - 1) / T;
    int *dx = to_device(NULL, n * sizeof(int)), *dy = to_device(NULL, n * sizeof(int));
    grKernel_t produce, consume;
    CHECK_OK(GR_KERNEL_CREATE(&produce, lang_pdl_produce));
    CHECK_OK(GR_KERNEL_CREATE(&consume, lang_pdl_consume));
    void *pargs[] = {&dx, (void *)&n}, *cargs[] = {&dx, &dy, (void *)&n};

    grGraph_t g;
    grGraphNode_t p, c;
    CHECK_OK(grGraphCreate(&g, 0));
    grKernelNodeParams kp = {produce, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), 0, pargs, NULL};
    CHECK_OK(grGraphAddKernelNode(&p, g, NULL, 0, &kp));
    grKernelNodeParams kc = {consume, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), 0, cargs, NULL};
    CHECK_OK(grGraphAddKernelNode(&c, g, NULL, 0, &kc));
    grGraphEdgeData pe;
    memset(&pe, 0, sizeof pe);
    pe.type = grGraphDependencyTypeProgrammatic;
    pe.from_port = grGraphKernelNodePortProgrammatic;
    CHECK_OK(grGraphAddDependencies(g, &p, &c, &pe, 1));
    grGraphExec_t e;
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    int *y = to_host(dy, n * sizeof(int));
    for (unsigned i = 0; i < n; i++)
        if (y[i] != 2 * ((int)i + 1))
            GR_TEST_FAIL_("graph: y[%u] is %d, expected %d", i, y[i], 2 * ((int)i + 1));
    free(y);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));

    CHECK_OK(grMemset(dx, 0, n * sizeof(int)));
    CHECK_OK(grMemset(dy, 0, n * sizeof(int)));
    grStream_t s = tl_stream(grStreamNonBlocking);
    CHECK_OK(grLaunchKernel(produce, GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), pargs, 0, s));
    grLaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = grLaunchAttributeProgrammaticStreamSerialization;
    at.val.programmaticStreamSerializationAllowed = 1;
    grLaunchConfig_t cfg = {GR_DIM3(B, 1, 1), GR_DIM3(T, 1, 1), 0, s, &at, 1};
    CHECK_OK(grLaunchKernelExC(&cfg, consume, cargs));
    CHECK_OK(grStreamSynchronize(s));
    y = to_host(dy, n * sizeof(int));
    for (unsigned i = 0; i < n; i++)
        if (y[i] != 2 * ((int)i + 1))
            GR_TEST_FAIL_("stream: y[%u] is %d, expected %d", i, y[i], 2 * ((int)i + 1));
    free(y);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(dx));
    CHECK_OK(grFree(dy));
    CHECK_OK(grKernelDestroy(produce));
    CHECK_OK(grKernelDestroy(consume));
}

GR_TEST(kernel_lang_programmatic_dependent_launch_cpu)
{
    programmatic_launch(0);
}

GR_TEST(kernel_lang_programmatic_dependent_launch_gpu)
{
    programmatic_launch(1);
}
