/*
 * memory.h - the memory area's cross-file API: the allocation tracker that
 * knows every block graphrt handed out, the bounds check other areas run
 * before touching memory, and the stream operations that copy and set
 * bytes.
 *
 * Invariants:
 *   - tracked ranges [base, base + size) never overlap and have size > 0;
 *     a pointer lies in at most one of them;
 *   - a range is tracked from the moment its allocator returns it until
 *     its free begins, so a range found by a lookup is live memory;
 *   - gr__mem_check_range never takes a lock while nothing is tracked or
 *     the range lies outside the span of all tracked ranges.
 */
#ifndef GR_MEMORY_H
#define GR_MEMORY_H

#include "../backend/backend.h"

/* Who handed a tracked range out, and so which call may free it. */
typedef enum gr_mem_kind {
    GR_MEM_DEVICE = 1, /* grMalloc, freed by grFree */
    GR_MEM_HOST = 2,   /* grMallocHost, freed by grFreeHost */
    GR_MEM_POOL = 3    /* a memory pool or graph alloc node */
} gr_mem_kind;

/* The alignment of every grMalloc / grMallocHost block: CUDA guarantees at
 * least 256 bytes. */
#define GR_MEM_ALIGN 256u

/*
 * Checks that the n bytes at p may be accessed by 'call' (a public function
 * name): succeeds if the range lies outside every tracked allocation (plain
 * host memory) or fits inside the allocation that contains p; otherwise
 * returns grErrorInvalidValue with a detail naming the call, 'what' (e.g.
 * "destination"), the pointer, the allocation's base and size and the
 * overrun; a range that starts outside every allocation but reaches into
 * one is refused too. n == 0 always succeeds. Thread-safe; lock-free when
 * nothing is tracked or the range lies outside the span of tracked memory.
 */
grError_t gr__mem_check_range(const char *call, const void *p, size_t n, const char *what);

/* The test of gr__mem_check_range without a detail: false when the range
 * wraps (*base NULL) or overruns the allocation at *base of *size bytes. */
bool gr__mem_range_ok(const void *p, size_t n, void **base, size_t *size);

/* Tracks [base, base + size) as an allocation of 'kind' (size > 0, no
 * overlap with a tracked range). Returns false only when the tracker cannot
 * allocate its record; the caller reports grErrorMemoryAllocation. Pools use
 * it so that their blocks are bounds-checked like grMalloc's. */
bool gr__mem_track(void *base, size_t size, gr_mem_kind kind);

/* Whose memory a tracked range is: the CPU's (malloc'ed), pinned host
 * memory of the driver (cuMemHostAlloc), or GPU d's (d >= 1). */
enum {
    GR_OWNER_CPU = 0,
    GR_OWNER_PINNED = -1
};

/* gr__mem_track for memory of 'owner' (GR_OWNER_* or a GPU device). */
bool gr__mem_track_owned(void *base, size_t size, gr_mem_kind kind, int owner);

/* The owner of the tracked allocation containing p (true), or false when
 * p is in none. */
bool gr__mem_owner(const void *p, int *owner);

/* The kind and owner of the tracked allocation containing p, read
 * together (true), or false when p is in none. */
bool gr__mem_describe(const void *p, gr_mem_kind *kind, int *owner);

/* Stops tracking the allocation that starts at base and has 'kind'.
 * Returns false (and changes nothing) if there is none. */
bool gr__mem_untrack(void *base, gr_mem_kind kind);

/* Finds the tracked allocation containing p: true with its base, size and
 * kind (any out-pointer may be NULL), false if p is in none. */
bool gr__mem_lookup(const void *p, void **base, size_t *size, gr_mem_kind *kind);

/* Finds the most recent of the last 1024 freed allocations that contained
 * p and were freed after generation 'since' (gr__mem_generation), when p
 * lies in no live one: true with its base, size and kind (none may be
 * NULL). For the debug checks of baked addresses, which pass the
 * generation at which the address was baked (a range freed before that
 * may hold other memory by then); takes the tracker's read lock. */
bool gr__mem_lookup_freed(const void *p, uint64_t since, void **base, size_t *size, gr_mem_kind *kind);

/* A number that changes whenever a range starts or stops being tracked:
 * what a lookup answered stays true while it is the same. */
