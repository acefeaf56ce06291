/*
 * plan_copy.c - pitched memcpy nodes of a plan: the plan's side array of
 * their layouts (gr_plan.shapes) and the copy a launch runs for them.
 *
 * A 1D copy keeps the plan node's fast path (one memmove of p.count
 * bytes) and costs nothing here; a pitched one holds an index into
 * plan->shapes, so the plan node stays 64 bytes.
 *
 * Invariant: plan->shapes is made at instantiation; afterwards a slot is
 * written only while no launch of the plan runs (an update between
 * gr__exec_write_begin and gr__exec_write_end).
 */
#include "plan.h"

#include <string.h>

void gr__pnode_set_copy(gr_pnode *n, const gr_memcpy_params *p, const gr_copy_shape *shape)
{
    n->u.copy.p = *p;
    n->u.copy.pitched = shape != NULL;
    if (shape) {
        gr_assert(n->u.copy.shape != 0);
        gr__pnode_plan(n)->shapes[n->u.copy.shape - 1] = *shape;
    }
}

void gr__pnode_copy_pitched(const gr_pnode *n)
{
    const gr_copy_shape *s = gr__pnode_copy_shape(n);
    char *dst = n->u.copy.p.dst;
    const char *src = n->u.copy.p.src;
    for (size_t z = 0; z < s->depth; z++)
        for (size_t y = 0; y < s->height; y++) /* rows may overlap: memmove, as the eager copy */
            memmove(dst + z * s->dslice + y * s->dpitch, src + z * s->sslice + y * s->spitch, s->width);
}
