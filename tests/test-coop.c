/*
 * test-coop.c - cooperative launches and what a kernel's function
 * reports: a grid barrier (gr_grid_sync) between blocks on the CPU
 * device, eager, captured and as a kernel node with the cooperative
 * attribute; the co-residency limit, its error and detail, and the
 * occupancy answers that agree with it; the faults of a grid barrier
 * outside a cooperative launch or one that a block never reaches;
 * grFuncGetAttributes and grFuncGetParamInfo; the attribute reaching the
 * fake device; a cooperative launch on device 1 (a GPU, or the fake
 * device where there is none).
 */
#include "testlib.h"

#include "fakedev/fakedev.h"
#include "graphrt_kernel.h"

#include <stdlib.h>

GR_KERNEL_DECLARE(lang_grid_exchange);
GR_KERNEL_DECLARE(lang_grid_early);
GR_KERNEL_DECLARE(lang_sync_counts);
int gr_test_kernels_have_image(void);

enum {
    NT = 64,     /* threads per block */
    ROUNDS = 3,  /* grid barriers: 2 per round */
    WORKERS = 4, /* so that a grid has several blocks on any machine */
};

/* A fixed number of workers (the runtime starts after this): the
 * cooperative limit is 1 block per worker. */
static unsigned use_workers(void)
{
    int mp = 0;
    setenv("GRAPHRT_WORKERS", "4", 1);
    CHECK_OK(grDeviceGetAttribute(&mp, grDevAttrMultiProcessorCount, 0));
    CHECK_EQ(mp, WORKERS);
    return (unsigned)mp;
}

typedef struct exchange {
    unsigned *slots, *out, rounds, nb;
    void *args[3];
} exchange;

static void exchange_init(exchange *x, unsigned nb)
{
    x->nb = nb;
    x->rounds = ROUNDS;
    CHECK_OK(grMalloc((void **)&x->slots, nb * NT * sizeof(unsigned)));
    CHECK_OK(grMalloc((void **)&x->out, nb * NT * sizeof(unsigned)));
    memset(x->out, 0xff, nb * NT * sizeof(unsigned));
    x->args[0] = &x->slots;
    x->args[1] = &x->out;
    x->args[2] = &x->rounds;
}

/* Marks every output slot unwritten before a launch. */
static void exchange_reset(exchange *x)
{
    memset(x->out, 0xff, x->nb * NT * sizeof(unsigned));
}

/* Every thread read what the next block's thread wrote in each round,
 * and its block's shared memory stayed its own. */
static void exchange_check(const exchange *x)
{
    for (unsigned b = 0; b < x->nb; b++)
        for (unsigned t = 0; t < NT; t++) {
            unsigned next = (b + 1) % x->nb, want = 0;
            for (unsigned r = 0; r < x->rounds; r++)
                want += next * 1000u + (NT - 1 - t) + r;
            CHECK_EQ(x->out[b * NT + t], want);
        }
}

static void exchange_free(exchange *x)
{
    CHECK_OK(grFree(x->slots));
    CHECK_OK(grFree(x->out));
}

/* lang_grid_exchange, made, and *x set up for a grid of nb blocks. */
static grKernel_t exchange_kernel(exchange *x, unsigned nb)
{
    grKernel_t k;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_grid_exchange));
    exchange_init(x, nb);
    return k;
}

