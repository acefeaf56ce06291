/*
 * fuzz-api-mem.c - the API fuzzer's memory: tracked blocks and what the
 * model knows of their bytes, the effect of operations on them, the
 * accesses of queued work that may still race, grMalloc / grFree and
 * their host forms, stream-ordered allocation, memory pools and the
 * graph-memory attributes.
 *
 * Knowledge of memory: an operation applied to the model writes values
 * and 'known' flags byte by byte. An operation is tainted (its output
 * unknown) when it reads bytes that queued work of another stream may
 * still write; two writes that may race leave their overlap unknown; a
 * write that may land before a queued read of another stream makes that
 * read's output unknown. Memory is compared with the model only when no
 * access of the model's queued work remains (after synchronisations).
 */
#include "fuzz-api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ blocks */

int fa_block_new(fa *f, fa_bkind kind, void *ptr, uint32_t size)
{
    for (int b = 1; b < FA_BLOCKS; b++) {
        fa_block *bk = &f->b[b];
        if (bk->live)
            continue;
        bk->live = true;
        bk->gen++;
        bk->kind = kind;
        bk->ptr = ptr;
        bk->size = size;
        bk->pool = -1;
        bk->sid = -1;
        bk->gm = -1;
        memset(bk->known, 0, sizeof bk->known);
        return b;
    }
    return -1;
}

void fa_block_free(fa *f, int b)
{
    fa_block *bk = &f->b[b];
    if (bk->kind == FB_ASYNC && bk->ptr) {
        unsigned i = f->ndead_async++ % 32;
        f->dead_async[i].ptr = bk->ptr;
        f->dead_async[i].size = (uint32_t)fa_class_size(bk->size);
    }
    bk->live = false;
}

fa_ref fa_ref_of(fa *f, int b, uint32_t off)
{
    return (fa_ref){b, f->b[b].gen, off, f->b[b].ptr + off};
}

fa_block *fa_ref_block(fa *f, const fa_ref *r)
{
    if (r->blk < 0 || !f->b[r->blk].live || f->b[r->blk].gen != r->gen)
        return NULL;
    return &f->b[r->blk];
}

bool fa_ref_live(fa *f, const fa_ref *r)
{
    return r->blk < 0 ? r->raw == NULL : fa_ref_block(f, r) != NULL;
}

/* The bytes a copy or memset may touch in block b without graphrt
 * refusing it: the size asked for, or the class size for pool blocks. */
static uint32_t bound_of(const fa_block *b)
{
    if (b->kind == FB_ASYNC)
        return (uint32_t)fa_class_size(b->size) < FA_BLOCK_MAX ? (uint32_t)fa_class_size(b->size)
                                                               : FA_BLOCK_MAX;
    return b->size;
}

/* A live block usable by work issued in the current context: pool blocks
 * only on their stream until their allocation is known complete, graph
 * allocations only inside their graph. */
int fa_pick_block(fa *f, bool device_only)
{
    for (int tries = 0; tries < 12; tries++) {
        int b = (int)fa_rand(f, FA_BLOCKS);
        fa_block *bk = &f->b[b];
        if (!bk->live || bk->kind == FB_SHARED)
            continue;
        if (device_only && bk->kind != FB_MALLOC && bk->kind != FB_ASYNC)
            continue;
        if (bk->kind == FB_GMEM)
            continue;
        if (bk->kind == FB_ASYNC && bk->sid >= 0 && bk->sid != f->ctx_sid)
            continue;
        return b;
    }
    return 0; /* the plain block */
}

/* A range of *len bytes (at most what fits) in a usable block, aligned to
 * 'align'; allow_bad: may run past the block's end (the caller makes the
 * call expect a refusal when it does). */
fa_ref fa_pick_range(fa *f, uint32_t *len, uint32_t align, bool allow_bad)
{
    int b = fa_pick_block(f, false);
    fa_block *bk = &f->b[b];
    uint32_t size = bk->size;
    uint32_t want = *len;
    if (want > size)
        want = size;
    want = want / align * align;
    uint32_t off = fz_below(&f->r, (size - want) / align + 1) * align;
    if (allow_bad && bk->kind != FB_PLAIN) {
        /* Past the end of what graphrt lets a range cover. */
        /* graphrt checks ranges that start inside a block: start before
         * its end, end past it. */
        uint32_t bound = bound_of(bk);
        off = bound - 1 - (want > 1 ? fz_below(&f->r, want - 1) : 0);
        off = off / align * align;
        if (off + want <= bound)
            want = bound - off + align;
    }
    *len = want;
    return fa_ref_of(f, b, off);
}

bool fa_ref_overruns(fa *f, const fa_ref *r, uint32_t len)
{
    const fa_block *b = fa_ref_block(f, r);
    return b && b->kind != FB_PLAIN && b->kind != FB_GMEM && b->kind != FB_SHARED && r->off < bound_of(b) &&
           r->off + len > bound_of(b);
}

int fa_range_verdict(fa *f, const void *raw, size_t len)
{
    const uint8_t *a = raw, *end = a + len;
    int verdict = 0;
    if (!raw || len == 0)
        return 0;
    for (int b = 1; b < FA_BLOCKS; b++) {
        const fa_block *bk = &f->b[b];
        if (!bk->live || (bk->kind != FB_MALLOC && bk->kind != FB_HOST && bk->kind != FB_ASYNC))
            continue;
        const uint8_t *lo = bk->ptr, *hi = bk->ptr + bound_of(bk);
        /* Starting inside and running past its end, or starting before it
         * and reaching into it: both refused. */
        if ((a >= lo && a < hi && end > hi) || (a < lo && end > lo))
            return 1;
    }
    /* Memory the model no longer follows: pool blocks freed lately (their
     * pool may keep them), graph allocations, other threads' blocks. */
    for (unsigned i = 0; i < 32 && i < f->ndead_async; i++)
        if (end > f->dead_async[i].ptr && a < f->dead_async[i].ptr + fa_class_size(f->dead_async[i].size))
            verdict = 2;
    for (int i = 0; i < FA_GMEM; i++)
        if (f->gm[i].used && end > (const uint8_t *)f->gm[i].ptr &&
            a < (const uint8_t *)f->gm[i].ptr + f->gm[i].size)
            verdict = 2;
    if (f->mt)
        verdict = 2;
    return verdict;
}

