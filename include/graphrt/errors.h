/*
 * graphrt/errors.h - errors: CUDA's "Error Handling": the error codes, their names and
 * the thread's last error. Also the export macro GR_API, which every module
 * header uses.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_ERRORS_H
#define GRAPHRT_MODULE_ERRORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GR_BUILDING_LIBRARY) && defined(__GNUC__)
#define GR_API __attribute__((visibility("default")))
#else
#define GR_API
#endif

/* ====================================================================== */
/* Errors                                                                 */
/* ====================================================================== */

/*
 * The error list: XX(name, CUDA name it mirrors, description). The enum,
 * grGetErrorName and grGetErrorString are all expanded from this one list.
 */
#define GR_ERROR_LIST(XX)                                                      \
    XX(grSuccess, "no error")                                                  \
    XX(grErrorInvalidValue, "invalid argument")                                \
    XX(grErrorMemoryAllocation, "out of memory")                               \
    XX(grErrorInitializationError, "initialization error")                     \
    XX(grErrorInvalidConfiguration, "invalid configuration argument")          \
    XX(grErrorInvalidDevicePointer, "invalid device pointer")                  \
    XX(grErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")     \
    XX(grErrorInvalidDevice, "invalid device ordinal")                         \
    XX(grErrorInvalidDeviceFunction, "invalid device function")                \
    XX(grErrorInvalidResourceHandle, "invalid resource handle")                \
    XX(grErrorIllegalState, "the operation cannot be performed in the "        \
                            "present state")                                   \
    XX(grErrorNotReady, "device not ready")                                    \
    XX(grErrorIllegalAddress, "an illegal memory access was encountered")      \
    XX(grErrorLaunchFailure, "unspecified launch failure")                     \
    XX(grErrorLaunchOutOfResources, "too many resources requested for "        \
                                    "launch")                                  \
    XX(grErrorNotSupported, "operation not supported")                         \
    XX(grErrorNotPermitted, "operation not permitted")                         \
    XX(grErrorStreamCaptureUnsupported, "operation not permitted when "        \
                                        "stream is capturing")                 \
    XX(grErrorStreamCaptureInvalidated, "operation failed due to a previous "  \
                                        "error during capture")                \
    XX(grErrorStreamCaptureMerge, "operation would result in a merge of "      \
                                  "separate capture sequences")                \
    XX(grErrorStreamCaptureUnmatched, "capture was not ended in the same "     \
                                      "stream as it began")                    \
    XX(grErrorStreamCaptureUnjoined, "capturing stream has unjoined work")     \
    XX(grErrorStreamCaptureIsolation, "dependency created on uncaptured "      \
                                      "work in another stream")                \
    XX(grErrorStreamCaptureImplicit, "operation would make the legacy "        \
                                     "stream depend on a capturing "           \
                                     "blocking stream")                        \
    XX(grErrorCapturedEvent, "operation not permitted on an event last "       \
                             "recorded in a capturing stream")                 \
    XX(grErrorStreamCaptureWrongThread, "attempt to terminate a thread-local " \
                                        "capture sequence from another "       \
                                        "thread")                              \
    XX(grErrorGraphExecUpdateFailure, "the graph update was not performed "    \
                                      "because it included changes which "     \
                                      "violated constraints specific to "      \
                                      "instantiated graph update")             \
    XX(grErrorLossyQuery, "a query of edges without room for their data "      \
                          "would lose non-default edge data")                  \
    XX(grErrorInvalidPitchValue, "invalid pitch argument")                     \
    XX(grErrorInvalidSymbol, "invalid device symbol")                          \
    XX(grErrorHostMemoryAlreadyRegistered, "part or all of the requested "     \
                                           "memory range is already mapped")   \
    XX(grErrorHostMemoryNotRegistered, "pointer does not correspond to a "     \
                                       "registered memory region")             \
    XX(grErrorUnsupportedLimit, "limit is not supported on this "              \
                                "architecture")                                \
    XX(grErrorCallRequiresNewerDriver, "API call is not supported in the "     \
                                       "installed CUDA driver")                \
    XX(grErrorPeerAccessUnsupported, "peer access is not supported "           \
                                     "between these two devices")              \
    XX(grErrorPeerAccessAlreadyEnabled, "peer access is already enabled")      \
    XX(grErrorPeerAccessNotEnabled, "peer access has not been enabled")        \
    XX(grErrorCooperativeLaunchTooLarge, "too many blocks in cooperative "     \
                                         "launch")                             \
    XX(grErrorUnknown, "unknown error")

typedef enum grError {
#define GR_ERROR_ENUM_(name, text) name,
    GR_ERROR_LIST(GR_ERROR_ENUM_)
#undef GR_ERROR_ENUM_
} grError_t;
typedef enum grError grError;

/* The enumerator's name ("grErrorInvalidValue"); "unrecognized error code"
 * for a value outside the list. A static string; never NULL.
 * Thread safety: any thread. Mirrors
 * cudaGetErrorName. */
GR_API const char *grGetErrorName(grError_t error);

/* A short description of the code ("unrecognized error code" for a value
 * outside the list). A static string; never NULL.
 * Errors: none. Thread safety: any thread. Mirrors
 * cudaGetErrorString. */
GR_API const char *grGetErrorString(grError_t error);

/* Returns the calling thread's last error and resets it to grSuccess; the
 * detail sentence is kept. Errors: none (the result is the last error, not
 * an error of this call). CUDA's asynchronous failures, reported by a
 * later synchronising call, do not occur on the CPU device (see section
 * Streams). Thread safety: the last error is per thread. Mirrors
 * cudaGetLastError. */
GR_API grError_t grGetLastError(void);

/* Returns the calling thread's last error without resetting it. Errors:
 * none (as grGetLastError). Thread safety: the last error is per thread.
 * Mirrors cudaPeekAtLastError. */
GR_API grError_t grPeekAtLastError(void);

/* graphrt's own: a sentence about the calling thread's most recent failure,
 * naming the call, the object and the rule broken, and what to do. The text
 * stays valid until the thread's next failing call; grGetLastError does not
 * clear it. Empty ("") when the thread has had no failure. Never NULL.
 * Thread safety: the detail is per thread.
 * Errors: none. */
GR_API const char *grGetLastErrorDetail(void);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_ERRORS_H */
