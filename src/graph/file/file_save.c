/*
 * file_save.c - grGraphSaveToFile: a graph as a graph file (the format is
 * docs/graph-files.md).
 *
 * One walk over the graph in creation order, child graphs in place, writes
 * the node lines into a buffer and gives each kernel, host function,
 * buffer and event an id in the order it is first used; the file is then
 * the header, the declarations in id order and the node lines. So the
 * same graph always gives the same bytes: nothing depends on addresses,
 * only on creation and edge order.
 *
 * Invariant: the walk writes only the nodes' 'scratch' (a node's index in
 * its graph, which names it "n<index>").
 */
#include "file_int.h"
#include "../../backend/plan.h"
#include "../../memory/graphmem.h"
#include "../../backend/comm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- output */

typedef struct outbuf {
    char *p;
    size_t len, cap;
    bool oom;
} outbuf;

static bool out_reserve(outbuf *o, size_t n)
{
    if (o->len + n <= o->cap)
        return true;
    if (o->oom)
        return false;
    size_t ncap = o->cap ? o->cap : 4096;
    while (ncap < o->len + n)
        ncap *= 2;
    char *np = gr__realloc(o->p, ncap);
    if (!np) {
        o->oom = true;
        return false;
    }
    o->p = np;
    o->cap = ncap;
    return true;
}

static void put_mem(outbuf *o, const char *s, size_t n)
{
    /* n 0 on an empty buffer: o->p is NULL, which memcpy may not get. */
    if (n > 0 && out_reserve(o, n)) {
        memcpy(o->p + o->len, s, n);
        o->len += n;
    }
}

static void put_s(outbuf *o, const char *s)
{
    put_mem(o, s, strlen(s));
}

static void put_c(outbuf *o, char c)
{
    if (out_reserve(o, 1))
        o->p[o->len++] = c;
}

/* Decimal without printf: a large graph writes millions of numbers. */
static void put_u(outbuf *o, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_mem(o, tmp + i, sizeof tmp - i);
}

static void put_hex_bytes(outbuf *o, const unsigned char *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    if (!out_reserve(o, 2 * n))
        return;
    for (size_t i = 0; i < n; i++) {
        o->p[o->len++] = digits[b[i] >> 4];
        o->p[o->len++] = digits[b[i] & 15];
    }
}

/* A name in double quotes: '"' and '\' escaped, spaces and bytes outside
 * printable ASCII as \xHH, so that a name is one field of its line. */
static void put_quoted(outbuf *o, const char *s)
{
    put_c(o, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            put_c(o, '\\');
            put_c(o, (char)c);
        } else if (c <= 0x20 || c >= 0x7f) {
            put_s(o, "\\x");
            put_hex_bytes(o, &c, 1);
        } else {
            put_c(o, (char)c);
        }
    }
    put_c(o, '"');
}

/* ------------------------------------------------------ pointer -> id */

/* An open-addressing map from a pointer to an id. */
typedef struct idmap {
    const void **keys;
    uint32_t *ids;
    size_t cap, n;
} idmap;

static size_t slot_of(const idmap *m, const void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The id of key, or UINT32_MAX. */
static uint32_t map_get(const idmap *m, const void *key)
{
    if (m->cap == 0)
        return UINT32_MAX;
    size_t i = slot_of(m, key);
    return m->keys[i] ? m->ids[i] : UINT32_MAX;
}

static bool map_put(idmap *m, const void *key, uint32_t id)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t ncap = m->cap ? 2 * m->cap : 16;
        idmap nm = {gr__calloc(ncap, sizeof *nm.keys), gr__calloc(ncap, sizeof *nm.ids), ncap, 0};
        if (!nm.keys || !nm.ids) {
            gr__free(nm.keys);
            gr__free(nm.ids);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = slot_of(&nm, m->keys[i]);
                nm.keys[j] = m->keys[i];
                nm.ids[j] = m->ids[i];
            }
        nm.n = m->n;
        gr__free(m->keys);
        gr__free(m->ids);
        *m = nm;
    }
    size_t i = slot_of(m, key);
    m->keys[i] = key;
    m->ids[i] = id;
    m->n++;
    return true;
}

