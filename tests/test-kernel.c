/*
 * test-kernel.c - kernels: every block runs exactly once with the right
 * geometry, shared memory, argument values copied at launch, large
 * argument lists, bad launches refused without side effects, destruction
 * with launches in flight.
 */
#include "testlib.h"

#include <malloc.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

/* ----------------------------------------------------- blocks and geometry */

typedef struct geom_check {
    grDim3 grid, block;
    atomic_int *hits;   /* one counter per block */
    atomic_int bad;     /* calls that saw a wrong gridDim/blockDim/blockIdx */
    atomic_int threads; /* threads visited by GR_FOR_THREADS */
} geom_check;

static void count_blocks(const grKernelCtx *ctx, void **args)
{
    geom_check *g = *(geom_check **)args[0];
    const grDim3 b = ctx->blockIdx;
    if (ctx->gridDim.x != g->grid.x || ctx->gridDim.y != g->grid.y || ctx->gridDim.z != g->grid.z ||
        ctx->blockDim.x != g->block.x || ctx->blockDim.y != g->block.y || ctx->blockDim.z != g->block.z ||
        b.x >= g->grid.x || b.y >= g->grid.y || b.z >= g->grid.z) {
        atomic_fetch_add(&g->bad, 1);
        return;
    }
    size_t lin = ((size_t)b.z * g->grid.y + b.y) * g->grid.x + b.x;
    atomic_fetch_add(&g->hits[lin], 1);
    int n = 0;
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        if (GR_GLOBAL_X(ctx, tx) < (size_t)g->grid.x * g->block.x &&
            GR_GLOBAL_Y(ctx, ty) < (size_t)g->grid.y * g->block.y &&
            GR_GLOBAL_Z(ctx, tz) < (size_t)g->grid.z * g->block.z)
            n++;
    }
    atomic_fetch_add(&g->threads, n);
}

