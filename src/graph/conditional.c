/*
 * conditional.c - conditional handles and the graph side of conditional
 * nodes (docs/conditional.md): a handle's slot, the checks of a node's
 * parameters, its body graphs, and CUDA's list of the node types a body
 * may hold.
 *
 * A handle is the address of its slot (plan.h, gr_cond_slot). The graph it
 * was made for holds a reference, the conditional node using it one, and
 * every executable built with it one; the slot dies with the last, so
 * that a kernel of a running executable can set it after its graph was
 * destroyed. A handle whose graph and executables are gone is refused
 * ('users'; slots come from a shelf of dead shells, as handles do).
 * Instantiate sets the slot's value cell; launches reset and read it
 * (backend/cpu/launch.c, node_run.c).
 *
 * Invariants:
 *   - a conditional node's bodies are graphs whose owner is the node; they
 *     die with it (gr__node_params_free);
 *   - a handle serves at most one node (slot->node), of a graph of the
 *     nest of the graph it was made for;
 *   - the node types a body may not hold are accepted when added, as CUDA
 *     does, and refused by instantiation (gr__cond_body_first_refused),
 *     but for memory nodes, refused when added (add.c).
 */
#include "graph.h"

#include "../backend/plan.h"

#include <string.h>

static gr_shelf slot_shelf = GR_SHELF_INIT(sizeof(gr_cond_slot));

void gr__cond_slot_retain(gr_cond_slot *s)
{
    gr_fetch_add_relaxed(&s->refs, 1);
}

void gr__cond_slot_release(gr_cond_slot *s)
{
    if (gr_fetch_sub_acq_rel(&s->refs, 1) != 1)
        return;
    s->magic = GR_MAGIC_DEAD;
    gr__shell_retire(&slot_shelf, s);
}

void gr__graph_cond_slots_free(grGraph_t g)
{
    gr_cond_slot *s = g->cond_slots, *next;
    for (; s != NULL; s = next) {
        next = s->next;
        s->graph = NULL;
        gr_fetch_sub_relaxed(&s->users, 1u);
        gr__cond_slot_release(s);
    }
    g->cond_slots = NULL;
}

/* The slot a handle names, if it is live. Slots are cache-line aligned;
 * 'probe' first asks the kernel whether the memory can be read (about a
 * microsecond), so that a made-up handle is refused instead of read: the
 * calls that build graphs pay that, not grGraphSetConditional, which
 * kernels call once per iteration. */
static gr_cond_slot *slot_of(grGraphConditionalHandle h, bool probe)
{
    gr_cond_slot *s = (gr_cond_slot *)(uintptr_t)h;
    if (s == NULL || ((uintptr_t)s & 63u) != 0 || (probe && !gr__probe_readable(s, sizeof *s)) ||
        s->magic != GR_MAGIC_COND)
        return NULL;
    return s;
}

/* Whether a body may hold a node of type t (CUDA's list). */
static bool body_allows(grGraphNodeType t)
{
    switch (t) {
    case grGraphNodeTypeKernel:
    case grGraphNodeTypeEmpty:
    case grGraphNodeTypeMemcpy:
    case grGraphNodeTypeMemset:
    case grGraphNodeTypeGraph:
    case grGraphNodeTypeConditional:
        return true;
    case grGraphNodeTypeHost:
    case grGraphNodeTypeBatchMemOp: /* CUDA's list has no such node */
    case grGraphNodeTypeCollective: /* every rank must run the same collectives */
    case grGraphNodeTypeWaitEvent:
    case grGraphNodeTypeEventRecord:
    case grGraphNodeTypeMemAlloc:
    case grGraphNodeTypeMemFree:
    case grGraphNodeTypeCount:
        return false;
    }
    return false;
}

bool gr__graph_in_body(grGraph_t g)
{
    for (; g->owner != NULL; g = g->owner->graph)
        if (g->owner->type == grGraphNodeTypeConditional)
            return true;
    return false;
}

const struct grGraphNode_st *gr__cond_body_first_refused(grGraph_t c)
{
    const struct grGraphNode_st *bad = NULL;
    struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (c, n) {
        if (bad != NULL)
            continue;
        if (!body_allows(n->type))
            bad = n;
        else if (n->type == grGraphNodeTypeGraph)
            bad = gr__cond_body_first_refused(n->p.child);
    }
    return bad;
}

/* The graph at the top of g's nest (bodies and child graphs). */
static grGraph_t root_of(grGraph_t g)
{
    while (g->owner != NULL)
        g = g->owner->graph;
    return g;
}

bool gr__graph_has_conditional(grGraph_t g)
{
    struct grGraphNode_st *n;
    bool found = false;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->type == grGraphNodeTypeConditional)
            found = true;
        else if (!found && n->type == grGraphNodeTypeGraph)
            found = gr__graph_has_conditional(n->p.child);
    }
    return found;
}

const char *gr__cond_type_name(grGraphConditionalNodeType t)
{
    switch (t) {
    case grGraphCondTypeIf:
        return "IF";
    case grGraphCondTypeWhile:
        return "WHILE";
    case grGraphCondTypeSwitch:
        return "SWITCH";
    }
    return "?";
}

