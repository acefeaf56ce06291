/*
 * mpi-collectives.c - collectives across MPI ranks (docs/collectives.md),
 * run by CTest under `mpiexec -n 2` and `-n 4` where graphrt is built
 * with MPI (GR_WITH_MPI): every operation eager and as graph nodes, on
 * every rank; a graph with all of them replayed 100 times with new
 * inputs; a captured graph; the executable's setter moving a node's
 * buffers; and instantiations whose ranks built different collective
 * sequences, which must fail on every rank with a detail naming the
 * first differing collective instead of hanging.
 *
 * Usage: mpiexec -n N graphrt_mpi_tests [--world]. With --world graphrt
 * initialises MPI (grCommInitWorld) and finalises it when the
 * communicator dies; without it the program initialises MPI itself and
 * hands MPI_COMM_WORLD to grCommInitFromMpi. A failed check aborts the
 * whole job (MPI_Abort), so that no rank waits for a dead one.
 */
#include <graphrt.h>
#include <mpi.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static unsigned checks;

#define CHECK(cond)                                                                                 \
    do {                                                                                            \
        checks++;                                                                                   \
        if (!(cond)) {                                                                              \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s (last detail: %s)\n", rank, __FILE__, \
                    __LINE__, #cond, grGetLastErrorDetail());                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                           \
        }                                                                                           \
    } while (0)
#define CHECK_OK(call) CHECK((call) == grSuccess)

#define C 16 /* elements per rank */

static grCollectiveNodeParams coll(grCollectiveOp op, const void *send, void *recv, size_t count,
                                   grCommDataType t, grCommRedOp r, int root, grComm_t comm)
{
    grCollectiveNodeParams p;
    memset(&p, 0, sizeof p);
    p.op = op;
    p.sendbuff = send;
    p.recvbuff = recv;
    p.count = count;
    p.datatype = t;
    p.redop = r;
    p.root = root;
    p.comm = comm;
    return p;
}

/* The buffers of one round of every operation. */
typedef struct bufs {
    float ar_in[C], ar_out[C];     /* all-reduce sum */
    double avg_in[C], avg_out[C];  /* all-reduce avg */
    int bc_in[C], bc_out[C];       /* broadcast from root 1 % size */
    long long rd_in[C], rd_out[C]; /* reduce max to root 0 */
    int ag_in[C], *ag_out;         /* all-gather */
    float *rs_in, rs_out[C];       /* reduce-scatter sum */
    int p2p_in[C], p2p_out[C];     /* ring: send right, receive from the left */
} bufs;

static void bufs_init(bufs *b)
{
    memset(b, 0, sizeof *b);
    b->ag_out = calloc((size_t)size * C, sizeof *b->ag_out);
    b->rs_in = calloc((size_t)size * C, sizeof *b->rs_in);
    CHECK(b->ag_out && b->rs_in);
}

static void bufs_free(bufs *b)
{
    free(b->ag_out);
    free(b->rs_in);
}

/* Inputs of round 'it', outputs cleared. */
static void inputs(bufs *b, int it)
{
    for (int i = 0; i < C; i++) {
        b->ar_in[i] = (float)(rank + i + it);
        b->avg_in[i] = (double)(4 * rank + i + it);
        b->bc_in[i] = rank * 1000 + i + it;
        b->rd_in[i] = (long long)rank * 10 + i + it;
        b->ag_in[i] = rank * 100 + i + it;
        b->p2p_in[i] = rank * 7 + i + it;
    }
    for (int j = 0; j < size * C; j++)
        b->rs_in[j] = (float)(rank + j + it);
    memset(b->ar_out, 0, sizeof b->ar_out);
    memset(b->avg_out, 0, sizeof b->avg_out);
    memset(b->bc_out, 0, sizeof b->bc_out);
    memset(b->rd_out, 0, sizeof b->rd_out);
    memset(b->ag_out, 0, (size_t)size * C * sizeof *b->ag_out);
    memset(b->rs_out, 0, sizeof b->rs_out);
    memset(b->p2p_out, 0, sizeof b->p2p_out);
}

static void outputs(const bufs *b, int it)
{
    int ranksum = size * (size - 1) / 2, root = 1 % size, left = (rank + size - 1) % size;
    for (int i = 0; i < C; i++) {
        CHECK(b->ar_out[i] == (float)(ranksum + size * (i + it)));
        CHECK(b->avg_out[i] == (double)(4 * ranksum + size * (i + it)) / size);
        CHECK(b->bc_out[i] == root * 1000 + i + it);
        if (rank == 0)
            CHECK(b->rd_out[i] == (long long)(size - 1) * 10 + i + it);
        CHECK(b->rs_out[i] == (float)(ranksum + size * (rank * C + i + it)));
        CHECK(b->p2p_out[i] == left * 7 + i + it);
    }
    for (int r = 0; r < size; r++)
        for (int i = 0; i < C; i++) {
            if (b->ag_out[r * C + i] != r * 100 + i + it)
                fprintf(stderr, "rank %d it %d ag_out[%d] = %d\n", rank, it, r * C + i, b->ag_out[r * C + i]);
            CHECK(b->ag_out[r * C + i] == r * 100 + i + it);
        }
}

/* The ring exchange in the order that cannot deadlock with blocking
 * sends: rank 0 sends first, every other rank receives first. */
static void ring_params(bufs *b, grComm_t comm, grCollectiveNodeParams out[2])
{
    grCollectiveNodeParams s = coll(grCollSend, b->p2p_in, NULL, C, grCommInt32, 0, (rank + 1) % size, comm);
    grCollectiveNodeParams r =
        coll(grCollRecv, NULL, b->p2p_out, C, grCommInt32, 0, (rank + size - 1) % size, comm);
    out[0] = rank == 0 ? s : r;
    out[1] = rank == 0 ? r : s;
}

static int all_params(bufs *b, grComm_t comm, grCollectiveNodeParams *p)
{
    int n = 0;
    p[n++] = coll(grCollAllReduce, b->ar_in, b->ar_out, C, grCommFloat32, grCommSum, 0, comm);
    p[n++] = coll(grCollAllReduce, b->avg_in, b->avg_out, C, grCommFloat64, grCommAvg, 0, comm);
    p[n++] = coll(grCollBroadcast, b->bc_in, b->bc_out, C, grCommInt32, 0, 1 % size, comm);
    p[n++] = coll(grCollReduce, b->rd_in, b->rd_out, C, grCommInt64, grCommMax, 0, comm);
    p[n++] = coll(grCollAllGather, b->ag_in, b->ag_out, C, grCommInt32, 0, 0, comm);
    p[n++] = coll(grCollReduceScatter, b->rs_in, b->rs_out, C, grCommFloat32, grCommSum, 0, comm);
    ring_params(b, comm, &p[n]);
    return n + 2;
}

static void eager(grComm_t comm, grStream_t s)
{
    bufs b;
    grCollectiveNodeParams p[8];
    bufs_init(&b);
    inputs(&b, 3);
    int n = all_params(&b, comm, p);
    for (int k = 0; k < n; k++) {
        const grCollectiveNodeParams *q = &p[k];
        switch (q->op) {
        case grCollAllReduce:
            CHECK_OK(grAllReduceAsync(q->sendbuff, q->recvbuff, q->count, q->datatype, q->redop, comm, s));
            break;
        case grCollBroadcast:
            CHECK_OK(grBroadcastAsync(q->sendbuff, q->recvbuff, q->count, q->datatype, q->root, comm, s));
            break;
        case grCollReduce:
            CHECK_OK(
                grReduceAsync(q->sendbuff, q->recvbuff, q->count, q->datatype, q->redop, q->root, comm, s));
            break;
        case grCollAllGather:
            CHECK_OK(grAllGatherAsync(q->sendbuff, q->recvbuff, q->count, q->datatype, comm, s));
            break;
        case grCollReduceScatter:
            CHECK_OK(
                grReduceScatterAsync(q->sendbuff, q->recvbuff, q->count, q->datatype, q->redop, comm, s));
            break;
        case grCollSend:
            CHECK_OK(grSendAsync(q->sendbuff, q->count, q->datatype, q->root, comm, s));
            break;
        case grCollRecv:
            CHECK_OK(grRecvAsync(q->recvbuff, q->count, q->datatype, q->root, comm, s));
            break;
        default:
            CHECK(0);
        }
    }
    CHECK_OK(grStreamSynchronize(s));
    outputs(&b, 3);
    bufs_free(&b);
}

/* Every operation as an independent node (the ring's two in the safe
 * order), replayed 100 times with new inputs; then a setter moves the
 * all-reduce to other buffers. */
static void replay(grComm_t comm, grStream_t s)
{
    bufs b;
    grCollectiveNodeParams p[8];
    grGraphNode_t nodes[8];
    grGraph_t g;
    grGraphExec_t e;
    bufs_init(&b);
    int n = all_params(&b, comm, p);
    CHECK_OK(grGraphCreate(&g, 0));
    for (int k = 0; k < n; k++)
        CHECK_OK(grGraphAddCollectiveNode(&nodes[k], g, NULL, 0, &p[k]));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int it = 0; it < 100; it++) {
        inputs(&b, it);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        outputs(&b, it);
    }
    /* The executable's node on other buffers and a smaller count. */
    float x[C], y[C];
    for (int i = 0; i < C; i++) {
        x[i] = (float)(rank * i);
        y[i] = -1;
    }
    grCollectiveNodeParams q = coll(grCollAllReduce, x, y, C / 2, grCommFloat32, grCommMax, 0, comm);
    CHECK_OK(grGraphExecCollectiveNodeSetParams(e, nodes[0], &q));
    for (int it = 0; it < 5; it++) {
        inputs(&b, it);
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        for (int i = 0; i < C; i++) {
            CHECK(y[i] == (i < C / 2 ? (float)((size - 1) * i) : -1.0f));
            CHECK(b.ar_out[i] == 0.0f); /* no longer written */
        }
        CHECK(b.bc_out[0] == (1 % size) * 1000 + it);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    bufs_free(&b);
}

/* Captured stream calls: all-reduce then broadcast of its result. */
static void captured(grComm_t comm)
{
    grStream_t s;
    grGraph_t g;
    grGraphExec_t e;
    int a[C], r[C], d[C];
    CHECK_OK(grStreamCreate(&s));
    CHECK_OK(grStreamBeginCapture(s, grStreamCaptureModeGlobal));
    CHECK_OK(grAllReduceAsync(a, r, C, grCommInt32, grCommSum, comm, s));
    CHECK_OK(grBroadcastAsync(r, d, C, grCommInt32, 0, comm, s));
    CHECK_OK(grStreamEndCapture(s, &g));
    CHECK_OK(grGraphInstantiate(&e, g, 0));
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < C; i++)
            a[i] = rank + i * it;
        CHECK_OK(grGraphLaunch(e, s));
        CHECK_OK(grStreamSynchronize(s));
        for (int i = 0; i < C; i++)
            CHECK(d[i] == size * (size - 1) / 2 + size * i * it);
    }
    CHECK_OK(grGraphExecDestroy(e));
    CHECK_OK(grGraphDestroy(g));
    CHECK_OK(grStreamDestroy(s));
}