static void exchange_done(exchange *x, grKernel_t k)
{
    exchange_free(x);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(coop_grid_sync_orders_every_block_eager)
{
    unsigned max = use_workers();
    exchange x;
    grKernel_t k = exchange_kernel(&x, max);
    CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(max, 1, 1), GR_DIM3(NT, 1, 1), x.args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    exchange_check(&x);
    /* grLaunchKernelExC with the attribute is the same launch, on a
     * created stream, with fewer blocks. */
    grStream_t s = tl_stream(0);
    exchange y;
    exchange_init(&y, 2);
    grLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = grLaunchAttributeCooperative;
    a.val.cooperative = 1;
    grLaunchConfig_t cfg = {GR_DIM3(2, 1, 1), GR_DIM3(NT, 1, 1), 0, s, &a, 1};
    CHECK_OK(grLaunchKernelExC(&cfg, k, y.args));
    CHECK_OK(grStreamSynchronize(s));
    exchange_check(&y);
    CHECK_OK(grStreamDestroy(s));
    exchange_free(&x);
    exchange_free(&y);
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(coop_launch_captured_into_a_graph_keeps_its_grid_barrier)
{
    unsigned max = use_workers();
    grGraph_t g;
    grGraphExec_t e;
    exchange x;
    grKernel_t k = exchange_kernel(&x, max);
    grStream_t s = tl_stream(0);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(max, 1, 1), GR_DIM3(NT, 1, 1), x.args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    grGraphNode_t n;
    tl_get_nodes(g, &n, 1);
    grKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    CHECK_OK(grGraphKernelNodeGetAttribute(n, grKernelNodeAttributeCooperative, &v));
    CHECK_EQ(v.cooperative, 1);
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int i = 0; i < 2; i++) {
        exchange_reset(&x);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        exchange_check(&x);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    exchange_done(&x, k);
}

/* A kernel node made cooperative with its attribute; a grid larger than
 * the limit is refused at instantiation and by the executable's setter. */
GR_TEST(coop_kernel_node_attribute_runs_cooperatively_and_is_bounded)
{
    unsigned max = use_workers();
    grGraph_t g;
    grGraphExec_t e;
    grGraphNode_t n;
    exchange x;
    grKernel_t k = exchange_kernel(&x, max);
    CHECK_OK(grGraphCreate(&g, 0));
    grKernelNodeParams p = {k, GR_DIM3(max, 1, 1), GR_DIM3(NT, 1, 1), 0, x.args, NULL};
    CHECK_OK(grGraphAddKernelNode(&n, g, NULL, 0, &p));
    grKernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.cooperative = 1;
    CHECK_OK(grGraphKernelNodeSetAttribute(n, grKernelNodeAttributeCooperative, &v));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    exchange_check(&x);
    /* The setter keeps the node cooperative: a grid past the limit is
     * refused, one within it runs. */
    grKernelNodeParams big = p;
    big.gridDim = GR_DIM3(max + 1, 1, 1);
    CHECK_GR(grErrorCooperativeLaunchTooLarge, grGraphExecKernelNodeSetParams(e, n, &big));
    CHECK_DETAIL_HAS("lang_grid_exchange");
    grKernelNodeParams two = p;
    two.gridDim = GR_DIM3(2, 1, 1);
    CHECK_OK(grGraphExecKernelNodeSetParams(e, n, &two));
    exchange_reset(&x);
    CHECK_OK(grGraphLaunch(e, NULL));
    CHECK_OK(grStreamSynchronize(NULL));
    x.nb = 2;
    exchange_check(&x);
    x.nb = max;
    CHECK_OK(grGraphExecDestroy(e));
    /* Instantiating a graph whose cooperative node is too large fails. */
    CHECK_OK(grGraphKernelNodeSetParams(n, &big));
    CHECK_GR(grErrorCooperativeLaunchTooLarge, grGraphInstantiate(&e, g, 0));
    CHECK_DETAIL_HAS("co-resident");
    CHECK_OK(grGraphDestroy(g));
    exchange_done(&x, k);
}

GR_TEST(coop_grid_past_the_limit_is_refused_with_both_sizes)
{
    unsigned max = use_workers();
    exchange x;
    char want[64];
    grKernel_t k = exchange_kernel(&x, max + 1);
    CHECK_GR(grErrorCooperativeLaunchTooLarge,
             grLaunchCooperativeKernel(k, GR_DIM3(max + 1, 1, 1), GR_DIM3(NT, 1, 1), x.args, 0, NULL));
    snprintf(want, sizeof want, "grid of %u blocks", max + 1);
    CHECK_DETAIL_HAS(want);
    snprintf(want, sizeof want, "%u blocks the CPU device keeps co-resident", max);
    CHECK_DETAIL_HAS(want);
    CHECK_DETAIL_HAS("grLaunchCooperativeKernel");
    /* Counted over all three dimensions. */
    CHECK_GR(grErrorCooperativeLaunchTooLarge,
             grLaunchCooperativeKernel(k, GR_DIM3(2, 2, 2), GR_DIM3(NT, 1, 1), x.args, 0, NULL));
    /* Refused on a capturing stream too, the capture unharmed. */
    grGraph_t g;
    grStream_t s = tl_stream(0);
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_GR(grErrorCooperativeLaunchTooLarge,
             grLaunchCooperativeKernel(k, GR_DIM3(max + 1, 1, 1), GR_DIM3(NT, 1, 1), x.args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    /* Nothing ran, nothing stuck. */
    CHECK_OK(grDeviceSynchronize());
    exchange_done(&x, k);
}

static void expect_grid_fault(grKernel_t k, void **args, unsigned nb, bool coop, const char *piece)
{
    if (coop)
        CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(nb, 1, 1), GR_DIM3(NT, 1, 1), args, 0, NULL));
    else
        CHECK_OK(grLaunchKernel(k, GR_DIM3(nb, 1, 1), GR_DIM3(NT, 1, 1), args, 0, NULL));
    CHECK_GR(grErrorLaunchFailure, grDeviceSynchronize());
    CHECK_DETAIL_HAS(piece);
    CHECK_DETAIL_HAS("wait at gr_grid_sync");
    CHECK_OK(grDeviceReset());
    CHECK_OK(grDeviceSynchronize());
}

GR_TEST(coop_grid_sync_outside_a_cooperative_launch_is_a_fault)
{
    unsigned max = use_workers();
    exchange x;
    grKernel_t k = exchange_kernel(&x, max);
    expect_grid_fault(k, x.args, max, false, "gr_grid_sync in a launch that is not cooperative");
}

GR_TEST(coop_block_ending_before_the_grid_barrier_is_a_fault_not_a_hang)
{
    unsigned max = use_workers();
    grKernel_t k;
    unsigned *x;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_grid_early));
    CHECK_OK(grMalloc((void **)&x, max * sizeof(unsigned)));
    void *args[] = {&x};
    expect_grid_fault(k, args, max, true, "a block ended");
}

