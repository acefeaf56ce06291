/*
 * graphrt/memory.h - memory: CUDA's "Memory Management": allocation, copies and
 * memsets (1D, pitched 2D and 3D, batches), pointer attributes, host and
 * registered host memory. Managed memory's hints are in managed.h,
 * symbols in symbols.h, peer copies in peer.h; the graph nodes that copy
 * are in nodes.h.
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_MEMORY_H
#define GRAPHRT_MODULE_MEMORY_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Memory                                                                 */
/* ====================================================================== */

/* Allocates 'size' bytes (256-aligned) of the calling thread's current
 * device (on a GPU, cuMemAlloc), tracked by graphrt, so that copies and
 * memsets that run past its end are refused. size 0 gives NULL and
 * grSuccess, as in CUDA. Potentially unsafe during capture (see
 * grStreamCaptureMode), even for size 0. Errors: grErrorInvalidValue
 * (devPtr NULL), grErrorMemoryAllocation (more than the host's physical
 * memory, or the host cannot provide it; on a GPU, the driver's
 * CUDA_ERROR_OUT_OF_MEMORY, named in the detail); plus the mode errors.
 * Thread safety: any thread.
 * Mirrors cudaMalloc. */
GR_API grError_t grMalloc(void **devPtr, size_t size);

/* Frees a grMalloc allocation after the device is idle, as in CUDA. Memory
 * from grMallocAsync / grMallocFromPoolAsync, and a graph allocation that
 * outlived its launch, are freed the same way, as cudaFree frees them. NULL
 * is a no-op. Potentially unsafe during capture (see grStreamCaptureMode).
 * Errors: grErrorInvalidValue (a pointer no graphrt allocator returned,
 * freed already, inside an allocation instead of at its base, from
 * grMallocHost, a graph allocation that is not allocated now, or freed by
 * another thread while this call waited; nothing is freed),
 * grErrorInitializationError (pool memory: the runtime could not start),
 * grErrorMemoryAllocation (a block of a destroyed pool: out of memory
 * queuing its release); plus the mode errors.
 * Thread safety: any thread. Mirrors cudaFree. */
GR_API grError_t grFree(void *devPtr);

/* Allocates host memory, tracked as grMalloc's is; size 0 gives NULL.
 * Where a GPU exists it is pinned (cuMemHostAlloc, portable to every
 * GPU), as CUDA's; otherwise plain memory.
 * Potentially unsafe during capture (see grStreamCaptureMode). Errors: as
 * grMalloc (grErrorInvalidValue for ptr NULL, grErrorMemoryAllocation, the
 * mode errors).
 * Thread safety: any thread. Mirrors cudaMallocHost. */
GR_API grError_t grMallocHost(void **ptr, size_t size);

/* Frees grMallocHost memory after the device is idle. NULL is a no-op.
 * Potentially unsafe during capture (see grStreamCaptureMode). Errors:
 * grErrorInvalidValue (a pointer grMallocHost did not return, freed
 * already, inside an allocation instead of at its base, or freed by another
 * thread while this call waited; nothing is freed); plus the mode errors.
 * Thread safety: any thread.
 * Mirrors cudaFreeHost. */
GR_API grError_t grFreeHost(void *ptr);

/* Copies count bytes; synchronises like CUDA's (waits for the legacy
 * stream's work first), except that a copy of 0 bytes does not wait. Any
 * grMemcpyKind is accepted: the direction comes from the pointers (a host
 * copy on the CPU; the driver's copy where GPU memory is involved, see
 * docs/devices.md). Not refused by the
 * capture modes. Errors: grErrorInvalidMemcpyDirection (kind not a
 * grMemcpyKind), grErrorInvalidValue (dst or src NULL with count > 0; a
 * range that wraps around the address space, runs past the end of a
 * graphrt allocation, or starts outside the allocations and reaches into
 * one), grErrorStreamCaptureImplicit (a blocking stream takes part in a
 * capture: the captures with a blocking stream are invalidated),
 * grErrorInitializationError (the runtime could not start),
 * grErrorMemoryAllocation.
 * Thread safety: any thread. Mirrors cudaMemcpy. */
GR_API grError_t grMemcpy(void *dst, const void *src, size_t count, grMemcpyKind kind);