static void map_free(idmap *m)
{
    gr__free(m->keys);
    gr__free(m->ids);
}

/* ------------------------------------------------------------- saver */

/* The memory of an allocation node of the top graph. */
typedef struct arange {
    uintptr_t base;
    size_t size;
    uint64_t index; /* the node's index: "@n<index>" */
} arange;

typedef struct saver {
    const char *call;
    outbuf decl, body;
    idmap kernels, hostfns, bufs, events, conds;
    uint32_t nkernels, nhostfns, nbufs, nevents, nconds;
    /* The live conditional handles of the graph's nest: a kernel argument
     * whose bytes equal one is saved as that handle ("c<id>"). */
    idmap handles;
    /* The buffers' sizes by id (a buffer of untracked memory grows to
     * the largest range used from its address). */
    size_t *bufsize;
    size_t capbufsize;
    unsigned char *bufkind; /* 'd' or 'h' by id, fixed at first use */
    outbuf bufdecl;         /* the buffers' lines, written at the end */
    arange *allocs;
    size_t nallocs;
    grError_t err; /* the first failure, its detail set */
} saver;

static bool fail_oom(saver *s)
{
    if (!s->err)
        s->err = gr__fail(grErrorMemoryAllocation, "%s: out of memory", s->call);
    return false;
}

