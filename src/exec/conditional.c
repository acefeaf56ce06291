/*
 * conditional.c - conditional nodes in executables: each body compiled
 * once into a plan of its own at instantiation (the backend runs it in
 * order, nested in the node, as often as the node says: see
 * backend/cpu/node_run.c), and the handles an executable uses, referenced
 * by it and reset at each launch where they ask so.
 *
 * Invariants:
 *   - a handle is used by at most one live executable (CUDA: a graph with
 *     conditional nodes has one executable at a time); slot->execs counts
 *     it, set here and cleared when the executable is freed;
 *   - the plans of the bodies are never changed once built; nothing of
 *     them is allocated at launch.
 */
#include "exec.h"

#include <stdio.h>
#include <string.h>

void gr__exec_cond_free(gr_cond_plan *c)
{
    if (c == NULL)
        return;
    for (uint32_t i = 0; i < c->nbodies; i++) {
        if (c->bodies[i] == NULL)
            continue;
        gr__plan_free(c->bodies[i]);
        gr__free(c->bodies[i]);
    }
    gr__free(c->nodes);
    gr__free(c);
}

grError_t gr__exec_cond_build_for(const char *call, const struct grGraphNode_st *gn, int depth,
                                  gr_cond_plan **out)
{
    const gr_cond_params *cp = &gn->p.cond;
    *out = NULL;
    gr_cond_plan *c = gr__calloc(1, sizeof *c + cp->nbodies * sizeof c->bodies[0]);
    size_t total = 0;
    for (uint32_t i = 0; i < cp->nbodies; i++)
        total += cp->bodies[i]->nnodes;
    if (c != NULL)
        c->nodes = gr__malloc(total * sizeof *c->nodes + (cp->nbodies + 1) * sizeof *c->first);
    if (c == NULL || c->nodes == NULL) {
        gr__free(c);
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    }
    c->first = (uint32_t *)(c->nodes + total);
    c->first[0] = 0;
    c->slot = cp->slot;
    c->type = (uint32_t)cp->type;
    c->nbodies = cp->nbodies;
    for (uint32_t i = 0; i < cp->nbodies; i++) {
        const struct grGraphNode_st *bad = gr__cond_body_first_refused(cp->bodies[i]);
        if (bad != NULL) {
            gr__exec_cond_free(c);
            /* CUDA 13: NodeOperationNotSupported, naming the node (probe). */
            gr__inst_fault.node = bad;
            gr__inst_fault.named = true;
            gr__inst_fault.result = grGraphInstantiateNodeOperationNotSupported;
            return gr__fail(
                grErrorInvalidValue,
                "%s: %s is in body %u of %s (or in a child graph there); a body may hold only kernel, "
                "empty, memcpy, memset, child graph and conditional nodes, as in CUDA",
                call, gr__node_label(bad), i, gr__node_label(gn));
        }
        /* A plan has cache-line aligned fields. */
        gr_plan *p = gr__aligned_alloc(64, sizeof *p);
        if (p == NULL) {
            gr__exec_cond_free(c);
            return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
        }
        memset(p, 0, sizeof *p);
        grError_t err = gr__plan_build_body(call, cp->bodies[i], depth, p);
        if (err != grSuccess) {
            gr__free(p);
            gr__exec_cond_free(c);
            return err;
        }
        c->bodies[i] = p;
        /* The build left in each node's scratch the plan node its
         * incoming edges attach to: its own (a child graph's 'enter'). */
        uint32_t k = c->first[i];
        const struct grGraphNode_st *bn;
        GR_GRAPH_FOR_EACH_NODE (cp->bodies[i], bn)
            c->nodes[k++] = (gr_body_node){bn, (uint32_t)(bn->scratch >> 32), (uint32_t)bn->type};
        c->first[i + 1] = k;
    }
    *out = c;
    return grSuccess;
}

/* gr__exec_find_body_node within conditional plan c. */
static grGraphNodeType find_in_cond(const gr_cond_plan *c, const void *node, gr_pnode **out)
{
    for (uint32_t b = 0; b < c->nbodies; b++)
        for (uint32_t k = c->first[b]; k < c->first[b + 1]; k++) {
            const gr_body_node *bn = &c->nodes[k];
            gr_pnode *pn = &c->bodies[b]->nodes[bn->pindex];
            if (bn->node == node) {
                *out = pn;
                return (grGraphNodeType)bn->type;
            }
            grGraphNodeType t;
            if (bn->type == grGraphNodeTypeConditional &&
                (t = find_in_cond(pn->u.cond, node, out)) != grGraphNodeTypeCount)
                return t;
        }
    return grGraphNodeTypeCount;
}

bool gr__exec_has_cond(const struct grGraphExec_st *e)
{
    bool any = false;
    for (uint32_t i = 0; i < e->norig && !any; i++)
        any = e->orig[i].type == grGraphNodeTypeConditional;
    return any;
}