/* Queues a copy on the stream; on a capturing stream it adds a memcpy node
 * instead (none for 0 bytes). Errors: grErrorInvalidMemcpyDirection and
 * grErrorInvalidValue as grMemcpy, grErrorMemoryAllocation; plus the
 * capture errors of work (of which a copy of 0 bytes can return only
 * grErrorStreamCaptureInvalidated) and the stream errors.
 * Thread safety: any thread. Mirrors
 * cudaMemcpyAsync. */
GR_API grError_t grMemcpyAsync(void *dst, const void *src, size_t count, grMemcpyKind kind,
                               grStream_t stream);

/* Sets count bytes to (unsigned char)value, synchronously (as grMemcpy:
 * after the legacy stream's work; 0 bytes do not wait). Not refused by
 * the capture modes. Errors: grErrorInvalidValue (devPtr NULL with
 * count > 0; a range refused as grMemcpy refuses one),
 * grErrorStreamCaptureImplicit (as grMemcpy), grErrorInitializationError
 * (the runtime could not start), grErrorMemoryAllocation.
 * Thread safety: any thread. Mirrors
 * cudaMemset. */
GR_API grError_t grMemset(void *devPtr, int value, size_t count);

/* Queues a memset on the stream; on a capturing stream it adds a memset
 * node instead (none for 0 bytes). Errors: grErrorInvalidValue as grMemset,
 * grErrorMemoryAllocation; plus the capture errors of work (of which a
 * memset of 0 bytes can return only grErrorStreamCaptureInvalidated) and
 * the stream errors.
 * Thread safety: any thread. Mirrors cudaMemsetAsync. */
GR_API grError_t grMemsetAsync(void *devPtr, int value, size_t count, grStream_t stream);

/* Free and total memory of the calling thread's current device, in bytes.
 * On the CPU (device 0): the host's memory as /proc/meminfo tells it
 * (MemAvailable, which counts reclaimable caches as free, and MemTotal),
 * or sysconf's available and physical pages where /proc is not mounted;
 * the figures are the system's, not a limit set on the process (cgroups,
 * ulimit). On a GPU: the driver's cuMemGetInfo in that device's primary
 * context. *freeBytes <= *totalBytes. Errors: grErrorInvalidValue (either
 * NULL; nothing is written), grErrorNotSupported (the host's memory cannot
 * be read), grErrorCallRequiresNewerDriver (the driver lacks
 * cuMemGetInfo_v2), a CUDA error mapped to
 * graphrt's with CUDA's name in the detail. Thread safety: any thread.
 * Mirrors cudaMemGetInfo. */
GR_API grError_t grMemGetInfo(size_t *freeBytes, size_t *totalBytes);

/* The kinds of memory grPointerGetAttributes tells apart (CUDA's
 * cudaMemoryType, same values). */
typedef enum grMemoryType {
    grMemoryTypeUnregistered = 0, /* host memory graphrt and the driver do not know */
    grMemoryTypeHost = 1,         /* grMallocHost, or host memory the driver pinned */
    grMemoryTypeDevice = 2,       /* grMalloc, pools, graph allocations, cuMemAlloc */
    grMemoryTypeManaged = 3       /* the driver's managed memory (cudaMallocManaged) */
} grMemoryType;

/* The device number grPointerGetAttributes gives unregistered memory
 * (CUDA's cudaInvalidDeviceId). */
#define grInvalidDeviceId (-2)

/* What grPointerGetAttributes tells of a pointer: CUDA's
 * cudaPointerAttributes fields, with graphrt's device numbers (0 the CPU,
 * 1..N the GPUs). */
typedef struct grPointerAttributes {
    grMemoryType type;
    int device;          /* where the memory lives or was allocated */
    void *devicePointer; /* the address a device uses, or NULL */
    void *hostPointer;   /* the address the host uses, or NULL */
} grPointerAttributes;