/* The allocation node whose memory holds p, or NULL. */
static const arange *alloc_at(const saver *s, uintptr_t p)
{
    size_t lo = 0, hi = s->nallocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->allocs[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const arange *a = &s->allocs[lo - 1];
    return p - a->base < a->size ? a : NULL;
}

/* The id of the buffer keyed 'key' (a tracked base, or an untracked
 * address), declaring it at first use; its size grows to 'size'. */
static uint32_t buf_id(saver *s, const void *key, size_t size, char kind)
{
    uint32_t id = map_get(&s->bufs, key);
    if (id == UINT32_MAX) {
        id = s->nbufs;
        if (id == s->capbufsize) {
            size_t ncap = s->capbufsize ? 2 * s->capbufsize : 16;
            size_t *ns = gr__realloc(s->bufsize, ncap * sizeof *ns);
            unsigned char *nk = ns ? gr__realloc(s->bufkind, ncap) : NULL;
            if (ns)
                s->bufsize = ns;
            if (!nk) {
                fail_oom(s);
                return UINT32_MAX;
            }
            s->bufkind = nk;
            s->capbufsize = ncap;
        }
        if (!map_put(&s->bufs, key, id)) {
            fail_oom(s);
            return UINT32_MAX;
        }
        s->nbufs++;
        s->bufsize[id] = size;
        s->bufkind[id] = (unsigned char)kind;
    } else if (s->bufsize[id] < size) {
        s->bufsize[id] = size;
    }
    return id;
}

/* "b<id>+<off>" for a buffer, "@n<id>+<off>" for an allocation node. */
static void put_ref(outbuf *o, char prefix, uint64_t id, uintptr_t off)
{
    put_s(o, prefix == '@' ? "@n" : "b");
    put_u(o, id);
    put_c(o, '+');
    put_u(o, off);
}

/*
 * Writes a reference to the n bytes at p: "null", "@n<i>+<off>" into an
 * allocation node's memory, "b<k>+<off>" into a buffer. Memory graphrt
 * did not allocate becomes a host buffer of its own when 'untracked_ok'
 * (copies and memsets); otherwise returns false and writes nothing (the
 * caller saves the value).
 */
static bool put_ptr(saver *s, outbuf *o, const void *p, size_t n, bool untracked_ok)
{
    uintptr_t u = (uintptr_t)p;
    void *base;
    size_t size;
    gr_mem_kind kind;
    if (!p) {
        put_s(o, GR_FILE_WORD_NULL);
        return true;
    }
    const arange *a = alloc_at(s, u);
    if (a) {
        put_ref(o, '@', a->index, u - a->base);
        return true;
    }
    if (gr__mem_lookup(p, &base, &size, &kind)) {
        uint32_t id = buf_id(s, base, size, kind == GR_MEM_HOST ? 'h' : 'd');
        put_ref(o, 'b', id, u - (uintptr_t)base);
        return true;
    }
    if (!untracked_ok)
        return false;
    /* A range of 0 bytes (a memset of width 0, a copy of 0 bytes) still
     * names memory, which the node's add refuses as NULL: it stands for a
     * buffer of 1 byte, the least a buffer has, so that the file loads. */
    put_ref(o, 'b', buf_id(s, p, n ? n : 1, 'h'), 0);
    return true;
}

static uint32_t kernel_id(saver *s, grKernel_t k)
{
    uint32_t id = map_get(&s->kernels, k);
    if (id != UINT32_MAX)
        return id;
    id = s->nkernels++;
    if (!map_put(&s->kernels, k, id)) {
        fail_oom(s);
        return 0;
    }
    put_s(&s->decl, GR_FILE_DECL_KERNEL " k");
    put_u(&s->decl, id);
    put_c(&s->decl, ' ');
    put_quoted(&s->decl, k->name);
    for (int i = 0; i < k->nparams; i++) {
        put_c(&s->decl, ' ');
        put_u(&s->decl, k->sizes[i]);
    }
    put_c(&s->decl, '\n');
    return id;
}

static void put_event(saver *s, outbuf *o, grEvent_t e)
{
    uint32_t id = map_get(&s->events, e);
    if (id == UINT32_MAX) {
        id = s->nevents++;
        if (!map_put(&s->events, e, id)) {
            fail_oom(s);
            return;
        }
        put_s(&s->decl, GR_FILE_DECL_EVENT " e");
        put_u(&s->decl, id);
        put_c(&s->decl, ' ');
        put_u(&s->decl, e->flags);
        put_c(&s->decl, '\n');
    }
    put_s(o, " e");
    put_u(o, id);
}

/* " c<id>" for a conditional handle, declaring it at first use. */
static void put_cond(saver *s, outbuf *o, const gr_cond_slot *c)
{
    uint32_t id = map_get(&s->conds, c);
    if (id == UINT32_MAX) {
        id = s->nconds++;
        if (!map_put(&s->conds, c, id)) {
            fail_oom(s);
            return;
        }
        put_s(&s->decl, GR_FILE_DECL_COND " c");
        put_u(&s->decl, id);
        put_s(&s->decl, " " GR_FILE_KEY_DEFAULT "=");
        put_u(&s->decl, c->defval);
        put_s(&s->decl, " " GR_FILE_KEY_FLAGS "=");
        put_u(&s->decl, c->flags);
        put_c(&s->decl, '\n');
    }
    put_c(o, 'c');
    put_u(o, id);
}

static void put_dim(outbuf *o, const char *key, grDim3 d)
{
    put_s(o, key);
    put_u(o, d.x);
    put_c(o, ',');
    put_u(o, d.y);
    put_c(o, ',');
    put_u(o, d.z);
}

static void put_kernel(saver *s, outbuf *o, const gr_kernel_params *kp)
{
    grKernel_t k = kp->kernel;
    put_s(o, " k");
    put_u(o, kernel_id(s, k));
    put_dim(o, " " GR_FILE_KEY_GRID "=", kp->grid);
    put_dim(o, " " GR_FILE_KEY_BLOCK "=", kp->block);
    put_s(o, " " GR_FILE_KEY_SHMEM "=");
    put_u(o, kp->shmem);
    for (int i = 0; i < k->nparams; i++) {
        const unsigned char *v = (const unsigned char *)kp->argbuf + k->offsets[i];
        put_s(o, i ? "," : " " GR_FILE_KEY_ARGS "=");
        /* A pointer-sized value that points into graphrt's memory is
         * saved as a reference; everything else by value. */
        if (k->sizes[i] == sizeof(grGraphConditionalHandle)) {
            grGraphConditionalHandle h;
            memcpy(&h, v, sizeof h);
            const void *slot = (const void *)(uintptr_t)h;
            if (slot && map_get(&s->handles, slot) != UINT32_MAX) {
                put_cond(s, o, slot);
                continue;
            }
        }
        if (k->sizes[i] == sizeof(void *)) {
            void *p;
            memcpy(&p, v, sizeof p);
            if (p && put_ptr(s, o, p, 1, false))
                continue;
        }
        put_c(o, 'x');
        put_hex_bytes(o, v, k->sizes[i]);
    }
}

static void put_host(saver *s, outbuf *o, const grHostNodeParams *hp, const struct grGraphNode_st *n)
{
    char name[320];
    const char *nm = name;
    void *reg_data = NULL;
    bool standin = hp->fn == gr__standin_host;
    if (standin) {
        nm = hp->userData;
    } else {
        size_t len = gr__hostfn_name(hp->fn, name, sizeof name, &reg_data);
        if (len == 0 || len >= sizeof name) {
            if (!s->err)
                s->err = gr__fail(grErrorInvalidValue,
                                  "%s: %s calls host function %p, which has no name: register it with "
                                  "grHostFnRegister(fn, \"name\", userData) before saving",
                                  s->call, gr__node_label(n), GR_PTR(hp->fn));
            return;
        }
    }
    const void *key = standin ? hp->userData : (const void *)(uintptr_t)hp->fn;
    uint32_t id = map_get(&s->hostfns, key);
    if (id == UINT32_MAX) {
        id = s->nhostfns++;
        if (!map_put(&s->hostfns, key, id)) {
            fail_oom(s);
            return;
        }
        put_s(&s->decl, GR_FILE_DECL_HOSTFN " h");
        put_u(&s->decl, id);
        put_c(&s->decl, ' ');
        put_quoted(&s->decl, nm);
        put_c(&s->decl, '\n');
    }
    put_s(o, " h");
    put_u(o, id);
    put_s(o, " " GR_FILE_KEY_DATA "=");
    if (standin || hp->userData == NULL) {
        put_s(o, GR_FILE_WORD_NULL);
    } else if (hp->userData == reg_data) {
        put_s(o, GR_FILE_WORD_REGISTERED);
    } else if (!put_ptr(s, o, hp->userData, 1, false)) {
        /* Meaningful only in the process that saved it (the format's
         * documentation says so). */
        put_s(o, "0x");
        uint64_t v = (uint64_t)(uintptr_t)hp->userData;
        unsigned char be[8];
        for (int i = 0; i < 8; i++)
            be[i] = (unsigned char)(v >> (56 - 8 * i));
        put_hex_bytes(o, be, 8);
    }
}

/* The access descriptor is kept by graph memory, not by the node; the
 * only one an allocation node accepts is device 0 read-write. */
static const char *alloc_access_word(const grMemAllocNodeParams *ap)
{
    size_t count = 0;
    (void)gr__graphmem_access(ap->dptr, &count);
    return count ? GR_FILE_WORD_RW : GR_FILE_WORD_NONE;
}

/* A batch memory operation node's operations: one field, 'ops=', the
 * operations separated by ';', each KIND:REF:VALUE (a write),
 * KIND:REF:COND:VALUE (a wait) or barrier:sys|gpu. */
static void put_memops(saver *s, outbuf *o, const gr_memop_params *m)
{
    static const char *const conds[] = GR_FILE_WAIT_CONDS;
    put_s(o, " " GR_FILE_KEY_OPS "=");
    for (unsigned i = 0; i < m->count; i++) {
        const grStreamBatchMemOpParams *op = &m->ops[i];
        grStreamBatchMemOpType t = op->operation;
        bool wide = t == grStreamMemOpWaitValue64 || t == grStreamMemOpWriteValue64;
        if (i)
            put_c(o, ';');
        put_s(o, gr__memop_op_name((int)t));
        put_c(o, ':');
        if (t == grStreamMemOpBarrier) {
            put_s(o, op->memoryBarrier.flags ? GR_FILE_WORD_GPU : GR_FILE_WORD_SYS);
            continue;
        }
        put_ptr(s, o, op->waitValue.address, wide ? 8 : 4, true);
        put_c(o, ':');
        if (t == grStreamMemOpWaitValue32 || t == grStreamMemOpWaitValue64) {
            put_s(o, conds[op->waitValue.flags & 3u]);
            put_c(o, ':');
        }
        put_u(o, wide ? op->waitValue.value64 : op->waitValue.value);
    }
}

static void put_graph(saver *s, outbuf *o, grGraph_t g, unsigned depth);

static void indent(outbuf *o, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++)
        put_s(o, "  ");
}

