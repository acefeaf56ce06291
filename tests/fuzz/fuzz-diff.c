/*
 * fuzz-diff.c - the differential fuzzer: random multi-stream programs run
 * eagerly and as captured graphs, with 1, 2 and 4 workers, compared with
 * each other through a sequential reference computed here.
 *
 * A program is a list of stream operations on a few streams: kernels that
 * read and write byte ranges of buffers, copies, memsets, host functions,
 * event records and waits between streams, and stream-ordered temporaries
 * (grMallocAsync / grFreeAsync). The generator keeps programs free of data
 * races: every two operations whose ranges overlap, one of them writing,
 * are ordered by stream order or events (it inserts an event record and
 * wait where they would not be), so the final memory is a function of the
 * initial memory and the reference may run the operations one after the
 * other in program order.
 *
 * Each program runs (1) eagerly, (2) captured: grStreamBeginCapture on the
 * first stream, the others forked through an event and joined back at the
 * end, instantiated and launched 1-3 times back to back, and (3) when it
 * has no temporaries, captured again with other constants and applied to
 * the executable with grGraphExecUpdate. After each run the buffers must
 * equal the reference (applied once per launch), every kernel and host
 * function must have run once per block and launch, after every
 * operation it must follow (ops stamp a shared clock when they start and
 * end), and no node of a launch may start before the previous launch of
 * the same executable ended. The captured graph's reachability must equal
 * the program's happens-before relation on the operations that became
 * nodes.
 *
 * Worker counts switch with setenv(GRAPHRT_WORKERS) + grDeviceReset, which
 * the runtime rereads; programs run in batches per worker count so that a
 * reset is not paid per program.
 */
#include "fuzz-common.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DF_STREAMS 4
#define DF_BUFS 6
#define DF_BUF_BYTES 2048
#define DF_TEMPS 6
#define DF_TEMP_BYTES 1024
#define DF_MEMS (DF_BUFS + DF_TEMPS)
#define DF_EVENTS 8
#define DF_MAX_OPS 192
#define DF_MAX_LAUNCHES 3
#define DF_MAX_BLOCKS 64
#define DF_STAMP_CAP (DF_MAX_BLOCKS * DF_MAX_LAUNCHES)
#define DF_BATCH 8
#define DF_DEFAULT_OPS 40

typedef enum df_kind {
    DK_KERNEL,
    DK_COPY,
    DK_SET,
    DK_HOST,
    DK_RECORD,
    DK_WAIT,
    DK_ALLOC,
    DK_FREE
} df_kind;

static const char *const kind_name[] = {"kernel", "copy", "memset", "host",
                                        "record", "wait", "alloc",  "free"};

/* A byte range of a buffer (mem < DF_BUFS) or of temporary slot mem -
 * DF_BUFS; 'gen' tells the allocations of one slot apart. */
typedef struct df_region {
    int mem;
    int gen;
    uint32_t off, len;
} df_region;

/* Where an operation that ran recorded the clock: one entry per block
 * (kernels) or run (host functions), in any order. */
typedef struct df_stamp {
    _Atomic uint64_t *clock;
    _Atomic uint32_t n;
    uint64_t start[DF_STAMP_CAP], end[DF_STAMP_CAP];
} df_stamp;

typedef struct df_op {
    df_kind kind;
    int s;               /* stream index */
    df_region dst, src;  /* src.mem < 0: none */
    uint32_t a[2], b[2]; /* kernel constants of the two variants */
    uint8_t val[2];      /* memset value / host constant of the two variants */
    uint32_t bdim, blocks;
    int ev;   /* record / wait */
    int temp; /* alloc / free: the slot */
    grMemcpyKind ckind;
    bool from_pool;          /* alloc: grMallocFromPoolAsync */
    uint16_t pos;            /* its position on its stream (1-based) */
    uint16_t vc[DF_STREAMS]; /* the ops of each stream it follows (its own included) */
} df_op;

/* The argument block of a host operation; the runs own one per op. */
typedef struct df_host_arg {
    uint8_t *dst;
    uint32_t len;
    uint8_t x;
    df_stamp *st;
} df_host_arg;

typedef struct df_prog {
    uint64_t seed;
    int nstreams, nops;
    int launches;
    int mode; /* capture mode */
    int launch_stream;
    bool to_graph; /* grStreamBeginCaptureToGraph into an empty graph */
    bool update;   /* also run variant 1 through grGraphExecUpdate */
    unsigned long long iflags;
    df_op ops[DF_MAX_OPS];
    uint8_t init[DF_BUFS][DF_BUF_BYTES];
    /* ref[v][k]: the buffers after k + 1 runs of variant v. */
    uint8_t ref[2][DF_MAX_LAUNCHES][DF_BUFS][DF_BUF_BYTES];
} df_prog;

/* What one thread runs programs with; rebuilt after each grDeviceReset. */
typedef struct df_env {
    fz_ctx *ctx;
    fz_rng rng;
    grStream_t s[DF_STREAMS];
    grEvent_t ev[DF_EVENTS], fork, join[DF_STREAMS];
    uint8_t *buf[DF_BUFS];
    grMemPool_t pool;
    bool mt; /* several application threads: no Global captures, no blocking streams */
    void *temp[DF_TEMPS];
    df_stamp stamps[DF_MAX_OPS];
    _Atomic uint64_t clock;
    df_host_arg hargs[3][DF_MAX_OPS]; /* eager, graph variant 0, graph variant 1 */
    uint64_t programs, runs, launches, nodes;
} df_env;

static fz_opts g_o;
static grKernel_t g_kernel;
static pthread_barrier_t g_barrier;
static atomic_bool g_stop;

/* ------------------------------------------------------------ operations */

static uint64_t stamp_begin(df_stamp *st)
{
    return atomic_fetch_add(st->clock, 1);
}

static void stamp_end(df_stamp *st, uint64_t t0)
{
    uint64_t t1 = atomic_fetch_add(st->clock, 1);
    uint32_t k = atomic_fetch_add(&st->n, 1);
    if (k < DF_STAMP_CAP) {
        st->start[k] = t0;
        st->end[k] = t1;
    }
}

