/*
 * test-collectives.c - communicators and collective nodes on a one-rank
 * communicator (grCommInitSelf), which every build has: each operation
 * eager, captured and added by hand, replays, the executable's setter,
 * grGraphExecUpdate, clones, the generic node calls, DOT labels, graph
 * files, the order of one communicator's nodes, GPU communicators on the
 * fake device (its stand-in NCCL), and the refusals of bad parameters. The results across ranks
 * are tests/mpi/mpi-collectives.c's, run under mpiexec.
 */
#include "testlib.h"
#include "fakedev/fakedev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 64

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char *buf = malloc(65536);
    CHECK(buf != NULL);
    size_t len = fread(buf, 1, 65535, f);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void fill(float *a, size_t n, float base)
{
    for (size_t i = 0; i < n; i++)
        a[i] = base + (float)i;
}

static void expect(const float *a, size_t n, float base)
{
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(a[i], base + (float)i);
}

GR_TEST(comm_self_is_rank_0_of_1)
{
    grComm_t c;
    int rank = -1, size = -1;
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grCommRank(c, &rank));
    CHECK_OK(grCommSize(c, &size));
    CHECK_EQ(rank, 0);
    CHECK_EQ(size, 1);
    CHECK_OK(grCommDestroy(c));
    /* A destroyed handle is refused, never read after free. */
    CHECK_REFUSED(grErrorInvalidValue, grCommDestroy, c);
    CHECK_REFUSED(grErrorInvalidValue, grCommSize, c, &size);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitSelf, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grCommRank, NULL, &rank);
}

GR_TEST(comm_world_and_from_mpi_say_why_they_refuse)
{
    grComm_t c = NULL;
    int dummy = 0;
    /* Without MPI at build time: "built without MPI". With MPI, MPI is
     * not initialised in this process, which InitFromMpi refuses. */
    CHECK_GR(grErrorNotSupported, grCommInitFromMpi(&c, &dummy));
    const char *d = grGetLastErrorDetail();
    CHECK(strstr(d, "without MPI") != NULL || strstr(d, "not initialised") != NULL);
    if (strstr(d, "without MPI") != NULL) {
        CHECK_GR(grErrorNotSupported, grCommInitWorld(&c));
        CHECK_DETAIL_HAS("graphrt was built without MPI");
    }
    CHECK_REFUSED(grErrorInvalidValue, grCommInitFromMpi, &c, NULL);
}

/* Every operation eager on a CPU stream: on one rank, a copy. */
GR_TEST(eager_collectives_on_one_rank_copy_their_input)
{
    grComm_t c;
    grStream_t s = tl_stream(0);
    float in[N], out[N];
    CHECK_OK(grCommInitSelf(&c));
    const struct {
        int which;
        const char *name;
    } ops[] = {{0, "allreduce"}, {1, "bcast"}, {2, "reduce"}, {3, "allgather"}, {4, "reducescatter"}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        fill(in, N, (float)k * 100);
        memset(out, 0, sizeof out);
        switch (ops[k].which) {
        case 0:
            CHECK_OK(grAllReduceAsync(in, out, N, grCommFloat32, grCommSum, c, s));
            break;
        case 1:
            CHECK_OK(grBroadcastAsync(in, out, N, grCommFloat32, 0, c, s));
            break;
        case 2:
            CHECK_OK(grReduceAsync(in, out, N, grCommFloat32, grCommMax, 0, c, s));
            break;
        case 3:
            CHECK_OK(grAllGatherAsync(in, out, N, grCommFloat32, c, s));
            break;
        default:
            CHECK_OK(grReduceScatterAsync(in, out, N, grCommFloat32, grCommAvg, c, s));
            break;
        }
        CHECK_OK(grStreamSynchronize(s));
        expect(out, N, (float)k * 100);
    }
    /* In place. */
    fill(in, N, 7);
    CHECK_OK(grAllReduceAsync(in, in, N, grCommFloat32, grCommProd, c, s));
    /* A send, then its receive. */
    fill(in, N, 9);
    memset(out, 0, sizeof out);
    CHECK_OK(grSendAsync(in, N, grCommFloat32, 0, c, s));
    CHECK_OK(grRecvAsync(out, N, grCommFloat32, 0, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect(out, N, 9);
    /* The queued calls held the communicator: destroying it now is fine. */
    CHECK_OK(grCommDestroy(c));
}

GR_TEST(recv_without_send_on_one_rank_fails_instead_of_hanging)
{
    grComm_t c;
    grStream_t s = tl_stream(0);
    int out[4];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grRecvAsync(out, 4, grCommInt32, 0, c, s));
    CHECK_GR(grErrorIllegalState, grStreamSynchronize(s));
    CHECK_DETAIL_HAS("found no send");
    CHECK_OK(grCommDestroy(c));
}

/* One node of every operation, added by hand, replayed with new inputs. */
GR_TEST(collective_nodes_replay_every_operation)
{
    grComm_t c;
    grGraph_t g;
    grGraphNode_t n[7];
    enum {
        OPS = 7
    };
    static float in[OPS][N], out[OPS][N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p[OPS] = {
        tl_coll(grCollAllReduce, in[0], out[0], N, grCommFloat32, grCommSum, 0, c),
        tl_coll(grCollBroadcast, in[1], out[1], N, grCommFloat32, 0, 0, c),
        tl_coll(grCollReduce, in[2], out[2], N, grCommFloat32, grCommMin, 0, c),
        tl_coll(grCollAllGather, in[3], out[3], N, grCommFloat32, 0, 0, c),
        tl_coll(grCollReduceScatter, in[4], out[4], N, grCommFloat32, grCommAvg, 0, c),
        tl_coll(grCollSend, in[5], NULL, N, grCommFloat32, 0, 0, c),
        tl_coll(grCollRecv, NULL, out[5], N, grCommFloat32, 0, 0, c),
    };
    for (int k = 0; k < OPS; k++)
        CHECK_OK(grGraphAddCollectiveNode(&n[k], g, NULL, 0, &p[k]));
    /* The nodes hold the communicator. */
    CHECK_OK(grCommDestroy(c));
    grGraphNodeType t;
    CHECK_OK(grGraphNodeGetType(n[0], &t));
    CHECK_EQ(t, grGraphNodeTypeCollective);
    CHECK(strcmp(grGraphNodeTypeName(t), "collective") == 0);
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int r = 0; r < 100; r++) {
        for (int k = 0; k < 6; k++)
            fill(in[k], N, (float)(r * 10 + k));
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        for (int k = 0; k < 6; k++)
            expect(out[k], N, (float)(r * 10 + k));
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
}

/* Independent sends and receives of one communicator: instantiate runs
 * them in creation order, so each receive finds its send. Without that
 * order the workers would run some receive first (a fault). */
GR_TEST(collective_nodes_of_one_comm_run_in_creation_order)
{
    grComm_t c;
    grGraph_t g;
    grGraphNode_t nd;
    enum {
        PAIRS = 16
    };
    static int in[PAIRS], out[PAIRS];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    for (int k = 0; k < PAIRS; k++) {
        grCollectiveNodeParams sp = tl_coll(grCollSend, &in[k], NULL, 1, grCommInt32, 0, 0, c);
        grCollectiveNodeParams rp = tl_coll(grCollRecv, NULL, &out[k], 1, grCommInt32, 0, 0, c);
        CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &sp));
        CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &rp));
    }
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int r = 0; r < 50; r++) {
        for (int k = 0; k < PAIRS; k++)
            in[k] = r * 100 + k;
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        for (int k = 0; k < PAIRS; k++)
            CHECK_EQ(out[k], r * 100 + k);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
}

