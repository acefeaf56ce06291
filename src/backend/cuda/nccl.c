/*
 * nccl.c - collectives on GPUs (docs/collectives.md): NCCL, loaded at run
 * time as the driver is (dlopen("libnccl.so.2"), or GRAPHRT_NCCL's path;
 * every function of cu_nccl.h by dlsym, once per process), behind the
 * device table's comm_init, comm_unique_id, comm_init_rank, comm_free and
 * coll_launch; and the lowering of a collective node into a GPU's graph:
 * the NCCL call captured on a stream of its own into a CUgraph
 * (cuStreamBeginCapture in relaxed mode, so that NCCL's own set-up calls
 * made during the capture are allowed, as NCCL expects under capture),
 * added as a child graph node, and captured again for the exec setter
 * and grGraphExecUpdate, which give the node the new graph
 * (cuGraphExecChildGraphNodeSetParams).
 *
 * Invariants: a communicator of the kind is an ncclComm_t made by
 * ncclCommInitAll or ncclCommInitRank on the GPU of its graphrt
 * communicator; the table 'nc' is filled whole or left empty (its absence
 * sentence says why) before any use, under pthread_once.
 */
#include "cu_nccl.h"
#include "graph_int.h"
#include "../comm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gr_nccl_table nc;
static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;
static char nccl_absence[256] = "NCCL (libnccl.so.2) not found";

static const struct {
    const char *name;
    size_t offset;
} nccl_entry_points[] = {
#define GR_NCCL_ENTRY(name, params) {#name, offsetof(gr_nccl_table, name)},
    GR_NCCL_FUNCTIONS(GR_NCCL_ENTRY)
#undef GR_NCCL_ENTRY
        {"ncclGetErrorString", offsetof(gr_nccl_table, ncclGetErrorString)},
};

static void nccl_load(void)
{
    const char *path = getenv("GRAPHRT_NCCL");
    if (path == NULL || *path == '\0')
        path = "libnccl.so.2";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(nccl_absence, sizeof nccl_absence, "NCCL (%s) not found: %s", path,
                 why ? why : "dlopen failed");
        return;
    }
    gr_nccl_table t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < sizeof nccl_entry_points / sizeof nccl_entry_points[0]; i++) {
        void *f = dlsym(lib, nccl_entry_points[i].name);
        if (!f) {
            snprintf(nccl_absence, sizeof nccl_absence, "NCCL (%s) lacks %s: an NCCL older than 2.7", path,
                     nccl_entry_points[i].name);
            dlclose(lib);
            return;
        }
        memcpy((char *)&t + nccl_entry_points[i].offset, &f, sizeof f);
    }
    nc = t; /* the library stays loaded for the process's life */
}

/* NCCL's table, loaded on first use, or a failure naming 'call'. */
static grError_t nccl_ready(const char *call)
{
    pthread_once(&nccl_once, nccl_load);
    if (nc.ncclAllReduce == NULL)
        return gr__fail(grErrorNotSupported, "%s: %s; collectives on GPUs need NCCL 2", call, nccl_absence);
    return grSuccess;
}

/* The graphrt error matching an ncclResult_t. */
static grError_t nccl_error(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess:
        return grSuccess;
    case ncclInvalidArgument:
    case ncclInvalidUsage:
        return grErrorInvalidValue;
    case ncclUnhandledCudaError:
        return grErrorLaunchFailure;
    case ncclSystemError:
    case ncclInternalError:
    case ncclRemoteError:
    case ncclInProgress:
        return grErrorUnknown;
    }
    return grErrorUnknown;
}

static grError_t nccl_fail(const char *call, int device, const char *what, ncclResult_t r)
{
    int v = 0;
    nc.ncclGetVersion(&v);
    return gr__fail(nccl_error(r), "%s: %s failed on device %d with NCCL error %d (%s; NCCL %d)", call, what,
                    device, (int)r, nc.ncclGetErrorString(r), v);
}

grError_t gr__cuda_comm_init(const char *call, int ndev, const int *devices, void **out)
{
    grError_t err = nccl_ready(call);
    if (err)
        return err;
    int ordinals[GR_MAX_GPUS];
    ncclComm_t comms[GR_MAX_GPUS];
    for (int i = 0; i < ndev; i++) {
        /* NCCL's runtime calls use the primary context graphrt uses. */
        CUresult r = gr__cuda_enter(devices[i]);
        if (r != CUDA_SUCCESS)
            return gr__cu_fail(call, devices[i], "making the primary context current", r);
        ordinals[i] = (int)gr__gpus[devices[i] - 1].dev;
    }
    ncclResult_t r = nc.ncclCommInitAll(comms, ndev, ordinals);
    if (r != ncclSuccess) {
        grError_t e = nccl_fail(call, devices[0], "ncclCommInitAll", r);
        return e == grErrorUnknown ? grErrorInitializationError : e;
    }
    for (int i = 0; i < ndev; i++)
        out[i] = comms[i];
    return grSuccess;
}

