/*
 * comm_mpi.c - collectives over MPI on the CPU device (built only where
 * CMake found MPI, GR_HAVE_MPI; the only file that includes mpi.h): a
 * communicator is a duplicate of an MPI communicator; a collective node
 * is an MPI-4 persistent request (MPI_Allreduce_init, MPI_Bcast_init,
 * MPI_Reduce_init, MPI_Allgather_init, MPI_Reduce_scatter_block_init,
 * MPI_Send_init, MPI_Recv_init) made at instantiate, started and waited
 * for by each run of the node, freed with the executable; an eager stream
 * call is MPI's blocking call, made by the stream's worker.
 *
 * MPICH 4.0 (Debian 12's) delivers the other ranks' blocks of a
 * persistent all-gather (MPI_Allgather_init) at its first start only
 * (later starts leave them unwritten: probed with 2 and 4 ranks, its
 * other persistent collectives are right), so there an AllGather node
 * starts an MPI_Iallgather at each run instead (GR_MPI_ALLGATHER_PER_RUN),
 * which plans it again each time but is right.
 *
 * MPI has no average: Avg is MPI_SUM, then the result divided by the
 * number of ranks in place. Point-to-point messages use tag 0: the
 * collective nodes of one communicator run in one order on every rank
 * (exec/coll.c), which is what matches them.
 *
 * Invariants: MPI initialised by graphrt is finalised when the last
 * communicator graphrt made on it dies, never earlier, and only by the
 * thread that initialised it (MPI's rule): a last reference dropped on
 * another thread (a worker finishing a stream call) leaves it to an
 * atexit handler. 'world' is guarded by world.lock (a process-wide fact,
 * like MPI's own state).
 */
#include "comm.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gr_comm_mpi {
    MPI_Comm comm;
    bool ours; /* counted in world.users: made on MPI that graphrt initialised */
};

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define GR_MPI_ALLGATHER_PER_RUN 1
#else
#define GR_MPI_ALLGATHER_PER_RUN 0
#endif

struct gr_coll_req {
    MPI_Request req;
    bool per_run; /* no persistent request: a nonblocking call each run */
};

/* MPI as graphrt initialised it: the communicators made on it, and
 * whether graphrt called MPI_Init_thread (then it finalises). */
static struct {
    pthread_mutex_t lock;
    int users;
    bool init_by_us;
    pthread_t init_thread; /* the thread that called MPI_Init_thread */
} world = {PTHREAD_MUTEX_INITIALIZER, 0, false, 0};

/* MPI that graphrt initialised and could not finalise on its thread. */
static void finalize_at_exit(void)
{
    int inited = 0, finalized = 0;
    pthread_mutex_lock(&world.lock);
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (world.init_by_us && inited && !finalized && world.users == 0)
        MPI_Finalize();
    world.init_by_us = false;
    pthread_mutex_unlock(&world.lock);
}

static const char *mpi_text(int rc, char *buf)
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

static grError_t mpi_fail(const char *call, const char *what, int rc)
{
    char buf[MPI_MAX_ERROR_STRING];
    return gr__fail(grErrorInitializationError, "%s: %s failed: %s", call, what, mpi_text(rc, buf));
}

/* Duplicates 'from' into c (errors returned, not fatal, on the copy). */
static grError_t dup_into(const char *call, grComm_t c, MPI_Comm from, bool ours)
{
    struct gr_comm_mpi *m = gr__malloc(sizeof *m);
    if (!m)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    int rc = MPI_Comm_dup(from, &m->comm);
    if (rc != MPI_SUCCESS) {
        gr__free(m);
        return mpi_fail(call, "MPI_Comm_dup", rc);
    }
    MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(m->comm, &c->rank);
    MPI_Comm_size(m->comm, &c->size);
    m->ours = ours;
    c->mpi = m;
    return grSuccess;
}