static void run_grid(const char *workers, grDim3 grid, grDim3 block, int launches)
{
    static geom_check g;
    size_t nblocks = (size_t)grid.x * grid.y * grid.z;
    size_t sizes[1] = {sizeof(geom_check *)};
    geom_check *gp = &g;
    void *args[1] = {&gp};
    grKernel_t k;
    int mp = 0;
    setenv("GRAPHRT_WORKERS", workers, 1);
    g.grid = grid;
    g.block = block;
    g.hits = calloc(nblocks, sizeof *g.hits);
    CHECK(g.hits != NULL);
    CHECK_OK(grDeviceGetAttribute(&mp, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(mp, atoi(workers));
    CHECK_OK(grKernelCreate(&k, count_blocks, "count_blocks", 1, sizes));
    grStream_t s = tl_stream(0);
    for (int i = 0; i < launches; i++)
        CHECK_OK(grLaunchKernel(k, grid, block, args, 0, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&g.bad), 0);
    for (size_t i = 0; i < nblocks; i++)
        if (atomic_load(&g.hits[i]) != launches)
            GR_TEST_FAIL_("block %zu ran %d times, expected %d", i, atomic_load(&g.hits[i]), launches);
    CHECK_EQ(atomic_load(&g.threads), (long long)nblocks * block.x * block.y * block.z * launches);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
    free(g.hits);
}

/* One test per case, each its own process: the worker count is read when
 * the runtime starts. GRID_CASE(name, workers, grid, block, launches). */
#define GRID_CASE(name, ...)   \
    GR_TEST(name)              \
    {                          \
        run_grid(__VA_ARGS__); \
    }

GRID_CASE(kernel_single_block_runs_once, "2", GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), 1)
GRID_CASE(kernel_1d_grid_runs_every_block_once_with_one_worker, "1", GR_DIM3(257, 1, 1), GR_DIM3(64, 1, 1), 1)
GRID_CASE(kernel_1d_grid_runs_every_block_once_with_two_workers, "2", GR_DIM3(257, 1, 1), GR_DIM3(64, 1, 1),
          3)
GRID_CASE(kernel_2d_grid_runs_every_block_once_with_two_workers, "2", GR_DIM3(33, 17, 1), GR_DIM3(8, 4, 1), 2)
GRID_CASE(kernel_3d_grid_runs_every_block_once_with_two_workers, "2", GR_DIM3(7, 5, 3), GR_DIM3(2, 3, 4), 2)
GRID_CASE(kernel_large_grid_runs_every_block_once_with_one_worker, "1", GR_DIM3(1000, 3, 2), GR_DIM3(4, 2, 2),
          1)
GRID_CASE(kernel_large_grid_runs_every_block_once_with_two_workers, "2", GR_DIM3(1000, 3, 2),
          GR_DIM3(4, 2, 2), 2)
GRID_CASE(kernel_large_grid_runs_every_block_once_with_four_workers, "4", GR_DIM3(1000, 3, 2),
          GR_DIM3(1, 1, 1), 4)
GRID_CASE(kernel_tall_grid_runs_every_block_once, "2", GR_DIM3(1, 65535, 1), GR_DIM3(1, 1, 64), 1)

/* ------------------------------------------------------------ shared memory */

static atomic_int shm_bad, shm_blocks;

static void use_shared(const grKernelCtx *ctx, void **args)
{
    size_t bytes = *(size_t *)args[0];
    unsigned id = ctx->blockIdx.x + 1;
    unsigned *w = ctx->sharedMem;
    atomic_fetch_add(&shm_blocks, 1);
    if (!w || ((uintptr_t)w & 15u)) {
        atomic_fetch_add(&shm_bad, 1);
        return;
    }
    for (size_t i = 0; i < bytes / sizeof *w; i++)
        w[i] = id;
    /* Let other blocks run meanwhile, so that shared scratch handed to two
     * running blocks would show up as overwritten words. */
    sched_yield();
    for (size_t i = 0; i < bytes / sizeof *w; i++)
        if (w[i] != id) {
            atomic_fetch_add(&shm_bad, 1);
            return;
        }
}

GR_TEST(kernel_shared_memory_is_usable_and_private_to_each_running_block)
{
    size_t sizes[1] = {sizeof(size_t)};
    size_t bytes = 48u * 1024u;
    void *args[1] = {&bytes};
    grKernel_t k;
    grStream_t s[3];
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grKernelCreate(&k, use_shared, "use_shared", 1, sizes));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
        CHECK_OK(grLaunchKernel(k, GR_DIM3(200, 1, 1), GR_DIM3(32, 1, 1), args, bytes, s[i]));
    }
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&shm_blocks), 600);
    CHECK_EQ(atomic_load(&shm_bad), 0);
    for (int i = 0; i < 3; i++)
        CHECK_OK(grStreamDestroy(s[i]));
    CHECK_OK(grKernelDestroy(k));
}

/* Each thread's shared-memory scratch goes with the thread: workers stop
 * at every grDeviceReset, and a program that resets in a loop must not
 * grow (under ASan the runner's leak check sees a lost block too). */
