/*
 * bench.c - the recorder's own cost per callback, without a GPU: plays into
 * the recorder (linked against the stand-in driver and CUPTI of
 * fake_cuda.c) what bench_overhead.cu makes the driver send, CAPTURES
 * times a capture of 96 kernel launches (each a runtime call, the
 * driver's cuKernelGetName the runtime makes first, and a driver call
 * around the node it creates, and an edge; an event recorded and waited
 * on) that is then instantiated (the driver making nodes of its own copy
 * meanwhile) and destroyed; then LAUNCHES graph launches; then EAGER
 * kernel launches outside any capture (the same three calls, no node).
 * The stand-in graph has 96 nodes, so each walk writes 96 node lines.
 * Callbacks reach the recorder only where it enabled them
 * (fake_dispatch), so a call the recorder does not subscribe to costs it
 * nothing here, as with CUPTI; what CUPTI itself costs (a delivered
 * callback, switching a domain) is not in the counts. Meant to be counted
 * with callgrind, with and without a change to the recorder:
 *
 *   GRAPHRT_RECORD_DIR=/tmp/r \
 *     valgrind --tool=callgrind graphrt_record_bench [CAPTURES [LAUNCHES [EAGER]]]
 *
 * It prints the callbacks delivered and not delivered. Not a test: it
 * checks nothing.
 */
#include "fake_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int InitializeInjection(void);

static void site(CUpti_CallbackDomain dom, CUpti_CallbackId id, const char *name, void *params,
                 CUpti_ApiCallbackSite where)
{
    static int ok;
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = name;
    cb.functionParams = params;
    cb.functionReturnValue = &ok;
    cb.callbackSite = where;
    fake_dispatch(dom, id, &cb);
}

static void api(CUpti_CallbackId id, const char *name, void *params)
{
    site(CUPTI_CB_DOMAIN_DRIVER_API, id, name, params, CUPTI_API_ENTER);
    site(CUPTI_CB_DOMAIN_DRIVER_API, id, name, params, CUPTI_API_EXIT);
}

static int copy_word; /* the handle of the driver's own copy of the graph */

static void resource_in(CUgraph g, CUpti_CallbackId id, CUgraphNode node, CUgraphExec exec)
{
    CUpti_GraphData gd;
    memset(&gd, 0, sizeof gd);
    gd.graph = g;
    gd.node = node;
    gd.graphExec = exec;
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.resourceDescriptor = &gd;
    fake_dispatch(CUPTI_CB_DOMAIN_RESOURCE, id, &rd);
}

static void resource(CUpti_CallbackId id, CUgraphNode node, CUgraphExec exec)
{
    resource_in((CUgraph)&fake_graph_word, id, node, exec);
}

/* A kernel launch through the runtime on stream s: cudaLaunchKernel, in
 * it cuKernelGetName and cuLaunchKernel; inside a capture the node (and
 * its edge) is made inside the driver call. */
static void launch_kernel(CUstream s, int node)
{
    cudaLaunchKernel_v7000_params rl;
    memset(&rl, 0, sizeof rl);
    rl.stream = (cudaStream_t)s;
    cuLaunchKernel_params lk;
    memset(&lk, 0, sizeof lk);
    lk.hStream = s;
    const char *name = NULL;
    cuKernelGetName_params kn = {&name, NULL};
    site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
         &rl, CUPTI_API_ENTER);
    api(CUPTI_DRIVER_TRACE_CBID_cuKernelGetName, "cuKernelGetName", &kn);
    site(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk,
         CUPTI_API_ENTER);
    if (node >= 0) {
        resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraphNode)&fake_node[node], NULL);
        if (node)
            resource(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED, (CUgraphNode)&fake_node[node], NULL);
    }
    site(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk,
         CUPTI_API_EXIT);
    site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
         &rl, CUPTI_API_EXIT);
}

/* cudaEventRecord(e, s) then cudaStreamWaitEvent(s, e), each with its
 * driver call. */
static void record_and_wait(CUstream s, CUevent e)
{
    cudaEventRecord_v3020_params rr = {(cudaEvent_t)e, (cudaStream_t)s};
    cuEventRecord_params dr = {e, s};
    site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord", &rr,
         CUPTI_API_ENTER);
    api(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", &dr);
    site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord", &rr,
         CUPTI_API_EXIT);
    cudaStreamWaitEvent_v3020_params rw = {(cudaStream_t)s, (cudaEvent_t)e, 0};
    cuStreamWaitEvent_params dw = {s, e, 0};
    site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
         "cudaStreamWaitEvent", &rw, CUPTI_API_ENTER);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", &dw);
    site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
         "cudaStreamWaitEvent", &rw, CUPTI_API_EXIT);
}

int main(int argc, char **argv)
{
    int captures = argc > 1 ? atoi(argv[1]) : 30, launches = argc > 2 ? atoi(argv[2]) : 20000,
        eager = argc > 3 ? atoi(argv[3]) : 20000;
    fake_nodes = 96;
    if (!InitializeInjection() || !fake_callback)
        return 1;
    CUdeviceptr a = fake_a, b = fake_b;
    cuMemAlloc_v2_params ma = {&a, 4096}, mb = {&b, 4096};
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &ma);
    api(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &mb);
    CUstream s = (CUstream)(uintptr_t)0x5000;
    CUgraph g = (CUgraph)&fake_graph_word;
    CUgraphExec x = (CUgraphExec)&fake_exec_word;
    for (int c = 0; c < captures; c++) {
        resource(CUPTI_CBID_RESOURCE_GRAPH_CREATED, NULL, NULL);
        cuStreamBeginCapture_v2_params bc = {s, CU_STREAM_CAPTURE_MODE_GLOBAL};
        api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", &bc);
        for (int i = 0; i < 96; i++) {
            if (i == 1 || i == 94)
                record_and_wait(s, (CUevent)(uintptr_t)0xe0);
            launch_kernel(s, i);
        }
        cuStreamEndCapture_params ec = {s, &g};
        api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", &ec);
        cuGraphInstantiateWithFlags_params gi = {&x, g, 0};
        site(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
             "cuGraphInstantiateWithFlags", &gi, CUPTI_API_ENTER);
        /* CUDA 13.0 makes about two nodes a node of its own copies here. */
        resource_in((CUgraph)&copy_word, CUPTI_CBID_RESOURCE_GRAPH_CREATED, NULL, NULL);
        for (int i = 0; i < 2 * 96; i++)
            resource_in((CUgraph)&copy_word, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
                        (CUgraphNode)&fake_node[i % 96], NULL);
        resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, NULL, x);
        site(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
             "cuGraphInstantiateWithFlags", &gi, CUPTI_API_EXIT);
        if (c + 1 < captures) {
            resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, x);
            resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL);
        }
    }
    cuGraphLaunch_params gl = {x, s};
    for (int i = 0; i < launches; i++)
        api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", &gl);
    for (int i = 0; i < eager; i++)
        launch_kernel(s, -1);
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, x);
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL);
    printf("callbacks: %lu delivered, %lu not delivered; domain switches %u\n", fake_delivered,
           fake_not_delivered, fake_domain_switches);
    return 0;
}
