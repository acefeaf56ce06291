/*
 * peer.c - peer access and peer copies: grDeviceCanAccessPeer,
 * grDeviceEnablePeerAccess / DisablePeerAccess, grMemcpyPeer(Async) and
 * grMemcpy3DPeer(Async).
 *
 * Addresses are unified, so a copy's pointers say which devices it
 * touches: the peer copies are grMemcpy / grMemcpy3D copies (the
 * cross-device rules of backend/cross_device.c) once the two device
 * numbers are checked. Peer access is between two GPUs only: the CPU
 * device's memory is plain host memory that a GPU kernel cannot
 * dereference, and a CPU kernel cannot dereference a GPU's memory, so the
 * CPU device and a GPU answer 0 both ways (copies between them work
 * without it).
 *
 * Invariants: 'peers' holds which ordered pairs are enabled, guarded by
 * its lock; the lock is held across the driver's mapping so that two
 * threads enabling one pair cannot both succeed. A device's reset drops
 * the access it enabled (gr__api_peer_reset).
 */
#include "../backend/device.h"
#include "api.h"

#include <pthread.h>

static struct {
    pthread_mutex_t lock;
    uint64_t enabled[GR_MAX_GPUS + 1]; /* bit p of [d]: d maps p's memory; guarded by lock */
} peers = {PTHREAD_MUTEX_INITIALIZER, {0}};

static grError_t check_device(const char *call, int device, const char *what)
{
    if (gr__device_exists(device))
        return grSuccess;
    int gpus = gr__gpu_count();
    if (gpus == 0)
        return gr__fail(grErrorInvalidDevice, "%s: %s %d names no device; the only device is 0 (the CPU)",
                        call, what, device);
    return gr__fail(grErrorInvalidDevice, "%s: %s %d names no device; the devices are 0 (the CPU) and 1..%d",
                    call, what, device, gpus);
}

/* Whether 'device' can map 'peer''s memory (both exist). */
static grError_t can_access(const char *call, int device, int peer, int *can)
{
    *can = 0;
    if (device == peer || device == 0 || peer == 0)
        return grSuccess;
    const gr_device_ops *k = gr__devkind();
    if (!k->peer_access) {
        *can = 1;
        return grSuccess;
    }
    return k->peer_access(call, device, peer, GR_PEER_QUERY, can);
}

GR_API grError_t grDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    static const char call[] = "grDeviceCanAccessPeer";
    grError_t err;
    int can;
    if (!canAccessPeer)
        return gr__fail(grErrorInvalidValue, "%s: 'canAccessPeer' (the output pointer) is NULL", call);
    if ((err = check_device(call, device, "device")) != grSuccess ||
        (err = check_device(call, peerDevice, "peerDevice")) != grSuccess ||
        (err = can_access(call, device, peerDevice, &can)) != grSuccess)
        return err;
    *canAccessPeer = can;
    return grSuccess;
}

/* Enables or disables the current device's access to 'peer'. */
static grError_t set_access(const char *call, int peer, bool enable)
{
    int device = gr__device_current();
    grError_t err;
    int can;
    if ((err = check_device(call, peer, "peerDevice")) != grSuccess)
        return err;
    if (peer == device)
        return gr__fail(grErrorInvalidDevice,
                        "%s: peerDevice %d is the current device; peer access is to another device", call,
                        peer);
    if (enable) {
        if ((err = can_access(call, device, peer, &can)) != grSuccess)
            return err;
        if (!can)
            return gr__fail(grErrorPeerAccessUnsupported,
                            "%s: device %d cannot access device %d's memory (grDeviceCanAccessPeer answers "
                            "0%s)",
                            call, device, peer,
                            device == 0 || peer == 0 ? ": the CPU device and a GPU have no peer access; copy "
                                                       "between them with grMemcpyPeer or grMemcpy"
                                                     : "");
    }
    const gr_device_ops *k = gr__devkind();
    uint64_t bit = (uint64_t)1 << peer;
    pthread_mutex_lock(&peers.lock);
    bool on = (peers.enabled[device] & bit) != 0;
    if (enable && on)
        err = gr__fail(grErrorPeerAccessAlreadyEnabled,
                       "%s: device %d has enabled access to device %d already (grDeviceEnablePeerAccess was "
                       "called before)",
                       call, device, peer);
    else if (!enable && !on)
        err = gr__fail(grErrorPeerAccessNotEnabled,
                       "%s: device %d has no access to device %d enabled; enable it with "
                       "grDeviceEnablePeerAccess first",
                       call, device, peer);
    else if (k->peer_access)
        err = k->peer_access(call, device, peer, enable ? GR_PEER_ENABLE : GR_PEER_DISABLE, &can);
    if (err == grSuccess)
        peers.enabled[device] = enable ? peers.enabled[device] | bit : peers.enabled[device] & ~bit;
    pthread_mutex_unlock(&peers.lock);
    return err;
}

