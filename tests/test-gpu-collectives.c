/*
 * test-gpu-collectives.c - collectives on NVIDIA GPUs through NCCL: a
 * one-GPU communicator (grCommInitDevices of one device) running every
 * collective eagerly on a GPU stream and as nodes of a graph replayed ten
 * times, the results read back and compared with values computed on the
 * host (on one rank each output is its input, reductions included); the
 * exec setter and grGraphExecUpdate moving a node's buffers; two GPUs of
 * one process, a thread per rank, where there are two (skipped with
 * fewer); communicators of grCommInitRank: one rank matching
 * grCommInitDevices' results, and two processes on two GPUs (skipped with
 * fewer); and the refusal where NCCL is not found. Every test asks for a
 * real GPU and is skipped, saying why, where there is none (the dispatch
 * paths run on the fake device in test-collectives.c). The streams are
 * blocking ones, so that the synchronous copies and memsets of the legacy
 * stream that fill and read the buffers are ordered with them.
 */
#include "testlib.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* grCommInitRank of one rank, with a unique id, on the current GPU: an
 * all-reduce eager and as a node replayed gives what the same calls on a
 * communicator of grCommInitDevices give. */
GR_TEST_T(gpu_nccl_init_rank_of_one_rank_matches_init_devices, 120)
{
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    grCommUniqueId id;
    memset(&id, 0, sizeof id);
    grError_t err = grCommGetUniqueId(&id);
    if (err == grErrorNotSupported)
        GR_TEST_SKIP("%s", grGetLastErrorDetail());
    CHECK_OK(err);
    grCommUniqueId zero;
    memset(&zero, 0, sizeof zero);
    CHECK(memcmp(&id, &zero, sizeof id) != 0);
    CHECK_OK(grSetDevice(1));
    grComm_t byrank = NULL, bydev = NULL;
    CHECK_OK(grCommInitRank(&byrank, 1, id, 0));
    int rank = -1, size = -1, dev = 1;
    CHECK_OK(grCommRank(byrank, &rank));
    CHECK_OK(grCommSize(byrank, &size));
    CHECK_EQ(rank, 0);
    CHECK_EQ(size, 1);
    CHECK_OK(grCommInitDevices(&bydev, 1, &dev));
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    float *a = gpu_alloc(N * sizeof *a), *r1 = gpu_alloc(N * sizeof *r1), *r2 = gpu_alloc(N * sizeof *r2);
    float h1[N], h2[N];
    put_floats(a, N, 3);
    grComm_t comms[2] = {byrank, bydev};
    float *outs[2] = {r1, r2};
    /* Eager. */
    for (int k = 0; k < 2; k++)
        CHECK_OK(grAllReduceAsync(a, outs[k], N, grCommFloat32, grCommSum, comms[k], s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(h1, r1, sizeof h1, grMemcpyDeviceToHost));
    CHECK_OK(grMemcpy(h2, r2, sizeof h2, grMemcpyDeviceToHost));
    CHECK(memcmp(h1, h2, sizeof h1) == 0);
    expect_floats(r1, N, 3);
    /* As nodes of one graph, replayed. */
    CHECK_OK(grMemset(r1, 0, N * sizeof *r1));
    CHECK_OK(grMemset(r2, 0, N * sizeof *r2));
    grGraph_t g;
    grGraphNode_t nd[2];
    CHECK_OK(grGraphCreate(&g, 0));
    for (int k = 0; k < 2; k++) {
        grCollectiveNodeParams p =
            tl_coll(grCollAllReduce, a, outs[k], N, grCommFloat32, grCommMax, 0, comms[k]);
        CHECK_OK(grGraphAddCollectiveNode(&nd[k], g, NULL, 0, &p));
    }
    grGraphExec_t e = tl_instantiate(g);
    put_floats(a, N, 11);
    for (int r = 0; r < 10; r++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(h1, r1, sizeof h1, grMemcpyDeviceToHost));
    CHECK_OK(grMemcpy(h2, r2, sizeof h2, grMemcpyDeviceToHost));
    CHECK(memcmp(h1, h2, sizeof h1) == 0);
    expect_floats(r1, N, 11);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(r1));
    CHECK_OK(grFree(r2));
    CHECK_OK(grCommDestroy(byrank));
    CHECK_OK(grCommDestroy(bydev));
    CHECK_OK(grSetDevice(0));
}

/* Two processes, one rank each on a GPU of its own, meeting through a
 * unique id made by the test before it starts them. A child of a process
 * that has initialised CUDA cannot use CUDA (the driver's rule, and
 * graphrt's loader state would be the parent's), so each rank is this
 * binary started afresh (fork, then exec of /proc/self/exe running this
 * test), told its rank, the id and the pipe for its results by the
 * environment: it sends back an eager all-reduce's sum and a replayed
 * node's max, which the test checks. */
#define TWO_PROC_TEST "gpu_nccl_two_processes_reduce_by_init_rank"

