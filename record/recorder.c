/*
 * recorder.c - the recorder's entry point and its CUPTI callbacks.
 *
 * The driver loads this library into any CUDA program named by
 * CUDA_INJECTION64_PATH and calls InitializeInjection from cuInit. It
 * subscribes, once and for the whole run, to CUPTI's resource domain
 * (graphs, nodes, dependencies and executables created, cloned,
 * destroyed, updated) and to two fixed lists of API calls, one callback
 * id at a time (cuptiEnableCallback): the driver calls it always acts on
 * ('always': allocations and frees, capture begin and end, the capture
 * mode exchange, instantiation, exec setters and update, graph launches,
 * node setters), and the driver and runtime calls that only matter while
 * a capture is open ('capture_drv', 'capture_rt': every call that can be
 * captured into a graph or that can invalidate a capture, below). Those
 * give each captured node its call and stream, log the event records and
 * waits that join streams, and name the call a capture refused. It never
 * switches a callback or a whole domain on or off: switching the driver
 * and runtime domains on at each capture's begin and off at its end took
 * the two callbacks 83 and 129 us on an H100 with CUDA 13.0. Outside
 * captures a call of the second lists returns from its callback at once
 * ('captures' is 0), and any other call gets no callback.
 * Each callback copies what it carries into one line of the log,
 * GRAPHRT_RECORD_DIR/callbacks-PID.log (docs/record.md); graphs are
 * walked on the helper thread of walk.c.
 *
 * A call outside the lists gets no callback even during a capture: if
 * one invalidates a capture, the log has no line for it, but the later
 * calls the capture refuses and its end (CUDA_ERROR_STREAM_CAPTURE_*)
 * are logged, and the converter names the capture's last node before the
 * invalidation and the first call that reported it.
 *
 * Cost: a graph launch bumps a counter of its thread's own, without a
 * lock; the counts are written as 'launch' lines per executable and
 * stream before the next other line, which keeps the order that the
 * stale-pointer check needs without a line per launch. A captured node
 * costs one line, built without vfprintf. What the callbacks cost is
 * counted per callback kind and written as the 'profile' line at exit.
 *
 * Lock order: walk.c's queue lock, then rec_lock; never the reverse.
 * prof_lock and walk.c's cache_lock are taken with no other lock held (or
 * under rec_lock, prof_lock at exit).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "recorder.h"

#include <cupti.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

FILE *rec_out;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_SubscriberHandle sub;
static int timing;
/* Captures begun and not ended, on any thread; atomic (__atomic
 * builtins). Every callback of the capture lists reads it first: 0 is the
 * common case, a return at once. A capture never ended keeps it above 0,
 * which costs time, never a line. */
static int captures;
static unsigned tids; /* thread ids handed out; atomic */

/* This thread: its id, the driver and runtime calls in progress (set at
 * a call's enter, cleared at its exit; CUPTI sends the exit of every
 * enter it sent, as no callback is switched off during the run), the
 * stream the call named, the capture mode it set, the graph the driver
 * made inside the driver call (a capture's), and whether the driver call
 * inside the runtime call logged its event record or wait. */
static _Thread_local unsigned tl_tid;
static _Thread_local const char *tl_call, *tl_rt_call;
static _Thread_local CUstream tl_stream, tl_rt_stream;
static _Thread_local int tl_has_stream, tl_has_rt_stream;
static _Thread_local uint32_t tl_graph_made;
static _Thread_local int tl_rt_event_logged;
/* Inside a cuGraphInstantiate* call: the nodes the driver makes then
 * belong to its own copies of the graph, not to any graph of the
 * program, so they do not make the next walk necessary. */
static _Thread_local int tl_instantiating;
static _Thread_local int tl_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

unsigned rec_tid(void)
{
    if (!tl_tid)
        tl_tid = __atomic_add_fetch(&tids, 1, __ATOMIC_RELAXED);
    return tl_tid;
}

uint32_t rec_graph_id(CUgraph g)
{
    uint32_t id = 0;
    if (g)
        cuptiGetGraphId(g, &id);
    return id;
}

/* The graph id of the last graph this thread asked for, kept while no
 * graph is destroyed (graph_epoch, atomic): a capture asks once per node
 * for the same graph. */
static unsigned graph_epoch;
static _Thread_local CUgraph tl_gid_graph;
static _Thread_local uint32_t tl_gid;
static _Thread_local unsigned tl_gid_epoch;

static uint32_t graph_id_cached(CUgraph g)
{
    unsigned e = __atomic_load_n(&graph_epoch, __ATOMIC_ACQUIRE);
    if (!g || g != tl_gid_graph || e != tl_gid_epoch) {
        tl_gid = rec_graph_id(g);
        tl_gid_graph = g;
        tl_gid_epoch = e;
    }
    return tl_gid;
}

uint64_t rec_node_id(CUgraphNode n)
{
    uint64_t id = 0;
    if (n)
        cuptiGetGraphNodeId(n, &id);
    return id;
}

uint32_t rec_exec_id(CUgraphExec x)
{
    uint32_t id = 0;
    if (x)
        cuptiGetGraphExecId(x, &id);
    return id;
}

/* ------------------------------------------------------ self-profile */

/* What the recorder itself costs, per callback kind: how many callbacks
 * and how long inside the recorder's code, written as the 'profile' line
 * at exit (docs/record.md). Each thread counts in a table of its own
 * (no lock, no shared cache line); the tables are summed at exit. Time is
 * read from the CPU's counter (a few ns) and converted to ns with the
 * rate measured between InitializeInjection and exit. */
#define PROF_DRV 0
#define PROF_RT (PROF_DRV + CUPTI_DRIVER_TRACE_CBID_SIZE)
#define PROF_RES (PROF_RT + CUPTI_RUNTIME_TRACE_CBID_SIZE)
#define PROF_WALKING (PROF_RES + CUPTI_CBID_RESOURCE_SIZE) /* the walks' own driver calls */
/* Callbacks of the capture lists with no capture open: returned at once,
 * counted per domain, not timed (the clock read would be most of them). */
#define PROF_IDLE_DRV (PROF_WALKING + 1)
#define PROF_IDLE_RT (PROF_IDLE_DRV + 1)
#define PROF_OTHER (PROF_IDLE_RT + 1)
#define PROF_SLOTS (PROF_OTHER + 1)
typedef struct prof_slot {
    uint64_t count, ticks; /* written by the owner with relaxed stores */
    const char *name;
} prof_slot;
typedef struct prof_table {
    struct prof_table *next;
    prof_slot slot[PROF_SLOTS];
} prof_table;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static prof_table *prof_tables; /* guarded by prof_lock */
/* The counts of threads that have exited (guarded by prof_lock): their
 * tables are folded in here and freed (thread_exit). */
