/*
 * fuzz-api-exec.c - the API fuzzer's executables: instantiation into a
 * plan the model simulates (child graphs inlined, each plan node with the
 * set of plan nodes it follows), launches and their effect on memory, the
 * exec setters, enabling nodes, grGraphExecUpdate with CUDA's pairing,
 * graph-memory launch rules, and the executables shared by threads.
 *
 * The pairing is the one update.c documents and implements: top-level
 * sinks latest sink first (compared in number first), then breadth first
 * each pair's dependencies position by position; child graphs by their deterministic topological order (roots
 * in creation order, then as they become ready, successors in edge order).
 * The model predicts success or failure and, for top-level refusals, the
 * result code and the node at fault.
 */
#include "fuzz-api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define W ((FA_XNODES + 63) / 64)

/* alloc_by of a graph allocation whose state the model cannot know. */
#define GM_UNSURE (-3)

static void bs_or(uint64_t *a, const uint64_t *b)
{
    for (int i = 0; i < W; i++)
        a[i] |= b[i];
}

static bool bs_has(const uint64_t *a, int i)
{
    return (a[i / 64] >> (i % 64)) & 1;
}

static void bs_set(uint64_t *a, int i)
{
    a[i / 64] |= 1ull << (i % 64);
}

/* Live nodes of g in the order graphrt's topological walk visits them. */
static int kahn(const fa_graph *g, int *order)
{
    int cnt[FA_NODES], head = 0, tail = 0;
    for (int i = 0; i < g->nn; i++) {
        cnt[i] = g->node[i].ndeps;
        if (g->node[i].live && cnt[i] == 0)
            order[tail++] = i;
    }
    while (head < tail) {
        const fa_node *n = &g->node[order[head++]];
        for (int k = 0; k < n->nsuccs; k++)
            if (--cnt[n->succs[k]] == 0)
                order[tail++] = n->succs[k];
    }
    return tail;
}

static int count_entries(const fa_graph *g)
{
    int n = 0;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live)
            n += g->node[i].type == grGraphNodeTypeGraph ? count_entries(g->node[i].p.child) : 1;
    return n;
}

/* An exact copy of a graph model (indices and handles kept), children
 * included: the shape an executable remembers. */
static fa_graph *shape_copy(const fa_graph *src)
{
    fa_graph *g = malloc(sizeof *g);
    if (!g)
        abort();
    memcpy(g, src, sizeof *g);
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].type == grGraphNodeTypeGraph && g->node[i].live)
            g->node[i].p.child = shape_copy(src->node[i].p.child);
        else if (g->node[i].type == grGraphNodeTypeGraph)
            g->node[i].p.child = NULL;
    return g;
}

static void shape_free(fa_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].type == grGraphNodeTypeGraph && g->node[i].live)
            shape_free(g->node[i].p.child);
    free(g);
}

/* Emits the plan nodes of g after 'base' (the plan nodes everything in g
 * follows); 'top' is the top-level node they belong to (-1: g is the top
 * level). Entry indexes of non-child nodes go to the shape's 'node.ndeps'
 * side table 'xi'. */
static void flatten(fa_exec *x, fa_graph *g, const uint64_t *base, int top, int *xi)
{
    int order[FA_NODES];
    uint64_t closure[FA_NODES][W];
    int n = kahn(g, order);
    for (int k = 0; k < n; k++) {
        int u = order[k];
        fa_node *nd = &g->node[u];
        uint64_t ext[W];
        memcpy(ext, base, sizeof ext);
        for (int d = 0; d < nd->ndeps; d++)
            bs_or(ext, closure[nd->deps[d]]);
        int t = top < 0 ? u : top;
        if (nd->type == grGraphNodeTypeGraph) {
            int first = x->nx;
            int cxi[FA_NODES];
            flatten(x, nd->p.child, ext, t, cxi);
            memcpy(closure[u], ext, sizeof ext);
            for (int e = first; e < x->nx; e++)
                bs_set(closure[u], e);
            if (top < 0) {
                x->top_first[u] = first;
                x->top_count[u] = x->nx - first;
            }
            if (xi)
                xi[u] = -1;
        } else {
            int e = x->nx++;
            fa_xnode *xn = &x->x[e];
            xn->type = nd->type;
            xn->enabled = true;
            xn->top = t;
            memcpy(xn->pred, ext, sizeof ext);
            xn->p = nd->p;
            memcpy(closure[u], ext, sizeof ext);
            bs_set(closure[u], e);
            if (top < 0) {
                x->top_first[u] = e;
                x->top_count[u] = 1;
            }
            if (xi)
                xi[u] = e;
        }
    }
}

/* The plan nodes of a child graph in the shape, in the order flatten
 * emitted them: maps (child, Kahn position) to entries, recursively. */
static int child_entries(const fa_graph *c, int first, const fa_xnode *x, int *map, uint8_t *types)
{
    int order[FA_NODES], n = kahn(c, order), e = first, k = 0;
    (void)x;
    for (int i = 0; i < n; i++) {
        const fa_node *nd = &c->node[order[i]];
        if (nd->type == grGraphNodeTypeGraph) {
            e += count_entries(nd->p.child);
            map[k] = -1;
        } else {
            map[k] = e++;
        }
        types[k++] = nd->type;
    }
    return e;
}

static fa_exec *exec_of(fa *f, int i)
{
    return f->x[i] && f->x[i]->live ? f->x[i] : NULL;
}

/* ------------------------------------------------------- memory types */

/* What graphrt's tracker says of an address: 1 device, 0 host memory it
 * tracks, -1 untracked; *unsure when the model cannot be sure. */
static int tracked_kind(fa *f, const void *p, bool *unsure)
{
    const uint8_t *a = p;
    if (!p)
        return -1;
    for (int b = 1; b < FA_BLOCKS; b++) {
        const fa_block *bk = &f->b[b];
        if (!bk->live || bk->kind == FB_PLAIN || bk->kind == FB_SHARED || bk->kind == FB_GMEM)
            continue;
        uint32_t lim = bk->kind == FB_ASYNC ? (uint32_t)fa_class_size(bk->size) : bk->size;
        if (a >= bk->ptr && a < bk->ptr + lim)
            return bk->kind == FB_HOST ? 0 : 1;
    }
    for (int i = 0; i < FA_GMEM; i++)
        if (f->gm[i].used && a >= (const uint8_t *)f->gm[i].ptr &&
            a < (const uint8_t *)f->gm[i].ptr + f->gm[i].size)
            *unsure = true;
    for (unsigned i = 0; i < 32 && i < f->ndead_async; i++)
        if (a >= f->dead_async[i].ptr && a < f->dead_async[i].ptr + f->dead_async[i].size)
            *unsure = true;
    /* Another thread's allocation may sit at a freed address. */
    if (f->mt && !(a >= f->plain && a < f->plain + FA_BLOCK_MAX))
        *unsure = true;
    return -1;
}

/* gr__mem_type_changed: only a tracked old address proves a change. */
/* The memory type graphrt gives p: 1 device, 0 host (anything it does not
 * track as device memory), -2 when the model cannot tell. */
static int8_t memtype_of(fa *f, const void *p)
{
    bool unsure = false;
    int k = tracked_kind(f, p, &unsure);
    return unsure ? -2 : k == 1 ? 1 : 0;
}

/* Whether 'now' has another memory type than 'fixed' (a node's type when
 * its executable was instantiated: graphrt keeps it). */
