// parity.cu - CUDA's answers for the behaviours where graphrt's GPU device
// once differed from its CPU device, and for graph memory ownership
// across graphs: the legacy stream's order against a blocking stream
// seen through cudaStreamQuery, a Global-mode capture waiting on an event
// recorded outside it, a user object of an executable destroyed while its
// launch runs, an update that changes a conditional handle's default, and
// free nodes of another graph's allocation.
#include "probe.h"

#include <atomic>
#include <chrono>
#include <unistd.h>

static std::atomic<int> destroyed{0};
static void dtor(void *) { destroyed++; }
static void nap300(void *) { usleep(300000); }

__global__ void body_add(unsigned *p) { atomicAdd(p, 1u); }

static void legacy_query()
{
    cudaStream_t b, nb;
    cudaStreamCreateWithFlags(&b, cudaStreamDefault);
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    R("legacy.hostfn-on-legacy", cudaLaunchHostFunc(0, nap300, nullptr));
    R("legacy.query-empty-blocking-stream", cudaStreamQuery(b));
    R("legacy.query-empty-nonblocking-stream", cudaStreamQuery(nb));
    R("legacy.query-legacy", cudaStreamQuery(0));
    cudaDeviceSynchronize();
    R("legacy.query-empty-blocking-stream-after-sync", cudaStreamQuery(b));
    R("legacy.hostfn-on-blocking", cudaLaunchHostFunc(b, nap300, nullptr));
    R("legacy.query-legacy-after-blocking-work", cudaStreamQuery(0));
    cudaDeviceSynchronize();
    cudaLaunchHostFunc(b, nap300, nullptr);
    auto t0 = std::chrono::steady_clock::now();
    R("legacy.sync-legacy-with-blocking-work", cudaStreamSynchronize(0));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    note("legacy.sync-legacy-waited-for-blocking-work", "%s", ms > 200 ? "yes" : "no");
    cudaLaunchHostFunc(nb, nap300, nullptr);
    t0 = std::chrono::steady_clock::now();
    R("legacy.sync-legacy-with-nonblocking-work", cudaStreamSynchronize(0));
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    note("legacy.sync-legacy-waited-for-nonblocking-work", "%s", ms > 200 ? "yes" : "no");
    cudaDeviceSynchronize();
    cudaStreamDestroy(b);
    cudaStreamDestroy(nb);
}

static void capture_isolation()
{
    for (int mode = 0; mode < 3; mode++) {
        cudaStream_t s, o;
        cudaEvent_t e;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        cudaStreamCreateWithFlags(&o, cudaStreamNonBlocking);
        cudaEventCreate(&e);
        cudaEventRecord(e, o);
        cudaStreamSynchronize(o);
        cudaStreamCaptureMode m = mode == 0 ? cudaStreamCaptureModeGlobal
                                : mode == 1 ? cudaStreamCaptureModeThreadLocal
                                            : cudaStreamCaptureModeRelaxed;
        char name[96];
        R("isolation.begin", cudaStreamBeginCapture(s, m));
        snprintf(name, sizeof name, "isolation.mode%d.wait-outside-event", mode);
        R(name, cudaStreamWaitEvent(s, e, 0));
        cudaStreamCaptureStatus st;
        cudaStreamIsCapturing(s, &st);
        snprintf(name, sizeof name, "isolation.mode%d.status-after", mode);
        note(name, "%d", (int)st);
        cudaGraph_t g = nullptr;
        snprintf(name, sizeof name, "isolation.mode%d.end", mode);
        report(name, cudaStreamEndCapture(s, &g), "graph=%s", g ? "non-null" : "null");
        if (g)
            cudaGraphDestroy(g);
        cudaEvent_t never;
        cudaEventCreate(&never);
        cudaStreamBeginCapture(s, m);
        snprintf(name, sizeof name, "isolation.mode%d.wait-never-recorded", mode);
        R(name, cudaStreamWaitEvent(s, never, 0));
        g = nullptr;
        snprintf(name, sizeof name, "isolation.mode%d.end-never-recorded", mode);
        report(name, cudaStreamEndCapture(s, &g), "graph=%s", g ? "non-null" : "null");
        if (g)
            cudaGraphDestroy(g);
        cudaEventDestroy(never);
        cudaEventDestroy(e);
        cudaStreamDestroy(s);
        cudaStreamDestroy(o);
    }
}