static prof_table prof_retired;
static int prof_on = 1; /* GRAPHRT_RECORD_PROFILE=0 switches the clock reads off */
static uint64_t prof_tick0, prof_ns0;
/* Time spent in rec_walk_wait_graph by destroy callbacks (atomic). */
static uint64_t prof_wait_ticks;
static _Thread_local prof_table *tl_prof;

/* A thread that has a table of its own (profile or launches) has a value
 * for this key, so that thread_exit runs when it exits. */
static pthread_key_t thread_key;
static int thread_key_made;

static void thread_registered(void)
{
    if (thread_key_made && !pthread_getspecific(thread_key))
        pthread_setspecific(thread_key, &thread_key);
}

uint64_t rec_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
#endif
}

static prof_table *prof_table_of_thread(void)
{
    if (!tl_prof) {
        prof_table *t = calloc(1, sizeof *t);
        if (!t)
            return NULL;
        pthread_mutex_lock(&prof_lock);
        t->next = prof_tables;
        prof_tables = t;
        pthread_mutex_unlock(&prof_lock);
        tl_prof = t;
        thread_registered();
    }
    return tl_prof;
}

static size_t prof_index(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && id < CUPTI_DRIVER_TRACE_CBID_SIZE)
        return PROF_DRV + id;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && id < CUPTI_RUNTIME_TRACE_CBID_SIZE)
        return PROF_RT + id;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE && id < CUPTI_CBID_RESOURCE_SIZE)
        return PROF_RES + id;
    return PROF_OTHER;
}

/* One callback of slot i that began at tick t0 (0: not timed). */
static void prof_count(size_t i, const char *name, uint64_t t0)
{
    prof_table *t = prof_table_of_thread();
    if (!t)
        return;
    prof_slot *s = &t->slot[i];
    if (!s->count)
        __atomic_store_n(&s->name, name, __ATOMIC_RELAXED);
    __atomic_store_n(&s->count, s->count + 1, __ATOMIC_RELAXED);
    if (t0)
        __atomic_store_n(&s->ticks, s->ticks + (rec_ticks() - t0), __ATOMIC_RELAXED);
}

static const char *res_name(size_t id)
{
    switch (id) {
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
        return "graph-created";
    case CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING:
        return "graph-destroy";
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
        return "graph-cloned";
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATE_STARTING:
        return "node-create-starting";
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        return "node-created";
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING:
        return "node-destroy";
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED:
        return "edge-created";
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_DESTROY_STARTING:
        return "edge-destroy";
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATE_STARTING:
        return "exec-create-starting";
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
        return "exec-created";
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
        return "exec-destroy";
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
        return "node-cloned";
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
        return "node-updated";
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
        return "exec-node-set";
    default:
        return NULL;
    }
}

double rec_ticks_per_ns(void)
{
    uint64_t dt = rec_ticks() - prof_tick0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t dn = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec - prof_ns0;
    return dn && dt ? (double)dt / (double)dn : 1.0;
}

typedef struct prof_sum {
    uint64_t count, ticks;
    size_t i;
    const char *name;
} prof_sum;

static int prof_cmp(const void *a, const void *b)
{
    const prof_sum *x = a, *y = b;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? 1 : -1;
    return (x->count < y->count) - (x->count > y->count);
}

/* The 'profile' line; rec_lock held, walks stopped. */
static void prof_write(FILE *f)
{
    prof_sum *sum = calloc(PROF_SLOTS, sizeof *sum);
    if (!sum)
        return;
    double tpn = rec_ticks_per_ns();
    uint64_t count = 0, ticks = 0;
    pthread_mutex_lock(&prof_lock);
    prof_retired.next = prof_tables;
    for (prof_table *t = &prof_retired; t; t = t->next)
        for (size_t i = 0; i < PROF_SLOTS; i++) {
            uint64_t c = __atomic_load_n(&t->slot[i].count, __ATOMIC_RELAXED);
            if (!c)
                continue;
            sum[i].count += c;
            sum[i].ticks += __atomic_load_n(&t->slot[i].ticks, __ATOMIC_RELAXED);
            if (!sum[i].name)
                sum[i].name = __atomic_load_n(&t->slot[i].name, __ATOMIC_RELAXED);
        }
    pthread_mutex_unlock(&prof_lock);
    size_t used = 0;
    for (size_t i = 0; i < PROF_SLOTS; i++) {
        count += sum[i].count;
        ticks += sum[i].ticks;
        if (sum[i].count) {
            sum[used] = sum[i];
            sum[used++].i = i;
        }
    }
    fprintf(f, "profile ticks_per_ns=%.4f cb_count=%llu cb_ns=%llu wait_ns=%llu", tpn,
            (unsigned long long)count, (unsigned long long)((double)ticks / tpn),
            (unsigned long long)((double)__atomic_load_n(&prof_wait_ticks, __ATOMIC_RELAXED) / tpn));
    rec_walk_profile(f, tpn);
    /* Each kind as DOMAIN:NAME:COUNT:NS, most time first. */
    qsort(sum, used, sizeof *sum, prof_cmp);
    int first = 1;
    for (size_t k = 0; k < used; k++) {
        size_t i = sum[k].i;
        const char *pre = i < PROF_RT ? "drv:" : i < PROF_RES ? "rt:" : i < PROF_WALKING ? "res:" : "";
        const char *name = i >= PROF_RES && i < PROF_WALKING ? res_name(i - PROF_RES) : sum[k].name;
        if (i == PROF_WALKING)
            name = "walk-calls";
        else if (i == PROF_IDLE_DRV)
            name = "drv:idle";
        else if (i == PROF_IDLE_RT)
            name = "rt:idle";
        else if (i == PROF_OTHER)
            name = "other";
        fputs(first ? " cb=" : ",", f);
        if (name)
            fprintf(f, "%s%s", pre, name);
        else
            fprintf(f, "%s%zu", pre, i < PROF_RT ? i : i < PROF_RES ? i - PROF_RT : i - PROF_RES);
        fprintf(f, ":%llu:%llu", (unsigned long long)sum[k].count,
                (unsigned long long)((double)sum[k].ticks / tpn));
        first = 0;
    }
    fputc('\n', f);
    free(sum);
}

/* ---------------------------------------------------------- launches */

