/*
 * graphrt/pools.h - stream-ordered memory pools and the memory of graph allocation
 * nodes: CUDA's "Stream Ordered Memory Allocator" (the allocation and free
 * nodes themselves are in nodes.h).
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_POOLS_H
#define GRAPHRT_MODULE_POOLS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Stream-ordered memory pools and graph memory                           */
/* ====================================================================== */

/*
 * A pool hands out memory in stream order: grMallocAsync returns the
 * address at once, and the memory may be used by work queued after the
 * call on that stream (or ordered after it by events); grFreeAsync gives
 * it back once the work queued before it on its stream has run. A block
 * freed on stream A is handed to an allocation on another stream B only
 * when that is safe: B's work follows the free through event waits
 * (grMemPoolReuseFollowEventDependencies), A's work up to the free has
 * already completed (grMemPoolReuseAllowOpportunistic), or the pool makes
 * B wait for it (grMemPoolReuseAllowInternalDependencies). All three are
 * on by default, as in CUDA. Blocks come in size classes (four per power
 * of two, at least 256 bytes, 256-aligned); the pool's counters and the
 * bounds checks of copies use the class size. Freed blocks are poisoned
 * for AddressSanitizer from the moment their free takes effect.
 * docs/memory-pools.md has the concepts, an example and the deviations.
 *
 * Thread safety: every function of this section may be called from any
 * thread, and one pool may be used by many threads and streams at once,
 * except the functions of graph allocation and free nodes
 * (grGraphAddMemAllocNode, grGraphAddMemFreeNode,
 * grGraphMemAllocNodeGetParams, grGraphMemFreeNodeGetParams), which use a
 * graph and follow the rule of graphs: not with other calls on the same
 * graph.
 */

/* Creates a pool. poolProps: allocType grMemAllocationTypePinned,
 * handleTypes grMemHandleTypeNone, location {grMemLocationTypeDevice, d}
 * for an existing device d (0: the CPU, a pool of graphrt's own; a GPU:
 * one of the driver's pools, cuMemPoolCreate), win32SecurityAttributes
 * NULL, reserved bytes 0, maxSize 0 for no limit or the most bytes the
 * pool may reserve. Attributes start as CUDA's: every reuse policy on,
 * release threshold 0. Errors: grErrorInvalidValue (memPool or poolProps
 * NULL, another allocType, a location type other than
 * grMemLocationTypeDevice, a location.id that names no device (CUDA 13's
 * code for it), win32SecurityAttributes not NULL, a reserved byte not 0),
 * grErrorNotSupported (handleTypes other than grMemHandleTypeNone),
 * grErrorMemoryAllocation; on a GPU, the driver's errors.
 * Thread safety: any thread.
 * Mirrors cudaMemPoolCreate. */
GR_API grError_t grMemPoolCreate(grMemPool_t *memPool, const grMemPoolProps *poolProps);

/* Destroys a pool. Blocks still allocated stay valid and go back to the
 * OS when freed; the handle is refused from now on. Destroying the device's
 * current pool makes the default pool current. Errors: grErrorInvalidValue
 * (memPool NULL or not live, the default pool, which cannot be destroyed).
 * Thread safety: any thread.
 * Mirrors cudaMemPoolDestroy. Deviation, on the CPU: returns after the
 * frees already queued into the pool have taken effect, where CUDA (and a
 * GPU's pool) returns at once. */
GR_API grError_t grMemPoolDestroy(grMemPool_t memPool);

/* The device's default pool (made on first use; a GPU's is the driver's
 * default pool of the device). Errors: grErrorInvalidValue (memPool
 * NULL), grErrorInvalidDevice (device names no device),
 * grErrorMemoryAllocation (creating the default pool).
 * Thread safety: any thread. Mirrors
 * cudaDeviceGetDefaultMemPool. */
GR_API grError_t grDeviceGetDefaultMemPool(grMemPool_t *memPool, int device);

/* Makes memPool the pool grMallocAsync allocates from on the device's
 * streams, for every thread (on a GPU, cuDeviceSetMemPool). Errors:
 * grErrorInvalidDevice (device names no device), grErrorInvalidValue
 * (memPool NULL or not live, or a pool of another device).
 * Thread safety: any thread. Mirrors
 * cudaDeviceSetMemPool. */
