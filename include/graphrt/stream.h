/*
 * graphrt/stream.h - streams: CUDA's "Stream Management" (stream capture is in
 * capture.h).
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_STREAM_H
#define GRAPHRT_MODULE_STREAM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Streams                                                                */
/* ====================================================================== */

#define grStreamDefault 0x00u
#define grStreamNonBlocking 0x01u

/*
 * The stream errors: every function that takes a grStream_t may return
 * grErrorInvalidResourceHandle (a handle that is not a live stream:
 * destroyed, or not from grStreamCreate*), grErrorInitializationError (the
 * runtime could not start: a call naming NULL, grStreamLegacy,
 * grStreamPerThread or a handle that is not live starts it first) and
 * grErrorMemoryAllocation
 * (grStreamPerThread: out of memory creating the calling thread's default
 * stream). The "Errors:" lists below say "plus the stream errors" for these.
 *
 * Asynchronous errors: every operation is checked when it is issued, and
 * none fails once queued (a copy's ranges, for instance, are checked
 * against the allocations when it is queued), so no synchronising call ever
 * reports an asynchronous failure, where CUDA reports a kernel's fault at
 * the next one.
 */

/* Creates a blocking stream (ordered against the legacy default stream).
 * Errors: grErrorInvalidValue (stream NULL), grErrorInitializationError
 * (the runtime could not start), grErrorMemoryAllocation.
 * Thread safety: any thread. Mirrors
 * cudaStreamCreate. */
GR_API grError_t grStreamCreate(grStream_t *stream);

/* Creates a stream of the calling thread's current device (on a GPU, a
 * CUstream of its primary context); grStreamNonBlocking exempts it from the
 * legacy stream's implicit synchronisation. Errors: grErrorInvalidValue
 * (stream NULL, flags with bits other than grStreamNonBlocking),
 * grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation; on a GPU, a CUDA error mapped to graphrt's.
 * Thread safety: any thread.
 * Mirrors cudaStreamCreateWithFlags. */
GR_API grError_t grStreamCreateWithFlags(grStream_t *stream, unsigned int flags);

/* Destroys a stream. Returns at once; work already queued still completes,
 * then the stream's resources are released. Errors:
 * grErrorInvalidResourceHandle (a default stream: NULL, grStreamLegacy or
 * grStreamPerThread; a stream that is not live),
 * grErrorStreamCaptureUnsupported (the stream takes part in a capture,
 * having begun or joined it: end the capture first),
 * grErrorInitializationError (the runtime could not start). Deviation: CUDA
 * returns cudaSuccess for a stream that takes part in a capture.
 * Thread safety: any thread. Mirrors
 * cudaStreamDestroy. */
GR_API grError_t grStreamDestroy(grStream_t stream);

/* Waits until all work queued on the stream has completed, running that
 * stream's work in the calling thread when no worker has started it.
 * Errors: grErrorStreamCaptureUnsupported (the stream takes part in a
 * capture, in any mode: that capture is invalidated),
 * grErrorStreamCaptureImplicit (the legacy stream, NULL or grStreamLegacy,
 * while a blocking stream takes part in a capture: the captures with a
 * blocking stream are invalidated); plus the mode errors and the stream
 * errors.
 * Thread safety: any thread. Mirrors cudaStreamSynchronize. */
GR_API grError_t grStreamSynchronize(grStream_t stream);

/* grSuccess if all work on the stream has completed, grErrorNotReady
 * otherwise (not recorded as the last error, as in CUDA). Errors: as
 * grStreamSynchronize (a stream in a capture, the legacy stream while a
 * blocking stream captures, the mode errors, the stream errors).
 * Thread safety: any thread. Mirrors
 * cudaStreamQuery. */
GR_API grError_t grStreamQuery(grStream_t stream);