/* Launch counts per (executable, stream). Each thread counts its own
 * launches in a table of its own without a lock: a slot is published by
 * its owner ('used', release) and its count is added to atomically; the
 * writer of any other line (rec_log_begin, under rec_lock) takes every
 * count pending in every table (an atomic exchange) and writes it as a
 * 'launch' line first. A launch that happened before a line on any thread
 * (the same thread, or one that synchronised with it) has made its count
 * and 'launch_pending' visible by then, so the order the stale-pointer
 * check needs holds. An executable's destruction bumps 'exec_epoch'; a
 * thread that sees the epoch changed clears its table under rec_lock
 * (after the counts are written) before counting again, so a new
 * executable at the same address starts its own counts. */
#define TSLOTS_LAUNCH 32
typedef struct tlaunch {
    CUgraphExec x;
    CUstream s;
    uint32_t xid;
    uint64_t pending; /* atomic */
} tlaunch;
typedef struct launch_table {
    struct launch_table *next;
    unsigned used; /* slots published; atomic */
    unsigned epoch;
    unsigned last; /* the slot of the last launch: the usual hit */
    tlaunch slot[TSLOTS_LAUNCH];
} launch_table;
static launch_table *launch_tables; /* guarded by rec_lock (the list; the tables are their threads') */
static int launch_pending;          /* atomic: some table has a count not yet written */
static unsigned exec_epoch;         /* atomic */
static _Thread_local launch_table *tl_launches;

/* Launch counts per (executable, stream) where a thread's table is full,
 * guarded by rec_lock. An open-addressed table; 'dirty' lists the slots
 * with a count not yet written. */
#define LSLOTS 4096
typedef struct lslot {
    CUgraphExec x;
    CUstream s;
    uint32_t xid;
    uint64_t pending;
} lslot;
static lslot lslots[LSLOTS];
static unsigned dirty[LSLOTS], ndirty;
static unsigned nlslots; /* slots ever taken: none, no scan at a destroy */
static uint64_t lost_launches;

static void put_launch(CUstream s, uint32_t xid, uint64_t count)
{
    if (rec_out)
        fprintf(rec_out, "launch x=%u s=%p count=%llu\n", xid, (void *)s, (unsigned long long)count);
}

/* rec_lock held. */
static void flush_launches(void)
{
    if (__atomic_exchange_n(&launch_pending, 0, __ATOMIC_ACQ_REL))
        for (launch_table *t = launch_tables; t; t = t->next) {
            unsigned used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
            for (unsigned i = 0; i < used; i++) {
                uint64_t c = __atomic_exchange_n(&t->slot[i].pending, 0, __ATOMIC_ACQ_REL);
                if (c)
                    put_launch(t->slot[i].s, t->slot[i].xid, c);
            }
        }
    for (unsigned i = 0; i < ndirty; i++) {
        lslot *l = &lslots[dirty[i]];
        put_launch(l->s, l->xid, l->pending);
        l->pending = 0;
    }
    ndirty = 0;
}

#define TOMB ((CUgraphExec)(uintptr_t)1)

/* Counts a launch in the shared table (a thread's own is full). */
static void count_launch_shared(CUgraphExec x, CUstream s)
{
    size_t h = (((uintptr_t)x >> 4) * 31u + ((uintptr_t)s >> 4)) & (LSLOTS - 1);
    lslot *tomb = NULL;
    pthread_mutex_lock(&rec_lock);
    for (size_t k = 0; k < LSLOTS; k++, h = (h + 1) & (LSLOTS - 1)) {
        lslot *l = &lslots[h];
        if (l->x == TOMB && !tomb)
            tomb = l;
        if (!l->x || (l->x == x && l->s == s)) {
            if (!l->x) {
                /* Not counted yet: take the first tombstone passed, else this slot. */
                l = tomb ? tomb : l;
                nlslots++;
                l->x = x;
                l->s = s;
                l->xid = rec_exec_id(x);
                l->pending = 0;
            }
            if (!l->pending++)
                dirty[ndirty++] = (unsigned)(l - lslots);
            pthread_mutex_unlock(&rec_lock);
            return;
        }
    }
    if (tomb) {
        tomb->x = x;
        tomb->s = s;
        tomb->xid = rec_exec_id(x);
        tomb->pending = 1;
        dirty[ndirty++] = (unsigned)(tomb - lslots);
    } else {
        lost_launches++;
    }
    pthread_mutex_unlock(&rec_lock);
}

/* This thread's table, created or (after an executable was destroyed)
 * cleared; NULL without memory. */
static launch_table *launch_table_of_thread(void)
{
    launch_table *t = tl_launches;
    unsigned e = __atomic_load_n(&exec_epoch, __ATOMIC_ACQUIRE);
    if (t && t->epoch == e)
        return t;
    pthread_mutex_lock(&rec_lock);
    if (!t) {
        t = calloc(1, sizeof *t);
        if (t) {
            t->next = launch_tables;
            launch_tables = t;
            tl_launches = t;
            thread_registered();
        }
    } else if (rec_out) {
        flush_launches(); /* what this table holds is written before it is cleared */
        __atomic_store_n(&t->used, 0, __ATOMIC_RELEASE);
        t->last = 0;
    }
    if (t)
        t->epoch = e;
    pthread_mutex_unlock(&rec_lock);
    return t;
}

static void count_launch(CUgraphExec x, CUstream s)
{
    launch_table *t = launch_table_of_thread();
    if (!t) {
        count_launch_shared(x, s);
        return;
    }
    unsigned used = t->used, i = t->last;
    if (i >= used || t->slot[i].x != x || t->slot[i].s != s)
        for (i = 0; i < used && (t->slot[i].x != x || t->slot[i].s != s); i++)
            ;
    if (i == used) {
        if (used == TSLOTS_LAUNCH) {
            count_launch_shared(x, s);
            return;
        }
        t->slot[i].x = x;
        t->slot[i].s = s;
        t->slot[i].xid = rec_exec_id(x);
        t->slot[i].pending = 0;
        __atomic_store_n(&t->used, used + 1, __ATOMIC_RELEASE);
    }
    t->last = i;
    if (__atomic_fetch_add(&t->slot[i].pending, 1, __ATOMIC_ACQ_REL) == 0 &&
        !__atomic_load_n(&launch_pending, __ATOMIC_RELAXED))
        __atomic_store_n(&launch_pending, 1, __ATOMIC_RELEASE);
}

/* An executable destroyed: its counts are written and forgotten, so that a
 * later executable at the same address starts its own counts. */
