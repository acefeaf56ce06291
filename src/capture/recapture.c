/*
 * recapture.c - re-capture into an existing graph
 * (grStreamBeginRecaptureToGraph, CUDA 13.3): each operation issued to
 * the capture's streams is matched with the next node of the graph in
 * creation order instead of becoming a node. Its type, its dependencies
 * (the stream's current set, compared with the node's as sets, with
 * their edge data) and, for allocations and frees, its parameters must
 * be the node's, or the capture is invalidated at once; any other
 * parameter difference is offered to the user's callback and, taken,
 * written into the node, which goes on the re-capture's list of changed
 * nodes. grStreamEndCapture hands that list to the graph (g->recap_dirty)
 * for grGraphExecUpdate (exec/update.c), which then writes only those
 * nodes.
 *
 * Invariants:
 *   - a re-capture never adds, removes or rewires a node: a graph it
 *     leaves has the topology it found (a node added by hand meanwhile is
 *     taken back by the capture's rollback when it fails);
 *   - c->recap_next (the cursor, kept in the capture: capture.h) is the
 *     first node of the graph in creation order not yet matched, or one
 *     made after the re-capture began (seq >= recap_end_seq), or NULL:
 *     no node is matched twice;
 *   - the callback runs with no lock held; the node it names keeps its
 *     parameters until it returns grSuccess;
 *   - the unchanged path (the common one) allocates nothing, writes
 *     nothing to the node, and on the thread that began the re-capture
 *     takes no lock (gr_capture's bias: gr__recapture_enter/leave); for
 *     a plain kernel launch grLaunchKernel enters it before its own
 *     checks (gr__recapture_launch, inline in capture.h), which succeeds
 *     only where those checks would pass and otherwise changes nothing;
 *   - the capture's memo of argument addresses (capture.h) holds only
 *     addresses that passed the kernelParams check for its kernel, frame
 *     and tracker generation, and is written only by a match;
 *   - the graph's edit stamp moves when the re-capture ends, whatever
 *     the end, and the list is kept only after a success with no other
 *     edit of the graph during it (graph.h, edits).
 */
#include "capture.h"

#include "../memory/memory.h"

#include <stdio.h>
#include <string.h>

struct gr_recapture {
    grGraphRecaptureCallback_t fn; /* NULL: differences are taken silently */
    void *user;
    size_t nnodes; /* nodes at begin (the cursor is the capture's: capture.h) */
    /* The nodes whose parameters changed, each once, in the order they
     * changed; 'lost' when one could not be noted (out of memory): the
     * graph then keeps no list and an update compares every node. */
    struct grGraphNode_st **dirty;
    size_t ndirty, capdirty;
    bool lost;
    uint64_t base; /* the graph's edit stamp at begin */
};

gr_recapture *gr__recapture_new(grGraph_t g, const grGraphRecaptureCallbackData *cb)
{
    gr_recapture *r = gr__calloc(1, sizeof *r);
    if (!r)
        return NULL;
    if (cb) {
        r->fn = cb->callbackFunc;
        r->user = cb->userData;
    }
    r->nnodes = g->nnodes;
    r->base = g->edits;
    return r;
}

void gr__recapture_free(gr_recapture *r)
{
    if (!r)
        return;
    gr__free(r->dirty);
    gr__free(r);
}

/* ------------------------------------------------------------ matching */

/* True if member m's current dependencies (with their pending edge data)
 * are exactly n's, in any order. Sets are small (a chain: one). */
static inline bool same_deps(grGraph_t g, const gr_cap_member *m, const struct grGraphNode_st *n)
{
    static const grGraphEdgeData none;
    const grGraphNode_t *d = m->deps.heap ? m->deps.heap : m->deps.inl;
    if (m->deps.n != n->ndeps)
        return false;
    for (uint32_t k = 0; k < m->deps.n; k++) {
        size_t j = 0;
        while (j < n->ndeps && n->deps[j] != d[k])
            j++;
        if (j == n->ndeps)
            return false;
        if (GR_UNLIKELY(m->edata != NULL || g->nnotes != 0)) {
            grGraphEdgeData have = gr__edge_data_of(g, d[k], n);
            const grGraphEdgeData *want = m->edata ? &m->edata[k] : &none;
            if (memcmp(&have, want, sizeof have) != 0)
                return false;
        }
    }
    return true;
}