static bool memtype_changed(fa *f, int8_t fixed, const void *now, bool *unsure)
{
    int8_t n = memtype_of(f, now);
    if (fixed == -2 || n == -2) {
        *unsure = true;
        return false;
    }
    return fixed != n;
}

static bool memset_shape_ok(const fa_params *o, const fa_params *m)
{
    bool two_d = o->height > 1 || m->height > 1;
    return !two_d ||
           (o->width == m->width && o->height == m->height && o->pitch == m->pitch && o->esize == m->esize);
}

/* ---------------------------------------------------------- instantiate */

/* Instantiation checks the ranges of memcpy and memset nodes against the
 * allocations alive then (which may differ from those when the nodes were
 * added): 0 all accepted, 1 one refused, 2 the model cannot tell. */
static int verdict_join(int a, int b)
{
    return a == 1 || b == 1 ? 1 : (a | b);
}

/* The same for one memcpy or memset node (0 for other types). */
static int node_ranges_verdict(fa *f, uint8_t type, const fa_params *p)
{
    if (type == grGraphNodeTypeMemcpy)
        return verdict_join(fa_range_verdict(f, p->dst.raw, p->count),
                            fa_range_verdict(f, p->src.raw, p->count));
    if (type == grGraphNodeTypeMemset && p->width)
        return fa_range_verdict(f, p->dst.raw,
                                (p->height > 1 ? p->pitch * (p->height - 1) : 0) + p->width * p->esize);
    return 0;
}

static int graph_ranges_verdict(fa *f, const fa_graph *g)
{
    int v = 0;
    for (int i = 0; i < g->nn && v != 1; i++) {
        const fa_node *n = &g->node[i];
        if (!n->live)
            continue;
        v = verdict_join(v, n->type == grGraphNodeTypeGraph ? graph_ranges_verdict(f, n->p.child)
                                                            : node_ranges_verdict(f, n->type, &n->p));
    }
    return v;
}

static void exec_free(fa *f, int i)
{
    fa_exec *x = f->x[i];
    shape_free(x->shape);
    free(x);
    f->x[i] = NULL;
}

static void instantiate(fa *f)
{
    int slot;
    for (slot = 0; slot < FA_EXECS && f->x[slot]; slot++)
        ;
    fa_graph *g = fa_pick_graph(f, false, false);
    grGraphExec_t h = NULL;
    if (!g)
        return;
    if (slot == FA_EXECS || fa_pct(f, 8)) {
        switch (fa_rand(f, 4)) {
        case 0:
            fa_bad(f, FA_CALL(f, grGraphInstantiate(NULL, g->h, 0)), grErrorInvalidValue);
            break;
        case 1:
            fa_bad(f, FA_CALL(f, grGraphInstantiate(&h, NULL, 0)), grErrorInvalidValue);
            break;
        case 2:
            fa_bad(f, FA_CALL(f, grGraphInstantiateWithFlags(&h, g->h, grGraphInstantiateFlagDeviceLaunch)),
                   grErrorNotSupported);
            break;
        default:
            /* Unknown bits, or the upload flag outside WithParams. */
            fa_bad(f,
                   FA_CALL(f, grGraphInstantiate(&h, g->h,
                                                 fa_pct(f, 50) ? 16ull << fa_rand(f, 40)
                                                               : grGraphInstantiateFlagUpload)),
                   grErrorInvalidValue);
            break;
        }
        return;
    }
    if (count_entries(g) > FA_XNODES)
        return;
    bool mem = g->nmem > 0;
    if (mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS) && f->thread != 0)
        return;
    static const unsigned long long flags[] = {
        0, grGraphInstantiateFlagAutoFreeOnLaunch, grGraphInstantiateFlagUseNodePriority,
        grGraphInstantiateFlagUseNodePriority,
        grGraphInstantiateFlagAutoFreeOnLaunch | grGraphInstantiateFlagUseNodePriority};
    unsigned long long fl = flags[fa_rand(f, 5)];
    bool with = fa_pct(f, 50);
    if (mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS))
        pthread_mutex_lock(&f->sh->gm_lock);
    grError_t err = with ? FA_CALL(f, grGraphInstantiateWithFlags(&h, g->h, fl))
                         : FA_CALL(f, grGraphInstantiate(&h, g->h, fl));
    if (mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS))
        pthread_mutex_unlock(&f->sh->gm_lock);
    /* Instantiation writes the nodes' scratch words. */
    g->scratch_used = true;
    bool allocs = false;
    for (int i = 0; i < g->nn; i++)
        allocs |= g->node[i].live && g->node[i].type == grGraphNodeTypeMemAlloc;
    /* Ranges are checked first (InvalidValue), then the one executable of
     * a graph with allocation nodes (NotSupported, CUDA 13's code). */
    int ranges = graph_ranges_verdict(f, g);
    if (ranges == 1) {
        snprintf(f->why, sizeof f->why, "a memcpy or memset node's range overruns an allocation alive now");
        fa_bad(f, err, grErrorInvalidValue);
        return;
    }
    if (allocs && g->nexec > 0) {
        snprintf(f->why, sizeof f->why, "graph has allocation nodes and a live executable");
        fa_bad(f, err, ranges == 2 ? -1 : grErrorNotSupported);
        return;
    }
    if (ranges == 2 && !fa_either(f, err))
        return;
    if (allocs && g->exec_gone && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_REINST)) {
        /* graphmem-reinstantiate: a worker freeing the destroyed
         * executable meanwhile may make this refuse. */
        if (!fa_either(f, err))
            return;
    } else {
        fa_ok(f, err);
    }
    fa_exec *x = calloc(1, sizeof *x);
    if (!x)
        abort();
    x->h = h;
    x->live = true;
    x->src_uid = g->uid;
    x->shape = shape_copy(g);
    x->has_mem = mem;
    x->autofree = (fl & grGraphInstantiateFlagAutoFreeOnLaunch) != 0;
    uint64_t base[W] = {0};
    flatten(x, x->shape, base, -1, NULL);
    for (int i = 0; i < x->nx; i++)
        if (x->x[i].type == grGraphNodeTypeMemcpy) {
            x->x[i].kind_dst = memtype_of(f, x->x[i].p.dst.raw);
            x->x[i].kind_src = memtype_of(f, x->x[i].p.src.raw);
        }
    x->ntop = g->nlive;
    f->x[slot] = x;
    if (mem && allocs) {
        x->counted = true;
        g->nexec++;
        for (int i = 0; i < FA_GMEM; i++)
            if (f->gm[i].used && f->gm[i].g == g)
                f->gm[i].exec = slot;
    }
}

/* An executable with graph memory is gone: its allocations still
 * allocated end with it, and those of a destroyed graph are gone. */
static void exec_gone(fa *f, int xi)
{
    fa_graph *g = fa_graph_by_uid(f, f->x[xi]->src_uid);
    if (g && f->x[xi]->counted) {
        g->nexec--;
        g->exec_gone = true;
    }
    for (int k = 0; k < FA_GMEM; k++) {
        fa_gmem *m = &f->gm[k];
        if (!m->used)
            continue;
        /* exec-destroy-allocations: graphrt ends them only when the
         * executable is really freed, which a stream may delay. */
        if (m->alloc_by == xi) {
            m->alloc_by = fa_allowed(f, FZ_ALLOW_EXEC_DESTROY_ALLOC) ? -1 : GM_UNSURE;
            m->shaky = m->alloc_by == GM_UNSURE;
        }
        if (m->exec == xi) {
            m->exec = -1;
            /* An allocation whose state is unsure may live on inside the
             * executable graphrt has not freed yet. */
            if (!m->g && m->alloc_by != GM_UNSURE)
                m->used = false;
        }
    }
}