/* Captured stream calls become collective nodes with the call's
 * parameters, in stream order. */
GR_TEST(captured_collectives_become_nodes)
{
    grComm_t c;
    grGraph_t g;
    grStream_t s;
    static double a[N], b[N], d[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grAllReduceAsync(a, b, N, grCommFloat64, grCommSum, c, s));
    CHECK_OK(grBroadcastAsync(b, d, N, grCommFloat64, 0, c, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    size_t nn = 0;
    CHECK_OK(grGraphGetNodes(g, NULL, &nn));
    CHECK_EQ(nn, (size_t)2);
    grGraphNode_t nodes[2];
    CHECK_OK(grGraphGetNodes(g, nodes, &nn));
    grCollectiveNodeParams p;
    CHECK_OK(grGraphCollectiveNodeGetParams(nodes[0], &p));
    CHECK_EQ(p.op, grCollAllReduce);
    CHECK_EQ(p.datatype, grCommFloat64);
    CHECK_EQ(p.count, (size_t)N);
    CHECK_PTR_EQ(p.sendbuff, (const void *)a);
    CHECK_PTR_EQ(p.recvbuff, (void *)b);
    CHECK_PTR_EQ(p.comm, c);
    CHECK_OK(grGraphCollectiveNodeGetParams(nodes[1], &p));
    CHECK_EQ(p.op, grCollBroadcast);
    size_t ndeps = 0;
    CHECK_OK(grGraphNodeGetDependencies(nodes[1], NULL, NULL, &ndeps));
    CHECK_EQ(ndeps, (size_t)1);
    grGraphExec_t e = tl_instantiate(g);
    for (int r = 0; r < 20; r++) {
        for (int i = 0; i < N; i++)
            a[i] = r + i;
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        for (int i = 0; i < N; i++)
            CHECK_EQ(d[i], (double)(r + i));
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(c));
}

GR_TEST(exec_collective_setter_moves_buffers)
{
    grComm_t c, other;
    grGraph_t g;
    grGraphNode_t nd;
    static int a[N], b[N], x[N], y[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grCommInitSelf(&other));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommInt32, grCommSum, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g);
    grStream_t s = tl_stream(0);
    for (int i = 0; i < N; i++) {
        a[i] = i;
        x[i] = 1000 + i;
    }
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[5], 5);
    grCollectiveNodeParams q = tl_coll(grCollAllReduce, x, y, N / 2, grCommInt32, grCommMax, 0, c);
    CHECK_OK(grGraphExecCollectiveNodeSetParams(e, nd, &q));
    memset(b, 0, sizeof b);
    for (int r = 0; r < 10; r++) {
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
    }
    CHECK_EQ(y[5], 1005);
    CHECK_EQ(y[N / 2 - 1], 1000 + N / 2 - 1);
    CHECK_EQ(y[N / 2], 0); /* count N/2: the rest untouched */
    CHECK_EQ(b[5], 0);     /* the old buffers no longer */
    /* The graph's node is untouched. */
    grCollectiveNodeParams back;
    CHECK_OK(grGraphCollectiveNodeGetParams(nd, &back));
    CHECK_PTR_EQ(back.recvbuff, (void *)b);
    /* Another operation or communicator is refused. */
    q.op = grCollBroadcast;
    q.redop = 0;
    CHECK_REFUSED(grErrorInvalidValue, grGraphExecCollectiveNodeSetParams, e, nd, &q);
    CHECK_DETAIL_HAS("keeps its operation and communicator");
    q = tl_coll(grCollAllReduce, x, y, N, grCommInt32, grCommSum, 0, other);
    CHECK_REFUSED(grErrorInvalidValue, grGraphExecCollectiveNodeSetParams, e, nd, &q);
    /* The generic setter goes the same way. */
    grGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = grGraphNodeTypeCollective;
    gp.collective = tl_coll(grCollAllReduce, a, b, N, grCommInt32, grCommSum, 0, c);
    CHECK_OK(grGraphExecNodeSetParams(e, nd, &gp));
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[7], 7);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
    CHECK_OK(grCommDestroy(other));
}

