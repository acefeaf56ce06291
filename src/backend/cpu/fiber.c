/*
 * fiber.c - blocks whose threads cooperate (barriers, warp operations:
 * kernels written with graphrt_kernel.h's GR_KERNEL_SYNC) run each
 * thread as a fiber on the thread that runs the block.
 *
 * Scheduling is round-robin in thread order, with no scheduler between
 * fibers: a fiber that must wait (a barrier, a warp operation whose
 * other lanes have not arrived) switches straight to its successor in
 * the ring of live fibers; a resumed fiber checks its condition and
 * passes the turn on if it does not hold yet. The last thread to reach a
 * barrier releases it and runs on, so a block barrier costs one switch
 * per thread, a warp operation about one per lane (a round of the warp,
 * gr_warp). The running thread's own context is resumed once every fiber
 * has returned, or when the block faults. The common barrier and the
 * full-mask warp operation have fast paths of a few dozen instructions
 * across which nothing is live, so that they push nothing on the fiber's
 * stack (fiber.h: on x86-64 the switch is inline and saves the registers
 * in the thread's context); every rarer case is a tail call into the
 * general path.
 *
 * Faults, which a GPU would hide or hang on, end the block (its fibers
 * are abandoned where they wait) and stick to the device as
 * grErrorLaunchFailure with a sentence naming the kernel, the block and
 * the threads (gr__kernel_fault_check):
 *   - a barrier that not every thread reaches: threads that returned
 *     never arrive, so the others wait until nothing can run;
 *   - threads wait at different barriers (call sites) at once;
 *   - nothing can run: every live thread waits for something that no
 *     live thread will do (a warp operation whose lanes wait elsewhere);
 *   - lanes of a warp pass different masks, each naming every live lane,
 *     to one warp operation (or a mask that leaves out the calling lane);
 *   - a fiber overran its stack (its guard word at the bottom changed,
 *     checked for every thread once the block has ended).
 *
 * Stacks come from a pool per thread (a worker's lasts as long as the
 * worker), one mapping of n stacks of the kernel's size (its info's
 * stack_bytes, else GR_FIBER_STACK_DEFAULT), grown when a block needs
 * more or larger ones; memory is touched only where fibers use it.
 *
 * Invariants: everything here runs on the thread that runs the block,
 * so the block's state needs no atomics; at most one fiber block runs
 * per thread at a time (a kernel does not run kernels).
 */
#include "stream_int.h"

#include "fiber.h"
#include "graphrt_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if GR_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

/* The stack of a fiber unless its kernel sets another
 * (grFuncAttributeCpuStackSize). */
#define GR_FIBER_STACK_DEFAULT (64u * 1024u)
#define GR_FIBER_STACK_MIN (16u * 1024u)
#define GR_FIBER_GUARD 0x6772666962657221ull /* "grfiber!" */
#define GR_FIBER_COLOUR 320u                 /* 5 cache lines: see pool_get */

enum {
    F_RUN,
    F_BAR,
    F_GRID, /* waits at gr_grid_sync */
    F_WARP,
    F_EXITED
};
enum {
    W_IDX = GR__KW_IDX,
    W_UP = GR__KW_UP,
    W_DOWN = GR__KW_DOWN,
    W_XOR = GR__KW_XOR,
    W_BALLOT = GR__KW_BALLOT,
    W_ALL = GR__KW_ALL
};

/* What a barrier or a warp operation reads and writes of its thread,
 * contiguous in thread order: its saved registers first (64 bytes on
 * x86-64), then 16 bytes of state; the rest is the pool's cold[id]. A
 * barrier touches each thread's 80 bytes here (1.25 lines) and the line
 * of its stack that holds the barrier's return address, 2.25 lines (36
 * KiB for 256 threads), and pushes nothing more on the stack
 * (grKernelThreadSync).
 * The context lies in the record, not in an array of its own, so that a
 * thread's context is its record's address, with nothing loaded: a
 * resumed kernel's pointer to its thread comes back in a register the
 * switch loads, and the next thread's context, t + 1, is then one add
 * away. Where a load of the block (t->b) and of the context array's
 * address stood between them, each switch waited for three dependent
 * loads, not one (a 256-thread barrier cost 15-25% more: docs/kernels.md). */
struct grKernelThread {
    gr_fctx ctx;
    struct gr_fblock *b;
    unsigned id; /* linear thread index in the block */
    unsigned char state;
    /* The low byte of the generation it waits for the end of (the block
     * barrier's, or its warp's round's): one can end at most once while
     * a thread waits in it, so a byte tells whether it has. */
    unsigned char wait;
    /* The lane a waiting warp operation reads (warp_src; -1 a ballot, -2
     * an all). */
    short src;
};

/* The rest of a thread, touched by the slow paths only. */
typedef struct gr_fcold {
    /* A thread at or after the next live one in the ring of the block's
     * threads (ring_next_slow): links skip threads that have returned. */
    unsigned link;
    /* A warp operation whose mask leaves out live lanes (warp_op_partial):
     * the published operand and mask, the result the completing lane
     * leaves and the generation it bumps. */
    unsigned w_gen;
    unsigned w_mask;
    unsigned long long w_val, w_res;
    char *stack;
#if GR_ASAN
    void *fake_stack; /* ASan's, while switched out */
#endif
#if GR_TSAN
    void *tsan; /* TSan's fiber, owned by the pool */
#endif
} gr_fcold;