/* Fills *attributes for ptr, which may point anywhere inside an
 * allocation (the pointers returned are ptr itself: addresses are unified).
 *   - graphrt's allocations, known to its tracker: grMalloc, a pool
 *     (grMallocAsync, grMallocFromPoolAsync) or a graph allocation is
 *     grMemoryTypeDevice, device the one it was allocated on; a GPU's has
 *     devicePointer ptr and hostPointer NULL; the CPU's (device 0) is host
 *     memory, so hostPointer is ptr too (CUDA has no such device).
 *     grMallocHost memory is grMemoryTypeHost with both pointers ptr and
 *     device 0 when it is plain memory, or 1 (the first GPU, whose context
 *     holds graphrt's pinned memory) when it is pinned (grHostAlloc's
 *     too); grMallocManaged memory is grMemoryTypeManaged of the device
 *     it was allocated on (0, or a GPU) with both pointers ptr;
 *   - a range registered with grHostRegister is grMemoryTypeHost of
 *     device 0 with both pointers ptr;
 *   - other pointers, once a GPU is in use, are asked of the driver
 *     (cuPointerGetAttribute): device, pinned (grMemoryTypeHost) or managed
 *     memory it knows, with its device and aliases;
 *   - anything else, NULL included, is grMemoryTypeUnregistered with
 *     device grInvalidDeviceId, devicePointer NULL and hostPointer ptr:
 *     grSuccess, as CUDA 11 and later answer (older CUDA returned
 *     cudaErrorInvalidValue).
 * Memory freed since is what its address now is: usually unregistered.
 * Errors: grErrorInvalidValue (attributes NULL). Thread safety: any thread;
 * the answer describes the allocation live during the call. Mirrors
 * cudaPointerGetAttributes. */
GR_API grError_t grPointerGetAttributes(grPointerAttributes *attributes, const void *ptr);

/* The flags of grMallocManaged (grMemAttachGlobal and grMemAttachHost,
 * defined with grStreamAttachMemAsync above). */

/* Allocates 'size' bytes of managed memory: memory the host and every
 * device reach through the same pointer. On the CPU (device 0) all device
 * memory is host memory, so managed memory is a grMalloc allocation
 * (256-aligned, tracked, freed with grFree or grFreeAsync, reported by
 * grPointerGetAttributes as grMemoryTypeManaged of device 0, usable by
 * grStreamAttachMemAsync). flags: grMemAttachGlobal (any stream may use
 * it) or grMemAttachHost (CUDA: devices without concurrent managed access
 * need grStreamAttachMemAsync first; the CPU has concurrent access, so it
 * changes nothing). Unlike grMalloc, size 0 is refused, as in CUDA.
 * With a GPU current it is the driver's managed memory
 * (cuMemAllocManaged with flags), which the host and every GPU reach and
 * the driver migrates; it is tracked as that GPU's grMalloc memory
 * (copies and memsets are bounds-checked), freed with grFree, reported
 * by grPointerGetAttributes as grMemoryTypeManaged of that GPU, and its
 * hints and queries go to the driver (managed.h).
 * Potentially unsafe during capture, as grMalloc. Errors:
 * grErrorInvalidValue (devPtr NULL, size 0, flags not exactly one of the
 * two), grErrorMemoryAllocation (as grMalloc), on a GPU the driver's
 * error mapped to graphrt's; plus the mode errors.
 * Thread safety: any thread. Mirrors cudaMallocManaged (in C, without
 * CUDA's C++ default for flags). */
GR_API grError_t grMallocManaged(void **devPtr, size_t size, unsigned int flags);

/* The flags of grHostAlloc and grHostGetFlags, with CUDA's values. */
#define grHostAllocDefault 0x00u
#define grHostAllocPortable 0x01u
#define grHostAllocMapped 0x02u
#define grHostAllocWriteCombined 0x04u

/* Allocates 'size' bytes of host memory as grMallocHost does (pinned by
 * the driver where a GPU exists, plain memory otherwise; tracked; freed
 * with grFreeHost), remembering 'flags' for grHostGetFlags. Every flag
 * is accepted and has its effect on a system with unified addressing,
 * which graphrt's is: the memory is portable to every device and mapped
 * (grHostGetDevicePointer gives its device address, the pointer itself);
 * write-combining is a hint for PCIe transfers that the CPU device
 * ignores. size 0 gives NULL, as grMallocHost. Potentially unsafe during
 * capture. Errors: grErrorInvalidValue (pHost NULL, flags with bits
 * outside the four), grErrorMemoryAllocation; plus the mode errors.
 * Thread safety: any thread. Mirrors cudaHostAlloc. */
GR_API grError_t grHostAlloc(void **pHost, size_t size, unsigned int flags);