GR_TEST(kernel_shared_memory_scratch_is_freed_when_workers_stop)
{
    size_t sizes[1] = {sizeof(size_t)};
    size_t bytes = 48u * 1024u;
    void *args[1] = {&bytes};
    size_t before = 0;
    setenv("GRAPHRT_WORKERS", "4", 1);
    for (int round = 0; round < 21; round++) {
        grKernel_t k;
        CHECK_OK(grKernelCreate(&k, use_shared, "use_shared", 1, sizes));
        grStream_t s = tl_stream(grStreamNonBlocking);
        CHECK_OK(grLaunchKernel(k, GR_DIM3(64, 1, 1), GR_DIM3(1, 1, 1), args, bytes, s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_OK(grStreamDestroy(s));
        CHECK_OK(grKernelDestroy(k));
        CHECK_OK(grDeviceReset());
        /* Round 0 warms up what stays (this thread's scratch, caches). */
        if (round == 0)
            before = mallinfo2().uordblks;
    }
    CHECK_EQ(atomic_load(&shm_bad), 0);
    /* 20 rounds losing a block per worker would be 3.75 MiB; sanitizers'
     * allocators report 0 here. */
    size_t after = mallinfo2().uordblks;
    CHECK(after < before + 1024u * 1024u);
}

/* ------------------------------------------------------- argument values */

typedef struct seen3 {
    int i;
    double d;
    void *p;
} seen3;
static seen3 seen;
static atomic_int seen_calls;

static void record_args(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    seen.i = *(int *)args[0];
    seen.d = *(double *)args[1];
    seen.p = *(void **)args[2];
    atomic_fetch_add(&seen_calls, 1);
}

GR_TEST(kernel_sees_argument_values_copied_at_launch)
{
    static atomic_int gate;
    size_t sizes[3] = {sizeof(int), sizeof(double), sizeof(void *)};
    int i = 42, other_i = -1;
    double d = 2.5;
    void *p = &gate;
    void *args[3] = {&i, &d, &p};
    grKernel_t k;
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grKernelCreate(&k, record_args, "record_args", 3, sizes));
    grStream_t s = tl_stream(0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    /* The stream is blocked: change everything the launch pointed at. */
    i = 7;
    d = -1.0;
    p = NULL;
    args[0] = &other_i;
    args[1] = NULL;
    args[2] = NULL;
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&seen_calls), 1);
    CHECK_EQ(seen.i, 42);
    CHECK(seen.d == 2.5);
    CHECK_PTR_EQ(seen.p, &gate);
    CHECK_EQ(atomic_load(&tl_gate_timeouts), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

typedef struct big {
    unsigned char bytes[200];
} big;
static atomic_int big_bad, big_calls;

/* Parameters: char, big, short, double, 16 x long long. */
static void check_big(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    const big *b = args[1];
    int bad = 0;
    bad |= *(char *)args[0] != 'x';
    for (int i = 0; i < 200; i++)
        bad |= b->bytes[i] != (unsigned char)(i * 7 + 1);
    bad |= *(short *)args[2] != -1234;
    bad |= *(double *)args[3] != 0.125;
    bad |= ((uintptr_t)args[3] & 7u) != 0;
    for (int i = 0; i < 16; i++) {
        bad |= *(long long *)args[4 + i] != 1000LL * i - 3;
        bad |= ((uintptr_t)args[4 + i] & 7u) != 0;
    }
    atomic_fetch_add(&big_bad, bad);
    atomic_fetch_add(&big_calls, 1);
}

GR_TEST(kernel_with_more_than_80_bytes_of_arguments_gets_them_all)
{
    static atomic_int gate;
    size_t sizes[20];
    void *args[20];
    char c = 'x';
    big b;
    short sh = -1234;
    double d = 0.125;
    long long ll[16];
    grKernel_t k;
    setenv("GRAPHRT_WORKERS", "2", 1);
    sizes[0] = sizeof c;
    sizes[1] = sizeof b;
    sizes[2] = sizeof sh;
    sizes[3] = sizeof d;
    for (int i = 0; i < 16; i++) {
        sizes[4 + i] = sizeof ll[i];
        ll[i] = 1000LL * i - 3;
        args[4 + i] = &ll[i];
    }
    for (int i = 0; i < 200; i++)
        b.bytes[i] = (unsigned char)(i * 7 + 1);
    args[0] = &c;
    args[1] = &b;
    args[2] = &sh;
    args[3] = &d;
    CHECK_OK(grKernelCreate(&k, check_big, "check_big", 20, sizes));
    grStream_t s = tl_stream(0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    /* Overwrite every value while the launch is queued. */
    c = 'y';
    memset(&b, 0, sizeof b);
    sh = 0;
    d = 0.0;
    for (int i = 0; i < 16; i++)
        ll[i] = 0;
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&big_calls), 3);
    CHECK_EQ(atomic_load(&big_bad), 0);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

/* The header documents ctx->worker as 0..workers. */
static atomic_uint max_worker;

static void note_worker(const grKernelCtx *ctx, void **args)
{
    (void)args;
    unsigned cur = atomic_load(&max_worker);
    while (ctx->worker > cur && !atomic_compare_exchange_weak(&max_worker, &cur, ctx->worker))
        ;
}

GR_TEST(kernel_ctx_worker_stays_within_the_documented_range)
{
    grKernel_t k;
    int workers = 0;
    setenv("GRAPHRT_WORKERS", "1", 1);
    CHECK_OK(grDeviceGetAttribute(&workers, grDevAttrMultiProcessorCount, 0));
    CHECK_OK(grKernelCreate(&k, note_worker, "note_worker", 0, NULL));
    grStream_t s = tl_stream(0);
    for (int i = 0; i < 200; i++) {
        CHECK_OK(grLaunchKernel(k, GR_DIM3(4, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s));
        CHECK_OK(grStreamSynchronize(s));
    }
    CHECK((int)atomic_load(&max_worker) <= workers);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

/* A kernel of many blocks runs on as many threads as there are workers:
 * the invitations to help (backend/cpu/kernel.c) reach every one of them,
 * parked ones too. The first block a thread runs waits (3 s at most)
 * until 8 threads have run blocks, so all of them must join. */
static atomic_uint threads_seen; /* a bit per ctx->worker */

static void meet_threads(const grKernelCtx *ctx, void **args)
{
    (void)args;
    unsigned bit = 1u << (ctx->worker & 31u);
    if (atomic_fetch_or(&threads_seen, bit) & bit)
        return; /* not this thread's first block */
    for (int waited = 0; waited < 3000 && __builtin_popcount(atomic_load(&threads_seen)) < 8; waited++)
        usleep(1000);
}

GR_TEST(kernel_blocks_reach_every_worker)
{
    grKernel_t k;
    setenv("GRAPHRT_WORKERS", "8", 1);
    CHECK_OK(grKernelCreate(&k, meet_threads, "meet_threads", 0, NULL));
    grStream_t s = tl_stream(grStreamNonBlocking);
    for (int round = 0; round < 3; round++) {
        atomic_store(&threads_seen, 0);
        CHECK_OK(grLaunchKernel(k, GR_DIM3(64, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, s));
        CHECK_OK(grStreamSynchronize(s));
        CHECK_EQ(__builtin_popcount(atomic_load(&threads_seen)), 8);
    }
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grKernelDestroy(k));
}

/* Kernels of many blocks on several streams at once: one of them at a
 * time hands out seats through the runtime's offer, the others invite
 * helpers through their deques (backend/cpu/kernel.c); every block of
 * every launch runs once either way. */
enum {
    CONC_STREAMS = 3,
    CONC_LAUNCHES = 40,
    CONC_BLOCKS = 300
};
static atomic_int conc_hits[CONC_STREAMS][CONC_BLOCKS];

static void count_stream_blocks(const grKernelCtx *ctx, void **args)
{
    int stream = *(int *)args[0];
    atomic_fetch_add(&conc_hits[stream][ctx->blockIdx.x], 1);
}

GR_TEST(kernels_of_many_blocks_on_several_streams_run_every_block_once)
{
    grKernel_t k;
    grStream_t s[CONC_STREAMS];
    size_t sizes[1] = {sizeof(int)};
    int ids[CONC_STREAMS];
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grKernelCreate(&k, count_stream_blocks, "count_stream_blocks", 1, sizes));
    for (int i = 0; i < CONC_STREAMS; i++) {
        ids[i] = i;
        CHECK_OK(grStreamCreateWithFlags(&s[i], grStreamNonBlocking));
    }
    for (int n = 0; n < CONC_LAUNCHES; n++)
        for (int i = 0; i < CONC_STREAMS; i++) {
            void *args[1] = {&ids[i]};
            CHECK_OK(grLaunchKernel(k, GR_DIM3(CONC_BLOCKS, 1, 1), GR_DIM3(1, 1, 1), args, 0, s[i]));
        }
    for (int i = 0; i < CONC_STREAMS; i++) {
        CHECK_OK(grStreamSynchronize(s[i]));
        for (int b = 0; b < CONC_BLOCKS; b++)
            if (atomic_load(&conc_hits[i][b]) != CONC_LAUNCHES)
                GR_TEST_FAIL_("stream %d block %d ran %d times, expected %d", i, b,
                              atomic_load(&conc_hits[i][b]), CONC_LAUNCHES);
        CHECK_OK(grStreamDestroy(s[i]));
    }
    CHECK_OK(grKernelDestroy(k));
}

/* ------------------------------------------------------------- bad input */

static atomic_int noop_calls;
static void noop_kernel(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
    atomic_fetch_add(&noop_calls, 1);
}

static grKernel_t make_two_param_kernel(void)
{
    size_t sizes[2] = {sizeof(int), sizeof(int)};
    grKernel_t k;
    CHECK_OK(grKernelCreate(&k, noop_kernel, "noop_kernel", 2, sizes));
    return k;
}

/* Arguments (1, 2) for make_two_param_kernel's kernel. */
static void **two_param_args(void)
{
    static int a = 1, b = 2;
    static void *args[2] = {&a, &b};
    return args;
}

/* After refused launches: once the legacy stream is idle, k (a
 * make_two_param_kernel) must never have run; it is destroyed. */
static void expect_no_launch_ran(grKernel_t k)
{
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&noop_calls), 0);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_launch_refuses_zero_dimensions)
{
    grKernel_t k = make_two_param_kernel();
    void **args = two_param_args();
    const grDim3 zero[3] = {GR_DIM3(0, 1, 1), GR_DIM3(1, 0, 1), GR_DIM3(1, 1, 0)};
    for (int i = 0; i < 3; i++) {
        CHECK_REFUSED(grErrorInvalidConfiguration, grLaunchKernel, k, zero[i], GR_DIM3(1, 1, 1), args, 0,
                      NULL);
        CHECK_DETAIL_HAS("noop_kernel");
        CHECK_REFUSED(grErrorInvalidConfiguration, grLaunchKernel, k, GR_DIM3(1, 1, 1), zero[i], args, 0,
                      NULL);
    }
    expect_no_launch_ran(k);
}

GR_TEST(kernel_launch_refuses_oversize_dimensions)
{
    grKernel_t k = make_two_param_kernel();
    void **args = two_param_args();
    const grDim3 bad_block[] = {GR_DIM3(1025, 1, 1), GR_DIM3(1, 1025, 1), GR_DIM3(1, 1, 65),
                                GR_DIM3(32, 32, 2), GR_DIM3(0xffffffffu, 1, 1)};
    const grDim3 bad_grid[] = {GR_DIM3(0x80000000u, 1, 1), GR_DIM3(1, 65536, 1), GR_DIM3(1, 1, 65536)};
    for (size_t i = 0; i < sizeof bad_block / sizeof bad_block[0]; i++) {
        CHECK_GR(grErrorInvalidConfiguration,
                 grLaunchKernel(k, GR_DIM3(1, 1, 1), bad_block[i], args, 0, NULL));
        CHECK_DETAIL_HAS("grLaunchKernel");
    }
    for (size_t i = 0; i < sizeof bad_grid / sizeof bad_grid[0]; i++) {
        CHECK_GR(grErrorInvalidConfiguration,
                 grLaunchKernel(k, bad_grid[i], GR_DIM3(1, 1, 1), args, 0, NULL));
        CHECK_DETAIL_HAS("grLaunchKernel");
    }
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&noop_calls), 0);
    /* The limits themselves are accepted. */
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1024, 1, 1), args, 0, NULL));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(16, 1, 64), args, 0, NULL));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(1, 1, 2), GR_DIM3(1, 1, 1), args, 48u * 1024u, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&noop_calls), 4);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_launch_refuses_missing_arguments)
{
    grKernel_t k = make_two_param_kernel();
    int a = 1;
    void *args[2] = {&a, NULL};
    CHECK_REFUSED(grErrorInvalidValue, grLaunchKernel, k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, NULL);
    CHECK_DETAIL_HAS("NULL");
    CHECK_REFUSED(grErrorInvalidValue, grLaunchKernel, k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL);
    CHECK_DETAIL_HAS("args[1]");
    expect_no_launch_ran(k);
}

