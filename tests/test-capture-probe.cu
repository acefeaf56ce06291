// test-capture-probe.cu - runs the stream-capture rules on a real CUDA
// device and prints what the CUDA runtime does for each, so that graphrt's
// capture module (src/capture/) can match it. Not part of the graphrt
// build; compile with: nvcc -arch=sm_90 -o probe test-capture-probe.cu
// Each line: "<case>: <result>" with error names and capture statuses.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

__global__ void k(int *p)
{
    if (p)
        p[0] += 1;
}

static const char *err_name(cudaError_t e)
{
    return cudaGetErrorName(e);
}
static const char *sn(cudaStreamCaptureStatus s)
{
    return s == cudaStreamCaptureStatusNone ? "None" : s == cudaStreamCaptureStatusActive ? "Active" : "Invalidated";
}
static const char *mn(cudaStreamCaptureMode m)
{
    return m == cudaStreamCaptureModeGlobal ? "Global" : m == cudaStreamCaptureModeThreadLocal ? "ThreadLocal" : "Relaxed";
}
static const char *status(cudaStream_t s)
{
    cudaStreamCaptureStatus st;
    cudaError_t e = cudaStreamIsCapturing(s, &st);
    static char buf[8][64];
    static int i;
    i = (i + 1) % 8;
    if (e)
        snprintf(buf[i], 64, "IsCapturing=%s", err_name(e));
    else
        snprintf(buf[i], 64, "%s", sn(st));
    cudaGetLastError();
    return buf[i];
}
static size_t node_count(cudaGraph_t g)
{
    size_t n = 0;
    cudaGraphGetNodes(g, nullptr, &n);
    return n;
}
static void topo(const char *name, cudaGraph_t g)
{
    size_t n = 0, ne = 0;
    cudaGraphGetNodes(g, nullptr, &n);
    std::vector<cudaGraphNode_t> nodes(n);
    cudaGraphGetNodes(g, nodes.data(), &n);
#if CUDART_VERSION >= 13000
    cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne);
    std::vector<cudaGraphNode_t> f(ne), t(ne);
    cudaGraphGetEdges(g, f.data(), t.data(), nullptr, &ne);
#else
    cudaGraphGetEdges(g, nullptr, nullptr, &ne);
    std::vector<cudaGraphNode_t> f(ne), t(ne);
    cudaGraphGetEdges(g, f.data(), t.data(), &ne);
