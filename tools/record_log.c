/*
 * record_log.c - reads the callback stream of libgraphrt_record.so (the
 * format is in docs/record.md) and writes one recorded graph as a graphrt
 * graph file (docs/graph-files.md).
 *
 * Reading: every line is split into words at single spaces (names are
 * quoted with spaces escaped, so a word never holds one). A 'walk' line
 * opens a block of 'node' lines, nested by '{' at the end of a line and
 * closed by '}' (or '} {' between two bodies of a conditional node), up to
 * 'walk-end'. A malformed log is refused with the line that is wrong.
 *
 * Writing: the file's nodes are the walk's in its order (the order of
 * cuGraphGetNodes, which is creation order), so a node's index in the
 * file is its index in the walk, and 'after=' lists the dependencies in
 * the order cuGraphNodeGetDependencies gave them, which is what update
 * pairing reads. Memory becomes symbolic: a pointer into an allocation
 * node of the graph is '@nI+OFF'; one into memory CUDA knows (device,
 * pool, managed, pinned) is a buffer of the allocation's size, one per
 * allocation; an address CUDA does not know stays a number in a kernel's
 * arguments and becomes a host buffer in a copy.
 */
#define _POSIX_C_SOURCE 200809L
#include "record.h"
#include "tool.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- arena */

struct rec_chunk {
    struct rec_chunk *next;
    max_align_t data[];
};

void *rec_alloc(rec_arena *a, size_t n)
{
    struct rec_chunk *c = calloc(1, sizeof *c + (n ? n : 1));
    if (!c)
        return NULL;
    c->next = a->chunks;
    a->chunks = c;
    return c->data;
}