GR_TEST(kernel_launch_refuses_too_much_shared_memory)
{
    grKernel_t k = make_two_param_kernel();
    void **args = two_param_args();
    CHECK_GR(grErrorInvalidValue,
             grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 48u * 1024u + 1u, NULL));
    CHECK_DETAIL_HAS("grLaunchKernel");
    CHECK_GR(grErrorInvalidValue,
             grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, (size_t)1 << 40, NULL));
    expect_no_launch_ran(k);
}

GR_TEST(kernel_launch_refuses_unknown_kernels)
{
    static _Alignas(64) unsigned char fake[1024]; /* zeroed memory that is no kernel */
    CHECK_GR(grErrorInvalidDeviceFunction,
             grLaunchKernel(NULL, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, NULL));
    CHECK_DETAIL_HAS("grLaunchKernel");
    CHECK_GR(grErrorInvalidDeviceFunction,
             grLaunchKernel((grKernel_t)(void *)fake, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, NULL));
    CHECK_DETAIL_HAS("grLaunchKernel");
    CHECK_REFUSED(grErrorInvalidDeviceFunction, grKernelDestroy, NULL);
    CHECK_GR(grErrorInvalidDeviceFunction, grKernelDestroy((grKernel_t)(void *)fake));
}

GR_TEST(kernel_launch_refuses_bad_and_destroyed_streams)
{
    static _Alignas(64) unsigned char fake[1024]; /* zeroed memory that is no stream */
    static atomic_int gate;
    grKernel_t k = make_two_param_kernel();
    void **args = two_param_args();
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_GR(grErrorInvalidResourceHandle,
             grLaunchKernel(k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args, 0, (grStream_t)(void *)fake));
    CHECK_DETAIL_HAS("grLaunchKernel");
    grStream_t s = tl_stream(0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grStreamDestroy(s)); /* the queued work keeps its memory */
    CHECK_REFUSED(grErrorInvalidResourceHandle, grLaunchKernel, k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args,
                  0, s);
    atomic_store(&gate, 1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&noop_calls), 0);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(destroyed_kernel_is_refused_while_a_launch_holds_it)
{
    static atomic_int gate;
    grKernel_t k = make_two_param_kernel();
    void **args = two_param_args();
    setenv("GRAPHRT_WORKERS", "2", 1);
    grStream_t s = tl_stream(0);
    CHECK_OK(grLaunchHostFunc(s, tl_wait_gate, &gate));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grKernelDestroy(k));
    CHECK_REFUSED(grErrorInvalidDeviceFunction, grLaunchKernel, k, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), args,
                  0, s);
    CHECK_REFUSED(grErrorInvalidDeviceFunction, grKernelDestroy, k);
    /* The queued launch still runs, with the destroyed kernel kept alive. */
    atomic_store(&gate, 1);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(atomic_load(&noop_calls), 2);
    CHECK_OK(grStreamDestroy(s));
}

