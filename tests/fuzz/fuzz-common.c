/*
 * fuzz-common.c - the generator, the command line, failure reports and the
 * hang watchdog of the fuzzers (see fuzz-common.h).
 *
 * A failure report must be usable on its own: it names the fuzzer, the
 * seed of the failing case, the step, the thread, the last graphrt call and
 * the complete command line that replays the case, and --save keeps that
 * command line in a file, because a fuzzing run in CI leaves nothing else.
 */
#include "fuzz-common.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void fz_rng_seed(fz_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&x);
}

uint64_t fz_mix(uint64_t seed, uint64_t k)
{
    uint64_t x = seed ^ (k * 0xd1b54a32d192ed03ull);
    return splitmix(&x);
}

double fz_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Which sanitizers this build has: gcc defines __SANITIZE_*__, clang
 * answers __has_feature. */
#if defined(__has_feature)
#define FZ_HAS_FEATURE(x) __has_feature(x)
#else
#define FZ_HAS_FEATURE(x) 0
#endif
#if defined(__SANITIZE_THREAD__) || FZ_HAS_FEATURE(thread_sanitizer)
#define FZ_TSAN 1
#else
#define FZ_TSAN 0
#endif
#if defined(__SANITIZE_ADDRESS__) || FZ_HAS_FEATURE(address_sanitizer) || FZ_TSAN
#define FZ_SANITIZED 1
#else
#define FZ_SANITIZED 0
#endif

bool fz_sanitized(void)
{
    return FZ_SANITIZED;
}

bool fz_tsan(void)
{
    return FZ_TSAN;
}

/* ------------------------------------------------------- known bug classes */

static const struct {
    const char *name;
    unsigned bit;
    const char *what;
} allow_table[] = {
    {"destroyed-handles", FZ_ALLOW_DESTROYED,
     "use destroyed kernel, pool, stream, event, executable and graph handles"},
    {"node-overrun", FZ_ALLOW_NODE_OVERRUN, "memcpy/memset graph nodes that overrun tracked allocations"},
    {"exec-race", FZ_ALLOW_EXEC_RACE, "exec setters and grGraphExecUpdate while another thread launches"},
    {"deep-nesting", FZ_ALLOW_DEEP_NESTING, "child graphs nested thousands deep"},
    {"kernel-params-values", FZ_ALLOW_KERNEL_PARAMS, "kernelParams holding values instead of addresses"},
    {"graphmem-threads", FZ_ALLOW_GRAPHMEM_THREADS, "graph-memory instantiations on several threads at once"},
    {"capture-join-scratch", FZ_ALLOW_CAPTURE_SCRATCH,
     "insist on the join check of captures whose nodes' scratch words are in use"},
    {"is-capturing-detail", FZ_ALLOW_ISCAP_DETAIL,
     "insist that grStreamIsCapturing's refusals name it (not grStreamGetCaptureInfo)"},
    {"exec-destroy-allocations", FZ_ALLOW_EXEC_DESTROY_ALLOC,
     "insist that grGraphExecDestroy ends the graph allocations its launches left allocated"},
    {"graphmem-reinstantiate", FZ_ALLOW_GRAPHMEM_REINST,
     "insist that a graph with memory nodes instantiates again once its executable is destroyed"},
    {"capture-rollback-free", FZ_ALLOW_ROLLBACK_FREE,
     "insist that a failed capture's removed free node no longer counts as its graph freeing the allocation"},
    {"wrong-kind-handles", FZ_ALLOW_WRONG_KIND,
     "pass other graphrt objects as streams (undefined behaviour in the check: UBSan aborts)"},
    {"dying-stream", FZ_ALLOW_DYING_STREAM,
     "destroy streams with work queued (registry walkers then race with their free)"},
    {"pool-release-race", FZ_ALLOW_POOL_STATE_RACE,
     "free a destroyed pool's block twice (the refusal races with the block's release: TSan)"},
};

#define ALLOW_N (sizeof allow_table / sizeof allow_table[0])

const char *fz_allow_names(unsigned allow, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ALLOW_N; i++) {
        if (!(allow & allow_table[i].bit))
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? "," : "", allow_table[i].name);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* Adds the classes named in a comma-separated list; false on an unknown
 * name. */
