/*
 * graphrt/comm.h - communicators and collective nodes (docs/collectives.md):
 * NCCL's communication calls as graph nodes and stream calls, graphrt's
 * own. A communicator (grComm_t) names a group of ranks; a collective
 * node (grGraphNodeTypeCollective) runs one of all-reduce, broadcast,
 * reduce, all-gather, reduce-scatter, send or receive over it. On the CPU
 * device the node is an MPI-4 persistent operation (MPI_Allreduce_init,
 * MPI_Send_init, ...) made when the graph is instantiated and started by
 * each launch, so that a replay replays the communication without
 * planning it again; on a GPU (a communicator of grCommInitDevices or
 * grCommInitRank) it is the NCCL call captured into the CUDA graph
 * graphrt builds, as a child graph node, and an eager stream call is the
 * NCCL call on the stream.
 *
 * Rules every rank must keep (the classic hang of MPI and NCCL):
 *   - the collective nodes of one communicator run one at a time, in the
 *     executable's plan order (topological, ties broken by creation
 *     order): instantiate orders them so, and every rank must build the
 *     same sequence of collectives on that communicator (same op,
 *     datatype, count, root), which instantiate checks;
 *   - instantiating a graph with collective nodes is collective over each
 *     communicator it uses (every rank instantiates its graph, in the same
 *     order as its other collective calls on that communicator), and so
 *     are grGraphExecCollectiveNodeSetParams and a grGraphExecUpdate that
 *     changes a collective node;
 *   - launches of graphs that use one communicator must be made in the
 *     same order on every rank, and the eager calls too.
 *
 * Graph files hold collective nodes with the rank and size of their
 * communicator; a loaded file of several ranks gets a stand-in
 * communicator that does not run (instantiate and the stream calls refuse
 * it with grErrorNotSupported) until the nodes get a live one.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows. This header includes
 * the parts it needs, so it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_COMM_H
#define GRAPHRT_MODULE_COMM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A communicator: a group of ranks, each rank one process holding its own
 * grComm_t (with MPI, a duplicate of an MPI communicator). Reference
 * counted: a node, an executable or a queued eager call keeps it alive
 * after grCommDestroy. Mirrors ncclComm_t. */
typedef struct grComm_st *grComm_t;

/* The element types of collectives: NCCL's ncclDataType_t, same values. */
typedef enum grCommDataType {
    grCommInt8 = 0,
    grCommUint8 = 1,
    grCommInt32 = 2,
    grCommUint32 = 3,
    grCommInt64 = 4,
    grCommUint64 = 5,
    grCommFloat16 = 6,
    grCommFloat32 = 7,
    grCommFloat64 = 8,
    grCommBfloat16 = 9,
    grCommDataTypeCount
} grCommDataType;

/* The reductions: NCCL's ncclRedOp_t, same values. Avg is the sum divided
 * by the number of ranks (integer division for integer types). */
typedef enum grCommRedOp {
    grCommSum = 0,
    grCommProd = 1,
    grCommMax = 2,
    grCommMin = 3,
    grCommAvg = 4,
    grCommRedOpCount
} grCommRedOp;

/* The operation of a collective node. 'count' is in elements of
 * 'datatype', as in NCCL: AllReduce, Broadcast, Reduce, Send, Recv move
 * count elements; AllGather sends count and receives count * nranks;
 * ReduceScatter sends count * nranks and receives count. */
typedef enum grCollectiveOp {
    grCollAllReduce = 0,
    grCollBroadcast = 1,
    grCollReduce = 2,
    grCollAllGather = 3,
    grCollReduceScatter = 4,
    grCollSend = 5,
    grCollRecv = 6,
    grCollOpCount
} grCollectiveOp;

/* The parameters of a collective node. sendbuff: read (NULL for Recv;
 * for Broadcast only the root's is read); recvbuff: written (NULL for
 * Send; for Reduce only the root's is written). sendbuff == recvbuff is
 * the in-place form of AllReduce, Reduce and Broadcast; for AllGather
 * the in-place form is sendbuff == recvbuff + rank * count elements, as
 * in NCCL; other overlaps are refused. redop: AllReduce, Reduce and
 * ReduceScatter only (0 otherwise). root: the root of Broadcast and
 * Reduce, the peer of Send and Recv (0 otherwise). comm: the
 * communicator, held by the node. graphrt's own (NCCL's calls take these
 * as arguments). */