bool gr__recapture_same_deps(grGraph_t g, const gr_cap_member *m, const struct grGraphNode_st *n)
{
    return same_deps(g, m, n);
}

/* An allocation asks for what node n allocates. */
static bool same_alloc(const struct grGraphNode_st *n, const grMemAllocNodeParams *b)
{
    const grMemAllocNodeParams *a = &n->p.alloc;
    return a->bytesize == b->bytesize && a->poolProps.allocType == b->poolProps.allocType &&
           a->poolProps.handleTypes == b->poolProps.handleTypes &&
           a->poolProps.location.type == b->poolProps.location.type &&
           a->poolProps.location.id == b->poolProps.location.id;
}

static bool same_attrs(const gr_kattrs *a, const gr_kattrs *b)
{
    uint32_t sa = a ? a->set : 0, sb = b ? b->set : 0;
    if (sa != sb)
        return false;
    for (unsigned id = 0; id < GR_ATTR_IDS; id++)
        /* The stored values are whole copies of the 64-byte union, so
         * its bytes (the 'pad' view) compare what was given. */
        if ((sa >> id) & 1u && memcmp(a->v[id].pad, b->v[id].pad, sizeof a->v[id].pad) != 0)
            return false;
    return true;
}

static bool same_copy3d(const gr_copy3d *a, const gr_copy3d *b)
{
    if (!a || !b)
        return a == b;
    const grMemcpy3DParms *x = &a->given, *y = &b->given;
    return x->srcArray == y->srcArray && x->dstArray == y->dstArray &&
           memcmp(&x->srcPos, &y->srcPos, sizeof x->srcPos) == 0 &&
           memcmp(&x->dstPos, &y->dstPos, sizeof x->dstPos) == 0 &&
           memcmp(&x->srcPtr, &y->srcPtr, sizeof x->srcPtr) == 0 &&
           memcmp(&x->dstPtr, &y->dstPtr, sizeof x->dstPtr) == 0 &&
           memcmp(&x->extent, &y->extent, sizeof x->extent) == 0 && x->kind == y->kind;
}

static bool same_memset(const grMemsetParams *a, const grMemsetParams *b)
{
    return a->dst == b->dst && a->pitch == b->pitch && a->value == b->value &&
           a->elementSize == b->elementSize && a->width == b->width && a->height == b->height;
}

/* True if the stored parameters p (and attributes ka) of an operation
 * differ from those of node n, of the same type. */
static bool differs(const struct grGraphNode_st *n, const gr_node_params *p, const gr_kattrs *ka)
{
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        const gr_kernel_params *a = &n->p.kernel, *b = &p->kernel;
        if (a->kernel != b->kernel || a->shmem != b->shmem ||
            memcmp(&a->grid, &b->grid, sizeof a->grid) != 0 ||
            memcmp(&a->block, &b->block, sizeof a->block) != 0)
            return true;
        if (a->kernel->argbytes && memcmp(a->argbuf, b->argbuf, a->kernel->argbytes) != 0)
            return true;
        return !same_attrs(n->kattrs, ka);
    }
    case grGraphNodeTypeMemcpy: {
        const gr_memcpy_node *a = &n->p.memcpy, *b = &p->memcpy;
        return a->dst != b->dst || a->src != b->src || a->count != b->count || a->kind != b->kind ||
               !same_copy3d(a->shape, b->shape);
    }
    case grGraphNodeTypeMemset:
        return !same_memset(&n->p.memset, &p->memset);
    case grGraphNodeTypeHost:
        return n->p.host.fn != p->host.fn || n->p.host.userData != p->host.userData;
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
        return n->p.event != p->event;
    case grGraphNodeTypeBatchMemOp:
        return n->p.memop.count != p->memop.count ||
               (p->memop.count &&
                memcmp(n->p.memop.ops, p->memop.ops, p->memop.count * sizeof *p->memop.ops) != 0);
    case grGraphNodeTypeCollective:
        return memcmp(&n->p.coll, &p->coll, sizeof p->coll) != 0;
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeConditional:
    case grGraphNodeTypeCount:
        break;
    }
    return false;
}

/* Whether grGraphExecUpdate could apply the change from n's parameters
 * to p's: the refusals of exec/update.c (check_params, same_attrs) that
 * depend on the two nodes alone. */