char *rec_strdup(rec_arena *a, const char *s, size_t n)
{
    char *d = rec_alloc(a, n + 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

void rec_arena_free(rec_arena *a)
{
    while (a->chunks) {
        struct rec_chunk *c = a->chunks;
        a->chunks = c->next;
        free(c);
    }
}

/* ------------------------------------------------------------- lines */

const char *rec_get(const rec_line *l, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i < l->ntok; i++)
        if (strncmp(l->tok[i], key, k) == 0 && l->tok[i][k] == '=')
            return l->tok[i] + k + 1;
    return NULL;
}

unsigned long long rec_getu(const rec_line *l, const char *key)
{
    const char *v = rec_get(l, key);
    return v ? strtoull(v, NULL, 0) : 0;
}

/* Splits s (one line, no newline, leading spaces skipped) into words. */
static bool split(rec_arena *a, char *s, size_t no, rec_line *out)
{
    while (*s == ' ')
        s++;
    size_t n = 1;
    for (char *p = s; *p; p++)
        n += *p == ' ';
    char **w = rec_alloc(a, n * sizeof *w);
    if (!w)
        return false;
    size_t k = 0;
    for (char *p = s;;) {
        char *e = strchr(p, ' ');
        if (e)
            *e = '\0';
        if (*p)
            w[k++] = p;
        if (!e)
            break;
        p = e + 1;
    }
    out->no = no;
    out->kind = k ? w[0] : "";
    out->tok = k ? w + 1 : w;
    out->ntok = k ? k - 1 : 0;
    return true;
}

/* ------------------------------------------------------------ reading */

typedef struct reader {
    rec_log *log;
    char **lines;
    size_t n, i;
    char *err;
    size_t cap;
} reader;

static bool fail(reader *r, size_t no, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(reader *r, size_t no, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(r->err, r->cap, "%s:%zu: ", r->log->path, no);
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < r->cap)
        vsnprintf(r->err + k, r->cap - (size_t)k, fmt, ap);
    va_end(ap);
    return false;
}

static bool ends_open(const rec_line *l)
{
    return l->ntok && strcmp(l->tok[l->ntok - 1], "{") == 0;
}

static bool read_graph(reader *r, rec_graph *g, int depth);

/* A node line already split into l (its words after "node"). */
static bool read_node(reader *r, rec_line *l, rec_node *nd, int depth)
{
    rec_arena *a = &r->log->arena;
    bool open = ends_open(l);
    if (open)
        l->ntok--;
    const char *id = rec_get(l, "n");
    if (!id || l->ntok < 2)
        return fail(r, l->no, "a node line without 'n=' or type");
    nd->id = strtoull(id, NULL, 0);
    /* f: the type and its fields, less n=, deps= and edgedata=. */
    nd->f.no = l->no;
    nd->f.kind = l->tok[1];
    nd->f.tok = rec_alloc(a, l->ntok * sizeof(char *));
    if (!nd->f.tok)
        return fail(r, l->no, "out of memory");
    for (size_t i = 2; i < l->ntok; i++) {
        const char *t = l->tok[i];
        if (strncmp(t, "deps=", 5) == 0) {
            size_t n = 1;
            for (const char *p = t + 5; *p; p++)
                n += *p == ',';
            nd->deps = rec_alloc(a, n * sizeof *nd->deps);
            if (!nd->deps)
                return fail(r, l->no, "out of memory");
            for (const char *p = t + 5; *p;) {
                char *e;
                nd->deps[nd->ndeps++] = strtoull(p, &e, 10);
                if (e == p)
                    return fail(r, l->no, "a malformed 'deps=' list");
                p = *e == ',' ? e + 1 : e;
            }
        } else if (strncmp(t, "edgedata=", 9) == 0) {
            nd->edgedata = true;
        } else {
            nd->f.tok[nd->f.ntok++] = l->tok[i];
        }
    }
    if (!open)
        return true;
    /* Bodies: '{' ... '}' possibly followed by '} {' ... */
    r->i++; /* past the opening line */
    for (;;) {
        rec_graph *b = rec_alloc(a, sizeof *b);
        rec_graph **nb = rec_alloc(a, (nd->nbody + 1) * sizeof *nb);
        if (!b || !nb)
            return fail(r, l->no, "out of memory");
        if (nd->nbody)
            memcpy(nb, nd->body, nd->nbody * sizeof *nb);
        nb[nd->nbody++] = b;
        nd->body = nb;
        if (!read_graph(r, b, depth + 1))
            return false;
        /* read_graph stopped at a '}' line: r->i points at it. */
        const char *c = r->lines[r->i];
        while (*c == ' ')
            c++;
        r->i++;
        if (strcmp(c, "} {") != 0)
            break;
    }
    return true;
}

/* Reads node lines until 'walk-end' (depth 0) or a '}' line (left for
 * the caller). */
static bool read_graph(reader *r, rec_graph *g, int depth)
{
    rec_arena *a = &r->log->arena;
    size_t cap = 0;
    for (; r->i < r->n; r->i++) {
        char *s = r->lines[r->i];
        size_t no = r->i + 1;
        const char *c = s;
        while (*c == ' ')
            c++;
        if (*c == '}') {
            if (depth == 0)
                return fail(r, no, "'}' outside a block");
            return true;
        }
        if (strncmp(c, "walk-end", 8) == 0) {
            if (depth)
                return fail(r, no, "the walk ends inside a block");
            return true;
        }
        rec_line l;
        if (!split(a, s, no, &l))
            return fail(r, no, "out of memory");
        if (strcmp(l.kind, "error") == 0)
            continue;
        if (strcmp(l.kind, "node") != 0)
            return fail(r, no, "'%s' inside a walk", l.kind);
        if (g->n == cap) {
            cap = cap ? 2 * cap : 16;
            rec_node *nv = rec_alloc(a, cap * sizeof *nv);
            if (!nv)
                return fail(r, no, "out of memory");
            if (g->n)
                memcpy(nv, g->v, g->n * sizeof *nv);
            g->v = nv;
        }
        rec_node *nd = &g->v[g->n++];
        if (!read_node(r, &l, nd, depth))
            return false;
        if (nd->nbody)
            r->i--; /* read_node consumed the closing line; the loop's ++ must not skip one */
    }
    return fail(r, r->n, "the log ends inside a walk (the program did not exit normally?)");
}

bool rec_log_read(rec_log *log, const char *path, char *err, size_t cap)
{
    memset(log, 0, sizeof *log);
    reader r = {log, NULL, 0, 0, err, cap};
    size_t len;
    char *text = tool_read_file(path, &len);
    log->path = path;
    if (!text) {
        snprintf(err, cap, "cannot read '%s'", path);
        return false;
    }
    char *owned = rec_strdup(&log->arena, text, len);
    free(text);
    if (!owned) {
        snprintf(err, cap, "out of memory reading '%s'", path);
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += owned[i] == '\n';
    r.lines = rec_alloc(&log->arena, (n + 1) * sizeof *r.lines);
    log->lines = rec_alloc(&log->arena, (n + 1) * sizeof *log->lines);
    log->walks = rec_alloc(&log->arena, (n + 1) * sizeof *log->walks);
    if (!r.lines || !log->lines || !log->walks) {
        snprintf(err, cap, "out of memory reading '%s'", path);
        return false;
    }
    for (char *p = owned; *p;) {
        char *e = strchr(p, '\n');
        if (!e)
            break; /* a last line without its newline: cut off, ignored */
        *e = '\0';
        r.lines[r.n++] = p;
        p = e + 1;
    }
    if (r.n == 0 || strncmp(r.lines[0], "graphrt-record ", 15) != 0)
        return fail(&r, 1, "not a graphrt callback stream (the first line is not 'graphrt-record 1')");
    log->version = (unsigned)strtoul(r.lines[0] + 15, NULL, 10);
    if (log->version != 1)
        return fail(&r, 1, "version %u; this converter reads version 1", log->version);
    for (r.i = 1; r.i < r.n; r.i++) {
        rec_line l;
        if (r.lines[r.i][0] == '\0' || r.lines[r.i][0] == '#')
            continue;
        if (!split(&log->arena, r.lines[r.i], r.i + 1, &l))
            return fail(&r, r.i + 1, "out of memory");
        if (strcmp(l.kind, "walk") == 0) {
            rec_walk *wk = &log->walks[log->nwalks++];
            wk->w = (unsigned)rec_getu(&l, "w");
            wk->g = (unsigned)rec_getu(&l, "g");
            wk->x = (unsigned)rec_getu(&l, "x");
            wk->why = rec_get(&l, "why") ? rec_get(&l, "why") : "?";
            wk->line = l.no;
            r.i++;
            if (!read_graph(&r, &wk->top, 0))
                return false;
            continue;
        }
        if (strcmp(l.kind, "walk-same") == 0) {
            rec_walk *wk = &log->walks[log->nwalks++];
            wk->w = (unsigned)rec_getu(&l, "w");
            wk->g = (unsigned)rec_getu(&l, "g");
            wk->x = (unsigned)rec_getu(&l, "x");
            wk->same_as = (unsigned)rec_getu(&l, "as");
            wk->why = rec_get(&l, "why") ? rec_get(&l, "why") : "?";
            wk->line = wk->queued_line = l.no; /* asked for and answered at once */
            continue;
        }
        if (strcmp(l.kind, "end") == 0)
            log->ended = true;
        log->lines[log->nlines++] = l;
    }
    /* A walk-same shares the nodes of its walk, which the helper thread
     * may have written after it. */
    for (size_t i = 0; i < log->nwalks; i++) {
        rec_walk *wk = &log->walks[i];
        if (!wk->same_as)
            continue;
        const rec_walk *src = rec_log_walk(log, wk->same_as);
        if (!src || src->same_as || src->g != wk->g)
            return fail(&r, wk->line, "walk-same w=%u names walk %u, which is not a walk of graph %u", wk->w,
                        wk->same_as, wk->g);
        wk->top = src->top;
    }
    for (size_t i = 0; i < log->nlines; i++)
        if (strcmp(log->lines[i].kind, "walk-queued") == 0) {
            rec_walk *wk = rec_log_walk(log, (unsigned)rec_getu(&log->lines[i], "w"));
            if (wk)
                wk->queued_line = log->lines[i].no;
        }
    return true;
}

void rec_log_free(rec_log *log)
{
    rec_arena_free(&log->arena);
    memset(log, 0, sizeof *log);
}

rec_walk *rec_log_walk(rec_log *log, unsigned w)
{
    for (size_t i = 0; i < log->nwalks; i++)
        if (log->walks[i].w == w)
            return &log->walks[i];
    return NULL;
}

static const rec_node *find_in(const rec_graph *g, unsigned long long id, size_t *index)
{
    for (size_t i = 0; i < g->n; i++) {
        if (g->v[i].id == id) {
            *index = i;
            return &g->v[i];
        }
        for (size_t b = 0; b < g->v[i].nbody; b++) {
            const rec_node *n = find_in(g->v[i].body[b], id, index);
            if (n)
                return n;
        }
    }
    return NULL;
}

const rec_node *rec_walk_node(const rec_walk *wk, unsigned long long id, size_t *index)
{
    return find_in(&wk->top, id, index);
}

/* ------------------------------------------------------------ writing */

/* A pointer as the walk writes it: p:CLASS:ADDR:BASE:SIZE. */
typedef struct ref {
    const char *cls;
    size_t clslen;
    uint64_t addr, base, size;
} ref;

static bool parse_ref(const char *s, ref *r)
{
    if (strncmp(s, "p:", 2) != 0)
        return false;
    const char *c = s + 2, *e = strchr(c, ':');
    if (!e)
        return false;
    r->cls = c;
    r->clslen = (size_t)(e - c);
    char *end;
    r->addr = strtoull(e + 1, &end, 0);
    if (*end != ':')
        return false;
    r->base = strtoull(end + 1, &end, 0);
    if (*end != ':')
        return false;
    r->size = strtoull(end + 1, &end, 10);
    return *end == '\0' || *end == ',';
}

static bool cls_is(const ref *r, const char *w)
{
    return r->clslen == strlen(w) && strncmp(r->cls, w, r->clslen) == 0;
}

/* The declarations of one file: names, events, handles, buffers. */
typedef struct decls {
    const char **kname, **ksig; /* kernel: name and "S1 S2 ..." */
    size_t nk;
    const char **hname;
    size_t nh;
    uint64_t *ev;
    size_t ne;
    uint64_t *cond;
    const char **cdecl;
    size_t nc;
    uint64_t *bbase, *bsize;
    bool *bhost;
    size_t nb;
    size_t cap;
    rec_arena *a;
    const rec_graph *top;
} decls;

static size_t intern_s(const char **v, size_t *n, const char *s, const char **v2, const char *s2)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i], s) == 0 && (!v2 || strcmp(v2[i], s2) == 0))
            return i;
    v[*n] = s;
    if (v2)
        v2[*n] = s2;
    return (*n)++;
}