/* dst[i] = dst[i] * a + ((src ? src[i] : i) ^ b) over 32-bit words: the
 * result depends on the order of writes to dst, so a lost ordering shows. */
static void df_kernel(const grKernelCtx *ctx, void **args)
{
    uint8_t *dst = *(uint8_t **)args[0];
    const uint8_t *src = *(const uint8_t **)args[1];
    uint32_t n = *(uint32_t *)args[2], a = *(uint32_t *)args[3], b = *(uint32_t *)args[4];
    df_stamp *st = *(df_stamp **)args[5];
    uint64_t t0 = stamp_begin(st);
    GR_FOR_THREADS(ctx, tx, ty, tz)
    {
        (void)ty;
        (void)tz;
        size_t i = GR_GLOBAL_X(ctx, tx);
        if (i < n) {
            uint32_t d, s;
            memcpy(&d, dst + 4 * i, 4);
            if (src)
                memcpy(&s, src + 4 * i, 4);
            else
                s = (uint32_t)i;
            d = d * a + (s ^ b);
            memcpy(dst + 4 * i, &d, 4);
        }
    }
    stamp_end(st, t0);
}

static void df_host(void *p)
{
    df_host_arg *h = p;
    uint64_t t0 = stamp_begin(h->st);
    for (uint32_t i = 0; i < h->len; i++)
        h->dst[i] = (uint8_t)(h->dst[i] * 3u + h->x);
    stamp_end(h->st, t0);
}

/* The reference forms, on plain arrays. */
static void ref_kernel(uint8_t *dst, const uint8_t *src, uint32_t n, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d, s;
        memcpy(&d, dst + 4 * i, 4);
        if (src)
            memcpy(&s, src + 4 * i, 4);
        else
            s = i;
        d = d * a + (s ^ b);
        memcpy(dst + 4 * i, &d, 4);
    }
}

/* ------------------------------------------------------------- generator */

typedef struct gen {
    fz_rng r;
    df_prog *p;
    uint16_t count[DF_STREAMS];
    uint16_t vc[DF_STREAMS][DF_STREAMS];
    uint16_t evc[DF_EVENTS][DF_STREAMS];
    bool ev_recorded[DF_EVENTS];
    bool temp_live[DF_TEMPS];
    int temp_gen[DF_TEMPS];
    int next_ev;
} gen;

static df_op *emit(gen *g, df_kind k, int s)
{
    df_prog *p = g->p;
    df_op *op = &p->ops[p->nops++];
    memset(op, 0, sizeof *op);
    op->kind = k;
    op->s = s;
    op->src.mem = -1;
    op->dst.mem = -1;
    g->count[s]++;
    g->vc[s][s] = g->count[s];
    op->pos = g->count[s];
    return op;
}

static void diff_finish(gen *g, df_op *op)
{
    memcpy(op->vc, g->vc[op->s], sizeof op->vc);
}

static void emit_record(gen *g, int e, int s)
{
    df_op *op = emit(g, DK_RECORD, s);
    op->ev = e;
    memcpy(g->evc[e], g->vc[s], sizeof g->evc[e]);
    g->ev_recorded[e] = true;
    diff_finish(g, op);
}

static void emit_wait(gen *g, int s, int e)
{
    df_op *op = emit(g, DK_WAIT, s);
    op->ev = e;
    for (int k = 0; k < DF_STREAMS; k++)
        if (g->evc[e][k] > g->vc[s][k])
            g->vc[s][k] = g->evc[e][k];
    diff_finish(g, op);
}

/* Orders everything stream 'from' has issued so far before what stream
 * 'to' issues next. */
static void join_streams(gen *g, int from, int to)
{
    int e = g->next_ev++ % DF_EVENTS;
    emit_record(g, e, from);
    emit_wait(g, to, e);
}

static bool ordered(const gen *g, const df_op *y, int s)
{
    return g->vc[s][y->s] >= y->pos;
}

static bool overlap(const df_region *a, const df_region *b)
{
    return a->mem >= 0 && a->mem == b->mem && a->gen == b->gen && a->off < b->off + b->len &&
           b->off < a->off + a->len;
}

/* The regions an op reads and writes. */
static int accesses(const df_op *op, df_region out[2], bool write[2])
{
    switch (op->kind) {
    case DK_KERNEL:
    case DK_COPY:
        out[0] = op->dst;
        write[0] = true;
        if (op->src.mem < 0)
            return 1;
        out[1] = op->src;
        write[1] = false;
        return 2;
    case DK_SET:
    case DK_HOST:
    case DK_ALLOC:
    case DK_FREE:
        out[0] = op->dst;
        write[0] = true;
        return 1;
    case DK_RECORD:
    case DK_WAIT:
        break;
    }
    return 0;
}

/* Before an op with these accesses is issued on stream s: joins every
 * earlier conflicting op's stream into s, so that the program stays free
 * of races. */
static void order_after_conflicts(gen *g, int s, const df_region *r, const bool *w, int n)
{
    df_prog *p = g->p;
    for (int i = 0; i < p->nops; i++) {
        df_region yr[2];
        bool yw[2];
        const df_op *y = &p->ops[i];
        int ny = accesses(y, yr, yw);
        if (ordered(g, y, s))
            continue;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < ny; b++)
                if ((w[a] || yw[b]) && overlap(&r[a], &yr[b]) && !ordered(g, y, s))
                    join_streams(g, y->s, s);
    }
}

static uint32_t mem_size(int mem)
{
    return mem < DF_BUFS ? DF_BUF_BYTES : DF_TEMP_BYTES;
}