static grGraphRecaptureStatus eligibility(const struct grGraphNode_st *n, const gr_node_params *p,
                                          const gr_kattrs *ka)
{
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        bool was = gr__node_cooperative(n) != 0;
        bool now = ka && (ka->set & (1u << grLaunchAttributeCooperative)) &&
                   ka->v[grLaunchAttributeCooperative].cooperative != 0;
        return was == now ? grGraphRecaptureStatusEligibleForUpdate
                          : grGraphRecaptureStatusIneligibleForUpdate;
    }
    case grGraphNodeTypeMemcpy: {
        const gr_memcpy_node *a = &n->p.memcpy, *b = &p->memcpy;
        if (gr__mem_is_device(a->dst) != gr__mem_is_device(b->dst) ||
            gr__mem_is_device(a->src) != gr__mem_is_device(b->src) || gr__memcpy_node_multidim(a) ||
            gr__memcpy_node_multidim(b))
            return grGraphRecaptureStatusIneligibleForUpdate;
        return grGraphRecaptureStatusEligibleForUpdate;
    }
    case grGraphNodeTypeMemset: {
        const grMemsetParams *a = &n->p.memset, *b = &p->memset;
        bool two_d = a->height > 1 || b->height > 1;
        if (two_d && (a->width != b->width || a->height != b->height || a->pitch != b->pitch ||
                      a->elementSize != b->elementSize))
            return grGraphRecaptureStatusIneligibleForUpdate;
        return grGraphRecaptureStatusEligibleForUpdate;
    }
    case grGraphNodeTypeBatchMemOp:
        if (n->p.memop.count != p->memop.count)
            return grGraphRecaptureStatusIneligibleForUpdate;
        for (unsigned i = 0; i < p->memop.count; i++)
            if (n->p.memop.ops[i].operation != p->memop.ops[i].operation)
                return grGraphRecaptureStatusIneligibleForUpdate;
        return grGraphRecaptureStatusEligibleForUpdate;
    case grGraphNodeTypeCollective: /* exec/update.c's rule: same op and communicator */
        return n->p.coll.op == p->coll.op && n->p.coll.comm == p->coll.comm
                   ? grGraphRecaptureStatusEligibleForUpdate
                   : grGraphRecaptureStatusIneligibleForUpdate;
    default:
        return grGraphRecaptureStatusEligibleForUpdate;
    }
}

/* ---------------------------------------------------------------- bias */

void gr__capture_unbias(gr_capture *c)
{
    uintptr_t b = gr_load_seq_cst(&c->bias);
    /* The biased thread itself is between matches when it takes the lock. */
    if (b == 0 || b == gr__self_tag())
        return;
    gr_store_seq_cst(&c->bias, (uintptr_t)0);
    gr_barrier_heavy();
    /* Pairs with the release of bias_busy: the last match is seen. */
    while (gr_load_seq_cst(&c->bias_busy) != 0)
        gr__cpu_relax();
}

static void drop(grGraphNodeType t, gr_node_params *p, gr_kattrs *ka)
{
    gr__node_params_free(t, p);
    gr__free(ka);
}

/* Notes n as changed (c->lock held). */
static void note_dirty(gr_recapture *r, struct grGraphNode_st *n)
{
    for (size_t i = r->ndirty; i-- > 0;) /* a node is matched once: never found */
        if (GR_NEVER(r->dirty[i] == n))
            return;
    if (r->ndirty == r->capdirty) {
        size_t cap = r->capdirty ? 2 * r->capdirty : 16;
        struct grGraphNode_st **v = gr__realloc(r->dirty, cap * sizeof *v);
        if (!v) {
            r->lost = true;
            return;
        }
        r->dirty = v;
        r->capdirty = cap;
    }
    r->dirty[r->ndirty++] = n;
}

/* The callback refused the new parameters of node n (it returned ret):
 * the re-capture fails at once. */
static GR_NOINLINE grError_t refused(const char *call, gr_capture *c, gr_stream *s,
                                     const struct grGraphNode_st *n, grError_t ret)
{
    char msg[512];
    snprintf(msg, sizeof msg,
             "%s: the re-capture callback returned %d (%s) for the new parameters of %s, issued to %s; "
             "the node keeps its parameters",
             call, (int)ret, grGetErrorName(ret), gr__node_label(n), GR_STREAM_NAME(s));
    return gr__capture_invalidate(c, ret, msg);
}

/* Node n (matched) takes the operation's differing parameters, if the
 * callback agrees. */