static size_t intern_u(uint64_t *v, size_t *n, uint64_t x)
{
    for (size_t i = 0; i < *n; i++)
        if (v[i] == x)
            return i;
    v[*n] = x;
    return (*n)++;
}

/* An allocation node of the top graph holding addr: its index and the
 * offset; false if none. */
static bool graph_mem(const decls *d, uint64_t addr, size_t *idx, uint64_t *off)
{
    for (size_t i = 0; i < d->top->n; i++) {
        const rec_node *n = &d->top->v[i];
        if (strcmp(n->f.kind, "alloc") != 0)
            continue;
        uint64_t p = rec_getu(&n->f, "ptr"), s = rec_getu(&n->f, "size");
        if (addr >= p && addr < p + (s ? s : 1)) {
            *idx = i;
            *off = addr - p;
            return true;
        }
    }
    return false;
}

/* Writes a reference into out: null, @nI+OFF, bI+OFF; or, for an address
 * CUDA does not know, a host buffer of the bytes used (copies) or NULL
 * (kernel arguments then write the number). span: bytes used from addr. */
static bool put_ref(decls *d, const char *tok, uint64_t span, bool raw_ok, char *out, size_t cap)
{
    ref r;
    if (strcmp(tok, "null") == 0) {
        snprintf(out, cap, "null");
        return true;
    }
    if (!parse_ref(tok, &r))
        return false;
    size_t idx;
    uint64_t off;
    if (graph_mem(d, r.addr, &idx, &off)) {
        snprintf(out, cap, "@n%zu+%" PRIu64, idx, off);
        return true;
    }
    bool unknown = cls_is(&r, "unknown");
    if (unknown && raw_ok)
        return false;
    bool host = unknown || cls_is(&r, "host") || cls_is(&r, "pinned") || cls_is(&r, "registered");
    uint64_t base = r.base, size = r.size;
    if (unknown || cls_is(&r, "host")) {
        base = r.addr;
        size = span ? span : 1;
    }
    size_t b = intern_u(d->bbase, &d->nb, base);
    uint64_t need = r.addr - base + (span ? span : 1);
    if (d->bsize[b] < size)
        d->bsize[b] = size;
    if (d->bsize[b] < need)
        d->bsize[b] = need;
    d->bhost[b] = host;
    snprintf(out, cap, "b%zu+%" PRIu64, b, r.addr - base);
    return true;
}