#endif
    printf("%s: nodes=%zu types=", name, n);
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType ty;
        cudaGraphNodeGetType(nodes[i], &ty);
        printf("%d,", (int)ty);
    }
    printf(" edges=");
    for (size_t i = 0; i < ne; i++) {
        size_t a = 0, b = 0;
        for (size_t j = 0; j < n; j++) {
            if (nodes[j] == f[i]) a = j;
            if (nodes[j] == t[i]) b = j;
        }
        printf("%zu->%zu ", a, b);
    }
    printf("\n");
}
// Ends the capture of s and prints the result.
static void end_capture(const char *name, cudaStream_t s)
{
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &g);
    printf("%s: end=%s graph=%s nodes=%zu after=%s\n", name, err_name(e), g ? "set" : "NULL", g ? node_count(g) : (size_t)0,
           status(s));
    if (g)
        cudaGraphDestroy(g);
    cudaGetLastError();
}
// Begins a capture on s in this mode with one launch and records ev
// after it (a fork for other streams to wait on).
static void begin_and_record(cudaStream_t s, cudaStreamCaptureMode mode, cudaEvent_t ev)
{
    cudaStreamBeginCapture(s, mode);
    k<<<1, 1, 0, s>>>(nullptr);
    cudaEventRecord(ev, s);
}
static void begin_fork(cudaStream_t s, cudaEvent_t fork)
{
    begin_and_record(s, cudaStreamCaptureModeGlobal, fork);
}
// Begins a capture on s with one launch, makes s wait for ev, prints
// CUDA's answer and s's status, and ends the capture.
static void wait_in_capture(cudaStream_t s, cudaEvent_t ev, const char *what, const char *end_label)
{
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    k<<<1, 1, 0, s>>>(nullptr);
    cudaError_t e = cudaStreamWaitEvent(s, ev, 0);
    printf("%s: %s status=%s\n", what, err_name(e), status(s));
    cudaGetLastError();
    end_capture(end_label, s);
}
// cudaStreamUpdateCaptureDependencies without edge data, whichever the
// runtime's version.
static cudaError_t cuda_update_deps(cudaStream_t s, cudaGraphNode_t *deps, size_t n, unsigned flags)
{
#if CUDART_VERSION >= 13000
    return cudaStreamUpdateCaptureDependencies(s, deps, nullptr, n, flags);
#else
    return cudaStreamUpdateCaptureDependencies(s, deps, n, flags);
#endif
}
// Captures a launch on cs beside one on 'other' (the legacy or the
// per-thread stream) and prints CUDA's answer, cs's status and, where
// legacy_label is not null, the legacy stream's under that label.
static void launch_beside_capture(cudaStream_t cs, cudaStream_t other, const char *what, const char *legacy_label,
                                  const char *end_label)
{
    cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed);
    k<<<1, 1, 0, cs>>>(nullptr);
    k<<<1, 1, 0, other>>>(nullptr);
    cudaError_t e = cudaGetLastError();
    if (legacy_label)
        printf("%s: %s status=%s %s=%s\n", what, err_name(e), status(cs), legacy_label, status(0));
    else
        printf("%s: %s status=%s\n", what, err_name(e), status(cs));
    end_capture(end_label, cs);
}
static cudaError_t getinfo(cudaStream_t s, cudaStreamCaptureStatus *st, unsigned long long *id, cudaGraph_t *g,
                           const cudaGraphNode_t **d, size_t *nd)
{
#if CUDART_VERSION >= 13000
    return cudaStreamGetCaptureInfo(s, st, id, g, d, nullptr, nd);
#else
    return cudaStreamGetCaptureInfo(s, st, id, g, d, nd);
#endif
}

static int *dbuf;
static int hbuf[16];
static void *freeme;
static cudaEvent_t ev_plain, ev_cap;
static cudaStream_t s_other;

enum Call { C_MALLOC, C_FREE, C_MEMCPY, C_MEMSET, C_SYNC_OTHER, C_SYNC_CAP, C_QUERY_OTHER, C_QUERY_CAP, C_DEVSYNC,
            C_EQUERY_PLAIN, C_ESYNC_PLAIN, C_EQUERY_CAP, C_ESYNC_CAP, C_MALLOCHOST, C_NCALLS };
static const char *cname[] = {"cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemset", "StreamSync(other)",
                              "StreamSync(capturing)", "StreamQuery(other)", "StreamQuery(capturing)",
                              "DeviceSync", "EventQuery(plain)", "EventSync(plain)", "EventQuery(captured)",
                              "EventSync(captured)", "cudaMallocHost"};

static cudaError_t do_call(int c, cudaStream_t cap)
{
    void *p = nullptr;
    switch (c) {
    case C_MALLOC: { cudaError_t e = cudaMalloc(&p, 256); if (!e) cudaFree(p); return e; }
    case C_FREE: return cudaFree(freeme);
    case C_MEMCPY: return cudaMemcpy(dbuf, hbuf, 4, cudaMemcpyHostToDevice);
    case C_MEMSET: return cudaMemset(dbuf, 0, 4);
    case C_SYNC_OTHER: return cudaStreamSynchronize(s_other);
    case C_SYNC_CAP: return cudaStreamSynchronize(cap);
    case C_QUERY_OTHER: return cudaStreamQuery(s_other);
    case C_QUERY_CAP: return cudaStreamQuery(cap);
    case C_DEVSYNC: return cudaDeviceSynchronize();
    case C_EQUERY_PLAIN: return cudaEventQuery(ev_plain);
    case C_ESYNC_PLAIN: return cudaEventSynchronize(ev_plain);
    case C_EQUERY_CAP: return cudaEventQuery(ev_cap);
    case C_ESYNC_CAP: return cudaEventSynchronize(ev_cap);
    case C_MALLOCHOST: { cudaError_t e = cudaMallocHost(&p, 256); if (!e) cudaFreeHost(p); return e; }
    }
    return cudaErrorUnknown;
}

