/*
 * baked.c - the values an executable holds in its nodes (kernel argument
 * words, copy and memset addresses, host functions and their user data),
 * classified against graphrt's allocations: the report of
 * grGraphExecGetBakedValues / grGraphExecPrintBakedValues, and the check
 * of every grGraphLaunch under grDebugCheckLaunches (GRAPHRT_CHECK=1).
 *
 * The usual trouble they expose: an address captured or set into a node
 * and freed since. Launched, the node writes freed memory, or memory
 * handed out again to something else. A freed address is recognised by
 * the memory layer's record of the latest frees (gr__mem_lookup_freed).
 *
 * Invariant: the plan is read under e's lock (gr__exec_lock_unbiased),
 * which excludes setters and updates, never while a writer changes it.
 */
#include "exec.h"
#include "../memory/pool.h"

#include <string.h>

/* The executable's baked_gen while walk() visits its values: a freed
 * range counts only if freed after that. */
static _Thread_local uint64_t walk_baked_gen;

uint64_t gr__exec_node_born(const struct grGraphNode_st *n)
{
    uint64_t c = UINT64_MAX;
    if (n->type == grGraphNodeTypeGraph)
        c = gr__exec_graph_born(n->p.child);
    for (unsigned b = 0; n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++) {
        uint64_t cb = gr__exec_graph_born(n->p.cond.bodies[b]);
        c = cb < c ? cb : c;
    }
    return c;
}

uint64_t gr__exec_graph_born(grGraph_t g)
{
    uint64_t gen = g->born_gen;
    for (const struct grGraphNode_st *n = g->first; n; n = n->next) {
        uint64_t c = gr__exec_node_born(n);
        gen = c < gen ? c : gen;
    }
    return gen;
}

/* Calls fn for each value; stops at the first error it returns. */
typedef grError_t (*bake_fn)(void *ctx, const grBakedValue *v);

static const char *freed_by(gr_mem_kind kind)
{
    switch (kind) {
    case GR_MEM_DEVICE:
        return "grFree";
    case GR_MEM_HOST:
        return "grFreeHost";
    case GR_MEM_POOL:
        return "its memory pool";
    }
    return "graphrt";
}

static void classify(grBakedValue *v)
{
    void *base = NULL;
    size_t size = 0;
    gr_mem_kind kind = GR_MEM_DEVICE;
    const void *p = (const void *)(uintptr_t)v->value;
    v->kind = grBakedPlain;
    if (v->size < sizeof(void *) || p == NULL)
        return;
    if (gr__mem_lookup(p, &base, &size, &kind)) {
        /* A pool keeps the blocks freed into it, tracked: a block that
         * is no live allocation was freed (grFreeAsync). */
        v->kind = kind == GR_MEM_POOL && !gr__pool_owns(base) ? grBakedFreedAllocation : grBakedAllocation;
        if (v->kind == grBakedFreedAllocation)
            v->freedBy = "grFreeAsync";
    } else if (gr__mem_lookup_freed(p, walk_baked_gen, &base, &size, &kind)) {
        v->kind = grBakedFreedAllocation;
        v->freedBy = freed_by(kind);
    } else {
        return;
    }
    v->allocBase = base;
    v->allocSize = size;
    v->allocOffset = (size_t)((uintptr_t)p - (uintptr_t)base);
}

static grError_t visit(bake_fn fn, void *ctx, grBakedValue *v, grBakedField field, uint64_t value,
                       size_t extent)
{
    v->field = field;
    v->value = value;
    v->extent = extent;
    v->allocBase = NULL;
    v->allocSize = v->allocOffset = 0;
    v->freedBy = NULL;
    if (field != grBakedKernelArg && field != grBakedMemOpAddress) {
        v->param = -1;
        v->offset = 0;
        v->size = sizeof(void *);
    }
    classify(v);
    return fn(ctx, v);
}