/* A warp operation whose mask names every live lane of the warp (the
 * common case: 0xffffffff) is a round of the warp: each lane writes its
 * operand into its slot of the round's parity and ORs its predicate into
 * the round's ballot; the last lane to arrive closes the round, and each
 * lane then reads its own result (the source lane's slot, or the ballot)
 * when it resumes, so no lane works for the others. Two parities suffice:
 * a lane writes into round r+2's slots only after every lane has arrived
 * at round r+1, so after each has read its result of round r. */
typedef struct gr_warp {
    unsigned exists;                              /* lanes the block has */
    unsigned exited;                              /* lanes that returned */
    unsigned arrived;                             /* lanes waiting in a partial-mask operation */
    unsigned r_arrived;                           /* lanes in the open round */
    unsigned r_mask;                              /* the open round's mask (its first lane's) */
    unsigned r_gen;                               /* rounds closed */
    unsigned r_bal[2];                            /* by parity: the round's predicates */
    unsigned r_part[2];                           /* by parity: the lanes that took part */
    GR_ALIGNED_CL unsigned long long slot[2][32]; /* by parity: operands */
} gr_warp;

typedef struct gr_fblock {
    /* The line every barrier and warp operation reads. */
    GR_ALIGNED_CL grKernelThread *f; /* n threads and a stopper (ring_next; hop prefetches from it) */
    gr_warp *warps;                  /* (n + 31) / 32, the pool's */
    unsigned n, live;
    /* The block barrier: arrivals, their nonzero predicates, the call
     * site they wait at, the generation a release bumps, and the count
     * the last release left for the waiters to read. */
    unsigned bar_arrived, bar_sum, bar_gen, bar_result;
    int bar_line;    /* the source line of the barrier waited at */
    unsigned stalls; /* resumes in a row that found nothing to do */
    bool exited_any;
    gr_fcold *cold;
    gr_fctx main; /* the running thread's own context */
    gr_fctx dead; /* where an exiting fiber's context goes */
    void *main_tsan;
    void *main_fake; /* ASan's fake stack of the running thread */
    const void *main_bottom;
    size_t main_size;
    const grKernelInfo *info;
    const grKernelCtx *ctx_k;
    void **args;
    grKernelThreadFn fn;
    size_t stack_size;
    bool failed;
    char detail[512];
} gr_fblock;

/* ------------------------------------------------------------ the pool */

typedef struct gr_fpool {
    char *mem; /* cap stacks of 'size' bytes */
    size_t size, bytes;
    unsigned cap;
    grKernelThread *f; /* cap + 1 */
    gr_fcold *cold;
    gr_warp *warps; /* (cap + 31) / 32 */
    bool dirty;     /* ASan: abandoned fibers left poisoned frames */
} gr_fpool;

static _Thread_local gr_fpool *tls_pool;
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static bool pool_key_ok;

static void pool_release(gr_fpool *p)
{
#if GR_TSAN
    for (unsigned i = 0; i < p->cap; i++)
        if (p->cold[i].tsan)
            __tsan_destroy_fiber(p->cold[i].tsan);
#endif
    if (p->mem)
        munmap(p->mem, p->bytes);
    gr__free(p->f);
    gr__free(p->cold);
    gr__free(p->warps);
    p->mem = NULL;
    p->f = NULL;
    p->cold = NULL;
    p->warps = NULL;
    p->cap = 0;
}

static void pool_free(void *v)
{
    gr_fpool *p = v;
    pool_release(p);
    gr__free(p);
    tls_pool = NULL;
}

static void pool_key_init(void)
{
    pool_key_ok = pthread_key_create(&pool_key, pool_free) == 0;
}

/* The calling thread's pool with at least n stacks of 'size' bytes, or
 * NULL when out of memory. */
static gr_fpool *pool_get(unsigned n, size_t size)
{
    gr_fpool *p = tls_pool;
    if (GR_LIKELY(p && p->cap >= n && p->size == size))
        return p;
    if (!p) {
        pthread_once(&pool_once, pool_key_init);
        if (!pool_key_ok || !(p = gr__calloc(1, sizeof *p)))
            return NULL;
        if (pthread_setspecific(pool_key, p) != 0) {
            gr__free(p);
            return NULL;
        }
        tls_pool = p;
    }
    unsigned cap = n > p->cap ? n : p->cap;
    pool_release(p);
    /* Stacks GR_FIBER_COLOUR bytes further apart than their size: the
     * tops, where every barrier leaves a return address, would otherwise
     * all fall in the same cache sets (64 KiB apart), and 256 fibers of a
     * block would fight over a set's 8 or 16 ways at every barrier. */
    size_t stride = size + GR_FIBER_COLOUR;
    size_t bytes = (size_t)cap * stride;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    size_t fbytes =
        (((size_t)cap + 1u) * sizeof(grKernelThread) + GR_CACHELINE - 1) & ~(size_t)(GR_CACHELINE - 1);
    grKernelThread *f = gr__aligned_alloc(GR_CACHELINE, fbytes);
    gr_fcold *cold = gr__calloc(cap, sizeof *cold);
    gr_warp *warps = gr__aligned_alloc(GR_CACHELINE, ((size_t)cap + 31u) / 32u * sizeof *warps);
    if (mem == MAP_FAILED || !f || !cold || !warps) {
        if (mem != MAP_FAILED)
            munmap(mem, bytes);
        gr__free(f);
        gr__free(cold);
        gr__free(warps);
        return NULL;
    }
    p->mem = mem;
    p->bytes = bytes;
    p->size = size;
    p->cap = cap;
    memset(f, 0, fbytes);
    p->f = f;
    p->cold = cold;
    p->warps = warps;
    p->dirty = false;
    for (unsigned i = 0; i < cap; i++) {
        cold[i].stack = p->mem + (size_t)i * stride;
        *(unsigned long long *)cold[i].stack = GR_FIBER_GUARD;
#if GR_TSAN
        cold[i].tsan = __tsan_create_fiber(0);
#endif
    }
    return p;
}

