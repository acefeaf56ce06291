/*
 * device.h - the device seam: what a device kind other than the CPU
 * implements, as one table of operations (gr_device_ops), and the
 * device-neutral functions the layers above the backend call instead of
 * any one kind's.
 *
 * Devices. Device 0 is the CPU; devices 1..N are those of the one
 * accelerator kind the process uses, chosen once, at the first question
 * about devices (gr__devkind): the CUDA kind (backend/cuda) when the
 * driver offers GPUs, else a kind registered with gr__device_register
 * before that first question (the test suite's fake device,
 * tests/fakedev), else the CUDA kind with no devices (it says why,
 * absence()). The CPU keeps its own functions (backend.h), reached
 * inline: every eager launch, graph launch and event record tests the
 * stream's 'device' (one load of its first cache line, which the capture
 * test reads already, and one predictable branch) and only then calls
 * through the table.
 *
 * What the layers above see of a device object: a stream (gr_stream) and
 * an event (grEvent_st) are a header (backend.h) that the device's own
 * struct embeds first, libuv's UV_HANDLE_FIELDS: the CPU's queue
 * (gr_cpu_stream) and latest record (gr_cpu_event) in backend/cpu; a
 * kind's driver objects in its own struct, which it allocates with
 * gr__stream_new_dev / gr__event_new_dev (the shell is the backend's,
 * the rest the kind's, released by its stream_free / event_free) and
 * reaches by a cast once it has tested 'device'. A kernel has one 'gpu'
 * part for every accelerator device (struct gr_dev_kernel); an
 * executable (grGraphExec_st) points to the kind's executable (struct
 * gr_dev_exec) when it is for a device >= 1. Each kind defines those
 * structs privately; nothing outside it looks inside.
 *
 * Preconditions of every operation, checked by the caller, never by the
 * kind: a device argument names an existing device >= 1 of this kind; a
 * stream or event argument is live and of such a device; 'call' is the
 * public entry point's name, which every failure's detail names. A kind
 * never calls the CPU device's internals (backend/cpu) nor another kind's:
 * what it needs of the stream and event objects is in backend.h (the
 * neutral backend/stream.c and backend/event.c: gr__stream_new_dev,
 * gr__event_new_dev, ...) and here.
 *
 * Errors, once for all: an operation returning grError_t returns
 * grSuccess, or fails with the error and a detail (gr__fail); a query
 * (stream_query, event_query) returns grErrorNotReady with no detail for
 * work not yet done; an asynchronous error of the device's work is
 * returned by the first synchronisation or query that sees it and sticks
 * as the kind's own rules say (CUDA's: sticky to the context). Operations
 * returning void cannot fail (frees: the device frees what it can). The
 * executables' setters (exec_set_*) are called after the exec layer has
 * checked the change and before it writes the plan, so that a refusal by
 * the device changes nothing (the device-first-then-plan rule); a
 * lowering (exec_lower) refused leaves no executable.
 */
#ifndef GR_DEVICE_H
#define GR_DEVICE_H

#include "backend.h"
#include "plan.h"

/* The most accelerator devices graphrt uses (devices 1..GR_MAX_GPUS). */
#define GR_MAX_GPUS 32

struct gr_dev_kernel;
struct gr_dev_exec;

/* One side of a pitched copy: rows 'pitch' bytes apart, slices 'rows'
 * rows apart. */
typedef struct gr_copy_side {
    const void *ptr;
    size_t pitch, rows;
} gr_copy_side;

/* What the device says of a pointer graphrt did not allocate. */
typedef struct gr_dev_pointer {
    grMemoryType type; /* grMemoryTypeHost, Device or Managed */
    int device;        /* graphrt's device number (1..N) */
    void *device_pointer, *host_pointer;
} gr_dev_pointer;

/* What gr_device_ops.peer_access does. */
enum {
    GR_PEER_QUERY,
    GR_PEER_ENABLE,
    GR_PEER_DISABLE
};