/* The fields of a memcpy node made from 3D parameters: each side's first
 * byte (its position folded in), the extent, and each side's pitch and
 * rows per slice (the 3D parameters the loader gives
 * grGraphAddMemcpyNode). */
static void put_memcpy_pitched(saver *s, outbuf *o, const gr_memcpy_node *m)
{
    const gr_copy_shape *c = &m->shape->shape;
    gr_region d, r;
    gr__region_of_shape(&d, m->dst, c, true);
    gr__region_of_shape(&r, m->src, c, false);
    put_s(o, " " GR_FILE_KEY_DST "=");
    put_ptr(s, o, m->dst, gr__region_span(&d), true);
    put_s(o, " " GR_FILE_KEY_SRC "=");
    put_ptr(s, o, m->src, gr__region_span(&r), true);
    put_s(o, " " GR_FILE_KEY_EXTENT "=");
    put_u(o, c->width);
    put_c(o, ',');
    put_u(o, c->height);
    put_c(o, ',');
    put_u(o, c->depth);
    put_s(o, " " GR_FILE_KEY_DPITCH "=");
    put_u(o, c->dpitch);
    put_s(o, " " GR_FILE_KEY_DROWS "=");
    put_u(o, c->drows);
    put_s(o, " " GR_FILE_KEY_SPITCH "=");
    put_u(o, c->spitch);
    put_s(o, " " GR_FILE_KEY_SROWS "=");
    put_u(o, c->srows);
    put_s(o, " " GR_FILE_KEY_KIND "=");
    put_s(o, gr__memcpy_kind_name(m->kind));
}

