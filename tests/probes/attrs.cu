// attrs.cu - probes kernel node attributes (priority, cooperative, cluster
// dimensions, copy, exec report_update), stream priorities, stream ids/devices and
// attributes, and external event record/wait in and out of stream capture.
// Build: nvcc -arch=sm_90 -o attrs attrs.cu -lcuda
#include "probe.h"

static int *dmem;
static cudaStream_t st;

static int getprio(cudaGraphNode_t n)
{
    cudaLaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    v.priority = -777;
    cudaError_t e = cudaGraphKernelNodeGetAttribute(n, cudaLaunchAttributePriority, &v);
    cudaGetLastError();
    return e ? -9999 : v.priority;
}
// Ends the capture of one kernel on s and notes, under name, the
// priority attribute of the node the capture made.
static void end_capture_note_priority(cudaStream_t s, const char *name)
{
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(s, &g);
    if (g) {
        cudaGraphNode_t n;
        size_t nn = 1;
        cudaGraphGetNodes(g, &n, &nn);
        note(name, "%d", getprio(n));
        cudaGraphDestroy(g);
    }
}

static void report_update(const char *name, cudaGraphExec_t ex, cudaGraph_t g)
{
    cudaGraphExecUpdateResultInfo ri;
    memset(&ri, 0, sizeof ri);
    report(name, cudaGraphExecUpdate(ex, g, &ri), "result=%d", (int)ri.result);
}