static bool parse_allow(const char *list, unsigned *allow)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i;
        if (strcmp(tok, "all") == 0) {
            *allow |= FZ_ALLOW_ALL;
            continue;
        }
        if (strcmp(tok, "none") == 0)
            continue;
        for (i = 0; i < ALLOW_N && strcmp(tok, allow_table[i].name) != 0; i++)
            ;
        if (i == ALLOW_N) {
            fprintf(stderr, "unknown class '%s' in --allow / GRAPHRT_FUZZ_ALLOW\n", tok);
            return false;
        }
        *allow |= allow_table[i].bit;
    }
    return true;
}

/* ------------------------------------------------------------- command line */

static void usage(const char *prog, FILE *f)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --seed S          seed of the first case (decimal or 0x hex; default: from the clock)\n"
            "  --iterations N    run N cases, seeds S, S+1, ... (default 100 unless --seconds)\n"
            "  --seconds T       run cases until T seconds have passed\n"
            "  --threads N       application threads (default 1; at most %d)\n"
            "  --steps N         steps per case (fuzz-api) or operations per program (fuzz-diff)\n"
            "  --workers LIST    fuzz-diff: worker counts to compare, e.g. 1,2,4 (default)\n"
            "  --allow LIST      known bug classes to exercise besides the fixed ones, which are\n"
            "                    always on (also GRAPHRT_FUZZ_ALLOW):\n",
            prog, FZ_MAX_THREADS);
    for (size_t i = 0; i < ALLOW_N; i++)
        fprintf(f, "                      %-22s %s\n", allow_table[i].name, allow_table[i].what);
    fprintf(f, "                      all                    every class above\n"
               "  --hang S          seconds without progress that count as a hang (default 60)\n"
               "  --save DIR        write each failing seed to a file in DIR\n"
               "  --quiet           print only failures and the closing summary\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

int fz_parse_args(fz_opts *o, const char *prog, int argc, char **argv)
{
    uint64_t v;
    bool have_iter = false;
    memset(o, 0, sizeof *o);
    o->prog = prog;
    o->seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    o->threads = 1;
    o->hang_s = 60;
    o->workers_mask = 1u | 2u | 8u; /* 1, 2 and 4 workers */
    o->allow = FZ_ALLOW_FIXED;
    const char *tr = getenv("GRAPHRT_FUZZ_TRACE");
    fz_trace = tr && tr[0] == '1';
    fz_ring = tr && strcmp(tr, "ring") == 0;
    const char *env = getenv("GRAPHRT_FUZZ_ALLOW");
    if (env && !parse_allow(env, &o->allow))
        return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(prog, stdout);
            return 2;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        if (!val) {
            fprintf(stderr, "%s: %s needs a value\n", prog, a);
            usage(prog, stderr);
            return 1;
        }
        i++;
        if (strcmp(a, "--seed") == 0 && parse_u64(val, &v)) {
            o->seed = v;
        } else if (strcmp(a, "--iterations") == 0 && parse_u64(val, &v)) {
            o->iterations = v;
            have_iter = true;
        } else if (strcmp(a, "--seconds") == 0 && atof(val) > 0) {
            o->seconds = atof(val);
        } else if (strcmp(a, "--threads") == 0 && parse_u64(val, &v) && v >= 1 && v <= FZ_MAX_THREADS) {
            o->threads = (unsigned)v;
        } else if (strcmp(a, "--steps") == 0 && parse_u64(val, &v) && v >= 1 && v <= 10000000) {
            o->steps = (unsigned)v;
        } else if (strcmp(a, "--hang") == 0 && parse_u64(val, &v) && v >= 1) {
            o->hang_s = (unsigned)v;
        } else if (strcmp(a, "--allow") == 0) {
            if (!parse_allow(val, &o->allow))
                return 1;
        } else if (strcmp(a, "--save") == 0) {
            o->save_dir = val;
        } else if (strcmp(a, "--workers") == 0) {
            char buf[64];
            o->workers_mask = 0;
            snprintf(buf, sizeof buf, "%s", val);
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (!parse_u64(t, &v) || v < 1 || v > 16) {
                    fprintf(stderr, "%s: bad worker count '%s' (1..16)\n", prog, t);
                    return 1;
                }
                o->workers_mask |= 1u << (v - 1);
            }
            if (!o->workers_mask)
                return 1;
        } else {
            fprintf(stderr, "%s: bad option or value: %s %s\n", prog, a, val);
            usage(prog, stderr);
            return 1;
        }
    }
    if (!have_iter && o->seconds == 0)
        o->iterations = 100;
    return 0;
}

