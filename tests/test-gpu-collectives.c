/*
 * test-gpu-collectives.c - collectives on NVIDIA GPUs through NCCL: a
 * one-GPU communicator (grCommInitDevices of one device) running every
 * collective eagerly on a GPU stream and as nodes of a graph replayed ten
 * times, the results read back and compared with values computed on the
 * host (on one rank each output is its input, reductions included); the
 * exec setter and grGraphExecUpdate moving a node's buffers; two GPUs of
 * one process, a thread per rank, where there are two (skipped with
 * fewer); and the refusal where NCCL is not found. Every test asks for a
 * real GPU and is skipped, saying why, where there is none (the dispatch
 * paths run on the fake device in test-collectives.c). The streams are
 * blocking ones, so that the synchronous copies and memsets of the legacy
 * stream that fill and read the buffers are ordered with them.
 */
#include "testlib.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

/* A one-GPU communicator on device 1, made current; skips without a real
 * GPU or without NCCL (the detail says which). */
static grComm_t one_gpu_comm(void)
{
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    grComm_t c;
    int dev = 1;
    grError_t err = grCommInitDevices(&c, 1, &dev);
    if (err == grErrorNotSupported)
        GR_TEST_SKIP("%s", grGetLastErrorDetail());
    CHECK_OK(err);
    return c;
}

static void *gpu_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(grMalloc(&p, bytes));
    CHECK_OK(grMemset(p, 0, bytes));
    return p;
}

static void put_floats(float *d, size_t n, float base)
{
    float *h = malloc(n * sizeof *h);
    CHECK(h != NULL);
    for (size_t i = 0; i < n; i++)
        h[i] = base + (float)i * 0.5f;
    CHECK_OK(grMemcpy(d, h, n * sizeof *h, grMemcpyHostToDevice));
    free(h);
}

/* d[0..n) must hold what put_floats(base) wrote: a one-rank collective's
 * output is its input. */
