/*
 * bench_kernel_lang.c - what graphrt_kernel.h's cooperative kernels
 * (GR_KERNEL_SYNC: each thread of a block a fiber) cost on the CPU:
 *   - a block barrier (gr_sync_threads) of a 256-thread block;
 *   - a warp shuffle (gr_shfl_xor_sync), per thread;
 *   - a fiber switch: a barrier of a 2-thread block is two switches;
 *   - the shared-memory tree reduction of 16M floats in 256-thread blocks
 *     against a barrier-free reduction of the same data in the same
 *     blocks: a GR_KERNEL whose thread 0 sums its block's elements (the
 *     CPU's natural form), and one whose threads each add their element
 *     to the block's sum atomically (the GPU's shape without barriers);
 *     and the same tree written in phases (GR_KERNEL_BLOCK), whose
 *     barriers are the ends of loops over the block's threads.
 * The per-operation figures are the difference between a launch that
 * loops 'reps' times and one that loops 0 times, over reps, so that the
 * launch and the fibers' set-up drop out. Medians of rounds.
 *
 * Usage: bench_kernel_lang [workers] [--quick] [--csv] [--json FILE]
 */
#include "bench_util.h"

#include "graphrt_kernel.h"

GR_KERNEL_SYNC(bkl_barriers, (unsigned, reps))
{
    for (unsigned i = 0; i < reps; i++)
        gr_sync_threads();
}

GR_KERNEL_SYNC(bkl_shuffles, (unsigned, reps), (unsigned *, sink))
{
    unsigned v = gr_thread_idx_x();
    for (unsigned i = 0; i < reps; i++)
        v += gr_shfl_xor_sync(0xffffffffu, v, (int)(1u << (i & 3u)));
    if (v == 12345u)
        sink[0] = v;
}

GR_KERNEL_SYNC(bkl_tree_sum, (const float *, x), (float *, out))
{
    GR_SHARED(float, s, 256);
    unsigned t = gr_thread_idx_x();
    s[t] = x[gr_global_idx_x()];
    gr_sync_threads();
    for (unsigned k = 128; k > 0; k /= 2) {
        if (t < k)
            s[t] += s[t + k];
        gr_sync_threads();
    }
    if (t == 0)
        out[gr_block_idx_x()] = s[0];
}

/* The same tree written in phases (GR_KERNEL_BLOCK): each level is a
 * loop over the block's threads on the CPU, the barrier its end. */
GR_KERNEL_BLOCK(bkl_phase_sum, (const float *, x), (float *, out))
{
    GR_SHARED(float, s, 256);
    const float *p = x + (size_t)gr_block_idx_x() * 256;
    GR_THREADS (t)
        s[t] = p[t];
    for (unsigned k = 128; k > 0; k /= 2)
        GR_THREADS (t)
            if (t < k)
                s[t] += s[t + k];
    GR_THREADS (t)
        if (t == 0)
            out[gr_block_idx_x()] = s[0];
}

/* The same sums without barriers: the CPU runs the block's threads one
 * after another, so thread 0 adds up the block's elements alone. */
GR_KERNEL(bkl_plain_sum, (const float *, x), (float *, out))
{
    if (gr_thread_idx_x() == 0) {
        const float *p = x + gr_global_idx_x();
        float s = 0.0f;
        for (unsigned i = 0; i < 256; i++)
            s += p[i];
        out[gr_block_idx_x()] = s;
    }
}

/* The same sums in the GPU's shape without barriers: each thread adds
 * its element to its block's sum atomically. */
GR_KERNEL(bkl_atomic_sum, (const float *, x), (float *, out))
{
    gr_atomic_add(&out[gr_block_idx_x()], x[gr_global_idx_x()]);
}

GR_KERNEL_DECLARE(bkl_barriers);
GR_KERNEL_DECLARE(bkl_shuffles);
GR_KERNEL_DECLARE(bkl_tree_sum);
GR_KERNEL_DECLARE(bkl_phase_sum);
GR_KERNEL_DECLARE(bkl_plain_sum);
GR_KERNEL_DECLARE(bkl_atomic_sum);