uint64_t fa_class_size(size_t n)
{
    if (n <= 256)
        return 256;
    size_t m = n - 1;
    unsigned lg = 63u - (unsigned)__builtin_clzll((unsigned long long)m);
    size_t c = (m >> (lg - 2)) + 1;
    return (uint64_t)(c << (lg - 2));
}

/* ------------------------------------------------------ effects on memory */

static bool bytes_known(const fa_block *b, uint32_t off, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (off + i >= FA_BLOCK_MAX || !b->known[off + i])
            return false;
    return true;
}

static void put_word(fa_block *b, uint32_t off, uint32_t w, bool known)
{
    if (off + 4 > FA_BLOCK_MAX)
        return;
    memcpy(b->model + off, &w, 4);
    memset(b->known + off, known, 4);
}

static void set_unknown(fa_block *b, uint32_t off, uint32_t len)
{
    if (!b || off >= FA_BLOCK_MAX)
        return;
    if (off + len > FA_BLOCK_MAX)
        len = FA_BLOCK_MAX - off;
    memset(b->known + off, 0, len);
}

/* Elements a kernel covers: its n, or fewer if the grid is smaller. */
static uint32_t kernel_cover(const fa_params *p)
{
    uint64_t t = (uint64_t)p->grid.x * p->grid.y * p->grid.z * p->block.x * p->block.y * p->block.z;
    return t < p->n ? (uint32_t)t : p->n;
}

int fa_accesses(const fa_params *p, uint8_t type, fa_ref *r, uint32_t *len, bool *write, int max)
{
    int n = 0;
    switch (type) {
    case grGraphNodeTypeKernel: {
        uint32_t c = kernel_cover(p);
        switch (p->kk) {
        case FK_FILL:
        case FK_ADD:
            r[n] = p->dst, len[n] = 4 * c, write[n++] = true;
            if (p->kk == FK_ADD)
                r[n] = p->dst, len[n] = 4 * c, write[n++] = false;
            break;
        case FK_XFORM:
            r[n] = p->dst, len[n] = 4 * c, write[n++] = true;
            r[n] = p->src, len[n] = 4 * c, write[n++] = false;
            break;
        case FK_BLOB:
            r[n] = p->dst, len[n] = 64, write[n++] = true;
            break;
        case FK_NOP:
        case FK_COUNT:
            break;
        }
        break;
    }
    case grGraphNodeTypeMemcpy:
        if (p->count) {
            r[n] = p->dst, len[n] = p->count, write[n++] = true;
            r[n] = p->src, len[n] = p->count, write[n++] = false;
        }
        break;
    case grGraphNodeTypeMemset:
        for (size_t row = 0; row < p->height && n < max; row++) {
            r[n] = p->dst;
            r[n].off += (uint32_t)(row * (p->height > 1 ? p->pitch : 0));
            len[n] = (uint32_t)(p->width * p->esize);
            write[n++] = true;
        }
        break;
    default:
        break;
    }
    return n;
}

void fa_apply(fa *f, uint8_t type, const fa_params *p, bool enabled, bool tainted)
{
    if (!enabled)
        return;
    if (fz_trace) {
        fa_ref r[8];
        uint32_t len[8];
        bool w[8];
        int n = fa_accesses(p, type, r, len, w, 8);
        for (int i = 0; i < n; i++)
            fprintf(stderr, "    model %s type %d: block %d [%u, %u)%s v 0x%x kk %d\n",
                    w[i] ? "write" : "read", type, r[i].blk, r[i].off, r[i].off + len[i],
                    tainted ? " tainted" : "", p->v, (int)p->kk);
    }
    fa_block *d = fa_ref_block(f, &p->dst);
    switch (type) {
    case grGraphNodeTypeKernel: {
        uint32_t c = kernel_cover(p);
        const fa_block *s = fa_ref_block(f, &p->src);
        if (!d)
            return;
        switch (p->kk) {
        case FK_FILL:
            for (uint32_t i = 0; i < c; i++)
                put_word(d, p->dst.off + 4 * i, p->v + i * 0x9e3779b9u, !tainted);
            break;
        case FK_ADD:
            for (uint32_t i = 0; i < c; i++) {
                uint32_t o = p->dst.off + 4 * i, w;
                memcpy(&w, d->model + o, 4);
                put_word(d, o, w + p->v, !tainted && bytes_known(d, o, 4));
            }
            break;
        case FK_XFORM: {
            /* Elements run in parallel: a source that overlaps the
             * destination at another offset races inside the kernel. */
            bool racy = s == d && p->src.off != p->dst.off && p->src.off < p->dst.off + 4 * c &&
                        p->dst.off < p->src.off + 4 * c;
            uint8_t tmp[FA_BLOCK_MAX], tk[FA_BLOCK_MAX];
            if (!s || 4 * c > FA_BLOCK_MAX)
                return;
            memcpy(tmp, s->model + p->src.off, 4 * c);
            memcpy(tk, s->known + p->src.off, 4 * c);
            for (uint32_t i = 0; i < c; i++) {
                uint32_t w;
                memcpy(&w, tmp + 4 * i, 4);
                bool k = !tainted && !racy && tk[4 * i] && tk[4 * i + 1] && tk[4 * i + 2] && tk[4 * i + 3];
                put_word(d, p->dst.off + 4 * i, w * 3u + p->v, k);
            }
            break;
        }
        case FK_BLOB:
            for (uint32_t i = 0; i < 16; i++) {
                uint32_t w;
                memcpy(&w, p->blob + 4 * i, 4);
                put_word(d, p->dst.off + 4 * i, w ^ p->v, !tainted);
            }
            break;
        case FK_NOP:
        case FK_COUNT:
            break;
        }
        return;
    }
    case grGraphNodeTypeMemcpy: {
        const fa_block *s = fa_ref_block(f, &p->src);
        uint8_t tmp[FA_BLOCK_MAX], tk[FA_BLOCK_MAX];
        if (!d || !s || p->count == 0 || p->count > FA_BLOCK_MAX)
            return;
        memcpy(tmp, s->model + p->src.off, p->count);
        memcpy(tk, s->known + p->src.off, p->count);
        memcpy(d->model + p->dst.off, tmp, p->count);
        if (tainted)
            memset(d->known + p->dst.off, 0, p->count);
        else
            memcpy(d->known + p->dst.off, tk, p->count);
        return;
    }
    case grGraphNodeTypeMemset: {
        if (!d)
            return;
        for (size_t row = 0; row < p->height; row++) {
            uint32_t o = p->dst.off + (uint32_t)(row * (p->height > 1 ? p->pitch : 0));
            for (size_t i = 0; i < p->width; i++) {
                uint32_t e = o + (uint32_t)(i * p->esize);
                if (e + p->esize > FA_BLOCK_MAX)
                    break;
                memcpy(d->model + e, &p->value, p->esize); /* little-endian: the low bytes */
                memset(d->known + e, !tainted, p->esize);
            }
        }
        return;
    }
    default:
        return;
    }
}