static void exec_destroy(fa *f)
{
    int i = (int)fa_rand(f, FA_EXECS);
    fa_exec *x = exec_of(f, i);
    if (!x || x->shared) {
        if (f->dead_exec && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grGraphExecDestroy(f->dead_exec)), grErrorInvalidValue);
        else
            fa_bad(f, FA_CALL(f, grGraphExecDestroy(fa_pct(f, 50) ? NULL : (grGraphExec_t)(void *)f->fake)),
                   grErrorInvalidValue);
        return;
    }
    if (x->has_mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS))
        pthread_mutex_lock(&f->sh->gm_lock);
    fa_ok(f, FA_CALL(f, grGraphExecDestroy(x->h)));
    if (x->has_mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS))
        pthread_mutex_unlock(&f->sh->gm_lock);
    f->dead_exec = x->h;
    if (x->has_mem)
        exec_gone(f, i);
    exec_free(f, i);
}

/* ---------------------------------------------------------------- launch */

static bool plan_refs_live(fa *f, const fa_exec *x)
{
    for (int i = 0; i < x->nx; i++) {
        const fa_xnode *e = &x->x[i];
        if (!e->enabled)
            continue;
        switch (e->type) {
        case grGraphNodeTypeKernel:
            if (fa_kernel_nparams[e->p.kk] && !fa_ref_live(f, &e->p.dst))
                return false;
            if (e->p.kk == FK_XFORM && !fa_ref_live(f, &e->p.src))
                return false;
            if (fa_kernel_nparams[e->p.kk] && e->p.dst.blk < 0)
                return false;
            break;
        case grGraphNodeTypeMemcpy:
            if (e->p.count && (!fa_ref_live(f, &e->p.dst) || !fa_ref_live(f, &e->p.src) || e->p.dst.blk < 0 ||
                               e->p.src.blk < 0))
                return false;
            break;
        case grGraphNodeTypeMemset:
            if (e->p.width && (!fa_ref_live(f, &e->p.dst) || e->p.dst.blk < 0))
                return false;
            break;
        default:
            break;
        }
    }
    return true;
}

static int plan_accesses(const fa_exec *x)
{
    int n = 0;
    fa_ref r[8];
    uint32_t len[8];
    bool w[8];
    for (int i = 0; i < x->nx; i++)
        if (x->x[i].enabled)
            n += fa_accesses(&x->x[i].p, x->x[i].type, r, len, w, 8);
    return n;
}

static bool meet(const fa_ref *a, uint32_t la, const fa_ref *b, uint32_t lb)
{
    return a->blk >= 0 && a->blk == b->blk && a->gen == b->gen && a->off < b->off + lb &&
           b->off < a->off + la;
}

enum {
    MAXA = 8
};

/* The memory accesses of an executable's enabled nodes: node i's
 * na[i] references, their lengths and whether each writes. */
typedef struct xaccesses {
    fa_ref r[FA_XNODES][MAXA];
    uint32_t len[FA_XNODES][MAXA];
    bool w[FA_XNODES][MAXA];
    int na[FA_XNODES];
} xaccesses;

static void exec_accesses(const fa_exec *x, xaccesses *A)
{
    for (int i = 0; i < x->nx; i++)
        A->na[i] =
            x->x[i].enabled ? fa_accesses(&x->x[i].p, x->x[i].type, A->r[i], A->len[i], A->w[i], MAXA) : 0;
}

/* Whether queued access p of a stream other than sid meets r's len bytes. */
static bool meets_other_stream(const fa_pend *p, int sid, const fa_ref *r, uint32_t len)
{
    fa_ref pr = {p->blk, p->gen, p->off, NULL};
    return p->sid != sid && meet(r, len, &pr, p->len);
}

/* Whether a launch on sid would race on memory: two unordered plan nodes
 * touching the same bytes (one writing), or a node against queued work of
 * another stream. */
static bool plan_races(fa *f, const fa_exec *x, int sid)
{
    static _Thread_local xaccesses acc;
    xaccesses *A = &acc;
    exec_accesses(x, A);
    for (int i = 0; i < x->nx; i++)
        for (int a = 0; a < A->na[i]; a++) {
            for (int q = 0; q < f->npend; q++) {
                const fa_pend *p = &f->pend[q];
                if ((p->write || A->w[i][a]) && meets_other_stream(p, sid, &A->r[i][a], A->len[i][a]))
                    return true;
            }
            for (int j = i + 1; j < x->nx; j++) {
                if (bs_has(x->x[i].pred, j) || bs_has(x->x[j].pred, i))
                    continue;
                for (int b = 0; b < A->na[j]; b++)
                    if ((A->w[i][a] || A->w[j][b]) &&
                        meet(&A->r[i][a], A->len[i][a], &A->r[j][b], A->len[j][b]))
                        return true;
            }
        }
    return false;
}

/* The launch as the model sees it: nodes applied in plan order, racing
 * nodes' outputs unknown, then the whole launch as one eager operation
 * against other streams' queued work. */
void fa_exec_launch_effect(fa *f, fa_exec *x, int sid)
{
    static _Thread_local xaccesses acc;
    xaccesses *A = &acc;
    exec_accesses(x, A);
    /* Racing reads against other streams' queued writes taint the launch. */
    bool ext_taint = false;
    for (int i = 0; i < x->nx; i++)
        for (int a = 0; a < A->na[i]; a++)
            for (int q = 0; q < f->npend; q++) {
                const fa_pend *p = &f->pend[q];
                if ((p->write || A->w[i][a]) && meets_other_stream(p, sid, &A->r[i][a], A->len[i][a]))
                    ext_taint = true;
            }
    for (int i = 0; i < x->nx; i++) {
        fa_xnode *e = &x->x[i];
        if (!e->enabled)
            continue;
        bool taint = ext_taint;
        for (int j = 0; j < x->nx && !taint; j++) {
            if (j == i || bs_has(e->pred, j) || bs_has(x->x[j].pred, i))
                continue;
            for (int a = 0; a < A->na[i] && !taint; a++)
                for (int b = 0; b < A->na[j] && !taint; b++)
                    if (!A->w[i][a] && A->w[j][b] &&
                        meet(&A->r[i][a], A->len[i][a], &A->r[j][b], A->len[j][b]))
                        taint = true;
        }
        switch (e->type) {
        case grGraphNodeTypeKernel:
        case grGraphNodeTypeMemcpy:
        case grGraphNodeTypeMemset:
            fa_apply(f, e->type, &e->p, true, taint);
            break;
        case grGraphNodeTypeHost:
            f->hc_max[e->p.hc]++;
            break;
        case grGraphNodeTypeEventRecord:
            for (int k = 0; k < FA_EVENTS; k++)
                if (f->ev[k].live && f->ev[k].h == e->p.eh) {
                    /* A new record: a mark of a capture in progress is stale now. */
                    f->ev[k].state = EV_PLAIN;
                    f->ev[k].sid = sid;
                    f->ev[k].timed = false;
                }
            break;
        default:
            break;
        }
        /* Writes racing with an unordered node's writes. */
        for (int j = 0; j < x->nx; j++) {
            if (j == i || bs_has(e->pred, j) || bs_has(x->x[j].pred, i))
                continue;
            for (int a = 0; a < A->na[i]; a++)
                for (int b = 0; b < A->na[j]; b++)
                    if (A->w[i][a] && A->w[j][b] &&
                        meet(&A->r[i][a], A->len[i][a], &A->r[j][b], A->len[j][b])) {
                        fa_block *bk = fa_ref_block(f, &A->r[i][a]);
                        if (bk)
                            memset(bk->known + A->r[i][a].off, 0,
                                   A->r[i][a].off + A->len[i][a] <= FA_BLOCK_MAX
                                       ? A->len[i][a]
                                       : FA_BLOCK_MAX - A->r[i][a].off);
                    }
        }
    }
    /* Against other streams: writes meeting queued accesses. */
    for (int i = 0; i < x->nx; i++)
        for (int a = 0; a < A->na[i]; a++) {
            if (!A->w[i][a])
                continue;
            for (int q = 0; q < f->npend; q++) {
                const fa_pend *p = &f->pend[q];
                if (!meets_other_stream(p, sid, &A->r[i][a], A->len[i][a]))
                    continue;
                fa_block *bk = fa_ref_block(f, &A->r[i][a]);
                if (bk)
                    memset(bk->known + A->r[i][a].off, 0,
                           A->r[i][a].off + A->len[i][a] <= FA_BLOCK_MAX ? A->len[i][a]
                                                                         : FA_BLOCK_MAX - A->r[i][a].off);
                if (!p->write)
                    fa_pend_taint(f, q);
            }
        }
    /* Queued accesses; a read remembers its node's output, which a later
     * write of another stream makes unknown. */
    for (int i = 0; i < x->nx; i++) {
        int out = -1;
        for (int a = 0; a < A->na[i]; a++)
            if (A->w[i][a] && out < 0)
                out = a;
        for (int a = 0; a < A->na[i] && f->npend < FA_PEND; a++) {
            if (A->r[i][a].blk < 0)
                continue;
            fa_pend q = {
                sid, A->r[i][a].blk, A->r[i][a].gen, A->r[i][a].off, A->len[i][a], A->w[i][a], -1, 0, 0, 0};
            if (!A->w[i][a] && out >= 0) {
                q.dblk = A->r[i][out].blk;
                q.dgen = A->r[i][out].gen;
                q.doff = A->r[i][out].off;
                q.dlen = A->len[i][out];
            }
            f->pend[f->npend++] = q;
        }
    }
}