typedef struct gr_device_ops {
    const char *name; /* "cuda", "fake" */

    /* ---- devices */
    /* The number of devices (0: none), and why there is none as a
     * sentence fragment (NULL when there are). Thread-safe. */
    int (*count)(void);
    const char *(*absence)(void);
    grError_t (*properties)(const char *call, int device, grDeviceProp *prop);
    grError_t (*attribute)(const char *call, int device, grDeviceAttr attr, int *value);
    /* Waits for all the device's work. */
    grError_t (*device_sync)(const char *call, int device);
    /* Starts the device (its primary context) without doing any work. */
    grError_t (*device_init)(const char *call, int device);
    /* The driver's version (1000 * major + 10 * minor), 0 without one. */
    int (*driver_version)(void);
    grError_t (*mem_info)(const char *call, int device, size_t *free_bytes, size_t *total_bytes);
    /* Peer access between GPUs 'device' and 'peer' (two different
     * devices of the kind): GR_PEER_QUERY answers in *can whether device
     * can map peer's memory; GR_PEER_ENABLE / GR_PEER_DISABLE map it into
     * device's context or unmap it. NULL: every pair can, and enabling
     * has nothing to map. */
    grError_t (*peer_access)(const char *call, int device, int peer, int what, int *can);

    /* ---- streams */
    grError_t (*stream_create)(const char *call, int device, unsigned user_flags, int priority,
                               gr_stream **out);
    grError_t (*stream_priority_range)(const char *call, int device, int *least, int *greatest);
    /* The legacy (per_thread false) or the calling thread's per-thread
     * default stream of the device. */
    grError_t (*stream_default)(const char *call, int device, bool per_thread, gr_stream **out);
    /* Releases what a stream of the kind holds (its last reference
     * went); the backend then gives the object's memory back. */
    void (*stream_free)(gr_stream *s);
    grError_t (*stream_sync)(const char *call, gr_stream *s);
    grError_t (*stream_query)(const char *call, gr_stream *s);

    /* ---- work on a stream of the device */
    /* attrs[0..nattrs): the launch's attributes as given (checked for
     * launches; NULL when none; a later entry of an ID overrides an
     * earlier one), of which grLaunchAttributeCooperative asks for a
     * cooperative launch. The programmatic and launch-completion events
     * are the caller's, recorded after the launch. */
    grError_t (*launch)(const char *call, gr_stream *s, grKernel_t k, const grDim3 *grid, const grDim3 *block,
                        size_t shmem, void **args, const grLaunchAttribute *attrs, unsigned nattrs);
    grError_t (*copy)(const char *call, gr_stream *s, void *dst, const void *src, size_t count);
    grError_t (*fill)(const char *call, gr_stream *s, void *dst, int value, size_t count);
    /* A pitched copy or 2D memset on stream s or (s NULL) at once on the
     * device, waited for. */
    grError_t (*copy_pitched)(const char *call, gr_stream *s, int device, const gr_copy_side *dst,
                              const gr_copy_side *src, size_t width, size_t height, size_t depth);
    grError_t (*fill_2d)(const char *call, gr_stream *s, int device, void *dst, size_t pitch,
                         unsigned char value, size_t width, size_t height);
    /* A copy or memset done at once on the device and waited for: what a
     * CPU stream's op runs when a pointer is the device's memory. */
    grError_t (*copy_now)(int device, void *dst, const void *src, size_t count);
    grError_t (*fill_now)(int device, void *dst, int value, size_t count);
    grError_t (*host_func)(const char *call, gr_stream *s, grHostFn_t fn, void *user);
    grError_t (*stream_memops)(const char *call, gr_stream *s, unsigned count,
                               const grStreamBatchMemOpParams *ops);

    /* ---- events */
    grError_t (*event_create)(const char *call, int device, unsigned flags, grEvent_t *out);
    /* Releases what an event of the kind holds (its last reference
     * went); the backend then gives the object's memory back. */
    void (*event_free)(grEvent_t e);
    grError_t (*event_record)(const char *call, grEvent_t e, gr_stream *s);
    grError_t (*event_query)(const char *call, grEvent_t e);
    grError_t (*event_sync)(const char *call, grEvent_t e);
    grError_t (*event_elapsed)(const char *call, float *ms, grEvent_t start, grEvent_t end);
    /* Makes stream s wait for event e, both of this kind's devices. */
    grError_t (*stream_wait_event)(const char *call, gr_stream *s, grEvent_t e);

    /* ---- memory */
    /* Device memory (the caller tracks it); freed after the device's work
     * is done, as cudaFree. */
    grError_t (*mem_alloc)(const char *call, int device, size_t size, void **out);
    grError_t (*mem_free)(const char *call, int device, void *p);
    /* Host memory every device of the kind reaches (pinned). */
    grError_t (*host_alloc)(const char *call, size_t size, void **out);
    grError_t (*host_free)(const char *call, void *p);
    /* The device (1..N) whose memory p is; 0 for host memory or unknown. */
    int (*pointer_device)(const void *p);
    bool (*pointer_info)(const void *p, gr_dev_pointer *info);
    /* Stream-ordered allocation from the device's current pool. */
    grError_t (*alloc_async)(const char *call, gr_stream *s, size_t size, void **out);
    grError_t (*free_async)(const char *call, gr_stream *s, void *p);

    /* ---- managed memory. A location is graphrt's: {Device, d >= 1} the
     * device d of the kind, {Device, 0} and the host types the host; the
     * kind turns it into its own. Advice values are grMemoryAdvise's
     * (CUDA's), range attributes grMemRangeAttribute's. */
    /* Managed memory allocated with device current (freed with
     * mem_free); flags grMemAttachGlobal or grMemAttachHost. */
    grError_t (*managed_alloc)(const char *call, int device, size_t size, unsigned flags, void **out);
    /* Advice on [p, p + count) of managed memory of 'device'. */
    grError_t (*mem_advise)(const char *call, int device, const void *p, size_t count, int advice,
                            grMemLocation loc);
    /* A prefetch of [p, p + count) to loc in stream order on s. */
    grError_t (*mem_prefetch)(const char *call, gr_stream *s, const void *p, size_t count, grMemLocation loc);
    /* One range attribute of managed memory of 'device' into data (size
     * bytes, checked): device ids answered in graphrt's numbering
     * (grCpuDeviceId for the host, grInvalidDeviceId for none). */
    grError_t (*range_attribute)(const char *call, int device, const void *p, size_t count, int attr,
                                 void *data, size_t size);
    /* grStreamAttachMemAsync's association on s (flags checked). */
    grError_t (*stream_attach)(const char *call, gr_stream *s, void *p, size_t length, unsigned flags);

    /* ---- a device's settings (its primary context's) */
    /* grLimit 'limit' (a checked grLimit, CUDA's value): set to *value,
     * or read into *value. */
    grError_t (*limit)(const char *call, int device, int limit, size_t *value, bool set);
    /* grSetDeviceFlags' flags (checked, CUDA's bits): set from *flags, or
     * read into *flags. */
    grError_t (*device_flags)(const char *call, int device, unsigned *flags, bool set);

    /* ---- registered host memory: what grHostRegister pins for every
     * device of the kind (flags checked, grHostRegister's), and the
     * address on 'device' of such memory or of host_alloc's */
    grError_t (*host_register)(const char *call, void *p, size_t size, unsigned flags);
    grError_t (*host_unregister)(const char *call, void *p);
    grError_t (*host_device_pointer)(const char *call, int device, void *p, void **out);

    /* ---- pools (a pool is the kind's handle, passed as void *) */
    grError_t (*pool_create)(const char *call, int device, size_t max_size, void **out);
    void (*pool_destroy)(int device, void *pool);
    grError_t (*pool_default)(const char *call, int device, void **out);
    grError_t (*pool_set_current)(const char *call, int device, void *pool);
    grError_t (*pool_alloc)(const char *call, gr_stream *s, void *pool, size_t size, void **out);
    grError_t (*pool_trim)(const char *call, int device, void *pool, size_t keep);
    grError_t (*pool_attribute)(const char *call, int device, void *pool, int attr, void *value, bool set);
    grError_t (*pool_set_access)(const char *call, int device, void *pool, const int *devices,
                                 const int *flags, size_t n);
    grError_t (*pool_get_access)(const char *call, int device, void *pool, int other, int *flags);

    /* ---- virtual memory (graph memory): reservations of the unified
     * address space, physical allocations, mappings */
    grError_t (*vmm_granularity)(const char *call, int device, size_t *out);
    grError_t (*vmm_reserve)(const char *call, int device, size_t size, size_t align, void **out);
    void (*vmm_unreserve)(int device, void *p, size_t size);
    grError_t (*vmm_create)(const char *call, int device, size_t size, uint64_t *out);
    void (*vmm_release)(int device, uint64_t handle);
    grError_t (*vmm_map)(const char *call, int device, void *p, size_t size, uint64_t handle, size_t offset);
    void (*vmm_unmap)(int device, void *p, size_t size);
    grError_t (*vmm_quiesce)(const char *call, int device);

    /* ---- kernels */
    grError_t (*kernel_set_image)(const char *call, grKernel_t k, const void *image, const char *entry);
    void (*kernel_free)(struct gr_dev_kernel *g);
    /* What the device says of k's function on 'device' (the image
     * loaded there on first use; grErrorInvalidDeviceFunction with a
     * detail where k has none, as a launch says): grFuncGetAttributes'
     * fields, and the occupancy calculator's answers for arguments the
     * caller checked (block_size and blocks positive, flags
     * grOccupancyDefault or grOccupancyDisableCachingOverride, cfg
     * non-NULL with no zero block or cluster dimension). With
     * 'potential', occupancy_clusters answers
     * grOccupancyMaxPotentialClusterSize, else
     * grOccupancyMaxActiveClusters. */
    grError_t (*func_attributes)(const char *call, grKernel_t k, int device, grFuncAttributes *attr);
    /* grFuncSetAttribute of a CUDA attribute (MaxDynamicSharedMemorySize
     * or PreferredSharedMemoryCarveout, 'value' checked), which k holds
     * already: given to k's function on every device where it is loaded
     * (a later load applies k's values); a refusal is the device's
     * error. */
    grError_t (*func_set_attribute)(const char *call, grKernel_t k, grFuncAttribute attr, int value);
    grError_t (*occupancy_blocks)(const char *call, grKernel_t k, int device, int block_size, size_t smem,
                                  unsigned flags, int *out);
    grError_t (*occupancy_smem)(const char *call, grKernel_t k, int device, int blocks, int block_size,
                                size_t *out);
    grError_t (*occupancy_clusters)(const char *call, grKernel_t k, int device, const grLaunchConfig_t *cfg,
                                    bool potential, int *out);

    /* ---- executables: a plan lowered for one device */
    grError_t (*exec_lower)(const char *call, const gr_plan *p, int device, unsigned long long flags,
                            struct gr_dev_exec **out);
    void (*exec_free)(struct gr_dev_exec *gx);
    int (*exec_device)(const struct gr_dev_exec *gx);
    /* Launches (or with 'upload' uploads) on stream s of gx's device. */
    grError_t (*exec_launch)(const char *call, struct gr_dev_exec *gx, gr_stream *s, bool upload);
    /* Queues fn(arg) behind gx's latest launch: false where it cannot
     * (the caller then does the work itself). */
    bool (*exec_defer)(struct gr_dev_exec *gx, void (*fn)(void *), void *arg);
    grError_t (*exec_set_kernel)(const char *call, struct gr_dev_exec *gx, uint32_t i, grKernel_t k,
                                 const grDim3 *grid, const grDim3 *block, uint32_t shmem, void **args);
    grError_t (*exec_set_memcpy)(const char *call, struct gr_dev_exec *gx, uint32_t i, void *dst,
                                 const void *src, size_t count, const gr_copy_shape *shape);
    grError_t (*exec_set_memset)(const char *call, struct gr_dev_exec *gx, uint32_t i,
                                 const grMemsetParams *p);
    grError_t (*exec_set_host)(const char *call, struct gr_dev_exec *gx, uint32_t i,
                               const grHostNodeParams *p);
    grError_t (*exec_set_event)(const char *call, struct gr_dev_exec *gx, uint32_t i, bool record,
                                grEvent_t ev);
    grError_t (*exec_set_enabled)(const char *call, struct gr_dev_exec *gx, uint32_t i, bool enabled);
    /* A batch memory operation node's count operations, checked: the
     * node's count and operation types, every word memory the device
     * reaches (exec/devmem.c). */
    grError_t (*exec_set_memop)(const char *call, struct gr_dev_exec *gx, uint32_t i, unsigned count,
                                const grStreamBatchMemOpParams *ops);
    /* What lowering refuses of a kernel and of an event, checked by
     * grGraphExecUpdate before it changes anything. */
    grError_t (*exec_check_kernel)(const char *call, struct gr_dev_exec *gx, grKernel_t k);
    grError_t (*exec_check_event)(const char *call, struct gr_dev_exec *gx, grEvent_t ev);
    /* A collective node's new parameters (same op and communicator,
     * checked) at plan node i of gx. */
    grError_t (*exec_set_coll)(const char *call, struct gr_dev_exec *gx, uint32_t i,
                               const grCollectiveNodeParams *p);
    /* The device's own handle of the device-updatable kernel node at
     * top-level plan node i of gx (what kernels there pass to the
     * device's update functions), or NULL where kernels use graphrt's
     * (a device whose executables run graphrt's plan). */
    void *(*exec_devnode)(struct gr_dev_exec *gx, uint32_t i);
    /* Kernel node i of gx's top-level plan p (child graphs inlined) has
     * launch attributes attrs[0..n) now (grGraphExecUpdate): the device
     * gives them to its executable by the next exec_sync_range, where it
     * can (a device may keep those it was lowered with; documented). */
    grError_t (*exec_set_kattrs)(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t i,
                                 const grLaunchAttribute *attrs, unsigned n);
    /* Applies plan nodes [from, to) of p (with 'only', the nodes i with
     * only[i] nonzero) to the device's executable. */
    grError_t (*exec_sync_range)(const char *call, struct gr_dev_exec *gx, const gr_plan *p, uint32_t from,
                                 uint32_t to, const uint8_t *only);

    /* ---- collectives (docs/collectives.md): the kind's communication
     * library (NCCL on the CUDA kind). A communicator of the kind is its
     * handle, passed as void *; a collective node's lowering is part of
     * exec_lower. */
    /* One communicator per device of devices[0..ndev) (distinct devices
     * of the kind, 1 <= ndev <= GR_MAX_GPUS, checked), rank i on
     * devices[i], into out[i]: ncclCommInitAll's group. */
    grError_t (*comm_init)(const char *call, int ndev, const int *devices, void **out);
    /* A unique id (GR_COMM_UNIQUE_ID_BYTES into id) for comm_init_rank:
     * ncclGetUniqueId. */
    grError_t (*comm_unique_id)(const char *call, void *id);
    /* Rank 'rank' of nranks (checked) on 'device' (a started device of
     * the kind), meeting the other ranks through id (a unique id's
     * bytes), into *out: ncclCommInitRank. */
    grError_t (*comm_init_rank)(const char *call, int device, int nranks, const void *id, int rank,
                                void **out);
    /* Frees a communicator of 'device' (its last reference went). */
    void (*comm_free)(int device, void *comm);
    /* Queues p's collective (checked; p->comm of s's device) on s. */
    grError_t (*coll_launch)(const char *call, gr_stream *s, const grCollectiveNodeParams *p);
} gr_device_ops;