/* The output of queued read q may be wrong now (a write of another
 * stream may land before it runs): unknown, and so is the output of every
 * later queued read of that output. */
void fa_pend_taint(fa *f, int q)
{
    struct {
        int blk, gen;
        uint32_t off, len;
    } t[FA_PEND];
    int nt = 0;
    const fa_pend *p = &f->pend[q];
    if (p->dblk < 0)
        return;
    t[nt].blk = p->dblk, t[nt].gen = p->dgen, t[nt].off = p->doff, t[nt].len = p->dlen, nt++;
    for (int i = q; i < f->npend; i++) {
        const fa_pend *r = &f->pend[i];
        bool hit = i == q;
        for (int k = 0; k < nt && !hit; k++)
            hit = !r->write && r->blk == t[k].blk && r->gen == t[k].gen && r->off < t[k].off + t[k].len &&
                  t[k].off < r->off + r->len;
        if (!hit || r->dblk < 0)
            continue;
        if (f->b[r->dblk].live && f->b[r->dblk].gen == r->dgen)
            set_unknown(&f->b[r->dblk], r->doff, r->dlen);
        if (i != q && nt < FA_PEND)
            t[nt].blk = r->dblk, t[nt].gen = r->dgen, t[nt].off = r->doff, t[nt].len = r->dlen, nt++;
    }
}

bool fa_pend_room(fa *f, int n)
{
    return f->npend + n <= FA_PEND;
}

static bool ranges_meet(int b1, int g1, uint32_t o1, uint32_t l1, int b2, int g2, uint32_t o2, uint32_t l2)
{
    return b1 >= 0 && b1 == b2 && g1 == g2 && o1 < o2 + l2 && o2 < o1 + l1;
}

bool fa_would_race(fa *f, int sid, uint8_t type, const fa_params *p)
{
    fa_ref r[8];
    uint32_t len[8];
    bool w[8];
    int n = fa_accesses(p, type, r, len, w, 8);
    for (int a = 0; a < n; a++)
        for (int i = 0; i < f->npend; i++) {
            const fa_pend *q = &f->pend[i];
            if (q->sid != sid && (q->write || w[a]) &&
                ranges_meet(r[a].blk, r[a].gen, r[a].off, len[a], q->blk, q->gen, q->off, q->len))
                return true;
        }
    return false;
}

void fa_eager_effect(fa *f, int sid, uint8_t type, const fa_params *p)
{
    fa_ref r[8];
    uint32_t len[8];
    bool w[8];
    int n = fa_accesses(p, type, r, len, w, 8);
    bool tainted = false;
    /* The op's output: its first write (all ops write one range at most,
     * but a 2D memset, whose rows are all outputs). */
    for (int a = 0; a < n; a++) {
        if (w[a])
            continue;
        for (int i = 0; i < f->npend; i++) {
            const fa_pend *q = &f->pend[i];
            if (q->sid != sid && q->write &&
                ranges_meet(r[a].blk, r[a].gen, r[a].off, len[a], q->blk, q->gen, q->off, q->len))
                tainted = true;
        }
    }
    fa_apply(f, type, p, true, tainted);
    for (int a = 0; a < n; a++) {
        if (!w[a])
            continue;
        for (int i = 0; i < f->npend; i++) {
            const fa_pend *q = &f->pend[i];
            if (q->sid == sid ||
                !ranges_meet(r[a].blk, r[a].gen, r[a].off, len[a], q->blk, q->gen, q->off, q->len))
                continue;
            if (q->write) {
                uint32_t lo = r[a].off > q->off ? r[a].off : q->off;
                uint32_t hi = r[a].off + len[a] < q->off + q->len ? r[a].off + len[a] : q->off + q->len;
                set_unknown(fa_ref_block(f, &r[a]), lo, hi - lo);
            } else {
                fa_pend_taint(f, i);
            }
        }
    }
    /* The destination of this op's reads, for later writers. */
    int dst = -1;
    for (int a = 0; a < n; a++)
        if (w[a]) {
            dst = a;
            break;
        }
    for (int a = 0; a < n && f->npend < FA_PEND; a++) {
        if (r[a].blk < 0)
            continue;
        fa_pend *q = &f->pend[f->npend++];
        *q = (fa_pend){sid, r[a].blk, r[a].gen, r[a].off, len[a], w[a], -1, 0, 0, 0};
        if (!w[a] && dst >= 0)
            q->dblk = r[dst].blk, q->dgen = r[dst].gen, q->doff = r[dst].off, q->dlen = len[dst];
    }
}

/* Compares every block no queued access of the model can touch with what
 * the model knows of it. */