void fz_opts_describe(const fz_opts *o, char *buf, size_t size)
{
    char names[256];
    size_t used = (size_t)snprintf(buf, size, "--threads %u", o->threads);
    if (o->steps && used < size)
        used += (size_t)snprintf(buf + used, size - used, " --steps %u", o->steps);
    if ((o->allow & ~(unsigned)FZ_ALLOW_FIXED) && used < size)
        used += (size_t)snprintf(buf + used, size - used, " --allow %s",
                                 fz_allow_names(o->allow & ~(unsigned)FZ_ALLOW_FIXED, names, sizeof names));
    if (o->workers_mask != (1u | 2u | 8u) && used < size) {
        used += (size_t)snprintf(buf + used, size - used, " --workers ");
        bool first = true;
        for (unsigned w = 1; w <= 16 && used < size; w++)
            if (o->workers_mask & (1u << (w - 1))) {
                used += (size_t)snprintf(buf + used, size - used, "%s%u", first ? "" : ",", w);
                first = false;
            }
    }
}

/* ---------------------------------------------------------------- failures */

static const fz_opts *g_opts;

bool fz_trace;
bool fz_ring;

void fz_trace_call(fz_ctx *c, const char *call)
{
    fprintf(stderr, "[t%u s%" PRIu64 "] %s\n", c->thread,
            atomic_load_explicit(&c->step, memory_order_relaxed), call);
}
static fz_ctx *g_ctx;
static unsigned g_nctx;
static atomic_flag g_failing = ATOMIC_FLAG_INIT;

/* The sanitizers' hook for "about to die": their report then ends with
 * the seed and step of every thread, which is what replays it. Weak, so
 * that builds without a sanitizer runtime link too. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
static void save_seed(const char *why, uint64_t seed, uint64_t step, unsigned thread);

static void on_sanitizer_death(void)
{
    char args[512];
    fz_opts_describe(g_opts, args, sizeof args);
    for (unsigned i = 0; i < g_nctx; i++) {
        uint64_t seed = atomic_load(&g_ctx[i].seed);
        const char *call = atomic_load_explicit(&g_ctx[i].call, memory_order_relaxed);
        fprintf(stderr,
                "%s: crash or sanitizer report; thread %u: seed 0x%016" PRIx64 " step %" PRIu64
                ", last call %s\n",
                g_opts->prog, i, seed, atomic_load_explicit(&g_ctx[i].step, memory_order_relaxed),
                call ? call : "(none)");
        if (i == 0 || g_opts->threads > 1) {
            fprintf(stderr, "  reproduce: %s --seed 0x%016" PRIx64 " --iterations 1 %s\n", g_opts->prog, seed,
                    args);
            save_seed("crash or sanitizer report", seed,
                      atomic_load_explicit(&g_ctx[i].step, memory_order_relaxed), i);
        }
        if (fz_ring) {
            fprintf(stderr, "  the latest calls of thread %u:\n", i);
            for (unsigned k = g_ctx[i].ring_n > 64 ? g_ctx[i].ring_n - 64 : 0; k < g_ctx[i].ring_n; k++)
                fprintf(stderr, "    step %" PRIu64 ": %s\n", g_ctx[i].ring_step[k % 64],
                        g_ctx[i].ring[k % 64]);
        }
    }
}

void fz_thread_start(void)
{
    /* Each thread needs its own alternate stack (leaked with the thread:
     * a few threads per run). */
    if (__sanitizer_set_death_callback)
        return;
    stack_t ss = {.ss_sp = malloc(64 * 1024), .ss_size = 64 * 1024, .ss_flags = 0};
    if (ss.ss_sp)
        sigaltstack(&ss, NULL);
}

