// edges.cu - probes CUDA 13's edge data: cudaGraphAddDependencies with and
// without edge data, cudaGraphGetEdges / NodeGetDependencies with a NULL
// edgeData array (cudaErrorLossyQuery), programmatic edges between node
// types, port and type values, and edge data in stream capture.
// Build: nvcc -arch=sm_90 -o edges edges.cu -lcuda
#include "probe.h"

static int *dmem;
static cudaStream_t st;

static cudaGraphNode_t empty(cudaGraph_t g)
{
    cudaGraphNode_t n;
    cudaGraphAddEmptyNode(&n, g, nullptr, 0);
    return n;
}
static cudaGraphNode_t memsetn(cudaGraph_t g)
{
    cudaGraphNode_t n;
    cudaMemsetParams mp = memset4_params(dmem + 8, 0, 1, 1, 0);
    cudaGraphAddMemsetNode(&n, g, nullptr, 0, &mp);
    return n;
}
static cudaGraphEdgeData ed(int from, int to, int type)
{
    cudaGraphEdgeData d;
    memset(&d, 0, sizeof d);
    d.from_port = (unsigned char)from;
    d.to_port = (unsigned char)to;
    d.type = (unsigned char)type;
    return d;
}
static void dump_edges(const char *name, cudaGraph_t g)
{
    size_t n = 0;
    cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n);
    std::vector<cudaGraphNode_t> f(n + 1), t(n + 1);
    std::vector<cudaGraphEdgeData> d(n + 1);
    cudaError_t e = cudaGraphGetEdges(g, f.data(), t.data(), d.data(), &n);
    printf("%s: %s n=%zu", name, en(e), n);
    for (size_t i = 0; i < n && !e; i++)
        printf(" [%s->%s from=%d to=%d type=%d]", ntype(f[i]), ntype(t[i]), d[i].from_port, d[i].to_port,
               d[i].type);
    printf("\n");
    fflush(stdout);
    cudaGetLastError();
}