void fa_check_memory(fa *f)
{
    for (int b = 0; b < FA_BLOCKS; b++) {
        fa_block *bk = &f->b[b];
        if (!bk->live || bk->kind == FB_GMEM || bk->kind == FB_SHARED)
            continue;
        bool busy = false;
        for (int i = 0; i < f->npend && !busy; i++)
            busy = f->pend[i].blk == b && f->pend[i].gen == bk->gen;
        if (busy)
            continue;
        for (uint32_t i = 0; i < bk->size; i++)
            if (bk->known[i] && bk->ptr[i] != bk->model[i])
                fa_fail(f,
                        "block %d (%s, %u bytes at %p) byte %u is 0x%02x, the model says 0x%02x (after all "
                        "the work "
                        "that wrote it completed)",
                        b,
                        bk->kind == FB_MALLOC  ? "grMalloc"
                        : bk->kind == FB_HOST  ? "grMallocHost"
                        : bk->kind == FB_ASYNC ? "grMallocAsync"
                                               : "plain",
                        bk->size, (void *)bk->ptr, i, bk->ptr[i], bk->model[i]);
    }
}

/* ---------------------------------------------------------- grMalloc etc. */

/* Work the model still counts as queued on block b. */
static bool block_busy(fa *f, int b, int except_sid)
{
    for (int i = 0; i < f->npend; i++)
        if (f->pend[i].blk == b && f->pend[i].gen == f->b[b].gen && f->pend[i].sid != except_sid)
            return true;
    return false;
}

static uint32_t pick_size(fa *f)
{
    static const uint32_t edges[] = {1, 255, 256, 257, 320, 512, 1000, 1024, 1280, 2048};
    if (fa_pct(f, 40))
        return edges[fa_rand(f, 10)];
    return 4 + fa_rand(f, FA_BLOCK_MAX - 4);
}

static void do_malloc(fa *f, bool host)
{
    void *p = NULL;
    uint32_t size = pick_size(f);
    if (fa_pct(f, 8)) {
        if (fa_pct(f, 50)) {
            grError_t err = host ? FA_CALL(f, grMallocHost(NULL, size)) : FA_CALL(f, grMalloc(NULL, size));
            fa_bad(f, err, grErrorInvalidValue);
        } else {
            /* More than the machine has. */
            grError_t err =
                host ? FA_CALL(f, grMallocHost(&p, (size_t)1 << 60)) : FA_CALL(f, grMalloc(&p, SIZE_MAX / 2));
            int want = fa_unsafe(f, FU_MALLOC, -1, -1, false);
            if (want)
                fa_unsafe(f, FU_MALLOC, -1, -1, true);
            fa_bad(f, err, want ? want : grErrorMemoryAllocation);
        }
        return;
    }
    int want = fa_unsafe(f, FU_MALLOC, -1, -1, false);
    if (fa_pct(f, 5)) {
        /* Zero bytes: NULL and success. */
        p = (void *)f;
        grError_t err = host ? FA_CALL(f, grMallocHost(&p, 0)) : FA_CALL(f, grMalloc(&p, 0));
        if (want) {
            fa_unsafe(f, FU_MALLOC, -1, -1, true);
            fa_bad(f, err, want);
            return;
        }
        fa_ok(f, err);
        if (p != NULL)
            fa_fail(f, "a zero-byte allocation gave %p, not NULL", p);
        return;
    }
    int b = fa_block_new(f, host ? FB_HOST : FB_MALLOC, NULL, size);
    if (b < 0)
        return;
    grError_t err = host ? FA_CALL(f, grMallocHost(&p, size)) : FA_CALL(f, grMalloc(&p, size));
    if (want) {
        fa_unsafe(f, FU_MALLOC, -1, -1, true);
        fa_bad(f, err, want);
        fa_block_free(f, b);
        return;
    }
    fa_ok(f, err);
    if (!p || ((uintptr_t)p & 255))
        fa_fail(f, "grMalloc%s(%u) gave %p (not 256-aligned)", host ? "Host" : "", size, p);
    f->b[b].ptr = p;
}

static void do_free(fa *f, bool host)
{
    int b = (int)fa_rand(f, FA_BLOCKS);
    fa_block *bk = &f->b[b];
    fa_bkind kind = host ? FB_HOST : FB_MALLOC;
    bool graph_ok = !host && bk->live && bk->kind == FB_ASYNC;
    if (!bk->live || (bk->kind != kind && !graph_ok)) {
        /* Bad: a pointer this allocator did not hand out, a pointer
         * inside a block, freed already, or the other allocator's. */
        void *p;
        int k = (int)fa_rand(f, 3);
        if (k == 0)
            p = f->plain + 16;
        else if (k == 1 && bk->live && bk->kind != FB_PLAIN && bk->kind != FB_GMEM && bk->kind != FB_SHARED)
            p = bk->ptr + 1 + fa_rand(f, bk->size > 1 ? bk->size - 1 : 1);
        else if (bk->live && (bk->kind == FB_MALLOC || bk->kind == FB_HOST) && bk->kind != kind)
            p = bk->ptr;
        else
            return;
        grError_t err = host ? FA_CALL(f, grFreeHost(p)) : FA_CALL(f, grFree(p));
        fa_bad(f, err, grErrorInvalidValue);
        return;
    }
    if (fa_pct(f, 5)) {
        grError_t err = host ? FA_CALL(f, grFreeHost(NULL)) : FA_CALL(f, grFree(NULL));
        fa_ok(f, err);
        return;
    }
    int want = fa_unsafe(f, FU_FREE, -1, -1, false);
    grError_t err = host ? FA_CALL(f, grFreeHost(bk->ptr)) : FA_CALL(f, grFree(bk->ptr));
    if (want) {
        fa_unsafe(f, FU_FREE, -1, -1, true);
        fa_bad(f, err, want);
        return;
    }
    fa_ok(f, err);
    /* Freeing waits for the whole device first. */
    fa_synced_all(f);
    if (bk->kind == FB_ASYNC) {
        if (bk->pool >= 0)
            f->pool[bk->pool].used -= fa_class_size(bk->size);
        else if (bk->pool == -1)
            f->dflt_used -= fa_class_size(bk->size);
    }
    void *old = bk->ptr;
    bool dead_pool = bk->kind == FB_ASYNC && bk->pool == -2;
    fa_block_free(f, b);
    /* Freed already: refused now (pool-release-race: not while a
     * destroyed pool's block is being released). Not with several
     * threads: the address may be another thread's allocation by now. */
    if (!f->mt && fa_pct(f, 20) && (!dead_pool || fa_allowed(f, FZ_ALLOW_POOL_STATE_RACE))) {
        err = host ? FA_CALL(f, grFreeHost(old)) : FA_CALL(f, grFree(old));
        fa_bad(f, err, grErrorInvalidValue);
    }
}