/* ------------------------------------------------------ the chosen kind */

/* The kind of devices 1..N, chosen at the first call (see above); never
 * NULL. One acquire load once chosen. */
extern const gr_device_ops *_Atomic gr__devkind_chosen;
const gr_device_ops *gr__devkind_choose(void);
static inline const gr_device_ops *gr__devkind(void)
{
    const gr_device_ops *k = gr_load_acquire(&gr__devkind_chosen);
    return GR_LIKELY(k != NULL) ? k : gr__devkind_choose();
}

/* Offers a kind for devices 1..N where the CUDA kind has none: the test
 * suite's fake device registers itself so. Takes effect only before the
 * first question about devices; returns false after it. */
bool gr__device_register(const gr_device_ops *ops);

/* The CUDA kind (backend/cuda/ops.c). */
extern const gr_device_ops gr__cuda_kind;

/* ------------------------------------------------- device-neutral calls */

/* The number of accelerator devices (0 without any); chooses the kind on
 * first use. Thread-safe. */
int gr__gpu_count(void);

/* Why there is no accelerator device, or NULL when there are. */
const char *gr__gpu_absence(void);

/* The calling thread's device: 0 (the CPU) or 1..gr__gpu_count(). The
 * first call in a thread applies GRAPHRT_DEVICE. */
