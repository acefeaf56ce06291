/*
 * graphrt/capture.h - stream capture: the capture part of CUDA's "Stream
 * Management" and "Graph Management".
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_CAPTURE_H
#define GRAPHRT_MODULE_CAPTURE_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Stream capture                                                         */
/* ====================================================================== */

/*
 * Between grStreamBeginCapture and grStreamEndCapture, work issued to the
 * capturing stream is recorded as nodes of a graph instead of running:
 * kernel launches, grMemcpyAsync, grMemsetAsync and host functions become
 * nodes depending on the stream's previous work. grEventRecord on a
 * capturing stream followed by grStreamWaitEvent on another stream makes
 * that stream join the capture (fork); waiting back on an event recorded
 * in it joins it again. Every stream that joined must be joined back
 * before the capture ends. The rules, each with its source, are listed in
 * docs/capture.md. A blocking stream is one not created with
 * grStreamNonBlocking (grStreamPerThread included); the legacy stream
 * synchronises with blocking streams, so it must not be used while one of
 * them takes part in a capture.
 *
 * The capture errors of work: a call that issues work to a stream
 * (grLaunchKernel, grMemcpyAsync, grMemsetAsync, grLaunchHostFunc,
 * grEventRecord, grStreamWaitEvent, grMallocAsync, grMallocFromPoolAsync,
 * grFreeAsync, grGraphLaunch) may also return, when the stream takes part
 * in a capture, grErrorStreamCaptureInvalidated (the capture was
 * invalidated earlier: nothing is recorded, and the detail names the first
 * call that invalidated it) and grErrorMemoryAllocation (out of memory
 * recording the node), and, when it does not, grErrorStreamCaptureImplicit
 * (the stream is the legacy stream, NULL or grStreamLegacy, and a blocking
 * stream takes part in a capture: the captures with a blocking stream are
 * invalidated).
 *
 * The mode errors: a potentially unsafe call (see grStreamCaptureMode) that
 * the captures in progress forbid to the calling thread returns
 * grErrorStreamCaptureUnsupported and invalidates the captures that forbade
 * it.
 *
 * Thread safety: work may be issued to the streams of a capture from any
 * thread, whatever the modes (each capture has its own lock); the modes
 * decide only which threads are refused the potentially unsafe calls and
 * which thread may end the capture. grStreamEndCapture must not run
 * concurrently with another call that uses a stream of that capture or an
 * event recorded in it (work issued to the stream, as CUDA asks too, a
 * wait on the event, grStreamGetCaptureInfo,
 * grStreamUpdateCaptureDependencies, a second end), and two
 * grStreamBeginCapture* calls on one stream must not run at the same time
 * (both could succeed). Every captured operation adds a node
 * to the capture's graph, so while the capture is in progress that graph
 * (the graph_out of grStreamGetCaptureInfo, or the graph given to
 * grStreamBeginCaptureToGraph) must not be used by other calls
 * concurrently with work issued to the capture, and must not be destroyed.
 */

/* What grStreamIsCapturing / grStreamGetCaptureInfo report. Mirrors
 * cudaStreamCaptureStatus. */
typedef enum grStreamCaptureStatus {
    grStreamCaptureStatusNone = 0,       /* not capturing */
    grStreamCaptureStatusActive = 1,     /* capturing */
    grStreamCaptureStatusInvalidated = 2 /* capturing, but an illegal call
                                            invalidated the capture: only
                                            grStreamEndCapture is useful */
} grStreamCaptureStatus;