/* A crash (segfault, abort) outside the sanitizers: the same report.
 * stdio in a signal handler is not async-signal-safe, but the process
 * is going down anyway and the seed is what matters. On an alternate
 * stack, so that a stack overflow is reported too. */
static void on_crash(int sig)
{
    signal(sig, SIG_DFL);
    fprintf(stderr, "%s: signal %d\n", g_opts ? g_opts->prog : "fuzz", sig);
    on_sanitizer_death();
    fflush(stderr);
    raise(sig);
}

void fz_ctx_register(const fz_opts *o, fz_ctx *ctx, unsigned n)
{
    g_opts = o;
    g_ctx = ctx;
    g_nctx = n;
    if (__sanitizer_set_death_callback) {
        __sanitizer_set_death_callback(on_sanitizer_death);
        return;
    }
    fz_thread_start();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
}

const char *fz_call_name(const char *expr, char *buf, size_t size)
{
    size_t n = 0;
    if (!expr)
        expr = "(none)";
    while (expr[n] && expr[n] != '(' && n + 1 < size) {
        buf[n] = expr[n];
        n++;
    }
    buf[n] = '\0';
    return buf;
}

/* Writes the reproducing command line into DIR/<prog>-<seed>.txt. */
static void save_seed(const char *why, uint64_t seed, uint64_t step, unsigned thread)
{
    char path[1024], args[512];
    if (!g_opts || !g_opts->save_dir)
        return;
    mkdir(g_opts->save_dir, 0777); /* may exist already */
    snprintf(path, sizeof path, "%s/%s-0x%016" PRIx64 ".txt", g_opts->save_dir, g_opts->prog, seed);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "  (could not write %s: %s)\n", path, strerror(errno));
        return;
    }
    fz_opts_describe(g_opts, args, sizeof args);
    fprintf(f, "%s --seed 0x%016" PRIx64 " --iterations 1 %s\n# step %" PRIu64 ", thread %u: %s\n",
            g_opts->prog, seed, args, step, thread, why);
    fclose(f);
    fprintf(stderr, "  seed saved in %s\n", path);
}

static void report_header(const char *kind, fz_ctx *c, const char *msg)
{
    char args[512];
    const char *call = atomic_load_explicit(&c->call, memory_order_relaxed);
    uint64_t step = atomic_load_explicit(&c->step, memory_order_relaxed);
    uint64_t seed = atomic_load(&c->seed);
    fz_opts_describe(g_opts, args, sizeof args);
    fprintf(stderr,
            "\n%s %s: seed 0x%016" PRIx64 " step %" PRIu64 " thread %u\n  %s\n  last call: %s\n"
            "  reproduce: %s --seed 0x%016" PRIx64 " --iterations 1 %s\n",
            g_opts ? g_opts->prog : "fuzz", kind, seed, step, c->thread, msg, call ? call : "(none)",
            g_opts ? g_opts->prog : "fuzz", seed, args);
    save_seed(msg, seed, step, c->thread);
    if (fz_ring) {
        fprintf(stderr, "  the latest calls of thread %u:\n", c->thread);
        for (unsigned k = c->ring_n > 64 ? c->ring_n - 64 : 0; k < c->ring_n; k++)
            fprintf(stderr, "    step %" PRIu64 ": %s\n", c->ring_step[k % 64], c->ring[k % 64]);
    }
}

_Noreturn void fz_fail(fz_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fz_vfail(c, fmt, ap);
}

_Noreturn void fz_vfail(fz_ctx *c, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (atomic_flag_test_and_set(&g_failing)) {
        /* Another thread is reporting; let it finish. */
        for (;;)
            pause();
    }
    fflush(stdout);
    report_header("FAILED", c, msg);
    fflush(stderr);
    _exit(1);
}