GR_TEST(exec_update_changes_collective_buffers_not_their_op)
{
    grComm_t c;
    grGraph_t g, g2, g3;
    grGraphNode_t nd, nd2, nd3;
    static float a[N], b[N], x[N], y[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommSum, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g);
    CHECK_OK(grGraphCreate(&g2, 0));
    p = tl_coll(grCollAllReduce, x, y, N, grCommFloat32, grCommSum, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd2, g2, NULL, 0, &p));
    grGraphExecUpdateResultInfo info;
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    fill(x, N, 3);
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect(y, N, 3);
    /* Another operation: refused, the executable unchanged. */
    CHECK_OK(grGraphCreate(&g3, 0));
    p = tl_coll(grCollBroadcast, a, b, N, grCommFloat32, 0, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd3, g3, NULL, 0, &p));
    CHECK_GR(grErrorGraphExecUpdateFailure, grGraphExecUpdate(e, g3, &info));
    CHECK_EQ(info.result, grGraphExecUpdateErrorParametersChanged);
    fill(x, N, 5);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect(y, N, 5);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    CHECK_OK(grGraphDestroy(g3));
    CHECK_OK(grCommDestroy(c));
}

GR_TEST(cloned_collective_nodes_keep_their_comm)
{
    grComm_t c;
    grGraph_t g, k;
    grGraphNode_t nd, found;
    static int a[N], b[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollReduce, a, b, N, grCommInt32, grCommProd, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    CHECK_OK(grGraphClone(&k, g));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
    size_t nn = 1;
    CHECK_OK(grGraphGetNodes(k, &found, &nn));
    grGraphNodeParams gp;
    CHECK_OK(grGraphNodeGetParams(found, &gp));
    CHECK_EQ(gp.type, grGraphNodeTypeCollective);
    CHECK_EQ(gp.collective.op, grCollReduce);
    CHECK_EQ(gp.collective.redop, grCommProd);
    for (int i = 0; i < N; i++)
        a[i] = 2 * i;
    grGraphExec_t e = tl_instantiate(k);
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[9], 18);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(k));
}