/* The device address of mapped host memory: pHost inside a grHostAlloc or
 * grMallocHost allocation, or inside a range registered with
 * grHostRegister. Addresses are unified, so *pDevice is pHost itself, as
 * CUDA returns where every device can use host pointers for registered
 * memory; with a GPU current the driver answers
 * (cuMemHostGetDevicePointer, the same address). Errors:
 * grErrorInvalidValue (pDevice NULL, flags not 0, pHost in no such
 * allocation or range: plain host memory, grMalloc memory), on a GPU the
 * driver's error mapped to graphrt's.
 * Thread safety: any thread. Mirrors cudaHostGetDevicePointer. */
GR_API grError_t grHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);

/* The flags of the host allocation holding pHost: what grHostAlloc was
 * given; grMallocHost memory reports grHostAllocDefault (CUDA's
 * cudaMallocHost is cudaHostAlloc with the default flags). Errors:
 * grErrorInvalidValue (pFlags NULL, pHost in no grHostAlloc or
 * grMallocHost allocation). Thread safety: any thread. Mirrors
 * cudaHostGetFlags. */
GR_API grError_t grHostGetFlags(unsigned int *pFlags, void *pHost);

/* The flags of grHostRegister, with CUDA's values. */
#define grHostRegisterDefault 0x00u
#define grHostRegisterPortable 0x01u
#define grHostRegisterMapped 0x02u
#define grHostRegisterIoMemory 0x04u
#define grHostRegisterReadOnly 0x08u

/* Registers [ptr, ptr + size), host memory the application allocated, as
 * pinned host memory: from now on grPointerGetAttributes reports it as
 * grMemoryTypeHost and grHostGetDevicePointer gives its device address
 * (the pointer itself). On the CPU device nothing else changes (every
 * device reaches host memory already); where GPUs exist the range is
 * also page-locked and mapped for every GPU by the driver
 * (cuMemHostRegister with the flags, plus Portable and DeviceMap, in the
 * first GPU's context), so copies between it and a GPU run at pinned
 * speed; a range the driver refuses is not registered (its error mapped
 * to graphrt's: the driver locks whole pages, and refuses with
 * grErrorInvalidValue a range whose page another range holds with
 * grHostRegisterReadOnly and this one without it). grHostRegisterIoMemory
 * (memory-mapped I/O of another PCIe device) is refused with
 * grErrorNotSupported: graphrt cannot map device I/O space. Errors:
 * grErrorInvalidValue (ptr NULL, size 0, flags outside the four, a range
 * that wraps, or reaches into memory graphrt allocated other than
 * grMallocHost / grHostAlloc memory), grErrorHostMemoryAlreadyRegistered
 * (the range overlaps a registered range, or lies in grMallocHost /
 * grHostAlloc memory, which is pinned already), grErrorNotSupported
 * (grHostRegisterIoMemory), grErrorMemoryAllocation (no memory to record
 * the range). A refused call registers nothing. Thread safety: any
 * thread. Mirrors cudaHostRegister. */
GR_API grError_t grHostRegister(void *ptr, size_t size, unsigned int flags);

/* Unregisters the range grHostRegister registered at ptr (its start),
 * with the driver too where GPUs exist (cuMemHostUnregister).
 * Errors: grErrorInvalidValue (ptr NULL), grErrorHostMemoryNotRegistered
 * (no range registered starts at ptr), the driver's error mapped to
 * graphrt's (the range is unregistered from graphrt all the same).
 * Thread safety: any thread. Mirrors cudaHostUnregister. */
GR_API grError_t grHostUnregister(void *ptr);

typedef struct grPos {
    size_t x, y, z;
} grPos;

typedef struct grExtent {
    size_t width, height, depth;
} grExtent;

typedef struct grPitchedPtr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
} grPitchedPtr;

/* CUDA arrays (cudaArray_t) are not part of graphrt: the type exists so
 * that grMemcpy3DParms keeps CUDA's fields; every call refuses a non-NULL
 * array with grErrorInvalidValue and a detail. */
typedef struct grArray_st *grArray_t;

/* A pitched copy: extent.width bytes per row, extent.height rows per
 * slice, extent.depth slices; a pitched pointer's rows are 'pitch' bytes
 * apart and its slices pitch * ysize bytes apart; a position is (byte,
 * row, slice). What grGraphMemcpyNodeGetParams reports: the parameters
 * as given for a node made from 3D parameters, and for a 1D copy extent
 * {count, 1, 1}, pitched pointers {ptr, count, count, 1} and positions 0.
 * Mirrors cudaMemcpy3DParms; srcArray and dstArray must be NULL. */