extern _Atomic uint64_t gr__mem_gen;
static inline uint64_t gr__mem_generation(void)
{
    return gr_load_acquire(&gr__mem_gen);
}

/* Moves the number on without a change of the tracker: graph memory was
 * mapped or unmapped, which the launch checks of ranges look at too. */
void gr__mem_generation_bump(void);

/* CUDA's memory types as far as graphrt tells them apart: true for memory
 * from grMalloc, a pool or a graph allocation node (device memory), false
 * for grMallocHost and untracked memory (host memory, or device memory
 * freed since). */
bool gr__mem_is_device(const void *p);

/* Checks the argument array of a launch of kernel 'name' for 'call': each
 * args[i] must point to sizes[i] readable bytes of host memory (the value
 * of parameter i), not be the value itself: NULL, a pointer into device
 * or pool memory that graphrt tracks, or an address that cannot be read
 * are refused with grErrorInvalidValue and a detail naming the index and
 * saying to pass the address of the value. Values on the calling thread's
 * stack pass in two compares; others are probed once per page and
 * tracker generation (argcheck.c). */
grError_t gr__kernel_args_check(const char *call, const char *name, int nparams, const uint32_t *sizes,
                                void **args);

/* The argument addresses the full check accepted on this thread, each
 * at a generation of the tracker (argcheck.c). */
#if GR_KNOBS_SMALL
#define GR_ARGS_KNOWN 1 /* a second argument address evicts the first */
#else
#define GR_ARGS_KNOWN 8
#endif
typedef struct gr_args_known {
    uintptr_t addr[GR_ARGS_KNOWN];
    uint64_t gen[GR_ARGS_KNOWN]; /* never 0 (generations start at 1): a zeroed entry matches none */
    uint32_t size[GR_ARGS_KNOWN];
    unsigned next;
} gr_args_known;
extern __attribute__((tls_model("initial-exec"))) _Thread_local gr_args_known gr__args_known;

/* True if the n bytes at a, off the calling thread's stack, passed
 * gr__kernel_args_check on this thread at the tracker's current
 * generation (they are still host memory outside every tracked
 * allocation): a few compares, no lookup. False says nothing; the full
 * check decides. */
static inline bool gr__kernel_arg_known(const void *a, uint32_t n)
{
    const gr_args_known *t = &gr__args_known;
    uint64_t gen = gr__mem_generation();
    for (unsigned i = 0; i < GR_ARGS_KNOWN; i++)
        if (t->addr[i] == (uintptr_t)a && t->gen[i] == gen && t->size[i] >= n)
            return true;
    return false;
}

/* The checks of gr__kernel_check, with the detail of the first that
 * fails; grSuccess when none does. */
grError_t gr__kernel_check_slow(const char *call, grKernel_t k, const grDim3 *grid, const grDim3 *block,
                                size_t shmem, void **args);

/* Checks a launch as grLaunchKernel does; on failure returns the error
 * with a detail naming 'call' (the public function). The common case, a
 * valid launch, is tested here with one 4-byte load per dimension: the
 * dimensions come by address because callers read them from a
 * grKernelNodeParams the application has just written field by field, and
 * a grDim3 passed by value is loaded 8 bytes at a time, across two of
 * those stores, which defeats store-to-load forwarding (a stall of ~15
 * cycles). A failure takes the slow path, which names it. */
static inline grError_t gr__kernel_check(const char *call, grKernel_t k, const grDim3 *grid,
                                         const grDim3 *block, size_t shmem, void **args)
{
    /* block: each dimension >= 1, x and y <= 1024, z <= 64, at most 1024
     * threads; grid: each >= 1, x < 2^31, y and z <= 65535 (v - 1 wraps
     * for 0). */
    bool ok = gr__kernel_valid(k) && block->x - 1u < 1024u && block->y - 1u < 1024u && block->z - 1u < 64u &&
              (uint64_t)block->x * block->y * block->z <= 1024u && grid->x - 1u < 0x7fffffffu &&
              grid->y - 1u < 65535u && grid->z - 1u < 65535u && shmem <= GR_MAX_SHARED_MEM &&
              shmem <= (size_t)gr_load_relaxed(&k->max_dyn_smem) && (k->nparams == 0 || args != NULL);
    /* Argument values on the caller's stack are readable host memory, and
     * so are those the full check accepted at the tracker's generation;
     * any other element is checked by the slow path (the kernelParams
     * mistake: a value where its address belongs). */
    for (int i = 0; ok && i < k->nparams; i++)
        ok = gr__on_own_stack(args[i], k->sizes[i]) || gr__kernel_arg_known(args[i], k->sizes[i]);
    if (GR_LIKELY(ok))
        return grSuccess;
    return gr__kernel_check_slow(call, k, grid, block, shmem, args);
}

