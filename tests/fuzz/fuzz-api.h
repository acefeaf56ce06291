/*
 * fuzz-api.h - the model behind the API fuzzer (fuzz-api*.c).
 *
 * A case is a sequence of steps, each one or a few graphrt calls chosen by
 * the generator from what the model says is alive: streams (created ones,
 * NULL, grStreamLegacy, grStreamPerThread, and with several threads the
 * shared ones), events, kernels, graphs and their nodes (child graphs
 * included), executables, memory pools, tracked blocks (grMalloc,
 * grMallocHost, grMallocAsync, graph allocations) and captures. A call is
 * valid or deliberately bad; the model predicts its result, and after a
 * failure the fuzzer checks the detail sentence and that everything the
 * model can observe of the objects involved is unchanged.
 *
 * The model is exact where graphrt's behaviour is documented exactly (graph
 * structure and query orders, capture dependency sets, update pairing, the
 * capture rules, pool counters in one thread) and conservative elsewhere:
 * memory it cannot predict (two streams touching the same bytes without
 * a synchronisation the model follows, racing nodes of a graph) becomes
 * "unknown" byte by byte, and is not checked until it is written again.
 *
 * Invariant of the model: an object is 'live' in the model exactly when
 * its handle is live in graphrt, and a live block's known bytes equal the
 * block's contents whenever no queued work can still write them.
 */
#ifndef GR_FUZZ_API_H
#define GR_FUZZ_API_H

#include "fuzz-common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* Sizes of the model (per thread). Small on purpose: collisions between
 * handles, nodes and ranges are what finds bugs. */
#define FA_STREAMS 5
#define FA_SHARED_STREAMS 2
#define FA_EVENTS 8
#define FA_KERNELS 4
#define FA_GRAPHS 6
#define FA_NODES 24   /* nodes a graph may have created (destroyed ones count) */
#define FA_XNODES 160 /* nodes of an executable's plan (child graphs inlined) */
#define FA_EXECS 4
#define FA_POOLS 3
#define FA_BLOCKS 12
#define FA_BLOCK_MAX 2048
#define FA_CAPS 3
#define FA_HOSTC 8     /* host-function counters */
#define FA_PEND 64     /* eager accesses not yet known to be complete */
#define FA_DEPTH 3     /* child-graph nesting the model follows */
#define FA_MAX_NEST 64 /* graphrt's bound on child-graph nesting (GR_GRAPH_MAX_NEST) */

/* Stream ids of the model: created streams, then the special handles. */
enum {
    FA_SID_LEGACY = FA_STREAMS, /* NULL and grStreamLegacy */
    FA_SID_PT,                  /* grStreamPerThread */
    FA_SID_SHARED,              /* + k: streams shared by the threads */
    FA_NSID = FA_SID_SHARED + FA_SHARED_STREAMS
};

/* What a memory block is. */
typedef enum fa_bkind {
    FB_MALLOC, /* grMalloc: device memory */
    FB_HOST,   /* grMallocHost */
    FB_ASYNC,  /* grMallocAsync / grMallocFromPoolAsync: device memory */
    FB_GMEM,   /* a graph allocation (node address) */
    FB_PLAIN,  /* the fuzzer's own memory, unknown to graphrt */
    FB_SHARED  /* several threads: written only by the shared executables */
} fa_bkind;

typedef struct fa_block {
    bool live;
    int gen; /* bumped when the slot is reused */
    fa_bkind kind;
    uint8_t *ptr;
    uint32_t size; /* bytes asked for */
    int pool;      /* FB_ASYNC: model pool index (-1 the default pool) */
    int sid;       /* FB_ASYNC: the stream it was allocated on */
    int gm;        /* FB_GMEM: index into fa->gm */
    uint8_t model[FA_BLOCK_MAX];
    uint8_t known[FA_BLOCK_MAX]; /* 1: model[i] is the byte's value */
} fa_block;

/* A pointer the model can follow: block 'blk' of generation 'gen' at
 * 'off', or an address unknown to the model (blk -1: NULL or foreign). */
typedef struct fa_ref {
    int blk, gen;
    uint32_t off;
    void *raw;
} fa_ref;

/* Kernel kinds: what the function does with its parameters. */
typedef enum fa_kkind {
    FK_FILL,  /* (u8 *dst, u32 n, u32 v): 32-bit words dst[i] = v + i * 0x9e3779b9 */
    FK_ADD,   /* (u8 *dst, u32 n, u32 v): dst[i] += v */
    FK_XFORM, /* (u8 *dst, const u8 *src, u32 n, u32 v): dst[i] = src[i] * 3 + v */
    FK_BLOB,  /* (u8 *dst, blob64 b, u32 v): dst[0..16) = b.w[i] ^ v */
    FK_NOP,   /* no parameters */
    FK_COUNT
} fa_kkind;