_Static_assert(sizeof(ncclUniqueId) == GR_COMM_UNIQUE_ID_BYTES, "grCommUniqueId holds NCCL's id as is");

grError_t gr__cuda_comm_unique_id(const char *call, void *id)
{
    grError_t err = nccl_ready(call);
    if (err)
        return err;
    ncclUniqueId u;
    ncclResult_t r = nc.ncclGetUniqueId(&u);
    if (r != ncclSuccess) {
        /* NCCL could not open the socket the ranks meet at (its network
         * set-up): a fault of the machine, not of the call. */
        int v = 0;
        nc.ncclGetVersion(&v);
        grError_t e = nccl_error(r);
        return gr__fail(e == grErrorUnknown ? grErrorInitializationError : e,
                        "%s: ncclGetUniqueId failed with NCCL error %d (%s; NCCL %d)", call, (int)r,
                        nc.ncclGetErrorString(r), v);
    }
    memcpy(id, &u, sizeof u);
    return grSuccess;
}

grError_t gr__cuda_comm_init_rank(const char *call, int device, int nranks, const void *id, int rank,
                                  void **out)
{
    grError_t err = nccl_ready(call);
    if (err)
        return err;
    /* ncclCommInitRank takes its GPU from the runtime's current device
     * (cudaGetDevice), which is the device of the context current on the
     * thread: graphrt's primary context of 'device', which NCCL's runtime
     * calls then use, as for ncclCommInitAll. */
    CUresult cr = gr__cuda_enter(device);
    if (cr != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "making the primary context current", cr);
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    ncclComm_t c = NULL;
    ncclResult_t r = nc.ncclCommInitRank(&c, nranks, u, rank);
    if (r != ncclSuccess) {
        grError_t e = nccl_fail(call, device, "ncclCommInitRank", r);
        return e == grErrorUnknown ? grErrorInitializationError : e;
    }
    *out = c;
    return grSuccess;
}

void gr__cuda_comm_free(int device, void *comm)
{
    /* Waits for the communicator's work, as ncclCommDestroy does. */
    if (gr__cuda_enter(device) == CUDA_SUCCESS)
        (void)nc.ncclCommDestroy((ncclComm_t)comm);
}

/* p's NCCL call on stream cu. */
static ncclResult_t nccl_call(const grCollectiveNodeParams *p, CUstream cu)
{
    ncclComm_t c = (ncclComm_t)p->comm->dev;
    int t = (int)p->datatype, op = (int)p->redop;
    switch (p->op) {
    case grCollAllReduce:
        return nc.ncclAllReduce(p->sendbuff, p->recvbuff, p->count, t, op, c, cu);
    case grCollBroadcast:
        return nc.ncclBroadcast(p->sendbuff, p->recvbuff, p->count, t, p->root, c, cu);
    case grCollReduce:
        return nc.ncclReduce(p->sendbuff, p->recvbuff, p->count, t, op, p->root, c, cu);
    case grCollAllGather:
        return nc.ncclAllGather(p->sendbuff, p->recvbuff, p->count, t, c, cu);
    case grCollReduceScatter:
        return nc.ncclReduceScatter(p->sendbuff, p->recvbuff, p->count, t, op, c, cu);
    case grCollSend:
        return nc.ncclSend(p->sendbuff, p->count, t, p->root, c, cu);
    case grCollRecv:
        return nc.ncclRecv(p->recvbuff, p->count, t, p->root, c, cu);
    case grCollOpCount:
        break;
    }
    return ncclInvalidArgument;
}

static const char *nccl_name(grCollectiveOp op)
{
    static const char *const names[grCollOpCount] = {"ncclAllReduce", "ncclBroadcast",     "ncclReduce",
                                                     "ncclAllGather", "ncclReduceScatter", "ncclSend",
                                                     "ncclRecv"};
    return (unsigned)op < grCollOpCount ? names[op] : "an NCCL call";
}

grError_t gr__cuda_coll_launch(const char *call, gr_stream *s, const grCollectiveNodeParams *p)
{
    grError_t err = nccl_ready(call);
    if (err)
        return err;
    CUresult cr = gr__cuda_enter_stream(s);
    if (cr != CUDA_SUCCESS)
        return gr__cu_fail(call, s->device, "making the primary context current", cr);
    ncclResult_t r = nccl_call(p, gr__cuda_stream(s)->cu);
    return r == ncclSuccess ? grSuccess : nccl_fail(call, s->device, nccl_name(p->op), r);
}

/* p's NCCL call captured into a new graph (*out, the caller's), on a
 * stream of device's own made for the capture: nothing else is captured
 * with it. The device's context is current (the caller entered it). */
