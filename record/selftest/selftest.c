/*
 * selftest.c - runs the recorder's code without a GPU: links recorder.c
 * and walk.c against the stand-in driver and CUPTI of fake_cuda.c, calls
 * InitializeInjection as cuInit would, and plays the callbacks CUPTI would
 * deliver for the seed capture (foo -> copy -> bar) captured, instantiated,
 * launched five times, its input freed (and its address allocated again
 * as pinned memory), launched once more, updated; a second capture that
 * another thread's allocation invalidates; launches from a second thread;
 * the executable destroyed and a new one at the same address; the graph
 * destroyed and a new one captured at the same address, one of its nodes
 * launched through the runtime; a capture that a synchronous memset of
 * another thread invalidates, and one that a call the recorder does not
 * subscribe to invalidates. Calls outside captures (a kernel launch, a
 * stream synchronisation) and calls the recorder does not subscribe to
 * (cuKernelGetName inside a captured launch) are played too: the stand-in
 * CUPTI delivers only what the recorder enabled, as CUPTI does.
 * The recorder's helper thread walks the graph through the stand-in query
 * calls. On exit the log is in $GRAPHRT_RECORD_DIR; tests/test-record.c
 * converts it and checks what the report says. The selftest exits with 3
 * if the recorder switched a whole domain on or off after its start.
 *
 * usage: GRAPHRT_RECORD_DIR=DIR [RECORD_SELFTEST_LAUNCHES=N] graphrt_record_selftest
 */
#include "fake_cuda.h"
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int InitializeInjection(void);

static void api(CUpti_CallbackId id, const char *name, void *params, CUresult rc)
{
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = name;
    cb.functionParams = params;
    cb.functionReturnValue = &rc;
    cb.callbackSite = CUPTI_API_ENTER;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, id, &cb);
    cb.callbackSite = CUPTI_API_EXIT;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, id, &cb);
}

static void resource(CUpti_CallbackId id, CUgraphNode node, CUgraphExec exec)
{
    CUpti_GraphData gd;
    memset(&gd, 0, sizeof gd);
    gd.graph = (CUgraph)&fake_graph_word;
    gd.node = node;
    gd.graphExec = exec;
    gd.nodeType = node == (CUgraphNode)&fake_node[1] ? CU_GRAPH_NODE_TYPE_MEMCPY : CU_GRAPH_NODE_TYPE_KERNEL;
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.resourceDescriptor = &gd;
    fake_dispatch(CUPTI_CB_DOMAIN_RESOURCE, id, &rd);
}

static void runtime_site(CUpti_CallbackId id, const char *name, void *params, int rc,
                         CUpti_ApiCallbackSite where)
{
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = name;
    cb.functionParams = params;
    cb.functionReturnValue = &rc;
    cb.callbackSite = where;
    fake_dispatch(CUPTI_CB_DOMAIN_RUNTIME_API, id, &cb);
}

/* A node created inside a launch call on a stream: the resource callback
 * comes between the call's enter and exit; the runtime makes
 * cuKernelGetName first (no callback: not subscribed to). With
 * 'runtime', the driver calls are inside cudaLaunchKernel. */
static void captured_node(int i, CUstream s, int runtime)
{
    cudaLaunchKernel_v7000_params rl;
    memset(&rl, 0, sizeof rl);
    rl.stream = (cudaStream_t)s;
    if (runtime)
        runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", &rl, 0,
                     CUPTI_API_ENTER);
    const char *name = NULL;
    cuKernelGetName_params kn = {&name, NULL};
    api(CUPTI_DRIVER_TRACE_CBID_cuKernelGetName, "cuKernelGetName", &kn, CUDA_SUCCESS);
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    lk.hStream = s;
    CUresult rc = CUDA_SUCCESS;
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = "cuLaunchKernel";
    cb.functionParams = &lk;
    cb.functionReturnValue = &rc;
    cb.callbackSite = CUPTI_API_ENTER;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    if (i >= 0)
        resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraphNode)&fake_node[i], NULL);
    cb.callbackSite = CUPTI_API_EXIT;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    if (runtime)
        runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", &rl, 0,
                     CUPTI_API_EXIT);
}

/* A second thread's allocation, refused because of a capture in global
 * mode on the first thread. */
static void *second_thread(void *arg)
{
    (void)arg;
    CUdeviceptr p = 0;
    cuMemAlloc_v2_params m = {&p, 64};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &m, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    return NULL;
}

/* A second thread's cudaMemset on the legacy stream, refused because of
 * a capture in global mode on the first thread (its driver call too). */
static void *memset_thread(void *arg)
{
    (void)arg;
    cudaMemset_v3020_params rm = {(void *)(uintptr_t)fake_b, 0, 64};
    runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, "cudaMemset", &rm, 906, CUPTI_API_ENTER);
    cuMemsetD8_v2_params dm = {fake_b, 0, 64};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, "cuMemsetD8_v2", &dm, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, "cudaMemset", &rm, 906, CUPTI_API_EXIT);
    return NULL;
}

/* A second thread launches the executable three times (its own launch
 * counts). */