typedef struct grMemcpy3DParms {
    grArray_t srcArray;
    grPos srcPos;
    grPitchedPtr srcPtr;
    grArray_t dstArray;
    grPos dstPos;
    grPitchedPtr dstPtr;
    grExtent extent;
    grMemcpyKind kind;
} grMemcpy3DParms;

/* ====================================================================== */
/* Pitched (2D and 3D) copies and memsets (docs/memory.md)                */
/* ====================================================================== */

/* The constructors of CUDA's make_cudaPitchedPtr, make_cudaExtent and
 * make_cudaPos. */
static inline grPitchedPtr make_grPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    grPitchedPtr r = {d, p, xsz, ysz};
    return r;
}

static inline grExtent make_grExtent(size_t w, size_t h, size_t d)
{
    grExtent r = {w, h, d};
    return r;
}

static inline grPos make_grPos(size_t x, size_t y, size_t z)
{
    grPos r = {x, y, z};
    return r;
}

/* Allocates at least width * height bytes of the current device's memory
 * as a pitched 2D array: rows *pitch bytes apart, *pitch the width
 * rounded up to a multiple of GR_PITCH_ALIGN (512: CUDA documents only
 * a pitch of at least width that keeps rows aligned; 512 is graphrt's
 * choice, what current GPUs' cudaMallocPitch pads narrow rows to), so
 * that every row starts aligned. On a GPU the memory comes from the
 * driver's cuMemAlloc, as grMalloc's (cuMemAllocPitch is not called). The
 * memory is a grMalloc allocation of *pitch * height bytes (freed with
 * grFree). A width or height of 0 allocates nothing: *devPtr NULL,
 * *pitch 0 and grSuccess, as grMalloc(0) (CUDA documents no rule for it).
 * Potentially unsafe during capture, as grMalloc. Errors:
 * grErrorInvalidValue (devPtr or pitch NULL), grErrorMemoryAllocation
 * (as grMalloc, or pitch * height overflows); plus the mode errors.
 * Thread safety: any thread. Mirrors cudaMallocPitch. */
#define GR_PITCH_ALIGN 512u
GR_API grError_t grMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);

/* Allocates a pitched 3D array of extent.depth slices of extent.height
 * rows of extent.width bytes: *pitchedDevPtr is {ptr, pitch, width,
 * height}, rows pitch bytes apart (as grMallocPitch) and slices pitch *
 * height bytes apart, the layout grMemcpy3D and grMemset3D take. An
 * extent with a 0 member gives {NULL, 0, width, height} and grSuccess.
 * Potentially unsafe during capture. Errors: grErrorInvalidValue
 * (pitchedDevPtr NULL), grErrorMemoryAllocation (as grMalloc, or the size
 * overflows); plus the mode errors. Thread safety: any thread. Mirrors
 * cudaMalloc3D. */
GR_API grError_t grMalloc3D(grPitchedPtr *pitchedDevPtr, grExtent extent);

/* How a copy of a batch reads its source. Mirrors cudaMemcpySrcAccessOrder
 * (CUDA's values): Stream, the source is read in stream order;
 * DuringApiCall, it may be read before the call returns (and must not be
 * touched by earlier work of the stream); Any, it may be read any time
 * until the copy completes. */
typedef enum grMemcpySrcAccessOrder {
    grMemcpySrcAccessOrderInvalid = 0,
    grMemcpySrcAccessOrderStream = 1,
    grMemcpySrcAccessOrderDuringApiCall = 2,
    grMemcpySrcAccessOrderAny = 3,
    grMemcpySrcAccessOrderMax = 0x7fffffff
} grMemcpySrcAccessOrder;

/* The flags of grMemcpyAttributes (CUDA's values). Mirrors
 * cudaMemcpyFlags. */
#define grMemcpyFlagDefault 0x0u
#define grMemcpyFlagPreferOverlapWithCompute 0x1u

/* The attributes of some copies of a batch. The location hints matter to
 * CUDA for managed memory only; graphrt checks their type (Invalid,
 * Device or Host, as cudaMemLocation) and otherwise ignores them. Mirrors
 * cudaMemcpyAttributes. */