/* The graph allocation at ptr, as graphrt finds it: by address. */
static fa_gmem *gm_find(fa *f, const void *ptr)
{
    for (int i = 0; i < FA_GMEM; i++)
        if (f->gm[i].used && f->gm[i].ptr == ptr)
            return &f->gm[i];
    return NULL;
}

static bool plan_frees(const fa_exec *x, const void *ptr)
{
    for (int i = 0; i < x->nx; i++)
        if (x->x[i].type == grGraphNodeTypeMemFree && x->x[i].p.dst.raw == ptr)
            return true;
    return false;
}

static bool own_alloc(const fa_exec *x, const void *ptr)
{
    for (int i = 0; i < x->nx; i++)
        if (x->x[i].type == grGraphNodeTypeMemAlloc && x->x[i].p.dst.raw == ptr)
            return true;
    return false;
}

/* The graph-memory rules of a launch: 0 if allowed, an error code if
 * refused, -2 if either is right, -3 if it must not be launched. */
static int gmem_launch_check(fa *f, fa_exec *x, int xi)
{
    if (!x->has_mem)
        return 0;
    for (int i = 0; i < x->nx; i++) {
        const fa_xnode *e = &x->x[i];
        if (e->type == grGraphNodeTypeMemAlloc) {
            const fa_gmem *m = gm_find(f, e->p.dst.raw);
            if (m && m->shaky && !x->autofree)
                return -2;
            if (m && m->alloc_by == xi && !x->autofree) {
                snprintf(f->why, sizeof f->why, "graph allocation %p is still allocated from the last launch",
                         e->p.dst.raw);
                return grErrorInvalidValue;
            }
        } else if (e->type == grGraphNodeTypeMemFree && !own_alloc(x, e->p.dst.raw)) {
            /* The model follows foreign frees only when it saw the
             * allocation made by a launch it followed; else either. */
            const fa_gmem *m = gm_find(f, e->p.dst.raw);
            /* With several threads, an address this thread's model does
             * not see allocated may be another thread's allocation by
             * now, which the launch would free: the application's own
             * race, as a second grFree is (not launched). */
            if (f->mt && (!m || m->alloc_by < 0 || m->shaky))
                return -3;
            if (!m || m->alloc_by < 0 || m->shaky)
                return -2;
        }
    }
    return 0;
}

static void gmem_launch_apply(fa *f, fa_exec *x, int xi)
{
    if (!x->has_mem)
        return;
    for (int i = 0; i < x->nx; i++) {
        const fa_xnode *e = &x->x[i];
        fa_gmem *m = gm_find(f, e->p.dst.raw);
        if (!m)
            continue;
        if (e->type == grGraphNodeTypeMemAlloc && !plan_frees(x, e->p.dst.raw))
            m->alloc_by = xi; /* allocated after this launch */
        else if (e->type == grGraphNodeTypeMemFree && !own_alloc(x, e->p.dst.raw))
            m->alloc_by = -1;
    }
}

static void launch(fa *f)
{
    int xi = (int)fa_rand(f, FA_EXECS);
    fa_exec *x = exec_of(f, xi);
    int sid = fa_pick_stream(f, false);
    grStream_t s = fa_stream_handle(f, sid);
    if (!x) {
        if (fa_pct(f, 30))
            fa_bad(f, FA_CALL(f, grGraphLaunch(fa_pct(f, 50) ? NULL : (grGraphExec_t)(void *)f->fake, s)),
                   grErrorInvalidValue);
        else if (f->dead_exec && fa_allowed(f, FZ_ALLOW_DESTROYED))
            fa_bad(f, FA_CALL(f, grGraphLaunch(f->dead_exec, s)), grErrorInvalidValue);
        return;
    }
    if (fa_pct(f, 5)) {
        fa_bad(f, FA_CALL(f, grGraphLaunch(x->h, (grStream_t)(void *)f->fake)), grErrorInvalidResourceHandle);
        return;
    }
    int k = fa_capture_of(f, sid);
    if (k >= 0) {
        /* Launching into a capture is refused and invalidates it. */
        grError_t err = FA_CALL(f, grGraphLaunch(x->h, s));
        if (f->cap[k].invalidated) {
            fa_bad(f, err, grErrorStreamCaptureInvalidated);
        } else {
            fa_bad(f, err, grErrorStreamCaptureUnsupported);
            fa_capture_invalidate(f, k);
        }
        return;
    }
    if (x->unknown || !plan_refs_live(f, x) || !fa_pend_room(f, plan_accesses(x)))
        return;
    if (f->race_free && plan_races(f, x, sid))
        return;
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f)) {
        fa_bad(f, FA_CALL(f, grGraphLaunch(x->h, s)), grErrorStreamCaptureImplicit);
        fa_unsafe(f, FU_SYNC_COPY, sid, -1, true);
        return;
    }
    int want = gmem_launch_check(f, x, xi);
    if (want == -3)
        return;
    bool upload = fa_pct(f, 10);
    if (upload)
        fa_ok(f, FA_CALL(f, grGraphUpload(x->h, s)));
    grError_t err = FA_CALL(f, grGraphLaunch(x->h, s));
    if (want == -2) {
        if (!fa_either(f, err)) {
            for (int i = 0; i < FA_GMEM; i++)
                if (f->gm[i].used && f->gm[i].alloc_by == GM_UNSURE)
                    f->gm[i].alloc_by = -1;
            return;
        }
    } else if (want) {
        fa_bad(f, err, want);
        return;
    } else {
        fa_ok(f, err);
    }
    gmem_launch_apply(f, x, xi);
    fa_exec_launch_effect(f, x, sid);
    if (fa_pct(f, 30) && !fa_unsafe(f, FU_STREAM_SYNC, sid, -1, false)) {
        grError_t e2 = FA_CALL(f, grStreamSynchronize(s));
        fa_ok(f, e2);
        fa_synced_stream(f, sid);
        if (fa_pct(f, 50))
            fa_check_memory(f);
    }
}