/* Makes all work queued on 'stream' after this call wait for the work
 * captured by the event's most recent grEventRecord. An event never
 * recorded completes at once. A stream that is not capturing and waits
 * on an event recorded in a capture joins that capture (a fork); a
 * capturing stream waiting on an event of its own capture takes the
 * event's dependencies as well (a join). flags: grEventWaitDefault (0),
 * or grEventWaitExternal, which on a capturing stream adds an event wait
 * node instead of the fork/join rules (the launched graph waits there for
 * the event's latest record at the time the node runs); on a stream that
 * is not capturing it is refused with grErrorIllegalState, as CUDA 13
 * answers (docs/capture.md). Errors: grErrorInvalidValue (flags
 * with bits other than grEventWaitExternal; the event was last recorded in a
 * capture that has ended: a capturing stream's capture is invalidated),
 * grErrorInvalidResourceHandle (event not live),
 * grErrorStreamCaptureIsolation (a capturing stream waits on an event
 * recorded outside any capture: the capture is invalidated),
 * grErrorStreamCaptureMerge (the event was recorded in another capture:
 * both captures are invalidated), grErrorStreamCaptureUnsupported (the
 * legacy stream waits on an event recorded in a capture: that capture is
 * invalidated), grErrorMemoryAllocation; plus the capture errors of work
 * and the stream errors. Across devices: a GPU stream waits on a GPU event
 * of any GPU through the driver; between the CPU and a GPU the calling
 * thread waits for the event at the call (docs/devices.md).
 * Thread safety: any thread. Mirrors
 * cudaStreamWaitEvent. */
GR_API grError_t grStreamWaitEvent(grStream_t stream, grEvent_t event, unsigned int flags);

/* Queues fn(userData) on the stream; it runs after all earlier work of the
 * stream and before all later work. On a capturing stream it adds a host
 * node instead. Errors: grErrorInvalidValue (fn NULL),
 * grErrorMemoryAllocation; plus the capture errors of work and the stream
 * errors.
 * Thread safety: any thread. Mirrors cudaLaunchHostFunc. */
GR_API grError_t grLaunchHostFunc(grStream_t stream, grHostFn_t fn, void *userData);

/* How the device waits for a host function of grLaunchHostFunc_v2, with
 * CUDA's values (CUDA 13.2). Mirrors cudaHostTaskSyncMode. */
typedef enum grHostTaskSyncMode {
    grHostTaskBlocking = 0, /* the waiting side blocks until the function returns */
    grHostTaskSpinWait = 1  /* the waiting side spins: lower latency, busier */
} grHostTaskSyncMode;

/* grLaunchHostFunc with a sync mode: queues fn(userData) on the stream,
 * run after all earlier work of the stream and before all later work; on
 * a capturing stream it adds a host node. syncMode (a grHostTaskSyncMode)
 * only steers how the device waits for the function, never when it runs
 * or what it sees: on the CPU the function runs on a worker that the
 * stream's next work waits for either way, so both modes run alike; on a
 * GPU stream it goes to the driver as grLaunchHostFunc does
 * (cuLaunchHostFunc; the driver's own _v2 is not called, so the mode is
 * not passed on), and a captured host node does not keep the mode (its
 * parameters are grHostNodeParams). Errors: grErrorInvalidValue (fn NULL,
 * syncMode not a grHostTaskSyncMode), grErrorMemoryAllocation; plus the
 * capture errors of work and the stream errors. A refused call queues
 * nothing. Thread safety: any thread. Mirrors cudaLaunchHostFunc_v2
 * (CUDA 13.2). */
GR_API grError_t grLaunchHostFunc_v2(grStream_t stream, grHostFn_t fn, void *userData, unsigned int syncMode);

/* The callback of grStreamAddCallback: the stream handle as passed to it
 * (NULL, grStreamLegacy or grStreamPerThread stay what they were), the
 * stream's status and the user's pointer. Mirrors cudaStreamCallback_t. */
typedef void (*grStreamCallback_t)(grStream_t stream, grError_t status, void *userData);