/* Which "potentially unsafe" calls (grMalloc, grMallocHost, grFree,
 * grFreeHost, grStreamSynchronize and grStreamQuery of a stream that takes
 * part in no capture, grEventSynchronize and grEventQuery of an event not
 * last recorded in a capture) are refused while captures are in progress.
 * A thread is refused them when its own mode (grThreadExchangeStream-
 * CaptureMode, default Global) is not Relaxed and either it began a
 * capture that is not Relaxed, or its mode is Global and another thread
 * began a Global capture. A refused call returns
 * grErrorStreamCaptureUnsupported and invalidates the captures that
 * forbade it (the mode errors). grDeviceSynchronize, and synchronising or
 * querying a stream or an event of a capture in progress, are refused in
 * every mode (see their comments); grMemcpy and grMemset are allowed in
 * every mode. Also: a capture begun in Global or ThreadLocal mode must be
 * ended by the thread that began it. Mirrors cudaStreamCaptureMode. */
typedef enum grStreamCaptureMode {
    grStreamCaptureModeGlobal = 0,
    grStreamCaptureModeThreadLocal = 1,
    grStreamCaptureModeRelaxed = 2
} grStreamCaptureMode;

/* Flags of grStreamUpdateCaptureDependencies. Mirrors
 * cudaStreamUpdateCaptureDependenciesFlags. */
typedef enum grStreamUpdateCaptureDependenciesFlags {
    grStreamAddCaptureDependencies = 0x0, /* add to the current set */
    grStreamSetCaptureDependencies = 0x1  /* replace the current set */
} grStreamUpdateCaptureDependenciesFlags;

/* Begins capturing 'stream' into a new graph in the given mode (see
 * grStreamCaptureMode for what the mode forbids, and to which threads).
 * Errors: grErrorInvalidValue (mode not a grStreamCaptureMode),
 * grErrorStreamCaptureUnsupported (the legacy stream: NULL or
 * grStreamLegacy; grStreamPerThread may be captured),
 * grErrorIllegalState (the stream already takes part in a capture, even
 * an invalidated one), grErrorMemoryAllocation; plus the stream errors.
 * Thread safety: any thread; not concurrently with another
 * grStreamBeginCapture* on the same stream. Mirrors
 * cudaStreamBeginCapture. */
GR_API grError_t grStreamBeginCapture(grStream_t stream, grStreamCaptureMode mode);

/* As grStreamBeginCapture, but the captured nodes are added to the
 * existing 'graph', the first of them depending on dependencies[0..
 * numDependencies) (nodes of 'graph') through edges with the data
 * dependencyData[i] (NULL: default; a programmatic edge from a kernel
 * node is checked as grGraphAddDependencies checks it, and against the
 * first captured node when it is recorded). grStreamEndCapture then returns
 * 'graph' itself. Errors: as grStreamBeginCapture, plus
 * grErrorInvalidValue (graph NULL or not live, or owned by a child-graph
 * node; dependencies NULL with numDependencies > 0, or not distinct live
 * nodes of graph; numDependencies above 2^32 - 1), grErrorIllegalState
 * (another capture in progress builds graph: one capture at a time may;
 * until it ends the graph cannot be destroyed or lose nodes either).
 * Thread safety: as grStreamBeginCapture; until the capture ends, the
 * graph is written by every operation captured into it (see the section's
 * thread safety). Errors also: grErrorInvalidValue (edge data refused).
 * Mirrors cudaStreamBeginCaptureToGraph (CUDA 13 form).
 * Deviation: if the capture fails (invalidated,
 * unjoined, ended by the wrong thread), every node added to the graph
 * since the capture began is removed with its edges, so that a graph used
 * by the capture alone is left as it was, where CUDA leaves the graph
 * unusable. */
GR_API grError_t grStreamBeginCaptureToGraph(grStream_t stream, grGraph_t graph,
                                             const grGraphNode_t *dependencies,
                                             const grGraphEdgeData *dependencyData, size_t numDependencies,
                                             grStreamCaptureMode mode);

/* Re-capture (CUDA 13.3): capture the same stream code again into the
 * graph it built, so that the graph keeps its nodes and only their
 * parameters change (docs/capture.md, "Re-capture").
 *
 * What the callback of grStreamBeginRecaptureToGraph is told about a node
 * whose re-captured parameters differ from the graph's. Mirrors
 * cudaGraphRecaptureStatus (CUgraphRecaptureStatus). */