/* --------------------------------------------------------------- setters */

/* A top-level node of x's graph, by index into the shape. */
static int pick_top(fa *f, fa_exec *x)
{
    fa_graph *s = x->shape;
    for (int tries = 0; tries < 10; tries++) {
        int i = (int)fa_rand(f, (uint32_t)s->nn);
        if (s->node[i].live)
            return i;
    }
    return -1;
}

/* A random executable the model knows wholly (not shared, not unknown)
 * and one of its top-level nodes into *ti; NULL where the draw finds
 * none. */
static fa_exec *pick_exec_node(fa *f, int *ti)
{
    fa_exec *x = exec_of(f, (int)fa_rand(f, FA_EXECS));
    if (!x || x->shared || x->unknown)
        return NULL;
    *ti = pick_top(f, x);
    return *ti < 0 ? NULL : x;
}

/* Compares a new child graph c with the one top-level node ti of x held
 * at instantiation, as graphrt pairs them (topological order, then the
 * edges one by one, then each pair's parameters): 0 they pair, 1 they do
 * not, 2 the model cannot tell (nested child graphs, unsure memory types).
 * map[k] receives the plan node of the k-th node of c's order. */
static int child_compare(fa *f, fa_exec *x, int ti, const fa_graph *c, int *order_n, int *map)
{
    const fa_graph *o = x->shape->node[ti].p.child;
    int order_o[FA_NODES], pos_o[FA_NODES], pos_n[FA_NODES];
    uint8_t types[FA_NODES];
    if (fa_graph_height(o) > 0 || fa_graph_height(c) > 0)
        return 2;
    int no = kahn(o, order_o), nn = kahn(c, order_n);
    if (no != nn)
        return 1;
    child_entries(o, x->top_first[ti], x->x, map, types);
    for (int i = 0; i < no; i++) {
        pos_o[order_o[i]] = i;
        pos_n[order_n[i]] = i;
    }
    bool unsure = false;
    for (int i = 0; i < no; i++) {
        const fa_node *a = &o->node[order_o[i]], *b = &c->node[order_n[i]];
        if (a->type != b->type || a->ndeps != b->ndeps || a->nsuccs != b->nsuccs)
            return 1;
        /* The same edges under the pairing (as sets). */
        for (int d = 0; d < b->ndeps; d++) {
            bool found = false;
            for (int d2 = 0; d2 < a->ndeps; d2++)
                found |= pos_o[a->deps[d2]] == pos_n[b->deps[d]];
            if (!found)
                return 1;
        }
        const fa_xnode *ox = &x->x[map[i]];
        const fa_params *op = &ox->p;
        bool u = false;
        if (b->type == grGraphNodeTypeMemcpy && (memtype_changed(f, ox->kind_dst, b->p.dst.raw, &u) ||
                                                 memtype_changed(f, ox->kind_src, b->p.src.raw, &u)))
            return u ? 2 : 1;
        if (b->type == grGraphNodeTypeMemset && !memset_shape_ok(op, &b->p))
            return 1;
        /* Ranges are checked against the allocations alive now. */
        int rv = node_ranges_verdict(f, b->type, &b->p);
        if (rv == 1)
            return 1;
        u |= rv == 2;
        if (b->type == grGraphNodeTypeMemAlloc || b->type == grGraphNodeTypeMemFree)
            return 1;
        unsure |= u;
    }
    return unsure ? 2 : 0;
}

static void exec_setter(fa *f)
{
    int ti;
    fa_exec *x = pick_exec_node(f, &ti);
    if (!x)
        return;
    fa_node *n = &x->shape->node[ti];
    grGraphNode_t nh = n->h;
    bool foreign = false;
    if (fa_pct(f, 8)) {
        /* A node of another graph. */
        fa_graph *o = fa_pick_graph(f, false, false);
        if (!o || o->uid == x->src_uid || o->nlive == 0)
            return;
        for (int i = 0; i < o->nn; i++)
            if (o->node[i].live && o->node[i].h) {
                nh = o->node[i].h;
                foreign = true;
                break;
            }
        /* A node at the address of one of x's own (its graph was freed
         * and the memory reused) names that node: not foreign. */
        for (int i = 0; i < x->shape->nn && foreign; i++)
            if (x->shape->node[i].h == nh)
                foreign = false;
        if (!foreign)
            return;
    }
    fa_xnode *e = &x->x[x->top_first[ti]];
    fa_params p;
    bool bad = foreign, unsure = false;
    int want = foreign ? grErrorInvalidValue : -1;
    grError_t err;
    f->ctx_sid = -1;
    switch (n->type) {
    case grGraphNodeTypeKernel: {
        fa_kargv ka;
        fa_params_fill(f, x->shape, n->type, &p, &bad, &want);
        if (foreign)
            bad = true, want = grErrorInvalidValue;
        void **args = fa_kargs(f, &p, &ka, &bad, &want);
        grKernelNodeParams kp = {p.kh, p.grid, p.block, p.shmem, args, NULL};
        err = FA_CALL(f, grGraphExecKernelNodeSetParams(x->h, nh, &kp));
        break;
    }
    case grGraphNodeTypeMemcpy:
        fa_params_fill(f, x->shape, n->type, &p, &bad, &want);
        if (!bad && p.count == 0)
            bad = true, want = grErrorInvalidValue;
        if (!bad && memtype_changed(f, e->kind_dst, p.dst.raw, &unsure))
            bad = true, want = grErrorInvalidValue;
        if (!bad && memtype_changed(f, e->kind_src, p.src.raw, &unsure))
            bad = true, want = grErrorInvalidValue;
        if (bad && want == grErrorInvalidValue && !foreign) {
            bool u2 = false;
            snprintf(f->why, sizeof f->why,
                     "copy %p -> %p (kinds %d -> %d) replaced by %p -> %p (kinds %d -> %d)", e->p.src.raw,
                     e->p.dst.raw, tracked_kind(f, e->p.src.raw, &u2), tracked_kind(f, e->p.dst.raw, &u2),
                     p.src.raw, p.dst.raw, tracked_kind(f, p.src.raw, &u2), tracked_kind(f, p.dst.raw, &u2));
        }
        if (foreign)
            bad = true, want = grErrorInvalidValue;
        err = FA_CALL(f, grGraphExecMemcpyNodeSetParams1D(x->h, nh, p.dst.raw, p.src.raw, p.count, p.ckind));
        break;
    case grGraphNodeTypeMemset: {
        fa_params_fill(f, x->shape, n->type, &p, &bad, &want);
        if (!bad && (p.width == 0 || !memset_shape_ok(&e->p, &p)))
            bad = true, want = grErrorInvalidValue;
        if (foreign)
            bad = true, want = grErrorInvalidValue;
        grMemsetParams mp = {p.dst.raw, p.pitch, p.value, p.esize, p.width, p.height};
        err = FA_CALL(f, grGraphExecMemsetNodeSetParams(x->h, nh, &mp));
        break;
    }
    case grGraphNodeTypeHost: {
        fa_params_fill(f, x->shape, n->type, &p, &bad, &want);
        if (foreign)
            bad = true, want = grErrorInvalidValue;
        grHostNodeParams hp = {bad && !foreign ? NULL : fa_host_other, &f->hc[p.hc]};
        err = FA_CALL(f, grGraphExecHostNodeSetParams(x->h, nh, &hp));
        break;
    }
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeWaitEvent: {
        p = e->p;
        p.eh = NULL;
        for (int k = 0; k < FA_EVENTS; k++) {
            int ev = (int)fa_rand(f, FA_EVENTS);
            if (f->ev[ev].live && f->ev[ev].waitn == (n->type == grGraphNodeTypeWaitEvent)) {
                p.eh = f->ev[ev].h;
                break;
            }
        }
        if (!p.eh && !foreign)
            bad = true, want = grErrorInvalidResourceHandle;
        if (n->type == grGraphNodeTypeEventRecord)
            err = FA_CALL(f, grGraphExecEventRecordNodeSetEvent(x->h, nh, p.eh));
        else
            err = FA_CALL(f, grGraphExecEventWaitNodeSetEvent(x->h, nh, p.eh));
        break;
    }
    case grGraphNodeTypeGraph: {
        /* The source graph's current child graph (same topology, maybe new
         * parameters), or any other graph. */
        fa_graph *c = fa_pct(f, 70) ? fa_graph_by_uid(f, x->src_uid) : fa_pick_graph(f, true, false);
        if (!c || c->capture >= 0)
            return;
        if (c->uid == x->src_uid) {
            if (ti >= c->nn || !c->node[ti].live || c->node[ti].type != grGraphNodeTypeGraph ||
                !c->node[ti].p.child->h)
                return;
            c = c->node[ti].p.child;
        }
        for (int i = 0; i < c->nn; i++)
            if (c->node[i].live && !c->node[i].h)
                return;
        if (!c->h)
            return;
        int order_n[FA_NODES], map[FA_NODES];
        int cmp = foreign ? 1 : child_compare(f, x, ti, c, order_n, map);
        err = FA_CALL(f, grGraphExecChildGraphNodeSetParams(x->h, nh, c->h));
        c->scratch_used = true;
        if (cmp == 1) {
            /* Not its node, or a child graph that does not pair (CUDA 13's
             * code for that: tests/probes/memory.cu). */
            fa_bad(f, err, foreign ? grErrorInvalidValue : grErrorGraphExecUpdateFailure);
            return;
        }
        if (cmp == 2) {
            /* Applied or not: either way the plan is no longer known. */
            if (fa_either(f, err))
                x->unknown = true;
            return;
        }
        fa_ok(f, err);
        for (int i = 0; i < c->nlive; i++)
            x->x[map[i]].p = c->node[order_n[i]].p;
        return;
    }
    default: {
        /* A setter of the wrong type for this node. */
        grHostNodeParams hp = {fa_host_count, &f->hc[0]};
        fa_bad(f, FA_CALL(f, grGraphExecHostNodeSetParams(x->h, nh, &hp)), grErrorInvalidValue);
        return;
    }
    }
    if (unsure && !bad) {
        if (fa_either(f, err))
            e->p = p;
        return;
    }
    if (bad) {
        fa_bad(f, err, want);
        return;
    }
    fa_ok(f, err);
    if (fz_trace)
        fprintf(stderr, "    model: exec %p node %p (top %d, plan %d) gets v 0x%x dst blk %d +%u\n",
                (void *)x->h, (void *)nh, ti, x->top_first[ti], p.v, p.dst.blk, p.dst.off);
    e->p = p;
}