/* Queues callback(stream, status, userData) on the stream: CUDA's older
 * form of grLaunchHostFunc, run the same way (after all earlier work of
 * the stream, before all later work, exactly once). status is the
 * stream's sticky asynchronous error when the callback runs, else
 * grSuccess; no operation of a CPU stream fails once queued, so it is
 * grSuccess there. Unlike grLaunchHostFunc it cannot be captured, as in
 * CUDA: on a capturing stream the capture is invalidated and nothing is
 * queued. On a GPU stream it goes to the driver as grLaunchHostFunc does
 * (cuLaunchHostFunc), so status is grSuccess and, after a device fault,
 * the callback does not run (CUDA's cudaStreamAddCallback would run it
 * with the error). Errors: grErrorInvalidValue (callback NULL, flags not
 * 0), grErrorStreamCaptureUnsupported (the stream is capturing: its
 * capture is invalidated), grErrorStreamCaptureInvalidated (its capture
 * was invalidated already), grErrorStreamCaptureImplicit (the legacy
 * stream while a blocking stream captures), grErrorMemoryAllocation;
 * plus the stream errors. A refused call queues nothing. Thread safety:
 * any thread. Mirrors cudaStreamAddCallback. */
GR_API grError_t grStreamAddCallback(grStream_t stream, grStreamCallback_t callback, void *userData,
                                     unsigned int flags);

/* The flags of grStreamAttachMemAsync, with CUDA's values. Mirror
 * cudaMemAttachGlobal, cudaMemAttachHost and cudaMemAttachSingle. */
#define grMemAttachGlobal 0x01u
#define grMemAttachHost 0x02u
#define grMemAttachSingle 0x04u

/* CUDA's stream association of managed memory, checked and otherwise a
 * no-op: on the CPU device every allocation is reachable by the host and
 * by every stream at every moment, which is what each of the three
 * associations grants on a device with concurrent managed access, so
 * there is nothing to change and nothing is queued (taking effect in
 * stream order is unobservable). devPtr is either inside one of
 * graphrt's allocations on the CPU (grMalloc, grMallocHost,
 * grMallocAsync, graph memory), which then plays the part of a managed
 * allocation: devPtr must be its start and length 0 or its whole size
 * (a pool block's is its class size, so pass 0), or untracked host
 * memory, which plays the part of pageable system memory: length must
 * not be 0 and the range must not reach into an allocation. flags is
 * exactly one of grMemAttachGlobal, grMemAttachHost, grMemAttachSingle;
 * grMemAttachSingle on the legacy stream (NULL, grStreamLegacy) is
 * refused, as in CUDA. On a GPU stream the association is the driver's
 * (cuStreamAttachMemAsync) after the same checks, and a GPU's managed
 * memory (grMallocManaged with a GPU current, a tracked allocation as
 * above) takes a GPU stream. On a capturing stream the capture is
 * invalidated (no graph node represents an association; docs/capture.md).
 * Errors: grErrorInvalidValue (devPtr NULL, flags not one of the three,
 * grMemAttachSingle on the legacy stream, devPtr inside an allocation
 * but not its start, a length other than 0 or the allocation's size,
 * length 0 for untracked memory, a range that reaches into an
 * allocation, a GPU's device memory), grErrorNotSupported (a GPU's
 * managed memory on a CPU stream), the driver's error on a GPU stream,
 * grErrorStreamCaptureUnsupported (the stream is capturing: its capture
 * is invalidated), grErrorStreamCaptureInvalidated (its capture was
 * invalidated already), grErrorStreamCaptureImplicit (the legacy stream
 * while a blocking stream captures); plus the stream errors. Thread
 * safety: any thread. Mirrors cudaStreamAttachMemAsync (in C, without
 * CUDA's C++ default arguments). */
GR_API grError_t grStreamAttachMemAsync(grStream_t stream, void *devPtr, size_t length, unsigned int flags);

/* The flags the stream was created with (0 for the default streams).
 * Errors: grErrorInvalidValue (flags NULL); plus the stream errors.
 * Thread safety: any thread. Mirrors
 * cudaStreamGetFlags. */
GR_API grError_t grStreamGetFlags(grStream_t stream, unsigned int *flags);

