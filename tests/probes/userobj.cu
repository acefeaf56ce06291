// userobj.cu - probes CUDA's user objects: creation flags, reference
// counts, when and on which thread the destructor runs, and how graphs,
// clones, child graphs, execs and exec updates hold references.
// Build: nvcc -arch=sm_90 -o userobj userobj.cu -lcuda
#include "probe.h"
#include <atomic>
#include <chrono>
#include <thread>
#include <sys/syscall.h>
#include <unistd.h>

struct Obj {
    std::atomic<int> ran{0};
    std::atomic<long> tid{0};
};
static long main_tid;
static void dtor(void *p)
{
    Obj *o = (Obj *)p;
    o->tid = (long)syscall(SYS_gettid);
    o->ran++;
}
static const char *who(Obj *o)
{
    if (!o->ran)
        return "not-run";
    return o->tid == main_tid ? "ran-on-calling-thread" : "ran-on-other-thread";
}
static void settle()
{
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

// Waits 200 ms, then notes whether o's destructor has run, and where.
static void settle_note(const char *name, Obj *o)
{
    settle();
    note(name, "dtor=%s", who(o));
}

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

static cudaStream_t st;

static cudaUserObject_t mk(Obj *o, unsigned rc = 1)
{
    cudaUserObject_t u = nullptr;
    cudaError_t e = cudaUserObjectCreate(&u, o, dtor, rc, cudaUserObjectNoDestructorSync);
    if (e)
        note("mk", "create failed %s", en(e));
    return u;
}

// A graph of one empty node that holds u's reference (moved to it).
// An empty graph (the result unchecked, as the probe's other calls).
static cudaGraph_t new_graph()
{
    cudaGraph_t g = nullptr;
    cudaGraphCreate(&g, 0);
    return g;
}

// g instantiated (the result unchecked, as the probe's other calls).
static cudaGraphExec_t instantiated(cudaGraph_t g)
{
    cudaGraphExec_t ex = nullptr;
    cudaGraphInstantiate(&ex, g, 0);
    return ex;
}

static cudaGraph_t graph_holding(cudaUserObject_t u)
{
    cudaGraph_t g = new_graph();
    cudaGraphNode_t e;
    cudaGraphAddEmptyNode(&e, g, nullptr, 0);
    cudaGraphRetainUserObject(g, u, 1, cudaGraphUserObjectMove);
    return g;
}

int main()
{
    main_tid = (long)syscall(SYS_gettid);
    cudaFree(0);
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    // ---- creation flags and counts
    {
        Obj o[8];
        cudaUserObject_t u;
        report("create-flags0", cudaUserObjectCreate(&u, &o[0], dtor, 1, 0));
        report("create-flags-nodestructorsync",
               cudaUserObjectCreate(&u, &o[1], dtor, 1, cudaUserObjectNoDestructorSync));
        if (!cudaGetLastError())
            cudaUserObjectRelease(u, 1);
        report("create-flags2", cudaUserObjectCreate(&u, &o[2], dtor, 1, 2));
        report("create-flags3", cudaUserObjectCreate(&u, &o[3], dtor, 1, 3));
        report("create-refcount0", cudaUserObjectCreate(&u, &o[4], dtor, 0, cudaUserObjectNoDestructorSync));
        report("create-null-destroy",
               cudaUserObjectCreate(&u, &o[5], nullptr, 1, cudaUserObjectNoDestructorSync));
        report("create-null-ptr", cudaUserObjectCreate(&u, nullptr, dtor, 1, cudaUserObjectNoDestructorSync));
        if (!cudaGetLastError())
            note("create-null-ptr", "created (destructor will get NULL; not released)");
        settle();
        note("create-flags-nodestructorsync-release1", "%s", who(&o[1]));
    }
    // ---- retain/release counts, destructor timing and thread
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 2);
        report("release-1-of-2", cudaUserObjectRelease(u, 1), "dtor=%s", who(&o));
        report("retain-3", cudaUserObjectRetain(u, 3), "dtor=%s", who(&o));
        report("retain-0", cudaUserObjectRetain(u, 0), "dtor=%s", who(&o));
        report("release-0", cudaUserObjectRelease(u, 0), "dtor=%s", who(&o));
        report("release-4-to-zero", cudaUserObjectRelease(u, 4), "dtor-immediately=%s", who(&o));
        settle();
        note("release-to-zero-after-200ms", "dtor=%s ran=%d", who(&o), o.ran.load());
        Obj o2;
        cudaUserObject_t u2 = mk(&o2, 1);
        report("release-1-of-1", cudaUserObjectRelease(u2, 1), "dtor-immediately=%s", who(&o2));
        settle_note("release-1-of-1-after-200ms", &o2);
    }
    // ---- graph retain / release
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g = new_graph();
        report("graph-retain-1-flags0", cudaGraphRetainUserObject(g, u, 1, 0));
        report("graph-retain-count0", cudaGraphRetainUserObject(g, u, 0, 0));
        report("graph-retain-flags2", cudaGraphRetainUserObject(g, u, 1, 2));
        report("graph-retain-2-more", cudaGraphRetainUserObject(g, u, 2, 0));
        report("user-release-1", cudaUserObjectRelease(u, 1), "dtor=%s", who(&o));
        report("graph-release-1-of-3", cudaGraphReleaseUserObject(g, u, 1), "dtor=%s", who(&o));
        report("graph-release-count0", cudaGraphReleaseUserObject(g, u, 0), "dtor=%s", who(&o));
        report("graph-release-5-of-2", cudaGraphReleaseUserObject(g, u, 5), "dtor=%s", who(&o));
        report("graph-release-2-of-2", cudaGraphReleaseUserObject(g, u, 2), "dtor-immediately=%s", who(&o));
        settle_note("graph-release-to-zero-after-200ms", &o);
        // release of an object the graph never retained
        Obj o2;
        cudaUserObject_t u2 = mk(&o2, 1);
        report("graph-release-never-retained", cudaGraphReleaseUserObject(g, u2, 1), "dtor=%s", who(&o2));
        cudaUserObjectRelease(u2, 1);
        // graph destroy releases the graph's references
        Obj o3;
        cudaUserObject_t u3 = mk(&o3, 1);
        cudaGraphRetainUserObject(g, u3, 2, 0);
        cudaUserObjectRelease(u3, 1);
        report("graph-destroy-holding-2", cudaGraphDestroy(g), "dtor-immediately=%s", who(&o3));
        settle();
        note("graph-destroy-after-200ms", "dtor=%s ran=%d", who(&o3), o3.ran.load());
    }
    // ---- move flag
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g = new_graph();
        report("graph-retain-move", cudaGraphRetainUserObject(g, u, 1, cudaGraphUserObjectMove), "dtor=%s",
               who(&o));
        report("graph-destroy-after-move", cudaGraphDestroy(g), "dtor-immediately=%s", who(&o));
        settle_note("graph-destroy-after-move-200ms", &o);
        // move of more references than the caller holds
        Obj o2;
        cudaUserObject_t u2 = mk(&o2, 1);
        cudaGraphCreate(&g, 0);
        report("graph-retain-move-2-of-1", cudaGraphRetainUserObject(g, u2, 2, cudaGraphUserObjectMove),
               "dtor=%s", who(&o2));
        cudaGraphDestroy(g);
        settle();
        note("graph-retain-move-2-of-1-after-destroy", "dtor=%s ran=%d", who(&o2), o2.ran.load());
    }
    // ---- clone
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g, c;
        cudaGraphCreate(&g, 0);
        cudaGraphRetainUserObject(g, u, 1, cudaGraphUserObjectMove);
        report("clone", cudaGraphClone(&c, g));
        cudaGraphDestroy(g);
        settle_note("clone-destroy-original", &o);
        report("clone-release-from-clone", cudaGraphReleaseUserObject(c, u, 1), "dtor=%s", who(&o));
        settle_note("clone-release-from-clone-200ms", &o);
        cudaGraphDestroy(c);
    }
    // ---- child graph
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t child, parent;
        cudaGraphCreate(&child, 0);
        cudaGraphCreate(&parent, 0);
        cudaGraphNode_t e, cn;
        cudaGraphAddEmptyNode(&e, child, nullptr, 0);
        cudaGraphRetainUserObject(child, u, 1, cudaGraphUserObjectMove);
        report("child-add", cudaGraphAddChildGraphNode(&cn, parent, nullptr, 0, child));
        cudaGraphDestroy(child);
        settle_note("child-destroy-child-graph", &o);
        cudaGraph_t embedded;
        cudaGraphChildGraphNodeGetGraph(cn, &embedded);
        report("child-release-from-embedded", cudaGraphReleaseUserObject(embedded, u, 1), "dtor=%s", who(&o));
        cudaGraphDestroy(parent);
        settle_note("child-destroy-parent", &o);
    }
    // ---- instantiate, exec destroy, launch in flight
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g = new_graph();
        cudaGraphNode_t k;
        cudaKernelNodeParams kp;
        memset(&kp, 0, sizeof kp);
        long long cycles = 400000000LL; // ~0.2 s at ~2 GHz
        void *args[] = {&cycles};
        kp.func = (void *)spin;
        kp.gridDim = dim3(1);
        kp.blockDim = dim3(1);
        kp.kernelParams = args;
        cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp);
        cudaGraphRetainUserObject(g, u, 1, cudaGraphUserObjectMove);
        cudaGraphExec_t ex;
        report("exec-instantiate", cudaGraphInstantiate(&ex, g, 0));
        cudaGraphDestroy(g);
        settle_note("exec-graph-destroyed-exec-lives", &o);
        cudaGraphLaunch(ex, st);
        report("exec-destroy-launch-in-flight", cudaGraphExecDestroy(ex), "dtor-immediately=%s", who(&o));
        cudaStreamQuery(st);
        note("exec-destroy-launch-in-flight-query", "stream=%s dtor=%s", en(cudaStreamQuery(st)), who(&o));
        cudaGetLastError();
        cudaStreamSynchronize(st);
        note("exec-destroy-after-stream-sync", "dtor=%s", who(&o));
        settle_note("exec-destroy-after-sync-200ms", &o);
    }
    {
        // exec destroyed with nothing in flight
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g = graph_holding(u);
        cudaGraphExec_t ex = instantiated(g);
        cudaGraphDestroy(g);
        report("exec-destroy-idle", cudaGraphExecDestroy(ex), "dtor-immediately=%s", who(&o));
        settle_note("exec-destroy-idle-200ms", &o);
    }
    {
        // graph released after instantiate: the exec's reference is separate
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g = graph_holding(u);
        cudaGraphExec_t ex = instantiated(g);
        report("graph-release-after-instantiate", cudaGraphReleaseUserObject(g, u, 1), "dtor=%s", who(&o));
        settle_note("graph-release-after-instantiate-200ms", &o);
        cudaGraphExecDestroy(ex);
        settle_note("graph-release-after-instantiate-exec-destroyed", &o);
        cudaGraphDestroy(g);
    }
    // ---- exec update: does the exec keep the old graph's objects?
    {
        Obj oa, ob;
        cudaUserObject_t ua = mk(&oa, 1), ub = mk(&ob, 1);
        cudaGraph_t ga = graph_holding(ua), gb = graph_holding(ub);
        cudaGraphExec_t ex;
        cudaGraphInstantiate(&ex, ga, 0);
        cudaGraphExecUpdateResultInfo ri;
        memset(&ri, 0, sizeof ri);
        report("update-a-to-b", cudaGraphExecUpdate(ex, gb, &ri), "result=%d", (int)ri.result);
        cudaGraphDestroy(ga);
        cudaGraphDestroy(gb);
        settle();
        note("update-graphs-destroyed-exec-lives", "A=%s B=%s", who(&oa), who(&ob));
        cudaGraphExecDestroy(ex);
        settle();
        note("update-exec-destroyed", "A=%s B=%s", who(&oa), who(&ob));
    }
    // ---- captured graph: retain on the capture graph
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
        cudaStreamCaptureStatus cs;
        cudaGraph_t cg = nullptr;
        cudaStreamGetCaptureInfo(st, &cs, nullptr, &cg, nullptr, nullptr, nullptr);
        report("capture-graph-retain-move", cudaGraphRetainUserObject(cg, u, 1, cudaGraphUserObjectMove));
        spin<<<1, 1, 0, st>>>(1000);
        cudaGraph_t g = nullptr;
        cudaStreamEndCapture(st, &g);
        note("capture-ended", "dtor=%s", who(&o));
        cudaGraphDestroy(g);
        settle_note("capture-graph-destroyed", &o);
        // invalidated capture: references dropped?
        Obj o2;
        cudaUserObject_t u2 = mk(&o2, 1);
        cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
        cudaStreamGetCaptureInfo(st, &cs, nullptr, &cg, nullptr, nullptr, nullptr);
        cudaGraphRetainUserObject(cg, u2, 1, cudaGraphUserObjectMove);
        cudaStreamSynchronize(st); // illegal during capture: invalidates it
        cudaGetLastError();
        g = nullptr;
        report("capture-invalidated-end", cudaStreamEndCapture(st, &g), "graph=%s", g ? "set" : "null");
        settle_note("capture-invalidated-after-200ms", &o2);
    }
    // ---- release more than held by the user (last: may corrupt the object)
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        report("user-release-2-of-1", cudaUserObjectRelease(u, 2), "dtor=%s ran=%d", who(&o), o.ran.load());
        settle();
        note("user-release-2-of-1-after-200ms", "ran=%d", o.ran.load());
    }
    // ---- NULL handles (last: a crash here loses nothing else)
    {
        Obj o;
        cudaUserObject_t u = mk(&o, 1);
        cudaGraph_t g = new_graph();
        report("graph-retain-null-graph", cudaGraphRetainUserObject(nullptr, u, 1, 0));
        report("graph-retain-null-object", cudaGraphRetainUserObject(g, nullptr, 1, 0));
        report("retain-null", cudaUserObjectRetain(nullptr, 1));
        report("release-null", cudaUserObjectRelease(nullptr, 1));
        report("create-null-out", cudaUserObjectCreate(nullptr, &o, dtor, 1, cudaUserObjectNoDestructorSync));
    }
    report("final-device-sync", cudaDeviceSynchronize());
    return 0;
}