GR_TEST(generic_add_node_makes_a_collective_node)
{
    grComm_t c;
    grGraph_t g;
    grGraphNode_t nd;
    static long long a[N], b[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    grGraphNodeParams gp;
    memset(&gp, 0, sizeof gp);
    gp.type = grGraphNodeTypeCollective;
    gp.collective = tl_coll(grCollAllGather, a, b, N, grCommInt64, 0, 0, c);
    CHECK_OK(grGraphAddNode(&nd, g, NULL, NULL, 0, &gp));
    gp.collective.count = N / 2;
    CHECK_OK(grGraphNodeSetParams(nd, &gp));
    grCollectiveNodeParams back;
    CHECK_OK(grGraphCollectiveNodeGetParams(nd, &back));
    CHECK_EQ(back.count, (size_t)(N / 2));
    back.count = N;
    CHECK_OK(grGraphCollectiveNodeSetParams(nd, &back));
    /* Other kinds' getters refuse it, and its getter refuses them. */
    grGraphNode_t empty;
    CHECK_OK(grGraphAddEmptyNode(&empty, g, NULL, 0));
    CHECK_REFUSED(grErrorInvalidValue, grGraphCollectiveNodeGetParams, empty, &back);
    CHECK_REFUSED(grErrorInvalidValue, grGraphCollectiveNodeGetParams, nd, NULL);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
}

GR_TEST(collective_parameters_are_checked)
{
    grComm_t c, dead;
    grGraph_t g;
    grGraphNode_t nd;
    static int a[N], b[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grCommInitSelf(&dead));
    CHECK_OK(grCommDestroy(dead));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommInt32, grCommSum, 0, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, NULL);
    p.datatype = (grCommDataType)42;
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("not a grCommDataType");
    p.datatype = grCommInt32;
    p.op = (grCollectiveOp)9;
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    p.op = grCollAllReduce;
    p.redop = (grCommRedOp)7;
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    p = tl_coll(grCollBroadcast, a, b, N, grCommInt32, grCommMax, 0, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("has no reduction");
    p = tl_coll(grCollBroadcast, a, b, N, grCommInt32, 0, 1, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("ranks 0 to 0");
    p = tl_coll(grCollAllReduce, a, b, N, grCommInt32, 0, 3, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    p = tl_coll(grCollAllReduce, NULL, b, N, grCommInt32, 0, 0, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("sendbuff is NULL");
    p = tl_coll(grCollRecv, NULL, NULL, N, grCommInt32, 0, 0, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("recvbuff is NULL");
    p = tl_coll(grCollAllReduce, a, a + 1, N - 1, grCommInt32, 0, 0, c);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("overlap");
    p = tl_coll(grCollAllReduce, a, b, N, grCommInt32, 0, 0, dead);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    CHECK_DETAIL_HAS("not a live communicator");
    p = tl_coll(grCollAllReduce, a, b, N, grCommInt32, 0, 0, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grGraphAddCollectiveNode, &nd, g, NULL, 0, &p);
    /* The stream calls check the same way and queue nothing. */
    CHECK_REFUSED(grErrorInvalidValue, grAllReduceAsync, a, b, N, (grCommDataType)-1, grCommSum, c,
                  tl_stream(0));
    CHECK_REFUSED(grErrorInvalidValue, grSendAsync, a, N, grCommInt32, 2, c, tl_stream(0));
    size_t nn = 5;
    CHECK_OK(grGraphGetNodes(g, NULL, &nn));
    CHECK_EQ(nn, (size_t)0);
    /* A count of zero moves nothing, with or without buffers. */
    p = tl_coll(grCollAllReduce, NULL, NULL, 0, grCommInt32, 0, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
}

GR_TEST(collective_nodes_show_in_dot)
{
    grComm_t c;
    grGraph_t g;
    grGraphNode_t nd;
    static float a[N], b[N];
    char path[] = "/tmp/graphrt-coll-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommAvg, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    CHECK_OK(grGraphDebugDotPrint(g, path, 0));
    char *text = read_text(path);
    CHECK(strstr(text, "collective") != NULL);
    CHECK(strstr(text, "all-reduce avg") != NULL);
    CHECK(strstr(text, "64 float32") != NULL);
    free(text);
    unlink(path);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
}

/* Saved and loaded: the same collectives; a one-rank file runs. */
GR_TEST(collective_nodes_round_trip_through_graph_files)
{
    grComm_t c;
    grGraph_t g, h;
    grGraphNode_t n1, n2, got[2];
    static float a[N], b[N];
    char path[] = "/tmp/graphrt-coll-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommAvg, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&n1, g, NULL, 0, &p));
    grCollectiveNodeParams q = tl_coll(grCollSend, b, NULL, N / 2, grCommInt8, 0, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&n2, g, &n1, 1, &q));
    CHECK_OK(grGraphSaveToFile(g, path, 0));
    char *text = read_text(path);
    CHECK(strstr(text, "coll op=all-reduce type=float32 redop=avg root=0 count=64") != NULL);
    CHECK(strstr(text, "coll op=send type=int8 redop=sum root=0 count=32") != NULL);
    CHECK(strstr(text, "rank=0 ranks=1") != NULL);
    free(text);
    CHECK_OK(grGraphLoadFromFile(&h, path, 0));
    size_t nn = 2;
    CHECK_OK(grGraphGetNodes(h, got, &nn));
    CHECK_EQ(nn, (size_t)2);
    grCollectiveNodeParams x, y;
    CHECK_OK(grGraphCollectiveNodeGetParams(got[0], &x));
    CHECK_OK(grGraphCollectiveNodeGetParams(got[1], &y));
    CHECK_EQ(x.op, grCollAllReduce);
    CHECK_EQ(x.redop, grCommAvg);
    CHECK_EQ(x.count, (size_t)N);
    CHECK_EQ(y.op, grCollSend);
    CHECK_EQ(y.datatype, grCommInt8);
    CHECK_EQ(y.count, (size_t)(N / 2));
    CHECK(y.recvbuff == NULL);
    CHECK_PTR_EQ(x.comm, y.comm); /* one communicator, as saved */
    int size = 0;
    CHECK_OK(grCommSize(x.comm, &size));
    CHECK_EQ(size, 1);
    /* A one-rank file runs: the send's data stays queued for no one. */
    grGraphExec_t e = tl_instantiate(h);
    grStream_t s = tl_stream(0);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(h));
    unlink(path);
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
}

/* A file saved by rank 1 of 2 loads with a stand-in communicator, which
 * does not run until the nodes get a live one; the tool's diff of two
 * ranks' files names the collective that differs. */
GR_TEST_T(loaded_collectives_of_several_ranks_stand_in_and_diff, 60)
{
    char p0[] = "/tmp/graphrt-coll-r0-XXXXXX", p1[] = "/tmp/graphrt-coll-r1-XXXXXX";
    const char *fmt =
        "graphrt-graph 1\n"
        "buffer b0 host 256\n"
        "buffer b1 host 256\n"
        "graph {\n"
        "  n0 coll op=all-reduce type=float32 redop=sum root=0 count=64 src=b0+0 dst=b1+0 rank=%d "
        "ranks=2\n"
        "  n1 coll op=broadcast type=float32 redop=sum root=1 count=%d src=b1+0 dst=b0+0 rank=%d "
        "ranks=2 after=n0\n"
        "}\n";
    char *paths[2] = {p0, p1};
    for (int r = 0; r < 2; r++) {
        int fd = mkstemp(paths[r]);
        CHECK(fd >= 0);
        FILE *f = fdopen(fd, "w");
        CHECK(f != NULL);
        fprintf(f, fmt, r, r == 0 ? 64 : 32, r);
        fclose(f);
    }
    grGraph_t h;
    grGraphNode_t got[2];
    grGraphExec_t e;
    CHECK_OK(grGraphLoadFromFile(&h, p1, 0));
    size_t nn = 2;
    CHECK_OK(grGraphGetNodes(h, got, &nn));
    grCollectiveNodeParams x;
    CHECK_OK(grGraphCollectiveNodeGetParams(got[1], &x));
    int rank = -1, size = 0;
    CHECK_OK(grCommRank(x.comm, &rank));
    CHECK_OK(grCommSize(x.comm, &size));
    CHECK_EQ(rank, 1);
    CHECK_EQ(size, 2);
    CHECK_EQ(x.root, 1);
    CHECK_REFUSED(grErrorNotSupported, grGraphInstantiate, &e, h, 0);
    CHECK_DETAIL_HAS("stands for rank 1 of 2");
    CHECK_REFUSED(grErrorNotSupported, grAllReduceAsync, x.recvbuff, x.recvbuff, 1, grCommFloat32, grCommSum,
                  x.comm, tl_stream(0));
    /* Given a live communicator, the nodes run. */
    grComm_t c;
    CHECK_OK(grCommInitSelf(&c));
    for (int k = 0; k < 2; k++) {
        CHECK_OK(grGraphCollectiveNodeGetParams(got[k], &x));
        x.comm = c;
        x.root = 0;
        CHECK_OK(grGraphCollectiveNodeSetParams(got[k], &x));
    }
    e = tl_instantiate(h);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(h));
    CHECK_OK(grCommDestroy(c));
#ifdef GR_TOOL_PATH
    char cmd[512], out[4096];
    snprintf(cmd, sizeof cmd, "'%s' diff '%s' '%s' 2>&1", GR_TOOL_PATH, p0, p1);
    FILE *pipe = popen(cmd, "r");
    CHECK(pipe != NULL);
    size_t len = fread(out, 1, sizeof out - 1, pipe);
    out[len] = '\0';
    pclose(pipe);
    CHECK(strstr(out, "parameters  n1 -> n1: count=64 -> count=32") != NULL);
    CHECK(strstr(out, "n0 -> n0") == NULL); /* the ranks' all-reduces agree */
    CHECK(strstr(out, "rank=0 -> rank=1") == NULL);
    /* analyze of both files compares their collective sequences. */
    snprintf(cmd, sizeof cmd, "'%s' analyze '%s' '%s' 2>&1", GR_TOOL_PATH, p0, p1);
    pipe = popen(cmd, "r");
    CHECK(pipe != NULL);
    len = fread(out, 1, sizeof out - 1, pipe);
    out[len] = '\0';
    CHECK(WEXITSTATUS(pclose(pipe)) == 1);
    CHECK(strstr(out, "the files differ at collective 2") != NULL);
    CHECK(strstr(out, ": n1 broadcast of 64 float32 (root 1)") != NULL);
    CHECK(strstr(out, ": n1 broadcast of 32 float32 (root 1)") != NULL);
    snprintf(cmd, sizeof cmd, "'%s' analyze '%s' '%s' 2>&1", GR_TOOL_PATH, p0, p0);
    pipe = popen(cmd, "r");
    CHECK(pipe != NULL);
    len = fread(out, 1, sizeof out - 1, pipe);
    out[len] = '\0';
    CHECK(WEXITSTATUS(pclose(pipe)) == 0);
    CHECK(strstr(out, "collectives: the 2 files agree (2 collectives each)") != NULL);
#endif
    unlink(p0);
    unlink(p1);
}

/* ------------------------------------------------ GPU communicators on
 * the fake device, whose stand-in NCCL makes one-rank communicators: the
 * dispatch of grCommInitDevices, the eager calls, the lowering, the
 * setter and the update, and the refusals. The results on a real GPU are
 * tests/test-gpu-collectives.c's. */

static void fake_or_skip(void)
{
    if (!gr_fakedev_active())
        GR_TEST_SKIP("no fake device");
}

GR_TEST(gpu_communicator_runs_eager_collectives_on_its_device)
{
    fake_or_skip();
    grComm_t c;
    int dev = 1, rank = -1, size = -1;
    gr_fakedev_reset_calls();
    CHECK_OK(grCommInitDevices(&c, 1, &dev));
    CHECK_EQ(gr_fakedev_calls("comm_init"), 1u);
    CHECK_OK(grCommRank(c, &rank));
    CHECK_OK(grCommSize(c, &size));
    CHECK_EQ(rank, 0);
    CHECK_EQ(size, 1);
    CHECK_OK(grSetDevice(1));
    float *a, *b;
    CHECK_OK(grMalloc((void **)&a, N * sizeof *a));
    CHECK_OK(grMalloc((void **)&b, N * N * sizeof *b));
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    fill(a, N, 2);
    memset(b, 0, N * N * sizeof *b);
    CHECK_OK(grAllReduceAsync(a, b, N, grCommFloat32, grCommProd, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect(b, N, 2);
    CHECK_OK(grBroadcastAsync(a, b + N, N, grCommFloat32, 0, c, s));
    CHECK_OK(grReduceAsync(a, b + 2 * N, N, grCommFloat32, grCommMax, 0, c, s));
    CHECK_OK(grAllGatherAsync(a, b + 3 * N, N, grCommFloat32, c, s));
    CHECK_OK(grReduceScatterAsync(a, b + 4 * N, N, grCommFloat32, grCommMin, c, s));
    CHECK_OK(grStreamSynchronize(s));
    for (int k = 1; k < 5; k++)
        expect(b + k * N, N, 2);
    CHECK_EQ(gr_fakedev_calls("coll_launch"), 5u);
    /* A refusal of the device's library reaches the caller. */
    gr_fakedev_fail("coll_launch", grErrorUnknown, 0);
    CHECK_REFUSED(grErrorUnknown, grAllReduceAsync, a, b, N, grCommFloat32, grCommSum, c, s);
    gr_fakedev_clear();
    /* The communicator outlives its handle while a call holds it. */
    CHECK_OK(grAllReduceAsync(a, b, N, grCommFloat32, grCommSum, c, s));
    CHECK_OK(grCommDestroy(c));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(gr_fakedev_calls("comm_free"), 1u);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grSetDevice(0));
}

GR_TEST(gpu_collective_nodes_lower_replay_set_and_update)
{
    fake_or_skip();
    grComm_t c;
    int dev = 1;
    CHECK_OK(grCommInitDevices(&c, 1, &dev));
    CHECK_OK(grSetDevice(1));
    int *a, *b, *x, *y;
    CHECK_OK(grMalloc((void **)&a, N * sizeof *a));
    CHECK_OK(grMalloc((void **)&b, N * sizeof *b));
    CHECK_OK(grMalloc((void **)&x, N * sizeof *x));
    CHECK_OK(grMalloc((void **)&y, N * sizeof *y));
    for (int i = 0; i < N; i++) {
        a[i] = i;
        x[i] = 1000 + i;
    }
    memset(b, 0, N * sizeof *b);
    memset(y, 0, N * sizeof *y);
    grGraph_t g, g2;
    grGraphNode_t nd, nd2;
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommInt32, grCommSum, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    gr_fakedev_reset_calls();
    grGraphExec_t e = tl_instantiate(g);
    CHECK_EQ(gr_fakedev_calls("lower_collective_node"), 1u);
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    for (int r = 0; r < 10; r++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[5], 5);
    /* The setter: the device first; its refusal changes nothing. */
    grCollectiveNodeParams q = tl_coll(grCollAllReduce, x, y, N, grCommInt32, grCommSum, 0, c);
    gr_fakedev_fail("exec_set_coll", grErrorUnknown, 0);
    CHECK_REFUSED(grErrorUnknown, grGraphExecCollectiveNodeSetParams, e, nd, &q);
    gr_fakedev_clear();
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(y[5], 0);
    CHECK_OK(grGraphExecCollectiveNodeSetParams(e, nd, &q));
    CHECK_EQ(gr_fakedev_calls("exec_set_coll"), 2u);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(y[5], 1005);
    /* An update that moves the buffers back reaches the device's node. */
    CHECK_OK(grGraphCreate(&g2, 0));
    CHECK_OK(grGraphAddCollectiveNode(&nd2, g2, NULL, 0, &p));
    grGraphExecUpdateResultInfo info;
    memset(b, 0, N * sizeof *b);
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(gr_fakedev_calls("exec_sync_collective"), 1u);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[7], 7);
    /* An update that changes nothing captures nothing again. */
    CHECK_OK(grGraphExecUpdate(e, g2, &info));
    CHECK_EQ(gr_fakedev_calls("exec_sync_collective"), 1u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(g2));
    /* Captured from a GPU stream, the same node. */
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grBroadcastAsync(x, b, N, grCommInt32, 0, c, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    e = tl_instantiate(g);
    CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK_EQ(b[3], 1003);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
    CHECK_OK(grFree(x));
    CHECK_OK(grFree(y));
    CHECK_OK(grSetDevice(0));
    CHECK_OK(grCommDestroy(c));
}

GR_TEST(communicators_are_refused_on_another_device)
{
    fake_or_skip();
    grComm_t cpu, gpu;
    grGraph_t g, h;
    grGraphNode_t nd;
    grGraphExec_t e;
    int dev = 1;
    static float a[N], b[N];
    CHECK_OK(grCommInitSelf(&cpu));
    CHECK_OK(grCommInitDevices(&gpu, 1, &dev));
    /* A CPU communicator's graph on a GPU, and a GPU's on the CPU: the
     * detail names both devices and the node. */
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommSum, 0, cpu);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    CHECK_OK(grGraphCreate(&h, 0));
    p.comm = gpu;
    CHECK_OK(grGraphAddCollectiveNode(&nd, h, NULL, 0, &p));
    CHECK_REFUSED(grErrorInvalidValue, grGraphInstantiate, &e, h, 0);
    CHECK_DETAIL_HAS("is of device 1");
    CHECK_DETAIL_HAS("work is of device 0");
    CHECK_OK(grSetDevice(1));
    CHECK_REFUSED(grErrorInvalidValue, grGraphInstantiate, &e, g, 0);
    CHECK_DETAIL_HAS("is of device 0 (the CPU)");
    CHECK_DETAIL_HAS("collective node");
    /* Eager: a stream of another device than the communicator's. */
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_REFUSED(grErrorInvalidValue, grAllReduceAsync, a, b, N, grCommFloat32, grCommSum, cpu, s);
    CHECK_DETAIL_HAS("the stream's work is of device 1");
    CHECK_OK(grSetDevice(0));
    grStream_t cs = tl_stream(0);
    gr_fakedev_reset_calls();
    CHECK_REFUSED(grErrorInvalidValue, grAllReduceAsync, a, b, N, grCommFloat32, grCommSum, gpu, cs);
    CHECK_EQ(gr_fakedev_calls("coll_launch"), 0u);
    /* NCCL pairs a send to oneself only in a group: refused on a GPU
     * communicator, accepted on a CPU one-rank communicator. */
    CHECK_REFUSED(grErrorNotSupported, grSendAsync, a, N, grCommFloat32, 0, gpu, s);
    CHECK_DETAIL_HAS("to itself");
    grCollectiveNodeParams sp = tl_coll(grCollRecv, NULL, b, N, grCommFloat32, 0, 0, gpu);
    CHECK_REFUSED(grErrorNotSupported, grGraphAddCollectiveNode, &nd, g, NULL, 0, &sp);
    CHECK_OK(grStreamSynchronize(s));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grGraphDestroy(h));
    CHECK_OK(grCommDestroy(cpu));
    CHECK_OK(grCommDestroy(gpu));
}

GR_TEST(comm_init_devices_checks_its_arguments)
{
    grComm_t c[2] = {NULL, NULL};
    int devs[2] = {1, 1}, cpu = 0, far = 99;
    CHECK_REFUSED(grErrorInvalidValue, grCommInitDevices, NULL, 1, devs);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitDevices, c, 1, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitDevices, c, 0, devs);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitDevices, c, 33, devs);
    CHECK_REFUSED(grErrorInvalidDevice, grCommInitDevices, c, 1, &cpu);
    CHECK_DETAIL_HAS("not a GPU");
    CHECK_REFUSED(grErrorInvalidDevice, grCommInitDevices, c, 1, &far);
    CHECK(c[0] == NULL);
    if (!gr_fakedev_active())
        return;
    CHECK_REFUSED(grErrorInvalidDevice, grCommInitDevices, c, 2, devs);
    CHECK_DETAIL_HAS("both device 1");
    /* The device's refusal (NCCL's, on a GPU) makes no communicator. */
    gr_fakedev_fail("comm_init", grErrorInitializationError, 0);
    CHECK_REFUSED(grErrorInitializationError, grCommInitDevices, c, 1, devs);
    gr_fakedev_clear();
    CHECK(c[0] == NULL);
    CHECK_OK(grCommInitDevices(c, 1, devs));
    CHECK(c[0] != NULL);
    CHECK_OK(grCommDestroy(c[0]));
}