static grError_t visit_kernel(const gr_pnode *n, bake_fn fn, void *ctx, grBakedValue *v)
{
    grKernel_t k = n->u.kern.k;
    v->kernel = k->name;
    for (int i = 0; i < k->nparams; i++) {
        const unsigned char *arg = n->u.kern.argv[i];
        uint32_t size = k->sizes[i];
        v->param = i;
        /* Words at multiples of 8, as the compiler lays out pointers in
         * a struct; a tail shorter than a word is one value. */
        for (uint32_t off = 0; off < size; off += 8) {
            uint64_t word = 0;
            v->offset = off;
            v->size = size - off < 8 ? size - off : 8;
            memcpy(&word, arg + off, v->size);
            grError_t err = visit(fn, ctx, v, grBakedKernelArg, word, 0);
            if (err)
                return err;
        }
    }
    return grSuccess;
}

static grError_t visit_bodies(const gr_pnode *n, unsigned at, const struct grGraphNode_st *gn,
                              bool enabled_only, bake_fn fn, void *ctx);

/* Visits the values of plan node n (graph node 'gn'), reported as plan
 * node 'at' (n's index, or for a node of a conditional node's body the
 * conditional node's). */
static grError_t visit_node(const gr_pnode *n, unsigned at, const struct grGraphNode_st *gn,
                            bool enabled_only, bake_fn fn, void *ctx)
{
    grBakedValue v;
    grError_t err = grSuccess;
    memset(&v, 0, sizeof v);
    v.node = at;
    v.graphNode = (grGraphNode_t)(uintptr_t)gn;
    v.nodeType = (grGraphNodeType)n->type;
    switch (n->type) {
    case grGraphNodeTypeKernel:
        return visit_kernel(n, fn, ctx, &v);
    case grGraphNodeTypeMemcpy: {
        size_t dn = n->u.copy.p.count, sn = dn;
        if (GR_UNLIKELY(n->u.copy.pitched)) { /* a pitched copy's bytes: its span on each side */
            gr_region d, r;
            gr__region_of_shape(&d, n->u.copy.p.dst, gr__pnode_copy_shape(n), true);
            gr__region_of_shape(&r, n->u.copy.p.src, gr__pnode_copy_shape(n), false);
            dn = gr__region_span(&d);
            sn = gr__region_span(&r);
        }
        err = visit(fn, ctx, &v, grBakedCopyDst, (uintptr_t)n->u.copy.p.dst, dn);
        return err ? err : visit(fn, ctx, &v, grBakedCopySrc, (uintptr_t)n->u.copy.p.src, sn);
    }
    case grGraphNodeTypeMemset:
        return visit(fn, ctx, &v, grBakedMemsetDst, (uintptr_t)n->u.memset.dst,
                     gr__memset_span(&n->u.memset));
    case grGraphNodeTypeHost: {
        uint64_t f = 0;
        memcpy(&f, &n->u.host.fn, sizeof n->u.host.fn < 8 ? sizeof n->u.host.fn : 8);
        err = visit(fn, ctx, &v, grBakedHostFn, f, 0);
        return err ? err : visit(fn, ctx, &v, grBakedHostUserData, (uintptr_t)n->u.host.userData, 0);
    }
    case grGraphNodeTypeConditional:
        return visit_bodies(n, at, gn, enabled_only, fn, ctx);
    case grGraphNodeTypeBatchMemOp:
        for (uint32_t i = 0; i < n->u.memop.count; i++) {
            const grStreamBatchMemOpParams *op = &n->u.memop.ops[i];
            if (op->operation == grStreamMemOpBarrier)
                continue;
            bool wide =
                op->operation == grStreamMemOpWaitValue64 || op->operation == grStreamMemOpWriteValue64;
            v.param = (int)i;
            v.offset = 0;
            v.size = sizeof(void *);
            if ((err =
                     visit(fn, ctx, &v, grBakedMemOpAddress, (uintptr_t)op->waitValue.address, wide ? 8 : 4)))
                return err;
        }
        return grSuccess;
    default:
        return grSuccess;
    }
}