GR_API grError_t grDeviceSetMemPool(int device, grMemPool_t memPool);

/* The pool grMallocAsync allocates from (the default pool unless
 * grDeviceSetMemPool chose another). Errors: as
 * grDeviceGetDefaultMemPool.
 * Thread safety: any thread. Mirrors cudaDeviceGetMemPool. */
GR_API grError_t grDeviceGetMemPool(grMemPool_t *memPool, int device);

/*
 * The location-based forms of the three above (CUDA 13). location names
 * a device, {grMemLocationTypeDevice, d} (d: 0 the CPU, 1..N a GPU), and
 * type is grMemAllocationTypePinned, the only kind of pool graphrt has;
 * they then act as grDeviceGetDefaultMemPool, grDeviceGetMemPool and
 * grDeviceSetMemPool on device d. What CUDA accepts but graphrt lacks is
 * grErrorNotSupported: type grMemAllocationTypeManaged (with a location
 * CUDA accepts for it: None, Device, Host, HostNuma), and the host
 * locations grMemLocationTypeHost and grMemLocationTypeHostNuma with
 * grMemAllocationTypePinned (graphrt has no host pools). What CUDA refuses
 * is grErrorInvalidValue: another type, or another location type (None,
 * HostNumaCurrent, any other value) with grMemAllocationTypePinned. A
 * refused call changes nothing. Thread safety: any thread.
 */

/* The default pool of the location's device for allocations of 'type'.
 * Errors: grErrorInvalidValue (memPool or location NULL; a type or
 * location CUDA refuses; location->id naming no device, CUDA 13's code),
 * grErrorNotSupported (managed memory, a host location; CUDA 13 has
 * them), grErrorMemoryAllocation (creating the default pool); on a GPU,
 * the driver's errors.
 * Thread safety: any thread. Mirrors cudaMemGetDefaultMemPool. */
GR_API grError_t grMemGetDefaultMemPool(grMemPool_t *memPool, grMemLocation *location,
                                        grMemAllocationType type);

/* The current pool of the location's device (its default pool unless
 * grMemSetMemPool or grDeviceSetMemPool chose another). Errors: as
 * grMemGetDefaultMemPool.
 * Thread safety: any thread. Mirrors cudaMemGetMemPool. */
GR_API grError_t grMemGetMemPool(grMemPool_t *memPool, grMemLocation *location, grMemAllocationType type);

/* Makes memPool the current pool of the location's device, as
 * grDeviceSetMemPool(location->id, memPool). The location must be the
 * pool's own. Errors: grErrorInvalidValue (location NULL; a type or
 * location CUDA refuses; memPool NULL or not live; a pool whose location
 * is not 'location'; location->id naming no device), grErrorNotSupported
 * (managed memory, a host location); on a GPU, the driver's errors.
 * Thread safety: any thread.
 * Mirrors cudaMemSetMemPool. */
GR_API grError_t grMemSetMemPool(grMemLocation *location, grMemAllocationType type, grMemPool_t memPool);

/* Allocates size bytes from the device's current pool, in stream order.
 * The address is returned at once; the memory may be used by work queued
 * on hStream after this call, or ordered after it. size 0 gives NULL and
 * grSuccess, as grMalloc. On a capturing stream it adds a memory
 * allocation node to the capture's graph and returns the node's address
 * (an allocation of the capturing stream's device). Errors: grErrorInvalidValue (devPtr NULL), grErrorMemoryAllocation (more
 * than 2^47 bytes, the host or the pool's maxSize cannot provide it, out of
 * memory queuing the pool's wait for another stream's free; on a capturing
 * stream, no address space left to reserve); plus the capture errors of
 * work and the stream errors.
 * Thread safety: any thread. Mirrors cudaMallocAsync. */
GR_API grError_t grMallocAsync(void **devPtr, size_t size, grStream_t hStream);