/* The occupancy calls describe the limit the launches enforce: max
 * active blocks per multiprocessor x multiprocessors is the largest grid
 * a cooperative launch takes. */
GR_TEST(coop_occupancy_answers_agree_with_the_cooperative_limit)
{
    unsigned max = use_workers();
    grKernel_t k;
    int nb = -1, mp = 0;
    size_t smem = 1;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_grid_exchange));
    CHECK_OK(grDeviceGetAttribute(&mp, grDevAttrMultiProcessorCount, 0));
    int coop = 0;
    CHECK_OK(grDeviceGetAttribute(&coop, grDevAttrCooperativeLaunch, 0));
    CHECK_EQ(coop, 1);
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, NT, 0));
    CHECK_EQ(nb, 1);
    CHECK_EQ((unsigned)(nb * mp), max);
    exchange x;
    exchange_init(&x, (unsigned)(nb * mp));
    CHECK_OK(
        grLaunchCooperativeKernel(k, GR_DIM3((unsigned)(nb * mp), 1, 1), GR_DIM3(NT, 1, 1), x.args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    exchange_check(&x);
    CHECK_GR(grErrorCooperativeLaunchTooLarge,
             grLaunchCooperativeKernel(k, GR_DIM3((unsigned)(nb * mp) + 1, 1, 1), GR_DIM3(NT, 1, 1), x.args,
                                       0, NULL));
    /* Blocks that cannot run: none active. */
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 1025, 0));
    CHECK_EQ(nb, 0);
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb, k, 1024, 48 * 1024 + 1, 0));
    CHECK_EQ(nb, 0);
    CHECK_OK(grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb, k, 1024, 48 * 1024,
                                                                  grOccupancyDisableCachingOverride));
    CHECK_EQ(nb, 1);
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb, k, NT, 0, 2));
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 0, 0));
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxActiveBlocksPerMultiprocessor(NULL, k, NT, 0));
    CHECK_GR(grErrorInvalidDeviceFunction, grOccupancyMaxActiveBlocksPerMultiprocessor(&nb, NULL, NT, 0));
    /* One block per worker: all the shared memory for one, none for two. */
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 1, NT));
    CHECK_EQ(smem, 48 * 1024);
    CHECK_OK(grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 2, NT));
    CHECK_EQ(smem, 0);
    CHECK_GR(grErrorInvalidValue, grOccupancyAvailableDynamicSMemPerBlock(&smem, k, 0, NT));
    /* Clusters: the co-resident blocks, by the cluster's size. */
    grLaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = grLaunchAttributeClusterDimension;
    a.val.clusterDim.x = 2;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    grLaunchConfig_t cfg = {GR_DIM3(2, 1, 1), GR_DIM3(NT, 1, 1), 0, NULL, &a, 1};
    int n = -1;
    CHECK_OK(grOccupancyMaxActiveClusters(&n, k, &cfg));
    CHECK_EQ(n, (int)max / 2);
    cfg.numAttrs = 0;
    CHECK_OK(grOccupancyMaxActiveClusters(&n, k, &cfg));
    CHECK_EQ(n, (int)max);
    CHECK_OK(grOccupancyMaxPotentialClusterSize(&n, k, &cfg));
    CHECK_EQ(n, (int)(max < 8 ? max : 8));
    CHECK_GR(grErrorInvalidValue, grOccupancyMaxPotentialClusterSize(&n, k, NULL));
    CHECK_OK(grDeviceSynchronize());
    exchange_done(&x, k);
}