static grError_t take(const char *call, gr_capture *c, gr_stream *s, struct grGraphNode_st *n,
                      const grGraphNodeParams *desc, gr_node_params *p, gr_kattrs *ka)
{
    gr_recapture *r = c->recap;
    grGraphNodeType t = n->type;
    if (r->fn) {
        grGraphNodeParams orig;
        grGraphRecaptureStatus st = eligibility(n, p, ka);
        if (GR_NEVER(grGraphNodeGetParams(n, &orig) != grSuccess))
            memset(&orig, 0, sizeof orig);
        grError_t ret = r->fn(r->user, n, &orig, desc, st);
        if (ret != grSuccess) {
            drop(t, p, ka);
            return refused(call, c, s, n, ret);
        }
    }
    gr__node_params_free(t, &n->p);
    gr__node_params_move(t, &n->p, p);
    if (t == grGraphNodeTypeKernel) {
        gr__node_attrs_free(n);
        n->kattrs = ka;
    } else {
        gr__free(ka);
    }
    bool biased = gr__recapture_enter(c);
    note_dirty(r, n);
    gr__recapture_leave(c, biased);
    return grSuccess;
}

/* Kernel node n (matched, without attributes) takes the new argument
 * values of a launch that differs from it in nothing else, if the
 * callback agrees: what take does, written in place into n's argument
 * buffer (the values at the kernel's offsets, as packing them anew
 * would), with no stored form built (no allocation, no kernel
 * reference). The change is one an update can apply (eligibility: the
 * launch is no more cooperative than the node). */
static GR_NOINLINE grError_t take_values(const char *call, gr_capture *c, gr_stream *s,
                                         struct grGraphNode_st *n, const grGraphNodeParams *desc)
{
    gr_recapture *r = c->recap;
    gr_kernel_params *a = &n->p.kernel;
    if (r->fn) {
        grGraphNodeParams orig;
        if (GR_NEVER(grGraphNodeGetParams(n, &orig) != grSuccess))
            memset(&orig, 0, sizeof orig);
        grError_t ret = r->fn(r->user, n, &orig, desc, grGraphRecaptureStatusEligibleForUpdate);
        if (ret != grSuccess)
            return refused(call, c, s, n, ret);
    }
    gr__kernel_pack(a->kernel, desc->kernel.kernelParams, a->argbuf, a->argv);
    bool biased = gr__recapture_enter(c);
    note_dirty(r, n);
    gr__recapture_leave(c, biased);
    return grSuccess;
}

/* memcmp(a, b, n) == 0, without a call for the usual argument sizes. */
static inline bool same_bytes(const void *a, const void *b, size_t n)
{
    uint64_t x, y;
    uint32_t u, v;
    switch (n) {
    case 8:
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    case 4:
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        return u == v;
    default:
        return memcmp(a, b, n) == 0;
    }
}

/* True if the values args[0..nparams) of a launch of k are those kernel
 * node n holds (k is n's kernel): compared with n's packed buffer at
 * k's offsets, which share the node's lines, not through n's argv. */
static inline bool same_args(grKernel_t k, const gr_kernel_params *a, void *const *args)
{
    const unsigned char *buf = a->argbuf;
    for (int i = 0; i < k->nparams; i++)
        if (!same_bytes(buf + k->offsets[i], args[i], k->sizes[i]))
            return false;
    return true;
}

/* True when a kernel launch 'in' from s with attributes attrs[0..nattrs)
 * would store what kernel node n holds but for its argument values,
 * decided without building the stored form (no kernel reference taken,
 * no packing): the common case of a re-capture. False also where only
 * the full comparison can tell (n or the launch has attributes, the
 * stream a priority). */
static inline bool kernel_same_but_args(gr_stream *s, const struct grGraphNode_st *n,
                                        const grKernelNodeParams *in, const grLaunchAttribute *attrs,
                                        unsigned nattrs)
{
    const gr_kernel_params *a = &n->p.kernel;
    grKernel_t k = in->func;
    if (a->kernel != k || a->shmem != in->sharedMemBytes || a->grid.x != in->gridDim.x ||
        a->grid.y != in->gridDim.y || a->grid.z != in->gridDim.z || a->block.x != in->blockDim.x ||
        a->block.y != in->blockDim.y || a->block.z != in->blockDim.z)
        return false;
    if (n->kattrs != NULL)
        return false;
    for (unsigned i = 0; i < nattrs; i++)
        if ((gr__launch_attr_scope(attrs[i].id) & GR_ATTR_NODE) && attrs[i].id != grLaunchAttributeIgnore)
            return false;
    return gr_load_relaxed(&s->priority) == 0;
}