/* The model form of a node's (or an eager operation's) parameters. */
typedef struct fa_params {
    /* kernel */
    grKernel_t kh;
    fa_kkind kk;
    grDim3 grid, block;
    uint32_t shmem;
    fa_ref dst, src; /* also memcpy / memset / host */
    uint32_t n, v;
    uint8_t blob[64];
    /* memcpy: dst, src, count, kind */
    uint32_t count;
    grMemcpyKind ckind;
    /* memset: dst, value, elementSize, width, height, pitch */
    uint32_t value, esize;
    size_t width, height, pitch;
    /* host */
    int hc; /* counter index */
    /* child graph */
    struct fa_graph *child;
    /* event record / wait */
    grEvent_t eh;
    /* memory alloc / free */
    int gm; /* graph allocation index */
} fa_params;

typedef struct fa_node {
    grGraphNode_t h; /* NULL until known (captured nodes) */
    uint8_t type;    /* grGraphNodeType */
    bool live;
    uint8_t ndeps, nsuccs;
    uint8_t deps[FA_NODES], succs[FA_NODES]; /* in edge order */
    /* When it last became a sink (a value of the graph's sink_clock):
     * update pairs sinks latest first. */
    uint32_t sink_seq;
    fa_params p;
} fa_node;

typedef struct fa_graph {
    grGraph_t h; /* NULL while a capture builds it and nobody asked */
    bool live;
    uint64_t uid;
    struct fa_graph *parent; /* child graphs: the graph whose node owns it */
    int depth;               /* 0 for a top-level graph */
    int nn;                  /* nodes created, destroyed ones included */
    fa_node node[FA_NODES];
    int nlive, nedges, nmem;
    uint32_t sink_clock;     /* the next sink_seq */
    uint64_t clone_of;       /* uid of the graph it was cloned from, or 0 */
    int clone_map[FA_NODES]; /* node of the original -> node here, or -1 */
    int clone_nn;            /* nodes the original had when cloned */
    int capture;             /* the capture that builds it, or -1 */
    bool scratch_used;       /* its nodes' scratch words may be non-zero */
    int nexec;               /* live executables instantiated from it */
    bool exec_gone;          /* an executable of it with allocations was destroyed */
} fa_graph;

/* An executable: the plan the model simulates (child graphs inlined). */
typedef struct fa_xnode {
    uint8_t type;
    bool enabled;
    int top;                              /* the top-level node it belongs to */
    uint64_t pred[(FA_XNODES + 63) / 64]; /* every plan node it follows */
    fa_params p;
    /* memcpy: the memory types of dst and src when it was instantiated,
     * which setters and updates may not change (0 host, 1 device, -2 the
     * model could not tell) */
    int8_t kind_dst, kind_src;
} fa_xnode;

typedef struct fa_exec {
    grGraphExec_t h;
    bool live;
    uint64_t src_uid;       /* the graph it was instantiated from */
    fa_graph *shape;        /* a copy of that graph at instantiation: topology for updates */
    int ntop;               /* top-level nodes (the copy's live nodes) */
    int top_node[FA_NODES]; /* top-level node i: index in 'shape' */
    int top_first[FA_NODES], top_count[FA_NODES]; /* its plan nodes */
    fa_xnode x[FA_XNODES];
    int nx;
    bool has_mem, autofree;
    int mem_live; /* graph allocations its launches left allocated */
    bool shared;  /* several threads launch it */
    bool unknown; /* an update the model could not follow: never launched */
    bool counted; /* counted in its graph's nexec (it has allocation nodes) */
} fa_exec;

typedef enum fa_evstate {
    EV_NEVER,    /* never recorded */
    EV_PLAIN,    /* last recorded outside any capture */
    EV_CAPTURED, /* last recorded in a capture in progress */
    EV_ENDED     /* last recorded in a capture that has ended */
} fa_evstate;

typedef struct fa_event {
    grEvent_t h;
    bool live;
    unsigned flags;
    bool waitn; /* used by graph wait nodes: recorded only with a synchronisation right after */
    fa_evstate state;
    int cap;                /* EV_CAPTURED: the capture */
    uint8_t deps[FA_NODES]; /* EV_CAPTURED: the nodes it names */
    int ndeps;
    int sid;    /* EV_PLAIN: the stream of the record (-1: a graph launch) */
    bool timed; /* EV_PLAIN, eager record of a timing event */
} fa_event;

