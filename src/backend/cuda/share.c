/*
 * share.c - executables of one shape share a driver executable.
 *
 * Programs build many graphs of one shape with other parameters (an
 * inference server captures one per batch size) and re-instantiate a
 * shape they destroyed (a framework whose update failed). The driver's
 * instantiation is what those cost; bringing a driver executable to
 * another graph of its shape with one cuGraphExecUpdate costs a fraction
 * of it. So a graphrt executable on a GPU is a view: its parameters live
 * in its plan, and a shared record holds the driver's executable, the
 * graph it was instantiated from (the 'host', graph.c's gr_dev_exec) and
 * the view whose parameters it holds now (the owner).
 *
 * The policy (docs/devices.md, "Executables of one shape"):
 *   - Instantiation looks for a record of the same shape: same device,
 *     same flags, same node kinds in plan order (a cooperative kernel
 *     apart, a copy's memory types and layout kind), same edges. Found,
 *     live or parked, the new executable is a view of it and the driver
 *     is not called (the checks lowering makes of kernels and events are
 *     made); else the plan is lowered and instantiated as a new record.
 *   - A launch of the owner is a launch of the driver's executable. A
 *     launch of another view first writes its whole plan into the host's
 *     graph and applies it with one cuGraphExecUpdate (a switch), which
 *     changes nothing already launched, as CUDA documents for updates.
 *   - CUDA orders launches of one executable, so a switch is made only
 *     where that orders nothing the program did not: the latest launch of
 *     the shared executable is on the same stream, or is over. Otherwise,
 *     and where a view was switched to GR_CUDA_SHARE_SWITCHES times
 *     before (it is used in turn with others: an instantiation of its own
 *     is then cheaper than switching on), or where the driver refuses the
 *     update, the view gets its own driver executable (promotion) and
 *     leaves the record. Disabling a node promotes too.
 *   - A record whose last view is destroyed is destroyed with it, as a
 *     native executable, and its shape's hash remembered (the latest
 *     GR_CUDA_GONE). A shape instantiated again after that (a program
 *     that re-instantiates what it destroyed) is recurring: its record is
 *     parked when its last view goes, for a later executable of its
 *     shape, which takes it over with one update at instantiation.
 *     Parked records are destroyed at the next instantiation of another
 *     shape, before the driver's: the driver instantiates several times
 *     faster into memory an executable destroyed just before gave back
 *     (an H100 measured 1.4 ms against 4.5 ms for 1,000 kernel nodes).
 *     At most GR_CUDA_PARKED_MAX are kept, the longest parked destroyed
 *     first.
 *   - GRAPHRT_GPU_SHARE=0 turns sharing off: every executable is
 *     instantiated by the driver, as a native program's.
 * Each view stays an independent executable: its parameters are its own
 * (setters and updates reach the driver only while it is the owner), its
 * launches are ordered among themselves, and a launch of one never waits
 * for another's.
 *
 * Locks: reg_lock guards the registry (every record's next, refs,
 * parked_seq and nparked); a record's lock guards its host, owner, last,
 * last_by, done and fresh. reg_lock is never taken under a record's lock.
 */
#include "graph_int.h"

#include <stdlib.h>
#include <string.h>

/* Switches by update a view gets; the next time it would need one, it is
 * given its own driver executable. */
#define GR_CUDA_SHARE_SWITCHES 1u
/* Records kept after their last view was destroyed. */
#define GR_CUDA_PARKED_MAX 8u

