// memory.cu - probes CUDA's rules for stream-ordered memory and graph memory
// nodes that graphrt must match: cudaFree of a cudaMallocAsync block,
// cudaFreeAsync of cudaMalloc memory, the free-node placements CUDA accepts,
// cudaGraphExecUpdate of executables with memory nodes, the error node of a
// refused update, pool locations, pool access, the location-based pool
// getters, cudaStreamAddCallback and cudaStreamAttachMemAsync.
// Build: nvcc -arch=sm_90 -o memory memory.cu -lcuda
#include "probe.h"

static cudaStream_t st;

static size_t probe_pool_attr(cudaMemPool_t pool, cudaMemPoolAttr a)
{
    cuuint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess)
        return (size_t)-1;
    return (size_t)v;
}

static void used(const char *name, cudaMemPool_t pool)
{
    note(name, "used=%zu reserved=%zu", probe_pool_attr(pool, cudaMemPoolAttrUsedMemCurrent),
         probe_pool_attr(pool, cudaMemPoolAttrReservedMemCurrent));
}

static cudaMemAllocNodeParams alloc_params(size_t bytes)
{
    cudaMemAllocNodeParams a;
    memset(&a, 0, sizeof a);
    a.poolProps.allocType = cudaMemAllocationTypePinned;
    a.poolProps.location.type = cudaMemLocationTypeDevice;
    a.poolProps.location.id = 0;
    a.bytesize = bytes;
    return a;
}

static cudaKernelNodeParams kparams(void **args)
{
    return one_thread_params((void *)inc, args);
}

// Index of n among g's nodes (cudaGraphGetNodes order), -1 if absent.
static int index_of(cudaGraph_t g, cudaGraphNode_t n)
{
    if (!n)
        return -1;
    size_t c = nnodes(g);
    std::vector<cudaGraphNode_t> v(c);
    cudaGraphGetNodes(g, v.data(), &c);
    for (size_t i = 0; i < c; i++)
        if (v[i] == n)
            return (int)i;
    return -2;
}

static void frees_and_mallocs()
{
    cudaMemPool_t pool;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    cuuint64_t thr = ~0ull;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
    used("pool-start", pool);
    void *p = nullptr;
    R("mallocasync-1mb", cudaMallocAsync(&p, 1 << 20, st));
    cudaStreamSynchronize(st);
    used("after-mallocasync", pool);
    report("free-of-mallocasync-block", cudaFree(p));
    used("after-free-of-mallocasync-block", pool);
    void *q = nullptr;
    R("mallocasync-again", cudaMallocAsync(&q, 1 << 20, st));
    cudaStreamSynchronize(st);
    note("mallocasync-again-same-address", "%d", q == p);
    used("after-mallocasync-again", pool);
    R("freeasync-again", cudaFreeAsync(q, st));
    cudaStreamSynchronize(st);
    used("after-freeasync", pool);
    report("free-twice-of-mallocasync-block", cudaFree(p));

    // An explicit pool.
    cudaMemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = cudaMemAllocationTypePinned;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = 0;
    cudaMemPool_t mine;
    R("pool-create", cudaMemPoolCreate(&mine, &pp));
    R("malloc-from-pool", cudaMallocFromPoolAsync(&p, 4096, mine, st));
    cudaStreamSynchronize(st);
    used("explicit-after-malloc", mine);
    R("free-of-explicit-pool-block", cudaFree(p));
    used("explicit-after-free", mine);
    // cudaFree of a block whose cudaMallocAsync is still queued behind work.
    R("mallocasync-pending", cudaMallocAsync(&p, 4096, st));
    R("free-of-pending-mallocasync", cudaFree(p));
    cudaStreamSynchronize(st);
    used("explicit-end", mine);
    cudaMemPoolDestroy(mine);

    // cudaFreeAsync of cudaMalloc memory.
    void *m = nullptr;
    cudaMalloc(&m, 1 << 20);
    size_t fb, tb, fa, ta;
    cudaMemGetInfo(&fb, &tb);
    R("freeasync-of-cudamalloc", cudaFreeAsync(m, st));
    R("freeasync-of-cudamalloc-sync", cudaStreamSynchronize(st));
    cudaMemGetInfo(&fa, &ta);
    note("freeasync-of-cudamalloc-meminfo-free-grew", "%lld", (long long)fa - (long long)fb);
    cudaPointerAttributes pa;
    report("freeasync-of-cudamalloc-then-pointer-attrs", cudaPointerGetAttributes(&pa, m), "type=%d", (int)pa.type);
    R("freeasync-of-cudamalloc-then-cudafree", cudaFree(m));
    void *h = nullptr;
    cudaMallocHost(&h, 4096);
    R("freeasync-of-mallochost", cudaFreeAsync(h, st));
    R("freeasync-of-mallochost-sync", cudaStreamSynchronize(st));
    int stack = 0;
    R("freeasync-of-stack", cudaFreeAsync(&stack, st));
    R("freeasync-of-stack-sync", cudaStreamSynchronize(st));
    R("freeasync-null", cudaFreeAsync(nullptr, st));
}