static void *launcher_thread(void *arg)
{
    cuGraphLaunch_params *gl = arg;
    for (int i = 0; i < 3; i++)
        api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", gl, CUDA_SUCCESS);
    return NULL;
}

/* cuGraphInstantiateWithFlags of g into *x, with the nodes the driver
 * makes for its own copy inside the call. */
static void instantiate(CUgraphExec *x, CUgraph g)
{
    cuGraphInstantiateWithFlags_params gi = {x, g, 0};
    CUresult ok = CUDA_SUCCESS;
    CUpti_CallbackData ic;
    memset(&ic, 0, sizeof ic);
    ic.functionName = "cuGraphInstantiateWithFlags";
    ic.functionParams = &gi;
    ic.functionReturnValue = &ok;
    ic.callbackSite = CUPTI_API_ENTER;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &ic);
    /* The driver builds its own copy of the graph first (CUDA 13.0 on an
     * H100 creates nodes of new graphs here): no change to the graph. */
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraphNode)&fake_node[2], NULL);
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, NULL, *x);
    ic.callbackSite = CUPTI_API_EXIT;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &ic);
}

static void clear_enabled(void)
{
    cuptiEnableDomain(0, NULL, CUPTI_CB_DOMAIN_DRIVER_API);
    cuptiEnableDomain(0, NULL, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(0, NULL, CUPTI_CB_DOMAIN_RESOURCE);
}

/* GRAPHRT_RECORD_LEAVE_OUT's groups: what rec_calls_enable leaves off,
 * checked on the stand-in's tables, which are then cleared for the run. */
static int leave_out_works(void)
{
    int ok = 1;
    rec_calls_enable(NULL, "launches,runtime");
    ok &= !fake_enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
    ok &= !fake_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000);
    ok &= fake_enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags);
    ok &= fake_enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    ok &= fake_enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
    clear_enabled();
    rec_calls_enable(NULL, "nodes,capture");
    ok &= fake_enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
    ok &= !fake_enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    ok &= !fake_enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
    ok &= fake_enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPH_CREATED);
    clear_enabled();
    memset(rec_drv_kind, 0, sizeof rec_drv_kind);
    return ok;
}