/* ------------------------------------------------------------ switching */

/* Thread t's context: its record's first field (struct grKernelThread). */
static inline gr_fctx *ctx_of(grKernelThread *t)
{
    return &t->ctx;
}

/* Leaves 'from' (NULL: an exiting fiber, never resumed) for 'to' (NULL:
 * the running thread's own context), and returns 'from' once something
 * switches back to it. The sanitizers are told first. Inline: a barrier
 * or a warp operation keeps nothing live across it but what this
 * returns, so that it pushes nothing on its fiber's stack. */
static inline grKernelThread *switch_to(gr_fblock *b, grKernelThread *from, grKernelThread *to)
{
    gr_fctx *save = from ? ctx_of(from) : &b->dead;
    gr_fctx *c = to ? ctx_of(to) : &b->main;
#if GR_ASAN
    __sanitizer_start_switch_fiber(from ? &b->cold[from->id].fake_stack : NULL,
                                   to ? b->cold[to->id].stack : b->main_bottom,
                                   to ? b->stack_size : b->main_size);
#endif
#if GR_TSAN
    __tsan_switch_to_fiber(to ? b->cold[to->id].tsan : b->main_tsan, 0);
#endif
    grKernelThread *self = gr__fctx_switch(save, c, to);
#if GR_ASAN
    __sanitizer_finish_switch_fiber(self->b->cold[self->id].fake_stack, NULL, NULL);
#endif
    return self;
}

/* Leaves thread t, which has returned, for 'to' (NULL: the running
 * thread's own context), never to come back. ASan keeps t's fake stack
 * (empty now) for the next fiber on t's stack: making one for each new
 * fiber and dropping it at its end maps and unmaps it every time, which
 * made a block of fibers under detect_stack_use_after_return hundreds of
 * times slower. */
static void leave(gr_fblock *b, grKernelThread *t, grKernelThread *to)
{
#if GR_ASAN
    __sanitizer_start_switch_fiber(&b->cold[t->id].fake_stack, to ? b->cold[to->id].stack : b->main_bottom,
                                   to ? b->stack_size : b->main_size);
#else
    (void)t;
#endif
#if GR_TSAN
    __tsan_switch_to_fiber(to ? b->cold[to->id].tsan : b->main_tsan, 0);
#endif
    (void)gr__fctx_switch(&b->dead, to ? ctx_of(to) : &b->main, to);
    __builtin_unreachable();
}

/* ------------------------------------------------------------- reports */

/* Appends to b->detail, at *len, the ranges of the ids of the threads
 * whose state is 'state' ("0-39,41"), or "none"; each piece is written
 * only where it fits whole. */
static void list_threads(gr_fblock *b, size_t *len, int state)
{
    size_t cap = sizeof b->detail;
    unsigned count = 0;
    for (unsigned i = 0; i < b->n; i++) {
        if (b->f[i].state != state)
            continue;
        unsigned j = i;
        while (j + 1 < b->n && b->f[j + 1].state == state)
            j++;
        if (*len + 32 < cap) {
            int w = j > i ? snprintf(b->detail + *len, cap - *len, "%s%u-%u", count ? "," : "", i, j)
                          : snprintf(b->detail + *len, cap - *len, "%s%u", count ? "," : "", i);
            *len += w > 0 ? (size_t)w : 0;
        }
        count++;
        i = j;
    }
    if (!count && *len + 8 < cap)
        *len += (size_t)snprintf(b->detail + *len, cap - *len, "none");
}

static bool any_in(const gr_fblock *b, int state)
{
    for (unsigned i = 0; i < b->n; i++)
        if (b->f[i].state == state)
            return true;
    return false;
}

/* Writes what went wrong ('what', then which threads wait where) and
 * leaves the block for good: the running thread's context resumes. */
static void fault(gr_fblock *b, const char *what)
{
    size_t len;
    const grKernelCtx *c = b->ctx_k;
    int w = snprintf(b->detail, sizeof b->detail, "kernel '%s', block (%u,%u,%u) of %u threads: %s; threads ",
                     b->info->name, c->blockIdx.x, c->blockIdx.y, c->blockIdx.z, b->n, what);
    len = w > 0 && (size_t)w < sizeof b->detail ? (size_t)w : sizeof b->detail - 1;
    list_threads(b, &len, F_BAR);
    if (len + 64 < sizeof b->detail)
        len += (size_t)snprintf(b->detail + len, sizeof b->detail - len, " wait at gr_sync_threads, ");
    if (any_in(b, F_GRID)) {
        list_threads(b, &len, F_GRID);
        if (len + 64 < sizeof b->detail)
            len += (size_t)snprintf(b->detail + len, sizeof b->detail - len, " wait at gr_grid_sync, ");
    }
    list_threads(b, &len, F_WARP);
    if (len + 64 < sizeof b->detail)
        len += (size_t)snprintf(b->detail + len, sizeof b->detail - len, " in a warp operation, ");
    list_threads(b, &len, F_EXITED);
    if (len + 64 < sizeof b->detail)
        (void)snprintf(b->detail + len, sizeof b->detail - len, " returned");
    b->failed = true;
    (void)switch_to(b, NULL, NULL);
    __builtin_unreachable();
}

/* --------------------------------------------------------------- waiting */

