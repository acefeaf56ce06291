/*
 * capture.h - the seam between the enqueue paths and stream capture.
 *
 * Every public call that queues work tests gr__stream_capturing(s) right
 * after resolving its stream and, if true, hands the work to the capture
 * module as a node description instead of queuing it. Every call that CUDA
 * calls "potentially unsafe" during capture (synchronisation, queries,
 * synchronous allocation and copies) asks gr__capture_check_unsafe first,
 * which costs one relaxed load while no capture is active anywhere.
 */
#ifndef GR_CAPTURE_H
#define GR_CAPTURE_H

#include "../graph/graph.h"
#include "../backend/backend.h"
#include "../backend/plan.h"
#include "../core/barrier.h"

#include <string.h>

/* Records one operation issued to capturing stream s as a node of the
 * capture's graph, depending on the stream's current capture dependencies.
 * The caller has validated the operation's arguments already (as for an
 * eager enqueue). desc->type selects:
 *   Kernel  desc->kernel; kernelParams points at the caller's argument
 *           values (copied here);
 *   Memcpy  desc->memcpy.copyParams, checked: the 1D form (pitch =
 *           xsize = width, ysize 1, extent {count, 1, 1}) of a 1D copy,
 *           or the 3D parameters of a pitched one, kept as given;
 *   Memset  desc->memset;
 *   Host    desc->host;
 *   EventRecord, WaitEvent  desc->eventRecord / desc->eventWait: an
 *           external record or wait (grEventRecordExternal,
 *           grEventWaitExternal), the node holding the event;
 *   BatchMemOp  desc->memOp: count (> 0) operations, copied;
 *   MemAlloc, MemFree  desc->alloc (its dptr reserved by the pool, the
 *           node taking the reservation) / desc->free;
 *   Graph   (graph NULL: an executable launched by grGraphLaunch):
 *           refused, invalidating the capture.
 * Returns the error of an invalidated capture, with its detail. In a
 * re-capture (grStreamBeginRecaptureToGraph) a MemAlloc record that
 * matches its node gives the reservation in desc->alloc.dptr back and
 * writes the node's address there instead: desc is the caller's own
 * descriptor (memory/pool.c), which hands that address to the program. */
grError_t gr__capture_record(const char *call, gr_stream *s, const grGraphNodeParams *desc);

/* gr__capture_record with launch attributes (grLaunchKernelExC, already
 * checked): a kernel node gets those valid for kernel nodes, and the
 * stream's priority when it is not 0 (set before them, so an explicit
 * priority attribute wins). */
grError_t gr__capture_record_ex(const char *call, gr_stream *s, const grGraphNodeParams *desc,
                                const grLaunchAttribute *attrs, unsigned nattrs);

/* For work that records no node (a copy or memset of zero bytes) on a
 * capturing stream s: grErrorStreamCaptureInvalidated, as
 * gr__capture_record answers, if s's capture was invalidated; else
 * grSuccess. */
grError_t gr__capture_check_active(const char *call, gr_stream *s);

/* Work that no graph node can represent (grStreamAddCallback,
 * grStreamAttachMemAsync) issued to capturing stream s: invalidates s's
 * capture and fails with grErrorStreamCaptureUnsupported and a detail
 * saying 'why'; grErrorStreamCaptureInvalidated, as for any work, if the
 * capture was invalidated already. */
grError_t gr__capture_refuse(const char *call, gr_stream *s, const char *why);

/* grEventRecord(e, s) with s capturing: e now names s's current capture
 * dependencies. */
grError_t gr__capture_event_record(const char *call, grEvent_t e, gr_stream *s);

/* grStreamWaitEvent(s, e) where s is capturing or e was last recorded in a
 * capture (the fork/join rules). */
grError_t gr__capture_wait_event(const char *call, gr_stream *s, grEvent_t e);

/* True if e's latest record was made inside a capture that has ended (CUDA
 * then answers grErrorInvalidValue to queries, synchronisation, timing and
 * waits on it). Costs one load when e was never recorded in a capture. */
