/*
 * cuda.h - the CUDA backend as the layers above see it: NVIDIA GPUs as
 * graphrt devices beside the CPU, reached through the driver API loaded at
 * run time (loader.c; the declarations are cu_driver.h's, private to this
 * area).
 *
 * Devices. Device 0 is the CPU; devices 1..N are the GPUs in the driver's
 * ordinal order (graphrt device d is CUDA device d - 1). Each thread has a
 * current device (grSetDevice), starting at GRAPHRT_DEVICE's choice or 0.
 * Without a driver (libcuda.so.1 absent, cuInit failing, or GRAPHRT_CUDA=0)
 * there are no GPUs and nothing here is ever called with a device >= 1.
 *
 * How an object knows its device:
 *   - a stream's header (gr_stream, backend.h) has 'device' (0: the CPU);
 *     a GPU's stream is a struct gr_cuda_stream (cuda_int.h) embedding that
 *     header, with its CUstream (created, or the legacy / per-thread
 *     default of that device's primary context). The default handles
 *     (NULL, grStreamLegacy, grStreamPerThread) resolve per current device
 *     (gr__stream_from_handle): on a GPU to that device's stream objects;
 *   - an event's header (grEvent_st) has 'device'; a GPU's event is a
 *     struct gr_cuda_event with its CUevent;
 *   - a kernel (grKernel_st) has its CPU function and, once an image is
 *     attached (grKernelSetImage), 'gpu': the image, its entry name and a
 *     CUfunction per device, loaded on first use on that device;
 *   - memory: the allocation tracker (memory/track.c) records the device of
 *     every graphrt allocation; a foreign pointer's is asked of the driver
 *     (gr__cuda_pointer_device).
 *
 * How upper layers dispatch: every entry point checks its arguments, tests
 * capture first (a capturing stream records nodes exactly as on the CPU,
 * whatever its device), and only then, for eager work, tests the stream's
 * device ('if (s->device)') and calls through the device kind's table
 * (device.h), which for the CUDA kind (ops.c, gr__cuda_kind) holds the
 * gr__cuda_* functions below. Nothing outside backend/cuda calls them by
 * name (.ci/check-layers.sh). The CPU paths are unchanged: one load of a
 * field in the stream's first cache line, which the capture test reads
 * already.
 *
 * Every gr__cuda_* function that fails returns the graphrt error matching
 * the driver's CUresult (gr__cu_error) with a detail naming the graphrt
 * call and CUDA's own error name (gr__cu_fail).
 */
#ifndef GR_CUDA_H
#define GR_CUDA_H

#include "../device.h"

/* ---------------------------------------------------------------- devices */

/* The number of GPUs (0 without a driver); loads the driver on first use.
 * Thread-safe. */
int gr__cuda_count(void);

/* Why there is no GPU, as a sentence fragment ("no NVIDIA driver
 * (libcuda.so.1 not found)", "GPUs disabled by GRAPHRT_CUDA=0", ...), or
 * NULL when there are GPUs. */
const char *gr__cuda_absence(void);

/* Makes device's primary context current on the calling thread (retaining
 * it on first use): what every sequence of driver calls does first.
 * Returns the CUresult (0 on success). */
int gr__cuda_enter(int device);

/* grGetDeviceProperties / grDeviceGetAttribute for GPU 'device'. */
grError_t gr__cuda_properties(const char *call, int device, grDeviceProp *prop);
grError_t gr__cuda_attribute(const char *call, int device, grDeviceAttr attr, int *value);

/* grDeviceSynchronize for GPU 'device': waits for all its work. */
grError_t gr__cuda_device_sync(const char *call, int device);

/* ----------------------------------------------------------------- errors */

/* The graphrt error matching a CUresult. */
grError_t gr__cu_error(int result);

/* CUDA's name of a CUresult ("CUDA_ERROR_INVALID_VALUE"). */
const char *gr__cu_error_name(int result);

/* Fails with gr__cu_error(result) and the detail "<call>: <what> failed on
 * device <device> with <CUDA's name> (<CUDA's sentence>)". */
grError_t gr__cu_fail(const char *call, int device, const char *what, int result);

/* ---------------------------------------------------------------- streams */

/* A created stream of GPU 'device' (grStreamCreateWithFlags' checked
 * flags). */
grError_t gr__cuda_stream_create(const char *call, int device, unsigned user_flags, int priority,
                                 gr_stream **out);

/* GPU 'device''s stream priority range (cuCtxGetStreamPriorityRange). */
grError_t gr__cuda_stream_priority_range(const char *call, int device, int *least, int *greatest);

/* The legacy (per_thread false) or the calling thread's per-thread default
 * stream of GPU 'device'. */