int main()
{
    probe_start(&st, &dmem);
    // ---- default edges: NULL vs zeroed edge data
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t a = add_inc_node(g, &dmem), b = add_inc_node(g, &dmem), c = add_inc_node(g, &dmem);
        R("adddeps-edgedata-null", cudaGraphAddDependencies(g, &a, &b, nullptr, 1));
        cudaGraphEdgeData z = ed(0, 0, 0);
        R("adddeps-edgedata-zeroed", cudaGraphAddDependencies(g, &b, &c, &z, 1));
        R("adddeps-duplicate-edge", cudaGraphAddDependencies(g, &a, &b, nullptr, 1));
        cudaGraphEdgeData pz = ed(1, 0, 1);
        R("adddeps-duplicate-edge-other-data", cudaGraphAddDependencies(g, &a, &b, &pz, 1));
        size_t n = 0;
        report("getedges-count-only", cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n), "n=%zu", n);
        cudaGraphNode_t f[4], t[4];
        n = 4;
        report("getedges-default-edgedata-null", cudaGraphGetEdges(g, f, t, nullptr, &n), "n=%zu", n);
        n = 1;
        report("getedges-array-too-small", cudaGraphGetEdges(g, f, t, nullptr, &n), "n=%zu", n);
        cudaGraphEdgeData d[4];
        memset(d, 0xee, sizeof d);
        n = 4;
        report("getedges-default-edgedata-array", cudaGraphGetEdges(g, f, t, d, &n),
               "n=%zu d0=(%d,%d,%d) reserved0=%d", n, d[0].from_port, d[0].to_port, d[0].type,
               d[0].reserved[0]);
        n = 4;
        report("getedges-edgedata-without-from-to", cudaGraphGetEdges(g, nullptr, nullptr, d, &n), "n=%zu",
               n);
        cudaGraphNode_t deps[4];
        n = 4;
        report("nodegetdeps-default", cudaGraphNodeGetDependencies(b, deps, nullptr, &n), "n=%zu", n);
        R("removedeps-with-zeroed-data", cudaGraphRemoveDependencies(g, &b, &c, &z, 1));
        R("removedeps-not-present", cudaGraphRemoveDependencies(g, &b, &c, nullptr, 1));
        cudaGraphDestroy(g);
    }
    // ---- programmatic edges between kernels
    {
        struct {
            const char *name;
            int from, to, type;
        } cs[] = {{"k2k-from1-type1", 1, 0, 1}, {"k2k-from2-type1", 2, 0, 1}, {"k2k-from0-type1", 0, 0, 1},
                  {"k2k-from1-type0", 1, 0, 0}, {"k2k-from2-type0", 2, 0, 0}, {"k2k-from3-type1", 3, 0, 1},
                  {"k2k-to1-type0", 0, 1, 0},   {"k2k-to1-type1", 1, 1, 1},   {"k2k-type2", 0, 0, 2},
                  {"k2k-type2-from1", 1, 0, 2}};
        for (auto &c : cs) {
            cudaGraph_t g;
            cudaGraphCreate(&g, 0);
            cudaGraphNode_t a = add_inc_node(g, &dmem), b = add_inc_node(g, &dmem);
            cudaGraphEdgeData d = ed(c.from, c.to, c.type);
            cudaError_t e = cudaGraphAddDependencies(g, &a, &b, &d, 1);
            report(c.name, e, "edges=%zu", nedges(g));
            if (!e) {
                dump_edges((std::string(c.name) + "-stored").c_str(), g);
                cudaGraphExec_t ex;
                cudaError_t ie = cudaGraphInstantiate(&ex, g, 0);
                if (!ie) {
                    cudaMemset(dmem, 0, 4);
                    cudaGraphLaunch(ex, st);
                    cudaError_t s = cudaStreamSynchronize(st);
                    int v = 0;
                    cudaMemcpy(&v, dmem, 4, cudaMemcpyDeviceToHost);
                    report((std::string(c.name) + "-instantiate-launch").c_str(), s, "d0=%d", v);
                    cudaGraphExecDestroy(ex);
                } else {
                    report((std::string(c.name) + "-instantiate").c_str(), ie);
                }
            }
            cudaGraphDestroy(g);
        }
        // reserved bytes non-zero
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t a = add_inc_node(g, &dmem), b = add_inc_node(g, &dmem);
        cudaGraphEdgeData d = ed(0, 0, 0);
        d.reserved[0] = 1;
        R("k2k-reserved-nonzero", cudaGraphAddDependencies(g, &a, &b, &d, 1));
        cudaGraphDestroy(g);
    }
    // ---- lossy queries when one edge is programmatic
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t a = add_inc_node(g, &dmem), b = add_inc_node(g, &dmem), c = add_inc_node(g, &dmem);
        cudaGraphEdgeData p = ed(1, 0, 1);
        cudaGraphAddDependencies(g, &a, &b, &p, 1);
        cudaGraphAddDependencies(g, &b, &c, nullptr, 1);
        size_t n = 0;
        report("prog-getedges-count-only", cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n), "n=%zu", n);
        cudaGraphNode_t f[4], t[4];
        n = 4;
        report("prog-getedges-edgedata-null", cudaGraphGetEdges(g, f, t, nullptr, &n), "n=%zu", n);
        dump_edges("prog-getedges-edgedata-array", g);
        cudaGraphNode_t deps[4];
        n = 4;
        report("prog-nodegetdeps-edgedata-null-on-prog-target",
               cudaGraphNodeGetDependencies(b, deps, nullptr, &n), "n=%zu", n);
        n = 4;
        report("prog-nodegetdeps-edgedata-null-on-default-target",
               cudaGraphNodeGetDependencies(c, deps, nullptr, &n), "n=%zu", n);
        n = 0;
        report("prog-nodegetdeps-count-only", cudaGraphNodeGetDependencies(b, nullptr, nullptr, &n), "n=%zu",
               n);
        n = 4;
        report("prog-nodegetdependents-edgedata-null", cudaGraphNodeGetDependentNodes(a, deps, nullptr, &n),
               "n=%zu", n);
        cudaGraphEdgeData d[4];
        n = 4;
        report("prog-nodegetdeps-edgedata", cudaGraphNodeGetDependencies(b, deps, d, &n),
               "n=%zu d0=(%d,%d,%d)", n, d[0].from_port, d[0].to_port, d[0].type);
        R("prog-removedeps-with-null-data", cudaGraphRemoveDependencies(g, &a, &b, nullptr, 1));
        R("prog-removedeps-with-matching-data", cudaGraphRemoveDependencies(g, &a, &b, &p, 1));
        note("prog-after-remove-edges", "%zu", nedges(g));
        // clone keeps edge data?
        cudaGraphAddDependencies(g, &a, &b, &p, 1);
        cudaGraph_t cl;
        cudaGraphClone(&cl, g);
        dump_edges("prog-clone-edges", cl);
        // DOT
        R("prog-dot", cudaGraphDebugDotPrint(g, "/dev/null", cudaGraphDebugDotFlagsVerbose));
        cudaGraphDestroy(cl);
        cudaGraphDestroy(g);
    }
    // ---- programmatic edges with non-kernel nodes
    {
        struct {
            const char *name;
            int fk, tk; // 0 kernel, 1 memset, 2 empty
        } cs[] = {{"prog-kernel-to-memset", 0, 1},
                  {"prog-memset-to-kernel", 1, 0},
                  {"prog-kernel-to-empty", 0, 2},
                  {"prog-empty-to-kernel", 2, 0},
                  {"prog-empty-to-empty", 2, 2}};
        for (auto &c : cs) {
            for (int from = 1; from <= 2; from++) {
                cudaGraph_t g;
                cudaGraphCreate(&g, 0);
                auto mk = [&](int k) { return k == 0 ? add_inc_node(g, &dmem) : k == 1 ? memsetn(g) : empty(g); };
                cudaGraphNode_t a = mk(c.fk), b = mk(c.tk);
                cudaGraphEdgeData d = ed(from, 0, 1);
                char nm[96];
                snprintf(nm, sizeof nm, "%s-from%d", c.name, from);
                cudaError_t e = cudaGraphAddDependencies(g, &a, &b, &d, 1);
                report(nm, e);
                if (!e) {
                    cudaGraphExec_t ex;
                    snprintf(nm, sizeof nm, "%s-from%d-instantiate", c.name, from);
                    R(nm, cudaGraphInstantiate(&ex, g, 0));
                }
                cudaGraphDestroy(g);
            }
        }
        // AddNode with dependency data
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t a = add_inc_node(g, &dmem), n;
        cudaGraphEdgeData d = ed(1, 0, 1);
        NODEPARAMS(p);
        p.type = cudaGraphNodeTypeEmpty;
        R("addnode-empty-prog-dep", cudaGraphAddNode(&n, g, &a, &d, 1, &p));
        p.type = cudaGraphNodeTypeKernel;
        void *args[] = {&dmem};
        p.kernel.func = (void *)inc;
        p.kernel.gridDim = dim3(1);
        p.kernel.blockDim = dim3(1);
        p.kernel.kernelParams = args;
        R("addnode-kernel-prog-dep", cudaGraphAddNode(&n, g, &a, &d, 1, &p));
        dump_edges("addnode-kernel-prog-dep-edges", g);
        cudaGraphDestroy(g);
    }
    // ---- capture: edge data out, update with edge data
    {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        inc<<<1, 1, 0, s>>>(dmem);
        cudaStreamCaptureStatus cs;
        cudaGraph_t cg;
        const cudaGraphNode_t *deps = nullptr;
        const cudaGraphEdgeData *edata = (const cudaGraphEdgeData *)0x1;
        size_t nd = 0;
        cudaError_t e = cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, &edata, &nd);
        report("capinfo-after-kernel", e, "nd=%zu edgedata=%s", nd,
               edata == nullptr                          ? "null"
               : edata == (const cudaGraphEdgeData *)0x1 ? "untouched"
                                                         : "set");
        if (!e && edata && edata != (const cudaGraphEdgeData *)0x1 && nd)
            note("capinfo-after-kernel-edgedata0", "(%d,%d,%d)", edata[0].from_port, edata[0].to_port,
                 edata[0].type);
        // kernel launched with programmatic stream serialization
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t cfg = one_thread_config(s, at, 1);
        R("capture-launchex-prog-serialization", cudaLaunchKernelEx(&cfg, inc, dmem));
        edata = (const cudaGraphEdgeData *)0x1;
        e = cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, &edata, &nd);
        report("capinfo-after-prog-kernel", e, "nd=%zu edgedata=%s", nd,
               edata == nullptr                          ? "null"
               : edata == (const cudaGraphEdgeData *)0x1 ? "untouched"
                                                         : "set");
        if (!e && edata && edata != (const cudaGraphEdgeData *)0x1 && nd)
            note("capinfo-after-prog-kernel-edgedata0", "(%d,%d,%d)", edata[0].from_port, edata[0].to_port,
                 edata[0].type);
        // a third kernel after the programmatic one
        inc<<<1, 1, 0, s>>>(dmem);
        edata = (const cudaGraphEdgeData *)0x1;
        cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, &edata, &nd);
        cudaGraphNode_t last = nd && deps ? deps[0] : nullptr;
        // update dependencies with programmatic edge data
        cudaGraphEdgeData pd = ed(1, 0, 1);
        R("capture-update-deps-prog-data-set",
          cudaStreamUpdateCaptureDependencies(s, &last, &pd, 1, cudaStreamSetCaptureDependencies));
        edata = (const cudaGraphEdgeData *)0x1;
        e = cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, &edata, &nd);
        report("capinfo-after-update-prog", e, "nd=%zu edgedata=%s", nd,
               edata == nullptr                          ? "null"
               : edata == (const cudaGraphEdgeData *)0x1 ? "untouched"
                                                         : "set");
        if (!e && edata && edata != (const cudaGraphEdgeData *)0x1 && nd)
            note("capinfo-after-update-prog-edgedata0", "(%d,%d,%d)", edata[0].from_port, edata[0].to_port,
                 edata[0].type);
        // capinfo without edgeData_out while a dependency is programmatic
        e = cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, nullptr, &nd);
        report("capinfo-prog-dep-edgedata-out-null", e, "nd=%zu", nd);
        inc<<<1, 1, 0, s>>>(dmem);
        R("capture-kernel-after-prog-dep", cudaGetLastError());
        cudaGraph_t g = nullptr;
        R("capture-end", cudaStreamEndCapture(s, &g));
        if (g) {
            dump_edges("capture-graph-edges", g);
            cudaGraphDestroy(g);
        }
        // update deps with invalid edge data
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        inc<<<1, 1, 0, s>>>(dmem);
        cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, nullptr, &nd);
        last = nd && deps ? deps[0] : nullptr;
        cudaGraphEdgeData bad = ed(0, 1, 0);
        R("capture-update-deps-to-port1",
          cudaStreamUpdateCaptureDependencies(s, &last, &bad, 1, cudaStreamSetCaptureDependencies));
        bad = ed(5, 0, 0);
        R("capture-update-deps-from-port5",
          cudaStreamUpdateCaptureDependencies(s, &last, &bad, 1, cudaStreamAddCaptureDependencies));
        R("capture-update-deps-flags7", cudaStreamUpdateCaptureDependencies(s, &last, nullptr, 1, 7));
        // update deps adding a programmatic edge onto a memset
        cudaMemsetAsync(dmem + 4, 0, 4, s);
        cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &deps, nullptr, &nd);
        cudaGraphNode_t ms = nd && deps ? deps[0] : nullptr;
        cudaGraphEdgeData pd2 = ed(1, 0, 1);
        R("capture-update-deps-prog-from-memset",
          cudaStreamUpdateCaptureDependencies(s, &ms, &pd2, 1, cudaStreamSetCaptureDependencies));
        cudaMemsetAsync(dmem + 5, 0, 4, s);
        R("capture-memset-after-prog-from-memset", cudaGetLastError());
        g = nullptr;
        R("capture2-end", cudaStreamEndCapture(s, &g));
        if (g) {
            dump_edges("capture2-graph-edges", g);
            cudaGraphDestroy(g);
        }
        // BeginCaptureToGraph with dependency data
        cudaGraph_t tg;
        cudaGraphCreate(&tg, 0);
        cudaGraphNode_t k = add_inc_node(tg, &dmem);
        cudaGraphEdgeData pd3 = ed(1, 0, 1);
        R("capturetograph-prog-dep-begin",
          cudaStreamBeginCaptureToGraph(s, tg, &k, &pd3, 1, cudaStreamCaptureModeRelaxed));
        inc<<<1, 1, 0, s>>>(dmem);
        R("capturetograph-prog-dep-kernel", cudaGetLastError());
        R("capturetograph-prog-dep-end", cudaStreamEndCapture(s, &g));
        dump_edges("capturetograph-prog-dep-edges", tg);
        cudaGraphDestroy(tg);
    }
    report("final-device-sync", cudaDeviceSynchronize());
    return 0;
}