/* The fields of a memcpy node: a flat copy's, or put_memcpy_pitched's. */
static void put_memcpy(saver *s, outbuf *o, const gr_memcpy_node *m)
{
    if (m->shape) {
        put_memcpy_pitched(s, o, m);
        return;
    }
    put_s(o, " " GR_FILE_KEY_DST "=");
    put_ptr(s, o, m->dst, m->count, true);
    put_s(o, " " GR_FILE_KEY_SRC "=");
    put_ptr(s, o, m->src, m->count, true);
    put_s(o, " " GR_FILE_KEY_COUNT "=");
    put_u(o, m->count);
    put_s(o, " " GR_FILE_KEY_KIND "=");
    put_s(o, gr__memcpy_kind_name(m->kind));
}

/* The fields of a memset node. */
static void put_memset(saver *s, outbuf *o, const grMemsetParams *m)
{
    put_s(o, " " GR_FILE_KEY_DST "=");
    put_ptr(s, o, m->dst, gr__memset_span(m), true);
    put_s(o, " " GR_FILE_KEY_PITCH "=");
    put_u(o, m->pitch);
    put_s(o, " " GR_FILE_KEY_VALUE "=");
    put_u(o, m->value);
    put_s(o, " " GR_FILE_KEY_ELEM "=");
    put_u(o, m->elementSize);
    put_s(o, " " GR_FILE_KEY_WIDTH "=");
    put_u(o, m->width);
    put_s(o, " " GR_FILE_KEY_HEIGHT "=");
    put_u(o, m->height);
}

/* The fields of a memory allocation node. */
static void put_alloc(outbuf *o, const grMemAllocNodeParams *ap)
{
    put_s(o, " " GR_FILE_KEY_SIZE "=");
    put_u(o, ap->bytesize);
    put_s(o, " " GR_FILE_KEY_ACCESS "=");
    put_s(o, alloc_access_word(ap));
    put_s(o, " " GR_FILE_KEY_MAXSIZE "=");
    put_u(o, ap->poolProps.maxSize);
    put_s(o, " " GR_FILE_KEY_USAGE "=");
    put_u(o, ap->poolProps.usage);
}

/* The field of free node n: the allocation node it frees, by index.
 * False (s->err set) when that node is not of the saved graphs. */
static bool put_free(saver *s, outbuf *o, const struct grGraphNode_st *n)
{
    const gr_free_node *f = &n->p.free;
    const arange *a = alloc_at(s, (uintptr_t)f->dptr);
    if (!a || a->base != (uintptr_t)f->dptr) {
        if (!s->err)
            s->err = gr__fail(grErrorNotSupported,
                              "%s: %s frees %p, the memory of an allocation node of another graph; a "
                              "graph file holds the frees of its own graph's allocations only",
                              s->call, gr__node_label(n), f->dptr);
        return false;
    }
    put_s(o, " " GR_FILE_KEY_PTR "=");
    put_ref(o, '@', a->index, 0);
    return true;
}

