/*
 * comm.h - communicators and the device work of collectives on the CPU
 * (docs/collectives.md): the communicator object (comm.c), a one-rank
 * communicator that needs no MPI (its collectives are local copies,
 * comm.c), and MPI's (comm_mpi.c, built only with MPI: the only file of
 * graphrt that includes mpi.h). The layers above never see MPI: they
 * hold a grComm_t and a gr_coll_run, and call the functions below. A
 * GPU's communicator (grCommInitDevices) holds the device kind's handle
 * (NCCL's, backend/cuda/nccl.c), reached through the device table only;
 * its collectives are the kind's (an eager call, a node lowered into the
 * GPU's graph), never gr__coll_run's, but on the fake device, whose
 * stand-in runs the one-rank copies here.
 *
 * Contract:
 *   - a gr_coll_run is one collective node of a plan: its parameters
 *     (checked by gr__coll_check) and, on an MPI communicator, a
 *     persistent request made by gr__coll_prepare (collective over the
 *     communicator: callers make them in the same order on every rank)
 *     and freed by gr__coll_unprepare; gr__coll_run starts it and waits
 *     for it, and must not run twice at once (launches of one executable
 *     never overlap, and instantiate chains the collective nodes of one
 *     communicator);
 *   - a communicator lives while references are held: the handle's, one
 *     per node, plan node and queued eager call.
 *
 * Invariants: comm->rank in [0, comm->size); a one-rank communicator has
 * mpi == NULL; the self mailbox (sends not received yet) is guarded by
 * 'lock'.
 */
#ifndef GR_COMM_H
#define GR_COMM_H

#include "backend.h"

enum {
    GR_MAGIC_COMM = 0x434f4d4du
};

/* A message a one-rank communicator's Send left for its Recv. */
typedef struct gr_self_msg {
    struct gr_self_msg *next;
    size_t bytes;
    unsigned char data[];
} gr_self_msg;

struct grComm_st {
    uint32_t magic; /* GR_MAGIC_COMM */
    atomic_int refs;
    atomic_bool destroyed; /* grCommDestroy gave the handle's reference back */
    int rank, size;
    /* Rank 'rank' of 'size' as a graph file named it, without a live group
     * behind it (gr__comm_standin): nodes on it load, compare and save,
     * but do not run. */
    bool standin;
    /* The MPI side (comm_mpi.c's), NULL for a one-rank communicator. */
    struct gr_comm_mpi *mpi;
    /* The device whose work the communicator joins: 0 (the CPU: MPI or
     * a one-rank communicator), or a GPU, whose communicator is the
     * device kind's ('dev', an ncclComm_t on the CUDA kind), made by
     * grCommInitDevices. */
    int device;
    void *dev;
    /* A one-rank communicator's sends not received yet, oldest first. */
    gr_spinlock lock;
    gr_self_msg *head, *tail;
};

/* A collective node as a plan runs it. */
typedef struct gr_coll_run {
    grCollectiveNodeParams p; /* p.comm retained */
    struct gr_coll_req *req;  /* comm_mpi.c's persistent request, or NULL */
} gr_coll_run;

/* True if c is a live communicator handle (not destroyed by the
 * application, though nodes may still hold it). */
static inline bool gr__comm_valid(grComm_t c)
{
    return c != NULL && c->magic == GR_MAGIC_COMM && !gr_load_acquire(&c->destroyed);
}

/* A one-rank communicator with the handle's reference (NULL when out of
 * memory), and the disposal of one that was never handed out (or whose
 * last reference went). */
grComm_t gr__comm_alloc(void);
void gr__comm_discard(grComm_t c);

/* A communicator standing for rank 'rank' of 'size' in a loaded graph
 * file: for size 1 a one-rank communicator (it runs), else a stand-in
 * that instantiate and the stream calls refuse. NULL when out of memory. */
grComm_t gr__comm_standin(int rank, int size);

/* Refuses a stand-in communicator with a detail naming 'call'. */
grError_t gr__comm_check_live(const char *call, grComm_t c);

/* Refuses communicator c for work of device 'device' (what: "stream
 * 0x...'s", "the executable's") unless c is of that device, with a detail
 * naming both devices. */
grError_t gr__comm_check_device(const char *call, grComm_t c, int device, const char *what);

/* The bytes p reads (*send) and writes (*recv) on this rank; 0 for a
 * side the op does not use here. p is checked. */
void gr__coll_sides(const grCollectiveNodeParams *p, size_t *send, size_t *recv);

void gr__comm_retain(grComm_t c);
void gr__comm_release(grComm_t c);

/* Bytes of one element of t (a checked type). */
size_t gr__coll_type_size(grCommDataType t);

/* The name of op, type and redop for details and DOT labels. */
const char *gr__coll_op_name(grCollectiveOp op);
const char *gr__coll_type_name(grCommDataType t);
const char *gr__coll_redop_name(grCommRedOp r);

/* Checks collective parameters (see grGraphAddCollectiveNode), with a
 * detail naming 'call'. */
grError_t gr__coll_check(const char *call, const grCollectiveNodeParams *p);

/* Makes r's persistent request from r->p (nothing on a one-rank
 * communicator). Collective over r->p.comm. */
grError_t gr__coll_prepare(const char *call, gr_coll_run *r);
void gr__coll_unprepare(gr_coll_run *r);

/* Gives r the parameters np (same op and communicator) and a request
 * made for them; where MPI refuses it (out of resources: it made one for
 * the same operation before), r keeps its old ones and the refusal
 * becomes a device fault, for a caller that cannot fail
 * (grGraphExecUpdate's apply step). */
void gr__coll_replace(gr_coll_run *r, const grCollectiveNodeParams *np);

/* Runs the collective of r on the calling thread, blocking until it is
 * complete: the persistent request's start and wait, or the local copy. */
void gr__coll_run(gr_coll_run *r);

/* Runs p's collective once, blocking (an eager stream call): MPI's
 * blocking call, or the local copy. */
void gr__coll_run_once(const grCollectiveNodeParams *p);

/* Collective over comm: compares this rank's sequence of 'n' collective
 * signatures with every other rank's (an all-gather of a hash, then of
 * the first signatures on a mismatch). grSuccess when all agree; else
 * grErrorInvalidValue with a detail naming 'call', the position of the
 * first differing collective, what each side holds there and the ranks
 * that differ, which *pos receives (UINT32_MAX: the counts differ). */
typedef struct gr_coll_sig {
    uint32_t op, datatype, redop;
    int32_t root;
    uint64_t count;
} gr_coll_sig;
grError_t gr__comm_check_sequence(const char *call, grComm_t comm, const gr_coll_sig *sig, uint32_t n,
                                  uint32_t *pos);

/* comm_mpi.c (stubs in comm.c without MPI). */
grError_t gr__comm_mpi_world(const char *call, grComm_t c);
grError_t gr__comm_mpi_from(const char *call, grComm_t c, const void *mpi_comm);
void gr__comm_mpi_free(grComm_t c);
grError_t gr__coll_mpi_prepare(const char *call, gr_coll_run *r);
void gr__coll_mpi_unprepare(gr_coll_run *r);
void gr__coll_mpi_run(gr_coll_run *r);
void gr__coll_mpi_run_once(const grCollectiveNodeParams *p);
/* All-gathers 'bytes' from every rank into out (size * bytes). */
grError_t gr__comm_mpi_allgather(const char *call, grComm_t c, const void *in, void *out, size_t bytes);

#endif /* GR_COMM_H */