static void expect_floats(const float *d, size_t n, float base)
{
    float *h = malloc(n * sizeof *h);
    CHECK(h != NULL);
    CHECK_OK(grMemcpy(h, d, n * sizeof *h, grMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(h[i], base + (float)i * 0.5f);
    free(h);
}

GR_TEST_T(gpu_nccl_eager_collectives_on_one_gpu, 120)
{
    grComm_t c = one_gpu_comm();
    int rank = -1, size = -1;
    CHECK_OK(grCommRank(c, &rank));
    CHECK_OK(grCommSize(c, &size));
    CHECK_EQ(rank, 0);
    CHECK_EQ(size, 1);
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    float *a = gpu_alloc(N * sizeof *a), *b = gpu_alloc(N * sizeof *b);
    put_floats(a, N, 1);
    static const grCommRedOp ops[] = {grCommSum, grCommProd, grCommMax, grCommMin, grCommAvg};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        CHECK_OK(grMemset(b, 0, N * sizeof *b));
        CHECK_OK(grAllReduceAsync(a, b, N, grCommFloat32, ops[k], c, s));
        CHECK_OK(grStreamSynchronize(s));
        expect_floats(b, N, 1);
    }
    /* In place. */
    put_floats(b, N, 7);
    CHECK_OK(grAllReduceAsync(b, b, N, grCommFloat32, grCommSum, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 7);
    /* Integers, with Max. */
    int32_t *ia = gpu_alloc(N * sizeof *ia), *ib = gpu_alloc(N * sizeof *ib);
    int32_t hi[N], back[N];
    for (int i = 0; i < N; i++)
        hi[i] = i * 3 - 500;
    CHECK_OK(grMemcpy(ia, hi, sizeof hi, grMemcpyHostToDevice));
    CHECK_OK(grAllReduceAsync(ia, ib, N, grCommInt32, grCommMax, c, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(back, ib, sizeof back, grMemcpyDeviceToHost));
    CHECK(memcmp(hi, back, sizeof hi) == 0);
    /* The other collectives. */
    CHECK_OK(grMemset(b, 0, N * sizeof *b));
    CHECK_OK(grBroadcastAsync(a, b, N, grCommFloat32, 0, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 1);
    CHECK_OK(grMemset(b, 0, N * sizeof *b));
    CHECK_OK(grReduceAsync(a, b, N, grCommFloat32, grCommSum, 0, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 1);
    CHECK_OK(grMemset(b, 0, N * sizeof *b));
    CHECK_OK(grAllGatherAsync(a, b, N, grCommFloat32, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 1);
    CHECK_OK(grMemset(b, 0, N * sizeof *b));
    CHECK_OK(grReduceScatterAsync(a, b, N, grCommFloat32, grCommSum, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 1);
    /* A CPU stream refuses the GPU's communicator. */
    CHECK_OK(grSetDevice(0));
    grStream_t cs = tl_stream(0);
    CHECK_REFUSED(grErrorInvalidValue, grAllReduceAsync, a, b, N, grCommFloat32, grCommSum, c, cs);
    CHECK_OK(grStreamDestroy(cs));
    CHECK_OK(grSetDevice(1));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grFree(ia));
    CHECK_OK(grFree(ib));
    CHECK_OK(grCommDestroy(c));
    CHECK_OK(grSetDevice(0));
}

GR_TEST_T(gpu_nccl_collective_nodes_replay_in_a_gpu_graph, 120)
{
    grComm_t c = one_gpu_comm();
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    float *buf[6];
    for (int i = 0; i < 6; i++)
        buf[i] = gpu_alloc(N * sizeof(float));
    /* A chain: each collective reads what the one before wrote. */
    grGraph_t g;
    grGraphNode_t nd[5];
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p[5] = {
        tl_coll(grCollAllReduce, buf[0], buf[1], N, grCommFloat32, grCommProd, 0, c),
        tl_coll(grCollBroadcast, buf[1], buf[2], N, grCommFloat32, 0, 0, c),
        tl_coll(grCollReduce, buf[2], buf[3], N, grCommFloat32, grCommMin, 0, c),
        tl_coll(grCollAllGather, buf[3], buf[4], N, grCommFloat32, 0, 0, c),
        tl_coll(grCollReduceScatter, buf[4], buf[5], N, grCommFloat32, grCommMax, 0, c),
    };
    for (int i = 0; i < 5; i++)
        CHECK_OK(grGraphAddCollectiveNode(&nd[i], g, i ? &nd[i - 1] : NULL, i ? 1 : 0, &p[i]));
    grGraphExec_t e = tl_instantiate(g);
    for (int r = 0; r < 10; r++) {
        put_floats(buf[0], N, (float)r);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        for (int i = 1; i < 6; i++)
            expect_floats(buf[i], N, (float)r);
    }
    /* Replays without host work in between: the last input stays. */
    for (int r = 0; r < 10; r++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(buf[5], N, 9);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    /* Captured from the GPU stream. */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grAllReduceAsync(buf[0], buf[1], N, grCommFloat32, grCommAvg, c, s));
    CHECK_OK(grAllGatherAsync(buf[1], buf[2], N, grCommFloat32, c, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    e = tl_instantiate(g);
    put_floats(buf[0], N, 42);
    for (int r = 0; r < 10; r++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(buf[2], N, 42);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    for (int i = 0; i < 6; i++)
        CHECK_OK(grFree(buf[i]));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(c));
    CHECK_OK(grSetDevice(0));
}

GR_TEST_T(gpu_nccl_setter_and_update_move_a_nodes_buffers, 120)
{
    grComm_t c = one_gpu_comm();
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    float *a = gpu_alloc(N * sizeof *a), *b = gpu_alloc(N * sizeof *b);
    float *x = gpu_alloc(N * sizeof *x), *y = gpu_alloc(N * sizeof *y);
    put_floats(a, N, 1);
    put_floats(x, N, 100);
    grGraph_t g, g2;
    grGraphNode_t nd, nd2;
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommSum, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 1);
    /* The setter: x -> y, the old buffers no longer written. */
    CHECK_OK(grMemset(b, 0, N * sizeof *b));
    grCollectiveNodeParams q = tl_coll(grCollAllReduce, x, y, N, grCommFloat32, grCommMax, 0, c);
    CHECK_OK(grGraphExecCollectiveNodeSetParams(e, nd, &q));
    for (int r = 0; r < 10; r++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(y, N, 100);
    float zero[4] = {1, 1, 1, 1};
    CHECK_OK(grMemcpy(zero, b, sizeof zero, grMemcpyDeviceToHost));
    CHECK_EQ(zero[0], 0.0f);
    CHECK_EQ(zero[3], 0.0f);
    /* Another op is refused and changes nothing. */
    q.op = grCollBroadcast;
    q.redop = 0;
    CHECK_REFUSED(grErrorInvalidValue, grGraphExecCollectiveNodeSetParams, e, nd, &q);
    /* An update back to a -> b. */
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddCollectiveNode(&nd2, g2, NULL, 0, &p));
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    put_floats(a, N, 5);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect_floats(b, N, 5);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grFree(x));
    CHECK_OK(grFree(y));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(c));
    CHECK_OK(grSetDevice(0));
}

/* One rank of the two-GPU test: NCCL wants each rank of a group that is
 * not grouped (ncclGroupStart) driven by a thread of its own. */
typedef struct rank_arg {
    grComm_t comm;
    int device, rank;
    int ok;
} rank_arg;

static void *two_gpu_rank(void *v)
{
    rank_arg *r = v;
    float h[N], back[N];
    float *a = NULL, *b = NULL;
    grStream_t s;
    grGraph_t g;
    grGraphNode_t nd;
    grGraphExec_t e;
    if (grSetDevice(r->device) || grStreamCreate(&s) || grMalloc((void **)&a, sizeof h) ||
        grMalloc((void **)&b, sizeof h))
        return NULL;
    for (int i = 0; i < N; i++)
        h[i] = (float)(r->rank + 1) * (float)i;
    int ok = grMemcpy(a, h, sizeof h, grMemcpyHostToDevice) == grSuccess;
    /* Eager: the sum of ranks 1 and 2 is 3 * i. */
    ok = ok && grAllReduceAsync(a, b, N, grCommFloat32, grCommSum, r->comm, s) == grSuccess &&
         grStreamSynchronize(s) == grSuccess &&
         grMemcpy(back, b, sizeof back, grMemcpyDeviceToHost) == grSuccess;
    for (int i = 0; ok && i < N; i++)
        ok = back[i] == 3.0f * (float)i;
    /* As a node, replayed: Max is rank 1's. */
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommMax, 0, r->comm);
    ok = ok && grGraphCreate(&g, 0) == grSuccess &&
         grGraphAddCollectiveNode(&nd, g, NULL, 0, &p) == grSuccess &&
         grGraphInstantiate(&e, g, 0) == grSuccess;
    for (int k = 0; ok && k < 10; k++)
        ok = grGraphLaunch(e, s) == grSuccess;
    ok = ok && grStreamSynchronize(s) == grSuccess &&
         grMemcpy(back, b, sizeof back, grMemcpyDeviceToHost) == grSuccess;
    for (int i = 0; ok && i < N; i++)
        ok = back[i] == 2.0f * (float)i;
    if (ok) {
        grGraphExecDestroy(e);
        grGraphDestroy(g);
    }
    grFree(a);
    grFree(b);
    grStreamDestroy(s);
    r->ok = ok;
    return NULL;
}

GR_TEST_T(gpu_nccl_two_gpus_reduce_across_ranks, 180)
{
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    int count = 0;
    CHECK_OK(grGetDeviceCount(&count));
    if (count < 3)
        GR_TEST_SKIP("needs two GPUs (devices 1 and 2); this machine has %d", count - 1);
    grComm_t comms[2];
    int devs[2] = {1, 2};
    grError_t err = grCommInitDevices(comms, 2, devs);
    if (err == grErrorNotSupported)
        GR_TEST_SKIP("%s", grGetLastErrorDetail());
    CHECK_OK(err);
    rank_arg args[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        int rank = -1;
        CHECK_OK(grCommRank(comms[i], &rank));
        CHECK_EQ(rank, i);
        args[i] = (rank_arg){comms[i], devs[i], i, 0};
        CHECK(pthread_create(&t[i], NULL, two_gpu_rank, &args[i]) == 0);
    }
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(args[0].ok);
    CHECK(args[1].ok);
    /* A communicator of GPU 2 on a stream of GPU 1: refused. */
    CHECK_OK(grSetDevice(1));
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    float *a = gpu_alloc(N * sizeof *a);
    CHECK_REFUSED(grErrorInvalidValue, grAllReduceAsync, a, a, N, grCommFloat32, grCommSum, comms[1], s);
    CHECK_DETAIL_HAS("is of device 2");
    CHECK_OK(grFree(a));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(comms[0]));
    CHECK_OK(grCommDestroy(comms[1]));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_nccl_not_found_is_refused_with_where_it_looked)
{
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    /* The runner forks each test: NCCL has not been looked for yet. */
    CHECK(setenv("GRAPHRT_NCCL", "/nonexistent/libnccl.so.2", 1) == 0);
    grComm_t c = NULL;
    int dev = 1;
    CHECK_REFUSED(grErrorNotSupported, grCommInitDevices, &c, 1, &dev);
    CHECK_DETAIL_HAS("not found");
    CHECK_DETAIL_HAS("/nonexistent/libnccl.so.2");
    CHECK(c == NULL);
    unsetenv("GRAPHRT_NCCL");
    CHECK_OK(grSetDevice(0));
}