/* ------------------------------------------------------------------- pools */

static grMemPoolProps pool_props(size_t max)
{
    grMemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = grMemAllocationTypePinned;
    p.handleTypes = grMemHandleTypeNone;
    p.location.type = grMemLocationTypeDevice;
    p.location.id = 0;
    p.maxSize = max;
    return p;
}

static grMemPool_t pool_handle(fa *f, int pi)
{
    grMemPool_t h = NULL;
    if (pi >= 0)
        return f->pool[pi].h;
    fa_ok(f, FA_CALL(f, grDeviceGetDefaultMemPool(&h, 0)));
    return h;
}

static void pool_create(fa *f)
{
    int i;
    for (i = 0; i < FA_POOLS && f->pool[i].live; i++)
        ;
    grMemPool_t h = NULL;
    grMemPoolProps p = pool_props(fa_pct(f, 30) ? 4096u << fa_rand(f, 3) : 0);
    if (i == FA_POOLS || fa_pct(f, 15)) {
        switch (fa_rand(f, 5)) {
        case 0:
            fa_bad(f, FA_CALL(f, grMemPoolCreate(NULL, &p)), grErrorInvalidValue);
            break;
        case 1:
            fa_bad(f, FA_CALL(f, grMemPoolCreate(&h, NULL)), grErrorInvalidValue);
            break;
        case 2:
            p.allocType = grMemAllocationTypeInvalid;
            fa_bad(f, FA_CALL(f, grMemPoolCreate(&h, &p)), grErrorInvalidValue);
            break;
        case 3:
            p.handleTypes = (grMemAllocationHandleType)(1 + fa_rand(f, 8));
            fa_bad(f, FA_CALL(f, grMemPoolCreate(&h, &p)), grErrorNotSupported);
            break;
        default:
            if (fa_pct(f, 50)) {
                p.location.id = FA_NO_DEVICE + (int)fa_rand(f, 4);
                fa_bad(f, FA_CALL(f, grMemPoolCreate(&h, &p)), grErrorInvalidValue);
            } else {
                p.location.type = grMemLocationTypeInvalid;
                fa_bad(f, FA_CALL(f, grMemPoolCreate(&h, &p)), grErrorInvalidValue);
            }
            break;
        }
        return;
    }
    fa_ok(f, FA_CALL(f, grMemPoolCreate(&h, &p)));
    f->pool[i] = (fa_pool){.h = h, .live = true, .max_size = p.maxSize, .reuse = {1, 1, 1}};
    fa_pool_check(f, i);
}

static void pool_destroy(fa *f)
{
    int i = (int)fa_rand(f, FA_POOLS);
    if (!f->pool[i].live) {
        if (fa_pct(f, 50)) {
            grMemPool_t dflt = pool_handle(f, -1);
            fa_bad(f, FA_CALL(f, grMemPoolDestroy(dflt)), grErrorInvalidValue);
        } else if (f->dead_pool && fa_allowed(f, FZ_ALLOW_DESTROYED)) {
            fa_bad(f, FA_CALL(f, grMemPoolDestroy(f->dead_pool)), grErrorInvalidValue);
        } else {
            fa_bad(f, FA_CALL(f, grMemPoolDestroy(NULL)), grErrorInvalidValue);
        }
        return;
    }
    /* Live blocks stay valid; the handle dies. Several threads: the
     * device's current pool is shared state, leave it alone. */
    fa_ok(f, FA_CALL(f, grMemPoolDestroy(f->pool[i].h)));
    f->pool[i].live = false;
    f->dead_pool = f->pool[i].h;
    if (f->cur_pool == i)
        f->cur_pool = -1;
    /* Its blocks live on: they now count for nobody's pool attributes. */
    for (int b = 0; b < FA_BLOCKS; b++)
        if (f->b[b].live && f->b[b].kind == FB_ASYNC && f->b[b].pool == i)
            f->b[b].pool = -2;
}

void fa_pool_check(fa *f, int pi)
{
    grMemPool_t h = pool_handle(f, pi);
    uint64_t rc = 0, rh = 0, uc = 0, uh = 0;
    fa_ok(f, FA_CALL(f, grMemPoolGetAttribute(h, grMemPoolAttrReservedMemCurrent, &rc)));
    fa_ok(f, FA_CALL(f, grMemPoolGetAttribute(h, grMemPoolAttrReservedMemHigh, &rh)));
    fa_ok(f, FA_CALL(f, grMemPoolGetAttribute(h, grMemPoolAttrUsedMemCurrent, &uc)));
    fa_ok(f, FA_CALL(f, grMemPoolGetAttribute(h, grMemPoolAttrUsedMemHigh, &uh)));
    /* The default pool and the shared pool are other threads' too. */
    bool exact = pi >= 0 || !f->mt;
    uint64_t want = pi >= 0 ? f->pool[pi].used : f->dflt_used;
    if (exact && uc != want)
        fa_fail(f,
                "pool %d: grMemPoolAttrUsedMemCurrent is %" PRIu64
                ", its live allocations' class sizes add up to %" PRIu64,
                pi, uc, want);
    if (exact && (rc < uc || rh < rc || uh < uc))
        fa_fail(f,
                "pool %d: reserved %" PRIu64 " (high %" PRIu64 "), used %" PRIu64 " (high %" PRIu64
                ") are inconsistent",
                pi, rc, rh, uc, uh);
    if (pi >= 0 && f->pool[pi].max_size && rc > f->pool[pi].max_size)
        fa_fail(f, "pool %d reserves %" PRIu64 " bytes, past its maxSize %zu", pi, rc, f->pool[pi].max_size);
    if (pi >= 0) {
        uint64_t t = 7;
        int v = 7;
        fa_ok(f, FA_CALL(f, grMemPoolGetAttribute(h, grMemPoolAttrReleaseThreshold, &t)));
        if (t != f->pool[pi].threshold)
            fa_fail(f, "pool %d: release threshold %" PRIu64 ", set to %" PRIu64, pi, t,
                    f->pool[pi].threshold);
        grMemPoolAttr a = (grMemPoolAttr)(grMemPoolReuseFollowEventDependencies + (int)fa_rand(f, 3));
        fa_ok(f, FA_CALL(f, grMemPoolGetAttribute(h, a, &v)));
        if (v != f->pool[pi].reuse[a - grMemPoolReuseFollowEventDependencies])
            fa_fail(f, "pool %d: reuse attribute %d reads %d, set to %d", pi, (int)a, v,
                    f->pool[pi].reuse[a - grMemPoolReuseFollowEventDependencies]);
    }
}