/* A random range of a buffer or of a live temporary, 'align'-aligned. */
static df_region pick_region(gen *g, uint32_t align, uint32_t maxlen)
{
    df_region r;
    int live[DF_TEMPS], nlive = 0;
    for (int t = 0; t < DF_TEMPS; t++)
        if (g->temp_live[t])
            live[nlive++] = t;
    if (nlive && fz_chance(&g->r, 30)) {
        int t = live[fz_below(&g->r, (uint32_t)nlive)];
        r.mem = DF_BUFS + t;
        r.gen = g->temp_gen[t];
    } else {
        r.mem = (int)fz_below(&g->r, DF_BUFS);
        r.gen = 0;
    }
    uint32_t size = mem_size(r.mem);
    uint32_t len = 1 + fz_below(&g->r, maxlen);
    if (fz_chance(&g->r, 10))
        len = size; /* whole buffer */
    len = (len + align - 1) / align * align;
    if (len > size)
        len = size;
    uint32_t off = fz_below(&g->r, (size - len) / align + 1) * align;
    r.off = off;
    r.len = len;
    return r;
}

static void gen_kernel(gen *g, int s)
{
    df_region d = pick_region(g, 4, 512);
    df_region src = {.mem = -1};
    if (fz_chance(&g->r, 60)) {
        src = pick_region(g, 4, d.len);
        if (d.len > mem_size(src.mem))
            d.len = mem_size(src.mem);
        src.len = d.len;
        if (src.off + src.len > mem_size(src.mem))
            src.off = mem_size(src.mem) - src.len;
        /* An element reads the same word of src that it writes of dst, or
         * a word no element writes: anything else races inside the kernel. */
        if (overlap(&src, &d) && src.off != d.off)
            src.mem = -1;
    }
    df_region r[2] = {d, src};
    bool w[2] = {true, false};
    order_after_conflicts(g, s, r, w, src.mem >= 0 ? 2 : 1);
    df_op *op = emit(g, DK_KERNEL, s);
    op->dst = d;
    op->src = src;
    for (int v = 0; v < 2; v++) {
        op->a[v] = (uint32_t)fz_next(&g->r) | 1u;
        op->b[v] = (uint32_t)fz_next(&g->r);
    }
    static const uint32_t bdims[] = {1, 3, 32, 64, 100, 128};
    uint32_t n = d.len / 4;
    do
        op->bdim = bdims[fz_below(&g->r, 6)];
    while ((n + op->bdim - 1) / op->bdim > DF_MAX_BLOCKS);
    op->blocks = (n + op->bdim - 1) / op->bdim;
    diff_finish(g, op);
}

static void gen_copy(gen *g, int s)
{
    df_region d = pick_region(g, 1, 700);
    df_region src = pick_region(g, 1, d.len);
    src.len = d.len;
    if (src.len > mem_size(src.mem)) {
        src.len = mem_size(src.mem);
        d.len = src.len;
    }
    if (src.off + src.len > mem_size(src.mem))
        src.off = mem_size(src.mem) - src.len;
    df_region r[2] = {d, src};
    bool w[2] = {true, false};
    order_after_conflicts(g, s, r, w, 2);
    df_op *op = emit(g, DK_COPY, s);
    op->dst = d;
    op->src = src;
    op->ckind = (grMemcpyKind)fz_below(&g->r, 5);
    diff_finish(g, op);
}

/* An op of this kind that writes two random bytes over a region of up
 * to max bytes. */
static void gen_write(gen *g, int s, df_kind kind, uint32_t max)
{
    df_region d = pick_region(g, 1, max);
    bool w = true;
    order_after_conflicts(g, s, &d, &w, 1);
    df_op *op = emit(g, kind, s);
    op->dst = d;
    op->val[0] = (uint8_t)fz_next(&g->r);
    op->val[1] = (uint8_t)fz_next(&g->r);
    diff_finish(g, op);
}

static void gen_set(gen *g, int s)
{
    gen_write(g, s, DK_SET, 900);
}

static void gen_host(gen *g, int s)
{
    gen_write(g, s, DK_HOST, 256);
}

static void gen_alloc(gen *g, int s)
{
    int t;
    for (t = 0; t < DF_TEMPS && g->temp_live[t]; t++)
        ;
    if (t == DF_TEMPS)
        return;
    g->temp_gen[t]++;
    g->temp_live[t] = true;
    df_op *op = emit(g, DK_ALLOC, s);
    op->temp = t;
    op->from_pool = fz_chance(&g->r, 50);
    op->dst = (df_region){DF_BUFS + t, g->temp_gen[t], 0, DF_TEMP_BYTES};
    diff_finish(g, op);
    /* Defined contents before anything reads them. */
    df_op *set = emit(g, DK_SET, s);
    set->dst = op->dst;
    set->val[0] = set->val[1] = (uint8_t)fz_next(&g->r);
    diff_finish(g, set);
}

static void gen_free(gen *g, int t, int s)
{
    df_region d = {DF_BUFS + t, g->temp_gen[t], 0, DF_TEMP_BYTES};
    bool w = true;
    order_after_conflicts(g, s, &d, &w, 1);
    df_op *op = emit(g, DK_FREE, s);
    op->temp = t;
    op->dst = d;
    g->temp_live[t] = false;
    diff_finish(g, op);
}

/* Room for one more op with all the joins it may need. */
static bool room(const df_prog *p)
{
    return p->nops + 2 * DF_MAX_OPS / 8 < DF_MAX_OPS;
}