static void enable_step(fa *f)
{
    int ti;
    fa_exec *x = pick_exec_node(f, &ti);
    if (!x)
        return;
    fa_node *n = &x->shape->node[ti];
    bool toggle = n->type == grGraphNodeTypeKernel || n->type == grGraphNodeTypeMemcpy ||
                  n->type == grGraphNodeTypeMemset;
    unsigned v = 7;
    if (fa_pct(f, 50)) {
        unsigned en = fa_rand(f, 3);
        grError_t err = FA_CALL(f, grGraphNodeSetEnabled(x->h, n->h, en));
        if (!toggle) {
            fa_bad(f, err, grErrorInvalidValue);
            return;
        }
        fa_ok(f, err);
        x->x[x->top_first[ti]].enabled = en != 0;
    } else {
        grError_t err = FA_CALL(f, grGraphNodeGetEnabled(x->h, n->h, fa_pct(f, 10) ? NULL : &v));
        if (v == 7 && err == grSuccess)
            fa_fail(f, "grGraphNodeGetEnabled succeeded without writing");
        if (!toggle || v == 7) {
            fa_bad(f, err, grErrorInvalidValue);
            return;
        }
        fa_ok(f, err);
        if ((v != 0) != x->x[x->top_first[ti]].enabled)
            fa_fail(f, "grGraphNodeGetEnabled gave %u, the model says %d", v, x->x[x->top_first[ti]].enabled);
    }
}

/* ---------------------------------------------------------------- update */

typedef struct upd_result {
    int code;       /* 0 success, else the grGraphExecUpdateResult */
    int node, from; /* indexes into the new graph, -1 none */
    bool unsure;    /* an earlier pair could not be judged */
    bool maybe_ok;  /* the refusal itself is not sure (memory types) */
} upd_result;

/* The live sinks of g into out[], the one that became a sink last first;
 * returns how many. */
static int sinks_latest_first(const fa_graph *g, int *out)
{
    int n = 0;
    for (int i = 0; i < g->nn; i++) {
        if (!g->node[i].live || g->node[i].nsuccs != 0)
            continue;
        int k = n++;
        while (k > 0 && g->node[out[k - 1]].sink_seq < g->node[i].sink_seq) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = i;
    }
    return n;
}