/* The fields of a conditional node (its bodies follow as blocks). */
static void put_cond_fields(saver *s, outbuf *o, const gr_cond_params *c)
{
    static const char *const cond_types[] = GR_FILE_COND_TYPES;
    put_c(o, ' ');
    put_cond(s, o, c->slot);
    put_s(o, " " GR_FILE_KEY_TYPE "=");
    put_s(o, cond_types[c->type == grGraphCondTypeIf ? 0 : c->type == grGraphCondTypeWhile ? 1 : 2]);
    put_s(o, " " GR_FILE_KEY_SIZE "=");
    put_u(o, c->nbodies);
}

/* The fields of a collective node: its operation, the buffers it uses on
 * this rank (null for a side it does not), and the rank and size of its
 * communicator, which a load gives a stand-in (docs/collectives.md). */
static void put_coll(saver *s, outbuf *o, const grCollectiveNodeParams *c)
{
    size_t sb, rb;
    gr__coll_sides(c, &sb, &rb);
    put_s(o, " " GR_FILE_KEY_OP "=");
    put_s(o, gr__coll_op_name(c->op));
    put_s(o, " " GR_FILE_KEY_TYPE "=");
    put_s(o, gr__coll_type_name(c->datatype));
    put_s(o, " " GR_FILE_KEY_REDOP "=");
    put_s(o, gr__coll_redop_name(c->redop));
    put_s(o, " " GR_FILE_KEY_ROOT "=");
    put_u(o, (uint64_t)c->root);
    put_s(o, " " GR_FILE_KEY_COUNT "=");
    put_u(o, c->count);
    put_s(o, " " GR_FILE_KEY_SRC "=");
    put_ptr(s, o, sb ? c->sendbuff : NULL, sb, true);
    put_s(o, " " GR_FILE_KEY_DST "=");
    put_ptr(s, o, rb ? c->recvbuff : NULL, rb, true);
    put_s(o, " " GR_FILE_KEY_RANK "=");
    put_u(o, (uint64_t)c->comm->rank);
    put_s(o, " " GR_FILE_KEY_RANKS "=");
    put_u(o, (uint64_t)c->comm->size);
}

/* n's kind-specific fields. False (s->err set) when n cannot be saved. */
static bool put_fields(saver *s, outbuf *o, const struct grGraphNode_st *n)
{
    const gr_node_params *p = &n->p;
    switch (n->type) {
    case grGraphNodeTypeKernel:
        put_kernel(s, o, &p->kernel);
        break;
    case grGraphNodeTypeMemcpy:
        put_memcpy(s, o, &p->memcpy);
        break;
    case grGraphNodeTypeMemset:
        put_memset(s, o, &p->memset);
        break;
    case grGraphNodeTypeHost:
        put_host(s, o, &p->host, n);
        break;
    case grGraphNodeTypeGraph:
        break;
    case grGraphNodeTypeEmpty:
        break;
    case grGraphNodeTypeWaitEvent:
        put_event(s, o, p->event);
        break;
    case grGraphNodeTypeEventRecord:
        put_event(s, o, p->event);
        break;
    case grGraphNodeTypeMemAlloc:
        put_alloc(o, &p->alloc);
        break;
    case grGraphNodeTypeMemFree:
        return put_free(s, o, n);
    case grGraphNodeTypeBatchMemOp:
        put_memops(s, o, &p->memop);
        break;
    case grGraphNodeTypeConditional:
        put_cond_fields(s, o, &p->cond);
        break;
    case grGraphNodeTypeCollective:
        put_coll(s, o, &p->coll);
        break;
    case grGraphNodeTypeCount:
        break;
    }
    return true;
}

/* n's dependencies, and its successors where their order is not their
 * creation order. */