typedef struct grCollectiveNodeParams {
    grCollectiveOp op;
    grCommDataType datatype;
    grCommRedOp redop;
    int root;
    const void *sendbuff;
    void *recvbuff;
    size_t count;
    grComm_t comm;
} grCollectiveNodeParams;

/* Makes a communicator over every process of the MPI job: a duplicate of
 * MPI_COMM_WORLD. If the program has not initialised MPI, graphrt
 * initialises it (MPI_Init_thread with MPI_THREAD_MULTIPLE, as its
 * workers call MPI) and finalises it when the last communicator it made
 * this way dies, if that happens on the thread that initialised it (MPI's
 * rule), else at exit (MPI cannot be initialised again after that: make
 * the communicators of a program's life up front); a program that
 * initialised MPI itself finalises it itself, after destroying its
 * communicators, and must have asked MPI_THREAD_MULTIPLE. Collective over
 * MPI_COMM_WORLD. Errors: grErrorInvalidValue (comm NULL),
 * grErrorNotSupported (graphrt was built without MPI; MPI gives less
 * than MPI_THREAD_MULTIPLE; MPI was finalised), grErrorInitializationError
 * (an MPI call failed: the detail says which), grErrorMemoryAllocation.
 * Thread safety: any thread, but not concurrently with other MPI
 * initialisation. Mirrors ncclCommInitAll's use (graphrt's own form:
 * ranks are MPI's). */
GR_API grError_t grCommInitWorld(grComm_t *comm);

/* Makes a communicator over the MPI communicator *mpiComm (a pointer to
 * an MPI_Comm, so that this header needs no mpi.h): a duplicate, which
 * the caller's communicator outlives; MPI must be initialised with
 * MPI_THREAD_MULTIPLE. Collective over *mpiComm. Errors:
 * grErrorInvalidValue (comm or mpiComm NULL), grErrorNotSupported (built
 * without MPI, MPI not initialised or without MPI_THREAD_MULTIPLE),
 * grErrorInitializationError (MPI_Comm_dup failed),
 * grErrorMemoryAllocation. Thread safety: any thread. graphrt's own. */
GR_API grError_t grCommInitFromMpi(grComm_t *comm, const void *mpiComm);

/* Makes a communicator of one rank (rank 0 of 1), which needs no MPI:
 * every collective is a local copy (a reduction of one rank is its input;
 * Avg divides by 1), and a Recv takes the data of the oldest Send not
 * received yet (on a one-rank communicator a Send must run before its
 * Recv: a Recv finding no Send fails with grErrorIllegalState, sticky on
 * the stream, instead of hanging). Any build. Errors: grErrorInvalidValue
 * (comm NULL), grErrorMemoryAllocation. Thread safety: any thread.
 * graphrt's own (NCCL makes one with ncclCommInitAll of one device). */
GR_API grError_t grCommInitSelf(grComm_t *comm);

/* Makes ndev communicators, one per GPU of devices[0..ndev) (graphrt
 * device numbers, each a GPU, all different): comms[i] is rank i of ndev,
 * on devices[i], for that GPU's streams and graphs. They are NCCL's
 * communicators (ncclCommInitAll's group), NCCL being loaded at the first
 * call (libnccl.so.2, or the path GRAPHRT_NCCL names). A GPU
 * communicator's collectives run on its GPU only: a stream or executable
 * of another device refuses it. Within one process every rank of such a
 * group must be driven by a thread of its own (NCCL's rule for calls that
 * are not grouped: each may wait for the other ranks). Errors:
 * grErrorInvalidValue (comms or devices NULL, ndev outside [1, 32]),
 * grErrorInvalidDevice (a device that is not a GPU, a device twice),
 * grErrorNotSupported (NCCL not found: the detail says where it was
 * looked for), grErrorInitializationError or the matching error (NCCL
 * refused, the detail gives its error), grErrorMemoryAllocation; a
 * refusal makes no communicator. Thread safety: any thread. Mirrors
 * ncclCommInitAll (devices are graphrt's numbers, not CUDA ordinals). */
GR_API grError_t grCommInitDevices(grComm_t *comms, int ndev, const int *devices);