static bool detail_names(const char *detail, const char *name)
{
    const char *p = detail;
    size_t n = strlen(name);
    /* The name as a word: "grGraphAddNode" must not match inside
     * "grGraphAddNodeX". */
    while ((p = strstr(p, name)) != NULL) {
        char next = p[n];
        if (!((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9')))
            return true;
        p += n;
    }
    return false;
}

void fz_check_detail(fz_ctx *c, grError_t got)
{
    char name[128];
    const char *d = grGetLastErrorDetail();
    const char *expr = atomic_load_explicit(&c->call, memory_order_relaxed);
    fz_call_name(expr, name, sizeof name);
    if (!d || !d[0])
        fz_fail(c, "%s returned %s with an empty grGetLastErrorDetail()", name, grGetErrorName(got));
    /* is-capturing-detail: grStreamIsCapturing speaks as the call it
     * wraps. */
    if (!detail_names(d, name) && strcmp(name, "grStreamIsCapturing") == 0 && g_opts &&
        !(g_opts->allow & FZ_ALLOW_ISCAP_DETAIL) && detail_names(d, "grStreamGetCaptureInfo"))
        return;
    if (!detail_names(d, name))
        fz_fail(c, "%s returned %s with a detail that does not name it: \"%s\"", name, grGetErrorName(got),
                d);
    if (strlen(d) < 20)
        fz_fail(c, "%s returned %s with a detail too short to explain anything: \"%s\"", name,
                grGetErrorName(got), d);
}

void fz_ok(fz_ctx *c, grError_t got, const char *what)
{
    if (got != grSuccess)
        fz_fail(c, "%s: expected grSuccess, got %s (detail: %s)", what, grGetErrorName(got),
                grGetLastErrorDetail());
}

void fz_err(fz_ctx *c, grError_t got, int want, const char *what)
{
    if (got == grSuccess)
        fz_fail(c, "%s: expected %s, got grSuccess", what,
                want < 0 ? "an error" : grGetErrorName((grError_t)want));
    if (want >= 0 && got != (grError_t)want)
        fz_fail(c, "%s: expected %s, got %s (detail: %s)", what, grGetErrorName((grError_t)want),
                grGetErrorName(got), grGetLastErrorDetail());
    /* grErrorNotReady is an answer, not a failure: no detail (as CUDA). */
    if (got != grErrorNotReady)
        fz_check_detail(c, got);
}

/* ---------------------------------------------------------------- watchdog */

static pthread_t g_wd;
static atomic_bool g_wd_stop;
static bool g_wd_running;

static void *watchdog(void *arg)
{
    const fz_opts *o = arg;
    uint64_t last[FZ_MAX_THREADS] = {0};
    double since[FZ_MAX_THREADS];
    double t0 = fz_now();
    for (unsigned i = 0; i < FZ_MAX_THREADS; i++)
        since[i] = t0;
    while (!atomic_load(&g_wd_stop)) {
        usleep(100 * 1000);
        double now = fz_now();
        for (unsigned i = 0; i < g_nctx && i < FZ_MAX_THREADS; i++) {
            fz_ctx *c = &g_ctx[i];
            uint64_t p = atomic_load_explicit(&c->progress, memory_order_relaxed);
            if (p != last[i] || !atomic_load(&c->active)) {
                last[i] = p;
                since[i] = now;
                continue;
            }
            if (now - since[i] < (double)o->hang_s)
                continue;
            if (atomic_flag_test_and_set(&g_failing))
                return NULL;
            char msg[256];
            snprintf(msg, sizeof msg, "no progress for %u s: a hang (deadlock or lost wake-up)", o->hang_s);
            fflush(stdout);
            report_header("HANG", c, msg);
            for (unsigned j = 0; j < g_nctx; j++) {
                const char *call = atomic_load_explicit(&g_ctx[j].call, memory_order_relaxed);
                fprintf(stderr, "  thread %u: seed 0x%016" PRIx64 " step %" PRIu64 ", in %s\n", j,
                        atomic_load(&g_ctx[j].seed),
                        atomic_load_explicit(&g_ctx[j].step, memory_order_relaxed), call ? call : "(none)");
            }
            fflush(stderr);
            _exit(3);
        }
    }
    return NULL;
}

void fz_watchdog_start(const fz_opts *o)
{
    atomic_store(&g_wd_stop, false);
    g_wd_running = pthread_create(&g_wd, NULL, watchdog, (void *)o) == 0;
}

void fz_watchdog_stop(void)
{
    if (!g_wd_running)
        return;
    atomic_store(&g_wd_stop, true);
    pthread_join(g_wd, NULL);
    g_wd_running = false;
}