/* Ranks that built different sequences: instantiate fails on every rank,
 * naming the collective, and the communicator still works afterwards. */
static void mismatch(grComm_t comm, grStream_t s)
{
    float a[2 * C], b[2 * C];
    grGraph_t g;
    grGraphNode_t nd;
    grGraphExec_t e = NULL;
    memset(a, 0, sizeof a);
    /* The last rank's second all-reduce has another count. */
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams p = coll(grCollAllReduce, a, b, C, grCommFloat32, grCommSum, 0, comm);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &p));
    p.count = rank == size - 1 ? 2 * C : C;
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, &nd, 1, &p));
    grGraphNode_t err_node = NULL;
    grGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    CHECK(grGraphInstantiateWithParams(&e, g, &ip) == grErrorInvalidValue);
    const char *d = grGetLastErrorDetail();
    char want[64];
    snprintf(want, sizeof want, "rank(s) %d", size - 1);
    CHECK(strstr(d, "collective 2 of the communicator") != NULL);
    CHECK(strstr(d, want) != NULL);
    CHECK(strstr(d, "of 16 float32") != NULL);
    err_node = ip.errNode_out;
    CHECK(err_node == nd); /* the second node, on every rank */
    CHECK_OK(grGraphDestroy(g));
    if (rank == 0)
        printf("# mismatch detail: %s\n", d);

    /* Another order: rank 0 broadcasts before it all-reduces. */
    CHECK_OK(grGraphCreate(&g, 0));
    grCollectiveNodeParams ar = coll(grCollAllReduce, a, b, C, grCommFloat32, grCommSum, 0, comm);
    grCollectiveNodeParams bc = coll(grCollBroadcast, a, b, C, grCommFloat32, 0, 0, comm);
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, rank == 0 ? &bc : &ar));
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, rank == 0 ? &ar : &bc));
    CHECK(grGraphInstantiate(&e, g, 0) == grErrorInvalidValue);
    CHECK(strstr(grGetLastErrorDetail(), "collective 1 of the communicator") != NULL);
    CHECK_OK(grGraphDestroy(g));

    /* A rank with one collective fewer. */
    CHECK_OK(grGraphCreate(&g, 0));
    CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &ar));
    if (rank != 0)
        CHECK_OK(grGraphAddCollectiveNode(&nd, g, NULL, 0, &ar));
    CHECK(grGraphInstantiate(&e, g, 0) == grErrorInvalidValue);
    CHECK(strstr(grGetLastErrorDetail(), "no collective") != NULL);
    CHECK_OK(grGraphDestroy(g));

    /* Still usable. */
    for (int i = 0; i < C; i++)
        a[i] = 1;
    CHECK_OK(grAllReduceAsync(a, b, C, grCommFloat32, grCommSum, comm, s));
    CHECK_OK(grStreamSynchronize(s));
    CHECK(b[C - 1] == (float)size);
}

int main(int argc, char **argv)
{
    bool world = argc > 1 && strcmp(argv[1], "--world") == 0;
    grComm_t comm;
    if (world) {
        CHECK_OK(grCommInitWorld(&comm));
    } else {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm w = MPI_COMM_WORLD;
        CHECK_OK(grCommInitFromMpi(&comm, &w));
    }
    CHECK_OK(grCommRank(comm, &rank));
    CHECK_OK(grCommSize(comm, &size));
    int mpi_rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    CHECK(mpi_rank == rank);
    grStream_t s;
    CHECK_OK(grStreamCreate(&s));
    eager(comm, s);
    replay(comm, s);
    captured(comm);
    mismatch(comm, s);
    CHECK_OK(grStreamDestroy(s));
    CHECK_OK(grCommDestroy(comm));
    if (!world) {
        MPI_Finalize();
    } else {
        int fin = 0;
        MPI_Finalized(&fin);
        CHECK(fin); /* graphrt initialised MPI, and finalised it with its last communicator */
    }
    if (rank == 0)
        printf("mpi-collectives (%d ranks%s): %u checks on rank 0\n1 passed, 0 failed\n", size,
               world ? ", MPI initialised by graphrt" : "", checks);
    return 0;
}