static void forget_exec(CUgraphExec x)
{
    pthread_mutex_lock(&rec_lock);
    __atomic_add_fetch(&exec_epoch, 1, __ATOMIC_ACQ_REL);
    flush_launches();
    for (size_t h = 0; nlslots && h < LSLOTS; h++)
        if (lslots[h].x == x)
            lslots[h].x = TOMB; /* keeps probe chains; count_launch_shared reuses it */
    pthread_mutex_unlock(&rec_lock);
}

/* A thread with tables of its own exits (thread_key's destructor): its
 * launch counts are written and its profile counts kept, and the tables
 * freed, so that a program that makes many short threads does not grow. */
static void thread_exit(void *unused)
{
    (void)unused;
    launch_table *lt = tl_launches;
    if (lt) {
        pthread_mutex_lock(&rec_lock);
        flush_launches();
        for (launch_table **p = &launch_tables; *p; p = &(*p)->next)
            if (*p == lt) {
                *p = lt->next;
                break;
            }
        pthread_mutex_unlock(&rec_lock);
        tl_launches = NULL;
        free(lt);
    }
    prof_table *pt = tl_prof;
    if (pt) {
        pthread_mutex_lock(&prof_lock);
        for (prof_table **p = &prof_tables; *p; p = &(*p)->next)
            if (*p == pt) {
                *p = pt->next;
                break;
            }
        for (size_t i = 0; i < PROF_SLOTS; i++) {
            prof_slot *r = &prof_retired.slot[i];
            if (!pt->slot[i].count)
                continue;
            if (!r->name)
                r->name = pt->slot[i].name;
            r->count += pt->slot[i].count;
            r->ticks += pt->slot[i].ticks;
        }
        pthread_mutex_unlock(&prof_lock);
        tl_prof = NULL;
        free(pt);
    }
}

/* --------------------------------------------------------------- log */

void rec_log_begin(void)
{
    pthread_mutex_lock(&rec_lock);
    if (ndirty || __atomic_load_n(&launch_pending, __ATOMIC_ACQUIRE))
        flush_launches();
}

void rec_log_end(void)
{
    pthread_mutex_unlock(&rec_lock);
}

void rec_logf(const char *fmt, ...)
{
    va_list ap;
    rec_log_begin();
    if (rec_out) {
        va_start(ap, fmt);
        vfprintf(rec_out, fmt, ap);
        va_end(ap);
    }
    rec_log_end();
}

/* A line built without stdio's formatting, for the callbacks made once per
 * captured node (docs/record.md's fields; %p's form for handles). */
typedef struct lbuf {
    size_t n;
    char b[480];
} lbuf;

static void lb_s(lbuf *l, const char *s)
{
    size_t k = s ? strlen(s) : 0, room = sizeof l->b - 1 - l->n;
    k = k < room ? k : room;
    memcpy(l->b + l->n, s, k);
    l->n += k;
}

static void lb_u(lbuf *l, unsigned long long v)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k && l->n < sizeof l->b - 1)
        l->b[l->n++] = t[--k];
}

static void lb_p(lbuf *l, const void *p)
{
    uintptr_t v = (uintptr_t)p;
    if (!v) {
        lb_s(l, "(nil)");
        return;
    }
    char t[24];
    int k = 0;
    while (v) {
        t[k++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    }
    lb_s(l, "0x");
    while (k && l->n < sizeof l->b - 1)
        l->b[l->n++] = t[--k];
}

static void lb_put(lbuf *l)
{
    l->b[l->n++] = '\n';
    rec_log_begin();
    if (rec_out)
        fwrite_unlocked(l->b, 1, l->n, rec_out);
    rec_log_end();
}

/* ------------------------------------------------- conditional handles */

#define CSLOTS 1024
static struct {
    CUgraphConditionalHandle h;
    unsigned dflt, flags;
} conds[CSLOTS];
static unsigned nconds;

void rec_cond_note(CUgraphConditionalHandle h, unsigned dflt, unsigned flags)
{
    pthread_mutex_lock(&rec_lock);
    unsigned i = nconds < CSLOTS ? nconds++ : (unsigned)(h % CSLOTS);
    conds[i].h = h;
    conds[i].dflt = dflt;
    conds[i].flags = flags;
    pthread_mutex_unlock(&rec_lock);
}

int rec_cond_find(CUgraphConditionalHandle h, unsigned *dflt, unsigned *flags)
{
    int found = 0;
    pthread_mutex_lock(&rec_lock);
    for (unsigned i = nconds; i-- > 0 && !found;)
        if (conds[i].h == h) {
            *dflt = conds[i].dflt;
            *flags = conds[i].flags;
            found = 1;
        }
    pthread_mutex_unlock(&rec_lock);
    return found;
}

/* Conditional nodes by node handle, guarded by rec_lock; a small table
 * overwritten round-robin when full (a walk then says 'unknown'). */
#define NSLOTS 1024
static struct {
    CUgraphNode n;
    rec_condnode c;
} * cnodes;
static unsigned ncnodes;

void rec_condnode_note(CUgraphNode n, const CUDA_CONDITIONAL_NODE_PARAMS *p)
{
    pthread_mutex_lock(&rec_lock);
    if (!cnodes)
        cnodes = calloc(NSLOTS, sizeof *cnodes);
    if (cnodes) {
        unsigned i = ncnodes++ % NSLOTS;
        cnodes[i].n = n;
        cnodes[i].c.handle = p->handle;
        cnodes[i].c.type = p->type;
        cnodes[i].c.size = p->size;
        for (unsigned b = 0; b < p->size && b < REC_COND_BODIES; b++)
            cnodes[i].c.body[b] = p->phGraph_out ? p->phGraph_out[b] : NULL;
    }
    pthread_mutex_unlock(&rec_lock);
}

unsigned rec_condnode_find(CUgraphNode n, rec_condnode *out)
{
    unsigned size = 0;
    pthread_mutex_lock(&rec_lock);
    unsigned have = ncnodes < NSLOTS ? ncnodes : NSLOTS;
    for (unsigned i = 0; cnodes && i < have && !size; i++)
        if (cnodes[i].n == n) {
            *out = cnodes[i].c;
            size = out->size;
        }
    pthread_mutex_unlock(&rec_lock);
    return size;
}

/* ------------------------------------------------------------ timing */

/* Per graph node: GPU time of each run, from CUPTI activity records;
 * guarded by rec_lock. Written as 'time' lines at exit. */
#define TSLOTS 16384
typedef struct tslot {
    uint64_t node;
    uint32_t graph;
    const char *kind;
    uint64_t count, total, min, max;
} tslot;
static tslot *tslots;

static void time_add(uint64_t node, uint32_t graph, const char *kind, uint64_t ns)
{
    if (!node || !tslots)
        return;
    size_t h = (size_t)(node * 0x9e3779b97f4a7c15ull) & (TSLOTS - 1);
    for (size_t k = 0; k < TSLOTS; k++, h = (h + 1) & (TSLOTS - 1)) {
        tslot *t = &tslots[h];
        if (!t->node) {
            t->node = node;
            t->graph = graph;
            t->kind = kind;
            t->min = ns;
        }
        if (t->node == node) {
            t->count++;
            t->total += ns;
            t->min = ns < t->min ? ns : t->min;
            t->max = ns > t->max ? ns : t->max;
            return;
        }
    }
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *maxRecords)
{
    *size = 8 << 20;
    *buffer = aligned_alloc(8, *size);
    *maxRecords = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t streamId, uint8_t *buffer, size_t size,
                                   size_t valid)
{
    (void)ctx;
    (void)streamId;
    (void)size;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&rec_lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
            time_add(k->graphNodeId, k->graphId, "kernel", k->end - k->start);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
            time_add(m->graphNodeId, m->graphId, "memcpy", m->end - m->start);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
            time_add(m->graphNodeId, m->graphId, "memset", m->end - m->start);
            break;
        }
        default:
            break;
        }
    }
    pthread_mutex_unlock(&rec_lock);
    free(buffer);
}

