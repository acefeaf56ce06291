// nodeapi.cu - probes CUDA's generic node API: cudaGraphAddNode,
// cudaGraphNodeSetParams and cudaGraphExecNodeSetParams for each node type,
// cudaGraphInstantiateWithParams' result_out / errNode_out, and
// cudaGraphExecGetFlags after each instantiate flag.
// Build: nvcc -arch=sm_90 -o nodeapi nodeapi.cu -lcuda
#include "probe.h"
#include <string>

__global__ void inc2(int *p)
{
    atomicAdd(p, 2);
}
static void count_host(void *p)
{
    ++*(int *)p;
}

static int *dmem;
static int hostcount;
static cudaStream_t st;
static cudaEvent_t ev1, ev2;
static void *kargs_a[1], *kargs_b[1];
static int *pa, *pb;

// Fills p with valid parameters of type t; variant 0 or 1 picks different values.
static void fill(cudaGraphNodeParams &p, cudaGraphNodeType t, int variant, cudaGraph_t child)
{
    memset(&p, 0, sizeof p);
    p.type = t;
    switch (t) {
    case cudaGraphNodeTypeKernel:
        p.kernel.func = variant ? (void *)inc2 : (void *)inc;
        p.kernel.gridDim = dim3(1);
        p.kernel.blockDim = dim3(1);
        p.kernel.kernelParams = variant ? kargs_b : kargs_a;
        break;
    case cudaGraphNodeTypeMemcpy:
        p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(dmem + (variant ? 8 : 0), 16, 16, 1);
        p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(dmem + 16, 16, 16, 1);
        p.memcpy.copyParams.extent = make_cudaExtent(16, 1, 1);
        p.memcpy.copyParams.kind = cudaMemcpyDeviceToDevice;
        break;
    case cudaGraphNodeTypeMemset:
        p.memset.dst = dmem + 32;
        p.memset.value = variant ? 9 : 7;
        p.memset.elementSize = 4;
        p.memset.width = 4;
        p.memset.height = 1;
        break;
    case cudaGraphNodeTypeHost:
        p.host.fn = count_host;
        p.host.userData = &hostcount;
        break;
    case cudaGraphNodeTypeGraph:
        p.graph.graph = child;
        break;
    case cudaGraphNodeTypeEmpty:
        break;
    case cudaGraphNodeTypeWaitEvent:
        p.eventWait.event = variant ? ev2 : ev1;
        break;
    case cudaGraphNodeTypeEventRecord:
        p.eventRecord.event = variant ? ev2 : ev1;
        break;
    case cudaGraphNodeTypeMemAlloc:
        p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
        p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
        p.alloc.poolProps.location.id = 0;
        p.alloc.bytesize = variant ? 2048 : 1024;
        break;
    default:
        break;
    }
}

static cudaGraph_t mkchild(int variant)
{
    cudaGraph_t c;
    cudaGraphCreate(&c, 0);
    cudaGraphNode_t n;
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = variant ? (void *)inc2 : (void *)inc;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = kargs_a;
    cudaGraphAddKernelNode(&n, c, nullptr, 0, &kp);
    return c;
}

static const char *rname(cudaGraphInstantiateResult r)
{
    static const char *n[] = {"Success",
                              "Error",
                              "InvalidStructure",
                              "NodeOperationNotSupported",
                              "MultipleDevicesNotSupported",
                              "ConditionalHandleUnused"};
    return (unsigned)r < 6 ? n[r] : "?";
}

static cudaError_t instp(const char *name, cudaGraphExec_t *ex, cudaGraph_t g, unsigned long long flags,
                         cudaStream_t up = nullptr)
{
    cudaGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = flags;
    ip.uploadStream = up;
    ip.result_out = (cudaGraphInstantiateResult)77;
    *ex = nullptr;
    cudaError_t e = cudaGraphInstantiateWithParams(ex, g, &ip);
    unsigned long long f = 12345;
    cudaError_t fe = *ex ? cudaGraphExecGetFlags(*ex, &f) : cudaErrorInvalidValue;
    report(name, e, "result_out=%s(%d) errNode=%s execflags=%s:%llu", rname(ip.result_out),
           (int)ip.result_out, ip.errNode_out ? ntype(ip.errNode_out) : "null", *ex ? en(fe) : "-",
           *ex ? f : 0ull);
    return e;
}

