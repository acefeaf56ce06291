/*
 * error.c - CUDA's errors as graphrt's: the CUresult -> grError_t table
 * and the detail sentence that names the graphrt call, what failed, the
 * device and CUDA's own error name.
 */
#include "cuda_int.h"

grError_t gr__cu_error(int result)
{
    switch (result) {
    case CUDA_SUCCESS:
        return grSuccess;
    case CUDA_ERROR_INVALID_VALUE:
        return grErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return grErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_NO_DEVICE:
        return grErrorInitializationError;
    case CUDA_ERROR_INVALID_DEVICE:
        return grErrorInvalidDevice;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_NOT_FOUND:
        return grErrorInvalidDeviceFunction;
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_INVALID_HANDLE:
        return grErrorInvalidResourceHandle;
    case CUDA_ERROR_ILLEGAL_STATE:
        return grErrorIllegalState;
    case CUDA_ERROR_NOT_READY:
        return grErrorNotReady;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        return grErrorIllegalAddress;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        return grErrorLaunchOutOfResources;
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
        return grErrorCooperativeLaunchTooLarge;
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
        return grErrorLaunchFailure;
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
        return grErrorPeerAccessUnsupported;
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
        return grErrorPeerAccessAlreadyEnabled;
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED:
        return grErrorPeerAccessNotEnabled;
    case CUDA_ERROR_NOT_PERMITTED:
        return grErrorNotPermitted;
    case CUDA_ERROR_NOT_SUPPORTED:
        return grErrorNotSupported;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
        return grErrorStreamCaptureUnsupported;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
        return grErrorStreamCaptureInvalidated;
    case CUDA_ERROR_STREAM_CAPTURE_MERGE:
        return grErrorStreamCaptureMerge;
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
        return grErrorStreamCaptureUnmatched;
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
        return grErrorStreamCaptureUnjoined;
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
        return grErrorStreamCaptureIsolation;
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
        return grErrorStreamCaptureImplicit;
    case CUDA_ERROR_CAPTURED_EVENT:
        return grErrorCapturedEvent;
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
        return grErrorStreamCaptureWrongThread;
    case CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE:
        return grErrorGraphExecUpdateFailure;
    default:
        return grErrorUnknown;
    }
}

const char *gr__cu_error_name(int result)
{
    const char *s = NULL;
    if (gr_cu.cuGetErrorName && gr_cu.cuGetErrorName(result, &s) == CUDA_SUCCESS && s)
        return s;
    return "an unrecognized CUresult";
}

grError_t gr__cu_fail(const char *call, int device, const char *what, int result)
{
    const char *text = NULL;
    if (!gr_cu.cuGetErrorString || gr_cu.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
        text = "no description";
    grError_t err = gr__cu_error(result);
    if (err == grSuccess)
        err = grErrorUnknown;
    return gr__fail(err, "%s: %s failed on device %d (CUDA device %d) with %s (%d: %s)", call, what, device,
                    device - 1, gr__cu_error_name(result), result, text);
}