bool gr__capture_event_ended_slow(grEvent_t e);
static inline bool gr__capture_event_ended(grEvent_t e)
{
    return GR_UNLIKELY(e->capture != NULL) && gr__capture_event_ended_slow(e);
}

/* What a potentially unsafe call is, for the mode rules. */
typedef enum gr_unsafe_kind {
    GR_UNSAFE_STREAM_SYNC,
    GR_UNSAFE_STREAM_QUERY,
    GR_UNSAFE_EVENT_SYNC,
    GR_UNSAFE_EVENT_QUERY,
    GR_UNSAFE_DEVICE_SYNC,
    GR_UNSAFE_MALLOC,
    GR_UNSAFE_FREE,
    GR_UNSAFE_SYNC_COPY
} gr_unsafe_kind;

/* Decides whether 'call' is allowed given the captures in progress, their
 * modes and the calling thread (s / e: the stream or event it concerns, or
 * NULL). On refusal returns the CUDA error (and invalidates the captures
 * CUDA invalidates) with a detail. */
grError_t gr__capture_check_unsafe_slow(const char *call, gr_unsafe_kind kind, gr_stream *s, grEvent_t e);
static inline grError_t gr__capture_check_unsafe(const char *call, gr_unsafe_kind kind, gr_stream *s,
                                                 grEvent_t e)
{
    return GR_UNLIKELY(gr__capture_any()) ? gr__capture_check_unsafe_slow(call, kind, s, e) : grSuccess;
}

/* Work queued (not captured) on stream s while captures are in progress:
 * refuses what would make the legacy stream depend on a capturing blocking
 * stream or the reverse (grErrorStreamCaptureImplicit). */
grError_t gr__capture_check_implicit_slow(const char *call, gr_stream *s);
static inline grError_t gr__capture_check_implicit(const char *call, gr_stream *s)
{
    return GR_UNLIKELY(gr__capture_any()) ? gr__capture_check_implicit_slow(call, s) : grSuccess;
}

/* ------------------------------------------------ internal to src/capture/
 *
 * A capture sequence (gr_capture) is created by grStreamBeginCapture* and
 * freed by grStreamEndCapture. Its streams ('members': the stream that
 * began it, then the streams that joined it by waiting on an event
 * recorded in it) point at it through s->capture, set with release order
 * and cleared when the capture ends. Each member has its current
 * dependency set: the nodes the next captured operation on that stream
 * depends on.
 *
 * An event recorded in a capture points at a gr_cap_event (the dependency
 * set it names) through e->capture, under e->lock. When the capture ends,
 * e->capture becomes a tombstone: the tagged word (gen << 1) | 1, where gen
 * is the event's record generation. A later eager record bumps e->gen, so
 * a mark whose generation is not the event's current one is stale and the
 * event is an ordinary event again.
 *
 * Lock order: the registry lock (rules.c), then a capture's lock, then an
 * event's lock. Two captures' locks are never held together.
 */

#if GR_KNOBS_SMALL
#define GR_DEPSET_INLINE 1 /* a join of two streams spills to the heap */
#else
#define GR_DEPSET_INLINE 4
#endif

/* A small set of nodes, inline up to GR_DEPSET_INLINE. */
typedef struct gr_depset {
    grGraphNode_t *heap; /* NULL: the nodes are in 'inl' */
    uint32_t n, cap;     /* cap: capacity of 'heap' */
    grGraphNode_t inl[GR_DEPSET_INLINE];
} gr_depset;