struct gr_cuda_share {
    pthread_mutex_t lock;
    struct gr_dev_exec host;     /* the driver's executable and its graph */
    struct gr_dev_exec *owner;   /* the view whose parameters host holds; NULL: none */
    gr_stream *last;             /* the stream of the latest launch (retained) */
    struct gr_dev_exec *last_by; /* the view that launched it; NULL: none or destroyed */
    CUevent done;                /* recorded after the latest launch where 'fresh' */
    bool fresh;
    /* The registry's. */
    struct gr_cuda_share *next;
    _Atomic uint32_t refs; /* views; 0: parked (also read relaxed by launches) */
    uint64_t parked_seq;
    bool recurring; /* its shape was destroyed before: parked when its last view goes */
    /* The shape: device, flags and signature (see signature). */
    uint64_t hash;
    unsigned long long flags; /* the device is host.device */
    size_t nsig;
    uint32_t *sig;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gr_cuda_share *reg;
static uint32_t nparked;
static uint64_t park_seq;
/* The hashes of the latest shapes destroyed unparked, a ring. */
#define GR_CUDA_GONE 32u
static uint64_t gone[GR_CUDA_GONE];
static uint32_t gone_next;

static bool gone_before(uint64_t h)
{
    for (uint32_t i = 0; i < GR_CUDA_GONE; i++)
        if (gone[i] == h)
            return true;
    return false;
}

/* GRAPHRT_GPU_SHARE, read once: -1 unread, 0 off, 1 on. */
static _Atomic int share_mode = -1;

static bool share_on(void)
{
    int m = gr_load_relaxed(&share_mode);
    if (GR_UNLIKELY(m < 0)) {
        const char *v = getenv("GRAPHRT_GPU_SHARE");
        m = !(v && v[0] == '0' && v[1] == '\0');
        gr_store_relaxed(&share_mode, m);
    }
    return m != 0;
}

bool gr__cuda_share_eligible(const gr_plan *p, unsigned long long flags)
{
    /* An upload at instantiation, conditional nodes (their handles are
     * the executable's own) and collective nodes (their captured NCCL
     * calls change through the executable only) keep to a driver
     * executable of their own. */
    if ((flags & grGraphInstantiateFlagUpload) || !share_on())
        return false;
    for (uint32_t i = 0; i + 1 < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeConditional || p->nodes[i].type == grGraphNodeTypeCollective ||
            !p->nodes[i].enabled)
            return false;
    return true;
}

/* Plan p's shape as words: per node (plan order) its kind, its number of
 * successors, their indices. The kind is the node type, and what no
 * update may change: a kernel's cooperative launch, a copy's memory types
 * and whether it is pitched, a batch memory operation node's count and
 * operation types (one more word: the count, then the types' hash).
 * Where two plans' words are equal, the host's graph (lowered from one)
 * has the other's topology too. */
static uint32_t *signature(const gr_plan *p, size_t *len)
{
    uint32_t n = p->nnodes - 1;
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        m += 2u + (p->nodes[i].succ_end - p->nodes[i].succ_begin) +
             (p->nodes[i].type == grGraphNodeTypeBatchMemOp);
    uint32_t *sig = gr__malloc((m ? m : 1) * sizeof *sig);
    if (!sig)
        return NULL;
    m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const gr_pnode *pn = &p->nodes[i];
        uint32_t kind = pn->type;
        if (pn->type == grGraphNodeTypeKernel && pn->krun == GR_KRUN_COOP)
            kind |= 1u << 8;
        if (pn->type == grGraphNodeTypeMemcpy)
            kind |= (uint32_t)pn->u.copy.pitched << 9 | (uint32_t)pn->u.copy.dst_device << 10 |
                    (uint32_t)pn->u.copy.src_device << 11;
        sig[m++] = kind;
        if (pn->type == grGraphNodeTypeBatchMemOp) {
            uint32_t h = pn->u.memop.count;
            for (uint32_t k = 0; k < pn->u.memop.count; k++)
                h = h * 7u + (uint32_t)pn->u.memop.ops[k].operation;
            sig[m++] = h;
        }
        sig[m++] = pn->succ_end - pn->succ_begin;
        for (uint32_t k = pn->succ_begin; k < pn->succ_end; k++)
            sig[m++] = p->succ[k];
    }
    *len = m;
    return sig;
}

static uint64_t shape_hash(const uint32_t *sig, size_t n, int device, unsigned long long flags)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)device ^ (flags << 8);
    for (size_t i = 0; i < n; i++)
        h = (h ^ sig[i]) * 1099511628211ull;
    return h;
}

