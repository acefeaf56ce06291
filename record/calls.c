/*
 * calls.c - the CUDA API calls the recorder subscribes to, by CUPTI
 * callback id, and the stream each of them names.
 *
 * The recorder enables these callbacks once, at injection, and never
 * switches a domain or a callback off (cuptiEnableDomain of a whole domain
 * costs about 100 us on CUDA 13.0, twice a capture when it was switched
 * with each one). Four lists:
 * - 'always': driver calls whose callbacks always do work: allocations and
 *   frees (the stale-pointer check and the walks' pointer classes),
 *   capture begin and end, the capture mode exchange, instantiation, exec
 *   update and setters, graph launches, node setters, conditional handles,
 *   the explicit calls that change edges or destroy a node.
 * - 'resource': the resource callbacks for graphs, nodes made and
 *   executables (not the per-edge and per-clone ones).
 * - 'capture_drv' and 'capture_rt': driver and runtime calls that only
 *   matter while a capture is open: every call that can be captured into a
 *   graph (kernel launches of every form, copies and memsets, host
 *   functions, event records and waits, stream memory operations,
 *   prefetches) and every call that can invalidate or change a capture
 *   (synchronous copies and memsets, stream, event, context and device
 *   synchronisation and queries, allocations and frees of every kind, the
 *   capture's own info and dependency calls, graph uploads). Their
 *   callbacks return at once while no capture is open.
 * Not listed: cudaGraphLaunch and the runtime's kernel launches (the
 * driver's cuGraphLaunch and cuLaunchKernel* are: a runtime callback more
 * on the hottest paths would only rename the call), graph construction
 * and queries (the resource domain sees what they make), and the rest of
 * the API. A call not listed gets no callback at all, during a capture
 * too (docs/record.md says what the log then lacks).
 */
#include "recorder.h"

#include <string.h>

#include <cupti.h>

unsigned char rec_drv_kind[CUPTI_DRIVER_TRACE_CBID_SIZE];

static const CUpti_CallbackId always[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
    CUPTI_DRIVER_TRACE_CBID_cuMemPoolTrimTo,
    CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuThreadExchangeStreamCaptureMode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphConditionalHandleCreate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2,
    /* Setters of a graph's nodes: they change what a walk would read. */
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeCopyAttributes,
    CUPTI_DRIVER_TRACE_CBID_cuGraphMemcpyNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphMemsetNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphEventRecordNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphEventWaitNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphBatchMemOpNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresSignalNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresWaitNodeSetParams,
    /* Edges added or removed and nodes destroyed by the explicit API: they
     * change what a walk would read (the resource domain's per-edge and
     * per-node-destroy callbacks are not enabled, see 'resource'). */
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddDependencies,
    CUPTI_DRIVER_TRACE_CBID_cuGraphAddDependencies_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphRemoveDependencies,
    CUPTI_DRIVER_TRACE_CBID_cuGraphRemoveDependencies_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphDestroyNode,
};

/* The resource callbacks the recorder acts on. Left out, because each
 * fires for every captured node or edge or for every node an
 * instantiation copies, and the walks read what they would tell: node
 * creation starting, edges created and destroyed (every captured node
 * makes one or more), nodes cloned (an instantiation clones the graph,
 * about two nodes a node on CUDA 13.0) and nodes destroyed (every node of
 * a destroyed graph or copy). The explicit calls that change a graph's
 * edges or remove a node are in 'always' instead. */
static const CUpti_CallbackId resource[] = {
    CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,     CUPTI_CBID_RESOURCE_GRAPH_CREATED,
    CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING,     CUPTI_CBID_RESOURCE_GRAPH_CLONED,
    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,          CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
    CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED,
    CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS,
};