/* The live thread after t in the ring of the block's threads in thread
 * order, when the thread after t in the array is not live (it returned,
 * or it is the stopper past the end); t itself if no other lives. The
 * links it follows (each at or before the next live thread after its
 * own) are shortened, so that each returned thread is skipped about
 * once. Out of line: threads return once, and the end comes once a lap. */
static GR_NOINLINE grKernelThread *ring_next_slow(gr_fblock *b, const grKernelThread *t)
{
    unsigned i = t->id + 1 == b->n ? 0 : t->id + 1;
    if (b->f[i].state != F_EXITED)
        return &b->f[i];
    unsigned j = b->cold[i].link;
    while (b->f[j].state == F_EXITED && j != t->id)
        j = b->cold[j].link;
    b->cold[i].link = j;
    return &b->f[j];
}

static inline grKernelThread *ring_next(grKernelThread *t)
{
    grKernelThread *to = t + 1; /* f[n], a stopper, reads as returned */
    return GR_LIKELY(to->state != F_EXITED) ? to : ring_next_slow(t->b, t);
}

static void stall(gr_fblock *b);

/* Leaves fiber t for fiber 'to', the next live one, and returns t once
 * resumed. */
static inline grKernelThread *hop(gr_fblock *b, grKernelThread *t, grKernelThread *to)
{
    /* x86-64 prefetches nothing: the contexts are contiguous, in the
     * order of the ring, which the hardware prefetchers follow, and the
     * return address the resumed barrier reads from its stack is
     * predicted (the same call site for every thread), so that its line
     * is off the critical path; prefetching the next-but-one context and
     * the stack line its saved pointer names cost 5% of a 256-thread
     * barrier on the EPYC VM. Elsewhere the switch pops the registers
     * from the stack: the three lines the next-but-one fiber's switch
     * pushed come from L2 meanwhile. */
#if !defined(GR_FCTX_INLINE)
    const char *sp = ctx_of(to + 1)->sp;
    __builtin_prefetch(sp);
    __builtin_prefetch(sp + 64);
    __builtin_prefetch(sp + 128);
#endif
#if GR_ASAN || GR_TSAN
    return switch_to(b, t, to);
#else
    (void)b;
    return gr__fctx_switch(ctx_of(t), ctx_of(to), to);
#endif
}

/* Passes the turn to the next live fiber in thread order and returns t
 * once resumed; counts a stall instead if t is the only live one. */
static inline grKernelThread *yield(grKernelThread *t)
{
    grKernelThread *to = ring_next(t);
    if (GR_UNLIKELY(to == t)) {
        stall(t->b);
        return t;
    }
    return hop(t->b, t, to);
}

/* One more resume that found its condition false; after every live
 * fiber has had one in a row, nothing can change any more. Arrivals and
 * returns reset the count (progress); a resume that finds its condition
 * true need not, as its fiber goes on to arrive or return. */
static void stall(gr_fblock *b)
{
    if (++b->stalls > b->live)
        fault(b, b->bar_arrived && b->exited_any
                     ? (b->bar_line < 0 ? "gr_grid_sync not reached by every thread of the block: threads "
                                          "returned before it"
                                        : "gr_sync_threads not reached by every thread of the block: threads "
                                          "returned before it")
                     : "no thread can go on (a barrier or warp operation that some threads never reach)");
}

/* ------------------------------------------------------- block barrier */

/* Out of line: its buffer would otherwise widen every barrier's frame,
 * and the frames of 256 threads compete for L1. */
static GR_NOINLINE void divergent(gr_fblock *b, int line)
{
    char what[160];
    if (b->bar_line > 0 && line > 0)
        snprintf(what, sizeof what,
                 "threads wait at two different gr_sync_threads (lines %d and %d: a divergent barrier)",
                 b->bar_line, line);
    else /* a grid barrier's line is negated (grKernelThreadGridSync) */
        snprintf(what, sizeof what,
                 "threads wait at two different barriers (%s at line %d and %s at line %d: a divergent "
                 "barrier)",
                 b->bar_line < 0 ? "gr_grid_sync" : "gr_sync_threads", abs(b->bar_line),
                 line < 0 ? "gr_grid_sync" : "gr_sync_threads", abs(line));
    fault(b, what);
}

/* Waits, as thread t, until the block barrier it arrived at (t->wait)
 * is released; returns t. */
static inline grKernelThread *bar_wait(grKernelThread *t)
{
    for (;;) {
        t = yield(t);
        if ((unsigned char)t->b->bar_gen != t->wait)
            return t;
        stall(t->b);
    }
}

/* The rest of a barrier whose thread t has arrived and waits. */
static GR_NOINLINE int bar_wait_slow(grKernelThread *t)
{
    t = bar_wait(t);
    t->state = F_RUN;
    return (int)t->b->bar_result;
}

/* Thread t, waiting at a barrier, resumed before its release: one more
 * stall, and the wait goes on. */
static GR_NOINLINE int bar_resumed_early(grKernelThread *t)
{
    stall(t->b);
    return bar_wait_slow(t);
}

/* A barrier whose predicate is nonzero (gr_sync_threads_count and the
 * like), or whose line is not the one last waited at: the first thread
 * to arrive sets the line, any other has reached a different barrier. */