static void gen_program(df_prog *p, uint64_t seed, unsigned nops, bool mt)
{
    gen g;
    memset(&g, 0, sizeof g);
    memset(p, 0, offsetof(df_prog, ops));
    p->seed = seed;
    g.p = p;
    fz_rng_seed(&g.r, seed);
    p->nstreams = 2 + (int)fz_below(&g.r, DF_STREAMS - 1);
    p->launches = 1 + (int)fz_below(&g.r, DF_MAX_LAUNCHES);
    p->mode = mt ? 1 + (int)fz_below(&g.r, 2) : (int)fz_below(&g.r, 3);
    p->launch_stream = fz_chance(&g.r, 70) ? 0 : (int)fz_below(&g.r, (uint32_t)p->nstreams);
    p->to_graph = fz_chance(&g.r, 20);
    static const unsigned long long flags[] = {0, 0, grGraphInstantiateFlagAutoFreeOnLaunch,
                                               grGraphInstantiateFlagAutoFreeOnLaunch |
                                                   grGraphInstantiateFlagUseNodePriority,
                                               grGraphInstantiateFlagUseNodePriority};
    p->iflags = flags[fz_below(&g.r, 5)];
    for (int b = 0; b < DF_BUFS; b++)
        for (int i = 0; i < DF_BUF_BYTES; i += 8) {
            uint64_t x = fz_next(&g.r);
            memcpy(&p->init[b][i], &x, 8);
        }
    unsigned target = nops ? nops : DF_DEFAULT_OPS / 2 + fz_below(&g.r, DF_DEFAULT_OPS);
    for (unsigned i = 0; i < target && room(p); i++) {
        int s = (int)fz_below(&g.r, (uint32_t)p->nstreams);
        uint32_t k = fz_below(&g.r, 100);
        if (k < 34) {
            gen_kernel(&g, s);
        } else if (k < 50) {
            gen_copy(&g, s);
        } else if (k < 60) {
            gen_set(&g, s);
        } else if (k < 68) {
            gen_host(&g, s);
        } else if (k < 76) {
            int e = (int)fz_below(&g.r, DF_EVENTS);
            emit_record(&g, e, s);
        } else if (k < 86) {
            int e = (int)fz_below(&g.r, DF_EVENTS);
            if (g.ev_recorded[e])
                emit_wait(&g, s, e);
        } else if (k < 93) {
            gen_alloc(&g, s);
        } else {
            int t = (int)fz_below(&g.r, DF_TEMPS);
            if (g.temp_live[t])
                gen_free(&g, t, s);
        }
    }
    for (int t = 0; t < DF_TEMPS; t++)
        if (g.temp_live[t])
            gen_free(&g, t, (int)fz_below(&g.r, (uint32_t)p->nstreams));
    bool temps = false;
    for (int i = 0; i < p->nops; i++)
        temps |= p->ops[i].kind == DK_ALLOC;
    p->update = !temps && fz_chance(&g.r, 60);
}

/* Runs the program once on plain arrays, in program order. */
static void ref_run(const df_prog *p, int v, uint8_t bufs[DF_BUFS][DF_BUF_BYTES])
{
    static _Thread_local uint8_t temps[DF_TEMPS][DF_TEMP_BYTES];
    for (int i = 0; i < p->nops; i++) {
        const df_op *op = &p->ops[i];
        uint8_t *d = op->dst.mem < 0         ? NULL
                     : op->dst.mem < DF_BUFS ? bufs[op->dst.mem] + op->dst.off
                                             : temps[op->dst.mem - DF_BUFS] + op->dst.off;
        const uint8_t *s = op->src.mem < 0         ? NULL
                           : op->src.mem < DF_BUFS ? bufs[op->src.mem] + op->src.off
                                                   : temps[op->src.mem - DF_BUFS] + op->src.off;
        switch (op->kind) {
        case DK_KERNEL:
            ref_kernel(d, s, op->dst.len / 4, op->a[v], op->b[v]);
            break;
        case DK_COPY:
            memmove(d, s, op->dst.len);
            break;
        case DK_SET:
            memset(d, op->val[v], op->dst.len);
            break;
        case DK_HOST:
            for (uint32_t k = 0; k < op->dst.len; k++)
                d[k] = (uint8_t)(d[k] * 3u + op->val[v]);
            break;
        case DK_ALLOC:
            memset(d, 0xcd, DF_TEMP_BYTES);
            break;
        case DK_RECORD:
        case DK_WAIT:
        case DK_FREE:
            break;
        }
    }
}

static void ref_compute(df_prog *p)
{
    for (int v = 0; v < 2; v++) {
        memcpy(p->ref[v][0], p->init, sizeof p->init);
        ref_run(p, v, p->ref[v][0]);
        for (int k = 1; k < p->launches; k++) {
            memcpy(p->ref[v][k], p->ref[v][k - 1], sizeof p->init);
            ref_run(p, v, p->ref[v][k]);
        }
    }
}

/* ----------------------------------------------------------------- checks */

static void dump_program(const df_prog *p)
{
    fprintf(stderr, "  program 0x%016" PRIx64 ": %d streams, %d ops, mode %d, %d launches on stream %d%s%s\n",
            p->seed, p->nstreams, p->nops, p->mode, p->launches, p->launch_stream,
            p->to_graph ? ", to graph" : "", p->update ? ", update" : "");
    for (int i = 0; i < p->nops; i++) {
        const df_op *op = &p->ops[i];
        fprintf(stderr, "    %3d s%d #%-3u %-6s", i, op->s, op->pos, kind_name[op->kind]);
        if (op->dst.mem >= 0)
            fprintf(stderr, " dst m%d.%d[%u,+%u)", op->dst.mem, op->dst.gen, op->dst.off, op->dst.len);
        if (op->src.mem >= 0)
            fprintf(stderr, " src m%d.%d[%u,+%u)", op->src.mem, op->src.gen, op->src.off, op->src.len);
        if (op->kind == DK_RECORD || op->kind == DK_WAIT)
            fprintf(stderr, " ev%d", op->ev);
        if (op->kind == DK_KERNEL)
            fprintf(stderr, " bdim %u blocks %u", op->bdim, op->blocks);
        fprintf(stderr, "\n");
    }
}