typedef struct fa_stream {
    grStream_t h;
    bool live, nonblocking;
    int cap;                /* the capture it takes part in, or -1 */
    uint8_t deps[FA_NODES]; /* its capture dependencies (nodes of the capture's graph) */
    int ndeps;
} fa_stream;

typedef struct fa_capture {
    bool active;
    int origin; /* sid that began it */
    grStreamCaptureMode mode;
    fa_graph *g;
    bool to_graph;  /* grStreamBeginCaptureToGraph: g existed before */
    int first_node; /* nodes g had at begin (to-graph rollback) */
    bool invalidated;
    bool tainted; /* capture-join-scratch: the join check may answer wrong */
    unsigned long long id;
} fa_capture;

typedef struct fa_pool {
    grMemPool_t h;
    bool live;
    size_t max_size;
    uint64_t used; /* class sizes of its live allocations */
    uint64_t threshold;
    int reuse[3];
} fa_pool;

/* A graph allocation: its address is fixed when the node is added. */
typedef struct fa_gmem {
    bool used; /* the slot is taken */
    void *ptr;
    size_t size;
    fa_graph *g; /* graph whose alloc node made it (NULL once that graph is gone) */
    int node;
    bool freed_in_graph;  /* a free node of its graph frees it */
    bool freed_elsewhere; /* another graph got a free node for it once: its own graph never can */
    int alloc_by;         /* the executable whose launch left it allocated, or -1 */
    int exec;             /* the executable that maps it, or -1 */
    bool shaky;           /* its state was unsure once: the model no longer insists on it */
} fa_gmem;

/* An eager access whose completion the model has not seen. */
typedef struct fa_pend {
    int sid;
    int blk, gen;
    uint32_t off, len;
    bool write;
    int dblk, dgen; /* a read's destination (for taint), or -1 */
    uint32_t doff, dlen;
} fa_pend;

#define FA_GMEM 24

/* State shared by the threads of a multithreaded run. */
typedef struct fa_shared {
    grStream_t s[FA_SHARED_STREAMS];
    grMemPool_t pool;
    grGraphExec_t x[2];
    uint8_t *blk[2];
    uint32_t size;
    _Atomic uint32_t value[2]; /* the fill value each executable writes */
    pthread_mutex_t gm_lock;   /* serialises graph-memory instantiations (graphmem-threads off) */
    pthread_barrier_t barrier;
    atomic_bool stop;
    grKernel_t k;
} fa_shared;

typedef struct fa {
    fz_ctx *c;
    fz_rng r;
    const fz_opts *o;
    unsigned thread, nthreads;
    bool mt;        /* several threads */
    bool race_free; /* issue no work that races on memory (TSan) */
    fa_shared *sh;
    uint64_t step;
    uint64_t uid_next;
    int ctx_sid;        /* stream of the operation being generated, -1 for graph nodes */
    grError_t last_err; /* what grPeekAtLastError should return */

    fa_stream s[FA_NSID];
    fa_event ev[FA_EVENTS];
    struct {
        grKernel_t h;
        bool live;
        fa_kkind kind;
        char name[48];
    } k[FA_KERNELS];
    unsigned kname_next;
    fa_graph *g[FA_GRAPHS];
    fa_exec *x[FA_EXECS];
    fa_pool pool[FA_POOLS];
    int cur_pool;       /* the device's current pool: index, -1 the default */
    uint64_t dflt_used; /* the default pool's live class sizes */
    fa_block b[FA_BLOCKS];
    fa_capture cap[FA_CAPS];
    unsigned long long cap_ids[64];
    int ncap_ids;
    grStreamCaptureMode tmode; /* the thread's capture mode */
    fa_gmem gm[FA_GMEM];
    fa_pend pend[FA_PEND];
    int npend;
    _Atomic uint64_t hc[FA_HOSTC];               /* host-function counters */
    uint64_t hc_min[FA_HOSTC], hc_max[FA_HOSTC]; /* runs sure to have happened / issued */
    uint8_t plain[FA_BLOCK_MAX] __attribute__((aligned(64)));
    /* Passed where a handle is expected: readable, aligned like any
     * handle, no graphrt object, and written by nobody. */
    uint8_t fake[256] __attribute__((aligned(64)));

    /* Dead handles kept to pass to calls (destroyed-handles). */
    grStream_t dead_stream;
    grEvent_t dead_event;
    grKernel_t dead_kernel;
    grGraphExec_t dead_exec;
    grMemPool_t dead_pool;
    grGraph_t dead_graph;
    grGraphNode_t dead_node; /* a destroyed node of a live graph */
    fa_graph *dead_node_g;

    uint64_t n_err, n_ok;
    char why[256]; /* what the generator made bad, for reports */
    /* Pool blocks freed lately: their pool may keep the memory (tracked
     * as device memory) or give it back. */
    struct {
        uint8_t *ptr;
        uint32_t size;
    } dead_async[32];
    unsigned ndead_async;
} fa;