static GR_NOINLINE int bar_slow(grKernelThread *t, int pred, int line)
{
    gr_fblock *b = t->b;
    if (line != b->bar_line) {
        if (b->bar_arrived != 0) {
            t->state = F_BAR;
            divergent(b, line);
        }
        b->bar_line = line;
    }
    b->stalls = 0;
    b->bar_sum += pred != 0;
    if (++b->bar_arrived == b->n) {
        b->bar_result = b->bar_sum;
        b->bar_sum = 0;
        b->bar_arrived = 0;
        b->bar_gen++;
        return (int)b->bar_result;
    }
    t->state = F_BAR;
    t->wait = (unsigned char)b->bar_gen;
    return bar_wait_slow(t);
}

/* The common barrier (gr_sync_threads: predicate 0, the line of the
 * barrier last waited at, the next thread in the array live) in a few
 * dozen instructions, each rarer case a tail call: no value is live
 * across a call or the switch, so that the fast path saves no register
 * on its fiber's stack, and the thread's lines are its return address,
 * its record and its context. */
GR_API int grKernelThreadSync(grKernelThread *t, int pred, int line)
{
    gr_fblock *b = t->b;
    /* Barriers are told apart by their source line: an optimiser may
     * copy a barrier's call (loop unswitching, peeling), so that threads
     * at the same barrier call from different addresses. */
    if (GR_UNLIKELY(pred != 0 || line != b->bar_line))
        return bar_slow(t, pred, line);
    b->stalls = 0;
    unsigned arrived = b->bar_arrived + 1;
    if (arrived == b->n) {
        b->bar_result = b->bar_sum;
        b->bar_sum = 0;
        b->bar_arrived = 0;
        b->bar_gen++;
        return (int)b->bar_result;
    }
    b->bar_arrived = arrived;
    t->state = F_BAR;
    t->wait = (unsigned char)b->bar_gen;
    grKernelThread *to = t + 1; /* f[n], a stopper, reads as returned */
    if (GR_UNLIKELY(to->state == F_EXITED))
        return bar_wait_slow(t);
    t = hop(b, t, to);
    b = t->b;
    if (GR_UNLIKELY((unsigned char)b->bar_gen == t->wait))
        return bar_resumed_early(t);
    t->state = F_RUN;
    return (int)b->bar_result;
}

/* ---------------------------------------------------------- grid barrier */

static GR_NOINLINE void grid_fault(gr_fblock *b, int why)
{
    fault(b, why == 1 ? "gr_grid_sync in a launch that is not cooperative (launch with "
                        "grLaunchCooperativeKernel or grLaunchAttributeCooperative)"
                      : "gr_grid_sync not reached by every block of the grid: a block ended (returned or "
                        "faulted) without reaching it");
}

/* The block's part of the grid barrier is a block barrier (told apart
 * from gr_sync_threads by its negated line); its last thread to arrive
 * waits, on the block's own OS thread, for the other blocks (coop.c)
 * while the block's other fibers stay parked, then releases them. */
GR_API void grKernelThreadGridSync(grKernelThread *t, int line)
{
    gr_fblock *b = t->b;
    int key = -line;
    if (GR_UNLIKELY(!gr__coop_active())) {
        t->state = F_GRID;
        grid_fault(b, 1);
    }
    if (b->bar_arrived == 0)
        b->bar_line = key;
    else if (GR_UNLIKELY(key != b->bar_line)) {
        t->state = F_GRID;
        divergent(b, key);
    }
    b->stalls = 0;
    if (++b->bar_arrived == b->n) {
        t->state = F_GRID;
        int r = gr__coop_grid_wait();
        if (GR_UNLIKELY(r != 0))
            grid_fault(b, r);
        t->state = F_RUN;
        b->bar_sum = 0;
        b->bar_arrived = 0;
        b->bar_gen++;
        return;
    }
    t->state = F_GRID;
    t->wait = (unsigned char)b->bar_gen;
    t = bar_wait(t);
    t->state = F_RUN;
}

/* ------------------------------------------------------ warp operations */

/* Completes the operation of the lanes in 'mask' of warp wi if every
 * live lane named has arrived with that same mask: each gets its result
 * and its generation bumped. True if it did. */
static bool warp_complete(gr_fblock *b, unsigned wi, unsigned mask)
{
    gr_warp *w = &b->warps[wi];
    unsigned need = mask & w->exists & ~w->exited;
    if ((w->arrived & need) != need)
        return false;
    const grKernelThread *f = b->f + wi * 32u;
    gr_fcold *c = b->cold + wi * 32u;
    unsigned ballot = 0;
    for (unsigned m = need; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        if (c[l].w_mask != mask)
            return false;
        ballot |= (unsigned)(c[l].w_val != 0) << l;
    }
    for (unsigned m = need; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        int s = f[l].src;
        if (s == -1)
            c[l].w_res = ballot;
        else if (s == -2)
            c[l].w_res = ballot == need;
        else if (need >> s & 1u)
            c[l].w_res = c[s].w_val;
        else /* a lane that does not take part: CUDA leaves it undefined */
            c[l].w_res = c[l].w_val;
        c[l].w_gen++;
    }
    w->arrived &= ~need;
    return true;
}

/* The lane a shuffle up, down or xor by 'a' names for 'lane', before the
 * segment's bounds are applied (warp_src). */
static inline unsigned warp_step(int op, unsigned lane, unsigned a)
{
    return op == W_UP ? lane - a : op == W_DOWN ? lane + a : lane ^ a;
}

/* The lane whose operand 'lane' reads in a shuffle, -1 for a ballot, -2
 * for an all. A source outside the caller's segment of 'width' lanes (a
 * power of two up to 32, else 32), or a delta outside 0-31 (CUDA's is
 * unsigned: a negative int is a huge delta), reads the caller's own
 * operand: a source is always a lane of the caller's warp. A xor is the
 * exception CUDA documents: it reads a lane of an earlier segment, and
 * only a later segment's gives the caller's own (PTX's butterfly: the
 * source is taken up to the segment's last lane). */
