/*
 * bench.c - the recorder's own cost per callback, without a GPU: plays into
 * the recorder (linked against the stand-in driver and CUPTI of
 * fake_cuda.c) what bench_overhead.cu makes the driver send, CAPTURES
 * times a capture of 96 kernel launches (each a runtime and a driver call
 * around the node it creates, and an edge) that is then instantiated (the
 * driver making nodes of its own copy meanwhile) and destroyed, then
 * LAUNCHES graph launches. Meant to be counted with
 * callgrind, with and without a change to the recorder (the stand-in
 * driver costs next to nothing, so the counts are the recorder's):
 *
 *   GRAPHRT_RECORD_DIR=/tmp/r GRAPHRT_RECORD_WATCH_MS=0 \
 *     valgrind --tool=callgrind graphrt_record_bench [CAPTURES [LAUNCHES]]
 *
 * Not a test: it checks nothing.
 */
#include "fake_cuda.h"

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
    fake_callback(fake_userdata, dom, id, &cb);
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
    fake_callback(fake_userdata, CUPTI_CB_DOMAIN_RESOURCE, id, &rd);
}

static void resource(CUpti_CallbackId id, CUgraphNode node, CUgraphExec exec)
{
    resource_in((CUgraph)&fake_graph_word, id, node, exec);
}

int main(int argc, char **argv)
{
    int captures = argc > 1 ? atoi(argv[1]) : 30, launches = argc > 2 ? atoi(argv[2]) : 20000;
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
            cudaLaunchKernel_v7000_params rl;
            memset(&rl, 0, sizeof rl);
            rl.stream = (cudaStream_t)s;
            cuLaunchKernel_params lk;
            memset(&lk, 0, sizeof lk);
            lk.hStream = s;
            site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                 "cudaLaunchKernel", &rl, CUPTI_API_ENTER);
            site(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk,
                 CUPTI_API_ENTER);
            resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraphNode)&fake_node[i % 3], NULL);
            if (i)
                resource(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED, (CUgraphNode)&fake_node[i % 3],
                         NULL);
            site(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &lk,
                 CUPTI_API_EXIT);
            site(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                 "cudaLaunchKernel", &rl, CUPTI_API_EXIT);
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
                        (CUgraphNode)&fake_node[i % 3], NULL);
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
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, x);
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, NULL, NULL);
    return 0;
}
