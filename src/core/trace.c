/*
 * trace.c - recording trace events into per-thread rings and writing them
 * as a Chrome trace-event JSON file (grTraceStart, grTraceStop,
 * GRAPHRT_TRACE).
 *
 * Each thread that records gets a ring of its own (made on its first
 * event, kept for the life of the process so that the events of threads
 * that exited are written too): a fixed number of 64-byte events, the
 * oldest overwritten when it is full, and counted as dropped. Recording is
 * a clock read before and after the work, and one event written with
 * plain stores: no lock, no allocation, no shared line.
 *
 * Invariants:
 *   - only a ring's thread writes its events, 'head' and 'session';
 *   - the writer of the file reads a ring only while GR_DBG_TRACE is off
 *     and the ring is not 'busy': a recorder marks its ring busy, then
 *     tests GR_DBG_TRACE (the hot side of core/barrier.h); the writer
 *     clears GR_DBG_TRACE, then waits for each ring to be idle (the heavy
 *     side), so either the recorder sees tracing off and writes nothing,
 *     or the writer waits until its event is written;
 *   - a ring's events belong to the trace session in 'session'; a ring
 *     of an older session is emptied by its thread at its next event.
 *
 * Lock: 'trace.lock' guards the ring list and the session's settings; it
 * is never taken by a recorder but for its first event.
 */
#include "core.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GR_TRACE_NAME 28
#define GR_TRACE_EVENTS_DEFAULT 65536u
#define GR_TRACE_EVENTS_MIN 16u
#define GR_TRACE_EVENTS_MAX (1u << 24)

typedef struct gr_trace_ev {
    uint64_t t0, t1, a;
    uint32_t b, c;
    uint16_t kind, worker;
    char name[GR_TRACE_NAME];
} gr_trace_ev;

_Static_assert(sizeof(gr_trace_ev) == 64, "a trace event fills one cache line");

typedef struct gr_trace_ring {
    struct gr_trace_ring *next; /* guarded by trace.lock */
    unsigned tid;               /* its thread's number in the file, from 1 */
    uint32_t cap;               /* events; a power of two */
    _Atomic uint32_t busy;      /* an event is being written (see the invariants) */
    unsigned worker;            /* the worker index its thread ran work as, 0: none */
    uint64_t session;           /* the session its events belong to */
    uint64_t head;              /* events recorded in that session */
    gr_trace_ev ev[];
} gr_trace_ring;

static struct {
    pthread_mutex_t lock;
    gr_trace_ring *rings; /* every ring made, newest first */
    unsigned nrings;
    _Atomic uint64_t session; /* the session being recorded, or the last */
    char *path;               /* the file of the session being recorded */
    uint64_t tick0, ns0;      /* the clocks when it began */
    bool exit_hook;           /* atexit registered */
} trace = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, 0, 0, false};

static __attribute__((tls_model("initial-exec"))) _Thread_local gr_trace_ring *my_ring;

static uint32_t ring_capacity(void)
{
    const char *v = getenv("GRAPHRT_TRACE_EVENTS");
    unsigned long n = v ? strtoul(v, NULL, 10) : GR_TRACE_EVENTS_DEFAULT;
    if (n < GR_TRACE_EVENTS_MIN)
        n = GR_TRACE_EVENTS_MIN;
    if (n > GR_TRACE_EVENTS_MAX)
        n = GR_TRACE_EVENTS_MAX;
    uint32_t cap = GR_TRACE_EVENTS_MIN;
    while (cap < n)
        cap *= 2;
    return cap;
}

static GR_NOINLINE gr_trace_ring *ring_new(void)
{
    uint32_t cap = ring_capacity();
    gr_trace_ring *r = gr__aligned_alloc(GR_CACHELINE, sizeof *r + (size_t)cap * sizeof(gr_trace_ev));
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->cap = cap;
    pthread_mutex_lock(&trace.lock);
    r->tid = ++trace.nrings;
    r->next = trace.rings;
    trace.rings = r;
    pthread_mutex_unlock(&trace.lock);
    my_ring = r;
    return r;
}