typedef struct gr_cap_member {
    gr_stream *s; /* retained while a member */
    gr_depset deps;
    uint32_t lane;     /* the stream's lane in the graph's provenance (graph.h), or 0 */
    bool wait_pending; /* waited since its last node: the next node is a noted wait's target */
    /* The data of the edges from deps[i] to the next node: edata[i], or
     * all default while edata is NULL (set only by
     * grStreamBeginCaptureToGraph and grStreamUpdateCaptureDependencies
     * with non-default data; gone with the next node). */
    grGraphEdgeData *edata;
    /* The all-default edge data grStreamGetCaptureInfo hands out while
     * edata is NULL (nzeros entries, NULL until asked for). */
    grGraphEdgeData *zeros;
    uint32_t nzeros;
} gr_cap_member;

typedef struct gr_capture gr_capture;

/* The argument addresses a re-capture remembers (gr_capture's memo): a
 * kernel with more parameters is checked in full at each launch. */
#define GR_RECAP_MEMO 8

/* One grEventRecord inside a capture. Owned by the capture. */
typedef struct gr_cap_event {
    gr_capture *cap;
    grEvent_t ev; /* retained */
    uint64_t gen; /* ev->gen when recorded */
    gr_depset deps;
    gr_stream *rec_stream; /* where it was recorded, and the record's call number, */
    uint64_t rec_call;     /* for the provenance of the edges its waits make */
    struct gr_cap_event *next;
} gr_cap_event;

struct gr_capture {
    uint64_t id;              /* process-unique, from 1 */
    grStreamCaptureMode mode; /* immutable */
    uint64_t thread;          /* gr__capture_thread_no() of the beginner */
    gr_stream *origin;        /* the stream that began it */
    gr_spinlock lock;         /* guards every field below, and 'graph' */
    grGraph_t graph;
    bool own_graph;         /* false: grStreamBeginCaptureToGraph */
    uint64_t first_seq;     /* nodes with seq >= this were captured */
    _Atomic int status;     /* grStreamCaptureStatus; written under lock */
    grError_t why_code;     /* first invalidation: its code... */
    char *why;              /* ...and its cause, a detail sentence */
    gr_cap_member *members; /* members[0] is the origin */
    uint32_t nmembers, capmembers;
    uint32_t nblocking; /* members that sync with the legacy stream */
    gr_cap_event *events;
    uint64_t calls;    /* operations, records and waits captured so far */
    bool origin_named; /* members[0]'s lane is named in the graph (at the first fork) */
    /* Set for a re-capture (grStreamBeginRecaptureToGraph, recapture.c):
     * operations match the graph's nodes instead of adding nodes.
     * Immutable from begin to end. */
    struct gr_recapture *recap;
    /* The bias of a re-capture (recapture.c): the tag (gr__self_tag) of
     * the thread that began it, which then matches its operations
     * without taking 'lock', setting 'bias_busy' around each match with a
     * plain store; 0 once any other thread took 'lock' (gr__capture_lock
     * cleared it, issued the heavy barrier and waited for bias_busy to
     * drop: core/barrier.h's pairing), and for every other capture, and
     * where the heavy barrier is no membarrier (capture.c's begin). */
    _Atomic uintptr_t bias;
    _Atomic uint32_t bias_busy;
    /* A re-capture's cursor, here rather than in 'recap' so that a match
     * reads it without one more dependent load; written by matches only
     * (on the biased path, or under 'lock'): the next node to match, the
     * first of the graph in creation order not matched yet, or one made
     * after the begin (seq >= recap_end_seq: the graph's nodes at begin
     * have seq below it), or NULL; and the operations matched so far. */
    struct grGraphNode_st *recap_next;
    uint64_t recap_end_seq;
    size_t recap_matched;
    /* The argument addresses of the last launch the fast path found
     * valid (recapture.c, gr__recapture_args_same), written by matches
     * only: the kernel (NULL: none), the frame address its check took as
     * the stack's bottom, the tracker's generation, and the addresses. A
     * launch of that kernel from the same frame at the same generation
     * passes the check for each address that is the same: the check's
     * answer depends on nothing else. */
    grKernel_t memo_k;
    uintptr_t memo_lo;
    uint64_t memo_gen;
    void *memo_args[GR_RECAP_MEMO];
    /* memo_k's parameter count and layout (its offsets and sizes), copied
     * here so that the loop reads them at fixed offsets from c. */
    uint32_t memo_np;
    uint32_t memo_off[GR_RECAP_MEMO], memo_size[GR_RECAP_MEMO];
    /* Registry of captures in progress, guarded by the registry lock. */
    gr_capture *reg_next, *reg_prev;
};