grGraphNodeType gr__exec_find_body_node(const struct grGraphExec_st *e, const void *node, gr_pnode **out)
{
    for (uint32_t i = 0; i < e->norig; i++) {
        grGraphNodeType t;
        if (e->orig[i].type == grGraphNodeTypeConditional &&
            (t = find_in_cond(e->plan.nodes[e->orig[i].pindex].u.cond, node, out)) != grGraphNodeTypeCount)
            return t;
    }
    return grGraphNodeTypeCount;
}

void gr__exec_cond_keep_nodes(gr_cond_plan *fresh, gr_cond_plan *old)
{
    gr_body_node *nodes = fresh->nodes;
    uint32_t *first = fresh->first;
    fresh->nodes = old->nodes;
    fresh->first = old->first;
    old->nodes = nodes;
    old->first = first;
    /* Same shape: the bodies' plans hold their nodes at the same places,
     * so a node disabled with grGraphNodeSetEnabled stays disabled. */
    for (uint32_t b = 0; b < fresh->nbodies; b++) {
        gr_plan *fp = fresh->bodies[b];
        const gr_plan *op = old->bodies[b];
        for (uint32_t i = 0; i + 1 < fp->nnodes; i++) {
            fp->nodes[i].enabled = op->nodes[i].enabled;
            if (fp->nodes[i].type == grGraphNodeTypeConditional)
                gr__exec_cond_keep_nodes(fp->nodes[i].u.cond, op->nodes[i].u.cond);
        }
    }
}

static void collect(const gr_plan *p, gr_cond_slot **list, uint32_t *n);

/* Adds c's handle and those of its bodies' conditional nodes to
 * list[*n..], each once: list has room for one per node (count_cond). */
static void collect_cond(const gr_cond_plan *c, gr_cond_slot **list, uint32_t *n)
{
    bool seen = false;
    for (uint32_t k = 0; k < *n && !seen; k++)
        seen = list[k] == c->slot;
    if (!seen)
        list[(*n)++] = c->slot;
    for (uint32_t b = 0; b < c->nbodies; b++)
        collect(c->bodies[b], list, n);
}

static void collect(const gr_plan *p, gr_cond_slot **list, uint32_t *n)
{
    for (uint32_t i = 0; i + 1 < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeConditional)
            collect_cond(p->nodes[i].u.cond, list, n);
}

/* Conditional node c and those of its bodies. */
uint32_t gr__plan_cond_count(const gr_plan *p);

uint32_t gr__exec_cond_count(const gr_cond_plan *c)
{
    uint32_t n = 1;
    for (uint32_t b = 0; b < c->nbodies; b++)
        n += gr__plan_cond_count(c->bodies[b]);
    return n;
}

uint32_t gr__plan_cond_count(const gr_plan *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i + 1 < p->nnodes; i++)
        if (p->nodes[i].type == grGraphNodeTypeConditional)
            n += gr__exec_cond_count(p->nodes[i].u.cond);
    return n;
}

/* Whether executable plan p may use handle s: its own, or one no live
 * executable uses. */
static bool slot_free_for(const gr_plan *p, const gr_cond_slot *s)
{
    for (uint32_t k = 0; k < p->ncond_slots; k++)
        if (p->cond_slots[k] == s)
            return true;
    return gr_load_acquire(&s->execs) == 0;
}

/* Claims handle s for an executable: its reference, the rule's mark, and
 * the value it starts from (CUDA: the default only with the flag). */
static void claim(gr_cond_slot *s)
{
    gr__cond_slot_retain(s);
    gr_store_release(&s->execs, 1u);
    gr_fetch_add_relaxed(&s->users, 1u);
    gr_store_relaxed(&s->value, (s->flags & grGraphCondAssignDefault) ? s->defval : 0u);
}

static void unclaim(gr_cond_slot *s)
{
    gr_store_release(&s->execs, 0u);
    gr_fetch_sub_relaxed(&s->users, 1u);
    gr__cond_slot_release(s);
}

bool gr__exec_cond_slots_available(const gr_plan *p, const gr_cond_plan *fresh)
{
    uint32_t cap = gr__exec_cond_count(fresh), n = 0;
    gr_cond_slot **list = gr__malloc(cap * sizeof *list);
    if (list == NULL)
        return false;
    collect_cond(fresh, list, &n);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++)
        ok = slot_free_for(p, list[i]);
    gr__free(list);
    return ok;
}

void gr__exec_cond_slots_replace(gr_plan *p, gr_cond_slot **list)
{
    uint32_t n = 0;
    collect(p, list, &n);
    for (uint32_t i = 0; i < n; i++) {
        bool had = false;
        for (uint32_t k = 0; k < p->ncond_slots && !had; k++)
            had = p->cond_slots[k] == list[i];
        if (!had)
            claim(list[i]);
    }
    for (uint32_t k = 0; k < p->ncond_slots; k++) {
        bool keeps = false;
        for (uint32_t i = 0; i < n && !keeps; i++)
            keeps = p->cond_slots[k] == list[i];
        if (!keeps)
            unclaim(p->cond_slots[k]);
    }
    gr__free(p->cond_slots);
    p->cond_slots = list;
    p->ncond_slots = n;
}

