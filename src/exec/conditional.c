/*
 * conditional.c - conditional nodes in executables: each body compiled
 * once into a plan of its own at instantiation (the backend runs it in
 * order, nested in the node, as often as the node says: see
 * backend/cpu/launch.c), and the handles an executable uses, referenced
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
    gr__free(c);
}

grError_t gr__exec_cond_build(const struct grGraphNode_st *gn, int depth, gr_cond_plan **out)
{
    const gr_cond_params *cp = &gn->p.cond;
    *out = NULL;
    gr_cond_plan *c = gr__calloc(1, sizeof *c + cp->nbodies * sizeof c->bodies[0]);
    if (c == NULL)
        return gr__fail(grErrorMemoryAllocation, "grGraphInstantiate: out of memory");
    c->slot = cp->slot;
    c->type = (uint32_t)cp->type;
    c->nbodies = cp->nbodies;
    for (uint32_t i = 0; i < cp->nbodies; i++) {
        /* A plan has cache-line aligned fields. */
        gr_plan *p = gr__aligned_alloc(64, sizeof *p);
        if (p == NULL) {
            gr__exec_cond_free(c);
            return gr__fail(grErrorMemoryAllocation, "grGraphInstantiate: out of memory");
        }
        memset(p, 0, sizeof *p);
        grError_t err = gr__plan_build_body(cp->bodies[i], depth, p);
        if (err != grSuccess) {
            gr__free(p);
            gr__exec_cond_free(c);
            return err;
        }
        c->bodies[i] = p;
    }
    *out = c;
    return grSuccess;
}

/* Adds the handles of p's conditional nodes (and of their bodies') to
 * list[*n..], each once: list has room for one per node (count_conds). */
static void collect(const gr_plan *p, gr_cond_slot **list, uint32_t *n)
{
    for (uint32_t i = 0; i + 1 < p->nnodes; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->type != grGraphNodeTypeConditional)
            continue;
        const gr_cond_plan *c = pn->u.cond;
        bool seen = false;
        for (uint32_t k = 0; k < *n && !seen; k++)
            seen = list[k] == c->slot;
        if (!seen)
            list[(*n)++] = c->slot;
        for (uint32_t b = 0; b < c->nbodies; b++)
            collect(c->bodies[b], list, n);
    }
}

/* The conditional nodes of p and of its bodies. */
static uint32_t count_conds(const gr_plan *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i + 1 < p->nnodes; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->type != grGraphNodeTypeConditional)
            continue;
        n++;
        for (uint32_t b = 0; b < pn->u.cond->nbodies; b++)
            n += count_conds(pn->u.cond->bodies[b]);
    }
    return n;
}

grError_t gr__exec_cond_instantiate(const char *call, gr_plan *p, int device)
{
    if (device != 0)
        return gr__fail(grErrorNotSupported,
                        "%s: the graph has conditional nodes, which graphrt does not lower to GPUs yet "
                        "(docs/devices.md); instantiate it on the CPU device",
                        call);
    uint32_t cap = count_conds(p), n = 0;
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
    for (uint32_t i = 0; i < n; i++) {
        gr__cond_slot_retain(list[i]);
        gr_store_release(&list[i]->execs, 1u);
        gr_fetch_add_relaxed(&list[i]->users, 1u);
        gr_store_relaxed(&list[i]->value, list[i]->defval);
    }
    p->cond_slots = list;
    p->ncond_slots = n;
    return grSuccess;
}

void gr__exec_cond_slots_free(gr_plan *p)
{
    for (uint32_t i = 0; i < p->ncond_slots; i++) {
        gr_store_release(&p->cond_slots[i]->execs, 0u);
        gr_fetch_sub_relaxed(&p->cond_slots[i]->users, 1u);
        gr__cond_slot_release(p->cond_slots[i]);
    }
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
    if (a->slot != b->slot || a->type != b->type || a->nbodies != b->nbodies) {
        snprintf(why, cap,
                 "its handle, type or number of bodies differs from the conditional node it pairs with "
                 "(%s, %u bodies); an update cannot change them",
                 gr__cond_type_name((grGraphConditionalNodeType)a->type), a->nbodies);
        return false;
    }
    for (uint32_t i = 0; i < a->nbodies; i++)
        if (!same_plan(a->bodies[i], b->bodies[i], why, cap))
            return false;
    return true;
}