static inline int warp_src(int op, unsigned lane, int arg, int width)
{
    if (op >= W_BALLOT)
        return op == W_ALL ? -2 : -1;
    unsigned a = (unsigned)arg, u;
    if (GR_LIKELY(width == 32)) { /* the default: the segment is the warp */
        if (op == W_IDX)
            return (int)(a & 31u);
        u = warp_step(op, lane, a);
        return a < 32u && u < 32u ? (int)u : (int)lane;
    }
    unsigned wd = width >= 1 && width <= 32 && !(width & (width - 1)) ? (unsigned)width : 32u;
    unsigned base = lane & ~(wd - 1);
    if (op == W_IDX)
        return (int)(base + (a & (wd - 1)));
    u = warp_step(op, lane, a);
    if (op == W_XOR)
        return a < 32u && u < base + wd ? (int)u : (int)lane;
    return a < 32u && u - base < wd ? (int)u : (int)lane;
}

/* A warp operation whose mask leaves out live lanes of the warp (or
 * that meets lanes already waiting in one): each lane publishes its
 * operand in its thread record, and the operation completes when every
 * live lane named has arrived with the same mask (warp_complete). */
static GR_NOINLINE unsigned long long warp_op_partial(gr_fblock *b, grKernelThread *t, unsigned mask,
                                                      unsigned long long v, int src)
{
    unsigned lane = t->id & 31u, wi = t->id >> 5;
    gr_fcold *c = &b->cold[t->id];
    c->w_val = v;
    c->w_mask = mask;
    t->src = (short)src;
    b->warps[wi].arrived |= 1u << lane;
    b->stalls = 0;
    if (warp_complete(b, wi, mask))
        return c->w_res;
    unsigned g = c->w_gen;
    t->state = F_WARP;
    for (;;) {
        t = yield(t);
        if (c->w_gen != g)
            break;
        stall(b);
    }
    t->state = F_RUN;
    return c->w_res;
}

/* Closes warp w's open round, whose lanes are 'part'. */
static inline void round_close(gr_warp *w, unsigned part)
{
    unsigned par = w->r_gen & 1u;
    w->r_part[par] = part;
    w->r_bal[par ^ 1u] = 0; /* the next round's; its last readers are done */
    w->r_arrived = 0;
    w->r_gen++;
}

static GR_NOINLINE void warp_fault(gr_fblock *b, grKernelThread *t, unsigned mask)
{
    t->state = F_WARP;
    if (!(mask & 1u << (t->id & 31u)))
        fault(b, "a warp operation's mask leaves out the calling lane");
    char what[160];
    snprintf(what, sizeof what,
             "lanes of warp %u pass different masks (0x%08x and 0x%08x) to one warp operation", t->id >> 5,
             b->warps[t->id >> 5].r_mask, mask);
    fault(b, what);
}

/* Lane t's result of the round of parity 'par' of warp w, once closed:
 * its source lane's operand (its own if the source took no part), or
 * the ballot, or the all. */
static inline unsigned long long round_result(const gr_warp *w, unsigned par, unsigned lane, int src)
{
    unsigned part = w->r_part[par];
    if (src >= 0)
        return w->slot[par][part >> src & 1u ? (unsigned)src : lane];
    unsigned bal = w->r_bal[par];
    return src == -1 ? bal : bal == part;
}

/* Waits, as lane t (state, wait and src set), until its warp's open
 * round closes; returns its result. */
static GR_NOINLINE unsigned long long round_wait(grKernelThread *t)
{
    gr_warp *w;
    for (;;) {
        t = yield(t);
        w = &t->b->warps[t->id >> 5];
        if ((unsigned char)w->r_gen != t->wait)
            break;
        stall(t->b);
    }
    t->state = F_RUN;
    return round_result(w, t->wait & 1u, t->id & 31u, t->src);
}

/* Lane t, waiting in a round, resumed before it closed: one more stall,
 * and the wait goes on. */
static GR_NOINLINE unsigned long long round_resumed_early(grKernelThread *t)
{
    stall(t->b);
    return round_wait(t);
}

/* Lane t closes the full round of its warp w it has joined (its wait
 * and src set); returns its result. Out of line, so that the fast path
 * keeps fewer values live (grKernelThreadWarpOp). */
static GR_NOINLINE unsigned long long round_last(grKernelThread *t, gr_warp *w)
{
    round_close(w, ~0u);
    return round_result(w, t->wait & 1u, t->id & 31u, t->src);
}

/* Every warp operation but a full round's fast path, once its mask has
 * been checked and its source lane found: runs an operation whose mask
 * leaves out live lanes apart (warp_op_partial), and joins the open round
 * of the warp. */
static GR_NOINLINE unsigned long long warp_op_src(grKernelThread *t, unsigned mask, unsigned long long v,
                                                  int src)
{
    gr_fblock *b = t->b;
    unsigned lane = t->id & 31u, wi = t->id >> 5, bit = 1u << lane;
    gr_warp *w = &b->warps[wi];
    unsigned live = w->exists & ~w->exited;
    if ((mask & live) != live || w->arrived)
        return warp_op_partial(b, t, mask, v, src);
    unsigned gen = w->r_gen, par = gen & 1u;
    unsigned arrived = w->r_arrived;
    if (arrived == 0)
        w->r_mask = mask;
    else if (GR_UNLIKELY(mask != w->r_mask))
        warp_fault(b, t, mask);
    b->stalls = 0;
    w->slot[par][lane] = v;
    w->r_bal[par] |= (unsigned)(v != 0) << lane;
    arrived |= bit;
    if (arrived == live) {
        round_close(w, live);
        return round_result(w, par, lane, src);
    }
    w->r_arrived = arrived;
    t->state = F_WARP;
    t->wait = (unsigned char)gen;
    t->src = (short)src;
    return round_wait(t);
}