static void userobj_in_flight()
{
    cudaGraph_t g;
    cudaGraphNode_t n;
    cudaGraphExec_t x;
    cudaStream_t s;
    cudaUserObject_t o;
    cudaStreamCreate(&s);
    cudaGraphCreate(&g, 0);
    cudaHostNodeParams hp = {nap300, nullptr};
    cudaGraphAddHostNode(&n, g, nullptr, 0, &hp);
    cudaUserObjectCreate(&o, nullptr, dtor, 1, cudaUserObjectNoDestructorSync);
    cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove);
    cudaGraphInstantiate(&x, g, 0);
    cudaGraphDestroy(g);
    destroyed = 0;
    R("userobj.launch", cudaGraphLaunch(x, s));
    auto t0 = std::chrono::steady_clock::now();
    R("userobj.exec-destroy", cudaGraphExecDestroy(x));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    note("userobj.destroy-ms", "%s", ms < 100 ? "under-100" : "over-100");
    note("userobj.destroyed-at-return", "%d", destroyed.load());
    cudaStreamSynchronize(s);
    usleep(100000);
    note("userobj.destroyed-after-sync", "%d", destroyed.load());
    cudaStreamDestroy(s);
}

static void cond_default_update()
{
    unsigned *cell;
    cudaMalloc(&cell, sizeof *cell);
    cudaMemset(cell, 0, sizeof *cell);
    cudaGraph_t gs[2];
    for (int i = 0; i < 2; i++) {
        cudaGraphCreate(&gs[i], 0);
        cudaGraphConditionalHandle h;
        cudaGraphConditionalHandleCreate(&h, gs[i], i == 0 ? 1 : 0, cudaGraphCondAssignDefault);
        cudaGraphNodeParams p = {};
        p.type = cudaGraphNodeTypeConditional;
        p.conditional.handle = h;
        p.conditional.type = cudaGraphCondTypeIf;
        p.conditional.size = 1;
        cudaGraphNode_t cn, kn;
        cudaGraphAddNode(&cn, gs[i], nullptr, nullptr, 0, &p);
        cudaKernelNodeParams kp = {};
        void *args[] = {&cell};
        kp.func = (void *)body_add;
        kp.gridDim = dim3(1);
        kp.blockDim = dim3(1);
        kp.kernelParams = args;
        cudaGraphAddKernelNode(&kn, p.conditional.phGraph_out[0], nullptr, 0, &kp);
    }
    cudaGraphExec_t x;
    cudaGraphInstantiate(&x, gs[0], 0);
    cudaGraphLaunch(x, 0);
    cudaDeviceSynchronize();
    unsigned v = 0;
    cudaMemcpy(&v, cell, sizeof v, cudaMemcpyDeviceToHost);
    note("conddefault.before-update-body-ran", "%u", v);
    cudaGraphExecUpdateResultInfo info = {};
    report("conddefault.update-to-default-0", cudaGraphExecUpdate(x, gs[1], &info), "result=%d", (int)info.result);
    cudaGraphLaunch(x, 0);
    cudaDeviceSynchronize();
    cudaMemcpy(&v, cell, sizeof v, cudaMemcpyDeviceToHost);
    note("conddefault.after-update-body-ran-total", "%u", v);
    report("conddefault.update-back-to-default-1", cudaGraphExecUpdate(x, gs[0], &info), "result=%d",
           (int)info.result);
    cudaGraphLaunch(x, 0);
    cudaDeviceSynchronize();
    cudaMemcpy(&v, cell, sizeof v, cudaMemcpyDeviceToHost);
    note("conddefault.after-second-update-total", "%u", v);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(gs[0]);
    cudaGraphDestroy(gs[1]);
    cudaFree(cell);
}