/* A new block of 'size' bytes (> 0), 256-aligned, tracked as 'kind'
 * (GR_MEM_DEVICE or GR_MEM_HOST), its contents undefined:
 * grErrorMemoryAllocation with a detail naming 'call' when more than the
 * device's memory is asked for or the host cannot provide it (block.c). */
grError_t gr__mem_alloc(const char *call, size_t size, gr_mem_kind kind, void **out);

/* Stops tracking and frees the block of 'kind' at base; false (nothing
 * freed) when no such block is tracked. The caller makes sure no queued
 * work still touches it. */
bool gr__mem_free_block(void *base, gr_mem_kind kind);

/* The number of tracked allocations (for diagnostics and tests). */
size_t gr__mem_live_count(void);

/* grDeviceReset of the CPU: frees every grMalloc and grMallocHost block
 * still alive that is not a GPU's (pinned host memory included) and
 * forgets every tracked range that is not a GPU's (pools free their own
 * memory first). Must not race with other graphrt calls. */
void gr__mem_reset(void);

/* grDeviceReset of GPU 'device': frees the grMalloc blocks of that GPU
 * still alive and forgets every range it owns. Must not race with other
 * graphrt calls. */
void gr__mem_reset_device(int device);

/* ------------------------------------------------- pitched regions */

/* A pitched region of memory (region.c): width bytes per row, height
 * rows per slice, depth slices, rows 'pitch' bytes apart, slices 'slice'
 * bytes apart, 'rows' rows per slice (the driver's srcHeight /
 * dstHeight). */
typedef struct gr_region {
    char *base; /* first byte of the first row */
    size_t width, height, depth;
    size_t pitch, slice, rows;
} gr_region;

static inline bool gr__region_empty(const gr_region *g)
{
    return g->width == 0 || g->height == 0 || g->depth == 0;
}

/* Rows contiguous in memory: the region is one range of width * height *
 * depth bytes. */
static inline bool gr__region_linear(const gr_region *g)
{
    return (g->height == 1 || g->pitch == g->width) && (g->depth == 1 || g->slice == g->width * g->height);
}

/* Rows evenly spaced across slices: height * depth rows 'pitch' apart. */
static inline bool gr__region_even(const gr_region *g)
{
    return g->depth == 1 || g->slice == g->pitch * g->height;
}

/* The region of extent e at position pos of pitched pointer p ('what'
 * names the side in a detail), with CUDA 13's codes as probed on an H200:
 * for a copy, a pitch below the width is grErrorInvalidPitchValue with
 * several rows and grErrorInvalidValue with one (a pitch of 0 accepted
 * for one row), pos.x + width beyond the pitch grErrorInvalidValue, a
 * ysize below the height grErrorInvalidPitchValue with several slices and
 * grErrorInvalidValue with one (0 accepted); for a memset ('set'), each
 * of these is grErrorInvalidValue, the pitch of a single row is not
 * checked, and a ysize below the height is refused for one slice too. An
 * empty extent is accepted (base NULL). */
grError_t gr__region_3d(const char *call, const char *what, grPitchedPtr p, grPos pos, grExtent e, bool set,
                        gr_region *out);

/* Checks a non-empty region whose pitches were checked: not NULL, no
 * overflow, and every row inside one graphrt allocation or outside all of
 * them (the region is one object: its span, first row to last, is tested
 * first; rows are walked only to name the first at fault). */
grError_t gr__region_check(const char *call, const gr_region *g, const char *what);

/* Bytes from a checked region's first byte to the end of its last row. */
size_t gr__region_span(const gr_region *g);

/* The region of one side of a pitched copy starting at base. */
void gr__region_of_shape(gr_region *out, const void *base, const gr_copy_shape *s, bool dst_side);

/* gr__region_check of both sides of a pitched copy. */
grError_t gr__copy_shape_check(const char *call, void *dst, const void *src, const gr_copy_shape *s,
                               const char *dst_what, const char *src_what);