static grStream_t g_stream;

/* ns for one launch of k (1 block) with 'reps', median of 'rounds'. */
static double time_launch(grKernel_t k, unsigned threads, unsigned reps, void *extra, int rounds)
{
    double *v = bu_xmalloc((size_t)rounds * sizeof *v);
    void *args[2] = {&reps, &extra};
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(threads, 1, 1), args, 0, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
        v[r] = (double)(bu_now_ns() - t0);
    }
    double m = bu_median(v, rounds);
    free(v);
    return m;
}

/* ns per operation: (launch with reps - launch with 0) / reps. */
static double per_op(grKernel_t k, unsigned threads, unsigned reps, void *extra, int rounds)
{
    (void)time_launch(k, threads, reps, extra, 2); /* warm-up: stacks mapped */
    double full = time_launch(k, threads, reps, extra, rounds);
    double empty = time_launch(k, threads, 0, extra, rounds);
    return (full - empty) / reps;
}

static double time_reduction(grKernel_t k, const float *x, float *out, unsigned blocks, int rounds)
{
    double *v = bu_xmalloc((size_t)rounds * sizeof *v);
    void *args[2] = {&x, &out};
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = bu_now_ns();
        BU_CHECK(grLaunchKernel(k, GR_DIM3(blocks, 1, 1), GR_DIM3(256, 1, 1), args, 0, g_stream));
        BU_CHECK(grStreamSynchronize(g_stream));
        v[r] = (double)(bu_now_ns() - t0);
    }
    double m = bu_median(v, rounds);
    free(v);
    return m;
}