// A new graph of one allocation node (4 KiB, its parameters into *a).
static cudaGraph_t graph_allocating(cudaGraphNode_t *an, cudaMemAllocNodeParams *a)
{
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    *a = alloc_params(4096);
    cudaGraphAddMemAllocNode(an, g, nullptr, 0, a);
    return g;
}

static void free_placements()
{
    // 1: a free node not ordered after its alloc node.
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaMemAllocNodeParams a = alloc_params(4096);
        cudaGraphNode_t an, fn;
        R("unordered-alloc", cudaGraphAddMemAllocNode(&an, g, nullptr, 0, &a));
        R("unordered-free-root", cudaGraphAddMemFreeNode(&fn, g, nullptr, 0, a.dptr));
        cudaGraphExec_t e;
        R("unordered-instantiate", cudaGraphInstantiate(&e, g, 0));
        cudaGraphDestroy(g);
    }
    // 2: free node depending on an unrelated node, not the alloc.
    {
        cudaMemAllocNodeParams a;
        cudaGraphNode_t an, en, fn;
        cudaGraph_t g = graph_allocating(&an, &a);
        cudaGraphAddEmptyNode(&en, g, nullptr, 0);
        R("sibling-free-after-empty", cudaGraphAddMemFreeNode(&fn, g, &en, 1, a.dptr));
        cudaGraphDestroy(g);
    }
    // 3: two free nodes of one allocation in its graph.
    {
        cudaMemAllocNodeParams a;
        cudaGraphNode_t an, f1, f2;
        cudaGraph_t g = graph_allocating(&an, &a);
        R("double-free-first", cudaGraphAddMemFreeNode(&f1, g, &an, 1, a.dptr));
        R("double-free-second", cudaGraphAddMemFreeNode(&f2, g, &f1, 1, a.dptr));
        cudaGraphDestroy(g);
    }
    // 4: graph A allocates and frees; graph B frees A's allocation too.
    {
        cudaGraph_t ga, gb, gc;
        cudaGraphCreate(&ga, 0);
        cudaGraphCreate(&gb, 0);
        cudaGraphCreate(&gc, 0);
        cudaMemAllocNodeParams a = alloc_params(4096);
        cudaGraphNode_t an, fa, fb, fc;
        cudaGraphAddMemAllocNode(&an, ga, nullptr, 0, &a);
        cudaGraphAddMemFreeNode(&fa, ga, &an, 1, a.dptr);
        R("other-graph-frees-self-freed-alloc", cudaGraphAddMemFreeNode(&fb, gb, nullptr, 0, a.dptr));
        // 5: A allocates only; B frees; C frees it as well.
        cudaGraph_t gd;
        cudaGraphCreate(&gd, 0);
        cudaMemAllocNodeParams d = alloc_params(4096);
        cudaGraphNode_t dn;
        cudaGraphAddMemAllocNode(&dn, gd, nullptr, 0, &d);
        R("second-graph-frees-alloc-only", cudaGraphAddMemFreeNode(&fb, gb, nullptr, 0, d.dptr));
        R("third-graph-frees-same-alloc", cudaGraphAddMemFreeNode(&fc, gc, nullptr, 0, d.dptr));
        cudaGraphExec_t eb, ec, ed;
        R("second-graph-instantiate", cudaGraphInstantiate(&eb, gb, 0));
        R("third-graph-instantiate", cudaGraphInstantiate(&ec, gc, 0));
        R("alloc-only-instantiate", cudaGraphInstantiate(&ed, gd, 0));
        R("alloc-only-launch", cudaGraphLaunch(ed, st));
        R("third-graph-launch", cudaGraphLaunch(ec, st));
        R("third-then-sync", cudaStreamSynchronize(st));
        R("alloc-only-relaunch", cudaGraphLaunch(ed, st));
        R("second-graph-launch", cudaGraphLaunch(eb, st));
        R("second-then-sync", cudaStreamSynchronize(st));
        // An edge from the free to the alloc (a cycle is not possible; the
        // free of an allocation placed before the alloc).
        cudaGraph_t ge;
        cudaGraphCreate(&ge, 0);
        cudaMemAllocNodeParams x = alloc_params(4096);
        cudaGraphNode_t xn, xf;
        cudaGraphAddMemAllocNode(&xn, ge, nullptr, 0, &x);
        cudaGraphAddMemFreeNode(&xf, ge, nullptr, 0, x.dptr);
        R("edge-free-to-alloc", cudaGraphAddDependencies(ge, &xf, &xn, nullptr, 1));
        cudaGraphExec_t ee;
        R("edge-free-to-alloc-instantiate", cudaGraphInstantiate(&ee, ge, 0));
    }
}