/* ------------------------------------------------------------------ core */

/* A call that the model says succeeds / fails (code 'want', -1 any). */
void fa_ok(fa *f, grError_t err);
void fa_bad(fa *f, grError_t err, int want);
/* A call whose outcome the model does not know exactly: a failure is
 * checked like fa_bad; returns true on success. */
bool fa_either(fa *f, grError_t err);

#define FA_CALL(f, expr) FZ((f)->c, expr)

static inline uint32_t fa_rand(fa *f, uint32_t n)
{
    return fz_below(&f->r, n);
}
static inline bool fa_pct(fa *f, unsigned p)
{
    return fz_chance(&f->r, p);
}
static inline bool fa_allowed(fa *f, unsigned cls)
{
    /* A destroyed handle's memory is reused once 64 more objects of its
     * kind died (graphrt.h, "Destroyed handles"): with several threads the
     * others' churn can bring that about at any time, and the handle may
     * then name another thread's object. Single-threaded runs pass them;
     * each destruction there makes its handle the one kept. */
    if (cls == FZ_ALLOW_DESTROYED && f->mt)
        return false;
    return (f->o->allow & cls) != 0;
}

/* graphmem-threads: with several threads, only thread 0 touches graph
 * memory (allocation and free nodes, captured stream-ordered allocation,
 * the graph-memory attributes and trimming) until that class is fixed. */
static inline bool fa_gm_ok(fa *f)
{
    return !f->mt || f->thread == 0 || fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS);
}