// One rule: capture in mode m on a non-blocking stream, then call c from
// this thread (other=false) or another thread whose own mode is tmode.
static void rule(cudaStreamCaptureMode m, int c, bool other, cudaStreamCaptureMode tmode)
{
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&freeme, 64);
    cudaEventRecord(ev_plain, s_other);
    cudaStreamSynchronize(s_other);
    cudaError_t e = cudaStreamBeginCapture(s, m);
    k<<<1, 1, 0, s>>>(nullptr);
    cudaEventRecord(ev_cap, s);
    cudaError_t r;
    if (other) {
        std::thread t([&] {
            cudaStreamCaptureMode mm = tmode;
            cudaThreadExchangeStreamCaptureMode(&mm);
            r = do_call(c, s);
            cudaGetLastError();
        });
        t.join();
    } else {
        cudaStreamCaptureMode mm = tmode;
        cudaThreadExchangeStreamCaptureMode(&mm);
        r = do_call(c, s);
        cudaThreadExchangeStreamCaptureMode(&mm);
    }
    cudaGetLastError();
    const char *st = status(s);
    cudaError_t after = cudaGetLastError();
    k<<<1, 1, 0, s>>>(nullptr);
    cudaError_t later = cudaGetLastError();
    char name[200];
    snprintf(name, sizeof name, "rule mode=%s call=%s from=%s threadmode=%s begin=%s -> %s status=%s nextlaunch=%s",
             mn(m), cname[c], other ? "other" : "same", mn(tmode), err_name(e), err_name(r), st, err_name(later));
    (void)after;
    end_capture(name, s);
    cudaDeviceSynchronize();
    cudaGetLastError();
    if (c != C_FREE || r != cudaSuccess)
        cudaFree(freeme);
    cudaGetLastError();
    cudaStreamDestroy(s);
}