static void put_edges(outbuf *o, const struct grGraphNode_st *n)
{
    for (size_t i = 0; i < n->ndeps; i++) {
        put_s(o, i ? ",n" : " " GR_FILE_KEY_AFTER "=n");
        put_u(o, n->deps[i]->scratch);
    }
    /* Successors in an order other than their creation order (edges
     * added later, or removed and added again) are listed, so that the
     * loaded graph keeps the edge order too. */
    bool sorted = true;
    for (size_t i = 1; i < n->nsuccs && sorted; i++)
        sorted = n->succs[i - 1]->scratch < n->succs[i]->scratch;
    for (size_t i = 0; !sorted && i < n->nsuccs; i++) {
        put_s(o, i ? ",n" : " " GR_FILE_KEY_SUCC "=n");
        put_u(o, n->succs[i]->scratch);
    }
}

/* The blocks of a child graph node or a conditional node's bodies. */
static void put_blocks(saver *s, outbuf *o, const struct grGraphNode_st *n, unsigned depth)
{
    const gr_node_params *p = &n->p;
    if (n->type == grGraphNodeTypeGraph) {
        put_s(o, " {\n");
        put_graph(s, o, p->child, depth + 1);
        indent(o, depth);
        put_c(o, '}');
    } else if (n->type == grGraphNodeTypeConditional) {
        /* One block per body: "} {" closes one and opens the next. */
        put_s(o, " {\n");
        for (unsigned b = 0; b < p->cond.nbodies; b++) {
            if (b > 0) {
                indent(o, depth);
                put_s(o, "} {\n");
            }
            put_graph(s, o, p->cond.bodies[b], depth + 1);
        }
        indent(o, depth);
        put_c(o, '}');
    }
}

/* The node line of n (its block, for a child graph). */
static void put_node(saver *s, outbuf *o, const struct grGraphNode_st *n, unsigned depth)
{
    indent(o, depth);
    put_c(o, 'n');
    put_u(o, n->scratch);
    /* The kind's word, then its fields. */
    put_c(o, ' ');
    put_s(o, grGraphNodeTypeWord_(n->type));
    if (!put_fields(s, o, n))
        return;
    put_edges(o, n);
    put_blocks(s, o, n, depth);
    put_c(o, '\n');
}

/* Names the nodes of g by their creation-order index, then writes them.
 * The slab walk visits the list's order without its dependent loads
 * (a cache miss per node of a large graph). */
static void put_graph(saver *s, outbuf *o, grGraph_t g, unsigned depth)
{
    struct grGraphNode_st *n;
    uint64_t i = 0;
    if (g->nnotes && !s->err) {
        s->err = gr__fail(grErrorNotSupported,
                          "%s: the edge %s -> %s has non-default edge data (type %u, from_port %u); graph "
                          "files hold default edges only (remove the programmatic edges before saving)",
                          s->call, gr__node_label(g->notes[0].from), gr__node_label(g->notes[0].to),
                          g->notes[0].data.type, g->notes[0].data.from_port);
        return;
    }
    GR_GRAPH_FOR_EACH_NODE (g, n)
        n->scratch = i++;
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (!s->err)
            put_node(s, o, n, depth);
    }
}

/* Gathers the live conditional handles made for g and the graphs nested
 * in it (bodies, child graphs). */
static void collect_handles(saver *s, grGraph_t g)
{
    struct grGraphNode_st *n;
    for (const gr_cond_slot *c = g->cond_slots; c != NULL && !s->err; c = c->next)
        if (map_get(&s->handles, c) == UINT32_MAX && !map_put(&s->handles, c, 0))
            fail_oom(s);
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->type == grGraphNodeTypeGraph)
            collect_handles(s, n->p.child);
        for (unsigned b = 0; n->type == grGraphNodeTypeConditional && b < n->p.cond.nbodies; b++)
            collect_handles(s, n->p.cond.bodies[b]);
    }
}