/* CUDA's pairing of the new graph g's top-level nodes with the shape s. */
static upd_result pair_and_check(fa *f, fa_exec *x, fa_graph *g, int *pair)
{
    fa_graph *s = x->shape;
    upd_result r = {0, -1, -1, false, false};
    int pair_o[FA_NODES], queue[FA_NODES], head = 0, tail = 0, npaired = 0;
    int sink_n[FA_NODES], nsn = 0, sink_o[FA_NODES], nso = 0;
    for (int i = 0; i < FA_NODES; i++)
        pair[i] = pair_o[i] = -1;
    if (g->nlive != x->ntop)
        return (upd_result){grGraphExecUpdateErrorTopologyChanged, -1, -1, false, false};
    nsn = sinks_latest_first(g, sink_n);
    nso = sinks_latest_first(s, sink_o);
    /* More sinks in g: the first beyond the executable's count is named;
     * fewer: none (CUDA 13, tests/data/update-pairing-cuda-13.0-h100.txt). */
    if (nsn > nso)
        return (upd_result){grGraphExecUpdateErrorTopologyChanged, sink_n[nso], -1, false, false};
    if (nsn < nso)
        return (upd_result){grGraphExecUpdateErrorTopologyChanged, -1, -1, false, false};
    for (int i = 0; i < nso; i++) {
        pair_o[sink_o[i]] = sink_n[i];
        pair[sink_n[i]] = sink_o[i];
        queue[tail++] = sink_o[i];
        npaired++;
    }
    while (head < tail) {
        int o = queue[head++];
        int n = pair_o[o];
        const fa_node *on = &s->node[o], *nn = &g->node[n];
        if (nn->ndeps != on->ndeps)
            return (upd_result){grGraphExecUpdateErrorTopologyChanged, n, -1, false, false};
        for (int j = 0; j < nn->ndeps; j++) {
            int nd = nn->deps[j], od = on->deps[j];
            if (pair[nd] < 0 && pair_o[od] < 0) {
                pair_o[od] = nd;
                pair[nd] = od;
                queue[tail++] = od;
                npaired++;
            } else if (pair[nd] != od) {
                return (upd_result){grGraphExecUpdateErrorTopologyChanged, n, nd, false, false};
            }
        }
    }
    if (npaired != x->ntop)
        return (upd_result){grGraphExecUpdateErrorTopologyChanged, -1, -1, false, false};
    /* Types and parameters, in the new graph's creation order. */
    for (int i = 0; i < g->nn; i++) {
        const fa_node *nn = &g->node[i];
        if (!nn->live)
            continue;
        const fa_node *on = &s->node[pair[i]];
        const fa_xnode *e = &x->x[x->top_first[pair[i]]];
        if (nn->type != on->type)
            return (upd_result){grGraphExecUpdateErrorNodeTypeChanged, i, -1, r.unsure, false};
        switch (nn->type) {
        case grGraphNodeTypeMemcpy: {
            bool unsure = false;
            if (memtype_changed(f, e->kind_dst, nn->p.dst.raw, &unsure) ||
                memtype_changed(f, e->kind_src, nn->p.src.raw, &unsure))
                return (upd_result){grGraphExecUpdateErrorParametersChanged, i, -1, r.unsure, unsure};
            r.unsure |= unsure;
            /* The ranges, against the allocations alive now. */
            int rv = node_ranges_verdict(f, nn->type, &nn->p);
            if (rv)
                return (upd_result){grGraphExecUpdateErrorParametersChanged, i, -1, r.unsure, rv == 2};
            break;
        }
        case grGraphNodeTypeMemset: {
            if (!memset_shape_ok(&e->p, &nn->p))
                return (upd_result){grGraphExecUpdateErrorParametersChanged, i, -1, r.unsure, false};
            int rv = node_ranges_verdict(f, nn->type, &nn->p);
            if (rv)
                return (upd_result){grGraphExecUpdateErrorParametersChanged, i, -1, r.unsure, rv == 2};
            break;
        }
        case grGraphNodeTypeMemAlloc: /* not reached: the caller skips graphs with memory nodes */
        case grGraphNodeTypeMemFree:
            return (upd_result){-1, i, -1, true, true};
        case grGraphNodeTypeGraph: {
            int order_n[FA_NODES], map[FA_NODES];
            int cmp = child_compare(f, x, pair[i], nn->p.child, order_n, map);
            if (cmp == 1)
                return (upd_result){-1, i, -1, r.unsure,
                                    false}; /* refused, with a result the model does not pin */
            r.unsure |= cmp == 2;
            break;
        }
        default:
            break;
        }
    }
    return r;
}

static void update(fa *f)
{
    fa_exec *x = exec_of(f, (int)fa_rand(f, FA_EXECS));
    if (!x || x->shared)
        return;
    fa_graph *g = fa_pick_graph(f, false, false);
    if (!g)
        return;
    grGraphExecUpdateResultInfo info;
    if (fa_pct(f, 5)) {
        if (fa_pct(f, 50))
            fa_bad(f, FA_CALL(f, grGraphExecUpdate(x->h, g->h, NULL)), grErrorInvalidValue);
        else {
            fa_bad(f, FA_CALL(f, grGraphExecUpdate(x->h, NULL, &info)), grErrorInvalidValue);
            if (info.result != grGraphExecUpdateError || info.errorNode || info.errorFromNode)
                fa_fail(f, "grGraphExecUpdate with a NULL graph: result %d, nodes %p %p", (int)info.result,
                        (void *)info.errorNode, (void *)info.errorFromNode);
        }
        return;
    }
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live && !g->node[i].h)
            return;
    /* An update with memory nodes moves the executable to the new graph's
     * allocations (as CUDA 13 does), which the model does not follow:
     * tests/test-graphmem.c covers it. */
    for (int i = 0; i < g->nn; i++)
        if (g->node[i].live &&
            (g->node[i].type == grGraphNodeTypeMemAlloc || g->node[i].type == grGraphNodeTypeMemFree))
            return;
    int pair[FA_NODES];
    upd_result r = pair_and_check(f, x, g, pair);
    if (x->unknown && r.code == 0)
        r.unsure = true; /* the parameters the rules compare with are not known */
    memset(&info, 0xa5, sizeof info);
    snprintf(f->why, sizeof f->why, "model: result %d at new node %d (from %d)%s", r.code, r.node, r.from,
             r.unsure ? ", unsure" : "");
    grError_t err = FA_CALL(f, grGraphExecUpdate(x->h, g->h, &info));
    g->scratch_used = true;
    if (r.code && r.maybe_ok) {
        if (fa_either(f, err))
            x->unknown = true;
        return;
    }
    if (r.unsure && r.code) {
        /* Refused, but maybe first by an earlier node the model cannot
         * judge. */
        fa_bad(f, err, grErrorGraphExecUpdateFailure);
        return;
    }
    if (r.code == -1) {
        fa_bad(f, err, grErrorGraphExecUpdateFailure);
        if (info.result == grGraphExecUpdateSuccess || info.result == grGraphExecUpdateError)
            fa_fail(f, "grGraphExecUpdate refused with result %d", (int)info.result);
        return;
    }
    if (r.unsure) {
        if (err != grSuccess) {
            fa_bad(f, err, grErrorGraphExecUpdateFailure);
            return;
        }
        x->unknown = true;
        return;
    } else if (r.code) {
        fa_bad(f, err, grErrorGraphExecUpdateFailure);
        grGraphNode_t en = r.node >= 0 ? g->node[r.node].h : NULL,
                      ef = r.from >= 0 ? g->node[r.from].h : NULL;
        if ((int)info.result != r.code || info.errorNode != en || info.errorFromNode != ef)
            fa_fail(f,
                    "grGraphExecUpdate refused with result %d, errorNode %p, errorFromNode %p; the model "
                    "expects %d, "
                    "%p, %p (%s)",
                    (int)info.result, (void *)info.errorNode, (void *)info.errorFromNode, r.code, (void *)en,
                    (void *)ef, grGetLastErrorDetail());
        return;
    } else {
        fa_ok(f, err);
    }
    if (info.result != grGraphExecUpdateSuccess || info.errorNode || info.errorFromNode)
        fa_fail(f, "grGraphExecUpdate succeeded with result %d, nodes %p %p", (int)info.result,
                (void *)info.errorNode, (void *)info.errorFromNode);
    x->unknown = false;
    /* Applied: every pair's parameters (child graphs node by node). */
    for (int i = 0; i < g->nn; i++) {
        if (!g->node[i].live)
            continue;
        int o = pair[i];
        fa_node *nn = &g->node[i];
        if (nn->type == grGraphNodeTypeGraph) {
            int oo[FA_NODES];
            int b = kahn(nn->p.child, oo);
            for (int k = 0; k < b && k < x->top_count[o]; k++)
                x->x[x->top_first[o] + k].p = nn->p.child->node[oo[k]].p;
        } else if (nn->type != grGraphNodeTypeEmpty) {
            x->x[x->top_first[o]].p = nn->p;
            if (fz_trace)
                fprintf(stderr,
                        "    model: update of exec %p: new node %d (%p) -> top %d (plan %d), v 0x%x dst blk "
                        "%d +%u\n",
                        (void *)x->h, i, (void *)nn->h, o, x->top_first[o], nn->p.v, nn->p.dst.blk,
                        nn->p.dst.off);
        }
    }
}