int gr__device_current(void);

/* Makes 'device' (checked by the caller) the calling thread's device. */
void gr__device_select(int device);

/* Where a thread that has chosen no device starts from now on: 'device'
 * (grSetValidDevices' first), or with -1 GRAPHRT_DEVICE's, else 0. */
void gr__device_set_first(int device);

/* True when 'device' names an existing device (0..gr__gpu_count()). */
bool gr__device_exists(int device);

/* True once any accelerator device has been used (so that a foreign
 * pointer may be its memory). Inline: CPU paths ask it per call. */
extern _Atomic bool gr__gpu_any_context;
static inline bool gr__gpu_active(void)
{
    return gr_load_acquire(&gr__gpu_any_context);
}

/* ---- the device-neutral object operations, which test the object's
 * device and call the CPU's functions (backend.h) or the kind's table */

/* A created stream of 'device' (0: the CPU) for grStreamCreateWithFlags'
 * checked flags and a priority (clamped into the device's range); fails
 * with a detail naming 'call'. */
grError_t gr__stream_create_dev(const char *call, int device, unsigned flags, int priority, gr_stream **out);

/* grStreamQuery of s: grSuccess, grErrorNotReady (no detail) while work is
 * pending, or the stream's asynchronous error (the CPU's sticky one, or
 * the device's), recorded as the thread's last. */