typedef struct grMemcpyAttributes {
    grMemcpySrcAccessOrder srcAccessOrder;
    grMemLocation srcLocHint;
    grMemLocation dstLocHint;
    unsigned int flags;
} grMemcpyAttributes;

/* Queues 'count' copies on the stream: sizes[i] bytes from srcs[i] to
 * dsts[i]. The batch as a whole is in stream order; its copies run in no
 * particular order among themselves (copies that overlap give undefined
 * bytes, as in CUDA). Every copy has attributes: attrs[k] applies to the
 * copies from attrsIdxs[k] to the next entry's first copy (or the last);
 * attrsIdxs[0] must be 0, the entries strictly increasing and below
 * count, numAttrs between 1 and count. Every copy is checked (as
 * grMemcpyAsync checks one, grMemcpyDefault direction) before any is
 * queued: a refused batch queues nothing. On the CPU device the copies
 * are queued on the stream in order; on a GPU stream each goes to the
 * driver as grMemcpyAsync's does (cuMemcpyAsync; the driver's
 * cuMemcpyBatchAsync is not called). On a capturing stream the batch
 * adds one memcpy node per copy, each depending on the one before
 * (CUDA 13.3 records one batch memcpy node, a node type graphrt does not
 * have; the chain is one of the orders that node may run its copies in).
 * Errors: grErrorInvalidValue (count 0, dsts / srcs / sizes / attrs /
 * attrsIdxs NULL, a size of 0, a NULL pointer, a copy refused as
 * grMemcpyAsync refuses one; numAttrs 0 or above count, attrsIdxs[0] not
 * 0, entries not strictly increasing or not below count, a
 * srcAccessOrder that is not Stream, DuringApiCall or Any, flags other
 * than grMemcpyFlagPreferOverlapWithCompute, a location hint of another
 * type; the legacy default stream, NULL or grStreamLegacy, which CUDA
 * refuses for batches), grErrorMemoryAllocation; plus the capture errors
 * of work and the stream errors. Thread safety: any thread. Mirrors
 * cudaMemcpyBatchAsync (CUDA 13's form, without failIdx, as CUDA 13.0's
 * cuda_runtime_api.h declares it). */
GR_API grError_t grMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                    size_t count, grMemcpyAttributes *attrs, size_t *attrsIdxs,
                                    size_t numAttrs, grStream_t hStream);

/* One copy with attributes: grMemcpyBatchAsync of a single copy (CUDA
 * documents the attributes by reference to the batch), with the same
 * checks, GPU lowering and capture (one memcpy node). Errors: as
 * grMemcpyBatchAsync (attr NULL, size 0, dst or src NULL, a copy refused
 * as grMemcpyAsync refuses one, the attribute's rules, the legacy
 * stream), grErrorMemoryAllocation; plus the capture errors of work and
 * the stream errors. Thread safety: any thread. Mirrors
 * cudaMemcpyWithAttributesAsync (CUDA 13). */
GR_API grError_t grMemcpyWithAttributesAsync(void *dst, const void *src, size_t size,
                                             grMemcpyAttributes *attr, grStream_t stream);

/* Copies height rows of width bytes from src (rows spitch bytes apart) to
 * dst (rows dpitch bytes apart), synchronously as grMemcpy (after the
 * legacy stream's work). width or height 0 copies nothing (success, no
 * wait). The rows are copied one by one; overlapping rows are undefined in
 * CUDA (graphrt copies each row as memmove). The region, from its first
 * row's start to its last row's end, is bounds-checked as grMemcpy checks
 * a range (the detail names the row at fault where a row runs past its
 * allocation). Potentially unsafe during
 * capture as grMemcpy; on a capturing stream a copy is recorded only when
 * it is one contiguous range (see grMemcpy2DAsync). A contiguous copy is
 * grMemcpy's; another one on a GPU stream, or touching a GPU's memory, is
 * the driver's cuMemcpy3DAsync (cuMemsetD2D8Async for the memsets below).
 * The codes are CUDA 13's, probed on an H200 (docs/memory.md). Errors:
 * grErrorInvalidMemcpyDirection (kind not a grMemcpyKind),
 * grErrorInvalidPitchValue (height > 1 and width greater than dpitch or
 * spitch), grErrorInvalidValue (one row and a pitch neither 0 nor at least
 * width; dst or src NULL with a copy to do; a region that overflows the
 * address space; a row outside the allocations); plus grMemcpy's capture
 * and stream errors.
 * Thread safety: any thread. Mirrors cudaMemcpy2D. */