static void share_free(struct gr_cuda_share *sh)
{
    gr__cuda_host_release(&sh->host);
    if (sh->done && gr__cuda_enter(sh->host.device) == CUDA_SUCCESS)
        gr_cu.cuEventDestroy(sh->done);
    if (sh->last)
        gr__stream_release(sh->last);
    pthread_mutex_destroy(&sh->lock);
    gr__free(sh->sig);
    gr__free(sh);
}

/* What lowering would refuse of plan p on gx's device: a kernel without
 * an image for it, an event of another device. */
static grError_t check_plan(const char *call, struct gr_dev_exec *gx, const gr_plan *p)
{
    grError_t err = grSuccess;
    for (uint32_t i = 0; i + 1 < p->nnodes && !err; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->type == grGraphNodeTypeKernel)
            err = gr__cuda_exec_check_kernel(call, gx, pn->u.kern.k);
        else if (pn->type == grGraphNodeTypeEventRecord || pn->type == grGraphNodeTypeWaitEvent)
            err = gr__cuda_exec_check_event(call, gx, pn->u.event);
    }
    return err;
}

/* Takes every parked record out of the registry (under reg_lock): the
 * list of them, linked through next. */
static struct gr_cuda_share *unpark_all(void)
{
    struct gr_cuda_share *out = NULL;
    for (struct gr_cuda_share **pp = &reg; *pp;) {
        struct gr_cuda_share *sh = *pp;
        if (gr_load_relaxed(&sh->refs) != 0) {
            pp = &sh->next;
            continue;
        }
        *pp = sh->next;
        sh->next = out;
        out = sh;
        nparked--;
    }
    return out;
}

/* A parked record taken by view gx, the only one: brought to gx's
 * parameters now, as the driver's instantiation would have made them, so
 * that gx's setters and updates reach the driver as an executable's own
 * do; where the driver refuses the update, gx gets its own executable. */
static grError_t adopt(const char *call, struct gr_dev_exec *gx)
{
    struct gr_cuda_share *sh = gx->share;
    pthread_mutex_lock(&sh->lock);
    bool ok = gr__cuda_host_sync_all(call, &sh->host, gx->plan) == grSuccess;
    sh->owner = ok ? gx : NULL;
    pthread_mutex_unlock(&sh->lock);
    return ok ? grSuccess : gr__cuda_share_promote(call, gx);
}

/* gr__cuda_share_lower where record sh of p's shape was found (and
 * counted): gx (a new view of plan p) joins it. */
static grError_t join(const char *call, struct gr_dev_exec *gx, struct gr_cuda_share *sh, bool parked,
                      struct gr_dev_exec **out)
{
    gx->share = sh;
    grError_t err = check_plan(call, gx, gx->plan);
    if (!err && parked)
        err = adopt(call, gx);
    if (err) { /* still a view: a failed promotion leaves gx as it was */
        gr__cuda_share_drop(gx);
        gr__free(gx);
        return err;
    }
    *out = gx;
    return grSuccess;
}