static atomic_int sum_calls;
static atomic_llong sum_total;
static void add_arg(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    atomic_fetch_add(&sum_total, *(int *)args[0]);
    atomic_fetch_add(&sum_calls, 1);
}

GR_TEST(kernel_destroyed_with_many_launches_queued_runs_them_all)
{
    static atomic_int gate;
    size_t sizes[1] = {sizeof(int)};
    grKernel_t k;
    grStream_t s[2];
    setenv("GRAPHRT_WORKERS", "2", 1);
    CHECK_OK(grKernelCreate(&k, add_arg, "add_arg", 1, sizes));
    for (int j = 0; j < 2; j++)
        CHECK_OK(grStreamCreateWithFlags(&s[j], grStreamNonBlocking));
    CHECK_OK(grLaunchHostFunc(s[0], tl_wait_gate, &gate));
    for (int i = 1; i <= 500; i++) {
        void *args[1] = {&i};
        CHECK_OK(grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, 0, s[i % 2]));
    }
    CHECK_OK(grKernelDestroy(k));
    atomic_store(&gate, 1);
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&sum_calls), 1000);
    CHECK_EQ(atomic_load(&sum_total), 2LL * 500 * 501 / 2);
    /* The name is free again once the handle is destroyed. */
    CHECK_OK(grKernelCreate(&k, add_arg, "add_arg", 1, sizes));
    CHECK_OK(grKernelDestroy(k));
    for (int j = 0; j < 2; j++)
        CHECK_OK(grStreamDestroy(s[j]));
}

