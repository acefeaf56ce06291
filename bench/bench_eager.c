/*
 * bench_eager.c - eager stream work: what one stream operation costs, and
 * how a data-parallel kernel's bandwidth compares with a plain loop and an
 * OpenMP 'parallel for' on the same threads.
 *
 * 1. A chain of N empty kernels (grid 1, block 1) on one stream, N = 1, 10,
 *    100, 1000, 10000: enqueue cost per op (the launch loop's time / N) and
 *    end-to-end cost per op (launch loop + grStreamSynchronize, / N).
 * 2. The same with grLaunchHostFunc of an empty host function.
 * 3. saxpy y = a*x + y over 64 Mi floats: a graphrt kernel (blocks of 256
 *    threads, each block loops over its threads with GR_FOR_THREADS), a
 *    plain single-threaded loop and an OpenMP parallel for with as many
 *    threads as graphrt has workers, in the same run on the same arrays.
 *    GB/s counts 12 bytes per element (read x, read y, write y).
 *
 * Usage: bench_eager [workers] [--quick] [--csv] [--json FILE] [--saxpy-n N]
 * Output: the machine and parameters, then a table of the figures. With
 * --csv: '# ' lines describe the machine and parameters and every figure
 * is a
 *   fig,workers,name,shape,param,value,unit
 * line. Every figure is also an entry of the JSON "figures" array.
 */
#include "bench_util.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static grStream_t g_stream;
static bu_figures g_figs;

static void empty_kernel(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

static unsigned long g_host_calls; /* host functions of one stream: ordered */

static void count_host(void *p)
{
    (void)p;
    g_host_calls++;
}

/* ------------------------------------------------------------ launch cost */

/* kind 0: grLaunchKernel of the empty kernel; kind 1: grLaunchHostFunc. */
static void eager_chain(grKernel_t k, int kind, int N)
{
    const char *tag = kind ? "host_func" : "kernel";
    int reps = bu_reps(N, 50, 2000), warm = reps / 10 < 5 ? 5 : reps / 10, r, i;
    double *venq = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    double *ve2e = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    char name[48], what[80];
    g_host_calls = 0;
    for (r = 0; r < warm + reps; r++) {
        uint64_t t0 = bu_now_ns(), t1, t2;
        if (kind == 0)
            for (i = 0; i < N; i++)
                BU_CHECK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, g_stream));
        else
            for (i = 0; i < N; i++)
                BU_CHECK(grLaunchHostFunc(g_stream, count_host, NULL));
        t1 = bu_now_ns();
        BU_CHECK(grStreamSynchronize(g_stream));
        t2 = bu_now_ns();
        if (r >= warm) {
            venq[r - warm] = (double)(t1 - t0) / N;
            ve2e[r - warm] = (double)(t2 - t0) / N;
        }
    }
    if (kind == 1 && g_host_calls != (unsigned long)N * (unsigned long)(warm + reps)) {
        fprintf(stderr, "host func chain %d: %lu calls, expected %lu\n", N, g_host_calls,
                (unsigned long)N * (unsigned long)(warm + reps));
        exit(2);
    }
    snprintf(name, sizeof name, "eager_%s_enqueue_ns_per_op", tag);
    snprintf(what, sizeof what, "%s: enqueue per op", kind ? "grLaunchHostFunc" : "grLaunchKernel");
    bu_fig(&g_figs, name, what, "chain", N, bu_median(venq, reps), "ns/op");
    snprintf(name, sizeof name, "eager_%s_e2e_ns_per_op", tag);
    snprintf(what, sizeof what, "%s: enqueue + run per op (+ synchronise)",
             kind ? "grLaunchHostFunc" : "grLaunchKernel");
    bu_fig(&g_figs, name, what, "chain", N, bu_median(ve2e, reps), "ns/op");
    free(venq);
    free(ve2e);
}

/* ----------------------------------------------------------------- saxpy */

#define SAXPY_BLOCK 256u