/* The pool reservation a captured allocation made (desc->alloc.dptr),
 * given back. */
static void release_reservation(const grGraphNodeParams *desc)
{
    gr_node_params p;
    memset(&p, 0, sizeof p);
    p.alloc = desc->alloc;
    p.alloc.accessDescs = NULL;
    gr__node_params_free(grGraphNodeTypeMemAlloc, &p);
}

/* Fails the re-capture at once: operation 'desc' issued to s (member m)
 * does not match node n (NULL or made after the begin: past the graph's
 * nodes). Entered as the match was (biased or locked), left here. */
static GR_NOINLINE grError_t mismatch(const char *call, gr_capture *c, gr_stream *s, gr_cap_member *m,
                                      struct grGraphNode_st *n, const grGraphNodeParams *desc, bool biased)
{
    gr_recapture *r = c->recap;
    grGraphNodeType t = desc->type;
    char msg[768];
    if (n == NULL || n->seq >= c->recap_end_seq)
        snprintf(
            msg, sizeof msg,
            "%s: %s issued a %s operation, the re-capture's operation %zu, but graph %p had %zu nodes; a "
            "re-capture must make the graph's nodes again, in their creation order",
            call, GR_STREAM_NAME(s), gr__node_type_name(t), c->recap_matched + 1, GR_PTR(c->graph),
            r->nnodes);
    else if (n->type != t)
        snprintf(msg, sizeof msg,
                 "%s: %s issued a %s operation where the re-capture expects %s (operation %zu of %zu, in "
                 "creation order); a re-capture must make the graph's nodes again, in their creation order",
                 call, GR_STREAM_NAME(s), gr__node_type_name(t), gr__node_label(n), c->recap_matched + 1,
                 r->nnodes);
    else if (!same_deps(c->graph, m, n))
        snprintf(
            msg, sizeof msg,
            "%s: the %s operation issued to %s depends on %u node(s) where %s (operation %zu) depends on "
            "%zu, or on other nodes, or through other edge data; a re-capture cannot change the graph's "
            "topology",
            call, gr__node_type_name(t), GR_STREAM_NAME(s), m->deps.n, gr__node_label(n),
            c->recap_matched + 1, n->ndeps);
    else if (t == grGraphNodeTypeMemAlloc)
        snprintf(msg, sizeof msg,
                 "%s: %s allocates %zu bytes (with the pool properties given) where %s allocates %zu; a "
                 "re-capture cannot change an allocation",
                 call, GR_STREAM_NAME(s), desc->alloc.bytesize, gr__node_label(n), n->p.alloc.bytesize);
    else
        snprintf(msg, sizeof msg,
                 "%s: %s frees %p where %s frees %p; a re-capture cannot change what a free node frees", call,
                 GR_STREAM_NAME(s), desc->free.dptr, gr__node_label(n), n->p.free.dptr);
    gr__recapture_leave(c, biased);
    if (t == grGraphNodeTypeMemAlloc)
        release_reservation(desc);
    return gr__capture_invalidate(c, grErrorStreamCaptureInvalidated, msg);
}

/* After n matched operation 'desc' but for its parameters, unless it is
 * a kernel launch that differs at most in its argument values:
 * allocations hand back the node's address;
 * the others are compared in their stored form, and a difference goes
 * to the callback. */
static GR_NOINLINE grError_t matched_slow(const char *call, gr_capture *c, gr_stream *s,
                                          struct grGraphNode_st *n, const grGraphNodeParams *desc,
                                          const grLaunchAttribute *attrs, unsigned nattrs)
{
    grGraphNodeType t = desc->type;
    if (t == grGraphNodeTypeMemAlloc || t == grGraphNodeTypeMemFree) {
        /* The fresh reservation goes back, and the caller's descriptor
         * (its own, pool.c) hands the node's address to the program: a
         * graph's allocation keeps its address. */
        if (t == grGraphNodeTypeMemAlloc) {
            release_reservation(desc);
            ((grGraphNodeParams *)(uintptr_t)desc)->alloc.dptr = n->p.alloc.dptr;
        }
        return grSuccess;
    }
    gr_node_params p;
    bool oom = false;
    gr_kattrs *ka = t == grGraphNodeTypeKernel ? gr__capture_attrs(s, attrs, nattrs, &oom) : NULL;
    if (oom || !gr__capture_make_params(desc, &p)) {
        char msg[512];
        gr__free(ka);
        snprintf(msg, sizeof msg, "%s: out of memory comparing the operation issued to %s with %s", call,
                 GR_STREAM_NAME(s), gr__node_label(n));
        return gr__capture_invalidate(c, grErrorMemoryAllocation, msg);
    }
    if (!differs(n, &p, ka)) {
        drop(t, &p, ka);
        return grSuccess;
    }
    return take(call, c, s, n, desc, &p, ka);
}

