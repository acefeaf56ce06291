/*
 * userobj.c - the user-object references of executables: taken at
 * instantiation from the graph and the graphs nested in it, replaced by
 * grGraphExecUpdate and grGraphExecChildGraphNodeSetParams, given back
 * once the executable is destroyed and its launches in flight are over.
 *
 * Invariants: e->urefs is NULL or a table whose entries are tagged
 * TAG_OWN (held by the top-level graph itself) or with the orig index of
 * the top-level child-graph node whose graph (or graphs nested in it)
 * held them, so that a child-graph update replaces exactly that node's.
 * The table is changed only by instantiation, by an update between
 * gr__exec_write_begin and gr__exec_write_end (no launch runs then), and
 * by destroy. Destructors that become due run only where no lock is held
 * (gr__exec_urefs_drop's inline scope, graph/userobj.c) or on the
 * destructor thread.
 */
#include "exec.h"
#include "../backend/device.h"

#include <string.h>

#define TAG_OWN UINT32_MAX

static void table_free(struct gr_urefs *r)
{
    if (r) {
        gr__urefs_release_all(r);
        gr__free(r);
    }
}

/* The references held under top-level node n (orig index i): a child
 * graph's, tagged with i so that grGraphExecChildGraphNodeSetParams
 * replaces them alone; a conditional node's bodies', which are the graph's
 * own (no setter replaces a body). */
static bool node_urefs(struct gr_urefs *r, const struct grGraphNode_st *n, uint32_t i)
{
    bool ok = true;
    if (n->type == grGraphNodeTypeGraph)
        ok = gr__urefs_collect(r, n->p.child, i);
    for (unsigned b = 0; ok && n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++)
        ok = gr__urefs_collect(r, n->p.cond.bodies[b], TAG_OWN);
    return ok;
}

grError_t gr__exec_urefs_build(const char *call, grGraph_t g, struct grGraphNode_st *const *pairs,
                               struct gr_urefs **out)
{
    struct gr_urefs *r;
    struct grGraphNode_st *n;
    uint32_t i = 0;
    bool ok;
    *out = NULL;
    if (GR_LIKELY(!gr__uobj_any()))
        return grSuccess;
    r = gr__calloc(1, sizeof *r);
    if (r == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory taking the graph's user objects", call);
    ok = gr__urefs_append(r, &g->urefs, TAG_OWN);
    if (pairs) {
        for (i = 0; ok && i < g->nnodes; i++)
            ok = node_urefs(r, pairs[i], i);
    } else {
        /* Creation order: the orig index instantiation gives each node. */
        GR_GRAPH_FOR_EACH_NODE (g, n) {
            if (ok)
                ok = node_urefs(r, n, i);
            i++;
        }
    }
    if (!ok) {
        table_free(r);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory taking the graph's user objects", call);
    }
    if (r->n == 0) {
        gr__free(r->v);
        gr__free(r);
        r = NULL;
    }
    *out = r;
    return grSuccess;
}

void gr__exec_urefs_drop(grGraphExec_t e, struct gr_urefs *gone)
{
    if (gone == NULL)
        return;
    if (e->gpu != NULL)
        (void)gr__devkind()->device_sync("grGraphExecDestroy", gr__devkind()->exec_device(e->gpu));
    gr__uobj_inline_begin();
    table_free(gone);
    gr__uobj_inline_end();
}

struct gr_urefs *gr__exec_urefs_swap(grGraphExec_t e, struct gr_urefs *fresh)
{
    struct gr_urefs *old = e->urefs;
    e->urefs = fresh;
    return old;
}

grError_t gr__exec_urefs_replace_child(const char *call, grGraphExec_t e, uint32_t orig, grGraph_t child,
                                       struct gr_urefs **gone_out)
{
    struct gr_urefs fresh = {NULL, 0, 0};
    *gone_out = NULL;
    if (GR_LIKELY(!gr__uobj_any()))
        return grSuccess;
    if (!gr__urefs_collect(&fresh, child, orig)) {
        gr__urefs_release_all(&fresh);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory taking the child graph's user objects",
                        call);
    }
    if (e->urefs == NULL && fresh.n == 0)
        return grSuccess;
    struct gr_urefs *r = e->urefs ? e->urefs : gr__calloc(1, sizeof *r);
    struct gr_urefs *gone = gr__calloc(1, sizeof *gone);
    /* Room first, so that nothing fails once the old ones move. */
    bool ok = r != NULL && gone != NULL && gr__urefs_take_tag(r, orig, gone);
    if (ok && r->cap < r->n + fresh.n) {
        gr_uref *nv = gr__realloc(r->v, (r->n + fresh.n) * sizeof *nv);
        ok = nv != NULL;
        if (ok) {
            r->v = nv;
            r->cap = r->n + fresh.n;
        }
    }
    if (!ok) {
        if (r != NULL && gone != NULL) {
            /* Back where they were (take_tag left room for them). */
            for (size_t k = 0; k < gone->n; k++)
                r->v[r->n++] = gone->v[k];
            gr__free(gone->v);
        }
        gr__free(gone);
        if (r != e->urefs)
            gr__free(r);
        gr__urefs_release_all(&fresh);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory taking the child graph's user objects",
                        call);
    }
    memcpy(r->v + r->n, fresh.v, fresh.n * sizeof *fresh.v);
    r->n += fresh.n;
    gr__free(fresh.v);
    e->urefs = r;
    if (gone->n == 0) {
        gr__free(gone->v);
        gr__free(gone);
        gone = NULL;
    }
    *gone_out = gone;
    return grSuccess;
}

/* A stream op's payload: the table to drop once the launches before it
 * ran. */
static void drop_op(void *data)
{
    struct gr_urefs *r;
    memcpy(&r, data, sizeof r);
    table_free(r);
}

/* A GPU's callback: drops the table once the launches before it are
 * over. Outside an inline scope, destructors go to the destructor
 * thread (this thread may make no CUDA call). */
static void drop_gpu(void *r)
{
    table_free(r);
}

void gr__exec_urefs_destroyed(grGraphExec_t e)
{
    struct gr_urefs *r = e->urefs;
    if (GR_LIKELY(r == NULL))
        return;
    /* On a GPU the driver orders a callback behind the launches, as CUDA
     * keeps the references until they are over. */
    if (e->gpu != NULL && gr__devkind()->exec_defer(e->gpu, drop_gpu, r)) {
        e->urefs = NULL;
        return;
    }
    if (e->gpu != NULL || gr_load_acquire(&e->launches_done) >= gr_load_relaxed(&e->launches)) {
        e->urefs = NULL;
        gr__exec_urefs_drop(e, r);
        return;
    }
    /* Launches in flight, one after another ending on last_stream (which
     * e retains): an op queued behind them drops the references when
     * they are over (on a worker: destructors then run on the destructor
     * thread). Should queuing fail (out of memory), the executable's
     * free drops them. */
    gr_stream *s = gr_load_acquire(&e->last_stream);
    if (s != NULL && gr__stream_call_dev("grGraphExecDestroy", s, drop_op, &r, sizeof r) == grSuccess)
        e->urefs = NULL;
}

void gr__exec_urefs_free(grGraphExec_t e)
{
    table_free(e->urefs);
    e->urefs = NULL;
}