#define D(name) CUPTI_DRIVER_TRACE_CBID_##name
static const CUpti_CallbackId capture_drv[] = {
    /* Kernel launches and host functions. */
    D(cuLaunchKernel), D(cuLaunchKernel_ptsz), D(cuLaunchKernelEx), D(cuLaunchKernelEx_ptsz),
    D(cuLaunchCooperativeKernel), D(cuLaunchCooperativeKernel_ptsz), D(cuLaunchCooperativeKernelMultiDevice),
    D(cuLaunch), D(cuLaunchGrid), D(cuLaunchGridAsync), D(cuLaunchHostFunc), D(cuLaunchHostFunc_ptsz),
    D(cuStreamAddCallback), D(cuStreamAddCallback_ptsz),
    /* Copies and memsets, asynchronous (captured) and synchronous (they
     * invalidate a capture). */
    D(cuMemcpyAsync), D(cuMemcpyAsync_ptsz), D(cuMemcpyPeerAsync), D(cuMemcpyPeerAsync_ptsz),
    D(cuMemcpyHtoDAsync), D(cuMemcpyHtoDAsync_v2), D(cuMemcpyHtoDAsync_v2_ptsz), D(cuMemcpyDtoHAsync),
    D(cuMemcpyDtoHAsync_v2), D(cuMemcpyDtoHAsync_v2_ptsz), D(cuMemcpyDtoDAsync), D(cuMemcpyDtoDAsync_v2),
    D(cuMemcpyDtoDAsync_v2_ptsz), D(cuMemcpyHtoAAsync), D(cuMemcpyHtoAAsync_v2), D(cuMemcpyHtoAAsync_v2_ptsz),
    D(cuMemcpyAtoHAsync), D(cuMemcpyAtoHAsync_v2), D(cuMemcpyAtoHAsync_v2_ptsz), D(cuMemcpy2DAsync),
    D(cuMemcpy2DAsync_v2), D(cuMemcpy2DAsync_v2_ptsz), D(cuMemcpy3DAsync), D(cuMemcpy3DAsync_v2),
    D(cuMemcpy3DAsync_v2_ptsz), D(cuMemcpy3DPeerAsync), D(cuMemcpy3DPeerAsync_ptsz), D(cuMemcpyBatchAsync),
    D(cuMemcpyBatchAsync_ptsz), D(cuMemcpyBatchAsync_v2), D(cuMemcpyBatchAsync_v2_ptsz),
    D(cuMemcpy3DBatchAsync), D(cuMemcpy3DBatchAsync_ptsz), D(cuMemcpy3DBatchAsync_v2),
    D(cuMemcpy3DBatchAsync_v2_ptsz), D(cuMemsetD8Async), D(cuMemsetD8Async_ptsz), D(cuMemsetD16Async),
    D(cuMemsetD16Async_ptsz), D(cuMemsetD32Async), D(cuMemsetD32Async_ptsz), D(cuMemsetD2D8Async),
    D(cuMemsetD2D8Async_ptsz), D(cuMemsetD2D16Async), D(cuMemsetD2D16Async_ptsz), D(cuMemsetD2D32Async),
    D(cuMemsetD2D32Async_ptsz), D(cuMemcpy), D(cuMemcpy_ptds), D(cuMemcpyPeer), D(cuMemcpyPeer_ptds),
    D(cuMemcpyHtoD_v2), D(cuMemcpyHtoD_v2_ptds), D(cuMemcpyDtoH_v2), D(cuMemcpyDtoH_v2_ptds),
    D(cuMemcpyDtoD_v2), D(cuMemcpyDtoD_v2_ptds), D(cuMemcpyDtoA_v2), D(cuMemcpyDtoA_v2_ptds),
    D(cuMemcpyAtoD_v2), D(cuMemcpyAtoD_v2_ptds), D(cuMemcpyHtoA_v2), D(cuMemcpyHtoA_v2_ptds),
    D(cuMemcpyAtoH_v2), D(cuMemcpyAtoH_v2_ptds), D(cuMemcpyAtoA_v2), D(cuMemcpyAtoA_v2_ptds),
    D(cuMemcpy2D_v2), D(cuMemcpy2D_v2_ptds), D(cuMemcpy2DUnaligned_v2), D(cuMemcpy2DUnaligned_v2_ptds),
    D(cuMemcpy3D_v2), D(cuMemcpy3D_v2_ptds), D(cuMemcpy3DPeer), D(cuMemcpy3DPeer_ptds), D(cuMemsetD8_v2),
    D(cuMemsetD8_v2_ptds), D(cuMemsetD16_v2), D(cuMemsetD16_v2_ptds), D(cuMemsetD32_v2),
    D(cuMemsetD32_v2_ptds), D(cuMemsetD2D8_v2), D(cuMemsetD2D8_v2_ptds), D(cuMemsetD2D16_v2),
    D(cuMemsetD2D16_v2_ptds), D(cuMemsetD2D32_v2), D(cuMemsetD2D32_v2_ptds),
    /* Stream memory operations, prefetches, decompression. */
    D(cuStreamWaitValue32), D(cuStreamWaitValue32_ptsz), D(cuStreamWaitValue32_v2),
    D(cuStreamWaitValue32_v2_ptsz), D(cuStreamWaitValue64), D(cuStreamWaitValue64_ptsz),
    D(cuStreamWaitValue64_v2), D(cuStreamWaitValue64_v2_ptsz), D(cuStreamWriteValue32),
    D(cuStreamWriteValue32_ptsz), D(cuStreamWriteValue32_v2), D(cuStreamWriteValue32_v2_ptsz),
    D(cuStreamWriteValue64), D(cuStreamWriteValue64_ptsz), D(cuStreamWriteValue64_v2),
    D(cuStreamWriteValue64_v2_ptsz), D(cuStreamBatchMemOp), D(cuStreamBatchMemOp_ptsz),
    D(cuStreamBatchMemOp_v2), D(cuStreamBatchMemOp_v2_ptsz), D(cuMemPrefetchAsync),
    D(cuMemPrefetchAsync_ptsz), D(cuMemPrefetchAsync_v2), D(cuMemPrefetchAsync_v2_ptsz),
    D(cuMemPrefetchBatchAsync), D(cuMemPrefetchBatchAsync_ptsz), D(cuMemDiscardBatchAsync),
    D(cuMemDiscardBatchAsync_ptsz), D(cuMemDiscardAndPrefetchBatchAsync),
    D(cuMemDiscardAndPrefetchBatchAsync_ptsz), D(cuMemBatchDecompressAsync),
    D(cuMemBatchDecompressAsync_ptsz), D(cuMemMapArrayAsync), D(cuMemMapArrayAsync_ptsz),
    D(cuStreamAttachMemAsync), D(cuStreamAttachMemAsync_ptsz),
    /* Events and streams: records and waits join streams in a capture;
     * synchronising and querying invalidate one. */
    D(cuEventRecord), D(cuEventRecord_ptsz), D(cuEventRecordWithFlags), D(cuEventRecordWithFlags_ptsz),
    D(cuStreamWaitEvent), D(cuStreamWaitEvent_ptsz), D(cuEventSynchronize), D(cuEventQuery),
    D(cuStreamSynchronize), D(cuStreamSynchronize_ptsz), D(cuStreamQuery), D(cuStreamQuery_ptsz),
    D(cuCtxSynchronize), D(cuCtxSynchronize_v2), D(cuStreamDestroy), D(cuStreamDestroy_v2),
    D(cuDevicePrimaryCtxReset), D(cuDevicePrimaryCtxReset_v2),
    /* The capture's own calls. */
    D(cuStreamGetCaptureInfo), D(cuStreamGetCaptureInfo_ptsz), D(cuStreamGetCaptureInfo_v2),
    D(cuStreamGetCaptureInfo_v2_ptsz), D(cuStreamGetCaptureInfo_v3), D(cuStreamGetCaptureInfo_v3_ptsz),
    D(cuStreamIsCapturing), D(cuStreamIsCapturing_ptsz), D(cuStreamUpdateCaptureDependencies),
    D(cuStreamUpdateCaptureDependencies_ptsz), D(cuStreamUpdateCaptureDependencies_v2),
    D(cuStreamUpdateCaptureDependencies_v2_ptsz), D(cuGraphUpload), D(cuGraphUpload_ptsz),
    /* Allocations and frees not in 'always' (unsafe in a global-mode
     * capture). */
    D(cuArrayCreate_v2), D(cuArray3DCreate_v2), D(cuArrayDestroy), D(cuMipmappedArrayCreate),
    D(cuMipmappedArrayDestroy), D(cuMemCreate), D(cuMemRelease), D(cuMemMap), D(cuMemAddressReserve),
    D(cuMemPoolCreate), D(cuMemPoolDestroy)};
