/*
 * graphrt/event.h - events: CUDA's "Event Management".
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_EVENT_H
#define GRAPHRT_MODULE_EVENT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Events                                                                 */
/* ====================================================================== */

#define grEventDefault 0x00u
#define grEventBlockingSync 0x01u
#define grEventDisableTiming 0x02u

/* Flags of grEventRecordWithFlags and grStreamWaitEvent. Mirror
 * cudaEventRecordDefault/External and cudaEventWaitDefault/External. */
#define grEventRecordDefault 0x00u
#define grEventRecordExternal 0x01u
#define grEventWaitDefault 0x00u
#define grEventWaitExternal 0x01u

/* Creates an event with default flags. Errors: grErrorInvalidValue (event
 * NULL), grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation.
 * Thread safety: any thread. Mirrors cudaEventCreate. */
GR_API grError_t grEventCreate(grEvent_t *event);

/* Creates an event. grEventDisableTiming makes grEventElapsedTime refuse it
 * (records take no timestamp). grEventBlockingSync is accepted; waiting
 * threads always help run the work they wait for, then sleep. Errors:
 * grErrorInvalidValue (event NULL, flags with bits other than
 * grEventBlockingSync and grEventDisableTiming), grErrorInitializationError
 * (the runtime could not start), grErrorMemoryAllocation.
 * Thread safety: any thread. Mirrors
 * cudaEventCreateWithFlags. */
GR_API grError_t grEventCreateWithFlags(grEvent_t *event, unsigned int flags);

/* Captures in the event the work queued on the stream so far. Re-recording
 * makes the event refer to the new record only. On a capturing stream the
 * event names the stream's place in the capture instead (no node is added),
 * for grStreamWaitEvent to fork and join. An event belongs to the device
 * current at its creation and is recorded on streams of that device only.
 * Errors: grErrorInvalidResourceHandle (event not live; stream of another
 * device), grErrorMemoryAllocation; plus the capture errors of work and the
 * stream errors.
 * Thread safety: any thread. Mirrors cudaEventRecord. */
GR_API grError_t grEventRecord(grEvent_t event, grStream_t stream);

/* grEventRecord with flags: grEventRecordDefault (0) is grEventRecord;
 * grEventRecordExternal on a capturing stream adds an event record node
 * for the event (depending on the stream's current work, as any captured
 * operation: the launched graph records the event, for waiters outside
 * the graph), and leaves the event's role in the capture as it was (it
 * does not become a fork or join point). Errors: grErrorInvalidValue
 * (flags with bits other than grEventRecordExternal), grErrorIllegalState
 * (grEventRecordExternal on a stream that is not capturing, as CUDA 13
 * answers: nothing recorded); otherwise those of
 * grEventRecord, and of captured work for a capture's record node.
 * Thread safety: as grEventRecord. Mirrors cudaEventRecordWithFlags
 * (docs/capture.md). */
GR_API grError_t grEventRecordWithFlags(grEvent_t event, grStream_t stream, unsigned int flags);

/* grSuccess if the work of the event's latest record has completed (or it
 * was never recorded), grErrorNotReady otherwise (not recorded as the last
 * error, as in CUDA). Errors: grErrorInvalidResourceHandle (event not
 * live), grErrorCapturedEvent (the latest record was made in a capture in
 * progress, in any mode: that capture is invalidated), grErrorInvalidValue
 * (the latest record was made in a capture that has ended: record the event
 * again outside a capture); plus the mode errors.
 * Thread safety: any thread. Mirrors cudaEventQuery. */
GR_API grError_t grEventQuery(grEvent_t event);

/* Waits until the work of the event's latest record has completed. Errors:
 * as grEventQuery, without grErrorNotReady (grErrorInvalidResourceHandle,
 * grErrorCapturedEvent, grErrorInvalidValue, the mode errors).
 * Thread safety: any thread. Mirrors
 * cudaEventSynchronize. */
GR_API grError_t grEventSynchronize(grEvent_t event);

/* Milliseconds between two completed records. An event recorded by an
 * event record node of a graph holds the time its launch ended. Errors:
 * grErrorInvalidValue (ms NULL; either event was last recorded in a capture
 * that has ended), grErrorInvalidResourceHandle (either event not live,
 * created with grEventDisableTiming, or never recorded), grErrorNotReady
 * (either record has not completed; recorded as the last error, with a
 * detail naming the event: unlike the queries, this call is not a poll).
 * Not refused by the capture modes.
 * Thread safety: any thread. Mirrors cudaEventElapsedTime. */
GR_API grError_t grEventElapsedTime(float *ms, grEvent_t start, grEvent_t end);

/* Destroys the event. Returns at once; a pending record still completes,
 * and the graph nodes and executables that name the event keep it alive.
 * Errors: grErrorInvalidResourceHandle (event not live).
 * Thread safety: any thread. Mirrors
 * cudaEventDestroy. */
GR_API grError_t grEventDestroy(grEvent_t event);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_EVENT_H */