GR_TEST(kernel_create_refuses_a_duplicate_name)
{
    grKernel_t k1, k2 = (grKernel_t)(void *)0x1234;
    CHECK_OK(grKernelCreate(&k1, noop_kernel, "same_name", 0, NULL));
    CHECK_REFUSED(grErrorInvalidValue, grKernelCreate, &k2, noop_kernel, "same_name", 0, NULL);
    CHECK_DETAIL_HAS("same_name");
    CHECK_PTR_EQ(k2, (grKernel_t)(void *)0x1234);
    /* The first kernel is untouched. */
    CHECK_OK(grLaunchKernel(k1, GR_DIM3(1, 1, 1), GR_DIM3(1, 1, 1), NULL, 0, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    CHECK_EQ(atomic_load(&noop_calls), 1);
    CHECK_OK(grKernelDestroy(k1));
    CHECK_OK(grKernelCreate(&k2, noop_kernel, "same_name", 0, NULL));
    CHECK_OK(grKernelDestroy(k2));
}

GR_TEST(kernel_create_refuses_bad_arguments)
{
    grKernel_t k = (grKernel_t)(void *)0x1234;
    size_t sizes[2] = {4, 8};
    size_t zero[1] = {0};
    size_t huge[1] = {4097};
    CHECK_REFUSED(grErrorInvalidValue, grKernelCreate, NULL, noop_kernel, "k", 0, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grKernelCreate, &k, NULL, "k", 0, NULL);
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, NULL, 0, NULL));
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, "", 0, NULL));
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, "k", -1, sizes));
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, "k", 65, sizes));
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, "k", 2, NULL));
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, "k", 1, zero));
    CHECK_DETAIL_HAS("paramSizes[0]");
    CHECK_GR(grErrorInvalidValue, grKernelCreate(&k, noop_kernel, "k", 1, huge));
    CHECK_PTR_EQ(k, (grKernel_t)(void *)0x1234);
    /* None of the refused calls took the name. */
    CHECK_OK(grKernelCreate(&k, noop_kernel, "k", 2, sizes));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(kernel_launches_on_default_streams)
{
    size_t sizes[1] = {sizeof(int)};
    int v = 5;
    void *args[1] = {&v};
    grKernel_t k;
    CHECK_OK(grKernelCreate(&k, add_arg, "add_arg", 1, sizes));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(1, 1, 1), args, 0, NULL));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(1, 1, 1), args, 0, grStreamLegacy));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(3, 1, 1), GR_DIM3(1, 1, 1), args, 0, grStreamPerThread));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(atomic_load(&sum_calls), 9);
    CHECK_EQ(atomic_load(&sum_total), 45);
    CHECK_OK(grKernelDestroy(k));
}