static grError_t capture(const char *call, int device, const grCollectiveNodeParams *p, CUgraph *out)
{
    grError_t err = nccl_ready(call);
    if (err)
        return err;
    if (!gr_cu.cuStreamBeginCapture || !gr_cu.cuStreamEndCapture || !gr_cu.cuGraphAddChildGraphNode ||
        !gr_cu.cuGraphExecChildGraphNodeSetParams)
        return gr__fail(grErrorCallRequiresNewerDriver,
                        "%s: the driver lacks stream capture or child graph nodes, which a collective node "
                        "on device %d needs",
                        call, device);
    CUstream cs = NULL;
    CUresult r = gr_cu.cuStreamCreateWithPriority(&cs, CU_STREAM_NON_BLOCKING, 0);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "creating the stream that captures an NCCL call", r);
    *out = NULL;
    r = gr_cu.cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (r != CUDA_SUCCESS) {
        gr_cu.cuStreamDestroy(cs);
        return gr__cu_fail(call, device, "cuStreamBeginCapture", r);
    }
    ncclResult_t nr = nccl_call(p, cs);
    /* The capture ends even where NCCL failed, so that the stream can go. */
    r = gr_cu.cuStreamEndCapture(cs, out);
    gr_cu.cuStreamDestroy(cs);
    if (nr != ncclSuccess) {
        if (r == CUDA_SUCCESS && *out)
            gr_cu.cuGraphDestroy(*out);
        *out = NULL;
        char what[64];
        snprintf(what, sizeof what, "%s (captured)", nccl_name(p->op));
        return nccl_fail(call, device, what, nr);
    }
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, device, "cuStreamEndCapture of an NCCL call", r);
    return grSuccess;
}

/* The kinds of node in NCCL's captured graph g, for a refusal's detail
 * (the driver refuses some kinds in a child graph). */
static void describe_capture(CUgraph g, char *buf, size_t len)
{
    static const char *const kinds[] = {"kernel",      "memcpy",     "memset",       "host",
                                        "graph",       "empty",      "event wait",   "event record",
                                        "sem signal",  "sem wait",   "memory alloc", "memory free",
                                        "batch memop", "conditional"};
    enum {
        nkinds = sizeof kinds / sizeof *kinds
    };
    unsigned count[nkinds + 1] = {0};
    size_t n = 0, used = 0;
    CUgraphNode nodes[64];
    buf[0] = '\0';
    if (gr_cu.cuGraphGetNodes(g, NULL, &n) != CUDA_SUCCESS)
        return;
    size_t got = n < 64 ? n : 64;
    if (gr_cu.cuGraphGetNodes(g, nodes, &got) != CUDA_SUCCESS)
        return;
    for (size_t i = 0; i < got; i++) {
        int t = -1;
        gr_cu.cuGraphNodeGetType(nodes[i], &t);
        count[t >= 0 && t < nkinds ? t : nkinds]++;
    }
    used += (size_t)snprintf(buf, len, "%zu node%s", n, n == 1 ? "" : "s");
    for (int k = 0; k <= nkinds && used < len; k++)
        if (count[k])
            used += (size_t)snprintf(buf + used, len - used, ", %u %s", count[k],
                                     k < nkinds ? kinds[k] : "other");
}

/* p's NCCL call captured straight into gx's graph after deps (CUDA
 * 12.3's capture into an existing graph), then an empty node after what
 * it captured (*out): the collective's node, whose parameters cannot be
 * set in the executable (gr__cuda_coll_set refuses). For a captured graph
 * the driver refuses as a child graph. */
