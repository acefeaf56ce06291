// conditional.cu - probes CUDA's conditional graph nodes (IF, IF/ELSE,
// WHILE, SWITCH): handles, what a body may hold, clone/child/instantiate
// rules, exec update, capture into a body, DOT output.
// Build: nvcc -arch=sm_90 -o conditional conditional.cu -lcuda
// Run:   ./conditional [DOT_OUTPUT_DIR]
#include "probe.h"
#include <cstdlib>
#include <string>

__global__ void inc_and_set(int *p, cudaGraphConditionalHandle h, unsigned v)
{
    atomicAdd(p, 1);
    cudaGraphSetConditional(h, v);
}
// Sets h to 1 on the first launch only (flag in device memory).
__global__ void set_once(int *flag, cudaGraphConditionalHandle h)
{
    if (*flag == 0) {
        cudaGraphSetConditional(h, 1);
        *flag = 1;
    }
}
// Loop body: count++, keep going while count < limit.
__global__ void loop_step(int *count, int limit, cudaGraphConditionalHandle h)
{
    int c = ++*count;
    cudaGraphSetConditional(h, c < limit ? 1u : 0u);
}
__global__ void set_cond(cudaGraphConditionalHandle h, unsigned v)
{
    cudaGraphSetConditional(h, v);
}
__global__ void mark(int *p, int i)
{
    p[i] += 1;
}

static int *dmem; // 64 ints of device memory
static cudaStream_t st;

static void zero()
{
    cudaMemset(dmem, 0, 64 * sizeof(int));
    cudaDeviceSynchronize();
}
static int rd(int i)
{
    int v = -999;
    cudaMemcpy(&v, dmem + i, sizeof v, cudaMemcpyDeviceToHost);
    return v;
}