int main()
{
    probe_start(&st, &dmem);
    cudaMemset(dmem, 0, 64 * sizeof(int));
    cudaEventCreate(&ev1);
    cudaEventCreate(&ev2);
    pa = dmem;
    pb = dmem + 1;
    kargs_a[0] = &pa;
    kargs_b[0] = &pb;

    cudaGraphNodeType types[] = {cudaGraphNodeTypeKernel,    cudaGraphNodeTypeMemcpy,
                                 cudaGraphNodeTypeMemset,    cudaGraphNodeTypeHost,
                                 cudaGraphNodeTypeGraph,     cudaGraphNodeTypeEmpty,
                                 cudaGraphNodeTypeWaitEvent, cudaGraphNodeTypeEventRecord,
                                 cudaGraphNodeTypeMemAlloc,  cudaGraphNodeTypeMemFree};
    // ---- per type: AddNode, NodeSetParams (same type, other values), ExecNodeSetParams
    for (cudaGraphNodeType t : types) {
        std::string b = std::string("type-") + typename_(t);
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        NODEPARAMS(p);
        cudaGraph_t c0 = mkchild(0), c1 = mkchild(1);
        cudaGraphNode_t n = nullptr, an = nullptr;
        void *allocated = nullptr;
        if (t == cudaGraphNodeTypeMemFree) {
            NODEPARAMS(ap);
            fill(ap, cudaGraphNodeTypeMemAlloc, 0, nullptr);
            report((b + "-alloc-for-free").c_str(), cudaGraphAddNode(&an, g, nullptr, nullptr, 0, &ap));
            allocated = ap.alloc.dptr;
            memset(&p, 0, sizeof p);
            p.type = t;
            p.free.dptr = allocated;
        } else {
            fill(p, t, 0, c0);
        }
        cudaError_t e = cudaGraphAddNode(&n, g, an ? &an : nullptr, nullptr, an ? 1 : 0, &p);
        report((b + "-addnode").c_str(), e, "type=%s%s", e ? "-" : ntype(n),
               t == cudaGraphNodeTypeMemAlloc ? (p.alloc.dptr ? " dptr=set" : " dptr=null") : "");
        if (e) {
            cudaGraphDestroy(g);
            continue;
        }
        if (t == cudaGraphNodeTypeMemAlloc) {
            // free it in the graph, so that instantiate works
            NODEPARAMS(fp);
            fp.type = cudaGraphNodeTypeMemFree;
            fp.free.dptr = p.alloc.dptr;
            cudaGraphNode_t fn;
            cudaGraphAddNode(&fn, g, &n, nullptr, 1, &fp);
        }
        NODEPARAMS(q);
        if (t == cudaGraphNodeTypeMemFree) {
            q.type = t;
            q.free.dptr = allocated;
        } else {
            fill(q, t, 1, c1);
        }
        R((b + "-nodesetparams-same-type").c_str(), cudaGraphNodeSetParams(n, &q));
        // change of type: kernel <-> memset
        NODEPARAMS(other);
        fill(other, t == cudaGraphNodeTypeMemset ? cudaGraphNodeTypeKernel : cudaGraphNodeTypeMemset, 0,
             nullptr);
        report((b + "-nodesetparams-other-type").c_str(), cudaGraphNodeSetParams(n, &other), "type-now=%s",
               ntype(n));
        // reserved fields non-zero
        NODEPARAMS(r);
        fill(r, t, 0, c0);
        if (t == cudaGraphNodeTypeMemFree)
            r.free.dptr = allocated;
        r.reserved0[0] = 1;
        R((b + "-nodesetparams-reserved0-set").c_str(), cudaGraphNodeSetParams(n, &r));
        r.reserved0[0] = 0;
        r.reserved2 = 1;
        R((b + "-nodesetparams-reserved2-set").c_str(), cudaGraphNodeSetParams(n, &r));
        cudaGraphExec_t ex;
        if (!instp((b + "-instantiate").c_str(), &ex, g, 0)) {
            NODEPARAMS(x);
            if (t == cudaGraphNodeTypeMemFree) {
                x.type = t;
                x.free.dptr = allocated;
            } else {
                fill(x, t, 0, c0);
            }
            R((b + "-execnodesetparams-same-type").c_str(), cudaGraphExecNodeSetParams(ex, n, &x));
            R((b + "-execnodesetparams-other-type").c_str(), cudaGraphExecNodeSetParams(ex, n, &other));
            if (t == cudaGraphNodeTypeGraph) {
                // child graph of another shape
                cudaGraph_t c2 = mkchild(0);
                cudaGraphNode_t extra;
                cudaGraphAddEmptyNode(&extra, c2, nullptr, 0);
                x.graph.graph = c2;
                R((b + "-execnodesetparams-child-other-shape").c_str(),
                  cudaGraphExecNodeSetParams(ex, n, &x));
                cudaGraphDestroy(c2);
            }
            if (t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemset || t == cudaGraphNodeTypeHost) {
                cudaMemset(dmem, 0, 64 * sizeof(int));
                hostcount = 0;
                NODEPARAMS(y);
                fill(y, t, 1, c1);
                R((b + "-execnodesetparams-variant1").c_str(), cudaGraphExecNodeSetParams(ex, n, &y));
                cudaGraphLaunch(ex, st);
                int v[2] = {0, 0}, m = 0;
                cudaStreamSynchronize(st);
                cudaMemcpy(v, dmem, 8, cudaMemcpyDeviceToHost);
                cudaMemcpy(&m, dmem + 32, 4, cudaMemcpyDeviceToHost);
                note((b + "-execnodesetparams-variant1-launch").c_str(), "d0=%d d1=%d d32=%d host=%d", v[0],
                     v[1], m, hostcount);
            }
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
        cudaGraphDestroy(c0);
        cudaGraphDestroy(c1);
    }
    // ---- AddNode with bad types
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t n;
        NODEPARAMS(p);
        p.type = (cudaGraphNodeType)12;
        R("addnode-type12", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p));
        p.type = cudaGraphNodeTypeCount;
        R("addnode-type-count", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p));
        p.type = cudaGraphNodeTypeExtSemaphoreSignal;
        R("addnode-extsem-signal-zeroed", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p));
        p.type = cudaGraphNodeTypeEmpty;
        p.reserved0[1] = 3;
        R("addnode-empty-reserved0", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p));
        p.reserved0[1] = 0;
        p.reserved1[5] = 3;
        R("addnode-empty-union-padding-nonzero", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p));
        p.reserved1[5] = 0;
        p.reserved2 = 3;
        R("addnode-empty-reserved2", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p));
        p.reserved2 = 0;
        R("addnode-null-params", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, nullptr));
        NODEPARAMS(mp);
        fill(mp, cudaGraphNodeTypeMemcpy, 0, nullptr);
        mp.memcpy.flags = 1;
        R("addnode-memcpy-flags1", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &mp));
        mp.memcpy.flags = 0;
        mp.memcpy.reserved[0] = 1;
        R("addnode-memcpy-reserved", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &mp));
        NODEPARAMS(kp);
        fill(kp, cudaGraphNodeTypeKernel, 0, nullptr);
        void *extra[] = {CU_LAUNCH_PARAM_END};
        kp.kernel.extra = extra;
        R("addnode-kernel-params-and-extra", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &kp));
        // child graph with ownership move, then the moved graph handle
        cudaGraph_t c = mkchild(0);
        NODEPARAMS(cp);
        cp.type = cudaGraphNodeTypeGraph;
        cp.graph.graph = c;
        cp.graph.ownership = cudaGraphChildGraphOwnershipMove;
        cudaError_t e = cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &cp);
        cudaGraph_t inner = nullptr;
        cudaGraphChildGraphNodeGetGraph(n, &inner);
        report("addnode-child-move", e, "inner==moved=%d", inner == c);
        cudaGraphNode_t x;
        R("moved-child-add-node-to-moved-graph", cudaGraphAddEmptyNode(&x, c, nullptr, 0));
        R("moved-child-destroy-moved-graph", cudaGraphDestroy(c));
        cp.graph.ownership = (cudaGraphChildGraphNodeOwnership)2;
        cp.graph.graph = mkchild(0);
        R("addnode-child-ownership2", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &cp));
        // a child graph holding alloc nodes with clone ownership
        cudaGraph_t ac;
        cudaGraphCreate(&ac, 0);
        NODEPARAMS(ap);
        fill(ap, cudaGraphNodeTypeMemAlloc, 0, nullptr);
        cudaGraphNode_t an;
        cudaGraphAddNode(&an, ac, nullptr, nullptr, 0, &ap);
        cp.graph.graph = ac;
        cp.graph.ownership = cudaGraphChildGraphOwnershipClone;
        R("addnode-child-with-alloc-clone", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &cp));
        R("addchildgraphnode-with-alloc", cudaGraphAddChildGraphNode(&n, g, nullptr, 0, ac));
        cp.graph.ownership = cudaGraphChildGraphOwnershipMove;
        R("addnode-child-with-alloc-move", cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &cp));
        cudaGraphDestroy(g);
    }
    // ---- instantiate results
    {
        // free node of a cudaMalloc pointer
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t n = nullptr;
        void *m;
        cudaMalloc(&m, 256);
        R("free-node-of-cudamalloc-pointer-add", cudaGraphAddMemFreeNode(&n, g, nullptr, 0, m));
        cudaGraphExec_t ex;
        if (nnodes(g))
            instp("free-node-of-cudamalloc-pointer-instantiate", &ex, g, 0);
        cudaGraphDestroy(g);
        // free node of another graph's allocation
        cudaGraph_t ga, gb;
        cudaGraphCreate(&ga, 0);
        cudaGraphCreate(&gb, 0);
        NODEPARAMS(ap);
        fill(ap, cudaGraphNodeTypeMemAlloc, 0, nullptr);
        cudaGraphNode_t an, fnode;
        cudaGraphAddNode(&an, ga, nullptr, nullptr, 0, &ap);
        R("free-node-of-other-graph-alloc-add",
          cudaGraphAddMemFreeNode(&fnode, gb, nullptr, 0, ap.alloc.dptr));
        cudaGraphExec_t ea = nullptr, eb = nullptr;
        instp("alloc-only-graph-instantiate", &ea, ga, 0);
        instp("free-only-graph-instantiate", &eb, gb, 0);
        if (ea && eb) {
            report("alloc-only-launch", cudaGraphLaunch(ea, st));
            report("free-only-launch", cudaGraphLaunch(eb, st));
            report("alloc-free-sync", cudaStreamSynchronize(st));
            report("alloc-only-relaunch-after-free", cudaGraphLaunch(ea, st));
            report("alloc-only-relaunch-sync", cudaStreamSynchronize(st));
            cudaGraphLaunch(eb, st);
            cudaStreamSynchronize(st);
        }
        // alloc graph instantiated twice
        cudaGraphExec_t ea2 = nullptr;
        instp("alloc-graph-instantiate-second-while-first-lives", &ea2, ga, 0);
        if (ea2)
            cudaGraphExecDestroy(ea2);
        if (ea)
            cudaGraphExecDestroy(ea);
        instp("alloc-graph-instantiate-after-first-destroyed", &ea2, ga, 0);
        if (ea2)
            cudaGraphExecDestroy(ea2);
        if (eb)
            cudaGraphExecDestroy(eb);
        // alloc+free graph twice
        cudaGraph_t gc;
        cudaGraphCreate(&gc, 0);
        cudaGraphAddNode(&an, gc, nullptr, nullptr, 0, &ap);
        cudaGraphAddMemFreeNode(&fnode, gc, &an, 1, ap.alloc.dptr);
        cudaGraphExec_t ec1 = nullptr, ec2 = nullptr;
        instp("allocfree-graph-instantiate-first", &ec1, gc, 0);
        instp("allocfree-graph-instantiate-second", &ec2, gc, 0);
        if (ec1)
            cudaGraphExecDestroy(ec1);
        if (ec2)
            cudaGraphExecDestroy(ec2);
        cudaGraphDestroy(ga);
        cudaGraphDestroy(gb);
        cudaGraphDestroy(gc);
        // conditional handle unused
        cudaGraph_t gh;
        cudaGraphCreate(&gh, 0);
        cudaGraphConditionalHandle h;
        cudaGraphConditionalHandleCreate(&h, gh, 0, 0);
        cudaGraphAddEmptyNode(&n, gh, nullptr, 0);
        cudaGraphExec_t eh;
        instp("conditional-handle-unused", &eh, gh, 0);
        R("conditional-handle-unused-plain-instantiate", cudaGraphInstantiate(&eh, gh, 0));
        cudaGraphDestroy(gh);
        // empty graph
        cudaGraph_t ge;
        cudaGraphCreate(&ge, 0);
        instp("empty-graph", &ex, ge, 0);
        if (ex)
            cudaGraphExecDestroy(ex);
        // device launch with a host node
        cudaGraphNode_t hn;
        cudaHostNodeParams hp = {count_host, &hostcount};
        cudaGraphAddHostNode(&hn, ge, nullptr, 0, &hp);
        instp("device-launch-with-host-node", &ex, ge, cudaGraphInstantiateFlagDeviceLaunch);
        if (ex)
            cudaGraphExecDestroy(ex);
        cudaGraphDestroy(ge);
        // device launch with an alloc node
        cudaGraph_t gd;
        cudaGraphCreate(&gd, 0);
        cudaGraphAddNode(&an, gd, nullptr, nullptr, 0, &ap);
        instp("device-launch-with-alloc-node", &ex, gd, cudaGraphInstantiateFlagDeviceLaunch);
        if (ex)
            cudaGraphExecDestroy(ex);
        cudaGraphDestroy(gd);
        R("instantiatewithparams-null-params", cudaGraphInstantiateWithParams(&ex, gh, nullptr));
    }
    // ---- flags and cudaGraphExecGetFlags
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t n;
        cudaKernelNodeParams kp = one_thread_params((void *)inc, kargs_a);
        cudaGraphAddKernelNode(&n, g, nullptr, 0, &kp);
        struct {
            const char *name;
            unsigned long long f;
            bool up;
        } fs[] = {{"flags-0", 0, false},
                  {"flags-autofree", cudaGraphInstantiateFlagAutoFreeOnLaunch, false},
                  {"flags-upload-no-stream", cudaGraphInstantiateFlagUpload, false},
                  {"flags-upload-with-stream", cudaGraphInstantiateFlagUpload, true},
                  {"flags-devicelaunch", cudaGraphInstantiateFlagDeviceLaunch, false},
                  {"flags-usenodepriority", cudaGraphInstantiateFlagUseNodePriority, false},
                  {"flags-autofree+usenodepriority", 9, false},
                  {"flags-autofree+devicelaunch", 5, false},
                  {"flags-upload+devicelaunch", 6, true},
                  {"flags-all4", 15, true},
                  {"flags-16", 16, false},
                  {"flags-1<<40", 1ull << 40, false},
                  {"flags-0-with-stream", 0, true}};
        for (auto &f : fs) {
            cudaGraphExec_t ex;
            if (!instp(f.name, &ex, g, f.f, f.up ? st : nullptr)) {
                report((std::string(f.name) + "-launch").c_str(), cudaGraphLaunch(ex, st));
                cudaStreamSynchronize(st);
                cudaGraphExecDestroy(ex);
            }
        }
        struct {
            const char *name;
            unsigned long long f;
        } wf[] = {{"withflags-upload", cudaGraphInstantiateFlagUpload},
                  {"withflags-devicelaunch", cudaGraphInstantiateFlagDeviceLaunch},
                  {"withflags-usenodepriority", cudaGraphInstantiateFlagUseNodePriority},
                  {"withflags-16", 16}};
        for (auto &f : wf) {
            cudaGraphExec_t ex = nullptr;
            unsigned long long got = 0;
            cudaError_t e = cudaGraphInstantiateWithFlags(&ex, g, f.f);
            if (!e)
                cudaGraphExecGetFlags(ex, &got);
            report(f.name, e, "execflags=%llu", got);
            if (ex)
                cudaGraphExecDestroy(ex);
        }
        cudaGraphExec_t ex = nullptr;
        unsigned long long got = 0;
        cudaError_t e = cudaGraphInstantiate(&ex, g, cudaGraphInstantiateFlagAutoFreeOnLaunch);
        if (!e)
            cudaGraphExecGetFlags(ex, &got);
        report("instantiate-plain-autofree", e, "execflags=%llu", got);
        R("execgetflags-null-out", cudaGraphExecGetFlags(ex, nullptr));
        R("execgetflags-null-exec", cudaGraphExecGetFlags(nullptr, &got));
        // the upload stream is not capturing; a capturing upload stream:
        cudaStream_t cs;
        cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
        cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed);
        cudaGraphExec_t ex2;
        instp("flags-upload-capturing-stream", &ex2, g, cudaGraphInstantiateFlagUpload, cs);
        cudaGraph_t cg = nullptr;
        report("flags-upload-capturing-stream-endcapture", cudaStreamEndCapture(cs, &cg), "graph-nodes=%zu",
               cg ? nnodes(cg) : 0);
        if (ex)
            cudaGraphExecDestroy(ex);
        cudaGraphDestroy(g);
    }
    // ---- follow-ups: child graph node set to a graph of another shape; a node of another exec
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraph_t c = mkchild(0);
        cudaGraphNode_t n;
        cudaGraphAddChildGraphNode(&n, g, nullptr, 0, c);
        cudaGraph_t c2 = mkchild(0);
        cudaGraphNode_t extra;
        cudaGraphAddEmptyNode(&extra, c2, nullptr, 0);
        NODEPARAMS(p);
        p.type = cudaGraphNodeTypeGraph;
        p.graph.graph = c2;
        cudaError_t e = cudaGraphNodeSetParams(n, &p);
        cudaGraph_t inner = nullptr;
        cudaGraphChildGraphNodeGetGraph(n, &inner);
        report("followup-nodesetparams-child-other-shape", e, "inner-nodes=%zu", nnodes(inner));
        p.graph.ownership = cudaGraphChildGraphOwnershipMove;
        R("followup-nodesetparams-child-ownership-move", cudaGraphNodeSetParams(n, &p));
        cudaGraph_t g2;
        cudaGraphCreate(&g2, 0);
        cudaGraphNode_t e2;
        cudaGraphAddEmptyNode(&e2, g2, nullptr, 0);
        cudaGraphExec_t ex;
        cudaGraphInstantiate(&ex, g, 0);
        NODEPARAMS(q);
        q.type = cudaGraphNodeTypeEmpty;
        R("followup-execnodesetparams-node-of-other-graph", cudaGraphExecNodeSetParams(ex, e2, &q));
        R("followup-execnodesetparams-null-params", cudaGraphExecNodeSetParams(ex, n, nullptr));
        R("followup-nodesetparams-null-params", cudaGraphNodeSetParams(n, nullptr));
        cudaGraphExecDestroy(ex);
        cudaGraphDestroy(g);
        cudaGraphDestroy(g2);
        cudaGraphDestroy(c);
        cudaGraphDestroy(c2);
    }
    report("final-device-sync", cudaDeviceSynchronize());
    return 0;
}