/* The values of a conditional node's bodies, in body order and each
 * body's plan order, reported as the conditional node's. */
static grError_t visit_bodies(const gr_pnode *n, unsigned at, const struct grGraphNode_st *gn,
                              bool enabled_only, bake_fn fn, void *ctx)
{
    grError_t err = grSuccess;
    const gr_cond_plan *c = n->u.cond;
    for (uint32_t b = 0; b < c->nbodies && !err; b++) {
        const gr_plan *p = c->bodies[b];
        for (uint32_t i = 0; i + 1 < p->nnodes && !err; i++)
            if (p->nodes[i].enabled || !enabled_only)
                err = visit_node(&p->nodes[i], at, gn, enabled_only, fn, ctx);
    }
    return err;
}

/* The graph node of the instantiated graph that is, or holds, each plan
 * node: from the node table (top-level nodes, a child graph's inlined
 * nodes following its node). NULL when out of memory. */
static const struct grGraphNode_st **graph_nodes(grGraphExec_t e)
{
    const struct grGraphNode_st **map = gr__calloc(e->plan.nnodes, sizeof *map);
    if (!map)
        return NULL;
    for (uint32_t i = 0; i < e->norig; i++) {
        const gr_orig *o = &e->orig[i];
        for (uint32_t j = o->pindex; j <= o->pindex + o->child_count && j < e->plan.nnodes; j++)
            map[j] = o->node;
    }
    return map;
}

/* Visits every value of e's plan, under e's lock, but those of disabled
 * nodes when 'enabled_only'. 'map' may be NULL (no graph nodes named). */
static grError_t walk(grGraphExec_t e, const struct grGraphNode_st **map, bool enabled_only, bake_fn fn,
                      void *ctx)
{
    grError_t err = grSuccess;
    gr__exec_lock_unbiased(e);
    walk_baked_gen = e->baked_gen;
    const gr_plan *p = &e->plan;
    for (uint32_t i = 0; i + 1 < p->nnodes && !err; i++)
        if (p->nodes[i].enabled || !enabled_only)
            err = visit_node(&p->nodes[i], i, map ? map[i] : NULL, enabled_only, fn, ctx);
    gr__spin_unlock(&e->lock);
    return err;
}

/* ------------------------------------------------------------- report */

typedef struct collect {
    grBakedValue *out;
    size_t cap, n;
} collect;

static grError_t collect_one(void *ctx, const grBakedValue *v)
{
    collect *c = ctx;
    if (c->out && c->n < c->cap)
        c->out[c->n] = *v;
    c->n++;
    return grSuccess;
}

GR_API grError_t grGraphExecGetBakedValues(grGraphExec_t exec, grBakedValue *values, size_t *count)
{
    grError_t err;
    if ((err = gr__exec_check("grGraphExecGetBakedValues", exec)))
        return err;
    if (!count)
        return gr__fail(grErrorInvalidValue, "grGraphExecGetBakedValues: 'count' is NULL");
    const struct grGraphNode_st **map = graph_nodes(exec);
    if (!map)
        return gr__fail(grErrorMemoryAllocation, "grGraphExecGetBakedValues: out of memory");
    collect c = {values, values ? *count : 0, 0};
    (void)walk(exec, map, false, collect_one, &c);
    gr__free(map);
    *count = values && c.n > c.cap ? c.cap : c.n;
    return grSuccess;
}

static const char *field_name(grBakedField f)
{
    switch (f) {
    case grBakedKernelArg:
        return "args";
    case grBakedCopyDst:
        return "dst";
    case grBakedCopySrc:
        return "src";
    case grBakedMemsetDst:
        return "dst";
    case grBakedHostFn:
        return "fn";
    case grBakedHostUserData:
        return "userData";
    case grBakedMemOpAddress:
        return "address";
    }
    return "?";
}