// Creates *g with a new conditional handle of this default and these
// flags, which it returns (results unchecked, as the probe's other calls).
static cudaGraphConditionalHandle graph_and_handle(cudaGraph_t *g, unsigned dflt, unsigned flags)
{
    cudaGraphConditionalHandle h = 0;
    cudaGraphCreate(g, 0);
    cudaGraphConditionalHandleCreate(&h, *g, dflt, flags);
    return h;
}
// Launches ex on the probe's stream and returns what synchronizing it
// answers. Called in a statement of its own, before the rd() calls that
// report what the launch wrote: the order of a call's arguments is not
// specified.
static cudaError_t launch_and_sync(cudaGraphExec_t ex)
{
    cudaGraphLaunch(ex, st);
    return cudaStreamSynchronize(st);
}
static cudaError_t probe_add_cond(cudaGraph_t g, cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type,
                            unsigned size, cudaGraphNode_t *node, cudaGraph_t **bodies,
                            const cudaGraphNode_t *deps = nullptr, size_t ndeps = 0)
{
    NODEPARAMS(p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaError_t e = cudaGraphAddNode(node, g, deps, nullptr, ndeps, &p);
    // on failure, hand out null bodies so that later calls fail instead of crashing
    static cudaGraph_t none[1024];
    if (bodies)
        *bodies = e ? none : p.conditional.phGraph_out;
    if (e)
        printf("  (add_cond type=%d size=%u: %s)\n", (int)type, size, en(e));
    return e;
}

static cudaError_t add_kernel1(cudaGraphNode_t *n, cudaGraph_t g, void *fn, void **args,
                               const cudaGraphNode_t *deps = nullptr, size_t nd = 0)
{
    cudaKernelNodeParams kp = one_thread_params(fn, args);
    return cudaGraphAddKernelNode(n, g, deps, nd, &kp);
}

static cudaError_t add_inc_after(cudaGraphNode_t *n, cudaGraph_t g, int *p, const cudaGraphNode_t *deps = nullptr,
                           size_t nd = 0)
{
    void *args[] = {&p};
    return add_kernel1(n, g, (void *)inc, args, deps, nd);
}

// A conditional node of this type in body b, on a new handle of 'owner'
// (default 1, assigned each launch; its creation reported under 'label'
// where not null), whose own body increments dmem[1] (IF) or counts
// dmem[2] up to 3 (WHILE).
static cudaError_t add_nested(cudaGraph_t owner, cudaGraph_t b, cudaGraphConditionalNodeType type, cudaGraphNode_t *n,
                              const char *label)
{
    cudaGraphConditionalHandle h2;
    cudaError_t he = cudaGraphConditionalHandleCreate(&h2, owner, 1, cudaGraphCondAssignDefault);
    if (label)
        report(label, he);
    cudaGraph_t *b2;
    cudaError_t e = probe_add_cond(b, h2, type, 1, n, &b2);
    if (e)
        return e;
    cudaGraphNode_t x;
    if (type == cudaGraphCondTypeWhile) {
        int *cnt = dmem + 2;
        int lim = 3;
        void *args[] = {&cnt, &lim, &h2};
        add_kernel1(&x, b2[0], (void *)loop_step, args);
    } else {
        add_inc_after(&x, b2[0], dmem + 1);
    }
    return e;
}
static void noop_host(void *)
{
}

static cudaError_t inst(const char *name, cudaGraphExec_t *ex, cudaGraph_t g)
{
    cudaGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    cudaError_t e = cudaGraphInstantiateWithParams(ex, g, &ip);
    report(name, e, "result_out=%d errNode=%s", (int)ip.result_out,
           ip.errNode_out ? ntype(ip.errNode_out) : "null");
    return e;
}

// Builds an IF node whose body holds one node of the given kind; reports the
// add code and the instantiate code.
static void body_kind(const char *kind)
{
    std::string base = std::string("body-") + kind;
    cudaGraph_t g;
    cudaGraphConditionalHandle h = graph_and_handle(&g, 1, cudaGraphCondAssignDefault);
    cudaGraphNode_t cn;
    cudaGraph_t *bodies;
    if (probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &bodies)) {
        note(base.c_str(), "add_cond failed");
        return;
    }
    cudaGraph_t b = bodies[0];
    cudaGraphNode_t n = nullptr, n2 = nullptr;
    cudaError_t e = cudaSuccess;
    static char host_buf[256];
    static char *pinned;
    if (!pinned)
        cudaMallocHost(&pinned, 256);
    cudaEvent_t ev;
    cudaEventCreate(&ev);
    std::string k = kind;
    if (k == "kernel") {
        e = add_inc_after(&n, b, dmem);
    } else if (k == "memcpy-d2d") {
        cudaMemcpy3DParms cp;
        memset(&cp, 0, sizeof cp);
        cp.srcPtr = make_cudaPitchedPtr(dmem + 8, 16, 16, 1);
        cp.dstPtr = make_cudaPitchedPtr(dmem + 16, 16, 16, 1);
        cp.extent = make_cudaExtent(16, 1, 1);
        cp.kind = cudaMemcpyDeviceToDevice;
        e = cudaGraphAddMemcpyNode(&n, b, nullptr, 0, &cp);
    } else if (k == "memcpy1d-d2d") {
        e = cudaGraphAddMemcpyNode1D(&n, b, nullptr, 0, dmem + 16, dmem + 8, 16, cudaMemcpyDeviceToDevice);
    } else if (k == "memcpy-pageable-h2d") {
        e = cudaGraphAddMemcpyNode1D(&n, b, nullptr, 0, dmem + 16, host_buf, 16, cudaMemcpyHostToDevice);
    } else if (k == "memcpy-pinned-h2d") {
        e = cudaGraphAddMemcpyNode1D(&n, b, nullptr, 0, dmem + 16, pinned, 16, cudaMemcpyHostToDevice);
    } else if (k == "memcpy-d2pinned") {
        e = cudaGraphAddMemcpyNode1D(&n, b, nullptr, 0, pinned, dmem, 16, cudaMemcpyDeviceToHost);
    } else if (k == "memset") {
        cudaMemsetParams mp = memset4_params(dmem + 32, 7, 4, 1, 0);
        e = cudaGraphAddMemsetNode(&n, b, nullptr, 0, &mp);
    } else if (k == "memset-2d") {
        cudaMemsetParams mp = memset4_params(dmem + 32, 7, 2, 2, 16);
        e = cudaGraphAddMemsetNode(&n, b, nullptr, 0, &mp);
    } else if (k == "host") {
        cudaHostNodeParams hp = {noop_host, nullptr};
        e = cudaGraphAddHostNode(&n, b, nullptr, 0, &hp);
    } else if (k == "empty") {
        e = cudaGraphAddEmptyNode(&n, b, nullptr, 0);
    } else if (k == "child-kernel") {
        cudaGraph_t c;
        cudaGraphCreate(&c, 0);
        cudaGraphNode_t x;
        add_inc_after(&x, c, dmem);
        e = cudaGraphAddChildGraphNode(&n, b, nullptr, 0, c);
    } else if (k == "child-host") {
        cudaGraph_t c;
        cudaGraphCreate(&c, 0);
        cudaGraphNode_t x;
        cudaHostNodeParams hp = {noop_host, nullptr};
        cudaGraphAddHostNode(&x, c, nullptr, 0, &hp);
        e = cudaGraphAddChildGraphNode(&n, b, nullptr, 0, c);
    } else if (k == "child-empty") {
        cudaGraph_t c;
        cudaGraphCreate(&c, 0);
        cudaGraphNode_t x;
        cudaGraphAddEmptyNode(&x, c, nullptr, 0);
        e = cudaGraphAddChildGraphNode(&n, b, nullptr, 0, c);
    } else if (k == "event-record") {
        e = cudaGraphAddEventRecordNode(&n, b, nullptr, 0, ev);
    } else if (k == "event-wait") {
        e = cudaGraphAddEventWaitNode(&n, b, nullptr, 0, ev);
    } else if (k == "memalloc+free") {
        cudaMemAllocNodeParams ap;
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = cudaMemAllocationTypePinned;
        ap.poolProps.location.type = cudaMemLocationTypeDevice;
        ap.poolProps.location.id = 0;
        ap.bytesize = 1024;
        e = cudaGraphAddMemAllocNode(&n, b, nullptr, 0, &ap);
        report((base + "-alloc-add").c_str(), e);
        if (!e) {
            e = cudaGraphAddMemFreeNode(&n2, b, &n, 1, ap.dptr);
            report((base + "-free-add").c_str(), e);
        }
    } else if (k == "memfree-only") {
        // free of an allocation made by an alloc node outside the body
        cudaMemAllocNodeParams ap;
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = cudaMemAllocationTypePinned;
        ap.poolProps.location.type = cudaMemLocationTypeDevice;
        ap.poolProps.location.id = 0;
        ap.bytesize = 1024;
        cudaGraphNode_t an;
        cudaError_t ea = cudaGraphAddMemAllocNode(&an, g, nullptr, 0, &ap);
        if (!ea)
            cudaGraphAddDependencies(g, &an, &cn, nullptr, 1);
        e = cudaGraphAddMemFreeNode(&n, b, nullptr, 0, ap.dptr);
    } else if (k == "nested-if-handle-of-body") {
        e = add_nested(b, b, cudaGraphCondTypeIf, &n, (base + "-handle").c_str());
    } else if (k == "nested-if-handle-of-parent") {
        e = add_nested(g, b, cudaGraphCondTypeIf, &n, nullptr);
    } else if (k == "nested-while-handle-of-body") {
        e = add_nested(b, b, cudaGraphCondTypeWhile, &n, nullptr);
    } else if (k == "empty-body") {
        e = cudaSuccess; // nothing added
    }
    if (k != "memalloc+free")
        report((base + "-add").c_str(), e);
    cudaGraphExec_t ex = nullptr;
    if (!e || k == "memalloc+free") {
        zero();
        if (!inst((base + "-instantiate").c_str(), &ex, g)) {
            report((base + "-launch").c_str(), cudaGraphLaunch(ex, st));
            cudaError_t s = cudaStreamSynchronize(st);
            report((base + "-sync").c_str(), s, "d0=%d d1=%d d2=%d d16=%d d32=%d", rd(0), rd(1), rd(2),
                   rd(16), rd(32));
            cudaGraphExecDestroy(ex);
        }
    }
    cudaGraphDestroy(g);
    cudaEventDestroy(ev);
}