/* As grMallocAsync, from memPool, which must be a pool of the stream's
 * device (a difference: CUDA also takes another device's pool). On a
 * capturing stream the node's memory is graph memory, as grMallocAsync's,
 * whatever memPool. Errors: as grMallocAsync, plus grErrorInvalidValue
 * (memPool NULL or not live, or a pool of another device than the
 * stream's).
 * Thread safety: any thread. Mirrors cudaMallocFromPoolAsync. */
GR_API grError_t grMallocFromPoolAsync(void **ptr, size_t size, grMemPool_t memPool, grStream_t stream);

/* Frees memory from grMallocAsync / grMallocFromPoolAsync (or from a
 * graph allocation node whose graph did not free it) in stream order: the
 * memory may be reused once the work queued on hStream before this call
 * has run. grMalloc memory is freed too, as CUDA 13 does: it is no longer
 * graphrt memory from this call on, and goes back when the stream reaches
 * the free. NULL is a no-op (the stream is still checked). On a capturing
 * stream it adds a memory free node, whose rules are those of
 * grGraphAddMemFreeNode. Errors: grErrorInvalidValue (a pointer that is
 * not the base of a live pool or grMalloc allocation: freed already, never
 * allocated, grMallocHost memory, inside a block; a graph allocation that
 * is not allocated now; on a capturing stream, a pointer that
 * grGraphAddMemFreeNode refuses for the capture's graph, which leaves the
 * capture valid; nothing is freed), grErrorMemoryAllocation; plus the
 * capture errors of work and the stream errors.
 * Thread safety: any thread. Mirrors cudaFreeAsync. */
GR_API grError_t grFreeAsync(void *devPtr, grStream_t hStream);

/* Gives unused memory of the pool back to the OS until it reserves at
 * most minBytesToKeep bytes, or no more can be given back: blocks whose
 * frees have not taken effect yet, and allocated blocks, stay (a GPU's
 * pool: cuMemPoolTrimTo). Errors: grErrorInvalidValue (memPool NULL or
 * not live).
 * Thread safety: any thread. Mirrors cudaMemPoolTrimTo. */
GR_API grError_t grMemPoolTrimTo(grMemPool_t memPool, size_t minBytesToKeep);

/* Sets an attribute; value points to an int (the reuse policies: 0 off,
 * else on) or a uint64_t (the others). grMemPoolAttrReleaseThreshold: at
 * each synchronisation (stream, event or device synchronize, grFree) the
 * pool gives back to the OS the unused memory above this many reserved
 * bytes. The high-water marks can only be reset, by setting 0 (they then
 * equal the current value); the current values and the pool's properties
 * (grMemPoolAttrAllocationType to grMemPoolAttrHwDecompressEnabled) are
 * read only, as CUDA 13 documents them. Errors: grErrorInvalidValue
 * (memPool NULL or not live, value NULL, a current value or a property,
 * a high-water mark set to anything but 0, attr not a grMemPoolAttr). A
 * GPU's pool keeps its attributes in the driver
 * (cuMemPoolSetAttribute / cuMemPoolGetAttribute, after the same checks).
 * Thread safety: any thread.
 * Mirrors cudaMemPoolSetAttribute. */
GR_API grError_t grMemPoolSetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value);

/* Reads an attribute into *value (of the type its enumerator names).
 * Reserved memory is what the pool holds from the OS, used memory what is
 * allocated from it (both in class sizes). The properties: allocation
 * type grMemAllocationTypePinned, export handle types grMemHandleTypeNone,
 * location {grMemLocationTypeDevice, the pool's device},
 * grMemPoolAttrMaxPoolSize the maxSize the pool was created with (0: no
 * limit; the default pool has none), grMemPoolAttrHwDecompressEnabled 0.
 * A GPU's pool answers them through the driver, which needs CUDA 13's
 * (an older driver's refusal is passed on). Errors: grErrorInvalidValue
 * (memPool NULL or not live, value NULL, attr not a grMemPoolAttr).
 * Thread safety: any thread. Mirrors
 * cudaMemPoolGetAttribute. */
GR_API grError_t grMemPoolGetAttribute(grMemPool_t memPool, grMemPoolAttr attr, void *value);

