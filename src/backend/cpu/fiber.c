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
 * has returned, or when the block faults.
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

/* One cache line per thread (sanitizer builds: two): a switch reads the
 * next thread's line, its first 16 bytes. */
struct grKernelThread {
    GR_ALIGNED_CL void *sp; /* saved context while switched out */
    /* The ring of the block's threads in thread order; a link may name a
     * thread that has returned since (ring_next skips and drops it). */
    struct grKernelThread *next;
    struct gr_fblock *b;
    unsigned id; /* linear thread index in the block */
    unsigned char state;
    /* The warp operation it waits in, when its mask leaves out live
     * lanes (warp_op_partial): the lane it reads (or -1 a ballot, -2 an
     * all), published operand and mask, and the result the completing
     * lane leaves. */
    short w_src;
    unsigned w_gen; /* bumped by the lane that completes its operation */
    unsigned w_mask;
    unsigned long long w_val, w_res;
    char *stack;
#if GR_ASAN
    void *fake_stack; /* ASan's, while switched out */
#endif
#if GR_TSAN
    void *tsan; /* TSan's fiber, owned by the pool */
#endif
};

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
    grKernelThread *f; /* n fibers */
    gr_warp *warps;    /* (n + 31) / 32, the pool's */
    unsigned n, live;
    /* The block barrier: arrivals, their nonzero predicates, the call
     * site they wait at, the generation a release bumps, and the count
     * the last release left for the waiters to read. */
    unsigned bar_arrived, bar_sum, bar_gen, bar_result;
    int bar_line; /* the source line of the barrier waited at */
    bool exited_any;
    unsigned stalls; /* resumes in a row that found nothing to do */
    void *main_sp;   /* the running thread's own context */
    void *main_tsan;
    void *main_fake; /* ASan's fake stack of the running thread */
    const void *main_bottom;
    size_t main_size;
    void *dead_sp; /* where an exiting fiber's context goes */
    const grKernelInfo *info;
    const grKernelCtx *ctx;
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
    grKernelThread *f;
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
        if (p->f[i].tsan)
            __tsan_destroy_fiber(p->f[i].tsan);
#endif
    if (p->mem)
        munmap(p->mem, p->bytes);
    gr__free(p->f);
    gr__free(p->warps);
    p->mem = NULL;
    p->f = NULL;
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
     * tops, where every switch saves and loads registers, would otherwise
     * all fall in the same cache sets (64 KiB apart), and 256 fibers of a
     * block would fight over a set's 8 or 16 ways at every barrier. */
    size_t stride = size + GR_FIBER_COLOUR;
    size_t bytes = (size_t)cap * stride;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    grKernelThread *f = gr__aligned_alloc(GR_CACHELINE, (size_t)cap * sizeof *f);
    gr_warp *warps = gr__aligned_alloc(GR_CACHELINE, ((size_t)cap + 31u) / 32u * sizeof *warps);
    if (mem == MAP_FAILED || !f || !warps) {
        if (mem != MAP_FAILED)
            munmap(mem, bytes);
        gr__free(f);
        gr__free(warps);
        return NULL;
    }
    p->mem = mem;
    p->bytes = bytes;
    p->size = size;
    p->cap = cap;
    memset(f, 0, (size_t)cap * sizeof *f);
    p->f = f;
    p->warps = warps;
    p->dirty = false;
    for (unsigned i = 0; i < cap; i++) {
        f[i].stack = p->mem + (size_t)i * stride;
        *(unsigned long long *)f[i].stack = GR_FIBER_GUARD;
#if GR_TSAN
        f[i].tsan = __tsan_create_fiber(0);
#endif
    }
    return p;
}

/* ------------------------------------------------------------ switching */

/* Leaves 'from' (NULL: an exiting fiber, never resumed) for 'to' (NULL:
 * the running thread's own context). The sanitizers are told first. */