/* MPI must be initialised with MPI_THREAD_MULTIPLE: the workers call it. */
static grError_t check_threads(const char *call)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE)
        return gr__fail(
            grErrorNotSupported,
            "%s: MPI was initialised without MPI_THREAD_MULTIPLE (level %d); graphrt's workers call "
            "MPI from several threads: initialise it with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, "
            "...)",
            call, provided);
    return grSuccess;
}

grError_t gr__comm_mpi_world(const char *call, grComm_t c)
{
    int inited = 0, finalized = 0;
    grError_t err;
    pthread_mutex_lock(&world.lock);
    MPI_Finalized(&finalized);
    if (finalized) {
        pthread_mutex_unlock(&world.lock);
        return gr__fail(grErrorNotSupported, "%s: MPI was finalised already and cannot be initialised again",
                        call);
    }
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = MPI_THREAD_SINGLE;
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
        if (rc != MPI_SUCCESS) {
            pthread_mutex_unlock(&world.lock);
            return mpi_fail(call, "MPI_Init_thread", rc);
        }
        world.init_by_us = true;
        world.init_thread = pthread_self();
        atexit(finalize_at_exit);
    }
    err = check_threads(call);
    if (!err)
        err = dup_into(call, c, MPI_COMM_WORLD, world.init_by_us);
    if (!err && world.init_by_us)
        world.users++;
    if (err && world.init_by_us && world.users == 0 && pthread_equal(pthread_self(), world.init_thread)) {
        MPI_Finalize();
        world.init_by_us = false;
    }
    pthread_mutex_unlock(&world.lock);
    return err;
}

grError_t gr__comm_mpi_from(const char *call, grComm_t c, const void *mpi_comm)
{
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized)
        return gr__fail(grErrorNotSupported,
                        "%s: MPI is %s: initialise it before making a communicator on it", call,
                        finalized ? "finalised" : "not initialised");
    grError_t err = check_threads(call);
    if (err)
        return err;
    MPI_Comm from;
    memcpy(&from, mpi_comm, sizeof from);
    pthread_mutex_lock(&world.lock);
    bool ours = world.init_by_us;
    err = dup_into(call, c, from, ours);
    if (!err && ours)
        world.users++;
    pthread_mutex_unlock(&world.lock);
    return err;
}

void gr__comm_mpi_free(grComm_t c)
{
    struct gr_comm_mpi *m = c->mpi;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Comm_free(&m->comm);
    if (m->ours) {
        pthread_mutex_lock(&world.lock);
        if (--world.users == 0 && world.init_by_us && !finalized &&
            pthread_equal(pthread_self(), world.init_thread)) {
            MPI_Finalize();
            world.init_by_us = false;
        }
        pthread_mutex_unlock(&world.lock);
    }
    gr__free(m);
    c->mpi = NULL;
}

static MPI_Datatype mpi_type(grCommDataType t)
{
    switch (t) {
    case grCommInt8:
        return MPI_INT8_T;
    case grCommUint8:
        return MPI_UINT8_T;
    case grCommInt32:
        return MPI_INT32_T;
    case grCommUint32:
        return MPI_UINT32_T;
    case grCommInt64:
        return MPI_INT64_T;
    case grCommUint64:
        return MPI_UINT64_T;
    case grCommFloat32:
        return MPI_FLOAT;
    case grCommFloat64:
        return MPI_DOUBLE;
    case grCommFloat16:
    case grCommBfloat16: /* moved, never reduced (gr__coll_check) */
    case grCommDataTypeCount:
        break;
    }
    return MPI_UINT16_T;
}

static MPI_Op mpi_op(grCommRedOp r)
{
    switch (r) {
    case grCommProd:
        return MPI_PROD;
    case grCommMax:
        return MPI_MAX;
    case grCommMin:
        return MPI_MIN;
    case grCommSum:
    case grCommAvg:
    case grCommRedOpCount:
        break;
    }
    return MPI_SUM;
}