/* --------------------------------------------------------- callbacks */

static uint64_t clock_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static const char *mode_word(int m)
{
    switch (m) {
    case CU_STREAM_CAPTURE_MODE_GLOBAL:
        return "global";
    case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
        return "thread";
    case CU_STREAM_CAPTURE_MODE_RELAXED:
        return "relaxed";
    }
    return "unknown";
}

/* Event records and waits seen by the runtime domain (during captures),
 * logged only where no driver callback inside the runtime call logged
 * them (the runtime may reach the driver without one). */
static void rt_events(CUpti_CallbackId id, const void *p, const char *call)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
        rec_logf("event-record e=%p s=%p t=%u call=%s\n",
                 (void *)((const cudaEventRecord_v3020_params *)p)->event,
                 (void *)((const cudaEventRecord_v3020_params *)p)->stream, rec_tid(), call);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        rec_logf("event-wait s=%p e=%p t=%u call=%s\n",
                 (void *)((const cudaStreamWaitEvent_v3020_params *)p)->stream,
                 (void *)((const cudaStreamWaitEvent_v3020_params *)p)->event, rec_tid(), call);
        break;
    default:
        break;
    }
}

/* The call in progress on this thread: the runtime call if one of the
 * capture list was entered while a capture was open, else the driver's. */
static const char *call_name(void)
{
    if (tl_rt_call)
        return tl_rt_call;
    if (tl_call)
        return tl_call;
    return "-";
}