grError_t gr__stream_query_dev(const char *call, gr_stream *s);

/* Waits for all the work of 'device': the driver's on a device (its error
 * with a detail naming 'call'), every stream's on the CPU (then the CPU's
 * kernel fault, if one stuck, gr__kernel_fault_check). */
grError_t gr__device_sync_dev(const char *call, int device);

/* The backend's part of grDeviceReset of 'device': on a device, waits for
 * its work (an error is not reported: the reset goes on); on the CPU,
 * gr__device_stop (its streams and workers go, to start again on next
 * use). */
void gr__device_reset_dev(const char *call, int device);

/* Waits for s: the driver's stream synchronisation on a device (its error
 * with a detail naming 'call'), gr__stream_sync on the CPU (its sticky
 * error, not recorded: the caller does that). */
grError_t gr__stream_sync_dev(const char *call, gr_stream *s);

/* Waits for e's latest record (nothing if never recorded); returns the
 * error of its stream's work, recorded as the thread's last. */
grError_t gr__event_sync_dev(const char *call, grEvent_t e);

/* grEventElapsedTime of start and end (checked live, not in an ended
 * capture): the device's answer where either is a device's (both of one
 * device, else grErrorInvalidResourceHandle), else the CPU's record times
 * (gr__event_time). Fails with a detail naming 'call'. */