static void saxpy_kernel(const grKernelCtx *ctx, void **args)
{
    size_t n = *(const size_t *)args[0];
    float a = *(const float *)args[1];
    const float *x = *(const float *const *)args[2];
    float *y = *(float *const *)args[3];
    if (GR_GLOBAL_X(ctx, 0) + ctx->blockDim.x <= n) {
        /* a whole block in range: no per-thread guard, so the loop vectorises */
        GR_FOR_THREADS(ctx, tx, ty, tz)
        {
            size_t i = GR_GLOBAL_X(ctx, tx);
            y[i] = a * x[i] + y[i];
        }
    } else {
        GR_FOR_THREADS(ctx, tx, ty, tz)
        {
            size_t i = GR_GLOBAL_X(ctx, tx);
            if (i < n)
                y[i] = a * x[i] + y[i];
        }
    }
}

static __attribute__((noinline)) void saxpy_seq(size_t n, float a, const float *restrict x, float *restrict y)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

#ifdef _OPENMP
static __attribute__((noinline)) void saxpy_omp(size_t n, float a, const float *restrict x, float *restrict y)
{
    long i, nn = (long)n;
#pragma omp parallel for schedule(static)
    for (i = 0; i < nn; i++)
        y[i] = a * x[i] + y[i];
}
#endif

/* Lets spinning threads of the previous variant (OpenMP's or graphrt's)
 * park before the next variant is timed. */
static void settle(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static double gbps(size_t n, double ns)
{
    return 12.0 * (double)n / ns;
}

static void saxpy_bench(int workers, size_t n, int reps)
{
    float *x = (float *)aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64);
    float *y = (float *)aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64);
    double *vgr = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    double *vseq = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    double *vomp = (double *)bu_xmalloc(sizeof(double) * (size_t)reps);
    size_t i, psz[4] = {sizeof(size_t), sizeof(float), sizeof(float *), sizeof(float *)};
    unsigned passes = 0, grid = (unsigned)((n + SAXPY_BLOCK - 1) / SAXPY_BLOCK);
    float a = 1.0f;
    const int warm = 2;
    double t_gr, t_seq, t_omp = 0;
    grKernel_t k;
    int r;
    if (!x || !y) {
        fprintf(stderr, "out of memory for saxpy (%zu floats)\n", n);
        exit(1);
    }
    for (i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 0.0f;
    }
    BU_CHECK(grKernelCreate(&k, saxpy_kernel, "saxpy", 4, psz));

    /* Round robin, one pass of each variant per repetition, so that the
     * machine's bandwidth drifts hit all three alike. */
    for (r = 0; r < warm + reps; r++) {
        void *args[4] = {&n, &a, &x, &y};
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grLaunchKernel(k, GR_DIM3(grid, 1, 1), GR_DIM3(SAXPY_BLOCK, 1, 1), args, 0, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
        if (r >= warm)
            vgr[r - warm] = (double)(bu_now_ns() - t0);
        passes++;
        settle();

        t0 = bu_now_ns();
        saxpy_seq(n, a, x, y);
        if (r >= warm)
            vseq[r - warm] = (double)(bu_now_ns() - t0);
        passes++;
        settle();
#ifdef _OPENMP
        omp_set_num_threads(workers);
        t0 = bu_now_ns();
        saxpy_omp(n, a, x, y);
        if (r >= warm)
            vomp[r - warm] = (double)(bu_now_ns() - t0);
        passes++;
        settle();
#endif
    }
    t_gr = bu_median(vgr, reps);
    t_seq = bu_median(vseq, reps);
#ifdef _OPENMP
    t_omp = bu_median(vomp, reps);
#endif

    /* every element ran every pass: y = passes (exact in float below 2^24) */
    for (i = 0; i < n; i++)
        if (y[i] != (float)passes) {
            fprintf(stderr, "saxpy: y[%zu] = %g, expected %u\n", i, (double)y[i], passes);
            exit(2);
        }

    bu_fig(&g_figs, "saxpy_graphrt_ms", "saxpy: graphrt kernel", "saxpy", (long)n, t_gr / 1e6, "ms");
    bu_fig(&g_figs, "saxpy_graphrt_gbps", "saxpy: graphrt kernel bandwidth", "saxpy", (long)n, gbps(n, t_gr),
           "GB/s");
    bu_fig(&g_figs, "saxpy_seq_ms", "saxpy: plain loop, one thread", "saxpy", (long)n, t_seq / 1e6, "ms");
    bu_fig(&g_figs, "saxpy_seq_gbps", "saxpy: plain loop bandwidth", "saxpy", (long)n, gbps(n, t_seq),
           "GB/s");
#ifdef _OPENMP
    bu_fig(&g_figs, "saxpy_omp_ms", "saxpy: OpenMP parallel for", "saxpy", (long)n, t_omp / 1e6, "ms");
    bu_fig(&g_figs, "saxpy_omp_gbps", "saxpy: OpenMP bandwidth", "saxpy", (long)n, gbps(n, t_omp), "GB/s");
    bu_fig(&g_figs, "saxpy_graphrt_over_omp", "saxpy: OpenMP time / graphrt time", "saxpy", (long)n,
           t_omp / t_gr, "x");
#else
    (void)t_omp;
    (void)workers;
#endif
    bu_fig(&g_figs, "saxpy_graphrt_over_seq", "saxpy: plain loop time / graphrt time", "saxpy", (long)n,
           t_seq / t_gr, "x");

    BU_CHECK(grKernelDestroy(k));
    free(x);
    free(y);
    free(vgr);
    free(vseq);
    free(vomp);
}