// Builds alloc(bytes) -> kernel(on the allocation) -> free, or without the free.
static void build_mem(cudaGraph_t *g, size_t bytes, bool with_free, void **dptr, void **args)
{
    cudaGraphCreate(g, 0);
    cudaMemAllocNodeParams a = alloc_params(bytes);
    cudaGraphNode_t an, kn, fn;
    cudaGraphAddMemAllocNode(&an, *g, nullptr, 0, &a);
    *dptr = a.dptr;
    args[0] = dptr;
    cudaKernelNodeParams k = kparams(args);
    cudaGraphAddKernelNode(&kn, *g, &an, 1, &k);
    if (with_free)
        cudaGraphAddMemFreeNode(&fn, *g, &kn, 1, a.dptr);
}

static void update_mem(const char *name, cudaGraphExec_t e, cudaGraph_t g)
{
    cudaGraphExecUpdateResultInfo ri;
    memset(&ri, 0, sizeof ri);
    cudaError_t err = cudaGraphExecUpdate(e, g, &ri);
    report_(name, err, "result=%d errorNode=%d errorFromNode=%s", (int)ri.result, index_of(g, ri.errorNode),
            ri.errorFromNode ? "set" : "NULL");
}

static void updates()
{
    void *d1, *d2, *d3, *d4, *a1[1], *a2[1], *a3[1], *a4[1];
    cudaGraph_t g1, g2, g3, g4;
    build_mem(&g1, 4096, true, &d1, a1);
    build_mem(&g2, 4096, true, &d2, a2);
    build_mem(&g3, 8192, true, &d3, a3);
    build_mem(&g4, 4096, false, &d4, a4);
    note("two-graphs-same-size-same-address", "%d", d1 == d2);
    cudaGraphExec_t e;
    R("mem-instantiate", cudaGraphInstantiate(&e, g1, 0));
    R("mem-launch", cudaGraphLaunch(e, st));
    R("mem-launch-sync", cudaStreamSynchronize(st));
    update_mem("update-mem-from-itself", e, g1);
    update_mem("update-mem-same-shape-same-size", e, g2);
    R("update-mem-same-shape-launch", cudaGraphLaunch(e, st));
    R("update-mem-same-shape-launch-sync", cudaStreamSynchronize(st));
    update_mem("update-mem-other-size", e, g3);
    update_mem("update-mem-without-free", e, g4);
    cudaGraphExecDestroy(e);
    // An alloc-only executable updated from another alloc-only graph.
    void *d5, *a5[1];
    cudaGraph_t g5;
    build_mem(&g5, 4096, false, &d5, a5);
    R("alloc-only-instantiate-for-update", cudaGraphInstantiate(&e, g4, 0));
    update_mem("update-alloc-only-same-shape", e, g5);
    cudaGraphExecDestroy(e);
    // A second instantiation of a graph with memory nodes, through WithParams.
    cudaGraphExec_t e1, e2;
    cudaGraphInstantiate(&e1, g1, 0);
    cudaGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    report("second-instantiate-withparams", cudaGraphInstantiateWithParams(&e2, g1, &ip), "result=%d errNode=%s",
           (int)ip.result_out, ip.errNode_out ? "set" : "NULL");
    cudaGraphExecDestroy(e1);
}