int main(int argc, char **argv)
{
    const char *outdir = argc > 1 ? argv[1] : ".";
    cudaSetDevice(0);
    probe_start(&st, &dmem);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    note("versions", "driver=%d runtime=%d", drv, rt);

    // ---- handle creation
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphConditionalHandle h = 0;
        R("handle-flags0", cudaGraphConditionalHandleCreate(&h, g, 0, 0));
        R("handle-flags-assign-default",
          cudaGraphConditionalHandleCreate(&h, g, 5, cudaGraphCondAssignDefault));
        R("handle-flags2", cudaGraphConditionalHandleCreate(&h, g, 0, 2));
        R("handle-flags-0xff", cudaGraphConditionalHandleCreate(&h, g, 0, 0xff));
        R("handle-null-graph", cudaGraphConditionalHandleCreate(&h, nullptr, 0, 0));
        R("handle-null-out", cudaGraphConditionalHandleCreate(nullptr, g, 0, 0));
        R("handle-default-big",
          cudaGraphConditionalHandleCreate(&h, g, 0xffffffffu, cudaGraphCondAssignDefault));
        cudaGraphDestroy(g);
    }
    // ---- node sizes and types
    {
        struct {
            const char *name;
            cudaGraphConditionalNodeType t;
            unsigned size;
        } cs[] = {{"add-if-size0", cudaGraphCondTypeIf, 0},
                  {"add-if-size1", cudaGraphCondTypeIf, 1},
                  {"add-if-size2", cudaGraphCondTypeIf, 2},
                  {"add-if-size3", cudaGraphCondTypeIf, 3},
                  {"add-while-size0", cudaGraphCondTypeWhile, 0},
                  {"add-while-size1", cudaGraphCondTypeWhile, 1},
                  {"add-while-size2", cudaGraphCondTypeWhile, 2},
                  {"add-switch-size0", cudaGraphCondTypeSwitch, 0},
                  {"add-switch-size1", cudaGraphCondTypeSwitch, 1},
                  {"add-switch-size5", cudaGraphCondTypeSwitch, 5},
                  {"add-switch-size1000", cudaGraphCondTypeSwitch, 1000},
                  {"add-type-7", (cudaGraphConditionalNodeType)7, 1}};
        for (auto &c : cs) {
            cudaGraph_t g;
            cudaGraphConditionalHandle h = graph_and_handle(&g, 0, 0);
            cudaGraphNode_t n;
            cudaGraph_t *b = nullptr;
            cudaError_t e = probe_add_cond(g, h, c.t, c.size, &n, &b);
            report(c.name, e, "nodes=%zu type=%s bodies0=%s", nnodes(g), e ? "-" : ntype(n),
                   e ? "-" : (b && b[0] ? "set" : "null"));
            if (!e && c.size >= 2)
                note(c.name, "body0!=body1=%d body0-nodes=%zu", b[0] != b[1], nnodes(b[0]));
            cudaGraphDestroy(g);
        }
        // same handle used by two conditional nodes
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 0, 0);
        cudaGraphNode_t n1, n2;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &n1, nullptr);
        R("add-second-node-same-handle", probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &n2, nullptr));
        cudaGraphExec_t ex;
        inst("instantiate-two-nodes-same-handle", &ex, g);
        // a handle of another graph
        cudaGraph_t g2;
        cudaGraphCreate(&g2, 0);
        cudaGraphConditionalHandle h2;
        cudaGraphConditionalHandleCreate(&h2, g2, 0, 0);
        R("add-handle-of-other-graph", probe_add_cond(g, h2, cudaGraphCondTypeIf, 1, &n2, nullptr));
        R("add-handle-zero", probe_add_cond(g, 0, cudaGraphCondTypeIf, 1, &n2, nullptr));
        R("add-handle-garbage", probe_add_cond(g, 0xdeadbeef12345ull, cudaGraphCondTypeIf, 1, &n2, nullptr));
        cudaGraphDestroy(g);
        cudaGraphDestroy(g2);
    }
    // ---- conditional handle unused at instantiate
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 0, 0);
        cudaGraphNode_t n;
        cudaGraphAddEmptyNode(&n, g, nullptr, 0);
        cudaGraphExec_t ex = nullptr;
        inst("instantiate-handle-unused", &ex, g);
        if (ex)
            cudaGraphExecDestroy(ex);
        cudaGraphDestroy(g);
    }
    // ---- default value and cudaGraphCondAssignDefault across launches
    for (int flags = 0; flags <= 1; flags++) {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 1, flags);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        int *p = dmem;
        unsigned zero_v = 0;
        void *args[] = {&p, &h, &zero_v};
        add_kernel1(&x, b[0], (void *)inc_and_set, args);
        zero();
        cudaGraphExec_t ex;
        if (!inst(flags ? "default1-assign-instantiate" : "default1-noassign-instantiate", &ex, g)) {
            int c[3];
            for (int i = 0; i < 3; i++) {
                launch_and_sync(ex);
                c[i] = rd(0);
            }
            note(flags ? "default1-assign-body-sets-0-counts-after-3-launches"
                       : "default1-noassign-body-sets-0-counts-after-3-launches",
                 "%d %d %d", c[0], c[1], c[2]);
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    {
        // flags 0, default 0: the first launch sets 1 before the IF; later
        // launches set nothing: does the value persist across launches?
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 0, 0);
        cudaGraphNode_t k, cn, x;
        int *flag = dmem + 10;
        void *a1[] = {&flag, &h};
        add_kernel1(&k, g, (void *)set_once, a1);
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b, &k, 1);
        add_inc_after(&x, b[0], dmem);
        zero();
        cudaGraphExec_t ex;
        if (!inst("persist-noassign-instantiate", &ex, g)) {
            int c[3];
            for (int i = 0; i < 3; i++) {
                launch_and_sync(ex);
                c[i] = rd(0);
            }
            note("persist-noassign-set-on-first-launch-only-counts", "%d %d %d", c[0], c[1], c[2]);
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    {
        // flags 0, default 5 (non-zero) without the assign flag: does the body run at all?
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 5, 0);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        add_inc_after(&x, b[0], dmem);
        zero();
        cudaGraphExec_t ex;
        if (!inst("default5-noassign-instantiate", &ex, g)) {
            cudaError_t r = launch_and_sync(ex);
            report("default5-noassign-launch", r, "body-ran=%d", rd(0));
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    // ---- WHILE loop counted by a kernel
    for (int dflt = 0; dflt <= 1; dflt++) {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, dflt, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeWhile, 1, &cn, &b);
        int *cnt = dmem;
        int lim = 5;
        void *args[] = {&cnt, &lim, &h};
        add_kernel1(&x, b[0], (void *)loop_step, args);
        zero();
        cudaGraphExec_t ex;
        if (!inst("while-instantiate", &ex, g)) {
            cudaError_t s = launch_and_sync(ex);
            int a = rd(0);
            launch_and_sync(ex);
            report(dflt ? "while-default1-limit5-iterations" : "while-default0-limit5-iterations", s,
                   "after-launch1=%d after-launch2=%d", a, rd(0));
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    // ---- IF / ELSE choosing
    for (unsigned v = 0; v <= 2; v++) {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, v, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 2, &cn, &b);
        int *p = dmem;
        int i0 = 0, i1 = 1;
        void *a0[] = {&p, &i0};
        void *a1[] = {&p, &i1};
        add_kernel1(&x, b[0], (void *)mark, a0);
        add_kernel1(&x, b[1], (void *)mark, a1);
        zero();
        cudaGraphExec_t ex;
        char nm[64];
        snprintf(nm, sizeof nm, "ifelse-value%u", v);
        if (!inst(nm, &ex, g)) {
            cudaError_t r = launch_and_sync(ex);
            report(nm, r, "then-ran=%d else-ran=%d", rd(0), rd(1));
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    // IF/ELSE with an empty else body; also set by a kernel instead of a default
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 0, 0);
        cudaGraphNode_t k, cn, x;
        unsigned v = 7;
        void *ak[] = {&h, &v};
        add_kernel1(&k, g, (void *)set_cond, ak);
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 2, &cn, &b, &k, 1);
        int *p = dmem;
        int i0 = 0;
        void *a0[] = {&p, &i0};
        add_kernel1(&x, b[0], (void *)mark, a0);
        zero();
        cudaGraphExec_t ex;
        if (!inst("ifelse-empty-else-kernel-sets7", &ex, g)) {
            cudaError_t r = launch_and_sync(ex);
            report("ifelse-empty-else-kernel-sets7", r, "then-ran=%d", rd(0));
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    // ---- SWITCH choosing, value out of range
    for (unsigned v : {0u, 1u, 2u, 3u, 100u}) {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, v, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeSwitch, 3, &cn, &b);
        int *p = dmem;
        int idx[3] = {0, 1, 2};
        for (int i = 0; i < 3; i++) {
            void *a[] = {&p, &idx[i]};
            add_kernel1(&x, b[i], (void *)mark, a);
        }
        zero();
        cudaGraphExec_t ex;
        char nm[64];
        snprintf(nm, sizeof nm, "switch3-value%u", v);
        if (!inst(nm, &ex, g)) {
            cudaError_t r = launch_and_sync(ex);
            report(nm, r, "ran=[%d %d %d]", rd(0), rd(1), rd(2));
            cudaGraphExecDestroy(ex);
        }
        cudaGraphDestroy(g);
    }
    // ---- what a body may hold
    const char *kinds[] = {"kernel",
                           "memcpy-d2d",
                           "memcpy1d-d2d",
                           "memcpy-pageable-h2d",
                           "memcpy-pinned-h2d",
                           "memcpy-d2pinned",
                           "memset",
                           "memset-2d",
                           "host",
                           "empty",
                           "child-kernel",
                           "child-host",
                           "child-empty",
                           "event-record",
                           "event-wait",
                           "memalloc+free",
                           "memfree-only",
                           "nested-if-handle-of-body",
                           "nested-if-handle-of-parent",
                           "nested-while-handle-of-body",
                           "empty-body"};
    for (const char *k : kinds)
        body_kind(k);

    // ---- edges between a body node and an outer node; empty-node in body with edge
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 1, cudaGraphCondAssignDefault);
        cudaGraphNode_t outer, cn, x, y;
        cudaGraphAddEmptyNode(&outer, g, nullptr, 0);
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        add_inc_after(&x, b[0], dmem);
        R("edge-body-to-outer-in-body", cudaGraphAddDependencies(b[0], &x, &outer, nullptr, 1));
        R("edge-body-to-outer-in-parent", cudaGraphAddDependencies(g, &x, &outer, nullptr, 1));
        R("edge-outer-to-body-in-body", cudaGraphAddDependencies(b[0], &outer, &x, nullptr, 1));
        R("add-body-node-dep-on-outer", add_inc_after(&y, b[0], dmem, &outer, 1));
        R("edge-cond-to-outer", cudaGraphAddDependencies(g, &cn, &outer, nullptr, 1));
        // GetNodes of the parent: bodies not counted
        note("parent-nodes", "%zu", nnodes(g));
        cudaGraphNodeType t;
        report("nodegettype-conditional", cudaGraphNodeGetType(cn, &t), "type=%d", (int)t);
        // DestroyNode of a body node
        report("destroynode-body-node", cudaGraphDestroyNode(x), "body-nodes-after=%zu", nnodes(b[0]));
        // DestroyNode of the conditional node itself
        report("destroynode-conditional", cudaGraphDestroyNode(cn), "parent-nodes-after=%zu", nnodes(g));
        cudaGraphDestroy(g);
    }
    // ---- clone, child graph, instantiate twice
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 1, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        add_inc_after(&x, b[0], dmem);
        cudaGraph_t cl = nullptr;
        cudaError_t e = cudaGraphClone(&cl, g);
        report("clone-graph-with-conditional", e, "clone-nodes=%zu", e ? 0 : nnodes(cl));
        if (!e) {
            cudaGraphNode_t cc = nullptr;
            report("clone-findinclone", cudaGraphNodeFindInClone(&cc, cn, cl), "type=%s",
                   cc ? ntype(cc) : "-");
            cudaGraphExec_t ex;
            if (!inst("clone-instantiate", &ex, cl)) {
                zero();
                cudaError_t r = launch_and_sync(ex);
                report("clone-launch", r, "body-ran=%d", rd(0));
                cudaGraphExecDestroy(ex);
            }
            cudaGraphDestroy(cl);
        }
        // body graph clone
        cudaGraph_t bc = nullptr;
        e = cudaGraphClone(&bc, b[0]);
        report("clone-body-graph", e, "nodes=%zu", e ? 0 : nnodes(bc));
        if (!e)
            cudaGraphDestroy(bc);
        // child graph node of a graph with a conditional node
        cudaGraph_t p;
        cudaGraphCreate(&p, 0);
        cudaGraphNode_t ch;
        R("child-graph-of-conditional-graph-clone", cudaGraphAddChildGraphNode(&ch, p, nullptr, 0, g));
        NODEPARAMS(np);
        np.type = cudaGraphNodeTypeGraph;
        np.graph.graph = g;
        np.graph.ownership = cudaGraphChildGraphOwnershipClone;
        R("child-graph-of-conditional-addnode-clone", cudaGraphAddNode(&ch, p, nullptr, nullptr, 0, &np));
        // Move ownership: a separate graph, since a move consumes it
        cudaGraph_t g3;
        cudaGraphCreate(&g3, 0);
        cudaGraphConditionalHandle h3;
        cudaGraphConditionalHandleCreate(&h3, g3, 1, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn3;
        cudaGraph_t *b3;
        probe_add_cond(g3, h3, cudaGraphCondTypeIf, 1, &cn3, &b3);
        add_inc_after(&x, b3[0], dmem);
        np.graph.graph = g3;
        np.graph.ownership = cudaGraphChildGraphOwnershipMove;
        cudaError_t em = cudaGraphAddNode(&ch, p, nullptr, nullptr, 0, &np);
        report("child-graph-of-conditional-addnode-move", em, "parent-nodes=%zu", nnodes(p));
        if (!em) {
            cudaGraphExec_t ex;
            if (!inst("child-graph-of-conditional-move-instantiate", &ex, p)) {
                zero();
                cudaError_t r = launch_and_sync(ex);
                report("child-graph-of-conditional-move-launch", r, "body-ran=%d",
                       rd(0));
                cudaGraphExecDestroy(ex);
            }
        } else {
            cudaGraphDestroy(g3);
        }
        cudaGraphDestroy(p);
        // instantiate twice
        cudaGraphExec_t e1 = nullptr, e2 = nullptr, e3 = nullptr;
        inst("instantiate-first", &e1, g);
        inst("instantiate-second-while-first-lives", &e2, g);
        R("instantiate-second-plain-api", cudaGraphInstantiate(&e3, g, 0));
        if (e2)
            cudaGraphExecDestroy(e2);
        if (e3)
            cudaGraphExecDestroy(e3);
        if (e1)
            cudaGraphExecDestroy(e1);
        e2 = nullptr;
        inst("instantiate-again-after-first-destroyed", &e2, g);
        // graph modified while exec lives, then add a node to body
        if (e2) {
            cudaGraphNode_t y;
            R("add-body-node-while-exec-lives", add_inc_after(&y, b[0], dmem));
            cudaGraphExecDestroy(e2);
        }
        cudaGraphDestroy(g);
    }
    // ---- exec update
    {
        auto build = [](cudaGraph_t *g, cudaGraphConditionalNodeType t, unsigned size, int *target, int extra,
                        unsigned dflt, cudaGraph_t **bodies_out) {
            cudaGraphCreate(g, 0);
            cudaGraphConditionalHandle h;
            cudaGraphConditionalHandleCreate(&h, *g, dflt, cudaGraphCondAssignDefault);
            cudaGraphNode_t cn, x;
            cudaGraph_t *b;
            probe_add_cond(*g, h, t, size, &cn, &b);
            add_inc_after(&x, b[0], target);
            if (extra)
                add_inc_after(&x, b[0], target);
            if (bodies_out)
                *bodies_out = b;
        };
        cudaGraph_t g0;
        build(&g0, cudaGraphCondTypeIf, 1, dmem, 0, 1, nullptr);
        cudaGraphExec_t ex;
        if (!inst("update-base-instantiate", &ex, g0)) {
            struct {
                const char *name;
                cudaGraphConditionalNodeType t;
                unsigned size;
                int *target;
                int extra;
                unsigned dflt;
            } us[] = {{"update-same-shape-other-kernel-arg", cudaGraphCondTypeIf, 1, dmem + 5, 0, 1},
                      {"update-body-extra-node", cudaGraphCondTypeIf, 1, dmem, 1, 1},
                      {"update-if-to-while", cudaGraphCondTypeWhile, 1, dmem, 0, 1},
                      {"update-size1-to-size2", cudaGraphCondTypeIf, 2, dmem, 0, 1},
                      {"update-default-value-1-to-0", cudaGraphCondTypeIf, 1, dmem, 0, 0}};
            for (auto &u : us) {
                cudaGraph_t g1;
                build(&g1, u.t, u.size, u.target, u.extra, u.dflt, nullptr);
                cudaGraphExecUpdateResultInfo ri;
                memset(&ri, 0, sizeof ri);
                cudaError_t e = cudaGraphExecUpdate(ex, g1, &ri);
                zero();
                cudaError_t s = launch_and_sync(ex);
                report(u.name, e, "result=%d errorNode=%s launch=%s d0=%d d5=%d", (int)ri.result,
                       ri.errorNode ? ntype(ri.errorNode) : "null", en(s), rd(0), rd(5));
                cudaGraphDestroy(g1);
            }
            // same graph back, after a successful update: does g0 count as instantiated twice?
            cudaGraphExecUpdateResultInfo ri;
            memset(&ri, 0, sizeof ri);
            report("update-with-own-graph", cudaGraphExecUpdate(ex, g0, &ri), "result=%d", (int)ri.result);
            cudaGraphExecDestroy(ex);
        }
        // update a conditional-free exec with a graph holding a conditional node
        cudaGraph_t plain;
        cudaGraphCreate(&plain, 0);
        cudaGraphNode_t pn;
        cudaGraphAddEmptyNode(&pn, plain, nullptr, 0);
        cudaGraphExec_t pex;
        if (!cudaGraphInstantiate(&pex, plain, 0)) {
            cudaGraphExecUpdateResultInfo ri;
            memset(&ri, 0, sizeof ri);
            report("update-empty-to-conditional", cudaGraphExecUpdate(pex, g0, &ri), "result=%d",
                   (int)ri.result);
            cudaGraphExecDestroy(pex);
        }
        cudaGraphDestroy(plain);
        cudaGraphDestroy(g0);
    }
    // ---- capture into a body
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 1, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        cudaStream_t cs;
        cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
        R("capture-to-body-begin",
          cudaStreamBeginCaptureToGraph(cs, b[0], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
        inc<<<1, 1, 0, cs>>>(dmem);
        R("capture-to-body-kernel", cudaGetLastError());
        R("capture-to-body-memset", cudaMemsetAsync(dmem + 3, 0, 4, cs));
        cudaGraph_t out = nullptr;
        report("capture-to-body-end", cudaStreamEndCapture(cs, &out),
               "out==body=%d out-null=%d body-nodes=%zu", out == b[0], out == nullptr, nnodes(b[0]));
        list_types("capture-to-body-types", b[0]);
        // host function captured into a body
        R("capture-to-body2-begin",
          cudaStreamBeginCaptureToGraph(cs, b[0], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
        R("capture-to-body-hostfn", cudaLaunchHostFunc(cs, noop_host, nullptr));
        report("capture-to-body2-end", cudaStreamEndCapture(cs, &out), "body-nodes=%zu", nnodes(b[0]));
        // event record captured into a body
        cudaEvent_t ev;
        cudaEventCreate(&ev);
        R("capture-to-body3-begin",
          cudaStreamBeginCaptureToGraph(cs, b[0], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
        R("capture-to-body-eventrecord-ext", cudaEventRecordWithFlags(ev, cs, cudaEventRecordExternal));
        report("capture-to-body3-end", cudaStreamEndCapture(cs, &out), "body-nodes=%zu", nnodes(b[0]));
        // cudaMallocAsync captured into a body
        R("capture-to-body4-begin",
          cudaStreamBeginCaptureToGraph(cs, b[0], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
        void *ap = nullptr;
        R("capture-to-body-mallocasync", cudaMallocAsync(&ap, 256, cs));
        if (ap)
            R("capture-to-body-freeasync", cudaFreeAsync(ap, cs));
        report("capture-to-body4-end", cudaStreamEndCapture(cs, &out), "body-nodes=%zu", nnodes(b[0]));
        list_types("capture-to-body-final-types", b[0]);
        cudaGraphExec_t ex;
        if (!inst("capture-to-body-instantiate", &ex, g)) {
            zero();
            cudaError_t r = launch_and_sync(ex);
            report("capture-to-body-launch", r, "d0=%d", rd(0));
            cudaGraphExecDestroy(ex);
        }
        // conditional node captured: BeginCapture, a kernel, then add a conditional node via
        // cudaStreamGetCaptureInfo + cudaGraphAddNode + update deps
        cudaStream_t s2;
        cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
        R("capture-cond-begin", cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed));
        cudaStreamCaptureStatus cst;
        cudaGraph_t cg = nullptr;
        const cudaGraphNode_t *deps = nullptr;
        size_t nd = 0;
        R("capture-cond-info", cudaStreamGetCaptureInfo(s2, &cst, nullptr, &cg, &deps, nullptr, &nd));
        cudaGraphConditionalHandle ch = 0;
        R("capture-cond-handle", cudaGraphConditionalHandleCreate(&ch, cg, 1, cudaGraphCondAssignDefault));
        cudaGraphNode_t ccn;
        cudaGraph_t *cb = nullptr;
        cudaError_t e = probe_add_cond(cg, ch, cudaGraphCondTypeIf, 1, &ccn, &cb, deps, nd);
        R("capture-cond-addnode", e);
        if (!e) {
            cudaGraphNode_t x;
            add_inc_after(&x, cb[0], dmem);
            R("capture-cond-update-deps",
              cudaStreamUpdateCaptureDependencies(s2, &ccn, nullptr, 1, cudaStreamSetCaptureDependencies));
        }
        inc<<<1, 1, 0, s2>>>(dmem + 1);
        cudaGraph_t capg = nullptr;
        R("capture-cond-end", cudaStreamEndCapture(s2, &capg));
        if (capg) {
            list_types("capture-cond-graph-types", capg);
            if (!inst("capture-cond-instantiate", &ex, capg)) {
                zero();
                cudaError_t r = launch_and_sync(ex);
                report("capture-cond-launch", r, "d0=%d d1=%d", rd(0), rd(1));
                cudaGraphExecDestroy(ex);
            }
            cudaGraphDestroy(capg);
        }
        cudaGraphDestroy(g);
    }
    // ---- exec-level setters on nodes in a body, enabling/disabling the conditional node
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 1, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        add_inc_after(&x, b[0], dmem);
        cudaGraphExec_t ex;
        if (!inst("setters-instantiate", &ex, g)) {
            int *p5 = dmem + 5;
            cudaKernelNodeParams kp;
            memset(&kp, 0, sizeof kp);
            void *args[] = {&p5};
            kp.func = (void *)inc;
            kp.gridDim = dim3(1);
            kp.blockDim = dim3(1);
            kp.kernelParams = args;
            R("exec-kernel-setparams-body-node", cudaGraphExecKernelNodeSetParams(ex, x, &kp));
            zero();
            cudaError_t r = launch_and_sync(ex);
            report("exec-kernel-setparams-body-node-launch", r, "d0=%d d5=%d", rd(0),
                   rd(5));
            R("exec-setenabled-conditional-0", cudaGraphNodeSetEnabled(ex, cn, 0));
            R("exec-setenabled-body-node-0", cudaGraphNodeSetEnabled(ex, x, 0));
            unsigned en_ = 9;
            report("exec-getenabled-body-node", cudaGraphNodeGetEnabled(ex, x, &en_), "enabled=%u", en_);
            NODEPARAMS(np);
            np.type = cudaGraphNodeTypeConditional;
            np.conditional.handle = h;
            np.conditional.type = cudaGraphCondTypeIf;
            np.conditional.size = 1;
            R("exec-nodesetparams-conditional", cudaGraphExecNodeSetParams(ex, cn, &np));
            R("nodesetparams-conditional", cudaGraphNodeSetParams(cn, &np));
            cudaGraphExecDestroy(ex);
        }
        // DOT output
        cudaGraphNode_t y;
        cudaGraphConditionalHandle hw;
        cudaGraphConditionalHandleCreate(&hw, g, 0, 0);
        cudaGraph_t *bw;
        probe_add_cond(g, hw, cudaGraphCondTypeWhile, 1, &y, &bw, &cn, 1);
        cudaGraphNode_t z;
        int *cnt = dmem;
        int lim = 3;
        void *a[] = {&cnt, &lim, &hw};
        add_kernel1(&z, bw[0], (void *)loop_step, a);
        std::string path = std::string(outdir) + "/conditional-verbose.dot";
        R("dot-verbose", cudaGraphDebugDotPrint(g, path.c_str(), cudaGraphDebugDotFlagsVerbose));
        path = std::string(outdir) + "/conditional-plain.dot";
        R("dot-plain", cudaGraphDebugDotPrint(g, path.c_str(), 0));
        path = std::string(outdir) + "/conditional-condparams.dot";
        R("dot-condparams",
          cudaGraphDebugDotPrint(g, path.c_str(), cudaGraphDebugDotFlagsConditionalNodeParams));
        cudaGraphDestroy(g);
    }
    // ---- follow-ups: handle of a body used in the parent, upload, device launch,
    // a body graph instantiated or embedded on its own, update of the assign flag
    {
        cudaGraph_t g;
        cudaGraphConditionalHandle h = graph_and_handle(&g, 1, cudaGraphCondAssignDefault);
        cudaGraphNode_t cn, x;
        cudaGraph_t *b;
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        add_inc_after(&x, b[0], dmem);
        cudaGraph_t body = b[0];
        cudaGraphConditionalHandle hb;
        R("followup-handle-on-body",
          cudaGraphConditionalHandleCreate(&hb, body, 1, cudaGraphCondAssignDefault));
        cudaGraphNode_t pn;
        cudaError_t e = probe_add_cond(g, hb, cudaGraphCondTypeIf, 1, &pn, nullptr);
        R("followup-body-handle-used-in-parent", e);
        if (!e)
            cudaGraphDestroyNode(pn);
        // the body's unused handle: does the parent's instantiate complain?
        cudaGraphExec_t ex = nullptr;
        inst("followup-instantiate-with-unused-body-handle", &ex, g);
        if (ex)
            cudaGraphExecDestroy(ex);
        cudaGraphDestroy(g);

        cudaGraphCreate(&g, 0);
        cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault);
        probe_add_cond(g, h, cudaGraphCondTypeIf, 1, &cn, &b);
        add_inc_after(&x, b[0], dmem);
        body = b[0];
        cudaGraphExec_t bex = nullptr;
        inst("followup-instantiate-body-graph-itself", &bex, body);
        if (bex)
            cudaGraphExecDestroy(bex);
        cudaGraph_t p;
        cudaGraphCreate(&p, 0);
        cudaGraphNode_t ch;
        R("followup-body-graph-as-child-graph", cudaGraphAddChildGraphNode(&ch, p, nullptr, 0, body));
        cudaGraphDestroy(p);
        ex = nullptr;
        if (!inst("followup-upload-instantiate", &ex, g)) {
            R("followup-graphupload", cudaGraphUpload(ex, st));
            zero();
            cudaError_t r = launch_and_sync(ex);
            report("followup-graphupload-launch", r, "d0=%d", rd(0));
            cudaGraphExecDestroy(ex);
        }
        cudaGraphInstantiateParams ip;
        memset(&ip, 0, sizeof ip);
        ip.flags = cudaGraphInstantiateFlagUpload;
        ip.uploadStream = st;
        ex = nullptr;
        report("followup-instantiate-upload-flag", cudaGraphInstantiateWithParams(&ex, g, &ip),
               "result_out=%d", (int)ip.result_out);
        if (ex)
            cudaGraphExecDestroy(ex);
        memset(&ip, 0, sizeof ip);
        ip.flags = cudaGraphInstantiateFlagDeviceLaunch;
        ex = nullptr;
        report("followup-instantiate-devicelaunch", cudaGraphInstantiateWithParams(&ex, g, &ip),
               "result_out=%d errNode=%s", (int)ip.result_out,
               ip.errNode_out ? ntype(ip.errNode_out) : "null");
        if (ex)
            cudaGraphExecDestroy(ex);
        memset(&ip, 0, sizeof ip);
        ip.flags = cudaGraphInstantiateFlagAutoFreeOnLaunch;
        ex = nullptr;
        report("followup-instantiate-autofree", cudaGraphInstantiateWithParams(&ex, g, &ip), "result_out=%d",
               (int)ip.result_out);
        if (ex) {
            unsigned long long f = 0;
            report("followup-autofree-execgetflags", cudaGraphExecGetFlags(ex, &f), "flags=%llu", f);
            cudaGraphExecDestroy(ex);
        }
        // update: assign flag on the base, no assign flag on the update graph
        ex = nullptr;
        if (!inst("followup-update-assignflag-base", &ex, g)) {
            cudaGraph_t g2;
            cudaGraphCreate(&g2, 0);
            cudaGraphConditionalHandle h2;
            cudaGraphConditionalHandleCreate(&h2, g2, 1, 0);
            cudaGraphNode_t cn2, x2;
            cudaGraph_t *b2;
            probe_add_cond(g2, h2, cudaGraphCondTypeIf, 1, &cn2, &b2);
            add_inc_after(&x2, b2[0], dmem);
            cudaGraphExecUpdateResultInfo ri;
            memset(&ri, 0, sizeof ri);
            cudaError_t ue = cudaGraphExecUpdate(ex, g2, &ri);
            zero();
            cudaError_t s = launch_and_sync(ex);
            report("followup-update-assign-to-noassign", ue, "result=%d launch=%s body-ran=%d",
                   (int)ri.result, en(s), rd(0));
            cudaGraphDestroy(g2);
            // update with a body kernel of another function
            cudaGraphCreate(&g2, 0);
            cudaGraphConditionalHandleCreate(&h2, g2, 1, cudaGraphCondAssignDefault);
            probe_add_cond(g2, h2, cudaGraphCondTypeIf, 1, &cn2, &b2);
            int *pp = dmem;
            int i3 = 3;
            void *a[] = {&pp, &i3};
            add_kernel1(&x2, b2[0], (void *)mark, a);
            memset(&ri, 0, sizeof ri);
            ue = cudaGraphExecUpdate(ex, g2, &ri);
            zero();
            cudaGraphLaunch(ex, st);
            s = cudaStreamSynchronize(st);
            report("followup-update-body-kernel-other-function", ue,
                   "result=%d errNode=%s launch=%s d0=%d d3=%d", (int)ri.result,
                   ri.errorNode ? ntype(ri.errorNode) : "null", en(s), rd(0), rd(3));
            cudaGraphDestroy(g2);
            cudaGraphExecDestroy(ex);
        }
        // GetEnabled on a body node, values after destroy, node type via a separate call
        cudaGraphNodeType t = (cudaGraphNodeType)77;
        cudaError_t te = cudaGraphNodeGetType(cn, &t);
        note("followup-nodegettype-conditional", "%s type=%d", en(te), (int)t);
        size_t rn = 0;
        cudaGraphGetRootNodes(b[0], nullptr, &rn);
        note("followup-body-rootnodes", "%zu", rn);
        cudaGraphDestroy(g);
    }
    R("final-device-sync", cudaDeviceSynchronize());
    return 0;
}