typedef struct out {
    char *s;
    size_t len, cap;
    bool oom;
} out;

static void outf(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(out *o, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(o->s ? o->s + o->len : NULL, o->s ? o->cap - o->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            o->oom = true;
            return;
        }
        if (o->s && o->len + (size_t)k < o->cap) {
            o->len += (size_t)k;
            return;
        }
        size_t nc = (o->cap + (size_t)k + 1) * 2;
        char *ns = realloc(o->s, nc);
        if (!ns) {
            o->oom = true;
            return;
        }
        o->s = ns;
        o->cap = nc;
    }
}

static const char *field(const rec_node *n, const char *k, const char *dflt)
{
    const char *v = rec_get(&n->f, k);
    return v ? v : dflt;
}

static void put_graph(decls *d, out *o, const rec_graph *g, int depth);

static void put_deps(out *o, const rec_graph *g, const rec_node *n)
{
    bool first = true;
    for (size_t k = 0; k < n->ndeps; k++)
        for (size_t j = 0; j < g->n; j++)
            if (g->v[j].id == n->deps[k]) {
                outf(o, "%sn%zu", first ? " after=" : ",", j);
                first = false;
                break;
            }
}

static void put_kernel(decls *d, out *o, const rec_node *n)
{
    /* kernel "NAME" grid= block= shmem= args=A,B,... */
    const char *name = n->f.ntok ? n->f.tok[0] : "\"?\"";
    const char *args = field(n, "args", NULL);
    char sig[4096] = "";
    size_t sl = 0;
    out a = {0};
    if (args) {
        char *copy = rec_strdup(d->a, args, strlen(args));
        for (char *p = copy; p && *p;) {
            char *e = strchr(p, ',');
            if (e)
                *e = '\0';
            size_t size = 0;
            char buf[128];
            if (p[0] == 'x') {
                size = strlen(p + 1) / 2;
                outf(&a, "%s%s", a.len ? "," : "", p);
            } else if (p[0] == 'z') {
                size = strtoull(p + 1, NULL, 10);
                outf(&a, "%sx", a.len ? "," : "");
                for (size_t b = 0; b < size; b++)
                    outf(&a, "00");
            } else if (put_ref(d, p, 0, true, buf, sizeof buf)) {
                size = 8;
                outf(&a, "%s%s", a.len ? "," : "", buf);
            } else {
                ref r;
                size = 8;
                uint64_t v = parse_ref(p, &r) ? r.addr : 0;
                outf(&a, "%sx", a.len ? "," : "");
                for (int b = 0; b < 8; b++)
                    outf(&a, "%02x", (unsigned)((v >> (8 * b)) & 0xff));
            }
            int k = snprintf(sig + sl, sizeof sig - sl, " %zu", size);
            if (k > 0 && (size_t)k < sizeof sig - sl)
                sl += (size_t)k;
            p = e ? e + 1 : NULL;
        }
    }
    size_t ki = intern_s(d->kname, &d->nk, name, d->ksig, rec_strdup(d->a, sig, sl));
    outf(o, " kernel k%zu grid=%s block=%s shmem=%s", ki, field(n, "grid", "1,1,1"),
         field(n, "block", "1,1,1"), field(n, "shmem", "0"));
    if (a.len)
        outf(o, " args=%s", a.s);
    free(a.s);
}