// Instantiates old_g, whose nodes a, b and c are o[0..3), updates the
// executable from new_g (n[0..3)) and reports the result and the nodes
// it names.
static void report_abc_update(const char *name, cudaGraph_t old_g, const cudaGraphNode_t *o, cudaGraph_t new_g,
                              const cudaGraphNode_t *n)
{
    cudaGraphExec_t e;
    cudaGraphInstantiate(&e, old_g, 0);
    cudaGraphExecUpdateResultInfo ri;
    memset(&ri, 0, sizeof ri);
    cudaError_t err = cudaGraphExecUpdate(e, new_g, &ri);
    auto nm = [&](cudaGraphNode_t x) {
        return x == n[0]   ? "new-a"
               : x == n[1] ? "new-b"
               : x == n[2] ? "new-c"
               : x == o[0] ? "old-a"
               : x == o[1] ? "old-b"
               : x == o[2] ? "old-c"
               : x         ? "other"
                           : "NULL";
    };
    report_(name, err, "result=%d errorNode=%s errorFromNode=%s", (int)ri.result, nm(ri.errorNode),
            nm(ri.errorFromNode));
    cudaGraphExecDestroy(e);
}

// The error node of a refused update: child graph topology change and a
// dependency mismatch.
static void update_error_nodes()
{
    int *dm;
    cudaMalloc(&dm, 64);
    void *args[1] = {&dm};
    cudaKernelNodeParams k = kparams(args);
    // Child graph: 2 nodes in g1's child, 3 in g2's.
    cudaGraph_t g1, g2, c1, c2;
    cudaGraphCreate(&c1, 0);
    cudaGraphCreate(&c2, 0);
    cudaGraphNode_t n, m;
    cudaGraphAddKernelNode(&n, c1, nullptr, 0, &k);
    cudaGraphAddKernelNode(&m, c1, &n, 1, &k);
    cudaGraphAddKernelNode(&n, c2, nullptr, 0, &k);
    cudaGraphAddKernelNode(&m, c2, &n, 1, &k);
    cudaGraphAddKernelNode(&n, c2, &m, 1, &k);
    cudaGraphCreate(&g1, 0);
    cudaGraphCreate(&g2, 0);
    cudaGraphNode_t k1, ch1, k2, ch2;
    cudaGraphAddKernelNode(&k1, g1, nullptr, 0, &k);
    cudaGraphAddChildGraphNode(&ch1, g1, &k1, 1, c1);
    cudaGraphAddKernelNode(&k2, g2, nullptr, 0, &k);
    cudaGraphAddChildGraphNode(&ch2, g2, &k2, 1, c2);
    cudaGraphExec_t e;
    cudaGraphInstantiate(&e, g1, 0);
    {
        cudaGraphExecUpdateResultInfo ri;
        memset(&ri, 0, sizeof ri);
        cudaError_t err = cudaGraphExecUpdate(e, g2, &ri);
        report_("update-child-topology", err, "result=%d errorNode=%s errorFromNode=%s", (int)ri.result,
                ri.errorNode == ch2   ? "new-child-node"
                : ri.errorNode == ch1 ? "old-child-node"
                : ri.errorNode        ? "other"
                                      : "NULL",
                ri.errorFromNode == ch1   ? "old-child-node"
                : ri.errorFromNode == ch2 ? "new-child-node"
                : ri.errorFromNode        ? "other"
                                          : "NULL");
    }
    cudaGraphExecDestroy(e);
    report("exec-child-setparams-other-topology", [&] {
        cudaGraphExec_t e2;
        cudaGraphInstantiate(&e2, g1, 0);
        cudaError_t r = cudaGraphExecChildGraphNodeSetParams(e2, ch1, c2);
        cudaGraphExecDestroy(e2);
        return r;
    }());
    // Dependency mismatch: g3: a, b, c after a. g4: a, b, c after b.
    cudaGraph_t g3, g4;
    cudaGraphCreate(&g3, 0);
    cudaGraphCreate(&g4, 0);
    cudaGraphNode_t a3, b3, c3, a4, b4, c4;
    cudaGraphAddKernelNode(&a3, g3, nullptr, 0, &k);
    cudaGraphAddKernelNode(&b3, g3, nullptr, 0, &k);
    cudaGraphAddKernelNode(&c3, g3, &a3, 1, &k);
    cudaGraphAddKernelNode(&a4, g4, nullptr, 0, &k);
    cudaGraphAddKernelNode(&b4, g4, nullptr, 0, &k);
    cudaGraphAddKernelNode(&c4, g4, &b4, 1, &k);
    const cudaGraphNode_t old3[3] = {a3, b3, c3}, new4[3] = {a4, b4, c4};
    report_abc_update("update-dependency-mismatch", g3, old3, g4, new4);
    // Fewer dependencies: g5: c after a and b; g6: c after a.
    cudaGraph_t g5, g6;
    cudaGraphCreate(&g5, 0);
    cudaGraphCreate(&g6, 0);
    cudaGraphNode_t a5, b5, c5, a6, b6, c6, ab5[2];
    cudaGraphAddKernelNode(&a5, g5, nullptr, 0, &k);
    cudaGraphAddKernelNode(&b5, g5, nullptr, 0, &k);
    ab5[0] = a5;
    ab5[1] = b5;
    cudaGraphAddKernelNode(&c5, g5, ab5, 2, &k);
    cudaGraphAddKernelNode(&a6, g6, nullptr, 0, &k);
    cudaGraphAddKernelNode(&b6, g6, nullptr, 0, &k);
    cudaGraphAddKernelNode(&c6, g6, &a6, 1, &k);
    const cudaGraphNode_t old5[3] = {a5, b5, c5}, new6[3] = {a6, b6, c6};
    report_abc_update("update-fewer-dependencies", g5, old5, g6, new6);
}