/* The first handle of g, or of its conditional nodes' bodies, that no
 * conditional node uses, or NULL. */
static const gr_cond_slot *unused_handle(grGraph_t g)
{
    const gr_cond_slot *unused = NULL;
    for (const gr_cond_slot *s = g->cond_slots; s != NULL && unused == NULL; s = s->next)
        if (s->node == NULL)
            unused = s;
    struct grGraphNode_st *n;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        for (unsigned b = 0; unused == NULL && n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies;
             b++)
            unused = unused_handle(n->p.cond.bodies[b]);
    }
    return unused;
}

grError_t gr__exec_cond_check_graph(const char *call, grGraph_t g)
{
    if (g->owner != NULL && g->owner->type == grGraphNodeTypeConditional)
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p is a body of %s; a body is instantiated with the graph that holds its "
                        "node, as in CUDA",
                        call, GR_PTR(g), gr__node_label(g->owner));
    const gr_cond_slot *s = unused_handle(g);
    if (s != NULL) {
        gr__inst_fault.result = grGraphInstantiateConditionalHandleUnused;
        return gr__fail(grErrorInvalidValue,
                        "%s: conditional handle 0x%llx of graph %p is used by no conditional node; CUDA "
                        "refuses to instantiate a graph with an unused handle",
                        call, (unsigned long long)(uintptr_t)s, GR_PTR(s->graph));
    }
    return grSuccess;
}

grError_t gr__exec_cond_instantiate(const char *call, gr_plan *p)
{
    uint32_t cap = gr__plan_cond_count(p), n = 0;
    gr_cond_slot **list = gr__malloc(cap * sizeof *list);
    if (list == NULL)
        return gr__fail(grErrorMemoryAllocation, "%s: out of memory", call);
    collect(p, list, &n);
    for (uint32_t i = 0; i < n; i++)
        if (gr_load_acquire(&list[i]->execs) != 0) {
            gr__free(list);
            return gr__fail(grErrorNotSupported,
                            "%s: the graph has conditional nodes and an executable of it exists already; "
                            "a graph with conditional nodes has one executable at a time, as in CUDA: "
                            "destroy that one first (grGraphExecDestroy)",
                            call);
        }
    for (uint32_t i = 0; i < n; i++)
        claim(list[i]);
    p->cond_slots = list;
    p->ncond_slots = n;
    return grSuccess;
}

void gr__exec_cond_slots_free(gr_plan *p)
{
    for (uint32_t i = 0; i < p->ncond_slots; i++)
        unclaim(p->cond_slots[i]);
    gr__free(p->cond_slots);
    p->cond_slots = NULL;
    p->ncond_slots = 0;
}

/* Whether body plans a and b have the same nodes (types, in plan order)
 * and successors; nested conditional nodes compared whole. */
static bool same_plan(const gr_plan *a, const gr_plan *b, char *why, size_t cap)
{
    if (a->nnodes != b->nnodes || a->nsucc != b->nsucc) {
        snprintf(why, cap,
                 "a body has %u nodes and %u edges (counting the body's end), the body it pairs with %u "
                 "and %u",
                 b->nnodes - 1, b->nsucc, a->nnodes - 1, a->nsucc);
        return false;
    }
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const gr_pnode *x = &a->nodes[i], *y = &b->nodes[i];
        if (x->type != y->type || x->succ_begin != y->succ_begin || x->succ_end != y->succ_end) {
            snprintf(why, cap, "node %u of a body (in topological order) differs in type or edges", i);
            return false;
        }
        if (x->type == grGraphNodeTypeConditional &&
            !gr__exec_cond_same_shape(x->u.cond, y->u.cond, why, cap))
            return false;
    }
    if (memcmp(a->succ, b->succ, a->nsucc * sizeof *a->succ) != 0) {
        snprintf(why, cap, "the edges of a body differ");
        return false;
    }
    return true;
}

bool gr__exec_cond_same_shape(const gr_cond_plan *a, const gr_cond_plan *b, char *why, size_t cap)
{
    if (a->type != b->type || a->nbodies != b->nbodies) {
        snprintf(why, cap,
                 "its type or number of bodies differs from the conditional node it pairs with (%s, %u "
                 "bodies); an update cannot change them",
                 gr__cond_type_name((grGraphConditionalNodeType)a->type), a->nbodies);
        return false;
    }
    for (uint32_t i = 0; i < a->nbodies; i++)
        if (!same_plan(a->bodies[i], b->bodies[i], why, cap))
            return false;
    return true;
}