GR_API grError_t grMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, grMemcpyKind kind);

/* grMemcpy2D queued on a stream. On a capturing stream, a copy whose rows
 * are contiguous on both sides (pitches equal to width, or height 1)
 * becomes a 1D memcpy node; any other copy becomes one memcpy node whose
 * grGraphMemcpyNodeGetParams gives srcPtr {src, spitch, width, height},
 * dstPtr {dst, dpitch, width, height} and extent {width, height, 1}
 * (an empty copy records nothing). Errors: as grMemcpy2D, plus grMemcpyAsync's capture and
 * stream errors. Thread safety: any thread. Mirrors cudaMemcpy2DAsync. */
GR_API grError_t grMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t height, grMemcpyKind kind, grStream_t stream);

/* A 3D copy of p->extent (width bytes, height rows, depth slices) from
 * p->srcPtr at p->srcPos to p->dstPtr at p->dstPos, synchronously as
 * grMemcpy. A pitched pointer's slices are pitch * ysize bytes apart;
 * xsize is not used. A zero extent copies nothing. The codes are CUDA
 * 13's, probed on an H200. Errors: grErrorInvalidPitchValue (with more
 * than one row, a pitch smaller than the width; with depth > 1, a ysize
 * smaller than the height), grErrorInvalidValue (p NULL; srcArray or
 * dstArray not NULL: arrays are not part of graphrt; a NULL ptr with a
 * copy to do; one row and a pitch neither 0 nor at least the width;
 * pos.x + width beyond the pitch; depth 1 and a ysize neither 0 nor at
 * least the height; a row outside the allocations),
 * grErrorInvalidMemcpyDirection; plus grMemcpy's capture and stream
 * errors. Thread safety: any thread. Mirrors cudaMemcpy3D. */
GR_API grError_t grMemcpy3D(const grMemcpy3DParms *p);

/* grMemcpy3D queued on a stream; captured as grMemcpy2DAsync captures (a
 * contiguous copy becomes a 1D memcpy node, any other one memcpy node
 * whose grGraphMemcpyNodeGetParams gives *p back). Errors: as grMemcpy3D plus the capture and stream
 * errors. Thread safety: any thread. Mirrors cudaMemcpy3DAsync. */
GR_API grError_t grMemcpy3DAsync(const grMemcpy3DParms *p, grStream_t stream);

/* ====================================================================== */
/* Batches of 3D copies                                                   */
/* ====================================================================== */

/* What an operand of grMemcpy3DBatchAsync is (CUDA's values). Mirrors
 * cudaMemcpy3DOperandType. */
typedef enum grMemcpy3DOperandType {
    grMemcpyOperandTypePointer = 0x1,
    grMemcpyOperandTypeArray = 0x2,
    grMemcpyOperandTypeMax = 0x7fffffff
} grMemcpy3DOperandType;

/* An offset into an array, in elements. Mirrors cudaOffset3D. */
typedef struct grOffset3D {
    size_t x, y, z;
} grOffset3D;

/* One side of a copy of grMemcpy3DBatchAsync: a pointer with its row
 * length and layer height in elements (bytes, for a copy between
 * pointers; 0: the copy's width / height, rows packed), or an array
 * (refused: graphrt has no arrays). Mirrors cudaMemcpy3DOperand. */
typedef struct grMemcpy3DOperand {
    grMemcpy3DOperandType type;
    union {
        struct {
            void *ptr;
            size_t rowLength;
            size_t layerHeight;
            grMemLocation locHint;
        } ptr;
        struct {
            grArray_t array;
            grOffset3D offset;
        } array;
    } op;
} grMemcpy3DOperand;

/* One copy of grMemcpy3DBatchAsync: extent (width bytes, height rows,
 * depth layers, none 0) from src to dst, with grMemcpyAttributes' access
 * order and flags. Mirrors cudaMemcpy3DBatchOp. */
typedef struct grMemcpy3DBatchOp {
    grMemcpy3DOperand src;
    grMemcpy3DOperand dst;
    grExtent extent;
    grMemcpySrcAccessOrder srcAccessOrder;
    unsigned int flags;
} grMemcpy3DBatchOp;