void gr__trace_emit(gr_trace_kind kind, const char *name, uint64_t t0, uint64_t t1, uint64_t a, uint32_t b,
                    uint32_t c, unsigned worker)
{
    gr_trace_ring *r = my_ring;
    if (GR_UNLIKELY(!r) && !(r = ring_new()))
        return;
        /* The hot side of the pairing with stop_recording. */
#if GR_TSAN
    gr_exchange_seq_cst(&r->busy, 1u); /* TSan models no membarrier */
    bool on = gr_load_seq_cst(&gr__dbg) & GR_DBG_TRACE;
#else
    gr_store_relaxed(&r->busy, 1u);
    gr_barrier_light();
    /* Acquire: the session's number, stored before tracing was turned on. */
    bool on = gr_load_acquire(&gr__dbg) & GR_DBG_TRACE;
#endif
    if (GR_LIKELY(on)) {
        uint64_t session = gr_load_relaxed(&trace.session);
        if (GR_UNLIKELY(r->session != session)) {
            r->session = session;
            r->head = 0;
        }
        gr_trace_ev *e = &r->ev[r->head & (r->cap - 1)];
        e->t0 = t0;
        e->t1 = t1;
        e->a = a;
        e->b = b;
        e->c = c;
        e->kind = (uint16_t)kind;
        e->worker = (uint16_t)worker;
        size_t i = 0;
        for (; i < GR_TRACE_NAME - 1 && name[i]; i++)
            e->name[i] = name[i];
        e->name[i] = '\0';
        if (worker)
            r->worker = worker;
        r->head++;
    }
    gr_store_release(&r->busy, 0u);
}

/* Clears GR_DBG_TRACE and waits until no ring is being written (the
 * heavy side of the pairing in gr__trace_emit). trace.lock held. */
static void stop_recording(void)
{
    gr_fetch_and_seq_cst(&gr__dbg, ~(unsigned)GR_DBG_TRACE);
    gr_barrier_heavy();
    for (gr_trace_ring *r = trace.rings; r; r = r->next)
        while (gr_load_seq_cst(&r->busy))
            gr__cpu_relax();
}