static void pools_and_access()
{
    cudaMemPoolProps pp;
    cudaMemPool_t pool;
    struct {
        const char *name;
        cudaMemLocationType t;
        int id;
        cudaMemAllocationType at;
    } locs[] = {{"pool-create-device0", cudaMemLocationTypeDevice, 0, cudaMemAllocationTypePinned},
                {"pool-create-device99", cudaMemLocationTypeDevice, 99, cudaMemAllocationTypePinned},
                {"pool-create-device-minus1", cudaMemLocationTypeDevice, -1, cudaMemAllocationTypePinned},
                {"pool-create-type-invalid0", cudaMemLocationTypeInvalid, 0, cudaMemAllocationTypePinned},
                {"pool-create-type-77", (cudaMemLocationType)77, 0, cudaMemAllocationTypePinned},
                {"pool-create-host", cudaMemLocationTypeHost, 0, cudaMemAllocationTypePinned},
                {"pool-create-host-numa0", cudaMemLocationTypeHostNuma, 0, cudaMemAllocationTypePinned},
                {"pool-create-alloctype-invalid", cudaMemLocationTypeDevice, 0, cudaMemAllocationTypeInvalid},
                {"pool-create-alloctype-managed", cudaMemLocationTypeDevice, 0, cudaMemAllocationTypeManaged},
                {"pool-create-alloctype-77", cudaMemLocationTypeDevice, 0, (cudaMemAllocationType)77}};
    for (auto &l : locs) {
        memset(&pp, 0, sizeof pp);
        pp.allocType = l.at;
        pp.location.type = l.t;
        pp.location.id = l.id;
        pool = nullptr;
        cudaError_t e = cudaMemPoolCreate(&pool, &pp);
        report_(l.name, e);
        if (e == cudaSuccess)
            cudaMemPoolDestroy(pool);
    }
    cudaMemPoolProps z;
    memset(&z, 0, sizeof z);
    report("pool-create-zeroed-props", cudaMemPoolCreate(&pool, &z));

    // CUDA 13's location-based getters.
    cudaMemLocation loc;
    cudaMemPool_t dp = nullptr, cp = nullptr;
    cudaDeviceGetDefaultMemPool(&dp, 0);
    memset(&loc, 0, sizeof loc);
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    report("memgetdefaultmempool-device0", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypePinned),
           "same-as-device-default=%d", cp == dp);
    cp = nullptr;
    report("memgetmempool-device0", cudaMemGetMemPool(&cp, &loc, cudaMemAllocationTypePinned),
           "same-as-device-default=%d", cp == dp);
    loc.id = 99;
    R("memgetdefaultmempool-device99", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypePinned));
    R("memgetmempool-device99", cudaMemGetMemPool(&cp, &loc, cudaMemAllocationTypePinned));
    loc.id = 0;
    R("memgetdefaultmempool-managed", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypeManaged));
    R("memgetdefaultmempool-alloctype-invalid", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypeInvalid));
    loc.type = cudaMemLocationTypeHost;
    report("memgetdefaultmempool-host", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypePinned),
           "pool=%s", cp ? "set" : "NULL");
    report("memgetmempool-host", cudaMemGetMemPool(&cp, &loc, cudaMemAllocationTypePinned), "pool=%s",
           cp ? "set" : "NULL");
    loc.type = cudaMemLocationTypeHostNuma;
    R("memgetdefaultmempool-hostnuma0", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypePinned));
    loc.type = cudaMemLocationTypeInvalid;
    R("memgetdefaultmempool-type-invalid", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypePinned));
    loc.type = cudaMemLocationTypeDevice;
    R("memgetdefaultmempool-null-out", cudaMemGetDefaultMemPool(nullptr, &loc, cudaMemAllocationTypePinned));
    R("memgetdefaultmempool-null-loc", cudaMemGetDefaultMemPool(&cp, nullptr, cudaMemAllocationTypePinned));
    memset(&pp, 0, sizeof pp);
    pp.allocType = cudaMemAllocationTypePinned;
    pp.location.type = cudaMemLocationTypeDevice;
    cudaMemPool_t mine;
    cudaMemPoolCreate(&mine, &pp);
    report("memsetmempool-device0", cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, mine));
    cp = nullptr;
    report("memgetmempool-after-set", cudaMemGetMemPool(&cp, &loc, cudaMemAllocationTypePinned), "is-mine=%d",
           cp == mine);
    cudaMemPool_t devcur = nullptr;
    cudaDeviceGetMemPool(&devcur, 0);
    note("devicegetmempool-after-memsetmempool-is-mine", "%d", devcur == mine);
    cp = nullptr;
    report("memgetdefaultmempool-after-set", cudaMemGetDefaultMemPool(&cp, &loc, cudaMemAllocationTypePinned),
           "is-default=%d", cp == dp);
    R("memsetmempool-null-pool", cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, nullptr));
    loc.id = 99;
    R("memsetmempool-device99", cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, mine));
    loc.id = 0;
    loc.type = cudaMemLocationTypeHost;
    R("memsetmempool-host-device-pool", cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, mine));
    loc.type = cudaMemLocationTypeDevice;
    cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, dp);

    // Access.
    cudaMemAccessFlags fl = (cudaMemAccessFlags)77;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    report("getaccess-own-device", cudaMemPoolGetAccess(&fl, mine, &loc), "flags=%d", (int)fl);
    loc.id = 99;
    fl = (cudaMemAccessFlags)77;
    report("getaccess-device99", cudaMemPoolGetAccess(&fl, mine, &loc), "flags=%d", (int)fl);
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
    fl = (cudaMemAccessFlags)77;
    report("getaccess-host", cudaMemPoolGetAccess(&fl, mine, &loc), "flags=%d", (int)fl);
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    // cudaMemPoolGetAccess(NULL, pool, &loc) crashes CUDA 13.0 (segfault): not probed.
    R("getaccess-null-loc", cudaMemPoolGetAccess(&fl, mine, nullptr));
    cudaMemAccessDesc ad;
    memset(&ad, 0, sizeof ad);
    ad.location.type = cudaMemLocationTypeDevice;
    ad.location.id = 0;
    ad.flags = cudaMemAccessFlagsProtReadWrite;
    R("setaccess-own-rw", cudaMemPoolSetAccess(mine, &ad, 1));
    ad.flags = cudaMemAccessFlagsProtRead;
    R("setaccess-own-read", cudaMemPoolSetAccess(mine, &ad, 1));
    ad.flags = cudaMemAccessFlagsProtNone;
    R("setaccess-own-none", cudaMemPoolSetAccess(mine, &ad, 1));
    fl = (cudaMemAccessFlags)77;
    report("getaccess-own-after-sets", cudaMemPoolGetAccess(&fl, mine, &loc), "flags=%d", (int)fl);
    ad.flags = (cudaMemAccessFlags)5;
    R("setaccess-flags5", cudaMemPoolSetAccess(mine, &ad, 1));
    ad.flags = cudaMemAccessFlagsProtReadWrite;
    ad.location.id = 99;
    R("setaccess-device99", cudaMemPoolSetAccess(mine, &ad, 1));
    ad.location.type = cudaMemLocationTypeHost;
    ad.location.id = 0;
    R("setaccess-host-rw", cudaMemPoolSetAccess(mine, &ad, 1));
    R("setaccess-count0", cudaMemPoolSetAccess(mine, &ad, 0));
    R("setaccess-null-list-count0", cudaMemPoolSetAccess(mine, nullptr, 0));
    // cudaMemPoolSetAccess(pool, NULL, 1) crashes CUDA 13.0 (segfault): not probed.
    cudaMemPoolDestroy(mine);
}