/* Avg: the sum divided by the ranks, in place. */
#define GR_DIVIDE_(T)                                     \
    for (size_t i = 0; i < count; i++) {                  \
        T v;                                              \
        memcpy(&v, (char *)buf + i * sizeof v, sizeof v); \
        v = (T)(v / (T)n);                                \
        memcpy((char *)buf + i * sizeof v, &v, sizeof v); \
    }                                                     \
    return

static void divide(void *buf, size_t count, grCommDataType t, int n)
{
    switch (t) {
    case grCommInt8:
        GR_DIVIDE_(int8_t);
    case grCommUint8:
        GR_DIVIDE_(uint8_t);
    case grCommInt32:
        GR_DIVIDE_(int32_t);
    case grCommUint32:
        GR_DIVIDE_(uint32_t);
    case grCommInt64:
        GR_DIVIDE_(int64_t);
    case grCommUint64:
        GR_DIVIDE_(uint64_t);
    case grCommFloat32:
        GR_DIVIDE_(float);
    case grCommFloat64:
        GR_DIVIDE_(double);
    case grCommFloat16:
    case grCommBfloat16:
    case grCommDataTypeCount:
        return;
    }
}
#undef GR_DIVIDE_

/* After the operation: Avg's division where this rank holds a result. */
static void finish(const grCollectiveNodeParams *p)
{
    if (p->redop != grCommAvg)
        return;
    bool result = p->op == grCollAllReduce || p->op == grCollReduceScatter ||
                  (p->op == grCollReduce && p->comm->rank == p->root);
    if (result)
        divide(p->recvbuff, p->count, p->datatype, p->comm->size);
}

/* Before it: a Broadcast's root moves its data into the buffer MPI sends. */
static void start(const grCollectiveNodeParams *p)
{
    if (p->op == grCollBroadcast && p->comm->rank == p->root && p->sendbuff != p->recvbuff && p->count)
        memmove(p->recvbuff, p->sendbuff, p->count * gr__coll_type_size(p->datatype));
}

static const void *send_arg(const grCollectiveNodeParams *p)
{
    if (p->sendbuff == p->recvbuff && p->sendbuff != NULL &&
        (p->op == grCollAllReduce || (p->op == grCollReduce && p->comm->rank == p->root)))
        return MPI_IN_PLACE;
    if (p->op == grCollAllGather && p->count &&
        (const char *)p->sendbuff ==
            (const char *)p->recvbuff + (size_t)p->comm->rank * p->count * gr__coll_type_size(p->datatype))
        return MPI_IN_PLACE;
    return p->sendbuff;
}

grError_t gr__coll_mpi_prepare(const char *call, gr_coll_run *r)
{
    const grCollectiveNodeParams *p = &r->p;
    struct gr_coll_req *q = gr__malloc(sizeof *q);
    if (!q)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    MPI_Comm comm = p->comm->mpi->comm;
    MPI_Datatype t = mpi_type(p->datatype);
    MPI_Op op = mpi_op(p->redop);
    int n = (int)p->count, rc = MPI_ERR_OTHER;
    const char *what = "";
    q->per_run = false;
    switch (p->op) {
    case grCollAllReduce:
        what = "MPI_Allreduce_init";
        rc = MPI_Allreduce_init(send_arg(p), p->recvbuff, n, t, op, comm, MPI_INFO_NULL, &q->req);
        break;
    case grCollBroadcast:
        what = "MPI_Bcast_init";
        rc = MPI_Bcast_init(p->recvbuff, n, t, p->root, comm, MPI_INFO_NULL, &q->req);
        break;
    case grCollReduce:
        what = "MPI_Reduce_init";
        rc = MPI_Reduce_init(send_arg(p), p->recvbuff, n, t, op, p->root, comm, MPI_INFO_NULL, &q->req);
        break;
    case grCollAllGather:
        what = "MPI_Allgather_init";
        if (GR_MPI_ALLGATHER_PER_RUN) {
            q->per_run = true;
            rc = MPI_SUCCESS;
            break;
        }
        rc = MPI_Allgather_init(send_arg(p), n, t, p->recvbuff, n, t, comm, MPI_INFO_NULL, &q->req);
        break;
    case grCollReduceScatter:
        what = "MPI_Reduce_scatter_block_init";
        rc = MPI_Reduce_scatter_block_init(p->sendbuff, p->recvbuff, n, t, op, comm, MPI_INFO_NULL, &q->req);
        break;
    case grCollSend:
        what = "MPI_Send_init";
        rc = MPI_Send_init(p->sendbuff, n, t, p->root, 0, comm, &q->req);
        break;
    case grCollRecv:
        what = "MPI_Recv_init";
        rc = MPI_Recv_init(p->recvbuff, n, t, p->root, 0, comm, &q->req);
        break;
    case grCollOpCount:
        break;
    }
    if (rc != MPI_SUCCESS) {
        gr__free(q);
        return mpi_fail(call, what, rc);
    }
    r->req = q;
    return grSuccess;
}