static void graphmem_ownership()
{
    cudaGraph_t a, b, c;
    cudaGraphNode_t an, bn, fn, cn;
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = 1 << 20;
    cudaGraphCreate(&a, 0);
    cudaGraphCreate(&b, 0);
    cudaGraphCreate(&c, 0);
    R("gmem.alloc-in-a", cudaGraphAddMemAllocNode(&an, a, nullptr, 0, &ap));
    R("gmem.free-in-b", cudaGraphAddMemFreeNode(&bn, b, nullptr, 0, ap.dptr));
    R("gmem.free-in-c-too", cudaGraphAddMemFreeNode(&cn, c, nullptr, 0, ap.dptr));
    R("gmem.free-in-a-after-b", cudaGraphAddMemFreeNode(&fn, a, &an, 1, ap.dptr));
    R("gmem.destroy-b", cudaGraphDestroy(b));
    R("gmem.destroy-c", cudaGraphDestroy(c));
    R("gmem.free-in-a-after-b-and-c-destroyed", cudaGraphAddMemFreeNode(&fn, a, &an, 1, ap.dptr));
    cudaGraphDestroy(a);

    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaGraphExec_t xa, xb;
    cudaGraphCreate(&a, 0);
    cudaGraphCreate(&b, 0);
    R("gmem2.alloc-in-a", cudaGraphAddMemAllocNode(&an, a, nullptr, 0, &ap));
    R("gmem2.free-in-b", cudaGraphAddMemFreeNode(&bn, b, nullptr, 0, ap.dptr));
    R("gmem2.inst-a", cudaGraphInstantiate(&xa, a, 0));
    R("gmem2.inst-b", cudaGraphInstantiate(&xb, b, 0));
    R("gmem2.launch-b-before-a", cudaGraphLaunch(xb, s));
    R("gmem2.sync", cudaStreamSynchronize(s));
    R("gmem2.launch-a", cudaGraphLaunch(xa, s));
    R("gmem2.relaunch-a-live", cudaGraphLaunch(xa, s));
    R("gmem2.sync", cudaStreamSynchronize(s));
    R("gmem2.cudaFree", cudaFree(ap.dptr));
    R("gmem2.launch-a-after-cudaFree", cudaGraphLaunch(xa, s));
    R("gmem2.sync", cudaStreamSynchronize(s));
    R("gmem2.cudaFreeAsync", cudaFreeAsync(ap.dptr, s));
    R("gmem2.launch-a-after-cudaFreeAsync", cudaGraphLaunch(xa, s));
    R("gmem2.launch-b", cudaGraphLaunch(xb, s));
    R("gmem2.launch-a-after-b", cudaGraphLaunch(xa, s));
    R("gmem2.sync", cudaStreamSynchronize(s));
    R("gmem2.destroy-xa-live", cudaGraphExecDestroy(xa));
    R("gmem2.cudaFree-after-exec-destroyed", cudaFree(ap.dptr));
    cudaGraphExecDestroy(xb);
    cudaGraphDestroy(a);
    cudaGraphDestroy(b);
    cudaStreamDestroy(s);
}

// cudaStreamEndCapture(s, NULL) after cudaStreamBeginCaptureToGraph, as
// NVIDIA's graphConditionalNodes sample calls it; and after a plain
// cudaStreamBeginCapture.
static void end_capture_null()
{
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphNode_t n;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaGraphCreate(&g, 0);
    R("endnull.begin-to-graph", cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
    cudaLaunchHostFunc(s, nap300, nullptr);
    R("endnull.end-to-graph-null", cudaStreamEndCapture(s, nullptr));
    cudaStreamCaptureStatus st;
    cudaStreamIsCapturing(s, &st);
    note("endnull.status-after", "%d", (int)st);
    note("endnull.graph-nodes", "%zu", nnodes(g));
    cudaGraphDestroy(g);
    R("endnull.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaLaunchHostFunc(s, nap300, nullptr);
    R("endnull.end-null", cudaStreamEndCapture(s, nullptr));
    cudaStreamIsCapturing(s, &st);
    note("endnull.plain-status-after", "%d", (int)st);
    int v = -1;
    R("driver-version", cudaDriverGetVersion(&v));
    note("driver-version-value", "%d", v);
    (void)n;
    cudaStreamDestroy(s);
}

int main()
{
    cudaFree(0);
    end_capture_null();
    legacy_query();
    capture_isolation();
    userobj_in_flight();
    cond_default_update();
    graphmem_ownership();
    printf("done\n");
    return 0;
}