/* ------------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    static const int sizes[5] = {1, 10, 100, 1000, 10000};
    size_t saxpy_n = (size_t)64 << 20;
    int workers, a, s;
    bu_opts o = {0};
    bu_machine m;
    grKernel_t empty;
    const char *c;

    for (a = 1; a < argc; a++) {
        if (bu_opt(&o, argc, argv, &a))
            continue;
        if (strcmp(argv[a], "--saxpy-n") == 0 && a + 1 < argc)
            saxpy_n = (size_t)strtoull(argv[++a], NULL, 0);
        else {
            fprintf(stderr, "usage: %s " BU_USAGE " [--saxpy-n N]\n", argv[0]);
            return 1;
        }
    }
    workers = bu_workers(o.workers);
    g_figs.workers = workers;
    g_figs.csv = o.csv;
    bu_machine_read(&m);
    bu_header("bench_eager", "eager stream operations and a saxpy kernel", &m, workers, &o);
    c = o.csv ? "# " : "";
#ifdef _OPENMP
    printf("%sopenmp: %d threads (omp_set_num_threads = workers)\n", c, workers);
#else
    printf("%sopenmp: not built\n", c);
#endif
    printf("%ssaxpy: %zu floats, blocks of %u threads\n", c, saxpy_n, SAXPY_BLOCK);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    bu_section(&g_figs, "one stream operation, chains of 1 to 10,000 on one stream");
    fflush(stdout);

    BU_CHECK(grStreamCreateWithFlags(&g_stream, grStreamNonBlocking));
    BU_CHECK(grKernelCreate(&empty, empty_kernel, "empty", 0, NULL));
    for (s = 0; s < 5; s++)
        eager_chain(empty, 0, sizes[s]);
    for (s = 0; s < 5; s++)
        eager_chain(empty, 1, sizes[s]);
    if (saxpy_n > 0) {
        bu_section(&g_figs, "saxpy y = a*x + y (12 bytes per element), medians");
        saxpy_bench(workers, saxpy_n, o.quick ? 3 : 10);
    }
    BU_CHECK(grKernelDestroy(empty));
    BU_CHECK(grStreamDestroy(g_stream));

    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_eager", &m, workers, &o);
        fprintf(f, ", \"saxpy_n\": %zu},\n", saxpy_n);
        bu_json_figures(f, &g_figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    return 0;
}
