/*
 * deque.c - the Chase-Lev work-stealing deque with C11 atomics, after
 * "Correct and Efficient Work-Stealing for Weak Memory Models" (Le, Pop,
 * Cohen, Zappa Nardelli, PPoPP 2013).
 *
 * Invariants: top <= bottom + 1; items in [top, bottom) are live; only the
 * owner writes bottom and replaces the buffer; a retired buffer stays
 * allocated (linked from the new one) until the deque is destroyed,
 * because a thief may still read from it.
 */
#include "sched.h"

#include <stdlib.h>

static gr_deque_buf *buf_new(int64_t cap, gr_deque_buf *older)
{
    gr_deque_buf *b = gr__malloc(sizeof *b + (size_t)cap * sizeof(_Atomic gr_item));
    if (!b)
        return NULL;
    b->cap = cap;
    b->older = older;
    for (int64_t i = 0; i < cap; i++)
        atomic_init(&b->items[i], 0);
    return b;
}

bool gr__deque_init(gr_deque *d, int64_t cap)
{
    gr_deque_buf *b = buf_new(cap, NULL);
    if (!b)
        return false;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    atomic_init(&d->buf, b);
    return true;
}

void gr__deque_fini(gr_deque *d)
{
    gr_deque_buf *b = gr_load_relaxed(&d->buf);
    while (b) {
        gr_deque_buf *o = b->older;
        gr__free(b);
        b = o;
    }
    gr_store_relaxed(&d->buf, NULL);
}

bool gr__deque_push(gr_deque *d, gr_item it)
{
    int64_t b = gr_load_relaxed(&d->bottom);
    int64_t t = gr_load_acquire(&d->top);
    gr_deque_buf *a = gr_load_relaxed(&d->buf);
    if (GR_UNLIKELY(b - t > a->cap - 1)) {
        gr_deque_buf *n = buf_new(a->cap * 2, a);
        if (!n)
            return false;
        for (int64_t i = t; i < b; i++)
            gr_store_relaxed(&n->items[i & (n->cap - 1)], gr_load_relaxed(&a->items[i & (a->cap - 1)]));
        gr_store_release(&d->buf, n);
        a = n;
    }
    gr_store_relaxed(&a->items[b & (a->cap - 1)], it);
    /* A release store rather than the paper's fence + relaxed store: the
     * same order, and visible to ThreadSanitizer as a synchronisation. */
    gr_store_release(&d->bottom, b + 1);
    return true;
}

gr_item gr__deque_pop(gr_deque *d)
{
    int64_t b = gr_load_relaxed(&d->bottom) - 1;
    gr_deque_buf *a = gr_load_relaxed(&d->buf);
    int64_t t;
    gr_item x = 0;
    /* Fast exit without the fence when clearly empty. */
    if (gr_load_relaxed(&d->top) > b)
        return 0;
    gr_store_relaxed(&d->bottom, b);
    /* Dekker with gr__deque_steal's fence (Le et al.): the owner's new
     * bottom or the thief's claim of top is seen by the other. */
    gr_fence_seq_cst();
    t = gr_load_relaxed(&d->top);
    if (t <= b) {
        x = gr_load_relaxed(&a->items[b & (a->cap - 1)]);
        if (t == b) {
            /* Last item: race against thieves for it (their CAS below). */
            if (!gr_cas_strong_seq_cst(&d->top, &t, t + 1))
                x = 0;
            gr_store_relaxed(&d->bottom, b + 1);
        }
    } else {
        gr_store_relaxed(&d->bottom, b + 1);
    }
    return x;
}

gr_item gr__deque_steal(gr_deque *d)
{
    int64_t t = gr_load_acquire(&d->top);
    /* Pairs with gr__deque_pop's fence between its bottom store and top load. */
    gr_fence_seq_cst();
    int64_t b = gr_load_acquire(&d->bottom);
    gr_item x = 0;
    if (t < b) {
        gr_deque_buf *a = gr_load_acquire(&d->buf);
        x = gr_load_relaxed(&a->items[t & (a->cap - 1)]);
        /* Against other thieves and the owner's CAS for the last item. */
        if (!gr_cas_strong_seq_cst(&d->top, &t, t + 1))
            return 0;
    }
    return x;
}

gr_item gr__deque_steal_in(gr_deque *d, const void *lo, const void *hi)
{
    int64_t t = gr_load_acquire(&d->top);
    gr_fence_seq_cst(); /* as in gr__deque_steal */
    int64_t b = gr_load_acquire(&d->bottom);
    if (t >= b)
        return 0;
    gr_deque_buf *a = gr_load_acquire(&d->buf);
    gr_item x = gr_load_relaxed(&a->items[t & (a->cap - 1)]);
    uintptr_t at = (uintptr_t)gr__item_ptr(x);
    if (at < (uintptr_t)lo || at >= (uintptr_t)hi)
        return 0;
    /* A successful CAS means x was the top item when it was read. */
    if (!gr_cas_strong_seq_cst(&d->top, &t, t + 1))
        return 0;
    return x;
}