grError_t gr__cuda_stream_default(const char *call, int device, bool per_thread, gr_stream **out);

/* Destroys a GPU stream's driver stream if graphrt created it (its last
 * reference went, stream.c). */
void gr__cuda_stream_free(gr_stream *s);

grError_t gr__cuda_stream_sync(const char *call, gr_stream *s);
/* grSuccess, grErrorNotReady (no detail), or the stream's error. */
grError_t gr__cuda_stream_query(const char *call, gr_stream *s);
grError_t gr__cuda_host_func(const char *call, gr_stream *s, grHostFn_t fn, void *user);
/* Queues count checked stream memory operations on GPU stream s with the
 * driver's cuStreamBatchMemOp (_v2: the ABI graphrt resolves), which
 * checks the words (device memory, or host memory the GPU maps). */
grError_t gr__cuda_stream_memops(const char *call, gr_stream *s, unsigned count,
                                 const grStreamBatchMemOpParams *ops);

/* ----------------------------------------------------------------- events */

/* An event of GPU 'device' (checked grEvent* flags). */
grError_t gr__cuda_event_create(const char *call, int device, unsigned flags, grEvent_t *out);
/* Destroys a GPU event's CUevent (its last reference went). */
void gr__cuda_event_free(grEvent_t e);
grError_t gr__cuda_event_record(const char *call, grEvent_t e, gr_stream *s);
/* grSuccess, grErrorNotReady (no detail), or the error of its work. */
grError_t gr__cuda_event_query(const char *call, grEvent_t e);
grError_t gr__cuda_event_sync(const char *call, grEvent_t e);
grError_t gr__cuda_event_elapsed(const char *call, float *ms, grEvent_t start, grEvent_t end);
/* Makes GPU stream s wait for GPU event e. */
grError_t gr__cuda_stream_wait_event(const char *call, gr_stream *s, grEvent_t e);

/* ----------------------------------------------------------------- memory */

/* Device memory of GPU 'device' (not tracked: the caller tracks it). */
grError_t gr__cuda_malloc(const char *call, int device, size_t size, void **out);
/* Frees it after the device's work is done, as cudaFree. */
grError_t gr__cuda_free(const char *call, int device, void *p);
/* Pinned host memory (cuMemHostAlloc, portable to every GPU). */
grError_t gr__cuda_malloc_host(const char *call, size_t size, void **out);
grError_t gr__cuda_free_host(const char *call, void *p);
/* The GPU device (1..N) whose memory p is, asked of the driver; 0 for host
 * memory or when no GPU was ever used. */
int gr__cuda_pointer_device(const void *p);
/* Fills *info for p (true), or false when the driver knows no such memory
 * (or no GPU context exists yet). */
bool gr__cuda_pointer_info(const void *p, gr_dev_pointer *info);

/* The loaded driver's cuDriverGetVersion (1000 * major + 10 * minor), or 0
 * without a driver (or with GRAPHRT_CUDA=0). Works even when the driver
 * offers no GPU. Thread-safe (info.c). */
int gr__cuda_driver_version(void);
/* cuMemGetInfo in GPU 'device''s primary context. */
/* Starts GPU 'device' (its primary context): grInitDevice. */
grError_t gr__cuda_device_init(const char *call, int device);
/* Peer access between two GPUs (gr_device_ops.peer_access). */
grError_t gr__cuda_peer_access(const char *call, int device, int peer, int what, int *can);
grError_t gr__cuda_mem_info(const char *call, int device, size_t *free_bytes, size_t *total_bytes);

/* Copies and memsets on GPU stream s (any pointers the driver accepts:
 * device, pinned or pageable host). */
grError_t gr__cuda_memcpy(const char *call, gr_stream *s, void *dst, const void *src, size_t count);
grError_t gr__cuda_memset(const char *call, gr_stream *s, void *dst, int value, size_t count);
/* A copy or memset done at once on GPU 'device''s legacy stream and waited
 * for: what a CPU stream's op runs when a pointer is GPU memory. */
grError_t gr__cuda_memcpy_now(int device, void *dst, const void *src, size_t count);
grError_t gr__cuda_memset_now(int device, void *dst, int value, size_t count);

/* A pitched copy of width bytes x height rows x depth slices, or a 2D
 * memset of height rows (cuMemcpy3DAsync, cuMemsetD2D8Async): on GPU
 * stream s, or (s NULL) at once on GPU 'device''s legacy stream, waited
 * for. */
grError_t gr__cuda_memcpy_pitched(const char *call, gr_stream *s, int device, const gr_copy_side *dst,
                                  const gr_copy_side *src, size_t width, size_t height, size_t depth);
