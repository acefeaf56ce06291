/*
 * fuzz-common.h - what the fuzzers share: a seeded generator, the command
 * line, the switches for the library's known bug classes, failure reports
 * that say how to reproduce them, and the hang watchdog.
 *
 * Determinism: everything a fuzzer does follows from the 64-bit seed of
 * the case it runs (and, with several threads, from the seed and the
 * thread's index), so a failure printed as "seed S step K" replays with
 * --seed S --iterations 1. Only the interleaving of threads is not
 * replayed.
 */
#ifndef GR_FUZZ_COMMON_H
#define GR_FUZZ_COMMON_H

#include "graphrt.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- generator */

/* xoshiro256** seeded by splitmix64: fast, and a seed of 0 is fine. */
typedef struct fz_rng {
    uint64_t s[4];
} fz_rng;

void fz_rng_seed(fz_rng *r, uint64_t seed);

static inline uint64_t fz_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t fz_next(fz_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = fz_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = fz_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) for n >= 1 (Lemire's multiply; the bias is below
 * 2^-32, which a fuzzer does not care about). */
static inline uint32_t fz_below(fz_rng *r, uint32_t n)
{
    return (uint32_t)(((fz_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* True with probability percent/100. */
static inline bool fz_chance(fz_rng *r, unsigned percent)
{
    return fz_below(r, 100) < percent;
}

/* Mixes a seed with a number (a thread index, a program index) into a new
 * seed, so that related streams of numbers do not overlap. */
uint64_t fz_mix(uint64_t seed, uint64_t k);

/* ------------------------------------------------------- known bug classes */

/*
 * Each class of bug that is known and being fixed elsewhere has a switch:
 * while it is off the fuzzers do not generate the inputs that reach it, or
 * do not insist on the right answer there, so that they find other bugs
 * meanwhile. A class whose fix has landed joins FZ_ALLOW_FIXED, which is
 * on by default; --allow NAME[,NAME...] or the environment variable
 * GRAPHRT_FUZZ_ALLOW turns on others.
 */
enum {
    FZ_ALLOW_DESTROYED = 1u << 0,        /* destroyed-handles */
    FZ_ALLOW_NODE_OVERRUN = 1u << 1,     /* node-overrun */
    FZ_ALLOW_EXEC_RACE = 1u << 2,        /* exec-race */
    FZ_ALLOW_DEEP_NESTING = 1u << 3,     /* deep-nesting */
    FZ_ALLOW_KERNEL_PARAMS = 1u << 4,    /* kernel-params-values */
    FZ_ALLOW_GRAPHMEM_THREADS = 1u << 5, /* graphmem-threads */
    FZ_ALLOW_CAPTURE_SCRATCH = 1u << 6,  /* capture-join-scratch */
    /* Bugs these fuzzers found (findings/ of the fuzz branch); each one
     * stays off until fixed, like the classes above. */
    FZ_ALLOW_ISCAP_DETAIL = 1u << 7,       /* is-capturing-detail */
    FZ_ALLOW_EXEC_DESTROY_ALLOC = 1u << 8, /* exec-destroy-allocations */
    FZ_ALLOW_GRAPHMEM_REINST = 1u << 9,    /* graphmem-reinstantiate */
    FZ_ALLOW_ROLLBACK_FREE = 1u << 10,     /* capture-rollback-free */
    FZ_ALLOW_WRONG_KIND = 1u << 11,        /* wrong-kind-handles */
    FZ_ALLOW_DYING_STREAM = 1u << 12,      /* dying-stream */
    FZ_ALLOW_POOL_STATE_RACE = 1u << 13,   /* pool-release-race */
    FZ_ALLOW_ALL = (1u << 14) - 1,
    /* Every class above is fixed on main. */
    FZ_ALLOW_FIXED = FZ_ALLOW_ALL
};

/* The class names, for --allow and for messages. */
const char *fz_allow_names(unsigned allow, char *buf, size_t size);

/* ------------------------------------------------------------- command line */

typedef struct fz_opts {
    const char *prog;      /* "fuzz-api" or "fuzz-diff" */
    uint64_t seed;         /* seed of the first case */
    uint64_t iterations;   /* cases to run (0: until 'seconds') */
    double seconds;        /* run for this long (0: 'iterations' only) */
    unsigned threads;      /* application threads */
    unsigned steps;        /* steps per case (fuzz-api) or ops per program (fuzz-diff); 0: default */
    unsigned allow;        /* FZ_ALLOW_* */
    unsigned workers_mask; /* fuzz-diff: which worker counts (bit w-1 for w workers) */
    unsigned hang_s;       /* watchdog: seconds without progress that count as a hang */
    bool quiet;
    const char *save_dir; /* where failing seeds are written, or NULL */
} fz_opts;

/* Parses argv into o (defaults first). Returns 0, or prints the usage and
 * returns 1 (bad option) or 2 (--help). */
int fz_parse_args(fz_opts *o, const char *prog, int argc, char **argv);

/* The options every report repeats so that a failure replays. */
void fz_opts_describe(const fz_opts *o, char *buf, size_t size);

/* ---------------------------------------------------------------- failures */

/*
 * Each application thread of a fuzzer has a context: which case (seed)
 * and step it is at, which graphrt call it made last, and how many calls
 * it made. The watchdog reads 'step' and 'call' of every context.
 */
typedef struct fz_ctx {
    _Atomic uint64_t seed;      /* the current case */
    _Atomic uint64_t step;      /* the current step of the case */
    _Atomic uint64_t progress;  /* bumped at every step; the watchdog watches it */
    _Atomic(const char *) call; /* the latest graphrt call, as written in the source */
    uint64_t calls;             /* graphrt calls made */
    unsigned thread;            /* index of the thread */
    atomic_bool active;         /* inside a case (the watchdog ignores it otherwise) */
    /* GRAPHRT_FUZZ_TRACE=ring: the latest calls, printed with a report
     * (tracing to stderr changes the timing too much to catch races). */
    const char *ring[64];
    uint64_t ring_step[64];
    unsigned ring_n;
} fz_ctx;

#define FZ_MAX_THREADS 16

/* Registers the contexts of the run (for the watchdog and for reports,
 * also of crashes and sanitizer reports). */
void fz_ctx_register(const fz_opts *o, fz_ctx *ctx, unsigned n);

/* Called first by each thread of a fuzzer: a crash report works even
 * when the thread overflows its stack. */
void fz_thread_start(void);

/* Notes the call about to be made (the text of the call expression). */
extern bool fz_trace; /* GRAPHRT_FUZZ_TRACE=1: print every call (debugging a seed) */
extern bool fz_ring;  /* GRAPHRT_FUZZ_TRACE=ring: keep the latest calls for the report */
void fz_trace_call(fz_ctx *c, const char *call);

static inline void fz_note(fz_ctx *c, const char *call)
{
    c->calls++;
    atomic_store_explicit(&c->call, call, memory_order_relaxed);
    if (fz_ring) {
        unsigned i = c->ring_n++ % 64;
        c->ring[i] = call;
        c->ring_step[i] = atomic_load_explicit(&c->step, memory_order_relaxed);
    }
    if (fz_trace)
        fz_trace_call(c, call);
}

/* Wraps a graphrt call: counts it and remembers its text for reports. */
#define FZ(ctx, expr) (fz_note((ctx), #expr), (expr))

/* Reports a failure of the calling thread's case with the seed and step
 * that reproduce it, writes the seed under --save, and exits. */
_Noreturn void fz_fail(fz_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fz_fail with the arguments of a variadic caller, which has reported
 * what it knows first. */
_Noreturn void fz_vfail(fz_ctx *c, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* The name of the function a noted call expression calls ("grFoo" from
 * "grFoo(a, b)"), into buf. */
const char *fz_call_name(const char *expr, char *buf, size_t size);

/*
 * Checks the result of the noted call: fz_ok insists on grSuccess; fz_err
 * on a failure (the code 'want', or any failure when want is -1) whose
 * grGetLastErrorDetail() is a sentence naming the called function.
 */
void fz_ok(fz_ctx *c, grError_t got, const char *what);
void fz_err(fz_ctx *c, grError_t got, int want, const char *what);

/* Checks the detail sentence of the failure just returned by the noted
 * call (done by fz_err; exposed for calls that may fail or not). */
void fz_check_detail(fz_ctx *c, grError_t got);

/* ---------------------------------------------------------------- watchdog */

/* Starts a thread that ends the process with a report when an active
 * context has not made progress for o->hang_s seconds. */
void fz_watchdog_start(const fz_opts *o);
void fz_watchdog_stop(void);

/* Seconds since an arbitrary start (monotonic). */
double fz_now(void);

/* Whether the build runs under a sanitizer (ASan or TSan): the fuzzers
 * make their cases smaller there. */
bool fz_sanitized(void);

/* Whether the build runs under ThreadSanitizer: the fuzzers then issue no
 * work that races on memory (the model could tolerate it; TSan reports
 * the program, rightly). */
bool fz_tsan(void);

#endif /* GR_FUZZ_COMMON_H */