/* Takes c->lock (released with gr__spin_unlock): every writer of c's
 * members, events and graph but a re-capture's own thread on its biased
 * path takes it so, which ends that bias first. */
void gr__capture_unbias(gr_capture *c);
static inline void gr__capture_lock(gr_capture *c)
{
    gr__spin_lock(&c->lock);
    if (GR_UNLIKELY(gr_load_relaxed(&c->bias) != 0))
        gr__capture_unbias(c);
}

/* The calling thread's capture mode (grThreadExchangeStreamCaptureMode). */
extern _Thread_local grStreamCaptureMode gr__tls_capture_mode;

/* A small number naming the calling thread in detail sentences. */
uint64_t gr__capture_thread_no(void);

/* A capture mode as detail sentences write it: "global", "thread-local",
 * "relaxed". */
const char *gr__capture_mode_name(grStreamCaptureMode m);

/* How detail sentences name a stream: "stream #3 at 0x...", by its serial
 * (short, and stable for the life of the process) and its handle;
 * "the legacy stream"; "per-thread stream #4 at 0x...". */
const char *gr__capture_stream_name(const gr_stream *s, char *buf, size_t size);
/* The same into a buffer that lives until the end of the enclosing
 * statement's block, for use as a printf argument. */
#define GR_STREAM_NAME(s) gr__capture_stream_name((s), (char[64]){0}, 64)
/* The short form, "stream #3", for a stream the sentence names in full
 * already (e.g. as the origin of a capture it describes). */
const char *gr__capture_stream_id(const gr_stream *s, char *buf, size_t size);
#define GR_STREAM_ID(s) gr__capture_stream_id((s), (char[48]){0}, 48)

/* "capture #7 (global mode, begun by thread #2 on stream #3 at 0x...)",
 * or "... begun by this thread (#2) on ..." when the caller began it: the
 * mode named is always the capture's own. */
const char *gr__capture_describe(const gr_capture *c, char *buf, size_t size);

/* Invalidates c and fails with err and the detail "msg; this invalidated
 * <c described>: end it with grStreamEndCapture and capture again". The
 * first invalidation's 'msg' is kept as the capture's cause (c->why). */
grError_t gr__capture_invalidate(gr_capture *c, grError_t err, const char *msg);
/* Keeps 'msg' as the cause if c is still active; with c->lock held by the
 * caller. */
void gr__capture_invalidate_locked(gr_capture *c, grError_t err, const char *msg);

/* The error of work issued to a stream of the invalidated capture c. */
grError_t gr__capture_fail_invalidated(const char *call, gr_capture *c, gr_stream *s);

/* Registry (rules.c): captures in progress, for the mode rules. */
void gr__capture_register(gr_capture *c);
void gr__capture_unregister(gr_capture *c);
/* True if a capture with a blocking member (one that the legacy stream
 * synchronises with) is in progress. */
bool gr__capture_blocking_active(void);

/* Dependency sets (record.c). */
void gr__depset_free(gr_depset *d);
static inline grGraphNode_t *gr__depset_nodes(gr_depset *d)
{
    return d->heap ? d->heap : d->inl;
}
bool gr__depset_assign(gr_depset *d, const grGraphNode_t *nodes, size_t n);

/* Sets m->deps to nodes[0..n) (replace) or adds them to it, with their
 * edge data (data NULL: default), keeping m->edata parallel to m->deps.
 * False when out of memory, m unchanged. */
bool gr__capture_member_deps(gr_cap_member *m, const grGraphNode_t *nodes, const grGraphEdgeData *data,
                             size_t n, bool replace);