grError_t gr__event_elapsed_dev(const char *call, float *ms, grEvent_t start, grEvent_t end);

/* grEventQuery of e: grSuccess once its latest record has completed (or
 * it was never recorded), else grErrorNotReady (no detail); a device's
 * asynchronous error as the device reports it. */
grError_t gr__event_query_dev(const char *call, grEvent_t e);

/* Starts 'device' on first use, without doing any work: the CPU's
 * workers (0; grErrorInitializationError when out of memory or threads),
 * a device's primary context (>= 1; the device's error). The detail names
 * 'call'. */
grError_t gr__device_start_dev(const char *call, int device);

/* Waits for all the work of 'device' queued so far and reports nothing (a
 * free's wait: an error stays for the next synchronisation). */
void gr__device_drain_dev(const char *call, int device);

/* grDevAttrMultiProcessorCount of 'device': the CPU's worker threads
 * (starting it), a device's own answer. */
grError_t gr__device_processors(const char *call, int device, int *out);

/* The legacy (per_thread false) or the calling thread's per-thread
 * default stream of 'device' (starting it). */
grError_t gr__stream_default_dev(const char *call, int device, bool per_thread, gr_stream **out);

/* ---- stream-ordered work and order on a stream of any device (s not
 * capturing: the caller has diverted a capture) */