/* ------------------------------------------------------------- writing */

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* Ticks to whole nanoseconds since the session began. A span's start
 * and end are both converted, and its duration is their difference:
 * the conversion never decreases, so a span that ended before the next
 * began on its thread still does in the file (viewers such as Perfetto
 * need a thread's spans to nest). Rounding start and duration apart
 * made 1 ns overlaps. */
typedef struct clock_map {
    uint64_t tick0;
    double ns_per_tick;
} clock_map;

static uint64_t to_ns(const clock_map *m, uint64_t t)
{
    return t >= m->tick0 ? (uint64_t)((double)(t - m->tick0) * m->ns_per_tick + 0.5) : 0;
}

/* Whole nanoseconds as microseconds with 3 decimals, exactly. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, ",\"%s\":%llu.%03u", key, (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

static const char *category(unsigned kind)
{
    switch ((gr_trace_kind)kind) {
    case GR_TR_NODE:
        return "node";
    case GR_TR_LAUNCH:
        return "graph launch";
    case GR_TR_OP:
        return "stream op";
    case GR_TR_SYNC:
        return "sync";
    case GR_TR_CAPTURE:
        return "capture";
    }
    return "other";
}

static void put_event(FILE *f, const clock_map *m, int pid, unsigned tid, const gr_trace_ev *e)
{
    fputs(",\n{\"name\":", f);
    put_string(f, e->name);
    uint64_t ts = to_ns(m, e->t0);
    fprintf(f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%u", category(e->kind), pid, tid);
    put_us(f, "ts", ts);
    if (e->t1) {
        uint64_t end = e->t1 >= e->t0 ? to_ns(m, e->t1) : ts;
        fputs(",\"ph\":\"X\"", f);
        put_us(f, "dur", end - ts);
    } else {
        fputs(",\"ph\":\"i\",\"s\":\"t\"", f);
    }
    fprintf(f, ",\"args\":{\"worker\":%u", e->worker);
    switch ((gr_trace_kind)e->kind) {
    case GR_TR_NODE:
        fprintf(f, ",\"node\":%u,\"launch\":%u,\"exec\":\"0x%llx\"", e->c, e->b, (unsigned long long)e->a);
        break;
    case GR_TR_LAUNCH:
        fprintf(f, ",\"launch\":%u,\"nodes\":%u,\"exec\":\"0x%llx\"", e->b, e->c, (unsigned long long)e->a);
        break;
    case GR_TR_OP:
    case GR_TR_SYNC:
    case GR_TR_CAPTURE:
        if (e->a)
            fprintf(f, ",\"stream\":%llu", (unsigned long long)e->a);
        break;
    }
    fputs("}}", f);
}

/* Writes the session's events (recording stopped, trace.lock held). */
static bool write_file(FILE *f, uint64_t session, const clock_map *m)
{
    int pid = (int)getpid();
    uint64_t dropped = 0;
    fprintf(f,
            "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
            "\"args\":{\"name\":\"graphrt\"}}",
            pid);
    for (const gr_trace_ring *r = trace.rings; r; r = r->next) {
        if (r->session != session || r->head == 0)
            continue;
        if (r->worker)
            fprintf(f,
                    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,"
                    "\"args\":{\"name\":\"graphrt worker %u\"}}",
                    pid, r->tid, r->worker);
        else
            fprintf(f,
                    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,"
                    "\"args\":{\"name\":\"application thread %u\"}}",
                    pid, r->tid, r->tid);
        uint64_t first = r->head > r->cap ? r->head - r->cap : 0;
        dropped += first;
        for (uint64_t i = first; i < r->head; i++)
            put_event(f, m, pid, r->tid, &r->ev[i & (r->cap - 1)]);
    }
    fprintf(f,
            "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"graphrt %d.%d.%d\","
            "\"droppedEvents\":%llu}}\n",
            GRAPHRT_VERSION_MAJOR, GRAPHRT_VERSION_MINOR, GRAPHRT_VERSION_PATCH, (unsigned long long)dropped);
    return !ferror(f);
}

/* Stops the session and writes its file (trace.lock held, tracing on). */
static grError_t stop_locked(const char *call)
{
    stop_recording();
    uint64_t tick1 = gr__trace_clock(), ns1 = gr__now_ns();
    clock_map m = {trace.tick0, 1.0};
    if (tick1 > trace.tick0 && ns1 > trace.ns0)
        m.ns_per_tick = (double)(ns1 - trace.ns0) / (double)(tick1 - trace.tick0);
    char *path = trace.path;
    trace.path = NULL;
    FILE *f = fopen(path, "w");
    grError_t err = grSuccess;
    if (!f) {
        err = gr__fail(grErrorUnknown, "%s: cannot write the trace to '%s': %s", call, path, strerror(errno));
    } else {
        bool ok = write_file(f, gr_load_relaxed(&trace.session), &m);
        if (fclose(f) != 0 || !ok)
            err = gr__fail(grErrorUnknown, "%s: writing the trace to '%s' failed", call, path);
    }
    gr__free(path);
    return err;
}

static void stop_at_exit(void)
{
    pthread_mutex_lock(&trace.lock);
    if (trace.path && stop_locked("GRAPHRT_TRACE") != grSuccess)
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
    pthread_mutex_unlock(&trace.lock);
}

static grError_t start(const char *call, const char *path, unsigned flags)
{
    if (!path || !*path)
        return gr__fail(grErrorInvalidValue, "%s: 'path' is NULL or empty", call);
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags 0x%x: no flags are defined, pass 0", call, flags);
    gr__barrier_setup();
    pthread_mutex_lock(&trace.lock);
    grError_t err = grSuccess;
    FILE *f = NULL;
    char *copy = NULL;
    if (trace.path) {
        err = gr__fail(grErrorIllegalState, "%s: tracing already (to '%s'); call grTraceStop first", call,
                       trace.path);
    } else if (!(f = fopen(path, "w"))) {
        err = gr__fail(grErrorInvalidValue, "%s: cannot open '%s' for writing: %s", call, path,
                       strerror(errno));
    } else if (!(copy = gr__malloc(strlen(path) + 1))) {
        err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    } else if (!trace.exit_hook && atexit(stop_at_exit) != 0) {
        err = gr__fail(grErrorMemoryAllocation, "%s: cannot register the exit handler", call);
    } else {
        trace.exit_hook = true;
        trace.path = strcpy(copy, path);
        copy = NULL;
        trace.ns0 = gr__now_ns();
        trace.tick0 = gr__trace_clock();
        gr_store_relaxed(&trace.session, gr_load_relaxed(&trace.session) + 1);
        gr_fetch_or_seq_cst(&gr__dbg, (unsigned)GR_DBG_TRACE);
    }
    if (f)
        fclose(f);
    gr__free(copy);
    pthread_mutex_unlock(&trace.lock);
    return err;
}

void gr__trace_start_env(const char *path)
{
    if (start("GRAPHRT_TRACE", path, 0) != grSuccess)
        fprintf(stderr, "graphrt: %s\n", grGetLastErrorDetail());
}

GR_API grError_t grTraceStart(const char *path, unsigned int flags)
{
    return start("grTraceStart", path, flags);
}

GR_API grError_t grTraceStop(void)
{
    pthread_mutex_lock(&trace.lock);
    grError_t err = trace.path
                        ? stop_locked("grTraceStop")
                        : gr__fail(grErrorIllegalState, "grTraceStop: not tracing; call grTraceStart first");
    pthread_mutex_unlock(&trace.lock);
    return err;
}