typedef enum grGraphRecaptureStatus {
    /* grGraphExecUpdate can apply the change to an executable. */
    grGraphRecaptureStatusEligibleForUpdate = 0,
    /* It cannot (an executable would refuse it with
     * grGraphExecUpdateErrorParametersChanged or AttributesChanged: a
     * copy's memory types or a 2D/3D copy, a 2D memset's shape, a batch
     * node's count or operation types, a kernel node's cooperative
     * attribute); the graph still takes it. */
    grGraphRecaptureStatusIneligibleForUpdate = 1,
    /* The node could not be re-captured; the re-capture fails whatever
     * the callback returns. graphrt never reports it: writing a node's
     * new parameters cannot fail. */
    grGraphRecaptureStatusError = 2
} grGraphRecaptureStatus;

/* Called, on the thread that issued the work, for each re-captured
 * operation whose parameters differ from those of the node it matches
 * (kernel function, dimensions, shared memory, argument values, launch
 * attributes; copy, memset, host function, event, batch operations).
 * data: the userData given; node: the graph's node; originalParams: its
 * parameters now (as grGraphNodeGetParams gives them); recaptureParams:
 * the operation just issued (a kernel's kernelParams point at the
 * caller's argument values). Both are valid only during the call. Return
 * grSuccess to take the new parameters into the node (it is then written
 * and, for grGraphExecUpdate, marked changed); any other value fails the
 * re-capture at once: the call that issued the work returns that value,
 * the node keeps its parameters, and the capture is invalidated. The
 * callback must not issue work to the capture's streams or end the
 * capture. Mirrors cudaGraphRecaptureCallback_t. */
typedef grError_t (*grGraphRecaptureCallback_t)(void *data, grGraphNode_t node,
                                                const grGraphNodeParams *originalParams,
                                                const grGraphNodeParams *recaptureParams,
                                                grGraphRecaptureStatus status);

/* Mirrors cudaGraphRecaptureCallbackData. */
typedef struct grGraphRecaptureCallbackData {
    grGraphRecaptureCallback_t callbackFunc; /* NULL: differences are taken silently */
    void *userData;                          /* passed to callbackFunc as 'data' */
} grGraphRecaptureCallbackData;

/*
 * Begins a re-capture on 'stream' into 'graph', a graph the same stream
 * code built before (by capture, or by hand with node types capture
 * makes). The work issued then is matched, operation by operation, with
 * the graph's nodes in creation order instead of adding nodes: the k-th
 * node-making operation (kernel launch, copy, memset, host function,
 * external event record or wait, batch memory operation, allocation,
 * free) must be of the k-th node's type and depend on exactly that
 * node's dependencies (with the same edge data); an allocation must ask
 * for the same size and pool properties, and gets the node's address
 * back; a free must free the node's address. Any other mismatch - a
 * topology mismatch, an allocation or free mismatch, or more operations
 * than nodes - fails the call that issued the work at once with
 * grErrorStreamCaptureInvalidated and invalidates the capture (as any
 * illegal call does: later work fails the same way, grStreamEndCapture
 * ends it without a graph). Every other parameter difference goes to
 * callbackData->callbackFunc (see grGraphRecaptureCallback_t), or, with
 * no callback, is written into the node. grStreamEndCapture then fails
 * with grErrorStreamCaptureInvalidated if fewer operations were captured
 * than the graph has nodes (or if nodes were added to the graph by hand
 * meanwhile), and otherwise returns 'graph' itself with the nodes that
 * changed noted, so that grGraphExecUpdate of an executable of this graph
 * writes only them (docs/capture.md).
 *
 * Everything else is as for grStreamBeginCapture: modes, fork and join
 * through events (each stream's work matches the nodes it made), the
 * unsafe calls, grStreamGetCaptureInfo (which names 'graph'). The user
 * objects the graph holds are released when the call succeeds, as CUDA
 * does; a re-capture may retain them again.
 *
 * Errors: grErrorInvalidValue (graph NULL or not live, or owned by a
 * child-graph node; mode not a grStreamCaptureMode),
 * grErrorStreamCaptureUnsupported (the legacy stream), grErrorIllegalState
 * (the stream takes part in a capture already, or another capture builds
 * 'graph'), grErrorMemoryAllocation; plus the stream errors. A refused
 * call changes nothing. Thread safety: as grStreamBeginCaptureToGraph;
 * the callback runs with no graphrt lock held.
 * Mirrors cudaStreamBeginRecaptureToGraph (CUDA 13.3).
 * Deviation: where CUDA leaves a graph whose re-capture failed "in an
 * undefined state", graphrt leaves a valid graph: its nodes and edges as
 * they were (a node added by hand meanwhile is removed), each node with
 * its old parameters or the new ones taken before the failure.
 */