grError_t gr__cond_params_make(const char *call, grGraph_t g, const grConditionalNodeParams *in,
                               gr_cond_params *out)
{
    gr_cond_slot *s = slot_of(in->handle, true);
    if (s == NULL || s->graph == NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.handle 0x%llx is not a live conditional handle; make "
                        "one with grGraphConditionalHandleCreate for this graph",
                        call, in->handle);
    if (root_of((grGraph_t)(uintptr_t)s->graph) != root_of(g))
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.handle was made for graph %p, which is not graph %p "
                        "nor a graph of the same nest (its bodies, or the graph whose body it is), as CUDA "
                        "requires",
                        call, GR_PTR(s->graph), GR_PTR(g));
    if (s->node != NULL)
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.handle is the handle of %s already; a handle serves one "
                        "conditional node, as in CUDA (make another with grGraphConditionalHandleCreate)",
                        call, gr__node_label(s->node));
    if (g->owner != NULL && g->owner->type == grGraphNodeTypeGraph)
        return gr__fail(
            grErrorNotSupported,
            "%s: graph %p is the child graph of %s; graphs with conditional nodes cannot be child "
            "graphs, as in CUDA: add the node to the parent graph",
            call, GR_PTR(g), gr__node_label(g->owner));
    unsigned size = in->size;
    switch (in->type) {
    case grGraphCondTypeIf:
        if (size == 1 || size == 2)
            break;
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.size is %u; an IF node has 1 body (or 2: the second "
                        "runs when the value is 0)",
                        call, size);
    case grGraphCondTypeWhile:
        if (size == 1)
            break;
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.size is %u; a WHILE node has 1 body", call, size);
    case grGraphCondTypeSwitch:
        if (size >= 1 && size <= GR_COND_SWITCH_MAX)
            break;
        if (size > GR_COND_SWITCH_MAX)
            return gr__fail(grErrorInvalidValue,
                            "%s: nodeParams->conditional.size is %u; a SWITCH node has at most %u bodies "
                            "(GR_COND_SWITCH_MAX: each is a graph made now)",
                            call, size, GR_COND_SWITCH_MAX);
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.size is 0; a SWITCH node has at least 1 body", call);
    default:
        return gr__fail(grErrorInvalidValue,
                        "%s: nodeParams->conditional.type %d is not a grGraphConditionalNodeType (IF, WHILE, "
                        "SWITCH)",
                        call, (int)in->type);
    }
    if (gr__graph_nest_depth(g) + 1 > GR_GRAPH_MAX_NEST)
        return gr__fail(grErrorInvalidValue,
                        "%s: graph %p is nested %u levels deep already; bodies would nest deeper than the "
                        "%u levels grGraphInstantiate takes",
                        call, GR_PTR(g), gr__graph_nest_depth(g), GR_GRAPH_MAX_NEST);
    grGraph_t *bodies = gr__calloc(size, sizeof *bodies);
    if (bodies == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory making %u body graphs", call, size);
    for (unsigned b = 0; b < size; b++) {
        if ((bodies[b] = gr__graph_new()) != NULL)
            continue;
        while (b > 0)
            gr__graph_free(bodies[--b]);
        gr__free(bodies);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory making %u body graphs", call, size);
    }
    gr__cond_slot_retain(s); /* the node's reference */
    *out = (gr_cond_params){.slot = s, .type = in->type, .nbodies = size, .bodies = bodies};
    return grSuccess;
}

grError_t gr__cond_check_not_capturing(const char *call, grGraph_t g)
{
    grError_t err = grSuccess;
    struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        for (unsigned b = 0; !err && n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++)
            if ((err = gr__graph_check_not_capturing(call, n->p.cond.bodies[b])) == grSuccess)
                err = gr__cond_check_not_capturing(call, n->p.cond.bodies[b]);
    }
    return err;
}

/* ---------------------------------------------------------- public API */

GR_API grError_t grGraphConditionalHandleCreate(grGraphConditionalHandle *pHandle_out, grGraph_t graph,
                                                unsigned int defaultLaunchValue, unsigned int flags)
{
    static const char call[] = "grGraphConditionalHandleCreate";
    grError_t err;
    if (pHandle_out == NULL)
        return gr__fail(grErrorInvalidValue, "%s: pHandle_out is NULL; pass where to store the handle", call);
    if ((err = gr__graph_check(call, graph)) != grSuccess)
        return err;
    if (flags & ~(unsigned)grGraphCondAssignDefault)
        return gr__fail(grErrorInvalidValue, "%s: flags 0x%x has bits other than grGraphCondAssignDefault",
                        call, flags);
    gr_cond_slot *s = gr__shell_alloc(&slot_shelf);
    if (s == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    memset(s, 0, sizeof *s);
    atomic_init(&s->refs, 1);
    atomic_init(&s->value, defaultLaunchValue);
    atomic_init(&s->execs, 0u);
    atomic_init(&s->users, 1u);
    s->defval = defaultLaunchValue;
    s->flags = flags;
    s->graph = graph;
    s->next = graph->cond_slots;
    graph->cond_slots = s;
    s->magic = GR_MAGIC_COND;
    *pHandle_out = (grGraphConditionalHandle)(uintptr_t)s;
    return grSuccess;
}

GR_API grError_t grGraphSetConditional(grGraphConditionalHandle handle, unsigned int value)
{
    gr_cond_slot *s = slot_of(handle, false);
    if (GR_UNLIKELY(s == NULL || gr_load_relaxed(&s->users) == 0))
        return gr__fail(grErrorInvalidValue,
                        "grGraphSetConditional: handle 0x%llx is not a live conditional handle (its graph "
                        "and every executable built from it are gone, or it never was one)",
                        handle);
    gr_store_relaxed(&s->value, value);
    return grSuccess;
}