/* The bytes of a grCommUniqueId: NCCL's NCCL_UNIQUE_ID_BYTES. */
#define GR_COMM_UNIQUE_ID_BYTES 128

/* What the ranks of a GPU communicator spread over processes share to
 * find each other: NCCL's ncclUniqueId, copied as is (the bytes are
 * NCCL's; the program moves them between its processes by MPI, a socket,
 * a file or a fork). Mirrors ncclUniqueId. */
typedef struct grCommUniqueId {
    char internal[GR_COMM_UNIQUE_ID_BYTES];
} grCommUniqueId;

/* Makes a unique id for a new GPU communicator (ncclGetUniqueId, which
 * opens the listening socket that the ranks of grCommInitRank meet at):
 * called once, by one process, whose id the program gives to every rank.
 * NCCL is loaded at the first call, as by grCommInitDevices. Any current
 * device (NCCL's id is not of a GPU), but there must be a GPU. Errors:
 * grErrorInvalidValue (uniqueId NULL), grErrorNotSupported (no GPU, or
 * NCCL not found: the detail says why), NCCL's refusal (the detail gives
 * its error); a refusal leaves *uniqueId as it was. Thread safety: any
 * thread. Mirrors ncclGetUniqueId. */
GR_API grError_t grCommGetUniqueId(grCommUniqueId *uniqueId);

/* Makes rank 'rank' of a GPU communicator of nranks ranks, one per
 * process or thread, which meet through commId (grCommGetUniqueId's, the
 * same on every rank). The communicator is on the calling thread's
 * current device (grSetDevice), which must be a GPU, for that GPU's
 * streams and graphs only, as grCommInitDevices' are. Blocks until every
 * rank has called it (NCCL's rule: in one process each rank is made by a
 * thread of its own). Collective over the nranks ranks. On the CPU device
 * graphrt has no transport of its own: communicators across processes
 * there are MPI's (grCommInitWorld, grCommInitFromMpi). Errors:
 * grErrorInvalidValue (comm NULL, nranks below 1, rank outside [0,
 * nranks)), grErrorNotSupported (the current device is the CPU; NCCL not
 * found), grErrorInitializationError or the matching error (NCCL refused,
 * the detail gives its error), grErrorMemoryAllocation; a refusal makes no
 * communicator. Thread safety: any thread. Mirrors ncclCommInitRank (the
 * device is graphrt's current one, not the runtime's). */
GR_API grError_t grCommInitRank(grComm_t *comm, int nranks, grCommUniqueId commId, int rank);

/* This process's rank in comm, and the number of ranks. Errors:
 * grErrorInvalidValue (comm not live, output NULL). Thread safety: any
 * thread. Mirror ncclCommUserRank and ncclCommCount. */
GR_API grError_t grCommRank(grComm_t comm, int *rank);
GR_API grError_t grCommSize(grComm_t comm, int *size);

/* Gives back the application's reference of comm: the communicator dies
 * (MPI_Comm_free, ncclCommDestroy) once no node, executable or queued call holds it.
 * Errors: grErrorInvalidValue (comm not live). Thread safety: any thread,
 * not concurrently with other calls on comm. Mirrors ncclCommDestroy. */
GR_API grError_t grCommDestroy(grComm_t comm);

/* Adds a collective node (grGraphNodeTypeCollective) after the
 * dependencies; the node holds a reference of nodeParams->comm. Errors:
 * grErrorInvalidValue (graph not live; pGraphNode or nodeParams NULL;
 * dependencies invalid as for every adder; comm not live; op, datatype or
 * redop unknown; redop other than 0 for an op without reduction; root out
 * of [0, nranks); a buffer the op uses NULL while count > 0; buffers that
 * overlap other than in an in-place form), grErrorNotSupported (a send
 * or receive of a rank to itself on a GPU communicator), grErrorMemoryAllocation.
 * Thread safety: not with other calls on the same graph. graphrt's own
 * (CUDA captures ncclAllReduce and friends as kernel nodes). */
GR_API grError_t grGraphAddCollectiveNode(grGraphNode_t *pGraphNode, grGraph_t graph,
                                          const grGraphNode_t *pDependencies, size_t numDependencies,
                                          const grCollectiveNodeParams *nodeParams);