static int cmp_arange(const void *a, const void *b)
{
    const arange *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* The allocation nodes' memory, sorted (only a top graph has them). */
static bool collect_allocs(saver *s, grGraph_t g)
{
    struct grGraphNode_st *n;
    uint64_t i = 0;
    size_t k = 0;
    /* A graph without memory nodes has no allocation node to look for. */
    if (g->nmemnodes == 0)
        return true;
    GR_GRAPH_FOR_EACH_NODE (g, n)
        k += n->type == grGraphNodeTypeMemAlloc;
    if (k == 0)
        return true;
    s->allocs = gr__malloc(k * sizeof *s->allocs);
    if (!s->allocs)
        return fail_oom(s);
    GR_GRAPH_FOR_EACH_NODE (g, n) {
        if (n->type == grGraphNodeTypeMemAlloc)
            s->allocs[s->nallocs++] = (arange){(uintptr_t)n->p.alloc.dptr, n->p.alloc.bytesize, i};
        i++;
    }
    qsort(s->allocs, s->nallocs, sizeof *s->allocs, cmp_arange);
    return true;
}

static void saver_free(saver *s)
{
    gr__free(s->decl.p);
    gr__free(s->body.p);
    gr__free(s->bufdecl.p);
    map_free(&s->kernels);
    map_free(&s->hostfns);
    map_free(&s->bufs);
    map_free(&s->events);
    map_free(&s->conds);
    map_free(&s->handles);
    gr__free(s->bufsize);
    gr__free(s->bufkind);
    gr__free(s->allocs);
}

/* Writes o's bytes to f. A buffer nothing was put in (no declarations, no
 * buffers) has p NULL, which fwrite may not get even for 0 bytes (C11
 * 7.1.4; gcc's UBSan checks it). */
static bool write_out(const outbuf *o, FILE *f)
{
    return o->len == 0 || fwrite(o->p, 1, o->len, f) == o->len;
}

static grError_t write_file(saver *s, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return gr__fail(grErrorInvalidValue, "%s: cannot open '%s' for writing: %s", s->call, path,
                        strerror(errno));
    static const char head[] = GR_FILE_MAGIC " 1\n# a graphrt graph file (docs/graph-files.md)\n";
    bool ok = fwrite(head, 1, sizeof head - 1, f) == sizeof head - 1;
    ok = ok && write_out(&s->decl, f);
    ok = ok && write_out(&s->bufdecl, f);
    ok = ok && write_out(&s->body, f);
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    if (!ok)
        return gr__fail(grErrorInvalidValue, "%s: cannot write '%s': %s", s->call, path, strerror(saved));
    return grSuccess;
}

GR_API grError_t grGraphSaveToFile(grGraph_t graph, const char *path, unsigned int flags)
{
    static const char call[] = "grGraphSaveToFile";
    grError_t err;
    saver s;
    if ((err = gr__graph_check(call, graph)))
        return err;
    if (!path)
        return gr__fail(grErrorInvalidValue, "%s: path is NULL; pass the file to write", call);
    if (flags != 0)
        return gr__fail(grErrorInvalidValue, "%s: flags is 0x%x but must be 0", call, flags);
    /* The format's child graphs are embedded by a clone when loaded, which
     * a graph with memory nodes cannot be. */
    if (graph->nchildmem != 0)
        return gr__fail(grErrorNotSupported,
                        "%s: graph %p holds a moved child graph with memory allocation or free nodes; "
                        "graph files hold memory nodes in the top-level graph only",
                        call, GR_PTR(graph));
    memset(&s, 0, sizeof s);
    s.call = call;
    collect_handles(&s, graph);
    if (!s.err && collect_allocs(&s, graph)) {
        put_s(&s.body, "graph {\n");
        put_graph(&s, &s.body, graph, 1);
        put_s(&s.body, "}\n");
    }
    /* Buffers are declared last: an untracked one grows while it is used. */
    for (uint32_t i = 0; i < s.nbufs && !s.err; i++) {
        put_s(&s.bufdecl, GR_FILE_DECL_BUFFER " b");
        put_u(&s.bufdecl, i);
        put_s(&s.bufdecl, s.bufkind[i] == 'h' ? " " GR_FILE_WORD_HOST " " : " " GR_FILE_WORD_DEVICE " ");
        put_u(&s.bufdecl, s.bufsize[i]);
        put_c(&s.bufdecl, '\n');
    }
    if (!s.err && (s.decl.oom || s.body.oom || s.bufdecl.oom))
        fail_oom(&s);
    err = s.err ? s.err : write_file(&s, path);
    saver_free(&s);
    return err;
}
