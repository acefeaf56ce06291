/*
 * api.h - what the API files share: the checked, stream-ordered copy of
 * api/memory.c that the pitched copies (copy2d.c) and the symbol copies
 * (symbol.c) reuse, so that every copy keeps one set of rules.
 */
#ifndef GR_API_INT_H
#define GR_API_INT_H

#include "../backend/backend.h"
#include "../memory/memory.h"

/* A 1D copy as grMemcpyAsync makes it, with 'call' in every detail:
 * checked, then recorded (capturing stream), queued (CPU stream) or handed
 * to the driver (GPU memory or stream). 'sync': one of the synchronous
 * forms (potentially unsafe during capture); the caller then waits with
 * gr__api_wait_legacy(call, *out) when count > 0. */
grError_t gr__api_copy_enqueue(const char *call, void *dst, const void *src, size_t count, grMemcpyKind kind,
                               grStream_t stream, bool sync, gr_stream **out);

/* grMemcpy3D (sync, stream ignored) or grMemcpy3DAsync with 'call' in
 * every detail (copy2d.c): what the peer and batch 3D copies issue. */
grError_t gr__api_copy_3d(const char *call, const grMemcpy3DParms *p, grStream_t stream, bool sync);

/* grDeviceReset of 'device': the peer access it enabled goes, as its
 * context's mappings do in CUDA (peer.c). */
void gr__api_peer_reset(int device);

/* The synchronous forms' wait for the legacy stream s (sticky errors
 * reported here). */
grError_t gr__api_wait_legacy(const char *call, gr_stream *s);

/* An allocation as grMalloc (kind GR_MEM_DEVICE) or grMallocHost
 * (GR_MEM_HOST) makes it, with 'call' in every detail: the output and the
 * capture mode checked, size 0 giving NULL, the current device's memory
 * (pinned host memory where GPUs exist), tracked. */
grError_t gr__api_alloc(const char *call, void **out, size_t size, gr_mem_kind kind);

/* Managed memory of GPU 'device' (>= 1; flags checked), tracked as its
 * grMalloc memory is and freed by grFree; the caller notes it managed. */
grError_t gr__api_alloc_managed(const char *call, void **out, size_t size, unsigned flags, int device);

/* The GPU whose memory a or b is (either may be NULL); 0: neither. */
int gr__api_gpu_of(const void *a, const void *b);

/* grDeviceReset of the CPU: the limits of grDeviceSetLimit go back to
 * their defaults (device_limits.c). */
void gr__api_limits_reset(void);

#endif /* GR_API_INT_H */