/* A warp operation whose mask is not full: checks that it names the
 * calling lane. */
static GR_NOINLINE unsigned long long warp_op_slow(grKernelThread *t, int op, unsigned mask,
                                                   unsigned long long v, int arg, int width)
{
    unsigned lane = t->id & 31u;
    if (GR_UNLIKELY(!(mask & 1u << lane)))
        warp_fault(t->b, t, mask);
    return warp_op_src(t, mask, v, warp_src(op, lane, arg, width));
}

/* A round of the warp (gr_warp) that every live lane joins with a full
 * mask, the next thread in the array live, in a few dozen instructions:
 * as at a barrier (grKernelThreadSync), every rarer case is a tail call
 * and nothing is live across the switch. */
GR_API unsigned long long grKernelThreadWarpOp(grKernelThread *t, int op, unsigned mask, unsigned long long v,
                                               int arg, int width)
{
    /* Ordered so that few values are live at once: more than the nine
     * caller-saved registers, and the compiler saves callee-saved ones on
     * the fiber's stack, a line more per lane and shuffle. */
    if (GR_UNLIKELY(mask != ~0u))
        return warp_op_slow(t, op, mask, v, arg, width);
    unsigned lane = t->id & 31u;
    int src = warp_src(op, lane, arg, width);
    gr_warp *w = &t->b->warps[t->id >> 5];
    if (GR_UNLIKELY((w->exists & ~w->exited) != ~0u || w->arrived))
        return warp_op_src(t, ~0u, v, src);
    /* Every lane of an open round came with the full mask, so that this
     * is the first lane's, or what the first lane left. */
    w->r_mask = ~0u;
    unsigned gen = w->r_gen, par = gen & 1u;
    t->wait = (unsigned char)gen;
    t->src = (short)src;
    w->slot[par][lane] = v;
    w->r_bal[par] |= (unsigned)(v != 0) << lane;
    t->b->stalls = 0;
    unsigned arrived = w->r_arrived | 1u << lane;
    if (GR_UNLIKELY(arrived == ~0u))
        return round_last(t, w);
    w->r_arrived = arrived;
    t->state = F_WARP;
    grKernelThread *to = t + 1; /* f[n], a stopper, reads as returned */
    if (GR_UNLIKELY(to->state == F_EXITED))
        return round_wait(t);
    t = hop(t->b, t, to);
    w = &t->b->warps[t->id >> 5];
    if (GR_UNLIKELY((unsigned char)w->r_gen == t->wait))
        return round_resumed_early(t);
    t->state = F_RUN;
    return round_result(w, t->wait & 1u, t->id & 31u, t->src);
}

GR_API unsigned grKernelThreadActiveMask(grKernelThread *t)
{
    gr_warp *w = &t->b->warps[t->id >> 5];
    return w->exists & ~w->exited;
}

/* ----------------------------------------------------------- the block */

static void fiber_main(void *arg)
{
    grKernelThread *t = arg;
    gr_fblock *b = t->b;
#if GR_ASAN
    if (t->id == 0)
        __sanitizer_finish_switch_fiber(b->cold[t->id].fake_stack, &b->main_bottom, &b->main_size);
    else
        __sanitizer_finish_switch_fiber(b->cold[t->id].fake_stack, NULL, NULL);
#endif
    unsigned bx = b->ctx_k->blockDim.x, by = b->ctx_k->blockDim.y;
    if (GR_LIKELY(bx == b->n)) /* one-dimensional: no divisions */
        b->fn(t, b->ctx_k, b->args, t->id, 0, 0);
    else
        b->fn(t, b->ctx_k, b->args, t->id % bx, t->id / bx % by, t->id / (bx * by));
    unsigned lane = t->id & 31u, wi = t->id >> 5;
    t->state = F_EXITED;
    b->live--;
    b->exited_any = true;
    b->stalls = 0;
    gr_warp *w = &b->warps[wi];
    w->exited |= 1u << lane;
    /* Lanes waiting for this one no longer need it. */
    for (unsigned m = w->arrived; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        if (w->arrived >> l & 1u)
            (void)warp_complete(b, wi, b->cold[wi * 32u + l].w_mask);
    }
    if (w->r_arrived && w->r_arrived == (w->exists & ~w->exited))
        round_close(w, w->r_arrived);
    if (b->live == 0)
        leave(b, t, NULL);
    leave(b, t, ring_next(t));
}

/* Whether every fiber's guard word, at the bottom of its stack, is
 * intact once the block has ended; else writes the fault. Checked here
 * rather than as each thread returns: each word sits on a page of its
 * own that nothing else touches, so the read is a TLB and cache miss,
 * and n independent reads in a loop overlap where n reads each after a
 * switch did not (a sixth of a 256-thread block's time). */