bool gr__depset_union(gr_depset *d, const grGraphNode_t *nodes, size_t n);

/* The member record of s in c (c->lock held), or NULL. */
gr_cap_member *gr__capture_member(gr_capture *c, gr_stream *s);

/* Re-capture (recapture.c). */
typedef struct gr_recapture gr_recapture;

/* The state of a re-capture of graph g (NULL when out of memory), to
 * hand to the capture's begin; its callback data copied from cb (NULL:
 * none). */
gr_recapture *gr__recapture_new(grGraph_t g, const grGraphRecaptureCallbackData *cb);
void gr__recapture_free(gr_recapture *r);

/* The re-capture path of gr__capture_record_ex: operation 'desc' issued
 * to s with launch attributes attrs[0..nattrs) (checked). Matches it with
 * the next node of c's graph; see grStreamBeginRecaptureToGraph. */
grError_t gr__recapture_record(const char *call, gr_capture *c, gr_stream *s, const grGraphNodeParams *desc,
                               const grLaunchAttribute *attrs, unsigned nattrs);

/* True while s is a member of a re-capture (its capture's 'recap' is
 * immutable from begin to end): two loads, for grLaunchKernel's test. */
static inline bool gr__stream_recapturing(gr_stream *s)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    return c != NULL && c->recap != NULL;
}

/* Begins a match of re-capture c: without c->lock while c is biased to
 * this thread (see gr_capture's bias), else under it. Returns whether
 * biased, for gr__recapture_leave. A capture is biased only where the
 * heavy barrier is a membarrier (capture.c's begin), so the light side
 * here is a compiler barrier, with no test of the barrier's kind. */
static inline bool gr__recapture_enter(gr_capture *c)
{
    uintptr_t me = gr__self_tag();
    if (GR_LIKELY(gr_load_relaxed(&c->bias) == me)) {
#if GR_TSAN
        gr_exchange_seq_cst(&c->bias_busy, 1u); /* TSan models no membarrier */
#else
        gr_store_relaxed(&c->bias_busy, 1u);
        gr_compiler_barrier();
#endif
        if (GR_LIKELY(gr_load_relaxed(&c->bias) == me))
            return true;
        gr_store_release(&c->bias_busy, 0u);
    }
    gr__capture_lock(c);
    return false;
}

static inline void gr__recapture_leave(gr_capture *c, bool biased)
{
    if (biased)
        gr_store_release(&c->bias_busy, 0u);
    else
        gr__spin_unlock(&c->lock);
}

/* True if member m's current dependencies (with their pending edge data)
 * are exactly n's, in any order (the general case of the launch fast
 * path; recapture.c). */
bool gr__recapture_same_deps(grGraph_t g, const gr_cap_member *m, const struct grGraphNode_st *n);

/* True if each argument value args[i] of a launch of k is on the
 * caller's stack or accepted by the full check at the tracker's
 * generation (gr__kernel_arg_known), and equal to the packed value in
 * buf (a node's argbuf); each value is checked before it is read
 * (recapture.c). */
bool gr__recapture_args_same(gr_capture *c, grKernel_t k, const unsigned char *buf, void **args);

/* grLaunchKernel's fast path while s re-captures (gr__stream_recapturing):
 * true if the launch (no attributes) is the next node of the graph
 * unchanged, with every check of grLaunchKernel passed: the launch is
 * then matched, as gr__recapture_record would have, and succeeds. False
 * changes nothing; the caller takes the full path, which checks and
 * reports. Inline in grLaunchKernel's re-capture path: a call of its own
 * would save and shuffle the launch's six arguments once more. Only the
 * plain case: a member with inline dependencies and default edge data,
 * the stream without a priority (a node attribute), the node without
 * attributes; the values that must be zero are OR-ed and the geometry
 * XOR-ed into one test each, and the argument loop, out of line, comes
 * last. */