int main()
{
    probe_start(&st, &dmem);
    // ---- kernel node attributes: which ids a fresh node answers, and their values
    {
        cudaGraph_t g;
        cudaGraphCreate(&g, 0);
        cudaGraphNode_t k = add_inc_node(g, &dmem);
        for (int id = 0; id <= 20; id++) {
            cudaLaunchAttributeValue v;
            memset(&v, 0, sizeof v);
            char nm[64];
            snprintf(nm, sizeof nm, "kattr-get-fresh-id%d", id);
            cudaError_t e = cudaGraphKernelNodeGetAttribute(k, (cudaLaunchAttributeID)id, &v);
            report(nm, e, "words=%d,%d,%d,%d", ((int *)&v)[0], ((int *)&v)[1], ((int *)&v)[2],
                   ((int *)&v)[3]);
        }
        cudaLaunchAttributeValue v;
        memset(&v, 0, sizeof v);
        v.priority = 3;
        report("kattr-set-priority3", cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributePriority, &v),
               "get=%d", getprio(k));
        v.priority = -100;
        report("kattr-set-priority-100", cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributePriority, &v),
               "get=%d", getprio(k));
        v.priority = 100;
        report("kattr-set-priority+100", cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributePriority, &v),
               "get=%d", getprio(k));
        memset(&v, 0, sizeof v);
        v.cooperative = 1;
        R("kattr-set-cooperative1", cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeCooperative, &v));
        v.cooperative = 5;
        R("kattr-set-cooperative5", cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeCooperative, &v));
        memset(&v, 0xff, sizeof v);
        report("kattr-get-cooperative",
               cudaGraphKernelNodeGetAttribute(k, cudaLaunchAttributeCooperative, &v), "value=%d",
               v.cooperative);
        memset(&v, 0, sizeof v);
        v.syncPolicy = cudaSyncPolicySpin;
        R("kattr-set-syncpolicy",
          cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeSynchronizationPolicy, &v));
        v.programmaticStreamSerializationAllowed = 1;
        R("kattr-set-progserialization",
          cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeProgrammaticStreamSerialization, &v));
        memset(&v, 0, sizeof v);
        R("kattr-set-id99", cudaGraphKernelNodeSetAttribute(k, (cudaLaunchAttributeID)99, &v));
        // a NULL value pointer crashes CUDA 13.0 (segfault): not probed
        // cluster dims: grid 2 with cluster 2; grid 3 with cluster 2
        cudaGraphNode_t k2 = add_inc_node(g, &dmem, 2), k3 = add_inc_node(g, &dmem, 3);
        memset(&v, 0, sizeof v);
        v.clusterDim.x = 2;
        v.clusterDim.y = 1;
        v.clusterDim.z = 1;
        R("kattr-set-cluster2-grid2",
          cudaGraphKernelNodeSetAttribute(k2, cudaLaunchAttributeClusterDimension, &v));
        R("kattr-set-cluster2-grid3",
          cudaGraphKernelNodeSetAttribute(k3, cudaLaunchAttributeClusterDimension, &v));
        memset(&v, 0, sizeof v);
        report("kattr-get-cluster-grid3",
               cudaGraphKernelNodeGetAttribute(k3, cudaLaunchAttributeClusterDimension, &v), "x=%u y=%u z=%u",
               v.clusterDim.x, v.clusterDim.y, v.clusterDim.z);
        cudaGraphExec_t ex;
        R("kattr-instantiate-cluster2-grid3-coop", cudaGraphInstantiate(&ex, g, 0));
        // copy attributes
        cudaGraphNode_t d = add_inc_node(g, &dmem);
        R("kattr-copy-kernel-to-kernel", cudaGraphKernelNodeCopyAttributes(d, k));
        report("kattr-copy-priority-after", cudaSuccess, "dst-priority=%d", getprio(d));
        memset(&v, 0, sizeof v);
        cudaGraphKernelNodeGetAttribute(d, cudaLaunchAttributeCooperative, &v);
        note("kattr-copy-cooperative-after", "%d", v.cooperative);
        cudaGraphNode_t e;
        cudaGraphAddEmptyNode(&e, g, nullptr, 0);
        R("kattr-copy-to-empty", cudaGraphKernelNodeCopyAttributes(e, k));
        R("kattr-copy-from-empty", cudaGraphKernelNodeCopyAttributes(d, e));
        R("kattr-get-on-empty", cudaGraphKernelNodeGetAttribute(e, cudaLaunchAttributePriority, &v));
        cudaGraph_t g2;
        cudaGraphCreate(&g2, 0);
        cudaGraphNode_t o = add_inc_node(g2, &dmem);
        R("kattr-copy-across-graphs", cudaGraphKernelNodeCopyAttributes(o, k));
        cudaGraphDestroy(g2);
        // clone keeps attributes?
        cudaGraph_t cl;
        cudaGraphClone(&cl, g);
        cudaGraphNode_t kc;
        cudaGraphNodeFindInClone(&kc, k, cl);
        note("kattr-clone-priority", "%d", getprio(kc));
        cudaGraphDestroy(cl);
        cudaGraphDestroy(g);
    }
    // ---- exec update when only an attribute differs
    {
        auto mkg = [](int attr, cudaGraph_t *g) {
            cudaGraphCreate(g, 0);
            cudaGraphNode_t k = add_inc_node(*g, &dmem, 2);
            cudaLaunchAttributeValue v;
            memset(&v, 0, sizeof v);
            if (attr == 1) {
                v.priority = 1;
                cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributePriority, &v);
            } else if (attr == 2) {
                v.cooperative = 1;
                cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeCooperative, &v);
            } else if (attr == 3) {
                v.clusterDim.x = 2;
                v.clusterDim.y = 1;
                v.clusterDim.z = 1;
                cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeClusterDimension, &v);
            } else if (attr == 4) {
                v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
                cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeMemSyncDomain, &v);
            }
            return k;
        };
        const char *names[] = {"none", "priority", "cooperative", "cluster", "memsyncdomain"};
        for (int base = 0; base <= 4; base += 4) {
            for (int a = 0; a <= 4; a++) {
                cudaGraph_t g0, g1;
                mkg(0, &g0);
                mkg(a, &g1);
                cudaGraphExec_t ex;
                if (cudaGraphInstantiate(&ex, base ? g1 : g0, 0)) {
                    note("kattr-update", "instantiate failed");
                    continue;
                }
                char nm[96];
                if (base == 0)
                    snprintf(nm, sizeof nm, "kattr-update-none-to-%s", names[a]);
                else
                    snprintf(nm, sizeof nm, "kattr-update-%s-to-none", names[a]);
                report_update(nm, ex, base ? g0 : g1);
                cudaGraphExecDestroy(ex);
                cudaGraphDestroy(g0);
                cudaGraphDestroy(g1);
            }
        }
        // exec kernel setparams keeps attributes; exec update priority 1 -> 2
        cudaGraph_t g1, g2;
        cudaGraphNode_t k1 = mkg(1, &g1);
        cudaGraphNode_t k2 = mkg(1, &g2);
        cudaLaunchAttributeValue v;
        memset(&v, 0, sizeof v);
        v.priority = 2;
        cudaGraphKernelNodeSetAttribute(k2, cudaLaunchAttributePriority, &v);
        (void)k1;
        cudaGraphExec_t ex;
        cudaGraphInstantiate(&ex, g1, 0);
        report_update("kattr-update-priority1-to-priority2", ex, g2);
        cudaGraphExecDestroy(ex);
        cudaGraphDestroy(g1);
        cudaGraphDestroy(g2);
    }
    // ---- stream priorities
    {
        int lo = 99, hi = 99;
        report("device-stream-priority-range", cudaDeviceGetStreamPriorityRange(&lo, &hi),
               "least=%d greatest=%d", lo, hi);
        int vals[] = {0, -1, -5, -6, 1, -100, 100};
        for (int p : vals) {
            cudaStream_t s = nullptr;
            char nm[64];
            snprintf(nm, sizeof nm, "stream-create-priority%d", p);
            cudaError_t e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, p);
            int got = 12345;
            if (!e)
                cudaStreamGetPriority(s, &got);
            report(nm, e, "get=%d", got);
            if (!e) {
                cudaLaunchAttributeValue v;
                memset(&v, 0, sizeof v);
                cudaError_t ae = cudaStreamGetAttribute(s, cudaLaunchAttributePriority, &v);
                note((std::string(nm) + "-attr").c_str(), "%s priority=%d", en(ae), v.priority);
                // captured kernel node priority attribute
                cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
                inc<<<1, 1, 0, s>>>(dmem);
                end_capture_note_priority(s, (std::string(nm) + "-captured-node-priority").c_str());
                cudaStreamDestroy(s);
            }
            cudaGetLastError();
        }
        int p = 777;
        report("stream-getpriority-legacy0", cudaStreamGetPriority(0, &p), "get=%d", p);
        p = 777;
        report("stream-getpriority-perthread", cudaStreamGetPriority(cudaStreamPerThread, &p), "get=%d", p);
        cudaStream_t s;
        report("stream-create-flags-invalid", cudaStreamCreateWithPriority(&s, 0x10, 0));
        // stream attribute set priority
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        cudaLaunchAttributeValue v;
        memset(&v, 0, sizeof v);
        v.priority = -3;
        R("stream-setattr-priority-3", cudaStreamSetAttribute(s, cudaLaunchAttributePriority, &v));
        p = 777;
        cudaStreamGetPriority(s, &p);
        note("stream-setattr-priority-then-getpriority", "%d", p);
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        inc<<<1, 1, 0, s>>>(dmem);
        end_capture_note_priority(s, "stream-setattr-priority-captured-node-priority");
        // kernel launched with a priority launch attribute during capture
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributePriority;
        at[0].val.priority = -4;
        cudaLaunchConfig_t cfg = one_thread_config(s, at, 1);
        R("capture-launchex-priority-4", cudaLaunchKernelEx(&cfg, inc, dmem));
        end_capture_note_priority(s, "capture-launchex-priority-node-priority");
        memset(&v, 0, sizeof v);
        v.syncPolicy = cudaSyncPolicyYield;
        R("stream-setattr-syncpolicy",
          cudaStreamSetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v));
        memset(&v, 0, sizeof v);
        report("stream-getattr-syncpolicy",
               cudaStreamGetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v), "value=%d",
               (int)v.syncPolicy);
        v.cooperative = 1;
        R("stream-setattr-cooperative", cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v));
        R("stream-getattr-cooperative", cudaStreamGetAttribute(s, cudaLaunchAttributeCooperative, &v));
        R("stream-setattr-clusterdim", cudaStreamSetAttribute(s, cudaLaunchAttributeClusterDimension, &v));
        cudaStream_t s2;
        cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, 0);
        R("stream-copyattributes", cudaStreamCopyAttributes(s2, s));
        p = 777;
        cudaStreamGetPriority(s2, &p);
        note("stream-copyattributes-dst-priority", "%d", p);
        memset(&v, 0, sizeof v);
        cudaStreamGetAttribute(s2, cudaLaunchAttributeSynchronizationPolicy, &v);
        note("stream-copyattributes-dst-syncpolicy", "%d", (int)v.syncPolicy);
        R("stream-setattr-legacy-priority", cudaStreamSetAttribute(0, cudaLaunchAttributePriority, &v));
        memset(&v, 0, sizeof v);
        report("stream-getattr-legacy-priority", cudaStreamGetAttribute(0, cudaLaunchAttributePriority, &v),
               "value=%d", v.priority);
        cudaStreamDestroy(s2);
        cudaStreamDestroy(s);
    }
    // ---- stream ids and devices
    {
        cudaStream_t a, b;
        cudaStreamCreate(&a);
        cudaStreamCreate(&b);
        unsigned long long id = 0;
        int dev = -1;
        struct {
            const char *name;
            cudaStream_t s;
        } ss[] = {{"null0", 0},
                  {"legacy", cudaStreamLegacy},
                  {"perthread", cudaStreamPerThread},
                  {"created-a", a},
                  {"created-b", b}};
        for (auto &s : ss) {
            id = 0;
            dev = -1;
            cudaError_t e1 = cudaStreamGetId(s.s, &id);
            cudaGetLastError();
            cudaError_t e2 = cudaStreamGetDevice(s.s, &dev);
            cudaGetLastError();
            note((std::string("stream-id-") + s.name).c_str(), "GetId=%s id=%llu GetDevice=%s dev=%d", en(e1),
                 id, en(e2), dev);
        }
        cudaStream_t c;
        cudaStreamCreate(&c);
        cudaStreamGetId(c, &id);
        note("stream-id-created-c", "%llu", id);
        cudaStreamDestroy(a);
        cudaStream_t d;
        cudaStreamCreate(&d);
        unsigned long long idd = 0;
        cudaStreamGetId(d, &idd);
        note("stream-id-after-destroy-new", "%llu (reused-a=%s)", idd, "compare with created-a");
        // id in capture
        unsigned long long cid = 0;
        cudaStreamBeginCapture(b, cudaStreamCaptureModeRelaxed);
        cudaStreamCaptureStatus cs;
        cudaStreamGetCaptureInfo(b, &cs, &cid, nullptr, nullptr, nullptr, nullptr);
        unsigned long long sid = 0;
        report("stream-getid-while-capturing", cudaStreamGetId(b, &sid), "stream-id=%llu capture-id=%llu",
               sid, cid);
        cudaGraph_t g = nullptr;
        cudaStreamEndCapture(b, &g);
        if (g)
            cudaGraphDestroy(g);
    }
    // ---- external events
    {
        cudaEvent_t ev;
        cudaEventCreate(&ev);
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        R("evrecord-external-outside-capture", cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal));
        R("evrecord-flags0-outside-capture", cudaEventRecordWithFlags(ev, s, 0));
        R("evrecord-flags2-outside-capture", cudaEventRecordWithFlags(ev, s, 2));
        R("evwait-external-outside-capture", cudaStreamWaitEvent(s, ev, cudaEventWaitExternal));
        R("evwait-flags2-outside-capture", cudaStreamWaitEvent(s, ev, 2));
        cudaStreamSynchronize(s);
        // inside capture
        cudaEvent_t ev2;
        cudaEventCreate(&ev2);
        cudaEventRecord(ev2, st);
        cudaStreamSynchronize(st);
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        inc<<<1, 1, 0, s>>>(dmem);
        R("capture-evrecord-external", cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal));
        R("capture-evrecord-flags0", cudaEventRecordWithFlags(ev, s, 0));
        R("capture-evwait-external-of-outside-event", cudaStreamWaitEvent(s, ev2, cudaEventWaitExternal));
        R("capture-evwait-external-of-captured-event", cudaStreamWaitEvent(s, ev, cudaEventWaitExternal));
        R("capture-evrecord-flags2", cudaEventRecordWithFlags(ev, s, 2));
        cudaGraph_t g = nullptr;
        R("capture-external-end", cudaStreamEndCapture(s, &g));
        if (g) {
            list_types("capture-external-node-types", g);
            size_t ne = nedges(g);
            note("capture-external-edges", "%zu", ne);
            cudaGraphExec_t ex;
            if (!report("capture-external-instantiate", cudaGraphInstantiate(&ex, g, 0))) {
                report("capture-external-launch", cudaGraphLaunch(ex, st));
                report("capture-external-sync", cudaStreamSynchronize(st));
                report("capture-external-event-query", cudaEventQuery(ev));
                cudaGraphExecDestroy(ex);
            }
            cudaGraphDestroy(g);
        }
        // non-external wait on an event recorded outside the capture
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        R("capture-evwait-default-of-outside-event", cudaStreamWaitEvent(s, ev2, 0));
        g = nullptr;
        report("capture-evwait-default-of-outside-event-end", cudaStreamEndCapture(s, &g), "nodes=%zu",
               g ? nnodes(g) : 0);
        if (g)
            cudaGraphDestroy(g);
        // external record with an event created with DisableTiming / BlockingSync / Interprocess-less flags
        cudaEvent_t evt;
        cudaEventCreateWithFlags(&evt, cudaEventDisableTiming);
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        R("capture-evrecord-external-disabletiming",
          cudaEventRecordWithFlags(evt, s, cudaEventRecordExternal));
        g = nullptr;
        report("capture-evrecord-external-disabletiming-end", cudaStreamEndCapture(s, &g), "nodes=%zu",
               g ? nnodes(g) : 0);
        if (g)
            cudaGraphDestroy(g);
        // external record on a fresh (empty) capture: no prior node
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        R("capture-evrecord-external-first", cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal));
        R("capture-evwait-external-then", cudaStreamWaitEvent(s, ev2, cudaEventWaitExternal));
        inc<<<1, 1, 0, s>>>(dmem);
        g = nullptr;
        R("capture-external-first-end", cudaStreamEndCapture(s, &g));
        if (g) {
            list_types("capture-external-first-types", g);
            note("capture-external-first-edges", "%zu", nedges(g));
            cudaGraphDestroy(g);
        }
    }
    // ---- NULL outputs (last: a crash here loses nothing else)
    {
        cudaStream_t b;
        cudaStreamCreate(&b);
        R("stream-getid-null-out", cudaStreamGetId(b, nullptr));
        R("stream-getdevice-null-out", cudaStreamGetDevice(b, nullptr));
        R("stream-getpriority-null-out", cudaStreamGetPriority(b, nullptr));
    }
    report("final-device-sync", cudaDeviceSynchronize());
    return 0;
}