#undef D

#define R(name) CUPTI_RUNTIME_TRACE_CBID_##name
static const CUpti_CallbackId capture_rt[] = {
    /* Host functions. Not kernel launches: the driver's launch callback
     * names the stream, and a runtime callback more (two calls of the
     * recorder a launch, in captures and out of them) would only give
     * the node the runtime's name of the call. */
    R(cudaLaunchHostFunc_v10000), R(cudaLaunchHostFunc_ptsz_v10000), R(cudaStreamAddCallback_v5000),
    R(cudaStreamAddCallback_ptsz_v7000),
    /* Copies and memsets, asynchronous and synchronous. */
    R(cudaMemcpyAsync_v3020), R(cudaMemcpyAsync_ptsz_v7000), R(cudaMemcpy2DAsync_v3020),
    R(cudaMemcpy2DAsync_ptsz_v7000), R(cudaMemcpy3DAsync_v3020), R(cudaMemcpy3DAsync_ptsz_v7000),
    R(cudaMemcpy3DPeerAsync_v4000), R(cudaMemcpy3DPeerAsync_ptsz_v7000), R(cudaMemcpyPeerAsync_v4000),
    R(cudaMemcpyToArrayAsync_v3020), R(cudaMemcpyToArrayAsync_ptsz_v7000), R(cudaMemcpyFromArrayAsync_v3020),
    R(cudaMemcpyFromArrayAsync_ptsz_v7000), R(cudaMemcpy2DToArrayAsync_v3020),
    R(cudaMemcpy2DToArrayAsync_ptsz_v7000), R(cudaMemcpy2DFromArrayAsync_v3020),
    R(cudaMemcpy2DFromArrayAsync_ptsz_v7000), R(cudaMemcpyToSymbolAsync_v3020),
    R(cudaMemcpyToSymbolAsync_ptsz_v7000), R(cudaMemcpyFromSymbolAsync_v3020),
    R(cudaMemcpyFromSymbolAsync_ptsz_v7000), R(cudaMemcpyBatchAsync_v12080),
    R(cudaMemcpyBatchAsync_ptsz_v12080), R(cudaMemcpy3DBatchAsync_v12080),
    R(cudaMemcpy3DBatchAsync_ptsz_v12080), R(cudaMemcpyBatchAsync_v13000),
    R(cudaMemcpyBatchAsync_ptsz_v13000), R(cudaMemcpy3DBatchAsync_v13000),
    R(cudaMemcpy3DBatchAsync_ptsz_v13000), R(cudaMemsetAsync_v3020), R(cudaMemsetAsync_ptsz_v7000),
    R(cudaMemset2DAsync_v3020), R(cudaMemset2DAsync_ptsz_v7000), R(cudaMemset3DAsync_v3020),
    R(cudaMemset3DAsync_ptsz_v7000), R(cudaMemcpy_v3020), R(cudaMemcpy_ptds_v7000), R(cudaMemcpy2D_v3020),
    R(cudaMemcpy2D_ptds_v7000), R(cudaMemcpy3D_v3020), R(cudaMemcpy3D_ptds_v7000), R(cudaMemcpyPeer_v4000),
    R(cudaMemcpy3DPeer_v4000), R(cudaMemcpy3DPeer_ptds_v7000), R(cudaMemcpyToArray_v3020),
    R(cudaMemcpyToArray_ptds_v7000), R(cudaMemcpyFromArray_v3020), R(cudaMemcpyFromArray_ptds_v7000),
    R(cudaMemcpy2DToArray_v3020), R(cudaMemcpy2DToArray_ptds_v7000), R(cudaMemcpy2DFromArray_v3020),
    R(cudaMemcpy2DFromArray_ptds_v7000), R(cudaMemcpyArrayToArray_v3020),
    R(cudaMemcpyArrayToArray_ptds_v7000), R(cudaMemcpy2DArrayToArray_v3020),
    R(cudaMemcpy2DArrayToArray_ptds_v7000), R(cudaMemcpyToSymbol_v3020), R(cudaMemcpyToSymbol_ptds_v7000),
    R(cudaMemcpyFromSymbol_v3020), R(cudaMemcpyFromSymbol_ptds_v7000), R(cudaMemset_v3020),
    R(cudaMemset_ptds_v7000), R(cudaMemset2D_v3020), R(cudaMemset2D_ptds_v7000), R(cudaMemset3D_v3020),
    R(cudaMemset3D_ptds_v7000),
    /* Prefetches and attachments. */
    R(cudaMemPrefetchAsync_v8000), R(cudaMemPrefetchAsync_ptsz_v8000), R(cudaMemPrefetchAsync_v12020),
    R(cudaMemPrefetchAsync_ptsz_v12020), R(cudaMemPrefetchBatchAsync_v13000),
    R(cudaMemPrefetchBatchAsync_ptsz_v13000), R(cudaMemDiscardBatchAsync_v13000),
    R(cudaMemDiscardBatchAsync_ptsz_v13000), R(cudaMemDiscardAndPrefetchBatchAsync_v13000),
    R(cudaMemDiscardAndPrefetchBatchAsync_ptsz_v13000), R(cudaStreamAttachMemAsync_v6000),
    R(cudaStreamAttachMemAsync_ptsz_v7000),
    /* Events, streams, devices. */
    R(cudaEventRecord_v3020), R(cudaEventRecord_ptsz_v7000), R(cudaEventRecordWithFlags_v11010),
    R(cudaEventRecordWithFlags_ptsz_v11010), R(cudaStreamWaitEvent_v3020), R(cudaStreamWaitEvent_ptsz_v7000),
    R(cudaEventSynchronize_v3020), R(cudaEventQuery_v3020), R(cudaStreamSynchronize_v3020),
    R(cudaStreamSynchronize_ptsz_v7000), R(cudaStreamQuery_v3020), R(cudaStreamQuery_ptsz_v7000),
    R(cudaDeviceSynchronize_v3020), R(cudaThreadSynchronize_v3020), R(cudaDeviceReset_v3020),
    R(cudaThreadExit_v3020),
    /* The capture's own calls, for their runtime names. */
    R(cudaStreamBeginCapture_v10000), R(cudaStreamBeginCapture_ptsz_v10000),
    R(cudaStreamBeginCaptureToGraph_v12030), R(cudaStreamBeginCaptureToGraph_ptsz_v12030),
    R(cudaStreamEndCapture_v10000), R(cudaStreamEndCapture_ptsz_v10000), R(cudaStreamIsCapturing_v10000),
    R(cudaStreamIsCapturing_ptsz_v10000), R(cudaStreamGetCaptureInfo_v10010),
    R(cudaStreamGetCaptureInfo_ptsz_v10010), R(cudaStreamGetCaptureInfo_v2_v11030),
    R(cudaStreamGetCaptureInfo_v2_ptsz_v11030), R(cudaStreamGetCaptureInfo_v12030),
    R(cudaStreamGetCaptureInfo_ptsz_v12030), R(cudaStreamUpdateCaptureDependencies_v11030),
    R(cudaStreamUpdateCaptureDependencies_ptsz_v11030), R(cudaStreamUpdateCaptureDependencies_v12030),
    R(cudaStreamUpdateCaptureDependencies_ptsz_v12030), R(cudaThreadExchangeStreamCaptureMode_v10010),
    R(cudaGraphUpload_v10000), R(cudaGraphUpload_ptsz_v10000),
    /* Allocations and frees of every kind. */
    R(cudaMalloc_v3020), R(cudaMallocPitch_v3020), R(cudaMallocHost_v3020), R(cudaHostAlloc_v3020),
    R(cudaMallocManaged_v6000), R(cudaMalloc3D_v3020), R(cudaMallocArray_v3020), R(cudaMalloc3DArray_v3020),
    R(cudaMallocMipmappedArray_v5000), R(cudaFree_v3020), R(cudaFreeHost_v3020), R(cudaFreeArray_v3020),
    R(cudaFreeMipmappedArray_v5000), R(cudaHostRegister_v4000), R(cudaHostUnregister_v4000),
    R(cudaMallocAsync_v11020), R(cudaMallocAsync_ptsz_v11020), R(cudaMallocFromPoolAsync_v11020),
    R(cudaMallocFromPoolAsync_ptsz_v11020), R(cudaFreeAsync_v11020), R(cudaFreeAsync_ptsz_v11020),
    R(cudaMemPoolTrimTo_v11020)};