static void pool_attr(fa *f)
{
    int pi = (int)fa_rand(f, FA_POOLS + 1) - 1;
    if (pi >= 0 && !f->pool[pi].live)
        return;
    grMemPool_t h = pool_handle(f, pi);
    uint64_t v64 = 0;
    int v = 0;
    switch (fa_rand(f, 8)) {
    case 0:
    case 1:
        fa_pool_check(f, pi);
        break;
    case 2:
        if (pi < 0)
            break;
        {
            grMemPoolAttr a = (grMemPoolAttr)(grMemPoolReuseFollowEventDependencies + (int)fa_rand(f, 3));
            v = (int)fa_rand(f, 3);
            fa_ok(f, FA_CALL(f, grMemPoolSetAttribute(h, a, &v)));
            f->pool[pi].reuse[a - grMemPoolReuseFollowEventDependencies] = v != 0;
        }
        break;
    case 3:
        if (pi < 0)
            break;
        v64 = fa_pct(f, 50) ? 0 : (uint64_t)fa_rand(f, 1u << 16);
        fa_ok(f, FA_CALL(f, grMemPoolSetAttribute(h, grMemPoolAttrReleaseThreshold, &v64)));
        f->pool[pi].threshold = v64;
        break;
    case 4:
        v64 = 0;
        fa_ok(f, FA_CALL(f, grMemPoolSetAttribute(
                                h, fa_pct(f, 50) ? grMemPoolAttrUsedMemHigh : grMemPoolAttrReservedMemHigh,
                                &v64)));
        break;
    case 5:
        /* Bad: read-only attributes, a non-zero high mark, NULL value,
         * unknown attribute. */
        v64 = 1 + fa_rand(f, 1000);
        switch (fa_rand(f, 5)) {
        case 0:
            fa_bad(f, FA_CALL(f, grMemPoolSetAttribute(h, grMemPoolAttrUsedMemCurrent, &v64)),
                   grErrorInvalidValue);
            break;
        case 1:
            fa_bad(f, FA_CALL(f, grMemPoolSetAttribute(h, grMemPoolAttrReservedMemHigh, &v64)),
                   grErrorInvalidValue);
            break;
        case 2:
            fa_bad(f, FA_CALL(f, grMemPoolSetAttribute(h, grMemPoolAttrReleaseThreshold, NULL)),
                   grErrorInvalidValue);
            break;
        case 3:
            fa_bad(f, FA_CALL(f, grMemPoolGetAttribute(h, (grMemPoolAttr)(50 + fa_rand(f, 50)), &v64)),
                   grErrorInvalidValue);
            break;
        default:
            fa_bad(f, FA_CALL(f, grMemPoolGetAttribute(h, grMemPoolAttrUsedMemCurrent, NULL)),
                   grErrorInvalidValue);
            break;
        }
        if (pi >= 0 || !f->mt)
            fa_pool_check(f, pi);
        break;
    case 6:
        fa_ok(f, FA_CALL(f, grMemPoolTrimTo(h, fa_pct(f, 50) ? 0 : fa_rand(f, 1u << 14))));
        break;
    default:
        /* The device's current pool (one thread only: it is global). */
        if (f->mt)
            break;
        /* The device forms and their location forms (CUDA 13) alike,
         * chosen without a draw so that saved seeds replay as before. */
        grMemLocation cpu = {grMemLocationTypeDevice, 0};
        bool by_location = (pi & 1) != 0;
        if (fa_pct(f, 50)) {
            fa_ok(f, by_location ? FA_CALL(f, grMemSetMemPool(&cpu, grMemAllocationTypePinned, h))
                                 : FA_CALL(f, grDeviceSetMemPool(0, h)));
            f->cur_pool = pi;
        } else {
            grMemPool_t cur = NULL;
            fa_ok(f, by_location ? FA_CALL(f, grMemGetMemPool(&cur, &cpu, grMemAllocationTypePinned))
                                 : FA_CALL(f, grDeviceGetMemPool(&cur, 0)));
            if (cur != pool_handle(f, f->cur_pool))
                fa_fail(f, "grDeviceGetMemPool gave %p, the current pool is %p (model pool %d)", (void *)cur,
                        (void *)pool_handle(f, f->cur_pool), f->cur_pool);
        }
        if (fa_pct(f, 20)) {
            switch (fa_rand(f, 4)) {
            case 0:
                fa_bad(f, FA_CALL(f, grDeviceSetMemPool(FA_NO_DEVICE, h)), grErrorInvalidDevice);
                break;
            case 1:
                fa_bad(f, FA_CALL(f, grDeviceSetMemPool(0, NULL)), grErrorInvalidValue);
                break;
            case 2:
                fa_bad(f, FA_CALL(f, grDeviceGetMemPool(NULL, 0)), grErrorInvalidValue);
                break;
            default:
                fa_bad(f, FA_CALL(f, grDeviceGetDefaultMemPool(&h, FA_NO_DEVICE + (int)fa_rand(f, 3))),
                       grErrorInvalidDevice);
                break;
            }
        }
        break;
    }
}