GR_TEST(coop_func_get_attributes_reports_what_the_cpu_knows)
{
    grKernel_t k, plain;
    grFuncAttributes fa;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_grid_exchange));
    CHECK_OK(grFuncGetAttributes(&fa, k));
    CHECK_EQ(fa.maxThreadsPerBlock, 1024);
    CHECK_EQ(fa.numRegs, 0);
    CHECK_EQ(fa.sharedSizeBytes, 0);
    CHECK_EQ(fa.localSizeBytes, 64 * 1024); /* a fiber's default stack */
    CHECK_EQ(fa.maxDynamicSharedSizeBytes, 48 * 1024);
    CHECK_EQ(fa.preferredShmemCarveout, -1);
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeCpuStackSize, 100000));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeMaxDynamicSharedMemorySize, 1000));
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributePreferredSharedMemoryCarveout, 50));
    CHECK_OK(grFuncGetAttributes(&fa, k));
    CHECK_EQ(fa.localSizeBytes, 102400); /* rounded up to pages */
    CHECK_EQ(fa.maxDynamicSharedSizeBytes, 1000);
    CHECK_EQ(fa.preferredShmemCarveout, 50);
    CHECK_OK(grFuncSetAttribute(k, grFuncAttributeCpuStackSize, 0));
    /* A kernel without fibers has no per-thread stack of its own. */
    plain = tl_kernel_nop_create();
    CHECK_OK(grFuncGetAttributes(&fa, plain));
    CHECK_EQ(fa.localSizeBytes, 0);
    CHECK_GR(grErrorInvalidValue, grFuncGetAttributes(NULL, k));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetAttributes(&fa, NULL));
    CHECK_OK(grKernelDestroy(k));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetAttributes(&fa, k));
    CHECK_OK(grKernelDestroy(plain));
}

static void param_fn(const grKernelCtx *ctx, void **args)
{
    (void)ctx;
    (void)args;
}