grError_t gr__recapture_record(const char *call, gr_capture *c, gr_stream *s, const grGraphNodeParams *desc,
                               const grLaunchAttribute *attrs, unsigned nattrs)
{
    grGraphNodeType t = desc->type;
    bool biased = gr__recapture_enter(c);
    if (GR_UNLIKELY(gr_load_relaxed(&c->status) != grStreamCaptureStatusActive)) {
        gr__recapture_leave(c, biased);
        if (t == grGraphNodeTypeMemAlloc)
            release_reservation(desc);
        return gr__capture_fail_invalidated(call, c, s);
    }
    gr_cap_member *m = GR_LIKELY(c->members[0].s == s) ? &c->members[0] : gr__capture_member(c, s);
    struct grGraphNode_st *n = c->recap_next;
    if (GR_UNLIKELY(n == NULL || n->seq >= c->recap_end_seq || n->type != t || !same_deps(c->graph, m, n) ||
                    (t == grGraphNodeTypeMemAlloc && !same_alloc(n, &desc->alloc)) ||
                    (t == grGraphNodeTypeMemFree && n->p.free.dptr != desc->free.dptr)))
        return mismatch(call, c, s, m, n, desc, biased);
    /* The topology matches: the stream moves past n, as past a new node. */
    c->recap_next = n->next;
    c->recap_matched++;
    c->calls++;
    m->deps.inl[0] = n;
    if (GR_UNLIKELY(m->deps.heap != NULL)) {
        gr__free(m->deps.heap);
        m->deps.heap = NULL;
        m->deps.cap = 0;
    }
    m->deps.n = 1;
    if (GR_UNLIKELY(m->edata != NULL)) {
        gr__free(m->edata);
        m->edata = NULL;
    }
    m->wait_pending = false;
    gr__recapture_leave(c, biased);
    if (GR_LIKELY(t == grGraphNodeTypeKernel) && kernel_same_but_args(s, n, &desc->kernel, attrs, nattrs)) {
        if (same_args(desc->kernel.func, &n->p.kernel, desc->kernel.kernelParams))
            return grSuccess;
        return take_values(call, c, s, n, desc);
    }
    return matched_slow(call, c, s, n, desc, attrs, nattrs);
}

/* gr__recapture_args_same from argument i on, for values of sizes other
 * than 4 and 8, compared by memcmp: its call would make the common loop
 * save registers. */
static GR_NOINLINE bool args_same_from(grKernel_t k, const unsigned char *buf, void **args, int i,
                                       uintptr_t lo, uintptr_t top)
{
    for (; i < k->nparams; i++) {
        const void *v = args[i];
        uintptr_t at = (uintptr_t)v;
        uint32_t size = k->sizes[i];
        if (!(at >= lo && at < top && size <= top - at) && !gr__kernel_arg_known(v, size))
            return false;
        if (memcmp(buf + k->offsets[i], v, size) != 0)
            return false;
    }
    return true;
}

/* gr__recapture_args_same from argument i on, where the memo does not
 * vouch for args[i] (or it is not of 4 or 8 bytes), or from 0 where the
 * memo is for another kernel, frame or generation (then emptied first):
 * each address checked unless the memo holds it, then noted; each value
 * compared. lo is the caller's frame address. */