static void two_proc_rank(int rank, int fd, const char *hex)
{
    grCommUniqueId id;
    CHECK(strlen(hex) == 2 * sizeof id);
    for (size_t i = 0; i < sizeof id; i++) {
        unsigned v = 0;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
        id.internal[i] = (char)v;
    }
    CHECK_OK(grSetDevice(rank + 1));
    grComm_t c;
    CHECK_OK(grCommInitRank(&c, 2, id, rank));
    int got = -1, size = -1;
    CHECK_OK(grCommRank(c, &got));
    CHECK_OK(grCommSize(c, &size));
    CHECK_EQ(got, rank);
    CHECK_EQ(size, 2);
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    float h[N], back[2][N];
    float *a = gpu_alloc(sizeof h), *b = gpu_alloc(sizeof h);
    for (int i = 0; i < N; i++)
        h[i] = (float)(rank + 1) * (float)i;
    CHECK_OK(grMemcpy(a, h, sizeof h, grMemcpyHostToDevice));
    CHECK_OK(grAllReduceAsync(a, b, N, grCommFloat32, grCommSum, c, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(back[0], b, sizeof h, grMemcpyDeviceToHost));
    CHECK_OK(grMemset(b, 0, sizeof h));
    grGraph_t g;
    grGraphNode_t nd;
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommMax, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g);
    for (int k = 0; k < 10; k++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grMemcpy(back[1], b, sizeof h, grMemcpyDeviceToHost));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(c));
    /* Last: results come back only from a rank that got through. */
    CHECK(write(fd, back, sizeof back) == (ssize_t)sizeof back);
}

GR_TEST_T(gpu_nccl_two_processes_reduce_by_init_rank, 180)
{
    const char *as_rank = getenv("GR_TEST_NCCL_RANK");
    if (as_rank) {
        two_proc_rank(atoi(as_rank), atoi(getenv("GR_TEST_NCCL_FD")), getenv("GR_TEST_NCCL_ID"));
        return;
    }
    tl_use_gpu_or_skip();
    gr_test_real_gpu_or_skip();
    int count = 0;
    CHECK_OK(grGetDeviceCount(&count));
    if (count < 3)
        GR_TEST_SKIP("needs two GPUs (devices 1 and 2), one per process; this machine has %d", count - 1);
    grCommUniqueId id;
    grError_t err = grCommGetUniqueId(&id);
    if (err == grErrorNotSupported)
        GR_TEST_SKIP("%s", grGetLastErrorDetail());
    CHECK_OK(err);
    char hex[2 * sizeof id + 1];
    for (size_t i = 0; i < sizeof id; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)id.internal[i]);
    pid_t pid[2];
    int fds[2][2];
    for (int r = 0; r < 2; r++) {
        CHECK(pipe(fds[r]) == 0);
        fflush(stdout);
        fflush(stderr);
        pid[r] = fork();
        CHECK(pid[r] >= 0);
        if (pid[r] == 0) {
            char num[16], fdnum[16];
            snprintf(num, sizeof num, "%d", r);
            snprintf(fdnum, sizeof fdnum, "%d", fds[r][1]);
            close(fds[r][0]);
            setpgid(0, 0); /* the rank and the runner's child running it, killed together */
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 1); /* the rank's own TAP lines are not this run's */
            setenv("GR_TEST_NCCL_RANK", num, 1);
            setenv("GR_TEST_NCCL_FD", fdnum, 1);
            setenv("GR_TEST_NCCL_ID", hex, 1);
            execl("/proc/self/exe", "graphrt_tests", TWO_PROC_TEST, (char *)NULL);
            _exit(127);
        }
        setpgid(pid[r], pid[r]); /* as the child does: whichever runs first */
        close(fds[r][1]);
    }
    /* The results fit in a pipe's buffer: the ranks end without the
     * test reading. A rank that failed leaves its peer waiting for it in
     * grCommInitRank or a collective for ever: the peer is killed. */
    int status[2] = {0, 0};
    bool done[2] = {false, false};
    for (int left = 2; left > 0;) {
        for (int r = 0; r < 2; r++) {
            if (done[r] || waitpid(pid[r], &status[r], WNOHANG) != pid[r])
                continue;
            done[r] = true;
            left--;
            if (!(WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == 0) && !done[1 - r])
                kill(-pid[1 - r], SIGKILL);
        }
        if (left)
            usleep(10000);
    }
    float back[2][2][N];
    size_t got[2] = {0, 0};
    for (int r = 0; r < 2; r++) {
        ssize_t n;
        while (got[r] < sizeof back[r] &&
               (n = read(fds[r][0], (char *)back[r] + got[r], sizeof back[r] - got[r])) > 0)
            got[r] += (size_t)n;
        close(fds[r][0]);
        CHECK(WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == 0);
    }
    /* A rank that failed or skipped sent nothing. */
    for (int r = 0; r < 2; r++) {
        CHECK_EQ(got[r], sizeof back[r]);
        for (int i = 0; i < N; i++) {
            CHECK_EQ(back[r][0][i], 3.0f * (float)i); /* sum of ranks' 1i and 2i */
            CHECK_EQ(back[r][1][i], 2.0f * (float)i); /* max: rank 1's */
        }
    }
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