static _Noreturn void df_fail(df_env *e, const df_prog *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static _Noreturn void df_fail(df_env *e, const df_prog *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dump_program(p);
    fz_fail(e->ctx, "%s", msg);
}

static void check_ok(df_env *e, const df_prog *p, grError_t err, const char *what)
{
    if (err != grSuccess) {
        char name[128];
        df_fail(e, p, "%s: %s failed with %s: %s", what,
                fz_call_name(atomic_load_explicit(&e->ctx->call, memory_order_relaxed), name, sizeof name),
                grGetErrorName(err), grGetLastErrorDetail());
    }
}

#define DOK(e, p, call, what) check_ok((e), (p), FZ((e)->ctx, call), (what))

static void check_memory(df_env *e, const df_prog *p, const uint8_t ref[DF_BUFS][DF_BUF_BYTES],
                         const char *what)
{
    for (int b = 0; b < DF_BUFS; b++) {
        if (memcmp(e->buf[b], ref[b], DF_BUF_BYTES) == 0)
            continue;
        int i = 0;
        while (e->buf[b][i] == ref[b][i])
            i++;
        char who[512];
        size_t used = 0;
        who[0] = '\0';
        for (int k = 0; k < p->nops && used < sizeof who - 16; k++) {
            const df_op *op = &p->ops[k];
            bool hit =
                (op->dst.mem == b && (uint32_t)i >= op->dst.off && (uint32_t)i < op->dst.off + op->dst.len) ||
                (op->src.mem == b && (uint32_t)i >= op->src.off && (uint32_t)i < op->src.off + op->src.len);
            if (hit)
                used += (size_t)snprintf(who + used, sizeof who - used, " %d", k);
        }
        df_fail(e, p, "%s: buffer %d byte %d is 0x%02x, the reference says 0x%02x (ops touching it:%s)", what,
                b, i, e->buf[b][i], ref[b][i], who);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts an op's stamps by start (with their ends) and returns the number. */
static uint32_t sort_stamps(df_stamp *st, uint64_t pairs[][2])
{
    uint32_t n = atomic_load(&st->n);
    for (uint32_t i = 0; i < n && i < DF_STAMP_CAP; i++) {
        pairs[i][0] = st->start[i];
        pairs[i][1] = st->end[i];
    }
    qsort(pairs, n, sizeof pairs[0], cmp_u64);
    return n;
}

/* Every stamped op ran once per block and launch, after every op it
 * follows; launch k + 1 started after launch k ended. */
static void check_order(df_env *e, const df_prog *p, int launches, const char *what)
{
    static _Thread_local uint64_t first[DF_MAX_OPS][DF_MAX_LAUNCHES], last[DF_MAX_OPS][DF_MAX_LAUNCHES];
    static _Thread_local uint64_t pairs[DF_STAMP_CAP][2];
    uint64_t lmin[DF_MAX_LAUNCHES], lmax[DF_MAX_LAUNCHES];
    for (int k = 0; k < launches; k++) {
        lmin[k] = UINT64_MAX;
        lmax[k] = 0;
    }
    for (int i = 0; i < p->nops; i++) {
        const df_op *op = &p->ops[i];
        if (op->kind != DK_KERNEL && op->kind != DK_HOST)
            continue;
        uint32_t per = op->kind == DK_KERNEL ? op->blocks : 1;
        uint32_t n = sort_stamps(&e->stamps[i], pairs);
        if (n != per * (uint32_t)launches)
            df_fail(e, p, "%s: op %d (%s) ran %u times, expected %u (%u per launch, %d launches)", what, i,
                    kind_name[op->kind], n, per * (uint32_t)launches, per, launches);
        for (int k = 0; k < launches; k++) {
            first[i][k] = UINT64_MAX;
            last[i][k] = 0;
            for (uint32_t j = (uint32_t)k * per; j < (uint32_t)(k + 1) * per; j++) {
                if (pairs[j][0] < first[i][k])
                    first[i][k] = pairs[j][0];
                if (pairs[j][1] > last[i][k])
                    last[i][k] = pairs[j][1];
            }
            if (first[i][k] < lmin[k])
                lmin[k] = first[i][k];
            if (last[i][k] > lmax[k])
                lmax[k] = last[i][k];
        }
    }
    for (int k = 0; k + 1 < launches; k++)
        if (lmax[k] > lmin[k + 1])
            df_fail(e, p,
                    "%s: launch %d of the executable started (clock %" PRIu64
                    ") before launch %d ended (%" PRIu64 "): an executable ran concurrently with itself",
                    what, k + 1, lmin[k + 1], k, lmax[k]);
    for (int j = 0; j < p->nops; j++) {
        const df_op *y = &p->ops[j];
        if (y->kind != DK_KERNEL && y->kind != DK_HOST)
            continue;
        for (int i = 0; i < j; i++) {
            const df_op *x = &p->ops[i];
            if ((x->kind != DK_KERNEL && x->kind != DK_HOST) || y->vc[x->s] < x->pos)
                continue;
            for (int k = 0; k < launches; k++)
                if (last[i][k] > first[j][k])
                    df_fail(e, p,
                            "%s: op %d (%s on stream %d) started at clock %" PRIu64
                            " of launch %d, before op %d (%s "
                            "on stream %d), which it must follow, ended at %" PRIu64,
                            what, j, kind_name[y->kind], y->s, first[j][k], k, i, kind_name[x->kind], x->s,
                            last[i][k]);
        }
    }
}

/* The captured graph's nodes are the program's node ops in program order;
 * a path between two nodes must exist exactly when the program orders
 * them. */
static void check_graph(df_env *e, const df_prog *p, grGraph_t g)
{
    enum {
        W = (DF_MAX_OPS + 63) / 64
    };
    static _Thread_local grGraphNode_t nodes[DF_MAX_OPS], from[DF_MAX_OPS * DF_STREAMS * 2],
        to[DF_MAX_OPS * DF_STREAMS * 2];
    static _Thread_local uint64_t reach[DF_MAX_OPS][W];
    int opof[DF_MAX_OPS], nn = 0;
    for (int i = 0; i < p->nops; i++) {
        df_kind k = p->ops[i].kind;
        if (k != DK_RECORD && k != DK_WAIT)
            opof[nn++] = i;
    }
    size_t n = DF_MAX_OPS, ne = 0;
    DOK(e, p, grGraphGetNodes(g, nodes, &n), "capture");
    if (n != (size_t)nn)
        df_fail(e, p, "captured graph has %zu nodes, the program has %d operations that become nodes", n, nn);
    DOK(e, p, grGraphGetEdges(g, NULL, NULL, NULL, &ne), "capture");
    if (ne > sizeof from / sizeof from[0])
        df_fail(e, p, "captured graph has %zu edges, more than the program can produce", ne);
    DOK(e, p, grGraphGetEdges(g, from, to, NULL, &ne), "capture");
    /* Node index by handle: the nodes come in creation order. */
    memset(reach, 0, sizeof reach);
    for (size_t k = 0; k < ne; k++) {
        int a = -1, b = -1;
        for (int i = 0; i < nn; i++) {
            if (nodes[i] == from[k])
                a = i;
            if (nodes[i] == to[k])
                b = i;
        }
        if (a < 0 || b < 0 || a >= b)
            df_fail(
                e, p,
                "captured graph has edge %zu between nodes %d -> %d (creation order must be a topological "
                "order of a capture)",
                k, a, b);
        reach[b][a / 64] |= 1ull << (a % 64);
    }
    /* Creation order is topological: close each node's ancestor set. */
    for (int b = 0; b < nn; b++)
        for (int a = b - 1; a >= 0; a--)
            if (reach[b][a / 64] & (1ull << (a % 64)))
                for (int w = 0; w < W; w++)
                    reach[b][w] |= reach[a][w];
    for (int b = 0; b < nn; b++) {
        const df_op *y = &p->ops[opof[b]];
        for (int a = 0; a < b; a++) {
            const df_op *x = &p->ops[opof[a]];
            bool want = y->vc[x->s] >= x->pos;
            bool have = (reach[b][a / 64] >> (a % 64)) & 1;
            if (want != have)
                df_fail(
                    e, p,
                    "captured graph: %s path from node %d (op %d) to node %d (op %d), the program %s them",
                    have ? "a" : "no", a, opof[a], b, opof[b], want ? "orders" : "does not order");
        }
    }
    e->nodes += (uint64_t)nn;
}

/* ------------------------------------------------------------------ runs */

static uint8_t *resolve(df_env *e, const df_region *r)
{
    if (r->mem < 0)
        return NULL;
    if (r->mem < DF_BUFS)
        return e->buf[r->mem] + r->off;
    return (uint8_t *)e->temp[r->mem - DF_BUFS] + r->off;
}

static void reset_stamps(df_env *e, const df_prog *p)
{
    atomic_store(&e->clock, 1);
    for (int i = 0; i < p->nops; i++) {
        atomic_store(&e->stamps[i].n, 0);
        e->stamps[i].clock = &e->clock;
    }
}

/* Issues the program's operations (eagerly or into a capture: the same
 * calls). 'inst' selects the host arguments (0 eager, 1 + variant). */
static void issue(df_env *e, const df_prog *p, int v, int inst)
{
    for (int i = 0; i < p->nops; i++) {
        const df_op *op = &p->ops[i];
        grStream_t s = e->s[op->s];
        atomic_store_explicit(&e->ctx->step, (uint64_t)i, memory_order_relaxed);
        switch (op->kind) {
        case DK_KERNEL: {
            uint8_t *dst = resolve(e, &op->dst);
            const uint8_t *src = resolve(e, &op->src);
            uint32_t n = op->dst.len / 4, a = op->a[v], b = op->b[v];
            df_stamp *st = &e->stamps[i];
            void *args[] = {&dst, &src, &n, &a, &b, &st};
            DOK(e, p,
                grLaunchKernel(g_kernel, GR_DIM3(op->blocks, 1, 1), GR_DIM3(op->bdim, 1, 1), args, 0, s),
                "issue");
            break;
        }
        case DK_COPY:
            DOK(e, p, grMemcpyAsync(resolve(e, &op->dst), resolve(e, &op->src), op->dst.len, op->ckind, s),
                "issue");
            break;
        case DK_SET:
            DOK(e, p, grMemsetAsync(resolve(e, &op->dst), op->val[v], op->dst.len, s), "issue");
            break;
        case DK_HOST: {
            df_host_arg *h = &e->hargs[inst][i];
            *h = (df_host_arg){resolve(e, &op->dst), op->dst.len, op->val[v], &e->stamps[i]};
            DOK(e, p, grLaunchHostFunc(s, df_host, h), "issue");
            break;
        }
        case DK_RECORD:
            DOK(e, p, grEventRecord(e->ev[op->ev], s), "issue");
            break;
        case DK_WAIT:
            DOK(e, p, grStreamWaitEvent(s, e->ev[op->ev], 0), "issue");
            break;
        case DK_ALLOC:
            if (op->from_pool)
                DOK(e, p, grMallocFromPoolAsync(&e->temp[op->temp], DF_TEMP_BYTES, e->pool, s), "issue");
            else
                DOK(e, p, grMallocAsync(&e->temp[op->temp], DF_TEMP_BYTES, s), "issue");
            break;
        case DK_FREE:
            DOK(e, p, grFreeAsync(e->temp[op->temp], s), "issue");
            break;
        }
    }
}

static void load_init(df_env *e, const df_prog *p)
{
    for (int b = 0; b < DF_BUFS; b++)
        DOK(e, p, grMemcpy(e->buf[b], p->init[b], DF_BUF_BYTES, grMemcpyHostToDevice), "load");
}

static void sync_all(df_env *e, const df_prog *p)
{
    for (int s = 0; s < p->nstreams; s++)
        DOK(e, p, grStreamSynchronize(e->s[s]), "sync");
}

static void run_eager(df_env *e, const df_prog *p)
{
    atomic_store_explicit(&e->ctx->step, 0, memory_order_relaxed);
    load_init(e, p);
    reset_stamps(e, p);
    issue(e, p, 0, 0);
    if (!e->mt && fz_chance(&e->rng, 50))
        DOK(e, p, grDeviceSynchronize(), "eager sync");
    else
        sync_all(e, p);
    check_memory(e, p, p->ref[0][0], "eager run");
    check_order(e, p, 1, "eager run");
    e->runs++;
}

/* Captures variant v: fork every stream from the first, issue, join. */
static grGraph_t capture(df_env *e, const df_prog *p, int v)
{
    grGraph_t g = NULL, out = NULL;
    grStreamCaptureMode mode = (grStreamCaptureMode)p->mode;
    if (p->to_graph) {
        DOK(e, p, grGraphCreate(&g, 0), "capture");
        DOK(e, p, grStreamBeginCaptureToGraph(e->s[0], g, NULL, NULL, 0, mode), "capture");
    } else {
        DOK(e, p, grStreamBeginCapture(e->s[0], mode), "capture");
    }
    DOK(e, p, grEventRecord(e->fork, e->s[0]), "capture fork");
    for (int s = 1; s < p->nstreams; s++)
        DOK(e, p, grStreamWaitEvent(e->s[s], e->fork, 0), "capture fork");
    issue(e, p, v, 1 + v);
    for (int s = 1; s < p->nstreams; s++) {
        DOK(e, p, grEventRecord(e->join[s], e->s[s]), "capture join");
        DOK(e, p, grStreamWaitEvent(e->s[0], e->join[s], 0), "capture join");
    }
    DOK(e, p, grStreamEndCapture(e->s[0], &out), "capture end");
    if (!out || (g && out != g))
        df_fail(e, p, "grStreamEndCapture returned graph %p (captured into %p)", (void *)out, (void *)g);
    check_graph(e, p, out);
    return out;
}

static void diff_launch_and_check(df_env *e, const df_prog *p, grGraphExec_t x, int v, const char *what)
{
    load_init(e, p);
    reset_stamps(e, p);
    grStream_t ls = e->s[p->launch_stream];
    for (int k = 0; k < p->launches; k++) {
        atomic_store_explicit(&e->ctx->step, 1000u + (unsigned)k, memory_order_relaxed);
        DOK(e, p, grGraphLaunch(x, ls), what);
    }
    DOK(e, p, grStreamSynchronize(ls), what);
    check_memory(e, p, p->ref[v][p->launches - 1], what);
    check_order(e, p, p->launches, what);
    e->launches += (uint64_t)p->launches;
}

static void run_graph(df_env *e, const df_prog *p)
{
    grGraph_t g = capture(e, p, 0);
    grGraphExec_t x;
    DOK(e, p, grGraphInstantiateWithFlags(&x, g, p->iflags), "instantiate");
    if (fz_chance(&e->rng, 50)) {
        DOK(e, p, grGraphDestroy(g), "destroy graph");
        g = NULL;
    }
    diff_launch_and_check(e, p, x, 0, "graph launch");
    if (p->update) {
        grGraph_t g2 = capture(e, p, 1);
        grGraphExecUpdateResultInfo info;
        memset(&info, 0xff, sizeof info);
        grError_t err = FZ(e->ctx, grGraphExecUpdate(x, g2, &info));
        if (err != grSuccess || info.result != grGraphExecUpdateSuccess || info.errorNode ||
            info.errorFromNode)
            df_fail(e, p, "grGraphExecUpdate from a capture of the same program returned %s, result %d: %s",
                    grGetErrorName(err), (int)info.result, grGetLastErrorDetail());
        DOK(e, p, grGraphDestroy(g2), "destroy graph");
        diff_launch_and_check(e, p, x, 1, "updated graph launch");
    }
    DOK(e, p, grGraphExecDestroy(x), "exec destroy");
    if (g)
        DOK(e, p, grGraphDestroy(g), "destroy graph");
    e->runs++;
}

/* -------------------------------------------------------------- resources */

static void env_setup(df_env *e, bool mt)
{
    static const df_prog none;
    e->mt = mt;
    for (int s = 0; s < DF_STREAMS; s++) {
        /* Several threads: non-blocking streams only, so that no thread's
         * capture makes another thread's legacy-stream copies illegal. */
        unsigned flags = mt || s % 2 ? grStreamNonBlocking : grStreamDefault;
        DOK(e, &none, grStreamCreateWithFlags(&e->s[s], flags), "setup");
    }
    for (int b = 0; b < DF_BUFS; b++) {
        if (b == DF_BUFS - 1)
            DOK(e, &none, grMallocHost((void **)&e->buf[b], DF_BUF_BYTES), "setup");
        else
            DOK(e, &none, grMalloc((void **)&e->buf[b], DF_BUF_BYTES), "setup");
    }
    grMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = grMemAllocationTypePinned;
    props.location.type = grMemLocationTypeDevice;
    DOK(e, &none, grMemPoolCreate(&e->pool, &props), "setup");
}

static void env_teardown(df_env *e)
{
    static const df_prog none;
    for (int s = 0; s < DF_STREAMS; s++)
        DOK(e, &none, grStreamSynchronize(e->s[s]), "teardown");
    for (int s = 0; s < DF_STREAMS; s++)
        DOK(e, &none, grStreamDestroy(e->s[s]), "teardown");
    for (int b = 0; b < DF_BUFS; b++) {
        if (b == DF_BUFS - 1)
            DOK(e, &none, grFreeHost(e->buf[b]), "teardown");
        else
            DOK(e, &none, grFree(e->buf[b]), "teardown");
    }
    DOK(e, &none, grMemPoolDestroy(e->pool), "teardown");
}

static void set_workers(fz_ctx *c, unsigned w)
{
    char v[16];
    int got = 0;
    snprintf(v, sizeof v, "%u", w);
    setenv("GRAPHRT_WORKERS", v, 1);
    fz_ok(c, FZ(c, grDeviceReset()), "grDeviceReset");
    fz_ok(c, FZ(c, grDeviceGetAttribute(&got, grDevAttrMultiProcessorCount, 0)), "worker count");
    if (got != (int)w)
        fz_fail(c, "GRAPHRT_WORKERS=%u then grDeviceReset: the device reports %d workers", w, got);
}

typedef struct thread_arg {
    fz_ctx *ctx;
    unsigned index;
    df_prog *progs; /* DF_BATCH of them */
} thread_arg;

static double g_t0;
static atomic_uint_fast64_t g_next_prog;

/* Programs are numbered from 0; program k has seed seed + k and goes to
 * whichever thread takes it, so any failing program replays alone. */
static bool take_batch(df_prog *progs, unsigned *n, bool mt)
{
    *n = 0;
    if (atomic_load(&g_stop))
        return false;
    for (unsigned i = 0; i < DF_BATCH; i++) {
        uint64_t k = atomic_fetch_add(&g_next_prog, 1);
        if (g_o.iterations && k >= g_o.iterations)
            break;
        gen_program(&progs[*n], g_o.seed + k, g_o.steps, mt);
        ref_compute(&progs[*n]);
        (*n)++;
    }
    return *n > 0;
}

static void *diff_thread_main(void *argp)
{
    thread_arg *a = argp;
    fz_ctx *c = a->ctx;
    fz_thread_start();
    bool mt = g_o.threads > 1;
    df_env *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    e->ctx = c;
    fz_rng_seed(&e->rng, fz_mix(g_o.seed, a->index));
    for (int i = 0; i < DF_EVENTS; i++)
        fz_ok(c, FZ(c, grEventCreateWithFlags(&e->ev[i], grEventDisableTiming)), "setup");
    fz_ok(c, FZ(c, grEventCreate(&e->fork)), "setup");
    for (int s = 0; s < DF_STREAMS; s++)
        fz_ok(c, FZ(c, grEventCreate(&e->join[s])), "setup");
    for (;;) {
        unsigned n;
        bool more = take_batch(a->progs, &n, mt);
        /* Every thread takes part in every reset, with or without programs. */
        pthread_barrier_wait(&g_barrier);
        int any = 0;
        static atomic_int g_any;
        if (a->index == 0)
            atomic_store(&g_any, 0);
        pthread_barrier_wait(&g_barrier);
        if (more)
            atomic_fetch_add(&g_any, 1);
        pthread_barrier_wait(&g_barrier);
        any = atomic_load(&g_any);
        if (!any)
            break;
        for (unsigned w = 1; w <= 16; w++) {
            if (!(g_o.workers_mask & (1u << (w - 1))))
                continue;
            pthread_barrier_wait(&g_barrier);
            if (a->index == 0)
                set_workers(c, w);
            pthread_barrier_wait(&g_barrier);
            atomic_store(&c->active, true);
            env_setup(e, mt);
            for (unsigned i = 0; i < n; i++) {
                const df_prog *p = &a->progs[i];
                atomic_store(&c->seed, p->seed);
                atomic_fetch_add_explicit(&c->progress, 1, memory_order_relaxed);
                run_eager(e, p);
                atomic_fetch_add_explicit(&c->progress, 1, memory_order_relaxed);
                run_graph(e, p);
                e->programs++;
            }
            env_teardown(e);
            atomic_store(&c->active, false);
        }
        if (g_o.seconds > 0 && fz_now() - g_t0 >= g_o.seconds)
            atomic_store(&g_stop, true);
    }
    for (int i = 0; i < DF_EVENTS; i++)
        fz_ok(c, FZ(c, grEventDestroy(e->ev[i])), "teardown");
    fz_ok(c, FZ(c, grEventDestroy(e->fork)), "teardown");
    for (int s = 0; s < DF_STREAMS; s++)
        fz_ok(c, FZ(c, grEventDestroy(e->join[s])), "teardown");
    uint64_t *res = malloc(5 * sizeof *res);
    if (!res)
        abort();
    res[0] = e->programs;
    res[1] = e->runs;
    res[2] = e->launches;
    res[3] = e->nodes;
    res[4] = c->calls;
    free(e);
    return res;
}

/* The entry point, also used by tests/test-fuzz-regress.c: returns 0 when
 * every program matched (a mismatch ends the process with a report). */
int fz_diff_main(int argc, char **argv);

int fz_diff_main(int argc, char **argv)
{
    int rc = fz_parse_args(&g_o, "fuzz-diff", argc, argv);
    if (rc)
        return rc == 2 ? 0 : 2;
    static fz_ctx ctx[FZ_MAX_THREADS];
    pthread_t th[FZ_MAX_THREADS];
    thread_arg args[FZ_MAX_THREADS];
    if (!g_o.quiet)
        printf("fuzz-diff: seed 0x%016" PRIx64 ", %u thread(s)\n", g_o.seed, g_o.threads);
    fflush(stdout);
    memset(ctx, 0, sizeof ctx);
    for (unsigned i = 0; i < g_o.threads; i++) {
        ctx[i].thread = i;
        atomic_store(&ctx[i].seed, g_o.seed);
    }
    fz_ctx_register(&g_o, ctx, g_o.threads);
    fz_watchdog_start(&g_o);
    g_t0 = fz_now();
    atomic_store(&g_next_prog, 0);
    atomic_store(&g_stop, false);
    pthread_barrier_init(&g_barrier, NULL, g_o.threads);
    size_t sizes[] = {sizeof(void *), sizeof(void *), 4, 4, 4, sizeof(void *)};
    fz_ok(&ctx[0], FZ(&ctx[0], grKernelCreate(&g_kernel, df_kernel, "fuzz_diff_kernel", 6, sizes)), "setup");
    for (unsigned i = 0; i < g_o.threads; i++) {
        args[i] = (thread_arg){&ctx[i], i, calloc(DF_BATCH, sizeof(df_prog))};
        if (!args[i].progs || pthread_create(&th[i], NULL, diff_thread_main, &args[i]) != 0) {
            fprintf(stderr, "fuzz-diff: cannot start thread %u\n", i);
            return 2;
        }
    }
    uint64_t tot[5] = {0};
    for (unsigned i = 0; i < g_o.threads; i++) {
        uint64_t *res;
        pthread_join(th[i], (void **)&res);
        for (int k = 0; k < 5; k++)
            tot[k] += res[k];
        free(res);
        free(args[i].progs);
    }
    fz_watchdog_stop();
    fz_ok(&ctx[0], FZ(&ctx[0], grKernelDestroy(g_kernel)), "teardown");
    pthread_barrier_destroy(&g_barrier);
    double secs = fz_now() - g_t0;
    printf("fuzz-diff: %" PRIu64 " program runs compared (%" PRIu64 " eager and graph runs, %" PRIu64
           " launches, %" PRIu64 " captured nodes), %" PRIu64
           " API calls in %.1f s (%.0f calls/s), no mismatch\n",
           tot[0], tot[1], tot[2], tot[3], tot[4], secs, (double)tot[4] / (secs > 0 ? secs : 1));
    return 0;
}
