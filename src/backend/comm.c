/*
 * comm.c - communicators and collectives, the parts that need no MPI:
 * the object's references, the checks of collective parameters, the
 * one-rank communicator (every collective a local copy, a Send's data
 * kept until its Recv), and the comparison of the ranks' collective
 * sequences that instantiate makes (through comm_mpi.c's all-gather).
 * Without MPI at build time the MPI entry points below answer
 * grErrorNotSupported.
 *
 * Invariants: comm.h's.
 */
#include "comm.h"
#include "device.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Communicator objects, kept as dead shells once freed (core.h), so that
 * a destroyed handle is refused instead of read after free. */
static gr_shelf comm_shelf = GR_SHELF_INIT(sizeof(struct grComm_st));

grComm_t gr__comm_alloc(void)
{
    grComm_t c = gr__shell_alloc(&comm_shelf);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->magic = GR_MAGIC_COMM;
    atomic_init(&c->refs, 1);
    c->rank = 0;
    c->size = 1;
    return c;
}

grComm_t gr__comm_standin(int rank, int size)
{
    grComm_t c = gr__comm_alloc();
    if (c && size > 1) {
        c->rank = rank;
        c->size = size;
        c->standin = true;
    }
    return c;
}

grError_t gr__comm_check_live(const char *call, grComm_t c)
{
    if (c->standin)
        return gr__fail(
            grErrorNotSupported,
            "%s: communicator %p stands for rank %d of %d of a loaded graph file and has no ranks "
            "behind it: give the collective nodes a live communicator "
            "(grGraphCollectiveNodeSetParams) before running them",
            call, GR_PTR(c), c->rank, c->size);
    return grSuccess;
}

grError_t gr__comm_check_device(const char *call, grComm_t c, int device, const char *what)
{
    if (c->device == device)
        return grSuccess;
    return gr__fail(grErrorInvalidValue,
                    "%s: communicator %p is of device %d (%s) but %s work is of device %d (%s): a "
                    "communicator runs collectives on its own device only",
                    call, GR_PTR(c), c->device, c->device ? "a GPU, grCommInitDevices" : "the CPU", what,
                    device, device ? "a GPU" : "the CPU");
}

void gr__comm_discard(grComm_t c)
{
    gr__mark_dead(&c->magic);
    gr__shell_retire(&comm_shelf, c);
}

void gr__comm_retain(grComm_t c)
{
    gr_fetch_add_relaxed(&c->refs, 1);
}

void gr__comm_release(grComm_t c)
{
    if (gr_fetch_sub_acq_rel(&c->refs, 1) != 1)
        return;
    if (c->mpi)
        gr__comm_mpi_free(c);
    if (c->dev)
        gr__devkind()->comm_free(c->device, c->dev);
    for (gr_self_msg *m = c->head, *next; m; m = next) {
        next = m->next;
        gr__free(m);
    }
    gr__comm_discard(c);
}

static const char *const op_names[grCollOpCount] = {"all-reduce",     "broadcast", "reduce", "all-gather",
                                                    "reduce-scatter", "send",      "recv"};
static const char *const type_names[grCommDataTypeCount] = {
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16"};
static const char *const redop_names[grCommRedOpCount] = {"sum", "prod", "max", "min", "avg"};
static const unsigned char type_sizes[grCommDataTypeCount] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};

size_t gr__coll_type_size(grCommDataType t)
{
    return (unsigned)t < grCommDataTypeCount ? type_sizes[t] : 0;
}

const char *gr__coll_op_name(grCollectiveOp op)
{
    return (unsigned)op < grCollOpCount ? op_names[op] : "unknown";
}

const char *gr__coll_type_name(grCommDataType t)
{
    return (unsigned)t < grCommDataTypeCount ? type_names[t] : "unknown";
}

const char *gr__coll_redop_name(grCommRedOp r)
{
    return (unsigned)r < grCommRedOpCount ? redop_names[r] : "unknown";
}