int main()
{
    cudaError_t e;
    cudaMalloc(&dbuf, 64);
    cudaEventCreate(&ev_plain);
    cudaEventCreate(&ev_cap);
    cudaStreamCreateWithFlags(&s_other, cudaStreamNonBlocking);
    printf("CUDART_VERSION=%d\n", CUDART_VERSION);

    // Mode rules.
    cudaStreamCaptureMode modes[3] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                      cudaStreamCaptureModeRelaxed};
    for (int m = 0; m < 3; m++)
        for (int c = 0; c < C_NCALLS; c++) {
            rule(modes[m], c, false, cudaStreamCaptureModeGlobal);
            rule(modes[m], c, true, cudaStreamCaptureModeGlobal);
        }
    // Thread modes other than the default.
    for (int m = 0; m < 3; m++)
        for (int c : {C_MALLOC, C_SYNC_OTHER, C_SYNC_CAP, C_DEVSYNC, C_EQUERY_CAP}) {
            rule(modes[m], c, false, cudaStreamCaptureModeRelaxed);
            rule(modes[m], c, false, cudaStreamCaptureModeThreadLocal);
            rule(modes[m], c, true, cudaStreamCaptureModeThreadLocal);
            rule(modes[m], c, true, cudaStreamCaptureModeRelaxed);
        }

    cudaStream_t s, s2, s3, sb, u;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&u, cudaStreamNonBlocking);
    cudaStreamCreate(&sb); // blocking
    cudaEvent_t e1, e2, e3, ej;
    cudaEventCreate(&e1);
    cudaEventCreate(&e2);
    cudaEventCreate(&e3);
    cudaEventCreate(&ej);

    // Begin rules.
    printf("begin legacy: %s\n", err_name(cudaStreamBeginCapture(0, cudaStreamCaptureModeRelaxed)));
    cudaGetLastError();
    printf("begin cudaStreamLegacy: %s\n", err_name(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeRelaxed)));
    cudaGetLastError();
    e = cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeRelaxed);
    printf("begin perthread: %s\n", err_name(e));
    cudaGetLastError();
    if (!e) end_capture("perthread", cudaStreamPerThread);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    printf("begin twice: %s status=%s\n", err_name(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed)), status(s));
    cudaGetLastError();
    end_capture("after begin twice", s);
    {
        cudaGraph_t g = (cudaGraph_t)0x1;
        printf("end not capturing: %s graph=%p\n", err_name(cudaStreamEndCapture(s, &g)), (void *)g);
        cudaGetLastError();
    }
    printf("begin bad mode: %s\n", err_name(cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7)));
    cudaGetLastError();
    {
        cudaStreamCaptureMode mm = (cudaStreamCaptureMode)7;
        printf("exchange bad mode: %s\n", err_name(cudaThreadExchangeStreamCaptureMode(&mm)));
        cudaGetLastError();
    }
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    end_capture("empty capture", s);

    // Legacy stream interplay.
    launch_beside_capture(sb, 0, "legacy launch while blocking stream captures", "legacy IsCapturing", "legacy launch");
    cudaStreamBeginCapture(sb, cudaStreamCaptureModeRelaxed);
    k<<<1, 1, 0, sb>>>(nullptr);
    printf("legacy IsCapturing while blocking stream captures: %s\n", status(0));
    printf("legacy memcpyasync while blocking captures: %s status=%s\n",
           err_name(cudaMemcpyAsync(dbuf, dbuf + 4, 4, cudaMemcpyDeviceToDevice, 0)), status(sb));
    cudaGetLastError();
    end_capture("legacy memcpyasync", sb);
    launch_beside_capture(s, 0, "legacy launch while nonblocking stream captures", "legacyIsCapturing",
                          "legacy launch nb");
    cudaDeviceSynchronize();
    launch_beside_capture(sb, cudaStreamPerThread, "per-thread launch while blocking captures", nullptr,
                          "per-thread launch");
    cudaDeviceSynchronize();

    // Fork/join and unjoined.
    const char *jn[] = {"a fork,k2,join", "b fork,k2,join,k2 again", "c fork no work", "d fork no work, k on s",
                        "e fork k2, k on s no join", "f fork k2 join k on s", "g fork before any node, no work"};
    for (int c = 0; c < 7; c++) {
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        if (c != 6) k<<<1, 1, 0, s>>>(nullptr);
        cudaEventRecord(e1, s);
        e = cudaStreamWaitEvent(s2, e1, 0);
        if (c == 0 || c == 1 || c == 4 || c == 5) k<<<1, 1, 0, s2>>>(nullptr);
        if (c == 0 || c == 1 || c == 5) {
            cudaEventRecord(e2, s2);
            cudaStreamWaitEvent(s, e2, 0);
        }
        if (c == 1) k<<<1, 1, 0, s2>>>(nullptr);
        if (c == 3 || c == 4 || c == 5) k<<<1, 1, 0, s>>>(nullptr);
        char name[128];
        snprintf(name, sizeof name, "join %s (wait=%s s2=%s)", jn[c], err_name(e), status(s2));
        cudaGraph_t g = nullptr;
        cudaError_t r = cudaStreamEndCapture(s, &g);
        printf("%s: end=%s graph=%s after s=%s s2=%s\n", name, err_name(r), g ? "set" : "NULL", status(s), status(s2));
        if (g) { topo(name, g); cudaGraphDestroy(g); }
        cudaGetLastError();
        // Leftover s2 capture? try launching on it.
        k<<<1, 1, 0, s2>>>(nullptr);
        printf("  s2 launch after end: %s\n", err_name(cudaGetLastError()));
        cudaDeviceSynchronize();
        cudaGetLastError();
    }
    // End from the forked stream.
    begin_fork(s, e1);
    cudaStreamWaitEvent(s2, e1, 0);
    {
        cudaGraph_t g = nullptr;
        e = cudaStreamEndCapture(s2, &g);
        printf("end from forked stream: %s graph=%s s=%s s2=%s\n", err_name(e), g ? "set" : "NULL", status(s), status(s2));
        cudaGetLastError();
        end_capture("end origin after end from forked", s);
        printf("  s2 after: %s\n", status(s2));
    }
    // Diamond and serialised joins.
    for (int v = 0; v < 3; v++) {
        cudaStream_t br[3] = {s, s2, s3};
        cudaStream_t b3[3] = {s2, s3, u};
        (void)br;
        begin_fork(s, e1);
        for (int i = 0; i < 3; i++) {
            cudaStreamWaitEvent(b3[i], e1, 0);
            k<<<1, 1, 0, b3[i]>>>(nullptr);
        }
        if (v == 0) { // proper join: one event per branch
            cudaEvent_t je[3] = {e2, e3, ej};
            for (int i = 0; i < 3; i++) { cudaEventRecord(je[i], b3[i]); cudaStreamWaitEvent(s, je[i], 0); }
        } else if (v == 1) { // serialised: shared event recorded and waited in turn
            for (int i = 0; i < 3; i++) { cudaEventRecord(ej, b3[i]); cudaStreamWaitEvent(s, ej, 0); }
        } else { // shared event recorded by all, waited once
            for (int i = 0; i < 3; i++) cudaEventRecord(ej, b3[i]);
            cudaStreamWaitEvent(s, ej, 0);
        }
        k<<<1, 1, 0, s>>>(nullptr);
        cudaGraph_t g = nullptr;
        e = cudaStreamEndCapture(s, &g);
        char name[64];
        snprintf(name, sizeof name, "diamond v%d end=%s", v, err_name(e));
        if (g) { topo(name, g); cudaGraphDestroy(g); } else printf("%s: no graph\n", name);
        cudaGetLastError();
        cudaDeviceSynchronize();
        cudaGetLastError();
    }
    // Serialised join through a chain of branch streams.
    {
        begin_fork(s, e1);
        cudaStreamWaitEvent(s2, e1, 0);
        cudaStreamWaitEvent(s3, e1, 0);
        k<<<1, 1, 0, s2>>>(nullptr);
        k<<<1, 1, 0, s3>>>(nullptr);
        cudaEventRecord(ej, s2);
        cudaStreamWaitEvent(s3, ej, 0);
        cudaEventRecord(ej, s3);
        cudaStreamWaitEvent(s, ej, 0);
        k<<<1, 1, 0, s>>>(nullptr);
        cudaGraph_t g = nullptr;
        e = cudaStreamEndCapture(s, &g);
        if (g) { topo("chain join", g); cudaGraphDestroy(g); } else printf("chain join: end=%s\n", err_name(e));
        cudaGetLastError();
    }
    // Merge and isolation.
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed);
    k<<<1, 1, 0, s>>>(nullptr);
    k<<<1, 1, 0, s2>>>(nullptr);
    cudaEventRecord(e2, s2);
    e = cudaStreamWaitEvent(s, e2, 0);
    printf("merge wait: %s s=%s s2=%s\n", err_name(e), status(s), status(s2));
    cudaGetLastError();
    end_capture("merge s", s);
    end_capture("merge s2", s2);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed);
    k<<<1, 1, 0, s>>>(nullptr);
    k<<<1, 1, 0, s2>>>(nullptr);
    cudaEventRecord(e1, s);
    cudaEventRecord(e2, s2);
    printf("merge via third: wait1=%s", err_name(cudaStreamWaitEvent(u, e1, 0)));
    e = cudaStreamWaitEvent(u, e2, 0);
    printf(" wait2=%s s=%s s2=%s u=%s\n", err_name(e), status(s), status(s2), status(u));
    cudaGetLastError();
    {
        cudaGraph_t g = nullptr;
        cudaError_t r = cudaStreamEndCapture(s, &g);
        printf("merge via third end s: %s u=%s\n", err_name(r), status(u));
        if (g) cudaGraphDestroy(g);
        cudaGetLastError();
    }
    end_capture("merge via third s2", s2);
    printf("  u after: %s\n", status(u));
    cudaDeviceSynchronize(); cudaGetLastError();

    k<<<1, 1, 0, u>>>(nullptr);
    cudaEventRecord(e3, u);
    wait_in_capture(s, e3, "isolation (wait on uncaptured record)", "isolation");
    cudaDeviceSynchronize();
    cudaEvent_t fresh;
    cudaEventCreate(&fresh);
    wait_in_capture(s, fresh, "wait on never-recorded event in capture", "never recorded");
    cudaDeviceSynchronize();
    // Event recorded in capture, after the capture ends.
    begin_and_record(s, cudaStreamCaptureModeRelaxed, e1);
    printf("record in capture: query=%s", err_name(cudaEventQuery(e1)));
    cudaGetLastError();
    printf(" sync=%s", err_name(cudaEventSynchronize(e1)));
    cudaGetLastError();
    printf(" status=%s\n", status(s));
    end_capture("record in capture", s);
    printf("after end: query=%s", err_name(cudaEventQuery(e1)));
    cudaGetLastError();
    printf(" sync=%s", err_name(cudaEventSynchronize(e1)));
    cudaGetLastError();
    printf(" wait=%s", err_name(cudaStreamWaitEvent(u, e1, 0)));
    cudaGetLastError();
    { float ms; printf(" elapsed=%s\n", err_name(cudaEventElapsedTime(&ms, e1, e1))); }
    cudaGetLastError();
    begin_and_record(s, cudaStreamCaptureModeRelaxed, e1);
    end_capture("record in capture 2", s);
    cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed);
    e = cudaStreamWaitEvent(s2, e1, 0);
    printf("wait in new capture on event of ended capture: %s status=%s\n", err_name(e), status(s2));
    cudaGetLastError();
    end_capture("wait ended", s2);

    // Invalidated capture: later work, getinfo, new capture.
    begin_and_record(s, cudaStreamCaptureModeRelaxed, e1);
    cudaStreamWaitEvent(s2, e1, 0);
    e = cudaStreamSynchronize(s);
    printf("invalidate by sync: %s status=%s s2=%s\n", err_name(e), status(s), status(s2));
    cudaGetLastError();
    k<<<1, 1, 0, s>>>(nullptr);
    printf("  launch after invalidation: %s\n", err_name(cudaGetLastError()));
    k<<<1, 1, 0, s2>>>(nullptr);
    printf("  launch on forked after invalidation: %s\n", err_name(cudaGetLastError()));
    printf("  record after invalidation: %s\n", err_name(cudaEventRecord(e2, s)));
    cudaGetLastError();
    printf("  wait after invalidation: %s\n", err_name(cudaStreamWaitEvent(s, e3, 0)));
    cudaGetLastError();
    {
        cudaStreamCaptureStatus st; unsigned long long id = 0; cudaGraph_t g = nullptr; const cudaGraphNode_t *d = nullptr; size_t nd = 99;
        e = getinfo(s, &st, &id, &g, &d, &nd);
        printf("  getinfo invalidated: %s st=%s id=%llu graph=%s nd=%zu\n", err_name(e), sn(st), id, g ? "set" : "NULL", nd);
        cudaGetLastError();
    }
    printf("  memcpyasync after invalidation: %s\n", err_name(cudaMemcpyAsync(dbuf, dbuf + 4, 4, cudaMemcpyDeviceToDevice, s)));
    cudaGetLastError();
    end_capture("invalidated", s);
    printf("  s2 after end: %s\n", status(s2));
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    k<<<1, 1, 0, s>>>(nullptr);
    end_capture("new capture after invalidation", s);

    // GetCaptureInfo and update dependencies.
    {
        cudaStreamCaptureStatus st; unsigned long long id1 = 0, id2 = 0; cudaGraph_t g = nullptr; const cudaGraphNode_t *d = nullptr; size_t nd = 99;
        e = getinfo(s, &st, &id1, &g, &d, &nd);
        printf("getinfo not capturing: %s st=%s id=%llu nd=%zu\n", err_name(e), sn(st), id1, nd);
        cudaGetLastError();
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        getinfo(s, &st, &id1, &g, &d, &nd);
        printf("getinfo after begin: st=%s nd=%zu\n", sn(st), nd);
        k<<<1, 1, 0, s>>>(nullptr);
        k<<<1, 1, 0, s>>>(nullptr);
        getinfo(s, &st, &id1, &g, &d, &nd);
        printf("getinfo after 2 kernels: nd=%zu\n", nd);
        cudaEventRecord(e1, s);
        cudaStreamWaitEvent(s2, e1, 0);
        getinfo(s2, &st, &id2, &g, &d, &nd);
        printf("getinfo forked: id same=%d nd=%zu\n", id1 == id2, nd);
        k<<<1, 1, 0, s2>>>(nullptr);
        cudaEventRecord(e2, s2);
        cudaStreamWaitEvent(s, e2, 0);
        getinfo(s, &st, &id1, &g, &d, &nd);
        printf("getinfo after join: nd=%zu\n", nd);
        e = getinfo(s, &st, nullptr, nullptr, nullptr, nullptr);
        printf("getinfo all-null optional: %s\n", err_name(e));
        cudaGetLastError();
        e = getinfo(s, nullptr, nullptr, nullptr, nullptr, nullptr);
        printf("getinfo null status: %s\n", err_name(e));
        cudaGetLastError();
        e = getinfo(s, &st, nullptr, nullptr, &d, nullptr);
        printf("getinfo deps without count: %s\n", err_name(e));
        cudaGetLastError();
        // update: set to empty, add a kernel (new root)
        e = cuda_update_deps(s, nullptr, 0, cudaStreamSetCaptureDependencies);
        printf("update set empty: %s\n", err_name(e));
        k<<<1, 1, 0, s>>>(nullptr);
        getinfo(s, &st, &id1, &g, &d, &nd);
        cudaGraphNode_t keep = d[0];
        size_t n0 = node_count(g);
        printf("getinfo after set-empty + kernel: nd=%zu nodes=%zu\n", nd, n0);
        // add the first node of the graph
        cudaGraphNode_t all[16]; size_t na = 16; cudaGraphGetNodes(g, all, &na);
        e = cuda_update_deps(s, &all[0], 1, cudaStreamAddCaptureDependencies);
        getinfo(s, &st, &id1, &g, &d, &nd);
        printf("update add: %s nd=%zu\n", err_name(e), nd);
        e = cuda_update_deps(s, &all[0], 1, cudaStreamAddCaptureDependencies);
        getinfo(s, &st, &id1, &g, &d, &nd);
        printf("update add duplicate: %s nd=%zu\n", err_name(e), nd);
        cudaGetLastError();
        e = cuda_update_deps(s, &keep, 1, 7);
        printf("update bad flags: %s status=%s\n", err_name(e), status(s));
        cudaGetLastError();
        cudaGraph_t other; cudaGraphCreate(&other, 0);
        cudaGraphNode_t on; cudaGraphAddEmptyNode(&on, other, nullptr, 0);
        e = cuda_update_deps(s, &on, 1, cudaStreamAddCaptureDependencies);
        printf("update foreign node: %s status=%s\n", err_name(e), status(s));
        cudaGetLastError();
        end_capture("update deps", s);
        e = cuda_update_deps(s, &on, 1, cudaStreamAddCaptureDependencies);
        printf("update not capturing: %s\n", err_name(e));
        cudaGetLastError();
        // capture to graph
        cudaGraphNode_t n2; cudaGraphAddEmptyNode(&n2, other, &on, 1);
#if CUDART_VERSION >= 13000
        e = cudaStreamBeginCaptureToGraph(s, other, &on, nullptr, 1, cudaStreamCaptureModeGlobal);
#else
        e = cudaStreamBeginCaptureToGraph(s, other, &on, nullptr, 1, cudaStreamCaptureModeGlobal);
#endif
        k<<<1, 1, 0, s>>>(nullptr);
        cudaGraph_t got = nullptr;
        cudaError_t r = cudaStreamEndCapture(s, &got);
        printf("capture to graph: begin=%s end=%s same graph=%d\n", err_name(e), err_name(r), got == other);
        topo("capture to graph", other);
        // capture to graph, invalidated: what happens to the graph?
        cudaStreamBeginCaptureToGraph(s, other, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed);
        k<<<1, 1, 0, s>>>(nullptr);
        cudaStreamSynchronize(s);
        cudaGetLastError();
        got = nullptr;
        r = cudaStreamEndCapture(s, &got);
        printf("capture to graph invalidated: end=%s got=%s nodes now=%zu\n", err_name(r), got ? "set" : "NULL", node_count(other));
        cudaGetLastError();
        cudaGraphDestroy(other);
    }
    // WrongThread / ending from another thread.
    for (int m = 0; m < 3; m++) {
        cudaStreamBeginCapture(s, modes[m]);
        k<<<1, 1, 0, s>>>(nullptr);
        cudaError_t r; cudaGraph_t g = nullptr;
        std::thread t([&] { r = cudaStreamEndCapture(s, &g); cudaGetLastError(); });
        t.join();
        printf("end from other thread mode=%s: %s graph=%s status=%s\n", mn(modes[m]), err_name(r), g ? "set" : "NULL", status(s));
        if (g) cudaGraphDestroy(g);
        else end_capture("  end from own thread", s);
    }
    // Graph launch inside capture.
    {
        cudaGraph_t g; cudaGraphCreate(&g, 0);
        cudaGraphNode_t n; cudaGraphAddEmptyNode(&n, g, nullptr, 0);
        cudaGraphExec_t ex; cudaGraphInstantiate(&ex, g, 0);
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        k<<<1, 1, 0, s>>>(nullptr);
        e = cudaGraphLaunch(ex, s);
        printf("graph launch in capture: %s status=%s\n", err_name(e), status(s));
        cudaGetLastError();
        cudaGraph_t out = nullptr;
        e = cudaStreamEndCapture(s, &out);
        printf("graph launch end: %s\n", err_name(e));
        if (out) { topo("graph launch captured", out); cudaGraphDestroy(out); }
        cudaGetLastError();
    }
    // Destroying a capturing stream; host func, memcpy, memset nodes.
    {
        cudaStream_t t; cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
        cudaStreamBeginCapture(t, cudaStreamCaptureModeRelaxed);
        e = cudaStreamDestroy(t);
        printf("destroy capturing stream: %s\n", err_name(e));
        cudaGetLastError();
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        cudaMemcpyAsync(dbuf, dbuf + 4, 4, cudaMemcpyDeviceToDevice, s);
        cudaMemsetAsync(dbuf, 0, 4, s);
        cudaMemcpyAsync(dbuf, hbuf, 4, cudaMemcpyHostToDevice, s);
        cudaGraph_t out = nullptr;
        e = cudaStreamEndCapture(s, &out);
        printf("copies captured: %s\n", err_name(e));
        if (out) { topo("copies", out); cudaGraphDestroy(out); }
        cudaGetLastError();
        // same stream waits its own event in capture
        begin_fork(s, e1);
        e = cudaStreamWaitEvent(s, e1, 0);
        k<<<1, 1, 0, s>>>(nullptr);
        out = nullptr;
        cudaError_t r = cudaStreamEndCapture(s, &out);
        printf("self wait: %s end=%s\n", err_name(e), err_name(r));
        if (out) { topo("self wait", out); cudaGraphDestroy(out); }
        cudaGetLastError();
        // event recorded in capture A; after A ends, non-capturing wait
        // on stream that then captures?
        // Another thread's Global capture: is this thread's unsafe call invalidating it?
    }
    // Two threads both in Global capture; thread B calls cudaMalloc.
    {
        cudaStream_t a, b; cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking); cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
        cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal);
        k<<<1, 1, 0, a>>>(nullptr);
        cudaError_t r; const char *sb_ = nullptr; char stb[64];
        std::thread t([&] {
            cudaStreamBeginCapture(b, cudaStreamCaptureModeRelaxed);
            void *p; r = cudaMalloc(&p, 64);
            if (!r) cudaFree(p);
            cudaGetLastError();
            snprintf(stb, 64, "%s", status(b));
            sb_ = stb;
            cudaGraph_t g = nullptr; cudaStreamEndCapture(b, &g); if (g) cudaGraphDestroy(g);
            cudaGetLastError();
        });
        t.join();
        printf("other thread relaxed capture + malloc while Global capture here: %s b=%s a=%s\n", err_name(r), sb_, status(a));
        end_capture("  a", a);
    }
    printf("done\n");
    return 0;
}