static void on_resource(CUpti_CallbackId id, const CUpti_ResourceData *rd)
{
    /* The domain also reports contexts, streams and modules, some of them
     * (from cuInit) with no data at all: only graph callbacks carry a
     * CUpti_GraphData. */
    if (id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
        rec_walk_module_unloaded();
    if (id < CUPTI_CBID_RESOURCE_GRAPH_CREATED || !rd || !rd->resourceDescriptor)
        return;
    const CUpti_GraphData *gd = (const CUpti_GraphData *)rd->resourceDescriptor;
    /* A node made or updated makes the next walk of a graph necessary.
     * Edges, clones and node removals have no callback here (calls.c's
     * 'resource' list says why); the explicit calls that change edges or
     * remove nodes do the same from their driver callbacks. */
    switch (id) {
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
        if (!tl_instantiating)
            rec_walk_mutated();
        break;
    default:
        break;
    }
    switch (id) {
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
        /* Inside cuStreamBeginCapture*: the capture's graph. */
        tl_graph_made = rec_graph_id(gd->graph);
        rec_logf("graph-create g=%u t=%u call=%s\n", tl_graph_made, rec_tid(), call_name());
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
        rec_logf("graph-clone g=%u from=%u t=%u call=%s\n", rec_graph_id(gd->graph),
                 rec_graph_id(gd->originalGraph), rec_tid(), call_name());
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING: {
        uint64_t w0 = prof_on ? rec_ticks() : 0;
        rec_walk_wait_graph(gd->graph);
        if (w0)
            __atomic_add_fetch(&prof_wait_ticks, rec_ticks() - w0, __ATOMIC_RELAXED);
        rec_logf("graph-destroy g=%u t=%u\n", rec_graph_id(gd->graph), rec_tid());
        /* Its address may name a new graph next. */
        __atomic_add_fetch(&graph_epoch, 1, __ATOMIC_RELEASE);
        break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        /* The driver's own copies of a graph, made inside an instantiation
         * (about two nodes a node on CUDA 13.0), belong to no graph of the
         * program: no line, which was most of an instantiation's cost. */
        if (tl_instantiating)
            break;
        if (!tl_has_stream && tl_has_rt_stream && tl_rt_call) {
            tl_stream = tl_rt_stream;
            tl_has_stream = 1;
        }
        {
            /* Once per captured node: built by hand, not by vfprintf. */
            lbuf l;
            l.n = 0;
            lb_s(&l, "node-create g=");
            lb_u(&l, graph_id_cached(gd->graph));
            lb_s(&l, " n=");
            lb_u(&l, rec_node_id(gd->node));
            lb_s(&l, " type=");
            if ((int)gd->nodeType < 0) {
                lb_s(&l, "-");
                lb_u(&l, (unsigned long long)-(long long)gd->nodeType);
            } else {
                lb_u(&l, (unsigned long long)gd->nodeType);
            }
            lb_s(&l, " t=");
            lb_u(&l, rec_tid());
            lb_s(&l, " call=");
            lb_s(&l, call_name());
            if (tl_has_stream) {
                lb_s(&l, " s=");
                lb_p(&l, tl_stream);
            }
            lb_put(&l);
        }
        break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: {
        uint32_t x = rec_exec_id(gd->graphExec);
        rec_logf("exec-create x=%u g=%u t=%u call=%s\n", x, rec_graph_id(gd->graph), rec_tid(), call_name());
        rec_walk_request(gd->graph, rd->context, "instantiate", x);
        break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
        forget_exec(gd->graphExec);
        rec_logf("exec-destroy x=%u\n", rec_exec_id(gd->graphExec));
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
        rec_logf("exec-node-set x=%u n=%llu\n", rec_exec_id(gd->graphExec),
                 (unsigned long long)rec_node_id(gd->node));
        break;
    default:
        break;
    }
}

/* The first two parameters of every cuGraphExec*SetParams. */
typedef struct setter_params {
    CUgraphExec x;
    CUgraphNode n;
} setter_params;

/* A cuGraphInstantiate* call: the driver's nodes made meanwhile belong
 * to its copies of the graph (tl_instantiating), and its exit logs the
 * executable. */
static int is_instantiate(CUpti_CallbackId id)
{
    return id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2 ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams ||
           id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz;
}

static void log_instantiate(CUpti_CallbackId id, const void *p, CUresult rc, unsigned t)
{
    const cuGraphInstantiateWithFlags_params *a = p;
    unsigned long long flags = 0;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags)
        flags = a->flags;
    else if (id != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate &&
             id != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2)
        flags = ((const cuGraphInstantiateWithParams_params *)p)->instantiateParams->flags;
    rec_logf("instantiate x=%u g=%u rc=%d flags=%llu t=%u call=%s\n",
             rc == CUDA_SUCCESS ? rec_exec_id(*a->phGraphExec) : 0, rec_graph_id(a->hGraph), (int)rc, flags,
             t, call_name());
}

/* Any call that a capture refused (CUDA_ERROR_STREAM_CAPTURE_*): the
 * first one names the call that invalidated a capture. */
static void log_capture_error(const CUpti_CallbackData *cb, CUresult rc, unsigned t)
{
    if (rc < CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED || rc > CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
        return;
    if (tl_has_stream)
        rec_logf("capture-error call=%s rc=%d t=%u mode=%s s=%p\n", cb->functionName, (int)rc, t,
                 mode_word(tl_mode), (void *)tl_stream);
    else
        rec_logf("capture-error call=%s rc=%d t=%u mode=%s\n", cb->functionName, (int)rc, t,
                 mode_word(tl_mode));
}

static void on_driver_exit(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    CUresult rc = cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
    unsigned t = rec_tid();
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetAttribute:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeCopyAttributes:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphMemcpyNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphMemsetNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphEventRecordNodeSetEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphEventWaitNodeSetEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphBatchMemOpNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresSignalNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExternalSemaphoresWaitNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddDependencies:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddDependencies_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphRemoveDependencies:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphRemoveDependencies_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphDestroyNode:
        rec_walk_mutated();
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        const cuMemAlloc_v2_params *a = p;
        if (rc == CUDA_SUCCESS) {
            rec_walk_alloc(*a->dptr, a->bytesize, "device");
            rec_logf("alloc p=0x%llx size=%zu kind=device call=%s t=%u\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        const cuMemAllocPitch_v2_params *a = p;
        if (rc == CUDA_SUCCESS) {
            rec_walk_alloc(*a->dptr, *a->pPitch * a->Height, "device");
            rec_logf("alloc p=0x%llx size=%zu kind=device call=%s t=%u\n", (unsigned long long)*a->dptr,
                     *a->pPitch * a->Height, call_name(), t);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *a = p;
        if (rc == CUDA_SUCCESS) {
            rec_walk_alloc((CUdeviceptr)(uintptr_t)*a->pp, a->bytesize, "pinned");
            rec_logf("alloc p=%p size=%zu kind=pinned call=%s t=%u\n", *a->pp, a->bytesize, call_name(), t);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
        const cuMemHostAlloc_params *a = p;
        if (rc == CUDA_SUCCESS) {
            rec_walk_alloc((CUdeviceptr)(uintptr_t)*a->pp, a->bytesize, "pinned");
            rec_logf("alloc p=%p size=%zu kind=pinned call=%s t=%u\n", *a->pp, a->bytesize, call_name(), t);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *a = p;
        if (rc == CUDA_SUCCESS) {
            rec_walk_alloc(*a->dptr, a->bytesize, "managed");
            rec_logf("alloc p=0x%llx size=%zu kind=managed call=%s t=%u\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        const cuMemAllocAsync_params *a = p;
        if (rc == CUDA_SUCCESS) {
            /* Inside a capture it makes graph memory, not a pool's. */
            if (!__atomic_load_n(&captures, __ATOMIC_ACQUIRE))
                rec_walk_alloc(*a->dptr, a->bytesize, "pool");
            rec_logf("alloc p=0x%llx size=%zu kind=pool call=%s t=%u s=%p\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t, (void *)a->hStream);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        const cuMemAllocFromPoolAsync_params *a = p;
        if (rc == CUDA_SUCCESS) {
            /* Inside a capture it makes graph memory, not a pool's. */
            if (!__atomic_load_n(&captures, __ATOMIC_ACQUIRE))
                rec_walk_alloc(*a->dptr, a->bytesize, "pool");
            rec_logf("alloc p=0x%llx size=%zu kind=pool call=%s t=%u s=%p\n", (unsigned long long)*a->dptr,
                     a->bytesize, call_name(), t, (void *)a->hStream);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
        const cuMemHostRegister_v2_params *a = p;
        if (rc == CUDA_SUCCESS) {
            /* cuPointerGetAttributes calls registered memory host memory. */
            rec_walk_alloc((CUdeviceptr)(uintptr_t)a->p, a->bytesize, "pinned");
            rec_logf("alloc p=%p size=%zu kind=registered call=%s t=%u\n", a->p, a->bytesize, call_name(), t);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree:
        rec_walk_memory_freed();
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        if (rc == CUDA_SUCCESS) {
            rec_walk_freed(((const cuMemFree_v2_params *)p)->dptr);
            rec_logf("free p=0x%llx call=%s t=%u\n",
                     (unsigned long long)((const cuMemFree_v2_params *)p)->dptr, call_name(), t);
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
        if (rc == CUDA_SUCCESS) {
            rec_walk_freed((CUdeviceptr)(uintptr_t)((const cuMemFreeHost_params *)p)->p);
            rec_logf("free p=%p call=%s t=%u\n", ((const cuMemFreeHost_params *)p)->p, call_name(), t);
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
        if (rc == CUDA_SUCCESS) {
            rec_walk_freed((CUdeviceptr)(uintptr_t)((const cuMemHostUnregister_params *)p)->p);
            rec_logf("free p=%p call=%s t=%u\n", ((const cuMemHostUnregister_params *)p)->p, call_name(), t);
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
        const cuMemFreeAsync_params *a = p;
        if (rc == CUDA_SUCCESS) {
            rec_walk_freed(a->dptr);
            rec_logf("free p=0x%llx call=%s t=%u s=%p\n", (unsigned long long)a->dptr, call_name(), t,
                     (void *)a->hStream);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemPoolTrimTo: {
        const cuMemPoolTrimTo_params *a = p;
        rec_walk_memory_freed();
        rec_logf("trim pool=%p keep=%zu call=%s t=%u rc=%d\n", (void *)a->pool, a->minBytesToKeep,
                 call_name(), t, (int)rc);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz: {
        CUstream s = ((const cuStreamBeginCapture_params *)p)->hStream;
        int mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
        uint32_t into = 0;
        if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
            id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz)
            mode = (int)((const cuStreamBeginCapture_v2_params *)p)->mode;
        if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph ||
            id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz) {
            mode = (int)((const cuStreamBeginCaptureToGraph_params *)p)->mode;
            into = rec_graph_id(((const cuStreamBeginCaptureToGraph_params *)p)->hGraph);
        }
        /* g: the graph the capture builds (made inside this call, or the
         * one captured into). */
        rec_logf("capture-begin s=%p mode=%s rc=%d t=%u call=%s into=%u g=%u\n", (void *)s, mode_word(mode),
                 (int)rc, t, call_name(), into, rc == CUDA_SUCCESS ? (into ? into : tl_graph_made) : 0);
        if (rc == CUDA_SUCCESS)
            __atomic_add_fetch(&captures, 1, __ATOMIC_ACQ_REL);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz: {
        const cuStreamEndCapture_params *a = p;
        CUgraph g = a->phGraph ? *a->phGraph : NULL;
        rec_logf("capture-end s=%p g=%u rc=%d t=%u call=%s\n", (void *)a->hStream,
                 rc == CUDA_SUCCESS ? rec_graph_id(g) : 0, (int)rc, t, call_name());
        /* An end that fails for a stream that was not capturing closes
         * nothing; any other end closes the capture. */
        if (rc != CUDA_ERROR_ILLEGAL_STATE && rc != CUDA_ERROR_INVALID_VALUE &&
            rc != CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD && __atomic_load_n(&captures, __ATOMIC_ACQUIRE) > 0)
            __atomic_sub_fetch(&captures, 1, __ATOMIC_ACQ_REL);
        if (rc == CUDA_SUCCESS && g)
            rec_walk_request(g, cb->context, "capture", 0);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2: {
        const cuGraphExecUpdate_v2_params *a = p;
        const CUgraphExecUpdateResultInfo *ri = a->resultInfo;
        uint32_t x = rec_exec_id(a->hGraphExec);
        rec_logf("update x=%u g=%u rc=%d result=%d errnode=%llu errfrom=%llu t=%u\n", x,
                 rec_graph_id(a->hGraph), (int)rc, ri ? (int)ri->result : -1,
                 ri ? (unsigned long long)rec_node_id(ri->errorNode) : 0ull,
                 ri ? (unsigned long long)rec_node_id(ri->errorFromNode) : 0ull, t);
        rec_walk_request(a->hGraph, cb->context, "update", x);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams: {
        const setter_params *a = p;
        rec_logf("set x=%u n=%llu call=%s rc=%d t=%u\n", rec_exec_id(a->x),
                 (unsigned long long)rec_node_id(a->n), cb->functionName, (int)rc, t);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphConditionalHandleCreate: {
        const cuGraphConditionalHandleCreate_params *a = p;
        if (rc == CUDA_SUCCESS)
            rec_cond_note(*a->pHandle_out, a->defaultLaunchValue, a->flags);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode: {
        const cuGraphAddNode_params *a = p;
        if (rc == CUDA_SUCCESS && a->nodeParams->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            rec_condnode_note(*a->phGraphNode, &a->nodeParams->conditional);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2: {
        const cuGraphAddNode_v2_params *a = p;
        if (rc == CUDA_SUCCESS && a->nodeParams->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            rec_condnode_note(*a->phGraphNode, &a->nodeParams->conditional);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
        if (rc == CUDA_SUCCESS) {
            rec_logf("event-record e=%p s=%p t=%u call=%s\n",
                     (void *)((const cuEventRecord_params *)p)->hEvent,
                     (void *)((const cuEventRecord_params *)p)->hStream, t, call_name());
            tl_rt_event_logged = 1;
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        if (rc == CUDA_SUCCESS) {
            rec_logf("event-wait s=%p e=%p t=%u call=%s\n",
                     (void *)((const cuStreamWaitEvent_params *)p)->hStream,
                     (void *)((const cuStreamWaitEvent_params *)p)->hEvent, t, call_name());
            tl_rt_event_logged = 1;
        }
        break;
    default:
        if (is_instantiate(id))
            log_instantiate(id, p, rc, t);
        break;
    }
    log_capture_error(cb, rc, t);
}

/* A graph launch, the hot path: what the generic path does for it and no
 * more (it asks for no walk and holds no node). */
static void on_launch(const CUpti_CallbackData *cb)
{
    const cuGraphLaunch_params *a = cb->functionParams;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        tl_call = cb->functionName;
        tl_stream = a->hStream;
        tl_has_stream = 1;
        tl_instantiating = 0;
        return;
    }
    CUresult rc = cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS)
        count_launch(a->hGraph, a->hStream);
    else
        log_capture_error(cb, rc, rec_tid());
    tl_call = NULL;
    tl_has_stream = 0;
}

static void on_runtime(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    if (cb->callbackSite == CUPTI_API_ENTER) {
        tl_rt_call = cb->functionName;
        tl_has_rt_stream = rec_rt_call_stream(id, cb->functionParams, &tl_rt_stream);
        tl_rt_event_logged = 0;
        return;
    }
    int rc = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
    if (rc == 0 && !tl_rt_event_logged)
        rt_events(id, cb->functionParams, cb->functionName);
    if (rc >= 900 && rc <= 908)
        rec_logf("capture-error call=%s rc=%d t=%u mode=%s runtime=1\n", cb->functionName, rc, rec_tid(),
                 mode_word(tl_mode));
    tl_rt_call = NULL;
    tl_has_rt_stream = 0;
    tl_rt_event_logged = 0;
}

static void on_driver(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        on_launch(cb);
        return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
        tl_call = cb->functionName;
        tl_has_stream = rec_call_stream(id, cb->functionParams, &tl_stream);
        tl_instantiating = is_instantiate(id);
        tl_graph_made = 0;
        if (id == CUPTI_DRIVER_TRACE_CBID_cuThreadExchangeStreamCaptureMode) {
            const cuThreadExchangeStreamCaptureMode_params *a = cb->functionParams;
            tl_mode = (int)*a->mode;
        }
        return;
    }
    on_driver_exit(id, cb);
    rec_walk_flush();
    tl_call = NULL;
    tl_has_stream = 0;
    tl_instantiating = 0;
}

/* Out of line, so that the idle path of on_callback stays a leaf with no
 * frame to set up. */
static __attribute__((noinline)) void on_callback_work(CUpti_CallbackDomain dom, CUpti_CallbackId id,
                                                       const void *data);

/* A graph launch with no capture open, the hottest path: straight to
 * on_launch. */
static __attribute__((noinline)) void launch_callback(CUpti_CallbackId id, const CUpti_CallbackData *cb)
{
    if (!rec_out || rec_walking)
        return;
    uint64_t t0 = prof_on ? rec_ticks() : 0;
    on_launch(cb);
    prof_count(PROF_DRV + id, cb->functionName, t0);
}

/* Every callback comes here. A call of the capture lists with no capture
 * open has nothing to do: its enter returns at once, and so does its exit
 * where the enter found no capture open either (it left nothing to
 * clear). That is the path every such call pays outside captures (a
 * kernel launch outside a capture is four callbacks: the runtime's and
 * the driver's, enter and exit), so it is a load of 'captures', a look at
 * the call, and a count in this thread's profile table. */
static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud;
    if (!__atomic_load_n(&captures, __ATOMIC_RELAXED) && dom != CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_CallbackData *cb = data;
        size_t slot = 0;
        if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
            if (cb->callbackSite == CUPTI_API_ENTER || !tl_rt_call)
                slot = PROF_IDLE_RT;
        } else if (id < CUPTI_DRIVER_TRACE_CBID_SIZE) {
            unsigned char kind = rec_drv_kind[id];
            if (kind == REC_CALL_CAPTURE && (cb->callbackSite == CUPTI_API_ENTER || !tl_call)) {
                slot = PROF_IDLE_DRV;
            } else if (kind == REC_CALL_LAUNCH) {
                launch_callback(id, cb);
                return;
            }
        }
        if (slot) {
            prof_table *t = tl_prof;
            if (t)
                __atomic_store_n(&t->slot[slot].count, t->slot[slot].count + 1, __ATOMIC_RELAXED);
            else
                prof_count(slot, NULL, 0);
            return;
        }
    }
    on_callback_work(dom, id, data);
}

static __attribute__((noinline)) void on_callback_work(CUpti_CallbackDomain dom, CUpti_CallbackId id,
                                                       const void *data)
{
    if (!rec_out)
        return;
    uint64_t t0 = prof_on ? rec_ticks() : 0;
    if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        on_resource(id, (const CUpti_ResourceData *)data);
        prof_count(prof_index(dom, id), NULL, t0);
        return;
    }
    if (rec_walking) {
        /* A walk's own query call (none is subscribed to; kept for one
         * that a later list would add). */
        prof_count(PROF_WALKING, NULL, 0);
        return;
    }
    const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
        on_runtime(id, cb);
    else if (dom == CUPTI_CB_DOMAIN_DRIVER_API)
        on_driver(id, cb);
    prof_count(prof_index(dom, id), cb->functionName, t0);
}

/* ------------------------------------------------------ start, finish */

static void finish(void)
{
    if (!rec_out)
        return;
    if (timing)
        cuptiActivityFlushAll(1);
    rec_walk_stop();
    rec_log_begin();
    for (size_t i = 0; tslots && i < TSLOTS; i++)
        if (tslots[i].node)
            fprintf(rec_out, "time n=%llu g=%u kind=%s count=%llu total_ns=%llu min_ns=%llu max_ns=%llu\n",
                    (unsigned long long)tslots[i].node, tslots[i].graph, tslots[i].kind,
                    (unsigned long long)tslots[i].count, (unsigned long long)tslots[i].total,
                    (unsigned long long)tslots[i].min, (unsigned long long)tslots[i].max);
    prof_write(rec_out);
    fprintf(rec_out, "end lost_launches=%llu\n", (unsigned long long)lost_launches);
    fclose(rec_out);
    rec_out = NULL;
    rec_log_end();
}

static void put_cmdline(FILE *f)
{
    FILE *c = fopen("/proc/self/cmdline", "rb");
    fputs(" argv=\"", f);
    int ch, sep = 0;
    while (c && (ch = fgetc(c)) != EOF) {
        if (ch == 0) {
            sep = 1; /* a space, written only if another word follows */
            continue;
        }
        if (sep)
            fputs("\\x20", f);
        sep = 0;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch <= ' ' || ch > '~')
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
    fputs("\"", f);
    if (c)
        fclose(c);
}

/* The driver calls this from cuInit when the library is named by
 * CUDA_INJECTION64_PATH. Returns 1 on success, as CUPTI's samples do. */
__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
    static int done;
    if (done++)
        return 1;
    thread_key_made = pthread_key_create(&thread_key, thread_exit) == 0;
    prof_tick0 = rec_ticks();
    prof_ns0 = clock_ns(CLOCK_MONOTONIC);
    const char *dir = getenv("GRAPHRT_RECORD_DIR");
    if (!dir || !*dir)
        dir = "graphrt-record";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "graphrt record: cannot create '%s': %s\n", dir, strerror(errno));
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/callbacks-%d.log", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "graphrt record: cannot write '%s': %s\n", path, strerror(errno));
        return 0;
    }
    static char fbuf[1 << 16];
    setvbuf(f, fbuf, _IOFBF, sizeof fbuf);
    const char *tm = getenv("GRAPHRT_RECORD_TIMING");
    timing = tm && *tm && strcmp(tm, "0") != 0;
    fprintf(f, "graphrt-record 1\nprocess pid=%d timing=%d", (int)getpid(), timing);
    put_cmdline(f);
    fputc('\n', f);
    rec_out = f;
    if (cuptiSubscribe(&sub, on_callback, NULL) != CUPTI_SUCCESS) {
        fprintf(stderr, "graphrt record: cuptiSubscribe failed (is another CUPTI tool attached?)\n");
        fprintf(f, "end error=cuptiSubscribe\n");
        fclose(f);
        rec_out = NULL;
        return 0;
    }
    rec_calls_enable(sub, getenv("GRAPHRT_RECORD_LEAVE_OUT"));
    if (timing) {
        tslots = calloc(TSLOTS, sizeof *tslots);
        cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    }
    const char *pr = getenv("GRAPHRT_RECORD_PROFILE");
    prof_on = !(pr && strcmp(pr, "0") == 0);
    const char *sw = getenv("GRAPHRT_RECORD_SYNC_WALKS");
    rec_walk_start(sw && *sw && strcmp(sw, "0") != 0);
    atexit(finish);
    return 1;
}