static bool has_redop(grCollectiveOp op)
{
    return op == grCollAllReduce || op == grCollReduce || op == grCollReduceScatter;
}

static bool has_root(grCollectiveOp op)
{
    return op == grCollBroadcast || op == grCollReduce || op == grCollSend || op == grCollRecv;
}

void gr__coll_sides(const grCollectiveNodeParams *p, size_t *send, size_t *recv)
{
    size_t b = p->count * gr__coll_type_size(p->datatype), all = b * (size_t)p->comm->size;
    bool root = p->comm->rank == p->root;
    switch (p->op) {
    case grCollAllReduce:
        *send = *recv = b;
        return;
    case grCollBroadcast:
        *send = root ? b : 0;
        *recv = b;
        return;
    case grCollReduce:
        *send = b;
        *recv = root ? b : 0;
        return;
    case grCollAllGather:
        *send = b;
        *recv = all;
        return;
    case grCollReduceScatter:
        *send = all;
        *recv = b;
        return;
    case grCollSend:
        *send = b;
        *recv = 0;
        return;
    case grCollRecv:
    case grCollOpCount:
        *send = 0;
        *recv = b;
        return;
    }
}

grError_t gr__coll_check(const char *call, const grCollectiveNodeParams *p)
{
    if (!gr__comm_valid(p->comm))
        return gr__fail(grErrorInvalidValue,
                        "%s: comm %p is not a live communicator (NULL, destroyed, or not from grCommInit*)",
                        call, GR_PTR(p->comm));
    if ((unsigned)p->op >= grCollOpCount)
        return gr__fail(grErrorInvalidValue, "%s: op %d is not a grCollectiveOp", call, (int)p->op);
    if ((unsigned)p->datatype >= grCommDataTypeCount)
        return gr__fail(grErrorInvalidValue, "%s: datatype %d is not a grCommDataType", call,
                        (int)p->datatype);
    if ((unsigned)p->redop >= grCommRedOpCount)
        return gr__fail(grErrorInvalidValue, "%s: redop %d is not a grCommRedOp", call, (int)p->redop);
    if (!has_redop(p->op) && p->redop != 0)
        return gr__fail(grErrorInvalidValue, "%s: a %s has no reduction: redop must be 0 (it is %s)", call,
                        gr__coll_op_name(p->op), gr__coll_redop_name(p->redop));
    if (has_root(p->op) ? (p->root < 0 || p->root >= p->comm->size) : p->root != 0)
        return gr__fail(grErrorInvalidValue,
                        has_root(p->op)
                            ? "%s: %s of rank %d: the communicator has ranks 0 to %d"
                            : "%s: a %s has no root or peer: root must be 0 (it is %d; ranks 0 to %d)",
                        call, gr__coll_op_name(p->op), p->root, p->comm->size - 1);
    size_t esz = gr__coll_type_size(p->datatype), total;
    if (p->count > SIZE_MAX / esz / (size_t)p->comm->size || __builtin_mul_overflow(p->count, esz, &total))
        return gr__fail(grErrorInvalidValue, "%s: count %zu of %s overflows the address space", call,
                        p->count, gr__coll_type_name(p->datatype));
    size_t sb, rb;
    gr__coll_sides(p, &sb, &rb);
    if (sb && p->sendbuff == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: sendbuff is NULL; a %s of %zu elements reads %zu bytes there", call,
                        gr__coll_op_name(p->op), p->count, sb);
    if (rb && p->recvbuff == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: recvbuff is NULL; a %s of %zu elements writes %zu bytes there", call,
                        gr__coll_op_name(p->op), p->count, rb);
    if (sb && rb) {
        uintptr_t s = (uintptr_t)p->sendbuff, r = (uintptr_t)p->recvbuff;
        bool overlap = s < r + rb && r < s + sb;
        bool in_place =
            (s == r && (p->op == grCollAllReduce || p->op == grCollReduce || p->op == grCollBroadcast)) ||
            (p->op == grCollAllGather && s == r + (size_t)p->comm->rank * sb);
        if (overlap && !in_place)
            return gr__fail(
                grErrorInvalidValue,
                "%s: the buffers of a %s overlap (sendbuff %p, %zu bytes; recvbuff %p, %zu bytes) "
                "other than in its in-place form",
                call, gr__coll_op_name(p->op), p->sendbuff, sb, p->recvbuff, rb);
    }
    /* NCCL pairs a send and a receive of one rank only inside a group of
     * calls (ncclGroupStart), which graphrt does not make: alone, either
     * would wait for the other for ever. */
    if (p->comm->device != 0 && (p->op == grCollSend || p->op == grCollRecv) && p->root == p->comm->rank)
        return gr__fail(grErrorNotSupported,
                        "%s: a %s of rank %d to itself on a GPU communicator: NCCL pairs it with its "
                        "partner only in a group of calls, which graphrt does not make yet",
                        call, gr__coll_op_name(p->op), p->root);
    if (p->comm->mpi != NULL && p->count > INT_MAX)
        return gr__fail(grErrorNotSupported, "%s: count %zu is above MPI's int counts (%d)", call, p->count,
                        INT_MAX);
    if (p->comm->mpi != NULL && has_redop(p->op) &&
        (p->datatype == grCommFloat16 || p->datatype == grCommBfloat16))
        return gr__fail(grErrorNotSupported,
                        "%s: a %s of %s over MPI: MPI has no reduction of 16-bit floats (not on the CPU yet)",
                        call, gr__coll_op_name(p->op), gr__coll_type_name(p->datatype));
    return grSuccess;
}