static grError_t print_one(void *ctx, const grBakedValue *v)
{
    FILE *f = ctx;
    int r = fprintf(f, "node %u %s", v->node, gr__node_type_name(v->nodeType));
    if (v->kernel)
        r |= fprintf(f, " '%s' args[%d]+%u", v->kernel, v->param, v->offset);
    else if (v->field == grBakedMemOpAddress)
        r |= fprintf(f, " ops[%d].address", v->param);
    else
        r |= fprintf(f, " %s", field_name(v->field));
    r |= fprintf(f, " = 0x%llx", v->value);
    if (v->extent)
        r |= fprintf(f, " (%zu bytes)", v->extent);
    if (v->kind == grBakedAllocation)
        r |= fprintf(f, " -> %zu bytes into the allocation at %p of %zu bytes", v->allocOffset, v->allocBase,
                     v->allocSize);
    else if (v->kind == grBakedFreedAllocation)
        r |= fprintf(f, " -> STALE: %zu bytes into the allocation at %p of %zu bytes, freed by %s",
                     v->allocOffset, v->allocBase, v->allocSize, v->freedBy);
    else if (v->field == grBakedKernelArg)
        r |= fprintf(f, " (value)");
    else
        r |= fprintf(f, " (host memory)");
    if (v->graphNode)
        r |= fprintf(f, " [graph node %p]", (void *)v->graphNode);
    r |= fprintf(f, "\n");
    return r < 0 ? grErrorUnknown : grSuccess;
}

GR_API grError_t grGraphExecPrintBakedValues(grGraphExec_t exec, FILE *out)
{
    grError_t err;
    if ((err = gr__exec_check("grGraphExecPrintBakedValues", exec)))
        return err;
    if (!out)
        return gr__fail(grErrorInvalidValue, "grGraphExecPrintBakedValues: 'out' is NULL");
    const struct grGraphNode_st **map = graph_nodes(exec);
    if (!map)
        return gr__fail(grErrorMemoryAllocation, "grGraphExecPrintBakedValues: out of memory");
    err = walk(exec, map, false, print_one, out);
    gr__free(map);
    if (err || fflush(out) != 0)
        return gr__fail(grErrorUnknown, "grGraphExecPrintBakedValues: writing the report failed");
    return grSuccess;
}

/* -------------------------------------------------------------- check */

static grError_t check_one(void *ctx, const grBakedValue *v)
{
    const char *call = ctx;
    char where[160];
    if (v->kernel)
        snprintf(where, sizeof where, "kernel node %u ('%s') argument %d (bytes %u..%u)", v->node, v->kernel,
                 v->param, v->offset, v->offset + v->size - 1);
    else
        snprintf(where, sizeof where, "%s node %u %s", gr__node_type_name(v->nodeType), v->node,
                 field_name(v->field));
    if (v->kind == grBakedFreedAllocation)
        return gr__fail(
            grErrorIllegalAddress,
            "%s (GRAPHRT_CHECK): %s holds %p, which points %zu bytes into the %zu-byte allocation "
            "at %p freed by %s; the address was baked into the node when it was captured, added or "
            "set: set the node's parameters again or instantiate anew",
            call, where, (void *)(uintptr_t)v->value, v->allocOffset, v->allocSize, v->allocBase, v->freedBy);
    if (v->kind == grBakedAllocation && v->extent > v->allocSize - v->allocOffset)
        return gr__fail(
            grErrorIllegalAddress,
            "%s (GRAPHRT_CHECK): %s covers %zu bytes at %p, %zu bytes into the %zu-byte allocation "
            "at %p: it runs %zu bytes past its end",
            call, where, v->extent, (void *)(uintptr_t)v->value, v->allocOffset, v->allocSize, v->allocBase,
            v->extent - (v->allocSize - v->allocOffset));
    return grSuccess;
}

grError_t gr__exec_check_baked(const char *call, grGraphExec_t e)
{
    /* A disabled node runs as an empty node: what it holds is not used. */
    return walk(e, NULL, true, check_one, (void *)(uintptr_t)call);
}