/* --------------------------------------------------------------- shared */

/* Two executables that fill two shared blocks with a known pattern; every
 * thread launches them; thread 0 checks the blocks between cases. */
void fa_shared_setup(fa *f)
{
    fa_shared *sh = f->sh;
    size_t sizes[3] = {sizeof(void *), 4, 4};
    sh->size = 1024;
    fa_ok(f, FA_CALL(f, grKernelCreate(&sh->k, fa_kernel_fns[FK_FILL], "fz_shared_fill", 3, sizes)));
    for (int i = 0; i < FA_SHARED_STREAMS; i++)
        fa_ok(f, FA_CALL(f, grStreamCreate(&sh->s[i])));
    for (int i = 0; i < 2; i++) {
        grGraph_t g;
        grGraphNode_t n;
        fa_ok(f, FA_CALL(f, grMalloc((void **)&sh->blk[i], sh->size)));
        atomic_store(&sh->value[i], 0x1000u * (unsigned)(i + 1));
        uint32_t nw = sh->size / 4, v = atomic_load(&sh->value[i]);
        void *d = sh->blk[i];
        void *args[3] = {&d, &nw, &v};
        grKernelNodeParams kp = {sh->k, GR_DIM3(nw / 64, 1, 1), GR_DIM3(64, 1, 1), 0, args, NULL};
        fa_ok(f, FA_CALL(f, grGraphCreate(&g, 0)));
        fa_ok(f, FA_CALL(f, grGraphAddKernelNode(&n, g, NULL, 0, &kp)));
        fa_ok(f, FA_CALL(f, grGraphInstantiate(&sh->x[i], g, 0)));
        fa_ok(f, FA_CALL(f, grGraphDestroy(g)));
    }
}

void fa_shared_phase_check(fa *f)
{
    fa_shared *sh = f->sh;
    /* Nobody else runs: everything the threads queued completes. */
    fa_ok(f, FA_CALL(f, grDeviceSynchronize()));
    if (fa_allowed(f, FZ_ALLOW_EXEC_RACE))
        return; /* setters raced with launches: the values are not known */
    for (int i = 0; i < 2; i++) {
        uint32_t v = atomic_load(&sh->value[i]);
        bool ran = false;
        for (uint32_t k = 0; k < sh->size / 4; k++) {
            uint32_t w;
            memcpy(&w, sh->blk[i] + 4 * k, 4);
            if (k == 0)
                ran = w == v;
            if (ran && w != v + k * 0x9e3779b9u)
                fa_fail(f, "shared block %d word %u is 0x%08x, every launch writes 0x%08x", i, k, w,
                        v + k * 0x9e3779b9u);
        }
    }
}

void fa_shared_teardown(fa *f)
{
    fa_shared *sh = f->sh;
    fa_ok(f, FA_CALL(f, grDeviceSynchronize()));
    for (int i = 0; i < 2; i++) {
        fa_ok(f, FA_CALL(f, grGraphExecDestroy(sh->x[i])));
        fa_ok(f, FA_CALL(f, grFree(sh->blk[i])));
    }
    for (int i = 0; i < FA_SHARED_STREAMS; i++)
        fa_ok(f, FA_CALL(f, grStreamDestroy(sh->s[i])));
    fa_ok(f, FA_CALL(f, grKernelDestroy(sh->k)));
}

static void shared_launch(fa *f)
{
    fa_shared *sh = f->sh;
    int i = (int)fa_rand(f, 2);
    int sid = fa_pick_stream(f, true);
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f))
        return;
    if (fa_allowed(f, FZ_ALLOW_EXEC_RACE) && fa_pct(f, 30)) {
        /* Setters on an executable other threads launch (exec-race). */
        uint32_t nw = sh->size / 4, v = 0x1000u * (unsigned)(i + 1) + fa_rand(f, 2);
        void *d = sh->blk[i];
        void *args[3] = {&d, &nw, &v};
        grKernelNodeParams kp = {sh->k, GR_DIM3(nw / 64, 1, 1), GR_DIM3(64, 1, 1), 0, args, NULL};
        /* The executable's node handles died with its graph: update it
         * from a fresh graph of the same shape. */
        grGraph_t g;
        grGraphNode_t n;
        grGraphExecUpdateResultInfo info;
        fa_ok(f, FA_CALL(f, grGraphCreate(&g, 0)));
        fa_ok(f, FA_CALL(f, grGraphAddKernelNode(&n, g, NULL, 0, &kp)));
        fa_ok(f, FA_CALL(f, grGraphExecUpdate(sh->x[i], g, &info)));
        fa_ok(f, FA_CALL(f, grGraphDestroy(g)));
        return;
    }
    fa_ok(f, FA_CALL(f, grGraphLaunch(sh->x[i], fa_stream_handle(f, sid))));
}

/* grFreeAsync / grFree of a graph allocation outside any graph: allowed
 * while it is allocated (its graph left it so), refused otherwise. */
static void gmem_free(fa *f)
{
    if (!fa_gm_ok(f))
        return;
    fa_gmem *m = &f->gm[fa_rand(f, FA_GMEM)];
    if (!m->used)
        return;
    int sid = fa_pick_stream(f, true);
    bool sync = fa_pct(f, 30);
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f))
        return;
    /* The reservation surely exists while its graph or a live executable
     * holds it; one kept by a destroyed executable may be gone. */
    bool sure = m->g != NULL || m->exec >= 0;
    int unsafe = sync ? fa_unsafe(f, FU_FREE, -1, -1, false) : 0;
    if (!sure && unsafe)
        return; /* whether the refusal invalidates captures depends on what the model cannot know */
    grError_t err =
        sync ? FA_CALL(f, grFree(m->ptr)) : FA_CALL(f, grFreeAsync(m->ptr, fa_stream_handle(f, sid)));
    if (unsafe) {
        fa_unsafe(f, FU_FREE, -1, -1, true);
        fa_bad(f, err, unsafe);
        return;
    }
    /* Sure only of an allocation a followed launch left allocated. */
    if (!sure || m->alloc_by < 0 || m->shaky) {
        if (!fa_either(f, err))
            return;
    } else {
        fa_ok(f, err);
    }
    if (sync)
        fa_synced_all(f);
    m->alloc_by = -1;
}

/* ------------------------------------------------------------------ steps */

void fa_exec_step(fa *f)
{
    uint32_t k = fa_rand(f, 100);
    if (k < 14)
        instantiate(f);
    else if (k < 20)
        exec_destroy(f);
    else if (k < 50)
        launch(f);
    else if (k < 68)
        exec_setter(f);
    else if (k < 76)
        enable_step(f);
    else if (k < 88)
        update(f);
    else if (k < 92)
        gmem_free(f);
    else if (f->mt)
        shared_launch(f);
    else
        launch(f);
}

void fa_exec_teardown(fa *f)
{
    for (int i = 0; i < FA_EXECS; i++)
        if (f->x[i]) {
            fa_exec *x = f->x[i];
            if (x->has_mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS))
                pthread_mutex_lock(&f->sh->gm_lock);
            fa_ok(f, FA_CALL(f, grGraphExecDestroy(x->h)));
            if (x->has_mem && f->mt && !fa_allowed(f, FZ_ALLOW_GRAPHMEM_THREADS))
                pthread_mutex_unlock(&f->sh->gm_lock);
            if (x->has_mem)
                exec_gone(f, i);
            exec_free(f, i);
        }
}