/* grMallocAsync / grMallocFromPoolAsync, eager or captured. */
static void malloc_async(fa *f)
{
    int sid = fa_pick_stream(f, false);
    grStream_t s = fa_stream_handle(f, sid);
    int pi = fa_pct(f, 50) ? -1 : (int)fa_rand(f, FA_POOLS);
    bool from = pi >= 0 || fa_pct(f, 30);
    if (pi >= 0 && !f->pool[pi].live)
        return;
    /* Several threads: the current pool may change under us; name it. */
    if (!from && f->mt)
        from = true;
    int use = from ? pi : f->cur_pool;
    grMemPool_t ph = from ? pool_handle(f, pi) : NULL;
    uint32_t size = pick_size(f);
    void *p = NULL;
    int k = fa_capture_of(f, sid);
    if (fa_capture_full(f, sid))
        return;
    if (fa_pct(f, 8)) {
        switch (fa_rand(f, 3)) {
        case 0:
            fa_bad(f,
                   from ? FA_CALL(f, grMallocFromPoolAsync(NULL, size, ph, s))
                        : FA_CALL(f, grMallocAsync(NULL, size, s)),
                   grErrorInvalidValue);
            break;
        case 1:
            if (f->dead_pool && fa_allowed(f, FZ_ALLOW_DESTROYED))
                fa_bad(f, FA_CALL(f, grMallocFromPoolAsync(&p, size, f->dead_pool, s)), grErrorInvalidValue);
            else
                fa_bad(f, FA_CALL(f, grMallocFromPoolAsync(&p, size, NULL, s)), grErrorInvalidValue);
            break;
        default:
            fa_bad(f, FA_CALL(f, grMallocAsync(&p, size, (grStream_t)(void *)f->fake)),
                   grErrorInvalidResourceHandle);
            break;
        }
        return;
    }
    if (k >= 0 && !fa_gm_ok(f))
        return;
    if (k >= 0) {
        /* Captured: an allocation node of the capture's graph. */
        grError_t err = from ? FA_CALL(f, grMallocFromPoolAsync(&p, size, ph, s))
                             : FA_CALL(f, grMallocAsync(&p, size, s));
        if (f->cap[k].invalidated) {
            fa_bad(f, err, grErrorStreamCaptureInvalidated);
            return;
        }
        fa_ok(f, err);
        fa_params np;
        memset(&np, 0, sizeof np);
        np.dst.raw = p;
        np.dst.blk = -1;
        np.count = size;
        fa_capture_node(f, sid, grGraphNodeTypeMemAlloc, &np);
        return;
    }
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f)) {
        grError_t err = from ? FA_CALL(f, grMallocFromPoolAsync(&p, size, ph, s))
                             : FA_CALL(f, grMallocAsync(&p, size, s));
        fa_bad(f, err, grErrorStreamCaptureImplicit);
        fa_unsafe(f, FU_SYNC_COPY, sid, -1, true);
        return;
    }
    if (fa_pct(f, 4)) {
        p = (void *)f;
        fa_ok(f,
              from ? FA_CALL(f, grMallocFromPoolAsync(&p, 0, ph, s)) : FA_CALL(f, grMallocAsync(&p, 0, s)));
        if (p)
            fa_fail(f, "grMallocAsync of 0 bytes gave %p, not NULL", p);
        return;
    }
    int b = fa_block_new(f, FB_ASYNC, NULL, size);
    if (b < 0)
        return;
    uint64_t cs = fa_class_size(size);
    grError_t err =
        from ? FA_CALL(f, grMallocFromPoolAsync(&p, size, ph, s)) : FA_CALL(f, grMallocAsync(&p, size, s));
    size_t max = use >= 0 ? f->pool[use].max_size : 0;
    uint64_t used = use >= 0 ? f->pool[use].used : f->dflt_used;
    if (max && used + cs > max) {
        fa_bad(f, err, grErrorMemoryAllocation);
        fa_block_free(f, b);
        return;
    }
    if (max && err != grSuccess) {
        /* Free blocks of other classes may hold the room. */
        fa_bad(f, err, grErrorMemoryAllocation);
        fa_block_free(f, b);
        return;
    }
    fa_ok(f, err);
    if (!p || ((uintptr_t)p & 255))
        fa_fail(f, "grMallocAsync(%u) gave %p (not 256-aligned)", size, p);
    f->b[b].ptr = p;
    f->b[b].pool = use;
    f->b[b].sid = sid;
    if (use >= 0)
        f->pool[use].used += cs;
    else
        f->dflt_used += cs;
    if (!f->mt || use >= 0)
        fa_pool_check(f, use);
}

