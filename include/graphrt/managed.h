/*
 * graphrt/managed.h - managed memory (CUDA's "Memory Management",
 * the managed-memory part): hints, prefetches, discards and range
 * attributes of grMallocManaged memory (which memory.h allocates).
 *
 * A part of graphrt.h: a program includes <graphrt.h>, whose top comment
 * states the rules every declaration here follows (names, errors, thread
 * safety, destroyed handles). This header includes the parts it needs, so
 * it also compiles alone.
 */
#ifndef GRAPHRT_MODULE_MANAGED_H
#define GRAPHRT_MODULE_MANAGED_H

#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================== */
/* Managed memory hints and queries (docs/memory.md, "Managed memory")    */
/* ====================================================================== */

/*
 * On the CPU device managed memory is host memory that never moves, so
 * every hint below is a no-op once CUDA's checks pass; what was set is
 * kept, per allocation (CUDA: per page), and grMemRangeGetAttribute
 * answers it back. The memory every call takes: a range inside one
 * grMallocManaged allocation (CUDA also takes system memory where
 * cudaDevAttrPageableMemoryAccess is set, an attribute graphrt does not
 * report: other memory is refused with grErrorInvalidValue). A location
 * is the CPU device, as {grMemLocationTypeDevice, 0} or a host location
 * (grMemLocationTypeHost, HostNuma with id 0, HostNumaCurrent); a GPU
 * (device 1..N) is refused with grErrorInvalidDevice, CUDA's answer for a
 * device without concurrent managed access: graphrt's managed memory is
 * the CPU device's, which no GPU reaches as managed memory; its hints
 * take a stream of the CPU device (a GPU stream is refused with
 * grErrorNotSupported).
 *
 * A GPU's managed memory (grMallocManaged with a GPU current) is the
 * driver's: every call below checks it by the same rules, then asks the
 * driver (cuMemAdvise and cuMemPrefetchAsync in CUDA 12.2's form with a
 * CUmemLocation, cuMemRangeGetAttribute). A location may then name any
 * device in graphrt's numbering ({Device, 1} is the first GPU, CUDA's
 * device 0; {Device, 0}, the CPU device, is the host) or a host location;
 * device ids in answers are graphrt's too (grCpuDeviceId for the host).
 * Its prefetches take a stream of a GPU (a CPU stream is refused with
 * grErrorNotSupported), and a batch's ranges are all the CPU device's or
 * all GPUs'. A driver older than CUDA 12.2 refuses the advice and the
 * prefetches with grErrorCallRequiresNewerDriver, the detail naming the
 * driver call; the driver's other errors come back mapped to graphrt's.
 */

/* CUDA's device id of the CPU in range attributes (cudaCpuDeviceId). */
#define grCpuDeviceId (-1)

/* The advice of grMemAdvise, with CUDA's values. Mirrors
 * cudaMemoryAdvise. */
typedef enum grMemoryAdvise {
    grMemAdviseSetReadMostly = 1,
    grMemAdviseUnsetReadMostly = 2,
    grMemAdviseSetPreferredLocation = 3,
    grMemAdviseUnsetPreferredLocation = 4,
    grMemAdviseSetAccessedBy = 5,
    grMemAdviseUnsetAccessedBy = 6
} grMemoryAdvise;

/* The attributes of grMemRangeGetAttribute, with CUDA's values. Mirrors
 * cudaMemRangeAttribute. */
typedef enum grMemRangeAttribute {
    grMemRangeAttributeReadMostly = 1,
    grMemRangeAttributePreferredLocation = 2,
    grMemRangeAttributeAccessedBy = 3,
    grMemRangeAttributeLastPrefetchLocation = 4,
    grMemRangeAttributePreferredLocationType = 5,
    grMemRangeAttributePreferredLocationId = 6,
    grMemRangeAttributeLastPrefetchLocationType = 7,
    grMemRangeAttributeLastPrefetchLocationId = 8
} grMemRangeAttribute;

/* Advises how [devPtr, devPtr + count) of managed memory will be used.
 * Read-mostly and its unset ignore location; the preferred location takes
 * the CPU device or a host location; accessed-by takes
 * {grMemLocationTypeDevice, 0} or grMemLocationTypeHost. No memory moves;
 * the advice is recorded for grMemRangeGetAttribute (set and unset act
 * on the whole allocation). A GPU's managed memory: any device or host
 * location, the driver's cuMemAdvise (see above). Not stream work: allowed during capture, as
 * in CUDA. Errors: grErrorInvalidValue (devPtr NULL, count 0, a range
 * outside one grMallocManaged allocation, advice not a grMemoryAdvise, a
 * location type the advice does not take), grErrorInvalidDevice (a
 * device location naming a GPU or no device). Thread safety: any
 * thread. Mirrors cudaMemAdvise (CUDA 13's form, with a cudaMemLocation). */
GR_API grError_t grMemAdvise(const void *devPtr, size_t count, grMemoryAdvise advice, grMemLocation location);