grError_t gr__cuda_share_lower(const char *call, const gr_plan *p, int device, unsigned long long flags,
                               struct gr_dev_exec **out)
{
    size_t nsig = 0;
    uint32_t *sig = signature(p, &nsig);
    struct gr_dev_exec *gx = gr__calloc(1, sizeof *gx);
    struct gr_cuda_share *sh = NULL;
    if (!sig || !gx) {
        gr__free(sig);
        gr__free(gx);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    gx->device = device;
    gx->plan = p;
    uint64_t h = shape_hash(sig, nsig, device, flags);
    pthread_mutex_lock(&reg_lock);
    for (sh = reg; sh; sh = sh->next)
        if (sh->hash == h && sh->host.device == device && sh->flags == flags && sh->nsig == nsig &&
            !memcmp(sh->sig, sig, nsig * sizeof *sig))
            break;
    bool parked = false;
    struct gr_cuda_share *evicted = NULL;
    if (sh && (parked = gr_fetch_add_relaxed(&sh->refs, 1u) == 0))
        nparked--;
    if (!sh)
        evicted = unpark_all();
    pthread_mutex_unlock(&reg_lock);
    /* Destroyed before the driver instantiates: it reuses their memory.
     * Each destruction makes its record's context current. */
    if (evicted) {
        while (evicted) {
            struct gr_cuda_share *next = evicted->next;
            share_free(evicted);
            evicted = next;
        }
        CUresult r = gr__cuda_enter(device);
        if (r != CUDA_SUCCESS) { /* only a miss evicts: no record is counted */
            gr__free(sig);
            gr__free(gx);
            return gr__cu_fail(call, device, "making the primary context current", r);
        }
    }
    if (sh) {
        gr__free(sig);
        return join(call, gx, sh, parked, out);
    }
    if (!(sh = gr__calloc(1, sizeof *sh))) {
        gr__free(sig);
        gr__free(gx);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory lowering the graph to device %d", call,
                        device);
    }
    sh->host.device = device;
    grError_t err = gr__cuda_host_lower(call, &sh->host, p, flags);
    if (err) {
        gr__free(sh);
        gr__free(sig);
        gr__free(gx);
        return err;
    }
    pthread_mutex_init(&sh->lock, NULL);
    sh->owner = gx;
    sh->hash = h;
    sh->flags = flags;
    sh->nsig = nsig;
    sh->sig = sig;
    gr_store_relaxed(&sh->refs, 1u);
    gx->share = sh;
    pthread_mutex_lock(&reg_lock);
    sh->recurring = gone_before(h);
    sh->next = reg;
    reg = sh;
    pthread_mutex_unlock(&reg_lock);
    *out = gx;
    return grSuccess;
}

void gr__cuda_share_drop(struct gr_dev_exec *gx)
{
    struct gr_cuda_share *sh = gx->share, *victim = NULL;
    pthread_mutex_lock(&sh->lock);
    if (sh->owner == gx)
        sh->owner = NULL;
    if (sh->last_by == gx)
        sh->last_by = NULL;
    pthread_mutex_unlock(&sh->lock);
    gx->share = NULL;
    pthread_mutex_lock(&reg_lock);
    if (gr_fetch_sub_relaxed(&sh->refs, 1u) == 1 && !sh->recurring) {
        /* A shape not seen destroyed before goes now, as a native
         * executable does; its hash is remembered. */
        struct gr_cuda_share **pp = &reg;
        while (*pp != sh)
            pp = &(*pp)->next;
        *pp = sh->next;
        victim = sh;
        gone[gone_next++ % GR_CUDA_GONE] = sh->hash;
    } else if (gr_load_relaxed(&sh->refs) == 0) {
        sh->parked_seq = ++park_seq;
        if (++nparked > GR_CUDA_PARKED_MAX) {
            struct gr_cuda_share **at = NULL;
            for (struct gr_cuda_share **pp = &reg; *pp; pp = &(*pp)->next)
                if (gr_load_relaxed(&(*pp)->refs) == 0 && (!at || (*pp)->parked_seq < (*at)->parked_seq))
                    at = pp;
            if (at) {
                victim = *at;
                *at = victim->next;
                nparked--;
            }
        }
    }
    pthread_mutex_unlock(&reg_lock);
    if (victim)
        share_free(victim);
}

struct gr_dev_exec *gr__cuda_share_hold(struct gr_dev_exec *gx)
{
    struct gr_cuda_share *sh = gx->share;
    pthread_mutex_lock(&sh->lock);
    return sh->owner == gx ? &sh->host : NULL;
}

void gr__cuda_share_let_go(struct gr_dev_exec *gx)
{
    pthread_mutex_unlock(&gx->share->lock);
}

/* Whether a launch on s of the shared executable would be ordered behind
 * nothing but what s orders it behind already: its latest launch was on
 * s (a per-thread stream's handle names each thread's own) or is over.
 * Under sh->lock. */