/* grFreeAsync of a pool block (or bad pointers). */
static void free_async(fa *f)
{
    int sid = fa_pick_stream(f, false);
    grStream_t s = fa_stream_handle(f, sid);
    int b = (int)fa_rand(f, FA_BLOCKS);
    fa_block *bk = &f->b[b];
    int k = fa_capture_of(f, sid);
    if (!bk->live || bk->kind != FB_ASYNC || fa_pct(f, 10)) {
        void *p = NULL;
        int want = grErrorInvalidValue;
        switch (fa_rand(f, 4)) {
        case 0:
            p = f->plain + 64;
            break;
        case 1:
            if (bk->live && bk->kind == FB_ASYNC)
                p = bk->ptr + 1 + fa_rand(f, 200);
            break;
        case 2:
            /* grMalloc memory is freed (in stream order), as in CUDA 13. */
            if (bk->live && bk->kind == FB_HOST)
                p = bk->ptr;
            break;
        default:
            fa_bad(f, FA_CALL(f, grFreeAsync(p, (grStream_t)(void *)f->fake)), grErrorInvalidResourceHandle);
            return;
        }
        if (!p) {
            /* NULL: a no-op (even while capturing). */
            grError_t err = FA_CALL(f, grFreeAsync(NULL, s));
            fa_ok(f, err);
            return;
        }
        if (k >= 0) {
            /* Captured frees are checked as free nodes. */
            grError_t err = FA_CALL(f, grFreeAsync(p, s));
            fa_bad(f, err, f->cap[k].invalidated ? grErrorStreamCaptureInvalidated : -1);
            return;
        }
        if (sid == FA_SID_LEGACY && fa_blocking_capture(f))
            return;
        fa_bad(f, FA_CALL(f, grFreeAsync(p, s)), want);
        return;
    }
    if (k >= 0)
        return; /* a free node of a block the graph did not allocate: refused, see fuzz-api-capture.c */
    if (sid == FA_SID_LEGACY && fa_blocking_capture(f))
        return;
    /* Everything queued on it must be ordered before the free: the model
     * only follows stream order. */
    if (block_busy(f, b, sid) || (bk->sid >= 0 && bk->sid != sid))
        return;
    fa_ok(f, FA_CALL(f, grFreeAsync(bk->ptr, s)));
    uint64_t cs = fa_class_size(bk->size);
    if (bk->pool >= 0)
        f->pool[bk->pool].used -= cs;
    else if (bk->pool == -1)
        f->dflt_used -= cs;
    void *old = bk->ptr;
    int pool = bk->pool;
    fa_block_free(f, b);
    if (pool >= -1 && (!f->mt || pool >= 0))
        fa_pool_check(f, pool);
    /* Freed already: refused. Not with several threads: once freed, the
     * address may be another thread's allocation (a graph allocation's
     * reservation, say), which the second free would free. */
    if (!f->mt && fa_pct(f, 15))
        fa_bad(f, FA_CALL(f, grFreeAsync(old, s)), grErrorInvalidValue);
}

static void graph_mem_attrs(fa *f)
{
    if (!fa_gm_ok(f))
        return;
    uint64_t v[4], again[4];
    /* A worker freeing an executable may change the values between two
     * reads: compare two rounds and check only a steady one. */
    for (int a = 0; a < 4; a++)
        fa_ok(f, FA_CALL(f, grDeviceGetGraphMemAttribute(0, (grGraphMemAttributeType)a, &v[a])));
    for (int a = 0; a < 4; a++)
        fa_ok(f, FA_CALL(f, grDeviceGetGraphMemAttribute(0, (grGraphMemAttributeType)a, &again[a])));
    bool steady = memcmp(v, again, sizeof v) == 0;
    if (!f->mt && steady && (v[0] != v[2] || v[1] < v[0] || v[3] < v[2]))
        fa_fail(f,
                "graph memory attributes: used %" PRIu64 " (high %" PRIu64 "), reserved %" PRIu64
                " (high %" PRIu64 "); used and reserved must be equal, highs at least the current values",
                v[0], v[1], v[2], v[3]);
    switch (fa_rand(f, 6)) {
    case 0: {
        uint64_t z = 0;
        fa_ok(f, FA_CALL(f, grDeviceSetGraphMemAttribute(
                                0, fa_pct(f, 50) ? grGraphMemAttrUsedMemHigh : grGraphMemAttrReservedMemHigh,
                                &z)));
        break;
    }
    case 1: {
        uint64_t z = 1;
        fa_bad(
            f,
            FA_CALL(f, grDeviceSetGraphMemAttribute(
                           0, fa_pct(f, 50) ? grGraphMemAttrUsedMemCurrent : grGraphMemAttrUsedMemHigh, &z)),
            grErrorInvalidValue);
        break;
    }
    case 2:
        fa_bad(f,
               FA_CALL(f, grDeviceGetGraphMemAttribute(fa_pct(f, 50) ? FA_NO_DEVICE : -1,
                                                       grGraphMemAttrUsedMemCurrent, v)),
               grErrorInvalidDevice);
        break;
    case 3:
        fa_bad(f, FA_CALL(f, grDeviceGetGraphMemAttribute(0, grGraphMemAttrUsedMemCurrent, NULL)),
               grErrorInvalidValue);
        break;
    case 4:
        fa_ok(f, FA_CALL(f, grDeviceGraphMemTrim(0)));
        break;
    default:
        fa_bad(f, FA_CALL(f, grDeviceGraphMemTrim(FA_NO_DEVICE)), grErrorInvalidDevice);
        break;
    }
}

void fa_mem_step(fa *f)
{
    switch (fa_rand(f, 14)) {
    case 0:
    case 1:
        do_malloc(f, false);
        break;
    case 2:
        do_malloc(f, true);
        break;
    case 3:
        do_free(f, false);
        break;
    case 4:
        do_free(f, true);
        break;
    case 5:
    case 6:
    case 7:
        malloc_async(f);
        break;
    case 8:
    case 9:
        free_async(f);
        break;
    case 10:
        pool_create(f);
        break;
    case 11:
        pool_destroy(f);
        break;
    case 12:
        pool_attr(f);
        break;
    default:
        graph_mem_attrs(f);
        break;
    }
}

void fa_mem_teardown(fa *f)
{
    for (int b = 1; b < FA_BLOCKS; b++) {
        fa_block *bk = &f->b[b];
        if (!bk->live)
            continue;
        switch (bk->kind) {
        case FB_MALLOC:
        case FB_ASYNC:
            fa_ok(f, FA_CALL(f, grFree(bk->ptr)));
            break;
        case FB_HOST:
            fa_ok(f, FA_CALL(f, grFreeHost(bk->ptr)));
            break;
        case FB_GMEM:
        case FB_PLAIN:
        case FB_SHARED:
            break;
        }
        bk->live = false;
    }
    for (int i = 0; i < FA_POOLS; i++)
        if (f->pool[i].live) {
            fa_ok(f, FA_CALL(f, grMemPoolDestroy(f->pool[i].h)));
            f->pool[i].live = false;
        }
    if (!f->mt && f->cur_pool != -1) {
        f->cur_pool = -1;
    }
    f->dflt_used = 0;
    for (int i = 0; i < FA_GMEM; i++)
        f->gm[i].used = false;
}