GR_API grError_t grDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    static const char call[] = "grDeviceEnablePeerAccess";
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%x; CUDA reserves them: pass 0", call, flags);
    return set_access(call, peerDevice, true);
}

GR_API grError_t grDeviceDisablePeerAccess(int peerDevice)
{
    return set_access("grDeviceDisablePeerAccess", peerDevice, false);
}

void gr__api_peer_reset(int device)
{
    pthread_mutex_lock(&peers.lock);
    peers.enabled[device] = 0;
    pthread_mutex_unlock(&peers.lock);
}

/* ------------------------------------------------------------- copies */

GR_API grError_t grMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    static const char call[] = "grMemcpyPeer";
    gr_stream *s = NULL;
    grError_t err;
    if ((err = check_device(call, dstDevice, "dstDevice")) != grSuccess ||
        (err = check_device(call, srcDevice, "srcDevice")) != grSuccess)
        return err;
    err = gr__api_copy_enqueue(call, dst, src, count, grMemcpyDefault, NULL, true, &s);
    if (err != grSuccess || count == 0)
        return err;
    return gr__api_wait_legacy(call, s);
}

GR_API grError_t grMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                   grStream_t stream)
{
    static const char call[] = "grMemcpyPeerAsync";
    gr_stream *s = NULL;
    grError_t err;
    if ((err = check_device(call, dstDevice, "dstDevice")) != grSuccess ||
        (err = check_device(call, srcDevice, "srcDevice")) != grSuccess)
        return err;
    return gr__api_copy_enqueue(call, dst, src, count, grMemcpyDefault, stream, false, &s);
}

static grError_t copy_3d_peer(const char *call, const grMemcpy3DPeerParms *p, grStream_t stream, bool sync)
{
    grError_t err;
    if (!p)
        return gr__fail(grErrorInvalidValue, "%s: p is NULL; pass the copy's parameters", call);
    if ((err = check_device(call, p->dstDevice, "p->dstDevice")) != grSuccess ||
        (err = check_device(call, p->srcDevice, "p->srcDevice")) != grSuccess)
        return err;
    grMemcpy3DParms q = {
        .srcArray = p->srcArray,
        .srcPos = p->srcPos,
        .srcPtr = p->srcPtr,
        .dstArray = p->dstArray,
        .dstPos = p->dstPos,
        .dstPtr = p->dstPtr,
        .extent = p->extent,
        .kind = grMemcpyDefault,
    };
    return gr__api_copy_3d(call, &q, stream, sync);
}

GR_API grError_t grMemcpy3DPeer(const grMemcpy3DPeerParms *p)
{
    return copy_3d_peer("grMemcpy3DPeer", p, NULL, true);
}

GR_API grError_t grMemcpy3DPeerAsync(const grMemcpy3DPeerParms *p, grStream_t stream)
{
    return copy_3d_peer("grMemcpy3DPeerAsync", p, stream, false);
}