int main(int argc, char **argv)
{
    bu_opts o = {0};
    for (int a = 1; a < argc; a++)
        if (!bu_opt(&o, argc, argv, &a)) {
            fprintf(stderr, "usage: %s " BU_USAGE "\n", argv[0]);
            return 2;
        }
    bu_machine m;
    bu_figures figs = {0};
    bu_machine_read(&m);
    figs.workers = bu_workers(o.workers);
    figs.csv = o.csv;
    int rounds = o.quick ? 5 : 21;
    unsigned reps = o.quick ? 200 : 2000;
    bu_header("bench_kernel_lang",
              "block barriers, warp shuffles and fiber switches of GR_KERNEL_SYNC kernels", &m, figs.workers,
              &o);
    printf("%srounds: %d (medians), %u operations per timed launch\n", o.csv ? "# " : "", rounds, reps);
    if (o.csv)
        printf("# fig,workers,name,shape,param,value,unit\n");
    BU_CHECK(grStreamCreateWithFlags(&g_stream, grStreamNonBlocking));
    grKernel_t kb, ks, kt, kf, kp, ka;
    BU_CHECK(GR_KERNEL_CREATE(&kb, bkl_barriers));
    BU_CHECK(GR_KERNEL_CREATE(&ks, bkl_shuffles));
    BU_CHECK(GR_KERNEL_CREATE(&kt, bkl_tree_sum));
    BU_CHECK(GR_KERNEL_CREATE(&kf, bkl_phase_sum));
    BU_CHECK(GR_KERNEL_CREATE(&kp, bkl_plain_sum));
    BU_CHECK(GR_KERNEL_CREATE(&ka, bkl_atomic_sum));
    unsigned *sink = NULL;
    BU_CHECK(grMalloc((void **)&sink, sizeof *sink));

    bu_section(&figs, "one block, each thread a fiber");
    static const unsigned sizes[] = {32, 256, 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double ns = per_op(kb, sizes[i], reps, NULL, rounds);
        bu_fig(&figs, "barrier_ns", "gr_sync_threads, per block", "threads", sizes[i], ns, "ns");
    }
    double sw = per_op(kb, 2, reps * 10, NULL, rounds) / 2;
    bu_fig(&figs, "switch_ns", "fiber switch (a 2-thread barrier / 2)", "threads", 2, sw, "ns");
    double sh = per_op(ks, 256, reps, sink, rounds) / 256;
    bu_fig(&figs, "shuffle_ns", "gr_shfl_xor_sync, per thread", "threads", 256, sh, "ns");

    unsigned n = o.quick ? 1u << 22 : 1u << 24, blocks = n / 256;
    float *x = NULL, *out = NULL;
    BU_CHECK(grMalloc((void **)&x, n * sizeof(float)));
    BU_CHECK(grMalloc((void **)&out, blocks * sizeof(float)));
    for (unsigned i = 0; i < n; i++)
        x[i] = (float)(i % 7);
    (void)time_reduction(kt, x, out, blocks, 1);
    (void)time_reduction(kf, x, out, blocks, 1);
    (void)time_reduction(kp, x, out, blocks, 1);
    int rr = o.quick ? 3 : 9;
    double *tree = bu_xmalloc((size_t)rr * sizeof *tree), *plain = bu_xmalloc((size_t)rr * sizeof *plain);
    double *atom = bu_xmalloc((size_t)rr * sizeof *atom), *phase = bu_xmalloc((size_t)rr * sizeof *phase);
    for (int r = 0; r < rr; r++) { /* alternating, so that noise biases none */
        tree[r] = time_reduction(kt, x, out, blocks, 1);
        phase[r] = time_reduction(kf, x, out, blocks, 1);
        plain[r] = time_reduction(kp, x, out, blocks, 1);
        atom[r] = time_reduction(ka, x, out, blocks, 1);
    }
    double t_phase = bu_median(phase, rr);
    double t_tree = bu_median(tree, rr), t_plain = bu_median(plain, rr), t_atom = bu_median(atom, rr);
    char heading[96];
    snprintf(heading, sizeof heading, "block sums of %u floats, 256-thread blocks", n);
    bu_section(&figs, heading);
    bu_fig(&figs, "tree_sum_ms", "shared-memory tree (9 barriers per block)", "floats", n, t_tree / 1e6,
           "ms");
    bu_fig(&figs, "phase_sum_ms", "the same tree in phases (GR_KERNEL_BLOCK)", "floats", n, t_phase / 1e6,
           "ms");
    bu_fig(&figs, "plain_sum_ms", "barrier-free (GR_KERNEL, thread 0 sums)", "floats", n, t_plain / 1e6,
           "ms");
    bu_fig(&figs, "atomic_sum_ms", "barrier-free (GR_KERNEL, an atomic add per thread)", "floats", n,
           t_atom / 1e6, "ms");
    bu_fig(&figs, "tree_over_plain", "tree / barrier-free (thread 0 sums)", "floats", n, t_tree / t_plain,
           "x");
    bu_fig(&figs, "phase_over_plain", "phases / barrier-free (thread 0 sums)", "floats", n, t_phase / t_plain,
           "x");
    bu_fig(&figs, "tree_over_atomic", "tree / barrier-free (atomic adds)", "floats", n, t_tree / t_atom, "x");
    if (o.json) {
        FILE *f = bu_json_begin(o.json, "bench_kernel_lang", &m, figs.workers, &o);
        fprintf(f, "},\n");
        bu_json_figures(f, &figs);
        fprintf(f, "\n}\n");
        fclose(f);
    }
    free(tree);
    free(plain);
    free(atom);
    free(phase);
    BU_CHECK(grFree(x));
    BU_CHECK(grFree(out));
    BU_CHECK(grFree(sink));
    BU_CHECK(grKernelDestroy(kb));
    BU_CHECK(grKernelDestroy(ks));
    BU_CHECK(grKernelDestroy(kt));
    BU_CHECK(grKernelDestroy(kf));
    BU_CHECK(grKernelDestroy(kp));
    BU_CHECK(grKernelDestroy(ka));
    BU_CHECK(grStreamDestroy(g_stream));
    free(figs.v);
    return 0;
}
