/*
 * plan_check.c - gr__plan_is_valid, the checker of a compiled plan's
 * shape (plan.h): topological order, the CSR successor ranges, the
 * predecessor counts, the roots, and EXIT reachable from every node.
 * Called through gr_assert_expensive after instantiation and update,
 * never on the launch path, so only GR_DEBUG=3 builds run it. Also
 * gr__plan_counts_armed, the countdowns re-armed at the end of each
 * launch (GR_DEBUG=3 builds' launches), and gr__exec_write_is_valid, the
 * executable's lock states while its plan is written.
 *
 * O(nodes + edges) with one array of nnodes counters (no allocation:
 * only the per-node part is checked). It only reads the plan.
 */
#include "plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

GR_PRINTF(2, 3) static bool broken(const gr_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "graphrt: plan %p breaks an invariant of plan.h: ", (const void *)p);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return false;
}

/* In-degrees counted from the CSR agree with npred, the countdowns are
 * armed (no launch runs), and the roots are the nodes without
 * predecessors. */
static bool check_counts(const gr_plan *p)
{
    uint32_t n = p->nnodes, nroots = 0;
    uint32_t *indeg = calloc(n, sizeof *indeg);
    if (indeg == NULL)
        return true; /* no room to check: not a broken invariant */
    for (uint32_t i = 0; i < p->nsucc; i++)
        indeg[p->succ[i]]++;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        uint32_t npred = p->count[i].npred;
        int32_t pending = gr_load_relaxed(&p->count[i].pending);
        if (indeg[i] != npred)
            ok = broken(p, "node %u has %u predecessors in the CSR, npred says %u", i, indeg[i], npred);
        else if (pending != (int32_t)npred)
            ok = broken(p, "node %u's countdown is %d, not re-armed to npred %u", i, (int)pending, npred);
        nroots += npred == 0;
    }
    free(indeg);
    if (ok && nroots != p->nroots)
        ok = broken(p, "%u nodes have no predecessor, the plan lists %u roots", nroots, p->nroots);
    for (uint32_t r = 0; r < p->nroots && ok; r++)
        if (p->roots[r] >= n || p->count[p->roots[r]].npred != 0)
            ok = broken(p, "root %u (node %u) is not a node without predecessors", r, p->roots[r]);
    return ok;
}

bool gr__plan_counts_armed(const gr_plan *p)
{
    for (uint32_t i = 0; i < p->nnodes; i++) {
        int32_t pending = gr_load_relaxed(&p->count[i].pending);
        if (pending != (int32_t)p->count[i].npred)
            return broken(p, "node %u's countdown is %d at the end of a launch, not re-armed to npred %u", i,
                          (int)pending, p->count[i].npred);
    }
    return true;
}

bool gr__plan_is_valid(const gr_plan *p)
{
    uint32_t n = p->nnodes;
    if (n == 0 || p->nodes[n - 1].type != GR_PN_EXIT)
        return broken(p, "its last node is not EXIT");
    if (p->nodes[-1].type != GR_PN_HEAD || p->nodes[-1].u.plan != p)
        return broken(p, "the head slot before nodes[0] does not name the plan");
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->index != i)
            return broken(p, "node %u's index says %u", i, pn->index);
        if (pn->succ_begin != at || pn->succ_begin > pn->succ_mid || pn->succ_mid > pn->succ_end ||
            pn->succ_end > p->nsucc)
            return broken(p, "node %u's successor range [%u, %u, %u) is not the next part of succ[0..%u)", i,
                          pn->succ_begin, pn->succ_mid, pn->succ_end, p->nsucc);
        at = pn->succ_end;
        /* Every node but EXIT has a successor, each later in the order:
         * every path goes forward and ends at EXIT. */
        if (i != n - 1 && pn->succ_end == pn->succ_begin)
            return broken(p, "node %u has no successor, so EXIT is not reachable from it", i);
        if (i == n - 1 && pn->succ_end != pn->succ_begin)
            return broken(p, "EXIT has successors");
        for (uint32_t s = pn->succ_begin; s < pn->succ_end; s++) {
            uint32_t v = p->succ[s];
            if (v <= i || v >= n)
                return broken(p, "node %u's successor %u is not later in the topological order", i, v);
            if (s < pn->succ_mid && p->count[v].npred != 1)
                return broken(p,
                              "node %u makes successor %u ready without counting, but it has %u predecessors",
                              i, v, p->count[v].npred);
            if (s >= pn->succ_mid && p->count[v].npred < 2)
                return broken(p, "node %u counts down successor %u, which has %u predecessor(s)", i, v,
                              p->count[v].npred);
        }
    }
    if (at != p->nsucc)
        return broken(p, "the successor ranges cover %u of nsucc %u", at, p->nsucc);
    if (!check_counts(p))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const gr_pnode *pn = &p->nodes[i];
        if (pn->type != grGraphNodeTypeConditional || pn->u.cond == NULL)
            continue;
        for (uint32_t b = 0; b < pn->u.cond->nbodies; b++)
            if (!gr__plan_is_valid(pn->u.cond->bodies[b]))
                return false;
    }
    return true;
}

bool gr__exec_write_is_valid(grGraphExec_t e)
{
    const char *why = NULL;
    if (e->owner_writing) {
        /* A revocation waits for owner_busy to clear before it takes the
         * bias away; until then e->owner is the writer or REVOKING. */
        uintptr_t owner = gr_load_relaxed(&e->owner);
        if (owner != gr__self_tag() && owner != GR_EXEC_REVOKING)
            why = "a write through the bias is ending on a thread that is not e->owner";
        else if (gr_load_relaxed(&e->owner_busy) == 0)
            why = "a write through the bias is ending with owner_busy clear";
    } else if (!gr__spin_held_seq_cst(&e->lock)) {
        why = "a write through e's lock is ending without the lock held";
    }
    if (why == NULL && gr_load_acquire(&e->launches_done) < gr_load_relaxed(&e->launches))
        why = "a launch is queued or running while the plan is written";
    if (why)
        fprintf(stderr, "graphrt: executable %p breaks an invariant of plan.h: %s\n", (void *)e, why);
    return why == NULL;
}
