/*
 * core.h - what every area of graphrt shares: failure reporting with the
 * last-error detail, object magic words, asserts, atomics that name their
 * memory order, and the small helpers used everywhere.
 *
 * Invariants: a public entry point leaves through 'return gr__fail(...)' on
 * every failure, so the thread's last error and detail sentence are always
 * set together; successful calls never touch them.
 */
#ifndef GR_CORE_H
#define GR_CORE_H

#include "graphrt.h"
#include "atomic.h"
#include "barrier.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_LIKELY(x) __builtin_expect(!!(x), 1)
#define GR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GR_NOINLINE __attribute__((noinline))
#define GR_INTERNAL __attribute__((visibility("hidden")))
#define GR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GR_CACHELINE 64
#define GR_ALIGNED_CL _Alignas(GR_CACHELINE)

#ifndef GR_DEBUG
#define GR_DEBUG 0
#endif

/* 1 in the knob build (cmake -DGR_SMALL_KNOBS=ON): inline capacities,
 * caches and segment sizes shrink to their smallest legal values, so that
 * the suite runs the overflow, eviction and rollover paths that the usual
 * sizes reach only under load. */
#ifndef GR_KNOBS_SMALL
#define GR_KNOBS_SMALL 0
#endif

/* Sanitizers, as gcc (__SANITIZE_*__) and clang (__has_feature) say. */
#if defined(__SANITIZE_ADDRESS__)
#define GR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GR_ASAN 1
#endif
#endif
#ifndef GR_ASAN
#define GR_ASAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define GR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GR_TSAN 1
#endif
#endif
#ifndef GR_TSAN
#define GR_TSAN 0
#endif

/* Memory the library holds but nobody may touch (freed pool blocks, dead
 * shells): AddressSanitizer reports any access. */
#if GR_ASAN
#include <sanitizer/asan_interface.h>
#define GR_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define GR_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define GR_POISON(p, n) ((void)(p), (void)(n))
#define GR_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Assert levels (STYLE.md): internal invariants only, never user input. */
void gr__assert_fail(const char *expr, const char *file, int line);
#define gr__assert_at(level, e)                      \
    do {                                             \
        if (GR_DEBUG >= (level) && !(e))             \
            gr__assert_fail(#e, __FILE__, __LINE__); \
    } while (0)
#define gr_assert(e) gr__assert_at(1, e)
#define gr_assert_internal(e) gr__assert_at(2, e)
#define gr_assert_expensive(e) gr__assert_at(3, e)
/* Defensive checks for believed-impossible but survivable cases. */
#define GR_ALWAYS(x) (GR_DEBUG ? ((x) ? 1 : (gr__assert_fail(#x, __FILE__, __LINE__), 0)) : !!(x))
#define GR_NEVER(x) (GR_DEBUG ? ((x) ? (gr__assert_fail(#x, __FILE__, __LINE__), 1) : 0) : !!(x))

/*
 * Records 'err' as the calling thread's last error with a detail sentence
 * formatted from fmt (which should name the call, the object and the rule),
 * and returns err. Debug builds append file:line.
 */
/* The value is err itself, not the call's result, so that the caller and
 * the static analyser both see a failure leave with a nonzero code (err
 * is evaluated twice: pass a constant or a variable). */
#define gr__fail(err, ...) gr__failed((err), gr__fail_at((err), __FILE__, __LINE__, __VA_ARGS__))
GR_NOINLINE grError_t gr__fail_at(grError_t err, const char *file, int line, const char *fmt, ...)
    GR_PRINTF(4, 5);
static inline grError_t gr__failed(grError_t err, grError_t recorded)
{
    (void)recorded;
    return err;
}

/* Debug builds (GR_DEBUG >= 1): sleeps at the named site if the
 * environment variable GRAPHRT_DEBUG_PAUSE is "site:microseconds" (read
 * once, at the first pause), so that tests can widen a race window that
 * a fix closes. Release builds compile it away. */
#if GR_DEBUG
void gr__debug_pause(const char *site);
#else
#define gr__debug_pause(site) ((void)0)
#endif

/* Records an error without changing the detail sentence (used when a
 * sticky asynchronous error is returned again by a later call). */
grError_t gr__fail_again(grError_t err);

/* Object magic words: the first field of every handle's struct, checked in
 * O(1) on entry and overwritten with GR_MAGIC_DEAD on destruction. The
 * memory of a handle's object is never given back (see gr_shelf below),
 * so a destroyed handle is refused, not read after free. */
enum {
    GR_MAGIC_STREAM = 0x5354524du,
    GR_MAGIC_EVENT = 0x45564e54u,
    GR_MAGIC_KERNEL = 0x4b45524eu,
    GR_MAGIC_GRAPH = 0x47524150u,
    GR_MAGIC_NODE = 0x4e4f4445u,
    GR_MAGIC_EXEC = 0x45584543u,
    GR_MAGIC_POOL = 0x504f4f4cu,
    GR_MAGIC_USEROBJ = 0x55534f42u,
    GR_MAGIC_COND = 0x434f4e44u,
    GR_MAGIC_DEAD = 0xdeaddeadu
};

/* A CPU pause for spin loops. */
static inline void gr__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Monotonic clock in nanoseconds. */
uint64_t gr__now_ns(void);

/* Allocation that reports failure through gr__fail (callers return the
 * error). Always returns zeroed memory for calloc. */
void *gr__malloc(size_t size);
void *gr__calloc(size_t n, size_t size);
void *gr__realloc(void *p, size_t size);
void *gr__aligned_alloc(size_t align, size_t size);
void gr__free(void *p);
/* Arrays that may be large and are written right away (plans and the
 * temporaries of instantiation): blocks of 16 KiB and more are mapped on
 * their own (on transparent huge pages from 2 MiB) and kept for reuse
 * after they are freed (see bigmem.c). Their contents are undefined, as
 * malloc's. gr__big_realloc keeps the contents, as realloc does, and
 * returns NULL, leaving p alone, if out of memory. Free them with
 * gr__big_free only. gr__big_release_cache gives the kept blocks back;
 * gr__big_maps tells whether blocks are mapped (not under
 * AddressSanitizer, where they are all malloc'ed). */
void *gr__big_alloc(size_t size);
void *gr__big_realloc(void *p, size_t size);
void gr__big_free(void *p);
void gr__big_release_cache(void);
bool gr__big_maps(void);

/* ------------------------------------------------- probing user memory */

/* The top of the calling thread's stack (exclusive), 0 until
 * gr__stack_top_slow has run in the thread. */
extern __attribute__((tls_model("initial-exec"))) _Thread_local uintptr_t gr__tls_stack_top;

/* Looks up the calling thread's stack and sets gr__tls_stack_top (to 1,
 * which no range lies below, if the stack cannot be found). */
uintptr_t gr__stack_top_slow(void);

/* True if [p, p + n) lies between the caller's frame and the top of the
 * calling thread's stack: memory that is mapped and readable. Where a
 * kernel's argument values usually are (the caller's locals), checked
 * with two compares. False, not a verdict, for anything else (including
 * the first call in a thread). */
static inline bool gr__on_own_stack(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)__builtin_frame_address(0), top = gr__tls_stack_top;
    return a >= lo && a < top && n <= top - a;
}