/* Creates a stream as grStreamCreateWithFlags, with a priority: a lower
 * number is a higher priority, and a value outside the device's range
 * (grDeviceGetStreamPriorityRange) is clamped into it, as in CUDA. On the
 * CPU the priority is stored, reported by grStreamGetPriority, and given
 * to the kernel nodes a capture of the stream records (their
 * grLaunchAttributePriority, which an executable instantiated with
 * grGraphInstantiateFlagUseNodePriority honours); the workers run eager
 * work of every stream alike. On a GPU it is the driver's
 * (cuStreamCreateWithPriority). Errors: as grStreamCreateWithFlags.
 * Thread safety: any thread. Mirrors cudaStreamCreateWithPriority. */
GR_API grError_t grStreamCreateWithPriority(grStream_t *stream, unsigned int flags, int priority);

/* The current device's stream priorities: *leastPriority the lowest
 * priority (the default, 0) and *greatestPriority the highest; either
 * pointer may be NULL. The CPU's range is [-5, 0] (greatest -5, least 0),
 * the range CUDA reports on current GPUs; a GPU's is the driver's.
 * Errors: on a GPU, a CUDA error mapped to graphrt's. Thread safety: any
 * thread. Mirrors cudaDeviceGetStreamPriorityRange. */
GR_API grError_t grDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);

/* The stream's priority (clamped; 0 for the default streams). Errors:
 * grErrorInvalidValue (priority NULL); plus the stream errors. Thread
 * safety: any thread. Mirrors cudaStreamGetPriority. */
GR_API grError_t grStreamGetPriority(grStream_t hStream, int *priority);

/* A number unique to the stream in the process, never reused (the
 * default streams have theirs). Errors: grErrorInvalidValue (streamId
 * NULL); plus the stream errors. Thread safety: any thread. Mirrors
 * cudaStreamGetId. */
GR_API grError_t grStreamGetId(grStream_t hStream, unsigned long long *streamId);

/* The device the stream belongs to (0 for the CPU, 1..N for GPUs; the
 * default streams NULL and grStreamLegacy name the current device's).
 * Errors: grErrorInvalidValue (device NULL); plus the stream errors.
 * Thread safety: any thread. Mirrors cudaStreamGetDevice. */
GR_API grError_t grStreamGetDevice(grStream_t hStream, int *device);

/* A stream attribute (the grLaunchAttributeID values valid for streams:
 * AccessPolicyWindow, SynchronizationPolicy, Priority, MemSyncDomainMap,
 * MemSyncDomain, NvlinkUtilCentricScheduling): the value last set, else
 * its default (zero; SynchronizationPolicy grSyncPolicyAuto; Priority the
 * stream's). Errors: grErrorInvalidValue (value_out NULL, attr not valid
 * for streams); plus the stream errors. Thread safety: any thread.
 * Mirrors cudaStreamGetAttribute. */
GR_API grError_t grStreamGetAttribute(grStream_t hStream, grStreamAttrID attr, grStreamAttrValue *value_out);

/* Sets a stream attribute for the work issued after the call. Checked
 * and stored; Priority is clamped and becomes the stream's priority (see
 * grStreamCreateWithPriority); the others steer GPU hardware and change
 * nothing on the CPU, nor (not passed to the driver) on a GPU stream.
 * Errors: grErrorInvalidValue (value NULL, attr not valid for streams, a
 * value out of range: a refused call changes nothing); plus the stream
 * errors. Thread safety: any thread. Mirrors cudaStreamSetAttribute. */
GR_API grError_t grStreamSetAttribute(grStream_t hStream, grStreamAttrID attr,
                                      const grStreamAttrValue *value);

/* Gives dst every stream attribute of src (priority included). Errors:
 * grErrorInvalidValue (streams of different devices); plus the stream
 * errors. Thread safety: any thread. Mirrors cudaStreamCopyAttributes. */
GR_API grError_t grStreamCopyAttributes(grStream_t dst, grStream_t src);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_STREAM_H */