void gr__coll_mpi_unprepare(gr_coll_run *r)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && !r->req->per_run)
        MPI_Request_free(&r->req->req);
    gr__free(r->req);
}

/* A failure while a node or a stream call runs has no caller to return
 * to: it sticks to the device, as a kernel's fault does. */
static void run_fault(const char *what, int rc)
{
    char buf[MPI_MAX_ERROR_STRING], d[MPI_MAX_ERROR_STRING + 64];
    snprintf(d, sizeof d, "%s failed in a collective: %s", what, mpi_text(rc, buf));
    gr__kernel_fault(grErrorLaunchFailure, d);
}

void gr__coll_mpi_run(gr_coll_run *r)
{
    start(&r->p);
    const grCollectiveNodeParams *p = &r->p;
    int rc = r->req->per_run
                 ? MPI_Iallgather(send_arg(p), (int)p->count, mpi_type(p->datatype), p->recvbuff,
                                  (int)p->count, mpi_type(p->datatype), p->comm->mpi->comm, &r->req->req)
                 : MPI_Start(&r->req->req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r->req->req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        run_fault("MPI_Start/MPI_Wait", rc);
        return;
    }
    finish(&r->p);
}

void gr__coll_mpi_run_once(const grCollectiveNodeParams *p)
{
    MPI_Comm comm = p->comm->mpi->comm;
    MPI_Datatype t = mpi_type(p->datatype);
    MPI_Op op = mpi_op(p->redop);
    int n = (int)p->count, rc = MPI_ERR_OTHER;
    start(p);
    switch (p->op) {
    case grCollAllReduce:
        rc = MPI_Allreduce(send_arg(p), p->recvbuff, n, t, op, comm);
        break;
    case grCollBroadcast:
        rc = MPI_Bcast(p->recvbuff, n, t, p->root, comm);
        break;
    case grCollReduce:
        rc = MPI_Reduce(send_arg(p), p->recvbuff, n, t, op, p->root, comm);
        break;
    case grCollAllGather:
        rc = MPI_Allgather(send_arg(p), n, t, p->recvbuff, n, t, comm);
        break;
    case grCollReduceScatter:
        rc = MPI_Reduce_scatter_block(p->sendbuff, p->recvbuff, n, t, op, comm);
        break;
    case grCollSend:
        rc = MPI_Send(p->sendbuff, n, t, p->root, 0, comm);
        break;
    case grCollRecv:
        rc = MPI_Recv(p->recvbuff, n, t, p->root, 0, comm, MPI_STATUS_IGNORE);
        break;
    case grCollOpCount:
        break;
    }
    if (rc != MPI_SUCCESS) {
        run_fault(gr__coll_op_name(p->op), rc);
        return;
    }
    finish(p);
}

grError_t gr__comm_mpi_allgather(const char *call, grComm_t c, const void *in, void *out, size_t bytes)
{
    if (bytes > (size_t)INT32_MAX)
        return gr__fail(grErrorNotSupported, "%s: %zu bytes to compare are too many for MPI", call, bytes);
    int rc = MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, c->mpi->comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(call, "MPI_Allgather", rc);
    return grSuccess;
}