/* grCommGetUniqueId and grCommInitRank: the argument checks and the CPU
 * device's refusal, in every build; without a GPU the unique id is
 * refused too. */
GR_TEST(comm_init_rank_checks_its_arguments)
{
    grComm_t c = NULL;
    grCommUniqueId id;
    memset(&id, 0, sizeof id);
    CHECK_EQ(sizeof id, (size_t)GR_COMM_UNIQUE_ID_BYTES);
    CHECK_REFUSED(grErrorInvalidValue, grCommGetUniqueId, NULL);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitRank, NULL, 1, id, 0);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitRank, &c, 0, id, 0);
    CHECK_DETAIL_HAS("nranks is 0");
    CHECK_REFUSED(grErrorInvalidValue, grCommInitRank, &c, -3, id, 0);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitRank, &c, 2, id, -1);
    CHECK_DETAIL_HAS("rank is -1");
    CHECK_REFUSED(grErrorInvalidValue, grCommInitRank, &c, 2, id, 2);
    CHECK_DETAIL_HAS("0 to 1");
    /* The CPU device: MPI's communicators are the way across processes. */
    CHECK_OK(grSetDevice(0));
    CHECK_REFUSED(grErrorNotSupported, grCommInitRank, &c, 1, id, 0);
    CHECK_DETAIL_HAS("current device is the CPU");
    CHECK_DETAIL_HAS("grCommInitWorld");
    CHECK_DETAIL_HAS("grCommInitFromMpi");
    CHECK(c == NULL);
    int count = 0;
    CHECK_OK(grGetDeviceCount(&count));
    if (count > 1)
        return;
    memset(&id, 0x5a, sizeof id);
    CHECK_REFUSED(grErrorNotSupported, grCommGetUniqueId, &id);
    CHECK_DETAIL_HAS("there is no GPU");
    CHECK_EQ((unsigned char)id.internal[0], 0x5au);
    CHECK_EQ((unsigned char)id.internal[GR_COMM_UNIQUE_ID_BYTES - 1], 0x5au);
}