GR_TEST(coop_func_get_param_info_gives_the_argument_layout)
{
    grKernel_t k;
    size_t sizes[] = {4, 8, 1, 16, 12};
    size_t want_off[] = {0, 8, 16, 32, 48};
    size_t off = 99, size = 99;
    CHECK_OK(grKernelCreate(&k, param_fn, "coop_param_layout", 5, sizes));
    for (size_t i = 0; i < 5; i++) {
        CHECK_OK(grFuncGetParamInfo(k, i, &off, &size));
        CHECK_EQ(off, want_off[i]);
        CHECK_EQ(size, sizes[i]);
    }
    CHECK_OK(grFuncGetParamInfo(k, 1, &off, NULL)); /* the size is optional */
    CHECK_EQ(off, 8);
    CHECK_GR(grErrorInvalidValue, grFuncGetParamInfo(k, 5, &off, &size));
    CHECK_DETAIL_HAS("past the last");
    CHECK_GR(grErrorInvalidValue, grFuncGetParamInfo(k, 0, NULL, &size));
    CHECK_GR(grErrorInvalidDeviceFunction, grFuncGetParamInfo(NULL, 0, &off, &size));
    /* A kernel of the kernel language: its parameters in order. */
    grKernel_t lk;
    CHECK_OK(GR_KERNEL_CREATE(&lk, lang_grid_exchange));
    CHECK_OK(grFuncGetParamInfo(lk, 2, &off, &size));
    CHECK_EQ(off, 2 * sizeof(void *));
    CHECK_EQ(size, sizeof(unsigned));
    CHECK_OK(grKernelDestroy(lk));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(coop_launch_reaches_the_fake_device_as_cooperative)
{
    if (!gr_test_fake_device())
        GR_TEST_SKIP("devices 1..N are not the fake device here (a GPU, or GRAPHRT_FAKEDEV=0)");
    use_workers();
    CHECK_OK(grSetDevice(1));
    grKernel_t k;
    size_t sizes[] = {sizeof(unsigned *), sizeof(unsigned), sizeof(unsigned)};
    CHECK_OK(grKernelCreate(&k, tl_fill_u32_fn, "coop_fake_fill", 3, sizes));
    CHECK_OK(grKernelSetImage(k, "// an image the fake device takes as it is", "coop_fake_fill"));
    unsigned *d = NULL, v = 5, n = 2;
    CHECK_OK(grMalloc((void **)&d, 2 * sizeof(unsigned)));
    void *args[] = {&d, &v, &n};
    grStream_t s = tl_stream(0);
    gr_fakedev_reset_calls();
    CHECK_OK(grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_EQ(gr_fakedev_calls("launch_cooperative"), 0);
    CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_EQ(gr_fakedev_calls("launch_cooperative"), 1);
    CHECK_EQ(gr_fakedev_calls("launch"), 2);
    CHECK_OK(grStreamSynchronize(s));
    unsigned h[2] = {0, 0};
    CHECK_OK(grMemcpy(h, d, sizeof h, grMemcpyDeviceToHost));
    CHECK_EQ(h[0], 5);
    CHECK_EQ(h[1], 5);
    /* Captured: the lowered node is the cooperative one. */
    grGraph_t g;
    grGraphExec_t e;
    v = 9;
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grLaunchKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(2, 1, 1), GR_DIM3(1, 1, 1), args, 0, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    CHECK_EQ(gr_fakedev_calls("lower_cooperative_node"), 1);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(h, d, sizeof h, grMemcpyDeviceToHost));
    CHECK_EQ(h[0], 9);
    CHECK_EQ(h[1], 9);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(d));
    CHECK_OK(grKernelDestroy(k));
}

GR_TEST(gpu_coop_grid_sync_orders_every_block)
{
    tl_use_gpu_or_skip();
    if (!gr_test_kernels_have_image())
        GR_TEST_SKIP("the test kernels were built without a GPU image (no CUDA compiler)");
    grKernel_t k;
    int mp = 0, per = 0;
    CHECK_OK(GR_KERNEL_CREATE(&k, lang_grid_exchange));
    CHECK_OK(grDeviceGetAttribute(&mp, grDevAttrMultiProcessorCount, 1));
    unsigned nb = (unsigned)mp, *slots = NULL, *out = NULL, rounds = ROUNDS;
    CHECK_OK(grMalloc((void **)&slots, nb * NT * sizeof(unsigned)));
    CHECK_OK(grMalloc((void **)&out, nb * NT * sizeof(unsigned)));
    void *args[] = {&slots, &out, &rounds};
    CHECK_OK(grLaunchCooperativeKernel(k, GR_DIM3(nb, 1, 1), GR_DIM3(NT, 1, 1), args, 0, NULL));
    CHECK_OK(grDeviceSynchronize());
    unsigned *h = malloc(nb * NT * sizeof(unsigned));
    CHECK(h != NULL);
    CHECK_OK(grMemcpy(h, out, nb * NT * sizeof(unsigned), grMemcpyDeviceToHost));
    for (unsigned b = 0; b < nb; b++)
        for (unsigned t = 0; t < NT; t++) {
            unsigned next = (b + 1) % nb, want = 0;
            for (unsigned r = 0; r < rounds; r++)
                want += next * 1000u + (NT - 1 - t) + r;
            CHECK_EQ(h[b * NT + t], want);
        }
    free(h);
    (void)per;
    CHECK_OK(grFree(slots));
    CHECK_OK(grFree(out));
    CHECK_OK(grKernelDestroy(k));
}