grError_t gr__cuda_memset_2d(const char *call, gr_stream *s, int device, void *dst, size_t pitch,
                             unsigned char value, size_t width, size_t height);

/* Stream-ordered allocation on GPU stream s (the device's default pool). */
grError_t gr__cuda_malloc_async(const char *call, gr_stream *s, size_t size, void **out);
grError_t gr__cuda_free_async(const char *call, gr_stream *s, void *p);

/* --------------------------------------- managed memory, settings (managed.c) */

/* cuMemAllocManaged on GPU 'device' (flags grMemAttachGlobal or Host,
 * CUDA's values); freed by gr__cuda_free (cuMemFree). */
grError_t gr__cuda_managed_alloc(const char *call, int device, size_t size, unsigned flags, void **out);

/* cuMemAdvise / cuMemPrefetchAsync (CUDA 12.2's forms: a driver without
 * them refuses with grErrorCallRequiresNewerDriver) of managed memory,
 * graphrt's location turned into the driver's. */
grError_t gr__cuda_mem_advise(const char *call, int device, const void *p, size_t count, int advice,
                              grMemLocation loc);
grError_t gr__cuda_mem_prefetch(const char *call, gr_stream *s, const void *p, size_t count,
                                grMemLocation loc);

/* cuMemRangeGetAttribute, its device ids turned into graphrt's. */
grError_t gr__cuda_range_attribute(const char *call, int device, const void *p, size_t count, int attr,
                                   void *data, size_t size);

/* cuStreamAttachMemAsync on GPU stream s. */
grError_t gr__cuda_stream_attach(const char *call, gr_stream *s, void *p, size_t length, unsigned flags);

/* cuCtxSetLimit / cuCtxGetLimit in 'device''s primary context, and the
 * primary context's flags (cuDevicePrimaryCtxSetFlags /
 * cuDevicePrimaryCtxGetState). */
grError_t gr__cuda_limit(const char *call, int device, int limit, size_t *value, bool set);
grError_t gr__cuda_device_flags(const char *call, int device, unsigned *flags, bool set);

/* cuMemHostRegister (portable and mapped, in the first GPU's context) and
 * cuMemHostUnregister of a host range; cuMemHostGetDevicePointer of
 * registered or pinned memory on GPU 'device'. */
grError_t gr__cuda_host_register(const char *call, void *p, size_t size, unsigned flags);
grError_t gr__cuda_host_unregister(const char *call, void *p);
grError_t gr__cuda_host_device_pointer(const char *call, int device, void *p, void **out);

/* graphrt's memory pools on GPU 'device' (pool.c): each is a driver pool
 * (CUmemoryPool, passed as void *). */
/* cuMemPoolCreate of a pinned pool of the device reserving at most
 * max_size bytes (0: the driver's limit), exported to no one. */
grError_t gr__cuda_pool_create(const char *call, int device, size_t max_size, void **out);
/* cuMemPoolDestroy: the pool's memory goes once its allocations are freed. */
void gr__cuda_pool_destroy(int device, void *pool);
/* The device's default pool (cuDeviceGetDefaultMemPool). */
grError_t gr__cuda_pool_default(const char *call, int device, void **out);
/* The pool grMallocAsync on the device's streams takes from
 * (cuDeviceSetMemPool). */
grError_t gr__cuda_pool_set_current(const char *call, int device, void *pool);
/* cuMemAllocFromPoolAsync on GPU stream s. */
grError_t gr__cuda_pool_alloc(const char *call, gr_stream *s, void *pool, size_t size, void **out);
/* cuMemPoolTrimTo. */
grError_t gr__cuda_pool_trim(const char *call, int device, void *pool, size_t keep);
/* cuMemPoolSetAttribute / cuMemPoolGetAttribute: graphrt's grMemPoolAttr
 * values and value types are CUDA's. */
grError_t gr__cuda_pool_attribute(const char *call, int device, void *pool, int attr, void *value, bool set);
/* cuMemPoolSetAccess of GPU 'device''s pool for n other GPUs: gpus[i]
 * (graphrt device numbers) get flags[i] (grMemAccessFlags' values, which
 * are CUmemAccess_flags'), in one call. */
grError_t gr__cuda_pool_set_access(const char *call, int device, void *pool, const int *gpus,
                                   const int *flags, size_t n);
/* cuMemPoolGetAccess: the flags GPU 'device''s pool grants GPU 'gpu'. */
grError_t gr__cuda_pool_get_access(const char *call, int device, void *pool, int gpu, int *flags);

/* Graph memory on GPU 'device' through the driver's virtual memory
 * management (vmm.c). Sizes and offsets are multiples of the granularity. */
