/*
 * coll.c - communicators and the collective stream calls (NCCL's
 * ncclAllReduce and friends, docs/collectives.md): grCommInit*,
 * grCommGetUniqueId, the queries and grCommDestroy, and grAllReduceAsync
 * ... grRecvAsync.
 *
 * On a CPU stream a call is one stream op that runs the collective on the
 * stream's worker (the blocking MPI call, or the local copy of a one-rank
 * communicator), holding a reference of the communicator until it has
 * run; on a capturing stream it adds a collective node; on a GPU's stream
 * it is the device kind's call (NCCL's on the stream's CUstream), with a
 * communicator of that GPU (grCommInitDevices).
 *
 * Invariant: every argument is checked before anything is queued or
 * recorded, so a refused call leaves the stream (and its capture) as it
 * was.
 */
#include "api.h"
#include "../backend/comm.h"
#include "../backend/device.h"
#include "../capture/capture.h"

#include <string.h>

static grError_t comm_new(const char *call, grComm_t *out, grComm_t *c)
{
    if (out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: comm (the output pointer) is NULL", call);
    *c = gr__comm_alloc();
    if (*c == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    return grSuccess;
}

/* The communicator made by 'made', or freed when it failed. */
static grError_t comm_done(grComm_t *out, grComm_t c, grError_t made)
{
    if (made != grSuccess) {
        gr__comm_discard(c);
        return made;
    }
    *out = c;
    return grSuccess;
}

GR_API grError_t grCommInitSelf(grComm_t *comm)
{
    grComm_t c;
    grError_t err = comm_new("grCommInitSelf", comm, &c);
    return err ? err : comm_done(comm, c, grSuccess);
}

GR_API grError_t grCommInitWorld(grComm_t *comm)
{
    static const char call[] = "grCommInitWorld";
    grComm_t c;
    grError_t err = comm_new(call, comm, &c);
    return err ? err : comm_done(comm, c, gr__comm_mpi_world(call, c));
}

GR_API grError_t grCommInitFromMpi(grComm_t *comm, const void *mpiComm)
{
    static const char call[] = "grCommInitFromMpi";
    grComm_t c;
    if (mpiComm == NULL)
        return gr__fail(grErrorInvalidValue, "%s: mpiComm is NULL; pass a pointer to an MPI_Comm", call);
    grError_t err = comm_new(call, comm, &c);
    return err ? err : comm_done(comm, c, gr__comm_mpi_from(call, c, mpiComm));
}

GR_API grError_t grCommInitDevices(grComm_t *comms, int ndev, const int *devices)
{
    static const char call[] = "grCommInitDevices";
    if (comms == NULL)
        return gr__fail(grErrorInvalidValue, "%s: comms (the output array) is NULL", call);
    if (devices == NULL)
        return gr__fail(grErrorInvalidValue, "%s: devices is NULL; pass ndev GPU device numbers", call);
    int ngpus = gr__gpu_count();
    if (ndev < 1 || ndev > GR_MAX_GPUS)
        return gr__fail(grErrorInvalidValue, "%s: ndev is %d; a communicator spans 1 to %d GPUs", call, ndev,
                        GR_MAX_GPUS);
    for (int i = 0; i < ndev; i++) {
        if (devices[i] < 1 || devices[i] > ngpus) {
            const char *none = gr__gpu_absence();
            return gr__fail(grErrorInvalidDevice,
                            "%s: devices[%d] is %d, not a GPU: the GPUs are devices 1 to %d%s%s", call, i,
                            devices[i], ngpus, none ? "; there is none: " : "", none ? none : "");
        }
        for (int j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return gr__fail(grErrorInvalidDevice,
                                "%s: devices[%d] and devices[%d] are both device %d; each rank needs a GPU "
                                "of its own (as ncclCommInitAll's devlist)",
                                call, j, i, devices[i]);
    }
    grComm_t made[GR_MAX_GPUS];
    void *dev[GR_MAX_GPUS];
    for (int i = 0; i < ndev; i++) {
        if ((made[i] = gr__comm_alloc()) == NULL) {
            while (i-- > 0)
                gr__comm_discard(made[i]);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        }
    }
    grError_t err = grSuccess;
    for (int i = 0; i < ndev && !err; i++)
        err = gr__device_start_dev(call, devices[i]);
    if (!err)
        err = gr__devkind()->comm_init(call, ndev, devices, dev);
    if (err) {
        for (int i = 0; i < ndev; i++)
            gr__comm_discard(made[i]);
        return err;
    }
    for (int i = 0; i < ndev; i++) {
        made[i]->rank = i;
        made[i]->size = ndev;
        made[i]->device = devices[i];
        made[i]->dev = dev[i];
        comms[i] = made[i];
    }
    return grSuccess;
}

GR_API grError_t grCommGetUniqueId(grCommUniqueId *uniqueId)
{
    static const char call[] = "grCommGetUniqueId";
    if (uniqueId == NULL)
        return gr__fail(grErrorInvalidValue, "%s: uniqueId (the output pointer) is NULL", call);
    /* NCCL would make an id without a GPU, but no rank could use it here:
     * the refusal says so at once, not at grCommInitRank. */
    if (gr__gpu_count() == 0)
        return gr__fail(grErrorNotSupported,
                        "%s: a unique id is for GPU communicators (NCCL) and there is no GPU: %s; across "
                        "processes on the CPU use MPI (grCommInitWorld, grCommInitFromMpi)",
                        call, gr__gpu_absence());
    /* Written whole or not at all: the kind writes a copy. */
    grCommUniqueId id;
    grError_t err = gr__devkind()->comm_unique_id(call, id.internal);
    if (err)
        return err;
    *uniqueId = id;
    return grSuccess;
}

GR_API grError_t grCommInitRank(grComm_t *comm, int nranks, grCommUniqueId commId, int rank)
{
    static const char call[] = "grCommInitRank";
    if (comm == NULL)
        return gr__fail(grErrorInvalidValue, "%s: comm (the output pointer) is NULL", call);
    if (nranks < 1)
        return gr__fail(grErrorInvalidValue, "%s: nranks is %d; a communicator has at least one rank", call,
                        nranks);
    if (rank < 0 || rank >= nranks)
        return gr__fail(grErrorInvalidValue, "%s: rank is %d; the ranks of %d are 0 to %d", call, rank,
                        nranks, nranks - 1);
    int device = gr__device_current();
    if (device == 0)
        return gr__fail(grErrorNotSupported,
                        "%s: the current device is the CPU; grCommInitRank makes NCCL communicators, on "
                        "the calling thread's current GPU (grSetDevice), and graphrt has no transport of "
                        "its own: across processes on the CPU use MPI (grCommInitWorld, "
                        "grCommInitFromMpi)",
                        call);
    grComm_t c;
    grError_t err = comm_new(call, comm, &c);
    if (err)
        return err;
    void *dev = NULL;
    if (!(err = gr__device_start_dev(call, device)))
        err = gr__devkind()->comm_init_rank(call, device, nranks, commId.internal, rank, &dev);
    if (err)
        return comm_done(comm, c, err);
    c->rank = rank;
    c->size = nranks;
    c->device = device;
    c->dev = dev;
    return comm_done(comm, c, grSuccess);
}

static grError_t comm_check(const char *call, grComm_t comm)
{
    if (!gr__comm_valid(comm))
        return gr__fail(grErrorInvalidValue,
                        "%s: comm %p is not a live communicator (NULL, destroyed, or not from grCommInit*)",
                        call, GR_PTR(comm));
    return grSuccess;
}

GR_API grError_t grCommRank(grComm_t comm, int *rank)
{
    grError_t err = comm_check("grCommRank", comm);
    if (err)
        return err;
    if (rank == NULL)
        return gr__fail(grErrorInvalidValue, "grCommRank: rank (the output pointer) is NULL");
    *rank = comm->rank;
    return grSuccess;
}

GR_API grError_t grCommSize(grComm_t comm, int *size)
{
    grError_t err = comm_check("grCommSize", comm);
    if (err)
        return err;
    if (size == NULL)
        return gr__fail(grErrorInvalidValue, "grCommSize: size (the output pointer) is NULL");
    *size = comm->size;
    return grSuccess;
}

GR_API grError_t grCommDestroy(grComm_t comm)
{
    grError_t err = comm_check("grCommDestroy", comm);
    if (err)
        return err;
    /* The handle dies now; the object when its last holder lets go. The
     * magic stays until then so that holders' checks keep passing; a
     * second destroy is refused by the 'destroyed' mark. */
    if (gr_exchange_acq_rel(&comm->destroyed, true))
        return gr__fail(grErrorInvalidValue, "grCommDestroy: comm %p was destroyed already", GR_PTR(comm));
    gr__comm_release(comm);
    return grSuccess;
}

/* ----------------------------------------------------------- stream calls */

/* The payload of a queued collective: the parameters (comm retained). */
typedef struct coll_op {
    grCollectiveNodeParams p;
} coll_op;
_Static_assert(sizeof(coll_op) <= GR_OP_DATA_MAX, "a collective is queued by value");

static void coll_op_run(void *data)
{
    coll_op *o = data;
    gr__coll_run_once(&o->p);
    gr__comm_release(o->p.comm);
}

static grError_t coll_enqueue(const char *call, grStream_t stream, const grCollectiveNodeParams *p)
{
    gr_stream *s;
    grError_t err = gr__coll_check(call, p);
    if (err || (err = gr__stream_from_handle(call, stream, &s)))
        return err;
    if (!gr__stream_capturing(s) && (err = gr__comm_check_live(call, p->comm)))
        return err;
    /* A captured collective is checked against the device the graph is
     * instantiated on; eager work runs on the stream's. */
    if (!gr__stream_capturing(s) && (err = gr__comm_check_device(call, p->comm, s->device, "the stream's")))
        return err;
    if (GR_UNLIKELY(gr__stream_capturing(s))) {
        grGraphNodeParams desc;
        memset(&desc, 0, sizeof desc);
        desc.type = grGraphNodeTypeCollective;
        desc.collective = *p;
        return gr__capture_record(call, s, &desc);
    }
    if ((err = gr__capture_check_implicit(call, s)))
        return err;
    if (s->device != 0) /* the device's library: NCCL on a GPU */
        return gr__launched(s, gr__devkind()->coll_launch(call, s, p));
    coll_op o = {*p};
    gr__comm_retain(p->comm);
    if ((err = gr__stream_call_dev(call, s, coll_op_run, &o, sizeof o))) {
        gr__comm_release(p->comm);
        return err;
    }
    return gr__launched(s, grSuccess);
}

static grCollectiveNodeParams params(grCollectiveOp op, const void *send, void *recv, size_t count,
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

GR_API grError_t grAllReduceAsync(const void *sendbuff, void *recvbuff, size_t count, grCommDataType datatype,
                                  grCommRedOp op, grComm_t comm, grStream_t stream)
{
    grCollectiveNodeParams p = params(grCollAllReduce, sendbuff, recvbuff, count, datatype, op, 0, comm);
    return coll_enqueue("grAllReduceAsync", stream, &p);
}

GR_API grError_t grBroadcastAsync(const void *sendbuff, void *recvbuff, size_t count, grCommDataType datatype,
                                  int root, grComm_t comm, grStream_t stream)
{
    grCollectiveNodeParams p =
        params(grCollBroadcast, sendbuff, recvbuff, count, datatype, grCommSum, root, comm);
    return coll_enqueue("grBroadcastAsync", stream, &p);
}

GR_API grError_t grReduceAsync(const void *sendbuff, void *recvbuff, size_t count, grCommDataType datatype,
                               grCommRedOp op, int root, grComm_t comm, grStream_t stream)
{
    grCollectiveNodeParams p = params(grCollReduce, sendbuff, recvbuff, count, datatype, op, root, comm);
    return coll_enqueue("grReduceAsync", stream, &p);
}

GR_API grError_t grAllGatherAsync(const void *sendbuff, void *recvbuff, size_t sendcount,
                                  grCommDataType datatype, grComm_t comm, grStream_t stream)
{
    grCollectiveNodeParams p =
        params(grCollAllGather, sendbuff, recvbuff, sendcount, datatype, grCommSum, 0, comm);
    return coll_enqueue("grAllGatherAsync", stream, &p);
}

GR_API grError_t grReduceScatterAsync(const void *sendbuff, void *recvbuff, size_t recvcount,
                                      grCommDataType datatype, grCommRedOp op, grComm_t comm,
                                      grStream_t stream)
{
    grCollectiveNodeParams p =
        params(grCollReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, 0, comm);
    return coll_enqueue("grReduceScatterAsync", stream, &p);
}

GR_API grError_t grSendAsync(const void *sendbuff, size_t count, grCommDataType datatype, int peer,
                             grComm_t comm, grStream_t stream)
{
    grCollectiveNodeParams p = params(grCollSend, sendbuff, NULL, count, datatype, grCommSum, peer, comm);
    return coll_enqueue("grSendAsync", stream, &p);
}

GR_API grError_t grRecvAsync(void *recvbuff, size_t count, grCommDataType datatype, int peer, grComm_t comm,
                             grStream_t stream)
{
    grCollectiveNodeParams p = params(grCollRecv, NULL, recvbuff, count, datatype, grCommSum, peer, comm);
    return coll_enqueue("grRecvAsync", stream, &p);
}