static inline bool gr__recapture_launch(gr_stream *s, grKernel_t k, const grDim3 *grid, const grDim3 *block,
                                        size_t shmem, void **args)
{
    gr_capture *c = gr_load_acquire(&s->capture);
    bool biased = gr__recapture_enter(c);
    gr_cap_member *m = GR_LIKELY(c->members[0].s == s) ? &c->members[0] : gr__capture_member(c, s);
    struct grGraphNode_st *n = c->recap_next;
    bool ok = false;
    if (GR_LIKELY(n != NULL)) {
        const gr_kernel_params *a = &n->p.kernel;
        uint64_t gxy, bxy, nxy, nbxy;
        memcpy(&gxy, grid, 8);
        memcpy(&bxy, block, 8);
        memcpy(&nxy, &a->grid, 8);
        memcpy(&nbxy, &a->block, 8);
        uintptr_t zero = (uintptr_t)(gr_load_relaxed(&c->status) ^ grStreamCaptureStatusActive) |
                         (uintptr_t)(n->type ^ grGraphNodeTypeKernel) | (uintptr_t)m->deps.heap |
                         (uintptr_t)m->edata | (uintptr_t)gr_load_relaxed(&s->priority) |
                         (uintptr_t)n->kattrs | ((uintptr_t)a->kernel ^ (uintptr_t)k) |
                         (uintptr_t)(gxy ^ nxy) | (uintptr_t)(bxy ^ nbxy) | (grid->z ^ a->grid.z) |
                         (block->z ^ a->block.z) | (shmem ^ a->shmem);
        ok = zero == 0 && n->seq < c->recap_end_seq && k->magic == GR_MAGIC_KERNEL &&
             (k->nparams == 0 || args != NULL) &&
             /* a chain: one dependency, the same, no edge data */
             ((m->deps.n == 1 && n->ndeps == 1 && n->deps[0] == m->deps.inl[0] && c->graph->nnotes == 0) ||
              gr__recapture_same_deps(c->graph, m, n)) &&
             gr__recapture_args_same(c, k, (const unsigned char *)a->argbuf, args);
    }
    if (ok) {
        c->recap_next = n->next;
        c->recap_matched++;
        c->calls++;
        m->deps.inl[0] = n;
        m->deps.n = 1;
        m->wait_pending = false;
    }
    gr__recapture_leave(c, biased);
    return ok;
}

/* The stored parameters of a captured operation (record.c); false when
 * out of memory. */
bool gr__capture_make_params(const grGraphNodeParams *desc, gr_node_params *p);

/* The attributes of a kernel node captured from s with launch attributes
 * attrs[0..nattrs) (record.c): NULL without any, or when out of memory
 * (*oom set). */
struct gr_kattrs *gr__capture_attrs(gr_stream *s, const grLaunchAttribute *attrs, unsigned nattrs, bool *oom);

/* At grStreamEndCapture of re-capture c (valid so far): false, with a
 * sentence in msg, if the graph has nodes the re-capture did not reach
 * or nodes added by hand. */
bool gr__recapture_complete(gr_capture *c, char *msg, size_t size);

/* When re-capture c ends (keep: with its graph) and frees its state: the
 * graph's edit stamp moves on, and after a success with no other edit
 * meanwhile the graph keeps the list of the nodes whose parameters the
 * re-capture changed, for grGraphExecUpdate (graph.h, edits). */
void gr__recapture_finish(gr_capture *c, bool keep);

/* The tombstone of an ended capture's event mark, and its test. */
static inline void *gr__capture_tombstone(uint64_t gen)
{
    return (void *)(uintptr_t)((gen << 1) | 1u);
}
static inline bool gr__capture_is_tombstone(const void *mark)
{
    return ((uintptr_t)mark & 1u) != 0;
}
static inline uint64_t gr__capture_tombstone_gen(const void *mark)
{
    return (uint64_t)((uintptr_t)mark >> 1);
}

#endif /* GR_CAPTURE_H */