static inline void switch_to(gr_fblock *b, grKernelThread *from, grKernelThread *to)
{
    void **save = from ? &from->sp : (void **)&b->dead_sp;
    void *sp = to ? to->sp : b->main_sp;
#if GR_ASAN
    __sanitizer_start_switch_fiber(from ? &from->fake_stack : NULL, to ? to->stack : b->main_bottom,
                                   to ? b->stack_size : b->main_size);
#endif
#if GR_TSAN
    __tsan_switch_to_fiber(to ? to->tsan : b->main_tsan, 0);
#endif
    gr__fiber_switch(save, sp);
#if GR_ASAN
    if (from)
        __sanitizer_finish_switch_fiber(from->fake_stack, NULL, NULL);
#endif
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
    __sanitizer_start_switch_fiber(&t->fake_stack, to ? to->stack : b->main_bottom,
                                   to ? b->stack_size : b->main_size);
#else
    (void)t;
#endif
#if GR_TSAN
    __tsan_switch_to_fiber(to ? to->tsan : b->main_tsan, 0);
#endif
    gr__fiber_switch(&b->dead_sp, to ? to->sp : b->main_sp);
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
    const grKernelCtx *c = b->ctx;
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
    switch_to(b, NULL, NULL);
    __builtin_unreachable();
}

/* --------------------------------------------------------------- waiting */

/* The live thread after t in the ring, which has a live thread other
 * than t; drops the returned threads it passes from t's link, so that
 * each is skipped about once. Out of line: threads return once. */
static GR_NOINLINE grKernelThread *ring_next_slow(grKernelThread *t)
{
    grKernelThread *i = t->next;
    while (i->state == F_EXITED && i != t)
        i = i->next;
    t->next = i;
    return i;
}

static inline grKernelThread *ring_next(grKernelThread *t)
{
    grKernelThread *i = t->next;
    return GR_LIKELY(i->state != F_EXITED) ? i : ring_next_slow(t);
}

/* Passes the turn to the next live fiber in thread order; false if self
 * is the only one. */