GR_API grError_t grStreamBeginRecaptureToGraph(grStream_t stream, grStreamCaptureMode mode, grGraph_t graph,
                                               grGraphRecaptureCallbackData *callbackData);

/* Ends the capture begun on 'stream' and returns the graph in *pGraph
 * (the caller owns it; with grStreamBeginCaptureToGraph, the graph given
 * there). pGraph may be NULL, as CUDA 13.0 allows: the capture ends the
 * same way and nothing is written; a capture begun with
 * grStreamBeginCaptureToGraph leaves its nodes in the caller's graph
 * (NVIDIA's graphConditionalNodes sample ends a capture into a
 * conditional node's body so), and the graph of a capture begun with
 * grStreamBeginCapture, which nobody received, is destroyed. Every
 * stream that joined the capture leaves it, whatever the result, unless
 * the call is refused before the capture ends (grErrorIllegalState,
 * grErrorStreamCaptureUnmatched, grErrorMemoryAllocation, the stream
 * errors). Where a failure below sets *pGraph = NULL, a NULL pGraph gets
 * nothing. Errors: the stream errors (grErrorInvalidResourceHandle, grErrorInitializationError),
 * grErrorIllegalState (the stream is not capturing; *pGraph untouched),
 * grErrorStreamCaptureUnmatched (the stream joined a capture begun on
 * another stream; that capture is invalidated and not ended),
 * grErrorStreamCaptureWrongThread (a Global or ThreadLocal capture ended
 * by another thread; the capture ends, *pGraph = NULL),
 * grErrorStreamCaptureInvalidated (an illegal call invalidated the
 * capture; it ends, *pGraph = NULL, and the detail names the FIRST call
 * that invalidated it; also a re-capture that made fewer operations than
 * its graph has nodes, or whose graph got a node by hand meanwhile,
 * which is removed: see grStreamBeginRecaptureToGraph),
 * grErrorStreamCaptureUnjoined (a stream that joined
 * has work the capturing stream never waited for; the capture ends,
 * *pGraph = NULL), grErrorMemoryAllocation (out of memory checking that
 * the forked streams were joined; the capture stays in progress); plus the
 * stream errors. Cost: linear in the streams and events of the capture,
 * plus one pass over the nodes when a forked stream must be checked for
 * being joined. Thread safety: a Global or ThreadLocal capture must be
 * ended by the thread that began it (grErrorStreamCaptureWrongThread
 * above), a Relaxed one may be ended by any thread; not concurrently with
 * other calls that use the capture's streams or events (see the section's
 * thread safety). Mirrors cudaStreamEndCapture. */
GR_API grError_t grStreamEndCapture(grStream_t stream, grGraph_t *pGraph);

/* *pCaptureStatus: whether the stream takes part in a capture. Errors:
 * grErrorInvalidValue (pCaptureStatus NULL), grErrorStreamCaptureImplicit
 * (the legacy stream while a blocking stream captures: using it would
 * make it depend on the capture; nothing is invalidated); plus the stream
 * errors. Never refused by the capture modes. Thread safety: any thread;
 * not concurrently with grStreamEndCapture of the stream's capture.
 * Mirrors cudaStreamIsCapturing. */