/* True if the n bytes at p (n >= 1) can be read, asked of the kernel
 * without touching them (a fault would end the process): one byte of each
 * page the range spans, eight pages per system call of about a
 * microsecond. */
bool gr__probe_readable(const void *p, size_t n);

/* Short printable name of a pointer-like handle for detail sentences. */
#define GR_PTR(p) ((const void *)(p))

/* The name of a public function, for detail sentences. */
#define GR_FUNC __func__

/* Overflow-checked size arithmetic. */
static inline bool gr__mul_overflow(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline bool gr__add_overflow(size_t a, size_t b, size_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* A tiny test-and-test-and-set spinlock for short critical sections that
 * run no user code. */
typedef struct gr_spinlock {
    atomic_bool locked;
} gr_spinlock;
static inline void gr__spin_lock(gr_spinlock *l)
{
    for (;;) {
        if (!atomic_exchange_explicit(&l->locked, true, memory_order_acquire))
            return;
        while (atomic_load_explicit(&l->locked, memory_order_relaxed))
            gr__cpu_relax();
    }
}
static inline void gr__spin_unlock(gr_spinlock *l)
{
    atomic_store_explicit(&l->locked, false, memory_order_release);
}
/* As gr__spin_lock, taken with a seq_cst exchange, for a lock that other
 * threads only test (gr__spin_held_seq_cst) in a Dekker pairing with
 * seq_cst operations of their own; both sites name the pairing. */
static inline void gr__spin_lock_seq_cst(gr_spinlock *l)
{
    for (;;) {
        if (!atomic_exchange_explicit(&l->locked, true, memory_order_seq_cst))
            return;
        while (atomic_load_explicit(&l->locked, memory_order_relaxed))
            gr__cpu_relax();
    }
}
static inline bool gr__spin_held_seq_cst(gr_spinlock *l)
{
    return atomic_load_explicit(&l->locked, memory_order_seq_cst);
}

/*
 * Shelves of dead shells: the memory of the objects behind public handles
 * (streams, events, kernels, graphs, executables, pools). An object's
 * memory comes from its kind's shelf and goes back to it, never to
 * malloc, so that a handle used after its object died reads a magic word
 * that says so (GR_MAGIC_DEAD) instead of freed memory. A shelf reuses a
 * shell only once GR_SHELL_QUARANTINE younger ones are dead too, oldest
 * first, so a just-destroyed handle is refused for a while; after that
 * its address may name a new object of the same kind, as a CUDA handle
 * may. Under AddressSanitizer a dead shell is poisoned past its first 16
 * bytes (the magic word and the shelf's link), so the library's own use
 * of a dead object is still reported.
 */
#define GR_SHELL_QUARANTINE 64
typedef struct gr_shelf {
    size_t size; /* bytes of one shell, >= 16 */
    gr_spinlock lock;
    void *oldest, *newest; /* dead shells, linked through bytes 8..15 */
    size_t ndead;
} gr_shelf;
#define GR_SHELF_INIT(bytes)            \
    {                                   \
        (bytes), {false}, NULL, NULL, 0 \
    }

/* Marks an object dead on its final release: its handle was killed
 * (magic GR_MAGIC_DEAD) by the destroy call already, unless the object
 * never had one, and a stale handle's check may be reading the word on
 * another thread right now, which only a write would race with. */
static inline void gr__mark_dead(uint32_t *magic)
{
    if (*magic != GR_MAGIC_DEAD)
        *magic = GR_MAGIC_DEAD;
}

/* A shell of sh->size bytes aligned to a cache line, contents undefined;
 * NULL when out of memory (the caller reports it). */
void *gr__shell_alloc(gr_shelf *sh);

/* Puts the dead object p back on its shelf. Its magic word must already
 * be GR_MAGIC_DEAD; nothing else of it may be used afterwards. */
void gr__shell_retire(gr_shelf *sh, void *p);

/*
 * Debug modes and tracing (debug.c, trace.c): one word of flags that hot
 * paths test with one relaxed load, a predictable branch when every mode
 * is off. GR_DBG_TRACE is set between grTraceStart and grTraceStop; the
 * others by grSetDebugFlags and, once per process at the runtime's first
 * start, by GRAPHRT_LAUNCH_BLOCKING and GRAPHRT_CHECK.
 */
enum {
    GR_DBG_TRACE = 1u,    /* record trace events (trace.c) */
    GR_DBG_BLOCKING = 2u, /* every launch waits for its work (grDebugLaunchBlocking) */
    GR_DBG_CHECK = 4u     /* graph launches check their baked addresses (grDebugCheckLaunches) */
};
extern _Atomic unsigned gr__dbg;
static inline unsigned gr__dbg_flags(void)
{
    return gr_load_relaxed(&gr__dbg);
}

/* Reads GRAPHRT_TRACE, GRAPHRT_TRACE_EVENTS, GRAPHRT_LAUNCH_BLOCKING and
 * GRAPHRT_CHECK, the first time it is called in the process (idempotent,
 * thread-safe): called when the runtime starts. */
void gr__dbg_setup(void);

/* What a trace event is (trace.c writes each kind its own way). */
typedef enum gr_trace_kind {
    GR_TR_NODE = 1, /* a graph node run: a = executable, b = launch number, c = plan index */
    GR_TR_LAUNCH,   /* a graph launch run: a = executable, b = launch number, c = nodes */
    GR_TR_OP,       /* an eager stream operation run: a = stream serial */
    GR_TR_SYNC,     /* a synchronising call's wait: a = stream serial or 0 */
    GR_TR_CAPTURE   /* capture begin or end (an instant): a = stream serial */
} gr_trace_kind;

/* The trace clock: the TSC on x86 (mapped to nanoseconds when the trace
 * is written), else nanoseconds. */
static inline uint64_t gr__trace_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return gr__now_ns();
#endif
}

/* Records one event of the calling thread: a span [t0, t1] (t1 == 0: an
 * instant at t0) named 'name' (copied, cut at 27 bytes), run by worker
 * 'worker' (0: an application thread). Does nothing unless tracing; safe
 * to call from any thread at any time. About 20 ns. */
void gr__trace_emit(gr_trace_kind kind, const char *name, uint64_t t0, uint64_t t1, uint64_t a, uint32_t b,
                    uint32_t c, unsigned worker);

/* GRAPHRT_TRACE: starts tracing to 'path' until the process exits; says
 * on stderr why not if it cannot. */
void gr__trace_start_env(const char *path);

static inline bool gr__tracing(void)
{
    return GR_UNLIKELY(gr__dbg_flags() & GR_DBG_TRACE);
}

#endif /* GR_CORE_H */