#undef R

/* Whether the comma-separated list 'out' names 'group'. */
static int left_out(const char *out, const char *group)
{
    size_t n = strlen(group);
    for (const char *p = out; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, group, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

void rec_calls_enable(CUpti_SubscriberHandle sub, const char *leave_out)
{
    int no_nodes = left_out(leave_out, "nodes"), no_launches = left_out(leave_out, "launches");
    for (size_t i = 0; i < sizeof resource / sizeof *resource; i++)
        if (!(no_nodes && resource[i] == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED))
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, resource[i]);
    for (size_t i = 0; i < sizeof capture_drv / sizeof *capture_drv && !left_out(leave_out, "capture"); i++)
        if (capture_drv[i] < CUPTI_DRIVER_TRACE_CBID_SIZE &&
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, capture_drv[i]) == CUPTI_SUCCESS)
            rec_drv_kind[capture_drv[i]] = REC_CALL_CAPTURE;
    /* After the capture list: a call in both is always acted on. */
    for (size_t i = 0; i < sizeof always / sizeof *always; i++) {
        int launch = always[i] == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
                     always[i] == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
        if (always[i] < CUPTI_DRIVER_TRACE_CBID_SIZE && !(launch && no_launches) &&
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, always[i]) == CUPTI_SUCCESS)
            rec_drv_kind[always[i]] = launch ? REC_CALL_LAUNCH : REC_CALL_ALWAYS;
    }
    for (size_t i = 0; i < sizeof capture_rt / sizeof *capture_rt && !left_out(leave_out, "runtime"); i++)
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, capture_rt[i]);
}

