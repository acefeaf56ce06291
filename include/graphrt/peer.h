/*
 * graphrt/peer.h - peer devices (CUDA's "Peer Device Memory Access", and
 * the peer copies of its "Memory Management"): whether one device can map
 * another's memory, enabling that access, and copies between devices named
 * by number.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_PEER_H
#define GRAPHRT_MODULE_PEER_H

#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Peer access (docs/devices.md, "Peer access and peer copies")          */
/* ====================================================================== */

/* Answers in *canAccessPeer 1 if 'device' can map peerDevice's memory
 * (grDeviceEnablePeerAccess), else 0. A device and itself answer 0, as in
 * CUDA. The CPU device (0) and a GPU answer 0 both ways: the CPU device's
 * memory is plain host memory that GPU kernels do not dereference, and
 * CPU kernels do not dereference a GPU's; copies between them need no
 * peer access (grMemcpyPeer, grMemcpy). Two GPUs answer the driver's
 * cuDeviceCanAccessPeer. Errors: grErrorInvalidValue (canAccessPeer
 * NULL), grErrorInvalidDevice (either number names no device), a CUDA
 * error mapped to graphrt's. Thread safety: any thread. Mirrors
 * cudaDeviceCanAccessPeer. */
GR_API grError_t grDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);

/* Lets the current device's kernels dereference peerDevice's memory: on
 * GPUs the driver's cuCtxEnablePeerAccess of peerDevice's primary context
 * into the current device's. Access is one way (call it on both for
 * both), and lasts until grDeviceDisablePeerAccess or the current
 * device's grDeviceReset. Errors: grErrorInvalidValue (flags not 0),
 * grErrorInvalidDevice (peerDevice names no device, or is the current
 * device), grErrorPeerAccessUnsupported (grDeviceCanAccessPeer answers 0:
 * the CPU device and a GPU), grErrorPeerAccessAlreadyEnabled (enabled
 * before), a CUDA error mapped to graphrt's. Thread safety: any thread;
 * the access is the device's. Mirrors cudaDeviceEnablePeerAccess. */
GR_API grError_t grDeviceEnablePeerAccess(int peerDevice, unsigned int flags);

/* Ends the current device's access to peerDevice's memory (the driver's
 * cuCtxDisablePeerAccess on GPUs). Errors: grErrorInvalidDevice
 * (peerDevice names no device, or is the current device),
 * grErrorPeerAccessNotEnabled (not enabled), a CUDA error mapped to
 * graphrt's. Thread safety: any thread. Mirrors
 * cudaDeviceDisablePeerAccess. */
GR_API grError_t grDeviceDisablePeerAccess(int peerDevice);

/* ====================================================================== */
/* Peer copies (docs/devices.md, "Peer access and peer copies")           */
/* ====================================================================== */

/* A 3D copy between devices: grMemcpy3DParms with the two devices and no
 * kind. Mirrors cudaMemcpy3DPeerParms; srcArray and dstArray must be
 * NULL. */
typedef struct grMemcpy3DPeerParms {
    grArray_t srcArray;
    grPos srcPos;
    grPitchedPtr srcPtr;
    int srcDevice;
    grArray_t dstArray;
    grPos dstPos;
    grPitchedPtr dstPtr;
    int dstDevice;
    grExtent extent;
} grMemcpy3DPeerParms;

/* Copies count bytes from src (memory of srcDevice) to dst (memory of
 * dstDevice), synchronously as grMemcpy. Addresses are unified, so the
 * pointers decide which memory is touched: the copy is grMemcpy's with
 * grMemcpyDefault (across the CPU device and a GPU, or two GPUs, by the
 * rules of docs/devices.md) once both device numbers are checked; peer
 * access need not be enabled, as in CUDA. count 0 copies nothing.
 * Errors: grErrorInvalidDevice (dstDevice or srcDevice names no device),
 * and grMemcpy's (a NULL pointer or a range outside the allocations:
 * grErrorInvalidValue; the capture and stream errors). Thread safety: any
 * thread. Mirrors cudaMemcpyPeer. */
GR_API grError_t grMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);

/* grMemcpyPeer queued on a stream as grMemcpyAsync queues a copy (a
 * memcpy node on a capturing stream). Errors: as grMemcpyPeer plus
 * grMemcpyAsync's capture and stream errors. Thread safety: any thread.
 * Mirrors cudaMemcpyPeerAsync. */
GR_API grError_t grMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                   grStream_t stream);

/* The 3D copy of *p between its two devices, synchronously: grMemcpy3D
 * of the same fields with grMemcpyDefault once p->srcDevice and
 * p->dstDevice are checked. Errors: grErrorInvalidValue (p NULL),
 * grErrorInvalidDevice (a device number naming no device), and
 * grMemcpy3D's. Thread safety: any thread. Mirrors cudaMemcpy3DPeer. */
GR_API grError_t grMemcpy3DPeer(const grMemcpy3DPeerParms *p);

/* grMemcpy3DPeer queued on a stream, captured as grMemcpy3DAsync.
 * Errors: as grMemcpy3DPeer plus the capture and stream errors. Thread
 * safety: any thread. Mirrors cudaMemcpy3DPeerAsync. */
GR_API grError_t grMemcpy3DPeerAsync(const grMemcpy3DPeerParms *p, grStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_PEER_H */