static void put_memcpy(decls *d, out *o, const rec_node *n)
{
    uint64_t w = rec_getu(&n->f, "w"), h = rec_getu(&n->f, "h"), dd = rec_getu(&n->f, "d");
    uint64_t dp = rec_getu(&n->f, "dpitch"), dh = rec_getu(&n->f, "dheight");
    uint64_t sp = rec_getu(&n->f, "spitch"), sh = rec_getu(&n->f, "sheight");
    h = h ? h : 1;
    dd = dd ? dd : 1;
    bool flat = (h == 1 && dd == 1) ||
                (dp == w && sp == w && (dd == 1 || ((dh ? dh : h) == h && (sh ? sh : h) == h)));
    uint64_t dspan = flat ? w * h * dd : (dd - 1) * (dh ? dh : h) * dp + (h - 1) * dp + w;
    uint64_t sspan = flat ? w * h * dd : (dd - 1) * (sh ? sh : h) * sp + (h - 1) * sp + w;
    char dst[128], src[128];
    if (!put_ref(d, field(n, "dst", "null"), dspan, false, dst, sizeof dst))
        snprintf(dst, sizeof dst, "null");
    if (!put_ref(d, field(n, "src", "null"), sspan, false, src, sizeof src))
        snprintf(src, sizeof src, "null");
    if (flat)
        outf(o, " memcpy dst=%s src=%s count=%" PRIu64 " kind=%s", dst, src, w * h * dd,
             field(n, "kind", "Default"));
    else
        outf(o,
             " memcpy dst=%s src=%s extent=%" PRIu64 ",%" PRIu64 ",%" PRIu64 " dpitch=%" PRIu64
             " drows=%" PRIu64 " spitch=%" PRIu64 " srows=%" PRIu64 " kind=%s",
             dst, src, w, h, dd, dp, dh ? dh : h, sp, sh ? sh : h, field(n, "kind", "Default"));
}