/* The node's parameters (comm: the node's communicator, which may be a
 * destroyed handle the node still holds, or a loaded file's stand-in).
 * Errors: grErrorInvalidValue (node not live or not a collective node,
 * nodeParams NULL). Thread safety: not with other
 * calls on the node's graph. graphrt's own. */
GR_API grError_t grGraphCollectiveNodeGetParams(grGraphNode_t node, grCollectiveNodeParams *nodeParams);

/* Replaces the node's parameters (checked as by grGraphAddCollectiveNode;
 * any field may change). Errors: those of grGraphAddCollectiveNode's
 * parameters; node not live or not a collective node. Thread safety: not
 * with other calls on the node's graph. graphrt's own. */
GR_API grError_t grGraphCollectiveNodeSetParams(grGraphNode_t node, const grCollectiveNodeParams *nodeParams);

/* Changes the parameters of node's copy in hGraphExec for the launches
 * queued after the call: buffers, count, datatype, redop and root may
 * change, op and comm may not. On the CPU the node's persistent MPI
 * request is made again, which is collective over the communicator: every
 * rank makes the same call, in the same order as its other collective
 * calls on it; on a GPU the NCCL call is captured again and given to the
 * driver's executable (cuGraphExecChildGraphNodeSetParams: one that
 * NCCL captures in another shape is refused by the driver, changing
 * nothing: instantiate again). Errors: grErrorInvalidValue (hGraphExec not live, node not
 * a collective node of the graph it was instantiated from, parameters
 * refused as by grGraphAddCollectiveNode, op or comm changed),
 * grErrorInitializationError (MPI refused the new request; the node keeps
 * its old one), grErrorMemoryAllocation. Thread safety: any thread (the
 * executable's rules). graphrt's own. */
GR_API grError_t grGraphExecCollectiveNodeSetParams(grGraphExec_t hGraphExec, grGraphNode_t node,
                                                    const grCollectiveNodeParams *nodeParams);

/*
 * Stream calls, NCCL's: on a CPU stream each runs the collective in
 * stream order on the stream's worker (a blocking MPI call); on a
 * capturing stream each adds a collective node; on a GPU stream each is
 * NCCL's call on the stream's CUstream, with a communicator of that GPU
 * (grCommInitDevices, grCommInitRank). The arguments are checked as
 * grGraphAddCollectiveNode checks its parameters. Errors: those of
 * grGraphAddCollectiveNode's parameters, the stream errors, the capture
 * errors of work, grErrorInvalidValue (eager: a communicator of another
 * device than the stream's), grErrorNotSupported (on the CPU a reduction
 * of grCommFloat16 or grCommBfloat16 over MPI, which has no such type;
 * on a GPU NCCL not found, or a send or receive of a rank to itself,
 * which NCCL pairs only in a group of calls), NCCL's refusals (the
 * detail gives its error). Thread safety: any thread. Mirror
 * ncclAllReduce, ncclBroadcast, ncclReduce, ncclAllGather,
 * ncclReduceScatter, ncclSend and ncclRecv.
 */
GR_API grError_t grAllReduceAsync(const void *sendbuff, void *recvbuff, size_t count, grCommDataType datatype,
                                  grCommRedOp op, grComm_t comm, grStream_t stream);
GR_API grError_t grBroadcastAsync(const void *sendbuff, void *recvbuff, size_t count, grCommDataType datatype,
                                  int root, grComm_t comm, grStream_t stream);
GR_API grError_t grReduceAsync(const void *sendbuff, void *recvbuff, size_t count, grCommDataType datatype,
                               grCommRedOp op, int root, grComm_t comm, grStream_t stream);
GR_API grError_t grAllGatherAsync(const void *sendbuff, void *recvbuff, size_t sendcount,
                                  grCommDataType datatype, grComm_t comm, grStream_t stream);
GR_API grError_t grReduceScatterAsync(const void *sendbuff, void *recvbuff, size_t recvcount,
                                      grCommDataType datatype, grCommRedOp op, grComm_t comm,
                                      grStream_t stream);
GR_API grError_t grSendAsync(const void *sendbuff, size_t count, grCommDataType datatype, int peer,
                             grComm_t comm, grStream_t stream);
GR_API grError_t grRecvAsync(void *recvbuff, size_t count, grCommDataType datatype, int peer, grComm_t comm,
                             grStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_COMM_H */