/* Queues fn(copy of data) on s in stream order, size <= GR_OP_DATA_MAX:
 * a CPU stream's op (gr__stream_enqueue_call), a device's host function.
 * Fails only out of memory or with the device's error. */
grError_t gr__stream_call_dev(const char *call, gr_stream *s, gr_op_fn fn, const void *data, size_t size);

/* Queues count checked memory operations on s: the CPU's ops, one per
 * operation (gr__memop_run), or the device's batch. */
grError_t gr__stream_memops_dev(const char *call, gr_stream *s, unsigned count,
                                const grStreamBatchMemOpParams *ops);

/* Waits until s has completed its first 'seq' ops (a device's stream:
 * all its work so far), reporting nothing. */
void gr__stream_wait_seq_dev(gr_stream *s, uint64_t seq);

/* How many of t's ops event waits queued on s make s's future work
 * follow (gr__stream_known_by_waits); 0 where either is a device's, which
 * keeps no record of its waits. */
uint64_t gr__stream_known_by_waits_dev(gr_stream *s, gr_stream *t);

/* Makes s's future work follow t's first 'seq' ops: a WAIT op on the CPU
 * (false, queuing nothing, when out of memory); where either stream is a
 * device's, the calling thread waits for them at the call. The pools'
 * internal dependencies. */
bool gr__stream_follow_dev(gr_stream *s, gr_stream *t, uint64_t seq);

/* ---- executables */

/* Launches (or with 'upload' uploads) e, checked by the caller, on s: the
 * device's executable through the table when either is a device's, else
 * the CPU's launch of the plan (gr__exec_launch; an upload has nothing to
 * do). Called last on grGraphLaunch's path, after its one test of the
 * device. */
grError_t gr__exec_launch_dev(const char *call, grGraphExec_t e, gr_stream *s, bool upload);

/* ---- across devices (cross_device.c, whose top comment is the table of
 * docs/devices.md) */

/* A copy (src non-NULL) or memset (of 'value') of 'count' bytes on CPU
 * stream s touching device 'device''s memory: done at the call, once s's
 * earlier work has run, so that it keeps its place in s's order; fails
 * with s's sticky error (recorded again) or the device's, with a detail
 * naming 'call'. */
grError_t gr__cross_copy_now(const char *call, gr_stream *s, int device, void *dst, const void *src,
                             int value, size_t count);

/* grStreamWaitEvent of s on e where either is a device's (>= 1): the
 * driver's wait when both are, else the calling thread waits for e at the
 * call. Errors are recorded with a detail naming 'call'. */
grError_t gr__cross_wait_event(const char *call, gr_stream *s, grEvent_t e);

/* The refusal of a record of e on s, a stream of another device than
 * e's ('stream': the public handle, which the detail names). */
grError_t gr__cross_record_refusal(const char *call, grEvent_t e, gr_stream *s, const void *stream);

/* The eager grStreamWaitEvent of s (not capturing) on e, of any devices:
 * gr__stream_wait_event on the CPU, gr__cross_wait_event otherwise. */
grError_t gr__stream_wait_event_dev(const char *call, gr_stream *s, grEvent_t e);

#endif /* GR_DEVICE_H */