static GR_NOINLINE bool args_same_slow(gr_capture *c, grKernel_t k, const unsigned char *buf, void **args,
                                       int i, uintptr_t lo)
{
    uintptr_t top = gr__tls_stack_top;
    uint64_t gen = gr__mem_generation();
    if (k->nparams > GR_RECAP_MEMO)
        return args_same_from(k, buf, args, 0, lo, top);
    if (c->memo_k != k || c->memo_lo != lo || c->memo_gen != gen) {
        c->memo_k = NULL;
        for (int j = 0; j < GR_RECAP_MEMO; j++)
            c->memo_args[j] = NULL;
        i = 0;
    }
    for (; i < k->nparams; i++) {
        const void *v = args[i];
        uintptr_t at = (uintptr_t)v;
        uint32_t size = k->sizes[i];
        if (v != c->memo_args[i]) {
            if (!(at >= lo && at < top && size <= top - at) && !gr__kernel_arg_known(v, size))
                return false;
            c->memo_args[i] = (void *)(uintptr_t)v;
        }
        if (memcmp(buf + k->offsets[i], v, size) != 0)
            return false;
    }
    c->memo_k = k;
    c->memo_lo = lo;
    c->memo_gen = gen;
    c->memo_np = (uint32_t)k->nparams;
    memcpy(c->memo_off, k->offsets, c->memo_np * sizeof *k->offsets);
    memcpy(c->memo_size, k->sizes, c->memo_np * sizeof *k->sizes);
    return true;
}

/* Out of line, so that the loop has the registers to itself (in the
 * launch fast path it shares them with the capture's state and the
 * launch's arguments, and spills). Called by a match (biased or under
 * c->lock), which owns c's memo. The check of an address the memo holds
 * for the same kernel, frame and generation is skipped (in a loop of
 * launches, the usual case): the check's answer depends on nothing else
 * (an address on the caller's stack, between the frame and its top, or
 * accepted by the full check at that generation). Values of 4 and 8
 * bytes the memo vouches for are compared here, without a call, so that
 * the loop saves no registers; anything else hands the rest of the
 * arguments to args_same_slow. */
bool gr__recapture_args_same(gr_capture *c, grKernel_t k, const unsigned char *buf, void **args)
{
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0);
    if (GR_UNLIKELY(c->memo_k != k || c->memo_lo != lo || c->memo_gen != gr__mem_generation()))
        return args_same_slow(c, k, buf, args, 0, lo);
    uint32_t np = c->memo_np;
    for (uint32_t i = 0; i < np; i++) {
        const void *v = args[i];
        uint32_t size = c->memo_size[i];
        const unsigned char *w = buf + c->memo_off[i];
        if (GR_UNLIKELY(v != c->memo_args[i]))
            return args_same_slow(c, c->memo_k, buf, args, (int)i, lo);
        if (size == 8) {
            uint64_t x, y;
            memcpy(&x, w, 8);
            memcpy(&y, v, 8);
            if (x != y)
                return false;
        } else if (size == 4) {
            uint32_t x, y;
            memcpy(&x, w, 4);
            memcpy(&y, v, 4);
            if (x != y)
                return false;
        } else {
            return args_same_slow(c, c->memo_k, buf, args, (int)i, lo);
        }
    }
    return true;
}

/* ----------------------------------------------------------------- end */

bool gr__recapture_complete(gr_capture *c, char *msg, size_t size)
{
    gr_recapture *r = c->recap;
    grGraph_t g = c->graph;
    struct grGraphNode_st *n = c->recap_next;
    if (n && n->seq < c->recap_end_seq) {
        snprintf(
            msg, size,
            "the re-capture made %zu operations but graph %p had %zu nodes; the first node not made again "
            "is %s",
            c->recap_matched, GR_PTR(g), r->nnodes, gr__node_label(n));
        return false;
    }
    if (g->last && g->last->seq >= c->recap_end_seq) {
        snprintf(msg, size,
                 "%s was added to graph %p during its re-capture; a re-capture cannot change the graph's "
                 "topology",
                 gr__node_label(g->last), GR_PTR(g));
        return false;
    }
    return true;
}

void gr__recapture_finish(gr_capture *c, bool keep)
{
    gr_recapture *r = c->recap;
    grGraph_t g = c->graph;
    bool listed = keep && !r->lost && g->edits == r->base;
    gr__free(g->recap_dirty);
    g->recap_dirty = NULL;
    g->recap_ndirty = 0;
    g->recap_edits = 0;
    gr__graph_edited(g);
    if (listed) {
        gr__graph_devupd_carry(g, r->base, r->dirty, r->ndirty);
        g->recap_base = r->base;
        g->recap_edits = g->edits;
        g->recap_dirty = r->dirty;
        g->recap_ndirty = r->ndirty;
        r->dirty = NULL;
    }
    c->recap = NULL;
    gr__recapture_free(r);
}