/* ------------------------------------------------- one-rank communicator */

/* A Send's data, kept for the Recv that follows it. */
static void self_send(grComm_t c, const void *src, size_t bytes)
{
    gr_self_msg *m = gr__malloc(sizeof *m + bytes);
    if (!m) {
        gr__kernel_fault(grErrorMemoryAllocation, "a send on a one-rank communicator: out of memory");
        return;
    }
    m->next = NULL;
    m->bytes = bytes;
    if (bytes)
        memcpy(m->data, src, bytes);
    gr__spin_lock(&c->lock);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    gr__spin_unlock(&c->lock);
}

static void self_recv(grComm_t c, void *dst, size_t bytes)
{
    gr__spin_lock(&c->lock);
    gr_self_msg *m = c->head;
    if (m) {
        c->head = m->next;
        if (!c->head)
            c->tail = NULL;
    }
    gr__spin_unlock(&c->lock);
    if (!m) {
        gr__kernel_fault(
            grErrorIllegalState,
            "a recv on a one-rank communicator found no send: on one rank the send must run first");
        return;
    }
    if (m->bytes != bytes) {
        char d[160];
        snprintf(d, sizeof d, "a recv of %zu bytes on a one-rank communicator met a send of %zu bytes", bytes,
                 m->bytes);
        gr__kernel_fault(grErrorIllegalState, d);
    } else if (bytes) {
        memcpy(dst, m->data, bytes);
    }
    gr__free(m);
}

/* A collective of one rank: the output is the input. */
static void self_run(const grCollectiveNodeParams *p)
{
    size_t b = p->count * gr__coll_type_size(p->datatype);
    switch (p->op) {
    case grCollSend:
        self_send(p->comm, p->sendbuff, b);
        return;
    case grCollRecv:
        self_recv(p->comm, p->recvbuff, b);
        return;
    case grCollAllReduce:
    case grCollBroadcast:
    case grCollReduce:
    case grCollAllGather:
    case grCollReduceScatter:
        if (b && p->recvbuff != p->sendbuff)
            memmove(p->recvbuff, p->sendbuff, b);
        return;
    case grCollOpCount:
        return;
    }
}