/* Sets which devices may reach the pool's memory: each descriptor gives
 * one device location, {grMemLocationTypeDevice, d}, its access flags
 * (grMemAccessFlagsProtNone, ProtRead or ProtReadWrite). The pool's own
 * device always has read-write access, which cannot be revoked, as in
 * CUDA: a descriptor giving it less is refused, one giving it read-write
 * changes nothing. Descriptors apply in order (a later one for the same
 * device wins). The flags of another device are stored and reported by
 * grMemPoolGetAccess; they change no access on the CPU, where every
 * device of graphrt's pools is host memory. A pool of a GPU hands the
 * descriptors of other GPUs to the driver (cuMemPoolSetAccess, which
 * maps the pool's memory for them or refuses, e.g. without peer
 * capability) and stores the CPU's. All descriptors are checked before
 * any applies: a refused call changes nothing (a GPU pool's driver
 * refusal leaves the CPU's flags as they were). count 0 does nothing.
 * Errors (CUDA 13's codes, tests/probes/memory.cu): grErrorInvalidValue
 * (memPool NULL or not live, descList NULL with count > 0, a location type
 * other than grMemLocationTypeDevice, flags not one of the three),
 * grErrorInvalidDevice (no access for the pool's own device; a location id
 * naming no device), grErrorNotSupported (read-only access for the pool's
 * own device; a host location); on a GPU, the driver's errors. Thread safety: any thread; concurrent calls
 * on one pool apply each descriptor whole. Mirrors cudaMemPoolSetAccess. */
GR_API grError_t grMemPoolSetAccess(grMemPool_t memPool, const grMemAccessDesc *descList, size_t count);

/* The access the pool grants the location's device: read-write for the
 * pool's own device, else the flags grMemPoolSetAccess last set
 * (grMemAccessFlagsProtNone until then; for another GPU of a GPU pool,
 * the driver's answer, cuMemPoolGetAccess). A host location is answered
 * as CUDA 13 answers it for a GPU's pool, no access, and with read-write
 * for a CPU pool (host memory). Errors: grErrorInvalidValue (flags or
 * location NULL, memPool NULL or not live, another location type than
 * device and host, location->id naming no device: CUDA 13's code); on a
 * GPU, the driver's errors. Thread safety: any
 * thread. Mirrors cudaMemPoolGetAccess. */
GR_API grError_t grMemPoolGetAccess(grMemAccessFlags *flags, grMemPool_t memPool, grMemLocation *location);

/* The attributes of the memory of graph allocation nodes. Mirrors
 * cudaGraphMemAttributeType. */
typedef enum grGraphMemAttributeType {
    grGraphMemAttrUsedMemCurrent = 0,     /* uint64_t, read only */
    grGraphMemAttrUsedMemHigh = 1,        /* uint64_t, set to 0 resets */
    grGraphMemAttrReservedMemCurrent = 2, /* uint64_t, read only */
    grGraphMemAttrReservedMemHigh = 3     /* uint64_t, set to 0 resets */
} grGraphMemAttributeType;

/* Gives the physical memory of graph allocations that no executable needs
 * (executables destroyed, allocations freed) back to the OS or the driver:
 * that of destroyed executables a stream still holds, whatever their
 * device. Errors: grErrorInvalidDevice (device names no device).
 * Thread safety: any thread. Mirrors
 * cudaDeviceGraphMemTrim. */
GR_API grError_t grDeviceGraphMemTrim(int device);

/* Reads an attribute of graph memory into *value (a uint64_t): used memory
 * is what live graph allocations occupy, reserved memory the physical
 * memory held for the device's executables. Errors: grErrorInvalidDevice
 * (device names no device), grErrorInvalidValue (value NULL, attr not a
 * grGraphMemAttributeType).
 * Thread safety: any thread. Mirrors cudaDeviceGetGraphMemAttribute. */
GR_API grError_t grDeviceGetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value);

/* Resets a high-water mark (value points to a uint64_t 0); the current
 * values are read only. Errors: grErrorInvalidDevice (device names no
 * device), grErrorInvalidValue (value NULL, attr not a high-water mark,
 * *value not 0).
 * Thread safety: any thread. Mirrors cudaDeviceSetGraphMemAttribute. */
GR_API grError_t grDeviceSetGraphMemAttribute(int device, grGraphMemAttributeType attr, void *value);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_POOLS_H */