/* Prefetches [devPtr, devPtr + count) of managed memory to 'location' in
 * stream order: on the CPU device the memory is where it is used already,
 * so the prefetch moves nothing and only records the location, when the
 * stream reaches it, as the range's last prefetch location. A GPU's
 * managed memory is the driver's prefetch (cuMemPrefetchAsync) on a GPU
 * stream (see above). A capturing
 * stream is refused with grErrorStreamCaptureUnsupported and its capture
 * invalidated: no graph node type represents a prefetch (graphrt's
 * reading of CUDA's node types; not probed on a GPU). Errors:
 * grErrorInvalidValue (flags not 0, and as grMemAdvise for the memory and
 * the location type), grErrorInvalidDevice (a GPU for the CPU device's
 * memory, or no device), grErrorNotSupported (a stream of the other side
 * than the memory's), grErrorCallRequiresNewerDriver; plus the capture
 * and stream errors.
 * Thread safety: any thread. Mirrors cudaMemPrefetchAsync (CUDA 13's
 * form, with a cudaMemLocation and flags). */
GR_API grError_t grMemPrefetchAsync(const void *devPtr, size_t count, grMemLocation location,
                                    unsigned int flags, grStream_t stream);

/* Prefetches 'count' ranges (dptrs[i], sizes[i] bytes) in stream order as
 * one batch, each as grMemPrefetchAsync: prefetchLocs[k] applies to the
 * ranges from prefetchLocIdxs[k] to the next entry's first (the indices
 * start at 0, strictly increase and stay below count; numPrefetchLocs is
 * 1..count, the rules of grMemcpyBatchAsync's attributes). Every range and
 * location is checked before anything is queued. GPU managed memory: one
 * driver prefetch per range. Errors:
 * grErrorInvalidValue (count 0, an array NULL, flags not 0, the index
 * rules, a range or location refused as grMemPrefetchAsync refuses it,
 * ranges of both sides), grErrorInvalidDevice, grErrorNotSupported (a
 * stream of the other side); capturing
 * streams as grMemPrefetchAsync; plus the stream errors. Thread safety:
 * any thread. Mirrors cudaMemPrefetchBatchAsync (CUDA 13). */
GR_API grError_t grMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                         grMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                         size_t numPrefetchLocs, unsigned long long flags, grStream_t stream);

/* Discards 'count' ranges of managed memory in stream order: their
 * contents become indeterminate until written or prefetched. On the CPU
 * device the bytes stay as they were (one of the indeterminate values),
 * so nothing is queued; a GPU's managed memory likewise keeps its bytes
 * (the driver's discard is not called). Capturing streams as
 * grMemPrefetchAsync. Errors: grErrorInvalidValue (count 0, dptrs or
 * sizes NULL, flags not 0, a range refused as grMemPrefetchAsync refuses
 * it, ranges of both sides), grErrorNotSupported (a stream of the other
 * side); plus the capture and stream errors. Thread safety: any
 * thread. Mirrors cudaMemDiscardBatchAsync (CUDA 13). */
GR_API grError_t grMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                        grStream_t stream);

/* grMemDiscardBatchAsync then grMemPrefetchBatchAsync of the same ranges,
 * as one batch: the contents become indeterminate (on the CPU device they
 * stay) and the last prefetch location is recorded in stream order.
 * Errors: as grMemPrefetchBatchAsync. Thread safety: any thread. Mirrors
 * cudaMemDiscardAndPrefetchBatchAsync (CUDA 13). */
GR_API grError_t grMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                   grMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                   size_t numPrefetchLocs, unsigned long long flags,
                                                   grStream_t stream);

/* Answers one attribute of [devPtr, devPtr + count) of managed memory
 * into data (dataSize bytes), what grMemAdvise and the prefetches set:
 * ReadMostly (int, 1 or 0); PreferredLocation and LastPrefetchLocation
 * (int: 0 for {Device, 0}, grCpuDeviceId for a host location,
 * grInvalidDeviceId for none); AccessedBy (an int per 4 bytes of
 * dataSize: the devices with accessed-by advice, grCpuDeviceId for the
 * host, then grInvalidDeviceId for the rest); PreferredLocationType /
 * LastPrefetchLocationType (int, a grMemLocationType;
 * grMemLocationTypeInvalid for none) and PreferredLocationId /
 * LastPrefetchLocationId (int, the location's id). dataSize must be 4,
 * except for AccessedBy: a non-zero multiple of 4. A last prefetch is
 * answered once the stream has reached it. A GPU's managed memory: the
 * driver's answer (cuMemRangeGetAttribute), its device ids in graphrt's
 * numbering. Errors: grErrorInvalidValue
 * (data NULL, a dataSize the attribute does not take, attribute not a
 * grMemRangeAttribute, devPtr NULL, count 0, a range outside one
 * grMallocManaged allocation). Thread safety: any thread. Mirrors
 * cudaMemRangeGetAttribute. */
GR_API grError_t grMemRangeGetAttribute(void *data, size_t dataSize, grMemRangeAttribute attribute,
                                        const void *devPtr, size_t count);

/* grMemRangeGetAttribute of numAttributes attributes: attributes[i] into
 * data[i], dataSizes[i] bytes. All are checked before any is written.
 * Errors: grErrorInvalidValue (data, dataSizes or attributes NULL,
 * numAttributes 0, an entry refused as grMemRangeGetAttribute refuses
 * it). Thread safety: any thread. Mirrors cudaMemRangeGetAttributes. */
GR_API grError_t grMemRangeGetAttributes(void **data, size_t *dataSizes, grMemRangeAttribute *attributes,
                                         size_t numAttributes, const void *devPtr, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHRT_MODULE_MANAGED_H */