static grError_t capture_inline(const char *call, struct gr_dev_exec *gx, const grCollectiveNodeParams *p,
                                CUgraphNode *out, const CUgraphNode *deps, size_t ndeps)
{
    if (!gr_cu.cuStreamBeginCaptureToGraph || !gr_cu.cuStreamGetCaptureInfo)
        return gr__fail(grErrorCallRequiresNewerDriver,
                        "%s: the driver lacks capture into an existing graph (CUDA 12.3)", call);
    CUstream cs = NULL;
    CUresult r = gr_cu.cuStreamCreateWithPriority(&cs, CU_STREAM_NON_BLOCKING, 0);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "creating the stream that captures an NCCL call", r);
    r = gr_cu.cuStreamBeginCaptureToGraph(cs, gx->graph, deps, NULL, ndeps, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (r != CUDA_SUCCESS) {
        gr_cu.cuStreamDestroy(cs);
        return gr__cu_fail(call, gx->device, "cuStreamBeginCaptureToGraph", r);
    }
    ncclResult_t nr = nccl_call(p, cs);
    /* The nodes the call ended on, copied before the capture ends. */
    const CUgraphNode *ends = NULL;
    size_t nends = 0;
    int status = 0;
    CUresult ri = gr_cu.cuStreamGetCaptureInfo(cs, &status, NULL, NULL, &ends, NULL, &nends);
    CUgraphNode *after = gr__malloc((nends ? nends : 1) * sizeof *after);
    if (after && ri == CUDA_SUCCESS && nends)
        memcpy(after, ends, nends * sizeof *after);
    CUgraph g = NULL;
    r = gr_cu.cuStreamEndCapture(cs, &g);
    gr_cu.cuStreamDestroy(cs);
    grError_t err = grSuccess;
    if (nr != ncclSuccess)
        err = nccl_fail(call, gx->device, nccl_name(p->op), nr);
    else if (r != CUDA_SUCCESS || ri != CUDA_SUCCESS)
        err = gr__cu_fail(call, gx->device, "capturing an NCCL call into the graph", r ? r : ri);
    else if (!after)
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                       gx->device);
    if (!err) {
        /* Nothing captured: the node follows the collective's own
         * dependencies. */
        r = nends ? gr_cu.cuGraphAddEmptyNode(out, gx->graph, after, nends)
                  : gr_cu.cuGraphAddEmptyNode(out, gx->graph, deps, ndeps);
        if (r != CUDA_SUCCESS)
            err = gr__cu_fail(call, gx->device, "adding the node after a captured NCCL call", r);
    }
    gr__free(after);
    return err;
}

grError_t gr__cuda_coll_add(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn, CUgraphNode *out,
                            const CUgraphNode *deps, size_t ndeps)
{
    CUgraph child = NULL;
    grError_t err = capture(call, gx->device, &pn->u.coll->p, &child);
    if (err)
        return err;
    /* The node holds a copy of the captured graph. */
    CUresult r = gr_cu.cuGraphAddChildGraphNode(out, gx->graph, deps, ndeps, child);
    if (r != CUDA_SUCCESS) {
        /* Seen on an H100 with NCCL 2.28: a one-rank broadcast's capture
         * (one memcpy node) refused with CUDA_ERROR_INVALID_VALUE. The
         * call is then captured into the graph itself, as a program that
         * captures NCCL into its own graph has it. */
        char what[256];
        describe_capture(child, what, sizeof what);
        gr_cu.cuGraphDestroy(child);
        grError_t ierr = capture_inline(call, gx, &pn->u.coll->p, out, deps, ndeps);
        if (ierr)
            return gr__fail(ierr,
                            "%s: adding the captured NCCL call %s of plan node %u (a graph of %s) as a child "
                            "graph node failed on device %d with %s, and capturing it into the graph failed "
                            "with %s",
                            call, nccl_name(pn->u.coll->p.op), pn->index, what, gx->device,
                            gr__cu_error_name(r), grGetErrorName(ierr));
        gx->has_coll = true;
        return grSuccess;
    }
    gr_cu.cuGraphDestroy(child);
    gx->has_coll = true;
    return grSuccess;
}

grError_t gr__cuda_coll_set(const char *call, struct gr_dev_exec *gx, uint32_t i,
                            const grCollectiveNodeParams *p)
{
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    int type = 0;
    if (gr_cu.cuGraphNodeGetType(gx->nodes[i], &type) == CUDA_SUCCESS && type != CU_GRAPH_NODE_TYPE_GRAPH)
        return gr__fail(grErrorNotSupported,
                        "%s: collective node %u (plan order) was captured into the executable's graph on "
                        "device %d, not as a child graph (the driver refused NCCL's call as one), so its "
                        "parameters cannot change in the executable: instantiate again",
                        call, i, gx->device);
    CUgraph child = NULL;
    grError_t err = capture(call, gx->device, p, &child);
    if (err)
        return err;
    r = gr_cu.cuGraphExecChildGraphNodeSetParams(gx->exec, gx->nodes[i], child);
    gr_cu.cuGraphDestroy(child);
    if (r != CUDA_SUCCESS)
        return gr__fail(gr__cu_error(r),
                        "%s: cuGraphExecChildGraphNodeSetParams of collective node %u (plan order) failed on "
                        "device %d with %s (NCCL's new call has another shape: instantiate again)",
                        call, i, gx->device, gr__cu_error_name(r));
    /* The driver's graph keeps the old call: whole-graph updates are off
     * for an executable with collectives (has_coll). */
    gx->stale[i] = 1;
    return grSuccess;
}

grError_t gr__cuda_exec_set_coll(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                 const grCollectiveNodeParams *p)
{
    return gr__cuda_coll_set(call, gx, i, p);
}

grError_t gr__cuda_coll_sync(const char *call, struct gr_dev_exec *gx, const gr_pnode *pn)
{
    return gr__cuda_coll_set(call, gx, pn->index, &pn->u.coll->p);
}