/* Queues numOps 3D copies on the stream; the batch is in stream order,
 * its copies in no order among themselves (as grMemcpyBatchAsync). Each
 * copy between pointer operands is grMemcpy3DAsync's with pitched
 * pointers {ptr, rowLength, width, layerHeight} (0 lengths: the extent's)
 * at position 0: queued on a CPU stream, handed to the driver for GPU
 * memory or a GPU stream, and on a capturing stream one memcpy node per
 * copy, each after the one before (as grMemcpyBatchAsync's chain). An
 * array operand is refused with a detail: graphrt has no CUDA arrays.
 * Every copy is checked before any is queued. Errors: grErrorInvalidValue
 * (numOps 0, opList NULL, flags not 0, an operand type that is neither
 * pointer nor array, an array operand, a NULL pointer, an extent with a 0
 * member, a rowLength below the width or a layerHeight below the height
 * (not 0), a srcAccessOrder or flags refused as grMemcpyBatchAsync
 * refuses them, a region outside the allocations; the legacy default
 * stream), grErrorMemoryAllocation; plus the capture and stream errors.
 * Thread safety: any thread. Mirrors cudaMemcpy3DBatchAsync (CUDA 13's
 * form, without failIdx). */
GR_API grError_t grMemcpy3DBatchAsync(size_t numOps, grMemcpy3DBatchOp *opList, unsigned long long flags,
                                      grStream_t stream);

/* One 3D copy with attributes: grMemcpy3DBatchAsync of the single copy
 * *op (CUDA documents the operation by reference to the batch), with the
 * same checks, GPU lowering and capture (one memcpy node). Errors: as
 * grMemcpy3DBatchAsync (op NULL, flags not 0, the operand, extent,
 * access-order and flag rules, an array operand, a region outside the
 * allocations, the legacy default stream), grErrorMemoryAllocation; plus
 * the capture and stream errors. Thread safety: any thread. Mirrors
 * cudaMemcpy3DWithAttributesAsync (CUDA 13.2). */
GR_API grError_t grMemcpy3DWithAttributesAsync(grMemcpy3DBatchOp *op, unsigned long long flags,
                                               grStream_t stream);

/* Sets height rows of width bytes, rows pitch bytes apart, to
 * (unsigned char)value, synchronously as grMemset. width or height 0 sets
 * nothing; with one row the pitch is not checked. Errors:
 * grErrorInvalidValue (height > 1 and a pitch smaller than width, the code
 * CUDA 13 answers (probed); devPtr NULL with bytes to set; a row outside
 * the allocations); plus grMemset's capture and stream errors. Thread
 * safety: any thread. Mirrors cudaMemset2D. */
GR_API grError_t grMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);

/* grMemset2D queued on a stream; on a capturing stream it adds a memset
 * node of height rows (elementSize 1). Errors: as grMemset2D plus
 * grMemsetAsync's capture and stream errors. Thread safety: any thread.
 * Mirrors cudaMemset2DAsync. */
GR_API grError_t grMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                 grStream_t stream);

/* Sets extent (width bytes, height rows, depth slices) of pitchedDevPtr
 * (rows pitch bytes apart, slices pitch * ysize bytes apart) to
 * (unsigned char)value, synchronously as grMemset. A zero extent sets
 * nothing. Errors: grErrorInvalidValue (each as CUDA 13 answers, probed:
 * ptr NULL with bytes to set; a pitch smaller than width with more than
 * one row; a ysize smaller than height; a row outside the allocations);
 * plus grMemset's capture and stream errors. Thread safety: any thread.
 * Mirrors cudaMemset3D. */
GR_API grError_t grMemset3D(grPitchedPtr pitchedDevPtr, int value, grExtent extent);

/* grMemset3D queued on a stream; on a capturing stream it adds one memset
 * node when its rows are evenly spaced (depth 1, or ysize equal to
 * height), and is refused with grErrorNotSupported otherwise (the capture
 * is left as it was). Errors: as grMemset3D plus the capture and stream
 * errors. Thread safety: any thread. Mirrors cudaMemset3DAsync. */
GR_API grError_t grMemset3DAsync(grPitchedPtr pitchedDevPtr, int value, grExtent extent, grStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_MEMORY_H */