/* A one-rank communicator made by grCommInitRank on the fake device,
 * whose stand-in NCCL makes ranks of one: the id reaches the device
 * whole, the communicator is of the current GPU, and runs eagerly and as
 * a node; refusals make nothing. */
GR_TEST(comm_init_rank_makes_a_communicator_of_the_current_gpu)
{
    fake_or_skip();
    grComm_t c = NULL;
    grCommUniqueId id, before;
    gr_fakedev_reset_calls();
    /* The device's refusal leaves the id as it was. */
    memset(&id, 0x33, sizeof id);
    before = id;
    gr_fakedev_fail("comm_unique_id", grErrorInitializationError, 0);
    CHECK_REFUSED(grErrorInitializationError, grCommGetUniqueId, &id);
    gr_fakedev_clear();
    CHECK(memcmp(&id, &before, sizeof id) == 0);
    CHECK_OK(grCommGetUniqueId(&id));
    CHECK(memcmp(&id, &before, sizeof id) != 0);
    CHECK_EQ(gr_fakedev_calls("comm_unique_id"), 2u);
    CHECK_OK(grSetDevice(1));
    /* Bytes that are no id, more ranks than the stand-in makes, and the
     * device's refusal: no communicator. */
    grCommUniqueId junk;
    memset(&junk, 0, sizeof junk);
    CHECK_REFUSED(grErrorInvalidValue, grCommInitRank, &c, 1, junk, 0);
    CHECK_DETAIL_HAS("no such unique id");
    CHECK_REFUSED(grErrorNotSupported, grCommInitRank, &c, 2, id, 1);
    gr_fakedev_fail("comm_init_rank", grErrorInitializationError, 0);
    CHECK_REFUSED(grErrorInitializationError, grCommInitRank, &c, 1, id, 0);
    gr_fakedev_clear();
    CHECK(c == NULL);
    CHECK_EQ(gr_fakedev_calls("comm_free"), 0u);
    CHECK_OK(grCommInitRank(&c, 1, id, 0));
    CHECK(c != NULL);
    CHECK_EQ(gr_fakedev_calls("comm_init_rank"), 4u);
    int rank = -1, size = -1;
    CHECK_OK(grCommRank(c, &rank));
    CHECK_OK(grCommSize(c, &size));
    CHECK_EQ(rank, 0);
    CHECK_EQ(size, 1);
    float *a, *b;
    CHECK_OK(grMalloc((void **)&a, N * sizeof *a));
    CHECK_OK(grMalloc((void **)&b, N * sizeof *b));
    fill(a, N, 3);
    memset(b, 0, N * sizeof *b);
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grAllReduceAsync(a, b, N, grCommFloat32, grCommSum, c, s));
    CHECK_OK(grStreamSynchronize(s));
    expect(b, N, 3);
    CHECK_EQ(gr_fakedev_calls("coll_launch"), 1u);
    grGraph_t g;
    grGraphNode_t nd;
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommMax, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    grGraphExec_t e = tl_instantiate(g);
    fill(a, N, 8);
    for (int r = 0; r < 3; r++)
        CHECK_OK(grGraphLaunch(e, s));
    CHECK_OK(grStreamSynchronize(s));
    expect(b, N, 8);
    /* The communicator is of device 1: a CPU stream refuses it. */
    CHECK_OK(grSetDevice(0));
    grStream_t cs = tl_stream(0);
    CHECK_REFUSED(grErrorInvalidValue, grAllReduceAsync, a, b, N, grCommFloat32, grCommSum, c, cs);
    CHECK_DETAIL_HAS("is of device 1");
    CHECK_OK(grStreamDestroy(cs));
    /* The graph and the executable hold the communicator past its
     * handle. */
    CHECK_OK(grCommDestroy(c));
    CHECK_OK(grGraphDestroy(g));
    CHECK_EQ(gr_fakedev_calls("comm_free"), 0u);
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grDeviceSynchronize());
    CHECK_EQ(gr_fakedev_calls("comm_free"), 1u);
    CHECK_OK(grFree(a));
    CHECK_OK(grFree(b));
}

/* A collective inside a conditional body is refused at instantiate, as
 * other kinds a body cannot hold are (every rank must run the same
 * collectives, which a body run or not on each rank would break). */
GR_TEST(collective_nodes_are_refused_in_conditional_bodies)
{
    grComm_t c;
    grGraph_t g;
    grGraphNode_t cn, nd;
    grGraphConditionalHandle h;
    static float a[N], b[N];
    CHECK_OK(grCommInitSelf(&c));
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphConditionalHandleCreate(&h, g, 0, 0));
    grGraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = grGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = grGraphCondTypeIf;
    cp.conditional.size = 1;
    CHECK_OK(grGraphAddNode(&cn, g, NULL, NULL, 0, &cp));
    grCollectiveNodeParams p = tl_coll(grCollAllReduce, a, b, N, grCommFloat32, grCommSum, 0, c);
    CHECK_OK(grGraphAddCollectiveNode(&nd, cp.conditional.phGraph_out[0], NULL, 0, &p));
    grGraphExec_t e;
    CHECK_REFUSED(grErrorInvalidValue, grGraphInstantiate, &e, g, 0);
    CHECK_DETAIL_HAS("a body may hold only");
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grCommDestroy(c));
}