static int cb_count;
static cudaError_t cb_status = (cudaError_t)-1;
static void CUDART_CB cb(cudaStream_t, cudaError_t status, void *)
{
    cb_count++;
    cb_status = status;
}

static void callbacks_and_attach()
{
    R("addcallback", cudaStreamAddCallback(st, cb, nullptr, 0));
    cudaStreamSynchronize(st);
    note("addcallback-ran", "count=%d status=%s", cb_count, en(cb_status));
    R("addcallback-flags1", cudaStreamAddCallback(st, cb, nullptr, 1));
    R("addcallback-null-fn", cudaStreamAddCallback(st, nullptr, nullptr, 0));
    R("addcallback-null-stream", cudaStreamAddCallback(0, cb, nullptr, 0));
    cudaStreamSynchronize(0);
    cudaStreamSynchronize(st);
    note("addcallback-runs", "count=%d", cb_count);
    R("capture-begin", cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    R("capture-addcallback", cudaStreamAddCallback(st, cb, nullptr, 0));
    cudaStreamCaptureStatus cs;
    report("capture-addcallback-status", cudaStreamIsCapturing(st, &cs), "status=%d", (int)cs);
    cudaGraph_t g = nullptr;
    report("capture-addcallback-end", cudaStreamEndCapture(st, &g), "graph=%s", g ? "set" : "NULL");

    int *managed = nullptr, *plain = nullptr;
    cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal);
    cudaMalloc(&plain, 4096);
    R("attach-managed-global", cudaStreamAttachMemAsync(st, managed, 0, cudaMemAttachGlobal));
    R("attach-managed-host", cudaStreamAttachMemAsync(st, managed, 0, cudaMemAttachHost));
    R("attach-managed-single", cudaStreamAttachMemAsync(st, managed, 0, cudaMemAttachSingle));
    R("attach-managed-single-null-stream", cudaStreamAttachMemAsync(0, managed, 0, cudaMemAttachSingle));
    // flags 0 crashes CUDA 13.0 (segfault): not probed.
    R("attach-managed-flags8", cudaStreamAttachMemAsync(st, managed, 0, 8));
    R("attach-managed-length-whole", cudaStreamAttachMemAsync(st, managed, 4096, cudaMemAttachGlobal));
    R("attach-managed-length-part", cudaStreamAttachMemAsync(st, managed, 100, cudaMemAttachGlobal));
    R("attach-managed-interior", cudaStreamAttachMemAsync(st, managed + 4, 0, cudaMemAttachGlobal));
    R("attach-cudamalloc", cudaStreamAttachMemAsync(st, plain, 0, cudaMemAttachGlobal));
    R("attach-null", cudaStreamAttachMemAsync(st, nullptr, 0, cudaMemAttachGlobal));
    int stack[4];
    R("attach-stack", cudaStreamAttachMemAsync(st, stack, 0, cudaMemAttachGlobal));
    R("attach-sync", cudaStreamSynchronize(st));
    R("capture2-begin", cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    R("capture-attach", cudaStreamAttachMemAsync(st, managed, 0, cudaMemAttachGlobal));
    report("capture-attach-status", cudaStreamIsCapturing(st, &cs), "status=%d", (int)cs);
    g = nullptr;
    report("capture-attach-end", cudaStreamEndCapture(st, &g), "graph=%s nodes=%zu", g ? "set" : "NULL",
           g ? nnodes(g) : 0);
}

int main()
{
    cudaSetDevice(0);
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    frees_and_mallocs();
    free_placements();
    updates();
    update_error_nodes();
    pools_and_access();
    callbacks_and_attach();
    printf("done\n");
    return 0;
}