static bool idle_for(struct gr_cuda_share *sh, gr_stream *s)
{
    gr_stream *last = sh->last;
    if (!last)
        return true;
    if (last == s && !(s->flags & GR_STREAM_PER_THREAD))
        return true;
    if (sh->fresh)
        return gr_cu.cuEventQuery(sh->done) == CUDA_SUCCESS;
    if (!(last->flags & GR_STREAM_PER_THREAD))
        return gr_cu.cuStreamQuery(gr__cuda_stream(last)->cu) == CUDA_SUCCESS;
    return false;
}

grError_t gr__cuda_share_promote(const char *call, struct gr_dev_exec *gx)
{
    struct gr_cuda_share *sh = gx->share;
    if (!sh)
        return grSuccess;
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    grError_t err = gr__cuda_host_lower(call, gx, gx->plan, sh->flags);
    if (err)
        return err;
    /* Its launches so far went to the shared executable: the next one,
     * on its own, waits for them (for a per-thread stream, whose handle
     * names each thread's own, by waiting here). */
    gr_stream *last = gr_load_relaxed(&gx->last);
    if (last) {
        bool queued = false;
        if (!(last->flags & GR_STREAM_PER_THREAD) &&
            gr_cu.cuEventCreate(&gx->after, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS) {
            queued = gr_cu.cuEventRecord(gx->after, gr__cuda_stream(last)->cu) == CUDA_SUCCESS;
            if (!queued) {
                gr_cu.cuEventDestroy(gx->after);
                gx->after = NULL;
            }
        }
        if (!queued)
            (void)gr_cu.cuCtxSynchronize();
    }
    gr__cuda_share_drop(gx);
    return grSuccess;
}

grError_t gr__cuda_share_launch(const char *call, struct gr_dev_exec *gx, gr_stream *s, bool upload)
{
    struct gr_cuda_share *sh = gx->share;
    CUresult r = gr__cuda_enter(gx->device);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, "making the primary context current", r);
    CUstream cu = gr__cuda_stream(s)->cu;
    pthread_mutex_lock(&sh->lock);
    /* What the shared executable may still run is the view's own
     * (ordered before this launch by CUDA anyway) or ordered before it by
     * s; else the view launches on its own. */
    bool own = sh->last_by != gx && !idle_for(sh, s);
    if (!own && sh->owner != gx) {
        /* The switch: the whole plan into the host's graph, one update.
         * The driver refusing it (a change its update does not allow)
         * leaves the host holding no view's parameters for sure. */
        if (gx->switches >= GR_CUDA_SHARE_SWITCHES) {
            own = true;
        } else if (gr__cuda_host_sync_all(call, &sh->host, gx->plan) != grSuccess) {
            sh->owner = NULL;
            own = true;
        } else {
            sh->owner = gx;
            gx->switches++;
        }
    }
    if (own) {
        pthread_mutex_unlock(&sh->lock);
        grError_t err = gr__cuda_share_promote(call, gx);
        return err ? err : gr__cuda_exec_launch(call, gx, s, upload);
    }
    r = upload ? gr_cu.cuGraphUpload(sh->host.exec, cu) : gr_cu.cuGraphLaunch(sh->host.exec, cu);
    if (r == CUDA_SUCCESS && !upload) {
        if (sh->last != s) {
            gr__stream_retain(s);
            if (sh->last)
                gr__stream_release(sh->last);
            sh->last = s;
        }
        sh->last_by = gx;
        /* With other views, the end of this launch is what a switch on
         * another stream asks about. */
        sh->fresh = false;
        if (gr_load_relaxed(&sh->refs) > 1 &&
            (sh->done || gr_cu.cuEventCreate(&sh->done, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS))
            sh->fresh = gr_cu.cuEventRecord(sh->done, cu) == CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&sh->lock);
    if (r != CUDA_SUCCESS)
        return gr__cu_fail(call, gx->device, upload ? "cuGraphUpload" : "cuGraphLaunch", r);
    if (!upload)
        gr__cuda_exec_note_launch(gx, s);
    return grSuccess;
}