/* --------------------------------------------- stream copy and set ops */

/* The payloads of the stream operations queued by grMemcpyAsync and
 * grMemsetAsync. The capture area recognises these operations by their
 * function (gr__mem_copy_op / gr__mem_set_op) to record memcpy and memset
 * nodes instead of opaque calls. */
typedef struct gr_mem_copy_args {
    void *dst;
    const void *src;
    size_t count;
    grMemcpyKind kind;
} gr_mem_copy_args;

typedef struct gr_mem_set_args {
    void *dst;
    size_t count;
    unsigned char value;
} gr_mem_set_args;

/* Stream operation bodies (gr_op_fn): data points to a gr_mem_copy_args /
 * gr_mem_set_args. The copy is a memmove, so overlapping ranges give the
 * bytes the source held before the copy. */
void gr__mem_copy_op(void *data);
void gr__mem_set_op(void *data);

/* ------------------------------------------- host memory notes (hostreg.c) */

/* What graphrt notes of host memory beyond the tracker. */
typedef enum gr_hostreg_kind {
    GR_HOSTREG_ALLOC = 1,      /* a grHostAlloc block: its flags */
    GR_HOSTREG_REGISTERED = 2, /* a grHostRegister range: its flags */
    GR_HOSTREG_MANAGED = 3     /* a grMallocManaged block: its flags */
} gr_hostreg_kind;

typedef enum gr_hostreg_result {
    GR_HOSTREG_OK = 0,
    GR_HOSTREG_OVERLAP, /* the range overlaps a registered one */
    GR_HOSTREG_NOMEM
} gr_hostreg_result;

/* Notes the flags of the allocation of 'kind' (ALLOC or MANAGED) at base;
 * false when out of memory. Its free calls gr__hostreg_forget(base). */
bool gr__hostreg_note(void *base, size_t size, unsigned flags, gr_hostreg_kind kind);

/* Registers [base, base + size) unless it overlaps a registered range. */
gr_hostreg_result gr__hostreg_register(void *base, size_t size, unsigned flags);

/* Unregisters the range registered at base; false if none starts there. */
bool gr__hostreg_unregister(void *base);

/* The entry of 'kind' (0: any) holding p: true with its base, size and
 * flags (any out-pointer may be NULL). */
bool gr__hostreg_find(const void *p, gr_hostreg_kind kind, void **base, size_t *size, unsigned *flags);

/* Drops the note of the allocation at base (no-op without one): called
 * by the frees of grMallocHost and grMalloc memory. */
void gr__hostreg_forget(void *base);

/* grDeviceReset of the CPU: drops every allocation's note. */
void gr__hostreg_reset(void);

/* What grMemAdvise and the prefetches set on a managed allocation, kept
 * per allocation (CUDA keeps it per page: graphrt's answers for a part of
 * an allocation are those of the whole). A location of type
 * grMemLocationTypeInvalid is none. */
typedef struct gr_managed_state {
    bool read_mostly;
    grMemLocation preferred;
    grMemLocation last_prefetch;
    uint64_t accessed_by; /* bit d: device d (0..62); bit 63: the host */
} gr_managed_state;

/* A change to that state: a prefetch, or an advice (grMemoryAdvise's
 * values). */
typedef enum gr_managed_change {
    GR_MANAGED_PREFETCH = 0,
    GR_MANAGED_SET_READ_MOSTLY = 1,
    GR_MANAGED_UNSET_READ_MOSTLY = 2,
    GR_MANAGED_SET_PREFERRED = 3,
    GR_MANAGED_UNSET_PREFERRED = 4,
    GR_MANAGED_SET_ACCESSED_BY = 5,
    GR_MANAGED_UNSET_ACCESSED_BY = 6
} gr_managed_change;

/* The state of the managed allocation holding p; false if none holds it. */
bool gr__hostreg_managed_get(const void *p, gr_managed_state *out);

/* Applies 'change' (with its location, checked by the caller: a device
 * below 63 or a host location) to the managed allocation holding p;
 * false if none holds it (freed meanwhile: nothing to change). */
bool gr__hostreg_managed_change(const void *p, gr_managed_change change, grMemLocation loc);

#endif /* GR_MEMORY_H */