GR_API grError_t grStreamIsCapturing(grStream_t stream, grStreamCaptureStatus *pCaptureStatus);

/* The capture state of the stream: *captureStatus_out (required), and,
 * only when it is grStreamCaptureStatusActive, each non-NULL optional
 * output: *id_out a process-unique id of the capture (shared by every
 * stream in it, never reused), *graph_out the graph being built (owned by
 * the capture: do not destroy it), *dependencies_out / *numDependencies_out
 * the nodes the next captured operation on this stream will depend on
 * (the array stays valid until the next operation on the stream),
 * *edgeData_out the data of the edges from those dependencies to the
 * next node (default, unless set by grStreamUpdateCaptureDependencies or
 * grStreamBeginCaptureToGraph; valid as long as the dependencies array).
 * Errors: grErrorInvalidValue (captureStatus_out NULL, edgeData_out
 * without dependencies_out), grErrorLossyQuery (dependencies_out given,
 * edgeData_out NULL, and a dependency's data is not the default),
 * grErrorStreamCaptureImplicit
 * (as grStreamIsCapturing); plus the stream errors. Never refused by the
 * capture modes. Thread safety: any thread; not concurrently with
 * grStreamEndCapture of the stream's capture; *graph_out is written by
 * every operation captured into it (see the section's thread safety).
 * Mirrors cudaStreamGetCaptureInfo (CUDA 13 form). */
GR_API grError_t grStreamGetCaptureInfo(grStream_t stream, grStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, grGraph_t *graph_out,
                                        const grGraphNode_t **dependencies_out,
                                        const grGraphEdgeData **edgeData_out, size_t *numDependencies_out);

/* Changes the set of nodes the next captured operation on the stream
 * depends on: flags grStreamAddCaptureDependencies adds dependencies
 * (duplicates ignored), grStreamSetCaptureDependencies replaces the set
 * (an empty set makes the next node a root). Errors: grErrorInvalidValue
 * (other flags, dependencies NULL with numDependencies > 0, numDependencies
 * above 2^32 - 1, a node that is not a live node of the capture's graph;
 * the capture stays valid), grErrorIllegalState (the stream is not
 * capturing), grErrorStreamCaptureInvalidated (its capture was
 * invalidated), grErrorMemoryAllocation; plus the stream errors. Thread
 * safety: any thread; not concurrently with grStreamEndCapture of the
 * stream's capture. dependencyData: NULL (default edges) or the data of
 * the edges from dependencies[i] to the next captured node, checked as
 * grGraphAddDependencies checks edge data (grErrorInvalidValue, the
 * capture unchanged), and again against that node when it is recorded (a
 * programmatic edge to a node that is not a kernel node: that operation
 * is refused with grErrorInvalidValue, the capture unchanged); nodes
 * already in the set keep their data. Mirrors
 * cudaStreamUpdateCaptureDependencies (CUDA 13 form). */
GR_API grError_t grStreamUpdateCaptureDependencies(grStream_t stream, grGraphNode_t *dependencies,
                                                   const grGraphEdgeData *dependencyData,
                                                   size_t numDependencies, unsigned int flags);

/* Sets the calling thread's capture mode to *mode and returns the previous
 * one in *mode (the usual pattern: exchange to Relaxed around a call that
 * is known safe, then exchange back). Errors: grErrorInvalidValue (mode
 * NULL, or *mode not a grStreamCaptureMode). Mirrors
 * cudaThreadExchangeStreamCaptureMode. Deviation: CUDA accepts an invalid
 * *mode and returns cudaSuccess; graphrt refuses it and keeps the
 * thread's mode. Thread safety: the mode is per thread; it affects only
 * the calling thread's potentially unsafe calls. */
GR_API grError_t grThreadExchangeStreamCaptureMode(grStreamCaptureMode *mode);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_CAPTURE_H */