int main(void)
{
    if (!leave_out_works()) {
        fprintf(stderr, "selftest: GRAPHRT_RECORD_LEAVE_OUT's groups are not left out as named\n");
        return 1;
    }
    if (!InitializeInjection() || !fake_callback) {
        fprintf(stderr, "selftest: InitializeInjection failed\n");
        return 1;
    }
    /* What the driver sends from cuInit: resource callbacks that carry no
     * data, or data that is not a CUpti_GraphData. */
    fake_dispatch(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CU_INIT_FINISHED, NULL);
    CUpti_ResourceData ctx_rd;
    memset(&ctx_rd, 0, sizeof ctx_rd);
    fake_dispatch(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &ctx_rd);
    fake_dispatch(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPH_CREATED, &ctx_rd);
    CUstream s = (CUstream)(uintptr_t)0x5000;
    CUdeviceptr a = fake_a, b = fake_b;
    cuMemAlloc_v2_params ma = {&a, 4096}, mb = {&b, 4096};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &ma, CUDA_SUCCESS);
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &mb, CUDA_SUCCESS);
    /* Outside any capture: a kernel launched through the runtime and a
     * stream synchronised. Their callbacks come (they are subscribed to
     * for captures) and return at once: the profile counts them as idle. */
    captured_node(-1, s, 1);
    cudaStreamSynchronize_v3020_params ss = {(cudaStream_t)s};
    runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", &ss, 0,
                 CUPTI_API_ENTER);
    cuStreamSynchronize_params ds = {s};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", &ds, CUDA_SUCCESS);
    runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", &ss, 0,
                 CUPTI_API_EXIT);

    cuStreamBeginCapture_v2_params bc = {s, CU_STREAM_CAPTURE_MODE_GLOBAL};
    resource(CUPTI_CBID_RESOURCE_GRAPH_CREATED, NULL, NULL);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &bc, CUDA_SUCCESS);
    for (int i = 0; i < 3; i++)
        captured_node(i, s, 0);
    CUgraph g = (CUgraph)&fake_graph_word;
    cuStreamEndCapture_params ec = {s, &g};
    cudaStreamEndCapture_v10000_params rec = {(cudaStream_t)s, (cudaGraph_t *)&g};
    runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture", &rec, 0,
                 CUPTI_API_ENTER);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec, CUDA_SUCCESS);
    runtime_site(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture", &rec, 0,
                 CUPTI_API_EXIT);

    CUgraphExec x = (CUgraphExec)&fake_exec_word;
    instantiate(&x, g);
    /* The first walk reads the graph before the free below, as a program
     * that did some work first would see it (walks are asynchronous). */
    rec_walk_drain();
    cuGraphLaunch_params gl = {x, s};
    for (int i = 0; i < 5; i++)
        api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &gl, CUDA_SUCCESS);
    cuMemFree_v2_params fa = {a};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", &fa, CUDA_SUCCESS);
    /* Its address comes back as pinned memory: a walk after this must say
     * so (the stand-in driver would still say device memory). */
    void *again = (void *)(uintptr_t)fake_a;
    cuMemAllocHost_v2_params mh = {&again, 4096};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, "cuMemAllocHost_v2", &mh, CUDA_SUCCESS);
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &gl, CUDA_SUCCESS);

    /* An update from the unchanged graph is answered from its last walk; a
     * node setter in between makes the next one walk the graph again. */
    CUgraphExecUpdateResultInfo ri;
    memset(&ri, 0, sizeof ri);
    cuGraphExecUpdate_v2_params up = {x, g, &ri};
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2, "cuGraphExecUpdate_v2", &up, CUDA_SUCCESS);
    cuGraphKernelNodeSetParams_v2_params kp;
    memset(&kp, 0, sizeof kp);
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams_v2, "cuGraphKernelNodeSetParams_v2", &kp,
        CUDA_SUCCESS);
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2, "cuGraphExecUpdate_v2", &up, CUDA_SUCCESS);

    /* A second capture, invalidated from another thread. */
    CUstream s2 = (CUstream)(uintptr_t)0x6000;
    cuStreamBeginCapture_v2_params bc2 = {s2, CU_STREAM_CAPTURE_MODE_GLOBAL};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &bc2, CUDA_SUCCESS);
    pthread_t t;
    pthread_create(&t, NULL, second_thread, NULL);
    pthread_join(t, NULL);
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    lk.hStream = s2;
    api(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* A graph launched into the invalidated capture: refused too, and not
     * counted as a launch. */
    cuGraphLaunch_params gl2 = {x, s2};
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &gl2, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    CUgraph none = NULL;
    cuStreamEndCapture_params ec2 = {s2, &none};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec2,
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    /* Three launches from another thread, counted apart from this one's. */
    pthread_create(&t, NULL, launcher_thread, &gl);
    pthread_join(t, NULL);

    /* A new executable at the destroyed one's address: CUPTI gives it id
     * 2, and its launches are its own. */
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, x);
    fake_exec_id = 2;
    instantiate(&x, g);
    /* Two launches, or RECORD_SELFTEST_LAUNCHES. */
    const char *nl = getenv("RECORD_SELFTEST_LAUNCHES");
    int launches = nl && *nl ? atoi(nl) : 2;
    for (int i = 0; i < launches; i++)
        api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &gl, CUDA_SUCCESS);
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, x);
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL); /* waits for the walks */

    /* A new graph at the destroyed one's address: CUPTI gives it id 2. */
    fake_graph_id = 2;
    CUstream s3 = (CUstream)(uintptr_t)0x7000;
    cuStreamBeginCapture_v2_params bc3 = {s3, CU_STREAM_CAPTURE_MODE_GLOBAL};
    resource(CUPTI_CBID_RESOURCE_GRAPH_CREATED, NULL, NULL);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &bc3, CUDA_SUCCESS);
    for (int i = 0; i < 3; i++)
        captured_node(i, s3, i == 2);
    cuStreamEndCapture_params ec3 = {s3, &g};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec3, CUDA_SUCCESS);
    rec_walk_drain();
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL);

    /* A capture that another thread's synchronous memset invalidates (a
     * call of the capture list, as in record/clients/capture_invalidated.cu). */
    CUstream s4 = (CUstream)(uintptr_t)0x8000;
    cuStreamBeginCapture_v2_params bc4 = {s4, CU_STREAM_CAPTURE_MODE_GLOBAL};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &bc4, CUDA_SUCCESS);
    pthread_create(&t, NULL, memset_thread, NULL);
    pthread_join(t, NULL);
    lk.hStream = s4;
    api(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    cuStreamEndCapture_params ec4 = {s4, &none};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec4,
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    /* A capture that a call the recorder does not subscribe to
     * invalidates (the stand-in says so; no callback comes for it): the
     * log has its node before, the launch the capture then refused, and
     * its end. Graph 3, captured on stream 0x9000. */
    fake_graph_id = 3;
    CUstream s5 = (CUstream)(uintptr_t)0x9000;
    cuStreamBeginCapture_v2_params bc5 = {s5, CU_STREAM_CAPTURE_MODE_GLOBAL};
    CUpti_CallbackData bcb;
    memset(&bcb, 0, sizeof bcb);
    CUresult ok = CUDA_SUCCESS;
    bcb.functionName = "cuStreamBeginCapture_v2";
    bcb.functionParams = &bc5;
    bcb.functionReturnValue = &ok;
    bcb.callbackSite = CUPTI_API_ENTER;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, &bcb);
    resource(CUPTI_CBID_RESOURCE_GRAPH_CREATED, NULL, NULL);
    bcb.callbackSite = CUPTI_API_EXIT;
    fake_dispatch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, &bcb);
    captured_node(0, s5, 0);
    cuModuleLoadData_params ml = {NULL, NULL};
    api(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, "cuModuleLoadData", &ml,
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    lk.hStream = s5;
    api(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    cuStreamEndCapture_params ec5 = {s5, &none};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec5,
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL);
    /* The recorder subscribed to what it needs once, at its start. */
    if (fake_domain_switches)
        return 3;
    return 0; /* the recorder's atexit handler writes the end of the log */
}
