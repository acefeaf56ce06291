/*
 * selftest.c - runs the recorder's code without a GPU: links recorder.c
 * and walk.c against the stand-in driver and CUPTI of fake_cuda.c, calls
 * InitializeInjection as cuInit would, and plays the callbacks CUPTI would
 * deliver for the seed capture (foo -> copy -> bar) captured, instantiated,
 * launched five times, its input freed (and its address allocated again
 * as pinned memory), launched once more, updated; a second capture that
 * another thread's allocation invalidates; launches from a second thread;
 * the executable destroyed and a new one at the same address; the graph
 * destroyed and a new one captured at the same address.
 * The recorder's helper thread walks the graph through the stand-in query
 * calls. On exit the log is in $GRAPHRT_RECORD_DIR; tests/test-record.c
 * converts it and checks what the report says.
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
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_DRIVER_API, id, &cb);
    cb.callbackSite = CUPTI_API_EXIT;
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_DRIVER_API, id, &cb);
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
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RESOURCE, id, &rd);
}

/* The enter callback of a runtime call. The real CUPTI sends no exit for
 * cudaStreamEndCapture when its driver call ends the last capture: the
 * recorder switches the runtime domain off inside it. */
static void runtime_enter(CUpti_CallbackId id, const char *name)
{
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = name;
    cb.callbackSite = CUPTI_API_ENTER;
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RUNTIME_API, id, &cb);
}

static void runtime_exit(CUpti_CallbackId id, const char *name)
{
    int rc = 0;
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = name;
    cb.functionReturnValue = &rc;
    cb.callbackSite = CUPTI_API_EXIT;
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RUNTIME_API, id, &cb);
}

/* A node created inside a launch call on a stream: the resource callback
 * comes between the call's enter and exit. */
static void captured_node(int i, CUstream s)
{
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
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraphNode)&fake_node[i], NULL);
    cb.callbackSite = CUPTI_API_EXIT;
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cb);
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
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_DRIVER_API,
                  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &ic);
    /* The driver builds its own copy of the graph first (CUDA 13.0 on an
     * H100 creates nodes of new graphs here): no change to the graph. */
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraphNode)&fake_node[2], NULL);
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, NULL, *x);
    ic.callbackSite = CUPTI_API_EXIT;
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_DRIVER_API,
                  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &ic);
}

int main(void)
{
    if (!InitializeInjection() || !fake_callback) {
        fprintf(stderr, "selftest: InitializeInjection failed\n");
        return 1;
    }
    /* What the driver sends from cuInit: resource callbacks that carry no
     * data, or data that is not a CUpti_GraphData. */
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CU_INIT_FINISHED, NULL);
    CUpti_ResourceData ctx_rd;
    memset(&ctx_rd, 0, sizeof ctx_rd);
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &ctx_rd);
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPH_CREATED, &ctx_rd);
    CUstream s = (CUstream)(uintptr_t)0x5000;
    CUdeviceptr a = fake_a, b = fake_b;
    cuMemAlloc_v2_params ma = {&a, 4096}, mb = {&b, 4096};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &ma, CUDA_SUCCESS);
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &mb, CUDA_SUCCESS);

    cuStreamBeginCapture_v2_params bc = {s, CU_STREAM_CAPTURE_MODE_GLOBAL};
    resource(CUPTI_CBID_RESOURCE_GRAPH_CREATED, NULL, NULL);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &bc, CUDA_SUCCESS);
    for (int i = 0; i < 3; i++)
        captured_node(i, s);
    CUgraph g = (CUgraph)&fake_graph_word;
    cuStreamEndCapture_params ec = {s, &g};
    runtime_enter(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture");
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec, CUDA_SUCCESS);
    /* With GRAPHRT_RECORD_WATCH_MS=0 the end of the capture switched the
     * runtime domain off, and the driver sends no exit for the runtime
     * call in progress; held on, the domain still sees it. */
    const char *hold = getenv("GRAPHRT_RECORD_WATCH_MS");
    if (!hold || strcmp(hold, "0") != 0)
        runtime_exit(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture");

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
    /* Two launches, or RECORD_SELFTEST_LAUNCHES: enough of them with no
     * capture open switch the watch of every call off before its hold is
     * over. */
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
        captured_node(i, s3);
    cuStreamEndCapture_params ec3 = {s3, &g};
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec3, CUDA_SUCCESS);
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL);
    return 0; /* the recorder's atexit handler writes the end of the log */
}