/* The minimum granularity of a pinned allocation of the device. */
grError_t gr__cuda_vmm_granularity(const char *call, int device, size_t *out);
/* Reserves (cuMemAddressReserve, aligned to 'align', the granularity) and
 * frees (cuMemAddressFree) a range of the unified address space, with no
 * memory behind it. */
grError_t gr__cuda_vmm_reserve(const char *call, int device, size_t size, size_t align, void **out);
void gr__cuda_vmm_unreserve(int device, void *p, size_t size);
/* The GPU (1..N) whose reserved range holds p, mapped or not; 0 if none. */
int gr__cuda_vmm_device(const void *p);
/* Creates (cuMemCreate) and releases (cuMemRelease) physical memory of the
 * device; a released allocation lives on until its last mapping goes. */
grError_t gr__cuda_vmm_create(const char *call, int device, size_t size, uint64_t *out);
void gr__cuda_vmm_release(int device, uint64_t handle);
/* Maps [p, p + size) onto the allocation at 'offset' (cuMemMap) and lets
 * the device read and write it (cuMemSetAccess); unmaps it (cuMemUnmap). */
grError_t gr__cuda_vmm_map(const char *call, int device, void *p, size_t size, uint64_t handle,
                           size_t offset);
void gr__cuda_vmm_unmap(int device, void *p, size_t size);
/* Waits for all the device's work (before memory it may use is unmapped). */
grError_t gr__cuda_vmm_quiesce(const char *call, int device);

/* ---------------------------------------------------------------- kernels */

/* The GPU part of a kernel. */
struct gr_dev_kernel;

/* Attaches a module image (PTX, cubin or fatbin, which must outlive the
 * kernel) and the entry's name to k. */
grError_t gr__cuda_kernel_set_image(const char *call, grKernel_t k, const void *image, const char *entry);
/* Unloads the modules (the kernel's last reference went). */
void gr__cuda_kernel_free(struct gr_dev_kernel *g);
/* An eager launch of k on GPU stream s (checked by the caller) with the
 * attributes the driver takes of attrs[0..nattrs) (kernel.c). */
grError_t gr__cuda_launch(const char *call, gr_stream *s, grKernel_t k, const grDim3 *grid,
                          const grDim3 *block, size_t shmem, void **args, const grLaunchAttribute *attrs,
                          unsigned nattrs);
/* grFuncSetAttribute's value for k's function wherever it is loaded. */
grError_t gr__cuda_func_set_attribute(const char *call, grKernel_t k, grFuncAttribute attr, int value);
/* k's function on GPU 'device' as the driver reports it (occupancy.c):
 * the device table's func_attributes, occupancy_blocks, occupancy_smem
 * and occupancy_clusters. */
grError_t gr__cuda_func_attributes(const char *call, grKernel_t k, int device, grFuncAttributes *attr);
grError_t gr__cuda_occupancy_blocks(const char *call, grKernel_t k, int device, int block_size, size_t smem,
                                    unsigned flags, int *out);
grError_t gr__cuda_occupancy_smem(const char *call, grKernel_t k, int device, int blocks, int block_size,
                                  size_t *out);
grError_t gr__cuda_occupancy_clusters(const char *call, grKernel_t k, int device, const grLaunchConfig_t *cfg,
                                      bool potential, int *out);

/* ------------------------------------------------------------ collectives */

/* NCCL (nccl.c, loaded on first use): ncclCommInitAll over the GPUs
 * devices[0..ndev) (distinct, checked), rank i's ncclComm_t into out[i];
 * grErrorNotSupported where NCCL is not found. */
grError_t gr__cuda_comm_init(const char *call, int ndev, const int *devices, void **out);
/* ncclGetUniqueId into id (GR_COMM_UNIQUE_ID_BYTES). */
grError_t gr__cuda_comm_unique_id(const char *call, void *id);
/* ncclCommInitRank of rank 'rank' of nranks on GPU 'device', meeting the
 * others through id, into *out; grErrorNotSupported where NCCL is not
 * found. */
grError_t gr__cuda_comm_init_rank(const char *call, int device, int nranks, const void *id, int rank,
                                  void **out);
/* ncclCommDestroy of a communicator of GPU 'device'. */
void gr__cuda_comm_free(int device, void *comm);
/* p's NCCL call (checked; its communicator of s's device) on s. */
grError_t gr__cuda_coll_launch(const char *call, gr_stream *s, const grCollectiveNodeParams *p);
/* The exec setter of a collective node (graph_int.h's gr__cuda_coll_set). */
grError_t gr__cuda_exec_set_coll(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                 const grCollectiveNodeParams *p);

#endif /* GR_CUDA_H */