static void put_memset(decls *d, out *o, const rec_node *n)
{
    uint64_t pitch = rec_getu(&n->f, "pitch"), elem = rec_getu(&n->f, "elem");
    uint64_t width = rec_getu(&n->f, "width"), height = rec_getu(&n->f, "height");
    uint64_t span = height > 1 ? (height - 1) * pitch + width * elem : width * elem;
    char dst[128];
    if (!put_ref(d, field(n, "dst", "null"), span, false, dst, sizeof dst))
        snprintf(dst, sizeof dst, "null");
    outf(o, " memset dst=%s pitch=%" PRIu64 " value=%s elem=%" PRIu64 " width=%" PRIu64 " height=%" PRIu64,
         dst, pitch, field(n, "value", "0"), elem, width, height ? height : 1);
}

static void put_node(decls *d, out *o, const rec_graph *g, size_t i, int depth)
{
    const rec_node *n = &g->v[i];
    const char *t = n->f.kind;
    int ind = 2 * (depth + 1);
    if (n->edgedata)
        outf(o, "%*s# n%zu: its edges carry CUDA edge data (programmatic); the file keeps default edges\n",
             ind, "", i);
    if (strcmp(t, "other") == 0 || (strcmp(t, "cond") == 0 && !rec_get(&n->f, "handle")) ||
        (strcmp(t, "free") == 0 && !graph_mem(d, rec_getu(&n->f, "ptr"), &(size_t){0}, &(uint64_t){0})))
        outf(o, "%*s# n%zu: CUDA node '%s %s' is kept as an empty node\n", ind, "", i, t,
             n->f.ntok ? n->f.tok[0] : "");
    outf(o, "%*sn%zu", ind, "", i);
    if (strcmp(t, "kernel") == 0) {
        put_kernel(d, o, n);
    } else if (strcmp(t, "memcpy") == 0) {
        put_memcpy(d, o, n);
    } else if (strcmp(t, "memset") == 0) {
        put_memset(d, o, n);
    } else if (strcmp(t, "host") == 0) {
        size_t h = intern_s(d->hname, &d->nh, n->f.ntok ? n->f.tok[0] : "\"?\"", NULL, NULL);
        const char *data = field(n, "data", "null");
        char buf[128];
        ref r;
        if (strcmp(data, "null") == 0 || (parse_ref(data, &r) && r.addr == 0))
            snprintf(buf, sizeof buf, "null");
        else if (parse_ref(data, &r) && !cls_is(&r, "unknown") && !cls_is(&r, "host") &&
                 put_ref(d, data, 1, true, buf, sizeof buf))
            ;
        else
            snprintf(buf, sizeof buf, "0x%016" PRIx64, parse_ref(data, &r) ? r.addr : 0);
        outf(o, " host h%zu data=%s", h, buf);
    } else if (strcmp(t, "record") == 0 || strcmp(t, "wait") == 0) {
        size_t e = intern_u(d->ev, &d->ne, rec_getu(&n->f, "e"));
        outf(o, " %s e%zu", t, e);
    } else if (strcmp(t, "alloc") == 0 && depth == 0) {
        outf(o, " alloc size=%llu access=rw maxsize=0 usage=0", rec_getu(&n->f, "size"));
    } else if (strcmp(t, "free") == 0 && depth == 0 &&
               graph_mem(d, rec_getu(&n->f, "ptr"), &(size_t){0}, &(uint64_t){0})) {
        size_t idx;
        uint64_t off;
        graph_mem(d, rec_getu(&n->f, "ptr"), &idx, &off);
        outf(o, " free ptr=@n%zu+%" PRIu64, idx, off);
    } else if (strcmp(t, "graph") == 0 && n->nbody == 1) {
        outf(o, " graph");
    } else if (strcmp(t, "cond") == 0 && rec_get(&n->f, "handle") && n->nbody) {
        uint64_t h = rec_getu(&n->f, "handle");
        size_t before = d->nc;
        size_t c = intern_u(d->cond, &d->nc, h);
        if (c == before) {
            char decl[96];
            snprintf(decl, sizeof decl, "cond c%zu default=%s flags=%s", c, field(n, "default", "0"),
                     field(n, "flags", "0"));
            d->cdecl[c] = rec_strdup(d->a, decl, strlen(decl));
        }
        outf(o, " cond c%zu type=%s size=%zu", c, field(n, "type", "if"), n->nbody);
    } else {
        outf(o, " empty");
    }
    put_deps(o, g, n);
    bool child = strcmp(t, "graph") == 0 && n->nbody == 1;
    bool cond = strcmp(t, "cond") == 0 && rec_get(&n->f, "handle") && n->nbody;
    if (child || cond) {
        for (size_t b = 0; b < n->nbody; b++) {
            outf(o, b ? "%*s} {\n" : " {\n", ind, "");
            put_graph(d, o, n->body[b], depth + 1);
        }
        outf(o, "%*s}", ind, "");
    }
    outf(o, "\n");
}