_Noreturn void fa_fail(fa *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Streams and events (fuzz-api.c). */
grStream_t fa_stream_handle(fa *f, int sid);
bool fa_stream_usable(fa *f, int sid);
int fa_pick_stream(fa *f, bool eager_only);
int fa_capture_of(fa *f, int sid);
bool fa_blocking(fa *f, int sid);
/* Whether a blocking stream takes part in a capture of this thread. */
bool fa_blocking_capture(fa *f);
/* Everything the model knows is complete now. */
void fa_synced_all(fa *f);
void fa_synced_stream(fa *f, int sid);

/* ----------------------------------------------------------------- memory */

int fa_block_new(fa *f, fa_bkind kind, void *ptr, uint32_t size);
void fa_block_free(fa *f, int b);
fa_ref fa_ref_of(fa *f, int b, uint32_t off);
fa_block *fa_ref_block(fa *f, const fa_ref *r);
bool fa_ref_live(fa *f, const fa_ref *r);
int fa_pick_block(fa *f, bool device_only);
fa_ref fa_pick_range(fa *f, uint32_t *len, uint32_t align, bool allow_bad);
/* What graphrt's bounds check says of [raw, raw + len) against the
 * allocations alive now: 0 accepted, 1 refused, 2 the model cannot tell. */
int fa_range_verdict(fa *f, const void *raw, size_t len);
/* Whether [r, r + len) runs past what graphrt lets a range of r's block
 * cover (only tracked blocks). */
bool fa_ref_overruns(fa *f, const fa_ref *r, uint32_t len);
/* Applies an operation to the model memory (kernel, copy, memset, host
 * node types), with 'tainted' forcing its output unknown. */
void fa_apply(fa *f, uint8_t type, const fa_params *p, bool enabled, bool tainted);
/* The byte ranges an operation reads and writes. */
int fa_accesses(const fa_params *p, uint8_t type, fa_ref *r, uint32_t *len, bool *write, int max);
/* Records an eager operation on stream sid: taints what races with
 * pending work of other streams, applies it, remembers it as pending. */
void fa_eager_effect(fa *f, int sid, uint8_t type, const fa_params *p);
/* Whether the operation would race with queued work of another stream
 * (ThreadSanitizer builds issue none such). */
bool fa_would_race(fa *f, int sid, uint8_t type, const fa_params *p);
bool fa_pend_room(fa *f, int n);
void fa_pend_taint(fa *f, int q);
void fa_check_memory(fa *f);
void fa_mem_step(fa *f); /* one memory / pool step */
void fa_pool_check(fa *f, int pi);
uint64_t fa_class_size(size_t n);
void fa_mem_teardown(fa *f);

/* ------------------------------------------------------------------ graphs */

fa_graph *fa_graph_new(fa *f, grGraph_t h, int depth, fa_graph *parent);
void fa_graph_free_model(fa *f, fa_graph *g);
fa_graph *fa_graph_copy(fa *f, const fa_graph *src);
void fa_graph_verify(fa *f, fa_graph *g);
void fa_graph_step(fa *f); /* one graph-building step */
void fa_graph_teardown(fa *f);
int fa_node_add_model(fa *f, fa_graph *g, uint8_t type, const fa_params *p, const uint8_t *deps, int ndeps);
fa_graph *fa_pick_graph(fa *f, bool top_only, bool for_edit);
/* Learns the handles of a graph whose nodes the model made blind (a
 * capture): nodes come in creation order. */
void fa_graph_learn_handles(fa *f, fa_graph *g);
bool fa_graph_refs_live(fa *f, const fa_graph *g);
bool fa_graph_frees(const fa_graph *g, const void *ptr);
void fa_params_fill(fa *f, fa_graph *g, uint8_t type, fa_params *p, bool *bad, int *want);
/* A live node of g (index), or -1; an event of the given role. */
int fa_pick_live(fa *f, const fa_graph *g);
grEvent_t fa_pick_event_handle(fa *f, bool waitn);
/* The per-type getters agree with the model's parameters of n. */
void fa_check_node_params(fa *f, fa_node *n);
/* One step of the per-type getters and setters (fuzz-api-params.c). */
void fa_params_step(fa *f);

/* The kernelParams array of a kernel operation, and the values it points
 * to; may inject the classic mistakes (a NULL array or element, values in
 * place of addresses) into *bad / *want. */
typedef struct fa_kargv {
    void *argv[4];
    void *dptr, *sptr;
    uint32_t n, v;
    uint8_t blob[64];
} fa_kargv;
void **fa_kargs(fa *f, const fa_params *p, fa_kargv *a, bool *bad, int *want);

/* At the bounds the API sets: paramArrays that are no arrays, SWITCH
 * sizes past GR_COND_SWITCH_MAX, body refusals, clones after their
 * original's memory was reused (fuzz-api-bounds.c). */
void fa_bounds_step(fa *f);

/* ------------------------------------------------------------- executables */

void fa_exec_step(fa *f);
void fa_exec_teardown(fa *f);
void fa_exec_launch_effect(fa *f, fa_exec *x, int sid);
/* The executables the threads share (several threads). */
void fa_shared_setup(fa *f);
void fa_shared_phase_check(fa *f);
void fa_shared_teardown(fa *f);

/* ----------------------------------------------------------------- capture */

void fa_capture_step(fa *f);
/* A node op issued on a capturing stream: records it in the model. */
void fa_capture_node(fa *f, int sid, uint8_t type, const fa_params *p);
/* Invalidates capture k in the model. */
void fa_capture_invalidate(fa *f, int k);
/* The model's verdict for a potentially unsafe call of the given kind
 * (0 allowed, else the error) and the captures it invalidates. */
int fa_unsafe(fa *f, int kind, int sid, int ev, bool apply);
void fa_capture_teardown(fa *f);
/* Whether the capture stream sid takes part in has no room for a node. */
bool fa_capture_full(fa *f, int sid);
void fa_event_record_capture(fa *f, int ev, int sid);

enum {
    FU_STREAM_SYNC,
    FU_STREAM_QUERY,
    FU_EVENT_SYNC,
    FU_EVENT_QUERY,
    FU_DEVICE_SYNC,
    FU_MALLOC,
    FU_FREE,
    FU_SYNC_COPY
};

/* Host function of the fuzzer: bumps counter *(atomic u64 *)p. */
void fa_host_count(void *p);
void fa_host_other(void *p);

/* The kernel functions, by kind. */
extern const grKernelFn fa_kernel_fns[FK_COUNT];
extern const int fa_kernel_nparams[FK_COUNT];
extern const size_t fa_kernel_sizes[FK_COUNT][4];

/* A device number no machine has (graphrt counts at most 32 GPUs after
 * the CPU): the calls that must refuse a device that does not exist are
 * given it, so that the model holds on machines with GPUs too. */
#define FA_NO_DEVICE 64

/* The live graph of this uid, or NULL; the depth of child graphs in g;
 * a free slot of f->g, or -1 (fuzz-api-graph.c). */
fa_graph *fa_graph_by_uid(fa *f, uint64_t uid);
int fa_graph_height(const fa_graph *g);
int fa_free_graph_slot(fa *f);

#endif /* GR_FUZZ_API_H */