grError_t gr__coll_prepare(const char *call, gr_coll_run *r)
{
    r->req = NULL;
    return r->p.comm->mpi ? gr__coll_mpi_prepare(call, r) : grSuccess;
}

void gr__coll_unprepare(gr_coll_run *r)
{
    if (r->req)
        gr__coll_mpi_unprepare(r);
    r->req = NULL;
}

void gr__coll_replace(gr_coll_run *r, const grCollectiveNodeParams *np)
{
    gr_coll_run fresh = {*np, NULL};
    if (gr__coll_prepare("grGraphExecUpdate", &fresh)) {
        /* MPI refused a request it made before for the same operation:
         * out of resources. The node keeps its old collective. */
        gr__kernel_fault(grErrorLaunchFailure, grGetLastErrorDetail());
        return;
    }
    gr__coll_unprepare(r);
    r->p = fresh.p; /* the same communicator: the reference stays */
    r->req = fresh.req;
}

void gr__coll_run(gr_coll_run *r)
{
    if (r->req)
        gr__coll_mpi_run(r);
    else
        self_run(&r->p);
}

void gr__coll_run_once(const grCollectiveNodeParams *p)
{
    if (p->comm->mpi)
        gr__coll_mpi_run_once(p);
    else
        self_run(p);
}

/* ------------------------------------------------- sequence comparison */