static GR_NOINLINE bool guards_intact(gr_fblock *b)
{
    unsigned bad = 0, first = 0;
    for (unsigned i = 0; i < b->n; i++)
        if (*(volatile unsigned long long *)b->cold[i].stack != GR_FIBER_GUARD && bad++ == 0)
            first = i;
    if (GR_LIKELY(!bad))
        return true;
    for (unsigned i = 0; i < b->n; i++) /* for the blocks after a reset */
        *(unsigned long long *)b->cold[i].stack = GR_FIBER_GUARD;
    const grKernelCtx *c = b->ctx_k;
    snprintf(b->detail, sizeof b->detail,
             "kernel '%s', block (%u,%u,%u) of %u threads: %u thread(s) overran their fiber stack, "
             "the first thread %u (raise grFuncAttributeCpuStackSize)",
             b->info->name, c->blockIdx.x, c->blockIdx.y, c->blockIdx.z, b->n, bad, first);
    return false;
}

/* Hands the block's fault to the device (sticky, first one kept). */
static GR_NOINLINE void block_failed(gr_fblock *b, gr_fpool *p)
{
    gr__kernel_fault(grErrorLaunchFailure, b->detail);
#if GR_ASAN
    p->dirty = true;
#else
    (void)p;
#endif
}

GR_API void grKernelBlockRunThreads(const grKernelInfo *info, const grKernelCtx *ctx, void **args,
                                    grKernelThreadFn fn)
{
    unsigned bx = ctx->blockDim.x, by = ctx->blockDim.y;
    unsigned n = bx * by * ctx->blockDim.z;
    unsigned want = __atomic_load_n(&info->stack_bytes, __ATOMIC_RELAXED);
    size_t size = want ? want : GR_FIBER_STACK_DEFAULT;
    if (size < GR_FIBER_STACK_MIN)
        size = GR_FIBER_STACK_MIN;
    size = (size + 4095u) & ~(size_t)4095u;
    gr_fpool *p = pool_get(n, size);
    gr_fblock b;
    memset(&b, 0, offsetof(gr_fblock, detail));
    b.detail[0] = '\0';
    b.info = info;
    if (GR_UNLIKELY(!p)) {
        const char *name = info->name;
        snprintf(b.detail, sizeof b.detail,
                 "kernel '%s': out of memory for the fiber stacks of a block of %u threads (%zu bytes each)",
                 name, n, size);
        gr__kernel_fault(grErrorLaunchFailure, b.detail);
        return;
    }
#if GR_ASAN
    if (p->dirty) {
        /* Fibers abandoned by a fault: their stacks' shadow and their
         * fake stacks hold frames that never returned; the fake stacks
         * are dropped (ASan's own mappings, not the heap). */
        ASAN_UNPOISON_MEMORY_REGION(p->mem, p->bytes);
        for (unsigned i = 0; i < p->cap; i++)
            p->cold[i].fake_stack = NULL;
        p->dirty = false;
    }
#endif
    b.f = p->f;
    b.cold = p->cold;
    b.warps = p->warps;
    b.n = b.live = n;
    b.ctx_k = ctx;
    b.args = args;
    b.fn = fn;
    b.stack_size = size;
#if GR_TSAN
    b.main_tsan = __tsan_get_current_fiber();
#endif
    for (unsigned i = 0; i < n; i++) {
        grKernelThread *t = &b.f[i];
        t->b = &b;
        t->id = i;
        t->state = F_RUN;
        t->wait = 0;
        t->src = 0;
        b.cold[i].link = i + 1 == n ? 0 : i + 1;
        b.cold[i].w_gen = 0;
        gr__fctx_prepare(ctx_of(t), b.cold[i].stack, size, fiber_main, t);
    }
    b.f[n].state = F_EXITED;
    for (unsigned wi = 0; wi * 32u < n; wi++) {
        memset(&b.warps[wi], 0, offsetof(gr_warp, slot));
        b.warps[wi].exists = n - wi * 32u >= 32u ? ~0u : (1u << (n - wi * 32u)) - 1u;
    }
#if GR_ASAN
    __sanitizer_start_switch_fiber(&b.main_fake, b.cold[0].stack, size);
#endif
#if GR_TSAN
    __tsan_switch_to_fiber(b.cold[0].tsan, 0);
#endif
    (void)gr__fctx_switch(&b.main, ctx_of(&b.f[0]), &b.f[0]);
#if GR_ASAN
    __sanitizer_finish_switch_fiber(b.main_fake, NULL, NULL);
#endif
    if (GR_UNLIKELY(b.failed))
        block_failed(&b, p);
    else if (GR_UNLIKELY(!guards_intact(&b)))
        block_failed(&b, p);
}

/* ------------------------------------------------------------- faults */

void gr__kernel_fault(grError_t err, const char *detail)
{
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    if (!rt)
        return;
    int none = 0;
    if (!gr_cas_strong_acquire(&rt->kfault_claim, &none, 1))
        return;
    snprintf(rt->kfault_detail, sizeof rt->kfault_detail, "%s", detail);
    gr_store_release(&rt->kfault, (int)err);
}

grError_t gr__kernel_fault_check(const char *call)
{
    gr_runtime *rt = gr_load_acquire(&gr__rt);
    int e = rt ? gr_load_acquire(&rt->kfault) : 0;
    if (GR_LIKELY(e == 0))
        return grSuccess;
    return gr__fail((grError_t)e, "%s: a kernel faulted on the CPU device (sticky until grDeviceReset): %s",
                    call, rt->kfault_detail);
}

/* ------------------------------------------------------- registration */

GR_API grError_t grKernelAttachInfo(grKernel_t k, grKernelInfo *info)
{
    if (!gr__kernel_valid(k) || !info)
        return gr__fail(grErrorInvalidValue, "grKernelAttachInfo: not a live kernel, or info NULL");
    k->kinfo = info;
    return grSuccess;
}