static inline bool yield(gr_fblock *b, grKernelThread *self)
{
    grKernelThread *to = ring_next(self);
    if (GR_UNLIKELY(to == self))
        return false;
    /* The thread after the next one is likely the next one's next: its
     * saved registers and the frames above them (three lines hold the
     * switch's, the barrier's and the kernel's) come from L2 meanwhile,
     * and so does the record of the thread after it (256 threads' stacks
     * and records fill L1). Without these a 256-thread barrier costs half
     * as much again; a fourth line was no faster. */
    const grKernelThread *after = to->next;
    const char *sp = after->sp;
    __builtin_prefetch(sp);
    __builtin_prefetch(sp + 64);
    __builtin_prefetch(sp + 128);
    __builtin_prefetch(after->next);
    switch_to(b, self, to);
    return true;
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

/* Waits, as thread t, until the block barrier of generation g is
 * released. */
static inline void bar_wait(gr_fblock *b, grKernelThread *t, unsigned g)
{
    for (;;) {
        if (!yield(b, t))
            stall(b);
        if (b->bar_gen != g)
            break;
        stall(b);
    }
}

GR_API int grKernelThreadSync(grKernelThread *t, int pred, int line)
{
    gr_fblock *b = t->b;
    /* Barriers are told apart by their source line: an optimiser may
     * copy a barrier's call (loop unswitching, peeling), so that threads
     * at the same barrier call from different addresses. */
    if (b->bar_arrived == 0)
        b->bar_line = line;
    else if (GR_UNLIKELY(line != b->bar_line)) {
        t->state = F_BAR;
        divergent(b, line);
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
    unsigned g = b->bar_gen;
    t->state = F_BAR;
    bar_wait(b, t, g);
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
    unsigned g = b->bar_gen;
    t->state = F_GRID;
    bar_wait(b, t, g);
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
    grKernelThread *f = b->f + wi * 32u;
    unsigned ballot = 0;
    for (unsigned m = need; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        if (f[l].w_mask != mask)
            return false;
        ballot |= (unsigned)(f[l].w_val != 0) << l;
    }
    for (unsigned m = need; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        int s = f[l].w_src;
        if (s == -1)
            f[l].w_res = ballot;
        else if (s == -2)
            f[l].w_res = ballot == need;
        else if (need >> s & 1u)
            f[l].w_res = f[s].w_val;
        else /* a lane that does not take part: CUDA leaves it undefined */
            f[l].w_res = f[l].w_val;
        f[l].w_gen++;
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
    t->w_val = v;
    t->w_src = (short)src;
    t->w_mask = mask;
    b->warps[wi].arrived |= 1u << lane;
    b->stalls = 0;
    if (warp_complete(b, wi, mask))
        return t->w_res;
    unsigned g = t->w_gen;
    t->state = F_WARP;
    for (;;) {
        if (!yield(b, t))
            stall(b);
        if (t->w_gen != g)
            break;
        stall(b);
    }
    t->state = F_RUN;
    return t->w_res;
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

GR_API unsigned long long grKernelThreadWarpOp(grKernelThread *t, int op, unsigned mask, unsigned long long v,
                                               int arg, int width)
{
    gr_fblock *b = t->b;
    unsigned lane = t->id & 31u, wi = t->id >> 5, bit = 1u << lane;
    if (GR_UNLIKELY(!(mask & bit)))
        warp_fault(b, t, mask);
    int src = warp_src(op, lane, arg, width);
    gr_warp *w = &b->warps[wi];
    unsigned live = w->exists & ~w->exited;
    if (GR_UNLIKELY((mask & live) != live || w->arrived))
        return warp_op_partial(b, t, mask, v, src);
    /* A round of the warp (gr_warp). */
    unsigned gen = w->r_gen, par = gen & 1u;
    unsigned arrived = w->r_arrived;
    if (arrived == 0)
        w->r_mask = mask;
    else if (GR_UNLIKELY(mask != w->r_mask))
        warp_fault(b, t, mask);
    b->stalls = 0;
    unsigned long long *slot = w->slot[par];
    slot[lane] = v;
    w->r_bal[par] |= (unsigned)(v != 0) << lane;
    arrived |= bit;
    if (arrived == live) {
        round_close(w, live);
    } else {
        w->r_arrived = arrived;
        t->state = F_WARP;
        for (;;) {
            if (!yield(b, t))
                stall(b);
            if (w->r_gen != gen)
                break;
            stall(b);
        }
        t->state = F_RUN;
    }
    unsigned part = w->r_part[par];
    if (src >= 0)
        return part >> src & 1u ? slot[src] : v;
    unsigned bal = w->r_bal[par];
    return src == -1 ? bal : bal == part;
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
        __sanitizer_finish_switch_fiber(t->fake_stack, &b->main_bottom, &b->main_size);
    else
        __sanitizer_finish_switch_fiber(t->fake_stack, NULL, NULL);
#endif
    unsigned bx = b->ctx->blockDim.x, by = b->ctx->blockDim.y;
    if (GR_LIKELY(bx == b->n)) /* one-dimensional: no divisions */
        b->fn(t, b->ctx, b->args, t->id, 0, 0);
    else
        b->fn(t, b->ctx, b->args, t->id % bx, t->id / bx % by, t->id / (bx * by));
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
            (void)warp_complete(b, wi, b->f[wi * 32u + l].w_mask);
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
        if (*(volatile unsigned long long *)b->f[i].stack != GR_FIBER_GUARD && bad++ == 0)
            first = i;
    if (GR_LIKELY(!bad))
        return true;
    for (unsigned i = 0; i < b->n; i++) /* for the blocks after a reset */
        *(unsigned long long *)b->f[i].stack = GR_FIBER_GUARD;
    const grKernelCtx *c = b->ctx;
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
            p->f[i].fake_stack = NULL;
        p->dirty = false;
    }
#endif
    b.f = p->f;
    b.warps = p->warps;
    b.n = b.live = n;
    b.ctx = ctx;
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
        t->w_gen = 0;
        t->next = &b.f[i + 1 == n ? 0 : i + 1];
        t->sp = gr__fiber_prepare(t->stack, size, fiber_main, t);
    }
    for (unsigned wi = 0; wi * 32u < n; wi++) {
        memset(&b.warps[wi], 0, offsetof(gr_warp, slot));
        b.warps[wi].exists = n - wi * 32u >= 32u ? ~0u : (1u << (n - wi * 32u)) - 1u;
    }
#if GR_ASAN
    __sanitizer_start_switch_fiber(&b.main_fake, b.f[0].stack, size);
#endif
#if GR_TSAN
    __tsan_switch_to_fiber(b.f[0].tsan, 0);
#endif
    gr__fiber_switch(&b.main_sp, b.f[0].sp);
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