/* FNV-1a over the signatures: equal sequences, equal hashes. */
static uint64_t sig_hash(const gr_coll_sig *sig, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    const unsigned char *b = (const unsigned char *)sig;
    for (size_t i = 0; i < (size_t)n * sizeof *sig; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    return h ^ n;
}

static bool sig_eq(const gr_coll_sig *a, const gr_coll_sig *b)
{
    return a->op == b->op && a->datatype == b->datatype && a->redop == b->redop && a->root == b->root &&
           a->count == b->count;
}

static void sig_text(const gr_coll_sig *s, char *buf, size_t size)
{
    if (s->op == UINT32_MAX)
        snprintf(buf, size, "no collective");
    else if (has_redop((grCollectiveOp)s->op))
        snprintf(buf, size, "%s %s of %llu %s", gr__coll_op_name((grCollectiveOp)s->op),
                 gr__coll_redop_name((grCommRedOp)s->redop), (unsigned long long)s->count,
                 gr__coll_type_name((grCommDataType)s->datatype));
    else if (has_root((grCollectiveOp)s->op))
        snprintf(buf, size, "%s of %llu %s (%s %d)", gr__coll_op_name((grCollectiveOp)s->op),
                 (unsigned long long)s->count, gr__coll_type_name((grCommDataType)s->datatype),
                 s->op == grCollSend || s->op == grCollRecv ? "peer" : "root", s->root);
    else
        snprintf(buf, size, "%s of %llu %s", gr__coll_op_name((grCollectiveOp)s->op),
                 (unsigned long long)s->count, gr__coll_type_name((grCommDataType)s->datatype));
}

typedef struct seq_head {
    uint64_t hash;
    uint64_t n;
} seq_head;

grError_t gr__comm_check_sequence(const char *call, grComm_t comm, const gr_coll_sig *sig, uint32_t n,
                                  uint32_t *pos)
{
    *pos = UINT32_MAX;
    if (comm->mpi == NULL || comm->size == 1)
        return grSuccess;
    size_t size = (size_t)comm->size;
    seq_head mine = {sig_hash(sig, n), n}, *all = gr__malloc(size * sizeof *all);
    if (!all)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    grError_t err = gr__comm_mpi_allgather(call, comm, &mine, all, sizeof mine);
    if (err) {
        gr__free(all);
        return err;
    }
    bool same = true;
    uint64_t maxn = 0;
    for (size_t r = 0; r < size; r++) {
        same = same && all[r].hash == all[0].hash && all[r].n == all[0].n;
        maxn = all[r].n > maxn ? all[r].n : maxn;
    }
    gr__free(all);
    if (same)
        return grSuccess;
    /* Every rank finds the mismatch at once (the heads are the same on
     * all of them), so every rank takes part in the second gather. */
    gr_coll_sig *pad = gr__malloc((size_t)maxn * sizeof *pad);
    gr_coll_sig *seqs = gr__malloc(size * (size_t)maxn * sizeof *seqs);
    if (!pad || !seqs) {
        gr__free(pad);
        gr__free(seqs);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory comparing the ranks' collectives", call);
    }
    memset(pad, 0, (size_t)maxn * sizeof *pad);
    for (uint64_t i = 0; i < maxn; i++)
        pad[i] = i < n ? sig[i] : (gr_coll_sig){UINT32_MAX, 0, 0, 0, 0};
    err = gr__comm_mpi_allgather(call, comm, pad, seqs, (size_t)maxn * sizeof *pad);
    gr__free(pad);
    if (err) {
        gr__free(seqs);
        return err;
    }
    uint64_t at = 0;
    size_t other = 0;
    for (; at < maxn; at++) {
        for (other = 1; other < size && sig_eq(&seqs[other * maxn + at], &seqs[at]); other++)
            ;
        if (other < size)
            break;
    }
    char ranks[128] = "", a[96], b[96];
    size_t used = 0;
    for (size_t r = 0; r < size && at < maxn && used + 16 < sizeof ranks; r++)
        if (!sig_eq(&seqs[r * maxn + at], &seqs[at]))
            used += (size_t)snprintf(ranks + used, sizeof ranks - used, "%s%zu", used ? ", " : "", r);
    if (at >= maxn) { /* the hashes differ, the signatures not: never seen */
        gr__free(seqs);
        return gr__fail(grErrorInvalidValue, "%s: the ranks' collective sequences on communicator %p differ",
                        call, GR_PTR(comm));
    }
    sig_text(&seqs[at], a, sizeof a);
    sig_text(&seqs[other * maxn + at], b, sizeof b);
    gr__free(seqs);
    *pos = (uint32_t)at;
    return gr__fail(
        grErrorInvalidValue,
        "%s: the ranks' collectives on communicator %p differ (launching would hang): collective "
        "%llu of the communicator is %s on rank 0 but %s on rank(s) %s; every rank must add the same "
        "collectives in the same order",
        call, GR_PTR(comm), (unsigned long long)at + 1, a, b, ranks);
}

/* ------------------------------------------------------ built without MPI */
#ifndef GR_HAVE_MPI
static grError_t no_mpi(const char *call)
{
    return gr__fail(
        grErrorNotSupported,
        "%s: graphrt was built without MPI (configure with -DGR_WITH_MPI=ON where MPI is installed)", call);
}
grError_t gr__comm_mpi_world(const char *call, grComm_t c)
{
    (void)c;
    return no_mpi(call);
}
grError_t gr__comm_mpi_from(const char *call, grComm_t c, const void *mpi_comm)
{
    (void)c;
    (void)mpi_comm;
    return no_mpi(call);
}
void gr__comm_mpi_free(grComm_t c)
{
    (void)c;
}
grError_t gr__coll_mpi_prepare(const char *call, gr_coll_run *r)
{
    (void)r;
    return no_mpi(call);
}
void gr__coll_mpi_unprepare(gr_coll_run *r)
{
    (void)r;
}
void gr__coll_mpi_run(gr_coll_run *r)
{
    (void)r;
}
void gr__coll_mpi_run_once(const grCollectiveNodeParams *p)
{
    (void)p;
}
grError_t gr__comm_mpi_allgather(const char *call, grComm_t c, const void *in, void *out, size_t bytes)
{
    (void)c;
    (void)in;
    (void)out;
    (void)bytes;
    return no_mpi(call);
}
#endif