/* The stream of each call that enqueues work (a captured node's stream),
 * by where its parameters keep it. */
#define AT(type, field) ((const type *)p)->field
int rec_call_stream(CUpti_CallbackId id, const void *p, CUstream *s)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        *s = AT(cuLaunchKernel_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        *s = AT(cuLaunchKernelEx_params, config)->hStream;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        *s = AT(cuLaunchCooperativeKernel_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
        *s = AT(cuLaunchHostFunc_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
        *s = AT(cuMemcpyAsync_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz:
        *s = AT(cuMemcpyPeerAsync_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
        *s = AT(cuMemcpyDtoDAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
        *s = AT(cuMemcpyHtoDAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
        *s = AT(cuMemcpyDtoHAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2_ptsz:
        *s = AT(cuMemcpyHtoAAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2_ptsz:
        *s = AT(cuMemcpyAtoHAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz:
        *s = AT(cuMemcpy3DAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync_ptsz:
        *s = AT(cuMemcpy3DPeerAsync_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz:
        *s = AT(cuMemcpy2DAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz:
        *s = AT(cuMemcpyBatchAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2_ptsz:
        *s = AT(cuMemcpy3DBatchAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
        *s = AT(cuMemsetD8Async_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
        *s = AT(cuMemsetD16Async_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
        *s = AT(cuMemsetD32Async_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz:
        *s = AT(cuMemsetD2D8Async_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz:
        *s = AT(cuMemsetD2D16Async_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz:
        *s = AT(cuMemsetD2D32Async_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue64_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue64_v2_ptsz:
        *s = AT(cuStreamWaitValue32_v2_params, stream); /* the first field of each */
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz:
        *s = AT(cuStreamBatchMemOp_v2_params, stream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2_ptsz:
        *s = AT(cuMemPrefetchAsync_v2_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
        *s = AT(cuEventRecord_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
        *s = AT(cuEventRecordWithFlags_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        *s = AT(cuStreamWaitEvent_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
        *s = AT(cuStreamSynchronize_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz:
        *s = AT(cuStreamQuery_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz:
        *s = AT(cuStreamAddCallback_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
        *s = AT(cuMemAllocAsync_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
        *s = AT(cuMemAllocFromPoolAsync_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        *s = AT(cuMemFreeAsync_params, hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        *s = AT(cuGraphLaunch_params, hStream);
        return 1;
    default:
        return 0;
    }
}

int rec_rt_call_stream(CUpti_CallbackId id, const void *p, CUstream *s)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        *s = (CUstream)AT(cudaLaunchKernel_v7000_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        *s = (CUstream)AT(cudaLaunchKernelExC_v11060_params, config)->stream;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        *s = (CUstream)AT(cudaLaunchCooperativeKernel_v9000_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000:
        *s = (CUstream)AT(cudaLaunchHostFunc_v10000_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemcpyAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemcpy2DAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemcpy3DAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemcpyToSymbolAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemcpyFromSymbolAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemsetAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000:
        *s = (CUstream)AT(cudaMemset2DAsync_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
        *s = (CUstream)AT(cudaEventRecord_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
        *s = (CUstream)AT(cudaEventRecordWithFlags_v11010_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        *s = (CUstream)AT(cudaStreamWaitEvent_v3020_params, stream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
        *s = (CUstream)AT(cudaMallocAsync_v11020_params, hStream);
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        *s = (CUstream)AT(cudaFreeAsync_v11020_params, hStream);
        return 1;
    default:
        return 0;
    }
}
#undef AT