static void put_graph(decls *d, out *o, const rec_graph *g, int depth)
{
    for (size_t i = 0; i < g->n; i++)
        put_node(d, o, g, i, depth);
}

/* A bound on the declarations a graph can need: each takes at least one
 * character of a node's fields. */
static size_t count_chars(const rec_graph *g)
{
    size_t n = g->n;
    for (size_t i = 0; i < g->n; i++) {
        for (size_t t = 0; t < g->v[i].f.ntok; t++)
            n += strlen(g->v[i].f.tok[t]);
        for (size_t b = 0; b < g->v[i].nbody; b++)
            n += count_chars(g->v[i].body[b]);
    }
    return n;
}

bool rec_write_graph(FILE *f, const rec_walk *wk)
{
    rec_arena a = {0};
    decls d;
    memset(&d, 0, sizeof d);
    d.a = &a;
    d.top = &wk->top;
    size_t slots = count_chars(&wk->top) + 16;
    d.kname = rec_alloc(&a, slots * sizeof *d.kname);
    d.ksig = rec_alloc(&a, slots * sizeof *d.ksig);
    d.hname = rec_alloc(&a, slots * sizeof *d.hname);
    d.ev = rec_alloc(&a, slots * sizeof *d.ev);
    d.cond = rec_alloc(&a, slots * sizeof *d.cond);
    d.cdecl = rec_alloc(&a, slots * sizeof *d.cdecl);
    d.bbase = rec_alloc(&a, slots * sizeof *d.bbase);
    d.bsize = rec_alloc(&a, slots * sizeof *d.bsize);
    d.bhost = rec_alloc(&a, slots * sizeof *d.bhost);
    out body = {0};
    bool ok = d.kname && d.ksig && d.hname && d.ev && d.cond && d.cdecl && d.bbase && d.bsize && d.bhost;
    if (ok)
        put_graph(&d, &body, &wk->top, 0);
    ok = ok && !body.oom;
    if (ok) {
        fprintf(f,
                "graphrt-graph 1\n# recorded from CUDA by graphrt record (docs/record.md): graph %u, walk %u "
                "(%s)\n",
                wk->g, wk->w, wk->why);
        for (size_t i = 0; i < d.nk; i++)
            fprintf(f, "kernel k%zu %s%s\n", i, d.kname[i], d.ksig[i]);
        for (size_t i = 0; i < d.nh; i++)
            fprintf(f, "hostfn h%zu %s\n", i, d.hname[i]);
        for (size_t i = 0; i < d.nc; i++)
            fprintf(f, "%s\n", d.cdecl[i]);
        for (size_t i = 0; i < d.ne; i++)
            fprintf(f, "event e%zu 0\n", i);
        for (size_t i = 0; i < d.nb; i++)
            fprintf(f, "buffer b%zu %s %" PRIu64 "\n", i, d.bhost[i] ? "host" : "device", d.bsize[i]);
        fprintf(f, "graph {\n");
        if (body.len)
            fwrite(body.s, 1, body.len, f);
        fprintf(f, "}\n");
        ok = !ferror(f);
    }
    free(body.s);
    rec_arena_free(&a);
    return ok;
}
